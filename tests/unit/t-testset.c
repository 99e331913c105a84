/* t-testset.c - the test set reader (lib/testset.c): JSON Lines, a JSON array, pretty JSON, CSV
 * (RFC 4180 quoting, BOM, CRLF, JSON columns), format detection, ids, and broken files named
 * by line and column. */
#include "base.h"
#include "record.h"
#include "tap.h"

#include <string.h>

static char err[RAG_ERRLEN];

static int take(jv rec, size_t line, void *ctx)
{
	jv *two = ctx;
	two[0] = jv_array_append(two[0], rec);
	two[1] = jv_array_append(two[1], jv_number((double)line));
	return 0;
}

/* the same text read record by record (rag_testset_each, in chunks from a FILE): its records
 * and their lines (two[0], two[1]), or invalid with serr */
static char serr[RAG_ERRLEN];
static void streamed(const char *name, const char *text, jv *two)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	two[0] = jv_array();
	two[1] = jv_array();
	serr[0] = 0;
	if (!f || rag_testset_each(f, name, RAG_TESTSET_AUTO, NULL, take, two, serr, sizeof serr) < 0) {
		jv_free(two[0]);
		jv_free(two[1]);
		two[0] = jv_invalid();
		two[1] = jv_invalid();
	}
	if (f) fclose(f);
}

static int same(jv a, jv b)
{
	int r = jv_equal(a, b);
	return r;
}

/* Every case read whole and record by record: the same records and the same message. */
static jv parse(const char *name, const char *text)
{
	jv whole, two[2];
	err[0] = 0;
	whole = rag_testset_parse(text, strlen(text), name, RAG_TESTSET_AUTO, err, sizeof err);
	streamed(name, text, two);
	ok(same(jv_copy(whole), jv_copy(two[0])) && !strcmp(err, serr),
	   "record by record, the same (%.40s): %s", name, serr);
	jv_free(two[0]);
	jv_free(two[1]);
	return whole;
}

/* the records as one compact JSON text, or "invalid" */
static char out[4096];
static const char *dump(jv v)
{
	jv d;
	if (!jv_is_valid(v)) {
		jv_free(v);
		return "invalid";
	}
	d = jv_dump_string(v, JV_PRINT_SORTED);
	snprintf(out, sizeof out, "%s", jv_string_value(d));
	jv_free(d);
	return out;
}

/* the lines of the records of a file, as JSON, or "invalid" */
static const char *lines_of(const char *name, const char *text)
{
	jv lines, recs = rag_testset_parse_lines(text, strlen(text), name, RAG_TESTSET_AUTO, &lines, err, sizeof err);
	jv two[2];
	streamed(name, text, two);
	ok(same(jv_copy(lines), jv_copy(two[1])), "record by record, the same lines (%.40s)", name);
	jv_free(two[0]);
	jv_free(two[1]);
	const char *r = jv_is_valid(recs) && jv_array_length(jv_copy(recs)) == jv_array_length(jv_copy(lines))
	                ? dump(lines) : (jv_free(lines), "invalid");
	jv_free(recs);
	return r;
}

/* A test set to score or keep (rag_testset_read), read whole and record by record (which
 * refuses a repeat as it does): the records, or "invalid" with the one message in err. */
static const char *read_set(const char *name, const char *text)
{
	jv whole, two[2];
	err[0] = 0;
	whole = rag_testset_read(text, strlen(text), name, RAG_TESTSET_AUTO, err, sizeof err);
	streamed(name, text, two);
	ok(!strcmp(err, serr) && jv_is_valid(whole) == jv_is_valid(two[0]) &&
	   (!jv_is_valid(whole) || same(jv_copy(whole), jv_copy(two[0]))),
	   "read whole and record by record, the same (%.40s): %s", name, serr);
	jv_free(two[0]);
	jv_free(two[1]);
	return dump(whole);
}

int main(void)
{
	/* detection */
	is_int(rag_testset_detect("a.csv", "{", 1), RAG_TESTSET_CSV, "a .csv name is CSV whatever it holds");
	is_int(rag_testset_detect("a.JSON", "q", 1), RAG_TESTSET_JSON, "a .JSON name is JSON");
	is_int(rag_testset_detect("set", "\xEF\xBB\xBF  [", 6), RAG_TESTSET_JSON, "content [ after a BOM is JSON");
	is_int(rag_testset_detect(NULL, "question,reference\n", 19), RAG_TESTSET_CSV, "a header line is CSV");
	is_int(rag_testset_detect(NULL, " \n", 2), RAG_TESTSET_JSON, "blanks alone: JSON, no records");
	is_int(rag_testset_format_parse("jsonl"), RAG_TESTSET_JSON, "jsonl names JSON");
	is_int(rag_testset_format_parse("xml"), -1, "an unknown format is -1");

	/* JSON forms, all the same records */
	is_str(dump(parse("a.jsonl", "{\"id\":\"a\",\"question\":\"q1\"}\n{\"question\":\"q2\"}\n")),
	       "[{\"id\":\"a\",\"question\":\"q1\"},{\"id\":\"case-2\",\"question\":\"q2\"}]",
	       "JSON Lines; a record without an id is case-N by its place");
	is_str(dump(parse("a.json", "[\n  {\"id\": \"a\", \"question\": \"q1\"},\n  {\"question\": \"q2\"}\n]\n")),
	       "[{\"id\":\"a\",\"question\":\"q1\"},{\"id\":\"case-2\",\"question\":\"q2\"}]", "a JSON array");
	is_str(dump(parse("a.json", "{\n  \"id\": \"a\",\n  \"question\": \"q1\"\n}\n{\n  \"question\": \"q2\"\n}\n")),
	       "[{\"id\":\"a\",\"question\":\"q1\"},{\"id\":\"case-2\",\"question\":\"q2\"}]", "pretty-printed objects");
	is_str(dump(parse("a.json", "[{\"id\":7,\"question\":\"q\"},{\"id\":\"\",\"question\":\"r\"}]")),
	       "[{\"id\":\"7\",\"question\":\"q\"},{\"id\":\"case-2\",\"question\":\"r\"}]",
	       "a number id becomes text; an empty id is replaced");
	is_str(dump(parse("a.json", "")), "[]", "an empty file is no records");
	is_str(dump(parse("z.json", "[{\"question\":\"爱因斯坦出生在哪里？\"}]")),
	       "[{\"id\":\"case-1\",\"question\":\"爱因斯坦出生在哪里？\"}]", "Chinese text passes unchanged");

	/* broken JSON, with positions */
	is_str(dump(parse("b.jsonl", "{\"a\":1}\n{\"b\":2,\n \"c\": x}\n")), "invalid", "a bad literal fails");
	ok(!strncmp(err, "b.jsonl:3:", 10), "its position names line 3: %s", err);
	is_str(dump(parse("b.json", "[\n {\"a\":1},\n {\"b\":2}\n")), "invalid", "an unclosed array fails");
	ok(!strncmp(err, "b.json:4:", 9) && strstr(err, "unfinished"), "at the end of the file: %s", err);
	is_str(dump(parse("b.json", "[\n {\"a\":1},\n 42\n]")), "invalid", "a number in the array fails");
	is_str(err, "b.json:3:2: element 2 of the array is number, not an object (a record)", "named by its place");
	is_str(dump(parse("b.jsonl", "{\"a\":1}\n\"text\"\n")), "invalid", "a string line fails");
	is_str(err, "b.jsonl:2:1: value 2 is string, not an object (a record)", "named by its line");
	is_str(dump(parse("b.jsonl", "{\"a\":\"x\xff\"}\n")), "invalid", "invalid UTF-8 fails");
	is_str(err, "b.jsonl:1:8: invalid UTF-8", "at its byte");

	/* CSV */
	is_str(dump(parse("c.csv", "\xEF\xBB\xBFquestion,reference,category\r\n"
	                           "\"Where, and when?\",\"He said \"\"Ulm\"\"\",history\r\n"
	                           "\"two\nlines\",,misc\r\n")),
	       "[{\"category\":\"history\",\"id\":\"case-1\",\"question\":\"Where, and when?\",\"reference\":\"He said \\\"Ulm\\\"\"},"
	       "{\"category\":\"misc\",\"id\":\"case-2\",\"question\":\"two\\nlines\"}]",
	       "CSV: BOM, CRLF, quoted commas, doubled quotes, a newline in a field, an empty cell absent");
	is_str(dump(parse("c.csv", "id,question,contexts,relevant_ids\nx,q,\"[\"\"c1\"\",\"\"c2\"\"]\",\"[\"\"d1\"\"]\"\n")),
	       "[{\"contexts\":[\"c1\",\"c2\"],\"id\":\"x\",\"question\":\"q\",\"relevant_ids\":[\"d1\"]}]",
	       "CSV: contexts and relevant_ids holding JSON arrays are parsed");
	is_str(dump(parse("c.csv", "question,category\n爱因斯坦出生在哪里？,历史\n")),
	       "[{\"category\":\"历史\",\"id\":\"case-1\",\"question\":\"爱因斯坦出生在哪里？\"}]", "CSV in Chinese");
	is_str(dump(parse("c.csv", "question,reference\nq\n")), "invalid", "a short row fails");
	is_str(err, "c.csv:2:1: 1 field where the header has 2", "named by its line");
	is_str(dump(parse("c.csv", "question,reference\nq,\"open\nx\n")), "invalid", "an unterminated quote fails");
	is_str(err, "c.csv:2:3: unterminated quoted field (a \" opened here is never closed)", "where it opened");
	is_str(dump(parse("c.csv", "question,reference\nq,ab\"c\n")), "invalid", "a bare quote fails");
	ok(!strncmp(err, "c.csv:2:5: a quote inside an unquoted field", 43), "at the quote: %s", err);
	is_str(dump(parse("c.csv", "question,reference\nq,\"ab\"c\n")), "invalid", "text after a closing quote fails");
	ok(!strncmp(err, "c.csv:2:7: text after", 21), "at the text: %s", err);
	is_str(dump(parse("c.csv", "question,contexts\nq,[broken\n")), "invalid", "a bad JSON column fails");
	ok(!strncmp(err, "c.csv:2:1: column \"contexts\"", 28), "named: %s", err);
	is_str(dump(parse("c.csv", "question,question\nq,r\n")), "invalid", "a column twice fails");
	is_str(dump(parse("c.csv", "")), "invalid", "an empty CSV file has no header");

	/* each record's line, for messages about a record of the file (rag-agree's labels) */
	is_str(lines_of("s.jsonl", "{\"id\":1}\n\n{\"id\":2}\n{\"a\":\"x\\ny]}\"} {\"id\":4}\n"), "[1,3,4,4]",
	       "lines: JSON Lines, a blank line, two objects on one line, escapes and brackets in a string");
	is_str(lines_of("s.json", "\xEF\xBB\xBF[\n  {\"id\": \"a\",\n   \"x\": [1, {\"y\": \"]\"}]},\n\n  {\"id\": \"b\"}, {}\n]\n{\n}\n"),
	       "[2,5,5,7]", "lines: a JSON array's elements, pretty and on one line; an object after it");
	is_str(lines_of("s.csv", "id,label\r\na,1\r\n\r\nb,\"two\r\nlines\"\r\nc,3\r\n"), "[2,4,6]",
	       "lines: CSV rows, a blank line, a quoted cell over two lines");
	is_str(lines_of("s.csv", "id,label\na\n"), "invalid", "lines: a broken file has none");
	/* libjq drops what comes before a 0x1E (RS) byte: refused, where it is */
	is_str(dump(parse("r.jsonl", "{\"id\":\"a\"}\n{\x1e{\"id\":\"b\"}\n")), "invalid", "a record separator byte fails");
	is_str(err, "r.jsonl:2:2: a record separator byte (0x1E)", "where it is");

	/* records longer than the reader's chunk (64 KiB), across its edges */
	{
		rag_buf b = {0};
		jv two[2];
		int i;
		rag_buf_adds(&b, "[");
		for (i = 0; i < 3; i++) {
			rag_buf_addf(&b, "%s\n {\"id\": \"r%d\", \"answer\": \"", i ? "," : "", i);
			for (int k = 0; k < 30000; k++) rag_buf_adds(&b, "ab\\\"]}");
			rag_buf_adds(&b, "\"}");
		}
		rag_buf_adds(&b, "]\n");
		rag_buf_add(&b, "", 1);
		streamed("big.json", b.p, two);
		is_int(jv_is_valid(two[0]) ? jv_array_length(jv_copy(two[0])) : -1, 3, "three 180 KB records: %s", serr);
		is_str(dump(two[1]), "[2,3,4]", "each on its line");
		jv_free(two[0]);
		rag_buf_free(&b);
	}

	/* many small records over many windows, blank lines and multi-line units among them: each
	 * record's line as the whole-file reader counts it (the streamed reader counts a window's
	 * newlines once, from the last record on) */
	{
		static const char *kind[] = {"jsonl", "csv"};
		int f;
		for (f = 0; f < 2; f++) {
			rag_buf b = {0};
			jv two[2], lines, recs;
			char name[16];
			int i;
			if (f) rag_buf_adds(&b, "id,answer\n");
			for (i = 0; i < 6000; i++) {
				if (f) rag_buf_addf(&b, i % 7 ? "r%d,plain %d\n" : "r%d,\"two\nlines %d\"\n", i, i);
				else rag_buf_addf(&b, i % 7 ? "{\"id\":\"r%d\",\"n\":%d}\n" : "{\"id\":\"r%d\",\n\"n\":%d}\n\n", i, i);
			}
			rag_buf_add(&b, "", 1);
			snprintf(name, sizeof name, "many.%s", kind[f]);
			streamed(name, b.p, two);
			recs = rag_testset_parse_lines(b.p, b.len - 1, name, RAG_TESTSET_AUTO, &lines, err, sizeof err);
			is_int(jv_is_valid(two[0]) ? jv_array_length(jv_copy(two[0])) : -1, 6000,
			       "%s: 6,000 records over %zu windows of 64 KiB: %s", name, b.len / 65536 + 1, serr);
			ok(jv_is_valid(recs) && jv_equal(jv_copy(lines), jv_copy(two[1])),
			   "%s: each record's line, as read whole", name);
			is_int(jv_is_valid(two[1]) ? (int)jv_number_value(jv_array_get(jv_copy(two[1]), 5999)) : -1,
			       f ? 6000 + 857 + 1 : 6000 + 2 * 857,
			       "%s: the last record's line counts every newline before it", name);
			jv_free(two[0]);
			jv_free(two[1]);
			jv_free(lines);
			jv_free(recs);
			rag_buf_free(&b);
		}
	}
	/* each id once in a test set to score or keep: --resume and --baseline match records by id,
	 * and a repeated one hid a record (issue 35, item 6) */
	is_str(read_set("t.jsonl", "{\"id\":\"q-1\"}\n{\"id\":\"q-2\"}\n{\"id\":\"q-3\"}\n{\"id\":\"q-2\"}\n"),
	       "invalid", "JSON Lines: an id that repeats is refused");
	is_str(err, "t.jsonl:4: id \"q-2\" repeats line 2", "...naming the id and both lines");
	is_str(read_set("t.json", "[\n  {\"id\": \"a\"},\n  {\n    \"id\": \"b\"\n  },\n  {\"id\": \"a\"}\n]\n"), "invalid",
	       "a JSON array: refused");
	is_str(err, "t.json:6: id \"a\" repeats line 2", "...at the lines its records start on");
	is_str(read_set("t.csv", "id,question\nd,q\ne,r\nd,s\n"), "invalid", "CSV: refused");
	is_str(err, "t.csv:4: id \"d\" repeats line 2", "...by its rows' lines");
	is_str(read_set("t.jsonl", "{\"id\":7}\n{\"id\":\"7\"}\n"), "invalid", "a number id and its text are one id");
	is_str(err, "t.jsonl:2: id \"7\" repeats line 1", "...named as text");
	is_str(read_set("t.jsonl", "{\"sampleId\":\"s\"}\n{\"id\":\"s\"}\n"), "invalid", "an id given by its alias too");
	is_str(read_set("t.jsonl", "{\"q\":1}\n{\"id\":\"case-1\"}\n"), "invalid",
	       "a given id equal to the case-N of a record without one is refused");
	is_str(err, "t.jsonl:2: id \"case-1\" repeats line 1 (the record on line 1 has no id: \"case-1\" is the one its "
	       "place in the file gives it)", "...saying which record has none");
	is_str(read_set("t.jsonl", "{\"id\":\"case-2\"}\n{\"q\":1}\n"), "invalid", "...in either order");
	is_str(err, "t.jsonl:2: id \"case-2\" repeats line 1 (the record on line 2 has no id: \"case-2\" is the one its "
	       "place in the file gives it)", "...saying which record has none");
	is_str(read_set("t.jsonl", "{\"id\":\"a\"}\n{\"q\":1}\n{\"id\":\"case-3\"}\n{\"id\":\"A\"}\n"),
	       "[{\"id\":\"a\"},{\"id\":\"case-2\",\"q\":1},{\"id\":\"case-3\"},{\"id\":\"A\"}]",
	       "ids that differ (in case too), a made one beside a given one of another place: read");
	{
		const char *rows = "id,label\nd,1\nd,0\n";
		is_str(dump(rag_testset_parse(rows, strlen(rows), "l.csv", RAG_TESTSET_AUTO, err, sizeof err)),
		       "[{\"id\":\"d\",\"label\":\"1\"},{\"id\":\"d\",\"label\":\"0\"}]",
		       "rows of a sheet (rag_testset_parse: rag-agree's labels, rag-gen --check) may repeat an id");
	}
	{
		/* record by record, the records before the repeat are given, then the reading stops */
		const char *text = "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"a\"}\n{\"id\":\"c\"}\n";
		FILE *f = fmemopen((void *)text, strlen(text), "r");
		jv two[2] = {jv_array(), jv_array()};
		int rc = rag_testset_each(f, "s.jsonl", RAG_TESTSET_AUTO, NULL, take, two, serr, sizeof serr);
		is_str(dump(jv_copy(two[0])), "[{\"id\":\"a\"},{\"id\":\"b\"}]", "record by record: those before the repeat");
		ok(rc == -1 && !strcmp(serr, "s.jsonl:3: id \"a\" repeats line 1"), "...then -1 with the message: %s", serr);
		jv_free(two[0]);
		jv_free(two[1]);
		fclose(f);
	}
	return done_testing();
}
