/* reply.c - finding the JSON in what a model says around it. */
#include "base.h"
#include "llm.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static jv try_parse(const char *s, size_t n)
{
	if (n == 0 || n > 0x7fffffff) return jv_invalid();
	return jv_parse_sized(s, (int)n);
}

static int usable(jv v)
{
	jv_kind k = jv_get_kind(v);
	return k == JV_KIND_OBJECT || k == JV_KIND_ARRAY;
}

/* The near-JSON models write, made JSON where only one reading exists: a comma before ] or }
 * goes; a single-quoted string (Python's repr) becomes a double-quoted one, its " escaped and
 * its \' plain; True, False and None outside strings become true, false and null. Double-quoted
 * strings are copied as they are. NULL when nothing changed or a string does not end. */
static char *repair(const char *s, size_t n)
{
	rag_buf b = {0};
	size_t i = 0;
	int changed = 0;
	while (i < n) {
		char c = s[i];
		if (c == '"') {
			size_t j = i + 1;
			while (j < n && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
			if (j >= n) goto fail;
			rag_buf_add(&b, s + i, j + 1 - i);
			i = j + 1;
		} else if (c == '\'') {
			rag_buf_adds(&b, "\"");
			for (i++; i < n && s[i] != '\''; i++) {
				if (s[i] == '"') {
					rag_buf_adds(&b, "\\\"");
				} else if (s[i] == '\\' && i + 1 < n) {
					i++;
					if (s[i] == '\'') rag_buf_adds(&b, "'");
					else if (s[i] == 'x' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) &&
					         isxdigit((unsigned char)s[i + 2])) {
						rag_buf_addf(&b, "\\u00%c%c", s[i + 1], s[i + 2]);
						i += 2;
					} else {
						rag_buf_add(&b, s + i - 1, 2);
					}
				} else {
					rag_buf_add(&b, s + i, 1);
				}
			}
			if (i >= n) goto fail;
			rag_buf_adds(&b, "\"");
			i++;
			changed = 1;
		} else if (c == ',') {
			size_t j = i + 1;
			while (j < n && strchr(" \t\r\n", s[j])) j++;
			if (j < n && (s[j] == ']' || s[j] == '}')) changed = 1;
			else rag_buf_add(&b, s + i, 1);
			i++;
		} else if (isalpha((unsigned char)c) || c == '_') {
			size_t j = i;
			const char *w;
			while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_')) j++;
			w = j - i == 4 && !memcmp(s + i, "True", 4) ? "true"
			    : j - i == 5 && !memcmp(s + i, "False", 5) ? "false"
			    : j - i == 4 && !memcmp(s + i, "None", 4) ? "null" : NULL;
			if (w) {
				rag_buf_adds(&b, w);
				changed = 1;
			} else {
				rag_buf_add(&b, s + i, j - i);
			}
			i = j;
		} else {
			rag_buf_add(&b, s + i, 1);
			i++;
		}
	}
	if (!changed) goto fail;
	rag_buf_add(&b, "", 1);
	return b.p;
fail:
	rag_buf_free(&b);
	return NULL;
}

/* s[0..n) as JSON, strictly, or when repaired (repair). */
static jv parse_span(const char *s, size_t n, int repaired)
{
	char *t;
	jv v;
	if (!repaired) return try_parse(s, n);
	if (!(t = repair(s, n))) return jv_invalid();
	v = try_parse(t, strlen(t));
	free(t);
	return v;
}

/* Models wrap JSON in ```json fences, preface it with "Here is...", or trail a remark. Try the
 * whole text, then the first fenced block, then the widest {...} and [...] spans; then all of
 * them again, repaired. */
jv rag_reply_json(const char *text)
{
	const char *s = text, *e = text + strlen(text), *a, *b;
	jv v;
	int pass;
	while (s < e && strchr(" \t\r\n", *s)) s++;
	while (e > s && strchr(" \t\r\n", e[-1])) e--;
	for (pass = 0; pass < 2; pass++) {
		v = parse_span(s, (size_t)(e - s), pass);
		if (usable(v)) return v;
		jv_free(v);

		a = strstr(s, "```");
		if (a && a < e) {
			a += 3;
			while (a < e && *a != '\n') a++;     /* skip the language tag */
			b = strstr(a, "```");
			if (b && b <= e) {
				v = parse_span(a, (size_t)(b - a), pass);
				if (usable(v)) return v;
				jv_free(v);
			}
		}
		for (const char *pair = "{}[]"; *pair; pair += 2) {
			a = memchr(s, pair[0], (size_t)(e - s));
			if (!a) continue;
			for (b = e - 1; b > a && *b != pair[1]; b--)
				;
			if (b > a) {
				v = parse_span(a, (size_t)(b - a + 1), pass);
				if (usable(v)) return v;
				jv_free(v);
			}
		}
	}
	return jv_invalid_with_msg(jv_string("the reply contains no JSON object"));
}
