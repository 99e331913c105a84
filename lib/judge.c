/* judge.c - the judge engine: which judge (an LLM endpoint or offline), its prompts, and the one
 * way every metric operation asks it (claims.c, verify.c, chunks.c, revq.c...): fill the
 * operation's prompt, send it with its schema, parse the JSON out of the reply and check it with
 * the operation's check. What is particular to an operation is its descriptor (rag_op), in its
 * own file; nothing here names one.
 *
 * A reply that does not fit (bad JSON, a verdict missing or invented) is re-asked once with the
 * problem stated; if it still does not fit the caller gets an error, never a guess. */
#include "base.h"
#include "config.h"
#include "usage.h"
#include "record.h"
#include "llm.h"
#include "judge.h"

#include <ctype.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const langs[2] = {"en", "zh"};

typedef struct prompt {
	char *name;
	char *text[2];            /* [lang] */
} prompt;

/* Everything the judge needs from the configuration is copied here at rag_judge_new: the
 * configuration is not read again, and never written. */
struct rag_judge {
	int offline;
	double at;                /* the started time of the record being started (rag_judge_set_at) */
	char *name;
	char *model;
	char *answer_model;       /* llm.answer_model, for the self-judging check */
	int max_tokens;           /* llm.max_tokens, named when a reply is cut off */
	rag_verify_conf verify;
	rag_cache *cache;
	rag_llm *llm;
	prompt *prompts;          /* the prompts the tool named, in both languages */
	size_t nprompts;
	int warned_self;
	rag_estimate *est;        /* estimate mode: count the requests, send none */
	char *est_prev;           /* estimate mode: the request before's messages' contents */
};

static int lang_index(const char *lang)
{
	return lang && strcmp(lang, "zh") == 0;
}

static int load_prompt(rag_judge *j, const rag_config *cfg, const char *name, char *err, size_t errlen)
{
	prompt p;
	int lg;
	size_t i;
	for (i = 0; i < j->nprompts; i++)
		if (strcmp(j->prompts[i].name, name) == 0) return 0;
	memset(&p, 0, sizeof p);
	for (lg = 0; lg < 2; lg++) {
		p.text[lg] = rag_prompt_load(cfg, name, langs[lg], err, errlen);
		if (!p.text[lg] || !strstr(p.text[lg], "[user]")) {
			if (p.text[lg]) snprintf(err, errlen, "prompt \"%s.%s\" has no [user] section", name, langs[lg]);
			free(p.text[0]);
			free(p.text[1]);
			return -1;
		}
	}
	p.name = rag_xstrdup(name);
	j->prompts = rag_xrealloc(j->prompts, (j->nprompts + 1) * sizeof *j->prompts);
	j->prompts[j->nprompts++] = p;
	return 0;
}

RAG_UNITTEST int rag_judge_op_check(const rag_op *op, char *err, size_t errlen)
{
	const char *missing = NULL;
	if (!op->name || !*op->name) missing = "a name";
	else if (op->reply != RAG_OP_JSON && op->reply != RAG_OP_TEXT) missing = "its reply's shape (RAG_OP_JSON or RAG_OP_TEXT)";
	else if (op->reply == RAG_OP_JSON && (!op->schema || !*op->schema)) missing = "its reply's JSON Schema";
	else if (op->reply == RAG_OP_TEXT && op->schema) missing = "no schema (a plain-text reply has none)";
	else if (!op->check) missing = "its reply check";
	else if (!op->completion) missing = "its expected completion (for --estimate)";
	else if (!op->tool && (!op->offline || !*op->offline)) missing = "what answers offline (or RAG_OP_NO_OFFLINE)";
	else if ((op->tool || op->metric || op->doc || op->ask || op->offline_ask) &&
	         (!op->tool || strncmp(op->tool, "rag-", 4) || !op->tool[4] || !op->metric || !*op->metric ||
	          !op->doc || !*op->doc || !op->ask))
		missing = "a metric tool's four fields, or none (.tool \"rag-NAME\", .metric, .doc, .ask)";
	else if (op->tool && op->offline)
		missing = "its offline answer as the function .offline_ask (NULL for none), not the text .offline";
	if (!missing) return 0;
	rag_seterr(err, errlen, "internal error: operation \"%s\" needs %s", op->name ? op->name : "(no name)", missing);
	return -1;
}

rag_judge *rag_judge_new(const rag_config *cfg, const rag_op *const *ops, char *notice, size_t noticelen,
                         char *err, size_t errlen)
{
	rag_judge *j;
	const char *prov = cfg->llm.provider;
	const rag_op *const *o;
	notice[0] = 0;
	for (o = ops; o && *o; o++)
		if (rag_judge_op_check(*o, err, errlen) < 0) return NULL;
	j = rag_xcalloc(1, sizeof *j);
	j->verify = cfg->verify;

	if (!prov || !*prov) {
		if ((cfg->llm.base_url && *cfg->llm.base_url) || (cfg->llm.api_key && *cfg->llm.api_key)) {
			prov = "openai";
		} else {
			prov = "offline";
			snprintf(notice, noticelen, "no LLM endpoint configured; using the offline judge "
			         "(set RAG_BASE_URL and RAG_MODEL, or llm.base_url in rag.yaml, for an LLM judge)");
		}
	}
	if (strcmp(prov, "offline") == 0) {
		j->offline = 1;
		j->name = rag_xstrdup("offline");
		return j;
	}
	if (!rag_config_online(prov)) {
		snprintf(err, errlen, "unknown judge \"%s\" (known: openai, openai-reasoning, azure, offline)", prov);
		free(j);
		return NULL;
	}
	j->answer_model = cfg->llm.answer_model ? rag_xstrdup(cfg->llm.answer_model) : NULL;
	j->max_tokens = cfg->llm.max_tokens;
	for (o = ops; o && *o; o++) {
		if (load_prompt(j, cfg, (*o)->name, err, errlen) < 0) {
			rag_judge_free(j);
			return NULL;
		}
	}
	if (rag_cache_open_config(cfg, &j->cache, err, errlen) < 0 ||
	    !(j->llm = rag_llm_new(cfg, j->cache, err, errlen))) {
		rag_judge_free(j);
		return NULL;
	}
	j->model = rag_xstrdup(rag_llm_model(j->llm));
	j->name = rag_xasprintf("openai:%s", j->model);
	return j;
}

static const char *template(const rag_judge *j, const char *name, const char *lang)
{
	size_t i;
	for (i = 0; i < j->nprompts; i++)
		if (strcmp(j->prompts[i].name, name) == 0) return j->prompts[i].text[lang_index(lang)];
	return NULL;
}

void rag_judge_estimate(rag_judge *j, rag_estimate *e)
{
	j->est = e;
}

int rag_judge_offline(const rag_judge *j)
{
	return j->offline;
}

const rag_verify_conf *rag_judge_verify_conf(const rag_judge *j)
{
	return &j->verify;
}

const char *rag_judge_model(const rag_judge *j)
{
	return j->model;
}

const char *rag_judge_name(const rag_judge *j)
{
	return j->name;
}

void rag_judge_inflight(const rag_judge *j, int *limit, int *low, int *cuts)
{
	if (j->llm) {
		rag_llm_inflight(j->llm, limit, low, cuts);
		return;
	}
	if (limit) *limit = 0;
	if (low) *low = 0;
	if (cuts) *cuts = 0;
}

void rag_judge_set_at(rag_judge *j, double t)
{
	j->at = t > 0 && t < 1e15 ? t : 0;
}

void rag_judge_set_meter(rag_judge *j, const rag_llm_meter *m)
{
	if (j->llm) rag_llm_set_meter(j->llm, m);
}

jv rag_judge_adapted(const rag_judge *j, int learned_only)
{
	return j->llm ? rag_llm_adapted(j->llm, learned_only) : jv_array();
}

int rag_judge_run(rag_judge *j, int fd, double timeout)
{
	if (j->llm) return rag_llm_run(j->llm, fd, timeout);
	if (fd >= 0) {
		/* the offline judge answers at once: all there is to wait for is input */
		struct pollfd p = {fd, POLLIN, 0};
		return poll(&p, 1, (int)(timeout * 1000)) > 0;
	}
	return 0;
}

void rag_judge_cancel(rag_judge *j, const char *why)
{
	if (j->llm) rag_llm_cancel(j->llm, why);
}

void rag_judge_free(rag_judge *j)
{
	if (!j) return;
	rag_llm_free(j->llm);
	if (j->cache) rag_cache_close(j->cache);
	for (size_t i = 0; i < j->nprompts; i++) {
		free(j->prompts[i].name);
		free(j->prompts[i].text[0]);
		free(j->prompts[i].text[1]);
	}
	free(j->prompts);
	free(j->est_prev);
	free(j->name);
	free(j->model);
	free(j->answer_model);
	free(j);
}

int rag_judge_self_check(rag_judge *j, jv rec)
{
	static const char *const fields[] = {"answer_model", "model"};
	const char *m;
	size_t i;
	if (j->offline || j->warned_self || !j->model) return 0;
	m = j->answer_model;
	if (m && strcasecmp(m, j->model) == 0) return j->warned_self = 1;
	for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		m = rag_record_str(rec, fields[i]);
		if (m && strcasecmp(m, j->model) == 0) return j->warned_self = 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ messages */

static jv messages_for(const char *tmpl, jv vars)
{
	const char *u = strstr(tmpl, "[user]");
	const char *sys = tmpl;
	char *system, *user, *filled;
	jv msgs = jv_array();
	const char *ue;
	if (strncmp(sys, "[system]", 8) == 0) sys += 8;
	while (sys < u && strchr(" \t\r\n", *sys)) sys++;
	ue = u;
	while (ue > sys && strchr(" \t\r\n", ue[-1])) ue--;
	system = rag_xstrndup(sys, (size_t)(ue - sys));
	u += 6;
	while (*u && strchr(" \t\r\n", *u)) u++;
	user = rag_xstrdup(u);
	for (ue = user + strlen(user); ue > user && strchr(" \t\r\n", ue[-1]); ue--)
		user[ue - user - 1] = 0;
	filled = rag_prompt_fill(system, vars);
	msgs = jv_array_append(msgs, JV_OBJECT(jv_string("role"), jv_string("system"),
	                                       jv_string("content"), jv_string(filled)));
	free(filled);
	filled = rag_prompt_fill(user, vars);
	msgs = jv_array_append(msgs, JV_OBJECT(jv_string("role"), jv_string("user"),
	                                       jv_string("content"), jv_string(filled)));
	free(filled);
	free(system);
	free(user);
	jv_free(vars);
	return msgs;
}

/* ------------------------------------------------------------------ one call */

typedef struct call {
	rag_judge *j;
	rag_usage *usage;
	jv messages;
	const rag_op *op;         /* what is asked: its schema, its reply's check, its estimate */
	int reasked;
	int fresh;                /* a cached reply did not fit: asked again past the cache */
	const char *fix_hint;     /* what to ask for on a re-ask */
	int expect;               /* verdicts expected / claims allowed */
	int n;                    /* choices asked for (rag_judge_ask_n); 1 otherwise */
	int repeat;               /* rag_judge_ask_repeat's repeat; 0 otherwise */
	int plain;                /* a RAG_OP_TEXT operation: a text reply, no JSON */
	int max_tokens;           /* 0: llm.max_tokens */
	double at;                /* the judge's `at` when the call was made: its record's time */
	char problem[256];
	rag_judge_cb done;
	void *arg;
} call;

static void call_reply(void *arg, const rag_llm_reply *r);
static void call_end(call *c, jv result, const char *error);

/* The completion tokens a reply is expected to take (rag(7) ESTIMATES): the operation's
 * figure for one, for each of the n choices. */
static double expected_completion(const call *c)
{
	return c->op->completion(c->expect) * (c->n > 1 ? c->n : 1);
}

double rag_judge_completion_verdicts(int expect)
{
	return 10 + 30.0 * (expect > 0 ? expect : 1);
}

double rag_judge_completion_score(int expect)
{
	return 40;
}

/* estimate mode: the prefix this request's text shares with the request before's, which a
 * provider's prefix cache could serve (a prefix shared with an earlier stage's requests, in
 * another process, is not seen) */
static void est_prefix(rag_judge *j, char *text)
{
	size_t k = 0;
	if (j->est_prev) {
		while (text[k] && text[k] == j->est_prev[k]) k++;
		while (k > 0 && (text[k] & 0xC0) == 0x80) k--;   /* a whole character */
		if (k) {
			char *p = rag_xstrndup(text, k);
			j->est->cached_prefix_tokens += rag_usage_tokens(p);
			free(p);
		}
	}
	free(j->est_prev);
	j->est_prev = text;
}

/* What the call's request would take, the one count of --estimate and of the spending cap:
 * its messages' characters and tokens (rag_usage_tokens), their text joined into *all when all
 * is not NULL. */
static void call_size(const call *c, double *chars, double *tokens, rag_buf *all)
{
	int i, n = jv_array_length(jv_copy(c->messages));
	*chars = *tokens = 0;
	for (i = 0; i < n; i++) {
		jv m = jv_array_get(jv_copy(c->messages), i);
		jv t = jv_object_get(m, jv_string("content"));
		if (jv_get_kind(t) == JV_KIND_STRING) {
			*chars += rag_usage_chars(jv_string_value(t));
			*tokens += rag_usage_tokens(jv_string_value(t));
			if (all) rag_buf_adds(all, jv_string_value(t));
		}
		jv_free(t);
	}
}

/* estimate mode: count what would be sent, then answer at once with the estimate "error" */
static void call_count(call *c)
{
	rag_estimate *e = c->j->est;
	rag_buf all = {0};
	double chars, tokens;
	e->requests++;
	call_size(c, &chars, &tokens, &all);
	e->prompt_chars += chars;
	e->prompt_tokens += tokens;
	rag_buf_add(&all, "", 1);
	est_prefix(c->j, all.p);
	e->completion_tokens += expected_completion(c);
	call_end(c, jv_null(), RAG_ESTIMATE_ERROR);
}

static void call_send(call *c)
{
	rag_llm_opts o = {0};
	double chars;
	if (c->j->est) {
		call_count(c);
		return;
	}
	call_size(c, &chars, &o.est_prompt_tokens, NULL);
	o.est_completion_tokens = expected_completion(c);
	o.n = c->n;
	o.fresh = c->fresh;
	o.repeat = c->repeat;
	o.plain = c->plain;
	o.max_tokens = c->max_tokens;
	o.at = c->at;
	if (!c->plain) {
		o.schema_name = c->op->name;
		o.schema = c->op->schema;
	}
	rag_llm_ask(c->j->llm, jv_copy(c->messages), &o, call_reply, c);
}

/* Parse and check one reply text: NULL and *result when it fits, else the problem. */
static const char *fit(call *c, const char *content, jv *result)
{
	jv v;
	*result = jv_null();
	if (c->plain) return c->op->check(jv_string(content), c->expect, result, c->problem, sizeof c->problem);
	v = rag_reply_json(content);
	if (!jv_is_valid(v)) {
		jv m = jv_invalid_get_msg(v);
		snprintf(c->problem, sizeof c->problem, "%s",
		         jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "the reply is not JSON");
		jv_free(m);
		return c->problem;
	}
	return c->op->check(v, c->expect, result, c->problem, sizeof c->problem);
}

static void call_end(call *c, jv result, const char *error)
{
	rag_judge_cb done = c->done;
	void *arg = c->arg;
	jv_free(c->messages);
	free(c);
	done(arg, result, error);
}

/* A cached reply that does not fit (stored by an older ragpipe, which cached before checking)
 * is asked again of the endpoint, the same question, before any re-ask: 1 when sent. */
static int refresh(call *c, const rag_llm_reply *r)
{
	if (!r->cached || c->fresh) return 0;
	c->fresh = 1;
	call_send(c);
	return 1;
}

static void call_reply(void *arg, const rag_llm_reply *r)
{
	call *c = arg;
	jv result = jv_null();
	const char *problem;
	char msg[RAG_ERRLEN];
	char *bad = NULL;         /* n > 1: the choice that did not fit, for the re-ask */

	if (r->cached) c->usage->cache_hits++;
	else if (r->content) {
		c->usage->calls++;
		c->usage->prompt_tokens += r->prompt_tokens;
		c->usage->cached_tokens += r->cached_tokens;
		c->usage->completion_tokens += r->completion_tokens;
	}
	if (r->usage_error) c->usage->invalid_usage++;
	c->usage->retries += r->retries;
	if (r->error) {
		call_end(c, jv_null(), r->error);
		return;
	}
	/* a plain reply is read from its first word: a verifier cut off after it still answered */
	if (!c->plain && r->finish_reason && strcmp(r->finish_reason, "length") == 0) {
		if (refresh(c, r)) return;
		snprintf(msg, sizeof msg, "the judge's reply was cut off (finish_reason: length); "
		         "raise llm.max_tokens (now %d)", c->j->max_tokens);
		call_end(c, jv_null(), msg);
		return;
	}
	if (c->n > 1) {
		/* every choice must fit; the result is the array of their results */
		jv all = jv_array();
		int k, nc = jv_array_length(jv_copy(r->choices));
		problem = NULL;
		for (k = 0; k < nc && !problem; k++) {
			jv ch = jv_array_get(jv_copy(r->choices), k);
			problem = fit(c, jv_string_value(ch), &result);
			if (problem) {
				free(bad);
				bad = rag_xstrdup(jv_string_value(ch));
				jv_free(result);
			} else {
				all = jv_array_append(all, result);
			}
			result = jv_null();
			jv_free(ch);
		}
		if (!problem) {
			rag_llm_commit(c->j->llm, r);
			call_end(c, all, NULL);
			return;
		}
		jv_free(all);
	} else {
		problem = fit(c, r->content, &result);
		if (!problem) {
			rag_llm_commit(c->j->llm, r);
			call_end(c, result, NULL);
			return;
		}
		jv_free(result);
	}
	if (refresh(c, r)) {
		free(bad);
		return;
	}
	if (c->reasked) {
		snprintf(msg, sizeof msg, "the judge's reply did not fit, even when asked again: %s", problem);
		free(bad);
		call_end(c, jv_null(), msg);
		return;
	}
	/* once more, with the model's own reply and the problem in front of it */
	c->reasked = 1;
	{
		char *text = rag_xasprintf(c->plain ? "Your reply did not fit: %s. Answer again with only: %s"
		                                    : "Your reply did not fit: %s. Answer again with JSON only: %s",
		                           problem, c->fix_hint);
		c->messages = jv_array_append(c->messages, JV_OBJECT(jv_string("role"), jv_string("assistant"),
		                                                     jv_string("content"), jv_string(bad ? bad : r->content)));
		free(bad);
		c->messages = jv_array_append(c->messages, JV_OBJECT(jv_string("role"), jv_string("user"),
		                                                     jv_string("content"), jv_string(text)));
		free(text);
	}
	call_send(c);
}

/* A call of op filled with vars (consumed), not sent yet; NULL (cb told) when its prompt was
 * not loaded. */
static call *new_call(rag_judge *j, const rag_op *op, const char *lang, jv vars, int expect, const char *fix_hint,
                      rag_usage *usage, rag_judge_cb cb, void *arg)
{
	const char *t = template(j, op->name, lang);
	call *c;
	if (!t) {
		char msg[160];
		jv_free(vars);
		snprintf(msg, sizeof msg, "internal error: prompt \"%s\" was not loaded", op->name);
		cb(arg, jv_null(), msg);
		return NULL;
	}
	c = rag_xcalloc(1, sizeof *c);
	c->j = j;
	c->usage = usage;
	c->messages = messages_for(t, vars);
	c->op = op;
	c->plain = op->reply == RAG_OP_TEXT;
	c->fix_hint = fix_hint;
	c->expect = expect;
	c->n = 1;
	c->at = j->at;
	c->done = cb;
	c->arg = arg;
	return c;
}

static void ask(rag_judge *j, const rag_op *op, const char *lang, jv vars, int n, int repeat, int expect,
                const char *fix_hint, int max_tokens, rag_usage *usage, rag_judge_cb cb, void *arg)
{
	call *c = new_call(j, op, lang, vars, expect, fix_hint, usage, cb, arg);
	if (!c) return;
	c->n = n > 1 ? n : 1;
	c->repeat = repeat > 0 ? repeat : 0;
	c->max_tokens = max_tokens;
	call_send(c);
}

void rag_judge_ask_n(rag_judge *j, const rag_op *op, const char *lang, jv vars, int n, int expect,
                     const char *fix_hint, rag_usage *usage, rag_judge_cb cb, void *arg)
{
	ask(j, op, lang, vars, n, 0, expect, fix_hint, 0, usage, cb, arg);
}

void rag_judge_ask_repeat(rag_judge *j, const rag_op *op, const char *lang, jv vars, int repeat, int expect,
                          const char *fix_hint, rag_usage *usage, rag_judge_cb cb, void *arg)
{
	ask(j, op, lang, vars, 1, repeat, expect, fix_hint, 0, usage, cb, arg);
}

void rag_judge_ask(rag_judge *j, const rag_op *op, const char *lang, jv vars, int expect, const char *fix_hint,
                   rag_usage *usage, rag_judge_cb cb, void *arg)
{
	ask(j, op, lang, vars, 1, 0, expect, fix_hint, 0, usage, cb, arg);
}

void rag_judge_ask_plain(rag_judge *j, const rag_op *op, const char *lang, jv vars, int expect,
                         const char *fix_hint, int max_tokens, rag_usage *usage, rag_judge_cb cb, void *arg)
{
	ask(j, op, lang, vars, 1, 0, expect, fix_hint, max_tokens, usage, cb, arg);
}

/* The first word of a verifier's reply, past blanks, quotes, asterisks and brackets: yes or
 * no in English (any case, a whole word: "Yes." and "yes, because" count, "Yesterday" does
 * not), 是 / 对 / 支持 or 否 / 不是 / 不对 / 不支持 in Chinese. */
const char *rag_judge_check_yes_no(jv reply, int expect, jv *result, char *problem, size_t plen)
{
	static const char *const yes[] = {"yes", "\xe6\x98\xaf", "\xe5\xaf\xb9", "\xe6\x94\xaf\xe6\x8c\x81"};
	static const char *const no[] = {"no", "\xe5\x90\xa6", "\xe4\xb8\x8d\xe6\x98\xaf", "\xe4\xb8\x8d\xe5\xaf\xb9",
	                                 "\xe4\xb8\x8d\xe6\x94\xaf\xe6\x8c\x81"};
	const char *s = jv_get_kind(reply) == JV_KIND_STRING ? jv_string_value(reply) : "";
	size_t i, n;
	int v = -1;
	(void)expect;
	while (*s && strchr(" \t\r\n\"'*`([{<_", *s)) s++;
	for (i = 0; i < sizeof no / sizeof no[0] && v < 0; i++) {
		n = strlen(no[i]);
		if (strncasecmp(s, no[i], n) == 0 && (no[i][0] & 0x80 || !isalnum((unsigned char)s[n]))) v = 0;
	}
	for (i = 0; i < sizeof yes / sizeof yes[0] && v < 0; i++) {
		n = strlen(yes[i]);
		if (strncasecmp(s, yes[i], n) == 0 && (yes[i][0] & 0x80 || !isalnum((unsigned char)s[n]))) v = 1;
	}
	if (v < 0) {
		char word[40];
		for (n = 0; s[n] && !strchr(" \t\r\n", s[n]) && n < 32; n++)
			;
		snprintf(word, sizeof word, "%.*s", (int)n, s);
		snprintf(problem, plen, n ? "the reply begins with \"%s\", not Yes or No" : "the reply is empty, not Yes or No",
		         word);
		jv_free(reply);
		return problem;
	}
	jv_free(reply);
	*result = jv_bool(v);
	return NULL;
}

static int truthy(jv v, int *out)
{
	switch (jv_get_kind(v)) {
	case JV_KIND_TRUE: *out = 1; return 1;
	case JV_KIND_FALSE: *out = 0; return 1;
	case JV_KIND_NUMBER:
		if (jv_number_value(v) == 1) { *out = 1; return 1; }
		if (jv_number_value(v) == 0) { *out = 0; return 1; }
		return 0;
	case JV_KIND_STRING: {
		const char *s = jv_string_value(v);
		static const char *const yes[] = {"yes", "true", "supported", "1", "是", "支持"};
		static const char *const no[] = {"no", "false", "unsupported", "not supported", "0", "否", "不支持"};
		size_t i;
		for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
			if (strcasecmp(s, yes[i]) == 0) { *out = 1; return 1; }
		for (i = 0; i < sizeof no / sizeof no[0]; i++)
			if (strcasecmp(s, no[i]) == 0) { *out = 0; return 1; }
		return 0;
	}
	default:
		return 0;
	}
}

/* A score from 0 to 1 and a reason that is not blank: anything else is named in the re-ask. */
const char *rag_judge_check_score(jv v, int expect, jv *result, char *problem, size_t plen)
{
	jv score, reason;
	const char *r;
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return "expected an object with \"score\" and \"reason\"";
	}
	score = jv_object_get(jv_copy(v), jv_string("score"));
	reason = jv_object_get(v, jv_string("reason"));
	problem[0] = 0;
	if (jv_get_kind(score) != JV_KIND_NUMBER)
		snprintf(problem, plen, "\"score\" is %s, not a number from 0 to 1",
		         jv_is_valid(score) ? jv_kind_name(jv_get_kind(score)) : "missing");
	else if (!(jv_number_value(score) >= 0 && jv_number_value(score) <= 1))
		snprintf(problem, plen, "\"score\" %.6g is not from 0 to 1", jv_number_value(score));
	else if (jv_get_kind(reason) != JV_KIND_STRING)
		snprintf(problem, plen, "\"reason\" is %s, not a text",
		         jv_is_valid(reason) ? jv_kind_name(jv_get_kind(reason)) : "missing");
	else {
		for (r = jv_string_value(reason); *r == ' ' || *r == '\t' || *r == '\n' || *r == '\r'; r++)
			;
		if (!*r) snprintf(problem, plen, "\"reason\" is blank");
	}
	if (problem[0]) {
		jv_free(score);
		jv_free(reason);
		return problem;
	}
	*result = JV_OBJECT(jv_string("score"), score, jv_string("reason"), reason);
	return NULL;
}

/* One verdict per statement, ids 1..k, each once: anything else is named in the re-ask. */
const char *rag_judge_check_verdicts(jv v, int expect, jv *result, char *problem, size_t plen)
{
	jv arr = v;
	int k = expect, n, i;
	int *seen;
	jv out;
	if (jv_get_kind(v) == JV_KIND_OBJECT) arr = jv_object_get(v, jv_string("verdicts"));
	if (jv_get_kind(arr) != JV_KIND_ARRAY) {
		jv_free(arr);
		return "expected an object with a \"verdicts\" array";
	}
	n = jv_array_length(jv_copy(arr));
	seen = rag_xcalloc((size_t)k + 1, sizeof *seen);
	out = jv_array();
	for (i = 0; i < k; i++) out = jv_array_append(out, jv_null());
	problem[0] = 0;
	for (i = 0; i < n && !problem[0]; i++) {
		jv o = jv_array_get(jv_copy(arr), i);
		jv id, vd, rs;
		int idn, t;
		double x;
		if (jv_get_kind(o) != JV_KIND_OBJECT) {
			snprintf(problem, plen, "verdicts[%d] is not an object", i);
			jv_free(o);
			break;
		}
		id = jv_object_get(jv_copy(o), jv_string("id"));
		if (jv_get_kind(id) == JV_KIND_STRING) {
			jv num = jv_number(atof(jv_string_value(id)));
			jv_free(id);
			id = num;
		}
		if (jv_get_kind(id) == JV_KIND_NUMBER) {
			/* the server's number, checked before it becomes an int */
			x = jv_number_value(id);
			idn = x >= 1 && x <= k && x == floor(x) ? (int)x : -1;
		} else {
			idn = n == k ? i + 1 : -1;          /* no ids: positional, only when counts agree */
			x = idn;
		}
		jv_free(id);
		vd = jv_object_get(jv_copy(o), jv_string("verdict"));
		rs = jv_object_get(o, jv_string("reason"));
		if (idn < 1 || idn > k)
			snprintf(problem, plen, "verdict id %.6g is not one of the statements 1-%d", x, k);
		else if (seen[idn])
			snprintf(problem, plen, "statement %d has two verdicts", idn);
		else if (!truthy(vd, &t))
			snprintf(problem, plen, "the verdict for statement %d is not true or false", idn);
		else {
			seen[idn] = 1;
			out = jv_array_set(out, idn - 1,
			                   JV_OBJECT(jv_string("verdict"), jv_bool(t), jv_string("reason"),
			                             jv_get_kind(rs) == JV_KIND_STRING ? jv_copy(rs) : jv_string("")));
		}
		jv_free(vd);
		jv_free(rs);
	}
	if (!problem[0]) {
		rag_buf missing = {0};
		int nmiss = 0;
		for (i = 1; i <= k; i++) {
			if (!seen[i]) {
				rag_buf_addf(&missing, "%s%d", nmiss ? ", " : "", i);
				nmiss++;
			}
		}
		if (nmiss)
			snprintf(problem, plen, "expected %d verdicts, got %d (missing: %s)", k, k - nmiss,
			         missing.p);
		rag_buf_free(&missing);
	}
	free(seen);
	jv_free(arr);
	if (problem[0]) {
		jv_free(out);
		return problem;
	}
	*result = out;
	return NULL;
}

