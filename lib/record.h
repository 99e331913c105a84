/* record.h - the record format (record.c): the one table of field names and their aliases,
 * `fields:` mappings, errors and results written into a record; and rag-eval's test set files
 * (testset.c). Layer 2 (HACKING.md). */
#ifndef RAG_RECORD_H
#define RAG_RECORD_H

#include <stddef.h>

#include <jv.h>

#include "usage.h"

/* ---------------------------------------------------------------- record.c */
/* The record format's fields and the other names each is known by (README "Record format"):
 * RAGAS's (user_input, response, retrieved_contexts, ground_truth, reference_context_ids...),
 * a Java test set's camelCase (sampleId, referenceAnswer, groundTruth, expectedAnswer,
 * retrievedContexts, relevantDocIds...) and a few other tools'. One table, in record.c.
 * rag_record_get: the field by our name or any of its aliases, ours first. rec borrowed. */
jv rag_record_get(jv rec, const char *field);       /* jv_invalid() if absent */
/* Our name for a field given by any name ("groundTruth" -> "reference"): static, or field
 * itself when the table does not know it. */
const char *rag_record_canonical(const char *field);
/* The top-level field names of rec (borrowed) not in *seen (an object of names, updated) that
 * rag_record_suggest finds a typo of a known one: [[name, suggestion], ...]. */
jv rag_record_near_misses(jv rec, jv *seen);
/* rec (consumed) with each field that is absent by our name taken from its first alias present,
 * renamed: {"sampleId": "s1", "groundTruth": "x"} -> {"id": "s1", "reference": "x"}. */
jv rag_record_normalize(jv rec);
/* A `fields:` mapping (rag-config(5); rag-eval --field NAME=PROGRAM): our field name -> a jq
 * program over the record as it came (a path: .expected.text), each compiled once. */
typedef struct rag_fieldmap rag_fieldmap;
rag_fieldmap *rag_fieldmap_new(void);
/* Map field (ours or an alias) to prog; where is how the user wrote it, for the message:
 * "fields.reference". -1 with "WHERE: ..." in err when field is no field of the record format
 * or prog does not compile. The same field again replaces the earlier program. */
int rag_fieldmap_add(rag_fieldmap *m, const char *field, const char *prog, const char *where, char *err, size_t errlen);
/* Set each mapped field of *rec (an object; anything else is left alone) to its program's first
 * result; a result of null or none leaves the record as it is. -1 with "WHERE: the jq program
 * failed: ..." in err when one raises an error (the record then partly mapped). m may be NULL. */
int rag_fieldmap_apply(rag_fieldmap *m, jv *rec, char *err, size_t errlen);
void rag_fieldmap_free(rag_fieldmap *m);
/* Contexts as an array of strings: accepts strings or objects {text, id}. Returns invalid with
 * message when mistyped, or when a text holds a NUL (as rag_record_text). rec borrowed. */
jv rag_record_contexts(jv rec);
/* claims.<field> (rag-claims' output) as an array of strings, or invalid with the message why
 * not, *state saying which: RAG_CLAIMS_OK, RAG_CLAIMS_ABSENT (no claims.<field>: run rag-claims),
 * RAG_CLAIMS_FAILED (null: the claims stage failed on this record), RAG_CLAIMS_BAD (not an array
 * of strings, or a claim holds a NUL). rec borrowed. */
enum { RAG_CLAIMS_OK = 0, RAG_CLAIMS_ABSENT, RAG_CLAIMS_FAILED, RAG_CLAIMS_BAD };
jv rag_record_claims(jv rec, const char *field, int *state);
/* Append {tool, metric, message} to rec.errors (metric may be NULL). Consumes rec. */
jv rag_record_error(jv rec, const char *tool, const char *metric, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Append an error object (consumed) to rec.errors. Consumes rec. */
jv rag_record_add_error(jv rec, jv entry);
/* rec.<section>.<name> = value. Consumes rec and value. */
jv rag_record_set(jv rec, const char *section, const char *name, jv value);
/* rec.usage.<tool>.<stage> = usage, stage being what the tool made of the record: the metric it
 * scored or the field it read (usage["rag-claims"].reference, usage["rag-verify"].context_recall).
 * Each stage of a pipeline keeps its own entry, so that adding them all up counts every call;
 * the same stage run again replaces its entry with its own run. Consumes rec. */
jv rag_record_usage(jv rec, const char *tool, const char *stage, const rag_usage *u, const char *judge);
/* Borrowed string value of a field (with aliases) or NULL when absent or not a string;
 * valid while rec lives. For names and labels; a text to judge is read with rag_record_text. */
const char *rag_record_str(jv rec, const char *field);
/* A text the tool judges: 0 with *s as rag_record_str gives it (NULL when absent or not a
 * string), or -1 with "field "F" contains a NUL character (\u0000)" in err: JSON can carry a
 * \u0000 that a C string cannot, and judging the text before it would score a part as the
 * whole. rec borrowed. */
int rag_record_text(jv rec, const char *field, const char **s, char *err, size_t errlen);
/* The record's id (rec borrowed) as text, as rag_json_id writes it (newly allocated), or NULL
 * when it has none: the one way a record's id becomes a key, a name or a column. */
char *rag_record_id(jv rec);
/* A text the record must have: 0 with *s as rag_record_text gives it, or -1 with *s NULL and
 * the one message every tool gives, naming the field by our name (rag_record_canonical):
 * "record has no "F" field" when it is absent, "field "F" is KIND, not a string" when it is
 * something else (null included), "field "F" contains a NUL character (\u0000)", and with
 * RAG_FIELD_NONEMPTY "field "F" is empty" for "". With RAG_FIELD_OPTIONAL a field absent or null
 * is none: 0 with *s NULL (a text the record may lack, but not hold as another kind). rec
 * borrowed. */
#define RAG_FIELD_NONEMPTY 1
#define RAG_FIELD_OPTIONAL 2
int rag_record_need_text(jv rec, const char *field, int flags, const char **s, char *err, size_t errlen);
/* 1 when s (borrowed) is a string that holds a NUL character. */
int rag_record_has_nul(jv s);
/* rag-gen's hard cases (rag(7) HARD CASES). 1 when rec (borrowed) says expect: "refusal": an
 * unanswerable case, whose right answer declines; the metrics that presuppose an answer make
 * themselves not applicable to it, and rag-kw's refusal scores it. */
int rag_record_expects_refusal(jv rec);
/* It names no metric: a tool alone does not know whether refusal runs (rag-eval adds it). */
#define RAG_NA_UNANSWERABLE "an unanswerable case (expect: refusal): its right answer declines"
/* A follow-up case's question as a judge is to read it: the earlier turns of rec's "history"
 * ([{"question", "answer"}], borrowed), labelled in question's language, then question. NULL
 * when rec has no such turn (the question alone is the text), else malloc'ed. */
char *rag_record_question_in_context(jv rec, const char *question);

/* ---------------------------------------------------------------- testset.c */
/* A test set file's records (rag-eval(1), INPUT): JSON Lines, a JSON array of objects, one or
 * several pretty-printed objects, or CSV with a header row (RFC 4180: quoted fields, "" inside
 * them, CRLF or LF; the header names the fields; an empty cell is an absent field; the columns
 * contexts, relevant_ids, context_ids, reference_contexts, keywords, system and rag-kw's
 * must_contain, must_not_contain, must_match, must_not_match holding a JSON array or object are
 * parsed). A UTF-8 byte order mark is skipped. */
enum rag_testset_format { RAG_TESTSET_AUTO = 0, RAG_TESTSET_JSON, RAG_TESTSET_CSV };
/* By the name's extension (.csv; .json, .jsonl, .ndjson), else by the content: JSON when the
 * first character is { or [ (or there is none), else CSV. name may be NULL. */
int rag_testset_detect(const char *name, const char *text, size_t len);
const char *rag_testset_format_name(int format);   /* "auto", "json", "csv" */
int rag_testset_format_parse(const char *s);       /* -1 when unknown */
/* The records of text[0..len) as a jv array of objects, format AUTO detected as above. Each
 * field absent by our name is taken from its alias (rag_record_normalize: sampleId -> id,
 * groundTruth -> reference...). A record without an id (or with an empty one) then gets
 * "case-N", N its 1-based place in the file; a number id becomes its text. Invalid jv with err
 * "NAME:LINE:COLUMN: message" on a broken file (name NULL: "<stdin>"). text borrowed.
 * An id may repeat: rows of a sheet (rag-agree's labels, rag-gen's review sheet and --check,
 * which reports a repeated id). */
jv rag_testset_parse(const char *text, size_t len, const char *name, int format, char *err, size_t errlen);
/* A test set to score or to keep (rag-store testset import, rag-serve's upload): the records
 * as rag_testset_parse gives them, each id once, since runs match records by id (--resume,
 * --baseline, the store's pairs) and a repeated one hides a record. An id met again (one
 * given, or a given one equal to the case-N of a record without one) is invalid, with err
 * "NAME:LINE: id "X" repeats line L" (and, for a case-N, which record has none). */
jv rag_testset_read(const char *text, size_t len, const char *name, int format, char *err, size_t errlen);
/* The records as rag_testset_parse gives them, and *lines (lines not NULL) the line each record
 * starts on (1-based), a jv array parallel to the records; jv_invalid() on a broken file. */
jv rag_testset_parse_lines(const char *text, size_t len, const char *name, int format, jv *lines, char *err,
                           size_t errlen);
/* The records of the file f, read record by record in chunks (memory: the longest record and
 * the ids, not the file): each record, as rag_testset_parse gives it with the fields of the
 * mapping fields (NULL: none) set first, by its programs over the record as written, to cb
 * (consumed) with the line it starts on; each id once, as rag_testset_read (the records before
 * the repeat have been given). A program that fails on a record: -1, with err "NAME: record N:
 * WHERE: the jq program failed: ...". cb returns 0 to go on, or a positive value that stops the reading and is returned.
 * Returns 0 at the end, or -1 with err: a broken file says its place as NAME:LINE:COLUMN, as
 * rag_testset_parse does (f read again from its start for that message when it can be: a
 * regular file); the records before the broken place have been given. name NULL: "<stdin>". */
typedef int (*rag_testset_cb)(jv rec, size_t line, void *ctx);
int rag_testset_each(FILE *f, const char *name, int format, rag_fieldmap *fields, rag_testset_cb cb, void *ctx,
                     char *err, size_t errlen);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside record.c and by tests/unit/t-record.c: the field table's look-ups behind
 * rag_record_near_misses, and a mapping's size. Static in the library (RAG_UNITTEST, base.h):
 * declared only when RAG_UNITTESTS is defined, as for the unit tests' build of the library
 * (obj/libragu.a). */
#ifdef RAG_UNITTESTS
/* 1 when name is a field of the record format, by our name or an alias. */
int rag_record_is_field(const char *name);
/* 1 when name is a field of the record format or one the tools write (scores, verdicts...). */
int rag_record_known(const char *name);
/* For a top-level field name the table does not know: the known name it is likely a typo of
 * ("referenceAnswr" -> "referenceAnswer"; compared in lower case without '_' and '-', within
 * one edit for a name of 5 letters or more, two for one of 12 or more), static; NULL when it
 * is known or far from every known name (a field of the user's own). */
const char *rag_record_suggest(const char *field);
size_t rag_fieldmap_count(const rag_fieldmap *m);   /* 0 for NULL */
#endif /* RAG_UNITTESTS */

#endif
