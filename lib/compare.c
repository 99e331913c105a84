/* compare.c - two runs compared, the one definition every surface uses (rag-gate -b, rag-report
 * and its page, rag-store diff, rag-serve's compare): records paired by id; a pair regressed,
 * improved or is unchanged by the gate's regression tolerance; a record that lost its score
 * (scored in the baseline, an error or a null now) regressed; the paired means over the pairs
 * scored on both sides. */
#include "base.h"
#include "gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a change equal to the tolerance in decimal is not one (0.8 - 0.7 is 0.1) */
#define EPS 1e-9

/* a metric's pairs scored on both sides: their sums, and their differences in pairing order
 * when intervals are asked for */
typedef struct cmean { char *metric; long n; double sb, sc; double *d; size_t dcap; } cmean;

struct rag_compare {
	double tol;
	long paired, regressed, lost, improved, gained, unchanged;
	cmean *m; size_t nm;
	int resamples; double confidence; uint64_t seed;   /* resamples 0: no interval */
};

rag_compare *rag_compare_new(double tol)
{
	rag_compare *c = rag_xcalloc(1, sizeof *c);
	c->tol = tol;
	return c;
}

void rag_compare_intervals(rag_compare *c, int resamples, double confidence, uint64_t seed)
{
	c->resamples = resamples > 0 ? resamples : 0;
	c->confidence = confidence;
	c->seed = seed;
}

void rag_compare_free(rag_compare *c)
{
	size_t i;
	if (!c) return;
	for (i = 0; i < c->nm; i++) {
		free(c->m[i].metric);
		free(c->m[i].d);
	}
	free(c->m);
	free(c);
}

static cmean *mean_of(rag_compare *c, const char *metric)
{
	size_t i;
	for (i = 0; i < c->nm; i++)
		if (!strcmp(c->m[i].metric, metric)) return &c->m[i];
	c->m = rag_xrealloc(c->m, (c->nm + 1) * sizeof *c->m);
	memset(&c->m[c->nm], 0, sizeof *c->m);
	c->m[c->nm].metric = rag_xstrdup(metric);
	return &c->m[c->nm++];
}

static jv num_or_null(jv o, jv key, double *x)
{
	jv v = jv_get_kind(o) == JV_KIND_OBJECT ? jv_object_get(jv_copy(o), key) : (jv_free(key), jv_invalid());
	int n = jv_get_kind(v) == JV_KIND_NUMBER;
	*x = n ? jv_number_value(v) : NAN;
	jv_free(v);
	return n ? jv_number(*x) : jv_null();
}

/* one metric of a pair: its change, or NULL when it is not compared */
static const char *metric_change(rag_compare *c, const char *metric, double b, double cur, int bunscored, int cunscored)
{
	double d;
	if (isnan(b) && isnan(cur)) return NULL;
	if (isnan(cur)) return cunscored ? "lost" : NULL;      /* else not applicable or not run now */
	if (isnan(b)) return bunscored ? "gained" : NULL;
	{
		cmean *m = mean_of(c, metric);
		if (c->resamples) {
			if ((size_t)m->n == m->dcap) {
				m->dcap = m->dcap ? 2 * m->dcap : 64;
				m->d = rag_xrealloc(m->d, m->dcap * sizeof *m->d);
			}
			m->d[m->n] = cur - b;
		}
		m->n++;
		m->sb += b;
		m->sc += cur;
	}
	d = cur - b;
	return d < -c->tol - EPS ? "regressed" : d > c->tol + EPS ? "improved" : "none";
}

int rag_compare_pair(rag_compare *c, jv bscores, int bunscored, jv cscores, int cunscored, jv *out)
{
	jv all = jv_object(), keys;
	int reg = 0, lost = 0, imp = 0, gained = 0;
	if (jv_get_kind(cscores) == JV_KIND_OBJECT)
		jv_object_foreach(cscores, k, v) { all = jv_object_set(all, k, jv_true()); jv_free(v); }
	if (jv_get_kind(bscores) == JV_KIND_OBJECT)
		jv_object_foreach(bscores, k, v) { all = jv_object_set(all, k, jv_true()); jv_free(v); }
	keys = jv_keys(all);   /* by name: the same order on every surface */
	jv_array_foreach(keys, i, k) {
		double b, cur;
		jv bv = num_or_null(bscores, jv_copy(k), &b), cv = num_or_null(cscores, jv_copy(k), &cur);
		const char *ch = metric_change(c, jv_string_value(k), b, cur, bunscored, cunscored);
		if (ch) {
			reg |= !strcmp(ch, "regressed");
			lost |= !strcmp(ch, "lost");
			imp |= !strcmp(ch, "improved");
			gained |= !strcmp(ch, "gained");
		}
		if (ch && out)
			*out = jv_array_append(*out, JV_OBJECT(jv_string("metric"), jv_copy(k), jv_string("baseline"), bv,
			                                       jv_string("current"), cv, jv_string("delta"),
			                                       isnan(b) || isnan(cur) ? jv_null() : jv_number(round((cur - b) * 1e9) / 1e9),
			                                       jv_string("change"), jv_string(ch)));
		else {
			jv_free(bv);
			jv_free(cv);
		}
		jv_free(k);
		(void)i;
	}
	jv_free(keys);
	c->paired++;
	if (reg || lost) {
		c->regressed++;
		c->lost += lost;
		return RAG_CHANGE_REGRESSED;
	}
	if (imp || gained) {
		c->improved++;
		c->gained += gained;
		return RAG_CHANGE_IMPROVED;
	}
	c->unchanged++;
	return RAG_CHANGE_UNCHANGED;
}

const char *rag_compare_name(int change)
{
	return change == RAG_CHANGE_REGRESSED ? "regressed" : change == RAG_CHANGE_IMPROVED ? "improved" : "same";
}

int rag_compare_mean(const rag_compare *c, const char *metric, double *base, double *cur, long *n)
{
	size_t i;
	for (i = 0; i < c->nm; i++)
		if (!strcmp(c->m[i].metric, metric) && c->m[i].n) {
			*n = c->m[i].n;
			*base = c->m[i].sb / (double)c->m[i].n;
			*cur = c->m[i].sc / (double)c->m[i].n;
			return 0;
		}
	*n = 0;
	*base = *cur = NAN;
	return -1;
}

static int by_metric(const void *a, const void *b)
{
	return strcmp(((const cmean *)a)->metric, ((const cmean *)b)->metric);
}

/* The definition in words, shown wherever the counts are (malloc'ed) */
static char *definition(double tol, long paired)
{
	return rag_xasprintf("paired by id over %ld record%s; regressed: fell by more than %g on some metric or lost its "
	                     "score (scored in the baseline, an error or a null now); improved: rose by more than %g or "
	                     "gained its score, none regressed; means over the pairs scored on both sides",
	                     paired, paired == 1 ? "" : "s", tol, tol);
}

jv rag_compare_json(const rag_compare *c)
{
	jv means = jv_array(), o;
	cmean *v = rag_xmalloc((c->nm + 1) * sizeof *v);
	char *def;
	size_t i;
	if (c->nm) {   /* no metric compared: c->m may be NULL, which memcpy may not be given */
		memcpy(v, c->m, c->nm * sizeof *v);
		qsort(v, c->nm, sizeof *v, by_metric);
	}
	for (i = 0; i < c->nm; i++) {
		double b = v[i].sb / (double)v[i].n, cur = v[i].sc / (double)v[i].n, lo = NAN, hi = NAN;
		jv m = JV_OBJECT(jv_string("metric"), jv_string(v[i].metric), jv_string("pairs"), jv_number((double)v[i].n),
		                 jv_string("baseline"), jv_number(b), jv_string("current"), jv_number(cur),
		                 jv_string("delta"), jv_number(round((cur - b) * 1e9) / 1e9));
		/* the gate's interval of the paired differences (rag-gate -b's, rag-report's) */
		if (c->resamples) {
			rag_stats_bootstrap(v[i].d, (size_t)v[i].n, c->resamples, c->confidence, c->seed, &lo, &hi);
			m = jv_object_set(m, jv_string("ci_low"), isnan(lo) ? jv_null() : jv_number(lo));
			m = jv_object_set(m, jv_string("ci_high"), isnan(hi) ? jv_null() : jv_number(hi));
			m = jv_object_set(m, jv_string("change"), jv_string(hi < 0 ? "regression" : lo > 0 ? "improvement" : "none"));
		}
		means = jv_array_append(means, m);
	}
	free(v);
	o = JV_OBJECT(jv_string("paired"), jv_number((double)c->paired), jv_string("regressed"), jv_number((double)c->regressed),
	              jv_string("lost"), jv_number((double)c->lost), jv_string("improved"), jv_number((double)c->improved),
	              jv_string("gained"), jv_number((double)c->gained), jv_string("unchanged"), jv_number((double)c->unchanged),
	              jv_string("tolerance"), jv_number(c->tol));
	if (c->resamples) o = jv_object_set(o, jv_string("confidence"), jv_number(c->confidence));
	o = jv_object_set(o, jv_string("means"), means);
	def = definition(c->tol, c->paired);
	o = jv_object_set(o, jv_string("definition"), jv_string(def));
	free(def);
	return o;
}

char *rag_compare_counts_text(jv counts)
{
	double r = rag_json_num(counts, "regressed"), l = rag_json_num(counts, "lost");
	double i = rag_json_num(counts, "improved"), u = rag_json_num(counts, "unchanged");
	char *def = definition(rag_json_num(counts, "tolerance"), (long)rag_json_num(counts, "paired"));
	char *s = rag_xasprintf("%.0f regressed (%.0f lost their score), %.0f improved, %.0f unchanged (%s)",
	                        isnan(r) ? 0 : r, isnan(l) ? 0 : l, isnan(i) ? 0 : i, isnan(u) ? 0 : u, def);
	free(def);
	return s;
}
