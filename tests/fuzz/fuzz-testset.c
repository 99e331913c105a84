/* fuzz-testset.c - libFuzzer target: rag_testset_read (lib/testset.c), the reader of rag-eval's
 * test sets (each id once), on the input as CSV, as JSON and by detection. A success is an
 * array of objects, each with a non-empty string id; a failure says where, after the name. The
 * same input read record by record (rag_testset_each, in chunks from a FILE, which refuses a
 * repeated id as rag_testset_read does) gives the same records, or the same message; and
 * rag_testset_parse (repeated ids allowed: rag-agree's labels) accepts whatever read accepts,
 * with the same records. */
#include "base.h"
#include "record.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int take(jv rec, size_t line, void *ctx)
{
	jv *all = ctx;
	(void)line;
	*all = jv_array_append(*all, rec);
	return 0;
}

/* record by record: the same records as v (borrowed), or the same message as err */
static void same(const char *text, size_t len, const char *name, int format, jv v, const char *err)
{
	char serr[RAG_ERRLEN];
	jv all = jv_array();
	FILE *f = fmemopen((void *)text, len, "r");
	int rc;
	serr[0] = 0;
	if (!f) {
		jv_free(all);
		return;   /* fmemopen of 0 bytes, on an old libc */
	}
	rc = rag_testset_each(f, name, format, NULL, take, &all, serr, sizeof serr);
	fclose(f);
	if (jv_is_valid(v) ? rc != 0 || !jv_equal(jv_copy(v), jv_copy(all)) : rc != -1 || strcmp(err, serr)) abort();
	jv_free(all);
}

static void one(const char *text, size_t len, const char *name, int format)
{
	char err[RAG_ERRLEN];
	jv v;
	char perr[RAG_ERRLEN];
	jv p;
	err[0] = 0;
	v = rag_testset_read(text, len, name, format, err, sizeof err);
	same(text, len, name, format, v, err);
	if (!jv_is_valid(v)) {
		if (strncmp(err, name, strlen(name)) || err[strlen(name)] != ':') abort();   /* NAME:... */
		jv_free(v);
		return;
	}
	p = rag_testset_parse(text, len, name, format, perr, sizeof perr);
	if (!jv_is_valid(p) || !jv_equal(jv_copy(v), p)) abort();
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
