/* vec.c - vector maths for embeddings: cosine similarity, and the offline embedder's hashed
 * word and character n-gram vectors.
 *
 * The offline vectors are feature hashing (the "hashing trick"): each feature goes to one of dims
 * slots, with a sign from another bit of its hash so that collisions cancel on average instead
 * of piling up. Features: the text's lexical tokens (rag_text_tokens: stemmed words without stop
 * words, CJK character bigrams) and character n-grams (trigrams of each word with boundary marks,
 * single CJK characters), so that "relevancy" and "relevance" still share most of their weight. */
#include "base.h"
#include "offline.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

RAG_UNITTEST int rag_vec_cosine(const double *a, const double *b, size_t n, double *out)
{
	double dot = 0, na = 0, nb = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		dot += a[i] * b[i];
		na += a[i] * a[i];
		nb += b[i] * b[i];
	}
	if (!isfinite(dot) || !isfinite(na) || !isfinite(nb)) return -1;
	/* a vector with no direction is like nothing: no similarity */
	if (na == 0 || nb == 0) {
		*out = 0;
		return 0;
	}
	*out = dot / (sqrt(na) * sqrt(nb));
	if (*out > 1) *out = 1;          /* rounding */
	if (*out < -1) *out = -1;
	return 0;
}

RAG_UNITTEST double *rag_vec_from_jv(jv v, size_t *n)
{
	int i, len;
	double *out;
	if (jv_get_kind(v) != JV_KIND_ARRAY) return NULL;
	len = jv_array_length(jv_copy(v));
	if (len <= 0) return NULL;
	out = rag_xmalloc((size_t)len * sizeof *out);
	for (i = 0; i < len; i++) {
		jv x = jv_array_get(jv_copy(v), i);
		int ok = jv_get_kind(x) == JV_KIND_NUMBER && isfinite(jv_number_value(x));
		out[i] = ok ? jv_number_value(x) : 0;
		jv_free(x);
		if (!ok) {
			free(out);
			return NULL;
		}
	}
	*n = (size_t)len;
	return out;
}

int rag_vec_cosine_jv(jv a, jv b, double *out, char *err, size_t errlen)
{
	size_t na = 0, nb = 0;
	double *x = rag_vec_from_jv(a, &na), *y = rag_vec_from_jv(b, &nb);
	int rc = -1;
	if (!x || !y)
		snprintf(err, errlen, "a vector is not a non-empty array of finite numbers");
	else if (na != nb)
		snprintf(err, errlen, "dimension mismatch: vectors of %zu and %zu numbers", na, nb);
	else if (rag_vec_cosine(x, y, na, out) < 0)
		snprintf(err, errlen, "a vector overflows");
	else
		rc = 0;
	free(x);
	free(y);
	return rc;
}

/* FNV-1a, 64 bits: stable across machines and runs, which is all the offline vectors need. */
static uint64_t fnv(const char *kind, const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;
	for (i = 0; kind[i]; i++) h = (h ^ (unsigned char)kind[i]) * 1099511628211ULL;
	for (i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	/* FNV's low bits mix poorly for short keys: finish like splitmix64 */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

static void add(double *v, int dims, const char *kind, const char *s, size_t n, double w)
{
	uint64_t h = fnv(kind, s, n);
	v[h % (uint64_t)dims] += (h >> 63) ? -w : w;
}

static int wordchar(long cp)
{
	int c = utf8proc_category((utf8proc_int32_t)cp);
	return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL || c == UTF8PROC_CATEGORY_LT ||
	       c == UTF8PROC_CATEGORY_LM || c == UTF8PROC_CATEGORY_LO || c == UTF8PROC_CATEGORY_ND ||
	       c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO || c == UTF8PROC_CATEGORY_MN ||
	       c == UTF8PROC_CATEGORY_MC;
}

/* Character trigrams of one word, with '<' and '>' marking its ends ("<ab", "abc", "bc>"). */
static void word_grams(double *v, int dims, const char *w, size_t n)
{
	size_t starts[256], k = 0, i = 0, j;
	char buf[64];
	rag_buf b = {0};
	rag_buf_adds(&b, "<");
	rag_buf_add(&b, w, n);
	rag_buf_adds(&b, ">");
	while (i < b.len && k < sizeof starts / sizeof starts[0]) {
		long cp;
		starts[k++] = i;
		i += rag_utf8_decode(b.p + i, b.len - i, &cp);
	}
	for (j = 0; j + 3 <= k; j++) {
		/* starts[0..k-1] are set above, and j + 3 <= k */
		/* cppcheck-suppress uninitvar */
		size_t from = starts[j], to = j + 3 < k ? starts[j + 3] : b.len;
		if (to - from < sizeof buf) add(v, dims, "c:", b.p + from, to - from, 0.5);
	}
	rag_buf_free(&b);
}

jv rag_vec_hashed(const char *text, int dims)
{
	double *v, norm = 0;
	jv toks, out;
	char *t;
	int i, n;
	if (dims <= 0) dims = 512;
	v = rag_xmalloc((size_t)dims * sizeof *v);
	memset(v, 0, (size_t)dims * sizeof *v);
	toks = rag_text_tokens(text ? text : "");
	n = jv_array_length(jv_copy(toks));
	for (i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(toks), i);
		add(v, dims, "w:", jv_string_value(s), strlen(jv_string_value(s)), 1.0);
		jv_free(s);
	}
	jv_free(toks);
	t = rag_text_normalize(text ? text : "");
	if (!t) {
		char *fixed = rag_utf8_sanitize(text, strlen(text));
		t = rag_text_normalize(fixed);
		free(fixed);
	}
	if (t) {
		size_t p = 0, len = strlen(t);
		while (p < len) {
			long cp;
			size_t k = rag_utf8_decode(t + p, len - p, &cp);
			if (rag_text_is_cjk(cp)) {
				add(v, dims, "c:", t + p, k, 0.5);   /* single characters; bigrams are tokens */
				p += k;
			} else if (wordchar(cp)) {
				size_t start = p;
				while (p < len) {
					k = rag_utf8_decode(t + p, len - p, &cp);
					if (!wordchar(cp) || rag_text_is_cjk(cp)) break;
					p += k;
				}
				word_grams(v, dims, t + start, p - start);
			} else {
				p += k;
			}
		}
		free(t);
	}
	for (i = 0; i < dims; i++) norm += v[i] * v[i];
	norm = sqrt(norm);
	out = jv_array();
	for (i = 0; i < dims; i++) out = jv_array_append(out, jv_number(norm > 0 ? v[i] / norm : 0));
	free(v);
	return out;
}
