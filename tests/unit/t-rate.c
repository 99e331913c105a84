/* rate.c: the per-minute limits, on a clock the test controls. */
#include "llm.h"
#include "tap.h"

int main(void)
{
	rag_rate r = {0};
	double t;
	int started = 0;

	is_num(rag_rate_wait(&r, 1000, 0), 0, 1e-9, "no limits: never wait");

	r.rpm = 3;
	rag_rate_note(&r, 10, 0.0);
	rag_rate_note(&r, 10, 1.0);
	is_num(rag_rate_wait(&r, 10, 2.0), 0, 1e-9, "rpm 3: a third request may start");
	rag_rate_note(&r, 10, 2.0);
	is_num(rag_rate_wait(&r, 10, 2.5), 57.5, 1e-9, "rpm 3: the fourth waits until the first leaves the window");
	is_num(rag_rate_wait(&r, 10, 60.0), 0, 1e-9, "rpm 3: at t=60 the first has left");
	rag_rate_free(&r);

	/* a simulated minute and a half at rpm 10: starts spread out, never more than 10 in 60 s */
	r.rpm = 10;
	for (t = 0; t < 90; t += 0.5) {
		if (rag_rate_wait(&r, 1, t) == 0) {
			rag_rate_note(&r, 1, t);
			started++;
		}
	}
	is_int(started, 20, "rpm 10 over 90 s: 10 at once, 10 more a minute later");
	rag_rate_free(&r);

	r.rpm = 0;
	r.tpm = 1000;
	is_num(rag_rate_wait(&r, 5000, 0), 0, 1e-9, "tpm: a request over the whole budget may start on an empty window");
	rag_rate_note(&r, 600, 0);
	rag_rate_note(&r, 300, 10);
	is_num(rag_rate_wait(&r, 100, 20), 0, 1e-9, "tpm 1000: 600 + 300 + 100 fits");
	is_num(rag_rate_wait(&r, 200, 20), 40, 1e-9, "tpm 1000: 200 more waits until the 600 leaves (t=60)");
	is_num(rag_rate_wait(&r, 800, 20), 50, 1e-9, "tpm 1000: 800 more waits until both have left (t=70)");
	rag_rate_free(&r);
	return done_testing();
}
