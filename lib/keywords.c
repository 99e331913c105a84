/* keywords.c - the keywords of a text, and how many of a reference's an answer has.
 *
 * English keywords are rag_text_tokens' (stemmed, stop words and negators dropped, numbers
 * canonical). Chinese is written without spaces: ICU's word break iterator segments it with its
 * dictionary (locale zh), so that keywords are mostly words (退货, 买家), and each character it
 * leaves single is a keyword of its own.
 *
 * ICU's words are not always the text's: 退货运费 comes out as 退|货运|费, and a correct
 * paraphrase (退货的运费) has no 货运. So a Chinese keyword the answer lacks is not simply
 * missed: it counts for the share of its characters that the answer holds together with a
 * neighbour they have in the reference, a character bigram of the reference found in the answer
 * (货 in 退货, 运 in 运费: 货运 counts whole). On a paraphrase set written for this
 * (bench/kw-zh), this and single characters kept apart (they were joined into one word, which
 * made keywords of 元包邮 and 为两年) raised the AUC of correct against wrong answers from
 * 0.782 to 0.917 on its dev part. */
#include "base.h"
#include "lexical.h"

#include <math.h>
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

static void segment(rag_keywords *k, const char *norm, struct kwlist *l)
{
	UErrorCode e = U_ZERO_ERROR;
	int32_t n16 = 0, s, t;
	UChar *u;
	char *w = NULL;           /* the word in UTF-8 */
	size_t wcap = 0, wlen;

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
		if (ubrk_getRuleStatus(k->brk) < UBRK_WORD_NONE_LIMIT)
			continue;                           /* spaces, punctuation */
		rag_utf8_decode(w, wlen, &c);
		if (!rag_text_is_cjk(c))
			add_tokens(l, w);
		else if (!is_stop(w))
			add(l, w, wlen);
	}
	free(w);
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

/* The distinct keywords of text (borrowed), in text order: a jv array of strings. */
static jv rag_keywords_of(rag_keywords *k, const char *text)
{
	struct kwlist l = {jv_array(), jv_object()};
	char *norm = normalized(text ? text : "");
	if (has_cjk(norm)) segment(k, norm, &l);
	else add_tokens(&l, norm);
	free(norm);
	jv_free(l.seen);
	return l.out;
}

/* The start of the character before s[i] (i > 0). */
static size_t char_before(const char *s, size_t i)
{
	do i--; while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80);
	return i;
}

/* Does the answer hold the two characters of ref at i, both CJK? */
static int bigram_in(const char *ref, size_t n, size_t i, const char *answer)
{
	char b[16];
	size_t a, len;
	long c;

	a = rag_utf8_decode(ref + i, n - i, &c);
	if (!rag_text_is_cjk(c) || i + a >= n) return 0;
	len = a + rag_utf8_decode(ref + i + a, n - i - a, &c);
	if (!rag_text_is_cjk(c) || len >= sizeof b) return 0;
	memcpy(b, ref + i, len);
	b[len] = 0;
	return strstr(answer, b) != NULL;
}

/* The share of the characters of keyword w, where it first stands in ref, that the answer holds
 * in a bigram with their neighbour in ref, the one before or the one after. */
static double covered(const char *w, const char *ref, const char *answer)
{
	const char *at = strstr(ref, w);
	size_t n = strlen(ref), i, l, end, chars = 0, hits = 0;
	long c;

	if (!at) return 0;
	for (i = (size_t)(at - ref), end = i + strlen(w); i < end; i += l) {
		l = rag_utf8_decode(ref + i, n - i, &c);
		chars++;
		hits += (i > 0 && bigram_in(ref, n, char_before(ref, i), answer)) || bigram_in(ref, n, i, answer);
	}
	return chars ? (double)hits / (double)chars : 0;
}

int rag_keywords_overlap(rag_keywords *k, const char *answer, const char *reference, double *score,
                         jv *found, jv *missed, jv *partly)
{
	jv want = rag_keywords_of(k, reference), have = jv_object();
	jv toks = rag_text_tokens_evidence(answer ? answer : "");  /* "7天" states 7 */
	char *norm = normalized(answer ? answer : ""), *rnorm = normalized(reference ? reference : "");
	int n = jv_array_length(jv_copy(want));
	double hits = 0;

	*found = jv_array();
	*missed = jv_array();
	*partly = jv_array();
	jv_array_foreach(toks, i, v) {
		have = jv_object_set(have, v, jv_true());
		(void)i;
	}
	jv_free(toks);
	jv_array_foreach(want, i, v) {
		const char *w = jv_string_value(v);
		long c;
		double in;
		rag_utf8_decode(w, strlen(w), &c);
		/* a Chinese word is found in the text itself, whatever the answer's segmentation, or
		 * in part by its characters' bigrams; an English keyword or a number among the
		 * answer's tokens */
		if (rag_text_is_cjk(c)) {
			in = strstr(norm, w) ? 1 : covered(w, rnorm, norm);
		} else {
			jv h = jv_object_get(jv_copy(have), jv_copy(v));
			in = jv_is_valid(h);
			jv_free(h);
		}
		hits += in;
		if (in >= 1)
			*found = jv_array_append(*found, v);
		else if (in > 0)   /* four decimals, as the offline judge's scores */
			*partly = jv_array_append(*partly, JV_OBJECT(jv_string("keyword"), v,
			                          jv_string("share"), jv_number(floor(in * 1e4 + 0.5) / 1e4)));
		else
			*missed = jv_array_append(*missed, v);
		(void)i;
	}
	jv_free(want);
	jv_free(have);
	free(norm);
	free(rnorm);
	if (!n) {
		*score = 0;
		return -1;
	}
	*score = hits / n;
	return 0;
}
