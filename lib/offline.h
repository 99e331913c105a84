/* offline.h - the offline, deterministic judge, no network: claims from a text
 * (claimsplit.c), whether a claim is supported (claimcheck.c), vectors, cosine and the offline
 * embedder (vec.c). Layer 3 (HACKING.md). */
#ifndef RAG_OFFLINE_H
#define RAG_OFFLINE_H

#include <stddef.h>

#include <jv.h>

#include "base.h"

/* ---------------------------------------------------------------- claimsplit.c */
/* The offline, deterministic judge, no network, in two files: claimsplit.c cuts claims,
 * claimcheck.c checks them.
 * Split text into at most max_claims atomic claims (sentences, then clauses at ; and CJK
 * punctuation, and coordinated clauses), drop refusals, fillers and questions, and resolve a
 * leading pronoun with the question's subject where it can. max_claims <= 0: no cap. question
 * (may be NULL) and text borrowed. Returns a jv array of distinct single-line strings (possibly
 * empty). */
jv rag_offline_claims(const char *question, const char *text, int max_claims);
/* Append the sentences of s (valid UTF-8, borrowed) to out: cut at . ! ? (not at decimals,
 * abbreviations or initials), at CJK sentence ends and at newlines; each keeps its final
 * punctuation, whitespace runs become one space, markdown ** goes and empty ones are dropped.
 * With markers, list markers ("- ", "1. ", "## ") are dropped too, as in answers, where they
 * are layout; contexts keep them, where "1." may be data. A Markdown table row is one sentence,
 * never cut inside, and so is a bold label at the start of a line ("**Speed, not size**:
 * ..."); with markers, titles are dropped: # headings and bold labels that do not end as a
 * sentence does, bold lines, a table's header and separator rows. */
void rag_offline_sentences(const char *s, rag_strv *out, int markers);

/* ---------------------------------------------------------------- claimcheck.c */
/* Verdicts for each claim against the contexts (array of strings). Consumes claims and contexts.
 * Returns an array with one object per claim, in order:
 *   {"claim": claim, "verdict": true|false, "reason": "...", "context": index-or-null,
 *    "score": 0..1}
 * A claim is supported when the share of its content tokens (rag_text_tokens, less light words
 * such as "since" or "through") found in one context (or in all contexts together) is >=
 * threshold AND every number in the claim appears in that context (a month name also counts as
 * its number) with the words it qualifies (the sentences holding most of the claim's words
 * nearest it hold it, or no other number: "number 30 not with its words in context 1" where 30
 * is said of something else) AND the claim's negation agrees with the context sentence it matched best (or, for
 * a claim that denies something, with another sentence there that matches it at least half as
 * well and denies the same). A name of the claim (a capitalised word not starting a sentence,
 * not a month or weekday) is also found as a kin ("German" for "Germany"). "score" grades it:
 * the share found, times 0.5 per number missing, 0.25 for a negation that differs and 0.8 per
 * name the context (any context, for all together) lacks altogether. "context" is the
 * 0-based index of the context the reason names (the supporting one, or the closest one), null
 * when none; reasons count contexts from 1: "supported by context 2 (83% of content words)",
 * "number 20 not in context 1", "negation differs from context 1", "50% of content words found
 * in context 1 (below 60%)", "... in the contexts together ...", a name missing appended as
 * "; name Nepal not in it", "no contexts" (score 0). A threshold outside [0, 1] means 0.6. */
jv rag_offline_verify(jv claims, jv contexts, double threshold);

/* ---------------------------------------------------------------- vec.c */
/* Cosine similarity of two jv vectors (borrowed) into *out, in [-1, 1]; a zero vector has
 * similarity 0 with everything. -1 and err when they are not vectors, their sizes differ
 * ("dimension mismatch: ...") or the sums overflow. */
int rag_vec_cosine_jv(jv a, jv b, double *out, char *err, size_t errlen);
/* The offline embedder: a deterministic L2-normalised vector of dims numbers (<= 0: 512) from
 * hashed features of text: its lexical tokens (rag_text_tokens) and character n-grams (word
 * trigrams with boundary marks; single CJK characters). A text without features gives zeros. */
jv rag_vec_hashed(const char *text, int dims);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside vec.c and by tests/unit/t-vec.c: the reading of a vector and the cosine
 * of two arrays behind rag_vec_cosine_jv. Static in the library (RAG_UNITTEST, base.h): declared only when RAG_UNITTESTS
 * is defined, as for the unit tests' build of the library (obj/libragu.a). */
#ifdef RAG_UNITTESTS
/* The numbers of a jv array (borrowed), malloc'ed, count in *n; NULL unless a non-empty array of
 * finite numbers. */
double *rag_vec_from_jv(jv v, size_t *n);
/* Cosine similarity of a and b (n numbers each) into *out, in [-1, 1]; a zero vector has
 * similarity 0 with everything. -1 when the sums overflow. */
int rag_vec_cosine(const double *a, const double *b, size_t n, double *out);
#endif /* RAG_UNITTESTS */

#endif
