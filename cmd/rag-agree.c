/* rag-agree - how far to trust a judge: a score or verdict field of scored records against
 * people's labels (a field of the records, or a labels file joined by id), with ROC AUC, the
 * measures of a threshold, kappa, rank correlations, bootstrap intervals and the
 * prediction-powered corrected mean; and the stratified sample sheet that people fill in.
 * The maths is lib/agree.c; this file reads the run, joins the labels and counts what it left out. */
#include "tool.h"
#include "base.h"
#include "record.h"
#include "stream.h"
#include "agree.h"
#include "config.h"
#include "store.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-agree --field FIELD (--label FIELD | --labels FILE) [OPTIONS] [FILE] < records.jsonl\n"
	"       rag-agree --field FIELD --sample N --sheet FILE [OPTIONS] [FILE] < records.jsonl\n"
	"       rag-agree --field FIELD --run REF [--store URL] [--who NAME] [OPTIONS]\n"
	"Compare a judge's score or verdict field with human labels (or a stored run's review marks),\n"
	"and draw spot checks to label.\n";

enum { OPT_ID = RAG_OPT_TOOL, OPT_OPTIMISE, OPT_SEED,
       OPT_RESAMPLES, OPT_CONFIDENCE, OPT_JSON, OPT_MARKDOWN, OPT_SAMPLE, OPT_SHEET, OPT_SCALE,
       OPT_STORE, OPT_RUN, OPT_METRIC, OPT_WHO };

/* a context's text on the sheet is cut at this many characters, all of them together at
 * SHEET_CONTEXTS (rag-agree(1) SPOT CHECKS) */
#define SHEET_CONTEXT 500
#define SHEET_CONTEXTS 2000

static const rag_opt options[] = {
	{"field", 'f', 'f', "FIELD", NULL, "the judge's score or verdict (dotted path: scores.faithfulness)"},
	{"label", 'l', 'l', "FIELD", NULL, "the human label, a field of the records (dotted path)"},
	{"labels", 'L', 'L', "FILE", RAG_ARG_FILE, "human labels: JSON Lines {id, label} or CSV id,label"},
	{"id", 0, OPT_ID, "FIELD", NULL, "the field that joins records and labels (default id)"},
	{"scale", 0, OPT_SCALE, "LO-HI", NULL, "the labels' scale: one outside it is an error (default 0-1)"},
	{"threshold", 't', 't', "X", NULL, "the judge says yes at X or more (default 0.5)"},
	{"optimise", 0, OPT_OPTIMISE, "MEASURE", "f1 accuracy youden", "the best threshold's measure: f1 (default) | accuracy | youden"},
	{"seed", 0, OPT_SEED, "N", NULL, "seed of the bootstrap and the sample (default 1)"},
	{"resamples", 0, OPT_RESAMPLES, "N", NULL, "bootstrap resamples (default 2000)"},
	{"confidence", 0, OPT_CONFIDENCE, "LEVEL", NULL, "the intervals' confidence (default 0.95)"},
	{"json", 0, OPT_JSON, NULL, NULL, "the summary as one JSON object"},
	{"markdown", 0, OPT_MARKDOWN, NULL, NULL, "the summary as Markdown"},
	{"sample", 0, OPT_SAMPLE, "N", NULL, "draw N records to label, stratified by score band and category"},
	{"sheet", 0, OPT_SHEET, "FILE", RAG_ARG_FILE, "write the sample there (CSV, or Markdown for .md)"},
	{"run", 0, OPT_RUN, "REF", NULL, "a stored run (id, last, last~N, label:NAME): its records, its reviewers' marks as labels"},
	{"store", 0, OPT_STORE, "URL", NULL, "the store of --run: sqlite:///PATH, a file's path or postgresql://...\n"
	 "(default store.url, else $XDG_DATA_HOME/ragpipe/runs.db)"},
	{"metric", 0, OPT_METRIC, "NAME", "faithfulness answer_relevancy context_precision context_recall answer_correctness",
	 "the marks of metric NAME: faithfulness | answer_relevancy | context_precision | context_recall | answer_correctness\n"
	 "(or any other); of a labels file, the rows of its metric column; --field defaults to scores.NAME"},
	{"who", 0, OPT_WHO, "NAME", NULL, "only the marks (or labels rows) of reviewer NAME"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	const char *field, *label, *id, *input;
	const char *metric, *who;   /* --metric, --who: the marks (labels rows) taken */
	jv labels;                /* id -> label value, from --labels */
	jv label_line;            /* id -> its line in the labels file */
	const char *labels_file;
	jv used;                  /* id -> true for the labels that matched a record */
	double lo, hi;            /* the labels' scale (--scale) */
	const char *scale;
	int sheet;                /* keep what the sheet shows */
	/* per record with a score */
	double *score, *human;    /* human NAN: not labelled */
	double *len;              /* the answer's length in characters; NAN: no answer */
	char **category;
	jv rows;                  /* sheet rows, parallel to score (when sheet) */
	size_t n, cap;
	long records, unreadable, without_score, without_label, bad_scores, bad_labels, no_id;
} tool;

/* the record's id as text, or NULL */
static char *id_of(jv rec, const char *field)
{
	jv v = rag_json_path(rec, field);
	char *s = jv_get_kind(v) == JV_KIND_STRING || jv_get_kind(v) == JV_KIND_NUMBER ? rag_json_id(v) : NULL;
	jv_free(v);
	return s;
}

/* text up to max characters (code points), an ellipsis when cut */
static void add_cut(rag_buf *b, const char *s, size_t max)
{
	size_t i = 0, len = strlen(s), n = 0;
	long cp;
	while (i < len && n < max) {
		i += rag_utf8_decode(s + i, len - i, &cp);
		n++;
	}
	rag_buf_add(b, s, i);
	if (i < len) rag_buf_adds(b, "…");
}

/* The judge's reason for the field's metric: verdicts.<metric>.reason, or the reasons of the
 * verdicts.<metric> array's items (those that say no first). */
static char *reason_of(jv rec, const char *field)
{
	const char *dot = strrchr(field, '.');
	char *path = rag_xasprintf("verdicts.%s", dot ? dot + 1 : field);
	jv v = rag_json_path(rec, path);
	rag_buf b = {0};
	int pass;
	free(path);
	if (jv_get_kind(v) == JV_KIND_OBJECT) {
		jv r = rag_json_get(jv_copy(v), "reason");
		if (jv_get_kind(r) == JV_KIND_STRING) rag_buf_adds(&b, jv_string_value(r));
		jv_free(r);
	} else if (jv_get_kind(v) == JV_KIND_ARRAY) {
		for (pass = 0; pass < 2; pass++) {
			jv_array_foreach(v, i, it) {
				jv r = rag_json_get(jv_copy(it), "reason");
				int yes = rag_json_true(it, "verdict");
				if (yes == pass && jv_get_kind(r) == JV_KIND_STRING && jv_string_length_bytes(jv_copy(r))) {
					if (b.len) rag_buf_adds(&b, "; ");
					rag_buf_addf(&b, "%d: %s", i + 1, jv_string_value(r));
				}
				jv_free(r);
				jv_free(it);
			}
		}
	}
	jv_free(v);
	if (!b.len) return rag_xstrdup("");
	{
		rag_buf c = {0};
		rag_buf_add(&b, "", 1);
		add_cut(&c, b.p, SHEET_CONTEXTS);
		rag_buf_add(&c, "", 1);
		rag_buf_free(&b);
		return c.p;
	}
}

static jv sheet_row(jv rec, const char *id, double score, const char *category, const char *field)
{
	jv ctx = rag_record_contexts(rec);
	rag_buf b = {0};
	const char *q = rag_record_str(rec, "question"), *a = rag_record_str(rec, "answer");
	char *reason = reason_of(rec, field), sc[32];
	jv row;
	if (jv_is_valid(ctx)) {
		jv_array_foreach(ctx, i, c) {
			/* numbered on one line, a sheet's cell being read across; never "[" first, which the
			 * test set reader would take for a JSON array when the sheet is read back */
			rag_buf_addf(&b, "%s(%d) ", i ? " " : "", i + 1);
			if (b.len < SHEET_CONTEXTS * 4) add_cut(&b, jv_string_value(c), SHEET_CONTEXT);
			jv_free(c);
		}
	}
	jv_free(ctx);
	rag_buf_add(&b, "", 1);
	{
		rag_buf c = {0};
		add_cut(&c, b.p, SHEET_CONTEXTS);
		rag_buf_add(&c, "", 1);
		rag_buf_free(&b);
		b = c;
	}
	snprintf(sc, sizeof sc, "%g", score);
	row = JV_OBJECT(jv_string("id"), jv_string(id ? id : ""), jv_string("category"), jv_string(category ? category : ""),
	                jv_string("score"), jv_string(sc), jv_string("reason"), jv_string(reason),
	                jv_string("question"), jv_string(q ? q : ""), jv_string("answer"), jv_string(a ? a : ""),
	                jv_string("contexts"), jv_string(b.p));
	free(reason);
	rag_buf_free(&b);
	return row;
}

/* A message about the record at it; about its label, at the label's own place: its line of the
 * labels file (from_labels), else of the records. */
static void say_at(tool *t, rag_item *it, const char *id, int from_labels, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static void say_at(tool *t, rag_item *it, const char *id, int from_labels, const char *level, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	const char *file = t->input;
	size_t line = it->lineno;
	if (t->cli->quiet && strcmp(level, "error")) return;
	if (from_labels) {
		jv l = jv_object_get(jv_copy(t->label_line), jv_string(id));
		file = t->labels_file;
		line = jv_get_kind(l) == JV_KIND_NUMBER ? (size_t)jv_number_value(l) : 0;
		jv_free(l);
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s (at %s:%zu): %s\n", t->cli->prog, level, file, line, msg);
}

/* The record's answer in characters (Unicode code points; an invalid byte is one), NAN when it
 * has none: the length the judge's scores are compared with (rag-agree(1) LENGTH BIAS). */
static double answer_length(jv rec)
{
	const char *a = rag_record_str(rec, "answer");
	size_t i = 0, n, chars = 0;
	long cp;
	if (!a) return NAN;
	n = strlen(a);
	while (i < n) {
		i += rag_utf8_decode(a + i, n - i, &cp);
		chars++;
	}
	return (double)chars;
}

/* The length bias over the labelled pairs, and its warning on stderr (rag_agree_length_bias). */
static jv length_bias(tool *t)
{
	double *s = rag_xmalloc((t->n ? t->n : 1) * sizeof *s), *h = rag_xmalloc((t->n ? t->n : 1) * sizeof *h);
	double *l = rag_xmalloc((t->n ? t->n : 1) * sizeof *l);
	size_t i, m = 0;
	jv lb;
	for (i = 0; i < t->n; i++)
		if (!isnan(t->human[i])) {
			s[m] = t->score[i];
			h[m] = t->human[i];
			l[m++] = t->len[i];
		}
	lb = rag_agree_length_bias(s, h, l, m);
	if (rag_json_true(lb, "warn"))
		rag_msg(t->cli->prog, "warning", "the judge's scores follow the answers' length more than the labels do "
		        "(Spearman %.3f against %.3f): it may prefer longer answers", rag_json_num(lb, "judge"),
		        rag_json_num(lb, "human"));
	free(s);
	free(h);
	free(l);
	return lb;
}

static void observe(rag_item *it, void *ctx)
{
	tool *t = ctx;
	jv rec = it->rec, v;
	double s, h = NAN;
	char *id;
	int rc;

	if (it->bad) {
		t->unreadable++;
		return;
	}
	t->records++;
	id = id_of(rec, t->id);
	v = rag_json_path(rec, t->field);
	rc = rag_agree_value(v, &s);
	jv_free(v);
	if (rc) {
		if (rc < 0) {
			t->bad_scores++;
			say_at(t, it, id, 0, "warning", "%s is not a number or a boolean: left out", t->field);
		} else {
			t->without_score++;
		}
		if (id && jv_is_valid(t->labels) && jv_object_has(jv_copy(t->labels), jv_string(id)))
			t->used = jv_object_set(t->used, jv_string(id), jv_true());   /* matched, if unusable */
		free(id);
		return;
	}
	if (t->label) {
		v = rag_json_path(rec, t->label);
		rc = rag_agree_value(v, &h);
		jv_free(v);
	} else if (jv_is_valid(t->labels)) {
		rc = 1;
		if (!id) t->no_id++;
		else if (jv_object_has(jv_copy(t->labels), jv_string(id))) {
			rc = rag_agree_value(v = jv_object_get(jv_copy(t->labels), jv_string(id)), &h);
			jv_free(v);
			t->used = jv_object_set(t->used, jv_string(id), jv_true());
		}
	} else {
		rc = 1;   /* a sample alone: no labels asked for */
	}
	if (rc < 0) {
		t->bad_labels++;
		say_at(t, it, id, !t->label, "warning", "the label (%s) cannot be read as yes/no or a number: left out",
		       t->label ? t->label : "--labels");
	} else if (rc == 0 && !(h >= t->lo && h <= t->hi)) {
		/* a label off the scale is a mistake in the labels, never a grade of its own */
		t->bad_labels++;
		say_at(t, it, id, !t->label, "error", "the label %g is outside the scale %s%s: left out", h, t->scale,
		       strcmp(t->scale, "0-1") ? "" : " (graded labels: give their scale, --scale 1-5)");
		rc = -1;
	}
	else if (rc > 0 && (t->label || jv_is_valid(t->labels))) t->without_label++;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->score = rag_xrealloc(t->score, t->cap * sizeof *t->score);
		t->human = rag_xrealloc(t->human, t->cap * sizeof *t->human);
		t->category = rag_xrealloc(t->category, t->cap * sizeof *t->category);
		t->len = rag_xrealloc(t->len, t->cap * sizeof *t->len);
	}
	t->len[t->n] = answer_length(rec);
	t->score[t->n] = s;
	t->human[t->n] = rc ? NAN : h;
	{
		const char *c = rag_record_str(rec, "category");
		t->category[t->n] = c ? rag_xstrdup(c) : NULL;
	}
	if (t->sheet) t->rows = jv_array_append(t->rows, sheet_row(rec, id, s, t->category[t->n], t->field));
	t->n++;
	free(id);
}

/* a CSV cell (consumed) as it was before a ' was put first against a spreadsheet's formulas
 * (rag_csv_protect: rag-serve's labels.csv, the sheet) */
static jv csv_unprotect(jv v)
{
	const char *s, *u;
	jv r;
	if (jv_get_kind(v) != JV_KIND_STRING) return v;
	s = jv_string_value(v);
	if ((u = rag_csv_unprotect(s)) == s) return v;
	r = jv_string(u);
	jv_free(v);
	return r;
}

/* whether --metric and --who take the labels row r (borrowed): its metric and who fields (rag-serve's
 * labels.csv columns) are theirs */
static int row_taken(const tool *t, jv r, int csv)
{
	const char *const keys[2] = {"metric", "who"}, *const want[2] = {t->metric, t->who};
	int k, ok = 1;
	for (k = 0; k < 2 && ok; k++) {
		jv v;
		if (!want[k]) continue;
		v = rag_json_get(jv_copy(r), keys[k]);
		if (csv) v = csv_unprotect(v);
		ok = jv_get_kind(v) == JV_KIND_STRING && !strcmp(jv_string_value(v), want[k]);
		jv_free(v);
	}
	return ok;
}

/* --labels FILE into t->labels: JSON Lines or CSV (by the name, else the content), through the
 * test set reader, which gives the positions of a broken file. Returns an exit code. */
static int read_labels(tool *t, const char *path, long *duplicates)
{
	char err[RAG_ERRLEN];
	size_t len;
	char *text;
	jv rows, lines;
	long withlabel = 0;
	FILE *f;
	int rc, csv;
	*duplicates = 0;
	/* opened first through the tool layer, for its one message and status for a file that
	 * cannot be opened */
	if ((rc = rag_cli_open(t->cli, path, "r", &f))) return rc;
	fclose(f);
	if (!(text = rag_read_file(path, &len, err, sizeof err))) {
		rag_msg(t->cli->prog, "error", "%s", err);
		return RAG_EXIT_USAGE;
	}
	csv = rag_testset_detect(path, text, len) == RAG_TESTSET_CSV;
	rows = rag_testset_parse_lines(text, len, path, csv ? RAG_TESTSET_CSV : RAG_TESTSET_JSON, &lines, err, sizeof err);
	free(text);
	if (!jv_is_valid(rows)) {
		jv_free(rows);
		jv_free(lines);
		rag_msg(t->cli->prog, "error", "%s", err);
		return RAG_EXIT_DATA;
	}
	t->labels = jv_object();
	t->label_line = jv_object();
	t->labels_file = path;
	jv_array_foreach(rows, i, r) {
		jv id = rag_json_get(jv_copy(r), "id"), lab = rag_json_get(jv_copy(r), "label");
		if (csv) {
			id = csv_unprotect(id);
			lab = csv_unprotect(lab);
		}
		if (!row_taken(t, r, csv)) {
			jv_free(id);
			jv_free(lab);
			jv_free(r);
			continue;
		}
		if (jv_is_valid(lab)) withlabel++;
		/* a row without a label (an empty cell of a sheet) is a record not labelled yet */
		if (jv_get_kind(id) == JV_KIND_STRING && jv_is_valid(lab)) {
			if (jv_object_has(jv_copy(t->labels), jv_copy(id))) (*duplicates)++;
			t->label_line = jv_object_set(t->label_line, jv_copy(id), jv_array_get(jv_copy(lines), i));
			t->labels = jv_object_set(t->labels, id, lab);
		} else {
			jv_free(id);
			jv_free(lab);
		}
		jv_free(r);
	}
	jv_free(lines);
	if (!withlabel && jv_array_length(jv_copy(rows)) > 0) {
		jv_free(rows);
		if (t->metric || t->who)
			rag_msg(t->cli->prog, "error", "\"%s\" has no label in a row of%s%s%s%s (its metric and who columns)", path,
			        t->metric ? " metric " : "", t->metric ? t->metric : "", t->who ? " by " : "", t->who ? t->who : "");
		else
			rag_msg(t->cli->prog, "error", "\"%s\" has no label in any row (a labels file holds id and label)", path);
		return RAG_EXIT_DATA;
	}
	jv_free(rows);
	return 0;
}

/* The store's failure: its message, RAG_EXIT_STORE. */
static int store_failed(const tool *t, const char *err)
{
	rag_msg(t->cli->prog, "error", "%s", err);
	return RAG_EXIT_STORE;
}

/* --run REF: the run's records (into *records, as rag-store export gives them) and its marks of
 * the metric (those of --who) into t->labels, as read_labels reads rag-serve's labels.csv of the
 * run: a row a mark, in the store's order (by record, then when), so that of a record's several
 * marks the latest is kept and the others counted in labels_duplicate; a mark of a record without
 * an id is left out, as the CSV leaves it out. Returns an exit code (every failure of the store,
 * or a run it does not hold: RAG_EXIT_STORE). */
static int read_store(tool *t, const char *url, const char *ref, rag_buf *records, char **runid, long *duplicates)
{
	char err[RAG_ERRLEN];
	rag_store *st;
	jv marks;
	int r;
	*duplicates = 0;
	if (!url || !*url) {
		rag_msg(t->cli->prog, "error", "no store: give --store URL or store.url in the configuration "
		        "(the default needs $XDG_DATA_HOME or $HOME)");
		return RAG_EXIT_USAGE;
	}
	if (!(st = rag_store_open(url, err, sizeof err))) return store_failed(t, err);
	if (t->cli->verbose) rag_msg(t->cli->prog, "info", "store %s (%s)", rag_store_url(st), rag_store_backend(st));
	if ((r = rag_store_resolve(st, ref, runid, err, sizeof err)) ||
	    (r = rag_store_marks(st, *runid, t->metric, &marks, err, sizeof err))) {
		rag_store_close(st);
		return store_failed(t, err);
	}
	if (rag_store_export(st, *runid, records, err, sizeof err)) {
		jv_free(marks);
		rag_store_close(st);
		return store_failed(t, err);
	}
	rag_store_close(st);
	t->labels = jv_object();
	t->label_line = jv_object();
	jv_array_foreach(marks, i, m) {
		jv id = rag_json_get(jv_copy(m), "id");
		if (jv_get_kind(id) == JV_KIND_STRING && jv_string_length_bytes(jv_copy(id)) > 0 && row_taken(t, m, 0)) {
			if (jv_object_has(jv_copy(t->labels), jv_copy(id))) (*duplicates)++;
			/* a message about the label names the record it marks, "run R:SEQ" (its line in the run) */
			t->label_line = jv_object_set(t->label_line, jv_copy(id), rag_json_get(jv_copy(m), "seq"));
			t->labels = jv_object_set(t->labels, id, rag_json_get(jv_copy(m), "label"));
		} else {
			jv_free(id);
		}
		jv_free(m);
		(void)i;
	}
	jv_free(marks);
	return 0;
}

/* --scale LO-HI: two finite numbers, LO < HI (LO may be negative: -1-1) */
static int parse_scale(const char *s, double *lo, double *hi)
{
	char *end;
	errno = 0;
	*lo = strtod(s, &end);
	if (end == s || *end != '-' || !isfinite(*lo)) return -1;
	s = end + 1;
	*hi = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(*hi) || !(*lo < *hi)) return -1;
	return 0;
}

static int write_sheet(tool *t, const char *path, size_t want, uint64_t seed, size_t *got)
{
	size_t *picked = rag_xmalloc((want ? want : 1) * sizeof *picked), i, len = strlen(path);
	int md = len > 3 && (!strcmp(path + len - 3, ".md") || (len > 9 && !strcmp(path + len - 9, ".markdown")));
	jv rows = jv_array();
	char *text;
	FILE *f;
	int rc;
	*got = rag_agree_sample(t->score, (const char *const *)t->category, t->n, want, seed, picked);
	for (i = 0; i < *got; i++) rows = jv_array_append(rows, jv_array_get(jv_copy(t->rows), (int)picked[i]));
	free(picked);
	text = rag_agree_sheet(rows, md);
	jv_free(rows);
	if ((rc = rag_cli_open(t->cli, path, "w", &f))) {
		free(text);
		return rc;
	}
	rc = rag_cli_write(t->cli, f, path, text);
	free(text);
	if (fclose(f) != 0 && !rc) {
		rag_msg(t->cli->prog, "error", "cannot write \"%s\": %s", path, strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	return rc;
}

/* The options that are missing or do not go together: 1 after the message, 0 when all is well. */
static int usage_conflict(rag_cli *cli, const tool *t, const char *labels, const char *run, const char *store,
                          int two_formats, long sample, const char *sheet, int argc, char **argv)
{
	if (!t->field) {
		rag_msg(cli->prog, "error", "--field FIELD is required: the judge's score or verdict (scores.faithfulness)"
		        " (or --metric NAME: scores.NAME)");
		return 1;
	}
	if ((t->label != NULL) + (labels != NULL) + (run != NULL) > 1) {
		rag_msg(cli->prog, "error", "%s are two sources of the labels: choose one",
		        !run ? "--label FIELD and --labels FILE" : t->label ? "--label FIELD and --run REF" :
		        "--labels FILE and --run REF");
		return 1;
	}
	if (store && !run) {
		rag_msg(cli->prog, "error", "--store URL goes with --run REF: the run whose records and marks to read");
		return 1;
	}
	if (t->who && !run && !labels) {
		rag_msg(cli->prog, "error", "--who NAME chooses among review marks: give --run REF or --labels FILE");
		return 1;
	}
	if (run && argc - optind > 0) {
		rag_msg(cli->prog, "error", "--run REF reads the run's records from the store: no FILE (\"%s\")", argv[optind]);
		return 1;
	}
	if (two_formats) {
		rag_msg(cli->prog, "error", "--json and --markdown are two formats of one summary: choose one");
		return 1;
	}
	if ((sample > 0) != (sheet != NULL)) {
		rag_msg(cli->prog, "error", "--sample N and --sheet FILE go together: how many to draw, and where to write them");
		return 1;
	}
	if (!t->label && !labels && !run && !sheet) {
		rag_msg(cli->prog, "error", "nothing to compare the judge with: give --label FIELD, --labels FILE or --run REF (or --sample N --sheet FILE to draw records to label)");
		return 1;
	}
	if (argc - optind > 1) {
		rag_msg(cli->prog, "error", "one run at a time: \"%s\" is a second file", argv[optind + 1]);
		return 1;
	}
	return 0;
}

/* What the summary says of its input: the fields compared, the counts, the labels file's
 * matches and the sample drawn. labels: the labels file's name, or the marks --run took. */
static jv summary_meta(const tool *t, const char *labels, long duplicates, const char *sheet, size_t sampled)
{
	jv meta = JV_OBJECT(jv_string("field"), jv_string(t->field),
	                    jv_string("label"), jv_string(t->label ? t->label : labels),
	                    jv_string("id"), jv_string(t->id), jv_string("records"), jv_number((double)t->records),
	                    jv_string("unreadable"), jv_number((double)t->unreadable),
	                    jv_string("without_score"), jv_number((double)t->without_score),
	                    jv_string("without_label"), jv_number((double)t->without_label),
	                    jv_string("bad_scores"), jv_number((double)t->bad_scores),
	                    jv_string("bad_labels"), jv_number((double)t->bad_labels));
	if (jv_is_valid(t->labels)) {
		long unmatched = jv_object_length(jv_copy(t->labels)) - jv_object_length(jv_copy(t->used));
		meta = jv_object_set(meta, jv_string("labels_unmatched"), jv_number((double)unmatched));
		meta = jv_object_set(meta, jv_string("labels_duplicate"), jv_number((double)duplicates));
		meta = jv_object_set(meta, jv_string("without_id"), jv_number((double)t->no_id));
	}
	if (sheet) meta = jv_object_set(meta, jv_string("sample"), JV_OBJECT(jv_string("sheet"), jv_string(sheet),
	                                jv_string("n"), jv_number((double)sampled)));
	return meta;
}

/* --run REF: the run's records and its marks of one metric (--metric, else the last part of
 * --field) from the store (--store, else store.url, else the default), the records read as a
 * file's are. *input_name names the run for messages (a record's line in it is its seq, which a
 * mark's message names too), *marks_name the marks for the summary; both malloc'ed. */
static int read_run(rag_cli *cli, tool *t, const char *store, const char *run, long *duplicates,
                    char **input_name, char **marks_name)
{
	rag_buf records = {0};
	char *runid = NULL;
	const char *url = store ? store : cli->cfg.store.url ? cli->cfg.store.url : cli->cfg.store.default_url;
	int rc;
	if (!t->metric) t->metric = strrchr(t->field, '.') ? strrchr(t->field, '.') + 1 : t->field;
	if ((rc = read_store(t, url, run, &records, &runid, duplicates)) == 0) {
		t->input = t->labels_file = *input_name = rag_xasprintf("run %s", runid);
		*marks_name = rag_xasprintf("the marks of run %s (%s%s%s)", runid, t->metric, t->who ? ", by " : "",
		                            t->who ? t->who : "");
		rc = rag_cli_read_text(cli, records.p ? records.p : "", records.len, t->input, observe, t);
	}
	rag_buf_free(&records);
	free(runid);
	return rc;
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_agree_opts o = {0.5, 0.95, RAG_AGREE_F1, 2000, 1, 0, 1};
	int opt, rc = 0, done, json = 0, markdown = 0;
	long x, duplicates = 0;
	size_t i, npairs = 0, sampled = 0;
	const char *labels = NULL, *sheet = NULL, *input = "-", *run = NULL, *store = NULL;
	char *field = NULL, *marks_name = NULL, *input_name = NULL;
	double *ps = NULL, *ph = NULL;
	long sample = -1;
	jv s = jv_invalid();
	char *text = NULL;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-agree";
	cli.usage = usage;
	cli.opts = options;
	t.cli = &cli;
	t.id = "id";
	t.labels = jv_invalid();
	t.label_line = jv_invalid();
	t.used = jv_object();
	t.scale = "0-1";
	t.lo = 0;
	t.hi = 1;
	t.rows = jv_array();
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case 'f': t.field = optarg; break;
		case 'l': t.label = optarg; break;
		case 'L': labels = optarg; break;
		case OPT_ID: t.id = optarg; break;
		case 't':
			if (rag_cli_double(&cli, "--threshold", optarg, -1e300, 1e300, 0, &o.threshold) < 0) goto misuse;
			break;
		case OPT_OPTIMISE:
			if ((o.optimise = rag_agree_measure_parse(optarg)) < 0) {
				rag_msg(cli.prog, "error", "--optimise \"%s\": expected f1, accuracy or youden", optarg);
				goto misuse;
			}
			break;
		case OPT_SEED:
			if (rag_cli_int(&cli, "--seed", optarg, 0, 0x7fffffffffffffffL, &x) < 0) goto misuse;
			o.seed = (uint64_t)x;
			break;
		case OPT_RESAMPLES:
			if (rag_cli_int(&cli, "--resamples", optarg, 1, 1000000, &x) < 0) goto misuse;
			o.resamples = (int)x;
			break;
		case OPT_CONFIDENCE:
			if (rag_cli_double(&cli, "--confidence", optarg, 0, 0.999999, 1, &o.confidence) < 0) goto misuse;
			break;
		case OPT_JSON: json = 1; break;
		case OPT_MARKDOWN: markdown = 1; break;
		case OPT_SAMPLE:
			if (rag_cli_int(&cli, "--sample", optarg, 1, 1000000000, &sample) < 0) goto misuse;
			break;
		case OPT_SHEET: sheet = optarg; break;
		case OPT_RUN: run = optarg; break;
		case OPT_STORE: store = optarg; break;
		case OPT_METRIC: t.metric = optarg; break;
		case OPT_WHO: t.who = optarg; break;
		case OPT_SCALE:
			if (parse_scale(optarg, &t.lo, &t.hi) < 0) {
				rag_msg(cli.prog, "error", "--scale \"%s\": expected LO-HI, two numbers, LO below HI (1-5, 0-10)", optarg);
				goto misuse;
			}
			t.scale = optarg;
			break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) goto out;
		}
	}
	if ((rc = rag_cli_setup(&cli))) goto out;   /* a configuration that cannot be read first */
	if (!t.field && t.metric) t.field = field = rag_xasprintf("scores.%s", t.metric);
	if (usage_conflict(&cli, &t, labels, run, store, json && markdown, sample, sheet, argc, argv)) goto misuse;
	if (optind < argc) input = argv[optind];
	if (labels && (rc = read_labels(&t, labels, &duplicates))) goto out;
	t.sheet = sheet != NULL;
	if (run) {
		rc = read_run(&cli, &t, store, run, &duplicates, &input_name, &marks_name);
		labels = marks_name;
	} else {
		t.input = strcmp(input, "-") ? input : "<stdin>";
		rc = rag_cli_read_run(&cli, input, NULL, observe, &t);
	}
	if (rc) goto out;
	if (rag_tool_interrupted) {
		rc = 128 + rag_tool_interrupted;
		goto out;
	}

	ps = rag_xmalloc((t.n ? t.n : 1) * sizeof *ps);
	ph = rag_xmalloc((t.n ? t.n : 1) * sizeof *ph);
	for (i = 0; i < t.n; i++)
		if (!isnan(t.human[i])) {
			ps[npairs] = t.score[i];
			ph[npairs++] = t.human[i];
		}
	if (sheet && (rc = write_sheet(&t, sheet, (size_t)sample, o.seed, &sampled))) goto out;
	if (!t.label && !labels) {
		if (!cli.quiet)
			fprintf(stderr, "%s: %zu of %ld records drawn to %s (%ld without a score, %ld unreadable lines)\n",
			        cli.prog, sampled, t.records, sheet, t.without_score + t.bad_scores, t.unreadable);
		rc = t.unreadable || t.bad_scores ? RAG_EXIT_DATA : RAG_EXIT_OK;
		goto out;
	}

	o.scale_lo = t.lo;
	o.scale_hi = t.hi;
	s = rag_agree_summary(ps, ph, npairs, t.score, t.n, &o);
	s = jv_object_set(s, jv_string("length_bias"), length_bias(&t));
	s = jv_object_merge(summary_meta(&t, labels, duplicates, sheet, sampled), s);
	if (json) {
		jv d = jv_dump_string(jv_copy(s), 0);
		text = rag_xasprintf("%s\n", jv_string_value(d));
		jv_free(d);
	} else {
		text = markdown ? rag_agree_markdown(s) : rag_agree_text(s);
	}
	if ((rc = rag_cli_write(&cli, stdout, NULL, text))) goto out;
	if (!npairs) {
		rag_msg(cli.prog, "error", "no record has both a score (%s) and a label (%s)", t.field, t.label ? t.label : labels);
		rc = RAG_EXIT_DATA;
	} else {
		rc = t.unreadable || t.bad_scores || t.bad_labels ? RAG_EXIT_DATA : RAG_EXIT_OK;
	}

out:
	if (fclose(stdout) != 0 && errno != EPIPE && rc <= RAG_EXIT_FAIL) {
		rag_msg(cli.prog, "error", "cannot write output: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	free(text);
	free(field);
	free(marks_name);
	free(input_name);
	jv_free(s);
	free(ps);
	free(ph);
	for (i = 0; i < t.n; i++) free(t.category[i]);
	free(t.category);
	free(t.score);
	free(t.human);
	free(t.len);
	jv_free(t.rows);
	jv_free(t.labels);
	jv_free(t.label_line);
	jv_free(t.used);
	rag_cli_free(&cli);
	return rc;
misuse:
	rc = rag_cli_misuse(&cli);
	goto out;
}
