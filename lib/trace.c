/* trace.c - OpenTelemetry traces made into records (trace.h, rag-trace(1)). */
#include "trace.h"
#include "record.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBUCKETS 8192
#define DEFAULT_BYTES (16u << 20)
#define RECENT 8192               /* trace ids remembered after their record, a generation */

typedef struct span {
	char id[17], parent[17];
	uint64_t start, end;
	int error;
	jv name;                  /* a string */
	jv status_msg;            /* a string, or null */
	jv attrs;                 /* an object: the span's attributes, and its events' where the span
	                           * lacks the key (Spring AI and older GenAI put prompts in events) */
} span;

typedef struct trace {
	char id[33];
	span *v;
	size_t n, cap;
	uint64_t last_end;        /* the latest end (or start) of its spans */
	size_t bytes;
	int late;                 /* a trace whose record was written already: these spans came after */
	struct trace *hnext;      /* its bucket's chain */
	struct trace *prev, *next;   /* the traces held, in the order first seen */
} trace;

struct rag_trace {
	rag_trace_opts o;
	uint64_t quiet_ns;
	size_t max_bytes;
	rag_jq *keep;
	trace *tab[NBUCKETS];
	trace *head, *tail;
	uint64_t clock;           /* the latest span end seen, moved on by rag_trace_idle */
	rag_trace_stats st;
	jv evicted;
	/* the ids of the traces whose record was made lately, in two generations of RECENT (the
	 * older one forgotten as the newer fills), so that spans coming after their trace's record
	 * are told apart from a new trace */
	rag_idtab done[2];
	int cur;
};

static int was_done(const rag_trace *t, const char *id)
{
	return rag_idtab_find(&t->done[0], id) >= 0 || rag_idtab_find(&t->done[1], id) >= 0;
}

static void remember(rag_trace *t, const char *id)
{
	if (was_done(t, id)) return;
	if (t->done[t->cur].n >= RECENT) {
		t->cur ^= 1;
		rag_idtab_free(&t->done[t->cur]);
	}
	rag_idtab_add(&t->done[t->cur], id);
}

/* What a record field is made of by default and which names a mapping may give. */
static const char *const mapped_known[] = {
	"question", "answer", "contexts", "model", "feedback", NULL
};
/* Fields rag-trace computes itself: no mapping sets them. */
static const char *const computed[] = {
	"id", "trace_id", "span_id", "started", "latency_ms", "usage", "trace", "errors", "context_ids", NULL
};

static int in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s)) return 1;
	return 0;
}

rag_trace *rag_trace_new(const rag_trace_opts *o, char *err, size_t errlen)
{
	rag_trace *t;
	size_t i;
	for (i = 0; i < o->nfields; i++) {
		if (in_list(computed, o->fields[i].key)) {
			rag_seterr(err, errlen, "trace.fields.%s: rag-trace writes \"%s\" itself; map another field",
			           o->fields[i].key, o->fields[i].key);
			return NULL;
		}
		if (!o->fields[i].value || !*o->fields[i].value) {
			rag_seterr(err, errlen, "trace.fields.%s: give the attribute's name", o->fields[i].key);
			return NULL;
		}
	}
	t = rag_xcalloc(1, sizeof *t);
	t->o = *o;
	t->quiet_ns = o->quiet > 0 ? (uint64_t)llround(o->quiet * 1e9) : 0;
	t->max_bytes = o->max_bytes ? o->max_bytes : DEFAULT_BYTES;
	t->evicted = jv_array();
	if (o->keep && !(t->keep = rag_jq_new(o->keep, err, errlen))) {
		jv_free(t->evicted);
		free(t);
		return NULL;
	}
	return t;
}

/* ---------------------------------------------------------------- reading a span */

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z') return c - 'A';
	if (c >= 'a' && c <= 'z') return c - 'a' + 26;
	if (c >= '0' && c <= '9') return c - '0' + 52;
	if (c == '+' || c == '-') return 62;
	if (c == '/' || c == '_') return 63;
	return -1;
}

/* An id of nbytes bytes into out (2 * nbytes hex digits, lower case): OTLP JSON writes it in hex;
 * protobuf's own JSON mapping, which some exporters use, in base64. 0, or -1 when it is neither
 * or all zeros (OTLP's invalid id). */
static int read_id_of(jv v, size_t nbytes, char *out)
{
	const char *s;
	size_t len, i, nonzero = 0;
	if (jv_get_kind(v) != JV_KIND_STRING) return -1;
	s = jv_string_value(v);
	len = strlen(s);
	if (len == 2 * nbytes) {
		for (i = 0; i < len; i++) {
			if (hexval((unsigned char)s[i]) < 0) return -1;
			out[i] = (char)tolower((unsigned char)s[i]);
			nonzero |= out[i] != '0';
		}
	} else if (len == (nbytes + 2) / 3 * 4) {
		unsigned char b[18];
		size_t nb = 0;
		unsigned acc = 0;
		int bits = 0;
		for (i = 0; i < len && s[i] != '='; i++) {
			int d = b64val((unsigned char)s[i]);
			if (d < 0) return -1;
			acc = (acc << 6) | (unsigned)d;
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				if (nb < sizeof b) b[nb++] = (unsigned char)(acc >> bits);
				acc &= (1u << bits) - 1;
			}
		}
		if (nb != nbytes) return -1;
		rag_hex(out, b, nbytes);
		for (i = 0; i < nbytes; i++) nonzero |= b[i];
	} else {
		return -1;
	}
	out[2 * nbytes] = 0;
	return nonzero ? 0 : -1;
}

/* read_id_of, v consumed */
static int read_id(jv v, size_t nbytes, char *out)
{
	int r = read_id_of(v, nbytes, out);
	jv_free(v);
	return r;
}

/* A time in nanoseconds since the epoch: a string of digits (OTLP JSON's fixed64) or a number
 * (consumed). */
static uint64_t read_ns(jv v)
{
	uint64_t ns = 0;
	if (jv_get_kind(v) == JV_KIND_STRING) ns = strtoull(jv_string_value(v), NULL, 10);
	else if (jv_get_kind(v) == JV_KIND_NUMBER && jv_number_value(v) > 0) ns = (uint64_t)jv_number_value(v);
	jv_free(v);
	return ns;
}

static jv any_value(jv v);

/* [{key, value}] (borrowed) into obj (consumed); keys already in obj are kept when keep_old */
static jv key_values(jv obj, jv list, int keep_old)
{
	if (jv_get_kind(list) != JV_KIND_ARRAY) return obj;
	jv_array_foreach(list, i, kv) {
		jv k = jv_get_kind(kv) == JV_KIND_OBJECT ? jv_object_get(jv_copy(kv), jv_string("key")) : jv_invalid();
		if (jv_get_kind(k) == JV_KIND_STRING) {
			jv had = keep_old ? jv_object_get(jv_copy(obj), jv_copy(k)) : jv_invalid();
			if (jv_is_valid(had)) jv_free(k);
			else obj = jv_object_set(obj, k, any_value(jv_object_get(jv_copy(kv), jv_string("value"))));
			jv_free(had);
		} else {
			jv_free(k);
		}
		jv_free(kv);
		(void)i;
	}
	return obj;
}

/* OTLP's AnyValue (consumed) as plain JSON: {stringValue: "a"} is "a", intValue (a string in
 * OTLP JSON, for 64 bits) a number, arrayValue an array, kvlistValue an object. */
static jv any_value(jv v)
{
	static const char *const scalar[] = { "stringValue", "boolValue", "doubleValue", "bytesValue" };
	jv out = jv_null(), x;
	size_t i;
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return jv_null();
	}
	for (i = 0; i < sizeof scalar / sizeof *scalar; i++) {
		x = jv_object_get(jv_copy(v), jv_string(scalar[i]));
		if (jv_is_valid(x)) {
			jv_free(v);
			return x;
		}
	}
	if (jv_is_valid(x = jv_object_get(jv_copy(v), jv_string("intValue")))) {
		if (jv_get_kind(x) == JV_KIND_STRING) {
			double d = strtod(jv_string_value(x), NULL);
			jv_free(x);
			x = jv_number(d);
		}
		out = x;
	} else if (jv_is_valid(x = jv_object_get(jv_copy(v), jv_string("arrayValue")))) {
		jv vals = jv_get_kind(x) == JV_KIND_OBJECT ? jv_object_get(x, jv_string("values")) : (jv_free(x), jv_invalid());
		out = jv_array();
		if (jv_get_kind(vals) == JV_KIND_ARRAY) {
			jv_array_foreach(vals, k, e) {
				out = jv_array_append(out, any_value(e));
				(void)k;
			}
		}
		jv_free(vals);
	} else if (jv_is_valid(x = jv_object_get(jv_copy(v), jv_string("kvlistValue")))) {
		jv vals = jv_get_kind(x) == JV_KIND_OBJECT ? jv_object_get(x, jv_string("values")) : (jv_free(x), jv_invalid());
		out = key_values(jv_object(), vals, 0);
		jv_free(vals);
	} else {
		jv_free(x);
	}
	jv_free(v);
	return out;
}

/* What a value takes in memory, roughly: the bound on held spans counts it. */
static size_t jv_bytes(jv v)
{
	size_t n = 16;
	switch (jv_get_kind(v)) {
	case JV_KIND_STRING:
		return n + 16 + (size_t)jv_string_length_bytes(jv_copy(v));
	case JV_KIND_ARRAY:
		jv_array_foreach(v, i, e) {
			n += jv_bytes(e);
			jv_free(e);
			(void)i;
		}
		return n + 16;
	case JV_KIND_OBJECT:
		jv_object_foreach(v, k, e) {
			n += 48 + (size_t)jv_string_length_bytes(k) + jv_bytes(e);
			jv_free(e);
		}
		return n + 64;
	default:
		return n;
	}
}

static unsigned hash_id(const char *id)
{
	uint32_t h = 2166136261u;
	for (; *id; id++) h = (h ^ (unsigned char)*id) * 16777619u;
	return h % NBUCKETS;
}

static trace *find_trace(rag_trace *t, const char *id, int make)
{
	unsigned b = hash_id(id);
	trace *tr;
	for (tr = t->tab[b]; tr; tr = tr->hnext)
		if (!strcmp(tr->id, id)) return tr;
	if (!make) return NULL;
	tr = rag_xcalloc(1, sizeof *tr);
	memcpy(tr->id, id, sizeof tr->id);
	tr->hnext = t->tab[b];
	t->tab[b] = tr;
	tr->prev = t->tail;
	if (t->tail) t->tail->next = tr;
	else t->head = tr;
	t->tail = tr;
	t->st.traces++;
	tr->late = was_done(t, id);
	return tr;
}

static void span_free(span *s)
{
	jv_free(s->name);
	jv_free(s->status_msg);
	jv_free(s->attrs);
}

/* unhook tr from the table and the list, and free it */
static void drop_trace(rag_trace *t, trace *tr)
{
	trace **pp = &t->tab[hash_id(tr->id)];
	size_t i;
	while (*pp != tr) pp = &(*pp)->hnext;
	*pp = tr->hnext;
	if (tr->prev) tr->prev->next = tr->next;
	else t->head = tr->next;
	if (tr->next) tr->next->prev = tr->prev;
	else t->tail = tr->prev;
	t->st.held_bytes -= tr->bytes;
	for (i = 0; i < tr->n; i++) span_free(&tr->v[i]);
	free(tr->v);
	free(tr);
}

static int is_error_status(jv status)
{
	jv c = jv_get_kind(status) == JV_KIND_OBJECT ? jv_object_get(jv_copy(status), jv_string("code")) : jv_invalid();
	int yes = (jv_get_kind(c) == JV_KIND_NUMBER && jv_number_value(c) == 2) ||
	          (jv_get_kind(c) == JV_KIND_STRING && !strcmp(jv_string_value(c), "STATUS_CODE_ERROR"));
	jv_free(c);
	return yes;
}

/* Spring AI's vector store, with log-query-response on, writes the documents it returned as the
 * event "db.vector.content.query.response" whose attribute is named db.vector.query.content (a
 * string array; spring-ai's VectorStoreQueryResponseObservationHandler), the name of the span's
 * own attribute that holds the query: merged, the query's would hide them. They are kept as
 * db.vector.query.response.documents, the name of the same documents as a span attribute, unless
 * the span has that. ev and a (its attributes) borrowed, attrs consumed. */
static jv spring_response(jv attrs, jv ev, jv a)
{
	jv name = jv_get_kind(ev) == JV_KIND_OBJECT ? jv_object_get(jv_copy(ev), jv_string("name")) : jv_invalid();
	int yes = jv_get_kind(name) == JV_KIND_STRING && !strcmp(jv_string_value(name), "db.vector.content.query.response");
	jv_free(name);
	if (yes) {
		jv docs = jv_object_get(key_values(jv_object(), a, 0), jv_string("db.vector.query.content"));
		jv had = jv_object_get(jv_copy(attrs), jv_string("db.vector.query.response.documents"));
		if (jv_is_valid(docs) && !jv_is_valid(had))
			attrs = jv_object_set(attrs, jv_string("db.vector.query.response.documents"), docs);
		else
			jv_free(docs);
		jv_free(had);
	}
	return attrs;
}

/* One span (borrowed) held in its trace: 0, or -1 with err when it has no ids. */
static int add_span(rag_trace *t, jv sp, char *err, size_t errlen)
{
	char tid[33];
	span s;
	trace *tr;
	jv status, events;
	memset(&s, 0, sizeof s);
	if (jv_get_kind(sp) != JV_KIND_OBJECT) {
		rag_seterr(err, errlen, "a span is not an object");
		return -1;
	}
	if (read_id(jv_object_get(jv_copy(sp), jv_string("traceId")), 16, tid) < 0) {
		rag_seterr(err, errlen, "a span has no traceId of 32 hex digits");
		return -1;
	}
	if (read_id(jv_object_get(jv_copy(sp), jv_string("spanId")), 8, s.id) < 0) {
		rag_seterr(err, errlen, "a span of trace %s has no spanId of 16 hex digits", tid);
		return -1;
	}
	if (read_id(jv_object_get(jv_copy(sp), jv_string("parentSpanId")), 8, s.parent) < 0) s.parent[0] = 0;
	s.name = jv_object_get(jv_copy(sp), jv_string("name"));
	if (jv_get_kind(s.name) != JV_KIND_STRING) {
		jv_free(s.name);
		s.name = jv_string("");
	}
	s.start = read_ns(jv_object_get(jv_copy(sp), jv_string("startTimeUnixNano")));
	s.end = read_ns(jv_object_get(jv_copy(sp), jv_string("endTimeUnixNano")));
	if (s.end < s.start) s.end = s.start;
	status = jv_object_get(jv_copy(sp), jv_string("status"));
	s.error = is_error_status(status);
	s.status_msg = jv_get_kind(status) == JV_KIND_OBJECT ? jv_object_get(jv_copy(status), jv_string("message")) : jv_null();
	if (jv_get_kind(s.status_msg) != JV_KIND_STRING || !*jv_string_value(s.status_msg)) {
		jv_free(s.status_msg);
		s.status_msg = jv_null();
	}
	jv_free(status);
	{
		jv a = jv_object_get(jv_copy(sp), jv_string("attributes"));
		s.attrs = key_values(jv_object(), a, 0);
		jv_free(a);
	}
	events = jv_object_get(jv_copy(sp), jv_string("events"));
	if (jv_get_kind(events) == JV_KIND_ARRAY) {
		jv_array_foreach(events, i, ev) {
			jv a = jv_get_kind(ev) == JV_KIND_OBJECT ? jv_object_get(jv_copy(ev), jv_string("attributes")) : jv_invalid();
			s.attrs = spring_response(s.attrs, ev, a);
			s.attrs = key_values(s.attrs, a, 1);
			jv_free(a);
			jv_free(ev);
			(void)i;
		}
	}
	jv_free(events);

	tr = find_trace(t, tid, 1);
	if (tr->n == tr->cap) {
		tr->cap = tr->cap ? 2 * tr->cap : 4;
		tr->v = rag_xrealloc(tr->v, tr->cap * sizeof *tr->v);
	}
	{
		size_t b = sizeof s + jv_bytes(s.attrs) + (size_t)jv_string_length_bytes(jv_copy(s.name));
		tr->bytes += b;
		t->st.held_bytes += b;
	}
	if (s.end > tr->last_end) tr->last_end = s.end;
	if (s.end > t->clock) t->clock = s.end;
	tr->v[tr->n++] = s;
	t->st.spans++;
	return 0;
}

/* ---------------------------------------------------------------- a trace made a record */

enum pred { ANY, TOP, SPRING_CLIENT, OI_RETRIEVER, OI_LLM };
enum how { PLAIN, LAST_USER, ASSISTANT };

static jv attr(const span *s, const char *name)
{
	return jv_object_get(jv_copy(s->attrs), jv_string(name));
}

static int attr_is(const span *s, const char *name, const char *value)
{
	jv v = attr(s, name);
	int yes = jv_get_kind(v) == JV_KIND_STRING && !strcasecmp(jv_string_value(v), value);
	jv_free(v);
	return yes;
}

static int span_is(const span *s, const span *root, int pred)
{
	switch (pred) {
	case TOP: return s == root || attr_is(s, "openinference.span.kind", "CHAIN") ||
	                 attr_is(s, "openinference.span.kind", "AGENT");
	case SPRING_CLIENT: return attr_is(s, "spring.ai.kind", "chat_client");
	case OI_RETRIEVER: return attr_is(s, "openinference.span.kind", "RETRIEVER");
	case OI_LLM: return attr_is(s, "openinference.span.kind", "LLM");
	default: return 1;
	}
}

/* A value as text: a string as it is, strings of an array one a line, anything else as JSON. */
static jv as_text(jv v)
{
	if (jv_get_kind(v) == JV_KIND_STRING) return v;
	if (jv_get_kind(v) == JV_KIND_ARRAY) {
		rag_buf b = {0};
		jv out;
		jv_array_foreach(v, i, e) {
			jv s = as_text(e);
			if (i) rag_buf_adds(&b, "\n");
			rag_buf_adds(&b, jv_string_value(s));
			jv_free(s);
		}
		jv_free(v);
		out = jv_string_sized(b.p ? b.p : "", (int)b.len);
		rag_buf_free(&b);
		return out;
	}
	if (jv_get_kind(v) == JV_KIND_NULL || !jv_is_valid(v)) {
		jv_free(v);
		return jv_invalid();
	}
	return jv_dump_string(v, 0);
}

/* A value that may be JSON written as a string (an attribute must be a scalar or an array of
 * them, so structured values come as text): parsed when it is, else as it is. Consumed. */
static jv structured(jv v)
{
	if (jv_get_kind(v) == JV_KIND_STRING) {
		const char *s = jv_string_value(v);
		while (*s == ' ' || *s == '\n') s++;
		if (*s == '[' || *s == '{') {
			jv p = jv_parse(s);
			if (jv_is_valid(p)) {
				jv_free(v);
				return p;
			}
			jv_free(p);
		}
	}
	return v;
}

/* The text of a GenAI message (borrowed): its parts' texts ({type: "text", content}), or a plain
 * content. */
static jv message_text(jv m)
{
	jv parts = jv_object_get(jv_copy(m), jv_string("parts")), c;
	if (jv_get_kind(parts) == JV_KIND_ARRAY) {
		rag_buf b = {0};
		jv out;
		jv_array_foreach(parts, i, p) {
			jv txt = jv_get_kind(p) == JV_KIND_OBJECT ? jv_object_get(jv_copy(p), jv_string("content")) : jv_invalid();
			if (jv_get_kind(txt) == JV_KIND_STRING) {
				if (b.len) rag_buf_adds(&b, "\n");
				rag_buf_adds(&b, jv_string_value(txt));
			}
			jv_free(txt);
			jv_free(p);
			(void)i;
		}
		jv_free(parts);
		out = b.len ? jv_string_sized(b.p, (int)b.len) : jv_invalid();
		rag_buf_free(&b);
		return out;
	}
	jv_free(parts);
	c = jv_object_get(jv_copy(m), jv_string("content"));
	return as_text(c);
}

/* gen_ai.input.messages' last user message, gen_ai.output.messages' first assistant one */
static jv pick_message(jv v, int how)
{
	jv out = jv_invalid();
	v = structured(v);
	if (jv_get_kind(v) != JV_KIND_ARRAY) {
		jv_free(v);
		return out;
	}
	jv_array_foreach(v, i, m) {
		if (jv_get_kind(m) == JV_KIND_OBJECT) {
			jv role = jv_object_get(jv_copy(m), jv_string("role"));
			const char *want = how == LAST_USER ? "user" : "assistant";
			if (jv_get_kind(role) == JV_KIND_STRING && !strcmp(jv_string_value(role), want) &&
			    (how == LAST_USER || !jv_is_valid(out))) {
				jv_free(out);
				out = message_text(m);
			}
			jv_free(role);
		}
		jv_free(m);
		(void)i;
	}
	jv_free(v);
	return out;
}

/* OpenInference's input.value or output.value: with its mime_type application/json, the text of
 * the object's question, query, input or output; else as written. */
static jv oi_value(const span *s, const char *name, jv v)
{
	char mime[64];
	snprintf(mime, sizeof mime, "%.*s.mime_type", (int)(strlen(name) - strlen(".value")), name);
	if (attr_is(s, mime, "application/json")) {
		static const char *const keys[] = { "question", "query", "input", "output", "answer", NULL };
		jv p = structured(jv_copy(v));
		size_t k;
		if (jv_get_kind(p) == JV_KIND_OBJECT) {
			for (k = 0; keys[k]; k++) {
				jv x = jv_object_get(jv_copy(p), jv_string(keys[k]));
				if (jv_get_kind(x) == JV_KIND_STRING) {
					jv_free(p);
					jv_free(v);
					return x;
				}
				jv_free(x);
			}
		}
		jv_free(p);
	}
	return v;
}

typedef struct cand { const char *name; int pred, how; } cand;

typedef struct built {
	const trace *tr;
	const span *root;
	const span **order;       /* the spans, root first, then by start */
} built;

/* The first value of the candidates, in their order, each looked for span by span: text, or
 * invalid. mapped (NULL: none) comes first, in any span; the conventions' names where no span
 * has it. */
static jv find_text(const built *b, const char *mapped, const cand *c, size_t nc)
{
	size_t k, i;
	if (mapped) {
		for (i = 0; i < b->tr->n; i++) {
			jv v = attr(b->order[i], mapped);
			if (jv_is_valid(v) && jv_get_kind(v) != JV_KIND_NULL) return as_text(v);
			jv_free(v);
		}
	}
	for (k = 0; k < nc; k++) {
		for (i = 0; i < b->tr->n; i++) {
			const span *s = b->order[i];
			jv v;
			if (!span_is(s, b->root, c[k].pred)) continue;
			v = attr(s, c[k].name);
			if (!jv_is_valid(v) || jv_get_kind(v) == JV_KIND_NULL) {
				jv_free(v);
				continue;
			}
			if (c[k].how != PLAIN) v = pick_message(v, c[k].how);
			else if (!strncmp(c[k].name, "input.", 6) || !strncmp(c[k].name, "output.", 7)) v = oi_value(s, c[k].name, v);
			v = as_text(v);
			if (jv_is_valid(v) && *jv_string_value(v)) return v;
			jv_free(v);
		}
	}
	return jv_invalid();
}

static const cand question_c[] = {
	{"input.value", TOP, PLAIN},                        /* OpenInference: the chain's input */
	{"spring.ai.chat.client.user.text", ANY, PLAIN},    /* Spring AI before 1.0 */
	{"gen_ai.prompt", SPRING_CLIENT, PLAIN},            /* Spring AI: the chat client's prompt */
	{"gen_ai.retrieval.query.text", ANY, PLAIN},        /* GenAI: a retrieval's query */
	{"db.vector.query.content", ANY, PLAIN},            /* Spring AI: the vector store's query */
	{"input.value", OI_RETRIEVER, PLAIN},               /* OpenInference: the retriever's query */
	{"gen_ai.input.messages", ANY, LAST_USER},          /* GenAI: the model's last user message */
	{"gen_ai.prompt", ANY, PLAIN},
};
static const cand answer_c[] = {
	{"output.value", TOP, PLAIN},
	{"gen_ai.completion", SPRING_CLIENT, PLAIN},
	{"gen_ai.output.messages", ANY, ASSISTANT},
	{"gen_ai.completion", ANY, PLAIN},
	{"output.value", OI_LLM, PLAIN},
};
static const cand model_c[] = {
	{"llm.model_name", ANY, PLAIN},
	{"gen_ai.response.model", ANY, PLAIN},
	{"gen_ai.request.model", ANY, PLAIN},
};
static const cand feedback_c[] = {
	{"feedback", ANY, PLAIN}, {"user.feedback", ANY, PLAIN}, {"user_feedback", ANY, PLAIN},
	{"feedback.score", ANY, PLAIN}, {"feedback.value", ANY, PLAIN},
};
#define NC(a) (sizeof a / sizeof *a)

static const char *mapping(const rag_trace *t, const char *field)
{
	size_t i;
	for (i = 0; i < t->o.nfields; i++)
		if (!strcmp(t->o.fields[i].key, field)) return t->o.fields[i].value;
	return NULL;
}

/* One document (borrowed) as {id?, text?, score?}: a string is its text; an object's id, text
 * (content, text, page_content, document.content...) and score as they are named. */
static jv document(jv d)
{
	static const char *const ids[] = { "id", "document.id", "doc_id" };
	static const char *const texts[] = { "content", "text", "page_content", "document.content" };
	static const char *const scores[] = { "score", "document.score", "distance" };
	jv out = jv_object(), x;
	size_t k;
	if (jv_get_kind(d) == JV_KIND_STRING) return jv_object_set(out, jv_string("text"), jv_copy(d));
	if (jv_get_kind(d) != JV_KIND_OBJECT) return out;
	for (k = 0; k < NC(ids); k++) {
		x = jv_object_get(jv_copy(d), jv_string(ids[k]));
		if (jv_get_kind(x) == JV_KIND_STRING || jv_get_kind(x) == JV_KIND_NUMBER) {
			char *id = rag_json_id(x);
			out = jv_object_set(out, jv_string("id"), jv_string(id));
			free(id);
			jv_free(x);
			break;
		}
		jv_free(x);
	}
	for (k = 0; k < NC(texts); k++) {
		x = jv_object_get(jv_copy(d), jv_string(texts[k]));
		if (jv_get_kind(x) == JV_KIND_STRING) {
			out = jv_object_set(out, jv_string("text"), x);
			break;
		}
		jv_free(x);
	}
	for (k = 0; k < NC(scores); k++) {
		x = jv_object_get(jv_copy(d), jv_string(scores[k]));
		if (jv_get_kind(x) == JV_KIND_NUMBER) {
			out = jv_object_set(out, jv_string("score"), x);
			break;
		}
		jv_free(x);
	}
	return out;
}

/* A list of documents (consumed: an array, JSON text of one, or one text) as documents */
static jv documents(jv v)
{
	jv out = jv_array();
	v = structured(v);
	if (jv_get_kind(v) == JV_KIND_OBJECT) v = JV_ARRAY(v);
	if (jv_get_kind(v) == JV_KIND_STRING) v = JV_ARRAY(v);
	if (jv_get_kind(v) == JV_KIND_ARRAY) {
		jv_array_foreach(v, i, d) {
			jv one = structured(d);
			out = jv_array_append(out, document(one));
			jv_free(one);
			(void)i;
		}
	}
	jv_free(v);
	return out;
}

/* OpenInference's flattened documents of a span: retrieval.documents.N.document.{id,content,score}
 * into an array by N; invalid when the span has none. */
static jv oi_documents(const span *s)
{
	static const char prefix[] = "retrieval.documents.";
	jv out = jv_invalid();
	jv_object_foreach(s->attrs, k, v) {
		const char *key = jv_string_value(k), *rest;
		char *end;
		unsigned long n;
		if (!strncmp(key, prefix, sizeof prefix - 1) && isdigit((unsigned char)key[sizeof prefix - 1])) {
			n = strtoul(key + sizeof prefix - 1, &end, 10);
			rest = *end == '.' ? end + 1 : NULL;
			if (rest && n < 10000) {
				jv d;
				if (!jv_is_valid(out)) out = jv_array();
				while ((unsigned long)jv_array_length(jv_copy(out)) <= n) out = jv_array_append(out, jv_object());
				d = jv_array_get(jv_copy(out), (int)n);
				d = jv_object_set(d, jv_string(rest), jv_copy(v));
				out = jv_array_set(out, (int)n, d);
			}
		}
		jv_free(k);
		jv_free(v);
	}
	return out;
}

/* The retrieved documents: the mapping's attribute (any span), else OpenInference's, GenAI's or
 * Spring AI's, of the first span that has them. */
static jv find_documents(const built *b, const char *mapped)
{
	static const char *const lists[] = { "gen_ai.retrieval.documents", "db.vector.query.response.documents" };
	size_t i, k;
	for (i = 0; mapped && i < b->tr->n; i++) {
		jv v = attr(b->order[i], mapped);
		if (jv_is_valid(v) && jv_get_kind(v) != JV_KIND_NULL) return documents(v);
		jv_free(v);
	}
	for (i = 0; i < b->tr->n; i++) {
		const span *s = b->order[i];
		jv v = oi_documents(s);
		if (jv_is_valid(v)) return documents(v);
		for (k = 0; k < NC(lists); k++) {
			v = attr(s, lists[k]);
			if (jv_is_valid(v) && jv_get_kind(v) != JV_KIND_NULL) return documents(v);
			jv_free(v);
		}
	}
	return jv_invalid();
}

static double num_attr(const span *s, const char *name, int *found)
{
	jv v = attr(s, name);
	double d = 0;
	if (jv_get_kind(v) == JV_KIND_NUMBER) d = jv_number_value(v), *found = 1;
	else if (jv_get_kind(v) == JV_KIND_STRING && *jv_string_value(v)) d = strtod(jv_string_value(v), NULL), *found = 1;
	jv_free(v);
	return d;
}

/* The service's own tokens: each model call's (OpenInference's llm.token_count.*, else GenAI's
 * gen_ai.usage.*), added up. 0 when no span says. */
static int service_usage(const built *b, rag_usage *u)
{
	static const char *const names[][2] = {
		{"llm.token_count.prompt", "llm.token_count.completion"},
		{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"},
		{"gen_ai.usage.prompt_tokens", "gen_ai.usage.completion_tokens"},
	};
	size_t i, k;
	memset(u, 0, sizeof *u);
	for (i = 0; i < b->tr->n; i++) {
		for (k = 0; k < NC(names); k++) {
			int found = 0;
			double p = num_attr(b->order[i], names[k][0], &found);
			double c = num_attr(b->order[i], names[k][1], &found);
			if (found) {
				u->calls++;
				u->prompt_tokens += (long)p;
				u->completion_tokens += (long)c;
				break;
			}
		}
	}
	return u->calls > 0;
}

/* Whether a feedback value (borrowed) is a thumbs-down: false, a number of 0 or less, or a word
 * that says so. */
static int thumbs_down(jv v)
{
	static const char *const words[] = { "down", "thumbs_down", "thumbs-down", "thumbsdown", "negative",
	                                     "bad", "dislike", "no", "false", "-1", "0", NULL };
	switch (jv_get_kind(v)) {
	case JV_KIND_FALSE: return 1;
	case JV_KIND_NUMBER: return jv_number_value(v) <= 0;
	case JV_KIND_STRING: {
		const char *s = jv_string_value(v);
		size_t i;
		for (i = 0; words[i]; i++)
			if (!strcasecmp(s, words[i])) return 1;
		return !strcmp(s, "\xf0\x9f\x91\x8e");   /* the thumbs-down sign */
	}
	default: return 0;
	}
}

static jv find_feedback(const built *b, const char *mapped)
{
	size_t k, i;
	for (k = mapped ? 0 : 1; k <= NC(feedback_c); k++) {
		const char *name = k == 0 ? mapped : feedback_c[k - 1].name;
		for (i = 0; i < b->tr->n; i++) {
			jv v = attr(b->order[i], name);
			if (jv_is_valid(v) && jv_get_kind(v) != JV_KIND_NULL) return v;
			jv_free(v);
		}
	}
	return jv_invalid();
}

static jv iso_time(uint64_t ns)
{
	char buf[64];
	struct tm tm;
	time_t secs = (time_t)(ns / 1000000000u);
	size_t n;
	gmtime_r(&secs, &tm);
	n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof buf - n, ".%03uZ", (unsigned)(ns / 1000000u % 1000u));
	return jv_string(buf);
}

static int by_start(const void *a, const void *b)
{
	const span *x = *(const span *const *)a, *y = *(const span *const *)b;
	if (x->start != y->start) return x->start < y->start ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The root: a span without a parent in the trace, the earliest such; else the earliest span. */
static const span *find_root(const built *b)
{
	size_t i, k;
	for (i = 0; i < b->tr->n; i++) {
		const span *s = b->order[i];
		int has_parent = 0;
		for (k = 0; s->parent[0] && k < b->tr->n && !has_parent; k++)
			has_parent = !strcmp(b->tr->v[k].id, s->parent);
		if (!has_parent) return s;
	}
	return b->order[0];
}

/* The contexts (docs consumed) into rec: those with a text as {id?, text, score?}, and context_ids
 * when every document has an id. */
static jv put_contexts(jv rec, jv docs)
{
	jv ctx = jv_array(), ids = jv_array();
	int all_ids = jv_array_length(jv_copy(docs)) > 0;
	jv_array_foreach(docs, i, d) {
		jv id = jv_object_get(jv_copy(d), jv_string("id")), text = jv_object_get(jv_copy(d), jv_string("text"));
		if (jv_is_valid(id)) ids = jv_array_append(ids, id);
		else all_ids = 0, jv_free(id);
		if (jv_is_valid(text)) ctx = jv_array_append(ctx, jv_copy(d));
		jv_free(text);
		jv_free(d);
		(void)i;
	}
	jv_free(docs);
	rec = jv_object_set(rec, jv_string("contexts"), ctx);
	if (all_ids) rec = jv_object_set(rec, jv_string("context_ids"), ids);
	else jv_free(ids);
	return rec;
}

/* The fields a mapping names beyond the known ones: each the first value of its attribute. */
static jv put_extra(const rag_trace *t, const built *b, jv rec)
{
	size_t i, k;
	for (i = 0; i < t->o.nfields; i++) {
		if (in_list(mapped_known, t->o.fields[i].key)) continue;
		for (k = 0; k < b->tr->n; k++) {
			jv v = attr(b->order[k], t->o.fields[i].value);
			if (jv_is_valid(v)) {
				rec = jv_object_set(rec, jv_string(t->o.fields[i].key), v);
				break;
			}
			jv_free(v);
		}
	}
	return rec;
}

/* The spans as the --keep filter sees them */
static jv spans_json(const built *b)
{
	jv out = jv_array();
	size_t i;
	for (i = 0; i < b->tr->n; i++) {
		const span *s = b->order[i];
		out = jv_array_append(out, JV_OBJECT(jv_string("name"), jv_copy(s->name), jv_string("span_id"), jv_string(s->id),
		                                     jv_string("parent_span_id"), s->parent[0] ? jv_string(s->parent) : jv_null(),
		                                     jv_string("status"), jv_string(s->error ? "error" : "ok"),
		                                     jv_string("attributes"), jv_copy(s->attrs)));
	}
	return out;
}

/* The record's fields from the spans: question, contexts, answer, model, feedback, the mapping's */
static jv put_fields(const rag_trace *t, const built *b, jv rec, jv *feedback)
{
	jv v = find_text(b, mapping(t, "question"), question_c, NC(question_c));
	if (jv_is_valid(v)) rec = jv_object_set(rec, jv_string("question"), v);
	else jv_free(v);
	v = find_documents(b, mapping(t, "contexts"));
	if (jv_is_valid(v)) rec = put_contexts(rec, v);
	else jv_free(v);
	v = find_text(b, mapping(t, "answer"), answer_c, NC(answer_c));
	if (jv_is_valid(v)) rec = jv_object_set(rec, jv_string("answer"), v);
	else jv_free(v);
	v = find_text(b, mapping(t, "model"), model_c, NC(model_c));
	if (jv_is_valid(v)) rec = jv_object_set(rec, jv_string("model"), v);
	else jv_free(v);
	*feedback = find_feedback(b, mapping(t, "feedback"));
	if (jv_is_valid(*feedback)) rec = jv_object_set(rec, jv_string("feedback"), jv_copy(*feedback));
	return put_extra(t, b, rec);
}

/* The errors a record carries: what it lacks, or that it was cut short */
static jv put_errors(const rag_trace *t, jv rec, int evicted, int late, size_t nspans)
{
	static const char *const needed[] = { "question", "answer" };
	size_t k;
	for (k = 0; k < NC(needed); k++) {
		jv v = jv_object_get(jv_copy(rec), jv_string(needed[k]));
		if (!jv_is_valid(v))
			rec = rag_record_error(rec, "rag-trace", NULL, "no %s in the trace: no span has an attribute of "
			                       "Spring AI, GenAI or OpenInference that holds it (map one with trace.fields.%s)",
			                       needed[k], needed[k]);
		jv_free(v);
	}
	if (evicted)
		rec = rag_record_error(rec, "rag-trace", NULL, "the trace was not complete when --max-memory (%zu bytes) "
		                       "made room: its %zu spans so far made this record", t->max_bytes, nspans);
	if (late)
		rec = rag_record_error(rec, "rag-trace", NULL, "spans of the trace (%zu) came after its record was written: "
		                       "a longer --quiet-time would have waited for them", nspans);
	return rec;
}

/* trace.h's, for the unit tests; defined below */
RAG_UNITTEST int rag_trace_sampled(const char *trace_id, double rate);

/* Whether the record is kept and why: in the sample, else an error span, a thumbs-down, --keep */
static const char *keep_reason(rag_trace *t, const built *b, jv *rec, int error, jv feedback)
{
	if (rag_trace_sampled(b->tr->id, t->o.sample)) return "sample";
	if (error) return "error";
	if (jv_is_valid(feedback) && thumbs_down(feedback)) return "feedback";
	if (t->keep) {
		char err[RAG_ERRLEN];
		jv in = jv_object_set(jv_copy(*rec), jv_string("spans"), spans_json(b)), res;
		int r = rag_jq_first(t->keep, in, &res, err, sizeof err);
		int yes = r > 0 && jv_get_kind(res) != JV_KIND_FALSE && jv_get_kind(res) != JV_KIND_NULL;
		jv_free(res);
		if (r < 0) {
			/* a filter that fails keeps the trace, with its error, rather than drop it unseen */
			*rec = rag_record_error(*rec, "rag-trace", NULL, "--keep: %s", err);
			return "keep";
		}
		if (yes) return "keep";
	}
	return NULL;
}

/* Whether the trace's feedback is a thumbs-down */
static int thumbs_down_in(const rag_trace *t, const built *b)
{
	jv f = find_feedback(b, mapping(t, "feedback"));
	int yes = jv_is_valid(f) && thumbs_down(f);
	jv_free(f);
	return yes;
}

/* A trace's record made or left out: an eviction said, its id remembered, the trace dropped */
static void finish(rag_trace *t, trace *tr, built *b, int evicted)
{
	if (evicted) {
		t->st.evicted++;
		t->evicted = jv_array_append(t->evicted, JV_OBJECT(jv_string("trace_id"), jv_string(tr->id),
		                                                   jv_string("spans"), jv_number((double)tr->n)));
	}
	if (tr->late) t->st.late++;
	free(b->order);
	remember(t, tr->id);
	drop_trace(t, tr);
}

/* The record of tr, appended to *out when it is kept; tr is then dropped. */
static void emit(rag_trace *t, trace *tr, int evicted, jv *out)
{
	built b;
	uint64_t first, last = 0;
	size_t i;
	int error = 0;
	rag_usage u;
	jv rec = jv_object(), feedback, errmsg = jv_null(), meta;
	const char *why;

	b.tr = tr;
	b.order = rag_xmalloc(tr->n * sizeof *b.order);
	for (i = 0; i < tr->n; i++) b.order[i] = &tr->v[i];
	qsort(b.order, tr->n, sizeof *b.order, by_start);
	b.root = find_root(&b);
	/* the root first, the rest by start */
	for (i = 0; b.order[i] != b.root; i++) {}
	memmove(b.order + 1, b.order, i * sizeof *b.order);
	b.order[0] = b.root;

	first = b.root->start;
	for (i = 0; i < tr->n; i++) {
		if (tr->v[i].start && tr->v[i].start < first) first = tr->v[i].start;
		if (tr->v[i].end > last) last = tr->v[i].end;
		if (tr->v[i].error && !error) {
			error = 1;
			errmsg = jv_string_fmt("%s%s%s", jv_string_value(tr->v[i].name),
			                       jv_is_valid(tr->v[i].status_msg) && jv_get_kind(tr->v[i].status_msg) == JV_KIND_STRING ? ": " : "",
			                       jv_get_kind(tr->v[i].status_msg) == JV_KIND_STRING ? jv_string_value(tr->v[i].status_msg) : "");
		}
	}
	if (!error && !t->keep && !rag_trace_sampled(tr->id, t->o.sample) && !thumbs_down_in(t, &b)) {
		/* left out whatever its record would say: none is made (most traces, at a low rate) */
		jv_free(rec);
		jv_free(errmsg);
		finish(t, tr, &b, evicted);
		t->st.sampled_out++;
		return;
	}
	rec = jv_object_set(rec, jv_string("id"), jv_string(tr->id));
	rec = put_fields(t, &b, rec, &feedback);
	rec = jv_object_set(rec, jv_string("started"), iso_time(first));
	rec = jv_object_set(rec, jv_string("latency_ms"), jv_number(round((double)(last - first) / 1e5) / 10));
	rec = jv_object_set(rec, jv_string("trace_id"), jv_string(tr->id));
	rec = jv_object_set(rec, jv_string("span_id"), jv_string(b.root->id));
	if (service_usage(&b, &u)) {
		jv model = jv_object_get(jv_copy(rec), jv_string("model"));
		char *who = rag_xasprintf("service:%s", jv_get_kind(model) == JV_KIND_STRING ? jv_string_value(model) : "unknown");
		rec = rag_record_usage(rec, "rag-trace", "answer", &u, who);
		free(who);
		jv_free(model);
	}
	rec = put_errors(t, rec, evicted, tr->late, tr->n);
	why = keep_reason(t, &b, &rec, error, feedback);
	meta = JV_OBJECT(jv_string("spans"), jv_number((double)tr->n), jv_string("status"), jv_string(error ? "error" : "ok"));
	if (error) meta = jv_object_set(meta, jv_string("error"), errmsg);
	else jv_free(errmsg);
	meta = jv_object_set(meta, jv_string("kept"), why ? jv_string(why) : jv_null());
	if (evicted) meta = jv_object_set(meta, jv_string("complete"), jv_false());
	if (tr->late) meta = jv_object_set(meta, jv_string("late"), jv_true());
	rec = jv_object_set(rec, jv_string("trace"), meta);
	jv_free(feedback);
	if (why) {
		*out = jv_array_append(*out, rec);
		t->st.records++;
	} else {
		jv_free(rec);
		t->st.sampled_out++;
	}
	finish(t, tr, &b, evicted);
}

/* ---------------------------------------------------------------- the stream */

static void complete(rag_trace *t, jv *out)
{
	trace *tr = t->head, *next;
	for (; tr; tr = next) {
		next = tr->next;
		if (tr->last_end + t->quiet_ns <= t->clock) emit(t, tr, 0, out);
	}
}

/* After each span: the oldest traces out until the rest fit, so that what is held, measured
 * after each span, never passes the bound */
static void evict(rag_trace *t, jv *out)
{
	while (t->st.held_bytes > t->max_bytes && t->head) emit(t, t->head, 1, out);
	if (t->st.held_bytes > t->st.peak_bytes) t->st.peak_bytes = t->st.held_bytes;
}

/* The spans of a request (borrowed), each held; the first problem in err. */
static int add_request(rag_trace *t, jv req, jv *out, char *err, size_t errlen)
{
	static const char *const scope_keys[] = { "scopeSpans", "instrumentationLibrarySpans" };
	jv rss = jv_object_get(jv_copy(req), jv_string("resourceSpans"));
	int bad = 0;
	jv_array_foreach(rss, i, rs) {
		size_t k;
		for (k = 0; k < NC(scope_keys); k++) {
			jv sss = jv_get_kind(rs) == JV_KIND_OBJECT ? jv_object_get(jv_copy(rs), jv_string(scope_keys[k])) : jv_invalid();
			if (jv_get_kind(sss) == JV_KIND_ARRAY) {
				jv_array_foreach(sss, j, ss) {
					jv spans = jv_get_kind(ss) == JV_KIND_OBJECT ? jv_object_get(jv_copy(ss), jv_string("spans")) : jv_invalid();
					if (jv_get_kind(spans) == JV_KIND_ARRAY) {
						jv_array_foreach(spans, n, sp) {
							if (add_span(t, sp, bad ? NULL : err, bad ? 0 : errlen) < 0) {
								bad++;
								t->st.bad_spans++;
							}
							evict(t, out);
							jv_free(sp);
							(void)n;
						}
					}
					jv_free(spans);
					jv_free(ss);
					(void)j;
				}
			}
			jv_free(sss);
		}
		jv_free(rs);
		(void)i;
	}
	jv_free(rss);
	return bad ? 1 : 0;
}

int rag_trace_feed(rag_trace *t, const char *text, size_t len, jv *out, char *err, size_t errlen)
{
	jv req, rss;
	int rc;
	t->st.lines++;
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) len--;
	if (len == 0) return 0;
	if (len > INT32_MAX) {
		t->st.bad_lines++;
		rag_seterr(err, errlen, "the line is too long");
		return -1;
	}
	req = jv_parse_sized(text, (int)len);
	if (!jv_is_valid(req)) {
		jv msg = jv_invalid_get_msg(req);
		rag_seterr(err, errlen, "not JSON: %s", jv_get_kind(msg) == JV_KIND_STRING ? jv_string_value(msg) : "unreadable");
		jv_free(msg);
		t->st.bad_lines++;
		return -1;
	}
	rss = jv_get_kind(req) == JV_KIND_OBJECT ? jv_object_get(jv_copy(req), jv_string("resourceSpans")) : jv_invalid();
	if (jv_get_kind(rss) != JV_KIND_ARRAY) {
		rag_seterr(err, errlen, "not an OTLP export request: no resourceSpans array (the file exporter's "
		           "traces, one ExportTraceServiceRequest a line)");
		jv_free(rss);
		jv_free(req);
		t->st.bad_lines++;
		return -1;
	}
	jv_free(rss);
	rc = add_request(t, req, out, err, errlen);
	jv_free(req);
	complete(t, out);
	return rc;
}

void rag_trace_idle(rag_trace *t, double secs, jv *out)
{
	if (secs > 0 && t->head) {
		t->clock += (uint64_t)llround(secs * 1e9);
		complete(t, out);
	}
}

void rag_trace_flush(rag_trace *t, jv *out)
{
	while (t->head) emit(t, t->head, 0, out);
}

jv rag_trace_evicted(rag_trace *t)
{
	jv e = t->evicted;
	t->evicted = jv_array();
	return e;
}

void rag_trace_get_stats(const rag_trace *t, rag_trace_stats *s)
{
	*s = t->st;
}

RAG_UNITTEST int rag_trace_sampled(const char *trace_id, double rate)
{
	unsigned char h[32];
	char low[65];
	size_t i, n = strlen(trace_id);
	uint64_t x = 0;
	if (rate >= 1) return 1;
	if (rate <= 0) return 0;
	if (n >= sizeof low) n = sizeof low - 1;
	for (i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)trace_id[i]);
	rag_sha256(low, n, h);
	for (i = 0; i < 8; i++) x = (x << 8) | h[i];
	return (double)x < rate * 18446744073709551616.0;
}

void rag_trace_free(rag_trace *t)
{
	if (!t) return;
	while (t->head) drop_trace(t, t->head);
	rag_jq_free(t->keep);
	jv_free(t->evicted);
	rag_idtab_free(&t->done[0]);
	rag_idtab_free(&t->done[1]);
	free(t);
}
