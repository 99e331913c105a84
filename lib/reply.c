/* reply.c - finding the JSON in what a model says around it. */
#include "rag.h"

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

/* Models wrap JSON in ```json fences, preface it with "Here is...", or trail a remark. Try the
 * whole text, then the first fenced block, then the widest {...} and [...] spans. */
jv rag_reply_json(const char *text)
{
	const char *s = text, *e = text + strlen(text), *a, *b;
	jv v;
	while (s < e && strchr(" \t\r\n", *s)) s++;
	while (e > s && strchr(" \t\r\n", e[-1])) e--;
	v = try_parse(s, (size_t)(e - s));
	if (usable(v)) return v;
	jv_free(v);

	a = strstr(s, "```");
	if (a && a < e) {
		a += 3;
		while (a < e && *a != '\n') a++;     /* skip the language tag */
		b = strstr(a, "```");
		if (b && b <= e) {
			v = try_parse(a, (size_t)(b - a));
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
			v = try_parse(a, (size_t)(b - a + 1));
			if (usable(v)) return v;
			jv_free(v);
		}
	}
	return jv_invalid_with_msg(jv_string("the reply contains no JSON object"));
}
