/* report.h - the renderers of a run: HTML and Markdown (report.c), text (terminal.c), JUnit
 * XML (junit.c). They never print: each returns or appends text. Layer 7 (HACKING.md). */
#ifndef RAG_REPORT_H
#define RAG_REPORT_H

#include <stddef.h>

#include <jv.h>

#include "base.h"

/* ---------------------------------------------------------------- report.c */
/* report (consumed): {runs: [{name, summary, meta?, href?}] (at least one; summary from
 * rag_gate_summary; meta the run's run.json; href a link to its own report), oldest first, the
 * last the run reported; records: [rag_report_record...] of that run; baseline?: {name,
 * records: {id: {a, sc}}} (the baseline's answers and scores); history?: [entries of
 * rag_report_history_read]; gated: whether any threshold was given; causes?: the last run's
 * failing records by cause, rag_causes_json's (their seq: the record's place in records)}. One
 * self-contained HTML page: the Summary in HTML, the rest as escaped JSON shown by
 * <datadir>/report/report.js (inlined); made with the records and the baseline's records left
 * out (report's records and its baseline's records not read), for the caller to write them in
 * from elsewhere (rag-report spools them to a file). *records_at is the offset where the
 * records go (inside the data block's "records": [], comma-separated, each as
 * rag_report_json_block writes it), *base_at where the baseline's go (inside "base": {"name":
 * ..., "records": {}}, as "id": {a, sc} pairs, the id and the value each written by
 * rag_report_json_block; *records_at when no baseline). Returns malloc'ed text, or NULL and
 * err when the script cannot be read. */
char *rag_report_html_frame(jv report, const char *title, size_t *records_at, size_t *base_at, char *err, size_t errlen);
/* v (consumed) as JSON for the page's data block, appended to b: "<", ">", "&", U+2028 and
 * U+2029 as \u escapes, so that no text can end the block. */
void rag_report_json_block(rag_buf *b, jv v);
/* The bytes of in, from where it is to its end, gzip-compressed and base64-encoded to out (the
 * records of a page whose records.jsonl is beside it, rag-report --compress: the page's script
 * unpacks them with the browser's DecompressionStream). 0, or -1 and err. */
int rag_report_gz64(FILE *in, FILE *out, char *err, size_t errlen);
/* runs: [{name, summary}] as above. Markdown: the summary, a trend table, the worst records. */
char *rag_report_markdown(jv runs, const char *title);
/* A record of the run as the page shows it (rec borrowed, verdict consumed, from
 * rag_gate_add_verdict; where "file:line"): {id, cat, q, a, ref, ctx, sc, na, v, err, src, at,
 * st: "pass"|"fail"|"error", why?: [the gate's reasons], ch?: [the changes against the baseline]}. */
jv rag_report_record(jv rec, jv verdict, const char *where);
/* A history of runs (rag-report --history, rag-store history): text of JSON Lines, one object a
 * line with "means": {metric: mean} (and run, started, label, commit, testset, n, passed),
 * oldest first; blank lines skipped. An array, or jv_invalid() and err "name:line: ...". */
jv rag_report_history_read(const char *text, size_t len, const char *name, char *err, size_t errlen);
/* The verdict of a summary (borrowed): "PASS", "FAIL", or "SUMMARY" when its pass is null, a
 * summary with no decision (rag-gate --summary-only, rag-report with no threshold). */
const char *rag_report_verdict(jv summary);
/* The counts of a summary, or of one of its categories or groups (borrowed), in one sentence
 * whose figures add up and whose percentage names its denominator: "300 records: 231 passed
 * (79.7% of the 290 without errors or nulls), 59 failed, 10 with errors or nulls". gated 0:
 * "300 records, 10 with errors or nulls". Numbers only (no escaping needed), appended to b. */
void rag_report_counts(rag_buf *b, jv s, int gated);
/* The summary's baseline (borrowed) in one sentence: the records matched by id, how many of them
 * regressed, lost their score, improved or neither with compare.c's definition in words
 * (rag_compare_counts_text), and apart the pairs of a record and a metric that regressed or
 * improved. Appended to b. */
void rag_report_changes(rag_buf *b, jv base);

/* ---------------------------------------------------------------- terminal.c */
/* rag-gate's summary (rag_gate_summary, borrowed) as text: control characters in texts from the
 * records become "?"; ANSI colour when color is set. Returns malloc'ed text. */
char *rag_report_text(jv summary, int color);

/* ---------------------------------------------------------------- junit.c */
/* JUnit XML for rag-gate --junit (the shape Jenkins and the GitHub reporters read, checked by
 * tests/fixtures/junit.xsd): a suite for the gate's own checks, then one suite per category
 * (records without one in the suite "(no category)"), in order of first appearance, a test case
 * per record named by its id. The records' cases are rendered as they come and kept aside by the
 * tool (bytes off..off+len of what it kept, in cases[]), because a suite's counts in its head
 * are known only at the end. Texts are escaped for XML 1.0. Zero it before use. */
typedef struct rag_junit_suite {
	char *name;               /* NULL: the records without a category */
	long tests, failures, errors, skipped;
	double time;              /* seconds: the records' latency_ms (rag-collect), summed */
} rag_junit_suite;
typedef struct rag_junit {
	long tests, failures, errors, skipped;   /* the records' cases, all suites */
	double time;
	rag_junit_suite *suite; size_t nsuite;
	size_t last;              /* the suite of the case rag_junit_record rendered last */
} rag_junit;
/* The test case of one record (rec and checks borrowed; checks from rag_gate_add), appended to
 * b; counted in n, its suite in n->last (the caller keeps the cases aside by suite: n holds
 * nothing per record, so a run of any length takes the same memory). A failure says the
 * question, each failed metric with its value and threshold, the first rejected verdicts of
 * those metrics (an unsupported claim, an irrelevant chunk) with the judge's reason, and where
 * the record is; an error also the record's errors entries. */
void rag_junit_record(rag_buf *b, rag_junit *n, jv rec, const char *where, jv checks);
/* The document up to the records' suites, the gate's suite included (summary borrowed):
 * malloc'ed. */
char *rag_junit_head(jv summary, const rag_junit *n);
/* The opening tag of suite k, with its counts, and the category's own per-record thresholds
 * (summary borrowed: thresholds.by_category) as properties "threshold METRIC": malloc'ed. */
char *rag_junit_suite_head(const rag_junit *n, size_t k, jv summary);
const char *rag_junit_suite_tail(void);
const char *rag_junit_tail(void);
void rag_junit_free(rag_junit *n);

#endif
