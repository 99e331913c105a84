/* rate.c - requests and tokens per minute, over a sliding window of the last 60 seconds. */
#include "base.h"
#include "llm.h"

#include <stdlib.h>

static void prune(rag_rate *r, double now)
{
	size_t i = 0, j;
	while (i < r->n && now - r->evs[i].t >= 60.0) i++;
	if (i) {
		for (j = i; j < r->n; j++) r->evs[j - i] = r->evs[j];
		r->n -= i;
	}
}

double rag_rate_wait(rag_rate *r, long tokens, double now)
{
	long sum = 0;
	size_t i;
	if (r->rpm <= 0 && r->tpm <= 0) return 0;
	prune(r, now);
	if (r->rpm > 0 && (double)r->n >= r->rpm)
		return 60.0 - (now - r->evs[(size_t)(r->n - (size_t)r->rpm)].t);
	if (r->tpm > 0 && r->n > 0) {
		for (i = 0; i < r->n; i++) sum += r->evs[i].tokens;
		if ((double)(sum + tokens) > r->tpm) {
			/* until enough of the oldest starts have left the window */
			for (i = 0; i < r->n; i++) {
				sum -= r->evs[i].tokens;
				if ((double)(sum + tokens) <= r->tpm || i == r->n - 1)
					return 60.0 - (now - r->evs[i].t);
			}
		}
	}
	return 0;
}

void rag_rate_note(rag_rate *r, long tokens, double now)
{
	if (r->rpm <= 0 && r->tpm <= 0) return;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->evs = rag_xrealloc(r->evs, r->cap * sizeof *r->evs);
	}
	r->evs[r->n].t = now;
	r->evs[r->n].tokens = tokens;
	r->n++;
}

void rag_rate_free(rag_rate *r)
{
	free(r->evs);
	r->evs = NULL;
	r->n = r->cap = 0;
}
