/* t-correctness.c - answer_correctness's numbers against the RAGAS worked example
 * (../shared/testdata/ragas_docs/answer_correctness.md), the lists with nothing to ask, and the
 * reading of a verifier's Yes or No. No request is sent. */
#include "base.h"
#include "config.h"
#include "usage.h"
#include "judge.h"
#include "metric.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void collect(void *arg, jv result, const char *error)
{
	jv *out = arg;
	*out = error ? jv_string(error) : result;
	if (error) jv_free(result);
}

/* the classes of a result, "tp fp fn ..." */
static char *classes(jv v)
{
	rag_buf b = {0};
	int i, n = jv_get_kind(v) == JV_KIND_ARRAY ? jv_array_length(jv_copy(v)) : 0;
	char *s;
	for (i = 0; i < n; i++) {
		jv c = jv_object_get(jv_array_get(jv_copy(v), i), jv_string("class"));
		rag_buf_addf(&b, "%s%s", i ? " " : "", jv_get_kind(c) == JV_KIND_STRING ? jv_string_value(c) : "?");
		jv_free(c);
	}
	s = rag_xstrdup(b.p ? b.p : "");
	rag_buf_free(&b);
	return s;
}

/* rag_judge_check_yes_no on text: 1 yes, 0 no, -1 a problem */
static int yesno(const char *text)
{
	char problem[256];
	jv r = jv_null();
	const char *p = rag_judge_check_yes_no(jv_string(text), 1, &r, problem, sizeof problem);
	int v = p ? -1 : jv_get_kind(r) == JV_KIND_TRUE;
	jv_free(r);
	return v;
}

int main(void)
{
	rag_config cfg;
	rag_judge *j;
	rag_usage u = {0};
	char err[RAG_ERRLEN], notice[RAG_ERRLEN], problem[256];
	static const rag_op *const prompts[] = {&rag_op_correctness, NULL};
	jv out = jv_null();
	char *c;
	double f1;

	/* The worked example's low-correctness answer: "Einstein was born in Spain in 1879." against
	 * "Einstein was born in 1879 in Germany.": TP [born in 1879], FP [born in Spain], FN [born in
	 * Germany]. */
	f1 = rag_correctness_f1(1, 1, 1);
	is_num(f1, 0.5, 1e-12, "worked example: F1 = 1 / (1 + 0.5 (1 + 1)) = 0.5");
	is_num(rag_correctness_score(f1, 0.9, 0.75, 0.25), 0.75 * 0.5 + 0.25 * 0.9, 1e-12,
	       "worked example: 0.75 F1 + 0.25 similarity (similarity 0.9: 0.6)");
	is_num(rag_correctness_score(f1, 0.9, 0.75, 0.25), 0.6, 1e-12, "...which is 0.6");
	/* its super bowl example: "Jan 15, 1967" for "January 15, 1967" is one true positive and
	 * nothing else, F1 1; the printed 0.95 is 0.75 + 0.25 s with similarity 0.8 */
	is_num(rag_correctness_f1(1, 0, 0), 1, 0, "one statement, the same fact: F1 1");
	is_num(rag_correctness_score(1, 0.8, 0.75, 0.25), 0.95, 1e-12, "F1 1, similarity 0.8: 0.95 as printed");
	is_num(rag_correctness_f1(2, 1, 0), 0.8, 1e-12, "TP 2, FP 1, FN 0: 2 / 2.5 = 0.8");
	is_num(rag_correctness_f1(0, 0, 3), 0, 0, "nothing claimed, three facts missed: F1 0");
	is_num(rag_correctness_f1(0, 2, 0), 0, 0, "two claims, none in the reference: F1 0");
	is_num(rag_correctness_f1(0, 0, 0), 1, 0, "nothing claimed, nothing to claim: F1 1");
	is_num(rag_correctness_score(0.5, NAN, 1, 0), 0.5, 0, "similarity weight 0: the F1 alone (no similarity needed)");
	is_num(rag_correctness_score(0.5, 0.9, 0, 1), 0.9, 0, "factual weight 0: the similarity alone");
	is_num(rag_correctness_score(0.5, 0.9, 1, 1), 0.7, 1e-12, "weights 1 and 1: the plain mean (weights need not sum to 1)");

	/* the lists with nothing to ask: no request, every claim of the other side fp or fn */
	rag_config_defaults(&cfg);
	cfg.llm.base_url = rag_xstrdup("http://127.0.0.1:9/v1");
	cfg.prompts.dir = rag_xstrdup(RAG_TEST_TOP "/share/prompts");
	cfg.cache.mode = RAG_CACHE_OFF;
	j = rag_judge_new(&cfg, prompts, notice, sizeof notice, err, sizeof err);
	ok(j != NULL, "a judge with the correctness prompt (%s)", j ? "" : err);
	rag_correctness_ask(j, "en", "Q?", "I don't know.", "It is 5. It is red.", jv_array(),
	                    JV_ARRAY(jv_string("It is 5."), jv_string("It is red.")), &u, collect, &out);
	c = classes(out);
	is_str(c, "fn fn", "no answer claims: each reference claim a false negative, at once");
	free(c);
	jv_free(out);
	out = jv_null();
	rag_correctness_ask(j, "en", "Q?", "It is 5.", "", JV_ARRAY(jv_string("It is 5.")), jv_array(), &u, collect, &out);
	c = classes(out);
	is_str(c, "fp", "no reference claims: each answer claim a false positive");
	free(c);
	jv_free(out);
	ok(u.calls == 0 && u.cache_hits == 0, "...and no request for either");
	rag_judge_free(j);

	/* the offline judge: each claim against the other text */
	free(cfg.llm.base_url);
	cfg.llm.base_url = NULL;
	j = rag_judge_new(&cfg, prompts, notice, sizeof notice, err, sizeof err);
	out = jv_null();
	rag_correctness_ask(j, "en", "Where was Einstein born?", "Einstein was born in Germany. He won a Nobel prize in 1921.",
	                    "Einstein was born in Germany in 1879.",
	                    JV_ARRAY(jv_string("Einstein was born in Germany."), jv_string("He won a Nobel prize in 1921.")),
	                    JV_ARRAY(jv_string("Einstein was born in Germany in 1879.")), &u, collect, &out);
	c = classes(out);
	is_str(c, "tp fp fn", "offline: the claim in the reference tp, the one not fp, the year the answer lacks fn");
	free(c);
	jv_free(out);
	rag_judge_free(j);
	rag_config_free(&cfg);

	/* a verifier's reply */
	ok(yesno("Yes") == 1 && yesno("yes") == 1 && yesno("YES.") == 1 && yesno(" \"Yes\"") == 1 && yesno("**Yes**") == 1,
	   "Yes in any case, quoted, in bold, with a full stop");
	ok(yesno("Yes, the document says so") == 1 && yesno("Yes\nbecause") == 1, "Yes and then a reason");
	ok(yesno("No") == 0 && yesno("no.") == 0 && yesno("NO, it does not") == 0, "No in any case");
	ok(yesno("\xe6\x98\xaf") == 1 && yesno("\xe6\x98\xaf\xe7\x9a\x84") == 1 && yesno("\xe5\xaf\xb9") == 1 &&
	   yesno("\xe6\x94\xaf\xe6\x8c\x81") == 1, "Chinese yes: 是, 是的, 对, 支持");
	ok(yesno("\xe5\x90\xa6") == 0 && yesno("\xe4\xb8\x8d\xe6\x98\xaf") == 0 && yesno("\xe4\xb8\x8d\xe5\xaf\xb9") == 0 &&
	   yesno("\xe4\xb8\x8d\xe6\x94\xaf\xe6\x8c\x81") == 0, "Chinese no: 否, 不是, 不对, 不支持");
	ok(yesno("Yesterday") == -1 && yesno("Nothing") == -1 && yesno("Maybe") == -1 && yesno("") == -1 &&
	   yesno("The claim is supported") == -1 && yesno("{\"verdict\": true}") == -1,
	   "anything else is no answer: Yesterday, Nothing, Maybe, empty, a sentence, JSON");
	{
		jv r = jv_null();
		const char *p = rag_judge_check_yes_no(jv_string("Maybe so"), 1, &r, problem, sizeof problem);
		is_str(p ? p : "", "the reply begins with \"Maybe\", not Yes or No", "the problem names the first word");
		jv_free(r);
	}
	return done_testing();
}
