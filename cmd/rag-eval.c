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
#include "eval.h"
#include "base.h"
#include "config.h"
#include "usage.h"
#include "record.h"
#include "gate.h"
#include "store.h"
#include "evalplan.h"

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
	OPT_JOBS, OPT_SSHLOGIN, OPT_STORE, OPT_FIELD, OPT_SAMPLE, OPT_FORCE, OPT_LABEL, OPT_BATCH, OPT_FOLLOW,
	OPT_ON_FAIL, OPT_WEBHOOK, OPT_IDLE
};

static const rag_opt options[] = {
	{"metrics", 'm', 'm', "LIST", NULL, "metrics, comma-separated (default eval.metrics, else faithfulness,\n"
	 "answer_relevancy,context_precision,context_recall)"},
	{"output", 'o', 'o', "DIR", RAG_ARG_FILE, "the run directory (default eval.runs_dir/RUN-ID, runs/RUN-ID)"},
	{"force", 0, OPT_FORCE, NULL, NULL, "replace the run -o DIR holds (one that is not running), as a\n"
	 "build that is run again without clean"},
	{"run-id", 0, OPT_RUN_ID, "ID", NULL, "the run's id (default UTC time and a random suffix)"},
	{"label", 0, OPT_LABEL, "TEXT", NULL, "the run's label, in run.json and the store (as rag-store add --label)"},
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
	{"batch", 0, OPT_BATCH, NULL, NULL, "send each judge stage's requests as batches at the\n"
	 "provider's batch price (answered within 24 hours)"},
	{"follow", 0, OPT_FOLLOW, "SIZE", NULL, "production traffic: TESTSET is OpenTelemetry traces (an endless\n"
	 "tail -F); rag-trace, the metrics, rag-gate over windows of SIZE;\n"
	 "the cap per hour, each window stored"},
	{"on-fail", 0, OPT_ON_FAIL, "COMMAND", NULL, "with --follow: rag-gate --on-fail COMMAND"},
	{"webhook", 0, OPT_WEBHOOK, "URL", NULL, "with --follow: rag-gate --webhook URL"},
	{"idle", 0, OPT_IDLE, "SECONDS", NULL, "with --follow: rag-gate --idle SECONDS"},
	{"dry-run", 0, OPT_DRY_RUN, NULL, NULL, "print the pipeline as one shell command and exit"},
	{"estimate", 0, RAG_OPT_ESTIMATE, NULL, NULL, "send nothing: print the requests, tokens and cost each stage\n"
	 "would take, and their sum (no run directory)"},
	{"max-cost", 0, RAG_OPT_MAX_COST, "AMOUNT", NULL, "send no judge request that would take the run's cost past\n"
	 "AMOUNT, all stages together (prices.currency; llm.max_cost)"},
	{"sample", 0, OPT_SAMPLE, "N", NULL, "with --estimate: collect the first N records for real, and\n"
	 "stand in the answers still to collect at their sizes"},
	{"emit", 0, OPT_EMIT, NULL, NULL, "the pipeline's first stage: the test set as records on stdout"},
	{"skip-done", 0, OPT_SKIP_DONE, "FILE", RAG_ARG_FILE, "with --emit: leave out the ids FILE holds"},
	RAG_OPT_END
};

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
	const char *need[RAG_EVAL_MAXSTAGES + 2];
	size_t n = 0, i;
	int s, k, missing = 0;
	for (k = 0; (s = rag_evalplan_nth(k)) >= 0; k++)
		if (e->plan.stage_on[s]) need[n++] = rag_evalplan_stage(s)->tool;
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
	rag_evalplan_stages_text(&e->plan, &sh, " | ");
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

/* The metrics into the plan (lib/evalplan.c): 0, or RAG_EXIT_USAGE after a message. */
static int set_metrics(eval *e)
{
	char err[1024];
	if (rag_evalplan_set_metrics(&e->plan, e->metrics_opt, &e->cli.cfg, err, sizeof err) == 0) return 0;
	rag_msg(e->cli.prog, "error", "%s", err);
	return RAG_EXIT_USAGE;
}

/* Unanswerable cases (expect: refusal) are scored by whether the answer declines, whatever the
 * metrics named: every other metric leaves them not applicable or scores an invented answer
 * as if it were one (faithfulness to contexts that say it), so without refusal such a case
 * would pass. And an invented answer fails the gate unless the configuration gates refusal
 * its own way. */
static int add_refusal(eval *e, size_t unanswerable)
{
	char err[1024];
	int added;
	if (!unanswerable) return 0;
	if ((added = rag_evalplan_refusal(&e->plan, &e->cli.cfg, err, sizeof err)) < 0) {
		rag_msg(e->cli.prog, "error", "%s", err);
		return RAG_EXIT_USAGE;
	}
	if (added && !e->cli.quiet)
		rag_msg(e->cli.prog, "info", "%zu unanswerable case%s (expect: refusal): the refusal metric is scored too",
		        unanswerable, unanswerable == 1 ? "" : "s");
	return 0;
}

/* Where the plan runs, for every command rag-eval writes from it: once prepare knows it all. */
static void plan_where(eval *e)
{
	rag_evalplan *p = &e->plan;
	p->bin = e->bin;
	p->self = e->self;
	p->config_path = e->cli.config_path;
	p->format = rag_testset_format_name(e->format);
	p->run_id = e->run_id;
	p->rundir = e->rundir;
	p->testset = e->testset;
	p->baseline = e->baseline;
	p->sshlogin = e->sshlogin;
	p->fields = &e->fields;
	p->max_memory = e->cli.max_memory;
	p->jobs = e->jobs;
	p->shards = e->shards;
	p->skip_done = e->done_before > 0;
}

/* The pipeline, as one shell command. */
static char *pipeline(eval *e)
{
	rag_buf b = {0};
	rag_evalplan_render(&e->plan, &b);
	return b.p;
}

/* --resume without -m: the same metrics as the run began with */
static void resume_metrics(eval *e, jv old)
{
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

/* --resume without --field: the records' ids may come from --field, the same mapping */
static void resume_fields(eval *e, jv old)
{
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

/* --resume: the label run.json (old, borrowed) has; NULL: none. malloc'ed. */
static char *resumed_label(jv old)
{
	jv l = jv_object_get(jv_copy(old), jv_string("label"));
	char *s = jv_get_kind(l) == JV_KIND_STRING ? rag_xstrdup(jv_string_value(l)) : NULL;
	jv_free(l);
	return s;
}

/* --resume: what the run's run.json says of it (its id, test set, metrics, --field mappings
 * and baseline), where the command line does not say otherwise. 0, or RAG_EXIT_USAGE. */
static int resume_from(eval *e)
{
	char *rj = rag_xasprintf("%s/run.json", e->resume);
	jv old = eval_read_json_file(rj), id, ts;
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
	if (!e->metrics_opt) resume_metrics(e, old);
	if (!e->fields.n) resume_fields(e, old);
	if (!e->label) e->label = e->label_own = resumed_label(old);
	if (rag_json_true(old, "batch")) e->batch = 1;   /* its batches looked at again, not sent again */
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
	return 0;
}

/* What rag-eval needs of its test set, taken in one pass record by record (survey): the
 * records are not kept (the reader keeps their ids, each once: rag_testset_each). */
struct survey {
	eval *e;
	size_t n, unanswerable, missing;
	jv near, seen;            /* field names like a known one's: [[name, suggestion]...]; those met */
	long total, longest;      /* --jobs: the bytes of the lines --emit writes, the longest */
	int collect;              /* collect is configured */
};

/* 1 when rec has no answer (nor response) */
static int lacks_answer(jv rec)
{
	jv a = jv_object_get(jv_copy(rec), jv_string("answer"));
	int lacks;
	if (jv_get_kind(a) != JV_KIND_STRING) {
		jv_free(a);
		a = jv_object_get(jv_copy(rec), jv_string("response"));
	}
	lacks = jv_get_kind(a) != JV_KIND_STRING;
	jv_free(a);
	return lacks;
}

static int survey_one(jv rec, size_t line, void *ctx)
{
	struct survey *v = ctx;
	eval *e = v->e;
	jv id = jv_object_get(jv_copy(rec), jv_string("id"));
	int done = e->resume && rag_idtab_find(&e->done, jv_string_value(id)) >= 0;
	(void)line;
	v->n++;
	v->near = jv_array_concat(v->near, rag_record_near_misses(rec, &v->seen));
	v->unanswerable += rag_record_expects_refusal(rec) != 0;
	v->missing += (size_t)lacks_answer(rec);
	e->done_before += (size_t)done;
	if (e->shards && !done) {
		/* the line --emit writes, for parallel's --block */
		jv d;
		long len;
		rec = jv_object_set(rec, jv_string("run_id"), jv_string(e->run_id));
		d = jv_dump_string(rec, 0);
		len = (long)strlen(jv_string_value(d)) + 1;
		jv_free(d);
		v->total += len;
		if (len > v->longest) v->longest = len;
	} else {
		jv_free(rec);
	}
	jv_free(id);
	return 0;
}

/* --resume: the records scored already (e->done, e->done_before), the run directory owned, a
 * line cut short by the crash cut off; a fresh run: a directory that holds no run. 0, or an
 * exit status after a message. */
static int records_done(eval *e)
{
	char *recs = eval_path_in(e, "records.jsonl");
	size_t complete;
	struct stat st;
	int rc = 0;
	if (!e->resume) {
		rc = e->force ? 0 : eval_holds_run(e);
		free(recs);
		return rc;
	}
	/* another rag-eval appending to it would change what is done, and the line cut
	 * below could be its record being written */
	if (!e->dry_run && !e->cli.estimate && (rc = eval_own_rundir(e))) {
		free(recs);
		return rc;
	}
	eval_done_ids(recs, &e->done, &complete);
	/* a line cut short by the crash goes: the record is scored again */
	if (stat(recs, &st) == 0 && (size_t)st.st_size > complete && !e->dry_run &&
	    truncate(recs, (off_t)complete) < 0) {
		rag_msg(e->cli.prog, "error", "cannot truncate \"%s\": %s", recs, strerror(errno));
		free(recs);
		return RAG_EXIT_INTERNAL;
	}
	free(recs);
	return 0;
}

/* collect when it is configured and some record has no answer yet; without it, say how many
 * have none */
static void plan_collect(eval *e, size_t missing, size_t n)
{
	int configured = e->cli.cfg.collect.url || e->cli.cfg.collect.command;
	e->collect = configured && missing > 0;
	e->plan.stage_on[RAG_EVAL_COLLECT] = e->collect;
	if (e->collect || e->cli.quiet) return;
	if (missing && !configured)
		rag_msg(e->cli.prog, "warning", "%zu of %zu records have no answer, and no collect.url or "
		        "collect.command is configured to get one from the system under test", missing, n);
}

/* -b: the run compared with (last: the newest of the runs directory), a run directory. */
static int set_baseline(eval *e)
{
	char *f;
	int ok;
	if (e->baseline_opt && !strcmp(e->baseline_opt, "last")) {
		if (!(e->baseline = eval_last_run(e))) {
			rag_msg(e->cli.prog, "error", "--baseline last: no earlier run in \"%s\"", eval_runs_dir(e));
			return RAG_EXIT_USAGE;
		}
	} else if (e->baseline_opt) {
		e->baseline = rag_xstrdup(e->baseline_opt);
	}
	if (!e->baseline) return 0;
	f = rag_xasprintf("%s/records.jsonl", e->baseline);
	ok = eval_is_dir(e->baseline) && eval_is_file(f);
	free(f);
	if (!ok) {
		rag_msg(e->cli.prog, "error", "--baseline %s: not a run directory (no records.jsonl)", e->baseline);
		return RAG_EXIT_USAGE;
	}
	return 0;
}

/* The run's id and directory: --run-id (checked), else a new one; -o, else the runs directory. */
static int name_run(eval *e)
{
	if (!e->run_id) {
		if (e->run_id_opt && !valid_id(e->run_id_opt)) {
			rag_msg(e->cli.prog, "error", "--run-id \"%s\": letters, digits, '.', '_' and '-' only", e->run_id_opt);
			return rag_cli_misuse(&e->cli);
		}
		e->run_id = e->run_id_opt ? rag_xstrdup(e->run_id_opt) : new_run_id();
	}
	if (!e->rundir) e->rundir = e->outdir ? rag_xstrdup(e->outdir) : rag_xasprintf("%s/%s", eval_runs_dir(e), e->run_id);
	return 0;
}

/* The test set read once, record by record: what the plan needs of it. 0, or an exit status
 * after a message. */
static int survey(eval *e)
{
	struct survey v = { e, 0, 0, 0, jv_array(), jv_object(), 0, 0, 0 };
	int rc;
	if ((rc = eval_each_record(e, survey_one, &v))) goto out;
	if (v.n == 0) {
		rag_msg(e->cli.prog, "error", "%s: no records in the test set", strcmp(e->testset, "-") ? e->testset : "<stdin>");
		rc = RAG_EXIT_DATA;
		goto out;
	}
	rag_cli_say_near(&e->cli, jv_copy(v.near));
	if (strcmp(e->testset, "-")) e->testset_abs = realpath(e->testset, NULL);
	if ((rc = add_refusal(e, v.unanswerable))) goto out;
	e->total = v.n - e->done_before;
	plan_collect(e, v.missing, v.n);
	if (e->shards) e->plan.block = rag_evalplan_block_of(v.total, v.longest, e->shards);
out:
	jv_free(v.near);
	jv_free(v.seen);
	return rc;
}

static int prepare(eval *e)
{
	int rc;

	e->bin = find_bin(e);
	e->self = self_path(e);
	if (e->resume && (rc = resume_from(e))) return rc;
	if ((rc = set_metrics(e))) return rc;
	if (!e->testset) {
		rag_msg(e->cli.prog, "error", "no test set: give TESTSET (a file, or - for standard input)");
		return rag_cli_misuse(&e->cli);
	}
	if ((rc = name_run(e))) return rc;
	if ((rc = records_done(e))) return rc;
	if ((rc = survey(e))) return rc;
	if ((rc = set_baseline(e))) return rc;
	e->plan.summary_only = !e->cli.cfg.gate.nmean && !e->cli.cfg.gate.nrecord && !e->plan.refusal_gate &&
	                       !e->cli.cfg.gate.nby_category && !e->cli.cfg.gate.nby_category_mean &&
	                       !(e->cli.cfg.gate.fail_on_regression && e->baseline);
	plan_where(e);
	return 0;
}

/* One option of rag-eval's own (the shared ones to rag_cli_option). 0 to go on; else *stop is
 * set and the value is the exit status (0 after --help or --version). */
/* --list-metrics (hidden; for the build and the tests): each metric of the plan's registry, one
 * a line, tab-separated: its name (a prefix as p@), the tools of its stages (comma-separated),
 * and for a metric tool of one operation its operation (its prompts' name) and its .doc, else
 * "-" and "-". mk/man.sh makes rag-eval(1)'s and rag(7)'s lists of metric tools of it, and the
 * tests their checks (80-fault-matrix.t, 96-docs.t). */
static int list_metrics(const eval *e)
{
	rag_buf b = {0};
	const rag_evalmetric *m;
	size_t i;
	int rc;
	for (i = 0; (m = rag_evalplan_metric(i)); i++) {
		const rag_evalstage *s1 = rag_evalplan_stage(m->s1), *s2 = rag_evalplan_stage(m->s2);
		const char *op, *doc = rag_evalplan_tool_doc(m, &op);
		rag_buf_addf(&b, "%s\t%s%s%s\t%s\t%s\n", m->name, s1->tool, s2 && strcmp(s2->tool, s1->tool) ? "," : "",
		             s2 && strcmp(s2->tool, s1->tool) ? s2->tool : "", op ? op : "-", doc ? doc : "-");
	}
	rag_buf_add(&b, "", 1);
	rc = rag_cli_write(&e->cli, stdout, NULL, b.p);
	rag_buf_free(&b);
	return rc;
}

static int take_option(eval *e, int opt, int *stop)
{
	long n;
	int rc;
	*stop = 1;
	switch (opt) {
	case 'm': e->metrics_opt = optarg; break;
	case 'o': e->outdir = optarg; break;
	case 'b': e->baseline_opt = optarg; break;
	case OPT_RUN_ID: e->run_id_opt = optarg; break;
	case OPT_RESUME: e->resume = optarg; break;
	case OPT_BIN: e->bin_opt = optarg; break;
	case OPT_DRY_RUN: e->dry_run = 1; break;
	case OPT_EMIT: e->emit = 1; break;
	case OPT_SKIP_DONE: e->skip_done = optarg; break;
	case 'j':
		if (rag_cli_int(&e->cli, "-j", optarg, 1, 4096, &n) < 0) return rag_cli_misuse(&e->cli);
		e->jobs = n;
		break;
	case OPT_JOBS:
		if (rag_cli_int(&e->cli, "--jobs", optarg, 1, 4096, &n) < 0) return rag_cli_misuse(&e->cli);
		e->shards = n;
		break;
	case OPT_SSHLOGIN: e->sshlogin = optarg; break;
	case OPT_STORE: e->store_opt = optarg; break;
	case OPT_FORCE: e->force = 1; break;
	case OPT_BATCH: e->batch = 1; break;
	case OPT_FOLLOW: e->follow = optarg; break;
	case OPT_ON_FAIL: e->on_fail = optarg; break;
	case OPT_WEBHOOK: e->webhook = optarg; break;
	case OPT_IDLE: {
		double v;   /* checked here, passed on as given */
		if (rag_cli_double(&e->cli, "--idle", optarg, 0, 1e9, 0, &v) < 0) return rag_cli_misuse(&e->cli);
		e->idle = optarg;
		break;
	}
	case RAG_OPT_HIDDEN: return list_metrics(e);
	case OPT_LABEL: e->label = optarg; break;
	case OPT_FIELD: rag_strv_push(&e->fields, rag_xstrdup(optarg)); break;
	case OPT_SAMPLE:
		if (rag_cli_int(&e->cli, "--sample", optarg, 1, 1000000, &n) < 0) return rag_cli_misuse(&e->cli);
		e->sample = n;
		break;
	case OPT_FORMAT:
		if ((e->format = rag_testset_format_parse(optarg)) < 0) {
			rag_msg(e->cli.prog, "error", "--format must be auto, json or csv, not \"%s\"", optarg);
			return rag_cli_misuse(&e->cli);
		}
		break;
	default:
		rc = rag_cli_option(&e->cli, opt, optarg, stop);
		if (rc) *stop = 1;
		return rc;
	}
	*stop = 0;
	return 0;
}

/* The options that go only with others: 0, or the usage error's status after a message. */
static int check_combinations(eval *e)
{
	const char *bad = NULL;
	if (e->skip_done) bad = "--skip-done goes with --emit";
	else if (e->sample && !e->cli.estimate) bad = "--sample goes with --estimate (the records it collects to measure)";
	else if ((e->on_fail || e->webhook || e->idle) && !e->follow) bad = "--on-fail, --webhook and --idle go with --follow";
	else if (e->follow && (e->resume || e->outdir || e->run_id_opt || e->force || e->batch || e->shards || e->baseline_opt ||
	                       e->cli.estimate || e->label || e->fields.n))
		bad = "--follow scores an endless stream into windows: no run directory, so no -o, --run-id, --force, "
		      "--resume, --label, -b, --batch, --jobs, --field or --estimate";
	else if (e->sshlogin && !e->shards) bad = "--sshlogin goes with --jobs N (the shards to run on those hosts)";
	else if (e->batch && e->shards) bad = "--batch sends each stage's requests as batches: not with --jobs N";
	else if (e->resume && (e->outdir || e->run_id_opt || e->force))
		bad = "--resume continues a run in its own directory, with its own id: no -o, --run-id or --force "
		      "with it";
	if (!bad) return 0;
	rag_msg(e->cli.prog, "error", "%s", bad);
	return rag_cli_misuse(&e->cli);
}

/* --follow: the metrics and the tools, then the pipeline (eval-follow.c) */
static int follow(eval *e)
{
	int rc;
	e->bin = find_bin(e);
	e->self = self_path(e);
	if ((rc = set_metrics(e))) return rc;
	if (!e->cli.cfg.gate.nmean && !e->cli.cfg.gate.nrecord && !e->cli.cfg.gate.nby_category &&
	    !e->cli.cfg.gate.nby_category_mean) {
		rag_msg(e->cli.prog, "error", "--follow gates each window: give thresholds (gate.mean, gate.record in the "
		        "configuration)");
		return RAG_EXIT_USAGE;
	}
	if (!e->testset) e->testset = "-";
	e->plan.bin = e->bin;
	e->plan.self = e->self;
	e->plan.config_path = e->cli.config_path;
	e->plan.max_memory = e->cli.max_memory;
	e->plan.jobs = e->jobs;
	if (!e->dry_run && (rc = check_tools(e))) return rc;
	if (!e->dry_run && !tool_found(e, "rag-trace")) {
		rag_msg(e->cli.prog, "error", "rag-trace is not installed (%s%s)", e->bin ? "not in " : "not on PATH",
		        e->bin ? e->bin : "");
		return RAG_EXIT_USAGE;
	}
	return eval_follow(e);
}

/* The run, once the options are read: set up, then --estimate, --dry-run, or the pipeline run
 * (and the run into the store). Its exit status. */
static int score(eval *e)
{
	char *cmd = NULL, *spend = NULL;
	int rc, made_spend = 0;
	if ((rc = rag_cli_config(&e->cli))) return rc;
	if (e->follow) return follow(e);
	if (e->sshlogin && e->cli.cfg.llm.max_cost > 0 && !e->cli.estimate) {
		/* the spent amount is shared through a file on this machine: shards elsewhere would
		 * each spend the whole cap */
		rag_msg(e->cli.prog, "error", "a spending cap (--max-cost, llm.max_cost) holds on one machine: not with "
		        "--sshlogin, whose shards on other hosts would each spend all of it");
		return rag_cli_misuse(&e->cli);
	}
	if ((rc = prepare(e))) return rc;
	e->batch |= e->cli.cfg.llm.batch;
	e->plan.batch = e->batch;
	if (e->batch && e->shards) {
		rag_msg(e->cli.prog, "error", "--batch (llm.batch) sends each stage's requests as batches: not with --jobs N");
		return rag_cli_misuse(&e->cli);
	}
	if (e->cli.estimate) return (rc = check_tools(e)) ? rc : eval_estimate(e);
	cmd = pipeline(e);
	if (e->shards && (rc = check_shards(e))) goto out;
	if (e->dry_run) {
		printf("%s\n", cmd);
		if (fflush(stdout) != 0) rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	if ((rc = check_tools(e))) goto out;
	rag_tool_signals();
	/* a cap's one count from the batches' weighing to the run's last live request */
	if (e->batch) spend = eval_shared_spend(e, &made_spend);
	if (e->batch && (rc = eval_batch(e, cmd))) goto out;
	if (e->cli.verbose) rag_msg(e->cli.prog, "info", "the pipeline: %s", cmd);
	if (e->total == 0 && e->done_before) {
		/* nothing left to score: the outputs of the whole run */
		if (!e->cli.quiet) rag_msg(e->cli.prog, "info", "%s: every record is scored already", e->rundir);
	}
	rc = eval_run(e, cmd);
	if (rc <= RAG_EXIT_FAIL && eval_store_url(e)) {
		/* the run stored, then its report, with the stored runs of its test set in its History
		 * tab (without them when storing failed) */
		int st = eval_store_run(e, eval_store_url(e)), rr = eval_render_report(e, st == 0);
		if (st) rc = st;
		else if (rr) rc = rr;
	}
	if (rc <= RAG_EXIT_FAIL) rc = e->verdict_rc;   /* the verdict's: an outage beyond the error budget 3 or 4 */
out:
	if (made_spend) unlink(spend);
	free(spend);
	free(cmd);
	return rc;
}

static void eval_free(eval *e)
{
	if (e->lock_fd >= 0) close(e->lock_fd);
	if (e->life_fd >= 0) close(e->life_fd);
	rag_idtab_free(&e->done);
	free(e->bin);
	free(e->self);
	free(e->run_id);
	free(e->rundir);
	free(e->baseline);
	free(e->testset_abs);
	free(e->input);
	free(e->testset_own);
	free(e->metrics_own);
	free(e->label_own);
	rag_evalplan_free(&e->plan);
	rag_strv_free(&e->fields);
	rag_cli_free(&e->cli);
}

int main(int argc, char **argv)
{
	eval e;
	int opt, rc = 0, stop = 0;

	memset(&e, 0, sizeof e);
	e.lock_fd = e.life_fd = -1;
	e.cli.prog = "rag-eval";
	e.cli.usage = usage;
	e.cli.opts = options;
	e.cli.hidden = "list-metrics";
	while (!stop && (opt = rag_cli_getopt(&e.cli, argc, argv)) != -1) rc = take_option(&e, opt, &stop);
	if (stop) goto out;   /* an option's error, or --help, --version */
	if (argc - optind > 1) {
		rag_msg(e.cli.prog, "error", "one test set only (%d given)", argc - optind);
		rc = rag_cli_misuse(&e.cli);
		goto out;
	}
	e.testset = optind < argc ? argv[optind] : NULL;
	if (e.emit) {
		if (!e.testset) e.testset = "-";
		rag_tool_watch_eval();          /* the first stage: it ends with rag-eval too */
		if (!(rc = rag_cli_config(&e.cli))) rc = eval_emit(&e);   /* its fields: mapping */
	} else if (!(rc = check_combinations(&e))) {
		rc = score(&e);
	}
out:
	eval_free(&e);
	return rc;
}
