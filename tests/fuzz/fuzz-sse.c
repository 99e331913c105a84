/* fuzz-sse.c - libFuzzer target: rag_wire_sse (lib/wire.c), the reader of a text/event-stream
 * reply (rag-collect's streaming services). Any bytes, NULs included, give an array of events
 * (each a JSON value; a string where the event is not JSON) or an error whose message is one
 * line; never a crash, a leak or a read past the bytes. */
#include "base.h"
#include "llm.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = malloc(size ? size : 1), err[RAG_ERRLEN] = "";
	jv v;
	memcpy(p, data, size);    /* its own allocation: ASan sees a read past the end */
	v = rag_wire_sse(p, size, err, sizeof err);
	if (jv_is_valid(v)) {
		jv d;
		if (jv_get_kind(v) != JV_KIND_ARRAY) abort();
		d = jv_dump_string(v, 0);   /* walks every event */
		jv_free(d);
	} else {
		const char *q;
		jv_free(v);
		if (!err[0]) abort();      /* a failure says why */
		for (q = err; *q; q++)
			if ((unsigned char)*q < 0x20) abort();   /* on one line */
	}
	free(p);
	return 0;
}
