/* agree.h - a judge against human labels (agree.c, rag-agree(1)). Layer 7 (HACKING.md). */
#ifndef RAG_AGREE_H
#define RAG_AGREE_H

#include <stddef.h>
#include <stdint.h>

#include <jv.h>

/* ---------------------------------------------------------------- agree.c */
/* A judge's scores against people's labels (rag-agree(1)). A label is positive when above 0.5;
 * a prediction when its score is at or above the threshold. A measure the definition leaves
 * undefined (a zero denominator) is NAN, with *why (static text) where a function takes it. */
enum { RAG_AGREE_F1 = 0, RAG_AGREE_ACCURACY, RAG_AGREE_YOUDEN };
int rag_agree_measure_parse(const char *s);       /* "f1", "accuracy", "youden"; -1 else */
/* A stratified sample of want of the n records to label: strata are score bands (0.25, 0.5,
 * 0.75 cuts for scores in [0, 1], else the scores' quartiles) x category (NULL: none); one per
 * stratum when want allows (else the largest strata), the rest in proportion, largest
 * remainders first; seeded draws within each. The indexes chosen go to picked (room for want),
 * in input order; returns how many. */
size_t rag_agree_sample(const double *score, const char *const *category, size_t n, size_t want,
                        uint64_t seed, size_t *picked);
/* v (borrowed) as a number: a number, true 1 / false 0, a string of a number or yes/no, y/n,
 * true/false, pass/fail (any case), 是/否. 0 ok; 1 absent (invalid, null, an empty string);
 * -1 a value of another kind. */
int rag_agree_value(jv v, double *x);

/* The summary of pairs (score[i], label[i]) and of every judge score (judge[0..nall), for the
 * corrected mean): rag-agree(1) --json's fields from pairs on, with null_reasons {measure:
 * why} for each null. Arrays borrowed. */
typedef struct rag_agree_opts {
	double threshold, confidence;
	int optimise, resamples;  /* RAG_AGREE_F1...; bootstrap resamples */
	uint64_t seed;
	/* the labels' scale (--scale): the corrected mean estimates a mean of labels, so it and its
	 * interval are clipped to it (ppi.clipped says when); scale_lo >= scale_hi: [0, 1] */
	double scale_lo, scale_hi;
} rag_agree_opts;
jv rag_agree_summary(const double *score, const double *label, size_t n, const double *judge, size_t nall,
                     const rag_agree_opts *o);
/* The judge's length bias (rag-agree(1) LENGTH BIAS): Spearman's rho of the answers' length
 * len[i] (characters: Unicode code points; NAN: the record has no answer) with the judge's
 * score[i], beside the same with the human label[i], over the pairs with a length. {unit:
 * "characters", measure: "spearman", pairs, judge, human, difference: judge - human, warn:
 * difference > RAG_AGREE_LENGTH_BIAS over RAG_AGREE_LENGTH_PAIRS pairs or more (fewer are too
 * few to tell a bias from chance), null_reasons}; a rho undefined is null with its reason.
 * Arrays borrowed. */
#define RAG_AGREE_LENGTH_BIAS 0.2
#define RAG_AGREE_LENGTH_PAIRS 5
jv rag_agree_length_bias(const double *score, const double *label, const double *len, size_t n);
/* The summary (borrowed, with the tool's counts added: records, field, label...) as text or
 * Markdown; control characters from the input are "?". malloc'ed. */
char *rag_agree_text(jv s);
char *rag_agree_markdown(jv s);
/* The sheet of records to label (rows borrowed: objects with id, category, score, reason,
 * question, answer, contexts as strings or numbers): CSV (RFC 4180, CRLF) or a Markdown table,
 * the columns in that order and an empty label column last. malloc'ed. */
char *rag_agree_sheet(jv rows, int markdown);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside agree.c and by tests/unit/t-agree.c: the measures rag_agree_summary computes,
 * each checked against its reference values. Static in the library (RAG_UNITTEST, base.h): declared
 * only when RAG_UNITTESTS is defined, as for the unit tests' build of the library (obj/libragu.a). */
/* The measures' types, which agree.c uses too. */
typedef struct rag_agree_cls {
	long tp, fp, fn, tn;      /* the confusion matrix: judge positive / negative x label */
	double accuracy, precision, recall, specificity, f1, kappa;
} rag_agree_cls;
enum { RAG_AGREE_CI_AUC = 0, RAG_AGREE_CI_ACCURACY, RAG_AGREE_CI_F1, RAG_AGREE_CI_KAPPA, RAG_AGREE_NCI };
typedef struct rag_agree_ci { double lo, hi; long defined; } rag_agree_ci;
typedef struct rag_agree_ppi_est {
	double estimate, lo, hi, se, judge_mean, rectifier, human_mean;
	size_t n_all, n_labelled;
} rag_agree_ppi_est;
#ifdef RAG_UNITTESTS
/* ROC AUC as the Mann-Whitney U over the product of the class sizes, a tie counting half
 * (scikit-learn's roc_auc_score). -1 and why with one class only or no pairs. */
int rag_agree_auc(const double *score, const double *label, size_t n, double *auc, const char **why);
void rag_agree_classify(const double *score, const double *label, size_t n, double threshold,
                        rag_agree_cls *c);
/* Cohen's kappa of a 2x2 table (NAN when chance agreement is 1: both sides one constant). */
double rag_agree_kappa(long tp, long fp, long fn, long tn);
/* The threshold, among the distinct scores, that maximises measure (of equal ones the lowest),
 * with its value; -1 when the measure is undefined at every one. */
int rag_agree_best_threshold(const double *score, const double *label, size_t n, int measure,
                             double *threshold, double *value);
/* Spearman's rho (Pearson's r of average ranks) and Kendall's tau-b; -1 and why for fewer than
 * two pairs or a constant side. */
int rag_agree_spearman(const double *x, const double *y, size_t n, double *rho, const char **why);
int rag_agree_kendall(const double *x, const double *y, size_t n, double *tau, const char **why);
/* Percentile bootstrap intervals (rag_rng seeded with seed, pairs drawn with replacement) of
 * AUC, accuracy, F1 and kappa at threshold; a resample where a measure is undefined is left out
 * of its interval (defined counts the rest). -1 when n is 0 or an argument is out of range. */
int rag_agree_bootstrap(const double *score, const double *label, size_t n, double threshold,
                        int resamples, double confidence, uint64_t seed, rag_agree_ci ci[RAG_AGREE_NCI]);
/* The two-sided normal quantile of confidence (0.95: 1.959964); NAN out of (0, 1). */
double rag_agree_z(double confidence);
/* Prediction-powered inference of a mean (Angelopoulos et al. 2023; ARES): the judge's mean
 * over all nall records minus the mean of judge - human over the nlab labelled ones, with the
 * CLT interval estimate +- z sqrt(var(judge_all)/nall + var(judge - human)/nlab) (sample
 * variances). -1 and why with fewer than two on either side. */
int rag_agree_ppi(const double *judge_all, size_t nall, const double *judge_lab, const double *human_lab,
                  size_t nlab, double confidence, rag_agree_ppi_est *e, const char **why);
#endif /* RAG_UNITTESTS */

#endif
