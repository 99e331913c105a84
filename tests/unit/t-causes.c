/* t-causes.c - causes.c, the failing records by cause of rag-report's page and rag-serve's
 * opened run, one cause a record, its root: a judge's or the service's failure an outage of its
 * own (first, with the endpoint's error), a downstream error no cause, an input error, two
 * metrics below their thresholds (retrieval's the cause), a retrieval miss, a metric with no
 * score, the why of a record with none of these, the order (outages, then the most records,
 * then the farthest below), the ten records listed under a cause. */
#include "base.h"
#include "config.h"
#include "gate.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>

static void add(rag_causes *cs, const char *rec, const char *verdict, long seq)
{
	jv r = jv_parse(rec), v = jv_parse(verdict);
	rag_causes_add(cs, r, v, seq);
	jv_free(r);
	jv_free(v);
}

/* a failed record's verdict with one check of metric m */
static char *below(const char *m, double x, double t)
{
	return rag_xasprintf("{\"failed\":true,\"errored\":false,\"missed\":[\"%s below\"],\"checks\":"
	                     "[{\"metric\":\"%s\",\"score\":%g,\"threshold\":%g,\"status\":\"failure\"}]}", m, m, x, t);
}

/* causes[i]'s field k as text ("" when absent), for is_str */
static const char *field(jv a, int i, const char *k, char *buf, size_t n)
{
	jv c = jv_array_get(jv_copy(a), i);
	rag_json_str(c, k, buf, n);
	jv_free(c);
	return buf;
}

static double num(jv a, int i, const char *k)
{
	jv c = jv_array_get(jv_copy(a), i);
	double x = rag_json_num(c, k);
	jv_free(c);
	return x;
}

/* causes[i].records[j]'s field k */
static const char *rec_field(jv a, int i, int j, const char *k, char *buf, size_t n)
{
	jv r = jv_array_get(rag_json_get(jv_array_get(jv_copy(a), i), "records"), j);
	rag_json_str(r, k, buf, n);
	jv_free(r);
	return buf;
}

static int nrecs(jv a, int i)
{
	jv r = rag_json_get(jv_array_get(jv_copy(a), i), "records");
	int n = jv_get_kind(r) == JV_KIND_ARRAY ? jv_array_length(jv_copy(r)) : -1;
	jv_free(r);
	return n;
}

static void hand_made(void)
{
	rag_causes *cs = rag_causes_new();
	char b[1200], *v, *rec, *want;
	jv a;
	int i;
	/* the service failed (no place in the record): an outage, the null it left out */
	add(cs, "{\"id\":\"r1\",\"errors\":[{\"tool\":\"rag-collect\",\"message\":\"timed out\"},{\"tool\":\"rag-claims\",\"message\":\"no answer\"}]}",
	    "{\"failed\":true,\"errored\":true,\"missed\":[\"faithfulness is missing\"],\"checks\":"
	    "[{\"metric\":\"faithfulness\",\"score\":null,\"threshold\":0.7,\"status\":\"error\"}]}", 1);
	/* the judge failed, said again by the next stage: once, an outage */
	add(cs, "{\"id\":\"r2\",\"answer\":\"x\",\"errors\":[{\"tool\":\"rag-claims\",\"metric\":\"faithfulness\",\"message\":\"judge 500\"},"
	    "{\"tool\":\"rag-verify\",\"message\":\"judge 500\"}]}",
	    "{\"failed\":true,\"errored\":true,\"missed\":[],\"checks\":[]}", 2);
	/* two metrics below their thresholds: retrieval's is the cause */
	add(cs, "{\"id\":\"r3\",\"answer\":\"x\"}",
	    "{\"failed\":true,\"errored\":false,\"missed\":[\"a\",\"b\"],\"checks\":"
	    "[{\"metric\":\"faithfulness\",\"score\":0.5,\"threshold\":0.7,\"status\":\"failure\"},"
	    "{\"metric\":\"context_recall\",\"score\":0.2,\"threshold\":0.6,\"status\":\"failure\"}]}", 3);
	add(cs, "{\"id\":\"r4\",\"answer\":\"x\"}", v = below("context_recall", 0.5, 0.6), 4);
	free(v);
	add(cs, "{\"id\":\"r5\",\"answer\":\"x\",\"errors\":[{\"tool\":\"rag-verify\",\"message\":\"judge 500\"}]}",
	    "{\"failed\":true,\"errored\":true,\"missed\":[],\"checks\":[]}", 5);
	/* a metric with a per-record threshold and no score; a check with no threshold is no cause */
	add(cs, "{\"id\":\"r6\",\"answer\":\"x\"}",
	    "{\"failed\":true,\"errored\":true,\"missed\":[\"answer_relevancy is null\"],\"checks\":"
	    "[{\"metric\":\"answer_relevancy\",\"score\":null,\"threshold\":0.5,\"status\":\"error\"},"
	    "{\"metric\":\"bleu\",\"score\":null,\"threshold\":null,\"status\":\"error\"}]}", 6);
	/* failed for none of these: the first thing it missed */
	add(cs, "{\"id\":\"r7\",\"answer\":\"x\"}",
	    "{\"failed\":true,\"errored\":false,\"missed\":[\"answer_relevancy: the tool's verdict is fail\"],\"checks\":"
	    "[{\"metric\":\"answer_relevancy\",\"score\":0.9,\"threshold\":0.5,\"status\":\"failure\"}]}", 7);
	/* a long message, cut at 79 characters (here of two bytes each) */
	rec = rag_xasprintf("{\"id\":\"r8\",\"answer\":\"x\",\"errors\":[{\"tool\":\"rag-claims\",\"at\":\"answer\",\"message\":\"%s\"}]}",
	                    "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                    "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                    "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                    "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                    "abc");
	add(cs, rec, "{\"failed\":true,\"errored\":true,\"missed\":[],\"checks\":[]}", 8);
	free(rec);
	/* relevant documents named and none retrieved: a retrieval miss, before the answer's metric */
	add(cs, "{\"id\":\"r9\",\"answer\":\"x\",\"relevant_ids\":[\"d1\"],\"scores\":{\"mrr@5\":0,\"faithfulness\":0.5}}",
	    v = below("faithfulness", 0.5, 0.7), 9);
	free(v);
	/* an input error and the downstream error it caused: the first alone */
	add(cs, "{\"id\":\"r10\",\"answer\":\"x\",\"errors\":[{\"tool\":\"rag-claims\",\"at\":\"contexts\",\"message\":\"no contexts\"},"
	    "{\"tool\":\"rag-verify\",\"metric\":\"faithfulness\",\"message\":\"claims.answer is null: the claims stage failed\"}]}",
	    "{\"failed\":true,\"errored\":true,\"missed\":[],\"checks\":[]}", 10);
	/* twelve more below faithfulness's threshold, 0.01 to 0.12 below; and one that passed */
	for (i = 0; i < 12; i++) {
		rec = rag_xasprintf("{\"id\":\"s%d\",\"answer\":\"x\"}", 10 + i);
		add(cs, rec, v = below("faithfulness", 0.69 - 0.01 * i, 0.7), 11 + i);
		free(rec);
		free(v);
	}
	add(cs, "{\"id\":\"ok\",\"answer\":\"x\"}", "{\"failed\":false,\"errored\":false,\"missed\":[],\"checks\":[]}", 30);

	a = rag_causes_json(cs);
	is_int(jv_array_length(jv_copy(a)), 9, "nine causes, one a record");
	is_str(field(a, 0, "cause", b, sizeof b), "the judge failed: 2 records unscored",
	       "an outage first: no advice about the system");
	is_str(field(a, 0, "text", b, sizeof b), "judge 500", "the endpoint's error, the first record's");
	is_str(field(a, 0, "kind", b, sizeof b), "outage", "its kind");
	is_int(num(a, 0, "count"), 2, "the judge's error said by two stages counts its record once");
	is_str(rec_field(a, 0, 0, "id", b, sizeof b), "r2", "equals in the order of the run");
	is_str(rec_field(a, 0, 0, "detail", b, sizeof b), "rag-claims: judge 500", "the stage and its error");
	is_str(rec_field(a, 0, 1, "detail", b, sizeof b), "rag-verify: judge 500", "another stage's");
	is_str(field(a, 1, "cause", b, sizeof b), "the service failed: 1 record unscored",
	       "the service's outage: no answer, its null no cause of its own");
	is_str(field(a, 2, "cause", b, sizeof b), "faithfulness below 0.700", "then the most records: faithfulness below");
	is_int(num(a, 2, "count"), 12, "12 records below faithfulness's threshold (r3 is under recall's, r9 a miss)");
	is_str(field(a, 2, "kind", b, sizeof b), "below", "its kind");
	is_str(field(a, 2, "metric", b, sizeof b), "faithfulness", "its metric");
	is_num(num(a, 2, "threshold"), 0.7, 1e-12, "its threshold");
	is_int(nrecs(a, 2), RAG_CAUSE_SHOWN, "ten of them listed");
	is_str(rec_field(a, 2, 0, "id", b, sizeof b), "s21", "the farthest below first (0.12 below)");
	is_str(rec_field(a, 2, 0, "detail", b, sizeof b), "0.580 (\u22120.120)", "its score and distance");
	is_str(rec_field(a, 2, 9, "id", b, sizeof b), "s12", "the tenth 0.03 below; the two nearest left out");
	is_str(field(a, 3, "cause", b, sizeof b), "context_recall below 0.600", "below two thresholds: retrieval's the cause");
	is_int(num(a, 3, "count"), 2, "r3 and r4");
	is_str(rec_field(a, 3, 0, "id", b, sizeof b), "r3", "0.4 below before 0.1 below");
	is_str(field(a, 4, "cause", b, sizeof b), "error: no contexts", "one record each, by key: the input error, the "
	       "downstream \"claims.answer is null\" no cause");
	want = rag_xasprintf("error: %.158s\u2026", "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                     "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                     "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                     "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9");
	is_str(field(a, 5, "cause", b, sizeof b), want, "the long error, cut at 79 characters");
	free(want);
	is_str(field(a, 6, "cause", b, sizeof b), "retrieval missed: no relevant document retrieved", "a retrieval miss, a cause of its own");
	is_str(field(a, 6, "kind", b, sizeof b), "miss", "its kind");
	is_str(rec_field(a, 6, 0, "detail", b, sizeof b), "mrr@5", "the metric that says so");
	is_str(field(a, 7, "cause", b, sizeof b), "answer_relevancy: no score", "a null under a per-record threshold");
	is_str(field(a, 8, "cause", b, sizeof b), "error: answer_relevancy: the tool's verdict is fail",
	       "a record with none of these: the first thing it missed, last (nothing below)");
	is_str(field(a, 9, "cause", b, sizeof b), "", "no more");
	{
		int k, n = 0;
		for (k = 0; k < 9; k++) n += (int)num(a, k, "count");
		is_int(n, 22, "22 failed records, each under one cause");
	}
	jv_free(a);
	rag_causes_free(cs);
}

/* the gate's own verdicts: a record under gate.record's threshold, one with a null */
static void from_gate(void)
{
	char name[] = "faithfulness";
	rag_kd rec[1] = {{name, 0.7}};
	rag_gate_opts o;
	rag_gate *g;
	rag_causes *cs = rag_causes_new();
	const char *rs[] = {"{\"id\":\"a\",\"answer\":\"x\",\"scores\":{\"faithfulness\":0.4}}",
	                    "{\"id\":\"b\",\"answer\":\"x\",\"scores\":{\"faithfulness\":0.9}}",
	                    "{\"id\":\"c\",\"answer\":\"x\",\"scores\":{\"faithfulness\":null}}"};
	char b[200];
	jv a;
	int i;
	memset(&o, 0, sizeof o);
	o.record = rec;
	o.nrecord = 1;
	o.min_pass_rate = 1;
	o.confidence = 0.95;
	o.resamples = 100;
	g = rag_gate_new(&o);
	for (i = 0; i < 3; i++) {
		jv r = jv_parse(rs[i]), v = rag_gate_add_verdict(g, r, "t", 0);
		rag_causes_add(cs, r, v, i);
		jv_free(r);
		jv_free(v);
	}
	a = rag_causes_json(cs);
	is_int(jv_array_length(jv_copy(a)), 2, "the gate's verdicts: two causes, the record that passed in none");
	is_str(field(a, 0, "cause", b, sizeof b), "faithfulness: no score", "the null (one record, no distance: first)");
	is_str(field(a, 1, "cause", b, sizeof b), "faithfulness below 0.700", "the record below gate.record's threshold");
	is_str(rec_field(a, 1, 0, "id", b, sizeof b), "a", "record a");
	jv_free(a);
	rag_causes_free(cs);
	rag_gate_free(g);
}

int main(void)
{
	hand_made();
	from_gate();
	return done_testing();
}
