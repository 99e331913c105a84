/* verify.c - the verify operation: is each claim supported by the retrieved contexts? All the
 * claims of a record in one request (prompt "verify") with all its contexts, split only past
 * verify.batch_claims claims or verify.batch_chars characters; or, for a dedicated verifier
 * (verify.mode claim, claim_chunk; prompt "verifier"), one plain Yes/No request per claim (and
 * chunk); or judged offline (claimcheck.c). */
#include "base.h"
#include "config.h"
#include "usage.h"
#include "offline.h"
#include "llm.h"
#include "judge.h"
#include "metric.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct verify_op {
	rag_judge *j;
	const rag_verify_conf *conf;
	const char *lang;
	char *question;
	jv claims, contexts;      /* arrays of strings */
	int n;                    /* claims */
	int *verdict;             /* -1 not judged yet, 0 unsupported, 1 supported */
	jv reasons;               /* array of strings */
	int calls_left;
	char *error;
	int rechecking;
	/* the verifier modes: the units each claim is asked against (context groups, or chunks),
	 * and each answer, uv[claim * nunits + unit]: -1 not asked, 0 No, 1 Yes */
	int nunits, *ufirst, *ucount;
	signed char *uv;
	rag_usage *usage;
	rag_judge_cb cb;
	void *arg;
} verify_op;

typedef struct vcall {
	verify_op *op;
	int *idx;                 /* claim indexes of this call */
	int k;
	int ctx_first, ctx_count; /* contexts in this call, for reasons */
	int unit;                 /* the verifier modes: the unit asked */
} vcall;

static void verify_finish(verify_op *op);
static void verify_recheck(verify_op *op);

static void vcall_done(void *arg, jv result, const char *error)
{
	vcall *vc = arg;
	verify_op *op = vc->op;
	int i;
	if (error) {
		if (!op->error) op->error = rag_xstrdup(error);
	} else {
		for (i = 0; i < vc->k; i++) {
			int ci = vc->idx[i];
			jv o = jv_array_get(jv_copy(result), i);
			int t = jv_get_kind(jv_object_get(jv_copy(o), jv_string("verdict"))) == JV_KIND_TRUE;
			jv rs = jv_object_get(o, jv_string("reason"));
			/* supported anywhere wins; the first unsupported reason stands otherwise */
			if (t && op->verdict[ci] != 1) {
				op->verdict[ci] = 1;
				op->reasons = jv_array_set(op->reasons, ci, jv_copy(rs));
			} else if (!t && op->verdict[ci] == -1) {
				op->verdict[ci] = 0;
				op->reasons = jv_array_set(op->reasons, ci, jv_copy(rs));
			}
			jv_free(rs);
		}
	}
	jv_free(result);
	free(vc->idx);
	free(vc);
	if (--op->calls_left == 0) {
		if (!op->error && !op->rechecking && op->conf->recheck_chunks)
			verify_recheck(op);
		else
			verify_finish(op);
	}
}

/* Ask about claims idx[0..k) against contexts [cfirst, cfirst+ccount). */
static void verify_send(verify_op *op, const int *idx, int k, int cfirst, int ccount)
{
	rag_judge *j = op->j;
	vcall *vc = rag_xmalloc(sizeof *vc);
	rag_buf ctx = {0}, st = {0};
	jv vars = jv_object();
	char num[32], nonce[RAG_NONCE_LEN];
	jv texts;
	int i;

	vc->op = op;
	vc->idx = rag_xmalloc((size_t)k * sizeof *vc->idx);
	memcpy(vc->idx, idx, (size_t)k * sizeof *idx);
	vc->k = k;
	vc->ctx_first = cfirst;
	vc->ctx_count = ccount;
	for (i = 0; i < k; i++) {
		jv s = jv_array_get(jv_copy(op->claims), idx[i]);
		char *line = rag_prompt_one_line(jv_string_value(s));
		rag_buf_addf(&st, "%s%d. %s", i ? "\n" : "", i + 1, line);
		free(line);
		jv_free(s);
	}
	texts = JV_ARRAY(jv_string(op->question), jv_string(st.p ? st.p : ""));
	for (i = 0; i < ccount; i++) texts = jv_array_append(texts, jv_array_get(jv_copy(op->contexts), cfirst + i));
	rag_prompt_nonce_record(op->question, op->contexts, texts, nonce);
	jv_free(texts);
	{
		char *blocks = rag_prompt_contexts(op->contexts, cfirst, ccount, cfirst + 1, nonce);
		rag_buf_adds(&ctx, blocks);
		free(blocks);
	}
	snprintf(num, sizeof num, "%d", k);
	vars = jv_object_set(vars, jv_string("question"), rag_prompt_blockv("QUESTION", nonce, op->question));
	vars = jv_object_set(vars, jv_string("contexts"), jv_string(ctx.p ? ctx.p : ""));
	vars = jv_object_set(vars, jv_string("statements"), rag_prompt_blockv("STATEMENTS", nonce, st.p ? st.p : ""));
	vars = jv_object_set(vars, jv_string("count"), jv_string(num));
	rag_buf_free(&ctx);
	rag_buf_free(&st);

	op->calls_left++;
	rag_judge_ask(j, &rag_op_verify, op->lang, vars, k,
	              "{\"verdicts\": [{\"id\": 1, \"verdict\": true, \"reason\": \"...\"}, ...]} "
	              "with exactly one verdict for each numbered statement", op->usage, vcall_done, vc);
}

static void verify_batches(verify_op *op, const int *todo, int ntodo)
{
	int per = op->conf->batch_claims;
	int *firsts, *counts, ng, g, i;
	ng = rag_prompt_groups(op->contexts, op->conf->batch_chars, &firsts, &counts);
	op->calls_left++;         /* guard: no finish while we are still sending */
	for (i = 0; i < ntodo; i += per) {
		int k = ntodo - i < per ? ntodo - i : per;
		for (g = 0; g < ng; g++) verify_send(op, todo + i, k, firsts[g], counts[g]);
	}
	free(firsts);
	free(counts);
	if (--op->calls_left == 0) {
		if (!op->error && !op->rechecking && op->conf->recheck_chunks)
			verify_recheck(op);
		else
			verify_finish(op);
	}
}

/* The optional fallback: an unsupported claim gets a second look at each chunk alone, where a
 * long context cannot hide the sentence that supports it. Still one call per chunk, not per
 * claim and chunk. */
static void verify_recheck(verify_op *op)
{
	int *todo = rag_xmalloc((size_t)op->n * sizeof *todo), n = 0, i, nctx;
	int per = op->conf->batch_claims;
	op->rechecking = 1;
	for (i = 0; i < op->n; i++)
		if (op->verdict[i] == 0) todo[n++] = i;
	nctx = jv_array_length(jv_copy(op->contexts));
	if (n == 0 || nctx < 2) {
		free(todo);
		verify_finish(op);
		return;
	}
	op->calls_left++;
	for (int c = 0; c < nctx; c++)
		for (i = 0; i < n; i += per)
			verify_send(op, todo + i, n - i < per ? n - i : per, c, 1);
	free(todo);
	if (--op->calls_left == 0) verify_finish(op);
}

/* "chunk 2", "chunks 1-3", "contexts 2-3": the contexts of a unit, counted from 1 */
static void unit_name(const verify_op *op, int first, int count, char *buf, size_t n)
{
	const char *what = op->conf->mode == RAG_VERIFY_CLAIM_CHUNK ? "chunk" : "context";
	if (count == 1) snprintf(buf, n, "%s %d", what, first + 1);
	else snprintf(buf, n, "%ss %d-%d", what, first + 1, first + count);
}

/* The verifier's answers as verdicts: a claim is supported when any unit said Yes; the reason
 * names the first such unit in retrieval order (the answers came in any order, so this does not
 * depend on which came first), or the contexts that all said No. */
static void verifier_settle(verify_op *op)
{
	int i, u, nctx = jv_array_length(jv_copy(op->contexts));
	char where[64], r[96];
	for (i = 0; i < op->n; i++) {
		const signed char *v = op->uv + (size_t)i * (size_t)op->nunits;
		if (v[0] < 0) continue;   /* not asked: found literally */
		for (u = 0; u < op->nunits && v[u] != 1; u++)
			;
		if (u < op->nunits) {
			op->verdict[i] = 1;
			if (op->nunits == 1 && op->conf->mode == RAG_VERIFY_CLAIM) snprintf(r, sizeof r, "verifier: Yes");
			else {
				unit_name(op, op->ufirst[u], op->ucount[u], where, sizeof where);
				snprintf(r, sizeof r, "verifier: Yes (%s)", where);
			}
		} else {
			op->verdict[i] = 0;
			if (op->nunits == 1 && op->conf->mode == RAG_VERIFY_CLAIM) snprintf(r, sizeof r, "verifier: No");
			else {
				unit_name(op, 0, nctx, where, sizeof where);
				snprintf(r, sizeof r, "verifier: No (%s)", where);
			}
		}
		op->reasons = jv_array_set(op->reasons, i, jv_string(r));
	}
}

static void verify_finish(verify_op *op)
{
	jv out = jv_null();
	int i, u;
	if (!op->error && op->uv) verifier_settle(op);
	if (!op->error) {
		out = jv_array();
		for (i = 0; i < op->n; i++) {
			jv rs = jv_array_get(jv_copy(op->reasons), i);
			jv o = JV_OBJECT(jv_string("claim"), jv_array_get(jv_copy(op->claims), i),
			                 jv_string("verdict"), jv_bool(op->verdict[i] == 1),
			                 jv_string("reason"), jv_get_kind(rs) == JV_KIND_STRING ? rs : jv_string(""));
			if (jv_get_kind(rs) != JV_KIND_STRING) jv_free(rs);
			if (op->uv && op->conf->mode == RAG_VERIFY_CLAIM_CHUNK && op->uv[(size_t)i * (size_t)op->nunits] >= 0) {
				/* what each chunk said, in retrieval order */
				jv each = jv_array();
				for (u = 0; u < op->nunits; u++)
					each = jv_array_append(each, jv_bool(op->uv[(size_t)i * (size_t)op->nunits + (size_t)u] == 1));
				o = jv_object_set(o, jv_string("chunks"), each);
			}
			out = jv_array_append(out, o);
		}
	}
	op->cb(op->arg, out, op->error);
	free(op->uv);
	free(op->ufirst);
	free(op->ucount);
	jv_free(op->claims);
	jv_free(op->contexts);
	jv_free(op->reasons);
	free(op->verdict);
	free(op->question);
	free(op->error);
	free(op);
}

/* ------------------------------------------------------------------ the verifier modes */

static void verifier_done(void *arg, jv result, const char *error)
{
	vcall *vc = arg;
	verify_op *op = vc->op;
	if (error) {
		if (!op->error) op->error = rag_xstrdup(error);
	} else {
		op->uv[(size_t)vc->idx[0] * (size_t)op->nunits + (size_t)vc->unit] = jv_get_kind(result) == JV_KIND_TRUE;
	}
	jv_free(result);
	free(vc->idx);
	free(vc);
	if (--op->calls_left == 0) verify_finish(op);
}

/* One claim against one unit: the unit's contexts as the document, one request, Yes or No. */
static void verifier_send(verify_op *op, int claim, int unit)
{
	vcall *vc = rag_xcalloc(1, sizeof *vc);
	int first = op->ufirst[unit], count = op->ucount[unit], i;
	char nonce[RAG_NONCE_LEN];
	rag_buf doc = {0};
	jv texts, c = jv_array_get(jv_copy(op->claims), claim), vars = jv_object();

	vc->op = op;
	vc->idx = rag_xmalloc(sizeof *vc->idx);
	vc->idx[0] = claim;
	vc->k = 1;
	vc->unit = unit;
	texts = JV_ARRAY(jv_copy(c));
	for (i = 0; i < count; i++) texts = jv_array_append(texts, jv_array_get(jv_copy(op->contexts), first + i));
	rag_prompt_nonce(texts, nonce);
	/* the contexts of the unit, one document: a blank line between them */
	for (i = 0; i < count; i++) {
		jv t = jv_array_get(jv_copy(texts), i + 1);
		rag_buf_addf(&doc, "%s%s", i ? "\n\n" : "", jv_string_value(t));
		jv_free(t);
	}
	jv_free(texts);
	vars = jv_object_set(vars, jv_string("document"), rag_prompt_blockv("DOCUMENT", nonce, doc.p ? doc.p : ""));
	vars = jv_object_set(vars, jv_string("claim"), rag_prompt_blockv("CLAIM", nonce, jv_string_value(c)));
	rag_buf_free(&doc);
	jv_free(c);
	op->calls_left++;
	rag_judge_ask_plain(op->j, &rag_op_verifier, op->lang, vars, 1, "Yes or No",
	                    op->conf->verifier_max_tokens, op->usage, verifier_done, vc);
}

/* Every claim to ask against every unit, all at once: claim_chunk asks each chunk of a claim
 * even after one said Yes, so the number of requests (claims x chunks) and the verdict do not
 * depend on the order the answers come in. */
static void verifier_start(verify_op *op, const int *todo, int ntodo)
{
	int i, u, nctx = jv_array_length(jv_copy(op->contexts));
	if (op->conf->mode == RAG_VERIFY_CLAIM_CHUNK) {
		op->nunits = nctx;
		op->ufirst = rag_xmalloc((size_t)nctx * sizeof *op->ufirst);
		op->ucount = rag_xmalloc((size_t)nctx * sizeof *op->ucount);
		for (u = 0; u < nctx; u++) {
			op->ufirst[u] = u;
			op->ucount[u] = 1;
		}
	} else {
		op->nunits = rag_prompt_groups(op->contexts, op->conf->batch_chars, &op->ufirst, &op->ucount);
	}
	op->uv = rag_xmalloc((size_t)op->n * (size_t)op->nunits);
	memset(op->uv, -1, (size_t)op->n * (size_t)op->nunits);
	op->calls_left++;         /* guard: no finish while we are still sending */
	for (i = 0; i < ntodo; i++)
		for (u = 0; u < op->nunits; u++) verifier_send(op, todo[i], u);
	if (--op->calls_left == 0) verify_finish(op);
}

/* A literal match must not be a piece of a longer word or number: "$10" is not in "$100". */
static int bounded(const char *hay, const char *at, size_t len)
{
	unsigned char before = at > hay ? (unsigned char)at[-1] : ' ', after = (unsigned char)at[len];
	unsigned char first = (unsigned char)at[0], last = (unsigned char)at[len - 1];
	int word_before = before < 128 && (isalnum(before) || before == '_');
	int word_after = after < 128 && (isalnum(after) || after == '_');
	if (word_before && first < 128 && isalnum(first)) return 0;
	if (word_after && last < 128 && isalnum(last)) return 0;
	/* "1,879" or "3.5": a digit run continues across separators */
	if (after && (after == '.' || after == ',') && isdigit((unsigned char)at[len + 1]) && isdigit(last)) return 0;
	return 1;
}

static int literal_in(const char *claim, jv contexts)
{
	char *c = rag_text_normalize(claim);
	int n, i, hit = 0;
	size_t len;
	if (!c) return 0;
	len = strlen(c);
	while (len > 0 && strchr(" .。!！", c[len - 1])) c[--len] = 0;
	n = jv_array_length(jv_copy(contexts));
	for (i = 0; i < n && !hit && len > 0; i++) {
		jv s = jv_array_get(jv_copy(contexts), i);
		char *t = rag_text_normalize(jv_string_value(s));
		for (const char *p = t; p && (p = strstr(p, c)); p++) {
			if (bounded(t, p, len)) {
				hit = i + 1;
				break;
			}
		}
		free(t);
		jv_free(s);
	}
	free(c);
	return hit;
}

void rag_verify_ask(rag_judge *j, const char *lang, const char *question, jv claims, jv contexts,
                    rag_usage *usage, rag_judge_cb cb, void *arg)
{
	const rag_verify_conf *conf = rag_judge_verify_conf(j);
	verify_op *op;
	int n = jv_array_length(jv_copy(claims)), nctx = jv_array_length(jv_copy(contexts)), i, ntodo = 0;
	int *todo;

	if (n == 0 || nctx == 0 || rag_judge_offline(j)) {
		if (rag_judge_offline(j) && n > 0 && nctx > 0) {
			cb(arg, rag_offline_verify(claims, contexts, conf->offline_threshold), NULL);
			return;
		}
		/* nothing to ask: no claims, or nothing retrieved to support them */
		jv out = jv_array();
		for (i = 0; i < n; i++)
			out = jv_array_append(out, JV_OBJECT(jv_string("claim"), jv_array_get(jv_copy(claims), i),
			                                     jv_string("verdict"), jv_false(),
			                                     jv_string("reason"), jv_string("no contexts were retrieved")));
		jv_free(claims);
		jv_free(contexts);
		cb(arg, out, NULL);
		return;
	}
	op = rag_xmalloc(sizeof *op);
	memset(op, 0, sizeof *op);
	op->j = j;
	op->conf = conf;
	op->lang = lang && strcmp(lang, "zh") == 0 ? "zh" : "en";
	op->question = rag_xstrdup(question ? question : "");
	op->claims = claims;
	op->contexts = contexts;
	op->n = n;
	op->verdict = rag_xmalloc((size_t)n * sizeof *op->verdict);
	op->reasons = jv_array();
	op->usage = usage;
	op->cb = cb;
	op->arg = arg;
	todo = rag_xmalloc((size_t)n * sizeof *todo);
	for (i = 0; i < n; i++) {
		int hit = 0;
		op->reasons = jv_array_append(op->reasons, jv_null());
		op->verdict[i] = -1;
		if (conf->literal_match) {
			jv s = jv_array_get(jv_copy(claims), i);
			hit = literal_in(jv_string_value(s), contexts);
			jv_free(s);
		}
		if (hit) {
			char r[64];
			snprintf(r, sizeof r, "found literally in context %d", hit);
			op->verdict[i] = 1;
			op->reasons = jv_array_set(op->reasons, i, jv_string(r));
		} else {
			todo[ntodo++] = i;
		}
	}
	if (ntodo == 0) {
		free(todo);
		verify_finish(op);
		return;
	}
	if (conf->mode != RAG_VERIFY_BATCHED) verifier_start(op, todo, ntodo);
	else verify_batches(op, todo, ntodo);
	free(todo);
}

/* ------------------------------------------------------------------ faithfulness in one request */

/* expect: max_claims * 2, + 1 when the answer says something (an empty list is then a reply
 * that does not fit, as rag_claims_ask has it) */
static const char *check_claim_verdicts(jv v, int expect, jv *result, char *problem, size_t plen)
{
	int max = expect / 2, some = expect % 2, i, n, k = 0;
	jv arr = v, claims = jv_array(), items = jv_array(), vs = jv_null();
	const char *p;
	if (jv_get_kind(v) == JV_KIND_OBJECT) arr = jv_object_get(v, jv_string("claims"));
	if (jv_get_kind(arr) != JV_KIND_ARRAY) {
		jv_free(arr);
		jv_free(claims);
		jv_free(items);
		return "expected an object with a \"claims\" array of {\"claim\", \"verdict\", \"reason\"}";
	}
	n = jv_array_length(jv_copy(arr));
	for (i = 0; i < n && k < max; i++) {
		jv o = jv_array_get(jv_copy(arr), i), c;
		char *line, *t, *e;
		if (jv_get_kind(o) != JV_KIND_OBJECT || jv_get_kind(c = jv_object_get(jv_copy(o), jv_string("claim"))) != JV_KIND_STRING) {
			if (jv_get_kind(o) == JV_KIND_OBJECT) jv_free(c);
			jv_free(o);
			jv_free(arr);
			jv_free(claims);
			jv_free(items);
			snprintf(problem, plen, "claims[%d] is not an object with a \"claim\" string", i);
			return problem;
		}
		line = rag_prompt_one_line(jv_string_value(c));
		jv_free(c);
		for (t = line; *t == ' '; t++)
			;
		for (e = t + strlen(t); e > t && e[-1] == ' '; ) *--e = 0;
		if (*t) {
			/* the verdict and reason as rag_judge_check_verdicts reads them, by position */
			claims = jv_array_append(claims, jv_string(t));
			jv vd = jv_object_get(jv_copy(o), jv_string("verdict")), rs = jv_object_get(jv_copy(o), jv_string("reason"));
			if (!jv_is_valid(vd)) jv_free(vd), vd = jv_null();
			if (!jv_is_valid(rs)) jv_free(rs), rs = jv_null();
			items = jv_array_append(items, JV_OBJECT(jv_string("id"), jv_number(++k), jv_string("verdict"), vd,
			                                         jv_string("reason"), rs));
		}
		free(line);
		jv_free(o);
	}
	jv_free(arr);
	if (k == 0 && some) {
		jv_free(claims);
		jv_free(items);
		return "no claims, but the answer is not empty and not a refusal: list the claims it makes, each with its verdict";
	}
	p = rag_judge_check_verdicts(JV_OBJECT(jv_string("verdicts"), items), k, &vs, problem, plen);
	if (p) {
		jv_free(claims);
		return p;
	}
	*result = jv_array();
	for (i = 0; i < k; i++) {
		jv o = jv_array_get(jv_copy(vs), i);
		*result = jv_array_append(*result, JV_OBJECT(jv_string("claim"), jv_array_get(jv_copy(claims), i),
		                                             jv_string("verdict"), jv_object_get(jv_copy(o), jv_string("verdict")),
		                                             jv_string("reason"), jv_object_get(o, jv_string("reason"))));
	}
	jv_free(vs);
	jv_free(claims);
	return NULL;
}

typedef struct answer_op { rag_judge_cb cb; void *arg; } answer_op;

/* No contexts: the claims alone (rag_claims_ask), each unsupported, as rag_verify_ask has it. */
static void claims_only(void *arg, jv result, const char *error)
{
	answer_op *op = arg;
	jv out = jv_null();
	int i, n;
	if (!error) {
		out = jv_array();
		n = jv_array_length(jv_copy(result));
		for (i = 0; i < n; i++)
			out = jv_array_append(out, JV_OBJECT(jv_string("claim"), jv_array_get(jv_copy(result), i),
			                                     jv_string("verdict"), jv_false(),
			                                     jv_string("reason"), jv_string("no contexts were retrieved")));
	}
	jv_free(result);
	op->cb(op->arg, out, error);
	free(op);
}

void rag_verify_answer_ask(rag_judge *j, const char *lang, const char *question, const char *answer, jv contexts,
                           int max_claims, rag_usage *usage, rag_judge_cb cb, void *arg)
{
	int nctx = jv_array_length(jv_copy(contexts)), i, some;
	char nonce[RAG_NONCE_LEN], num[32];
	rag_buf ctx = {0};
	jv texts, vars, offline;

	lang = lang && strcmp(lang, "zh") == 0 ? "zh" : "en";
	if (rag_judge_offline(j)) {
		offline = rag_offline_claims(question ? question : "", answer, max_claims);
		if (nctx > 0) {
			cb(arg, rag_offline_verify(offline, contexts, rag_judge_verify_conf(j)->offline_threshold), NULL);
			return;
		}
		jv_free(contexts);
		answer_op *op = rag_xmalloc(sizeof *op);
		op->cb = cb;
		op->arg = arg;
		claims_only(op, offline, NULL);
		return;
	}
	if (nctx == 0) {
		answer_op *op = rag_xmalloc(sizeof *op);
		op->cb = cb;
		op->arg = arg;
		jv_free(contexts);
		rag_claims_ask(j, lang, question, answer, max_claims, usage, claims_only, op);
		return;
	}
	offline = rag_offline_claims(question ? question : "", answer, 1);
	some = jv_array_length(offline) > 0;
	texts = JV_ARRAY(jv_string(question ? question : ""), jv_string(answer));
	for (i = 0; i < nctx; i++) texts = jv_array_append(texts, jv_array_get(jv_copy(contexts), i));
	rag_prompt_nonce_record(question, contexts, texts, nonce);
	jv_free(texts);
	{
		char *blocks = rag_prompt_contexts(contexts, 0, nctx, 1, nonce);
		rag_buf_adds(&ctx, blocks);
		free(blocks);
	}
	jv_free(contexts);
	snprintf(num, sizeof num, "%d", max_claims);
	vars = jv_object();
	vars = jv_object_set(vars, jv_string("question"), rag_prompt_blockv("QUESTION", nonce, question ? question : ""));
	vars = jv_object_set(vars, jv_string("contexts"), jv_string(ctx.p ? ctx.p : ""));
	vars = jv_object_set(vars, jv_string("answer"), rag_prompt_blockv("ANSWER_TEXT", nonce, answer));
	vars = jv_object_set(vars, jv_string("max_claims"), jv_string(num));
	rag_buf_free(&ctx);
	rag_judge_ask(j, &rag_op_faithfulness, lang, vars, max_claims * 2 + some,
	              "{\"claims\": [{\"claim\": \"...\", \"verdict\": true, \"reason\": \"...\"}, ...]}", usage, cb, arg);
}

/* 10 tokens, and 45 a claim with its verdict and reason; taken to be 4 (fewer when fewer are
 * allowed) */
static double faithfulness_completion(int expect)
{
	int max = expect / 2;
	return 10 + 45.0 * (max > 0 && max < 4 ? max : 4);
}

/* a verifier's bare Yes or No */
static double verifier_completion(int expect)
{
	(void)expect;
	return 2;
}

/* ------------------------------------------------------------------ the operations */

/* verify.mode batched: the claims of a record, numbered, one verdict each */
const rag_op rag_op_verify = {
	.name = "verify",
	.reply = RAG_OP_JSON,
	.schema = RAG_JUDGE_VERDICTS_SCHEMA,
	.check = rag_judge_check_verdicts,
	.completion = rag_judge_completion_verdicts,
	.offline = "rag_offline_verify",
};

/* verify.mode claim and claim_chunk: one claim against a document, a bare Yes or No */
const rag_op rag_op_verifier = {
	.name = "verifier",
	.reply = RAG_OP_TEXT,
	.schema = NULL,
	.check = rag_judge_check_yes_no,
	.completion = verifier_completion,
	.offline = "rag_offline_verify",
};

/* rag-verify --one-request: the answer's claims and their verdicts in one request */
const rag_op rag_op_faithfulness = {
	.name = "faithfulness",
	.reply = RAG_OP_JSON,
	.schema = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"claims\"],"
	          "\"properties\":{\"claims\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	          "\"additionalProperties\":false,\"required\":[\"claim\",\"verdict\",\"reason\"],\"properties\":"
	          "{\"claim\":{\"type\":\"string\"},\"verdict\":{\"type\":\"boolean\"},\"reason\":{\"type\":\"string\"}}}}}}",
	.check = check_claim_verdicts,
	.completion = faithfulness_completion,
	.offline = "rag_offline_claims, then rag_offline_verify",
};

int rag_verify_score(jv verdicts, double *score)
{
	int n = jv_get_kind(verdicts) == JV_KIND_ARRAY ? jv_array_length(jv_copy(verdicts)) : 0, i;
	double sum = 0;

	*score = 0;
	if (!n)
		return -1;
	for (i = 0; i < n; i++) {
		jv e = jv_array_get(jv_copy(verdicts), i);
		jv v = jv_object_get(jv_copy(e), jv_string("verdict")), g = jv_object_get(e, jv_string("score"));
		sum += jv_get_kind(g) == JV_KIND_NUMBER ? jv_number_value(g) : jv_get_kind(v) == JV_KIND_TRUE;
		jv_free(v);
		jv_free(g);
	}
	*score = sum / n;
	return 0;
}
