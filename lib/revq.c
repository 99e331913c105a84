/* revq.c - reverse questions for answer relevancy: from an answer alone, the questions it would
 * answer, and whether it is noncommittal (evasive, vague, "I don't know").
 *
 * The judge never sees the real question: a question it could copy would make every answer look
 * relevant. Offline, no question can honestly be generated, so the answer itself stands in as the
 * one pseudo-question (the caller flags it), and noncommittal answers are recognised from a list
 * of refusal phrasings (share/refusals.txt). */
#include "rag.h"

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
	rag_judge_ask_n(op->j, "revq", op->lang, vars, choices, check_revq, questions,
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
