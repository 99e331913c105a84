/* collect.c - rag-collect's work on one record: call the system under test and take its answer,
 * its contexts and their ids from what it says.
 *
 * Two ways to call it. HTTP: a request body made from the record by a jq program, sent through
 * llm.c's generic request (the one client: its queue, retries, rate limit and cache), and the
 * fields taken from the reply by jq programs. Command: /bin/sh -c COMMAND per record, the record
 * on its standard input, one JSON object read from its standard output, the same programs over
 * it; at most `concurrency` at once, each in its own process group, killed (SIGTERM, then
 * SIGKILL) when it outlives the timeout. Its answer is what it printed by the time it exited
 * (a pidfd says when), not what a child it left in the background holding its output lets
 * through later; such a child's group is ended the same way. Every jq program is compiled once,
 * at set-up. */
#include "base.h"
#include "config.h"
#include "llm.h"
#include "collect.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define KILL_GRACE 2.0          /* seconds from SIGTERM to SIGKILL */
#define EXIT_POLL 0.1           /* without a pidfd: how often to look whether a command exited */
#define OUT_MAX ((size_t)64 << 20)
#define ERR_KEEP 4096           /* bytes of a command's standard error kept for its message */

/* The sources of a reply: .sources of the reply object, or of the events of a stream that carry
 * them; each a string or an object {id, text}. */
#define SOURCES "(if type == \"array\" then ([.[] | objects | .sources // empty] | " \
	"if length > 0 then add else null end) elif type == \"object\" then .sources else null end) as $s | "
RAG_UNITTEST jv rag_collect_system(const rag_collect *c, jv rec);

static const char default_body[] = "{question: .question} + (if (.history | type) == \"array\" then {history: .history} else {} end)";
/* a JSON reply {"answer"}, an OpenAI chat completion, or the events of a stream: OpenAI's chunks
 * (choices[0].delta.content), or events carrying "answer", "delta" or "text" pieces */
static const char default_answer[] =
	"if type == \"array\" then [.[] | if type == \"object\" then (.choices[0].delta.content // .answer"
	" // .delta // .text // empty) else . end | strings] | join(\"\")"
	" else .answer // .choices[0].message.content end";
static const char default_contexts[] =
	SOURCES "if $s == null then null else [$s[] | if type == \"object\" then .text else . end] end";
static const char default_ids[] =
	SOURCES "if $s == null then null else [$s[] | objects | .id // empty] | if length > 0 then . else null end end";

typedef struct job job;
struct job {
	job *next;
	rag_collect *c;
	rag_collect_cb cb;         /* command mode: NULL once answered, while what it left is ended */
	void *arg;
	/* command mode */
	char *input;
	size_t inlen, inoff;
	pid_t pid;
	int in_fd, out_fd, err_fd, pid_fd;   /* pid_fd: readable when the command exits; -1 without */
	rag_buf out, err;
	double t0, term_at;        /* term_at: when SIGTERM went, 0 before */
	int timed_out;
};

struct rag_collect {
	int command_mode;
	char *url, *command, *method;
	const rag_kv *headers;     /* borrowed from the configuration */
	size_t nheaders;
	int sse;
	double timeout;
	int concurrency;
	rag_jq *body, *answer, *contexts, *ids, *sysfrom;
	rag_llm *llm;
	rag_cache *cache;
	jv system;
	job *queue, *queue_tail, *running;
	int nrunning;
	rag_collect_counts stats;
};

/* The collect.WHAT program, compiled once (json.c's rag_jq, the one wrapper of libjq). */
static rag_jq *compile(const char *what, const char *prog, char *err, size_t errlen)
{
	char why[RAG_ERRLEN];
	rag_jq *q = rag_jq_new(prog, why, sizeof why);
	if (!q) rag_seterr(err, errlen, "collect.%s: %s", what, why);
	return q;
}

/* The first result of the collect.WHAT program over input (consumed): 1 with *out, 0 when it
 * gives nothing, -1 and err when it fails. */
static int run_jq(rag_jq *q, const char *what, jv input, jv *out, char *err, size_t errlen)
{
	char why[RAG_ERRLEN];
	int got = rag_jq_first(q, input, out, why, sizeof why);
	if (got < 0) rag_seterr(err, errlen, "collect.%s: %s", what, why);
	return got;
}

rag_collect *rag_collect_new(const rag_config *cfg, char *err, size_t errlen)
{
	const __typeof__(cfg->collect) *k = &cfg->collect;
	rag_collect *c;
	if (!k->url && !k->command) {
		rag_seterr(err, errlen, "no system to collect from: set collect.url or collect.command (--url, --command)");
		return NULL;
	}
	if (k->url && k->command) {
		rag_seterr(err, errlen, "collect.url and collect.command are both set: the system is called one way");
		return NULL;
	}
	c = rag_xcalloc(1, sizeof *c);
	c->command_mode = k->command != NULL;
	c->url = k->url ? rag_xstrdup(k->url) : NULL;
	c->command = k->command ? rag_xstrdup(k->command) : NULL;
	c->method = rag_xstrdup(k->method ? k->method : "POST");
	c->headers = k->headers;
	c->nheaders = k->nheaders;
	c->sse = !k->stream || !strcmp(k->stream, "auto") ? -1 : !strcmp(k->stream, "true");
	c->timeout = k->timeout > 0 ? k->timeout : 60;
	c->concurrency = k->concurrency > 0 ? k->concurrency : cfg->llm.concurrency > 0 ? cfg->llm.concurrency : 8;
	c->system = jv_object();
	for (size_t i = 0; i < cfg->nsystem; i++) {
		jv v = jv_parse(cfg->system[i].value);
		if (!jv_is_valid(v)) {
			jv_free(v);
			v = jv_string(cfg->system[i].value);
		}
		c->system = jv_object_set(c->system, jv_string(cfg->system[i].key), v);
	}
	{
		/* one compile for all of them (rag_jq_new_set: 4 compiles took 0.11 s of the start,
		 * before the first request); each alone only for the message of one that fails */
		rag_jq **dst[5];
		const char *progs[5];
		rag_jq *got[5];
		size_t n = 0, i;
		if (!c->command_mode) dst[n] = &c->body, progs[n++] = k->body ? k->body : default_body;
		dst[n] = &c->answer, progs[n++] = k->answer ? k->answer : default_answer;
		dst[n] = &c->contexts, progs[n++] = k->contexts ? k->contexts : default_contexts;
		dst[n] = &c->ids, progs[n++] = k->context_ids ? k->context_ids : default_ids;
		if (k->system_from) dst[n] = &c->sysfrom, progs[n++] = k->system_from;
		if (!rag_jq_new_set(progs, n, got))
			for (i = 0; i < n; i++) *dst[i] = got[i];
	}
	if (!c->answer &&   /* the set did not compile: each alone, for the message */
	    ((!c->command_mode && !(c->body = compile("body", k->body ? k->body : default_body, err, errlen))) ||
	     !(c->answer = compile("answer", k->answer ? k->answer : default_answer, err, errlen)) ||
	     !(c->contexts = compile("contexts", k->contexts ? k->contexts : default_contexts, err, errlen)) ||
	     !(c->ids = compile("context_ids", k->context_ids ? k->context_ids : default_ids, err, errlen)) ||
	     (k->system_from && !(c->sysfrom = compile("system_from", k->system_from, err, errlen))))) {
		rag_collect_free(c);
		return NULL;
	}
	if (!c->command_mode) {
		/* the one client, with collect's own settings where it has them */
		rag_config cc = *cfg;
		char cerr[RAG_ERRLEN];
		cc.llm.timeout = c->timeout;
		cc.llm.concurrency = c->concurrency;
		cc.llm.inflight_file = NULL;       /* the system under test is no part of the judge's budget */
		if (k->retries >= 0) cc.llm.retries = k->retries;
		if (k->rpm >= 0) cc.llm.rpm = k->rpm;
		cc.llm.tpm = 0;
		cc.llm.api_key = NULL;              /* no Authorization of the judge's goes to the service */
		cc.embeddings.api_key = NULL;
		cc.cache.mode = k->cache;
		if (k->cache != RAG_CACHE_OFF && rag_cache_open_config(&cc, &c->cache, cerr, sizeof cerr) < 0) {
			rag_seterr(err, errlen, "collect.cache: %s", cerr);
			rag_collect_free(c);
			return NULL;
		}
		if (!(c->llm = rag_llm_new(&cc, c->cache, err, errlen))) {
			rag_collect_free(c);
			return NULL;
		}
	}
	return c;
}

int rag_collect_unsent_knobs(const rag_collect *c, char *names, size_t nameslen)
{
	jv probe, sys, body;
	char why[RAG_ERRLEN], *text;
	int n = 0, i = 0, got;
	size_t len = 0;
	if (nameslen) names[0] = '\0';
	if (c->command_mode || jv_object_length(jv_copy(c->system)) == 0) return 0;
	probe = jv_object();
	sys = jv_object();
	jv_object_keys_foreach(c->system, k) {
		sys = jv_object_set(sys, k, jv_string_fmt("\x1fragpipe-knob-%d\x1f", i++));
	}
	probe = jv_object_set(probe, jv_string("question"), jv_string("?"));
	probe = jv_object_set(probe, jv_string("system"), sys);
	got = rag_jq_first(c->body, probe, &body, why, sizeof why);
	if (got <= 0) return 0;
	body = jv_dump_string(body, 0);
	text = rag_xstrdup(jv_string_value(body));
	jv_free(body);
	i = 0;
	jv_object_keys_foreach(c->system, k) {
		char mark[48];
		snprintf(mark, sizeof mark, "\\u001fragpipe-knob-%d\\u001f", i++);
		if (!strstr(text, mark)) {
			const char *name = jv_string_value(k);
			if (nameslen && len + strlen(name) + 3 < nameslen)
				len += (size_t)snprintf(names + len, nameslen - len, "%s%s", n ? ", " : "", name);
			n++;
		}
		jv_free(k);
	}
	free(text);
	return n;
}

#ifdef RAG_UNITTESTS
/* what a call goes to: only the unit tests ask */
RAG_UNITTEST const char *rag_collect_target(const rag_collect *c)
{
	return c->command_mode ? c->command : c->url;
}
#endif

/* The fields a reply gives, into *fields: answer (a string), contexts and context_ids when the
 * programs give them. reply consumed. 0, or -1 and err. */
static int take_fields(rag_collect *c, jv reply, jv *fields, char *err, size_t errlen)
{
	jv a, cx, ids, texts, found_ids;
	int n, rc = -1;
	if ((n = run_jq(c->answer, "answer", jv_copy(reply), &a, err, errlen)) < 0) goto out0;
	if (jv_get_kind(a) != JV_KIND_STRING) {
		if (n == 0 || jv_get_kind(a) == JV_KIND_NULL)
			rag_seterr(err, errlen, "the reply has no answer (the answer program gave %s)", n ? "null" : "nothing");
		else
			rag_seterr(err, errlen, "the answer program gave %s, not a string", jv_kind_name(jv_get_kind(a)));
		jv_free(a);
		goto out0;
	}
	*fields = jv_object_set(*fields, jv_string("answer"), a);
	if (run_jq(c->contexts, "contexts", jv_copy(reply), &cx, err, errlen) < 0) goto out0;
	texts = jv_array();
	found_ids = jv_array();
	if (jv_get_kind(cx) == JV_KIND_ARRAY) {
		jv_array_foreach(cx, j, x) {
			if (jv_get_kind(x) == JV_KIND_OBJECT) {
				jv t = jv_object_get(jv_copy(x), jv_string("text")), id = jv_object_get(x, jv_string("id"));
				if (jv_get_kind(id) == JV_KIND_STRING || jv_get_kind(id) == JV_KIND_NUMBER)
					found_ids = jv_array_append(found_ids, id);
				else
					jv_free(id);
				x = t;
			}
			if (jv_get_kind(x) != JV_KIND_STRING) {
				rag_seterr(err, errlen, "the contexts program gave an array whose item %d is %s, not a string",
				           j, jv_kind_name(jv_get_kind(x)));
				jv_free(x);
				jv_free(texts);
				jv_free(found_ids);
				jv_free(cx);
				goto out0;
			}
			texts = jv_array_append(texts, x);
		}
		*fields = jv_object_set(*fields, jv_string("contexts"), texts);
	} else if (jv_get_kind(cx) != JV_KIND_NULL) {
		rag_seterr(err, errlen, "the contexts program gave %s, not an array", jv_kind_name(jv_get_kind(cx)));
		jv_free(texts);
		jv_free(found_ids);
		jv_free(cx);
		goto out0;
	} else {
		jv_free(texts);
	}
	jv_free(cx);
	if (run_jq(c->ids, "context_ids", jv_copy(reply), &ids, err, errlen) < 0) {
		jv_free(found_ids);
		goto out0;
	}
	if (jv_get_kind(ids) == JV_KIND_NULL && jv_array_length(jv_copy(found_ids)) > 0) {
		jv_free(ids);
		ids = jv_copy(found_ids);
	}
	jv_free(found_ids);
	if (jv_get_kind(ids) == JV_KIND_ARRAY) {
		int bad = 0;
		jv_array_foreach(ids, j, x) {
			if (jv_get_kind(x) != JV_KIND_STRING && jv_get_kind(x) != JV_KIND_NUMBER) bad = 1;
			jv_free(x);
		}
		if (bad) {
			rag_seterr(err, errlen, "the context_ids program gave an array of other things than strings and numbers");
			jv_free(ids);
			goto out0;
		}
		*fields = jv_object_set(*fields, jv_string("context_ids"), ids);
	} else if (jv_get_kind(ids) != JV_KIND_NULL) {
		rag_seterr(err, errlen, "the context_ids program gave %s, not an array", jv_kind_name(jv_get_kind(ids)));
		jv_free(ids);
		goto out0;
	} else {
		jv_free(ids);
	}
	if (c->sysfrom) {
		/* the knobs the reply says it ran with: an object, or nothing (null) */
		jv sys;
		if (run_jq(c->sysfrom, "system_from", jv_copy(reply), &sys, err, errlen) < 0) goto out0;
		if (jv_get_kind(sys) == JV_KIND_OBJECT) {
			*fields = jv_object_set(*fields, jv_string("system"), sys);
		} else if (jv_get_kind(sys) != JV_KIND_NULL) {
			rag_seterr(err, errlen, "the system program gave %s, not an object", jv_kind_name(jv_get_kind(sys)));
			jv_free(sys);
			goto out0;
		} else {
			jv_free(sys);
		}
	}
	rc = 0;
out0:
	jv_free(reply);
	return rc;
}

/* A failure's fields: the answer null, never an empty string that would score as a refusal. */
static void failed(job *j, jv fields, const char *msg)
{
	j->c->stats.failed++;
	fields = jv_object_set(fields, jv_string("answer"), jv_null());
	j->cb(j->arg, fields, msg);
}

/* ------------------------------------------------------------------ HTTP mode */

static void http_done(void *arg, const rag_llm_reply *r)
{
	job *j = arg;
	rag_collect *c = j->c;
	jv fields = jv_object(), reply;
	char err[RAG_ERRLEN];
	if (r->status) fields = jv_object_set(fields, jv_string("status"), jv_number((double)r->status));
	if (r->error) {
		failed(j, fields, r->error);
		goto out;
	}
	fields = jv_object_set(fields, jv_string("latency_ms"), jv_number(round(r->seconds * 1e4) / 10));
	if (r->cached) c->stats.cache_hits++;
	if (jv_get_kind(r->events) == JV_KIND_ARRAY) {
		reply = jv_copy(r->events);   /* each JSON where it is JSON; a stream not whole failed */
	} else {
		reply = jv_parse_sized(r->body, (int)r->body_len);
		if (!jv_is_valid(reply)) {
			jv m = jv_invalid_get_msg(reply);
			snprintf(err, sizeof err, "the service's reply is not JSON (%s)",
			         jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "unreadable");
			jv_free(m);
			failed(j, fields, err);
			goto out;
		}
	}
	if (take_fields(c, reply, &fields, err, sizeof err) < 0) {
		failed(j, fields, err);
		goto out;
	}
	rag_llm_commit(c->llm, r);
	j->cb(j->arg, fields, NULL);
out:
	free(j);
}

static void http_call(rag_collect *c, job *j, jv rec)
{
	jv body;
	char err[RAG_ERRLEN];
	int n = run_jq(c->body, "body", rec, &body, err, sizeof err);
	rag_http_req q;
	jv d;
	if (n <= 0) {
		if (n == 0) snprintf(err, sizeof err, "the body program gave nothing for this record");
		jv_free(body);
		failed(j, jv_object(), err);
		free(j);
		return;
	}
	/* a string is sent as it is (a form, a text); anything else as JSON */
	d = jv_get_kind(body) == JV_KIND_STRING ? body : jv_dump_string(body, 0);
	memset(&q, 0, sizeof q);
	q.method = c->method;
	q.url = c->url;
	q.headers = c->headers;
	q.nheaders = c->nheaders;
	q.body = strcmp(c->method, "GET") ? jv_string_value(d) : NULL;
	q.sse = c->sse;
	c->stats.requests++;
	rag_llm_http(c->llm, &q, http_done, j);
	jv_free(d);
}

/* ------------------------------------------------------------------ command mode */

static void close_fd(int *fd)
{
	if (*fd >= 0) close(*fd);
	*fd = -1;
}

static int spawn(rag_collect *c, job *j, char *err, size_t errlen)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1}, rc;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def, none;
	char *argv[] = {"sh", "-c", c->command, NULL};
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0) {
		rag_seterr(err, errlen, "cannot make a pipe: %s", strerror(errno));
		close_fd(&in[0]), close_fd(&in[1]), close_fd(&out[0]), close_fd(&out[1]);
		close_fd(&er[0]), close_fd(&er[1]);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, er[1], 2);
	posix_spawnattr_init(&at);
	/* its own process group, so that a timeout kills what it started too; the signals the tool
	 * handles or ignores are the defaults again in the command */
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawn(&j->pid, "/bin/sh", &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(in[0]);
	close(out[1]);
	close(er[1]);
	if (rc != 0) {
		rag_seterr(err, errlen, "cannot run /bin/sh: %s", strerror(rc));
		close(in[1]);
		close(out[0]);
		close(er[0]);
		return -1;
	}
	j->in_fd = in[1];
	j->out_fd = out[0];
	j->err_fd = er[0];
	j->pid_fd = pidfd_open(j->pid, 0);   /* not reaped before waitpid: it is this command */
	fcntl(j->in_fd, F_SETFL, fcntl(j->in_fd, F_GETFL) | O_NONBLOCK);
	fcntl(j->out_fd, F_SETFL, fcntl(j->out_fd, F_GETFL) | O_NONBLOCK);
	fcntl(j->err_fd, F_SETFL, fcntl(j->err_fd, F_GETFL) | O_NONBLOCK);
	j->t0 = rag_now();
	return 0;
}

static void start_commands(rag_collect *c)
{
	while (c->queue && c->nrunning < c->concurrency) {
		job *j = c->queue;
		char err[RAG_ERRLEN];
		c->queue = j->next;
		if (!c->queue) c->queue_tail = NULL;
		c->stats.requests++;
		if (spawn(c, j, err, sizeof err) < 0) {
			free(j->input);
			failed(j, jv_object(), err);
			free(j);
			continue;
		}
		j->next = c->running;
		c->running = j;
		c->nrunning++;
	}
}

/* The last line of what a command said on its standard error, for its failure's message. */
static void last_line(const rag_buf *b, char *out, size_t n)
{
	size_t end = b->len, start;
	while (end > 0 && (b->p[end - 1] == '\n' || b->p[end - 1] == '\r' || b->p[end - 1] == ' ')) end--;
	start = end;
	while (start > 0 && b->p[start - 1] != '\n') start--;
	if (end - start > 200) start = end - 200;
	snprintf(out, n, "%s%.*s", end > start ? ": " : "", (int)(end - start), b->p ? b->p + start : "");
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20) *p = '?';
}

/* One JSON object from a command's output: the whole of it, else its last non-empty line (a
 * command that logs to standard output before its answer). */
static jv output_object(const rag_buf *b)
{
	jv v = jv_parse_sized(b->p ? b->p : "", (int)b->len);
	size_t end = b->len, start;
	if (jv_get_kind(v) == JV_KIND_OBJECT) return v;
	jv_free(v);
	while (end > 0 && (b->p[end - 1] == '\n' || b->p[end - 1] == '\r' || b->p[end - 1] == ' ')) end--;
	start = end;
	while (start > 0 && b->p[start - 1] != '\n') start--;
	v = jv_parse_sized(b->p ? b->p + start : "", (int)(end - start));
	if (jv_get_kind(v) == JV_KIND_OBJECT) return v;
	jv_free(v);
	return jv_invalid();
}

/* The record's answer from how the command ended (si, from waitid) and what it printed; the job
 * stays, answered (cb NULL), for its caller to reap. */
static void command_done(rag_collect *c, job *j, const siginfo_t *si)
{
	jv fields = jv_object(), reply;
	char err[RAG_ERRLEN], tail[256];
	double secs = rag_now() - j->t0;
	int exited = si->si_code == CLD_EXITED;
	last_line(&j->err, tail, sizeof tail);
	fields = jv_object_set(fields, jv_string("latency_ms"), jv_number(round(secs * 1e4) / 10));
	if (exited) fields = jv_object_set(fields, jv_string("status"), jv_number(si->si_status));
	if (j->timed_out) {
		snprintf(err, sizeof err, "the command took longer than collect.timeout (%g s) and was killed", c->timeout);
		failed(j, fields, err);
	} else if (!exited) {
		snprintf(err, sizeof err, "the command was killed by signal %d%s", si->si_status, tail);
		failed(j, fields, err);
	} else if (si->si_status != 0) {
		snprintf(err, sizeof err, "the command exited with status %d%s", si->si_status, tail);
		failed(j, fields, err);
	} else if (!jv_is_valid(reply = output_object(&j->out))) {
		jv_free(reply);
		snprintf(err, sizeof err, "the command wrote no JSON object on its standard output%s", tail);
		failed(j, fields, err);
	} else if (take_fields(c, reply, &fields, err, sizeof err) < 0) {
		failed(j, fields, err);
	} else {
		j->cb(j->arg, fields, NULL);
	}
	j->cb = NULL;
	rag_buf_free(&j->out);
	rag_buf_free(&j->err);
	free(j->input);
	j->input = NULL;
}

/* Read what is there from fd into b, at most `most` bytes (at most OUT_MAX kept: the tail for
 * standard error); EOF or an error closes it. */
static void drain(int *fd, rag_buf *b, int tail, size_t most)
{
	char buf[16384];
	ssize_t n;
	while (*fd >= 0 && most > 0) {
		n = read(*fd, buf, most < sizeof buf ? most : sizeof buf);
		if (n > 0) {
			most -= (size_t)n;
			if (!tail && b->len + (size_t)n > OUT_MAX) {
				close_fd(fd);   /* no answer is that large: it fails as no object */
				b->len = 0;
				return;
			}
			rag_buf_add(b, buf, (size_t)n);
			if (tail && b->len > ERR_KEEP) {
				memmove(b->p, b->p + b->len - ERR_KEEP / 2, ERR_KEEP / 2);
				b->len = ERR_KEEP / 2;
			}
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
		close_fd(fd);
	}
}

/* What a command that has exited printed: the bytes in the pipe now (a child it left in the
 * background may write on: that is no part of its answer). 1 when something else still holds
 * the pipe open for writing. */
static int take_rest(int *fd, rag_buf *b, int tail)
{
	int avail = 0;
	struct pollfd p;
	if (*fd < 0) return 0;
	if (ioctl(*fd, FIONREAD, &avail) == 0 && avail > 0) drain(fd, b, tail, (size_t)avail);
	if (*fd < 0) return 0;
	p.fd = *fd;
	p.events = POLLIN;
	p.revents = 0;
	return poll(&p, 1, 0) >= 0 && !(p.revents & POLLHUP);
}

/* The end of a job whose command has exited and whose group is done with */
static void reap(job *j)
{
	int st;
	close_fd(&j->in_fd);
	close_fd(&j->out_fd);
	close_fd(&j->err_fd);
	close_fd(&j->pid_fd);
	while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR)
		;
	free(j);
}

/* Whether j's command has exited (si filled), without reaping it: the zombie keeps its process
 * group's id from being used again while the group is ended. wait: block (SIGKILL has gone). */
static int has_exited(job *j, int wait, siginfo_t *si)
{
	memset(si, 0, sizeof *si);
	if (waitid(P_PID, (id_t)j->pid, si, WEXITED | WNOWAIT | (wait ? 0 : WNOHANG)) < 0) {
		if (errno != ECHILD) return 0;
		si->si_pid = j->pid;   /* reaped by another (SIGCHLD ignored): taken as status 0 */
		si->si_code = CLD_EXITED;
		si->si_status = 0;
	}
	return si->si_pid == j->pid;
}

static void feed(job *j)
{
	while (j->in_fd >= 0 && j->inoff < j->inlen) {
		ssize_t n = write(j->in_fd, j->input + j->inoff, j->inlen - j->inoff);
		if (n > 0) {
			j->inoff += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
		close_fd(&j->in_fd);    /* it stopped reading (EPIPE): what it answers decides */
		return;
	}
	if (j->inoff >= j->inlen) close_fd(&j->in_fd);
}

/* Timeouts, exits and the callbacks of the commands that ended; the groups of the answered ones
 * that still hold their pipes, SIGKILLed after the grace. Returns the seconds until the next
 * thing to do. */
static double check_commands(rag_collect *c)
{
	job **pp = &c->running;
	double now = rag_now(), next = 3600;
	while (*pp) {
		job *j = *pp;
		siginfo_t si;
		int killed = j->term_at && now - j->term_at >= KILL_GRACE;
		if (!j->cb) {
			if (killed) {
				kill(-j->pid, SIGKILL);
				*pp = j->next;
				reap(j);
				continue;
			}
		} else if (!j->term_at && now - j->t0 >= c->timeout) {
			j->timed_out = 1;
			j->term_at = now;
			kill(-j->pid, SIGTERM);
		} else if (killed) {
			kill(-j->pid, SIGKILL);
		}
		if (j->cb && has_exited(j, killed, &si)) {
			/* what it printed is in the pipes now: an EOF would wait for whatever it left in
			 * the background holding them, up to the timeout */
			int held = take_rest(&j->out_fd, &j->out, 0);
			held |= take_rest(&j->err_fd, &j->err, 1);
			close_fd(&j->in_fd);
			close_fd(&j->out_fd);
			close_fd(&j->err_fd);
			close_fd(&j->pid_fd);
			c->nrunning--;
			command_done(c, j, &si);
			if (!held) {
				*pp = j->next;
				reap(j);
				continue;
			}
			if (!j->term_at) {
				j->term_at = now;
				kill(-j->pid, SIGTERM);
			}
		} else if (j->cb && j->pid_fd < 0 && next > EXIT_POLL) {
			next = EXIT_POLL;   /* no pidfd to say when it exits */
		}
		{
			double due = j->term_at ? j->term_at + KILL_GRACE - now : j->t0 + c->timeout - now;
			if (due < 0) due = 0;
			if (due < next) next = due;
		}
		pp = &j->next;
	}
	return next;
}

static int command_run(rag_collect *c, int fd, double timeout)
{
	struct pollfd *pfd;
	job **who, *j;
	size_t n = 0, cap, i;
	int readable = 0, ms;
	double next;
	start_commands(c);
	next = check_commands(c);
	start_commands(c);
	if (next < timeout) timeout = next;
	cap = 1;
	for (j = c->running; j; j = j->next) cap += 4;
	pfd = rag_xcalloc(cap, sizeof *pfd);
	who = rag_xcalloc(cap, sizeof *who);
	if (fd >= 0) {
		pfd[n].fd = fd;
		pfd[n++].events = POLLIN;
	}
	for (j = c->running; j; j = j->next) {
		if (j->in_fd >= 0) who[n] = j, pfd[n].fd = j->in_fd, pfd[n++].events = POLLOUT;
		if (j->out_fd >= 0) who[n] = j, pfd[n].fd = j->out_fd, pfd[n++].events = POLLIN;
		if (j->err_fd >= 0) who[n] = j, pfd[n].fd = j->err_fd, pfd[n++].events = POLLIN;
		if (j->pid_fd >= 0) who[n] = j, pfd[n].fd = j->pid_fd, pfd[n++].events = POLLIN;
	}
	if (c->nrunning == 0 && fd < 0) timeout = 0;
	ms = timeout <= 0 ? 0 : (int)ceil(timeout * 1000);
	if (poll(pfd, (nfds_t)n, ms) > 0) {
		for (i = 0; i < n; i++) {
			if (!pfd[i].revents) continue;
			if (!who[i]) {
				readable = 1;
				continue;
			}
			j = who[i];
			if (pfd[i].fd == j->in_fd) feed(j);
			else if (pfd[i].fd == j->out_fd) drain(&j->out_fd, &j->out, 0, SIZE_MAX);
			else if (pfd[i].fd == j->err_fd) drain(&j->err_fd, &j->err, 1, SIZE_MAX);
		}
	}
	free(pfd);
	free(who);
	check_commands(c);
	start_commands(c);
	return readable;
}

/* ------------------------------------------------------------------ the interface */

void rag_collect_record(rag_collect *c, jv rec, rag_collect_cb cb, void *arg)
{
	job *j = rag_xcalloc(1, sizeof *j);
	j->c = c;
	j->cb = cb;
	j->arg = arg;
	j->in_fd = j->out_fd = j->err_fd = j->pid_fd = -1;
	/* the knobs before the body is made: a body program that sends .system.top_k sends what the
	 * record will say ran */
	rec = rag_collect_system(c, jv_copy(rec));
	if (!c->command_mode) {
		http_call(c, j, rec);
		return;
	}
	{
		jv d = jv_dump_string(rec, 0);
		j->input = rag_xasprintf("%s\n", jv_string_value(d));
		j->inlen = strlen(j->input);
		jv_free(d);
	}
	if (c->queue_tail) c->queue_tail->next = j;
	else c->queue = j;
	c->queue_tail = j;
}

RAG_UNITTEST jv rag_collect_system(const rag_collect *c, jv rec)
{
	jv sys;
	if (jv_object_length(jv_copy(c->system)) == 0) return rec;
	sys = jv_object_get(jv_copy(rec), jv_string("system"));
	if (jv_get_kind(sys) != JV_KIND_OBJECT) {
		jv_free(sys);
		sys = jv_object();
	}
	/* the record's own keys stay: a test case may set a knob of its own (its body program sends it) */
	jv_object_foreach(c->system, k, v) {
		if (!jv_object_has(jv_copy(sys), jv_copy(k))) sys = jv_object_set(sys, k, v);
		else jv_free(k), jv_free(v);
	}
	return jv_object_set(rec, jv_string("system"), sys);
}

jv rag_collect_merge(const rag_collect *c, jv rec, jv fields)
{
	jv ran = jv_invalid(), sys;
	jv_object_foreach(fields, k, v) {
		if (!strcmp(jv_string_value(k), "system") && jv_get_kind(v) == JV_KIND_OBJECT) {
			jv_free(ran);
			ran = v;
			jv_free(k);
		} else {
			rec = jv_object_set(rec, k, v);
		}
	}
	jv_free(fields);
	rec = rag_collect_system(c, rec);
	if (!jv_is_valid(ran)) return rec;
	sys = jv_object_get(jv_copy(rec), jv_string("system"));
	if (jv_get_kind(sys) != JV_KIND_OBJECT) {
		jv_free(sys);
		sys = jv_object();
	}
	return jv_object_set(rec, jv_string("system"), jv_object_merge(sys, ran));
}

int rag_collect_run(rag_collect *c, int fd, double timeout)
{
	if (c->command_mode) return command_run(c, fd, timeout);
	return rag_llm_run(c->llm, fd, timeout);
}

void rag_collect_cancel(rag_collect *c, const char *why)
{
	job *j;
	if (!c->command_mode) {
		if (c->llm) rag_llm_cancel(c->llm, why);
		return;
	}
	while ((j = c->queue)) {
		c->queue = j->next;
		free(j->input);
		failed(j, jv_object(), why);
		free(j);
	}
	c->queue_tail = NULL;
	while ((j = c->running)) {
		c->running = j->next;
		kill(-j->pid, SIGKILL);
		if (j->cb) {
			c->nrunning--;
			rag_buf_free(&j->out);
			rag_buf_free(&j->err);
			free(j->input);
			failed(j, jv_object(), why);
		}
		reap(j);
	}
}

void rag_collect_stats(const rag_collect *c, rag_collect_counts *s)
{
	*s = c->stats;
	if (c->llm) s->retries = rag_llm_usage(c->llm)->retries;
}

void rag_collect_free(rag_collect *c)
{
	if (!c) return;
	rag_collect_cancel(c, "shutting down");
	rag_llm_free(c->llm);
	rag_cache_close(c->cache);
	rag_jq_free(c->body);
	rag_jq_free(c->answer);
	rag_jq_free(c->contexts);
	rag_jq_free(c->ids);
	rag_jq_free(c->sysfrom);
	jv_free(c->system);
	free(c->url);
	free(c->command);
	free(c->method);
	free(c);
}
