/* agree.c - how far a judge agrees with people (rag-agree(1)): ROC AUC, the measures of a
 * threshold and Cohen's kappa, rank correlations for graded labels, bootstrap intervals, the
 * prediction-powered estimate of a mean, and the stratified sample of records to label.
 *
 * Every function returns a number only where the definition gives one: a measure with a zero
 * denominator (one class only, constant scores, no pairs) is NAN with the reason, never a
 * stand-in such as 0 or 0.5. Sums run in a fixed order, and the draws are rag_rng's, so the same
 * input and seed give the same figures on every machine. */
#include "base.h"
#include "gate.h"
#include "agree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- ranks */
typedef struct keyed { double v; size_t i; } keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	if (x->v != y->v) return (x->v > y->v) - (x->v < y->v);
	return (x->i > y->i) - (x->i < y->i);   /* a stable order: qsort is not */
}

/* The average ranks (1-based, ties share the mean of their ranks) of x into r. */
static void avg_ranks(const double *x, size_t n, double *r)
{
	keyed *k = rag_xmalloc((n ? n : 1) * sizeof *k);
	size_t i, j, m;
	for (i = 0; i < n; i++) {
		k[i].v = x[i];
		k[i].i = i;
	}
	qsort(k, n, sizeof *k, cmp_keyed);
	for (i = 0; i < n; i = j) {
		double rank;
		for (j = i + 1; j < n && k[j].v == k[i].v; j++) continue;
		rank = ((double)(i + 1) + (double)j) / 2;   /* ranks i+1 .. j */
		for (m = i; m < j; m++) r[k[m].i] = rank;
	}
	free(k);
}

/* ---------------------------------------------------------------- binary measures */
RAG_UNITTEST int rag_agree_auc(const double *score, const double *label, size_t n, double *auc, const char **why)
{
	double *r, sum = 0, npos = 0, nneg = 0;
	size_t i;
	*auc = NAN;
	for (i = 0; i < n; i++) {
		if (label[i] > 0.5) npos++;
		else nneg++;
	}
	if (!n) {
		*why = "no pairs";
		return -1;
	}
	if (!npos || !nneg) {
		*why = npos ? "one class only: every label is positive" : "one class only: every label is negative";
		return -1;
	}
	r = rag_xmalloc(n * sizeof *r);
	avg_ranks(score, n, r);
	for (i = 0; i < n; i++)
		if (label[i] > 0.5) sum += r[i];
	free(r);
	/* Mann-Whitney: U of the positives over the product of the class sizes; a tie between a
	 * positive and a negative counts half, which the average ranks give */
	*auc = (sum - npos * (npos + 1) / 2) / (npos * nneg);
	return 0;
}

RAG_UNITTEST double rag_agree_kappa(long tp, long fp, long fn, long tn)
{
	double n = (double)(tp + fp + fn + tn), po, pe;
	if (n <= 0) return NAN;
	po = (double)(tp + tn) / n;
	pe = ((double)(tp + fp) * (double)(tp + fn) + (double)(fn + tn) * (double)(fp + tn)) / (n * n);
	if (pe >= 1) return NAN;   /* both sides constant and the same: kappa is 0/0 */
	return (po - pe) / (1 - pe);
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

RAG_UNITTEST void rag_agree_classify(const double *score, const double *label, size_t n, double threshold,
                        rag_agree_cls *c)
{
	size_t i;
	memset(c, 0, sizeof *c);
	for (i = 0; i < n; i++) {
		int p = score[i] >= threshold, y = label[i] > 0.5;
		if (p && y) c->tp++;
		else if (p) c->fp++;
		else if (y) c->fn++;
		else c->tn++;
	}
	c->accuracy = ratio((double)(c->tp + c->tn), (double)n);
	c->precision = ratio((double)c->tp, (double)(c->tp + c->fp));
	c->recall = ratio((double)c->tp, (double)(c->tp + c->fn));
	c->specificity = ratio((double)c->tn, (double)(c->tn + c->fp));
	c->f1 = ratio(2.0 * (double)c->tp, (double)(2 * c->tp + c->fp + c->fn));
	c->kappa = rag_agree_kappa(c->tp, c->fp, c->fn, c->tn);
}

static double measure_of(const rag_agree_cls *c, int measure)
{
	switch (measure) {
	case RAG_AGREE_F1: return c->f1;
	case RAG_AGREE_ACCURACY: return c->accuracy;
	default: return c->recall + c->specificity - 1;   /* Youden's J */
	}
}

int rag_agree_measure_parse(const char *s)
{
	if (!strcmp(s, "f1")) return RAG_AGREE_F1;
	if (!strcmp(s, "accuracy")) return RAG_AGREE_ACCURACY;
	if (!strcmp(s, "youden")) return RAG_AGREE_YOUDEN;
	return -1;
}

static const char *rag_agree_measure_name(int measure)
{
	return measure == RAG_AGREE_F1 ? "f1" : measure == RAG_AGREE_ACCURACY ? "accuracy" : "youden";
}

RAG_UNITTEST int rag_agree_best_threshold(const double *score, const double *label, size_t n, int measure,
                             double *threshold, double *value)
{
	keyed *k;
	double npos = 0, nneg = 0, posb = 0, negb = 0;   /* positives, negatives scored below s[i] */
	size_t i, j;
	int found = 0;
	*threshold = *value = NAN;
	if (!n) return -1;
	k = rag_xmalloc(n * sizeof *k);
	for (i = 0; i < n; i++) {
		k[i].v = score[i];
		k[i].i = i;
		if (label[i] > 0.5) npos++;
		else nneg++;
	}
	qsort(k, n, sizeof *k, cmp_keyed);
	/* every distinct score is a threshold that changes the predictions; one sweep upwards
	 * counts what lies below it, and only a strictly better value moves the choice, so of
	 * equal ones the lowest is kept */
	for (i = 0; i < n; i = j) {
		rag_agree_cls c;
		double v, tp = npos - posb, fp = nneg - negb, fn = posb, tn = negb, all = (double)n;
		memset(&c, 0, sizeof c);
		c.tp = (long)tp, c.fp = (long)fp, c.fn = (long)fn, c.tn = (long)tn;
		c.accuracy = (tp + tn) / all;
		c.recall = ratio(tp, tp + fn);
		c.specificity = ratio(tn, tn + fp);
		c.f1 = ratio(2 * tp, 2 * tp + fp + fn);
		v = measure_of(&c, measure);
		if (!isnan(v) && (!found || v > *value)) {
			*threshold = k[i].v;
			*value = v;
			found = 1;
		}
		for (j = i; j < n && k[j].v == k[i].v; j++) {
			if (label[k[j].i] > 0.5) posb++;
			else negb++;
		}
	}
	free(k);
	return found ? 0 : -1;
}

/* ---------------------------------------------------------------- rank correlations */
static int constant(const double *x, size_t n)
{
	size_t i;
	for (i = 1; i < n; i++)
		if (x[i] != x[0]) return 0;
	return 1;
}

RAG_UNITTEST int rag_agree_spearman(const double *x, const double *y, size_t n, double *rho, const char **why)
{
	double *rx, *ry, mx, my, sxy = 0, sxx = 0, syy = 0;
	size_t i;
	*rho = NAN;
	if (n < 2) {
		*why = n ? "one pair only" : "no pairs";
		return -1;
	}
	if (constant(x, n) || constant(y, n)) {
		*why = constant(x, n) ? "the scores are constant" : "the labels are constant";
		return -1;
	}
	rx = rag_xmalloc(n * sizeof *rx);
	ry = rag_xmalloc(n * sizeof *ry);
	avg_ranks(x, n, rx);
	avg_ranks(y, n, ry);
	/* Pearson's r of the average ranks (what scipy.stats.spearmanr computes with ties) */
	mx = rag_stats_mean(rx, n);
	my = rag_stats_mean(ry, n);
	for (i = 0; i < n; i++) {
		sxy += (rx[i] - mx) * (ry[i] - my);
		sxx += (rx[i] - mx) * (rx[i] - mx);
		syy += (ry[i] - my) * (ry[i] - my);
	}
	free(rx);
	free(ry);
	*rho = sxy / sqrt(sxx * syy);
	return 0;
}

RAG_UNITTEST int rag_agree_kendall(const double *x, const double *y, size_t n, double *tau, const char **why)
{
	double nc = 0, nd = 0, tx = 0, ty = 0, n0;
	size_t i, j;
	*tau = NAN;
	if (n < 2) {
		*why = n ? "one pair only" : "no pairs";
		return -1;
	}
	if (constant(x, n) || constant(y, n)) {
		*why = constant(x, n) ? "the scores are constant" : "the labels are constant";
		return -1;
	}
	/* tau-b = (concordant - discordant) / sqrt((n0 - pairs tied in x) (n0 - pairs tied in y)),
	 * a pair tied in both counting in both tie sums; O(n^2), enough for labelled sets */
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			double dx = x[i] - x[j], dy = y[i] - y[j];
			if (dx == 0) tx++;
			if (dy == 0) ty++;
			if (dx == 0 || dy == 0) continue;
			if ((dx > 0) == (dy > 0)) nc++;
			else nd++;
		}
	}
	n0 = (double)n * (double)(n - 1) / 2;
	*tau = (nc - nd) / sqrt((n0 - tx) * (n0 - ty));
	return 0;
}

/* ---------------------------------------------------------------- bootstrap */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

RAG_UNITTEST int rag_agree_bootstrap(const double *score, const double *label, size_t n, double threshold,
                        int resamples, double confidence, uint64_t seed, rag_agree_ci ci[RAG_AGREE_NCI])
{
	rag_rng r;
	double *s, *y, *v[RAG_AGREE_NCI], alpha = (1 - confidence) / 2;
	size_t i, k, got[RAG_AGREE_NCI] = {0};
	int b;

	for (k = 0; k < RAG_AGREE_NCI; k++) ci[k].lo = ci[k].hi = NAN, ci[k].defined = 0;
	if (!n || resamples < 1 || !(confidence > 0 && confidence < 1)) return -1;
	s = rag_xmalloc(n * sizeof *s);
	y = rag_xmalloc(n * sizeof *y);
	for (k = 0; k < RAG_AGREE_NCI; k++) v[k] = rag_xmalloc((size_t)resamples * sizeof *v[k]);
	rag_rng_seed(&r, seed);
	for (b = 0; b < resamples; b++) {
		rag_agree_cls c;
		const char *why;
		double m[RAG_AGREE_NCI];
		for (i = 0; i < n; i++) {
			size_t d = (size_t)rag_rng_below(&r, n);
			s[i] = score[d];
			y[i] = label[d];
		}
		rag_agree_auc(s, y, n, &m[RAG_AGREE_CI_AUC], &why);
		rag_agree_classify(s, y, n, threshold, &c);
		m[RAG_AGREE_CI_ACCURACY] = c.accuracy;
		m[RAG_AGREE_CI_F1] = c.f1;
		m[RAG_AGREE_CI_KAPPA] = c.kappa;
		/* a resample in which a measure is undefined (one class drawn) tells nothing of it */
		for (k = 0; k < RAG_AGREE_NCI; k++)
			if (!isnan(m[k])) v[k][got[k]++] = m[k];
	}
	for (k = 0; k < RAG_AGREE_NCI; k++) {
		ci[k].defined = (long)got[k];
		if (got[k]) {
			qsort(v[k], got[k], sizeof *v[k], cmp_double);
			ci[k].lo = rag_stats_quantile(v[k], got[k], alpha);
			ci[k].hi = rag_stats_quantile(v[k], got[k], 1 - alpha);
		}
		free(v[k]);
	}
	free(s);
	free(y);
	return 0;
}

/* ---------------------------------------------------------------- prediction-powered inference */
RAG_UNITTEST double rag_agree_z(double confidence)
{
	/* the normal quantile (1 + confidence) / 2 by bisection on erfc: 60 halvings of [0, 40]
	 * leave it exact to the double */
	double lo = 0, hi = 40, tail = (1 - confidence) / 2;
	int i;
	if (!(confidence > 0 && confidence < 1)) return NAN;
	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (0.5 * erfc(mid / sqrt(2.0)) > tail) lo = mid;
		else hi = mid;
	}
	return (lo + hi) / 2;
}

/* the sample variance (n - 1 in the denominator) */
static double variance(const double *x, size_t n)
{
	double m = rag_stats_mean(x, n), ss = 0;
	size_t i;
	if (n < 2) return NAN;
	for (i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
	return ss / (double)(n - 1);
}

RAG_UNITTEST int rag_agree_ppi(const double *judge_all, size_t nall, const double *judge_lab, const double *human_lab,
                  size_t nlab, double confidence, rag_agree_ppi_est *e, const char **why)
{
	double *d, z;
	size_t i;
	memset(e, 0, sizeof *e);
	e->estimate = e->lo = e->hi = e->se = e->judge_mean = e->rectifier = e->human_mean = NAN;
	e->n_all = nall;
	e->n_labelled = nlab;
	if (nlab < 2) {
		*why = nlab ? "one labelled record only (a variance needs two)" : "no labelled records";
		return -1;
	}
	if (nall < 2) {
		*why = "fewer than two records with a judge score";
		return -1;
	}
	if (isnan(z = rag_agree_z(confidence))) {
		*why = "confidence out of range";
		return -1;
	}
	d = rag_xmalloc(nlab * sizeof *d);
	for (i = 0; i < nlab; i++) d[i] = judge_lab[i] - human_lab[i];
	e->judge_mean = rag_stats_mean(judge_all, nall);
	e->rectifier = rag_stats_mean(d, nlab);
	e->human_mean = rag_stats_mean(human_lab, nlab);
	e->estimate = e->judge_mean - e->rectifier;
	e->se = sqrt(variance(judge_all, nall) / (double)nall + variance(d, nlab) / (double)nlab);
	e->lo = e->estimate - z * e->se;
	e->hi = e->estimate + z * e->se;
	free(d);
	return 0;
}

/* ---------------------------------------------------------------- the stratified sample */
typedef struct stratum { size_t *idx, n, take; double rem; } stratum;

static int band_of(double s, const double cut[3])
{
	return s < cut[0] ? 0 : s < cut[1] ? 1 : s < cut[2] ? 2 : 3;
}

size_t rag_agree_sample(const double *score, const char *const *category, size_t n, size_t want,
                        uint64_t seed, size_t *picked)
{
	double cut[3] = {0.25, 0.5, 0.75}, *sorted;
	size_t i, j, ns = 0, left, total = 0;
	stratum *st;
	char *mark;
	rag_rng r;
	int unit = 1;

	if (!n || !want) return 0;
	for (i = 0; i < n; i++)
		if (score[i] < 0 || score[i] > 1) unit = 0;
	if (!unit) {
		/* scores not in [0, 1]: the bands are the quartiles of the scores themselves */
		sorted = rag_xmalloc(n * sizeof *sorted);
		memcpy(sorted, score, n * sizeof *sorted);
		rag_stats_sort(sorted, n);
		for (j = 0; j < 3; j++) cut[j] = rag_stats_quantile(sorted, n, 0.25 * (double)(j + 1));
		free(sorted);
	}
	/* strata in the order of their first record: band x category (by name) */
	st = rag_xcalloc(n, sizeof *st);
	for (i = 0; i < n; i++) {
		int b = band_of(score[i], cut);
		const char *c = category && category[i] ? category[i] : "";
		for (j = 0; j < ns; j++) {
			size_t f = st[j].idx[0];
			const char *fc = category && category[f] ? category[f] : "";
			if (band_of(score[f], cut) == b && !strcmp(fc, c)) break;
		}
		if (j == ns) {
			st[ns].idx = rag_xmalloc(n * sizeof *st[ns].idx);
			ns++;
		}
		st[j].idx[st[j].n++] = i;
	}
	if (want > n) want = n;
	left = want;
	if (want >= ns) {
		/* one for every stratum, the rest in proportion to what each has left, the largest
		 * remainders taking what rounding down left over */
		double spare = (double)(want - ns);
		for (j = 0; j < ns; j++) {
			double share = n > ns ? spare * (double)(st[j].n - 1) / (double)(n - ns) : 0;
			st[j].take = 1 + (size_t)share;
			st[j].rem = share - floor(share);
			left -= st[j].take;
		}
	} else {
		for (j = 0; j < ns; j++) st[j].rem = (double)st[j].n;   /* too few for all: the largest */
	}
	while (left > 0) {
		size_t best = ns;
		for (j = 0; j < ns; j++)
			if (st[j].take < st[j].n && st[j].rem >= 0 && (best == ns || st[j].rem > st[best].rem)) best = j;
		if (best == ns) break;   /* cannot happen: the shares never exceed what a stratum has */
		st[best].take++;
		st[best].rem = -1;       /* one extra at most each */
		left--;
	}
	/* within a stratum, a seeded partial Fisher-Yates; the picks are returned in input order */
	rag_rng_seed(&r, seed);
	mark = rag_xcalloc(n, 1);
	for (j = 0; j < ns; j++) {
		size_t t;
		for (t = 0; t < st[j].take; t++) {
			size_t u = t + (size_t)rag_rng_below(&r, st[j].n - t), tmp = st[j].idx[t];
			st[j].idx[t] = st[j].idx[u];
			st[j].idx[u] = tmp;
			mark[st[j].idx[t]] = 1;
		}
		free(st[j].idx);
	}
	for (i = 0; i < n; i++)
		if (mark[i]) picked[total++] = i;
	free(mark);
	free(st);
	return total;
}

/* ---------------------------------------------------------------- values */
int rag_agree_value(jv v, double *x)
{
	jv_kind k = jv_get_kind(v);
	*x = NAN;
	if (!jv_is_valid(v) || k == JV_KIND_NULL) return 1;
	if (k == JV_KIND_TRUE || k == JV_KIND_FALSE) {
		*x = k == JV_KIND_TRUE;
		return 0;
	}
	if (k == JV_KIND_NUMBER) {
		*x = jv_number_value(v);
		return isfinite(*x) ? 0 : -1;
	}
	if (k == JV_KIND_STRING) {
		static const char *const yes[] = {"yes", "y", "true", "pass", "是", "对", NULL};
		static const char *const no[] = {"no", "n", "false", "fail", "否", "不是", "错", NULL};
		const char *s = jv_string_value(v);
		char buf[32], *end;
		size_t i, len;
		while (*s == ' ' || *s == '\t') s++;
		len = strlen(s);
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r')) len--;
		if (!len) return 1;   /* an empty cell: not labelled yet */
		if (len >= sizeof buf) return -1;
		for (i = 0; i < len; i++) buf[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 32) : s[i];
		buf[len] = 0;
		for (i = 0; yes[i]; i++)
			if (!strcmp(buf, yes[i])) return *x = 1, 0;
		for (i = 0; no[i]; i++)
			if (!strcmp(buf, no[i])) return *x = 0, 0;
		*x = strtod(buf, &end);
		if (end != buf && !*end && isfinite(*x)) return 0;
		*x = NAN;
		return -1;
	}
	return -1;
}

/* ---------------------------------------------------------------- the summary */
static jv num(double x)
{
	return isnan(x) ? jv_null() : jv_number(x);
}

static jv interval(const rag_agree_ci *c)
{
	return c->defined ? JV_ARRAY(jv_number(c->lo), jv_number(c->hi)) : jv_null();
}

/* The corrected mean is a mean of labels: neither it nor its interval can leave their scale,
 * where the normal interval of few labels runs ([0.155, 1.745] with two). Clipped to it; 1 when
 * that moved one of them. */
static int ppi_clip(rag_agree_ppi_est *e, const rag_agree_opts *o)
{
	double lo = o->scale_lo < o->scale_hi ? o->scale_lo : 0, hi = o->scale_lo < o->scale_hi ? o->scale_hi : 1;
	double *v[3] = {&e->estimate, &e->lo, &e->hi};
	int i, moved = 0;
	for (i = 0; i < 3; i++) {
		if (*v[i] < lo) *v[i] = lo, moved = 1;
		else if (*v[i] > hi) *v[i] = hi, moved = 1;
	}
	return moved;
}

jv rag_agree_summary(const double *score, const double *label, size_t n, const double *judge, size_t nall,
                     const rag_agree_opts *o)
{
	jv s = jv_object(), why = jv_object(), ci = jv_object();
	const char *w = NULL;
	double v, t, best;
	size_t i, pos = 0, neg = 0;
	int binary = 1;
	rag_agree_ppi_est e;

	for (i = 0; i < n; i++) {
		if (label[i] != 0 && label[i] != 1) binary = 0;
		if (label[i] > 0.5) pos++;
		else neg++;
	}
	s = jv_object_set(s, jv_string("pairs"), jv_number((double)n));
	s = jv_object_set(s, jv_string("labels_kind"), jv_string(binary ? "binary" : "graded"));
	s = jv_object_set(s, jv_string("positives"), binary ? jv_number((double)pos) : jv_null());
	s = jv_object_set(s, jv_string("negatives"), binary ? jv_number((double)neg) : jv_null());
	s = jv_object_set(s, jv_string("threshold"), jv_number(o->threshold));
	if (binary && n) {
		rag_agree_cls c;
		rag_agree_ci b[RAG_AGREE_NCI];
		rag_agree_auc(score, label, n, &v, &w);
		s = jv_object_set(s, jv_string("auc"), num(v));
		if (isnan(v)) why = jv_object_set(why, jv_string("auc"), jv_string(w));
		rag_agree_classify(score, label, n, o->threshold, &c);
		s = jv_object_set(s, jv_string("accuracy"), num(c.accuracy));
		s = jv_object_set(s, jv_string("precision"), num(c.precision));
		s = jv_object_set(s, jv_string("recall"), num(c.recall));
		s = jv_object_set(s, jv_string("f1"), num(c.f1));
		s = jv_object_set(s, jv_string("kappa"), num(c.kappa));
		if (isnan(c.precision)) why = jv_object_set(why, jv_string("precision"), jv_string("the judge says no record is positive"));
		if (isnan(c.recall)) why = jv_object_set(why, jv_string("recall"), jv_string("no label is positive"));
		if (isnan(c.f1)) why = jv_object_set(why, jv_string("f1"), jv_string("no positive on either side"));
		if (isnan(c.kappa)) why = jv_object_set(why, jv_string("kappa"), jv_string("the judge and the labels are one and the same constant"));
		s = jv_object_set(s, jv_string("confusion"), JV_OBJECT(jv_string("tp"), jv_number((double)c.tp),
		                  jv_string("fp"), jv_number((double)c.fp), jv_string("fn"), jv_number((double)c.fn),
		                  jv_string("tn"), jv_number((double)c.tn)));
		if (rag_agree_best_threshold(score, label, n, o->optimise, &t, &best) == 0)
			s = jv_object_set(s, jv_string("best"), JV_OBJECT(jv_string("optimise"), jv_string(rag_agree_measure_name(o->optimise)),
			                  jv_string("threshold"), jv_number(t), jv_string("value"), jv_number(best)));
		else {
			s = jv_object_set(s, jv_string("best"), jv_null());
			why = jv_object_set(why, jv_string("best"), jv_string("the measure is undefined at every threshold"));
		}
		rag_agree_bootstrap(score, label, n, o->threshold, o->resamples, o->confidence, o->seed, b);
		ci = jv_object_set(ci, jv_string("auc"), isnan(v) ? jv_null() : interval(&b[RAG_AGREE_CI_AUC]));
		ci = jv_object_set(ci, jv_string("accuracy"), interval(&b[RAG_AGREE_CI_ACCURACY]));
		ci = jv_object_set(ci, jv_string("f1"), isnan(c.f1) ? jv_null() : interval(&b[RAG_AGREE_CI_F1]));
		ci = jv_object_set(ci, jv_string("kappa"), isnan(c.kappa) ? jv_null() : interval(&b[RAG_AGREE_CI_KAPPA]));
	} else {
		const char *r = n ? "the labels are graded (not 0/1): see spearman and kendall_tau_b" : "no pairs";
		static const char *const keys[] = {"auc", "accuracy", "precision", "recall", "f1", "kappa", "confusion", "best", NULL};
		for (i = 0; keys[i]; i++) {
			s = jv_object_set(s, jv_string(keys[i]), jv_null());
			if (i < 6) why = jv_object_set(why, jv_string(keys[i]), jv_string(r));
		}
	}
	ci = jv_object_set(ci, jv_string("confidence"), jv_number(o->confidence));
	ci = jv_object_set(ci, jv_string("resamples"), jv_number(o->resamples));
	ci = jv_object_set(ci, jv_string("seed"), jv_number((double)o->seed));
	s = jv_object_set(s, jv_string("intervals"), ci);
	rag_agree_spearman(score, label, n, &v, &w);
	s = jv_object_set(s, jv_string("spearman"), num(v));
	if (isnan(v)) why = jv_object_set(why, jv_string("spearman"), jv_string(w));
	rag_agree_kendall(score, label, n, &v, &w);
	s = jv_object_set(s, jv_string("kendall_tau_b"), num(v));
	if (isnan(v)) why = jv_object_set(why, jv_string("kendall_tau_b"), jv_string(w));
	if (rag_agree_ppi(judge, nall, score, label, n, o->confidence, &e, &w) == 0) {
		int clipped = ppi_clip(&e, o);
		s = jv_object_set(s, jv_string("ppi"), JV_OBJECT(jv_string("estimate"), jv_number(e.estimate),
		                  jv_string("lo"), jv_number(e.lo), jv_string("hi"), jv_number(e.hi),
		                  jv_string("se"), jv_number(e.se), jv_string("judge_mean"), jv_number(e.judge_mean),
		                  jv_string("rectifier"), jv_number(e.rectifier), jv_string("human_mean"), jv_number(e.human_mean),
		                  jv_string("n_all"), jv_number((double)e.n_all), jv_string("n_labelled"), jv_number((double)e.n_labelled)));
		s = jv_object_set(s, jv_string("ppi"), jv_object_set(rag_json_get(jv_copy(s), "ppi"), jv_string("clipped"), jv_bool(clipped)));
	} else {
		s = jv_object_set(s, jv_string("ppi"), jv_null());
		why = jv_object_set(why, jv_string("ppi"), jv_string(w));
	}
	return jv_object_set(s, jv_string("null_reasons"), why);
}

jv rag_agree_length_bias(const double *score, const double *label, const double *len, size_t n)
{
	double *x = rag_xmalloc((n ? n : 1) * sizeof *x), *js = rag_xmalloc((n ? n : 1) * sizeof *js);
	double *hl = rag_xmalloc((n ? n : 1) * sizeof *hl), rj = NAN, rh = NAN;
	const char *w;
	size_t i, m = 0;
	jv why = jv_object(), o;
	for (i = 0; i < n; i++)
		if (!isnan(len[i])) {
			x[m] = len[i];
			js[m] = score[i];
			hl[m++] = label[i];
		}
	/* the reasons said here: rag_agree_spearman's name its arguments scores and labels */
	w = m < 2 ? "fewer than two pairs with an answer" : constant(x, m) ? "the answers are all of one length" : NULL;
	if (w || constant(js, m)) why = jv_object_set(why, jv_string("judge"), jv_string(w ? w : "the scores are constant"));
	else rag_agree_spearman(js, x, m, &rj, &w);
	w = m < 2 ? "fewer than two pairs with an answer" : constant(x, m) ? "the answers are all of one length" : NULL;
	if (w || constant(hl, m)) why = jv_object_set(why, jv_string("human"), jv_string(w ? w : "the labels are constant"));
	else rag_agree_spearman(hl, x, m, &rh, &w);
	o = JV_OBJECT(jv_string("unit"), jv_string("characters"), jv_string("measure"), jv_string("spearman"),
	              jv_string("pairs"), jv_number((double)m), jv_string("judge"), num(rj), jv_string("human"), num(rh),
	              jv_string("difference"), num(rj - rh));
	o = jv_object_set(o, jv_string("warn"), jv_bool(m >= RAG_AGREE_LENGTH_PAIRS && rj - rh > RAG_AGREE_LENGTH_BIAS));
	free(x);
	free(js);
	free(hl);
	return jv_object_set(o, jv_string("null_reasons"), why);
}

/* ---------------------------------------------------------------- renderers */
/* text from the input with control characters as "?" (a terminal is not told what to do) */
static void add_clean(rag_buf *b, const char *s)
{
	for (; *s; s++) rag_buf_add(b, (unsigned char)*s < 0x20 || *s == 0x7f ? "?" : s, 1);
}

static void add_num(rag_buf *b, jv s, const char *k)
{
	double x = rag_json_num(s, k);
	if (isnan(x)) rag_buf_adds(b, "null");
	else rag_buf_addf(b, "%.3f", x);
}

static void add_ci(rag_buf *b, jv s, const char *k)
{
	jv c = rag_json_get(rag_json_get(jv_copy(s), "intervals"), k);
	if (jv_get_kind(c) == JV_KIND_ARRAY)
		rag_buf_addf(b, "%s[%.3f, %.3f]", b->len && b->p[b->len - 1] == ' ' ? "" : " ", jv_number_value(jv_array_get(jv_copy(c), 0)),
		             jv_number_value(jv_array_get(jv_copy(c), 1)));
	jv_free(c);
}

static void add_why(rag_buf *b, jv s, const char *k)
{
	jv r = rag_json_get(rag_json_get(jv_copy(s), "null_reasons"), k);
	if (jv_get_kind(r) == JV_KIND_STRING) {
		rag_buf_adds(b, " (");
		add_clean(b, jv_string_value(r));
		rag_buf_adds(b, ")");
	}
	jv_free(r);
}

static const char *str_of(jv s, const char *k, char *buf, size_t n)
{
	return rag_json_str(s, k, buf, n);
}

/* The counts line: what was read, what was left out and why. */
static void add_counts(rag_buf *b, jv s, const char *first)
{
	const char *sep = first;
	static const struct { const char *k, *what; } left[] = {
		{"without_score", "without a score"}, {"without_label", "without a label"},
		{"bad_scores", "with a score that is not a number"}, {"bad_labels", "with a label that cannot be read"},
		{"unreadable", "unreadable (not a record)"}, {"labels_unmatched", "labels matching no record"},
		{"labels_duplicate", "labels given twice (the last kept)"},
		{"without_id", "without the id field"},
	};
	size_t i;
	rag_buf_addf(b, "%.0f records, %.0f pairs compared", rag_json_num(s, "records"), rag_json_num(s, "pairs"));
	for (i = 0; i < sizeof left / sizeof *left; i++) {
		double x = rag_json_num(s, left[i].k);
		if (x > 0) {
			rag_buf_addf(b, "%s%.0f %s", sep, x, left[i].what);
			sep = ", ";
		}
	}
}

/* length_bias's rho (lb borrowed) k: the number, or null and why */
static void add_rho(rag_buf *b, jv lb, const char *k)
{
	double v = rag_json_num(lb, k);
	if (!isnan(v)) {
		rag_buf_addf(b, "%.3f", v);
	} else {
		jv r = rag_json_get(rag_json_get(jv_copy(lb), "null_reasons"), k);
		rag_buf_addf(b, "null (%s)", jv_get_kind(r) == JV_KIND_STRING ? jv_string_value(r) : "undefined");
		jv_free(r);
	}
}

/* the length bias: a line, and a warning when the judge's rho is RAG_AGREE_LENGTH_BIAS over the
 * labels' (md: as Markdown) */
static void length_lines(rag_buf *b, jv s, int md)
{
	jv lb = rag_json_get(jv_copy(s), "length_bias");
	if (jv_get_kind(lb) == JV_KIND_OBJECT) {
		rag_buf_adds(b, md ? "\nLength bias (Spearman's rho with the answer's length in characters, over " :
		                     "\nlength bias      Spearman with the answer's length (characters), ");
		if (md) rag_buf_addf(b, "%.0f pairs): the judge ", rag_json_num(lb, "pairs"));
		else rag_buf_addf(b, "%.0f pairs: judge ", rag_json_num(lb, "pairs"));
		add_rho(b, lb, "judge");
		rag_buf_adds(b, md ? ", the labels " : ", labels ");
		add_rho(b, lb, "human");
		rag_buf_adds(b, md ? ".\n" : "");
		if (rag_json_true(lb, "warn"))
			rag_buf_addf(b, "%sthe judge's scores follow the answers' length more than the labels do (rho %.3f "
			             "against %.3f, more than %g apart): it may prefer longer answers%s",
			             md ? "\n> **Warning:** " : "\nwarning: ", rag_json_num(lb, "judge"), rag_json_num(lb, "human"),
			             RAG_AGREE_LENGTH_BIAS, md ? ".\n" : "");
	}
	jv_free(lb);
}

char *rag_agree_text(jv s)
{
	rag_buf b = {0};
	char buf[256];
	jv c = rag_json_get(jv_copy(s), "confusion"), best = rag_json_get(jv_copy(s), "best"),
	   p = rag_json_get(jv_copy(s), "ppi");
	rag_buf_adds(&b, "rag-agree: ");
	add_clean(&b, str_of(s, "field", buf, sizeof buf));
	rag_buf_adds(&b, " against ");
	add_clean(&b, str_of(s, "label", buf, sizeof buf));
	rag_buf_adds(&b, "\n");
	add_counts(&b, s, "; left out: ");
	rag_buf_addf(&b, "\nlabels: %s", str_of(s, "labels_kind", buf, sizeof buf));
	if (jv_get_kind(c) == JV_KIND_OBJECT)
		rag_buf_addf(&b, " (%.0f positive, %.0f negative)", rag_json_num(s, "positives"), rag_json_num(s, "negatives"));
	rag_buf_addf(&b, "\n\nROC AUC          ");
	add_num(&b, s, "auc"); add_ci(&b, s, "auc"); add_why(&b, s, "auc");
	rag_buf_addf(&b, "\nat threshold %g:", rag_json_num(s, "threshold"));
	rag_buf_adds(&b, "\n  accuracy       "); add_num(&b, s, "accuracy"); add_ci(&b, s, "accuracy"); add_why(&b, s, "accuracy");
	rag_buf_adds(&b, "\n  precision      "); add_num(&b, s, "precision"); add_why(&b, s, "precision");
	rag_buf_adds(&b, "\n  recall         "); add_num(&b, s, "recall"); add_why(&b, s, "recall");
	rag_buf_adds(&b, "\n  F1             "); add_num(&b, s, "f1"); add_ci(&b, s, "f1"); add_why(&b, s, "f1");
	rag_buf_adds(&b, "\n  Cohen's kappa  "); add_num(&b, s, "kappa"); add_ci(&b, s, "kappa"); add_why(&b, s, "kappa");
	if (jv_get_kind(c) == JV_KIND_OBJECT)
		rag_buf_addf(&b, "\n  confusion      judge yes: %.0f right, %.0f wrong; judge no: %.0f right, %.0f wrong"
		             "\n                 (tp %.0f, fp %.0f, fn %.0f, tn %.0f)",
		             rag_json_num(c, "tp"), rag_json_num(c, "fp"), rag_json_num(c, "tn"), rag_json_num(c, "fn"),
		             rag_json_num(c, "tp"), rag_json_num(c, "fp"), rag_json_num(c, "fn"), rag_json_num(c, "tn"));
	if (jv_get_kind(best) == JV_KIND_OBJECT)
		rag_buf_addf(&b, "\nbest threshold   %g (%s %.3f)", rag_json_num(best, "threshold"),
		             str_of(best, "optimise", buf, sizeof buf), rag_json_num(best, "value"));
	rag_buf_adds(&b, "\nSpearman         "); add_num(&b, s, "spearman"); add_why(&b, s, "spearman");
	rag_buf_adds(&b, "\nKendall tau-b    "); add_num(&b, s, "kendall_tau_b"); add_why(&b, s, "kendall_tau_b");
	length_lines(&b, s, 0);
	rag_buf_adds(&b, "\ncorrected mean   ");
	if (jv_get_kind(p) == JV_KIND_OBJECT)
		rag_buf_addf(&b, "%.3f [%.3f, %.3f] (judge mean %.3f over %.0f records, corrected by %.0f labelled%s)",
		             rag_json_num(p, "estimate"), rag_json_num(p, "lo"), rag_json_num(p, "hi"),
		             rag_json_num(p, "judge_mean"), rag_json_num(p, "n_all"), rag_json_num(p, "n_labelled"),
		             rag_json_true(p, "clipped") ? "; clipped to the labels' scale" : "");
	else {
		rag_buf_adds(&b, "null");
		add_why(&b, s, "ppi");
	}
	{
		jv ci = rag_json_get(jv_copy(s), "intervals");
		rag_buf_addf(&b, "\nintervals: %g%% bootstrap, %.0f resamples, seed %.0f; corrected mean: normal (CLT)\n",
		             100 * rag_json_num(ci, "confidence"), rag_json_num(ci, "resamples"), rag_json_num(ci, "seed"));
		jv_free(ci);
	}
	jv_free(c);
	jv_free(best);
	jv_free(p);
	rag_buf_add(&b, "", 1);
	return b.p;
}

/* a Markdown table cell: | escaped, line breaks as spaces, control characters as "?" */
static void add_cell(rag_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '|') rag_buf_adds(b, "\\|");
		else if (*s == '\n' || *s == '\r' || *s == '\t') rag_buf_adds(b, " ");
		else rag_buf_add(b, (unsigned char)*s < 0x20 || *s == 0x7f ? "?" : s, 1);
	}
}

static void md_row(rag_buf *b, jv s, const char *name, const char *k)
{
	rag_buf_addf(b, "| %s | ", name);
	add_num(b, s, k);
	rag_buf_adds(b, " | ");
	add_ci(b, s, k);
	rag_buf_adds(b, " | ");
	{
		jv r = rag_json_get(rag_json_get(jv_copy(s), "null_reasons"), k);
		if (jv_get_kind(r) == JV_KIND_STRING) add_cell(b, jv_string_value(r));
		jv_free(r);
	}
	rag_buf_adds(b, " |\n");
}

char *rag_agree_markdown(jv s)
{
	rag_buf b = {0};
	char buf[256];
	jv c = rag_json_get(jv_copy(s), "confusion"), best = rag_json_get(jv_copy(s), "best"),
	   p = rag_json_get(jv_copy(s), "ppi");
	rag_buf_adds(&b, "## Judge agreement: `");
	add_cell(&b, str_of(s, "field", buf, sizeof buf));
	rag_buf_adds(&b, "` against `");
	add_cell(&b, str_of(s, "label", buf, sizeof buf));
	rag_buf_adds(&b, "`\n\n");
	add_counts(&b, s, "; left out: ");
	rag_buf_addf(&b, ". Labels: %s.\n\n| measure | value | interval | why null |\n|---|---|---|---|\n",
	             str_of(s, "labels_kind", buf, sizeof buf));
	md_row(&b, s, "ROC AUC", "auc");
	md_row(&b, s, "accuracy", "accuracy");
	md_row(&b, s, "precision", "precision");
	md_row(&b, s, "recall", "recall");
	md_row(&b, s, "F1", "f1");
	md_row(&b, s, "Cohen's kappa", "kappa");
	md_row(&b, s, "Spearman", "spearman");
	md_row(&b, s, "Kendall tau-b", "kendall_tau_b");
	rag_buf_addf(&b, "\nAt threshold %g", rag_json_num(s, "threshold"));
	if (jv_get_kind(c) == JV_KIND_OBJECT)
		rag_buf_addf(&b, ":\n\n| | label yes | label no |\n|---|---|---|\n| judge yes | %.0f | %.0f |\n| judge no | %.0f | %.0f |\n",
		             rag_json_num(c, "tp"), rag_json_num(c, "fp"), rag_json_num(c, "fn"), rag_json_num(c, "tn"));
	else
		rag_buf_adds(&b, ": no confusion matrix.\n");
	if (jv_get_kind(best) == JV_KIND_OBJECT)
		rag_buf_addf(&b, "\nBest threshold for %s: %g (%.3f).\n", str_of(best, "optimise", buf, sizeof buf),
		             rag_json_num(best, "threshold"), rag_json_num(best, "value"));
	if (jv_get_kind(p) == JV_KIND_OBJECT)
		rag_buf_addf(&b, "\nCorrected mean (prediction-powered): **%.3f** [%.3f, %.3f]; the judge's mean %.3f over %.0f records, "
		             "corrected by %.0f labelled%s.\n", rag_json_num(p, "estimate"), rag_json_num(p, "lo"), rag_json_num(p, "hi"),
		             rag_json_num(p, "judge_mean"), rag_json_num(p, "n_all"), rag_json_num(p, "n_labelled"),
		             rag_json_true(p, "clipped") ? "; clipped to the labels' scale" : "");
	length_lines(&b, s, 1);
	jv_free(c);
	jv_free(best);
	jv_free(p);
	rag_buf_add(&b, "", 1);
	return b.p;
}

/* ---------------------------------------------------------------- the sheet */
static const char *const sheet_cols[] = {"id", "category", "score", "reason", "question", "answer", "contexts", "label", NULL};

/* a cell of the CSV sheet: quoted when it must be; a text a spreadsheet would run as a formula
 * with a ' first (rag_csv_protect), which --labels takes off again */
static void csv_cell(rag_buf *b, const char *s)
{
	const char *q = rag_csv_protect(s) ? "'" : "";
	if (!strpbrk(s, ",\"\r\n") && *s != ' ' && (!*s || s[strlen(s) - 1] != ' ')) {
		rag_buf_adds(b, q);
		rag_buf_adds(b, s);
		return;
	}
	rag_buf_adds(b, "\"");
	rag_buf_adds(b, q);
	for (; *s; s++) rag_buf_add(b, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
	rag_buf_adds(b, "\"");
}

char *rag_agree_sheet(jv rows, int markdown)
{
	rag_buf b = {0};
	size_t k;
	char buf[64];
	if (markdown) {
		rag_buf_adds(&b, "|");
		for (k = 0; sheet_cols[k]; k++) rag_buf_addf(&b, " %s |", sheet_cols[k]);
		rag_buf_adds(&b, "\n|");
		for (k = 0; sheet_cols[k]; k++) rag_buf_adds(&b, "---|");
		rag_buf_adds(&b, "\n");
	} else {
		for (k = 0; sheet_cols[k]; k++) rag_buf_addf(&b, "%s%s", k ? "," : "", sheet_cols[k]);
		rag_buf_adds(&b, "\r\n");
	}
	jv_array_foreach(rows, i, r) {
		if (markdown) rag_buf_adds(&b, "|");
		for (k = 0; sheet_cols[k]; k++) {
			const char *v = rag_json_str(r, sheet_cols[k], buf, sizeof buf);
			jv sv = rag_json_get(jv_copy(r), sheet_cols[k]);
			if (jv_get_kind(sv) == JV_KIND_STRING) v = jv_string_value(sv);
			if (markdown) {
				rag_buf_adds(&b, " ");
				add_cell(&b, v);
				rag_buf_adds(&b, " |");
			} else {
				if (k) rag_buf_adds(&b, ",");
				csv_cell(&b, v);
			}
			jv_free(sv);
		}
		rag_buf_adds(&b, markdown ? "\n" : "\r\n");
		jv_free(r);
		(void)i;
	}
	rag_buf_add(&b, "", 1);
	return b.p;
}
