/* config.c - defaults, the YAML configuration file, environment overrides (rag-config(5)).
 *
 * Every key the file may hold is one row of the table below; the parser, the type checks, the
 * range checks and the environment overrides all work from it, so a new setting is a new struct
 * field, a new row, a default and a line in rag-config.5. */
#include "base.h"
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <yaml.h>

enum type {
	T_STR,        /* char * */
	T_PATH,       /* char *; "~/" and paths relative to the file's directory resolved */
	T_SECRET,     /* char *; the value never appears in a message */
	T_ENUM,       /* char *; one of .choices */
	T_MODE,       /* int; a cache mode (rag_config_cache_mode_parse), .choices names them */
	T_CHOICE,     /* int; the index of its name in .choices */
	T_INT,        /* int in [lo, hi] */
	T_LONG,       /* long in [lo, hi]; also sets the int at .aux, so 0 can be told from unset */
	T_DOUBLE,     /* double in [lo, hi], lo excluded when lo_open */
	T_BOOL,       /* int 0 or 1 */
	T_JSON,       /* int: enum rag_json_mode, the index of its name in .choices, or a boolean */
	T_FILES,      /* "*" row: name -> path pairs; rag_kv * at .off, its size_t count at .aux */
	T_NUMS,       /* "*" row: name -> number in [lo, hi]; rag_kd * at .off, its size_t count at .aux */
	T_STRS,       /* rag_strv: a list of strings (a single string is a list of one) */
	T_RUBRICS,    /* "*" row: name -> a rubric mapping (load_rubric); rag_rubric_conf * at .off,
	               * its size_t count at .aux */
	T_SECRETS,    /* "*" row: name -> string, every value a secret (never in a message); rag_kv *
	               * at .off, its size_t count at .aux */
	T_PRICES,     /* "*" row: model -> {input, output} numbers (load_price); rag_price * at .off,
	               * its size_t count at .aux */
	T_SCALARS,    /* "*" row: name -> scalar kept as JSON text (number, boolean or string by how
	               * it is written); rag_kv * at .off, its size_t count at .aux */
	T_TEXTS,      /* "*" row: name -> string as written (a jq program); rag_kv * at .off, its
	               * size_t count at .aux */
	T_CATNUMS,    /* "*" row: category -> {metric: number in [lo, hi]} (load_catnums); rag_cat_kd *
	               * at .off, its size_t count at .aux */
};

struct key {
	const char *section;      /* dotted path of the enclosing mapping, "" for the top level */
	const char *name;         /* "*" takes every key of the section that no other row names */
	enum type type;
	size_t off;               /* offsetof(rag_config, ...) */
	double lo, hi;            /* T_INT, T_LONG, T_DOUBLE */
	int lo_open;
	const char *const *choices;   /* T_ENUM, T_MODE; NULL-terminated */
	size_t aux;
};

/* llm.provider, embeddings.provider: offline, or an endpoint by the way it is asked (rag-config(5)
 * PROVIDERS): openai (Bearer), openai-reasoning (max_completion_tokens, no temperature), azure
 * (api-key, Azure's routes); rag_config_online tells an endpoint from the offline judge */
static const char *const providers[] = { "openai", "offline", "azure", "openai-reasoning", NULL };
static const char *const token_params[] = { "max_tokens", "max_completion_tokens", NULL };
static const char *const efforts[] = { "minimal", "low", "medium", "high", NULL };
static const char *const temp_words[] = { "omit", NULL };   /* llm.temperature: not sent */
static const char *const langs[] = { "auto", "en", "zh", NULL };
static const char *const cache_modes[] = { "rw", "ro", "replay", "off", NULL };
static const char *const json_modes[] = { "off", "object", "schema", NULL };   /* enum rag_json_mode */
static const char *const methods[] = { "POST", "GET", "PUT", "PATCH", NULL };
static const char *const streams[] = { "auto", "true", "false", NULL };
static const char *const ap_sources[] = { "auto", "verdicts", "ids", "similarity", NULL };   /* rag-ap --from */
static const char *const verify_modes[] = { "batched", "claim", "claim_chunk", NULL };   /* enum rag_verify_mode */

/* the fields every row has; the others by name, as each type needs them */
#define ROW(sec, key, t, field) .section = sec, .name = key, .type = t, .off = offsetof(rag_config, field)

static const struct key keys[] = {
	{ ROW("llm", "provider", T_ENUM, llm.provider), .choices = providers },
	{ ROW("llm", "base_url", T_STR, llm.base_url) },
	{ ROW("llm", "model", T_STR, llm.model) },
	{ ROW("llm", "api_key_env", T_STR, llm.api_key_env) },
	{ ROW("llm", "api_key", T_SECRET, llm.api_key) },
	{ ROW("llm", "allow_urls", T_STRS, llm.allow_urls) },
	{ ROW("llm", "temperature", T_DOUBLE, llm.temperature), .lo = 0, .hi = 2, .choices = temp_words },
	{ ROW("llm", "seed", T_LONG, llm.seed), .lo = (double)LONG_MIN, .hi = (double)LONG_MAX,
	  .aux = offsetof(rag_config, llm.has_seed) },
	{ ROW("llm", "max_tokens", T_INT, llm.max_tokens), .lo = 1, .hi = INT_MAX },
	{ ROW("llm", "timeout", T_DOUBLE, llm.timeout), .lo = 0, .hi = HUGE_VAL, .lo_open = 1 },
	{ ROW("llm", "retries", T_INT, llm.retries), .lo = 0, .hi = INT_MAX },
	{ ROW("llm", "concurrency", T_INT, llm.concurrency), .lo = 1, .hi = INT_MAX },
	{ ROW("llm", "adaptive", T_BOOL, llm.adaptive) },
	{ ROW("llm", "requests_per_minute", T_DOUBLE, llm.rpm), .lo = 0, .hi = HUGE_VAL },
	{ ROW("llm", "tokens_per_minute", T_DOUBLE, llm.tpm), .lo = 0, .hi = HUGE_VAL },
	{ ROW("llm", "deadline", T_DOUBLE, llm.deadline), .lo = 0, .hi = HUGE_VAL },
	{ ROW("llm", "max_cost", T_DOUBLE, llm.max_cost), .lo = 0, .hi = HUGE_VAL },
	{ ROW("llm", "json_mode", T_JSON, llm.json_mode), .choices = json_modes },
	{ ROW("llm", "answer_model", T_STR, llm.answer_model) },
	/* what a provider needs beyond OpenAI's request (rag-config(5) PROVIDERS) */
	{ ROW("llm.headers", "*", T_SECRETS, llm.headers), .aux = offsetof(rag_config, llm.nheaders) },
	{ ROW("llm.query", "*", T_TEXTS, llm.query), .aux = offsetof(rag_config, llm.nquery) },
	{ ROW("llm", "deployment", T_STR, llm.deployment) },
	{ ROW("llm", "api_version", T_STR, llm.api_version) },
	{ ROW("llm", "max_tokens_param", T_ENUM, llm.max_tokens_param), .choices = token_params },
	{ ROW("llm", "reasoning_effort", T_ENUM, llm.reasoning_effort), .choices = efforts },
	{ ROW("llm", "batch", T_BOOL, llm.batch) },
	{ ROW("llm", "batch_poll", T_DOUBLE, llm.batch_poll), .lo = 0, .hi = 86400 },
	/* a provider's limits on one batch (OpenAI's: 50,000 requests, 200 MB): a stage over them
	 * goes as several batches */
	{ ROW("llm", "batch_max_requests", T_INT, llm.batch_max_requests), .lo = 1, .hi = INT_MAX },
	{ ROW("llm", "batch_max_bytes", T_INT, llm.batch_max_bytes), .lo = 1024, .hi = INT_MAX },
	{ ROW("cache", "mode", T_MODE, cache.mode), .choices = cache_modes },
	{ ROW("cache", "dir", T_PATH, cache.dir) },
	{ ROW("", "lang", T_ENUM, lang), .choices = langs },
	{ ROW("prompts", "dir", T_PATH, prompts.dir) },
	{ ROW("prompts", "*", T_FILES, prompts.files), .aux = offsetof(rag_config, prompts.nfiles) },
	{ ROW("verify", "max_claims", T_INT, verify.max_claims), .lo = 1, .hi = INT_MAX },
	{ ROW("verify", "batch_claims", T_INT, verify.batch_claims), .lo = 1, .hi = INT_MAX },
	{ ROW("verify", "batch_chars", T_INT, verify.batch_chars), .lo = 1, .hi = INT_MAX },
	{ ROW("verify", "recheck_chunks", T_BOOL, verify.recheck_chunks) },
	{ ROW("verify", "literal_match", T_BOOL, verify.literal_match) },
	{ ROW("verify", "offline_threshold", T_DOUBLE, verify.offline_threshold), .lo = 0, .hi = 1 },
	{ ROW("verify", "chunk_threshold", T_DOUBLE, verify.chunk_threshold), .lo = 0, .hi = 1 },
	{ ROW("verify", "mode", T_CHOICE, verify.mode), .choices = verify_modes },
	{ ROW("verify", "verifier_max_tokens", T_INT, verify.verifier_max_tokens), .lo = 1, .hi = INT_MAX },
	{ ROW("verify", "factual_weight", T_DOUBLE, verify.factual_weight), .lo = 0, .hi = 1000 },
	{ ROW("verify", "similarity_weight", T_DOUBLE, verify.similarity_weight), .lo = 0, .hi = 1000 },
	{ ROW("embeddings", "provider", T_ENUM, embeddings.provider), .choices = providers },
	{ ROW("embeddings", "base_url", T_STR, embeddings.base_url) },
	{ ROW("embeddings", "model", T_STR, embeddings.model) },
	{ ROW("embeddings", "api_key_env", T_STR, embeddings.api_key_env) },
	{ ROW("embeddings", "api_key", T_SECRET, embeddings.api_key) },
	{ ROW("embeddings", "dimensions", T_INT, embeddings.dimensions), .lo = 0, .hi = 65536 },
	{ ROW("embeddings", "batch_size", T_INT, embeddings.batch_size), .lo = 1, .hi = 2048 },
	{ ROW("embeddings.headers", "*", T_SECRETS, embeddings.headers), .aux = offsetof(rag_config, embeddings.nheaders) },
	{ ROW("embeddings.query", "*", T_TEXTS, embeddings.query), .aux = offsetof(rag_config, embeddings.nquery) },
	{ ROW("embeddings", "deployment", T_STR, embeddings.deployment) },
	{ ROW("gate.mean", "*", T_NUMS, gate.mean), .lo = 0, .hi = 1, .aux = offsetof(rag_config, gate.nmean) },
	{ ROW("gate.record", "*", T_NUMS, gate.record), .lo = 0, .hi = 1, .aux = offsetof(rag_config, gate.nrecord) },
	{ ROW("gate", "min_pass_rate", T_DOUBLE, gate.min_pass_rate), .lo = 0, .hi = 1 },
	{ ROW("gate", "max_error_rate", T_DOUBLE, gate.max_error_rate), .lo = 0, .hi = 1 },
	{ ROW("gate", "regression", T_DOUBLE, gate.regression), .lo = 0, .hi = 1 },
	{ ROW("gate", "fail_on_regression", T_BOOL, gate.fail_on_regression) },
	{ ROW("gate", "seed", T_LONG, gate.seed), .lo = 0, .hi = (double)LONG_MAX,
	  .aux = offsetof(rag_config, gate.has_seed) },
	{ ROW("gate", "resamples", T_INT, gate.resamples), .lo = 1, .hi = 1000000 },
	{ ROW("gate", "confidence", T_DOUBLE, gate.confidence), .lo = 0, .hi = 0.9999, .lo_open = 1 },
	{ ROW("gate", "worst", T_INT, gate.worst), .lo = 0, .hi = 100000 },
	{ ROW("gate", "pass", T_STRS, gate.pass) },
	{ ROW("gate", "fail_on_flip", T_BOOL, gate.fail_on_flip) },
	{ ROW("gate", "by", T_STRS, gate.by) },
	{ ROW("gate.by_category", "*", T_CATNUMS, gate.by_category), .lo = 0, .hi = 1,
	  .aux = offsetof(rag_config, gate.nby_category) },
	{ ROW("stream", "max_memory", T_INT, stream.max_memory), .lo = 65536, .hi = INT_MAX },
	{ ROW("ap", "from", T_ENUM, ap.from), .choices = ap_sources },
	{ ROW("kw", "metrics", T_STR, kw.metrics) },
	{ ROW("kw", "threshold", T_DOUBLE, kw.threshold), .lo = 0, .hi = 1 },
	{ ROW("kw", "stem", T_BOOL, kw.stem) },
	{ ROW("kw", "must_contain", T_STRS, kw.must_contain) },
	{ ROW("kw", "must_not_contain", T_STRS, kw.must_not_contain) },
	{ ROW("kw", "must_match", T_STRS, kw.must_match) },
	{ ROW("kw", "must_not_match", T_STRS, kw.must_not_match) },
	{ ROW("rubrics", "*", T_RUBRICS, rubrics.v), .aux = offsetof(rag_config, rubrics.n) },
	/* rag-collect (rag-collect(1)) */
	{ ROW("collect", "url", T_STR, collect.url) },
	{ ROW("collect", "command", T_STR, collect.command) },
	{ ROW("collect", "method", T_ENUM, collect.method), .choices = methods },
	{ ROW("collect.headers", "*", T_SECRETS, collect.headers), .aux = offsetof(rag_config, collect.nheaders) },
	{ ROW("collect", "allow_urls", T_STRS, collect.allow_urls) },
	{ ROW("collect", "body", T_STR, collect.body) },
	{ ROW("collect", "answer", T_STR, collect.answer) },
	{ ROW("collect", "contexts", T_STR, collect.contexts) },
	{ ROW("collect", "context_ids", T_STR, collect.context_ids) },
	{ ROW("collect", "system_from", T_STR, collect.system_from) },
	{ ROW("collect", "expected_answer_chars", T_DOUBLE, collect.expected_answer_chars), .lo = 0, .hi = 1e7 },
	{ ROW("collect", "expected_contexts", T_DOUBLE, collect.expected_contexts), .lo = 0, .hi = 1000 },
	{ ROW("collect", "expected_context_chars", T_DOUBLE, collect.expected_context_chars), .lo = 0, .hi = 1e7 },
	{ ROW("collect", "stream", T_ENUM, collect.stream), .choices = streams },
	{ ROW("collect", "timeout", T_DOUBLE, collect.timeout), .lo = 0, .hi = HUGE_VAL, .lo_open = 1 },
	{ ROW("collect", "concurrency", T_INT, collect.concurrency), .lo = 1, .hi = 1024 },
	{ ROW("collect", "retries", T_INT, collect.retries), .lo = 0, .hi = INT_MAX },
	{ ROW("collect", "requests_per_minute", T_DOUBLE, collect.rpm), .lo = 0, .hi = HUGE_VAL },
	{ ROW("collect", "cache", T_MODE, collect.cache), .choices = cache_modes },
	{ ROW("system", "*", T_SCALARS, system), .aux = offsetof(rag_config, nsystem) },
	/* fields: a test set's own schema, our field name -> a jq program (rag_fieldmap) */
	{ ROW("fields", "*", T_TEXTS, fields), .aux = offsetof(rag_config, nfields) },
	/* trace.fields: rag-trace's record field -> a span attribute's name (rag-trace(1)) */
	{ ROW("trace.fields", "*", T_TEXTS, trace.fields), .aux = offsetof(rag_config, trace.nfields) },
	/* eval: rag-eval's */
	{ ROW("eval", "metrics", T_STRS, eval.metrics) },
	{ ROW("eval", "runs_dir", T_PATH, eval.runs_dir) },
	/* gen: rag-gen's hard cases, each a share of the set (rag-gen(1) HARD CASES) */
	{ ROW("gen", "unanswerable", T_DOUBLE, gen.share[0]), .lo = 0, .hi = 1 },
	{ ROW("gen", "noisy", T_DOUBLE, gen.share[1]), .lo = 0, .hi = 1 },
	{ ROW("gen", "multi_hop", T_DOUBLE, gen.share[2]), .lo = 0, .hi = 1 },
	{ ROW("gen", "follow_up", T_DOUBLE, gen.share[3]), .lo = 0, .hi = 1 },
	/* prices: what rag-gate, rag-eval and --estimate charge for tokens */
	{ ROW("prices", "currency", T_STR, prices.currency) },
	{ ROW("prices", "*", T_PRICES, prices.v), .aux = offsetof(rag_config, prices.n) },
	/* store: rag-store's and rag-eval's run history (rag-store(1)) */
	{ ROW("store", "url", T_STR, store.url) },
	/* trace_url: the team's trace viewer, {trace_id} in it (rag-serve's Production tab) */
	{ ROW("", "trace_url", T_STR, trace_url) },
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* Environment overrides, applied after the file with the same checks as its keys.
 * RAG_API_KEY is not here: the key has its own fallback chain (resolve_api_key). */
static const struct { const char *var, *section, *name; } env_keys[] = {
	{ "RAG_PROVIDER", "llm", "provider" },
	{ "RAG_BASE_URL", "llm", "base_url" },
	{ "RAG_MODEL", "llm", "model" },
	{ "RAG_CACHE", "cache", "mode" },
	{ "RAG_CACHE_DIR", "cache", "dir" },
	{ "RAG_LANG", "", "lang" },
	{ "RAG_MAX_COST", "llm", "max_cost" },
};

struct loader {
	rag_config *cfg;
	const char *file;         /* as named in messages */
	char *basedir;            /* relative paths in the file are relative to it; NULL: as written */
	char *err;
	size_t errlen;
	yaml_document_t *doc;     /* the document being loaded (for the items of a list) */
};

/* "FILE:LINE:COLUMN: msg", with libyaml's 0-based marks made 1-based like every compiler's. */
static int fail_at(struct loader *L, yaml_mark_t m, const char *msg)
{
	rag_seterr(L->err, L->errlen, "%s:%zu:%zu: %s", L->file, m.line + 1, m.column + 1, msg);
	return -1;
}

const char *rag_config_cache_mode_name(int mode)
{
	switch (mode) {
	case RAG_CACHE_RW: return "rw";
	case RAG_CACHE_RO: return "ro";
	case RAG_CACHE_REPLAY: return "replay";
	case RAG_CACHE_OFF: return "off";
	}
	return "unknown";
}

int rag_config_cache_mode_parse(const char *s)
{
	if (!s) return -1;
	if (!strcmp(s, "rw") || !strcmp(s, "read-write")) return RAG_CACHE_RW;
	if (!strcmp(s, "ro") || !strcmp(s, "read-only")) return RAG_CACHE_RO;
	if (!strcmp(s, "replay")) return RAG_CACHE_REPLAY;
	if (!strcmp(s, "off")) return RAG_CACHE_OFF;
	return -1;
}

/* XDG base directories must be absolute; a relative value is ignored (XDG Base Directory spec). */
static char *xdg_dir(const char *var, const char *fallback, const char *leaf)
{
	const char *x = getenv(var), *home = getenv("HOME");
	if (x && x[0] == '/') return rag_xasprintf("%s/%s", x, leaf);
	if (home && *home) return rag_xasprintf("%s/%s/%s", home, fallback, leaf);
	return NULL;
}

void rag_config_defaults(rag_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->llm.api_key_env = rag_xstrdup("OPENAI_API_KEY");
	cfg->llm.temperature = 0;
	cfg->llm.max_tokens = 2048;
	cfg->llm.timeout = 60;
	cfg->llm.retries = 4;
	cfg->llm.concurrency = 8;
	cfg->llm.adaptive = 1;
	cfg->llm.deadline = 300;
	cfg->llm.batch_poll = 30;
	cfg->llm.batch_max_requests = 50000;
	cfg->llm.batch_max_bytes = 200000000;
	cfg->llm.json_mode = RAG_JSON_SCHEMA;
	cfg->gen.share[0] = cfg->gen.share[1] = cfg->gen.share[2] = cfg->gen.share[3] = 0.1;
	cfg->cache.mode = RAG_CACHE_RW;
	cfg->cache.dir = xdg_dir("XDG_CACHE_HOME", ".cache", "ragpipe");
	cfg->store.default_url = xdg_dir("XDG_DATA_HOME", ".local/share", "ragpipe/runs.db");
	cfg->lang = rag_xstrdup("auto");
	cfg->verify.max_claims = 20;
	cfg->verify.batch_claims = 20;
	cfg->verify.batch_chars = 24000;
	cfg->verify.recheck_chunks = 0;
	cfg->verify.literal_match = 0;
	cfg->verify.offline_threshold = 0.6;
	cfg->verify.chunk_threshold = 0.5;
	cfg->verify.mode = RAG_VERIFY_BATCHED;
	cfg->verify.verifier_max_tokens = 4;
	cfg->verify.factual_weight = 0.75;
	cfg->verify.similarity_weight = 0.25;
	cfg->gate.min_pass_rate = 1;
	cfg->gate.regression = 0.1;
	cfg->gate.seed = 1;
	cfg->gate.resamples = 2000;
	cfg->gate.confidence = 0.95;
	cfg->gate.worst = 10;
	cfg->embeddings.model = rag_xstrdup("text-embedding-3-small");
	cfg->embeddings.batch_size = 64;
	cfg->kw.threshold = 0.3;
	cfg->collect.timeout = 60;
	cfg->collect.retries = -1;        /* -1: llm.retries; and llm's concurrency and rate when unset */
	cfg->collect.rpm = -1;
	cfg->collect.cache = RAG_CACHE_OFF;
	/* --estimate's stand-ins for answers not collected yet: a paragraph, and five chunks of
	 * about 250 tokens (collect.expected_*) */
	cfg->collect.expected_answer_chars = 400;
	cfg->collect.expected_contexts = 5;
	cfg->collect.expected_context_chars = 1000;
	cfg->stream.max_memory = 16 << 20;   /* RAG_STREAM_BUDGET */
	cfg->prices.currency = rag_xstrdup("USD");
}

static void rubric_conf_free(rag_rubric_conf *r)
{
	size_t j;
	free(r->name);
	free(r->criteria);
	rag_strv_free(&r->steps);
	rag_strv_free(&r->fields);
	for (j = 0; j < r->nscores; j++) {
		free(r->scores[j].key);
		free(r->scores[j].value);
	}
	free(r->scores);
	memset(r, 0, sizeof *r);
}

RAG_UNITTEST int rag_config_scale_parse(const char *s)
{
	if (!s) return -1;
	if (!strcmp(s, "0-10")) return RAG_SCALE_0_10;
	if (!strcmp(s, "1-5")) return RAG_SCALE_1_5;
	if (!strcmp(s, "yes/no")) return RAG_SCALE_YESNO;
	return -1;
}

const char *rag_config_scale_name(int scale)
{
	switch (scale) {
	case RAG_SCALE_1_5: return "1-5";
	case RAG_SCALE_YESNO: return "yes/no";
	default: return "0-10";
	}
}

/* From the table, so that a new row cannot be forgotten here. */
static void cat_kd_free(rag_cat_kd *c, size_t n)
{
	size_t j;
	for (j = 0; j < n; j++) {
		free(c[j].category);
		free(c[j].metric);
	}
	free(c);
}

void rag_config_free(rag_config *cfg)
{
	size_t i, j;
	for (i = 0; i < NKEYS; i++) {
		void *field = (char *)cfg + keys[i].off;
		char **str = field;
		switch (keys[i].type) {
		case T_SECRET:
		case T_STR:
		case T_PATH:
		case T_ENUM:
			free(*str);
			break;
		case T_FILES:
		case T_SECRETS:
		case T_SCALARS:
		case T_TEXTS: {
			rag_kv *kv = *(rag_kv **)field;
			size_t n = *(size_t *)((char *)cfg + keys[i].aux);
			for (j = 0; j < n; j++) {
				free(kv[j].key);
				free(kv[j].value);
			}
			free(kv);
			break;
		}
		case T_STRS:
			rag_strv_free(field);
			break;
		case T_NUMS: {
			rag_kd *kd = *(rag_kd **)field;
			size_t n = *(size_t *)((char *)cfg + keys[i].aux);
			for (j = 0; j < n; j++) free(kd[j].key);
			free(kd);
			break;
		}
		case T_PRICES: {
			rag_price *pr = *(rag_price **)field;
			size_t n = *(size_t *)((char *)cfg + keys[i].aux);
			for (j = 0; j < n; j++) free(pr[j].model);
			free(pr);
			break;
		}
		case T_CATNUMS:
			cat_kd_free(*(rag_cat_kd **)field, *(size_t *)((char *)cfg + keys[i].aux));
			cat_kd_free(cfg->gate.by_category_mean, cfg->gate.nby_category_mean);   /* load_catnums' too */
			break;
		case T_RUBRICS: {
			rag_rubric_conf *r = *(rag_rubric_conf **)field;
			size_t n = *(size_t *)((char *)cfg + keys[i].aux);
			for (j = 0; j < n; j++) rubric_conf_free(&r[j]);
			free(r);
			break;
		}
		default:
			break;
		}
	}
	free(cfg->path);
	free(cfg->store.default_url);
	memset(cfg, 0, sizeof *cfg);
}

static const struct key *find_key(const char *section, const char *name)
{
	size_t i;
	for (i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].section, section) && !strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

/* A section exists when some row lives in it or below it. */
static int is_section(const char *path)
{
	size_t i, n = strlen(path);
	for (i = 0; i < NKEYS; i++)
		if (!strncmp(keys[i].section, path, n) &&
		    (keys[i].section[n] == 0 || keys[i].section[n] == '.'))
			return 1;
	return 0;
}

/* Edit distance, for "did you mean": typos in key names are the commonest config mistake. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur[64];
	if (la >= 63 || lb >= 63) return (size_t)-1;
	for (j = 0; j <= lb; j++) cur[j] = j;
	for (i = 1; i <= la; i++) {
		prev = cur[0];
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]), t = cur[j];
			if (cur[j] + 1 < best) best = cur[j] + 1;
			if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
			prev = t;
			cur[j] = best;
		}
	}
	return cur[lb];
}

/* The closest key or subsection name of a section, when close enough to be a likely typo. */
static int suggest(const char *section, const char *name, char *out, size_t outlen)
{
	size_t bestd = 3, i, n = strlen(section);
	int found = 0;
	for (i = 0; i < NKEYS; i++) {
		const char *s = keys[i].section;
		char cand[64];
		size_t d;
		if (!strcmp(s, section))
			snprintf(cand, sizeof cand, "%s", keys[i].name);
		else if (n == 0 && s[0])
			snprintf(cand, sizeof cand, "%.*s", (int)strcspn(s, "."), s);
		else if (n && !strncmp(s, section, n) && s[n] == '.')
			snprintf(cand, sizeof cand, "%.*s", (int)strcspn(s + n + 1, "."), s + n + 1);
		else
			continue;
		if (!strcmp(cand, "*")) continue;
		d = distance(name, cand);
		if (d < bestd && d < strlen(name)) {
			bestd = d;
			snprintf(out, outlen, "%s", cand);
			found = 1;
		}
	}
	return found;
}

/* An echo of a bad value for a message: one line, bounded. */
static const char *clip(const char *s, char *buf, size_t buflen)
{
	size_t i, max = buflen - 4;
	for (i = 0; i < max && s[i]; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	if (s[i]) memcpy(buf + i, "...", 3), i += 3;
	buf[i] = 0;
	return buf;
}

static void choices_msg(const struct key *k, const char *text, char *msg, size_t msglen)
{
	char list[128] = "", echo[72];
	size_t i, n = 0;
	for (i = 0; k->choices[i] && n < sizeof list; i++)
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", k->choices[i]);
	snprintf(msg, msglen, "\"%s\" must be one of %s, not \"%s\"", k->name, list,
	         clip(text, echo, sizeof echo));
}

/* Base 10 only, whole string: "1.5", "8 ", "0x10" and "1e3" are not integers to a person
 * reading the file, whatever strtol would make of them. 1 when out of range for long. */
static int parse_long(const char *s, long *v)
{
	const char *p = s + (*s == '+' || *s == '-');
	char *end;
	if (*p < '0' || *p > '9') return -1;
	errno = 0;
	*v = strtol(s, &end, 10);
	if (*end) return -1;
	return errno == ERANGE;
}

/* strtod also takes "inf", "nan", hex floats and leading blanks; a config value should not. */
static int parse_double(const char *s, double *v)
{
	char *end;
	if (!*s || strspn(s, "0123456789+-.eE") != strlen(s) || !strpbrk(s, "0123456789")) return -1;
	*v = strtod(s, &end);
	return *end || !isfinite(*v) ? -1 : 0;
}

/* YAML 1.1's boolean words, which is what people write in config files. */
static int parse_bool(const char *s)
{
	static const char *const yes[] = { "true", "yes", "on" }, *const no[] = { "false", "no", "off" };
	size_t i;
	for (i = 0; i < 3; i++) {
		if (!strcasecmp(s, yes[i])) return 1;
		if (!strcasecmp(s, no[i])) return 0;
	}
	return -1;
}

jv rag_config_scalar(const char *s)
{
	double d;
	int b;
	if (parse_double(s, &d) == 0) return jv_number(d);
	if ((b = parse_bool(s)) >= 0) return jv_bool(b);
	return jv_string(s);
}

static void range_msg(const struct key *k, double v, const char *text, char *msg, size_t msglen)
{
	char echo[72];
	clip(text, echo, sizeof echo);
	if (k->hi < INT_MAX)
		snprintf(msg, msglen, "\"%s\" must be between %g and %g, not \"%s\"", k->name, k->lo, k->hi, echo);
	else if (v > k->hi)
		snprintf(msg, msglen, "\"%s\" is too large: \"%s\"", k->name, echo);
	else
		snprintf(msg, msglen, "\"%s\" must be %s %g, not \"%s\"", k->name,
		         k->lo_open ? "greater than" : "at least", k->lo, echo);
}

/* "~/x" from $HOME; a relative path from the directory of the file that names it, so a project's
 * rag.yaml can point at files next to it wherever the tool is run from. */
static char *resolve_path(const char *name, const char *text, const char *basedir,
                          char *msg, size_t msglen)
{
	const char *home;
	if (!*text) {
		snprintf(msg, msglen, "\"%s\" must not be empty", name);
		return NULL;
	}
	if (text[0] == '~' && (text[1] == 0 || text[1] == '/')) {
		home = getenv("HOME");
		if (!home || !*home) {
			snprintf(msg, msglen, "cannot expand \"~\" in \"%s\": HOME is not set", name);
			return NULL;
		}
		return rag_xasprintf("%s%s", home, text + 1);
	}
	if (text[0] != '/' && basedir) return rag_xasprintf("%s/%s", basedir, text);
	return rag_xstrdup(text);
}

static void replace(char **field, char *value)
{
	free(*field);
	*field = value;
}

/* Store text, the value of key name, into the field of row k; msg says why not. */
static int set_field(rag_config *cfg, const struct key *k, const char *name, const char *text,
                     const char *basedir, char *msg, size_t msglen)
{
	void *field = (char *)cfg + k->off;
	char echo[72], *s;
	long l;
	double d;
	int r;
	size_t i;

	switch (k->type) {
	case T_STR:
	case T_SECRET:
		replace(field, rag_xstrdup(text));
		return 0;
	case T_PATH:
		if (!(s = resolve_path(name, text, basedir, msg, msglen))) return -1;
		replace(field, s);
		return 0;
	case T_ENUM:
		for (i = 0; k->choices[i] && strcmp(k->choices[i], text); i++)
			;
		if (!k->choices[i]) break;
		replace(field, rag_xstrdup(text));
		return 0;
	case T_MODE:
		if ((r = rag_config_cache_mode_parse(text)) < 0) break;
		*(int *)field = r;
		return 0;
	case T_CHOICE:
		for (i = 0; k->choices[i] && strcmp(k->choices[i], text); i++)
			;
		if (!k->choices[i]) break;
		*(int *)field = (int)i;
		return 0;
	case T_INT:
	case T_LONG:
		if ((r = parse_long(text, &l)) < 0) {
			snprintf(msg, msglen, "\"%s\" must be an integer, not \"%s\"", name,
			         clip(text, echo, sizeof echo));
			return -1;
		}
		if (r > 0) {
			snprintf(msg, msglen, "\"%s\" is out of range: \"%s\"", name, clip(text, echo, sizeof echo));
			return -1;
		}
		if (l < k->lo || l > k->hi) {
			range_msg(k, (double)l, text, msg, msglen);
			return -1;
		}
		if (k->type == T_INT) {
			*(int *)field = (int)l;
		} else {
			*(long *)field = l;
			*(int *)((char *)cfg + k->aux) = 1;
		}
		return 0;
	case T_DOUBLE:
		for (i = 0; k->choices && k->choices[i] && strcmp(k->choices[i], text); i++)
			;
		if (k->choices && k->choices[i]) {
			*(double *)field = NAN;   /* its word: no value (llm.temperature: omit, not sent) */
			return 0;
		}
		if (parse_double(text, &d) < 0) {
			snprintf(msg, msglen, "\"%s\" must be a number, not \"%s\"", name,
			         clip(text, echo, sizeof echo));
			return -1;
		}
		if (d < k->lo || (k->lo_open && d == k->lo) || d > k->hi) {
			range_msg(k, d, text, msg, msglen);
			return -1;
		}
		*(double *)field = d;
		return 0;
	case T_BOOL:
		if ((r = parse_bool(text)) < 0) {
			snprintf(msg, msglen, "\"%s\" must be true or false, not \"%s\"", name,
			         clip(text, echo, sizeof echo));
			return -1;
		}
		*(int *)field = r;
		return 0;
	case T_JSON:
		/* the key was a boolean once: true still means a JSON object, false none */
		for (i = 0; k->choices[i] && strcmp(k->choices[i], text); i++)
			;
		if (k->choices[i]) r = (int)i;
		else if ((r = parse_bool(text)) >= 0) r = r ? RAG_JSON_OBJECT : RAG_JSON_OFF;
		else {
			snprintf(msg, msglen, "\"%s\" must be schema, object or off (or true or false), not \"%s\"",
			         name, clip(text, echo, sizeof echo));
			return -1;
		}
		*(int *)field = r;
		return 0;
	case T_FILES: {
		rag_kv **kv = field;
		size_t *n = (size_t *)((char *)cfg + k->aux);
		if (!(s = resolve_path(name, text, basedir, msg, msglen))) return -1;
		*kv = rag_xrealloc(*kv, (*n + 1) * sizeof **kv);
		(*kv)[*n].key = rag_xstrdup(name);
		(*kv)[*n].value = s;
		++*n;
		return 0;
	}
	case T_STRS:
		rag_strv_push(field, rag_xstrdup(text));
		return 0;
	case T_RUBRICS:
	case T_PRICES:
	case T_CATNUMS:
		snprintf(msg, msglen, "\"%s\" must be a mapping", name);   /* load_rubric, load_price... read them */
		return -1;
	case T_SECRETS:
	case T_SCALARS:
	case T_TEXTS: {
		rag_kv **kv = field;
		size_t *n = (size_t *)((char *)cfg + k->aux);
		*kv = rag_xrealloc(*kv, (*n + 1) * sizeof **kv);
		(*kv)[*n].key = rag_xstrdup(name);
		(*kv)[*n].value = rag_xstrdup(text);
		++*n;
		return 0;
	}
	case T_NUMS: {
		rag_kd **kd = field;
		size_t *n = (size_t *)((char *)cfg + k->aux);
		if (parse_double(text, &d) < 0) {
			snprintf(msg, msglen, "\"%s\" must be a number, not \"%s\"", name,
			         clip(text, echo, sizeof echo));
			return -1;
		}
		if (d < k->lo || d > k->hi) {
			snprintf(msg, msglen, "\"%s\" must be between %g and %g, not \"%s\"", name, k->lo, k->hi,
			         clip(text, echo, sizeof echo));
			return -1;
		}
		*kd = rag_xrealloc(*kd, (*n + 1) * sizeof **kd);
		(*kd)[*n].key = rag_xstrdup(name);
		(*kd)[*n].value = d;
		++*n;
		return 0;
	}
	}
	choices_msg(k, text, msg, msglen);
	return -1;
}

static int var_start(char c) { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static int var_char(char c) { return var_start(c) || (c >= '0' && c <= '9'); }

/* ${VAR} from the environment; "$$" is a literal "$" (so "$${X}" stays "${X}"); any other "$"
 * is kept as written. An unset variable is an error rather than an empty string: a silently
 * empty base URL or model is harder to diagnose than the name of the missing variable. */
static char *expand(const char *s, const struct key *k, const char *name, char *msg, size_t msglen)
{
	rag_buf b = {0};
	const char *p = s, *d, *end;
	char var[128];
	size_t n, i;

	while ((d = strchr(p, '$'))) {
		rag_buf_add(&b, p, (size_t)(d - p));
		if (d[1] != '{') {
			rag_buf_add(&b, "$", 1);
			p = d + 1 + (d[1] == '$');
			continue;
		}
		if (!(end = strchr(d + 2, '}'))) {
			snprintf(msg, msglen, "unterminated \"${\" in \"%s\"", name);
			goto fail;
		}
		n = (size_t)(end - d - 2);
		for (i = 0; i < n && (i ? var_char(d[2 + i]) : var_start(d[2 + i])); i++)
			;
		if (!n || i < n || n >= sizeof var) {
			/* the text between the braces might be the secret itself, pasted in by mistake */
			if (k->type == T_SECRET || k->type == T_SECRETS)
				snprintf(msg, msglen, "bad variable name in \"${...}\" in \"%s\"", name);
			else
				snprintf(msg, msglen, "bad variable name \"${%.*s}\" in \"%s\"",
				         n > 40 ? 40 : (int)n, d + 2, name);
			goto fail;
		}
		memcpy(var, d + 2, n);
		var[n] = 0;
		if (!getenv(var)) {
			/* Conventional variable names are upper case; anything else in an api_key's braces
			 * may be the key itself, which must not reach a message. */
			if ((k->type == T_SECRET || k->type == T_SECRETS) && strspn(var, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n)
				snprintf(msg, msglen, "an environment variable named in \"%s\" is not set", name);
			else
				snprintf(msg, msglen, "environment variable \"%s\" is not set (used in \"%s\")",
				         var, name);
			goto fail;
		}
		rag_buf_adds(&b, getenv(var));
		p = end + 1;
	}
	rag_buf_adds(&b, p);
	return b.p;
fail:
	rag_buf_free(&b);
	return NULL;
}

/* YAML's spellings of null: an empty value leaves the default in place, as if the key were
 * absent, so a template with blank values is a valid file. Quoted "" is an empty string. */
static int is_null(const yaml_node_t *n)
{
	const char *v;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

static const char *kind_name(const yaml_node_t *n)
{
	return n->type == YAML_MAPPING_NODE ? "a mapping" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a scalar";
}

static const char *type_noun(enum type t)
{
	switch (t) {
	case T_INT: case T_LONG: return "an integer";
	case T_DOUBLE: case T_NUMS: return "a number";
	case T_BOOL: return "true or false";
	case T_STRS: return "a list of strings";
	default: return "a string";
	}
}

/* A list of strings (kw.must_contain...): each item a scalar, ${VAR} expanded; a single scalar
 * is a list of one. */
static int load_strs(struct loader *L, const struct key *k, const char *name, yaml_node_t *v, rag_strv *list)
{
	char msg[RAG_ERRLEN], *text;
	yaml_node_item_t *it;

	rag_strv_free(list);
	if (v->type == YAML_SCALAR_NODE) {
		if (!(text = expand((const char *)v->data.scalar.value, k, name, msg, sizeof msg)))
			return fail_at(L, v->start_mark, msg);
		rag_strv_push(list, text);
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		snprintf(msg, sizeof msg, "\"%s\" must be a list of strings, not %s", name, kind_name(v));
		return fail_at(L, v->start_mark, msg);
	}
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_document_get_node(L->doc, *it);
		if (!e || e->type != YAML_SCALAR_NODE) {
			snprintf(msg, sizeof msg, "\"%s\" must be a list of strings, not a list of %s", name,
			         e && e->type == YAML_MAPPING_NODE ? "mappings" : "lists");
			return fail_at(L, e ? e->start_mark : v->start_mark, msg);
		}
		if (!(text = expand((const char *)e->data.scalar.value, k, name, msg, sizeof msg)))
			return fail_at(L, e->start_mark, msg);
		rag_strv_push(list, text);
	}
	return 0;
}

static int load_list(struct loader *L, const struct key *k, const char *name, yaml_node_t *v)
{
	return load_strs(L, k, name, v, (rag_strv *)((char *)L->cfg + k->off));
}

/* One scalar of a rubric, ${VAR} expanded: malloc'ed, or NULL after the message. */
static char *rubric_scalar(struct loader *L, const struct key *k, const char *rubric, const char *key,
                           yaml_node_t *v)
{
	char msg[RAG_ERRLEN], *text;
	if (v->type != YAML_SCALAR_NODE) {
		snprintf(msg, sizeof msg, "\"%s\" of rubric \"%s\" must be a single value, not %s", key, rubric,
		         kind_name(v));
		fail_at(L, v->start_mark, msg);
		return NULL;
	}
	if (!(text = expand((const char *)v->data.scalar.value, k, key, msg, sizeof msg))) fail_at(L, v->start_mark, msg);
	return text;
}

/* 1 when s is a score of the scale: an integer in its range, or yes / no. */
static int scale_has(int scale, const char *s)
{
	long l;
	if (scale == RAG_SCALE_YESNO) return !strcmp(s, "yes") || !strcmp(s, "no");
	if (parse_long(s, &l) != 0) return 0;
	return scale == RAG_SCALE_1_5 ? l >= 1 && l <= 5 : l >= 0 && l <= 10;
}

/* a price as the configuration shows it; cached_input only where it was given */
static jv price_json(const rag_price *p)
{
	jv o = JV_OBJECT(jv_string("input"), isnan(p->input) ? jv_null() : jv_number(p->input),
	                 jv_string("output"), isnan(p->output) ? jv_null() : jv_number(p->output));
	if (!isnan(p->cached_input)) o = jv_object_set(o, jv_string("cached_input"), jv_number(p->cached_input));
	if (!isnan(p->batch_input)) o = jv_object_set(o, jv_string("batch_input"), jv_number(p->batch_input));
	if (!isnan(p->batch_output)) o = jv_object_set(o, jv_string("batch_output"), jv_number(p->batch_output));
	if (!isnan(p->batch_discount)) o = jv_object_set(o, jv_string("batch_discount"), jv_number(p->batch_discount));
	return o;
}

/* prices.<model>: {input: N, output: N, cached_input: N}, each a number of at least 0 (per million tokens); one
 * left out stays unknown (NAN). The same model written twice is refused like a duplicate key. */
static int load_price(struct loader *L, const struct key *k, const char *name, yaml_node_t *v)
{
	rag_price **list = (rag_price **)((char *)L->cfg + k->off);
	size_t *n = (size_t *)((char *)L->cfg + k->aux), i;
	rag_price pr;
	yaml_node_pair_t *pair;
	char msg[RAG_ERRLEN], echo[72];

	clip(name, echo, sizeof echo);
	if (v->type != YAML_MAPPING_NODE) {
		snprintf(msg, sizeof msg, "price of \"%s\" must be a mapping (input, output), not %s", echo,
		         is_null(v) ? "empty" : kind_name(v));
		return fail_at(L, v->start_mark, msg);
	}
	pr.model = NULL;
	pr.input = pr.output = pr.cached_input = pr.batch_input = pr.batch_output = pr.batch_discount = NAN;
	for (pair = v->data.mapping.pairs.start; pair < v->data.mapping.pairs.top; pair++) {
		yaml_node_t *kn = yaml_document_get_node(L->doc, pair->key);
		yaml_node_t *vn = yaml_document_get_node(L->doc, pair->value);
		const char *key;
		double d, *to;
		if (kn->type != YAML_SCALAR_NODE)
			return fail_at(L, kn->start_mark, "keys must be plain names, not a mapping or a list");
		key = (const char *)kn->data.scalar.value;
		if (!strcmp(key, "input")) to = &pr.input;
		else if (!strcmp(key, "output")) to = &pr.output;
		else if (!strcmp(key, "cached_input")) to = &pr.cached_input;
		else if (!strcmp(key, "batch_input")) to = &pr.batch_input;
		else if (!strcmp(key, "batch_output")) to = &pr.batch_output;
		else if (!strcmp(key, "batch_discount")) to = &pr.batch_discount;
		else {
			snprintf(msg, sizeof msg, "unknown key \"%.60s\" in the price of \"%s\" (input, output, cached_input, "
			         "batch_input, batch_output, batch_discount)", key, echo);
			return fail_at(L, kn->start_mark, msg);
		}
		if (is_null(vn)) continue;   /* a placeholder left blank: unknown */
		if (vn->type != YAML_SCALAR_NODE || parse_double((const char *)vn->data.scalar.value, &d) < 0 ||
		    !(d >= 0) || isinf(d)) {
			snprintf(msg, sizeof msg, "\"%s\" of the price of \"%s\" must be a number of at least 0 "
			         "(per million tokens)", key, echo);
			return fail_at(L, vn->start_mark, msg);
		}
		if (to == &pr.batch_discount && d > 1) {
			snprintf(msg, sizeof msg, "\"batch_discount\" of the price of \"%s\" is the share taken off, "
			         "from 0 to 1 (0.5: half price)", echo);
			return fail_at(L, vn->start_mark, msg);
		}
		*to = d;
	}
	for (i = 0; i < *n; i++)
		if (!strcmp((*list)[i].model, name)) {
			snprintf(msg, sizeof msg, "duplicate price for \"%s\"", echo);
			return fail_at(L, v->start_mark, msg);
		}
	pr.model = rag_xstrdup(name);
	*list = rag_xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[(*n)++] = pr;
	return 0;
}

/* The scores other tools write: a rubric of one of these names would write its score over that
 * metric's (scores.NAME, and gate.record.NAME would gate both) without a word, so it is refused.
 * rag-kw's ROUGE and token_f1 also write NAME_precision and NAME_recall (--precision-recall).
 * tests/t/72-judge.t holds this list to the tools' option tables. NULL when name is free. */
RAG_UNITTEST const char *rag_config_metric_tool(const char *name)
{
	/* the metric tools of one operation: their .tool and .metric, from the operation registry
	 * made of the library's sources (mk/ops.sh), so that a new one needs no row here */
	static const struct { const char *tool, *metric; } ops[] = {
#define RAG_OP(op)
#define RAG_OP_TOOL(op, tool, metric, k, doc) {tool, metric},
#include "ops.inc"
#undef RAG_OP
#undef RAG_OP_TOOL
		{NULL, NULL}
	};
	static const struct { const char *name, *tool; int halves; } taken[] = {
		{"faithfulness", "rag-verify", 0}, {"context_recall", "rag-verify", 0},
		{"context_precision", "rag-verify and rag-ap", 0}, {"context_utilization", "rag-verify", 0},
		{"answer_correctness", "rag-verify", 0},
		{"answer_relevancy", "rag-embsim", 0}, {"semantic_similarity", "rag-embsim", 0},
		{"average_precision", "rag-ap", 0}, {"precision", "rag-ap", 0}, {"recall", "rag-ap", 0},
		{"hit", "rag-ap", 0}, {"mrr", "rag-ap", 0}, {"ndcg", "rag-ap", 0}, {"r_precision", "rag-ap", 0},
		{"keyword_overlap", "rag-kw", 0}, {"token_f1", "rag-kw", 1}, {"exact_match", "rag-kw", 0},
		{"contains", "rag-kw", 0}, {"contains_all", "rag-kw", 0}, {"regex", "rag-kw", 0},
		{"levenshtein", "rag-kw", 0}, {"rouge1", "rag-kw", 1}, {"rouge2", "rag-kw", 1}, {"rougeL", "rag-kw", 1},
		{"rougeLsum", "rag-kw", 1}, {"bleu", "rag-kw", 0}, {"chrf", "rag-kw", 0}, {"refusal", "rag-kw", 0},
	};
	static const char *const halves[] = {"_precision", "_recall"};
	size_t i, k, n;
	for (i = 0; ops[i].metric; i++)
		if (!strcmp(name, ops[i].metric)) return ops[i].tool;
	for (i = 0; i < sizeof taken / sizeof taken[0]; i++) {
		n = strlen(taken[i].name);
		if (strncmp(name, taken[i].name, n)) continue;
		if (!name[n]) return taken[i].tool;
		for (k = 0; taken[i].halves && k < 2; k++)
			if (!strcmp(name + n, halves[k])) return taken[i].tool;
	}
	return NULL;
}

/* One "metric: threshold in [lo, hi]" of gate.by_category's category name (kn, vn) into *list
 * (*n triples); what: "" for the per-record thresholds, "'s mean" for the means. A metric
 * written twice is a duplicate key. */
static int add_catnum(struct loader *L, const struct key *k, const char *name, yaml_node_t *kn, yaml_node_t *vn,
                      rag_cat_kd **list, size_t *n, const char *what)
{
	char msg[RAG_ERRLEN], echo[72];
	const char *metric;
	double d;
	size_t i;

	clip(name, echo, sizeof echo);
	if (kn->type != YAML_SCALAR_NODE)
		return fail_at(L, kn->start_mark, "keys must be plain names, not a mapping or a list");
	metric = (const char *)kn->data.scalar.value;
	if (vn->type != YAML_SCALAR_NODE || parse_double((const char *)vn->data.scalar.value, &d) < 0 ||
	    d < k->lo || d > k->hi) {
		snprintf(msg, sizeof msg, "\"%.60s\" of category \"%s\"%s must be a number between %g and %g", metric,
		         echo, what, k->lo, k->hi);
		return fail_at(L, vn->start_mark, msg);
	}
	for (i = 0; i < *n; i++)
		if (!strcmp((*list)[i].category, name) && !strcmp((*list)[i].metric, metric)) {
			snprintf(msg, sizeof msg, "duplicate key \"%.60s\" in category \"%s\"%s", metric, echo, what);
			return fail_at(L, kn->start_mark, msg);
		}
	*list = rag_xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[*n].category = rag_xstrdup(name);
	(*list)[*n].metric = rag_xstrdup(metric);
	(*list)[(*n)++].value = d;
	return 0;
}

/* gate.by_category.<category>: {metric: threshold in [lo, hi]}, the per-record thresholds of
 * that category's records (rag-config(5)); or {mean: {metric: threshold}, record: {metric:
 * threshold}}, its means' thresholds and its records' (the per-record ones may also stand beside
 * mean: as before). mean and record are read so only when they hold a mapping: a metric of that
 * name has a number. The means go to gate.by_category_mean, the one other list this loader
 * fills. */
static int load_catnums(struct loader *L, const struct key *k, const char *name, yaml_node_t *v)
{
	rag_cat_kd **list = (rag_cat_kd **)((char *)L->cfg + k->off);
	size_t *n = (size_t *)((char *)L->cfg + k->aux);
	yaml_node_pair_t *pair, *q;
	char msg[RAG_ERRLEN], echo[72];

	clip(name, echo, sizeof echo);
	if (v->type != YAML_MAPPING_NODE) {
		snprintf(msg, sizeof msg, "the thresholds of category \"%s\" must be a mapping (metric: minimum, or "
		         "mean: and record: mappings), not %s", echo, is_null(v) ? "empty" : kind_name(v));
		return fail_at(L, v->start_mark, msg);
	}
	for (pair = v->data.mapping.pairs.start; pair < v->data.mapping.pairs.top; pair++) {
		yaml_node_t *kn = yaml_document_get_node(L->doc, pair->key);
		yaml_node_t *vn = yaml_document_get_node(L->doc, pair->value);
		const char *key = kn->type == YAML_SCALAR_NODE ? (const char *)kn->data.scalar.value : "";
		int mean = !strcmp(key, "mean");
		if (vn->type != YAML_MAPPING_NODE || (!mean && strcmp(key, "record"))) {
			if (add_catnum(L, k, name, kn, vn, list, n, "") < 0) return -1;
			continue;
		}
		for (q = vn->data.mapping.pairs.start; q < vn->data.mapping.pairs.top; q++)
			if (add_catnum(L, k, name, yaml_document_get_node(L->doc, q->key), yaml_document_get_node(L->doc, q->value),
			               mean ? &L->cfg->gate.by_category_mean : list,
			               mean ? &L->cfg->gate.nby_category_mean : n, mean ? "'s mean" : "") < 0)
				return -1;
	}
	return 0;
}

/* rubrics.<name>: a mapping of criteria, scale, steps, fields and scores (rag-config(5)). */
static int load_rubric(struct loader *L, const struct key *k, const char *name, yaml_node_t *key_node,
                       yaml_node_t *v)
{
	static const char *const known[] = {"criteria", "scale", "steps", "fields", "scores"};
	rag_rubric_conf **list = (rag_rubric_conf **)((char *)L->cfg + k->off);
	size_t *n = (size_t *)((char *)L->cfg + k->aux), i;
	rag_rubric_conf r;
	yaml_node_pair_t *pair, *q;
	yaml_mark_t *marks = NULL;          /* where each score was written */
	char msg[RAG_ERRLEN], echo[72];
	const char *p;

	clip(name, echo, sizeof echo);
	for (p = name; *p && (isalnum((unsigned char)*p) || *p == '_' || *p == '-'); p++)
		;
	if (!*name || *p || strlen(name) > 64) {
		snprintf(msg, sizeof msg, "rubric name \"%s\" must be 1-64 letters, digits, \"_\" or \"-\"", echo);
		return fail_at(L, key_node->start_mark, msg);
	}
	if ((p = rag_config_metric_tool(name))) {
		snprintf(msg, sizeof msg, "rubric name \"%s\" is taken: %s writes scores.%s, which the rubric's score "
		         "would overwrite; give the rubric another name", name, p, name);
		return fail_at(L, key_node->start_mark, msg);
	}
	if (v->type != YAML_MAPPING_NODE) {
		snprintf(msg, sizeof msg, "rubric \"%s\" must be a mapping (criteria, scale, steps, fields, scores), "
		         "not %s", echo, is_null(v) ? "empty" : kind_name(v));
		return fail_at(L, v->start_mark, msg);
	}
	memset(&r, 0, sizeof r);
	r.name = rag_xstrdup(name);
	for (pair = v->data.mapping.pairs.start; pair < v->data.mapping.pairs.top; pair++) {
		yaml_node_t *kn = yaml_document_get_node(L->doc, pair->key);
		yaml_node_t *vn = yaml_document_get_node(L->doc, pair->value);
		const char *key;
		char *text;
		size_t best = 3, d;
		const char *hint = NULL;
		if (kn->type != YAML_SCALAR_NODE) {
			fail_at(L, kn->start_mark, "keys must be plain names, not a mapping or a list");
			goto fail;
		}
		key = (const char *)kn->data.scalar.value;
		for (q = v->data.mapping.pairs.start; q < pair; q++) {
			yaml_node_t *o = yaml_document_get_node(L->doc, q->key);
			if (o->type == YAML_SCALAR_NODE && !strcmp((const char *)o->data.scalar.value, key)) {
				snprintf(msg, sizeof msg, "duplicate key \"%s\" in rubric \"%s\"", clip(key, echo, sizeof echo), name);
				fail_at(L, kn->start_mark, msg);
				goto fail;
			}
		}
		if (is_null(vn)) continue;
		if (!strcmp(key, "criteria")) {
			if (!(text = rubric_scalar(L, k, name, key, vn))) goto fail;
			replace(&r.criteria, text);
		} else if (!strcmp(key, "scale")) {
			int sc;
			if (!(text = rubric_scalar(L, k, name, key, vn))) goto fail;
			sc = rag_config_scale_parse(text);
			if (sc < 0) {
				snprintf(msg, sizeof msg, "\"scale\" of rubric \"%s\" must be one of 0-10, 1-5, yes/no, not \"%s\"",
				         name, clip(text, echo, sizeof echo));
				free(text);
				fail_at(L, vn->start_mark, msg);
				goto fail;
			}
			free(text);
			r.scale = sc;
		} else if (!strcmp(key, "steps") || !strcmp(key, "fields")) {
			rag_strv *sv = key[0] == 's' ? &r.steps : &r.fields;
			rag_strv_free(sv);
			if (load_strs(L, k, key, vn, sv) < 0) goto fail;
			for (i = 0; i < sv->n; i++) {
				if (!*sv->v[i]) {
					snprintf(msg, sizeof msg, "\"%s\" of rubric \"%s\" holds an empty string", key, name);
					fail_at(L, vn->start_mark, msg);
					goto fail;
				}
			}
		} else if (!strcmp(key, "scores")) {
			yaml_node_pair_t *sp;
			if (vn->type != YAML_MAPPING_NODE) {
				snprintf(msg, sizeof msg, "\"scores\" of rubric \"%s\" must be a mapping of score to "
				         "description, not %s", name, kind_name(vn));
				fail_at(L, vn->start_mark, msg);
				goto fail;
			}
			for (sp = vn->data.mapping.pairs.start; sp < vn->data.mapping.pairs.top; sp++) {
				yaml_node_t *sk = yaml_document_get_node(L->doc, sp->key);
				yaml_node_t *sv = yaml_document_get_node(L->doc, sp->value);
				char *desc;
				if (sk->type != YAML_SCALAR_NODE) {
					fail_at(L, sk->start_mark, "a score must be a plain value, not a mapping or a list");
					goto fail;
				}
				if (!(desc = rubric_scalar(L, k, name, (const char *)sk->data.scalar.value, sv))) goto fail;
				r.scores = rag_xrealloc(r.scores, (r.nscores + 1) * sizeof *r.scores);
				marks = rag_xrealloc(marks, (r.nscores + 1) * sizeof *marks);
				r.scores[r.nscores].key = rag_xstrdup((const char *)sk->data.scalar.value);
				r.scores[r.nscores].value = desc;
				marks[r.nscores++] = sk->start_mark;
			}
		} else {
			for (i = 0; i < sizeof known / sizeof known[0]; i++) {
				if ((d = distance(key, known[i])) < best && d < strlen(key)) {
					best = d;
					hint = known[i];
				}
			}
			clip(key, echo, sizeof echo);
			if (hint)
				snprintf(msg, sizeof msg, "unknown key \"%s\" in rubric \"%s\" (did you mean \"%s\"?)", echo, name, hint);
			else
				snprintf(msg, sizeof msg, "unknown key \"%s\" in rubric \"%s\" (known: criteria, scale, steps, "
				         "fields, scores)", echo, name);
			fail_at(L, kn->start_mark, msg);
			goto fail;
		}
	}
	if (!r.criteria || !*r.criteria) {
		snprintf(msg, sizeof msg, "rubric \"%s\" has no \"criteria\": say what the judge is to assess", name);
		fail_at(L, key_node->start_mark, msg);
		goto fail;
	}
	/* checked once the whole mapping is read: the scale may come after the scores */
	for (i = 0; i < r.nscores; i++) {
		if (!scale_has(r.scale, r.scores[i].key)) {
			snprintf(msg, sizeof msg, "score \"%s\" of rubric \"%s\" is not on its scale %s",
			         clip(r.scores[i].key, echo, sizeof echo), name, rag_config_scale_name(r.scale));
			fail_at(L, marks[i], msg);
			goto fail;
		}
	}
	free(marks);
	*list = rag_xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[(*n)++] = r;
	return 0;
fail:
	free(marks);
	rubric_conf_free(&r);
	return -1;
}

static int load_value(struct loader *L, const struct key *k, const char *name, yaml_node_t *v)
{
	char msg[RAG_ERRLEN], *text;
	int rc;

	if (is_null(v)) return 0;
	if (k->type == T_STRS) return load_list(L, k, name, v);
	if (v->type != YAML_SCALAR_NODE) {
		snprintf(msg, sizeof msg, "\"%s\" must be %s, not %s", name, type_noun(k->type), kind_name(v));
		return fail_at(L, v->start_mark, msg);
	}
	if (!(text = expand((const char *)v->data.scalar.value, k, name, msg, sizeof msg)))
		return fail_at(L, v->start_mark, msg);
	if (k->type == T_SCALARS) {
		/* as written: a quoted value is a string, a plain one a number or boolean when it reads
		 * as one */
		jv j = v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? rag_config_scalar(text) : jv_string(text);
		jv d = jv_dump_string(j, 0);
		free(text);
		text = rag_xstrdup(jv_string_value(d));
		jv_free(d);
	}
	rc = set_field(L->cfg, k, name, text, L->basedir, msg, sizeof msg);
	free(text);
	return rc < 0 ? fail_at(L, v->start_mark, msg) : 0;
}

static int load_map(struct loader *L, yaml_document_t *doc, yaml_node_t *map, const char *section)
{
	yaml_node_pair_t *pair, *q;
	char msg[RAG_ERRLEN], path[256], echo[72], hint[64], in[128];

	if (*section) snprintf(in, sizeof in, " in section \"%s\"", section);
	else snprintf(in, sizeof in, " at the top level");
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *kn = yaml_document_get_node(doc, pair->key);
		yaml_node_t *vn = yaml_document_get_node(doc, pair->value);
		const struct key *k;
		const char *name;

		if (kn->type != YAML_SCALAR_NODE)
			return fail_at(L, kn->start_mark, "keys must be plain names, not a mapping or a list");
		name = (const char *)kn->data.scalar.value;
		clip(name, echo, sizeof echo);
		/* YAML forbids duplicate keys but libyaml does not check; the later one would win
		 * silently, which hides the mistake. */
		for (q = map->data.mapping.pairs.start; q < pair; q++) {
			yaml_node_t *o = yaml_document_get_node(doc, q->key);
			if (o->type == YAML_SCALAR_NODE && !strcmp((const char *)o->data.scalar.value, name)) {
				snprintf(msg, sizeof msg, "duplicate key \"%s\"%s", echo, in);
				return fail_at(L, kn->start_mark, msg);
			}
		}
		if ((k = find_key(section, name))) {
			if (load_value(L, k, name, vn) < 0) return -1;
			continue;
		}
		snprintf(path, sizeof path, "%s%s%s", section, *section ? "." : "", name);
		if (is_section(path)) {
			if (is_null(vn)) continue;
			if (vn->type != YAML_MAPPING_NODE) {
				snprintf(msg, sizeof msg, "\"%s\" must be a mapping, not %s", echo,
				         vn->type == YAML_SEQUENCE_NODE ? "a list" : "a single value");
				return fail_at(L, vn->start_mark, msg);
			}
			if (load_map(L, doc, vn, path) < 0) return -1;
			continue;
		}
		if ((k = find_key(section, "*"))) {
			if (k->type == T_RUBRICS) {
				if (load_rubric(L, k, name, kn, vn) < 0) return -1;
			} else if (k->type == T_PRICES) {
				if (load_price(L, k, name, vn) < 0) return -1;
			} else if (k->type == T_CATNUMS) {
				if (load_catnums(L, k, name, vn) < 0) return -1;
			} else if (load_value(L, k, name, vn) < 0) {
				return -1;
			}
			continue;
		}
		if (suggest(section, name, hint, sizeof hint))
			snprintf(msg, sizeof msg, "unknown key \"%s\"%s (did you mean \"%s\"?)", echo, in, hint);
		else
			snprintf(msg, sizeof msg, "unknown key \"%s\"%s", echo, in);
		return fail_at(L, kn->start_mark, msg);
	}
	return 0;
}

static int yaml_fail(struct loader *L, const yaml_parser_t *p, const char *text, size_t len)
{
	const char *problem = p->problem ? p->problem : "syntax error";
	/* libyaml's words for the commonest YAML mistake do not say what it is */
	const char *hint = p->error == YAML_SCANNER_ERROR && p->problem_mark.index < len &&
	                   text[p->problem_mark.index] == '\t' ? " (tabs cannot indent YAML)" : "";
	if (p->error == YAML_MEMORY_ERROR) {
		rag_seterr(L->err, L->errlen, "%s: out of memory", L->file);
	} else if (p->error == YAML_READER_ERROR) {
		/* invalid UTF-8 or a control character: libyaml knows the byte, not the line */
		rag_seterr(L->err, L->errlen, "%s: %s at byte %zu", L->file, problem, p->problem_offset);
	} else {
		rag_seterr(L->err, L->errlen, "%s:%zu:%zu: %s%s%s%s%s", L->file, p->problem_mark.line + 1,
		       p->problem_mark.column + 1, problem, p->context ? " (" : "",
		       p->context ? p->context : "", p->context ? ")" : "", hint);
	}
	return -1;
}

static int load_file(rag_config *cfg, const char *file, char *err, size_t errlen)
{
	struct loader L = { cfg, file, NULL, err, errlen, NULL };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	const char *slash = strrchr(file, '/');
	size_t len;
	char *text;
	int rc = 0;

	if (!(text = rag_read_file(file, &len, err, errlen))) return -1;
	if (slash) L.basedir = slash == file ? rag_xstrdup("/") : rag_xstrndup(file, (size_t)(slash - file));
	if (!yaml_parser_initialize(&parser)) {
		rag_seterr(err, errlen, "%s: out of memory", file);
		free(text);
		free(L.basedir);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = yaml_fail(&L, &parser, text, len);
		goto out;
	}
	root = yaml_document_get_root_node(&doc);
	if (root && !is_null(root)) {
		if (root->type != YAML_MAPPING_NODE)
			rc = fail_at(&L, root->start_mark, "the top level must be a mapping of keys to values");
		else
			L.doc = &doc, rc = load_map(&L, &doc, root, "");
	}
	yaml_document_delete(&doc);
	if (rc == 0) {
		/* A second "---" document would be ignored by a reader that stops at the first one. */
		if (!yaml_parser_load(&parser, &doc)) {
			rc = yaml_fail(&L, &parser, text, len);
			goto out;
		}
		if ((root = yaml_document_get_root_node(&doc)))
			rc = fail_at(&L, root->start_mark, "a config file holds one YAML document, not several");
		yaml_document_delete(&doc);
	}
out:
	yaml_parser_delete(&parser);
	free(text);
	free(L.basedir);
	if (rc == 0) replace(&cfg->path, rag_xstrdup(file));
	return rc;
}

static int apply_env(rag_config *cfg, char *err, size_t errlen)
{
	char msg[RAG_ERRLEN];
	size_t i;
	for (i = 0; i < sizeof env_keys / sizeof env_keys[0]; i++) {
		const char *v = getenv(env_keys[i].var);
		const struct key *k = find_key(env_keys[i].section, env_keys[i].name);
		/* an empty variable is how a shell user unsets one for a single command */
		if (!v || !*v) continue;
		if (set_field(cfg, k, k->name, v, NULL, msg, sizeof msg) < 0) {
			rag_seterr(err, errlen, "%s: %s", env_keys[i].var, msg);
			return -1;
		}
	}
	return 0;
}

/* RAG_API_KEY, else the variable named by api_key_env, else llm.api_key from the file: the
 * environment wins so that a key never has to be written into a file that may be shared. */
static void resolve_api_key(rag_config *cfg)
{
	const char *v = getenv("RAG_API_KEY");
	if ((!v || !*v) && cfg->llm.api_key_env && *cfg->llm.api_key_env)
		v = getenv(cfg->llm.api_key_env);
	if (v && *v) replace(&cfg->llm.api_key, rag_xstrdup(v));
	else if (cfg->llm.api_key && !*cfg->llm.api_key) replace(&cfg->llm.api_key, NULL);
	/* embeddings: its own variable when named, else its own file key, else the key of llm */
	v = cfg->embeddings.api_key_env && *cfg->embeddings.api_key_env ? getenv(cfg->embeddings.api_key_env) : NULL;
	if (v && *v) replace(&cfg->embeddings.api_key, rag_xstrdup(v));
	else if (cfg->embeddings.api_key && !*cfg->embeddings.api_key) replace(&cfg->embeddings.api_key, NULL);
	if (!cfg->embeddings.api_key && cfg->llm.api_key) cfg->embeddings.api_key = rag_xstrdup(cfg->llm.api_key);
}

/* Azure's classic routes (llm.deployment) need an api-version: the version of Azure's API
 * reference that was current GA when this was written, unless llm.api_version says another.
 * A deployment names Azure's routes, so it needs llm.provider azure. */
#define AZURE_API_VERSION_GA "2024-10-21"
static int provider_defaults(rag_config *cfg, char *err, size_t errlen)
{
	const char *ep = cfg->embeddings.provider ? cfg->embeddings.provider : cfg->llm.provider;
	int azure = cfg->llm.provider && !strcmp(cfg->llm.provider, "azure");
	size_t i;
	if (cfg->llm.deployment && !azure) {
		rag_seterr(err, errlen, "llm.deployment names an Azure OpenAI deployment: it needs llm.provider: azure");
		return -1;
	}
	if (cfg->embeddings.deployment && !(ep && !strcmp(ep, "azure"))) {
		rag_seterr(err, errlen, "embeddings.deployment names an Azure OpenAI deployment: it needs "
		           "embeddings.provider (or llm.provider): azure");
		return -1;
	}
	/* a header value of two lines would be two headers, the second of the file's making */
	for (i = 0; i < 2; i++) {
		const rag_kv *h = i ? cfg->embeddings.headers : cfg->llm.headers;
		size_t j, n = i ? cfg->embeddings.nheaders : cfg->llm.nheaders;
		for (j = 0; j < n; j++) {
			if (strpbrk(h[j].value, "\r\n") || !*h[j].key || strpbrk(h[j].key, ": \t\r\n")) {
				rag_seterr(err, errlen, "%s.headers: header \"%.60s\" must be a name without \":\" or blanks "
				           "and a value of one line", i ? "embeddings" : "llm", h[j].key);
				return -1;
			}
		}
	}
	if ((cfg->llm.deployment || cfg->embeddings.deployment) && !cfg->llm.api_version)
		cfg->llm.api_version = rag_xstrdup(AZURE_API_VERSION_GA);
	return 0;
}

int rag_config_online(const char *provider)
{
	return provider && *provider && strcmp(provider, "offline") != 0;
}

/* A default location that does not exist is skipped; one that exists but cannot be read is an
 * error, because silently running without the user's settings gives plausible wrong results. */
static int present(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

/* trace_url is a link on a page: a javascript: or data: one would run there */
static int trace_url_ok(const rag_config *cfg, char *err, size_t errlen)
{
	const char *u = cfg->trace_url;
	if (!u || !strncasecmp(u, "http://", 7) || !strncasecmp(u, "https://", 8)) return 0;
	rag_seterr(err, errlen, "trace_url: an http:// or https:// URL with {trace_id} in it");
	return -1;
}

int rag_config_load(rag_config *cfg, const char *path, char *err, size_t errlen)
{
	const char *env = getenv("RAG_CONFIG");
	char *user;
	int rc = 0;

	rag_config_defaults(cfg);
	if (path) {
		rc = load_file(cfg, path, err, errlen);
	} else if (env && *env) {
		rc = load_file(cfg, env, err, errlen);
	} else if (present("rag.yaml")) {
		rc = load_file(cfg, "rag.yaml", err, errlen);
	} else if ((user = xdg_dir("XDG_CONFIG_HOME", ".config", "ragpipe/config.yaml"))) {
		if (present(user)) rc = load_file(cfg, user, err, errlen);
		free(user);
	}
	if (rc == 0) rc = apply_env(cfg, err, errlen);
	if (rc == 0) resolve_api_key(cfg);
	if (rc == 0) rc = provider_defaults(cfg, err, errlen);
	if (rc == 0) rc = trace_url_ok(cfg, err, errlen);
	if (rc < 0) rag_config_free(cfg);
	return rc;
}

/* A URL's password (scheme://user:password@host) as "***": a key pasted into a base URL is as
 * secret as api_key. */
static jv masked_url(const char *s)
{
	const char *scheme = strstr(s, "://"), *at, *colon, *slash;
	if (!scheme) return jv_string(s);
	slash = strchr(scheme + 3, '/');
	at = strchr(scheme + 3, '@');
	if (!at || (slash && at > slash)) return jv_string(s);
	colon = memchr(scheme + 3, ':', (size_t)(at - scheme - 3));
	if (!colon) return jv_string(s);
	return jv_string_fmt("%.*s:***%s", (int)(colon - s), s, at);
}

jv rag_config_mask_url(const char *url)
{
	return masked_url(url);
}

/* obj[path...] = v, making the sections on the way ("gate.mean" is two levels) */
static jv set_in(jv obj, const char *section, const char *name, jv v)
{
	const char *dot;
	jv sub;
	if (!*section) return jv_object_set(obj, jv_string(name), v);
	dot = strchr(section, '.');
	{
		jv key = dot ? jv_string_sized(section, (int)(dot - section)) : jv_string(section);
		sub = jv_object_get(jv_copy(obj), jv_copy(key));
		if (jv_get_kind(sub) != JV_KIND_OBJECT) {
			jv_free(sub);
			sub = jv_object();
		}
		sub = set_in(sub, dot ? dot + 1 : "", name, v);
		return jv_object_set(obj, key, sub);
	}
}

/* all (consumed) with the triples c[0..n): {category: {metric: value}}, or under: {category:
 * {under: {metric: value}}} */
static jv cat_kd_json(jv all, const rag_cat_kd *c, size_t n, const char *under)
{
	size_t j;
	for (j = 0; j < n; j++) {
		jv one = jv_object_get(jv_copy(all), jv_string(c[j].category)), in;
		if (jv_get_kind(one) != JV_KIND_OBJECT) one = (jv_free(one), jv_object());
		in = under ? jv_object_get(jv_copy(one), jv_string(under)) : jv_copy(one);
		if (jv_get_kind(in) != JV_KIND_OBJECT) in = (jv_free(in), jv_object());
		in = jv_object_set(in, jv_string(c[j].metric), jv_number(c[j].value));
		one = under ? jv_object_set(one, jv_string(under), in) : (jv_free(one), in);
		all = jv_object_set(all, jv_string(c[j].category), one);
	}
	return all;
}

jv rag_config_json(const rag_config *cfg)
{
	jv out = jv_object();
	size_t i, j;
	for (i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		const void *field = (const char *)cfg + k->off;
		const char *str = NULL;
		/* the values of every headers section (collect's, llm's, embeddings') are secrets */
		int secret = k->type == T_SECRET || k->type == T_SECRETS;
		jv v;
		if (secret) continue;
		switch (k->type) {
		case T_STR:
		case T_PATH:
		case T_ENUM:
			str = *(char *const *)field;
			v = !str ? jv_null() : strstr(k->name, "url") ? masked_url(str) : jv_string(str);
			break;
		case T_MODE:
			v = jv_string(rag_config_cache_mode_name(*(const int *)field));
			break;
		case T_INT:
			v = jv_number(*(const int *)field);
			break;
		case T_LONG:
			v = *(const int *)((const char *)cfg + k->aux) ? jv_number((double)*(const long *)field) : jv_null();
			break;
		case T_DOUBLE:
			v = isnan(*(const double *)field) && k->choices ? jv_string(k->choices[0])
			                                                : jv_number(*(const double *)field);
			break;
		case T_BOOL:
			v = jv_bool(*(const int *)field);
			break;
		case T_JSON:
			v = jv_string(k->choices[*(const int *)field]);
			break;
		case T_STRS: {
			const rag_strv *l = field;
			v = jv_array();
			for (j = 0; j < l->n; j++) v = jv_array_append(v, jv_string(l->v[j]));
			break;
		}
		case T_SCALARS: {
			/* system: the values as JSON text (rag_config_scalar's) */
			size_t n = *(const size_t *)((const char *)cfg + k->aux);
			const rag_kv *kv = *(rag_kv *const *)field;
			for (j = 0; j < n; j++) {
				jv p = jv_parse(kv[j].value);
				if (!jv_is_valid(p)) {
					jv_free(p);
					p = jv_string(kv[j].value);
				}
				out = set_in(out, k->section, kv[j].key, p);
			}
			continue;
		}
		case T_PRICES: {
			size_t n = *(const size_t *)((const char *)cfg + k->aux);
			const rag_price *pr = *(rag_price *const *)field;
			for (j = 0; j < n; j++)
				out = set_in(out, k->section, pr[j].model,
				             price_json(&pr[j]));
			continue;
		}
		case T_CATNUMS: {
			/* {category: {metric: value, mean: {metric: value}}}, set whole: a category's name
			 * may hold a dot */
			size_t n = *(const size_t *)((const char *)cfg + k->aux);
			jv all = cat_kd_json(jv_object(), *(rag_cat_kd *const *)field, n, NULL);
			all = cat_kd_json(all, cfg->gate.by_category_mean, cfg->gate.nby_category_mean, "mean");
			if (n || cfg->gate.nby_category_mean) out = set_in(out, "gate", "by_category", all);
			else jv_free(all);
			continue;
		}
		case T_FILES:
		case T_TEXTS:
		case T_NUMS: {
			/* a "*" row: its pairs are the section's own keys */
			size_t n = *(const size_t *)((const char *)cfg + k->aux);
			for (j = 0; j < n; j++) {
				if (k->type != T_NUMS) {
					const rag_kv *kv = *(rag_kv *const *)field;
					out = set_in(out, k->section, kv[j].key, jv_string(kv[j].value));
				} else {
					const rag_kd *kd = *(rag_kd *const *)field;
					out = set_in(out, k->section, kd[j].key, jv_number(kd[j].value));
				}
			}
			continue;
		}
		default:
			continue;
		}
		out = set_in(out, k->section, k->name, v);
	}
	if (cfg->path) out = jv_object_set(out, jv_string("file"), jv_string(cfg->path));
	return out;
}
