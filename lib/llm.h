/* llm.h - talking to a model: the reply cache (cache.c), rate limits (rate.c), what an
 * endpoint sends read from its bytes (wire.c), the libcurl client for chat, embeddings and
 * generic HTTP (llm.c), the batch route (batch.c), embeddings (embed.c), prompt files and
 * fenced blocks (prompt.c), the JSON in a reply (reply.c), a webhook's POST (webhook.c). Layer 4 (HACKING.md). */
#ifndef RAG_LLM_H
#define RAG_LLM_H

#include <stddef.h>

#include <jv.h>

#include "config.h"
#include "usage.h"

/* ---------------------------------------------------------------- webhook.c */
typedef struct rag_webhook_opts {
	long timeout_ms;          /* one attempt's limit (connecting included) */
	int tries;                /* attempts in all, at least 1 */
	double backoff;           /* seconds before the second attempt, doubled before each next */
	double retry_after_max;   /* the most a reply's Retry-After makes one wait, seconds */
} rag_webhook_opts;
/* POST json (application/json) to url, http or https: 0 on a 2xx reply, else -1 and err, which
 * shows of the URL its scheme, host and port alone ("webhook https://hooks.example/...: http
 * 404"), never its user, password, path or query, which may carry the webhook's token. A reply
 * of 429 or 5xx, or no reply (no connection, a timeout, a connection cut), is tried again up to
 * o->tries in all, after the backoff or the reply's Retry-After when longer (at most
 * o->retry_after_max); the waits are in the call, which returns when the POST is decided (a
 * signal cuts them short). err, after more than one attempt, ends " (N tries)". */
int rag_webhook_post(const char *url, const char *json, const rag_webhook_opts *o, char *err, size_t errlen);

/* ---------------------------------------------------------------- cache.c */
typedef struct rag_cache rag_cache;
/* 1 hit (*val malloc'ed, NUL-terminated), 0 miss (also always in OFF mode), -1 error (a read
 * error, or a key that is not 64 lowercase hex digits). *val is NULL unless 1; len may be NULL.
 * A miss in REPLAY mode is a plain 0: the caller reports it. */
int rag_cache_get(rag_cache *c, const char *key, char **val, size_t *len);
/* Atomic (temp file + rename), safe with concurrent processes; no-op unless RW. */
int rag_cache_put(rag_cache *c, const char *key, const char *val, size_t len, char *err, size_t errlen);
int rag_cache_mode(const rag_cache *c);
/* The cache the configuration asks for: *out NULL when cache.mode is off (or there is no
 * directory to keep it in, unless in replay mode, which is then an error: -1 and err). */
int rag_cache_open_config(const rag_config *cfg, rag_cache **out, char *err, size_t errlen);
void rag_cache_close(rag_cache *c);

/* ---------------------------------------------------------------- rate.c */
/* Requests and tokens per minute over a sliding 60-second window. */
typedef struct rag_rate {
	double rpm, tpm;          /* 0 = no limit */
	struct rag_rate_ev { double t; long tokens; } *evs;
	size_t n, cap;
} rag_rate;
/* Seconds to wait before a request of `tokens` may start at time now (0 = now). A request
 * larger than the whole token budget may start when the window is empty, or it would never. */
double rag_rate_wait(rag_rate *r, long tokens, double now);
void rag_rate_note(rag_rate *r, long tokens, double now);
void rag_rate_free(rag_rate *r);

/* ---------------------------------------------------------------- wire.c */
/* What an endpoint sends, read from its bytes alone (llm.c's readers; the fuzz targets'). */
/* The events of a text/event-stream body: each event's data: lines joined by "\n", comments and
 * other fields skipped, up to "data: [DONE]"; each event parsed as JSON where it is JSON, else
 * its text. jv_invalid() and err when the stream is not whole: it ends inside an event (a
 * connection closed mid-event), an event that starts as JSON does not parse, a stream of
 * OpenAI's chunks (events with "choices") ends without [DONE], or it holds no event at all. */
jv rag_wire_sse(const char *p, size_t n, char *err, size_t errlen);
/* A chat completion's body: {content, finish_reason ("stop" when absent), usage (or null),
 * choices (nchoices > 1: the contents of the choices that came, at most nchoices)}, or
 * jv_invalid() and err (not JSON, no choices[0].message.content string). */
jv rag_wire_chat(const char *p, size_t n, int nchoices, char *err, size_t errlen);
/* An embeddings reply for want texts: their vectors in the order of their "index", all of one
 * size (dims when dims > 0), and *usage (its usage object, or null); or jv_invalid() and err. */
jv rag_wire_embed(const char *p, size_t n, int want, int dims, jv *usage, char *err, size_t errlen);
int rag_wire_vector_ok(jv v);    /* v borrowed: a non-empty array of finite numbers */
/* What an error's body says, on one line without control characters, at most max bytes (0: no
 * bound; cut at a whole UTF-8 character, "..." after): the message of {"error": {"message"}}, a
 * bare {"error": "..."}, {"detail"}, {"message"}, else the JSON compact, else the text without
 * its HTML tags. NULL when it says nothing. Not scrubbed of secrets: the caller's work. */
char *rag_wire_error(const char *p, size_t n, size_t max);
void rag_wire_clip(char *s, size_t max);   /* s cut to at most max bytes, as rag_wire_error */

/* ---------------------------------------------------------------- llm.c */
typedef struct rag_llm rag_llm;
typedef struct rag_llm_reply {
	const char *content;      /* assistant text, NULL on failure */
	const char *finish_reason;
	const char *error;        /* NULL on success; else e.g. "http 500 after 4 retries" */
	int cached;
	long prompt_tokens, completion_tokens;
	long cached_tokens;       /* of prompt_tokens, served by the provider's prefix cache (its
	                           * usage.prompt_tokens_details.cached_tokens, or DeepSeek's
	                           * usage.prompt_cache_hit_tokens); 0 when it says nothing */
	int retries;
	jv vectors;               /* embeddings: borrowed array of vectors, one per text (jv_copy to
	                           * keep); null for a chat reply or on failure */
	jv choices;               /* rag_llm_ask with n > 1: borrowed array of the contents of
	                           * the choices (as many as came, at most n; content is the first);
	                           * null otherwise */
	const char *usage_error;  /* the endpoint's usage was no token count (tokens then 0), or NULL */
	/* rag_llm_http only (content is NULL there): */
	long status;              /* the HTTP status of the last attempt, 0 when none answered */
	const char *body;         /* the reply's body (2xx), its secrets scrubbed; NULL on failure */
	size_t body_len;
	const char *content_type; /* the reply's Content-Type, or NULL */
	jv events;                /* a text/event-stream reply: borrowed array of its events, each
	                           * JSON where it is JSON, else its text (rag_wire_sse; a stream that
	                           * is not whole is an error); null otherwise */
	double seconds;           /* how long the last attempt took (the cached one's for a hit) */
	void *req_;               /* private: what rag_llm_commit stores */
} rag_llm_reply;
/* How to ask (rag_llm_ask): { 0 } asks for one choice with a JSON object reply. */
typedef struct rag_llm_opts {
	int n;                    /* choices ("n"); 0 or 1: one */
	const char *schema_name;  /* the schema's name in the request */
	const char *schema;       /* the reply's JSON Schema (JSON text, borrowed), sent as
	                           * response_format json_schema when llm.json_mode is schema; an
	                           * endpoint that answers it with 400 gets json_object from then on
	                           * (as one that refuses max_tokens or temperature: rag_llm_adapted) */
	int fresh;                /* ask the endpoint even when the cache holds the answer (a cached
	                           * reply that failed its check); not in replay mode */
	int repeat;               /* repeat i of the same question (rag-judge --repeat), 0 the first:
	                           * with llm.seed the request's seed is llm.seed + i; the cache key
	                           * holds i, so that repeats are distinct entries even without a seed */
	int plain;                /* a plain-text reply: no response_format, whatever llm.json_mode */
	int max_tokens;           /* this request's max_tokens; 0: llm.max_tokens */
	/* what the request is expected to take (the judge's: --estimate's count), for the meter */
	double est_prompt_tokens, est_completion_tokens;
	/* the started time of the record that asks (seconds since the epoch; 0: none), for a meter
	 * per window of the records' time (llm.spend_window) */
	double at;
} rag_llm_opts;
typedef void (*rag_llm_cb)(void *arg, const rag_llm_reply *r);
rag_llm *rag_llm_new(const rag_config *cfg, rag_cache *cache, char *err, size_t errlen);
/* The base URL that requests go to: cfg's llm.base_url, or OpenAI's (RAG_LLM_DEFAULT_BASE_URL)
 * when unset; for embeddings embeddings.base_url first. Borrowed from cfg (or static). */
#define RAG_LLM_DEFAULT_BASE_URL "https://api.openai.com/v1"
const char *rag_llm_base_url(const rag_config *cfg, int embeddings);
/* Queue a chat completion, as o (borrowed) says. messages: jv array of {role, content}
 * (consumed). The callback runs later, from rag_llm_run, exactly once. With o->n > 1, n choices
 * from one request (n is part of the cache key); an endpoint that ignores n answers fewer:
 * reply->choices says how many came. Chat replies are cached only when committed: */
void rag_llm_ask(rag_llm *l, jv messages, const rag_llm_opts *o, rag_llm_cb cb, void *arg);
/* From the callback, once the caller's check accepted the reply: store it in the cache (RW mode;
 * else, and for a cached reply or a failure, nothing). A reply never committed is never cached,
 * so a reply that did not fit is asked again by the next run. Texts from the server (content,
 * choices, errors) never hold the API key: it is scrubbed as they come. */
void rag_llm_commit(rag_llm *l, const rag_llm_reply *r);
/* Queue an embeddings request: POST <embeddings endpoint>/embeddings {"model", "input": texts,
 * "dimensions"?} with the texts (jv array of strings, consumed) that the cache does not hold;
 * each text is cached alone (key: endpoint, model, dimensions, text). The reply's vectors come
 * in the order of texts, checked: one per text, by "index", all of one size. The endpoint, model,
 * key and dimensions are cfg->embeddings' (unset ones fall back to cfg->llm's). */
void rag_llm_embed(rag_llm *l, jv texts, rag_llm_cb cb, void *arg);
/* A generic HTTP request (rag-collect's call of a service): the third kind next to chat and
 * embeddings, with the same queue, concurrency, retries (408, 409, 429, 5xx and connection
 * failures; Retry-After), rate limit, llm.deadline, dead-endpoint detection and cache modes.
 * A 2xx reply gives status, body and, for a stream (sse 1, or -1 and a Content-Type of
 * text/event-stream), events; any other status, after the retries for the transient ones, is an
 * error with status set. Every header value, and each word of it, of 8 characters or more
 * counts as a secret ("Bearer <token>": the token too): it is scrubbed from the body, the events
 * and every error, and the cache key holds a hash of each value, never the value. A reply is cached only when committed (rag_llm_commit). q borrowed. */
typedef struct rag_http_req {
	const char *method;       /* NULL: POST with a body, else GET */
	const char *url;
	const rag_kv *headers;    /* name -> value */
	size_t nheaders;
	const char *body;         /* NULL: none */
	int sse;                  /* -1 by Content-Type, 0 never, 1 always */
	int fresh;                /* ask the service even when the cache holds the reply */
} rag_http_req;
void rag_llm_http(rag_llm *l, const rag_http_req *q, rag_llm_cb cb, void *arg);
const char *rag_llm_model(const rag_llm *l);        /* the chat model (llm.model or the default) */
/* How chat requests are changed for the endpoint (rag-config(5) PROVIDERS): an array of
 * "json_object" (in place of a json_schema), "max_completion_tokens" (in place of max_tokens),
 * "no_temperature"; learned_only: those learned from the endpoint's 400s (this run's, or an
 * earlier run's memo in the cache), not those the configuration asks for. */
jv rag_llm_adapted(const rag_llm *l, int learned_only);
const char *rag_llm_embed_model(const rag_llm *l);
/* A spending meter (llm.max_cost: cost.c's, set by the tool layer): admit is asked, with the
 * request's rag_llm_opts estimate, before a chat request the cache did not answer is first
 * sent; a refusal (-1 and msg) fails the request with msg, unsent. settle is told, once, when
 * an admitted request is over, with the tokens of its reply (its estimate where the reply had
 * no usage, 0 where it failed) and what admit held. Copied; NULL: none. */
typedef struct rag_llm_meter {
	void *arg;
	int (*admit)(void *arg, double at, double prompt_tokens, double completion_tokens, double *held, char *msg,
	             size_t msglen);   /* at: rag_llm_opts' */
	void (*settle)(void *arg, double held, double prompt_tokens, double cached_tokens, double completion_tokens);
} rag_llm_meter;
void rag_llm_set_meter(rag_llm *l, const rag_llm_meter *m);
/* Do transfers and run callbacks; wait up to timeout seconds for progress, or for fd (>= 0)
 * to become readable. Returns 1 when fd is readable.
 * Retries: llm.retries, with backoff (or the server's Retry-After, at most 120 s a retry), all
 * within llm.deadline from the first attempt. An endpoint that fails to connect 3 times in a row
 * with no reply between gets one probe a second later; when that fails too, every request of
 * its kind (chat or embeddings), queued, in flight or later, fails with "endpoint unreachable". */
int rag_llm_run(rag_llm *l, int fd, double timeout);
/* Fail every queued and in-flight request now (their callbacks run with error why). */
void rag_llm_cancel(rag_llm *l, const char *why);
/* Adaptive concurrency: the transfers allowed now, the lowest that was, and the 429s that cut it. */
void rag_llm_inflight(const rag_llm *l, int *limit, int *low, int *cuts);
/* Statistics for the summary. */
const rag_usage *rag_llm_usage(const rag_llm *l);
void rag_llm_free(rag_llm *l);
/* The batch route, llm.c's part (batch.c uses it; rag-config(5) BATCH). A stage whose
 * configuration names llm.batch_collect (RAG_BATCH_COLLECT) writes each chat request the cache
 * does not answer there as a line of a batch's input, {custom_id: the request's cache key,
 * method, url, body, estimate: [its rag_llm_opts' prompt and completion tokens], which the
 * caller weighs a spending cap by and takes off before the line goes up}, and answers it with
 * the error RAG_BATCH_COLLECTED instead of sending it. */
#define RAG_BATCH_COLLECTED "collected for the batch route, not sent"
/* The URL of the route what ("files", "batches/ID"...), as the provider takes it (malloc'ed). */
char *rag_llm_batch_url(const rag_llm *l, const char *what);
const char *rag_llm_batch_endpoint(const rag_llm *l);   /* the batch's endpoint, its lines' url */
const rag_strv *rag_llm_batch_headers(const rag_llm *l);   /* the chat requests' header lines (secret) */
char *rag_llm_scrub(const rag_llm *l, char *msg);   /* msg with every key and header value starred out */
/* A chat completion's body (a line of a batch's output, for the request whose cache key is key)
 * into the cache, as a live reply's entry marked "batch": batch_id; *u gets its call and tokens.
 * A cached entry so marked is read as the call the batch made (its usage counted, not a cache
 * hit) until a read-write run commits it. 0, or -1 and err (a body that is no chat completion,
 * a cache not writable). */
int rag_llm_batch_reply(rag_llm *l, const char *key, const char *body, size_t len, const char *batch_id,
                        rag_usage *u, char *err, size_t errlen);

/* ---------------------------------------------------------------- batch.c */
/* OpenAI's batch API (Azure's and DashScope's follow it) over l's endpoint and key, for rag-eval
 * --batch (rag-config(5) BATCH). Each call one synchronous request; a failure is -1 (or invalid)
 * and err, with the status and what the server said, scrubbed of the key. */
/* POST files, purpose batch, the JSON Lines file at path: *file_id (malloc'ed). */
int rag_batch_upload(rag_llm *l, const char *path, char **file_id, char *err, size_t errlen);
/* POST batches over the uploaded file, completion_window 24h: *batch_id (malloc'ed). */
int rag_batch_create(rag_llm *l, const char *file_id, char **batch_id, char *err, size_t errlen);
/* GET batches/ID: the batch object (status, request_counts, output_file_id, error_file_id...). */
jv rag_batch_get(rag_llm *l, const char *batch_id, char *err, size_t errlen);
/* GET files/ID/content, appended to out. */
int rag_batch_content(rag_llm *l, const char *file_id, rag_buf *out, char *err, size_t errlen);
/* A batch's output or error file (text, len bytes) taken: each line answered 200 with a chat
 * completion goes into the cache (rag_llm_batch_reply; *u its call and tokens); every other
 * line (an error, another status, a reply that is no completion) into *failed, custom_id ->
 * what went wrong. -1 and err only when the cache cannot take the replies at all. */
int rag_batch_take(rag_llm *l, const char *text, size_t len, const char *batch_id, rag_usage *u, jv *failed,
                   char *err, size_t errlen);

/* ---------------------------------------------------------------- embed.c */
/* Texts to vectors: through the embeddings endpoint (cfg->embeddings, falling back to cfg->llm)
 * or offline (rag_vec_hashed). Texts of many calls share requests (batch_size texts, or all
 * there is when no more can join them: rag_embed_run); the same texts in the same order make the
 * same requests, whatever the timing; a text asked for
 * twice in a run is embedded once. */
typedef struct rag_embed rag_embed;
/* vectors: array with one vector per text, or jv_null() with error (the first failure among the
 * texts). vectors consumed by the callback; error borrowed. */
typedef void (*rag_embed_cb)(void *arg, jv vectors, const char *error);
/* provider: embeddings.provider, else llm.provider, else openai when an endpoint or key is set,
 * else offline with a notice. NULL and err on config problems. */
rag_embed *rag_embed_new(const rag_config *cfg, char *notice, size_t noticelen, char *err, size_t errlen);
const char *rag_embed_name(const rag_embed *e);   /* "offline" or "openai:<model>" */
/* texts: array of strings (consumed). The callback runs at once when every vector is known
 * (always offline), else later from rag_embed_run, exactly once. */
void rag_embed_texts(rag_embed *e, jv texts, rag_embed_cb cb, void *arg);
/* As rag_llm_run, fd as the stream gives it (stream.h): RAG_STREAM_ENDED sends a partial batch at
 * once, RAG_STREAM_FULL when no request of the embedder is in flight (an answer would make room
 * for more texts); fd >= 0 and RAG_STREAM_OUTPUT keep it for more texts. */
int rag_embed_run(rag_embed *e, int fd, double timeout);
void rag_embed_cancel(rag_embed *e, const char *why);
/* requests sent to the endpoint (each attempt: what its log shows) and those of them that failed,
 * texts asked for, distinct texts, texts found in the cache, retries */
void rag_embed_stats(const rag_embed *e, long *requests, long *failed, long *texts, long *distinct,
                     long *cache_hits, long *retries);
void rag_embed_free(rag_embed *e);

/* ---------------------------------------------------------------- prompt.c */
/* Load prompt <name>.<lang>.txt (overrides from cfg first). Returns malloc'ed text or NULL+err. */
char *rag_prompt_load(const rag_config *cfg, const char *name, const char *lang, char *err, size_t errlen);
/* Replace {{key}} placeholders from a jv object of strings (borrowed). */
char *rag_prompt_fill(const char *tmpl, jv vars);
/* Record text goes to the judge in fenced blocks, <<<TAG-nonce\n...\nTAG-nonce>>>, one nonce for
 * all the blocks of a request. rag_prompt_nonce chooses it from all the record texts the request
 * carries (texts: an array of strings, borrowed): 8 hex digits derived from the texts, rehashed
 * until they occur in none of them, so that no text can hold any fence of its request, its own
 * block's or another's. The same texts give the same nonce, so the same record gives the same
 * prompt and cache key. */
#define RAG_NONCE_LEN 9
void rag_prompt_nonce(jv texts, char nonce[RAG_NONCE_LEN]);
/* A record's nonce: seeded by its question and all its contexts (borrowed), which every request
 * of the record carries, and checked against texts (borrowed), the request's other texts: the
 * requests of one record, each from its own process (faithfulness, context recall, context
 * precision), share one nonce, so their fenced contexts are the same bytes. */
void rag_prompt_nonce_record(const char *question, jv contexts, jv texts, char nonce[RAG_NONCE_LEN]);
/* Contexts [first, first+count) of contexts (borrowed) as the blocks every operation sends them
 * in, "Context N:" (N from number_from) and a CONTEXT block each, a blank line between: malloc'ed. */
char *rag_prompt_contexts(jv contexts, int first, int count, int number_from, const char *nonce);
char *rag_prompt_block(const char *tag, const char *nonce, const char *text);
jv rag_prompt_blockv(const char *tag, const char *nonce, const char *text);   /* the same as a jv string */
/* A copy of s with newlines and tabs as spaces: one item of a numbered list stays one line. */
char *rag_prompt_one_line(const char *s);
/* Split texts (array of strings, borrowed) into runs of consecutive texts of at most limit
 * characters together (a longer text goes alone): the number of runs, each from (*firsts)[i],
 * (*counts)[i] texts long (both malloc'ed). */
int rag_prompt_groups(jv texts, long limit, int **firsts, int **counts);

/* ---------------------------------------------------------------- reply.c */
/* Find the JSON value in a model reply: strips code fences and surrounding prose.
 * Returns the parsed jv or an invalid jv with a message. text borrowed. */
jv rag_reply_json(const char *text);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside cache.c (by rag_cache_open_config) and by tests/unit/t-cache.c: a cache
 * of a directory and a mode. Static in the library (RAG_UNITTEST, base.h):
 * declared only when RAG_UNITTESTS is defined, as for the unit tests' build of the library
 * (obj/libragu.a). */
#ifdef RAG_UNITTESTS
/* dir is created (mkdir -p, mode 0700) in RW mode; RO and REPLAY never create it. mode OFF gives
 * a cache that always misses, and only it accepts dir NULL. */
rag_cache *rag_cache_open(const char *dir, int mode, char *err, size_t errlen);
#endif /* RAG_UNITTESTS */

#endif
