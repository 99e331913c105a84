/* rag-verify - judge each claim of a record against its retrieved contexts: faithfulness (the
 * answer's claims) or context recall (the reference's claims); with --chunks, judge each chunk
 * for usefulness instead: context precision (against the reference) or context utilization
 * (against the answer). */
#include "tool.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-verify [OPTIONS] < records.jsonl > records.jsonl\n"
	"Judge every claim of each record against its contexts: verdicts.<METRIC> and\n"
	"scores.<METRIC> = supported claims / all claims.\n";

enum { OPT_METRIC = RAG_OPT_TOOL, OPT_CLAIMS, OPT_RECHECK, OPT_LITERAL, OPT_BATCH_CLAIMS, OPT_BATCH_CHARS, OPT_CHUNKS };

static const rag_opt options[] = {
	{"metric", 0, OPT_METRIC, "NAME", "faithfulness context_recall context_precision context_utilization",
	 "faithfulness (default) | context_recall | context_precision | context_utilization\n"
	 "(claims.answer, claims.reference; the last two with --chunks)"},
	{"chunks", 0, OPT_CHUNKS, NULL, NULL, "judge each chunk's usefulness for the reference (or the answer):\n"
	 "verdicts.<METRIC> per chunk, scores.<METRIC> = average precision"},
	{"claims", 0, OPT_CLAIMS, "FIELD", "answer reference", "read claims.<FIELD> instead of the metric's default"},
	{"recheck", 0, OPT_RECHECK, NULL, NULL, "re-check unsupported claims against each chunk alone"},
	{"literal", 0, OPT_LITERAL, NULL, NULL, "accept a claim that appears literally in a context"},
	{"batch-claims", 0, OPT_BATCH_CLAIMS, "N", NULL, "claims per judge call (default 20)"},
	{"batch-chars", 0, OPT_BATCH_CHARS, "N", NULL, "context characters per judge call (default 24000)"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	const char *metric;
	const char *claims_field;
	int chunks;               /* --chunks: judge the chunks, not claims */
	int metric_given;         /* --metric was given (with --chunks: no choice by record) */
} tool;

/* --chunks: the metric of one record, chosen by what it holds */
typedef struct chunk_item { tool *t; const char *metric; } chunk_item;

static void set_null(rag_item *it, const tool *t)
{
	it->rec = rag_record_set(it->rec, "verdicts", t->metric, jv_null());
	it->rec = rag_record_set(it->rec, "scores", t->metric, jv_null());
}

static void verified(void *arg, jv result, const char *error)
{
	rag_item *it = arg;
	tool *t = it->data;
	if (error) {
		jv_free(result);
		set_null(it, t);
		it->rec = rag_record_error(it->rec, "rag-verify", t->metric, "%s", error);
		rag_item_remote_error(it, error);
	} else {
		int n = jv_array_length(jv_copy(result)), i, yes = 0;
		for (i = 0; i < n; i++) {
			jv v = jv_object_get(jv_array_get(jv_copy(result), i), jv_string("verdict"));
			yes += jv_get_kind(v) == JV_KIND_TRUE;
			jv_free(v);
		}
		it->rec = rag_record_set(it->rec, "verdicts", t->metric, result);
		/* nothing claimed, nothing unfaithful: a refusal scores 1, visible as an empty list */
		it->rec = rag_record_set(it->rec, "scores", t->metric, jv_number(n ? (double)yes / n : 1.0));
	}
	rag_item_release(it);
}

/* claims.<field> as an array of strings, or a reason why not. */
static jv record_claims(jv rec, const char *field, int *upstream_failed)
{
	jv all = jv_object_get(jv_copy(rec), jv_string("claims")), c;
	int i, n;
	*upstream_failed = 0;
	if (jv_get_kind(all) == JV_KIND_OBJECT) {
		c = jv_object_get(all, jv_string(field));
	} else {
		jv_free(all);
		c = jv_invalid();
	}
	if (!jv_is_valid(c)) {
		jv_free(c);
		return jv_invalid_with_msg(jv_string_fmt("record has no claims.%s: run rag-claims%s first", field,
		                                         strcmp(field, "answer") ? " --from reference" : ""));
	}
	if (jv_get_kind(c) == JV_KIND_NULL) {
		*upstream_failed = 1;
		return jv_invalid_with_msg(jv_string_fmt("claims.%s is null: the claims stage failed for this record", field));
	}
	if (jv_get_kind(c) != JV_KIND_ARRAY) {
		const char *k = jv_kind_name(jv_get_kind(c));
		jv_free(c);
		return jv_invalid_with_msg(jv_string_fmt("claims.%s is %s, not an array", field, k));
	}
	n = jv_array_length(jv_copy(c));
	for (i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(c), i);
		int ok = jv_get_kind(s) == JV_KIND_STRING, nul = rag_record_has_nul(s);
		jv_free(s);
		if (!ok) {
			jv_free(c);
			return jv_invalid_with_msg(jv_string_fmt("claims.%s[%d] is not a string", field, i));
		}
		if (nul) {
			jv_free(c);
			return jv_invalid_with_msg(jv_string_fmt("claims.%s[%d] contains a NUL character (\\u0000)", field, i));
		}
	}
	return c;
}

static void chunks_judged(void *arg, jv result, const char *error)
{
	rag_item *it = arg;
	chunk_item *ci = it->data;
	const char *metric = ci->metric;
	if (error) {
		jv_free(result);
		it->rec = rag_record_set(it->rec, "verdicts", metric, jv_null());
		it->rec = rag_record_set(it->rec, "scores", metric, jv_null());
		it->rec = rag_record_error(it->rec, "rag-verify", metric, "%s", error);
		rag_item_remote_error(it, error);
	} else {
		/* the score is rag-ap's context precision of these verdicts (rank.c) */
		int n = jv_array_length(jv_copy(result)), i;
		double *g = rag_xmalloc(((size_t)n + 1) * sizeof *g), v = 0;
		rag_rank_metric m;
		rag_rank_list l;
		const char *why;
		char err[RAG_ERRLEN];
		for (i = 0; i < n; i++) {
			jv d = jv_object_get(jv_array_get(jv_copy(result), i), jv_string("verdict"));
			g[i] = jv_get_kind(d) == JV_KIND_TRUE;
			jv_free(d);
		}
		l.gain = l.ideal = g;
		l.n = l.nideal = (size_t)n;
		l.level = 0;
		rag_rank_metric_parse("ap", &m, err, sizeof err);
		rag_rank_eval(&m, &l, &v, &why);
		free(g);
		it->rec = rag_record_set(it->rec, "verdicts", metric, result);
		it->rec = rag_record_set(it->rec, "scores", metric, jv_number(v));
	}
	it->data = ci->t;
	free(ci);
	rag_item_release(it);
}

static void chunks_start(rag_item *it, tool *t)
{
	const char *ref, *ans, *metric = t->metric, *question, *target;
	char why[RAG_ERRLEN];
	chunk_item *ci;
	jv contexts;

	if (rag_record_text(it->rec, "reference", &ref, why, sizeof why) < 0 ||
	    rag_record_text(it->rec, "answer", &ans, why, sizeof why) < 0 ||
	    rag_record_text(it->rec, "question", &question, why, sizeof why) < 0) {
		/* the record's metric is the one its reference would have chosen */
		if (!t->metric_given) metric = rag_record_str(it->rec, "reference") ? "context_precision" : "context_utilization";
		it->rec = rag_record_set(it->rec, "verdicts", metric, jv_null());
		it->rec = rag_record_set(it->rec, "scores", metric, jv_null());
		rag_item_input_error(it, "rag-verify", metric, "%s", why);
		return;
	}
	if (ref && !*ref) ref = NULL;
	if (ans && !*ans) ans = NULL;
	if (!t->metric_given) metric = ref ? "context_precision" : "context_utilization";
	it->stage = metric;
	target = strcmp(metric, "context_precision") == 0 ? ref : ans;
	if (!target) {
		it->rec = rag_record_set(it->rec, "verdicts", metric, jv_null());
		it->rec = rag_record_set(it->rec, "scores", metric, jv_null());
		if (!t->metric_given)
			rag_item_input_error(it, "rag-verify", metric, "record has neither a reference nor an answer "
			                     "to judge the chunks against");
		else if (strcmp(metric, "context_precision") == 0)
			rag_item_input_error(it, "rag-verify", metric, "record has no reference: context precision "
			                     "needs a reference answer (context_utilization judges against the answer)");
		else
			rag_item_input_error(it, "rag-verify", metric, "record has no answer: context utilization "
			                     "judges the chunks against the answer");
		return;
	}
	contexts = rag_record_contexts(it->rec);
	if (!jv_is_valid(contexts)) {
		jv m = jv_invalid_get_msg(contexts);
		it->rec = rag_record_set(it->rec, "verdicts", metric, jv_null());
		it->rec = rag_record_set(it->rec, "scores", metric, jv_null());
		rag_item_input_error(it, "rag-verify", metric, "%s", jv_string_value(m));
		jv_free(m);
		return;
	}
	rag_cli_self_check(t->cli, it->rec);
	ci = rag_xmalloc(sizeof *ci);
	ci->t = t;
	ci->metric = metric;
	it->data = ci;
	rag_item_hold(it);
	rag_chunks_ask(t->cli->judge, rag_cli_lang(t->cli, question && *question ? question : target), question,
	                 target, strcmp(metric, "context_precision") == 0, contexts, &it->usage, chunks_judged, it);
}

static void start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	jv claims, contexts;
	const char *question;
	char why[RAG_ERRLEN];
	int upstream;

	it->data = t;
	it->stage = t->metric;
	if (t->chunks) {
		chunks_start(it, t);
		return;
	}
	if (strcmp(t->metric, "context_recall") == 0) {
		const char *ref;
		int bad = rag_record_text(it->rec, "reference", &ref, why, sizeof why) < 0;
		jv rv = rag_record_get(it->rec, "reference");
		jv_kind rk = jv_get_kind(rv);
		jv_free(rv);
		if (!bad && rk != JV_KIND_INVALID && rk != JV_KIND_NULL && rk != JV_KIND_STRING) {
			/* a reference that is not a text is broken input, not a missing one */
			snprintf(why, sizeof why, "field \"reference\" is %s, not a string", jv_kind_name(rk));
			bad = 1;
		}
		if (!bad && (!ref || !*ref)) {
			/* no reference answer: context recall does not apply (rag(7) NOT APPLICABLE), whether
			 * rag-claims --from reference said so already or not */
			set_null(it, t);
			rag_item_not_applicable(it, t->metric, "no reference answer");
			return;
		}
		if (bad) {
			jv_free(record_claims(it->rec, t->claims_field, &upstream));
			set_null(it, t);
			if (upstream)
				it->rec = rag_record_error(it->rec, "rag-verify", t->metric, "%s", why);
			else
				rag_item_input_error(it, "rag-verify", t->metric, "%s", why);
			return;
		}
	}
	claims = record_claims(it->rec, t->claims_field, &upstream);
	if (!jv_is_valid(claims)) {
		jv m = jv_invalid_get_msg(claims);
		set_null(it, t);
		if (upstream)
			it->rec = rag_record_error(it->rec, "rag-verify", t->metric, "%s", jv_string_value(m));
		else
			rag_item_input_error(it, "rag-verify", t->metric, "%s", jv_string_value(m));
		jv_free(m);
		return;
	}
	contexts = rag_record_contexts(it->rec);
	if (!jv_is_valid(contexts)) {
		jv m = jv_invalid_get_msg(contexts);
		jv_free(claims);
		set_null(it, t);
		rag_item_input_error(it, "rag-verify", t->metric, "%s", jv_string_value(m));
		jv_free(m);
		return;
	}
	if (rag_record_text(it->rec, "question", &question, why, sizeof why) < 0) {
		jv_free(claims);
		jv_free(contexts);
		set_null(it, t);
		rag_item_input_error(it, "rag-verify", t->metric, "%s", why);
		return;
	}
	rag_cli_self_check(t->cli, it->rec);
	{
		/* without a question, the claims tell the language */
		jv first = jv_array_length(jv_copy(claims)) ? jv_array_get(jv_copy(claims), 0) : jv_string("");
		const char *lang = rag_cli_lang(t->cli, question && *question ? question : jv_string_value(first));
		jv_free(first);
		rag_item_hold(it);
		rag_verify_ask(t->cli->judge, lang, question, claims, contexts, &it->usage, verified, it);
	}
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_stream_ops ops = {start, NULL, NULL, NULL};
	int opt, rc, done, recheck = 0, literal = 0;
	long batch_claims = 0, batch_chars = 0;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-verify";
	cli.usage = usage;
	cli.opts = options;
	cli.judge_opts = 1;
	t.cli = &cli;
	t.metric = "faithfulness";
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case OPT_METRIC:
			if (strcmp(optarg, "faithfulness") && strcmp(optarg, "context_recall") &&
			    strcmp(optarg, "context_precision") && strcmp(optarg, "context_utilization")) {
				rag_msg(cli.prog, "error", "--metric must be faithfulness, context_recall, context_precision or "
				        "context_utilization, not \"%s\"", optarg);
				return rag_cli_misuse(&cli);
			}
			t.metric = optarg;
			t.metric_given = 1;
			break;
		case OPT_CHUNKS: t.chunks = 1; break;
		case OPT_CLAIMS: t.claims_field = optarg; break;
		case OPT_RECHECK: recheck = 1; break;
		case OPT_LITERAL: literal = 1; break;
		case OPT_BATCH_CLAIMS:
			if (rag_cli_int(&cli, "--batch-claims", optarg, 1, 1000, &batch_claims)) return rag_cli_misuse(&cli);
			break;
		case OPT_BATCH_CHARS:
			if (rag_cli_int(&cli, "--batch-chars", optarg, 100, 100000000, &batch_chars)) return rag_cli_misuse(&cli);
			break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) return rc;
		}
	}
	if ((rc = rag_cli_no_operands(&cli, argc, argv))) return rc;
	{
		int chunk_metric = strcmp(t.metric, "context_precision") == 0 || strcmp(t.metric, "context_utilization") == 0;
		if (t.chunks && t.metric_given && !chunk_metric) {
			rag_msg(cli.prog, "error", "--chunks judges chunks: --metric must be context_precision or context_utilization");
			return rag_cli_misuse(&cli);
		}
		if (!t.chunks && chunk_metric) {
			rag_msg(cli.prog, "error", "--metric %s needs --chunks", t.metric);
			return rag_cli_misuse(&cli);
		}
		if (t.chunks && (t.claims_field || recheck || literal || batch_claims)) {
			rag_msg(cli.prog, "error", "--chunks judges chunks, not claims: --claims, --recheck, --literal and "
			        "--batch-claims do not apply");
			return rag_cli_misuse(&cli);
		}
	}
	if (!t.claims_field)
		t.claims_field = strcmp(t.metric, "context_recall") == 0 ? "reference" : "answer";
	cli.prompts = t.chunks ? (const char *const[]){"chunks", NULL} : (const char *const[]){"verify", NULL};
	if ((rc = rag_cli_config(&cli))) {
		rag_cli_free(&cli);
		return rc;
	}
	if (recheck) cli.cfg.verify.recheck_chunks = 1;
	if (literal) cli.cfg.verify.literal_match = 1;
	if (batch_claims) cli.cfg.verify.batch_claims = (int)batch_claims;
	if (batch_chars) cli.cfg.verify.batch_chars = (int)batch_chars;
	if ((rc = rag_cli_judge(&cli))) {
		rag_cli_free(&cli);
		return rc;
	}
	rc = rag_cli_run(&cli, &ops, &t);
	rag_cli_free(&cli);
	return rc;
}
