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
	long tests, failures, errors;
} tool;

/* ---------------------------------------------------------------- escaping */
/* Text for a terminal: control characters (C0, DEL, C1) become "?" so that a hostile id or
 * claim cannot move the cursor or recolour the screen; cut at max bytes on a character. */
static void put_text(FILE *f, const char *s, size_t max)
{
	size_t i = 0, n = strlen(s);
	while (i < n) {
		long cp;
		size_t l = rag_utf8_decode(s + i, n - i, &cp);
		if (i + l > max) {
			fputs("...", f);
			return;
		}
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) putc('?', f);
		else fwrite(s + i, 1, l, f);
		i += l;
	}
}

/* XML 1.0 text or attribute value: the five entities; characters XML forbids (C0 controls but
 * tab, newline and return; U+FFFE, U+FFFF) become U+FFFD. */
static void put_xml(FILE *f, const char *s)
{
	size_t i = 0, n = strlen(s);
	while (i < n) {
		long cp;
		size_t l = rag_utf8_decode(s + i, n - i, &cp);
		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\n': fputs("&#10;", f); break;
		case '\r': fputs("&#13;", f); break;
		case '\t': fputs("&#9;", f); break;
		default:
			if (cp < 0x20 || cp == 0xfffe || cp == 0xffff) fputs("\xef\xbf\xbd", f);
			else fwrite(s + i, 1, l, f);
		}
		i += l;
	}
}

/* ---------------------------------------------------------------- reading */
static jv get(jv o, const char *k)
{
	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		return jv_invalid();
	}
	return jv_object_get(o, jv_string(k));
}

static const char *str(jv o, const char *k, char *buf, size_t n)
{
	jv v = get(jv_copy(o), k);
	if (jv_get_kind(v) == JV_KIND_STRING) snprintf(buf, n, "%s", jv_string_value(v));
	else if (jv_get_kind(v) == JV_KIND_NUMBER) snprintf(buf, n, "%.17g", jv_number_value(v));
	else snprintf(buf, n, "%s", "");
	jv_free(v);
	return buf;
}

static double dbl(jv o, const char *k)
{
	jv v = get(jv_copy(o), k);
	double d = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : NAN;
	jv_free(v);
	return d;
}

static void junit_case(tool *t, jv rec, const char *where, jv checks)
{
	FILE *f = t->junit_body;
	char id[700], cat[512];
	jv idv = get(jv_copy(rec), "id");
	if (jv_get_kind(idv) == JV_KIND_STRING) snprintf(id, sizeof id, "%s", jv_string_value(idv));
	else if (jv_get_kind(idv) == JV_KIND_NUMBER) snprintf(id, sizeof id, "%.17g", jv_number_value(idv));
	else snprintf(id, sizeof id, "%s", where);
	jv_free(idv);
	str(rec, "category", cat, sizeof cat);
	jv_array_foreach(checks, i, c) {
		char metric[256], status[16], msg[600];
		str(c, "metric", metric, sizeof metric);
		str(c, "status", status, sizeof status);
		str(c, "message", msg, sizeof msg);
		fputs("    <testcase classname=\"", f);
		put_xml(f, *cat ? cat : "ragpipe");
		fputs("\" name=\"", f);
		put_xml(f, id);
		fputs(" ", f);
		put_xml(f, metric);
		fputs("\"", f);
		t->tests++;
		if (!strcmp(status, "pass")) {
			fputs("/>\n", f);
		} else {
			int err = !strcmp(status, "error");
			t->failures += !err;
			t->errors += err;
			fprintf(f, ">\n      <%s message=\"", err ? "error" : "failure");
			put_xml(f, msg);
			fputs("\">", f);
			put_xml(f, where);
			fprintf(f, "</%s>\n    </testcase>\n", err ? "error" : "failure");
		}
		jv_free(c);
		(void)i;
	}
}

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
		junit_case(t, it->rec, where, checks);
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

/* ---------------------------------------------------------------- the summary */
static const char *c_on(int color, const char *code) { return color ? code : ""; }

static void fmt3(char *buf, size_t n, double x)
{
	if (isnan(x)) snprintf(buf, n, "-");
	else snprintf(buf, n, "%.3f", x);
}

static void text_metrics(FILE *f, jv metrics, int with_thr)
{
	fprintf(f, "  %-24s %8s %6s %7s %7s %7s %7s%s\n", "metric", "scored", "null", "mean", "median", "min", "p10",
	        with_thr ? "  thresholds" : "");
	jv_array_foreach(metrics, i, m) {
		char name[256], a[32], b[32], c[32], d[32];
		double tm = dbl(m, "threshold_mean"), tr = dbl(m, "threshold_record");
		str(m, "metric", name, sizeof name);
		fmt3(a, sizeof a, dbl(m, "mean"));
		fmt3(b, sizeof b, dbl(m, "median"));
		fmt3(c, sizeof c, dbl(m, "min"));
		fmt3(d, sizeof d, dbl(m, "p10"));
		fputs("  ", f);
		put_text(f, name, 24);
		fprintf(f, "%*s %8.0f %6.0f %7s %7s %7s %7s", (int)(strlen(name) < 24 ? 24 - strlen(name) : 0), "",
		        dbl(m, "scored"), dbl(m, "null"), a, b, c, d);
		if (with_thr && !isnan(tm)) fprintf(f, "  mean>=%.3f", tm);
		if (with_thr && !isnan(tr)) fprintf(f, "  record>=%.3f", tr);
		fputc('\n', f);
		jv_free(m);
		(void)i;
	}
	jv_free(metrics);
}

static void text_summary(FILE *f, jv s, int color)
{
	const char *G = c_on(color, "\033[32m"), *R = c_on(color, "\033[31m"), *B = c_on(color, "\033[1m"),
	           *N = c_on(color, "\033[0m");
	int pass = jv_get_kind(jv_object_get(jv_copy(s), jv_string("pass"))) == JV_KIND_TRUE;
	jv checks = get(jv_copy(s), "checks"), cats = get(jv_copy(s), "categories"), worst = get(jv_copy(s), "worst");
	jv base = get(jv_copy(s), "baseline"), metrics = get(jv_copy(s), "metrics");
	double pr = dbl(s, "pass_rate");

	fprintf(f, "%srag-gate: %s%s%s%s: %.0f record%s, %.0f passed", B, pass ? G : R, pass ? "PASS" : "FAIL", N, B,
	        dbl(s, "records"), dbl(s, "records") == 1 ? "" : "s", dbl(s, "passed"));
	if (!isnan(pr)) fprintf(f, " (%.1f%%)", pr * 100);
	fprintf(f, ", %.0f with errors or nulls%s\n", dbl(s, "errored"), N);
	if (jv_array_length(jv_copy(metrics))) {
		fputc('\n', f);
		text_metrics(f, metrics, 1);
	} else {
		jv_free(metrics);
	}
	fprintf(f, "\n%schecks%s\n", B, N);
	jv_array_foreach(checks, i, c) {
		char msg[2048];
		int ok = jv_get_kind(jv_object_get(jv_copy(c), jv_string("pass"))) == JV_KIND_TRUE;
		fprintf(f, "  %s%-4s%s ", ok ? G : R, ok ? "ok" : "FAIL", N);
		put_text(f, str(c, "message", msg, sizeof msg), 400);
		fputc('\n', f);
		jv_free(c);
		(void)i;
	}
	if (jv_array_length(jv_copy(checks)) == 0) fputs("  (no thresholds)\n", f);
	jv_array_foreach(cats, i, c) {
		char name[512];
		double cpr = dbl(c, "pass_rate");
		if (i == 0) fprintf(f, "\n%scategories%s\n", B, N);
		fputs("  ", f);
		put_text(f, str(c, "category", name, sizeof name), 80);
		fprintf(f, ": %.0f record%s, %.0f passed", dbl(c, "records"), dbl(c, "records") == 1 ? "" : "s", dbl(c, "passed"));
		if (!isnan(cpr)) fprintf(f, " (%.1f%%)", cpr * 100);
		fputc('\n', f);
		text_metrics(f, get(jv_copy(c), "metrics"), 0);
		jv_free(c);
	}
	jv_array_foreach(worst, i, w) {
		char id[512], at[600], cat[512];
		jv sc = get(jv_copy(w), "scores"), rs = get(jv_copy(w), "reasons");
		if (i == 0) fprintf(f, "\n%sworst records%s\n", B, N);
		fprintf(f, "  %d. ", i + 1);
		put_text(f, *str(w, "id", id, sizeof id) ? id : "(no id)", 120);
		str(w, "category", cat, sizeof cat);
		if (*cat) {
			fputs(" [", f);
			put_text(f, cat, 80);
			fputs("]", f);
		}
		fprintf(f, " at %s", str(w, "at", at, sizeof at));
		jv_object_foreach(sc, k, v) {
			fputs("  ", f);
			put_text(f, jv_string_value(k), 60);
			if (jv_get_kind(v) == JV_KIND_NUMBER) fprintf(f, " %.3f", jv_number_value(v));
			else fputs(" null", f);
			jv_free(k);
			jv_free(v);
		}
		fputc('\n', f);
		jv_array_foreach(rs, j, r) {
			fputs("     - ", f);
			put_text(f, jv_get_kind(r) == JV_KIND_STRING ? jv_string_value(r) : "", 300);
			fputc('\n', f);
			jv_free(r);
			(void)j;
		}
		jv_free(sc);
		jv_free(rs);
		jv_free(w);
	}
	if (jv_is_valid(base)) {
		char file[512];
		jv bm = get(jv_copy(base), "metrics"), reg = get(jv_copy(base), "regressed"), imp = get(jv_copy(base), "improved");
		jv oc = get(jv_copy(base), "only_current"), ob = get(jv_copy(base), "only_baseline");
		fprintf(f, "\n%sbaseline%s ", B, N);
		put_text(f, str(base, "file", file, sizeof file), 200);
		fprintf(f, ": %.0f record%s, %.0f matched by id; %.0f only in this run, %.0f only in the baseline\n",
		        dbl(base, "records"), dbl(base, "records") == 1 ? "" : "s", dbl(base, "matched"), dbl(base, "only_current_count"), dbl(base, "only_baseline_count"));
		fprintf(f, "  %-24s %6s %8s %8s %8s  %g%% interval (seed %.0f, %.0f resamples)\n", "metric", "pairs", "baseline",
		        "now", "delta", dbl(base, "confidence") * 100, dbl(base, "seed"), dbl(base, "resamples"));
		jv_array_foreach(bm, i, m) {
			char name[256], ch[32];
			str(m, "metric", name, sizeof name);
			str(m, "change", ch, sizeof ch);
			fputs("  ", f);
			put_text(f, name, 24);
			fprintf(f, "%*s %6.0f %8.3f %8.3f %s%+8.3f  [%+.3f, %+.3f]%s%s\n", (int)(strlen(name) < 24 ? 24 - strlen(name) : 0), "",
			        dbl(m, "pairs"), dbl(m, "baseline_mean"), dbl(m, "mean"),
			        !strcmp(ch, "regression") ? R : !strcmp(ch, "improvement") ? G : "", dbl(m, "delta"),
			        dbl(m, "ci_low"), dbl(m, "ci_high"), strcmp(ch, "none") ? (!strcmp(ch, "regression") ? "  regression" : "  improvement") : "", N);
			jv_free(m);
			(void)i;
		}
		for (int pass2 = 0; pass2 < 2; pass2++) {
			jv list = pass2 ? imp : reg;
			double count = dbl(base, pass2 ? "improved_count" : "regressed_count");
			if (count > 0)
				fprintf(f, "  %s by more than %.3f: %.0f\n", pass2 ? "improved" : "regressed", dbl(base, "regression"), count);
			jv_array_foreach(list, i, c) {
				char id[512], m[256];
				if (i < 20) {
					fputs("    ", f);
					put_text(f, str(c, "id", id, sizeof id), 120);
					fputs(" ", f);
					put_text(f, str(c, "metric", m, sizeof m), 60);
					fprintf(f, " %.3f -> %.3f (%+.3f)\n", dbl(c, "baseline"), dbl(c, "current"), dbl(c, "delta"));
				}
				jv_free(c);
			}
			jv_free(list);
		}
		for (int pass2 = 0; pass2 < 2; pass2++) {
			jv list = pass2 ? ob : oc;
			int n = jv_array_length(jv_copy(list));
			if (n) fprintf(f, "  only in %s:", pass2 ? "the baseline" : "this run");
			jv_array_foreach(list, i, id) {
				if (i < 20) {
					fputc(' ', f);
					put_text(f, jv_string_value(id), 120);
				}
				jv_free(id);
			}
			if (n > 20) fprintf(f, " ... (%d more listed in --json)", n - 20);
			if (n) fputc('\n', f);
			jv_free(list);
		}
		jv_free(bm);
	}
	jv_free(base);
	jv_free(checks);
	jv_free(cats);
	jv_free(worst);
}

/* The JUnit file: a suite for the gate's own checks, a suite for the records. */
static int write_junit(tool *t, const char *path, jv s)
{
	FILE *f = fopen(path, "w");
	jv checks = get(jv_copy(s), "checks");
	long nc = 0, fc = 0;
	char buf[65536];
	size_t n;
	int ok;
	if (!f) {
		rag_msg(t->cli->prog, "error", "cannot write \"%s\": %s", path, strerror(errno));
		jv_free(checks);
		return -1;
	}
	jv_array_foreach(checks, i, c) {
		nc++;
		fc += jv_get_kind(jv_object_get(jv_copy(c), jv_string("pass"))) != JV_KIND_TRUE;
		jv_free(c);
		(void)i;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"rag-gate\" tests=\"%ld\" failures=\"%ld\" errors=\"%ld\">\n", nc + t->tests,
	        fc + t->failures, t->errors);
	fprintf(f, "  <testsuite name=\"gate\" tests=\"%ld\" failures=\"%ld\" errors=\"0\">\n", nc, fc);
	jv_array_foreach(checks, i, c) {
		char what[512], msg[2048];
		int pass = jv_get_kind(jv_object_get(jv_copy(c), jv_string("pass"))) == JV_KIND_TRUE;
		fputs("    <testcase classname=\"gate\" name=\"", f);
		put_xml(f, str(c, "check", what, sizeof what));
		fputs("\"", f);
		if (pass) {
			fputs("/>\n", f);
		} else {
			fputs(">\n      <failure message=\"", f);
			put_xml(f, str(c, "message", msg, sizeof msg));
			fputs("\"/>\n    </testcase>\n", f);
		}
		jv_free(c);
		(void)i;
	}
	fputs("  </testsuite>\n", f);
	fprintf(f, "  <testsuite name=\"records\" tests=\"%ld\" failures=\"%ld\" errors=\"%ld\">\n", t->tests, t->failures,
	        t->errors);
	rewind(t->junit_body);
	while ((n = fread(buf, 1, sizeof buf, t->junit_body)) > 0) fwrite(buf, 1, n, f);
	fputs("  </testsuite>\n</testsuites>\n", f);
	ok = !ferror(t->junit_body) && !ferror(f);
	if (fclose(f) != 0) ok = 0;
	jv_free(checks);
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
			text_summary(f, summary, color);
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
