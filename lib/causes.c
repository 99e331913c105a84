/* causes.c - a run's failing records grouped by cause, the one grouping of rag-report's page
 * and rag-serve's opened run. One cause a record, its root: the first error, where the record
 * has errors (a later stage's error that follows from it, "claims.answer is null", is no cause
 * of its own): a judge or the service that failed (an error naming no place in the record) is
 * an outage, "the judge failed: N records unscored" (the endpoint's error its text and each
 * record's detail), never advice
 * about the system; else no answer (the stage that failed), else the error. A record without
 * errors: relevant documents not retrieved (a retrieval miss: relevant ids and a reciprocal
 * rank, hit or recall of 0); else a metric below its per-record threshold (retrieval's metrics
 * before the answer's, then the farthest below); else a metric with one and no score; else the
 * first thing the gate says it missed. Outages come first, then the most records, and under a
 * cause the records farthest below the threshold first. What failed is the gate's verdict,
 * never made again. */
#include "base.h"
#include "record.h"
#include "gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cause_rec { long seq; double dist; char *id, *detail; } cause_rec;
typedef struct cause {
	jv what;          /* {kind, metric?, threshold?, tool?, text?, cause: the English line} */
	long count, last; /* last: the serial of the last record counted, so a record counts once */
	double worst;
	cause_rec shown[RAG_CAUSE_SHOWN + 1];
	size_t nshown;
} cause;
struct rag_causes {
	rag_idtab keys;   /* "outage:judge|service", "miss:", "below:M", "null:M", "noanswer:TOOL", "error:TEXT",
	                   * "why:TEXT"; row = cause */
	cause *v;
	size_t n, cap;
	long serial;      /* the records added */
};

rag_causes *rag_causes_new(void)
{
	return rag_xcalloc(1, sizeof(rag_causes));
}

void rag_causes_free(rag_causes *cs)
{
	size_t i, k;
	if (!cs) return;
	for (i = 0; i < cs->n; i++) {
		for (k = 0; k < cs->v[i].nshown; k++) free(cs->v[i].shown[k].id), free(cs->v[i].shown[k].detail);
		jv_free(cs->v[i].what);
	}
	free(cs->v);
	rag_idtab_free(&cs->keys);
	free(cs);
}

static int rec_before(const cause_rec *a, const cause_rec *b)
{
	return a->dist > b->dist || (a->dist == b->dist && a->seq < b->seq);
}

/* the cause of key (made from what, consumed, when new); NULL when the table is full */
static cause *cause_get(rag_causes *cs, const char *key, jv what)
{
	long row = rag_idtab_find(&cs->keys, key);
	cause *c;
	if (row >= 0) {
		jv_free(what);
		return &cs->v[row];
	}
	if (rag_idtab_add(&cs->keys, key) < 0) {
		jv_free(what);
		return NULL;
	}
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 8;
		cs->v = rag_xrealloc(cs->v, cs->cap * sizeof *cs->v);
	}
	c = &cs->v[cs->n++];
	memset(c, 0, sizeof *c);
	c->what = what;
	c->worst = -HUGE_VAL;
	c->last = -1;
	return c;
}

/* the record (id, detail borrowed) under the cause of key; what consumed. 1 when counted. */
static int cause_put(rag_causes *cs, const char *key, jv what, long seq, const char *id, double dist, const char *detail)
{
	cause *c = cause_get(cs, key, what);
	cause_rec r = {seq, dist, NULL, NULL};
	size_t i;
	if (!c || c->last == cs->serial) return 0;
	c->last = cs->serial;
	c->count++;
	if (dist > c->worst) c->worst = dist;
	if (c->nshown == RAG_CAUSE_SHOWN && !rec_before(&r, &c->shown[RAG_CAUSE_SHOWN - 1])) return 1;
	r.id = rag_xstrdup(id ? id : "");
	r.detail = rag_xstrdup(detail ? detail : "");
	for (i = c->nshown; i > 0 && rec_before(&r, &c->shown[i - 1]); i--) c->shown[i] = c->shown[i - 1];
	c->shown[i] = r;
	if (c->nshown < RAG_CAUSE_SHOWN) c->nshown++;
	else free(c->shown[RAG_CAUSE_SHOWN].id), free(c->shown[RAG_CAUSE_SHOWN].detail);
	return 1;
}

/* cause_put of a cause {kind, field: s, cause} of key "prefix:key_s" (noanswer, null, error:
 * its English line made from s) */
static int put_kind(rag_causes *cs, const char *prefix, const char *kind, const char *field, const char *s, const char *key_s,
                    long seq, const char *id, double dist, const char *detail)
{
	char *key = rag_xasprintf("%s:%s", prefix, key_s);
	char *line = !strcmp(kind, "noanswer") ? rag_xasprintf("no answer (%s failed)", s)
	             : !strcmp(kind, "null") ? rag_xasprintf("%s: no score", s) : rag_xasprintf("error: %s", s);
	int n = cause_put(cs, key, JV_OBJECT(jv_string("kind"), jv_string(kind), jv_string(field), jv_string(s),
	                                     jv_string("cause"), jv_string(line)), seq, id, dist, detail);
	free(key);
	free(line);
	return n;
}

/* a message as a cause shows it: over 80 characters, its first 79 and an ellipsis */
static void cut_text(const char *msg, char *t, size_t tlen)
{
	size_t n = 0, chars = 0, i;
	for (i = 0; msg[i]; i++)
		if (((unsigned char)msg[i] & 0xC0) != 0x80 && ++chars == 80) n = i;
	if (chars <= 80) {
		snprintf(t, tlen, "%s", msg);
		return;
	}
	/* n: where the 80th character starts, so the 79 before it are kept whole */
	snprintf(t, tlen, "%.*s\u2026", (int)n, msg);
}

/* The record's root error, its first (errs borrowed, not empty), as its one cause: an outage
 * when it names no place in the record (a judge's or the service's failure, rag_verdict_unscored's
 * rule), else no answer (its stage), else the error. */
static void error_cause(rag_causes *cs, jv errs, int noanswer, long seq, const char *id)
{
	char tool[128], metric[128], msg[1024], t[1030], who[300];
	jv e = jv_array_get(jv_copy(errs), 0);
	rag_json_str(e, "tool", tool, sizeof tool);
	rag_json_str(e, "metric", metric, sizeof metric);
	rag_json_str(e, "message", msg, sizeof msg);
	cut_text(msg, t, sizeof t);
	if (jv_get_kind(e) == JV_KIND_OBJECT && !jv_object_has(jv_copy(e), jv_string("at"))) {
		int service = !strcmp(tool, "rag-collect") || !strcmp(tool, "collect");
		char *detail = rag_xasprintf("%s%s%s", *tool ? tool : "", *tool ? ": " : "", t);
		/* the first record's error stands for the endpoint's; the line is made with the count */
		cause_put(cs, service ? "outage:service" : "outage:judge",
		          JV_OBJECT(jv_string("kind"), jv_string("outage"), jv_string("who"), jv_string(service ? "service" : "judge"),
		                    jv_string("tool"), jv_string(tool), jv_string("text"), jv_string(t)),
		          seq, id, HUGE_VAL, detail);
		free(detail);
	} else if (noanswer) {
		if (!*tool) snprintf(tool, sizeof tool, "collect");
		put_kind(cs, "noanswer", "noanswer", "tool", tool, tool, seq, id, HUGE_VAL, msg);
	} else {
		/* the stage and metric that reported it, "tool: metric" */
		snprintf(who, sizeof who, "%s%s%s", tool, *tool && *metric ? ": " : "", metric);
		put_kind(cs, "error", "error", "text", t, msg, seq, id, HUGE_VAL, who);
	}
	jv_free(e);
}

/* whether metric m (a score's name, "mrr@5") is a rank metric that is 0 when none of the
 * relevant documents was retrieved */
static int miss_metric(const char *m)
{
	static const char *const names[] = {"mrr", "hit", "recall"};
	size_t i, n = strcspn(m, "@");
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == n && !strncmp(m, names[i], n)) return 1;
	return 0;
}

/* A retrieval miss: the record names relevant documents and a rank metric of it is 0. The
 * metric into m. */
static int retrieval_miss(jv rec, char *m, size_t mlen)
{
	jv rel = rag_record_get(rec, "relevant_ids"), scores;
	int miss = 0;
	if (!(jv_get_kind(rel) == JV_KIND_ARRAY && jv_array_length(jv_copy(rel)) > 0)) {
		jv_free(rel);
		return 0;
	}
	jv_free(rel);
	scores = rag_json_get(jv_copy(rec), "scores");
	if (jv_get_kind(scores) == JV_KIND_OBJECT)
		jv_object_foreach(scores, k, v) {
			if (!miss && jv_get_kind(v) == JV_KIND_NUMBER && jv_number_value(v) == 0 && miss_metric(jv_string_value(k))) {
				snprintf(m, mlen, "%s", jv_string_value(k));
				miss = 1;
			}
			jv_free(k);
			jv_free(v);
		}
	jv_free(scores);
	return miss;
}

/* retrieval's metrics first: a record below two thresholds has the retrieval's as its cause */
static const char *const retrieval_first[] = {
	"context_recall", "context_precision", "context_entities_recall", "context_utilization", "recall", "precision",
	"ndcg", "average_precision", "r_precision",
};

static int stage_rank(const char *m)
{
	size_t i, n = strcspn(m, "@");
	for (i = 0; i < sizeof retrieval_first / sizeof retrieval_first[0]; i++)
		if (strlen(retrieval_first[i]) == n && !strncmp(m, retrieval_first[i], n)) return (int)i;
	return (int)(sizeof retrieval_first / sizeof retrieval_first[0]);
}

/* the check (of checks, borrowed) that is the record's cause: below its per-record threshold,
 * retrieval's first, then the farthest below; else the first with a threshold and no score
 * (*null set). jv_invalid() when none. */
static jv root_check(jv checks, int *null)
{
	jv best = jv_invalid(), nul = jv_invalid();
	int brank = 0;
	double bdist = 0;
	*null = 0;
	jv_array_foreach(checks, k, c) {
		char m[256], st[16];
		double x = rag_json_num(c, "score"), t = rag_json_num(c, "threshold");
		rag_json_str(c, "metric", m, sizeof m);
		rag_json_str(c, "status", st, sizeof st);
		if (!isnan(t) && !strcmp(st, "error") && !jv_is_valid(nul)) {
			nul = jv_copy(c);
		} else if (!isnan(t) && !strcmp(st, "failure") && !isnan(x) && x < t - 1e-9) {
			int r = stage_rank(m);
			if (!jv_is_valid(best) || r < brank || (r == brank && t - x > bdist)) {
				jv_free(best);
				best = jv_copy(c);
				brank = r;
				bdist = t - x;
			}
		}
		jv_free(c);
		(void)k;
	}
	if (jv_is_valid(best)) {
		jv_free(nul);
		return best;
	}
	*null = jv_is_valid(nul);
	return nul;
}

/* a check (borrowed) below its threshold as a cause */
static void below_cause(rag_causes *cs, jv c, long seq, const char *id)
{
	char m[256], detail[700], *key, *line;
	double x = rag_json_num(c, "score"), t = rag_json_num(c, "threshold");
	rag_json_str(c, "metric", m, sizeof m);
	key = rag_xasprintf("below:%s", m);
	line = rag_xasprintf("%s below %.3f", m, t);
	snprintf(detail, sizeof detail, "%.3f (\u2212%.3f)", x, t - x);
	cause_put(cs, key, JV_OBJECT(jv_string("kind"), jv_string("below"), jv_string("metric"), jv_string(m),
	                             jv_string("threshold"), jv_number(t), jv_string("cause"), jv_string(line)),
	          seq, id, t - x, detail);
	free(key);
	free(line);
}

void rag_causes_add(rag_causes *cs, jv rec, jv verdict, long seq)
{
	jv errs, checks, c;
	const char *ans;
	char *id, m[256];
	int null;
	if (!rag_json_true(verdict, "failed") && !rag_json_true(verdict, "errored")) return;
	errs = rag_json_get(jv_copy(rec), "errors");
	checks = rag_json_get(jv_copy(verdict), "checks");
	ans = rag_record_str(rec, "answer");
	id = rag_record_id(rec);
	cs->serial++;
	if (jv_get_kind(checks) != JV_KIND_ARRAY) checks = (jv_free(checks), jv_array());
	if (jv_get_kind(errs) == JV_KIND_ARRAY && jv_array_length(jv_copy(errs)) > 0) {
		error_cause(cs, errs, !ans || !*ans, seq, id);
	} else if (retrieval_miss(rec, m, sizeof m)) {
		cause_put(cs, "miss:", JV_OBJECT(jv_string("kind"), jv_string("miss"),
		                                 jv_string("cause"), jv_string("retrieval missed: no relevant document retrieved")),
		          seq, id, HUGE_VAL, m);
	} else if (jv_is_valid(c = root_check(checks, &null))) {
		if (null) {
			char cm[256];
			rag_json_str(c, "metric", cm, sizeof cm);
			put_kind(cs, "null", "null", "metric", cm, cm, seq, id, HUGE_VAL, "");
		} else {
			below_cause(cs, c, seq, id);
		}
		jv_free(c);
	} else {
		/* a record with no cause of these says why it failed: the first thing it missed, and
		 * its code and arguments (gate.c's missed_codes) for a page in another language */
		jv w = jv_array_get(rag_json_get(jv_copy(verdict), "missed"), 0);
		jv wc = rag_json_get(jv_copy(verdict), "missed_codes");
		wc = jv_get_kind(wc) == JV_KIND_ARRAY && jv_array_length(jv_copy(wc)) > 0 ? jv_array_get(wc, 0) : (jv_free(wc), jv_null());
		jv_free(c);
		if (jv_get_kind(w) == JV_KIND_STRING) {
			char *key = rag_xasprintf("why:%s", jv_string_value(w)), *line = rag_xasprintf("error: %s", jv_string_value(w));
			jv what = JV_OBJECT(jv_string("kind"), jv_string("error"), jv_string("text"), jv_copy(w), jv_string("cause"),
			                    jv_string(line));
			if (jv_get_kind(wc) == JV_KIND_OBJECT)
				what = jv_object_set(jv_object_set(what, jv_string("code"), rag_json_get(jv_copy(wc), "code")),
				                     jv_string("args"), rag_json_get(jv_copy(wc), "args"));
			cause_put(cs, key, what, seq, id, 0, "");
			free(key);
			free(line);
		}
		jv_free(w);
		jv_free(wc);
	}
	free(id);
	jv_free(errs);
	jv_free(checks);
}

typedef struct ranked { const cause *c; const char *key; } ranked;

static int cause_cmp(const void *a, const void *b)
{
	const ranked *p = a, *q = b;
	const cause *x = p->c, *y = q->c;
	int ox = !strncmp(p->key, "outage:", 7), oy = !strncmp(q->key, "outage:", 7);
	if (ox != oy) return ox ? -1 : 1;   /* an outage first: nothing else can be judged without it */
	if (x->count != y->count) return x->count > y->count ? -1 : 1;
	if (x->worst != y->worst) return x->worst > y->worst ? -1 : 1;
	return strcmp(p->key, q->key);
}

jv rag_causes_json(const rag_causes *cs)
{
	jv a = jv_array();
	size_t i, k;
	ranked *order = rag_xcalloc(cs->n + 1, sizeof *order);
	for (i = 0; i < cs->n; i++) order[i] = (ranked){&cs->v[i], rag_idtab_id(&cs->keys, i)};
	qsort(order, cs->n, sizeof *order, cause_cmp);
	for (i = 0; i < cs->n; i++) {
		const cause *c = order[i].c;
		jv recs = jv_array();
		for (k = 0; k < c->nshown; k++)
			recs = jv_array_append(recs, JV_OBJECT(jv_string("seq"), jv_number((double)c->shown[k].seq),
			                                       jv_string("id"), jv_string(c->shown[k].id),
			                                       jv_string("detail"), jv_string(c->shown[k].detail)));
		jv what = jv_copy(c->what);
		if (!strncmp(order[i].key, "outage:", 7)) {
			/* "the judge failed: 3 records unscored": its count now known; the endpoint's error is
			 * its text and each record's detail (a line short enough for a phone's first screen) */
			char who[16], *line;
			rag_json_str(what, "who", who, sizeof who);
			line = rag_xasprintf("the %s failed: %ld record%s unscored", who, c->count, c->count == 1 ? "" : "s");
			what = jv_object_set(what, jv_string("cause"), jv_string(line));
			free(line);
		}
		/* key: the cause's one name ("below:faithfulness", "outage:judge"), by which the store
		 * finds a cause's records (rag_store_records) */
		what = jv_object_set(what, jv_string("key"), jv_string(order[i].key));
		a = jv_array_append(a, jv_object_set(jv_object_set(what, jv_string("count"), jv_number((double)c->count)),
		                                     jv_string("records"), recs));
	}
	free(order);
	return a;
}
