/* servehist.c - rag-serve's History tab without the HTTP server: the trend of the runs a filter
 * lets through (each metric's mean per run and the share of records passed, oldest first, from
 * the runs' own columns: no record is read), and two runs compared (each metric's mean in both
 * and the difference, and the records whose scores changed most, both ways, by id, from
 * rag_store_diff). */
#include "base.h"
#include "store.h"
#include "serve.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a difference as rag_store_diff rounds it: to 1e-9, so that 0.8 - 0.7 reads 0.1 */
static double rounded(double d)
{
	return round(d * 1e9) / 1e9;
}

/* ---------------------------------------------------------------- /api/trends */

/* GET /api/trends (?label, commit, testset, since, until, metric, limit): {total, shown,
 * metrics: [names, sorted], runs: [rag_store_trends' runs], series: {metric: [mean per run,
 * null where the run has none]}, pass_rate: [per run: passed of the records with a verdict],
 * pass_rate_of: [per run: the records with a verdict, its denominator]} */
static int api_trends(rag_store *s, rag_serve_arg_fn arg, void *ctx, jv *body)
{
	rag_store_filter f;
	char err[RAG_ERRLEN];
	const char *metric;
	long limit;
	jv t, runs, names, series, rates, of;
	int r;
	memset(&f, 0, sizeof f);
	if (rag_serve_num_arg(arg, ctx, "limit", 100, 1, 500, &limit, body) < 0 ||
	    rag_serve_date_arg(arg, ctx, "since", &f.since, body) < 0 || rag_serve_date_arg(arg, ctx, "until", &f.until, body) < 0)
		return 400;
	f.label = rag_serve_str_arg(arg, ctx, "label");
	f.commit = rag_serve_str_arg(arg, ctx, "commit");
	f.testset = rag_serve_str_arg(arg, ctx, "testset");
	metric = rag_serve_str_arg(arg, ctx, "metric");
	if ((r = rag_store_trends(s, &f, limit, &t, err, sizeof err))) return rag_serve_stored(r, err, body);
	runs = jv_object_get(jv_copy(t), jv_string("runs"));
	/* the metrics: those of any run (or the one asked for), sorted */
	names = jv_object();
	jv_array_foreach(runs, i, run) {
		jv m = jv_object_get(run, jv_string("means"));
		if (jv_get_kind(m) == JV_KIND_OBJECT) {
			jv_object_foreach(m, k, v) {
				if (!metric || !strcmp(jv_string_value(k), metric)) names = jv_object_set(names, k, jv_true());
				else jv_free(k);
				jv_free(v);
			}
		}
		jv_free(m);
		(void)i;
	}
	if (metric) names = jv_object_set(names, jv_string(metric), jv_true());
	names = jv_keys(names);
	series = jv_object();
	jv_array_foreach(names, i, k) {
		jv vals = jv_array();
		jv_array_foreach(runs, j, run) {
			jv m = jv_object_get(run, jv_string("means"));
			jv v = jv_get_kind(m) == JV_KIND_OBJECT ? jv_object_get(m, jv_copy(k)) : (jv_free(m), jv_invalid());
			vals = jv_array_append(vals, jv_get_kind(v) == JV_KIND_NUMBER ? v : (jv_free(v), jv_null()));
			(void)j;
		}
		series = jv_object_set(series, k, vals);
		(void)i;
	}
	rates = jv_array();
	of = jv_array();
	jv_array_foreach(runs, i, run) {
		of = jv_array_append(of, jv_object_get(jv_copy(run), jv_string("pass_rate_of")));
		rates = jv_array_append(rates, jv_object_get(run, jv_string("pass_rate")));
		(void)i;
	}
	*body = JV_OBJECT(jv_string("total"), jv_object_get(t, jv_string("total")),
	                  jv_string("shown"), jv_number(jv_array_length(jv_copy(runs))),
	                  jv_string("metrics"), names, jv_string("runs"), runs,
	                  jv_string("series"), series, jv_string("pass_rate"), rates);
	*body = jv_object_set(*body, jv_string("pass_rate_of"), of);
	return 200;
}

/* ---------------------------------------------------------------- /api/compare */

/* a run's summary (consumed) as compare shows it */
static jv compare_side(jv sum)
{
	static const char *const keys[] = {"run", "started", "label", "commit", "testset", "n", "passed"};
	jv o = jv_object();
	size_t i;
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		jv v = jv_object_get(jv_copy(sum), jv_string(keys[i]));
		o = jv_object_set(o, jv_string(keys[i]), jv_is_valid(v) ? v : (jv_free(v), jv_null()));
	}
	jv_free(sum);
	return o;
}

/* a number of o[k] (borrowed), or NAN */
static double num_of(jv o, const char *k)
{
	jv v = jv_get_kind(o) == JV_KIND_OBJECT ? jv_object_get(jv_copy(o), jv_string(k)) : jv_invalid();
	double d = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : NAN;
	jv_free(v);
	return d;
}

/* the means of both runs (borrowed), each metric of either: [{metric, base, new, delta}] */
static jv compare_means(jv bm, jv nm)
{
	jv all = jv_object(), keys, out = jv_array();
	if (jv_get_kind(bm) == JV_KIND_OBJECT) jv_object_foreach(bm, k, v) { all = jv_object_set(all, k, v); }
	if (jv_get_kind(nm) == JV_KIND_OBJECT) jv_object_foreach(nm, k, v) { all = jv_object_set(all, k, v); }
	keys = jv_keys(all);
	jv_array_foreach(keys, i, k) {
		double b = num_of(bm, jv_string_value(k)), n = num_of(nm, jv_string_value(k));
		out = jv_array_append(out, JV_OBJECT(jv_string("metric"), k,
		                                     jv_string("base"), isnan(b) ? jv_null() : jv_number(b),
		                                     jv_string("new"), isnan(n) ? jv_null() : jv_number(n),
		                                     jv_string("delta"),
		                                     isnan(b) || isnan(n) ? jv_null() : jv_number(rounded(n - b))));
		(void)i;
	}
	jv_free(keys);
	return out;
}

/* one record's largest change one way (dir -1: the most negative delta, 1: the most positive) as
 * {id, metric, base, new, delta}, or invalid when none goes that way; line borrowed */
static jv record_change(jv line, int dir)
{
	jv delta = jv_object_get(jv_copy(line), jv_string("delta")), best = jv_invalid(), bs, ns;
	double bd = 0;
	if (jv_get_kind(delta) != JV_KIND_OBJECT) {
		jv_free(delta);
		return jv_invalid();
	}
	bs = jv_object_get(jv_copy(line), jv_string("baseline_scores"));
	ns = jv_object_get(jv_copy(line), jv_string("scores"));
	jv_object_foreach(delta, k, v) {
		double d = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : 0;
		/* the larger change; between equal ones the metric first by name (jv's order is not) */
		if (d * dir > 0 && (d * dir > bd * dir ||
		                    (d == bd && jv_is_valid(best) &&
		                     strcmp(jv_string_value(k), jv_string_value(best)) < 0))) {
			bd = d;
			jv_free(best);
			best = jv_copy(k);
		}
		jv_free(k);
		jv_free(v);
	}
	jv_free(delta);
	if (jv_is_valid(best)) {
		const char *m = jv_string_value(best);
		jv r = JV_OBJECT(jv_string("id"), jv_object_get(jv_copy(line), jv_string("id")),
		                 jv_string("metric"), jv_copy(best), jv_string("base"), jv_number(num_of(bs, m)),
		                 jv_string("new"), jv_number(num_of(ns, m)), jv_string("delta"), jv_number(bd));
		jv_free(best);
		best = r;
	}
	jv_free(bs);
	jv_free(ns);
	return best;
}

/* the records that changed most one way: by |delta| largest first, then by id */
static int by_change(const void *a, const void *b)
{
	const jv *x = a, *y = b;
	double dx = fabs(num_of(*x, "delta")), dy = fabs(num_of(*y, "delta"));
	jv ix, iy;
	int c;
	if (dx != dy) return dx < dy ? 1 : -1;
	ix = jv_object_get(jv_copy(*x), jv_string("id"));
	iy = jv_object_get(jv_copy(*y), jv_string("id"));
	c = strcmp(jv_string_value(ix), jv_string_value(iy));
	jv_free(ix);
	jv_free(iy);
	return c;
}

static jv most_changed(jv lines, int dir, long limit)
{
	int n = jv_array_length(jv_copy(lines)), k = 0, i;
	jv *v = rag_xcalloc((size_t)n + 1, sizeof *v), out = jv_array();
	for (i = 0; i < n; i++) {
		jv line = jv_array_get(jv_copy(lines), i), c = record_change(line, dir);
		jv_free(line);
		if (jv_is_valid(c)) v[k++] = c;
		else jv_free(c);
	}
	qsort(v, (size_t)k, sizeof *v, by_change);
	for (i = 0; i < k; i++) {
		if (i < limit) out = jv_array_append(out, v[i]);
		else jv_free(v[i]);
	}
	free(v);
	return out;
}

/* GET /api/compare?base=ID&new=ID (&limit): {base, new: {run, started, label, commit, testset,
 * n, passed}, metrics: [{metric, base, new, delta}], changes: {regressed, improved, same,
 * added, removed}, worse, better: [{id, metric, base, new, delta}]} */
static int api_compare(rag_store *s, rag_serve_arg_fn arg, void *ctx, jv *body)
{
	const char *base = rag_serve_str_arg(arg, ctx, "base"), *newer = rag_serve_str_arg(arg, ctx, "new");
	char err[RAG_ERRLEN];
	long limit;
	jv bsum, nsum, bm, nm, lines, counts;
	int r;
	if (!base || !newer) {
		*body = rag_serve_error("base and new: the two runs' ids are required");
		return 400;
	}
	if (rag_serve_num_arg(arg, ctx, "limit", 10, 1, 100, &limit, body) < 0) return 400;
	if ((r = rag_store_show(s, base, &bsum, err, sizeof err))) return rag_serve_stored(r, err, body);
	if ((r = rag_store_show(s, newer, &nsum, err, sizeof err))) {
		jv_free(bsum);
		return rag_serve_stored(r, err, body);
	}
	if ((r = rag_store_diff(s, base, newer, &lines, err, sizeof err))) {
		jv_free(bsum);
		jv_free(nsum);
		return rag_serve_stored(r, err, body);
	}
	counts = JV_OBJECT(jv_string("regressed"), jv_number(0), jv_string("improved"), jv_number(0),
	                   jv_string("same"), jv_number(0), jv_string("added"), jv_number(0),
	                   jv_string("removed"), jv_number(0));
	jv_array_foreach(lines, i, line) {
		jv c = jv_object_get(line, jv_string("change")), had = jv_object_get(jv_copy(counts), jv_copy(c));
		if (jv_get_kind(had) == JV_KIND_NUMBER) counts = jv_object_set(counts, c, jv_number(jv_number_value(had) + 1));
		else jv_free(c);
		jv_free(had);
		(void)i;
	}
	bm = jv_object_get(jv_copy(bsum), jv_string("means"));
	nm = jv_object_get(jv_copy(nsum), jv_string("means"));
	*body = JV_OBJECT(jv_string("base"), compare_side(bsum), jv_string("new"), compare_side(nsum),
	                  jv_string("metrics"), compare_means(bm, nm), jv_string("changes"), counts,
	                  jv_string("worse"), most_changed(lines, -1, limit),
	                  jv_string("better"), most_changed(lines, 1, limit));
	jv_free(bm);
	jv_free(nm);
	jv_free(lines);
	return 200;
}

int rag_serve_history_get(rag_store *s, const char *path, rag_serve_arg_fn arg, void *ctx, jv *body)
{
	*body = jv_invalid();
	if (!strcmp(path, "/api/trends")) return api_trends(s, arg, ctx, body);
	if (!strcmp(path, "/api/compare")) return api_compare(s, arg, ctx, body);
	return 0;
}
