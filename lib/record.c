/* record.c - the record schema: field aliases, contexts, results, errors. */
#include "rag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* RAGAS spells the canonical fields differently; both are accepted, ours first. */
static const char *const aliases[][2] = {
	{"question", "user_input"},
	{"answer", "response"},
	{"contexts", "retrieved_contexts"},
	{"reference", "ground_truth"},
};

const char *rag_record_canonical(const char *field)
{
	size_t i;
	for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcmp(field, aliases[i][1]) == 0) return aliases[i][0];
	return field;
}

jv rag_record_get(jv rec, const char *field)
{
	jv v;
	size_t i;
	if (jv_get_kind(rec) != JV_KIND_OBJECT) return jv_invalid();
	field = rag_record_canonical(field);
	v = jv_object_get(jv_copy(rec), jv_string(field));
	if (jv_is_valid(v)) return v;
	jv_free(v);
	for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
		if (strcmp(field, aliases[i][0]) == 0)
			return jv_object_get(jv_copy(rec), jv_string(aliases[i][1]));
	}
	return jv_invalid();
}

int rag_record_has_nul(jv s)
{
	return jv_get_kind(s) == JV_KIND_STRING &&
	       strlen(jv_string_value(s)) != (size_t)jv_string_length_bytes(jv_copy(s));
}

int rag_record_text(jv rec, const char *field, const char **s, char *err, size_t errlen)
{
	jv v = rag_record_get(rec, field);
	int rc = 0;
	*s = NULL;
	if (rag_record_has_nul(v)) {
		snprintf(err, errlen, "field \"%s\" contains a NUL character (\\u0000)", field);
		rc = -1;
	} else if (jv_get_kind(v) == JV_KIND_STRING) {
		*s = jv_string_value(v);    /* lives inside rec, as in rag_record_str */
	}
	jv_free(v);
	return rc;
}

const char *rag_record_str(jv rec, const char *field)
{
	jv v = rag_record_get(rec, field);
	const char *s = NULL;
	/* The value lives inside rec, which holds a reference; the copy we got can go. */
	if (jv_get_kind(v) == JV_KIND_STRING) s = jv_string_value(v);
	jv_free(v);
	return s;
}

jv rag_record_contexts(jv rec)
{
	jv ctx = rag_record_get(rec, "contexts"), out;
	int i, n;
	if (!jv_is_valid(ctx)) {
		jv_free(ctx);
		return jv_invalid_with_msg(jv_string("record has no \"contexts\" field"));
	}
	if (jv_get_kind(ctx) == JV_KIND_STRING) {
		/* a single context given as a string is common enough to accept */
		if (rag_record_has_nul(ctx)) {
			jv_free(ctx);
			return jv_invalid_with_msg(jv_string("field \"contexts\" contains a NUL character (\\u0000)"));
		}
		return JV_ARRAY(ctx);
	}
	if (jv_get_kind(ctx) != JV_KIND_ARRAY) {
		const char *k = jv_kind_name(jv_get_kind(ctx));
		jv_free(ctx);
		return jv_invalid_with_msg(jv_string_fmt("field \"contexts\" is %s, not an array", k));
	}
	out = jv_array();
	n = jv_array_length(jv_copy(ctx));
	for (i = 0; i < n; i++) {
		jv c = jv_array_get(jv_copy(ctx), i);
		if (jv_get_kind(c) == JV_KIND_OBJECT) {
			jv t = jv_object_get(c, jv_string("text"));
			if (jv_get_kind(t) != JV_KIND_STRING) {
				jv_free(t);
				jv_free(out);
				jv_free(ctx);
				return jv_invalid_with_msg(jv_string_fmt("contexts[%d] has no string \"text\"", i));
			}
			c = t;
		}
		if (jv_get_kind(c) != JV_KIND_STRING) {
			const char *k = jv_kind_name(jv_get_kind(c));
			jv msg = jv_string_fmt("contexts[%d] is %s, not a string or an object with \"text\"", i, k);
			jv_free(c);
			jv_free(out);
			jv_free(ctx);
			return jv_invalid_with_msg(msg);
		}
		if (rag_record_has_nul(c)) {
			jv_free(c);
			jv_free(out);
			jv_free(ctx);
			return jv_invalid_with_msg(jv_string_fmt("contexts[%d] contains a NUL character (\\u0000)", i));
		}
		out = jv_array_append(out, c);
	}
	jv_free(ctx);
	return out;
}

static jv error_entry(const char *tool, const char *metric, const char *msg)
{
	jv e = jv_object();
	e = jv_object_set(e, jv_string("tool"), jv_string(tool));
	if (metric) e = jv_object_set(e, jv_string("metric"), jv_string(metric));
	e = jv_object_set(e, jv_string("message"), jv_string(msg));
	return e;
}

jv rag_record_add_error(jv rec, jv entry)
{
	jv errs;
	if (jv_get_kind(rec) != JV_KIND_OBJECT) {
		jv_free(rec);
		rec = jv_object();
	}
	errs = jv_object_get(jv_copy(rec), jv_string("errors"));
	if (jv_get_kind(errs) != JV_KIND_ARRAY) {
		/* a foreign "errors" that is not our array is kept, not clobbered */
		if (jv_is_valid(errs) && jv_get_kind(errs) != JV_KIND_NULL)
			rec = jv_object_set(rec, jv_string("errors_input"), errs);
		else
			jv_free(errs);
		errs = jv_array();
	}
	errs = jv_array_append(errs, entry);
	return jv_object_set(rec, jv_string("errors"), errs);
}

jv rag_record_error(jv rec, const char *tool, const char *metric, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	jv e;
	va_start(ap, fmt);
	msg = rag_xvasprintf(fmt, ap);
	va_end(ap);
	e = error_entry(tool, metric, msg);
	free(msg);
	return rag_record_add_error(rec, e);
}

jv rag_record_set(jv rec, const char *section, const char *name, jv value)
{
	jv sec = jv_object_get(jv_copy(rec), jv_string(section));
	if (jv_get_kind(sec) != JV_KIND_OBJECT) {
		jv_free(sec);
		sec = jv_object();
	}
	sec = jv_object_set(sec, jv_string(name), value);
	return jv_object_set(rec, jv_string(section), sec);
}

jv rag_record_usage(jv rec, const char *tool, const char *stage, const rag_usage *u, const char *judge)
{
	jv all = jv_object_get(jv_copy(rec), jv_string("usage")), mine;
	mine = jv_get_kind(all) == JV_KIND_OBJECT ? jv_object_get(all, jv_string(tool)) : (jv_free(all), jv_invalid());
	/* an entry of the flat shape, {"judge": ...}, is one run of a whole tool: this run replaces it */
	if (jv_get_kind(mine) == JV_KIND_OBJECT) {
		jv j = jv_object_get(jv_copy(mine), jv_string("judge"));
		if (jv_get_kind(j) == JV_KIND_STRING) {
			jv_free(mine);
			mine = jv_invalid();
		}
		jv_free(j);
	}
	if (jv_get_kind(mine) != JV_KIND_OBJECT) {
		jv_free(mine);
		mine = jv_object();
	}
	mine = jv_object_set(mine, jv_string(stage), rag_usage_json(u, judge));
	return rag_record_set(rec, "usage", tool, mine);
}

/* ---------------------------------------------------------------- hard cases (rag-gen) */

int rag_record_expects_refusal(jv rec)
{
	jv e = jv_get_kind(rec) == JV_KIND_OBJECT ? jv_object_get(jv_copy(rec), jv_string("expect")) : jv_invalid();
	int yes = jv_get_kind(e) == JV_KIND_STRING && !strcmp(jv_string_value(e), "refusal");
	jv_free(e);
	return yes;
}

char *rag_record_question_in_context(jv rec, const char *question)
{
	jv h = jv_get_kind(rec) == JV_KIND_OBJECT ? jv_object_get(jv_copy(rec), jv_string("history")) : jv_invalid();
	int zh, turns = 0;
	rag_buf b = {0};
	char *out;
	if (jv_get_kind(h) != JV_KIND_ARRAY || !question) {
		jv_free(h);
		return NULL;
	}
	/* the labels in the question's language, as the prompt that carries them */
	zh = !strcmp(rag_text_lang(question), "zh");
	jv_array_foreach(h, i, turn) {
		jv q = jv_get_kind(turn) == JV_KIND_OBJECT ? jv_object_get(jv_copy(turn), jv_string("question")) : jv_invalid();
		jv a = jv_get_kind(turn) == JV_KIND_OBJECT ? jv_object_get(jv_copy(turn), jv_string("answer")) : jv_invalid();
		/* a turn is a question and, when it came, its answer; anything else is left out */
		if (jv_get_kind(q) == JV_KIND_STRING && !rag_record_has_nul(q) && *jv_string_value(q)) {
			if (!turns++) rag_buf_addf(&b, "%s\n", zh ? "此前的对话：" : "Earlier turns of this conversation:");
			rag_buf_addf(&b, "%s%s\n", zh ? "问：" : "Q: ", jv_string_value(q));
			if (jv_get_kind(a) == JV_KIND_STRING && !rag_record_has_nul(a))
				rag_buf_addf(&b, "%s%s\n", zh ? "答：" : "A: ", jv_string_value(a));
		}
		jv_free(q);
		jv_free(a);
		jv_free(turn);
		(void)i;
	}
	jv_free(h);
	if (!turns) {
		rag_buf_free(&b);
		return NULL;
	}
	rag_buf_addf(&b, "\n%s%s", zh ? "现在的问题：" : "The question now: ", question);
	out = rag_xstrdup(b.p);
	rag_buf_free(&b);
	return out;
}
