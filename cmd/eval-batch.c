/* eval-batch.c - rag-eval --batch: each judge stage's requests sent as one batch through the
 * provider's batch route (lib/batch.c), its replies put in the cache, then the run as ever.
 *
 * Stage after stage, in the pipeline's order: the pipeline up to the stage runs with the stage
 * collecting the requests it would send (RAG_BATCH_COLLECT, each under its cache key) and the
 * judge stages before it answered by the cache alone (their batches' replies); the requests go
 * up as one file and one batch, which is looked at every llm.batch_poll seconds (its counts on
 * stderr) until it ends; its output goes into the cache. Then the pipeline runs as it would
 * without --batch, and each request finds its reply there, counted as the call the batch made:
 * the records are those of a run that sent every request. A request the batch did not answer
 * (its error file, a batch failed, expired or cancelled) is sent live by the run, at the list
 * price. Everything is kept in RUNDIR/batch/: stage-S.jsonl, the requests uploaded (bodies
 * only: no key, no header), stage-S.json, the batch's id, files and state, so that --resume
 * looks at the same batch again rather than sending another. */
#include "eval.h"
#include "base.h"
#include "config.h"
#include "usage.h"
#include "llm.h"
#include "gate.h"
#include "evalplan.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const terminal[] = {"completed", "failed", "expired", "cancelled"};

static char *stage_file(const eval *e, int s, const char *ext)
{
	char *leaf = rag_xasprintf("batch/stage-%d.%s", s, ext), *p = eval_path_in(e, leaf);
	free(leaf);
	return p;
}

/* the stages whose chat requests go as a batch: those that ask a judge (rag-embsim embeds) */
static int batch_stage_on(const eval *e, int s)
{
	const rag_evalstage *st = rag_evalplan_stage(s);
	return e->plan.stage_on[s] && st && st->jobs && s != RAG_EVAL_COLLECT && s != RAG_EVAL_EMBSIM;
}

static char *stage_name(int s)
{
	const rag_evalstage *st = rag_evalplan_stage(s);
	return st->args ? rag_xasprintf("%s %s", st->tool, st->args) : rag_xstrdup(st->tool);
}

static int save(eval *e, int s, jv state)
{
	char *f = stage_file(e, s, "json");
	int rc = eval_write_json_file(e, f, state) < 0 ? RAG_EXIT_INTERNAL : 0;
	free(f);
	return rc;
}

/* The requests the stage collected (tmp) into its batch's input (file), each custom_id once (a
 * request asked twice is one line: the batch refuses a repeated custom_id): their count, or -1. */
static long dedupe(const char *tmp, const char *file)
{
	rag_buf out = {0};
	char err[RAG_ERRLEN];
	size_t len;
	char *text = rag_read_file(tmp, &len, err, sizeof err);
	const char *p, *q;
	jv seen = jv_object();
	long n = 0;
	int fd;
	if (!text) text = rag_xstrdup(""), len = 0;   /* nothing collected: no file */
	for (p = text; p < text + len; p = *q ? q + 1 : q) {
		char id[80];
		jv line;
		q = p + strcspn(p, "\n");
		line = jv_parse_sized(p, (int)(q - p));
		if (jv_get_kind(line) == JV_KIND_OBJECT && *rag_json_str(line, "custom_id", id, sizeof id) &&
		    !jv_object_has(jv_copy(seen), jv_string(id))) {
			seen = jv_object_set(seen, jv_string(id), jv_true());
			rag_buf_add(&out, p, (size_t)(q - p));
			rag_buf_add(&out, "\n", 1);
			n++;
		}
		jv_free(line);
	}
	jv_free(seen);
	free(text);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || rag_write_all(fd, out.p ? out.p : "", out.len) < 0 || close(fd) < 0) n = -1;
	rag_buf_free(&out);
	return n;
}

/* Stage s run to collect its requests into RUNDIR/batch/stage-S.jsonl: their count, or -1 after
 * a message. */
static long collect(eval *e, int s)
{
	char *tmp = stage_file(e, s, "collect"), *file = stage_file(e, s, "jsonl"), *log = stage_file(e, s, "log");
	rag_buf b = {0};
	long n = -1;
	int st;
	unlink(tmp);
	rag_evalplan_collect_text(&e->plan, s, tmp, &b);
	rag_buf_adds(&b, " 2>");
	rag_evalplan_shq(&b, log);
	if (e->cli.verbose) rag_msg(e->cli.prog, "info", "batch: %s", b.p);
	st = eval_run_sh(b.p);
	/* the stage's records hold the error of each request collected (4), or a bad record (3) */
	if (st != 0 && st != RAG_EXIT_DATA && st != RAG_EXIT_REMOTE) {
		rag_msg(e->cli.prog, "error", "batch: collecting the requests of stage %s failed (exit status %d): see %s",
		        rag_evalplan_stage(s)->tool, st, log);
	} else if ((n = dedupe(tmp, file)) < 0) {
		rag_msg(e->cli.prog, "error", "cannot write \"%s\": %s", file, strerror(errno));
	}
	unlink(tmp);
	rag_buf_free(&b);
	free(tmp);
	free(file);
	free(log);
	return n;
}

static int is_terminal(const char *status)
{
	size_t i;
	for (i = 0; i < sizeof terminal / sizeof *terminal; i++)
		if (!strcmp(status, terminal[i])) return 1;
	return 0;
}

/* llm.batch_poll seconds, or less when a signal comes: 0, or 1 when interrupted */
static int pause_poll(const eval *e)
{
	double until = rag_now() + e->cli.cfg.llm.batch_poll;
	while (!rag_tool_interrupted) {
		double left = until - rag_now();
		if (left <= 0) return 0;
		poll(NULL, 0, left > 1 ? 1000 : (int)(left * 1000) + 1);
	}
	return 1;
}

/* The batch looked at until it ends: *state (consumed, returned) with its last status, counts
 * and files; *rc an exit status after a message when it could not be. */
static jv await(eval *e, rag_llm *l, int s, jv state, int *rc)
{
	char id[128], err[RAG_ERRLEN], status[32], last[512] = "", *name = stage_name(s);
	int fails = 0;
	rag_json_str(state, "batch_id", id, sizeof id);
	*rc = 0;
	for (;;) {
		jv b = rag_batch_get(l, id, err, sizeof err), counts;
		char line[512];
		if (!jv_is_valid(b)) {
			jv_free(b);
			/* a look that failed is tried again; the batch goes on meanwhile */
			if (++fails > e->cli.cfg.llm.retries) {
				rag_msg(e->cli.prog, "error", "batch %s: %s; the batch is kept: finish with --resume %s", id, err,
				        e->rundir);
				*rc = RAG_EXIT_REMOTE;
				break;
			}
		} else {
			fails = 0;
			rag_json_str(b, "status", status, sizeof status);
			counts = rag_json_get(jv_copy(b), "request_counts");
			snprintf(line, sizeof line, "batch %s (%s): %s, %.0f of %.0f requests done, %.0f failed", id, name, status,
			         rag_json_num(counts, "completed"), rag_json_num(counts, "total"), rag_json_num(counts, "failed"));
			if (strcmp(line, last) && !e->cli.quiet) rag_msg(e->cli.prog, "info", "%s", line);
			snprintf(last, sizeof last, "%s", line);
			state = jv_object_set(state, jv_string("status"), jv_string(status));
			state = jv_object_set(state, jv_string("request_counts"), counts);
			state = jv_object_set(state, jv_string("output_file_id"), rag_json_get(jv_copy(b), "output_file_id"));
			state = jv_object_set(state, jv_string("error_file_id"), rag_json_get(jv_copy(b), "error_file_id"));
			state = jv_object_set(state, jv_string("errors"), rag_json_get(jv_copy(b), "errors"));
			jv_free(b);
			if ((*rc = save(e, s, jv_copy(state)))) break;
			if (is_terminal(status)) break;
		}
		if (pause_poll(e)) {
			rag_msg(e->cli.prog, "interrupted", "batch %s is kept: --resume %s looks at it again", id, e->rundir);
			*rc = 128 + (int)rag_tool_interrupted;
			break;
		}
	}
	free(name);
	return state;
}

/* The batch's output and error files into the cache: state (consumed, returned) with what it
 * answered, its usage and what it did not. */
static jv take(eval *e, rag_llm *l, int s, jv state, int *rc)
{
	static const char *const files[] = {"output_file_id", "error_file_id"};
	char id[128], fid[128], err[RAG_ERRLEN], *name = stage_name(s);
	rag_usage u = {0};
	jv failed = jv_object();
	size_t i;
	long nfailed;
	*rc = 0;
	rag_json_str(state, "batch_id", id, sizeof id);
	for (i = 0; i < 2 && !*rc; i++) {
		rag_buf b = {0};
		if (!*rag_json_str(state, files[i], fid, sizeof fid)) continue;
		if (rag_batch_content(l, fid, &b, err, sizeof err) < 0 ||
		    rag_batch_take(l, b.p ? b.p : "", b.len, id, &u, &failed, err, sizeof err) < 0) {
			rag_msg(e->cli.prog, "error", "batch %s: %s; finish with --resume %s", id, err, e->rundir);
			*rc = RAG_EXIT_REMOTE;
		}
		rag_buf_free(&b);
	}
	if (*rc) {
		jv_free(failed);
		free(name);
		return state;
	}
	nfailed = (long)rag_json_num(state, "requests") - u.calls;
	state = jv_object_set(state, jv_string("taken"), jv_true());
	state = jv_object_set(state, jv_string("answered"), jv_number((double)u.calls));
	state = jv_object_set(state, jv_string("not_answered"), jv_number((double)nfailed));
	state = jv_object_set(state, jv_string("usage"),
	                      JV_OBJECT(jv_string("requests"), jv_number((double)u.calls),
	                                jv_string("prompt_tokens"), jv_number((double)u.prompt_tokens),
	                                jv_string("cached_tokens"), jv_number((double)u.cached_tokens),
	                                jv_string("completion_tokens"), jv_number((double)u.completion_tokens)));
	if (nfailed > 0) {
		/* the first reason given, as an example; the stage's run sends them all live */
		char st[32], why[600] = "";
		jv keys = jv_keys(jv_copy(failed));
		if (jv_array_length(jv_copy(keys)) > 0) {
			jv k0 = jv_array_get(jv_copy(keys), 0), w = jv_object_get(jv_copy(failed), k0);
			snprintf(why, sizeof why, " (%s)", jv_string_value(w));
			jv_free(w);
		} else {
			/* a batch that failed as a whole: its errors say why, no file */
			jv errs = rag_json_get(rag_json_get(jv_copy(state), "errors"), "data"), e0;
			char m[400];
			e0 = jv_get_kind(errs) == JV_KIND_ARRAY && jv_array_length(jv_copy(errs)) > 0 ? jv_array_get(jv_copy(errs), 0)
			                                                                             : jv_invalid();
			if (*rag_json_str(e0, "message", m, sizeof m)) snprintf(why, sizeof why, " (%s)", m);
			jv_free(e0);
			jv_free(errs);
		}
		jv_free(keys);
		rag_msg(e->cli.prog, "warning", "batch %s (%s) %s: %ld of %.0f requests not answered%s: the run sends "
		        "them live, at the list price", id, name, rag_json_str(state, "status", st, sizeof st), nfailed,
		        rag_json_num(state, "requests"), why);
	}
	state = jv_object_set(state, jv_string("failed"), failed);
	*rc = save(e, s, jv_copy(state));
	free(name);
	return state;
}

/* One stage's batch, from wherever a run before this one left it (stage-S.json). */
static int batch_stage(eval *e, rag_llm *l, int s)
{
	char *sf = stage_file(e, s, "json"), *file = stage_file(e, s, "jsonl"), *name = stage_name(s);
	char err[RAG_ERRLEN], *fid = NULL, *bid = NULL;
	jv state = eval_read_json_file(sf);
	int rc = 0;
	long n;
	if (jv_get_kind(state) != JV_KIND_OBJECT) {
		jv_free(state);
		state = jv_invalid();
	}
	if (jv_is_valid(state) && rag_json_true(state, "taken")) goto out;   /* done by a run before */
	if (!jv_is_valid(state) || !*rag_json_str(state, "input_file_id", (char[128]){0}, 128)) {
		jv_free(state);
		if ((n = collect(e, s)) < 0) {
			rc = RAG_EXIT_INTERNAL;
			state = jv_invalid();
			goto out;
		}
		state = JV_OBJECT(jv_string("stage"), jv_string(name), jv_string("requests"), jv_number((double)n),
		                  jv_string("model"), jv_string(rag_llm_model(l)));
		if (n == 0) {
			state = jv_object_set(state, jv_string("taken"), jv_true());
			rc = save(e, s, jv_copy(state));
			goto out;
		}
		if (rag_batch_upload(l, file, &fid, err, sizeof err) < 0) {
			rag_msg(e->cli.prog, "error", "batch (%s): uploading %ld requests: %s", name, n, err);
			rc = RAG_EXIT_REMOTE;
			goto out;
		}
		state = jv_object_set(state, jv_string("input_file_id"), jv_string(fid));
		if ((rc = save(e, s, jv_copy(state)))) goto out;
	}
	if (!*rag_json_str(state, "batch_id", (char[128]){0}, 128)) {
		char in[128];
		if (rag_batch_create(l, rag_json_str(state, "input_file_id", in, sizeof in), &bid, err, sizeof err) < 0) {
			rag_msg(e->cli.prog, "error", "batch (%s): %s; finish with --resume %s", name, err, e->rundir);
			rc = RAG_EXIT_REMOTE;
			goto out;
		}
		state = jv_object_set(state, jv_string("batch_id"), jv_string(bid));
		if ((rc = save(e, s, jv_copy(state)))) goto out;
		if (!e->cli.quiet)
			rag_msg(e->cli.prog, "info", "batch %s (%s): %.0f requests sent", bid, name, rag_json_num(state, "requests"));
	}
	state = await(e, l, s, state, &rc);
	if (!rc) state = take(e, l, s, state, &rc);
out:
	jv_free(state);
	free(fid);
	free(bid);
	free(sf);
	free(file);
	free(name);
	return rc;
}

/* A fresh run starts no batch of an earlier one that left its state in the directory. */
static void forget(eval *e)
{
	int s;
	for (s = 0; s < RAG_EVAL_MAXSTAGES; s++) {
		char *f = stage_file(e, s, "json");
		unlink(f);
		free(f);
	}
}

/* The run directory owned and its run.json's head written before the first batch, so that a
 * run stopped while a batch goes on can be resumed: 0, or an exit status after a message. */
static int own(eval *e, const char *cmd)
{
	char *dir = eval_path_in(e, "batch"), *rj = eval_path_in(e, "run.json"), *started;
	int rc = 0;
	if (eval_mkdirs(dir) < 0) {
		rag_msg(e->cli.prog, "error", "cannot create \"%s\": %s", dir, strerror(errno));
		rc = RAG_EXIT_USAGE;
	} else if (e->lock_fd < 0 && ((rc = eval_own_rundir(e)) || (rc = e->force ? eval_replace_run(e) : eval_holds_run(e)))) {
		/* said */
	} else if (!e->resume) {
		forget(e);
		started = eval_iso_time(time(NULL));
		if (eval_write_json_file(e, rj, eval_run_head(e, cmd, started)) < 0) rc = RAG_EXIT_INTERNAL;
		free(started);
	}
	free(dir);
	free(rj);
	return rc;
}

int eval_batch(eval *e, const char *cmd)
{
	char err[RAG_ERRLEN], tmpl[] = "/tmp/rag-eval-batch-XXXXXX";
	const char *testset = e->plan.testset;
	rag_cache *cache = NULL;
	rag_llm *l = NULL;
	int s, k, rc, tmp = 0;
	if (e->cli.cfg.cache.mode != RAG_CACHE_RW) {
		rag_msg(e->cli.prog, "error", "--batch puts the batch's replies in the cache, for the run to find: it needs "
		        "cache.mode rw (not %s)", rag_config_cache_mode_name(e->cli.cfg.cache.mode));
		return RAG_EXIT_USAGE;
	}
	if ((rc = own(e, cmd))) return rc;
	if (rag_cache_open_config(&e->cli.cfg, &cache, err, sizeof err) < 0 || !cache ||
	    !(l = rag_llm_new(&e->cli.cfg, cache, err, sizeof err))) {
		rag_msg(e->cli.prog, "error", "--batch: %s", cache ? err : "no cache directory (cache.dir)");
		rag_cache_close(cache);
		return RAG_EXIT_USAGE;
	}
	if (!strcmp(testset, "-")) {
		/* each stage's collecting reads the test set again */
		int fd = mkstemp(tmpl);
		if (fd < 0 || rag_write_all(fd, e->input ? e->input : "", e->input_len) < 0 || close(fd) < 0) {
			rag_msg(e->cli.prog, "error", "cannot write a temporary file: %s", strerror(errno));
			rc = RAG_EXIT_INTERNAL;
		}
		e->plan.testset = tmpl;
		tmp = 1;
	}
	for (k = 0; !rc && (s = rag_evalplan_nth(k)) >= 0; k++)
		if (batch_stage_on(e, s)) rc = batch_stage(e, l, s);
	if (!rc) {
		/* for the gate's cost, in the pipeline and the outputs made as the records come */
		char *u = eval_path_in(e, "batch/usage.json");
		if (eval_write_json_file(e, u, eval_batch_usage(e)) < 0 || setenv("RAG_BATCH_USAGE", u, 1) < 0)
			rc = RAG_EXIT_INTERNAL;
		free(u);
	}
	if (tmp) unlink(tmpl);
	e->plan.testset = testset;
	rag_llm_free(l);
	rag_cache_close(cache);
	return rc;
}

jv eval_batch_usage(const eval *e)
{
	jv by = jv_object();
	int s;
	for (s = 0; s < RAG_EVAL_MAXSTAGES; s++) {
		char *f = stage_file(e, s, "json"), model[256];
		jv st = eval_read_json_file(f), u, was;
		free(f);
		if (jv_get_kind(st) != JV_KIND_OBJECT || !rag_json_true(st, "taken") ||
		    !*rag_json_str(st, "model", model, sizeof model)) {
			jv_free(st);
			continue;
		}
		u = rag_json_get(jv_copy(st), "usage");
		was = jv_object_get(jv_copy(by), jv_string(model));
		if (jv_get_kind(u) == JV_KIND_OBJECT) {
			if (jv_get_kind(was) != JV_KIND_OBJECT) {
				jv_free(was);
				was = jv_object();
			}
			jv_object_foreach(u, key, v) {
				double a = rag_json_num(was, jv_string_value(key));
				if (jv_get_kind(v) == JV_KIND_NUMBER)
					was = jv_object_set(was, jv_copy(key), jv_number((isnan(a) ? 0 : a) + jv_number_value(v)));
				jv_free(key);
				jv_free(v);
			}
			by = jv_object_set(by, jv_string(model), was);
		} else {
			jv_free(was);
		}
		jv_free(u);
		jv_free(st);
	}
	return by;
}
