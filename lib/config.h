/* config.h - the configuration (config.c): YAML, environment, defaults (the one place a
 * default is written). Read-only once a judge is made from it. Layer 2 (HACKING.md). */
#ifndef RAG_CONFIG_H
#define RAG_CONFIG_H

#include <stddef.h>

#include <jv.h>

#include "base.h"

/* ---------------------------------------------------------------- config.c */
enum rag_cache_mode { RAG_CACHE_RW = 0, RAG_CACHE_RO, RAG_CACHE_REPLAY, RAG_CACHE_OFF };
/* llm.json_mode: the response_format sent (false is off, true is object, as the key once was) */
enum rag_json_mode { RAG_JSON_OFF = 0, RAG_JSON_OBJECT, RAG_JSON_SCHEMA };

typedef struct rag_kv { char *key; char *value; } rag_kv;
typedef struct rag_kd { char *key; double value; } rag_kd;
/* gate.by_category: a per-record threshold for the records of one category (or --by value) */
typedef struct rag_cat_kd { char *category, *metric; double value; } rag_cat_kd;
/* prices.<model>: what a model's tokens cost, in prices.currency per million tokens; a price
 * not written is NAN (unknown, never 0) */
/* per million tokens; NAN where unknown; cached_input: prompt tokens a provider's prefix cache
 * served (NAN: they cost input); batch_input, batch_output: the batch route's prices (rag-eval
 * --batch), batch_discount: else the share of input and output it takes off (0.5: half price) */
typedef struct rag_price {
	char *model;
	double input, output, cached_input;
	double batch_input, batch_output, batch_discount;
} rag_price;

/* The scale of a rubric (rag-judge(1)): its scores, and how they map to [0, 1]. */
enum rag_scale { RAG_SCALE_0_10 = 0, RAG_SCALE_1_5, RAG_SCALE_YESNO };
const char *rag_config_scale_name(int scale);    /* static; "0-10" for an unknown one */

/* A custom rubric of the configuration (rubrics.<name>, rag-config(5)), checked at load: a
 * name of letters, digits, "_" and "-", criteria given, every score described on the scale. */
typedef struct rag_rubric_conf {
	char *name;
	char *criteria;           /* what the judge is to assess */
	int scale;                /* enum rag_scale, default 0-10 */
	rag_strv steps;           /* evaluation steps (G-Eval), in order; may be empty */
	rag_strv fields;          /* the record fields the judge sees; empty: question, answer */
	rag_kv *scores; size_t nscores;   /* score ("10", "yes") -> what it means, in file order */
} rag_rubric_conf;

typedef struct rag_verify_conf rag_verify_conf;
/* verify.mode: all claims of a record in one request (a JSON judge), or a dedicated verifier
 * (MiniCheck and the like: a bare Yes or No) asked per claim, or per claim and chunk */
enum rag_verify_mode { RAG_VERIFY_BATCHED = 0, RAG_VERIFY_CLAIM, RAG_VERIFY_CLAIM_CHUNK };
typedef struct rag_config {
	char *path;               /* the file that was loaded, or NULL */
	struct {
		char *provider;       /* "openai" | "openai-reasoning" | "azure" | "offline" | NULL (auto) */
		char *base_url;       /* e.g. https://api.openai.com/v1; azure: the resource's endpoint */
		char *model;
		char *api_key_env;    /* name of the variable holding the key (default OPENAI_API_KEY) */
		char *api_key;        /* resolved secret: never printed */
		rag_strv allow_urls;  /* further endpoints rag-serve's Run tab may send the key to */
		double temperature;   /* default 0; NAN: not sent (llm.temperature: omit) */
		long seed; int has_seed;
		int max_tokens;       /* default 2048 */
		double timeout;       /* seconds per request, default 60 */
		int retries;          /* default 4 */
		int concurrency;      /* requests in flight, default 8 */
		int adaptive;         /* halve the requests in flight on a 429, raise them again; default 1 */
		const char *inflight_file; /* a budget of concurrency requests shared by every process
		                       * naming this file (RAG_INFLIGHT, set by the tool layer), or NULL;
		                       * borrowed, not freed */
		double max_cost;      /* llm.max_cost: no judge request is sent once the run's cost so far
		                       * and its own estimate would pass it (prices.currency); 0 = no cap */
		const char *spend_file; /* the run's spending shared by every process naming this file
		                       * (RAG_SPEND, set by the tool layer), or NULL; borrowed, not freed */
		double spend_window;  /* > 0: max_cost holds per window of this many seconds of the records'
		                       * started time, not for the whole run (RAG_SPEND_WINDOW, set by the
		                       * tool layer: rag-eval --follow's cap per hour); 0 = the whole run */
		double rpm, tpm;      /* requests / tokens per minute, 0 = no limit */
		double deadline;      /* seconds a request may take, retries and their waits included;
		                       * default 300, 0 = none */
		int json_mode;        /* enum rag_json_mode, default RAG_JSON_SCHEMA */
		char *answer_model;   /* model that generated the answers (self-judging warning) */
		/* what a provider needs beyond OpenAI's request (rag-config(5) PROVIDERS) */
		rag_kv *headers; size_t nheaders; /* name -> value, ${VAR} expanded; values are secrets */
		rag_kv *query; size_t nquery;     /* name -> value, appended to each request's URL */
		char *deployment;     /* azure: the deployment of the classic route, NULL: the v1 route */
		char *api_version;    /* azure: api-version of the classic route (a default with a deployment) */
		char *max_tokens_param;   /* "max_tokens" | "max_completion_tokens" | NULL: by the provider */
		char *reasoning_effort;   /* sent as reasoning_effort, NULL: not sent */
		/* the batch route (rag-eval --batch, rag-config(5) BATCH) */
		int batch;            /* llm.batch: rag-eval sends each judge stage's requests as one batch */
		double batch_poll;    /* seconds between looks at a batch's state, default 30 */
		int batch_max_requests;   /* requests a batch (a part of a stage's) holds at most, default 50000 */
		int batch_max_bytes;  /* bytes a batch's input file holds at most, default 200,000,000 */
		const char *batch_collect; /* write the requests the cache does not answer to this file (a
		                       * batch's input) instead of sending them (RAG_BATCH_COLLECT, set by
		                       * the tool layer), or NULL; borrowed, not freed */
	} llm;
	struct {
		int mode;             /* enum rag_cache_mode */
		char *dir;            /* default $XDG_CACHE_HOME/ragpipe or ~/.cache/ragpipe */
	} cache;
	char *lang;               /* "auto" (default) | "en" | "zh" */
	struct {
		char *dir;            /* searched before the installed prompts */
		rag_kv *files; size_t nfiles;  /* name -> path overrides: "claims", "verify", "claims.zh"... */
	} prompts;
	struct rag_verify_conf {
		int max_claims;       /* default 20 */
		int batch_claims;     /* claims per call, default 20 */
		int batch_chars;      /* context characters per call, default 24000 */
		int recheck_chunks;   /* re-check unsupported claims against each chunk alone, default 0 */
		int literal_match;    /* accept a claim found literally in a context, default 0 */
		double offline_threshold; /* offline support threshold, default 0.6 */
		double chunk_threshold;   /* offline chunk usefulness (rag-verify --chunks), default 0.5 */
		int mode;             /* enum rag_verify_mode: how claims are asked, default batched */
		int verifier_max_tokens;  /* max_tokens of a verifier request (a bare Yes or No), default 4 */
		double factual_weight, similarity_weight;  /* answer_correctness, default 0.75 and 0.25 */
	} verify;                 /* all >= 1 / in range once loaded (rag_config_load checks) */
	struct {
		/* the embeddings endpoint; unset keys fall back to llm.* (rag-config(5)) */
		char *provider;       /* "openai" | "offline" | NULL: as llm.provider */
		char *base_url;       /* NULL: llm.base_url */
		char *model;          /* default text-embedding-3-small */
		char *api_key_env;    /* NULL: the key of llm */
		char *api_key;        /* resolved secret: never printed */
		int dimensions;       /* 0: the model's own */
		int batch_size;       /* texts per request, default 64 */
		/* as llm's; unset, llm's where the embeddings go to llm's endpoint (never another's) */
		rag_kv *headers; size_t nheaders;
		rag_kv *query; size_t nquery;
		char *deployment;     /* azure: the embeddings deployment of the classic route */
	} embeddings;
	struct {
		/* rag-gate's thresholds and settings (rag-config(5)); flags override them */
		rag_kd *mean; size_t nmean;      /* gate.mean: metric -> lowest acceptable mean */
		rag_kd *record; size_t nrecord;  /* gate.record: metric -> lowest score a record may have */
		double min_pass_rate;            /* share of records that must pass, default 1 */
		double max_error_rate;           /* share of records a metric may leave null, default 0 */
		double regression;               /* a record regressed when it lost more, default 0.1 */
		int fail_on_regression;          /* fail on a mean drop whose interval is below 0, default 0 */
		long seed; int has_seed;         /* bootstrap seed, default 1 */
		int resamples;                   /* bootstrap resamples, default 2000 */
		double confidence;               /* bootstrap interval, default 0.95 */
		int worst;                       /* records listed as the worst, default 10 */
		rag_strv pass;                   /* metrics gated on the tool's own pass verdict */
		int fail_on_flip;                /* a flip across repeats fails the record, default 0 */
		rag_strv by;                     /* fields the summary groups by, default category */
		/* gate.by_category: category -> metric -> the per-record threshold of its records, in
		 * place of gate.record's (rag-config(5)), one triple a metric, in the file's order */
		rag_cat_kd *by_category; size_t nby_category;
		/* gate.by_category.<category>.mean: the lowest mean of the metric over its records */
		rag_cat_kd *by_category_mean; size_t nby_category_mean;
	} gate;
	struct {
		/* rag-ap's (rag-config(5)); --from overrides it. rag-eval passes it to its rag-ap stage */
		char *from;                      /* ap.from: "auto" (NULL) | "verdicts" | "ids" | "similarity" */
	} ap;
	struct {
		/* rag-kw's settings (rag-config(5)); flags override them */
		char *metrics;                   /* kw.metrics: comma-separated, NULL: keyword_overlap */
		double threshold;                /* keyword_overlap's pass threshold, default 0.3 */
		int stem;                        /* ROUGE words Porter-stemmed, default 0 */
		/* the lists a record without its own uses (contains, contains_all, regex) */
		rag_strv must_contain, must_not_contain, must_match, must_not_match;
	} kw;
	struct {
		/* rag-judge's custom rubrics, in file order; a name of a built-in one replaces it */
		rag_rubric_conf *v; size_t n;
	} rubrics;
	struct {
		/* rag-collect's call of the system under test (rag-config(5)); flags override them.
		 * rag-eval runs rag-collect when url or command is set. */
		char *url;                       /* HTTP mode: the service's URL, NULL when unset */
		char *command;                   /* command mode: run by /bin/sh -c, NULL when unset */
		char *method;                    /* "POST" (NULL) | "GET" | "PUT" | "PATCH" */
		rag_kv *headers; size_t nheaders; /* name -> value, ${VAR} expanded; values are secrets */
		rag_strv allow_urls;             /* further URLs rag-serve's Run tab may send headers to */
		char *body;                      /* jq program: record -> request body; NULL: the default */
		char *answer, *contexts, *context_ids; /* jq programs over the reply; NULL: the defaults */
		char *system_from;               /* jq program: reply -> the knobs it ran with (an object,
		                                  * into the record's system); NULL: none */
		/* --estimate: the sizes of what is not collected yet (rag_standin) */
		double expected_answer_chars, expected_contexts, expected_context_chars;
		char *stream;                    /* "auto" (NULL) | "true" | "false": a reply is SSE */
		double timeout;                  /* seconds a call (or a command) may take, default 60 */
		int concurrency;                 /* calls or commands at once, 0: llm.concurrency */
		int retries;                     /* -1: llm.retries */
		double rpm;                      /* requests per minute, -1: llm.requests_per_minute */
		int cache;                       /* enum rag_cache_mode of the replies, default off */
	} collect;
	/* system: the settings of the system under test (top_k: 5...), name -> JSON text (a number,
	 * a boolean or a string), which rag-collect writes into each record's "system" object */
	rag_kv *system; size_t nsystem;
	/* fields: a test set's own schema: our field name (or an alias) -> a jq program over the
	 * record ("reference" -> ".expected.text"), in file order; rag_fieldmap compiles them */
	rag_kv *fields; size_t nfields;
	/* trace.fields: rag-trace's mapping, a record field -> the span attribute that holds it
	 * ("question" -> "app.user.query"), for names none of the conventions it knows uses */
	struct { rag_kv *fields; size_t nfields; } trace;
	struct {
		/* rag-eval's settings (rag-config(5)); flags override them */
		rag_strv metrics;                /* eval.metrics: empty = faithfulness, answer_relevancy,
		                                  * context_precision, context_recall */
		char *runs_dir;                  /* eval.runs_dir: NULL = ./runs */
	} eval;
	struct {
		/* the record stream's byte budget (rag_stream_opts.budget; --max-memory), default 16 MiB */
		int max_memory;
	} stream;
	struct {
		/* gen.unanswerable, noisy, multi_hop, follow_up: rag-gen's hard cases, each a share of
		 * the set in [0, 1], in rag_gen_kinds' order; default 0.1 each */
		double share[4];
	} gen;
	struct {
		/* prices.<model>.input, .output: per million tokens, in prices.currency (default USD) */
		rag_price *v; size_t n;
		char *currency;
	} prices;
	struct {
		/* the run store (rag-store(1)): store.url, NULL: unset (rag-eval then stores nothing) */
		char *url;
		/* where rag-store keeps runs when store.url is unset: $XDG_DATA_HOME/ragpipe/runs.db or
		 * ~/.local/share/ragpipe/runs.db (not a key; NULL without either variable) */
		char *default_url;
	} store;
	/* trace_url: a link to the team's trace viewer, "{trace_id}" replaced by a trace's id
	 * URL-encoded (rag-serve's Production tab); NULL: none. http:// or https:// only */
	char *trace_url;
} rag_config;

/* Defaults, then the first file found of: path (-c), $RAG_CONFIG, ./rag.yaml,
 * $XDG_CONFIG_HOME/ragpipe/config.yaml (~/.config/ragpipe/config.yaml); then the environment
 * (RAG_BASE_URL, RAG_MODEL, RAG_PROVIDER, RAG_API_KEY falling back to $<api_key_env>,
 * RAG_CACHE, RAG_CACHE_DIR, RAG_LANG). ${VAR} in values expands from the environment ("$$" is
 * a literal "$"; an unset VAR is an error); relative paths are relative to the file's directory.
 * Unknown keys and wrong types are errors: "rag.yaml:3:5: unknown key "modle" in section "llm"".
 * A missing -c file or $RAG_CONFIG file is an error; missing default files are not.
 * No message ever contains the API key. On failure cfg holds nothing (rag_config_free is harmless). */
int rag_config_load(rag_config *cfg, const char *path, char *err, size_t errlen);
/* 1 when provider names an endpoint (any but "offline"; NULL or "" is not decided: 0). */
int rag_config_online(const char *provider);
/* Overwrites cfg without freeing what it held. */
void rag_config_defaults(rag_config *cfg);
/* Frees every field and zeroes cfg; safe to call twice. */
void rag_config_free(rag_config *cfg);
/* A plain scalar (a config value, rag-collect --system's VALUE) as JSON: a number when it
 * reads as one, true or false for YAML's boolean words, else a string. s borrowed. */
jv rag_config_scalar(const char *s);
/* The configuration as loaded, as one JSON object of sections and keys (the file's layout,
 * defaults included), for a run's record (rag-eval's run.json): every T_SECRET value (api_key)
 * and every value under collect.headers left out, and a password in a URL masked ("***"). */
jv rag_config_json(const rag_config *cfg);
/* url (borrowed) with the password of scheme://user:password@host as "***" (rag_config_json's
 * masking, for a message that names a URL). */
jv rag_config_mask_url(const char *url);
/* Parse a cache mode name: "rw"|"read-write", "ro"|"read-only", "replay", "off". -1 if unknown. */
int rag_config_cache_mode_parse(const char *s);
const char *rag_config_cache_mode_name(int mode);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside config.c and by tests/unit/t-rubric.c and t-op.c: a rubric scale's name
 * read back (config.c reads rubrics.<name>.scale with it), the score names a rubric may not
 * take. Static in the library (RAG_UNITTEST, base.h): declared only when RAG_UNITTESTS is
 * defined, as for the unit tests' build of the library (obj/libragu.a). */
#ifdef RAG_UNITTESTS
/* "0-10", "1-5", "yes/no": the scale, or -1. */
int rag_config_scale_parse(const char *s);
/* The tool that writes scores.<name> (a custom rubric of that name is refused: its score would
 * overwrite the metric's), or NULL: the built-in tools' names, and the metric tools' of the
 * operation registry (mk/ops.sh's obj/gen/ops.inc; tests/unit/t-op.c checks it against it). */
const char *rag_config_metric_tool(const char *name);
#endif /* RAG_UNITTESTS */

#endif
