/* eval-batch.c - rag-eval --batch: each judge stage's requests sent as batches through the
 * provider's batch route (lib/batch.c), their replies put in the cache, then the run as ever.
 *
 * Stage after stage, in the pipeline's order: the pipeline up to the stage runs with the stage
 * collecting the requests it would send (RAG_BATCH_COLLECT, each under its cache key) and the
 * judge stages before it answered by the cache alone (their batches' replies). With a spending
 * cap the requests are weighed in order at the batch price, and those past the cap are left
 * out. The rest go up in parts within llm.batch_max_requests and llm.batch_max_bytes, each its
 * own file and batch; all are looked at together every llm.batch_poll seconds (one line of
 * counts on stderr) until each has ended; their output goes into the cache. Then the pipeline
 * runs as it would without --batch, and each request finds its reply there, counted as the
 * call the batch made: the records are those of a run that sent every request. A request no
 * batch answered (its error file, a batch failed, expired or cancelled) is sent live by the
 * run, at the list price; one left out by the cap meets the cap reached there. Everything is
 * kept in RUNDIR/batch/: stage-S.part-K.jsonl, a part's requests as uploaded (bodies only: no
 * key, no header), stage-S.json, the stage's state with the list of its parts (each one's
 * file, batch id, files and state), saved after each step, so that --resume looks at the same
 * batches again rather than sending others, and creates those not created yet. */
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

/* A stage's requests as collected: each custom_id once (a request asked twice is one line: a
 * batch refuses a repeated custom_id), in the order asked, each line as it goes up (its
 * estimate taken off) and its estimate. */
typedef struct reqs {
	rag_buf text;             /* the lines, each ending "\n" */
	size_t n, cap;
	size_t *end;              /* line i is text[i ? end[i - 1] : 0, end[i]) */
	double *prompt, *completion;   /* its estimate (llm.c's collect) */
} reqs;

static void reqs_free(reqs *r)
{
	rag_buf_free(&r->text);
	free(r->end);
	free(r->prompt);
	free(r->completion);
}

/* a number of an array (borrowed), NAN when there is none */
static double num_at(jv a, int i)
{
	jv x = jv_get_kind(a) == JV_KIND_ARRAY && i < jv_array_length(jv_copy(a)) ? jv_array_get(jv_copy(a), i) : jv_invalid();
	double d = jv_get_kind(x) == JV_KIND_NUMBER ? jv_number_value(x) : NAN;
	jv_free(x);
	return d;
}

static size_t line_start(const reqs *r, size_t i)
{
	return i ? r->end[i - 1] : 0;
}

/* One collected line (borrowed) into r, unless its custom_id is in seen (consumed, returned). */
static jv reqs_add(reqs *r, jv line, jv seen)
{
	char id[80];
	jv est, d;
	if (jv_get_kind(line) != JV_KIND_OBJECT || !*rag_json_str(line, "custom_id", id, sizeof id) ||
	    jv_object_has(jv_copy(seen), jv_string(id)))
		return seen;
	seen = jv_object_set(seen, jv_string(id), jv_true());
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->end = rag_xrealloc(r->end, r->cap * sizeof *r->end);
		r->prompt = rag_xrealloc(r->prompt, r->cap * sizeof *r->prompt);
		r->completion = rag_xrealloc(r->completion, r->cap * sizeof *r->completion);
	}
	est = rag_json_get(jv_copy(line), "estimate");
	r->prompt[r->n] = num_at(est, 0);
	r->completion[r->n] = num_at(est, 1);
	jv_free(est);
	d = jv_dump_string(jv_object_delete(jv_copy(line), jv_string("estimate")), 0);
	rag_buf_adds(&r->text, jv_string_value(d));
	rag_buf_add(&r->text, "\n", 1);
	jv_free(d);
	r->end[r->n++] = r->text.len;
	return seen;
}

/* The requests the stage collected (the file tmp; none when there is none) into r. */
static void reqs_read(reqs *r, const char *tmp)
{
	char err[RAG_ERRLEN];
	size_t len;
	char *text = rag_read_file(tmp, &len, err, sizeof err);
	const char *p, *q;
	jv seen = jv_object();
	memset(r, 0, sizeof *r);
	if (!text) text = rag_xstrdup(""), len = 0;   /* nothing collected: no file */
	for (p = text; p < text + len; p = *q ? q + 1 : q) {
		jv line;
		q = p + strcspn(p, "\n");
		line = jv_parse_sized(p, (int)(q - p));
		seen = reqs_add(r, line, seen);
		jv_free(line);
	}
	jv_free(seen);
	free(text);
}

/* Stage s run to collect its requests into r: 0, or -1 after a message. */
static int collect(eval *e, int s, reqs *r)
{
	char *tmp = stage_file(e, s, "collect"), *log = stage_file(e, s, "log");
	rag_buf b = {0};
	int st, rc = 0;
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
		rc = -1;
	} else {
		reqs_read(r, tmp);
	}
	unlink(tmp);
	rag_buf_free(&b);
	free(tmp);
	free(log);
	return rc;
}

/* With a spending cap (meter): the requests weighed in order at the batch price, as the live
 * path weighs each before it is sent; the first that would pass the cap is not sent, nor any
 * after it (the run's later requests, live or batched, meet the cap reached). The number within
 * the cap; held[i] what the meter holds for request i until its batch's usage settles it. */
static size_t weigh(eval *e, rag_cost_meter *m, const reqs *r, double *held, const char *name)
{
	size_t i;
	for (i = 0; i < r->n; i++) {
		held[i] = 0;
		if (!m) continue;
		/* the meter's message speaks of one request: the warning below counts them */
		if (rag_cost_meter_admit(m, isnan(r->prompt[i]) ? 0 : r->prompt[i],
		                         isnan(r->completion[i]) ? 0 : r->completion[i], &held[i], NULL, 0) < 0)
			break;
	}
	if (i < r->n)
		rag_msg(e->cli.prog, "warning", "batch (%s): %s: %zu of %zu requests within llm.max_cost (%g %s) at the batch "
		        "price; the other %zu are not sent", name, RAG_COST_CAPPED, i, r->n, rag_cost_meter_cap(m),
		        e->cli.cfg.prices.currency ? e->cli.cfg.prices.currency : "USD", r->n - i);
	return i;
}

/* Requests [0, n) of r in parts within llm.batch_max_requests and llm.batch_max_bytes, each
 * written to RUNDIR/batch/stage-S.part-K.jsonl: the parts' states [{file, requests, bytes,
 * held}], or invalid after a message (a request over the bytes on its own, a file not written). */
static jv split(eval *e, int s, const reqs *r, size_t n, const double *held, int *rc)
{
	const size_t maxn = (size_t)e->cli.cfg.llm.batch_max_requests, maxb = (size_t)e->cli.cfg.llm.batch_max_bytes;
	jv parts = jv_array();
	size_t i = 0;
	while (i < n) {
		size_t j = i, from = line_start(r, i);
		double h = 0;
		char *leaf, *path;
		int fd, ok;
		while (j < n && j - i < maxn && r->end[j] - from <= maxb) h += held[j++];
		if (j == i) {
			rag_msg(e->cli.prog, "error", "batch: a request of %zu bytes is over llm.batch_max_bytes (%zu)",
			        r->end[i] - from, maxb);
			*rc = RAG_EXIT_USAGE;
			jv_free(parts);
			return jv_invalid();
		}
		leaf = rag_xasprintf("stage-%d.part-%d.jsonl", s, jv_array_length(jv_copy(parts)) + 1);
		path = rag_xasprintf("%s/batch/%s", e->rundir, leaf);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		ok = fd >= 0 && rag_write_all(fd, r->text.p + from, line_start(r, j) - from) == 0;
		if (fd >= 0 && close(fd) < 0) ok = 0;
		if (!ok) rag_msg(e->cli.prog, "error", "cannot write \"%s\": %s", path, strerror(errno));
		else
			parts = jv_array_append(parts, JV_OBJECT(jv_string("file"), jv_string(leaf),
			                                         jv_string("requests"), jv_number((double)(j - i)),
			                                         jv_string("bytes"), jv_number((double)(line_start(r, j) - from)),
			                                         jv_string("held"), jv_number(h)));
		free(leaf);
		free(path);
		if (!ok) {
			*rc = RAG_EXIT_INTERNAL;
			jv_free(parts);
			return jv_invalid();
		}
		i = j;
	}
	return parts;
}

static int nparts(jv state)
{
	jv p = rag_json_get(jv_copy(state), "parts");
	if (jv_get_kind(p) == JV_KIND_ARRAY) return jv_array_length(p);
	jv_free(p);
	return 0;
}

static jv part_get(jv state, int k)
{
	return jv_array_get(rag_json_get(jv_copy(state), "parts"), k);
}

/* part (consumed) as part k of state (consumed, returned) */
static jv part_put(jv state, int k, jv part)
{
	jv p = rag_json_get(jv_copy(state), "parts");
	return jv_object_set(state, jv_string("parts"), jv_array_set(p, k, part));
}

/* the stage's name, and the part's where it has several (malloc'ed) */
static char *part_name(int s, jv state, int k)
{
	char *name = stage_name(s), *r;
	if (nparts(state) < 2) return name;
	r = rag_xasprintf("%s, part %d of %d", name, k + 1, nparts(state));
	free(name);
	return r;
}

/* The stage collected, weighed against the cap and split into its parts: the stage's state
 * (with "parts", none when nothing is to be sent), or invalid and *rc. */
static jv plan(eval *e, rag_llm *l, rag_cost_meter *m, int s, int *rc)
{
	char *name = stage_name(s);
	reqs r;
	double *held;
	size_t n;
	jv state, parts;
	if (collect(e, s, &r) < 0) {
		*rc = RAG_EXIT_INTERNAL;
		free(name);
		return jv_invalid();
	}
	held = rag_xcalloc(r.n + 1, sizeof *held);
	n = weigh(e, m, &r, held, name);
	parts = split(e, s, &r, n, held, rc);
	free(held);
	state = JV_OBJECT(jv_string("stage"), jv_string(name), jv_string("collected"), jv_number((double)r.n),
	                  jv_string("requests"), jv_number((double)n), jv_string("model"), jv_string(rag_llm_model(l)));
	if (m) state = jv_object_set(state, jv_string("capped"), jv_number((double)(r.n - n)));
	reqs_free(&r);
	free(name);
	if (!jv_is_valid(parts)) {
		jv_free(state);
		return parts;
	}
	return jv_object_set(state, jv_string("parts"), parts);
}

/* Part k uploaded and its batch created, as far as a run before this one did not: state
 * (consumed, returned) saved after each step; *rc an exit status after a message. */
static jv start_part(eval *e, rag_llm *l, int s, jv state, int k, int *rc)
{
	char err[RAG_ERRLEN], buf[128], *name = part_name(s, state, k), *id = NULL;
	jv part = part_get(state, k);
	if (!*rag_json_str(part, "input_file_id", buf, sizeof buf)) {
		char *path = rag_xasprintf("%s/batch/%s", e->rundir, rag_json_str(part, "file", buf, sizeof buf));
		if (rag_batch_upload(l, path, &id, err, sizeof err) < 0) {
			rag_msg(e->cli.prog, "error", "batch (%s): uploading %.0f requests: %s", name, rag_json_num(part, "requests"),
			        err);
			*rc = RAG_EXIT_REMOTE;
		} else {
			part = jv_object_set(part, jv_string("input_file_id"), jv_string(id));
		}
		free(path);
		free(id);
		id = NULL;
		state = part_put(state, k, jv_copy(part));
		if (*rc || (*rc = save(e, s, jv_copy(state)))) goto out;
	}
	if (!*rag_json_str(part, "batch_id", buf, sizeof buf)) {
		char in[128];
		if (rag_batch_create(l, rag_json_str(part, "input_file_id", in, sizeof in), &id, err, sizeof err) < 0) {
			rag_msg(e->cli.prog, "error", "batch (%s): %s; finish with --resume %s", name, err, e->rundir);
			*rc = RAG_EXIT_REMOTE;
			goto out;
		}
		part = jv_object_set(part, jv_string("batch_id"), jv_string(id));
		state = part_put(state, k, jv_copy(part));
		if ((*rc = save(e, s, jv_copy(state)))) goto out;
		if (!e->cli.quiet)
			rag_msg(e->cli.prog, "info", "batch %s (%s): %.0f requests sent", id, name, rag_json_num(part, "requests"));
	}
out:
	jv_free(part);
	free(id);
	free(name);
	return state;
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

/* Part k looked at once, unless it has ended: part (consumed, returned) with its status,
 * counts and files; -1 and err when the look failed. */
static jv look(rag_llm *l, jv part, int *failed, char *err, size_t errlen)
{
	char id[128], status[32];
	jv b;
	if (is_terminal(rag_json_str(part, "status", status, sizeof status))) return part;
	b = rag_batch_get(l, rag_json_str(part, "batch_id", id, sizeof id), err, errlen);
	if (!jv_is_valid(b)) {
		jv_free(b);
		*failed = 1;
		return part;
	}
	part = jv_object_set(part, jv_string("status"), jv_string(rag_json_str(b, "status", status, sizeof status)));
	part = jv_object_set(part, jv_string("request_counts"), rag_json_get(jv_copy(b), "request_counts"));
	part = jv_object_set(part, jv_string("output_file_id"), rag_json_get(jv_copy(b), "output_file_id"));
	part = jv_object_set(part, jv_string("error_file_id"), rag_json_get(jv_copy(b), "error_file_id"));
	part = jv_object_set(part, jv_string("errors"), rag_json_get(jv_copy(b), "errors"));
	jv_free(b);
	return part;
}

/* The parts' statuses in one word each, counted where they differ ("2 completed, 2 in_progress") */
static void statuses(jv state, char *out, size_t outlen)
{
	jv tally = jv_object(), keys;
	int k, n = nparts(state), i, nk;
	size_t len = 0;
	for (k = 0; k < n; k++) {
		jv part = part_get(state, k);
		char st[32];
		const char *w = *rag_json_str(part, "status", st, sizeof st) ? st : "sent";
		double was = rag_json_num(tally, w);
		tally = jv_object_set(tally, jv_string(w), jv_number((isnan(was) ? 0 : was) + 1));
		jv_free(part);
	}
	keys = jv_keys(jv_copy(tally));
	nk = jv_array_length(jv_copy(keys));
	out[0] = 0;
	for (i = 0; i < nk && len < outlen; i++) {
		jv key = jv_array_get(jv_copy(keys), i);
		const char *w = jv_string_value(key);
		int c = nk == 1 ? snprintf(out, outlen, "%s", w)
		                : snprintf(out + len, outlen - len, "%s%.0f %s", i ? ", " : "", rag_json_num(tally, w), w);
		len += c > 0 ? (size_t)c : 0;
		jv_free(key);
	}
	jv_free(keys);
	jv_free(tally);
}

/* The stage's progress: one line for all its parts, summed */
static void progress(eval *e, int s, jv state, char *last, size_t lastlen)
{
	char line[1024], st[256], id[128], *name = stage_name(s);
	double done = 0, total = 0, failed = 0;
	int k, n = nparts(state);
	for (k = 0; k < n; k++) {
		jv part = part_get(state, k), counts = rag_json_get(jv_copy(part), "request_counts");
		double c = rag_json_num(counts, "completed"), t = rag_json_num(counts, "total"), f = rag_json_num(counts, "failed");
		done += isnan(c) ? 0 : c;
		total += isnan(t) ? 0 : t;
		failed += isnan(f) ? 0 : f;
		jv_free(counts);
		jv_free(part);
	}
	statuses(state, st, sizeof st);
	{
		jv p0 = part_get(state, 0);
		rag_json_str(p0, "batch_id", id, sizeof id);
		jv_free(p0);
	}
	if (n == 1)
		snprintf(line, sizeof line, "batch %s (%s): %s, %.0f of %.0f requests done, %.0f failed", id, name, st, done,
		         total, failed);
	else
		snprintf(line, sizeof line, "batches (%s), %d parts: %s; %.0f of %.0f requests done, %.0f failed", name, n, st,
		         done, total, failed);
	if (strcmp(line, last) && !e->cli.quiet) rag_msg(e->cli.prog, "info", "%s", line);
	snprintf(last, lastlen, "%s", line);
	free(name);
}

/* the batches a stopped run keeps, for its message ("batch ID", "batches ID1 to IDn") */
static void kept(jv state, char *out, size_t outlen)
{
	char a[128], b[128];
	jv p0 = part_get(state, 0), pn = part_get(state, nparts(state) - 1);
	rag_json_str(p0, "batch_id", a, sizeof a);
	rag_json_str(pn, "batch_id", b, sizeof b);
	if (nparts(state) < 2) snprintf(out, outlen, "batch %s is", a);
	else snprintf(out, outlen, "%d batches, %s to %s, are", nparts(state), a, b);
	jv_free(p0);
	jv_free(pn);
}

/* Every part looked at, all together, until each has ended: state (consumed, returned); *rc
 * an exit status after a message when it could not be. */
static jv await(eval *e, rag_llm *l, int s, jv state, int *rc)
{
	char err[RAG_ERRLEN] = "", last[1024] = "", which[300];
	int fails = 0;
	*rc = 0;
	for (;;) {
		int k, n = nparts(state), failed = 0, open = 0;
		for (k = 0; k < n; k++) {
			char st[32];
			jv part = look(l, part_get(state, k), &failed, err, sizeof err);
			if (!is_terminal(rag_json_str(part, "status", st, sizeof st))) open++;
			state = part_put(state, k, part);
		}
		/* a look that failed is tried again; the batch goes on meanwhile */
		fails = failed ? fails + 1 : 0;
		if (fails > e->cli.cfg.llm.retries) {
			kept(state, which, sizeof which);
			rag_msg(e->cli.prog, "error", "%s; the %s kept: finish with --resume %s", err, which, e->rundir);
			*rc = RAG_EXIT_REMOTE;
			break;
		}
		progress(e, s, state, last, sizeof last);
		if ((*rc = save(e, s, jv_copy(state)))) break;
		if (!open && !failed) break;
		if (pause_poll(e)) {
			kept(state, which, sizeof which);
			rag_msg(e->cli.prog, "interrupted", "%s kept: --resume %s looks at it again", which, e->rundir);
			*rc = 128 + (int)rag_tool_interrupted;
			break;
		}
	}
	return state;
}

/* why the first request a part did not answer failed (failed borrowed; part's errors where the
 * batch failed as a whole), " (...)", or "" */
static void first_reason(jv part, jv failed, char *why, size_t whylen)
{
	jv keys = jv_keys(jv_copy(failed));
	why[0] = 0;
	if (jv_array_length(jv_copy(keys)) > 0) {
		jv k0 = jv_array_get(jv_copy(keys), 0), w = jv_object_get(jv_copy(failed), k0);
		snprintf(why, whylen, " (%s)", jv_string_value(w));
		jv_free(w);
	} else {
		/* a batch that failed as a whole: its errors say why, no file */
		jv errs = rag_json_get(rag_json_get(jv_copy(part), "errors"), "data"), e0;
		char m[400];
		e0 = jv_get_kind(errs) == JV_KIND_ARRAY && jv_array_length(jv_copy(errs)) > 0 ? jv_array_get(jv_copy(errs), 0)
		                                                                             : jv_invalid();
		if (*rag_json_str(e0, "message", m, sizeof m)) snprintf(why, whylen, " (%s)", m);
		jv_free(e0);
		jv_free(errs);
	}
	jv_free(keys);
}

/* A part's output and error files into the cache: part (consumed, returned) with what it
 * answered, its usage and what it did not; what it cost settled with the meter. */
static jv take(eval *e, rag_llm *l, rag_cost_meter *m, const char *name, jv part, int *rc)
{
	static const char *const files[] = {"output_file_id", "error_file_id"};
	char id[128], fid[128], err[RAG_ERRLEN];
	rag_usage u = {0};
	jv failed = jv_object();
	size_t i;
	long nfailed;
	*rc = 0;
	rag_json_str(part, "batch_id", id, sizeof id);
	for (i = 0; i < 2 && !*rc; i++) {
		rag_buf b = {0};
		if (!*rag_json_str(part, files[i], fid, sizeof fid)) continue;
		if (rag_batch_content(l, fid, &b, err, sizeof err) < 0 ||
		    rag_batch_take(l, b.p ? b.p : "", b.len, id, &u, &failed, err, sizeof err) < 0) {
			rag_msg(e->cli.prog, "error", "batch %s: %s; finish with --resume %s", id, err, e->rundir);
			*rc = RAG_EXIT_REMOTE;
		}
		rag_buf_free(&b);
	}
	if (*rc) {
		jv_free(failed);
		return part;
	}
	/* what the batch cost, at its price, for the cap's later weighings and live requests */
	if (m)
		rag_cost_meter_settle(m, rag_json_num(part, "held"), (double)u.prompt_tokens, (double)u.cached_tokens,
		                      (double)u.completion_tokens);
	nfailed = (long)rag_json_num(part, "requests") - u.calls;
	part = jv_object_set(part, jv_string("taken"), jv_true());
	part = jv_object_set(part, jv_string("answered"), jv_number((double)u.calls));
	part = jv_object_set(part, jv_string("not_answered"), jv_number((double)nfailed));
	part = jv_object_set(part, jv_string("usage"),
	                     JV_OBJECT(jv_string("requests"), jv_number((double)u.calls),
	                               jv_string("prompt_tokens"), jv_number((double)u.prompt_tokens),
	                               jv_string("cached_tokens"), jv_number((double)u.cached_tokens),
	                               jv_string("completion_tokens"), jv_number((double)u.completion_tokens)));
	if (nfailed > 0) {
		/* the first reason given, as an example; the stage's run sends them all live */
		char st[32], why[600];
		first_reason(part, failed, why, sizeof why);
		rag_msg(e->cli.prog, "warning", "batch %s (%s) %s: %ld of %.0f requests not answered%s: the run sends "
		        "them live, at the list price", id, name, rag_json_str(part, "status", st, sizeof st), nfailed,
		        rag_json_num(part, "requests"), why);
	}
	return jv_object_set(part, jv_string("failed"), failed);
}

/* what the stage's parts answered, summed into its state (consumed, returned), taken */
static jv sum_parts(jv state)
{
	static const char *const keys[] = {"requests", "prompt_tokens", "cached_tokens", "completion_tokens"};
	double answered = 0, not_answered = 0, u[4] = {0};
	jv failed = jv_object(), usage = jv_object();
	int k, n = nparts(state);
	size_t i;
	for (k = 0; k < n; k++) {
		jv part = part_get(state, k), pu = rag_json_get(jv_copy(part), "usage"), f = rag_json_get(jv_copy(part), "failed");
		answered += rag_json_num(part, "answered");
		not_answered += rag_json_num(part, "not_answered");
		for (i = 0; i < 4; i++) u[i] += rag_json_num(pu, keys[i]);
		if (jv_get_kind(f) == JV_KIND_OBJECT) failed = jv_object_merge(failed, f);
		else jv_free(f);
		jv_free(pu);
		jv_free(part);
	}
	for (i = 0; i < 4; i++) usage = jv_object_set(usage, jv_string(keys[i]), jv_number(u[i]));
	state = jv_object_set(state, jv_string("taken"), jv_true());
	state = jv_object_set(state, jv_string("answered"), jv_number(answered));
	state = jv_object_set(state, jv_string("not_answered"), jv_number(not_answered));
	state = jv_object_set(state, jv_string("usage"), usage);
	return jv_object_set(state, jv_string("failed"), failed);
}

/* A stage's state as this run reads it: a run of before parts (one batch, its fields at the top)
 * as one part, so that --resume of such a run waits on its batch */
static jv as_parts(int s, jv state)
{
	static const char *const fields[] = {"input_file_id", "batch_id", "status", "request_counts", "output_file_id",
	                                     "error_file_id", "errors"};
	jv part;
	size_t i;
	if (jv_get_kind(state) != JV_KIND_OBJECT) {
		jv_free(state);
		return jv_invalid();
	}
	if (nparts(state) || !*rag_json_str(state, "input_file_id", (char[128]){0}, 128)) return state;
	{
		char *leaf = rag_xasprintf("stage-%d.jsonl", s);
		part = JV_OBJECT(jv_string("file"), jv_string(leaf), jv_string("requests"),
		                 rag_json_get(jv_copy(state), "requests"));
		free(leaf);
	}
	for (i = 0; i < sizeof fields / sizeof *fields; i++) {
		jv v = rag_json_get(jv_copy(state), fields[i]);
		if (jv_is_valid(v) && jv_get_kind(v) != JV_KIND_NULL) part = jv_object_set(part, jv_string(fields[i]), v);
		else jv_free(v);
		state = jv_object_delete(state, jv_string(fields[i]));
	}
	return jv_object_set(state, jv_string("parts"), JV_ARRAY(part));
}

/* One stage's batches, from wherever a run before this one left them (stage-S.json): its parts
 * planned (collected, weighed, split), uploaded and created, awaited together, taken. */
static int batch_stage(eval *e, rag_llm *l, rag_cost_meter *m, int s)
{
	char *sf = stage_file(e, s, "json");
	jv state = as_parts(s, eval_read_json_file(sf));
	int rc = 0, k;
	if (jv_is_valid(state) && rag_json_true(state, "taken")) goto out;   /* done by a run before */
	if (!jv_is_valid(state) || !nparts(state)) {
		jv_free(state);
		state = plan(e, l, m, s, &rc);
		if (rc) goto out;
		if (!nparts(state)) state = sum_parts(state);   /* nothing to send */
		if ((rc = save(e, s, jv_copy(state))) || rag_json_true(state, "taken")) goto out;
	}
	for (k = 0; !rc && k < nparts(state); k++) state = start_part(e, l, s, state, k, &rc);
	if (!rc) state = await(e, l, s, state, &rc);
	for (k = 0; !rc && k < nparts(state); k++) {
		jv part = part_get(state, k);
		if (!rag_json_true(part, "taken")) {
			char *name = part_name(s, state, k);
			part = take(e, l, m, name, part, &rc);
			free(name);
			state = part_put(state, k, part);
			if (!rc) rc = save(e, s, jv_copy(state));
		} else {
			jv_free(part);
		}
	}
	if (!rc) {
		state = sum_parts(state);
		rc = save(e, s, jv_copy(state));
	}
out:
	jv_free(state);
	free(sf);
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
	rag_cost_meter *m = NULL;
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
	if (e->cli.cfg.llm.max_cost > 0) {
		/* the cap's meter, shared with the run's stages after (RAG_SPEND, made by the caller),
		 * weighing and settling at the batch price */
		e->cli.cfg.llm.spend_file = getenv("RAG_SPEND");
		if (!(m = rag_cost_meter_new(&e->cli.cfg, rag_llm_model(l), err, sizeof err)) ||
		    rag_cost_meter_batch(m, rag_llm_model(l), err, sizeof err) < 0) {
			rag_msg(e->cli.prog, "error", "%s", err);
			rag_cost_meter_free(m);
			rag_llm_free(l);
			rag_cache_close(cache);
			return RAG_EXIT_USAGE;
		}
	}
	for (s = 0; m && s < RAG_EVAL_MAXSTAGES; s++) {
		/* a run before that left requests out by the cap: reached still (its spending is not
		 * this run's to count, but the requests it refused stay refused) */
		char *f = stage_file(e, s, "json");
		jv st = eval_read_json_file(f);
		if (jv_get_kind(st) == JV_KIND_OBJECT && rag_json_num(st, "capped") > 0) rag_cost_meter_reach(m);
		jv_free(st);
		free(f);
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
		if (batch_stage_on(e, s)) rc = batch_stage(e, l, m, s);
	if (!rc) {
		/* for the gate's cost, in the pipeline and the outputs made as the records come */
		char *u = eval_path_in(e, "batch/usage.json");
		if (eval_write_json_file(e, u, eval_batch_usage(e)) < 0 || setenv("RAG_BATCH_USAGE", u, 1) < 0)
			rc = RAG_EXIT_INTERNAL;
		free(u);
	}
	if (tmp) unlink(tmpl);
	e->plan.testset = testset;
	rag_cost_meter_free(m);
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
