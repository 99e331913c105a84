/* agree.c - how far a judge agrees with people (rag-agree(1)): ROC AUC, the measures of a
 * threshold and Cohen's kappa, rank correlations for graded labels, bootstrap intervals, the
 * prediction-powered estimate of a mean, and the stratified sample of records to label.
 *
 * Every function returns a number only where the definition gives one: a measure with a zero
 * denominator (one class only, constant scores, no pairs) is NAN with the reason, never a
 * stand-in such as 0 or 0.5. Sums run in a fixed order, and the draws are rag_rng's, so the same
 * input and seed give the same figures on every machine. */
#include "rag.h"

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
int rag_agree_auc(const double *score, const double *label, size_t n, double *auc, const char **why)
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

double rag_agree_kappa(long tp, long fp, long fn, long tn)
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

void rag_agree_classify(const double *score, const double *label, size_t n, double threshold,
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

const char *rag_agree_measure_name(int measure)
{
	return measure == RAG_AGREE_F1 ? "f1" : measure == RAG_AGREE_ACCURACY ? "accuracy" : "youden";
}

int rag_agree_best_threshold(const double *score, const double *label, size_t n, int measure,
                             double *threshold, double *value)
{
	double *s;
	size_t i;
	int found = 0;
	*threshold = *value = NAN;
	if (!n) return -1;
	s = rag_xmalloc(n * sizeof *s);
	memcpy(s, score, n * sizeof *s);
	rag_stats_sort(s, n);
	/* every distinct score is a threshold that changes the predictions; ascending, and only a
	 * strictly better value moves it, so of equal ones the lowest is kept */
	for (i = 0; i < n; i++) {
		rag_agree_cls c;
		double v;
		if (i && s[i] == s[i - 1]) continue;
		rag_agree_classify(score, label, n, s[i], &c);
		v = measure_of(&c, measure);
		if (isnan(v)) continue;
		if (!found || v > *value) {
			*threshold = s[i];
			*value = v;
			found = 1;
		}
	}
	free(s);
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

int rag_agree_spearman(const double *x, const double *y, size_t n, double *rho, const char **why)
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

int rag_agree_kendall(const double *x, const double *y, size_t n, double *tau, const char **why)
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

int rag_agree_bootstrap(const double *score, const double *label, size_t n, double threshold,
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
double rag_agree_z(double confidence)
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

int rag_agree_ppi(const double *judge_all, size_t nall, const double *judge_lab, const double *human_lab,
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
jv rag_agree_path(jv rec, const char *path)
{
	jv v = rag_json_get(jv_copy(rec), path);   /* a key with a dot in it first */
	const char *p = path;
	if (jv_is_valid(v)) return v;
	jv_free(v);
	v = jv_copy(rec);
	while (jv_is_valid(v)) {
		const char *dot = strchr(p, '.');
		char *k = dot ? rag_xstrndup(p, (size_t)(dot - p)) : rag_xstrdup(p);
		v = rag_json_get(v, k);
		free(k);
		if (!dot) break;
		p = dot + 1;
	}
	return v;
}

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
