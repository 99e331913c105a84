/* serveotlp.c - rag-serve's OTLP/HTTP receiver without the HTTP server: POST /v1/traces with
 * an ExportTraceServiceRequest in the JSON encoding (gzip or not) checked and appended as one
 * line to the spool file that `tail -F FILE | rag-trace` reads. The replies are OTLP/HTTP's: 200
 * with an ExportTraceServiceResponse ({}), else the status and a google.rpc.Status in JSON
 * ({code, message}). Part of serve.h. */
#include "base.h"
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

/* google.rpc.Code's numbers, as an OTLP/HTTP error's Status carries them */
enum { CODE_INVALID_ARGUMENT = 3, CODE_RESOURCE_EXHAUSTED = 8, CODE_UNAVAILABLE = 14 };

jv rag_serve_otlp_status(int code, const char *msg)
{
	return JV_OBJECT(jv_string("code"), jv_number(code), jv_string("message"), jv_string(msg));
}

/* a header's media type is name (its parameters, "; charset=utf-8", aside) */
static int media_is(const char *hdr, const char *name)
{
	size_t n = strlen(name);
	while (*hdr == ' ' || *hdr == '\t') hdr++;
	if (strncasecmp(hdr, name, n)) return 0;
	hdr += n;
	while (*hdr == ' ' || *hdr == '\t') hdr++;
	return !*hdr || *hdr == ';';
}

/* gzip's in[0..len) into out, max bytes at most: 0; 1 when it inflates to more (a gzip bomb
 * stops there, having made max bytes at most); -1 when it is not one whole gzip stream */
RAG_UNITTEST int rag_serve_gunzip(const char *in, size_t len, size_t max, rag_buf *out)
{
	z_stream z;
	char chunk[16384];
	int r = Z_OK, rc = 0;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return -1;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	while (r != Z_STREAM_END) {
		size_t got;
		z.next_out = (Bytef *)chunk;
		z.avail_out = sizeof chunk;
		r = inflate(&z, Z_NO_FLUSH);
		if (r != Z_OK && r != Z_STREAM_END) {
			rc = -1;
			break;
		}
		got = sizeof chunk - z.avail_out;
		if (out->len + got > max) {
			rc = 1;
			break;
		}
		rag_buf_add(out, chunk, got);
		if (r == Z_OK && !got && !z.avail_in) {   /* the stream ends short of its end */
			rc = -1;
			break;
		}
	}
	if (!rc && z.avail_in) rc = -1;   /* bytes after the stream */
	inflateEnd(&z);
	return rc;
}

/* JSON (valid: jv parsed it) on one line: the whitespace between its tokens taken out, every
 * token's bytes kept (libjq 1.6 would round a nanosecond time sent as a number beyond 2^53);
 * -1 for a control character inside a string, which JSON forbids and libjq lets by */
RAG_UNITTEST int rag_serve_json_line(const char *s, size_t n, rag_buf *out)
{
	size_t i;
	int in_str = 0, esc = 0;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (in_str) {
			if (ch < 0x20) return -1;
			if (esc) esc = 0;
			else if (ch == '\\') esc = 1;
			else if (ch == '"') in_str = 0;
		} else if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
			continue;
		} else if (ch == '"') {
			in_str = 1;
		}
		rag_buf_add(out, s + i, 1);
	}
	return 0;
}

/* an ExportTraceServiceRequest's shape: an object; resourceSpans, where present, an array of objects */
static const char *request_shape(jv v)
{
	jv rs;
	const char *why = NULL;
	if (jv_get_kind(v) != JV_KIND_OBJECT) return "the body is not a JSON object (an ExportTraceServiceRequest)";
	rs = jv_object_get(jv_copy(v), jv_string("resourceSpans"));
	if (jv_is_valid(rs) && jv_get_kind(rs) != JV_KIND_NULL) {
		if (jv_get_kind(rs) != JV_KIND_ARRAY) why = "\"resourceSpans\" is not an array";
		else
			jv_array_foreach(rs, i, e) {
				if (!why && jv_get_kind(e) != JV_KIND_OBJECT) why = "an element of \"resourceSpans\" is not an object";
				jv_free(e);
			}
	}
	jv_free(rs);
	return why;
}

/* line + '\n' appended to the spool by one write(2) on a descriptor opened O_APPEND: the kernel
 * puts each whole at the end, so that requests at once never interleave */
static int spool_append(const char *path, rag_buf *line, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	ssize_t w;
	if (fd < 0) {
		snprintf(err, errlen, "the spool cannot be opened: %s", strerror(errno));
		return -1;
	}
	rag_buf_add(line, "\n", 1);
	w = write(fd, line->p, line->len);
	if (w != (ssize_t)line->len)
		snprintf(err, errlen, "the spool cannot be written: %s", w < 0 ? strerror(errno) : "a short write");
	close(fd);
	return w == (ssize_t)line->len ? 0 : -1;
}

int rag_serve_otlp(const rag_otlp_req *rq, jv *reply)
{
	rag_buf plain = {0}, line = {0};
	const char *body = rq->body, *why;
	size_t len = rq->len;
	char err[RAG_ERRLEN];
	int st = 200;
	jv v = jv_invalid();
	*reply = jv_invalid();
	if (rq->type && media_is(rq->type, "application/x-protobuf")) {
		*reply = rag_serve_otlp_status(CODE_INVALID_ARGUMENT, "the protobuf encoding is not accepted yet: "
		                               "send OTLP's JSON encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json)");
		return 415;
	}
	if (!rq->type || !media_is(rq->type, "application/json")) {
		*reply = rag_serve_otlp_status(CODE_INVALID_ARGUMENT, "Content-Type must be application/json "
		                               "(OTEL_EXPORTER_OTLP_PROTOCOL=http/json)");
		return 415;
	}
	if (rq->encoding && media_is(rq->encoding, "gzip")) {
		int r = rag_serve_gunzip(rq->body, rq->len, rq->max, &plain);
		if (r) {
			*reply = rag_serve_otlp_status(r > 0 ? CODE_RESOURCE_EXHAUSTED : CODE_INVALID_ARGUMENT,
			                               r > 0 ? "the request inflates to more than the body limit"
			                                     : "the body is not a whole gzip stream");
			st = r > 0 ? 413 : 400;
			goto out;
		}
		body = plain.p ? plain.p : "";
		len = plain.len;
	} else if (rq->encoding && !media_is(rq->encoding, "identity")) {
		*reply = rag_serve_otlp_status(CODE_INVALID_ARGUMENT, "Content-Encoding: gzip or none");
		return 415;
	}
	if (!rag_utf8_valid(body, len)) {
		*reply = rag_serve_otlp_status(CODE_INVALID_ARGUMENT, "the body is not UTF-8");
		st = 400;
		goto out;
	}
	v = jv_parse_sized(body, (int)len);
	if (!jv_is_valid(v)) {
		jv m = jv_invalid_get_msg(jv_copy(v));
		const char *what = jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "empty", *echo;
		char msg[300];
		/* libjq's message ends by quoting the whole body: not sent back */
		echo = strstr(what, " (while parsing");
		snprintf(msg, sizeof msg, "the body is not JSON: %.*s", echo ? (int)(echo - what) : 200, what);
		jv_free(m);
		*reply = rag_serve_otlp_status(CODE_INVALID_ARGUMENT, msg);
		st = 400;
		goto out;
	}
	if ((why = request_shape(v)) || rag_serve_json_line(body, len, &line) < 0) {
		*reply = rag_serve_otlp_status(CODE_INVALID_ARGUMENT, why ? why : "a control character inside a string");
		st = 400;
		goto out;
	}
	if (spool_append(rq->spool, &line, err, sizeof err) < 0) {
		*reply = rag_serve_otlp_status(CODE_UNAVAILABLE, err);
		st = 503;
		goto out;
	}
	*reply = jv_object();   /* every span taken: no partialSuccess */
out:
	jv_free(v);
	rag_buf_free(&plain);
	rag_buf_free(&line);
	return st;
}
