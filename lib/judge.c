/* judge.c - the judge's two questions (split a text into claims; is each claim supported by the
 * contexts?), asked of an LLM or answered offline, with the reply checked against what was asked.
 *
 * A reply that does not fit (bad JSON, a verdict missing or invented) is re-asked once with the
 * problem stated; if it still does not fit the caller gets an error, never a guess. */
#include "rag.h"

#include <ctype.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const langs[2] = {"en", "zh"};

typedef struct prompt {
	char *name;
	char *text[2];            /* [lang] */
} prompt;

struct rag_judge {
	rag_config *cfg;
	int offline;
	char *name;
	char *model;
	rag_cache *cache;
	rag_llm *llm;
	prompt *prompts;          /* loaded by rag_judge_load_prompt */
	size_t nprompts;
	int warned_self;
};

static int lang_index(const char *lang)
{
	return lang && strcmp(lang, "zh") == 0;
}

rag_judge *rag_judge_new(rag_config *cfg, char *notice, size_t noticelen, char *err, size_t errlen)
{
	rag_judge *j = rag_xmalloc(sizeof *j);
	const char *prov = cfg->llm.provider;
	memset(j, 0, sizeof *j);
	j->cfg = cfg;
	notice[0] = 0;

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
	if (strcmp(prov, "openai") != 0) {
		snprintf(err, errlen, "unknown judge \"%s\" (known: openai, offline)", prov);
		free(j);
		return NULL;
	}
	j->model = rag_xstrdup(cfg->llm.model && *cfg->llm.model ? cfg->llm.model : "gpt-4o-mini");
	j->name = rag_xasprintf("openai:%s", j->model);
	if (!cfg->llm.model || !*cfg->llm.model) {
		free(cfg->llm.model);
		cfg->llm.model = rag_xstrdup(j->model);
	}
	if (rag_judge_load_prompt(j, "claims", err, errlen) < 0 || rag_judge_load_prompt(j, "verify", err, errlen) < 0) {
		rag_judge_free(j);
		return NULL;
	}
	if (cfg->cache.mode != RAG_CACHE_OFF && cfg->cache.dir) {
		j->cache = rag_cache_open(cfg->cache.dir, cfg->cache.mode, err, errlen);
		if (!j->cache) {
			rag_judge_free(j);
			return NULL;
		}
	} else if (cfg->cache.mode == RAG_CACHE_REPLAY) {
		snprintf(err, errlen, "replay mode needs a cache directory (cache.dir)");
		rag_judge_free(j);
		return NULL;
	} else {
		cfg->cache.mode = RAG_CACHE_OFF;
	}
	j->llm = rag_llm_new(cfg, j->cache, err, errlen);
	if (!j->llm) {
		rag_judge_free(j);
		return NULL;
	}
	return j;
}

int rag_judge_load_prompt(rag_judge *j, const char *name, char *err, size_t errlen)
{
	prompt p;
	int lg;
	size_t i;
	if (j->offline) return 0;
	for (i = 0; i < j->nprompts; i++)
		if (strcmp(j->prompts[i].name, name) == 0) return 0;
	memset(&p, 0, sizeof p);
	for (lg = 0; lg < 2; lg++) {
		p.text[lg] = rag_prompt_load(j->cfg, name, langs[lg], err, errlen);
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

static const char *template(const rag_judge *j, const char *name, const char *lang)
{
	size_t i;
	for (i = 0; i < j->nprompts; i++)
		if (strcmp(j->prompts[i].name, name) == 0) return j->prompts[i].text[lang_index(lang)];
	return NULL;
}

int rag_judge_offline(const rag_judge *j)
{
	return j->offline;
}

const rag_config *rag_judge_config(const rag_judge *j)
{
	return j->cfg;
}

const char *rag_judge_model(const rag_judge *j)
{
	return j->model;
}

const char *rag_judge_name(const rag_judge *j)
{
	return j->name;
}

rag_llm *rag_judge_llm(rag_judge *j)
{
	return j->llm;
}

int rag_judge_pending(const rag_judge *j)
{
	return j->llm ? rag_llm_pending(j->llm) : 0;
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
	free(j->name);
	free(j->model);
	free(j);
}

int rag_judge_self_check(rag_judge *j, jv rec)
{
	static const char *const fields[] = {"answer_model", "model"};
	const char *m;
	size_t i;
	if (j->offline || j->warned_self || !j->model) return 0;
	m = j->cfg->llm.answer_model;
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

static jv block(const char *tag, const char *text)
{
	char *b = rag_prompt_block(tag, text);
	jv v = jv_string(b);
	free(b);
	return v;
}

/* Claims go one a line in a numbered list: a newline inside one would break the numbering. */
static char *one_line(const char *s)
{
	char *o = rag_xstrdup(s), *p;
	for (p = o; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
	return o;
}

/* ------------------------------------------------------------------ one call */

typedef struct call {
	rag_judge *j;
	rag_usage *usage;
	jv messages;
	int reasked;
	rag_judge_check check;
	const char *fix_hint;     /* what to ask for on a re-ask */
	int expect;               /* verdicts expected / claims allowed */
	int n;                    /* choices asked for (rag_judge_ask_n); 1 otherwise */
	char problem[256];
	rag_judge_cb done;
	void *arg;
} call;

static void call_reply(void *arg, const rag_llm_reply *r);

static void call_send(call *c)
{
	rag_llm_submit_n(c->j->llm, jv_copy(c->messages), c->n, call_reply, c);
}

/* Parse and check one reply text: NULL and *result when it fits, else the problem. */
static const char *fit(call *c, const char *content, jv *result)
{
	jv v = rag_reply_json(content);
	*result = jv_null();
	if (!jv_is_valid(v)) {
		jv m = jv_invalid_get_msg(v);
		snprintf(c->problem, sizeof c->problem, "%s",
		         jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "the reply is not JSON");
		jv_free(m);
		return c->problem;
	}
	return c->check(v, c->expect, result, c->problem, sizeof c->problem);
}

static void call_end(call *c, jv result, const char *error)
{
	rag_judge_cb done = c->done;
	void *arg = c->arg;
	jv_free(c->messages);
	free(c);
	done(arg, result, error);
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
		c->usage->completion_tokens += r->completion_tokens;
	}
	c->usage->retries += r->retries;
	if (r->error) {
		call_end(c, jv_null(), r->error);
		return;
	}
	if (r->finish_reason && strcmp(r->finish_reason, "length") == 0) {
		snprintf(msg, sizeof msg, "the judge's reply was cut off (finish_reason: length); "
		         "raise llm.max_tokens (now %d)", c->j->cfg->llm.max_tokens);
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
			call_end(c, all, NULL);
			return;
		}
		jv_free(all);
	} else {
		problem = fit(c, r->content, &result);
		if (!problem) {
			call_end(c, result, NULL);
			return;
		}
		jv_free(result);
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
		char *text = rag_xasprintf("Your reply did not fit: %s. Answer again with JSON only: %s",
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

void rag_judge_ask_n(rag_judge *j, const char *name, const char *lang, jv vars, int n, rag_judge_check check,
                     int expect, const char *fix_hint, rag_usage *usage, rag_judge_cb cb, void *arg)
{
	const char *t = template(j, name, lang);
	call *c;
	if (!t) {
		char msg[160];
		jv_free(vars);
		snprintf(msg, sizeof msg, "internal error: prompt \"%s\" was not loaded", name);
		cb(arg, jv_null(), msg);
		return;
	}
	c = rag_xmalloc(sizeof *c);
	memset(c, 0, sizeof *c);
	c->j = j;
	c->usage = usage;
	c->messages = messages_for(t, vars);
	c->check = check;
	c->fix_hint = fix_hint;
	c->expect = expect;
	c->n = n > 1 ? n : 1;
	c->done = cb;
	c->arg = arg;
	call_send(c);
}

void rag_judge_ask(rag_judge *j, const char *name, const char *lang, jv vars, rag_judge_check check,
                   int expect, const char *fix_hint, rag_usage *usage, rag_judge_cb cb, void *arg)
{
	rag_judge_ask_n(j, name, lang, vars, 1, check, expect, fix_hint, usage, cb, arg);
}

/* ------------------------------------------------------------------ claims */

static const char *check_claims(jv v, int expect, jv *result, char *problem, size_t plen)
{
	jv arr = v, out = jv_array();
	int i, n;
	if (jv_get_kind(v) == JV_KIND_OBJECT) arr = jv_object_get(v, jv_string("claims"));
	if (jv_get_kind(arr) != JV_KIND_ARRAY) {
		jv_free(arr);
		jv_free(out);
		return "expected an object with a \"claims\" array";
	}
	n = jv_array_length(jv_copy(arr));
	for (i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(arr), i);
		if (jv_get_kind(s) == JV_KIND_OBJECT) {
			/* some models answer [{"claim": "..."}] */
			jv t = jv_object_get(jv_copy(s), jv_string("claim"));
			if (jv_get_kind(t) != JV_KIND_STRING) {
				jv_free(t);
				t = jv_object_get(jv_copy(s), jv_string("statement"));
			}
			jv_free(s);
			s = t;
		}
		if (jv_get_kind(s) != JV_KIND_STRING) {
			jv_free(s);
			jv_free(arr);
			jv_free(out);
			snprintf(problem, plen, "claims[%d] is not a string", i);
			return problem;
		}
		{
			char *line = one_line(jv_string_value(s));
			char *t = line, *e;
			while (*t == ' ') t++;
			e = t + strlen(t);
			while (e > t && e[-1] == ' ') *--e = 0;
			if (*t && (expect <= 0 || jv_array_length(jv_copy(out)) < expect))
				out = jv_array_append(out, jv_string(t));
			free(line);
		}
		jv_free(s);
	}
	jv_free(arr);
	*result = out;
	return NULL;
}

void rag_judge_claims(rag_judge *j, const char *lang, const char *question, const char *text,
                      int max_claims, rag_usage *usage, rag_judge_cb cb, void *arg)
{
	char num[32];
	jv vars = jv_object();
	if (j->offline) {
		jv_free(vars);
		cb(arg, rag_offline_claims(question ? question : "", text, max_claims), NULL);
		return;
	}
	snprintf(num, sizeof num, "%d", max_claims);
	vars = jv_object_set(vars, jv_string("question"), block("QUESTION", question ? question : ""));
	vars = jv_object_set(vars, jv_string("text"), block("TEXT", text));
	vars = jv_object_set(vars, jv_string("max_claims"), jv_string(num));
	rag_judge_ask(j, "claims", lang, vars, check_claims, max_claims, "{\"claims\": [\"...\", \"...\"]}",
	              usage, cb, arg);
}

/* ------------------------------------------------------------------ verify */

typedef struct verify_op {
	rag_judge *j;
	const char *lang;
	char *question;
	jv claims, contexts;      /* arrays of strings */
	int n;                    /* claims */
	int *verdict;             /* -1 not judged yet, 0 unsupported, 1 supported */
	jv reasons;               /* array of strings */
	int calls_left;
	char *error;
	int rechecking;
	rag_usage *usage;
	rag_judge_cb cb;
	void *arg;
} verify_op;

typedef struct vcall {
	verify_op *op;
	int *idx;                 /* claim indexes of this call */
	int k;
	int ctx_first, ctx_count; /* contexts in this call, for reasons */
} vcall;

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
		if (jv_get_kind(id) == JV_KIND_NUMBER) idn = (int)jv_number_value(id);
		else idn = n == k ? i + 1 : -1;         /* no ids: positional, only when counts agree */
		jv_free(id);
		vd = jv_object_get(jv_copy(o), jv_string("verdict"));
		rs = jv_object_get(o, jv_string("reason"));
		if (idn < 1 || idn > k)
			snprintf(problem, plen, "verdict id %d is not one of the statements 1-%d", idn, k);
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

static void verify_finish(verify_op *op);
static void verify_recheck(verify_op *op);

static void vcall_done(void *arg, jv result, const char *error)
{
	vcall *vc = arg;
	verify_op *op = vc->op;
	int i;
	if (error) {
		if (!op->error) op->error = rag_xstrdup(error);
	} else {
		for (i = 0; i < vc->k; i++) {
			int ci = vc->idx[i];
			jv o = jv_array_get(jv_copy(result), i);
			int t = jv_get_kind(jv_object_get(jv_copy(o), jv_string("verdict"))) == JV_KIND_TRUE;
			jv rs = jv_object_get(o, jv_string("reason"));
			/* supported anywhere wins; the first unsupported reason stands otherwise */
			if (t && op->verdict[ci] != 1) {
				op->verdict[ci] = 1;
				op->reasons = jv_array_set(op->reasons, ci, jv_copy(rs));
			} else if (!t && op->verdict[ci] == -1) {
				op->verdict[ci] = 0;
				op->reasons = jv_array_set(op->reasons, ci, jv_copy(rs));
			}
			jv_free(rs);
		}
	}
	jv_free(result);
	free(vc->idx);
	free(vc);
	if (--op->calls_left == 0) {
		if (!op->error && !op->rechecking && op->j->cfg->verify.recheck_chunks)
			verify_recheck(op);
		else
			verify_finish(op);
	}
}

/* Ask about claims idx[0..k) against contexts [cfirst, cfirst+ccount). */
static void verify_send(verify_op *op, const int *idx, int k, int cfirst, int ccount)
{
	rag_judge *j = op->j;
	vcall *vc = rag_xmalloc(sizeof *vc);
	rag_buf ctx = {0}, st = {0};
	jv vars = jv_object();
	char num[32];
	int i;

	vc->op = op;
	vc->idx = rag_xmalloc((size_t)k * sizeof *vc->idx);
	memcpy(vc->idx, idx, (size_t)k * sizeof *idx);
	vc->k = k;
	vc->ctx_first = cfirst;
	vc->ctx_count = ccount;
	for (i = 0; i < ccount; i++) {
		jv s = jv_array_get(jv_copy(op->contexts), cfirst + i);
		char *b = rag_prompt_block("CONTEXT", jv_string_value(s));
		rag_buf_addf(&ctx, "%sContext %d:\n%s\n", i ? "\n" : "", cfirst + i + 1, b);
		free(b);
		jv_free(s);
	}
	for (i = 0; i < k; i++) {
		jv s = jv_array_get(jv_copy(op->claims), idx[i]);
		char *line = one_line(jv_string_value(s));
		rag_buf_addf(&st, "%s%d. %s", i ? "\n" : "", i + 1, line);
		free(line);
		jv_free(s);
	}
	snprintf(num, sizeof num, "%d", k);
	vars = jv_object_set(vars, jv_string("question"), block("QUESTION", op->question));
	vars = jv_object_set(vars, jv_string("contexts"), jv_string(ctx.p ? ctx.p : ""));
	vars = jv_object_set(vars, jv_string("statements"), block("STATEMENTS", st.p ? st.p : ""));
	vars = jv_object_set(vars, jv_string("count"), jv_string(num));
	rag_buf_free(&ctx);
	rag_buf_free(&st);

	op->calls_left++;
	rag_judge_ask(j, "verify", op->lang, vars, rag_judge_check_verdicts, k,
	              "{\"verdicts\": [{\"id\": 1, \"verdict\": true, \"reason\": \"...\"}, ...]} "
	              "with exactly one verdict for each numbered statement", op->usage, vcall_done, vc);
}

/* Contexts in groups that fit batch_chars (a context longer than that goes alone). */
static int context_groups(verify_op *op, int **firsts, int **counts)
{
	int nctx = jv_array_length(jv_copy(op->contexts)), i, g = 0;
	long limit = op->j->cfg->verify.batch_chars > 0 ? op->j->cfg->verify.batch_chars : 24000, size = 0;
	*firsts = rag_xmalloc((size_t)(nctx + 1) * sizeof **firsts);
	*counts = rag_xmalloc((size_t)(nctx + 1) * sizeof **counts);
	for (i = 0; i < nctx; i++) {
		jv s = jv_array_get(jv_copy(op->contexts), i);
		long len = (long)jv_string_length_codepoints(s);
		if (g == 0 || size + len > limit) {
			(*firsts)[g] = i;
			(*counts)[g] = 0;
			g++;
			size = 0;
		}
		(*counts)[g - 1]++;
		size += len;
	}
	return g;
}

static void verify_batches(verify_op *op, const int *todo, int ntodo)
{
	int per = op->j->cfg->verify.batch_claims > 0 ? op->j->cfg->verify.batch_claims : 20;
	int *firsts, *counts, ng, g, i;
	ng = context_groups(op, &firsts, &counts);
	op->calls_left++;         /* guard: no finish while we are still sending */
	for (i = 0; i < ntodo; i += per) {
		int k = ntodo - i < per ? ntodo - i : per;
		for (g = 0; g < ng; g++) verify_send(op, todo + i, k, firsts[g], counts[g]);
	}
	free(firsts);
	free(counts);
	if (--op->calls_left == 0) {
		if (!op->error && !op->rechecking && op->j->cfg->verify.recheck_chunks)
			verify_recheck(op);
		else
			verify_finish(op);
	}
}

/* The optional fallback: an unsupported claim gets a second look at each chunk alone, where a
 * long context cannot hide the sentence that supports it. Still one call per chunk, not per
 * claim and chunk. */
static void verify_recheck(verify_op *op)
{
	int *todo = rag_xmalloc((size_t)op->n * sizeof *todo), n = 0, i, nctx;
	int per = op->j->cfg->verify.batch_claims > 0 ? op->j->cfg->verify.batch_claims : 20;
	op->rechecking = 1;
	for (i = 0; i < op->n; i++)
		if (op->verdict[i] == 0) todo[n++] = i;
	nctx = jv_array_length(jv_copy(op->contexts));
	if (n == 0 || nctx < 2) {
		free(todo);
		verify_finish(op);
		return;
	}
	op->calls_left++;
	for (int c = 0; c < nctx; c++)
		for (i = 0; i < n; i += per)
			verify_send(op, todo + i, n - i < per ? n - i : per, c, 1);
	free(todo);
	if (--op->calls_left == 0) verify_finish(op);
}

static void verify_finish(verify_op *op)
{
	jv out = jv_null();
	int i;
	if (!op->error) {
		out = jv_array();
		for (i = 0; i < op->n; i++) {
			jv rs = jv_array_get(jv_copy(op->reasons), i);
			out = jv_array_append(out, JV_OBJECT(jv_string("claim"), jv_array_get(jv_copy(op->claims), i),
			                                     jv_string("verdict"), jv_bool(op->verdict[i] == 1),
			                                     jv_string("reason"),
			                                     jv_get_kind(rs) == JV_KIND_STRING ? rs : jv_string("")));
			if (jv_get_kind(rs) != JV_KIND_STRING) jv_free(rs);
		}
	}
	op->cb(op->arg, out, op->error);
	jv_free(op->claims);
	jv_free(op->contexts);
	jv_free(op->reasons);
	free(op->verdict);
	free(op->question);
	free(op->error);
	free(op);
}

/* A literal match must not be a piece of a longer word or number: "$10" is not in "$100". */
static int bounded(const char *hay, const char *at, size_t len)
{
	unsigned char before = at > hay ? (unsigned char)at[-1] : ' ', after = (unsigned char)at[len];
	unsigned char first = (unsigned char)at[0], last = (unsigned char)at[len - 1];
	int word_before = before < 128 && (isalnum(before) || before == '_');
	int word_after = after < 128 && (isalnum(after) || after == '_');
	if (word_before && first < 128 && isalnum(first)) return 0;
	if (word_after && last < 128 && isalnum(last)) return 0;
	/* "1,879" or "3.5": a digit run continues across separators */
	if (after && (after == '.' || after == ',') && isdigit((unsigned char)at[len + 1]) && isdigit(last)) return 0;
	return 1;
}

static int literal_in(const char *claim, jv contexts)
{
	char *c = rag_text_normalize(claim);
	int n, i, hit = 0;
	size_t len;
	if (!c) return 0;
	len = strlen(c);
	while (len > 0 && strchr(" .。!！", c[len - 1])) c[--len] = 0;
	n = jv_array_length(jv_copy(contexts));
	for (i = 0; i < n && !hit && len > 0; i++) {
		jv s = jv_array_get(jv_copy(contexts), i);
		char *t = rag_text_normalize(jv_string_value(s));
		for (const char *p = t; p && (p = strstr(p, c)); p++) {
			if (bounded(t, p, len)) {
				hit = i + 1;
				break;
			}
		}
		free(t);
		jv_free(s);
	}
	free(c);
	return hit;
}

void rag_judge_verify(rag_judge *j, const char *lang, const char *question, jv claims, jv contexts,
                      rag_usage *usage, rag_judge_cb cb, void *arg)
{
	verify_op *op;
	int n = jv_array_length(jv_copy(claims)), nctx = jv_array_length(jv_copy(contexts)), i, ntodo = 0;
	int *todo;

	if (n == 0 || nctx == 0 || j->offline) {
		if (j->offline && n > 0 && nctx > 0) {
			cb(arg, rag_offline_verify(claims, contexts, j->cfg->verify.offline_threshold), NULL);
			return;
		}
		/* nothing to ask: no claims, or nothing retrieved to support them */
		jv out = jv_array();
		for (i = 0; i < n; i++)
			out = jv_array_append(out, JV_OBJECT(jv_string("claim"), jv_array_get(jv_copy(claims), i),
			                                     jv_string("verdict"), jv_false(),
			                                     jv_string("reason"), jv_string("no contexts were retrieved")));
		jv_free(claims);
		jv_free(contexts);
		cb(arg, out, NULL);
		return;
	}
	op = rag_xmalloc(sizeof *op);
	memset(op, 0, sizeof *op);
	op->j = j;
	op->lang = lang_index(lang) ? "zh" : "en";
	op->question = rag_xstrdup(question ? question : "");
	op->claims = claims;
	op->contexts = contexts;
	op->n = n;
	op->verdict = rag_xmalloc((size_t)n * sizeof *op->verdict);
	op->reasons = jv_array();
	op->usage = usage;
	op->cb = cb;
	op->arg = arg;
	todo = rag_xmalloc((size_t)n * sizeof *todo);
	for (i = 0; i < n; i++) {
		int hit = 0;
		op->reasons = jv_array_append(op->reasons, jv_null());
		op->verdict[i] = -1;
		if (j->cfg->verify.literal_match) {
			jv s = jv_array_get(jv_copy(claims), i);
			hit = literal_in(jv_string_value(s), contexts);
			jv_free(s);
		}
		if (hit) {
			char r[64];
			snprintf(r, sizeof r, "found literally in context %d", hit);
			op->verdict[i] = 1;
			op->reasons = jv_array_set(op->reasons, i, jv_string(r));
		} else {
			todo[ntodo++] = i;
		}
	}
	if (ntodo == 0) {
		free(todo);
		verify_finish(op);
		return;
	}
	verify_batches(op, todo, ntodo);
	free(todo);
}
