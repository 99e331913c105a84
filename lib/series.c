/* series.c - the numbers of many series (a metric's scores in the run, in a category, in a group)
 * within a memory budget, for exact summaries of a run of any length.
 *
 * As they come, each series keeps its count, its sum in its numbers' order (rag_stats_mean's
 * order), its least and greatest number and its ten-bin histogram; a series opened to keep its
 * numbers keeps them too: in memory until the arrays of all series take more than the budget,
 * then, all of them, in one temporary file of (series, number) pairs. The summary's median and
 * p10 are then read back from the file: a series that fits in the budget is loaded (several per
 * pass), sorted and summarised as in memory; a longer one's order statistics are found by radix
 * selection on the numbers' bits, eight passes of 256 counters each. Either way the figures are
 * the bytes rag_stats_summary gives on the whole array.
 *
 * The file is created in $TMPDIR (else /tmp) and unlinked at once. When it cannot be created the
 * numbers stay in memory (right, only larger); when a write to it fails the numbers it held are
 * lost, the error is kept (rag_series_error) and no summary is computed from what is left. */
#include "base.h"
#include "gate.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAIR 12                  /* a series index (uint32_t) and a number (double), packed */
#define CHUNK (4096 * PAIR)      /* what a pass reads at a time */

typedef struct series {
	size_t n;
	double sum, min, max;
	long hist[10];
	int keep;
	double *v; size_t nv, cap;  /* in memory, before the file */
	int have; rag_summary s;    /* the summary, until the next number */
} series;

struct rag_series {
	series *v; size_t n, cap;
	size_t budget, used;        /* bytes of the arrays in memory (their capacity) */
	int fd;                     /* the file, -1: none; once there, every kept number is in it */
	FILE *w;
	int nofile;                 /* it could not be created: memory it is */
	char err[200];
};

rag_series *rag_series_new(size_t budget)
{
	rag_series *s = rag_xcalloc(1, sizeof *s);
	s->budget = budget ? budget : (size_t)16 << 20;
	s->fd = -1;
	return s;
}

size_t rag_series_open(rag_series *s, int keep)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = rag_xrealloc(s->v, s->cap * sizeof *s->v);
	}
	memset(&s->v[s->n], 0, sizeof s->v[s->n]);
	s->v[s->n].keep = keep;
	s->v[s->n].min = s->v[s->n].max = NAN;
	return s->n++;
}

static void io_error(rag_series *s, const char *what)
{
	if (!s->err[0]) snprintf(s->err, sizeof s->err, "cannot %s the scores' temporary file: %s", what, strerror(errno));
}

static void put(rag_series *s, size_t i, double x)
{
	unsigned char b[PAIR];
	uint32_t id = (uint32_t)i;
	memcpy(b, &id, 4);
	memcpy(b + 4, &x, 8);
	if (fwrite(b, PAIR, 1, s->w) != 1) io_error(s, "write");
}

/* every number in memory into a new file, in each series' order; 0, or -1 (memory it stays) */
static int spill(rag_series *s)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	size_t i, k;
	if (s->nofile) return -1;
	path = rag_xasprintf("%s/ragpipe-scores-XXXXXX", dir && *dir ? dir : "/tmp");
	s->fd = mkstemp(path);
	if (s->fd >= 0) unlink(path);
	free(path);
	if (s->fd < 0 || !(s->w = fdopen(s->fd, "w"))) {
		if (s->fd >= 0) close(s->fd);
		s->fd = -1;
		s->nofile = 1;
		return -1;
	}
	setvbuf(s->w, NULL, _IOFBF, 1 << 16);
	for (i = 0; i < s->n; i++) {
		series *e = &s->v[i];
		for (k = 0; k < e->nv; k++) put(s, i, e->v[k]);
		free(e->v);
		e->v = NULL;
		e->nv = e->cap = 0;
	}
	s->used = 0;
	return 0;
}

/* room for `more` numbers of series e in memory; 0, or -1 when they go to the file */
static int reserve(rag_series *s, series *e, size_t more)
{
	size_t cap = e->cap;
	if (s->fd >= 0) return -1;
	if (e->nv + more <= cap) return 0;
	while (cap < e->nv + more) cap = cap ? cap * 2 : 64;
	if (s->used - e->cap * sizeof *e->v + cap * sizeof *e->v > s->budget && !spill(s)) return -1;
	s->used = s->used - e->cap * sizeof *e->v + cap * sizeof *e->v;
	e->v = rag_xrealloc(e->v, cap * sizeof *e->v);
	e->cap = cap;
	return 0;
}

/* the running figures of series e with x */
static void tally(series *e, double x)
{
	double b = floor(x * 10);
	if (!e->n || x < e->min) e->min = x;
	if (!e->n || x > e->max) e->max = x;
	e->n++;
	e->sum += x;
	e->hist[b < 0 ? 0 : b > 9 ? 9 : (int)b]++;
	e->have = 0;
}

void rag_series_push(rag_series *s, size_t i, double x)
{
	series *e = &s->v[i];
	tally(e, x);
	if (!e->keep) return;
	if (!reserve(s, e, 1)) e->v[e->nv++] = x;
	else put(s, i, x);
}

size_t rag_series_count(const rag_series *s, size_t i)
{
	return s->v[i].n;
}

double rag_series_mean(const rag_series *s, size_t i)
{
	return s->v[i].n ? s->v[i].sum / (double)s->v[i].n : NAN;
}

const long *rag_series_histogram(const rag_series *s, size_t i)
{
	return s->v[i].hist;
}

const char *rag_series_error(const rag_series *s)
{
	return s->err[0] ? s->err : NULL;
}

/* One pass over the file: each(pair's series, number, arg). -1 on a read error. */
static int pass(rag_series *s, void (*each)(size_t, double, void *), void *arg)
{
	unsigned char *buf;
	off_t off = 0, end;
	if (fflush(s->w) != 0) {
		io_error(s, "write");
		return -1;
	}
	if ((end = lseek(s->fd, 0, SEEK_END)) < 0) {
		io_error(s, "read");
		return -1;
	}
	buf = rag_xmalloc(CHUNK);
	while (off < end) {
		size_t want = (size_t)(end - off) < CHUNK ? (size_t)(end - off) : CHUNK, k;
		ssize_t got = pread(s->fd, buf, want, off);
		if (got <= 0 || got % PAIR) {
			if (got >= 0) errno = EIO;
			io_error(s, "read");
			free(buf);
			return -1;
		}
		for (k = 0; k < (size_t)got; k += PAIR) {
			uint32_t id;
			double x;
			memcpy(&id, buf + k, 4);
			memcpy(&x, buf + k + 4, 8);
			each(id, x, arg);
		}
		off += got;
	}
	free(buf);
	return 0;
}

typedef struct copy_arg { rag_series *s; size_t to, from; } copy_arg;

static void copy_one(size_t id, double x, void *arg)
{
	copy_arg *a = arg;
	if (id == a->from) rag_series_push(a->s, a->to, x);
}

void rag_series_append(rag_series *s, size_t to, size_t from)
{
	series *f = &s->v[from], *e = &s->v[to];
	size_t k;
	if (!f->keep) {
		/* only its figures: the sum is added whole */
		for (k = 0; k < 10; k++) e->hist[k] += f->hist[k];
		if (f->n && (!e->n || f->min < e->min)) e->min = f->min;
		if (f->n && (!e->n || f->max > e->max)) e->max = f->max;
		e->n += f->n;
		e->sum += f->sum;
		e->have = 0;
		return;
	}
	/* room first, so that no number moves to the file half way */
	if (s->fd < 0 && (!e->keep || !reserve(s, e, f->nv))) {
		for (k = 0; k < s->v[from].nv; k++) rag_series_push(s, to, s->v[from].v[k]);
	} else if (!s->err[0]) {
		copy_arg a = {s, to, from};
		pass(s, copy_one, &a);
	}
}

/* ---------------------------------------------------------------- summaries from the file */
/* the numbers' order as unsigned integers: -inf < ... < -0 < +0 < ... < +inf */
static uint64_t key_of(double x)
{
	uint64_t u;
	memcpy(&u, &x, 8);
	return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static double of_key(uint64_t k)
{
	uint64_t u = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
	double x;
	memcpy(&x, &u, 8);
	return x;
}

/* an order statistic of a series too long to load: the rank, and the key's bits found so far */
typedef struct target { size_t series, rank; uint64_t prefix; long count[256]; double x; } target;

typedef struct batch {
	rag_series *s;
	long *slot;                 /* per series: its index in arrays (loading) or its first target */
	size_t *ntarget;            /* per series: its targets (selecting) */
	double **arr; size_t *len;  /* loading */
	target *t; int digit;       /* selecting: digit 0 is the key's top byte */
} batch;

static void load_one(size_t id, double x, void *arg)
{
	batch *b = arg;
	long k = id < b->s->n ? b->slot[id] : -1;
	if (k >= 0) b->arr[k][b->len[k]++] = x;
}

static void count_one(size_t id, double x, void *arg)
{
	batch *b = arg;
	long k = id < b->s->n ? b->slot[id] : -1;
	size_t j;
	uint64_t key;
	if (k < 0) return;
	key = key_of(x);
	for (j = 0; j < b->ntarget[id]; j++) {
		target *t = &b->t[(size_t)k + j];
		if (b->digit && key >> (64 - 8 * b->digit) != t->prefix) continue;
		t->count[(key >> (56 - 8 * b->digit)) & 255]++;
	}
}

/* the quantile p of sorted numbers from two order statistics, as rag_stats_quantile */
static double quantile2(size_t n, double p, double lo, double hi)
{
	double f;
	size_t i = rag_stats_rank(n, p, &f);
	return i + 1 >= n || f == 0 ? lo : lo + f * (hi - lo);
}

static const double probs[2] = {0.5, 0.1};

/* the ranks series e's summary needs (up to 4) */
static size_t ranks_of(const series *e, size_t *r)
{
	size_t k, n = 0;
	for (k = 0; k < 2; k++) {
		double f;
		size_t i = rag_stats_rank(e->n, probs[k], &f);
		r[n++] = i;
		r[n++] = i + 1 < e->n ? i + 1 : i;
	}
	return n;
}

static void finish(series *e, const double *sorted)
{
	e->s.n = e->n;
	e->s.mean = e->n ? e->sum / (double)e->n : NAN;
	e->s.min = e->min;
	e->s.max = e->max;
	if (sorted) {
		e->s.median = rag_stats_quantile(sorted, e->n, 0.5);
		e->s.p10 = rag_stats_quantile(sorted, e->n, 0.1);
	}
	e->have = 1;
}

/* Series that fit load together, as many as the budget holds a pass. */
static int summarise_loaded(rag_series *s, batch *b)
{
	size_t i = 0, j, k;
	while (i < s->n) {
		size_t room = s->budget, na = 0;
		for (j = 0; j < s->n; j++) b->slot[j] = -1;
		for (j = i; j < s->n; j++) {
			series *e = &s->v[j];
			if (!e->keep || e->have || !e->n || e->n > s->budget / sizeof(double)) continue;
			if (e->n * sizeof(double) > room) break;
			room -= e->n * sizeof(double);
			b->slot[j] = (long)na;
			b->arr[na] = rag_xmalloc(e->n * sizeof(double));
			b->len[na++] = 0;
		}
		i = j;
		if (!na) break;
		if (pass(s, load_one, b)) {
			for (k = 0; k < na; k++) free(b->arr[k]);
			return -1;
		}
		for (j = 0; j < s->n; j++) {
			if (b->slot[j] < 0) continue;
			k = (size_t)b->slot[j];
			rag_stats_sort(b->arr[k], b->len[k]);
			finish(&s->v[j], b->arr[k]);
			free(b->arr[k]);
		}
	}
	return 0;
}

/* Series too long to load: their order statistics by radix selection, all in the same passes. */
static int summarise_selected(rag_series *s, batch *b)
{
	size_t i, j, k, nt = 0;
	for (i = 0; i < s->n; i++) {
		series *e = &s->v[i];
		b->slot[i] = -1;
		b->ntarget[i] = 0;
		if (e->keep && !e->have && e->n) {
			size_t r[4], n = ranks_of(e, r);
			b->slot[i] = (long)nt;
			b->ntarget[i] = n;
			b->t = rag_xrealloc(b->t, (nt + n) * sizeof *b->t);
			for (k = 0; k < n; k++) {
				memset(&b->t[nt + k], 0, sizeof b->t[nt + k]);
				b->t[nt + k].series = i;
				b->t[nt + k].rank = r[k];
			}
			nt += n;
		}
	}
	if (!nt) return 0;
	for (b->digit = 0; b->digit < 8; b->digit++) {
		for (k = 0; k < nt; k++) memset(b->t[k].count, 0, sizeof b->t[k].count);
		if (pass(s, count_one, b)) return -1;
		for (k = 0; k < nt; k++) {
			target *t = &b->t[k];
			size_t below = 0;
			for (j = 0; j < 255 && below + (size_t)t->count[j] <= t->rank; j++) below += (size_t)t->count[j];
			t->rank -= below;
			t->prefix = t->prefix << 8 | j;
		}
	}
	for (i = 0; i < s->n; i++) {
		series *e = &s->v[i];
		const target *t;
		if (b->slot[i] < 0) continue;
		t = &b->t[b->slot[i]];
		finish(e, NULL);
		e->s.median = quantile2(e->n, probs[0], of_key(t[0].prefix), of_key(t[1].prefix));
		e->s.p10 = quantile2(e->n, probs[1], of_key(t[2].prefix), of_key(t[3].prefix));
	}
	return 0;
}

int rag_series_summary(rag_series *s, size_t i, rag_summary *out)
{
	series *e = &s->v[i];
	memset(out, 0, sizeof *out);
	if (s->err[0]) return -1;
	if (!e->have) {
		if (!e->n || !e->keep) {
			finish(e, NULL);
			e->s.median = e->s.p10 = NAN;   /* empty, or not kept: no order statistics */
		} else if (s->fd < 0) {
			rag_stats_sort(e->v, e->nv);   /* in place, as rag_stats_summary */
			finish(e, e->v);
		} else {
			/* every series from the file at once: one summary is asked after another */
			batch b;
			int rc;
			memset(&b, 0, sizeof b);
			b.s = s;
			b.slot = rag_xmalloc((s->n + 1) * sizeof *b.slot);
			b.ntarget = rag_xcalloc(s->n + 1, sizeof *b.ntarget);
			b.arr = rag_xmalloc((s->n + 1) * sizeof *b.arr);
			b.len = rag_xmalloc((s->n + 1) * sizeof *b.len);
			rc = summarise_loaded(s, &b);
			if (!rc) rc = summarise_selected(s, &b);
			free(b.slot);
			free(b.ntarget);
			free(b.arr);
			free(b.len);
			free(b.t);
			if (rc) return -1;
		}
	}
	*out = e->s;
	return 0;
}

double *rag_series_values(rag_series *s, size_t i, size_t *n)
{
	series *e = &s->v[i];
	double *v;
	*n = 0;
	if (s->err[0] || !e->keep) return NULL;
	v = rag_xmalloc((e->n ? e->n : 1) * sizeof *v);
	if (s->fd < 0) {
		memcpy(v, e->v, e->nv * sizeof *v);
		*n = e->nv;
		return v;
	}
	{
		batch b;
		size_t len = 0;
		long *slot = rag_xmalloc(s->n * sizeof *slot), k;
		for (k = 0; k < (long)s->n; k++) slot[k] = -1;
		slot[i] = 0;
		memset(&b, 0, sizeof b);
		b.s = s;
		b.slot = slot;
		b.arr = &v;
		b.len = &len;
		if (pass(s, load_one, &b)) {
			free(slot);
			free(v);
			return NULL;
		}
		free(slot);
		*n = len;
	}
	return v;
}

void rag_series_free(rag_series *s)
{
	size_t i;
	if (!s) return;
	for (i = 0; i < s->n; i++) free(s->v[i].v);
	free(s->v);
	if (s->w) fclose(s->w);
	free(s);
}
