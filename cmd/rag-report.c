/* rag-report - one run, or several runs as a history, rendered as one self-contained HTML page
 * (or Markdown): the summary of rag-gate, histograms, trends, the failed records, a baseline. */
#include "tool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-report [OPTIONS] [RUN.jsonl...] > report.html\n"
	"Render scored runs (oldest first; the last is the run reported, the others its history)\n"
	"as one self-contained HTML page, or as Markdown.\n";

enum { OPT_TITLE = RAG_OPT_TOOL, OPT_MARKDOWN };

/* the RAG_OPT_ ones are rag_cli_gate's, handled by rag_cli_option */
static const rag_opt options[] = {
	RAG_CLI_GATE_THRESHOLD_OPTS,
	{"baseline", 'b', 'b', "FILE", RAG_ARG_FILE, "compare the last run with an earlier run, by id"},
	{"worst", 0, RAG_OPT_WORST, "N", NULL, "failed and worst records listed (default 10)"},
	{"title", 0, OPT_TITLE, "TEXT", NULL, "the page's title"},
	{"markdown", 0, OPT_MARKDOWN, NULL, NULL, "Markdown instead of HTML"},
	{"output", 'o', 'o', "FILE", RAG_ARG_FILE, "write to FILE instead of standard output"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	rag_gate *gate;
	const char *input;
} tool;

static void observe(rag_item *it, void *ctx)
{
	tool *t = ctx;
	char where[600];
	snprintf(where, sizeof where, "%s:%zu", t->input, it->lineno);
	rag_gate_add(t->gate, it->rec, where, it->bad, 0);
}

static int read_input(tool *t, const char *name)
{
	t->input = strcmp(name, "-") ? name : "<stdin>";
	return rag_cli_read_run(t->cli, name, NULL, observe, t);
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_gate_opts go;
	rag_cli_gate g;
	size_t i;
	int opt, rc = 0, done, markdown = 0, nfiles;
	const char *baseline = NULL, *output = NULL, *title = NULL;
	char *text = NULL;
	jv runs = jv_array();
	FILE *out = stdout;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	rag_cli_gate_init(&g);
	cli.prog = "rag-report";
	cli.usage = usage;
	cli.opts = options;
	cli.gate = &g;
	t.cli = &cli;
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case 'b': baseline = optarg; break;
		case OPT_TITLE: title = optarg; break;
		case OPT_MARKDOWN: markdown = 1; break;
		case 'o': output = optarg; break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) goto out;
		}
	}
	if ((rc = rag_cli_setup(&cli))) goto out;

	rag_cli_gate_opts(&cli, &g, &go);

	nfiles = argc - optind;
	for (i = 0; i < (size_t)(nfiles ? nfiles : 1) && !rc; i++) {
		const char *name = nfiles ? argv[optind + (int)i] : "-";
		int last = i + 1 == (size_t)(nfiles ? nfiles : 1);
		t.gate = rag_gate_new(&go);
		if (last && baseline) rc = rag_cli_read_baseline(&cli, t.gate, baseline);
		if (!rc) rc = read_input(&t, name);
		if (!rc) {
			jv s = last ? rag_cli_hints(&cli, t.gate, rag_gate_summary(t.gate)) : rag_gate_summary(t.gate);
			/* no threshold, no verdict: the page does not say PASS of a run nothing was asked of */
			if (!rag_cli_gate_any(&go, last ? baseline : NULL)) s = jv_object_set(s, jv_string("pass"), jv_null());
			runs = jv_array_append(runs, JV_OBJECT(jv_string("name"), jv_string(strcmp(name, "-") ? name : "<stdin>"),
			                                       jv_string("summary"), s));
		}
		rag_gate_free(t.gate);
		t.gate = NULL;
	}
	if (rc) goto out;

	if (!title) title = "RAG evaluation report";
	text = markdown ? rag_report_markdown(jv_copy(runs), title) : rag_report_html(jv_copy(runs), title);
	if (output && (rc = rag_cli_open(&cli, output, "w", &out))) goto out;
	rc = rag_cli_write(&cli, out, output, text);
	if (out != stdout && fclose(out) != 0 && rc == 0) {
		rag_msg(cli.prog, "error", "cannot write \"%s\": %s", output, strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
out:
	if (fclose(stdout) != 0 && errno != EPIPE && rc == 0) {
		rag_msg(cli.prog, "error", "cannot write output: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	free(text);
	jv_free(runs);
	rag_cli_gate_free(&g);
	rag_cli_free(&cli);
	return rc;
}
