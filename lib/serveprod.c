/* serveprod.c - the Production tab's API (serve.h): the production windows the store keeps
 * (storeprod.c), a window's records worst first, and a record made a case of a test set through
 * the Cases tab's own edit (servesets.c), its trace id kept. */
#include "base.h"
#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "/api/production"

/* /api/production/windows/ID/records (?metric, offset, limit) */
static int window_records(rag_store *s, long id, rag_serve_arg_fn arg, void *ctx, jv *body)
{
	char err[RAG_ERRLEN];
	long offset, limit;
	if (rag_serve_num_arg(arg, ctx, "offset", 0, 0, 1000000000L, &offset, body) < 0 ||
	    rag_serve_num_arg(arg, ctx, "limit", 20, 1, 1000, &limit, body) < 0)
		return 400;
	return rag_serve_stored(rag_store_window_records(s, id, rag_serve_str_arg(arg, ctx, "metric"), offset, limit, body,
	                                                 err, sizeof err), err, body);
}

/* "ID" or "ID/records" after PREFIX "/windows/": the window's number, *rest what follows it */
static long window_id(const char *p, const char **rest)
{
	char *end;
	long id = strtol(p, &end, 10);
	if (end == p || id < 1 || (*end && *end != '/')) return -1;
	*rest = end;
	return id;
}

int rag_serve_production_get(rag_store *s, const char *path, rag_serve_arg_fn arg, void *ctx, jv *body)
{
	char err[RAG_ERRLEN];
	const char *rest;
	long id, limit;
	if (!strcmp(path, PREFIX "/windows")) {
		if (rag_serve_num_arg(arg, ctx, "limit", 100, 1, 10000, &limit, body) < 0) return 400;
		return rag_serve_stored(rag_store_windows(s, limit, body, err, sizeof err), err, body);
	}
	if (strncmp(path, PREFIX "/windows/", sizeof PREFIX "/windows/" - 1)) return 0;
	id = window_id(path + sizeof PREFIX "/windows/" - 1, &rest);
	if (id > 0 && !strcmp(rest, "/records")) return window_records(s, id, arg, ctx, body);
	return 0;
}

/* ---------------------------------------------------------------- add to a test set */

/* the contexts of a rag-trace record (borrowed) as a test case's: their texts, in order */
static jv case_contexts(jv rec)
{
	jv c = jv_object_get(jv_copy(rec), jv_string("contexts")), out = jv_array();
	if (jv_get_kind(c) == JV_KIND_ARRAY) {
		jv_array_foreach(c, i, x) {
			if (jv_get_kind(x) == JV_KIND_OBJECT) x = jv_object_get(x, jv_string("text"));
			if (jv_get_kind(x) == JV_KIND_STRING) out = jv_array_append(out, x);
			else jv_free(x);
			(void)i;
		}
	}
	jv_free(c);
	return out;
}

/* record (consumed, rag_store_window_record's) as a test case: question, contexts,
 * context_ids, answer and trace_id */
static jv case_of(jv got)
{
	jv rec = jv_object_get(jv_copy(got), jv_string("record")), c = jv_object();
	static const char *const keep[] = {"question", "context_ids", "answer"};
	size_t i;
	if (jv_get_kind(rec) == JV_KIND_OBJECT) {
		for (i = 0; i < sizeof keep / sizeof keep[0]; i++) {
			jv v = jv_object_get(jv_copy(rec), jv_string(keep[i]));
			if (jv_get_kind(v) == JV_KIND_STRING || jv_get_kind(v) == JV_KIND_ARRAY) c = jv_object_set(c, jv_string(keep[i]), v);
			else jv_free(v);
			if (!i) c = jv_object_set(c, jv_string("contexts"), case_contexts(rec));
		}
	}
	c = jv_object_set(c, jv_string("trace_id"), jv_object_get(got, jv_string("trace_id")));
	jv_free(rec);
	return c;
}

/* POST PREFIX/add {window, seq, testset, base_version, who} */
static int post_add(rag_store *s, jv o, jv *body)
{
	char err[RAG_ERRLEN], *path, *text;
	double w = rag_json_num(o, "window"), seq = rag_json_num(o, "seq");
	jv name = jv_object_get(jv_copy(o), jv_string("testset")), got, edit, d;
	int st;
	if (!(w >= 1 && w <= 1e12) || !(seq >= 1 && seq <= 1e12) || jv_get_kind(name) != JV_KIND_STRING ||
	    !jv_string_length_bytes(jv_copy(name)) || strchr(jv_string_value(name), '/')) {
		jv_free(name);
		*body = rag_serve_error("give {window, seq, testset, base_version}: the window's and the record's numbers "
		                        "and a test set's name");
		return 400;
	}
	if ((st = rag_serve_stored(rag_store_window_record(s, (long)w, (long)seq, &got, err, sizeof err), err, body)) !=
	    200) {
		jv_free(name);
		return st;
	}
	/* the Cases tab's add: the same checks, ids and refusal of an edit based on an old version */
	edit = JV_OBJECT(jv_string("base_version"), jv_object_get(jv_copy(o), jv_string("base_version")),
	                 jv_string("ops"), JV_ARRAY(JV_OBJECT(jv_string("op"), jv_string("add"), jv_string("case"),
	                                                      case_of(got))));
	if (jv_object_has(jv_copy(o), jv_string("who")))
		edit = jv_object_set(edit, jv_string("who"), jv_object_get(jv_copy(o), jv_string("who")));
	d = jv_dump_string(edit, 0);
	text = rag_xstrdup(jv_string_value(d));
	jv_free(d);
	path = rag_xasprintf("/api/testsets/%s/cases", jv_string_value(name));
	jv_free(name);
	st = rag_serve_testsets_post(s, path, text, strlen(text), body);
	free(path);
	free(text);
	return st;
}

int rag_serve_production_post(rag_store *s, const char *path, const char *text, size_t len, jv *body)
{
	jv o;
	int st;
	if (strcmp(path, PREFIX "/add")) return 0;
	o = jv_parse_sized(text, (int)len);
	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		*body = rag_serve_error("the body is not a JSON object");
		return 400;
	}
	st = post_add(s, o, body);
	jv_free(o);
	return st;
}
