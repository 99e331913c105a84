/* t-verdict.c - one run, one verdict (issue 35): a property test. A seeded generator makes
 * varied runs (categories, refusals, metrics not applicable, records a judge or their input
 * failed, an unreachable judge, gate.by_category, error budgets, runs with no threshold), each
 * gated once (lib/gate.c, lib/verdict.c); a checker reads the decision, the exit status, the
 * counts and the pass rate back from every surface a run has - gate.json (the summary),
 * gate.txt (rag_report_text), JUnit (rag_junit_head), summary.md (rag_report_markdown),
 * report.html (rag_report_html_frame), the store (rag_store_add, then rag_store_show, its
 * records' passed and its trends) and rag-serve's API (/api/runs/ID/checks, /api/trends) - and
 * finds them the same, and the exit status the one rule's (rag(7) EXIT STATUS). Each run is also
 * compared with the one before it (some of whose records it lost, by an error or a null): rag-gate
 * -b, the report's sentence and its Compare tab, rag-store diff and rag-serve's /api/compare give
 * the same counts and paired means, compare.c's (issue 35 item 4). */
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

/* what the generator made: runs by exit status and by decision (the checker's coverage); pairs of
 * runs compared with records that lost their score, regressed, improved */
static int by_exit[6], by_decision[3], with_budget_held, with_lost, with_regressed, with_improved;

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

/* two runs compared (issue 35 item 4): what a surface says */
typedef struct cmp_said { long paired, regressed, lost, improved, unchanged; double base, cur; } cmp_said;

static void cmp_diag(const char *what, const cmp_said *a, const cmp_said *b)
{
	printf("#   %s: %ld paired, %ld regressed (%ld lost), %ld improved, %ld unchanged, %g -> %g; the gate: %ld, %ld (%ld), "
	       "%ld, %ld, %g -> %g\n", what, a->paired, a->regressed, a->lost, a->improved, a->unchanged, a->base, a->cur,
	       b->paired, b->regressed, b->lost, b->improved, b->unchanged, b->base, b->cur);
}

static int close_or_nan(double a, double b) { return (isnan(a) && isnan(b)) || fabs(a - b) < 1e-9; }

static void cmp_agree(int k, const char *what, const cmp_said *got, const cmp_said *g, int means)
{
	int s = got->paired == g->paired && got->regressed == g->regressed && got->lost == g->lost &&
	        got->improved == g->improved && got->unchanged == g->unchanged &&
	        (!means || (close_or_nan(got->base, g->base) && close_or_nan(got->cur, g->cur)));
	ok(s, "run %d against run %d: %s gives the gate's comparison", k, k - 1, what);
	if (!s) cmp_diag(what, got, g);
}

/* faithfulness's paired means of an array of {metric, <b>, <c>} (borrowed) */
static void means_of(jv rows, const char *b, const char *c, cmp_said *w)
{
	char m[64];
	w->base = w->cur = NAN;
	jv_array_foreach(rows, i, row) {
		if (!strcmp(rag_json_str(row, "metric", m, sizeof m), "faithfulness")) {
			w->base = rag_json_num(row, b);
			w->cur = rag_json_num(row, c);
		}
		jv_free(row);
		(void)i;
	}
}

static const char *cmp_base, *cmp_new;
static const char *compare_args(void *ctx, const char *name)
{
	(void)ctx;
	return !strcmp(name, "base") ? cmp_base : !strcmp(name, "new") ? cmp_new : NULL;
}

/* run k (g) against run k - 1 (prev, its lines), both stored: rag-gate -b (its summary and the
 * records' classes, report.html's Compare tab), the sentence of gate.txt, summary.md and
 * report.html (rag_report_changes), rag-store diff (its lines and counts) and rag-serve's
 * /api/compare give the same counts and paired means */
static void compare_surfaces(int k, gen *g, const rag_buf *prev, rag_store *st)
{
	rag_gate_opts o = g->o;
	rag_gate *gt;
	jv summary, base, lines, counts, body;
	cmp_said gs, w;
	char err[RAG_ERRLEN], pid[32], cid[32];
	size_t pos = 0;
	long cls[3] = {0};
	o.regression = 0.1;   /* gate.regression's default, as rag-store diff and rag-serve's are */
	gt = rag_gate_new(&o);
	while (pos < prev->len) {
		const char *nl = memchr(prev->p + pos, '\n', prev->len - pos);
		rag_gate_baseline(gt, jv_parse_sized(prev->p + pos, (int)(nl - (prev->p + pos))));
		pos = (size_t)(nl - prev->p) + 1;
	}
	pos = 0;
	while (pos < g->lines.len) {
		const char *nl = memchr(g->lines.p + pos, '\n', g->lines.len - pos);
		jv rec = jv_parse_sized(g->lines.p + pos, (int)(nl - (g->lines.p + pos)));
		jv v = rag_gate_add_verdict(gt, rec, "t", 0);
		char c[16];
		const char *cl = rag_json_str(v, "change", c, sizeof c);
		cls[!strcmp(cl, "regressed") ? 0 : !strcmp(cl, "improved") ? 1 : 2] += *cl != 0;
		jv_free(v);
		jv_free(rec);
		pos = (size_t)(nl - g->lines.p) + 1;
	}
	summary = rag_gate_summary(gt);
	base = rag_json_get(jv_copy(summary), "baseline");
	gs.paired = (long)rag_json_num(base, "paired");
	gs.regressed = (long)rag_json_num(base, "regressed_records");
	gs.lost = (long)rag_json_num(base, "lost_records");
	gs.improved = (long)rag_json_num(base, "improved_records");
	gs.unchanged = (long)rag_json_num(base, "unchanged_records");
	{
		jv rows = rag_json_get(jv_copy(base), "metrics");
		means_of(rows, "baseline_mean", "mean", &gs);
		jv_free(rows);
	}
	with_lost += gs.lost > 0;
	with_regressed += gs.regressed > gs.lost;
	with_improved += gs.improved > 0;
	ok(gs.regressed + gs.improved + gs.unchanged == gs.paired && gs.paired == (long)rag_json_num(base, "matched"),
	   "run %d against run %d: the classes add up to the records paired", k, k - 1);
	w = gs;
	w.regressed = cls[0], w.improved = cls[1], w.unchanged = cls[2];
	cmp_agree(k, "report.html's Compare tab (each record's class)", &w, &gs, 0);

	/* gate.txt, summary.md, report.html: rag_report_changes's sentence */
	{
		rag_buf b = {0};
		const char *p;
		memset(&w, 0, sizeof w);
		rag_report_changes(&b, base);
		if (sscanf(b.p, "%ld record", &w.paired) == 1 && (p = strstr(b.p, "by id: ")))
			sscanf(p + 7, "%ld regressed (%ld lost their score), %ld improved, %ld unchanged", &w.regressed, &w.lost,
			       &w.improved, &w.unchanged);
		ok(strstr(b.p, "regressed: fell by more than 0.1 on some metric or lost its score") != NULL,
		   "run %d: the sentence names the definition", k);
		cmp_agree(k, "the report's sentence", &w, &gs, 0);
		rag_buf_free(&b);
	}

	/* rag-store diff: its counts, and its lines */
	snprintf(pid, sizeof pid, "run%03d", k - 1);
	snprintf(cid, sizeof cid, "run%03d", k);
	if (rag_store_diff(st, pid, cid, 0.1, &lines, &counts, err, sizeof err) == 0) {
		jv means = rag_json_get(jv_copy(counts), "means");
		w.paired = (long)rag_json_num(counts, "paired");
		w.regressed = (long)rag_json_num(counts, "regressed");
		w.lost = (long)rag_json_num(counts, "lost");
		w.improved = (long)rag_json_num(counts, "improved");
		w.unchanged = (long)rag_json_num(counts, "unchanged");
		means_of(means, "baseline", "current", &w);
		cmp_agree(k, "rag-store diff's counts", &w, &gs, 1);
		memset(&w, 0, sizeof w);
		w.base = gs.base, w.cur = gs.cur;
		jv_array_foreach(lines, i, l) {
			char c[16];
			const char *ch = rag_json_str(l, "change", c, sizeof c);
			w.paired += strcmp(ch, "added") && strcmp(ch, "removed");
			w.regressed += !strcmp(ch, "regressed");
			w.lost += rag_json_true(l, "lost");
			w.improved += !strcmp(ch, "improved");
			w.unchanged += !strcmp(ch, "same");
			jv_free(l);
			(void)i;
		}
		cmp_agree(k, "rag-store diff's lines", &w, &gs, 0);
		jv_free(means);
		jv_free(lines);
		jv_free(counts);
	} else {
		ok(0, "run %d: rag-store diff (%s)", k, err);
	}

	/* rag-serve's compare */
	cmp_base = pid;
	cmp_new = cid;
	is_int(rag_serve_api(st, "/api/compare", compare_args, NULL, &body), 200, "run %d: /api/compare", k);
	{
		jv ch = rag_json_get(jv_copy(body), "changes"), ms = rag_json_get(jv_copy(body), "metrics");
		w.paired = (long)rag_json_num(body, "paired");
		w.regressed = (long)rag_json_num(ch, "regressed");
		w.lost = (long)rag_json_num(ch, "lost");
		w.improved = (long)rag_json_num(ch, "improved");
		w.unchanged = (long)rag_json_num(ch, "same");
		means_of(ms, "base", "new", &w);
		cmp_agree(k, "rag-serve's /api/compare", &w, &gs, 1);
		jv_free(ch);
		jv_free(ms);
		jv_free(body);
	}
	jv_free(base);
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
	rag_buf prev = {0};
	rag_rng r;
	int k;
	jv body, runs;
	setenv("RAG_DATADIR", RAG_TEST_TOP "/share", 1);
	{
		/* the spending cap (issue 37): a record it left unscored, and a run with some */
		jv rec = jv_parse("{\"scores\":{\"f\":null},\"errors\":[{\"tool\":\"rag-claims\",\"message\":\"x\"},"
		                  "{\"tool\":\"rag-verify\",\"message\":\"" RAG_COST_CAPPED ": ...\"}]}");
		jv other = jv_parse("{\"scores\":{\"f\":null},\"errors\":[{\"tool\":\"rag-verify\",\"message\":\"http 500\"}]}");
		jv s = jv_parse("{\"records\":10,\"errored\":2,\"passed\":8,\"not_scored\":2,\"remote_failed\":2,"
		                "\"thresholds\":{\"max_error_rate\":0.5}}"), v;
		char reason[512];
		ok(rag_verdict_capped(rec) == 1, "an error of the cap's, not the first: capped");
		ok(rag_verdict_capped(other) == 0, "another remote failure: not capped");
		v = rag_verdict(s);
		ok(rag_json_num(v, "exit_status") == 0 && !jv_object_has(jv_copy(v), jv_string("capped")),
		   "2 of 10 unscored within gate.max_error_rate 0.5: exit 0, no capped count");
		jv_free(v);
		s = jv_object_set(s, jv_string("capped"), jv_number(2));
		v = rag_verdict(s);
		ok(rag_json_num(v, "exit_status") == 4 && rag_json_num(v, "capped") == 2,
		   "the same, left unscored by the cap: exit 4 whatever the budget, capped 2");
		ok(!strncmp(rag_json_str(v, "reason", reason, sizeof reason), RAG_COST_CAPPED ": 2 of 10 records",
		            sizeof RAG_COST_CAPPED ": 2 of 10 records" - 1),
		   "its reason starts with the cap (%s)", reason);
		jv_free(v);
		jv_free(s);
		jv_free(rec);
		jv_free(other);
	}
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
		if (k) compare_surfaces(k, &g, &prev, st);
		rag_buf_free(&prev);
		prev = g.lines;
	}
	rag_buf_free(&prev);
	printf("# pairs of runs compared: %d with records that lost their score, %d with others that regressed, %d that "
	       "improved\n", with_lost, with_regressed, with_improved);
	ok(with_lost && with_regressed && with_improved, "the generator made baselines with lost answers, regressions, improvements");
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
