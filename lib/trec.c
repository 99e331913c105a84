/* trec.c - TREC qrels and run files, read into one ranked list per query the way trec_eval
 * ranks them: by score descending, ties by document id descending (the rank column is ignored);
 * an unjudged document is not relevant. */
#include "base.h"
#include "rank.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct judged { char *qid, *doc; double rel; } judged;
typedef struct ranked { char *qid, *doc; double score; size_t line; } ranked;

typedef struct query {
	char *qid;
	double *gain; size_t n;
	double *ideal; size_t nideal;
} query;

struct rag_trec {
	char *qtext, *rtext;      /* the files; the strings below point into them */
	judged *j; size_t nj;
	ranked *r; size_t nr;
	query *q; size_t nq;
};

/* Split text into lines of whitespace-separated fields, in place. Calls fn for each non-blank
 * line with its fields; fn returns 0 or -1 (err set). */
static int each_line(char *text, const char *name, int want, int (*fn)(void *, char **, int, size_t, char *, size_t),
                     void *arg, char *err, size_t errlen)
{
	char *line = text, *next, *f[8];
	size_t lineno = 0;
	for (; line && *line; line = next) {
		int nf = 0;
		char *p, *save = NULL;
		next = strchr(line, '\n');
		if (next) *next++ = 0;
		lineno++;
		for (p = strtok_r(line, " \t\r", &save); p; p = strtok_r(NULL, " \t\r", &save)) {
			if (nf == 8) break;
			f[nf++] = p;
		}
		if (nf == 0) continue;
		if (nf < want) {
			snprintf(err, errlen, "%s:%zu: expected %d fields, found %d", name, lineno, want, nf);
			return -1;
		}
		if (fn(arg, f, nf, lineno, err, errlen) < 0) {
			size_t l = strlen(err);
			char tmp[RAG_ERRLEN];
			snprintf(tmp, sizeof tmp, "%s:%zu: %s", name, lineno, err);
			snprintf(err, errlen, "%s", tmp);
			(void)l;
			return -1;
		}
	}
	return 0;
}

static int number(const char *s, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(s, &end);
	return end != s && !*end && errno == 0;
}

static int add_judged(void *arg, char **f, int nf, size_t lineno, char *err, size_t errlen)
{
	rag_trec *t = arg;
	double rel;
	if (!number(f[3], &rel)) {
		snprintf(err, errlen, "relevance \"%.40s\" is not a number", f[3]);
		return -1;
	}
	if ((t->nj & (t->nj - 1)) == 0) t->j = rag_xrealloc(t->j, (t->nj ? t->nj * 2 : 1) * sizeof *t->j);
	t->j[t->nj].qid = f[0];
	t->j[t->nj].doc = f[2];
	t->j[t->nj].rel = rel;
	t->nj++;
	return 0;
}

static int add_ranked(void *arg, char **f, int nf, size_t lineno, char *err, size_t errlen)
{
	rag_trec *t = arg;
	double score;
	if (!number(f[4], &score)) {
		snprintf(err, errlen, "score \"%.40s\" is not a number", f[4]);
		return -1;
	}
	if ((t->nr & (t->nr - 1)) == 0) t->r = rag_xrealloc(t->r, (t->nr ? t->nr * 2 : 1) * sizeof *t->r);
	t->r[t->nr].qid = f[0];
	t->r[t->nr].doc = f[2];
	t->r[t->nr].score = score;
	t->r[t->nr].line = lineno;
	t->nr++;
	return 0;
}

static int cmp_judged(const void *a, const void *b)
{
	const judged *x = a, *y = b;
	int c = strcmp(x->qid, y->qid);
	return c ? c : strcmp(x->doc, y->doc);
}

static int cmp_ranked(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	int c = strcmp(x->qid, y->qid);
	if (c) return c;
	if (x->score != y->score) return x->score > y->score ? -1 : 1;
	return strcmp(y->doc, x->doc);
}

static const judged *find(const rag_trec *t, const char *qid, const char *doc)
{
	judged key = {(char *)qid, (char *)doc, 0};
	return t->nj ? bsearch(&key, t->j, t->nj, sizeof *t->j, cmp_judged) : NULL;
}

static int cmp_doc(const void *a, const void *b)
{
	return strcmp((*(const ranked *const *)a)->doc, (*(const ranked *const *)b)->doc);
}

/* A document ranked twice for one query would count twice: refused, as trec_eval does. */
static int twice(const ranked *r, size_t n, const char *run, char *err, size_t errlen)
{
	const ranked **p = rag_xmalloc((n ? n : 1) * sizeof *p);
	size_t i;
	int bad = 0;
	for (i = 0; i < n; i++) p[i] = &r[i];
	qsort(p, n, sizeof *p, cmp_doc);
	for (i = 1; i < n && !bad; i++) {
		if (strcmp(p[i]->doc, p[i - 1]->doc) == 0) {
			snprintf(err, errlen, "%s:%zu: document \"%.60s\" is ranked twice for query \"%.40s\"", run,
			         p[i]->line > p[i - 1]->line ? p[i]->line : p[i - 1]->line, p[i]->doc, p[i]->qid);
			bad = 1;
		}
	}
	free(p);
	return bad;
}

rag_trec *rag_trec_load(const char *qrels, const char *run, char *err, size_t errlen)
{
	rag_trec *t = rag_xmalloc(sizeof *t);
	size_t i, k;
	memset(t, 0, sizeof *t);
	if (!(t->qtext = rag_read_file(qrels, NULL, err, errlen)) || !(t->rtext = rag_read_file(run, NULL, err, errlen)))
		goto fail;
	if (each_line(t->qtext, qrels, 4, add_judged, t, err, errlen) < 0) goto fail;
	if (each_line(t->rtext, run, 5, add_ranked, t, err, errlen) < 0) goto fail;
	qsort(t->j, t->nj, sizeof *t->j, cmp_judged);
	for (i = 1; i < t->nj; i++) {
		if (cmp_judged(&t->j[i - 1], &t->j[i]) == 0) {
			snprintf(err, errlen, "%s: document \"%.60s\" is judged twice for query \"%.40s\"", qrels,
			         t->j[i].doc, t->j[i].qid);
			goto fail;
		}
	}
	qsort(t->r, t->nr, sizeof *t->r, cmp_ranked);
	/* one query per qid of the run that has judgments too (as trec_eval without -c) */
	for (i = 0; i < t->nr; i = k) {
		const char *qid = t->r[i].qid;
		size_t a, b, m;
		query *q;
		for (k = i; k < t->nr && strcmp(t->r[k].qid, qid) == 0; k++) {}
		if (twice(t->r + i, k - i, run, err, errlen)) goto fail;
		/* the judged documents of qid: a run of the sorted qrels */
		for (a = 0, b = t->nj; a < b;) {
			m = (a + b) / 2;
			if (strcmp(t->j[m].qid, qid) < 0) a = m + 1;
			else b = m;
		}
		for (b = a; b < t->nj && strcmp(t->j[b].qid, qid) == 0; b++) {}
		if (a == b) continue;
		t->q = rag_xrealloc(t->q, (t->nq + 1) * sizeof *t->q);
		q = &t->q[t->nq++];
		q->qid = (char *)qid;
		q->n = k - i;
		q->gain = rag_xmalloc(q->n * sizeof *q->gain);
		for (m = 0; m < q->n; m++) {
			const judged *jd = find(t, qid, t->r[i + m].doc);
			q->gain[m] = jd ? jd->rel : 0;
		}
		q->nideal = b - a;
		q->ideal = rag_xmalloc(q->nideal * sizeof *q->ideal);
		for (m = 0; m < q->nideal; m++) q->ideal[m] = t->j[a + m].rel;
	}
	return t;
fail:
	rag_trec_free(t);
	return NULL;
}

size_t rag_trec_count(const rag_trec *t) { return t->nq; }
const char *rag_trec_qid(const rag_trec *t, size_t i) { return t->q[i].qid; }

void rag_trec_list(const rag_trec *t, size_t i, double level, rag_rank_list *l)
{
	l->gain = t->q[i].gain;
	l->n = t->q[i].n;
	l->ideal = t->q[i].ideal;
	l->nideal = t->q[i].nideal;
	l->level = level;
}

void rag_trec_free(rag_trec *t)
{
	size_t i;
	if (!t) return;
	for (i = 0; i < t->nq; i++) {
		free(t->q[i].gain);
		free(t->q[i].ideal);
	}
	free(t->q);
	free(t->j);
	free(t->r);
	free(t->qtext);
	free(t->rtext);
	free(t);
}
