/* judge.h - the judge engine (judge.c): which judge, its prompts, the generic question with
 * its reply check and one re-ask, estimate mode. Layer 4 (HACKING.md). */
#ifndef RAG_JUDGE_H
#define RAG_JUDGE_H

#include <stddef.h>

#include <jv.h>

#include "config.h"
#include "usage.h"

/* ---------------------------------------------------------------- judge.c */
typedef struct rag_judge rag_judge;
/* Result callback of the judge and its operations: the result (consumed by the callback), or
 * jv_null() and error, a message borrowed for the call only (copy it to keep it). */
typedef void (*rag_judge_cb)(void *arg, jv result, const char *error);
/* The reply check of an operation: NULL when the reply (consumed) fits, with *result set, or a
 * problem text (it may write it into problem[plen]); expect is the caller's (how many verdicts,
 * claims, questions...). */
typedef const char *(*rag_judge_check)(jv reply, int expect, jv *result, char *problem, size_t plen);
/* One LLM operation, described once, in the operation's own file (rag_op_claims in claims.c):
 * what the judge asks with and checks the reply by, what --estimate counts, and what answers
 * for the offline judge. The registry (op.c) lists every one; tests/unit/t-op.c fails on a
 * field left unset or a prompt file missing, and rag_judge_new refuses such an operation. */
typedef struct rag_op {
	const char *name;         /* the operation, and its prompt: share/prompts/<name>.en.txt and
	                           * .zh.txt (or the config's prompts.<name>.<lang>) */
	int reply;                /* RAG_OP_JSON: JSON, found in the reply text (rag_reply_json);
	                           * RAG_OP_TEXT: the text itself (a verifier's bare Yes or No) */
	const char *schema;       /* RAG_OP_JSON: the reply's JSON Schema, sent as response_format
	                           * where llm.json_mode is schema (strict: every property required,
	                           * none other allowed); NULL for RAG_OP_TEXT */
	rag_judge_check check;    /* the reply check */
	double (*completion)(int expect);   /* --estimate: the completion tokens one reply is
	                           * expected to take, for the caller's expect (rag(7) ESTIMATES) */
	const char *offline;      /* what answers for the offline judge (its function), or
	                           * RAG_OP_NO_OFFLINE: the operation's tool refuses at set-up; a
	                           * metric tool's leaves it unset: its offline answer is .offline_ask */
	/* A metric tool of this one operation (optional: all four, or none). Its tool is
	 * rag_cli_metric's (cmd/tool-metric.c), rag-eval scores its metric with a stage of its own
	 * and the manuals list it (HACKING.md, "A new LLM metric tool"). */
	const char *tool;         /* the tool, "rag-complete" (bin/rag-complete: cmd/tool-metric-main.c) */
	const char *metric;       /* the score it writes, scores.<metric>: rag-eval's metric of that
	                           * name, a name no custom rubric may take */
	const char *doc;          /* what the score says, one sentence for the manuals */
	/* The score of one record by the LLM judge (rec borrowed, question as rag_item_question
	 * gives it or NULL), op being this descriptor (for rag_judge_ask): 0 when asked, cb then
	 * getting {"score": a number in [0, 1], "reason": a text, and "verdicts" where the operation
	 * has them} or an error, exactly once; -1 with err, nothing asked and cb never called, when
	 * the record lacks what it needs (rag_record_need_text's message). */
	int (*ask)(const struct rag_op *op, rag_judge *j, const char *lang, const char *question, jv rec,
	           rag_usage *usage, rag_judge_cb cb, void *arg, char *err, size_t errlen);
	/* The same score by the offline judge, at once: 0 with *result as ask's cb gets it, or -1
	 * and err as ask; NULL where there is no offline answer (the tool then exits 2 without an
	 * endpoint, never inventing a score). The tool calls the one of its judge: an operation
	 * never asks which judge it has. */
	int (*offline_ask)(const struct rag_op *op, rag_judge *j, const char *lang, const char *question, jv rec,
	                   jv *result, char *err, size_t errlen);
} rag_op;
enum { RAG_OP_JSON = 1, RAG_OP_TEXT };
#define RAG_OP_NO_OFFLINE "none"
/* The judge cfg names (llm.provider, else openai when an endpoint or key is set, else offline),
 * with the prompts of the operations in the NULL-terminated list loaded in both languages
 * (ignored offline): a missing prompt, or an operation with a field unset, is an error here, not
 * at the first record. What the judge needs of cfg is copied; cfg is not kept and not written.
 * NULL with err on config problems; notice receives a one-line notice (the offline fallback) or
 * stays empty. */
rag_judge *rag_judge_new(const rag_config *cfg, const rag_op *const *ops, char *notice, size_t noticelen,
                         char *err, size_t errlen);
const char *rag_judge_name(const rag_judge *j);   /* "offline" or "openai:<model>" */
const char *rag_judge_model(const rag_judge *j);  /* NULL for offline */
/* The generic question, for metric operations in their own files: fill op's prompt (loaded by
 * rag_judge_new) with vars (object of strings, consumed), ask, parse the JSON out of the reply
 * (a RAG_OP_TEXT reply: the text) and hand it to op->check with expect. A reply that does not
 * fit is re-asked once with the problem and fix_hint stated; then cb gets the result or an
 * error. Never called for the offline judge. The request carries op->schema (llm.json_mode); a
 * reply is cached only once it fits (rag_llm_commit), and a cached one that does not fit is
 * asked again of the endpoint before the re-ask. */
void rag_judge_ask(rag_judge *j, const rag_op *op, const char *lang, jv vars, int expect, const char *fix_hint,
                   rag_usage *usage, rag_judge_cb cb, void *arg);
/* rag_judge_ask with the endpoint's "n": n choices from one request, each checked; cb gets the
 * array of their results (fewer than n when the endpoint ignores "n"). */
void rag_judge_ask_n(rag_judge *j, const rag_op *op, const char *lang, jv vars, int n, int expect,
                     const char *fix_hint, rag_usage *usage, rag_judge_cb cb, void *arg);
/* rag_judge_ask as repeat i (0 the first) of the same question: rag_llm_opts.repeat. */
void rag_judge_ask_repeat(rag_judge *j, const rag_op *op, const char *lang, jv vars, int repeat, int expect,
                          const char *fix_hint, rag_usage *usage, rag_judge_cb cb, void *arg);
/* rag_judge_ask of a RAG_OP_TEXT operation (a dedicated verifier's bare Yes or No) with
 * max_tokens (0: llm.max_tokens): no response_format, op->check gets the reply text as a jv
 * string; a reply cut off at max_tokens is checked as it came; the re-ask asks for fix_hint only. */
void rag_judge_ask_plain(rag_judge *j, const rag_op *op, const char *lang, jv vars, int expect,
                         const char *fix_hint, int max_tokens, rag_usage *usage, rag_judge_cb cb, void *arg);
/* The check for a verifier's reply: *result true or false from its first word (Yes / No, any
 * case; 是 对 支持 / 否 不是 不对 不支持), anything else a problem. */
const char *rag_judge_check_yes_no(jv reply, int expect, jv *result, char *problem, size_t plen);
/* The reply check for "one verdict per numbered item": {"verdicts": [{"id": 1..expect,
 * "verdict": bool, "reason": str}]} -> *result = array of {verdict, reason} in id order. */
const char *rag_judge_check_verdicts(jv reply, int expect, jv *result, char *problem, size_t plen);
/* Its reply's schema, and one numbered list of verdicts within another schema; the completion
 * of expect verdicts (at least 1), 30 tokens each with its reason, for rag_op.completion. */
#define RAG_JUDGE_VERDICT_LIST \
	"{\"type\":\"array\",\"items\":{\"type\":\"object\",\"additionalProperties\":false," \
	"\"required\":[\"id\",\"verdict\",\"reason\"],\"properties\":{\"id\":{\"type\":\"integer\"}," \
	"\"verdict\":{\"type\":\"boolean\"},\"reason\":{\"type\":\"string\"}}}}"
#define RAG_JUDGE_VERDICTS_SCHEMA \
	"{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"verdicts\"],\"properties\":" \
	"{\"verdicts\":" RAG_JUDGE_VERDICT_LIST "}}"
double rag_judge_completion_verdicts(int expect);
/* The reply check for "a score with its reason", a metric tool's usual reply: {"score": a number
 * from 0 to 1, "reason": a text not blank} -> *result {"score", "reason"}; its schema, and its
 * completion (one short reason) for rag_op.completion. */
const char *rag_judge_check_score(jv reply, int expect, jv *result, char *problem, size_t plen);
#define RAG_JUDGE_SCORE_SCHEMA \
	"{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"score\",\"reason\"]," \
	"\"properties\":{\"score\":{\"type\":\"number\"},\"reason\":{\"type\":\"string\"}}}"
double rag_judge_completion_score(int expect);
int rag_judge_offline(const rag_judge *j);
/* Estimate mode (--estimate): from now on no request is sent; each one the operations ask is
 * counted into e (borrowed, kept until rag_judge_free) and answered at once with the error
 * RAG_ESTIMATE_ERROR. The offline judge asks nothing, so counts nothing. */
#define RAG_ESTIMATE_ERROR "estimate only: no request was sent"
void rag_judge_estimate(rag_judge *j, rag_estimate *e);
const rag_verify_conf *rag_judge_verify_conf(const rag_judge *j);   /* the verify settings it copied */
/* Run pending work (LLM transfers); see rag_llm_run. */
int rag_judge_run(rag_judge *j, int fd, double timeout);
/* rag_llm_inflight of the judge's client; 0 0 0 for the offline judge */
void rag_judge_inflight(const rag_judge *j, int *limit, int *low, int *cuts);
/* rag_llm_set_meter on the judge's client (the spending cap); nothing for the offline judge.
 * Each request is metered with its estimate as --estimate counts it. */
struct rag_llm_meter;
void rag_judge_set_meter(rag_judge *j, const struct rag_llm_meter *m);
/* The started time (seconds since the epoch; NAN or 0: none) of the record whose requests the
 * calls made from now on are: the meter's window (llm.spend_window) is that record's. */
void rag_judge_set_at(rag_judge *j, double t);
/* rag_llm_adapted of the judge's client; an empty array for the offline judge */
jv rag_judge_adapted(const rag_judge *j, int learned_only);
void rag_judge_cancel(rag_judge *j, const char *why);
/* 1 the first time a record (borrowed) or the config names the judge's own model as the model
 * that generated the answers; the caller warns once. */
int rag_judge_self_check(rag_judge *j, jv rec);
void rag_judge_free(rag_judge *j);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside judge.c (by rag_judge_new, for each operation) and by tests/unit/t-op.c:
 * a descriptor's check. Static in the library (RAG_UNITTEST, base.h):
 * declared only when RAG_UNITTESTS is defined, as for the unit tests' build of the library
 * (obj/libragu.a). */
#ifdef RAG_UNITTESTS
/* 0 when every field of op is set (and fits its reply's shape; a metric tool's four all or
 * none), else -1 and err naming it. */
int rag_judge_op_check(const rag_op *op, char *err, size_t errlen);
#endif /* RAG_UNITTESTS */

#endif
