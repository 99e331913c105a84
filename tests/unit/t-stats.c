/* t-stats.c - the gate's numbers: quantiles, summaries, the generator, the bootstrap. */
#include "gate.h"
#include "tap.h"

#include <stdlib.h>

int main(void)
{
	double x[10], y[10], one[1] = {0.7}, lo, hi, lo2, hi2;
	double d[200];
	rag_summary s;
	rag_rng r, r2;
	int i, same = 1, inrange = 1, hit[5] = {0};

	/* type 7 against R: quantile(1:10, c(.1, .5, .25)) = 1.9, 5.5, 3.25 */
	for (i = 0; i < 10; i++) x[i] = 10 - i;      /* unsorted on purpose */
	rag_stats_summary(x, 10, &s);
	is_int(s.n, 10, "summary n");
	is_num(s.mean, 5.5, 1e-12, "mean of 1..10");
	is_num(s.median, 5.5, 1e-12, "median of 1..10 (even n: halfway)");
	is_num(s.p10, 1.9, 1e-12, "p10 of 1..10 is 1.9 (type 7)");
	is_num(s.min, 1, 0, "min");
	is_num(s.max, 10, 0, "max");
	ok(x[0] == 1 && x[9] == 10, "summary sorts in place");
	is_num(rag_stats_quantile(x, 10, 0.25), 3.25, 1e-12, "first quartile 3.25");
	is_num(rag_stats_quantile(x, 10, 0), 1, 0, "p0 is the minimum");
	is_num(rag_stats_quantile(x, 10, 1), 10, 0, "p1 is the maximum");
	rag_stats_summary(one, 1, &s);
	ok(s.mean == 0.7 && s.median == 0.7 && s.p10 == 0.7 && s.min == 0.7, "one value: all statistics are it");
	rag_stats_summary(y, 0, &s);
	ok(s.n == 0 && isnan(s.mean) && isnan(s.median) && isnan(s.p10) && isnan(s.min), "no values: NANs, not zeros");
	/* odd n: the middle value exactly; p10 of 11 values is the second smallest */
	{
		double z[11];
		for (i = 0; i < 11; i++) z[i] = i / 10.0;
		rag_stats_summary(z, 11, &s);
		is_num(s.median, 0.5, 1e-12, "odd n: median is the middle value");
		is_num(s.p10, 0.1, 1e-12, "p10 of 0, 0.1 .. 1.0 is 0.1");
	}

	/* the generator: the published algorithm, so the same numbers everywhere */
	rag_rng_seed(&r, 42);
	ok(rag_rng_next(&r) == 0x15780b2e0c2ec716ULL, "xoshiro256** from splitmix64(42): first output");
	ok(rag_rng_next(&r) == 0x6104d9866d113a7eULL, "second output");
	ok(rag_rng_next(&r) == 0xae17533239e499a1ULL, "third output");
	rag_rng_seed(&r, 7);
	rag_rng_seed(&r2, 7);
	for (i = 0; i < 1000; i++) {
		uint64_t a = rag_rng_below(&r, 5), b = rag_rng_below(&r2, 5);
		same &= a == b;
		inrange &= a < 5;
		if (a < 5) hit[a]++;
	}
	ok(same, "same seed, same draws");
	ok(inrange, "draws below n");
	ok(hit[0] > 150 && hit[1] > 150 && hit[2] > 150 && hit[3] > 150 && hit[4] > 150, "every value drawn about equally (%d %d %d %d %d)",
	   hit[0], hit[1], hit[2], hit[3], hit[4]);
	is_int(rag_rng_below(&r, 1), 0, "below 1 is 0");

	/* bootstrap */
	for (i = 0; i < 200; i++) d[i] = (i % 10) / 10.0 - 0.5;      /* mean -0.05 */
	ok(rag_stats_bootstrap(d, 200, 1000, 0.95, 1, &lo, &hi) == 0, "bootstrap runs");
	ok(lo < -0.05 && hi > -0.05, "interval holds the mean (%g .. %g)", lo, hi);
	ok(hi - lo < 0.2 && hi - lo > 0.02, "interval width plausible for n=200, sd 0.29 (%g)", hi - lo);
	rag_stats_bootstrap(d, 200, 1000, 0.95, 1, &lo2, &hi2);
	ok(lo == lo2 && hi == hi2, "same seed: the same interval, bit for bit");
	rag_stats_bootstrap(d, 200, 1000, 0.95, 2, &lo2, &hi2);
	ok(lo != lo2 || hi != hi2, "another seed: another interval");
	rag_stats_bootstrap(d, 200, 1000, 0.5, 1, &lo2, &hi2);
	ok(lo2 > lo && hi2 < hi, "a lower confidence gives a narrower interval");
	for (i = 0; i < 10; i++) y[i] = -0.25;
	rag_stats_bootstrap(y, 10, 500, 0.95, 1, &lo, &hi);
	ok(lo == -0.25 && hi == -0.25, "constant differences: the interval is that point");
	ok(rag_stats_bootstrap(y, 0, 500, 0.95, 1, &lo, &hi) == -1 && isnan(lo) && isnan(hi), "no pairs: -1 and NANs");
	ok(rag_stats_bootstrap(y, 10, 0, 0.95, 1, &lo, &hi) == -1, "no resamples: -1");
	ok(rag_stats_bootstrap(y, 10, 10, 1, 1, &lo, &hi) == -1, "confidence 1: -1");
	/* pinned: a change in the draws would move every CI a user has recorded */
	rag_stats_bootstrap(d, 200, 1000, 0.95, 1, &lo, &hi);
	is_num(lo, -0.091, 1e-12, "pinned lower bound (seed 1, 1000 resamples)");
	is_num(hi, -0.0105, 1e-12, "pinned upper bound");
	return done_testing();
}
