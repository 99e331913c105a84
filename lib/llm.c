/* llm.c - chat completions and embeddings against any OpenAI-compatible endpoint, many in
 * flight at once.
 *
 * One curl multi handle carries up to `concurrency` transfers and keeps their connections for
 * reuse. Requests wait in a FIFO queue for a free slot, for the rate limiter, and for their
 * backoff after a transient failure. Callbacks only ever run from rag_llm_run (a cache hit is
 * answered on the next run), so callers never see re-entrancy from rag_llm_ask.
 *
 * Embeddings are cached per text, not per request: which texts share a request depends on the
 * order records arrive in, and a text embedded once must be found again whatever its company. */
#include "base.h"
#include "config.h"
#include "usage.h"
#include "llm.h"

#include <curl/curl.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define RETRY_AFTER_MAX 120.0 /* seconds: the most a server's Retry-After makes one retry wait */
#define UNREACHABLE_AFTER 3   /* connection failures in a row, no reply between, before the probe */
#define PROBE_WAIT 1.0        /* seconds from then to the probe */
#define SLOT_POLL 0.01        /* seconds between looks for a free slot of the shared budget */

typedef struct req {
	struct req *next;
	int embed;                /* an embeddings request (else a chat completion) */
	int kind;                 /* K_CHAT, K_EMBED, K_HTTP: which endpoint (dead-endpoint detection) */
	int n;                    /* chat: choices asked for ("n"), 1 unless rag_llm_opts.n says more */
	int repeat;               /* rag_llm_opts.repeat: in the cache key */
	jv choices;               /* n > 1: the content of each choice (array of strings) */
	const char *url;          /* borrowed from the client */
	const rag_strv *hdrs;     /* chat, embeddings: the client's header lines for the kind (borrowed) */
	char *body;               /* JSON request body */
	char key[65];             /* cache key */
	int schema;               /* the body asks for a JSON Schema (response_format json_schema) */
	int adapted;              /* chat: the adaptations (A_*) its body was made with */
	int fresh;                /* rag_llm_opts.fresh: not answered from the cache */
	char *entry;              /* chat: the cache entry, stored only when the caller commits it */
	char *usage_error;        /* the reply's usage was no token count */
	int probe;                /* sent to learn whether a failing endpoint is still there */
	double t0;                /* when the first attempt started (llm.deadline counts from it) */
	int capped;               /* this attempt's transfer timeout is what was left of llm.deadline */
	rag_llm_cb cb;
	void *arg;
	int attempt;              /* retries used */
	double not_before;        /* backoff: monotonic time before which it must not start */
	double retry_after;       /* from the last reply's Retry-After, seconds */
	long est_tokens;          /* for the tokens-per-minute limiter */
	CURL *easy;
	struct curl_slist *headers;
	rag_buf resp;
	char curl_err[CURL_ERROR_SIZE];
	/* a finished answer waiting for its callback */
	char *content, *finish_reason, *error;
	long prompt_tokens, completion_tokens, cached_tokens;
	int cached;
	/* embeddings: the texts, their cache keys, the vectors found so far (null where missing),
	 * and which texts the request carries */
	jv texts, vectors;
	char (*keys)[65];
	int *miss, nmiss;
	/* a generic HTTP request (rag_llm_http): its own URL and method, the header values to scrub
	 * from what the server says, the reply's status, type, SSE events and time */
	char *own_url, *method, *ctype;
	rag_strv secrets;
	int sse;                  /* -1 by Content-Type, 0 never, 1 always */
	long status;
	jv events;
	double seconds;
	int slot;                 /* 1 + the byte of the shared budget's file this transfer holds, or 0 */
	double est_prompt, est_completion;   /* rag_llm_opts' estimate, for the meter */
	double at;                /* rag_llm_opts' record time, for the meter */
	int metered;              /* admitted by the meter, which held `held` for it */
	double held;
	double started;           /* when this attempt started (adaptive concurrency) */
} req;

enum { K_CHAT = 0, K_EMBED, K_HTTP, NKINDS };

/* What a chat request may be changed in, for the endpoint's sake: set by the configuration
 * (llm.provider openai-reasoning, llm.max_tokens_param, llm.temperature: omit, llm.json_mode
 * object) or learned from the endpoint's own 400 to a request without it, once per run (its
 * memo in the cache: the next run asks as this one learned). */
enum {
	A_OBJECT = 1,             /* response_format json_object in place of a json_schema */
	A_MAXCOMP = 2,            /* max_completion_tokens in place of max_tokens (reasoning models) */
	A_NOTEMP = 4,             /* no temperature: the model takes its default alone */
};
static const char *const adapt_names[] = {"json_object", "max_completion_tokens", "no_temperature"};

struct rag_llm {
	CURLM *multi;
	rag_cache *cache;
	int cache_mode;
	char *url;                /* where chat requests go: the endpoint, the provider's route, the query */
	char *api_key;            /* for scrubbing error texts */
	char *endpoint, *model;
	char *emb_url, *emb_endpoint, *emb_model, *emb_key;
	/* each kind's header lines (0 chat, 1 embeddings): the key's ("Authorization: Bearer ...",
	 * or azure's "api-key: ...") and the configured ones; never logged */
	rag_strv hdrs[2];
	jv keyed[2];              /* what the cache key holds beyond the body: the URL where it is not
	                           * the endpoint's plain one, each configured header by its name and a
	                           * hash of its value (null when neither) */
	rag_strv secrets;         /* the configured header values and their words: scrubbed */
	int emb_dims;
	double temperature;
	long seed; int has_seed;
	int max_tokens, json_mode, retries, concurrency;
	char *effort;             /* llm.reasoning_effort, or NULL */
	int fixed;                /* A_* the configuration asks for */
	int learned;              /* A_* learned from the endpoint's 400s (this run's, or the memo's) */
	char memo_key[65];        /* the cache key of the memo of what was learned */
	long timeout_ms;
	double deadline;          /* llm.deadline: seconds a request may take, retries included; 0 none */
	/* a dead endpoint, per kind (0 chat, 1 embeddings): connection failures in a row with no
	 * reply in between; after UNREACHABLE_AFTER of them one probe, and if it fails too every
	 * request of that kind fails at once with dead[kind] */
	int conn_fails[NKINDS], running_kind[NKINDS];
	double suspect_at[NKINDS];
	char *dead[NKINDS];
	req *queue, *queue_tail;  /* waiting to start */
	req *done, *done_tail;    /* finished, callback not yet run */
	req *inflight;            /* transfers in progress (at most concurrency) */
	int running;              /* transfers in flight */
	/* the shared budget (llm.inflight_file): one byte-range lock on byte i of the file is slot i
	 * of concurrency, held while a transfer is in flight; held[i] is ours (fcntl locks of one
	 * process never conflict with each other, so our own must be skipped, not tried) */
	int slot_fd;
	unsigned char *held;
	/* adaptive concurrency (llm.adaptive): the transfers allowed now, halved on a 429 and raised
	 * by one per `limit` successes, within [1, concurrency]; the lowest it went and how often */
	int adaptive, limit, low, cuts, oks;
	double cut_at;
	rag_rate rate;
	unsigned rng;
	rag_usage usage;
	rag_llm_meter meter;      /* llm.max_cost's, or admit NULL */
	/* the batch route (batch.c): where its files and batches go (the query after them), the
	 * model its lines name (azure: the deployment), and the file a stage run to collect a
	 * batch's requests writes them to instead of sending them (-1: none) */
	char *batch_base, *batch_query, *batch_model;
	int batch_azure;
	int collect_fd;
};

static void req_free(req *r)
{
	free(r->body);
	if (r->headers) curl_slist_free_all(r->headers);
	rag_buf_free(&r->resp);
	free(r->content);
	free(r->finish_reason);
	free(r->error);
	free(r->entry);
	free(r->usage_error);
	if (r->n > 1) jv_free(r->choices);
	if (r->kind == K_HTTP) {
		free(r->own_url);
		free(r->method);
		free(r->ctype);
		rag_strv_free(&r->secrets);
		jv_free(r->events);
	}
	if (r->embed) {
		jv_free(r->texts);
		jv_free(r->vectors);
		free(r->keys);
		free(r->miss);
	}
	free(r);
}

/* What the server says can quote the key (an error message, a reply's content): never let a
 * message, a caller or the cache see it. The one scrub: every text from the server passes here. */
static char *scrub(const rag_llm *l, char *msg)
{
	const char *keys[2] = {l->api_key, l->emb_key};
	char *p;
	size_t i, kl;
	if (!msg) return msg;
	for (i = 0; i < 2 + l->secrets.n; i++) {
		const char *k = i < 2 ? keys[i] : l->secrets.v[i - 2];
		if (!k || !*k) continue;
		kl = strlen(k);
		while ((p = strstr(msg, k))) memset(p, '*', kl);
	}
	return msg;
}

/* scrub, and the request's own secrets too: the values of a generic request's headers. */
static char *scrub_req(const rag_llm *l, const req *r, char *msg)
{
	size_t i, kl;
	char *p;
	scrub(l, msg);
	if (!msg || r->kind != K_HTTP) return msg;
	for (i = 0; i < r->secrets.n; i++) {
		kl = strlen(r->secrets.v[i]);
		while ((p = strstr(msg, r->secrets.v[i]))) memset(p, '*', kl);
	}
	return msg;
}

/* A jv string with the key scrubbed (consumed). */
static jv scrub_jv(const rag_llm *l, jv s)
{
	char *t;
	if (jv_get_kind(s) != JV_KIND_STRING) return s;
	t = scrub(l, rag_xstrdup(jv_string_value(s)));
	jv_free(s);
	s = jv_string(t);
	free(t);
	return s;
}

/* A token count of the server's usage (u borrowed): 0 when absent, else a whole number in
 * [0, 1e9]; anything else sets *bad (the count is then taken as missing, never converted). */
static long token_count(jv u, const char *k, const char **bad)
{
	jv x = jv_get_kind(u) == JV_KIND_OBJECT ? jv_object_get(jv_copy(u), jv_string(k)) : jv_invalid();
	double d;
	if (jv_get_kind(x) == JV_KIND_INVALID || jv_get_kind(x) == JV_KIND_NULL) {
		jv_free(x);
		return 0;
	}
	d = jv_get_kind(x) == JV_KIND_NUMBER ? jv_number_value(x) : NAN;
	jv_free(x);
	if (!(d >= 0 && d <= 1e9 && d == floor(d))) {
		if (!*bad) *bad = k;
		return 0;
	}
	return (long)d;
}

/* The prompt tokens a provider's prefix cache served, by OpenAI's usage.prompt_tokens_details.
 * cached_tokens or DeepSeek's usage.prompt_cache_hit_tokens (borrowed u); 0 when neither is a
 * token count (an optional figure: never an error), at most the prompt's tokens. */
static long cached_count(jv u, long prompt)
{
	jv details = rag_json_get(jv_copy(u), "prompt_tokens_details");
	double d[2];
	int i;
	d[0] = rag_json_num(details, "cached_tokens");
	d[1] = rag_json_num(u, "prompt_cache_hit_tokens");
	jv_free(details);
	for (i = 0; i < 2; i++)
		if (d[i] >= 0 && d[i] <= 1e9 && d[i] == floor(d[i])) return (long)d[i] < prompt ? (long)d[i] : prompt;
	return 0;
}

/* r's prompt_tokens and completion_tokens from usage u (borrowed), or both 0 and r->usage_error. */
static void take_usage(req *r, jv u, int prompt_only)
{
	const char *bad = NULL;
	r->prompt_tokens = token_count(u, "prompt_tokens", &bad);
	r->completion_tokens = prompt_only ? 0 : token_count(u, "completion_tokens", &bad);
	r->cached_tokens = cached_count(u, r->prompt_tokens);
	if (bad) {
		r->prompt_tokens = r->completion_tokens = r->cached_tokens = 0;
		free(r->usage_error);
		r->usage_error = rag_xasprintf("the endpoint's usage.%s is not a token count; usage counted as missing", bad);
	}
}

/* A header's value, and each of its words, are secrets: a service that quotes the token of
 * "Bearer <token>" quotes a word. A word too short to be a credential would scrub ordinary
 * words out of replies: those under 8 characters are not. The longest first, so that a value
 * is starred out whole before its words. */
static void add_secrets(rag_strv *secrets, const char *v)
{
	const char *p = v;
	if (strlen(v) >= 8) rag_strv_push(secrets, rag_xstrdup(v));
	while (*p) {
		size_t n;
		p += strspn(p, " \t,;");
		n = strcspn(p, " \t,;");
		if (n >= 8 && n < strlen(v)) rag_strv_push(secrets, rag_xstrndup(p, n));
		p += n;
	}
}

/* Headers as a cache key holds them: each by its name and a hash of its value, so that the key
 * changes with a value and holds none. */
static jv headers_hashed(const rag_kv *h, size_t n)
{
	jv hs = jv_array();
	size_t i;
	char hex[65];
	for (i = 0; i < n; i++) {
		rag_sha256_hex(h[i].value, strlen(h[i].value), hex);
		hs = jv_array_append(hs, JV_ARRAY(jv_string(h[i].key), jv_string(hex)));
	}
	return hs;
}

const char *rag_llm_base_url(const rag_config *cfg, int embeddings)
{
	if (embeddings && cfg->embeddings.base_url && *cfg->embeddings.base_url) return cfg->embeddings.base_url;
	return cfg->llm.base_url ? cfg->llm.base_url : RAG_LLM_DEFAULT_BASE_URL;
}

/* The URL requests of one kind go to (what: "chat/completions", "embeddings"): the endpoint
 * (trimmed), the provider's route, then the query (azure's api-version first). Azure (its
 * reference): the classic route https://RES.openai.azure.com/openai/deployments/DEPLOYMENT/WHAT
 * ?api-version=V, or with no deployment the v1 route .../openai/v1/WHAT (an endpoint that
 * names it already is taken as it is). Any other provider: the endpoint and WHAT. */
static char *endpoint_url(const char *endpoint, int azure, const char *deployment, const char *api_version,
                          const rag_kv *q, size_t nq, const char *what)
{
	rag_buf b = {0};
	size_t i, el = strlen(endpoint);
	int first = 1;
	rag_buf_adds(&b, endpoint);
	if (azure && deployment) {
		char *d = curl_easy_escape(NULL, deployment, 0);
		rag_buf_addf(&b, "/openai/deployments/%s", d ? d : "");
		curl_free(d);
	} else if (azure && !(el >= 10 && !strcmp(endpoint + el - 10, "/openai/v1"))) {
		rag_buf_adds(&b, "/openai/v1");
	}
	rag_buf_addf(&b, "/%s", what);
	if (azure && deployment && api_version) {
		char *v = curl_easy_escape(NULL, api_version, 0);
		rag_buf_addf(&b, "?api-version=%s", v ? v : "");
		curl_free(v);
		first = 0;
	}
	for (i = 0; i < nq; i++) {
		char *k = curl_easy_escape(NULL, q[i].key, 0), *v = curl_easy_escape(NULL, q[i].value, 0);
		rag_buf_addf(&b, "%s%s=%s", first ? (strchr(endpoint, '?') ? "&" : "?") : "&", k ? k : "", v ? v : "");
		curl_free(k);
		curl_free(v);
		first = 0;
	}
	return b.p;
}

/* One kind's header lines: the key's, as the provider takes it (azure: api-key; else
 * Authorization: Bearer), unless a configured header of that name replaces it, then the
 * configured ones; their values are secrets. And what its cache key holds beyond the body. */
static void kind_headers(rag_llm *l, int k, int azure, const char *key, const rag_kv *h, size_t nh,
                         const char *url, const char *plain_url)
{
	const char *name = azure ? "api-key" : "Authorization";
	size_t i;
	int mine = 1;
	for (i = 0; i < nh; i++) mine &= strcasecmp(h[i].key, name) != 0;
	if (key && *key && mine)
		rag_strv_push(&l->hdrs[k], azure ? rag_xasprintf("api-key: %s", key)
		                                 : rag_xasprintf("Authorization: Bearer %s", key));
	for (i = 0; i < nh; i++) {
		rag_strv_push(&l->hdrs[k], rag_xasprintf("%s: %s", h[i].key, h[i].value));
		add_secrets(&l->secrets, h[i].value);
	}
	/* a plain configuration keeps the keys it always had */
	l->keyed[k] = jv_null();
	if (strcmp(url, plain_url) || nh) {
		l->keyed[k] = JV_OBJECT(jv_string("url"), jv_string(url));
		if (nh) l->keyed[k] = jv_object_set(l->keyed[k], jv_string("headers"), headers_hashed(h, nh));
	}
}

/* The batch route's URLs (rag-config(5) BATCH): OpenAI's ENDPOINT/files and ENDPOINT/batches (and
 * DashScope's compatible mode, the same under its endpoint); Azure's classic ENDPOINT/openai/files
 * ?api-version=V (a batch names no deployment in its path: the lines' body's model does) or
 * its v1 route ENDPOINT/openai/v1/files. The configured query after each. */
static void batch_setup(rag_llm *l, const rag_config *cfg, int azure)
{
	rag_buf q = {0};
	size_t i, el = strlen(l->endpoint);
	int first = 1;
	if (azure && cfg->llm.deployment) {
		char *v = curl_easy_escape(NULL, cfg->llm.api_version ? cfg->llm.api_version : "", 0);
		l->batch_base = rag_xasprintf("%s/openai", l->endpoint);
		rag_buf_addf(&q, "?api-version=%s", v ? v : "");
		curl_free(v);
		first = 0;
	} else if (azure && !(el >= 10 && !strcmp(l->endpoint + el - 10, "/openai/v1"))) {
		l->batch_base = rag_xasprintf("%s/openai/v1", l->endpoint);
	} else {
		l->batch_base = rag_xstrdup(l->endpoint);
	}
	for (i = 0; i < cfg->llm.nquery; i++) {
		char *k = curl_easy_escape(NULL, cfg->llm.query[i].key, 0), *v = curl_easy_escape(NULL, cfg->llm.query[i].value, 0);
		rag_buf_addf(&q, "%s%s=%s", first ? "?" : "&", k ? k : "", v ? v : "");
		curl_free(k);
		curl_free(v);
		first = 0;
	}
	rag_buf_add(&q, "", 1);
	l->batch_query = q.p;
	l->batch_azure = azure;
	l->batch_model = rag_xstrdup(azure && cfg->llm.deployment ? cfg->llm.deployment : l->model);
}

/* The provider's URLs, headers and request settings (rag-config(5) PROVIDERS). Embeddings take
 * llm's headers and query only when they go to llm's endpoint: a header is a credential, never
 * sent to another host than the one it was configured for. */
static void provider_setup(rag_llm *l, const rag_config *cfg)
{
	const char *ep = cfg->embeddings.provider && *cfg->embeddings.provider ? cfg->embeddings.provider
	                 : cfg->llm.provider;
	int azure = cfg->llm.provider && !strcmp(cfg->llm.provider, "azure");
	int eazure = ep && !strcmp(ep, "azure"), same = !strcmp(l->endpoint, l->emb_endpoint);
	const rag_kv *eh = cfg->embeddings.nheaders || !same ? cfg->embeddings.headers : cfg->llm.headers;
	const rag_kv *eq = cfg->embeddings.nquery || !same ? cfg->embeddings.query : cfg->llm.query;
	size_t neh = cfg->embeddings.nheaders || !same ? cfg->embeddings.nheaders : cfg->llm.nheaders;
	size_t neq = cfg->embeddings.nquery || !same ? cfg->embeddings.nquery : cfg->llm.nquery;
	char *plain = rag_xasprintf("%s/chat/completions", l->endpoint);
	l->url = endpoint_url(l->endpoint, azure, cfg->llm.deployment, cfg->llm.api_version, cfg->llm.query,
	                      cfg->llm.nquery, "chat/completions");
	kind_headers(l, 0, azure, l->api_key, cfg->llm.headers, cfg->llm.nheaders, l->url, plain);
	free(plain);
	plain = rag_xasprintf("%s/embeddings", l->emb_endpoint);
	l->emb_url = endpoint_url(l->emb_endpoint, eazure, cfg->embeddings.deployment, cfg->llm.api_version, eq, neq,
	                          "embeddings");
	kind_headers(l, 1, eazure, l->emb_key, eh, neh, l->emb_url, plain);
	free(plain);
	batch_setup(l, cfg, azure);
	if (cfg->llm.provider && !strcmp(cfg->llm.provider, "openai-reasoning")) l->fixed |= A_MAXCOMP | A_NOTEMP;
	if (cfg->llm.max_tokens_param && !strcmp(cfg->llm.max_tokens_param, "max_completion_tokens")) l->fixed |= A_MAXCOMP;
	if (isnan(cfg->llm.temperature)) l->fixed |= A_NOTEMP;
	if (cfg->llm.reasoning_effort) l->effort = rag_xstrdup(cfg->llm.reasoning_effort);
}

/* What an earlier run learned of this endpoint and model (learn), from its memo in the cache. */
static void recall(rag_llm *l)
{
	jv k = JV_OBJECT(jv_string("kind"), jv_string("adapted"), jv_string("endpoint"), jv_string(l->endpoint),
	                 jv_string("route"), jv_copy(l->keyed[0]), jv_string("model"), jv_string(l->model));
	jv d = jv_dump_string(k, JV_PRINT_SORTED);
	char *val = NULL;
	size_t len = 0;
	rag_sha256_hex(jv_string_value(d), strlen(jv_string_value(d)), l->memo_key);
	jv_free(d);
	if (l->cache_mode != RAG_CACHE_OFF && rag_cache_get(l->cache, l->memo_key, &val, &len) == 1) {
		jv m = jv_parse_sized(val, (int)len);
		double f = rag_json_num(m, "adapted");
		if (f >= 0 && f < 8 && f == floor(f)) l->learned = (int)f;
		jv_free(m);
	}
	free(val);
}

rag_llm *rag_llm_new(const rag_config *cfg, rag_cache *cache, char *err, size_t errlen)
{
	static int global_init;
	rag_llm *l;
	const char *base = rag_llm_base_url(cfg, 0);
	size_t bl = strlen(base);

	if (!global_init) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
			snprintf(err, errlen, "cannot initialise libcurl");
			return NULL;
		}
		global_init = 1;
	}
	l = rag_xmalloc(sizeof *l);
	memset(l, 0, sizeof *l);
	l->keyed[0] = l->keyed[1] = jv_null();
	l->multi = curl_multi_init();
	if (!l->multi) {
		free(l);
		snprintf(err, errlen, "cannot initialise libcurl");
		return NULL;
	}
	while (bl > 0 && base[bl - 1] == '/') bl--;
	l->endpoint = rag_xstrndup(base, bl);
	l->model = rag_xstrdup(cfg->llm.model && *cfg->llm.model ? cfg->llm.model : "gpt-4o-mini");
	if (cfg->llm.api_key && *cfg->llm.api_key) l->api_key = rag_xstrdup(cfg->llm.api_key);
	/* embeddings: their own endpoint, model and key where set, else those of llm */
	{
		const char *eb = rag_llm_base_url(cfg, 1);
		size_t el = strlen(eb);
		const char *key = cfg->embeddings.api_key && *cfg->embeddings.api_key ? cfg->embeddings.api_key
		                  : cfg->llm.api_key;
		while (el > 0 && eb[el - 1] == '/') el--;
		l->emb_endpoint = rag_xstrndup(eb, el);
		l->emb_model = rag_xstrdup(cfg->embeddings.model && *cfg->embeddings.model ? cfg->embeddings.model
		                           : "text-embedding-3-small");
		l->emb_dims = cfg->embeddings.dimensions > 0 ? cfg->embeddings.dimensions : 0;
		if (key && *key) l->emb_key = rag_xstrdup(key);
	}
	provider_setup(l, cfg);
	l->temperature = cfg->llm.temperature;
	l->seed = cfg->llm.seed;
	l->has_seed = cfg->llm.has_seed;
	l->max_tokens = cfg->llm.max_tokens > 0 ? cfg->llm.max_tokens : 2048;
	l->json_mode = cfg->llm.json_mode;
	l->retries = cfg->llm.retries >= 0 ? cfg->llm.retries : 0;
	l->concurrency = cfg->llm.concurrency > 0 ? cfg->llm.concurrency : 8;
	l->limit = l->low = l->concurrency;
	l->adaptive = cfg->llm.adaptive;
	l->slot_fd = -1;
	l->collect_fd = -1;
	if (cfg->llm.batch_collect) {
		l->collect_fd = open(cfg->llm.batch_collect, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		if (l->collect_fd < 0) {
			snprintf(err, errlen, "cannot open the batch's requests file %s: %s", cfg->llm.batch_collect,
			         strerror(errno));
			rag_llm_free(l);
			return NULL;
		}
	}
	if (cfg->llm.inflight_file && *cfg->llm.inflight_file) {
		l->slot_fd = open(cfg->llm.inflight_file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (l->slot_fd < 0) {
			snprintf(err, errlen, "cannot open the shared request budget %s: %s", cfg->llm.inflight_file,
			         strerror(errno));
			curl_multi_cleanup(l->multi);
			l->slot_fd = -1;
			rag_llm_free(l);
			return NULL;
		}
		l->held = rag_xmalloc((size_t)l->concurrency);
		memset(l->held, 0, (size_t)l->concurrency);
	}
	l->timeout_ms = (long)((cfg->llm.timeout > 0 ? cfg->llm.timeout : 60) * 1000);
	l->deadline = cfg->llm.deadline > 0 ? cfg->llm.deadline : 0;
	l->rate.rpm = cfg->llm.rpm;
	l->rate.tpm = cfg->llm.tpm;
	l->cache = cache;
	l->cache_mode = cache ? rag_cache_mode(cache) : RAG_CACHE_OFF;
	recall(l);
	l->rng = 2463534242u;
	curl_multi_setopt(l->multi, CURLMOPT_MAXCONNECTS, (long)l->concurrency + 2);
	return l;
}

/* response_format: the reply's JSON Schema when llm.json_mode is schema and the caller has one,
 * else a JSON object unless llm.json_mode is off (an endpoint that refused a schema: adapt). */
static jv response_format(const rag_llm *l, const char *name, const char *schema)
{
	jv sch = schema && l->json_mode == RAG_JSON_SCHEMA ? jv_parse(schema) : jv_invalid();
	if (jv_get_kind(sch) == JV_KIND_OBJECT) {
		return JV_OBJECT(jv_string("type"), jv_string("json_schema"), jv_string("json_schema"),
		                 JV_OBJECT(jv_string("name"), jv_string(name && *name ? name : "reply"),
		                           jv_string("strict"), jv_true(), jv_string("schema"), sch));
	}
	jv_free(sch);
	return JV_OBJECT(jv_string("type"), jv_string("json_object"));
}

/* A chat request's body (consumed) as the adaptations in flags make it (A_*): the one place
 * where a request is changed for an endpoint, for a new request and for one made before the
 * endpoint's refusal alike. */
static jv adapted_body(jv o, int flags)
{
	jv rf = rag_json_get(jv_copy(o), "response_format"), t = rag_json_get(rf, "type");
	if ((flags & A_OBJECT) && jv_get_kind(t) == JV_KIND_STRING && !strcmp(jv_string_value(t), "json_schema"))
		o = jv_object_set(o, jv_string("response_format"), JV_OBJECT(jv_string("type"), jv_string("json_object")));
	jv_free(t);
	if ((flags & A_MAXCOMP) && jv_object_has(jv_copy(o), jv_string("max_tokens"))) {
		jv m = jv_object_get(jv_copy(o), jv_string("max_tokens"));
		o = jv_object_set(jv_object_delete(o, jv_string("max_tokens")), jv_string("max_completion_tokens"), m);
	}
	if ((flags & A_NOTEMP) && jv_object_has(jv_copy(o), jv_string("temperature")))
		o = jv_object_delete(o, jv_string("temperature"));
	return o;
}

/* JSON mode needs the word: OpenAI's json_object, and DashScope's compatible mode (Qwen), which
 * checks a json_schema as a json_object, refuse with HTTP 400 a request none of whose messages
 * says "json" ("'messages' must contain the word 'json' in some form, to use 'response_format'
 * of type 'json_object'."). The installed prompts all say it; a prompt of one's own that does
 * not gets JSON_LINE at the end of its first system message, or as a system message first. */
#define JSON_LINE "Reply in JSON."
static jv json_word(jv messages)
{
	jv out;
	int i, n = jv_array_length(jv_copy(messages)), sys = -1;
	for (i = 0; i < n; i++) {
		jv m = jv_array_get(jv_copy(messages), i), role = rag_json_get(jv_copy(m), "role");
		jv c = rag_json_get(m, "content");
		int says = jv_get_kind(c) == JV_KIND_STRING && strcasestr(jv_string_value(c), "json");
		if (sys < 0 && jv_get_kind(role) == JV_KIND_STRING && !strcmp(jv_string_value(role), "system") &&
		    jv_get_kind(c) == JV_KIND_STRING)
			sys = i;
		jv_free(role);
		jv_free(c);
		if (says) return messages;
	}
	if (sys >= 0) {
		jv m = jv_array_get(jv_copy(messages), sys), c = rag_json_get(jv_copy(m), "content");
		jv t = jv_string_fmt("%s\n\n" JSON_LINE, jv_string_value(c));
		jv_free(c);
		return jv_array_set(messages, sys, jv_object_set(m, jv_string("content"), t));
	}
	out = JV_ARRAY(JV_OBJECT(jv_string("role"), jv_string("system"), jv_string("content"), jv_string(JSON_LINE)));
	return jv_array_concat(out, messages);
}

/* Everything that changes the answer, and nothing secret. Canonical: jv dumps with sorted keys. */
static jv request_json(rag_llm *l, jv messages, const rag_llm_opts *opts)
{
	jv o = jv_object();
	int n = opts->n > 1 ? opts->n : 1;
	int json = l->json_mode != RAG_JSON_OFF && !opts->plain;
	o = jv_object_set(o, jv_string("model"), jv_string(l->model));
	o = jv_object_set(o, jv_string("messages"), json ? json_word(messages) : messages);
	if (n > 1) o = jv_object_set(o, jv_string("n"), jv_number(n));
	o = jv_object_set(o, jv_string("temperature"), jv_number(l->temperature));
	o = jv_object_set(o, jv_string("max_tokens"), jv_number(opts->max_tokens > 0 ? opts->max_tokens : l->max_tokens));
	/* repeat i of a question asks with seed + i: a seeded endpoint gives each its own sample */
	if (l->has_seed) o = jv_object_set(o, jv_string("seed"), jv_number((double)l->seed + (opts->repeat > 0 ? opts->repeat : 0)));
	if (l->effort) o = jv_object_set(o, jv_string("reasoning_effort"), jv_string(l->effort));
	if (json)
		o = jv_object_set(o, jv_string("response_format"), response_format(l, opts->schema_name, opts->schema));
	return adapted_body(o, l->fixed | l->learned);
}

static void push(req **head, req **tail, req *r)
{
	r->next = NULL;
	if (*tail) (*tail)->next = r; else *head = r;
	*tail = r;
}

static void finish(rag_llm *l, req *r)
{
	push(&l->done, &l->done_tail, r);
}

/* The chat request's body (consumed) and what follows from it: the text sent, the token
 * estimate and the cache key, which is the body as sent (the response_format and the
 * adaptations too: a request adapted otherwise is another request), the endpoint, and the URL
 * and the configured headers' hashes where there are such. */
static void set_body(rag_llm *l, req *r, jv body)
{
	jv keyed, rf = rag_json_get(jv_copy(body), "response_format"), t = rag_json_get(rf, "type");
	jv dumped = jv_dump_string(jv_copy(body), 0);
	r->schema = jv_get_kind(t) == JV_KIND_STRING && !strcmp(jv_string_value(t), "json_schema");
	r->adapted = l->fixed | l->learned;
	jv_free(t);
	free(r->body);
	r->body = rag_xstrdup(jv_string_value(dumped));
	r->est_tokens = (long)(strlen(r->body) / 4) + l->max_tokens;
	jv_free(dumped);
	keyed = jv_object_set(body, jv_string("endpoint"), jv_string(l->endpoint));
	if (jv_get_kind(l->keyed[0]) == JV_KIND_OBJECT) keyed = jv_object_set(keyed, jv_string("route"), jv_copy(l->keyed[0]));
	/* without a seed, repeats are the same request: the key still tells them apart */
	if (r->repeat > 0) keyed = jv_object_set(keyed, jv_string("repeat"), jv_number(r->repeat));
	dumped = jv_dump_string(keyed, JV_PRINT_SORTED);
	rag_sha256_hex(jv_string_value(dumped), strlen(jv_string_value(dumped)), r->key);
	jv_free(dumped);
}

/* A request made before the endpoint refused what it asks: made again as the endpoint now
 * takes it, under the key of what it now asks. */
static void readapt(rag_llm *l, req *r)
{
	set_body(l, r, adapted_body(jv_parse(r->body), l->fixed | l->learned));
}

/* A cache entry's choices (entry borrowed): none, or a non-empty array of strings; anything
 * else is a damaged entry (a file of another shape), a miss. */
static int cached_choices_ok(jv entry)
{
	jv ch = rag_json_get(jv_copy(entry), "choices");
	int ok = !jv_is_valid(ch);
	if (jv_get_kind(ch) == JV_KIND_ARRAY && jv_array_length(jv_copy(ch)) > 0) {
		ok = 1;
		jv_array_foreach(ch, i, x) {
			ok &= jv_get_kind(x) == JV_KIND_STRING;
			jv_free(x);
		}
	}
	jv_free(ch);
	return ok;
}

/* scrub_jv over each string of an array (consumed); anything else as it is */
static jv scrub_jv_all(const rag_llm *l, jv a)
{
	jv out;
	if (jv_get_kind(a) != JV_KIND_ARRAY) return a;
	out = jv_array();
	jv_array_foreach(a, i, x) out = jv_array_append(out, scrub_jv(l, x));
	jv_free(a);
	return out;
}

static int has_string(jv v, const char *k)
{
	jv x = rag_json_get(jv_copy(v), k);
	int yes = jv_get_kind(x) == JV_KIND_STRING;
	jv_free(x);
	return yes;
}

/* A reply a batch answered (its entry v, borrowed, marked "batch": batch.c) is the call the batch
 * made, not a cache hit: its usage counts as a call's, so that the records of a run through the
 * batch route are those of a run that sent each request; committed, the entry loses its mark, so
 * that a later run reads it as any cached reply. */
static void batch_answered(rag_llm *l, req *r, jv v)
{
	jv d;
	r->cached = 0;
	l->usage.calls++;
	if (l->cache_mode != RAG_CACHE_RW) return;
	d = jv_dump_string(jv_object_delete(jv_copy(v), jv_string("batch")), JV_PRINT_SORTED);
	free(r->entry);
	r->entry = rag_xstrdup(jv_string_value(d));
	jv_free(d);
}

/* A chat request answered from the cache, or a miss in replay mode answered with its error: 1
 * (for the caller to finish), else 0 (a miss to send; a damaged entry is a miss). */
static int chat_cached(rag_llm *l, req *r)
{
	char *val = NULL;
	size_t len = 0;
	jv v, c;
	if (l->cache_mode == RAG_CACHE_OFF || (r->fresh && l->cache_mode != RAG_CACHE_REPLAY)) return 0;
	if (rag_cache_get(l->cache, r->key, &val, &len) == 1) {
		v = jv_parse_sized(val, (int)len);
		c = rag_json_get(jv_copy(v), "content");
		free(val);
		if (jv_get_kind(c) == JV_KIND_STRING && cached_choices_ok(v)) {
			jv fr = rag_json_get(jv_copy(v), "finish_reason");
			jv u = rag_json_get(jv_copy(v), "usage");
			r->content = scrub(l, rag_xstrdup(jv_string_value(c)));
			r->finish_reason = rag_xstrdup(jv_get_kind(fr) == JV_KIND_STRING ? jv_string_value(fr) : "stop");
			take_usage(r, u, 0);
			jv_free(u);
			r->cached = 1;
			if (has_string(v, "batch")) batch_answered(l, r, v);
			if (r->n > 1) {
				jv_free(r->choices);
				r->choices = scrub_jv_all(l, rag_json_get(jv_copy(v), "choices"));
				if (jv_get_kind(r->choices) != JV_KIND_ARRAY) {
					jv_free(r->choices);
					r->choices = jv_array_append(jv_array(), jv_string(r->content));
				}
			}
			jv_free(fr);
			jv_free(c);
			jv_free(v);
			return 1;
		}
		jv_free(c);
		jv_free(v);
	}
	if (l->cache_mode == RAG_CACHE_REPLAY) {
		r->error = rag_xasprintf("cache miss in replay mode (key %.12s...): run once with the cache "
		                         "in read-write mode to record it", r->key);
		return 1;
	}
	return 0;
}

/* A stage run to collect a batch's requests (RAG_BATCH_COLLECT): the request the cache did not
 * answer becomes a line of the batch's input, {custom_id: its cache key, method, url, body}
 * (Azure: its route and the deployment as the model), one write a line, and is answered with
 * RAG_BATCH_COLLECTED instead of being sent. The body holds no key: headers are not in it. The
 * line carries the request's estimate too ("estimate": [prompt tokens, completion tokens]), which
 * rag-eval weighs a spending cap by and takes off before the line goes up. */
static void collect(rag_llm *l, req *r)
{
	jv body = jv_parse(r->body), line;
	if (l->batch_azure) body = jv_object_set(body, jv_string("model"), jv_string(l->batch_model));
	line = JV_OBJECT(jv_string("custom_id"), jv_string(r->key), jv_string("method"), jv_string("POST"),
	                 jv_string("url"), jv_string(l->batch_azure ? "/chat/completions" : "/v1/chat/completions"),
	                 jv_string("body"), body);
	line = jv_object_set(line, jv_string("estimate"), JV_ARRAY(jv_number(r->est_prompt), jv_number(r->est_completion)));
	line = jv_dump_string(line, 0);
	{
		char *text = rag_xasprintf("%s\n", jv_string_value(line));
		if (rag_write_all(l->collect_fd, text, strlen(text)) < 0)
			r->error = rag_xasprintf("cannot write the batch's requests: %s", strerror(errno));
		free(text);
	}
	jv_free(line);
	if (!r->error) r->error = rag_xstrdup(RAG_BATCH_COLLECTED);
}

void rag_llm_ask(rag_llm *l, jv messages, const rag_llm_opts *o, rag_llm_cb cb, void *arg)
{
	req *r = rag_xmalloc(sizeof *r);
	int n = o->n > 1 ? o->n : 1;
	memset(r, 0, sizeof *r);
	r->n = n;
	r->repeat = o->repeat > 0 ? o->repeat : 0;
	r->fresh = o->fresh;
	r->choices = jv_null();
	r->cb = cb;
	r->arg = arg;
	r->url = l->url;
	r->hdrs = &l->hdrs[0];
	r->est_prompt = o->est_prompt_tokens;
	r->est_completion = o->est_completion_tokens;
	r->at = o->at;
	set_body(l, r, request_json(l, messages, o));
	if (chat_cached(l, r)) {
		finish(l, r);
		return;
	}
	if (l->collect_fd >= 0) {
		collect(l, r);
		finish(l, r);
		return;
	}
	if (l->dead[0]) {
		r->error = rag_xstrdup(l->dead[0]);
		finish(l, r);
		return;
	}
	push(&l->queue, &l->queue_tail, r);
}

void rag_llm_commit(rag_llm *l, const rag_llm_reply *rep)
{
	req *r = rep->req_;
	char cerr[RAG_ERRLEN];
	if (!r || !r->entry) return;
	/* a cache that cannot be written costs speed, not results */
	if (l->cache_mode == RAG_CACHE_RW)
		(void)rag_cache_put(l->cache, r->key, r->entry, strlen(r->entry), cerr, sizeof cerr);
	free(r->entry);
	r->entry = NULL;
}

/* ------------------------------------------------------------------ generic HTTP */

static int is_sse(const req *r)
{
	if (r->sse >= 0) return r->sse;
	return r->ctype && !strncasecmp(r->ctype, "text/event-stream", 17);
}

/* A 2xx reply to a generic request: the body (its secrets scrubbed), its events when it is a
 * stream, and the cache entry kept for rag_llm_commit. */
static void http_reply(rag_llm *l, req *r)
{
	free(r->content);
	r->content = scrub_req(l, r, rag_xstrndup(r->resp.p ? r->resp.p : "", r->resp.len));
	jv_free(r->events);
	if (is_sse(r)) {
		/* a stream that is not whole (cut mid-event, no [DONE]) is no answer: a 200 that is
		 * final, as a cut JSON body is, never text made of its pieces */
		char err[RAG_ERRLEN];
		r->events = rag_wire_sse(r->content, strlen(r->content), err, sizeof err);
		if (!jv_is_valid(r->events)) {
			jv_free(r->events);
			r->events = jv_null();
			r->error = rag_xstrdup(err);
			return;
		}
	} else {
		r->events = jv_null();
	}
	if (l->cache_mode == RAG_CACHE_RW) {
		jv e = JV_OBJECT(jv_string("status"), jv_number((double)r->status), jv_string("body"),
		                 jv_string(r->content), jv_string("seconds"), jv_number(r->seconds));
		jv d;
		if (r->ctype) e = jv_object_set(e, jv_string("content_type"), jv_string(r->ctype));
		d = jv_dump_string(e, JV_PRINT_SORTED);
		free(r->entry);
		r->entry = scrub_req(l, r, rag_xstrdup(jv_string_value(d)));
		jv_free(d);
	}
}

/* The cache key of a generic request: method, URL, body, and each header by its name and a
 * hash of its value, so that the key changes with a header's value and no value is kept. */
static void http_key(const rag_http_req *q, const char *method, char key[65])
{
	jv o = jv_object(), hs = headers_hashed(q->headers, q->nheaders), d;
	o = jv_object_set(o, jv_string("kind"), jv_string("http"));
	o = jv_object_set(o, jv_string("method"), jv_string(method));
	o = jv_object_set(o, jv_string("url"), jv_string(q->url));
	o = jv_object_set(o, jv_string("headers"), hs);
	o = jv_object_set(o, jv_string("body"), q->body ? jv_string(q->body) : jv_null());
	o = jv_object_set(o, jv_string("sse"), jv_number(q->sse));
	d = jv_dump_string(o, JV_PRINT_SORTED);
	rag_sha256_hex(jv_string_value(d), strlen(jv_string_value(d)), key);
	jv_free(d);
}

/* A cached reply (the entry val, borrowed) into r: 0, or -1 for a damaged entry (a miss). */
static int http_cached(rag_llm *l, req *r, const char *val, size_t len)
{
	jv v = jv_parse_sized(val, (int)len);
	jv b = rag_json_get(jv_copy(v), "body");
	jv ct = rag_json_get(jv_copy(v), "content_type");
	double st = rag_json_num(v, "status"), secs = rag_json_num(v, "seconds");
	int ok = jv_get_kind(b) == JV_KIND_STRING && st >= 200 && st < 300;
	if (ok) {
		r->content = scrub_req(l, r, rag_xstrdup(jv_string_value(b)));
		r->status = (long)st;
		r->seconds = isfinite(secs) ? secs : 0;
		if (jv_get_kind(ct) == JV_KIND_STRING) r->ctype = rag_xstrdup(jv_string_value(ct));
		r->events = is_sse(r) ? rag_wire_sse(r->content, strlen(r->content), NULL, 0) : jv_null();
		r->cached = 1;
		if (!jv_is_valid(r->events)) {
			/* never stored so: a damaged entry */
			jv_free(r->events);
			r->events = jv_null();
			free(r->content);
			free(r->ctype);
			r->content = r->ctype = NULL;
			r->cached = 0;
			ok = 0;
		}
	}
	jv_free(b);
	jv_free(ct);
	jv_free(v);
	return ok ? 0 : -1;
}

void rag_llm_http(rag_llm *l, const rag_http_req *q, rag_llm_cb cb, void *arg)
{
	req *r = rag_xmalloc(sizeof *r);
	size_t i;
	const char *method = q->method && *q->method ? q->method : q->body ? "POST" : "GET";
	memset(r, 0, sizeof *r);
	r->kind = K_HTTP;
	r->n = 1;
	r->choices = jv_null();
	r->events = jv_null();
	r->cb = cb;
	r->arg = arg;
	r->own_url = rag_xstrdup(q->url);
	r->url = r->own_url;
	r->method = rag_xstrdup(method);
	r->sse = q->sse;
	if (q->body) r->body = rag_xstrdup(q->body);
	r->est_tokens = 0;
	r->headers = curl_slist_append(NULL, "Expect:");
	if (q->body) {
		int typed = 0;
		for (i = 0; i < q->nheaders; i++) typed |= !strcasecmp(q->headers[i].key, "content-type");
		if (!typed) r->headers = curl_slist_append(r->headers, "Content-Type: application/json");
	}
	for (i = 0; i < q->nheaders; i++) {
		char *h = rag_xasprintf("%s: %s", q->headers[i].key, q->headers[i].value);
		r->headers = curl_slist_append(r->headers, h);
		free(h);
		add_secrets(&r->secrets, q->headers[i].value);
	}
	http_key(q, method, r->key);
	if (l->cache_mode != RAG_CACHE_OFF && !(q->fresh && l->cache_mode != RAG_CACHE_REPLAY)) {
		char *val = NULL;
		size_t len = 0;
		if (rag_cache_get(l->cache, r->key, &val, &len) == 1 && http_cached(l, r, val, len) == 0) {
			free(val);
			finish(l, r);
			return;
		}
		free(val);
		if (l->cache_mode == RAG_CACHE_REPLAY) {
			r->error = rag_xasprintf("cache miss in replay mode (key %.12s...): run once with the cache "
			                         "in read-write mode to record it", r->key);
			finish(l, r);
			return;
		}
	}
	if (l->dead[K_HTTP]) {
		r->error = rag_xstrdup(l->dead[K_HTTP]);
		finish(l, r);
		return;
	}
	push(&l->queue, &l->queue_tail, r);
}

/* ------------------------------------------------------------------ embeddings */

/* One text's cache key: everything that changes its vector, and nothing secret. */
static void embed_key(const rag_llm *l, jv text, char key[65])
{
	jv o = jv_object(), d;
	o = jv_object_set(o, jv_string("kind"), jv_string("embeddings"));
	o = jv_object_set(o, jv_string("endpoint"), jv_string(l->emb_endpoint));
	o = jv_object_set(o, jv_string("model"), jv_string(l->emb_model));
	if (l->emb_dims) o = jv_object_set(o, jv_string("dimensions"), jv_number(l->emb_dims));
	if (jv_get_kind(l->keyed[1]) == JV_KIND_OBJECT) o = jv_object_set(o, jv_string("route"), jv_copy(l->keyed[1]));
	o = jv_object_set(o, jv_string("input"), text);
	d = jv_dump_string(o, JV_PRINT_SORTED);
	rag_sha256_hex(jv_string_value(d), strlen(jv_string_value(d)), key);
	jv_free(d);
}

/* borrowed */
static int vector_dim(jv v)
{
	return jv_array_length(jv_copy(v));
}

void rag_llm_embed(rag_llm *l, jv texts, rag_llm_cb cb, void *arg)
{
	req *r = rag_xmalloc(sizeof *r);
	int i, n = jv_array_length(jv_copy(texts));
	jv input = jv_array(), body, dumped;
	memset(r, 0, sizeof *r);
	r->embed = 1;
	r->kind = K_EMBED;
	r->cb = cb;
	r->arg = arg;
	r->url = l->emb_url;
	r->hdrs = &l->hdrs[1];
	r->texts = texts;
	r->vectors = jv_array();
	r->keys = rag_xmalloc((size_t)(n ? n : 1) * sizeof *r->keys);
	r->miss = rag_xmalloc((size_t)(n ? n : 1) * sizeof *r->miss);
	for (i = 0; i < n; i++) {
		jv t = jv_array_get(jv_copy(texts), i), vec = jv_null();
		char *val = NULL;
		size_t len = 0;
		embed_key(l, jv_copy(t), r->keys[i]);
		if (l->cache_mode != RAG_CACHE_OFF && rag_cache_get(l->cache, r->keys[i], &val, &len) == 1) {
			jv v = jv_parse_sized(val, (int)len);
			jv e = rag_json_get(v, "embedding");
			free(val);
			/* a damaged entry, or one of another size, is a miss */
			if (rag_wire_vector_ok(e) && (!l->emb_dims || vector_dim(e) == l->emb_dims)) vec = e;
			else jv_free(e);
		}
		if (jv_get_kind(vec) == JV_KIND_NULL) {
			r->miss[r->nmiss++] = i;
			input = jv_array_append(input, t);
		} else {
			jv_free(t);
		}
		r->vectors = jv_array_append(r->vectors, vec);
	}
	l->usage.cache_hits += n - r->nmiss;
	if (r->nmiss == 0) {
		jv_free(input);
		r->cached = 1;
		finish(l, r);
		return;
	}
	if (l->cache_mode == RAG_CACHE_REPLAY) {
		jv_free(input);
		r->error = rag_xasprintf("cache miss in replay mode (%d of %d texts not embedded yet, key %.12s...): "
		                         "run once with the cache in read-write mode to record them",
		                         r->nmiss, n, r->keys[r->miss[0]]);
		finish(l, r);
		return;
	}
	if (l->dead[1]) {
		jv_free(input);
		r->error = rag_xstrdup(l->dead[1]);
		finish(l, r);
		return;
	}
	body = jv_object();
	body = jv_object_set(body, jv_string("model"), jv_string(l->emb_model));
	body = jv_object_set(body, jv_string("input"), input);
	if (l->emb_dims) body = jv_object_set(body, jv_string("dimensions"), jv_number(l->emb_dims));
	dumped = jv_dump_string(body, 0);
	r->body = rag_xstrdup(jv_string_value(dumped));
	jv_free(dumped);
	r->est_tokens = (long)(strlen(r->body) / 4);
	push(&l->queue, &l->queue_tail, r);
}

const char *rag_llm_model(const rag_llm *l)
{
	return l->model;
}

const char *rag_llm_embed_model(const rag_llm *l)
{
	return l->emb_model;
}

/* data[] of an embeddings reply: one vector per text sent, each at its "index", all of one size
 * (the configured dimensions when set); else r->error, and no vector is kept. */
static void embed_reply(rag_llm *l, req *r)
{
	char err[RAG_ERRLEN];
	jv u, got = rag_wire_embed(r->resp.p ? r->resp.p : "", r->resp.len, r->nmiss, l->emb_dims, &u, err, sizeof err);
	int i, n = r->nmiss;
	if (!jv_is_valid(got)) {
		jv_free(got);
		jv_free(u);
		r->error = rag_xstrdup(err);
		return;
	}
	l->usage.calls++;
	take_usage(r, u, 1);
	jv_free(u);
	for (i = 0; i < n; i++) {
		jv e = jv_array_get(jv_copy(got), i);
		int t = r->miss[i];
		/* earlier vectors (cache) must have the same size as the new ones */
		int j;
		for (j = 0; j < jv_array_length(jv_copy(r->vectors)) && !r->error; j++) {
			jv o = jv_array_get(jv_copy(r->vectors), j);
			if (jv_get_kind(o) == JV_KIND_ARRAY && vector_dim(o) != vector_dim(e))
				r->error = rag_xasprintf("dimension mismatch: a cached vector has %d numbers, the reply %d",
				                         vector_dim(o), vector_dim(e));
			jv_free(o);
		}
		if (l->cache_mode == RAG_CACHE_RW) {
			jv ent = JV_OBJECT(jv_string("embedding"), jv_copy(e), jv_string("model"), jv_string(l->emb_model));
			jv dd = jv_dump_string(ent, JV_PRINT_SORTED);
			char cerr[RAG_ERRLEN];
			(void)rag_cache_put(l->cache, r->keys[t], jv_string_value(dd), strlen(jv_string_value(dd)),
			                    cerr, sizeof cerr);
			jv_free(dd);
		}
		r->vectors = jv_array_set(r->vectors, t, e);
	}
	jv_free(got);
}

const rag_usage *rag_llm_usage(const rag_llm *l)
{
	return &l->usage;
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	req *r = arg;
	size_t len = size * n;
	if (r->resp.len + len > (size_t)64 << 20) return 0;   /* no reply is that large */
	rag_buf_add(&r->resp, p, len);
	return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	req *r = arg;
	size_t len = size * n;
	if (r->kind == K_HTTP && len > 13 && strncasecmp(p, "content-type:", 13) == 0) {
		size_t a = 13, b = len;
		while (a < b && (p[a] == ' ' || p[a] == '\t')) a++;
		while (b > a && (p[b - 1] == '\r' || p[b - 1] == '\n' || p[b - 1] == ' ')) b--;
		free(r->ctype);
		r->ctype = rag_xstrndup(p + a, b - a);
	}
	if (len > 12 && strncasecmp(p, "retry-after:", 12) == 0) {
		char buf[128];
		size_t m = len - 12 < sizeof buf - 1 ? len - 12 : sizeof buf - 1;
		char *end;
		double secs;
		memcpy(buf, p + 12, m);
		buf[m] = 0;
		secs = strtod(buf, &end);
		if (end != buf && secs >= 0) {
			r->retry_after = secs;
		} else {
			time_t when = curl_getdate(buf, NULL);
			if (when > 0) r->retry_after = difftime(when, time(NULL));
		}
	}
	return len;
}

static void start(rag_llm *l, req *r)
{
	CURL *e = curl_easy_init();
	r->easy = e;
	rag_buf_free(&r->resp);
	r->retry_after = 0;
	r->curl_err[0] = 0;
	if (r->kind == K_HTTP) {
		free(r->ctype);
		r->ctype = NULL;
		curl_easy_setopt(e, CURLOPT_URL, r->url);
		if (r->body) {
			curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
			curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(r->body));
		}
		if (!strcmp(r->method, "GET")) curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
		else if (strcmp(r->method, "POST") || !r->body) curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
	} else {
		curl_easy_setopt(e, CURLOPT_URL, r->url);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
	}
	if (!r->headers) {
		size_t i;
		r->headers = curl_slist_append(NULL, "Content-Type: application/json");
		r->headers = curl_slist_append(r->headers, "Expect:");
		for (i = 0; r->hdrs && i < r->hdrs->n; i++) r->headers = curl_slist_append(r->headers, r->hdrs->v[i]);
	}
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
	/* a redirect is never followed (libcurl's default, said here so that it stays): libcurl
	 * would send the custom headers, the key's among them, to whatever host it names */
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
	if (!r->t0) r->t0 = rag_now();
	{
		/* no transfer outlives the request's deadline */
		long ms = l->timeout_ms;
		r->capped = 0;
		if (l->deadline > 0) {
			double left = (r->t0 + l->deadline - rag_now()) * 1000;
			if (left < ms) {
				ms = left > 1 ? (long)left : 1;
				r->capped = 1;
			}
		}
		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, ms);
		curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, ms < 30000 ? ms : 30000L);
	}
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->curl_err);
	curl_easy_setopt(e, CURLOPT_PRIVATE, r);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "ragpipe/" RAG_VERSION);
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_multi_add_handle(l->multi, e);
	r->started = rag_now();
	r->next = l->inflight;
	l->inflight = r;
	l->running++;
	l->running_kind[r->kind]++;
}

/* 1 + a free slot of the shared budget, locked for us, or 0 when every one is held. */
static int take_slot(rag_llm *l)
{
	int i;
	for (i = 0; i < l->concurrency; i++) {
		struct flock fl;
		if (l->held[i]) continue;
		memset(&fl, 0, sizeof fl);
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		fl.l_start = i;
		fl.l_len = 1;
		if (fcntl(l->slot_fd, F_SETLK, &fl) == 0) {
			l->held[i] = 1;
			return i + 1;
		}
	}
	return 0;
}

static void give_slot(rag_llm *l, req *r)
{
	struct flock fl;
	if (!r->slot || l->slot_fd < 0) return;
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_UNLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = r->slot - 1;
	fl.l_len = 1;
	fcntl(l->slot_fd, F_SETLK, &fl);
	l->held[r->slot - 1] = 0;
	r->slot = 0;
}

/* Start what may start: free slots, rate limits, backoff. Returns seconds until the next
 * waiting request may start (0 when none is waiting on time). */
static double start_ready(rag_llm *l)
{
	double now = rag_now(), wait = 0;
	req **pp = &l->queue, *prev = NULL;
	while (*pp && l->running < l->limit) {
		req *r = *pp;
		int k = r->kind;
		double w = r->not_before - now;
		if (k == K_CHAT && r->adapted != (l->fixed | l->learned)) {
			/* made before the endpoint refused what it asks: asked as it now takes it, which
			 * the cache may hold from an earlier run */
			readapt(l, r);
			if (chat_cached(l, r)) {
				*pp = r->next;
				if (l->queue_tail == r) l->queue_tail = prev;
				finish(l, r);
				continue;
			}
		}
		if (l->suspect_at[k] > 0) {
			/* the endpoint failed to connect again and again: one probe, after a pause,
			 * before anything else of its kind is sent */
			double pw = l->suspect_at[k] + PROBE_WAIT - now;
			if (pw > w) w = pw;
			if (l->running_kind[k] > 0) w = w > 0.05 ? w : 0.05;
		}
		if (w > 0) {
			if (wait == 0 || w < wait) wait = w;
			prev = r;
			pp = &r->next;
			continue;
		}
		w = rag_rate_wait(&l->rate, r->est_tokens, now);
		if (w > 0) {
			if (wait == 0 || w < wait) wait = w;
			break;
		}
		if (l->slot_fd >= 0 && !(r->slot = take_slot(l))) {
			/* the other processes of the pipeline hold every slot: look again soon */
			if (wait == 0 || SLOT_POLL < wait) wait = SLOT_POLL;
			break;
		}
		if (k == K_CHAT && l->meter.admit && !r->metered) {
			/* the spending cap: asked once, as the first attempt is about to go (nothing waiting
			 * for a slot holds an estimate); a refusal is final */
			char msg[RAG_ERRLEN];
			if (l->meter.admit(l->meter.arg, r->at, r->est_prompt, r->est_completion, &r->held, msg, sizeof msg) < 0) {
				give_slot(l, r);
				*pp = r->next;
				if (l->queue_tail == r) l->queue_tail = prev;
				r->error = rag_xstrdup(msg);
				finish(l, r);
				continue;
			}
			r->metered = 1;
		}
		*pp = r->next;
		if (l->queue_tail == r) l->queue_tail = prev;
		rag_rate_note(&l->rate, r->est_tokens, now);
		r->probe = l->suspect_at[k] > 0;
		start(l, r);
	}
	return wait;
}

static int transient_status(long status)
{
	return status == 408 || status == 409 || status == 429 || status >= 500;
}

/* Exponential backoff with jitter, at most 30 s; the server's Retry-After wins when it asks for
 * longer, up to RETRY_AFTER_MAX (rag-config(5) says so). */
static double retry_delay(rag_llm *l, const req *r)
{
	double base = 0.5 * pow(2.0, r->attempt), jitter;
	l->rng ^= l->rng << 13;
	l->rng ^= l->rng >> 17;
	l->rng ^= l->rng << 5;
	jitter = 0.5 + (l->rng % 1000) / 1000.0;      /* 0.5 .. 1.5 */
	base *= jitter;
	if (base > 30) base = 30;
	if (r->retry_after > base) base = r->retry_after > RETRY_AFTER_MAX ? RETRY_AFTER_MAX : r->retry_after;
	return base;
}

static void schedule_retry(rag_llm *l, req *r, double delay)
{
	r->attempt++;
	r->not_before = rag_now() + delay;
	push(&l->queue, &l->queue_tail, r);
}

/* What an error reply's body says (any shape: a proxy's page, a bare string, an array), scrubbed
 * of every secret before it is cut to its length, so no part of a key is left: NULL when nothing. */
static char *server_message(const rag_llm *l, const req *r)
{
	char *body = scrub_req(l, r, rag_xstrndup(r->resp.p ? r->resp.p : "", r->resp.len));
	char *m = rag_wire_error(body, strlen(body), 0);
	free(body);
	if (m) rag_wire_clip(scrub_req(l, r, m), 160);
	return m;
}

static void stop_transfer(rag_llm *l, req *r)
{
	req **pp;
	for (pp = &l->inflight; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	curl_multi_remove_handle(l->multi, r->easy);
	curl_easy_cleanup(r->easy);
	r->easy = NULL;
	give_slot(l, r);
	l->running--;
	l->running_kind[r->kind]--;
}

/* Adaptive concurrency: a 429 halves the transfers allowed, once per round (a 429 to a transfer
 * that started before the last cut says nothing new); each `limit` answers that were no 429 add
 * one, up to concurrency. */
static void adapt(rag_llm *l, const req *r, long status)
{
	if (!l->adaptive) return;
	if (status == 429) {
		if (r->started < l->cut_at) return;
		l->limit = l->limit / 2 > 1 ? l->limit / 2 : 1;
		if (l->limit < l->low) l->low = l->limit;
		l->cuts++;
		l->oks = 0;
		l->cut_at = rag_now();
	} else if (status >= 200 && status < 300 && l->limit < l->concurrency && ++l->oks >= l->limit) {
		l->limit++;
		l->oks = 0;
	}
}

void rag_llm_set_meter(rag_llm *l, const rag_llm_meter *m)
{
	if (m) l->meter = *m;
	else memset(&l->meter, 0, sizeof l->meter);
}

void rag_llm_inflight(const rag_llm *l, int *limit, int *low, int *cuts)
{
	if (limit) *limit = l->limit;
	if (low) *low = l->low;
	if (cuts) *cuts = l->cuts;
}

/* Failures where no server answered at all: nothing was there to take the request. */
static int connection_failure(CURLcode code)
{
	switch (code) {
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
		return 1;
	default:
		return 0;
	}
}

/* The endpoint of kind k is gone: every request of that kind, queued or in flight, fails now
 * with why, and so does every later one (rag_llm_ask, rag_llm_embed). */
static void declare_dead(rag_llm *l, int k, const char *why)
{
	req **pp = &l->queue, *prev = NULL, *r;
	l->dead[k] = rag_xstrdup(why);
	while ((r = *pp)) {
		if (r->kind != k) {
			prev = r;
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		if (l->queue_tail == r) l->queue_tail = prev;
		r->error = rag_xstrdup(why);
		finish(l, r);
	}
	for (r = l->inflight; r;) {
		req *next = r->next;
		if (r->kind == k) {
			stop_transfer(l, r);
			r->error = rag_xstrdup(why);
			finish(l, r);
		}
		r = next;
	}
}

static void embed_reply(rag_llm *l, req *r);
static void http_reply(rag_llm *l, req *r);

/* One attempt failed for good or for now (a transport failure, or a status worth retrying): retry
 * it, unless retries or llm.deadline are used up, or the endpoint turned out to be gone. */
static void attempt_failed(rag_llm *l, req *r, CURLcode code, long status)
{
	char last[CURL_ERROR_SIZE + 64];
	int k = r->kind, tries = r->attempt + 1;
	double now = rag_now(), delay;
	if (code != CURLE_OK)
		snprintf(last, sizeof last, "%s", r->curl_err[0] ? r->curl_err : curl_easy_strerror(code));
	else
		snprintf(last, sizeof last, "endpoint answered http %ld", status);
	scrub_req(l, r, last);
	if (code != CURLE_OK && connection_failure(code)) {
		l->conn_fails[k]++;
		if (r->probe) {
			char *why = rag_xasprintf("endpoint unreachable: %d connection failures in a row and no reply "
			                          "(last: %s)", l->conn_fails[k], last);
			r->error = rag_xstrdup(why);
			finish(l, r);
			declare_dead(l, k, why);
			free(why);
			return;
		}
		if (l->conn_fails[k] >= UNREACHABLE_AFTER && l->suspect_at[k] == 0) l->suspect_at[k] = now;
	}
	if (l->deadline > 0 && (now >= r->t0 + l->deadline || (r->capped && code == CURLE_OPERATION_TIMEDOUT))) {
		r->error = rag_xasprintf("llm.deadline (%g s) passed after %d %s: %s", l->deadline, tries,
		                         tries > 1 ? "attempts" : "attempt", last);
	} else if (r->attempt < l->retries) {
		delay = retry_delay(l, r);
		if (l->deadline <= 0 || now + delay < r->t0 + l->deadline) {
			l->usage.retries++;
			schedule_retry(l, r, delay);
			return;
		}
		r->error = rag_xasprintf("gave up after %d %s: the next retry (in %.0f s) would pass llm.deadline "
		                         "(%g s): %s", tries, tries > 1 ? "attempts" : "attempt", delay, l->deadline,
		                         last);
	} else if (code != CURLE_OK) {
		r->error = rag_xasprintf("request failed after %d %s: %s", tries, tries > 1 ? "attempts" : "attempt", last);
	} else {
		r->error = rag_xasprintf("endpoint answered http %ld after %d %s", status, tries,
		                         tries > 1 ? "attempts" : "attempt");
	}
	finish(l, r);
}

/* What a 400 (or 422) says the endpoint refused of the request r asked, as A_* not yet in
 * force; 0 for anything else (a bad key, a prompt too long, a max_tokens too large: the
 * request's own error). From the error's "param" and "code" where the body has them (OpenAI's),
 * else its words:
 * - max_tokens unsupported ("Unsupported parameter: 'max_tokens' is not supported with this
 *   model. Use 'max_completion_tokens' instead."): a reasoning model's token limit;
 * - temperature unsupported ("Unsupported value: 'temperature' does not support 0 with this
 *   model. Only the default (1) value is supported."): no temperature but the model's default;
 * - response_format or schema, to a request with a json_schema: json_object. */
static int refused(const req *r, long status)
{
	const char *b = r->resp.p ? r->resp.p : "";
	jv body = jv_parse_sized(b, (int)r->resp.len), e = rag_json_get(body, "error");
	jv pj = rag_json_get(jv_copy(e), "param"), cj = rag_json_get(jv_copy(e), "code");
	jv sent = jv_parse(r->body);
	const char *param = jv_get_kind(pj) == JV_KIND_STRING ? jv_string_value(pj) : "";
	int now = r->adapted, f = 0;   /* what this request was made with: another may have learned more */
	int unsupported = (jv_get_kind(cj) == JV_KIND_STRING && !strncmp(jv_string_value(cj), "unsupported", 11)) ||
	                  strcasestr(b, "unsupported") || strcasestr(b, "only the default") ||
	                  strcasestr(b, "does not support");
	if (status == 400 || status == 422) {
		if (!(now & A_MAXCOMP) && jv_object_has(jv_copy(sent), jv_string("max_tokens")) &&
		    (strcasestr(b, "max_completion_tokens") || (!strcmp(param, "max_tokens") && unsupported)))
			f = A_MAXCOMP;
		else if (!(now & A_NOTEMP) && jv_object_has(jv_copy(sent), jv_string("temperature")) &&
		         (!strcmp(param, "temperature") || strcasestr(b, "temperature")) && unsupported)
			f = A_NOTEMP;
		else if (!(now & A_OBJECT) && r->schema && (strcasestr(b, "response_format") || strcasestr(b, "schema")))
			f = A_OBJECT;
	}
	jv_free(sent);
	jv_free(pj);
	jv_free(cj);
	jv_free(e);
	return f;
}

/* An endpoint that refused a part of a chat request (refused) is asked without it from then
 * on, this request at once, under the key of what it now asks; the memo of it goes to the
 * cache, so that the next run asks so from its first request (and a replay finds its keys). */
static int learn(rag_llm *l, req *r, long status)
{
	int f = r->kind == K_CHAT ? refused(r, status) : 0, known;
	if (!f) return 0;
	known = ((l->fixed | l->learned) & f) == f;   /* a request in flight when another taught it */
	l->learned |= f;
	if (!known && l->cache_mode == RAG_CACHE_RW) {
		char cerr[RAG_ERRLEN];
		jv m = JV_OBJECT(jv_string("adapted"), jv_number(l->learned));
		jv d = jv_dump_string(m, 0);
		(void)rag_cache_put(l->cache, l->memo_key, jv_string_value(d), strlen(jv_string_value(d)), cerr, sizeof cerr);
		jv_free(d);
	}
	readapt(l, r);
	push(&l->queue, &l->queue_tail, r);
	return 1;
}

jv rag_llm_adapted(const rag_llm *l, int learned_only)
{
	jv a = jv_array();
	int i, f = learned_only ? l->learned & ~l->fixed : l->fixed | l->learned;
	for (i = 0; i < 3; i++)
		if (f & (1 << i)) a = jv_array_append(a, jv_string(adapt_names[i]));
	return a;
}

/* A 200 chat reply: its content (the key scrubbed), and the cache entry kept for the caller's
 * rag_llm_commit. */
static void chat_reply(rag_llm *l, req *r)
{
	char err[RAG_ERRLEN];
	jv v = rag_wire_chat(r->resp.p ? r->resp.p : "", r->resp.len, r->n, err, sizeof err);
	jv c, fr, u;
	if (!jv_is_valid(v)) {
		jv_free(v);
		r->error = rag_xstrdup(err);
		return;
	}
	l->usage.calls++;
	c = scrub_jv(l, jv_object_get(jv_copy(v), jv_string("content")));
	fr = jv_object_get(jv_copy(v), jv_string("finish_reason"));
	u = jv_object_get(jv_copy(v), jv_string("usage"));
	r->content = rag_xstrdup(jv_string_value(c));
	r->finish_reason = scrub(l, rag_xstrdup(jv_string_value(fr)));
	take_usage(r, u, 0);
	if (r->n > 1) {
		/* an endpoint without "n" answers one choice: the caller sees how many came */
		jv_free(r->choices);
		r->choices = scrub_jv_all(l, jv_object_get(jv_copy(v), jv_string("choices")));
	}
	if (l->cache_mode == RAG_CACHE_RW) {
		jv e = jv_object(), d;
		if (r->n > 1) e = jv_object_set(e, jv_string("choices"), jv_copy(r->choices));
		e = jv_object_set(e, jv_string("content"), jv_copy(c));
		e = jv_object_set(e, jv_string("finish_reason"), jv_string(r->finish_reason));
		e = jv_object_set(e, jv_string("model"), jv_string(l->model));
		if (!r->usage_error)
			e = jv_object_set(e, jv_string("usage"),
			                  JV_OBJECT(jv_string("prompt_tokens"), jv_number((double)r->prompt_tokens),
			                            jv_string("completion_tokens"),
			                            jv_number((double)r->completion_tokens)));
		d = jv_dump_string(e, JV_PRINT_SORTED);
		r->entry = scrub(l, rag_xstrdup(jv_string_value(d)));
		jv_free(d);
	}
	jv_free(c);
	jv_free(fr);
	jv_free(u);
	jv_free(v);
}

/* ------------------------------------------------------------------ the batch route (batch.c) */

char *rag_llm_batch_url(const rag_llm *l, const char *what)
{
	return rag_xasprintf("%s/%s%s", l->batch_base, what, l->batch_query);
}

const char *rag_llm_batch_endpoint(const rag_llm *l)
{
	return l->batch_azure ? "/chat/completions" : "/v1/chat/completions";
}

const rag_strv *rag_llm_batch_headers(const rag_llm *l)
{
	return &l->hdrs[0];
}

char *rag_llm_scrub(const rag_llm *l, char *msg)
{
	return scrub(l, msg);
}

int rag_llm_batch_reply(rag_llm *l, const char *key, const char *body, size_t len, const char *batch_id,
                        rag_usage *u, char *err, size_t errlen)
{
	req r;
	jv v = jv_parse_sized(body, (int)len), ch = rag_json_get(v, "choices"), e;
	int rc = -1;
	char cerr[RAG_ERRLEN];
	memset(&r, 0, sizeof r);
	r.n = jv_get_kind(ch) == JV_KIND_ARRAY && jv_array_length(jv_copy(ch)) > 1 ? jv_array_length(jv_copy(ch)) : 1;
	jv_free(ch);
	r.choices = jv_null();
	r.resp.p = (char *)body;
	r.resp.len = len;
	/* a custom_id of ours is a cache key; rag_cache_put refuses any other 64 characters */
	if (!key || strlen(key) != 64) {
		rag_seterr(err, errlen, "a line of the batch's output has no custom_id of ours");
		return -1;
	}
	memcpy(r.key, key, 65);
	chat_reply(l, &r);   /* the one reading of a chat completion, and its cache entry */
	if (r.error) {
		rag_seterr(err, errlen, "%s", r.error);
	} else if (!r.entry) {
		rag_seterr(err, errlen, "the cache is not writable (cache.mode rw): the batch's replies have nowhere to go");
	} else {
		e = jv_parse(r.entry);
		e = jv_object_set(e, jv_string("batch"), jv_string(batch_id));
		if (r.cached_tokens > 0) {
			jv us = rag_json_get(jv_copy(e), "usage");
			if (jv_get_kind(us) == JV_KIND_OBJECT) {
				us = jv_object_set(us, jv_string("prompt_tokens_details"),
				                   JV_OBJECT(jv_string("cached_tokens"), jv_number((double)r.cached_tokens)));
				e = jv_object_set(e, jv_string("usage"), us);
			} else {
				jv_free(us);
			}
		}
		e = jv_dump_string(e, JV_PRINT_SORTED);
		if (rag_cache_put(l->cache, r.key, jv_string_value(e), strlen(jv_string_value(e)), cerr, sizeof cerr) < 0) {
			rag_seterr(err, errlen, "%s", cerr);
		} else {
			u->calls++;
			u->prompt_tokens += r.prompt_tokens;
			u->cached_tokens += r.cached_tokens;
			u->completion_tokens += r.completion_tokens;
			rc = 0;
		}
		jv_free(e);
	}
	free(r.content);
	free(r.finish_reason);
	free(r.error);
	free(r.entry);
	free(r.usage_error);
	jv_free(r.choices);
	return rc;
}

static void complete(rag_llm *l, req *r, CURLcode code)
{
	long status = 0;
	int k = r->kind;
	curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
	if (k == K_HTTP) {
		curl_off_t us = 0;
		curl_easy_getinfo(r->easy, CURLINFO_TOTAL_TIME_T, &us);
		r->seconds = (double)us / 1e6;
		r->status = status;
	}
	stop_transfer(l, r);
	adapt(l, r, status);
	if (status != 0 || code == CURLE_OK) {
		/* someone answered: the endpoint is there */
		l->conn_fails[k] = 0;
		l->suspect_at[k] = 0;
	}

	if (code != CURLE_OK || transient_status(status)) {
		attempt_failed(l, r, code, status);
		return;
	}
	if (r->kind == K_HTTP && status >= 200 && status < 300) {
		http_reply(l, r);
		finish(l, r);
		return;
	}
	if (status != 200) {
		char *m;
		if (learn(l, r, status)) return;
		m = server_message(l, r);
		r->error = rag_xasprintf("endpoint answered http %ld%s%s", status, m ? ": " : "", m ? m : "");
		free(m);
		scrub_req(l, r, r->error);
		finish(l, r);
		return;
	}
	if (r->embed) embed_reply(l, r);
	else chat_reply(l, r);
	finish(l, r);
}

static int run_callbacks(rag_llm *l)
{
	int n = 0;
	while (l->done) {
		req *r = l->done;
		rag_llm_reply rep;
		l->done = r->next;
		if (!l->done) l->done_tail = NULL;
		memset(&rep, 0, sizeof rep);
		rep.content = r->error ? NULL : r->content;
		rep.finish_reason = r->finish_reason;
		rep.error = r->error;
		rep.cached = r->cached;
		rep.prompt_tokens = r->prompt_tokens;
		rep.cached_tokens = r->cached_tokens;
		rep.completion_tokens = r->completion_tokens;
		rep.retries = r->attempt;
		rep.usage_error = r->error ? NULL : r->usage_error;
		rep.req_ = r;
		rep.vectors = r->embed && !r->error ? r->vectors : jv_null();
		rep.choices = r->n > 1 && !r->error ? r->choices : jv_null();
		if (r->kind == K_HTTP) {
			rep.content = NULL;
			rep.status = r->status;
			rep.body = r->error ? NULL : r->content;
			rep.body_len = rep.body ? strlen(rep.body) : 0;
			rep.content_type = r->ctype;
			rep.events = !r->error ? r->events : jv_null();
			rep.seconds = r->seconds;
		}
		if (r->metered) {
			/* what it cost: its usage, its estimate where it said none, nothing where it failed */
			int none = !r->error && (r->usage_error || (!r->prompt_tokens && !r->completion_tokens));
			l->meter.settle(l->meter.arg, r->held, r->error ? 0 : none ? r->est_prompt : (double)r->prompt_tokens,
			                r->error || none ? 0 : (double)r->cached_tokens,
			                r->error ? 0 : none ? r->est_completion : (double)r->completion_tokens);
			r->metered = 0;
		}
		if (r->cached && !r->embed) l->usage.cache_hits++;
		if (r->kind == K_HTTP && !r->cached && !r->error) l->usage.calls++;   /* embeddings count texts */
		r->cb(r->arg, &rep);
		req_free(r);
		n++;
	}
	return n;
}

int rag_llm_run(rag_llm *l, int fd, double timeout)
{
	int still, readable = 0, msgs;
	CURLMsg *m;
	double wait;
	struct curl_waitfd wfd;
	int timeout_ms;

	if (run_callbacks(l)) timeout = 0;
	wait = start_ready(l);
	curl_multi_perform(l->multi, &still);
	while ((m = curl_multi_info_read(l->multi, &msgs))) {
		if (m->msg == CURLMSG_DONE) {
			req *r;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
			complete(l, r, m->data.result);
		}
	}
	if (l->done) {
		run_callbacks(l);
		timeout = 0;
		wait = start_ready(l);
		curl_multi_perform(l->multi, &still);
	}
	if (wait > 0 && wait < timeout) timeout = wait;
	if (l->running == 0 && fd < 0 && l->queue == NULL) timeout = 0;
	timeout_ms = (int)ceil(timeout * 1000);
	wfd.fd = fd;
	wfd.events = CURL_WAIT_POLLIN;
	wfd.revents = 0;
	curl_multi_poll(l->multi, fd >= 0 ? &wfd : NULL, fd >= 0 ? 1 : 0, timeout_ms, NULL);
	if (fd >= 0 && wfd.revents) readable = 1;
	return readable;
}

void rag_llm_cancel(rag_llm *l, const char *why)
{
	req *r;
	while ((r = l->queue)) {
		l->queue = r->next;
		r->error = rag_xstrdup(why);
		finish(l, r);
	}
	l->queue_tail = NULL;
	while ((r = l->inflight)) {
		stop_transfer(l, r);
		r->error = rag_xstrdup(why);
		finish(l, r);
	}
	run_callbacks(l);
}

void rag_llm_free(rag_llm *l)
{
	if (!l) return;
	rag_llm_cancel(l, "shutting down");
	free(l->dead[K_CHAT]);
	free(l->dead[K_EMBED]);
	free(l->dead[K_HTTP]);
	curl_multi_cleanup(l->multi);
	if (l->slot_fd >= 0) close(l->slot_fd);
	free(l->held);
	free(l->url);
	free(l->endpoint);
	free(l->model);
	free(l->emb_url);
	free(l->emb_endpoint);
	free(l->emb_model);
	free(l->emb_key);
	free(l->api_key);
	free(l->effort);
	free(l->batch_base);
	free(l->batch_query);
	free(l->batch_model);
	if (l->collect_fd >= 0) close(l->collect_fd);
	rag_strv_free(&l->hdrs[0]);
	rag_strv_free(&l->hdrs[1]);
	rag_strv_free(&l->secrets);
	jv_free(l->keyed[0]);
	jv_free(l->keyed[1]);
	rag_rate_free(&l->rate);
	free(l);
}
