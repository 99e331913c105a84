/* t-window.c - the rolling gate's parts (lib/window.c): --window's sizes, the records' ISO
 * times, and windows cut by count and by time with the flapping rule, against values worked out
 * by hand; and rag-trace's sampling hash (lib/trace.c) against SHA-256 computed here. */
#include "base.h"
#include "gate.h"
#include "trace.h"
#include "tap.h"

#include <math.h>
#include <string.h>

/* the lines of a window run over scores (faithfulness), one record each, count per window */
static char *run(const double *scores, size_t n, long count, int k, int m)
{
	static char out[512];
	rag_kd thr = { "faithfulness", 0.5 };
	rag_gate_opts go;
	rag_window_opts wo;
	rag_window *w;
	jv lines = jv_array();
	size_t i;
	memset(&go, 0, sizeof go);
	go.mean = &thr;
	go.nmean = 1;
	go.min_pass_rate = 1;
	go.resamples = 100;
	go.confidence = 0.95;
	memset(&wo, 0, sizeof wo);
	wo.count = count;
	wo.fail_after = k;
	wo.recover_after = m;
	wo.gate = &go;
	w = rag_window_new(&wo);
	for (i = 0; i < n; i++) {
		jv rec = JV_OBJECT(jv_string("id"), jv_number((double)i),
		                   jv_string("scores"), JV_OBJECT(jv_string("faithfulness"), jv_number(scores[i])));
		rag_window_add(w, rec, "t", 0, &lines);
		jv_free(rec);
	}
	rag_window_end(w, &lines);
	out[0] = 0;
	jv_array_foreach(lines, i2, l) {
		jv a = jv_object_get(jv_copy(l), jv_string("alert"));
		int fired = jv_get_kind(jv_object_get(jv_copy(l), jv_string("fired"))) == JV_KIND_TRUE;
		int rec = jv_get_kind(jv_object_get(jv_copy(l), jv_string("recovered"))) == JV_KIND_TRUE;
		strcat(out, jv_string_value(a)[0] == 'f' ? "F" : "o");
		if (fired) strcat(out, "!");
		if (rec) strcat(out, "+");
		jv_free(a);
		jv_free(l);
		(void)i2;
	}
	jv_free(lines);
	rag_window_free(w);
	return out;
}

int main(void)
{
	long count;
	double secs;
	char err[RAG_ERRLEN];
	static const double flap[] = { 0.1, 0.9, 0.1, 0.1, 0.9, 0.9, 0.1 };

	ok(rag_window_parse("500", &count, &secs, err, sizeof err) == 0 && count == 500 && secs == 0, "500: records");
	ok(rag_window_parse("1h", &count, &secs, err, sizeof err) == 0 && count == 0 && secs == 3600, "1h: 3600 s");
	ok(rag_window_parse("15m", &count, &secs, err, sizeof err) == 0 && secs == 900, "15m");
	ok(rag_window_parse("90s", &count, &secs, err, sizeof err) == 0 && secs == 90, "90s");
	ok(rag_window_parse("1d", &count, &secs, err, sizeof err) == 0 && secs == 86400, "1d");
	ok(rag_window_parse("0.5h", &count, &secs, err, sizeof err) == 0 && secs == 1800, "0.5h");
	ok(rag_window_parse("0", &count, &secs, err, sizeof err) < 0, "0 refused");
	ok(rag_window_parse("2.5", &count, &secs, err, sizeof err) < 0, "2.5 records refused");
	ok(rag_window_parse("-3", &count, &secs, err, sizeof err) < 0, "-3 refused");
	ok(rag_window_parse("1hour", &count, &secs, err, sizeof err) < 0, "1hour refused");
	ok(strstr(err, "--window 1hour") != NULL, "the message names the value");

	is_num(rag_window_time("1970-01-01T00:00:00Z"), 0, 0, "the epoch");
	is_num(rag_window_time("2025-12-06T05:46:40.000Z"), 1765000000, 1e-6, "rag-trace's started");
	is_num(rag_window_time("2025-12-06T05:46:40.250Z"), 1765000000.25, 1e-6, "milliseconds");
	is_num(rag_window_time("2025-12-06T07:46:40+02:00"), 1765000000, 1e-6, "an offset east");
	is_num(rag_window_time("2025-12-06T00:16:40-05:30"), 1765000000, 1e-6, "an offset west");
	is_num(rag_window_time("2025-12-06"), 1764979200, 0, "a date alone: its midnight UTC");
	ok(isnan(rag_window_time("yesterday")), "not a time: NAN");
	ok(isnan(rag_window_time("2025-13-01T00:00:00Z")), "month 13: NAN");
	ok(isnan(rag_window_time("2025-12-06T05:46:40Zjunk")), "trailing text: NAN");
	ok(isnan(rag_window_time(NULL)), "NULL: NAN");

	/* windows of one record: F P F F P P F */
	is_str(run(flap, 7, 1, 1, 1), "F!o+F!Fo+oF!", "K=1, M=1: every turn");
	is_str(run(flap, 7, 1, 2, 2), "oooF!Fo+o", "K=2, M=2: fires at the second failure in a row, recovers at the second pass");
	is_str(run(flap, 7, 3, 1, 1), "F!o+F!", "windows of 3: means 0.367 (fails), 0.633 (passes), 0.1 (the last, fails)");

	/* the sampling hash: SHA-256 of the lower-case id, its first 8 bytes against rate * 2^64 */
	{
		const char *id = "0af7651916cd43dd8448eb211c80319c";
		unsigned char h[32];
		unsigned long long x = 0;
		int i;
		rag_sha256(id, strlen(id), h);
		for (i = 0; i < 8; i++) x = (x << 8) | h[i];
		ok(rag_trace_sampled(id, (double)x / 18446744073709551616.0 + 1e-9), "just above its hash: sampled");
		ok(!rag_trace_sampled(id, (double)x / 18446744073709551616.0 - 1e-9), "just below: not");
		ok(rag_trace_sampled("0AF7651916CD43DD8448EB211C80319C", (double)x / 18446744073709551616.0 + 1e-9) ==
		   rag_trace_sampled(id, (double)x / 18446744073709551616.0 + 1e-9), "upper case hex: the same pick");
		ok(rag_trace_sampled(id, 1) && !rag_trace_sampled(id, 0), "rate 1 all, rate 0 none");
	}
	return done_testing();
}
