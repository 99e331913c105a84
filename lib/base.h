/* base.h - the foundation every other part of the library stands on: the exit codes, checked
 * allocation, buffers, error messages, files, id tables (util.c); reading jv values of unknown
 * shape and jq programs (json.c); SHA-256 (sha256.c); UTF-8 (utf8.c); normalisation, tokens and
 * negation of text (text.c). Layer 1 (HACKING.md): it includes no other library header.
 *
 * Conventions of every library header:
 *  - The library never prints and never exits (tests/t/92-layers.t checks). Functions that can
 *    fail return 0 on success and -1 on failure, and write a one-line lowercase message into a
 *    caller's buffer (err, errlen).
 *  - jv ownership follows libjq: a jv argument is CONSUMED unless the comment says "borrowed".
 *    Returned jv values are owned by the caller.
 *  - Strings returned as char * are malloc'ed and owned by the caller unless said otherwise. */
#ifndef RAG_BASE_H
#define RAG_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#include <jv.h>

#ifndef RAG_VERSION
#error "RAG_VERSION comes from the file VERSION, through the Makefile"
#endif
#define RAG_ERRLEN 512

/* A function only its own file and that file's unit test call: static in the library, as curl's
 * UNITTEST is; external where the library is compiled for the unit tests (-DRAG_UNITTESTS:
 * obj/libragu.a, the Makefile), which is also the only build where the header declares it (in
 * its last section, "for unit tests"). */
#ifdef RAG_UNITTESTS
#define RAG_UNITTEST
#else
#define RAG_UNITTEST static
#endif

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
/* data[0..n) in base64 (RFC 4648's alphabet, padded with '=') appended to b */
void rag_buf_base64(rag_buf *b, const void *data, size_t n);
/* data[0..n) in lower-case hex appended to b; rag_hex: into out, 2n digits and a NUL */
void rag_buf_hex(rag_buf *b, const void *data, size_t n);
void rag_hex(char *out, const void *data, size_t n);
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
/* CSV for people (OWASP's CSV injection): a cell a spreadsheet would run as a formula (its text
 * starts with =, +, -, @, a tab or a carriage return, and is not a plain decimal number such as
 * -1 or +0.5) is written with a ' before it; so is one that starts with ' followed by one of
 * those or by another ', so that the reader's rule gives every text back. rag_csv_protect: 1 when
 * s needs the '. rag_csv_unprotect: s past that one ' (borrowed), else s:
 * rag_csv_unprotect(protected(s)) is s for every s. */
int rag_csv_protect(const char *s);
const char *rag_csv_unprotect(const char *s);
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
/* n programs compiled as one, in one libjq state (libjq 1.6 takes about 30 ms a compile, most of
 * it its builtins): out[i] runs progs[i] as rag_jq_new's program would; each out[i] is freed
 * alone (the state with the last). -1 when they do not compile together: compile each with
 * rag_jq_new then, for its own message. */
int rag_jq_new_set(const char *const *progs, size_t n, rag_jq **out);
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
/* The same, scanned once for many comparisons: rag_negation_scan(s) (s borrowed; never NULL),
 * rag_negation_denies(n) = rag_text_negation(s), rag_negation_agree(c, t) =
 * rag_text_negation_agrees(c's text, t's text); rag_negation_free(n) (n may be NULL). */
typedef struct rag_negation rag_negation;
rag_negation *rag_negation_scan(const char *s);
int rag_negation_denies(const rag_negation *n);
int rag_negation_agree(const rag_negation *claim, const rag_negation *text);
void rag_negation_free(rag_negation *n);

#endif
