/* evalplan.c - rag-eval's plan: the metrics asked for, the stages of the pipeline that score
 * them (one registry of metrics, rag_evalplan_metrics), and the pipeline as one shell command,
 * the text rag-eval --dry-run prints and runs with /bin/sh -c. It returns text and data; the
 * tool (cmd/rag-eval.c) prints and runs it. */
#include "base.h"
#include "config.h"
#include "evalplan.h"

#include <stdlib.h>
#include <string.h>

/* The built-in stages, in the order they run in the pipeline (rag-judge last). */
static const rag_evalstage stages[RAG_EVAL_NSTAGES] = {
	[RAG_EVAL_COLLECT] = {"rag-collect", NULL, 1, NULL},
	[RAG_EVAL_CLAIMS] = {"rag-claims", NULL, 1, NULL},
	[RAG_EVAL_VERIFY] = {"rag-verify", NULL, 1, NULL},
	/* context recall in one request: the reference's sentences, judged together (rag-verify(1)) */
	[RAG_EVAL_VERIFY_RECALL] = {"rag-verify", "--metric context_recall", 1, NULL},
	[RAG_EVAL_CORRECT] = {"rag-verify", "--metric answer_correctness", 1, NULL},
	[RAG_EVAL_REVQ] = {"rag-revq", NULL, 1, NULL},
	[RAG_EVAL_EMBSIM] = {"rag-embsim", NULL, 1, NULL},
	/* the metric named: without it rag-verify judges a record with no reference for
	 * context_utilization, a metric not asked for, where context_precision is not applicable */
	[RAG_EVAL_CHUNKS] = {"rag-verify", "--chunks --metric context_precision", 1, NULL},
	[RAG_EVAL_CHUNKS_UTIL] = {"rag-verify", "--chunks --metric context_utilization", 1, NULL},
	[RAG_EVAL_AP] = {"rag-ap", NULL, 0, "-m"},
	[RAG_EVAL_KW] = {"rag-kw", NULL, 0, "-m"},
	[RAG_EVAL_JUDGE] = {"rag-judge", NULL, 1, "--rubric"},
};

/* The metric tools of the operation registry (obj/gen/ops.inc, made by mk/ops.sh from the
 * library's sources): each its stage, with -j, and its metric, so that a new one needs no row
 * here. Ended by tool NULL. */
#define RAG_OP(name)
#define RAG_OP_TOOL(name, tool, metric, k, doc) {tool, NULL, 1, NULL},
static const rag_evalstage tool_stages[] = {
#include "ops.inc"
	{NULL, NULL, 0, NULL}
};
#undef RAG_OP_TOOL
#define RAG_OP_TOOL(name, tool, metric, k, doc) {metric, 0, RAG_EVAL_NSTAGES + (k), RAG_EVAL_NONE, NULL},
static const rag_evalmetric tool_metrics[] = {
#include "ops.inc"
	{NULL, 0, RAG_EVAL_NONE, RAG_EVAL_NONE, NULL}
};
#undef RAG_OP_TOOL
/* and each one's operation (its prompts' name) and line of the manuals, as strings: rag-eval
 * --list-metrics prints them without linking the descriptors, and so every operation */
#define RAG_OP_TOOL(name, tool, metric, k, doc) {#name, doc},
static const struct { const char *op, *doc; } tool_docs[] = {
#include "ops.inc"
	{NULL, NULL}
};
#undef RAG_OP_TOOL
#undef RAG_OP
_Static_assert(sizeof tool_stages / sizeof tool_stages[0] - 1 <= RAG_EVAL_MAXTOOLS,
               "more metric tools in the registry than RAG_EVAL_MAXTOOLS");

/* how many (a function, not a constant: with none, a comparison with it is no warning) */
static size_t ntools(void)
{
	return sizeof tool_stages / sizeof tool_stages[0] - 1;
}

#define NONE RAG_EVAL_NONE

const rag_evalstage *rag_evalplan_stage(int s)
{
	if (s >= 0 && s < RAG_EVAL_NSTAGES) return &stages[s];
	if (s >= RAG_EVAL_NSTAGES && (size_t)(s - RAG_EVAL_NSTAGES) < ntools()) return &tool_stages[s - RAG_EVAL_NSTAGES];
	return NULL;
}

int rag_evalplan_nth(int i)
{
	if (i < 0) return -1;
	if (i < RAG_EVAL_JUDGE) return i;
	if ((size_t)(i - RAG_EVAL_JUDGE) < ntools()) return RAG_EVAL_NSTAGES + (i - RAG_EVAL_JUDGE);
	return (size_t)(i - RAG_EVAL_JUDGE) == ntools() ? RAG_EVAL_JUDGE : -1;
}

/* Each built-in metric a name can ask for, and its stages; a new metric is a new row. `arg` is
 * what the stage's list option gets (NULL: the name itself; NAME for rubric:NAME). */
static const rag_evalmetric metrics[] = {
	{"faithfulness", 0, RAG_EVAL_CLAIMS, RAG_EVAL_VERIFY, NULL},
	{"context_recall", 0, RAG_EVAL_VERIFY_RECALL, NONE, NULL},
	{"answer_correctness", 0, RAG_EVAL_CORRECT, NONE, NULL},
	{"answer_relevancy", 0, RAG_EVAL_REVQ, RAG_EVAL_EMBSIM, NULL},
	{"context_precision", 0, RAG_EVAL_CHUNKS, RAG_EVAL_AP, "ap"},
	{"context_utilization", 0, RAG_EVAL_CHUNKS_UTIL, NONE, NULL},
	/* rag-ap's rank metrics */
	{"mrr", 0, RAG_EVAL_AP, NONE, NULL},
	{"map", 0, RAG_EVAL_AP, NONE, NULL},
	{"rprec", 0, RAG_EVAL_AP, NONE, NULL},
	{"p@", 1, RAG_EVAL_AP, NONE, NULL},
	{"recall@", 1, RAG_EVAL_AP, NONE, NULL},
	{"hit@", 1, RAG_EVAL_AP, NONE, NULL},
	{"ndcg@", 1, RAG_EVAL_AP, NONE, NULL},
	/* rag-kw's */
	{"keyword_overlap", 0, RAG_EVAL_KW, NONE, NULL},
	{"token_f1", 0, RAG_EVAL_KW, NONE, NULL},
	{"exact_match", 0, RAG_EVAL_KW, NONE, NULL},
	{"contains", 0, RAG_EVAL_KW, NONE, NULL},
	{"contains_all", 0, RAG_EVAL_KW, NONE, NULL},
	{"regex", 0, RAG_EVAL_KW, NONE, NULL},
	{"levenshtein", 0, RAG_EVAL_KW, NONE, NULL},
	{"rouge1", 0, RAG_EVAL_KW, NONE, NULL},
	{"rouge2", 0, RAG_EVAL_KW, NONE, NULL},
	{"rougeL", 0, RAG_EVAL_KW, NONE, NULL},
	{"rougeLsum", 0, RAG_EVAL_KW, NONE, NULL},
	{"bleu", 0, RAG_EVAL_KW, NONE, NULL},
	{"chrf", 0, RAG_EVAL_KW, NONE, NULL},
	/* an unanswerable case's (expect: refusal): 1 when the answer declines */
	{"refusal", 0, RAG_EVAL_KW, NONE, NULL},
	/* rag-judge's rubrics; a custom one is written rubric:NAME */
	{"correctness", 0, RAG_EVAL_JUDGE, NONE, NULL},
	{"relevance", 0, RAG_EVAL_JUDGE, NONE, NULL},
	{"completeness", 0, RAG_EVAL_JUDGE, NONE, NULL},
	{"groundedness_0_10", 0, RAG_EVAL_JUDGE, NONE, NULL},
	{"consistent", 0, RAG_EVAL_JUDGE, NONE, NULL},
	{"rubric:", 1, RAG_EVAL_JUDGE, NONE, NULL},
	{NULL, 0, NONE, NONE, NULL}
};

const char *const rag_evalplan_defaults[] = {
	"faithfulness", "answer_relevancy", "context_precision", "context_recall", NULL
};

const rag_evalmetric *rag_evalplan_metric(size_t i)
{
	size_t nb = sizeof metrics / sizeof metrics[0] - 1;
	if (i < nb) return &metrics[i];
	return i - nb < ntools() ? &tool_metrics[i - nb] : NULL;
}

const char *rag_evalplan_tool_doc(const rag_evalmetric *m, const char **op)
{
	size_t k;
	*op = NULL;
	if (!m || m->s1 < RAG_EVAL_NSTAGES) return NULL;
	k = (size_t)(m->s1 - RAG_EVAL_NSTAGES);
	if (k >= ntools()) return NULL;
	*op = tool_docs[k].op;
	return tool_docs[k].doc;
}

RAG_UNITTEST const rag_evalmetric *rag_evalplan_find(const char *name)
{
	const rag_evalmetric *m;
	size_t i;
	for (i = 0; (m = rag_evalplan_metric(i)); i++) {
		size_t n = strlen(m->name);
		if (!m->prefix && !strcmp(name, m->name)) return m;
		if (m->prefix && !strncmp(name, m->name, n) && name[n]) {
			const char *p = name + n;
			if (m->s1 == RAG_EVAL_JUDGE) return m;   /* rubric:NAME */
			while (*p >= '0' && *p <= '9') p++;
			if (!*p) return m;
		}
	}
	return NULL;
}

const char *rag_evalplan_score_name(const char *name)
{
	return strncmp(name, "rubric:", 7) ? name : name + 7;
}

/* The stages that score the metric name on, and it in their lists; -1 when no stage knows it. */
static int use_metric(rag_evalplan *p, const char *name, char *err, size_t errlen)
{
	const rag_evalmetric *m = rag_evalplan_find(name);
	const char *from = p->ap_from;
	int ss[2], k;
	if (!m) {
		rag_buf tools = {0};
		size_t i;
		for (i = 0; i < ntools(); i++) rag_buf_addf(&tools, ", %s's (%s)", tool_stages[i].tool, tool_metrics[i].name);
		rag_buf_add(&tools, "", 1);
		rag_seterr(err, errlen, "unknown metric \"%s\": the metrics are faithfulness, context_recall, answer_correctness, "
		           "answer_relevancy, context_precision, context_utilization, rag-ap's (mrr, map, rprec, p@K, "
		           "recall@K, hit@K, ndcg@K), rag-kw's (keyword_overlap, token_f1, rouge1, bleu..., refusal)%s and "
		           "rag-judge's rubrics (correctness, relevance, completeness, groundedness_0_10, consistent; "
		           "rubric:NAME for a custom one)", name, tools.p);
		rag_buf_free(&tools);
		return -1;
	}
	ss[0] = m->s1;
	ss[1] = m->s2;
	/* ap.from (rag-config(5)): context precision from ids needs no judge; the rank metrics
	 * from verdicts need the judge's */
	if (from && !strcmp(from, "ids") && m->s1 == RAG_EVAL_CHUNKS && m->s2 == RAG_EVAL_AP) ss[0] = NONE;
	if (from && !strcmp(from, "verdicts") && m->s1 == RAG_EVAL_AP) p->stage_on[RAG_EVAL_CHUNKS] = 1;
	for (k = 0; k < 2; k++) {
		int s = ss[k];
		if (s == NONE) continue;
		p->stage_on[s] = 1;
		if (rag_evalplan_stage(s)->list) {
			const char *arg = m->arg ? m->arg : rag_evalplan_score_name(name);
			rag_buf *l = &p->stage_list[s];
			if (l->len) rag_buf_adds(l, ",");
			rag_buf_adds(l, arg);
			rag_buf_add(l, "", 0);
		}
	}
	return 0;
}

int rag_evalplan_set_metrics(rag_evalplan *p, const char *list, const rag_config *cfg, char *err, size_t errlen)
{
	rag_strv *names = &p->metrics;
	const rag_strv *cfgm = &cfg->eval.metrics;
	size_t i, j;
	p->ap_from = cfg->ap.from;
	if (list) {
		while (*list) {
			size_t n = strcspn(list, ",");
			if (n) rag_strv_push(names, rag_xstrndup(list, n));
			list += n + (list[n] == ',');
		}
	} else if (cfgm->n) {
		for (i = 0; i < cfgm->n; i++) rag_strv_push(names, rag_xstrdup(cfgm->v[i]));
	} else {
		for (i = 0; rag_evalplan_defaults[i]; i++) rag_strv_push(names, rag_xstrdup(rag_evalplan_defaults[i]));
	}
	if (!names->n) {
		rag_seterr(err, errlen, "no metric to score: name at least one (-m faithfulness)");
		return -1;
	}
	for (i = 0; i < names->n; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(names->v[j], names->v[i])) break;
		if (j == i && use_metric(p, names->v[i], err, errlen)) return -1;
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

int rag_evalplan_refusal(rag_evalplan *p, const rag_config *cfg, char *err, size_t errlen)
{
	size_t i;
	int named = 0, added = 0;
	for (i = 0; i < p->metrics.n; i++) named |= !strcmp(p->metrics.v[i], "refusal");
	if (!named) {
		rag_strv_push(&p->metrics, rag_xstrdup("refusal"));
		if (use_metric(p, "refusal", err, errlen)) return -1;
		added = 1;
	}
	p->refusal_gate = !gates_metric(cfg->gate.mean, cfg->gate.nmean, "refusal") &&
	                  !gates_metric(cfg->gate.record, cfg->gate.nrecord, "refusal");
	return added;
}

/* --jobs: parallel's --block, the bytes of one shard's input. The records --emit writes (less
 * those a resumed run has) cut into `shards` blocks of ceil(size / shards) plus the longest line:
 * parallel cuts a block at its last line end, so each holds at least size / shards and the
 * shards run at once, even on a small test set. At least 1 KiB; at most 1 MiB, since parallel
 * holds a block in memory: a larger input takes more blocks, each a shard started when one ends. */
#define SHARD_BLOCK_MIN 1024L
#define SHARD_BLOCK_MAX (1024L * 1024)
long rag_evalplan_block_of(long total, long longest, long shards)
{
	long block = (total + shards - 1) / shards + longest;
	if (block > SHARD_BLOCK_MAX) block = longest < SHARD_BLOCK_MAX ? SHARD_BLOCK_MAX : longest + 1;
	return block < SHARD_BLOCK_MIN ? SHARD_BLOCK_MIN : block;
}

void rag_evalplan_shq(rag_buf *b, const char *s)
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

void rag_evalplan_tool(const rag_evalplan *p, rag_buf *b, const char *tool)
{
	char *path = p->bin ? rag_xasprintf("%s/%s", p->bin, tool) : rag_xstrdup(tool);
	rag_evalplan_shq(b, path);
	free(path);
}

void rag_evalplan_common(const rag_evalplan *p, rag_buf *b)
{
	rag_buf_adds(b, " -q");
	if (p->config_path) {
		rag_buf_adds(b, " -c ");
		rag_evalplan_shq(b, p->config_path);
	}
	if (p->max_memory) rag_buf_addf(b, " --max-memory %ld", p->max_memory);   /* each stage's budget */
}

void rag_evalplan_gate_thresholds(const rag_evalplan *p, rag_buf *b)
{
	rag_buf l = {0};
	size_t i;
	if (p->refusal_gate) rag_buf_adds(b, " -r refusal=1");
	for (i = 0; i < p->metrics.n; i++)
		rag_buf_addf(&l, "%s%s", i ? "," : "", rag_evalplan_score_name(p->metrics.v[i]));
	rag_buf_add(&l, "", 1);
	rag_buf_adds(b, " --metrics ");
	rag_evalplan_shq(b, l.p);
	rag_buf_free(&l);
}

void rag_evalplan_gate_opts(const rag_evalplan *p, rag_buf *b)
{
	rag_evalplan_common(p, b);
	if (p->summary_only) rag_buf_adds(b, " --summary-only");
	rag_evalplan_gate_thresholds(p, b);
	if (p->baseline) {
		char *f = rag_xasprintf("%s/records.jsonl", p->baseline);
		rag_buf_adds(b, " -b ");
		rag_evalplan_shq(b, f);
		free(f);
	}
}

RAG_UNITTEST void rag_evalplan_argv(const rag_evalplan *p, int s, rag_strv *argv)
{
	const rag_evalstage *st = rag_evalplan_stage(s);
	const char *a, *w;
	rag_strv_push(argv, p->bin ? rag_xasprintf("%s/%s", p->bin, st->tool) : rag_xstrdup(st->tool));
	rag_strv_push(argv, rag_xstrdup("-q"));
	if (p->config_path) {
		rag_strv_push(argv, rag_xstrdup("-c"));
		rag_strv_push(argv, rag_xstrdup(p->config_path));
	}
	if (p->max_memory) {
		rag_strv_push(argv, rag_xstrdup("--max-memory"));
		rag_strv_push(argv, rag_xasprintf("%ld", p->max_memory));
	}
	if (st->jobs && p->jobs) {
		rag_strv_push(argv, rag_xstrdup("-j"));
		rag_strv_push(argv, rag_xasprintf("%ld", p->jobs));
	}
	for (a = st->args; a && *a; a = *w ? w + 1 : w) {
		w = a + strcspn(a, " ");
		rag_strv_push(argv, rag_xstrndup(a, (size_t)(w - a)));
	}
	/* ap.from in the command itself: the pipeline says where its rank metrics come from */
	if (s == RAG_EVAL_AP && p->ap_from) {
		rag_strv_push(argv, rag_xstrdup("--from"));
		rag_strv_push(argv, rag_xstrdup(p->ap_from));
	}
	if (st->list && p->stage_list[s].len) {
		rag_strv_push(argv, rag_xstrdup(st->list));
		rag_strv_push(argv, rag_xstrdup(p->stage_list[s].p));
	}
	if (s == RAG_EVAL_COLLECT && p->batch) {
		rag_strv_push(argv, rag_xstrdup("--cache"));
		rag_strv_push(argv, rag_xstrdup("rw"));
	}
}

void rag_evalplan_stages_text(const rag_evalplan *p, rag_buf *b, const char *sep)
{
	int s, k, first = 1;
	size_t i;
	for (k = 0; (s = rag_evalplan_nth(k)) >= 0; k++) {
		rag_strv argv = {0};
		if (!p->stage_on[s]) continue;
		if (!first || !p->shards) rag_buf_adds(b, sep);
		first = 0;
		rag_evalplan_argv(p, s, &argv);
		for (i = 0; i < argv.n; i++) {
			if (i) rag_buf_add(b, " ", 1);
			rag_evalplan_shq(b, argv.v[i]);
		}
		rag_strv_free(&argv);
	}
	rag_buf_add(b, "", 0);
}

/* the first stage: rag-eval --emit, the test set as records */
static void emit_text(const rag_evalplan *p, rag_buf *b)
{
	size_t i;
	char *f;
	rag_buf_adds(b, "mkdir -p ");
	rag_evalplan_shq(b, p->rundir);
	rag_buf_adds(b, " && ");
	rag_evalplan_shq(b, p->self);
	rag_buf_adds(b, " --emit -q");   /* the warnings about the test set are rag-eval's */
	if (p->config_path) {
		rag_buf_adds(b, " -c ");
		rag_evalplan_shq(b, p->config_path);
	}
	for (i = 0; p->fields && i < p->fields->n; i++) {
		rag_buf_adds(b, " --field ");
		rag_evalplan_shq(b, p->fields->v[i]);
	}
	rag_buf_addf(b, " --format %s --run-id ", p->format);
	rag_evalplan_shq(b, p->run_id);
	if (p->skip_done) {
		f = rag_xasprintf("%s/records.jsonl", p->rundir);
		rag_buf_adds(b, " --skip-done ");
		rag_evalplan_shq(b, f);
		free(f);
	}
	if (strcmp(p->testset, "-")) {
		rag_buf_adds(b, " < ");
		rag_evalplan_shq(b, p->testset);
	}
}

void rag_evalplan_render(const rag_evalplan *p, rag_buf *b)
{
	char *f;
	emit_text(p, b);
	if (p->shards) {
		/* one shard's pipeline, a command line that parallel gives its shell */
		rag_buf sh = {0};
		rag_evalplan_stages_text(p, &sh, " | ");
		rag_buf_addf(b, " \\\n  | parallel --pipe --keep-order -j %ld --block %ld --recend '\\n'", p->shards,
		             p->block);
		if (p->sshlogin) {
			rag_buf_adds(b, " --sshlogin ");
			rag_evalplan_shq(b, p->sshlogin);
		}
		rag_buf_adds(b, " \\\n      ");
		rag_evalplan_shq(b, sh.p);
		rag_buf_free(&sh);
	} else {
		rag_evalplan_stages_text(p, b, " \\\n  | ");
	}
	rag_buf_adds(b, " \\\n  | ");
	rag_evalplan_tool(p, b, "rag-gate");
	rag_evalplan_gate_opts(p, b);
	rag_buf_adds(b, " --tee -o ");
	f = rag_xasprintf("%s/gate.txt", p->rundir);
	rag_evalplan_shq(b, f);
	free(f);
	rag_buf_adds(b, " --junit ");
	f = rag_xasprintf("%s/junit.xml", p->rundir);
	rag_evalplan_shq(b, f);
	free(f);
	rag_buf_add(b, "", 0);
}

void rag_evalplan_collect_text(const rag_evalplan *p, int stage, const char *file, rag_buf *b)
{
	int s, k;
	size_t i;
	emit_text(p, b);
	for (k = 0; (s = rag_evalplan_nth(k)) >= 0; k++) {
		rag_strv argv = {0};
		if (!p->stage_on[s]) continue;
		rag_buf_adds(b, " \\\n  | ");
		if (s == stage) {
			rag_buf_adds(b, "RAG_BATCH_COLLECT=");
			rag_evalplan_shq(b, file);
			rag_buf_adds(b, " ");
		}
		rag_evalplan_argv(p, s, &argv);
		for (i = 0; i < argv.n; i++) {
			if (i) rag_buf_add(b, " ", 1);
			rag_evalplan_shq(b, argv.v[i]);
		}
		rag_strv_free(&argv);
		/* a judge stage before: its replies from the cache alone (its batch's), never sent;
		 * its messages are the run's to give */
		if (s != stage && rag_evalplan_stage(s)->jobs && s != RAG_EVAL_COLLECT)
			rag_buf_adds(b, " --cache replay 2>/dev/null");
		if (s == stage) break;
	}
	rag_buf_adds(b, " >/dev/null");
	rag_buf_add(b, "", 0);
}

void rag_evalplan_free(rag_evalplan *p)
{
	int s;
	rag_strv_free(&p->metrics);
	for (s = 0; s < RAG_EVAL_MAXSTAGES; s++) rag_buf_free(&p->stage_list[s]);
}
