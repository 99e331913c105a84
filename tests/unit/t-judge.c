/* t-judge.c - the judge and the embedder take what they need from the configuration at set-up
 * and write nothing into it; what they copied stays theirs when the configuration changes or
 * goes. No request is sent: an endpoint is named but never asked. */
#include "base.h"
#include "config.h"
#include "llm.h"
#include "judge.h"
#include "metric.h"
#include "tap.h"

#include <stdlib.h>
#include <unistd.h>

static char root[] = "/tmp/t-judge-XXXXXX";

/* A configuration with an endpoint (so an LLM judge) and nothing else but the defaults; no
 * model, so the judge's default is what it uses. */
static void config(rag_config *cfg, int mode)
{
	rag_config_defaults(cfg);
	cfg->llm.base_url = rag_xstrdup("http://127.0.0.1:9/v1");
	cfg->prompts.dir = rag_xstrdup(RAG_TEST_TOP "/share/prompts");
	cfg->cache.mode = mode;
	free(cfg->cache.dir);
	cfg->cache.dir = mode == RAG_CACHE_OFF ? NULL : rag_xasprintf("%s/cache", root);
	cfg->verify.batch_chars = 1234;
	cfg->verify.batch_claims = 7;
}

static void collect(void *arg, jv result, const char *error)
{
	jv *out = arg;
	*out = error ? jv_string(error) : result;
	if (error) jv_free(result);
}

int main(void)
{
	static const rag_op *const prompts[] = {&rag_op_claims, &rag_op_verify, NULL};
	/* an operation whose prompt is missing: every field set but the file */
	static const rag_op nosuch = {"no-such-prompt", RAG_OP_JSON, "{}", rag_judge_check_verdicts,
	                              rag_judge_completion_verdicts, RAG_OP_NO_OFFLINE, NULL, NULL, NULL, NULL, NULL};
	static const rag_op *const missing[] = {&nosuch, NULL};
	rag_config cfg, before;
	rag_judge *j;
	rag_embed *e;
	char err[RAG_ERRLEN], notice[RAG_ERRLEN];
	jv got = jv_invalid();

	if (!mkdtemp(root)) return 1;

	/* rag_judge_new reads cfg and writes nothing into it */
	config(&cfg, RAG_CACHE_RW);
	before = cfg;
	j = rag_judge_new(&cfg, prompts, notice, sizeof notice, err, sizeof err);
	ok(j != NULL, "an LLM judge from a config with an endpoint (%s)", j ? "" : err);
	ok(memcmp(&before, &cfg, sizeof cfg) == 0, "rag_judge_new leaves every field of the config as it was");
	ok(cfg.llm.model == NULL, "no model in the config: the judge's default is not written back");
	is_str(rag_judge_name(j), "openai:gpt-4o-mini", "the judge names its default model");
	is_str(notice, "", "no notice for an LLM judge");

	/* what it copied is its own: the config can change, or go */
	cfg.verify.batch_chars = 1;
	cfg.verify.batch_claims = 1;
	is_int(rag_judge_verify_conf(j)->batch_chars, 1234, "verify.batch_chars was copied at set-up");
	is_int(rag_judge_verify_conf(j)->batch_claims, 7, "verify.batch_claims was copied at set-up");
	rag_config_free(&cfg);
	is_str(rag_judge_model(j), "gpt-4o-mini", "the model outlives the config");

	/* an operation with nothing to ask answers at once, from the copied settings */
	rag_verify_ask(j, "en", "q?", jv_array(), JV_ARRAY(jv_string("a context")), NULL, collect, &got);
	ok(jv_get_kind(got) == JV_KIND_ARRAY && jv_array_length(jv_copy(got)) == 0,
	   "no claims: an empty verdict list without a request, after the config is gone");
	jv_free(got);
	rag_judge_free(j);

	/* the prompts the tool names are loaded at set-up: a missing one is an error then */
	config(&cfg, RAG_CACHE_OFF);
	j = rag_judge_new(&cfg, missing, notice, sizeof notice, err, sizeof err);
	ok(j == NULL && strstr(err, "no-such-prompt"), "a missing prompt fails rag_judge_new, naming it (%s)", err);
	rag_judge_free(j);
	rag_config_free(&cfg);

	/* replay needs a cache directory: an error, and cfg.cache.mode is not rewritten */
	config(&cfg, RAG_CACHE_REPLAY);
	free(cfg.cache.dir);
	cfg.cache.dir = NULL;
	j = rag_judge_new(&cfg, prompts, notice, sizeof notice, err, sizeof err);
	ok(j == NULL && strstr(err, "replay"), "replay without a cache directory is an error (%s)", err);
	is_int(cfg.cache.mode, RAG_CACHE_REPLAY, "the cache mode is left as configured");
	rag_config_free(&cfg);

	/* no cache directory in rw mode: no cache, and the config still says rw */
	config(&cfg, RAG_CACHE_RW);
	free(cfg.cache.dir);
	cfg.cache.dir = NULL;
	before = cfg;
	j = rag_judge_new(&cfg, prompts, notice, sizeof notice, err, sizeof err);
	ok(j != NULL && memcmp(&before, &cfg, sizeof cfg) == 0, "rw without a directory: a judge, the config untouched");
	rag_judge_free(j);

	/* the embedder too */
	before = cfg;
	e = rag_embed_new(&cfg, notice, sizeof notice, err, sizeof err);
	ok(e != NULL && memcmp(&before, &cfg, sizeof cfg) == 0, "rag_embed_new leaves the config as it was");
	rag_embed_free(e);
	rag_config_free(&cfg);

	/* offline: a judge and a notice, nothing written */
	rag_config_defaults(&cfg);
	before = cfg;
	j = rag_judge_new(&cfg, prompts, notice, sizeof notice, err, sizeof err);
	ok(j && rag_judge_offline(j) && strstr(notice, "offline"), "no endpoint: the offline judge, with a notice");
	ok(memcmp(&before, &cfg, sizeof cfg) == 0, "the offline judge leaves the config as it was");
	rag_judge_free(j);
	rag_config_free(&cfg);

	{
		char *cmd = rag_xasprintf("rm -rf '%s'", root);
		if (system(cmd) != 0) ok(0, "cleaned up %s", root);
		free(cmd);
	}
	/* a score with its reason: a metric tool's usual reply */
	{
		static const struct { const char *reply, *problem; } cases[] = {
			{"{\"score\": 0.5, \"reason\": \"half of it\"}", NULL},
			{"{\"score\": 1, \"reason\": \"all\", \"extra\": 1}", NULL},
			{"[0.5]", "expected an object"},
			{"{\"reason\": \"r\"}", "\"score\" is missing"},
			{"{\"score\": \"0.5\", \"reason\": \"r\"}", "\"score\" is string"},
			{"{\"score\": 1.5, \"reason\": \"r\"}", "\"score\" 1.5 is not from 0 to 1"},
			{"{\"score\": -0.1, \"reason\": \"r\"}", "is not from 0 to 1"},
			{"{\"score\": 0.5}", "\"reason\" is missing"},
			{"{\"score\": 0.5, \"reason\": 3}", "\"reason\" is number"},
			{"{\"score\": 0.5, \"reason\": \" \\n\"}", "\"reason\" is blank"},
		};
		size_t k;
		for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
			char problem[200];
			jv result = jv_invalid();
			const char *p = rag_judge_check_score(jv_parse(cases[k].reply), 0, &result, problem, sizeof problem);
			if (!cases[k].problem) {
				jv reason = p ? jv_invalid() : jv_object_get(jv_copy(result), jv_string("reason"));
				ok(p == NULL && jv_number_value(jv_object_get(jv_copy(result), jv_string("score"))) > 0 &&
				   jv_get_kind(reason) == JV_KIND_STRING && jv_object_length(jv_copy(result)) == 2,
				   "check_score takes %s as score and reason", cases[k].reply);
				jv_free(reason);
			} else {
				ok(p && strstr(p, cases[k].problem), "check_score refuses %s: %s", cases[k].reply, p ? p : "(taken)");
			}
			jv_free(result);
		}
	}
	return done_testing();
}
