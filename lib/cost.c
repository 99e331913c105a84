/* cost.c - what a run's tokens cost, from the usage its records carry and the price table
 * (prices.<model> in the configuration), and what a run would cost (--estimate).
 *
 * A model the table does not price has no cost: null and a message naming it, never 0. */
#include "base.h"
#include "config.h"
#include "gate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

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

/* ---------------------------------------------------------------- the spending cap */
struct rag_cost_meter {
	rag_price price;          /* the judge's (a copy: the table is the configuration's) */
	double cap;
	char *currency;
	int fd;                   /* the shared file, or -1: the state below is the run's */
	double spent, held;       /* answered requests' cost; the estimates of those in flight */
	int reached;
	double window;            /* llm.spend_window, 0: the cap is the whole run's */
	long long slot;           /* the window spent and held count in (its start / window) */
};

rag_cost_meter *rag_cost_meter_new(const rag_config *cfg, const char *judge, char *err, size_t errlen)
{
	const rag_price *p = rag_cost_price_find(cfg->prices.v, cfg->prices.n, judge);
	rag_cost_meter *m;
	if (!p || isnan(p->input) || isnan(p->output)) {
		rag_seterr(err, errlen, "llm.max_cost needs the price of the judge's model: prices.%s.input and .output "
		           "(rag-config(5))", model_of(judge ? judge : "none"));
		return NULL;
	}
	m = rag_xcalloc(1, sizeof *m);
	m->price = *p;
	m->price.model = NULL;
	m->cap = cfg->llm.max_cost;
	m->currency = rag_xstrdup(cfg->prices.currency ? cfg->prices.currency : "USD");
	m->fd = -1;
	m->window = cfg->llm.spend_window > 0 ? cfg->llm.spend_window : 0;
	m->slot = LLONG_MIN;
	if (cfg->llm.spend_file && *cfg->llm.spend_file &&
	    (m->fd = open(cfg->llm.spend_file, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		rag_seterr(err, errlen, "cannot open the run's spending file %s: %s", cfg->llm.spend_file, strerror(errno));
		rag_cost_meter_free(m);
		return NULL;
	}
	return m;
}

/* the shared state into m, locked (until put); an empty file is a run that spent nothing */
static void ledger_take(rag_cost_meter *m)
{
	char buf[128];
	ssize_t n;
	if (m->fd < 0) return;
	while (flock(m->fd, LOCK_EX) < 0 && errno == EINTR) {}
	n = pread(m->fd, buf, sizeof buf - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	m->spent = m->held = 0;
	m->reached = 0;
	m->slot = LLONG_MIN;
	/* "SPENT HELD REACHED", and the window's slot with llm.spend_window */
	if (sscanf(buf, "%lf %lf %d %lld", &m->spent, &m->held, &m->reached, &m->slot) < 3)
		m->spent = m->held = 0, m->reached = 0;
}

static void ledger_put(rag_cost_meter *m)
{
	char buf[128];
	int n;
	if (m->fd < 0) return;
	if (m->window > 0)
		n = snprintf(buf, sizeof buf, "%.17g %.17g %d %lld\n", m->spent, m->held > 0 ? m->held : 0, m->reached, m->slot);
	else
		n = snprintf(buf, sizeof buf, "%.17g %.17g %d\n", m->spent, m->held > 0 ? m->held : 0, m->reached);
	if (pwrite(m->fd, buf, (size_t)n, 0) == n) (void)!ftruncate(m->fd, n);
	flock(m->fd, LOCK_UN);
}

int rag_cost_meter_admit(rag_cost_meter *m, double prompt_tokens, double completion_tokens, double *held,
                         char *msg, size_t msglen)
{
	double c = rag_cost_tokens(&m->price, prompt_tokens, 0, completion_tokens);
	int ok;
	*held = 0;
	ledger_take(m);
	ok = !m->reached && m->spent + m->held + c <= m->cap;
	if (ok) {
		m->held += c;
		*held = c;
	} else {
		m->reached = 1;
	}
	ledger_put(m);
	if (!ok && m->window > 0)
		rag_seterr(msg, msglen, RAG_COST_CAPPED ": the cost of this record's window (%g s of the records' time) "
		           "would pass llm.max_cost (%g %s); the request was not sent", m->window, m->cap, m->currency);
	else if (!ok)
		rag_seterr(msg, msglen, RAG_COST_CAPPED ": the run's cost would pass llm.max_cost (%g %s); "
		           "the request was not sent", m->cap, m->currency);
	return ok ? 0 : -1;
}

void rag_cost_meter_settle(rag_cost_meter *m, double held, double prompt_tokens, double cached_tokens,
                           double completion_tokens)
{
	double c = rag_cost_tokens(&m->price, prompt_tokens, cached_tokens, completion_tokens);
	ledger_take(m);
	m->held -= held;
	if (m->held < 1e-15) m->held = 0;
	if (!isnan(c)) m->spent += c;
	ledger_put(m);
}

double rag_cost_meter_spent(rag_cost_meter *m, int *reached)
{
	ledger_take(m);
	ledger_put(m);
	if (reached) *reached = m->reached;
	return m->spent;
}

double rag_cost_meter_cap(const rag_cost_meter *m)
{
	return m->cap;
}

void rag_cost_meter_at(rag_cost_meter *m, double t)
{
	double s;
	if (!m || !(m->window > 0) || !isfinite(t)) return;
	s = floor(t / m->window);
	if (s < -9e18 || s > 9e18) return;
	ledger_take(m);
	if ((long long)s > m->slot) {
		m->slot = (long long)s;
		m->spent = 0;
		m->reached = 0;
	}
	ledger_put(m);
}

int rag_cost_meter_batch(rag_cost_meter *m, const char *judge, char *err, size_t errlen)
{
	rag_price b = rag_cost_batch_price(&m->price);
	if (isnan(b.input) || isnan(b.output)) {
		const char *model = model_of(judge ? judge : "none");
		rag_seterr(err, errlen, "llm.max_cost with --batch needs the batch price of the judge's model: "
		           "prices.%s.batch_input and .batch_output, or .batch_discount (rag-config(5))", model);
		return -1;
	}
	m->price = b;
	return 0;
}

void rag_cost_meter_reach(rag_cost_meter *m)
{
	ledger_take(m);
	m->reached = 1;
	ledger_put(m);
}

void rag_cost_meter_free(rag_cost_meter *m)
{
	if (!m) return;
	if (m->fd >= 0) close(m->fd);
	free(m->currency);
	free(m);
}

rag_price rag_cost_batch_price(const rag_price *p)
{
	rag_price b = {NULL, NAN, NAN, NAN, NAN, NAN, NAN};
	double keep;
	if (!p) return b;
	b.model = p->model;
	keep = p->batch_discount >= 0 && p->batch_discount <= 1 ? 1 - p->batch_discount : NAN;
	b.input = !isnan(p->batch_input) ? p->batch_input : p->input * keep;
	b.output = !isnan(p->batch_output) ? p->batch_output : p->output * keep;
	/* a cached prefix in a batch: the discount on the cached price, else the batch input */
	b.cached_input = !isnan(keep) ? p->cached_input * keep : NAN;
	return b;
}

/* k of the summary's stages (borrowed) whose judge is the model's, summed */
static double judge_sum(jv stages, const char *model, const char *k)
{
	double sum = 0;
	jv_array_foreach(stages, i, e) {
		char j[256];
		const char *judge = rag_json_str(e, "judge", j, sizeof j);
		double x = rag_json_num(e, k);
		if (!strcmp(model_of(judge), model) && !isnan(x)) sum += x;
		jv_free(e);
		(void)i;
	}
	return sum;
}

/* a batch's count of k (u borrowed), at most what the records hold of the model (stages
 * borrowed): a batch's replies that no record of these used cost nothing here */
static double batch_count(jv u, const char *k, jv stages, const char *model, const char *rk)
{
	double x = rag_json_num(u, k), have = judge_sum(stages, model, rk);
	x = isnan(x) || x < 0 ? 0 : x;
	return x < have ? x : have;
}

/* One judge's batch tokens (u borrowed) into the summary's "batch" object o (consumed): their
 * cost at the list price and at the batch price, added to *list and *batch (NAN: unknown). */
static jv batch_entry(jv o, const char *judge, jv u, jv stages, const rag_price *prices, size_t n, double *list,
                      double *batch, jv *missing)
{
	const rag_price *p = rag_cost_price_find(prices, n, judge);
	rag_price bp = rag_cost_batch_price(p);
	const char *m = model_of(judge);
	double pt = batch_count(u, "prompt_tokens", stages, m, "prompt_tokens");
	double kt = batch_count(u, "cached_tokens", stages, m, "cached_tokens");
	double ct = batch_count(u, "completion_tokens", stages, m, "completion_tokens");
	double rq = batch_count(u, "requests", stages, m, "calls");
	double lc, bc;
	lc = rag_cost_tokens(p, pt, kt, ct);
	bc = rag_cost_tokens(&bp, pt, kt, ct);
	if (isnan(bc) && (pt > 0 || ct > 0)) *missing = jv_object_set(*missing, jv_string(model_of(judge)), jv_true());
	*list += lc;
	*batch += bc;
	o = add_num(o, "requests", rq);
	o = add_num(o, "prompt_tokens", pt);
	o = add_num(o, "cached_tokens", kt);
	return add_num(o, "completion_tokens", ct);
}

jv rag_cost_batch(jv summary, jv batch, const rag_price *prices, size_t n)
{
	jv o, missing, msgs, stages;
	double list = 0, bcost = 0, total;
	if (jv_get_kind(batch) != JV_KIND_OBJECT || jv_object_length(jv_copy(batch)) == 0) return summary;
	o = jv_object();
	missing = jv_object();
	total = rag_json_num(summary, "total");
	stages = rag_json_get(jv_copy(summary), "stages");
	if (jv_get_kind(stages) != JV_KIND_ARRAY) {
		jv_free(stages);
		stages = jv_array();
	}
	jv_object_foreach(batch, judge, u) {
		if (jv_get_kind(u) == JV_KIND_OBJECT)
			o = batch_entry(o, jv_string_value(judge), u, stages, prices, n, &list, &bcost, &missing);
		jv_free(judge);
		jv_free(u);
	}
	o = jv_object_set(o, jv_string("cost_at_list_price"), isnan(list) ? jv_null() : jv_number(list));
	o = jv_object_set(o, jv_string("cost"), isnan(bcost) ? jv_null() : jv_number(bcost));
	/* the models with no batch price, named as the messages below name them (for the pages) */
	if (jv_object_length(jv_copy(missing))) o = jv_object_set(o, jv_string("no_price"), jv_keys(jv_copy(missing)));
	/* the records' tokens were priced at the list price: the batch's share of them at its own */
	summary = jv_object_set(summary, jv_string("total"),
	                        isnan(total) || isnan(list) || isnan(bcost) ? jv_null() : jv_number(total - list + bcost));
	msgs = rag_json_get(jv_copy(summary), "messages");
	if (jv_get_kind(msgs) != JV_KIND_ARRAY) {
		jv_free(msgs);
		msgs = jv_array();
	}
	jv_object_foreach(missing, m, t) {
		char *s = rag_xasprintf("no batch price for model %s (prices.%s.batch_input and batch_output, or "
		                        "batch_discount)", jv_string_value(m), jv_string_value(m));
		msgs = jv_array_append(msgs, jv_string(s));
		free(s);
		jv_free(m);
		jv_free(t);
	}
	jv_free(missing);
	jv_free(stages);
	summary = jv_object_set(summary, jv_string("messages"), msgs);
	return jv_object_set(summary, jv_string("batch"), o);
}
