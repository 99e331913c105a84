/* eval-follow.c - rag-eval --follow SIZE: production traffic scored as it comes, in one command
 * (rag-eval(1) FOLLOW; issue 38, item 3). OpenTelemetry traces (the Collector's file exporter,
 * an endless `tail -F`) in; the pipeline
 *     rag-trace | the configured metrics' stages | rag-gate --window SIZE [--store URL]
 * with the gate's thresholds, --on-fail, --webhook and --idle; each window's line out. The spending
 * cap (--max-cost, llm.max_cost) holds per hour of the records' started time: the stages share
 * one meter (lib/cost.c) through RAG_SPEND as in a run, with RAG_SPEND_WINDOW=3600.
 *
 * The input is copied into the pipeline here, not handed to it, so that a SIGTERM or SIGINT to
 * rag-eval loses no record: the copy stops and the pipeline's input ends, rag-trace makes a
 * record of every trace it holds (complete or not), each stage scores what it has, and rag-gate
 * decides, writes and stores the open window, as at the end of a file. The pipeline runs in a
 * process group of its own, so the signal reaches rag-eval alone. */
#include "eval.h"
#include "tool.h"
#include "base.h"
#include "evalplan.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* the pipeline as one shell command */
static char *follow_text(const eval *e)
{
	const rag_evalplan *p = &e->plan;
	const char *store = eval_store_url(e);
	rag_buf b = {0};
	rag_evalplan_tool(p, &b, "rag-trace");
	rag_buf_adds(&b, " -q");
	if (p->config_path) {
		rag_buf_adds(&b, " -c ");
		rag_evalplan_shq(&b, p->config_path);
	}
	rag_evalplan_stages_text(p, &b, " \\\n  | ");
	rag_buf_adds(&b, " \\\n  | ");
	rag_evalplan_tool(p, &b, "rag-gate");
	rag_evalplan_common(p, &b);
	rag_evalplan_gate_thresholds(p, &b);
	rag_buf_adds(&b, " --window ");
	rag_evalplan_shq(&b, e->follow);
	if (e->on_fail) {
		rag_buf_adds(&b, " --on-fail ");
		rag_evalplan_shq(&b, e->on_fail);
	}
	if (e->webhook) {
		rag_buf_adds(&b, " --webhook ");
		rag_evalplan_shq(&b, e->webhook);
	}
	if (e->idle) {
		rag_buf_adds(&b, " --idle ");
		rag_evalplan_shq(&b, e->idle);
	}
	if (store) {
		rag_buf_adds(&b, " --store ");
		rag_evalplan_shq(&b, store);
	}
	rag_buf_add(&b, "", 0);
	return b.p;
}

/* the input copied into fd until it ends or a signal comes (rag_tool_interrupted) */
static void copy_input(int in, int fd)
{
	char buf[65536];
	for (;;) {
		ssize_t n = rag_tool_interrupted ? 0 : read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR) continue;
		if (n <= 0 || rag_write_all(fd, buf, (size_t)n) < 0) break;
	}
}

/* The pipeline cmd run with the input copied in: its exit status (rag-gate's) */
static int follow_run(eval *e, const char *cmd, int in)
{
	int p[2], st;
	pid_t pid;
	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		rag_msg(e->cli.prog, "error", "cannot start the pipeline: %s", strerror(errno));
		return RAG_EXIT_INTERNAL;
	}
	if (pid == 0) {
		setpgid(0, 0);   /* a signal to rag-eval is not the stages' */
		dup2(p[0], 0);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	close(p[0]);
	copy_input(in, p[1]);
	close(p[1]);
	if (rag_tool_interrupted && !e->cli.quiet)
		rag_msg(e->cli.prog, "info", "interrupted: the traces held are made records, the open window decided%s",
		        eval_store_url(e) ? " and stored" : "");
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) return RAG_EXIT_INTERNAL;
	return eval_exit_status(st);
}

int eval_follow(eval *e)
{
	char *cmd, *spend = NULL;
	int rc = 0, in = 0, made = 0;
	e->plan.stage_on[RAG_EVAL_COLLECT] = 0;   /* a trace's record has its answer */
	cmd = follow_text(e);
	if (e->dry_run) {
		printf("%s\n", cmd);
		if (fflush(stdout) != 0) rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	if (e->testset && strcmp(e->testset, "-") && (in = open(e->testset, O_RDONLY | O_CLOEXEC)) < 0) {
		rag_msg(e->cli.prog, "error", "cannot open \"%s\": %s", e->testset, strerror(errno));
		rc = RAG_EXIT_USAGE;
		goto out;
	}
	if (e->cli.cfg.llm.max_cost > 0) {
		/* one meter for every stage, per hour of the records' time */
		spend = eval_shared_spend(e, &made);
		if (setenv("RAG_SPEND_WINDOW", "3600", 1) < 0) {
			rc = RAG_EXIT_INTERNAL;
			goto out;
		}
	}
	rag_tool_signals();
	if (e->cli.verbose) rag_msg(e->cli.prog, "info", "the pipeline: %s", cmd);
	rc = follow_run(e, cmd, in);
out:
	if (in > 0) close(in);
	if (made) unlink(spend);
	free(spend);
	free(cmd);
	return rc;
}
