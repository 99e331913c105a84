/* rag-serve - a local web page and a JSON API over the run store: the runs (filtered, paged),
 * one run's summary and its records paged from the store, the test sets, reviewers' marks. The
 * HTTP server is libmicrohttpd's, a thread a connection, so that a slow client or a request
 * waiting on the store stops no other; the store is used by one request at a time (its lock,
 * waited on --store-wait seconds at most); what the replies say is lib/serve.c's. This file:
 * the options, the limits on clients (connections, per client, a deadline to send a request),
 * the checks every request passes (Host, the token, Origin and the CSRF token on a write, the
 * body's size), and the signals; the OTLP receiver's (POST /v1/traces, --otlp-spool). */
#include "tool.h"
#include "base.h"
#include "config.h"
#include "store.h"
#include "serve.h"
#include "serverun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"Usage: rag-serve [OPTIONS]\n"
	"Serve a web page and a JSON API over the run store (rag-store): the runs, a run's summary and\n"
	"its records, the test sets. Prints the URL it serves on stderr; SIGINT or SIGTERM stops it.\n";

enum { OPT_STORE = RAG_OPT_TOOL, OPT_LISTEN, OPT_TOKEN_FILE, OPT_WORK_DIR, OPT_RAG_EVAL, OPT_PROFILES, OPT_MAX_CONN,
       OPT_PER_IP, OPT_REQ_TIMEOUT, OPT_STORE_WAIT, OPT_TRUSTED_PROXY, OPT_BASE_PATH, OPT_OTLP_SPOOL,
       OPT_OTLP_MAX_BODY };

static const rag_opt options[] = {
	{"store", 0, OPT_STORE, "URL", NULL, "the store: sqlite:///PATH, a file's path or postgresql://...\n"
	 "(default store.url, else $XDG_DATA_HOME/ragpipe/runs.db)"},
	{"listen", 0, OPT_LISTEN, "ADDR:PORT", NULL, "where to listen (default 127.0.0.1:8765; port 0: a free one);\n"
	 "an address that is not loopback needs --token-file"},
	{"token-file", 0, OPT_TOKEN_FILE, "FILE", RAG_ARG_FILE,
	 "a file holding the access token: requests carry it as a bearer token,\n"
	 "or a browser logs in once through the login link printed at start"},
	{"work-dir", 0, OPT_WORK_DIR, "DIR", RAG_ARG_FILE, "where the Run tab's runs go (default\n"
	 "$XDG_STATE_HOME/ragpipe/serve, else ~/.local/state/ragpipe/serve)"},
	{"rag-eval", 0, OPT_RAG_EVAL, "FILE", RAG_ARG_FILE, "the rag-eval the Run tab starts (default the one beside\n"
	 "rag-serve, else rag-eval in PATH)"},
	{"profiles", 0, OPT_PROFILES, "DIR", RAG_ARG_FILE, "the Run tab's profiles: a directory of rag-config(5)\n"
	 "files, NAME.yaml each, that a run may start from"},
	{"max-connections", 0, OPT_MAX_CONN, "N", NULL, "connections served at once, each its thread (default 1024)"},
	{"per-client", 0, OPT_PER_IP, "N", NULL, "connections at once from one client address (default 16; 0: no\n"
	 "limit)"},
	{"request-timeout", 0, OPT_REQ_TIMEOUT, "SECONDS", NULL, "the time a client has to send a whole request, from\n"
	 "its connection or its last reply, however it trickles in (default 10)"},
	{"store-wait", 0, OPT_STORE_WAIT, "SECONDS", NULL, "the longest a request waits for the store, held by\n"
	 "another request or process, before 503 (default 5)"},
	{"trusted-proxy", 0, OPT_TRUSTED_PROXY, "ADDR", NULL, "the address of a reverse proxy in front: its requests'\n"
	 "X-Forwarded-Proto, -Host and -Prefix are honoured (no one else's)"},
	{"base-path", 0, OPT_BASE_PATH, "PATH", NULL, "the path the pages are served under behind a proxy\n"
	 "(/ragpipe/: links, the cookie and a request's path within it)"},
	{"otlp-spool", 0, OPT_OTLP_SPOOL, "FILE", RAG_ARG_FILE, "receive OTLP/HTTP traces, protobuf or JSON (POST\n"
	 "/v1/traces): each request a line appended to FILE,\nfor tail -F FILE | rag-trace"},
	{"otlp-max-body", 0, OPT_OTLP_MAX_BODY, "BYTES", NULL, "the largest /v1/traces body, gzip's inflated too;\n"
	 "more is 413 (default 4194304)"},
	RAG_OPT_END
};

/* the largest request body taken (a write's JSON); more is 413 */
#define MAX_BODY 65536
/* the OTLP/HTTP receiver's path, OTLP's default for traces */
#define OTLP_PATH "/v1/traces"

typedef struct server {
	rag_cli cli;
	const char *url_opt, *listen, *token_file;
	const char *work_dir, *rag_eval;         /* the Run tab's (--work-dir, --rag-eval) */
	const char *profiles;                    /* --profiles */
	rag_evals *evals;
	rag_strv env;                            /* the environment of the rag-eval it starts */
	char *host, *token;
	int port, loopback;
	char csrf[65], session[65], login[65];   /* random hex; login: "" once used */
	rag_store *store;
	pthread_mutex_t lock;                    /* the one-time login code */
	pthread_mutex_t store_lock;              /* the store: one request at a time */
	long max_conn, per_ip, req_timeout, store_wait;
	int per_ip_set;
	const char *proxy_opt;                   /* --trusted-proxy */
	int proxy_family;                        /* AF_INET or AF_INET6: a proxy's address; 0: none */
	unsigned char proxy_addr[16];
	char *base_path;                         /* --base-path without its trailing '/', or "" */
	const char *otlp_spool;                  /* --otlp-spool: NULL, no /v1/traces */
	long otlp_max;                           /* --otlp-max-body */
	pthread_mutex_t conns_lock;              /* conns, and each one's fields */
	struct conn *conns;                      /* the connections open */
	char err[RAG_ERRLEN];
} server;

typedef struct request {
	rag_buf body;             /* a write's body, at most limit */
	size_t limit;             /* MAX_BODY, or --otlp-max-body for /v1/traces */
	int too_big;
} request;

/* What a request says of where it came from: behind a trusted reverse proxy (--trusted-proxy,
 * and this request from its address), the proxy's X-Forwarded-* headers; else the request's
 * own, plain http, and --base-path */
typedef struct origin {
	int proxied;
	const char *scheme;       /* "http" or "https" */
	const char *host;         /* X-Forwarded-Host's first, else Host (borrowed from the request) */
	char *prefix;             /* the path prefix without its trailing '/', or "" (malloc'ed) */
	int stripped;             /* the proxy took the prefix off the path (X-Forwarded-Prefix) */
	char hostbuf[256];
} origin;

/* A connection, from libmicrohttpd's start to its close (on_connection): whether a request is
 * being read and since when, for the deadline that bytes do not extend (sweep) */
typedef struct conn {
	int fd;
	double t0;                /* the connection, or the last reply: when the request began */
	int reading;              /* a request is being read: not handled yet */
	int cut;                  /* shut down by sweep */
	struct conn *prev, *next;
} conn;

static int random_hex(char *out, size_t nbytes)
{
	unsigned char b[32];
	if (nbytes > sizeof b || getrandom(b, nbytes, 0) != (ssize_t)nbytes) return -1;
	rag_hex(out, b, nbytes);
	return 0;
}

/* ---------------------------------------------------------------- replies */

static enum MHD_Result send_reply(struct MHD_Connection *c, unsigned st, struct MHD_Response *r, const char *type)
{
	enum MHD_Result ret;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "Content-Security-Policy",
	                        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
	                        "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'");
	ret = MHD_queue_response(c, st, r);
	MHD_destroy_response(r);
	return ret;
}

/* body (consumed) as the JSON reply */
static enum MHD_Result send_json(struct MHD_Connection *c, unsigned st, jv body)
{
	jv d = jv_dump_string(body, 0);
	const char *s = jv_string_value(d);
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(s), rag_xstrdup(s), MHD_RESPMEM_MUST_FREE);
	jv_free(d);
	return send_reply(c, st, r, "application/json; charset=utf-8");
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned st, const char *msg)
{
	return send_json(c, st, JV_OBJECT(jv_string("error"), jv_string(msg)));
}

/* the page's <base href="/">: where its files and the API are, under a path prefix */
#define PAGE_BASE "<base href=\"/\">"

static enum MHD_Result send_file(struct MHD_Connection *c, const char *url, const char *prefix)
{
	char *file = NULL, *text, err[RAG_ERRLEN], *at;
	const char *type = NULL;
	size_t len;
	int st = rag_serve_static(rag_datadir(), url, &file, &type);
	struct MHD_Response *r;
	if (st != 200) return send_error(c, (unsigned)st, st == 400 ? "bad path" : "not found");
	text = rag_read_file(file, &len, err, sizeof err);
	free(file);
	if (!text) return send_error(c, 404, "not found");
	if (*prefix && !strncmp(type, "text/html", 9) && (at = strstr(text, PAGE_BASE))) {
		/* prefix is rag_serve_base_path's: nothing in it to escape */
		char *t = rag_xasprintf("%.*s<base href=\"%s/\">%s", (int)(at - text), text, prefix, at + strlen(PAGE_BASE));
		free(text);
		text = t;
		len = strlen(t);
	}
	r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	return send_reply(c, 200, r, type);
}

static const char *get_arg(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

/* ---------------------------------------------------------------- behind a proxy */

/* does c come from the trusted proxy's address? */
static int from_proxy(const server *sv, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	if (!sv->proxy_family || !sa || sa->sa_family != sv->proxy_family) return 0;
	if (sa->sa_family == AF_INET)
		return !memcmp(&((const struct sockaddr_in *)sa)->sin_addr, sv->proxy_addr, 4);
	return !memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr, sv->proxy_addr, 16);
}

/* X-Forwarded-* are a client's word: honoured only from the proxy --trusted-proxy names */
static void origin_of(const server *sv, struct MHD_Connection *c, origin *o)
{
	const char *proto, *fhost, *pre;
	memset(o, 0, sizeof *o);
	o->scheme = "http";
	o->host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	o->proxied = from_proxy(sv, c);
	if (o->proxied) {
		proto = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Forwarded-Proto");
		fhost = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Forwarded-Host");
		pre = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Forwarded-Prefix");
		if (proto && !strcasecmp(proto, "https")) o->scheme = "https";
		if (fhost && *fhost) {
			/* the first of a list: the one the client named */
			size_t n = strcspn(fhost, ", ");
			if (n && n < sizeof o->hostbuf) {
				memcpy(o->hostbuf, fhost, n);
				o->host = o->hostbuf;
			}
		}
		if (pre && *pre && (o->prefix = rag_serve_base_path(pre))) o->stripped = 1;
	}
	if (!o->prefix) o->prefix = rag_xstrdup(sv->base_path);
}

/* ---------------------------------------------------------------- checks */

/* the access token, when one is required: the bearer token or the session's cookie */
static int authorized(server *sv, struct MHD_Connection *c)
{
	const char *auth, *cookies;
	char *v;
	int ok;
	if (!sv->token) return 1;
	auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	if (auth && !strncasecmp(auth, "Bearer ", 7) && rag_serve_secret_eq(auth + 7, sv->token)) return 1;
	cookies = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Cookie");
	v = rag_serve_cookie(cookies, "rag_session");
	ok = v && rag_serve_secret_eq(v, sv->session);
	free(v);
	return ok;
}

/* GET /login?code=CODE: the one-time code printed at start sets the session's cookie */
static enum MHD_Result login(server *sv, struct MHD_Connection *c, const origin *o)
{
	const char *code = get_arg(c, "code");
	struct MHD_Response *r;
	char *cookie;
	int ok;
	pthread_mutex_lock(&sv->lock);
	ok = sv->login[0] && code && rag_serve_secret_eq(code, sv->login);
	if (ok) sv->login[0] = 0;
	pthread_mutex_unlock(&sv->lock);
	if (!ok) return send_error(c, 403, "this login link is not valid (or was used already)");
	r = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
	/* the pages' path, and Secure where the browser came by https (a proxy's TLS) */
	cookie = rag_xasprintf("rag_session=%s; Path=%s/; HttpOnly; SameSite=Strict%s", sv->session, o->prefix,
	                       strcmp(o->scheme, "https") ? "" : "; Secure");
	MHD_add_response_header(r, "Set-Cookie", cookie);
	free(cookie);
	cookie = rag_xasprintf("%s/", o->prefix);
	MHD_add_response_header(r, "Location", cookie);
	free(cookie);
	return send_reply(c, 303, r, "text/plain");
}

/* the store's lock, waited on --store-wait seconds at most: 0, or -1 (the store is busy) */
static int store_take(server *sv)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += sv->store_wait;
	return pthread_mutex_timedlock(&sv->store_lock, &ts) == 0 ? 0 : -1;
}

static enum MHD_Result store_busy(struct MHD_Connection *c)
{
	jv d = jv_dump_string(JV_OBJECT(jv_string("error"), jv_string("the store is busy (another request or process "
	                                                              "holds it): try again")), 0);
	struct MHD_Response *r = MHD_create_response_from_buffer((size_t)jv_string_length_bytes(jv_copy(d)),
	                                                         rag_xstrdup(jv_string_value(d)), MHD_RESPMEM_MUST_FREE);
	jv_free(d);
	MHD_add_response_header(r, "Retry-After", "1");
	return send_reply(c, 503, r, "application/json; charset=utf-8");
}

/* an OTLP/HTTP reply: body[0..len) (no bytes: an empty protobuf message) of Content-Type type */
static enum MHD_Result otlp_send(struct MHD_Connection *c, unsigned st, rag_buf *body, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(body->len, body->p ? body->p : rag_xstrdup(""),
	                                                         MHD_RESPMEM_MUST_FREE);
	*body = (rag_buf){0};
	/* a spool that cannot be written may be written again soon */
	if (st == 503) MHD_add_response_header(r, "Retry-After", "30");
	return send_reply(c, st, r, type);
}

/* an OTLP/HTTP error: the status and a google.rpc.Status ({code, message}), in protobuf when
 * the request is protobuf, else JSON */
static enum MHD_Result otlp_error(struct MHD_Connection *c, unsigned st, int code, const char *msg)
{
	rag_buf b = {0};
	const char *type = rag_serve_otlp_status(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type"),
	                                         code, msg, &b);
	return otlp_send(c, st, &b, type);
}

/* POST /v1/traces: an exporter's, that can send a header (the bearer token: its
 * OTEL_EXPORTER_OTLP_HEADERS) but no CSRF token; where no token is asked (loopback), a browser's
 * page of another site cannot send it JSON or protobuf without a preflight this server never
 * grants, and one that says its Origin is refused unless it is this server's own */
static enum MHD_Result otlp(server *sv, struct MHD_Connection *c, const char *method, request *rq, const origin *o)
{
	rag_otlp_req q;
	rag_buf reply = {0};
	const char *type;
	const char *orig = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
	int st;
	if (!sv->otlp_spool) return otlp_error(c, 404, 5, "no OTLP receiver here: rag-serve runs without --otlp-spool");
	if (!authorized(sv, c))
		return otlp_error(c, 401, 16, "a token is required: the bearer token (OTEL_EXPORTER_OTLP_HEADERS="
		                  "\"Authorization=Bearer TOKEN\")");
	if (orig && !rag_serve_origin_ok(orig, NULL, o->scheme, o->host))
		return otlp_error(c, 403, 7, "a write from another origin");
	if (strcmp(method, "POST")) return otlp_error(c, 405, 12, "POST an ExportTraceServiceRequest");
	q.type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	q.encoding = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Encoding");
	q.body = rq->body.p ? rq->body.p : "";
	q.len = rq->body.len;
	q.max = (size_t)sv->otlp_max;
	q.spool = sv->otlp_spool;
	st = rag_serve_otlp(&q, &reply, &type);
	return otlp_send(c, (unsigned)st, &reply, type);
}

/* a path that may be /v1/traces, under a prefix or not */
static int otlp_suffix(const char *url)
{
	size_t n = strlen(url), k = strlen(OTLP_PATH);
	return n >= k && !strcmp(url + n - k, OTLP_PATH);
}

/* 413: as OTLP/HTTP replies on its path, else the API's {error} */
static enum MHD_Result too_big(struct MHD_Connection *c, const char *url)
{
	if (otlp_suffix(url))
		return otlp_error(c, 413, 8, "the request body is larger than --otlp-max-body");
	return send_error(c, 413, "the request body is too large");
}

static enum MHD_Result handle(server *sv, struct MHD_Connection *c, const char *url, const char *method,
                              request *rq, const origin *o)
{
	const char *hosthdr = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
	if (rq->too_big) return too_big(c, url);
	/* on loopback, where no token may be asked, a page of another site whose name was made to
	 * resolve here (DNS rebinding) is refused by its Host; elsewhere the token guards, and the
	 * machine's names are many. A trusted proxy chose the site by its own name (and its sign-on
	 * guards it): the Host it sends is its business */
	if (sv->loopback && !o->proxied && !rag_serve_host_ok(hosthdr, sv->host, sv->port, sv->loopback))
		return send_error(c, 403, "the Host header does not name this server");
	if (get && !strcmp(url, "/login")) return login(sv, c, o);
	if (!strcmp(url, OTLP_PATH)) return otlp(sv, c, method, rq, o);
	if (!authorized(sv, c)) return send_error(c, 401, "a token is required: the bearer token or the login link");
	if (!get) {
		const char *csrf = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-CSRF-Token");
		if (!rag_serve_origin_ok(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"),
		                         MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Referer"), o->scheme, o->host))
			return send_error(c, 403, "a write from another origin");
		if (!rag_serve_secret_eq(csrf, sv->csrf)) return send_error(c, 403, "a write without its CSRF token");
		if (strcmp(method, "POST")) return send_error(c, 405, "method not allowed");
		if (store_take(sv) < 0) return store_busy(c);
		{
			jv body;
			int st = sv->evals ? rag_evals_api(sv->evals, sv->store, &sv->cli.cfg, url, 1,
			                                   rq->body.p ? rq->body.p : "", rq->body.len, &body) : 0;
			if (!st) st = rag_serve_post(sv->store, url, rq->body.p ? rq->body.p : "", rq->body.len, &body);
			pthread_mutex_unlock(&sv->store_lock);
			return send_json(c, (unsigned)st, body);
		}
	}
	if (!strcmp(url, "/api/session"))
		return send_json(c, 200, JV_OBJECT(jv_string("csrf"), jv_string(sv->csrf),
		                                   jv_string("store"), jv_string(rag_store_url(sv->store)),
		                                   jv_string("backend"), jv_string(rag_store_backend(sv->store)),
		                                   jv_string("version"), jv_string(RAG_VERSION),
		                                   jv_string("trace_url"), sv->cli.cfg.trace_url ?
		                                   jv_string(sv->cli.cfg.trace_url) : jv_null()));
	if (!strncmp(url, "/api/", 5) || !strcmp(url, "/api")) {
		jv body;
		int st;
		if (store_take(sv) < 0) return store_busy(c);
		st = sv->evals ? rag_evals_api(sv->evals, sv->store, &sv->cli.cfg, url, 0, NULL, 0, &body) : 0;
		if (!st) st = rag_serve_api(sv->store, url, get_arg, c, &body);
		pthread_mutex_unlock(&sv->store_lock);
		if (jv_get_kind(body) == JV_KIND_STRING) {   /* labels.csv */
			struct MHD_Response *r = MHD_create_response_from_buffer(
				(size_t)jv_string_length_bytes(jv_copy(body)), rag_xstrdup(jv_string_value(body)),
				MHD_RESPMEM_MUST_FREE);
			jv_free(body);
			MHD_add_response_header(r, "Content-Disposition", "attachment; filename=\"labels.csv\"");
			return send_reply(c, (unsigned)st, r, "text/csv; charset=utf-8");
		}
		return send_json(c, (unsigned)st, body);
	}
	return send_file(c, url, o->prefix);
}

/* the request on c is read (its reply is being made): no deadline now */
static void request_read(server *sv, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn *k = ci ? ci->socket_context : NULL;
	if (!k) return;
	pthread_mutex_lock(&sv->conns_lock);
	k->reading = 0;
	pthread_mutex_unlock(&sv->conns_lock);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	server *sv = cls;
	request *rq = *con_cls;
	enum MHD_Result ret;
	(void)version;
	if (!rq) {
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
		rq = rag_xcalloc(1, sizeof *rq);
		*con_cls = rq;
		/* /v1/traces' body has its own limit, --otlp-max-body */
		rq->limit = sv->otlp_spool && otlp_suffix(url) ? (size_t)sv->otlp_max : MAX_BODY;
		if (cl && strtoull(cl, NULL, 10) > rq->limit) rq->too_big = 1;
		if (rq->too_big) {
			request_read(sv, c);
			return too_big(c, url);
		}
		return MHD_YES;
	}
	if (*upload_size) {
		if (rq->body.len + *upload_size > rq->limit) rq->too_big = 1;
		else rag_buf_add(&rq->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	request_read(sv, c);
	{
		/* the path within the prefix: a proxy's X-Forwarded-Prefix says it took it off (one that
		 * kept it too); under --base-path every path has it */
		origin o;
		size_t n;
		origin_of(sv, c, &o);
		n = strlen(o.prefix);
		if (n && !strncmp(url, o.prefix, n) && (url[n] == '/' || !url[n])) {
			url = url[n] ? url + n : "/";
			ret = handle(sv, c, url, method, rq, &o);
		} else if (n && !o.stripped) {
			ret = send_error(c, 404, "not found: the pages are under --base-path");
		} else {
			ret = handle(sv, c, url, method, rq, &o);
		}
		free(o.prefix);
	}
	if (sv->cli.verbose) rag_msg(sv->cli.prog, "info", "%s %s", method, url);
	return ret;
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	server *sv = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn *k = ci ? ci->socket_context : NULL;
	(void)toe;
	if (*con_cls) rag_buf_free(&((request *)*con_cls)->body);
	free(*con_cls);
	*con_cls = NULL;
	/* a kept-alive connection: the next request's deadline runs from this reply */
	if (k) {
		pthread_mutex_lock(&sv->conns_lock);
		k->reading = 1;
		k->t0 = rag_now();
		pthread_mutex_unlock(&sv->conns_lock);
	}
}

/* libmicrohttpd tells of each connection's start and its close, the close before it closes the
 * socket: sweep never shuts down a descriptor that another connection has taken since */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
	server *sv = cls;
	conn *k = *socket_context;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		k = rag_xcalloc(1, sizeof *k);
		k->fd = ci ? ci->connect_fd : -1;
		k->t0 = rag_now();
		k->reading = 1;
		pthread_mutex_lock(&sv->conns_lock);
		k->next = sv->conns;
		if (sv->conns) sv->conns->prev = k;
		sv->conns = k;
		pthread_mutex_unlock(&sv->conns_lock);
		*socket_context = k;
	} else if (k) {
		pthread_mutex_lock(&sv->conns_lock);
		if (k->prev) k->prev->next = k->next;
		else sv->conns = k->next;
		if (k->next) k->next->prev = k->prev;
		pthread_mutex_unlock(&sv->conns_lock);
		free(k);
		*socket_context = NULL;
	}
}

/* The deadline of a request: a connection that has not sent its whole request --request-timeout
 * seconds after it began is shut down, however many bytes it trickled in meanwhile
 * (libmicrohttpd's own timeout starts again at each byte); its thread then sees the end and
 * closes it. */
static void sweep(server *sv)
{
	double now = rag_now();
	conn *k;
	pthread_mutex_lock(&sv->conns_lock);
	for (k = sv->conns; k; k = k->next)
		if (k->reading && !k->cut && k->fd >= 0 && now - k->t0 > (double)sv->req_timeout) {
			shutdown(k->fd, SHUT_RDWR);
			k->cut = 1;
		}
	pthread_mutex_unlock(&sv->conns_lock);
}

/* ---------------------------------------------------------------- main */

static int read_token(server *sv)
{
	size_t len;
	char *t = rag_read_file(sv->token_file, &len, sv->err, sizeof sv->err);
	if (!t) {
		rag_msg(sv->cli.prog, "error", "--token-file: %s", sv->err);
		return RAG_EXIT_USAGE;
	}
	while (len && (t[len - 1] == '\n' || t[len - 1] == '\r' || t[len - 1] == ' ')) t[--len] = 0;
	if (len < 16 || strlen(t) != len) {
		rag_msg(sv->cli.prog, "error", "--token-file %s: the token is shorter than 16 characters", sv->token_file);
		free(t);
		return RAG_EXIT_USAGE;
	}
	sv->token = t;
	return 0;
}

/* the spool made (0600) or found writable at start, not at the first exporter's request */
static int spool_check(server *sv)
{
	int fd = open(sv->otlp_spool, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		rag_msg(sv->cli.prog, "error", "--otlp-spool %s: %s", sv->otlp_spool, strerror(errno));
		return RAG_EXIT_USAGE;
	}
	close(fd);
	return 0;
}

/* room for --max-connections descriptors and the rest (the store, the runs' logs): the soft
 * limit raised towards the hard one, often 1024 and 1048576 */
static void raise_nofile(const server *sv)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)sv->max_conn + 64;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want) return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static struct MHD_Daemon *start(server *sv)
{
	struct sockaddr_in a4;
	struct sockaddr_in6 a6;
	const struct sockaddr *sa;
	/* a thread a connection: a request that waits (on the store, on a slow client) holds its own */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO;
	memset(&a4, 0, sizeof a4);
	memset(&a6, 0, sizeof a6);
	if (inet_pton(AF_INET, sv->host, &a4.sin_addr) == 1) {
		a4.sin_family = AF_INET;
		a4.sin_port = htons((uint16_t)sv->port);
		sa = (const struct sockaddr *)&a4;
	} else {
		inet_pton(AF_INET6, sv->host, &a6.sin6_addr);
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons((uint16_t)sv->port);
		sa = (const struct sockaddr *)&a6;
		flags |= MHD_USE_IPv6;
	}
	return MHD_start_daemon(flags, 0, NULL, NULL, on_request, sv,
	                        MHD_OPTION_SOCK_ADDR, sa,
	                        MHD_OPTION_NOTIFY_COMPLETED, on_done, sv,
	                        MHD_OPTION_NOTIFY_CONNECTION, on_connection, sv,
	                        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)131072,
	                        MHD_OPTION_CONNECTION_LIMIT, (unsigned)sv->max_conn,
	                        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)sv->per_ip,
	                        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
	                        MHD_OPTION_END);
}

static int serve(server *sv)
{
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	sigset_t set;
	int sig = 0;
	char *url;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);   /* a rag-eval of the Run tab ended: reaped here */
	/* the server's thread inherits the mask: the signals wait for sigwait here */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	raise_nofile(sv);
	if (!(d = start(sv))) {
		rag_msg(sv->cli.prog, "error", "cannot listen on %s: %s", sv->listen, strerror(errno ? errno : EADDRINUSE));
		return RAG_EXIT_INTERNAL;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	if (info && info->port) sv->port = info->port;
	url = rag_serve_url(sv->host, sv->port);
	rag_msg(sv->cli.prog, "info", "serving %s (%s)", rag_store_url(sv->store), rag_store_backend(sv->store));
	if (sv->token)
		rag_msg(sv->cli.prog, "info", "login link (once): %s%s%slogin?code=%s", url,
		        sv->base_path[0] ? sv->base_path + 1 : "", sv->base_path[0] ? "/" : "", sv->login);
	if (sv->base_path[0]) rag_msg(sv->cli.prog, "info", "the pages under %s/: %s%s/", sv->base_path, url, sv->base_path + 1);
	rag_msg(sv->cli.prog, "info", "%s", url);
	free(url);
	/* a quarter of a second at most between two sweeps of the requests' deadlines */
	for (;;) {
		struct timespec tick = {0, 250000000};
		sig = sigtimedwait(&set, NULL, &tick);
		if (sig == SIGCHLD) rag_evals_reap(sv->evals);
		else if (sig < 0) sweep(sv);
		else break;
	}
	MHD_stop_daemon(d);
	if (!sv->cli.quiet) rag_msg(sv->cli.prog, "info", "stopped (%s)", sig == SIGINT ? "SIGINT" : "SIGTERM");
	return 0;
}

/* ---------------------------------------------------------------- the Run tab */

/* the rag-eval beside rag-serve (the source tree's bin/, an installed PREFIX/bin), else PATH's */
static char *eval_bin(void)
{
	char self[4096], *slash, *p;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		if ((slash = strrchr(self, '/'))) {
			*slash = 0;
			p = rag_xasprintf("%s/rag-eval", self);
			if (access(p, X_OK) == 0) return p;
			free(p);
		}
	}
	return rag_xstrdup("rag-eval");
}

/* The work directory, the rag-eval and its environment: rag-serve's, less the variables that
 * would override the run's generated configuration (RAG_CONFIG, RAG_BASE_URL, RAG_MODEL,
 * RAG_PROVIDER), with the store's URL and the judge's key rag-serve has (from its environment
 * or its configuration) in variables: in no file, no argument, no page. */
static int evals_start(server *sv, const char *store_url)
{
	extern char **environ;
	static const char *const drop[] = {"RAG_CONFIG=", "RAG_BASE_URL=", "RAG_MODEL=", "RAG_PROVIDER=",
	                                   "RAG_API_KEY=", "RAG_SERVE_STORE_URL=", "RAG_EVAL_ALIVE=", NULL};
	char *dir = NULL, *bin;
	char **e;
	size_t i;
	rag_evals_opts o;
	for (e = environ; *e; e++) {
		for (i = 0; drop[i] && strncmp(*e, drop[i], strlen(drop[i])); i++) continue;
		if (!drop[i]) rag_strv_push(&sv->env, rag_xstrdup(*e));
	}
	rag_strv_push(&sv->env, rag_xasprintf("RAG_SERVE_STORE_URL=%s", store_url));
	if (sv->cli.cfg.llm.api_key) rag_strv_push(&sv->env, rag_xasprintf("RAG_API_KEY=%s", sv->cli.cfg.llm.api_key));
	rag_strv_push(&sv->env, NULL);
	sv->env.n--;
	if (!sv->work_dir) {
		const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
		if (x && x[0] == '/') dir = rag_xasprintf("%s/ragpipe/serve", x);
		else if (home && *home) dir = rag_xasprintf("%s/.local/state/ragpipe/serve", home);
		else {
			rag_msg(sv->cli.prog, "error", "no work directory for the Run tab: give --work-dir DIR "
			        "(the default needs $XDG_STATE_HOME or $HOME)");
			return RAG_EXIT_USAGE;
		}
	}
	bin = sv->rag_eval ? rag_xstrdup(sv->rag_eval) : eval_bin();
	o.workdir = sv->work_dir ? sv->work_dir : dir;
	o.eval_bin = bin;
	o.envp = sv->env.v;
	o.profiles = sv->profiles;
	sv->evals = rag_evals_new(&o, sv->err, sizeof sv->err);
	free(dir);
	free(bin);
	if (!sv->evals) {
		rag_msg(sv->cli.prog, "error", "--profiles: %s", sv->err);
		return RAG_EXIT_USAGE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	server sv;
	int opt, rc = 0, done;
	const char *url;

	memset(&sv, 0, sizeof sv);
	pthread_mutex_init(&sv.lock, NULL);
	pthread_mutex_init(&sv.store_lock, NULL);
	pthread_mutex_init(&sv.conns_lock, NULL);
	sv.max_conn = 1024;
	sv.per_ip = 16;
	sv.req_timeout = 10;
	sv.store_wait = 5;
	sv.otlp_max = 4194304;
	sv.cli.prog = "rag-serve";
	sv.cli.usage = usage;
	sv.cli.opts = options;
	sv.listen = "127.0.0.1:8765";
	while ((opt = rag_cli_getopt(&sv.cli, argc, argv)) != -1) {
		switch (opt) {
		case OPT_STORE: sv.url_opt = optarg; break;
		case OPT_LISTEN: sv.listen = optarg; break;
		case OPT_TOKEN_FILE: sv.token_file = optarg; break;
		case OPT_WORK_DIR: sv.work_dir = optarg; break;
		case OPT_RAG_EVAL: sv.rag_eval = optarg; break;
		case OPT_PROFILES: sv.profiles = optarg; break;
		case OPT_MAX_CONN:
			if (rag_cli_int(&sv.cli, "--max-connections", optarg, 1, 65536, &sv.max_conn) < 0) goto misuse;
			break;
		case OPT_PER_IP:
			if (rag_cli_int(&sv.cli, "--per-client", optarg, 0, 65536, &sv.per_ip) < 0) goto misuse;
			sv.per_ip_set = 1;
			break;
		case OPT_TRUSTED_PROXY:
			sv.proxy_opt = optarg;
			if (inet_pton(AF_INET, optarg, sv.proxy_addr) == 1) sv.proxy_family = AF_INET;
			else if (inet_pton(AF_INET6, optarg, sv.proxy_addr) == 1) sv.proxy_family = AF_INET6;
			else {
				rag_msg(sv.cli.prog, "error", "--trusted-proxy %s: not an IPv4 or IPv6 address", optarg);
				goto misuse;
			}
			break;
		case OPT_BASE_PATH:
			free(sv.base_path);
			if (!(sv.base_path = rag_serve_base_path(optarg))) {
				rag_msg(sv.cli.prog, "error", "--base-path %s: not a path of letters, digits and -_.~ from a '/'",
				        optarg);
				goto misuse;
			}
			break;
		case OPT_REQ_TIMEOUT:
			if (rag_cli_int(&sv.cli, "--request-timeout", optarg, 1, 3600, &sv.req_timeout) < 0) goto misuse;
			break;
		case OPT_OTLP_SPOOL: sv.otlp_spool = optarg; break;
		case OPT_OTLP_MAX_BODY:
			if (rag_cli_int(&sv.cli, "--otlp-max-body", optarg, 1024, 1073741824L, &sv.otlp_max) < 0) goto misuse;
			break;
		case OPT_STORE_WAIT:
			if (rag_cli_int(&sv.cli, "--store-wait", optarg, 1, 3600, &sv.store_wait) < 0) goto misuse;
			break;
		default:
			rc = rag_cli_option(&sv.cli, opt, optarg, &done);
			if (rc || done) goto out;
		}
	}
	if ((rc = rag_cli_no_operands(&sv.cli, argc, argv))) goto out;
	if (!sv.base_path) sv.base_path = rag_xstrdup("");
	/* behind a proxy every client comes from its address: the proxy limits them */
	if (sv.proxy_family && !sv.per_ip_set) sv.per_ip = 0;
	if ((rc = rag_cli_config(&sv.cli))) goto out;
	if (rag_serve_listen(sv.listen, &sv.host, &sv.port, &sv.loopback, sv.err, sizeof sv.err) < 0) {
		rag_msg(sv.cli.prog, "error", "%s", sv.err);
		rc = rag_cli_misuse(&sv.cli);
		goto out;
	}
	if (!sv.loopback && !sv.token_file) {
		rag_msg(sv.cli.prog, "error", "--listen %s is not a loopback address: give --token-file FILE, "
		        "so that only those with the token see the store", sv.listen);
		rc = RAG_EXIT_USAGE;
		goto out;
	}
	if (sv.token_file && (rc = read_token(&sv))) goto out;
	if (sv.otlp_spool && (rc = spool_check(&sv))) goto out;
	if (random_hex(sv.csrf, 32) < 0 || random_hex(sv.session, 32) < 0 || random_hex(sv.login, 24) < 0) {
		rag_msg(sv.cli.prog, "error", "cannot read random bytes: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	url = sv.url_opt ? sv.url_opt : sv.cli.cfg.store.url ? sv.cli.cfg.store.url : sv.cli.cfg.store.default_url;
	if (!url || !*url) {
		rag_msg(sv.cli.prog, "error", "no store: give --store URL or store.url in the configuration "
		        "(the default needs $XDG_DATA_HOME or $HOME)");
		rc = RAG_EXIT_USAGE;
		goto out;
	}
	if (!(sv.store = rag_store_open(url, sv.err, sizeof sv.err))) {
		rag_msg(sv.cli.prog, "error", "%s", sv.err);
		rc = RAG_EXIT_STORE;
		goto out;
	}
	/* a request waits for another process's lock on the store no longer than for another request */
	if (rag_store_set_wait(sv.store, sv.store_wait * 1000, sv.err, sizeof sv.err) < 0) {
		rag_msg(sv.cli.prog, "error", "%s", sv.err);
		rc = RAG_EXIT_STORE;
		goto out;
	}
	if ((rc = evals_start(&sv, url))) goto out;
	rc = serve(&sv);
out:
	rag_evals_free(sv.evals);   /* the Run tab's children ended and reaped */
	rag_strv_free(&sv.env);
	rag_store_close(sv.store);
	free(sv.host);
	free(sv.token);
	free(sv.base_path);
	pthread_mutex_destroy(&sv.lock);
	pthread_mutex_destroy(&sv.store_lock);
	pthread_mutex_destroy(&sv.conns_lock);
	rag_cli_free(&sv.cli);
	return rc;
misuse:
	rc = rag_cli_misuse(&sv.cli);
	goto out;
}
