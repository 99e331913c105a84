/* json.c - reading values out of jv objects that may not be objects at all (summaries, records
 * of unknown shape): a missing key, a wrong kind or a non-object is "nothing", never an
 * assertion in libjq. */
#include "base.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jq.h>

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
	/* libjq 1.7 (Debian 13) writes the exponent's letter upper case (1E+100) where 1.6 wrote
	 * 1e+100: one text on both, so a run's bytes do not depend on the system's libjq */
	for (char *e = s; *e; e++)
		if (*e == 'E') *e = 'e';
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

/* ---------------------------------------------------------------- jq programs */

/* one libjq state, shared by the programs of a set (rag_jq_new_set) */
typedef struct jqcore {
	jq_state *jq;
	char msg[RAG_ERRLEN];     /* libjq's first message of the current compile or run */
	int refs;
} jqcore;

struct rag_jq {
	jqcore *c;
	int index;                /* its place in a set, -1: a program alone */
};

static void jq_message(void *data, jv msg)
{
	jqcore *c = data;
	if (!c->msg[0]) {
		/* libjq's message on one line: its first, without "jq: error: " */
		const char *m = jv_get_kind(msg) == JV_KIND_STRING ? jv_string_value(msg) : "jq error";
		if (!strncmp(m, "jq: error: ", 11)) m += 11;
		snprintf(c->msg, sizeof c->msg, "%.*s", (int)strcspn(m, "\n"), m);
	}
	jv_free(msg);
}

/* a state with prog compiled, or NULL with err */
static jqcore *core_new(const char *prog, char *err, size_t errlen)
{
	jqcore *c = rag_xcalloc(1, sizeof *c);
	if (!(c->jq = jq_init())) {
		rag_seterr(err, errlen, "cannot initialise libjq");
		free(c);
		return NULL;
	}
	jq_set_error_cb(c->jq, jq_message, c);
	if (!jq_compile(c->jq, prog)) {
		rag_seterr(err, errlen, "the jq program does not compile: %s", c->msg[0] ? c->msg : "syntax error");
		jq_teardown(&c->jq);
		free(c);
		return NULL;
	}
	return c;
}

rag_jq *rag_jq_new(const char *prog, char *err, size_t errlen)
{
	jqcore *c = core_new(prog, err, errlen);
	rag_jq *q;
	if (!c) return NULL;
	q = rag_xcalloc(1, sizeof *q);
	c->refs = 1;
	q->c = c;
	q->index = -1;
	return q;
}

int rag_jq_new_set(const char *const *progs, size_t n, rag_jq **out)
{
	rag_buf b = {0};
	char err[RAG_ERRLEN];
	jqcore *c;
	size_t i;
	/* each program a function of its own (on lines of its own, so that a comment ends before
	 * the parenthesis), and the input [i, value] runs program i on value */
	for (i = 0; i < n; i++) rag_buf_addf(&b, "def __rag_p%zu: (\n%s\n);\n", i, progs[i]);
	rag_buf_adds(&b, ". as [$__rag_i, $__rag_in] | $__rag_in | ");
	for (i = 0; i < n; i++) rag_buf_addf(&b, "%sif $__rag_i == %zu then __rag_p%zu ", i ? "el" : "", i, i);
	rag_buf_adds(&b, n ? "else empty end" : "empty");
	rag_buf_add(&b, "", 1);
	c = core_new(b.p, err, sizeof err);
	rag_buf_free(&b);
	if (!c) return -1;
	c->refs = (int)n;
	for (i = 0; i < n; i++) {
		out[i] = rag_xcalloc(1, sizeof *out[i]);
		out[i]->c = c;
		out[i]->index = (int)i;
	}
	if (!n) {
		jq_teardown(&c->jq);
		free(c);
	}
	return 0;
}

int rag_jq_first(rag_jq *q, jv input, jv *out, char *err, size_t errlen)
{
	jv r;
	int got = 0;
	*out = jv_null();
	q->c->msg[0] = 0;
	if (q->index >= 0) input = JV_ARRAY(jv_number(q->index), input);
	jq_start(q->c->jq, input, 0);
	while (jv_is_valid(r = jq_next(q->c->jq))) {
		if (!got++) {
			*out = r;
		} else {
			jv_free(r);
		}
	}
	if (jv_invalid_has_msg(jv_copy(r))) {
		jv m = jv_invalid_get_msg(r);
		jv_free(*out);
		*out = jv_null();
		if (jv_get_kind(m) == JV_KIND_STRING) rag_seterr(err, errlen, "the jq program failed: %s", jv_string_value(m));
		else rag_seterr(err, errlen, "the jq program failed");
		jv_free(m);
		return -1;
	}
	jv_free(r);
	return got > 0;
}

void rag_jq_free(rag_jq *q)
{
	if (!q) return;
	if (--q->c->refs == 0) {
		jq_teardown(&q->c->jq);
		free(q->c);
	}
	free(q);
}
