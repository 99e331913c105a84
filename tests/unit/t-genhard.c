/* t-genhard.c - rag-gen's hard cases and review (lib/genhard.c, lib/genreview.c): the offline
 * rules, the reply check, the review sheet read back (and its errors), the edits applied, the
 * test-set check; and record.c's refusal marker and a follow-up's question in context. */
#include "base.h"
#include "record.h"
#include "gen.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static jv cases(void)
{
	return jv_parse("[{\"id\":\"a\",\"question\":\"How efficient is a solar panel?\",\"reference\":\"About 20 percent.\","
	                "\"relevant_ids\":[\"d#1\"],\"difficulty\":\"easy\",\"type\":\"factual\",\"category\":\"solar\"},"
	                "{\"id\":\"b\",\"question\":\"Who invented the panel?\",\"expect\":\"refusal\",\"kind\":\"unanswerable\"},"
	                "{\"id\":\"c\",\"question\":\"pls how efficent is a solar panel??\",\"reference\":\"About 20 percent.\","
	                "\"relevant_ids\":[\"d#1\"],\"kind\":\"noisy\",\"variant_of\":\"a\"}]");
}

static const char *str(jv v, int i, const char *f)
{
	static char b[512];
	jv o = jv_array_get(jv_copy(v), i);
	rag_json_str(o, f, b, sizeof b);
	jv_free(o);
	return b;
}

int main(void)
{
	char err[RAG_ERRLEN], problem[RAG_ERRLEN], *s, *t, *term;
	const char *p;
	jv v, r, rows, out;
	int counts[4], n;

	/* noisy: deterministic, seeded by the question */
	s = rag_gen_noisy("What does the document say about solar panels?");
	t = rag_gen_noisy("What does the document say about solar panels?");
	is_str(s, t, "noisy: the same question, the same noise");
	ok(strcmp(s, "what does the document say about solar panels") != 0 && strstr(s, "??") != NULL,
	   "noisy: typos and a colloquial ending (%s)", s);
	free(s);
	free(t);
	s = rag_gen_noisy("电池板的效率是多少？");
	ok(strstr(s, "电池板的效率是多少？") != NULL && strcmp(s, "电池板的效率是多少？") != 0, "noisy Chinese: the question kept, an opening added");
	free(s);

	/* multi-hop: shared terms */
	n = rag_gen_shared("Solar panels make electricity.", "Dust lowers the electricity output of panels.", &term);
	is_int(n, 2, "two shared terms (panels, electricity)");
	is_str(term, "electricity", "the longest shared term");
	free(term);
	is_int(rag_gen_shared("Alpha beta.", "Gamma delta.", &term), 0, "no shared term");
	ok(term == NULL, "... and no term");
	ok(rag_gen_shared("太阳能电池板把阳光转换成电能。", "风力发电机把风能转换成电能。", &term) > 0, "Chinese: shared character pairs");
	free(term);
	v = rag_gen_offline_multihop("electricity", "A", "Solar panels make electricity. They are flat.", "B",
	                             "Panels need cleaning. Dust lowers electricity output.");
	v = JV_ARRAY(v);
	is_str(str(v, 0, "reference"), "Solar panels make electricity. Dust lowers electricity output.",
	       "multi-hop: the sentence of each chunk that holds the term");
	jv_free(v);

	/* unanswerable: an attribute no chunk names */
	s = rag_gen_offline_unanswerable("Solar panels", "en", "Who invented them: Becquerel.", 0);
	is_str(s, "How long is the warranty on Solar panels?", "unanswerable: an attribute the corpus names is skipped");
	free(s);
	s = rag_gen_offline_unanswerable("太阳能", "zh", "", 0);
	is_str(s, "太阳能是谁在哪一年发明的？", "unanswerable: Chinese");
	free(s);

	/* the reply check */
	p = rag_gen_hard_check(jv_parse("{\"question\":\"Q?\",\"reference\":\"\"}"), RAG_GEN_MULTI_HOP, &r, problem, sizeof problem);
	ok(p && strstr(p, "needs one"), "a multi-hop reply without a reference does not fit");
	p = rag_gen_hard_check(jv_parse("{\"question\":\"Q?\"}"), RAG_GEN_UNANSWERABLE, &r, problem, sizeof problem);
	ok(!p, "an unanswerable reply needs no reference");
	jv_free(r);
	p = rag_gen_hard_check(jv_parse("[1]"), RAG_GEN_NOISY, &r, problem, sizeof problem);
	ok(p != NULL, "not an object: does not fit");

	/* record.c */
	v = jv_parse("{\"expect\":\"refusal\"}");
	ok(rag_record_expects_refusal(v), "expect refusal");
	jv_free(v);
	v = jv_parse("{\"expect\":\"answer\"}");
	ok(!rag_record_expects_refusal(v), "another expect: no");
	jv_free(v);
	v = jv_parse("{\"history\":[{\"question\":\"What is X?\",\"answer\":\"A tool.\"}]}");
	s = rag_record_question_in_context(v, "And Y?");
	is_str(s, "Earlier turns of this conversation:\nQ: What is X?\nA: A tool.\n\nThe question now: And Y?", "a follow-up in context");
	free(s);
	jv_free(v);
	v = jv_parse("{\"history\":[]}");
	ok(rag_record_question_in_context(v, "Q?") == NULL, "no turn: the question alone");
	jv_free(v);

	/* the review sheet, read back */
	v = cases();
	s = rag_gen_review_sheet(v, 0, "t.jsonl");
	rows = rag_gen_review_read(s, strlen(s), "s.md", 0, err, sizeof err);
	is_int(jv_array_length(jv_copy(rows)), 3, "Markdown: a row a case read back");
	out = rag_gen_review_apply(v, rows, counts, err, sizeof err);
	is_int(jv_array_length(jv_copy(out)), 3, "an unedited sheet changes nothing");
	is_str(str(out, 0, "id"), "a", "... ids kept");
	is_int(counts[0], 3, "... all kept");
	jv_free(out);
	jv_free(rows);
	free(s);
	s = rag_gen_review_sheet(v, 1, NULL);
	rows = rag_gen_review_read(s, strlen(s), "s.csv", 1, err, sizeof err);
	is_int(jv_array_length(jv_copy(rows)), 3, "CSV: a row a case read back");
	jv_free(rows);
	free(s);
	{
		/* CSV injection: what a spreadsheet would run is written with a ' first, and read back as it was */
		jv hostile = jv_parse("[{\"id\":\"-a\",\"question\":\"=HYPERLINK(\\\"http://x\\\")\",\"reference\":\"@SUM(1)\","
		                      "\"kind\":\"+k\"},{\"id\":\"b\",\"question\":\"'=q\",\"reference\":\"-1\"}]");
		s = rag_gen_review_sheet(hostile, 1, NULL);
		is_str(s, "action,id,kind,question,reference\nkeep,\"'-a\",'+k,\"'=HYPERLINK(\"\"http://x\"\")\",\"'@SUM(1)\"\n"
		       "keep,\"b\",regular,\"''=q\",\"-1\"\n", "CSV sheet: formula cells begin with ', a number does not");
		rows = rag_gen_review_read(s, strlen(s), "s.csv", 1, err, sizeof err);
		is_str(str(rows, 0, "id"), "-a", "CSV read back: the id as it was");
		is_str(str(rows, 0, "question"), "=HYPERLINK(\"http://x\")", "... the question");
		is_str(str(rows, 0, "reference"), "@SUM(1)", "... the reference");
		is_str(str(rows, 1, "question"), "'=q", "... a text that began with ' too");
		is_str(str(rows, 1, "reference"), "-1", "... a number as it was");
		jv_free(rows);
		free(s);
		jv_free(hostile);
	}
	p = "| action | id | kind | question | reference |\n|---|---|---|---|---|\n| fix | a | regular | How \\| good? | Good. |\n"
	    "| drop | b | unanswerable | Who invented the panel? |  |\n";
	rows = rag_gen_review_read(p, strlen(p), "s.md", 0, err, sizeof err);
	out = rag_gen_review_apply(v, rows, counts, err, sizeof err);
	is_int(jv_array_length(jv_copy(out)), 2, "fix and drop: two cases left");
	is_str(str(out, 0, "question"), "How | good?", "the fixed question, its | unescaped");
	is_str(str(out, 0, "revised_from"), "a", "... revised_from the old id");
	ok(strcmp(str(out, 0, "id"), "a") != 0, "... a new id");
	ok(counts[1] == 1 && counts[2] == 1 && counts[3] == 1, "counts: 1 dropped, 1 fixed, 1 not in the sheet");
	jv_free(out);
	jv_free(rows);
	p = "| action | id | kind | question | reference |\n|---|---|---|---|---|\n| keep | a | regular | Edited? | About 20 percent. |\n";
	rows = rag_gen_review_read(p, strlen(p), "s.md", 0, err, sizeof err);
	out = rag_gen_review_apply(v, rows, counts, err, sizeof err);
	ok(!jv_is_valid(out) && strstr(err, "s.md:3: the case \"a\" is edited but its action is keep"), "a kept row edited: %s", err);
	jv_free(out);
	jv_free(rows);
	p = "| action | id | kind | question | reference |\n|---|---|---|---|---|\n| keep | zz | regular | Q | R |\n";
	rows = rag_gen_review_read(p, strlen(p), "s.md", 0, err, sizeof err);
	out = rag_gen_review_apply(v, rows, counts, err, sizeof err);
	ok(!jv_is_valid(out) && strstr(err, "s.md:3: no case of the test set has the id \"zz\""), "an unknown id: %s", err);
	jv_free(out);
	jv_free(rows);
	p = "no table here\n";
	rows = rag_gen_review_read(p, strlen(p), "s.md", 0, err, sizeof err);
	ok(!jv_is_valid(rows) && strstr(err, "no review table"), "no table: %s", err);
	jv_free(rows);
	p = "action,id,kind,question,reference\nkeep,a,regular,\"unterminated\n";
	rows = rag_gen_review_read(p, strlen(p), "s.csv", 1, err, sizeof err);
	ok(!jv_is_valid(rows) && strstr(err, "s.csv:"), "a broken CSV sheet: its position (%s)", err);
	jv_free(rows);

	/* the check */
	r = rag_gen_check_set(v, 0.8);
	is_int((int)rag_json_num(r, "cases"), 3, "check: three cases");
	out = jv_object_get(jv_copy(r), jv_string("duplicates"));
	is_int(jv_array_length(out), 0, "a noisy case and its original are no duplicate");
	out = jv_object_get(jv_copy(r), jv_string("missing_reference"));
	is_int(jv_array_length(out), 0, "an unanswerable case needs no reference");
	out = jv_object_get(jv_object_get(jv_copy(r), jv_string("kind")), jv_string("regular"));
	is_int((int)jv_number_value(out), 1, "kind counts: one regular");
	jv_free(out);
	out = jv_object_get(jv_copy(r), jv_string("warnings"));
	is_int(jv_array_length(out), 2, "warnings: fewer than 20 cases, no follow-up");
	jv_free(r);
	jv_free(v);
	return done_testing();
}
