/* t-vec.c - cosine maths on known vectors, the offline hashed embedder, and the refusal list of
 * rag-revq's offline judge. */
#include "base.h"
#include "offline.h"
#include "metric.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static jv vec(int n, const double *x)
{
	jv v = jv_array();
	int i;
	for (i = 0; i < n; i++) v = jv_array_append(v, jv_number(x[i]));
	return v;
}

static double cos_text(const char *a, const char *b)
{
	jv va = rag_vec_hashed(a, 512), vb = rag_vec_hashed(b, 512);
	char err[RAG_ERRLEN];
	double c = -2;
	if (rag_vec_cosine_jv(va, vb, &c, err, sizeof err) < 0) c = -3;
	jv_free(va);
	jv_free(vb);
	return c;
}

static void test_cosine(void)
{
	static const double a[] = {1, 0, 0}, b[] = {0, 1, 0}, c[] = {2, 0, 0}, d[] = {-1, 0, 0};
	static const double e[] = {1, 1, 0}, f[] = {1, 2, 3}, g[] = {4, 5, 6}, z[] = {0, 0, 0};
	double out = 9;
	is_int(rag_vec_cosine(a, b, 3, &out), 0, "orthogonal: ok");
	is_num(out, 0, 1e-12, "orthogonal vectors: 0");
	rag_vec_cosine(a, c, 3, &out);
	is_num(out, 1, 1e-12, "same direction, other length: 1");
	rag_vec_cosine(a, d, 3, &out);
	is_num(out, -1, 1e-12, "opposite: -1");
	rag_vec_cosine(a, e, 3, &out);
	is_num(out, 1 / sqrt(2), 1e-12, "45 degrees: 1/sqrt(2)");
	rag_vec_cosine(f, g, 3, &out);
	is_num(out, 32 / (sqrt(14) * sqrt(77)), 1e-12, "(1,2,3).(4,5,6) = 32/(sqrt 14 sqrt 77)");
	out = 9;
	is_int(rag_vec_cosine(a, z, 3, &out), 0, "zero vector: ok");
	is_num(out, 0, 0, "a zero vector is similar to nothing");
	{
		static const double big[] = {1e200, 1e200}, big2[] = {1e200, 1e200};
		is_int(rag_vec_cosine(big, big2, 2, &out), -1, "overflow is an error");
	}
}

static void test_cosine_jv(void)
{
	static const double a[] = {3, 4}, b[] = {4, 3}, c[] = {1, 2, 3};
	char err[RAG_ERRLEN] = "";
	double out = 9;
	jv va = vec(2, a), vb = vec(2, b), vc = vec(3, c);
	size_t n = 0;
	double *x;
	is_int(rag_vec_cosine_jv(va, vb, &out, err, sizeof err), 0, "jv vectors: ok");
	is_num(out, 24.0 / 25.0, 1e-12, "(3,4).(4,3) = 24/25");
	is_int(rag_vec_cosine_jv(va, vc, &out, err, sizeof err), -1, "sizes differ: error");
	ok(strstr(err, "dimension mismatch: vectors of 2 and 3 numbers") != NULL, "the message names both sizes (%s)", err);
	{
		jv empty = jv_array(), bad = JV_ARRAY(jv_number(1), jv_string("x"));
		is_int(rag_vec_cosine_jv(empty, va, &out, err, sizeof err), -1, "an empty vector: error");
		is_int(rag_vec_cosine_jv(bad, va, &out, err, sizeof err), -1, "a vector with a string: error");
		ok(rag_vec_from_jv(bad, &n) == NULL, "rag_vec_from_jv refuses a string");
		jv_free(empty);
		jv_free(bad);
	}
	x = rag_vec_from_jv(vc, &n);
	ok(x && n == 3 && x[0] == 1 && x[2] == 3, "rag_vec_from_jv reads the numbers");
	free(x);
	jv_free(va);
	jv_free(vb);
	jv_free(vc);
}

static void test_hashed(void)
{
	jv a = rag_vec_hashed("The first superbowl was held on Jan 15, 1967", 512);
	jv b = rag_vec_hashed("The first superbowl was held on Jan 15, 1967", 512);
	jv s = jv_dump_string(jv_copy(a), 0), t = jv_dump_string(jv_copy(b), 0);
	size_t n = 0;
	double *x = rag_vec_from_jv(a, &n), norm = 0;
	size_t i;
	is_str(jv_string_value(s), jv_string_value(t), "same text, same vector");
	is_int((long)n, 512, "512 numbers");
	for (i = 0; x && i < n; i++) norm += x[i] * x[i];
	is_num(norm, 1, 1e-9, "L2-normalised");
	free(x);
	jv_free(s);
	jv_free(t);
	jv_free(a);
	jv_free(b);
	a = rag_vec_hashed("hello", 64);
	is_int(jv_array_length(a), 64, "the size asked for");
	a = rag_vec_hashed("", 0);
	x = rag_vec_from_jv(a, &n);
	norm = 0;
	for (i = 0; x && i < n; i++) norm += fabs(x[i]);
	is_num(norm, 0, 0, "an empty text gives zeros");
	is_int((long)n, 512, "dims <= 0 means 512");
	free(x);
	jv_free(a);

	is_num(cos_text("When was the first Super Bowl?", "When was the first Super Bowl?"), 1, 1e-9,
	       "a text with itself: 1");
	ok(cos_text("When was the first Super Bowl?", "The first Super Bowl was held on January 15, 1967.") >
	   cos_text("When was the first Super Bowl?", "Bananas are rich in potassium."),
	   "a related text is closer than an unrelated one");
	ok(cos_text("answer relevancy", "answer relevance") > 0.5,
	   "word variants share character n-grams (%.3f)", cos_text("answer relevancy", "answer relevance"));
	ok(cos_text("中国的首都是哪里？", "中国的首都是北京。") > cos_text("中国的首都是哪里？", "香蕉富含钾元素。"),
	   "Chinese: by character n-grams, related closer than unrelated (%.3f > %.3f)",
	   cos_text("中国的首都是哪里？", "中国的首都是北京。"), cos_text("中国的首都是哪里？", "香蕉富含钾元素。"));
	ok(cos_text("中国的首都是哪里？", "中国的首都是北京。") > 0.3, "Chinese: a real value (%.3f)",
	   cos_text("中国的首都是哪里？", "中国的首都是北京。"));
	ok(cos_text("PARIS is big", "paris is BIG") > 0.999, "case does not matter");
	{
		/* invalid UTF-8 is repaired, not refused */
		jv v = rag_vec_hashed("caf\xc3 au lait", 32);
		is_int(jv_array_length(v), 32, "invalid UTF-8: still a vector");
	}
}

static void test_refusals(const char *path)
{
	char err[RAG_ERRLEN] = "";
	jv r;
	if (!path) {
		ok(1, "# skip share/refusals.txt not found");
		return;
	}
	r = rag_revq_refusals_load(path, err, sizeof err);
	ok(jv_is_valid(r) && jv_array_length(jv_copy(r)) > 20, "refusals.txt loads (%s)", err);
	ok(rag_revq_noncommittal(r, "I don't know."), "I don't know");
	ok(rag_revq_noncommittal(r, "I DON\xe2\x80\x99T KNOW"), "typographic apostrophe, upper case");
	ok(rag_revq_noncommittal(r, "The documents do not say when it opened."), "the documents do not say");
	ok(rag_revq_noncommittal(r, "我不知道。"), "我不知道");
	ok(rag_revq_noncommittal(r, "文档中没有提到这一点。"), "文档中没有提到");
	ok(rag_revq_noncommittal(r, "   "), "a blank answer is noncommittal");
	ok(!rag_revq_noncommittal(r, "The first superbowl was held on Jan 15, 1967."), "a plain answer is not");
	ok(!rag_revq_noncommittal(r, "巴黎是法国的首都。"), "a plain Chinese answer is not");
	ok(!rag_revq_noncommittal(r, "Knowledge is power."), "\"know\" alone is not a refusal");
	jv_free(r);
	r = rag_revq_refusals_load("/nonexistent/refusals.txt", err, sizeof err);
	ok(!jv_is_valid(r) && err[0], "a missing file: invalid and a message (%s)", err);
	jv_free(r);
}

int main(void)
{
	const char *refusals = NULL;
	if (access("share/refusals.txt", R_OK) == 0) refusals = "share/refusals.txt";
	test_cosine();
	test_cosine_jv();
	test_hashed();
	test_refusals(refusals);
	return done_testing();
}
