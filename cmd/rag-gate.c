/* rag-gate - decide whether a run of scored records is good enough: thresholds on the mean and
 * on each record, nulls counted, the worst records with their reasons, and the comparison with a
 * baseline run. It reads the whole run before it can say anything (a summary is not one line per
 * record); with --tee it passes the records on and so still sits inside a pipeline. */
#include "tool.h"
#include "base.h"
#include "stream.h"
#include "gate.h"
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"Usage: rag-gate [OPTIONS] [FILE...] < records.jsonl\n"
	"Read a whole run of scored records and decide: exit 0 when it passes the gate, 1 when\n"
	"it fails. Thresholds come from the config's gate section and from the options; with\n"
	"none, give --summary-only for the summary alone.\n";

enum { OPT_JSON = RAG_OPT_TOOL, OPT_MARKDOWN, OPT_JUNIT, OPT_TEE, OPT_SUMMARY_ONLY };

/* the RAG_OPT_ ones are rag_cli_gate's, handled by rag_cli_option */
static const rag_opt options[] = {
	RAG_CLI_GATE_THRESHOLD_OPTS,
	{"summary-only", 0, OPT_SUMMARY_ONLY, NULL, NULL, "no decision: the summary, and exit 0"},
	{"baseline", 'b', 'b', "FILE", RAG_ARG_FILE, "compare with an earlier run, aligned by id"},
	{"regression", 0, RAG_OPT_REGRESSION, "DELTA", NULL, "a record regressed when it lost more (default 0.1)"},
	{"fail-on-regression", 0, RAG_OPT_FAIL_REG, NULL, NULL, "fail when a mean's interval lies wholly below 0"},
	{"seed", 0, RAG_OPT_SEED, "N", NULL, "bootstrap seed (default 1)"},
	{"resamples", 0, RAG_OPT_RESAMPLES, "N", NULL, "bootstrap resamples (default 2000)"},
	{"confidence", 0, RAG_OPT_CONFIDENCE, "LEVEL", NULL, "bootstrap interval (default 0.95)"},
	{"worst", 0, RAG_OPT_WORST, "N", NULL, "worst records listed (default 10)"},
	{"json", 0, OPT_JSON, NULL, NULL, "the summary as one JSON object"},
	{"markdown", 0, OPT_MARKDOWN, NULL, NULL, "the summary as Markdown (a pull-request comment)"},
	{"junit", 0, OPT_JUNIT, "FILE", RAG_ARG_FILE, "JUnit XML: a suite per category, a test case per record"},
	{"output", 'o', 'o', "FILE", RAG_ARG_FILE, "write the summary to FILE"},
	{"tee", 0, OPT_TEE, NULL, NULL, "pass the records to stdout; the summary goes to stderr"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	rag_gate *gate;
	const char *input;
	const char *first_input;  /* the run's name in a Markdown summary */
	FILE *junit_body;         /* test cases, until the counts are known */
	rag_junit junit;
	rag_buf junit_case;
} tool;

static void observe(rag_item *it, void *ctx)
{
	tool *t = ctx;
	char where[600];
	rag_item_where(it, where, sizeof where);
	if (t->junit_body) {
		jv checks = rag_gate_add(t->gate, it->rec, where, it->bad, 1);
		if (it->bad && jv_array_length(jv_copy(checks)) == 0) {
			checks = jv_array_append(checks, JV_OBJECT(jv_string("metric"), jv_string("(record)"),
			                                           jv_string("status"), jv_string("error"),
			                                           jv_string("message"), jv_string("the line is not a record")));
		}
		t->junit_case.len = 0;
		rag_junit_record(&t->junit_case, &t->junit, it->rec, where, checks);
		if (t->junit_case.len) {
			/* each case behind its suite and length, read back suite by suite */
			uint32_t head[2] = {(uint32_t)t->junit.last, (uint32_t)t->junit_case.len};
			fwrite(head, sizeof head, 1, t->junit_body);
			fwrite(t->junit_case.p, 1, t->junit_case.len, t->junit_body);
		}
		jv_free(checks);
	} else {
		rag_gate_add(t->gate, it->rec, where, it->bad, 0);
	}
}

/* One input; records to out (NULL: nowhere). */
static int read_input(tool *t, const char *name, FILE *out)
{
	const char *file = rag_cli_run_file(name);
	t->input = file ? file : "<stdin>";
	if (!t->first_input) t->first_input = t->input;
	return rag_cli_read_run(t->cli, name, out, observe, t);
}

/* The JUnit file (f, open, closed here): the head, then each category's suite with its records'
 * cases, copied from where they were kept aside (a pass over them per suite), then the tail. */
static int write_junit(tool *t, FILE *f, const char *path, jv s)
{
	char buf[65536], *head;
	size_t k;
	int ok = 1;
	head = rag_junit_head(s, &t->junit);
	fputs(head, f);
	free(head);
	for (k = 0; k < t->junit.nsuite && ok; k++) {
		head = rag_junit_suite_head(&t->junit, k, s);
		fputs(head, f);
		free(head);
		uint32_t jc[2];
		ok = fseek(t->junit_body, 0, SEEK_SET) == 0;
		while (ok && fread(jc, sizeof jc, 1, t->junit_body) == 1) {
			size_t left = jc[1], n;
			if (jc[0] != k) {
				ok = fseek(t->junit_body, (long)left, SEEK_CUR) == 0;
				continue;
			}
			while (ok && left > 0 && (n = fread(buf, 1, left < sizeof buf ? left : sizeof buf, t->junit_body)) > 0) {
				fwrite(buf, 1, n, f);
				left -= n;
			}
			if (left) ok = 0;
		}
		fputs(rag_junit_suite_tail(), f);
	}
	fputs(rag_junit_tail(), f);
	ok = ok && !ferror(t->junit_body) && !ferror(f);
	if (fclose(f) != 0) ok = 0;
	if (!ok) rag_msg(t->cli->prog, "error", "cannot write \"%s\": %s", path, strerror(errno));
	return ok ? 0 : -1;
}

/* The summary as text, JSON or Markdown: to output (sout) when given, else to the standard
 * error with --tee (the records go to the standard output), else to the standard output. */
static int print_summary(tool *t, jv summary, int json, int markdown, int tee, FILE *sout, const char *output)
{
	FILE *f = sout ? sout : tee ? stderr : stdout;
	const char *nc = getenv("NO_COLOR");
	int color = !json && !markdown && !sout && isatty(fileno(f)) && !(nc && *nc), rc;
	char *text;
	if (tee) fflush(stdout);
	if (json) {
		jv d = jv_dump_string(jv_copy(summary), 0);
		text = rag_xasprintf("%s\n", jv_string_value(d));
		jv_free(d);
	} else if (markdown) {
		text = rag_report_markdown(JV_ARRAY(JV_OBJECT(jv_string("name"), jv_string(t->first_input ? t->first_input : "<stdin>"),
		                                              jv_string("summary"), jv_copy(summary))), "rag-gate");
	} else {
		text = rag_report_text(summary, color);
	}
	rc = rag_cli_write(t->cli, f, sout ? output : NULL, text);   /* one write: stderr is shared */
	free(text);
	return rc;
}

/* ---------------------------------------------------------------- options */
int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_gate_opts go;
	rag_cli_gate g;
	size_t i;
	int opt, rc = 0, done, json = 0, markdown = 0, tee = 0, pass = 0, summary_only = 0;
	const char *baseline = NULL, *junit = NULL, *output = NULL;
	FILE *sout = NULL, *jout = NULL;
	jv summary = jv_invalid();

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	rag_cli_gate_init(&g);
	cli.prog = "rag-gate";
	cli.usage = usage;
	cli.opts = options;
	cli.gate = &g;
	t.cli = &cli;
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case 'b': baseline = optarg; break;
		case OPT_JSON: json = 1; break;
		case OPT_MARKDOWN: markdown = 1; break;
		case OPT_JUNIT: junit = optarg; break;
		case 'o': output = optarg; break;
		case OPT_TEE: tee = 1; break;
		case OPT_SUMMARY_ONLY: summary_only = 1; break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) goto out;
		}
	}
	if (json && markdown) {
		rag_msg(cli.prog, "error", "--json and --markdown are two formats of one summary: choose one");
		goto misuse;
	}
	if ((rc = rag_cli_setup(&cli))) goto out;

	rag_cli_gate_opts(&cli, &g, &go);
	if (!summary_only && !rag_cli_gate_any(&go, baseline)) {
		/* a gate with nothing to check would pass any run that has its scores */
		rag_msg(cli.prog, "error", "no threshold to gate on: give -t METRIC=MIN or -r METRIC=MIN, or gate.mean "
		        "or gate.record in the configuration (rag.yaml), or --pass METRIC; --summary-only for the summary alone");
		goto misuse;
	}
	t.gate = rag_gate_new(&go);

	if (output && (rc = rag_cli_open(&cli, output, "w", &sout))) goto out;
	if (junit && (rc = rag_cli_open(&cli, junit, "w", &jout))) goto out;
	if (junit && !(t.junit_body = tmpfile())) {
		rag_msg(cli.prog, "error", "cannot create a temporary file: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	if (baseline && (rc = rag_cli_read_baseline(&cli, t.gate, baseline))) goto out;
	if (optind == argc) {
		rc = read_input(&t, "-", tee ? stdout : NULL);
	} else {
		for (i = (size_t)optind; i < (size_t)argc && !rc && !rag_tool_interrupted; i++)
			rc = read_input(&t, argv[i], tee ? stdout : NULL);
	}
	if (rc) goto out;

	summary = rag_cli_hints(&cli, t.gate, rag_gate_summary(t.gate));
	if (rag_gate_error(t.gate)) {
		/* scores were lost: no verdict, neither pass nor fail */
		rag_msg(cli.prog, "error", "%s: no summary", rag_gate_error(t.gate));
		rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	if (summary_only) {
		summary = jv_object_set(summary, jv_string("pass"), jv_null());
		summary = jv_object_set(summary, jv_string("verdict"), rag_verdict(summary));
	}
	pass = summary_only || jv_get_kind(jv_object_get(jv_copy(summary), jv_string("pass"))) == JV_KIND_TRUE;
	if (jout) {
		int bad = write_junit(&t, jout, junit, summary) < 0;   /* it closes jout */
		jout = NULL;
		if (bad) {
			rc = RAG_EXIT_INTERNAL;
			goto out;
		}
	}
	if ((!cli.quiet || sout) && (rc = print_summary(&t, summary, json, markdown, tee, sout, output))) goto out;
	rc = pass ? RAG_EXIT_OK : RAG_EXIT_FAIL;

out:
	if (sout && fclose(sout) != 0 && rc <= RAG_EXIT_FAIL) {
		rag_msg(cli.prog, "error", "cannot write \"%s\": %s", output, strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	if (fclose(stdout) != 0 && errno != EPIPE && rc <= RAG_EXIT_FAIL) {
		rag_msg(cli.prog, "error", "cannot write output: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	if (jout) fclose(jout);
	if (t.junit_body) fclose(t.junit_body);
	rag_buf_free(&t.junit_case);
	rag_junit_free(&t.junit);
	jv_free(summary);
	rag_gate_free(t.gate);
	rag_cli_gate_free(&g);
	rag_cli_free(&cli);
	return rc;
misuse:
	rc = rag_cli_misuse(&cli);
	goto out;
}
