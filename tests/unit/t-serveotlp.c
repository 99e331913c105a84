/* t-serveotlp.c - rag-serve's OTLP receiver without a server (lib/serveotlp.c): gzip inflated
 * within a bound (a bomb stops at it), a stream cut short or followed by bytes refused, JSON put
 * on one line with its tokens' bytes kept, and the whole request: its replies by type, encoding
 * and body, the line appended to the spool. The protobuf encoding (lib/otlppb.c): a request
 * packed here with every kind of value, its spool line the JSON mapping's, written out by hand;
 * gzip; the replies (no bytes, a Status in protobuf); bytes that are no request, nesting beyond
 * the bound, a string not UTF-8, a request that unpacks beyond its memory. */
#include "base.h"
#include "serve.h"
#include "tap.h"

#include <math.h>
#include <protobuf-c/protobuf-c.h>
#include <opentelemetry/proto/collector/trace/v1/trace_service.pb-c.h>
#include <ragpipe/rpc/status.pb-c.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* s gzipped into *out (malloc'ed): its length */
static size_t gzip(const char *s, size_t n, char **out)
{
	z_stream z;
	size_t cap = compressBound((uLong)n) + 64;
	memset(&z, 0, sizeof z);
	*out = rag_xmalloc(cap);
	deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (Bytef *)(uintptr_t)s;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)*out;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	deflateEnd(&z);
	return cap - z.avail_out;
}

static void gunzip(void)
{
	const char *text = "{\"resourceSpans\": []}";
	char *gz, *big = rag_xmalloc(1 << 20), *junk;
	size_t n = gzip(text, strlen(text), &gz);
	rag_buf b = {0};
	is_int(rag_serve_gunzip(gz, n, 1024, &b), 0, "gunzip: a stream");
	ok(b.len == strlen(text) && !memcmp(b.p, text, b.len), "gunzip: its bytes");
	rag_buf_free(&b);
	is_int(rag_serve_gunzip(gz, n - 3, 1024, &b), -1, "gunzip: a stream cut short");
	rag_buf_free(&b);
	junk = rag_xmalloc(n + 1);
	memcpy(junk, gz, n);
	junk[n] = 'x';
	is_int(rag_serve_gunzip(junk, n + 1, 1024, &b), -1, "gunzip: bytes after the stream");
	rag_buf_free(&b);
	is_int(rag_serve_gunzip("not gzip", 8, 1024, &b), -1, "gunzip: not gzip");
	rag_buf_free(&b);
	free(gz);
	memset(big, ' ', 1 << 20);
	n = gzip(big, 1 << 20, &gz);
	ok(n < 4096, "a bomb: 1 MiB in %zu bytes", n);
	is_int(rag_serve_gunzip(gz, n, 65536, &b), 1, "gunzip: a bomb stops at the bound");
	ok(b.len <= 65536, "gunzip: no more than the bound made (%zu)", b.len);
	rag_buf_free(&b);
	free(gz);
	free(big);
	free(junk);
}

static void line_is(const char *in, int want, const char *out)
{
	rag_buf b = {0};
	is_int(rag_serve_json_line(in, strlen(in), &b), want, "json line: rc");
	if (!want) {
		rag_buf_add(&b, "", 1);
		is_str(b.p, out, "json line");
	}
	rag_buf_free(&b);
}

static void request(void)
{
	char path[] = "/tmp/t-serveotlp.XXXXXX", *text;
	const char *body = "{\n  \"resourceSpans\": [ {\"a b\": 1700000000000000001} ]\n}\n";
	rag_otlp_req rq = {"application/json; charset=utf-8", NULL, body, strlen(body), 1 << 20, path};
	size_t len;
	char err[RAG_ERRLEN];
	rag_buf r = {0};
	const char *type;
	int fd = mkstemp(path);
	close(fd);
	is_int(rag_serve_otlp(&rq, &r, &type), 200, "a request: 200");
	rag_buf_add(&r, "", 1);
	is_str(r.p, "{}", "its reply: {}");
	is_str(type, "application/json", "its reply's type");
	rag_buf_free(&r);
	text = rag_read_file(path, &len, err, sizeof err);
	is_str(text, "{\"resourceSpans\":[{\"a b\":1700000000000000001}]}\n", "the spool: one line, the bytes kept");
	free(text);
	rq.type = "text/plain";
	is_int(rag_serve_otlp(&rq, &r, &type), 415, "another type: 415");
	rag_buf_add(&r, "", 1);
	ok(strstr(r.p, "\"code\":3") && strstr(r.p, "application/x-protobuf or application/json"),
	   "another type: a Status in JSON naming both types (%s)", r.p);
	rag_buf_free(&r);
	rq.type = "application/json";
	rq.encoding = "br";
	is_int(rag_serve_otlp(&rq, &r, &type), 415, "another encoding: 415");
	rag_buf_free(&r);
	rq.encoding = NULL;
	rq.body = "{\"resourceSpans\": {}}";
	rq.len = strlen(rq.body);
	is_int(rag_serve_otlp(&rq, &r, &type), 400, "resourceSpans not an array: 400");
	rag_buf_free(&r);
	rq.body = "[1]";
	rq.len = 3;
	is_int(rag_serve_otlp(&rq, &r, &type), 400, "not an object: 400");
	rag_buf_free(&r);
	rq.body = "{\"resourceSpans\": [";
	rq.len = strlen(rq.body);
	is_int(rag_serve_otlp(&rq, &r, &type), 400, "not JSON: 400");
	rag_buf_free(&r);
	rq.body = "{}";
	rq.len = 2;
	rq.spool = "/nonexistent/dir/spool";
	is_int(rag_serve_otlp(&rq, &r, &type), 503, "a spool that cannot be written: 503");
	rag_buf_free(&r);
	text = rag_read_file(path, &len, err, sizeof err);
	is_int(len, 48, "the refused wrote nothing");
	free(text);
	unlink(path);
}


typedef Opentelemetry__Proto__Common__V1__AnyValue AnyValue;
typedef Opentelemetry__Proto__Common__V1__KeyValue KeyValue;

static void kv_init(KeyValue *kv, AnyValue *v, const char *k)
{
	opentelemetry__proto__common__v1__key_value__init(kv);
	opentelemetry__proto__common__v1__any_value__init(v);
	kv->key = (char *)(uintptr_t)k;
	kv->value = v;
}

/* a request with a value of every kind packed into *out (malloc'ed): its length */
static size_t packed_request(uint8_t **out, AnyValue *value, const char *name)
{
	Opentelemetry__Proto__Collector__Trace__V1__ExportTraceServiceRequest rq =
		OPENTELEMETRY__PROTO__COLLECTOR__TRACE__V1__EXPORT_TRACE_SERVICE_REQUEST__INIT;
	Opentelemetry__Proto__Trace__V1__ResourceSpans rs = OPENTELEMETRY__PROTO__TRACE__V1__RESOURCE_SPANS__INIT, *rsp = &rs;
	Opentelemetry__Proto__Resource__V1__Resource res = OPENTELEMETRY__PROTO__RESOURCE__V1__RESOURCE__INIT;
	Opentelemetry__Proto__Trace__V1__ScopeSpans ss = OPENTELEMETRY__PROTO__TRACE__V1__SCOPE_SPANS__INIT, *ssp = &ss;
	Opentelemetry__Proto__Common__V1__InstrumentationScope sc = OPENTELEMETRY__PROTO__COMMON__V1__INSTRUMENTATION_SCOPE__INIT;
	Opentelemetry__Proto__Trace__V1__Span sp = OPENTELEMETRY__PROTO__TRACE__V1__SPAN__INIT, *spp = &sp;
	Opentelemetry__Proto__Trace__V1__Span__Event ev = OPENTELEMETRY__PROTO__TRACE__V1__SPAN__EVENT__INIT, *evp = &ev;
	Opentelemetry__Proto__Trace__V1__Span__Link ln = OPENTELEMETRY__PROTO__TRACE__V1__SPAN__LINK__INIT, *lnp = &ln;
	Opentelemetry__Proto__Trace__V1__Status st = OPENTELEMETRY__PROTO__TRACE__V1__STATUS__INIT;
	Opentelemetry__Proto__Common__V1__ArrayValue arr = OPENTELEMETRY__PROTO__COMMON__V1__ARRAY_VALUE__INIT;
	Opentelemetry__Proto__Common__V1__KeyValueList kl = OPENTELEMETRY__PROTO__COMMON__V1__KEY_VALUE_LIST__INIT;
	KeyValue kv[9], *kvp[9], rkv, *rkvp = &rkv, inner, *innerp = &inner;
	AnyValue v[9], rv, iv, a0, a1, *ap[2] = {&a0, &a1};
	static uint8_t tid[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
	static uint8_t sid[8] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7}, bytes[3] = {0, 0xff, 0x10};
	static uint8_t ltid[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
	size_t n, i;
	kv_init(&rkv, &rv, "service.name");
	rv.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
	rv.string_value = "svc";
	res.n_attributes = 1;
	res.attributes = &rkvp;
	res.dropped_attributes_count = 3;
	rs.resource = &res;
	rs.n_scope_spans = 1;
	rs.scope_spans = &ssp;
	rs.schema_url = "https://opentelemetry.io/schemas/1.26.0";
	sc.name = "s";
	ss.scope = &sc;
	ss.n_spans = 1;
	ss.spans = &spp;
	for (i = 0; i < 9; i++) kvp[i] = &kv[i];
	kv_init(&kv[0], &v[0], "i");
	v[0].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE;
	v[0].int_value = -5;
	kv_init(&kv[1], &v[1], "d");
	v[1].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_DOUBLE_VALUE;
	v[1].double_value = 0.1;
	kv_init(&kv[2], &v[2], "nan");
	v[2].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_DOUBLE_VALUE;
	v[2].double_value = NAN;
	kv_init(&kv[3], &v[3], "b");
	v[3].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BOOL_VALUE;
	v[3].bool_value = 0;
	kv_init(&kv[4], &v[4], "bytes");
	v[4].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BYTES_VALUE;
	v[4].bytes_value.data = bytes;
	v[4].bytes_value.len = 3;
	kv_init(&kv[5], &v[5], "arr");
	opentelemetry__proto__common__v1__any_value__init(&a0);
	opentelemetry__proto__common__v1__any_value__init(&a1);
	a0.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
	a0.string_value = "a";
	a1.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE;
	a1.int_value = 1;
	arr.n_values = 2;
	arr.values = ap;
	v[5].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_ARRAY_VALUE;
	v[5].array_value = &arr;
	kv_init(&kv[6], &v[6], "kv");
	kv_init(&inner, &iv, "x");   /* a value that is present and set to nothing: {} */
	kl.n_values = 1;
	kl.values = &innerp;
	v[6].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_KVLIST_VALUE;
	v[6].kvlist_value = &kl;
	kv_init(&kv[7], &v[7], "empty");
	v[7].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
	v[7].string_value = "";
	kv_init(&kv[8], &v[8], "big");
	v[8].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE;
	v[8].int_value = INT64_MIN;
	sp.trace_id.data = tid;
	sp.trace_id.len = 16;
	sp.span_id.data = sid;
	sp.span_id.len = 8;
	sp.flags = 0x301;
	sp.name = "q\"\n\x01é";
	sp.kind = OPENTELEMETRY__PROTO__TRACE__V1__SPAN__SPAN_KIND__SPAN_KIND_SERVER;
	sp.start_time_unix_nano = 1765000002110000000ULL;
	sp.end_time_unix_nano = UINT64_MAX;
	sp.n_attributes = 9;
	sp.attributes = kvp;
	ev.time_unix_nano = 1;
	ev.name = "e";
	sp.n_events = 1;
	sp.events = &evp;
	ln.trace_id.data = ltid;
	ln.trace_id.len = 16;
	ln.span_id.data = sid;
	ln.span_id.len = 8;
	ln.flags = 1;
	sp.n_links = 1;
	sp.links = &lnp;
	sp.dropped_links_count = 2;
	st.code = OPENTELEMETRY__PROTO__TRACE__V1__STATUS__STATUS_CODE__STATUS_CODE_ERROR;
	st.message = "boom";
	sp.status = &st;
	if (value) kv[7].value = value;
	if (name) sp.name = (char *)(uintptr_t)name;
	rq.n_resource_spans = 1;
	rq.resource_spans = &rsp;
	n = opentelemetry__proto__collector__trace__v1__export_trace_service_request__get_packed_size(&rq);
	*out = rag_xmalloc(n);
	opentelemetry__proto__collector__trace__v1__export_trace_service_request__pack(&rq, *out);
	return n;
}

/* the JSON mapping of packed_request's, by hand from OTLP's specification */
static const char *const WANT =
	"{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"svc\"}}],"
	"\"droppedAttributesCount\":3},\"scopeSpans\":[{\"scope\":{\"name\":\"s\"},\"spans\":[{"
	"\"traceId\":\"000102030405060708090a0b0c0d0e0f\",\"spanId\":\"a0a1a2a3a4a5a6a7\",\"flags\":769,"
	"\"name\":\"q\\\"\\n\\u0001é\",\"kind\":2,\"startTimeUnixNano\":\"1765000002110000000\","
	"\"endTimeUnixNano\":\"18446744073709551615\",\"attributes\":["
	"{\"key\":\"i\",\"value\":{\"intValue\":\"-5\"}},"
	"{\"key\":\"d\",\"value\":{\"doubleValue\":0.1}},"
	"{\"key\":\"nan\",\"value\":{\"doubleValue\":\"NaN\"}},"
	"{\"key\":\"b\",\"value\":{\"boolValue\":false}},"
	"{\"key\":\"bytes\",\"value\":{\"bytesValue\":\"AP8Q\"}},"
	"{\"key\":\"arr\",\"value\":{\"arrayValue\":{\"values\":[{\"stringValue\":\"a\"},{\"intValue\":\"1\"}]}}},"
	"{\"key\":\"kv\",\"value\":{\"kvlistValue\":{\"values\":[{\"key\":\"x\",\"value\":{}}]}}},"
	"{\"key\":\"empty\",\"value\":{\"stringValue\":\"\"}},"
	"{\"key\":\"big\",\"value\":{\"intValue\":\"-9223372036854775808\"}}],"
	"\"events\":[{\"timeUnixNano\":\"1\",\"name\":\"e\"}],"
	"\"links\":[{\"traceId\":\"fffffffffffffffffffffffffffffffe\",\"spanId\":\"a0a1a2a3a4a5a6a7\",\"flags\":1}],"
	"\"droppedLinksCount\":2,\"status\":{\"message\":\"boom\",\"code\":2}}]}],"
	"\"schemaUrl\":\"https://opentelemetry.io/schemas/1.26.0\"}]}\n";

/* the Status of a protobuf reply r: its code, and its message into msg */
static int status_of(const rag_buf *r, char *msg, size_t n)
{
	Ragpipe__Rpc__Status *st = ragpipe__rpc__status__unpack(NULL, r->len, (const uint8_t *)r->p);
	int code;
	if (!st) return -1;
	code = st->code;
	snprintf(msg, n, "%s", st->message);
	ragpipe__rpc__status__free_unpacked(st, NULL);
	return code;
}

static void protobuf(void)
{
	char path[] = "/tmp/t-serveotlp.XXXXXX", *text, *gz, err[RAG_ERRLEN], msg[256];
	uint8_t *body, *deep;
	size_t n = packed_request(&body, NULL, NULL), len, i;
	rag_otlp_req rq = {"application/x-protobuf", NULL, (char *)body, n, 1 << 20, path};
	rag_buf r = {0};
	const char *type;
	int fd = mkstemp(path);
	close(fd);
	is_int(rag_serve_otlp(&rq, &r, &type), 200, "protobuf: 200");
	is_int(r.len, 0, "protobuf: its reply an empty ExportTraceServiceResponse, no bytes");
	is_str(type, "application/x-protobuf", "protobuf: its reply's type");
	text = rag_read_file(path, &len, err, sizeof err);
	is_str(text, WANT, "protobuf: the spool line is the request in OTLP's JSON mapping");
	free(text);
	/* gzip */
	rq.len = gzip((char *)body, n, &gz);
	rq.body = gz;
	rq.encoding = "gzip";
	is_int(rag_serve_otlp(&rq, &r, &type), 200, "protobuf, gzip: 200");
	text = rag_read_file(path, &len, err, sizeof err);
	ok(len == 2 * strlen(WANT) && !strcmp(text + strlen(WANT), WANT), "protobuf, gzip: the same line again");
	free(text);
	free(gz);
	rq.encoding = NULL;
	/* what is refused: a Status in protobuf, nothing in the spool */
	rq.body = "\x0a\x05\x01";   /* a field longer than the body */
	rq.len = 3;
	is_int(rag_serve_otlp(&rq, &r, &type), 400, "protobuf, not a request: 400");
	is_str(type, "application/x-protobuf", "protobuf, not a request: its reply's type");
	is_int(status_of(&r, msg, sizeof msg), 3, "protobuf, not a request: a Status in protobuf, INVALID_ARGUMENT");
	ok(strstr(msg, "not an ExportTraceServiceRequest") != NULL, "protobuf, not a request: the Status says why" " (%s)", msg);
	rag_buf_free(&r);
	/* arrays nested 100 deep as an attribute's value: refused before protobuf-c recurses */
	{
		static AnyValue av[100];
		static Opentelemetry__Proto__Common__V1__ArrayValue arrs[100];
		static AnyValue *next[100];
		for (i = 0; i < 100; i++) {
			opentelemetry__proto__common__v1__any_value__init(&av[i]);
			opentelemetry__proto__common__v1__array_value__init(&arrs[i]);
			av[i].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_ARRAY_VALUE;
			av[i].array_value = &arrs[i];
			if (i < 99) {
				next[i] = &av[i + 1];
				arrs[i].n_values = 1;
				arrs[i].values = &next[i];
			}
		}
		rq.len = packed_request(&deep, &av[0], NULL);
		rq.body = (char *)deep;
		is_int(rag_serve_otlp(&rq, &r, &type), 400, "protobuf, nested 100 deep: 400");
		is_int(status_of(&r, msg, sizeof msg), 3, "protobuf, nested 100 deep: INVALID_ARGUMENT");
		ok(strstr(msg, "deeper than 64") != NULL, "protobuf, nested 100 deep: the Status says why" " (%s)", msg);
		rag_buf_free(&r);
		free(deep);
		/* 20 deep is taken */
		rq.len = packed_request(&deep, &av[80], NULL);
		rq.body = (char *)deep;
		is_int(rag_serve_otlp(&rq, &r, &type), 200, "protobuf, nested 20 deep: 200");
		rag_buf_free(&r);
		free(deep);
	}
	/* a string that is not UTF-8 */
	rq.len = packed_request(&deep, NULL, "bad \xff name");
	rq.body = (char *)deep;
	is_int(rag_serve_otlp(&rq, &r, &type), 400, "protobuf, a string not UTF-8: 400");
	is_int(status_of(&r, msg, sizeof msg), 3, "protobuf, a string not UTF-8: INVALID_ARGUMENT");
	ok(strstr(msg, "not UTF-8") != NULL, "protobuf, a string not UTF-8: the Status says why" " (%s)", msg);
	rag_buf_free(&r);
	free(deep);
	/* 4,000 empty ResourceSpans (2 bytes each) unpack to far more than 32 times a limit of 1 KiB */
	{
		rag_buf b = {0};
		for (i = 0; i < 4000; i++) rag_buf_add(&b, "\x0a\x00", 2);
		rq.body = b.p;
		rq.len = b.len;
		rq.max = 1024;
		is_int(rag_serve_otlp(&rq, &r, &type), 413, "protobuf, unpacking beyond 32 times the limit: 413");
		is_int(status_of(&r, msg, sizeof msg), 8, "protobuf, unpacking beyond: RESOURCE_EXHAUSTED");
		rag_buf_free(&r);
		rq.max = 1 << 20;
		is_int(rag_serve_otlp(&rq, &r, &type), 200, "protobuf, the same within the limit: 200");
		rag_buf_free(&r);
		rag_buf_free(&b);
	}
	text = rag_read_file(path, &len, err, sizeof err);
	{
		size_t lines = 0;
		for (i = 0; i < len; i++) lines += text[i] == '\n';
		is_int(lines, 4, "the spool: a line for each of the 4 taken, none for the refused");
		ok(len > 12 && !memcmp(text + len - 12, ",{},{},{}]}\n", 12), "empty ResourceSpans: {} each");
	}
	free(text);
	free(body);
	unlink(path);
}

int main(void)
{
	gunzip();
	line_is("{ \"a\" : [1, 2.50e3,\n\t\"x y\\\" \\\\\" ] }", 0, "{\"a\":[1,2.50e3,\"x y\\\" \\\\\"]}");
	line_is("\"a\tb\"", -1, NULL);
	line_is("\"a\nb\"", -1, NULL);
	request();
	protobuf();
	return done_testing();
}
