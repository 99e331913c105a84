/* t-causes.c - causes.c, the failing records by cause of rag-report's page and rag-serve's
 * opened run: no answer, an error repeated by two stages counted once, two metrics below their
 * thresholds, a metric with no score, the why of a record with none of these, the order (the
 * most records first, then the farthest below), the ten records listed under a cause. */
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
	/* no answer: its first stage, the null of the metric it could not be scored on left out */
	add(cs, "{\"id\":\"r1\",\"errors\":[{\"tool\":\"rag-collect\",\"message\":\"timed out\"},{\"tool\":\"rag-claims\",\"message\":\"no answer\"}]}",
	    "{\"failed\":true,\"errored\":true,\"missed\":[\"faithfulness is missing\"],\"checks\":"
	    "[{\"metric\":\"faithfulness\",\"score\":null,\"threshold\":0.7,\"status\":\"error\"}]}", 1);
	/* one error said by two stages: once for the record */
	add(cs, "{\"id\":\"r2\",\"answer\":\"x\",\"errors\":[{\"tool\":\"rag-claims\",\"metric\":\"faithfulness\",\"message\":\"judge 500\"},"
	    "{\"tool\":\"rag-verify\",\"message\":\"judge 500\"}]}",
	    "{\"failed\":true,\"errored\":true,\"missed\":[],\"checks\":[]}", 2);
	/* two metrics below their thresholds */
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
	rec = rag_xasprintf("{\"id\":\"r8\",\"answer\":\"x\",\"errors\":[{\"tool\":\"rag-claims\",\"message\":\"%s\"}]}",
	                    "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                    "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                    "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                    "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                    "abc");
	add(cs, rec, "{\"failed\":true,\"errored\":true,\"missed\":[],\"checks\":[]}", 8);
	free(rec);
	/* twelve more below faithfulness's threshold, 0.01 to 0.12 below; and one that passed */
	for (i = 0; i < 12; i++) {
		rec = rag_xasprintf("{\"id\":\"s%d\",\"answer\":\"x\"}", 10 + i);
		add(cs, rec, v = below("faithfulness", 0.69 - 0.01 * i, 0.7), 10 + i);
		free(rec);
		free(v);
	}
	add(cs, "{\"id\":\"ok\",\"answer\":\"x\"}", "{\"failed\":false,\"errored\":false,\"missed\":[],\"checks\":[]}", 30);

	a = rag_causes_json(cs);
	is_int(jv_array_length(jv_copy(a)), 7, "seven causes");
	is_str(field(a, 0, "cause", b, sizeof b), "faithfulness below 0.700", "the most records first: faithfulness below");
	is_int(num(a, 0, "count"), 13, "13 records below faithfulness's threshold");
	is_str(field(a, 0, "kind", b, sizeof b), "below", "its kind");
	is_str(field(a, 0, "metric", b, sizeof b), "faithfulness", "its metric");
	is_num(num(a, 0, "threshold"), 0.7, 1e-12, "its threshold");
	is_int(nrecs(a, 0), RAG_CAUSE_SHOWN, "ten of them listed");
	is_str(rec_field(a, 0, 0, "id", b, sizeof b), "r3", "the farthest below first (0.2 below)");
	is_str(rec_field(a, 0, 0, "detail", b, sizeof b), "0.500 (\u22120.200)", "its score and distance");
	is_str(rec_field(a, 0, 1, "id", b, sizeof b), "s21", "then 0.12 below");
	is_str(rec_field(a, 0, 9, "id", b, sizeof b), "s13", "the tenth 0.04 below; the three nearest left out");
	is_str(field(a, 1, "cause", b, sizeof b), "error: judge 500", "two records each: an error before a metric");
	is_int(num(a, 1, "count"), 2, "the error said by two stages counts its record once");
	is_str(rec_field(a, 1, 0, "id", b, sizeof b), "r2", "equals in the order of the run");
	is_str(rec_field(a, 1, 0, "detail", b, sizeof b), "rag-claims: faithfulness", "the stage and metric that said it");
	is_str(rec_field(a, 1, 1, "detail", b, sizeof b), "rag-verify", "a stage alone");
	is_str(field(a, 2, "cause", b, sizeof b), "context_recall below 0.600", "the second metric below its threshold");
	is_int(num(a, 2, "count"), 2, "r3 and r4");
	is_str(rec_field(a, 2, 0, "id", b, sizeof b), "r3", "0.4 below before 0.1 below");
	want = rag_xasprintf("error: %.158s\u2026", "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                     "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                     "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	                     "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9");
	is_str(field(a, 3, "cause", b, sizeof b), want, "one record each, by key: the long error, cut at 79 characters");
	free(want);
	is_str(field(a, 4, "cause", b, sizeof b), "no answer (rag-collect failed)", "no answer: the first stage that failed");
	is_str(field(a, 4, "tool", b, sizeof b), "rag-collect", "its tool");
	is_str(rec_field(a, 4, 0, "detail", b, sizeof b), "timed out", "its message");
	is_str(field(a, 5, "cause", b, sizeof b), "answer_relevancy: no score", "a null under a per-record threshold");
	is_str(field(a, 6, "cause", b, sizeof b), "error: answer_relevancy: the tool's verdict is fail",
	       "a record with none of these: the first thing it missed, last (nothing below)");
	is_str(field(a, 7, "cause", b, sizeof b), "", "no more");
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
