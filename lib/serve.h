/* serve.h - rag-serve's engine without the HTTP server (serve.c): the listen address, the Host
 * and Origin checks, a page file's path, the JSON API over the store. Layer 7 (HACKING.md). */
#ifndef RAG_SERVE_H
#define RAG_SERVE_H

#include <stddef.h>

#include <jv.h>

#include "store.h"

/* ---------------------------------------------------------------- servehttp.c */
typedef const char *(*rag_serve_arg_fn)(void *ctx, const char *name);
/* Shared by the API's route files (serve.c, servesets.c, servehist.c): {error: msg}; the store's
 * answer as a status (0 -> 200, 1 -> 404, -1 -> 500 with {error: err} in *body); a query
 * argument, NULL when absent or empty; a whole number in [min, max] (dflt when absent) and an
 * ISO 8601 date (NULL when absent), 0 or -1 with {error} in *body. */
jv rag_serve_error(const char *msg);
int rag_serve_stored(int r, const char *err, jv *body);
const char *rag_serve_str_arg(rag_serve_arg_fn arg, void *ctx, const char *name);
int rag_serve_num_arg(rag_serve_arg_fn arg, void *ctx, const char *name, long dflt, long min, long max, long *out,
                      jv *body);
int rag_serve_date_arg(rag_serve_arg_fn arg, void *ctx, const char *name, const char **out, jv *body);

/* ---------------------------------------------------------------- serve.c */
/* rag-serve(1)'s engine without the HTTP server. "ADDR:PORT" ("[::1]:0", "localhost:N" is
 * 127.0.0.1) -> *host (malloc'ed, numeric), *port, *loopback (127.0.0.0/8 or ::1). */
int rag_serve_listen(const char *spec, char **host, int *port, int *loopback, char *err, size_t errlen);
char *rag_serve_url(const char *host, int port);                /* "http://HOST:PORT/", malloc'ed */
/* whether a request's Host header names this server (localhost:PORT too when loopback) */
int rag_serve_host_ok(const char *hdr, const char *host, int port, int loopback);
/* whether a write comes from this server's own page: Origin (else Referer) is SCHEME://HOSTHDR
 * (scheme NULL: http; a reverse proxy's X-Forwarded-Proto where one is trusted) */
int rag_serve_origin_ok(const char *origin, const char *referer, const char *scheme, const char *hosthdr);
/* A path prefix the pages are served under ("/ragpipe/", --base-path, a trusted proxy's
 * X-Forwarded-Prefix) without its trailing '/' ("" for "/"), malloc'ed; NULL when it is not a
 * path of parts of [A-Za-z0-9-_.~] (no "." or ".." part, no "//") from a '/'. */
char *rag_serve_base_path(const char *p);
int rag_serve_secret_eq(const char *a, const char *b);          /* in time independent of where they differ */
char *rag_serve_cookie(const char *header, const char *name);   /* a Cookie header's value, malloc'ed, or NULL */
/* A URL path of the page -> *file under <datadir>/serve/ and its *type: 200, or 400 for a path
 * that could leave the directory (a "..", a hidden part, a character outside [A-Za-z0-9._-/]),
 * 404 for a kind of file not served. */
int rag_serve_static(const char *datadir, const char *path, char **file, const char **type);
/* A GET of the JSON API: path /api/runs (?label, commit, testset, since, until, offset, limit),
 * /api/runs/ID, /api/runs/ID/records (?offset, limit, failed, category, cause, metric and below,
 * q: rag_store_records' filter), /api/runs/ID/records/SEQ (rag_store_record: one record whole,
 * its gate verdict, its cause and every review mark), /api/testsets, /api/info. Returns the HTTP
 * status and *body (an object; {error} for a status other than 200). arg: a query argument or NULL. */
/* Also /api/runs/ID/marks (?metric) -> {run, marks: rag_store_marks'}, and
 * /api/runs/ID/labels.csv (?metric): *body a string, the CSV of rag-agree --labels (id, label,
 * metric, who, comment, created). And /api/runs/ID/checks -> {run, gated, pass, records, passed,
 * errored, pass_rate, checks: the gate's (gate.c, the thresholds of the run's config.gate), the
 * failed first, causes: the failing records by cause (causes.c's, rag_causes_json), [{kind, metric?,
 * threshold?, tool?, text?, cause, count, records: [{seq, id, detail}] (10 at most, the
 * farthest below first)}]}, what an opened run shows first. */
int rag_serve_api(rag_store *s, const char *path, rag_serve_arg_fn arg, void *ctx, jv *body);
/* A write (its checks passed): POST /api/runs/ID/marks with {seq, metric, verdict: true|false or
 * label: number, comment, who} stores a review mark. The HTTP status and *body as rag_serve_api's. */
int rag_serve_post(rag_store *s, const char *path, const char *text, size_t len, jv *body);

/* ---------------------------------------------------------------- servesets.c */
/* The Test sets and Cases tabs' API. GET /api/testsets (?tag) -> {testsets:
 * rag_store_testset_list's, tags: every tag, tag}; GET /api/testsets/NAME (?version) ->
 * rag_store_testset_get's; with ?q (a text in the id, question, reference, category or tags),
 * ?category (one; "-": none), ?offset or ?limit (50), one page of them found in the store's
 * order: cases the page's, seqs their places in the version, total the cases found, all the
 * version's, offset, limit, categories every category of the version. The HTTP status and
 * *body as rag_serve_api's. */
int rag_serve_testsets_get(rag_store *s, const char *path, rag_serve_arg_fn arg, void *ctx, jv *body);
/* A write (its checks passed): POST /api/testsets {name, tag, who, text, file, format,
 * base_version} makes a test set (empty, or the cases of text read as rag-eval reads a test
 * set file, its errors "FILE:LINE:COLUMN: ..."; with base_version, they replace the cases as
 * the next version); POST /api/testsets/NAME/cases {base_version, who, tag, ops: [{op: add,
 * case} | {op: edit, seq, case} | {op: delete, seqs} | {op: set, seqs, category, tags} | {op:
 * import, text, file, format, replace}]} makes the next version, seqs the cases' places in
 * base_version; POST /api/testsets/NAME/delete {base_version}. 409 when base_version is not
 * the newest (or the name is taken, or runs name the test set to delete). */
int rag_serve_testsets_post(rag_store *s, const char *path, const char *text, size_t len, jv *body);

/* ---------------------------------------------------------------- servehist.c */
/* The History tab's trends and comparison: GET /api/trends (?label, commit, testset, since,
 * until: as /api/runs; metric; limit, the newest runs, 100) -> {total, shown, metrics, runs:
 * rag_store_trends', series: {metric: [mean per run, oldest first]}, pass_rate: [per run]};
 * GET /api/compare?base=ID&new=ID (&limit, 10) -> {base, new, metrics: [{metric, base, new,
 * delta, ci_low, ci_high, change}] (compare.c's, with the gate's intervals), pass_rate: {base,
 * new, delta, base_of, new_of}, confidence, paired, changes, worse, better: [{id, metric, base,
 * new, delta}]}. The HTTP status and *body as rag_serve_api's; 0 for a path that is neither. */
int rag_serve_history_get(rag_store *s, const char *path, rag_serve_arg_fn arg, void *ctx, jv *body);

/* ---------------------------------------------------------------- serveprod.c */
/* The Production tab's API: GET /api/production/windows (?limit, 100) -> rag_store_windows';
 * GET /api/production/windows/ID/records (?metric; offset, limit 20) -> rag_store_window_records'
 * (the worst first). POST /api/production/add {window, seq, testset, base_version, who}: the
 * record's question, contexts (their texts), context_ids, answer and trace_id as a case added to
 * test set testset by the Cases tab's edit (rag_serve_testsets_post's reply; 409 when base_version
 * is not the newest). The HTTP status and *body as rag_serve_api's; 0 for a path not its own. */
int rag_serve_production_get(rag_store *s, const char *path, rag_serve_arg_fn arg, void *ctx, jv *body);
int rag_serve_production_post(rag_store *s, const char *path, const char *text, size_t len, jv *body);

/* ---------------------------------------------------------------- serveotlp.c */
/* The OTLP/HTTP receiver (POST /v1/traces) without the HTTP server: type and encoding, the
 * request's Content-Type and Content-Encoding (NULL: absent); body[0..len) as received; max, the
 * largest body taken, inflated or not; spool, the file each request accepted is appended to. */
typedef struct rag_otlp_req {
	const char *type, *encoding;
	const char *body;
	size_t len, max;
	const char *spool;
} rag_otlp_req;
/* The request checked (gzip inflated within max; JSON: an object whose resourceSpans is an
 * array of objects; protobuf: an ExportTraceServiceRequest, otlppb.c) and appended to the spool
 * as one line of OTLP JSON (a JSON request's tokens' bytes as received, the whitespace between
 * them taken out), by one write(2) with O_APPEND (no fsync). Returns the HTTP status, the reply's
 * body appended to *reply and its Content-Type in *reply_type, in the request's encoding: 200
 * with an empty ExportTraceServiceResponse ({}, or zero bytes in protobuf: every span taken);
 * else a google.rpc.Status {code, message}: 400 not a request, 413 it inflates beyond max (or,
 * protobuf, unpacks to more than 32 times max), 415 another type or encoding, 503 the spool
 * cannot be written. */
int rag_serve_otlp(const rag_otlp_req *rq, rag_buf *reply, const char **reply_type);
/* a google.rpc.Status {code, message} appended to out in the encoding of the Content-Type type
 * (protobuf for application/x-protobuf, else JSON; NULL: JSON): the reply's Content-Type */
const char *rag_serve_otlp_status(const char *type, int code, const char *msg, rag_buf *out);

/* ---------------------------------------------------------------- otlppb.c */
/* OTLP's protobuf encoding: an ExportTraceServiceRequest, buf[0..len), unpacked by the code
 * protoc-c generates from share/proto/ (protobuf-c allocating max_mem bytes at most) and
 * appended to out on one line in OTLP's JSON encoding (the specification's JSON mapping: ids in
 * hex, enums as integers, 64-bit integers as strings, bytes in base64, defaults left out). 0;
 * 1 when unpacking takes more than max_mem; -1 when it is not a request (its bytes, messages
 * nested beyond 64, a string not UTF-8); with a message in err, and out as it was. */
int rag_otlppb_json(const void *buf, size_t len, size_t max_mem, rag_buf *out, char *err, size_t errlen);
/* a google.rpc.Status {code, message} appended to out in protobuf */
void rag_otlppb_status(int code, const char *msg, rag_buf *out);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside serveotlp.c and by tests/unit/t-serveotlp.c (RAG_UNITTEST, base.h). */
#ifdef RAG_UNITTESTS
/* gzip's in[0..len) inflated into out, max bytes at most: 0; 1 when it inflates to more; -1
 * when it is not one whole gzip stream */
int rag_serve_gunzip(const char *in, size_t len, size_t max, rag_buf *out);
/* valid JSON s[0..n) on one line into out, the whitespace between tokens taken out: 0, or -1
 * for a control character inside a string */
int rag_serve_json_line(const char *s, size_t n, rag_buf *out);
#endif

#endif
