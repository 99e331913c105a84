/* fuzz-testset.c - libFuzzer target: rag_testset_parse (lib/testset.c), the reader of rag-eval's
 * test sets, on the input as CSV, as JSON and by detection. A success is an array of objects,
 * each with a non-empty string id; a failure says where, after the name. */
#include "base.h"
#include "record.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void one(const char *text, size_t len, const char *name, int format)
{
	char err[RAG_ERRLEN];
	jv v;
	err[0] = 0;
	v = rag_testset_parse(text, len, name, format, err, sizeof err);
	if (!jv_is_valid(v)) {
		if (strncmp(err, name, strlen(name)) || err[strlen(name)] != ':') abort();   /* NAME:... */
		jv_free(v);
		return;
	}
	if (jv_get_kind(v) != JV_KIND_ARRAY) abort();
	jv_array_foreach(v, i, rec) {
		jv id;
		if (jv_get_kind(rec) != JV_KIND_OBJECT) abort();
		id = jv_object_get(rec, jv_string("id"));
		if (jv_get_kind(id) != JV_KIND_STRING || !jv_string_length_bytes(jv_copy(id))) abort();
		jv_free(id);
		(void)i;
	}
	jv_free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a NUL-terminated copy, as rag_read_file gives */
	char *text = malloc(size + 1);
	if (!text) abort();
	memcpy(text, data, size);
	text[size] = 0;
	one(text, size, "t.csv", RAG_TESTSET_CSV);
	one(text, size, "t.json", RAG_TESTSET_JSON);
	one(text, size, "t", RAG_TESTSET_AUTO);
	free(text);
	return 0;
}
