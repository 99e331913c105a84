/* metric.h - the metric operations, one a file (claims.c, verify.c, correctness.c, chunks.c,
 * revq.c, rubric.c), each rag_<operation>_ask over the judge. Layer 5 (HACKING.md). */
#ifndef RAG_METRIC_H
#define RAG_METRIC_H

#include <stddef.h>

#include <jv.h>

#include "config.h"
#include "usage.h"
#include "judge.h"

/* The metric operations, one a file: each asks the judge (rag_judge_ask) or answers offline, and
 * hands its result to cb exactly once (at once when offline or when nothing needs asking).
 * usage is updated as calls complete and must stay valid until cb has run. question may be
 * NULL. Each LLM operation's descriptor is rag_op_<name> (hand it to rag_judge_new). */

/* ---------------------------------------------------------------- op.c */
/* The registry of the LLM operations (their descriptors, rag_op, each in its own file; the list
 * is made from the library's sources: mk/ops.sh): the operation whose metric tool is tool
 * ("rag-complete"), NULL when none. */
const rag_op *rag_op_tool(const char *tool);

/* ---------------------------------------------------------------- claims.c */
extern const rag_op rag_op_claims;          /* prompt "claims" */
/* Split text into at most max_claims claims (prompt "claims"): cb gets an array of distinct
 * one-line strings (possibly empty). text and question borrowed. */
void rag_claims_ask(rag_judge *j, const char *lang, const char *question, const char *text,
                    int max_claims, rag_usage *usage, rag_judge_cb cb, void *arg);

/* ---------------------------------------------------------------- verify.c */
/* prompts "verify" (verify.mode batched), "verifier" (claim, claim_chunk: a bare Yes or No),
 * "faithfulness" (--one-request: claims and verdicts together) */
extern const rag_op rag_op_verify, rag_op_verifier, rag_op_faithfulness;
/* Is each claim (array of strings, consumed) supported by the contexts (array of strings,
 * consumed)? Prompt "verify". cb gets one {claim, verdict, reason} per claim, in order: no
 * request when there are no claims (an empty array) or no contexts (every claim unsupported,
 * "no contexts were retrieved"). verify.literal_match and verify.recheck_chunks as rag-config(5). */
void rag_verify_ask(rag_judge *j, const char *lang, const char *question, jv claims, jv contexts,
                    rag_usage *usage, rag_judge_cb cb, void *arg);
/* The score of verdicts (borrowed: what rag_verify_ask gives): the mean of each verdict's graded
 * score where it has one (offline), else of 1 for yes and 0 for no, into *score. -1 when there
 * are none: nothing was claimed, so there is nothing to score (not applicable, as RAGAS's NaN,
 * never a free 1). */
int rag_verify_score(jv verdicts, double *score);

/* Faithfulness in one request (prompt "faithfulness"): the answer (borrowed) split into at most
 * max_claims claims and each judged against the contexts (consumed) by the same reply. cb gets
 * what rag_verify_ask gives, {claim, verdict, reason} per claim. No contexts: the claims alone
 * (prompt "claims"), each unsupported; offline: rag_offline_claims, then rag_offline_verify. */
void rag_verify_answer_ask(rag_judge *j, const char *lang, const char *question, const char *answer, jv contexts,
                           int max_claims, rag_usage *usage, rag_judge_cb cb, void *arg);

/* ---------------------------------------------------------------- correctness.c */
extern const rag_op rag_op_correctness;
/* answer_correctness (RAGAS): the answer's claims (aclaims) judged against the reference, the
 * reference's claims (rclaims) against the answer, both lists in one request (prompt
 * "correctness"; offline: rag_offline_verify of each claim against the other text). Both
 * arrays of strings consumed, texts borrowed. cb gets one object per claim, the answer's first:
 * {claim, source: "answer"|"reference", class: "tp"|"fp" (answer claims supported by the
 * reference or not) | "covered"|"fn" (reference claims the answer has or misses), verdict,
 * reason}. No request when either list is empty (every claim of the other then fp or fn). */
void rag_correctness_ask(rag_judge *j, const char *lang, const char *question, const char *answer,
                         const char *reference, jv aclaims, jv rclaims, rag_usage *usage, rag_judge_cb cb,
                         void *arg);
/* The factual F1 of the counts: tp / (tp + 0.5 (fp + fn)), 1 when all three are 0. */
double rag_correctness_f1(int tp, int fp, int fn);
/* The weighted mean of the factual F1 and the similarity, (wf f + ws s) / (wf + ws); with
 * ws 0 the F1 alone (similarity unused), with wf 0 the similarity alone. */
double rag_correctness_score(double factual, double similarity, double factual_weight, double similarity_weight);

/* ---------------------------------------------------------------- chunks.c */
extern const rag_op rag_op_chunks;
/* Judge whether each retrieved chunk (contexts: array of strings, consumed) was useful for
 * target: the reference answer when reference is 1 (context precision), else the answer given
 * (context utilization). All chunks in one request, more only when they exceed
 * verify.batch_chars; prompt "chunks". The
 * offline judge: a score per chunk, the harmonic mean of the shares of the question's distinct
 * content words and of the target's words beyond the question's found in the chunk (the target's share
 * alone without a question), useful at verify.chunk_threshold or more. cb gets an array of
 * {chunk, verdict, reason} in retrieval order (offline also score, a number from 0 to 1; []
 * for no chunks, without a request), or null and an error. question may be NULL. */
void rag_chunks_ask(rag_judge *j, const char *lang, const char *question, const char *target, int reference,
                    jv contexts, rag_usage *usage, rag_judge_cb cb, void *arg);
/* The question less the words that ask (what, how many, what year; 什么, 哪里, 多少, 吗), which
 * no answer or chunk holds: what it is about (the offline judges' question words). Chinese
 * asking words become a space, so that no bigram spans them. Free the result. */
char *rag_chunks_subject(const char *question);

/* ---------------------------------------------------------------- revq.c */
extern const rag_op rag_op_revq;
/* Refusal phrasings, one a line ('#' comments), folded (NFKC, case, apostrophes, blanks) for
 * rag_revq_noncommittal. Invalid jv and err when the file cannot be read. */
jv rag_revq_refusals_load(const char *path, char *err, size_t errlen);
/* Nonzero when the answer (folded) contains one of the phrases (borrowed), or is blank. */
int rag_revq_noncommittal(jv phrases, const char *answer);
/* How rag_revq_ask gets its n questions: one request asking for all n (a list); one request
 * with the endpoint's "n" (n choices of one question each; what an endpoint that ignores "n"
 * leaves out is asked for in separate requests); or n separate requests of one question. */
enum rag_revq_mode { RAG_REVQ_LIST = 0, RAG_REVQ_N, RAG_REVQ_REQUESTS };
/* Ask the judge (prompt "revq", loaded beforehand) for n questions the answer would answer, and
 * whether it is noncommittal (when any generation says so). mode: enum rag_revq_mode. cb gets
 * {"generated": [strings], "noncommittal": bool} or an error. Not for the offline judge. */
void rag_revq_ask(rag_judge *j, const char *lang, const char *answer, int n, int mode,
                  rag_usage *usage, rag_judge_cb cb, void *arg);
/* The offline estimate of answer relevancy, with no model and no echo: 0 when the answer adds
 * no content word to the question's (it only repeats it); else the share of the question's
 * content words (less its asking words: how many, what year, 哪里, 多少) in the answer, halved
 * when the question's words ask for a kind of answer
 * (when/how many/who/where/why; 什么时候, 多少, 为什么...) that the answer does not give, and
 * raised halfway to 1 by a yes or no to a yes-no question. A short answer with none of the
 * question's words: 1 when it gives the kind asked for, 0.25 when not, 0.5 when the question
 * asks for no particular kind (offline cannot tell). why gets a sentence. */
double rag_revq_offline(const char *question, const char *answer, char *why, size_t whylen);

/* ---------------------------------------------------------------- rubric.c */
extern const rag_op rag_op_rubric;          /* no offline answer: rag-judge refuses */
/* rag-judge's rubrics: the built-in ones (correctness, relevance, completeness,
 * groundedness_0_10, consistent; rag-judge(1)) and those of the configuration's rubrics
 * section, which win over a built-in one of the same name. Prompt "rubric". */
typedef struct rag_rubric rag_rubric;
/* The rubric called name (cfg borrowed, not kept): NULL and err when there is none. */
rag_rubric *rag_rubric_get(const rag_config *cfg, const char *name, char *err, size_t errlen);
void rag_rubric_free(rag_rubric *r);
const char *rag_rubric_builtins(void);          /* "correctness, relevance, ...": static */
const char *rag_rubric_name(const rag_rubric *r);
int rag_rubric_scale(const rag_rubric *r);      /* enum rag_scale */
/* The fields the rubric shows the judge, read from rec (borrowed): 0 and *values, an array in
 * the rubric's field order (contexts an array of strings, the others strings); 1 when the
 * rubric does not apply by its definition (it reads the reference and the record has none), *na
 * the reason (static); -1 and err for a missing or mistyped field. */
int rag_rubric_inputs(const rag_rubric *r, jv rec, jv *values, const char **na, char *err, size_t errlen);
/* Ask the judge to score the values (consumed, from rag_rubric_inputs) against the rubric, as
 * repeat `repeat` of the question (0 the first; llm.seed + repeat, rag_llm_opts). cb gets
 * {"score", "reason"} as rag_rubric_check gives it, or an error. Not for the offline judge. */
void rag_rubric_ask(rag_judge *j, const char *lang, const rag_rubric *r, jv values, int repeat,
                    rag_usage *usage, rag_judge_cb cb, void *arg);
/* A score on the scale in [0, 1]: 0-10 s / 10, 1-5 (s - 1) / 4, yes/no 1 or 0. */
double rag_rubric_normalise(int scale, double s);
/* verdicts.<rubric> from n >= 1 scores on the scale (repeats in order) and the first reason:
 * {score: the mean, scale, reason, pass (yes/no: more yes than no)}, and with n > 1 repeats,
 * stdev (the sample's, n - 1) and, when threshold (normalised) is not NAN or the scale is
 * yes/no, flip: whether the normalised repeats fall on both sides of it (equal passes). */
jv rag_rubric_verdict(const rag_rubric *r, const double *scores, int n, const char *reason, double threshold);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside rubric.c and by tests/unit/t-rubric.c: a rubric's fields, and the reply check
 * rag_rubric_ask hands the judge; and by tests/unit/t-op.c alone, op.c's whole registry (the
 * library looks an operation up by its tool, rag_op_tool), defined for the unit tests' build
 * alone. Static in the library (RAG_UNITTEST, base.h): declared only when RAG_UNITTESTS is
 * defined, as for the unit tests' build of the library (obj/libragu.a). */
#ifdef RAG_UNITTESTS
/* The registry: every operation, NULL-terminated, in the order of their files' names and of the
 * definitions in each; and one by name (its prompt's), NULL when none. */
const rag_op *const *rag_op_all(void);
const rag_op *rag_op_find(const char *name);
size_t rag_rubric_nfields(const rag_rubric *r);
const char *rag_rubric_field(const rag_rubric *r, size_t i);   /* canonical names: "question" */
/* The reply check (a rag_judge_check, expect being the scale): {"score", "reason"} with the
 * score on the scale (an integer in range; "yes" / "no" or a boolean for yes/no) and a reason
 * that is not blank -> *result {"score": number (yes 1, no 0), "reason": string}. */
const char *rag_rubric_check(jv reply, int scale, jv *result, char *problem, size_t plen);
#endif /* RAG_UNITTESTS */

#endif
