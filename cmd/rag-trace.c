/* rag-trace - OpenTelemetry traces in, one record per RAG request out. It reads the
 * Collector's file exporter's OTLP JSON (one export request a line, as `tail -F` gives it),
 * and lib/trace.c holds the spans, decides when a trace is complete and makes its record; this
 * file reads the lines, moves the clock on when the input is idle, and writes. */
#include "tool.h"
#include "base.h"
#include "config.h"
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"Usage: rag-trace [OPTIONS] < traces.jsonl > records.jsonl\n"
	"Read OpenTelemetry traces as OTLP JSON (the Collector's file exporter: one export request\n"
	"a line) and write one record per complete trace: question, contexts, answer, model,\n"
	"started, latency_ms, usage, trace_id, span_id, feedback. Spring AI's, GenAI's and\n"
	"OpenInference's attribute names are known; trace.fields maps others.\n";

enum { OPT_QUIET_TIME = RAG_OPT_TOOL, OPT_SAMPLE, OPT_KEEP };

static const rag_opt options[] = {
	{"quiet-time", 0, OPT_QUIET_TIME, "SECONDS", NULL, "a trace is complete once the stream's latest span ends\n"
	 "SECONDS after its own last span, or the input has been idle that long (default 30)"},
	{"sample", 0, OPT_SAMPLE, "RATE", NULL, "keep this share of traces, chosen by their trace id (default 1)"},
	{"keep", 0, OPT_KEEP, "FILTER", NULL, "also keep a trace this jq filter gives true for (the record,\n"
	 "with .spans: [{name, span_id, parent_span_id, status, attributes}])"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	rag_trace *tr;
	int failed;               /* stdout could not be written */
	int stop;                 /* --strict: a bad line ends the input */
	long bad_lines;           /* lines over --max-line (the library counts the others) */
} tool;

static void write_records(tool *t, jv recs)
{
	rag_buf b = {0};
	jv_array_foreach(recs, i, r) {
		jv d = jv_dump_string(r, 0);
		rag_buf_adds(&b, jv_string_value(d));
		rag_buf_adds(&b, "\n");
		jv_free(d);
		(void)i;
	}
	jv_free(recs);
	if (b.len && !t->failed && (fwrite(b.p, 1, b.len, stdout) != b.len || fflush(stdout) != 0)) t->failed = 1;
	rag_buf_free(&b);
}

/* the traces evicted incomplete since the last look: a warning each, never a silent loss */
static void say_evicted(tool *t)
{
	jv e = rag_trace_evicted(t->tr);
	jv_array_foreach(e, i, x) {
		char id[40];
		jv n = jv_object_get(jv_copy(x), jv_string("spans"));
		rag_msg(t->cli->prog, "warning", "trace %s evicted before it was complete (%g spans held) to stay within "
		        "--max-memory: its record has an error", rag_json_str(x, "trace_id", id, sizeof id), jv_number_value(n));
		jv_free(n);
		jv_free(x);
		(void)i;
	}
	jv_free(e);
}

/* "rag-trace: LEVEL (at <stdin>:N): text", as every tool names a position */
static void say_at(const tool *t, const char *level, long lineno, const char *text)
{
	char *line = rag_xasprintf("%s (at <stdin>:%ld): %s", level, lineno, text);
	rag_tool_say(t->cli->prog, line);
	free(line);
}

static void one_line(tool *t, const char *s, size_t len, long lineno)
{
	char err[RAG_ERRLEN];
	jv out = jv_array();
	int rc = rag_trace_feed(t->tr, s, len, &out, err, sizeof err);
	if (rc < 0) {
		say_at(t, "error", lineno, err);
		if (t->cli->strict) t->stop = 1;
	}
	else if (rc > 0) {
		char *msg = rag_xasprintf("%s; the line's other spans were read", err);
		say_at(t, "warning", lineno, msg);
		free(msg);
	}
	say_evicted(t);
	write_records(t, out);
}

/* a line over --max-line is left out, a bad line as any other */
static void too_long(tool *t, long lineno, size_t max_line)
{
	char *msg = rag_xasprintf("the line is longer than --max-line (%zu bytes): left out", max_line);
	say_at(t, "error", lineno, msg);
	free(msg);
	t->bad_lines++;
	if (t->cli->strict) t->stop = 1;
}

/* The input, line by line; while it is idle (a `tail -F` between bursts), the clock moves on by
 * the time waited, so that the last traces come out without the next burst. 0, or an exit code. */
static int read_lines(tool *t, double quiet, size_t max_line)
{
	rag_buf b = {0};
	size_t start = 0;
	long lineno = 0, skipping = 0;
	double idle_since = rag_now();
	int rc = 0;
	for (;;) {
		char *nl = b.len > start ? memchr(b.p + start, '\n', b.len - start) : NULL;
		struct pollfd p = { .fd = 0, .events = POLLIN };
		ssize_t n;
		if (nl) {
			size_t len = (size_t)(nl - (b.p + start));
			lineno++;
			if (skipping) skipping = 0;
			else if (len > max_line) too_long(t, lineno, max_line);
			else one_line(t, b.p + start, len, lineno);
			start += len + 1;
			if (t->failed || t->stop || rag_tool_interrupted) break;
			continue;
		}
		if (start) {
			memmove(b.p, b.p + start, b.len - start);
			b.len -= start;
			start = 0;
		}
		if (b.len > max_line) {
			too_long(t, lineno + 1, max_line);
			b.len = 0;
			skipping = 1;
		}
		if (quiet > 0 && poll(&p, 1, (int)fmin(quiet * 1000, 60000)) == 0) {
			jv out = jv_array();
			double w = rag_now();
			rag_trace_idle(t->tr, w - idle_since, &out);
			idle_since = w;
			write_records(t, out);
			continue;
		}
		if (rag_tool_interrupted) break;
		if (b.cap - b.len < 65536) {
			b.cap = b.cap * 2 + 65536;
			b.p = rag_xrealloc(b.p, b.cap);
		}
		n = read(0, b.p + b.len, b.cap - b.len);
		if (n < 0 && errno == EINTR) continue;
		if (n < 0) {
			rag_msg(t->cli->prog, "error", "cannot read the input: %s", strerror(errno));
			rc = RAG_EXIT_INTERNAL;
			break;
		}
		idle_since = rag_now();
		if (n == 0) {
			if (b.len && !skipping) one_line(t, b.p, b.len, lineno + 1);
			break;
		}
		b.len += (size_t)n;
	}
	rag_buf_free(&b);
	return rc;
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_trace_opts o;
	rag_trace_stats st;
	char err[RAG_ERRLEN];
	int opt, rc = 0, done;
	jv out;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	memset(&o, 0, sizeof o);
	o.quiet = 30;
	o.sample = 1;
	cli.prog = "rag-trace";
	cli.usage = usage;
	cli.opts = options;
	t.cli = &cli;
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case OPT_QUIET_TIME:
			if (rag_cli_double(&cli, "--quiet-time", optarg, 0, 1e9, 0, &o.quiet) < 0) goto misuse;
			break;
		case OPT_SAMPLE:
			if (rag_cli_double(&cli, "--sample", optarg, 0, 1, 0, &o.sample) < 0) goto misuse;
			break;
		case OPT_KEEP: o.keep = optarg; break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) goto out;
		}
	}
	if ((rc = rag_cli_no_operands(&cli, argc, argv))) goto out;
	if ((rc = rag_cli_config(&cli))) goto out;
	o.fields = cli.cfg.trace.fields;
	o.nfields = cli.cfg.trace.nfields;
	o.max_bytes = cli.cfg.stream.max_memory > 0 ? (size_t)cli.cfg.stream.max_memory : 0;
	if (!(t.tr = rag_trace_new(&o, err, sizeof err))) {
		rag_msg(cli.prog, "error", "%s", err);
		goto misuse;
	}
	rag_tool_signals();
	rc = read_lines(&t, o.quiet, cli.max_line ? cli.max_line : 8388608);
	/* the input's end, or a signal: every trace held becomes a record, none is lost */
	out = jv_array();
	rag_trace_flush(t.tr, &out);
	write_records(&t, out);
	rag_trace_get_stats(t.tr, &st);
	if (!cli.quiet) {
		char *line = rag_xasprintf("%ld lines, %ld spans, %ld traces: %ld records, %ld left out by --sample, "
		                           "%ld evicted incomplete, %ld late, %ld bad lines, %ld bad spans",
		                           st.lines + t.bad_lines, st.spans, st.traces, st.records, st.sampled_out, st.evicted, st.late,
		                           st.bad_lines + t.bad_lines, st.bad_spans);
		rag_tool_say(cli.prog, line);
		free(line);
	}
	if (cli.verbose) {
		char *line = rag_xasprintf("spans held at most %zu bytes (--max-memory %zu)", st.peak_bytes,
		                           o.max_bytes ? o.max_bytes : (size_t)16777216);
		rag_tool_say(cli.prog, line);
		free(line);
	}
	if (!rc && t.failed) {
		if (errno != EPIPE) {
			rag_msg(cli.prog, "error", "cannot write output: %s", strerror(errno));
			rc = RAG_EXIT_INTERNAL;
		}
	} else if (!rc && (st.bad_lines || st.bad_spans || t.bad_lines)) {
		rc = RAG_EXIT_DATA;
	}
	if (rag_tool_interrupted && !rc) rc = 128 + (int)rag_tool_interrupted;

out:
	if (fclose(stdout) != 0 && errno != EPIPE && rc <= RAG_EXIT_FAIL) {
		rag_msg(cli.prog, "error", "cannot write output: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	rag_trace_free(t.tr);
	rag_cli_free(&cli);
	return rc;
misuse:
	rc = rag_cli_misuse(&cli);
	goto out;
}
