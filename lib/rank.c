/* rank.c - ranking metrics over one relevance vector: average precision (context precision),
 * precision, recall, hit, reciprocal rank, nDCG and R-precision at a cut-off.
 *
 * The conventions are those of rag-ap(1); the ones that matter for the numbers:
 *  - positions past the end of the list are non-relevant, and precision@k divides by k
 *    (trec_eval's P_k), so a list shorter than k cannot score 1;
 *  - context precision (RAGAS) divides by the relevant items in the top k and is 0, not
 *    undefined, when there are none; average precision (trec_eval's map) divides by every
 *    relevant item known and is undefined when there is none;
 *  - no 1e-10 in any denominator: the exact value or undefined, never a value near 0/0. */
#include "base.h"
#include "rank.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *spec;         /* what -m accepts */
	int kind;
	const char *name;         /* what scores.<name> is called */
} names[] = {
	{"ap", RAG_RANK_AP, "context_precision"},
	{"context_precision", RAG_RANK_AP, "context_precision"},
	{"map", RAG_RANK_MAP, "average_precision"},
	{"average_precision", RAG_RANK_MAP, "average_precision"},
	{"p", RAG_RANK_P, "precision"},
	{"precision", RAG_RANK_P, "precision"},
	{"recall", RAG_RANK_RECALL, "recall"},
	{"hit", RAG_RANK_HIT, "hit"},
	{"success", RAG_RANK_HIT, "hit"},
	{"mrr", RAG_RANK_RR, "mrr"},
	{"rr", RAG_RANK_RR, "mrr"},
	{"ndcg", RAG_RANK_NDCG, "ndcg"},
	{"rprec", RAG_RANK_RPREC, "r_precision"},
	{"r_precision", RAG_RANK_RPREC, "r_precision"},
};

int rag_rank_metric_parse(const char *spec, rag_rank_metric *m, char *err, size_t errlen)
{
	const char *at = strchr(spec, '@');
	size_t len = at ? (size_t)(at - spec) : strlen(spec), i;
	long k = 0;
	memset(m, 0, sizeof *m);
	if (at) {
		char *end;
		if (at[1] < '1' || at[1] > '9') goto badk;
		k = strtol(at + 1, &end, 10);
		if (*end || k < 1 || k > 1000000) goto badk;
	}
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strlen(names[i].spec) == len && strncmp(names[i].spec, spec, len) == 0) {
			if (names[i].kind == RAG_RANK_RPREC && k) {
				snprintf(err, errlen, "metric \"%s\" takes no @k (its cut-off is the number of relevant items)", spec);
				return -1;
			}
			m->kind = names[i].kind;
			m->k = k;
			if (k) snprintf(m->name, sizeof m->name, "%s@%ld", names[i].name, k);
			else snprintf(m->name, sizeof m->name, "%s", names[i].name);
			return 0;
		}
	}
	snprintf(err, errlen, "unknown metric \"%.*s\" (known: ap, map, p@K, recall@K, hit@K, mrr, ndcg@K, rprec)",
	         (int)(len > 60 ? 60 : len), spec);
	return -1;
badk:
	snprintf(err, errlen, "metric \"%.80s\": the cut-off after @ must be a whole number from 1", spec);
	return -1;
}

static int relevant(const rag_rank_list *l, double g)
{
	return l->level > 0 ? g >= l->level : g > 0;
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x > y ? -1 : x < y;
}

/* Discounted cumulative gain of the first k gains (trec_eval: gain / log2(rank + 1)); gains
 * below zero count as zero. */
static double dcg(const double *g, size_t n, size_t k)
{
	double s = 0;
	size_t i;
	for (i = 0; i < n && i < k; i++)
		if (g[i] > 0) s += g[i] / log2((double)i + 2);
	return s;
}

long rag_rank_nrel(const rag_rank_list *l)
{
	long r = 0;
	size_t i;
	for (i = 0; i < l->nideal; i++) r += relevant(l, l->ideal[i]);
	return r;
}

int rag_rank_eval(const rag_rank_metric *m, const rag_rank_list *l, double *value, const char **why)
{
	size_t n = l->n, k = m->k > 0 ? (size_t)m->k : n, cut = k < n ? k : n, i;
	long R = rag_rank_nrel(l), hits = 0;
	double sum = 0;

	*value = 0;
	*why = NULL;
	switch (m->kind) {
	case RAG_RANK_AP:
	case RAG_RANK_MAP:
		for (i = 0; i < cut; i++) {
			if (relevant(l, l->gain[i])) {
				hits++;
				sum += (double)hits / (double)(i + 1);
			}
		}
		if (m->kind == RAG_RANK_AP) {
			/* no useful item ranked: the worst ranking there is, not an undefined one */
			*value = hits ? sum / (double)hits : 0;
			return 0;
		}
		if (R == 0) goto norel;
		*value = sum / (double)R;
		return 0;
	case RAG_RANK_P:
		if (k == 0) {
			*why = "the list is empty";
			return 1;
		}
		for (i = 0; i < cut; i++) hits += relevant(l, l->gain[i]);
		*value = (double)hits / (double)k;
		return 0;
	case RAG_RANK_RECALL:
		if (R == 0) goto norel;
		for (i = 0; i < cut; i++) hits += relevant(l, l->gain[i]);
		*value = (double)hits / (double)R;
		return 0;
	case RAG_RANK_HIT:
		for (i = 0; i < cut; i++) hits += relevant(l, l->gain[i]);
		*value = hits > 0;
		return 0;
	case RAG_RANK_RR:
		for (i = 0; i < cut; i++) {
			if (relevant(l, l->gain[i])) {
				*value = 1.0 / (double)(i + 1);
				break;
			}
		}
		return 0;
	case RAG_RANK_NDCG: {
		double *ideal, best;
		if (m->k <= 0) k = n > l->nideal ? n : l->nideal;
		ideal = rag_xmalloc((l->nideal ? l->nideal : 1) * sizeof *ideal);
		if (l->nideal) memcpy(ideal, l->ideal, l->nideal * sizeof *ideal);
		qsort(ideal, l->nideal, sizeof *ideal, cmp_desc);
		best = dcg(ideal, l->nideal, k);
		free(ideal);
		if (best <= 0) goto norel;
		*value = dcg(l->gain, n, k) / best;
		return 0;
	}
	case RAG_RANK_RPREC:
		if (R == 0) goto norel;
		for (i = 0; i < n && i < (size_t)R; i++) hits += relevant(l, l->gain[i]);
		*value = (double)hits / (double)R;
		return 0;
	}
	*why = "unknown metric";
	return 1;
norel:
	*why = "there is no relevant item to find";
	return 1;
}
