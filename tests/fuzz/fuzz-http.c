/* fuzz-http.c - libFuzzer target: the readers of an HTTP reply's body (lib/wire.c): a chat
 * completion (rag_wire_chat), an embeddings reply (rag_wire_embed) and an error's body
 * (rag_wire_error); the first byte picks the reader (% 3) and its parameters: the choices asked
 * for, the texts and dimensions of the embeddings, the bound of the error's message. A body of
 * any shape gives a value of the documented shape or a message, never a libjq assertion:
 *  - chat: {content: string, finish_reason: string, usage}, choices an array of strings;
 *  - embeddings: an array of want vectors, all of one size (dims when set);
 *  - error: NULL, or valid UTF-8 on one line without control characters, within the bound. */
#include "base.h"
#include "llm.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_chat(const char *p, size_t n, int nchoices)
{
	char err[RAG_ERRLEN] = "";
	jv v = rag_wire_chat(p, n, nchoices, err, sizeof err), x;
	if (!jv_is_valid(v)) {
		jv_free(v);
		if (!err[0]) abort();
		return;
	}
	x = rag_json_get(jv_copy(v), "content");
	if (jv_get_kind(x) != JV_KIND_STRING) abort();
	jv_free(x);
	x = rag_json_get(jv_copy(v), "finish_reason");
	if (jv_get_kind(x) != JV_KIND_STRING) abort();
	jv_free(x);
	x = rag_json_get(jv_copy(v), "choices");
	if (nchoices > 1) {
		if (jv_get_kind(x) != JV_KIND_ARRAY || jv_array_length(jv_copy(x)) < 1 ||
		    jv_array_length(jv_copy(x)) > nchoices) abort();
		jv_array_foreach(x, i, c) {
			if (jv_get_kind(c) != JV_KIND_STRING) abort();
			jv_free(c);
		}
	}
	jv_free(x);
	jv_free(v);
}

static void check_embed(const char *p, size_t n, int want, int dims)
{
	char err[RAG_ERRLEN] = "";
	jv u, v = rag_wire_embed(p, n, want, dims, &u, err, sizeof err);
	jv_free(u);
	if (!jv_is_valid(v)) {
		jv_free(v);
		if (!err[0]) abort();
		return;
	}
	if (jv_get_kind(v) != JV_KIND_ARRAY || jv_array_length(jv_copy(v)) != want) abort();
	{
		int size = -1;
		jv_array_foreach(v, i, e) {
			if (!rag_wire_vector_ok(e)) abort();
			if (size < 0) size = jv_array_length(jv_copy(e));
			if (jv_array_length(jv_copy(e)) != size || (dims && size != dims)) abort();
			jv_free(e);
		}
	}
	jv_free(v);
}

static void check_error(const char *p, size_t n, size_t max)
{
	char *m = rag_wire_error(p, n, max);
	const char *q;
	if (!m) return;
	if (!*m || (max && strlen(m) > max) || !rag_utf8_valid(m, strlen(m))) abort();
	for (q = m; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f) abort();
	if (m[0] == ' ' || m[strlen(m) - 1] == ' ') abort();
	free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned sel = size ? data[0] : 0;
	char *p;
	if (size) data++, size--;
	p = malloc(size ? size : 1);   /* its own allocation: ASan sees a read past the end */
	memcpy(p, data, size);
	/* one reader an input (the first byte % 3), so that each input costs one parse */
	switch (sel % 3) {
	case 0: check_chat(p, size, 1 + (int)((sel >> 2) & 3)); break;
	case 1: check_embed(p, size, 1 + (int)((sel >> 2) & 3), (int)((sel >> 4) & 3)); break;
	default: check_error(p, size, (size_t)(sel >> 6) * 40); break;
	}
	free(p);
	return 0;
}
