/* t-serverun.c - rag-serve's Run tab form (serverun.c): a form -> rag-eval's options (one
 * argument a value, as given) and the configuration (each '$' doubled, so that rag-config's
 * ${VAR} expands nothing of the form); forms that are not right refused, with why. */
#include "base.h"
#include "serverun.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* the form (JSON text) -> 0 or -1; *conf the configuration dumped, *args the options joined by
 * '|', both malloc'ed (NULL on -1) */
static int form(const char *text, char **conf, char **args, char **set, int *version, char *err, size_t n)
{
	jv f = jv_parse(text), c;
	rag_strv a = {0};
	rag_buf b = {0};
	size_t i;
	int r = rag_evals_form(f, &c, &a, set, version, err, n);
	*conf = *args = NULL;
	if (r == 0) {
		jv d = jv_dump_string(c, JV_PRINT_SORTED);
		*conf = rag_xstrdup(jv_string_value(d));
		jv_free(d);
		for (i = 0; i < a.n; i++) {
			if (i) rag_buf_add(&b, "|", 1);
			rag_buf_adds(&b, a.v[i]);
		}
		*args = b.p ? b.p : rag_xstrdup("");
	} else {
		jv_free(c);
	}
	rag_strv_free(&a);
	jv_free(f);
	return r;
}

static void refused(const char *text, const char *why)
{
	char err[RAG_ERRLEN] = "", *c, *a, *s = NULL;
	int v;
	is_int(form(text, &c, &a, &s, &v, err, sizeof err), -1, "refused: %s", text);
	is_str(err, why, "why: %s", text);
	ok(!s, "no test set name for a refused form");
	free(s);
}

int main(void)
{
	char err[RAG_ERRLEN] = "", *c, *a, *s;
	int v = -1;

	is_int(form("{\"testset\":\"qa\"}", &c, &a, &s, &v, err, sizeof err), 0, "the least form: a test set");
	is_str(s, "qa", "its name");
	is_int(v, 0, "version 0: the newest");
	is_str(a, "", "no option");
	is_str(c, "{\"llm\":{\"provider\":\"offline\"},\"store\":{\"url\":\"${RAG_SERVE_STORE_URL}\"}}",
	       "no judge endpoint: the offline judge; the store by the child's variable");
	free(c), free(a), free(s);

	is_int(form("{\"testset\":\"-x; $(id)\",\"version\":3,\"label\":\"; rm -rf / `id` ${HOME}\","
	            "\"metrics\":\"faithfulness, keyword_overlap\",\"service_url\":\"http://h/ask?a=$HOME\","
	            "\"judge_base_url\":\"http://j/v1\",\"judge_model\":\"m$x\",\"system\":{\"top_k\":5,"
	            "\"rerank\":true,\"prompt\":\"${RAG_API_KEY}\"},\"thresholds\":{\"faithfulness\":0.8}}",
	            &c, &a, &s, &v, err, sizeof err), 0, "a form with every field");
	is_str(s, "-x; $(id)", "the test set's name as given");
	is_int(v, 3, "its version");
	is_str(a, "--metrics=faithfulness,keyword_overlap|--label=; rm -rf / `id` ${HOME}",
	       "the metrics and the label: one argument each, as given");
	is_str(c, "{\"collect\":{\"body\":\"{question: .question} + (if .history then {history} else {} end) + "
	          "(.system // {})\",\"url\":\"http://h/ask?a=$$HOME\"},\"gate\":{\"mean\":{\"faithfulness\":0.8}},"
	          "\"llm\":{\"base_url\":\"http://j/v1\",\"model\":\"m$$x\",\"provider\":\"openai\"},"
	          "\"store\":{\"url\":\"${RAG_SERVE_STORE_URL}\"},\"system\":{\"prompt\":\"$${RAG_API_KEY}\","
	          "\"rerank\":true,\"top_k\":5}}",
	       "the configuration: every '$' of the form doubled, numbers and booleans kept");
	free(c), free(a), free(s);

	refused("[]", "the body is not a JSON object");
	refused("{}", "\"testset\": the name of a test set in the store (required)");
	refused("{\"testset\":\"a/b\"}", "\"testset\": the name of a test set in the store (required)");
	refused("{\"testset\":\".hidden\"}", "\"testset\": the name of a test set in the store (required)");
	refused("{\"testset\":\"a\\nb\"}", "\"testset\": the name of a test set in the store (required)");
	refused("{\"testset\":\"qa\",\"version\":-1}", "\"version\": a version number (0 or none: the newest)");
	refused("{\"testset\":\"qa\",\"version\":1.5}", "\"version\": a version number (0 or none: the newest)");
	refused("{\"testset\":\"qa\",\"service_url\":\"file:///etc/passwd\"}", "\"service_url\": an http:// or https:// URL");
	refused("{\"testset\":\"qa\",\"judge_base_url\":\"http://a b\"}", "\"judge_base_url\": an http:// or https:// URL");
	refused("{\"testset\":\"qa\",\"label\":\"a\\u0000b\"}", "\"label\": a text without control characters");
	refused("{\"testset\":\"qa\",\"metrics\":[\"a b\"]}",
	        "\"metrics\": a metric's name is letters, digits and _.-@: (64 at most)");
	refused("{\"testset\":\"qa\",\"metrics\":\"--force\"}",
	        "\"metrics\": a metric's name is letters, digits and _.-@: (64 at most)");
	refused("{\"testset\":\"qa\",\"system\":{\"a b\":1}}",
	        "\"system\": a setting's name is letters, digits and _.-@: (64 at most)");
	refused("{\"testset\":\"qa\",\"system\":{\"k\":[1]}}",
	        "\"system\": each setting a number, true, false or a text of 500 bytes at most");
	refused("{\"testset\":\"qa\",\"thresholds\":{\"faithfulness\":1.5}}",
	        "\"thresholds\": an object of metric names and numbers from 0 to 1");
	refused("{\"testset\":\"qa\",\"thresholds\":[0.5]}",
	        "\"thresholds\": an object of metric names and numbers from 0 to 1");
	return done_testing();
}
