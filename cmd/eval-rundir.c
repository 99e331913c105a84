/* eval-rundir.c - rag-eval's run directory: its lock, run.json, the outputs after the
 * pipeline (gate JSON and Markdown, report), --baseline last, and the run into the store. */
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

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

char *eval_path_in(const eval *e, const char *leaf)
{
	return rag_xasprintf("%s/%s", e->rundir, leaf);
}

static const char *const out_names[OUT_N] = {"records.jsonl", "report.html", "junit.xml", "summary.md", "run.json"};

char *eval_iso_time(time_t t)
{
	char buf[64];
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return rag_xstrdup(buf);
}

int eval_is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int eval_is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int eval_mkdirs(const char *path)
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
int eval_own_rundir(eval *e)
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
int eval_holds_run(eval *e)
{
	char *recs = eval_path_in(e, "records.jsonl");
	struct stat st;
	int holds = stat(recs, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
	free(recs);
	if (holds)
		rag_msg(e->cli.prog, "error", "\"%s\" holds a run already: --resume %s to finish it, -o "
		        "another directory, or --force to replace it", e->rundir, e->rundir);
	return holds ? RAG_EXIT_USAGE : 0;
}

/* The outputs made from the records as they come: rag-gate --json (gate.json), rag-gate
 * --markdown (summary.md) and, without a store (which renders the page once the run is stored,
 * with its history), rag-report (report.html). Each reads on a pipe what collect_output writes
 * to records.jsonl (eval_live_feed), with RAG_EVAL_RECORDS naming that file, so that what it
 * writes is what it would write of the file; each writes to .NAME.part in the run directory,
 * which eval_finish_outputs renames once the run has ended well, and eval_live_drop removes
 * otherwise. Read after the pipeline, the three took 0.09 + 0.09 + 0.15 s of CPU on the 500
 * records of bench/eval.sh, after its last reply. */
static const char *const live_out[] = { "gate.json", "summary.md", "report.html" };

/* RUNDIR/.NAME.part, what live output i writes until it is renamed NAME */
static char *live_part(const eval *e, size_t i)
{
	char *leaf = rag_xasprintf(".%s.part", live_out[i]), *path = eval_path_in(e, leaf);
	free(leaf);
	return path;
}

/* --force: the run the directory holds is deleted, file by file, once the directory is ours
 * (eval_own_rundir: a running rag-eval holds its lock, so a running run is never replaced). Only
 * the files a run writes go; anything else in the directory stays. A baseline in the same
 * directory would be deleted before it is compared with: refused. 0, or an exit status after a
 * message. */
int eval_replace_run(eval *e)
{
	static const char *const files[] = {"records.jsonl", "run.json", "run.json.tmp", "gate.txt", "gate.json",
	                                    "junit.xml", "summary.md", "report.html", "history.jsonl"};
	const size_t nfiles = sizeof files / sizeof *files, nparts = sizeof live_out / sizeof *live_out;
	char *here = realpath(e->rundir, NULL), *base = e->baseline ? realpath(e->baseline, NULL) : NULL;
	int same = here && base && !strcmp(here, base), rc = 0;
	size_t i;
	free(here);
	free(base);
	if (same) {
		rag_msg(e->cli.prog, "error", "--force would replace the baseline \"%s\" before comparing with it: "
		        "-o another directory", e->baseline);
		return RAG_EXIT_USAGE;
	}
	for (i = 0; !rc && i < nfiles + nparts; i++) {
		/* the files, then what a killed run was making as its records came (live_part) */
		char *f = i < nfiles ? eval_path_in(e, files[i]) : live_part(e, i - nfiles);
		if (unlink(f) < 0 && errno != ENOENT) {
			rag_msg(e->cli.prog, "error", "--force: cannot remove \"%s\": %s", f, strerror(errno));
			rc = RAG_EXIT_INTERNAL;
		}
		free(f);
	}
	return rc;
}

/* The gate's self_judging (gate.json: the records judged by the model that wrote their
 * answers, rag-gate(1)), for run.json; null when none or no gate.json. */
jv eval_gate_self_judging(const eval *e)
{
	char *f = eval_path_in(e, "gate.json");
	jv g = eval_read_json_file(f), sj;
	free(f);
	sj = jv_get_kind(g) == JV_KIND_OBJECT ? jv_object_get(g, jv_string("self_judging")) : (jv_free(g), jv_null());
	if (jv_get_kind(sj) != JV_KIND_OBJECT) {
		jv_free(sj);
		return jv_null();
	}
	return sj;
}

jv eval_read_json_file(const char *path)
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

int eval_write_json_file(const eval *e, const char *path, jv v)
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

const char *eval_runs_dir(const eval *e)
{
	return e->cli.cfg.eval.runs_dir ? e->cli.cfg.eval.runs_dir : "runs";
}

/* --baseline last: the run of the runs directory that started last, other than this one */
char *eval_last_run(eval *e)
{
	const char *dir = eval_runs_dir(e);
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
		run = eval_is_file(recs) ? eval_read_json_file(rj) : jv_invalid();
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

/* head (consumed) with the run's git commit and whether the tree was dirty, and each tool's
 * version: commands started side by side and then read. eval_run asks once the first record is
 * out of its pipeline (eval-run.c's probe_head), so that they cost the run no time of its own
 * (0.06 s one after the other for the default metrics' 9 tools and git, before the first
 * request, when they ran before the pipeline; 0.05 s beside its start). */
jv eval_probe(eval *e, jv head)
{
	const char *tools[RAG_EVAL_MAXSTAGES + 3];
	FILE *p[RAG_EVAL_MAXSTAGES + 3], *commit_p, *status_p;
	char *commit, *status, *out, *sp;
	jv v = jv_object();
	size_t n = 0, i, j;
	int s, k;
	tools[n++] = "rag-eval";
	for (k = 0; (s = rag_evalplan_nth(k)) >= 0; k++)
		if (e->plan.stage_on[s]) tools[n++] = rag_evalplan_stage(s)->tool;
	tools[n++] = "rag-gate";
	tools[n++] = "rag-report";
	commit_p = popen("git rev-parse HEAD 2>/dev/null", "r");
	status_p = popen("git status --porcelain --untracked-files=no 2>/dev/null", "r");
	for (i = 0; i < n; i++) {
		rag_buf cmd = {0};
		p[i] = NULL;
		for (j = 0; j < i; j++)
			if (!strcmp(tools[j], tools[i])) break;
		if (j < i) continue;
		if (i == 0) rag_evalplan_shq(&cmd, e->self);
		else rag_evalplan_tool(&e->plan, &cmd, tools[i]);
		rag_buf_adds(&cmd, " --version 2>/dev/null");
		p[i] = popen(cmd.p, "r");
		rag_buf_free(&cmd);
	}
	commit = eval_capture_end(commit_p, 1);
	status = eval_capture_end(status_p, 0);
	head = jv_object_set(head, jv_string("git"),
	                     JV_OBJECT(jv_string("commit"), commit && *commit ? jv_string(commit) : jv_null(), jv_string("dirty"),
	                               commit && *commit && status ? jv_bool(*status != 0) : jv_null()));
	free(commit);
	free(status);
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(tools[j], tools[i])) break;
		if (j < i) continue;
		out = eval_capture_end(p[i], 1);
		/* "rag-verify (ragpipe) VERSION": the version is the last word */
		sp = out ? strrchr(out, ' ') : NULL;
		v = jv_object_set(v, jv_string(tools[i]), sp ? jv_string(sp + 1) : jv_null());
		free(out);
	}
	return jv_object_set(head, jv_string("tools"), v);
}

static jv names_array(const rag_strv *l)
{
	jv a = jv_array();
	size_t i;
	for (i = 0; i < l->n; i++) a = jv_array_append(a, jv_string(l->v[i]));
	return a;
}

jv eval_run_head(eval *e, const char *cmd, const char *started)
{
	jv r = jv_object();
	r = jv_object_set(r, jv_string("run_id"), jv_string(e->run_id));
	r = jv_object_set(r, jv_string("label"), e->label ? jv_string(e->label) : jv_null());
	r = jv_object_set(r, jv_string("started"), jv_string(started));
	r = jv_object_set(r, jv_string("ended"), jv_null());
	r = jv_object_set(r, jv_string("testset"), e->testset_abs ? jv_string(e->testset_abs) : jv_null());
	r = jv_object_set(r, jv_string("format"), jv_string(rag_testset_format_name(e->format)));
	r = jv_object_set(r, jv_string("metrics"), names_array(&e->plan.metrics));
	if (e->fields.n) r = jv_object_set(r, jv_string("fields"), names_array(&e->fields));   /* --field, for --resume */
	r = jv_object_set(r, jv_string("collect"), jv_bool(e->collect));
	if (e->batch) r = jv_object_set(r, jv_string("batch"), jv_true());   /* for --resume */
	r = jv_object_set(r, jv_string("baseline"), e->baseline ? jv_string(e->baseline) : jv_null());
	r = jv_object_set(r, jv_string("pipeline"), jv_string(cmd));
	r = jv_object_set(r, jv_string("git"), jv_null());   /* eval_probe */
	r = jv_object_set(r, jv_string("config"), rag_config_json(&e->cli.cfg));
	r = jv_object_set(r, jv_string("tools"), jv_null());
	return r;
}

/* a set of strings as a sorted array */
static jv sorted_keys(jv set)
{
	return jv_keys(set);
}

/* Counts, tokens and models over the records of a run, a line at a time: a run of any size is
 * summed in the memory of one record. */
void eval_totals_init(eval_totals *t)
{
	memset(t, 0, sizeof *t);
	t->cost = jv_object();
	t->judges = jv_object();
	t->embedders = jv_object();
	t->adapted = jv_object();
	t->system = jv_invalid();
}

/* usage.<tool>.<stage>.adapted (u borrowed) into t->adapted under the judge's name (borrowed) */
static void totals_adapted(eval_totals *t, jv u, jv judge)
{
	jv a = jv_object_get(jv_copy(u), jv_string("adapted"));
	if (jv_get_kind(a) == JV_KIND_ARRAY) {
		jv mine = jv_object_get(jv_copy(t->adapted), jv_copy(judge));
		if (jv_get_kind(mine) != JV_KIND_OBJECT) mine = (jv_free(mine), jv_object());
		jv_array_foreach(a, i, x) {
			if (jv_get_kind(x) == JV_KIND_STRING) mine = jv_object_set(mine, x, jv_true());
			else jv_free(x);
		}
		t->adapted = jv_object_set(t->adapted, jv_copy(judge), mine);
	}
	jv_free(a);
}

/* usage (borrowed): usage.<tool>.<stage>: {calls, cache_hits, prompt_tokens, completion_tokens,
 * judge} */
static void totals_usage(eval_totals *t, jv usage)
{
	jv_object_foreach(usage, tool, per) {
		if (jv_get_kind(per) == JV_KIND_OBJECT) {
			jv_object_foreach(per, stage, u) {
				jv judge;
				if (jv_get_kind(u) == JV_KIND_OBJECT) {
					double v;
					if (!isnan(v = rag_json_num(u, "calls"))) t->calls += (long)v;
					if (!isnan(v = rag_json_num(u, "cache_hits"))) t->hits += (long)v;
					if (!isnan(v = rag_json_num(u, "prompt_tokens"))) t->pt += (long)v;
					if (!isnan(v = rag_json_num(u, "completion_tokens"))) t->ct += (long)v;
					judge = jv_object_get(jv_copy(u), jv_string("judge"));
					if (jv_get_kind(judge) != JV_KIND_STRING) judge = (jv_free(judge), jv_object_get(jv_copy(u), jv_string("model")));
					if (jv_get_kind(judge) == JV_KIND_STRING) {
						const char *name = jv_string_value(tool);
						totals_adapted(t, u, judge);
						if (!strcmp(name, "rag-embsim")) t->embedders = jv_object_set(t->embedders, judge, jv_true());
						else if (strcmp(name, "rag-collect")) t->judges = jv_object_set(t->judges, judge, jv_true());
						else jv_free(judge);
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

/* One line of records.jsonl (without its newline, or with it); a line that is no object counts
 * for nothing. */
void eval_totals_line(eval_totals *t, const char *line, size_t len)
{
	jv rec, x;
	if (len > 0 && line[len - 1] == '\n') len--;
	rec = jv_parse_sized(line, (int)len);
	if (jv_get_kind(rec) != JV_KIND_OBJECT) {
		jv_free(rec);
		return;
	}
	t->records++;
	/* the gate counts the same (rag_verdict_unscored), for the verdict's exit status */
	switch (rag_verdict_unscored(rec)) {
	case 2: t->remote++; /* fall through */
	case 1: t->not_scored++;
	}
	x = jv_object_get(jv_copy(rec), jv_string("errors"));
	if (jv_get_kind(x) == JV_KIND_ARRAY && jv_array_length(jv_copy(x)) > 0) {
		t->with_errors++;
		t->errors += jv_array_length(jv_copy(x));
	}
	jv_free(x);
	x = jv_object_get(jv_copy(rec), jv_string("not_applicable"));
	if (jv_get_kind(x) == JV_KIND_OBJECT) t->na += jv_object_length(jv_copy(x));
	jv_free(x);
	x = jv_object_get(jv_copy(rec), jv_string("system"));
	if (jv_get_kind(x) != JV_KIND_OBJECT) x = (jv_free(x), jv_object());
	if (!jv_is_valid(t->system)) {
		jv_free(t->system);
		t->system = x;
	} else {
		if (!jv_equal(jv_copy(t->system), jv_copy(x))) t->system_varies = 1;
		jv_free(x);
	}
	x = jv_object_get(jv_copy(rec), jv_string("usage"));
	t->cost = rag_cost_add(t->cost, x);
	if (jv_get_kind(x) == JV_KIND_OBJECT) totals_usage(t, x);
	jv_free(x);
	jv_free(rec);
}

/* Every line of a file (a resumed run's records.jsonl so far); a file that is not there adds
 * nothing. */
void eval_totals_file(eval_totals *t, const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t cap = 0;
	ssize_t len;
	while (f && (len = getline(&text, &cap, f)) > 0) eval_totals_line(t, text, (size_t)len);
	free(text);
	if (f) fclose(f);
}

/* The totals as run.json's counts, and the models, *models_out; t starts again from nothing. */
jv eval_totals_end(eval_totals *t, const rag_config *cfg, jv *models_out)
{
	jv o;
	*models_out = JV_OBJECT(jv_string("judge"), sorted_keys(t->judges), jv_string("embeddings"), sorted_keys(t->embedders));
	if (jv_object_length(jv_copy(t->adapted)) > 0) {
		/* models.adapted: judge -> how its requests were changed for its endpoint (rag-eval(1)) */
		jv ad = jv_object();
		jv_object_foreach(t->adapted, k, v) ad = jv_object_set(ad, k, sorted_keys(v));
		*models_out = jv_object_set(*models_out, jv_string("adapted"), ad);
	}
	jv_free(t->adapted);
	t->adapted = jv_invalid();
	o = JV_OBJECT(jv_string("records"), jv_number((double)t->records),
	              jv_string("records_with_errors"), jv_number((double)t->with_errors),
	              jv_string("errors"), jv_number((double)t->errors),
	              jv_string("not_applicable"), jv_number((double)t->na),
	              jv_string("calls"), jv_number((double)t->calls),
	              jv_string("cache_hits"), jv_number((double)t->hits),
	              jv_string("prompt_tokens"), jv_number((double)t->pt),
	              jv_string("completion_tokens"), jv_number((double)t->ct),
	              jv_string("cost"), rag_cost_summary(t->cost, cfg->prices.v, cfg->prices.n, cfg->prices.currency));
	o = jv_object_set(o, jv_string("records_not_scored"), jv_number((double)t->not_scored));
	o = jv_object_set(o, jv_string("records_remote_failed"), jv_number((double)t->remote));
	jv_free(t->system);
	eval_totals_init(t);   /* what it held is in o and the models now */
	return o;
}

jv eval_totals_system(const eval_totals *t)
{
	if (t->system_varies) return jv_null();
	return jv_is_valid(t->system) ? jv_copy(t->system) : jv_object();
}

void eval_totals_free(eval_totals *t)
{
	jv_free(t->cost);
	jv_free(t->judges);
	jv_free(t->embedders);
	jv_free(t->adapted);
	jv_free(t->system);
	memset(t, 0, sizeof *t);
}

/* The store the run goes into: --store, else store.url; NULL: none. */
const char *eval_store_url(const eval *e)
{
	return e->store_opt ? e->store_opt : e->cli.cfg.store.url;
}

/* rag-report's command: the page to out, of the records in input ("-": standard input) */
static char *report_cmd(eval *e, int with_history, const char *out, const char *input)
{
	char *f;
	rag_buf b = {0};

	rag_evalplan_tool(&e->plan, &b, "rag-report");
	rag_evalplan_common(&e->plan, &b);
	rag_evalplan_gate_thresholds(&e->plan, &b);
	if (e->baseline) {
		rag_buf_adds(&b, " -b ");
		f = rag_xasprintf("%s/records.jsonl", e->baseline);
		rag_evalplan_shq(&b, f);
		free(f);
	}
	if (with_history) {
		rag_buf_adds(&b, " --history ");
		f = eval_path_in(e, "history.jsonl");
		rag_evalplan_shq(&b, f);
		free(f);
	}
	/* records.jsonl beside it holds every record in full: the page's copy compressed (a
	 * 100,000-record page 170 MB plain) */
	rag_buf_adds(&b, " --compress --title ");
	f = rag_xasprintf("ragpipe run %s", e->run_id);
	rag_evalplan_shq(&b, f);
	free(f);
	rag_buf_adds(&b, " -o ");
	rag_evalplan_shq(&b, out);
	rag_buf_adds(&b, " ");
	rag_evalplan_shq(&b, input);
	rag_buf_add(&b, "", 1);
	return b.p;
}

/* RUNDIR/report.html by rag-report; with_history: beside the run, its test set's stored runs
 * (RUNDIR/history.jsonl, written by store_run). 0, or after a message rag-report's status. */
int eval_render_report(eval *e, int with_history)
{
	char *recs = eval_path_in(e, "records.jsonl"), *out = eval_path_in(e, "report.html");
	char *cmd = report_cmd(e, with_history, out, recs);
	int rc = eval_run_sh(cmd);
	if (rc != 0) rag_msg(e->cli.prog, "error", "rag-report failed (exit status %d)", rc);
	free(cmd);
	free(out);
	free(recs);
	return rc;
}

/* The command that makes output i (live_out: rag-gate --json, rag-gate --markdown, rag-report)
 * to out, of the records in input ("-": standard input). */
static char *output_cmd(eval *e, size_t i, const char *out, const char *input)
{
	rag_buf b = {0};
	if (i == 2) return report_cmd(e, 0, out, input);
	rag_evalplan_tool(&e->plan, &b, "rag-gate");
	rag_evalplan_gate_opts(&e->plan, &b);
	rag_buf_adds(&b, i == 0 ? " --json -o " : " --markdown -o ");
	rag_evalplan_shq(&b, out);
	rag_buf_adds(&b, " ");
	rag_evalplan_shq(&b, input);
	rag_buf_add(&b, "", 1);
	return b.p;
}

static pid_t spawn_fed(const char *cmd, const char *recs, int *fd)
{
	int p[2];
	pid_t pid;
	if (pipe2(p, O_CLOEXEC) < 0) return -1;
	if ((pid = fork()) == 0) {
		/* a process group of its own: a terminal's Ctrl-C is rag-eval's, whose records end
		 * its input */
		setpgid(0, 0);
		if (dup2(p[0], 0) < 0 || setenv("RAG_EVAL_RECORDS", recs, 1) < 0) _exit(127);
		signal(SIGPIPE, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return -1;
	}
	setpgid(pid, pid);   /* as the child does: whichever runs first (eval_live_drop kills the group) */
	*fd = p[1];
	return pid;
}

/* Each live output started (none for a resumed run: its outputs are of the whole run, which the
 * records of this part are not); one that cannot start is made after the run, as before. */
void eval_live_start(eval *e)
{
	char *recs, *cmd;
	size_t i, n = eval_store_url(e) ? 2 : 3;
	if (e->done_before || e->nlive) return;
	recs = eval_path_in(e, "records.jsonl");
	for (i = 0; i < n; i++) {
		eval_live *l = &e->live[i];
		l->part = live_part(e, i);
		cmd = output_cmd(e, i, l->part, "-");
		l->fd = -1;
		l->pid = spawn_fed(cmd, recs, &l->fd);
		free(cmd);
	}
	e->nlive = n;
	free(recs);
}

/* A record's line (with its newline) to every live output still reading. */
void eval_live_feed(eval *e, const char *line, size_t len)
{
	size_t i;
	for (i = 0; i < e->nlive; i++) {
		eval_live *l = &e->live[i];
		if (l->fd >= 0 && rag_write_all(l->fd, line, len) < 0) {
			/* it stopped reading: its exit status says why, at the end */
			close(l->fd);
			l->fd = -1;
		}
	}
}

/* The live outputs' input ended, and each one waited for: their statuses in rc[] (127 for one
 * that did not start). */
static void live_wait(eval *e, int *rc)
{
	size_t i;
	for (i = 0; i < e->nlive; i++)
		if (e->live[i].fd >= 0) {
			close(e->live[i].fd);
			e->live[i].fd = -1;
		}
	for (i = 0; i < e->nlive; i++) rc[i] = e->live[i].pid > 0 ? eval_wait_sh(e->live[i].pid) : 127;
}

/* The run did not end well (interrupted, records missing, its gate failed to run, a full disk):
 * the live outputs stopped (SIGKILL: nothing of theirs is wanted, not even an error about a
 * file that goes) and removed, as the outputs after the run would not have been made. */
void eval_live_drop(eval *e)
{
	int rc[3];
	size_t i;
	if (!e->nlive) return;
	for (i = 0; i < e->nlive; i++)
		if (e->live[i].pid > 0) kill(-e->live[i].pid, SIGKILL);   /* its group: sh and the tool */
	live_wait(e, rc);
	for (i = 0; i < e->nlive; i++) {
		unlink(e->live[i].part);
		free(e->live[i].part);
	}
	e->nlive = 0;
}

/* rag-gate's exit status st as rag-eval takes it, vst the exit status of the verdict that
 * rag-gate wrote (-1: none): 0 or 1 as they are; 3 or 4 an outage's verdict (rag-gate(1) EXIT
 * STATUS) when the verdict it wrote says so, taken as 1, the run's exit status being read from
 * gate.json (run_verdict); otherwise rag-gate failed (it wrote no summary), st as it is. */
static int gate_status(int st, int vst)
{
	return (st == RAG_EXIT_DATA || st == RAG_EXIT_REMOTE) && st == vst ? RAG_EXIT_FAIL : st;
}

/* The exit status of the verdict in a rag-gate --json file, or -1 when it holds none. */
static int json_verdict(const char *path)
{
	jv v = rag_json_get(eval_read_json_file(path), "verdict");
	double x = rag_json_num(v, "exit_status");
	jv_free(v);
	return isnan(x) ? -1 : (int)x;
}

int eval_gate_status(eval *e, int st)
{
	static const char key[] = "<property name=\"verdict.exit_status\" value=\"";
	char err[256], *f, *s, *p;
	int vst = -1;
	if (st != RAG_EXIT_DATA && st != RAG_EXIT_REMOTE) return st;
	/* rag-gate writes its --junit file after its summary: the gate suite's verdict.* properties */
	f = eval_path_in(e, "junit.xml");
	if ((s = rag_read_file(f, NULL, err, sizeof err)) && (p = strstr(s, key))) vst = atoi(p + sizeof key - 1);
	free(s);
	free(f);
	return gate_status(st, vst);
}

/* After the pipeline: the gate's JSON and Markdown, (resumed: its text and JUnit over the whole
 * run), and the HTML report: made as the records came (eval_live_start), or now from
 * records.jsonl (a resumed run). Returns the gate's status, or an error's. */
int eval_finish_outputs(eval *e, int gate_rc)
{
	char *recs = eval_path_in(e, "records.jsonl"), *f;
	rag_buf b = {0};
	int rc[3] = {0, 0, 0}, final = gate_rc, vst;
	pid_t pid[3] = {-1, -1, -1};
	const char *what[] = { "--json", "--markdown" };
	size_t i, nlive = e->nlive, nout = eval_store_url(e) ? 2 : 3;

	if (nlive) {
		live_wait(e, rc);
		vst = json_verdict(e->live[0].part);
		rc[0] = gate_status(rc[0], vst);
		rc[1] = gate_status(rc[1], vst);   /* the same records, the same gate */
		for (i = 0; i < nlive; i++) {
			int ok = i < 2 ? rc[i] <= RAG_EXIT_FAIL : rc[i] == 0;
			f = eval_path_in(e, live_out[i]);
			if (ok && rename(e->live[i].part, f) < 0) {
				rag_msg(e->cli.prog, "error", "cannot write \"%s\": %s", f, strerror(errno));
				rc[i] = RAG_EXIT_INTERNAL;
			}
			if (!ok || rc[i] == RAG_EXIT_INTERNAL) unlink(e->live[i].part);
			free(f);
			free(e->live[i].part);
		}
		e->nlive = 0;
	} else {
		for (i = 0; e->done_before && i < 3; i++) {
			/* what a killed earlier part was making as its records came */
			f = live_part(e, i);
			unlink(f);
			free(f);
		}
		if (e->done_before) {
			/* the pipeline's gate saw this part of the run only: the whole run's decision */
			rag_evalplan_tool(&e->plan, &b, "rag-gate");
			rag_evalplan_gate_opts(&e->plan, &b);
			rag_buf_adds(&b, " -o ");
			f = eval_path_in(e, "gate.txt");
			rag_evalplan_shq(&b, f);
			free(f);
			rag_buf_adds(&b, " --junit ");
			f = eval_path_in(e, "junit.xml");
			rag_evalplan_shq(&b, f);
			free(f);
			rag_buf_adds(&b, " ");
			rag_evalplan_shq(&b, recs);
			final = eval_gate_status(e, eval_run_sh(b.p));
			if (final > RAG_EXIT_FAIL) e->wrote &= ~(1u << OUT_JUNIT);
			b.len = 0;
		}
		/* the three read records.jsonl and write a file each: side by side, so that the run
		 * ends after the longest of them rather than after their sum */
		for (i = 0; i < nout; i++) {
			char *out = eval_path_in(e, live_out[i]);
			f = output_cmd(e, i, out, recs);
			pid[i] = eval_spawn_sh(f);
			free(f);
			free(out);
		}
		for (i = 0; i < nout; i++) rc[i] = eval_wait_sh(pid[i]);
		f = eval_path_in(e, live_out[0]);
		vst = json_verdict(f);
		free(f);
		rc[0] = gate_status(rc[0], vst);
		rc[1] = gate_status(rc[1], vst);
	}
	if (rc[1] <= RAG_EXIT_FAIL) e->wrote |= 1u << OUT_SUMMARY;
	for (i = 0; i < 2; i++) {
		if (rc[i] > RAG_EXIT_FAIL && final <= RAG_EXIT_FAIL) {
			rag_msg(e->cli.prog, "error", "rag-gate %s failed (exit status %d)", what[i], rc[i]);
			final = rc[i];
		}
	}
	if (!eval_store_url(e)) {
		if (rc[2] != 0) rag_msg(e->cli.prog, "error", "rag-report failed (exit status %d)", rc[2]);
		if (rc[2] == 0) e->wrote |= 1u << OUT_REPORT;
		if (rc[2] != 0 && final <= RAG_EXIT_FAIL) final = rc[2];
	} else if (final <= RAG_EXIT_FAIL) {
		e->wrote |= 1u << OUT_REPORT;   /* once stored (main): its failure is said then */
	}
	rag_buf_free(&b);
	free(recs);
	return final;
}

/* What the run directory holds, for the last message: after a write error (a full disk) what
 * was written, not what a run that went well writes. */
char *eval_written(const eval *e)
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

/* The finished run into the store at url (rag-store add), its test set as a version of it, and
 * RUNDIR/history.jsonl: the stored runs of that test set, oldest first (rag-store(1) HISTORY).
 * 0, or after a message RAG_EXIT_STORE (the run directory stays as it is). */
int eval_store_run(eval *e, const char *url)
{
	char err[RAG_ERRLEN], *rj = eval_path_in(e, "run.json"), *recs = eval_path_in(e, "records.jsonl");
	char *hist = eval_path_in(e, "history.jsonl"), *records = NULL, *set = NULL, *id = NULL;
	size_t len = 0, set_len = 0, k;
	jv run = eval_read_json_file(rj), summary = jv_invalid(), runs = jv_invalid();
	rag_store *s = NULL;
	rag_store_run in;
	rag_store_filter f;
	rag_cli_gate g;
	rag_gate_opts go;
	rag_buf b = {0};
	int rc = RAG_EXIT_STORE, fd;

	rag_cli_gate_init(&g);
	/* the store's gate is the run's: the thresholds rag-eval gave rag-gate too */
	if (e->plan.refusal_gate) rag_gate_threshold_parse("refusal=1", &g.record, &g.nrecord, err, sizeof err);
	for (k = 0; k < e->plan.metrics.n; k++) rag_strv_push(&g.metrics, rag_xstrdup(rag_evalplan_score_name(e->plan.metrics.v[k])));
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
	in.label = e->label;
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
