/* eval.h - what rag-eval's files (cmd/rag-eval.c, cmd/eval-*.c) share: the state of one run
 * and each file's functions. The plan (metrics -> stages -> pipeline) is lib/evalplan.c's.
 * Not a header of the tool layer: rag-eval's alone. */
#ifndef RAG_EVAL_H
#define RAG_EVAL_H

#include "tool.h"
#include "base.h"
#include "config.h"
#include "evalplan.h"
#include <sys/types.h>

/* an output made as the records come (eval_live_start) */
typedef struct eval_live {
	pid_t pid;                /* its sh, -1 when it did not start */
	int fd;                   /* the write end of its input, -1 once closed */
	char *part;               /* what it writes, renamed once the run ended well */
} eval_live;

/* run.json's counts as records come (eval-rundir.c) */
typedef struct eval_totals {
	long records, with_errors, errors, na, calls, hits, pt, ct, not_scored, remote;
	jv cost, judges, embedders;
	jv adapted;               /* judge -> {adaptation: true}: how its requests were changed for its
	                           * endpoint (usage.<tool>.<stage>.adapted; rag_llm_adapted) */
	jv system;                /* the records' system object (null: none), invalid before the first */
	int system_varies;        /* a record's differs from the first's */
} eval_totals;

typedef struct eval {
	rag_cli cli;
	const char *testset;      /* as given; "-" is stdin */
	const char *metrics_opt;  /* -m */
	const char *outdir, *run_id_opt, *resume, *baseline_opt, *bin_opt, *skip_done;
	int format, dry_run, emit;
	long jobs;                /* -j */
	long shards;              /* --jobs, 0: one process */
	const char *sshlogin;
	const char *store_opt;    /* --store URL */
	const char *label;        /* --label TEXT, else a resumed run's */
	char *label_own;          /* what --resume took from run.json */
	int force;                /* --force: a run in -o DIR is replaced, not refused */
	int batch;                /* --batch (llm.batch, or a resumed run's): eval-batch.c */
	const char *follow;       /* --follow SIZE: traces in, a line per window out (eval-follow.c) */
	const char *on_fail, *webhook;   /* --on-fail COMMAND, --webhook URL: --follow's rag-gate's */
	const char *idle;         /* --idle SECONDS: --follow's rag-gate's, NULL: its default */
	rag_strv fields;          /* --field NAME=PROGRAM, as given */
	long sample;              /* --estimate --sample N */
	rag_idtab done;           /* --resume: the ids records.jsonl holds */
	char *bin;                /* the tools' directory, NULL: on PATH */
	char *self;               /* rag-eval, for the first stage */
	char *run_id, *rundir, *baseline;   /* baseline: the run directory compared with */
	char *testset_own, *metrics_own;   /* what --resume took from run.json */
	char *testset_abs;        /* the test set's absolute path, for run.json (NULL: stdin) */
	rag_evalplan plan;        /* the metrics, their stages, the pipeline (lib/evalplan.c) */
	int collect;              /* some record has no answer and collect: is configured */
	int verdict_rc;           /* the exit status of the run's verdict (run.json's) */
	size_t total, done_before;    /* records to score now; records a resumed run had */
	char *input;              /* the test set's text when it is stdin (a file is read as it goes) */
	size_t input_len;
	pid_t pipeline;           /* the pipeline's process group (its sh), 0 before it runs */
	int lock_fd;              /* the run directory, flock'ed while this process runs it; -1 */
	int life_fd;              /* the write end of the pipe the stages watch (life_pipe); -1 */
	unsigned wrote;           /* the outputs written (or, the report with a store, to be): OUT_* */
	eval_totals tot;          /* over the records written to records.jsonl (eval_run) */
	eval_live live[3];        /* gate.json, summary.md, report.html as the records come */
	size_t nlive;             /* started and not yet ended; 0: none */
} eval;

/* The outputs of a run, in the order the last message names them; `wrote` has a bit for each
 * one written, so that the message says what is there after a write error (a full disk). */
enum { OUT_RECORDS, OUT_REPORT, OUT_JUNIT, OUT_SUMMARY, OUT_RUNJSON, OUT_N };

/* eval-emit.c: --emit */
void eval_done_ids(const char *path, rag_idtab *ids, size_t *complete_len);
int eval_each_record(eval *e, rag_testset_cb cb, void *ctx);
int eval_emit(eval *e);

/* eval-batch.c: --batch, before eval_run: every judge stage's batches sent, awaited and taken into
 * the cache (cmd: the pipeline, for run.json's head); 0, or an exit status after a message.
 * eval_batch_usage: what the batches answered, by model ({requests, prompt_tokens, cached_tokens,
 * completion_tokens}), for the cost summary (rag_cost_batch). */
int eval_batch(eval *e, const char *cmd);
jv eval_batch_usage(const eval *e);

/* eval-estimate.c: --estimate */
int eval_estimate(eval *e);

/* eval-proc.c: shell commands as child processes */
char *eval_capture(const char *cmd, int first_line);
/* eval_capture's second half, for commands started side by side with popen(cmd, "r") (p NULL:
 * NULL); it closes p */
char *eval_capture_end(FILE *p, int first_line);
int eval_run_sh(const char *cmd);
/* eval_run_sh in two halves, so that commands run side by side: cmd started under sh (its pid,
 * or -1), and its exit status as eval_run_sh's (RAG_EXIT_INTERNAL for -1) */
pid_t eval_spawn_sh(const char *cmd);
int eval_wait_sh(pid_t pid);
/* a wait status as an exit status: the child's, or 128 + its signal */
int eval_exit_status(int st);

/* eval-run.c: the pipeline run */
int eval_run(eval *e, const char *cmd);
/* the run's spending file (RAG_SPEND, RAG_MAX_COST set): malloc'ed, *made when made here (the
 * caller removes it); NULL when there is no cap or RAG_SPEND was set already */
char *eval_shared_spend(eval *e, int *made);

/* eval-follow.c: --follow, once the metrics and the tools are known; its exit status */
int eval_follow(eval *e);

/* eval-rundir.c: the run directory, run.json, the outputs, the store */
char *eval_path_in(const eval *e, const char *leaf);
int eval_holds_run(eval *e);
int eval_replace_run(eval *e);
jv eval_gate_self_judging(const eval *e);
char *eval_iso_time(time_t t);
int eval_is_dir(const char *p);
int eval_is_file(const char *p);
int eval_mkdirs(const char *path);
int eval_own_rundir(eval *e);
jv eval_read_json_file(const char *path);
int eval_write_json_file(const eval *e, const char *path, jv v);
const char *eval_runs_dir(const eval *e);
char *eval_last_run(eval *e);
/* run.json's head: "git" and "tools" null until eval_probe fills them in */
jv eval_run_head(eval *e, const char *cmd, const char *started);
jv eval_probe(eval *e, jv head);
/* run.json's counts: eval_totals_line for each record as it is written (and eval_totals_file
 * for a resumed run's records before), then eval_totals_end; eval_totals_free at last */
void eval_totals_init(eval_totals *t);
void eval_totals_line(eval_totals *t, const char *line, size_t len);
void eval_totals_file(eval_totals *t, const char *path);
jv eval_totals_end(eval_totals *t, const rag_config *cfg, jv *models_out);
/* run.json's system: the settings the records say ran (rag-collect's system, the service's own
 * by collect.system_from), {} when no record had any; null when they differ between records */
jv eval_totals_system(const eval_totals *t);
void eval_totals_free(eval_totals *t);
const char *eval_store_url(const eval *e);
int eval_render_report(eval *e, int with_history);
void eval_live_start(eval *e);
void eval_live_feed(eval *e, const char *line, size_t len);
void eval_live_drop(eval *e);
int eval_finish_outputs(eval *e, int gate_rc);
/* rag-gate's exit status st (the pipeline's, or one over RUNDIR/records.jsonl) as rag-eval
 * takes it: 3 or 4 (an outage's verdict, rag-gate(1) EXIT STATUS) as 1 where the verdict of its
 * RUNDIR/junit.xml says so, the run's exit status being its verdict's; else st (above 1: rag-gate
 * failed, its summary not written). */
int eval_gate_status(eval *e, int st);
char *eval_written(const eval *e);
int eval_store_run(eval *e, const char *url);

#endif
