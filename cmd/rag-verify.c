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

/* rag-verify judges a record in one of four modes, chosen once from the options (choose_mode):
 * its claims against the contexts (faithfulness, context recall), the answer split and judged
 * in one request (--one-request), the answer's and the reference's claims against each other
 * (answer_correctness), or the chunks (--chunks). A mode is its fields (what the record must
 * hold, read once, or why it cannot be judged), its operation and its output; the record's
 * step (start) is the same for all four. */
typedef struct mode mode;

typedef struct tool {
	rag_cli *cli;
	const mode *mode;
	const char *metric;
	const char *claims_field;
	const char *refusal_metric;   /* the metric an unanswerable record is not applicable to, or NULL */
	int chunks;               /* --chunks: judge the chunks, not claims */
	int metric_given;         /* --metric was given (with --chunks: no choice by record) */
	int claims_given;         /* --claims was given: no sentences in place of absent claims */
	int one_request;          /* --one-request: faithfulness claims and verdicts asked together */
	rag_embed *emb;           /* answer_correctness: the similarity, when the record lacks it */
	int emb_remote;           /* emb talks to an endpoint: the run loop drives it too */
} tool;

/* What a mode's fields found in one record: the metric it is judged for, and the operation's
 * inputs (texts borrowed from the record, arrays owned until the operation takes them). */
typedef struct fields {
	const char *metric;
	const char *question, *answer, *reference, *target, *lang_from;
	jv claims, rclaims, contexts;
} fields;

/* Why a record is not judged: its verdicts and score are null, and an input error, an upstream
 * stage's failure, or not applicable (NA_BARE: the score alone null, as answer_correctness
 * without a reference has always written). */
enum { JUDGE = 0, BAD_INPUT, UPSTREAM, NA, NA_BARE };

/* One record being judged: its tool, its metric, and answer_correctness's two parts (the
 * judge's verdicts and the similarity, in whichever order they come). */
typedef struct vitem {
	tool *t;
	const char *metric;
	int left;                 /* parts still to come */
	jv verdicts;              /* null until judged, or on failure */
	double similarity;        /* NAN: not used (weight 0) or failed */
	const char *similarity_from;  /* "rag-embsim" (the record's scores.semantic_similarity), "embedder" */
	char *error;              /* the first failure */
} vitem;

struct mode {
	const rag_op *const *ops;     /* the prompts it loads */
	/* The record's fields into f: JUDGE, or why not, with the message in why. */
	int (*fields)(const tool *t, rag_item *it, fields *f, char *why, size_t n);
	/* Ask the operation; its callback ends in judged or failed, exactly once. */
	void (*ask)(tool *t, rag_item *it, vitem *vi, fields *f);
	/* The operation's result (consumed) into the record. */
	void (*write)(rag_item *it, vitem *vi, jv result);
};

static void set_null(rag_item *it, const char *metric)
{
	it->rec = rag_record_set(it->rec, "verdicts", metric, jv_null());
	it->rec = rag_record_set(it->rec, "scores", metric, jv_null());
}

static void not_judged(rag_item *it, const char *metric, int why_not, const char *why)
{
	if (why_not != NA_BARE) set_null(it, metric);
	if (why_not == BAD_INPUT) rag_item_input_error(it, "rag-verify", metric, "%s", why);
	else if (why_not == UPSTREAM) it->rec = rag_record_error(it->rec, "rag-verify", metric, "%s", why);
	else rag_item_not_applicable(it, metric, why);
}

static void item_done(rag_item *it, vitem *vi)
{
	it->data = vi->t;
	free(vi->error);
	free(vi);
	rag_item_release(it);
}

static void failed(rag_item *it, vitem *vi, const char *error)
{
	set_null(it, vi->metric);
	it->rec = rag_record_error(it->rec, "rag-verify", vi->metric, "%s", error);
	rag_item_remote_error(it, error);
	item_done(it, vi);
}

/* The operation's callback: its result written by the mode, or its failure. */
static void judged(void *arg, jv result, const char *error)
{
	rag_item *it = arg;
	vitem *vi = it->data;
	if (error) {
		jv_free(result);
		failed(it, vi, error);
		return;
	}
	vi->t->mode->write(it, vi, result);
	item_done(it, vi);
}

/* The record's language: the question's, else the text the mode names. */
static const char *lang(const tool *t, const fields *f)
{
	return rag_cli_lang(t->cli, f->question && *f->question ? f->question : f->lang_from);
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

/* The record's claims of field into *out: claims.<field>, or where the record has none, --claims
 * did not ask for them and there is a text, the text's sentences. JUDGE, or why not. */
static int claims_of(const tool *t, jv rec, const char *field, const char *text, jv *out, char *why, size_t n)
{
	int state;
	jv m;
	*out = rag_record_claims(rec, field, &state);
	if (state == RAG_CLAIMS_ABSENT && text && !t->claims_given) {
		jv_free(*out);
		*out = sentences(text);
		return JUDGE;
	}
	if (state == RAG_CLAIMS_OK) return JUDGE;
	m = jv_invalid_get_msg(*out);
	*out = jv_null();
	snprintf(why, n, "%s", jv_string_value(m));
	jv_free(m);
	return state == RAG_CLAIMS_FAILED ? UPSTREAM : BAD_INPUT;
}

/* The record's contexts into f: JUDGE, or BAD_INPUT and why. */
static int contexts_of(jv rec, fields *f, char *why, size_t n)
{
	jv m;
	f->contexts = rag_record_contexts(rec);
	if (jv_is_valid(f->contexts)) return JUDGE;
	m = jv_invalid_get_msg(f->contexts);
	f->contexts = jv_null();
	snprintf(why, n, "%s", jv_string_value(m));
	jv_free(m);
	return BAD_INPUT;
}

/* ---------------------------------------------------------------- the claims (faithfulness, context recall) */

static int claims_fields(const tool *t, rag_item *it, fields *f, char *why, size_t n)
{
	const char *ref = NULL;
	int rc;
	if (strcmp(f->metric, "context_recall") == 0) {
		/* a reference that is there but not a text is broken input, not a missing one */
		if (rag_record_need_text(it->rec, "reference", RAG_FIELD_OPTIONAL, &ref, why, n) < 0) {
			/* claims.reference null: the claims stage failed on this reference before */
			jv_free(rag_record_claims(it->rec, t->claims_field, &rc));
			return rc == RAG_CLAIMS_FAILED ? UPSTREAM : BAD_INPUT;
		}
		if (!ref || !*ref) {
			/* no reference answer: context recall does not apply (rag(7) NOT APPLICABLE), whether
			 * rag-claims --from reference said so already or not */
			snprintf(why, n, "no reference answer");
			return NA;
		}
	}
	/* context recall without claims.reference: the reference's sentences stand for its claims */
	if ((rc = claims_of(t, it->rec, t->claims_field, ref, &f->claims, why, n)) != JUDGE ||
	    (rc = contexts_of(it->rec, f, why, n)) != JUDGE)
		return rc;
	if (rag_item_question(it, &f->question, why, n) < 0) return BAD_INPUT;
	/* without a question, the claims tell the language */
	f->lang_from = "";
	if (jv_array_length(jv_copy(f->claims))) {
		jv first = jv_array_get(jv_copy(f->claims), 0);
		f->lang_from = jv_string_value(first);   /* lives in f->claims */
		jv_free(first);
	}
	return JUDGE;
}

static void claims_ask(tool *t, rag_item *it, vitem *vi, fields *f)
{
	rag_verify_ask(t->cli->judge, lang(t, f), f->question, f->claims,
	               f->contexts, &it->usage, judged, it);
}

static void claims_write(rag_item *it, vitem *vi, jv result)
{
	double score;
	int none = rag_verify_score(result, &score) < 0;
	it->rec = rag_record_set(it->rec, "verdicts", vi->metric, result);
	if (none)   /* nothing claimed is nothing to score, not a faithful answer: no free 1 */
		rag_item_not_applicable(it, vi->metric, strcmp(vi->metric, "context_recall")
		                        ? "the answer makes no checkable claim" : "the reference makes no checkable claim");
	else
		it->rec = rag_record_set(it->rec, "scores", vi->metric, jv_number(score));
}

/* ---------------------------------------------------------------- faithfulness in one request */

static int one_fields(const tool *t, rag_item *it, fields *f, char *why, size_t n)
{
	if (rag_record_text(it->rec, "answer", &f->answer, why, n) < 0 ||
	    rag_item_question(it, &f->question, why, n) < 0)
		return BAD_INPUT;
	if (!f->answer) {
		size_t len;
		rag_record_need_text(it->rec, "answer", 0, &f->answer, why, n);
		len = strlen(why);
		snprintf(why + len, n - len, ": --one-request splits the answer into claims");
		return BAD_INPUT;
	}
	f->lang_from = f->answer;
	return contexts_of(it->rec, f, why, n);
}

static void one_ask(tool *t, rag_item *it, vitem *vi, fields *f)
{
	rag_verify_answer_ask(t->cli->judge, lang(t, f), f->question, f->answer, f->contexts,
	                      t->cli->cfg.verify.max_claims, &it->usage, judged, it);
}

/* The claims the judge found go into claims.answer too, unless an earlier stage wrote some. */
static void one_write(rag_item *it, vitem *vi, jv result)
{
	int state;
	jv_free(rag_record_claims(it->rec, "answer", &state));
	if (state == RAG_CLAIMS_ABSENT) {
		jv claims = jv_array();
		int n = jv_array_length(jv_copy(result)), i;
		for (i = 0; i < n; i++)
			claims = jv_array_append(claims, jv_object_get(jv_array_get(jv_copy(result), i), jv_string("claim")));
		it->rec = rag_record_set(it->rec, "claims", "answer", claims);
	}
	claims_write(it, vi, result);
}

/* ---------------------------------------------------------------- answer_correctness */

static int correctness_fields(const tool *t, rag_item *it, fields *f, char *why, size_t n)
{
	int rc;
	/* a reference that is there but not a text is broken input, not a missing one */
	if (rag_record_text(it->rec, "answer", &f->answer, why, n) < 0 ||
	    rag_item_question(it, &f->question, why, n) < 0 ||
	    rag_record_need_text(it->rec, "reference", RAG_FIELD_OPTIONAL, &f->reference, why, n) < 0)
		return BAD_INPUT;
	if (!f->reference || !*f->reference) {
		snprintf(why, n, "no reference answer");
		return NA_BARE;
	}
	if (!f->answer) {
		size_t len;
		rag_record_need_text(it->rec, "answer", 0, &f->answer, why, n);
		len = strlen(why);
		snprintf(why + len, n - len, ": answer_correctness judges the answer against the reference");
		return BAD_INPUT;
	}
	f->lang_from = f->reference;
	if ((rc = claims_of(t, it->rec, "answer", f->answer, &f->claims, why, n)) != JUDGE) return rc;
	return claims_of(t, it->rec, "reference", f->reference, &f->rclaims, why, n);
}

/* One of answer_correctness's two parts has come: the record is written after the last. */
static void correctness_part(rag_item *it, vitem *vi)
{
	if (--vi->left) return;
	if (vi->error) {
		jv_free(vi->verdicts);
		failed(it, vi, vi->error);
		return;
	}
	vi->t->mode->write(it, vi, vi->verdicts);
	item_done(it, vi);
}

static void correctness_judged(void *arg, jv result, const char *error)
{
	rag_item *it = arg;
	vitem *vi = it->data;
	if (error && !vi->error) vi->error = rag_xstrdup(error);
	jv_free(vi->verdicts);
	vi->verdicts = result;
	correctness_part(it, vi);
}

static void correctness_embedded(void *arg, jv vectors, const char *error)
{
	rag_item *it = arg;
	vitem *vi = it->data;
	char err[RAG_ERRLEN];
	double c;
	if (error) {
		if (!vi->error) vi->error = rag_xasprintf("similarity: %s", error);
	} else {
		jv a = jv_array_get(jv_copy(vectors), 0), b = jv_array_get(jv_copy(vectors), 1);
		if (rag_vec_cosine_jv(a, b, &c, err, sizeof err) < 0) {
			if (!vi->error) vi->error = rag_xasprintf("similarity: %s", err);
		} else {
			/* as rag-embsim: a negative cosine is no similarity */
			vi->similarity = c < 0 ? 0 : c > 1 ? 1 : c;
		}
		jv_free(a);
		jv_free(b);
	}
	jv_free(vectors);
	correctness_part(it, vi);
}

static void correctness_ask(tool *t, rag_item *it, vitem *vi, fields *f)
{
	jv sim = rag_json_get(rag_json_get(jv_copy(it->rec), "scores"), "semantic_similarity");
	vi->verdicts = jv_null();
	vi->similarity = NAN;
	vi->left = 1;
	if (t->cli->cfg.verify.similarity_weight > 0 && jv_get_kind(sim) == JV_KIND_NUMBER) {
		/* rag-embsim --pair answer,reference ran before: its number, not a second embedding */
		double v = jv_number_value(sim);
		vi->similarity = v < 0 ? 0 : v > 1 ? 1 : v;
		vi->similarity_from = "rag-embsim";
	} else if (t->cli->cfg.verify.similarity_weight > 0 && !t->cli->estimate) {
		/* (--estimate sends nothing, to the embedder neither: its requests are not counted) */
		vi->similarity_from = "embedder";
		vi->left++;
		rag_embed_texts(t->emb, JV_ARRAY(jv_string(f->answer), jv_string(f->reference)), correctness_embedded, it);
	}
	jv_free(sim);
	rag_correctness_ask(t->cli->judge, lang(t, f), f->question, f->answer, f->reference, f->claims, f->rclaims,
	                    &it->usage, correctness_judged, it);
}

static void correctness_write(rag_item *it, vitem *vi, jv verdicts)
{
	const rag_verify_conf *vc = &vi->t->cli->cfg.verify;
	int n = jv_array_length(jv_copy(verdicts)), i, tp = 0, fp = 0, fn = 0;
	double f1, score;
	jv parts;
	for (i = 0; i < n; i++) {
		jv c = jv_object_get(jv_array_get(jv_copy(verdicts), i), jv_string("class"));
		const char *k = jv_string_value(c);
		tp += strcmp(k, "tp") == 0;
		fp += strcmp(k, "fp") == 0;
		fn += strcmp(k, "fn") == 0;
		jv_free(c);
	}
	f1 = rag_correctness_f1(tp, fp, fn);
	score = rag_correctness_score(f1, vi->similarity, vc->factual_weight, vc->similarity_weight);
	parts = JV_OBJECT(jv_string("factual"), jv_number(f1), jv_string("tp"), jv_number(tp),
	                  jv_string("fp"), jv_number(fp), jv_string("fn"), jv_number(fn),
	                  jv_string("similarity"), isnan(vi->similarity) ? jv_null() : jv_number(vi->similarity),
	                  jv_string("weights"), JV_ARRAY(jv_number(vc->factual_weight), jv_number(vc->similarity_weight)));
	if (vi->similarity_from) parts = jv_object_set(parts, jv_string("similarity_from"), jv_string(vi->similarity_from));
	it->rec = rag_record_set(it->rec, "verdicts", vi->metric, verdicts);
	it->rec = rag_record_set(it->rec, "scores", vi->metric, jv_number(score));
	it->rec = rag_record_set(it->rec, "parts", vi->metric, parts);
}

/* ---------------------------------------------------------------- the chunks */

static int chunks_fields(const tool *t, rag_item *it, fields *f, char *why, size_t n)
{
	const char *ref, *ans;
	if (rag_record_text(it->rec, "reference", &ref, why, n) < 0 ||
	    rag_record_text(it->rec, "answer", &ans, why, n) < 0 ||
	    rag_item_question(it, &f->question, why, n) < 0) {
		/* the record's metric is the one its reference would have chosen */
		if (!t->metric_given) f->metric = rag_record_str(it->rec, "reference") ? "context_precision" : "context_utilization";
		return BAD_INPUT;
	}
	if (ref && !*ref) ref = NULL;
	if (ans && !*ans) ans = NULL;
	if (!t->metric_given) f->metric = ref ? "context_precision" : "context_utilization";
	it->stage = f->metric;
	f->reference = ref;
	f->target = f->lang_from = strcmp(f->metric, "context_precision") == 0 ? ref : ans;
	if (!f->target) {
		size_t len;
		if (!t->metric_given) {
			snprintf(why, n, "record has neither a reference nor an answer to judge the chunks against");
			return BAD_INPUT;
		}
		if (strcmp(f->metric, "context_precision") == 0) {
			snprintf(why, n, "no reference answer");   /* by its definition */
			return NA;
		}
		rag_record_need_text(it->rec, "answer", RAG_FIELD_NONEMPTY, &ans, why, n);
		len = strlen(why);
		snprintf(why + len, n - len, ": context utilization judges the chunks against the answer");
		return BAD_INPUT;
	}
	return contexts_of(it->rec, f, why, n);
}

static void chunks_ask(tool *t, rag_item *it, vitem *vi, fields *f)
{
	rag_chunks_ask(t->cli->judge, lang(t, f), f->question, f->target, strcmp(f->metric, "context_precision") == 0,
	               f->contexts, &it->usage, judged, it);
}

/* The score is rag-ap's context precision of the verdicts (rank.c). */
static void chunks_write(rag_item *it, vitem *vi, jv result)
{
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
	it->rec = rag_record_set(it->rec, "verdicts", vi->metric, result);
	it->rec = rag_record_set(it->rec, "scores", vi->metric, jv_number(v));
}

/* ---------------------------------------------------------------- the modes */

static const rag_op *const ops_verify[] = {&rag_op_verify, NULL}, *const ops_verifier[] = {&rag_op_verifier, NULL},
                        *const ops_one[] = {&rag_op_faithfulness, &rag_op_claims, NULL},
                        *const ops_correctness[] = {&rag_op_correctness, NULL}, *const ops_chunks[] = {&rag_op_chunks, NULL};
static const mode mode_claims = {ops_verify, claims_fields, claims_ask, claims_write},
                  mode_verifier = {ops_verifier, claims_fields, claims_ask, claims_write},
                  mode_one = {ops_one, one_fields, one_ask, one_write},
                  mode_correctness = {ops_correctness, correctness_fields, correctness_ask, correctness_write},
                  mode_chunks = {ops_chunks, chunks_fields, chunks_ask, chunks_write};

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

/* One record, whatever the mode: its fields, then its operation, or why it is not judged. */
static void start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	fields f = {t->metric, NULL, NULL, NULL, NULL, NULL, jv_null(), jv_null(), jv_null()};
	char why[RAG_ERRLEN];
	int rc;
	vitem *vi;

	it->data = t;
	it->stage = t->metric;
	if (t->refusal_metric && rag_record_expects_refusal(it->rec)) {
		/* no answer to compare with, no chunk can hold it: declining is right, and rag-kw's
		 * refusal says whether it did */
		f.metric = t->refusal_metric;
		snprintf(why, sizeof why, "%s", RAG_NA_UNANSWERABLE);
		rc = NA;
	} else {
		rc = t->mode->fields(t, it, &f, why, sizeof why);
	}
	if (rc != JUDGE) {
		jv_free(f.claims);
		jv_free(f.rclaims);
		jv_free(f.contexts);
		not_judged(it, f.metric, rc, why);
		return;
	}
	rag_cli_self_check(t->cli, it->rec);
	vi = rag_xcalloc(1, sizeof *vi);
	vi->t = t;
	vi->metric = f.metric;
	it->data = vi;
	rag_item_hold(it);
	t->mode->ask(t, it, vi, &f);
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

/* The record's mode, chosen once from the options and the configuration: its prompts too. */
static void choose_mode(rag_cli *cli, tool *t)
{
	if (t->chunks) t->mode = &mode_chunks;
	else if (t->one_request) t->mode = &mode_one;
	else if (strcmp(t->metric, "answer_correctness") == 0) t->mode = &mode_correctness;
	else if (cli->cfg.verify.mode != RAG_VERIFY_BATCHED) t->mode = &mode_verifier;
	else t->mode = &mode_claims;
	cli->ops = t->mode->ops;
	/* an unanswerable record: no answer to compare with (answer_correctness, context recall), no
	 * chunk can hold the answer (precision) and the right answer uses none (utilization) */
	if (t->chunks) t->refusal_metric = t->metric_given ? t->metric : "context_precision";
	else if (strcmp(t->metric, "answer_correctness") == 0 || strcmp(t->metric, "context_recall") == 0)
		t->refusal_metric = t->metric;
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
	choose_mode(&cli, &t);
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
