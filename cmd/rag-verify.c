/* rag-verify - judge each claim of a record against its retrieved contexts: faithfulness (the
 * answer's claims) or context recall (the reference's claims, or without them its sentences);
 * with --chunks, judge each chunk for usefulness instead: context precision (against the
 * reference) or context utilization (against the answer); answer_correctness judges the answer's
 * claims against the reference's and back, weighted with the similarity of the two texts. */
#include "tool.h"
#include "base.h"
#include "config.h"
#include "record.h"
#include "stream.h"
#include "offline.h"
#include "llm.h"
#include "judge.h"
#include "metric.h"
#include "rank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-verify [OPTIONS] < records.jsonl > records.jsonl\n"
	"Judge every claim of each record against its contexts: verdicts.<METRIC> and\n"
	"scores.<METRIC> = supported claims / all claims (offline: the mean of the\n"
	"verdicts' graded scores).\n";

enum { OPT_METRIC = RAG_OPT_TOOL, OPT_CLAIMS, OPT_RECHECK, OPT_LITERAL, OPT_BATCH_CLAIMS, OPT_BATCH_CHARS, OPT_CHUNKS,
       OPT_MODE, OPT_WEIGHTS, OPT_ONE_REQUEST };

static const rag_opt options[] = {
	{"metric", 0, OPT_METRIC, "NAME", "faithfulness context_recall context_precision context_utilization answer_correctness",
	 "faithfulness (default) | context_recall | answer_correctness | context_precision | context_utilization\n"
	 "(claims.answer, claims.reference; the last two with --chunks)"},
	{"chunks", 0, OPT_CHUNKS, NULL, NULL, "judge each chunk's usefulness for the reference (or the answer):\n"
	 "verdicts.<METRIC> per chunk, scores.<METRIC> = average precision"},
	{"claims", 0, OPT_CLAIMS, "FIELD", "answer reference", "read claims.<FIELD> instead of the metric's default"},
	{"recheck", 0, OPT_RECHECK, NULL, NULL, "re-check unsupported claims against each chunk alone"},
	{"literal", 0, OPT_LITERAL, NULL, NULL, "accept a claim that appears literally in a context"},
	{"batch-claims", 0, OPT_BATCH_CLAIMS, "N", NULL, "claims per judge call (default 20)"},
	{"batch-chars", 0, OPT_BATCH_CHARS, "N", NULL, "context characters per judge call (default 24000)"},
	{"mode", 0, OPT_MODE, "MODE", "batched claim claim_chunk", "batched (default: all claims in one JSON request) |\n"
	 "claim | claim_chunk: a Yes/No verifier model asked per claim (and chunk)"},
	{"one-request", 0, OPT_ONE_REQUEST, NULL, NULL, "faithfulness: split the answer and judge its claims in one\n"
	 "request (no claims.answer needed)"},
	{"weights", 0, OPT_WEIGHTS, "F,S", NULL, "answer_correctness: weights of the factual F1 and the\n"
	 "similarity (default 0.75,0.25)"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	const char *metric;
	const char *claims_field;
	int chunks;               /* --chunks: judge the chunks, not claims */
	int metric_given;         /* --metric was given (with --chunks: no choice by record) */
	int claims_given;         /* --claims was given: no sentences in place of absent claims */
	int one_request;          /* --one-request: faithfulness claims and verdicts asked together */
	rag_embed *emb;           /* answer_correctness: the similarity, when the record lacks it */
	int emb_remote;           /* emb talks to an endpoint: the run loop drives it too */
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
		double score;
		int none = rag_verify_score(result, &score) < 0;
		it->rec = rag_record_set(it->rec, "verdicts", t->metric, result);
		if (none)   /* nothing claimed is nothing to score, not a faithful answer: no free 1 */
			rag_item_not_applicable(it, t->metric, strcmp(t->metric, "context_recall")
			                        ? "the answer makes no checkable claim" : "the reference makes no checkable claim");
		else
			it->rec = rag_record_set(it->rec, "scores", t->metric, jv_number(score));
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

/* Whether the record has no claims.<field> at all (null is there: an upstream failure). */
static int claims_absent(jv rec, const char *field)
{
	jv c = rag_json_get(jv_copy(rec), "claims");
	int absent = !jv_is_valid(c) || !jv_is_valid(c = rag_json_get(c, field));
	jv_free(c);
	return absent;
}

/* The sentences of a text, cut locally (claimsplit.c), as the claims of a one-request path. A
 * sentence without content words ("No." before "The X200 supports Wi-Fi 6, not Wi-Fi 7.") claims
 * nothing a context could hold: it is left out where another sentence has some. */
static jv sentences(const char *text)
{
	rag_strv v = {0};
	jv out = jv_array(), bare = jv_array();
	rag_offline_sentences(text, &v, 1);
	for (size_t i = 0; i < v.n; i++) {
		jv t = rag_text_tokens(v.v[i]);
		int words = jv_array_length(t) > 0;
		bare = jv_array_append(bare, jv_string(v.v[i]));
		if (words) out = jv_array_append(out, jv_string(v.v[i]));
	}
	rag_strv_free(&v);
	if (jv_array_length(jv_copy(out)) == 0) {
		jv_free(out);
		return bare;
	}
	jv_free(bare);
	return out;
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
	    rag_item_question(it, &question, why, sizeof why) < 0) {
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
			rag_item_not_applicable(it, metric, "no reference answer");   /* by its definition */
		else {
			rag_record_need_text(it->rec, "answer", RAG_FIELD_NONEMPTY, &ans, why, sizeof why);
			rag_item_input_error(it, "rag-verify", metric, "%s: context utilization judges the chunks "
			                     "against the answer", why);
		}
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

/* ---------------------------------------------------------------- faithfulness in one request */

/* The claims the judge found go into claims.answer too, unless an earlier stage wrote some. */
static void verified_one(void *arg, jv result, const char *error)
{
	rag_item *it = arg;
	if (!error && claims_absent(it->rec, "answer")) {
		jv claims = jv_array();
		int n = jv_array_length(jv_copy(result)), i;
		for (i = 0; i < n; i++)
			claims = jv_array_append(claims, jv_object_get(jv_array_get(jv_copy(result), i), jv_string("claim")));
		it->rec = rag_record_set(it->rec, "claims", "answer", claims);
	}
	verified(arg, result, error);
}

static void one_request_start(rag_item *it, tool *t)
{
	const char *ans, *question;
	char why[RAG_ERRLEN];
	jv contexts;
	if (rag_record_text(it->rec, "answer", &ans, why, sizeof why) < 0 ||
	    rag_item_question(it, &question, why, sizeof why) < 0) {
		set_null(it, t);
		rag_item_input_error(it, "rag-verify", t->metric, "%s", why);
		return;
	}
	if (!ans) {
		set_null(it, t);
		rag_record_need_text(it->rec, "answer", 0, &ans, why, sizeof why);
		rag_item_input_error(it, "rag-verify", t->metric, "%s: --one-request splits the answer into claims", why);
		return;
	}
	contexts = rag_record_contexts(it->rec);
	if (!jv_is_valid(contexts)) {
		jv m = jv_invalid_get_msg(contexts);
		set_null(it, t);
		rag_item_input_error(it, "rag-verify", t->metric, "%s", jv_string_value(m));
		jv_free(m);
		return;
	}
	rag_cli_self_check(t->cli, it->rec);
	rag_item_hold(it);
	rag_verify_answer_ask(t->cli->judge, rag_cli_lang(t->cli, question && *question ? question : ans), question,
	                      ans, contexts, t->cli->cfg.verify.max_claims, &it->usage, verified_one, it);
}

/* ---------------------------------------------------------------- answer_correctness */

/* One record's two parts, the judge's verdicts and the similarity, in whichever order they come. */
typedef struct corr_item {
	tool *t;
	int left;                 /* parts still to come */
	jv verdicts;              /* null until judged, or on failure */
	double similarity;        /* NAN: not used (weight 0) or failed */
	const char *similarity_from;  /* "rag-embsim" (the record's scores.semantic_similarity), "embedder" */
	char *error;              /* the first failure */
} corr_item;

static void correctness_fail(rag_item *it, const char *error)
{
	it->rec = rag_record_set(it->rec, "verdicts", "answer_correctness", jv_null());
	it->rec = rag_record_set(it->rec, "scores", "answer_correctness", jv_null());
	it->rec = rag_record_error(it->rec, "rag-verify", "answer_correctness", "%s", error);
	rag_item_remote_error(it, error);
}

static void correctness_done(rag_item *it)
{
	corr_item *ci = it->data;
	const rag_verify_conf *vc = &ci->t->cli->cfg.verify;
	if (ci->error) {
		correctness_fail(it, ci->error);
		jv_free(ci->verdicts);
	} else {
		int n = jv_array_length(jv_copy(ci->verdicts)), i, tp = 0, fp = 0, fn = 0;
		double f1, score;
		jv parts;
		for (i = 0; i < n; i++) {
			jv c = jv_object_get(jv_array_get(jv_copy(ci->verdicts), i), jv_string("class"));
			const char *k = jv_string_value(c);
			tp += strcmp(k, "tp") == 0;
			fp += strcmp(k, "fp") == 0;
			fn += strcmp(k, "fn") == 0;
			jv_free(c);
		}
		f1 = rag_correctness_f1(tp, fp, fn);
		score = rag_correctness_score(f1, ci->similarity, vc->factual_weight, vc->similarity_weight);
		parts = JV_OBJECT(jv_string("factual"), jv_number(f1), jv_string("tp"), jv_number(tp),
		                  jv_string("fp"), jv_number(fp), jv_string("fn"), jv_number(fn),
		                  jv_string("similarity"), isnan(ci->similarity) ? jv_null() : jv_number(ci->similarity),
		                  jv_string("weights"), JV_ARRAY(jv_number(vc->factual_weight), jv_number(vc->similarity_weight)));
		if (ci->similarity_from) parts = jv_object_set(parts, jv_string("similarity_from"), jv_string(ci->similarity_from));
		it->rec = rag_record_set(it->rec, "verdicts", "answer_correctness", ci->verdicts);
		it->rec = rag_record_set(it->rec, "scores", "answer_correctness", jv_number(score));
		it->rec = rag_record_set(it->rec, "parts", "answer_correctness", parts);
	}
	free(ci->error);
	it->data = ci->t;
	free(ci);
	rag_item_release(it);
}

static void correctness_judged(void *arg, jv result, const char *error)
{
	rag_item *it = arg;
	corr_item *ci = it->data;
	if (error && !ci->error) ci->error = rag_xstrdup(error);
	jv_free(ci->verdicts);
	ci->verdicts = result;
	if (--ci->left == 0) correctness_done(it);
}

static void correctness_embedded(void *arg, jv vectors, const char *error)
{
	rag_item *it = arg;
	corr_item *ci = it->data;
	char err[RAG_ERRLEN];
	double c;
	if (error) {
		if (!ci->error) ci->error = rag_xasprintf("similarity: %s", error);
	} else {
		jv a = jv_array_get(jv_copy(vectors), 0), b = jv_array_get(jv_copy(vectors), 1);
		if (rag_vec_cosine_jv(a, b, &c, err, sizeof err) < 0) {
			if (!ci->error) ci->error = rag_xasprintf("similarity: %s", err);
		} else {
			/* as rag-embsim: a negative cosine is no similarity */
			ci->similarity = c < 0 ? 0 : c > 1 ? 1 : c;
		}
		jv_free(a);
		jv_free(b);
	}
	jv_free(vectors);
	if (--ci->left == 0) correctness_done(it);
}

/* claims.<field>, or the text's sentences when the record has none: 0, or -1 after the error. */
static int correctness_claims(rag_item *it, tool *t, const char *field, const char *text, jv *out)
{
	int upstream;
	jv c;
	if (!t->claims_given && claims_absent(it->rec, field)) {
		*out = sentences(text);
		return 0;
	}
	c = record_claims(it->rec, field, &upstream);
	if (!jv_is_valid(c)) {
		jv m = jv_invalid_get_msg(c);
		it->rec = rag_record_set(it->rec, "verdicts", "answer_correctness", jv_null());
		it->rec = rag_record_set(it->rec, "scores", "answer_correctness", jv_null());
		if (upstream) it->rec = rag_record_error(it->rec, "rag-verify", "answer_correctness", "%s", jv_string_value(m));
		else rag_item_input_error(it, "rag-verify", "answer_correctness", "%s", jv_string_value(m));
		jv_free(m);
		return -1;
	}
	*out = c;
	return 0;
}

static void correctness_start(rag_item *it, tool *t)
{
	const char *ref, *ans, *question, *metric = "answer_correctness";
	char why[RAG_ERRLEN];
	jv aclaims, rclaims, sim;
	corr_item *ci;

	if (rag_record_text(it->rec, "reference", &ref, why, sizeof why) < 0 ||
	    rag_record_text(it->rec, "answer", &ans, why, sizeof why) < 0 ||
	    rag_item_question(it, &question, why, sizeof why) < 0) {
		it->rec = rag_record_set(it->rec, "verdicts", metric, jv_null());
		it->rec = rag_record_set(it->rec, "scores", metric, jv_null());
		rag_item_input_error(it, "rag-verify", metric, "%s", why);
		return;
	}
	{
		jv rv = rag_record_get(it->rec, "reference");
		jv_kind rk = jv_get_kind(rv);
		jv_free(rv);
		if (rk != JV_KIND_INVALID && rk != JV_KIND_NULL && rk != JV_KIND_STRING) {
			/* a reference that is not a text is broken input, not a missing one (as context recall) */
			it->rec = rag_record_set(it->rec, "verdicts", metric, jv_null());
			it->rec = rag_record_set(it->rec, "scores", metric, jv_null());
			rag_item_input_error(it, "rag-verify", metric, "field \"reference\" is %s, not a string", jv_kind_name(rk));
			return;
		}
	}
	if (!ref || !*ref) {
		rag_item_not_applicable(it, metric, "no reference answer");
		return;
	}
	if (!ans) {
		it->rec = rag_record_set(it->rec, "verdicts", metric, jv_null());
		it->rec = rag_record_set(it->rec, "scores", metric, jv_null());
		rag_record_need_text(it->rec, "answer", 0, &ans, why, sizeof why);
		rag_item_input_error(it, "rag-verify", metric, "%s: answer_correctness judges the answer against "
		                     "the reference", why);
		return;
	}
	if (correctness_claims(it, t, "answer", ans, &aclaims) < 0) return;
	if (correctness_claims(it, t, "reference", ref, &rclaims) < 0) {
		jv_free(aclaims);
		return;
	}
	rag_cli_self_check(t->cli, it->rec);
	ci = rag_xcalloc(1, sizeof *ci);
	ci->t = t;
	ci->verdicts = jv_null();
	ci->similarity = NAN;
	ci->left = 1;
	it->data = ci;
	rag_item_hold(it);
	sim = rag_json_get(rag_json_get(jv_copy(it->rec), "scores"), "semantic_similarity");
	if (t->cli->cfg.verify.similarity_weight > 0 && jv_get_kind(sim) == JV_KIND_NUMBER) {
		/* rag-embsim --pair answer,reference ran before: its number, not a second embedding */
		double v = jv_number_value(sim);
		ci->similarity = v < 0 ? 0 : v > 1 ? 1 : v;
		ci->similarity_from = "rag-embsim";
	} else if (t->cli->cfg.verify.similarity_weight > 0 && !t->cli->estimate) {
		/* (--estimate sends nothing, to the embedder neither: its requests are not counted) */
		ci->similarity_from = "embedder";
		ci->left++;
		rag_embed_texts(t->emb, JV_ARRAY(jv_string(ans), jv_string(ref)), correctness_embedded, it);
	}
	jv_free(sim);
	rag_correctness_ask(t->cli->judge, rag_cli_lang(t->cli, question && *question ? question : ref), question,
	                    ans, ref, aclaims, rclaims, &it->usage, correctness_judged, it);
}

static int run(void *ctx, int fd, double timeout)
{
	tool *t = ctx;
	if (!t->emb_remote) return rag_judge_run(t->cli->judge, fd, timeout);
	/* two endpoints' transfers: the embedder's without waiting, then a short wait on the judge's.
	 * What it has gathered goes at once: its records wait on the judge too, and its requests are
	 * not among --estimate's */
	rag_embed_run(t->emb, RAG_STREAM_ENDED, 0);
	return rag_judge_run(t->cli->judge, fd, timeout < 0.02 ? timeout : 0.02);
}

static void cancel(void *ctx)
{
	tool *t = ctx;
	if (t->emb) rag_embed_cancel(t->emb, "interrupted before the embeddings came");
}

/* ---------------------------------------------------------------- the record */

static void start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	jv claims, contexts;
	const char *question;
	char why[RAG_ERRLEN];
	int upstream;

	it->data = t;
	it->stage = t->metric;
	if (rag_record_expects_refusal(it->rec) && !t->chunks &&
	    (!strcmp(t->metric, "answer_correctness") || !strcmp(t->metric, "context_recall"))) {
		/* no answer to compare with: declining is right, and rag-kw's refusal says whether it did */
		set_null(it, t);
		rag_item_not_applicable(it, t->metric, RAG_NA_UNANSWERABLE);
		return;
	}
	if (t->chunks && rag_record_expects_refusal(it->rec)) {
		/* no chunk can hold the answer (precision), and the right answer uses none (utilization) */
		const char *metric = t->metric_given ? t->metric : "context_precision";
		it->rec = rag_record_set(it->rec, "verdicts", metric, jv_null());
		rag_item_not_applicable(it, metric, RAG_NA_UNANSWERABLE);
		return;
	}
	if (t->chunks) {
		chunks_start(it, t);
		return;
	}
	if (strcmp(t->metric, "answer_correctness") == 0) {
		correctness_start(it, t);
		return;
	}
	if (t->one_request) {
		one_request_start(it, t);
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
	if (strcmp(t->metric, "context_recall") == 0 && !t->claims_given && claims_absent(it->rec, t->claims_field))
		/* the one-request path: the reference's sentences stand for its claims */
		claims = sentences(rag_record_str(it->rec, "reference"));
	else
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
	if (rag_item_question(it, &question, why, sizeof why) < 0) {
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

/* The command line's own flags, before they go into the configuration. */
typedef struct flags {
	int recheck, literal, mode;    /* mode: RAG_VERIFY_*, -1 for the configuration's */
	long batch_claims, batch_chars;
	double wf, ws;                 /* --weights F,S; -1: not given */
} flags;

static int metric_known(const char *m)
{
	return !strcmp(m, "faithfulness") || !strcmp(m, "context_recall") || !strcmp(m, "context_precision") ||
	       !strcmp(m, "context_utilization") || !strcmp(m, "answer_correctness");
}

/* --mode's value as RAG_VERIFY_*, or -1 for none of them. */
static int parse_mode(const char *arg)
{
	if (strcmp(arg, "batched") == 0) return RAG_VERIFY_BATCHED;
	if (strcmp(arg, "claim") == 0) return RAG_VERIFY_CLAIM;
	if (strcmp(arg, "claim_chunk") == 0) return RAG_VERIFY_CLAIM_CHUNK;
	return -1;
}

/* --weights F,S into f->wf and f->ws; -1 when it is not two numbers from 0 to 1000, not both 0. */
static int parse_weights(const char *arg, flags *f)
{
	char *end, *comma;
	f->wf = strtod(arg, &end);
	comma = end;
	f->ws = *end == ',' ? strtod(comma + 1, &end) : -1;
	if (*end || comma == arg || end == comma + 1 || !(f->wf >= 0 && f->wf <= 1000) ||
	    !(f->ws >= 0 && f->ws <= 1000) || f->wf + f->ws <= 0)
		return -1;
	return 0;
}

/* One option of the tool's own: 0 taken, else the exit status (*done: return it). */
static int tool_option(rag_cli *cli, tool *t, flags *f, int opt, const char *arg, int *done)
{
	*done = 1;
	switch (opt) {
	case OPT_METRIC:
		if (!metric_known(arg)) {
			rag_msg(cli->prog, "error", "--metric must be faithfulness, context_recall, context_precision, "
			        "context_utilization or answer_correctness, not \"%s\"", arg);
			return rag_cli_misuse(cli);
		}
		t->metric = arg;
		t->metric_given = 1;
		break;
	case OPT_CHUNKS: t->chunks = 1; break;
	case OPT_ONE_REQUEST: t->one_request = 1; break;
	case OPT_CLAIMS: t->claims_field = arg; t->claims_given = 1; break;
	case OPT_MODE:
		if ((f->mode = parse_mode(arg)) < 0) {
			rag_msg(cli->prog, "error", "--mode must be batched, claim or claim_chunk, not \"%s\"", arg);
			return rag_cli_misuse(cli);
		}
		break;
	case OPT_WEIGHTS:
		if (parse_weights(arg, f) < 0) {
			rag_msg(cli->prog, "error", "--weights must be two numbers F,S from 0 to 1000, not both 0 "
			        "(such as 0.75,0.25), not \"%s\"", arg);
			return rag_cli_misuse(cli);
		}
		break;
	case OPT_RECHECK: f->recheck = 1; break;
	case OPT_LITERAL: f->literal = 1; break;
	case OPT_BATCH_CLAIMS:
		if (rag_cli_int(cli, "--batch-claims", arg, 1, 1000, &f->batch_claims)) return rag_cli_misuse(cli);
		break;
	case OPT_BATCH_CHARS:
		if (rag_cli_int(cli, "--batch-chars", arg, 100, 100000000, &f->batch_chars)) return rag_cli_misuse(cli);
		break;
	default:
		return rag_cli_option(cli, opt, arg, done);
	}
	*done = 0;
	return 0;
}

/* The options that do not go together: 0, or a message and the misuse status. */
static int check_combinations(rag_cli *cli, const tool *t, const flags *f)
{
	int chunk_metric = strcmp(t->metric, "context_precision") == 0 || strcmp(t->metric, "context_utilization") == 0;
	if (t->chunks && t->metric_given && !chunk_metric) {
		rag_msg(cli->prog, "error", "--chunks judges chunks: --metric must be context_precision or context_utilization");
		return rag_cli_misuse(cli);
	}
	if (!t->chunks && chunk_metric) {
		rag_msg(cli->prog, "error", "--metric %s needs --chunks", t->metric);
		return rag_cli_misuse(cli);
	}
	if (t->chunks && (t->claims_field || f->recheck || f->literal || f->batch_claims || f->mode >= 0)) {
		rag_msg(cli->prog, "error", "--chunks judges chunks, not claims: --claims, --recheck, --literal, "
		        "--batch-claims and --mode do not apply");
		return rag_cli_misuse(cli);
	}
	if (t->one_request && (strcmp(t->metric, "faithfulness") || t->chunks || t->claims_field || f->recheck ||
	                       f->literal || f->batch_claims || f->batch_chars || f->mode >= 0)) {
		rag_msg(cli->prog, "error", "--one-request is for --metric faithfulness (context recall takes one request "
		        "without claims.reference already); --chunks, --claims, --recheck, --literal, --batch-claims, "
		        "--batch-chars and --mode do not apply");
		return rag_cli_misuse(cli);
	}
	if (f->wf >= 0 && strcmp(t->metric, "answer_correctness")) {
		rag_msg(cli->prog, "error", "--weights is for --metric answer_correctness");
		return rag_cli_misuse(cli);
	}
	if (strcmp(t->metric, "answer_correctness") == 0 && (t->claims_field || f->recheck || f->literal || f->mode >= 0)) {
		rag_msg(cli->prog, "error", "--metric answer_correctness reads claims.answer and claims.reference: "
		        "--claims, --recheck, --literal and --mode do not apply");
		return rag_cli_misuse(cli);
	}
	return 0;
}

/* The prompts the run needs, by what it judges. */
static void choose_prompts(rag_cli *cli, const tool *t)
{
	static const rag_op *const chunks[] = {&rag_op_chunks, NULL}, *const correctness[] = {&rag_op_correctness, NULL},
	                          *const verifier[] = {&rag_op_verifier, NULL}, *const verify[] = {&rag_op_verify, NULL},
	                          *const one[] = {&rag_op_faithfulness, &rag_op_claims, NULL};
	if (t->chunks) cli->ops = chunks;
	else if (t->one_request) cli->ops = one;
	else if (strcmp(t->metric, "answer_correctness") == 0) cli->ops = correctness;
	else if (cli->cfg.verify.mode != RAG_VERIFY_BATCHED) cli->ops = verifier;
	else cli->ops = verify;
}

/* answer_correctness's embedder for the similarity part: 0, or the exit status. */
static int make_embedder(rag_cli *cli, tool *t)
{
	char err[RAG_ERRLEN], notice[RAG_ERRLEN];
	if (!(t->emb = rag_embed_new(&cli->cfg, notice, sizeof notice, err, sizeof err))) {
		rag_msg(cli->prog, "error", "%s", err);
		return RAG_EXIT_USAGE;
	}
	t->emb_remote = strcmp(rag_embed_name(t->emb), "offline") != 0;
	/* an offline judge said it is offline already: the embedder's notice would say it again */
	if (notice[0] && !rag_judge_offline(cli->judge) && !cli->quiet) rag_msg(cli->prog, "notice", "%s", notice);
	if (cli->verbose) rag_msg(cli->prog, "info", "similarity by the embedder %s", rag_embed_name(t->emb));
	return 0;
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	flags f = {0, 0, -1, 0, 0, -1, -1};
	rag_stream_ops ops = {start, NULL, run, cancel};
	int opt, rc, done;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-verify";
	cli.usage = usage;
	cli.opts = options;
	cli.judge_opts = 1;
	t.cli = &cli;
	t.metric = "faithfulness";
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		rc = tool_option(&cli, &t, &f, opt, optarg, &done);
		if (rc || done) return rc;
	}
	if ((rc = rag_cli_no_operands(&cli, argc, argv))) return rc;
	if ((rc = check_combinations(&cli, &t, &f))) return rc;
	if (!t.claims_field)
		t.claims_field = strcmp(t.metric, "context_recall") == 0 ? "reference" : "answer";
	if ((rc = rag_cli_config(&cli))) {
		rag_cli_free(&cli);
		return rc;
	}
	if (f.mode >= 0) cli.cfg.verify.mode = f.mode;
	if (f.wf >= 0) {
		cli.cfg.verify.factual_weight = f.wf;
		cli.cfg.verify.similarity_weight = f.ws;
	}
	if (cli.cfg.verify.factual_weight + cli.cfg.verify.similarity_weight <= 0 &&
	    strcmp(t.metric, "answer_correctness") == 0) {
		rag_msg(cli.prog, "error", "verify.factual_weight and verify.similarity_weight are both 0");
		rag_cli_free(&cli);
		return RAG_EXIT_USAGE;
	}
	choose_prompts(&cli, &t);
	if (f.recheck) cli.cfg.verify.recheck_chunks = 1;
	if (f.literal) cli.cfg.verify.literal_match = 1;
	if (f.batch_claims) cli.cfg.verify.batch_claims = (int)f.batch_claims;
	if (f.batch_chars) cli.cfg.verify.batch_chars = (int)f.batch_chars;
	if ((rc = rag_cli_judge(&cli))) {
		rag_cli_free(&cli);
		return rc;
	}
	if (!t.chunks && !t.one_request && strcmp(t.metric, "answer_correctness") && cli.cfg.verify.mode != RAG_VERIFY_BATCHED &&
	    rag_judge_offline(cli.judge) && !cli.quiet)
		rag_msg(cli.prog, "notice", "verify.mode %s needs a verifier model at an LLM endpoint; the offline "
		        "judge checks the claims instead", cli.cfg.verify.mode == RAG_VERIFY_CLAIM ? "claim" : "claim_chunk");
	if (strcmp(t.metric, "answer_correctness") == 0 && cli.cfg.verify.similarity_weight > 0 &&
	    (rc = make_embedder(&cli, &t))) {
		rag_cli_free(&cli);
		return rc;
	}
	rc = rag_cli_run(&cli, &ops, &t);
	rag_embed_free(t.emb);
	rag_cli_free(&cli);
	return rc;
}
