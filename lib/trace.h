/* trace.h - OpenTelemetry traces made into records (trace.c): rag-trace(1)'s engine.
 * Layer 2 (HACKING.md).
 *
 * It reads OTLP JSON as the Collector's file exporter writes it, one ExportTraceServiceRequest a
 * line (resourceSpans[].scopeSpans[].spans[]), holds each trace's spans until the trace has been
 * quiet for a while, and makes one record of each complete trace: its question, contexts (ids and
 * scores), answer, model, start, latency, the service's token usage, trace and root span ids and
 * the user's feedback, read from the attributes of Spring AI's observations, OpenTelemetry's GenAI
 * conventions or OpenInference's, or from the names a `trace.fields` mapping gives.
 *
 * Time is the traces' own: a trace is complete when the latest span end seen in the stream is
 * `quiet` seconds past its own latest span end (or at the input's end, or when the tool moves the
 * clock on for a stream gone idle), so the same input gives the same records on any machine. */
#ifndef RAG_TRACE_H
#define RAG_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <jv.h>

#include "base.h"
#include "config.h"

typedef struct rag_trace rag_trace;

typedef struct rag_trace_opts {
	double quiet;             /* seconds of the traces' time a trace must be quiet to be complete */
	size_t max_bytes;         /* spans held at most (an estimate of their bytes); 0: 16 MiB */
	double sample;            /* share of traces kept by rag_trace_sampled, 0..1 */
	const char *keep;         /* a jq filter: a trace it gives true for is kept (NULL: none) */
	const rag_kv *fields;     /* trace.fields: record field -> attribute name (borrowed) */
	size_t nfields;
} rag_trace_opts;

/* NULL with err when an option is bad (a field the mapping cannot fill, a filter that does not
 * compile). */
rag_trace *rag_trace_new(const rag_trace_opts *o, char *err, size_t errlen);

/* One input line (text[0..len)), an export request: its spans are held, and the records of the
 * traces it made complete, and of those evicted to stay within max_bytes, are appended to *out
 * (an array). Returns 0; 1 when some spans of the line were not read (no trace or span id: the
 * first problem in err, the rest of the line taken); -1 when the line is no export request at
 * all (err; nothing taken). */
int rag_trace_feed(rag_trace *t, const char *text, size_t len, jv *out, char *err, size_t errlen);
/* The stream has been idle for secs of wall time: the clock moves on by that much, and the
 * records of the traces now complete are appended to *out. */
void rag_trace_idle(rag_trace *t, double secs, jv *out);
/* The input's end: a record of every trace held, in the order they were first seen. */
void rag_trace_flush(rag_trace *t, jv *out);
/* The trace ids evicted incomplete since the last call (an array of {trace_id, spans}), for
 * the tool's messages; consumed by the caller. */
jv rag_trace_evicted(rag_trace *t);

typedef struct rag_trace_stats {
	long lines, bad_lines, spans, bad_spans, traces, records, sampled_out, evicted, late;
	size_t held_bytes, peak_bytes;
} rag_trace_stats;
void rag_trace_get_stats(const rag_trace *t, rag_trace_stats *s);

void rag_trace_free(rag_trace *t);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside trace.c (the sample that o.sample keeps) and by tests/unit/t-window.c.
 * Static in the library (RAG_UNITTEST, base.h): declared only when RAG_UNITTESTS is defined,
 * as for the unit tests' build of the library (obj/libragu.a). */
#ifdef RAG_UNITTESTS
/* Whether trace id (hex) is in the sample of rate: the first 8 bytes of the SHA-256 of its
 * lower-case text, as a fraction of 2^64, below rate. The same on every machine and run. */
int rag_trace_sampled(const char *trace_id, double rate);
#endif /* RAG_UNITTESTS */

#endif
