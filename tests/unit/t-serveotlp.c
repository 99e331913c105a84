/* t-serveotlp.c - rag-serve's OTLP receiver without a server (lib/serveotlp.c): gzip inflated
 * within a bound (a bomb stops at it), a stream cut short or followed by bytes refused, JSON put
 * on one line with its tokens' bytes kept, and the whole request: its replies by type, encoding
 * and body, the line appended to the spool. */
#include "base.h"
#include "serve.h"
#include "tap.h"

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
	jv r;
	int fd = mkstemp(path);
	close(fd);
	is_int(rag_serve_otlp(&rq, &r), 200, "a request: 200");
	ok(jv_get_kind(r) == JV_KIND_OBJECT && jv_object_length(jv_copy(r)) == 0, "its reply: {}");
	jv_free(r);
	text = rag_read_file(path, &len, err, sizeof err);
	is_str(text, "{\"resourceSpans\":[{\"a b\":1700000000000000001}]}\n", "the spool: one line, the bytes kept");
	free(text);
	rq.type = "application/x-protobuf";
	is_int(rag_serve_otlp(&rq, &r), 415, "protobuf: 415");
	{
		jv m = jv_object_get(r, jv_string("message"));
		ok(strstr(jv_string_value(m), "http/json") != NULL, "protobuf: the message says to send JSON");
		jv_free(m);
	}
	rq.type = "text/plain";
	is_int(rag_serve_otlp(&rq, &r), 415, "another type: 415");
	jv_free(r);
	rq.type = "application/json";
	rq.encoding = "br";
	is_int(rag_serve_otlp(&rq, &r), 415, "another encoding: 415");
	jv_free(r);
	rq.encoding = NULL;
	rq.body = "{\"resourceSpans\": {}}";
	rq.len = strlen(rq.body);
	is_int(rag_serve_otlp(&rq, &r), 400, "resourceSpans not an array: 400");
	jv_free(r);
	rq.body = "[1]";
	rq.len = 3;
	is_int(rag_serve_otlp(&rq, &r), 400, "not an object: 400");
	jv_free(r);
	rq.body = "{\"resourceSpans\": [";
	rq.len = strlen(rq.body);
	is_int(rag_serve_otlp(&rq, &r), 400, "not JSON: 400");
	jv_free(r);
	rq.body = "{}";
	rq.len = 2;
	rq.spool = "/nonexistent/dir/spool";
	is_int(rag_serve_otlp(&rq, &r), 503, "a spool that cannot be written: 503");
	jv_free(r);
	text = rag_read_file(path, &len, err, sizeof err);
	is_int(len, 48, "the refused wrote nothing");
	free(text);
	unlink(path);
}

int main(void)
{
	gunzip();
	line_is("{ \"a\" : [1, 2.50e3,\n\t\"x y\\\" \\\\\" ] }", 0, "{\"a\":[1,2.50e3,\"x y\\\" \\\\\"]}");
	line_is("\"a\tb\"", -1, NULL);
	line_is("\"a\nb\"", -1, NULL);
	request();
	return done_testing();
}
