/* t-verdict.c - one run, one verdict (issue 35): a property test. A seeded generator makes
 * varied runs (categories, refusals, metrics not applicable, records a judge or their input
 * failed, an unreachable judge, gate.by_category, error budgets, runs with no threshold), each
 * gated once (lib/gate.c, lib/verdict.c); a checker reads the decision, the exit status, the
 * counts and the pass rate back from every surface a run has - gate.json (the summary),
 * gate.txt (rag_report_text), JUnit (rag_junit_head), summary.md (rag_report_markdown),
 * report.html (rag_report_html_frame), the store (rag_store_add, then rag_store_show, its
 * records' passed and its trends) and rag-serve's API (/api/runs/ID/checks, /api/trends) - and
 * finds them the same, and the exit status the one rule's (rag(7) EXIT STATUS). */
#include "base.h"
#include "config.h"
#include "gate.h"
#include "report.h"
#include "store.h"
#include "serve.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUNS 240

/* what the generator made: runs by exit status and by decision (the checker's coverage) */
static int by_exit[6], by_decision[3], with_budget_held;

/* what a surface says of the run */
typedef struct said {
	char decision[16];        /* pass, fail, none */
	long exit_status, records, passed, failed, errored;
	double pass_rate;         /* NAN: none */
} said;

static const char *const cats[] = {"hr", "it", "sales"};

/* a generated run: its records as JSON Lines and the gate's options */
typedef struct gen {
	rag_buf lines;
	rag_kd mean[2], record[3];
	rag_cat_kd bycat[1];
	rag_gate_opts o;
} gen;

static double draw(rag_rng *r, int n) { return (double)rag_rng_below(r, (uint64_t)n); }

static void gen_run(gen *g, rag_rng *r)
{
	long n = 1 + (long)rag_rng_below(r, 12), i;
	int dead = rag_rng_below(r, 10) == 0;               /* an unreachable judge: every record */
	int bad = (int)rag_rng_below(r, 4);                 /* how often a record is not scored */
	memset(g, 0, sizeof *g);
	for (i = 0; i < n; i++) {
		jv rec = JV_OBJECT(jv_string("id"), jv_string_fmt("q%ld", i), jv_string("question"), jv_string("q?"),
		                   jv_string("answer"), jv_string("a."));
		jv scores = jv_object();
		int refusal = rag_rng_below(r, 5) == 0, fail = dead || (bad && rag_rng_below(r, 6) < (uint64_t)bad);
		if (rag_rng_below(r, 4)) rec = jv_object_set(rec, jv_string("category"), jv_string(cats[rag_rng_below(r, 3)]));
		if (fail) {
			int remote = dead || rag_rng_below(r, 2);
			jv e = remote ? JV_OBJECT(jv_string("tool"), jv_string("rag-verify"), jv_string("message"), jv_string("http 500"))
			              : JV_OBJECT(jv_string("tool"), jv_string("rag-verify"), jv_string("at"), jv_string("answer"),
			                          jv_string("message"), jv_string("no answer"));
			scores = jv_object_set(scores, jv_string("faithfulness"), jv_null());
			if (rag_rng_below(r, 5)) rec = jv_object_set(rec, jv_string("errors"), JV_ARRAY(e));
			else jv_free(e);   /* a null without an error entry: not scored all the same */
		} else {
			scores = jv_object_set(scores, jv_string("faithfulness"), jv_number(draw(r, 101) / 100));
		}
		if (refusal) {
			rec = jv_object_set(rec, jv_string("expect"), jv_string("refusal"));
			scores = jv_object_set(scores, jv_string("refusal"), jv_number(draw(r, 2)));
		} else {
			scores = jv_object_set(scores, jv_string("refusal"), jv_null());
			rec = jv_object_set(rec, jv_string("not_applicable"), JV_OBJECT(jv_string("refusal"), jv_string("answerable")));
		}
		rec = jv_object_set(rec, jv_string("scores"), scores);
		{
			jv d = jv_dump_string(rec, 0);
			rag_buf_adds(&g->lines, jv_string_value(d));
			rag_buf_adds(&g->lines, "\n");
			jv_free(d);
		}
	}
	/* the gate: each threshold or setting drawn apart, none at all now and then */
	if (rag_rng_below(r, 2)) {
		g->mean[g->o.nmean].key = (char *)"faithfulness";
		g->mean[g->o.nmean++].value = draw(r, 9) / 10;
	}
	if (rag_rng_below(r, 3)) {
		g->record[g->o.nrecord].key = (char *)"faithfulness";
		g->record[g->o.nrecord++].value = draw(r, 7) / 10;
	}
	if (rag_rng_below(r, 2)) {   /* rag-eval's implicit refusal threshold */
		g->record[g->o.nrecord].key = (char *)"refusal";
		g->record[g->o.nrecord++].value = 1;
	}
	if (g->o.nrecord && rag_rng_below(r, 2)) {
		g->bycat[0].category = (char *)"hr";
		g->bycat[0].metric = (char *)"faithfulness";
		g->bycat[0].value = 0.9;
		g->o.by_category = g->bycat;
		g->o.nby_category = 1;
	}
	g->o.mean = g->mean;
	g->o.record = g->record;
	g->o.min_pass_rate = (double)(rag_rng_below(r, 5) + 5) / 10 - (rag_rng_below(r, 2) ? 0.25 : 0);
	g->o.max_error_rate = (const double[]){0, 0, 0.1, 0.3, 0.7}[rag_rng_below(r, 5)];
	g->o.confidence = 0.95;
	g->o.resamples = 100;
	g->o.worst = 3;
}

static int gated(const rag_gate_opts *o) { return o->nmean || o->nrecord; }

/* the counts sentence of rag_report_counts at s: "N records: P passed (...), F failed, E with" */
static int counts_at(const char *s, said *w)
{
	const char *p;
	if (!s || sscanf(s, "%ld record", &w->records) != 1) return -1;
	if (!(p = strstr(s, ": ")) || sscanf(p, ": %ld passed", &w->passed) != 1) return -1;
	if (!(p = strstr(p, ", ")) || !(p = strstr(p, " failed")) ) return -1;
	while (p > s && p[-1] >= '0' && p[-1] <= '9') p--;
	if (sscanf(p, "%ld failed, %ld with errors", &w->failed, &w->errored) != 2) return -1;
	return 0;
}

static void word(said *w, const char *verdict)
{
	snprintf(w->decision, sizeof w->decision, "%s", !strcmp(verdict, "PASS") ? "pass" : !strcmp(verdict, "FAIL") ? "fail" : "none");
}

static said from_verdict(jv v)
{
	said w;
	char d[16];
	memset(&w, 0, sizeof w);
	snprintf(w.decision, sizeof w.decision, "%s", rag_json_str(v, "decision", d, sizeof d));
	w.exit_status = (long)rag_json_num(v, "exit_status");
	w.records = (long)rag_json_num(v, "records");
	w.passed = (long)rag_json_num(v, "passed");
	w.failed = (long)rag_json_num(v, "failed");
	w.errored = (long)rag_json_num(v, "errored");
	w.pass_rate = rag_json_num(v, "pass_rate");
	return w;
}

static int same(const said *a, const said *b, int rate)
{
	int r = !strcmp(a->decision, b->decision) && a->exit_status == b->exit_status && a->records == b->records &&
	        a->passed == b->passed && a->failed == b->failed && a->errored == b->errored;
	if (rate) r &= (isnan(a->pass_rate) && isnan(b->pass_rate)) || fabs(a->pass_rate - b->pass_rate) < 1e-9;
	return r;
}

static void diag(const char *what, const said *a, const said *b)
{
	printf("#   %s: %s exit %ld, %ld records, %ld passed, %ld failed, %ld errored, rate %g; the verdict: %s exit %ld, "
	       "%ld, %ld, %ld, %ld, %g\n", what, a->decision, a->exit_status, a->records, a->passed, a->failed, a->errored,
	       a->pass_rate, b->decision, b->exit_status, b->records, b->passed, b->failed, b->errored, b->pass_rate);
}

static void agree(int k, const char *what, const said *got, const said *v, int rate)
{
	int s = same(got, v, rate);
	ok(s, "run %d: %s says the verdict", k, what);
	if (!s) diag(what, got, v);
}

/* the one rule, restated: an outage beyond the budget or more than half, else the gate's */
static long rule(jv v, const rag_gate_opts *o)
{
	long n = (long)rag_json_num(v, "records"), u = (long)rag_json_num(v, "not_scored");
	long remote = (long)rag_json_num(v, "remote_failed");
	char d[16];
	if (u > 0 && (2 * u > n || (double)u > o->max_error_rate * (double)n + 1e-9)) return remote ? 4 : 3;
	return !strcmp(rag_json_str(v, "decision", d, sizeof d), "fail") ? 1 : 0;
}

static const char *no_args(void *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return NULL;
}

static const char *all_records(void *ctx, const char *name)
{
	(void)ctx;
	return !strcmp(name, "limit") ? "500" : NULL;
}

static void surfaces(int k, gen *g, rag_store *st)
{
	rag_gate *gt = rag_gate_new(&g->o);
	jv summary, v;
	said sv, w;
	char *text, *line, err[RAG_ERRLEN], id[32], path[96];
	const char *p, *q;
	size_t pos = 0;

	/* gate.json: the gate, once */
	while (pos < g->lines.len) {
		const char *nl = memchr(g->lines.p + pos, '\n', g->lines.len - pos);
		jv rec = jv_parse_sized(g->lines.p + pos, (int)(nl - (g->lines.p + pos)));
		jv_free(rag_gate_add(gt, rec, "t", 0, 0));
		jv_free(rec);
		pos = (size_t)(nl - g->lines.p) + 1;
	}
	summary = jv_object_set(rag_gate_summary(gt), jv_string("hints"), jv_array());   /* as the tools' (rag_cli_hints) */
	if (!gated(&g->o)) {   /* rag-gate --summary-only, rag-eval with no threshold */
		summary = jv_object_set(summary, jv_string("pass"), jv_null());
		summary = jv_object_set(summary, jv_string("verdict"), rag_verdict(summary));
	}
	v = rag_json_get(jv_copy(summary), "verdict");
	sv = from_verdict(v);
	is_int(sv.exit_status, rule(v, &g->o), "run %d: the exit status is the rule's", k);
	if (sv.exit_status >= 0 && sv.exit_status < 6) by_exit[sv.exit_status]++;
	by_decision[!strcmp(sv.decision, "pass") ? 0 : !strcmp(sv.decision, "fail") ? 1 : 2]++;
	with_budget_held += sv.exit_status <= 1 && rag_json_num(v, "not_scored") > 0;
	ok(sv.passed + sv.failed + sv.errored == sv.records && (long)rag_json_num(v, "with_verdict") == sv.passed + sv.failed,
	   "run %d: the counts add up", k);
	w = sv;
	w.passed = (long)rag_json_num(summary, "passed");
	w.errored = (long)rag_json_num(summary, "errored");
	w.records = (long)rag_json_num(summary, "records");
	w.pass_rate = rag_json_num(summary, "pass_rate");
	w.failed = (long)rag_json_num(summary, "pass_rate_of") - w.passed;
	agree(k, "gate.json's summary", &w, &sv, 1);

	/* gate.txt: the verdict and counts line, then the exit status and its reason */
	text = rag_report_text(summary, 0);
	memset(&w, 0, sizeof w);
	w.pass_rate = sv.pass_rate;
	if (!strncmp(text, "rag-gate: ", 10) && (p = strchr(text + 10, ':'))) {
		char vw[16];
		snprintf(vw, sizeof vw, "%.*s", (int)(p - text - 10), text + 10);
		word(&w, vw);
		counts_at(p + 2, &w);
	}
	if ((line = strchr(text, '\n'))) sscanf(line + 1, "exit status %ld:", &w.exit_status);
	agree(k, "gate.txt", &w, &sv, 0);
	free(text);

	/* summary.md */
	{
		jv runs = JV_ARRAY(JV_OBJECT(jv_string("name"), jv_string("r"), jv_string("summary"), jv_copy(summary)));
		text = rag_report_markdown(runs, "t");
		memset(&w, 0, sizeof w);
		w.pass_rate = sv.pass_rate;
		word(&w, strstr(text, "✅ PASS") ? "PASS" : strstr(text, "❌ FAIL") ? "FAIL" : "SUMMARY");
		if ((p = strstr(text, "\n\n"))) counts_at(p + 2, &w);
		if ((p = strstr(text, "**Exit status "))) sscanf(p, "**Exit status %ld**", &w.exit_status);
		agree(k, "summary.md", &w, &sv, 0);   /* runs consumed */
		free(text);
	}

	/* JUnit: the gate suite's verdict properties */
	{
		rag_junit ju;
		memset(&ju, 0, sizeof ju);
		text = rag_junit_head(summary, &ju);
		memset(&w, 0, sizeof w);
		w.pass_rate = NAN;
		if ((p = strstr(text, "verdict.decision\" value=\""))) sscanf(p + 25, "%15[a-z]", w.decision);
		if ((p = strstr(text, "verdict.exit_status\" value=\""))) sscanf(p + 28, "%ld", &w.exit_status);
		if ((p = strstr(text, "verdict.records\" value=\""))) sscanf(p + 24, "%ld", &w.records);
		if ((p = strstr(text, "verdict.passed\" value=\""))) sscanf(p + 23, "%ld", &w.passed);
		if ((p = strstr(text, "verdict.failed\" value=\""))) sscanf(p + 23, "%ld", &w.failed);
		if ((p = strstr(text, "verdict.errored\" value=\""))) sscanf(p + 24, "%ld", &w.errored);
		if ((p = strstr(text, "verdict.pass_rate\" value=\"")) && p[26] != '"') sscanf(p + 26, "%lf", &w.pass_rate);
		agree(k, "junit.xml", &w, &sv, 1);
		free(text);
		rag_junit_free(&ju);
	}

	/* report.html: the verdict, the counts and the exit status in its head */
	{
		jv rep = JV_OBJECT(jv_string("runs"), JV_ARRAY(JV_OBJECT(jv_string("name"), jv_string("r"), jv_string("summary"), jv_copy(summary))),
		                   jv_string("gated"), jv_true());
		size_t ra, ba;
		text = rag_report_html_frame(rep, "t", &ra, &ba, err, sizeof err);
		memset(&w, 0, sizeof w);
		w.pass_rate = sv.pass_rate;
		if (text && (p = strstr(text, "<span class=\"verdict ")) && (p = strchr(p, '>'))) {
			char vw[16];
			sscanf(p + 1, "%15[A-Z]", vw);
			word(&w, vw);
			if ((q = strstr(p, "r: "))) counts_at(q + 3, &w);
		}
		if (text && (p = strstr(text, "data-exit=\""))) sscanf(p + 11, "%ld", &w.exit_status);
		agree(k, "report.html", &w, &sv, 0);
		free(text);
	}

	/* the store: as rag-eval stores a run (run.json's verdict), or a stream its gate makes */
	{
		rag_store_run in;
		char *sid = NULL;
		jv run = jv_null(), body;
		long passed = 0, judged = 0, why = 0;
		snprintf(id, sizeof id, "run%03d", k);
		memset(&in, 0, sizeof in);
		in.id = id;
		in.records = g->lines.p;
		in.len = g->lines.len;
		in.testset = id;   /* a test set each: its trend is the run alone */
		if (k % 2) run = JV_OBJECT(jv_string("run_id"), jv_string(id), jv_string("verdict"), jv_copy(v));
		else in.gate = &g->o;
		in.run = run;
		is_int(rag_store_add(st, &in, &sid, err, sizeof err), 0, "run %d: stored (%s)", k, k % 2 ? "run.json" : "a stream");
		free(sid);
		jv_free(run);
		if (rag_store_show(st, id, &body, err, sizeof err) == 0) {
			jv sv2 = rag_json_get(body, "verdict");
			w = from_verdict(sv2);
			agree(k, "rag-store show", &w, &sv, 1);
			jv_free(sv2);
		} else {
			ok(0, "run %d: rag-store show (%s)", k, err);
		}
		/* rag-serve: the opened run, its records' passed, its test set's trend */
		snprintf(path, sizeof path, "/api/runs/%s/checks", id);
		is_int(rag_serve_api(st, path, no_args, NULL, &body), 200, "run %d: %s", k, path);
		w = from_verdict(body);
		agree(k, "rag-serve's /checks", &w, &sv, 1);
		jv_free(body);
		snprintf(path, sizeof path, "/api/runs/%s/records", id);
		rag_serve_api(st, path, all_records, NULL, &body);
		{
			jv recs = rag_json_get(body, "records");
			jv_array_foreach(recs, i, one) {
				jv pv = jv_object_get(jv_copy(one), jv_string("passed")), cv = jv_object_get(one, jv_string("cause"));
				passed += jv_get_kind(pv) == JV_KIND_TRUE;
				judged += jv_get_kind(pv) != JV_KIND_NULL;
				/* a cause exactly where a record did not pass */
				why += (jv_get_kind(cv) == JV_KIND_STRING) != (jv_get_kind(pv) == JV_KIND_TRUE);
				jv_free(pv);
				jv_free(cv);
				(void)i;
			}
			jv_free(recs);
		}
		ok(passed == sv.passed && judged == sv.passed + sv.failed,
		   "run %d: rag-serve's records: %ld passed of %ld with a verdict, as the verdict", k, passed, judged);
		is_int(why, sv.records, "run %d: rag-serve's records: a stored cause for each that did not pass, none for the rest", k);
	}
	jv_free(v);
	jv_free(summary);
	rag_gate_free(gt);
}

/* /api/trends over every run: each run's pass rate and its denominator, the verdict's */
static const char *trend_args(void *ctx, const char *name)
{
	(void)ctx;
	return !strcmp(name, "limit") ? "500" : NULL;
}

int main(void)
{
	char dir[] = "/tmp/t-verdict.XXXXXX", path[64], err[RAG_ERRLEN];
	rag_store *st;
	rag_rng r;
	int k;
	jv body, runs;
	setenv("RAG_DATADIR", RAG_TEST_TOP "/share", 1);
	ok(mkdtemp(dir) != NULL, "a temporary directory");
	snprintf(path, sizeof path, "%s/s.db", dir);
	st = rag_store_open(path, err, sizeof err);
	ok(st != NULL, "a store (%s)", st ? "" : err);
	if (!st) return done_testing();
	rag_rng_seed(&r, 35);
	for (k = 0; k < RUNS; k++) {
		gen g;
		gen_run(&g, &r);
		surfaces(k, &g, st);
		rag_buf_free(&g.lines);
	}
	printf("# runs by exit status: 0 %d, 1 %d, 3 %d, 4 %d; by decision: pass %d, fail %d, none %d; records not scored "
	       "within the budget in %d\n", by_exit[0], by_exit[1], by_exit[3], by_exit[4], by_decision[0], by_decision[1],
	       by_decision[2], with_budget_held);
	ok(by_exit[0] && by_exit[1] && by_exit[3] && by_exit[4] && by_decision[0] && by_decision[1] && by_decision[2] &&
	   with_budget_held, "the generator made runs of every exit status and decision, and budgets that held");
	/* History: every run's pass rate and denominator as its stored verdict says */
	is_int(rag_serve_api(st, "/api/trends", trend_args, NULL, &body), 200, "/api/trends");
	runs = rag_json_get(body, "runs");
	{
		int bad = 0;
		jv_array_foreach(runs, i, one) {
			char id[32], e2[RAG_ERRLEN];
			jv sh, v;
			double a = rag_json_num(one, "pass_rate"), b;
			if (rag_store_show(st, rag_json_str(one, "run", id, sizeof id), &sh, e2, sizeof e2) == 0) {
				v = rag_json_get(sh, "verdict");
				b = rag_json_num(v, "pass_rate");
				if (!((isnan(a) && isnan(b)) || fabs(a - b) < 1e-9) ||
				    rag_json_num(one, "pass_rate_of") != rag_json_num(v, "with_verdict")) {
					bad++;
					printf("#   %s: History %g of %g, the verdict %g of %g\n", id, a, rag_json_num(one, "pass_rate_of"),
					       b, rag_json_num(v, "with_verdict"));
				}
				jv_free(v);
			} else {
				bad++;
			}
			jv_free(one);
			(void)i;
		}
		is_int(jv_array_length(jv_copy(runs)), RUNS, "History: every run");
		is_int(bad, 0, "History: each run's pass rate and its denominator are its verdict's");
	}
	jv_free(runs);
	rag_store_close(st);
	unlink(path);
	rmdir(dir);
	return done_testing();
}
