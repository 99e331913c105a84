/* t-collect.c - rag-collect's configuration (collect:, system:) and set-up: scalars typed as
 * written, header values kept out of every message, the checks of rag_collect_new, and the
 * system object written into a record without overwriting its own keys. */
#include "base.h"
#include "config.h"
#include "collect.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SECRET "tok-SECRET-0123456789"

static char root[] = "/tmp/t-collect-XXXXXX";
static char err[RAG_ERRLEN];

static int load_text(rag_config *c, const char *text)
{
	FILE *f = fopen("t.yaml", "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("# cannot write t.yaml\n");
		exit(1);
	}
	err[0] = 0;
	return rag_config_load(c, "t.yaml", err, sizeof err);
}

static const char *sys_value(const rag_config *c, const char *key)
{
	size_t i;
	for (i = 0; i < c->nsystem; i++)
		if (!strcmp(c->system[i].key, key)) return c->system[i].value;
	return NULL;
}

static char *dump(jv v)
{
	jv d = jv_dump_string(v, JV_PRINT_SORTED);
	char *s = rag_xstrdup(jv_string_value(d));
	jv_free(d);
	return s;
}

int main(void)
{
	rag_config c;
	rag_collect *col;
	char *s;
	jv v;

	if (!mkdtemp(root) || chdir(root) != 0) {
		printf("Bail out! cannot make a temporary directory\n");
		return 1;
	}
	unsetenv("RAG_CONFIG");
	setenv("HOME", root, 1);
	setenv("XDG_CACHE_HOME", root, 1);
	setenv("XDG_CONFIG_HOME", root, 1);

	/* defaults */
	ok(load_text(&c, "") == 0, "an empty file loads");
	ok(c.collect.url == NULL && c.collect.command == NULL, "collect.url and collect.command are NULL when unset");
	is_int(c.collect.cache, RAG_CACHE_OFF, "collect.cache is off by default");
	is_num(c.collect.timeout, 60, 0, "collect.timeout is 60 by default");
	is_int(c.collect.retries, -1, "collect.retries defaults to llm.retries (-1)");
	ok(rag_collect_new(&c, err, sizeof err) == NULL && strstr(err, "collect.url or collect.command"),
	   "no url and no command: rag_collect_new says what to set");
	rag_config_free(&c);

	/* every key */
	setenv("T_COLLECT_TOKEN", SECRET, 1);
	ok(load_text(&c, "collect:\n  url: http://127.0.0.1:9/ask\n  method: PUT\n  headers:\n"
	             "    Authorization: Bearer ${T_COLLECT_TOKEN}\n    X-Team: a\n  body: '{q: .question}'\n"
	             "  stream: true\n  timeout: 5\n  concurrency: 3\n  retries: 0\n  requests_per_minute: 60\n"
	             "  cache: rw\nsystem:\n  top_k: 5\n  threshold: 0.7\n  rerank: true\n  model: gpt-x\n"
	             "  version: \"3\"\n") == 0, "a collect: and a system: section load (%s)", err);
	is_str(c.collect.url, "http://127.0.0.1:9/ask", "collect.url");
	is_str(c.collect.method, "PUT", "collect.method");
	is_int(c.collect.nheaders, 2, "two headers");
	is_str(c.collect.headers[0].value, "Bearer " SECRET, "a header's ${VAR} expanded");
	is_str(c.collect.stream, "true", "collect.stream");
	is_int(c.collect.concurrency, 3, "collect.concurrency");
	is_int(c.collect.cache, RAG_CACHE_RW, "collect.cache");
	is_str(sys_value(&c, "top_k"), "5", "system: a plain integer is a number");
	is_str(sys_value(&c, "threshold"), "0.7", "system: a plain decimal is a number");
	is_str(sys_value(&c, "rerank"), "true", "system: true is a boolean");
	is_str(sys_value(&c, "model"), "\"gpt-x\"", "system: a word is a string");
	is_str(sys_value(&c, "version"), "\"3\"", "system: a quoted number is a string");
	col = rag_collect_new(&c, err, sizeof err);
	ok(col != NULL, "rag_collect_new with a URL (%s)", err);
	if (col) {
		v = rag_collect_system(col, jv_parse("{\"id\": 1, \"system\": {\"top_k\": 9}}"));
		s = dump(v);
		is_str(s, "{\"id\":1,\"system\":{\"model\":\"gpt-x\",\"rerank\":true,\"threshold\":0.7,\"top_k\":9,\"version\":\"3\"}}",
		       "the system object: the config's keys added, the record's own kept");
		free(s);
		v = rag_collect_system(col, jv_parse("{\"system\": \"not an object\"}"));
		s = dump(v);
		ok(strstr(s, "\"top_k\":5") != NULL, "a system field that is no object is replaced by the config's");
		free(s);
		rag_collect_free(col);
	}
	rag_config_free(&c);

	/* messages never hold a header's value */
	ok(load_text(&c, "collect:\n  headers:\n    Authorization: Bearer ${tok-SECRET-0123456789}\n") < 0,
	   "a bad variable name in a header fails");
	ok(strstr(err, "SECRET") == NULL, "and the message does not echo what was between the braces (%s)", err);
	ok(load_text(&c, "collect:\n  headers:\n    Authorization: [a, b]\n") < 0, "a header that is a list fails");
	ok(load_text(&c, "collect:\n  method: DELETE\n") < 0 && strstr(err, "POST"), "an unknown method fails, naming the choices");
	ok(load_text(&c, "collect:\n  stream: maybe\n") < 0, "collect.stream is auto, true or false");
	ok(load_text(&c, "collect:\n  timeout: 0\n") < 0, "collect.timeout must be above 0");
	ok(load_text(&c, "system:\n  top_k: [1, 2]\n") < 0, "a system value must be a single value");

	/* set-up checks */
	ok(load_text(&c, "collect:\n  url: http://x/\n  command: cat\n") == 0, "url and command load");
	ok(rag_collect_new(&c, err, sizeof err) == NULL && strstr(err, "both"), "but rag_collect_new refuses both");
	rag_config_free(&c);
	ok(load_text(&c, "collect:\n  command: cat\n  answer: '.answer |||'\n") == 0, "a bad program loads");
	ok(rag_collect_new(&c, err, sizeof err) == NULL && strstr(err, "collect.answer: the jq program does not compile"),
	   "rag_collect_new names the program that does not compile (%s)", err);
	rag_config_free(&c);
	ok(load_text(&c, "collect:\n  command: cat\n") == 0, "a command loads");
	col = rag_collect_new(&c, err, sizeof err);
	ok(col != NULL, "rag_collect_new with a command");
	if (col) is_str(rag_collect_target(col), "cat", "its target is the command");
	rag_collect_free(col);
	rag_config_free(&c);

	/* rag_config_scalar */
	s = dump(rag_config_scalar("512"));
	is_str(s, "512", "scalar: 512");
	free(s);
	s = dump(rag_config_scalar("off"));
	is_str(s, "false", "scalar: off is false (YAML 1.1)");
	free(s);
	s = dump(rag_config_scalar("v3"));
	is_str(s, "\"v3\"", "scalar: v3 is a string");
	free(s);
	s = dump(rag_config_scalar("1e400"));
	is_str(s, "\"1e400\"", "scalar: a number too large is a string");
	free(s);

	unlink("t.yaml");
	chdir("/");
	rmdir(root);
	return done_testing();
}
