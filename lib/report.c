/* report.c - a run rendered as one self-contained HTML page you can explore, or as Markdown.
 * The page is offline (inline CSS, SVG and one script, share/report/report.js after
 * share/serve/gate-zh.js, no external asset). Its Summary is HTML made here, readable with the script off; the records, the
 * comparison and the history are JSON in a <script type="application/json"> block that the
 * script shows, inserting every text as text. Every text from the records or the file names is
 * escaped; numbers are formatted here, never taken as text from the input; which record
 * failed and why is the gate's decision (rag_gate_add_verdict), never made again here. */
#include "base.h"
#include "record.h"
#include "gate.h"
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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

/* the array o.k (o borrowed), or an empty one: a summary without a part has none of it */
static jv arr(jv o, const char *k)
{
	jv v = rag_json_get(jv_copy(o), k);
	if (jv_get_kind(v) == JV_KIND_ARRAY) return v;
	jv_free(v);
	return jv_array();
}

/* the string field k of o, escaped */
static void esc_field(rag_buf *b, jv o, const char *k)
{
	jv v = rag_json_get(jv_copy(o), k);
	if (jv_get_kind(v) == JV_KIND_STRING) {
		esc(b, jv_string_value(v));
	} else if (jv_get_kind(v) == JV_KIND_NUMBER) {
		char *t = rag_json_id(v);
		rag_buf_adds(b, t);
		free(t);
	}
	jv_free(v);
}

static void num3(rag_buf *b, double x)
{
	if (isnan(x)) rag_buf_adds(b, "&#8211;");
	else rag_buf_addf(b, "%.3f", x);
}

/* The page's style: CJK families named so Chinese text finds a font (fonts-noto-cjk on Debian) */
static const char css[] =
	"body{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,\"Noto Sans\",\"Noto Sans CJK SC\",\"Noto Sans SC\","
	"\"Source Han Sans SC\",\"PingFang SC\",\"Hiragino Sans GB\",\"Microsoft YaHei\",\"WenQuanYi Micro Hei\",sans-serif;"
	"margin:2em auto;max-width:80em;padding:0 1em;color:#1f2328;line-height:1.45}\n"
	"h1{margin-bottom:.2em}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:2em}\n"
	".verdict,.st{display:inline-block;font-weight:bold;padding:.2em .8em;border-radius:.3em;color:#fff}\n"
	".st{padding:0 .5em;font-size:.85em}\n"
	".pass{background:#1a7f37}.fail{background:#cf222e}.error{background:#9a6700}.none{background:#6e7781}\n"
	".cards{display:flex;flex-wrap:wrap;gap:1em}.card{border:1px solid #d0d7de;border-radius:.4em;"
	"padding:.8em 1em;min-width:12em}\n"
	".card .name{font-weight:bold}.card .big{font-size:2em}.card .small,.small{color:#59636e;font-size:.9em}\n"
	".card.failed{border-color:#cf222e}\n"
	"details.group>summary{cursor:pointer;margin:.6em 0;min-height:24px}details.group>summary h3{display:inline;margin:0}\n"
	"#failed-list>summary{cursor:pointer;min-height:24px;color:#0969da}\n"
	"table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #d0d7de;padding:.3em .6em;"
	"vertical-align:top;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	"td.text{max-width:30em;white-space:pre-wrap;word-break:break-word}\n"
	"ul.checks li.bad{color:#cf222e}ul.checks li.good{color:#1a7f37}ul.checks li.skip{color:#59636e}\n"
	"p.warning{border-left:4px solid #bf8700;padding:.3em .8em;background:#fff8c5}\n"
	"figure{display:inline-block;margin:.5em 1em .5em 0;vertical-align:top}figcaption{font-size:.9em;color:#59636e;max-width:22em}\n"
	"svg text{font-size:10px;fill:#59636e}\n"
	"nav.tabs{display:none;gap:.3em;border-bottom:1px solid #d0d7de;margin-top:1em}\n"
	".js nav.tabs{display:flex}.js section.tab{display:none}.js section.tab.active{display:block}.js .needs-js{display:none}\n"
	"nav.tabs button{font:inherit;padding:.4em 1em;border:1px solid #d0d7de;border-bottom:none;background:#f6f8fa;"
	"border-radius:.4em .4em 0 0;cursor:pointer}nav.tabs button[aria-selected=true]{background:#fff;font-weight:bold}\n"
	".controls{display:flex;flex-wrap:wrap;gap:.6em;align-items:center;margin:.8em 0}\n"
	".controls input,.controls select,.pager button{font:inherit}\n"
	"table.list{width:100%}table.list th{cursor:pointer;user-select:none;background:#f6f8fa}\n"
	"table.list tbody tr.row{cursor:pointer}table.list tbody tr.row:hover{background:#f6f8fa}\n"
	"table.list tr.row.failing td:first-child{border-left:4px solid #cf222e}\n"
	"tr.detail>td{background:#fbfcfd}.detail h4{margin:.8em 0 .2em}.detail .text{white-space:pre-wrap;word-break:break-word}\n"
	".side{display:grid;grid-template-columns:1fr 1fr;gap:1em}\n"
	".ok{color:#1a7f37}.bad{color:#cf222e}.na{color:#59636e}\n"
	".point{cursor:pointer}#history-run{border:1px solid #d0d7de;border-radius:.4em;padding:.6em 1em;margin:.5em 0}\n"
	/* the first screen: the language switch, the failing records by cause */
	"#lang-switch{display:none;float:right;font:inherit;margin-top:.3em}.js #lang-switch{display:inline-block}\n"
	"ul.causes{padding-left:1.2em}ul.causes summary{cursor:pointer;font-size:1.05em}ul.causes .label{font-weight:bold}\n"
	"ol.cause-records .rid{font-family:ui-monospace,monospace;white-space:nowrap}details.checks-ok{margin:.3em 0}\n"
	/* nothing wider than the screen: charts scale down, a wide table scrolls inside itself */
	"svg{max-width:100%;height:auto}figure{max-width:100%}\n"
	"#summary table,#compare-metrics,table.run,table.claims,table.scores{display:block;overflow-x:auto;max-width:100%}\n"
	/* the Records table fits at 1440: headers wrap (long metric names), ids do not break */
	"table.list th{overflow-wrap:anywhere;font-size:.85em}table.list td.id{white-space:nowrap}"
	"table.list td.q{min-width:14em;overflow-wrap:anywhere}table.list .why{min-width:11em;max-width:22em;overflow-wrap:anywhere}\n"
	/* a phone: the tabs wrap, a table's rows stack, each cell named by its column */
	"@media (max-width:700px){body{margin:.5em auto;padding:0 .6em}h1{font-size:1.4em;margin:.2em 0}h2{margin-top:1em}"
	".js #summary>h2,.js p.causes-note{display:none}"
	"nav.tabs{flex-wrap:wrap}nav.tabs button{padding:.4em .7em}.side{grid-template-columns:1fr}"
	".card{min-width:0;flex:1 1 100%}.controls input,.controls select{max-width:100%}"
	"table.list,table.list tbody,table.list tr,table.list td{display:block;width:auto}table.list thead{display:none}"
	"table.list tr.row{border:1px solid #d0d7de;border-radius:.3em;margin:.5em 0;padding:.2em 0}"
	"table.list tr.row.failing{border-left:4px solid #cf222e}table.list tr.row.failing td:first-child{border-left:none}"
	"table.list td{border:none;padding:.1em .6em;text-align:left}table.list td.n{text-align:left}"
	"table.list td[data-label]::before{content:attr(data-label) \": \";color:#59636e}"
	"table.list .why{max-width:none}td.text{max-width:none}}\n";

/* the thresholds of metric name in the summary's metrics (borrowed); NAN when none */
static void thresholds(jv metrics, const char *name, double *rec, double *mean)
{
	*rec = *mean = NAN;
	jv_array_foreach(metrics, i, m) {
		jv n = rag_json_get(jv_copy(m), "metric");
		if (jv_get_kind(n) == JV_KIND_STRING && !strcmp(jv_string_value(n), name)) {
			*rec = rag_json_num(m, "threshold_record");
			*mean = rag_json_num(m, "threshold_mean");
		}
		jv_free(n);
		jv_free(m);
		(void)i;
	}
}

/* Ten bars over [0, 1], each with a title of its range and count. Coloured by the gate's
 * threshold (the per-record one, else the mean's): red wholly below it, amber across it, green
 * at or above it; blue when nothing is gated. The thresholds and the mean are marked. */
static void svg_histogram(rag_buf *b, jv hist, const char *label, int w, int h, double rthr, double mthr, double mean, double min)
{
	double counts[10] = {0}, max = 0, thr = !isnan(rthr) ? rthr : mthr;
	/* every score at or above the threshold (all 1.000 at 1.0): no bar is a failure */
	int all_pass = !isnan(thr) && !isnan(min) && min >= thr - 1e-9;
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
		double bh = max > 0 ? (counts[i] / max) * (h - 2 * pad - 10) : 0, lo = i / 10.0, hi = (i + 1) / 10.0;
		int x = pad + i * bw;
		/* the last bar holds 1.0 itself: at a threshold of 1.0 it is across it, not below */
		int below = i < 9 ? hi <= thr + 1e-9 : hi < thr - 1e-9;
		const char *fill = isnan(thr) ? "#0969da" : all_pass || lo >= thr - 1e-9 ? "#1a7f37" : below ? "#d1242f" : "#bf8700";
		rag_buf_addf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%.1f&#8211;%.1f: %.0f</title></rect>",
		             x + 1, h - pad - bh, bw - 2, bh, fill, lo, hi, counts[i]);
		if (counts[i] > 0)
			rag_buf_addf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>", x + bw / 2, h - pad - bh - 2, counts[i]);
	}
	if (!isnan(rthr))
		rag_buf_addf(b, "<line class=\"thr-record\" x1=\"%.1f\" y1=\"4\" x2=\"%.1f\" y2=\"%d\" stroke=\"#cf222e\" stroke-dasharray=\"4 2\">"
		             "<title>per-record threshold %.3f</title></line>", pad + rthr * 10 * bw, pad + rthr * 10 * bw, h - pad, rthr);
	if (!isnan(mthr))
		rag_buf_addf(b, "<line class=\"thr-mean\" x1=\"%.1f\" y1=\"4\" x2=\"%.1f\" y2=\"%d\" stroke=\"#1f2328\" stroke-dasharray=\"1 2\">"
		             "<title>threshold of the mean %.3f</title></line>", pad + mthr * 10 * bw, pad + mthr * 10 * bw, h - pad, mthr);
	if (!isnan(mean))
		rag_buf_addf(b, "<path d=\"M%.1f %d l-4 6 h8 z\" fill=\"#0969da\"><title>mean %.3f</title></path>",
		             pad + (mean < 0 ? 0 : mean > 1 ? 1 : mean) * 10 * bw, h - pad, mean);
	rag_buf_addf(b, "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"middle\">0.5</text>"
	             "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">1</text></svg>",
	             pad, h - 3, pad + 5 * bw, h - 3, pad + 10 * bw, h - 3);
}

/* a histogram's caption: what its colours mean */
static void histogram_caption(rag_buf *b, const char *name, double rthr, double mthr)
{
	esc(b, name);
	if (!isnan(rthr)) rag_buf_addf(b, ": red below the per-record threshold %.3f, amber across it, green at or above", rthr);
	else if (!isnan(mthr)) rag_buf_addf(b, ": red below the threshold of the mean %.3f, green at or above", mthr);
	else rag_buf_adds(b, ": no threshold");
}

static void metric_table(rag_buf *b, jv metrics, jv top, int hist)
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
			jv name = rag_json_get(jv_copy(m), "metric"), h = arr(m, "histogram");
			const char *nm = jv_get_kind(name) == JV_KIND_STRING ? jv_string_value(name) : "";
			double rt, mt;
			thresholds(top, nm, &rt, &mt);
			rag_buf_adds(b, "<td>");
			svg_histogram(b, h, nm, 160, 60, rt, mt, rag_json_num(m, "mean"), rag_json_num(m, "min"));
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

static const char *plural(double n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void rag_report_counts(rag_buf *b, jv s, int gated)
{
	double n = rag_json_num(s, "records"), e = rag_json_num(s, "errored"), p = rag_json_num(s, "passed");
	double of = rag_json_num(s, "pass_rate_of");
	if (isnan(n)) n = 0;
	if (isnan(e)) e = 0;
	if (isnan(p)) p = 0;
	if (isnan(of)) of = n - e;   /* the pass rate's denominator: the records without errors or nulls */
	if (!gated) {
		rag_buf_addf(b, "%.0f %s, %.0f with errors or nulls", n, plural(n, "record", "records"), e);
		return;
	}
	rag_buf_addf(b, "%.0f %s: %.0f passed", n, plural(n, "record", "records"), p);
	if (of > 0) {
		if (e > 0) rag_buf_addf(b, " (%.1f%% of the %.0f without errors or nulls)", 100 * p / of, of);
		else rag_buf_addf(b, " (%.1f%% of %.0f)", 100 * p / of, of);
	}
	rag_buf_addf(b, ", %.0f failed, %.0f with errors or nulls", of - p, e);
}

void rag_report_changes(rag_buf *b, jv base)
{
	jv counts = JV_OBJECT(jv_string("paired"), jv_number(rag_json_num(base, "matched")),
	                      jv_string("regressed"), jv_number(rag_json_num(base, "regressed_records")),
	                      jv_string("lost"), jv_number(rag_json_num(base, "lost_records")),
	                      jv_string("improved"), jv_number(rag_json_num(base, "improved_records")),
	                      jv_string("unchanged"), jv_number(rag_json_num(base, "unchanged_records")),
	                      jv_string("tolerance"), jv_number(rag_json_num(base, "regression")));
	char *text = rag_compare_counts_text(counts);
	double m = rag_json_num(base, "matched");
	/* compare.c's counts and definition, as rag-serve's compare and rag-store diff give them */
	rag_buf_addf(b, "%.0f %s matched by id: %s; of the pairs of a record and a metric, %.0f regressed and %.0f improved",
	             m, plural(m, "record", "records"), text, rag_json_num(base, "regressed_count"), rag_json_num(base, "improved_count"));
	free(text);
	jv_free(counts);
}

/* the class of a verdict, its colour on the page */
static const char *verdict_class(const char *v)
{
	return !strcmp(v, "PASS") ? "pass" : !strcmp(v, "FAIL") ? "fail" : "none";
}

static void cost_table(rag_buf *b, jv s, int markdown);

/* ---------------------------------------------------------------- the records' data */

/* a field's value (borrowed rec) set in o under key when it is of kind k */
static jv copy_kind(jv o, const char *key, jv rec, const char *field, jv_kind k)
{
	jv v = rag_json_get(jv_copy(rec), field);
	if (jv_get_kind(v) == k) return jv_object_set(o, jv_string(key), v);
	jv_free(v);
	return o;
}

/* verdicts (consumed; an object, else {}) less the text of each chunk verdict that is its
 * context's (ctx consumed), which the page has already: a run of 20,000 records is a third
 * smaller. A chunk verdict is matched to its context by position. */
static jv chunk_verdicts(jv verdicts, jv ctx)
{
	jv out = jv_object();
	if (jv_get_kind(verdicts) != JV_KIND_OBJECT) {
		jv_free(verdicts);
		jv_free(ctx);
		return out;
	}
	jv_object_foreach(verdicts, k, list) {
		if (jv_get_kind(list) == JV_KIND_ARRAY && jv_get_kind(ctx) == JV_KIND_ARRAY) {
			int i, n = jv_array_length(jv_copy(list));
			for (i = 0; i < n; i++) {
				jv e = jv_array_get(jv_copy(list), i), chunk = rag_json_get(jv_copy(e), "chunk"), c = jv_array_get(jv_copy(ctx), i);
				if (jv_get_kind(chunk) == JV_KIND_STRING && jv_get_kind(c) == JV_KIND_STRING && jv_equal(jv_copy(chunk), jv_copy(c)))
					list = jv_array_set(list, i, jv_object_set(jv_object_delete(e, jv_string("chunk")), jv_string("chunk_is_context"), jv_true()));
				else
					jv_free(e);
				jv_free(chunk);
				jv_free(c);
			}
		}
		out = jv_object_set(out, k, list);
	}
	jv_free(verdicts);
	jv_free(ctx);
	return out;
}

jv rag_report_record(jv rec, jv verdict, const char *where)
{
	jv r = jv_object(), v, ctx;
	const char *s;
	char *id = NULL;
	int failed = rag_json_true(verdict, "failed"), errored = rag_json_true(verdict, "errored");

	if ((id = rag_record_id(rec))) r = jv_object_set(r, jv_string("id"), jv_string(id));
	free(id);
	v = rag_json_get(jv_copy(rec), "category");
	if (jv_get_kind(v) == JV_KIND_STRING) r = jv_object_set(r, jv_string("cat"), v);
	else if (jv_is_valid(v) && jv_get_kind(v) != JV_KIND_NULL) r = jv_object_set(r, jv_string("cat"), jv_dump_string(v, 0));
	else jv_free(v);
	if ((s = rag_record_str(rec, "question"))) r = jv_object_set(r, jv_string("q"), jv_string(s));
	if ((s = rag_record_str(rec, "answer"))) r = jv_object_set(r, jv_string("a"), jv_string(s));
	if ((s = rag_record_str(rec, "reference"))) r = jv_object_set(r, jv_string("ref"), jv_string(s));
	ctx = rag_record_contexts(rec);
	if (jv_get_kind(ctx) == JV_KIND_ARRAY) r = jv_object_set(r, jv_string("ctx"), ctx);
	else jv_free(ctx);
	r = copy_kind(r, "sc", rec, "scores", JV_KIND_OBJECT);
	r = copy_kind(r, "na", rec, "not_applicable", JV_KIND_OBJECT);
	r = copy_kind(r, "rf", rec, "relevance_from", JV_KIND_OBJECT);
	r = jv_object_set(r, jv_string("v"), chunk_verdicts(rag_json_get(jv_copy(rec), "verdicts"), rag_json_get(jv_copy(r), "ctx")));
	r = copy_kind(r, "err", rec, "errors", JV_KIND_ARRAY);
	r = copy_kind(r, "src", rec, "source", JV_KIND_STRING);
	if (where) r = jv_object_set(r, jv_string("at"), jv_string(where));
	/* the gate's decision, never made again here */
	r = jv_object_set(r, jv_string("st"), jv_string(errored ? "error" : failed ? "fail" : "pass"));
	if (failed || errored) {
		r = jv_object_set(r, jv_string("why"), rag_json_get(jv_copy(verdict), "missed"));
		/* the same as {code, args}, for the page to say in its reader's language */
		r = copy_kind(r, "whyc", verdict, "missed_codes", JV_KIND_ARRAY);
	}
	v = rag_json_get(jv_copy(verdict), "changes");
	if (jv_get_kind(v) == JV_KIND_ARRAY && jv_array_length(jv_copy(v)) > 0) r = jv_object_set(r, jv_string("ch"), v);
	else jv_free(v);
	v = rag_json_get(jv_copy(verdict), "change");   /* the record's class, compare.c's */
	if (jv_get_kind(v) == JV_KIND_STRING) r = jv_object_set(r, jv_string("cc"), v);
	else jv_free(v);
	jv_free(verdict);
	return r;
}

jv rag_report_history_read(const char *text, size_t len, const char *name, char *err, size_t errlen)
{
	jv out = jv_array();
	size_t i = 0, line = 0;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len, k;
		jv h, means;
		line++;
		for (k = i; k < end && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r'); k++)
			;
		if (k == end) {   /* a blank line */
			i = end + 1;
			continue;
		}
		h = jv_parse_sized(text + i, (int)(end - i));
		i = end + 1;
		if (!jv_is_valid(h)) {
			jv m = jv_invalid_get_msg(h);
			snprintf(err, errlen, "%s:%zu: not JSON: %s", name, line, jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "?");
			jv_free(m);
			jv_free(out);
			return jv_invalid();
		}
		means = rag_json_get(jv_copy(h), "means");
		if (jv_get_kind(h) != JV_KIND_OBJECT || jv_get_kind(means) != JV_KIND_OBJECT) {
			snprintf(err, errlen, "%s:%zu: a run summary is an object with \"means\": {metric: mean, ...}", name, line);
			jv_free(means);
			jv_free(h);
			jv_free(out);
			return jv_invalid();
		}
		jv_free(means);
		out = jv_array_append(out, h);
	}
	return out;
}

/* v (consumed) when a string, else null */
static jv str_or_null(jv v)
{
	if (jv_get_kind(v) == JV_KIND_STRING) return v;
	jv_free(v);
	return jv_null();
}

/* A run given as a file ({name, summary, meta?: its run.json}) as an entry of the history,
 * in the format of rag-store history (rag-report(1) HISTORY). */
static jv history_entry(jv run)
{
	jv s = rag_json_get(jv_copy(run), "summary"), meta = rag_json_get(jv_copy(run), "meta");
	jv ms = arr(s, "metrics"), means = jv_object(), h = jv_object(), p, v;
	v = str_or_null(rag_json_get(jv_copy(meta), "run_id"));
	h = jv_object_set(h, jv_string("run"), jv_get_kind(v) == JV_KIND_STRING ? v : rag_json_get(jv_copy(run), "name"));
	h = jv_object_set(h, jv_string("started"), str_or_null(rag_json_get(jv_copy(meta), "started")));
	h = jv_object_set(h, jv_string("label"), str_or_null(rag_json_get(jv_copy(meta), "label")));
	h = jv_object_set(h, jv_string("commit"), str_or_null(rag_json_get(rag_json_get(jv_copy(meta), "git"), "commit")));
	h = jv_object_set(h, jv_string("testset"), str_or_null(rag_json_get(jv_copy(meta), "testset")));
	h = jv_object_set(h, jv_string("n"), rag_json_get(jv_copy(s), "records"));
	p = rag_json_get(jv_copy(s), "pass");
	h = jv_object_set(h, jv_string("passed"), jv_get_kind(p) == JV_KIND_TRUE || jv_get_kind(p) == JV_KIND_FALSE ? p : (jv_free(p), jv_null()));
	jv_array_foreach(ms, i, m) {
		jv name = rag_json_get(jv_copy(m), "metric"), mean = rag_json_get(jv_copy(m), "mean");
		if (jv_get_kind(name) == JV_KIND_STRING && jv_get_kind(mean) == JV_KIND_NUMBER) means = jv_object_set(means, name, mean);
		else {
			jv_free(name);
			jv_free(mean);
		}
		jv_free(m);
		(void)i;
	}
	h = jv_object_set(h, jv_string("means"), means);
	v = rag_json_get(jv_copy(run), "href");
	if (jv_get_kind(v) == JV_KIND_STRING) h = jv_object_set(h, jv_string("report"), v);
	else jv_free(v);
	h = jv_object_set(h, jv_string("file"), rag_json_get(jv_copy(run), "name"));
	jv_free(ms);
	jv_free(meta);
	jv_free(s);
	return h;
}

/* The history (given, consumed) with the runs given as files after it: a run the history already
 * has (by id) is not there twice. Ordered by start time when every entry has one. The last
 * run is marked current. */
static jv merge_history(jv given, jv runs)
{
	jv out = jv_get_kind(given) == JV_KIND_ARRAY ? given : (jv_free(given), jv_array()), seen = jv_object();
	int n = jv_array_length(jv_copy(runs)), all_dated = 1, i, j, len;
	const char *cur = NULL;
	jv curid = jv_null();
	jv_array_foreach(out, k, h) {
		jv id = rag_json_get(h, "run");
		if (jv_get_kind(id) == JV_KIND_STRING) seen = jv_object_set(seen, id, jv_number(k));
		else jv_free(id);
	}
	jv_array_foreach(runs, k, r) {
		jv h = history_entry(r), id = rag_json_get(jv_copy(h), "run");
		jv at = jv_get_kind(id) == JV_KIND_STRING ? jv_object_get(jv_copy(seen), jv_copy(id)) : jv_invalid();
		if (k == n - 1) {
			jv_free(curid);
			curid = jv_copy(id);
		}
		if (jv_get_kind(at) == JV_KIND_NUMBER) {
			/* the stored entry stays; what the file adds (its report's link) joins it */
			jv e = jv_array_get(jv_copy(out), (int)jv_number_value(at)), href = rag_json_get(jv_copy(h), "report");
			if (jv_get_kind(href) == JV_KIND_STRING && !jv_is_valid(rag_json_get(jv_copy(e), "report")))
				e = jv_object_set(e, jv_string("report"), href);
			else
				jv_free(href);
			out = jv_array_set(out, (int)jv_number_value(at), e);
			jv_free(h);
		} else {
			out = jv_array_append(out, h);
		}
		jv_free(at);
		jv_free(id);
		jv_free(r);
	}
	jv_free(seen);
	len = jv_array_length(jv_copy(out));
	jv_array_foreach(out, k, h) {
		jv st = rag_json_get(h, "started");
		if (jv_get_kind(st) != JV_KIND_STRING) all_dated = 0;
		jv_free(st);
		(void)k;
	}
	/* insertion sort by the ISO 8601 text, stable: equal times keep their order */
	for (i = 1; all_dated && i < len; i++) {
		jv x = jv_array_get(jv_copy(out), i), xs = rag_json_get(jv_copy(x), "started");
		for (j = i - 1; j >= 0; j--) {
			jv y = jv_array_get(jv_copy(out), j), ys = rag_json_get(jv_copy(y), "started");
			int after = strcmp(jv_string_value(ys), jv_string_value(xs)) > 0;
			jv_free(ys);
			if (!after) {
				jv_free(y);
				break;
			}
			out = jv_array_set(out, j + 1, y);
		}
		out = jv_array_set(out, j + 1, x);
		jv_free(xs);
	}
	cur = jv_get_kind(curid) == JV_KIND_STRING ? jv_string_value(curid) : NULL;
	for (i = len - 1; cur && i >= 0; i--) {
		jv e = jv_array_get(jv_copy(out), i), id = rag_json_get(jv_copy(e), "run");
		int is = jv_get_kind(id) == JV_KIND_STRING && !strcmp(jv_string_value(id), cur);
		jv_free(id);
		if (is) {
			out = jv_array_set(out, i, jv_object_set(e, jv_string("current"), jv_true()));
			break;
		}
		jv_free(e);
	}
	jv_free(curid);
	jv_free(runs);
	return out;
}

/* JSON for a <script type="application/json"> block: "<", ">" and "&" as \u escapes, so no
 * text can end the block or open a comment, and U+2028/U+2029 too (line ends to old parsers).
 * They occur only inside strings, where the escape means the same character. */
static void json_block(rag_buf *b, jv v)
{
	jv d = jv_dump_string(v, 0);
	const char *s = jv_string_value(d), *run = s;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *rep = NULL;
		if (c == '<') rep = "\\u003c";
		else if (c == '>') rep = "\\u003e";
		else if (c == '&') rep = "\\u0026";
		else if (c == 0xe2 && (unsigned char)s[1] == 0x80 && ((unsigned char)s[2] == 0xa8 || (unsigned char)s[2] == 0xa9))
			rep = (unsigned char)s[2] == 0xa8 ? "\\u2028" : "\\u2029";
		if (!rep) continue;
		rag_buf_add(b, run, (size_t)(s - run));
		rag_buf_adds(b, rep);
		if (c == 0xe2) s += 2;
		run = s + 1;
	}
	rag_buf_add(b, run, (size_t)(s - run));
	jv_free(d);
}

/* ---------------------------------------------------------------- the page */

static void md(rag_buf *b, const char *s, size_t max);

/* gate.by_category's thresholds, a line a category (as_md: Markdown, else HTML): the
 * per-record ones (thresholds.by_category), then the means (thresholds.by_category_mean) */
static void by_category_lines(rag_buf *b, jv s, int as_md)
{
	static const char *const keys[][2] = {
		{"by_category", "Per-record thresholds"}, {"by_category_mean", "Mean thresholds"},
	};
	size_t k;
	for (k = 0; k < 2; k++) {
		jv bc = rag_json_get(rag_json_get(jv_copy(s), "thresholds"), keys[k][0]);
		if (jv_get_kind(bc) == JV_KIND_OBJECT) {
			jv_object_foreach(bc, cat, ms) {
				rag_buf_addf(b, as_md ? "%s for **" : "<p class=\"by-category\">%s for <b>", keys[k][1]);
				if (as_md) md(b, jv_string_value(cat), 200);
				else esc(b, jv_string_value(cat));
				rag_buf_adds(b, as_md ? "**:" : "</b>:");
				if (jv_get_kind(ms) == JV_KIND_OBJECT) {
					jv_object_foreach(ms, m, v) {
						rag_buf_adds(b, " ");
						if (as_md) md(b, jv_string_value(m), 200);
						else esc(b, jv_string_value(m));
						rag_buf_addf(b, " %s %.3f", as_md ? "≥" : "&#8805;", jv_number_value(v));
						jv_free(m);
						jv_free(v);
					}
				}
				rag_buf_adds(b, as_md ? " (gate.by_category)\n\n" : " (gate.by_category)</p>\n");
				jv_free(cat);
				jv_free(ms);
			}
		}
		jv_free(bc);
	}
}

/* the summary's warnings (self-judging), above the cards */
static void html_warnings(rag_buf *b, jv s)
{
	jv w = arr(s, "warnings");
	jv_array_foreach(w, i, t) {
		if (jv_get_kind(t) == JV_KIND_STRING) {
			rag_buf_addf(b, "<p class=\"warning\" id=\"warning-%d\"><strong>Warning:</strong> ", i);
			esc(b, jv_string_value(t));
			rag_buf_adds(b, "</p>\n");
		}
		jv_free(t);
	}
	jv_free(w);
}

/* whether a failed check names metric m (borrowed both): "nulls faithfulness", "mean faithfulness" */
static int check_failed(jv checks, jv m)
{
	jv name = rag_json_get(jv_copy(m), "metric");
	int hit = 0;
	if (jv_get_kind(name) == JV_KIND_STRING) {
		const char *nm = jv_string_value(name);
		size_t n = strlen(nm);
		jv_array_foreach(checks, i, c) {
			jv k = rag_json_get(jv_copy(c), "check");
			if (!rag_json_true(c, "pass") && !rag_json_true(c, "skipped") && jv_get_kind(k) == JV_KIND_STRING) {
				const char *t = jv_string_value(k);
				size_t l = strlen(t);
				if (l > n && t[l - n - 1] == ' ' && !strcmp(t + l - n, nm)) hit = 1;
			}
			jv_free(k);
			jv_free(c);
			(void)i;
		}
	}
	jv_free(name);
	return hit;
}

/* a card per metric, marked where the gate or a failed check names it */
static void metric_cards(rag_buf *b, jv s, jv metrics, jv checks)
{
	rag_buf_adds(b, "<div class=\"cards\">\n");
	jv_array_foreach(metrics, i, m) {
		double rt = rag_json_num(m, "threshold_record"), mt = rag_json_num(m, "threshold_mean");
		char *from;
		rag_buf_addf(b, "<div class=\"card%s\"><div class=\"name\">", rag_json_true(m, "gate_failed") || check_failed(checks, m) ? " failed" : "");
		esc_field(b, m, "metric");
		rag_buf_adds(b, "</div><div class=\"big\">");
		num3(b, rag_json_num(m, "mean"));
		rag_buf_adds(b, "</div><div class=\"small\">median ");
		num3(b, rag_json_num(m, "median"));
		rag_buf_adds(b, " &#183; p10 ");
		num3(b, rag_json_num(m, "p10"));
		rag_buf_adds(b, " &#183; min ");
		num3(b, rag_json_num(m, "min"));
		rag_buf_addf(b, "<br>computed on %.0f of %.0f records", rag_json_num(m, "scored"), rag_json_num(s, "records"));
		if (rag_json_num(m, "not_applicable") > 0) rag_buf_addf(b, ", %.0f not applicable", rag_json_num(m, "not_applicable"));
		rag_buf_addf(b, ", %.0f null", rag_json_num(m, "null"));
		if (!isnan(mt)) rag_buf_addf(b, "<br>threshold of the mean %.3f", mt);
		if (!isnan(rt)) rag_buf_addf(b, "<br>per-record threshold %.3f", rt);
		if (!isnan(rag_json_num(m, "pass_rate")))
			rag_buf_addf(b, "<br>%.0f passed, %.0f failed (%.1f%% of %.0f)", rag_json_num(m, "passed"), rag_json_num(m, "failed"),
			             rag_json_num(m, "pass_rate") * 100, rag_json_num(m, "passed") + rag_json_num(m, "failed"));
		if (rag_json_num(m, "flips") > 0) rag_buf_addf(b, "<br>%.0f flipped across repeats", rag_json_num(m, "flips"));
		if ((from = rag_gate_from_text(m))) {
			rag_buf_adds(b, "<br>relevance from ");
			esc(b, from);
			free(from);
		}
		rag_buf_adds(b, "</div></div>\n");
		jv_free(m);
		(void)i;
	}
	rag_buf_adds(b, "</div>\n");
}

/* one check a line; want: 1 the failed ones, 0 the rest */
static int check_lines(rag_buf *b, jv checks, int want)
{
	int n = 0;
	jv_array_foreach(checks, i, c) {
		int ok = rag_json_true(c, "pass"), skip = rag_json_true(c, "skipped");
		if ((!ok && !skip) == want) {
			rag_buf_addf(b, "<li class=\"%s\">%s: ", skip ? "skip" : ok ? "good" : "bad", skip ? "skipped" : ok ? "ok" : "FAIL");
			esc_field(b, c, "message");
			rag_buf_adds(b, "</li>\n");
			n++;
		}
		jv_free(c);
		(void)i;
	}
	return n;
}

/* The checks, the failed ones first; those that passed folded under a line that counts them,
 * so the first screen says what failed */
static void checks_list(rag_buf *b, jv checks)
{
	rag_buf b2 = {0};
	int ok;
	rag_buf_adds(b, "<h3 data-i18n=\"checks\">Checks</h3>\n<ul class=\"checks\" id=\"checks\">\n");
	check_lines(b, checks, 1);
	if (!jv_array_length(jv_copy(checks))) rag_buf_adds(b, "<li data-i18n=\"no-thresholds\">no thresholds</li>\n");
	rag_buf_adds(b, "</ul>\n");
	ok = check_lines(&b2, checks, 0);
	if (ok) {
		rag_buf_addf(b, "<details class=\"checks-ok\"><summary><span data-i18n=\"checks-ok\">checks passed or skipped</span>: %d</summary>\n"
		                "<ul class=\"checks\">\n", ok);
		rag_buf_add(b, b2.p, b2.len);
		rag_buf_adds(b, "</ul></details>\n");
	}
	rag_buf_free(&b2);
}

/* the reasons of the failing records the Summary lists (summary_section's), as {code, args}:
 * one array a row, for the page to say them in its reader's language */
static jv failed_why(jv s)
{
	jv worst = arr(s, "worst"), out = jv_array();
	jv_array_foreach(worst, i, w) {
		if (rag_json_true(w, "failed")) out = jv_array_append(out, arr(w, "reason_codes"));
		jv_free(w);
		(void)i;
	}
	jv_free(worst);
	return out;
}

static void summary_section(rag_buf *b, jv s, jv metrics, int gated)
{
	jv checks = arr(s, "checks"), hints = arr(s, "hints");
	jv groups = arr(s, "groups"), worst = arr(s, "worst");
	double failing = rag_json_num(s, "records") - rag_json_num(s, "passed");
	int shown = 0;

	/* what failed, then why (the script groups the failing records by cause), then the rest */
	rag_buf_adds(b, "<section id=\"summary\" class=\"tab active\">\n<h2 data-i18n=\"summary\">Summary</h2>\n");
	html_warnings(b, s);
	by_category_lines(b, s, 0);
	checks_list(b, checks);
	rag_buf_adds(b, "<section id=\"causes\"></section>\n");
	if (jv_array_length(jv_copy(hints))) {
		rag_buf_adds(b, "<section id=\"hints\">\n<h3 data-i18n=\"hints\">Where to look</h3>\n<ul class=\"hints\">\n");
		jv_array_foreach(hints, i, h) {
			rag_buf_adds(b, "<li>");
			esc_field(b, h, "hint");
			rag_buf_adds(b, "</li>\n");
			jv_free(h);
			(void)i;
		}
		rag_buf_adds(b, "</ul>\n</section>\n");
	}

	metric_cards(b, s, metrics, checks);
	/* only the records the gate failed: a passing record is never listed as a failure */
	rag_buf_adds(b, "<section id=\"failed\">\n<h3 data-i18n=\"lowest\">Failing records</h3>\n");
	jv_array_foreach(worst, i, w) {
		if (rag_json_true(w, "failed")) {
			jv rs = arr(w, "reasons");
			/* folded: each row holds a record's whole question and answer (10 long answers were
			 * 100,000 px on a phone); the summary line says how many, a tap opens them */
			if (!shown++)
				rag_buf_adds(b, "<details id=\"failed-list\"><summary><span data-i18n=\"show-failed\">show them</span>"
				                "</summary>\n<table><thead><tr><th data-i18n=\"c-id\">id</th><th data-i18n=\"c-category\">category</th>"
				                "<th data-i18n=\"c-question\">question</th><th data-i18n=\"c-answer\">answer</th>"
				                "<th data-i18n=\"c-why\">why it failed</th></tr></thead><tbody>\n");
			rag_buf_adds(b, "<tr class=\"failed\"><td>");
			esc_field(b, w, "id");
			rag_buf_adds(b, "<br><span class=\"small\">");
			esc_field(b, w, "at");
			rag_buf_adds(b, "</span></td><td>");
			esc_field(b, w, "category");
			rag_buf_adds(b, "</td><td class=\"text\">");
			esc_field(b, w, "question");
			rag_buf_adds(b, "</td><td class=\"text\">");
			esc_field(b, w, "answer");
			rag_buf_adds(b, "</td><td class=\"text\"><ul>");
			jv_array_foreach(rs, j, r) {
				rag_buf_adds(b, "<li>");
				if (jv_get_kind(r) == JV_KIND_STRING) esc(b, jv_string_value(r));
				rag_buf_adds(b, "</li>");
				jv_free(r);
				(void)j;
			}
			rag_buf_adds(b, "</ul></td></tr>\n");
			jv_free(rs);
		}
		jv_free(w);
		(void)i;
	}
	if (shown) rag_buf_adds(b, "</tbody></table>\n</details>\n");
	if (!gated) rag_buf_adds(b, "<p>No threshold was given: no record is judged.</p>\n");
	else if (!shown && failing <= 0) rag_buf_adds(b, "<p>None: every record passed.</p>\n");
	if (gated && failing > shown)
		rag_buf_addf(b, "<p>%d of %.0f failing records shown (the lowest); the Records tab has them all.</p>\n", shown, failing);
	rag_buf_adds(b, "</section>\n<section id=\"distribution\">\n<h3 data-i18n=\"distribution\">Distribution</h3>\n");
	jv_array_foreach(metrics, i, m) {
		jv name = rag_json_get(jv_copy(m), "metric"), h = arr(m, "histogram");
		const char *nm = jv_get_kind(name) == JV_KIND_STRING ? jv_string_value(name) : "";
		double rt = rag_json_num(m, "threshold_record"), mt = rag_json_num(m, "threshold_mean");
		rag_buf_adds(b, "<figure data-metric=\"");
		esc(b, nm);
		rag_buf_adds(b, "\">");
		svg_histogram(b, h, nm, 320, 140, rt, mt, rag_json_num(m, "mean"), rag_json_num(m, "min"));
		rag_buf_adds(b, "<figcaption>");
		histogram_caption(b, nm, rt, mt);
		rag_buf_adds(b, "</figcaption></figure>\n");
		jv_free(name);
		jv_free(h);
		jv_free(m);
		(void)i;
	}
	rag_buf_adds(b, "</section>\n");

	if (jv_array_length(jv_copy(groups))) {
		/* the categories, or the groups of each --by field */
		rag_buf_adds(b, "<section id=\"categories\">\n");
		jv_array_foreach(groups, k, by) {
			jv rows = arr(by, "groups");
			rag_buf_adds(b, "<h2><span data-i18n=\"by\">By</span> ");
			esc_field(b, by, "by");
			rag_buf_adds(b, "</h2>\n");
			/* each group's counts in view, its table of metrics folded (a phone scrolled 5,000 px
			 * through them to reach the end of the Summary) */
			jv_array_foreach(rows, i, c) {
				rag_buf_adds(b, "<details class=\"group\"><summary><h3>");
				esc_field(b, c, "group");
				rag_buf_adds(b, "</h3> <span class=\"counts\">");
				rag_report_counts(b, c, gated);
				rag_buf_adds(b, "</span></summary>\n");
				metric_table(b, arr(c, "metrics"), metrics, 1);
				rag_buf_adds(b, "</details>\n");
				jv_free(c);
				(void)i;
			}
			jv_free(rows);
			jv_free(by);
			(void)k;
		}
		rag_buf_adds(b, "</section>\n");
	}
	cost_table(b, s, 0);

	rag_buf_adds(b, "</section>\n");
	jv_free(checks);
	jv_free(hints);
	jv_free(groups);
	jv_free(worst);
}

/* the baseline's per-metric table (Compare), readable without the script */
static void compare_section(rag_buf *b, jv base)
{
	jv bm = arr(base, "metrics");
	rag_buf_adds(b, "<section id=\"compare\" class=\"tab\">\n<h2 data-i18n=\"compare\">Compare</h2>\n");
	if (!jv_is_valid(base)) {
		rag_buf_adds(b, "<p id=\"no-baseline\">No baseline: give one with <code>-b BASELINE.jsonl</code>.</p>\n</section>\n");
		jv_free(bm);
		return;
	}
	rag_buf_adds(b, "<p id=\"compare-head\">Against ");
	esc_field(b, base, "file");
	rag_buf_adds(b, ": ");
	rag_report_changes(b, base);
	rag_buf_addf(b, "; %.0f only in this run, %.0f only in the baseline.</p>\n", rag_json_num(base, "only_current_count"),
	             rag_json_num(base, "only_baseline_count"));
	/* the headers and the change words carry their keys (data-i18n): the script says them in
	 * the page's language; the interval's header is the script's to write with its level */
	rag_buf_addf(b, "<table id=\"compare-metrics\"><thead><tr><th data-i18n=\"c-metric\">metric</th><th data-i18n=\"c-pairs\">pairs</th>"
	             "<th data-i18n=\"c-baseline\">baseline</th><th data-i18n=\"c-now\">now</th><th data-i18n=\"c-delta\">delta</th>"
	             "<th id=\"c-interval\">%g%% bootstrap interval</th><th data-i18n=\"c-change\">change</th></tr></thead><tbody>\n",
	             rag_json_num(base, "confidence") * 100);
	jv_array_foreach(bm, i, m) {
		rag_buf_adds(b, "<tr><td>");
		esc_field(b, m, "metric");
		rag_buf_addf(b, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
		             "<td class=\"n\">%+.3f</td><td class=\"n\">[%+.3f, %+.3f]</td><td data-i18n=\"ch-",
		             rag_json_num(m, "pairs"), rag_json_num(m, "baseline_mean"), rag_json_num(m, "mean"), rag_json_num(m, "delta"),
		             rag_json_num(m, "ci_low"), rag_json_num(m, "ci_high"));
		esc_field(b, m, "change");
		rag_buf_adds(b, "\">");
		esc_field(b, m, "change");
		rag_buf_adds(b, "</td></tr>\n");
		jv_free(m);
		(void)i;
	}
	rag_buf_adds(b, "</tbody></table>\n<div id=\"compare-records\"></div>\n</section>\n");
	jv_free(bm);
}

/* the run's exit status and its reason (its verdict's, rag_verdict), under the verdict */
static void exit_html(rag_buf *b, jv s)
{
	jv v = rag_json_get(jv_copy(s), "verdict");
	if (jv_get_kind(v) == JV_KIND_OBJECT) {
		char r[1200];
		double st = rag_json_num(v, "exit_status");
		rag_buf_addf(b, "<p id=\"exit-status\" data-exit=\"%.0f\" class=\"%s\">Exit status %.0f: ", st,
		             st > 0 ? "fail" : "pass", st);
		esc(b, rag_json_str(v, "reason", r, sizeof r));
		rag_buf_adds(b, ".</p>\n");
	}
	jv_free(v);
}

/* the page's script: share/serve/gate-zh.js (the gate's checks in Chinese, the copy rag-serve's
 * page also loads) and then share/report/report.js, one text, malloc'ed; NULL with err */
static char *page_script(size_t *len, char *err, size_t errlen)
{
	char path[4096], *words, *js, *out;
	size_t wlen, jlen;
	snprintf(path, sizeof path, "%s/serve/gate-zh.js", rag_datadir());
	if (!(words = rag_read_file(path, &wlen, err, errlen))) return NULL;
	snprintf(path, sizeof path, "%s/report/report.js", rag_datadir());
	if (!(js = rag_read_file(path, &jlen, err, errlen))) {
		free(words);
		return NULL;
	}
	out = rag_xasprintf("%.*s%.*s", (int)wlen, words, (int)jlen, js);
	*len = wlen + jlen;
	free(words);
	free(js);
	return out;
}

char *rag_report_html_frame(jv report, const char *title, size_t *records_at, size_t *base_at, char *err, size_t errlen)
{
	rag_buf b = {0};
	jv runs = rag_json_get(jv_copy(report), "runs");
	int n = jv_array_length(jv_copy(runs)), gated = rag_json_true(report, "gated");
	jv last = jv_array_get(jv_copy(runs), n - 1), s = rag_json_get(jv_copy(last), "summary");
	jv metrics = arr(s, "metrics"), base = rag_json_get(jv_copy(s), "baseline");
	jv ds;
	const char *verdict = rag_report_verdict(s);
	char *js;
	size_t jslen;

	if (!(js = page_script(&jslen, err, errlen))) {
		jv_free(runs);
		jv_free(last);
		jv_free(s);
		jv_free(metrics);
		jv_free(base);
		jv_free(report);
		return NULL;
	}

	rag_buf_adds(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	esc(&b, title);
	rag_buf_addf(&b, "</title>\n<meta name=\"generator\" content=\"rag-report (ragpipe) %s\">\n<style>\n%s</style>\n</head>\n<body>\n",
	             RAG_VERSION, css);
	/* the script's language switch (English, 中文), kept in localStorage */
	rag_buf_adds(&b, "<header>\n<button type=\"button\" id=\"lang-switch\">中文</button>\n<h1>");
	esc(&b, title);
	rag_buf_addf(&b, "</h1>\n<p id=\"verdict\"><span class=\"verdict %s\">%s</span> ", verdict_class(verdict), verdict);
	esc_field(&b, last, "name");
	rag_buf_adds(&b, ": ");
	rag_report_counts(&b, s, gated);
	rag_buf_adds(&b, ".</p>\n");
	exit_html(&b, s);
	rag_buf_adds(&b, "</header>\n");
	rag_buf_adds(&b, "<nav class=\"tabs\" role=\"tablist\"><button type=\"button\" role=\"tab\" data-tab=\"summary\" data-i18n=\"summary\">Summary</button>"
	                 "<button type=\"button\" role=\"tab\" data-tab=\"records\" data-i18n=\"records\">Records</button>"
	                 "<button type=\"button\" role=\"tab\" data-tab=\"compare\" data-i18n=\"compare\">Compare</button>"
	                 "<button type=\"button\" role=\"tab\" data-tab=\"history\" data-i18n=\"history\">History</button></nav>\n");

	summary_section(&b, s, metrics, gated);
	rag_buf_adds(&b, "<section id=\"records\" class=\"tab\">\n<h2 data-i18n=\"records\">Records</h2>\n"
	                 "<p class=\"needs-js\">The records, the comparison and the history need JavaScript.</p>\n"
	                 "<div id=\"records-app\"></div>\n</section>\n");
	compare_section(&b, base);
	rag_buf_adds(&b, "<section id=\"history\" class=\"tab\">\n<h2 data-i18n=\"history\">History</h2>\n"
	                 "<p class=\"needs-js\">The history needs JavaScript.</p>\n<div id=\"history-app\"></div>\n</section>\n");

	/* the data the script shows: the summary (less its few worst records, which the records
	 * themselves hold), the records, the baseline's answers, the history */
	ds = jv_object_delete(jv_copy(s), jv_string("worst"));
	ds = jv_object_set(ds, jv_string("failed_why"), failed_why(s));
	/* written key by key, as jv_dump_string writes the object {title, run, gated, causes,
	 * summary, records, base?, history}, with the places of the records and the baseline's left
	 * empty; causes: the failing records by cause (causes.c's, the one grouping rag-serve's
	 * opened run shows too), drawn by the script, [] when none was given */
	rag_buf_adds(&b, "<script type=\"application/json\" id=\"rag-data\">{\"title\":");
	json_block(&b, jv_string(title));
	rag_buf_adds(&b, ",\"run\":");
	json_block(&b, str_or_null(rag_json_get(jv_copy(last), "name")));
	rag_buf_addf(&b, ",\"gated\":%s,\"causes\":", gated ? "true" : "false");
	{
		jv cs = rag_json_get(jv_copy(report), "causes");
		json_block(&b, jv_get_kind(cs) == JV_KIND_ARRAY ? cs : (jv_free(cs), jv_array()));
	}
	rag_buf_adds(&b, ",\"summary\":");
	json_block(&b, ds);
	rag_buf_adds(&b, ",\"records\":[");
	*records_at = *base_at = b.len;
	rag_buf_adds(&b, "]");
	{
		jv bl = rag_json_get(jv_copy(report), "baseline");
		if (jv_get_kind(bl) == JV_KIND_OBJECT) {
			rag_buf_adds(&b, ",\"base\":{\"name\":");
			json_block(&b, str_or_null(rag_json_get(jv_copy(bl), "name")));
			rag_buf_adds(&b, ",\"records\":{");
			*base_at = b.len;
			rag_buf_adds(&b, "}}");
		}
		jv_free(bl);
	}
	rag_buf_adds(&b, ",\"history\":");
	json_block(&b, merge_history(rag_json_get(jv_copy(report), "history"), jv_copy(runs)));
	rag_buf_adds(&b, "}");
	rag_buf_adds(&b, "</script>\n<script>\n");
	rag_buf_add(&b, js, jslen);
	rag_buf_addf(&b, "</script>\n<footer><p class=\"small\">rag-report (ragpipe) %s</p></footer>\n</body>\n</html>\n", RAG_VERSION);

	free(js);
	jv_free(metrics);
	jv_free(base);
	jv_free(s);
	jv_free(last);
	jv_free(runs);
	jv_free(report);
	return b.p;
}

void rag_report_json_block(rag_buf *b, jv v)
{
	json_block(b, v);
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
	if (jv_get_kind(v) == JV_KIND_STRING) {
		md(b, jv_string_value(v), max);
	} else if (jv_get_kind(v) == JV_KIND_NUMBER) {
		char *t = rag_json_id(v);
		rag_buf_adds(b, t);
		free(t);
	}
	jv_free(v);
}

static void md_num(rag_buf *b, double x)
{
	if (isnan(x)) rag_buf_adds(b, "-");
	else rag_buf_addf(b, "%.3f", x);
}

static void md_metrics(rag_buf *b, jv metrics)
{
	int any = 0;
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
	/* rag-ap's metrics: which relevance each read (the user's ids or the judge's verdicts) */
	jv_array_foreach(metrics, j, m) {
		char *from = rag_gate_from_text(m);
		if (from) {
			rag_buf_adds(b, any ? "- " : "\n- ");
			md_field(b, m, "metric", 100);
			rag_buf_addf(b, ": relevance from %s\n", from);
			free(from);
			any = 1;
		}
		jv_free(m);
		(void)j;
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
		rag_buf_adds(b, "<section id=\"cost\">\n<h2 data-i18n=\"cost\">Cost</h2>\n<table><thead><tr>"
		                "<th data-i18n=\"cost-tool\">tool</th><th data-i18n=\"cost-stage\">stage</th>"
		                "<th data-i18n=\"cost-judge\">judge</th><th data-i18n=\"cost-calls\">calls</th>"
		                "<th data-i18n=\"cost-prompt\">prompt tokens</th><th data-i18n=\"cost-completion\">completion tokens</th>"
		                "<th><span data-i18n=\"cost-cost\">cost</span> (");
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
		if (isnan(c)) rag_buf_adds(b, markdown ? "no price" : "<span data-i18n=\"cost-no-price\">no price</span>");
		else rag_buf_addf(b, "%.6f", c);
		rag_buf_adds(b, markdown ? " |\n" : "</td></tr>\n");
		jv_free(e);
		(void)i;
	}
	if (markdown) rag_buf_addf(b, "| total | | | %.0f | %.0f | %.0f | ", rag_json_num(cost, "calls"),
	                           rag_json_num(cost, "prompt_tokens"), rag_json_num(cost, "completion_tokens"));
	else rag_buf_addf(b, "<tr><td data-i18n=\"cost-total\">total</td><td></td><td></td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td>"
	                  "<td class=\"n\">%.0f</td><td class=\"n\">", rag_json_num(cost, "calls"),
	                  rag_json_num(cost, "prompt_tokens"), rag_json_num(cost, "completion_tokens"));
	if (isnan(total)) rag_buf_adds(b, markdown ? "unknown" : "<span data-i18n=\"cost-unknown\">unknown</span>");
	else rag_buf_addf(b, "%.6f", total);
	rag_buf_adds(b, markdown ? " |\n" : "</td></tr>\n</tbody></table>\n");
	if (rag_json_num(cost, "cached_tokens") > 0)
		rag_buf_addf(b, markdown ? "\nPrompt tokens %.0f, %.0f of them cached by the provider (priced at cached_input).\n"
		                         : "<p id=\"cost-cached\">Prompt tokens %.0f, %.0f of them cached by the provider (priced at cached_input).</p>\n",
		             rag_json_num(cost, "prompt_tokens"), rag_json_num(cost, "cached_tokens"));
	{
		/* rag-eval --batch: the rows are at the list price, the total at the batch price */
		jv bt = rag_json_get(jv_copy(cost), "batch");
		if (jv_get_kind(bt) == JV_KIND_OBJECT)
			rag_buf_addf(b, markdown ? "\n%.0f requests answered by the batch route: %.6f at its price, %.6f at the list "
			                         "price of the rows above; the total is at the batch price.\n"
			                         : "<p id=\"cost-batch\">%.0f requests answered by the batch route: %.6f at its price, %.6f at the "
			                         "list price of the rows above; the total is at the batch price.</p>\n",
			             rag_json_num(bt, "requests"), rag_json_num(bt, "cost"), rag_json_num(bt, "cost_at_list_price"));
		jv_free(bt);
	}
	jv_array_foreach(msgs, i, m) {
		if (jv_get_kind(m) == JV_KIND_STRING) {
			if (markdown) rag_buf_adds(b, i ? "; " : "\n");
			else rag_buf_addf(b, "<p class=\"cost-msg\" id=\"cost-msg-%d\">", i);
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

/* the summary's warnings (self-judging), each a quoted line */
static void md_warnings(rag_buf *b, jv s)
{
	jv w = arr(s, "warnings");
	jv_array_foreach(w, i, t) {
		if (jv_get_kind(t) == JV_KIND_STRING) {
			rag_buf_adds(b, "> **Warning:** ");
			md(b, jv_string_value(t), 600);
			rag_buf_adds(b, "\n\n");
		}
		jv_free(t);
		(void)i;
	}
	jv_free(w);
}

char *rag_report_markdown(jv runs, const char *title)
{
	rag_buf b = {0};
	int n = jv_array_length(jv_copy(runs));
	jv last = jv_array_get(jv_copy(runs), n - 1), s = rag_json_get(jv_copy(last), "summary");
	jv checks = arr(s, "checks"), groups = arr(s, "groups"), worst = arr(s, "worst");
	jv base = rag_json_get(jv_copy(s), "baseline"), metrics = arr(s, "metrics");
	jv hints = arr(s, "hints");
	const char *verdict = rag_report_verdict(s);

	rag_buf_adds(&b, "## ");
	md(&b, title, 200);
	rag_buf_addf(&b, ": %s\n\n", !strcmp(verdict, "PASS") ? "✅ PASS" : !strcmp(verdict, "FAIL") ? "❌ FAIL" : "SUMMARY");
	rag_report_counts(&b, s, 1);
	rag_buf_adds(&b, ".\n\n");
	{
		jv v = rag_json_get(jv_copy(s), "verdict");
		if (jv_get_kind(v) == JV_KIND_OBJECT) {
			char r[1200];
			rag_buf_addf(&b, "**Exit status %.0f**: ", rag_json_num(v, "exit_status"));
			md(&b, rag_json_str(v, "reason", r, sizeof r), 1200);
			rag_buf_adds(&b, ".\n\n");
		}
		jv_free(v);
	}
	md_warnings(&b, s);
	by_category_lines(&b, s, 1);
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
		jv rows = arr(by, "groups");
		rag_buf_adds(&b, "\n<details><summary>By ");
		md_field(&b, by, "by", 100);
		rag_buf_adds(&b, "</summary>\n\n");
		jv_array_foreach(rows, i, c) {
			rag_buf_adds(&b, "#### ");
			md_field(&b, c, "group", 100);
			rag_buf_adds(&b, " (");
			rag_report_counts(&b, c, 1);
			rag_buf_adds(&b, ")\n\n");
			md_metrics(&b, arr(c, "metrics"));
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
		jv rs = arr(w, "reasons");
		if (i == 0) rag_buf_adds(&b, "\n### Worst records\n\n| id | result | question | reasons |\n|---|---|---|---|\n");
		rag_buf_adds(&b, "| ");
		md_field(&b, w, "id", 120);
		/* the gate's verdict on it: a low record that passed is not a failure */
		rag_buf_addf(&b, " | %s | ", !strcmp(verdict, "SUMMARY") ? "-" : rag_json_true(w, "failed") ? "**FAIL**" : "pass");
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
		jv bm = arr(base, "metrics"), reg = arr(base, "regressed");
		rag_buf_adds(&b, "\n### Against the baseline\n\n");
		rag_report_changes(&b, base);
		rag_buf_addf(&b, "; %.0f only in this run, %.0f only in the baseline.\n\n", rag_json_num(base, "only_current_count"),
		             rag_json_num(base, "only_baseline_count"));
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

/* ---------------------------------------------------------------- the records, compressed */

/* base64 of n bytes (n a multiple of 3, or the end) to out */
static int b64(const unsigned char *p, size_t n, FILE *out)
{
	rag_buf b = {0};
	int rc;
	rag_buf_base64(&b, p, n);
	rc = b.len && fwrite(b.p, 1, b.len, out) != b.len ? -1 : 0;
	rag_buf_free(&b);
	return rc;
}

int rag_report_gz64(FILE *in, FILE *out, char *err, size_t errlen)
{
	unsigned char src[65536], dst[65536 + 2];
	size_t carry = 0;   /* compressed bytes left over from the last base64 round (0-2) */
	z_stream z;
	int flush, zr = Z_OK, rc = 0;
	memset(&z, 0, sizeof z);
	/* windowBits 15 + 16: a gzip stream, as DecompressionStream("gzip") reads */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		rag_seterr(err, errlen, "cannot compress the records: %s", z.msg ? z.msg : "zlib failed");
		return -1;
	}
	do {
		size_t n = fread(src, 1, sizeof src, in);
		if (ferror(in)) {
			rag_seterr(err, errlen, "cannot read the spooled records: %s", strerror(errno));
			rc = -1;
			break;
		}
		flush = feof(in) ? Z_FINISH : Z_NO_FLUSH;
		z.next_in = src;
		z.avail_in = (uInt)n;
		do {
			size_t have, whole;
			z.next_out = dst + carry;
			z.avail_out = (uInt)(sizeof dst - 2 - carry);
			if ((zr = deflate(&z, flush)) == Z_STREAM_ERROR) {
				rag_seterr(err, errlen, "cannot compress the records: zlib failed");
				rc = -1;
				break;
			}
			have = sizeof dst - 2 - z.avail_out;
			whole = flush == Z_FINISH && zr == Z_STREAM_END ? have : have - have % 3;
			if (b64(dst, whole, out) < 0) {
				rag_seterr(err, errlen, "cannot write the page: %s", strerror(errno));
				rc = -1;
				break;
			}
			carry = have - whole;
			memmove(dst, dst + whole, carry);
		} while (z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
	} while (!rc && flush != Z_FINISH);
	deflateEnd(&z);
	return rc;
}
