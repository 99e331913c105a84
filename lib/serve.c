/* serve.c - rag-serve(1)'s engine, without the HTTP server: the listen address and whether it is
 * loopback, the Host and Origin checks, a static file's path under the data directory (no way
 * out of it), and the JSON API over the store (routing, the parameters checked, the replies
 * built). cmd/rag-serve.c runs libmicrohttpd and calls these; nothing here reads a socket. */
#include "rag.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- addresses */

int rag_serve_listen(const char *spec, char **host, int *port, int *loopback, char *err, size_t errlen)
{
	const char *colon;
	char *h, *end;
	long p;
	unsigned char a[16];
	*host = NULL;
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');
		if (!close || close[1] != ':') goto bad;
		h = rag_xstrndup(spec + 1, (size_t)(close - spec - 1));
		colon = close + 1;
	} else {
		if (!(colon = strrchr(spec, ':')) || colon == spec) goto bad;
		h = rag_xstrndup(spec, (size_t)(colon - spec));
	}
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || p < 0 || p > 65535) {
		free(h);
		goto bad;
	}
	if (!strcmp(h, "localhost")) {
		free(h);
		h = rag_xstrdup("127.0.0.1");
	}
	if (inet_pton(AF_INET, h, a) == 1) {
		*loopback = a[0] == 127;
	} else if (inet_pton(AF_INET6, h, a) == 1) {
		static const unsigned char one[16] = {[15] = 1};
		*loopback = !memcmp(a, one, 16);
	} else {
		rag_seterr(err, errlen, "--listen \"%s\": the address is not a numeric IPv4 or [IPv6] address", spec);
		free(h);
		return -1;
	}
	*host = h;
	*port = (int)p;
	return 0;
bad:
	rag_seterr(err, errlen, "--listen \"%s\": not ADDR:PORT (127.0.0.1:8765, [::1]:0)", spec);
	return -1;
}

/* host (borrowed) as it appears in a URL: an IPv6 address in brackets */
static char *url_host(const char *host, int port)
{
	return strchr(host, ':') ? rag_xasprintf("[%s]:%d", host, port) : rag_xasprintf("%s:%d", host, port);
}

char *rag_serve_url(const char *host, int port)
{
	char *h = url_host(host, port), *u = rag_xasprintf("http://%s/", h);
	free(h);
	return u;
}

int rag_serve_host_ok(const char *hdr, const char *host, int port, int loopback)
{
	char *want, lh[32];
	int ok;
	if (!hdr) return 0;
	want = url_host(host, port);
	ok = !strcasecmp(hdr, want);
	free(want);
	/* a browser on this machine may say localhost; a DNS name that resolves here (rebinding)
	 * is refused */
	snprintf(lh, sizeof lh, "localhost:%d", port);
	if (!ok && loopback) ok = !strcasecmp(hdr, lh);
	return ok;
}

int rag_serve_origin_ok(const char *origin, const char *referer, const char *hosthdr)
{
	char *want;
	size_t n;
	int ok = 0;
	if (!hosthdr) return 0;
	want = rag_xasprintf("http://%s", hosthdr);
	n = strlen(want);
	if (origin) ok = !strcasecmp(origin, want);
	else if (referer) ok = !strncasecmp(referer, want, n) && (referer[n] == '/' || !referer[n]);
	free(want);
	return ok;
}

int rag_serve_secret_eq(const char *a, const char *b)
{
	size_t na, nb, i;
	unsigned char d;
	if (!a || !b) return 0;
	na = strlen(a);
	nb = strlen(b);
	d = na != nb;
	for (i = 0; i < na; i++) d |= (unsigned char)(a[i] ^ b[i % (nb ? nb : 1)]);
	return !d && nb;
}

char *rag_serve_cookie(const char *header, const char *name)
{
	size_t n = strlen(name);
	const char *p = header;
	while (p && *p) {
		while (*p == ' ' || *p == ';') p++;
		if (!strncmp(p, name, n) && p[n] == '=') {
			const char *v = p + n + 1, *e = strchr(v, ';');
			return e ? rag_xstrndup(v, (size_t)(e - v)) : rag_xstrdup(v);
		}
		p = strchr(p, ';');
	}
	return NULL;
}

/* ---------------------------------------------------------------- static files */

static const struct { const char *ext, *type; } types[] = {
	{".html", "text/html; charset=utf-8"},
	{".js", "text/javascript; charset=utf-8"},
	{".css", "text/css; charset=utf-8"},
	{".svg", "image/svg+xml"},
	{".png", "image/png"},
};

int rag_serve_static(const char *datadir, const char *path, char **file, const char **type)
{
	const char *p, *dot;
	size_t i;
	*file = NULL;
	if (path[0] != '/') return 400;
	if (!strcmp(path, "/")) path = "/index.html";
	if (strlen(path) > 200) return 400;
	/* each part of the path: letters, digits, '-', '_', '.', and not starting with a dot (no
	 * "..", no hidden file); nothing else reaches the file system */
	for (p = path; *p; p++) {
		if (*p == '/') {
			if (p[1] == '/' || p[1] == '.' || !p[1]) return 400;
		} else if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.') {
			return 400;
		}
	}
	if (!(dot = strrchr(path, '.')) || strchr(dot, '/')) return 404;
	for (i = 0; i < sizeof types / sizeof types[0]; i++)
		if (!strcmp(dot, types[i].ext)) break;
	if (i == sizeof types / sizeof types[0]) return 404;
	*type = types[i].type;
	*file = rag_xasprintf("%s/serve%s", datadir, path);
	return 200;
}

/* ---------------------------------------------------------------- the API */

static jv error_body(const char *msg)
{
	return JV_OBJECT(jv_string("error"), jv_string(msg));
}

/* a whole number argument in [min, max], dflt when absent: 0, or -1 and the message in body */
static int num_arg(rag_serve_arg_fn arg, void *ctx, const char *name, long dflt, long min, long max, long *out,
                   jv *body)
{
	const char *v = arg(ctx, name);
	char *end, msg[160];
	long n;
	if (!v || !*v) {
		*out = dflt;
		return 0;
	}
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < min || n > max) {
		snprintf(msg, sizeof msg, "%s: a whole number from %ld to %ld", name, min, max);
		*body = error_body(msg);
		return -1;
	}
	*out = n;
	return 0;
}

/* a date argument: ISO 8601's characters only, at most 32 */
static int date_arg(rag_serve_arg_fn arg, void *ctx, const char *name, const char **out, jv *body)
{
	const char *v = arg(ctx, name), *p;
	char msg[120];
	*out = NULL;
	if (!v || !*v) return 0;
	for (p = v; *p; p++)
		if (!isdigit((unsigned char)*p) && !strchr("-:TZ.+", *p)) break;
	if (*p || strlen(v) > 32) {
		snprintf(msg, sizeof msg, "%s: a date or time, ISO 8601 (2026-12-01, 2026-12-01T09:00:00Z)", name);
		*body = error_body(msg);
		return -1;
	}
	*out = v;
	return 0;
}

static const char *str_arg(rag_serve_arg_fn arg, void *ctx, const char *name)
{
	const char *v = arg(ctx, name);
	return v && *v ? v : NULL;
}

/* the store's answer: 0 -> 200, 1 (not there) -> 404, -1 -> 500 with err */
static int stored(int r, const char *err, jv *body)
{
	if (r == 0) return 200;
	*body = error_body(err);
	return r > 0 ? 404 : 500;
}

static int api_runs(rag_store *s, rag_serve_arg_fn arg, void *ctx, jv *body, char *err, size_t errlen)
{
	rag_store_filter f;
	long offset, limit;
	memset(&f, 0, sizeof f);
	if (num_arg(arg, ctx, "offset", 0, 0, 1000000000L, &offset, body) < 0 ||
	    num_arg(arg, ctx, "limit", 50, 1, 500, &limit, body) < 0 ||
	    date_arg(arg, ctx, "since", &f.since, body) < 0 || date_arg(arg, ctx, "until", &f.until, body) < 0)
		return 400;
	f.label = str_arg(arg, ctx, "label");
	f.commit = str_arg(arg, ctx, "commit");
	f.testset = str_arg(arg, ctx, "testset");
	return stored(rag_store_page(s, &f, offset, limit, body, err, errlen), err, body);
}

static int api_records(rag_store *s, const char *id, rag_serve_arg_fn arg, void *ctx, jv *body, char *err,
                       size_t errlen)
{
	long offset, limit;
	if (num_arg(arg, ctx, "offset", 0, 0, 1000000000L, &offset, body) < 0 ||
	    num_arg(arg, ctx, "limit", 50, 1, 500, &limit, body) < 0)
		return 400;
	return stored(rag_store_records(s, id, offset, limit, body, err, errlen), err, body);
}

/* the test sets, each with its versions, newest last */
static int api_testsets(rag_store *s, jv *body, char *err, size_t errlen)
{
	jv all, sets = jv_array(), cur = jv_null();
	int r = rag_store_testsets(s, &all, err, errlen);
	if (r) {
		jv_free(sets);
		return stored(r, err, body);
	}
	jv_array_foreach(all, i, v) {
		jv n = jv_object_get(jv_copy(v), jv_string("name"));
		jv cn = jv_get_kind(cur) == JV_KIND_OBJECT ? jv_object_get(jv_copy(cur), jv_string("name")) : jv_null();
		if (!jv_equal(jv_copy(n), cn)) {
			if (jv_get_kind(cur) == JV_KIND_OBJECT) sets = jv_array_append(sets, cur);
			else jv_free(cur);
			cur = JV_OBJECT(jv_string("name"), jv_copy(n), jv_string("versions"), jv_array());
		}
		jv_free(n);
		v = jv_object_delete(v, jv_string("name"));
		{
			jv vs = jv_array_append(jv_object_get(jv_copy(cur), jv_string("versions")), v);
			cur = jv_object_set(cur, jv_string("versions"), vs);
		}
		(void)i;
	}
	if (jv_get_kind(cur) == JV_KIND_OBJECT) sets = jv_array_append(sets, cur);
	else jv_free(cur);
	jv_free(all);
	*body = JV_OBJECT(jv_string("testsets"), sets);
	return 200;
}

int rag_serve_api(rag_store *s, const char *path, rag_serve_arg_fn arg, void *ctx, jv *body)
{
	char err[RAG_ERRLEN];
	const char *rest;
	*body = jv_invalid();
	if (!strcmp(path, "/api/runs")) return api_runs(s, arg, ctx, body, err, sizeof err);
	if (!strcmp(path, "/api/testsets")) return api_testsets(s, body, err, sizeof err);
	if (!strcmp(path, "/api/info")) return stored(rag_store_info(s, body, err, sizeof err), err, body);
	if (!strncmp(path, "/api/runs/", 10) && *(rest = path + 10)) {
		const char *slash = strchr(rest, '/');
		char *id = slash ? rag_xstrndup(rest, (size_t)(slash - rest)) : rag_xstrdup(rest);
		int st = 404;
		if (!slash) st = stored(rag_store_show(s, id, body, err, sizeof err), err, body);
		else if (!strcmp(slash, "/records")) st = api_records(s, id, arg, ctx, body, err, sizeof err);
		free(id);
		if (jv_is_valid(*body)) return st;
	}
	*body = error_body("no such API path");
	return 404;
}
