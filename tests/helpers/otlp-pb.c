/* otlp-pb.c - a test helper: an ExportTraceServiceRequest in OTLP's JSON encoding (stdin, one
 * document) written in the protobuf encoding (stdout), packed by the same protoc-c code as
 * rag-serve's receiver unpacks with, so that the tests make protobuf bodies without an
 * OpenTelemetry SDK (tests/t/82-serve-otlp.t sends each request of tests/fixtures/trace/ both
 * ways). It reads what the JSON mapping writes (ids in hex, 64-bit integers as strings or
 * numbers, bytes in base64, enums as integers) and exits 1 on what it cannot read. Built by the
 * Makefile into obj/tests/otlp-pb; not installed. */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <protobuf-c/protobuf-c.h>
#include <opentelemetry/proto/collector/trace/v1/trace_service.pb-c.h>

typedef Opentelemetry__Proto__Common__V1__AnyValue AnyValue;
typedef Opentelemetry__Proto__Common__V1__KeyValue KeyValue;

/* every allocation, freed at the end */
static void **pool;
static size_t npool;

static void *alloc(size_t n)
{
	void *p = rag_xcalloc(1, n ? n : 1);
	pool = rag_xrealloc(pool, (npool + 1) * sizeof *pool);
	pool[npool++] = p;
	return p;
}

static void die(const char *what)
{
	fprintf(stderr, "otlp-pb: %s\n", what);
	exit(1);
}

static jv get(jv o, const char *k)
{
	return jv_get_kind(o) == JV_KIND_OBJECT ? jv_object_get(jv_copy(o), jv_string(k)) : jv_invalid();
}

static int has(jv o, const char *k)
{
	jv v = get(o, k);
	int r = jv_is_valid(v) && jv_get_kind(v) != JV_KIND_NULL;
	jv_free(v);
	return r;
}

static char *str(jv o, const char *k)
{
	jv v = get(o, k);
	char *s;
	if (jv_get_kind(v) != JV_KIND_STRING) {
		jv_free(v);
		return (char *)protobuf_c_empty_string;
	}
	s = alloc((size_t)jv_string_length_bytes(jv_copy(v)) + 1);
	memcpy(s, jv_string_value(v), (size_t)jv_string_length_bytes(jv_copy(v)));
	jv_free(v);
	return s;
}

/* an integer written as a number or a decimal string */
static unsigned long long num(jv o, const char *k)
{
	jv v = get(o, k);
	unsigned long long n = 0;
	if (jv_get_kind(v) == JV_KIND_NUMBER) n = (unsigned long long)(long long)jv_number_value(v);
	else if (jv_get_kind(v) == JV_KIND_STRING) n = strtoull(jv_string_value(v), NULL, 10);
	jv_free(v);
	return n;
}

static ProtobufCBinaryData hex(jv o, const char *k)
{
	ProtobufCBinaryData b = {0, NULL};
	char *s = str(o, k);
	size_t i, n = strlen(s);
	if (n % 2) die("an id of an odd number of hex digits");
	b.len = n / 2;
	b.data = alloc(b.len);
	for (i = 0; i < b.len; i++) {
		unsigned x;
		if (sscanf(s + 2 * i, "%2x", &x) != 1) die("an id not in hex");
		b.data[i] = (uint8_t)x;
	}
	return b;
}

static int b64val(int c)
{
	const char *A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", *p = strchr(A, c);
	return c && p ? (int)(p - A) : -1;
}

static ProtobufCBinaryData base64(const char *s)
{
	ProtobufCBinaryData b = {0, NULL};
	size_t n = strlen(s), i;
	unsigned v = 0;
	int bits = 0;
	b.data = alloc(n);
	for (i = 0; i < n && s[i] != '='; i++) {
		int d = b64val((unsigned char)s[i]);
		if (d < 0) die("bytes not in base64");
		v = v << 6 | (unsigned)d;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			b.data[b.len++] = (uint8_t)(v >> bits);
		}
	}
	return b;
}

/* the array o[k]: its length, and each element e (borrowed) made by fn into *out */
#define ARRAY(o, k, n, out, fn)                                      \
	do {                                                            \
		jv a_ = get(o, k);                                      \
		n = 0;                                                  \
		if (jv_get_kind(a_) == JV_KIND_ARRAY) {                 \
			n = (size_t)jv_array_length(jv_copy(a_));       \
			out = alloc(n * sizeof *out);                   \
			jv_array_foreach(a_, i_, e_) {                  \
				out[i_] = fn(e_);                       \
				jv_free(e_);                            \
			}                                               \
		}                                                       \
		jv_free(a_);                                            \
	} while (0)

static KeyValue *keyvalue(jv e);

static AnyValue *anyvalue(jv v)
{
	AnyValue *a = alloc(sizeof *a);
	jv x;
	opentelemetry__proto__common__v1__any_value__init(a);
	if (has(v, "stringValue")) {
		a->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
		a->string_value = str(v, "stringValue");
	} else if (has(v, "boolValue")) {
		a->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BOOL_VALUE;
		x = get(v, "boolValue");
		a->bool_value = jv_get_kind(x) == JV_KIND_TRUE;
		jv_free(x);
	} else if (has(v, "intValue")) {
		a->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE;
		a->int_value = (int64_t)num(v, "intValue");
	} else if (has(v, "doubleValue")) {
		a->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_DOUBLE_VALUE;
		x = get(v, "doubleValue");
		a->double_value = jv_get_kind(x) == JV_KIND_NUMBER ? jv_number_value(x) : strtod(jv_string_value(x), NULL);
		jv_free(x);
	} else if (has(v, "bytesValue")) {
		a->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BYTES_VALUE;
		a->bytes_value = base64(str(v, "bytesValue"));
	} else if (has(v, "arrayValue")) {
		Opentelemetry__Proto__Common__V1__ArrayValue *arr = alloc(sizeof *arr);
		opentelemetry__proto__common__v1__array_value__init(arr);
		x = get(v, "arrayValue");
		ARRAY(x, "values", arr->n_values, arr->values, anyvalue);
		jv_free(x);
		a->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_ARRAY_VALUE;
		a->array_value = arr;
	} else if (has(v, "kvlistValue")) {
		Opentelemetry__Proto__Common__V1__KeyValueList *kl = alloc(sizeof *kl);
		opentelemetry__proto__common__v1__key_value_list__init(kl);
		x = get(v, "kvlistValue");
		ARRAY(x, "values", kl->n_values, kl->values, keyvalue);
		jv_free(x);
		a->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_KVLIST_VALUE;
		a->kvlist_value = kl;
	}
	return a;
}

static KeyValue *keyvalue(jv e)
{
	KeyValue *kv = alloc(sizeof *kv);
	opentelemetry__proto__common__v1__key_value__init(kv);
	kv->key = str(e, "key");
	if (has(e, "value")) {
		jv v = get(e, "value");
		kv->value = anyvalue(v);
		jv_free(v);
	}
	return kv;
}

static Opentelemetry__Proto__Trace__V1__Span__Event *event(jv e)
{
	Opentelemetry__Proto__Trace__V1__Span__Event *ev = alloc(sizeof *ev);
	opentelemetry__proto__trace__v1__span__event__init(ev);
	ev->time_unix_nano = num(e, "timeUnixNano");
	ev->name = str(e, "name");
	ARRAY(e, "attributes", ev->n_attributes, ev->attributes, keyvalue);
	ev->dropped_attributes_count = (uint32_t)num(e, "droppedAttributesCount");
	return ev;
}

static Opentelemetry__Proto__Trace__V1__Span__Link *link_(jv e)
{
	Opentelemetry__Proto__Trace__V1__Span__Link *ln = alloc(sizeof *ln);
	opentelemetry__proto__trace__v1__span__link__init(ln);
	ln->trace_id = hex(e, "traceId");
	ln->span_id = hex(e, "spanId");
	ln->trace_state = str(e, "traceState");
	ARRAY(e, "attributes", ln->n_attributes, ln->attributes, keyvalue);
	ln->dropped_attributes_count = (uint32_t)num(e, "droppedAttributesCount");
	ln->flags = (uint32_t)num(e, "flags");
	return ln;
}

static Opentelemetry__Proto__Trace__V1__Span *span(jv e)
{
	Opentelemetry__Proto__Trace__V1__Span *s = alloc(sizeof *s);
	opentelemetry__proto__trace__v1__span__init(s);
	s->trace_id = hex(e, "traceId");
	s->span_id = hex(e, "spanId");
	s->trace_state = str(e, "traceState");
	s->parent_span_id = hex(e, "parentSpanId");
	s->flags = (uint32_t)num(e, "flags");
	s->name = str(e, "name");
	s->kind = (Opentelemetry__Proto__Trace__V1__Span__SpanKind)num(e, "kind");
	s->start_time_unix_nano = num(e, "startTimeUnixNano");
	s->end_time_unix_nano = num(e, "endTimeUnixNano");
	ARRAY(e, "attributes", s->n_attributes, s->attributes, keyvalue);
	s->dropped_attributes_count = (uint32_t)num(e, "droppedAttributesCount");
	ARRAY(e, "events", s->n_events, s->events, event);
	s->dropped_events_count = (uint32_t)num(e, "droppedEventsCount");
	ARRAY(e, "links", s->n_links, s->links, link_);
	s->dropped_links_count = (uint32_t)num(e, "droppedLinksCount");
	if (has(e, "status")) {
		jv st = get(e, "status");
		s->status = alloc(sizeof *s->status);
		opentelemetry__proto__trace__v1__status__init(s->status);
		s->status->message = str(st, "message");
		s->status->code = (Opentelemetry__Proto__Trace__V1__Status__StatusCode)num(st, "code");
		jv_free(st);
	}
	return s;
}

static Opentelemetry__Proto__Trace__V1__ScopeSpans *scope_spans(jv e)
{
	Opentelemetry__Proto__Trace__V1__ScopeSpans *ss = alloc(sizeof *ss);
	opentelemetry__proto__trace__v1__scope_spans__init(ss);
	if (has(e, "scope")) {
		jv sc = get(e, "scope");
		ss->scope = alloc(sizeof *ss->scope);
		opentelemetry__proto__common__v1__instrumentation_scope__init(ss->scope);
		ss->scope->name = str(sc, "name");
		ss->scope->version = str(sc, "version");
		ARRAY(sc, "attributes", ss->scope->n_attributes, ss->scope->attributes, keyvalue);
		ss->scope->dropped_attributes_count = (uint32_t)num(sc, "droppedAttributesCount");
		jv_free(sc);
	}
	ARRAY(e, "spans", ss->n_spans, ss->spans, span);
	ss->schema_url = str(e, "schemaUrl");
	return ss;
}

static Opentelemetry__Proto__Trace__V1__ResourceSpans *resource_spans(jv e)
{
	Opentelemetry__Proto__Trace__V1__ResourceSpans *rs = alloc(sizeof *rs);
	opentelemetry__proto__trace__v1__resource_spans__init(rs);
	if (has(e, "resource")) {
		jv r = get(e, "resource");
		rs->resource = alloc(sizeof *rs->resource);
		opentelemetry__proto__resource__v1__resource__init(rs->resource);
		ARRAY(r, "attributes", rs->resource->n_attributes, rs->resource->attributes, keyvalue);
		rs->resource->dropped_attributes_count = (uint32_t)num(r, "droppedAttributesCount");
		jv_free(r);
	}
	ARRAY(e, "scopeSpans", rs->n_scope_spans, rs->scope_spans, scope_spans);
	rs->schema_url = str(e, "schemaUrl");
	return rs;
}

int main(void)
{
	Opentelemetry__Proto__Collector__Trace__V1__ExportTraceServiceRequest rq =
		OPENTELEMETRY__PROTO__COLLECTOR__TRACE__V1__EXPORT_TRACE_SERVICE_REQUEST__INIT;
	rag_buf in = {0};
	char chunk[65536];
	size_t n;
	uint8_t *out;
	jv v;
	while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) rag_buf_add(&in, chunk, n);
	v = jv_parse_sized(in.p ? in.p : "", (int)in.len);
	rag_buf_free(&in);
	if (jv_get_kind(v) != JV_KIND_OBJECT) die("stdin is not a JSON object");
	ARRAY(v, "resourceSpans", rq.n_resource_spans, rq.resource_spans, resource_spans);
	jv_free(v);
	n = opentelemetry__proto__collector__trace__v1__export_trace_service_request__get_packed_size(&rq);
	out = alloc(n);
	opentelemetry__proto__collector__trace__v1__export_trace_service_request__pack(&rq, out);
	if (fwrite(out, 1, n, stdout) != n || fflush(stdout)) die("stdout cannot be written");
	while (npool) free(pool[--npool]);
	free(pool);
	return 0;
}
