/* rank.h - ranking metrics (rank.c), the relevance of retrieved chunks (relevance.c), TREC
 * qrels and run files (trec.c). Layer 6 (HACKING.md). */
#ifndef RAG_RANK_H
#define RAG_RANK_H

#include <stddef.h>

#include <jv.h>

/* ---------------------------------------------------------------- rank.c */
/* Ranking metrics over one relevance vector (rag-ap(1) states the conventions). */
enum rag_rank_kind {
	RAG_RANK_AP = 1,          /* context precision (RAGAS): mean precision at the relevant ranks */
	RAG_RANK_MAP,             /* average precision (trec_eval map): the same sum over all relevant */
	RAG_RANK_P, RAG_RANK_RECALL, RAG_RANK_HIT, RAG_RANK_RR, RAG_RANK_NDCG, RAG_RANK_RPREC,
};
typedef struct rag_rank_metric {
	int kind;                 /* enum rag_rank_kind */
	long k;                   /* cut-off, 0 = the whole list */
	char name[48];            /* scores.<name>: "context_precision", "precision@5", "ndcg@10"... */
} rag_rank_metric;
/* The ranked list of one query. Positions past n are non-relevant. */
typedef struct rag_rank_list {
	const double *gain;       /* grade of each retrieved item in rank order, 0 = not relevant;
	                           * an item retrieved again counts 0 the second time (the caller's job) */
	size_t n;
	const double *ideal;      /* grades of every relevant item known, retrieved or not, any order */
	size_t nideal;
	double level;             /* relevant when grade >= level; level <= 0: when grade > 0 */
} rag_rank_list;
/* "ap", "map@10", "p@5", "recall@10", "hit@3", "mrr", "ndcg@10", "rprec" (and long names). */
int rag_rank_metric_parse(const char *spec, rag_rank_metric *m, char *err, size_t errlen);
/* 0 and *value, or 1 when the metric is undefined for this list, with *why (static text). */
int rag_rank_eval(const rag_rank_metric *m, const rag_rank_list *l, double *value, const char **why);
/* Number of relevant items known (ideal grades at or above the level). */
long rag_rank_nrel(const rag_rank_list *l);

/* ---------------------------------------------------------------- relevance.c */
/* The relevance vector of a record for rank.c: rag-ap(1) SOURCES. */
/* RAG_REL_AUTO: verdicts, then ids, then reference contexts (context precision's order);
 * RAG_REL_AUTO_IDS: ids, then verdicts, then reference contexts (every other metric's) */
enum { RAG_REL_AUTO = 0, RAG_REL_VERDICTS, RAG_REL_IDS, RAG_REL_SIMILARITY, RAG_REL_AUTO_IDS };
typedef struct rag_relevance {
	double *gain; size_t n;       /* per retrieved chunk, in retrieval order */
	double *ideal; size_t nideal; /* grades of every relevant item known */
	const char *source;           /* "verdicts", "ids" or "similarity" (static) */
	const char *ap_name;          /* name of average precision from this source: "context_precision",
	                               * or "context_utilization" from those verdicts (static) */
} rag_relevance;
/* The source metric m reads when source is asked (a --from): RAG_REL_AUTO becomes
 * RAG_REL_AUTO_IDS for every metric but context precision (RAG_RANK_AP), so that the ids a
 * record gives decide the ranking metrics and a judge's verdicts only where there are none. */
int rag_relevance_source(int source, const rag_rank_metric *m);
/* From source (RAG_REL_AUTO: the first present of verdicts.context_precision,
 * verdicts.context_utilization, relevant_ids, reference_contexts; RAG_REL_AUTO_IDS: relevant_ids
 * first; a relevant_ids that is null is absent). verdicts: the verdicts.<name>
 * to read (NULL: either of the two). threshold: least similarity for a relevant chunk. rec
 * borrowed. 0 ok; -1 input error; -2 the verdicts are null (an upstream judge failed; ap_name is
 * set); err set. */
int rag_relevance_get(jv rec, int source, const char *verdicts, double threshold, rag_relevance *r,
                      char *err, size_t errlen);
void rag_relevance_free(rag_relevance *r);
/* 1 - Levenshtein distance / longer length, over the code points of the normalised texts (NFKC,
 * case folded); 1 for two empty texts. Both borrowed. */
double rag_relevance_similarity(const char *a, const char *b);

/* ---------------------------------------------------------------- trec.c */
/* TREC qrels ("qid iter docno rel") and run ("qid Q0 docno rank score tag") files, ranked as
 * trec_eval ranks them: score descending, ties by docno descending; unjudged = not relevant.
 * The queries are those of the run that have judgments, in qid (strcmp) order. */
typedef struct rag_trec rag_trec;
rag_trec *rag_trec_load(const char *qrels, const char *run, char *err, size_t errlen);
size_t rag_trec_count(const rag_trec *t);
const char *rag_trec_qid(const rag_trec *t, size_t i);   /* borrowed */
/* The ranked list of query i (borrowed arrays, valid while t lives). */
void rag_trec_list(const rag_trec *t, size_t i, double level, rag_rank_list *l);
void rag_trec_free(rag_trec *t);

#endif
