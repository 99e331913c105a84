/* eval-proc.c - rag-eval's shell commands as child processes: one run to its end, several side
 * by side, the output of one captured. Below both the pipeline's run (eval-run.c) and the run
 * directory's outputs (eval-rundir.c), which call it and nothing of each other's way back. */
#include "eval.h"
#include "base.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* the whole output of a shell command (its first line when first_line), NULL when it failed */
char *eval_capture(const char *cmd, int first_line)
{
	return eval_capture_end(popen(cmd, "r"), first_line);
}

char *eval_capture_end(FILE *p, int first_line)
{
	rag_buf b = {0};
	char buf[4096];
	size_t n;
	int st;
	if (!p) return NULL;
	while ((n = fread(buf, 1, sizeof buf, p)) > 0) rag_buf_add(&b, buf, n);
	st = pclose(p);
	rag_buf_add(&b, "", 1);
	if (st != 0) {
		rag_buf_free(&b);
		return NULL;
	}
	if (first_line) b.p[strcspn(b.p, "\n")] = 0;
	return b.p;
}

int eval_exit_status(int st)
{
	if (WIFEXITED(st)) return WEXITSTATUS(st);
	if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
	return RAG_EXIT_INTERNAL;
}

pid_t eval_spawn_sh(const char *cmd)
{
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

int eval_wait_sh(pid_t pid)
{
	int st;
	if (pid < 0) return RAG_EXIT_INTERNAL;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) return RAG_EXIT_INTERNAL;
	return eval_exit_status(st);
}

int eval_run_sh(const char *cmd)
{
	return eval_wait_sh(eval_spawn_sh(cmd));
}
