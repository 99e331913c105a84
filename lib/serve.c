/* serve.c - rag-serve(1)'s engine, without the HTTP server: the listen address and whether it is
 * loopback, the Host and Origin checks, a static file's path under the data directory (no way
 * out of it), and the JSON API over the store (routing, the parameters checked, the replies
 * built). cmd/rag-serve.c runs libmicrohttpd and calls these; nothing here reads a socket. */
#include "base.h"
#include "record.h"
#include "store.h"
#include "serve.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
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

int rag_serve_origin_ok(const char *origin, const char *referer, const char *scheme, const char *hosthdr)
{
	char *want;
	size_t n;
	int ok = 0;
	if (!hosthdr) return 0;
	want = rag_xasprintf("%s://%s", scheme ? scheme : "http", hosthdr);
	n = strlen(want);
	if (origin) ok = !strcasecmp(origin, want);
	else if (referer) ok = !strncasecmp(referer, want, n) && (referer[n] == '/' || !referer[n]);
	free(want);
	return ok;
}

char *rag_serve_base_path(const char *p)
{
	size_t n;
	const char *c;
	if (!p || p[0] != '/' || strlen(p) > 200) return NULL;
	/* parts of letters, digits and "-_.~", none of them "." or "..": a path a page can be put
	 * in <base href="..."> and a cookie's Path as it is */
	for (c = p; *c; c++) {
		if (*c == '/') {
			if (c[1] == '/' || (c[1] == '.' && (c[2] == '/' || !c[2] || (c[2] == '.' && (c[3] == '/' || !c[3])))))
				return NULL;
		} else if (!isalnum((unsigned char)*c) && !strchr("-_.~", *c)) {
			return NULL;
		}
	}
	n = strlen(p);
	while (n && p[n - 1] == '/') n--;
	return rag_xstrndup(p, n);
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

static int api_runs(rag_store *s, rag_serve_arg_fn arg, void *ctx, jv *body, char *err, size_t errlen)
{
	rag_store_filter f;
	long offset, limit;
	memset(&f, 0, sizeof f);
	if (rag_serve_num_arg(arg, ctx, "offset", 0, 0, 1000000000L, &offset, body) < 0 ||
	    rag_serve_num_arg(arg, ctx, "limit", 50, 1, 500, &limit, body) < 0 ||
	    rag_serve_date_arg(arg, ctx, "since", &f.since, body) < 0 || rag_serve_date_arg(arg, ctx, "until", &f.until, body) < 0)
		return 400;
	f.label = rag_serve_str_arg(arg, ctx, "label");
	f.commit = rag_serve_str_arg(arg, ctx, "commit");
	f.testset = rag_serve_str_arg(arg, ctx, "testset");
	return rag_serve_stored(rag_store_page(s, &f, offset, limit, body, err, errlen), err, body);
}

/* a number argument (below=0.5): finite; absent -> NAN */
static int real_arg(rag_serve_arg_fn arg, void *ctx, const char *name, double *out, jv *body)
{
	const char *v = rag_serve_str_arg(arg, ctx, name);
	char *end, msg[120];
	*out = NAN;
	if (!v) return 0;
	errno = 0;
	*out = strtod(v, &end);
	if (errno || *end || !isfinite(*out)) {
		snprintf(msg, sizeof msg, "%s: a number (0.5)", name);
		*body = rag_serve_error(msg);
		return -1;
	}
	return 0;
}

/* GET /api/runs/ID/records?offset&limit&failed=1&category=C&cause=KEY&metric=M&below=X&q=TEXT&id=RID:
 * a page of the records the filters let through, filtered by the store's query */
static int api_records(rag_store *s, const char *id, rag_serve_arg_fn arg, void *ctx, jv *body, char *err,
                       size_t errlen)
{
	long offset, limit, failed;
	rag_store_rec_filter f;
	memset(&f, 0, sizeof f);
	if (rag_serve_num_arg(arg, ctx, "offset", 0, 0, 1000000000L, &offset, body) < 0 ||
	    rag_serve_num_arg(arg, ctx, "limit", 50, 1, 500, &limit, body) < 0 ||
	    rag_serve_num_arg(arg, ctx, "failed", 0, 0, 1, &failed, body) < 0 || real_arg(arg, ctx, "below", &f.below, body) < 0)
		return 400;
	f.failed = (int)failed;
	f.category = rag_serve_str_arg(arg, ctx, "category");
	f.cause = rag_serve_str_arg(arg, ctx, "cause");
	f.metric = rag_serve_str_arg(arg, ctx, "metric");
	f.text = rag_serve_str_arg(arg, ctx, "q");
	f.id = rag_serve_str_arg(arg, ctx, "id");
	if (!f.metric != isnan(f.below)) {
		*body = rag_serve_error("metric and below go together: the records whose metric is below a number");
		return 400;
	}
	return rag_serve_stored(rag_store_records(s, id, &f, offset, limit, body, err, errlen), err, body);
}

/* GET /api/runs/ID/records/SEQ: record SEQ (its place in the run, 1 first: ids may be absent or
 * repeat) whole, with its gate verdict, its cause and every review mark */
static int api_record(rag_store *s, const char *id, const char *seq, jv *body, char *err, size_t errlen)
{
	char *end;
	long n;
	int r;
	jv rec, ctx;
	errno = 0;
	n = strtol(seq, &end, 10);
	if (errno || *end || end == seq || n < 1 || !isdigit((unsigned char)*seq)) {
		*body = rag_serve_error("a record: its number in the run, 1 or more");
		return 400;
	}
	if ((r = rag_store_record(s, id, n, body, err, errlen))) return rag_serve_stored(r, err, body);
	/* its texts as every tool reads them (record.c's names and aliases): the page reads no alias */
	rec = rag_json_get(jv_copy(*body), "record");
	if (jv_get_kind(rec) == JV_KIND_OBJECT) {
		static const char *const names[] = {"question", "answer", "reference"};
		jv f = jv_object();
		size_t k;
		for (k = 0; k < sizeof names / sizeof names[0]; k++) {
			const char *v = rag_record_str(rec, names[k]);
			f = jv_object_set(f, jv_string(names[k]), v ? jv_string(v) : jv_null());
		}
		ctx = rag_record_contexts(rec);
		if (jv_get_kind(ctx) != JV_KIND_ARRAY) ctx = (jv_free(ctx), jv_null());
		f = jv_object_set(f, jv_string("contexts"), ctx);
		*body = jv_object_set(*body, jv_string("fields"), f);
	}
	jv_free(rec);
	return 200;
}

/* a CSV cell: quoted when it holds a comma, a quote or a line break; a text a spreadsheet would
 * run as a formula (a reviewer's comment "=HYPERLINK(...)") with a ' first (rag_csv_protect),
 * which rag-agree --labels takes off again */
static void csv_add(rag_buf *b, const char *v)
{
	if (!v) v = "";
	if (!strpbrk(v, ",\"\r\n")) {
		if (rag_csv_protect(v)) rag_buf_add(b, "'", 1);
		rag_buf_adds(b, v);
		return;
	}
	rag_buf_add(b, "\"", 1);
	if (rag_csv_protect(v)) rag_buf_add(b, "'", 1);
	for (; *v; v++) {
		if (*v == '"') rag_buf_add(b, "\"", 1);
		rag_buf_add(b, v, 1);
	}
	rag_buf_add(b, "\"", 1);
}

/* the marks as the CSV rag-agree --labels reads (a header naming id and label): the marks of
 * records without an id cannot be joined and are left out */
static jv labels_csv(jv marks)
{
	rag_buf b = {0};
	jv r;
	rag_buf_adds(&b, "id,label,metric,who,comment,created\n");
	jv_array_foreach(marks, i, m) {
		char ids[1024], met[1024], who[1024], com[8192], cr[64], num[64];
		const char *id = rag_json_str(m, "id", ids, sizeof ids);
		if (*id) {
			csv_add(&b, id);
			snprintf(num, sizeof num, ",%.17g,", rag_json_num(m, "label"));
			rag_buf_adds(&b, num);
			csv_add(&b, rag_json_str(m, "metric", met, sizeof met));
			rag_buf_add(&b, ",", 1);
			csv_add(&b, rag_json_str(m, "who", who, sizeof who));
			rag_buf_add(&b, ",", 1);
			csv_add(&b, rag_json_str(m, "comment", com, sizeof com));
			rag_buf_add(&b, ",", 1);
			csv_add(&b, rag_json_str(m, "created", cr, sizeof cr));
			rag_buf_add(&b, "\n", 1);
		}
		jv_free(m);
		(void)i;
	}
	jv_free(marks);
	r = jv_string_sized(b.p, (int)b.len);
	rag_buf_free(&b);
	return r;
}

static int api_marks(rag_store *s, const char *id, int csv, rag_serve_arg_fn arg, void *ctx, jv *body, char *err,
                     size_t errlen)
{
	jv marks;
	int r = rag_store_marks(s, id, rag_serve_str_arg(arg, ctx, "metric"), &marks, err, errlen);
	if (r) return rag_serve_stored(r, err, body);
	*body = csv ? labels_csv(marks) : JV_OBJECT(jv_string("run"), jv_string(id), jv_string("marks"), marks);
	return 200;
}

/* a string field of o (borrowed) of 1..max bytes without control characters: NULL if absent */
static const char *mark_str(jv o, const char *k, size_t max, int need, char *buf, size_t n, jv *body)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));
	const char *r = NULL, *p;
	char msg[160];
	int kind = jv_get_kind(v);
	if (kind == JV_KIND_STRING && jv_string_length_bytes(jv_copy(v)) > 0 &&
	    (size_t)jv_string_length_bytes(jv_copy(v)) <= max) {
		snprintf(buf, n, "%s", jv_string_value(v));
		r = buf;
		for (p = buf; *p; p++)
			if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t') r = NULL;
	}
	jv_free(v);
	if (!r && (need || (kind != JV_KIND_INVALID && kind != JV_KIND_NULL))) {
		snprintf(msg, sizeof msg, "\"%s\": a text of 1 to %zu bytes%s", k, max, need ? " (required)" : "");
		*body = rag_serve_error(msg);
	}
	return r;
}

/* POST /api/runs/ID/marks {seq, metric, label (a number) or verdict (true/false), comment, who} */
static int post_mark(rag_store *s, const char *id, const char *text, size_t len, jv *body, char *err,
                     size_t errlen)
{
	jv o = jv_parse_sized(text, (int)len), seq, label, verdict;
	char metric[256], who[128], comment[2048];
	rag_store_mark_in m;
	int st = 400, r;
	memset(&m, 0, sizeof m);
	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		*body = rag_serve_error("the body is not a JSON object");
		return 400;
	}
	seq = jv_object_get(jv_copy(o), jv_string("seq"));
	label = jv_object_get(jv_copy(o), jv_string("label"));
	verdict = jv_object_get(jv_copy(o), jv_string("verdict"));
	m.run = id;
	if (jv_get_kind(seq) != JV_KIND_NUMBER || jv_number_value(seq) < 1 || jv_number_value(seq) > 1e15 ||
	    jv_number_value(seq) != (double)(long)jv_number_value(seq)) {
		*body = rag_serve_error("\"seq\": the record's number, 1 or more");
		goto out;
	}
	m.seq = (long)jv_number_value(seq);
	if (jv_get_kind(verdict) == JV_KIND_TRUE || jv_get_kind(verdict) == JV_KIND_FALSE) {
		m.label = jv_get_kind(verdict) == JV_KIND_TRUE;
	} else if (jv_get_kind(label) == JV_KIND_NUMBER && isfinite(jv_number_value(label))) {
		m.label = jv_number_value(label);
	} else {
		*body = rag_serve_error("\"verdict\" (true: right, false: wrong) or \"label\" (a score) is required");
		goto out;
	}
	if (!(m.metric = mark_str(o, "metric", 200, 1, metric, sizeof metric, body)) ||
	    !(m.who = mark_str(o, "who", 100, 1, who, sizeof who, body)))
		goto out;
	m.comment = mark_str(o, "comment", 2000, 0, comment, sizeof comment, body);
	if (jv_is_valid(*body)) goto out;
	r = rag_store_mark(s, &m, err, errlen);
	st = rag_serve_stored(r, err, body);
	if (!r)
		*body = JV_OBJECT(jv_string("run"), jv_string(id), jv_string("seq"), jv_number((double)m.seq),
		                  jv_string("metric"), jv_string(m.metric), jv_string("label"), jv_number(m.label),
		                  jv_string("who"), jv_string(m.who));
out:
	jv_free(o);
	jv_free(seq);
	jv_free(label);
	jv_free(verdict);
	return st;
}

/* ---------------------------------------------------------------- a run's checks */
/* What an opened run shows first: its verdict as stored with it (rag_verdict's, made once by
 * the run's gate with its whole configuration: the decision, the exit status and its reason,
 * the counts and the pass rate over its denominator), the gate's checks, the failed ones first,
 * and its failing records by cause (causes.c's grouping, the one rag-report's page has, stored
 * with the run). Nothing here gates the records again. */

/* the gate's checks (consumed), the failed ones first, each kind in its order */
static jv failed_first(jv checks)
{
	jv out = jv_array();
	int pass;
	for (pass = 0; pass < 2; pass++)
		jv_array_foreach(checks, i, c) {
			if (rag_json_true(c, "pass") == pass) out = jv_array_append(out, c);
			else jv_free(c);
			(void)i;
		}
	jv_free(checks);
	return out;
}

/* GET /api/runs/ID/checks -> {run, stored, gated, decision, pass, exit_status, reason,
 * reason_code, reason_args, records, with_verdict, passed, failed, errored, not_applicable, not_scored, pass_rate, pass_rate_of,
 * checks: [{check, pass, message, code, args, skipped?}] the failed first, causes: [{kind, metric?,
 * threshold?, tool?, text?, key, cause, count, records: [{seq, id, detail}] (10 at most)}] the most
 * first}, all of the stored verdict; a run stored without one (before verdicts were kept):
 * {run, stored: false, gated: false, checks: null, causes: null} */
static int api_checks(rag_store *s, const char *id, jv *body, char *err, size_t errlen)
{
	static const char *const keys[] = {"decision", "exit_status", "reason", "reason_code", "reason_args", "records",
	                                   "with_verdict", "passed", "failed", "errored", "not_applicable", "not_scored", "pass_rate", "pass_rate_of"};
	jv sum, v, dec;
	size_t k;
	int r = rag_store_show(s, id, &sum, err, errlen);
	if (r) return rag_serve_stored(r, err, body);
	v = rag_json_get(jv_copy(sum), "verdict");
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		*body = JV_OBJECT(jv_string("run"), jv_string(id), jv_string("stored"), jv_false(), jv_string("gated"), jv_false(),
		                  jv_string("checks"), jv_null(), jv_string("causes"), jv_null());
	} else {
		dec = jv_object_get(jv_copy(v), jv_string("decision"));
		*body = JV_OBJECT(jv_string("run"), jv_string(id), jv_string("stored"), jv_true(),
		                  jv_string("gated"), jv_bool(jv_get_kind(dec) == JV_KIND_STRING && strcmp(jv_string_value(dec), "none")),
		                  jv_string("pass"), jv_bool(jv_get_kind(dec) == JV_KIND_STRING && !strcmp(jv_string_value(dec), "pass")));
		jv_free(dec);
		for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
			*body = jv_object_set(*body, jv_string(keys[k]), rag_json_get(jv_copy(v), keys[k]));
		*body = jv_object_set(*body, jv_string("checks"), failed_first(rag_json_get(jv_copy(v), "checks")));
		{
			jv cs = rag_json_get(jv_copy(sum), "causes");
			if (jv_get_kind(cs) != JV_KIND_ARRAY) cs = (jv_free(cs), jv_array());
			*body = jv_object_set(*body, jv_string("causes"), cs);
		}
	}
	jv_free(v);
	jv_free(sum);
	return 200;
}

int rag_serve_post(rag_store *s, const char *path, const char *text, size_t len, jv *body)
{
	char err[RAG_ERRLEN];
	const char *rest, *slash;
	*body = jv_invalid();
	if (!strncmp(path, "/api/runs/", 10) && *(rest = path + 10) && (slash = strchr(rest, '/')) &&
	    !strcmp(slash, "/marks")) {
		char *id = rag_xstrndup(rest, (size_t)(slash - rest));
		int st = post_mark(s, id, text, len, body, err, sizeof err);
		free(id);
		return st;
	}
	if (!strcmp(path, "/api/testsets") || !strncmp(path, "/api/testsets/", 14))
		return rag_serve_testsets_post(s, path, text, len, body);
	if (!strncmp(path, "/api/production/", 16)) {
		int st = rag_serve_production_post(s, path, text, len, body);
		if (st) return st;
	}
	*body = rag_serve_error("no such API path");
	return 404;
}

int rag_serve_api(rag_store *s, const char *path, rag_serve_arg_fn arg, void *ctx, jv *body)
{
	char err[RAG_ERRLEN];
	const char *rest;
	*body = jv_invalid();
	if (!strcmp(path, "/api/runs")) return api_runs(s, arg, ctx, body, err, sizeof err);
	if (!strcmp(path, "/api/trends") || !strcmp(path, "/api/compare"))
		return rag_serve_history_get(s, path, arg, ctx, body);
	if (!strcmp(path, "/api/testsets") || !strncmp(path, "/api/testsets/", 14))
		return rag_serve_testsets_get(s, path, arg, ctx, body);
	if (!strncmp(path, "/api/production/", 16)) {
		int st = rag_serve_production_get(s, path, arg, ctx, body);
		if (st) return st;
	}
	if (!strcmp(path, "/api/info")) return rag_serve_stored(rag_store_info(s, body, err, sizeof err), err, body);
	if (!strncmp(path, "/api/runs/", 10) && *(rest = path + 10)) {
		const char *slash = strchr(rest, '/');
		char *id = slash ? rag_xstrndup(rest, (size_t)(slash - rest)) : rag_xstrdup(rest);
		int st = 404;
		if (!slash) st = rag_serve_stored(rag_store_show(s, id, body, err, sizeof err), err, body);
		else if (!strcmp(slash, "/records")) st = api_records(s, id, arg, ctx, body, err, sizeof err);
		else if (!strncmp(slash, "/records/", 9)) st = api_record(s, id, slash + 9, body, err, sizeof err);
		else if (!strcmp(slash, "/marks")) st = api_marks(s, id, 0, arg, ctx, body, err, sizeof err);
		else if (!strcmp(slash, "/labels.csv")) st = api_marks(s, id, 1, arg, ctx, body, err, sizeof err);
		else if (!strcmp(slash, "/checks")) st = api_checks(s, id, body, err, sizeof err);
		free(id);
		if (jv_is_valid(*body)) return st;
	}
	*body = rag_serve_error("no such API path");
	return 404;
}
