/* wire.c - what an endpoint sends, read into values: a text/event-stream, a chat completion, an
 * embeddings reply, the body of an error. Pure functions of the bytes (no request, no network,
 * no secrets: llm.c scrubs what they return), so that the fuzz targets reach every reader of a
 * reply. Every field is read through a shape check (json.c): a body of any shape is a value or a
 * message, never an assertion in libjq. */
#include "base.h"
#include "llm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ event streams */

/* First non-blank byte of s[0..n), or 0. */
static char first_char(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r') return s[i];
	return 0;
}

/* One event's data, as JSON where it is JSON; text that looks like JSON and is not (a cut or
 * damaged event) is invalid. */
static jv event_value(const rag_buf *ev)
{
	const char *p = ev->p ? ev->p : "";
	char c = first_char(p, ev->len);
	jv v = ev->len > 0 && ev->len < 0x7fffffff ? jv_parse_sized(p, (int)ev->len) : jv_invalid();
	if (jv_is_valid(v)) return v;
	jv_free(v);
	if (c == '{' || c == '[') return jv_invalid();
	return jv_string_sized(p, (int)ev->len);
}

static int is_chunk(jv v)
{
	jv c = rag_json_get(jv_copy(v), "choices");
	int yes = jv_is_valid(c);
	jv_free(c);
	return yes;
}

jv rag_wire_sse(const char *p, size_t n, char *err, size_t errlen)
{
	jv out = jv_array();
	rag_buf ev = {0};
	int have = 0, open = 0, done = 0, chunks = 0, count = 0;
	size_t i = 0;
	while (i < n && !done) {
		size_t j = i, next;
		while (j < n && p[j] != '\n' && p[j] != '\r') j++;
		next = j < n ? j + (p[j] == '\r' && j + 1 < n && p[j + 1] == '\n' ? 2 : 1) : n;
		if (j == i) {
			/* a blank line: the event so far is complete */
			if (have && ev.len == 6 && !memcmp(ev.p, "[DONE]", 6)) {
				done = 1;
			} else if (have) {
				jv v = event_value(&ev);
				count++;
				if (!jv_is_valid(v)) {
					jv_free(v);
					rag_seterr(err, errlen, "event %d of the stream is not JSON: %.60s", count,
					           ev.p ? ev.p : "");
					goto bad;
				}
				chunks |= is_chunk(v);
				out = jv_array_append(out, v);
			}
			ev.len = 0;
			have = open = 0;
		} else {
			/* an event is open once it holds data, or when the bytes end inside any line; a
			 * comment or another field alone, whole, is no part of an answer */
			if (j >= n) open = 1;
			if (j - i >= 5 && !memcmp(p + i, "data:", 5)) {
				size_t a = i + 5 + (j - i > 5 && p[i + 5] == ' ');
				if (have) rag_buf_add(&ev, "\n", 1);
				rag_buf_add(&ev, p + a, j - a);
				have = open = 1;
				/* OpenAI's end, even without the blank line after it */
				if (next >= n && ev.len == 6 && !memcmp(ev.p, "[DONE]", 6)) done = 1;
			}
		}
		i = next;
	}
	if (done) {
		rag_buf_free(&ev);
		return out;
	}
	if (open) {
		rag_seterr(err, errlen, "the stream was cut: it ends in the middle of an event, after %d whole %s",
		           count, count == 1 ? "event" : "events");
		goto bad;
	}
	if (chunks) {
		rag_seterr(err, errlen, "the stream was cut: %d %s and no data: [DONE]", count,
		           count == 1 ? "event" : "events");
		goto bad;
	}
	if (count == 0) {
		rag_seterr(err, errlen, "the stream has no event");
		goto bad;
	}
	rag_buf_free(&ev);
	return out;
bad:
	for (char *q = err; q && *q; q++)
		if ((unsigned char)*q < 0x20) *q = ' ';
	rag_buf_free(&ev);
	jv_free(out);
	return jv_invalid();
}

/* ------------------------------------------------------------------ chat completions */

static jv parse_body(const char *p, size_t n)
{
	if (n == 0 || n > 0x7fffffff) return jv_invalid();
	return jv_parse_sized(p, (int)n);
}

/* choices[i].message.content (choices borrowed), or invalid. */
static jv choice_content(jv choices, int i)
{
	jv c = jv_get_kind(choices) == JV_KIND_ARRAY && i < jv_array_length(jv_copy(choices))
	       ? jv_array_get(jv_copy(choices), i) : jv_invalid();
	c = rag_json_get(rag_json_get(c, "message"), "content");
	if (jv_get_kind(c) == JV_KIND_STRING) return c;
	jv_free(c);
	return jv_invalid();
}

jv rag_wire_chat(const char *p, size_t n, int nchoices, char *err, size_t errlen)
{
	jv v = parse_body(p, n), choices, c, out;
	if (!jv_is_valid(v)) {
		jv_free(v);
		rag_seterr(err, errlen, "endpoint returned a body that is not JSON");
		return jv_invalid();
	}
	choices = rag_json_get(jv_copy(v), "choices");
	c = choice_content(choices, 0);
	if (!jv_is_valid(c)) {
		jv_free(c);
		jv_free(choices);
		jv_free(v);
		rag_seterr(err, errlen, "endpoint reply has no choices[0].message.content");
		return jv_invalid();
	}
	out = JV_OBJECT(jv_string("content"), c);
	{
		jv ch = jv_array_get(jv_copy(choices), 0);
		jv fr = rag_json_get(ch, "finish_reason");
		out = jv_object_set(out, jv_string("finish_reason"),
		                    jv_get_kind(fr) == JV_KIND_STRING ? fr : (jv_free(fr), jv_string("stop")));
	}
	if (nchoices > 1) {
		/* as many as came, each a string; one that is not makes the list the first alone */
		jv all = jv_array();
		int i, m = jv_array_length(jv_copy(choices));
		for (i = 0; i < m && i < nchoices; i++) {
			jv x = choice_content(choices, i);
			if (!jv_is_valid(x)) {
				jv_free(x);
				jv_free(all);
				all = jv_invalid();
				break;
			}
			all = jv_array_append(all, x);
		}
		if (!jv_is_valid(all)) {
			jv_free(all);
			all = JV_ARRAY(rag_json_get(jv_copy(out), "content"));
		}
		out = jv_object_set(out, jv_string("choices"), all);
	}
	{
		jv u = rag_json_get(jv_copy(v), "usage");
		out = jv_object_set(out, jv_string("usage"), jv_is_valid(u) ? u : (jv_free(u), jv_null()));
	}
	jv_free(choices);
	jv_free(v);
	return out;
}

/* ------------------------------------------------------------------ embeddings */

/* A non-empty array of finite numbers. v borrowed. */
static int vector_ok(jv v)
{
	int i, n;
	if (jv_get_kind(v) != JV_KIND_ARRAY) return 0;
	n = jv_array_length(jv_copy(v));
	for (i = 0; i < n; i++) {
		jv x = jv_array_get(jv_copy(v), i);
		int ok = jv_get_kind(x) == JV_KIND_NUMBER && isfinite(jv_number_value(x));
		jv_free(x);
		if (!ok) return 0;
	}
	return n > 0;
}

int rag_wire_vector_ok(jv v)
{
	return vector_ok(v);
}

jv rag_wire_embed(const char *p, size_t n, int want, int dims, jv *usage, char *err, size_t errlen)
{
	jv v = parse_body(p, n), data, got;
	int i, m;
	*usage = jv_null();
	if (!jv_is_valid(v)) {
		jv_free(v);
		rag_seterr(err, errlen, "endpoint returned a body that is not JSON");
		return jv_invalid();
	}
	data = rag_json_get(jv_copy(v), "data");
	if (jv_get_kind(data) != JV_KIND_ARRAY) {
		jv_free(data);
		jv_free(v);
		rag_seterr(err, errlen, "embeddings reply has no data array");
		return jv_invalid();
	}
	m = jv_array_length(jv_copy(data));
	if (m != want) {
		jv_free(data);
		jv_free(v);
		if (m == 0) rag_seterr(err, errlen, "embeddings reply has an empty data list for %d texts", want);
		else rag_seterr(err, errlen, "embeddings reply has %d vectors for %d texts", m, want);
		return jv_invalid();
	}
	got = jv_array();
	for (i = 0; i < m; i++) got = jv_array_append(got, jv_null());
	for (i = 0; i < m; i++) {
		jv d = jv_array_get(jv_copy(data), i);
		jv idx = rag_json_get(jv_copy(d), "index");
		jv e = rag_json_get(d, "embedding"), old;
		int k = i;
		const char *why = NULL;
		if (jv_get_kind(idx) == JV_KIND_NUMBER) {
			double x = jv_number_value(idx);
			k = x >= 0 && x < m && x == (int)x ? (int)x : -1;
		}
		jv_free(idx);
		if (k < 0) {
			rag_seterr(err, errlen, "embeddings reply: data[%d] has an index out of range", i);
			why = "";
		} else if (!vector_ok(e)) {
			rag_seterr(err, errlen, "embeddings reply: data[%d].embedding is not a non-empty array of numbers", i);
			why = "";
		} else if (dims && jv_array_length(jv_copy(e)) != dims) {
			rag_seterr(err, errlen, "dimension mismatch: embedding %d has %d numbers, expected %d", k,
			           jv_array_length(jv_copy(e)), dims);
			why = "";
		} else if (jv_get_kind(old = jv_array_get(jv_copy(got), k)) != JV_KIND_NULL) {
			jv_free(old);
			rag_seterr(err, errlen, "embeddings reply: index %d appears twice", k);
			why = "";
		} else {
			jv_free(old);
		}
		if (why) {
			jv_free(e);
			jv_free(got);
			jv_free(data);
			jv_free(v);
			return jv_invalid();
		}
		dims = jv_array_length(jv_copy(e));
		got = jv_array_set(got, k, e);
	}
	jv_free(*usage);
	*usage = rag_json_get(jv_copy(v), "usage");
	if (!jv_is_valid(*usage)) {
		jv_free(*usage);
		*usage = jv_null();
	}
	jv_free(data);
	jv_free(v);
	return got;
}

/* ------------------------------------------------------------------ errors */

/* What an error body says, as text: the message of OpenAI's {"error": {"message"}}, a bare
 * {"error": "..."}, FastAPI's {"detail"}, a {"message"} (vLLM's {"object": "error"}); the same
 * in a list's first object (Gemini's OpenAI compatibility answers [{"error": {...}}]); else the
 * JSON itself, compact; else (not JSON: a proxy's page) the text with its tags taken out. */
static char *error_text(const char *p, size_t n)
{
	static const char *const paths[] = {"error.message", "error", "detail", "message", "error.detail"};
	jv v = parse_body(p, n), m = jv_invalid();
	char *out;
	size_t i;
	if (jv_get_kind(v) == JV_KIND_ARRAY && jv_array_length(jv_copy(v)) > 0) {
		jv first = jv_array_get(jv_copy(v), 0);
		if (jv_get_kind(first) == JV_KIND_OBJECT && jv_object_has(jv_copy(first), jv_string("error"))) {
			jv_free(v);
			v = first;
		} else {
			jv_free(first);
		}
	}
	if (jv_is_valid(v)) {
		for (i = 0; i < sizeof paths / sizeof *paths && !jv_is_valid(m); i++) {
			jv_free(m);
			m = rag_json_path(v, paths[i]);
			if (jv_get_kind(m) == JV_KIND_NULL) {
				jv_free(m);
				m = jv_invalid();
			}
		}
		if (!jv_is_valid(m)) {
			jv_free(m);
			m = jv_copy(v);
		}
		if (jv_get_kind(m) != JV_KIND_STRING) m = jv_dump_string(m, 0);
		out = rag_xstrdup(jv_string_value(m));
		jv_free(m);
		jv_free(v);
		return out;
	}
	jv_free(m);
	jv_free(v);
	{
		rag_buf b = {0};
		int tag = 0;
		for (i = 0; i < n; i++) {
			if (p[i] == '<') tag = 1;
			else if (p[i] == '>' && tag) tag = 0, rag_buf_add(&b, " ", 1);
			else if (!tag) rag_buf_add(&b, p + i, 1);
		}
		rag_buf_add(&b, "", 1);
		return b.p;
	}
}

void rag_wire_clip(char *s, size_t max)
{
	size_t n = strlen(s), k;
	if (!max || n <= max) return;
	k = max >= 3 ? max - 3 : 0;
	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;   /* a whole UTF-8 character */
	memcpy(s + k, "...", 3);
	s[k + 3] = 0;
}

char *rag_wire_error(const char *p, size_t n, size_t max)
{
	char *t = error_text(p ? p : "", p ? n : 0), *s, *o;
	char *clean = rag_utf8_sanitize(t, strlen(t));
	free(t);
	/* one line: control characters and runs of blanks are one blank */
	for (s = o = clean; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int blank = c < 0x20 || c == 0x7f || c == ' ';
		if (blank && (o == clean || o[-1] == ' ')) continue;
		*o++ = blank ? ' ' : (char)c;
	}
	while (o > clean && o[-1] == ' ') o--;
	*o = 0;
	if (!*clean) {
		free(clean);
		return NULL;
	}
	rag_wire_clip(clean, max);
	return clean;
}
