/* stats.c - the numbers a quality gate decides on: summaries of a metric's scores and the
 * paired bootstrap for the difference between two runs.
 *
 * Everything here must give the same answer on every machine for the same input and seed, so
 * that a CI gate does not flip between runs: the generator is our own (xoshiro256**, seeded with
 * splitmix64; integer arithmetic only), draws use rejection rather than a modulo with its bias,
 * and sums run in a fixed order. */
#include "base.h"
#include "gate.h"

#include <math.h>
#include <stdlib.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rag_rng_seed(rag_rng *r, uint64_t seed)
{
	int i;
	for (i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

RAG_UNITTEST uint64_t rag_rng_next(rag_rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint64_t rag_rng_below(rag_rng *r, uint64_t n)
{
	/* the largest multiple of n that fits: values at or above it would favour small results */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
	do x = rag_rng_next(r);
	while (x >= limit);
	return x % n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void rag_stats_sort(double *x, size_t n)
{
	if (n > 1) qsort(x, n, sizeof *x, cmp_double);
}

double rag_stats_mean(const double *x, size_t n)
{
	double sum = 0;
	size_t i;
	if (!n) return NAN;
	for (i = 0; i < n; i++) sum += x[i];
	return sum / (double)n;
}

size_t rag_stats_rank(size_t n, double p, double *f)
{
	double h;
	size_t i;
	*f = 0;
	if (!n || p <= 0) return 0;
	if (p >= 1) return n - 1;
	h = (double)(n - 1) * p;
	i = (size_t)h;
	*f = h - (double)i;
	return i;
}

double rag_stats_quantile(const double *sorted, size_t n, double p)
{
	double f;
	size_t i = rag_stats_rank(n, p, &f);
	if (!n) return NAN;
	if (i + 1 >= n || f == 0) return sorted[i];
	return sorted[i] + f * (sorted[i + 1] - sorted[i]);
}

void rag_stats_summary(double *x, size_t n, rag_summary *s)
{
	s->n = n;
	s->mean = rag_stats_mean(x, n);
	rag_stats_sort(x, n);
	s->min = n ? x[0] : NAN;
	s->max = n ? x[n - 1] : NAN;
	s->median = rag_stats_quantile(x, n, 0.5);
	s->p10 = rag_stats_quantile(x, n, 0.1);
}

int rag_stats_bootstrap(const double *d, size_t n, int resamples, double confidence, uint64_t seed,
                        double *lo, double *hi)
{
	rag_rng r;
	double *means, alpha = (1 - confidence) / 2;
	int b;
	size_t i;

	*lo = *hi = NAN;
	if (!n || resamples < 1 || !(confidence > 0 && confidence < 1)) return -1;
	means = rag_xmalloc((size_t)resamples * sizeof *means);
	rag_rng_seed(&r, seed);
	for (b = 0; b < resamples; b++) {
		double sum = 0;
		for (i = 0; i < n; i++) sum += d[rag_rng_below(&r, n)];
		means[b] = sum / (double)n;
	}
	rag_stats_sort(means, (size_t)resamples);
	*lo = rag_stats_quantile(means, (size_t)resamples, alpha);
	*hi = rag_stats_quantile(means, (size_t)resamples, 1 - alpha);
	free(means);
	return 0;
}
