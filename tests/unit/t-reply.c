/* reply.c and record.c: the judge's reply found in prose, aliases (prompt.c: t-prompt.c). */
#include "record.h"
#include "llm.h"
#include "tap.h"

#include <stdlib.h>

static const char *dump(jv v)
{
	static char buf[4096];
	jv s = jv_dump_string(v, JV_PRINT_SORTED);
	snprintf(buf, sizeof buf, "%s", jv_string_value(s));
	jv_free(s);
	return buf;
}

static void reply_cases(void)
{
	static const struct { const char *in, *want; } cases[] = {
		{"{\"claims\":[\"a\"]}", "{\"claims\":[\"a\"]}"},
		{"  \n{\"a\":1}\n", "{\"a\":1}"},
		{"```json\n{\"a\":1}\n```", "{\"a\":1}"},
		{"Here you go:\n```\n[1,2]\n```\nanything else?", "[1,2]"},
		{"Sure! {\"verdicts\": [{\"id\": 1, \"verdict\": true}]} Hope that helps.",
		 "{\"verdicts\":[{\"id\":1,\"verdict\":true}]}"},
		{"The list: [\"x\", \"y\"] done", "[\"x\",\"y\"]"},
		{"{\"t\":\"中文\"}", "{\"t\":\"中文\"}"},
		/* near-JSON with one reading, repaired */
		{"{\"claims\": [\"a\", \"b\", ]}", "{\"claims\":[\"a\",\"b\"]}"},
		{"{\"verdicts\": [{\"id\": 1, \"verdict\": true,},\n ]\n}", "{\"verdicts\":[{\"id\":1,\"verdict\":true}]}"},
		{"{'claims': ['a', 'b']}", "{\"claims\":[\"a\",\"b\"]}"},
		{"{'verdicts': [{'id': 1, 'verdict': True, 'reason': None}, {'id': 2, 'verdict': False}]}",
		 "{\"verdicts\":[{\"id\":1,\"reason\":null,\"verdict\":true},{\"id\":2,\"verdict\":false}]}"},
		{"{'claims': [\"It's red\", 'He said \"hi\"', 'don\\'t']}",
		 "{\"claims\":[\"It's red\",\"He said \\\"hi\\\"\",\"don't\"]}"},
		{"Here's my answer:\n```python\n{'claims': ['x',]}\n```", "{\"claims\":[\"x\"]}"},
		{"Sure: {'a': 'True, False, None', 'b': True}", "{\"a\":\"True, False, None\",\"b\":true}"},
		{"{\"a\": \"keep , ] and 'quotes'\", }", "{\"a\":\"keep , ] and 'quotes'\"}"},
	};
	size_t i;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		jv v = rag_reply_json(cases[i].in);
		ok(jv_is_valid(v), "reply %zu parses", i);
		is_str(jv_is_valid(v) ? dump(v) : "(invalid)", cases[i].want, "reply %zu value", i);
		if (!jv_is_valid(v)) jv_free(v);
	}
	{
		jv v = rag_reply_json("I cannot help with that.");
		ok(!jv_is_valid(v), "prose without JSON is an error");
		jv_free(v);
		v = rag_reply_json("42");
		ok(!jv_is_valid(v), "a bare number is not a usable reply");
		jv_free(v);
		v = rag_reply_json("{\"a\": [1, 2}");
		ok(!jv_is_valid(v), "broken JSON is an error, not a guess");
		jv_free(v);
		v = rag_reply_json("{'a': 'never ends}");
		ok(!jv_is_valid(v), "a single-quoted string that does not end is not repaired");
		jv_free(v);
		v = rag_reply_json("{\"a\": [1,, 2]}");
		ok(!jv_is_valid(v), "a doubled comma is not a trailing comma");
		jv_free(v);
		v = rag_reply_json("{\"a\": Truely}");
		ok(!jv_is_valid(v), "only the whole words True, False, None are Python's");
		jv_free(v);
	}
}

static void record_cases(void)
{
	jv rec = jv_parse("{\"user_input\":\"q?\",\"response\":\"a.\",\"retrieved_contexts\":"
	                  "[\"c1\",{\"id\":\"k\",\"text\":\"c2\"}]}");
	jv c;
	is_str(rag_record_str(rec, "question"), "q?", "user_input is question");
	is_str(rag_record_str(rec, "answer"), "a.", "response is answer");
	c = rag_record_contexts(rec);
	is_str(dump(c), "[\"c1\",\"c2\"]", "contexts from strings and {text}");
	jv_free(rec);
	rec = jv_parse("{\"contexts\": 5}");
	c = rag_record_contexts(rec);
	ok(!jv_is_valid(c), "contexts of the wrong type is an error");
	{
		jv m = jv_invalid_get_msg(c);
		is_str(jv_string_value(m), "field \"contexts\" is number, not an array", "and says so");
		jv_free(m);
	}
	jv_free(rec);
	rec = jv_parse("{\"contexts\": [\"a\", {\"id\": 1}]}");
	c = rag_record_contexts(rec);
	ok(!jv_is_valid(c), "a context object without text is an error");
	jv_free(c);
	rec = rag_record_error(rec, "rag-x", "m", "bad %d", 7);
	rec = rag_record_set(rec, "scores", "m", jv_null());
	is_str(dump(jv_copy(rec)), "{\"contexts\":[\"a\",{\"id\":1}],\"errors\":[{\"message\":\"bad 7\",\"metric\":\"m\",\"tool\":\"rag-x\"}],\"scores\":{\"m\":null}}",
	       "errors and scores land where the schema says");
	jv_free(rec);
	rec = jv_parse("{\"errors\": \"upstream text\"}");
	rec = rag_record_error(rec, "rag-x", NULL, "e");
	is_str(dump(jv_copy(rec)), "{\"errors\":[{\"message\":\"e\",\"tool\":\"rag-x\"}],\"errors_input\":\"upstream text\"}",
	       "a foreign errors field is kept aside, not lost");
	jv_free(rec);
}

int main(void)
{
	reply_cases();
	record_cases();
	return done_testing();
}
