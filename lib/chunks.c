/* chunks.c - was each retrieved chunk useful for the reference answer (context precision) or
 * for the answer given (context utilization)? All the chunks of a record go to the judge in one
 * question (several only when they exceed verify.batch_chars), with one verdict per chunk back,
 * in retrieval order. RAGAS asks once per chunk; the verdicts do not need it. */
#include "base.h"
#include "config.h"
#include "usage.h"
#include "llm.h"
#include "judge.h"
#include "metric.h"

#include <stdlib.h>
#include <string.h>

typedef struct chunks_op {
	rag_judge *j;
	jv contexts;              /* array of strings */
	jv verdicts;              /* one {chunk, verdict, reason} per context, null until judged */
	int calls_left;
	char *error;
	rag_judge_cb cb;
	void *arg;
} chunks_op;

typedef struct ccall { chunks_op *op; int first, count; } ccall;

static void op_finish(chunks_op *op)
{
	rag_judge_cb cb = op->cb;
	void *arg = op->arg;
	jv_free(op->contexts);
	if (op->error) {
		char *e = op->error;
		jv_free(op->verdicts);
		free(op);
		cb(arg, jv_null(), e);
		free(e);
		return;
	}
	{
		jv v = op->verdicts;
		free(op);
		cb(arg, v, NULL);
	}
}

static void call_done(void *arg, jv result, const char *error)
{
	ccall *c = arg;
	chunks_op *op = c->op;
	int i;
	if (error) {
		if (!op->error) op->error = rag_xstrdup(error);
	} else {
		for (i = 0; i < c->count; i++) {
			jv o = jv_array_get(jv_copy(result), i);
			jv d = jv_object_get(jv_copy(o), jv_string("verdict"));
			jv r = jv_object_get(o, jv_string("reason"));
			op->verdicts = jv_array_set(op->verdicts, c->first + i,
			                            JV_OBJECT(jv_string("chunk"), jv_array_get(jv_copy(op->contexts), c->first + i),
			                                      jv_string("verdict"), d, jv_string("reason"), r));
		}
	}
	jv_free(result);
	free(c);
	if (--op->calls_left == 0) op_finish(op);
}

static void ask(chunks_op *op, const char *lang, const char *question, const char *target, int reference,
                int first, int count, rag_usage *usage)
{
	int zh = strcmp(lang, "zh") == 0, i;
	rag_buf b = {0};
	char num[32], nonce[RAG_NONCE_LEN];
	jv vars = jv_object(), texts = JV_ARRAY(jv_string(question ? question : ""), jv_string(target));
	ccall *c = rag_xmalloc(sizeof *c);
	c->op = op;
	c->first = first;
	c->count = count;
	for (i = 0; i < count; i++) texts = jv_array_append(texts, jv_array_get(jv_copy(op->contexts), first + i));
	rag_prompt_nonce_record(question, op->contexts, texts, nonce);
	jv_free(texts);
	/* the chunks are the record's contexts, in the very bytes verify.c sends them in (numbered
	 * from 1 in each batch, as the verdicts' ids are) */
	{
		char *blocks = rag_prompt_contexts(op->contexts, first, count, 1, nonce);
		rag_buf_adds(&b, blocks);
		free(blocks);
	}
	snprintf(num, sizeof num, "%d", count);
	vars = jv_object_set(vars, jv_string("question"), rag_prompt_blockv("QUESTION", nonce, question ? question : ""));
	vars = jv_object_set(vars, jv_string("target"), rag_prompt_blockv(reference ? "REFERENCE" : "ANSWER", nonce, target));
	vars = jv_object_set(vars, jv_string("target_name"),
	                     jv_string(reference ? (zh ? "参考答案" : "reference answer") : (zh ? "回答" : "answer")));
	vars = jv_object_set(vars, jv_string("contexts"), jv_string(b.p ? b.p : ""));
	vars = jv_object_set(vars, jv_string("chunks"), jv_string(b.p ? b.p : ""));   /* a prompt of before */
	vars = jv_object_set(vars, jv_string("count"), jv_string(num));
	rag_buf_free(&b);
	op->calls_left++;
	rag_judge_ask(op->j, &rag_op_chunks, lang, vars, count,
	              "{\"verdicts\": [{\"id\": 1, \"verdict\": true, \"reason\": \"...\"}, ...]} "
	              "with exactly one verdict for each numbered chunk", usage, call_done, c);
}

static int listed(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list)) return 1;
	return 0;
}

/* The question less the words that ask (what, how many, what year; 什么, 哪里, 多少, 吗): what
 * it is about, which an answer may take up. Chinese ones become a space, so that no bigram
 * spans them. */
char *rag_chunks_subject(const char *question)
{
	static const char *const zh[] = {"什么时候", "什么时间", "为什么", "哪一年", "哪一天", "哪个月", "怎么样",
	                                 "是不是", "有没有", "什么", "为何", "哪年", "哪天", "哪里", "哪儿", "哪些",
	                                 "哪个", "几月", "几点", "多少", "多久", "多长", "多大", "多高", "多远", "多重",
	                                 "怎么", "怎样", "如何", "是否", "能否", "可否", "哪", "几", "谁", "吗", "呢",
	                                 NULL};
	static const char *const wh[] = {"what", "which", "who", "whom", "whose", "who's", "when", "where", "why",
	                                 "how", NULL};
	static const char *const asking[] = {"many", "much", "long", "old", "far", "big", "tall", "large", "high",
	                                     "often", "deep", "wide", "fast", "heavy", "year", "years", "time", "date",
	                                     "day", "month", "century", "decade", "era", "period", "percentage",
	                                     "percent", "number", "amount", NULL};
	rag_buf b = {0};
	const char *p = question, *prev = "";
	size_t i = 0, len = strlen(question);
	int cjk = 0;
	rag_buf w = {0};
	while (i < len && !cjk) {
		long cp;
		i += rag_utf8_decode(question + i, len - i, &cp);
		cjk = rag_text_is_cjk(cp);
	}
	if (cjk) {
		while (*p) {
			const char *const *z;
			for (z = zh; *z; z++)
				if (!strncmp(p, *z, strlen(*z))) break;
			if (*z) {
				rag_buf_adds(&b, " ");
				p += strlen(*z);
			} else {
				rag_buf_add(&b, p, 1);
				p++;
			}
		}
		return b.p ? b.p : rag_xstrdup("");
	}
	/* English: the text as it is, the asking words blanked */
	while (*p) {
		const char *s;
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) {
			rag_buf_add(&b, p, 1);
			p++;
			continue;
		}
		s = p;
		while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '\'') p++;
		w.len = 0;
		rag_buf_add(&w, s, (size_t)(p - s));
		for (i = 0; i < w.len; i++)
			if (w.p[i] >= 'A' && w.p[i] <= 'Z') w.p[i] = (char)(w.p[i] - 'A' + 'a');
		if (!listed(w.p, wh) && !((!strcmp(prev, "how") || !strcmp(prev, "what") || !strcmp(prev, "which")) &&
		                          listed(w.p, asking)))
			rag_buf_add(&b, s, (size_t)(p - s));
		else
			rag_buf_adds(&b, " ");
		prev = listed(w.p, wh) ? (!strcmp(w.p, "how") ? "how" : !strcmp(w.p, "what") ? "what" :
		                          !strcmp(w.p, "which") ? "which" : "") : "";
	}
	rag_buf_free(&w);
	return b.p ? b.p : rag_xstrdup("");
}

/* The distinct tokens (rag_text_tokens) of s as a set (an object of true), with their count;
 * evidence: s is a chunk, read by rag_text_tokens_evidence (its "12人" also states "12"). */
static jv token_set(const char *s, int *count, int evidence)
{
	jv t = evidence ? rag_text_tokens_evidence(s ? s : "") : rag_text_tokens(s ? s : ""), set = jv_object();
	int n = jv_array_length(jv_copy(t)), k;
	for (k = 0; k < n; k++) set = jv_object_set(set, jv_array_get(jv_copy(t), k), jv_true());
	jv_free(t);
	*count = jv_object_length(jv_copy(set));
	return set;
}

/* How many keys of want (borrowed) are in have (borrowed), skipping those of skip (borrowed,
 * or null). */
static int found_in(jv want, jv have, jv skip)
{
	int found = 0, it;
	for (it = jv_object_iter(want); jv_object_iter_valid(want, it); it = jv_object_iter_next(want, it)) {
		jv k = jv_object_iter_key(want, it);
		if (jv_get_kind(skip) == JV_KIND_OBJECT && jv_object_has(jv_copy(skip), jv_copy(k))) {
			jv_free(k);
			continue;
		}
		found += jv_object_has(jv_copy(have), k);
	}
	return found;
}

/* The offline judge. A chunk is useful when it holds both what the question asks about and what
 * the target (the reference, or the answer) says beyond the question. Two shares: the question's
 * distinct content words found in the chunk, and the target's content words that are not the
 * question's (all of the target's when it only repeats the question); the score is their
 * harmonic mean, as an F-measure: high only when both are, 0 when either is (a chunk on the
 * question that lacks the answer, or one that has a date of the answer on another subject, is
 * not what the answer came from). Without a question, the target's share alone. The verdict is
 * a score of at least the threshold (verify.chunk_threshold, by default one half). */
static jv offline(const char *question, const char *target, jv contexts, double threshold, int reference)
{
	int nq, nt, n = jv_array_length(jv_copy(contexts)), i, tnew;
	char *subj = rag_chunks_subject(question ? question : "");
	jv q = token_set(subj, &nq, 0), t = token_set(target, &nt, 0), skip, out = jv_array();
	const char *what = reference ? "the reference" : "the answer";

	free(subj);
	/* the target's words beyond the question's, unless it has none */
	tnew = nt - found_in(t, q, jv_null());
	skip = tnew > 0 ? jv_copy(q) : jv_null();
	if (tnew == 0) tnew = nt;
	if (threshold < 0 || threshold > 1) threshold = 0.5;
	for (i = 0; i < n; i++) {
		jv c = jv_array_get(jv_copy(contexts), i);
		int nc, fq, ft, yes;
		jv have = token_set(jv_string_value(c), &nc, 1);
		char reason[256];
		double sq, st, score;
		fq = found_in(q, have, jv_null());
		ft = found_in(t, have, skip);
		jv_free(have);
		sq = nq ? (double)fq / nq : 0;
		st = tnew ? (double)ft / tnew : 0;
		score = nq && tnew ? (sq + st > 0 ? 2 * sq * st / (sq + st) : 0) : tnew ? st : sq;
		yes = (nq || tnew) && score >= threshold;
		if (!nq && !tnew)
			snprintf(reason, sizeof reason, "neither the question nor %s has content words to look for", what);
		else if (!tnew)
			snprintf(reason, sizeof reason, "%d%% of the content words of the question found in the chunk "
			         "(%s has none; %s %d%%)", (int)(sq * 100 + 0.5), what, yes ? "threshold" : "below",
			         (int)(threshold * 100 + 0.5));
		else if (!nq)
			snprintf(reason, sizeof reason, "%d%% of the content words of %s found in the chunk (%s %d%%)",
			         (int)(st * 100 + 0.5), what, yes ? "threshold" : "below", (int)(threshold * 100 + 0.5));
		else
			snprintf(reason, sizeof reason, "%d%% of the content words of the question and %d%% of those %s "
			         "adds found in the chunk: %d%% together (%s %d%%)", (int)(sq * 100 + 0.5), (int)(st * 100 + 0.5),
			         what, (int)(score * 100 + 0.5), yes ? "threshold" : "below", (int)(threshold * 100 + 0.5));
		out = jv_array_append(out, JV_OBJECT(jv_string("chunk"), c, jv_string("verdict"), jv_bool(yes),
		                                     jv_string("reason"), jv_string(reason),
		                                     jv_string("score"), jv_number(score)));
	}
	jv_free(q);
	jv_free(t);
	jv_free(skip);
	jv_free(contexts);
	return out;
}

void rag_chunks_ask(rag_judge *j, const char *lang, const char *question, const char *target, int reference,
                    jv contexts, rag_usage *usage, rag_judge_cb cb, void *arg)
{
	const rag_verify_conf *conf = rag_judge_verify_conf(j);
	int n = jv_array_length(jv_copy(contexts)), i, ng, *firsts, *counts;
	chunks_op *op;

	if (n == 0) {
		/* nothing retrieved, nothing to judge */
		jv_free(contexts);
		cb(arg, jv_array(), NULL);
		return;
	}
	if (rag_judge_offline(j)) {
		cb(arg, offline(question, target, contexts, conf->chunk_threshold, reference), NULL);
		return;
	}
	op = rag_xcalloc(1, sizeof *op);
	op->j = j;
	op->contexts = contexts;
	op->verdicts = jv_array();
	for (i = 0; i < n; i++) op->verdicts = jv_array_append(op->verdicts, jv_null());
	op->cb = cb;
	op->arg = arg;
	op->calls_left = 1;       /* guard: no finish while we are still sending */
	ng = rag_prompt_groups(contexts, conf->batch_chars, &firsts, &counts);
	for (i = 0; i < ng; i++) ask(op, lang, question, target, reference, firsts[i], counts[i], usage);
	free(firsts);
	free(counts);
	if (--op->calls_left == 0) op_finish(op);
}

/* each chunk of a record, numbered, useful or not: one verdict each */
const rag_op rag_op_chunks = {
	.name = "chunks",
	.reply = RAG_OP_JSON,
	.schema = RAG_JUDGE_VERDICTS_SCHEMA,
	.check = rag_judge_check_verdicts,
	.completion = rag_judge_completion_verdicts,
	.offline = "chunks.c's offline: the words of the question and the target in the chunk",
};
