/* politeness.c - the politeness operation, rag-polite's: is the answer courteous and respectful
 * to the one who asked, a score from 0 to 1 with its reason (prompt "politeness"). A metric tool
 * of one operation (HACKING.md, "A new LLM metric tool"): this file is all of it but its prompts,
 * its page and its test. Tone is a reading no word count gives: there is no offline answer. */
#include "base.h"
#include "usage.h"
#include "record.h"
#include "llm.h"
#include "judge.h"
#include "metric.h"

static int ask(const rag_op *op, rag_judge *j, const char *lang, const char *question, jv rec, rag_usage *usage,
               rag_judge_cb cb, void *arg, char *err, size_t errlen)
{
	const char *answer;
	char nonce[RAG_NONCE_LEN];
	jv vars, texts;
	if (rag_record_need_text(rec, "answer", 0, &answer, err, errlen) < 0) return -1;
	texts = JV_ARRAY(jv_string(question ? question : ""), jv_string(answer));
	rag_prompt_nonce(texts, nonce);
	jv_free(texts);
	vars = JV_OBJECT(jv_string("question"), rag_prompt_blockv("QUESTION", nonce, question ? question : ""),
	                 jv_string("answer"), rag_prompt_blockv("SCORED", nonce, answer));
	rag_judge_ask(j, op, lang, vars, 0, "{\"score\": 0.8, \"reason\": \"...\"}", usage, cb, arg);
	return 0;
}

const rag_op rag_op_politeness = {
	.name = "politeness",
	.reply = RAG_OP_JSON,
	.schema = RAG_JUDGE_SCORE_SCHEMA,
	.check = rag_judge_check_score,
	.completion = rag_judge_completion_score,
	.tool = "rag-polite",
	.metric = "politeness",
	.doc = "How courteous and respectful the answer is to the one who asked, from 0 to 1, with its reason.",
	.ask = ask,
	.offline_ask = NULL,
};
