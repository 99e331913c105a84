/* servehist.c - rag-serve's History tab without the HTTP server: the trend of the runs a filter
 * lets through (each metric's mean per run and the share of records passed, oldest first, from
 * the runs' own columns: no record is read), and two runs compared by compare.c's definition
 * (the records paired by id regressed, lost, improved or unchanged, each metric's paired mean in
 * both and the difference, and the records whose scores changed most, both ways, by id, from
 * rag_store_diff). */
#include "base.h"
#include "config.h"
#include "gate.h"
#include "store.h"
#include "serve.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* compare.c's paired means (borrowed: rag_compare_json's means) as [{metric, pairs, base, new, delta,
 * ci_low, ci_high, change}] */
static jv compare_means(jv means)
{
	static const char *const keys[][2] = {{"metric", "metric"}, {"pairs", "pairs"}, {"base", "baseline"},
	                                      {"new", "current"}, {"delta", "delta"}, {"ci_low", "ci_low"},
	                                      {"ci_high", "ci_high"}, {"change", "change"}};
	jv out = jv_array();
	jv_array_foreach(means, i, m) {
		jv o = jv_object();
		size_t k;
		for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			jv v = jv_object_get(jv_copy(m), jv_string(keys[k][1]));
			o = jv_object_set(o, jv_string(keys[k][0]), jv_is_valid(v) ? v : (jv_free(v), jv_null()));
		}
		out = jv_array_append(out, o);
		jv_free(m);
		(void)i;
	}
	return out;
}

/* the two runs' pass rates, each its stored verdict's (rag_verdict_pass_rate: passed of the
 * records with a verdict; null for a run without one), and the difference: {base, new, delta,
 * base_of, new_of}; the summaries borrowed */
static jv pass_rates(jv bsum, jv nsum)
{
	jv bv = rag_json_get(jv_copy(bsum), "verdict"), nv = rag_json_get(jv_copy(nsum), "verdict");
	double b = rag_json_num(bv, "pass_rate"), n = rag_json_num(nv, "pass_rate");
	double bo = rag_json_num(bv, "with_verdict"), no = rag_json_num(nv, "with_verdict");
	jv r = JV_OBJECT(jv_string("base"), isnan(b) ? jv_null() : jv_number(b), jv_string("new"),
	                 isnan(n) ? jv_null() : jv_number(n), jv_string("delta"),
	                 isnan(b) || isnan(n) ? jv_null() : jv_number(round((n - b) * 1e9) / 1e9),
	                 jv_string("base_of"), isnan(bo) ? jv_null() : jv_number(bo),
	                 jv_string("new_of"), isnan(no) ? jv_null() : jv_number(no));
	jv_free(bv);
	jv_free(nv);
	return r;
}

/* one record's largest change one way (dir -1: the most negative delta, 1: the most positive) as
 * {id, metric, base, new, delta}, or invalid when none goes that way; line borrowed */
static jv record_change(jv line, int dir)
{
	jv delta = jv_object_get(jv_copy(line), jv_string("delta")), best = jv_invalid(), bs, ns;
	double bd = 0;
	int lost = dir < 0 && rag_json_true(line, "lost");
	if (jv_get_kind(delta) != JV_KIND_OBJECT) {
		jv_free(delta);
		return jv_invalid();
	}
	bs = jv_object_get(jv_copy(line), jv_string("baseline_scores"));
	ns = jv_object_get(jv_copy(line), jv_string("scores"));
	jv_object_foreach(delta, k, v) {
		/* a lost score (null, the baseline scored) the largest fall there is */
		double d = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) :
		           lost && !isnan(num_of(bs, jv_string_value(k))) ? -HUGE_VAL : 0;
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
		double n = num_of(ns, m);
		jv r = JV_OBJECT(jv_string("id"), jv_object_get(jv_copy(line), jv_string("id")),
		                 jv_string("metric"), jv_copy(best), jv_string("base"), jv_number(num_of(bs, m)),
		                 jv_string("new"), isnan(n) ? jv_null() : jv_number(n),
		                 jv_string("delta"), isinf(bd) ? jv_null() : jv_number(bd));
		if (isinf(bd)) r = jv_object_set(r, jv_string("lost"), jv_true());
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
	double dx = rag_json_true(*x, "lost") ? HUGE_VAL : fabs(num_of(*x, "delta"));
	double dy = rag_json_true(*y, "lost") ? HUGE_VAL : fabs(num_of(*y, "delta"));
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

/* the tolerance of a regression: ?regression=X in [0, 1], else the gate's default (config.c);
 * the comparison made with it and the gate's default intervals (rag-gate -b's) */
static int regression_arg(rag_serve_arg_fn arg, void *ctx, double *tol, rag_compare **cmp, jv *body)
{
	const char *v = rag_serve_str_arg(arg, ctx, "regression");
	char *end;
	rag_config cfg;
	rag_config_defaults(&cfg);
	*tol = cfg.gate.regression;
	*cmp = NULL;
	if (v) {
		errno = 0;
		*tol = strtod(v, &end);
		if (errno || end == v || *end || !(*tol >= 0 && *tol <= 1)) {
			rag_config_free(&cfg);
			*body = rag_serve_error("regression: a number from 0 to 1");
			return -1;
		}
	}
	*cmp = rag_compare_new(*tol);
	rag_compare_intervals(*cmp, cfg.gate.resamples, cfg.gate.confidence, (uint64_t)cfg.gate.seed);
	rag_config_free(&cfg);
	return 0;
}


/* GET /api/compare?base=ID&new=ID (&limit, &regression): {base, new: {run, started, label,
 * commit, testset, n, passed}, metrics: [{metric, pairs, base, new, delta, ci_low, ci_high,
 * change}] (compare.c's paired means and their intervals, the gate's default confidence),
 * pass_rate: {base, new, delta, base_of, new_of} (each run's verdict's), confidence, changes:
 * {regressed, lost, improved, same, added, removed}, paired, tolerance, definition (compare.c's,
 * in words), worse, better: [{id, metric, base, new, delta, lost?}]} */
static int api_compare(rag_store *s, rag_serve_arg_fn arg, void *ctx, jv *body)
{
	const char *base = rag_serve_str_arg(arg, ctx, "base"), *newer = rag_serve_str_arg(arg, ctx, "new");
	char err[RAG_ERRLEN];
	long limit;
	double tol;
	jv bsum, nsum, lines, counts, cmp, means, rates;
	rag_compare *pairs;
	int r;
	if (!base || !newer) {
		*body = rag_serve_error("base and new: the two runs' ids are required");
		return 400;
	}
	if (rag_serve_num_arg(arg, ctx, "limit", 10, 1, 100, &limit, body) < 0) return 400;
	if (regression_arg(arg, ctx, &tol, &pairs, body) < 0) return 400;
	if ((r = rag_store_show(s, base, &bsum, err, sizeof err))) {
		rag_compare_free(pairs);
		return rag_serve_stored(r, err, body);
	}
	if ((r = rag_store_show(s, newer, &nsum, err, sizeof err))) {
		rag_compare_free(pairs);
		jv_free(bsum);
		return rag_serve_stored(r, err, body);
	}
	r = rag_store_diff_with(s, base, newer, pairs, &lines, &cmp, err, sizeof err);
	rag_compare_free(pairs);
	if (r) {
		jv_free(bsum);
		jv_free(nsum);
		return rag_serve_stored(r, err, body);
	}
	counts = JV_OBJECT(jv_string("regressed"), jv_object_get(jv_copy(cmp), jv_string("regressed")),
	                   jv_string("lost"), jv_object_get(jv_copy(cmp), jv_string("lost")),
	                   jv_string("improved"), jv_object_get(jv_copy(cmp), jv_string("improved")),
	                   jv_string("same"), jv_object_get(jv_copy(cmp), jv_string("unchanged")),
	                   jv_string("added"), jv_number(0), jv_string("removed"), jv_number(0));
	jv_array_foreach(lines, i, line) {
		char c[16];
		const char *k = rag_json_str(line, "change", c, sizeof c);
		if (!strcmp(k, "added") || !strcmp(k, "removed"))
			counts = jv_object_set(counts, jv_string(k), jv_number(rag_json_num(counts, k) + 1));
		jv_free(line);
		(void)i;
	}
	means = jv_object_get(jv_copy(cmp), jv_string("means"));
	rates = pass_rates(bsum, nsum);   /* before compare_side consumes the summaries */
	*body = JV_OBJECT(jv_string("base"), compare_side(bsum), jv_string("new"), compare_side(nsum),
	                  jv_string("metrics"), compare_means(means), jv_string("changes"), counts,
	                  jv_string("paired"), jv_object_get(jv_copy(cmp), jv_string("paired")),
	                  jv_string("tolerance"), jv_number(tol),
	                  jv_string("definition"), jv_object_get(jv_copy(cmp), jv_string("definition")),
	                  jv_string("worse"), most_changed(lines, -1, limit),
	                  jv_string("better"), most_changed(lines, 1, limit));
	*body = jv_object_set(*body, jv_string("pass_rate"), rates);
	*body = jv_object_set(*body, jv_string("confidence"), jv_object_get(jv_copy(cmp), jv_string("confidence")));
	jv_free(means);
	jv_free(cmp);
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
