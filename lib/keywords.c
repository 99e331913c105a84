/* keywords.c - the keywords of a text, and how many of a reference's an answer has.
 *
 * English keywords are rag_text_tokens' (stemmed, stop words and negators dropped, numbers
 * canonical). Chinese is written without spaces: ICU's word break iterator segments it with its
 * dictionary, so that keywords are words (退货, 签收) and not single characters or bigrams.
 * ICU's dictionary lacks many two-character words and gives them as single characters
 * (签收 -> 签 收), so a run of single Han characters that are not stop words is joined into one
 * word again. */
#include "rag.h"

#include <stdlib.h>
#include <string.h>
#include <unicode/ubrk.h>
#include <unicode/ustring.h>

struct rag_keywords {
	UBreakIterator *brk;
};

/* Function words, pronouns and modal verbs, as the English stop words of text.c. */
static const char *const zh_stop[] = {
	"一个", "也", "了", "于", "从", "他", "他们", "以", "会", "但", "但是", "你", "你们", "内",
	"前", "可以", "后", "吗", "吧", "呢", "和", "啊", "因为", "在", "她", "它", "就", "对", "所以",
	"把", "是", "时", "有", "来", "由", "的", "着", "能", "被", "要", "这", "这个", "那", "那个",
	"都", "而", "过", "还", "我", "我们", "或", "与", "及", "之", "应该", "得", "地", "如果",
};

static int is_stop(const char *w)
{
	size_t i;
	for (i = 0; i < sizeof zh_stop / sizeof *zh_stop; i++)
		if (!strcmp(w, zh_stop[i])) return 1;
	return 0;
}

rag_keywords *rag_keywords_new(char *err, size_t errlen)
{
	rag_keywords *k = rag_xcalloc(1, sizeof *k);
	UErrorCode e = U_ZERO_ERROR;
	k->brk = ubrk_open(UBRK_WORD, "zh", NULL, 0, &e);
	if (U_FAILURE(e)) {
		rag_seterr(err, errlen, "cannot open ICU's word break iterator: %s", u_errorName(e));
		free(k);
		return NULL;
	}
	return k;
}

void rag_keywords_free(rag_keywords *k)
{
	if (!k) return;
	ubrk_close(k->brk);
	free(k);
}

static int has_cjk(const char *s)
{
	size_t n = strlen(s), i = 0;
	long c;
	while (i < n) {
		i += rag_utf8_decode(s + i, n - i, &c);
		if (rag_text_is_cjk(c)) return 1;
	}
	return 0;
}

struct kwlist {
	jv out;                   /* the keywords, distinct, in text order */
	jv seen;                  /* object: keyword -> true */
};

static void add(struct kwlist *l, const char *w, size_t n)
{
	jv key = jv_string_sized(w, (int)n);
	jv had = jv_object_get(jv_copy(l->seen), jv_copy(key));
	if (jv_is_valid(had)) {
		jv_free(key);
	} else {
		l->seen = jv_object_set(l->seen, jv_copy(key), jv_true());
		l->out = jv_array_append(l->out, key);
	}
	jv_free(had);
}

static void add_tokens(struct kwlist *l, const char *s)
{
	jv t = rag_text_tokens(s);
	jv_array_foreach(t, i, v) {
		add(l, jv_string_value(v), (size_t)jv_string_length_bytes(jv_copy(v)));
		jv_free(v);
		(void)i;
	}
	jv_free(t);
}

/* A run of single characters ends: it is one word. */
static void flush(struct kwlist *l, rag_buf *run)
{
	if (run->len) add(l, run->p, run->len);
	run->len = 0;
}

static void segment(rag_keywords *k, const char *norm, struct kwlist *l)
{
	UErrorCode e = U_ZERO_ERROR;
	int32_t n16 = 0, s, t;
	UChar *u;
	char *w = NULL;           /* the word in UTF-8 */
	size_t wcap = 0, wlen;
	rag_buf run = {0};

	u_strFromUTF8WithSub(NULL, 0, &n16, norm, -1, 0xFFFD, NULL, &e);
	e = U_ZERO_ERROR;
	u = rag_xmalloc(((size_t)n16 + 1) * sizeof *u);
	u_strFromUTF8WithSub(u, n16 + 1, &n16, norm, -1, 0xFFFD, NULL, &e);
	ubrk_setText(k->brk, u, n16, &e);
	if (U_FAILURE(e)) {
		/* cannot segment: the text's own tokens are still keywords */
		add_tokens(l, norm);
		free(u);
		return;
	}
	for (s = ubrk_first(k->brk); (t = ubrk_next(k->brk)) != UBRK_DONE; s = t) {
		int32_t len = 0;
		long c;
		int single;
		e = U_ZERO_ERROR;
		u_strToUTF8WithSub(NULL, 0, &len, u + s, t - s, 0xFFFD, NULL, &e);
		e = U_ZERO_ERROR;
		if ((size_t)len + 1 > wcap) {
			wcap = (size_t)len + 1;
			w = rag_xrealloc(w, wcap);
		}
		u_strToUTF8WithSub(w, len + 1, &len, u + s, t - s, 0xFFFD, NULL, &e);
		wlen = (size_t)len;
		w[wlen] = 0;
		if (ubrk_getRuleStatus(k->brk) < UBRK_WORD_NONE_LIMIT) {
			flush(l, &run);                     /* spaces, punctuation */
			continue;
		}
		single = rag_utf8_decode(w, wlen, &c) == wlen;
		if (!rag_text_is_cjk(c)) {
			flush(l, &run);
			add_tokens(l, w);
		} else if (is_stop(w)) {
			flush(l, &run);
		} else if (single) {
			rag_buf_add(&run, w, wlen);
		} else {
			flush(l, &run);
			add(l, w, wlen);
		}
	}
	flush(l, &run);
	free(w);
	rag_buf_free(&run);
	free(u);
}

static char *normalized(const char *text)
{
	char *n = rag_text_normalize(text), *fixed;
	if (n) return n;
	fixed = rag_utf8_sanitize(text, strlen(text));
	n = rag_text_normalize(fixed);
	free(fixed);
	return n ? n : rag_xstrdup("");
}

jv rag_keywords_of(rag_keywords *k, const char *text)
{
	struct kwlist l = {jv_array(), jv_object()};
	char *norm = normalized(text ? text : "");
	if (has_cjk(norm)) segment(k, norm, &l);
	else add_tokens(&l, norm);
	free(norm);
	jv_free(l.seen);
	return l.out;
}

int rag_keywords_overlap(rag_keywords *k, const char *answer, const char *reference, double *score,
                         jv *found, jv *missed)
{
	jv want = rag_keywords_of(k, reference), have = jv_object();
	jv toks = rag_text_tokens_evidence(answer ? answer : "");  /* "7天" states 7 */
	char *norm = normalized(answer ? answer : "");
	int n = jv_array_length(jv_copy(want)), hits = 0;

	*found = jv_array();
	*missed = jv_array();
	jv_array_foreach(toks, i, v) {
		have = jv_object_set(have, v, jv_true());
		(void)i;
	}
	jv_free(toks);
	jv_array_foreach(want, i, v) {
		const char *w = jv_string_value(v);
		long c;
		int in;
		rag_utf8_decode(w, strlen(w), &c);
		/* a Chinese word is found in the text itself, whatever the answer's segmentation;
		 * an English keyword or a number among the answer's tokens */
		if (rag_text_is_cjk(c)) {
			in = strstr(norm, w) != NULL;
		} else {
			jv h = jv_object_get(jv_copy(have), jv_copy(v));
			in = jv_is_valid(h);
			jv_free(h);
		}
		hits += in;
		if (in) *found = jv_array_append(*found, v);
		else *missed = jv_array_append(*missed, v);
		(void)i;
	}
	jv_free(want);
	jv_free(have);
	free(norm);
	if (!n) {
		*score = 0;
		return -1;
	}
	*score = (double)hits / n;
	return 0;
}
