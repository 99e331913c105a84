/* rag-eval - from a test set to a scored, gated, reported run in one command: one streaming
 * pipeline of the other tools (rag-collect when the records have no answers yet, the metrics of
 * eval.metrics, rag-gate --tee), run with /bin/sh -c of the text --dry-run prints, its records
 * written into a run directory as they arrive, then the gate's JSON and Markdown, the HTML report
 * and run.json.
 *
 * The pipeline's first stage is rag-eval itself (--emit): the test set, in any format the reader
 * takes (lib/testset.c), as JSON Lines with an id and the run id on every record, less the ids
 * a resumed run already has.
 *
 * --jobs N runs the stages after it (all but rag-gate) in N shards with GNU parallel --pipe
 * --keep-order: the records are cut into blocks at line ends and come back in input order, so
 * records.jsonl and the gate see the stream a single process gives. */
#include "tool.h"

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

static const char usage[] =
	"Usage: rag-eval [OPTIONS] TESTSET\n"
	"Score a test set (JSON Lines, a JSON array, pretty JSON or CSV; - for stdin) with one\n"
	"pipeline of the tools: rag-collect when the records have no answers and collect: is\n"
	"configured, the metrics of eval.metrics, then rag-gate. Writes a run directory\n"
	"(records.jsonl, run.json, gate.txt, gate.json, junit.xml, summary.md, report.html);\n"
	"exits with the gate's status (0 pass, 1 fail), or 4 (3) when records could not be scored.\n";

enum {
	OPT_DRY_RUN = RAG_OPT_TOOL, OPT_RESUME, OPT_RUN_ID, OPT_BIN, OPT_FORMAT, OPT_EMIT, OPT_SKIP_DONE,
	OPT_JOBS, OPT_SSHLOGIN, OPT_STORE, OPT_FIELD, OPT_SAMPLE
};

static const rag_opt options[] = {
	{"metrics", 'm', 'm', "LIST", NULL, "metrics, comma-separated (default eval.metrics, else faithfulness,\n"
	 "answer_relevancy,context_precision,context_recall)"},
	{"output", 'o', 'o', "DIR", RAG_ARG_FILE, "the run directory (default eval.runs_dir/RUN-ID, runs/RUN-ID)"},
	{"run-id", 0, OPT_RUN_ID, "ID", NULL, "the run's id (default UTC time and a random suffix)"},
	{"resume", 0, OPT_RESUME, "RUNDIR", RAG_ARG_FILE, "finish an interrupted run: score the ids it lacks"},
	{"baseline", 'b', 'b', "RUNDIR", RAG_ARG_FILE, "compare with an earlier run (last: the newest in the runs directory)"},
	{"concurrency", 'j', 'j', "N", NULL, "requests in flight, passed to every stage that sends any\n"
	 "(with --jobs: in every shard)"},
	{"jobs", 0, OPT_JOBS, "N", NULL, "score in N shards run by GNU parallel, the records kept in order"},
	{"sshlogin", 0, OPT_SSHLOGIN, "HOSTS", NULL, "with --jobs: run the shards on these hosts (parallel --sshlogin)"},
	{"format", 0, OPT_FORMAT, "FORMAT", "auto json csv", "the test set's format (default auto: by name and content)"},
	{"field", 0, OPT_FIELD, "NAME=PROGRAM", NULL, "take the field NAME of each record from a jq program over it\n"
	 "(reference=.expected.text), as fields: in the configuration"},
	{"bin", 0, OPT_BIN, "DIR", RAG_ARG_FILE, "where the tools are (default $RAG_EVAL_BIN, else beside rag-eval)"},
	{"store", 0, OPT_STORE, "URL", NULL, "add the run to this store at the end (default store.url: none when unset)"},
	{"dry-run", 0, OPT_DRY_RUN, NULL, NULL, "print the pipeline as one shell command and exit"},
	{"estimate", 0, RAG_OPT_ESTIMATE, NULL, NULL, "send nothing: print the requests, tokens and cost each stage\n"
	 "would take, and their sum (no run directory)"},
	{"sample", 0, OPT_SAMPLE, "N", NULL, "with --estimate: collect the first N records for real, and\n"
	 "stand in the answers still to collect at their sizes"},
	{"emit", 0, OPT_EMIT, NULL, NULL, "the pipeline's first stage: the test set as records on stdout"},
	{"skip-done", 0, OPT_SKIP_DONE, "FILE", RAG_ARG_FILE, "with --emit: leave out the ids FILE holds"},
	RAG_OPT_END
};

/* ---------------------------------------------------------------- metrics -> stages */

/* The stages, in the order they run in the pipeline. */
enum stage_id {
	S_COLLECT, S_CLAIMS, S_VERIFY, S_VERIFY_RECALL, S_CORRECT, S_REVQ, S_EMBSIM, S_CHUNKS,
	S_CHUNKS_UTIL, S_AP, S_KW, S_JUDGE, S_NONE
};

static const struct stage {
	const char *tool, *args;
	int jobs;                 /* takes -j N */
	const char *list;         /* the option that names the metrics: the metrics of one such stage
	                           * join into one comma-separated list (rag-ap -m ap,mrr) */
} stages[] = {
	[S_COLLECT] = {"rag-collect", NULL, 1, NULL},
	[S_CLAIMS] = {"rag-claims", NULL, 1, NULL},
	[S_VERIFY] = {"rag-verify", NULL, 1, NULL},
	/* context recall in one request: the reference's sentences, judged together (rag-verify(1)) */
	[S_VERIFY_RECALL] = {"rag-verify", "--metric context_recall", 1, NULL},
	[S_CORRECT] = {"rag-verify", "--metric answer_correctness", 1, NULL},
	[S_REVQ] = {"rag-revq", NULL, 1, NULL},
	[S_EMBSIM] = {"rag-embsim", NULL, 1, NULL},
	/* the metric named: without it rag-verify judges a record with no reference for
	 * context_utilization, a metric not asked for, where context_precision is not applicable */
	[S_CHUNKS] = {"rag-verify", "--chunks --metric context_precision", 1, NULL},
	[S_CHUNKS_UTIL] = {"rag-verify", "--chunks --metric context_utilization", 1, NULL},
	[S_AP] = {"rag-ap", NULL, 0, "-m"},
	[S_KW] = {"rag-kw", NULL, 0, "-m"},
	[S_JUDGE] = {"rag-judge", NULL, 1, "--rubric"},
};

/* Each metric a name can ask for, and its stages; a new metric is a new row. `arg` is what the
 * stage's list option gets (NULL: the name itself; NAME for rubric:NAME). */
static const struct metric {
	const char *name;
	int prefix;               /* the name is a prefix followed by a number: ndcg@10 */
	enum stage_id s1, s2;
	const char *arg;
} metrics[] = {
	{"faithfulness", 0, S_CLAIMS, S_VERIFY, NULL},
	{"context_recall", 0, S_VERIFY_RECALL, S_NONE, NULL},
	{"answer_correctness", 0, S_CORRECT, S_NONE, NULL},
	{"answer_relevancy", 0, S_REVQ, S_EMBSIM, NULL},
	{"context_precision", 0, S_CHUNKS, S_AP, "ap"},
	{"context_utilization", 0, S_CHUNKS_UTIL, S_NONE, NULL},
	/* rag-ap's rank metrics */
	{"mrr", 0, S_AP, S_NONE, NULL},
	{"map", 0, S_AP, S_NONE, NULL},
	{"rprec", 0, S_AP, S_NONE, NULL},
	{"p@", 1, S_AP, S_NONE, NULL},
	{"recall@", 1, S_AP, S_NONE, NULL},
	{"hit@", 1, S_AP, S_NONE, NULL},
	{"ndcg@", 1, S_AP, S_NONE, NULL},
	/* rag-kw's */
	{"keyword_overlap", 0, S_KW, S_NONE, NULL},
	{"token_f1", 0, S_KW, S_NONE, NULL},
	{"exact_match", 0, S_KW, S_NONE, NULL},
	{"contains", 0, S_KW, S_NONE, NULL},
	{"contains_all", 0, S_KW, S_NONE, NULL},
	{"regex", 0, S_KW, S_NONE, NULL},
	{"levenshtein", 0, S_KW, S_NONE, NULL},
	{"rouge1", 0, S_KW, S_NONE, NULL},
	{"rouge2", 0, S_KW, S_NONE, NULL},
	{"rougeL", 0, S_KW, S_NONE, NULL},
	{"rougeLsum", 0, S_KW, S_NONE, NULL},
	{"bleu", 0, S_KW, S_NONE, NULL},
	{"chrf", 0, S_KW, S_NONE, NULL},
	/* an unanswerable case's (expect: refusal): 1 when the answer declines */
	{"refusal", 0, S_KW, S_NONE, NULL},
	/* rag-judge's rubrics; a custom one is written rubric:NAME */
	{"correctness", 0, S_JUDGE, S_NONE, NULL},
	{"relevance", 0, S_JUDGE, S_NONE, NULL},
	{"completeness", 0, S_JUDGE, S_NONE, NULL},
	{"groundedness_0_10", 0, S_JUDGE, S_NONE, NULL},
	{"consistent", 0, S_JUDGE, S_NONE, NULL},
	{"rubric:", 1, S_JUDGE, S_NONE, NULL},
};
#define NMETRICS (sizeof metrics / sizeof metrics[0])

static const char *const default_metrics[] = {
	"faithfulness", "answer_relevancy", "context_precision", "context_recall", NULL
};

static const struct metric *find_metric(const char *name)
{
	size_t i, n;
	for (i = 0; i < NMETRICS; i++) {
		n = strlen(metrics[i].name);
		if (!metrics[i].prefix && !strcmp(name, metrics[i].name)) return &metrics[i];
		if (metrics[i].prefix && !strncmp(name, metrics[i].name, n) && name[n]) {
			const char *p = name + n;
			if (metrics[i].s1 == S_JUDGE) return &metrics[i];   /* rubric:NAME */
			while (*p >= '0' && *p <= '9') p++;
			if (!*p) return &metrics[i];
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------- the tool */

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
	rag_strv fields;          /* --field NAME=PROGRAM, as given */
	long sample;              /* --estimate --sample N */
	jv done;                  /* --resume: the ids records.jsonl holds */
	char *bin;                /* the tools' directory, NULL: on PATH */
	char *self;               /* rag-eval, for the first stage */
	char *run_id, *rundir, *baseline;   /* baseline: the run directory compared with */
	char *testset_own, *metrics_own;   /* what --resume took from run.json */
	char *testset_abs;        /* the test set's absolute path, for run.json (NULL: stdin) */
	rag_strv metric_names;
	int stage_on[S_NONE];
	rag_buf stage_list[S_NONE];   /* the list stages' metrics */
	int collect, summary_only;
	int refusal_gate;         /* rag-gate gets -r refusal=1: the test set has unanswerable cases
	                           * and the configuration does not gate refusal itself */
	int unscored_rc;          /* records not scored: RAG_EXIT_REMOTE or RAG_EXIT_DATA, 0 none */
	jv records;               /* the test set */
	size_t total, done_before;    /* records to score now; records a resumed run had */
	char *input;              /* the test set's text when it is stdin */
	size_t input_len;
	pid_t pipeline;           /* the pipeline's process group (its sh), 0 before it runs */
	int lock_fd;              /* the run directory, flock'ed while this process runs it; -1 */
	int life_fd;              /* the write end of the pipe the stages watch (life_pipe); -1 */
	unsigned wrote;           /* the outputs written (or, the report with a store, to be): OUT_* */
} eval;

/* The outputs of a run, in the order the last message names them; `wrote` has a bit for each
 * one written, so that the message says what is there after a write error (a full disk). */
enum { OUT_RECORDS, OUT_REPORT, OUT_JUNIT, OUT_SUMMARY, OUT_RUNJSON, OUT_N };
static const char *const out_names[OUT_N] = {"records.jsonl", "report.html", "junit.xml", "summary.md", "run.json"};

/* Append s to b quoted for sh when it needs quoting. */
static void shq(rag_buf *b, const char *s)
{
	const char *p;
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:@,%+") == strlen(s)) {
		rag_buf_adds(b, s);
		return;
	}
	rag_buf_add(b, "'", 1);
	for (p = s; *p; p++) {
		if (*p == '\'') rag_buf_adds(b, "'\\''");
		else rag_buf_add(b, p, 1);
	}
	rag_buf_add(b, "'", 1);
}

static void add_tool(eval *e, rag_buf *b, const char *tool)
{
	char *path = e->bin ? rag_xasprintf("%s/%s", e->bin, tool) : rag_xstrdup(tool);
	shq(b, path);
	free(path);
}

/* the options every stage gets: -q, and -c when one was named */
static void add_common(eval *e, rag_buf *b)
{
	rag_buf_adds(b, " -q");
	if (e->cli.config_path) {
		rag_buf_adds(b, " -c ");
		shq(b, e->cli.config_path);
	}
	if (e->cli.max_memory) rag_buf_addf(b, " --max-memory %ld", e->cli.max_memory);   /* each stage's budget */
}

static char *path_in(const eval *e, const char *leaf)
{
	return rag_xasprintf("%s/%s", e->rundir, leaf);
}

/* The name of metric name in scores: rubric:NAME writes scores.NAME. */
static const char *score_name(const char *name)
{
	return strncmp(name, "rubric:", 7) ? name : name + 7;
}

/* The thresholds rag-eval adds to the configuration's (which come through -c), for rag-gate
 * and rag-report alike, and the metrics of the run: a threshold of the configuration on a
 * metric -m left out is not run, not a column of nulls that fails the gate. */
static void add_gate_thresholds(eval *e, rag_buf *b)
{
	rag_buf l = {0};
	size_t i;
	if (e->refusal_gate) rag_buf_adds(b, " -r refusal=1");
	for (i = 0; i < e->metric_names.n; i++) rag_buf_addf(&l, "%s%s", i ? "," : "", score_name(e->metric_names.v[i]));
	rag_buf_add(&l, "", 1);
	rag_buf_adds(b, " --metrics ");
	shq(b, l.p);
	rag_buf_free(&l);
}

/* rag-gate's options for this run */
static void add_gate_opts(eval *e, rag_buf *b)
{
	add_common(e, b);
	if (e->summary_only) rag_buf_adds(b, " --summary-only");
	add_gate_thresholds(e, b);
	if (e->baseline) {
		char *f = rag_xasprintf("%s/records.jsonl", e->baseline);
		rag_buf_adds(b, " -b ");
		shq(b, f);
		free(f);
	}
}

/* --jobs: parallel's --block, the bytes of one shard's input. The records --emit writes (less
 * those a resumed run has) cut into `shards` blocks of ceil(size / shards) plus the longest line:
 * parallel cuts a block at its last line end, so each holds at least size / shards and the
 * shards run at once, even on a small test set. At least 1 KiB; at most 1 MiB, since parallel
 * holds a block in memory: a larger input takes more blocks, each a shard started when one ends. */
#define SHARD_BLOCK_MIN 1024L
#define SHARD_BLOCK_MAX (1024L * 1024)
static long shard_block(const eval *e)
{
	long total = 0, longest = 0, block;
	int i, n = jv_array_length(jv_copy(e->records));
	for (i = 0; i < n && total / e->shards < SHARD_BLOCK_MAX; i++) {
		jv rec = jv_array_get(jv_copy(e->records), i), d;
		long len;
		if (jv_is_valid(e->done) && jv_object_has(jv_copy(e->done), jv_object_get(jv_copy(rec), jv_string("id")))) {
			jv_free(rec);
			continue;
		}
		/* the line emit() writes */
		rec = jv_object_set(rec, jv_string("run_id"), jv_string(e->run_id));
		d = jv_dump_string(rec, 0);
		len = (long)strlen(jv_string_value(d)) + 1;
		jv_free(d);
		total += len;
		if (len > longest) longest = len;
	}
	block = (total + e->shards - 1) / e->shards + longest;
	if (block > SHARD_BLOCK_MAX) block = longest < SHARD_BLOCK_MAX ? SHARD_BLOCK_MAX : longest + 1;
	return block < SHARD_BLOCK_MIN ? SHARD_BLOCK_MIN : block;
}

/* The stages after --emit (and before rag-gate), each after sep. */
static void add_stages(eval *e, rag_buf *b, const char *sep)
{
	int s, first = 1;
	for (s = 0; s < S_NONE; s++) {
		const struct stage *st = &stages[s];
		if (!e->stage_on[s]) continue;
		if (!first || !e->shards) rag_buf_adds(b, sep);
		first = 0;
		add_tool(e, b, st->tool);
		add_common(e, b);
		if (st->jobs && e->jobs) rag_buf_addf(b, " -j %ld", e->jobs);
		if (st->args) rag_buf_addf(b, " %s", st->args);
		/* ap.from in the command itself: the pipeline says where its rank metrics come from */
		if (s == S_AP && e->cli.cfg.ap.from) rag_buf_addf(b, " --from %s", e->cli.cfg.ap.from);
		if (st->list && e->stage_list[s].len) {
			rag_buf_addf(b, " %s ", st->list);
			shq(b, e->stage_list[s].p);
		}
	}
	rag_buf_add(b, "", 0);
}

/* The pipeline, as one shell command. */
static char *pipeline(eval *e)
{
	rag_buf b = {0};
	char *f;

	rag_buf_adds(&b, "mkdir -p ");
	shq(&b, e->rundir);
	rag_buf_adds(&b, " && ");
	shq(&b, e->self);
	rag_buf_adds(&b, " --emit -q");   /* the warnings about the test set are this process's */
	if (e->cli.config_path) {
		rag_buf_adds(&b, " -c ");
		shq(&b, e->cli.config_path);
	}
	for (size_t i = 0; i < e->fields.n; i++) {
		rag_buf_adds(&b, " --field ");
		shq(&b, e->fields.v[i]);
	}
	rag_buf_addf(&b, " --format %s --run-id ", rag_testset_format_name(e->format));
	shq(&b, e->run_id);
	if (e->done_before) {
		f = path_in(e, "records.jsonl");
		rag_buf_adds(&b, " --skip-done ");
		shq(&b, f);
		free(f);
	}
	if (strcmp(e->testset, "-")) {
		rag_buf_adds(&b, " < ");
		shq(&b, e->testset);
	}
	if (e->shards) {
		/* one shard's pipeline, a command line that parallel gives its shell */
		rag_buf sh = {0};
		add_stages(e, &sh, " | ");
		rag_buf_addf(&b, " \\\n  | parallel --pipe --keep-order -j %ld --block %ld --recend '\\n'",
		             e->shards, shard_block(e));
		if (e->sshlogin) {
			rag_buf_adds(&b, " --sshlogin ");
			shq(&b, e->sshlogin);
		}
		rag_buf_adds(&b, " \\\n      ");
		shq(&b, sh.p);
		rag_buf_free(&sh);
	} else {
		add_stages(e, &b, " \\\n  | ");
	}
	rag_buf_adds(&b, " \\\n  | ");
	add_tool(e, &b, "rag-gate");
	add_gate_opts(e, &b);
	rag_buf_adds(&b, " --tee -o ");
	f = path_in(e, "gate.txt");
	shq(&b, f);
	free(f);
	rag_buf_adds(&b, " --junit ");
	f = path_in(e, "junit.xml");
	shq(&b, f);
	free(f);
	return b.p;
}

/* ---------------------------------------------------------------- small helpers */

/* the whole output of a shell command (its first line when first_line), NULL when it failed */
static char *capture(const char *cmd, int first_line)
{
	FILE *p = popen(cmd, "r");
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

static char *iso_time(time_t t)
{
	char buf[64];
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return rag_xstrdup(buf);
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int mkdirs(const char *path)
{
	char *p = rag_xstrdup(path), *s;
	int rc = 0;
	for (s = p + 1; *s; s++) {
		if (*s != '/') continue;
		*s = 0;
		if (mkdir(p, 0777) < 0 && errno != EEXIST) rc = -1;
		*s = '/';
	}
	if (mkdir(p, 0777) < 0 && errno != EEXIST) rc = -1;
	free(p);
	return rc;
}

/* A run directory is one process's while it runs: an flock(2) on the directory itself, taken
 * before anything is written in it and held until rag-eval exits (close-on-exec: the lock is
 * rag-eval's, not its stages'). Two runs into one directory would append their records to one
 * records.jsonl, every case twice under two run ids. 0, or RAG_EXIT_USAGE after a message. */
static int own_rundir(eval *e)
{
	int fd = open(e->rundir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (fd >= 0 && errno == EWOULDBLOCK)
			rag_msg(e->cli.prog, "error", "\"%s\" is in use by another rag-eval, which is running a run in it: "
			        "wait for it to end (then --resume %s if it did not finish), or -o another directory",
			        e->rundir, e->rundir);
		else
			rag_msg(e->cli.prog, "error", "cannot lock \"%s\": %s", e->rundir, strerror(errno));
		if (fd >= 0) close(fd);
		return RAG_EXIT_USAGE;
	}
	e->lock_fd = fd;
	return 0;
}

/* A fresh run's directory must not hold one already (its records would be appended to). */
static int holds_run(eval *e)
{
	char *recs = path_in(e, "records.jsonl");
	struct stat st;
	int holds = stat(recs, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
	free(recs);
	if (holds)
		rag_msg(e->cli.prog, "error", "\"%s\" holds a run already: --resume %s to finish it, or -o "
		        "another directory", e->rundir, e->rundir);
	return holds ? RAG_EXIT_USAGE : 0;
}

static jv read_json_file(const char *path)
{
	char err[RAG_ERRLEN];
	size_t len;
	char *text = rag_read_file(path, &len, err, sizeof err);
	jv v;
	if (!text) return jv_invalid();
	v = jv_parse_sized(text, (int)len);
	free(text);
	return v;
}

static int write_json_file(const eval *e, const char *path, jv v)
{
	char *tmp = rag_xasprintf("%s.tmp", path);
	jv d = jv_dump_string(v, JV_PRINT_PRETTY | JV_PRINT_SPACE1);
	FILE *f = fopen(tmp, "w");
	int ok = f && fputs(jv_string_value(d), f) >= 0 && fputc('\n', f) != EOF;
	if (f && fclose(f) != 0) ok = 0;
	if (ok && rename(tmp, path) < 0) ok = 0;
	if (!ok) {
		rag_msg(e->cli.prog, "error", "cannot write \"%s\": %s", path, strerror(errno));
		unlink(tmp);
	}
	jv_free(d);
	free(tmp);
	return ok ? 0 : -1;
}

/* ---------------------------------------------------------------- --emit */

/* The ids of the complete records of a records.jsonl (a line cut short by a crash is not one). */
static jv done_ids(const char *path, size_t *complete_len)
{
	char err[RAG_ERRLEN];
	size_t len, i = 0;
	char *text = rag_read_file(path, &len, err, sizeof err);
	jv ids = jv_object();
	*complete_len = 0;
	if (!text) return ids;
	while (i < len) {
		char *nl = memchr(text + i, '\n', len - i);
		jv rec, id;
		if (!nl) break;
		rec = jv_parse_sized(text + i, (int)(nl - text - (long)i));
		i = (size_t)(nl - text) + 1;
		if (jv_get_kind(rec) != JV_KIND_OBJECT) {
			jv_free(rec);
			continue;
		}
		*complete_len = i;
		id = jv_object_get(rec, jv_string("id"));
		if (jv_get_kind(id) == JV_KIND_STRING) ids = jv_object_set(ids, id, jv_true());
		else jv_free(id);
	}
	free(text);
	return ids;
}

static int load_testset(eval *e, const char *name, int from_stdin)
{
	char err[RAG_ERRLEN];
	size_t len;
	char *text;
	rag_fieldmap *fields;
	int rc;
	if (from_stdin) {
		rag_buf b = {0};
		char buf[65536];
		ssize_t n;
		while ((n = read(0, buf, sizeof buf)) != 0) {
			if (n < 0) {
				if (errno == EINTR) continue;
				rag_msg(e->cli.prog, "error", "cannot read standard input: %s", strerror(errno));
				rag_buf_free(&b);
				return RAG_EXIT_INTERNAL;
			}
			rag_buf_add(&b, buf, (size_t)n);
		}
		rag_buf_add(&b, "", 1);
		text = b.p;
		len = b.len - 1;
		name = "<stdin>";
	} else if (!(text = rag_read_file(name, &len, err, sizeof err))) {
		rag_msg(e->cli.prog, "error", "%s", err);
		return RAG_EXIT_USAGE;
	}
	if (e->format == RAG_TESTSET_AUTO) e->format = rag_testset_detect(from_stdin ? NULL : name, text, len);
	if ((rc = rag_cli_fieldmap(&e->cli, &e->fields, &fields))) {
		free(text);
		return rc;
	}
	e->records = rag_testset_parse_fields(text, len, name, e->format, fields, err, sizeof err);
	rag_fieldmap_free(fields);
	if (!jv_is_valid(e->records)) {
		rag_msg(e->cli.prog, "error", "%s", err);
		free(text);
		return RAG_EXIT_DATA;
	}
	if (!e->emit && jv_array_length(jv_copy(e->records)) == 0) {
		rag_msg(e->cli.prog, "error", "%s: no records in the test set", name);
		free(text);
		return RAG_EXIT_DATA;
	}
	if (from_stdin) {
		e->input = text;
		e->input_len = len;
	} else {
		free(text);
	}
	return 0;
}

static int emit(eval *e)
{
	jv skip = jv_object();
	size_t n, i, dummy;
	int rc = 0;
	if (e->skip_done) skip = (jv_free(skip), done_ids(e->skip_done, &dummy));
	if ((rc = load_testset(e, e->testset, !strcmp(e->testset, "-")))) goto out;
	n = (size_t)jv_array_length(jv_copy(e->records));
	for (i = 0; i < n; i++) {
		jv rec = jv_array_get(jv_copy(e->records), (int)i), d;
		jv id = jv_object_get(jv_copy(rec), jv_string("id"));
		int seen = jv_object_has(jv_copy(skip), id);
		if (seen) {
			jv_free(rec);
			continue;
		}
		if (e->run_id_opt) rec = jv_object_set(rec, jv_string("run_id"), jv_string(e->run_id_opt));
		d = jv_dump_string(rec, 0);
		if (fputs(jv_string_value(d), stdout) < 0 || putchar('\n') == EOF) rc = RAG_EXIT_INTERNAL;
		jv_free(d);
		if (rc) break;
	}
	if (fflush(stdout) != 0 && errno != EPIPE) rc = RAG_EXIT_INTERNAL;
out:
	jv_free(skip);
	return rc;
}

/* ---------------------------------------------------------------- set-up */

/* The stages that score the metric name on, and it in their lists; RAG_EXIT_USAGE after a
 * message when no stage knows it. */
static int use_metric(eval *e, const char *name)
{
	const struct metric *m = find_metric(name);
	const char *from = e->cli.cfg.ap.from;
	enum stage_id ss[2];
	int k;
	if (!m) {
		rag_msg(e->cli.prog, "error", "unknown metric \"%s\": the metrics are faithfulness, context_recall, answer_correctness, "
		        "answer_relevancy, context_precision, context_utilization, rag-ap's (mrr, map, rprec, p@K, "
		        "recall@K, hit@K, ndcg@K), rag-kw's (keyword_overlap, token_f1, rouge1, bleu..., refusal) and rag-judge's "
		        "rubrics (correctness, relevance, completeness, groundedness_0_10, consistent; "
		        "rubric:NAME for a custom one)", name);
		return RAG_EXIT_USAGE;
	}
	ss[0] = m->s1;
	ss[1] = m->s2;
	/* ap.from (rag-config(5)): context precision from ids needs no judge; the rank metrics
	 * from verdicts need the judge's */
	if (from && !strcmp(from, "ids") && m->s1 == S_CHUNKS && m->s2 == S_AP) ss[0] = S_NONE;
	if (from && !strcmp(from, "verdicts") && m->s1 == S_AP) e->stage_on[S_CHUNKS] = 1;
	for (k = 0; k < 2; k++) {
		enum stage_id s = ss[k];
		if (s == S_NONE) continue;
		e->stage_on[s] = 1;
		if (stages[s].list) {
			const char *arg = m->arg ? m->arg : !strncmp(name, "rubric:", 7) ? name + 7 : name;
			rag_buf *l = &e->stage_list[s];
			if (l->len) rag_buf_adds(l, ",");
			rag_buf_adds(l, arg);
			rag_buf_add(l, "", 0);
		}
	}
	return 0;
}

static int set_metrics(eval *e)
{
	rag_strv *names = &e->metric_names;
	const rag_strv *cfgm = &e->cli.cfg.eval.metrics;
	size_t i, j;
	int rc;
	if (e->metrics_opt) {
		const char *p = e->metrics_opt;
		while (*p) {
			size_t n = strcspn(p, ",");
			if (n) rag_strv_push(names, rag_xstrndup(p, n));
			p += n + (p[n] == ',');
		}
	} else if (cfgm->n) {
		for (i = 0; i < cfgm->n; i++) rag_strv_push(names, rag_xstrdup(cfgm->v[i]));
	} else {
		for (i = 0; default_metrics[i]; i++) rag_strv_push(names, rag_xstrdup(default_metrics[i]));
	}
	if (!names->n) {
		rag_msg(e->cli.prog, "error", "no metric to score: name at least one (-m faithfulness)");
		return RAG_EXIT_USAGE;
	}
	for (i = 0; i < names->n; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(names->v[j], names->v[i])) break;
		if (j == i && (rc = use_metric(e, names->v[i]))) return rc;
	}
	return 0;
}

static int gates_metric(const rag_kd *l, size_t n, const char *name)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!strcmp(l[i].key, name)) return 1;
	return 0;
}

/* Unanswerable cases (expect: refusal) are scored by whether the answer declines, whatever the
 * metrics named: every other metric leaves them not applicable or scores an invented answer
 * as if it were one (faithfulness to contexts that say it), so without refusal such a case
 * would pass. And an invented answer fails the gate unless the configuration gates refusal
 * its own way. */
static int add_refusal(eval *e)
{
	const rag_config *c = &e->cli.cfg;
	size_t unanswerable = 0, i, n = (size_t)jv_array_length(jv_copy(e->records));
	int named = 0, rc;
	for (i = 0; i < n; i++) {
		jv r = jv_array_get(jv_copy(e->records), (int)i);
		unanswerable += rag_record_expects_refusal(r) != 0;
		jv_free(r);
	}
	if (!unanswerable) return 0;
	for (i = 0; i < e->metric_names.n; i++) named |= !strcmp(e->metric_names.v[i], "refusal");
	if (!named) {
		rag_strv_push(&e->metric_names, rag_xstrdup("refusal"));
		if ((rc = use_metric(e, "refusal"))) return rc;
		if (!e->cli.quiet)
			rag_msg(e->cli.prog, "info", "%zu unanswerable case%s (expect: refusal): the refusal metric is scored too",
			        unanswerable, unanswerable == 1 ? "" : "s");
	}
	e->refusal_gate = !gates_metric(c->gate.mean, c->gate.nmean, "refusal") &&
	                  !gates_metric(c->gate.record, c->gate.nrecord, "refusal");
	return 0;
}

static char *find_bin(eval *e)
{
	const char *env = getenv("RAG_EVAL_BIN");
	char exe[PATH_MAX], *slash, *claims;
	ssize_t n;
	if (e->bin_opt) return rag_xstrdup(e->bin_opt);
	if (env && *env) return rag_xstrdup(env);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		if ((slash = strrchr(exe, '/'))) {
			*slash = 0;
			claims = rag_xasprintf("%s/rag-claims", exe);
			if (access(claims, X_OK) == 0) {
				free(claims);
				return rag_xstrdup(exe);
			}
			free(claims);
		}
	}
	return NULL;   /* on PATH */
}

static char *self_path(const eval *e)
{
	char exe[PATH_MAX];
	ssize_t n;
	if (e->bin) {
		char *p = rag_xasprintf("%s/rag-eval", e->bin);
		if (access(p, X_OK) == 0) return p;
		free(p);
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		return rag_xstrdup(exe);
	}
	return rag_xstrdup("rag-eval");
}

static int valid_id(const char *s)
{
	return *s && *s != '.' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == strlen(s);
}

static char *new_run_id(void)
{
	char buf[64];
	struct tm tm;
	struct timespec ts;
	unsigned r;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
	r = (unsigned)(ts.tv_nsec ^ (getpid() << 8)) & 0xffff;
	return rag_xasprintf("%s-%04x", buf, r);
}

static const char *runs_dir(const eval *e)
{
	return e->cli.cfg.eval.runs_dir ? e->cli.cfg.eval.runs_dir : "runs";
}

/* --baseline last: the run of the runs directory that started last, other than this one */
static char *last_run(eval *e)
{
	const char *dir = runs_dir(e);
	DIR *d = opendir(dir);
	struct dirent *de;
	char *best = NULL, *best_start = NULL;
	if (!d) return NULL;
	while ((de = readdir(d))) {
		char *p, *rj, *recs;
		jv run, started;
		if (de->d_name[0] == '.') continue;
		p = rag_xasprintf("%s/%s", dir, de->d_name);
		rj = rag_xasprintf("%s/run.json", p);
		recs = rag_xasprintf("%s/records.jsonl", p);
		run = is_file(recs) ? read_json_file(rj) : jv_invalid();
		started = jv_get_kind(run) == JV_KIND_OBJECT ? jv_object_get(jv_copy(run), jv_string("started")) : jv_null();
		if (jv_get_kind(started) == JV_KIND_STRING && strcmp(p, e->rundir)) {
			/* the same second: the id decides */
			const char *s = jv_string_value(started);
			int later = !best_start || strcmp(s, best_start) > 0 ||
			            (!strcmp(s, best_start) && strcmp(p, best) > 0);
			if (later) {
				free(best);
				free(best_start);
				best = p;
				best_start = rag_xstrdup(s);
				p = NULL;
			}
		}
		jv_free(started);
		jv_free(run);
		free(p);
		free(rj);
		free(recs);
	}
	closedir(d);
	free(best_start);
	return best;
}

/* ---------------------------------------------------------------- run.json */

static jv git_info(void)
{
	char *commit = capture("git rev-parse HEAD 2>/dev/null", 1), *status;
	jv g;
	if (!commit || !*commit) {
		free(commit);
		return JV_OBJECT(jv_string("commit"), jv_null(), jv_string("dirty"), jv_null());
	}
	status = capture("git status --porcelain --untracked-files=no 2>/dev/null", 0);
	g = JV_OBJECT(jv_string("commit"), jv_string(commit),
	              jv_string("dirty"), status ? jv_bool(*status != 0) : jv_null());
	free(commit);
	free(status);
	return g;
}

static jv tool_versions(eval *e)
{
	jv v = jv_object();
	const char *tools[S_NONE + 3];
	size_t n = 0, i, j;
	int s;
	tools[n++] = "rag-eval";
	for (s = 0; s < S_NONE; s++)
		if (e->stage_on[s]) tools[n++] = stages[s].tool;
	tools[n++] = "rag-gate";
	tools[n++] = "rag-report";
	for (i = 0; i < n; i++) {
		rag_buf cmd = {0};
		char *out, *sp;
		for (j = 0; j < i; j++)
			if (!strcmp(tools[j], tools[i])) break;
		if (j < i) continue;
		if (i == 0) shq(&cmd, e->self);
		else add_tool(e, &cmd, tools[i]);
		rag_buf_adds(&cmd, " --version 2>/dev/null");
		out = capture(cmd.p, 1);
		/* "rag-verify (ragpipe) VERSION": the version is the last word */
		sp = out ? strrchr(out, ' ') : NULL;
		v = jv_object_set(v, jv_string(tools[i]), sp ? jv_string(sp + 1) : jv_null());
		free(out);
		rag_buf_free(&cmd);
	}
	return v;
}

static jv names_array(const rag_strv *l)
{
	jv a = jv_array();
	size_t i;
	for (i = 0; i < l->n; i++) a = jv_array_append(a, jv_string(l->v[i]));
	return a;
}

static jv run_head(eval *e, const char *cmd, const char *started)
{
	jv r = jv_object();
	r = jv_object_set(r, jv_string("run_id"), jv_string(e->run_id));
	r = jv_object_set(r, jv_string("started"), jv_string(started));
	r = jv_object_set(r, jv_string("ended"), jv_null());
	r = jv_object_set(r, jv_string("testset"), e->testset_abs ? jv_string(e->testset_abs) : jv_null());
	r = jv_object_set(r, jv_string("format"), jv_string(rag_testset_format_name(e->format)));
	r = jv_object_set(r, jv_string("metrics"), names_array(&e->metric_names));
	if (e->fields.n) r = jv_object_set(r, jv_string("fields"), names_array(&e->fields));   /* --field, for --resume */
	r = jv_object_set(r, jv_string("collect"), jv_bool(e->collect));
	r = jv_object_set(r, jv_string("baseline"), e->baseline ? jv_string(e->baseline) : jv_null());
	r = jv_object_set(r, jv_string("pipeline"), jv_string(cmd));
	r = jv_object_set(r, jv_string("git"), git_info());
	r = jv_object_set(r, jv_string("config"), rag_config_json(&e->cli.cfg));
	r = jv_object_set(r, jv_string("tools"), tool_versions(e));
	return r;
}

/* a set of strings as a sorted array */
static jv sorted_keys(jv set)
{
	return jv_keys(set);
}

/* Whether a record (borrowed) was scored as asked: 0 yes; 1 not (an errors entry, or a null
 * score that is not "not applicable"); 2 not, because a judge or the service under test failed
 * for it: its first errors entry, the cause (a later stage's says what it could not do without
 * the earlier one's result), has no "at" (input errors carry the line they were found at).
 * *errs: its errors. */
static int record_scored(jv rec, jv *errs)
{
	jv scores = jv_object_get(jv_copy(rec), jv_string("scores"));
	jv na = jv_object_get(jv_copy(rec), jv_string("not_applicable"));
	int r = 0;
	*errs = jv_object_get(jv_copy(rec), jv_string("errors"));
	if (jv_get_kind(*errs) == JV_KIND_ARRAY) {
		jv first = jv_array_get(jv_copy(*errs), 0);
		if (jv_is_valid(first))
			r = jv_get_kind(first) == JV_KIND_OBJECT && !jv_object_has(jv_copy(first), jv_string("at")) ? 2 : 1;
		jv_free(first);
	}
	if (!r && jv_get_kind(scores) == JV_KIND_OBJECT) {
		jv_object_foreach(scores, k, v) {
			if (jv_get_kind(v) != JV_KIND_NUMBER &&
			    !(jv_get_kind(na) == JV_KIND_OBJECT && jv_object_has(jv_copy(na), jv_copy(k))))
				r = 1;
			jv_free(k);
			jv_free(v);
		}
	}
	jv_free(scores);
	jv_free(na);
	return r;
}

/* Counts, tokens and models over the records of the run directory. */
static jv run_totals(const char *path, const rag_config *cfg, jv *models_out)
{
	jv cost = jv_object();
	char err[RAG_ERRLEN];
	size_t len, i = 0;
	char *text = rag_read_file(path, &len, err, sizeof err);
	long records = 0, with_errors = 0, errors = 0, na = 0, calls = 0, hits = 0, pt = 0, ct = 0;
	long not_scored = 0, remote = 0;
	jv judges = jv_object(), embedders = jv_object(), collectors = jv_object(), o;
	while (text && i < len) {
		char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;
		jv rec = jv_parse_sized(text + i, (int)(end - i)), x;
		i = end + 1;
		if (jv_get_kind(rec) != JV_KIND_OBJECT) {
			jv_free(rec);
			continue;
		}
		records++;
		switch (record_scored(rec, &x)) {
		case 2: remote++; /* fall through */
		case 1: not_scored++;
		}
		if (jv_get_kind(x) == JV_KIND_ARRAY && jv_array_length(jv_copy(x)) > 0) {
			with_errors++;
			errors += jv_array_length(jv_copy(x));
		}
		jv_free(x);
		x = jv_object_get(jv_copy(rec), jv_string("not_applicable"));
		if (jv_get_kind(x) == JV_KIND_OBJECT) na += jv_object_length(jv_copy(x));
		jv_free(x);
		/* usage.<tool>.<stage>: {calls, cache_hits, prompt_tokens, completion_tokens, judge} */
		x = jv_object_get(jv_copy(rec), jv_string("usage"));
		cost = rag_cost_add(cost, x);
		if (jv_get_kind(x) == JV_KIND_OBJECT) {
			jv_object_foreach(x, tool, per) {
				if (jv_get_kind(per) == JV_KIND_OBJECT) {
					jv_object_foreach(per, stage, u) {
						jv judge;
						if (jv_get_kind(u) == JV_KIND_OBJECT) {
							double v;
							if (!isnan(v = rag_json_num(u, "calls"))) calls += (long)v;
							if (!isnan(v = rag_json_num(u, "cache_hits"))) hits += (long)v;
							if (!isnan(v = rag_json_num(u, "prompt_tokens"))) pt += (long)v;
							if (!isnan(v = rag_json_num(u, "completion_tokens"))) ct += (long)v;
							judge = jv_object_get(jv_copy(u), jv_string("judge"));
							if (jv_get_kind(judge) != JV_KIND_STRING) judge = (jv_free(judge), jv_object_get(jv_copy(u), jv_string("model")));
							if (jv_get_kind(judge) == JV_KIND_STRING) {
								const char *t = jv_string_value(tool);
								if (!strcmp(t, "rag-embsim")) embedders = jv_object_set(embedders, judge, jv_true());
								else if (!strcmp(t, "rag-collect")) collectors = jv_object_set(collectors, judge, jv_true());
								else judges = jv_object_set(judges, judge, jv_true());
							} else {
								jv_free(judge);
							}
						}
						jv_free(stage);
						jv_free(u);
					}
				}
				jv_free(tool);
				jv_free(per);
			}
		}
		jv_free(x);
		jv_free(rec);
	}
	free(text);
	jv_free(collectors);
	*models_out = JV_OBJECT(jv_string("judge"), sorted_keys(judges), jv_string("embeddings"), sorted_keys(embedders));
	o = JV_OBJECT(jv_string("records"), jv_number((double)records),
	              jv_string("records_with_errors"), jv_number((double)with_errors),
	              jv_string("errors"), jv_number((double)errors),
	              jv_string("not_applicable"), jv_number((double)na),
	              jv_string("calls"), jv_number((double)calls),
	              jv_string("cache_hits"), jv_number((double)hits),
	              jv_string("prompt_tokens"), jv_number((double)pt),
	              jv_string("completion_tokens"), jv_number((double)ct),
	              jv_string("cost"), rag_cost_summary(cost, cfg->prices.v, cfg->prices.n, cfg->prices.currency));
	o = jv_object_set(o, jv_string("records_not_scored"), jv_number((double)not_scored));
	return jv_object_set(o, jv_string("records_remote_failed"), jv_number((double)remote));
}

/* ---------------------------------------------------------------- --estimate */

/* The first stage of an estimate's pipelines: the test set as records (rag-eval --emit). */
static void add_emit(eval *e, rag_buf *b, const char *src)
{
	shq(b, e->self);
	rag_buf_addf(b, " --emit --format %s --run-id ", rag_testset_format_name(e->format));
	shq(b, e->run_id);
	if (e->done_before) {
		/* --resume: what is left to score */
		char *f = path_in(e, "records.jsonl");
		rag_buf_adds(b, " --skip-done ");
		shq(b, f);
		free(f);
	}
	rag_buf_adds(b, " < ");
	shq(b, src);
}

/* A temporary file (made from tmpl) holding text: 0, or -1 with errno. */
static int write_tmp(char *tmpl, const char *text, size_t len)
{
	int fd = mkstemp(tmpl), e;
	if (fd < 0) return -1;
	if (rag_write_all(fd, text, len) < 0) {
		e = errno;
		close(fd);
		unlink(tmpl);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

/* --estimate with answers still to collect: the records the stages would see, into a temporary
 * file made from out (the caller unlinks it), each without an answer given one of the sizes rag
 * would collect: collect.expected_* from the config, or, with --sample N, the mean sizes of
 * the first N records collected for real (which those records keep). *info: what was stood in
 * and how, for the estimate's JSON. 0 or an exit status. */
static int standin(eval *e, const char *src, char *out, jv *info)
{
	rag_buf b = {0}, filled = {0};
	char *emitted, *collected = NULL, tmpl[] = "/tmp/rag-eval-sample-XXXXXX";
	rag_standin sz = {e->cli.cfg.collect.expected_answer_chars, e->cli.cfg.collect.expected_contexts,
	                  e->cli.cfg.collect.expected_context_chars}, sum = {0, 0, 0};
	long n = 0, sampled = 0, measured = 0, to_collect = 0, i;
	const char *p, *q;
	jv lines = jv_array(), got = jv_array();

	add_emit(e, &b, src);
	emitted = capture(b.p, 0);
	rag_buf_free(&b);
	if (!emitted) {
		rag_msg(e->cli.prog, "error", "--estimate: the test set could not be read as records");
		jv_free(lines);
		jv_free(got);
		return RAG_EXIT_INTERNAL;
	}
	for (p = emitted; *p; p = *q ? q + 1 : q) {
		q = p + strcspn(p, "\n");
		if (q > p) lines = jv_array_append(lines, jv_string_sized(p, (int)(q - p)));
	}
	free(emitted);
	n = jv_array_length(jv_copy(lines));
	if (e->sample > 0 && n > 0) {
		/* the first N records, collected for real: the sizes of what the system answers */
		for (i = 0; i < n && i < e->sample; i++) {
			jv l = jv_array_get(jv_copy(lines), (int)i);
			rag_buf_adds(&b, jv_string_value(l));
			rag_buf_adds(&b, "\n");
			jv_free(l);
			sampled++;
		}
		if (write_tmp(tmpl, b.p, b.len) < 0) {
			rag_msg(e->cli.prog, "error", "cannot write a temporary file: %s", strerror(errno));
			rag_buf_free(&b);
			jv_free(lines);
			jv_free(got);
			return RAG_EXIT_INTERNAL;
		}
		rag_buf_free(&b);
		add_tool(e, &b, "rag-collect");
		add_common(e, &b);
		rag_buf_adds(&b, " < ");
		shq(&b, tmpl);
		/* a record the system failed (4) or that had no question (3) is measured out, not fatal */
		rag_buf_adds(&b, "; s=$?; [ $s -eq 0 ] || [ $s -eq 3 ] || [ $s -eq 4 ]");
		if (e->cli.verbose) rag_msg(e->cli.prog, "info", "estimate: %s", b.p);
		collected = capture(b.p, 0);
		rag_buf_free(&b);
		unlink(tmpl);
		if (!collected) {
			rag_msg(e->cli.prog, "error", "--estimate --sample: rag-collect failed on the sample");
			jv_free(lines);
			jv_free(got);
			return RAG_EXIT_REMOTE;
		}
		for (p = collected; *p; p = *q ? q + 1 : q) {
			jv r;
			q = p + strcspn(p, "\n");
			if (q == p) continue;
			r = jv_parse_sized(p, (int)(q - p));
			if (jv_get_kind(r) == JV_KIND_OBJECT) rag_standin_add(&sum, &measured, r);
			got = jv_array_append(got, jv_get_kind(r) == JV_KIND_OBJECT ? r : (jv_free(r), jv_null()));
		}
		free(collected);
		if (measured > 0) {
			rag_standin_mean(&sum, measured);
			sz = sum;
		}
	}
	for (i = 0; i < n; i++) {
		jv l = jv_array_get(jv_copy(lines), (int)i), r = jv_parse(jv_string_value(l)), d;
		jv_free(l);
		if (jv_get_kind(r) != JV_KIND_OBJECT) {
			jv_free(r);
			continue;
		}
		if (!rag_record_str(r, "answer")) {
			jv c = i < sampled ? jv_array_get(jv_copy(got), (int)i) : jv_null();
			to_collect++;
			if (jv_get_kind(c) == JV_KIND_OBJECT && rag_record_str(c, "answer")) {
				jv_free(r);
				r = c;
			} else {
				jv_free(c);
				r = rag_estimate_standin(r, &sz);
			}
		}
		d = jv_dump_string(r, 0);
		rag_buf_adds(&filled, jv_string_value(d));
		rag_buf_adds(&filled, "\n");
		jv_free(d);
	}
	jv_free(lines);
	jv_free(got);
	if (write_tmp(out, filled.p ? filled.p : "", filled.len) < 0) {
		rag_msg(e->cli.prog, "error", "cannot write a temporary file: %s", strerror(errno));
		rag_buf_free(&filled);
		return RAG_EXIT_INTERNAL;
	}
	rag_buf_free(&filled);
	if (!e->cli.quiet) {
		if (measured)
			rag_msg(e->cli.prog, "estimate", "rag-collect: %ld record%s to collect; the first %ld collected "
			        "(--sample: %ld request%s sent to the system under test), the others stood in at their "
			        "mean sizes: answers of %.0f characters, %.1f contexts of %.0f characters", to_collect,
			        to_collect == 1 ? "" : "s", sampled, sampled, sampled == 1 ? "" : "s", sz.answer_chars,
			        sz.contexts, sz.context_chars);
		else
			rag_msg(e->cli.prog, "estimate", "rag-collect: %ld record%s to collect (not sent, not priced: the "
			        "system under test); the stages after it see stand-ins%s: answers of %.0f characters, %.0f "
			        "contexts of %.0f characters (collect.expected_answer_chars, expected_contexts, "
			        "expected_context_chars)", to_collect, to_collect == 1 ? "" : "s",
			        sampled ? " (no record of the sample was collected)" : "", sz.answer_chars, sz.contexts,
			        sz.context_chars);
	}
	*info = JV_OBJECT(jv_string("tool"), jv_string("rag-collect"), jv_string("records"), jv_number((double)to_collect),
	                  jv_string("sampled"), jv_number((double)sampled),
	                  jv_string("sizes_from"), jv_string(measured ? "sample" : "config"),
	                  jv_string("answer_chars"), jv_number(sz.answer_chars), jv_string("contexts"), jv_number(sz.contexts),
	                  jv_string("context_chars"), jv_number(sz.context_chars));
	return 0;
}

/* Each stage that asks a model, run with --estimate on the test set's records: what it would
 * send, summed. A stage after the first would see the records the earlier ones changed; those
 * are not there without sending, so each stage sees the test set's records, after the earlier
 * claims and questions stages ran with the offline judge (claims split locally, the answer as
 * its one pseudo-question), which sends nothing. With answers still to collect, the stages see
 * stand-ins for them (standin): rag-collect's calls are counted apart (the system under test is
 * no priced model). */
static int estimate(eval *e)
{
	char tmpl[] = "/tmp/rag-eval-estimate-XXXXXX", filled[] = "/tmp/rag-eval-standin-XXXXXX";
	const char *src = e->testset;
	const char *cur = e->cli.cfg.prices.currency;
	double req = 0, pc = 0, pt = 0, ct = 0, cost = 0, records = 0, kt = 0;
	jv list = jv_array(), missing = jv_object(), o, coll = jv_invalid();
	int s, t, rc = 0, priced = 1, tmp = 0, have_filled = 0;

	if (!strcmp(e->testset, "-")) {
		int fd = mkstemp(tmpl);
		if (fd < 0 || rag_write_all(fd, e->input ? e->input : "", e->input_len) < 0) {
			rag_msg(e->cli.prog, "error", "cannot write a temporary file: %s", strerror(errno));
			if (fd >= 0) close(fd), unlink(tmpl);
			jv_free(list);
			jv_free(missing);
			return RAG_EXIT_INTERNAL;
		}
		close(fd);
		src = tmpl;
		tmp = 1;
	}
	if (e->collect) {
		if ((rc = standin(e, src, filled, &coll))) {
			if (tmp) unlink(tmpl);
			jv_free(list);
			jv_free(missing);
			return rc;
		}
		have_filled = 1;
	} else if (e->sample && !e->cli.quiet) {
		rag_msg(e->cli.prog, "notice", "--sample: no answer to collect (collect: is not configured, or every "
		        "record has one): nothing sampled");
	}
	for (s = 0; s < S_NONE && !rc; s++) {
		const struct stage *st = &stages[s];
		rag_buf b = {0};
		char *out;
		jv v, x;
		double c;
		if (!e->stage_on[s] || !st->jobs || s == S_COLLECT) continue;
		if (have_filled) {
			rag_buf_adds(&b, "cat ");
			shq(&b, filled);
		} else {
			add_emit(e, &b, src);
		}
		for (t = 0; t < s; t++) {
			if (!e->stage_on[t] || (t != S_CLAIMS && t != S_REVQ)) continue;
			rag_buf_adds(&b, " | ");
			add_tool(e, &b, stages[t].tool);
			add_common(e, &b);
			rag_buf_adds(&b, " --judge offline 2>/dev/null");   /* its record errors: the stage estimated says them */
		}
		rag_buf_adds(&b, " | ");
		add_tool(e, &b, st->tool);
		add_common(e, &b);
		if (st->args) rag_buf_addf(&b, " %s", st->args);
		if (st->list && e->stage_list[s].len) {
			rag_buf_addf(&b, " %s ", st->list);
			shq(&b, e->stage_list[s].p);
		}
		rag_buf_adds(&b, " --estimate || [ $? -eq 3 ]");   /* bad records (3) are counted out, not fatal */
		if (e->cli.verbose) rag_msg(e->cli.prog, "info", "estimate: %s", b.p);
		out = capture(b.p, 1);
		v = out ? jv_parse(out) : jv_invalid();
		free(out);
		x = jv_get_kind(v) == JV_KIND_OBJECT ? jv_object_get(v, jv_string("estimate")) : (jv_free(v), jv_invalid());
		if (jv_get_kind(x) != JV_KIND_OBJECT) {
			rag_msg(e->cli.prog, "error", "--estimate: the stage %s%s%s gave no estimate", st->tool,
			        st->args ? " " : "", st->args ? st->args : "");
			jv_free(x);
			rag_buf_free(&b);
			rc = RAG_EXIT_INTERNAL;
			break;
		}
		rag_buf_free(&b);
		x = jv_object_set(x, jv_string("stage"), st->args ? jv_string_fmt("%s %s", st->tool, st->args) : jv_string(st->tool));
		req += rag_json_num(x, "requests");
		pc += rag_json_num(x, "prompt_chars");
		pt += rag_json_num(x, "prompt_tokens");
		ct += rag_json_num(x, "completion_tokens");
		if (rag_json_num(x, "cached_prefix_tokens") > 0) kt += rag_json_num(x, "cached_prefix_tokens");
		records = rag_json_num(x, "records");
		c = rag_json_num(x, "cost");
		if (isnan(c)) {
			char judge[256];
			const char *j = rag_json_str(x, "judge", judge, sizeof judge), *colon = j ? strchr(j, ':') : NULL;
			priced = 0;
			if (j) missing = jv_object_set(missing, jv_string(colon ? colon + 1 : j), jv_true());
		} else {
			cost += c;
		}
		if (!e->cli.quiet) {
			char cs[128];
			if (isnan(c)) snprintf(cs, sizeof cs, "cost unknown (no price)");
			else snprintf(cs, sizeof cs, "cost %.6f %s", c, cur);
			rag_msg(e->cli.prog, "estimate", "%s%s%s: %.0f request%s, about %.0f prompt + %.0f completion tokens, %s",
			        st->tool, st->args ? " " : "", st->args ? st->args : "", rag_json_num(x, "requests"),
			        rag_json_num(x, "requests") == 1 ? "" : "s", rag_json_num(x, "prompt_tokens"),
			        rag_json_num(x, "completion_tokens"), cs);
		}
		list = jv_array_append(list, x);
	}
	if (tmp) unlink(tmpl);
	if (have_filled) unlink(filled);
	if (rc) {
		jv_free(list);
		jv_free(missing);
		jv_free(coll);
		return rc;
	}
	{
		jv keys = jv_keys(jv_copy(missing));
		rag_buf m = {0};
		jv_array_foreach(keys, i, k) {
			rag_buf_addf(&m, "%sno price for model %s", i ? "; " : "", jv_string_value(k));
			jv_free(k);
		}
		jv_free(keys);
		if (!e->cli.quiet) {
			if (priced)
				rag_msg(e->cli.prog, "estimate", "total: %.0f records, %.0f requests, about %.0f prompt + %.0f completion "
				        "tokens, cost %.6f %s by the price table (an estimate: no request was sent to a judge; each stage "
				        "estimated from the test set's records%s)", records, req, pt, ct, cost, cur,
				        have_filled ? " and stand-ins for the answers to collect" : "");
			else
				rag_msg(e->cli.prog, "estimate", "total: %.0f records, %.0f requests, about %.0f prompt + %.0f completion "
				        "tokens, cost unknown: %s (an estimate: no request was sent to a judge; each stage estimated "
				        "from the test set's records%s)", records, req, pt, ct, m.p,
				        have_filled ? " and stand-ins for the answers to collect" : "");
		}
		o = JV_OBJECT(jv_string("tool"), jv_string("rag-eval"), jv_string("records"), jv_number(records),
		              jv_string("requests"), jv_number(req), jv_string("prompt_chars"), jv_number(pc),
		              jv_string("prompt_tokens"), jv_number(pt), jv_string("completion_tokens"), jv_number(ct),
		              jv_string("currency"), jv_string(cur));
		/* each stage's prefix repeated from its request before (not across stages) */
		o = jv_object_set(o, jv_string("cached_prefix_tokens"), jv_number(kt));
		o = jv_object_set(o, jv_string("cost"), priced ? jv_number(cost) : jv_null());
		if (!priced) o = jv_object_set(o, jv_string("message"), jv_string(m.p));
		o = jv_object_set(o, jv_string("stages"), list);
		if (jv_is_valid(coll)) o = jv_object_set(o, jv_string("collect"), coll);
		else jv_free(coll);
		rag_buf_free(&m);
	}
	jv_free(missing);
	o = jv_dump_string(JV_OBJECT(jv_string("estimate"), o), 0);
	printf("%s\n", jv_string_value(o));
	jv_free(o);
	if (fflush(stdout) != 0) rc = RAG_EXIT_INTERNAL;
	return rc;
}

/* ---------------------------------------------------------------- running */

static int status_of(int st)
{
	if (WIFEXITED(st)) return WEXITSTATUS(st);
	if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
	return RAG_EXIT_INTERNAL;
}

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

/* Read the pipeline's records into records.jsonl, one write a record. */
static int collect_output(eval *e, int in, int fd, size_t *nout)
{
	rag_buf b = {0};
	char buf[65536];
	size_t start = 0;
	struct progress p = { isatty(2) && !e->cli.quiet, rag_now(), 0, 0, e->total, 0 };
	int rc = 0, passed_on = 0;
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
	progress_show(&p, 1);
	rag_buf_free(&b);
	*nout = p.done;
	return rc;
}

static int run_sh(const char *cmd)
{
	int st;
	pid_t pid = fork();
	if (pid < 0) return RAG_EXIT_INTERNAL;
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) return RAG_EXIT_INTERNAL;
	return status_of(st);
}

/* The store the run goes into: --store, else store.url; NULL: none. */
static const char *store_url(const eval *e)
{
	return e->store_opt ? e->store_opt : e->cli.cfg.store.url;
}

/* RUNDIR/report.html by rag-report; with_history: beside the run, its test set's stored runs
 * (RUNDIR/history.jsonl, written by store_run). 0, or after a message rag-report's status. */
static int render_report(eval *e, int with_history)
{
	char *recs = path_in(e, "records.jsonl"), *f;
	rag_buf b = {0};
	int rc;

	add_tool(e, &b, "rag-report");
	add_common(e, &b);
	add_gate_thresholds(e, &b);
	if (e->baseline) {
		rag_buf_adds(&b, " -b ");
		shq(&b, (f = rag_xasprintf("%s/records.jsonl", e->baseline)));
		free(f);
	}
	if (with_history) {
		rag_buf_adds(&b, " --history ");
		shq(&b, (f = path_in(e, "history.jsonl")));
		free(f);
	}
	rag_buf_adds(&b, " --title ");
	shq(&b, (f = rag_xasprintf("ragpipe run %s", e->run_id)));
	free(f);
	rag_buf_adds(&b, " -o ");
	shq(&b, (f = path_in(e, "report.html")));
	free(f);
	rag_buf_adds(&b, " ");
	shq(&b, recs);
	rag_buf_add(&b, "", 1);
	rc = run_sh(b.p);
	if (rc != 0) rag_msg(e->cli.prog, "error", "rag-report failed (exit status %d)", rc);
	rag_buf_free(&b);
	free(recs);
	return rc;
}

/* After the pipeline: the gate's JSON and Markdown, (resumed: its text and JUnit over the whole
 * run), and the HTML report. Returns the gate's status, or an error's. */
static int finish_outputs(eval *e, int gate_rc)
{
	char *recs = path_in(e, "records.jsonl"), *f;
	rag_buf b = {0};
	int rc, final = gate_rc;
	const char *what[] = { "--json", "gate.json", "--markdown", "summary.md" };
	size_t i;

	if (e->done_before) {
		/* the pipeline's gate saw this part of the run only: the whole run's decision */
		add_tool(e, &b, "rag-gate");
		add_gate_opts(e, &b);
		rag_buf_adds(&b, " -o ");
		shq(&b, (f = path_in(e, "gate.txt")));
		free(f);
		rag_buf_adds(&b, " --junit ");
		shq(&b, (f = path_in(e, "junit.xml")));
		free(f);
		rag_buf_adds(&b, " ");
		shq(&b, recs);
		final = run_sh(b.p);
		if (final > RAG_EXIT_FAIL) e->wrote &= ~(1u << OUT_JUNIT);
		b.len = 0;
	}
	for (i = 0; i < 4; i += 2) {
		add_tool(e, &b, "rag-gate");
		add_gate_opts(e, &b);
		rag_buf_addf(&b, " %s -o ", what[i]);
		shq(&b, (f = path_in(e, what[i + 1])));
		free(f);
		rag_buf_adds(&b, " ");
		shq(&b, recs);
		rag_buf_add(&b, "", 1);
		rc = run_sh(b.p);
		if (i == 2 && rc <= RAG_EXIT_FAIL) e->wrote |= 1u << OUT_SUMMARY;
		if (rc > RAG_EXIT_FAIL && final <= RAG_EXIT_FAIL) {
			rag_msg(e->cli.prog, "error", "rag-gate %s failed (exit status %d)", what[i], rc);
			final = rc;
		}
		b.len = 0;
	}
	/* with a store, the report is rendered once the run is stored, with its history (main) */
	if (!store_url(e)) {
		rc = render_report(e, 0);
		if (rc == 0) e->wrote |= 1u << OUT_REPORT;
		if (rc != 0 && final <= RAG_EXIT_FAIL) final = rc;
	} else if (final <= RAG_EXIT_FAIL) {
		e->wrote |= 1u << OUT_REPORT;   /* once stored (main): its failure is said then */
	}
	rag_buf_free(&b);
	free(recs);
	return final;
}

static void print_file(const char *path)
{
	char err[RAG_ERRLEN];
	size_t len;
	char *text = rag_read_file(path, &len, err, sizeof err);
	if (text) rag_write_all(2, text, len);
	free(text);
}

/* One request budget for the whole pipeline (rag(7) CONCURRENCY): a file whose byte-range
 * locks are the slots, named to every stage by RAG_INFLIGHT. One set by the caller (shards of one
 * run on one machine) is kept; else a new one in $TMPDIR, removed when the run ends (*made). */
static char *shared_budget(eval *e, int *made)
{
	const char *dir = getenv("TMPDIR"), *have = getenv("RAG_INFLIGHT");
	char *path;
	int fd;
	*made = 0;
	if (have && *have) return NULL;
	path = rag_xasprintf("%s/rag-eval-inflight-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		rag_msg(e->cli.prog, "warning", "cannot create the shared request budget in %s (%s): each stage "
		        "keeps its own -j", dir && *dir ? dir : "/tmp", strerror(errno));
		free(path);
		return NULL;
	}
	close(fd);
	if (setenv("RAG_INFLIGHT", path, 1) < 0) {
		unlink(path);
		free(path);
		return NULL;
	}
	*made = 1;
	return path;
}

/* What the run directory holds, for the last message: after a write error (a full disk) what
 * was written, not what a run that went well writes. */
static char *written(const eval *e)
{
	rag_buf w = {0}, not = {0};
	int k;
	for (k = 0; k < OUT_N; k++) {
		rag_buf *l = e->wrote & (1u << k) ? &w : &not;
		if (l == &not && k == OUT_RECORDS) continue;   /* it holds what came before the error */
		rag_buf_addf(l, "%s%s", l->len ? ", " : "", out_names[k]);
	}
	if (!not.len && (e->wrote & (1u << OUT_RECORDS))) return w.p;   /* all of them */
	if (w.len) rag_buf_adds(&w, " written; ");
	if (!(e->wrote & (1u << OUT_RECORDS))) rag_buf_addf(&w, "records.jsonl cut short%s", not.len ? "; " : "");
	if (not.len) rag_buf_addf(&w, "%s not written", not.p);
	rag_buf_free(&not);
	return w.p;
}

static int run(eval *e, const char *cmd)
{
	char *recs = path_in(e, "records.jsonl"), *runjson = path_in(e, "run.json");
	char *started = NULL, *ended;
	jv head = jv_invalid(), totals, models;
	int fd = -1, out_fd = -1, st, rc = 0, gate_rc;
	pid_t pid, feeder;
	size_t nout = 0;
	int made_budget = 0;
	char *budget = NULL;

	if (mkdirs(e->rundir) < 0) {
		rag_msg(e->cli.prog, "error", "cannot create \"%s\": %s", e->rundir, strerror(errno));
		rc = RAG_EXIT_USAGE;
		goto out;
	}
	/* a fresh run: owned now, and still empty (a run that ended between prepare's look and the
	 * lock holds its records) */
	if (e->lock_fd < 0 && ((rc = own_rundir(e)) || (rc = holds_run(e)))) goto out;
	if (e->done_before) {
		jv old = read_json_file(runjson);
		jv s = jv_get_kind(old) == JV_KIND_OBJECT ? jv_object_get(jv_copy(old), jv_string("started")) : jv_invalid();
		if (jv_get_kind(s) == JV_KIND_STRING) started = rag_xstrdup(jv_string_value(s));
		jv_free(s);
		jv_free(old);
	}
	if (!started) started = iso_time(time(NULL));
	head = run_head(e, cmd, started);
	if (write_json_file(e, runjson, jv_copy(head)) < 0) {
		rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	fd = open(recs, O_WRONLY | O_CREAT | O_APPEND, 0666);
	if (fd < 0) {
		rag_msg(e->cli.prog, "error", "cannot open \"%s\": %s", recs, strerror(errno));
		rc = RAG_EXIT_USAGE;
		goto out;
	}
	budget = shared_budget(e, &made_budget);
	e->life_fd = life_pipe(e);
	if ((pid = spawn(e, cmd, &out_fd, &feeder)) < 0) {
		rag_msg(e->cli.prog, "error", "cannot start the pipeline: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
		if (made_budget) unlink(budget);
		free(budget);
		goto out;
	}
	rc = collect_output(e, out_fd, fd, &nout);
	close(out_fd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (made_budget) unlink(budget);
	free(budget);
	if (feeder > 0) while (waitpid(feeder, NULL, 0) < 0 && errno == EINTR)
		;
	gate_rc = status_of(st);
	if (fsync(fd) < 0 || close(fd) < 0) {
		rag_msg(e->cli.prog, "error", "cannot write \"%s\": %s", recs, strerror(errno));
		if (!rc) rc = RAG_EXIT_INTERNAL;
	}
	fd = -1;
	if (!rc) e->wrote |= 1u << OUT_RECORDS;
	if (gate_rc <= RAG_EXIT_FAIL) e->wrote |= 1u << OUT_JUNIT;   /* the pipeline's gate: gate.txt too */
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
	if (!rc) rc = finish_outputs(e, gate_rc);

	totals = run_totals(recs, &e->cli.cfg, &models);
	if (e->stage_on[S_EMBSIM]) {
		/* rag-embsim writes no usage: its embedder as it chooses one (rag-embsim(1)) */
		jv em = jv_object_get(jv_copy(models), jv_string("embeddings"));
		if (jv_array_length(em) == 0) {
			const rag_config *c = &e->cli.cfg;
			const char *prov = c->embeddings.provider ? c->embeddings.provider : c->llm.provider;
			int online = prov ? !strcmp(prov, "openai") : (c->embeddings.base_url || c->llm.base_url);
			models = jv_object_set(models, jv_string("embeddings"),
			                       JV_ARRAY(online ? jv_string_fmt("openai:%s", c->embeddings.model)
			                                       : jv_string("offline")));
		}
	}
	/* a run some of whose records were not scored measured less than it was asked to: never a
	 * green run, gate or no gate, and apart from a gate that failed (1) */
	if (rag_json_num(totals, "records_not_scored") > 0)
		e->unscored_rc = rag_json_num(totals, "records_remote_failed") > 0 ? RAG_EXIT_REMOTE : RAG_EXIT_DATA;
	ended = iso_time(time(NULL));
	head = jv_object_set(head, jv_string("ended"), jv_string(ended));
	head = jv_object_set(head, jv_string("models"), models);
	head = jv_object_set(head, jv_string("counts"), totals);
	head = jv_object_set(head, jv_string("resumed_with"), jv_number((double)e->done_before));
	head = jv_object_set(head, jv_string("exit_status"), jv_number(rc <= RAG_EXIT_FAIL && e->unscored_rc ? e->unscored_rc : rc));
	head = jv_object_set(head, jv_string("gate"),
	                     e->summary_only ? jv_string("summary only") : rc == 0 ? jv_string("pass") :
	                     rc == RAG_EXIT_FAIL ? jv_string("fail") : jv_null());
	free(ended);
	if (write_json_file(e, runjson, jv_copy(head)) < 0) {
		if (rc <= RAG_EXIT_FAIL) rc = RAG_EXIT_INTERNAL;
	} else {
		e->wrote |= 1u << OUT_RUNJSON;
	}

	if (!e->cli.quiet && !rag_tool_interrupted) {
		char *g = path_in(e, "gate.txt"), *w = written(e);
		jv c = jv_object_get(jv_copy(head), jv_string("counts"));
		print_file(g);
		free(g);
		if (e->summary_only)
			rag_msg(e->cli.prog, "info", "no threshold is configured (gate: in the configuration): "
			        "a summary, no decision");
		rag_msg(e->cli.prog, "info", "run %s: %.0f records, %.0f with errors or nulls, %.0f not applicable; in %s (%s)",
		        e->run_id, rag_json_num(c, "records"), rag_json_num(c, "records_not_scored"),
		        rag_json_num(c, "not_applicable"), e->rundir, w);
		free(w);
		jv_free(c);
	}
	if (e->unscored_rc && rc <= RAG_EXIT_FAIL) {
		jv c = jv_object_get(jv_copy(head), jv_string("counts"));
		rag_msg(e->cli.prog, "error", "%.0f of %.0f records could not be scored (%.0f for a failed judge or service, "
		        "the rest for their input; their errors are in records.jsonl): exit status %d, whatever the gate "
		        "says (rag-eval(1) EXIT STATUS)", rag_json_num(c, "records_not_scored"), rag_json_num(c, "records"),
		        rag_json_num(c, "records_remote_failed"), e->unscored_rc);
		jv_free(c);
	}
out:
	if (fd >= 0) close(fd);
	jv_free(head);
	free(started);
	free(recs);
	free(runjson);
	return rc;
}

/* ---------------------------------------------------------------- the store */

/* The finished run into the store at url (rag-store add), its test set as a version of it, and
 * RUNDIR/history.jsonl: the stored runs of that test set, oldest first (rag-store(1) HISTORY).
 * 0, or after a message RAG_EXIT_STORE (the run directory stays as it is). */
static int store_run(eval *e, const char *url)
{
	char err[RAG_ERRLEN], *rj = path_in(e, "run.json"), *recs = path_in(e, "records.jsonl");
	char *hist = path_in(e, "history.jsonl"), *records = NULL, *set = NULL, *id = NULL;
	size_t len = 0, set_len = 0, k;
	jv run = read_json_file(rj), summary = jv_invalid(), runs = jv_invalid();
	rag_store *s = NULL;
	rag_store_run in;
	rag_store_filter f;
	rag_cli_gate g;
	rag_gate_opts go;
	rag_buf b = {0};
	int rc = RAG_EXIT_STORE, fd;

	rag_cli_gate_init(&g);
	/* the store's gate is the run's: the thresholds rag-eval gave rag-gate too */
	if (e->refusal_gate) rag_gate_threshold_parse("refusal=1", &g.record, &g.nrecord, err, sizeof err);
	for (k = 0; k < e->metric_names.n; k++) rag_strv_push(&g.metrics, rag_xstrdup(score_name(e->metric_names.v[k])));
	rag_cli_gate_opts(&e->cli, &g, &go);
	memset(&in, 0, sizeof in);
	memset(&f, 0, sizeof f);
	if (!(records = rag_read_file(recs, &len, err, sizeof err)) || jv_get_kind(run) != JV_KIND_OBJECT) {
		if (!records) rag_msg(e->cli.prog, "error", "cannot store the run: %s", err);
		else rag_msg(e->cli.prog, "error", "cannot store the run: \"%s\" is not a JSON object", rj);
		goto out;
	}
	/* the test set as read from its file (one read on stdin has no name to store it by) */
	if (!e->input && e->testset_abs) set = rag_read_file(e->testset_abs, &set_len, err, sizeof err);
	if (!(s = rag_store_open(url, err, sizeof err))) goto fail;
	in.run = run;
	in.records = records;
	in.len = len;
	in.testset_text = set;
	in.testset_len = set_len;
	in.testset_file = e->testset_abs;
	in.gate = &go;
	if (rag_store_show(s, e->run_id, &summary, err, sizeof err) == 0) {
		/* --resume of a run that had finished and was stored: the same run */
		if (!e->cli.quiet) rag_msg(e->cli.prog, "info", "run %s is in %s already", e->run_id, rag_store_url(s));
		id = rag_xstrdup(e->run_id);
	} else if (rag_store_add(s, &in, &id, err, sizeof err) < 0 || rag_store_show(s, id, &summary, err, sizeof err) != 0) {
		goto fail;
	} else if (!e->cli.quiet) {
		rag_msg(e->cli.prog, "info", "run %s stored in %s", id, rag_store_url(s));
	}
	{
		jv ts = jv_object_get(jv_copy(summary), jv_string("testset"));
		f.testset = jv_get_kind(ts) == JV_KIND_STRING ? rag_xstrdup(jv_string_value(ts)) : NULL;
		jv_free(ts);
	}
	rc = rag_store_list(s, &f, &runs, err, sizeof err);
	free((char *)f.testset);
	if (rc < 0) {
		rc = RAG_EXIT_STORE;
		goto fail;
	}
	rc = RAG_EXIT_STORE;
	jv_array_foreach(runs, i, r) {
		jv d = jv_dump_string(rag_store_history(r), 0);
		rag_buf_adds(&b, jv_string_value(d));
		rag_buf_add(&b, "\n", 1);
		jv_free(d);
		(void)i;
	}
	fd = open(hist, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0 || rag_write_all(fd, b.p ? b.p : "", b.len) < 0 || close(fd) < 0) {
		rag_msg(e->cli.prog, "error", "cannot write \"%s\": %s", hist, strerror(errno));
		goto out;
	}
	rc = 0;
	goto out;
fail:
	{
		char *shown = rag_store_url_masked(url);
		rag_msg(e->cli.prog, "error", "cannot store the run in %s: %s; the run directory %s is kept",
		        shown, err, e->rundir);
		free(shown);
	}
out:
	rag_store_close(s);
	rag_cli_gate_free(&g);
	rag_buf_free(&b);
	jv_free(run);
	jv_free(summary);
	jv_free(runs);
	free(records);
	free(set);
	free(id);
	free(rj);
	free(recs);
	free(hist);
	return rc;
}

/* Whether a tool of the pipeline is there: in the tools' directory, or on PATH. */
static int tool_found(const eval *e, const char *tool)
{
	const char *path = getenv("PATH"), *p;
	char *f;
	int ok = 0;
	if (e->bin) {
		f = rag_xasprintf("%s/%s", e->bin, tool);
		ok = access(f, X_OK) == 0;
		free(f);
		return ok;
	}
	for (p = path; p && *p && !ok; p += strcspn(p, ":") + (p[strcspn(p, ":")] == ':')) {
		size_t n = strcspn(p, ":");
		f = rag_xasprintf("%.*s/%s", (int)n, n ? p : ".", tool);
		ok = access(f, X_OK) == 0;
		free(f);
	}
	return ok;
}

/* Every tool the pipeline runs, there; else which one lacks, and for what. */
static int check_tools(const eval *e)
{
	const char *need[S_NONE + 2];
	size_t n = 0, i;
	int s, missing = 0;
	for (s = 0; s < S_NONE; s++)
		if (e->stage_on[s]) need[n++] = stages[s].tool;
	need[n++] = "rag-gate";
	need[n++] = "rag-report";
	for (i = 0; i < n; i++) {
		if (tool_found(e, need[i])) continue;
		rag_msg(e->cli.prog, "error", "%s is not installed (%s%s)%s", need[i], e->bin ? "not in " : "not on PATH",
		        e->bin ? e->bin : "", !strcmp(need[i], "rag-collect") ? ": it collects the answers of the "
		        "records that have none (collect: in the configuration)" : "");
		missing = 1;
	}
	return missing ? RAG_EXIT_USAGE : 0;
}

/* --jobs: GNU parallel there, and a shard's command line it takes as written. */
static int check_shards(eval *e)
{
	const char *path = getenv("PATH"), *p;
	int found = 0, brace;
	rag_buf sh = {0};
	/* parallel reads {}, {#}, {= ... =} in its command as replacement strings: it would change
	 * a path or a name that holds a brace */
	add_stages(e, &sh, " | ");
	brace = strchr(sh.p, '{') != NULL;
	rag_buf_free(&sh);
	if (brace) {
		rag_msg(e->cli.prog, "error", "--jobs: the stages' command line holds a '{' (in a path or a name), which "
		        "GNU parallel would read as a replacement string; rename it, or run without --jobs");
		return RAG_EXIT_USAGE;
	}
	if (e->dry_run) return 0;
	for (p = path; p && *p && !found; p += strcspn(p, ":") + (p[strcspn(p, ":")] == ':')) {
		size_t n = strcspn(p, ":");
		char *f = rag_xasprintf("%.*s/parallel", (int)n, n ? p : ".");
		found = access(f, X_OK) == 0;
		free(f);
	}
	if (!found) {
		rag_msg(e->cli.prog, "error", "--jobs runs the shards with GNU parallel, which is not installed (not on "
		        "PATH): apt-get install parallel");
		return RAG_EXIT_USAGE;
	}
	return 0;
}

/* ---------------------------------------------------------------- main */

static int prepare(eval *e)
{
	jv old = jv_invalid();
	size_t n, i, complete;
	int rc;

	e->bin = find_bin(e);
	e->self = self_path(e);

	if (e->resume) {
		char *rj = rag_xasprintf("%s/run.json", e->resume);
		jv id, ts;
		old = read_json_file(rj);
		free(rj);
		if (jv_get_kind(old) != JV_KIND_OBJECT) {
			rag_msg(e->cli.prog, "error", "--resume %s: no run.json of a run there", e->resume);
			jv_free(old);
			return RAG_EXIT_USAGE;
		}
		id = jv_object_get(jv_copy(old), jv_string("run_id"));
		ts = jv_object_get(jv_copy(old), jv_string("testset"));
		if (jv_get_kind(id) == JV_KIND_STRING) e->run_id = rag_xstrdup(jv_string_value(id));
		if (!e->testset && jv_get_kind(ts) == JV_KIND_STRING) e->testset = e->testset_own = rag_xstrdup(jv_string_value(ts));
		jv_free(id);
		jv_free(ts);
		e->rundir = rag_xstrdup(e->resume);
		if (!e->metrics_opt) {
			/* the same metrics as the run began with */
			jv m = jv_object_get(jv_copy(old), jv_string("metrics"));
			if (jv_get_kind(m) == JV_KIND_ARRAY) {
				rag_buf l = {0};
				jv_array_foreach(m, k, name) {
					if (jv_get_kind(name) == JV_KIND_STRING)
						rag_buf_addf(&l, "%s%s", k ? "," : "", jv_string_value(name));
					jv_free(name);
				}
				rag_buf_add(&l, "", 1);
				e->metrics_own = l.p;
				e->metrics_opt = l.p;
			}
			jv_free(m);
		}
		if (!e->fields.n) {
			/* the records' ids may come from --field: the same mapping */
			jv f = jv_object_get(jv_copy(old), jv_string("fields"));
			if (jv_get_kind(f) == JV_KIND_ARRAY) {
				jv_array_foreach(f, k, one) {
					if (jv_get_kind(one) == JV_KIND_STRING) rag_strv_push(&e->fields, rag_xstrdup(jv_string_value(one)));
					jv_free(one);
					(void)k;
				}
			}
			jv_free(f);
		}
		if (!e->baseline_opt) {
			jv b = jv_object_get(jv_copy(old), jv_string("baseline"));
			if (jv_get_kind(b) == JV_KIND_STRING) e->baseline = rag_xstrdup(jv_string_value(b));
			jv_free(b);
		}
		jv_free(old);
		if (!e->run_id || !e->testset) {
			rag_msg(e->cli.prog, "error", "--resume %s: run.json names no run id or no test set (give TESTSET)",
			        e->resume);
			return RAG_EXIT_USAGE;
		}
	}
	if ((rc = set_metrics(e))) return rc;
	if (!e->testset) {
		rag_msg(e->cli.prog, "error", "no test set: give TESTSET (a file, or - for standard input)");
		return rag_cli_misuse(&e->cli);
	}
	if (!e->run_id) {
		if (e->run_id_opt && !valid_id(e->run_id_opt)) {
			rag_msg(e->cli.prog, "error", "--run-id \"%s\": letters, digits, '.', '_' and '-' only", e->run_id_opt);
			return rag_cli_misuse(&e->cli);
		}
		e->run_id = e->run_id_opt ? rag_xstrdup(e->run_id_opt) : new_run_id();
	}
	if (!e->rundir) e->rundir = e->outdir ? rag_xstrdup(e->outdir) : rag_xasprintf("%s/%s", runs_dir(e), e->run_id);

	if ((rc = load_testset(e, e->testset, !strcmp(e->testset, "-")))) return rc;
	rag_cli_near_misses(&e->cli, e->records);
	if (strcmp(e->testset, "-")) e->testset_abs = realpath(e->testset, NULL);
	n = (size_t)jv_array_length(jv_copy(e->records));
	e->total = n;
	if ((rc = add_refusal(e))) return rc;
	{
		/* runs are matched by id (--resume, --baseline): say when one is not unique */
		jv seen = jv_object();
		size_t dups = 0;
		for (i = 0; i < n; i++) {
			jv id = jv_object_get(jv_array_get(jv_copy(e->records), (int)i), jv_string("id"));
			if (jv_object_has(jv_copy(seen), jv_copy(id))) {
				if (!dups++ && !e->cli.quiet)
					rag_msg(e->cli.prog, "warning", "id \"%s\" is not unique in the test set: --resume and "
					        "--baseline match records by id", jv_string_value(id));
				jv_free(id);
			} else {
				seen = jv_object_set(seen, id, jv_true());
			}
		}
		jv_free(seen);
	}

	/* the records scored already */
	{
		char *recs = path_in(e, "records.jsonl");
		if (e->resume) {
			jv ids;
			struct stat st;
			/* another rag-eval appending to it would change what is done, and the line cut
			 * below could be its record being written */
			if (!e->dry_run && !e->cli.estimate && (rc = own_rundir(e))) {
				free(recs);
				return rc;
			}
			ids = done_ids(recs, &complete);
			/* a line cut short by the crash goes: the record is scored again */
			if (stat(recs, &st) == 0 && (size_t)st.st_size > complete && !e->dry_run &&
			    truncate(recs, (off_t)complete) < 0) {
				rag_msg(e->cli.prog, "error", "cannot truncate \"%s\": %s", recs, strerror(errno));
				jv_free(ids);
				free(recs);
				return RAG_EXIT_INTERNAL;
			}
			for (i = 0; i < n; i++) {
				jv id = jv_object_get(jv_array_get(jv_copy(e->records), (int)i), jv_string("id"));
				if (jv_object_has(jv_copy(ids), id)) e->done_before++;
			}
			e->done = ids;   /* for --jobs' block size */
			e->total = n - e->done_before;
		} else if ((rc = holds_run(e))) {
			free(recs);
			return rc;
		}
		free(recs);
	}

	/* collect when it is configured and some record has no answer yet */
	if (e->cli.cfg.collect.url || e->cli.cfg.collect.command) {
		for (i = 0; i < n && !e->collect; i++) {
			jv rec = jv_array_get(jv_copy(e->records), (int)i);
			jv a = jv_object_get(jv_copy(rec), jv_string("answer"));
			if (jv_get_kind(a) != JV_KIND_STRING) {
				jv_free(a);
				a = jv_object_get(jv_copy(rec), jv_string("response"));
			}
			if (jv_get_kind(a) != JV_KIND_STRING) e->collect = 1;
			jv_free(a);
			jv_free(rec);
		}
	}
	e->stage_on[S_COLLECT] = e->collect;
	if (!e->collect && !e->cli.quiet) {
		size_t missing = 0;
		for (i = 0; i < n; i++) {
			jv rec = jv_array_get(jv_copy(e->records), (int)i);
			jv a = jv_object_get(jv_copy(rec), jv_string("answer"));
			if (jv_get_kind(a) != JV_KIND_STRING) {
				jv_free(a);
				a = jv_object_get(jv_copy(rec), jv_string("response"));
			}
			missing += jv_get_kind(a) != JV_KIND_STRING;
			jv_free(a);
			jv_free(rec);
		}
		if (missing && !e->cli.cfg.collect.url && !e->cli.cfg.collect.command)
			rag_msg(e->cli.prog, "warning", "%zu of %zu records have no answer, and no collect.url or "
			        "collect.command is configured to get one from the system under test", missing, n);
	}

	if (e->baseline_opt) {
		if (!strcmp(e->baseline_opt, "last")) {
			if (!(e->baseline = last_run(e))) {
				rag_msg(e->cli.prog, "error", "--baseline last: no earlier run in \"%s\"", runs_dir(e));
				return RAG_EXIT_USAGE;
			}
		} else {
			e->baseline = rag_xstrdup(e->baseline_opt);
		}
	}
	if (e->baseline) {
		char *f = rag_xasprintf("%s/records.jsonl", e->baseline);
		int ok = is_dir(e->baseline) && is_file(f);
		free(f);
		if (!ok) {
			rag_msg(e->cli.prog, "error", "--baseline %s: not a run directory (no records.jsonl)", e->baseline);
			return RAG_EXIT_USAGE;
		}
	}
	e->summary_only = !e->cli.cfg.gate.nmean && !e->cli.cfg.gate.nrecord && !e->refusal_gate &&
	                  !(e->cli.cfg.gate.fail_on_regression && e->baseline);
	return 0;
}

int main(int argc, char **argv)
{
	eval e;
	int opt, rc = 0, done;
	long n;
	char *cmd = NULL;
	size_t i;

	memset(&e, 0, sizeof e);
	e.records = jv_invalid();
	e.done = jv_invalid();
	e.lock_fd = e.life_fd = -1;
	e.cli.prog = "rag-eval";
	e.cli.usage = usage;
	e.cli.opts = options;
	while ((opt = rag_cli_getopt(&e.cli, argc, argv)) != -1) {
		switch (opt) {
		case 'm': e.metrics_opt = optarg; break;
		case 'o': e.outdir = optarg; break;
		case 'b': e.baseline_opt = optarg; break;
		case OPT_RUN_ID: e.run_id_opt = optarg; break;
		case OPT_RESUME: e.resume = optarg; break;
		case OPT_BIN: e.bin_opt = optarg; break;
		case OPT_DRY_RUN: e.dry_run = 1; break;
		case OPT_EMIT: e.emit = 1; break;
		case OPT_SKIP_DONE: e.skip_done = optarg; break;
		case 'j':
			if (rag_cli_int(&e.cli, "-j", optarg, 1, 4096, &n) < 0) goto misuse;
			e.jobs = n;
			break;
		case OPT_JOBS:
			if (rag_cli_int(&e.cli, "--jobs", optarg, 1, 4096, &n) < 0) goto misuse;
			e.shards = n;
			break;
		case OPT_SSHLOGIN: e.sshlogin = optarg; break;
		case OPT_STORE: e.store_opt = optarg; break;
		case OPT_FIELD: rag_strv_push(&e.fields, rag_xstrdup(optarg)); break;
		case OPT_SAMPLE:
			if (rag_cli_int(&e.cli, "--sample", optarg, 1, 1000000, &n) < 0) goto misuse;
			e.sample = n;
			break;
		case OPT_FORMAT:
			if ((e.format = rag_testset_format_parse(optarg)) < 0) {
				rag_msg(e.cli.prog, "error", "--format must be auto, json or csv, not \"%s\"", optarg);
				goto misuse;
			}
			break;
		default:
			rc = rag_cli_option(&e.cli, opt, optarg, &done);
			if (rc || done) goto out;
		}
	}
	if (argc - optind > 1) {
		rag_msg(e.cli.prog, "error", "one test set only (%d given)", argc - optind);
		goto misuse;
	}
	e.testset = optind < argc ? argv[optind] : NULL;
	if (e.emit) {
		if (!e.testset) e.testset = "-";
		e.run_id_opt = e.run_id_opt;   /* the run id the records carry */
		rag_tool_watch_eval();          /* the first stage: it ends with rag-eval too */
		if (!(rc = rag_cli_config(&e.cli))) rc = emit(&e);   /* its fields: mapping */
		goto out;
	}
	if (e.skip_done) {
		rag_msg(e.cli.prog, "error", "--skip-done goes with --emit");
		goto misuse;
	}
	if (e.sample && !e.cli.estimate) {
		rag_msg(e.cli.prog, "error", "--sample goes with --estimate (the records it collects to measure)");
		goto misuse;
	}
	if (e.sshlogin && !e.shards) {
		rag_msg(e.cli.prog, "error", "--sshlogin goes with --jobs N (the shards to run on those hosts)");
		goto misuse;
	}
	if (e.resume && (e.outdir || e.run_id_opt)) {
		rag_msg(e.cli.prog, "error", "--resume continues a run in its own directory, with its own id: "
		        "no -o or --run-id with it");
		goto misuse;
	}
	if ((rc = rag_cli_config(&e.cli))) goto out;
	if ((rc = prepare(&e))) goto out;
	if (e.cli.estimate) {
		if (!(rc = check_tools(&e))) rc = estimate(&e);
		goto out;
	}
	cmd = pipeline(&e);
	if (e.shards && (rc = check_shards(&e))) goto out;
	if (e.dry_run) {
		printf("%s\n", cmd);
		if (fflush(stdout) != 0) rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	if ((rc = check_tools(&e))) goto out;
	rag_tool_signals();
	if (e.cli.verbose) rag_msg(e.cli.prog, "info", "the pipeline: %s", cmd);
	if (e.total == 0 && e.done_before) {
		/* nothing left to score: the outputs of the whole run */
		if (!e.cli.quiet) rag_msg(e.cli.prog, "info", "%s: every record is scored already", e.rundir);
	}
	rc = run(&e, cmd);
	if (rc <= RAG_EXIT_FAIL && store_url(&e)) {
		/* the run stored, then its report, with the stored runs of its test set in its History
		 * tab (without them when storing failed) */
		int st = store_run(&e, store_url(&e)), rr = render_report(&e, st == 0);
		if (st) rc = st;
		else if (rr) rc = rr;
	}
	if (rc <= RAG_EXIT_FAIL && e.unscored_rc) rc = e.unscored_rc;

out:
	if (e.lock_fd >= 0) close(e.lock_fd);
	if (e.life_fd >= 0) close(e.life_fd);
	free(cmd);
	jv_free(e.records);
	jv_free(e.done);
	free(e.bin);
	free(e.self);
	free(e.run_id);
	free(e.rundir);
	free(e.baseline);
	free(e.testset_abs);
	free(e.input);
	free(e.testset_own);
	free(e.metrics_own);
	rag_strv_free(&e.metric_names);
	rag_strv_free(&e.fields);
	for (i = 0; i < S_NONE; i++) rag_buf_free(&e.stage_list[i]);
	rag_cli_free(&e.cli);
	return rc;
misuse:
	rc = rag_cli_misuse(&e.cli);
	goto out;
}
