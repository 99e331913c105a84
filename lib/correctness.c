/* correctness.c - the answer_correctness operation (RAGAS): the answer's claims judged against
 * the reference (true positives, false positives) and the reference's claims against the answer
 * (false negatives), both lists in one request (prompt "correctness"); the factual F1 of those
 * counts, weighted with the semantic similarity of the two texts. Offline: each claim checked
 * against the other text by claimcheck.c. */
#include "base.h"
#include "usage.h"
#include "offline.h"
#include "llm.h"
#include "judge.h"
#include "metric.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The two list sizes travel to the reply check in its one int. */
#define PAIR_MAX 32767
#define PAIR(na, nr) ((na) << 15 | (nr))

double rag_correctness_f1(int tp, int fp, int fn)
{
	/* nothing claimed and nothing to claim: they agree */
	if (tp + fp + fn == 0) return 1;
	return tp / (tp + 0.5 * (fp + fn));
}

double rag_correctness_score(double factual, double similarity, double factual_weight, double similarity_weight)
{
	if (similarity_weight <= 0) return factual;
	if (factual_weight <= 0) return similarity;
	return (factual_weight * factual + similarity_weight * similarity) / (factual_weight + similarity_weight);
}

/* One list of the reply: {"verdicts": arr} checked as rag_judge_check_verdicts checks it. */
static const char *check_list(jv v, const char *key, int n, jv *out, char *problem, size_t plen)
{
	jv arr = jv_object_get(jv_copy(v), jv_string(key));
	char sub[256];
	const char *p;
	if (jv_get_kind(arr) != JV_KIND_ARRAY) {
		jv_free(arr);
		snprintf(problem, plen, "expected an object with an \"%s\" array and a \"%s\" array",
		         "answer", "reference");
		return problem;
	}
	p = rag_judge_check_verdicts(JV_OBJECT(jv_string("verdicts"), arr), n, out, sub, sizeof sub);
	if (p) {
		snprintf(problem, plen, "%s: %s", key, p);
		return problem;
	}
	return NULL;
}

static const char *check_correctness(jv v, int expect, jv *result, char *problem, size_t plen)
{
	int na = expect >> 15, nr = expect & PAIR_MAX;
	jv a = jv_null(), r = jv_null();
	const char *p;
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return "expected an object with an \"answer\" array and a \"reference\" array";
	}
	p = check_list(v, "answer", na, &a, problem, plen);
	if (!p) p = check_list(v, "reference", nr, &r, problem, plen);
	jv_free(v);
	if (p) {
		jv_free(a);
		jv_free(r);
		return p;
	}
	*result = JV_OBJECT(jv_string("answer"), a, jv_string("reference"), r);
	return NULL;
}

typedef struct corr_op {
	jv aclaims, rclaims;
	rag_judge_cb cb;
	void *arg;
} corr_op;

/* One verdict object: the claim, which text it came from, and its class. */
static jv verdict(jv claim, int from_answer, int yes, jv reason)
{
	const char *cls = from_answer ? (yes ? "tp" : "fp") : (yes ? "covered" : "fn");
	return JV_OBJECT(jv_string("claim"), claim, jv_string("source"), jv_string(from_answer ? "answer" : "reference"),
	                 jv_string("class"), jv_string(cls), jv_string("verdict"), jv_bool(yes),
	                 jv_string("reason"), jv_get_kind(reason) == JV_KIND_STRING ? reason : (jv_free(reason), jv_string("")));
}

/* The verdicts of both lists (each an array of {verdict, reason}, consumed) in one array. */
static jv merge(jv aclaims, jv rclaims, jv av, jv rv)
{
	jv out = jv_array();
	int i, n;
	for (int side = 0; side < 2; side++) {
		jv claims = side ? rclaims : aclaims, vs = side ? rv : av;
		n = jv_array_length(jv_copy(claims));
		for (i = 0; i < n; i++) {
			jv o = jv_array_get(jv_copy(vs), i);
			int yes = jv_get_kind(jv_object_get(jv_copy(o), jv_string("verdict"))) == JV_KIND_TRUE;
			out = jv_array_append(out, verdict(jv_array_get(jv_copy(claims), i), !side, yes,
			                                   jv_object_get(o, jv_string("reason"))));
		}
		jv_free(claims);
		jv_free(vs);
	}
	return out;
}

static void corr_done(void *arg, jv result, const char *error)
{
	corr_op *op = arg;
	jv out = jv_null();
	if (!error)
		out = merge(op->aclaims, op->rclaims, jv_object_get(jv_copy(result), jv_string("answer")),
		            jv_object_get(jv_copy(result), jv_string("reference")));
	else {
		jv_free(op->aclaims);
		jv_free(op->rclaims);
	}
	jv_free(result);
	op->cb(op->arg, out, error);
	free(op);
}

/* Every claim of a list with the same verdict and reason, without a request. */
static jv all_of(int n, int yes, const char *reason)
{
	jv out = jv_array();
	for (int i = 0; i < n; i++)
		out = jv_array_append(out, JV_OBJECT(jv_string("verdict"), jv_bool(yes), jv_string("reason"), jv_string(reason)));
	return out;
}

/* The claims (consumed) as a numbered list, one a line. */
static jv numbered(jv claims)
{
	rag_buf b = {0};
	int i, n = jv_array_length(jv_copy(claims));
	jv out;
	for (i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(claims), i);
		char *line = rag_prompt_one_line(jv_string_value(s));
		rag_buf_addf(&b, "%s%d. %s", i ? "\n" : "", i + 1, line);
		free(line);
		jv_free(s);
	}
	out = jv_string(b.p ? b.p : "");
	rag_buf_free(&b);
	jv_free(claims);
	return out;
}

void rag_correctness_ask(rag_judge *j, const char *lang, const char *question, const char *answer,
                         const char *reference, jv aclaims, jv rclaims, rag_usage *usage, rag_judge_cb cb,
                         void *arg)
{
	int na = jv_array_length(jv_copy(aclaims)), nr = jv_array_length(jv_copy(rclaims));
	char nonce[RAG_NONCE_LEN], num[32];
	jv vars, texts, as, rs;
	corr_op *op;

	if (na == 0 || nr == 0) {
		/* one side makes no claim: nothing of the other can be found in it */
		cb(arg, merge(aclaims, rclaims, all_of(na, 0, "the reference makes no claim"),
		              all_of(nr, 0, "the answer makes no claim")), NULL);
		return;
	}
	if (rag_judge_offline(j)) {
		double th = rag_judge_verify_conf(j)->offline_threshold;
		jv av = rag_offline_verify(jv_copy(aclaims), JV_ARRAY(jv_string(reference)), th);
		jv rv = rag_offline_verify(jv_copy(rclaims), JV_ARRAY(jv_string(answer)), th);
		cb(arg, merge(aclaims, rclaims, av, rv), NULL);
		return;
	}
	if (na > PAIR_MAX || nr > PAIR_MAX) {
		jv_free(aclaims);
		jv_free(rclaims);
		cb(arg, jv_null(), "too many claims to compare in one request (at most 32767 a side)");
		return;
	}
	as = numbered(jv_copy(aclaims));
	rs = numbered(jv_copy(rclaims));
	texts = JV_ARRAY(jv_string(question ? question : ""), jv_copy(as), jv_copy(rs));
	rag_prompt_nonce(texts, nonce);
	jv_free(texts);
	vars = jv_object();
	vars = jv_object_set(vars, jv_string("question"), rag_prompt_blockv("QUESTION", nonce, question ? question : ""));
	vars = jv_object_set(vars, jv_string("answer_statements"),
	                     rag_prompt_blockv("ANSWER_STATEMENTS", nonce, jv_string_value(as)));
	vars = jv_object_set(vars, jv_string("reference_statements"),
	                     rag_prompt_blockv("REFERENCE_STATEMENTS", nonce, jv_string_value(rs)));
	snprintf(num, sizeof num, "%d", na);
	vars = jv_object_set(vars, jv_string("answer_count"), jv_string(num));
	snprintf(num, sizeof num, "%d", nr);
	vars = jv_object_set(vars, jv_string("reference_count"), jv_string(num));
	jv_free(as);
	jv_free(rs);
	op = rag_xmalloc(sizeof *op);
	op->aclaims = aclaims;
	op->rclaims = rclaims;
	op->cb = cb;
	op->arg = arg;
	rag_judge_ask(j, &rag_op_correctness, lang, vars, PAIR(na, nr),
	              "{\"answer\": [{\"id\": 1, \"verdict\": true, \"reason\": \"...\"}, ...], \"reference\": "
	              "[{\"id\": 1, \"verdict\": false, \"reason\": \"...\"}, ...]} with exactly one verdict for "
	              "each numbered statement of each list", usage, corr_done, op);
}

/* 10 tokens, and 30 a verdict with its reason, for both lists */
static double completion(int expect)
{
	return 10 + 30.0 * ((expect >> 15) + (expect & PAIR_MAX));
}

const rag_op rag_op_correctness = {
	.name = "correctness",
	.reply = RAG_OP_JSON,
	.schema = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"answer\",\"reference\"],"
	          "\"properties\":{\"answer\":" RAG_JUDGE_VERDICT_LIST ",\"reference\":" RAG_JUDGE_VERDICT_LIST "}}",
	.check = check_correctness,
	.completion = completion,
	.offline = "rag_offline_verify, each list against the other text",
};
