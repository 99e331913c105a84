/* answer_completeness.c - the answer_completeness operation, rag-complete's: does the answer
 * cover every aspect of the question, a score from 0 to 1 with its reason: the question's
 * aspects, which the answer covers and which it misses (prompt "answer_completeness";
 * rag-judge's rubric completeness asks another question, every point of the reference). A
 * metric tool of one operation (HACKING.md, "A new LLM metric tool"): this file is all of it but
 * its prompts, its page and its test.
 *
 * The offline answer is a rough stand-in, a count of words and no reading: the share of the
 * question's content terms (rag_text_tokens of its subject, rag_chunks_subject: the words that
 * ask dropped; English stemmed words without stop words, numbers, Chinese character bigrams)
 * that the answer's terms hold. */
#include "base.h"
#include "usage.h"
#include "record.h"
#include "llm.h"
#include "judge.h"
#include "metric.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The question is what the answer is held to: a record without one has nothing to cover. */
static int has_question(const char *question, char *err, size_t errlen)
{
	if (question && *question) return 1;
	rag_seterr(err, errlen, "record has no \"question\" field");
	return 0;
}

static int ask(const rag_op *op, rag_judge *j, const char *lang, const char *question, jv rec, rag_usage *usage,
               rag_judge_cb cb, void *arg, char *err, size_t errlen)
{
	const char *answer;
	char nonce[RAG_NONCE_LEN];
	jv vars, texts;
	if (!has_question(question, err, errlen) || rag_record_need_text(rec, "answer", 0, &answer, err, errlen) < 0)
		return -1;
	texts = JV_ARRAY(jv_string(question), jv_string(answer));
	rag_prompt_nonce(texts, nonce);
	jv_free(texts);
	vars = JV_OBJECT(jv_string("question"), rag_prompt_blockv("QUESTION", nonce, question),
	                 jv_string("answer"), rag_prompt_blockv("SCORED", nonce, answer));
	rag_judge_ask(j, op, lang, vars, 0,
	              "{\"score\": 0.5, \"reason\": \"the aspects of the question, which the answer covers, "
	              "which it misses\"}",
	              usage, cb, arg);
	return 0;
}

/* The distinct terms of list, in order, as one text "a, b, c" into b ("none" when empty). */
static void terms_text(rag_buf *b, jv list)
{
	int n = jv_array_length(jv_copy(list));
	if (!n) rag_buf_adds(b, "none");
	jv_array_foreach(list, i, v) {
		if (i) rag_buf_adds(b, ", ");
		rag_buf_adds(b, jv_string_value(v));
		jv_free(v);
	}
	jv_free(list);
}

static int offline_ask(const rag_op *op, rag_judge *j, const char *lang, const char *question, jv rec, jv *result,
                       char *err, size_t errlen)
{
	const char *answer;
	char *subject;
	jv want, have = jv_object(), seen = jv_object(), covered = jv_array(), missed = jv_array(), toks;
	rag_buf reason = {0};
	int n;

	(void)op;
	(void)j;
	(void)lang;
	if (!has_question(question, err, errlen) || rag_record_need_text(rec, "answer", 0, &answer, err, errlen) < 0) {
		jv_free(have);
		jv_free(seen);
		jv_free(covered);
		jv_free(missed);
		return -1;
	}
	subject = rag_chunks_subject(question);
	want = rag_text_tokens(subject);
	free(subject);
	toks = rag_text_tokens_evidence(answer);       /* "7天" states 7 */
	jv_array_foreach(toks, i, v) {
		have = jv_object_set(have, v, jv_true());
		(void)i;
	}
	jv_free(toks);
	jv_array_foreach(want, i, v) {
		jv had = jv_object_get(jv_copy(seen), jv_copy(v)), in;
		if (jv_is_valid(had)) {
			jv_free(had);
			jv_free(v);
			continue;
		}
		seen = jv_object_set(seen, jv_copy(v), jv_true());
		in = jv_object_get(jv_copy(have), jv_copy(v));
		if (jv_is_valid(in)) covered = jv_array_append(covered, v);
		else missed = jv_array_append(missed, v);
		jv_free(in);
		(void)i;
	}
	jv_free(want);
	jv_free(have);
	jv_free(seen);
	n = jv_array_length(jv_copy(covered)) + jv_array_length(jv_copy(missed));
	if (!n) {
		jv_free(covered);
		jv_free(missed);
		rag_seterr(err, errlen, "the question has no content terms to look for in the answer");
		return -1;
	}
	rag_buf_addf(&reason, "the answer has %d of the question's %d terms; covered: ",
	               jv_array_length(jv_copy(covered)), n);
	/* four decimals, as the offline judge's scores */
	*result = JV_OBJECT(jv_string("score"),
	                    jv_number(floor((double)jv_array_length(jv_copy(covered)) / n * 1e4 + 0.5) / 1e4));
	terms_text(&reason, covered);
	rag_buf_adds(&reason, "; missed: ");
	terms_text(&reason, missed);
	*result = jv_object_set(*result, jv_string("reason"), jv_string(reason.p));
	rag_buf_free(&reason);
	return 0;
}

const rag_op rag_op_answer_completeness = {
	.name = "answer_completeness",
	.reply = RAG_OP_JSON,
	.schema = RAG_JUDGE_SCORE_SCHEMA,
	.check = rag_judge_check_score,
	.completion = rag_judge_completion_score,
	.tool = "rag-complete",
	.metric = "answer_completeness",
	.doc = "Whether the answer covers every aspect of the question, from 0 to 1, with its reason.",
	.ask = ask,
	.offline_ask = offline_ask,
};
