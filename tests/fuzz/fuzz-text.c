/* fuzz-text.c - libFuzzer target: the text segmenter. rag_text_tokens and the negation check
 * (lib/text.c) on any bytes (they repair invalid UTF-8 themselves); rag_offline_claims and rag_offline_sentences
 * (lib/claimsplit.c) on valid UTF-8, which is all a tool ever gives them (record strings come
 * from libjq). The input is "question NUL text"; its first byte picks max_claims and markers. */
#include "base.h"
#include "offline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void walk(jv a)   /* consumes a: every element must be a string */
{
	int i, n = jv_array_length(jv_copy(a));
	for (i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(a), i);
		if (jv_get_kind(s) != JV_KIND_STRING) abort();
		(void)strlen(jv_string_value(s));
		jv_free(s);
	}
	jv_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned flags = size ? data[0] : 0;
	char *buf, *q, *t;
	const char *nul;
	rag_strv sv = {0};
	size_t i;
	if (size) data++, size--;
	buf = malloc(size + 2);
	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = 0;
	nul = memchr(buf, 0, size);
	q = nul ? buf : NULL;
	t = nul ? (char *)nul + 1 : buf;

	walk(rag_text_tokens(t));
	/* the negation scan reads case, identifiers and clause ends: any bytes, both sides */
	(void)rag_text_negation_agrees(q ? q : "", t);
	(void)rag_text_negation(t);
	if (rag_utf8_valid(t, strlen(t)) && (!q || rag_utf8_valid(q, strlen(q)))) {
		walk(rag_offline_claims(q, t, (int)(flags & 15) - 1));
		rag_offline_sentences(t, &sv, flags & 16);
		for (i = 0; i < sv.n; i++) (void)strlen(sv.v[i]);
		rag_strv_free(&sv);
	}
	free(buf);
	return 0;
}
