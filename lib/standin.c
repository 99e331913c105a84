/* standin.c - what --estimate stands in for answers and contexts not collected yet: records
 * read with record.c's field names, sized with usage.c's count of characters (usage.h). Its own
 * file so that usage.c, which record.c calls, calls nothing of record.c back. */
#include "base.h"
#include "usage.h"
#include "record.h"

#include <string.h>

/* text of n characters: the sentence repeated, cut at a word */
static jv standin_text(const char *sentence, double n)
{
	rag_buf b = {0};
	size_t want = n > 0 ? (size_t)(n + 0.5) : 0, len = strlen(sentence);
	jv t;
	while (b.len < want) rag_buf_add(&b, sentence, len);
	if (b.len > want) {
		size_t cut = want;
		while (cut > 0 && b.p[cut - 1] != ' ') cut--;
		b.len = cut ? cut - 1 : want;   /* without its blank; a word cut when no blank came before */
	}
	rag_buf_add(&b, "", 1);
	t = jv_string(b.p);
	rag_buf_free(&b);
	return t;
}

jv rag_usage_standin(jv rec, const rag_standin *sz)
{
	jv cx;
	if (!rag_record_str(rec, "answer"))
		rec = jv_object_set(rec, jv_string("answer"),
		                    standin_text("The system under test would answer with a sentence of about this length. ", sz->answer_chars));
	cx = rag_record_get(rec, "contexts");
	if (jv_get_kind(cx) != JV_KIND_ARRAY) {
		jv a = jv_array();
		int i;
		for (i = 0; i < (int)(sz->contexts + 0.5); i++)
			a = jv_array_append(a, standin_text("A retrieved chunk would hold a sentence of about this length, and more of them. ",
			                                    sz->context_chars));
		rec = jv_object_set(rec, jv_string("contexts"), a);
	}
	jv_free(cx);
	return rec;
}

void rag_usage_standin_add(rag_standin *sum, long *n, jv rec)
{
	const char *a = rag_record_str(rec, "answer");
	jv cx;
	if (!a) return;
	(*n)++;
	sum->answer_chars += rag_usage_chars(a);
	cx = rag_record_get(rec, "contexts");
	if (jv_get_kind(cx) == JV_KIND_ARRAY) {
		jv_array_foreach(cx, i, c) {
			sum->contexts++;
			if (jv_get_kind(c) == JV_KIND_STRING) sum->context_chars += rag_usage_chars(jv_string_value(c));
			jv_free(c);
			(void)i;
		}
	}
	jv_free(cx);
}

void rag_usage_standin_mean(rag_standin *sum, long n)
{
	/* context_chars: per context; contexts and answer_chars: per record */
	if (sum->contexts > 0) sum->context_chars /= sum->contexts;
	if (n > 0) {
		sum->answer_chars /= (double)n;
		sum->contexts /= (double)n;
	}
}
