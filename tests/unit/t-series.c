/* t-series.c - series.c, scores within a memory budget: the summary of a series is the bytes
 * rag_stats_summary gives on its whole array whether its numbers stayed in memory, went to the
 * temporary file and were loaded back, or were too many to load and were found by radix
 * selection; ties, negative numbers, one number, an append (a group's "(none)"), a series that
 * keeps only its figures, the numbers in their order (the bootstrap's), a temporary directory
 * that cannot be written (memory it stays) and a file that cannot grow (an error, no summary). */
#include "base.h"
#include "gate.h"
#include "tap.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static uint64_t seed = 42;
static double draw(int kind)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	switch (kind) {
	case 0: return (double)(seed >> 11) / 9007199254740992.0;     /* [0, 1), all distinct */
	case 1: return (double)((seed >> 33) % 5) / 4;                /* 0, .25, .5, .75, 1: ties */
	default: return ((double)(seed >> 11) / 9007199254740992.0 - 0.5) * 1e3;   /* negative too */
	}
}

static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* the summary of series i of s against rag_stats_summary on want[0..n) */
static void against(rag_series *s, size_t i, double *want, size_t n, const char *what)
{
	rag_summary got, ref;
	double mean = rag_stats_mean(want, n);
	int rc = rag_series_summary(s, i, &got);
	rag_stats_summary(want, n, &ref);
	ok(rc == 0 && got.n == n && same(got.mean, mean) && same(got.median, ref.median) && same(got.p10, ref.p10) &&
	   same(got.min, ref.min) && same(got.max, ref.max),
	   "%s: n %zu, mean %.17g, median %.17g, p10 %.17g, min %g, max %g", what, n, got.mean, got.median, got.p10,
	   got.min, got.max);
	if (!(rc == 0 && same(got.median, ref.median) && same(got.p10, ref.p10)))
		printf("#   want median %.17g p10 %.17g mean %.17g\n", ref.median, ref.p10, mean);
}

/* nseries series of n numbers each of a kind, pushed interleaved into a set of this budget */
static void round_trip(size_t budget, size_t nser, size_t n, int kind, const char *what)
{
	rag_series *s = rag_series_new(budget);
	double **want = rag_xmalloc(nser * sizeof *want);
	size_t i, k;
	char name[200];
	for (i = 0; i < nser; i++) {
		rag_series_open(s, 1);
		want[i] = rag_xmalloc(n * sizeof **want);
	}
	for (k = 0; k < n; k++)
		for (i = 0; i < nser; i++) rag_series_push(s, i, want[i][k] = draw(kind));
	for (i = 0; i < nser; i++) {
		snprintf(name, sizeof name, "%s, series %zu", what, i);
		against(s, i, want[i], n, name);
		free(want[i]);
	}
	ok(!rag_series_error(s), "%s: no error", what);
	free(want);
	rag_series_free(s);
}

int main(void)
{
	rag_series *s;
	double v[5000], *got;
	size_t i, n, a, b, c;
	const long *h;

	/* in memory, in the file and loaded back (each series fits the budget), in the file and too
	 * long to load (radix selection) */
	round_trip(1 << 20, 3, 1000, 0, "in memory");
	round_trip(4096, 3, 1000, 0, "loaded back from the file");
	round_trip(64, 3, 1000, 0, "selected from the file");
	round_trip(64, 2, 1000, 1, "selected, ties");
	round_trip(64, 2, 999, 2, "selected, negative numbers, an odd count");
	round_trip(64, 1, 1, 0, "selected, one number");
	round_trip(64, 1, 2, 2, "selected, two numbers");
	round_trip(4096, 40, 100, 0, "loaded back, several passes");

	/* an append: "(none)" gets the run's numbers so far, then its own */
	s = rag_series_new(256);
	a = rag_series_open(s, 1);
	for (i = 0; i < 100; i++) rag_series_push(s, a, v[i] = draw(0));
	b = rag_series_open(s, 1);
	rag_series_append(s, b, a);
	for (i = 100; i < 200; i++) rag_series_push(s, b, v[i] = draw(0));
	got = rag_series_values(s, b, &n);
	ok(got && n == 200 && !memcmp(got, v, 200 * sizeof *v), "the appended series' numbers in their order (%zu)", n);
	free(got);
	against(s, b, v, 200, "appended from the file, then more");
	rag_series_free(s);
	s = rag_series_new(1 << 20);
	a = rag_series_open(s, 1);
	for (i = 0; i < 100; i++) rag_series_push(s, a, v[i] = draw(1));
	b = rag_series_open(s, 1);
	rag_series_append(s, b, a);
	against(s, b, v, 100, "appended in memory");
	rag_series_free(s);

	/* an empty series beside others in the file (a metric every record has null): NANs */
	s = rag_series_new(64);
	a = rag_series_open(s, 1);
	b = rag_series_open(s, 1);
	for (i = 0; i < 100; i++) rag_series_push(s, a, draw(0));
	{
		rag_summary e;
		ok(rag_series_summary(s, b, &e) == 0 && e.n == 0 && isnan(e.mean) && isnan(e.median) && isnan(e.p10) &&
		   isnan(e.min), "an empty series in the file: n 0, every figure NAN");
	}
	rag_series_free(s);

	/* figures only: the mean, the count and the histogram without the numbers */
	s = rag_series_new(0);
	c = rag_series_open(s, 0);
	rag_series_push(s, c, 0.05);
	rag_series_push(s, c, 1.0);
	rag_series_push(s, c, 1.5);
	rag_series_push(s, c, -0.2);
	rag_series_push(s, c, 0.35);
	h = rag_series_histogram(s, c);
	ok(h[0] == 2 && h[3] == 1 && h[9] == 2, "histogram: below 0 in the first bin, 1.0 and above in the last");
	ok(rag_series_count(s, c) == 5 && fabs(rag_series_mean(s, c) - 0.54) < 1e-12, "count 5, mean 0.54");
	ok(!rag_series_values(s, c, &n) && n == 0, "a series not kept has no numbers to give");
	rag_series_free(s);
	s = rag_series_new(0);
	ok(isnan(rag_series_mean(s, rag_series_open(s, 1))), "an empty series' mean is NAN");
	rag_series_free(s);

	/* a temporary directory that cannot be written: the numbers stay in memory, right */
	setenv("TMPDIR", "/nonexistent/ragpipe", 1);
	s = rag_series_new(64);
	a = rag_series_open(s, 1);
	for (i = 0; i < 1000; i++) rag_series_push(s, a, v[i] = draw(0));
	against(s, a, v, 1000, "no temporary file: in memory");
	ok(!rag_series_error(s), "no temporary file: no error");
	rag_series_free(s);
	unsetenv("TMPDIR");

	/* a file that cannot grow (RLIMIT_FSIZE, as a full disk): an error and no summary */
	{
		struct rlimit old, lim;
		rag_summary sum;
		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &old);
		lim = old;
		lim.rlim_cur = 4096;
		setrlimit(RLIMIT_FSIZE, &lim);
		s = rag_series_new(64);
		a = rag_series_open(s, 1);
		for (i = 0; i < 5000; i++) rag_series_push(s, a, draw(0));
		ok(rag_series_summary(s, a, &sum) == -1, "a file that cannot grow: no summary");
		ok(rag_series_error(s) && strstr(rag_series_error(s), "temporary file"), "and the error says so: %s",
		   rag_series_error(s) ? rag_series_error(s) : "(none)");
		ok(!rag_series_values(s, a, &n), "nor numbers");
		rag_series_free(s);
		setrlimit(RLIMIT_FSIZE, &old);
	}
	return done_testing();
}
