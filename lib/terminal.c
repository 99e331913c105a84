/* terminal.c - rag-gate's summary as text for a terminal: the verdict, the metrics table, the
 * checks, the categories, the worst records and the baseline, with every text from the records
 * made harmless (control characters) and colour only when asked for. */
#include "base.h"
#include "gate.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Text for a terminal: control characters (C0, DEL, C1) become "?" so that a hostile id or
 * claim cannot move the cursor or recolour the screen; cut at max bytes on a character. */
static void put_text(rag_buf *b, const char *s, size_t max)
{
	size_t i = 0, n = strlen(s);
	while (i < n) {
		long cp;
		size_t l = rag_utf8_decode(s + i, n - i, &cp);
		if (i + l > max) {
			rag_buf_adds(b, "...");
			return;
		}
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) rag_buf_adds(b, "?");
		else rag_buf_add(b, s + i, l);
		i += l;
	}
}

static const char *c_on(int color, const char *code) { return color ? code : ""; }

/* whether not_applicable (borrowed, of a worst record) names metric */
static int is_na(jv na, const char *metric)
{
	jv r = rag_json_get(jv_copy(na), metric);
	int yes = jv_get_kind(r) == JV_KIND_STRING;
	jv_free(r);
	return yes;
}

static void fmt3(char *buf, size_t n, double x)
{
	if (isnan(x)) snprintf(buf, n, "-");
	else snprintf(buf, n, "%.3f", x);
}

static void text_metrics(rag_buf *b, jv metrics, int with_thr)
{
	rag_buf_addf(b, "  %-24s %8s %5s %6s %7s %7s %7s %7s%s\n", "metric", "computed", "n/a", "null", "mean", "median", "min", "p10",
	        with_thr ? "  pass (of records checked)  gate" : "");
	jv_array_foreach(metrics, i, m) {
		char name[256], mean[32], median[32], min[32], p10[32];
		double tm = rag_json_num(m, "threshold_mean"), tr = rag_json_num(m, "threshold_record");
		double pr = rag_json_num(m, "pass_rate"), flips = rag_json_num(m, "flips");
		rag_json_str(m, "metric", name, sizeof name);
		fmt3(mean, sizeof mean, rag_json_num(m, "mean"));
		fmt3(median, sizeof median, rag_json_num(m, "median"));
		fmt3(min, sizeof min, rag_json_num(m, "min"));
		fmt3(p10, sizeof p10, rag_json_num(m, "p10"));
		rag_buf_adds(b, "  ");
		put_text(b, name, 24);
		rag_buf_addf(b, "%*s %8.0f %5.0f %6.0f %7s %7s %7s %7s", (int)(strlen(name) < 24 ? 24 - strlen(name) : 0), "",
		        rag_json_num(m, "scored"), rag_json_num(m, "not_applicable"), rag_json_num(m, "null"), mean, median, min, p10);
		if (with_thr) {
			/* the share of the records checked on the metric's record threshold or verdict */
			double of = rag_json_num(m, "passed") + rag_json_num(m, "failed");
			if (!isnan(pr)) rag_buf_addf(b, "  %5.1f%% of %-14.0f", pr * 100, of);
			else rag_buf_addf(b, "  %-23s", "-");
		}
		if (with_thr && !isnan(tm)) rag_buf_addf(b, "  mean>=%.3f", tm);
		if (with_thr && !isnan(tr)) rag_buf_addf(b, "  record>=%.3f", tr);
		if (with_thr && rag_json_true(m, "gate_verdict")) rag_buf_adds(b, "  verdict");
		if (with_thr && flips > 0) rag_buf_addf(b, "  flips %.0f", flips);
		rag_buf_adds(b, "\n");
		jv_free(m);
		(void)i;
	}
	/* rag-ap's metrics: which relevance each read (the user's ids or the judge's verdicts) */
	jv_array_foreach(metrics, j, m) {
		char name[256], *from = rag_gate_from_text(m);
		if (from) {
			rag_json_str(m, "metric", name, sizeof name);
			rag_buf_adds(b, "  ");
			put_text(b, name, 24);
			rag_buf_addf(b, ": relevance from %s\n", from);
			free(from);
		}
		jv_free(m);
		(void)j;
	}
	jv_free(metrics);
}

/* the run's cost (cost of rag_gate_summary, borrowed): per tool and stage, then the total;
 * nothing when no record carried usage or no request was made */
static void text_cost(rag_buf *b, jv cost, const char *B, const char *N)
{
	jv stages = rag_json_get(jv_copy(cost), "stages"), msgs = rag_json_get(jv_copy(cost), "messages");
	char cur[32], t[256], st[256], judge[256];
	double total = rag_json_num(cost, "total");
	if (jv_get_kind(stages) != JV_KIND_ARRAY || !jv_array_length(jv_copy(stages)) ||
	    rag_json_num(cost, "calls") + rag_json_num(cost, "cache_hits") == 0) {
		/* no usage, or nothing asked of a model (the offline judge): no cost to show */
		jv_free(stages);
		jv_free(msgs);
		return;
	}
	rag_json_str(cost, "currency", cur, sizeof cur);
	rag_buf_addf(b, "\n%scost%s (", B, N);
	put_text(b, cur, 16);
	rag_buf_addf(b, " per the price table)\n  %-32s %-24s %7s %10s %10s %12s\n", "stage", "judge", "calls",
	             "prompt", "completion", "cost");
	jv_array_foreach(stages, i, e) {
		double c = rag_json_num(e, "cost");
		char stage[520];
		snprintf(stage, sizeof stage, "%s %s", rag_json_str(e, "tool", t, sizeof t) ? t : "",
		         rag_json_str(e, "stage", st, sizeof st) ? st : "");
		rag_buf_adds(b, "  ");
		put_text(b, stage, 200);
		rag_buf_addf(b, "%*s ", strlen(stage) < 32 ? (int)(32 - strlen(stage)) : 0, "");
		put_text(b, rag_json_str(e, "judge", judge, sizeof judge) ? judge : "", 200);
		rag_buf_addf(b, "%*s %7.0f %10.0f %10.0f ", strlen(judge) < 24 ? (int)(24 - strlen(judge)) : 0, "",
		             rag_json_num(e, "calls"), rag_json_num(e, "prompt_tokens"), rag_json_num(e, "completion_tokens"));
		if (isnan(c)) rag_buf_addf(b, "%12s\n", "no price");
		else rag_buf_addf(b, "%12.6f\n", c);
		jv_free(e);
		(void)i;
	}
	rag_buf_addf(b, "  %-32s %-24s %7.0f %10.0f %10.0f ", "total", "", rag_json_num(cost, "calls"),
	             rag_json_num(cost, "prompt_tokens"), rag_json_num(cost, "completion_tokens"));
	if (isnan(total)) rag_buf_addf(b, "%12s\n", "unknown");
	else rag_buf_addf(b, "%12.6f\n", total);
	if (rag_json_num(cost, "cached_tokens") > 0)
		rag_buf_addf(b, "  prompt tokens %.0f, %.0f of them cached by the provider (priced at cached_input)\n",
		             rag_json_num(cost, "prompt_tokens"), rag_json_num(cost, "cached_tokens"));
	{
		/* rag-eval --batch: the rows are at the list price, the total at the batch price */
		jv bt = rag_json_get(jv_copy(cost), "batch");
		if (jv_get_kind(bt) == JV_KIND_OBJECT)
			rag_buf_addf(b, "  %.0f requests answered by the batch route: %.6f at its price, %.6f at the list price "
			             "of the rows above; the total is at the batch price\n", rag_json_num(bt, "requests"),
			             rag_json_num(bt, "cost"), rag_json_num(bt, "cost_at_list_price"));
		jv_free(bt);
	}
	jv_array_foreach(msgs, i, m) {
		rag_buf_adds(b, "  ");
		if (jv_get_kind(m) == JV_KIND_STRING) put_text(b, jv_string_value(m), 300);
		rag_buf_adds(b, "\n");
		jv_free(m);
		(void)i;
	}
	jv_free(stages);
	jv_free(msgs);
}

/* the summary's warnings (self-judging), one a line under the verdict */
static void text_warnings(rag_buf *b, jv s, const char *R, const char *N)
{
	jv w = rag_json_get(jv_copy(s), "warnings");
	if (jv_get_kind(w) == JV_KIND_ARRAY) {
		jv_array_foreach(w, i, t) {
			if (jv_get_kind(t) == JV_KIND_STRING) {
				rag_buf_addf(b, "%swarning:%s ", R, N);
				put_text(b, jv_string_value(t), 600);
				rag_buf_adds(b, "\n");
			}
			jv_free(t);
			(void)i;
		}
	}
	jv_free(w);
}

/* gate.by_category's thresholds, a line a category: shown with every summary they gate; the
 * per-record ones (thresholds.by_category), then the means (thresholds.by_category_mean) */
static void text_by_category(rag_buf *b, jv s)
{
	static const char *const keys[][2] = {
		{"by_category", "per-record thresholds"}, {"by_category_mean", "mean thresholds"},
	};
	size_t k;
	for (k = 0; k < 2; k++) {
		jv bc = rag_json_get(rag_json_get(jv_copy(s), "thresholds"), keys[k][0]);
		if (jv_get_kind(bc) == JV_KIND_OBJECT) {
			jv_object_foreach(bc, cat, ms) {
				rag_buf_addf(b, "%s for \"", keys[k][1]);
				put_text(b, jv_string_value(cat), 200);
				rag_buf_adds(b, "\":");
				if (jv_get_kind(ms) == JV_KIND_OBJECT) {
					jv_object_foreach(ms, m, v) {
						rag_buf_adds(b, " ");
						put_text(b, jv_string_value(m), 200);
						rag_buf_addf(b, ">=%.3f", jv_number_value(v));
						jv_free(m);
						jv_free(v);
					}
				}
				rag_buf_adds(b, " (gate.by_category)\n");
				jv_free(cat);
				jv_free(ms);
			}
		}
		jv_free(bc);
	}
}

char *rag_report_text(jv s, int color)
{
	rag_buf out = {0}, *b = &out;
	const char *G = c_on(color, "\033[32m"), *R = c_on(color, "\033[31m"), *B = c_on(color, "\033[1m"),
	           *N = c_on(color, "\033[0m");
	const char *verdict = rag_report_verdict(s);
	const char *vc = !strcmp(verdict, "PASS") ? G : !strcmp(verdict, "FAIL") ? R : "";
	jv checks = rag_json_get(jv_copy(s), "checks"), groups = rag_json_get(jv_copy(s), "groups"), worst = rag_json_get(jv_copy(s), "worst");
	jv hints = rag_json_get(jv_copy(s), "hints");
	jv base = rag_json_get(jv_copy(s), "baseline"), metrics = rag_json_get(jv_copy(s), "metrics");

	rag_buf_addf(b, "%srag-gate: %s%s%s%s: ", B, vc, verdict, N, B);
	rag_report_counts(b, s, 1);
	rag_buf_addf(b, "%s\n", N);
	{
		jv v = rag_json_get(jv_copy(s), "verdict");
		if (jv_get_kind(v) == JV_KIND_OBJECT) {
			char *x = rag_verdict_exit_line(v);
			rag_buf_addf(b, "%s", rag_json_num(v, "exit_status") > 0 ? R : G);
			put_text(b, x, 1200);
			rag_buf_addf(b, "%s\n", N);
			free(x);
		}
		jv_free(v);
	}
	text_warnings(b, s, R, N);
	text_by_category(b, s);
	if (jv_array_length(jv_copy(metrics))) {
		rag_buf_adds(b, "\n");
		text_metrics(b, metrics, 1);
	} else {
		jv_free(metrics);
	}
	rag_buf_addf(b, "\n%schecks%s\n", B, N);
	jv_array_foreach(checks, i, c) {
		char msg[2048];
		int ok = jv_get_kind(jv_object_get(jv_copy(c), jv_string("pass"))) == JV_KIND_TRUE, skip = rag_json_true(c, "skipped");
		rag_buf_addf(b, "  %s%-4s%s ", skip ? "" : ok ? G : R, skip ? "skip" : ok ? "ok" : "FAIL", skip ? "" : N);
		put_text(b, rag_json_str(c, "message", msg, sizeof msg), 400);
		rag_buf_adds(b, "\n");
		jv_free(c);
		(void)i;
	}
	if (jv_array_length(jv_copy(checks)) == 0) rag_buf_adds(b, "  (no thresholds)\n");
	jv_array_foreach(hints, i, h) {
		char text[2048];
		if (i == 0) rag_buf_addf(b, "\n%swhere to look%s\n", B, N);
		rag_buf_adds(b, "  - ");
		put_text(b, rag_json_str(h, "hint", text, sizeof text), 1000);
		rag_buf_adds(b, "\n");
		jv_free(h);
	}
	jv_array_foreach(groups, k, by) {
		char field[256];
		jv rows = rag_json_get(jv_copy(by), "groups");
		rag_buf_addf(b, "\n%sby ", B);
		put_text(b, rag_json_str(by, "by", field, sizeof field), 80);
		rag_buf_addf(b, "%s\n", N);
		jv_array_foreach(rows, i, c) {
			char name[512];
			rag_buf_adds(b, "  ");
			put_text(b, rag_json_str(c, "group", name, sizeof name), 80);
			rag_buf_adds(b, ": ");
			rag_report_counts(b, c, 1);
			rag_buf_adds(b, "\n");
			text_metrics(b, rag_json_get(jv_copy(c), "metrics"), 0);
			jv_free(c);
			(void)i;
		}
		jv_free(rows);
		jv_free(by);
		(void)k;
	}
	jv_array_foreach(worst, i, w) {
		char id[512], at[600], cat[512];
		jv sc = rag_json_get(jv_copy(w), "scores"), rs = rag_json_get(jv_copy(w), "reasons");
		jv na = rag_json_get(jv_copy(w), "not_applicable");
		if (i == 0) rag_buf_addf(b, "\n%sworst records%s\n", B, N);
		rag_buf_addf(b, "  %d. ", i + 1);
		put_text(b, *rag_json_str(w, "id", id, sizeof id) ? id : "(no id)", 120);
		rag_json_str(w, "category", cat, sizeof cat);
		if (*cat) {
			rag_buf_adds(b, " [");
			put_text(b, cat, 80);
			rag_buf_adds(b, "]");
		}
		rag_buf_addf(b, " at %s", rag_json_str(w, "at", at, sizeof at));
		jv_object_foreach(sc, k, v) {
			rag_buf_adds(b, "  ");
			put_text(b, jv_string_value(k), 60);
			if (jv_get_kind(v) == JV_KIND_NUMBER) rag_buf_addf(b, " %.3f", jv_number_value(v));
			else rag_buf_adds(b, is_na(na, jv_string_value(k)) ? " n/a" : " null");
			jv_free(k);
			jv_free(v);
		}
		rag_buf_adds(b, "\n");
		jv_array_foreach(rs, j, r) {
			rag_buf_adds(b, "     - ");
			put_text(b, jv_get_kind(r) == JV_KIND_STRING ? jv_string_value(r) : "", 300);
			rag_buf_adds(b, "\n");
			jv_free(r);
			(void)j;
		}
		jv_free(sc);
		jv_free(rs);
		jv_free(na);
		jv_free(w);
	}
	if (jv_is_valid(base)) {
		char file[512];
		jv bm = rag_json_get(jv_copy(base), "metrics"), reg = rag_json_get(jv_copy(base), "regressed"), imp = rag_json_get(jv_copy(base), "improved");
		jv oc = rag_json_get(jv_copy(base), "only_current"), ob = rag_json_get(jv_copy(base), "only_baseline");
		rag_buf_addf(b, "\n%sbaseline%s ", B, N);
		put_text(b, rag_json_str(base, "file", file, sizeof file), 200);
		rag_buf_addf(b, ": %.0f record%s; %.0f only in this run, %.0f only in the baseline\n  ",
		             rag_json_num(base, "records"), rag_json_num(base, "records") == 1 ? "" : "s", rag_json_num(base, "only_current_count"), rag_json_num(base, "only_baseline_count"));
		rag_report_changes(b, base);
		rag_buf_adds(b, "\n");
		rag_buf_addf(b, "  %-24s %6s %8s %8s %8s  %g%% interval (seed %.0f, %.0f resamples)\n", "metric", "pairs", "baseline",
		        "now", "delta", rag_json_num(base, "confidence") * 100, rag_json_num(base, "seed"), rag_json_num(base, "resamples"));
		jv_array_foreach(bm, i, m) {
			char name[256], ch[32];
			rag_json_str(m, "metric", name, sizeof name);
			rag_json_str(m, "change", ch, sizeof ch);
			rag_buf_adds(b, "  ");
			put_text(b, name, 24);
			rag_buf_addf(b, "%*s %6.0f %8.3f %8.3f %s%+8.3f  [%+.3f, %+.3f]%s%s\n", (int)(strlen(name) < 24 ? 24 - strlen(name) : 0), "",
			        rag_json_num(m, "pairs"), rag_json_num(m, "baseline_mean"), rag_json_num(m, "mean"),
			        !strcmp(ch, "regression") ? R : !strcmp(ch, "improvement") ? G : "", rag_json_num(m, "delta"),
			        rag_json_num(m, "ci_low"), rag_json_num(m, "ci_high"), strcmp(ch, "none") ? (!strcmp(ch, "regression") ? "  regression" : "  improvement") : "", N);
			jv_free(m);
			(void)i;
		}
		for (int pass2 = 0; pass2 < 2; pass2++) {
			jv list = pass2 ? imp : reg;
			double count = rag_json_num(base, pass2 ? "improved_count" : "regressed_count");
			if (count > 0)
				rag_buf_addf(b, "  %s by more than %.3f: %.0f pair%s of a record and a metric%s\n", pass2 ? "improved" : "regressed",
				             rag_json_num(base, "regression"), count, count == 1 ? "" : "s", count > 20 ? " (the first 20)" : "");
			jv_array_foreach(list, i, c) {
				char id[512], m[256];
				if (i < 20) {
					rag_buf_adds(b, "    ");
					put_text(b, rag_json_str(c, "id", id, sizeof id), 120);
					rag_buf_adds(b, " ");
					put_text(b, rag_json_str(c, "metric", m, sizeof m), 60);
					rag_buf_addf(b, " %.3f -> %.3f (%+.3f)\n", rag_json_num(c, "baseline"), rag_json_num(c, "current"), rag_json_num(c, "delta"));
				}
				jv_free(c);
			}
			jv_free(list);
		}
		for (int pass2 = 0; pass2 < 2; pass2++) {
			jv list = pass2 ? ob : oc;
			int n = jv_array_length(jv_copy(list));
			if (n) rag_buf_addf(b, "  only in %s:", pass2 ? "the baseline" : "this run");
			jv_array_foreach(list, i, id) {
				if (i < 20) {
					rag_buf_adds(b, " ");
					put_text(b, jv_string_value(id), 120);
				}
				jv_free(id);
			}
			if (n > 20) rag_buf_addf(b, " ... (%d more listed in --json)", n - 20);
			if (n) rag_buf_adds(b, "\n");
			jv_free(list);
		}
		jv_free(bm);
	}
	{
		jv cost = rag_json_get(jv_copy(s), "cost");
		if (jv_get_kind(cost) == JV_KIND_OBJECT) text_cost(b, cost, B, N);
		jv_free(cost);
	}
	jv_free(base);
	jv_free(checks);
	jv_free(groups);
	jv_free(hints);
	jv_free(worst);
	return out.p ? out.p : rag_xstrdup("");
}

