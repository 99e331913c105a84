/* verdict.c - a run's verdict: the decision of its gate, the exit status and its reason, and
 * the counts they rest on, made in this one place from the gate's summary (gate.c) and stored
 * with the run (run.json, the store), so that every surface shows the same decision and the
 * same pass rate over the same denominator, and none makes them again. */
#include "base.h"
#include "gate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int rag_verdict_unscored(jv rec)
{
	jv scores = jv_object_get(jv_copy(rec), jv_string("scores"));
	jv na = jv_object_get(jv_copy(rec), jv_string("not_applicable"));
	jv errs = jv_object_get(jv_copy(rec), jv_string("errors"));
	int r = 0;
	if (jv_get_kind(errs) == JV_KIND_ARRAY) {
		jv first = jv_array_get(jv_copy(errs), 0);
		/* a stage's error names where in the record it is (at); a remote failure does not */
		if (jv_is_valid(first))
			r = jv_get_kind(first) == JV_KIND_OBJECT && !jv_object_has(jv_copy(first), jv_string("at")) ? 2 : 1;
		jv_free(first);
	}
	if (!r && jv_get_kind(scores) == JV_KIND_OBJECT) {
		jv_object_foreach(scores, k, v) {
			if (jv_get_kind(v) != JV_KIND_NUMBER &&
			    !(jv_get_kind(na) == JV_KIND_OBJECT && jv_object_has(jv_copy(na), jv_copy(k))))
				r = 1;
			jv_free(k);
			jv_free(v);
		}
	}
	jv_free(errs);
	jv_free(scores);
	jv_free(na);
	return r;
}

double rag_verdict_pass_rate(long passed, long with_verdict)
{
	return with_verdict > 0 ? (double)passed / (double)with_verdict : NAN;
}

int rag_verdict_record_pass(jv verdict)
{
	if (rag_json_true(verdict, "errored")) return -1;
	return !rag_json_true(verdict, "failed");
}

static long count(jv s, const char *k)
{
	double x = rag_json_num(s, k);
	return isnan(x) ? 0 : (long)x;
}

/* the first failed check's message of the summary (borrowed), or NULL: into buf */
static const char *first_failed(jv s, char *buf, size_t n)
{
	jv checks = rag_json_get(jv_copy(s), "checks");
	const char *r = NULL;
	if (jv_get_kind(checks) == JV_KIND_ARRAY) {
		jv_array_foreach(checks, i, c) {
			if (!r && jv_get_kind(jv_object_get(jv_copy(c), jv_string("pass"))) == JV_KIND_FALSE)
				r = rag_json_str(c, "message", buf, n);
			jv_free(c);
			(void)i;
		}
	}
	jv_free(checks);
	return r && *r ? r : NULL;
}

/* Exit 3 or 4 (a run that measured less than it was asked to) only where the records not
 * scored are more than the configured error budget, or more than half of the run: a budget
 * that holds is not an outage, and a dead judge or service is one whatever the budget. */
jv rag_verdict(jv s)
{
	jv pass = jv_object_get(jv_copy(s), jv_string("pass"));
	long n = count(s, "records"), errored = count(s, "errored"), passed = count(s, "passed");
	long u = count(s, "not_scored"), remote = count(s, "remote_failed"), na = count(s, "not_applicable_records");
	long with = n - errored;
	double budget = rag_json_num(rag_json_get(jv_copy(s), "thresholds"), "max_error_rate"), rate;
	const char *decision = jv_get_kind(pass) == JV_KIND_TRUE ? "pass" : jv_get_kind(pass) == JV_KIND_FALSE ? "fail"
	                                                                                                       : "none";
	char reason[1200], why[900], unsc[300] = "";
	int st, outage;
	jv v;

	jv_free(pass);
	if (isnan(budget)) budget = 0;
	rate = rag_verdict_pass_rate(passed, with);
	outage = u > 0 && (2 * u > n || (double)u > budget * (double)n + 1e-9);
	if (u > 0)
		snprintf(unsc, sizeof unsc, "%ld of %ld record%s could not be scored (%ld for a failed judge or service, the "
		         "rest for their input; their errors are in records.jsonl)", u, n, n == 1 ? "" : "s", remote);
	if (outage) {
		st = remote > 0 ? RAG_EXIT_REMOTE : RAG_EXIT_DATA;
		snprintf(reason, sizeof reason, "%s: %s", unsc,
		         2 * u > n ? "more than half of the run, whatever gate.max_error_rate"
		                   : budget > 0 ? "more than gate.max_error_rate" : "gate.max_error_rate is 0");
		if (budget > 0 && 2 * u <= n) {
			size_t l = strlen(reason);
			snprintf(reason + l, sizeof reason - l, " (%g%%)", budget * 100);
		}
	} else if (!strcmp(decision, "fail")) {
		st = RAG_EXIT_FAIL;
		snprintf(reason, sizeof reason, "the gate failed: %s",
		         first_failed(s, why, sizeof why) ? why : "a check failed");
	} else {
		st = RAG_EXIT_OK;
		if (!strcmp(decision, "pass"))
			snprintf(reason, sizeof reason, "the gate passed: %ld of %ld record%s with a verdict pass (%.1f%%)",
			         passed, with, with == 1 ? "" : "s", isnan(rate) ? 0 : rate * 100);
		else
			snprintf(reason, sizeof reason, "no threshold is configured: a summary, no decision");
		if (u > 0) {
			size_t l = strlen(reason);
			snprintf(reason + l, sizeof reason - l, "; %s, within gate.max_error_rate (%g%%)", unsc, budget * 100);
		}
	}
	v = JV_OBJECT(jv_string("decision"), jv_string(decision), jv_string("exit_status"), jv_number(st),
	              jv_string("reason"), jv_string(reason), jv_string("records"), jv_number((double)n),
	              jv_string("with_verdict"), jv_number((double)with), jv_string("passed"), jv_number((double)passed));
	v = jv_object_set(v, jv_string("failed"), jv_number((double)(with - passed)));
	v = jv_object_set(v, jv_string("errored"), jv_number((double)errored));
	v = jv_object_set(v, jv_string("not_applicable"), jv_number((double)na));
	v = jv_object_set(v, jv_string("not_scored"), jv_number((double)u));
	v = jv_object_set(v, jv_string("remote_failed"), jv_number((double)remote));
	v = jv_object_set(v, jv_string("pass_rate"), isnan(rate) ? jv_null() : jv_number(rate));
	return jv_object_set(v, jv_string("pass_rate_of"), jv_number((double)with));
}

jv rag_verdict_failed(int status, const char *reason)
{
	return JV_OBJECT(jv_string("decision"), jv_null(), jv_string("exit_status"), jv_number(status),
	                 jv_string("reason"), jv_string(reason));
}

char *rag_verdict_exit_line(jv v)
{
	char r[1200];
	return rag_xasprintf("exit status %ld: %s", count(v, "exit_status"), rag_json_str(v, "reason", r, sizeof r));
}
