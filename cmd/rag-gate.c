/* rag-gate - decide whether a run of scored records is good enough: thresholds on the mean and
 * on each record, nulls counted, the worst records with their reasons, and the comparison with a
 * baseline run. It reads the whole run before it can say anything (a summary is not one line per
 * record); with --tee it passes the records on and so still sits inside a pipeline. */
#include "tool.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"Usage: rag-gate [OPTIONS] [FILE...] < records.jsonl\n"
	"Read a whole run of scored records and decide: exit 0 when it passes the gate, 1 when\n"
	"it fails. Thresholds come from the config's gate section and from the options.\n"
	"\n"
	"Options:\n"
	"  -t, --threshold METRIC=MIN         the mean of METRIC must be at least MIN\n"
	"  -r, --record-threshold METRIC=MIN  a record passes when its METRIC is at least MIN\n"
	"      --min-pass-rate RATE           share of records that must pass (default 1)\n"
	"      --max-error-rate RATE          share of records a metric may leave null (default 0)\n"
	"  -b, --baseline FILE                compare with an earlier run, aligned by id\n"
	"      --regression DELTA             a record regressed when it lost more (default 0.1)\n"
	"      --fail-on-regression           fail when a mean's interval lies wholly below 0\n"
	"      --seed N                       bootstrap seed (default 1)\n"
	"      --resamples N                  bootstrap resamples (default 2000)\n"
	"      --confidence LEVEL             bootstrap interval (default 0.95)\n"
	"      --worst N                      worst records listed (default 10)\n"
	"      --json                         the summary as one JSON object\n"
	"      --markdown                     the summary as Markdown (a pull-request comment)\n"
	"      --junit FILE                   JUnit XML: one test case per record and metric\n"
	"  -o, --output FILE                  write the summary to FILE\n"
	"      --tee                          pass the records to stdout; the summary goes to stderr\n"
	"\n";

enum {
	OPT_MIN_PASS = RAG_OPT_TOOL, OPT_MAX_ERR, OPT_REGRESSION, OPT_FAIL_REG, OPT_SEED, OPT_RESAMPLES,
	OPT_CONFIDENCE, OPT_WORST, OPT_JSON, OPT_MARKDOWN, OPT_JUNIT, OPT_TEE
};

static const struct option options[] = {
	{"threshold", required_argument, 0, 't'},
	{"record-threshold", required_argument, 0, 'r'},
	{"min-pass-rate", required_argument, 0, OPT_MIN_PASS},
	{"max-error-rate", required_argument, 0, OPT_MAX_ERR},
	{"baseline", required_argument, 0, 'b'},
	{"regression", required_argument, 0, OPT_REGRESSION},
	{"fail-on-regression", no_argument, 0, OPT_FAIL_REG},
	{"seed", required_argument, 0, OPT_SEED},
	{"resamples", required_argument, 0, OPT_RESAMPLES},
	{"confidence", required_argument, 0, OPT_CONFIDENCE},
	{"worst", required_argument, 0, OPT_WORST},
	{"json", no_argument, 0, OPT_JSON},
	{"markdown", no_argument, 0, OPT_MARKDOWN},
	{"junit", required_argument, 0, OPT_JUNIT},
	{"output", required_argument, 0, 'o'},
	{"tee", no_argument, 0, OPT_TEE},
	RAG_CLI_BASE_LONG,
	{0, 0, 0, 0},
};

typedef struct tool {
	rag_cli *cli;
	rag_gate *gate;
	int baseline;             /* reading the baseline */
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
	if (t->baseline) {
		if (!it->bad) rag_gate_baseline(t->gate, jv_copy(it->rec));
		return;
	}
	snprintf(where, sizeof where, "%s:%zu", t->input, it->lineno);
	if (t->junit_body) {
		jv checks = rag_gate_add(t->gate, it->rec, where, it->bad, 1);
		if (it->bad && jv_array_length(jv_copy(checks)) == 0) {
			checks = jv_array_append(checks, JV_OBJECT(jv_string("metric"), jv_string("(record)"),
			                                           jv_string("status"), jv_string("error"),
			                                           jv_string("message"), jv_string("the line is not a record")));
		}
		t->junit_case.len = 0;
		rag_junit_record(&t->junit_case, &t->junit, it->rec, where, checks);
		if (t->junit_case.len) fwrite(t->junit_case.p, 1, t->junit_case.len, t->junit_body);
		jv_free(checks);
	} else {
		rag_gate_add(t->gate, it->rec, where, it->bad, 0);
	}
}

/* One input; records to out (NULL: nowhere). */
static int read_input(tool *t, const char *name, FILE *out)
{
	t->input = strcmp(name, "-") ? name : "<stdin>";
	if (!t->baseline && !t->first_input) t->first_input = t->input;
	return rag_cli_read_run(t->cli, name, out, observe, t);
}

/* The JUnit file: the head, the records' cases kept aside, the tail. */
static int write_junit(tool *t, const char *path, jv s)
{
	FILE *f = fopen(path, "w");
	char buf[65536], *head;
	size_t n;
	int ok;
	if (!f) {
		rag_msg(t->cli->prog, "error", "cannot write \"%s\": %s", path, strerror(errno));
		return -1;
	}
	head = rag_junit_head(s, &t->junit);
	fputs(head, f);
	free(head);
	rewind(t->junit_body);
	while ((n = fread(buf, 1, sizeof buf, t->junit_body)) > 0) fwrite(buf, 1, n, f);
	fputs(rag_junit_tail(), f);
	ok = !ferror(t->junit_body) && !ferror(f);
	if (fclose(f) != 0) ok = 0;
	if (!ok) rag_msg(t->cli->prog, "error", "cannot write \"%s\": %s", path, strerror(errno));
	return ok ? 0 : -1;
}

/* ---------------------------------------------------------------- options */
int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_gate_opts go;
	rag_kd *fmean = NULL, *frec = NULL, *mean = NULL, *rec = NULL;
	size_t nfmean = 0, nfrec = 0, i;
	int opt, rc = 0, done, json = 0, markdown = 0, tee = 0, fail_reg = 0, pass = 0;
	double min_pass = NAN, max_err = NAN, regression = NAN, confidence = NAN;
	long seed = -1, resamples = 0, worst = -1;
	const char *baseline = NULL, *junit = NULL, *output = NULL;
	FILE *sout = NULL;
	jv summary = jv_invalid();

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-gate";
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
		case OPT_REGRESSION:
			if (rag_cli_double(&cli, "--regression", optarg, 0, 1, 0, &regression)) goto misuse;
			break;
		case OPT_FAIL_REG: fail_reg = 1; break;
		case OPT_SEED:
			if (rag_cli_int(&cli, "--seed", optarg, 0, 0x7fffffffffffffffL, &seed)) goto misuse;
			break;
		case OPT_RESAMPLES:
			if (rag_cli_int(&cli, "--resamples", optarg, 1, 1000000, &resamples)) goto misuse;
			break;
		case OPT_CONFIDENCE:
			if (rag_cli_double(&cli, "--confidence", optarg, 0, 0.999999, 1, &confidence)) goto misuse;
			break;
		case OPT_WORST:
			if (rag_cli_int(&cli, "--worst", optarg, 0, 100000, &worst)) goto misuse;
			break;
		case OPT_JSON: json = 1; break;
		case OPT_MARKDOWN: markdown = 1; break;
		case OPT_JUNIT: junit = optarg; break;
		case 'o': output = optarg; break;
		case OPT_TEE: tee = 1; break;
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

	memset(&go, 0, sizeof go);
	mean = rag_gate_thresholds_merge(cli.cfg.gate.mean, cli.cfg.gate.nmean, fmean, nfmean, &go.nmean);
	rec = rag_gate_thresholds_merge(cli.cfg.gate.record, cli.cfg.gate.nrecord, frec, nfrec, &go.nrecord);
	go.mean = mean;
	go.record = rec;
	go.min_pass_rate = isnan(min_pass) ? cli.cfg.gate.min_pass_rate : min_pass;
	go.max_error_rate = isnan(max_err) ? cli.cfg.gate.max_error_rate : max_err;
	go.regression = isnan(regression) ? cli.cfg.gate.regression : regression;
	go.confidence = isnan(confidence) ? cli.cfg.gate.confidence : confidence;
	go.fail_on_regression = fail_reg || cli.cfg.gate.fail_on_regression;
	go.resamples = resamples ? (int)resamples : cli.cfg.gate.resamples;
	go.worst = worst >= 0 ? (int)worst : cli.cfg.gate.worst;
	go.seed = (uint64_t)(seed >= 0 ? seed : cli.cfg.gate.seed);
	t.gate = rag_gate_new(&go);

	if (output && !(sout = fopen(output, "w"))) {
		rag_msg(cli.prog, "error", "cannot write \"%s\": %s", output, strerror(errno));
		rc = RAG_EXIT_USAGE;
		goto out;
	}
	if (junit && !(t.junit_body = tmpfile())) {
		rag_msg(cli.prog, "error", "cannot create a temporary file: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	if (baseline) {
		t.baseline = 1;
		rag_gate_baseline_name(t.gate, baseline);
		if ((rc = read_input(&t, baseline, NULL))) goto out;
		t.baseline = 0;
	}
	if (optind == argc) {
		rc = read_input(&t, "-", tee ? stdout : NULL);
	} else {
		for (i = (size_t)optind; i < (size_t)argc && !rc && !rag_tool_interrupted; i++)
			rc = read_input(&t, argv[i], tee ? stdout : NULL);
	}
	if (rc) goto out;

	summary = rag_gate_summary(t.gate);
	pass = jv_get_kind(jv_object_get(jv_copy(summary), jv_string("pass"))) == JV_KIND_TRUE;
	if (junit && write_junit(&t, junit, summary) < 0) {
		rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	if (!cli.quiet || sout) {
		FILE *f = sout ? sout : tee ? stderr : stdout;
		const char *nc = getenv("NO_COLOR");
		int color = !json && !markdown && !sout && isatty(fileno(f)) && !(nc && *nc);
		if (tee) fflush(stdout);
		if (json) {
			jv d = jv_dump_string(jv_copy(summary), 0);
			fprintf(f, "%s\n", jv_string_value(d));
			jv_free(d);
		} else if (markdown) {
			char *md = rag_report_markdown(JV_ARRAY(JV_OBJECT(jv_string("name"), jv_string(t.first_input ? t.first_input : "<stdin>"),
			                                                  jv_string("summary"), jv_copy(summary))), "rag-gate");
			fputs(md, f);
			free(md);
		} else {
			char *text = rag_report_text(summary, color);
			fputs(text, f);
			free(text);
		}
	}
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
	if (t.junit_body) fclose(t.junit_body);
	rag_buf_free(&t.junit_case);
	jv_free(summary);
	rag_gate_free(t.gate);
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
