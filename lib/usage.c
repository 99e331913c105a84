/* usage.c - counting what the judge cost, and the tokens --estimate counts. */
#include "base.h"
#include "usage.h"

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
