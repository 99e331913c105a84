/* json.c - reading values out of jv objects that may not be objects at all (summaries, records
 * of unknown shape): a missing key, a wrong kind or a non-object is "nothing", never an
 * assertion in libjq. */
#include "rag.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jv rag_json_get(jv o, const char *k)
{
	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		return jv_invalid();
	}
	return jv_object_get(o, jv_string(k));
}

double rag_json_num(jv o, const char *k)
{
	jv v = rag_json_get(jv_copy(o), k);
	double d = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : NAN;
	jv_free(v);
	return d;
}

int rag_json_true(jv o, const char *k)
{
	jv v = rag_json_get(jv_copy(o), k);
	int t = jv_get_kind(v) == JV_KIND_TRUE;
	jv_free(v);
	return t;
}

char *rag_json_id(jv v)
{
	jv d;
	char *s;
	if (jv_get_kind(v) == JV_KIND_STRING) return rag_xstrdup(jv_string_value(v));
	if (!jv_is_valid(v) || jv_get_kind(v) == JV_KIND_NULL) return NULL;
	/* libjq writes a number in its shortest form that reads back the same (0.1, not %.17g's
	 * 0.10000000000000001): the text a record's JSON shows, so an id compares as the user
	 * wrote it in every tool and every output */
	d = jv_dump_string(jv_copy(v), 0);
	s = rag_xstrdup(jv_string_value(d));
	jv_free(d);
	return s;
}

const char *rag_json_str(jv o, const char *k, char *buf, size_t n)
{
	jv v = rag_json_get(jv_copy(o), k);
	if (jv_get_kind(v) == JV_KIND_STRING) {
		snprintf(buf, n, "%s", jv_string_value(v));
	} else if (jv_get_kind(v) == JV_KIND_NUMBER) {
		char *t = rag_json_id(v);
		snprintf(buf, n, "%s", t);
		free(t);
	} else {
		snprintf(buf, n, "%s", "");
	}
	jv_free(v);
	return buf;
}

jv rag_json_path(jv o, const char *path)
{
	jv v = rag_json_get(jv_copy(o), path);   /* a key with a dot in it first */
	const char *p = path;
	if (jv_is_valid(v)) return v;
	jv_free(v);
	v = jv_copy(o);
	while (jv_is_valid(v)) {
		const char *dot = strchr(p, '.');
		char *k = dot ? rag_xstrndup(p, (size_t)(dot - p)) : rag_xstrdup(p);
		v = rag_json_get(v, k);
		free(k);
		if (!dot) break;
		p = dot + 1;
	}
	return v;
}
