/* t-serverun.c - rag-serve's Run tab form (serverun.c): a form -> rag-eval's options (one
 * argument a value, as given) and the configuration (each '$' doubled, so that rag-config's
 * ${VAR} expands nothing of the form); forms that are not right refused, with why. A profile:
 * what the listing shows of it (no key, header or store), and the form laid over it, read back
 * by rag-config itself: the whole profile kept, its ${VAR}s expanded by the reader and never
 * by rag-serve, the form's values on top. */
#include "base.h"
#include "config.h"
#include "serverun.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the form (JSON text) -> 0 or -1; *conf the configuration dumped, *args the options joined by
 * '|', both malloc'ed (NULL on -1) */
static int form(const char *text, char **conf, char **args, char **set, int *version, char *err, size_t n)
{
	jv f = jv_parse(text), c;
	rag_strv a = {0};
	rag_buf b = {0};
	size_t i;
	char *prof = NULL;
	int r = rag_evals_form(f, &c, &a, set, version, &prof, err, n);
	free(prof);
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

#define like_prefix(got, pre, ...) do { const char *g_ = (got); \
	ok(g_ && !strncmp(g_, (pre), strlen(pre)), __VA_ARGS__); if (!(g_ && !strncmp(g_, (pre), strlen(pre)))) \
		printf("#   got:  '%s'\n", g_ ? g_ : "(null)"); } while (0)

static void profiles(void);

static void refused(const char *text, const char *why)
{
	char err[RAG_ERRLEN] = "", *c, *a, *s = NULL;
	int v;
	is_int(form(text, &c, &a, &s, &v, err, sizeof err), -1, "refused: %s", text);
	is_str(err, why, "why: %s", text);
	ok(!s, "no test set name for a refused form");
	free(s);
}

static const char team[] =
	"# the search team's profile\n"
	"llm:\n"
	"  provider: openai\n"
	"  base_url: http://judge.internal:8000/v1\n"
	"  model: judge-big\n"
	"  api_key: ${T_SERVERUN_SECRET}\n"
	"  timeout: 17\n"
	"  retries: 2\n"
	"collect:\n"
	"  url: http://user:svcpw@svc.internal/ask\n"
	"  headers:\n"
	"    X-Team: search\n"
	"    Authorization: Bearer ${T_SERVERUN_SECRET}\n"
	"system:\n"
	"  top_k: 5\n"
	"  index: \"v2\"\n"
	"  tenant: ${T_SERVERUN_TENANT}\n"
	"gate:\n"
	"  mean:\n"
	"    faithfulness: 0.8\n"
	"  min_pass_rate: 0.9\n"
	"eval:\n"
	"  metrics: [faithfulness, keyword_overlap]\n"
	"store:\n"
	"  url: postgresql://ci:storepw@db/ragpipe\n"
	"fields:\n"
	"  reference: .expected.text\n"
	"prompts:\n"
	"  dir: prompts\n"
	"cache:\n"
	"  dir: /var/cache/team\n";

/* rag-serve's own judge key, as the merges below are given it: configured for http://j/v1,
 * allowed to http://judges.internal/ too */
static rag_strv serve_allow;
static const rag_evals_key serve_key = {1, "http://j/v1", &serve_allow};
/* the credentials the last merge left out: their "credential" members joined by '|' */
static char withheld_s[512];

/* the form (JSON text) laid over the profile (YAML text): 0 and *yaml, or -1 and err;
 * *give_key whether rag-serve's key (serve_key) goes with the run */
static int merge(const char *profile, const char *formtext, char **yaml, int *give_key, char *err, size_t n)
{
	jv f = jv_parse(formtext), c, w = jv_array();
	rag_strv a = {0};
	char *set = NULL, *prof = NULL;
	int v, r = rag_evals_form(f, &c, &a, &set, &v, &prof, err, n);
	*yaml = NULL;
	if (r == 0)
		r = rag_evals_merge(profile, strlen(profile), "/etc/rag $x/profiles", c, &serve_key, yaml, give_key, &w, err, n);
	else jv_free(c);
	withheld_s[0] = 0;
	jv_array_foreach(w, i, e) {
		jv k = jv_object_get(e, jv_string("credential"));
		snprintf(withheld_s + strlen(withheld_s), sizeof withheld_s - strlen(withheld_s), "%s%s", i ? "|" : "",
		         jv_string_value(k));
		jv_free(k);
	}
	jv_free(w);
	free(set);
	free(prof);
	rag_strv_free(&a);
	jv_free(f);
	return r;
}

/* yaml written to a file and read by rag-config: 0 and *cfg, or -1 and err */
static int reread(const char *yaml, rag_config *cfg, char *err, size_t n)
{
	char path[] = "/tmp/t-serverun-XXXXXX";
	int fd = mkstemp(path), r;
	if (fd < 0 || rag_write_all(fd, yaml, strlen(yaml)) < 0 || close(fd) < 0) {
		printf("# cannot write %s\n", path);
		exit(1);
	}
	r = rag_config_load(cfg, path, err, n);
	unlink(path);
	return r;
}

static const char *sys_of(const rag_config *c, const char *k)
{
	size_t i;
	for (i = 0; i < c->nsystem; i++)
		if (!strcmp(c->system[i].key, k)) return c->system[i].value;
	return NULL;
}

static const char *header_of(const rag_config *c, const char *k)
{
	size_t i;
	for (i = 0; i < c->collect.nheaders; i++)
		if (!strcmp(c->collect.headers[i].key, k)) return c->collect.headers[i].value;
	return NULL;
}

static double mean_of(const rag_config *c, const char *k)
{
	size_t i;
	for (i = 0; i < c->gate.nmean; i++)
		if (!strcmp(c->gate.mean[i].key, k)) return c->gate.mean[i].value;
	return -1;
}

/* where a credential may go */
static void within(void)
{
	static const struct { const char *url, *base; int want; } t[] = {
		{"http://j/v1", "http://j/v1", 1},
		{"http://j/v1/", "http://j/v1", 1},
		{"http://J:80/v1/chat/completions", "http://j/v1/", 1},
		{"http://j/v1?x=1", "http://j/v1", 1},
		{"http://j/v10", "http://j/v1", 0},
		{"http://j/", "http://j/v1", 0},
		{"https://j/v1", "http://j/v1", 0},
		{"http://j:8080/v1", "http://j/v1", 0},
		{"http://j.evil/v1", "http://j/v1", 0},
		{"http://j@evil/v1", "http://j/v1", 0},
		{"http://evil/v1#@j", "http://j/v1", 0},
		{"http://j/v1/../admin", "http://j/v1", 0},
		{"http://j/v1/%2e%2e/admin", "http://j/v1", 0},
		{"http://j/v1/a%2Fb", "http://j/v1", 0},
		{"http://j/anything", "http://j/", 1},
		{"http://j/anything", "http://j", 1},
		{"http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1", 1},
		{"http://[::1]:9/v1", "http://[::1]:9/", 1},
		{"file:///etc/passwd", "file:///etc", 0},
		{"http://${HOST}/v1", "http://${HOST}/v1", 0},
		{"not a url", "http://j/v1", 0},
	};
	size_t i;
	for (i = 0; i < sizeof t / sizeof *t; i++)
		is_int(rag_evals_url_within(t[i].url, t[i].base), t[i].want, "%s within %s: %s", t[i].url, t[i].base,
		       t[i].want ? "yes" : "no");
	ok(!rag_evals_url_allowed("http://x/v1", NULL, NULL), "no endpoint, no list: nowhere");
}

static void profiles(void)
{
	char err[RAG_ERRLEN] = "", *y;
	const char *shown;
	jv p, d;
	rag_config cfg;
	int own = -1;

	/* what the Run tab's Profile list shows */
	p = rag_evals_profile("team", team, strlen(team));
	d = jv_dump_string(p, JV_PRINT_SORTED);
	shown = jv_string_value(d);
	is_str(shown, "{\"judge_base_url\":\"http://judge.internal:8000/v1\",\"judge_model\":\"judge-big\","
	              "\"metrics\":[\"faithfulness\",\"keyword_overlap\"],\"name\":\"team\",\"own_key\":true,"
	              "\"service_url\":\"http://user:***@svc.internal/ask\",\"system\":{\"index\":\"v2\","
	              "\"tenant\":\"${T_SERVERUN_TENANT}\",\"top_k\":5},\"thresholds\":{\"faithfulness\":0.8}}",
	       "a profile as the form shows it: its values as written, a URL's password masked");
	ok(!strstr(shown, "T_SERVERUN_SECRET") && !strstr(shown, "svcpw") && !strstr(shown, "storepw") &&
	   !strstr(shown, "Bearer") && !strstr(shown, "X-Team"),
	   "no key, no header, no store, no password in it");
	jv_free(d);
	p = rag_evals_profile("bad", "llm: [", 6);
	d = jv_dump_string(p, JV_PRINT_SORTED);
	like_prefix(jv_string_value(d), "{\"error\":\"not YAML: ", "a profile that is not YAML: listed with why");
	jv_free(d);
	p = rag_evals_profile("list", "- a\n", 4);
	d = jv_dump_string(p, JV_PRINT_SORTED);
	is_str(jv_string_value(d), "{\"error\":\"not a rag-config(5) file: its top is not a mapping of sections\","
	                           "\"name\":\"list\"}", "a profile that is a list: listed with why");
	jv_free(d);
	p = rag_evals_profile("empty", "", 0);
	d = jv_dump_string(p, JV_PRINT_SORTED);
	is_str(jv_string_value(d), "{\"judge_base_url\":null,\"judge_model\":null,\"metrics\":[],\"name\":\"empty\","
	                           "\"own_key\":false,\"service_url\":null,\"system\":{},\"thresholds\":{}}",
	       "an empty profile: nothing set");
	jv_free(d);

	/* the form over it, read back by rag-config with the variables rag-eval would have */
	setenv("T_SERVERUN_SECRET", "sk-unit-secret-42", 1);
	setenv("T_SERVERUN_TENANT", "acme", 1);
	setenv("RAG_SERVE_STORE_URL", "sqlite:///tmp/t-serverun.db", 1);
	unsetenv("RAG_API_KEY");
	unsetenv("OPENAI_API_KEY");
	unsetenv("RAG_BASE_URL");
	unsetenv("RAG_MODEL");
	unsetenv("RAG_PROVIDER");
	is_int(merge(team, "{\"testset\":\"qa\",\"profile\":\"team\",\"judge_model\":\"judge-$x\","
	                   "\"service_url\":\"http://user:***@svc.internal/ask\",\"system\":{\"top_k\":7,"
	                   "\"tenant\":\"${T_SERVERUN_TENANT}\",\"index\":\"v3\",\"prompt\":\"${T_SERVERUN_SECRET}\"},"
	                   "\"thresholds\":{\"keyword_overlap\":0.2}}", &y, &own, err, sizeof err),
	       0, "the form over the profile");
	is_int(own, 0, "the profile names the judge's key itself: rag-serve's not given");
	is_str(withheld_s, "", "no credential left out: the form names the profile's endpoints");
	ok(y && strstr(y, "${T_SERVERUN_SECRET}") && !strstr(y, "sk-unit-secret-42") && !strstr(y, "acme"),
	   "its ${VAR}s left for rag-eval: no value of rag-serve's environment in the file");
	is_int(reread(y ? y : "", &cfg, err, sizeof err), 0, "rag-config reads it: %s", err);
	is_str(cfg.llm.api_key, "sk-unit-secret-42", "the judge's key: the profile's ${VAR}, expanded by the reader");
	is_num(cfg.llm.timeout, 17, 0, "the profile's judge timeout");
	is_int(cfg.llm.retries, 2, "the profile's judge retries");
	is_str(cfg.llm.base_url, "http://judge.internal:8000/v1", "the profile's judge endpoint");
	is_str(cfg.llm.model, "judge-$x", "the form's judge model, its '$' a '$'");
	is_str(cfg.collect.url, "http://user:svcpw@svc.internal/ask",
	       "the service URL as the listing masked it: the profile's, password and all");
	is_str(header_of(&cfg, "X-Team"), "search", "the profile's collect.headers");
	is_str(header_of(&cfg, "Authorization"), "Bearer sk-unit-secret-42", "a header's ${VAR}, expanded by the reader");
	is_str(cfg.collect.body,
	       "{question: .question} + (if .history then {history} else {} end) + (.system // {})",
	       "no body of the profile's own: the one that sends the knobs");
	is_str(sys_of(&cfg, "top_k"), "7", "the form's top_k over the profile's");
	is_str(sys_of(&cfg, "index"), "\"v3\"", "the form's text setting");
	is_str(sys_of(&cfg, "tenant"), "\"acme\"", "a setting the form left as the profile wrote it: its ${VAR} expanded");
	is_str(sys_of(&cfg, "prompt"), "\"${T_SERVERUN_SECRET}\"", "a ${VAR} the form wrote: the text, expanded never");
	is_num(mean_of(&cfg, "faithfulness"), 0.8, 0, "the profile's threshold kept");
	is_num(mean_of(&cfg, "keyword_overlap"), 0.2, 0, "the form's added");
	is_num(cfg.gate.min_pass_rate, 0.9, 0, "the profile's other gate settings");
	is_int(cfg.eval.metrics.n, 2, "the profile's metrics (the form's are rag-eval's --metrics)");
	is_str(cfg.store.url, "sqlite:///tmp/t-serverun.db", "the store: rag-serve's, never the profile's");
	is_str(cfg.prompts.dir, "/etc/rag $x/profiles/prompts", "a relative path: relative to the profile's directory");
	is_str(cfg.cache.dir, "/var/cache/team", "an absolute one as written");
	is_int(cfg.nfields, 1, "the profile's fields mapping");
	is_str(cfg.nfields ? cfg.fields[0].value : NULL, ".expected.text", "as written");
	rag_config_free(&cfg);
	free(y);

	/* a profile with a body of its own, no judge's key, the offline judge in the form */
	is_int(merge("collect:\n  url: http://a/ask\n  body: '{q: .question}'\nllm:\n  provider: openai\n  model: m1\n",
	             "{\"testset\":\"qa\",\"profile\":\"p\",\"system\":{\"top_k\":3}}", &y, &own, err, sizeof err),
	       0, "a form of a test set alone over a profile");
	is_int(own, 0, "no key in the profile, the default endpoint: rag-serve's key (of http://j/v1) not given");
	is_str(withheld_s, "rag-serve's llm.api_key", "and the reply says so");
	is_int(reread(y ? y : "", &cfg, err, sizeof err), 0, "rag-config reads it: %s", err);
	is_str(cfg.collect.body, "{q: .question}", "the profile's own body kept");
	is_str(cfg.llm.provider, "openai", "no endpoint in the form: the profile's judge, not the offline one");
	is_str(cfg.llm.model, "m1", "and its model");
	is_str(sys_of(&cfg, "top_k"), "3", "the form's knob");
	rag_config_free(&cfg);
	free(y);

	/* an empty profile: the form's configuration */
	is_int(merge("", "{\"testset\":\"qa\",\"profile\":\"p\",\"judge_base_url\":\"http://j/v1\"}", &y, &own, err,
	             sizeof err), 0, "an empty profile");
	is_int(reread(y ? y : "", &cfg, err, sizeof err), 0, "rag-config reads it: %s", err);
	is_str(cfg.llm.base_url, "http://j/v1", "the form's judge");
	is_int(own, 1, "rag-serve's own endpoint: its key given");
	is_str(withheld_s, "", "none left out");
	is_str(cfg.llm.api_key_env, "", "no variable of the environment stands in for the key");
	rag_config_free(&cfg);
	free(y);

	/* a credential goes only where it was configured for */
	is_int(merge(team, "{\"testset\":\"qa\",\"profile\":\"team\",\"judge_base_url\":\"http://judge.internal:8001/v1\","
	                   "\"service_url\":\"http://svc.internal:81/ask\"}", &y, &own, err, sizeof err),
	       0, "the form names another judge and another service");
	is_int(reread(y ? y : "", &cfg, err, sizeof err), 0, "rag-config reads it: %s", err);
	is_str(cfg.llm.base_url, "http://judge.internal:8001/v1", "the form's judge");
	ok(!cfg.llm.api_key, "without the profile's key");
	ok(!cfg.embeddings.api_key, "nor one for the embeddings");
	is_int((int)cfg.collect.nheaders, 0, "the form's service: without the profile's headers");
	is_int(own, 0, "nor rag-serve's key");
	is_str(withheld_s, "the profile's llm.api_key|the profile's collect.headers", "the reply says which were left out");
	ok(y && !strstr(y, "T_SERVERUN_SECRET"), "the run's configuration names no secret");
	rag_config_free(&cfg);
	free(y);
	{
		/* the profile allows those endpoints: an allow-list in its own llm and collect sections */
		const char *at = strstr(team, "  timeout: 17\n");
		char *t1 = rag_xasprintf("%.*s  allow_urls: [http://judge.internal:8001/]\n%s", (int)(at - team), team, at), *t2;
		at = strstr(t1, "  headers:\n");
		t2 = rag_xasprintf("%.*s  allow_urls: http://svc.internal:81/ask\n%s", (int)(at - t1), t1, at);
		is_int(merge(t2, "{\"testset\":\"qa\",\"profile\":\"team\",\"judge_base_url\":\"http://judge.internal:8001/v1\","
		                 "\"service_url\":\"http://svc.internal:81/ask?x=1\"}", &y, &own, err, sizeof err),
		       0, "the same form over a profile whose allow_urls name them");
		is_int(reread(y ? y : "", &cfg, err, sizeof err), 0, "rag-config reads it: %s", err);
		is_str(cfg.llm.api_key, "sk-unit-secret-42", "the profile's key goes with it");
		is_str(header_of(&cfg, "X-Team"), "search", "and its headers");
		is_str(withheld_s, "", "none left out");
		rag_config_free(&cfg);
		free(y);
		free(t1);
		free(t2);
	}
	is_int(merge("llm:\n  base_url: http://j/v1/\n", "{\"testset\":\"qa\",\"profile\":\"p\"}", &y, &own, err, sizeof err),
	       0, "a profile of rag-serve's endpoint and no key");
	is_int(own, 1, "rag-serve's key given");
	free(y);
	is_int(merge("llm:\n  base_url: http://j/v1/\n", "{\"testset\":\"qa\",\"profile\":\"p\",\"judge_base_url\":\"http://j:8080/v1\"}",
	             &y, &own, err, sizeof err), 0, "the form names another port");
	is_int(own, 0, "rag-serve's key not given");
	free(y);
	is_int(merge("llm:\n  base_url: http://j/v1/\n", "{\"testset\":\"qa\",\"profile\":\"p\",\"judge_base_url\":\"http://judges.internal/a/v1\"}",
	             &y, &own, err, sizeof err), 0, "the form names an endpoint of rag-serve's llm.allow_urls");
	is_int(own, 1, "rag-serve's key given");
	free(y);
	is_int(merge("llm:\n  base_url: http://j/v1/\nembeddings:\n  base_url: http://emb/v1\n", "{\"testset\":\"qa\",\"profile\":\"p\"}",
	             &y, &own, err, sizeof err), 0, "embeddings of another endpoint, without a key of their own");
	is_int(own, 0, "rag-serve's key not given: it would go to the embeddings' endpoint");
	free(y);

	is_int(merge("- a\n", "{\"testset\":\"qa\",\"profile\":\"p\"}", &y, &own, err, sizeof err), -1,
	       "a profile that is a list: refused");
	is_str(err, "not a rag-config(5) file: its top is not a mapping of sections", "why");
	ok(!y, "nothing written");
}

/* The time left (issue 36: a 92 s run showed 23 min at first). A run of 50 records through
 * rag-eval's pipeline: the first done after 40 s (every stage's latency), the others 1.06 s
 * apart, 92 s in all. From the first record on, the estimate is within a second of the truth;
 * before a second record it says nothing (the page: "estimating"). */
static void eta(void)
{
	long k, worst = 0;
	ok(isnan(rag_evals_eta(50, 0, 0, 0)), "no record done: estimating");
	ok(isnan(rag_evals_eta(50, 1, 1, 3)), "only the first records: estimating");
	is_num(rag_evals_eta(50, 50, 1, 50), 0, 0, "all done: 0");
	for (k = 2; k < 50; k++) {
		double since = (double)(k - 1) * 1.06, truth = 92 - (40 + since), e = rag_evals_eta(50, k, 1, since);
		if (fabs(e - truth) > (double)worst) worst = (long)ceil(fabs(e - truth));
	}
	ok(worst <= 1, "a run of 50 records in 92 s: every estimate within 1 s of the time left");
	/* from the start, the first record's 40 s times the 49 left: 1,960 s, over 30 min */
	is_num(rag_evals_eta(50, 2, 1, 1.06), 51, 0.5, "after the second record: 51 s left, not 32 min");
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
	          "\"llm\":{\"api_key_env\":\"\",\"base_url\":\"http://j/v1\",\"model\":\"m$$x\",\"provider\":\"openai\"},"
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
	/* a profile's name names a file of the profiles' directory and nothing else */
	refused("{\"testset\":\"qa\",\"profile\":\"../team\"}", "\"profile\": the name of a profile rag-serve lists");
	refused("{\"testset\":\"qa\",\"profile\":\"a/b\"}", "\"profile\": the name of a profile rag-serve lists");
	refused("{\"testset\":\"qa\",\"profile\":\"a..b\"}", "\"profile\": the name of a profile rag-serve lists");
	refused("{\"testset\":\"qa\",\"profile\":\".team\"}", "\"profile\": the name of a profile rag-serve lists");
	refused("{\"testset\":\"qa\",\"profile\":\"a:b\"}", "\"profile\": the name of a profile rag-serve lists");
	refused("{\"testset\":\"qa\",\"profile\":7}", "\"profile\": a text without control characters");
	rag_strv_push(&serve_allow, rag_xstrdup("http://judges.internal/"));
	within();
	profiles();
	rag_strv_free(&serve_allow);
	eta();
	return done_testing();
}
