/* serveotlp.c - rag-serve's OTLP/HTTP receiver without the HTTP server: POST /v1/traces with
 * an ExportTraceServiceRequest in the JSON or the protobuf encoding (gzip or not) checked and
 * appended as one line of OTLP JSON to the spool file that `tail -F FILE | rag-trace` reads (a
 * protobuf request written in the JSON encoding by otlppb.c). The replies are OTLP/HTTP's, in the
 * request's encoding: 200 with an ExportTraceServiceResponse ({}, or no bytes in protobuf), else
 * the status and a google.rpc.Status ({code, message} in JSON, or in protobuf). Part of serve.h. */
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

/* the replies' types */
#define TYPE_JSON "application/json"
#define TYPE_PROTOBUF "application/x-protobuf"
/* a protobuf request may unpack to this many times the body limit (protobuf-c's structures of
 * a few bytes' message each are larger than those bytes); more is 413 */
#define UNPACK_FACTOR 32

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

const char *rag_serve_otlp_status(const char *type, int code, const char *msg, rag_buf *out)
{
	jv d;
	if (type && media_is(type, TYPE_PROTOBUF)) {
		rag_otlppb_status(code, msg, out);
		return TYPE_PROTOBUF;
	}
	d = jv_dump_string(JV_OBJECT(jv_string("code"), jv_number(code), jv_string("message"), jv_string(msg)), 0);
	rag_buf_adds(out, jv_string_value(d));
	jv_free(d);
	return TYPE_JSON;
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

/* a JSON request's body[0..len) checked and put on one line: 0; -1 with a message */
static int json_request(const char *body, size_t len, rag_buf *line, char *err, size_t errlen)
{
	const char *why;
	jv v;
	if (!rag_utf8_valid(body, len)) {
		snprintf(err, errlen, "the body is not UTF-8");
		return -1;
	}
	v = jv_parse_sized(body, (int)len);
	if (!jv_is_valid(v)) {
		jv m = jv_invalid_get_msg(v);
		const char *what = jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "empty", *echo;
		/* libjq's message ends by quoting the whole body: not sent back */
		echo = strstr(what, " (while parsing");
		snprintf(err, errlen, "the body is not JSON: %.*s", echo ? (int)(echo - what) : 200, what);
		jv_free(m);
		return -1;
	}
	why = request_shape(v);
	jv_free(v);
	if (why || rag_serve_json_line(body, len, line) < 0) {
		snprintf(err, errlen, "%s", why ? why : "a control character inside a string");
		return -1;
	}
	return 0;
}

/* the status st and the request's Status {code, msg} as *reply */
static int fail(const rag_otlp_req *rq, int st, int code, const char *msg, rag_buf *reply, const char **type)
{
	reply->len = 0;
	*type = rag_serve_otlp_status(rq->type, code, msg, reply);
	return st;
}

int rag_serve_otlp(const rag_otlp_req *rq, rag_buf *reply, const char **reply_type)
{
	rag_buf plain = {0}, line = {0};
	const char *body = rq->body;
	size_t len = rq->len;
	char err[RAG_ERRLEN];
	int pb = rq->type && media_is(rq->type, TYPE_PROTOBUF), st = 200, r;
	*reply_type = pb ? TYPE_PROTOBUF : TYPE_JSON;
	if (!pb && (!rq->type || !media_is(rq->type, TYPE_JSON)))
		return fail(rq, 415, CODE_INVALID_ARGUMENT, "Content-Type must be application/x-protobuf or "
		            "application/json", reply, reply_type);
	if (rq->encoding && media_is(rq->encoding, "gzip")) {
		r = rag_serve_gunzip(rq->body, rq->len, rq->max, &plain);
		if (r) {
			st = fail(rq, r > 0 ? 413 : 400, r > 0 ? CODE_RESOURCE_EXHAUSTED : CODE_INVALID_ARGUMENT,
			          r > 0 ? "the request inflates to more than the body limit"
			                : "the body is not a whole gzip stream", reply, reply_type);
			goto out;
		}
		body = plain.p ? plain.p : "";
		len = plain.len;
	} else if (rq->encoding && !media_is(rq->encoding, "identity")) {
		return fail(rq, 415, CODE_INVALID_ARGUMENT, "Content-Encoding: gzip or none", reply, reply_type);
	}
	r = pb ? rag_otlppb_json(body, len, UNPACK_FACTOR * rq->max, &line, err, sizeof err)
	       : json_request(body, len, &line, err, sizeof err);
	if (r) {
		st = fail(rq, r > 0 ? 413 : 400, r > 0 ? CODE_RESOURCE_EXHAUSTED : CODE_INVALID_ARGUMENT, err, reply,
		          reply_type);
		goto out;
	}
	if (spool_append(rq->spool, &line, err, sizeof err) < 0) {
		st = fail(rq, 503, CODE_UNAVAILABLE, err, reply, reply_type);
		goto out;
	}
	/* every span taken: no partialSuccess, so an empty ExportTraceServiceResponse: {}, or in
	 * protobuf no bytes at all */
	reply->len = 0;
	if (!pb) rag_buf_adds(reply, "{}");
out:
	rag_buf_free(&plain);
	rag_buf_free(&line);
	return st;
}
