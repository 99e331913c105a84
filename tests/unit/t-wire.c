/* wire.c: event streams, chat and embeddings replies and error bodies of any shape, from bytes. */
#include "base.h"
#include "llm.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static const char *dump(jv v)
{
	static char buf[4096];
	jv s = jv_dump_string(v, JV_PRINT_SORTED);
	snprintf(buf, sizeof buf, "%s", jv_string_value(s));
	jv_free(s);
	return buf;
}

/* the events of s as JSON text, or "ERR: message" */
static const char *sse(const char *s)
{
	static char buf[4096];
	char err[RAG_ERRLEN] = "";
	jv v = rag_wire_sse(s, strlen(s), err, sizeof err);
	if (!jv_is_valid(v)) {
		jv_free(v);
		snprintf(buf, sizeof buf, "ERR: %s", err);
		return buf;
	}
	return dump(v);
}

static void streams(void)
{
	is_str(sse("data: {\"a\":1}\n\ndata: [DONE]\n\n"), "[{\"a\":1}]", "sse: an event and [DONE]");
	is_str(sse(": hi\r\nevent: x\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata: [DONE]"), "[{\"a\":1}]",
	       "sse: comments, fields, data over two lines, CR LF, [DONE] without its blank line");
	is_str(sse("data: Hello \n\ndata: world\n\n"), "[\"Hello \",\"world\"]",
	       "sse: plain text events, whole, no [DONE]: accepted as text");
	is_str(sse("data: 1\n\ndata: [DONE]\n\ndata: {\"after\": 1}\n"), "[1]", "sse: nothing after [DONE]");
	/* the case: cut in the middle of an event, the connection closed */
	ok(!strncmp(sse("data: {\"choices\": [{\"delta\": {\"content\": \"The capital is \"}}]}\n\n"
	                "data: {\"choices\": [{\"delta\": {\"content\": \"Par"), "ERR: the stream was cut", 23),
	   "sse: cut mid-event: an error, never text (%s)", sse("data: {\"a\": \"Par"));
	ok(!strncmp(sse("data: {\"choices\": [{\"delta\": {\"content\": \"The capital is \"}}]}\n\n"),
	            "ERR: the stream was cut", 23), "sse: OpenAI's chunks without [DONE]: cut");
	ok(!strncmp(sse("data: hello\n"), "ERR: the stream was cut", 23),
	   "sse: an event without its blank line at the end: cut");
	ok(!strncmp(sse("data: hello\n\n: keep-al"), "ERR: the stream was cut", 23),
	   "sse: the bytes end inside a line (even a comment): cut");
	is_str(sse("data: hello\n\n: keep-alive\n"), "[\"hello\"]",
	       "sse: a whole comment after the last whole event, no [DONE]: whole");
	is_str(sse("data: hello\n\nevent: end\n"), "[\"hello\"]",
	       "sse: a field without data after the last event: whole");
	ok(!strncmp(sse("data: {\"a\": 1\n\ndata: [DONE]\n\n"), "ERR: event 1 of the stream is not JSON", 38),
	   "sse: an event that starts as JSON and does not parse: an error (%s)", sse("data: {\"a\": 1\n\n"));
	ok(!strncmp(sse(""), "ERR: the stream has no event", 28), "sse: an empty stream is no answer");
	ok(!strncmp(sse(": only a comment\n\n"), "ERR: the stream has no event", 28), "sse: only comments: no answer");
	is_str(sse("data: [DONE]\n\n"), "[]", "sse: [DONE] alone: whole, no events");
	{
		char err[RAG_ERRLEN] = "";
		const char *in = "data: {\"a\": \"x\ty\001\n\n";
		jv v = rag_wire_sse(in, strlen(in), err, sizeof err);
		ok(!jv_is_valid(v) && !strpbrk(err, "\t\n\r\001"), "sse: the message has no control characters (%s)", err);
		jv_free(v);
	}
}

static const char *chat(const char *s, int n)
{
	static char buf[4096];
	char err[RAG_ERRLEN] = "";
	jv v = rag_wire_chat(s, strlen(s), n, err, sizeof err);
	if (!jv_is_valid(v)) {
		jv_free(v);
		snprintf(buf, sizeof buf, "ERR: %s", err);
		return buf;
	}
	return dump(v);
}

static void chats(void)
{
	is_str(chat("{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":3}}", 1),
	       "{\"content\":\"hi\",\"finish_reason\":\"length\",\"usage\":{\"prompt_tokens\":3}}", "chat: content, finish_reason, usage");
	is_str(chat("{\"choices\":[{\"message\":{\"content\":\"a\"}},{\"message\":{\"content\":\"b\"}}]}", 3),
	       "{\"choices\":[\"a\",\"b\"],\"content\":\"a\",\"finish_reason\":\"stop\",\"usage\":null}", "chat: n choices, as many as came");
	is_str(chat("{\"choices\":[{\"message\":{\"content\":\"a\"}},{\"message\":5}]}", 2),
	       "{\"choices\":[\"a\"],\"content\":\"a\",\"finish_reason\":\"stop\",\"usage\":null}", "chat: a choice of another shape: the first alone");
	static const char *const bad[] = {"[]", "{\"choices\":{}}", "{\"choices\":[5]}", "{\"choices\":[{\"message\":\"x\"}]}",
	                                  "{\"choices\":[{\"message\":{\"content\":[1]}}]}", "\"str\"", "null", "{\"error\":\"x\"}"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		is_str(chat(bad[i], 2), "ERR: endpoint reply has no choices[0].message.content", "chat: %s is no content", bad[i]);
	is_str(chat("<html>", 1), "ERR: endpoint returned a body that is not JSON", "chat: not JSON");
	is_str(chat("", 1), "ERR: endpoint returned a body that is not JSON", "chat: empty");
}

static void embeds(void)
{
	static const struct { const char *in; int want, dims; const char *out; } cases[] = {
		{"{\"data\":[{\"index\":1,\"embedding\":[2]},{\"index\":0,\"embedding\":[1]}],\"usage\":{\"prompt_tokens\":2}}", 2, 0, "[[1],[2]]"},
		{"{\"data\":[{\"embedding\":[1,2]}]}", 1, 2, "[[1,2]]"},
		{"{\"data\":[{\"embedding\":[1,2]}]}", 1, 3, "ERR: dimension mismatch: embedding 0 has 2 numbers, expected 3"},
		{"{\"data\":[{\"embedding\":[1]},{\"embedding\":[1,2]}]}", 2, 0, "ERR: dimension mismatch: embedding 1 has 2 numbers, expected 1"},
		{"{\"data\":[{\"index\":0,\"embedding\":[1]},{\"index\":0,\"embedding\":[1]}]}", 2, 0, "ERR: embeddings reply: index 0 appears twice"},
		{"{\"data\":[{\"index\":5,\"embedding\":[1]}]}", 1, 0, "ERR: embeddings reply: data[0] has an index out of range"},
		{"{\"data\":[5]}", 1, 0, "ERR: embeddings reply: data[0].embedding is not a non-empty array of numbers"},
		{"{\"data\":[{\"embedding\":[\"1\"]}]}", 1, 0, "ERR: embeddings reply: data[0].embedding is not a non-empty array of numbers"},
		{"{\"data\":[]}", 1, 0, "ERR: embeddings reply has an empty data list for 1 texts"},
		{"{\"data\":5}", 1, 0, "ERR: embeddings reply has no data array"},
		{"[]", 1, 0, "ERR: embeddings reply has no data array"},
		{"nope", 1, 0, "ERR: endpoint returned a body that is not JSON"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char err[RAG_ERRLEN] = "", buf[4200];
		jv u;
		jv v = rag_wire_embed(cases[i].in, strlen(cases[i].in), cases[i].want, cases[i].dims, &u, err, sizeof err);
		if (jv_is_valid(v)) snprintf(buf, sizeof buf, "%s", dump(v));
		else jv_free(v), snprintf(buf, sizeof buf, "ERR: %s", err);
		is_str(buf, cases[i].out, "embeddings: %s", cases[i].in);
		jv_free(u);
	}
}

static void errors(void)
{
	static const struct { const char *in; size_t max; const char *out; } cases[] = {
		{"{\"error\": {\"message\": \"Incorrect key\", \"type\": \"x\"}}", 0, "Incorrect key"},
		{"{\"error\": \"invalid key\"}", 0, "invalid key"},
		{"{\"error\": {\"code\": 5}}", 0, "{\"code\":5}"},
		{"{\"detail\": \"Not authenticated\"}", 0, "Not authenticated"},
		{"{\"detail\": [{\"msg\": \"field required\"}]}", 0, "[{\"msg\":\"field required\"}]"},
		{"{\"message\": \"Forbidden\"}", 0, "Forbidden"},
		{"{\"error\": null, \"message\": \"m\"}", 0, "m"},
		{"[]", 0, "[]"},
		/* Gemini's OpenAI compatibility: a list of one error; vLLM's bare error object */
		{"[{\"error\": {\"code\": 400, \"message\": \"Invalid JSON payload\", \"status\": \"INVALID_ARGUMENT\"}}]",
		 0, "Invalid JSON payload"},
		{"[{\"e\": 1}]", 0, "[{\"e\":1}]"},
		{"{\"object\": \"error\", \"message\": \"too long\", \"type\": \"BadRequestError\", \"code\": 400}", 0,
		 "too long"},
		{"{}", 0, "{}"},
		{"\"quoted\"", 0, "quoted"},
		{"<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\t<h1>404</h1>\001</body></html>", 0,
		 "404 Not Found 404"},
		{"plain\ntext\r\nover lines", 0, "plain text over lines"},
		{"0123456789abcdef", 10, "0123456..."},
		{"\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad\xe6\x96\x87", 8, "\xe4\xb8\xad..."},
		{"bad \xff utf-8", 0, "bad \xef\xbf\xbd utf-8"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *m = rag_wire_error(cases[i].in, strlen(cases[i].in), cases[i].max);
		is_str(m ? m : "(null)", cases[i].out, "error body %zu", i);
		free(m);
	}
	{
		char *m = rag_wire_error("", 0, 0), *m2 = rag_wire_error(" \r\n<br>\t", 8, 0);
		ok(!m && !m2, "an empty body (or only blanks and tags) says nothing");
		free(m);
		free(m2);
	}
	{
		char *m = rag_wire_error("a\0b", 3, 0);
		is_str(m ? m : "(null)", "a", "a NUL ends the text");
		free(m);
	}
}

int main(void)
{
	streams();
	chats();
	embeds();
	errors();
	return done_testing();
}
