/* rag.h - the ragpipe library: one header, grouped by the file that implements each part, in
 * layer order: each part uses only those above it (HACKING.md names the layers). The tools'
 * own layer, options and messages, is cmd/tool.h.
 *
 * Conventions:
 *  - The library never prints and never exits (tests/t/92-layers.t checks). Functions that can fail return 0 on success and
 *    -1 on failure, and write a one-line lowercase message into a caller's buffer (err, errlen).
 *  - jv ownership follows libjq: a jv argument is CONSUMED unless the comment says "borrowed".
 *    Returned jv values are owned by the caller.
 *  - Strings returned as char * are malloc'ed and owned by the caller unless said otherwise.
 */
#ifndef RAG_H
#define RAG_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <jv.h>

#ifndef RAG_VERSION
#error "RAG_VERSION comes from the file VERSION, through the Makefile"
#endif
#define RAG_ERRLEN 512

/* One exit-code scheme for every tool; written in rag(7). */
enum rag_exit {
	RAG_EXIT_OK = 0,       /* success */
	RAG_EXIT_FAIL = 1,     /* a negative verdict (a gate failed) */
	RAG_EXIT_USAGE = 2,    /* usage or configuration error */
	RAG_EXIT_DATA = 3,     /* bad input data (some records carried input errors) */
	RAG_EXIT_REMOTE = 4,   /* the judge or remote service failed after retries for some record */
	RAG_EXIT_INTERNAL = 5, /* internal or system error (out of memory, write error) */
	RAG_EXIT_STORE = 6,    /* the run store failed (rag-store, rag-eval's store.url) */
};

/* ================================================================ 1. the foundation */
/* ---------------------------------------------------------------- util.c */
void *rag_xmalloc(size_t n);            /* aborts on out of memory: the one exception */
void *rag_xrealloc(void *p, size_t n);
void *rag_xcalloc(size_t n, size_t size);   /* zeroed; n or size 0 still gives a pointer */
char *rag_xstrdup(const char *s);
char *rag_xstrndup(const char *s, size_t n);
char *rag_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *rag_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* growable byte buffer */
typedef struct rag_buf { char *p; size_t len, cap; } rag_buf;
void rag_buf_add(rag_buf *b, const void *data, size_t n);
void rag_buf_adds(rag_buf *b, const char *s);
void rag_buf_addf(rag_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rag_buf_free(rag_buf *b);
/* The library's error messages: vsnprintf into err[errlen] (nothing when err is NULL). */
void rag_seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Replace the string *dst (freed) with a copy of v (NULL: none). */
void rag_set_str(char **dst, const char *v);
/* growable vector of malloc'ed strings; { 0 } is empty */
typedef struct rag_strv { char **v; size_t n, cap; } rag_strv;
void rag_strv_push(rag_strv *a, char *s);   /* takes s */
void rag_strv_free(rag_strv *a);            /* frees the strings too; a is empty again */
double rag_now(void);                   /* monotonic seconds */
/* write(2) all n bytes, again after EINTR and short writes: 0, or -1 with errno. */
int rag_write_all(int fd, const void *data, size_t n);
/* Read a whole file; NUL-terminated; NULL and err on failure. */
char *rag_read_file(const char *path, size_t *len, char *err, size_t errlen);
/* A set of ids (strings), numbered 0, 1, ... in the order added: NUL-terminated in one arena,
 * found through an open-addressing table of row + 1 (0 empty) by their FNV-1a hash. About 25
 * bytes an id, where a libjq object and a strdup each took over 120: a baseline of a million
 * records is kept whole. { 0 } is empty. The caller keeps its own columns per row. */
typedef struct rag_idtab {
	char *ids; size_t len, cap;   /* the arena */
	size_t *off, n, off_cap;      /* per row: where its id starts */
	uint32_t *tab; size_t tab_cap;   /* a power of 2, at least twice n */
} rag_idtab;
long rag_idtab_find(const rag_idtab *t, const char *id);   /* its row, or -1 */
/* A new row for id (the caller found it absent); -1 when the table is full (UINT32_MAX - 1 rows). */
long rag_idtab_add(rag_idtab *t, const char *id);
const char *rag_idtab_id(const rag_idtab *t, size_t row);   /* borrowed */
void rag_idtab_free(rag_idtab *t);   /* empty again */
/* Directory that holds share/ data (prompts...): $RAG_DATADIR, else <exe>/../share when running
 * from the build tree, else the compiled-in RAG_DATADIR. Borrowed, static storage. */
const char *rag_datadir(void);

/* ---------------------------------------------------------------- json.c */
/* o.k when o (consumed) is an object, else jv_invalid(): no libjq assertion on other kinds. */
jv rag_json_get(jv o, const char *k);
double rag_json_num(jv o, const char *k);     /* o borrowed; NAN unless a number */
int rag_json_true(jv o, const char *k);       /* o borrowed; 1 when o.k is true */
/* The value at a dotted path of o (borrowed): "scores.faithfulness", "system.top_k"; a key that
 * itself holds the dots is tried first. jv_invalid() when absent. */
jv rag_json_path(jv o, const char *path);
/* An id (v borrowed: a record's, a context's, any jv) as text, the one way every tool writes
 * one: a string as it is, a number as JSON writes it (0.1 is "0.1", never 0.10000000000000001),
 * another value as its compact JSON. NULL for null or absent. Every place that turns an id into
 * text (keys, JUnit names, the store, the report) calls this, so the same id matches across them. */
char *rag_json_id(jv v);
/* o.k (o borrowed) as text into buf: a string, a number (as rag_json_id writes it), else "".
 * Returns buf. */
const char *rag_json_str(jv o, const char *k, char *buf, size_t n);
/* A jq program, compiled once (libjq; its messages into err, never to stderr): NULL with "the
 * jq program does not compile: ..." in err. */
typedef struct rag_jq rag_jq;
rag_jq *rag_jq_new(const char *prog, char *err, size_t errlen);
/* The program's first result over input (consumed) in *out: 1, or 0 when it gives none (*out
 * null), or -1 with "the jq program failed: ..." in err when it raises an error. */
int rag_jq_first(rag_jq *q, jv input, jv *out, char *err, size_t errlen);
void rag_jq_free(rag_jq *q);

/* ---------------------------------------------------------------- sha256.c */
void rag_sha256(const void *data, size_t len, unsigned char out[32]);
void rag_sha256_hex(const void *data, size_t len, char out[65]);

/* ---------------------------------------------------------------- utf8.c (text.c helpers) */
/* Nonzero when s[0..n) is valid UTF-8. */
int rag_utf8_valid(const char *s, size_t n);
/* Copy of s[0..n) with invalid sequences replaced by U+FFFD (one per maximal invalid subpart). */
char *rag_utf8_sanitize(const char *s, size_t n);
/* Decode the code point at s (n bytes available): returns its length in bytes and sets *cp; an
 * ill-formed byte decodes as U+FFFD of length 1, so a scan always advances. 0 when n is 0. */
size_t rag_utf8_decode(const char *s, size_t n, long *cp);

/* ---------------------------------------------------------------- text.c */
/* "zh" when the text is mostly CJK ideographs, else "en": each ideograph and each run of other
 * letters (a word) counts once. Static string. */
const char *rag_text_lang(const char *s);
/* Nonzero for a character of a script written without spaces between words: Han ideographs
 * (and 〇, the ideographic zero) and Japanese kana. */
int rag_text_is_cjk(long cp);
/* NFKC + case fold, NULL when not valid UTF-8. */
char *rag_text_normalize(const char *s);
/* Tokens of a text for lexical matching, in text order, duplicates kept: normalised, stemmed
 * (English Snowball) words without stop words or negators; month abbreviations as full month
 * names ("jan" = "january"); numbers kept whole and canonical ("1,967" = "1967", "03" = "3",
 * "15.5" one token, "20th" = "20", "three" = "3"); CJK text as overlapping character bigrams, a
 * lone character by itself, with negators (不, 没有...) and 的 cutting the run. A number and the
 * Chinese unit after it are one token ("12人"; 十二人 and 七天 are "12人" and "7天"). A token is a
 * number exactly when it starts with an ASCII digit. Invalid UTF-8 is repaired first. Returns a
 * jv array of strings. s is borrowed. */
jv rag_text_tokens(const char *s);
/* rag_text_tokens of a text used as evidence: a quantity also gives its bare number, so that
 * "38岁" supports a claim of "38", while a claim of "12人" still needs 12 and 人 together. */
jv rag_text_tokens_evidence(const char *s);
/* Nonzero when s contains a negator: not, no, never, nor, none, nothing, cannot, without, n't...
 * or 不, 没(有), 未, 无, 非, 别 outside words like 非常, 未来, 不仅 ("not only" is no negation).
 * s is borrowed. */
int rag_text_negation(const char *s);
/* Nonzero when claim and text negate the same things. What a negator negates is the next key
 * after it (the next content word, stemmed; in CJK text the next character): they disagree when
 * the claim negates a key the text does not, or the text negates a key the claim states plainly.
 * "Einstein liked school" / "He did not like school" disagree; "Einstein was born in Ulm" /
 * "Einstein, who did not like school, was born in Ulm" agree. Both borrowed. */
int rag_text_negation_agrees(const char *claim, const char *text);

/* ---------------------------------------------------------------- usage.c */
typedef struct rag_usage {
	long calls;               /* requests answered by the endpoint (not cache) */
	long cache_hits;
	long prompt_tokens, completion_tokens;
	long retries;
	long invalid_usage;       /* replies whose usage held no token count (counted as missing) */
} rag_usage;
void rag_usage_add(rag_usage *to, const rag_usage *from);
/* What a run would take (--estimate), counted where the requests would be sent: requests,
 * prompt characters and estimated tokens (rag_tokens_estimate), and the completion tokens
 * expected by the rule of rag(7) ESTIMATES. */
typedef struct rag_estimate {
	long requests;
	double prompt_chars, prompt_tokens, completion_tokens;
} rag_estimate;
/* The tokens a text would take, estimated: 1 a CJK character (Han, kana, hangul, their
 * punctuation and full-width forms), and the other characters 1 token each 4; no tokenizer. */
double rag_tokens_estimate(const char *s);
/* The characters (code points) of a UTF-8 text. */
double rag_chars_count(const char *s);
/* {"calls":..,"cache_hits":..,"prompt_tokens":..,"completion_tokens":..,"judge":judge}, and
 * "retries", "invalid_usage" when not 0 */
jv rag_usage_json(const rag_usage *u, const char *judge);
/* The sizes --estimate gives what rag-collect has not collected yet: characters of an answer,
 * contexts a record, characters of a context. */
typedef struct rag_standin { double answer_chars, contexts, context_chars; } rag_standin;
/* rec (consumed) with a stand-in answer where it has none and stand-in contexts where it has
 * none, of the sizes of sz: plain sentences, so that the claims split and the tokens estimate
 * go as on prose. */
jv rag_estimate_standin(jv rec, const rag_standin *sz);
/* Add the sizes of a collected record (borrowed: its answer and contexts) to *sum, and count it
 * in *n when it has an answer; rag_standin_mean makes the sums means. */
void rag_standin_add(rag_standin *sum, long *n, jv rec);
void rag_standin_mean(rag_standin *sum, long n);

/* ================================================================ 2. configuration and records */
/* ---------------------------------------------------------------- config.c */
enum rag_cache_mode { RAG_CACHE_RW = 0, RAG_CACHE_RO, RAG_CACHE_REPLAY, RAG_CACHE_OFF };
/* llm.json_mode: the response_format sent (false is off, true is object, as the key once was) */
enum rag_json_mode { RAG_JSON_OFF = 0, RAG_JSON_OBJECT, RAG_JSON_SCHEMA };

typedef struct rag_kv { char *key; char *value; } rag_kv;
typedef struct rag_kd { char *key; double value; } rag_kd;
/* prices.<model>: what a model's tokens cost, in prices.currency per million tokens; a price
 * not written is NAN (unknown, never 0) */
typedef struct rag_price { char *model; double input, output; } rag_price;

/* The scale of a rubric (rag-judge(1)): its scores, and how they map to [0, 1]. */
enum rag_scale { RAG_SCALE_0_10 = 0, RAG_SCALE_1_5, RAG_SCALE_YESNO };
/* "0-10", "1-5", "yes/no": the scale, or -1. */
int rag_scale_parse(const char *s);
const char *rag_scale_name(int scale);    /* static; "0-10" for an unknown one */

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
		char *provider;       /* "openai" | "offline" | NULL (auto) */
		char *base_url;       /* e.g. https://api.openai.com/v1 */
		char *model;
		char *api_key_env;    /* name of the variable holding the key (default OPENAI_API_KEY) */
		char *api_key;        /* resolved secret: never printed */
		double temperature;   /* default 0 */
		long seed; int has_seed;
		int max_tokens;       /* default 2048 */
		double timeout;       /* seconds per request, default 60 */
		int retries;          /* default 4 */
		int concurrency;      /* requests in flight, default 8 */
		int adaptive;         /* halve the requests in flight on a 429, raise them again; default 1 */
		const char *inflight_file; /* a budget of concurrency requests shared by every process
		                       * naming this file (RAG_INFLIGHT, set by the tool layer), or NULL;
		                       * borrowed, not freed */
		double rpm, tpm;      /* requests / tokens per minute, 0 = no limit */
		double deadline;      /* seconds a request may take, retries and their waits included;
		                       * default 300, 0 = none */
		int json_mode;        /* enum rag_json_mode, default RAG_JSON_SCHEMA */
		char *answer_model;   /* model that generated the answers (self-judging warning) */
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
int rag_cache_mode_parse(const char *s);
const char *rag_cache_mode_name(int mode);

/* ---------------------------------------------------------------- record.c */
/* The record format's fields and the other names each is known by (README "Record format"):
 * RAGAS's (user_input, response, retrieved_contexts, ground_truth, reference_context_ids...),
 * a Java test set's camelCase (sampleId, referenceAnswer, groundTruth, expectedAnswer,
 * retrievedContexts, relevantDocIds...) and a few other tools'. One table, in record.c.
 * rag_record_get: the field by our name or any of its aliases, ours first. rec borrowed. */
jv rag_record_get(jv rec, const char *field);       /* jv_invalid() if absent */
/* Our name for a field given by any name ("groundTruth" -> "reference"): static, or field
 * itself when the table does not know it. */
const char *rag_record_canonical(const char *field);
/* 1 when name is a field of the record format, by our name or an alias. */
int rag_record_is_field(const char *name);
/* 1 when name is a field of the record format or one the tools write (scores, verdicts...). */
int rag_record_known(const char *name);
/* For a top-level field name the table does not know: the known name it is likely a typo of
 * ("referenceAnswr" -> "referenceAnswer"; compared in lower case without '_' and '-', within
 * one edit for a name of 5 letters or more, two for one of 12 or more), static; NULL when it
 * is known or far from every known name (a field of the user's own). */
const char *rag_record_suggest(const char *field);
/* The top-level field names of rec (borrowed) not in *seen (an object of names, updated) that
 * rag_record_suggest finds a typo of a known one: [[name, suggestion], ...]. */
jv rag_record_near_misses(jv rec, jv *seen);
/* rec (consumed) with each field that is absent by our name taken from its first alias present,
 * renamed: {"sampleId": "s1", "groundTruth": "x"} -> {"id": "s1", "reference": "x"}. */
jv rag_record_normalize(jv rec);
/* A `fields:` mapping (rag-config(5); rag-eval --field NAME=PROGRAM): our field name -> a jq
 * program over the record as it came (a path: .expected.text), each compiled once. */
typedef struct rag_fieldmap rag_fieldmap;
rag_fieldmap *rag_fieldmap_new(void);
/* Map field (ours or an alias) to prog; where is how the user wrote it, for the message:
 * "fields.reference". -1 with "WHERE: ..." in err when field is no field of the record format
 * or prog does not compile. The same field again replaces the earlier program. */
int rag_fieldmap_add(rag_fieldmap *m, const char *field, const char *prog, const char *where, char *err, size_t errlen);
size_t rag_fieldmap_count(const rag_fieldmap *m);   /* 0 for NULL */
/* Set each mapped field of *rec (an object; anything else is left alone) to its program's first
 * result; a result of null or none leaves the record as it is. -1 with "WHERE: the jq program
 * failed: ..." in err when one raises an error (the record then partly mapped). m may be NULL. */
int rag_fieldmap_apply(rag_fieldmap *m, jv *rec, char *err, size_t errlen);
void rag_fieldmap_free(rag_fieldmap *m);
/* Contexts as an array of strings: accepts strings or objects {text, id}. Returns invalid with
 * message when mistyped, or when a text holds a NUL (as rag_record_text). rec borrowed. */
jv rag_record_contexts(jv rec);
/* Append {tool, metric, message} to rec.errors (metric may be NULL). Consumes rec. */
jv rag_record_error(jv rec, const char *tool, const char *metric, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Append an error object (consumed) to rec.errors. Consumes rec. */
jv rag_record_add_error(jv rec, jv entry);
/* rec.<section>.<name> = value. Consumes rec and value. */
jv rag_record_set(jv rec, const char *section, const char *name, jv value);
/* rec.usage.<tool>.<stage> = usage, stage being what the tool made of the record: the metric it
 * scored or the field it read (usage["rag-claims"].reference, usage["rag-verify"].context_recall).
 * Each stage of a pipeline keeps its own entry, so that adding them all up counts every call;
 * the same stage run again replaces its entry with its own run. Consumes rec. */
jv rag_record_usage(jv rec, const char *tool, const char *stage, const rag_usage *u, const char *judge);
/* Borrowed string value of a field (with aliases) or NULL when absent or not a string;
 * valid while rec lives. For names and labels; a text to judge is read with rag_record_text. */
const char *rag_record_str(jv rec, const char *field);
/* A text the tool judges: 0 with *s as rag_record_str gives it (NULL when absent or not a
 * string), or -1 with "field "F" contains a NUL character (\u0000)" in err: JSON can carry a
 * \u0000 that a C string cannot, and judging the text before it would score a part as the
 * whole. rec borrowed. */
int rag_record_text(jv rec, const char *field, const char **s, char *err, size_t errlen);
/* 1 when s (borrowed) is a string that holds a NUL character. */
int rag_record_has_nul(jv s);
/* rag-gen's hard cases (rag(7) HARD CASES). 1 when rec (borrowed) says expect: "refusal": an
 * unanswerable case, whose right answer declines; the metrics that presuppose an answer make
 * themselves not applicable to it, and rag-kw's refusal scores it. */
int rag_record_expects_refusal(jv rec);
/* It names no metric: a tool alone does not know whether refusal runs (rag-eval adds it). */
#define RAG_NA_UNANSWERABLE "an unanswerable case (expect: refusal): its right answer declines"
/* A follow-up case's question as a judge is to read it: the earlier turns of rec's "history"
 * ([{"question", "answer"}], borrowed), labelled in question's language, then question. NULL
 * when rec has no such turn (the question alone is the text), else malloc'ed. */
char *rag_record_question_in_context(jv rec, const char *question);

/* ---------------------------------------------------------------- stream.c */
typedef struct rag_item {
	size_t lineno;
	jv rec;                   /* the record (object); tools modify it in place */
	int pending;              /* outstanding async operations */
	int bad;                  /* input error: rec already carries the error */
	int remote;               /* the judge failed for this record */
	int passthrough;          /* an upstream stage's error record: written as it came */
	int not_applicable;       /* metrics not applicable to this record (rag_item_not_applicable) */
	size_t bytes;             /* its input line's length (what it counts against the budget) */
	rag_usage usage;
	const char *stage;        /* usage.<tool>.<stage>: the metric or field judged (static), set by the tool */
	void *data;               /* tool state for this record */
	char *question_;          /* private: rag_item_question's text */
	struct rag_item *next;
	struct rag_stream *stream_; /* private */
} rag_item;

#define RAG_STREAM_BUDGET ((size_t)16 << 20)   /* rag_stream_opts.budget by default: 16 MiB */
#define RAG_STREAM_FACTOR 12      /* a parsed record takes about 10 times its line (libjq) */
#define RAG_STREAM_OVERHEAD 1024  /* and its item, the tool's state, the allocator's share */
typedef struct rag_stream rag_stream;
typedef struct rag_stream_ops {
	/* Called once per good record, in order. May start async operations (rag_item_hold). */
	void (*start)(rag_item *it, void *ctx);
	/* Called when pending drops to 0, before the record is written. */
	void (*finish)(rag_item *it, void *ctx);
	/* Progress pending async work; wait up to timeout seconds or until fd (>= 0) is readable.
	 * Returns 1 when fd is readable. */
	int (*run)(void *ctx, int fd, double timeout);
	/* Fail all pending work now (interrupt): callbacks must still release their items. */
	void (*cancel)(void *ctx);
} rag_stream_ops;

typedef struct rag_stream_opts {
	const char *prog;         /* "rag-verify" */
	const char *input_name;   /* "<stdin>" or a file name for positions */
	/* the reports name a record by input_name and its id ("set.jsonl, id \"q3\""), not by its
	 * line: a stage of rag-eval, whose line numbers are the pipeline's, not the test set's; a
	 * record without an id keeps its line. The records' "at" keeps the line. */
	int position_by_id;
	int strict;               /* stop at the first bad line with RAG_EXIT_DATA */
	int unbuffered;           /* flush after each record */
	int window;               /* max records held in memory (default 256) */
	/* max bytes for the records in flight (each RAG_STREAM_FACTOR x its line's length +
	 * RAG_STREAM_OVERHEAD) and the read buffer together: nothing more is read while they fill
	 * it; a record alone in flight goes whatever its size (max_line bounds it). Default
	 * RAG_STREAM_BUDGET. */
	size_t budget;
	size_t max_line;          /* longest accepted line (default 8 MiB) */
	/* called for each problem with a record: "error (at <stdin>:17): ..." (printing is the
	 * caller's business) */
	void (*report)(void *ctx, const char *msg);
	/* called about twice a second when set (progress line) */
	void (*progress)(void *ctx, long done, long read, long pending);
	void *progress_ctx;
	/* when set: called with the ops' ctx for every record, good, bad or an upstream error
	 * passed through, in order, just before it is written (rag-gate sees what a filter writes) */
	void (*observe)(rag_item *it, void *ctx);
	/* when set: nonzero (the signal's number) once the tool's signal handler ran; the stream
	 * then reads no more, cancels what is in flight, writes every record it read and returns
	 * 128 + the signal. The tool installs the handler (without SA_RESTART) and ignores SIGPIPE. */
	const volatile sig_atomic_t *interrupted;
	/* when the reader of out goes away (EPIPE): write no more, but read and observe on to the end
	 * of input (a reader of whole runs, such as rag-gate --tee, decides on all of it); unset: stop
	 * reading too, as a filter whose output nobody reads has nothing left to do */
	int drain;
} rag_stream_opts;

typedef struct rag_stream_stats {
	long records, input_errors, remote_errors;   /* lines read; bad lines; records the judge failed */
	long not_applicable;      /* records with a metric not applicable to them */
	rag_usage usage;
	double seconds;
	int interrupted;
	int closed;               /* the reader of out went away (EPIPE); without drain, reading stopped */
} rag_stream_stats;

void rag_item_hold(rag_item *it);
void rag_item_release(rag_item *it);
/* Record an input error on this record (missing or mistyped field): adds an errors entry with
 * the position, marks it bad; in strict mode the stream stops after it. */
void rag_item_input_error(rag_item *it, const char *tool, const char *metric, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The metric does not apply to this record by its definition (no reference answer for context
 * recall): scores.<metric> = null and not_applicable.<metric> = reason, no errors entry, no
 * change to the exit status; the summary counts such records apart (rag(7) NOT APPLICABLE). */
void rag_item_not_applicable(rag_item *it, const char *metric, const char *reason);
/* The question a judge prompt carries: as rag_record_text(it->rec, "question", ...), but with a
 * follow-up case's earlier turns before it (rag_record_question_in_context); *s lives as long as
 * the item. Every tool that puts the question into a prompt reads it here. */
int rag_item_question(rag_item *it, const char **s, char *err, size_t errlen);
/* Mark this record as having a remote (judge) failure: sets the RAG_EXIT_REMOTE status and
 * reports msg with the record's position. */
/* Where a record is, for a person: "FILE:LINE", or "TESTSET, id \"ID\"" in a stage of rag-eval
 * (rag_stream_opts.position_by_id), whose inner line numbers mean nothing to its user. */
void rag_item_where(const rag_item *it, char *buf, size_t n);
void rag_item_remote_error(rag_item *it, const char *msg);
/* Read records from in, write to out (NULL: write nothing). Returns an exit code (enum rag_exit). Prints nothing itself:
 * err receives the message when the stream had to stop (strict, write error). */
int rag_stream_run(FILE *in, FILE *out, const rag_stream_opts *o, const rag_stream_ops *ops,
                   void *ctx, rag_stream_stats *stats, char *err, size_t errlen);

/* ---------------------------------------------------------------- testset.c */
/* A test set file's records (rag-eval(1), INPUT): JSON Lines, a JSON array of objects, one or
 * several pretty-printed objects, or CSV with a header row (RFC 4180: quoted fields, "" inside
 * them, CRLF or LF; the header names the fields; an empty cell is an absent field; the columns
 * contexts, relevant_ids, context_ids, reference_contexts, keywords, system and rag-kw's
 * must_contain, must_not_contain, must_match, must_not_match holding a JSON array or object are
 * parsed). A UTF-8 byte order mark is skipped. */
enum rag_testset_format { RAG_TESTSET_AUTO = 0, RAG_TESTSET_JSON, RAG_TESTSET_CSV };
/* By the name's extension (.csv; .json, .jsonl, .ndjson), else by the content: JSON when the
 * first character is { or [ (or there is none), else CSV. name may be NULL. */
int rag_testset_detect(const char *name, const char *text, size_t len);
const char *rag_testset_format_name(int format);   /* "auto", "json", "csv" */
int rag_testset_format_parse(const char *s);       /* -1 when unknown */
/* The records of text[0..len) as a jv array of objects, format AUTO detected as above. Each
 * field absent by our name is taken from its alias (rag_record_normalize: sampleId -> id,
 * groundTruth -> reference...). A record without an id (or with an empty one) then gets
 * "case-N", N its 1-based place in the file; a number id becomes its text. Invalid jv with err
 * "NAME:LINE:COLUMN: message" on a broken file (name NULL: "<stdin>"). text borrowed. */
jv rag_testset_parse(const char *text, size_t len, const char *name, int format, char *err, size_t errlen);
/* The same, with the fields of the mapping fields (NULL: none) set first, by its programs over
 * each record as written; a program that fails on a record: invalid, with err "NAME: record N:
 * WHERE: the jq program failed: ...". */
jv rag_testset_parse_fields(const char *text, size_t len, const char *name, int format, rag_fieldmap *fields,
                            char *err, size_t errlen);
/* The top-level field names of records (borrowed, an array of objects) that look like typos
 * of a known one: [[name, suggestion], ...], each name once, in the order first met. */
jv rag_testset_near_misses(jv records);
/* The same, and *lines (lines not NULL) the line each record starts on (1-based), a jv array
 * parallel to the records; jv_invalid() on a broken file. */
jv rag_testset_parse_lines(const char *text, size_t len, const char *name, int format, jv *lines, char *err,
                           size_t errlen);
/* The records of the file f, read record by record in chunks (memory: the longest record, not
 * the file): each record, as rag_testset_parse_fields gives it, to cb (consumed) with the line it
 * starts on. cb returns 0 to go on, or a positive value that stops the reading and is returned.
 * Returns 0 at the end, or -1 with err: a broken file says its place as NAME:LINE:COLUMN, as
 * rag_testset_parse does (f read again from its start for that message when it can be: a
 * regular file); the records before the broken place have been given. name NULL: "<stdin>". */
typedef int (*rag_testset_cb)(jv rec, size_t line, void *ctx);
int rag_testset_each(FILE *f, const char *name, int format, rag_fieldmap *fields, rag_testset_cb cb, void *ctx,
                     char *err, size_t errlen);

/* ================================================================ 3. asking a model */
/* ---------------------------------------------------------------- cache.c */
typedef struct rag_cache rag_cache;
/* dir is created (mkdir -p, mode 0700) in RW mode; RO and REPLAY never create it. mode OFF gives
 * a cache that always misses, and only it accepts dir NULL. */
rag_cache *rag_cache_open(const char *dir, int mode, char *err, size_t errlen);
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
	int retries;
	jv vectors;               /* embeddings: borrowed array of vectors, one per text (jv_copy to
	                           * keep); null for a chat reply or on failure */
	jv choices;               /* rag_llm_submit_n with n > 1: borrowed array of the contents of
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
	                           * endpoint that answers it with 400 gets json_object from then on */
	int fresh;                /* ask the endpoint even when the cache holds the answer (a cached
	                           * reply that failed its check); not in replay mode */
	int repeat;               /* repeat i of the same question (rag-judge --repeat), 0 the first:
	                           * with llm.seed the request's seed is llm.seed + i; the cache key
	                           * holds i, so that repeats are distinct entries even without a seed */
	int plain;                /* a plain-text reply: no response_format, whatever llm.json_mode */
	int max_tokens;           /* this request's max_tokens; 0: llm.max_tokens */
} rag_llm_opts;
typedef void (*rag_llm_cb)(void *arg, const rag_llm_reply *r);
rag_llm *rag_llm_new(const rag_config *cfg, rag_cache *cache, char *err, size_t errlen);
/* The base URL that requests go to: cfg's llm.base_url, or OpenAI's when unset; for embeddings
 * embeddings.base_url first. Borrowed from cfg (or static). */
const char *rag_llm_base_url(const rag_config *cfg, int embeddings);
/* Queue a chat completion. messages: jv array of {role, content} (consumed).
 * The callback runs later, from rag_llm_run, exactly once. */
void rag_llm_submit(rag_llm *l, jv messages, rag_llm_cb cb, void *arg);
/* The same with "n": n choices from one request (n is part of the cache key). An endpoint that
 * ignores n answers fewer: reply->choices says how many came. */
void rag_llm_submit_n(rag_llm *l, jv messages, int n, rag_llm_cb cb, void *arg);
/* The same with every option (o borrowed). Chat replies are cached only when committed: */
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
const char *rag_llm_embed_model(const rag_llm *l);
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

/* ---------------------------------------------------------------- embed.c */
/* Texts to vectors: through the embeddings endpoint (cfg->embeddings, falling back to cfg->llm)
 * or offline (rag_vec_hashed). Texts of many calls share requests (batch_size texts, or what
 * has gathered in 200 ms, or all there is when rag_embed_run gets fd < 0); a text asked for
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
/* Send the gathered texts now. */
void rag_embed_flush(rag_embed *e);
/* As rag_llm_run; fd < 0 (no more input to wait for) sends a partial batch at once. */
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

/* ---------------------------------------------------------------- judge.c */
typedef struct rag_judge rag_judge;
/* Result callback of the judge and its operations: the result (consumed by the callback), or
 * jv_null() and error, a message borrowed for the call only (copy it to keep it). */
typedef void (*rag_judge_cb)(void *arg, jv result, const char *error);
/* The reply check of an operation: NULL when the reply (consumed) fits, with *result set, or a
 * problem text (it may write it into problem[plen]); expect is the caller's (how many verdicts,
 * claims, questions...). */
typedef const char *(*rag_judge_check)(jv reply, int expect, jv *result, char *problem, size_t plen);
/* One LLM operation, described once, in the operation's own file (rag_op_claims in claims.c):
 * what the judge asks with and checks the reply by, what --estimate counts, and what answers
 * for the offline judge. The registry (op.c) lists every one; tests/unit/t-op.c fails on a
 * field left unset or a prompt file missing, and rag_judge_new refuses such an operation. */
typedef struct rag_op {
	const char *name;         /* the operation, and its prompt: share/prompts/<name>.en.txt and
	                           * .zh.txt (or the config's prompts.<name>.<lang>) */
	int reply;                /* RAG_OP_JSON: JSON, found in the reply text (rag_reply_json);
	                           * RAG_OP_TEXT: the text itself (a verifier's bare Yes or No) */
	const char *schema;       /* RAG_OP_JSON: the reply's JSON Schema, sent as response_format
	                           * where llm.json_mode is schema (strict: every property required,
	                           * none other allowed); NULL for RAG_OP_TEXT */
	rag_judge_check check;    /* the reply check */
	double (*completion)(int expect);   /* --estimate: the completion tokens one reply is
	                           * expected to take, for the caller's expect (rag(7) ESTIMATES) */
	const char *offline;      /* what answers for the offline judge (its function), or
	                           * RAG_OP_NO_OFFLINE: the operation's tool refuses at set-up */
} rag_op;
enum { RAG_OP_JSON = 1, RAG_OP_TEXT };
#define RAG_OP_NO_OFFLINE "none"
/* The judge cfg names (llm.provider, else openai when an endpoint or key is set, else offline),
 * with the prompts of the operations in the NULL-terminated list loaded in both languages
 * (ignored offline): a missing prompt, or an operation with a field unset, is an error here, not
 * at the first record. What the judge needs of cfg is copied; cfg is not kept and not written.
 * NULL with err on config problems; notice receives a one-line notice (the offline fallback) or
 * stays empty. */
rag_judge *rag_judge_new(const rag_config *cfg, const rag_op *const *ops, char *notice, size_t noticelen,
                         char *err, size_t errlen);
/* 0 when every field of op is set (and fits its reply's shape), else -1 and err naming it. */
int rag_judge_op_check(const rag_op *op, char *err, size_t errlen);
const char *rag_judge_name(const rag_judge *j);   /* "offline" or "openai:<model>" */
const char *rag_judge_model(const rag_judge *j);  /* NULL for offline */
/* The generic question, for metric operations in their own files: fill op's prompt (loaded by
 * rag_judge_new) with vars (object of strings, consumed), ask, parse the JSON out of the reply
 * (a RAG_OP_TEXT reply: the text) and hand it to op->check with expect. A reply that does not
 * fit is re-asked once with the problem and fix_hint stated; then cb gets the result or an
 * error. Never called for the offline judge. The request carries op->schema (llm.json_mode); a
 * reply is cached only once it fits (rag_llm_commit), and a cached one that does not fit is
 * asked again of the endpoint before the re-ask. */
void rag_judge_ask(rag_judge *j, const rag_op *op, const char *lang, jv vars, int expect, const char *fix_hint,
                   rag_usage *usage, rag_judge_cb cb, void *arg);
/* rag_judge_ask with the endpoint's "n": n choices from one request, each checked; cb gets the
 * array of their results (fewer than n when the endpoint ignores "n"). */
void rag_judge_ask_n(rag_judge *j, const rag_op *op, const char *lang, jv vars, int n, int expect,
                     const char *fix_hint, rag_usage *usage, rag_judge_cb cb, void *arg);
/* rag_judge_ask as repeat i (0 the first) of the same question: rag_llm_opts.repeat. */
void rag_judge_ask_repeat(rag_judge *j, const rag_op *op, const char *lang, jv vars, int repeat, int expect,
                          const char *fix_hint, rag_usage *usage, rag_judge_cb cb, void *arg);
/* rag_judge_ask of a RAG_OP_TEXT operation (a dedicated verifier's bare Yes or No) with
 * max_tokens (0: llm.max_tokens): no response_format, op->check gets the reply text as a jv
 * string; a reply cut off at max_tokens is checked as it came; the re-ask asks for fix_hint only. */
void rag_judge_ask_plain(rag_judge *j, const rag_op *op, const char *lang, jv vars, int expect,
                         const char *fix_hint, int max_tokens, rag_usage *usage, rag_judge_cb cb, void *arg);
/* The check for a verifier's reply: *result true or false from its first word (Yes / No, any
 * case; 是 对 支持 / 否 不是 不对 不支持), anything else a problem. */
const char *rag_judge_check_yes_no(jv reply, int expect, jv *result, char *problem, size_t plen);
/* The reply check for "one verdict per numbered item": {"verdicts": [{"id": 1..expect,
 * "verdict": bool, "reason": str}]} -> *result = array of {verdict, reason} in id order. */
const char *rag_judge_check_verdicts(jv reply, int expect, jv *result, char *problem, size_t plen);
/* Its reply's schema, and one numbered list of verdicts within another schema; the completion
 * of expect verdicts (at least 1), 30 tokens each with its reason, for rag_op.completion. */
#define RAG_JUDGE_VERDICT_LIST \
	"{\"type\":\"array\",\"items\":{\"type\":\"object\",\"additionalProperties\":false," \
	"\"required\":[\"id\",\"verdict\",\"reason\"],\"properties\":{\"id\":{\"type\":\"integer\"}," \
	"\"verdict\":{\"type\":\"boolean\"},\"reason\":{\"type\":\"string\"}}}}"
#define RAG_JUDGE_VERDICTS_SCHEMA \
	"{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"verdicts\"],\"properties\":" \
	"{\"verdicts\":" RAG_JUDGE_VERDICT_LIST "}}"
double rag_judge_completion_verdicts(int expect);
int rag_judge_offline(const rag_judge *j);
/* Estimate mode (--estimate): from now on no request is sent; each one the operations ask is
 * counted into e (borrowed, kept until rag_judge_free) and answered at once with the error
 * RAG_ESTIMATE_ERROR. The offline judge asks nothing, so counts nothing. */
#define RAG_ESTIMATE_ERROR "estimate only: no request was sent"
void rag_judge_estimate(rag_judge *j, rag_estimate *e);
const rag_verify_conf *rag_judge_verify_conf(const rag_judge *j);   /* the verify settings it copied */
/* Run pending work (LLM transfers); see rag_llm_run. */
int rag_judge_run(rag_judge *j, int fd, double timeout);
/* rag_llm_inflight of the judge's client; 0 0 0 for the offline judge */
void rag_judge_inflight(const rag_judge *j, int *limit, int *low, int *cuts);
void rag_judge_cancel(rag_judge *j, const char *why);
/* 1 the first time a record (borrowed) or the config names the judge's own model as the model
 * that generated the answers; the caller warns once. */
int rag_judge_self_check(rag_judge *j, jv rec);
void rag_judge_free(rag_judge *j);

/* ================================================================ 4. the offline judge */
/* ---------------------------------------------------------------- claimsplit.c */
/* The offline, deterministic judge, no network, in two files: claimsplit.c cuts claims,
 * claimcheck.c checks them.
 * Split text into at most max_claims atomic claims (sentences, then clauses at ; and CJK
 * punctuation, and coordinated clauses), drop refusals, fillers and questions, and resolve a
 * leading pronoun with the question's subject where it can. max_claims <= 0: no cap. question
 * (may be NULL) and text borrowed. Returns a jv array of distinct single-line strings (possibly
 * empty). */
jv rag_offline_claims(const char *question, const char *text, int max_claims);
/* Append the sentences of s (valid UTF-8, borrowed) to out: cut at . ! ? (not at decimals,
 * abbreviations or initials), at CJK sentence ends and at newlines; each keeps its final
 * punctuation, whitespace runs become one space, markdown ** goes and empty ones are dropped.
 * With markers, list markers ("- ", "1. ", "## ") are dropped too, as in answers, where they
 * are layout; contexts keep them, where "1." may be data. A Markdown table row is one sentence,
 * never cut inside, and so is a bold label at the start of a line ("**Speed, not size**:
 * ..."); with markers, titles are dropped: # headings and bold labels that do not end as a
 * sentence does, bold lines, a table's header and separator rows. */
void rag_offline_sentences(const char *s, rag_strv *out, int markers);

/* ---------------------------------------------------------------- claimcheck.c */
/* Verdicts for each claim against the contexts (array of strings). Consumes claims and contexts.
 * Returns an array with one object per claim, in order:
 *   {"claim": claim, "verdict": true|false, "reason": "...", "context": index-or-null,
 *    "score": 0..1}
 * A claim is supported when the share of its content tokens (rag_text_tokens, less light words
 * such as "since" or "through") found in one context (or in all contexts together) is >=
 * threshold AND every number in the claim appears in that context (a month name also counts as
 * its number) AND the claim's negation agrees with the context sentence it matched best (or, for
 * a claim that denies something, with another sentence there that matches it at least half as
 * well and denies the same). A name of the claim (a capitalised word not starting a sentence,
 * not a month or weekday) is also found as a kin ("German" for "Germany"). "score" grades it:
 * the share found, times 0.5 per number missing, 0.25 for a negation that differs and 0.8 per
 * name the context (any context, for all together) lacks altogether. "context" is the
 * 0-based index of the context the reason names (the supporting one, or the closest one), null
 * when none; reasons count contexts from 1: "supported by context 2 (83% of content words)",
 * "number 20 not in context 1", "negation differs from context 1", "50% of content words found
 * in context 1 (below 60%)", "... in the contexts together ...", a name missing appended as
 * "; name Nepal not in it", "no contexts" (score 0). A threshold outside [0, 1] means 0.6. */
jv rag_offline_verify(jv claims, jv contexts, double threshold);

/* ---------------------------------------------------------------- vec.c */
/* Cosine similarity of a and b (n numbers each) into *out, in [-1, 1]; a zero vector has
 * similarity 0 with everything. -1 when the sums overflow. */
int rag_vec_cosine(const double *a, const double *b, size_t n, double *out);
/* The numbers of a jv array (borrowed), malloc'ed, count in *n; NULL unless a non-empty array of
 * finite numbers. */
double *rag_vec_from_jv(jv v, size_t *n);
/* rag_vec_cosine of two jv vectors (borrowed); -1 and err when they are not vectors or their
 * sizes differ ("dimension mismatch: ..."). */
int rag_vec_cosine_jv(jv a, jv b, double *out, char *err, size_t errlen);
/* The offline embedder: a deterministic L2-normalised vector of dims numbers (<= 0: 512) from
 * hashed features of text: its lexical tokens (rag_text_tokens) and character n-grams (word
 * trigrams with boundary marks; single CJK characters). A text without features gives zeros. */
jv rag_vec_hashed(const char *text, int dims);

/* ================================================================ 5. the metric operations */
/* The metric operations, one a file: each asks the judge (rag_judge_ask) or answers offline, and
 * hands its result to cb exactly once (at once when offline or when nothing needs asking).
 * usage is updated as calls complete and must stay valid until cb has run. question may be
 * NULL. Each LLM operation's descriptor is rag_op_<name> (hand it to rag_judge_new). */

/* ---------------------------------------------------------------- op.c */
/* The registry of the LLM operations (their descriptors, rag_op, each in its own file): every
 * one, NULL-terminated, in a fixed order; and one by name (its prompt's), NULL when none. */
const rag_op *const *rag_op_all(void);
const rag_op *rag_op_find(const char *name);

/* ---------------------------------------------------------------- claims.c */
extern const rag_op rag_op_claims;          /* prompt "claims" */
/* Split text into at most max_claims claims (prompt "claims"): cb gets an array of distinct
 * one-line strings (possibly empty). text and question borrowed. */
void rag_claims_ask(rag_judge *j, const char *lang, const char *question, const char *text,
                    int max_claims, rag_usage *usage, rag_judge_cb cb, void *arg);

/* ---------------------------------------------------------------- verify.c */
/* prompts "verify" (verify.mode batched), "verifier" (claim, claim_chunk: a bare Yes or No),
 * "faithfulness" (--one-request: claims and verdicts together) */
extern const rag_op rag_op_verify, rag_op_verifier, rag_op_faithfulness;
/* Is each claim (array of strings, consumed) supported by the contexts (array of strings,
 * consumed)? Prompt "verify". cb gets one {claim, verdict, reason} per claim, in order: no
 * request when there are no claims (an empty array) or no contexts (every claim unsupported,
 * "no contexts were retrieved"). verify.literal_match and verify.recheck_chunks as rag-config(5). */
void rag_verify_ask(rag_judge *j, const char *lang, const char *question, jv claims, jv contexts,
                    rag_usage *usage, rag_judge_cb cb, void *arg);
/* The score of verdicts (borrowed: what rag_verify_ask gives): the mean of each verdict's graded
 * score where it has one (offline), else of 1 for yes and 0 for no, into *score. -1 when there
 * are none: nothing was claimed, so there is nothing to score (not applicable, as RAGAS's NaN,
 * never a free 1). */
int rag_verify_score(jv verdicts, double *score);

/* Faithfulness in one request (prompt "faithfulness"): the answer (borrowed) split into at most
 * max_claims claims and each judged against the contexts (consumed) by the same reply. cb gets
 * what rag_verify_ask gives, {claim, verdict, reason} per claim. No contexts: the claims alone
 * (prompt "claims"), each unsupported; offline: rag_offline_claims, then rag_offline_verify. */
void rag_verify_answer_ask(rag_judge *j, const char *lang, const char *question, const char *answer, jv contexts,
                           int max_claims, rag_usage *usage, rag_judge_cb cb, void *arg);

/* ---------------------------------------------------------------- correctness.c */
extern const rag_op rag_op_correctness;
/* answer_correctness (RAGAS): the answer's claims (aclaims) judged against the reference, the
 * reference's claims (rclaims) against the answer, both lists in one request (prompt
 * "correctness"; offline: rag_offline_verify of each claim against the other text). Both
 * arrays of strings consumed, texts borrowed. cb gets one object per claim, the answer's first:
 * {claim, source: "answer"|"reference", class: "tp"|"fp" (answer claims supported by the
 * reference or not) | "covered"|"fn" (reference claims the answer has or misses), verdict,
 * reason}. No request when either list is empty (every claim of the other then fp or fn). */
void rag_correctness_ask(rag_judge *j, const char *lang, const char *question, const char *answer,
                         const char *reference, jv aclaims, jv rclaims, rag_usage *usage, rag_judge_cb cb,
                         void *arg);
/* The factual F1 of the counts: tp / (tp + 0.5 (fp + fn)), 1 when all three are 0. */
double rag_correctness_f1(int tp, int fp, int fn);
/* The weighted mean of the factual F1 and the similarity, (wf f + ws s) / (wf + ws); with
 * ws 0 the F1 alone (similarity unused), with wf 0 the similarity alone. */
double rag_correctness_score(double factual, double similarity, double factual_weight, double similarity_weight);

/* ---------------------------------------------------------------- chunks.c */
extern const rag_op rag_op_chunks;
/* Judge whether each retrieved chunk (contexts: array of strings, consumed) was useful for
 * target: the reference answer when reference is 1 (context precision), else the answer given
 * (context utilization). All chunks in one request, more only when they exceed
 * verify.batch_chars; prompt "chunks". The
 * offline judge: a score per chunk, the harmonic mean of the shares of the question's distinct
 * content words and of the target's words beyond the question's found in the chunk (the target's share
 * alone without a question), useful at verify.chunk_threshold or more. cb gets an array of
 * {chunk, verdict, reason} in retrieval order (offline also score, a number from 0 to 1; []
 * for no chunks, without a request), or null and an error. question may be NULL. */
void rag_chunks_ask(rag_judge *j, const char *lang, const char *question, const char *target, int reference,
                    jv contexts, rag_usage *usage, rag_judge_cb cb, void *arg);
/* The question less the words that ask (what, how many, what year; 什么, 哪里, 多少, 吗), which
 * no answer or chunk holds: what it is about (the offline judges' question words). Chinese
 * asking words become a space, so that no bigram spans them. Free the result. */
char *rag_chunks_subject(const char *question);

/* ---------------------------------------------------------------- revq.c */
extern const rag_op rag_op_revq;
/* Refusal phrasings, one a line ('#' comments), folded (NFKC, case, apostrophes, blanks) for
 * rag_revq_noncommittal. Invalid jv and err when the file cannot be read. */
jv rag_revq_refusals_load(const char *path, char *err, size_t errlen);
/* Nonzero when the answer (folded) contains one of the phrases (borrowed), or is blank. */
int rag_revq_noncommittal(jv phrases, const char *answer);
/* How rag_revq_ask gets its n questions: one request asking for all n (a list); one request
 * with the endpoint's "n" (n choices of one question each; what an endpoint that ignores "n"
 * leaves out is asked for in separate requests); or n separate requests of one question. */
enum rag_revq_mode { RAG_REVQ_LIST = 0, RAG_REVQ_N, RAG_REVQ_REQUESTS };
/* Ask the judge (prompt "revq", loaded beforehand) for n questions the answer would answer, and
 * whether it is noncommittal (when any generation says so). mode: enum rag_revq_mode. cb gets
 * {"generated": [strings], "noncommittal": bool} or an error. Not for the offline judge. */
void rag_revq_ask(rag_judge *j, const char *lang, const char *answer, int n, int mode,
                  rag_usage *usage, rag_judge_cb cb, void *arg);
/* The offline estimate of answer relevancy, with no model and no echo: 0 when the answer adds
 * no content word to the question's (it only repeats it); else the share of the question's
 * content words (less its asking words: how many, what year, 哪里, 多少) in the answer, halved
 * when the question's words ask for a kind of answer
 * (when/how many/who/where/why; 什么时候, 多少, 为什么...) that the answer does not give, and
 * raised halfway to 1 by a yes or no to a yes-no question. A short answer with none of the
 * question's words: 1 when it gives the kind asked for, 0.25 when not, 0.5 when the question
 * asks for no particular kind (offline cannot tell). why gets a sentence. */
double rag_revq_offline(const char *question, const char *answer, char *why, size_t whylen);

/* ---------------------------------------------------------------- rubric.c */
extern const rag_op rag_op_rubric;          /* no offline answer: rag-judge refuses */
/* rag-judge's rubrics: the built-in ones (correctness, relevance, completeness,
 * groundedness_0_10, consistent; rag-judge(1)) and those of the configuration's rubrics
 * section, which win over a built-in one of the same name. Prompt "rubric". */
typedef struct rag_rubric rag_rubric;
/* The rubric called name (cfg borrowed, not kept): NULL and err when there is none. */
rag_rubric *rag_rubric_get(const rag_config *cfg, const char *name, char *err, size_t errlen);
void rag_rubric_free(rag_rubric *r);
const char *rag_rubric_builtins(void);          /* "correctness, relevance, ...": static */
const char *rag_rubric_name(const rag_rubric *r);
int rag_rubric_scale(const rag_rubric *r);      /* enum rag_scale */
size_t rag_rubric_nfields(const rag_rubric *r);
const char *rag_rubric_field(const rag_rubric *r, size_t i);   /* canonical names: "question" */
/* The fields the rubric shows the judge, read from rec (borrowed): 0 and *values, an array in
 * the rubric's field order (contexts an array of strings, the others strings); 1 when the
 * rubric does not apply by its definition (it reads the reference and the record has none), *na
 * the reason (static); -1 and err for a missing or mistyped field. */
int rag_rubric_inputs(const rag_rubric *r, jv rec, jv *values, const char **na, char *err, size_t errlen);
/* The reply check (a rag_judge_check, expect being the scale): {"score", "reason"} with the
 * score on the scale (an integer in range; "yes" / "no" or a boolean for yes/no) and a reason
 * that is not blank -> *result {"score": number (yes 1, no 0), "reason": string}. */
const char *rag_rubric_check(jv reply, int scale, jv *result, char *problem, size_t plen);
/* Ask the judge to score the values (consumed, from rag_rubric_inputs) against the rubric, as
 * repeat `repeat` of the question (0 the first; llm.seed + repeat, rag_llm_opts). cb gets
 * {"score", "reason"} as rag_rubric_check gives it, or an error. Not for the offline judge. */
void rag_rubric_ask(rag_judge *j, const char *lang, const rag_rubric *r, jv values, int repeat,
                    rag_usage *usage, rag_judge_cb cb, void *arg);
/* A score on the scale in [0, 1]: 0-10 s / 10, 1-5 (s - 1) / 4, yes/no 1 or 0. */
double rag_rubric_normalise(int scale, double s);
/* verdicts.<rubric> from n >= 1 scores on the scale (repeats in order) and the first reason:
 * {score: the mean, scale, reason, pass (yes/no: more yes than no)}, and with n > 1 repeats,
 * stdev (the sample's, n - 1) and, when threshold (normalised) is not NAN or the scale is
 * yes/no, flip: whether the normalised repeats fall on both sides of it (equal passes). */
jv rag_rubric_verdict(const rag_rubric *r, const double *scores, int n, const char *reason, double threshold);

/* ---------------------------------------------------------------- chunk.c */
/* rag-gen's documents in chunks: text (Markdown or plain, borrowed; invalid UTF-8 repaired) cut
 * at ATX headings ("## ...", not inside ``` fences), each heading opening its chunk, then
 * paragraphs (blank lines) joined while the chunk holds at most max_chars characters (<= 0:
 * 1500), a longer paragraph by its sentences (rag_offline_sentences), a longer sentence cut at
 * the limit. A chunk that is a heading alone is dropped. Returns an array of {"id", "text",
 * "heading"}: id "<path>#<first 8 hex digits of the SHA-256 of the text>" ("-2", "-3"... after
 * it for the same text again in the file), heading the section's (null before the first).
 * *title (when title is not NULL) gets the first heading's text, malloc'ed, or NULL. */
jv rag_chunk_split(const char *path, const char *text, long max_chars, char **title);

/* ---------------------------------------------------------------- gen.c */
extern const rag_op rag_op_gen;
/* rag-gen's questions. Slot i (0-based) of a chunk's n has the difficulty rag_gen_difficulty(i)
 * (per five: easy, easy, medium, medium, hard) and the type rag_gen_type(i) (factual,
 * explanatory, factual, explanatory, comparative). Static strings. */
const char *rag_gen_difficulty(int i);
const char *rag_gen_type(int i);
/* Ask for n questions about one chunk (prompt "gen"; title and text borrowed): cb gets an array
 * of n {"question", "reference", "difficulty", "type"}, checked by rag_gen_check (a reply that
 * does not fit is re-asked once, then an error). Not for the offline judge. */
void rag_gen_ask(rag_judge *j, const char *lang, const char *title, const char *text, int n, rag_usage *usage,
                 rag_judge_cb cb, void *arg);
/* The reply check: {"questions": [...]} with expect items, each with a question, a reference,
 * slot i's difficulty and a known type. */
const char *rag_gen_check(jv reply, int expect, jv *result, char *problem, size_t plen);
/* The offline, extractive generator (rag-gen(1) OFFLINE): up to n of the chunk's statements of
 * four tokens or more, each the reference of "What does the document say about <subject>?"
 * (Chinese: 文档中关于<subject>说了什么？), difficulty easy, type factual. text borrowed. */
jv rag_gen_offline(const char *text, int n);
/* A case's stable id, "gen-" and 16 hex digits of the SHA-256 of question "\n" chunk_id. */
char *rag_gen_id(const char *question, const char *chunk_id);
/* Jaccard similarity of the distinct tokens (rag_text_tokens) of a and b, 1 when both have none. */
double rag_gen_similarity(const char *a, const char *b);

/* ---------------------------------------------------------------- genhard.c */
extern const rag_op rag_op_genhard;
/* rag-gen's hard cases (rag-gen(1) HARD CASES), their kinds in rag_gen_kinds' order, the names
 * records carry in "kind". */
enum { RAG_GEN_UNANSWERABLE = 0, RAG_GEN_NOISY, RAG_GEN_MULTI_HOP, RAG_GEN_FOLLOW_UP, RAG_GEN_NKINDS };
extern const char *const rag_gen_kinds[RAG_GEN_NKINDS];
/* A noisy phrasing of question, offline (malloc'ed): English, two typos in its words (a swap of
 * neighbouring letters, a letter dropped), lower case, a colloquial opening and "??"; Chinese,
 * a colloquial opening mixed with English. Seeded by the question: the same one, the same noise. */
char *rag_gen_noisy(const char *question);
/* How many terms texts a and b share (English words of five letters or more, pairs of Han
 * characters), and in *term (malloc'ed, or NULL when none) the longest of them. */
int rag_gen_shared(const char *a, const char *b, char **term);
/* The offline multi-hop case of two chunks sharing term: {"question", "reference"}, the reference
 * the first sentence of each chunk holding term; null when one has none. Borrowed arguments. */
jv rag_gen_offline_multihop(const char *term, const char *title_a, const char *text_a, const char *title_b,
                            const char *text_b);
/* The offline follow-up question (after a turn whose answer is a sentence of the chunk: what the
 * chunk says next), in lang. Static. */
const char *rag_gen_offline_followup(const char *lang);
/* An offline unanswerable question about subject: an attribute (inventor, warranty, price,
 * patent) that corpus (all the chunks' text) never names, starting at the turn-th. malloc'ed, or
 * NULL when the corpus names them all. */
char *rag_gen_offline_unanswerable(const char *subject, const char *lang, const char *corpus, int turn);
/* Ask for one hard case of kind (prompt "genhard"): text_a the chunk (text_b the second of a
 * multi-hop pair, else NULL), question and answer the real case it varies (noisy) or follows
 * (follow-up), else NULL; nth (1, 2...) the case's number among those of its kind from the same
 * chunk, so that a second one is a different request. cb gets {"question", "reference"} (reference "" for unanswerable and
 * noisy), checked by rag_gen_hard_check (expect: the kind). Borrowed arguments. */
void rag_gen_hard_ask(rag_judge *j, const char *lang, int kind, int nth, const char *text_a, const char *text_b,
                      const char *question, const char *answer, rag_usage *usage, rag_judge_cb cb, void *arg);
const char *rag_gen_hard_check(jv reply, int kind, jv *result, char *problem, size_t plen);

/* ---------------------------------------------------------------- genreview.c */
/* The review sheet of a test set (cases borrowed): CSV (action,id,kind,question,reference) or a
 * Markdown table with the same columns, every action "keep". name: the set's, for the title.
 * malloc'ed. */
char *rag_gen_review_sheet(jv cases, int csv, const char *name);
/* An edited sheet's rows [{action, id, question, reference, where}] (where: "FILE:LINE", or
 * "FILE: row N" for CSV); invalid jv and err naming the line when the sheet is malformed: no
 * table, a row of the wrong number of cells, an action not keep, drop or fix. text borrowed. */
jv rag_gen_review_read(const char *text, size_t len, const char *name, int csv, char *err, size_t errlen);
/* The set (borrowed) after the rows (borrowed): a drop row's case left out, a fix row's case with
 * its question and reference as edited, a new id (rag_gen_id of the question and the old id) and
 * revised_from the old; a keep row's case as it was (its id too), reviewed "keep"; a case no row
 * names kept as it was. counts: kept, dropped, fixed, not in the sheet. Invalid jv and err when
 * a row names no case or one twice, a keep row was edited, or a fix row's question is empty. */
jv rag_gen_review_apply(jv cases, jv rows, int counts[4], char *err, size_t errlen);
/* What a test set (borrowed) holds: {"cases", "category", "difficulty", "type", "kind" (counts;
 * "regular" for no kind), "duplicates" ([id, id] pairs: the same id, or questions this similar by
 * rag_gen_similarity, a noisy case and the case it rewords excepted), "missing_reference",
 * "missing_relevant_ids" (ids; an unanswerable case needs neither), "warnings" (fewer than 20
 * cases; no unanswerable, noisy or follow-up case)}. */
jv rag_gen_check_set(jv cases, double dup_threshold);
/* The check's report r (borrowed) as text for a person (name: the set's), or one JSON line;
 * *found: 1 when it lists a duplicate, a missing field or a warning. malloc'ed. */
char *rag_gen_check_text(jv r, const char *name, int json, int *found);

/* ---------------------------------------------------------------- collect.c */
/* rag-collect's call of the system under test (rag-collect(1)), from cfg->collect: HTTP (a body
 * made from the record by the collect.body jq program, sent with rag_llm_http) or a command
 * (/bin/sh -c, the record as one JSON line on its standard input, one JSON object read from its
 * standard output; its own process group, SIGTERM then SIGKILL past collect.timeout; the caller
 * ignores SIGPIPE, as the tool layer does). The reply (for a stream, the array of its events,
 * each parsed as JSON where it is JSON) goes through the answer, contexts and context_ids jq
 * programs; every program is compiled once, here. */
typedef struct rag_collect rag_collect;
typedef struct rag_collect_stats {
	long requests, failed, cache_hits, retries;   /* calls (commands run), those that failed */
} rag_collect_counts;
/* fields (consumed by the callback): what to set on the record: answer (a string, or null on
 * failure), contexts (strings) and context_ids when the reply gave them, latency_ms and status
 * (the HTTP status, or the command's exit status) when known, system (an object: the knobs the
 * reply says it ran with, by collect.system_from). error: NULL, or why the call failed
 * (borrowed for the call). Set them with rag_collect_merge. */
typedef void (*rag_collect_cb)(void *arg, jv fields, const char *error);
/* NULL and err when neither or both of url and command are set, or a program does not compile. */
rag_collect *rag_collect_new(const rag_config *cfg, char *err, size_t errlen);
const char *rag_collect_target(const rag_collect *c);   /* the URL or the command (borrowed) */
/* Call the system for rec (borrowed), with the config's system: knobs in it (rag_collect_system)
 * so the body program (or the command) sees what is recorded; cb runs later, from
 * rag_collect_run, exactly once. */
void rag_collect_record(rag_collect *c, jv rec, rag_collect_cb cb, void *arg);
/* rec (consumed) with the config's system: keys in its "system" object; keys the record's own
 * system object already has are kept. */
jv rag_collect_system(const rag_collect *c, jv rec);
/* rec (consumed) with the callback's fields (consumed) set, the reply's system knobs over the
 * record's own and those over the config's (what ran is what is recorded). */
jv rag_collect_merge(const rag_collect *c, jv rec, jv fields);
/* As rag_llm_run: progress, wait up to timeout for progress or fd; 1 when fd is readable. */
int rag_collect_run(rag_collect *c, int fd, double timeout);
/* Fail every call queued or in flight now (commands killed), callbacks with why. */
void rag_collect_cancel(rag_collect *c, const char *why);
void rag_collect_stats(const rag_collect *c, rag_collect_counts *s);
void rag_collect_free(rag_collect *c);

/* ================================================================ 6. scores and runs */
/* ---------------------------------------------------------------- rank.c */
/* Ranking metrics over one relevance vector (rag-ap(1) states the conventions). */
enum rag_rank_kind {
	RAG_RANK_AP = 1,          /* context precision (RAGAS): mean precision at the relevant ranks */
	RAG_RANK_MAP,             /* average precision (trec_eval map): the same sum over all relevant */
	RAG_RANK_P, RAG_RANK_RECALL, RAG_RANK_HIT, RAG_RANK_RR, RAG_RANK_NDCG, RAG_RANK_RPREC,
};
typedef struct rag_rank_metric {
	int kind;                 /* enum rag_rank_kind */
	long k;                   /* cut-off, 0 = the whole list */
	char name[48];            /* scores.<name>: "context_precision", "precision@5", "ndcg@10"... */
} rag_rank_metric;
/* The ranked list of one query. Positions past n are non-relevant. */
typedef struct rag_rank_list {
	const double *gain;       /* grade of each retrieved item in rank order, 0 = not relevant;
	                           * an item retrieved again counts 0 the second time (the caller's job) */
	size_t n;
	const double *ideal;      /* grades of every relevant item known, retrieved or not, any order */
	size_t nideal;
	double level;             /* relevant when grade >= level; level <= 0: when grade > 0 */
} rag_rank_list;
/* "ap", "map@10", "p@5", "recall@10", "hit@3", "mrr", "ndcg@10", "rprec" (and long names). */
int rag_rank_metric_parse(const char *spec, rag_rank_metric *m, char *err, size_t errlen);
/* 0 and *value, or 1 when the metric is undefined for this list, with *why (static text). */
int rag_rank_eval(const rag_rank_metric *m, const rag_rank_list *l, double *value, const char **why);
/* Number of relevant items known (ideal grades at or above the level). */
long rag_rank_nrel(const rag_rank_list *l);

/* ---------------------------------------------------------------- relevance.c */
/* The relevance vector of a record for rank.c: rag-ap(1) SOURCES. */
/* RAG_REL_AUTO: verdicts, then ids, then reference contexts (context precision's order);
 * RAG_REL_AUTO_IDS: ids, then verdicts, then reference contexts (every other metric's) */
enum { RAG_REL_AUTO = 0, RAG_REL_VERDICTS, RAG_REL_IDS, RAG_REL_SIMILARITY, RAG_REL_AUTO_IDS };
typedef struct rag_relevance {
	double *gain; size_t n;       /* per retrieved chunk, in retrieval order */
	double *ideal; size_t nideal; /* grades of every relevant item known */
	const char *source;           /* "verdicts", "ids" or "similarity" (static) */
	const char *ap_name;          /* name of average precision from this source: "context_precision",
	                               * or "context_utilization" from those verdicts (static) */
} rag_relevance;
/* The source metric m reads when source is asked (a --from): RAG_REL_AUTO becomes
 * RAG_REL_AUTO_IDS for every metric but context precision (RAG_RANK_AP), so that the ids a
 * record gives decide the ranking metrics and a judge's verdicts only where there are none. */
int rag_relevance_source(int source, const rag_rank_metric *m);
/* From source (RAG_REL_AUTO: the first present of verdicts.context_precision,
 * verdicts.context_utilization, relevant_ids, reference_contexts; RAG_REL_AUTO_IDS: relevant_ids
 * first; a relevant_ids that is null is absent). verdicts: the verdicts.<name>
 * to read (NULL: either of the two). threshold: least similarity for a relevant chunk. rec
 * borrowed. 0 ok; -1 input error; -2 the verdicts are null (an upstream judge failed; ap_name is
 * set); err set. */
int rag_relevance_get(jv rec, int source, const char *verdicts, double threshold, rag_relevance *r,
                      char *err, size_t errlen);
void rag_relevance_free(rag_relevance *r);
/* 1 - Levenshtein distance / longer length, over the code points of the normalised texts (NFKC,
 * case folded); 1 for two empty texts. Both borrowed. */
double rag_relevance_similarity(const char *a, const char *b);

/* ---------------------------------------------------------------- lexical.c */
/* String metrics of a candidate text (the answer) against a reference, no model; rag-kw(1)
 * states each convention and the implementation it agrees with. Scores are in [0, 1]. */
typedef struct rag_prf { double precision, recall, f; } rag_prf;
/* Both texts (borrowed) cut into words once for ROUGE, token F1 and exact match: NFKC, case
 * folded, runs of letters and digits (on ASCII text exactly rouge_score's tokens), each CJK
 * character a word of its own; with stem, ASCII words longer than 3 Porter-stemmed
 * (rouge_score's use_stemmer). Lines (for ROUGE-Lsum) are kept. */
typedef struct rag_lex rag_lex;
rag_lex *rag_lex_new(const char *cand, const char *ref, int stem);
void rag_lex_free(rag_lex *x);
size_t rag_lex_count(const rag_lex *x, int ref);          /* words of the candidate (0) or reference */
int rag_lex_rouge_n(const rag_lex *x, int n, rag_prf *out);  /* n in 1..9, else -1 */
void rag_lex_rouge_l(const rag_lex *x, rag_prf *out);    /* longest common subsequence */
void rag_lex_rouge_lsum(const rag_lex *x, rag_prf *out); /* union LCS over lines */
/* SQuAD's: the words without a, an, the; two texts without words agree. */
void rag_lex_token_f1(const rag_lex *x, rag_prf *out);
int rag_lex_exact_match(const rag_lex *x);
/* Nonzero when the normalised text (NFKC, case folded) contains the normalised needle. */
int rag_lex_contains(const char *text, const char *needle);
/* Regular expression search (Oniguruma, Perl syntax, as jq's test()): 0 and *match, or -1 and err
 * for a bad pattern. */
int rag_lex_regex(const char *text, const char *pattern, int *match, char *err, size_t errlen);

/* BLEU as sacrebleu: n-gram matches clipped by the most in one reference, the closest
 * reference length (of two as close, the shorter) for the brevity penalty. */
#define RAG_BLEU_MAX 9
enum { RAG_BLEU_13A = 0, RAG_BLEU_NONE, RAG_BLEU_ZH, RAG_BLEU_CHAR };      /* tokenize */
enum { RAG_SMOOTH_EXP = 0, RAG_SMOOTH_NONE, RAG_SMOOTH_FLOOR, RAG_SMOOTH_ADDK };
typedef struct rag_bleu_opts {
	int tokenize, lowercase, smooth;
	double smooth_value;      /* < 0: sacrebleu's default (floor 0.1, add-k 1) */
	int max_order;            /* 1..RAG_BLEU_MAX, default 4 */
	int effective_order;      /* default 1, as sacrebleu's sentence_bleu */
} rag_bleu_opts;
typedef struct rag_bleu_stats {
	double correct[RAG_BLEU_MAX], total[RAG_BLEU_MAX], sys_len, ref_len;
} rag_bleu_stats;           /* { 0 } is empty; sums over sentences make corpus BLEU */
void rag_bleu_opts_init(rag_bleu_opts *o);
/* The tokenizer for a text pair (RAG_BLEU_ZH or RAG_BLEU_13A): by lang (a record's "lang",
 * NULL when it has none: zh... and ja are written unspaced), else by script: zh where either
 * text holds a CJK character, which on text without one is 13a itself. */
int rag_bleu_tokenizer_for(const char *lang, const char *hyp, const char *ref);
void rag_bleu_stats_add(rag_bleu_stats *st, const char *hyp, const char *const *refs, size_t nrefs,
                        const rag_bleu_opts *o);
double rag_bleu_score(const rag_bleu_stats *st, const rag_bleu_opts *o);
/* chrF as sacrebleu: character n-grams (white space removed unless whitespace), F-beta of the
 * precision and recall averaged over the orders both texts have (eps_smoothing: the F of each
 * order averaged instead, sacrebleu's eps_smoothing); of several references, the best. */
#define RAG_CHRF_MAX 10
typedef struct rag_chrf_opts { int char_order; double beta; int whitespace, lowercase, eps_smoothing; } rag_chrf_opts;
typedef struct rag_chrf_stats { double v[3 * RAG_CHRF_MAX]; int order; } rag_chrf_stats;  /* { 0 } is empty */
void rag_chrf_opts_init(rag_chrf_opts *o);   /* order 6, beta 2 */
void rag_chrf_stats_add(rag_chrf_stats *st, const char *hyp, const char *const *refs, size_t nrefs,
                        const rag_chrf_opts *o);
double rag_chrf_score(const rag_chrf_stats *st, const rag_chrf_opts *o);

/* ---------------------------------------------------------------- keywords.c */
/* Keywords for rag-kw's keyword_overlap: English and numbers as rag_text_tokens (stemmed, no
 * stop words, numbers canonical); Chinese words by ICU's dictionary word segmentation (a
 * character it leaves single is a keyword of its own), without Chinese stop words. One object
 * per tool: it holds the ICU
 * break iterator. */
typedef struct rag_keywords rag_keywords;
rag_keywords *rag_keywords_new(char *err, size_t errlen);
void rag_keywords_free(rag_keywords *k);
/* The distinct keywords of text (borrowed), in text order: a jv array of strings. */
jv rag_keywords_of(rag_keywords *k, const char *text);
/* Share of the reference's keywords found in the answer into *score: a Chinese keyword in its
 * text counts 1, else the share of its characters the answer holds in a bigram with their
 * neighbour in the reference; any other keyword 1 among its tokens. *found (counted 1),
 * *missed (0) and *partly ({keyword, share} for the others) are arrays, the caller's. -1
 * (score 0) when the reference has no keywords. Both texts borrowed. */
int rag_keywords_overlap(rag_keywords *k, const char *answer, const char *reference, double *score,
                         jv *found, jv *missed, jv *partly);

/* ---------------------------------------------------------------- trec.c */
/* TREC qrels ("qid iter docno rel") and run ("qid Q0 docno rank score tag") files, ranked as
 * trec_eval ranks them: score descending, ties by docno descending; unjudged = not relevant.
 * The queries are those of the run that have judgments, in qid (strcmp) order. */
typedef struct rag_trec rag_trec;
rag_trec *rag_trec_load(const char *qrels, const char *run, char *err, size_t errlen);
size_t rag_trec_count(const rag_trec *t);
const char *rag_trec_qid(const rag_trec *t, size_t i);   /* borrowed */
/* The ranked list of query i (borrowed arrays, valid while t lives). */
void rag_trec_list(const rag_trec *t, size_t i, double level, rag_rank_list *l);
void rag_trec_free(rag_trec *t);

/* ---------------------------------------------------------------- stats.c */
/* A generator of our own (xoshiro256** seeded by splitmix64), so that a seed gives the same
 * draws on every machine and with every C library. */
typedef struct rag_rng { uint64_t s[4]; } rag_rng;
void rag_rng_seed(rag_rng *r, uint64_t seed);
uint64_t rag_rng_next(rag_rng *r);
uint64_t rag_rng_below(rag_rng *r, uint64_t n);   /* uniform in [0, n), n > 0, no modulo bias */
void rag_stats_sort(double *x, size_t n);          /* ascending */
double rag_stats_mean(const double *x, size_t n);  /* NAN when n is 0 */
/* Quantile p in [0, 1] of sorted x by linear interpolation between the closest ranks (Hyndman
 * and Fan's type 7, the default of R, NumPy and spreadsheets' PERCENTILE.INC): with
 * h = (n - 1) p, x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]), 0-based. NAN when
 * n is 0. */
double rag_stats_quantile(const double *sorted, size_t n, double p);
typedef struct rag_summary { size_t n; double mean, median, min, p10, max; } rag_summary;
/* Summary of x[0..n); sorts x in place. NANs when n is 0. */
void rag_stats_summary(double *x, size_t n, rag_summary *s);
/* Percentile bootstrap interval of the mean of d[0..n) (paired differences): `resamples` means
 * of n draws with replacement from rag_rng seeded with seed; the interval runs between their
 * quantiles (1 - confidence) / 2 and (1 + confidence) / 2. -1 (and NANs) when n is 0 or the
 * arguments are out of range. */
int rag_stats_bootstrap(const double *d, size_t n, int resamples, double confidence, uint64_t seed,
                        double *lo, double *hi);

/* ---------------------------------------------------------------- cost.c */
/* The price of a judge ("openai:<model>", or a model's name) in the table (borrowed), or NULL. */
const rag_price *rag_price_find(const rag_price *v, size_t n, const char *judge);
/* What the tokens cost at price p (per million tokens): NAN when p is NULL or lacks a price the
 * tokens need (no tokens cost 0 whatever the price). */
double rag_price_cost(const rag_price *p, double prompt_tokens, double completion_tokens);
/* acc (consumed; jv_null() to start) with a record's usage object (borrowed: usage.<tool>.<stage>,
 * or the flat usage.<tool> of older records) added, per tool, stage and judge. */
jv rag_cost_add(jv acc, jv usage);
/* acc (consumed) priced: {currency, calls, cache_hits, prompt_tokens, completion_tokens, total,
 * stages: [{tool, stage, judge, calls, cache_hits, prompt_tokens, completion_tokens, cost}],
 * no_price: [model], messages: ["no price for model M"]}; a cost (and the total) is null when a
 * model it needs has no price. */
jv rag_cost_summary(jv acc, const rag_price *prices, size_t nprices, const char *currency);

/* ---------------------------------------------------------------- gate.c */
/* The quality gate over a whole run (rag-gate(1)): every score is kept per metric and per
 * category (a median needs them all), plus the ids of a baseline and the worst records. */
typedef struct rag_gate rag_gate;
typedef struct rag_gate_opts {
	const rag_kd *mean; size_t nmean;       /* metric -> lowest mean (borrowed) */
	const rag_kd *record; size_t nrecord;   /* metric -> lowest score of a passing record */
	double min_pass_rate, max_error_rate, regression, confidence;
	int fail_on_regression, resamples, worst;
	uint64_t seed;
	/* metrics gated on the tool's own pass verdict (verdicts.<m>.pass, verdicts.<m>[0].verdict) */
	const char *const *pass; size_t npass;
	int fail_on_flip;                       /* a flip (verdicts.<m>.flip) on a gated metric fails */
	/* fields the records are grouped by (dotted paths); none: category */
	const char *const *by; size_t nby;
	/* the metrics the run scored (rag-eval's); none: not known. A threshold or pass verdict on
	 * another metric is not checked: a skipped check says it was not run */
	const char *const *run; size_t nrun;
	/* the price table (borrowed) for the summary's cost; none: every cost null */
	const rag_price *prices; size_t nprices;
	const char *currency;
} rag_gate_opts;
rag_gate *rag_gate_new(const rag_gate_opts *o);
/* A record of the baseline run (consumed), before any rag_gate_add; name is the baseline's
 * file for the summary. A line of rag-store diff (with "change") stands for the baseline's
 * record by its baseline_scores, and is left out when they are null (a record added since). */
void rag_gate_baseline(rag_gate *g, jv rec);
void rag_gate_baseline_name(rag_gate *g, const char *name);
/* A record of the run (borrowed); where names its position ("file:17"), unreadable says the line
 * was not a record. With want_checks: returns one check per metric of the table, {metric,
 * score, threshold, status: "pass"|"failure"|"error"|"skipped", message?} (skipped: the metric
 * is not applicable to the record, not_applicable.<metric>); else jv_invalid(). */
jv rag_gate_add(rag_gate *g, jv rec, const char *where, int unreadable, int want_checks);
/* rag_gate_add, returning the gate's verdict on the record, for a report that shows it:
 * {failed, errored (a gated score missing, or the line unreadable: out of the pass rate),
 * missed: [why it failed: the thresholds it missed, its nulls], checks: [as rag_gate_add's],
 * changes: [{metric, baseline, current, delta, change: "regressed"|"improved"|"none"}] against
 * the baseline record of the same id (empty without one)}. A record passes when neither. */
jv rag_gate_add_verdict(rag_gate *g, jv rec, const char *where, int unreadable);
/* The verdict and every table: {pass, records, unreadable, errored, passed, pass_rate,
 * thresholds, metrics: [...], categories: [...], by: [...], groups: [...], worst: [...],
 * baseline?: {...}, checks: [...]} (rag-gate(1) --json). Call once. */
jv rag_gate_summary(rag_gate *g);
/* Where metric row m (borrowed, of rag_gate_summary's metrics) took its relevance from, when
 * rag-ap said (relevance_from): "relevant ids in 2 records, the judge's chunk verdicts in 1";
 * NULL when it did not. malloc'ed. */
char *rag_gate_from_text(jv m);
/* The language of the run's questions so far, "en" or "zh" (rag_text_lang by majority). */
const char *rag_gate_lang(const rag_gate *g);
void rag_gate_free(rag_gate *g);
/* "METRIC=MIN" (MIN in [0, 1]) into list: a metric already there gets the new minimum. -1 and
 * err when arg is not that. */
int rag_gate_threshold_parse(const char *arg, rag_kd **list, size_t *n, char *err, size_t errlen);
/* The config's thresholds with the flags' over them, metric by metric: a new array (free it, not
 * the keys, which stay borrowed from the two lists). */
rag_kd *rag_gate_thresholds_merge(const rag_kd *cfg, size_t ncfg, const rag_kd *flags, size_t nflags, size_t *n);

/* ---------------------------------------------------------------- store.c */
/* The run store (rag-store(1)): runs (run.json whole, and its fields), their records (each line
 * as it came), test sets with versions, in SQLite (a file) or PostgreSQL, one schema and the
 * same results on both. Every write is one transaction under the store's lock. Functions that
 * look a run or a test set up return 1 (and err) when it is not there. No message holds the
 * URL's password. */
typedef struct rag_store rag_store;
/* the schema version this build writes (migrations bring older stores to it) */
int rag_store_schema(void);
/* url: "postgresql://..." (or "postgres://"), "sqlite:///PATH", "sqlite:PATH" or a file's path.
 * Creates the schema, or migrates an older one; refuses a newer one. NULL and err on failure. */
rag_store *rag_store_open(const char *url, char *err, size_t errlen);
void rag_store_close(rag_store *s);
int rag_store_is_pg(const char *url);
const char *rag_store_backend(const rag_store *s);   /* "sqlite", "postgresql"; static */
const char *rag_store_url(const rag_store *s);       /* as opened, password masked; borrowed */
char *rag_store_url_masked(const char *url);         /* malloc'ed */
/* A run to add: run.json (borrowed; jv_null() for a stream of records) and records.jsonl's
 * text; what is NULL is taken from run.json or left unset. */
typedef struct rag_store_run {
	const char *id;           /* NULL: run.json's run_id, else a new one */
	jv run;
	const char *records; size_t len;
	const char *label;
	const char *testset;      /* its name; NULL: run.json's test set's file name less its extension */
	const char *commit;       /* NULL: run.json's git.commit */
	/* the test set itself, stored as a version of testset (a new one when it changed); NULL: none */
	const char *testset_text; size_t testset_len; const char *testset_file;
	/* the gate that says whether each record passed (and a stream's run); NULL: unknown */
	const rag_gate_opts *gate;
} rag_store_run;
/* Add a run in one transaction: its id into *id (malloc'ed). A run id already there is an error. */
int rag_store_add(rag_store *s, const rag_store_run *in, char **id, char *err, size_t errlen);
typedef struct rag_store_filter {
	const char *testset, *since, *until, *commit;   /* NULL: any; until a day alone: to its end */
	const char *const *system; size_t nsystem;      /* "KEY=VALUE", every one must hold */
	long limit;                                     /* > 0: the newest limit runs */
} rag_store_filter;
/* The runs f lets through, oldest first (by started, then id): an array (into *out) of
 * {run, started, ended, label, commit, dirty, testset, testset_version, n, records_with_errors,
 * passed, gate, exit_status, means, system, added}. */
int rag_store_list(rag_store *s, const rag_store_filter *f, jv *out, char *err, size_t errlen);
/* A run's summary (consumed) as a history line: {run, started, label, commit, testset, n,
 * passed, means} (rag-store(1), HISTORY). */
jv rag_store_history(jv summary);
/* A run reference: its id, "last" or "last~N" (the Nth before the newest) -> the id. */
int rag_store_resolve(rag_store *s, const char *ref, char **id, char *err, size_t errlen);
/* A run's summary with "run_json" (null for a stream). */
int rag_store_show(rag_store *s, const char *id, jv *out, char *err, size_t errlen);
/* The run's records, appended to out byte for byte as they were added. */
int rag_store_export(rag_store *s, const char *id, rag_buf *out, char *err, size_t errlen);
/* Per record by id, newer's order then base's records newer lacks: an array (into *out) of
 * {id, change: regressed|improved|same|added|removed, delta: {metric: newer - base}, scores,
 * baseline_scores, answer, baseline_answer}. */
int rag_store_diff(rag_store *s, const char *base, const char *newer, jv *out, char *err, size_t errlen);
/* A test set file's text (any format of testset.c) as a version of name: *version, and
 * *created 1 when it is new (0: the newest version holds the same records). */
int rag_store_testset_import(rag_store *s, const char *name, const char *text, size_t len, const char *file,
                             int *version, int *created, char *err, size_t errlen);
/* Version (0: the newest) of test set name as JSON Lines appended to out; *version_out. */
int rag_store_testset_export(rag_store *s, const char *name, int version, rag_buf *out, int *version_out,
                             char *err, size_t errlen);
/* {backend, url, schema_version, runs, records, testsets} */
int rag_store_info(rag_store *s, jv *out, char *err, size_t errlen);

/* ---------------------------------------------------------------- hints.c */
/* The failure hints of lang ("en", "zh"): <datadir>/hints/<lang>.txt, lines "METRIC: text" (or
 * "A+B: text", the advice when both fail), as an object KEY -> text. jv_invalid() and err when
 * the file cannot be read or an entry is malformed. */
jv rag_hints_load(const char *lang, char *err, size_t errlen);
/* summary (consumed, from rag_gate_summary) with "hints": [{metrics: [...], hint}] for the
 * metrics whose gate failed (gate_failed): the advice for failures together first, then
 * retrieval's metrics, then the rest. hints borrowed. */
jv rag_hints_apply(jv summary, jv hints);

/* ---------------------------------------------------------------- report.c */
/* report (consumed): {runs: [{name, summary, meta?, href?}] (at least one; summary from
 * rag_gate_summary; meta the run's run.json; href a link to its own report), oldest first, the
 * last the run reported; records: [rag_report_record...] of that run; baseline?: {name,
 * records: {id: {a, sc}}} (the baseline's answers and scores); history?: [entries of
 * rag_report_history_read]; gated: whether any threshold was given}. One self-contained HTML
 * page: the Summary in HTML, the rest as escaped JSON shown by <datadir>/report/report.js
 * (inlined). Returns malloc'ed text, or NULL and err when the script cannot be read. */
char *rag_report_html(jv report, const char *title, char *err, size_t errlen);
/* The same page with the records and the baseline's records left out, for a caller that writes
 * them in from elsewhere (rag-report spools them to a file): report as above, its records and
 * its baseline's records not read. *records_at is the offset where the records go (inside the
 * data block's "records": [], comma-separated, each as rag_report_json_block writes it), *base_at
 * where the baseline's go (inside "base": {"name": ..., "records": {}}, as "id": {a, sc} pairs,
 * the id and the value each written by rag_report_json_block; *records_at when no baseline).
 * Returns malloc'ed text, or NULL and err as rag_report_html. */
char *rag_report_html_frame(jv report, const char *title, size_t *records_at, size_t *base_at, char *err, size_t errlen);
/* v (consumed) as JSON for the page's data block, appended to b: "<", ">", "&", U+2028 and
 * U+2029 as \u escapes, so that no text can end the block. */
void rag_report_json_block(rag_buf *b, jv v);
/* The bytes of in, from where it is to its end, gzip-compressed and base64-encoded to out (the
 * records of a page whose records.jsonl is beside it, rag-report --compress: the page's script
 * unpacks them with the browser's DecompressionStream). 0, or -1 and err. */
int rag_report_gz64(FILE *in, FILE *out, char *err, size_t errlen);
/* runs: [{name, summary}] as above. Markdown: the summary, a trend table, the worst records. */
char *rag_report_markdown(jv runs, const char *title);
/* A record of the run as the page shows it (rec borrowed, verdict consumed, from
 * rag_gate_add_verdict; where "file:line"): {id, cat, q, a, ref, ctx, sc, na, v, err, src, at,
 * st: "pass"|"fail"|"error", why?: [the gate's reasons], ch?: [the changes against the baseline]}. */
jv rag_report_record(jv rec, jv verdict, const char *where);
/* A history of runs (rag-report --history, rag-store history): text of JSON Lines, one object a
 * line with "means": {metric: mean} (and run, started, label, commit, testset, n, passed),
 * oldest first; blank lines skipped. An array, or jv_invalid() and err "name:line: ...". */
jv rag_report_history_read(const char *text, size_t len, const char *name, char *err, size_t errlen);
/* The verdict of a summary (borrowed): "PASS", "FAIL", or "SUMMARY" when its pass is null, a
 * summary with no decision (rag-gate --summary-only, rag-report with no threshold). */
const char *rag_report_verdict(jv summary);
/* The counts of a summary, or of one of its categories or groups (borrowed), in one sentence
 * whose figures add up and whose percentage names its denominator: "300 records: 231 passed
 * (79.7% of the 290 without errors or nulls), 59 failed, 10 with errors or nulls". gated 0:
 * "300 records, 10 with errors or nulls". Numbers only (no escaping needed), appended to b. */
void rag_report_counts(rag_buf *b, jv s, int gated);
/* The summary's baseline (borrowed) in one sentence: the records matched by id, how many of them
 * regressed (some metric did), improved (none regressed) or neither, and apart the pairs of a
 * record and a metric that regressed or improved. Appended to b. */
void rag_report_changes(rag_buf *b, jv base);

/* ---------------------------------------------------------------- terminal.c */
/* rag-gate's summary (rag_gate_summary, borrowed) as text: control characters in texts from the
 * records become "?"; ANSI colour when color is set. Returns malloc'ed text. */
char *rag_report_text(jv summary, int color);

/* ---------------------------------------------------------------- junit.c */
/* JUnit XML for rag-gate --junit, in three parts: the records' test cases as they come, then the
 * head (which needs the counts) and the tail around them. Texts are escaped for XML 1.0. */
typedef struct rag_junit { long tests, failures, errors, skipped; } rag_junit;
/* The test cases of one record (rec and checks borrowed; checks from rag_gate_add), appended to
 * b; counts in n. */
void rag_junit_record(rag_buf *b, rag_junit *n, jv rec, const char *where, jv checks);
/* The document up to the records' suite (summary borrowed): malloc'ed. */
char *rag_junit_head(jv summary, const rag_junit *n);
const char *rag_junit_tail(void);

/* ---------------------------------------------------------------- agree.c */
/* A judge's scores against people's labels (rag-agree(1)). A label is positive when above 0.5;
 * a prediction when its score is at or above the threshold. A measure the definition leaves
 * undefined (a zero denominator) is NAN, with *why (static text) where a function takes it. */
typedef struct rag_agree_cls {
	long tp, fp, fn, tn;      /* the confusion matrix: judge positive / negative x label */
	double accuracy, precision, recall, specificity, f1, kappa;
} rag_agree_cls;
/* ROC AUC as the Mann-Whitney U over the product of the class sizes, a tie counting half
 * (scikit-learn's roc_auc_score). -1 and why with one class only or no pairs. */
int rag_agree_auc(const double *score, const double *label, size_t n, double *auc, const char **why);
void rag_agree_classify(const double *score, const double *label, size_t n, double threshold,
                        rag_agree_cls *c);
/* Cohen's kappa of a 2x2 table (NAN when chance agreement is 1: both sides one constant). */
double rag_agree_kappa(long tp, long fp, long fn, long tn);
enum { RAG_AGREE_F1 = 0, RAG_AGREE_ACCURACY, RAG_AGREE_YOUDEN };
int rag_agree_measure_parse(const char *s);       /* "f1", "accuracy", "youden"; -1 else */
const char *rag_agree_measure_name(int measure);
/* The threshold, among the distinct scores, that maximises measure (of equal ones the lowest),
 * with its value; -1 when the measure is undefined at every one. */
int rag_agree_best_threshold(const double *score, const double *label, size_t n, int measure,
                             double *threshold, double *value);
/* Spearman's rho (Pearson's r of average ranks) and Kendall's tau-b; -1 and why for fewer than
 * two pairs or a constant side. */
int rag_agree_spearman(const double *x, const double *y, size_t n, double *rho, const char **why);
int rag_agree_kendall(const double *x, const double *y, size_t n, double *tau, const char **why);
/* Percentile bootstrap intervals (rag_rng seeded with seed, pairs drawn with replacement) of
 * AUC, accuracy, F1 and kappa at threshold; a resample where a measure is undefined is left out
 * of its interval (defined counts the rest). -1 when n is 0 or an argument is out of range. */
enum { RAG_AGREE_CI_AUC = 0, RAG_AGREE_CI_ACCURACY, RAG_AGREE_CI_F1, RAG_AGREE_CI_KAPPA, RAG_AGREE_NCI };
typedef struct rag_agree_ci { double lo, hi; long defined; } rag_agree_ci;
int rag_agree_bootstrap(const double *score, const double *label, size_t n, double threshold,
                        int resamples, double confidence, uint64_t seed, rag_agree_ci ci[RAG_AGREE_NCI]);
/* The two-sided normal quantile of confidence (0.95: 1.959964); NAN out of (0, 1). */
double rag_agree_z(double confidence);
/* Prediction-powered inference of a mean (Angelopoulos et al. 2023; ARES): the judge's mean
 * over all nall records minus the mean of judge - human over the nlab labelled ones, with the
 * CLT interval estimate +- z sqrt(var(judge_all)/nall + var(judge - human)/nlab) (sample
 * variances). -1 and why with fewer than two on either side. */
typedef struct rag_agree_ppi_est {
	double estimate, lo, hi, se, judge_mean, rectifier, human_mean;
	size_t n_all, n_labelled;
} rag_agree_ppi_est;
int rag_agree_ppi(const double *judge_all, size_t nall, const double *judge_lab, const double *human_lab,
                  size_t nlab, double confidence, rag_agree_ppi_est *e, const char **why);
/* A stratified sample of want of the n records to label: strata are score bands (0.25, 0.5,
 * 0.75 cuts for scores in [0, 1], else the scores' quartiles) x category (NULL: none); one per
 * stratum when want allows (else the largest strata), the rest in proportion, largest
 * remainders first; seeded draws within each. The indexes chosen go to picked (room for want),
 * in input order; returns how many. */
size_t rag_agree_sample(const double *score, const char *const *category, size_t n, size_t want,
                        uint64_t seed, size_t *picked);
/* v (borrowed) as a number: a number, true 1 / false 0, a string of a number or yes/no, y/n,
 * true/false, pass/fail (any case), 是/否. 0 ok; 1 absent (invalid, null, an empty string);
 * -1 a value of another kind. */
int rag_agree_value(jv v, double *x);

/* The summary of pairs (score[i], label[i]) and of every judge score (judge[0..nall), for the
 * corrected mean): rag-agree(1) --json's fields from pairs on, with null_reasons {measure:
 * why} for each null. Arrays borrowed. */
typedef struct rag_agree_opts {
	double threshold, confidence;
	int optimise, resamples;  /* RAG_AGREE_F1...; bootstrap resamples */
	uint64_t seed;
} rag_agree_opts;
jv rag_agree_summary(const double *score, const double *label, size_t n, const double *judge, size_t nall,
                     const rag_agree_opts *o);
/* The summary (borrowed, with the tool's counts added: records, field, label...) as text or
 * Markdown; control characters from the input are "?". malloc'ed. */
char *rag_agree_text(jv s);
char *rag_agree_markdown(jv s);
/* The sheet of records to label (rows borrowed: objects with id, category, score, reason,
 * question, answer, contexts as strings or numbers): CSV (RFC 4180, CRLF) or a Markdown table,
 * the columns in that order and an empty label column last. malloc'ed. */
char *rag_agree_sheet(jv rows, int markdown);


/* ---------------------------------------------------------------- evalplan.c */
/* rag-eval's plan: the metrics asked for -> the stages of the pipeline that score them -> the
 * pipeline as one shell command (what rag-eval --dry-run prints). Data and text only: the tool
 * prints it, checks its tools and runs it. */
enum {   /* the stages, in the order they run */
	RAG_EVAL_COLLECT, RAG_EVAL_CLAIMS, RAG_EVAL_VERIFY, RAG_EVAL_VERIFY_RECALL, RAG_EVAL_CORRECT,
	RAG_EVAL_REVQ, RAG_EVAL_EMBSIM, RAG_EVAL_CHUNKS, RAG_EVAL_CHUNKS_UTIL, RAG_EVAL_AP, RAG_EVAL_KW,
	RAG_EVAL_JUDGE,
	RAG_EVAL_NSTAGES          /* the count; in a metric's row, "no stage" */
};
typedef struct rag_evalstage {
	const char *tool, *args;  /* args: fixed words after the shared options, or NULL */
	int jobs;                 /* takes -j N */
	const char *list;         /* the option that names the metrics: the metrics of one such stage
	                           * join into one comma-separated list (rag-ap -m ap,mrr) */
} rag_evalstage;
extern const rag_evalstage rag_evalplan_stages[RAG_EVAL_NSTAGES];
/* The registry: each metric rag-eval scores, its stages (s2 RAG_EVAL_NSTAGES: one) and what its
 * stage's list option gets (NULL: the name itself; NAME for rubric:NAME). prefix: the name is a
 * prefix followed by a number (ndcg@10), or by a rubric's name (rubric:). Ended by name NULL. */
typedef struct rag_evalmetric {
	const char *name;
	int prefix;
	int s1, s2;
	const char *arg;
} rag_evalmetric;
extern const rag_evalmetric rag_evalplan_metrics[];
extern const char *const rag_evalplan_defaults[];   /* without -m or eval.metrics; NULL-ended */
const rag_evalmetric *rag_evalplan_find(const char *name);   /* NULL: no such metric */
const char *rag_evalplan_score_name(const char *name);       /* rubric:NAME writes scores.NAME */

typedef struct rag_evalplan {
	/* the plan: rag_evalplan_set_metrics, rag_evalplan_refusal; the caller sets
	 * stage_on[RAG_EVAL_COLLECT] and summary_only */
	rag_strv metrics;         /* the names asked for, in order (rubric:NAME as given) */
	int stage_on[RAG_EVAL_NSTAGES];
	rag_buf stage_list[RAG_EVAL_NSTAGES];   /* the list stages' metrics */
	int refusal_gate;         /* rag-gate gets -r refusal=1 */
	int summary_only;         /* rag-gate gets --summary-only */
	const char *ap_from;      /* ap.from (set by rag_evalplan_set_metrics) */
	/* where it runs, for the text: set by the caller (borrowed) */
	const char *bin;          /* the tools' directory, NULL: on PATH */
	const char *self;         /* rag-eval, the first stage */
	const char *config_path;  /* -c, or NULL */
	const char *format;       /* the test set's format name (--format) */
	const char *run_id, *rundir, *testset;   /* testset "-": standard input */
	const char *baseline;     /* the run directory compared with, or NULL */
	const char *sshlogin;     /* --sshlogin, or NULL */
	const rag_strv *fields;   /* --field NAME=PROGRAM, or NULL */
	long max_memory, jobs;    /* each stage's --max-memory and -j; 0: not given */
	long shards, block;       /* --jobs N (0: one process) and parallel's --block (rag_evalplan_block) */
	int skip_done;            /* a resumed run: --emit leaves out RUNDIR/records.jsonl's ids */
} rag_evalplan;
/* The metrics of list (comma-separated, as -m), else cfg's eval.metrics, else the defaults; each
 * stage that scores one on. 0, or -1 with err (an unknown metric, an empty list). */
int rag_evalplan_set_metrics(rag_evalplan *p, const char *list, const rag_config *cfg, char *err, size_t errlen);
/* The test set has unanswerable cases: refusal joins the metrics, and rag-gate gates it unless
 * cfg's gate does. 1 when refusal was added, 0 when it was asked for already, -1 with err. */
int rag_evalplan_refusal(rag_evalplan *p, const rag_config *cfg, char *err, size_t errlen);
/* --jobs: parallel's --block for the records (borrowed) less the ids of done (borrowed; invalid:
 * none), each with run_id, in shards blocks: between 1 KiB and 1 MiB. */
long rag_evalplan_block(jv records, jv done, const char *run_id, long shards);
/* The same from the bytes of those lines (total) and the longest, counted as they are read. */
long rag_evalplan_block_of(long total, long longest, long shards);
/* Stage s's command as words: the tool, -q, -c, --max-memory, -j, its args, --from, its list. */
void rag_evalplan_argv(const rag_evalplan *p, int s, rag_strv *argv);
/* The text: s quoted for sh where it needs it; a tool's path; the options every stage gets (-q,
 * -c, --max-memory); rag-gate's and rag-report's thresholds and --metrics; rag-gate's options;
 * the stages after --emit and before rag-gate, each after sep; and the whole pipeline, what
 * --dry-run prints (without its newline). Each appends to b. */
void rag_evalplan_shq(rag_buf *b, const char *s);
void rag_evalplan_tool(const rag_evalplan *p, rag_buf *b, const char *tool);
void rag_evalplan_common(const rag_evalplan *p, rag_buf *b);
void rag_evalplan_gate_thresholds(const rag_evalplan *p, rag_buf *b);
void rag_evalplan_gate_opts(const rag_evalplan *p, rag_buf *b);
void rag_evalplan_stages_text(const rag_evalplan *p, rag_buf *b, const char *sep);
void rag_evalplan_render(const rag_evalplan *p, rag_buf *b);
void rag_evalplan_free(rag_evalplan *p);   /* the plan's own: metrics and lists */

#endif
