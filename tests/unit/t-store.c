/* t-store.c - the run store (lib/store.c) on an SQLite file: a run added and exported byte for
 * byte, the means and the per-record pass, run references, the diff's changes and deltas, test
 * set versions, the schema version, and a URL's password kept out of every message. The
 * PostgreSQL backend runs the same SQL: tests/t/76-store.t runs both against real servers. */
#include "base.h"
#include "config.h"
#include "gate.h"
#include "store.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err[RAG_ERRLEN];

static const char run_a[] =
	"{\"id\":\"q1\",\"category\":\"geo\",\"answer\":\"Paris\",\"scores\":{\"faithfulness\":1,\"context_recall\":0.5}}\n"
	"{\"id\":\"q2\",\"answer\":\"Ulm\",\"scores\":{\"faithfulness\":0.5,\"context_recall\":null}}\n"
	"not a record\n"
	"{\"id\":\"q3\",\"answer\":\"x\",\"scores\":{\"faithfulness\":0}}";
static const char run_b[] =
	"{\"id\":\"q2\",\"answer\":\"Ulm, Germany\",\"scores\":{\"faithfulness\":0.75,\"context_recall\":0.5}}\n"
	"{\"id\":\"q1\",\"answer\":\"Lyon\",\"scores\":{\"faithfulness\":0.25,\"context_recall\":0.5}}\n"
	"{\"id\":\"q4\",\"answer\":\"new\",\"scores\":{\"faithfulness\":1}}\n";

static char *add(rag_store *s, const char *id, const char *records, const rag_gate_opts *go)
{
	rag_store_run in;
	char *got = NULL;
	memset(&in, 0, sizeof in);
	in.id = id;
	in.run = jv_null();
	in.records = records;
	in.len = strlen(records);
	in.testset = "qa";
	in.gate = go;
	if (rag_store_add(s, &in, &got, err, sizeof err) < 0) return NULL;
	return got;
}

/* the change and the faithfulness delta of the diff line of id */
static const char *change_of(jv lines, const char *id, double *delta)
{
	static char buf[32];
	buf[0] = 0;
	*delta = NAN;
	jv_array_foreach(lines, i, l) {
		char idb[16];
		if (!strcmp(rag_json_str(l, "id", idb, sizeof idb), id)) {
			jv d = rag_json_get(jv_copy(l), "delta");
			rag_json_str(l, "change", buf, sizeof buf);
			*delta = rag_json_num(d, "faithfulness");
			jv_free(d);
		}
		jv_free(l);
		(void)i;
	}
	jv_free(lines);
	return buf;
}

int main(void)
{
	char dir[] = "/tmp/t-store.XXXXXX", path[256], *id, *ref;
	rag_store *s;
	rag_buf b = {0};
	jv v, lines;
	double d;
	int version, created;
	rag_kd rec_min = {(char *)"faithfulness", 0.5};
	rag_gate_opts go;

	if (!mkdtemp(dir)) return 1;
	snprintf(path, sizeof path, "sqlite://%s/sub/runs.db", dir);
	s = rag_store_open(path, err, sizeof err);
	ok(s != NULL, "open makes the file and its directory (%s)", err);
	if (!s) return done_testing();
	is_str(rag_store_backend(s), "sqlite", "the SQLite backend");
	ok(rag_store_info(s, &v, err, sizeof err) == 0, "info");
	is_num(rag_json_num(v, "schema_version"), rag_store_schema(), 0, "the schema is this build's version");
	jv_free(v);

	memset(&go, 0, sizeof go);
	go.record = &rec_min;
	go.nrecord = 1;
	go.min_pass_rate = 1;
	go.resamples = 10;
	go.confidence = 0.9;
	id = add(s, "A", run_a, &go);
	is_str(id, "A", "add gives the run's id");
	free(id);
	ok(add(s, "A", run_a, NULL) == NULL && strstr(err, "already in the store"), "an id twice: refused");
	id = add(s, "B", run_b, NULL);
	is_str(id, "B", "a second run");
	free(id);

	ok(rag_store_export(s, "A", &b, err, sizeof err) == 0, "export");
	ok(b.len == strlen(run_a) && !memcmp(b.p, run_a, b.len), "byte for byte, the line that is no record and the missing last newline too");
	rag_buf_free(&b);

	ok(rag_store_show(s, "A", &v, err, sizeof err) == 0, "show");
	{
		jv m = rag_json_get(jv_copy(v), "means");
		is_num(rag_json_num(m, "faithfulness"), 0.5, 1e-9, "the mean of the scores");
		is_num(rag_json_num(m, "context_recall"), 0.5, 1e-9, "a null left out of the mean");
		jv_free(m);
	}
	is_num(rag_json_num(v, "n"), 3, 0, "n counts the records, not the line that is none");
	ok(jv_get_kind(rag_json_get(jv_copy(v), "passed")) == JV_KIND_FALSE, "q3 misses the record threshold: the run fails");
	jv_free(v);
	ok(rag_store_show(s, "nope", &v, err, sizeof err) == 1, "show of a run not there: 1");

	ok(rag_store_resolve(s, "last", &ref, err, sizeof err) == 0 && ref && (!strcmp(ref, "B") || !strcmp(ref, "A")),
	   "last resolves");
	free(ref);
	ok(rag_store_resolve(s, "last~2", &ref, err, sizeof err) == 1, "last~2 of two runs: not there");
	ok(rag_store_resolve(s, "last~x", &ref, err, sizeof err) == -1, "last~x: an error");

	ok(rag_store_diff(s, "A", "B", 0.1, &lines, NULL, err, sizeof err) == 0, "diff");
	is_int(jv_array_length(jv_copy(lines)), 4, "a line for each id of either run");
	is_str(change_of(jv_copy(lines), "q2", &d), "improved", "q2 improved (a null recall got a score)");
	is_num(d, 0.25, 1e-9, "its faithfulness delta");
	is_str(change_of(jv_copy(lines), "q1", &d), "regressed", "q1 regressed");
	is_num(d, -0.75, 1e-9, "by 0.75");
	is_str(change_of(jv_copy(lines), "q4", &d), "added", "q4 added");
	is_str(change_of(jv_copy(lines), "q3", &d), "removed", "q3 removed");
	{
		jv first = jv_array_get(jv_copy(lines), 0);
		char buf[32];
		is_str(rag_json_str(first, "baseline_answer", buf, sizeof buf), "Ulm", "both answers (the newer run's order first)");
		jv_free(first);
	}
	jv_free(lines);

	{
		const char *set1 = "{\"id\":\"a\",\"question\":\"q\"}\n", *set1_csv = "id,question\na,q\n";
		const char *set2 = "{\"id\":\"a\",\"question\":\"q?\"}\n";
		ok(rag_store_testset_import(s, "t", set1, strlen(set1), "t.jsonl", &version, &created, err, sizeof err) == 0 &&
		   version == 1 && created, "a test set: version 1");
		ok(rag_store_testset_import(s, "t", set1_csv, strlen(set1_csv), "t.csv", &version, &created, err, sizeof err) == 0 &&
		   version == 1 && !created, "the same records as CSV: still version 1");
		ok(rag_store_testset_import(s, "t", set2, strlen(set2), "t.jsonl", &version, &created, err, sizeof err) == 0 &&
		   version == 2 && created, "changed: version 2");
		ok(rag_store_testset_export(s, "t", 1, &b, &version, err, sizeof err) == 0, "export version 1");
		is_str(b.p, "{\"id\":\"a\",\"question\":\"q\"}\n", "its records");
		rag_buf_free(&b);
		ok(rag_store_testset_export(s, "t", 3, &b, &version, err, sizeof err) == 1, "version 3: not there");
		rag_buf_free(&b);
	}
	rag_store_close(s);

	/* a password never in a message */
	s = rag_store_open("postgresql://me:Pa55word@/nodb?host=/nonexistent-dir&connect_timeout=1", err, sizeof err);
	ok(s == NULL, "an unreachable PostgreSQL: no store");
	ok(!strstr(err, "Pa55word"), "the password is not in the message: %s", err);
	{
		char *m = rag_store_url_masked("postgresql://me:Pa55word@db/x");
		is_str(m, "postgresql://me:***@db/x", "the URL masked");
		free(m);
	}
	s = rag_store_open("ftp://x/y", err, sizeof err);
	ok(s == NULL && strstr(err, "not sqlite://"), "an unknown scheme: %s", err);
	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0) return 1;
	}
	return done_testing();
}
