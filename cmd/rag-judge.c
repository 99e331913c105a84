/* rag-judge - score each record against one or more rubrics (correctness against the reference,
 * relevance, completeness, groundedness, consistency, or the configuration's own), each with a
 * score on the rubric's scale and a reason; --repeat asks again and measures the spread. */
#include "tool.h"
#include "base.h"
#include "config.h"
#include "record.h"
#include "stream.h"
#include "metric.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-judge [OPTIONS] < records.jsonl > records.jsonl\n"
	"Score each record against rubrics with an LLM judge: verdicts.<RUBRIC> (score on the\n"
	"rubric's scale, reason) and scores.<RUBRIC> (normalised to [0, 1]). Built-in rubrics:\n"
	"correctness, relevance, completeness, groundedness_0_10, consistent; custom ones from the\n"
	"rubrics section of rag.yaml. There is no offline judge: it needs an endpoint (or --cache\n"
	"replay).\n";

enum { OPT_RUBRIC = RAG_OPT_TOOL };

static const rag_opt options[] = {
	{"rubric", 0, OPT_RUBRIC, "NAME[,NAME...]",
	 "correctness relevance completeness groundedness_0_10 consistent",
	 "the rubrics to score (default correctness):\n"
	 "correctness | relevance | completeness | groundedness_0_10 |\n"
	 "consistent | one of the rubrics of rag.yaml; several: one\n"
	 "request each, in flight together"},
	{"repeat", 'n', 'n', "N", NULL, "ask N times (seeds llm.seed, +1, ...): mean, repeats,\nstdev, flip"},
	{"threshold", 't', 't', "X", NULL,
	 "normalised threshold of --repeat's flip\n(default gate.record.<RUBRIC>)"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	rag_rubric **rubrics;
	double *thresholds;       /* per rubric, NAN when none is known */
	size_t n;
	int repeat;
	char *stage;              /* usage.rag-judge.<the rubrics, comma-separated> */
} tool;

/* The rubrics of one record in flight: their results are written when the last one has
 * answered, in the order --rubric asked for them, so the same input and replies give the same
 * bytes whatever order the replies arrive in. */
typedef struct group {
	rag_item *it;
	size_t left;              /* jobs still waiting for a reply */
	struct job **jobs;        /* per rubric, NULL for those not asked (not applicable, bad input) */
} group;

/* One rubric of one record: its repeats, in flight together. */
typedef struct job {
	rag_item *it;
	tool *t;
	group *g;
	size_t r;                 /* the rubric */
	jv values;                /* its prompt's inputs, until asked */
	int left;
	double *scores;
	char *reason;             /* the first repeat's */
	char *error;
} job;

static void set_null(rag_item *it, const char *name)
{
	it->rec = rag_record_set(it->rec, "verdicts", name, jv_null());
	it->rec = rag_record_set(it->rec, "scores", name, jv_null());
}

static void job_write(job *b)
{
	rag_item *it = b->it;
	const rag_rubric *r = b->t->rubrics[b->r];
	const char *name = rag_rubric_name(r);
	if (b->error) {
		set_null(it, name);
		it->rec = rag_record_error(it->rec, "rag-judge", name, "%s", b->error);
		rag_item_remote_error(it, b->error);
	} else {
		jv v = rag_rubric_verdict(r, b->scores, b->t->repeat, b->reason, b->t->thresholds[b->r]);
		double mean = rag_json_num(v, "score");
		it->rec = rag_record_set(it->rec, "verdicts", name, v);
		it->rec = rag_record_set(it->rec, "scores", name,
		                         jv_number(rag_rubric_normalise(rag_rubric_scale(r), mean)));
	}
	free(b->scores);
	free(b->reason);
	free(b->error);
	free(b);
}

static void group_done(group *g, size_t n)
{
	size_t r;
	if (--g->left) return;
	for (r = 0; r < n; r++)
		if (g->jobs[r]) job_write(g->jobs[r]);
	rag_item_release(g->it);
	free(g->jobs);
	free(g);
}

static void job_end(job *b)
{
	group_done(b->g, b->t->n);
}

typedef struct ask { job *b; int i; } ask;

static void scored(void *arg, jv result, const char *error)
{
	ask *a = arg;
	job *b = a->b;
	int i = a->i;
	free(a);
	if (error) {
		if (!b->error) b->error = b->t->repeat > 1 ? rag_xasprintf("repeat %d: %s", i + 1, error) : rag_xstrdup(error);
	} else {
		jv rs = jv_object_get(jv_copy(result), jv_string("reason"));
		b->scores[i] = rag_json_num(result, "score");
		if (i == 0) b->reason = rag_xstrdup(jv_string_value(rs));
		jv_free(rs);
	}
	jv_free(result);
	if (--b->left == 0) job_end(b);
}

static void start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	const char *q = rag_record_str(it->rec, "question"), *a = rag_record_str(it->rec, "answer"), *na;
	const char *lang = rag_cli_lang(t->cli, q ? q : a ? a : "");
	char why[RAG_ERRLEN];
	size_t r;
	int i, self_checked = 0;
	group *g = rag_xcalloc(1, sizeof *g);

	it->stage = t->stage;
	g->it = it;
	g->jobs = rag_xcalloc(t->n, sizeof *g->jobs);
	/* every rubric's keys in the order asked, whichever answers first */
	for (r = 0; r < t->n; r++) set_null(it, rag_rubric_name(t->rubrics[r]));
	for (r = 0; r < t->n; r++) {
		const char *name = rag_rubric_name(t->rubrics[r]);
		jv values;
		job *b;
		int rc = rag_rubric_inputs(t->rubrics[r], it->rec, &values, &na, why, sizeof why);
		if (rc == 0 && !strcmp(name, "relevance") && rag_record_expects_refusal(it->rec)) {
			/* the built-in relevance would score the right refusal as off the question */
			jv_free(values);
			rc = 1;
			na = RAG_NA_UNANSWERABLE;
		}
		if (rc == 1) {
			it->rec = rag_record_set(it->rec, "verdicts", name, jv_null());
			rag_item_not_applicable(it, name, na);
			continue;
		}
		if (rc < 0) {
			set_null(it, name);
			rag_item_input_error(it, "rag-judge", name, "%s", why);
			continue;
		}
		if (!self_checked++) rag_cli_self_check(t->cli, it->rec);
		b = rag_xcalloc(1, sizeof *b);
		b->it = it;
		b->t = t;
		b->g = g;
		b->r = r;
		b->left = t->repeat;
		b->scores = rag_xcalloc((size_t)t->repeat, sizeof *b->scores);
		b->values = values;
		g->jobs[r] = b;
		g->left++;
	}
	if (!g->left) {
		free(g->jobs);
		free(g);
		return;
	}
	/* held once for the group; the asks start only now, and the group counts itself as one
	 * more job until they all have, so that replies served from the cache at once cannot end
	 * it (and free it) while this loop still reads it */
	rag_item_hold(it);
	g->left++;
	for (r = 0; r < t->n; r++) {
		job *b = g->jobs[r];
		jv values;
		if (!b) continue;
		values = b->values;
		b->values = jv_invalid();
		for (i = 0; i < t->repeat; i++) {
			ask *k = rag_xmalloc(sizeof *k);
			k->b = b;
			k->i = i;
			rag_rubric_ask(t->cli->judge, lang, t->rubrics[r], i + 1 < t->repeat ? jv_copy(values) : values, i,
			               &it->usage, scored, k);
		}
	}
	group_done(g, t->n);
}

/* The rubrics of --rubric, each once, into t. */
static int load_rubrics(rag_cli *cli, tool *t, const char *list)
{
	const char *p = list, *e;
	char err[RAG_ERRLEN];
	rag_buf stage = {0};
	size_t i, k;
	for (; *p; p = *e ? e + 1 : e) {
		char *name;
		rag_rubric *r;
		e = strchr(p, ',');
		if (!e) e = p + strlen(p);
		name = rag_xstrndup(p, (size_t)(e - p));
		if (!*name) {
			free(name);
			continue;
		}
		for (k = 0; k < t->n && strcmp(rag_rubric_name(t->rubrics[k]), name); k++)
			;
		if (k < t->n) {
			free(name);
			continue;
		}
		if (!(r = rag_rubric_get(&cli->cfg, name, err, sizeof err))) {
			rag_msg(cli->prog, "error", "%s", err);
			free(name);
			rag_buf_free(&stage);
			return RAG_EXIT_USAGE;
		}
		free(name);
		t->rubrics = rag_xrealloc(t->rubrics, (t->n + 1) * sizeof *t->rubrics);
		t->thresholds = rag_xrealloc(t->thresholds, (t->n + 1) * sizeof *t->thresholds);
		t->rubrics[t->n] = r;
		t->thresholds[t->n] = NAN;
		for (i = 0; i < cli->cfg.gate.nrecord; i++)
			if (!strcmp(cli->cfg.gate.record[i].key, rag_rubric_name(r))) t->thresholds[t->n] = cli->cfg.gate.record[i].value;
		rag_buf_addf(&stage, "%s%s", t->n ? "," : "", rag_rubric_name(r));
		t->n++;
	}
	if (!t->n) {
		rag_msg(cli->prog, "error", "--rubric needs a rubric name (built in: %s)", rag_rubric_builtins());
		return RAG_EXIT_USAGE;
	}
	t->stage = stage.p;
	return 0;
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_stream_ops ops = {start, NULL, NULL, NULL};
	int opt, rc, done;
	long repeat = 1;
	double threshold = NAN;
	const char *list = "correctness";
	size_t i;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-judge";
	cli.usage = usage;
	cli.opts = options;
	cli.judge_opts = 1;
	cli.ops = (const rag_op *const[]){&rag_op_rubric, NULL};
	t.cli = &cli;
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case OPT_RUBRIC: list = optarg; break;
		case 'n':
			if (rag_cli_int(&cli, "--repeat", optarg, 1, 100, &repeat)) return rag_cli_misuse(&cli);
			break;
		case 't':
			if (rag_cli_double(&cli, "--threshold", optarg, 0, 1, 0, &threshold)) return rag_cli_misuse(&cli);
			break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) return rc;
		}
	}
	if ((rc = rag_cli_no_operands(&cli, argc, argv))) return rc;
	t.repeat = (int)repeat;
	if ((rc = rag_cli_config(&cli)) || (rc = load_rubrics(&cli, &t, list)) || (rc = rag_cli_need_endpoint(&cli)) ||
	    (rc = rag_cli_judge(&cli)))
		goto out;
	if (!isnan(threshold))
		for (i = 0; i < t.n; i++) t.thresholds[i] = threshold;
	rc = rag_cli_run(&cli, &ops, &t);
out:
	for (i = 0; i < t.n; i++) rag_rubric_free(t.rubrics[i]);
	free(t.rubrics);
	free(t.thresholds);
	free(t.stage);
	rag_cli_free(&cli);
	return rc;
}
