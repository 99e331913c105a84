/* gen.h - rag-gen's generation of test sets: documents in chunks (genchunk.c), questions
 * (gen.c), hard cases (genhard.c), the review sheet and the test-set check (genreview.c).
 * Layer 5 (HACKING.md). */
#ifndef RAG_GEN_H
#define RAG_GEN_H

#include <stddef.h>

#include <jv.h>

#include "usage.h"
#include "judge.h"

/* ---------------------------------------------------------------- genchunk.c */
/* rag-gen's documents in chunks: text (Markdown or plain, borrowed; invalid UTF-8 repaired) cut
 * at ATX headings ("## ...", not inside ``` fences), each heading opening its chunk, then
 * paragraphs (blank lines) joined while the chunk holds at most max_chars characters (<= 0:
 * 1500), a longer paragraph by its sentences (rag_offline_sentences), a longer sentence cut at
 * the limit. A chunk that is a heading alone is dropped. Returns an array of {"id", "text",
 * "heading"}: id "<path>#<first 8 hex digits of the SHA-256 of the text>" ("-2", "-3"... after
 * it for the same text again in the file), heading the section's (null before the first).
 * *title (when title is not NULL) gets the first heading's text, malloc'ed, or NULL. */
jv rag_gen_chunk_split(const char *path, const char *text, long max_chars, char **title);

/* ---------------------------------------------------------------- gen.c */
extern const rag_op rag_op_gen;
/* rag-gen's questions. Slot i (0-based) of a chunk's n has the difficulty rag_gen_difficulty(i)
 * (per five: easy, easy, medium, medium, hard) and the type rag_gen_type(i) (factual,
 * explanatory, factual, explanatory, comparative). Static strings. */
const char *rag_gen_difficulty(int i);
const char *rag_gen_type(int i);
/* Ask for n questions about one chunk (prompt "gen"; title and text borrowed): cb gets an array
 * of n {"question", "reference", "difficulty", "type"}, checked by rag_gen_check (a reply that
 * does not fit is re-asked once, then an error). Not for the offline judge. */
void rag_gen_ask(rag_judge *j, const char *lang, const char *title, const char *text, int n, rag_usage *usage,
                 rag_judge_cb cb, void *arg);
/* The offline, extractive generator (rag-gen(1) OFFLINE): up to n of the chunk's statements of
 * four tokens or more, each the reference of "What does the document say about <subject>?"
 * (Chinese: 文档中关于<subject>说了什么？), difficulty easy, type factual. text borrowed. */
jv rag_gen_offline(const char *text, int n);
/* A case's stable id, "gen-" and 16 hex digits of the SHA-256 of question "\n" chunk_id. */
char *rag_gen_id(const char *question, const char *chunk_id);
/* Jaccard similarity of the distinct tokens (rag_text_tokens) of a and b, 1 when both have none. */
double rag_gen_similarity(const char *a, const char *b);

/* ---------------------------------------------------------------- genhard.c */
extern const rag_op rag_op_genhard;
/* rag-gen's hard cases (rag-gen(1) HARD CASES), their kinds in rag_gen_kinds' order, the names
 * records carry in "kind". */
enum { RAG_GEN_UNANSWERABLE = 0, RAG_GEN_NOISY, RAG_GEN_MULTI_HOP, RAG_GEN_FOLLOW_UP, RAG_GEN_NKINDS };
extern const char *const rag_gen_kinds[RAG_GEN_NKINDS];
/* A noisy phrasing of question, offline (malloc'ed): English, two typos in its words (a swap of
 * neighbouring letters, a letter dropped), lower case, a colloquial opening and "??"; Chinese,
 * a colloquial opening mixed with English. Seeded by the question: the same one, the same noise. */
char *rag_gen_noisy(const char *question);
/* How many terms texts a and b share (English words of five letters or more, pairs of Han
 * characters), and in *term (malloc'ed, or NULL when none) the longest of them. */
int rag_gen_shared(const char *a, const char *b, char **term);
/* The offline multi-hop case of two chunks sharing term: {"question", "reference"}, the reference
 * the first sentence of each chunk holding term; null when one has none. Borrowed arguments. */
jv rag_gen_offline_multihop(const char *term, const char *title_a, const char *text_a, const char *title_b,
                            const char *text_b);
/* The offline follow-up question (after a turn whose answer is a sentence of the chunk: what the
 * chunk says next), in lang. Static. */
const char *rag_gen_offline_followup(const char *lang);
/* An offline unanswerable question about subject: an attribute (inventor, warranty, price,
 * patent) that corpus (all the chunks' text) never names, starting at the turn-th. malloc'ed, or
 * NULL when the corpus names them all. */
char *rag_gen_offline_unanswerable(const char *subject, const char *lang, const char *corpus, int turn);
/* Ask for one hard case of kind (prompt "genhard"): text_a the chunk (text_b the second of a
 * multi-hop pair, else NULL), question and answer the real case it varies (noisy) or follows
 * (follow-up), else NULL; nth (1, 2...) the case's number among those of its kind from the same
 * chunk, so that a second one is a different request. cb gets {"question", "reference"} (reference "" for unanswerable and
 * noisy), checked by rag_gen_hard_check (expect: the kind). Borrowed arguments. */
void rag_gen_hard_ask(rag_judge *j, const char *lang, int kind, int nth, const char *text_a, const char *text_b,
                      const char *question, const char *answer, rag_usage *usage, rag_judge_cb cb, void *arg);

/* ---------------------------------------------------------------- genreview.c */
/* The review sheet of a test set (cases borrowed): CSV (action,id,kind,question,reference) or a
 * Markdown table with the same columns, every action "keep". name: the set's, for the title.
 * malloc'ed. */
char *rag_gen_review_sheet(jv cases, int csv, const char *name);
/* An edited sheet's rows [{action, id, question, reference, where}] (where: "FILE:LINE", or
 * "FILE: row N" for CSV); invalid jv and err naming the line when the sheet is malformed: no
 * table, a row of the wrong number of cells, an action not keep, drop or fix. text borrowed. */
jv rag_gen_review_read(const char *text, size_t len, const char *name, int csv, char *err, size_t errlen);
/* The set (borrowed) after the rows (borrowed): a drop row's case left out, a fix row's case with
 * its question and reference as edited, a new id (rag_gen_id of the question and the old id) and
 * revised_from the old; a keep row's case as it was (its id too), reviewed "keep"; a case no row
 * names kept as it was. counts: kept, dropped, fixed, not in the sheet. Invalid jv and err when
 * a row names no case or one twice, a keep row was edited, or a fix row's question is empty. */
jv rag_gen_review_apply(jv cases, jv rows, int counts[4], char *err, size_t errlen);
/* What a test set (borrowed) holds: {"cases", "category", "difficulty", "type", "kind" (counts;
 * "regular" for no kind), "duplicates" ([id, id] pairs: the same id, or questions this similar by
 * rag_gen_similarity, a noisy case and the case it rewords excepted), "missing_reference",
 * "missing_relevant_ids" (ids; an unanswerable case needs neither), "warnings" (fewer than 20
 * cases; no unanswerable, noisy or follow-up case)}. */
jv rag_gen_check_set(jv cases, double dup_threshold);
/* The check's report r (borrowed) as text for a person (name: the set's), or one JSON line;
 * *found: 1 when it lists a duplicate, a missing field or a warning. malloc'ed. */
char *rag_gen_check_text(jv r, const char *name, int json, int *found);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside gen.c and genhard.c and by tests/unit/t-genchunk.c and t-genhard.c: the reply
 * checks rag_gen_ask and rag_gen_hard_ask hand the judge. Static in the library (RAG_UNITTEST,
 * base.h): declared only when RAG_UNITTESTS is defined, as for the unit tests' build of the library
 * (obj/libragu.a). */
#ifdef RAG_UNITTESTS
/* The reply check: {"questions": [...]} with expect items, each with a question, a reference,
 * slot i's difficulty and a known type. */
const char *rag_gen_check(jv reply, int expect, jv *result, char *problem, size_t plen);
const char *rag_gen_hard_check(jv reply, int kind, jv *result, char *problem, size_t plen);
#endif /* RAG_UNITTESTS */

#endif
