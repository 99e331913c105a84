/* usage.c - counting what the judge cost, and what --estimate stands in for answers not
 * collected yet. */
#include "base.h"
#include "usage.h"
#include "record.h"

#include <string.h>

void rag_usage_add(rag_usage *to, const rag_usage *from)
{
	to->calls += from->calls;
	to->cache_hits += from->cache_hits;
	to->prompt_tokens += from->prompt_tokens;
	to->completion_tokens += from->completion_tokens;
	to->cached_tokens += from->cached_tokens;
	to->retries += from->retries;
	to->invalid_usage += from->invalid_usage;
}

/* JSON numbers are doubles: counts stay far below 2^53, so the casts are exact. */
jv rag_usage_json(const rag_usage *u, const char *judge)
{
	jv o = jv_object();
	o = jv_object_set(o, jv_string("judge"), jv_string(judge ? judge : "none"));
	o = jv_object_set(o, jv_string("calls"), jv_number((double)u->calls));
	o = jv_object_set(o, jv_string("cache_hits"), jv_number((double)u->cache_hits));
	o = jv_object_set(o, jv_string("prompt_tokens"), jv_number((double)u->prompt_tokens));
	o = jv_object_set(o, jv_string("completion_tokens"), jv_number((double)u->completion_tokens));
	if (u->cached_tokens)   /* only where a provider said: the records of before keep their bytes */
		o = jv_object_set(o, jv_string("cached_tokens"), jv_number((double)u->cached_tokens));
	if (u->retries)
		o = jv_object_set(o, jv_string("retries"), jv_number((double)u->retries));
	if (u->invalid_usage)
		o = jv_object_set(o, jv_string("invalid_usage"), jv_number((double)u->invalid_usage));
	return o;
}

/* one code point of s at *i (advanced); invalid bytes are one each */
static unsigned cp_next(const char *s, size_t *i)
{
	const unsigned char *p = (const unsigned char *)s + *i;
	unsigned c = p[0];
	int n = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
	int k;
	if (n <= 0) {
		(*i)++;
		return c;
	}
	c &= 0x3Fu >> n;
	for (k = 1; k <= n; k++) {
		if ((p[k] & 0xC0) != 0x80) {
			(*i)++;
			return 0xFFFD;
		}
		c = c << 6 | (p[k] & 0x3Fu);
	}
	*i += (size_t)n + 1;
	return c;
}

static int is_cjk(unsigned c)
{
	return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
	       (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x20000 && c <= 0x3FFFF);
}

double rag_usage_tokens(const char *s)
{
	size_t i = 0;
	double cjk = 0, other = 0;
	if (!s) return 0;
	while (s[i]) {
		if (is_cjk(cp_next(s, &i))) cjk++;
		else other++;
	}
	return cjk + other / 4;
}

double rag_usage_chars(const char *s)
{
	size_t i = 0;
	double n = 0;
	if (!s) return 0;
	while (s[i]) {
		cp_next(s, &i);
		n++;
	}
	return n;
}

/* text of n characters: the sentence repeated, cut at a word */
static jv standin_text(const char *sentence, double n)
{
	rag_buf b = {0};
	size_t want = n > 0 ? (size_t)(n + 0.5) : 0, len = strlen(sentence);
	jv t;
	while (b.len < want) rag_buf_add(&b, sentence, len);
	if (b.len > want) {
		size_t cut = want;
		while (cut > 0 && b.p[cut - 1] != ' ') cut--;
		b.len = cut ? cut - 1 : want;   /* without its blank; a word cut when no blank came before */
	}
	rag_buf_add(&b, "", 1);
	t = jv_string(b.p);
	rag_buf_free(&b);
	return t;
}

jv rag_usage_standin(jv rec, const rag_standin *sz)
{
	jv cx;
	if (!rag_record_str(rec, "answer"))
		rec = jv_object_set(rec, jv_string("answer"),
		                    standin_text("The system under test would answer with a sentence of about this length. ", sz->answer_chars));
	cx = rag_record_get(rec, "contexts");
	if (jv_get_kind(cx) != JV_KIND_ARRAY) {
		jv a = jv_array();
		int i;
		for (i = 0; i < (int)(sz->contexts + 0.5); i++)
			a = jv_array_append(a, standin_text("A retrieved chunk would hold a sentence of about this length, and more of them. ",
			                                    sz->context_chars));
		rec = jv_object_set(rec, jv_string("contexts"), a);
	}
	jv_free(cx);
	return rec;
}

void rag_usage_standin_add(rag_standin *sum, long *n, jv rec)
{
	const char *a = rag_record_str(rec, "answer");
	jv cx;
	if (!a) return;
	(*n)++;
	sum->answer_chars += rag_usage_chars(a);
	cx = rag_record_get(rec, "contexts");
	if (jv_get_kind(cx) == JV_KIND_ARRAY) {
		jv_array_foreach(cx, i, c) {
			sum->contexts++;
			if (jv_get_kind(c) == JV_KIND_STRING) sum->context_chars += rag_usage_chars(jv_string_value(c));
			jv_free(c);
			(void)i;
		}
	}
	jv_free(cx);
}

void rag_usage_standin_mean(rag_standin *sum, long n)
{
	/* context_chars: per context; contexts and answer_chars: per record */
	if (sum->contexts > 0) sum->context_chars /= sum->contexts;
	if (n > 0) {
		sum->answer_chars /= (double)n;
		sum->contexts /= (double)n;
	}
}
