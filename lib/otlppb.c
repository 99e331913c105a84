/* otlppb.c - OTLP's protobuf encoding for rag-serve's receiver: an ExportTraceServiceRequest
 * unpacked by protobuf-c's code generated from the official opentelemetry-proto definitions
 * (share/proto/, built into obj/gen/proto/) and written in OTLP's JSON encoding, as the
 * specification's JSON mapping says (OTLP's "JSON Protobuf Encoding"): field names in
 * lowerCamelCase, traceId, spanId and parentSpanId (a link's too) as lower-case hex, enums as
 * integers, 64-bit integers as decimal strings, bytes in base64, a double's NaN and infinities as
 * "NaN", "Infinity", "-Infinity", and a field at its default value left out (a oneof's member
 * and a message that is present are written whatever their value). And the error reply, a
 * google.rpc.Status in protobuf (share/proto/ragpipe/rpc/status.proto). Part of serve.h. */
#include "base.h"
#include "serve.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the generated headers are on the -isystem path (Makefile, "protobuf"): not ours */
#include <protobuf-c/protobuf-c.h>
#include <opentelemetry/proto/collector/trace/v1/trace_service.pb-c.h>
#include <ragpipe/rpc/status.pb-c.h>

typedef Opentelemetry__Proto__Common__V1__AnyValue AnyValue;
typedef Opentelemetry__Proto__Common__V1__KeyValue KeyValue;
typedef Opentelemetry__Proto__Common__V1__InstrumentationScope Scope;
typedef Opentelemetry__Proto__Common__V1__EntityRef EntityRef;
typedef Opentelemetry__Proto__Resource__V1__Resource Resource;
typedef Opentelemetry__Proto__Trace__V1__ResourceSpans ResourceSpans;
typedef Opentelemetry__Proto__Trace__V1__ScopeSpans ScopeSpans;
typedef Opentelemetry__Proto__Trace__V1__Span Span;
typedef Opentelemetry__Proto__Trace__V1__Span__Event Event;
typedef Opentelemetry__Proto__Trace__V1__Span__Link Link;
typedef Opentelemetry__Proto__Trace__V1__Status Status;
typedef Opentelemetry__Proto__Collector__Trace__V1__ExportTraceServiceRequest Request;

/* ---------------------------------------------------------------- the wire read */

/* the deepest nesting of messages taken (a request is 6 deep to an attribute's value; each
 * array or key-value list within it 2 more): protobuf-c unpacks by recursion with no bound,
 * so a body of nested values only could exhaust the stack of the thread that reads it */
#define MAX_DEPTH 64

/* a varint at *p (before end): *v, and *p past it; -1 when it runs past end or 10 bytes */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int shift = 0;
	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t c = *(*p)++;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) return 0;
		shift += 7;
	}
	return -1;
}

/* the nesting of the messages in p[0..n) of type d, depth deep already: -1 when it goes beyond
 * MAX_DEPTH. Only the depth is looked at (and how far a field may be skipped): whatever else is
 * wrong with the bytes is protobuf-c's to find, which refuses them */
static int too_deep(const uint8_t *p, size_t n, const ProtobufCMessageDescriptor *d, int depth)
{
	const uint8_t *end = p + n;
	if (depth > MAX_DEPTH) return -1;
	while (p < end) {
		uint64_t key, len;
		const ProtobufCFieldDescriptor *f;
		if (varint(&p, end, &key) < 0) return 0;
		switch (key & 7) {
		case 0: if (varint(&p, end, &len) < 0) return 0; break;
		case 1: if ((size_t)(end - p) < 8) return 0; p += 8; break;
		case 5: if ((size_t)(end - p) < 4) return 0; p += 4; break;
		case 2:
			if (varint(&p, end, &len) < 0 || len > (uint64_t)(end - p)) return 0;
			f = key >> 3 <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(d, (unsigned)(key >> 3)) : NULL;
			if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
			    too_deep(p, (size_t)len, f->descriptor, depth + 1) < 0) return -1;
			p += len;
			break;
		default: return 0;   /* a group, or no wire type: protobuf-c refuses it */
		}
	}
	return 0;
}

/* protobuf-c's allocations counted against a budget: beyond it, NULL, and the unpack fails */
typedef struct budget {
	size_t used, max;
	int over;
} budget;

static void *budget_alloc(void *data, size_t size)
{
	budget *b = data;
	if (size > b->max - b->used) {
		b->over = 1;
		return NULL;
	}
	b->used += size;
	return rag_xmalloc(size ? size : 1);
}

static void budget_free(void *data, void *p)
{
	(void)data;
	free(p);
}

/* ---------------------------------------------------------------- the JSON written */

typedef struct writer {
	rag_buf *out;
	int bad;   /* a string that is not UTF-8 was met */
} writer;

/* a JSON string of s, which must be UTF-8 (proto3's strings are) */
static void str(writer *w, const char *s)
{
	size_t n = strlen(s), i, run = 0;
	if (!rag_utf8_valid(s, n)) w->bad = 1;
	rag_buf_add(w->out, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\') continue;
		rag_buf_add(w->out, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': rag_buf_adds(w->out, "\\\""); break;
		case '\\': rag_buf_adds(w->out, "\\\\"); break;
		case '\n': rag_buf_adds(w->out, "\\n"); break;
		case '\r': rag_buf_adds(w->out, "\\r"); break;
		case '\t': rag_buf_adds(w->out, "\\t"); break;
		default: rag_buf_addf(w->out, "\\u%04x", c); break;
		}
	}
	rag_buf_add(w->out, s + run, n - run);
	rag_buf_add(w->out, "\"", 1);
}

/* "name": after a comma unless it is the object's first (*first, then 0) */
static void key(writer *w, int *first, const char *name)
{
	rag_buf_addf(w->out, "%s\"%s\":", *first ? "" : ",", name);
	*first = 0;
}

static void key_str(writer *w, int *first, const char *name, const char *s)
{
	if (!s || !*s) return;
	key(w, first, name);
	str(w, s);
}

static void key_uint(writer *w, int *first, const char *name, uint32_t v)
{
	if (!v) return;
	key(w, first, name);
	rag_buf_addf(w->out, "%u", v);
}

static void key_int(writer *w, int *first, const char *name, int32_t v)
{
	if (!v) return;
	key(w, first, name);
	rag_buf_addf(w->out, "%d", v);
}

/* a fixed64 time: a decimal string */
static void key_u64(writer *w, int *first, const char *name, uint64_t v)
{
	if (!v) return;
	key(w, first, name);
	rag_buf_addf(w->out, "\"%llu\"", (unsigned long long)v);
}

/* an id (traceId, spanId, parentSpanId): lower-case hex, OTLP's exception to base64 */
static void key_hex(writer *w, int *first, const char *name, ProtobufCBinaryData id)
{
	if (!id.len) return;
	key(w, first, name);
	rag_buf_add(w->out, "\"", 1);
	rag_buf_hex(w->out, id.data, id.len);
	rag_buf_add(w->out, "\"", 1);
}

/* a double as proto3's JSON writes it: the shortest decimal that reads back the same */
static void dbl(writer *w, double v)
{
	char s[40];
	int prec;
	if (isnan(v)) {
		rag_buf_adds(w->out, "\"NaN\"");
		return;
	}
	if (isinf(v)) {
		rag_buf_adds(w->out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(s, sizeof s, "%.*g", prec, v);
		if (strtod(s, NULL) == v) break;
	}
	if (prec == 17) snprintf(s, sizeof s, "%.17g", v);
	rag_buf_adds(w->out, s);
}

static void attributes(writer *w, int *first, const char *name, size_t n, KeyValue **kv);

static void any_value(writer *w, const AnyValue *v)
{
	int first = 1;
	size_t i;
	rag_buf_add(w->out, "{", 1);
	switch (v->value_case) {
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE:
		key(w, &first, "stringValue");
		str(w, v->string_value);
		break;
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BOOL_VALUE:
		key(w, &first, "boolValue");
		rag_buf_adds(w->out, v->bool_value ? "true" : "false");
		break;
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE:
		key(w, &first, "intValue");
		rag_buf_addf(w->out, "\"%lld\"", (long long)v->int_value);
		break;
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_DOUBLE_VALUE:
		key(w, &first, "doubleValue");
		dbl(w, v->double_value);
		break;
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_ARRAY_VALUE:
		key(w, &first, "arrayValue");
		rag_buf_add(w->out, "{", 1);
		if (v->array_value && v->array_value->n_values) {
			rag_buf_adds(w->out, "\"values\":[");
			for (i = 0; i < v->array_value->n_values; i++) {
				if (i) rag_buf_add(w->out, ",", 1);
				any_value(w, v->array_value->values[i]);
			}
			rag_buf_add(w->out, "]", 1);
		}
		rag_buf_add(w->out, "}", 1);
		break;
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_KVLIST_VALUE: {
		int inner = 1;
		key(w, &first, "kvlistValue");
		rag_buf_add(w->out, "{", 1);
		if (v->kvlist_value) attributes(w, &inner, "values", v->kvlist_value->n_values, v->kvlist_value->values);
		rag_buf_add(w->out, "}", 1);
		break;
	}
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BYTES_VALUE:
		key(w, &first, "bytesValue");
		rag_buf_add(w->out, "\"", 1);
		rag_buf_base64(w->out, v->bytes_value.data, v->bytes_value.len);
		rag_buf_add(w->out, "\"", 1);
		break;
	case OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE_STRINDEX:
		key(w, &first, "stringValueStrindex");
		rag_buf_addf(w->out, "%d", v->string_value_strindex);
		break;
	default: break;   /* no value set: {} */
	}
	rag_buf_add(w->out, "}", 1);
}

/* a repeated KeyValue (attributes, a kvlist's values) */
static void attributes(writer *w, int *first, const char *name, size_t n, KeyValue **kv)
{
	size_t i;
	if (!n) return;
	key(w, first, name);
	rag_buf_add(w->out, "[", 1);
	for (i = 0; i < n; i++) {
		int f = 1;
		if (i) rag_buf_add(w->out, ",", 1);
		rag_buf_add(w->out, "{", 1);
		key_str(w, &f, "key", kv[i]->key);
		if (kv[i]->value) {
			key(w, &f, "value");
			any_value(w, kv[i]->value);
		}
		key_int(w, &f, "keyStrindex", kv[i]->key_strindex);
		rag_buf_add(w->out, "}", 1);
	}
	rag_buf_add(w->out, "]", 1);
}

static void strings(writer *w, int *first, const char *name, size_t n, char **s)
{
	size_t i;
	if (!n) return;
	key(w, first, name);
	rag_buf_add(w->out, "[", 1);
	for (i = 0; i < n; i++) {
		if (i) rag_buf_add(w->out, ",", 1);
		str(w, s[i]);
	}
	rag_buf_add(w->out, "]", 1);
}

static void resource(writer *w, const Resource *r)
{
	int first = 1;
	size_t i;
	rag_buf_add(w->out, "{", 1);
	attributes(w, &first, "attributes", r->n_attributes, r->attributes);
	key_uint(w, &first, "droppedAttributesCount", r->dropped_attributes_count);
	if (r->n_entity_refs) {
		key(w, &first, "entityRefs");
		rag_buf_add(w->out, "[", 1);
		for (i = 0; i < r->n_entity_refs; i++) {
			const EntityRef *e = r->entity_refs[i];
			int f = 1;
			rag_buf_adds(w->out, i ? ",{" : "{");
			key_str(w, &f, "schemaUrl", e->schema_url);
			key_str(w, &f, "type", e->type);
			strings(w, &f, "idKeys", e->n_id_keys, e->id_keys);
			strings(w, &f, "descriptionKeys", e->n_description_keys, e->description_keys);
			rag_buf_add(w->out, "}", 1);
		}
		rag_buf_add(w->out, "]", 1);
	}
	rag_buf_add(w->out, "}", 1);
}

static void scope(writer *w, const Scope *s)
{
	int first = 1;
	rag_buf_add(w->out, "{", 1);
	key_str(w, &first, "name", s->name);
	key_str(w, &first, "version", s->version);
	attributes(w, &first, "attributes", s->n_attributes, s->attributes);
	key_uint(w, &first, "droppedAttributesCount", s->dropped_attributes_count);
	rag_buf_add(w->out, "}", 1);
}

static void events(writer *w, int *first, size_t n, Event **ev)
{
	size_t i;
	if (!n) return;
	key(w, first, "events");
	rag_buf_add(w->out, "[", 1);
	for (i = 0; i < n; i++) {
		int f = 1;
		rag_buf_adds(w->out, i ? ",{" : "{");
		key_u64(w, &f, "timeUnixNano", ev[i]->time_unix_nano);
		key_str(w, &f, "name", ev[i]->name);
		attributes(w, &f, "attributes", ev[i]->n_attributes, ev[i]->attributes);
		key_uint(w, &f, "droppedAttributesCount", ev[i]->dropped_attributes_count);
		rag_buf_add(w->out, "}", 1);
	}
	rag_buf_add(w->out, "]", 1);
}

static void links(writer *w, int *first, size_t n, Link **ln)
{
	size_t i;
	if (!n) return;
	key(w, first, "links");
	rag_buf_add(w->out, "[", 1);
	for (i = 0; i < n; i++) {
		int f = 1;
		rag_buf_adds(w->out, i ? ",{" : "{");
		key_hex(w, &f, "traceId", ln[i]->trace_id);
		key_hex(w, &f, "spanId", ln[i]->span_id);
		key_str(w, &f, "traceState", ln[i]->trace_state);
		attributes(w, &f, "attributes", ln[i]->n_attributes, ln[i]->attributes);
		key_uint(w, &f, "droppedAttributesCount", ln[i]->dropped_attributes_count);
		key_uint(w, &f, "flags", ln[i]->flags);
		rag_buf_add(w->out, "}", 1);
	}
	rag_buf_add(w->out, "]", 1);
}

static void span(writer *w, const Span *s)
{
	int first = 1;
	rag_buf_add(w->out, "{", 1);
	key_hex(w, &first, "traceId", s->trace_id);
	key_hex(w, &first, "spanId", s->span_id);
	key_str(w, &first, "traceState", s->trace_state);
	key_hex(w, &first, "parentSpanId", s->parent_span_id);
	key_uint(w, &first, "flags", s->flags);
	key_str(w, &first, "name", s->name);
	key_int(w, &first, "kind", (int32_t)s->kind);
	key_u64(w, &first, "startTimeUnixNano", s->start_time_unix_nano);
	key_u64(w, &first, "endTimeUnixNano", s->end_time_unix_nano);
	attributes(w, &first, "attributes", s->n_attributes, s->attributes);
	key_uint(w, &first, "droppedAttributesCount", s->dropped_attributes_count);
	events(w, &first, s->n_events, s->events);
	key_uint(w, &first, "droppedEventsCount", s->dropped_events_count);
	links(w, &first, s->n_links, s->links);
	key_uint(w, &first, "droppedLinksCount", s->dropped_links_count);
	if (s->status) {
		int f = 1;
		key(w, &first, "status");
		rag_buf_add(w->out, "{", 1);
		key_str(w, &f, "message", s->status->message);
		key_int(w, &f, "code", (int32_t)s->status->code);
		rag_buf_add(w->out, "}", 1);
	}
	rag_buf_add(w->out, "}", 1);
}

static void scope_spans(writer *w, const ScopeSpans *ss)
{
	int first = 1;
	size_t i;
	rag_buf_add(w->out, "{", 1);
	if (ss->scope) {
		key(w, &first, "scope");
		scope(w, ss->scope);
	}
	if (ss->n_spans) {
		key(w, &first, "spans");
		rag_buf_add(w->out, "[", 1);
		for (i = 0; i < ss->n_spans; i++) {
			if (i) rag_buf_add(w->out, ",", 1);
			span(w, ss->spans[i]);
		}
		rag_buf_add(w->out, "]", 1);
	}
	key_str(w, &first, "schemaUrl", ss->schema_url);
	rag_buf_add(w->out, "}", 1);
}

static void request(writer *w, const Request *rq)
{
	size_t i, j;
	rag_buf_add(w->out, "{", 1);
	if (rq->n_resource_spans) {
		rag_buf_adds(w->out, "\"resourceSpans\":[");
		for (i = 0; i < rq->n_resource_spans; i++) {
			const ResourceSpans *rs = rq->resource_spans[i];
			int first = 1;
			rag_buf_adds(w->out, i ? ",{" : "{");
			if (rs->resource) {
				key(w, &first, "resource");
				resource(w, rs->resource);
			}
			if (rs->n_scope_spans) {
				key(w, &first, "scopeSpans");
				rag_buf_add(w->out, "[", 1);
				for (j = 0; j < rs->n_scope_spans; j++) {
					if (j) rag_buf_add(w->out, ",", 1);
					scope_spans(w, rs->scope_spans[j]);
				}
				rag_buf_add(w->out, "]", 1);
			}
			key_str(w, &first, "schemaUrl", rs->schema_url);
			rag_buf_add(w->out, "}", 1);
		}
		rag_buf_add(w->out, "]", 1);
	}
	rag_buf_add(w->out, "}", 1);
}

int rag_otlppb_json(const void *buf, size_t len, size_t max_mem, rag_buf *out, char *err, size_t errlen)
{
	budget b = {0, max_mem, 0};
	ProtobufCAllocator a = {budget_alloc, budget_free, &b};
	writer w = {out, 0};
	size_t at = out->len;
	Request *rq;
	if (too_deep(buf, len, &opentelemetry__proto__collector__trace__v1__export_trace_service_request__descriptor,
	             1) < 0) {
		snprintf(err, errlen, "the protobuf body nests messages deeper than %d", MAX_DEPTH);
		return -1;
	}
	rq = opentelemetry__proto__collector__trace__v1__export_trace_service_request__unpack(&a, len, buf);
	if (!rq) {
		if (b.over) {
			snprintf(err, errlen, "the protobuf body unpacks to more than %zu bytes", max_mem);
			return 1;
		}
		snprintf(err, errlen, "the body is not an ExportTraceServiceRequest in protobuf");
		return -1;
	}
	request(&w, rq);
	opentelemetry__proto__collector__trace__v1__export_trace_service_request__free_unpacked(rq, &a);
	if (w.bad) {
		out->len = at;
		snprintf(err, errlen, "a string of the protobuf body is not UTF-8");
		return -1;
	}
	return 0;
}

void rag_otlppb_status(int code, const char *msg, rag_buf *out)
{
	Ragpipe__Rpc__Status st = RAGPIPE__RPC__STATUS__INIT;
	size_t n;
	uint8_t *p;
	st.code = code;
	st.message = (char *)(uintptr_t)msg;
	n = ragpipe__rpc__status__get_packed_size(&st);
	p = rag_xmalloc(n ? n : 1);
	rag_buf_add(out, p, ragpipe__rpc__status__pack(&st, p));
	free(p);
}
