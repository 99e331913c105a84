/* verdict.c - a run's verdict: the decision of its gate, the exit status and its reason, and
 * the counts they rest on, made in this one place from the gate's summary (gate.c) and stored
 * with the run (run.json, the store), so that every surface shows the same decision and the
 * same pass rate over the same denominator, and none makes them again. */
#include "base.h"
#include "gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

int rag_verdict_capped(jv rec)
{
	jv errs = jv_object_get(jv_copy(rec), jv_string("errors"));
	int r = 0;
	if (jv_get_kind(errs) == JV_KIND_ARRAY) {
		jv_array_foreach(errs, i, e) {
			char msg[64];
			const char *m = jv_get_kind(e) == JV_KIND_OBJECT ? rag_json_str(e, "message", msg, sizeof msg) : NULL;
			if (m && !strncmp(m, RAG_COST_CAPPED, strlen(RAG_COST_CAPPED))) r = 1;
			jv_free(e);
			(void)i;
		}
	}
	jv_free(errs);
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

/* the first failed check's message of the summary (borrowed), or NULL: into buf; the check
 * itself into *first (null: none) */
static const char *first_failed(jv s, char *buf, size_t n, jv *first)
{
	jv checks = rag_json_get(jv_copy(s), "checks");
	const char *r = NULL;
	*first = jv_null();
	if (jv_get_kind(checks) == JV_KIND_ARRAY) {
		jv_array_foreach(checks, i, c) {
			if (!r && jv_get_kind(jv_object_get(jv_copy(c), jv_string("pass"))) == JV_KIND_FALSE) {
				r = rag_json_str(c, "message", buf, n);
				jv_free(*first);
				*first = jv_copy(c);
			}
			jv_free(c);
			(void)i;
		}
	}
	jv_free(checks);
	return r && *r ? r : NULL;
}

/* who failed the records not scored, u of them, remote for a judge or the service: into buf */
static const char *why_unscored(long u, long remote, char *buf, size_t n)
{
	if (remote == u) snprintf(buf, n, "%s", remote == 1 ? "a judge or the service failed for it" : "a judge or the service failed for them");
	else if (!remote) snprintf(buf, n, "for %s input", u == 1 ? "its" : "their");
	else snprintf(buf, n, "%ld for a failed judge or service, %ld for their input", remote, u - remote);
	return buf;
}

/* Exit 3 or 4 (a run that measured less than it was asked to) only where the records not
 * scored are more than the configured error budget, or more than half of the run: a budget
 * that holds is not an outage, and a dead judge or service is one whatever the budget. */
jv rag_verdict(jv s)
{
	jv pass = jv_object_get(jv_copy(s), jv_string("pass"));
	long n = count(s, "records"), errored = count(s, "errored"), passed = count(s, "passed");
	long u = count(s, "not_scored"), remote = count(s, "remote_failed"), na = count(s, "not_applicable_records");
	long capped = count(s, "capped");
	long with = n - errored;
	jv thr = rag_json_get(jv_copy(s), "thresholds");
	double budget = rag_json_num(thr, "max_error_rate"), rate;   /* thr borrowed: freed below */
	const char *decision = jv_get_kind(pass) == JV_KIND_TRUE ? "pass" : jv_get_kind(pass) == JV_KIND_FALSE ? "fail"
	                                                                                                       : "none";
	char reason[1200], why[900], unsc[300] = "", who[100];
	const char *code;
	int st, outage;
	jv v, args = jv_object(), first = jv_null();

	jv_free(pass);
	jv_free(thr);
	if (isnan(budget)) budget = 0;
	rate = rag_verdict_pass_rate(passed, with);
	/* a run the spending cap cut short measured less than it was asked to, whatever the budget */
	outage = u > 0 && (capped > 0 || 2 * u > n || (double)u > budget * (double)n + 1e-9);
	if (u > 0)
		snprintf(unsc, sizeof unsc, "%ld of %ld record%s could not be scored (%s; their errors are in records.jsonl)",
		         u, n, n == 1 ? "" : "s", why_unscored(u, remote, who, sizeof who));
	if (outage) {
		code = "outage";
		st = remote > 0 ? RAG_EXIT_REMOTE : RAG_EXIT_DATA;
		if (capped > 0)
			snprintf(reason, sizeof reason, RAG_COST_CAPPED ": %s, %ld of them for the cap (llm.max_cost)", unsc, capped);
		else
			snprintf(reason, sizeof reason, "%s: %s", unsc,
			         2 * u > n ? "more than half of the run, whatever gate.max_error_rate"
			                   : budget > 0 ? "more than gate.max_error_rate" : "gate.max_error_rate is 0");
		if (!capped && budget > 0 && 2 * u <= n) {
			size_t l = strlen(reason);
			snprintf(reason + l, sizeof reason - l, " (%g%%)", budget * 100);
		}
	} else if (!strcmp(decision, "fail")) {
		code = "gate_failed";
		st = RAG_EXIT_FAIL;
		snprintf(reason, sizeof reason, "the gate failed: %s",
		         first_failed(s, why, sizeof why, &first) ? why : "a check failed");
		args = jv_object_set(args, jv_string("check"), first);
	} else {
		code = !strcmp(decision, "pass") ? "gate_passed" : "no_threshold";
		st = RAG_EXIT_OK;
		if (!strcmp(decision, "pass"))
			snprintf(reason, sizeof reason, "the gate passed: %ld of the %ld record%s without errors or nulls pass%s (%.1f%%)",
			         passed, with, with == 1 ? "" : "s", passed == 1 ? "es" : "", isnan(rate) ? 0 : rate * 100);
		else
			snprintf(reason, sizeof reason, "no threshold is configured: a summary, no decision");
		if (u > 0) {
			size_t l = strlen(reason);
			snprintf(reason + l, sizeof reason - l, "; %s, within gate.max_error_rate (%g%%)", unsc, budget * 100);
		}
	}
	/* the reason as a code and the numbers it is made of, for a page in another language:
	 * outage (u of n not scored, remote of them by a judge or the service, more than half or
	 * over the budget, capped of them left by the spending cap), gate_failed (the first failed check, itself a code), gate_passed,
	 * no_threshold; the unscored within the budget, where there are any */
	args = jv_object_set(args, jv_string("records"), jv_number((double)n));
	args = jv_object_set(args, jv_string("with_verdict"), jv_number((double)with));
	args = jv_object_set(args, jv_string("passed"), jv_number((double)passed));
	args = jv_object_set(args, jv_string("not_scored"), jv_number((double)u));
	args = jv_object_set(args, jv_string("remote_failed"), jv_number((double)remote));
	args = jv_object_set(args, jv_string("half"), jv_bool(2 * u > n));
	args = jv_object_set(args, jv_string("capped"), jv_number((double)capped));
	args = jv_object_set(args, jv_string("max_error_rate"), jv_number(budget));
	v = JV_OBJECT(jv_string("decision"), jv_string(decision), jv_string("exit_status"), jv_number(st),
	              jv_string("reason"), jv_string(reason), jv_string("reason_code"), jv_string(code),
	              jv_string("reason_args"), args, jv_string("records"), jv_number((double)n),
	              jv_string("with_verdict"), jv_number((double)with), jv_string("passed"), jv_number((double)passed));
	v = jv_object_set(v, jv_string("failed"), jv_number((double)(with - passed)));
	v = jv_object_set(v, jv_string("errored"), jv_number((double)errored));
	v = jv_object_set(v, jv_string("not_applicable"), jv_number((double)na));
	v = jv_object_set(v, jv_string("not_scored"), jv_number((double)u));
	v = jv_object_set(v, jv_string("remote_failed"), jv_number((double)remote));
	if (capped) v = jv_object_set(v, jv_string("capped"), jv_number((double)capped));
	v = jv_object_set(v, jv_string("pass_rate"), isnan(rate) ? jv_null() : jv_number(rate));
	v = jv_object_set(v, jv_string("pass_rate_of"), jv_number((double)with));
	v = jv_object_set(v, jv_string("thresholds"), rag_json_get(jv_copy(s), "thresholds"));
	v = jv_object_set(v, jv_string("by"), rag_json_get(jv_copy(s), "by"));
	return jv_object_set(v, jv_string("checks"), rag_json_get(jv_copy(s), "checks"));
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

/* the {metric: number} object k of thr (borrowed) as a list; keys malloc'ed */
static rag_kd *kd_list(jv thr, const char *k, size_t *n)
{
	jv o = rag_json_get(jv_copy(thr), k);
	rag_kd *v = NULL;
	*n = 0;
	if (jv_get_kind(o) == JV_KIND_OBJECT) {
		v = rag_xcalloc((size_t)jv_object_length(jv_copy(o)) + 1, sizeof *v);
		jv_object_foreach(o, key, x) {
			if (jv_get_kind(x) == JV_KIND_NUMBER) {
				v[*n].key = rag_xstrdup(jv_string_value(key));
				v[(*n)++].value = jv_number_value(x);
			}
			jv_free(key);
			jv_free(x);
		}
	}
	jv_free(o);
	return v;
}

/* the strings of array k of o (borrowed); malloc'ed */
static char **str_list(jv o, const char *k, size_t *n)
{
	jv a = rag_json_get(jv_copy(o), k);
	char **v = NULL;
	*n = 0;
	if (jv_get_kind(a) == JV_KIND_ARRAY) {
		v = rag_xcalloc((size_t)jv_array_length(jv_copy(a)) + 1, sizeof *v);
		jv_array_foreach(a, i, x) {
			if (jv_get_kind(x) == JV_KIND_STRING) v[(*n)++] = rag_xstrdup(jv_string_value(x));
			jv_free(x);
			(void)i;
		}
	}
	jv_free(a);
	return v;
}

int rag_verdict_gate_opts(jv verdict, rag_verdict_gate *vg)
{
	jv thr = rag_json_get(jv_copy(verdict), "thresholds"), cats;
	double x;
	memset(vg, 0, sizeof *vg);
	if (jv_get_kind(thr) != JV_KIND_OBJECT) {
		jv_free(thr);
		return -1;
	}
	vg->o.mean = vg->mean = kd_list(thr, "mean", &vg->o.nmean);
	vg->o.record = vg->record = kd_list(thr, "record", &vg->o.nrecord);
	vg->o.min_pass_rate = !isnan(x = rag_json_num(thr, "min_pass_rate")) ? x : 1;
	vg->o.max_error_rate = !isnan(x = rag_json_num(thr, "max_error_rate")) ? x : 0;
	vg->o.fail_on_flip = rag_json_true(thr, "fail_on_flip");
	vg->pass = str_list(thr, "pass", &vg->npass);
	vg->o.pass = (const char *const *)vg->pass;
	vg->o.npass = vg->npass;
	vg->by = str_list(verdict, "by", &vg->nby);
	vg->o.by = (const char *const *)vg->by;
	vg->o.nby = vg->nby;
	vg->o.confidence = 0.95;
	vg->o.resamples = 1000;
	cats = rag_json_get(jv_copy(thr), "by_category");
	if (jv_get_kind(cats) == JV_KIND_OBJECT) {
		size_t cap = 0;
		jv_object_foreach(cats, cat, ms) {
			if (jv_get_kind(ms) == JV_KIND_OBJECT) {
				jv_object_foreach(ms, m, v) {
					if (jv_get_kind(v) == JV_KIND_NUMBER) {
						if (vg->ncat == cap) vg->cat = rag_xrealloc(vg->cat, (cap = cap * 2 + 4) * sizeof *vg->cat);
						vg->cat[vg->ncat].category = rag_xstrdup(jv_string_value(cat));
						vg->cat[vg->ncat].metric = rag_xstrdup(jv_string_value(m));
						vg->cat[vg->ncat++].value = jv_number_value(v);
					}
					jv_free(m);
					jv_free(v);
				}
			}
			jv_free(cat);
			jv_free(ms);
		}
	}
	jv_free(cats);
	vg->o.by_category = vg->cat;
	vg->o.nby_category = vg->ncat;
	jv_free(thr);
	return 0;
}

void rag_verdict_gate_free(rag_verdict_gate *vg)
{
	size_t i;
	for (i = 0; i < vg->o.nmean; i++) free(vg->mean[i].key);
	for (i = 0; i < vg->o.nrecord; i++) free(vg->record[i].key);
	for (i = 0; i < vg->ncat; i++) {
		free(vg->cat[i].category);
		free(vg->cat[i].metric);
	}
	for (i = 0; i < vg->npass; i++) free(vg->pass[i]);
	for (i = 0; i < vg->nby; i++) free(vg->by[i]);
	free(vg->mean);
	free(vg->record);
	free(vg->cat);
	free(vg->pass);
	free(vg->by);
	memset(vg, 0, sizeof *vg);
}
