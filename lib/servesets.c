/* servesets.c - rag-serve's Test sets and Cases tabs without the HTTP server: the test sets'
 * list (by tag), one version's cases, a test set made (empty or from a file read by rag-eval's
 * reader, testset.c, whose NAME:LINE:COLUMN errors go back as they are), the cases' edits (add,
 * edit, delete, category and tags over several, a file's cases imported) and a test set deleted.
 *
 * Every write names the version it was based on (base_version); the store makes the next
 * version in one transaction, or refuses with 409 when that is no longer the newest, so that of
 * two browsers editing one test set the second is told rather than the first's edit lost. The
 * seqs an edit names are places (1-based) in its base version, which no other write changes. */
#include "base.h"
#include "record.h"
#include "store.h"
#include "serve.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_BYTES 100
#define PREFIX "/api/testsets"

/* the store's answer as an HTTP status: 0 -> 200, 1 -> 404, a conflict -> 409, -1 -> 500 */
static int stored(int r, const char *err, jv *body)
{
	if (r == 0) return 200;
	*body = rag_serve_error(err);
	if (r == RAG_STORE_CONFLICT) {
		*body = jv_object_set(*body, jv_string("conflict"), jv_true());
		return 409;
	}
	return r == 1 ? 404 : 500;
}

/* a test set's name: 1 to 100 bytes, no control character, no '/' (it is a part of the URL) */
static int name_ok(const char *name, jv *body)
{
	const char *p;
	size_t n = strlen(name);
	int ok = n > 0 && n <= NAME_MAX_BYTES && strcmp(name, ".") && strcmp(name, "..");
	for (p = name; ok && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '/') ok = 0;
	if (!ok) *body = rag_serve_error("a test set's name: 1 to 100 bytes, without '/' or control characters");
	return ok;
}

/* o.k (o borrowed) as a malloc'ed text of at most max bytes without control characters (a line
 * break or tab allowed when multiline): 0 (*out NULL when absent or null), or -1 and *body */
static int opt_text(jv o, const char *k, size_t max, int multiline, char **out, jv *body)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));
	const char *p;
	char msg[160];
	int ok = 1;
	*out = NULL;
	if (jv_get_kind(v) == JV_KIND_STRING) {
		ok = (size_t)jv_string_length_bytes(jv_copy(v)) <= max;
		for (p = jv_string_value(v); ok && *p; p++)
			if (((unsigned char)*p < 0x20 && !(multiline && (*p == '\n' || *p == '\t' || *p == '\r'))) ||
			    *p == 0x7f)
				ok = 0;
		if (ok) *out = rag_xstrdup(jv_string_value(v));
	} else if (jv_get_kind(v) != JV_KIND_INVALID && jv_get_kind(v) != JV_KIND_NULL) {
		ok = 0;
	}
	jv_free(v);
	if (!ok) {
		snprintf(msg, sizeof msg, "\"%s\": a text of at most %zu bytes%s", k, max,
		         multiline ? "" : " without control characters");
		*body = rag_serve_error(msg);
		return -1;
	}
	return 0;
}

/* o.k (o borrowed) as a whole number in [min, max] (dflt when absent): 0, or -1 and *body */
static int opt_int(jv o, const char *k, long dflt, long min, long max, long *out, jv *body)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));
	char msg[160];
	int kind = jv_get_kind(v);
	double d = kind == JV_KIND_NUMBER ? jv_number_value(v) : NAN;
	jv_free(v);
	if (kind == JV_KIND_INVALID || kind == JV_KIND_NULL) {
		*out = dflt;
		return 0;
	}
	if (!isfinite(d) || d != floor(d) || d < (double)min || d > (double)max) {
		snprintf(msg, sizeof msg, "\"%s\": a whole number from %ld to %ld", k, min, max);
		*body = rag_serve_error(msg);
		return -1;
	}
	*out = (long)d;
	return 0;
}

/* ---------------------------------------------------------------- reading */

static int get_list(rag_store *s, rag_serve_arg_fn arg, void *ctx, jv *body)
{
	char err[RAG_ERRLEN];
	const char *tag = arg(ctx, "tag");
	jv all, tags = jv_array(), seen = jv_object(), kept = jv_array();
	int r = rag_store_testset_list(s, NULL, &all, err, sizeof err);
	if (r) {
		jv_free(tags);
		jv_free(seen);
		jv_free(kept);
		return stored(r, err, body);
	}
	/* every tag once, in the order of the names, for the filter's choices; then the sets of tag */
	jv_array_foreach(all, i, e) {
		jv t = jv_object_get(jv_copy(e), jv_string("tag"));
		if (jv_get_kind(t) == JV_KIND_STRING) {
			int match = tag && *tag && !strcmp(jv_string_value(t), tag);
			if (!jv_object_has(jv_copy(seen), jv_copy(t))) {
				seen = jv_object_set(seen, jv_copy(t), jv_true());
				tags = jv_array_append(tags, jv_copy(t));
			}
			if (match) kept = jv_array_append(kept, jv_copy(e));
		}
		jv_free(t);
		if (!tag || !*tag) kept = jv_array_append(kept, jv_copy(e));
		jv_free(e);
		(void)i;
	}
	jv_free(all);
	jv_free(seen);
	*body = JV_OBJECT(jv_string("testsets"), kept, jv_string("tags"), tags, jv_string("tag"),
	                  tag && *tag ? jv_string(tag) : jv_null());
	return 200;
}

/* c.k (c borrowed) as text: a string as it is, anything else as JSON, "" when absent */
static char *case_text(jv c, const char *k)
{
	jv v = jv_object_get(jv_copy(c), jv_string(k));
	char *r;
	if (jv_get_kind(v) == JV_KIND_STRING) r = rag_xstrdup(jv_string_value(v));
	else if (jv_get_kind(v) == JV_KIND_INVALID || jv_get_kind(v) == JV_KIND_NULL) r = rag_xstrdup("");
	else {
		jv d = jv_dump_string(jv_copy(v), 0);
		r = rag_xstrdup(jv_string_value(d));
		jv_free(d);
	}
	jv_free(v);
	return r;
}

/* whether case c (borrowed) is let through: q found in its id, question, reference, category or
 * tags (ASCII letters without case; any other text byte for byte), its category cat ("" : none) */
static int case_match(jv c, const char *q, const char *cat)
{
	static const char *const fields[] = {"id", "question", "reference", "category", "tags"};
	size_t i;
	int hit = !q;
	if (cat) {
		char *cc = case_text(c, "category");
		int same = !strcmp(cc, cat);
		free(cc);
		if (!same) return 0;
	}
	for (i = 0; !hit && i < sizeof fields / sizeof fields[0]; i++) {
		char *t = case_text(c, fields[i]);
		hit = strcasestr(t, q) != NULL;
		free(t);
	}
	return hit;
}

/* One page of a version's cases, found and paged here rather than in the page (320 cases are
 * not one table): ?q (a text), ?category (one; "-" those without), ?offset, ?limit. *body (a
 * rag_store_testset_get object) gets cases: the page's, seqs: their places in the version
 * (what an edit names), total: how many the filter lets through, offset, limit, all: the
 * version's count, categories: every category of the version, sorted. 0, or -1 and *body. */
static int page_cases(rag_serve_arg_fn arg, void *ctx, jv *body)
{
	const char *q = rag_serve_str_arg(arg, ctx, "q"), *cat = rag_serve_str_arg(arg, ctx, "category");
	long offset, limit, total = 0;
	jv cases, page, seqs, cats, e = jv_invalid();
	if (rag_serve_num_arg(arg, ctx, "offset", 0, 0, 1000000000L, &offset, &e) < 0 ||
	    rag_serve_num_arg(arg, ctx, "limit", 50, 1, 500, &limit, &e) < 0) {
		jv_free(*body);
		*body = e;
		return -1;
	}
	jv_free(e);
	cases = jv_object_get(jv_copy(*body), jv_string("cases"));
	page = jv_array();
	seqs = jv_array();
	cats = jv_object();
	if (cat && !strcmp(cat, "-")) cat = "";
	jv_array_foreach(cases, i, c) {
		char *cc = case_text(c, "category");
		if (*cc) cats = jv_object_set(cats, jv_string(cc), jv_true());
		free(cc);
		if (case_match(c, q, cat)) {
			if (total >= offset && total < offset + limit) {
				page = jv_array_append(page, jv_copy(c));
				seqs = jv_array_append(seqs, jv_number(i + 1));
			}
			total++;
		}
		jv_free(c);
	}
	e = *body;
	e = jv_object_set(e, jv_string("all"), jv_number(jv_array_length(cases)));
	e = jv_object_set(e, jv_string("cases"), page);
	e = jv_object_set(e, jv_string("seqs"), seqs);
	e = jv_object_set(e, jv_string("total"), jv_number((double)total));
	e = jv_object_set(e, jv_string("offset"), jv_number((double)offset));
	e = jv_object_set(e, jv_string("limit"), jv_number((double)limit));
	*body = jv_object_set(e, jv_string("categories"), jv_keys(cats));
	return 0;
}

static int get_one(rag_store *s, const char *name, rag_serve_arg_fn arg, void *ctx, jv *body)
{
	char err[RAG_ERRLEN], *end;
	const char *v = arg(ctx, "version");
	long version = 0;
	int r;
	if (!name_ok(name, body)) return 400;
	if (v && *v) {
		errno = 0;
		version = strtol(v, &end, 10);
		if (errno || *end || version < 1 || version > 1000000000L) {
			*body = rag_serve_error("version: a whole number from 1");
			return 400;
		}
	}
	r = stored(rag_store_testset_get(s, name, (int)version, body, err, sizeof err), err, body);
	/* paged when the page asks for it; every case otherwise, as rag-store exports them */
	if (r != 200 || !(arg(ctx, "limit") || arg(ctx, "offset") || arg(ctx, "q") || arg(ctx, "category"))) return r;
	if (page_cases(arg, ctx, body) < 0) return 400;
	return 200;
}

int rag_serve_testsets_get(rag_store *s, const char *path, rag_serve_arg_fn arg, void *ctx, jv *body)
{
	*body = jv_invalid();
	if (!strcmp(path, PREFIX)) return get_list(s, arg, ctx, body);
	if (!strncmp(path, PREFIX "/", sizeof PREFIX) && !strchr(path + sizeof PREFIX, '/'))
		return get_one(s, path + sizeof PREFIX, arg, ctx, body);
	*body = rag_serve_error("no such API path");
	return 404;
}

/* ---------------------------------------------------------------- a file's cases */

/* the records of an uploaded file's text: its name (NULL: "upload") in the errors, with the
 * line and column of the text as uploaded; invalid and *body on a broken file */
static jv read_cases(jv o, jv *body, char **file_out)
{
	char *file = NULL, *format = NULL, err[RAG_ERRLEN];
	jv recs = jv_invalid(), text = jv_object_get(jv_copy(o), jv_string("text"));
	int fmt;
	*file_out = NULL;
	if (opt_text(o, "file", 200, 0, &file, body) < 0 || opt_text(o, "format", 10, 0, &format, body) < 0)
		goto out;
	if (jv_get_kind(text) == JV_KIND_INVALID || jv_get_kind(text) == JV_KIND_NULL) {
		jv_free(text);
		text = jv_string("");
	} else if (jv_get_kind(text) != JV_KIND_STRING) {
		*body = rag_serve_error("\"text\": the file's text, a string");
		goto out;
	}
	fmt = format ? rag_testset_format_parse(format) : RAG_TESTSET_AUTO;
	if (fmt < 0) {
		*body = rag_serve_error("\"format\": auto, json, jsonl or csv");
		goto out;
	}
	/* the text's bytes as they are (a NUL byte too, which the reader places): its lines are the
	 * file's */
	recs = rag_testset_read(jv_string_value(text), (size_t)jv_string_length_bytes(jv_copy(text)),
	                        file ? file : "upload", fmt, err, sizeof err);
	if (!jv_is_valid(recs)) *body = rag_serve_error(err);
	else *file_out = file ? rag_xstrdup(file) : NULL;
out:
	jv_free(text);
	free(file);
	free(format);
	return recs;
}

/* ---------------------------------------------------------------- edits */

typedef struct edit {
	jv cases;                 /* the base version's, null where deleted, then those added */
	int nbase;
	jv *body;                 /* the error, when one */
	char *file;               /* an imported file's name */
} edit;

static int edit_fail(edit *e, const char *fmt, long n)
{
	char msg[RAG_ERRLEN];
	snprintf(msg, sizeof msg, fmt, n);
	*e->body = rag_serve_error(msg);
	return -1;
}

static int edit_msg(edit *e, const char *msg)
{
	*e->body = rag_serve_error(msg);
	return -1;
}

/* whether a (borrowed) is an array of texts */
static int all_texts(jv a)
{
	int ok = jv_get_kind(a) == JV_KIND_ARRAY, i, n = ok ? jv_array_length(jv_copy(a)) : 0;
	for (i = 0; ok && i < n; i++) {
		jv t = jv_array_get(jv_copy(a), i);
		ok = jv_get_kind(t) == JV_KIND_STRING;
		jv_free(t);
	}
	return ok;
}

/* a case as written by the page (consumed): an object with a question; its fields by our
 * names; a number id as its text; tags an array of texts */
static jv case_in(jv c, edit *e)
{
	jv id, v;
	int kind;
	if (jv_get_kind(c) != JV_KIND_OBJECT) {
		jv_free(c);
		edit_msg(e, "a case is a JSON object");
		return jv_invalid();
	}
	c = rag_record_normalize(c);
	v = jv_object_get(jv_copy(c), jv_string("question"));
	kind = jv_get_kind(v);
	if (kind != JV_KIND_STRING || !jv_string_length_bytes(jv_copy(v))) {
		jv_free(v);
		jv_free(c);
		edit_msg(e, "a case needs its question (a text)");
		return jv_invalid();
	}
	jv_free(v);
	v = jv_object_get(jv_copy(c), jv_string("tags"));
	if (jv_get_kind(v) != JV_KIND_INVALID && jv_get_kind(v) != JV_KIND_NULL) {
		if (!all_texts(v)) {
			jv_free(v);
			jv_free(c);
			edit_msg(e, "a case's \"tags\": an array of texts");
			return jv_invalid();
		}
	}
	jv_free(v);
	id = jv_object_get(jv_copy(c), jv_string("id"));
	if (jv_get_kind(id) == JV_KIND_NUMBER) {
		char *s = rag_json_id(id);
		c = jv_object_set(c, jv_string("id"), jv_string(s));
		free(s);
	} else if (jv_get_kind(id) != JV_KIND_STRING || !jv_string_length_bytes(jv_copy(id))) {
		c = jv_object_delete(c, jv_string("id"));   /* given one when the edit is done */
	}
	jv_free(id);
	return c;
}

/* op's seq (or each of its seqs) as a place of the base version still there: 0, or -1 */
static int seq_of(edit *e, jv s, long *out)
{
	double d = jv_get_kind(s) == JV_KIND_NUMBER ? jv_number_value(s) : NAN;
	jv cur;
	int gone;
	jv_free(s);
	if (!isfinite(d) || d != floor(d) || d < 1 || d > e->nbase)
		return edit_fail(e, "\"seq\": a case's number in the version the edit is based on, 1 to %ld",
		                 (long)e->nbase);
	cur = jv_array_get(jv_copy(e->cases), (int)d - 1);
	gone = jv_get_kind(cur) != JV_KIND_OBJECT;
	jv_free(cur);
	if (gone) return edit_fail(e, "case %ld was deleted by an earlier step of this edit", (long)d);
	*out = (long)d;
	return 0;
}

static int op_add(edit *e, jv op)
{
	jv c = case_in(jv_object_get(op, jv_string("case")), e);
	if (!jv_is_valid(c)) return -1;
	e->cases = jv_array_append(e->cases, c);
	return 0;
}

static int op_edit(edit *e, jv op)
{
	long seq;
	jv c, old, id;
	if (seq_of(e, jv_object_get(jv_copy(op), jv_string("seq")), &seq) < 0) {
		jv_free(op);
		return -1;
	}
	c = case_in(jv_object_get(op, jv_string("case")), e);
	if (!jv_is_valid(c)) return -1;
	/* an edit without an id keeps the case's */
	old = jv_array_get(jv_copy(e->cases), (int)seq - 1);
	if (!jv_object_has(jv_copy(c), jv_string("id"))) {
		id = jv_object_get(old, jv_string("id"));
		if (jv_get_kind(id) == JV_KIND_STRING) c = jv_object_set(c, jv_string("id"), id);
		else jv_free(id);
	} else {
		jv_free(old);
	}
	e->cases = jv_array_set(e->cases, (int)seq - 1, c);
	return 0;
}

/* the seqs of op (borrowed), each checked: an array, or -1 */
static jv seqs_of(edit *e, jv op)
{
	jv a = jv_object_get(jv_copy(op), jv_string("seqs")), out = jv_array();
	if (jv_get_kind(a) != JV_KIND_ARRAY || !jv_array_length(jv_copy(a))) {
		jv_free(a);
		jv_free(out);
		edit_msg(e, "\"seqs\": the numbers of the cases, an array of at least one");
		return jv_invalid();
	}
	jv_array_foreach(a, i, s) {
		long seq;
		(void)i;
		if (!jv_is_valid(out)) {
			jv_free(s);
		} else if (seq_of(e, s, &seq) < 0) {
			jv_free(out);
			out = jv_invalid();
		} else {
			out = jv_array_append(out, jv_number((double)seq));
		}
	}
	jv_free(a);
	return out;
}

static int op_delete(edit *e, jv op)
{
	jv seqs = seqs_of(e, op);
	jv_free(op);
	if (!jv_is_valid(seqs)) return -1;
	jv_array_foreach(seqs, i, s) {
		e->cases = jv_array_set(e->cases, (int)jv_number_value(s) - 1, jv_null());
		jv_free(s);
		(void)i;
	}
	jv_free(seqs);
	return 0;
}

/* category ("" removes it) and tags (an array of texts; [] removes them) over several cases */
static int op_set(edit *e, jv op)
{
	jv seqs = seqs_of(e, op), cat = jv_object_get(jv_copy(op), jv_string("category")),
	   tags = jv_object_get(jv_copy(op), jv_string("tags"));
	int has_cat = jv_get_kind(cat) == JV_KIND_STRING, has_tags = jv_get_kind(tags) == JV_KIND_ARRAY, rc = -1;
	jv_free(op);
	if (!jv_is_valid(seqs)) goto out;
	if ((!has_cat && jv_get_kind(cat) != JV_KIND_INVALID) || (!has_tags && jv_get_kind(tags) != JV_KIND_INVALID) ||
	    (!has_cat && !has_tags)) {
		edit_msg(e, "a bulk edit sets \"category\" (a text) or \"tags\" (an array of texts)");
		goto out;
	}
	if (has_tags && !all_texts(tags)) {
		edit_msg(e, "\"tags\": an array of texts");
		goto out;
	}
	jv_array_foreach(seqs, i, s) {
		int at = (int)jv_number_value(s) - 1;
		jv c = jv_array_get(jv_copy(e->cases), at);
		if (has_cat)
			c = jv_string_length_bytes(jv_copy(cat)) ? jv_object_set(c, jv_string("category"), jv_copy(cat))
			                                         : jv_object_delete(c, jv_string("category"));
		if (has_tags)
			c = jv_array_length(jv_copy(tags)) ? jv_object_set(c, jv_string("tags"), jv_copy(tags))
			                                   : jv_object_delete(c, jv_string("tags"));
		e->cases = jv_array_set(e->cases, at, c);
		jv_free(s);
		(void)i;
	}
	rc = 0;
out:
	jv_free(seqs);
	jv_free(cat);
	jv_free(tags);
	return rc;
}

/* a file's cases added (replace: true, instead of the base version's) */
static int op_import(edit *e, jv op)
{
	char *file;
	jv recs = read_cases(op, e->body, &file);
	int i;
	if (!jv_is_valid(recs)) {
		jv_free(op);
		return -1;
	}
	if (rag_json_true(op, "replace"))
		for (i = 0; i < e->nbase; i++) e->cases = jv_array_set(e->cases, i, jv_null());
	jv_free(op);
	jv_array_foreach(recs, k, r) {
		e->cases = jv_array_append(e->cases, r);
		(void)k;
	}
	jv_free(recs);
	free(e->file);
	e->file = file;
	return 0;
}

static int apply_op(edit *e, jv op, long n)
{
	char kind[32];
	if (jv_get_kind(op) != JV_KIND_OBJECT) {
		jv_free(op);
		return edit_fail(e, "step %ld of \"ops\" is not an object", n);
	}
	rag_json_str(op, "op", kind, sizeof kind);
	if (!strcmp(kind, "add")) return op_add(e, op);
	if (!strcmp(kind, "edit")) return op_edit(e, op);
	if (!strcmp(kind, "delete")) return op_delete(e, op);
	if (!strcmp(kind, "set")) return op_set(e, op);
	if (!strcmp(kind, "import")) return op_import(e, op);
	jv_free(op);
	return edit_fail(e, "step %ld of \"ops\": \"op\" is add, edit, delete, set or import", n);
}

/* the ids that a's cases (borrowed) hold more than once: an object id -> true */
static jv twice(jv a)
{
	jv seen = jv_object(), dup = jv_object();
	jv_array_foreach(a, i, c) {
		jv id = jv_get_kind(c) == JV_KIND_OBJECT ? jv_object_get(jv_copy(c), jv_string("id")) : jv_invalid();
		if (jv_get_kind(id) == JV_KIND_STRING) {
			if (jv_object_has(jv_copy(seen), jv_copy(id))) dup = jv_object_set(dup, jv_copy(id), jv_true());
			else seen = jv_object_set(seen, jv_copy(id), jv_number(i + 1));
		}
		jv_free(id);
		jv_free(c);
	}
	jv_free(seen);
	return dup;
}

/* the cases left (the deleted dropped), each with an id (case-N, N the first free), and no id
 * twice that the base version did not already hold twice: an array, or invalid and e->body */
static jv finish(edit *e, jv base_twice)
{
	jv out = jv_array(), ids = jv_object(), dup;
	long next = 1;
	int bad = 0;
	jv_array_foreach(e->cases, i, c) {
		jv id = jv_get_kind(c) == JV_KIND_OBJECT ? jv_object_get(jv_copy(c), jv_string("id")) : jv_invalid();
		if (jv_get_kind(id) == JV_KIND_STRING) ids = jv_object_set(ids, jv_copy(id), jv_true());
		jv_free(id);
		jv_free(c);
		(void)i;
	}
	jv_array_foreach(e->cases, i, c) {
		if (jv_get_kind(c) != JV_KIND_OBJECT) {
			jv_free(c);
			continue;
		}
		if (!jv_object_has(jv_copy(c), jv_string("id"))) {
			jv id;
			for (;; next++) {
				id = jv_string_fmt("case-%ld", next);
				if (!jv_object_has(jv_copy(ids), jv_copy(id))) break;
				jv_free(id);
			}
			ids = jv_object_set(ids, jv_copy(id), jv_true());
			c = jv_object_set(c, jv_string("id"), id);
		}
		out = jv_array_append(out, c);
		(void)i;
	}
	jv_free(ids);
	dup = twice(out);
	jv_object_foreach(dup, k, v) {
		if (!bad && !jv_object_has(jv_copy(base_twice), jv_copy(k))) {
			char msg[RAG_ERRLEN];
			snprintf(msg, sizeof msg, "two cases have the id \"%s\": an id names one case", jv_string_value(k));
			*e->body = rag_serve_error(msg);
			bad = 1;
		}
		jv_free(k);
		jv_free(v);
	}
	jv_free(dup);
	jv_free(base_twice);
	if (bad) {
		jv_free(out);
		return jv_invalid();
	}
	return out;
}

/* the texts of a write's body: who made it and the tag, each checked */
typedef struct write_meta { char *who, *tag; long base; } write_meta;

static int read_meta(jv o, write_meta *m, jv *body)
{
	memset(m, 0, sizeof *m);
	return opt_text(o, "who", 100, 0, &m->who, body) < 0 || opt_text(o, "tag", 100, 0, &m->tag, body) < 0 ||
	       opt_int(o, "base_version", 0, 0, 1000000000L, &m->base, body) < 0 ? -1 : 0;
}

static void free_meta(write_meta *m)
{
	free(m->who);
	free(m->tag);
}

/* a 409's body (consumed) with what the page needs to say it in its own language: the
 * version the write was based on, and the newest one's number, author and time */
static jv conflict_detail(rag_store *s, const char *name, int base, jv body)
{
	char err[RAG_ERRLEN];
	jv now;
	static const char *const keep[] = {"latest", "author", "created"};
	size_t k;
	if (rag_store_testset_get(s, name, 0, &now, err, sizeof err)) return body;
	body = jv_object_set(body, jv_string("base_version"), jv_number(base));
	for (k = 0; k < sizeof keep / sizeof keep[0]; k++)
		body = jv_object_set(body, jv_string(keep[k]), jv_object_get(jv_copy(now), jv_string(keep[k])));
	jv_free(now);
	return body;
}

/* cases (consumed) saved as name's next version: the reply */
static int save(rag_store *s, const char *name, const write_meta *m, jv cases, const char *file, jv *body)
{
	char err[RAG_ERRLEN];
	rag_store_testset_in in;
	int version = 0, created = 0, r, st;
	memset(&in, 0, sizeof in);
	in.name = name;
	in.base = (int)m->base;
	in.cases = cases;
	in.file = file;
	in.tag = m->tag;
	in.who = m->who && *m->who ? m->who : NULL;
	r = rag_store_testset_save(s, &in, &version, &created, err, sizeof err);
	st = stored(r, err, body);
	if (r == RAG_STORE_CONFLICT && in.base) *body = conflict_detail(s, name, in.base, *body);
	if (!r)
		*body = JV_OBJECT(jv_string("name"), jv_string(name), jv_string("version"), jv_number(version),
		                  jv_string("created"), jv_bool(created), jv_string("base_version"),
		                  m->base ? jv_number((double)m->base) : jv_null(), jv_string("n"),
		                  jv_number(jv_array_length(jv_copy(cases))));
	jv_free(cases);
	return st;
}

/* POST /api/testsets {name, tag, who, text, file, format, base_version}: a test set made, empty
 * or of a file's cases; with base_version, the file's cases as the next version of it */
static int post_create(rag_store *s, jv o, jv *body)
{
	write_meta m;
	char *name = NULL, *file = NULL;
	jv recs;
	int st = 400;
	if (read_meta(o, &m, body) < 0 || opt_text(o, "name", NAME_MAX_BYTES, 0, &name, body) < 0) goto out;
	if (!name) {
		*body = rag_serve_error("\"name\": the test set's name is required");
		goto out;
	}
	if (!name_ok(name, body)) goto out;
	recs = read_cases(o, body, &file);
	if (!jv_is_valid(recs)) goto out;
	st = save(s, name, &m, recs, file, body);
out:
	free_meta(&m);
	free(name);
	free(file);
	return st;
}

/* POST /api/testsets/NAME/cases {base_version, who, tag, ops: [...]} */
static int post_cases(rag_store *s, const char *name, jv o, jv *body)
{
	char err[RAG_ERRLEN];
	write_meta m;
	edit e;
	jv base = jv_invalid(), ops, cases, base_twice;
	int st = 400, r;
	memset(&e, 0, sizeof e);
	e.body = body;
	e.cases = jv_invalid();
	if (read_meta(o, &m, body) < 0) goto out;
	if (!m.base) {
		*body = rag_serve_error("\"base_version\": the version the edit was made on is required");
		goto out;
	}
	ops = jv_object_get(jv_copy(o), jv_string("ops"));
	if (jv_get_kind(ops) != JV_KIND_ARRAY) {
		jv_free(ops);
		*body = rag_serve_error("\"ops\": an array of edits");
		goto out;
	}
	if ((r = rag_store_testset_get(s, name, (int)m.base, &base, err, sizeof err))) {
		jv_free(ops);
		st = stored(r, err, body);
		/* the version asked is newer than the newest: it was deleted and made again */
		goto out;
	}
	e.cases = jv_object_get(jv_copy(base), jv_string("cases"));
	e.nbase = jv_array_length(jv_copy(e.cases));
	/* each step in turn; after a failed one, the rest are dropped */
	jv_array_foreach(ops, i, op) {
		if (jv_is_valid(*body)) jv_free(op);
		else apply_op(&e, op, (long)i + 1);
	}
	jv_free(ops);
	if (jv_is_valid(*body)) goto out;
	cases = jv_object_get(jv_copy(base), jv_string("cases"));
	base_twice = twice(cases);
	jv_free(cases);
	cases = finish(&e, base_twice);
	if (!jv_is_valid(cases)) goto out;
	{
		char fb[256];
		const char *file = e.file ? e.file : *rag_json_str(base, "file", fb, sizeof fb) ? fb : NULL;
		st = save(s, name, &m, cases, file, body);
	}
out:
	jv_free(base);
	jv_free(e.cases);
	free(e.file);
	free_meta(&m);
	return st;
}

/* POST /api/testsets/NAME/delete {base_version} */
static int post_delete(rag_store *s, const char *name, jv o, jv *body)
{
	char err[RAG_ERRLEN];
	long base;
	int r, st;
	if (opt_int(o, "base_version", 0, 0, 1000000000L, &base, body) < 0) return 400;
	r = rag_store_testset_delete(s, name, (int)base, err, sizeof err);
	st = stored(r, err, body);
	if (!r) *body = JV_OBJECT(jv_string("name"), jv_string(name), jv_string("deleted"), jv_true());
	return st;
}

int rag_serve_testsets_post(rag_store *s, const char *path, const char *text, size_t len, jv *body)
{
	jv o = jv_parse_sized(text, (int)len);
	const char *rest, *slash;
	char *name = NULL;
	int st = 404;
	*body = jv_invalid();
	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		*body = rag_serve_error("the body is not a JSON object");
		return 400;
	}
	if (!strcmp(path, PREFIX)) {
		st = post_create(s, o, body);
	} else if (!strncmp(path, PREFIX "/", sizeof PREFIX) && (slash = strchr(rest = path + sizeof PREFIX, '/'))) {
		name = rag_xstrndup(rest, (size_t)(slash - rest));
		if (!name_ok(name, body)) st = 400;
		else if (!strcmp(slash, "/cases")) st = post_cases(s, name, o, body);
		else if (!strcmp(slash, "/delete")) st = post_delete(s, name, o, body);
	}
	if (!jv_is_valid(*body)) {
		st = 404;
		*body = rag_serve_error("no such API path");
	}
	free(name);
	jv_free(o);
	return st;
}
