/* eval-run.c - running rag-eval's pipeline: sh -c in its own process group, the pipe its
 * stages watch, signals passed on, the records read into records.jsonl, the progress line. */
#include "eval.h"
#include "base.h"
#include "config.h"
#include "usage.h"
#include "record.h"
#include "stream.h"
#include "judge.h"
#include "gate.h"
#include "store.h"
#include "evalplan.h"
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

/* Every stage ends when rag-eval does, however it ends (kill -9, the OOM killer): nobody would
 * read what a stage goes on to pay for. A pipe that only this process can write to, its write
 * end close-on-exec (and closed in the feeder, which does not exec); its read end inherited by
 * every process started from here, and named to them by RAG_EVAL_ALIVE: the kernel hangs it up
 * when this process is gone, which ends every stage that watches it (rag_tool_signals), through
 * sh and GNU parallel's shards, which a parent-death signal would not cross. RAG_EVAL_TESTSET
 * names the test set for the stages' messages. Held until exit; -1 when no pipe could be made
 * (the stages then run as before, unwatched). */
static int life_pipe(eval *e)
{
	int p[2];
	char fd[16];
	if (pipe2(p, O_CLOEXEC) < 0 || fcntl(p[0], F_SETFD, 0) < 0) return -1;
	snprintf(fd, sizeof fd, "%d", p[0]);
	if (setenv("RAG_EVAL_ALIVE", fd, 1) < 0 ||
	    setenv("RAG_EVAL_TESTSET", strcmp(e->testset, "-") ? e->testset : "<stdin>", 1) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	return p[1];
}

/* sh -c cmd with stdout a pipe read here (*out_fd) and, when input is set, stdin fed from it */
static pid_t spawn(eval *e, const char *cmd, int *out_fd, pid_t *feeder)
{
	int po[2], pi[2] = {-1, -1};
	pid_t pid;
	*feeder = -1;
	if (pipe(po) < 0 || (e->input && pipe(pi) < 0)) return -1;
	if ((pid = fork()) < 0) return -1;
	if (pid == 0) {
		/* a process group of its own, so that a signal to rag-eval alone (kill PID, a CI
		 * runner's SIGTERM) reaches every stage: collect_output passes it on */
		setpgid(0, 0);
		dup2(po[1], 1);
		close(po[0]);
		close(po[1]);
		if (e->input) {
			dup2(pi[0], 0);
			close(pi[0]);
			close(pi[1]);
		}
		signal(SIGPIPE, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);   /* as the child does: whichever runs first */
	e->pipeline = pid;
	close(po[1]);
	*out_fd = po[0];
	if (e->input) {
		close(pi[0]);
		if ((*feeder = fork()) == 0) {
			close(po[0]);
			if (e->life_fd >= 0) close(e->life_fd);   /* only rag-eval keeps the stages alive */
			signal(SIGPIPE, SIG_DFL);
			rag_write_all(pi[1], e->input, e->input_len);
			_exit(0);
		}
		close(pi[1]);
	}
	return pid;
}

struct progress {
	int on;
	double start, last;
	size_t done, total, errors;
};

static void progress_show(struct progress *p, int final)
{
	double now = rag_now(), el = now - p->start, rate;
	char eta[32] = "";
	char line[200];
	if (!p->on || (!final && now - p->last < 0.2)) return;
	p->last = now;
	rate = el > 0 ? (double)p->done / el : 0;
	if (rate > 0 && p->total > p->done) {
		long s = (long)((double)(p->total - p->done) / rate + 0.5);
		snprintf(eta, sizeof eta, ", ETA %ld:%02ld", s / 60, s % 60);
	}
	snprintf(line, sizeof line, "\rrag-eval: %zu/%zu records, %.1f/s, %zu error%s%s\033[K", p->done, p->total,
	         rate, p->errors, p->errors == 1 ? "" : "s", eta);
	if (rag_write_all(2, line, strlen(line)) < 0) p->on = 0;
	if (final) {
		rag_write_all(2, "\r\033[K", 4);
	}
}

/* git and the tools' versions into run.json's head (*head, at runjson): asked once the first
 * record is out of the pipeline, or once it ended without one. Beside the pipeline's start their
 * processes (2 for git, 2 for each tool's --version) took the cores from the stages on their way
 * to the first request: it went 0.05 s later (0.216-0.252 s against 0.172-0.211 s after the
 * start, 8 alternating runs of 64 records, judge 200 ms, RAG service 100 ms). */
static void probe_head(eval *e, jv *head, const char *runjson)
{
	*head = eval_probe(e, *head);
	eval_write_json_file(e, runjson, jv_copy(*head));
}

/* Read the pipeline's records into records.jsonl, one write a record. */
static int collect_output(eval *e, int in, int fd, size_t *nout, jv *head, const char *runjson)
{
	rag_buf b = {0};
	char buf[65536];
	size_t start = 0;
	struct progress p = { isatty(2) && !e->cli.quiet, rag_now(), 0, 0, e->total, 0 };
	int rc = 0, passed_on = 0, probed = 0;
	for (;;) {
		ssize_t n;
		char *nl;
		/* Ctrl-C or SIGTERM (which interrupts the read): to every stage, which each write
		 * what they hold and stop; their records still come through here */
		if (rag_tool_interrupted && !passed_on && e->pipeline > 0) {
			kill(-e->pipeline, (int)rag_tool_interrupted);
			passed_on = 1;
		}
		n = read(in, buf, sizeof buf);
		if (n < 0) {
			if (errno == EINTR) continue;
			rag_msg(e->cli.prog, "error", "cannot read the pipeline's output: %s", strerror(errno));
			rc = RAG_EXIT_INTERNAL;
			break;
		}
		if (n == 0) break;
		rag_buf_add(&b, buf, (size_t)n);
		while ((nl = memchr(b.p + start, '\n', b.len - start))) {
			size_t len = (size_t)(nl - b.p) - start + 1;
			if (!rc && rag_write_all(fd, b.p + start, len) < 0) {
				rag_msg(e->cli.prog, "error", "cannot write records.jsonl: %s", strerror(errno));
				rc = RAG_EXIT_INTERNAL;
			}
			/* run.json's counts and the outputs on the way, while the stages wait for the
			 * judge, rather than reading records.jsonl again once the run is over; the
			 * outputs start with the first record, the pipeline's own start past */
			if (!probed) {
				probe_head(e, head, runjson);   /* before the live outputs: the page names the commit */
				probed = 1;
			}
			if (!rc) {
				eval_totals_line(&e->tot, b.p + start, len);
				if (p.done == 0) eval_live_start(e);
				eval_live_feed(e, b.p + start, len);
			}
			if (memmem(b.p + start, len, "\"errors\":[{", 11)) p.errors++;
			start += len;
			p.done++;
			progress_show(&p, 0);
		}
		if (start > 65536) {
			memmove(b.p, b.p + start, b.len - start);
			b.len -= start;
			start = 0;
		}
	}
	if (b.len > start && !rc) {
		/* a last line without its newline: a stage was cut short */
		rag_msg(e->cli.prog, "warning", "the pipeline's last line was cut short; left out");
	}
	if (!probed) probe_head(e, head, runjson);
	progress_show(&p, 1);
	rag_buf_free(&b);
	*nout = p.done;
	return rc;
}

/* A file every stage of the pipeline shares, named to them by the variable env: one set by the
 * caller (shards of one run on one machine) is kept; else a new one in $TMPDIR, removed when the
 * run ends (*made). what: the message's name for it, when it cannot be made. */
static char *shared_file(eval *e, const char *env, const char *tag, const char *what, int *made)
{
	const char *dir = getenv("TMPDIR"), *have = getenv(env);
	char *path;
	int fd;
	*made = 0;
	if (have && *have) return NULL;
	path = rag_xasprintf("%s/rag-eval-%s-XXXXXX", dir && *dir ? dir : "/tmp", tag);
	fd = mkstemp(path);
	if (fd < 0) {
		rag_msg(e->cli.prog, "warning", "cannot create %s in %s (%s)", what, dir && *dir ? dir : "/tmp", strerror(errno));
		free(path);
		return NULL;
	}
	close(fd);
	if (setenv(env, path, 1) < 0) {
		unlink(path);
		free(path);
		return NULL;
	}
	*made = 1;
	return path;
}

/* One request budget for the whole pipeline (rag(7) CONCURRENCY): a file whose byte-range
 * locks are the slots, named to every stage by RAG_INFLIGHT. */
static char *shared_budget(eval *e, int *made)
{
	return shared_file(e, "RAG_INFLIGHT", "inflight", "the shared request budget: each stage keeps its own -j", made);
}

/* One spending cap for the whole run (llm.max_cost, --max-cost; rag(7) COST): the stages run at
 * once, each asking as its records come, so none can be given "what is left" when it starts;
 * they share what the run spent in one file under a lock instead, named to them by RAG_SPEND,
 * with the cap itself in RAG_MAX_COST. Its count is this invocation's: a --resume starts from
 * nothing, the records it skips costing nothing. NULL when there is no cap. */
char *eval_shared_spend(eval *e, int *made)
{
	char amount[64];
	*made = 0;
	if (!(e->cli.cfg.llm.max_cost > 0)) return NULL;
	snprintf(amount, sizeof amount, "%.17g", e->cli.cfg.llm.max_cost);
	if (setenv("RAG_MAX_COST", amount, 1) < 0) return NULL;
	return shared_file(e, "RAG_SPEND", "spend", "the run's spending file: each stage keeps its own --max-cost", made);
}

/* The run directory made and owned, run.json's head written (a resumed run keeps its start),
 * records.jsonl open to append: *head and *fd. 0, or an exit status after a message. */
static int open_run(eval *e, const char *cmd, const char *recs, const char *runjson, jv *head, int *fd)
{
	char *started = NULL;
	int rc;
	if (eval_mkdirs(e->rundir) < 0) {
		rag_msg(e->cli.prog, "error", "cannot create \"%s\": %s", e->rundir, strerror(errno));
		return RAG_EXIT_USAGE;
	}
	/* a fresh run: owned now, and still empty (a run that ended between prepare's look and the
	 * lock holds its records) */
	if (e->lock_fd < 0 && ((rc = eval_own_rundir(e)) || (rc = e->force ? eval_replace_run(e) : eval_holds_run(e))))
		return rc;
	if (e->done_before) {
		jv old = eval_read_json_file(runjson);
		jv s = jv_get_kind(old) == JV_KIND_OBJECT ? jv_object_get(jv_copy(old), jv_string("started")) : jv_invalid();
		if (jv_get_kind(s) == JV_KIND_STRING) started = rag_xstrdup(jv_string_value(s));
		jv_free(s);
		jv_free(old);
	}
	if (!started) started = eval_iso_time(time(NULL));
	*head = eval_run_head(e, cmd, started);
	free(started);
	if (eval_write_json_file(e, runjson, jv_copy(*head)) < 0) return RAG_EXIT_INTERNAL;
	*fd = open(recs, O_WRONLY | O_CREAT | O_APPEND, 0666);
	if (*fd < 0) {
		rag_msg(e->cli.prog, "error", "cannot open \"%s\": %s", recs, strerror(errno));
		return RAG_EXIT_USAGE;
	}
	return 0;
}

/* The pipeline run, its records appended to fd: *nout of them, *gate_rc the pipeline's (its
 * gate's) status; once it runs, run.json's head (*head, at runjson) completed by the probes.
 * 0 or collect_output's status; -1 when it could not start (said). */
static int pipe_records(eval *e, const char *cmd, int fd, jv *head, const char *runjson, size_t *nout, int *gate_rc)
{
	int made_budget = 0, made_spend = 0, out_fd = -1, st, rc;
	char *budget = shared_budget(e, &made_budget), *spend = eval_shared_spend(e, &made_spend);
	pid_t pid, feeder;
	e->life_fd = life_pipe(e);
	if ((pid = spawn(e, cmd, &out_fd, &feeder)) < 0) {
		rag_msg(e->cli.prog, "error", "cannot start the pipeline: %s", strerror(errno));
		if (made_budget) unlink(budget);
		if (made_spend) unlink(spend);
		free(budget);
		free(spend);
		return -1;
	}
	rc = collect_output(e, out_fd, fd, nout, head, runjson);
	close(out_fd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (made_budget) unlink(budget);
	if (made_spend) unlink(spend);
	free(budget);
	free(spend);
	if (feeder > 0) while (waitpid(feeder, NULL, 0) < 0 && errno == EINTR)
		;
	*gate_rc = eval_gate_status(e, eval_exit_status(st));
	return rc;
}

/* What the pipeline's end says of the run (rc: reading its records), then the outputs after
 * it: the run's status so far. */
static int outcome(eval *e, int rc, int gate_rc, size_t nout)
{
	if (!rc && rag_tool_interrupted) {
		/* Ctrl-C, SIGTERM, passed on to every stage: one line for the run (a stage in it says
		 * nothing of the records it cancelled) */
		rag_msg(e->cli.prog, "interrupted", "%zu of %zu records scored; finish the run with --resume %s",
		        e->done_before + nout, e->done_before + e->total, e->rundir);
		rc = 128 + (int)rag_tool_interrupted;
	} else if (!rc && nout != e->total) {
		/* POSIX sh has no pipefail: a stage that stopped shows as records missing */
		rag_msg(e->cli.prog, "error", "%zu of %zu records came through the pipeline: a stage failed "
		        "(see its message above); finish the run with --resume %s", nout, e->total, e->rundir);
		rc = gate_rc > RAG_EXIT_FAIL ? gate_rc : RAG_EXIT_INTERNAL;
	}
	if (!rc && gate_rc > RAG_EXIT_FAIL) {
		rag_msg(e->cli.prog, "error", "rag-gate failed (exit status %d)", gate_rc);
		rc = gate_rc;
	}
	if (!rc) rc = eval_finish_outputs(e, gate_rc);
	return rc;
}

/* The run's verdict (rag_verdict's) into head (consumed, returned), with the exit status and the
 * gate's word beside it as before: the gate's own, from gate.json (made by rag-gate with the
 * run's whole configuration), or, for a run that did not end with one, its status. Never made
 * again here from the counts: e->verdict_rc is the verdict's exit status. */
static jv run_verdict(eval *e, jv head, int rc)
{
	jv v = jv_invalid(), d;
	if (rc <= RAG_EXIT_FAIL) {
		char *g = eval_path_in(e, "gate.json");
		v = rag_json_get(eval_read_json_file(g), "verdict");
		free(g);
	}
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		v = rag_verdict_failed(rc ? rc : RAG_EXIT_INTERNAL, rag_tool_interrupted ? "interrupted: finish the run with --resume"
		                       : rc ? "the run did not finish: see the messages above" : "the gate's verdict (gate.json) was not written");
	}
	e->verdict_rc = (int)rag_json_num(v, "exit_status");
	d = jv_object_get(jv_copy(v), jv_string("decision"));
	head = jv_object_set(head, jv_string("exit_status"), jv_number(e->verdict_rc));
	head = jv_object_set(head, jv_string("exit_reason"), rag_json_get(jv_copy(v), "reason"));
	head = jv_object_set(head, jv_string("gate"),
	                     jv_get_kind(d) != JV_KIND_STRING ? jv_null()
	                     : !strcmp(jv_string_value(d), "none") ? jv_string("summary only") : jv_copy(d));
	jv_free(d);
	return jv_object_set(head, jv_string("verdict"), v);
}

/* run.json's tail (head consumed, returned): the end, the models, the counts (e->tot), the
 * verdict, its exit status and the gate's word. */
static jv run_tail(eval *e, jv head, int rc)
{
	jv system = eval_totals_system(&e->tot), models, totals = eval_totals_end(&e->tot, &e->cli.cfg, &models);
	char *ended;
	if (e->batch) {
		/* the tokens the batches answered at the batch price (rag-config(5) prices) */
		const rag_config *c = &e->cli.cfg;
		jv bu = eval_batch_usage(e);
		totals = jv_object_set(totals, jv_string("cost"),
		                       rag_cost_batch(rag_json_get(jv_copy(totals), "cost"), bu, c->prices.v, c->prices.n));
		jv_free(bu);
	}
	if (e->plan.stage_on[RAG_EVAL_EMBSIM]) {
		/* rag-embsim writes no usage: its embedder as it chooses one (rag-embsim(1)) */
		jv em = jv_object_get(jv_copy(models), jv_string("embeddings"));
		if (jv_array_length(em) == 0) {
			const rag_config *c = &e->cli.cfg;
			const char *prov = c->embeddings.provider ? c->embeddings.provider : c->llm.provider;
			int online = prov ? rag_config_online(prov) : (c->embeddings.base_url || c->llm.base_url);
			models = jv_object_set(models, jv_string("embeddings"),
			                       JV_ARRAY(online ? jv_string_fmt("openai:%s", c->embeddings.model)
			                                       : jv_string("offline")));
		}
	}
	ended = eval_iso_time(time(NULL));
	head = jv_object_set(head, jv_string("ended"), jv_string(ended));
	head = jv_object_set(head, jv_string("models"), models);
	head = jv_object_set(head, jv_string("counts"), totals);
	/* what ran, as the records say (config.system is what was configured) */
	head = jv_object_set(head, jv_string("system"), system);
	head = jv_object_set(head, jv_string("resumed_with"), jv_number((double)e->done_before));
	head = jv_object_set(head, jv_string("self_judging"), eval_gate_self_judging(e));
	head = run_verdict(e, head, rc);
	free(ended);
	return head;
}

/* The verdict's (borrowed) failed checks (at most MAX_SAID, the rest in gate.txt), one line
 * each: the verdict run_verdict read from gate.json, which is not read again. */
#define MAX_SAID 5
static void say_failed(eval *e, jv v, const char *on, const char *off)
{
	char buf[1200];
	jv checks = rag_json_get(jv_copy(v), "checks");
	long shown = 0, failed = 0;
	if (jv_get_kind(checks) == JV_KIND_ARRAY) {
		jv_array_foreach(checks, i, c) {
			jv pass = jv_object_get(jv_copy(c), jv_string("pass"));
			int no = jv_get_kind(pass) == JV_KIND_FALSE;
			jv_free(pass);
			if (no && ++failed <= MAX_SAID) {
				char *line = rag_xasprintf("%sfailed%s: %s", on, off, rag_json_str(c, "message", buf, sizeof buf));
				rag_tool_say(e->cli.prog, line);
				free(line);
				shown++;
			}
			jv_free(c);
			(void)i;
		}
	}
	if (failed > shown) {
		char *txt = eval_path_in(e, "gate.txt");
		rag_msg(e->cli.prog, "info", "%ld more failed check%s in %s", failed - shown, failed - shown == 1 ? "" : "s", txt);
		free(txt);
	}
	jv_free(checks);
}

/* The closing screen: the failed checks, then the last lines, the verdict, the exit status and
 * its reason, the run directory (the metrics, categories and worst records are in gate.txt),
 * coloured on a terminal unless NO_COLOR is set. */
static void say_run(eval *e, jv head)
{
	jv c = jv_object_get(jv_copy(head), jv_string("counts")), v = jv_object_get(jv_copy(head), jv_string("verdict"));
	const char *nc = getenv("NO_COLOR");
	int color = isatty(2) && !(nc && *nc), st = (int)rag_json_num(v, "exit_status"), say = !e->cli.quiet && !rag_tool_interrupted;
	char dec[16] = "", *line;
	const char *red = color ? "\033[31m" : "", *green = color ? "\033[32m" : "", *off = color ? "\033[0m" : "";
	rag_json_str(v, "decision", dec, sizeof dec);
	if (say && *dec) {   /* a run that ended with no verdict has no counts to say */
		rag_buf vl = {0};
		say_failed(e, v, red, off);
		rag_report_counts(&vl, v, 1);
		rag_buf_add(&vl, "", 1);
		line = rag_xasprintf("%s%s%s: %s", !strcmp(dec, "pass") ? green : !strcmp(dec, "fail") ? red : "",
		                     !strcmp(dec, "pass") ? "PASS" : !strcmp(dec, "fail") ? "FAIL" : "SUMMARY",
		                     off, vl.p);
		rag_tool_say(e->cli.prog, line);
		free(line);
		rag_buf_free(&vl);
	}
	if (st > RAG_EXIT_FAIL && *dec && !rag_tool_interrupted) {
		/* an outage (a verdict with a decision, and exit 3 or 4): an error, said even with -q;
		 * a run that did not end with a verdict said why already */
		char r[1200];
		rag_msg(e->cli.prog, "error", "%s%s: exit status %d%s", red, rag_json_str(v, "reason", r, sizeof r), st, off);
	} else if (say) {
		char *x = rag_verdict_exit_line(v);
		line = rag_xasprintf("%s%s%s", st ? red : green, x, off);
		rag_tool_say(e->cli.prog, line);
		free(line);
		free(x);
	}
	if (say) {
		char *w = eval_written(e);
		rag_msg(e->cli.prog, "info", "run %s: %.0f records, %.0f with errors or nulls, %.0f not applicable; in %s (%s)",
		        e->run_id, rag_json_num(c, "records"), rag_json_num(c, "records_not_scored"),
		        rag_json_num(c, "not_applicable"), e->rundir, w);
		free(w);
	}
	jv_free(v);
	jv_free(c);
}

int eval_run(eval *e, const char *cmd)
{
	char *recs = eval_path_in(e, "records.jsonl"), *runjson = eval_path_in(e, "run.json");
	jv head = jv_invalid();
	int fd = -1, rc, gate_rc = 0;
	size_t nout = 0;

	eval_totals_init(&e->tot);
	if ((rc = open_run(e, cmd, recs, runjson, &head, &fd))) goto out;
	if (e->done_before) eval_totals_file(&e->tot, recs);   /* the records a resumed run had */
	if ((rc = pipe_records(e, cmd, fd, &head, runjson, &nout, &gate_rc)) < 0) {
		rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		rag_msg(e->cli.prog, "error", "cannot write \"%s\": %s", recs, strerror(errno));
		if (!rc) rc = RAG_EXIT_INTERNAL;
	}
	fd = -1;
	if (!rc) e->wrote |= 1u << OUT_RECORDS;
	if (gate_rc <= RAG_EXIT_FAIL) e->wrote |= 1u << OUT_JUNIT;   /* the pipeline's gate: gate.txt too */
	rc = outcome(e, rc, gate_rc, nout);
	eval_live_drop(e);   /* not made when the run did not end well (outcome made them if it did) */
	head = run_tail(e, head, rc);
	if (eval_write_json_file(e, runjson, jv_copy(head)) < 0) {
		if (rc <= RAG_EXIT_FAIL) rc = RAG_EXIT_INTERNAL;
	} else {
		e->wrote |= 1u << OUT_RUNJSON;
	}
	say_run(e, head);
out:
	if (fd >= 0) close(fd);
	eval_totals_free(&e->tot);
	jv_free(head);
	free(recs);
	free(runjson);
	return rc;
}
