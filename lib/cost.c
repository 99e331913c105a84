/* cost.c - what a run's tokens cost, from the usage its records carry and the price table
 * (prices.<model> in the configuration), and what a run would cost (--estimate).
 *
 * A model the table does not price has no cost: null and a message naming it, never 0. */
#include "base.h"
#include "config.h"
#include "gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const rag_price *rag_cost_price_find(const rag_price *v, size_t n, const char *judge)
{
	const char *colon;
	size_t i;
	if (!judge) return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(v[i].model, judge)) return &v[i];
	/* "openai:<model>": the model's own name */
	if ((colon = strchr(judge, ':')))
		for (i = 0; i < n; i++)
			if (!strcmp(v[i].model, colon + 1)) return &v[i];
	return NULL;
}

double rag_cost_tokens(const rag_price *p, double prompt_tokens, double cached_tokens, double completion_tokens)
{
	double c = 0;
	if (prompt_tokens > 0) {
		if (!p || isnan(p->input)) return NAN;
		if (!(cached_tokens > 0) || isnan(p->cached_input)) cached_tokens = 0;
		if (cached_tokens > prompt_tokens) cached_tokens = prompt_tokens;
		c += (prompt_tokens - cached_tokens) / 1e6 * p->input;
		if (cached_tokens > 0) c += cached_tokens / 1e6 * p->cached_input;
	}
	if (completion_tokens > 0) {
		if (!p || isnan(p->output)) return NAN;
		c += completion_tokens / 1e6 * p->output;
	}
	return c;
}

/* the model a judge name prices: "openai:m" -> "m" */
static const char *model_of(const char *judge)
{
	const char *colon = strchr(judge, ':');
	return colon ? colon + 1 : judge;
}

static jv add_num(jv o, const char *k, double x)
{
	double was = rag_json_num(o, k);
	return jv_object_set(o, jv_string(k), jv_number((isnan(was) ? 0 : was) + x));
}

static jv add_entry(jv acc, const char *tool, const char *stage, jv u)
{
	static const char *const counts[] = {"calls", "cache_hits", "prompt_tokens", "cached_tokens", "completion_tokens"};
	char jbuf[256];
	const char *judge = rag_json_str(u, "judge", jbuf, sizeof jbuf);
	char *key;
	jv e;
	size_t i;
	if (!judge) judge = rag_json_str(u, "model", jbuf, sizeof jbuf);
	if (!judge) judge = "none";
	key = rag_xasprintf("%s\t%s\t%s", tool, stage, judge);
	e = jv_object_get(jv_copy(acc), jv_string(key));
	if (jv_get_kind(e) != JV_KIND_OBJECT) {
		jv_free(e);
		e = JV_OBJECT(jv_string("tool"), jv_string(tool), jv_string("stage"), jv_string(stage),
		              jv_string("judge"), jv_string(judge));
	}
	for (i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		double x = rag_json_num(u, counts[i]);
		e = add_num(e, counts[i], isnan(x) || x < 0 ? 0 : x);
	}
	acc = jv_object_set(acc, jv_string(key), e);
	free(key);
	return acc;
}

jv rag_cost_add(jv acc, jv usage)
{
	if (jv_get_kind(acc) != JV_KIND_OBJECT) {
		jv_free(acc);
		acc = jv_object();
	}
	if (jv_get_kind(usage) != JV_KIND_OBJECT) return acc;
	jv_object_foreach(usage, tool, per) {
		if (jv_get_kind(per) == JV_KIND_OBJECT) {
			jv j = jv_object_get(jv_copy(per), jv_string("judge"));
			if (jv_get_kind(j) == JV_KIND_STRING) {
				/* the flat shape of older records: usage.<tool>.{judge, calls...} */
				acc = add_entry(acc, jv_string_value(tool), "all", per);
			} else {
				jv_object_foreach(per, stage, u) {
					if (jv_get_kind(u) == JV_KIND_OBJECT)
						acc = add_entry(acc, jv_string_value(tool), jv_string_value(stage), u);
					jv_free(stage);
					jv_free(u);
				}
			}
			jv_free(j);
		}
		jv_free(tool);
		jv_free(per);
	}
	return acc;
}

jv rag_cost_summary(jv acc, const rag_price *prices, size_t nprices, const char *currency)
{
	jv keys, stages = jv_array(), missing = jv_object(), msgs = jv_array(), out;
	double calls = 0, hits = 0, pt = 0, cached = 0, ct = 0, total = 0;
	int i, n, priced = 1;

	if (jv_get_kind(acc) != JV_KIND_OBJECT) {
		jv_free(acc);
		acc = jv_object();
	}
	keys = jv_keys(jv_copy(acc));
	n = jv_array_length(jv_copy(keys));
	for (i = 0; i < n; i++) {
		jv k = jv_array_get(jv_copy(keys), i);
		jv e = jv_object_get(jv_copy(acc), k);
		char jbuf[256];
		const char *judge = rag_json_str(e, "judge", jbuf, sizeof jbuf);
		double p = rag_json_num(e, "prompt_tokens"), c = rag_json_num(e, "completion_tokens");
		double kt = rag_json_num(e, "cached_tokens");
		double cost = rag_cost_tokens(rag_cost_price_find(prices, nprices, judge), p, kt, c);
		cached += kt;
		calls += rag_json_num(e, "calls");
		hits += rag_json_num(e, "cache_hits");
		pt += p;
		ct += c;
		if (isnan(cost)) {
			priced = 0;
			missing = jv_object_set(missing, jv_string(model_of(judge ? judge : "none")), jv_true());
			e = jv_object_set(e, jv_string("cost"), jv_null());
		} else {
			total += cost;
			e = jv_object_set(e, jv_string("cost"), jv_number(cost));
		}
		stages = jv_array_append(stages, e);
	}
	jv_free(keys);
	jv_free(acc);
	keys = jv_keys(missing);
	n = jv_array_length(jv_copy(keys));
	for (i = 0; i < n; i++) {
		jv m = jv_array_get(jv_copy(keys), i);
		char *s = rag_xasprintf("no price for model %s", jv_string_value(m));
		msgs = jv_array_append(msgs, jv_string(s));
		free(s);
		jv_free(m);
	}
	out = JV_OBJECT(jv_string("currency"), jv_string(currency ? currency : "USD"),
	                jv_string("calls"), jv_number(calls), jv_string("cache_hits"), jv_number(hits),
	                jv_string("prompt_tokens"), jv_number(pt), jv_string("cached_tokens"), jv_number(cached),
	                jv_string("completion_tokens"), jv_number(ct), jv_string("total"), priced ? jv_number(total) : jv_null());
	out = jv_object_set(out, jv_string("stages"), stages);
	out = jv_object_set(out, jv_string("no_price"), keys);
	out = jv_object_set(out, jv_string("messages"), msgs);
	return out;
}
