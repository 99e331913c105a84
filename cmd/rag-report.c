/* rag-report - one run, or several runs as a history, rendered as one self-contained HTML page
 * (or Markdown): the summary of rag-gate, histograms, trends, the failed records, a baseline. */
#include "tool.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-report [OPTIONS] [RUN.jsonl...] > report.html\n"
	"Render scored runs (oldest first; the last is the run reported, the others its history)\n"
	"as one self-contained HTML page, or as Markdown.\n"
	"\n"
	"Options:\n"
	"  -t, --threshold METRIC=MIN         the mean of METRIC must be at least MIN\n"
	"  -r, --record-threshold METRIC=MIN  a record passes when its METRIC is at least MIN\n"
	"      --min-pass-rate RATE           share of records that must pass (default 1)\n"
	"      --max-error-rate RATE          share of records a metric may leave null (default 0)\n"
	"  -b, --baseline FILE                compare the last run with an earlier run, by id\n"
	"      --worst N                      failed and worst records listed (default 10)\n"
	"      --title TEXT                   the page's title\n"
	"      --markdown                     Markdown instead of HTML\n"
	"  -o, --output FILE                  write to FILE instead of standard output\n"
	"\n";

enum { OPT_MIN_PASS = RAG_OPT_TOOL, OPT_MAX_ERR, OPT_WORST, OPT_TITLE, OPT_MARKDOWN };

static const struct option options[] = {
	{"threshold", required_argument, 0, 't'},
	{"record-threshold", required_argument, 0, 'r'},
	{"min-pass-rate", required_argument, 0, OPT_MIN_PASS},
	{"max-error-rate", required_argument, 0, OPT_MAX_ERR},
	{"baseline", required_argument, 0, 'b'},
	{"worst", required_argument, 0, OPT_WORST},
	{"title", required_argument, 0, OPT_TITLE},
	{"markdown", no_argument, 0, OPT_MARKDOWN},
	{"output", required_argument, 0, 'o'},
	RAG_CLI_BASE_LONG,
	{0, 0, 0, 0},
};

typedef struct tool {
	rag_cli *cli;
	rag_gate *gate;
	int baseline;
	const char *input;
} tool;

static void observe(rag_item *it, void *ctx)
{
	tool *t = ctx;
	char where[600];
	if (t->baseline) {
		if (!it->bad) rag_gate_baseline(t->gate, jv_copy(it->rec));
		return;
	}
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
	rag_kd *fmean = NULL, *frec = NULL, *mean = NULL, *rec = NULL;
	size_t nfmean = 0, nfrec = 0, i;
	int opt, rc = 0, done, markdown = 0, nfiles;
	double min_pass = NAN, max_err = NAN;
	long worst = -1;
	const char *baseline = NULL, *output = NULL, *title = NULL;
	char *text = NULL;
	jv runs = jv_array();
	FILE *out = stdout;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-report";
	cli.usage = usage;
	t.cli = &cli;
	while ((opt = getopt_long(argc, argv, "t:r:b:o:" RAG_CLI_BASE_SHORT, options, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (rag_cli_threshold(&cli, "--threshold", optarg, &fmean, &nfmean)) goto misuse;
			break;
		case 'r':
			if (rag_cli_threshold(&cli, "--record-threshold", optarg, &frec, &nfrec)) goto misuse;
			break;
		case OPT_MIN_PASS:
			if (rag_cli_double(&cli, "--min-pass-rate", optarg, 0, 1, 0, &min_pass)) goto misuse;
			break;
		case OPT_MAX_ERR:
			if (rag_cli_double(&cli, "--max-error-rate", optarg, 0, 1, 0, &max_err)) goto misuse;
			break;
		case 'b': baseline = optarg; break;
		case OPT_WORST:
			if (rag_cli_int(&cli, "--worst", optarg, 0, 100000, &worst)) goto misuse;
			break;
		case OPT_TITLE: title = optarg; break;
		case OPT_MARKDOWN: markdown = 1; break;
		case 'o': output = optarg; break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) goto out;
		}
	}
	if ((rc = rag_cli_setup(&cli))) goto out;

	memset(&go, 0, sizeof go);
	mean = rag_gate_thresholds_merge(cli.cfg.gate.mean, cli.cfg.gate.nmean, fmean, nfmean, &go.nmean);
	rec = rag_gate_thresholds_merge(cli.cfg.gate.record, cli.cfg.gate.nrecord, frec, nfrec, &go.nrecord);
	go.mean = mean;
	go.record = rec;
	go.min_pass_rate = isnan(min_pass) ? cli.cfg.gate.min_pass_rate : min_pass;
	go.max_error_rate = isnan(max_err) ? cli.cfg.gate.max_error_rate : max_err;
	go.regression = cli.cfg.gate.regression;
	go.confidence = cli.cfg.gate.confidence;
	go.fail_on_regression = cli.cfg.gate.fail_on_regression;
	go.resamples = cli.cfg.gate.resamples;
	go.worst = worst >= 0 ? (int)worst : cli.cfg.gate.worst;
	go.seed = (uint64_t)cli.cfg.gate.seed;

	nfiles = argc - optind;
	for (i = 0; i < (size_t)(nfiles ? nfiles : 1) && !rc; i++) {
		const char *name = nfiles ? argv[optind + (int)i] : "-";
		int last = i + 1 == (size_t)(nfiles ? nfiles : 1);
		t.gate = rag_gate_new(&go);
		if (last && baseline) {
			t.baseline = 1;
			rag_gate_baseline_name(t.gate, baseline);
			rc = read_input(&t, baseline);
			t.baseline = 0;
		}
		if (!rc) rc = read_input(&t, name);
		if (!rc)
			runs = jv_array_append(runs, JV_OBJECT(jv_string("name"), jv_string(strcmp(name, "-") ? name : "<stdin>"),
			                                       jv_string("summary"), rag_gate_summary(t.gate)));
		rag_gate_free(t.gate);
		t.gate = NULL;
	}
	if (rc) goto out;

	if (!title) title = "RAG evaluation report";
	text = markdown ? rag_report_markdown(jv_copy(runs), title) : rag_report_html(jv_copy(runs), title);
	if (output && !(out = fopen(output, "w"))) {
		rag_msg(cli.prog, "error", "cannot write \"%s\": %s", output, strerror(errno));
		rc = RAG_EXIT_USAGE;
		goto out;
	}
	fputs(text, out);
	if (out != stdout && fclose(out) != 0) {
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
	for (i = 0; i < nfmean; i++) free(fmean[i].key);
	for (i = 0; i < nfrec; i++) free(frec[i].key);
	free(fmean);
	free(frec);
	free(mean);
	free(rec);
	rag_cli_free(&cli);
	return rc;
misuse:
	rc = rag_cli_misuse(&cli);
	goto out;
}
