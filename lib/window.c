/* window.c - the rolling gate (gate.h, rag-gate(1) --window): an endless stream of scored
 * records cut into windows, by count or by the records' own time, each decided by a gate of its
 * own (gate.c and verdict.c: the checks a batch rag-gate makes of the same records), with a rule
 * against flapping. Only the open window's gate is held. */
#include "gate.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rag_window {
	rag_window_opts o;
	rag_gate *g;              /* the open window's gate, NULL before its first record */
	long n;                   /* its records */
	long long slot;           /* a time window's number (its start / its span), LLONG_MIN: not known yet;
	                           * the open window's, or the clock's once that one closed */
	double clock;             /* a time window's clock: the latest started, moved on while idle; NAN: none */
	double first, last;       /* a count window's first and last record times, NAN: none */
	long late;                /* records that came after their own window had closed */
	long seq;                 /* windows closed */
	int failing;              /* the alert's state */
	int fails, passes;        /* windows failed, passed in a row */
};

int rag_window_parse(const char *arg, long *count, double *seconds, char *err, size_t errlen)
{
	char *end;
	double v;
	*count = 0;
	*seconds = 0;
	if (!arg || !*arg || isspace((unsigned char)*arg) || *arg == '-' || *arg == '+') goto bad;
	v = strtod(arg, &end);
	if (end == arg || !isfinite(v) || v <= 0) goto bad;
	if (!*end) {
		if (v != floor(v) || v > 1e12) goto bad;
		*count = (long)v;
		return 0;
	}
	if (end[1]) goto bad;
	switch (*end) {
	case 's': *seconds = v; break;
	case 'm': *seconds = v * 60; break;
	case 'h': *seconds = v * 3600; break;
	case 'd': *seconds = v * 86400; break;
	default: goto bad;
	}
	return 0;
bad:
	rag_seterr(err, errlen, "--window %s: give a number of records (500) or a time (90s, 15m, 1h, 1d)", arg ? arg : "");
	return -1;
}

double rag_window_time(const char *s)
{
	int y, mo, d, h = 0, mi = 0, n = 0;
	double sec = 0;
	struct tm tm;
	const char *p;
	time_t t;
	if (!s || sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10) return NAN;
	p = s + n;
	if (*p == 'T' || *p == ' ') {
		int m = 0;
		if (sscanf(p + 1, "%2d:%2d:%lf%n", &h, &mi, &sec, &m) != 3) return NAN;
		p += 1 + m;
	}
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	t = timegm(&tm);
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om = 0, k = 0;
		if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &k) != 2) return NAN;
		t -= (*p == '+' ? 1 : -1) * (time_t)(oh * 3600 + om * 60);
		p += 1 + k;
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec < 0 || sec >= 61) return NAN;
	return (double)t + sec;
}

rag_window *rag_window_new(const rag_window_opts *o)
{
	rag_window *w = rag_xcalloc(1, sizeof *w);
	w->o = *o;
	if (w->o.fail_after < 1) w->o.fail_after = 1;
	if (w->o.recover_after < 1) w->o.recover_after = 1;
	w->slot = LLONG_MIN;
	w->first = w->last = w->clock = NAN;
	return w;
}

static jv iso(double t)
{
	char buf[40];
	struct tm tm;
	time_t s = (time_t)floor(t);
	size_t n;
	if (!isfinite(t)) return jv_null();
	gmtime_r(&s, &tm);
	n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof buf - n, ".%03dZ", (int)floor((t - floor(t)) * 1000));
	return jv_string(buf);
}

/* The open window decided: its line, {window, from, to, records, late?, means, pass_rate, pass,
 * decision, exit_status, reason, checks, alert, fired?, recovered?, complete?, error?}. */
static jv close_window(rag_window *w, int complete)
{
	jv summary = rag_gate_summary(w->g), line, means = jv_object(), verdict, m;
	const char *lost = rag_gate_error(w->g);
	int pass;
	w->seq++;
	verdict = rag_verdict(summary);   /* summary borrowed */
	m = jv_object_get(jv_copy(summary), jv_string("metrics"));
	if (jv_get_kind(m) == JV_KIND_ARRAY) {
		jv_array_foreach(m, i, row) {
			jv name = jv_object_get(jv_copy(row), jv_string("metric")), mean = jv_object_get(jv_copy(row), jv_string("mean"));
			if (jv_get_kind(name) == JV_KIND_STRING) means = jv_object_set(means, name, jv_is_valid(mean) ? mean : jv_null());
			else jv_free(name), jv_free(mean);
			jv_free(row);
			(void)i;
		}
	}
	jv_free(m);
	line = JV_OBJECT(jv_string("window"), jv_number((double)w->seq));
	if (w->o.seconds > 0 && w->slot != LLONG_MIN) {
		line = jv_object_set(line, jv_string("from"), iso((double)w->slot * w->o.seconds));
		line = jv_object_set(line, jv_string("to"), iso((double)(w->slot + 1) * w->o.seconds));
	} else {
		line = jv_object_set(line, jv_string("from"), iso(w->first));
		line = jv_object_set(line, jv_string("to"), iso(w->last));
	}
	line = jv_object_set(line, jv_string("records"), jv_number((double)w->n));
	if (w->late) line = jv_object_set(line, jv_string("late"), jv_number((double)w->late));
	line = jv_object_set(line, jv_string("means"), means);
	line = jv_object_set(line, jv_string("pass_rate"), jv_object_get(jv_copy(verdict), jv_string("pass_rate")));
	pass = !lost && jv_get_kind(jv_object_get(jv_copy(summary), jv_string("pass"))) == JV_KIND_TRUE;
	line = jv_object_set(line, jv_string("pass"), jv_bool(pass));
	line = jv_object_set(line, jv_string("decision"), jv_object_get(jv_copy(verdict), jv_string("decision")));
	line = jv_object_set(line, jv_string("exit_status"), jv_object_get(jv_copy(verdict), jv_string("exit_status")));
	line = jv_object_set(line, jv_string("reason"), jv_object_get(jv_copy(verdict), jv_string("reason")));
	line = jv_object_set(line, jv_string("checks"), jv_object_get(jv_copy(summary), jv_string("checks")));
	if (lost) line = jv_object_set(line, jv_string("error"), jv_string(lost));
	/* the rule against flapping: the alert turns after K failed windows in a row, and back
	 * after M passed ones */
	if (pass) {
		w->passes++;
		w->fails = 0;
		if (w->failing && w->passes >= w->o.recover_after) {
			w->failing = 0;
			line = jv_object_set(line, jv_string("recovered"), jv_true());
		}
	} else {
		w->fails++;
		w->passes = 0;
		if (!w->failing && w->fails >= w->o.fail_after) {
			w->failing = 1;
			line = jv_object_set(line, jv_string("fired"), jv_true());
		}
	}
	line = jv_object_set(line, jv_string("alert"), jv_string(w->failing ? "failing" : "ok"));
	if (!complete) line = jv_object_set(line, jv_string("complete"), jv_false());
	jv_free(verdict);
	jv_free(summary);
	rag_gate_free(w->g);
	w->g = NULL;
	w->n = w->late = 0;
	w->first = w->last = NAN;
	return line;
}

void rag_window_add(rag_window *w, jv rec, const char *where, int unreadable, jv *out)
{
	jv st = jv_get_kind(rec) == JV_KIND_OBJECT ? jv_object_get(jv_copy(rec), jv_string("started")) : jv_invalid();
	double t = jv_get_kind(st) == JV_KIND_STRING ? rag_window_time(jv_string_value(st)) : NAN;
	jv_free(st);
	if (w->o.seconds > 0 && isfinite(t)) {
		long long slot = (long long)floor(t / w->o.seconds);
		/* a window the clock passed is closed, whether a record or the quiet closed it */
		if (w->slot != LLONG_MIN && slot < w->slot) {
			w->late++;
		} else {
			if (w->g && w->slot != LLONG_MIN && slot > w->slot) *out = jv_array_append(*out, close_window(w, 1));
			w->slot = slot;
		}
		if (!(t <= w->clock)) w->clock = t;
	}
	if (!w->g) w->g = rag_gate_new(w->o.gate);
	rag_gate_add(w->g, rec, where, unreadable, 0);
	w->n++;
	if (isfinite(t)) {
		if (!isfinite(w->first)) w->first = t;
		w->last = t;
	}
	if (w->o.count > 0 && w->n >= w->o.count) *out = jv_array_append(*out, close_window(w, 1));
}

void rag_window_idle(rag_window *w, double secs, jv *out)
{
	long long slot;
	if (w->o.seconds <= 0 || !isfinite(w->clock) || !(secs > 0)) return;
	w->clock += secs;
	slot = (long long)floor(w->clock / w->o.seconds);
	if (slot <= w->slot) return;
	if (w->g) *out = jv_array_append(*out, close_window(w, 1));
	w->slot = slot;
}

void rag_window_end(rag_window *w, jv *out)
{
	if (w->g) *out = jv_array_append(*out, close_window(w, 0));
}

int rag_window_failing(const rag_window *w)
{
	return w->failing;
}

void rag_window_free(rag_window *w)
{
	if (!w) return;
	rag_gate_free(w->g);
	free(w);
}
