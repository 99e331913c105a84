/* usage.h - what requests took (tokens, calls, cache hits) and what a run would take
 * (--estimate: the token estimate (usage.c), the stand-in sizes of records not collected yet
 * (standin.c)).
 * Layer 2 (HACKING.md). */
#ifndef RAG_USAGE_H
#define RAG_USAGE_H


#include <jv.h>

/* ---------------------------------------------------------------- usage.c */
typedef struct rag_usage {
	long calls;               /* requests answered by the endpoint (not cache) */
	long cache_hits;
	long prompt_tokens, completion_tokens;
	long cached_tokens;       /* of prompt_tokens, those the provider's prefix cache served */
	long retries;
	long invalid_usage;       /* replies whose usage held no token count (counted as missing) */
} rag_usage;
void rag_usage_add(rag_usage *to, const rag_usage *from);
/* What a run would take (--estimate), counted where the requests would be sent: requests,
 * prompt characters and estimated tokens (rag_usage_tokens), and the completion tokens
 * expected by the rule of rag(7) ESTIMATES. */
typedef struct rag_estimate {
	long requests;
	double prompt_chars, prompt_tokens, completion_tokens;
	double cached_prefix_tokens;   /* of prompt_tokens, the prefix each request repeats from the
	                                * one before it: what a provider's prefix cache could serve */
} rag_estimate;
/* The tokens a text would take, estimated: 1 a CJK character (Han, kana, hangul, their
 * punctuation and full-width forms), and the other characters 1 token each 4; no tokenizer. */
double rag_usage_tokens(const char *s);
/* The characters (code points) of a UTF-8 text. */
double rag_usage_chars(const char *s);
/* {"calls":..,"cache_hits":..,"prompt_tokens":..,"completion_tokens":..,"judge":judge}, and
 * "retries", "invalid_usage" when not 0 */
jv rag_usage_json(const rag_usage *u, const char *judge);
/* ---------------------------------------------------------------- standin.c */
/* The sizes --estimate gives what rag-collect has not collected yet: characters of an answer,
 * contexts a record, characters of a context. */
typedef struct rag_standin { double answer_chars, contexts, context_chars; } rag_standin;
/* rec (consumed) with a stand-in answer where it has none and stand-in contexts where it has
 * none, of the sizes of sz: plain sentences, so that the claims split and the tokens estimate
 * go as on prose. */
jv rag_usage_standin(jv rec, const rag_standin *sz);
/* Add the sizes of a collected record (borrowed: its answer and contexts) to *sum, and count it
 * in *n when it has an answer; rag_usage_standin_mean makes the sums means. */
void rag_usage_standin_add(rag_standin *sum, long *n, jv rec);
void rag_usage_standin_mean(rag_standin *sum, long n);

#endif
