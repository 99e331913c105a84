/* utf8.c - strict UTF-8 checking and repair.
 *
 * Strict means the well-formed byte sequences of the Unicode standard (table 3-7): no overlong
 * forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF. Repair replaces each "maximal
 * subpart" of an ill-formed sequence with one U+FFFD, the practice Unicode recommends, so that a
 * truncated 4-byte sequence costs one replacement character and not three. */
#include "base.h"

#include <string.h>

/* Length of the well-formed sequence at s, or 0 with *bad set to the number of bytes to replace
 * (at least 1): the lead byte and the continuation bytes that were still acceptable. */
static size_t seq_len(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned c = s[0], lo = 0x80, hi = 0xBF;
	size_t need, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		need = 1;
	else if (c == 0xE0)
		need = 2, lo = 0xA0;       /* below A0 would be an overlong 2-byte form */
	else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
		need = 2;
	else if (c == 0xED)
		need = 2, hi = 0x9F;       /* A0..BF would encode a surrogate */
	else if (c == 0xF0)
		need = 3, lo = 0x90;       /* below 90 would be an overlong 3-byte form */
	else if (c >= 0xF1 && c <= 0xF3)
		need = 3;
	else if (c == 0xF4)
		need = 3, hi = 0x8F;       /* above 8F would pass U+10FFFF */
	else {
		*bad = 1;                  /* 80..C1 and F5..FF never start a sequence */
		return 0;
	}
	for (i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80, hi = 0xBF;
	}
	return need + 1;
}

int rag_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len, bad;

	while (i < n) {
		if (p[i] < 0x80) {         /* fast path: most text is ASCII */
			i++;
			continue;
		}
		if (!(len = seq_len(p + i, n - i, &bad)))
			return 0;
		i += len;
	}
	return 1;
}

size_t rag_utf8_decode(const char *s, size_t n, long *cp)
{
	static const unsigned char lead_bits[] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
	const unsigned char *p = (const unsigned char *)s;
	size_t len, bad, i;
	long c;

	if (!n) {
		*cp = 0;
		return 0;
	}
	if (!(len = seq_len(p, n, &bad))) {
		*cp = 0xFFFD;
		return 1;
	}
	c = p[0] & lead_bits[len];
	for (i = 1; i < len; i++)
		c = (c << 6) | (p[i] & 0x3F);
	*cp = c;
	return len;
}

char *rag_utf8_sanitize(const char *s, size_t n)
{
	static const char fffd[] = "\xEF\xBF\xBD";
	const unsigned char *p = (const unsigned char *)s;
	/* Worst case: every byte becomes a 3-byte U+FFFD. */
	char *out = rag_xmalloc(n * 3 + 1), *o = out;
	size_t i = 0, len, bad;

	while (i < n) {
		if ((len = seq_len(p + i, n - i, &bad))) {
			memcpy(o, p + i, len);
			o += len;
			i += len;
		} else {
			memcpy(o, fffd, 3);
			o += 3;
			i += bad;
		}
	}
	*o = 0;
	return out;
}
