/* t-config.c - rag-config(5): defaults, every key type, errors with positions, ${VAR}, the search
 * order, environment overrides and the API key chain. Runs in a private temporary directory with
 * a private HOME, and with every variable the loader reads cleared first. */
#include "base.h"
#include "config.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/tmp/t-config-XXXXXX";
static char err[RAG_ERRLEN];
/* Every message any failing load produced, to prove the secret never reached one. */
static rag_buf all_errors;

#define SECRET "sk-SECRET-0123456789abcdef"

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("# cannot write %s\n", path);
		exit(1);
	}
}

/* Load with -c path (or the search order when path is NULL); keep the message. */
static int load(rag_config *c, const char *path)
{
	int rc;
	err[0] = 0;
	rc = rag_config_load(c, path, err, sizeof err);
	if (rc < 0) {
		rag_buf_adds(&all_errors, err);
		rag_buf_adds(&all_errors, "\n");
	}
	return rc;
}

/* Load text as t.yaml; 0 or -1, and on success c must be freed by the caller. */
static int load_text(rag_config *c, const char *text)
{
	put_file("t.yaml", text);
	return load(c, "t.yaml");
}

/* The message for text, which must fail; "" when it loaded. */
static const char *fails(const char *text)
{
	rag_config c;
	if (load_text(&c, text) == 0) {
		rag_config_free(&c);
		return "";
	}
	return err;
}

static const char *const vars[] = {
	"RAG_CONFIG", "RAG_PROVIDER", "RAG_BASE_URL", "RAG_MODEL", "RAG_API_KEY", "RAG_CACHE",
	"RAG_CACHE_DIR", "RAG_LANG", "OPENAI_API_KEY", "MY_KEY", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
};

static void clear_env(void)
{
	size_t i;
	for (i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
}

static void test_defaults(void)
{
	rag_config c, zero;
	char *want;

	rag_config_defaults(&c);
	ok(c.path == NULL && c.llm.provider == NULL && c.llm.base_url == NULL && c.llm.model == NULL,
	   "no path, provider, base_url or model by default");
	is_str(c.llm.api_key_env, "OPENAI_API_KEY", "api_key_env");
	ok(c.llm.api_key == NULL, "no api key");
	is_num(c.llm.temperature, 0, 0, "temperature");
	ok(!c.llm.has_seed, "no seed");
	is_int(c.llm.max_tokens, 2048, "max_tokens");
	is_num(c.llm.timeout, 60, 0, "timeout");
	is_int(c.llm.retries, 4, "retries");
	is_int(c.llm.concurrency, 8, "concurrency");
	ok(c.llm.rpm == 0 && c.llm.tpm == 0, "no rate limits");
	is_int(c.llm.json_mode, RAG_JSON_SCHEMA, "json_mode schema");
	is_num(c.llm.deadline, 300, 0, "deadline");
	is_int(c.llm.batch_max_requests, 50000, "batch_max_requests: OpenAI's limit");
	is_int(c.llm.batch_max_bytes, 200000000, "batch_max_bytes: OpenAI's 200 MB");
	ok(c.llm.answer_model == NULL, "answer_model");
	is_int(c.cache.mode, RAG_CACHE_RW, "cache mode rw");
	want = rag_xasprintf("%s/.cache/ragpipe", root);
	is_str(c.cache.dir, want, "cache dir under $HOME/.cache");
	free(want);
	is_str(c.lang, "auto", "lang");
	ok(c.prompts.dir == NULL && c.prompts.files == NULL && c.prompts.nfiles == 0, "no prompt overrides");
	is_int(c.verify.max_claims, 20, "max_claims");
	is_int(c.verify.batch_claims, 20, "batch_claims");
	is_int(c.verify.batch_chars, 24000, "batch_chars");
	ok(!c.verify.recheck_chunks && !c.verify.literal_match, "recheck_chunks, literal_match off");
	is_num(c.verify.offline_threshold, 0.6, 1e-12, "offline_threshold");
	ok(c.verify.mode == RAG_VERIFY_BATCHED && c.verify.verifier_max_tokens == 4, "verify.mode batched, verifier_max_tokens 4");
	ok(c.verify.factual_weight == 0.75 && c.verify.similarity_weight == 0.25, "answer_correctness weights 0.75, 0.25");
	rag_config_free(&c);
	memset(&zero, 0, sizeof zero);
	ok(!memcmp(&c, &zero, sizeof c), "rag_config_free zeroes the struct");
	rag_config_free(&c);
	ok(1, "freeing twice is harmless");

	setenv("XDG_CACHE_HOME", "/var/tmp/xdg", 1);
	rag_config_defaults(&c);
	is_str(c.cache.dir, "/var/tmp/xdg/ragpipe", "cache dir from $XDG_CACHE_HOME");
	rag_config_free(&c);
	setenv("XDG_CACHE_HOME", "relative/dir", 1);
	rag_config_defaults(&c);
	want = rag_xasprintf("%s/.cache/ragpipe", root);
	is_str(c.cache.dir, want, "a relative $XDG_CACHE_HOME is ignored");
	free(want);
	rag_config_free(&c);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	rag_config_defaults(&c);
	ok(c.cache.dir == NULL, "no HOME and no XDG_CACHE_HOME: no cache dir");
	rag_config_free(&c);
	setenv("HOME", root, 1);
}

static void test_all_keys(void)
{
	rag_config c;
	int rc;

	rc = load_text(&c,
		"# every key\n"
		"llm:\n"
		"  provider: openai\n"
		"  base_url: http://127.0.0.1:8080/v1\n"
		"  model: qwen2.5-72b-instruct\n"
		"  api_key_env: MY_KEY\n"
		"  temperature: 0.25\n"
		"  seed: -7\n"
		"  max_tokens: 512\n"
		"  timeout: 12.5\n"
		"  retries: 0\n"
		"  concurrency: 3\n"
		"  requests_per_minute: 60\n"
		"  tokens_per_minute: 1.5e5\n"
		"  json_mode: false\n"
		"  answer_model: gpt-4o\n"
		"cache:\n"
		"  mode: replay\n"
		"  dir: /var/cache/rag\n"
		"lang: zh\n"
		"prompts:\n"
		"  dir: /etc/ragpipe/prompts\n"
		"  claims: /p/claims.txt\n"
		"  verify.zh: /p/verify.zh.txt\n"
		"verify:\n"
		"  max_claims: 5\n"
		"  batch_claims: 4\n"
		"  batch_chars: 1000\n"
		"  recheck_chunks: yes\n"
		"  literal_match: on\n"
		"  offline_threshold: 0.75\n"
		"  mode: claim_chunk\n"
		"  verifier_max_tokens: 8\n"
		"  factual_weight: 1\n"
		"  similarity_weight: 0\n");
	is_int(rc, 0, "a file with every key loads (%s)", err);
	if (rc) return;
	is_str(c.path, "t.yaml", "path is the file loaded");
	is_str(c.llm.provider, "openai", "provider");
	is_str(c.llm.base_url, "http://127.0.0.1:8080/v1", "base_url");
	is_str(c.llm.model, "qwen2.5-72b-instruct", "model");
	is_str(c.llm.api_key_env, "MY_KEY", "api_key_env");
	ok(c.llm.api_key == NULL, "no key: MY_KEY is unset");
	is_num(c.llm.temperature, 0.25, 0, "temperature");
	ok(c.llm.has_seed && c.llm.seed == -7, "seed -7, has_seed");
	is_int(c.llm.max_tokens, 512, "max_tokens");
	is_num(c.llm.timeout, 12.5, 0, "timeout");
	is_int(c.llm.retries, 0, "retries 0 is allowed");
	is_int(c.llm.concurrency, 3, "concurrency");
	is_num(c.llm.rpm, 60, 0, "requests_per_minute");
	is_num(c.llm.tpm, 150000, 0, "tokens_per_minute in exponent form");
	is_int(c.llm.json_mode, 0, "json_mode false");
	is_str(c.llm.answer_model, "gpt-4o", "answer_model");
	is_int(c.cache.mode, RAG_CACHE_REPLAY, "cache.mode");
	is_str(c.cache.dir, "/var/cache/rag", "cache.dir");
	is_str(c.lang, "zh", "lang");
	is_str(c.prompts.dir, "/etc/ragpipe/prompts", "prompts.dir");
	is_int(c.prompts.nfiles, 2, "two prompt files");
	if (c.prompts.nfiles == 2) {
		is_str(c.prompts.files[0].key, "claims", "prompt name 1");
		is_str(c.prompts.files[0].value, "/p/claims.txt", "prompt file 1");
		is_str(c.prompts.files[1].key, "verify.zh", "prompt name 2");
		is_str(c.prompts.files[1].value, "/p/verify.zh.txt", "prompt file 2");
	}
	is_int(c.verify.max_claims, 5, "max_claims");
	is_int(c.verify.batch_claims, 4, "batch_claims");
	is_int(c.verify.batch_chars, 1000, "batch_chars");
	is_int(c.verify.recheck_chunks, 1, "recheck_chunks yes");
	is_int(c.verify.literal_match, 1, "literal_match on");
	is_num(c.verify.offline_threshold, 0.75, 0, "offline_threshold");
	is_int(c.verify.mode, RAG_VERIFY_CLAIM_CHUNK, "verify.mode claim_chunk");
	is_int(c.verify.verifier_max_tokens, 8, "verifier_max_tokens");
	ok(c.verify.factual_weight == 1 && c.verify.similarity_weight == 0, "factual_weight, similarity_weight");
	rag_config_free(&c);

	/* flow style and quoted numbers are YAML too */
	rc = load_text(&c, "{llm: {concurrency: \"16\", seed: 0}, \"lang\": 'en'}\n");
	ok(rc == 0 && c.llm.concurrency == 16 && c.llm.has_seed && c.llm.seed == 0 && !strcmp(c.lang, "en"),
	   "flow mappings, quoted numbers, seed 0 counts as set");
	if (rc == 0) rag_config_free(&c);
}

static void test_bools_and_nulls(void)
{
	static const struct { const char *word; int want; } words[] = {
		{ "true", 1 }, { "True", 1 }, { "YES", 1 }, { "on", 1 },
		{ "false", 0 }, { "No", 0 }, { "off", 0 }, { "FALSE", 0 },
	};
	rag_config c;
	size_t i;
	char *text;

	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		text = rag_xasprintf("llm:\n  json_mode: %s\nverify: {literal_match: %s}\n", words[i].word, words[i].word);
		if (load_text(&c, text) == 0) {
			ok(c.llm.json_mode == words[i].want && c.verify.literal_match == words[i].want,
			   "bool %s", words[i].word);
			rag_config_free(&c);
		} else {
			ok(0, "bool %s: %s", words[i].word, err);
		}
		free(text);
	}

	/* a key left blank keeps its default, as does a blank section */
	is_int(load_text(&c, "llm:\n  model:\n  concurrency: ~\n  api_key_env: null\ncache:\nlang:\n"), 0,
	       "blank values and sections load");
	ok(c.llm.model == NULL && c.llm.concurrency == 8 && !strcmp(c.llm.api_key_env, "OPENAI_API_KEY") &&
	   !strcmp(c.lang, "auto"), "blank values keep the defaults");
	rag_config_free(&c);
	is_int(load_text(&c, "llm:\n  model: ''\n"), 0, "a quoted empty string loads");
	is_str(c.llm.model, "", "and is an empty string, not a default");
	rag_config_free(&c);

	is_int(load_text(&c, ""), 0, "an empty file is valid");
	is_str(c.path, "t.yaml", "and counts as loaded");
	rag_config_free(&c);
	is_int(load_text(&c, "# nothing here\n\n   # but comments\n"), 0, "a file of comments is valid");
	rag_config_free(&c);
	is_int(load_text(&c, "---\n"), 0, "a bare document marker is valid");
	rag_config_free(&c);
	is_int(load_text(&c, "~\n"), 0, "a null document is valid");
	rag_config_free(&c);
}

static void test_errors(void)
{
	rag_config c, zero;

	is_str(fails("llm:\n  model: x\n  modle: y\n"),
	       "t.yaml:3:3: unknown key \"modle\" in section \"llm\" (did you mean \"model\"?)", "unknown key, with a hint");
	is_str(fails("llm:\n  frobnicate: 1\n"), "t.yaml:2:3: unknown key \"frobnicate\" in section \"llm\"",
	       "unknown key, nothing close");
	is_str(fails("lang: en\nlmm:\n  model: x\n"),
	       "t.yaml:2:1: unknown key \"lmm\" at the top level (did you mean \"llm\"?)", "unknown section, with a hint");
	is_str(fails("llm:\n  model: x\n  concurrency: many\n"),
	       "t.yaml:3:16: \"concurrency\" must be an integer, not \"many\"", "integer given a word");
	is_str(fails("llm: {max_tokens: 1.5}\n"), "t.yaml:1:19: \"max_tokens\" must be an integer, not \"1.5\"",
	       "integer given a fraction");
	is_str(fails("llm: {max_tokens: 0x10}\n"), "t.yaml:1:19: \"max_tokens\" must be an integer, not \"0x10\"",
	       "integer given hex");
	is_str(fails("llm: {max_tokens: 1e3}\n"), "t.yaml:1:19: \"max_tokens\" must be an integer, not \"1e3\"",
	       "integer given an exponent");
	is_str(fails("llm: {temperature: abc}\n"), "t.yaml:1:20: \"temperature\" must be a number, not \"abc\"",
	       "number given a word");
	is_str(fails("llm: {temperature: .nan}\n"), "t.yaml:1:20: \"temperature\" must be a number, not \".nan\"",
	       "number given NaN");
	is_str(fails("verify: {mode: claims}\n"),
	       "t.yaml:1:16: \"mode\" must be one of batched, claim, claim_chunk, not \"claims\"", "verify.mode names its choices");
	is_str(fails("verify: {literal_match: maybe}\n"),
	       "t.yaml:1:25: \"literal_match\" must be true or false, not \"maybe\"", "bool given a word");
	is_str(fails("verify: {literal_match: 1}\n"), "t.yaml:1:25: \"literal_match\" must be true or false, not \"1\"",
	       "bool given a number");
	is_str(fails("llm: {json_mode: maybe}\n"),
	       "t.yaml:1:18: \"json_mode\" must be schema, object or off (or true or false), not \"maybe\"",
	       "json_mode given another word");
	is_str(fails("llm: {deadline: -1}\n"), "t.yaml:1:17: \"deadline\" must be at least 0, not \"-1\"",
	       "deadline below 0");
	{
		static const struct { const char *word; int want; } modes[] = {
			{ "schema", RAG_JSON_SCHEMA }, { "object", RAG_JSON_OBJECT }, { "off", RAG_JSON_OFF },
			{ "true", RAG_JSON_OBJECT }, { "false", RAG_JSON_OFF },
		};
		size_t i;
		char *text;
		for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
			text = rag_xasprintf("llm: {json_mode: %s, deadline: 0}\n", modes[i].word);
			if (load_text(&c, text) == 0) {
				ok(c.llm.json_mode == modes[i].want && c.llm.deadline == 0, "json_mode %s", modes[i].word);
				rag_config_free(&c);
			} else {
				ok(0, "json_mode %s: %s", modes[i].word, err);
			}
			free(text);
		}
	}
	is_str(fails("llm:\n  model: [a, b]\n"), "t.yaml:2:10: \"model\" must be a string, not a list",
	       "string given a list");
	is_str(fails("llm:\n  concurrency:\n    a: 1\n"), "t.yaml:3:5: \"concurrency\" must be an integer, not a mapping",
	       "integer given a mapping");
	is_str(fails("llm: gpt-4o\n"), "t.yaml:1:6: \"llm\" must be a mapping, not a single value",
	       "section given a scalar");
	is_str(fails("verify: [1]\n"), "t.yaml:1:9: \"verify\" must be a mapping, not a list", "section given a list");
	is_str(fails("- llm\n- cache\n"), "t.yaml:1:1: the top level must be a mapping of keys to values",
	       "top level is a list");
	is_str(fails("hello\n"), "t.yaml:1:1: the top level must be a mapping of keys to values",
	       "top level is a scalar");
	is_str(fails("lang: fr\n"), "t.yaml:1:7: \"lang\" must be one of auto, en, zh, not \"fr\"", "lang enum");
	is_str(fails("llm: {provider: anthropic}\n"),
	       "t.yaml:1:17: \"provider\" must be one of openai, offline, azure, openai-reasoning, not \"anthropic\"", "provider enum");
	is_str(fails("cache:\n  mode: sometimes\n"),
	       "t.yaml:2:9: \"mode\" must be one of rw, ro, replay, off, not \"sometimes\"", "cache mode enum");
	is_str(fails("llm: {concurrency: 0}\n"), "t.yaml:1:20: \"concurrency\" must be at least 1, not \"0\"",
	       "concurrency >= 1");
	is_str(fails("llm: {concurrency: 99999999999}\n"), "t.yaml:1:20: \"concurrency\" is too large: \"99999999999\"",
	       "concurrency beyond int");
	is_str(fails("llm: {seed: 99999999999999999999999}\n"),
	       "t.yaml:1:13: \"seed\" is out of range: \"99999999999999999999999\"", "seed beyond long");
	is_str(fails("llm: {temperature: 2.5}\n"), "t.yaml:1:20: \"temperature\" must be between 0 and 2, not \"2.5\"",
	       "temperature 0..2");
	is_str(fails("llm: {temperature: -0.1}\n"), "t.yaml:1:20: \"temperature\" must be between 0 and 2, not \"-0.1\"",
	       "temperature not negative");
	is_str(fails("llm: {timeout: 0}\n"), "t.yaml:1:16: \"timeout\" must be greater than 0, not \"0\"", "timeout > 0");
	is_str(fails("llm: {retries: -1}\n"), "t.yaml:1:16: \"retries\" must be at least 0, not \"-1\"", "retries >= 0");
	is_str(fails("llm: {requests_per_minute: -5}\n"),
	       "t.yaml:1:28: \"requests_per_minute\" must be at least 0, not \"-5\"", "rpm >= 0");
	is_str(fails("verify: {offline_threshold: 1.5}\n"),
	       "t.yaml:1:29: \"offline_threshold\" must be between 0 and 1, not \"1.5\"", "threshold 0..1");
	is_str(fails("verify: {max_claims: 0}\n"), "t.yaml:1:22: \"max_claims\" must be at least 1, not \"0\"",
	       "max_claims >= 1");
	is_str(fails("llm: {batch_max_requests: 0}\n"),
	       "t.yaml:1:27: \"batch_max_requests\" must be at least 1, not \"0\"", "batch_max_requests >= 1");
	is_str(fails("llm: {batch_max_bytes: 100}\n"),
	       "t.yaml:1:24: \"batch_max_bytes\" must be at least 1024, not \"100\"", "batch_max_bytes >= 1024");
	is_str(fails("llm: {batch_max_bytes: 200MB}\n"),
	       "t.yaml:1:24: \"batch_max_bytes\" must be an integer, not \"200MB\"", "batch_max_bytes a number of bytes");
	is_str(fails("llm:\n  model: a\n  model: b\n"), "t.yaml:3:3: duplicate key \"model\" in section \"llm\"",
	       "duplicate key");
	is_str(fails("llm: {}\nlang: en\nllm: {}\n"), "t.yaml:3:1: duplicate key \"llm\" at the top level",
	       "duplicate section");
	is_str(fails("lang: en\n---\nlang: zh\n"), "t.yaml:3:1: a config file holds one YAML document, not several",
	       "two documents");
	is_str(fails("llm:\n  model: x\n bad: y\n"), "t.yaml:3:2: did not find expected key (while parsing a block mapping)",
	       "YAML syntax error with position");
	is_str(fails("llm:\n\tmodel: x\n"),
	       "t.yaml:2:1: found character that cannot start any token (while scanning for the next token)"
	       " (tabs cannot indent YAML)", "a tab says so");
	is_str(fails("lang: \"en\xff\"\n"), "t.yaml: invalid leading UTF-8 octet at byte 9", "invalid UTF-8");
	is_str(fails("? [a, b]\n: 1\n"), "t.yaml:1:3: keys must be plain names, not a mapping or a list", "complex key");
	is_str(fails("prompts:\n  claims: ''\n"), "t.yaml:2:11: \"claims\" must not be empty", "empty prompt path");
	is_str(fails("llm:\n  model: \"line one\\nline two\"\n  concurrency: \"a\\nb\"\n"),
	       "t.yaml:3:16: \"concurrency\" must be an integer, not \"a?b\"", "echoed values stay on one line");

	/* a failed load leaves nothing to free */
	memset(&zero, 0, sizeof zero);
	load_text(&c, "llm: {model: x, concurrency: many}\n");
	ok(!memcmp(&c, &zero, sizeof c), "a failed load leaves the struct zeroed");
	rag_config_free(&c);
}

static void test_expansion(void)
{
	rag_config c;

	setenv("T_HOST", "127.0.0.1", 1);
	setenv("T_PORT", "8080", 1);
	setenv("T_N", "12", 1);
	setenv("T_EMPTY", "", 1);
	if (load_text(&c, "llm:\n  base_url: http://${T_HOST}:${T_PORT}/v1\n  concurrency: ${T_N}\n"
	                  "  model: \"${T_EMPTY}m$$1 costs $5 $${T_HOST} $\"\n") == 0) {
		is_str(c.llm.base_url, "http://127.0.0.1:8080/v1", "${VAR} expands, twice in one value");
		is_int(c.llm.concurrency, 12, "expansion before the type check");
		is_str(c.llm.model, "m$1 costs $5 ${T_HOST} $", "$$ is a literal $, a lone $ stays");
		rag_config_free(&c);
	} else {
		ok(0, "expansion: %s", err);
	}
	is_str(fails("llm:\n  model: ${T_UNSET_VAR}\n"),
	       "t.yaml:2:10: environment variable \"T_UNSET_VAR\" is not set (used in \"model\")", "unset variable named");
	is_str(fails("llm:\n  model: x${T_HOST\n"), "t.yaml:2:10: unterminated \"${\" in \"model\"", "unterminated ${");
	is_str(fails("llm:\n  model: ${1abc}\n"), "t.yaml:2:10: bad variable name \"${1abc}\" in \"model\"", "bad name");
	is_str(fails("llm:\n  model: ${}\n"), "t.yaml:2:10: bad variable name \"${}\" in \"model\"", "empty name");
	is_str(fails("llm:\n  concurrency: ${T_HOST}\n"),
	       "t.yaml:2:16: \"concurrency\" must be an integer, not \"127.0.0.1\"", "expanded value is type-checked");
	unsetenv("T_HOST");
	unsetenv("T_PORT");
	unsetenv("T_N");
	unsetenv("T_EMPTY");
}

static void test_paths(void)
{
	rag_config c;
	char *want;

	mkdir("sub", 0700);
	put_file("sub/p.yaml", "cache: {dir: cache}\nprompts:\n  dir: prompts\n  claims: ../c.txt\n  verify: /abs/v.txt\n");
	if (load(&c, "sub/p.yaml") == 0) {
		is_str(c.cache.dir, "sub/cache", "relative cache.dir is relative to the file");
		is_str(c.prompts.dir, "sub/prompts", "relative prompts.dir is relative to the file");
		is_str(c.prompts.files[0].value, "sub/../c.txt", "relative prompt file is relative to the file");
		is_str(c.prompts.files[1].value, "/abs/v.txt", "absolute paths stay");
		rag_config_free(&c);
	} else {
		ok(0, "paths: %s", err);
	}
	if (load_text(&c, "cache: {dir: ~/cache}\nprompts: {dir: '~'}\n") == 0) {
		want = rag_xasprintf("%s/cache", root);
		is_str(c.cache.dir, want, "~/ is $HOME");
		free(want);
		is_str(c.prompts.dir, root, "~ alone is $HOME");
		rag_config_free(&c);
	} else {
		ok(0, "tilde: %s", err);
	}
	if (load_text(&c, "cache: {dir: cache}\n") == 0) {
		is_str(c.cache.dir, "cache", "a file in the current directory keeps relative paths as written");
		rag_config_free(&c);
	}
}

static char *model_of(const char *path)
{
	rag_config c;
	char *m;
	if (load(&c, path) < 0) return rag_xasprintf("error: %s", err);
	m = rag_xasprintf("%s from %s", c.llm.model ? c.llm.model : "(none)", c.path ? c.path : "(none)");
	rag_config_free(&c);
	return m;
}

#define is_model(path, want, ...) do { char *m_ = model_of(path); is_str(m_, want, __VA_ARGS__); free(m_); } while (0)

static void test_search_order(void)
{
	char *home = rag_xasprintf("%s/.config/ragpipe/config.yaml", root);
	char *xdg = rag_xasprintf("%s/xdg/ragpipe/config.yaml", root), *want;
	rag_config c;

	is_model(NULL, "(none) from (none)", "no file anywhere is fine");

	want = rag_xasprintf("%s/.config", root); mkdir(want, 0700); free(want);
	want = rag_xasprintf("%s/.config/ragpipe", root); mkdir(want, 0700); free(want);
	put_file(home, "llm: {model: home}\n");
	want = rag_xasprintf("home from %s", home);
	is_model(NULL, want, "~/.config/ragpipe/config.yaml without XDG_CONFIG_HOME");
	free(want);

	want = rag_xasprintf("%s/xdg", root); mkdir(want, 0700); free(want);
	want = rag_xasprintf("%s/xdg/ragpipe", root); mkdir(want, 0700); free(want);
	want = rag_xasprintf("%s/xdg", root);
	setenv("XDG_CONFIG_HOME", want, 1);
	free(want);
	is_model(NULL, "(none) from (none)", "XDG_CONFIG_HOME replaces ~/.config");
	put_file(xdg, "llm: {model: xdg}\nlang: zh\n");
	want = rag_xasprintf("xdg from %s", xdg);
	is_model(NULL, want, "$XDG_CONFIG_HOME/ragpipe/config.yaml");
	free(want);

	put_file("rag.yaml", "llm: {model: cwd}\n");
	is_model(NULL, "cwd from rag.yaml", "./rag.yaml before the user's file");
	if (load(&c, NULL) == 0) {
		is_str(c.lang, "auto", "files are not merged: only the first found is read");
		rag_config_free(&c);
	}

	put_file("env.yaml", "llm: {model: env}\n");
	setenv("RAG_CONFIG", "env.yaml", 1);
	is_model(NULL, "env from env.yaml", "$RAG_CONFIG before ./rag.yaml");
	put_file("flag.yaml", "llm: {model: flag}\n");
	is_model("flag.yaml", "flag from flag.yaml", "-c before $RAG_CONFIG");
	setenv("RAG_CONFIG", "missing-env.yaml", 1);
	is_model("flag.yaml", "flag from flag.yaml", "-c wins even when $RAG_CONFIG names no file");
	is_model(NULL, "error: cannot open \"missing-env.yaml\": No such file or directory",
	         "a missing $RAG_CONFIG file is an error");
	setenv("RAG_CONFIG", "", 1);
	is_model(NULL, "cwd from rag.yaml", "an empty $RAG_CONFIG counts as unset");
	unsetenv("RAG_CONFIG");
	is_model("missing.yaml", "error: cannot open \"missing.yaml\": No such file or directory",
	         "a missing -c file is an error");
	is_model(".", "error: cannot read \".\": Is a directory", "-c with a directory is an error");

	put_file("rag.yaml", "llm: {modle: cwd}\n");
	is_model(NULL, "error: rag.yaml:1:7: unknown key \"modle\" in section \"llm\" (did you mean \"model\"?)",
	         "a broken ./rag.yaml is an error, not skipped");
	unlink("rag.yaml");
	mkdir("rag.yaml", 0700);
	is_model(NULL, "error: cannot read \"rag.yaml\": Is a directory", "so is a ./rag.yaml that is a directory");
	rmdir("rag.yaml");
	unsetenv("XDG_CONFIG_HOME");
	unlink(home);
	free(home);
	free(xdg);
}

static void test_env_overrides(void)
{
	rag_config c;

	put_file("e.yaml", "llm: {provider: offline, base_url: http://file/v1, model: file}\n"
	                   "cache: {mode: rw, dir: /file/cache}\nlang: en\n");
	setenv("RAG_PROVIDER", "openai", 1);
	setenv("RAG_BASE_URL", "http://env/v1", 1);
	setenv("RAG_MODEL", "env-model", 1);
	setenv("RAG_CACHE", "read-only", 1);
	setenv("RAG_CACHE_DIR", "env-cache", 1);
	setenv("RAG_LANG", "zh", 1);
	if (load(&c, "e.yaml") == 0) {
		is_str(c.llm.provider, "openai", "RAG_PROVIDER overrides the file");
		is_str(c.llm.base_url, "http://env/v1", "RAG_BASE_URL");
		is_str(c.llm.model, "env-model", "RAG_MODEL");
		is_int(c.cache.mode, RAG_CACHE_RO, "RAG_CACHE (alias read-only)");
		is_str(c.cache.dir, "env-cache", "RAG_CACHE_DIR, taken as written");
		is_str(c.lang, "zh", "RAG_LANG");
		rag_config_free(&c);
	} else {
		ok(0, "env overrides: %s", err);
	}
	setenv("RAG_MODEL", "", 1);
	if (load(&c, "e.yaml") == 0) {
		is_str(c.llm.model, "file", "an empty variable does not override");
		rag_config_free(&c);
	}
	setenv("RAG_LANG", "fr", 1);
	is_int(load(&c, "e.yaml"), -1, "a bad RAG_LANG is an error");
	is_str(err, "RAG_LANG: \"lang\" must be one of auto, en, zh, not \"fr\"", "naming the variable");
	unsetenv("RAG_LANG");
	setenv("RAG_CACHE", "sometimes", 1);
	is_int(load(&c, "e.yaml"), -1, "a bad RAG_CACHE is an error");
	is_str(err, "RAG_CACHE: \"mode\" must be one of rw, ro, replay, off, not \"sometimes\"", "naming the variable");
	setenv("RAG_CACHE", "off", 1);
	setenv("RAG_PROVIDER", "magic", 1);
	is_int(load(&c, "e.yaml"), -1, "a bad RAG_PROVIDER is an error");
	unsetenv("RAG_PROVIDER");
	if (load(&c, NULL) == 0) {
		is_int(c.cache.mode, RAG_CACHE_OFF, "env applies with no file at all");
		ok(c.path == NULL, "still no path");
		rag_config_free(&c);
	}
	clear_env();
}

static void test_api_key(void)
{
	rag_config c;
	char *text;

	put_file("k.yaml", "llm:\n  api_key: from-file\n");
	if (load(&c, "k.yaml") == 0) {
		is_str(c.llm.api_key, "from-file", "llm.api_key from the file when no variable is set");
		rag_config_free(&c);
	}
	setenv("OPENAI_API_KEY", "from-openai-var", 1);
	if (load(&c, "k.yaml") == 0) {
		is_str(c.llm.api_key, "from-openai-var", "$OPENAI_API_KEY beats the file");
		rag_config_free(&c);
	}
	put_file("k2.yaml", "llm:\n  api_key_env: MY_KEY\n  api_key: from-file\n");
	if (load(&c, "k2.yaml") == 0) {
		is_str(c.llm.api_key, "from-file", "api_key_env names another variable; OPENAI_API_KEY is then ignored");
		rag_config_free(&c);
	}
	setenv("MY_KEY", "from-my-key", 1);
	if (load(&c, "k2.yaml") == 0) {
		is_str(c.llm.api_key, "from-my-key", "the variable named by api_key_env");
		rag_config_free(&c);
	}
	setenv("RAG_API_KEY", "from-rag-api-key", 1);
	if (load(&c, "k2.yaml") == 0) {
		is_str(c.llm.api_key, "from-rag-api-key", "RAG_API_KEY beats everything");
		rag_config_free(&c);
	}
	setenv("RAG_API_KEY", "", 1);
	if (load(&c, "k2.yaml") == 0) {
		is_str(c.llm.api_key, "from-my-key", "an empty RAG_API_KEY is unset");
		rag_config_free(&c);
	}
	clear_env();
	if (load(&c, NULL) == 0) {
		ok(c.llm.api_key == NULL, "no key anywhere: NULL");
		rag_config_free(&c);
	}
	setenv("T_KEY", "from-expansion", 1);
	put_file("k3.yaml", "llm:\n  api_key: ${T_KEY}\n");
	if (load(&c, "k3.yaml") == 0) {
		is_str(c.llm.api_key, "from-expansion", "api_key: ${VAR} expands");
		rag_config_free(&c);
	}
	unsetenv("T_KEY");
	put_file("k4.yaml", "llm:\n  api_key: ''\n");
	if (load(&c, "k4.yaml") == 0) {
		ok(c.llm.api_key == NULL, "an empty api_key is no key");
		rag_config_free(&c);
	}

	/* Failures around the secret: none may echo it. */
	text = "llm:\n  api_key: " SECRET "\n  concurrency: many\n";
	ok(*fails(text), "a file with a secret and a bad key fails");
	is_str(fails("llm:\n  api_key: [" SECRET "]\n"), "t.yaml:2:12: \"api_key\" must be a string, not a list",
	       "api_key of the wrong type is not echoed");
	is_str(fails("llm:\n  api_key: {" SECRET ": 1}\n"), "t.yaml:2:12: \"api_key\" must be a string, not a mapping",
	       "nor as a mapping");
	is_str(fails("llm:\n  api_key: ${" SECRET "}\n"), "t.yaml:2:12: bad variable name in \"${...}\" in \"api_key\"",
	       "a secret pasted into ${} is not echoed");
	is_str(fails("llm:\n  api_key: ${sk_SECRET_0123456789abcdef}\n"),
	       "t.yaml:2:12: an environment variable named in \"api_key\" is not set",
	       "nor when it happens to be a valid name");
	is_str(fails("llm:\n  api_key: ${OPENAI_KEY_T}\n"),
	       "t.yaml:2:12: environment variable \"OPENAI_KEY_T\" is not set (used in \"api_key\")",
	       "an upper-case variable name is named");
	is_str(fails("llm:\n  api_key: ${" SECRET "\n"), "t.yaml:2:12: unterminated \"${\" in \"api_key\"",
	       "unterminated: not echoed");
	is_str(fails("llm:\n  api_key: " SECRET "\n  api_key: " SECRET "\n"),
	       "t.yaml:3:3: duplicate key \"api_key\" in section \"llm\"", "duplicate api_key: not echoed");
	is_str(fails("llm:\n  api_key: \"" SECRET "\n"),
	       "t.yaml:3:1: found unexpected end of stream (while scanning a quoted scalar)", "YAML errors are not echoed");
	setenv("RAG_API_KEY", SECRET, 1);
	setenv("RAG_LANG", "xx", 1);
	ok(*fails("llm: {model: m}\n"), "an env error with RAG_API_KEY set");
	clear_env();
	ok(all_errors.len > 0 && !strstr(all_errors.p, "SECRET"), "the secret appears in none of the %zu bytes of messages",
	   all_errors.len);
}

static void test_mode_names(void)
{
	static const struct { const char *name; int mode; } m[] = {
		{ "rw", RAG_CACHE_RW }, { "read-write", RAG_CACHE_RW }, { "ro", RAG_CACHE_RO },
		{ "read-only", RAG_CACHE_RO }, { "replay", RAG_CACHE_REPLAY }, { "off", RAG_CACHE_OFF },
		{ "RW", -1 }, { "", -1 }, { "on", -1 },
	};
	size_t i;
	for (i = 0; i < sizeof m / sizeof m[0]; i++)
		is_int(rag_config_cache_mode_parse(m[i].name), m[i].mode, "mode \"%s\"", m[i].name);
	is_int(rag_config_cache_mode_parse(NULL), -1, "NULL mode");
	for (i = RAG_CACHE_RW; i <= RAG_CACHE_OFF; i++)
		is_int(rag_config_cache_mode_parse(rag_config_cache_mode_name((int)i)), (long)i, "name of mode %zu parses back", i);
	is_str(rag_config_cache_mode_name(99), "unknown", "unknown mode name");
}

/* The shipped example must load, and every key rag-config(5) documents must be one the parser
 * knows: a key it knows reaches ${VAR} expansion, so an unset variable is reported instead of
 * "unknown key". Paths are relative to the source tree, where make check runs. */
static void test_shipped_files(const char *example, const char *manpage)
{
	rag_config c;
	FILE *f;
	char line[512], name[128], *text;
	int documented = 0, known = 0, in_keys = 0;

	if (!example) {
		ok(1, "# skip share/examples/rag.yaml not found");
	} else {
		is_int(load(&c, example), 0, "share/examples/rag.yaml loads (%s)", err);
		if (c.path) rag_config_free(&c);
	}
	if (!manpage || !(f = fopen(manpage, "r"))) {
		ok(1, "# skip rag-config.5 not found");
		return;
	}
	while (fgets(line, sizeof line, f)) {
		char *dot;
		size_t n;
		if (!strncmp(line, ".SH ", 4)) in_keys = !strncmp(line, ".SH KEYS", 8);
		/* the key headings: .BR llm.model " (string)" */
		if (!in_keys || strncmp(line, ".BR ", 4)) continue;
		n = strspn(line + 4, "abcdefghijklmnopqrstuvwxyz_.");
		if (!n || n >= sizeof name || strncmp(line + 4 + n, " \" (", 4)) continue;
		memcpy(name, line + 4, n);
		name[n] = 0;
		documented++;
		dot = strrchr(name, '.');
		if (dot) {
			*dot = 0;
			text = rag_xasprintf("%s:\n  %s: ${T_UNSET_FOR_MAN}\n", name, dot + 1);
			*dot = '.';
		} else {
			text = rag_xasprintf("%s: ${T_UNSET_FOR_MAN}\n", name);
		}
		if (strstr(fails(text), "T_UNSET_FOR_MAN")) known++;
		else printf("# rag-config.5 documents \"%s\": %s\n", name, err);
		free(text);
	}
	fclose(f);
	is_int(documented, 97, "rag-config.5 documents 97 keys");
	is_int(known, documented, "the parser knows every documented key");
}

/* prices: model -> {input, output}, a price left empty unknown (NAN), the errors */
static void test_prices(void)
{
	rag_config c;
	jv j, d;
	ok(load_text(&c, "prices:\n  currency: EUR\n  gpt-x.1:\n    input: 0.5\n    output: 2\n"
	                 "  emb:\n    input: 0.02\n    output:\n") == 0, "prices load");
	is_str(c.prices.currency, "EUR", "prices.currency");
	is_int(c.prices.n, 2, "two models priced");
	is_str(c.prices.v[0].model, "gpt-x.1", "a model's name may hold dots");
	is_num(c.prices.v[0].input, 0.5, 0, "input price");
	is_num(c.prices.v[0].output, 2, 0, "output price");
	ok(isnan(c.prices.v[1].output), "an empty price is unknown (NAN), not 0");
	j = rag_config_json(&c);
	d = jv_dump_string(jv_object_get(j, jv_string("prices")), 0);
	is_str(jv_string_value(d), "{\"currency\":\"EUR\",\"gpt-x.1\":{\"input\":0.5,\"output\":2},"
	       "\"emb\":{\"input\":0.02,\"output\":null}}", "the prices in the config's JSON (run.json)");
	jv_free(d);
	rag_config_free(&c);
	ok(load_text(&c, "llm:\n  model: m\n") == 0, "no prices section");
	is_str(c.prices.currency, "USD", "prices.currency defaults to USD");
	is_int(c.prices.n, 0, "no price by default");
	rag_config_free(&c);
	ok(strstr(fails("prices:\n  m: 1\n"), "t.yaml:2:6: price of \"m\" must be a mapping") != NULL, "a price that is a number");
	ok(strstr(fails("prices:\n  m:\n    input: x\n"), "\"input\" of the price of \"m\" must be a number of at least 0") != NULL,
	   "a price that is not a number");
	ok(strstr(fails("prices:\n  m:\n    input: -0.1\n"), "must be a number of at least 0") != NULL, "a negative price");
	ok(strstr(fails("prices:\n  m:\n    cached: 1\n"), "unknown key \"cached\" in the price of \"m\"") != NULL, "an unknown key");
}

/* run.json's configuration (rag-eval): the loaded values, no secret */
static void test_config_json(void)
{
	rag_config c;
	jv j, d;
	const char *t;
	setenv("T_PW", "pw-" SECRET, 1);
	setenv("RAG_API_KEY", SECRET, 1);
	is_int(load_text(&c, "llm:\n  model: m1\n  base_url: http://u:${T_PW}@h:1/v1\n  api_key: x" SECRET "\n"
	                     "embeddings:\n  api_key: y" SECRET "\n"
	                     "gate:\n  mean:\n    faithfulness: 0.8\n"
	                     "eval:\n  metrics: [faithfulness, mrr]\n  runs_dir: r\n"
	                     "collect:\n  url: http://svc/ask\n  headers:\n    Authorization: Bearer h${T_PW}\n"
	                     "system:\n  top_k: 5\n  prompt_version: \"7\"\n"), 0, "a config with secrets loads (%s)", err);
	j = rag_config_json(&c);
	d = jv_dump_string(jv_copy(j), JV_PRINT_SORTED);
	t = jv_string_value(d);
	ok(!strstr(t, SECRET), "no secret in the JSON of the config");
	ok(strstr(t, "\"base_url\":\"http://u:***@h:1/v1\"") != NULL, "a URL's password masked");
	ok(strstr(t, "\"model\":\"m1\"") != NULL, "llm.model kept");
	ok(strstr(t, "\"mean\":{\"faithfulness\":0.8}") != NULL, "gate.mean as a mapping");
	ok(strstr(t, "\"metrics\":[\"faithfulness\",\"mrr\"]") != NULL, "eval.metrics as a list");
	ok(strstr(t, "\"url\":\"http://svc/ask\"") != NULL && strstr(t, "\"command\":null") != NULL, "collect's keys");
	ok(!strstr(t, "pw-") && !strstr(t, "Authorization"), "collect.headers left out, names and values");
	ok(strstr(t, "\"system\":{\"prompt_version\":\"7\",\"top_k\":5}") != NULL, "system: a number as a number, a quoted value as a string");
	ok(strstr(t, "\"runs_dir\":\"r\"") != NULL, "eval.runs_dir");
	jv_free(d);
	jv_free(j);
	rag_config_free(&c);
	unsetenv("T_PW");
	unsetenv("RAG_API_KEY");
}

/* the message of a config that must fail holds want */
#define like(got, want, ...) do { const char *g_ = (got); ok(strstr(g_, (want)) != NULL, __VA_ARGS__); \
	if (!strstr(g_, (want))) printf("# got: %s\n", g_); } while (0)

/* llm.headers, llm.query, the providers' keys (rag-config(5) PROVIDERS) */
static void test_providers(void)
{
	rag_config c;
	jv j, d;
	const char *t;
	setenv("T_GW", "gw-" SECRET, 1);
	is_int(load_text(&c, "llm:\n  provider: azure\n  deployment: dep\n  temperature: omit\n"
	                     "  max_tokens_param: max_completion_tokens\n  reasoning_effort: low\n"
	                     "  headers:\n    X-Gateway-Token: ${T_GW}\n    HTTP-Referer: https://x\n"
	                     "  query:\n    tenant: t1\n"
	                     "embeddings:\n  deployment: emb\n  headers:\n    X-E: e${T_GW}\n"), 0,
	       "provider keys load (%s)", err);
	is_int((int)c.llm.nheaders, 2, "llm.headers: two");
	is_str(c.llm.headers[0].key, "X-Gateway-Token", "a header's name as written");
	is_str(c.llm.headers[0].value, "gw-" SECRET, "its value, ${VAR} expanded");
	is_str(c.embeddings.headers[0].value, "egw-" SECRET, "embeddings.headers expanded");
	is_str(c.llm.query[0].value, "t1", "llm.query");
	is_str(c.llm.api_version, "2024-10-21", "a deployment's api-version by default");
	ok(isnan(c.llm.temperature), "temperature: omit is no temperature");
	is_str(c.llm.max_tokens_param, "max_completion_tokens", "max_tokens_param");
	is_str(c.llm.reasoning_effort, "low", "reasoning_effort");
	ok(rag_config_online(c.llm.provider), "azure is an endpoint");
	j = rag_config_json(&c);
	d = jv_dump_string(jv_copy(j), JV_PRINT_SORTED);
	t = jv_string_value(d);
	ok(!strstr(t, SECRET) && !strstr(t, "X-Gateway-Token") && !strstr(t, "Referer"),
	   "llm.headers and embeddings.headers left out of the JSON, names and values");
	ok(strstr(t, "\"temperature\":\"omit\"") != NULL, "temperature: omit shown as such");
	ok(strstr(t, "\"query\":{\"tenant\":\"t1\"}") != NULL, "llm.query shown");
	jv_free(d);
	jv_free(j);
	rag_config_free(&c);
	like(fails("llm:\n  deployment: d\n"), "needs llm.provider: azure", "a deployment without azure");
	like(fails("embeddings:\n  deployment: d\n"), "needs embeddings.provider", "an embeddings deployment without azure");
	like(fails("llm:\n  headers:\n    X-A: \"a\\nb\"\n"), "llm.headers: header \"X-A\" must be", "a header value of two lines");
	like(fails("llm:\n  headers:\n    \"X A\": b\n"), "must be a name without", "a header name with a blank");
	like(fails("llm:\n  headers:\n    X-A: ${T_UNSET_GW}\n"), "\"T_UNSET_GW\" is not set", "an unset ${VAR} named");
	like(fails("llm:\n  headers:\n    X-A: ${" SECRET "x}\n"), "bad variable name in \"${...}\"", "a secret pasted in the braces...");
	ok(!strstr(err, SECRET), "...never in the message");
	like(fails("llm:\n  provider: anthropic\n"), "must be one of", "an unknown provider");
	like(fails("llm:\n  reasoning_effort: huge\n"), "must be one of", "an unknown reasoning effort");
	unsetenv("T_GW");
}

int main(void)
{
	char *cmd, *example = realpath("share/examples/rag.yaml", NULL);
	char *manpage = realpath("share/man/man5/rag-config.5", NULL);
	if (!mkdtemp(root) || chdir(root) < 0) {
		perror(root);
		return 1;
	}
	clear_env();
	setenv("HOME", root, 1);
	test_defaults();
	test_all_keys();
	test_bools_and_nulls();
	test_errors();
	test_expansion();
	test_paths();
	test_search_order();
	test_env_overrides();
	test_api_key();
	test_mode_names();
	test_shipped_files(example, manpage);
	test_config_json();
	test_providers();
	test_prices();
	free(example);
	free(manpage);
	rag_buf_free(&all_errors);
	if (chdir("/") == 0) {
		cmd = rag_xasprintf("rm -rf '%s'", root);
		if (system(cmd) != 0) printf("# could not remove %s\n", root);
		free(cmd);
	}
	return done_testing();
}
