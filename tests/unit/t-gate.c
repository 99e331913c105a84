/* t-gate.c - the gate's library side: threshold parsing and merging, the summary of a run
 * (thresholds with equality, nulls, categories, histogram, worst records), the baseline. */
#include "base.h"
#include "config.h"
#include "gate.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>

static rag_gate_opts defaults(void)
{
	rag_gate_opts o;
	memset(&o, 0, sizeof o);
	o.min_pass_rate = 1;
	o.regression = 0.1;
	o.confidence = 0.95;
	o.resamples = 500;
	o.worst = 10;
	o.seed = 1;
	return o;
}

static void add(rag_gate *g, const char *json)
{
	jv r = jv_parse(json);
	jv_free(rag_gate_add(g, r, "t:1", 0, 0));
	jv_free(r);
}

static double num(jv s, const char *path)
{
	/* path: "a.b" into objects, "a[0].b" not needed here */
	jv v = jv_copy(s);
	char buf[128], *p, *save = NULL;
	double d;
	snprintf(buf, sizeof buf, "%s", path);
	for (p = strtok_r(buf, ".", &save); p; p = strtok_r(NULL, ".", &save)) {
		if (*p >= '0' && *p <= '9') v = jv_array_get(v, atoi(p));
		else v = jv_object_get(v, jv_string(p));
	}
	d = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : jv_get_kind(v) == JV_KIND_TRUE ? 1 :
	    jv_get_kind(v) == JV_KIND_FALSE ? 0 : NAN;
	jv_free(v);
	return d;
}

int main(void)
{
	rag_kd *list = NULL, *m;
	size_t n = 0, nm, i;
	char err[RAG_ERRLEN];
	rag_gate_opts o;
	rag_gate *g;
	jv s, s2;

	/* parsing */
	ok(rag_gate_threshold_parse("faithfulness=0.8", &list, &n, err, sizeof err) == 0 && n == 1 &&
	   !strcmp(list[0].key, "faithfulness") && list[0].value == 0.8, "METRIC=MIN parses");
	ok(rag_gate_threshold_parse("faithfulness=0.5", &list, &n, err, sizeof err) == 0 && n == 1 && list[0].value == 0.5,
	   "the same metric again replaces its minimum");
	ok(rag_gate_threshold_parse("recall@5=1", &list, &n, err, sizeof err) == 0 && n == 2, "any metric name, 1 allowed");
	ok(rag_gate_threshold_parse("faithfulness", &list, &n, err, sizeof err) == -1, "no = is an error (%s)", err);
	ok(rag_gate_threshold_parse("=0.5", &list, &n, err, sizeof err) == -1, "no metric is an error");
	ok(rag_gate_threshold_parse("f=", &list, &n, err, sizeof err) == -1, "no minimum is an error");
	ok(rag_gate_threshold_parse("f=1.01", &list, &n, err, sizeof err) == -1, "above 1 is an error");
	ok(rag_gate_threshold_parse("f=-0", &list, &n, err, sizeof err) == 0, "-0 is 0");
	ok(rag_gate_threshold_parse("f=0.5x", &list, &n, err, sizeof err) == -1, "trailing text is an error");
	{
		rag_kd cfg[2] = {{"faithfulness", 0.9}, {"context_recall", 0.7}};
		m = rag_gate_thresholds_merge(cfg, 2, list, n, &nm);
		ok(nm == 4 && m[0].value == 0.5 && m[1].value == 0.7 && !strcmp(m[2].key, "recall@5") && !strcmp(m[3].key, "f"),
		   "merge: the flag replaces the config's value, new metrics follow");
		free(m);
	}
	for (i = 0; i < n; i++) free(list[i].key);
	free(list);

	/* a run: equal passes, nulls, categories, histogram */
	o = defaults();
	{
		rag_kd mean[1] = {{"faithfulness", 0.8}}, rec[1] = {{"faithfulness", 0.7}};
		o.mean = mean;
		o.nmean = 1;
		o.record = rec;
		o.nrecord = 1;
		o.max_error_rate = 0.75;
		g = rag_gate_new(&o);
		add(g, "{\"id\":\"a\",\"category\":\"x\",\"scores\":{\"faithfulness\":0.7,\"other\":1}}");
		add(g, "{\"id\":\"b\",\"category\":\"y\",\"scores\":{\"faithfulness\":0.9}}");
		add(g, "{\"id\":\"c\",\"category\":\"y\",\"scores\":{\"faithfulness\":null}}");
		add(g, "{\"id\":\"d\",\"scores\":{\"faithfulness\":0.8}}");
		s = rag_gate_summary(g);
		rag_gate_free(g);
	}
	is_num(num(s, "pass"), 1, 0, "mean 0.8 = threshold, record 0.7 = threshold, nulls within 0.75: pass");
	is_num(num(s, "records"), 4, 0, "4 records");
	is_num(num(s, "errored"), 1, 0, "the null in a gated metric is an error");
	is_num(num(s, "passed"), 3, 0, "the others pass");
	is_num(num(s, "metrics.0.scored"), 3, 0, "faithfulness (sorted first): 3 scored");
	is_num(num(s, "metrics.0.null"), 1, 0, "1 null");
	is_num(num(s, "metrics.0.mean"), 0.8, 1e-12, "mean over the scored");
	is_num(num(s, "metrics.1.null"), 3, 0, "other: absent from 3 records, 3 nulls");
	is_num(num(s, "metrics.1.error_rate"), 0.75, 0, "other: error rate 3 of 4");
	is_num(num(s, "metrics.0.histogram.7") + num(s, "metrics.0.histogram.8") + num(s, "metrics.0.histogram.9"), 3, 0,
	       "histogram: 0.7, 0.8, 0.9 in the top bins");
	is_num(num(s, "categories.1.records"), 2, 0, "category y: 2 records");
	is_num(num(s, "categories.1.metrics.0.null"), 1, 0, "category y: 1 null");
	is_num(num(s, "worst.0.failed"), 1, 0, "the null record is the worst");
	jv_free(s);

	/* a baseline: alignment and a reproducible interval */
	for (int run = 0; run < 2; run++) {
		o = defaults();
		g = rag_gate_new(&o);
		rag_gate_baseline_name(g, "base");
		for (i = 0; i < 50; i++) {
			char line[200];
			snprintf(line, sizeof line, "{\"id\":\"r%zu\",\"scores\":{\"f\":%g}}", i, 0.5 + (double)(i % 5) / 10);
			rag_gate_baseline(g, jv_parse(line));
		}
		rag_gate_baseline(g, jv_parse("{\"id\":\"gone\",\"scores\":{\"f\":1}}"));
		for (i = 0; i < 50; i++) {
			char line[200];
			snprintf(line, sizeof line, "{\"id\":\"r%zu\",\"scores\":{\"f\":%g}}", i, 0.4 + (double)(i % 5) / 10 - (i == 7 ? 0.3 : 0));
			add(g, line);
		}
		add(g, "{\"id\":\"new\",\"scores\":{\"f\":1}}");
		if (run == 0) s = rag_gate_summary(g);
		else s2 = rag_gate_summary(g);
		rag_gate_free(g);
	}
	is_num(num(s, "baseline.matched"), 50, 0, "50 ids matched");
	is_num(num(s, "baseline.only_current_count"), 1, 0, "1 id only in the run");
	is_num(num(s, "baseline.only_baseline_count"), 1, 0, "1 id only in the baseline");
	is_num(num(s, "baseline.metrics.0.delta"), -0.106, 1e-12, "mean change -0.1 - 0.3/50");
	ok(num(s, "baseline.metrics.0.ci_high") < 0, "the interval lies below 0");
	is_num(num(s, "baseline.regressed_count"), 1, 0, "one record lost more than 0.1 (the others lost exactly 0.1)");
	ok(num(s, "baseline.metrics.0.ci_low") == num(s2, "baseline.metrics.0.ci_low") &&
	   num(s, "baseline.metrics.0.ci_high") == num(s2, "baseline.metrics.0.ci_high"), "the same runs and seed: the same interval");
	jv_free(s);
	jv_free(s2);

	/* not applicable: out of the mean, the nulls and the record gate; a gate on none skipped */
	{
		rag_kd mean[] = {{"r", 0.7}}, rec[] = {{"r", 0.5}};
		o = defaults();
		o.mean = mean;
		o.nmean = 1;
		o.record = rec;
		o.nrecord = 1;
		g = rag_gate_new(&o);
		add(g, "{\"scores\":{\"r\":0.8}}");
		add(g, "{\"scores\":{\"r\":null},\"not_applicable\":{\"r\":\"no reference answer\"}}");
		s = rag_gate_summary(g);
		rag_gate_free(g);
		is_num(num(s, "metrics.0.computed"), 1, 0, "not applicable: computed on 1");
		is_num(num(s, "metrics.0.not_applicable"), 1, 0, "1 not applicable");
		is_num(num(s, "metrics.0.null"), 0, 0, "no null");
		is_num(num(s, "passed"), 2, 0, "both records pass");
		ok(num(s, "pass") == 1, "the gate passes");
		{
			jv hints = JV_OBJECT(jv_string("r"), jv_string("x"));
			s = rag_hints_apply(s, hints);
			jv_free(hints);
		}
		is_num(jv_array_length(jv_object_get(jv_copy(s), jv_string("hints"))), 0, 0, "a passing gate: no hint");
		jv_free(s);
		g = rag_gate_new(&o);
		add(g, "{\"scores\":{\"r\":null},\"not_applicable\":{\"r\":\"no reference answer\"}}");
		s = rag_gate_summary(g);
		rag_gate_free(g);
		ok(num(s, "pass") == 1 && num(s, "checks.0.skipped") == 1, "not applicable on every record: the gate is skipped, and passes");
		jv_free(s);
	}
	/* hints: the failures together first, retrieval before generation */
	{
		rag_kd mean[] = {{"faithfulness", 0.9}, {"context_recall", 0.9}, {"answer_relevancy", 0.9}};
		jv hints = JV_OBJECT(jv_string("faithfulness"), jv_string("F"), jv_string("context_recall"), jv_string("R"),
		                     jv_string("answer_relevancy"), jv_string("A"), jv_string("context_recall+faithfulness"), jv_string("RF"));
		jv h;
		o = defaults();
		o.mean = mean;
		o.nmean = 3;
		g = rag_gate_new(&o);
		add(g, "{\"scores\":{\"faithfulness\":0.1,\"context_recall\":0.1,\"answer_relevancy\":0.1}}");
		s = rag_hints_apply(rag_gate_summary(g), hints);
		rag_gate_free(g);
		h = jv_object_get(jv_copy(s), jv_string("hints"));
		{
			jv d = jv_dump_string(jv_copy(h), 0);
			is_str(jv_string_value(d), "[{\"metrics\":[\"context_recall\",\"faithfulness\"],\"hint\":\"RF\","
			       "\"key\":\"context_recall+faithfulness\"},{\"metrics\":[\"context_recall\"],\"hint\":\"R\","
			       "\"key\":\"context_recall\"},{\"metrics\":[\"faithfulness\"],\"hint\":\"F\",\"key\":\"faithfulness\"},"
			       "{\"metrics\":[\"answer_relevancy\"],\"hint\":\"A\",\"key\":\"answer_relevancy\"}]",
			       "hints: together first, then recall, faithfulness, relevancy; each with its entry's key");
			jv_free(d);
		}
		{
			/* said again in another language from its key: each hint's texts.zh */
			jv zh = JV_OBJECT(jv_string("context_recall"), jv_string("R-zh"), jv_string("faithfulness"), jv_string("F-zh"));
			jv t = rag_hints_texts(jv_copy(s), zh, "zh"), d;
			d = jv_dump_string(jv_getpath(t, JV_ARRAY(jv_string("hints"), jv_number(1), jv_string("texts"))), 0);
			is_str(jv_string_value(d), "{\"zh\":\"R-zh\"}", "rag_hints_texts: a hint in another language, by its key");
			jv_free(d);
			jv_free(zh);
		}
		jv_free(h);
		jv_free(hints);
		jv_free(s);
	}
	/* every record regressed: the 1000 largest drops are listed, most first, ties in input
	 * order, and all of them counted (the gate keeps no more than it lists) */
	o = defaults();
	g = rag_gate_new(&o);
	rag_gate_baseline_name(g, "base");
	for (i = 0; i < 3000; i++) {
		char line[200];
		snprintf(line, sizeof line, "{\"id\":\"r%zu\",\"scores\":{\"f\":1}}", i);
		rag_gate_baseline(g, jv_parse(line));
	}
	for (i = 0; i < 3000; i++) {
		char line[200];
		snprintf(line, sizeof line, "{\"id\":\"r%zu\",\"scores\":{\"f\":%g}}", i, 0.5 - (double)(i % 7) / 100);
		add(g, line);
	}
	s = rag_gate_summary(g);
	rag_gate_free(g);
	{
		jv rl = jv_object_get(jv_object_get(jv_copy(s), jv_string("baseline")), jv_string("regressed"));
		int nl = jv_get_kind(rl) == JV_KIND_ARRAY ? jv_array_length(jv_copy(rl)) : -1, sorted = 1, k;
		double prev = -1;
		long prev_id = -1;
		is_num(num(s, "baseline.regressed_count"), 3000, 0, "3000 regressions counted");
		is_int(nl, 1000, "and the 1000 largest listed");
		for (k = 0; k < nl; k++) {
			jv e = jv_array_get(jv_copy(rl), k);
			double d = jv_number_value(jv_object_get(jv_copy(e), jv_string("delta")));
			jv id = jv_object_get(e, jv_string("id"));
			long idn = atol(jv_string_value(id) + 1);
			if (k && (d < prev - 1e-12 || (fabs(d - prev) < 1e-12 && idn < prev_id))) sorted = 0;
			prev = d;
			prev_id = idn;
			if (k == 0) is_str(jv_string_value(id), "r6", "the first is the earliest of the largest drops");
			if (k == nl - 1) is_str(jv_string_value(id), "r1005", "the last is the 144th of the third largest (-0.54)");
			jv_free(id);
		}
		ok(sorted, "the most negative first, ties in input order");
		jv_free(rl);
	}
	jv_free(s);
	return done_testing();
}
