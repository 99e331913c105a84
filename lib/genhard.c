/* genhard.c - rag-gen's hard cases (rag-gen(1) HARD CASES): unanswerable questions, noisy
 * phrasings of a real question, multi-hop questions over two chunks, follow-ups to an earlier
 * turn. Asked of a model (prompt "genhard", one request a case), or made offline by rules that
 * are deterministic: the same documents give the same cases, seeded by the cases' own text. */
#include "base.h"
#include "usage.h"
#include "offline.h"
#include "llm.h"
#include "judge.h"
#include "gen.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *const rag_gen_kinds[RAG_GEN_NKINDS] = {"unanswerable", "noisy", "multi_hop", "follow_up"};

/* ------------------------------------------------------------------ noisy */

static unsigned long seed_of(const char *s)
{
	char hex[65];
	rag_sha256_hex(s, strlen(s), hex);
	hex[8] = 0;
	return strtoul(hex, NULL, 16);
}

/* the next number of a small linear congruential sequence */
static unsigned long next(unsigned long *x)
{
	*x = (*x * 1103515245UL + 12345UL) & 0x7fffffffUL;
	return *x >> 4;
}

/* Typos in an English question: in two of its words of four letters or more, chosen by the seed,
 * a swap of two neighbouring letters, then a letter dropped. */
static char *typos(const char *q, unsigned long x)
{
	char *s = rag_xstrdup(q), *p;
	size_t starts[64], lens[64], nw = 0;
	int e;
	for (p = s; *p && nw < 64;) {
		char *w;
		while (*p && !isalpha((unsigned char)*p)) p++;
		w = p;
		while (*p && isalpha((unsigned char)*p)) p++;
		if (p - w >= 4) {
			starts[nw] = (size_t)(w - s);
			lens[nw++] = (size_t)(p - w);
		}
	}
	for (e = 0; e < 2 && nw; e++) {
		size_t w = next(&x) % nw, at = starts[w] + 1 + next(&x) % (lens[w] - 2), n = strlen(s);
		if (e == 0) {
			char c = s[at];
			s[at] = s[at + 1];
			s[at + 1] = c;
		} else {
			memmove(s + at, s + at + 1, n - at);
			lens[w]--;
		}
	}
	return s;
}

char *rag_gen_noisy(const char *question)
{
	static const char *const en[] = {"hey quick q - %s", "um so %s", "pls help: %s"};
	static const char *const zh[] = {"请问一下，%s", "hi，想问下：%s", "那个，%s"};
	unsigned long x = seed_of(question);
	int k = (int)(next(&x) % 3);
	char *t, *out;
	size_t n;
	if (!strcmp(rag_text_lang(question), "zh")) {
		/* a Chinese question: colloquial and mixed with English, its characters kept (a typo in
		 * a Han character is another word, not a slip) */
		out = rag_xasprintf(zh[k], question);
		return out;
	}
	t = typos(question, x);
	n = strlen(t);
	while (n && (t[n - 1] == '?' || t[n - 1] == ' ')) t[--n] = 0;
	for (n = 0; t[n]; n++) t[n] = (char)tolower((unsigned char)t[n]);
	out = rag_xasprintf(en[k], t);
	free(t);
	{
		char *q = rag_xasprintf("%s??", out);
		free(out);
		out = q;
	}
	return out;
}

/* ------------------------------------------------------------------ multi-hop */

static int stop_word(const char *w)
{
	static const char *const stop[] = {"about", "after", "again", "before", "being", "below", "between", "could",
		"doing", "during", "every", "their", "there", "these", "those", "through", "under", "until", "where",
		"which", "while", "would", "should", "other", "using", "based", "first", "within", NULL};
	int i;
	for (i = 0; stop[i]; i++)
		if (!strcmp(w, stop[i])) return 1;
	return 0;
}

/* The terms of a text: its English words of five letters or more (lower case, no stop word) and
 * its pairs of neighbouring Han characters, distinct, in text order. */
static void terms(const char *s, rag_strv *out)
{
	size_t n = strlen(s), i = 0, k;
	long prev = 0;
	size_t prev_at = 0;
	while (i < n) {
		long cp;
		size_t l = rag_utf8_decode(s + i, n - i, &cp);
		char *t = NULL;
		if (!l) l = 1;
		if (isalpha((unsigned char)s[i])) {
			size_t j = i;
			while (j < n && isalpha((unsigned char)s[j])) j++;
			if (j - i >= 5) {
				t = rag_xstrndup(s + i, j - i);
				for (k = 0; t[k]; k++) t[k] = (char)tolower((unsigned char)t[k]);
				if (stop_word(t)) {
					free(t);
					t = NULL;
				}
			}
			i = j;
			prev = 0;
		} else {
			if (rag_text_is_cjk(cp) && rag_text_is_cjk(prev) && cp != 0x7684 && prev != 0x7684)   /* not 的 */
				t = rag_xstrndup(s + prev_at, i + l - prev_at);
			prev = cp;
			prev_at = i;
			i += l;
		}
		if (!t) continue;
		for (k = 0; k < out->n && strcmp(out->v[k], t); k++)
			;
		if (k < out->n) free(t);
		else rag_strv_push(out, t);
	}
}

int rag_gen_shared(const char *a, const char *b, char **term)
{
	rag_strv x = {0}, y = {0};
	size_t i, k;
	int shared = 0;
	const char *best = NULL;
	*term = NULL;
	terms(a, &x);
	terms(b, &y);
	for (i = 0; i < x.n; i++)
		for (k = 0; k < y.n; k++)
			if (!strcmp(x.v[i], y.v[k])) {
				shared++;
				if (!best || strlen(x.v[i]) > strlen(best)) best = x.v[i];
				break;
			}
	if (best) *term = rag_xstrdup(best);
	rag_strv_free(&x);
	rag_strv_free(&y);
	return shared;
}

/* the first sentence of text that holds term (ASCII case ignored), malloc'ed, or NULL */
static char *sentence_with(const char *text, const char *term)
{
	rag_strv sent = {0};
	size_t i, k;
	char *out = NULL;
	rag_offline_sentences(text, &sent, 1);
	for (i = 0; i < sent.n && !out; i++) {
		char *low = rag_xstrdup(sent.v[i]);
		for (k = 0; low[k]; k++) low[k] = (char)tolower((unsigned char)low[k]);
		if (low[0] != '#' && strstr(low, term)) out = rag_xstrdup(sent.v[i]);
		free(low);
	}
	rag_strv_free(&sent);
	return out;
}

jv rag_gen_offline_multihop(const char *term, const char *title_a, const char *text_a, const char *title_b,
                            const char *text_b)
{
	char *sa = sentence_with(text_a, term), *sb = sentence_with(text_b, term), *q, *r;
	int zh = !strcmp(rag_text_lang(text_a), "zh");
	jv out;
	if (!sa || !sb) {
		free(sa);
		free(sb);
		return jv_null();
	}
	q = zh ? rag_xasprintf("关于“%s”，“%s”和“%s”分别说了什么？", term, title_a, title_b)
	       : rag_xasprintf("What do \"%s\" and \"%s\" each say about %s?", title_a, title_b, term);
	r = rag_xasprintf(zh ? "%s%s" : "%s %s", sa, sb);
	out = JV_OBJECT(jv_string("question"), jv_string(q), jv_string("reference"), jv_string(r));
	free(sa);
	free(sb);
	free(q);
	free(r);
	return out;
}

/* ------------------------------------------------------------------ follow-up and unanswerable */

const char *rag_gen_offline_followup(const char *lang)
{
	return lang && !strcmp(lang, "zh") ? "那在这之后，它接着说了什么？" : "And what does it say right after that?";
}

char *rag_gen_offline_unanswerable(const char *subject, const char *lang, const char *corpus, int turn)
{
	static const struct { const char *key, *en, *zh; } asks[] = {
		{"invent", "Who invented %s, and in which year?", NULL},
		{"warrant", "How long is the warranty on %s?", NULL},
		{"price", "What is the price of %s in euros?", NULL},
		{"patent", "Which patent number covers %s?", NULL},
		{"发明", NULL, "%s是谁在哪一年发明的？"},
		{"保修", NULL, "%s的保修期是多久？"},
		{"价格", NULL, "%s的价格是多少欧元？"},
		{"专利", NULL, "哪一项专利涵盖%s？"},
	};
	int zh = lang && !strcmp(lang, "zh"), i, n = (int)(sizeof asks / sizeof asks[0]), tried;
	char *low = rag_xstrdup(corpus ? corpus : ""), *out = NULL;
	size_t k;
	for (k = 0; low[k]; k++) low[k] = (char)tolower((unsigned char)low[k]);
	/* an attribute the documents never name, so that they cannot answer it; turn by turn */
	for (tried = 0; tried < n && !out; tried++) {
		i = (turn + tried) % n;
		if (!(zh ? asks[i].zh : asks[i].en) || strstr(low, asks[i].key)) continue;
		out = rag_xasprintf(zh ? asks[i].zh : asks[i].en, subject);
	}
	free(low);
	return out;
}

/* ------------------------------------------------------------------ with a model */

static int blank(jv s)
{
	const char *p;
	if (jv_get_kind(s) != JV_KIND_STRING) return 1;
	for (p = jv_string_value(s); *p; p++)
		if (!isspace((unsigned char)*p)) return 0;
	return 1;
}

RAG_UNITTEST const char *rag_gen_hard_check(jv v, int kind, jv *result, char *problem, size_t plen)
{
	jv q, r;
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return "expected an object with a \"question\"";
	}
	q = jv_object_get(jv_copy(v), jv_string("question"));
	r = jv_object_get(v, jv_string("reference"));
	problem[0] = 0;
	if (blank(q)) snprintf(problem, plen, "no \"question\" text");
	else if ((kind == RAG_GEN_MULTI_HOP || kind == RAG_GEN_FOLLOW_UP) && blank(r))
		snprintf(problem, plen, "no \"reference\" answer: a %s question needs one", rag_gen_kinds[kind]);
	if (problem[0]) {
		jv_free(q);
		jv_free(r);
		return problem;
	}
	*result = JV_OBJECT(jv_string("question"), q, jv_string("reference"), blank(r) ? (jv_free(r), jv_string("")) : r);
	return NULL;
}

void rag_gen_hard_ask(rag_judge *j, const char *lang, int kind, int nth, const char *text_a, const char *text_b,
                      const char *question, const char *answer, rag_usage *usage, rag_judge_cb cb, void *arg)
{
	static const char *const hint = "{\"question\": \"...\", \"reference\": \"...\"}: the one question of the kind asked "
		"for, and its reference answer from the documents (empty for an unanswerable or noisy question)";
	char nonce[RAG_NONCE_LEN];
	jv texts = JV_ARRAY(jv_string(text_a), jv_string(text_b ? text_b : ""), jv_string(question ? question : ""),
	                    jv_string(answer ? answer : "")), vars;
	char *docs, num[16];
	snprintf(num, sizeof num, "%d", nth);
	rag_prompt_nonce(texts, nonce);
	jv_free(texts);
	if (text_b) {
		char *a = rag_prompt_block("DOCUMENT", nonce, text_a), *b = rag_prompt_block("DOCUMENT", nonce, text_b);
		docs = rag_xasprintf("%s\n\n%s", a, b);
		free(a);
		free(b);
	} else {
		docs = rag_prompt_block("DOCUMENT", nonce, text_a);
	}
	vars = JV_OBJECT(jv_string("kind"), jv_string(rag_gen_kinds[kind]), jv_string("nth"), jv_string(num),
	                 jv_string("documents"), jv_string(docs),
	                 jv_string("question"), rag_prompt_blockv("QUESTION", nonce, question ? question : ""),
	                 jv_string("answer"), rag_prompt_blockv("ANSWER", nonce, answer ? answer : ""));
	free(docs);
	rag_judge_ask(j, &rag_op_genhard, lang, vars, kind, hint, usage, cb, arg);
}

/* 10 tokens, and 40 the question and its reference */
static double completion(int kind)
{
	(void)kind;
	return 10 + 40.0;
}

/* one hard case: a question and its reference ("" when it has none) */
const rag_op rag_op_genhard = {
	.name = "genhard",
	.reply = RAG_OP_JSON,
	.schema = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"question\",\"reference\"],"
	          "\"properties\":{\"question\":{\"type\":\"string\"},\"reference\":{\"type\":\"string\"}}}",
	.check = rag_gen_hard_check,
	.completion = completion,
	.offline = "rag_gen_offline_unanswerable, _multihop, _followup (rag-gen)",
};
