/* report.c - rag-gate summaries rendered as one self-contained HTML page (inline CSS and SVG,
 * no script, no external asset) or as Markdown. Every text that comes from the records or the
 * file names is escaped; numbers are formatted here, never taken as text from the input. */
#include "rag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* HTML text and attribute values: the five specials; C0 controls (but tab and newline) and DEL
 * dropped, as HTML forbids them. */
static void esc(rag_buf *b, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': rag_buf_adds(b, "&amp;"); break;
		case '<': rag_buf_adds(b, "&lt;"); break;
		case '>': rag_buf_adds(b, "&gt;"); break;
		case '"': rag_buf_adds(b, "&quot;"); break;
		case '\'': rag_buf_adds(b, "&#39;"); break;
		default:
			if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) break;
			rag_buf_add(b, s, 1);
		}
	}
}

/* the string field k of o, escaped */
static void esc_field(rag_buf *b, jv o, const char *k)
{
	jv v = rag_json_get(jv_copy(o), k);
	if (jv_get_kind(v) == JV_KIND_STRING) esc(b, jv_string_value(v));
	else if (jv_get_kind(v) == JV_KIND_NUMBER) rag_buf_addf(b, "%.17g", jv_number_value(v));
	jv_free(v);
}

static void num3(rag_buf *b, double x)
{
	if (isnan(x)) rag_buf_adds(b, "&#8211;");
	else rag_buf_addf(b, "%.3f", x);
}

static const char css[] =
	"body{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,\"Noto Sans\",\"Noto Sans CJK SC\","
	"\"PingFang SC\",\"Microsoft YaHei\",sans-serif;margin:2em auto;max-width:75em;padding:0 1em;color:#1f2328;"
	"line-height:1.45}\n"
	"h1{margin-bottom:.2em}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:2em}\n"
	".verdict{display:inline-block;font-weight:bold;padding:.2em .8em;border-radius:.3em;color:#fff}\n"
	".pass{background:#1a7f37}.fail{background:#cf222e}.none{background:#6e7781}\n"
	".cards{display:flex;flex-wrap:wrap;gap:1em}.card{border:1px solid #d0d7de;border-radius:.4em;"
	"padding:.8em 1em;min-width:12em}\n"
	".card .name{font-weight:bold}.card .big{font-size:2em}.card .small{color:#59636e;font-size:.9em}\n"
	"table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #d0d7de;padding:.3em .6em;"
	"vertical-align:top;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	"td.text{max-width:30em;white-space:pre-wrap;word-break:break-word}\n"
	"ul.checks li.bad{color:#cf222e}ul.checks li.good{color:#1a7f37}ul.checks li.skip{color:#59636e}\n"
	"figure{display:inline-block;margin:.5em 1em .5em 0}figcaption{font-size:.9em;color:#59636e}\n"
	"svg text{font-size:10px;fill:#59636e}\n";

/* Ten bars over [0, 1]; each bar has a title with its range and count. */
static void svg_histogram(rag_buf *b, jv hist, const char *label, int w, int h)
{
	double counts[10] = {0}, max = 0;
	int i, pad = 16, bw = (w - 2 * pad) / 10;
	for (i = 0; i < 10; i++) {
		jv c = jv_array_get(jv_copy(hist), i);
		counts[i] = jv_get_kind(c) == JV_KIND_NUMBER ? jv_number_value(c) : 0;
		if (counts[i] > max) max = counts[i];
		jv_free(c);
	}
	rag_buf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	             "role=\"img\" aria-label=\"histogram of ", w, h, w, h);
	esc(b, label);
	rag_buf_adds(b, "\"><title>histogram of ");
	esc(b, label);
	rag_buf_adds(b, "</title>");
	rag_buf_addf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#8c959f\"/>", pad, h - pad, w - pad, h - pad);
	for (i = 0; i < 10; i++) {
		double bh = max > 0 ? (counts[i] / max) * (h - 2 * pad - 10) : 0;
		int x = pad + i * bw;
		rag_buf_addf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%.1f&#8211;%.1f: %.0f</title></rect>",
		             x + 1, h - pad - bh, bw - 2, bh, i < 5 ? "#d1242f" : i < 8 ? "#bf8700" : "#1a7f37",
		             i / 10.0, (i + 1) / 10.0, counts[i]);
		if (counts[i] > 0)
			rag_buf_addf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>", x + bw / 2, h - pad - bh - 2, counts[i]);
	}
	rag_buf_addf(b, "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"middle\">0.5</text>"
	             "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">1</text></svg>",
	             pad, h - 3, pad + 5 * bw, h - 3, pad + 10 * bw, h - 3);
}

/* The mean of one metric across the runs, oldest first; a run without the metric is a gap. */
static void svg_trend(rag_buf *b, jv runs, const char *metric)
{
	int n = jv_array_length(jv_copy(runs)), i, w = 360, h = 160, pad = 28, first = 1;
	rag_buf pts = {0};
	rag_buf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	             "role=\"img\" aria-label=\"trend of ", w, h, w, h);
	esc(b, metric);
	rag_buf_adds(b, "\"><title>mean ");
	esc(b, metric);
	rag_buf_adds(b, " per run</title>");
	for (i = 0; i <= 4; i++) {
		double y = pad + (h - 2 * pad) * (1 - i / 4.0);
		rag_buf_addf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eaeef2\"/>"
		             "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.2f</text>", pad, y, w - 8, y, pad - 3, y + 3, i / 4.0);
	}
	for (i = 0; i < n; i++) {
		jv run = jv_array_get(jv_copy(runs), i), ms = rag_json_get(rag_json_get(jv_copy(run), "summary"), "metrics");
		double mean = NAN, x = n > 1 ? pad + (double)(w - pad - 16) * i / (n - 1) : w / 2.0, y;
		jv_array_foreach(ms, k, m) {
			jv name = rag_json_get(jv_copy(m), "metric");
			if (jv_get_kind(name) == JV_KIND_STRING && !strcmp(jv_string_value(name), metric)) mean = rag_json_num(m, "mean");
			jv_free(name);
			jv_free(m);
			(void)k;
		}
		rag_buf_addf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>", x, h - 8, i + 1);
		if (!isnan(mean)) {
			y = pad + (h - 2 * pad) * (1 - (mean < 0 ? 0 : mean > 1 ? 1 : mean));
			rag_buf_addf(&pts, "%s%.1f,%.1f", first ? "" : " ", x, y);
			first = 0;
			rag_buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#0969da\"><title>run %d (", x, y, i + 1);
			esc_field(b, run, "name");
			rag_buf_addf(b, "): %.3f</title></circle>", mean);
		}
		jv_free(ms);
		jv_free(run);
	}
	if (pts.p) rag_buf_addf(b, "<polyline points=\"%s\" fill=\"none\" stroke=\"#0969da\" stroke-width=\"2\"/>", pts.p);
	rag_buf_free(&pts);
	rag_buf_adds(b, "</svg>");
}

static void metric_table(rag_buf *b, jv metrics, int hist)
{
	rag_buf_adds(b, "<table><thead><tr><th>metric</th><th>computed</th><th>not applicable</th><th>null</th><th>mean</th><th>median</th>"
	                "<th>min</th><th>p10</th>");
	if (hist) rag_buf_adds(b, "<th>distribution</th>");
	rag_buf_adds(b, "</tr></thead><tbody>\n");
	jv_array_foreach(metrics, i, m) {
		rag_buf_adds(b, "<tr><td>");
		esc_field(b, m, "metric");
		rag_buf_addf(b, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n\">", rag_json_num(m, "scored"),
		             rag_json_num(m, "not_applicable"), rag_json_num(m, "null"));
		num3(b, rag_json_num(m, "mean"));
		rag_buf_adds(b, "</td><td class=\"n\">");
		num3(b, rag_json_num(m, "median"));
		rag_buf_adds(b, "</td><td class=\"n\">");
		num3(b, rag_json_num(m, "min"));
		rag_buf_adds(b, "</td><td class=\"n\">");
		num3(b, rag_json_num(m, "p10"));
		rag_buf_adds(b, "</td>");
		if (hist) {
			jv name = rag_json_get(jv_copy(m), "metric"), h = rag_json_get(jv_copy(m), "histogram");
			rag_buf_adds(b, "<td>");
			svg_histogram(b, h, jv_get_kind(name) == JV_KIND_STRING ? jv_string_value(name) : "", 160, 60);
			rag_buf_adds(b, "</td>");
			jv_free(name);
			jv_free(h);
		}
		rag_buf_adds(b, "</tr>\n");
		jv_free(m);
		(void)i;
	}
	rag_buf_adds(b, "</tbody></table>\n");
	jv_free(metrics);
}

const char *rag_report_verdict(jv s)
{
	jv p = jv_object_get(jv_copy(s), jv_string("pass"));
	jv_kind k = jv_get_kind(p);
	jv_free(p);
	return k == JV_KIND_TRUE ? "PASS" : k == JV_KIND_NULL ? "SUMMARY" : "FAIL";
}

/* the class of a verdict, its colour on the page */
static const char *verdict_class(const char *v)
{
	return !strcmp(v, "PASS") ? "pass" : !strcmp(v, "FAIL") ? "fail" : "none";
}

static void cost_table(rag_buf *b, jv s, int markdown);

char *rag_report_html(jv runs, const char *title)
{
	rag_buf b = {0};
	int n = jv_array_length(jv_copy(runs));
	jv last = jv_array_get(jv_copy(runs), n - 1), s = rag_json_get(jv_copy(last), "summary");
	jv metrics = rag_json_get(jv_copy(s), "metrics"), checks = rag_json_get(jv_copy(s), "checks"), groups = rag_json_get(jv_copy(s), "groups");
	jv hints = rag_json_get(jv_copy(s), "hints");
	jv worst = rag_json_get(jv_copy(s), "worst"), base = rag_json_get(jv_copy(s), "baseline");
	const char *verdict = rag_report_verdict(s);
	double pr = rag_json_num(s, "pass_rate");

	rag_buf_adds(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	esc(&b, title);
	rag_buf_addf(&b, "</title>\n<meta name=\"generator\" content=\"rag-report (ragpipe) %s\">\n<style>\n%s</style>\n</head>\n<body>\n",
	             RAG_VERSION, css);
	rag_buf_adds(&b, "<header>\n<h1>");
	esc(&b, title);
	rag_buf_addf(&b, "</h1>\n<p><span class=\"verdict %s\">%s</span> ", verdict_class(verdict), verdict);
	esc_field(&b, last, "name");
	rag_buf_addf(&b, ": %.0f record%s, %.0f passed", rag_json_num(s, "records"), rag_json_num(s, "records") == 1 ? "" : "s", rag_json_num(s, "passed"));
	if (!isnan(pr)) rag_buf_addf(&b, " (%.1f%%)", pr * 100);
	rag_buf_addf(&b, ", %.0f with errors or nulls.</p>\n</header>\n", rag_json_num(s, "errored"));

	rag_buf_adds(&b, "<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">\n");
	jv_array_foreach(metrics, i, m) {
		rag_buf_adds(&b, "<div class=\"card\"><div class=\"name\">");
		esc_field(&b, m, "metric");
		rag_buf_adds(&b, "</div><div class=\"big\">");
		num3(&b, rag_json_num(m, "mean"));
		rag_buf_adds(&b, "</div><div class=\"small\">median ");
		num3(&b, rag_json_num(m, "median"));
		rag_buf_adds(&b, " &#183; p10 ");
		num3(&b, rag_json_num(m, "p10"));
		rag_buf_adds(&b, " &#183; min ");
		num3(&b, rag_json_num(m, "min"));
		rag_buf_addf(&b, "<br>computed on %.0f of %.0f records", rag_json_num(m, "scored"), rag_json_num(s, "records"));
		if (rag_json_num(m, "not_applicable") > 0) rag_buf_addf(&b, ", %.0f not applicable", rag_json_num(m, "not_applicable"));
		rag_buf_addf(&b, ", %.0f null", rag_json_num(m, "null"));
		if (!isnan(rag_json_num(m, "pass_rate"))) rag_buf_addf(&b, "<br>pass rate %.1f%%", rag_json_num(m, "pass_rate") * 100);
		if (rag_json_num(m, "flips") > 0) rag_buf_addf(&b, "<br>%.0f flipped across repeats", rag_json_num(m, "flips"));
		rag_buf_adds(&b, "</div></div>\n");
		jv_free(m);
		(void)i;
	}
	rag_buf_adds(&b, "</div>\n<h3>Checks</h3>\n<ul class=\"checks\">\n");
	jv_array_foreach(checks, i, c) {
		int ok = rag_json_true(c, "pass"), skip = rag_json_true(c, "skipped");
		rag_buf_addf(&b, "<li class=\"%s\">%s: ", skip ? "skip" : ok ? "good" : "bad", skip ? "skipped" : ok ? "ok" : "FAIL");
		esc_field(&b, c, "message");
		rag_buf_adds(&b, "</li>\n");
		jv_free(c);
		(void)i;
	}
	if (!jv_array_length(jv_copy(checks))) rag_buf_adds(&b, "<li>no thresholds</li>\n");
	rag_buf_adds(&b, "</ul>\n</section>\n");
	if (jv_array_length(jv_copy(hints))) {
		rag_buf_adds(&b, "<section id=\"hints\">\n<h2>Where to look</h2>\n<ul class=\"hints\">\n");
		jv_array_foreach(hints, i, h) {
			rag_buf_adds(&b, "<li>");
			esc_field(&b, h, "hint");
			rag_buf_adds(&b, "</li>\n");
			jv_free(h);
			(void)i;
		}
		rag_buf_adds(&b, "</ul>\n</section>\n");
	}

	rag_buf_adds(&b, "<section id=\"distribution\">\n<h2>Distribution</h2>\n");
	jv_array_foreach(metrics, i, m) {
		jv name = rag_json_get(jv_copy(m), "metric"), h = rag_json_get(jv_copy(m), "histogram");
		rag_buf_adds(&b, "<figure>");
		svg_histogram(&b, h, jv_get_kind(name) == JV_KIND_STRING ? jv_string_value(name) : "", 320, 140);
		rag_buf_adds(&b, "<figcaption>");
		esc_field(&b, m, "metric");
		rag_buf_adds(&b, "</figcaption></figure>\n");
		jv_free(name);
		jv_free(h);
		jv_free(m);
		(void)i;
	}
	rag_buf_adds(&b, "</section>\n");

	if (jv_array_length(jv_copy(groups))) {
		rag_buf_adds(&b, "<section id=\"categories\">\n");
		jv_array_foreach(groups, k, by) {
			jv rows = rag_json_get(jv_copy(by), "groups");
			rag_buf_adds(&b, "<h2>By ");
			esc_field(&b, by, "by");
			rag_buf_adds(&b, "</h2>\n");
			jv_array_foreach(rows, i, c) {
				double cpr = rag_json_num(c, "pass_rate");
				rag_buf_adds(&b, "<h3>");
				esc_field(&b, c, "group");
				rag_buf_addf(&b, "</h3>\n<p>%.0f record%s, %.0f passed", rag_json_num(c, "records"), rag_json_num(c, "records") == 1 ? "" : "s", rag_json_num(c, "passed"));
				if (!isnan(cpr)) rag_buf_addf(&b, " (%.1f%%)", cpr * 100);
				rag_buf_adds(&b, "</p>\n");
				metric_table(&b, rag_json_get(jv_copy(c), "metrics"), 1);
				jv_free(c);
				(void)i;
			}
			jv_free(rows);
			jv_free(by);
			(void)k;
		}
		rag_buf_adds(&b, "</section>\n");
	}

	if (n > 1) {
		rag_buf_adds(&b, "<section id=\"trend\">\n<h2>Trend</h2>\n");
		jv_array_foreach(metrics, i, m) {
			jv name = rag_json_get(jv_copy(m), "metric");
			rag_buf_adds(&b, "<figure>");
			svg_trend(&b, runs, jv_get_kind(name) == JV_KIND_STRING ? jv_string_value(name) : "");
			rag_buf_adds(&b, "<figcaption>mean ");
			esc_field(&b, m, "metric");
			rag_buf_adds(&b, " per run</figcaption></figure>\n");
			jv_free(name);
			jv_free(m);
			(void)i;
		}
		rag_buf_adds(&b, "<table><thead><tr><th>run</th><th>file</th><th>records</th><th>result</th></tr></thead><tbody>\n");
		jv_array_foreach(runs, i, r) {
			jv rs = rag_json_get(jv_copy(r), "summary");
			rag_buf_addf(&b, "<tr><td class=\"n\">%d</td><td>", i + 1);
			esc_field(&b, r, "name");
			rag_buf_addf(&b, "</td><td class=\"n\">%.0f</td><td>%s</td></tr>\n", rag_json_num(rs, "records"), verdict_class(rag_report_verdict(rs)));
			jv_free(rs);
			jv_free(r);
		}
		rag_buf_adds(&b, "</tbody></table>\n</section>\n");
	}

	rag_buf_adds(&b, "<section id=\"failed\">\n<h2>Failed and worst records</h2>\n");
	if (!jv_array_length(jv_copy(worst))) rag_buf_adds(&b, "<p>None.</p>\n");
	else rag_buf_adds(&b, "<table><thead><tr><th>id</th><th>category</th><th>question</th><th>answer</th><th>scores</th>"
	                      "<th>reasons</th></tr></thead><tbody>\n");
	jv_array_foreach(worst, i, w) {
		jv sc = rag_json_get(jv_copy(w), "scores"), rs = rag_json_get(jv_copy(w), "reasons");
		rag_buf_addf(&b, "<tr class=\"%s\"><td>", rag_json_true(w, "failed") ? "failed" : "low");
		esc_field(&b, w, "id");
		rag_buf_adds(&b, "</td><td>");
		esc_field(&b, w, "category");
		rag_buf_adds(&b, "</td><td class=\"text\">");
		esc_field(&b, w, "question");
		rag_buf_adds(&b, "</td><td class=\"text\">");
		esc_field(&b, w, "answer");
		rag_buf_adds(&b, "</td><td>");
		if (jv_get_kind(sc) == JV_KIND_OBJECT) {
			jv_object_foreach(sc, k, v) {
				esc(&b, jv_string_value(k));
				rag_buf_adds(&b, "&#160;");
				if (jv_get_kind(v) == JV_KIND_NUMBER) {
					num3(&b, jv_number_value(v));
				} else {
					jv r = rag_json_get(rag_json_get(jv_copy(w), "not_applicable"), jv_string_value(k));
					rag_buf_adds(&b, jv_get_kind(r) == JV_KIND_STRING ? "n/a" : "null");
					jv_free(r);
				}
				rag_buf_adds(&b, "<br>");
				jv_free(k);
				jv_free(v);
			}
		}
		rag_buf_adds(&b, "</td><td class=\"text\"><ul>");
		jv_array_foreach(rs, j, r) {
			rag_buf_adds(&b, "<li>");
			if (jv_get_kind(r) == JV_KIND_STRING) esc(&b, jv_string_value(r));
			rag_buf_adds(&b, "</li>");
			jv_free(r);
			(void)j;
		}
		rag_buf_adds(&b, "</ul></td></tr>\n");
		jv_free(sc);
		jv_free(rs);
		jv_free(w);
		(void)i;
	}
	if (jv_array_length(jv_copy(worst))) rag_buf_adds(&b, "</tbody></table>\n");
	rag_buf_adds(&b, "</section>\n");

	if (jv_is_valid(base)) {
		jv bm = rag_json_get(jv_copy(base), "metrics"), reg = rag_json_get(jv_copy(base), "regressed");
		rag_buf_adds(&b, "<section id=\"baseline\">\n<h2>Against the baseline</h2>\n<p>");
		esc_field(&b, base, "file");
		rag_buf_addf(&b, ": %.0f record%s matched by id, %.0f only in this run, %.0f only in the baseline; "
		             "%.0f regressed and %.0f improved by more than %.3f.</p>\n",
		             rag_json_num(base, "matched"), rag_json_num(base, "matched") == 1 ? "" : "s", rag_json_num(base, "only_current_count"), rag_json_num(base, "only_baseline_count"),
		             rag_json_num(base, "regressed_count"), rag_json_num(base, "improved_count"), rag_json_num(base, "regression"));
		rag_buf_addf(&b, "<table><thead><tr><th>metric</th><th>pairs</th><th>baseline</th><th>now</th><th>delta</th>"
		             "<th>%g%% interval</th><th>change</th></tr></thead><tbody>\n", rag_json_num(base, "confidence") * 100);
		jv_array_foreach(bm, i, m) {
			rag_buf_adds(&b, "<tr><td>");
			esc_field(&b, m, "metric");
			rag_buf_addf(&b, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
			             "<td class=\"n\">%+.3f</td><td class=\"n\">[%+.3f, %+.3f]</td><td>",
			             rag_json_num(m, "pairs"), rag_json_num(m, "baseline_mean"), rag_json_num(m, "mean"), rag_json_num(m, "delta"), rag_json_num(m, "ci_low"), rag_json_num(m, "ci_high"));
			esc_field(&b, m, "change");
			rag_buf_adds(&b, "</td></tr>\n");
			jv_free(m);
			(void)i;
		}
		rag_buf_adds(&b, "</tbody></table>\n");
		if (jv_array_length(jv_copy(reg))) {
			rag_buf_adds(&b, "<h3>Regressed records</h3>\n<table><thead><tr><th>id</th><th>metric</th><th>baseline</th>"
			                 "<th>now</th></tr></thead><tbody>\n");
			jv_array_foreach(reg, i, c) {
				rag_buf_adds(&b, "<tr><td>");
				esc_field(&b, c, "id");
				rag_buf_adds(&b, "</td><td>");
				esc_field(&b, c, "metric");
				rag_buf_addf(&b, "</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td></tr>\n", rag_json_num(c, "baseline"), rag_json_num(c, "current"));
				jv_free(c);
				(void)i;
			}
			rag_buf_adds(&b, "</tbody></table>\n");
		}
		rag_buf_adds(&b, "</section>\n");
		jv_free(bm);
		jv_free(reg);
	}
	cost_table(&b, s, 0);
	rag_buf_addf(&b, "<footer><p class=\"small\">rag-report (ragpipe) %s</p></footer>\n</body>\n</html>\n", RAG_VERSION);

	jv_free(metrics);
	jv_free(checks);
	jv_free(groups);
	jv_free(hints);
	jv_free(worst);
	jv_free(base);
	jv_free(s);
	jv_free(last);
	jv_free(runs);
	return b.p;
}

/* Markdown inline text: no markup, no HTML, no table breaks, one line; cut at max bytes on a
 * character boundary. */
static void md(rag_buf *b, const char *s, size_t max)
{
	size_t i = 0, n = s ? strlen(s) : 0;
	while (i < n) {
		long cp;
		size_t l = rag_utf8_decode(s + i, n - i, &cp);
		if (i + l > max) {
			rag_buf_adds(b, "...");
			return;
		}
		if (cp == '&') rag_buf_adds(b, "&amp;");
		else if (cp == '<') rag_buf_adds(b, "&lt;");
		else if (cp == '>') rag_buf_adds(b, "&gt;");
		else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) rag_buf_adds(b, " ");
		else if (cp < 0x80 && strchr("\\`*_[]|#!~", (int)cp)) rag_buf_addf(b, "\\%c", (int)cp);
		else rag_buf_add(b, s + i, l);
		i += l;
	}
}

static void md_field(rag_buf *b, jv o, const char *k, size_t max)
{
	jv v = rag_json_get(jv_copy(o), k);
	if (jv_get_kind(v) == JV_KIND_STRING) md(b, jv_string_value(v), max);
	else if (jv_get_kind(v) == JV_KIND_NUMBER) rag_buf_addf(b, "%.17g", jv_number_value(v));
	jv_free(v);
}

static void md_num(rag_buf *b, double x)
{
	if (isnan(x)) rag_buf_adds(b, "-");
	else rag_buf_addf(b, "%.3f", x);
}

static void md_metrics(rag_buf *b, jv metrics)
{
	rag_buf_adds(b, "| metric | computed | n/a | null | mean | median | min | p10 |\n|---|--:|--:|--:|--:|--:|--:|--:|\n");
	jv_array_foreach(metrics, i, m) {
		rag_buf_adds(b, "| ");
		md_field(b, m, "metric", 100);
		rag_buf_addf(b, " | %.0f | %.0f | %.0f | ", rag_json_num(m, "scored"), rag_json_num(m, "not_applicable"), rag_json_num(m, "null"));
		md_num(b, rag_json_num(m, "mean"));
		rag_buf_adds(b, " | ");
		md_num(b, rag_json_num(m, "median"));
		rag_buf_adds(b, " | ");
		md_num(b, rag_json_num(m, "min"));
		rag_buf_adds(b, " | ");
		md_num(b, rag_json_num(m, "p10"));
		rag_buf_adds(b, " |\n");
		jv_free(m);
		(void)i;
	}
	jv_free(metrics);
}

/* The run's cost (s's "cost", borrowed) as an HTML table, or in Markdown; nothing when no
 * record carried usage or no request was made (the offline judge). */
static void cost_table(rag_buf *b, jv s, int markdown)
{
	jv cost = rag_json_get(jv_copy(s), "cost");
	jv stages = rag_json_get(jv_copy(cost), "stages"), msgs = rag_json_get(jv_copy(cost), "messages");
	double total = rag_json_num(cost, "total");
	if (jv_get_kind(stages) != JV_KIND_ARRAY || !jv_array_length(jv_copy(stages)) ||
	    rag_json_num(cost, "calls") + rag_json_num(cost, "cache_hits") == 0)
		goto out;   /* no usage, or nothing asked of a model (the offline judge) */
	if (markdown) {
		rag_buf_adds(b, "\n### Cost\n\n| tool | stage | judge | calls | prompt tokens | completion tokens | cost (");
		md_field(b, cost, "currency", 16);
		rag_buf_adds(b, ") |\n|---|---|---|--:|--:|--:|--:|\n");
	} else {
		rag_buf_adds(b, "<section id=\"cost\">\n<h2>Cost</h2>\n<table><thead><tr><th>tool</th><th>stage</th>"
		                "<th>judge</th><th>calls</th><th>prompt tokens</th><th>completion tokens</th><th>cost (");
		esc_field(b, cost, "currency");
		rag_buf_adds(b, ")</th></tr></thead><tbody>\n");
	}
	jv_array_foreach(stages, i, e) {
		static const char *const f[] = {"tool", "stage", "judge"};
		double c = rag_json_num(e, "cost");
		size_t k;
		rag_buf_adds(b, markdown ? "|" : "<tr>");
		for (k = 0; k < 3; k++) {
			rag_buf_adds(b, markdown ? " " : "<td>");
			if (markdown) md_field(b, e, f[k], 120);
			else esc_field(b, e, f[k]);
			rag_buf_adds(b, markdown ? " |" : "</td>");
		}
		if (markdown) rag_buf_addf(b, " %.0f | %.0f | %.0f | ", rag_json_num(e, "calls"), rag_json_num(e, "prompt_tokens"),
		                           rag_json_num(e, "completion_tokens"));
		else rag_buf_addf(b, "<td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n\">",
		                  rag_json_num(e, "calls"), rag_json_num(e, "prompt_tokens"), rag_json_num(e, "completion_tokens"));
		if (isnan(c)) rag_buf_adds(b, "no price");
		else rag_buf_addf(b, "%.6f", c);
		rag_buf_adds(b, markdown ? " |\n" : "</td></tr>\n");
		jv_free(e);
		(void)i;
	}
	if (markdown) rag_buf_addf(b, "| total | | | %.0f | %.0f | %.0f | ", rag_json_num(cost, "calls"),
	                           rag_json_num(cost, "prompt_tokens"), rag_json_num(cost, "completion_tokens"));
	else rag_buf_addf(b, "<tr><td>total</td><td></td><td></td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td>"
	                  "<td class=\"n\">%.0f</td><td class=\"n\">", rag_json_num(cost, "calls"),
	                  rag_json_num(cost, "prompt_tokens"), rag_json_num(cost, "completion_tokens"));
	if (isnan(total)) rag_buf_adds(b, "unknown");
	else rag_buf_addf(b, "%.6f", total);
	rag_buf_adds(b, markdown ? " |\n" : "</td></tr>\n</tbody></table>\n");
	jv_array_foreach(msgs, i, m) {
		if (jv_get_kind(m) == JV_KIND_STRING) {
			rag_buf_adds(b, markdown ? (i ? "; " : "\n") : "<p>");
			if (markdown) md(b, jv_string_value(m), 300);
			else esc(b, jv_string_value(m));
			rag_buf_adds(b, markdown ? "" : "</p>\n");
		}
		jv_free(m);
	}
	if (markdown && jv_array_length(jv_copy(msgs))) rag_buf_adds(b, "\n");
	if (!markdown) rag_buf_adds(b, "</section>\n");
out:
	jv_free(stages);
	jv_free(msgs);
	jv_free(cost);
}

char *rag_report_markdown(jv runs, const char *title)
{
	rag_buf b = {0};
	int n = jv_array_length(jv_copy(runs));
	jv last = jv_array_get(jv_copy(runs), n - 1), s = rag_json_get(jv_copy(last), "summary");
	jv checks = rag_json_get(jv_copy(s), "checks"), groups = rag_json_get(jv_copy(s), "groups"), worst = rag_json_get(jv_copy(s), "worst");
	jv base = rag_json_get(jv_copy(s), "baseline"), metrics = rag_json_get(jv_copy(s), "metrics");
	jv hints = rag_json_get(jv_copy(s), "hints");
	double pr = rag_json_num(s, "pass_rate");
	const char *verdict = rag_report_verdict(s);

	rag_buf_adds(&b, "## ");
	md(&b, title, 200);
	rag_buf_addf(&b, ": %s\n\n%.0f record%s, %.0f passed", !strcmp(verdict, "PASS") ? "✅ PASS" : !strcmp(verdict, "FAIL") ? "❌ FAIL" : "SUMMARY", rag_json_num(s, "records"),
	             rag_json_num(s, "records") == 1 ? "" : "s", rag_json_num(s, "passed"));
	if (!isnan(pr)) rag_buf_addf(&b, " (%.1f%%)", pr * 100);
	rag_buf_addf(&b, ", %.0f with errors or nulls.\n\n", rag_json_num(s, "errored"));
	md_metrics(&b, jv_copy(metrics));
	rag_buf_adds(&b, "\n| check | result |\n|---|---|\n");
	jv_array_foreach(checks, i, c) {
		rag_buf_adds(&b, "| ");
		md_field(&b, c, "message", 400);
		rag_buf_addf(&b, " | %s |\n", rag_json_true(c, "skipped") ? "skipped" : rag_json_true(c, "pass") ? "pass" : "**FAIL**");
		jv_free(c);
		(void)i;
	}
	if (!jv_array_length(jv_copy(checks))) rag_buf_adds(&b, "| no thresholds | |\n");
	jv_array_foreach(hints, i, h) {
		if (i == 0) rag_buf_adds(&b, "\n### Where to look\n\n");
		rag_buf_adds(&b, "- ");
		md_field(&b, h, "hint", 1000);
		rag_buf_adds(&b, "\n");
		jv_free(h);
	}
	jv_array_foreach(groups, k, by) {
		jv rows = rag_json_get(jv_copy(by), "groups");
		rag_buf_adds(&b, "\n<details><summary>By ");
		md_field(&b, by, "by", 100);
		rag_buf_adds(&b, "</summary>\n\n");
		jv_array_foreach(rows, i, c) {
			double cpr = rag_json_num(c, "pass_rate");
			rag_buf_adds(&b, "#### ");
			md_field(&b, c, "group", 100);
			rag_buf_addf(&b, " (%.0f record%s, %.0f passed", rag_json_num(c, "records"), rag_json_num(c, "records") == 1 ? "" : "s", rag_json_num(c, "passed"));
			if (!isnan(cpr)) rag_buf_addf(&b, ", %.1f%%", cpr * 100);
			rag_buf_adds(&b, ")\n\n");
			md_metrics(&b, rag_json_get(jv_copy(c), "metrics"));
			rag_buf_adds(&b, "\n");
			jv_free(c);
			(void)i;
		}
		rag_buf_adds(&b, "</details>\n");
		jv_free(rows);
		jv_free(by);
		(void)k;
	}
	if (n > 1) {
		rag_buf_adds(&b, "\n### Trend (mean per run, oldest first)\n\n| metric |");
		for (int r = 0; r < n; r++) rag_buf_addf(&b, " %d |", r + 1);
		rag_buf_adds(&b, "\n|---|");
		for (int r = 0; r < n; r++) rag_buf_adds(&b, "--:|");
		rag_buf_adds(&b, "\n");
		jv_array_foreach(metrics, i, m) {
			jv name = rag_json_get(jv_copy(m), "metric");
			rag_buf_adds(&b, "| ");
			md_field(&b, m, "metric", 100);
			rag_buf_adds(&b, " |");
			jv_array_foreach(runs, r, run) {
				jv ms = rag_json_get(rag_json_get(jv_copy(run), "summary"), "metrics");
				double mean = NAN;
				jv_array_foreach(ms, k, x) {
					jv xn = rag_json_get(jv_copy(x), "metric");
					if (jv_get_kind(xn) == JV_KIND_STRING && jv_get_kind(name) == JV_KIND_STRING &&
					    !strcmp(jv_string_value(xn), jv_string_value(name)))
						mean = rag_json_num(x, "mean");
					jv_free(xn);
					jv_free(x);
					(void)k;
				}
				rag_buf_adds(&b, " ");
				md_num(&b, mean);
				rag_buf_adds(&b, " |");
				jv_free(ms);
				jv_free(run);
				(void)r;
			}
			rag_buf_adds(&b, "\n");
			jv_free(name);
			jv_free(m);
			(void)i;
		}
		rag_buf_adds(&b, "\nRuns: ");
		jv_array_foreach(runs, r, run) {
			rag_buf_addf(&b, "%s%d. ", r ? ", " : "", r + 1);
			md_field(&b, run, "name", 200);
			jv_free(run);
		}
		rag_buf_adds(&b, "\n");
	}
	jv_array_foreach(worst, i, w) {
		jv rs = rag_json_get(jv_copy(w), "reasons");
		if (i == 0) rag_buf_adds(&b, "\n### Worst records\n\n| id | question | reasons |\n|---|---|---|\n");
		rag_buf_adds(&b, "| ");
		md_field(&b, w, "id", 120);
		rag_buf_adds(&b, " | ");
		md_field(&b, w, "question", 200);
		rag_buf_adds(&b, " | ");
		jv_array_foreach(rs, j, r) {
			if (j) rag_buf_adds(&b, "<br>");
			if (jv_get_kind(r) == JV_KIND_STRING) md(&b, jv_string_value(r), 300);
			jv_free(r);
		}
		rag_buf_adds(&b, " |\n");
		jv_free(rs);
		jv_free(w);
	}
	if (jv_is_valid(base)) {
		jv bm = rag_json_get(jv_copy(base), "metrics"), reg = rag_json_get(jv_copy(base), "regressed");
		rag_buf_addf(&b, "\n### Against the baseline\n\n%.0f record%s matched by id; %.0f only in this run, %.0f only in the baseline; "
		             "%.0f regressed and %.0f improved by more than %.3f.\n\n",
		             rag_json_num(base, "matched"), rag_json_num(base, "matched") == 1 ? "" : "s", rag_json_num(base, "only_current_count"), rag_json_num(base, "only_baseline_count"),
		             rag_json_num(base, "regressed_count"), rag_json_num(base, "improved_count"), rag_json_num(base, "regression"));
		rag_buf_addf(&b, "| metric | pairs | baseline | now | delta | %g%% interval |\n|---|--:|--:|--:|--:|---|\n",
		             rag_json_num(base, "confidence") * 100);
		jv_array_foreach(bm, i, m) {
			jv ch = rag_json_get(jv_copy(m), "change");
			const char *c = jv_get_kind(ch) == JV_KIND_STRING ? jv_string_value(ch) : "";
			rag_buf_adds(&b, "| ");
			md_field(&b, m, "metric", 100);
			rag_buf_addf(&b, " | %.0f | %.3f | %.3f | %+.3f | [%+.3f, %+.3f]%s |\n", rag_json_num(m, "pairs"), rag_json_num(m, "baseline_mean"),
			             rag_json_num(m, "mean"), rag_json_num(m, "delta"), rag_json_num(m, "ci_low"), rag_json_num(m, "ci_high"),
			             !strcmp(c, "regression") ? " **regression**" : !strcmp(c, "improvement") ? " improvement" : "");
			jv_free(ch);
			jv_free(m);
			(void)i;
		}
		jv_array_foreach(reg, i, c) {
			if (i == 0) rag_buf_adds(&b, "\n| regressed | metric | baseline | now |\n|---|---|--:|--:|\n");
			if (i < 20) {
				rag_buf_adds(&b, "| ");
				md_field(&b, c, "id", 120);
				rag_buf_adds(&b, " | ");
				md_field(&b, c, "metric", 60);
				rag_buf_addf(&b, " | %.3f | %.3f |\n", rag_json_num(c, "baseline"), rag_json_num(c, "current"));
			}
			jv_free(c);
		}
		jv_free(bm);
		jv_free(reg);
	}
	cost_table(&b, s, 1);
	jv_free(metrics);
	jv_free(base);
	jv_free(checks);
	jv_free(groups);
	jv_free(hints);
	jv_free(worst);
	jv_free(s);
	jv_free(last);
	jv_free(runs);
	return b.p;
}
