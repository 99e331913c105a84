/* storeprod.c - production windows in the run store (store.h, rag-store add-window): each
 * window's line as rag-gate --window wrote it and the records it decided, their trace ids kept;
 * listed for rag-serve's Production tab, a window's records worst first. The SQL is the same
 * on both backends (store.c's statements and transactions, store/internal.h). */
#include "base.h"
#include "store.h"
#include "store/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a row's first column as a malloc'ed string (the first row only) */
static int first(void *ctx, int ncol, const char *const *col)
{
	char **out = ctx;
	if (!*out) *out = rag_xstrdup(ncol > 0 && col[0] ? col[0] : "");
	return 1;
}

/* the line's text of k (borrowed o) as a string or NULL: from, to */
static char *text_of(jv o, const char *k)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));
	char *s = jv_get_kind(v) == JV_KIND_STRING ? rag_xstrdup(jv_string_value(v)) : NULL;
	jv_free(v);
	return s;
}

static int put_record(rag_store *s, const char *wid, size_t i, const char *line, char *err, size_t errlen)
{
	jv r = jv_parse(line);
	char seq[24], *trace = NULL;
	const char *p[4];
	int rc;
	if (jv_get_kind(r) != JV_KIND_OBJECT) {
		jv_free(r);
		rag_seterr(err, errlen, "record %zu of the window is not a JSON object", i + 1);
		return 1;
	}
	trace = text_of(r, "trace_id");
	jv_free(r);
	snprintf(seq, sizeof seq, "%zu", i + 1);
	p[0] = wid;
	p[1] = seq;
	p[2] = trace;
	p[3] = line;
	rc = rag_store_q(s, "INSERT INTO prod_records (window_id, seq, trace_id, line) VALUES ($1, $2, $3, $4)", 4, p,
	                 NULL, NULL, err, errlen);
	free(trace);
	return rc;
}

int rag_store_window_add(rag_store *s, jv line, const char *const *records, size_t n, long *id, char *err,
                         size_t errlen)
{
	double num = rag_json_num(line, "window"), nrec = rag_json_num(line, "records");
	jv pass = jv_get_kind(line) == JV_KIND_OBJECT ? jv_object_get(jv_copy(line), jv_string("pass")) : jv_invalid();
	char *from = NULL, *to = NULL, *now = NULL, *max = NULL, wid[24], nums[24], recs[24], *text = NULL;
	const char *p[8];
	size_t i;
	int rc = 1;
	jv d;
	if (jv_get_kind(line) != JV_KIND_OBJECT || !isfinite(num) || !isfinite(nrec)) {
		rag_seterr(err, errlen, "not a window's line of rag-gate --window (its \"window\" and \"records\" numbers)");
		goto out;
	}
	if (nrec != (double)n) {
		rag_seterr(err, errlen, "window %.0f says %.0f records, %zu given", num, nrec, n);
		goto out;
	}
	from = text_of(line, "from");
	to = text_of(line, "to");
	d = jv_dump_string(jv_copy(line), 0);
	text = rag_xstrdup(jv_string_value(d));
	jv_free(d);
	now = rag_store_now();
	if (rag_store_begin(s, err, errlen) < 0) {
		rc = -1;
		goto out;
	}
	if (rag_store_q(s, "SELECT COALESCE(max(id), 0) + 1 FROM prod_windows", 0, NULL, first, &max, err, errlen) < 0)
		goto fail;
	*id = max ? atol(max) : 1;
	snprintf(wid, sizeof wid, "%ld", *id);
	snprintf(nums, sizeof nums, "%.0f", num);
	snprintf(recs, sizeof recs, "%zu", n);
	p[0] = wid;
	p[1] = nums;
	p[2] = from;
	p[3] = to;
	p[4] = now;
	p[5] = recs;
	p[6] = jv_get_kind(pass) == JV_KIND_TRUE ? "1" : jv_get_kind(pass) == JV_KIND_FALSE ? "0" : NULL;
	p[7] = text;
	if (rag_store_q(s, "INSERT INTO prod_windows (id, num, started, ended, added, records, pass, line) "
	                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", 8, p, NULL, NULL, err, errlen) < 0)
		goto fail;
	for (i = 0; i < n; i++) {
		int r = put_record(s, wid, i, records[i], err, errlen);
		if (r) {
			rag_store_rollback(s);
			rc = r;
			goto out;
		}
	}
	rc = rag_store_commit(s, err, errlen);
	goto out;
fail:
	rag_store_rollback(s);
	rc = -1;
out:
	jv_free(pass);
	free(from);
	free(to);
	free(now);
	free(max);
	free(text);
	return rc;
}

/* ---------------------------------------------------------------- reading */

/* a window's row (id, added, line) as its line with id and added */
static jv window_of(int ncol, const char *const *c)
{
	jv w = ncol > 2 && c[2] ? jv_parse(c[2]) : jv_invalid();
	if (jv_get_kind(w) != JV_KIND_OBJECT) {
		jv_free(w);
		w = jv_object();
	}
	w = jv_object_set(w, jv_string("id"), jv_number(c[0] ? atof(c[0]) : 0));
	return jv_object_set(w, jv_string("added"), c[1] ? jv_string(c[1]) : jv_null());
}

static int collect_window(void *ctx, int ncol, const char *const *c)
{
	jv *a = ctx;
	*a = jv_array_append(*a, window_of(ncol, c));
	return 0;
}

int rag_store_windows(rag_store *s, long limit, jv *out, char *err, size_t errlen)
{
	char lim[24], *total = NULL;
	const char *p[1] = {lim};
	jv a = jv_array(), rev = jv_array();
	int i, n;
	snprintf(lim, sizeof lim, "%ld", limit);
	if (rag_store_q(s, "SELECT count(*) FROM prod_windows", 0, NULL, first, &total, err, errlen) < 0 ||
	    rag_store_q(s, "SELECT id, added, line FROM prod_windows ORDER BY id DESC LIMIT $1", 1, p, collect_window, &a,
	                err, errlen) < 0) {
		free(total);
		jv_free(a);
		jv_free(rev);
		return -1;
	}
	n = jv_array_length(jv_copy(a));
	for (i = n - 1; i >= 0; i--) rev = jv_array_append(rev, jv_array_get(jv_copy(a), i));
	jv_free(a);
	*out = JV_OBJECT(jv_string("total"), jv_number(total ? atof(total) : 0), jv_string("windows"), rev);
	free(total);
	return 0;
}

static int one_window(void *ctx, int ncol, const char *const *c)
{
	jv *w = ctx;
	if (!jv_is_valid(*w)) *w = window_of(ncol, c);
	return 1;
}

/* window id's line (id, added): 0, 1 when there is none, -1 */
static int get_window(rag_store *s, long id, jv *w, char *err, size_t errlen)
{
	char wid[24];
	const char *p[1] = {wid};
	snprintf(wid, sizeof wid, "%ld", id);
	*w = jv_invalid();
	if (rag_store_q(s, "SELECT id, added, line FROM prod_windows WHERE id = $1", 1, p, one_window, w, err, errlen) < 0)
		return -1;
	if (!jv_is_valid(*w)) {
		rag_seterr(err, errlen, "no production window %ld", id);
		return 1;
	}
	return 0;
}

/* the score a record is ranked by: metric's, or without one its lowest; NAN: none */
static double rank_score(jv rec, const char *metric)
{
	jv sc = jv_get_kind(rec) == JV_KIND_OBJECT ? jv_object_get(jv_copy(rec), jv_string("scores")) : jv_invalid();
	double low = NAN;
	if (jv_get_kind(sc) == JV_KIND_OBJECT) {
		if (metric) {
			low = rag_json_num(sc, metric);
		} else {
			jv_object_foreach(sc, k, v) {
				if (jv_get_kind(v) == JV_KIND_NUMBER && (isnan(low) || jv_number_value(v) < low))
					low = jv_number_value(v);
				jv_free(k);
				jv_free(v);
			}
		}
	}
	jv_free(sc);
	return low;
}

typedef struct ranked {
	long seq;
	double score;
	jv row;                   /* {seq, trace_id, score, record} */
} ranked;

typedef struct rank_ctx {
	ranked *v;
	size_t n, cap;
	const char *metric;
} rank_ctx;

static int collect_ranked(void *ctx, int ncol, const char *const *c)
{
	rank_ctx *r = ctx;
	jv rec = ncol > 2 && c[2] ? jv_parse(c[2]) : jv_null();
	ranked *x;
	if (!jv_is_valid(rec)) {
		jv_free(rec);
		rec = jv_null();
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->v = rag_xrealloc(r->v, r->cap * sizeof *r->v);
	}
	x = &r->v[r->n++];
	x->seq = c[0] ? atol(c[0]) : 0;
	x->score = rank_score(rec, r->metric);
	x->row = JV_OBJECT(jv_string("seq"), jv_number((double)x->seq), jv_string("trace_id"),
	                   ncol > 1 && c[1] ? jv_string(c[1]) : jv_null(), jv_string("score"),
	                   isnan(x->score) ? jv_null() : jv_number(x->score), jv_string("record"), rec);
	return 0;
}

/* the lowest score first, then those without one; in a tie, the earlier record */
static int by_score(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	int xn = isnan(x->score), yn = isnan(y->score);
	if (xn != yn) return xn - yn;
	if (!xn && x->score != y->score) return x->score < y->score ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

int rag_store_window_records(rag_store *s, long id, const char *metric, long offset, long limit, jv *out, char *err,
                             size_t errlen)
{
	char wid[24];
	const char *p[1] = {wid};
	rank_ctx r = {NULL, 0, 0, metric};
	jv w, recs = jv_array();
	size_t i;
	int rc = get_window(s, id, &w, err, errlen);
	if (rc) return rc;
	snprintf(wid, sizeof wid, "%ld", id);
	if (rag_store_q(s, "SELECT seq, trace_id, line FROM prod_records WHERE window_id = $1 ORDER BY seq", 1, p,
	                collect_ranked, &r, err, errlen) < 0)
		rc = -1;
	if (!rc && r.n) qsort(r.v, r.n, sizeof *r.v, by_score);
	for (i = 0; i < r.n; i++) {
		if (!rc && (long)i >= offset && (long)i < offset + limit) recs = jv_array_append(recs, r.v[i].row);
		else jv_free(r.v[i].row);
	}
	if (!rc)
		*out = JV_OBJECT(jv_string("window"), w, jv_string("metric"), metric ? jv_string(metric) : jv_null(),
		                 jv_string("total"), jv_number((double)r.n), jv_string("offset"), jv_number((double)offset),
		                 jv_string("limit"), jv_number((double)limit), jv_string("records"), recs);
	else {
		jv_free(w);
		jv_free(recs);
	}
	free(r.v);
	return rc;
}

static int one_record(void *ctx, int ncol, const char *const *c)
{
	jv *o = ctx;
	jv rec = ncol > 1 && c[1] ? jv_parse(c[1]) : jv_null();
	if (!jv_is_valid(rec)) {
		jv_free(rec);
		rec = jv_null();
	}
	*o = JV_OBJECT(jv_string("trace_id"), c[0] ? jv_string(c[0]) : jv_null(), jv_string("record"), rec);
	return 1;
}

int rag_store_window_record(rag_store *s, long id, long seq, jv *out, char *err, size_t errlen)
{
	char wid[24], sq[24];
	const char *p[2] = {wid, sq};
	snprintf(wid, sizeof wid, "%ld", id);
	snprintf(sq, sizeof sq, "%ld", seq);
	*out = jv_invalid();
	if (rag_store_q(s, "SELECT trace_id, line FROM prod_records WHERE window_id = $1 AND seq = $2", 2, p, one_record,
	                out, err, errlen) < 0)
		return -1;
	if (!jv_is_valid(*out)) {
		rag_seterr(err, errlen, "no record %ld in production window %ld", seq, id);
		return 1;
	}
	return 0;
}
