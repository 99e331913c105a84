/* t-report.c - the report's library side: the gate's verdict on a record (rag_gate_add_verdict),
 * the record as the page shows it, the history reader, and the page's JSON block, which no text
 * of a record can end. */
#include "base.h"
#include "config.h"
#include "gate.h"
#include "report.h"
#include "tap.h"

#include <stdlib.h>

static rag_gate_opts opts(rag_kd *rec, size_t nrec, rag_kd *mean, size_t nmean)
{
	rag_gate_opts o;
	memset(&o, 0, sizeof o);
	o.min_pass_rate = 1;
	o.regression = 0.1;
	o.confidence = 0.95;
	o.resamples = 200;
	o.worst = 10;
	o.seed = 1;
	o.record = rec;
	o.nrecord = nrec;
	o.mean = mean;
	o.nmean = nmean;
	return o;
}

/* the verdict's field as compact JSON, malloc'ed */
static char *field(jv v, const char *k)
{
	jv d = jv_dump_string(jv_object_get(jv_copy(v), jv_string(k)), 0);
	char *s = rag_xstrdup(jv_string_value(d));
	jv_free(d);
	return s;
}

static jv verdict(rag_gate *g, const char *json)
{
	jv r = jv_parse(json), v = rag_gate_add_verdict(g, r, "run.jsonl:7", 0);
	jv_free(r);
	return v;
}

int main(void)
{
	rag_kd rec[] = {{"faithfulness", 0.5}}, mean[] = {{"context_recall", 0.7}};
	rag_gate_opts o = opts(rec, 1, mean, 1);
	rag_gate *g = rag_gate_new(&o);
	jv v, r, s;
	char *t, err[256];

	/* the gate's decisions, record by record */
	v = verdict(g, "{\"id\":\"a\",\"scores\":{\"faithfulness\":0.5,\"context_recall\":0.1}}");
	ok(!rag_json_true(v, "failed") && !rag_json_true(v, "errored"), "a score equal to the record threshold passes; a mean threshold judges no record");
	is_str((t = field(v, "missed")), "[]", "and it missed nothing");
	free(t);
	jv_free(v);
	v = verdict(g, "{\"id\":\"b\",\"scores\":{\"faithfulness\":0.2,\"context_recall\":0.9}}");
	ok(rag_json_true(v, "failed") && !rag_json_true(v, "errored"), "below the record threshold: failed, not errored");
	is_str((t = field(v, "missed")), "[\"faithfulness 0.200 is below the per-record threshold 0.500\"]", "it says which threshold it missed");
	free(t);
	jv_free(v);
	v = verdict(g, "{\"id\":\"c\",\"scores\":{\"faithfulness\":null,\"context_recall\":0.9}}");
	ok(rag_json_true(v, "failed") && rag_json_true(v, "errored"), "a gated null: errored (out of the pass rate)");
	jv_free(v);
	v = verdict(g, "{\"id\":\"d\",\"scores\":{\"faithfulness\":0.9,\"context_recall\":null,\"other\":null}}");
	ok(rag_json_true(v, "failed") && rag_json_true(v, "errored"), "a null of a metric gated by its mean only: errored too");
	jv_free(v);
	v = verdict(g, "{\"id\":\"e\",\"scores\":{\"faithfulness\":0.9,\"context_recall\":0.9,\"other\":null}}");
	ok(rag_json_true(v, "errored"), "a null of an ungated metric with no reason: not scored, so errored (issue 21: never a pass)");
	jv_free(v);
	v = verdict(g, "{\"id\":\"f\",\"scores\":{\"faithfulness\":0.9,\"context_recall\":0.9,\"other\":null},"
	               "\"not_applicable\":{\"other\":\"no reference answer\"}}");
	ok(!rag_json_true(v, "failed") && !rag_json_true(v, "errored"), "a null that is not applicable, with its reason, fails nothing");
	is_str((t = field(v, "changes")), "[]", "no baseline: no changes");
	free(t);
	jv_free(v);
	s = rag_gate_summary(g);
	is_num(rag_json_num(s, "passed"), 2, 0, "the summary counts the same passes (a, f)");
	is_num(rag_json_num(s, "errored"), 3, 0, "and the same errored records (c, d, e)");
	jv_free(s);
	rag_gate_free(g);

	/* against a baseline: the gate's classes of each pair */
	g = rag_gate_new(&o);
	rag_gate_baseline(g, jv_parse("{\"id\":\"a\",\"scores\":{\"faithfulness\":0.9,\"context_recall\":0.5}}"));
	v = verdict(g, "{\"id\":\"a\",\"scores\":{\"faithfulness\":0.7,\"context_recall\":0.6}}");
	is_str((t = field(v, "changes")),
	       "[{\"metric\":\"context_recall\",\"baseline\":0.5,\"current\":0.6,\"delta\":0.1,\"change\":\"none\"},"
	       "{\"metric\":\"faithfulness\",\"baseline\":0.9,\"current\":0.7,\"delta\":-0.2,\"change\":\"regressed\"}]",
	       "a drop by more than --regression regressed; a gain of 0.1 exactly is none (\"by more than\"); by metric name, "
	       "the delta rounded to 1e-9 as rag-store diff's (compare.c)");
	free(t);
	jv_free(v);
	v = verdict(g, "{\"id\":\"new\",\"scores\":{\"faithfulness\":0.7}}");
	is_str((t = field(v, "changes")), "[]", "a record the baseline lacks: no changes");
	free(t);

	/* the record as the page shows it */
	r = jv_parse("{\"id\":7,\"category\":\"地理\",\"user_input\":\"长城有多长？\",\"response\":\"约两万公里\","
	             "\"ground_truth\":\"21196公里\",\"retrieved_contexts\":[\"c1\",\"c2\"],\"source\":\"docs/a.md:3\","
	             "\"scores\":{\"faithfulness\":0.2},\"verdicts\":{\"context_precision\":[{\"chunk\":\"c1\",\"verdict\":true},"
	             "{\"chunk\":\"other\",\"verdict\":false}]}}");
	jv_free(v);
	rag_gate_free(g);
	o = opts(rec, 1, NULL, 0);   /* the record threshold alone */
	g = rag_gate_new(&o);
	v = rag_report_record(r, rag_gate_add_verdict(g, r, "x.jsonl:3", 0), "x.jsonl:3");
	is_str((t = field(v, "id")), "\"7\"", "an id that is not a string, as JSON text");
	free(t);
	is_str((t = field(v, "q")), "\"长城有多长？\"", "the question by its alias");
	free(t);
	is_str((t = field(v, "ref")), "\"21196公里\"", "the reference by its alias");
	free(t);
	is_str((t = field(v, "ctx")), "[\"c1\",\"c2\"]", "the contexts by their alias");
	free(t);
	is_str((t = field(v, "v")), "{\"context_precision\":[{\"verdict\":true,\"chunk_is_context\":true},{\"chunk\":\"other\",\"verdict\":false}]}",
	       "a chunk verdict's text dropped where it is its context's, kept where not");
	free(t);
	is_str((t = field(v, "st")), "\"fail\"", "the gate's result");
	free(t);
	is_str((t = field(v, "why")), "[\"faithfulness 0.200 is below the per-record threshold 0.500\"]", "and why");
	free(t);
	is_str((t = field(v, "at")), "\"x.jsonl:3\"", "where it was read");
	free(t);
	is_str((t = field(v, "src")), "\"docs/a.md:3\"", "its source");
	free(t);
	jv_free(v);
	jv_free(r);
	rag_gate_free(g);

	/* the history */
	{
		const char h[] = "{\"run\":\"r1\",\"means\":{\"f\":0.5}}\n\n  \n{\"run\":\"r2\",\"means\":{}}\n";
		v = rag_report_history_read(h, sizeof h - 1, "h.jsonl", err, sizeof err);
		is_int(jv_array_length(jv_copy(v)), 2, "history: two runs, blank lines skipped");
		jv_free(v);
		v = rag_report_history_read("{\"run\":\"r1\",\"means\":{}}\n{\"run\":\"r2\"}\n", 42, "h.jsonl", err, sizeof err);
		ok(!jv_is_valid(v), "history: an entry without means is refused");
		is_str(err, "h.jsonl:2: a run summary is an object with \"means\": {metric: mean, ...}", "naming the file and line");
		jv_free(v);
		v = rag_report_history_read("[1]\n", 4, "h.jsonl", err, sizeof err);
		ok(!jv_is_valid(v), "history: an array is not a run summary");
		jv_free(v);
	}

	/* the page, as rag-report makes it (its frame, the records written in at their place):
	 * hostile text cannot end the JSON block */
	setenv("RAG_DATADIR", RAG_TEST_TOP "/share", 1);
	{
		jv hostile = jv_parse("{\"id\":\"x\",\"answer\":\"</script><script>alert(1)</script> <!-- \\u2028\\u2029 &amp;\",\"scores\":{\"f\":1}}");
		rag_gate *g2 = rag_gate_new(&o);
		jv rec1 = rag_report_record(hostile, rag_gate_add_verdict(g2, hostile, "r:1", 0), "r:1");
		jv rep = JV_OBJECT(jv_string("runs"), JV_ARRAY(JV_OBJECT(jv_string("name"), jv_string("r"), jv_string("summary"), rag_gate_summary(g2))),
		                   jv_string("gated"), jv_true());
		size_t at = 0, bat = 0;
		char *frame = rag_report_html_frame(rep, "t", &at, &bat, err, sizeof err), *page = NULL, *blk, *end;
		ok(frame != NULL, "the page is made (%s)", frame ? "ok" : err);
		if (frame) {
			rag_buf b = {0};
			rag_buf_add(&b, frame, at);
			rag_report_json_block(&b, rec1);
			rag_buf_adds(&b, frame + at);
			page = b.p;
			free(frame);
		} else {
			jv_free(rec1);
		}
		blk = page ? strstr(page, "<script type=\"application/json\" id=\"rag-data\">") : NULL;
		end = blk ? strstr(blk + 1, "</script>") : NULL;
		ok(blk && end, "one JSON block, ended");
		if (blk && end) {
			size_t n = (size_t)(end - blk) - strlen("<script type=\"application/json\" id=\"rag-data\">");
			char *body = rag_xstrndup(blk + strlen("<script type=\"application/json\" id=\"rag-data\">"), n);
			jv back = jv_parse(body), ans = jv_object_get(jv_array_get(jv_object_get(back, jv_string("records")), 0), jv_string("a"));
			ok(!strpbrk(body, "<>&") && !strstr(body, "\xe2\x80\xa8") && !strstr(body, "\xe2\x80\xa9"),
			   "no <, >, & or U+2028/9 as such in the block");
			is_str(jv_get_kind(ans) == JV_KIND_STRING ? jv_string_value(ans) : "",
			       "</script><script>alert(1)</script> <!-- \xe2\x80\xa8\xe2\x80\xa9 &amp;", "the text comes back whole from the JSON");
			jv_free(ans);
			free(body);
		}
		free(page);
		/* the frame: the places of the records and of the baseline's pairs, empty */
		{
			size_t ra = 0, ba = 0;
			jv fr = JV_OBJECT(jv_string("runs"), JV_ARRAY(JV_OBJECT(jv_string("name"), jv_string("r"), jv_string("summary"), rag_gate_summary(g2)))),
			   fb = jv_object_set(jv_copy(fr), jv_string("baseline"), JV_OBJECT(jv_string("name"), jv_string("b<1>.jsonl")));
			page = rag_report_html_frame(fr, "t", &ra, &ba, err, sizeof err);
			ok(page && ra == ba && ra > 10 && !strncmp(page + ra - 11, "\"records\":[]", 12),
			   "frame without a baseline: the records' place inside \"records\":[], the baseline's the same");
			free(page);
			page = rag_report_html_frame(fb, "t", &ra, &ba, err, sizeof err);
			ok(page && ba > ra && !strncmp(page + ra - 11, "\"records\":[]", 12) &&
			   !strncmp(page + ra + 1, ",\"base\":{\"name\":\"b\\u003c1\\u003e.jsonl\",\"records\":{}}", 52) && page[ba - 1] == '{' && page[ba] == '}',
			   "frame with a baseline: its pairs' place inside base.records, its name escaped");
			free(page);
		}
		setenv("RAG_DATADIR", "/nonexistent", 1);
		{
			size_t ra = 0, ba = 0;
			page = rag_report_html_frame(JV_OBJECT(jv_string("runs"), JV_ARRAY(JV_OBJECT(jv_string("name"), jv_string("r"), jv_string("summary"), jv_object()))),
			                             "t", &ra, &ba, err, sizeof err);
		}
		ok(!page && strstr(err, "/nonexistent/serve/gate-zh.js"),
		   "without its scripts (gate-zh.js, read first, then report.js): NULL and why (%s)", err);
		free(page);
		jv_free(hostile);
		rag_gate_free(g2);
	}
	return done_testing();
}
