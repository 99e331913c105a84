/* t-serve.c - rag-serve's engine without a server (lib/serve.c): the listen address and
 * loopback, Host and Origin checks, the token comparison, cookies, the page files' paths (no way
 * out of the directory), and the API over a store in a temporary SQLite file. */
#include "base.h"
#include "store.h"
#include "serve.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void listen_is(const char *spec, int want_rc, const char *host, int port, int loopback)
{
	char *h = NULL, err[RAG_ERRLEN] = "";
	int p = -1, lb = -1, rc = rag_serve_listen(spec, &h, &p, &lb, err, sizeof err);
	is_int(rc, want_rc, "listen %s: rc", spec);
	if (!rc) {
		is_str(h, host, "listen %s: host", spec);
		is_int(p, port, "listen %s: port", spec);
		is_int(lb, loopback, "listen %s: loopback", spec);
	} else {
		ok(strstr(err, spec) != NULL, "listen %s: the message names it (%s)", spec, err);
	}
	free(h);
}

static void static_is(const char *path, int want, const char *file)
{
	char *f = NULL;
	const char *type = NULL;
	int st = rag_serve_static("/d", path, &f, &type);
	is_int(st, want, "static %s", path);
	if (file) is_str(f ? f : "(null)", file, "static %s: the file", path);
	else ok(!f, "static %s: no file", path);
	free(f);
}

static const char *no_args(void *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return NULL;
}

static const char *page2(void *ctx, const char *name)
{
	(void)ctx;
	return !strcmp(name, "offset") ? "1" : !strcmp(name, "limit") ? "1" : NULL;
}

static const char *bad_limit(void *ctx, const char *name)
{
	(void)ctx;
	return !strcmp(name, "limit") ? "501" : NULL;
}

static char *field(jv body, const char *jq)
{
	jv v = jv_copy(body);
	char *s;
	const char *p;
	for (p = jq; *p;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		char key[64];
		snprintf(key, sizeof key, "%.*s", (int)n, p);
		if (jv_get_kind(v) == JV_KIND_ARRAY) v = jv_array_get(v, atoi(key));
		else v = jv_object_get(v, jv_string(key));
		p += n + (dot ? 1 : 0);
	}
	{
		jv d = jv_dump_string(v, 0);
		s = rag_xstrdup(jv_string_value(d));
		jv_free(d);
	}
	return s;
}

static void api(void)
{
	char dir[] = "/tmp/t-serve.XXXXXX", path[64], err[RAG_ERRLEN], *id = NULL, *s;
	const char recs[] = "{\"id\":\"a\",\"scores\":{\"m\":1}}\n{\"id\":\"b\",\"scores\":{\"m\":0}}\n"
	                    "{\"id\":\"c\",\"scores\":{\"m\":0.5}}\n";
	rag_store *st;
	rag_store_run in;
	jv body;
	ok(mkdtemp(dir) != NULL, "a temporary directory");
	snprintf(path, sizeof path, "%s/s.db", dir);
	st = rag_store_open(path, err, sizeof err);
	ok(st != NULL, "a store (%s)", st ? "" : err);
	if (!st) return;
	memset(&in, 0, sizeof in);
	in.id = "R";
	in.run = jv_null();
	in.records = recs;
	in.len = sizeof recs - 1;
	in.label = "x";
	is_int(rag_store_add(st, &in, &id, err, sizeof err), 0, "a run added");
	free(id);
	is_int(rag_serve_api(st, "/api/runs", no_args, NULL, &body), 200, "/api/runs");
	is_str(s = field(body, "total"), "1", "one run");
	free(s);
	is_str(s = field(body, "runs.0.label"), "\"x\"", "its label");
	free(s);
	jv_free(body);
	is_int(rag_serve_api(st, "/api/runs/R/records", page2, NULL, &body), 200, "/api/runs/R/records?offset=1&limit=1");
	is_str(s = field(body, "records"), "[{\"seq\":2,\"id\":\"b\",\"category\":null,\"passed\":null,"
	       "\"cause\":null,\"why\":null,\"record\":{\"id\":\"b\",\"scores\":{\"m\":0}}}]", "the second record alone");
	free(s);
	is_str(s = field(body, "total"), "3", "of 3");
	free(s);
	jv_free(body);
	is_int(rag_serve_api(st, "/api/runs", bad_limit, NULL, &body), 400, "limit 501: 400");
	is_str(s = field(body, "error"), "\"limit: a whole number from 1 to 500\"", "and why");
	free(s);
	jv_free(body);
	is_int(rag_serve_api(st, "/api/runs/nope", no_args, NULL, &body), 404, "an unknown run: 404");
	jv_free(body);
	is_int(rag_serve_api(st, "/api/runs/nope/records", no_args, NULL, &body), 404, "its records: 404");
	jv_free(body);
	is_int(rag_serve_api(st, "/api/runs/R/other", no_args, NULL, &body), 404, "an unknown path under a run: 404");
	jv_free(body);
	is_int(rag_serve_api(st, "/api/testsets", no_args, NULL, &body), 200, "/api/testsets");
	is_str(s = field(body, "testsets"), "[]", "none");
	free(s);
	jv_free(body);
	rag_store_close(st);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	char *c;
	listen_is("127.0.0.1:8765", 0, "127.0.0.1", 8765, 1);
	listen_is("127.1.2.3:0", 0, "127.1.2.3", 0, 1);
	listen_is("localhost:80", 0, "127.0.0.1", 80, 1);
	listen_is("[::1]:9", 0, "::1", 9, 1);
	listen_is("0.0.0.0:8765", 0, "0.0.0.0", 8765, 0);
	listen_is("[::]:1", 0, "::", 1, 0);
	listen_is("10.0.0.1:1", 0, "10.0.0.1", 1, 0);
	listen_is("8765", -1, NULL, 0, 0);
	listen_is("example.com:80", -1, NULL, 0, 0);
	listen_is("127.0.0.1:65536", -1, NULL, 0, 0);
	listen_is("127.0.0.1:", -1, NULL, 0, 0);
	listen_is("[::1]8765", -1, NULL, 0, 0);

	ok(rag_serve_host_ok("127.0.0.1:8765", "127.0.0.1", 8765, 1), "Host: the address");
	ok(rag_serve_host_ok("localhost:8765", "127.0.0.1", 8765, 1), "Host: localhost on loopback");
	ok(!rag_serve_host_ok("localhost:8765", "10.0.0.1", 8765, 0), "Host: not localhost off loopback");
	ok(!rag_serve_host_ok("evil.example:8765", "127.0.0.1", 8765, 1), "Host: a foreign name (rebinding)");
	ok(!rag_serve_host_ok("127.0.0.1:8766", "127.0.0.1", 8765, 1), "Host: another port");
	ok(!rag_serve_host_ok(NULL, "127.0.0.1", 8765, 1), "Host: none");
	ok(rag_serve_host_ok("[::1]:9", "::1", 9, 1), "Host: IPv6 in brackets");

	ok(rag_serve_origin_ok("http://127.0.0.1:8765", NULL, NULL, "127.0.0.1:8765"), "Origin: this server");
	ok(!rag_serve_origin_ok("http://evil.example", NULL, NULL, "127.0.0.1:8765"), "Origin: another");
	ok(!rag_serve_origin_ok("http://127.0.0.1:8765.evil.example", NULL, NULL, "127.0.0.1:8765"), "Origin: a longer one");
	ok(!rag_serve_origin_ok("null", "http://127.0.0.1:8765/", NULL, "127.0.0.1:8765"), "Origin null: refused, whatever the Referer");
	ok(rag_serve_origin_ok(NULL, "http://127.0.0.1:8765/x", NULL, "127.0.0.1:8765"), "no Origin: the Referer");
	ok(!rag_serve_origin_ok(NULL, "http://127.0.0.1:87650/x", NULL, "127.0.0.1:8765"), "no Origin: a Referer of another port");
	ok(!rag_serve_origin_ok(NULL, NULL, NULL, "127.0.0.1:8765"), "neither: refused");
	ok(rag_serve_origin_ok("https://evals.example", NULL, "https", "evals.example"),
	   "Origin behind a TLS proxy: https://, as X-Forwarded-Proto says");
	ok(!rag_serve_origin_ok("http://evals.example", NULL, "https", "evals.example"), "Origin: http:// where it is https");
	ok(!rag_serve_origin_ok("https://evals.example", NULL, NULL, "evals.example"), "Origin: https:// without a proxy");
	{
		static const struct { const char *in, *want; } bp[] = {
			{"/ragpipe/", "/ragpipe"}, {"/ragpipe", "/ragpipe"}, {"/", ""}, {"/a/b-c_d.e~f/", "/a/b-c_d.e~f"},
			{"ragpipe", NULL}, {"/a//b", NULL}, {"/a/../b", NULL}, {"/..", NULL}, {"/./a", NULL},
			{"/a\"b", NULL}, {"/a b", NULL}, {"/a<b", NULL}, {"", NULL},
		};
		size_t i;
		for (i = 0; i < sizeof bp / sizeof *bp; i++) {
			char *got = rag_serve_base_path(bp[i].in);
			if (bp[i].want) is_str(got, bp[i].want, "base path %s", bp[i].in);
			else ok(!got, "base path %s: refused", bp[i].in);
			free(got);
		}
	}

	ok(rag_serve_secret_eq("abcdef", "abcdef"), "secret: equal");
	ok(!rag_serve_secret_eq("abcdef", "abcdeg"), "secret: differs");
	ok(!rag_serve_secret_eq("abc", "abcdef"), "secret: a prefix");
	ok(!rag_serve_secret_eq("abcdefg", "abcdef"), "secret: longer");
	ok(!rag_serve_secret_eq("", ""), "secret: empty never matches");
	ok(!rag_serve_secret_eq(NULL, "x"), "secret: none");

	is_str(c = rag_serve_cookie("a=1; rag_session=xyz; b=2", "rag_session"), "xyz", "cookie: among others");
	free(c);
	is_str(c = rag_serve_cookie("rag_session=last", "rag_session"), "last", "cookie: alone");
	free(c);
	ok(!(c = rag_serve_cookie("xrag_session=1", "rag_session")), "cookie: a longer name is another");
	free(c);
	ok(!rag_serve_cookie(NULL, "rag_session"), "cookie: no header");

	static_is("/", 200, "/d/serve/index.html");
	static_is("/serve.js", 200, "/d/serve/serve.js");
	static_is("/../etc/passwd", 400, NULL);
	static_is("/a/../../x.html", 400, NULL);
	static_is("/.git/config", 400, NULL);
	static_is("/.hidden.html", 400, NULL);
	static_is("//etc/passwd", 400, NULL);
	static_is("/a%2f.html", 400, NULL);
	static_is("/a\\b.html", 400, NULL);
	static_is("/dir/", 400, NULL);
	static_is("etc.html", 400, NULL);
	static_is("/x.sh", 404, NULL);
	static_is("/noext", 404, NULL);

	api();
	return done_testing();
}
