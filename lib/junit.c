/* junit.c - rag-gate's JUnit XML: a test suite for the gate's own checks, and one per category of
 * the records, a test case per record. The records' cases are rendered as they come (the tool
 * keeps them aside) because the counts in the suites' heads are known only at the end. */
#include "base.h"
#include "record.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* XML 1.0 text or attribute value: the five entities; characters XML forbids (C0 controls but
 * tab, newline and return; U+FFFE, U+FFFF) become U+FFFD. */
static void put_xml(rag_buf *b, const char *s)
{
	size_t i = 0, n = strlen(s);
	while (i < n) {
		long cp;
		size_t l = rag_utf8_decode(s + i, n - i, &cp);
		switch (cp) {
		case '&': rag_buf_adds(b, "&amp;"); break;
		case '<': rag_buf_adds(b, "&lt;"); break;
		case '>': rag_buf_adds(b, "&gt;"); break;
		case '"': rag_buf_adds(b, "&quot;"); break;
		case '\'': rag_buf_adds(b, "&apos;"); break;
		case '\n': rag_buf_adds(b, "&#10;"); break;
		case '\r': rag_buf_adds(b, "&#13;"); break;
		case '\t': rag_buf_adds(b, "&#9;"); break;
		default:
			if (cp < 0x20 || cp == 0xfffe || cp == 0xffff) rag_buf_adds(b, "\xef\xbf\xbd");
			else rag_buf_add(b, s + i, l);
		}
		i += l;
	}
}

/* the suite of a category (NULL: none), made on first sight */
static size_t suite_of(rag_junit *t, const char *cat)
{
	size_t k;
	for (k = 0; k < t->nsuite; k++)
		if (cat ? t->suite[k].name && !strcmp(t->suite[k].name, cat) : !t->suite[k].name) return k;
	t->suite = rag_xrealloc(t->suite, (t->nsuite + 1) * sizeof *t->suite);
	memset(&t->suite[k], 0, sizeof t->suite[k]);
	t->suite[k].name = cat ? rag_xstrdup(cat) : NULL;
	return t->nsuite++;
}

/* The first rejected verdicts of metric (verdicts.<metric>: [{verdict: false, claim | chunk |
 * statement..., reason}]), three and then a count, one a line: what the judge found wrong. */
static void rejected(rag_buf *b, jv rec, const char *metric)
{
	static const char *const text[] = {"claim", "statement", "chunk", "text", "context"};
	jv v = rag_json_get(jv_copy(rec), "verdicts");
	int shown = 0, more = 0;
	v = jv_get_kind(v) == JV_KIND_OBJECT ? jv_object_get(v, jv_string(metric)) : (jv_free(v), jv_invalid());
	if (jv_get_kind(v) == JV_KIND_ARRAY) {
		const char *what = !strcmp(metric, "faithfulness") || !strcmp(metric, "context_recall") ? "unsupported claim" :
		                   strstr(metric, "precision") || strstr(metric, "utilization") ? "irrelevant chunk" :
		                   "rejected";
		jv_array_foreach(v, i, e) {
			char t[1024] = "", why[1024];
			size_t k;
			jv verdict = rag_json_get(jv_copy(e), "verdict");
			int no = jv_get_kind(verdict) == JV_KIND_FALSE;
			jv_free(verdict);
			if (no) {
				for (k = 0; k < sizeof text / sizeof text[0] && !*t; k++) rag_json_str(e, text[k], t, sizeof t);
				rag_json_str(e, "reason", why, sizeof why);
				if (shown++ < 3)
					rag_buf_addf(b, "%s: %s: %s%s%s%s\n", metric, what, *t ? t : "(no text)", *why ? " (" : "",
					             why, *why ? ")" : "");
				else
					more++;
			}
			jv_free(e);
			(void)i;
		}
	}
	if (more) rag_buf_addf(b, "%s: %d more\n", metric, more);
	jv_free(v);
}

/* the record's errors entries, one a line */
static void error_lines(rag_buf *b, jv rec)
{
	jv errs = rag_json_get(jv_copy(rec), "errors");
	if (jv_get_kind(errs) == JV_KIND_ARRAY) {
		jv_array_foreach(errs, i, e) {
			char tool[128], msg[1024];
			rag_json_str(e, "tool", tool, sizeof tool);
			rag_json_str(e, "message", msg, sizeof msg);
			rag_buf_addf(b, "error: %s%s%s\n", tool, *tool ? ": " : "", *msg ? msg : "(no message)");
			jv_free(e);
			(void)i;
		}
	}
	jv_free(errs);
}

/* A failure's or an error's message (the checks that failed, with value and threshold) and its
 * text: the question, those checks, what the judge rejected, the record's errors, where. */
static void detail(jv rec, const char *where, jv checks, int err, rag_buf *msg, rag_buf *body)
{
	char q[2048];
	rag_buf_adds(body, "question: ");
	rag_buf_adds(body, *rag_json_str(rec, "question", q, sizeof q) ? q : "(none)");
	rag_buf_adds(body, "\n");
	jv_array_foreach(checks, i, c) {
		char metric[256], status[16], m[600];
		rag_json_str(c, "metric", metric, sizeof metric);
		rag_json_str(c, "status", status, sizeof status);
		if (!strcmp(status, "failure") || !strcmp(status, "error")) {
			rag_json_str(c, "message", m, sizeof m);
			rag_buf_addf(msg, "%s%s", msg->len ? "; " : "", m);
			rag_buf_addf(body, "%s\n", m);
		}
		jv_free(c);
		(void)i;
	}
	jv_array_foreach(checks, i, c) {
		char metric[256], status[16];
		rag_json_str(c, "metric", metric, sizeof metric);
		if (!strcmp(rag_json_str(c, "status", status, sizeof status), "failure")) rejected(body, rec, metric);
		jv_free(c);
		(void)i;
	}
	if (err) error_lines(body, rec);
	rag_buf_addf(body, "at %s", where);
}

/* the skipped checks' messages (not applicable, and why), "; " between, escaped into b */
static void not_applicable(rag_buf *b, jv checks)
{
	rag_buf m = {0};
	jv_array_foreach(checks, i, c) {
		char one[600], status[16];
		if (!strcmp(rag_json_str(c, "status", status, sizeof status), "skipped"))
			rag_buf_addf(&m, "%s%s", m.len ? "; " : "", rag_json_str(c, "message", one, sizeof one));
		jv_free(c);
		(void)i;
	}
	put_xml(b, m.p ? m.p : "");
	rag_buf_free(&m);
}

void rag_junit_record(rag_buf *b, rag_junit *t, jv rec, const char *where, jv checks)
{
	char *id, cat[512];
	size_t k;
	long nchecks = 0, nfail = 0, nerr = 0, nskip = 0;
	double secs = rag_json_num(rec, "latency_ms") / 1000;
	rag_junit_suite *su;
	if (!(id = rag_record_id(rec))) id = rag_xstrdup(where);
	if (!(secs >= 0)) secs = 0;   /* none, or not a number */
	rag_json_str(rec, "category", cat, sizeof cat);
	k = suite_of(t, *cat ? cat : NULL);
	su = &t->suite[k];
	jv_array_foreach(checks, i, c) {
		char status[16];
		rag_json_str(c, "status", status, sizeof status);
		nchecks++;
		nfail += !strcmp(status, "failure");
		nerr += !strcmp(status, "error");
		nskip += !strcmp(status, "skipped");
		jv_free(c);
		(void)i;
	}
	rag_buf_adds(b, "    <testcase classname=\"");
	put_xml(b, *cat ? cat : "ragpipe");
	rag_buf_adds(b, "\" name=\"");
	put_xml(b, id);
	rag_buf_addf(b, "\" time=\"%.3f\"", secs);
	t->tests++;
	su->tests++;
	t->time += secs;
	su->time += secs;
	if (nerr || nfail) {
		/* an error (a score missing: not scored as asked) over a failure, as the gate counts it */
		rag_buf msg = {0}, body = {0};
		const char *el = nerr ? "error" : "failure";
		detail(rec, where, checks, nerr > 0, &msg, &body);
		rag_buf_addf(b, ">\n      <%s message=\"", el);
		put_xml(b, msg.p ? msg.p : "");
		rag_buf_addf(b, "\" type=\"%s\">", nerr ? "not scored" : "below threshold");
		put_xml(b, body.p ? body.p : "");
		rag_buf_addf(b, "</%s>\n    </testcase>\n", el);
		if (nerr) t->errors++, su->errors++;
		else t->failures++, su->failures++;
		rag_buf_free(&msg);
		rag_buf_free(&body);
	} else if (nchecks && nskip == nchecks) {
		/* not applicable to the record on every metric: neither a pass nor a failure */
		t->skipped++;
		su->skipped++;
		rag_buf_adds(b, ">\n      <skipped message=\"");
		not_applicable(b, checks);
		rag_buf_adds(b, "\"/>\n    </testcase>\n");
	} else if (nskip) {
		/* passed on the metrics that apply to it: the others said, not counted */
		rag_buf_adds(b, ">\n      <system-out>");
		not_applicable(b, checks);
		rag_buf_adds(b, "</system-out>\n    </testcase>\n");
	} else {
		rag_buf_adds(b, "/>\n");
	}
	t->last = k;   /* the caller keeps the case aside with its suite: nothing here per record */
	free(id);
}

/* the run's verdict (rag_verdict's, s.verdict) as the gate suite's properties: the decision,
 * the exit status and its reason, the counts the pass rate rests on */
static void verdict_properties(rag_buf *b, jv s)
{
	static const char *const keys[] = {"decision", "exit_status", "reason", "records", "with_verdict", "passed",
	                                   "failed", "errored", "not_applicable", "not_scored", "pass_rate"};
	jv v = rag_json_get(jv_copy(s), "verdict");
	size_t i;
	if (jv_get_kind(v) == JV_KIND_OBJECT) {
		rag_buf_adds(b, "    <properties>\n");
		for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			jv x = jv_object_get(jv_copy(v), jv_string(keys[i]));
			rag_buf_addf(b, "      <property name=\"verdict.%s\" value=\"", keys[i]);
			if (jv_get_kind(x) == JV_KIND_STRING) {
				put_xml(b, jv_string_value(x));
			} else if (jv_get_kind(x) == JV_KIND_NUMBER) {
				rag_buf_addf(b, "%.15g", jv_number_value(x));
			}
			rag_buf_adds(b, "\"/>\n");
			jv_free(x);
		}
		rag_buf_adds(b, "    </properties>\n");
	}
	jv_free(v);
}

char *rag_junit_head(jv s, const rag_junit *t)
{
	rag_buf out = {0}, *b = &out;
	jv checks = rag_json_get(jv_copy(s), "checks");
	long nc = 0, fc = 0, sc = 0;
	jv_array_foreach(checks, i, c) {
		nc++;
		fc += jv_get_kind(jv_object_get(jv_copy(c), jv_string("pass"))) != JV_KIND_TRUE;
		sc += rag_json_true(c, "skipped");
		jv_free(c);
		(void)i;
	}
	rag_buf_addf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	rag_buf_addf(b, "<testsuites name=\"rag-gate\" tests=\"%ld\" failures=\"%ld\" errors=\"%ld\" skipped=\"%ld\" "
	             "time=\"%.3f\">\n", nc + t->tests, fc + t->failures, t->errors, sc + t->skipped, t->time);
	rag_buf_addf(b, "  <testsuite name=\"gate\" tests=\"%ld\" failures=\"%ld\" errors=\"0\" skipped=\"%ld\" time=\"0.000\">\n",
	             nc, fc, sc);
	verdict_properties(b, s);
	jv_array_foreach(checks, i, c) {
		char what[512], msg[2048];
		int pass = jv_get_kind(jv_object_get(jv_copy(c), jv_string("pass"))) == JV_KIND_TRUE;
		rag_buf_adds(b, "    <testcase classname=\"gate\" name=\"");
		put_xml(b, rag_json_str(c, "check", what, sizeof what));
		rag_buf_adds(b, "\" time=\"0.000\"");
		if (rag_json_true(c, "skipped")) {
			rag_buf_adds(b, ">\n      <skipped message=\"");
			put_xml(b, rag_json_str(c, "message", msg, sizeof msg));
			rag_buf_adds(b, "\"/>\n    </testcase>\n");
		} else if (pass) {
			rag_buf_adds(b, "/>\n");
		} else {
			rag_buf_adds(b, ">\n      <failure message=\"");
			put_xml(b, rag_json_str(c, "message", msg, sizeof msg));
			rag_buf_adds(b, "\"/>\n    </testcase>\n");
		}
		jv_free(c);
		(void)i;
	}
	rag_buf_adds(b, "  </testsuite>\n");
	jv_free(checks);
	return out.p;
}

/* a property "threshold PREFIXMETRIC" for each metric of th (borrowed; an object, else none) */
static void threshold_properties(rag_buf *b, jv th, const char *prefix)
{
	if (jv_get_kind(th) != JV_KIND_OBJECT) return;
	jv_object_foreach(th, m, v) {
		rag_buf_addf(b, "      <property name=\"threshold %s", prefix);
		put_xml(b, jv_string_value(m));
		rag_buf_addf(b, "\" value=\"%.3f\"/>\n", jv_number_value(v));
		jv_free(m);
		jv_free(v);
	}
}

char *rag_junit_suite_head(const rag_junit *t, size_t k, jv s)
{
	const rag_junit_suite *su = &t->suite[k];
	rag_buf b = {0};
	jv own = su->name ? rag_json_get(rag_json_get(rag_json_get(jv_copy(s), "thresholds"), "by_category"), su->name)
	                  : jv_invalid();
	jv means = su->name ? rag_json_get(rag_json_get(rag_json_get(jv_copy(s), "thresholds"), "by_category_mean"), su->name)
	                    : jv_invalid();
	rag_buf_adds(&b, "  <testsuite name=\"");
	put_xml(&b, su->name ? su->name : "(no category)");
	rag_buf_addf(&b, "\" tests=\"%ld\" failures=\"%ld\" errors=\"%ld\" skipped=\"%ld\" time=\"%.3f\">\n",
	             su->tests, su->failures, su->errors, su->skipped, su->time);
	if ((jv_get_kind(own) == JV_KIND_OBJECT && jv_object_length(jv_copy(own)) > 0) ||
	    (jv_get_kind(means) == JV_KIND_OBJECT && jv_object_length(jv_copy(means)) > 0)) {
		/* gate.by_category's thresholds of this category, which its records were held to, and
		 * its means' ("threshold mean METRIC", checked in the gate's suite) */
		rag_buf_adds(&b, "    <properties>\n");
		threshold_properties(&b, own, "");
		threshold_properties(&b, means, "mean ");
		rag_buf_adds(&b, "    </properties>\n");
	}
	jv_free(own);
	jv_free(means);
	return b.p;
}

const char *rag_junit_suite_tail(void)
{
	return "  </testsuite>\n";
}

const char *rag_junit_tail(void)
{
	return "</testsuites>\n";
}

void rag_junit_free(rag_junit *t)
{
	size_t k;
	for (k = 0; k < t->nsuite; k++) free(t->suite[k].name);
	free(t->suite);
	memset(t, 0, sizeof *t);
}
