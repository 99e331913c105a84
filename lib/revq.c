/* revq.c - reverse questions for answer relevancy: from an answer alone, the questions it would
 * answer, and whether it is noncommittal (evasive, vague, "I don't know").
 *
 * The judge never sees the real question: a question it could copy would make every answer look
 * relevant. Offline, no question can honestly be generated, so the answer itself stands in as the
 * one pseudo-question (the caller flags it), and noncommittal answers are recognised from a list
 * of refusal phrasings (share/refusals.txt). */
#include "base.h"
#include "usage.h"
#include "llm.h"
#include "judge.h"
#include "metric.h"

#include <stdlib.h>
#include <string.h>

/* NFKC + case fold, typographic apostrophes made plain, runs of blanks made one space */
static char *fold(const char *s)
{
	char *n = rag_text_normalize(s), *o, *p, *q;
	if (!n) {
		char *fixed = rag_utf8_sanitize(s, strlen(s));
		n = rag_text_normalize(fixed);
		free(fixed);
		if (!n) return rag_xstrdup("");
	}
	o = rag_xmalloc(strlen(n) + 1);
	for (p = n, q = o; *p;) {
		if ((unsigned char)p[0] == 0xe2 && (unsigned char)p[1] == 0x80 &&
		    ((unsigned char)p[2] == 0x98 || (unsigned char)p[2] == 0x99)) {   /* ‘ ’ */
			*q++ = '\'';
			p += 3;
		} else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			if (q > o && q[-1] != ' ') *q++ = ' ';
			p++;
		} else {
			*q++ = *p++;
		}
	}
	*q = 0;
	free(n);
	return o;
}

jv rag_revq_refusals_load(const char *path, char *err, size_t errlen)
{
	size_t len;
	char *text = rag_read_file(path, &len, err, errlen), *line, *save = NULL;
	jv out = jv_array();
	if (!text) {
		jv_free(out);
		return jv_invalid();
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f;
		while (*line == ' ' || *line == '\t') line++;
		if (*line == '#' || *line == 0 || *line == '\r') continue;
		f = fold(line);
		{
			size_t n = strlen(f);
			while (n > 0 && f[n - 1] == ' ') f[--n] = 0;
			if (n) out = jv_array_append(out, jv_string(f));
		}
		free(f);
	}
	free(text);
	return out;
}

int rag_revq_noncommittal(jv phrases, const char *answer)
{
	char *a = fold(answer ? answer : "");
	int i, n = jv_array_length(jv_copy(phrases)), hit = 0;
	const char *p = a;
	while (*p == ' ') p++;
	if (!*p) hit = 1;         /* saying nothing commits to nothing */
	for (i = 0; i < n && !hit; i++) {
		jv s = jv_array_get(jv_copy(phrases), i);
		hit = strstr(a, jv_string_value(s)) != NULL;
		jv_free(s);
	}
	free(a);
	return hit;
}

/* ------------------------------------------------------------------ with a judge */

static int truthy(jv v, int *out)
{
	switch (jv_get_kind(v)) {
	case JV_KIND_TRUE: *out = 1; return 0;
	case JV_KIND_FALSE: *out = 0; return 0;
	case JV_KIND_NUMBER: *out = jv_number_value(v) != 0; return 0;
	case JV_KIND_STRING:
		if (!strcmp(jv_string_value(v), "true") || !strcmp(jv_string_value(v), "1")) { *out = 1; return 0; }
		if (!strcmp(jv_string_value(v), "false") || !strcmp(jv_string_value(v), "0")) { *out = 0; return 0; }
		return -1;
	default: return -1;
	}
}

/* {"questions": ["..."], "noncommittal": bool} -> {"generated": [...], "noncommittal": bool};
 * at most expect questions kept, at least one needed. */
static const char *check_revq(jv v, int expect, jv *result, char *problem, size_t plen)
{
	jv qs, nc, out = jv_array();
	int i, n, flag;
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		jv_free(out);
		return "expected an object with \"questions\" and \"noncommittal\"";
	}
	qs = jv_object_get(jv_copy(v), jv_string("questions"));
	if (jv_get_kind(qs) == JV_KIND_INVALID || jv_get_kind(qs) == JV_KIND_NULL) {
		jv_free(qs);
		qs = jv_object_get(jv_copy(v), jv_string("question"));
	}
	if (jv_get_kind(qs) == JV_KIND_STRING) qs = jv_array_append(jv_array(), qs);
	nc = jv_object_get(v, jv_string("noncommittal"));
	if (truthy(nc, &flag) < 0) {
		jv_free(nc);
		jv_free(qs);
		jv_free(out);
		return "\"noncommittal\" must be true or false";
	}
	jv_free(nc);
	if (jv_get_kind(qs) != JV_KIND_ARRAY) {
		jv_free(qs);
		jv_free(out);
		return "expected a \"questions\" array";
	}
	n = jv_array_length(jv_copy(qs));
	for (i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(qs), i);
		if (jv_get_kind(s) != JV_KIND_STRING) {
			jv_free(s);
			jv_free(qs);
			jv_free(out);
			snprintf(problem, plen, "questions[%d] is not a string", i);
			return problem;
		}
		{
			char *t = rag_xstrdup(jv_string_value(s)), *p = t, *e;
			for (e = t; *e; e++)
				if (*e == '\n' || *e == '\r' || *e == '\t') *e = ' ';
			while (*p == ' ') p++;
			e = p + strlen(p);
			while (e > p && e[-1] == ' ') *--e = 0;
			if (*p && jv_array_length(jv_copy(out)) < expect) out = jv_array_append(out, jv_string(p));
			free(t);
		}
		jv_free(s);
	}
	jv_free(qs);
	if (jv_array_length(jv_copy(out)) == 0) {
		jv_free(out);
		return "no question in \"questions\"";
	}
	*result = JV_OBJECT(jv_string("generated"), out, jv_string("noncommittal"), jv_bool(flag));
	return NULL;
}

typedef struct revq_op {
	int left;
	jv generated;
	int noncommittal;
	char *error;
	rag_judge *j;
	char *lang, *blk;
	int n;
	rag_usage *usage;
	rag_judge_cb cb;
	void *arg;
} revq_op;

static void one_done(void *arg, jv result, const char *error);
static void release(revq_op *op);

/* Ask for one generation of count: request i of n when separate (variant "i/n"), or all n at once */
static void ask(revq_op *op, int questions, int choices, int i, int of)
{
	char num[32], *variant = rag_xasprintf("%d/%d", i, of);
	jv vars = jv_object();
	snprintf(num, sizeof num, "%d", questions);
	/* requests that differ only by this line: each is its own generation (and cache entry) */
	vars = jv_object_set(vars, jv_string("answer"), jv_string(op->blk));
	vars = jv_object_set(vars, jv_string("n"), jv_string(num));
	vars = jv_object_set(vars, jv_string("variant"), jv_string(variant));
	free(variant);
	rag_judge_ask_n(op->j, &rag_op_revq, op->lang, vars, choices, questions,
	                "{\"questions\": [\"...\"], \"noncommittal\": false}", op->usage, one_done, op);
}

static void merge(revq_op *op, jv result)
{
	jv g = jv_object_get(jv_copy(result), jv_string("generated"));
	jv nc = jv_object_get(result, jv_string("noncommittal"));
	int i, n = jv_array_length(jv_copy(g));
	for (i = 0; i < n; i++) op->generated = jv_array_append(op->generated, jv_array_get(jv_copy(g), i));
	/* one generation that finds the answer evasive is enough, as in RAGAS */
	if (jv_get_kind(nc) == JV_KIND_TRUE) op->noncommittal = 1;
	jv_free(g);
	jv_free(nc);
}

static void one_done(void *arg, jv result, const char *error)
{
	revq_op *op = arg;
	if (error) {
		if (!op->error) op->error = rag_xstrdup(error);
	} else if (jv_get_kind(result) == JV_KIND_ARRAY) {
		/* the choices of one request with "n" */
		int i, got = jv_array_length(jv_copy(result));
		for (i = 0; i < got; i++) merge(op, jv_array_get(jv_copy(result), i));
		/* an endpoint that ignores "n" gave fewer: the rest as separate requests */
		for (i = got; i < op->n; i++) {
			op->left++;
			ask(op, 1, 1, i + 1, op->n);
		}
	} else {
		merge(op, jv_copy(result));
	}
	jv_free(result);
	release(op);
}

/* One answer (or the set-up's hold) less to wait for; the last one delivers. */
static void release(revq_op *op)
{
	if (--op->left > 0) return;
	if (op->error) {
		jv_free(op->generated);
		op->cb(op->arg, jv_null(), op->error);
	} else {
		op->cb(op->arg, JV_OBJECT(jv_string("generated"), op->generated, jv_string("noncommittal"),
		                          jv_bool(op->noncommittal)), NULL);
	}
	free(op->error);
	free(op->lang);
	free(op->blk);
	free(op);
}

void rag_revq_ask(rag_judge *j, const char *lang, const char *answer, int n, int mode,
                  rag_usage *usage, rag_judge_cb cb, void *arg)
{
	revq_op *op = rag_xmalloc(sizeof *op);
	int i;
	memset(op, 0, sizeof *op);
	op->generated = jv_array();
	op->j = j;
	op->lang = rag_xstrdup(lang);
	{
		char nonce[RAG_NONCE_LEN];
		jv texts = JV_ARRAY(jv_string(answer));
		rag_prompt_nonce(texts, nonce);
		jv_free(texts);
		op->blk = rag_prompt_block("ANSWER", nonce, answer);
	}
	op->n = n;
	op->usage = usage;
	op->cb = cb;
	op->arg = arg;
	if (mode == RAG_REVQ_REQUESTS && n > 1) {
		op->left = n + 1;          /* held until every request is out */
		for (i = 0; i < n; i++) ask(op, 1, 1, i + 1, n);
		release(op);
	} else if (mode == RAG_REVQ_N && n > 1) {
		op->left = 1;
		ask(op, 1, n, 1, 1);
	} else {
		op->left = 1;
		ask(op, n, 1, 1, 1);
	}
}

/* ------------------------------------------------------------------ offline */
/* What kind of answer a question asks for, from its question words. */
enum expect { EXP_NONE, EXP_NUMBER, EXP_TIME, EXP_NAME, EXP_REASON, EXP_POLAR };

static const char *const expect_name[] = {"", "a number", "a time", "a name", "a reason", "yes or no"};

/* The ASCII words of s (letters, digits, apostrophes), lowercased when fold, in order. */
static void ascii_words(const char *s, int fold_case, rag_strv *out)
{
	const char *p = s;
	while (*p) {
		const char *b;
		while (*p && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) p++;
		if (!*p) break;
		b = p;
		while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '\'') p++;
		{
			char *w = rag_xstrndup(b, (size_t)(p - b));
			if (fold_case)
				for (char *c = w; *c; c++)
					if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
			rag_strv_push(out, w);
		}
	}
}

static int in_list(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list)) return 1;
	return 0;
}

static int strv_has(const rag_strv *v, const char *w)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], w)) return 1;
	return 0;
}

static int has_any(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strstr(s, *list)) return 1;
	return 0;
}

static int has_cjk(const char *s)
{
	size_t i = 0, len = strlen(s);
	while (i < len) {
		long cp;
		i += rag_utf8_decode(s + i, len - i, &cp);
		if (rag_text_is_cjk(cp)) return 1;
	}
	return 0;
}

static enum expect expectation(const char *question, const rag_strv *qw)
{
	static const char *const how_num[] = {"many", "much", "long", "old", "far", "big", "tall", "large", "high",
	                                      "often", "deep", "wide", "fast", "heavy", NULL};
	static const char *const what_time[] = {"year", "years", "time", "date", "day", "month", "century",
	                                        "decade", "era", "period", NULL};
	static const char *const what_num[] = {"percentage", "percent", "number", "amount", NULL};
	static const char *const aux[] = {"is", "are", "was", "were", "do", "does", "did", "can", "could", "will",
	                                  "would", "has", "have", "had", "should", "may", "might", "must", "shall",
	                                  "isn't", "aren't", "wasn't", "doesn't", "don't", "didn't", "can't", NULL};
	static const char *const zh_reason[] = {"为什么", "为何", "什么原因", "原因是", NULL};
	static const char *const zh_time[] = {"什么时候", "何时", "哪一年", "哪年", "几月", "哪天", "哪一天",
	                                      "什么时间", "几点", "哪个月", NULL};
	static const char *const zh_num[] = {"多少", "几", "多久", "多长", "多大", "多高", "多远", "多重", NULL};
	static const char *const zh_polar[] = {"是否", "是不是", "有没有", "能否", "可否", "会不会", "能不能", NULL};
	size_t i;
	if (has_cjk(question)) {
		size_t n = strlen(question);
		if (has_any(question, zh_reason)) return EXP_REASON;
		if (has_any(question, zh_time)) return EXP_TIME;
		if (has_any(question, zh_num)) return EXP_NUMBER;
		if (has_any(question, zh_polar)) return EXP_POLAR;
		/* 吗 at the end, before any question mark */
		while (n > 0 && (question[n - 1] == '?' || question[n - 1] == ' ')) n--;
		if (n >= 3 && !memcmp(question + n - 3, "？", 3)) n -= 3;
		if (n >= 3 && !memcmp(question + n - 3, "吗", 3)) return EXP_POLAR;
		return EXP_NONE;     /* 谁, 哪里, 什么: no mark of the answer's kind in Chinese text here */
	}
	for (i = 0; i < qw->n; i++) {
		const char *w = qw->v[i], *next = i + 1 < qw->n ? qw->v[i + 1] : "";
		if (!strcmp(w, "how") && in_list(next, how_num)) return EXP_NUMBER;
		if (!strcmp(w, "when")) return EXP_TIME;
		if ((!strcmp(w, "what") || !strcmp(w, "which")) && in_list(next, what_time)) return EXP_TIME;
		if ((!strcmp(w, "what") || !strcmp(w, "which")) && in_list(next, what_num)) return EXP_NUMBER;
		if (!strcmp(w, "who") || !strcmp(w, "whom") || !strcmp(w, "whose") || !strcmp(w, "who's") ||
		    !strcmp(w, "where")) return EXP_NAME;
		if (!strcmp(w, "why")) return EXP_REASON;
	}
	if (qw->n && in_list(qw->v[0], aux)) return EXP_POLAR;
	return EXP_NONE;
}

/* Does the answer give what was expected, beyond what the question already says? */
static int expectation_met(enum expect e, const char *answer, const char *question, const rag_strv *qw)
{
	static const char *const numbers[] = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
	                                      "ten", "eleven", "twelve", "twenty", "thirty", "forty", "fifty", "sixty",
	                                      "seventy", "eighty", "ninety", "hundred", "hundreds", "thousand",
	                                      "thousands", "million", "millions", "billion", "dozen", "half", "once",
	                                      "twice", NULL};
	static const char *const times[] = {"january", "february", "march", "april", "may", "june", "july", "august",
	                                    "september", "october", "november", "december", "monday", "tuesday",
	                                    "wednesday", "thursday", "friday", "saturday", "sunday", "century",
	                                    "centuries", "decade", "decades", "year", "years", "ago", "spring",
	                                    "summer", "autumn", "winter", "today", "yesterday", "morning", "evening",
	                                    "night", "bc", "ad", "bce", "ce", NULL};
	static const char *const reasons[] = {"because", "since", "due", "cause", "caused", "causes", "causing",
	                                      "reason", "reasons", "therefore", "thus", "hence", "so", "consequently",
	                                      "result", "resulted", "resulting", "owing", "order", "lead", "leads",
	                                      "led", NULL};
	static const char *const yesno[] = {"yes", "no", "yeah", "nope", "not", "never", "correct", "indeed", NULL};
	static const char *const zh_reason[] = {"因为", "由于", "所以", "因此", "为了", "原因", "导致", "因而", "于是",
	                                        "以便", "使得", NULL};
	static const char *const zh_yesno[] = {"是", "不", "没", "对", "有", "能", "可以", "会", NULL};
	static const char *const zh_numerals[] = {"〇", "零", "一", "二", "三", "四", "五", "六", "七", "八", "九",
	                                          "十", "百", "千", "万", "亿", "两", NULL};
	rag_strv aw = {0}, raw = {0};
	int met = 0;
	size_t i;
	ascii_words(answer, 1, &aw);
	ascii_words(answer, 0, &raw);
	if (e == EXP_POLAR) {
		const char *p = answer;
		while (*p == ' ' || *p == '\n' || *p == '"') p++;
		met = aw.n && in_list(aw.v[0], yesno) && (p[0] | 0x20) == aw.v[0][0];
		for (const char *const *z = zh_yesno; !met && *z; z++) met = !strncmp(p, *z, strlen(*z));
	} else if (e == EXP_REASON) {
		for (i = 0; i < aw.n && !met; i++) met = in_list(aw.v[i], reasons);
		met = met || has_any(answer, zh_reason);
	} else if (e == EXP_NUMBER || e == EXP_TIME) {
		for (i = 0; i < aw.n && !met; i++) {
			const char *w = aw.v[i];
			if (strv_has(qw, w)) continue;            /* the question's own number */
			met = strpbrk(w, "0123456789") != NULL || in_list(w, numbers) || (e == EXP_TIME && in_list(w, times));
		}
		for (const char *const *z = zh_numerals; !met && *z; z++) met = strstr(answer, *z) && !strstr(question, *z);
		if (!met && e == EXP_TIME)
			met = (strstr(answer, "年") && !strstr(question, "年")) || (strstr(answer, "月") && !strstr(question, "月")) ||
			      strstr(answer, "世纪") || strstr(answer, "时期");
	} else if (e == EXP_NAME) {
		/* a capitalised word that does not begin a sentence and is not the question's */
		const char *p = answer;
		int sentence_start = 1;
		size_t k = 0;
		while (*p && !met) {
			if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) {
				if (k < raw.n) {
					if (!sentence_start && raw.v[k][0] >= 'A' && raw.v[k][0] <= 'Z' && !strv_has(qw, aw.v[k])) met = 1;
					p += strlen(raw.v[k]);
					k++;
				} else {
					p++;
				}
				sentence_start = 0;
			} else {
				if (*p == '.' || *p == '!' || *p == '?' || *p == '\n') sentence_start = 1;
				p++;
			}
		}
	}
	rag_strv_free(&aw);
	rag_strv_free(&raw);
	return met;
}

/* The distinct tokens (rag_text_tokens) of s, as an object of true; their count in *n. */
static jv tokset(const char *s, int *n)
{
	jv t = rag_text_tokens(s), o = jv_object();
	int k, len = jv_array_length(jv_copy(t));
	for (k = 0; k < len; k++) o = jv_object_set(o, jv_array_get(jv_copy(t), k), jv_true());
	jv_free(t);
	*n = jv_object_length(jv_copy(o));
	return o;
}

double rag_revq_offline(const char *question, const char *answer, char *why, size_t whylen)
{
	int nq, na, shared = 0, it, met = 0, fresh = 0;
	jv all = tokset(question ? question : "", &nq), a = tokset(answer ? answer : "", &na), q;
	rag_strv qw = {0};
	enum expect e;
	double cov, score;
	char *subj;

	/* the words that ask (how many, what year; 哪里, 多少) are no subject the answer should repeat */
	ascii_words(question ? question : "", 1, &qw);
	subj = rag_chunks_subject(question ? question : "");
	q = tokset(subj, &nq);
	free(subj);
	nq = jv_object_length(jv_copy(q));
	for (it = jv_object_iter(a); jv_object_iter_valid(a, it); it = jv_object_iter_next(a, it)) {
		jv k = jv_object_iter_key(a, it);
		shared += jv_object_has(jv_copy(q), jv_copy(k));
		fresh += !jv_object_has(jv_copy(all), k);      /* new to the whole question */
	}
	/* a question word inside a longer word of the answer, or the other way round ("bowl" in
	 * "superbowl", "people" in "peoples"): the same word, written otherwise */
	for (it = jv_object_iter(q); jv_object_iter_valid(q, it); it = jv_object_iter_next(q, it)) {
		jv k = jv_object_iter_key(q, it);
		const char *w = jv_string_value(k);
		int it2, hit = 0;
		if (strlen(w) >= 4 && !jv_object_has(jv_copy(a), jv_copy(k)))
			for (it2 = jv_object_iter(a); !hit && jv_object_iter_valid(a, it2); it2 = jv_object_iter_next(a, it2)) {
				jv k2 = jv_object_iter_key(a, it2);
				const char *x = jv_string_value(k2);
				hit = strlen(x) >= 4 && !has_cjk(x) && !has_cjk(w) && (strstr(x, w) || strstr(w, x));
				jv_free(k2);
			}
		shared += hit;
		jv_free(k);
	}
	jv_free(q);
	jv_free(all);
	jv_free(a);
	cov = nq ? (double)shared / nq : 0;
	e = expectation(question ? question : "", &qw);
	if (e != EXP_NONE) met = expectation_met(e, answer ? answer : "", question ? question : "", &qw);
	rag_strv_free(&qw);
	if (fresh == 0 && !(e == EXP_POLAR && met)) {
		snprintf(why, whylen, "the answer adds nothing to the question");
		return 0;
	}
	if (nq && shared == 0 && fresh <= 3) {
		/* a bare answer ("In 1889.", "Paris."): none of the question's words to go by */
		score = e == EXP_NONE || e == EXP_POLAR ? (met ? 1 : 0.5) : met ? 1 : 0.25;
		snprintf(why, whylen, "a short answer without the question's words%s%s%s", e == EXP_NONE ? "" : "; it asks for ",
		         expect_name[e], e == EXP_NONE ? ": cannot tell offline" : met ? ", which the answer gives"
		         : ", which the answer does not give");
		return score;
	}
	/* the question's words the answer takes up: what it is about. A missing kind of answer (no
	 * number for "how many", no time for "when", no name for "who", no cause for "why") halves
	 * that: it is what an answer must have, while having it proves little (any sentence may hold
	 * a number). A yes or no answers a yes-no question whatever the rest. */
	score = nq ? cov : 0.5;
	if (e == EXP_POLAR && met) {
		score = (1 + score) / 2;
		snprintf(why, whylen, "%d%% of the question's content words in the answer; a yes or no for a yes-no "
		         "question", (int)(cov * 100 + 0.5));
	} else if (e != EXP_NONE && e != EXP_POLAR && !met) {
		score /= 2;
		snprintf(why, whylen, "%d%% of the question's content words in the answer; it asks for %s, which the "
		         "answer does not give (halved)", (int)(cov * 100 + 0.5), expect_name[e]);
	} else {
		snprintf(why, whylen, "%d%% of the question's content words in the answer%s%s", (int)(cov * 100 + 0.5),
		         e == EXP_NONE || e == EXP_POLAR ? "" : "; it asks for ", e == EXP_NONE || e == EXP_POLAR ? ""
		         : expect_name[e]);
	}
	return score;
}

/* 10 tokens, and 25 a question, for each choice */
static double completion(int expect)
{
	return 10 + 25.0 * (expect > 0 ? expect : 1);
}

const rag_op rag_op_revq = {
	.name = "revq",
	.reply = RAG_OP_JSON,
	.schema = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"questions\",\"noncommittal\"],"
	          "\"properties\":{\"questions\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
	          "\"noncommittal\":{\"type\":\"boolean\"}}}",
	.check = check_revq,
	.completion = completion,
	.offline = "rag_revq_offline (rag-embsim, from questions.offline_pseudo)",
};
