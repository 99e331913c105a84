/* gate.c - the quality gate: scores of a whole run gathered per metric and per category, the
 * verdict against thresholds, the worst records with their reasons, and the comparison with a
 * baseline run.
 *
 * A summary needs every score (a median or a bootstrap cannot be computed from a running total):
 * they are kept once per metric, category and group in series.c's series, which hold them in
 * memory up to the budget (o.budget) and in a temporary file beyond it; besides them only the
 * ids and scores of a baseline, when one is compared, and the few worst records in full. */
#include "base.h"
#include "config.h"
#include "record.h"
#include "gate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* a mean equal to its threshold in decimal must not fail by binary rounding (0.7 + 0.9 = 1.6) */
#define EPS 1e-9
#define MAX_LISTED 1000

typedef struct category {
	char *name;
	size_t by;                /* a group: the index of its field in o.by */
	int none;                 /* a group: the records without the field */
	long records, passed, errored;
	size_t *m;                /* per metric index: its series + 1, 0 none yet; grown as metrics appear */
	long *na;                 /* per metric: records it is not applicable to */
	size_t nm;
} category;

/* what a metric's values alone do not say */
typedef struct mstat {
	long na;                  /* records it is not applicable to (not_applicable.<metric>) */
	char *na_reason;          /* the first of their reasons */
	long flips;               /* records whose repeats flip (verdicts.<metric>.flip) */
	long judged, passed, failed;   /* records checked against its record threshold or verdict */
	long undecided;           /* records with a score but no pass verdict to gate on */
	int verdict;              /* gated on the tool's own pass verdict (o.pass) */
	long from[3];             /* records whose relevance_from.<metric> (rag-ap) is each of from_names */
} mstat;

/* rag-ap's sources of relevance, as relevance_from.<metric> names them */
static const char *const from_names[] = {"ids", "verdicts", "similarity"};

typedef struct worst {
	double key;
	long seq;
	jv info;
} worst;

typedef struct change { char *id; size_t metric; double base, cur; long seq; } change;

/* The MAX_LISTED largest changes one way (a heap, the least of them on top) and how many there
 * were: a run where every record regressed keeps a thousand, not a million. dir is -1 for
 * drops (the most negative first), 1 for gains. */
typedef struct changes { change *v; size_t n; long total; int dir; } changes;

struct rag_gate {
	rag_gate_opts o;
	long records, unreadable, errored, passed, seq;
	long not_scored, remote_failed, na_records;   /* rag_verdict_unscored's; a metric not applicable */
	long capped;                     /* rag_verdict_capped's: records the spending cap left unscored */
	jv remote_error;                 /* the first remote failure's error entry, {tool, message}; null: none */
	char **metric; size_t nmetric;   /* names, in order of appearance */
	rag_series *ser;                 /* every series below */
	size_t *vals;                    /* per metric: its series */
	double *mean_thr, *rec_thr;      /* per metric, NAN when none */
	mstat *ms;                       /* per metric */
	jv metric_ix, cat_ix;            /* name -> index */
	category *cat; size_t ncat;
	category *grp; size_t ngrp;      /* groups of o.by, keyed "<by index>=<value>" (or "<by
	                                  * index>" for none) in grp_ix */
	jv grp_ix;
	long cat_by;                     /* the index of "category" in o.by, whose groups are the
	                                  * categories too (kept once); -1: the categories apart */
	unsigned char *by_seen;          /* per o.by field: some record has it */
	long lang_zh, lang_en;           /* the questions' languages */
	worst *w; size_t nw;
	/* baseline */
	int have_base;
	char *base_name;
	rag_idtab base_ids;              /* the baseline's ids, row by row */
	size_t nbase, base_cap;          /* rows; what bcol[] has room for */
	unsigned char *base_seen;
	char **bmetric; size_t nbmetric; jv bmetric_ix;
	double **bcol;                   /* per baseline metric, per row; NAN null */
	long base_dups, cur_dups, no_id;
	size_t *pcur, *pbase, *pdiff;    /* pairs per (current) metric: series (the differences kept) */
	unsigned char *base_unscored;    /* per row: rag_verdict_unscored of the baseline's record */
	changes regressed, improved;     /* pairs of a record and a metric */
	rag_compare *cmp;                /* the pairs by compare.c's definition: counts, paired means */
	jv only_cur; long n_only_cur;
	jv cost;                         /* the records' usage, per tool, stage and judge (rag_cost_add) */
	char *self_model;                /* the first model seen judging its own answers; NULL: none */
	/* gate.by_category: rec_thr holds the current record's thresholds (category_thresholds),
	 * rec_base the run's; rec_cat per metric the category whose threshold the record has */
	double *rec_base; const char **rec_cat; size_t nrec_base;
	char note[300];
	long self_judged;                /* records it (or another) judged that it answered */
};

/* whether the run scored metric name (o.run; every metric when the run's are not known) */
static int in_run(const rag_gate_opts *o, const char *name)
{
	size_t k;
	if (!o->nrun) return 1;
	for (k = 0; k < o->nrun; k++)
		if (!strcmp(o->run[k], name)) return 1;
	return 0;
}

static size_t metric_index(rag_gate *g, const char *name)
{
	jv ix = jv_object_get(jv_copy(g->metric_ix), jv_string(name));
	size_t i, k;
	if (jv_get_kind(ix) == JV_KIND_NUMBER) {
		i = (size_t)jv_number_value(ix);
		jv_free(ix);
		return i;
	}
	jv_free(ix);
	i = g->nmetric++;
	g->metric = rag_xrealloc(g->metric, g->nmetric * sizeof *g->metric);
	g->metric[i] = rag_xstrdup(name);
	g->vals = rag_xrealloc(g->vals, g->nmetric * sizeof *g->vals);
	g->vals[i] = rag_series_open(g->ser, 1);
	g->pcur = rag_xrealloc(g->pcur, g->nmetric * sizeof *g->pcur);
	g->pbase = rag_xrealloc(g->pbase, g->nmetric * sizeof *g->pbase);
	g->pdiff = rag_xrealloc(g->pdiff, g->nmetric * sizeof *g->pdiff);
	g->pcur[i] = rag_series_open(g->ser, 0);
	g->pbase[i] = rag_series_open(g->ser, 0);
	g->pdiff[i] = rag_series_open(g->ser, 1);
	g->mean_thr = rag_xrealloc(g->mean_thr, g->nmetric * sizeof *g->mean_thr);
	g->rec_thr = rag_xrealloc(g->rec_thr, g->nmetric * sizeof *g->rec_thr);
	g->mean_thr[i] = g->rec_thr[i] = NAN;
	g->ms = rag_xrealloc(g->ms, g->nmetric * sizeof *g->ms);
	memset(&g->ms[i], 0, sizeof g->ms[i]);
	g->metric_ix = jv_object_set(g->metric_ix, jv_string(name), jv_number((double)i));
	if (!in_run(&g->o, name)) return i;   /* its thresholds: "not run" (rag_gate_summary) */
	for (k = 0; k < g->o.npass; k++)
		if (!strcmp(g->o.pass[k], name)) g->ms[i].verdict = 1;
	for (k = 0; k < g->o.nmean; k++)
		if (!strcmp(g->o.mean[k].key, name)) g->mean_thr[i] = g->o.mean[k].value;
	for (k = 0; k < g->o.nrecord; k++)
		if (!strcmp(g->o.record[k].key, name)) g->rec_thr[i] = g->o.record[k].value;
	return i;
}

static int gated(const rag_gate *g, size_t m)
{
	return !isnan(g->mean_thr[m]) || !isnan(g->rec_thr[m]) || g->ms[m].verdict;
}

/* checked record by record: a record threshold or the tool's verdict */
static int record_gated(const rag_gate *g, size_t m)
{
	return !isnan(g->rec_thr[m]) || g->ms[m].verdict;
}

static const char *const default_by[] = {"category"};

rag_gate *rag_gate_new(const rag_gate_opts *o)
{
	rag_gate *g = rag_xmalloc(sizeof *g);
	size_t k;
	memset(g, 0, sizeof *g);
	g->o = *o;
	g->ser = rag_series_new(o->budget);
	g->metric_ix = jv_object();
	g->cat_ix = jv_object();
	g->bmetric_ix = jv_object();
	g->only_cur = jv_array();
	g->grp_ix = jv_object();
	g->cost = jv_object();
	if (!g->o.nby) {
		g->o.by = default_by;
		g->o.nby = 1;
	}
	g->by_seen = rag_xcalloc(g->o.nby, 1);
	g->cat_by = -1;
	for (k = 0; k < g->o.nby && g->cat_by < 0; k++)
		if (!strcmp(g->o.by[k], "category")) g->cat_by = (long)k;
	g->regressed.dir = -1;
	g->improved.dir = 1;
	g->remote_error = jv_null();
	g->cmp = rag_compare_new(o->regression);
	/* the gated metrics are in the table even when no record carries them: all null then (but
	 * those the run did not score, whose thresholds are "not run") */
	for (k = 0; k < o->nmean; k++)
		if (in_run(o, o->mean[k].key)) metric_index(g, o->mean[k].key);
	for (k = 0; k < o->nrecord; k++)
		if (in_run(o, o->record[k].key)) metric_index(g, o->record[k].key);
	for (k = 0; k < o->npass; k++)
		if (in_run(o, o->pass[k])) metric_index(g, o->pass[k]);
	for (k = 0; k < o->nby_category; k++)
		if (in_run(o, o->by_category[k].metric)) metric_index(g, o->by_category[k].metric);
	for (k = 0; k < o->nby_category_mean; k++)
		if (in_run(o, o->by_category_mean[k].metric)) metric_index(g, o->by_category_mean[k].metric);
	return g;
}

/* scores as an object, or an empty one */
static jv record_scores(jv rec)
{
	jv s = rag_json_get(jv_copy(rec), "scores");
	if (jv_get_kind(s) != JV_KIND_OBJECT) {
		jv_free(s);
		return jv_object();
	}
	return s;
}

static const char *base_id(const rag_gate *g, size_t row)
{
	return rag_idtab_id(&g->base_ids, row);
}

/* A new row for id (not there yet), with room in the columns; -1 when the table is full. */
static long base_add(rag_gate *g, const char *id)
{
	long row = rag_idtab_add(&g->base_ids, id);
	size_t m;
	if (row < 0) return -1;
	if ((size_t)row == g->base_cap) {
		g->base_cap = g->base_cap ? g->base_cap * 2 : 256;
		for (m = 0; m < g->nbmetric; m++) g->bcol[m] = rag_xrealloc(g->bcol[m], g->base_cap * sizeof **g->bcol);
		g->base_unscored = rag_xrealloc(g->base_unscored, g->base_cap);
	}
	g->nbase++;
	return row;
}

/* A line of rag-store diff ({id, change, scores, baseline_scores...}) stands for the baseline's
 * record by its baseline_scores: the object, null when the baseline lacked the record; invalid
 * for a record of a run. rec borrowed. */
static jv diff_baseline_scores(jv rec)
{
	jv ch = rag_json_get(jv_copy(rec), "change"), bs;
	int is_diff = jv_get_kind(ch) == JV_KIND_STRING;
	jv_free(ch);
	if (!is_diff) return jv_invalid();
	bs = rag_json_get(jv_copy(rec), "baseline_scores");
	if (jv_get_kind(bs) == JV_KIND_OBJECT) return bs;
	if (jv_get_kind(bs) == JV_KIND_NULL) return bs;
	jv_free(bs);
	return jv_invalid();
}

void rag_gate_baseline(rag_gate *g, jv rec)
{
	char *id = rag_record_id(rec);
	jv scores;
	size_t row, m;
	g->have_base = 1;
	if (!id) {
		jv_free(rec);
		return;
	}
	if (rag_idtab_find(&g->base_ids, id) >= 0 || g->nbase >= UINT32_MAX - 1) {
		g->base_dups++;
		free(id);
		jv_free(rec);
		return;
	}
	scores = diff_baseline_scores(rec);
	if (jv_get_kind(scores) == JV_KIND_NULL) {
		/* a diff's record the baseline run did not have */
		free(id);
		jv_free(rec);
		return;
	}
	row = (size_t)base_add(g, id);   /* not full: nbase was checked above */
	free(id);
	for (m = 0; m < g->nbmetric; m++) g->bcol[m][row] = NAN;
	if (!jv_is_valid(scores)) {
		scores = record_scores(rec);
		g->base_unscored[row] = rag_verdict_unscored(rec) != 0;
	} else {
		/* a diff's line: its baseline was unscored where a score was null */
		jv r = JV_OBJECT(jv_string("scores"), jv_copy(scores));
		g->base_unscored[row] = rag_verdict_unscored(r) != 0;
		jv_free(r);
	}
	jv_object_foreach(scores, key, val) {
		jv bi = jv_object_get(jv_copy(g->bmetric_ix), jv_copy(key));
		size_t b, r;
		if (jv_get_kind(bi) == JV_KIND_NUMBER) {
			b = (size_t)jv_number_value(bi);
		} else {
			b = g->nbmetric++;
			g->bmetric = rag_xrealloc(g->bmetric, g->nbmetric * sizeof *g->bmetric);
			g->bmetric[b] = rag_xstrdup(jv_string_value(key));
			g->bcol = rag_xrealloc(g->bcol, g->nbmetric * sizeof *g->bcol);
			g->bcol[b] = rag_xmalloc(g->base_cap * sizeof **g->bcol);
			for (r = 0; r < g->nbase; r++) g->bcol[b][r] = NAN;
			g->bmetric_ix = jv_object_set(g->bmetric_ix, jv_copy(key), jv_number((double)b));
		}
		jv_free(bi);
		if (jv_get_kind(val) == JV_KIND_NUMBER) g->bcol[b][row] = jv_number_value(val);
		jv_free(key);
		jv_free(val);
	}
	jv_free(scores);
	jv_free(rec);
}

void rag_gate_baseline_name(rag_gate *g, const char *name)
{
	free(g->base_name);
	g->base_name = rag_xstrdup(name);
	g->have_base = 1;
}

/* the entry of key in a table of categories (or groups), made when new */
static category *get_cat(category **tab, size_t *n, jv *ix_tab, const char *key, const char *name, size_t by)
{
	jv ix = jv_object_get(jv_copy(*ix_tab), jv_string(key));
	category *c;
	if (jv_get_kind(ix) == JV_KIND_NUMBER) {
		c = &(*tab)[(size_t)jv_number_value(ix)];
		jv_free(ix);
		return c;
	}
	jv_free(ix);
	*tab = rag_xrealloc(*tab, (*n + 1) * sizeof **tab);
	c = &(*tab)[*n];
	memset(c, 0, sizeof *c);
	c->name = rag_xstrdup(name);
	c->by = by;
	*ix_tab = jv_object_set(*ix_tab, jv_string(key), jv_number((double)*n));
	++*n;
	return c;
}

static void cat_grow(category *c, size_t m)
{
	if (m >= c->nm) {
		c->m = rag_xrealloc(c->m, (m + 1) * sizeof *c->m);
		c->na = rag_xrealloc(c->na, (m + 1) * sizeof *c->na);
		memset(c->m + c->nm, 0, (m + 1 - c->nm) * sizeof *c->m);
		memset(c->na + c->nm, 0, (m + 1 - c->nm) * sizeof *c->na);
		c->nm = m + 1;
	}
}

/* the series of metric m in category c, opened at its first number */
static size_t cat_series(rag_gate *g, category *c, size_t m)
{
	cat_grow(c, m);
	if (!c->m[m]) c->m[m] = rag_series_open(g->ser, 1) + 1;
	return c->m[m] - 1;
}

static void cat_push(rag_gate *g, category *c, size_t m, double x)
{
	rag_series_push(g->ser, cat_series(g, c, m), x);
}

static void cat_na(category *c, size_t m)
{
	cat_grow(c, m);
	c->na[m]++;
}

/* A field of the record by a dotted path (system.top_k), as text into a new string; NULL when
 * absent or null. Strings as they are, other values as JSON. */
static char *field_text(jv rec, const char *path)
{
	jv v = rag_json_path(rec, path);
	char *s = NULL;
	if (jv_get_kind(v) == JV_KIND_STRING) {
		s = rag_xstrdup(jv_string_value(v));
	} else if (jv_is_valid(v) && jv_get_kind(v) != JV_KIND_NULL) {
		jv d = jv_dump_string(jv_copy(v), 0);
		s = rag_xstrdup(jv_string_value(d));
		jv_free(d);
	}
	jv_free(v);
	return s;
}

/* an object field of the record, or an empty object */
static jv record_obj(jv rec, const char *k)
{
	jv o = rag_json_get(jv_copy(rec), k);
	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		return jv_object();
	}
	return o;
}

/* The tool's own pass verdict on metric in verdicts (borrowed): a yes/no rubric's
 * {"pass": bool}, or keyword_overlap's [{"verdict": bool}]. 1 pass, 0 fail, -1 none. */
static int pass_verdict(jv verdicts, const char *metric)
{
	jv v = rag_json_get(jv_copy(verdicts), metric), p;
	int r = -1;
	if (jv_get_kind(v) == JV_KIND_ARRAY && jv_array_length(jv_copy(v)) == 1) {
		jv e = jv_array_get(jv_copy(v), 0);
		p = rag_json_get(e, "verdict");
	} else {
		p = rag_json_get(jv_copy(v), "pass");
	}
	if (jv_get_kind(p) == JV_KIND_TRUE) r = 1;
	else if (jv_get_kind(p) == JV_KIND_FALSE) r = 0;
	jv_free(p);
	jv_free(v);
	return r;
}

/* whether verdicts.<metric>.flip is true: rag-judge --repeat saw repeats on both sides */
static int flipped(jv verdicts, const char *metric)
{
	jv v = rag_json_get(jv_copy(verdicts), metric);
	int f = rag_json_true(v, "flip");
	jv_free(v);
	return f;
}

/* a message's code and arguments (args consumed), beside its English: the words a page in
 * another language says it with (rag-report's page) */
static jv why_code(const char *code, jv args)
{
	return JV_OBJECT(jv_string("code"), jv_string(code), jv_string("args"), args);
}

/* v (borrowed) when a string, else null */
static jv str_or_null(jv v)
{
	return jv_get_kind(v) == JV_KIND_STRING ? jv_copy(v) : jv_null();
}

static const char *verdict_label(const char *metric)
{
	if (!strcmp(metric, "faithfulness") || !strcmp(metric, "context_recall")) return "unsupported claim";
	if (strstr(metric, "precision") || strstr(metric, "relevan")) return "irrelevant";
	return "negative verdict";
}

/* verdict_label's code */
static const char *verdict_code(const char *metric)
{
	const char *l = verdict_label(metric);
	return l[0] == 'u' ? "unsupported" : l[0] == 'i' ? "irrelevant" : "rejected";
}

/* the text of a verdict entry (borrowed): its claim, else whatever names the judged thing */
static jv verdict_text(jv v)
{
	static const char *const fields[] = {"claim", "statement", "chunk", "text", "context", "reason"};
	size_t i;
	for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		jv t = rag_json_get(jv_copy(v), fields[i]);
		if (jv_get_kind(t) == JV_KIND_STRING) return t;
		jv_free(t);
	}
	if (jv_get_kind(v) == JV_KIND_OBJECT) {
		jv id = rag_json_get(jv_copy(v), "id");
		if (jv_is_valid(id) && jv_get_kind(id) != JV_KIND_NULL) {
			jv d = jv_dump_string(id, 0), t = jv_string_fmt("#%s", jv_string_value(d));
			jv_free(d);
			return t;
		}
		jv_free(id);
	}
	return jv_string("(no text)");
}

/* Why a record is bad, most telling first: its errors, the thresholds it missed, then what its
 * verdicts rejected (three per metric, then a count): [messages, their {code, args}]. rec
 * borrowed; missed and codes (one per message) consumed. */
static jv reasons(rag_gate *g, jv rec, jv missed, jv codes)
{
	jv out = jv_array(), errs, verdicts;
	out = jv_array_concat(out, missed);
	errs = rag_json_get(jv_copy(rec), "errors");
	if (jv_get_kind(errs) == JV_KIND_ARRAY) {
		jv_array_foreach(errs, i, e) {
			jv tool = rag_json_get(jv_copy(e), "tool"), metric = rag_json_get(jv_copy(e), "metric");
			jv msg = rag_json_get(e, "message");
			rag_buf b = {0};
			if (jv_get_kind(tool) == JV_KIND_STRING) rag_buf_addf(&b, "%s: ", jv_string_value(tool));
			if (jv_get_kind(metric) == JV_KIND_STRING) rag_buf_addf(&b, "%s: ", jv_string_value(metric));
			rag_buf_addf(&b, "error: %s", jv_get_kind(msg) == JV_KIND_STRING ? jv_string_value(msg) : "(no message)");
			out = jv_array_append(out, jv_string(b.p));
			codes = jv_array_append(codes, why_code("error", JV_OBJECT(jv_string("tool"), str_or_null(tool), jv_string("metric"),
			                                                           str_or_null(metric), jv_string("message"), str_or_null(msg))));
			rag_buf_free(&b);
			jv_free(tool);
			jv_free(metric);
			jv_free(msg);
			(void)i;
		}
	}
	jv_free(errs);
	verdicts = rag_json_get(jv_copy(rec), "verdicts");
	if (jv_get_kind(verdicts) == JV_KIND_OBJECT) {
		jv_object_foreach(verdicts, key, list) {
			int shown = 0, more = 0;
			if (jv_get_kind(list) == JV_KIND_ARRAY) {
				jv_array_foreach(list, i, v) {
					jv verdict = rag_json_get(jv_copy(v), "verdict");
					if (jv_get_kind(verdict) == JV_KIND_FALSE) {
						if (shown < 3) {
							jv t = verdict_text(v);
							out = jv_array_append(out, jv_string_fmt("%s: %s: %s", jv_string_value(key),
							                      verdict_label(jv_string_value(key)), jv_string_value(t)));
							codes = jv_array_append(codes, why_code(verdict_code(jv_string_value(key)),
							                        JV_OBJECT(jv_string("metric"), jv_copy(key), jv_string("text"), t)));
							shown++;
						} else {
							more++;
						}
					}
					jv_free(verdict);
					jv_free(v);
					(void)i;
				}
			}
			if (more) {
				out = jv_array_append(out, jv_string_fmt("%s: %d more", jv_string_value(key), more));
				codes = jv_array_append(codes, why_code("more", JV_OBJECT(jv_string("metric"), jv_copy(key), jv_string("n"),
				                                                         jv_number(more))));
			}
			jv_free(key);
			jv_free(list);
		}
	}
	jv_free(verdicts);
	(void)g;
	return JV_ARRAY(out, codes);
}

static int worse(double k1, long s1, double k2, long s2)
{
	return k1 < k2 || (k1 == k2 && s1 < s2);
}

/* Keep the record among the worst when it is: ordered by key, then by position. */
static void consider_worst(rag_gate *g, double key, jv rec, const char *where, const char *id,
                           const char *cat, int failed, jv missed, jv codes, jv scores)
{
	size_t n = (size_t)g->o.worst, i;
	worst w;
	jv info;
	if (!n || (g->nw == n && !worse(key, g->seq, g->w[n - 1].key, g->w[n - 1].seq))) {
		jv_free(missed);
		jv_free(codes);
		jv_free(scores);
		return;
	}
	info = jv_object();
	info = jv_object_set(info, jv_string("id"), id ? jv_string(id) : jv_null());
	if (cat) info = jv_object_set(info, jv_string("category"), jv_string(cat));
	if (where) info = jv_object_set(info, jv_string("at"), jv_string(where));
	{
		/* what a reader of the failed case wants next to its scores */
		const char *q = rag_record_str(rec, "question"), *ans = rag_record_str(rec, "answer");
		if (q) info = jv_object_set(info, jv_string("question"), jv_string(q));
		if (ans) info = jv_object_set(info, jv_string("answer"), jv_string(ans));
	}
	info = jv_object_set(info, jv_string("failed"), jv_bool(failed));
	info = jv_object_set(info, jv_string("scores"), scores);
	{
		/* which of its null scores are not applicable rather than missing */
		jv na = rag_json_get(jv_copy(rec), "not_applicable");
		if (jv_get_kind(na) == JV_KIND_OBJECT && jv_object_length(jv_copy(na)) > 0)
			info = jv_object_set(info, jv_string("not_applicable"), na);
		else
			jv_free(na);
	}
	{
		jv why = reasons(g, rec, missed, codes);
		info = jv_object_set(info, jv_string("reasons"), jv_array_get(jv_copy(why), 0));
		info = jv_object_set(info, jv_string("reason_codes"), jv_array_get(why, 1));
	}
	w.key = key;
	w.seq = g->seq;
	w.info = info;
	if (g->nw == n) {
		jv_free(g->w[n - 1].info);
		g->nw--;
	} else {
		g->w = rag_xrealloc(g->w, n * sizeof *g->w);
	}
	for (i = g->nw; i > 0 && worse(w.key, w.seq, g->w[i - 1].key, g->w[i - 1].seq); i--)
		g->w[i] = g->w[i - 1];
	g->w[i] = w;
	g->nw++;
}

/* a is listed before b: the larger change, then the earlier record */
static int change_before(const changes *c, const change *a, const change *b)
{
	double da = (a->cur - a->base) * c->dir, db = (b->cur - b->base) * c->dir;
	return da > db || (da == db && (a->seq < b->seq || (a->seq == b->seq && a->metric < b->metric)));
}

static void push_change(changes *c, const char *id, size_t m, double base, double cur, long seq)
{
	change x = {NULL, m, base, cur, seq};
	size_t i = 0;
	c->total++;
	if (!c->v) c->v = rag_xmalloc(MAX_LISTED * sizeof *c->v);
	if (c->n < MAX_LISTED) {
		/* sift up: every parent is listed after its children (the top goes first) */
		for (i = c->n++; i > 0 && change_before(c, &c->v[(i - 1) / 2], &x); i = (i - 1) / 2)
			c->v[i] = c->v[(i - 1) / 2];
	} else {
		if (!change_before(c, &x, &c->v[0])) return;
		free(c->v[0].id);
		for (;;) {   /* sift down from the top */
			size_t l = 2 * i + 1, r = l + 1, k = i;
			const change *ck = &x;
			if (l < c->n && change_before(c, ck, &c->v[l])) k = l, ck = &c->v[l];
			if (r < c->n && change_before(c, ck, &c->v[r])) k = r;
			if (k == i) break;
			c->v[i] = c->v[k];
			i = k;
		}
	}
	x.id = rag_xstrdup(id);
	c->v[i] = x;
}

/* The record's pairs with the baseline by compare.c's definition (unscored: the record's
 * rag_verdict_unscored); with out, each compared metric as rag_compare_pair gives it appended to
 * *out (rag_gate_add_verdict). Returns the record's RAG_CHANGE_*, -1 when it has no pair. */
static int align(rag_gate *g, const char *id, jv scores, int unscored, jv *out)
{
	long found;
	int cls;
	size_t row, m;
	jv bs, ch;
	if (!id) {
		g->no_id++;
		return -1;
	}
	found = rag_idtab_find(&g->base_ids, id);
	if (found < 0) {
		if (g->n_only_cur++ < MAX_LISTED) g->only_cur = jv_array_append(g->only_cur, jv_string(id));
		return -1;
	}
	row = (size_t)found;
	if (!g->base_seen) g->base_seen = rag_xcalloc(g->nbase, 1);
	if (g->base_seen[row]) {
		g->cur_dups++;
		return -1;
	}
	g->base_seen[row] = 1;
	bs = jv_object();
	for (m = 0; m < g->nbmetric; m++)
		bs = jv_object_set(bs, jv_string(g->bmetric[m]), isnan(g->bcol[m][row]) ? jv_null() : jv_number(g->bcol[m][row]));
	ch = jv_array();
	cls = rag_compare_pair(g->cmp, bs, g->base_unscored[row], scores, unscored, &ch);
	jv_array_foreach(ch, i, e) {
		double b = rag_json_num(e, "baseline"), c = rag_json_num(e, "current");
		char what[16];
		const char *k = rag_json_str(e, "change", what, sizeof what);
		jv key = jv_object_get(jv_copy(e), jv_string("metric"));
		if (!isnan(b) && !isnan(c)) {
			m = metric_index(g, jv_string_value(key));
			rag_series_push(g->ser, g->pcur[m], c);
			rag_series_push(g->ser, g->pbase[m], b);
			rag_series_push(g->ser, g->pdiff[m], c - b);
			if (!strcmp(k, "regressed")) push_change(&g->regressed, id, m, b, c, g->seq);
			else if (!strcmp(k, "improved")) push_change(&g->improved, id, m, b, c, g->seq);
		}
		jv_free(key);
		if (out) *out = jv_array_append(*out, e);
		else jv_free(e);
		(void)i;
	}
	jv_free(ch);
	jv_free(bs);
	return cls;
}

/* one check of a record for JUnit: {metric, score, threshold, status, message?} */
static jv record_check(jv checks, const char *metric, jv score, double thr, const char *status, const char *why)
{
	jv ch = jv_object();
	ch = jv_object_set(ch, jv_string("metric"), jv_string(metric));
	ch = jv_object_set(ch, jv_string("score"), score);
	ch = jv_object_set(ch, jv_string("threshold"), isnan(thr) ? jv_null() : jv_number(thr));
	ch = jv_object_set(ch, jv_string("status"), jv_string(status));
	if (why) ch = jv_object_set(ch, jv_string("message"), jv_string(why));
	return jv_array_append(checks, ch);
}

char *rag_gate_from_text(jv m)
{
	static const char *const label[] = {"relevant ids", "the judge's chunk verdicts", "similarity to reference contexts"};
	jv f = rag_json_get(jv_copy(m), "relevance_from");
	rag_buf b = {0};
	size_t i;
	if (jv_get_kind(f) == JV_KIND_OBJECT)
		for (i = 0; i < sizeof from_names / sizeof from_names[0]; i++) {
			double n = rag_json_num(f, from_names[i]);
			if (isnan(n) || n <= 0) continue;
			if (b.len) rag_buf_addf(&b, ", %s in %.0f", label[i], n);
			else rag_buf_addf(&b, "%s in %.0f record%s", label[i], n, n == 1 ? "" : "s");
		}
	jv_free(f);
	if (!b.len) return NULL;
	rag_buf_add(&b, "", 0);
	return b.p;
}

/* rag-ap's sources of a metric: {ids: records, verdicts: records...}, those read only */
static jv from_counts(const mstat *ms)
{
	jv f = jv_object();
	size_t i;
	for (i = 0; i < sizeof from_names / sizeof from_names[0]; i++)
		if (ms->from[i]) f = jv_object_set(f, jv_string(from_names[i]), jv_number((double)ms->from[i]));
	return f;
}

/* relevance_from.<name> of a record (from borrowed): which source rag-ap read */
static void count_from(mstat *ms, jv from, const char *name)
{
	jv v = jv_object_get(jv_copy(from), jv_string(name));
	size_t i;
	if (jv_get_kind(v) == JV_KIND_STRING)
		for (i = 0; i < sizeof from_names / sizeof from_names[0]; i++)
			if (!strcmp(jv_string_value(v), from_names[i])) ms->from[i]++;
	jv_free(v);
}

/* gate.by_category: the record's per-record thresholds into rec_thr, the run's (gate.record's)
 * where its category (or a --by field's value) has none; with rec invalid, the run's back (for
 * the summary). A metric first seen since the last call takes its threshold as it is now. */
static void category_thresholds(rag_gate *g, jv rec)
{
	size_t m, k, b;
	if (!g->o.nby_category) return;
	if (g->nrec_base < g->nmetric) {
		g->rec_base = rag_xrealloc(g->rec_base, g->nmetric * sizeof *g->rec_base);
		g->rec_cat = rag_xrealloc(g->rec_cat, g->nmetric * sizeof *g->rec_cat);
		for (m = g->nrec_base; m < g->nmetric; m++) g->rec_base[m] = g->rec_thr[m];
		g->nrec_base = g->nmetric;
	}
	for (m = 0; m < g->nmetric; m++) {
		g->rec_thr[m] = g->rec_base[m];
		g->rec_cat[m] = NULL;
	}
	if (!jv_is_valid(rec)) return;
	for (b = 0; b < g->o.nby; b++) {
		char *v = field_text(rec, g->o.by[b]);
		for (k = 0; v && k < g->o.nby_category; k++) {
			const rag_cat_kd *c = &g->o.by_category[k];
			jv ix;
			if (strcmp(c->category, v) || !in_run(&g->o, c->metric)) continue;
			ix = jv_object_get(jv_copy(g->metric_ix), jv_string(c->metric));
			if (jv_get_kind(ix) == JV_KIND_NUMBER) {
				m = (size_t)jv_number_value(ix);
				if (!g->rec_cat[m] || c->value > g->rec_thr[m]) {
					g->rec_thr[m] = c->value;
					g->rec_cat[m] = c->category;
				}
			}
			jv_free(ix);
		}
		free(v);
	}
}

/* " for \"billing\"" when metric m's threshold on this record is its category's, else "" */
static const char *cat_note(rag_gate *g, size_t m)
{
	if (m >= g->nrec_base || !g->rec_cat[m]) return "";
	snprintf(g->note, sizeof g->note, " for \"%.200s\"", g->rec_cat[m]);
	return g->note;
}

/* triples c[0..n) as {category: {metric: threshold}} */
static jv cat_kd_json(const rag_cat_kd *c, size_t n)
{
	jv all = jv_object();
	size_t k;
	for (k = 0; k < n; k++) {
		jv one = jv_object_get(jv_copy(all), jv_string(c[k].category));
		if (jv_get_kind(one) != JV_KIND_OBJECT) one = (jv_free(one), jv_object());
		all = jv_object_set(all, jv_string(c[k].category), jv_object_set(one, jv_string(c[k].metric), jv_number(c[k].value)));
	}
	return all;
}

/* the summary's thresholds.by_category: {category: {metric: threshold}} */
static jv by_category_json(const rag_gate *g)
{
	return cat_kd_json(g->o.by_category, g->o.nby_category);
}

/* Whether a usage entry u (borrowed) was a judge's ("openai:M") with M the model answer. */
static int judged_by(jv u, const char *answer)
{
	jv j = rag_json_get(jv_copy(u), "judge");
	int same = jv_get_kind(j) == JV_KIND_STRING && !strncmp(jv_string_value(j), "openai:", 7) &&
	           !strcasecmp(jv_string_value(j) + 7, answer);
	jv_free(j);
	return same;
}

/* Self-judging: the record's judge (a stage of usage.<tool>.<stage>, but the embedder's and the
 * service's own) is the model that wrote its answer (its answer_model or model, else
 * llm.answer_model), whose scores may flatter it. Counted, and the first such model kept. */
static void note_self_judged(rag_gate *g, jv rec)
{
	const char *answer = rag_record_str(rec, "answer_model");
	jv usage = rag_json_get(jv_copy(rec), "usage");
	int self = 0;
	if (!answer) answer = rag_record_str(rec, "model");
	if (!answer) answer = g->o.answer_model;
	if (answer && *answer && jv_get_kind(usage) == JV_KIND_OBJECT) {
		jv_object_foreach(usage, tool, per) {
			const char *t = jv_string_value(tool);
			if (jv_get_kind(per) == JV_KIND_OBJECT && strcmp(t, "rag-embsim") && strcmp(t, "rag-collect")) {
				self |= judged_by(per, answer);   /* the flat shape, usage.<tool>.judge */
				jv_object_foreach(per, stage, u) {
					if (jv_get_kind(u) == JV_KIND_OBJECT) self |= judged_by(u, answer);
					jv_free(stage);
					jv_free(u);
				}
			}
			jv_free(tool);
			jv_free(per);
		}
	}
	jv_free(usage);
	if (!self) return;
	g->self_judged++;
	if (!g->self_model) g->self_model = rag_xstrdup(answer);
}

/* the summary's self_judging and its warning (s consumed) */
static jv self_judging(const rag_gate *g, jv s)
{
	if (!g->self_judged) return s;
	s = jv_object_set(s, jv_string("self_judging"), JV_OBJECT(jv_string("model"), jv_string(g->self_model),
	                                                           jv_string("records"), jv_number((double)g->self_judged)));
	return jv_object_set(s, jv_string("warnings"), JV_ARRAY(jv_string_fmt(
	        "self-judging: the judge model \"%s\" also generated the answers of %ld of %ld records; its scores "
	        "may flatter them", g->self_model, g->self_judged, g->records)));
}


/* One record being added: what gate_add's steps share. */
typedef struct adding {
	jv scores, na, verdicts, from;    /* the record's objects (owned) */
	category *c;                      /* its category, when the gate keeps them */
	size_t *gi;                       /* its group per --by field */
	int want_checks, has_null, failed, errored;
	double key;                       /* its rank among the worst: lowest first */
	jv missed, checks;                /* what it missed (messages); its checks for JUnit */
	jv missed_codes;                  /* what it missed as {code, args}, one per message */
} adding;

/* Whether the record has an error entry. */
static int record_has_errors(jv rec)
{
	jv e = rag_json_get(jv_copy(rec), "errors");
	int errs = jv_get_kind(e) == JV_KIND_ARRAY && jv_array_length(jv_copy(e)) > 0;
	jv_free(e);
	return errs;
}

/* The language of the record's question, counted for the run. */
static void count_lang(rag_gate *g, jv rec)
{
	const char *q = rag_record_str(rec, "question");
	if (q && *q) {
		if (!strcmp(rag_text_lang(q), "zh")) g->lang_zh++;
		else g->lang_en++;
	}
}

/* The record's category as text (a value not a string in JSON), or NULL; *catv (owned) holds it. */
static const char *record_category(jv rec, jv *catv)
{
	*catv = rag_json_get(jv_copy(rec), "category");
	if (jv_get_kind(*catv) == JV_KIND_STRING) return jv_string_value(*catv);
	if (jv_is_valid(*catv) && jv_get_kind(*catv) != JV_KIND_NULL) {
		jv d = jv_dump_string(jv_copy(*catv), 0);
		jv_free(*catv);
		*catv = d;
		return jv_string_value(*catv);
	}
	return NULL;
}

/* The first record with --by field b: "(none)", which held every record so far, gets the run's
 * values so far (see assign_groups). */
static void by_first_seen(rag_gate *g, size_t b)
{
	char *nk = rag_xasprintf("%zu", b);
	jv ix = jv_object_get(jv_copy(g->grp_ix), jv_string(nk));
	if (jv_get_kind(ix) == JV_KIND_NUMBER) {
		category *none = &g->grp[(size_t)jv_number_value(ix)];
		size_t m;
		for (m = 0; m < g->nmetric; m++) {
			cat_grow(none, m);
			if (rag_series_count(g->ser, g->vals[m])) rag_series_append(g->ser, cat_series(g, none, m), g->vals[m]);
			none->na[m] = g->ms[m].na;
		}
	}
	jv_free(ix);
	free(nk);
	g->by_seen[b] = 1;
}

/* The record's groups into gi: a record without the field is in "(none)" (keyed apart from a
 * value "(none)"). Until some record has the field, "(none)" holds every record so far, the
 * run's own values: its scores are not kept twice (a million records without a category would
 * be 8 MB a metric more), and the first record with the field copies them in. */
static void assign_groups(rag_gate *g, jv rec, size_t *gi)
{
	size_t b;
	for (b = 0; b < g->o.nby; b++) {
		char *v = field_text(rec, g->o.by[b]), *k;
		if (v && !g->by_seen[b]) by_first_seen(g, b);
		k = rag_xasprintf("%zu%s%s", b, v ? "=" : "", v ? v : "");
		gi[b] = (size_t)(get_cat(&g->grp, &g->ngrp, &g->grp_ix, k, v ? v : "(none)", b) - g->grp);
		g->grp[gi[b]].records++;
		g->grp[gi[b]].none = !v;
		free(k);
		free(v);
	}
}

/* Every number the record carries, into the run's, its category's and its groups' values. */
static void push_numbers(rag_gate *g, const adding *a)
{
	size_t m, b;
	jv_object_foreach(a->scores, k, v) {
		m = metric_index(g, jv_string_value(k));
		if (jv_get_kind(v) == JV_KIND_NUMBER) {
			double x = jv_number_value(v);
			rag_series_push(g->ser, g->vals[m], x);
			if (a->c) cat_push(g, a->c, m, x);
			for (b = 0; b < g->o.nby; b++)
				if (g->by_seen[b]) cat_push(g, &g->grp[a->gi[b]], m, x);
		}
		jv_free(k);
		jv_free(v);
	}
}

/* Not applicable by the metric's definition: out of its mean, its nulls and its gate. Returns 1
 * when metric m is not applicable to the record (counted), 0 when it is. */
static int metric_not_applicable(rag_gate *g, adding *a, size_t m, int number, double thr)
{
	const char *name = g->metric[m];
	jv nav = jv_object_get(jv_copy(a->na), jv_string(name));
	size_t b;
	if (number || jv_get_kind(nav) != JV_KIND_STRING) {
		jv_free(nav);
		return 0;
	}
	g->ms[m].na++;
	if (!g->ms[m].na_reason) g->ms[m].na_reason = rag_xstrdup(jv_string_value(nav));
	if (a->c) cat_na(a->c, m);
	for (b = 0; b < g->o.nby; b++)
		if (g->by_seen[b]) cat_na(&g->grp[a->gi[b]], m);
	if (a->want_checks) {
		char msg[400];
		snprintf(msg, sizeof msg, "%s: not applicable (%s)", name, jv_string_value(nav));
		a->checks = record_check(a->checks, name, jv_null(), thr, "skipped", msg);
	}
	jv_free(nav);
	return 1;
}

/* A failure of the record on a metric: msg goes into what it missed; the failure ranks it at
 * most -1 among the worst when lower_key. */
static void record_missed(adding *a, const char *msg, int lower_key, jv code)
{
	if (lower_key && a->key > -1) a->key = -1;
	a->missed = jv_array_append(a->missed, jv_string(msg));
	a->missed_codes = jv_array_append(a->missed_codes, code);
}

/* the arguments of metric m's message: {metric}, and {category} when its threshold on this
 * record is its category's (cat_note) */
static jv metric_args(rag_gate *g, size_t m)
{
	jv args = JV_OBJECT(jv_string("metric"), jv_string(g->metric[m]));
	if (m < g->nrec_base && g->rec_cat[m]) args = jv_object_set(args, jv_string("category"), jv_string(g->rec_cat[m]));
	return args;
}

/* Metric m's number x on the record against its threshold thr, its pass verdict and its repeats'
 * flips. Returns whether it failed; *number goes to 0 when a pass verdict is missing (an error);
 * *why points at msg when a check did not pass. */
static int check_number(rag_gate *g, adding *a, size_t m, double x, double thr, int flip,
                        int *number, char *msg, size_t msglen, const char **why)
{
	const char *name = g->metric[m];
	double k = isnan(thr) ? x : x - thr;
	int bad = 0;
	if (k < a->key) a->key = k;
	if (!isnan(thr) && x < thr - EPS) {
		bad = 1;
		snprintf(msg, msglen, "%s %.3f is below the per-record threshold %.3f%s", name, x, thr, cat_note(g, m));
		record_missed(a, msg, 0, why_code("below_record", jv_object_set(jv_object_set(metric_args(g, m),
		              jv_string("score"), jv_number(x)), jv_string("threshold"), jv_number(thr))));
		*why = msg;
	}
	if (g->ms[m].verdict) {
		int pv = pass_verdict(a->verdicts, name);
		if (pv < 0) {
			a->has_null = 1;
			a->failed = a->errored = 1;
			*number = 0;   /* an error: a pass gate with no verdict to read */
			g->ms[m].undecided++;
			snprintf(msg, msglen, "%s has no pass verdict (verdicts.%s)", name, name);
			record_missed(a, msg, 0, why_code("no_pass_verdict", metric_args(g, m)));
			*why = msg;
		} else if (!pv && !bad) {
			bad = 1;
			snprintf(msg, msglen, "%s: the tool's verdict is fail", name);
			record_missed(a, msg, 1, why_code("verdict_fail", metric_args(g, m)));
			*why = msg;
		}
	}
	if (flip && g->o.fail_on_flip && gated(g, m) && !bad) {
		bad = 1;
		snprintf(msg, msglen, "%s: the repeats flip across the threshold (--fail-on-flip)", name);
		record_missed(a, msg, 1, why_code("flips", metric_args(g, m)));
		*why = msg;
	}
	if (*number && (record_gated(g, m) || (flip && g->o.fail_on_flip && gated(g, m)))) {
		g->ms[m].judged++;
		if (bad) g->ms[m].failed++;
		else g->ms[m].passed++;
	}
	return bad;
}

/* Metric m of the table on the record: a null or a threshold, counted, and its check. */
static void check_metric(rag_gate *g, adding *a, size_t m)
{
	const char *name = g->metric[m];
	jv v = jv_object_get(jv_copy(a->scores), jv_string(name));
	int present = jv_is_valid(v), number = jv_get_kind(v) == JV_KIND_NUMBER, flip;
	int isnull = jv_get_kind(v) == JV_KIND_NULL;
	double x = number ? jv_number_value(v) : NAN, thr = g->rec_thr[m];
	const char *why = NULL;
	char msg[400];
	jv_free(v);
	if ((flip = flipped(a->verdicts, name))) g->ms[m].flips++;
	count_from(&g->ms[m], a->from, name);
	if (metric_not_applicable(g, a, m, number, thr)) return;
	/* a metric this record does not carry is a null in the table (records - scored) but
	 * a failure of the record only when the metric is gated */
	if (!present && !gated(g, m)) return;
	if (!number) {
		/* absent or null: the record was not scored on this metric, gated or not (a
		 * summary of records whose every score is null says none passed) */
		a->has_null = 1;
		a->failed = a->errored = 1;
		snprintf(msg, sizeof msg, "%s is %s", name, !present ? "missing" : isnull ? "null" : "not a number");
		if (gated(g, m) || present) {
			a->missed = jv_array_append(a->missed, jv_string(msg));
			a->missed_codes = jv_array_append(a->missed_codes, why_code(!present ? "missing" : isnull ? "null" : "not_number",
			                                                            metric_args(g, m)));
		}
		why = msg;
	} else if (check_number(g, a, m, x, thr, flip, &number, msg, sizeof msg, &why)) {
		a->failed = 1;
	}
	if (a->want_checks)
		a->checks = record_check(a->checks, name, number ? jv_number(x) : jv_null(), thr,
		                         !number ? "error" : why ? "failure" : "pass", why);
}

/* The record's outcome counted for the run, its category and its groups. */
static void count_outcome(rag_gate *g, const adding *a)
{
	size_t b;
	if (a->errored) {
		g->errored++;
		if (a->c) a->c->errored++;
		for (b = 0; b < g->o.nby; b++) g->grp[a->gi[b]].errored++;
	} else if (!a->failed) {
		g->passed++;
		if (a->c) a->c->passed++;
		for (b = 0; b < g->o.nby; b++) g->grp[a->gi[b]].passed++;
	}
}

/* rag_gate_add, and with verdict the record's verdict (rag_gate_add_verdict) */
static jv gate_add(rag_gate *g, jv rec, const char *where, int unreadable, int want_checks, jv *verdict)
{
	adding a = {0};
	char *id = rag_record_id(rec);
	const char *cat;
	size_t m, nseen;
	int errs;
	jv catv, usage = rag_json_get(jv_copy(rec), "usage");

	a.scores = record_scores(rec);
	a.checks = want_checks ? jv_array() : jv_invalid();
	a.missed = jv_array();
	a.missed_codes = jv_array();
	a.na = record_obj(rec, "not_applicable");
	a.verdicts = record_obj(rec, "verdicts");
	a.from = record_obj(rec, "relevance_from");
	a.gi = rag_xcalloc(g->o.nby, sizeof *a.gi);
	a.want_checks = want_checks;
	a.errored = unreadable;
	a.key = HUGE_VAL;

	g->cost = rag_cost_add(g->cost, usage);
	jv_free(usage);
	note_self_judged(g, rec);
	g->seq++;
	g->records++;
	if (unreadable) g->unreadable++;
	switch (unreadable ? 1 : rag_verdict_unscored(rec)) {
	case 2:
		g->remote_failed++;
		if (jv_get_kind(g->remote_error) == JV_KIND_NULL) {
			jv e = jv_array_get(rag_json_get(jv_copy(rec), "errors"), 0);
			char tool[128], msg[1024];
			g->remote_error = JV_OBJECT(jv_string("tool"), jv_string(rag_json_str(e, "tool", tool, sizeof tool)),
			                            jv_string("message"), jv_string(rag_json_str(e, "message", msg, sizeof msg)));
			jv_free(e);
		}
		/* fall through */
	case 1: g->not_scored++;
		if (!unreadable && rag_verdict_capped(rec)) g->capped++;
	}
	if (jv_get_kind(a.na) == JV_KIND_OBJECT && jv_object_length(jv_copy(a.na)) > 0) g->na_records++;
	errs = record_has_errors(rec);
	/* a record with an error entry was not scored as asked, gated or not: never a pass */
	if (errs) a.failed = a.errored = 1;
	count_lang(g, rec);
	cat = record_category(rec, &catv);
	if (cat && g->cat_by < 0) {
		a.c = get_cat(&g->cat, &g->ncat, &g->cat_ix, cat, cat, 0);
		a.c->records++;
	}
	assign_groups(g, rec, a.gi);
	push_numbers(g, &a);
	/* then every metric of the table, the record's and the gated ones: nulls and thresholds */
	category_thresholds(g, rec);
	nseen = g->nmetric;
	for (m = 0; m < nseen; m++) check_metric(g, &a, m);
	if (unreadable) a.has_null = a.failed = 1;
	/* a record with an error entry or a null is among the worst whatever its other scores */
	if (a.has_null || errs || unreadable) a.key = -HUGE_VAL;
	count_outcome(g, &a);
	if (verdict) {
		jv ch = jv_array();
		int cls = g->have_base ? align(g, id, a.scores, unreadable ? 1 : rag_verdict_unscored(rec), &ch) : -1;
		*verdict = JV_OBJECT(jv_string("failed"), jv_bool(a.failed), jv_string("errored"), jv_bool(a.errored),
		                     jv_string("missed"), jv_copy(a.missed), jv_string("checks"), a.checks,
		                     jv_string("changes"), ch, jv_string("missed_codes"), jv_copy(a.missed_codes));
		if (cls >= 0) *verdict = jv_object_set(*verdict, jv_string("change"), jv_string(rag_compare_name(cls)));
		a.checks = jv_invalid();
	} else if (g->have_base) {
		align(g, id, a.scores, unreadable ? 1 : rag_verdict_unscored(rec), NULL);
	}
	if (a.key < HUGE_VAL || a.has_null || errs)
		consider_worst(g, a.key, rec, where, id, cat, a.failed, a.missed, a.missed_codes, jv_copy(a.scores));
	else
		jv_free(a.missed), jv_free(a.missed_codes);
	jv_free(a.scores);
	jv_free(a.na);
	jv_free(a.verdicts);
	jv_free(a.from);
	jv_free(catv);
	free(a.gi);
	free(id);
	return a.checks;
}

jv rag_gate_add(rag_gate *g, jv rec, const char *where, int unreadable, int want_checks)
{
	return gate_add(g, rec, where, unreadable, want_checks, NULL);
}

jv rag_gate_add_verdict(rag_gate *g, jv rec, const char *where, int unreadable)
{
	jv v = jv_invalid();
	jv_free(gate_add(g, rec, where, unreadable, 1, &v));
	return v;
}

const char *rag_gate_error(const rag_gate *g)
{
	return rag_series_error(g->ser);
}

const char *rag_gate_lang(const rag_gate *g)
{
	return g->lang_zh > g->lang_en ? "zh" : "en";
}

static jv num(double x)
{
	return isnan(x) ? jv_null() : jv_number(x);
}

/* ten bins of width 0.1 over [0, 1], the last closed (1.0 counts in it); scores outside [0, 1]
 * count in the nearest end bin */
static jv histogram(const long *bins)
{
	jv h = jv_array();
	size_t i;
	for (i = 0; i < 10; i++) h = jv_array_append(h, jv_number(bins ? (double)bins[i] : 0));
	return h;
}

/* the table row of one metric over series i (its numbers sorted; (size_t)-1: none) out of
 * `records`, na of which it is not applicable to: computed (also "scored", its older name),
 * not_applicable, null, the rest */
static jv metric_row(rag_gate *g, const char *name, size_t i, long records, long na)
{
	rag_summary s;
	size_t n = i == (size_t)-1 ? 0 : rag_series_count(g->ser, i);
	jv r = jv_object();
	if (i == (size_t)-1) rag_stats_summary(NULL, 0, &s);
	else rag_series_summary(g->ser, i, &s);   /* a lost number: rag_gate_error, no verdict */
	r = jv_object_set(r, jv_string("metric"), jv_string(name));
	r = jv_object_set(r, jv_string("scored"), jv_number((double)n));
	r = jv_object_set(r, jv_string("computed"), jv_number((double)n));
	r = jv_object_set(r, jv_string("not_applicable"), jv_number((double)na));
	r = jv_object_set(r, jv_string("null"), jv_number((double)records - (double)na - (double)n));
	r = jv_object_set(r, jv_string("mean"), num(s.mean));
	r = jv_object_set(r, jv_string("median"), num(s.median));
	r = jv_object_set(r, jv_string("min"), num(s.min));
	r = jv_object_set(r, jv_string("p10"), num(s.p10));
	r = jv_object_set(r, jv_string("histogram"), histogram(i == (size_t)-1 ? NULL : rag_series_histogram(g->ser, i)));
	return r;
}

static int by_name(const void *a, const void *b, void *names)
{
	char **n = names;
	return strcmp(n[*(const size_t *)a], n[*(const size_t *)b]);
}

/* A check: its name (what), whether it passed, and its message twice: in English words (fmt)
 * and as a code with its arguments (args, consumed: the numbers and names the words are made
 * of), which a page renders in its own language (rag-serve's Chinese); the codes are listed in
 * rag-gate(1), JSON OUTPUT. */
static jv check(jv checks, const char *what, int pass, const char *code, jv args, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static jv check(jv checks, const char *what, int pass, const char *code, jv args, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	jv c = jv_object();
	va_start(ap, fmt);
	msg = rag_xvasprintf(fmt, ap);
	va_end(ap);
	c = jv_object_set(c, jv_string("check"), jv_string(what));
	c = jv_object_set(c, jv_string("pass"), jv_bool(pass));
	c = jv_object_set(c, jv_string("message"), jv_string(msg));
	c = jv_object_set(c, jv_string("code"), jv_string(code));
	c = jv_object_set(c, jv_string("args"), args);
	free(msg);
	return jv_array_append(checks, c);
}

/* a check not made: it passes, and says why it was skipped */
static jv skipped(jv checks, const char *what, const char *metric, long records, const char *reason)
{
	jv c;
	/* reason: a record's not_applicable text (data), or the gate's own "no_category_records" */
	int mine = reason && !strcmp(reason, "no_category_records");
	checks = check(checks, what, 1, "skipped",
	               JV_OBJECT(jv_string("metric"), jv_string(metric), jv_string("records"), jv_number((double)records),
	                         jv_string("reason"), reason && !mine ? jv_string(reason) : jv_null(),
	                         jv_string("reason_code"), jv_string(mine ? reason : "not_applicable")),
	               "%s: computed on 0 of %ld record%s (%s): gate skipped", metric, records,
	               records == 1 ? "" : "s", mine ? "no record of this category in the run" : reason ? reason : "not applicable");
	c = jv_array_get(jv_copy(checks), jv_array_length(jv_copy(checks)) - 1);
	c = jv_object_set(c, jv_string("skipped"), jv_true());
	return jv_array_set(checks, jv_array_length(jv_copy(checks)) - 1, c);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A skipped check for each metric with a threshold or a pass verdict that the run did not
 * score (o.run): not a failure and not "no score", in the order of the names. */
static jv not_run(const rag_gate *g, jv checks)
{
	const rag_gate_opts *o = &g->o;
	size_t n = 0, k, i;
	const char **names = rag_xmalloc((o->nmean + o->nrecord + o->npass + 1) * sizeof *names);
	for (k = 0; k < o->nmean + o->nrecord + o->npass; k++) {
		const char *name = k < o->nmean ? o->mean[k].key : k < o->nmean + o->nrecord ?
		                   o->record[k - o->nmean].key : o->pass[k - o->nmean - o->nrecord];
		if (in_run(o, name)) continue;
		for (i = 0; i < n && strcmp(names[i], name); i++)
			;
		if (i == n) names[n++] = name;
	}
	if (n > 1) qsort(names, n, sizeof *names, cmp_str);
	for (i = 0; i < n; i++) {
		char what[300];
		jv c;
		snprintf(what, sizeof what, "not run %s", names[i]);
		checks = check(checks, what, 1, "not_run", JV_OBJECT(jv_string("metric"), jv_string(names[i])),
		               "%s: not run (not among this run's metrics): its threshold is not checked", names[i]);
		c = jv_array_get(jv_copy(checks), jv_array_length(jv_copy(checks)) - 1);
		c = jv_object_set(c, jv_string("skipped"), jv_true());
		checks = jv_array_set(checks, jv_array_length(jv_copy(checks)) - 1, c);
	}
	free(names);
	return checks;
}

static int cmp_change(const void *a, const void *b, void *c)
{
	return change_before(c, a, b) ? -1 : change_before(c, b, a) ? 1 : 0;
}

static jv change_list(rag_gate *g, changes *c)
{
	jv out = jv_array();
	size_t i;
	if (c->n > 1) qsort_r(c->v, c->n, sizeof *c->v, cmp_change, c);   /* ties in input order */
	for (i = 0; i < c->n; i++) {
		jv e = jv_object();
		e = jv_object_set(e, jv_string("id"), jv_string(c->v[i].id));
		e = jv_object_set(e, jv_string("metric"), jv_string(g->metric[c->v[i].metric]));
		e = jv_object_set(e, jv_string("baseline"), jv_number(c->v[i].base));
		e = jv_object_set(e, jv_string("current"), jv_number(c->v[i].cur));
		e = jv_object_set(e, jv_string("delta"), jv_number(c->v[i].cur - c->v[i].base));
		out = jv_array_append(out, e);
	}
	return out;
}

static jv baseline_summary(rag_gate *g, size_t *order, jv *checks, int *pass)
{
	jv b = jv_object(), rows = jv_array(), only_base = jv_array();
	size_t i, paired = 0;
	long n_only_base = 0;
	for (i = 0; i < g->nmetric; i++) {
		size_t m = order[i], n = rag_series_count(g->ser, g->pcur[m]), nd;
		double *d, lo = NAN, hi = NAN, mc, mb, delta;
		jv r;
		if (!n) continue;
		if (n > paired) paired = n;
		/* the differences in their order for the bootstrap: the one array of a run's length
		 * the gate holds, and only when it compares */
		d = rag_series_values(g->ser, g->pdiff[m], &nd);
		if (d) rag_stats_bootstrap(d, nd, g->o.resamples, g->o.confidence, g->o.seed, &lo, &hi);
		/* the paired means, compare.c's, as every surface gives them */
		{
			long np;
			rag_compare_mean(g->cmp, g->metric[m], &mb, &mc, &np);
			delta = round((mc - mb) * 1e9) / 1e9;
		}
		r = jv_object();
		r = jv_object_set(r, jv_string("metric"), jv_string(g->metric[m]));
		r = jv_object_set(r, jv_string("pairs"), jv_number((double)n));
		r = jv_object_set(r, jv_string("baseline_mean"), jv_number(mb));
		r = jv_object_set(r, jv_string("mean"), jv_number(mc));
		r = jv_object_set(r, jv_string("delta"), jv_number(delta));
		r = jv_object_set(r, jv_string("ci_low"), num(lo));
		r = jv_object_set(r, jv_string("ci_high"), num(hi));
		r = jv_object_set(r, jv_string("change"), jv_string(hi < 0 ? "regression" : lo > 0 ? "improvement" : "none"));
		if (g->o.fail_on_regression) {
			char what[300];
			snprintf(what, sizeof what, "regression %s", g->metric[m]);
			*checks = check(*checks, what, !(hi < 0), "regression",
			                JV_OBJECT(jv_string("metric"), jv_string(g->metric[m]), jv_string("delta"), jv_number(delta),
			                          jv_string("confidence"), jv_number(g->o.confidence), jv_string("ci_low"), num(lo),
			                          jv_string("ci_high"), num(hi)),
			                "%s mean change %+.3f, %g%% interval [%+.3f, %+.3f]%s",
			                g->metric[m], delta, g->o.confidence * 100, lo, hi,
			                hi < 0 ? " lies wholly below 0" : "");
			if (hi < 0) *pass = 0;
		}
		rows = jv_array_append(rows, r);
		free(d);
	}
	for (i = 0; i < g->nbase; i++) {
		if (g->base_seen && g->base_seen[i]) continue;
		if (n_only_base++ < MAX_LISTED) only_base = jv_array_append(only_base, jv_string(base_id(g, i)));
	}
	if (g->base_name) b = jv_object_set(b, jv_string("file"), jv_string(g->base_name));
	b = jv_object_set(b, jv_string("records"), jv_number((double)g->nbase));
	{
		long matched = 0;
		for (i = 0; i < g->nbase; i++) matched += g->base_seen && g->base_seen[i];
		b = jv_object_set(b, jv_string("matched"), jv_number((double)matched));
		jv cj = rag_compare_json(g->cmp);
		b = jv_object_set(b, jv_string("regressed_records"), jv_number(rag_json_num(cj, "regressed")));
		b = jv_object_set(b, jv_string("lost_records"), jv_number(rag_json_num(cj, "lost")));
		b = jv_object_set(b, jv_string("improved_records"), jv_number(rag_json_num(cj, "improved")));
		b = jv_object_set(b, jv_string("gained_records"), jv_number(rag_json_num(cj, "gained")));
		b = jv_object_set(b, jv_string("unchanged_records"), jv_number(rag_json_num(cj, "unchanged")));
		b = jv_object_set(b, jv_string("paired"), jv_number(rag_json_num(cj, "paired")));
		b = jv_object_set(b, jv_string("definition"), jv_object_get(cj, jv_string("definition")));
		(void)matched;
	}
	b = jv_object_set(b, jv_string("seed"), jv_number((double)g->o.seed));
	b = jv_object_set(b, jv_string("resamples"), jv_number(g->o.resamples));
	b = jv_object_set(b, jv_string("confidence"), jv_number(g->o.confidence));
	b = jv_object_set(b, jv_string("regression"), jv_number(g->o.regression));
	b = jv_object_set(b, jv_string("metrics"), rows);
	b = jv_object_set(b, jv_string("regressed_count"), jv_number((double)g->regressed.total));
	b = jv_object_set(b, jv_string("regressed"), change_list(g, &g->regressed));
	b = jv_object_set(b, jv_string("improved_count"), jv_number((double)g->improved.total));
	b = jv_object_set(b, jv_string("improved"), change_list(g, &g->improved));
	b = jv_object_set(b, jv_string("only_current_count"), jv_number((double)g->n_only_cur));
	b = jv_object_set(b, jv_string("only_current"), jv_copy(g->only_cur));
	b = jv_object_set(b, jv_string("only_baseline_count"), jv_number((double)n_only_base));
	b = jv_object_set(b, jv_string("only_baseline"), only_base);
	b = jv_object_set(b, jv_string("duplicate_ids"), jv_number((double)(g->base_dups + g->cur_dups)));
	b = jv_object_set(b, jv_string("records_without_id"), jv_number((double)g->no_id));
	return b;
}

/* The rows of a table of categories or groups, by name; by: 0 every entry, else only those of
 * field by - 1 (and without its "(none)" when key is "category"). key names the entry's name
 * in its row. */
static jv cat_rows(rag_gate *g, category *tab, size_t n, const size_t *order, size_t by, const char *key)
{
	jv rows = jv_array();
	size_t *corder = rag_xmalloc((n + 1) * sizeof *corder), i, k;
	char **names = rag_xmalloc((n + 1) * sizeof *names);
	for (i = 0; i < n; i++) {
		corder[i] = i;
		names[i] = tab[i].name;
	}
	qsort_r(corder, n, sizeof *corder, by_name, names);
	free(names);
	for (k = 0; k < n; k++) {
		category *c = &tab[corder[k]];
		jv row, ms;
		long cj = c->records - c->errored;
		if (by && (c->by != by - 1 || (c->none && !strcmp(key, "category")))) continue;
		row = jv_object();
		ms = jv_array();
		row = jv_object_set(row, jv_string(key), jv_string(c->name));
		row = jv_object_set(row, jv_string("records"), jv_number((double)c->records));
		row = jv_object_set(row, jv_string("errored"), jv_number((double)c->errored));
		row = jv_object_set(row, jv_string("passed"), jv_number((double)c->passed));
		row = jv_object_set(row, jv_string("pass_rate"), cj > 0 ? jv_number((double)c->passed / (double)cj) : jv_null());
		row = jv_object_set(row, jv_string("pass_rate_of"), jv_number((double)cj));
		for (i = 0; i < g->nmetric; i++) {
			size_t m = order[i];
			size_t si = m < c->nm && c->m[m] ? c->m[m] - 1 : (size_t)-1;
			ms = jv_array_append(ms, metric_row(g, g->metric[m], si, c->records, m < c->nm ? c->na[m] : 0));
		}
		row = jv_object_set(row, jv_string("metrics"), ms);
		rows = jv_array_append(rows, row);
	}
	free(corder);
	return rows;
}

/* The summary's groups: one entry per --by field some record has, with its groups' rows. */
static jv group_rows(rag_gate *g, const size_t *order)
{
	jv groups = jv_array();
	size_t k;
	for (k = 0; k < g->o.nby; k++) {
		jv by;
		if (!g->by_seen[k]) continue;   /* a field no record has makes one group of all: noise */
		by = jv_object_set(jv_object(), jv_string("by"), jv_string(g->o.by[k]));
		by = jv_object_set(by, jv_string("groups"), cat_rows(g, g->grp, g->ngrp, order, k + 1, "group"));
		groups = jv_array_append(groups, by);
	}
	return groups;
}

/* The summary's thresholds: the gate's options as given. */
static jv thresholds(const rag_gate *g)
{
	jv thr = jv_object(), tm = jv_object(), tr = jv_object(), pv = jv_array();
	size_t i;
	for (i = 0; i < g->o.nmean; i++) tm = jv_object_set(tm, jv_string(g->o.mean[i].key), jv_number(g->o.mean[i].value));
	for (i = 0; i < g->o.nrecord; i++) tr = jv_object_set(tr, jv_string(g->o.record[i].key), jv_number(g->o.record[i].value));
	thr = jv_object_set(thr, jv_string("mean"), tm);
	thr = jv_object_set(thr, jv_string("record"), tr);
	thr = jv_object_set(thr, jv_string("min_pass_rate"), jv_number(g->o.min_pass_rate));
	if (g->o.nby_category) thr = jv_object_set(thr, jv_string("by_category"), by_category_json(g));
	if (g->o.nby_category_mean)
		thr = jv_object_set(thr, jv_string("by_category_mean"), cat_kd_json(g->o.by_category_mean, g->o.nby_category_mean));
	thr = jv_object_set(thr, jv_string("max_error_rate"), jv_number(g->o.max_error_rate));
	for (i = 0; i < g->o.npass; i++) pv = jv_array_append(pv, jv_string(g->o.pass[i]));
	thr = jv_object_set(thr, jv_string("pass"), pv);
	thr = jv_object_set(thr, jv_string("fail_on_flip"), jv_bool(g->o.fail_on_flip));
	return thr;
}

/* The --by fields, in order. */
static jv by_fields(const rag_gate *g)
{
	jv byv = jv_array();
	size_t i;
	for (i = 0; i < g->o.nby; i++) byv = jv_array_append(byv, jv_string(g->o.by[i]));
	return byv;
}

/* One mean of gate.by_category (c) over group r's records: its check, as gate.mean's over the
 * run (the mean the group's row shows); 1 when it holds or is skipped. */
static int category_mean_check(rag_gate *g, const category *r, size_t m, const rag_cat_kd *c, jv *checks)
{
	size_t si = m < r->nm && r->m[m] ? r->m[m] - 1 : (size_t)-1, nv = si == (size_t)-1 ? 0 : rag_series_count(g->ser, si);
	long na = m < r->nm ? r->na[m] : 0;
	double mean = nv ? rag_series_mean(g->ser, si) : NAN;
	int ok = nv > 0 && mean >= c->value - EPS;
	char what[300], of[200] = "";
	snprintf(what, sizeof what, "mean %s for \"%.200s\"", c->metric, c->category);
	if (nv && na)
		snprintf(of, sizeof of, "; computed on %zu of %ld; %ld not applicable", nv, r->records, na);
	if (nv) {
		*checks = check(*checks, what, ok, "category_mean",
		                JV_OBJECT(jv_string("metric"), jv_string(c->metric), jv_string("mean"), jv_number(mean),
		                          jv_string("threshold"), jv_number(c->value), jv_string("category"), jv_string(c->category),
		                          jv_string("records"), jv_number((double)r->records), jv_string("computed"),
		                          jv_number((double)nv), jv_string("not_applicable"), jv_number((double)na)),
		                "%s mean %.3f %s %.3f for \"%.200s\" (gate.by_category; %ld record%s%s)",
		                c->metric, mean, ok ? ">=" : "<", c->value, c->category, r->records,
		                r->records == 1 ? "" : "s", of);
	} else if (na) {
		*checks = skipped(*checks, what, c->metric, r->records, g->ms[m].na_reason);
		ok = 1;
	} else {
		*checks = check(*checks, what, 0, "category_no_score",
		                JV_OBJECT(jv_string("metric"), jv_string(c->metric), jv_string("category"), jv_string(c->category)),
		                "%s: no record of \"%.200s\" has a score", c->metric, c->category);
	}
	return ok;
}

/* gate.by_category's means: a check for each triple and each group of its category (a value of
 * a field of o.by, as the per-record thresholds of gate.by_category match them); skipped where
 * the run has no such records or did not score the metric. A mean that fails marks its metric's
 * row gate_failed, as gate.mean's does. 0 when one fails. */
static int category_means(rag_gate *g, jv *checks, jv *metrics)
{
	size_t k, i;
	int pass = 1;
	for (k = 0; k < g->o.nby_category_mean; k++) {
		const rag_cat_kd *c = &g->o.by_category_mean[k];
		jv ix = jv_object_get(jv_copy(g->metric_ix), jv_string(c->metric));
		char what[300];
		int met = 0, ok = 1;
		snprintf(what, sizeof what, "mean %s for \"%.200s\"", c->metric, c->category);
		if (!in_run(&g->o, c->metric) || jv_get_kind(ix) != JV_KIND_NUMBER) {
			*checks = check(*checks, what, 1, "category_not_run",
			                JV_OBJECT(jv_string("metric"), jv_string(c->metric), jv_string("category"), jv_string(c->category)),
			                "%s: not run (not among this run's metrics): its mean for \"%.200s\" "
			                "is not checked", c->metric, c->category);
			*checks = jv_array_set(*checks, jv_array_length(jv_copy(*checks)) - 1,
			                       jv_object_set(jv_array_get(jv_copy(*checks), jv_array_length(jv_copy(*checks)) - 1),
			                                     jv_string("skipped"), jv_true()));
			jv_free(ix);
			continue;
		}
		for (i = 0; i < g->ngrp; i++)
			if (!g->grp[i].none && !strcmp(g->grp[i].name, c->category)) {
				met = 1;
				ok &= category_mean_check(g, &g->grp[i], (size_t)jv_number_value(ix), c, checks);
			}
		if (!met) *checks = skipped(*checks, what, c->metric, 0, "no_category_records");
		if (!ok) {
			jv_array_foreach(*metrics, j, row) {
				char name[300];
				if (!strcmp(rag_json_str(row, "metric", name, sizeof name), c->metric))
					*metrics = jv_array_set(*metrics, j, jv_object_set(jv_copy(row), jv_string("gate_failed"), jv_true()));
				jv_free(row);
			}
		}
		pass &= ok;
		jv_free(ix);
	}
	return pass;
}

jv rag_gate_summary(rag_gate *g)
{
	jv s = jv_object(), metrics = jv_array(), cats, checks = jv_array(), worsts = jv_array();
	size_t *order = rag_xmalloc((g->nmetric + 1) * sizeof *order), i;
	int pass = 1, any_scored = 0;
	long judged = g->records - g->errored;
	double rate = rag_verdict_pass_rate(g->passed, judged);

	for (i = 0; i < g->nmetric; i++) order[i] = i;
	qsort_r(order, g->nmetric, sizeof *order, by_name, g->metric);
	category_thresholds(g, jv_invalid());   /* the run's thresholds, not the last record's */

	if (g->records == 0) {
		pass = 0;
		checks = check(checks, "records", 0, "no_records", jv_object(), "no records: an empty run cannot pass");
	}
	checks = not_run(g, checks);
	for (i = 0; i < g->nmetric; i++) {
		size_t m = order[i];
		const mstat *ms = &g->ms[m];
		jv row;
		size_t nv = rag_series_count(g->ser, g->vals[m]);
		long applicable = g->records - ms->na, nulls = applicable - (long)nv + ms->undecided;
		double erate = applicable > 0 ? (double)nulls / (double)applicable : 0;
		double mean = rag_series_mean(g->ser, g->vals[m]);   /* summed in input order */
		int mean_failed = 0;
		char what[300], of[200] = "";
		any_scored |= nv > 0 || ms->na > 0;
		if (ms->na)
			snprintf(of, sizeof of, " (computed on %zu of %ld records; %ld not applicable)", nv, g->records, ms->na);
		row = metric_row(g, g->metric[m], g->vals[m], g->records, ms->na);
		row = jv_object_set(row, jv_string("error_rate"), jv_number(erate));
		row = jv_object_set(row, jv_string("threshold_mean"), num(g->mean_thr[m]));
		row = jv_object_set(row, jv_string("threshold_record"), num(g->rec_thr[m]));
		row = jv_object_set(row, jv_string("gate_verdict"), jv_bool(ms->verdict));
		row = jv_object_set(row, jv_string("flips"), jv_number((double)ms->flips));
		if (ms->from[0] || ms->from[1] || ms->from[2]) row = jv_object_set(row, jv_string("relevance_from"), from_counts(ms));
		row = jv_object_set(row, jv_string("passed"), ms->judged ? jv_number((double)ms->passed) : jv_null());
		row = jv_object_set(row, jv_string("failed"), ms->judged ? jv_number((double)ms->failed) : jv_null());
		row = jv_object_set(row, jv_string("pass_rate"), ms->judged ? jv_number((double)ms->passed / (double)ms->judged) : jv_null());
		if (applicable > 0 && nulls > 0) {
			int ok = erate <= g->o.max_error_rate + EPS;
			snprintf(what, sizeof what, "nulls %s", g->metric[m]);
			checks = check(checks, what, ok, "nulls",
			               JV_OBJECT(jv_string("metric"), jv_string(g->metric[m]), jv_string("nulls"), jv_number((double)nulls),
			                         jv_string("applicable"), jv_number((double)applicable), jv_string("undecided"),
			                         jv_bool(ms->undecided > 0), jv_string("rate"), jv_number(erate),
			                         jv_string("max_error_rate"), jv_number(g->o.max_error_rate),
			                         jv_string("not_applicable"), jv_number((double)ms->na)),
			               "%s: %ld of %ld record%s no score%s (%.1f%%; max_error_rate %g%%)%s",
			               g->metric[m], nulls, applicable, applicable == 1 ? " has" : "s have",
			               ms->undecided ? " or no pass verdict" : "", erate * 100,
			               g->o.max_error_rate * 100, ms->na ? " (not applicable ones left out)" : "");
			pass &= ok;
		}
		if (!isnan(g->mean_thr[m]) && g->records) {
			int ok = nv > 0 && mean >= g->mean_thr[m] - EPS;
			snprintf(what, sizeof what, "mean %s", g->metric[m]);
			if (nv) {
				checks = check(checks, what, ok, "mean",
				               JV_OBJECT(jv_string("metric"), jv_string(g->metric[m]), jv_string("mean"), jv_number(mean),
				                         jv_string("threshold"), jv_number(g->mean_thr[m]), jv_string("computed"),
				                         jv_number((double)nv), jv_string("records"), jv_number((double)g->records),
				                         jv_string("not_applicable"), jv_number((double)ms->na)),
				               "%s mean %.3f %s %.3f%s", g->metric[m], mean,
				               ok ? ">=" : "<", g->mean_thr[m], of);
			} else if (ms->na) {
				checks = skipped(checks, what, g->metric[m], g->records, ms->na_reason);
				ok = 1;
			} else {
				checks = check(checks, what, 0, "no_score", JV_OBJECT(jv_string("metric"), jv_string(g->metric[m])),
				               "%s: no record has a score", g->metric[m]);
			}
			/* no score at all is data missing (a dead judge), not a low mean: no hint */
			mean_failed = !ok && nv > 0;
			pass &= ok;
		}
		if (record_gated(g, m) && g->records && !nv) {
			snprintf(what, sizeof what, "scores %s", g->metric[m]);
			if (ms->na) {
				checks = skipped(checks, what, g->metric[m], g->records, ms->na_reason);
			} else {
				checks = check(checks, what, 0, "no_score", JV_OBJECT(jv_string("metric"), jv_string(g->metric[m])),
				               "%s: no record has a score", g->metric[m]);
				pass = 0;
			}
		}
		if (ms->flips) {
			snprintf(what, sizeof what, "flips %s", g->metric[m]);
			/* a note: the records that fail by a flip fail the pass rate */
			checks = check(checks, what, 1, "flips",
			               JV_OBJECT(jv_string("metric"), jv_string(g->metric[m]), jv_string("flips"), jv_number((double)ms->flips),
			                         jv_string("fail"), jv_bool(g->o.fail_on_flip && gated(g, m))),
			               "%s: %ld record%s flip%s across repeats%s",
			               g->metric[m], ms->flips, ms->flips == 1 ? "" : "s", ms->flips == 1 ? "s" : "",
			               g->o.fail_on_flip && gated(g, m) ? " (--fail-on-flip: they fail)" : "");
		}
		/* what a failure hint is for: the metric's quality is too low, not its data missing */
		row = jv_object_set(row, jv_string("gate_failed"), jv_bool(mean_failed || ms->failed > 0));
		metrics = jv_array_append(metrics, row);
	}
	pass &= category_means(g, &checks, &metrics);
	if (g->records && !any_scored) {
		pass = 0;
		checks = check(checks, "scores", 0, "no_scores", jv_object(),
		               "no record carries a number in scores.*: run a scoring tool first");
	}
	if (g->unreadable) {
		int ok = (double)g->unreadable / (double)g->records <= g->o.max_error_rate + EPS;
		checks = check(checks, "unreadable", ok, "unreadable",
		               JV_OBJECT(jv_string("unreadable"), jv_number((double)g->unreadable), jv_string("records"),
		                         jv_number((double)g->records)),
		               "%ld of %ld line%s could not be read as records",
		               g->unreadable, g->records, g->records == 1 ? "" : "s");
		pass &= ok;
	}
	if (g->records && judged > 0) {
		int ok = rate >= g->o.min_pass_rate - EPS;
		checks = check(checks, "pass rate", ok, "pass_rate",
		               JV_OBJECT(jv_string("passed"), jv_number((double)g->passed), jv_string("of"), jv_number((double)judged),
		                         jv_string("rate"), jv_number(rate), jv_string("min_pass_rate"), jv_number(g->o.min_pass_rate)),
		               "%ld of %ld record%s (%.1f%%; min_pass_rate %g%%)",
		               g->passed, judged, judged == 1 ? " passes" : "s pass", rate * 100, g->o.min_pass_rate * 100);
		pass &= ok;
	}

	cats = g->cat_by < 0 ? cat_rows(g, g->cat, g->ncat, order, 0, "category")
	                     : cat_rows(g, g->grp, g->ngrp, order, (size_t)g->cat_by + 1, "category");

	for (i = 0; i < g->nw; i++) worsts = jv_array_append(worsts, jv_copy(g->w[i].info));

	s = jv_object_set(s, jv_string("by"), by_fields(g));

	s = jv_object_set(s, jv_string("records"), jv_number((double)g->records));
	s = jv_object_set(s, jv_string("unreadable"), jv_number((double)g->unreadable));
	s = jv_object_set(s, jv_string("errored"), jv_number((double)g->errored));
	s = jv_object_set(s, jv_string("not_scored"), jv_number((double)g->not_scored));
	s = jv_object_set(s, jv_string("remote_failed"), jv_number((double)g->remote_failed));
	if (g->remote_failed) s = jv_object_set(s, jv_string("remote_error"), jv_copy(g->remote_error));
	if (g->capped) s = jv_object_set(s, jv_string("capped"), jv_number((double)g->capped));
	s = jv_object_set(s, jv_string("not_applicable_records"), jv_number((double)g->na_records));
	s = jv_object_set(s, jv_string("passed"), jv_number((double)g->passed));
	s = jv_object_set(s, jv_string("pass_rate"), num(rate));
	s = jv_object_set(s, jv_string("pass_rate_of"), jv_number((double)judged));
	s = jv_object_set(s, jv_string("thresholds"), thresholds(g));
	s = jv_object_set(s, jv_string("metrics"), metrics);
	s = jv_object_set(s, jv_string("categories"), cats);
	s = jv_object_set(s, jv_string("groups"), group_rows(g, order));
	s = jv_object_set(s, jv_string("worst"), worsts);
	s = jv_object_set(s, jv_string("cost"), rag_cost_batch(rag_cost_summary(g->cost, g->o.prices, g->o.nprices,
	                                                                        g->o.currency), g->o.batch,
	                                                       g->o.prices, g->o.nprices));
	g->cost = jv_object();
	if (g->have_base) s = jv_object_set(s, jv_string("baseline"), baseline_summary(g, order, &checks, &pass));
	s = jv_object_set(s, jv_string("checks"), checks);
	s = jv_object_set(s, jv_string("pass"), jv_bool(pass));
	s = jv_object_set(s, jv_string("verdict"), rag_verdict(s));
	free(order);
	return self_judging(g, s);
}

static void free_changes(changes *c)
{
	size_t i;
	for (i = 0; i < c->n; i++) free(c->v[i].id);
	free(c->v);
}

void rag_gate_free(rag_gate *g)
{
	size_t i;
	if (!g) return;
	free(g->self_model);
	free(g->rec_base);
	free(g->rec_cat);
	for (i = 0; i < g->nmetric; i++) {
		free(g->metric[i]);
	}
	free(g->metric);
	free(g->vals);
	free(g->pcur);
	free(g->pbase);
	free(g->pdiff);
	rag_series_free(g->ser);
	free(g->mean_thr);
	free(g->rec_thr);
	for (i = 0; i < g->ncat; i++) {
		free(g->cat[i].m);
		free(g->cat[i].na);
		free(g->cat[i].name);
	}
	free(g->cat);
	for (i = 0; i < g->ngrp; i++) {
		free(g->grp[i].m);
		free(g->grp[i].na);
		free(g->grp[i].name);
	}
	free(g->grp);
	free(g->by_seen);
	jv_free(g->grp_ix);
	jv_free(g->cost);
	for (i = 0; i < g->nmetric; i++) free(g->ms[i].na_reason);
	free(g->ms);
	for (i = 0; i < g->nw; i++) jv_free(g->w[i].info);
	free(g->w);
	rag_idtab_free(&g->base_ids);
	free(g->base_seen);
	free(g->base_unscored);
	jv_free(g->remote_error);
	rag_compare_free(g->cmp);
	for (i = 0; i < g->nbmetric; i++) {
		free(g->bmetric[i]);
		free(g->bcol[i]);
	}
	free(g->bmetric);
	free(g->bcol);
	free(g->base_name);
	free_changes(&g->regressed);
	free_changes(&g->improved);
	jv_free(g->metric_ix);
	jv_free(g->cat_ix);
	jv_free(g->bmetric_ix);
	jv_free(g->only_cur);
	free(g);
}

int rag_gate_threshold_parse(const char *arg, rag_kd **list, size_t *n, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	char *end;
	double v;
	size_t i, len;
	if (!eq || eq == arg || !eq[1]) {
		snprintf(err, errlen, "takes METRIC=MIN, e.g. faithfulness=0.8, not \"%s\"", arg);
		return -1;
	}
	errno = 0;
	v = strtod(eq + 1, &end);
	if (errno || *end || !(v >= 0 && v <= 1)) {
		snprintf(err, errlen, "the minimum must be a number from 0 to 1, not \"%s\"", eq + 1);
		return -1;
	}
	len = (size_t)(eq - arg);
	for (i = 0; i < *n; i++) {
		if (strlen((*list)[i].key) == len && !strncmp((*list)[i].key, arg, len)) {
			(*list)[i].value = v;
			return 0;
		}
	}
	*list = rag_xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[*n].key = rag_xstrndup(arg, len);
	(*list)[*n].value = v;
	++*n;
	return 0;
}

rag_kd *rag_gate_thresholds_merge(const rag_kd *cfg, size_t ncfg, const rag_kd *flags, size_t nflags, size_t *n)
{
	rag_kd *out = rag_xmalloc((ncfg + nflags + 1) * sizeof *out);
	size_t i, j;
	*n = 0;
	for (i = 0; i < ncfg; i++) out[(*n)++] = (rag_kd){cfg[i].key, cfg[i].value};
	for (j = 0; j < nflags; j++) {
		for (i = 0; i < *n && strcmp(out[i].key, flags[j].key); i++)
			;
		if (i < *n) out[i].value = flags[j].value;
		else out[(*n)++] = (rag_kd){flags[j].key, flags[j].value};
	}
	return out;
}
