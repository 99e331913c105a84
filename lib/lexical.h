/* lexical.h - string metrics with no model: ROUGE, BLEU, chrF, token F1... (lexical.c);
 * keywords (keywords.c). Layer 6 (HACKING.md). */
#ifndef RAG_LEXICAL_H
#define RAG_LEXICAL_H

#include <stddef.h>

#include <jv.h>

/* ---------------------------------------------------------------- lexical.c */
/* String metrics of a candidate text (the answer) against a reference, no model; rag-kw(1)
 * states each convention and the implementation it agrees with. Scores are in [0, 1]. */
typedef struct rag_prf { double precision, recall, f; } rag_prf;
/* Both texts (borrowed) cut into words once for ROUGE, token F1 and exact match: NFKC, case
 * folded, runs of letters and digits (on ASCII text exactly rouge_score's tokens), each CJK
 * character a word of its own; with stem, ASCII words longer than 3 Porter-stemmed
 * (rouge_score's use_stemmer). Lines (for ROUGE-Lsum) are kept. */
typedef struct rag_lex rag_lex;
rag_lex *rag_lex_new(const char *cand, const char *ref, int stem);
void rag_lex_free(rag_lex *x);
int rag_lex_rouge_n(const rag_lex *x, int n, rag_prf *out);  /* n in 1..9, else -1 */
void rag_lex_rouge_l(const rag_lex *x, rag_prf *out);    /* longest common subsequence */
void rag_lex_rouge_lsum(const rag_lex *x, rag_prf *out); /* union LCS over lines */
/* SQuAD's: the words without a, an, the; two texts without words agree. */
void rag_lex_token_f1(const rag_lex *x, rag_prf *out);
int rag_lex_exact_match(const rag_lex *x);
/* Nonzero when the normalised text (NFKC, case folded) contains the normalised needle. */
int rag_lex_contains(const char *text, const char *needle);
/* Regular expression search (Oniguruma, Perl syntax, as jq's test()): 0 and *match, or -1 and err
 * for a bad pattern. */
int rag_lex_regex(const char *text, const char *pattern, int *match, char *err, size_t errlen);

/* BLEU as sacrebleu: n-gram matches clipped by the most in one reference, the closest
 * reference length (of two as close, the shorter) for the brevity penalty. */
#define RAG_BLEU_MAX 9
enum { RAG_BLEU_13A = 0, RAG_BLEU_NONE, RAG_BLEU_ZH, RAG_BLEU_CHAR };      /* tokenize */
enum { RAG_SMOOTH_EXP = 0, RAG_SMOOTH_NONE, RAG_SMOOTH_FLOOR, RAG_SMOOTH_ADDK };
typedef struct rag_bleu_opts {
	int tokenize, lowercase, smooth;
	double smooth_value;      /* < 0: sacrebleu's default (floor 0.1, add-k 1) */
	int max_order;            /* 1..RAG_BLEU_MAX, default 4 */
	int effective_order;      /* default 1, as sacrebleu's sentence_bleu */
} rag_bleu_opts;
typedef struct rag_bleu_stats {
	double correct[RAG_BLEU_MAX], total[RAG_BLEU_MAX], sys_len, ref_len;
} rag_bleu_stats;           /* { 0 } is empty; sums over sentences make corpus BLEU */
void rag_bleu_opts_init(rag_bleu_opts *o);
/* The tokenizer for a text pair (RAG_BLEU_ZH or RAG_BLEU_13A): by lang (a record's "lang",
 * NULL when it has none: zh... and ja are written unspaced), else by script: zh where either
 * text holds a CJK character, which on text without one is 13a itself. */
int rag_bleu_tokenizer_for(const char *lang, const char *hyp, const char *ref);
void rag_bleu_stats_add(rag_bleu_stats *st, const char *hyp, const char *const *refs, size_t nrefs,
                        const rag_bleu_opts *o);
double rag_bleu_score(const rag_bleu_stats *st, const rag_bleu_opts *o);
/* chrF as sacrebleu: character n-grams (white space removed unless whitespace), F-beta of the
 * precision and recall averaged over the orders both texts have (eps_smoothing: the F of each
 * order averaged instead, sacrebleu's eps_smoothing); of several references, the best. */
#define RAG_CHRF_MAX 10
typedef struct rag_chrf_opts { int char_order; double beta; int whitespace, lowercase, eps_smoothing; } rag_chrf_opts;
typedef struct rag_chrf_stats { double v[3 * RAG_CHRF_MAX]; int order; } rag_chrf_stats;  /* { 0 } is empty */
void rag_chrf_opts_init(rag_chrf_opts *o);   /* order 6, beta 2 */
void rag_chrf_stats_add(rag_chrf_stats *st, const char *hyp, const char *const *refs, size_t nrefs,
                        const rag_chrf_opts *o);
double rag_chrf_score(const rag_chrf_stats *st, const rag_chrf_opts *o);

/* ---------------------------------------------------------------- keywords.c */
/* Keywords for rag-kw's keyword_overlap: English and numbers as rag_text_tokens (stemmed, no
 * stop words, numbers canonical); Chinese words by ICU's dictionary word segmentation (a
 * character it leaves single is a keyword of its own), without Chinese stop words. One object
 * per tool: it holds the ICU
 * break iterator. */
typedef struct rag_keywords rag_keywords;
rag_keywords *rag_keywords_new(char *err, size_t errlen);
void rag_keywords_free(rag_keywords *k);
/* Share of the reference's keywords found in the answer into *score: a Chinese keyword in its
 * text counts 1, else the share of its characters the answer holds in a bigram with their
 * neighbour in the reference; any other keyword 1 among its tokens. *found (counted 1),
 * *missed (0) and *partly ({keyword, share} for the others) are arrays, the caller's. -1
 * (score 0) when the reference has no keywords. Both texts borrowed. */
int rag_keywords_overlap(rag_keywords *k, const char *answer, const char *reference, double *score,
                         jv *found, jv *missed, jv *partly);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside lexical.c and by tests/unit/t-lexical.c: the words a text was cut into. Static
 * in the library (RAG_UNITTEST, base.h): declared only when RAG_UNITTESTS is defined, as for the
 * unit tests' build of the library (obj/libragu.a). */
#ifdef RAG_UNITTESTS
size_t rag_lex_count(const rag_lex *x, int ref);          /* words of the candidate (0) or reference */
#endif /* RAG_UNITTESTS */

#endif
