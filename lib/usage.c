/* usage.c - counting what the judge cost. */
#include "rag.h"

void rag_usage_add(rag_usage *to, const rag_usage *from)
{
	to->calls += from->calls;
	to->cache_hits += from->cache_hits;
	to->prompt_tokens += from->prompt_tokens;
	to->completion_tokens += from->completion_tokens;
	to->retries += from->retries;
	to->invalid_usage += from->invalid_usage;
}

/* JSON numbers are doubles: counts stay far below 2^53, so the casts are exact. */
jv rag_usage_json(const rag_usage *u, const char *judge)
{
	jv o = jv_object();
	o = jv_object_set(o, jv_string("judge"), jv_string(judge ? judge : "none"));
	o = jv_object_set(o, jv_string("calls"), jv_number((double)u->calls));
	o = jv_object_set(o, jv_string("cache_hits"), jv_number((double)u->cache_hits));
	o = jv_object_set(o, jv_string("prompt_tokens"), jv_number((double)u->prompt_tokens));
	o = jv_object_set(o, jv_string("completion_tokens"), jv_number((double)u->completion_tokens));
	if (u->retries)
		o = jv_object_set(o, jv_string("retries"), jv_number((double)u->retries));
	if (u->invalid_usage)
		o = jv_object_set(o, jv_string("invalid_usage"), jv_number((double)u->invalid_usage));
	return o;
}
