/* t-record.c - the record format's one table of field names (lib/record.c): our names and
 * their aliases (RAGAS, a Java test set's camelCase), access by any name, a test set's records
 * renamed to ours, the did-you-mean check, and a fields: mapping of jq programs. */
#include "base.h"
#include "record.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* v (borrowed) as compact JSON with sorted keys */
static char out[2048];
static const char *dump(jv v)
{
	jv d = jv_dump_string(jv_copy(v), JV_PRINT_SORTED);
	snprintf(out, sizeof out, "%s", jv_string_value(d));
	jv_free(d);
	return out;
}

static int take(jv rec, size_t line, void *ctx)
{
	jv *all = ctx;
	(void)line;
	*all = jv_array_append(*all, rec);
	return 0;
}

/* the records of text as the test set reader gives them with the mapping m (rag_testset_each,
 * as rag-eval reads a test set), or invalid with err */
static jv read_mapped(const char *text, rag_fieldmap *m, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	jv all = jv_array();
	if (!f || rag_testset_each(f, "s.jsonl", RAG_TESTSET_AUTO, m, take, &all, err, errlen) < 0) {
		jv_free(all);
		all = jv_invalid();
	}
	if (f) fclose(f);
	return all;
}

static const char *sug(const char *name)
{
	const char *s = rag_record_suggest(name);
	return s ? s : "(none)";
}

int main(void)
{
	static const char *const pairs[][2] = {
		{"user_input", "question"}, {"response", "answer"}, {"retrieved_contexts", "contexts"},
		{"ground_truth", "reference"}, {"reference_context_ids", "relevant_ids"},
		{"retrieved_context_ids", "context_ids"}, {"sampleId", "id"}, {"question", "question"},
		{"referenceAnswer", "reference"}, {"groundTruth", "reference"}, {"expectedAnswer", "reference"},
		{"retrievedContexts", "contexts"}, {"relevantDocIds", "relevant_ids"}, {"contextIds", "context_ids"},
		{"referenceContexts", "reference_contexts"}, {"mustContain", "must_contain"}, {"category", "category"},
		{"myNotes", "myNotes"},
	};
	char err[RAG_ERRLEN];
	const char *text;
	rag_fieldmap *m;
	size_t i;
	jv rec, v;

	/* every name to ours */
	for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
		is_str(rag_record_canonical(pairs[i][0]), pairs[i][1], "%s is %s", pairs[i][0], pairs[i][1]);
	ok(rag_record_is_field("relevantDocIds") && !rag_record_is_field("scores"), "a field of the format, not one a tool writes");
	ok(rag_record_known("scores") && rag_record_known("questions") && !rag_record_known("myNotes"), "known names");

	/* access: ours first, then the first alias the record has */
	rec = jv_parse("{\"groundTruth\": \"g\", \"expectedAnswer\": \"e\", \"relevantDocIds\": [\"d1\"]}");
	is_str(rag_record_str(rec, "reference"), "g", "reference from groundTruth, the earlier alias");
	is_str(rag_record_str(rec, "ground_truth"), "g", "by an alias of it too");
	v = rag_record_get(rec, "relevant_ids");
	is_str(dump(v), "[\"d1\"]", "relevant_ids from relevantDocIds");
	jv_free(v);
	rec = jv_object_set(rec, jv_string("reference"), jv_string("r"));
	is_str(rag_record_str(rec, "reference"), "r", "ours first");
	jv_free(rec);

	/* a test set's record renamed to our names; ours kept when both are there */
	rec = rag_record_normalize(jv_parse("{\"sampleId\": \"s1\", \"groundTruth\": \"g\", \"expectedAnswer\": \"e\", "
	                                    "\"answer\": \"a\", \"response\": \"r\", \"myNotes\": 1}"));
	is_str(dump(rec), "{\"answer\":\"a\",\"expectedAnswer\":\"e\",\"id\":\"s1\",\"myNotes\":1,\"reference\":\"g\",\"response\":\"r\"}",
	       "sampleId -> id, groundTruth -> reference; a second alias and an alias beside ours pass through");
	jv_free(rec);

	/* did you mean */
	is_str(sug("referenceAnswr"), "referenceAnswer", "referenceAnswr: one edit from referenceAnswer");
	is_str(sug("referenceAnsewr"), "referenceAnswer", "two edits in a long name");
	is_str(sug("Question"), "question", "another case");
	is_str(sug("relevant-ids"), "relevant_ids", "another separator");
	is_str(sug("ID"), "id", "a short name in another case");
	is_str(sug("answers"), "answer", "one edit in a short name");
	is_str(sug("question_zh"), "(none)", "two edits in a short name: the user's own");
	is_str(sug("expected"), "(none)", "expected is not expect");
	is_str(sug("myNotes"), "(none)", "far from every name");
	is_str(sug("ids"), "(none)", "a short name one edit away: the user's own");
	is_str(sug("hang"), "(none)", "hang is not lang");
	is_str(sug("Lang"), "lang", "but Lang is");
	is_str(sug("score"), "(none)", "never a name the tools write (scores)");
	is_str(sug("groundTruth"), "(none)", "an alias is known");

	/* fields: jq programs, compiled once, over the record as it came */
	m = rag_fieldmap_new();
	ok(rag_fieldmap_add(m, "reference", ".expected.text", "fields.reference", err, sizeof err) == 0, "a path");
	ok(rag_fieldmap_add(m, "groundTruth", ".gt", "fields.groundTruth", err, sizeof err) == 0, "an alias names ours");
	ok(rag_fieldmap_add(m, "id", ".meta.key", "fields.id", err, sizeof err) == 0, "the id");
	ok(rag_fieldmap_add(m, "question", ".id", "fields.question", err, sizeof err) == 0, "a program reads the record as it came");
	is_int(rag_fieldmap_count(m), 3, "groundTruth replaced reference's program: 3 fields");
	ok(rag_fieldmap_add(m, "refrence", ".x", "fields.refrence", err, sizeof err) < 0 &&
	   !strncmp(err, "fields.refrence: \"refrence\" is not a field", 42), "an unknown field: %s", err);
	ok(rag_fieldmap_add(m, "answer", ".x[", "--field answer", err, sizeof err) < 0 &&
	   !strncmp(err, "--field answer: the jq program does not compile", 47), "a program that does not compile: %s", err);
	is_int(rag_fieldmap_count(m), 3, "a failed add changes nothing");
	rec = jv_parse("{\"id\": \"old\", \"gt\": \"G\", \"meta\": {\"key\": 7}}");
	ok(rag_fieldmap_apply(m, &rec, err, sizeof err) == 0, "applied");
	is_str(dump(rec), "{\"gt\":\"G\",\"id\":7,\"meta\":{\"key\":7},\"question\":\"old\",\"reference\":\"G\"}",
	       "mapped: the mapping over the record's own; the sources kept");
	jv_free(rec);
	rec = jv_parse("{\"gt\": null, \"reference\": \"kept\"}");
	ok(rag_fieldmap_apply(m, &rec, err, sizeof err) == 0, "null results");
	is_str(rag_record_str(rec, "reference"), "kept", "a program that finds null leaves the field as it is");
	jv_free(rec);
	rag_fieldmap_free(m);
	m = rag_fieldmap_new();
	ok(rag_fieldmap_add(m, "reference", ".expected.text", "fields.reference", err, sizeof err) == 0, "a path again");
	rec = jv_parse("{\"expected\": \"a string\"}");
	ok(rag_fieldmap_apply(m, &rec, err, sizeof err) < 0 && strstr(err, "fields.reference: the jq program failed: Cannot index string"),
	   "a program that fails on a record: %s", err);
	jv_free(rec);

	/* the test set reader: the mapping, then the aliases, then the ids */
	text = "{\"expected\": {\"text\": \"x\"}, \"sampleId\": 5}\n{\"question\": \"q\"}\n";
	rec = read_mapped(text, m, err, sizeof err);
	is_str(dump(rec), "[{\"expected\":{\"text\":\"x\"},\"id\":\"5\",\"reference\":\"x\"},{\"id\":\"case-2\",\"question\":\"q\"}]",
	       "mapped, renamed, ids as text and case-N");
	jv_free(rec);
	text = "{}\n{\"expected\": 1}\n";
	rec = read_mapped(text, m, err, sizeof err);
	ok(!jv_is_valid(rec) && !strncmp(err, "s.jsonl: record 2: fields.reference: the jq program failed", 58),
	   "a failing record named: %s", err);
	jv_free(rec);
	rag_fieldmap_free(m);
	text = "sampleId,relevantDocIds,groundTruth\ns1,\"[\"\"d1\"\"]\",g\n";
	rec = rag_testset_parse(text, strlen(text), "s.csv", RAG_TESTSET_AUTO, err, sizeof err);
	is_str(dump(rec), "[{\"id\":\"s1\",\"reference\":\"g\",\"relevant_ids\":[\"d1\"]}]", "CSV: a relevantDocIds column holds JSON");
	jv_free(rec);
	/* near misses record by record, as rag-eval reads a test set: each name once, in the order met */
	{
		jv seen = jv_object();
		rec = jv_parse("{\"referenceAnswr\": 1, \"myNotes\": 2, \"Question\": 3}");
		v = rag_record_near_misses(rec, &seen);
		jv_free(rec);
		rec = jv_parse("{\"referenceAnswr\": 1, \"ids\": 4}");
		v = jv_array_concat(v, rag_record_near_misses(rec, &seen));
		is_str(dump(v), "[[\"referenceAnswr\",\"referenceAnswer\"],[\"Question\",\"question\"]]",
		       "near misses: each name once, in the order met");
		jv_free(v);
		jv_free(rec);
		jv_free(seen);
	}

	/* a required text: one wording for every tool, the field by our name */
	rec = jv_parse("{\"response\": \"yes\", \"question\": \"\", \"reference\": null, \"contexts\": [\"c\"], "
	               "\"notes\": 3, \"id\": \"a\\u0000b\"}");
	is_int(rag_record_need_text(rec, "answer", 0, &text, err, sizeof err), 0, "need_text: a string by its alias");
	is_str(text, "yes", "need_text: its text");
	is_int(rag_record_need_text(rec, "question", 0, &text, err, sizeof err), 0, "need_text: \"\" is a text");
	is_int(rag_record_need_text(rec, "user_input", RAG_FIELD_NONEMPTY, &text, err, sizeof err), -1,
	       "need_text: \"\" is not, when it must not be empty");
	is_str(err, "field \"question\" is empty", "need_text: empty, by our name");
	ok(text == NULL, "need_text: no text on an error");
	is_int(rag_record_need_text(rec, "groundTruth", 0, &text, err, sizeof err), -1, "need_text: null");
	is_str(err, "field \"reference\" is null, not a string", "need_text: null is not a string");
	is_int(rag_record_need_text(rec, "contexts", 0, &text, err, sizeof err), -1, "need_text: an array");
	is_str(err, "field \"contexts\" is array, not a string", "need_text: an array is not a string");
	is_int(rag_record_need_text(rec, "notes", 0, &text, err, sizeof err), -1, "need_text: a number");
	is_str(err, "field \"notes\" is number, not a string", "need_text: a field not of the format, by its name");
	is_int(rag_record_need_text(rec, "must_contain", 0, &text, err, sizeof err), -1, "need_text: absent");
	is_str(err, "record has no \"must_contain\" field", "need_text: absent, by our name");
	is_int(rag_record_need_text(rec, "sampleId", 0, &text, err, sizeof err), -1, "need_text: a NUL");
	is_str(err, "field \"id\" contains a NUL character (\\u0000)", "need_text: a NUL, by our name");
	/* an optional text: absent or null is none, another kind is still an error */
	text = "x";
	is_int(rag_record_need_text(rec, "must_contain", RAG_FIELD_OPTIONAL, &text, err, sizeof err), 0,
	       "need_text optional: absent");
	ok(text == NULL, "need_text optional: absent is no text");
	is_int(rag_record_need_text(rec, "groundTruth", RAG_FIELD_OPTIONAL, &text, err, sizeof err), 0,
	       "need_text optional: null");
	is_int(rag_record_need_text(rec, "contexts", RAG_FIELD_OPTIONAL, &text, err, sizeof err), -1,
	       "need_text optional: an array");
	is_str(err, "field \"contexts\" is array, not a string", "need_text optional: an array is not a string");
	is_int(rag_record_need_text(rec, "response", RAG_FIELD_OPTIONAL, &text, err, sizeof err), 0,
	       "need_text optional: a text");
	is_str(text ? text : "(null)", "yes", "need_text optional: the text");
	jv_free(rec);

	/* the record's id as text: rag_json_id's, or NULL */
	{
		static const char *const recs[][2] = {
			{"{\"id\": \"q1\"}", "q1"}, {"{\"id\": 0.1}", "0.1"}, {"{\"id\": 7}", "7"},
			{"{\"id\": [1]}", "[1]"}, {"{\"id\": null}", NULL}, {"{\"q\": 1}", NULL},
		};
		for (i = 0; i < sizeof recs / sizeof recs[0]; i++) {
			char *id;
			rec = jv_parse(recs[i][0]);
			id = rag_record_id(rec);
			is_str(id ? id : "(null)", recs[i][1] ? recs[i][1] : "(null)", "rag_record_id of %s", recs[i][0]);
			free(id);
			jv_free(rec);
		}
	}
	/* claims.<field>: the array, or why not, by its state */
	{
		static const struct { const char *rec; int state; const char *msg; } cases[] = {
			{"{\"claims\": {\"answer\": [\"a\", \"b\"]}}", RAG_CLAIMS_OK, NULL},
			{"{\"answer\": \"a\"}", RAG_CLAIMS_ABSENT, "record has no claims.answer: run rag-claims first"},
			{"{\"claims\": \"a\"}", RAG_CLAIMS_ABSENT, "record has no claims.answer: run rag-claims first"},
			{"{\"claims\": {\"answer\": null}}", RAG_CLAIMS_FAILED,
			 "claims.answer is null: the claims stage failed for this record"},
			{"{\"claims\": {\"answer\": \"a\"}}", RAG_CLAIMS_BAD, "claims.answer is string, not an array"},
			{"{\"claims\": {\"answer\": [\"a\", 1]}}", RAG_CLAIMS_BAD, "claims.answer[1] is not a string"},
			{"{\"claims\": {\"answer\": [\"a\\u0000\"]}}", RAG_CLAIMS_BAD,
			 "claims.answer[0] contains a NUL character (\\u0000)"},
		};
		for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			int state = -1;
			jv c;
			rec = jv_parse(cases[i].rec);
			c = rag_record_claims(rec, "answer", &state);
			is_int(state, cases[i].state, "rag_record_claims' state of %s", cases[i].rec);
			if (cases[i].msg) {
				jv msg = jv_invalid_get_msg(c);
				is_str(jv_get_kind(msg) == JV_KIND_STRING ? jv_string_value(msg) : "(none)", cases[i].msg,
				       "rag_record_claims' message of %s", cases[i].rec);
				jv_free(msg);
			} else {
				is_int(jv_array_length(c), 2, "rag_record_claims of %s: the array", cases[i].rec);
			}
			jv_free(rec);
		}
		{
			int state;
			jv msg;
			rec = jv_parse("{}");
			msg = jv_invalid_get_msg(rag_record_claims(rec, "reference", &state));
			is_str(jv_string_value(msg), "record has no claims.reference: run rag-claims --from reference first",
			       "rag_record_claims: the reference's claims come from rag-claims --from reference");
			jv_free(msg);
			jv_free(rec);
		}
	}
	return done_testing();
}
