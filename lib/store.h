/* store.h - the run store (store.c, rag-store(1)); its backends are private to it
 * (lib/store/backend.h). Layer 7 (HACKING.md). */
#ifndef RAG_STORE_H
#define RAG_STORE_H

#include <stddef.h>

#include <jv.h>

#include "base.h"
#include "gate.h"

/* ---------------------------------------------------------------- store.c */
/* The run store (rag-store(1)): runs (run.json whole, and its fields), their records (each line
 * as it came), test sets with versions, in SQLite (a file) or PostgreSQL, one schema and the
 * same results on both. Every write is one transaction under the store's lock. Functions that
 * look a run or a test set up return 1 (and err) when it is not there. No message holds the
 * URL's password. */
typedef struct rag_store rag_store;
/* url: "postgresql://..." (or "postgres://"), "sqlite:///PATH", "sqlite:PATH" or a file's path.
 * Creates the schema, or migrates an older one; refuses a newer one. NULL and err on failure. */
rag_store *rag_store_open(const char *url, char *err, size_t errlen);
void rag_store_close(rag_store *s);
const char *rag_store_backend(const rag_store *s);   /* "sqlite", "postgresql"; static */
/* How long a statement waits for a lock another connection holds (default: SQLite 120 s,
 * PostgreSQL none) before it fails: rag-serve's requests wait ms at most. 0 or -1 and err. */
int rag_store_set_wait(rag_store *s, long ms, char *err, size_t errlen);
const char *rag_store_url(const rag_store *s);       /* as opened, password masked; borrowed */
char *rag_store_url_masked(const char *url);         /* malloc'ed */
/* A run to add: run.json (borrowed; jv_null() for a stream of records) and records.jsonl's
 * text; what is NULL is taken from run.json or left unset. */
typedef struct rag_store_run {
	const char *id;           /* NULL: run.json's run_id, else a new one */
	jv run;
	const char *records; size_t len;
	const char *label;
	const char *testset;      /* its name; NULL: run.json's test set's file name less its extension */
	const char *commit;       /* NULL: run.json's git.commit */
	/* the test set itself, stored as a version of testset (a new one when it changed); NULL: none */
	const char *testset_text; size_t testset_len; const char *testset_file;
	/* the gate that says whether each record passed (and a stream's run); NULL: unknown */
	const rag_gate_opts *gate;
} rag_store_run;
/* Add a run in one transaction: its id into *id (malloc'ed). A run id already there is an error. */
int rag_store_add(rag_store *s, const rag_store_run *in, char **id, char *err, size_t errlen);
typedef struct rag_store_filter {
	const char *testset, *since, *until, *commit;   /* NULL: any; until a day alone: to its end */
	const char *label;                              /* NULL: any; else this label exactly */
	const char *const *system; size_t nsystem;      /* "KEY=VALUE", every one must hold */
	long limit;                                     /* > 0: the newest limit runs */
} rag_store_filter;
/* The runs f lets through, oldest first (by started, then id): an array (into *out) of
 * {run, started, ended, label, commit, dirty, testset, testset_version, n, records_with_errors,
 * passed, gate, exit_status, means, system, added}. */
int rag_store_list(rag_store *s, const rag_store_filter *f, jv *out, char *err, size_t errlen);
/* A page of the runs f lets through (its system filters aside), newest first: {total, offset,
 * limit, runs: [summary as rag_store_list's]}; offset >= 0, limit > 0. */
int rag_store_page(rag_store *s, const rag_store_filter *f, long offset, long limit, jv *out, char *err,
                   size_t errlen);
/* Which of a run's records (rag-serve's records list); a field NULL or 0: any. */
typedef struct rag_store_rec_filter {
	int failed;               /* only those that did not pass: failed, or errored (no verdict, a cause) */
	const char *category;     /* this category exactly */
	const char *cause;        /* this cause's key (rag_causes_json's "key": "below:faithfulness") */
	const char *metric;       /* with below: only those whose score of metric is a number < below */
	double below;
	const char *text;         /* in the id, question, answer, reference or category; ASCII letters
	                           * of either case */
	const char *id;           /* this id exactly (a link by id, as Compare's, which pairs by id) */
} rag_store_rec_filter;
/* The records f lets through (NULL: all), a page of them, the offset+1th to the
 * offset+limit'th, in order: {run, total (how many f lets through), lines (the run's), offset,
 * limit, records: [{seq, id, category, passed, cause, why, record}]} (record null for a line
 * that is no JSON; passed the gate's verdict on it, null when it has none; cause, for one that
 * did not pass, the first thing the gate says it missed, stored when the run was added; why
 * the same as causes.c names it, {kind, metric?, threshold?, tool?, text?, who?, key, detail},
 * null for a run added before the store kept it); 1 when no such run. */
int rag_store_records(rag_store *s, const char *id, const rag_store_rec_filter *f, long offset, long limit, jv *out,
                      char *err, size_t errlen);
/* Record seq of a run, whole: as a line of rag_store_records with verdict (its gate verdict as
 * stored with the run: {failed, errored, missed, checks: [{metric, score, threshold, status:
 * pass|failure|error|skipped, message?}]}; null for a run added before the store kept it) and
 * marks (every metric's, every reviewer's: rag_store_marks's). 1 when no such run or record. */
int rag_store_record(rag_store *s, const char *id, long seq, jv *out, char *err, size_t errlen);
/* A review mark (rag-serve): a reviewer's label of record seq's metric (1/0: right/wrong, or a
 * score), replacing that reviewer's earlier one; 1 when the run has no record seq. */
typedef struct rag_store_mark_in {
	const char *run; long seq; const char *metric; double label;
	const char *comment;      /* NULL: none */
	const char *who;
} rag_store_mark_in;
int rag_store_mark(rag_store *s, const rag_store_mark_in *m, char *err, size_t errlen);
/* A run's marks (of metric; NULL: all), by record: [{seq, id, metric, label, comment, who,
 * created}]; 1 when no such run. */
int rag_store_marks(rag_store *s, const char *run, const char *metric, jv *out, char *err, size_t errlen);
/* A run's summary (consumed) as a history line: {run, started, label, commit, testset, n,
 * passed, means, exit_status, pass_rate, pass_rate_of} (rag-store(1), HISTORY), the pass rate
 * its verdict's, over pass_rate_of records with a verdict. */
jv rag_store_history(jv summary);
/* The newest limit (> 0) runs f lets through (its system filters aside), oldest first, for a
 * trend: {total, runs: [{run, started, label, commit, testset, n, passed, means, pass_rate,
 * pass_rate_of, thresholds}]}, pass_rate the share of the run's records that passed of those with
 * a verdict (rag_verdict_pass_rate; null: none), pass_rate_of how many have one, thresholds the
 * gate's its stored verdict names: {mean: {metric: min}, min_pass_rate (null: no record judged)}. */
int rag_store_trends(rag_store *s, const rag_store_filter *f, long limit, jv *out, char *err, size_t errlen);
/* A run reference -> the id: the id; "last" or "last~N" (the Nth before the newest);
 * "label:NAME" (the newest run labelled NAME); or the first 4 or more characters of one run's
 * id. 1 and err when no run or several runs are named (a prefix), -1 and err on failure. */
int rag_store_resolve(rag_store *s, const char *ref, char **id, char *err, size_t errlen);
/* A run's summary with "run_json" (null for a stream). */
int rag_store_show(rag_store *s, const char *id, jv *out, char *err, size_t errlen);
/* The run's records, appended to out byte for byte as they were added. */
int rag_store_export(rag_store *s, const char *id, rag_buf *out, char *err, size_t errlen);
/* Per record by id, newer's order then base's records newer lacks: an array (into *out) of
 * {id, change: regressed|improved|same|added|removed, lost: whether it regressed by losing a
 * score, delta: {metric: newer - base, null where a score was lost or gained}, scores,
 * baseline_scores, answer, baseline_answer}, the pairs compared by compare.c's definition with
 * tolerance tol (gate.regression); with counts, *counts its rag_compare_json (the counts, the
 * paired means, the definition in words). */
int rag_store_diff(rag_store *s, const char *base, const char *newer, double tol, jv *out, jv *counts, char *err,
                   size_t errlen);
/* The same with a comparison of the caller's (borrowed, empty: its tolerance, its intervals). */
int rag_store_diff_with(rag_store *s, const char *base, const char *newer, rag_compare *cmp, jv *out, jv *counts,
                        char *err, size_t errlen);
/* A test set file's text (any format of testset.c) as a version of name: *version, and
 * *created 1 when it is new (0: the newest version holds the same records). */
int rag_store_testset_import(rag_store *s, const char *name, const char *text, size_t len, const char *file,
                             int *version, int *created, char *err, size_t errlen);
/* Version (0: the newest) of test set name as JSON Lines appended to out; *version_out. */
int rag_store_testset_export(rag_store *s, const char *name, int version, rag_buf *out, int *version_out,
                             char *err, size_t errlen);
/* {backend, url, schema_version, runs, records, testsets} */
int rag_store_info(rag_store *s, jv *out, char *err, size_t errlen);

/* ---------------------------------------------------------------- store.c: test sets edited
 * rag-serve's Test sets and Cases tabs. A write based on a version the store has moved past is
 * refused (RAG_STORE_CONFLICT), never merged, so that two editors lose no edit. */
/* a write refused: another name holds it, a newer version, runs naming the set (err says which) */
#define RAG_STORE_CONFLICT 2
/* The test sets by name (tag not NULL: only those of this tag): [{name, tag, latest, n,
 * created, author, runs (how many runs name it), versions: [{version, n, created, author,
 * file, hash}]}], n, created and author those of the newest version. */
int rag_store_testset_list(rag_store *s, const char *tag, jv *out, char *err, size_t errlen);
/* Version (0: the newest) of test set name: {name, version, latest, n, created, author, file,
 * hash, tag, cases: [record...]}; 1 when there is none. */
int rag_store_testset_get(rag_store *s, const char *name, int version, jv *out, char *err, size_t errlen);
typedef struct rag_store_testset_in {
	const char *name;
	int base;                 /* the version the write is based on; 0: a new test set */
	jv cases;                 /* borrowed: the records, an array of objects, in order */
	const char *file;         /* where they came from; NULL: none */
	const char *tag;          /* NULL: as it is; "": none */
	const char *who;          /* who made the version; NULL: unknown */
} rag_store_testset_in;
/* cases as the next version of in->name, in one transaction: *version (the newest's own and
 * *created 0 when it holds the same records). Refused with RAG_STORE_CONFLICT when in->base is
 * 0 and the name is taken, or in->base is not the newest version (err names the newer
 * version, who made it and when); 1 when in->base is set and the test set is gone. */
int rag_store_testset_save(rag_store *s, const rag_store_testset_in *in, int *version, int *created, char *err,
                           size_t errlen);
/* Test set name's tag ("": none), in a transaction of its own; 1 when there is no such test set. */
int rag_store_testset_tag(rag_store *s, const char *name, const char *tag, char *err, size_t errlen);
/* Delete test set name, every version and its tag; base: the version its user saw (0: any).
 * Refused (RAG_STORE_CONFLICT) when a run names the test set (its history keeps it) or base is
 * not the newest; 1 when there is none. */
int rag_store_testset_delete(rag_store *s, const char *name, int base, char *err, size_t errlen);

/* ---------------------------------------------------------------- storeprod.c: production windows
 * rag-store add-window and rag-serve's Production tab: each window of rag-gate --window kept with
 * its line and the records it decided (rag-trace's, scored), their trace ids kept. */
/* line (borrowed): rag-gate --window's line of a window; records: its n records' lines, in the
 * order rag-gate read them (each a JSON object; its trace_id kept). *id: the window's number in
 * the store (1, 2, ...). 1 and err when line is no window's or says other than n records. */
int rag_store_window_add(rag_store *s, jv line, const char *const *records, size_t n, long *id, char *err,
                         size_t errlen);
/* The newest limit (> 0) windows, oldest first: {total, windows: [the window's line with id
 * and added]}. */
int rag_store_windows(rag_store *s, long limit, jv *out, char *err, size_t errlen);
/* Window id's records, worst first: {window (as rag_store_windows'), metric, total, offset, limit,
 * records: [{seq, trace_id, score, record}]}, score metric's (NULL: the record's lowest score),
 * the lowest first, those without one last, a tie by seq; the offset+1th to offset+limit'th.
 * 1 when no such window. */
int rag_store_window_records(rag_store *s, long id, const char *metric, long offset, long limit, jv *out, char *err,
                             size_t errlen);
/* Record seq (from 1) of window id: {trace_id, record}; 1 when there is none. */
int rag_store_window_record(rag_store *s, long id, long seq, jv *out, char *err, size_t errlen);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside store.c and by tests/unit/t-store.c: the schema version the migrations are
 * checked against. Static in the library (RAG_UNITTEST, base.h): declared only when RAG_UNITTESTS
 * is defined, as for the unit tests' build of the library (obj/libragu.a). */
#ifdef RAG_UNITTESTS
/* the schema version this build writes (migrations bring older stores to it) */
int rag_store_schema(void);
#endif /* RAG_UNITTESTS */

#endif
