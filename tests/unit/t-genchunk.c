/* t-genchunk.c - the document splitter (lib/genchunk.c): headings open chunks, paragraphs joined up to
 * the limit, a long paragraph by its sentences, fences, Chinese text, stable ids; and gen.c's
 * reply check, slot mix, ids and similarity. */
#include "base.h"
#include "usage.h"
#include "gen.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static char buf[8192];

/* chunk k's field f, or "" */
static const char *field(jv chunks, int k, const char *f)
{
	jv c = jv_array_get(jv_copy(chunks), k);
	rag_json_str(c, f, buf, sizeof buf);
	jv_free(c);
	return buf;
}

static int count(jv chunks)
{
	return jv_array_length(jv_copy(chunks));
}

int main(void)
{
	char *title = NULL, problem[RAG_ERRLEN], id1[64];
	jv c, c2, r;
	const char *p;
	int k, over;

	/* headings */
	c = rag_gen_chunk_split("d/a.md", "# Title\n\nFirst para.\n\n## Part\n\nSecond para.\n", 1500, &title);
	is_int(count(c), 2, "two sections: two chunks");
	is_str(field(c, 0, "text"), "# Title\n\nFirst para.", "the heading opens its chunk");
	is_str(field(c, 1, "heading"), "Part", "the chunk's heading");
	is_str(title, "Title", "the title: the first heading");
	ok(!strncmp(field(c, 0, "id"), "d/a.md#", 7) && strlen(field(c, 0, "id")) == 15, "id: PATH#8 hex digits");
	snprintf(id1, sizeof id1, "%s", field(c, 1, "id"));
	free(title);
	jv_free(c);

	/* stable: the same section elsewhere in the file keeps its id; an edit elsewhere does not move it */
	c = rag_gen_chunk_split("d/a.md", "# Other\n\nChanged.\n\n## Part\n\nSecond para.\n", 1500, NULL);
	is_str(field(c, 1, "id"), id1, "an unchanged chunk keeps its id when another changes");
	jv_free(c);

	/* a heading alone, a heading in a code fence, no text */
	c = rag_gen_chunk_split("x", "# A\n\n# B\n\ntext\n\n```\n# not a heading\n```\n", 1500, NULL);
	is_int(count(c), 1, "a heading alone is dropped; a # line in a fence is text");
	ok(strstr(field(c, 0, "text"), "# not a heading") != NULL, "the fenced line stays in the chunk");
	jv_free(c);
	c = rag_gen_chunk_split("x", "\n \n", 1500, NULL);
	is_int(count(c), 0, "blank text: no chunk");
	jv_free(c);

	/* the size limit: paragraphs joined while they fit */
	c = rag_gen_chunk_split("x", "aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa.\n\n"
	                         "bbbb bbbb bbbb bbbb bbbb bbbb bbbb bbbb bbbb bbbb bbbb bbbb.\n\n"
	                         "cccc cccc cccc cccc cccc cccc cccc cccc cccc cccc cccc cccc.\n", 130, NULL);
	is_int(count(c), 2, "three paragraphs of 60 under a limit of 130: two chunks");
	jv_free(c);
	/* a long paragraph by its sentences; a longer sentence cut at the limit */
	{
		rag_buf b = {0};
		for (k = 0; k < 20; k++) rag_buf_addf(&b, "Sentence number %d is here. ", k);
		for (k = 0; k < 300; k++) rag_buf_adds(&b, "x");
		c = rag_gen_chunk_split("x", b.p, 100, NULL);
		rag_buf_free(&b);
		over = 0;
		for (k = 0; k < count(c); k++) over += rag_usage_chars(field(c, k, "text")) > 100;
		is_int(over, 0, "no chunk over the limit");
		ok(count(c) >= 8, "a long paragraph in several chunks");
		jv_free(c);
	}
	/* Chinese: sentences at 。, counted in characters, not bytes */
	c = rag_gen_chunk_split("z.md", "# 标题\n\n太阳能电池板把阳光转换成电能。典型电池板的效率约为百分之二十。电池板每年需要清洁两次。\n", 20, &title);
	is_str(title, "标题", "a Chinese title");
	free(title);
	ok(count(c) >= 3, "a Chinese paragraph over 20 characters: cut at its sentences");
	over = 0;
	for (k = 0; k < count(c); k++) over += rag_usage_chars(field(c, k, "text")) > 20;
	is_int(over, 0, "no Chinese chunk over 20 characters");
	jv_free(c);
	/* the same text twice: distinct, stable ids */
	c = rag_gen_chunk_split("x", "# A\n\nsame\n\n# A\n\nsame\n", 1500, NULL);
	c2 = rag_gen_chunk_split("x", "# A\n\nsame\n\n# A\n\nsame\n", 1500, NULL);
	is_int(count(c), 2, "the same section twice: two chunks");
	snprintf(id1, sizeof id1, "%s", field(c, 0, "id"));
	ok(strcmp(id1, field(c, 1, "id")) && strstr(field(c, 1, "id"), "-2"), "the second gets -2");
	is_str(field(c2, 1, "id"), field(c, 1, "id"), "... on every run");
	jv_free(c);
	jv_free(c2);

	/* gen.c: the mix */
	is_str(rag_gen_difficulty(0), "easy", "slot 1 easy");
	is_str(rag_gen_difficulty(2), "medium", "slot 3 medium");
	is_str(rag_gen_difficulty(4), "hard", "slot 5 hard");
	is_str(rag_gen_difficulty(5), "easy", "slot 6 easy again");
	is_str(rag_gen_type(4), "comparative", "slot 5 comparative");

	/* the reply check */
	p = rag_gen_check(jv_parse("{\"questions\":[{\"question\":\"Q?\",\"reference\":\"R.\",\"difficulty\":\"easy\",\"type\":\"factual\"}]}"),
	                  1, &r, problem, sizeof problem);
	ok(p == NULL, "a reply that fits");
	if (!p) {
		is_int(count(r), 1, "one case");
		jv_free(r);
	}
	p = rag_gen_check(jv_parse("{\"questions\":[]}"), 2, &r, problem, sizeof problem);
	ok(p && strstr(p, "0 question(s) came, 2 were asked for"), "too few: said");
	p = rag_gen_check(jv_parse("{\"questions\":[{\"question\":\"Q?\",\"reference\":\" \",\"difficulty\":\"easy\",\"type\":\"factual\"}]}"),
	                  1, &r, problem, sizeof problem);
	ok(p && strstr(p, "no \"reference\""), "an empty reference: said");
	p = rag_gen_check(jv_parse("{\"questions\":[{\"question\":\"Q?\",\"reference\":\"R\",\"difficulty\":\"hard\",\"type\":\"factual\"}]}"),
	                  1, &r, problem, sizeof problem);
	ok(p && strstr(p, "difficulty \"easy\""), "the wrong difficulty for the slot: said");
	p = rag_gen_check(jv_parse("{\"questions\":[{\"question\":\"Q?\",\"reference\":\"R\",\"difficulty\":\"easy\",\"type\":\"trivia\"}]}"),
	                  1, &r, problem, sizeof problem);
	ok(p && strstr(p, "type"), "an unknown type: said");
	p = rag_gen_check(jv_parse("[1,2]"), 2, &r, problem, sizeof problem);
	ok(p != NULL, "not an object of questions: said");

	/* ids and similarity */
	{
		char *a = rag_gen_id("Q?", "c#1"), *b = rag_gen_id("Q?", "c#1"), *d = rag_gen_id("Q?", "c#2");
		is_str(a, b, "the same question and chunk: the same id");
		ok(strcmp(a, d) != 0, "another chunk: another id");
		ok(!strncmp(a, "gen-", 4) && strlen(a) == 20, "id: gen- and 16 hex digits");
		free(a);
		free(b);
		free(d);
	}
	is_num(rag_gen_similarity("What is the capital of France?", "what is the capital of france"), 1, 1e-9,
	       "case and punctuation aside: the same question");
	ok(rag_gen_similarity("What is the capital of France?", "How tall is the Eiffel Tower?") < 0.3, "different questions");
	ok(rag_gen_similarity("太阳能电池板的效率是多少？", "太阳能电池板的效率是多少") >= 0.8, "Chinese near-duplicates");

	/* the offline generator */
	r = rag_gen_offline("# Head\n\nShort.\n\nSolar panels convert sunlight into electricity. Is it true?", 5);
	is_int(count(r), 1, "offline: statements of four tokens or more, no question, no heading");
	is_str(field(r, 0, "question"), "What does the document say about \"Solar panels convert...\"?", "offline: the rule's question");
	is_str(field(r, 0, "reference"), "Solar panels convert sunlight into electricity.", "offline: the sentence is the reference");
	jv_free(r);
	return done_testing();
}
