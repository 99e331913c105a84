/* junit.c - rag-gate's JUnit XML: a test suite for the gate's own checks, and one for the records,
 * a test case per record and metric. The records' cases are rendered as they come (the tool keeps
 * them aside) because the counts in the document's head are known only at the end. */
#include "rag.h"

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

void rag_junit_record(rag_buf *b, rag_junit *t, jv rec, const char *where, jv checks)
{
	char *id, cat[512];
	if (!(id = rag_record_id(rec))) id = rag_xstrdup(where);
	rag_json_str(rec, "category", cat, sizeof cat);
	jv_array_foreach(checks, i, c) {
		char metric[256], status[16], msg[600];
		rag_json_str(c, "metric", metric, sizeof metric);
		rag_json_str(c, "status", status, sizeof status);
		rag_json_str(c, "message", msg, sizeof msg);
		rag_buf_adds(b, "    <testcase classname=\"");
		put_xml(b, *cat ? cat : "ragpipe");
		rag_buf_adds(b, "\" name=\"");
		put_xml(b, id);
		rag_buf_adds(b, " ");
		put_xml(b, metric);
		rag_buf_adds(b, "\"");
		t->tests++;
		if (!strcmp(status, "pass")) {
			rag_buf_adds(b, "/>\n");
		} else if (!strcmp(status, "skipped")) {
			/* not applicable to the record: neither a pass nor a failure */
			t->skipped++;
			rag_buf_adds(b, ">\n      <skipped message=\"");
			put_xml(b, msg);
			rag_buf_adds(b, "\"/>\n    </testcase>\n");
		} else {
			int err = !strcmp(status, "error");
			t->failures += !err;
			t->errors += err;
			rag_buf_addf(b, ">\n      <%s message=\"", err ? "error" : "failure");
			put_xml(b, msg);
			rag_buf_adds(b, "\">");
			put_xml(b, where);
			rag_buf_addf(b, "</%s>\n    </testcase>\n", err ? "error" : "failure");
		}
		jv_free(c);
		(void)i;
	}
	free(id);
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
	rag_buf_addf(b, "<testsuites name=\"rag-gate\" tests=\"%ld\" failures=\"%ld\" errors=\"%ld\" skipped=\"%ld\">\n", nc + t->tests,
	             fc + t->failures, t->errors, sc + t->skipped);
	rag_buf_addf(b, "  <testsuite name=\"gate\" tests=\"%ld\" failures=\"%ld\" errors=\"0\" skipped=\"%ld\">\n", nc, fc, sc);
	jv_array_foreach(checks, i, c) {
		char what[512], msg[2048];
		int pass = jv_get_kind(jv_object_get(jv_copy(c), jv_string("pass"))) == JV_KIND_TRUE;
		rag_buf_adds(b, "    <testcase classname=\"gate\" name=\"");
		put_xml(b, rag_json_str(c, "check", what, sizeof what));
		rag_buf_adds(b, "\"");
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
	rag_buf_addf(b, "  <testsuite name=\"records\" tests=\"%ld\" failures=\"%ld\" errors=\"%ld\" skipped=\"%ld\">\n", t->tests,
	             t->failures, t->errors, t->skipped);
	jv_free(checks);
	return out.p;
}

const char *rag_junit_tail(void)
{
	return "  </testsuite>\n</testsuites>\n";
}
