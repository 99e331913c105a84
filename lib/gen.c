/* gen.c - rag-gen's test cases from a chunk of a document: asked of a model (prompt "gen"), or
 * made offline by an extractive rule that is said in every record (generator "offline").
 *
 * The model is told, slot by slot, the difficulty and type of each question, so that the mix
 * the user asked for is the mix that comes back; a reply with a question missing, a slot's
 * difficulty or type changed, or an empty reference is re-asked once, then the chunk gives
 * none and says why. */
#include "base.h"
#include "usage.h"
#include "offline.h"
#include "llm.h"
#include "judge.h"
#include "gen.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const difficulties[] = {"easy", "medium", "hard"};
static const char *const types[] = {"factual", "explanatory", "comparative"};

/* per five questions 2 easy, 2 medium, 1 hard (the articles' mix), in that order */
const char *rag_gen_difficulty(int i)
{
	static const int mix[5] = {0, 0, 1, 1, 2};
	return difficulties[mix[i % 5]];
}

/* per five questions factual, explanatory, factual, explanatory, comparative: the hard one
 * compares */
const char *rag_gen_type(int i)
{
	static const int turn[5] = {0, 1, 0, 1, 2};
	return types[turn[i % 5]];
}

static int one_of(const char *s, const char *const *set, int n)
{
	int i;
	for (i = 0; i < n; i++)
		if (!strcmp(s, set[i])) return 1;
	return 0;
}

static int blank_str(jv s)
{
	const char *p;
	if (jv_get_kind(s) != JV_KIND_STRING) return 1;
	for (p = jv_string_value(s); *p; p++)
		if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r') return 0;
	return 1;
}

RAG_UNITTEST const char *rag_gen_check(jv v, int expect, jv *result, char *problem, size_t plen)
{
	jv arr = v, out;
	int n, i;
	if (jv_get_kind(v) == JV_KIND_OBJECT) arr = jv_object_get(v, jv_string("questions"));
	if (jv_get_kind(arr) != JV_KIND_ARRAY) {
		jv_free(arr);
		return "expected an object with a \"questions\" array";
	}
	n = jv_array_length(jv_copy(arr));
	problem[0] = 0;
	if (n != expect) snprintf(problem, plen, "%d question(s) came, %d were asked for", n, expect);
	out = jv_array();
	for (i = 0; i < n && !problem[0]; i++) {
		jv o = jv_array_get(jv_copy(arr), i), q, r, d, t;
		if (jv_get_kind(o) != JV_KIND_OBJECT) {
			snprintf(problem, plen, "questions[%d] is not an object", i);
			jv_free(o);
			break;
		}
		q = jv_object_get(jv_copy(o), jv_string("question"));
		r = jv_object_get(jv_copy(o), jv_string("reference"));
		d = jv_object_get(jv_copy(o), jv_string("difficulty"));
		t = jv_object_get(o, jv_string("type"));
		if (blank_str(q)) snprintf(problem, plen, "question %d has no \"question\" text", i + 1);
		else if (blank_str(r)) snprintf(problem, plen, "question %d has no \"reference\" answer", i + 1);
		else if (jv_get_kind(d) != JV_KIND_STRING || strcmp(jv_string_value(d), rag_gen_difficulty(i)))
			snprintf(problem, plen, "question %d must have the difficulty \"%s\"", i + 1, rag_gen_difficulty(i));
		else if (jv_get_kind(t) != JV_KIND_STRING || !one_of(jv_string_value(t), types, 3))
			snprintf(problem, plen, "question %d has no \"type\" of factual, explanatory, comparative", i + 1);
		if (problem[0]) {
			jv_free(q);
			jv_free(r);
			jv_free(d);
			jv_free(t);
			break;
		}
		out = jv_array_append(out, JV_OBJECT(jv_string("question"), q, jv_string("reference"), r,
		                                     jv_string("difficulty"), d, jv_string("type"), t));
	}
	jv_free(arr);
	if (problem[0]) {
		jv_free(out);
		return problem;
	}
	*result = out;
	return NULL;
}

void rag_gen_ask(rag_judge *j, const char *lang, const char *title, const char *text, int n, rag_usage *usage,
                 rag_judge_cb cb, void *arg)
{
	static const char *const hint =
		"{\"questions\": [{\"question\": \"...\", \"reference\": \"...\", \"difficulty\": \"easy|medium|hard\", "
		"\"type\": \"factual|explanatory|comparative\"}]} with exactly the questions asked for, each with the "
		"difficulty of its slot and a reference answer taken from the document";
	static const char *const dname[2][3] = {{"easy", "medium", "hard"}, {"easy（简单）", "medium（中等）", "hard（困难）"}};
	int lg = lang && !strcmp(lang, "zh"), i, d;
	char nonce[RAG_NONCE_LEN];
	rag_buf plan = {0};
	jv texts = JV_ARRAY(jv_string(title ? title : ""), jv_string(text)), vars;
	char *blk, *num;

	rag_prompt_nonce(texts, nonce);
	jv_free(texts);
	for (i = 0; i < n; i++) {
		const char *df = rag_gen_difficulty(i);
		for (d = 0; d < 3 && strcmp(df, difficulties[d]); d++)
			;
		/* d < 3: rag_gen_difficulty(i) is one of difficulties[] */
		/* cppcheck-suppress arrayIndexOutOfBounds */
		rag_buf_addf(&plan, "%d. %s, %s\n", i + 1, dname[lg][d], rag_gen_type(i));
	}
	blk = rag_prompt_block("DOCUMENT", nonce, text);
	num = rag_xasprintf("%d", n);
	vars = JV_OBJECT(jv_string("n"), jv_string(num), jv_string("plan"), jv_string(plan.p ? plan.p : ""),
	                 jv_string("title"), jv_string(title ? title : ""), jv_string("document"), jv_string(blk));
	free(blk);
	free(num);
	rag_buf_free(&plan);
	rag_judge_ask(j, &rag_op_gen, lang, vars, n, hint, usage, cb, arg);
}

/* ------------------------------------------------------------------ offline */

/* A sentence worth a question: a statement (no question, no heading), of 4 tokens at least. */
static int usable(const char *s)
{
	size_t n = strlen(s);
	jv toks;
	int k;
	if (!n || s[0] == '#' || s[n - 1] == '?' || (n >= 3 && !strcmp(s + n - 3, "\xEF\xBC\x9F"))) return 0;
	toks = rag_text_tokens(s);
	k = jv_array_length(toks);
	return k >= 4;
}

/* The subject of a sentence, by the rule rag-gen(1) states: English, the words before its first
 * verb of being or having (is, are, was, were, has, have, had, can, will), when there are one
 * to five; else its first three words, quoted, with "..."; Chinese, the characters before 是, 有
 * or 在 when there are one to ten, else its first eight characters, quoted, with "…". */
static char *subject(const char *s, int zh)
{
	static const char *const verbs[] = {"is", "are", "was", "were", "has", "have", "had", "can", "will", NULL};
	const char *p = s, *ends[6] = {0};
	int words = 0, k;
	size_t n;
	char *out, *quoted;
	if (zh) {
		long cp;
		int chars = 0;
		size_t i = 0, l, cut8 = 0;
		n = strlen(s);
		while (i < n && chars <= 10) {
			l = rag_utf8_decode(s + i, n - i, &cp);
			if (chars && (cp == 0x662F || cp == 0x6709 || cp == 0x5728)) return rag_xstrndup(s, i);   /* 是 有 在 */
			if (cp == 0xFF0C || cp == 0x3002 || cp == 0x3001) break;   /* ， 。 、 */
			i += l;
			if (++chars == 8) cut8 = i;
		}
		if (!cut8) cut8 = i;
		out = rag_xstrndup(s, cut8);
		quoted = rag_xasprintf("“%s…”", out);
		free(out);
		return quoted;
	}
	while (*p && words < 6) {
		const char *w = p;
		size_t l;
		while (*p && *p != ' ') p++;
		l = (size_t)(p - w);
		for (k = 0; verbs[k]; k++)
			if (strlen(verbs[k]) == l && !strncasecmp(w, verbs[k], l)) break;
		if (verbs[k] && words) {
			n = (size_t)(ends[words - 1] - s);
			out = rag_xstrndup(s, n);
			while (n && strchr(".,;:!", out[n - 1])) out[--n] = 0;
			return out;
		}
		ends[words++] = p;
		while (*p == ' ') p++;
	}
	n = (size_t)((words >= 3 ? ends[2] : ends[words ? words - 1 : 0] ? ends[words - 1] : s + strlen(s)) - s);
	out = rag_xstrndup(s, n);
	while (n && strchr(".,;:!", out[n - 1])) out[--n] = 0;
	quoted = rag_xasprintf("\"%s...\"", out);
	free(out);
	return quoted;
}

jv rag_gen_offline(const char *text, int n)
{
	rag_strv sent = {0};
	jv out = jv_array();
	size_t i;
	int made = 0;
	rag_offline_sentences(text, &sent, 1);
	for (i = 0; i < sent.n && made < n; i++) {
		const char *s = sent.v[i];
		int zh = !strcmp(rag_text_lang(s), "zh");
		char *subj, *q;
		if (!usable(s)) continue;
		subj = subject(s, zh);
		q = zh ? rag_xasprintf("文档中关于%s说了什么？", subj) : rag_xasprintf("What does the document say about %s?", subj);
		out = jv_array_append(out, JV_OBJECT(jv_string("question"), jv_string(q), jv_string("reference"), jv_string(s),
		                                     jv_string("difficulty"), jv_string("easy"), jv_string("type"),
		                                     jv_string("factual")));
		free(subj);
		free(q);
		made++;
	}
	rag_strv_free(&sent);
	return out;
}

/* ------------------------------------------------------------------ ids and duplicates */

char *rag_gen_id(const char *question, const char *chunk_id)
{
	char *s = rag_xasprintf("%s\n%s", question, chunk_id), hex[65];
	rag_sha256_hex(s, strlen(s), hex);
	free(s);
	hex[16] = 0;
	return rag_xasprintf("gen-%s", hex);
}

/* the distinct tokens of s */
static void token_set(const char *s, rag_strv *out)
{
	jv t = rag_text_tokens(s);
	int n = jv_array_length(jv_copy(t)), i;
	size_t k;
	for (i = 0; i < n; i++) {
		jv w = jv_array_get(jv_copy(t), i);
		for (k = 0; k < out->n && strcmp(out->v[k], jv_string_value(w)); k++)
			;
		if (k == out->n) rag_strv_push(out, rag_xstrdup(jv_string_value(w)));
		jv_free(w);
	}
	jv_free(t);
}

double rag_gen_similarity(const char *a, const char *b)
{
	rag_strv x = {0}, y = {0};
	size_t i, k, common = 0, all;
	token_set(a, &x);
	token_set(b, &y);
	for (i = 0; i < x.n; i++)
		for (k = 0; k < y.n; k++)
			if (!strcmp(x.v[i], y.v[k])) {
				common++;
				break;
			}
	all = x.n + y.n - common;
	rag_strv_free(&x);
	rag_strv_free(&y);
	return all ? (double)common / (double)all : 1;
}

/* 10 tokens, and 80 a question with its reference, difficulty and type */
static double completion(int expect)
{
	return 10 + 80.0 * (expect > 0 ? expect : 1);
}

/* the chunk's questions, each with its reference, difficulty and type */
const rag_op rag_op_gen = {
	.name = "gen",
	.reply = RAG_OP_JSON,
	.schema = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"questions\"],"
	          "\"properties\":{\"questions\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	          "\"additionalProperties\":false,\"required\":[\"question\",\"reference\",\"difficulty\",\"type\"],"
	          "\"properties\":{\"question\":{\"type\":\"string\"},\"reference\":{\"type\":\"string\"},"
	          "\"difficulty\":{\"type\":\"string\",\"enum\":[\"easy\",\"medium\",\"hard\"]},"
	          "\"type\":{\"type\":\"string\",\"enum\":[\"factual\",\"explanatory\",\"comparative\"]}}}}}}",
	.check = rag_gen_check,
	.completion = completion,
	.offline = "rag_gen_offline (rag-gen)",
};
