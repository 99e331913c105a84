/* claims.c - the claims operation: split a text (an answer, a reference) into atomic claims,
 * asked of the judge in one request (prompt "claims"), or split offline (claimsplit.c). */
#include "usage.h"
#include "offline.h"
#include "llm.h"
#include "judge.h"
#include "metric.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* expect: the claims allowed, times 2, + 1 when the text says something (as faithfulness has it
 * in verify.c): its check then takes no claims for a reply that does not fit */
#define EXPECT(max, some) ((max) * 2 + (some))

/* at most max claims (max <= 0: any number) */
static const char *claims_of(jv v, int max, jv *result, char *problem, size_t plen)
{
	jv arr = v, out = jv_array();
	int i, n;
	if (jv_get_kind(v) == JV_KIND_OBJECT) arr = jv_object_get(v, jv_string("claims"));
	if (jv_get_kind(arr) != JV_KIND_ARRAY) {
		jv_free(arr);
		jv_free(out);
		return "expected an object with a \"claims\" array";
	}
	n = jv_array_length(jv_copy(arr));
	for (i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(arr), i);
		if (jv_get_kind(s) == JV_KIND_OBJECT) {
			/* some models answer [{"claim": "..."}] */
			jv t = jv_object_get(jv_copy(s), jv_string("claim"));
			if (jv_get_kind(t) != JV_KIND_STRING) {
				jv_free(t);
				t = jv_object_get(jv_copy(s), jv_string("statement"));
			}
			jv_free(s);
			s = t;
		}
		if (jv_get_kind(s) != JV_KIND_STRING) {
			jv_free(s);
			jv_free(arr);
			jv_free(out);
			snprintf(problem, plen, "claims[%d] is not a string", i);
			return problem;
		}
		{
			char *line = rag_prompt_one_line(jv_string_value(s));
			char *t = line, *e;
			while (*t == ' ') t++;
			e = t + strlen(t);
			while (e > t && e[-1] == ' ') *--e = 0;
			if (*t && (max <= 0 || jv_array_length(jv_copy(out)) < max))
				out = jv_array_append(out, jv_string(t));
			free(line);
		}
		jv_free(s);
	}
	jv_free(arr);
	*result = out;
	return NULL;
}

/* For a text that says something, no claims does not fit: a judge that finds none in it is
 * wrong, or was not reading (a faithfulness of 1 from no claims would be a plausible number for
 * a failure). */
static const char *check_claims(jv v, int expect, jv *result, char *problem, size_t plen)
{
	const char *p = claims_of(v, expect / 2, result, problem, plen);
	if (p || !(expect & 1) || jv_array_length(jv_copy(*result)) > 0) return p;
	jv_free(*result);
	*result = jv_null();
	return "no claims, but the text is not empty and not a refusal: list the claims it makes";
}

/* Whether the text makes any claim, by the offline splitter: it drops refusals ("I don't know"),
 * fillers, questions and blank text, which may rightly have no claims. */
static int says_something(const char *question, const char *text)
{
	jv c = rag_offline_claims(question ? question : "", text, 1);
	int n = jv_array_length(c);
	return n > 0;
}

void rag_claims_ask(rag_judge *j, const char *lang, const char *question, const char *text,
                    int max_claims, rag_usage *usage, rag_judge_cb cb, void *arg)
{
	char num[32], nonce[RAG_NONCE_LEN];
	jv vars = jv_object(), texts;
	if (rag_judge_offline(j)) {
		jv_free(vars);
		cb(arg, rag_offline_claims(question ? question : "", text, max_claims), NULL);
		return;
	}
	snprintf(num, sizeof num, "%d", max_claims);
	texts = JV_ARRAY(jv_string(question ? question : ""), jv_string(text));
	rag_prompt_nonce(texts, nonce);
	jv_free(texts);
	vars = jv_object_set(vars, jv_string("question"), rag_prompt_blockv("QUESTION", nonce, question ? question : ""));
	vars = jv_object_set(vars, jv_string("text"), rag_prompt_blockv("TEXT", nonce, text));
	vars = jv_object_set(vars, jv_string("max_claims"), jv_string(num));
	/* a billion claims or more is no limit: EXPECT stays an int */
	if (max_claims > INT_MAX / 2 - 1) max_claims = INT_MAX / 2 - 1;
	rag_judge_ask(j, &rag_op_claims, lang, vars, EXPECT(max_claims, says_something(question, text)),
	              "{\"claims\": [\"...\", \"...\"]}", usage, cb, arg);
}

/* 10 tokens, and 15 a claim; taken to be 4 (fewer when fewer are allowed) */
static double completion(int expect)
{
	int max = expect / 2;
	return 10 + 15.0 * (max > 0 && max < 4 ? max : 4);
}

const rag_op rag_op_claims = {
	.name = "claims",
	.reply = RAG_OP_JSON,
	.schema = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"claims\"],"
	          "\"properties\":{\"claims\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}",
	.check = check_claims,
	.completion = completion,
	.offline = "rag_offline_claims",
};

