/* claims.c - the claims operation: split a text (an answer, a reference) into atomic claims,
 * asked of the judge in one request (prompt "claims"), or split offline (claimsplit.c). */
#include "usage.h"
#include "offline.h"
#include "llm.h"
#include "judge.h"
#include "metric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *check_claims(jv v, int expect, jv *result, char *problem, size_t plen)
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
			if (*t && (expect <= 0 || jv_array_length(jv_copy(out)) < expect))
				out = jv_array_append(out, jv_string(t));
			free(line);
		}
		jv_free(s);
	}
	jv_free(arr);
	*result = out;
	return NULL;
}

/* The same for a text that says something: a judge that finds no claim in it is wrong, or
 * was not reading (a faithfulness of 1 from no claims would be a plausible number for a failure). */
static const char *check_some_claims(jv v, int expect, jv *result, char *problem, size_t plen)
{
	const char *p = check_claims(v, expect, result, problem, plen);
	if (p || jv_array_length(jv_copy(*result)) > 0) return p;
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
	rag_judge_ask(j, "claims", lang, vars, says_something(question, text) ? check_some_claims : check_claims,
	              max_claims, "{\"claims\": [\"...\", \"...\"]}", usage, cb, arg);
}

