/* evalplan.h - rag-eval's plan (evalplan.c): the metrics asked for, the stages that score them,
 * the pipeline's text. Layer 7 (HACKING.md). */
#ifndef RAG_EVALPLAN_H
#define RAG_EVALPLAN_H

#include <stddef.h>

#include <jv.h>

#include "base.h"
#include "config.h"

/* ---------------------------------------------------------------- evalplan.c */
/* rag-eval's plan: the metrics asked for -> the stages of the pipeline that score them -> the
 * pipeline as one shell command (what rag-eval --dry-run prints). Data and text only: the tool
 * prints it, checks its tools and runs it. */
enum {   /* the stages, in the order they run */
	RAG_EVAL_COLLECT, RAG_EVAL_CLAIMS, RAG_EVAL_VERIFY, RAG_EVAL_VERIFY_RECALL, RAG_EVAL_CORRECT,
	RAG_EVAL_REVQ, RAG_EVAL_EMBSIM, RAG_EVAL_CHUNKS, RAG_EVAL_CHUNKS_UTIL, RAG_EVAL_AP, RAG_EVAL_KW,
	RAG_EVAL_JUDGE,
	RAG_EVAL_NSTAGES          /* the count of the built-in ones */
};
/* The metric tools of the operation registry (rag_op.tool: rag-complete), each a stage of its
 * own, RAG_EVAL_NSTAGES + k for the k-th: they run after the built-in stages but rag-judge
 * (rag_evalplan_nth). At most RAG_EVAL_MAXTOOLS (evalplan.c fails to compile with more). */
#define RAG_EVAL_MAXTOOLS 16
#define RAG_EVAL_MAXSTAGES (RAG_EVAL_NSTAGES + RAG_EVAL_MAXTOOLS)
#define RAG_EVAL_NONE (-1)        /* in a metric's row: no (second) stage */
typedef struct rag_evalstage {
	const char *tool, *args;  /* args: fixed words after the shared options, or NULL */
	int jobs;                 /* takes -j N */
	const char *list;         /* the option that names the metrics: the metrics of one such stage
	                           * join into one comma-separated list (rag-ap -m ap,mrr) */
} rag_evalstage;
/* Stage s (a built-in one or a metric tool's), or NULL when there is no such stage. */
const rag_evalstage *rag_evalplan_stage(int s);
/* The i-th stage in the order they run (i from 0), -1 after the last: the built-in ones but
 * rag-judge, the metric tools', rag-judge. */
int rag_evalplan_nth(int i);
/* The registry: each metric rag-eval scores, its stages (s2 RAG_EVAL_NONE: one) and what its
 * stage's list option gets (NULL: the name itself; NAME for rubric:NAME). prefix: the name is a
 * prefix followed by a number (ndcg@10), or by a rubric's name (rubric:). The built-in ones,
 * then one for each metric tool of the operation registry (its .metric, its stage). */
typedef struct rag_evalmetric {
	const char *name;
	int prefix;
	int s1, s2;
	const char *arg;
} rag_evalmetric;
const rag_evalmetric *rag_evalplan_metric(size_t i);   /* the i-th (from 0), NULL after the last */
/* A metric tool's metric: its .doc, and *op its operation's name (its prompts'); NULL (and *op
 * NULL) for a built-in metric. From obj/gen/ops.inc, not the descriptors, so that rag-eval does
 * not link every operation. */
const char *rag_evalplan_tool_doc(const rag_evalmetric *m, const char **op);
extern const char *const rag_evalplan_defaults[];   /* without -m or eval.metrics; NULL-ended */
const char *rag_evalplan_score_name(const char *name);       /* rubric:NAME writes scores.NAME */

typedef struct rag_evalplan {
	/* the plan: rag_evalplan_set_metrics, rag_evalplan_refusal; the caller sets
	 * stage_on[RAG_EVAL_COLLECT] and summary_only */
	rag_strv metrics;         /* the names asked for, in order (rubric:NAME as given) */
	int stage_on[RAG_EVAL_MAXSTAGES];
	rag_buf stage_list[RAG_EVAL_MAXSTAGES];   /* the list stages' metrics */
	int refusal_gate;         /* rag-gate gets -r refusal=1 */
	int summary_only;         /* rag-gate gets --summary-only */
	const char *ap_from;      /* ap.from (set by rag_evalplan_set_metrics) */
	/* where it runs, for the text: set by the caller (borrowed) */
	const char *bin;          /* the tools' directory, NULL: on PATH */
	const char *self;         /* rag-eval, the first stage */
	const char *config_path;  /* -c, or NULL */
	const char *format;       /* the test set's format name (--format) */
	const char *run_id, *rundir, *testset;   /* testset "-": standard input */
	const char *baseline;     /* the run directory compared with, or NULL */
	const char *sshlogin;     /* --sshlogin, or NULL */
	const rag_strv *fields;   /* --field NAME=PROGRAM, or NULL */
	long max_memory, jobs;    /* each stage's --max-memory and -j; 0: not given */
	long shards, block;       /* --jobs N (0: one process) and parallel's --block (rag_evalplan_block_of) */
	int skip_done;            /* a resumed run: --emit leaves out RUNDIR/records.jsonl's ids */
	int batch;                /* rag-eval --batch: rag-collect keeps its replies (--cache rw), so
	                           * that each stage's collecting and the run see one answer a record */
} rag_evalplan;
/* The metrics of list (comma-separated, as -m), else cfg's eval.metrics, else the defaults; each
 * stage that scores one on. 0, or -1 with err (an unknown metric, an empty list). */
int rag_evalplan_set_metrics(rag_evalplan *p, const char *list, const rag_config *cfg, char *err, size_t errlen);
/* The test set has unanswerable cases: refusal joins the metrics, and rag-gate gates it unless
 * cfg's gate does. 1 when refusal was added, 0 when it was asked for already, -1 with err. */
int rag_evalplan_refusal(rag_evalplan *p, const rag_config *cfg, char *err, size_t errlen);
/* --jobs: parallel's --block for shards blocks of the lines --emit writes (each record not done
 * already, with run_id), from their bytes (total) and the longest, counted as they are read:
 * between 1 KiB and 1 MiB. */
long rag_evalplan_block_of(long total, long longest, long shards);
/* The text: s quoted for sh where it needs it; a tool's path; the options every stage gets (-q,
 * -c, --max-memory); rag-gate's and rag-report's thresholds and --metrics; rag-gate's options;
 * the stages after --emit and before rag-gate, each after sep; and the whole pipeline, what
 * --dry-run prints (without its newline). Each appends to b. */
void rag_evalplan_shq(rag_buf *b, const char *s);
void rag_evalplan_tool(const rag_evalplan *p, rag_buf *b, const char *tool);
void rag_evalplan_common(const rag_evalplan *p, rag_buf *b);
void rag_evalplan_gate_thresholds(const rag_evalplan *p, rag_buf *b);
void rag_evalplan_gate_opts(const rag_evalplan *p, rag_buf *b);
void rag_evalplan_stages_text(const rag_evalplan *p, rag_buf *b, const char *sep);
void rag_evalplan_render(const rag_evalplan *p, rag_buf *b);
/* rag-eval --batch: the pipeline that makes stage s write the requests it would send into file
 * (RAG_BATCH_COLLECT) instead of sending them: --emit, the stages before it (a judge stage with
 * --cache replay, its stderr dropped: its replies are its batch's, in the cache), s; its
 * records dropped. */
void rag_evalplan_collect_text(const rag_evalplan *p, int s, const char *file, rag_buf *b);
void rag_evalplan_free(rag_evalplan *p);   /* the plan's own: metrics and lists */

/* ---------------------------------------------------------------- for unit tests
 * Called only inside evalplan.c and by tests/unit/t-evalplan.c and t-op.c: a metric of the
 * registry by its name, and a stage's command as words (what the pipeline's text is made of). Static in the library (RAG_UNITTEST, base.h):
 * declared only when RAG_UNITTESTS is defined, as for the unit tests' build of the library
 * (obj/libragu.a). */
#ifdef RAG_UNITTESTS
const rag_evalmetric *rag_evalplan_find(const char *name);   /* NULL: no such metric */
/* Stage s's command as words: the tool, -q, -c, --max-memory, -j, its args, --from, its list. */
void rag_evalplan_argv(const rag_evalplan *p, int s, rag_strv *argv);
#endif /* RAG_UNITTESTS */

#endif
