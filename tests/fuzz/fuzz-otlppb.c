/* fuzz-otlppb.c - libFuzzer target: rag_otlppb_json (lib/otlppb.c), rag-serve's reader of OTLP's
 * protobuf encoding, on any bytes after the first, which picks the memory protobuf-c may take
 * (256 bytes, 4 KiB, 64 KiB or 1 MiB: the budget's failure path is walked too). A request gives
 * one line of JSON, an object that libjq reads, valid UTF-8 with no newline; anything else 1 or
 * -1 with a message, and nothing written. No crash, no leak, whatever the bytes. */
#include "base.h"
#include "serve.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t mem[] = {256, 4096, 65536, 1 << 20};
	unsigned sel = size ? data[0] : 0;
	char err[RAG_ERRLEN] = "";
	rag_buf out = {0};
	uint8_t *p;
	int rc;
	if (size) data++, size--;
	p = malloc(size ? size : 1);   /* its own allocation: ASan sees a read past the end */
	memcpy(p, data, size);
	rag_buf_adds(&out, "x");
	rc = rag_otlppb_json(p, size, mem[sel % 4], &out, err, sizeof err);
	if (rc) {
		if (!err[0] || out.len != 1) abort();
	} else {
		jv v;
		if (out.len < 3 || memchr(out.p + 1, '\n', out.len - 1) || !rag_utf8_valid(out.p + 1, out.len - 1)) abort();
		v = jv_parse_sized(out.p + 1, (int)(out.len - 1));
		if (jv_get_kind(v) != JV_KIND_OBJECT) abort();
		jv_free(v);
	}
	rag_buf_free(&out);
	free(p);
	return 0;
}
