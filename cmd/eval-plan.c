/* eval-plan.c - rag-eval's plan: the metrics asked for, the stages that score them, the
 * pipeline as one shell command (what --dry-run prints). */
#include "eval.h"

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

const struct stage stages[] = {
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

/* Append s to b quoted for sh when it needs quoting. */
void eval_shq(rag_buf *b, const char *s)
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

void eval_add_tool(eval *e, rag_buf *b, const char *tool)
{
	char *path = e->bin ? rag_xasprintf("%s/%s", e->bin, tool) : rag_xstrdup(tool);
	eval_shq(b, path);
	free(path);
}

/* the options every stage gets: -q, and -c when one was named */
void eval_add_common(eval *e, rag_buf *b)
{
	rag_buf_adds(b, " -q");
	if (e->cli.config_path) {
		rag_buf_adds(b, " -c ");
		eval_shq(b, e->cli.config_path);
	}
	if (e->cli.max_memory) rag_buf_addf(b, " --max-memory %ld", e->cli.max_memory);   /* each stage's budget */
}

char *eval_path_in(const eval *e, const char *leaf)
{
	return rag_xasprintf("%s/%s", e->rundir, leaf);
}

/* The name of metric name in scores: rubric:NAME writes scores.NAME. */
const char *eval_score_name(const char *name)
{
	return strncmp(name, "rubric:", 7) ? name : name + 7;
}

/* The thresholds rag-eval adds to the configuration's (which come through -c), for rag-gate
 * and rag-report alike, and the metrics of the run: a threshold of the configuration on a
 * metric -m left out is not run, not a column of nulls that fails the gate. */
void eval_add_gate_thresholds(eval *e, rag_buf *b)
{
	rag_buf l = {0};
	size_t i;
	if (e->refusal_gate) rag_buf_adds(b, " -r refusal=1");
	for (i = 0; i < e->metric_names.n; i++) rag_buf_addf(&l, "%s%s", i ? "," : "", eval_score_name(e->metric_names.v[i]));
	rag_buf_add(&l, "", 1);
	rag_buf_adds(b, " --metrics ");
	eval_shq(b, l.p);
	rag_buf_free(&l);
}

/* rag-gate's options for this run */
void eval_add_gate_opts(eval *e, rag_buf *b)
{
	eval_add_common(e, b);
	if (e->summary_only) rag_buf_adds(b, " --summary-only");
	eval_add_gate_thresholds(e, b);
	if (e->baseline) {
		char *f = rag_xasprintf("%s/records.jsonl", e->baseline);
		rag_buf_adds(b, " -b ");
		eval_shq(b, f);
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
		/* the line eval_emit() writes */
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
void eval_add_stages(eval *e, rag_buf *b, const char *sep)
{
	int s, first = 1;
	for (s = 0; s < S_NONE; s++) {
		const struct stage *st = &stages[s];
		if (!e->stage_on[s]) continue;
		if (!first || !e->shards) rag_buf_adds(b, sep);
		first = 0;
		eval_add_tool(e, b, st->tool);
		eval_add_common(e, b);
		if (st->jobs && e->jobs) rag_buf_addf(b, " -j %ld", e->jobs);
		if (st->args) rag_buf_addf(b, " %s", st->args);
		/* ap.from in the command itself: the pipeline says where its rank metrics come from */
		if (s == S_AP && e->cli.cfg.ap.from) rag_buf_addf(b, " --from %s", e->cli.cfg.ap.from);
		if (st->list && e->stage_list[s].len) {
			rag_buf_addf(b, " %s ", st->list);
			eval_shq(b, e->stage_list[s].p);
		}
	}
	rag_buf_add(b, "", 0);
}

/* The pipeline, as one shell command. */
char *eval_pipeline(eval *e)
{
	rag_buf b = {0};
	char *f;

	rag_buf_adds(&b, "mkdir -p ");
	eval_shq(&b, e->rundir);
	rag_buf_adds(&b, " && ");
	eval_shq(&b, e->self);
	rag_buf_adds(&b, " --emit -q");   /* the warnings about the test set are this process's */
	if (e->cli.config_path) {
		rag_buf_adds(&b, " -c ");
		eval_shq(&b, e->cli.config_path);
	}
	for (size_t i = 0; i < e->fields.n; i++) {
		rag_buf_adds(&b, " --field ");
		eval_shq(&b, e->fields.v[i]);
	}
	rag_buf_addf(&b, " --format %s --run-id ", rag_testset_format_name(e->format));
	eval_shq(&b, e->run_id);
	if (e->done_before) {
		f = eval_path_in(e, "records.jsonl");
		rag_buf_adds(&b, " --skip-done ");
		eval_shq(&b, f);
		free(f);
	}
	if (strcmp(e->testset, "-")) {
		rag_buf_adds(&b, " < ");
		eval_shq(&b, e->testset);
	}
	if (e->shards) {
		/* one shard's pipeline, a command line that parallel gives its shell */
		rag_buf sh = {0};
		eval_add_stages(e, &sh, " | ");
		rag_buf_addf(&b, " \\\n  | parallel --pipe --keep-order -j %ld --block %ld --recend '\\n'",
		             e->shards, shard_block(e));
		if (e->sshlogin) {
			rag_buf_adds(&b, " --sshlogin ");
			eval_shq(&b, e->sshlogin);
		}
		rag_buf_adds(&b, " \\\n      ");
		eval_shq(&b, sh.p);
		rag_buf_free(&sh);
	} else {
		eval_add_stages(e, &b, " \\\n  | ");
	}
	rag_buf_adds(&b, " \\\n  | ");
	eval_add_tool(e, &b, "rag-gate");
	eval_add_gate_opts(e, &b);
	rag_buf_adds(&b, " --tee -o ");
	f = eval_path_in(e, "gate.txt");
	eval_shq(&b, f);
	free(f);
	rag_buf_adds(&b, " --junit ");
	f = eval_path_in(e, "junit.xml");
	eval_shq(&b, f);
	free(f);
	return b.p;
}

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

int eval_set_metrics(eval *e)
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
int eval_add_refusal(eval *e)
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
