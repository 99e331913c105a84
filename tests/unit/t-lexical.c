/* t-lexical.c - lexical.c against the reference vectors in tests/fixtures: ROUGE against
 * rouge_score's own cases and the official ROUGE-1.5.5 numbers, BLEU and chrF against
 * sacrebleu's test cases; each group ends by saying how many values agree, and to what. */
#include "base.h"
#include "lexical.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static jv load(const char *rel)
{
	char path[1024];
	jv all;
	snprintf(path, sizeof path, "%s/tests/fixtures/%s", RAG_TEST_TOP, rel);
	all = jv_load_file(path, 0);      /* every value of the file, in an array */
	return jv_get_kind(all) == JV_KIND_ARRAY ? jv_array_get(all, 0) : all;
}

static char *slurp(const char *rel)
{
	char path[1024], err[RAG_ERRLEN];
	snprintf(path, sizeof path, "%s/tests/fixtures/%s", RAG_TEST_TOP, rel);
	return rag_read_file(path, NULL, err, sizeof err);
}

/* Line k of a file as Python's readlines() gives it (the newline kept). */
static char *line_of(const char *text, int k)
{
	const char *p = text, *e;
	while (k-- > 0 && (p = strchr(p, '\n'))) p++;
	if (!p) return rag_xstrdup("");
	e = strchr(p, '\n');
	return e ? rag_xstrndup(p, (size_t)(e - p + 1)) : rag_xstrdup(p);
}

static int rouge(const char *type, const char *pred, const char *target, int stem, rag_prf *out)
{
	rag_lex *x = rag_lex_new(pred, target, stem);
	int rc = 0;
	if (!strcmp(type, "rouge1")) rag_lex_rouge_n(x, 1, out);
	else if (!strcmp(type, "rouge2")) rag_lex_rouge_n(x, 2, out);
	else if (!strcmp(type, "rougeL")) rag_lex_rouge_l(x, out);
	else if (!strcmp(type, "rougeLsum")) rag_lex_rouge_lsum(x, out);
	else rc = -1;
	rag_lex_free(x);
	return rc;
}

static int agree, values;

static void check(double got, double want, double eps, const char *what)
{
	values++;
	agree += fabs(got - want) <= eps;
	is_num(got, want, eps, "%s", what);
}

static void test_rouge(void)
{
	jv e = load("rouge/expected.json");
	char *pred = slurp("rouge/prediction.txt"), *target = slurp("rouge/target.txt");
	char *mp = slurp("rouge/pyrouge_files/prediction_multi.0.txt");
	char *mt = slurp("rouge/pyrouge_files/target_multi.0.txt");
	int unit_agree, unit_values;
	jv cases;

	ok(jv_get_kind(e) == JV_KIND_OBJECT && pred && target && mp && mt, "rouge fixtures read");
	agree = values = 0;
	/* jv_array_foreach names its array more than once: a variable, not a call that takes a reference */
	cases = jv_object_get(jv_copy(e), jv_string("unit_cases"));
	jv_array_foreach(cases, i, c) {
		char types[64], *t, *save = NULL;
		rag_json_str(c, "type", types, sizeof types);
		for (t = strtok_r(types, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
			rag_prf p;
			char what[160];
			jv tg = jv_object_get(jv_copy(c), jv_string("target")), pr = jv_object_get(jv_copy(c), jv_string("prediction"));
			rouge(t, jv_string_value(pr), jv_string_value(tg), 0, &p);
			snprintf(what, sizeof what, "rouge_score case %d %s", i, t);
			check(p.precision, rag_json_num(c, "precision"), 1e-9, what);
			check(p.recall, rag_json_num(c, "recall"), 1e-9, what);
			check(p.f, rag_json_num(c, "fmeasure"), 1e-9, what);
			jv_free(tg);
			jv_free(pr);
		}
		jv_free(c);
	}
	jv_free(cases);
	unit_agree = agree;
	unit_values = values;
	agree = values = 0;
	cases = jv_object_get(jv_copy(e), jv_string("rouge155_cases"));
	jv_array_foreach(cases, i, c) {
		jv type = jv_object_get(jv_copy(c), jv_string("type"));
		int stem = rag_json_true(c, "stem");
		double line = rag_json_num(c, "line");
		char *p = isnan(line) ? rag_xstrdup(mp) : line_of(pred, (int)line);
		char *t = isnan(line) ? rag_xstrdup(mt) : line_of(target, (int)line);
		char what[128];
		rag_prf s;
		rouge(jv_string_value(type), p, t, stem, &s);
		snprintf(what, sizeof what, "ROUGE-1.5.5 %s%s %s", jv_string_value(type), stem ? " stemmed" : "",
		         isnan(line) ? "multi-line files" : line ? "line 1" : "line 0");
		/* the official numbers have 5 decimals */
		check(s.precision, rag_json_num(c, "precision"), 5e-6, what);
		check(s.recall, rag_json_num(c, "recall"), 5e-6, what);
		check(s.f, rag_json_num(c, "fmeasure"), 5e-6, what);
		free(p);
		free(t);
		jv_free(type);
		(void)i;
		jv_free(c);
	}
	jv_free(cases);
	printf("# ROUGE: rouge_score's cases %d of %d values within 1e-9; ROUGE-1.5.5 %d of %d within 5e-6 (its 5 decimals)\n",
	       unit_agree, unit_values, agree, values);
	ok(unit_agree == unit_values && agree == values, "ROUGE: all %d + %d reference values agree", unit_values, values);
	jv_free(e);
	free(pred);
	free(target);
	free(mp);
	free(mt);
}

/* ------------------------------------------------------------------ BLEU */

/* Corpus BLEU (0-1) of hyps (array) against ref streams (array of arrays, one per reference);
 * both consumed. */
static double corpus_bleu(jv hyps, jv streams, const rag_bleu_opts *o)
{
	rag_bleu_stats st;
	int i, k, nh = jv_array_length(jv_copy(hyps)), nr = jv_array_length(jv_copy(streams));
	memset(&st, 0, sizeof st);
	for (i = 0; i < nh; i++) {
		const char *refs[8];
		jv h = jv_array_get(jv_copy(hyps), i), r[8];
		for (k = 0; k < nr && k < 8; k++) {
			r[k] = jv_array_get(jv_array_get(jv_copy(streams), k), i);
			refs[k] = jv_string_value(r[k]);
		}
		rag_bleu_stats_add(&st, jv_string_value(h), refs, (size_t)k, o);
		for (k = 0; k < nr && k < 8; k++) jv_free(r[k]);
		jv_free(h);
	}
	jv_free(hyps);
	jv_free(streams);
	return rag_bleu_score(&st, o);
}

static int tokenizer(const char *name)
{
	if (!strcmp(name, "13a")) return RAG_BLEU_13A;
	if (!strcmp(name, "none")) return RAG_BLEU_NONE;
	if (!strcmp(name, "char")) return RAG_BLEU_CHAR;
	if (!strcmp(name, "zh")) return RAG_BLEU_ZH;
	return -1;
}

static int smoothing(const char *name)
{
	if (!strcmp(name, "exp")) return RAG_SMOOTH_EXP;
	if (!strcmp(name, "none")) return RAG_SMOOTH_NONE;
	if (!strcmp(name, "floor")) return RAG_SMOOTH_FLOOR;
	if (!strcmp(name, "add-k")) return RAG_SMOOTH_ADDK;
	return -1;
}

/* raw_corpus_bleu: floor smoothing, no tokenization, effective order */
static void raw_opts(rag_bleu_opts *o, double floor)
{
	rag_bleu_opts_init(o);
	o->tokenize = RAG_BLEU_NONE;
	o->smooth = RAG_SMOOTH_FLOOR;
	o->smooth_value = floor;
}

static jv get(jv o, const char *k) { return jv_object_get(jv_copy(o), jv_string(k)); }

/* jv_array_foreach names its array several times: an expression that takes a reference (get)
 * is bound once here, and freed when the loop ends. */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define FOREACH(expr, i, x) \
	for (jv CAT(arr_, __LINE__) = (expr), *CAT(once_, __LINE__) = &CAT(arr_, __LINE__); CAT(once_, __LINE__); \
	     jv_free(CAT(arr_, __LINE__)), CAT(once_, __LINE__) = NULL) \
		jv_array_foreach(CAT(arr_, __LINE__), i, x)

static void test_bleu(jv v)
{
	jv b = get(v, "test_bleu.py"), s = get(v, "test_sentence_bleu.py");
	rag_bleu_opts o;
	int skipped = 0;
	char what[160];

	agree = values = 0;
	FOREACH(get(b, "test_raw_bleu_cases"), i, c) {
		raw_opts(&o, 0.01);
		snprintf(what, sizeof what, "raw_corpus_bleu case %d", i);
		check(corpus_bleu(jv_array_get(jv_copy(c), 0), jv_array_get(jv_copy(c), 1), &o),
		      jv_number_value(jv_array_get(jv_copy(c), 2)), 1e-8, what);
		jv_free(c);
	}
	FOREACH(get(b, "test_corpus_bleu_cases"), i, c) {
		jv kw = jv_array_get(jv_copy(c), 2), t = get(kw, "tokenize"), m = get(kw, "smooth_method");
		rag_bleu_opts_init(&o);
		o.effective_order = 0;          /* corpus_bleu's default */
		if (jv_get_kind(t) == JV_KIND_STRING) o.tokenize = tokenizer(jv_string_value(t));
		if (jv_get_kind(m) == JV_KIND_STRING) o.smooth = smoothing(jv_string_value(m));
		if (o.tokenize < 0) {
			printf("# corpus_bleu case %d: tokenizer \"%s\" not implemented\n", i, jv_string_value(t));
			skipped++;
		} else {
			snprintf(what, sizeof what, "corpus_bleu case %d", i);
			check(100 * corpus_bleu(jv_array_get(jv_copy(c), 0), jv_array_get(jv_copy(c), 1), &o),
			      jv_number_value(jv_array_get(jv_copy(c), 3)), 1e-6, what);
		}
		jv_free(t);
		jv_free(m);
		jv_free(kw);
		jv_free(c);
	}
	FOREACH(get(b, "test_case_offset"), i, c) {
		raw_opts(&o, -1);
		check(corpus_bleu(jv_array_get(jv_copy(c), 0), jv_array_get(jv_copy(c), 1), &o),
		      jv_number_value(jv_array_get(jv_copy(c), 2)), 1e-8, "offset: floor 0.1");
		raw_opts(&o, 0);
		check(corpus_bleu(jv_array_get(jv_copy(c), 0), jv_array_get(jv_copy(c), 1), &o),
		      jv_number_value(jv_array_get(jv_copy(c), 3)), 1e-8, "offset: floor 0");
		(void)i;
		jv_free(c);
	}
	FOREACH(get(b, "test_case_statistics"), i, c) {
		jv h = jv_array_get(jv_array_get(jv_copy(c), 0), 0), r = jv_array_get(jv_array_get(jv_array_get(jv_copy(c), 1), 0), 0);
		jv want = jv_array_get(jv_copy(c), 2);
		const char *refs[1] = {jv_string_value(r)};
		rag_bleu_stats st;
		int k;
		memset(&st, 0, sizeof st);
		raw_opts(&o, 0.01);
		rag_bleu_stats_add(&st, jv_string_value(h), refs, 1, &o);
		for (k = 0; k < 4; k++) {
			snprintf(what, sizeof what, "statistics: common and total %d-grams", k + 1);
			check(st.correct[k], jv_number_value(jv_array_get(get(want, "common"), k)), 0, what);
			check(st.total[k], jv_number_value(jv_array_get(get(want, "total"), k)), 0, what);
		}
		jv_free(h);
		jv_free(r);
		jv_free(want);
		(void)i;
		jv_free(c);
	}
	/* compute_bleu from statistics: test_case_scoring (no smoothing), degenerate (floor) */
	{
		const char *groups[2] = {"test_case_scoring", "test_case_degenerate_stats"};
		int g;
		for (g = 0; g < 2; g++) {
			FOREACH(get(b, groups[g]), i, c) {
				jv a = jv_array_get(jv_copy(c), 0), st0 = jv_array_get(jv_copy(a), 0);
				rag_bleu_stats st;
				int k;
				memset(&st, 0, sizeof st);
				for (k = 0; k < 4; k++) {
					st.correct[k] = jv_number_value(jv_array_get(get(st0, "common"), k));
					st.total[k] = jv_number_value(jv_array_get(get(st0, "total"), k));
				}
				st.sys_len = jv_number_value(jv_array_get(jv_copy(a), 1));
				st.ref_len = jv_number_value(jv_array_get(jv_copy(a), 2));
				rag_bleu_opts_init(&o);
				o.effective_order = 0;
				o.smooth = g ? RAG_SMOOTH_FLOOR : RAG_SMOOTH_NONE;
				if (g) o.smooth_value = jv_number_value(jv_array_get(jv_copy(c), 1));
				snprintf(what, sizeof what, "%s case %d", groups[g], i);
				check(rag_bleu_score(&st, &o), jv_number_value(jv_array_get(jv_copy(c), g ? 2 : 1)), 1e-8, what);
				jv_free(st0);
				jv_free(a);
				jv_free(c);
			}
		}
	}
	FOREACH(get(b, "test_case_effective_order"), i, c) {
		raw_opts(&o, 0.01);
		snprintf(what, sizeof what, "effective order case %d", i);
		check(corpus_bleu(jv_array_get(jv_copy(c), 0), jv_array_get(jv_copy(c), 1), &o),
		      jv_number_value(jv_array_get(jv_copy(c), 2)), 1e-8, what);
		jv_free(c);
	}
	FOREACH(get(b, "test_bleu_max_order"), i, c) {
		char got[32];
		jv want = jv_array_get(jv_copy(c), 3);
		rag_bleu_opts_init(&o);
		o.effective_order = 0;
		o.max_order = (int)jv_number_value(jv_array_get(jv_copy(c), 0));
		snprintf(got, sizeof got, "%.2f", 100 * corpus_bleu(jv_array_get(jv_copy(c), 1), jv_array_get(jv_copy(c), 2), &o));
		values++;
		agree += !strcmp(got, jv_string_value(want));
		is_str(got, jv_string_value(want), "max_ngram_order %d: %s", o.max_order, got);
		jv_free(want);
		(void)i;
		jv_free(c);
	}
	/* sentence_bleu: effective order, one reference */
	{
		const char *groups[2][3] = {{"test_cases", "SYS", "REF"}, {"test_cases_zero_bleu", "SYS_0", "REF_0"}};
		int g;
		for (g = 0; g < 2; g++) {
			jv sys = get(s, groups[g][1]), ref = get(s, groups[g][2]);
			FOREACH(get(s, groups[g][0]), i, c) {
				jv m = jv_array_get(jv_copy(c), 0), val = jv_array_get(jv_copy(c), 1), t = jv_array_get(jv_copy(c), 3);
				const char *refs[1] = {jv_string_value(ref)};
				rag_bleu_stats st;
				memset(&st, 0, sizeof st);
				rag_bleu_opts_init(&o);
				o.smooth = smoothing(jv_string_value(m));
				if (jv_get_kind(val) == JV_KIND_NUMBER) o.smooth_value = jv_number_value(val);
				o.lowercase = jv_get_kind(jv_array_get(jv_copy(c), 2)) == JV_KIND_TRUE;
				o.tokenize = tokenizer(jv_string_value(t));
				if (o.tokenize < 0) {
					printf("# sentence_bleu %s case %d: tokenizer \"%s\" not implemented\n", groups[g][0], i, jv_string_value(t));
					skipped++;
				} else {
					rag_bleu_stats_add(&st, jv_string_value(sys), refs, 1, &o);
					snprintf(what, sizeof what, "sentence_bleu %s case %d (%s, %s)", groups[g][0], i,
					         jv_string_value(m), jv_string_value(t));
					check(100 * rag_bleu_score(&st, &o), jv_number_value(jv_array_get(jv_copy(c), 4)), 1e-3, what);
				}
				jv_free(m);
				jv_free(val);
				jv_free(t);
				jv_free(c);
			}
			jv_free(sys);
			jv_free(ref);
		}
	}
	printf("# BLEU: %d of %d sacrebleu values agree to the tolerance of its tests (%d cases use its intl tokenizer, not implemented)\n",
	       agree, values, skipped);
	ok(agree == values, "BLEU: all %d sacrebleu values agree", values);
	jv_free(b);
	jv_free(s);
}

/* ------------------------------------------------------------------ chrF */

static double corpus_chrf(jv hyps, jv refs, const rag_chrf_opts *o)
{
	rag_chrf_stats st;
	int i, n = jv_array_length(jv_copy(hyps));
	memset(&st, 0, sizeof st);
	for (i = 0; i < n; i++) {
		jv h = jv_array_get(jv_copy(hyps), i), r = jv_array_get(jv_copy(refs), i);
		const char *rs[1] = {jv_string_value(r)};
		rag_chrf_stats_add(&st, jv_string_value(h), rs, 1, o);
		jv_free(h);
		jv_free(r);
	}
	jv_free(hyps);
	jv_free(refs);
	return 100 * rag_chrf_score(&st, o);
}

static void test_chrf(jv v)
{
	jv c = get(v, "test_chrf.py");
	/* test_chrf.py: corpus_chrf(..., char_order=6, word_order=0, beta=3, ...) for the corpus
	 * groups; sentence_chrf (beta 2) with eps_smoothing for the sentence group */
	const struct { const char *name; double beta; int eps, ws; } groups[] = {
		{"test_cases", 3, 1, 0}, {"test_cases_effective_order", 3, 0, 0},
		{"test_cases_keep_whitespace", 3, 0, 1},
	};
	rag_chrf_opts o;
	size_t g;
	char what[160];

	agree = values = 0;
	for (g = 0; g < sizeof groups / sizeof groups[0]; g++) {
		FOREACH(get(c, groups[g].name), i, t) {
			rag_chrf_opts_init(&o);
			o.beta = groups[g].beta;
			o.eps_smoothing = groups[g].eps;
			o.whitespace = groups[g].ws;
			snprintf(what, sizeof what, "chrF %s case %d", groups[g].name, i);
			check(corpus_chrf(jv_array_get(jv_copy(t), 0), jv_array_get(jv_copy(t), 1), &o),
			      jv_number_value(jv_array_get(jv_copy(t), 2)), 1e-4, what);
			jv_free(t);
		}
	}
	FOREACH(get(c, "test_sentence_level_chrf"), i, t) {
		jv h = jv_array_get(jv_copy(t), 0), r = jv_array_get(jv_array_get(jv_copy(t), 1), 0);
		const char *rs[1] = {jv_string_value(r)};
		rag_chrf_stats st;
		memset(&st, 0, sizeof st);
		rag_chrf_opts_init(&o);
		o.eps_smoothing = 1;
		rag_chrf_stats_add(&st, jv_string_value(h), rs, 1, &o);
		snprintf(what, sizeof what, "sentence chrF case %d", i);
		check(100 * rag_chrf_score(&st, &o), jv_number_value(jv_array_get(jv_copy(t), 2)), 1e-4, what);
		jv_free(h);
		jv_free(r);
		jv_free(t);
	}
	printf("# chrF: %d of %d sacrebleu values agree within 1e-4 (on its 0-100 scale)\n", agree, values);
	ok(agree == values, "chrF: all %d sacrebleu values agree", values);
	jv_free(c);
}

/* ------------------------------------------------------------------ the rest */

static void test_words(void)
{
	rag_lex *x;
	rag_prf p;

	x = rag_lex_new("The Cat sat.", "the cat  SAT", 0);
	ok(rag_lex_exact_match(x), "exact match: case, punctuation and articles do not count");
	rag_lex_token_f1(x, &p);
	is_num(p.f, 1, 1e-12, "token F1 of equal texts is 1");
	rag_lex_free(x);
	x = rag_lex_new("Paris is in France", "Paris, France", 0);
	ok(!rag_lex_exact_match(x), "exact match: different words");
	rag_lex_token_f1(x, &p);
	is_num(p.f, 2 * 0.5 * 1 / 1.5, 1e-12, "token F1: precision 2/4, recall 2/2");
	rag_lex_free(x);
	x = rag_lex_new("", "", 0);
	rag_lex_token_f1(x, &p);
	is_num(p.f, 1, 0, "token F1 of two empty texts is 1 (SQuAD)");
	rag_lex_free(x);
	x = rag_lex_new("签收后退货", "签收后七天内退货", 0);
	is_int(rag_lex_count(x, 0), 5, "Chinese: one word per character");
	rag_lex_rouge_n(x, 1, &p);
	is_num(p.recall, 5.0 / 8, 1e-12, "Chinese ROUGE-1 recall 5/8");
	rag_lex_free(x);
	x = rag_lex_new("Ünïcode ＡＢＣ", "ünïcode abc", 0);
	ok(rag_lex_exact_match(x), "NFKC and case folding before the words are cut");
	rag_lex_free(x);
}

static void test_presence(void)
{
	char err[RAG_ERRLEN];
	int m = -1;
	ok(rag_lex_contains("Returns within 7 DAYS.", "7 days"), "contains: case folded");
	ok(rag_lex_contains("签收后７天内", "7天"), "contains: full-width digits are NFKC'd");
	ok(!rag_lex_contains("Returns within 7 days.", "30 days"), "contains: absent");
	ok(rag_lex_regex("order #12345 shipped", "#[0-9]{5}", &m, err, sizeof err) == 0 && m == 1, "regex: matches");
	ok(rag_lex_regex("order shipped", "#[0-9]{5}", &m, err, sizeof err) == 0 && m == 0, "regex: no match");
	ok(rag_lex_regex("x", "(", &m, err, sizeof err) == -1 && strstr(err, "bad regular expression"), "regex: a bad pattern is an error: %s", err);
}

/* The tokenizer a record gets with --tokenize auto: its lang, else the script of its texts. */
static void test_tokenizer_for(void)
{
	rag_bleu_opts o;
	rag_bleu_stats st;
	const char *ref = "退货运费由卖家承担";

	is_int(rag_bleu_tokenizer_for(NULL, "退货运费由买家承担", ref), RAG_BLEU_ZH, "auto: Chinese text -> zh");
	is_int(rag_bleu_tokenizer_for(NULL, "The cat sat.", "The cat sat."), RAG_BLEU_13A, "auto: English text -> 13a");
	is_int(rag_bleu_tokenizer_for("zh-CN", "abc", "abc"), RAG_BLEU_ZH, "lang zh-CN -> zh");
	is_int(rag_bleu_tokenizer_for("en", "退货", "退货"), RAG_BLEU_13A, "lang en -> 13a, whatever the script");
	is_int(rag_bleu_tokenizer_for("ja", "abc", "abc"), RAG_BLEU_ZH, "lang ja -> zh (unspaced)");
	/* by hand: 8/9 unigrams, 6/8 bigrams, 4/7 trigrams, 2/6 four-grams, equal lengths */
	rag_bleu_opts_init(&o);
	o.tokenize = rag_bleu_tokenizer_for(NULL, "退货运费由买家承担", ref);
	memset(&st, 0, sizeof st);
	rag_bleu_stats_add(&st, "退货运费由买家承担", &ref, 1, &o);
	is_num(rag_bleu_score(&st, &o), pow(8.0 / 9 * 6 / 8 * 4.0 / 7 * 2 / 6, 0.25), 1e-9,
	       "zh BLEU by hand: (8/9 x 6/8 x 4/7 x 2/6)^(1/4)");
}

int main(void)
{
	jv v = load("sacrebleu/vectors.json");
	test_rouge();
	ok(jv_get_kind(v) == JV_KIND_OBJECT, "sacrebleu vectors read");
	test_bleu(v);
	test_chrf(v);
	test_words();
	test_presence();
	test_tokenizer_for();
	jv_free(v);
	return done_testing();
}
