/* rag-collect - run the RAG system under test on each test case: its answer, the contexts it
 * retrieved and their ids, how long it took, and the settings of the system (rag-collect(1)). */
#include "tool.h"
#include "base.h"
#include "config.h"
#include "record.h"
#include "stream.h"
#include "collect.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-collect [OPTIONS] < testset.jsonl > records.jsonl\n"
	"Call the RAG system under test for each record, by HTTP (--url) or a command run per record\n"
	"(--command), and fill answer, contexts, context_ids, latency_ms and status; every other\n"
	"field passes through. A failed call leaves answer null with an errors entry (exit 4).\n";

enum { OPT_URL = RAG_OPT_TOOL, OPT_COMMAND, OPT_METHOD, OPT_TIMEOUT, OPT_BODY, OPT_ANSWER, OPT_CONTEXTS,
       OPT_IDS, OPT_SYSTEM, OPT_SYSTEM_FROM, OPT_STREAM, OPT_RETRIES };

static const rag_opt options[] = {
	{"url", 0, OPT_URL, "URL", NULL, "the service to call (collect.url)"},
	{"command", 0, OPT_COMMAND, "CMD", NULL, "run CMD by /bin/sh -c per record instead: the record on its\n"
	 "stdin, one JSON object on its stdout (collect.command)"},
	{"method", 'X', 'X', "METHOD", "POST GET PUT PATCH", "HTTP method (collect.method, default POST)"},
	{"header", 'H', 'H', "NAME:VALUE", NULL, "a request header, repeatable (collect.headers); the value\n"
	 "is a secret: never shown"},
	{"body", 0, OPT_BODY, "JQ", NULL, "jq program: record -> request body (collect.body,\n"
	 "default {question: .question})"},
	{"answer", 0, OPT_ANSWER, "JQ", NULL, "jq program: reply -> answer (collect.answer)"},
	{"contexts", 0, OPT_CONTEXTS, "JQ", NULL, "jq program: reply -> contexts (collect.contexts)"},
	{"ids", 0, OPT_IDS, "JQ", NULL, "jq program: reply -> context_ids (collect.context_ids)"},
	{"stream", 0, OPT_STREAM, "WHEN", "auto true false", "the reply is Server-Sent Events: auto (by\n"
	 "Content-Type), true, false (collect.stream)"},
	{"system", 0, OPT_SYSTEM, "KEY=VALUE", NULL, "a setting of the system for each record's system\n"
	 "object, repeatable (the config's system section)"},
	{"system-from", 0, OPT_SYSTEM_FROM, "JQ", NULL, "jq program: reply -> the settings it ran with, an object\n"
	 "into the record's system, over the configured ones (collect.system_from)"},
	{"timeout", 0, OPT_TIMEOUT, "SECONDS", NULL, "seconds a call or command may take (collect.timeout,\n"
	 "default 60)"},
	{"retries", 0, OPT_RETRIES, "N", NULL, "retries of a failed call (collect.retries)"},
	{"concurrency", 'j', 'j', "N", NULL, "calls or commands at once (collect.concurrency)"},
	{"cache", 0, RAG_OPT_CACHE, "MODE", RAG_CLI_CACHE_VALUES, "cache of the replies: rw | ro | replay | off\n"
	 "(collect.cache, default off)"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	rag_collect *col;
	int default_body;         /* the body program is the default: the record needs a question */
} tool;

static void collected(void *arg, jv fields, const char *error)
{
	rag_item *it = arg;
	tool *t = it->data;
	it->rec = rag_collect_merge(t->col, it->rec, fields);
	if (error) {
		it->rec = rag_record_error(it->rec, "rag-collect", NULL, "%s", error);
		rag_item_remote_error(it, error);
	}
	rag_item_release(it);
}

static void start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	const char *q;
	char why[RAG_ERRLEN];
	it->stage = "answer";
	if (t->default_body) {
		/* the default request sends the question: a record without one has nothing to ask */
		if (rag_record_need_text(it->rec, "question", RAG_FIELD_NONEMPTY, &q, why, sizeof why) < 0) {
			it->rec = jv_object_set(it->rec, jv_string("answer"), jv_null());
			rag_item_input_error(it, "rag-collect", NULL, "%s", why);
			return;
		}
	}
	it->data = t;
	rag_item_hold(it);
	rag_collect_record(t->col, it->rec, collected, it);
}

static int run(void *ctx, int fd, double timeout)
{
	tool *t = ctx;
	return rag_collect_run(t->col, fd, timeout);
}

static void cancel(void *ctx)
{
	tool *t = ctx;
	rag_collect_cancel(t->col, "interrupted before the system answered");
}

/* -H 'Name: value' into the config's headers (a flag's header replaces the file's of that name). */
static int add_header(rag_cli *cli, const char *arg)
{
	const char *colon = strchr(arg, ':'), *v;
	rag_config *cfg = &cli->cfg;
	size_t n, i;
	char *name;
	if (!colon || colon == arg || strcspn(arg, " \t") < (size_t)(colon - arg)) {
		/* the value may be a token: the message names none of the argument */
		rag_msg(cli->prog, "error", "--header must be NAME: VALUE, a name without blanks before a colon");
		return -1;
	}
	n = (size_t)(colon - arg);
	for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
		;
	name = rag_xstrndup(arg, n);
	for (i = 0; i < cfg->collect.nheaders; i++) {
		if (!strcasecmp(cfg->collect.headers[i].key, name)) {
			free(name);
			rag_set_str(&cfg->collect.headers[i].value, v);
			return 0;
		}
	}
	cfg->collect.headers = rag_xrealloc(cfg->collect.headers, (cfg->collect.nheaders + 1) * sizeof *cfg->collect.headers);
	cfg->collect.headers[cfg->collect.nheaders].key = name;
	cfg->collect.headers[cfg->collect.nheaders].value = rag_xstrdup(v);
	cfg->collect.nheaders++;
	return 0;
}

/* --system KEY=VALUE over the config's system section: VALUE read as a plain YAML scalar would be. */
static int add_system(rag_cli *cli, const char *arg)
{
	const char *eq = strchr(arg, '=');
	rag_config *cfg = &cli->cfg;
	char *key;
	jv v, d;
	size_t i;
	if (!eq || eq == arg) {
		rag_msg(cli->prog, "error", "--system must be KEY=VALUE, not \"%s\"", arg);
		return -1;
	}
	key = rag_xstrndup(arg, (size_t)(eq - arg));
	v = rag_config_scalar(eq + 1);
	d = jv_dump_string(v, 0);
	for (i = 0; i < cfg->nsystem && strcmp(cfg->system[i].key, key); i++)
		;
	if (i == cfg->nsystem) {
		cfg->system = rag_xrealloc(cfg->system, (cfg->nsystem + 1) * sizeof *cfg->system);
		cfg->system[i].key = key;
		cfg->system[i].value = NULL;
		cfg->nsystem++;
	} else {
		free(key);
	}
	rag_set_str(&cfg->system[i].value, jv_string_value(d));
	jv_free(d);
	return 0;
}

/* Knobs that are recorded but never sent: the service runs with its own (a top_k of 1 in every
 * record, the service's 3 in its answers). Said once, at the start. */
static void warn_unsent_knobs(const rag_cli *cli, const rag_collect *col)
{
	char knobs[256];
	int n = rag_collect_unsent_knobs(col, knobs, sizeof knobs);
	if (n)
		rag_msg(cli->prog, "warning", "the system setting%s %s %s recorded in every record but not in the "
		        "request (its body is %s): send %s with --body (collect.body), as "
		        "'{question, top_k: .system.top_k}', and record what the service ran with --system-from",
		        n == 1 ? "" : "s", knobs, n == 1 ? "is" : "are",
		        cli->cfg.collect.body ? "collect.body's" : "the default, {question}", n == 1 ? "it" : "them");
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_stream_ops ops = {start, NULL, run, cancel};
	int opt, rc, done, i;
	const char *url = NULL, *command = NULL, *method = NULL, *body = NULL, *answer = NULL, *contexts = NULL,
	           *ids = NULL, *stream = NULL, *cache = NULL, *sysfrom = NULL;
	rag_strv headers = {0}, systems = {0};
	double timeout = 0;
	long retries = -1, conc = 0;
	char err[RAG_ERRLEN];

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-collect";
	cli.usage = usage;
	cli.opts = options;
	cli.remote_noun = "service error";
	t.cli = &cli;
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case OPT_URL: url = optarg; break;
		case OPT_COMMAND: command = optarg; break;
		case 'X':
			if (strcmp(optarg, "POST") && strcmp(optarg, "GET") && strcmp(optarg, "PUT") && strcmp(optarg, "PATCH")) {
				rag_msg(cli.prog, "error", "--method must be one of POST, GET, PUT, PATCH, not \"%s\"", optarg);
				return rag_cli_misuse(&cli);
			}
			method = optarg;
			break;
		case 'H': rag_strv_push(&headers, rag_xstrdup(optarg)); break;
		case OPT_BODY: body = optarg; break;
		case OPT_ANSWER: answer = optarg; break;
		case OPT_CONTEXTS: contexts = optarg; break;
		case OPT_IDS: ids = optarg; break;
		case OPT_STREAM:
			if (strcmp(optarg, "auto") && strcmp(optarg, "true") && strcmp(optarg, "false")) {
				rag_msg(cli.prog, "error", "--stream must be one of auto, true, false, not \"%s\"", optarg);
				rc = rag_cli_misuse(&cli);
				goto out;
			}
			stream = optarg;
			break;
		case OPT_SYSTEM: rag_strv_push(&systems, rag_xstrdup(optarg)); break;
		case OPT_SYSTEM_FROM: sysfrom = optarg; break;
		case OPT_TIMEOUT:
			if (rag_cli_double(&cli, "--timeout", optarg, 0, 86400, 1, &timeout)) {
				rc = rag_cli_misuse(&cli);
				goto out;
			}
			break;
		case OPT_RETRIES:
			if (rag_cli_int(&cli, "--retries", optarg, 0, 100, &retries)) {
				rc = rag_cli_misuse(&cli);
				goto out;
			}
			break;
		case 'j':
			if (rag_cli_int(&cli, "--concurrency", optarg, 1, 1024, &conc)) {
				rc = rag_cli_misuse(&cli);
				goto out;
			}
			break;
		case RAG_OPT_CACHE:
			if (rag_config_cache_mode_parse(optarg) < 0) {
				rag_msg(cli.prog, "error", "--cache must be one of rw, ro, replay, off, not \"%s\"", optarg);
				rc = rag_cli_misuse(&cli);
				goto out;
			}
			cache = optarg;
			break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) goto out;
		}
	}
	if ((rc = rag_cli_no_operands(&cli, argc, argv))) goto out;
	if ((rc = rag_cli_config(&cli))) goto out;
	/* the flags over the config's collect section */
	if (url || command) {
		rag_set_str(&cli.cfg.collect.url, url);
		rag_set_str(&cli.cfg.collect.command, command);
	}
	if (method) rag_set_str(&cli.cfg.collect.method, method);
	if (body) rag_set_str(&cli.cfg.collect.body, body);
	if (answer) rag_set_str(&cli.cfg.collect.answer, answer);
	if (contexts) rag_set_str(&cli.cfg.collect.contexts, contexts);
	if (ids) rag_set_str(&cli.cfg.collect.context_ids, ids);
	if (sysfrom) rag_set_str(&cli.cfg.collect.system_from, sysfrom);
	if (stream) rag_set_str(&cli.cfg.collect.stream, stream);
	if (timeout > 0) cli.cfg.collect.timeout = timeout;
	if (retries >= 0) cli.cfg.collect.retries = (int)retries;
	if (conc) cli.cfg.collect.concurrency = (int)conc;
	if (cache) cli.cfg.collect.cache = rag_config_cache_mode_parse(cache);
	for (i = 0; i < (int)headers.n; i++)
		if (add_header(&cli, headers.v[i]) < 0) {
			rc = rag_cli_misuse(&cli);
			goto out;
		}
	for (i = 0; i < (int)systems.n; i++)
		if (add_system(&cli, systems.v[i]) < 0) {
			rc = rag_cli_misuse(&cli);
			goto out;
		}
	/* the stream's window follows the calls in flight */
	if (cli.cfg.collect.concurrency > 0) cli.cfg.llm.concurrency = cli.cfg.collect.concurrency;
	t.default_body = !cli.cfg.collect.body && !cli.cfg.collect.command;
	t.col = rag_collect_new(&cli.cfg, err, sizeof err);
	if (!t.col) {
		rag_msg(cli.prog, "error", "%s", err);
		rc = RAG_EXIT_USAGE;
		goto out;
	}
	warn_unsent_knobs(&cli, t.col);
	if (cli.verbose)
		rag_msg(cli.prog, "info", "%s %s, config %s, cache %s", cli.cfg.collect.command ? "command" : "service",
		        cli.cfg.collect.command ? "(collect.command)" : "(collect.url)", cli.cfg.path ? cli.cfg.path : "(none)",
		        rag_config_cache_mode_name(cli.cfg.collect.cache));
	rc = rag_cli_run(&cli, &ops, &t);
	if (!cli.quiet && cli.verbose) {
		rag_collect_counts s;
		rag_collect_stats(t.col, &s);
		fprintf(stderr, "%s: %ld call%s (%ld from cache), %ld retr%s, %ld failed\n", cli.prog, s.requests,
		        s.requests == 1 ? "" : "s", s.cache_hits, s.retries, s.retries == 1 ? "y" : "ies", s.failed);
	}
out:
	rag_collect_free(t.col);
	rag_strv_free(&headers);
	rag_strv_free(&systems);
	rag_cli_free(&cli);
	return rc;
}
