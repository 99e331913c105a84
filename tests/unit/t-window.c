/* t-window.c - the rolling gate's parts (lib/window.c): --window's sizes, the records' ISO
 * times, and windows cut by count and by time with the flapping rule, against values worked out
 * by hand; a time window closed by the quiet (rag_window_idle) as a later record closes it; and
 * rag-trace's sampling hash (lib/trace.c) against SHA-256 computed here. */
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

/* the gate of the timed runs: faithfulness's mean at least 0.5 */
static rag_kd idle_thr = { "faithfulness", 0.5 };
static rag_gate_opts idle_go;

static rag_window *timed(double seconds, long count)
{
	rag_window_opts wo;
	memset(&idle_go, 0, sizeof idle_go);
	idle_go.mean = &idle_thr;
	idle_go.nmean = 1;
	idle_go.resamples = 100;
	idle_go.confidence = 0.95;
	memset(&wo, 0, sizeof wo);
	wo.seconds = seconds;
	wo.count = count;
	wo.gate = &idle_go;
	return rag_window_new(&wo);
}

/* a record started at t seconds after 2026-12-06T00:00:00Z, scored f (t < 0: no started) */
static void add_at(rag_window *w, double t, double f, jv *lines)
{
	char when[40];
	jv rec = JV_OBJECT(jv_string("scores"), JV_OBJECT(jv_string("faithfulness"), jv_number(f)));
	if (t >= 0) {
		snprintf(when, sizeof when, "2026-12-06T00:%02d:%06.3fZ", (int)(t / 60), t - 60 * floor(t / 60));
		rec = jv_object_set(rec, jv_string("started"), jv_string(when));
	}
	rag_window_add(w, rec, "t", 0, lines);
	jv_free(rec);
}

/* line k of lines as compact JSON, without its checks (they hold the bootstrap's numbers) */
static const char *line_at(jv lines, int k)
{
	static char buf[1024];
	jv l, d;
	if (k >= jv_array_length(jv_copy(lines))) return "(none)";
	l = jv_object_delete(jv_array_get(jv_copy(lines), k), jv_string("checks"));
	l = jv_object_delete(l, jv_string("reason"));
	d = jv_dump_string(l, JV_PRINT_SORTED);
	snprintf(buf, sizeof buf, "%s", jv_string_value(d));
	jv_free(d);
	return buf;
}

static void idle_windows(void)
{
	jv a = jv_array(), b = jv_array(), want, got;
	rag_window *w = timed(60, 0), *v = timed(60, 0);

	/* window [00:00, 00:01) with 0.9 and 0.2: mean 0.55, pass */
	add_at(w, 10, 0.9, &a);
	add_at(w, 50, 0.2, &a);
	rag_window_idle(w, 5, &a);
	rag_window_idle(w, 4.5, &a);
	is_int(jv_array_length(jv_copy(a)), 0, "quiet 9.5 s after 00:00:50: the clock at 00:00:59.5, the window open");
	rag_window_idle(w, 0.5, &a);
	is_int(jv_array_length(jv_copy(a)), 1, "0.5 s more: the clock at 00:01:00, its end: the window closes");
	is_str(line_at(a, 0), "{\"alert\":\"ok\",\"decision\":\"pass\",\"exit_status\":0,\"from\":\"2026-12-06T00:00:00.000Z\","
	       "\"means\":{\"faithfulness\":0.55},\"pass\":true,\"pass_rate\":1,\"records\":2,\"to\":\"2026-12-06T00:01:00.000Z\","
	       "\"window\":1}", "its line: window 1, 00:00 to 00:01, 2 records, mean (0.9 + 0.2) / 2 = 0.55, complete");
	/* the same records closed by a record of the next window: the same line */
	add_at(v, 10, 0.9, &b);
	add_at(v, 50, 0.2, &b);
	add_at(v, 70, 0.9, &b);
	want = jv_array_get(jv_copy(b), 0);
	got = jv_array_get(jv_copy(a), 0);
	ok(jv_equal(got, want), "the line the quiet closed is the one a later record closes, checks and reason too");
	rag_window_idle(w, 1000, &a);
	is_int(jv_array_length(jv_copy(a)), 1, "no record since: more quiet writes no empty window");

	/* the clock now at 00:17:40 (00:00:50 and 1,010 s of quiet): a record of 00:05 came after
	 * its window closed (late), one of 00:17:50 is the clock's window's, one of 00:18:10 closes it */
	add_at(w, 300, 0.1, &a);
	add_at(w, -1, 0.3, &a);
	add_at(w, 1070, 0.5, &a);
	is_int(jv_array_length(jv_copy(a)), 1, "a late record and one with no time: no window closes");
	add_at(w, 1090, 0.9, &a);
	is_str(line_at(a, 1), "{\"alert\":\"failing\",\"decision\":\"fail\",\"exit_status\":1,\"fired\":true,"
	       "\"from\":\"2026-12-06T00:17:00.000Z\",\"late\":1,\"means\":{\"faithfulness\":0.3},\"pass\":false,\"pass_rate\":1,"
	       "\"records\":3,\"to\":\"2026-12-06T00:18:00.000Z\",\"window\":2}",
	       "the clock's window 00:17 to 00:18: the late record, the one with no time, 00:17:50's; mean (0.1 + 0.3 + 0.5) / 3 = 0.3");
	rag_window_end(w, &a);
	is_str(line_at(a, 2), "{\"alert\":\"ok\",\"complete\":false,\"decision\":\"pass\",\"exit_status\":0,"
	       "\"from\":\"2026-12-06T00:18:00.000Z\",\"means\":{\"faithfulness\":0.9},\"pass\":true,\"pass_rate\":1,"
	       "\"records\":1,\"recovered\":true,\"to\":\"2026-12-06T00:19:00.000Z\",\"window\":3}",
	       "the input's end: the open window, not complete");
	jv_free(a);
	jv_free(b);
	rag_window_free(w);
	rag_window_free(v);

	/* nothing to move: no record with a time yet, or windows by count */
	a = jv_array();
	w = timed(60, 0);
	rag_window_idle(w, 3600, &a);
	add_at(w, -1, 0.9, &a);
	rag_window_idle(w, 3600, &a);
	add_at(w, 30, 0.9, &a);
	rag_window_idle(w, 20, &a);
	is_int(jv_array_length(jv_copy(a)), 0, "no clock before the first record with a time: the quiet before it moves nothing");
	rag_window_idle(w, 10, &a);
	is_str(line_at(a, 0) + 1, "\"alert\":\"ok\",\"decision\":\"pass\",\"exit_status\":0,\"from\":\"2026-12-06T00:00:00.000Z\","
	       "\"means\":{\"faithfulness\":0.9},\"pass\":true,\"pass_rate\":1,\"records\":2,\"to\":\"2026-12-06T00:01:00.000Z\","
	       "\"window\":1}", "then 00:00:30 + 30 s of quiet: the window of both records closes");
	rag_window_free(w);
	w = timed(0, 2);
	add_at(w, 10, 0.9, &a);
	rag_window_idle(w, 86400, &a);
	is_int(jv_array_length(jv_copy(a)), 1, "a window of 2 records: a day's quiet closes nothing");
	add_at(w, 20, 0.9, &a);
	is_int(jv_array_length(jv_copy(a)), 2, "its second record does");
	jv_free(a);
	rag_window_free(w);
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

	idle_windows();

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
