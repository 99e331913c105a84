/* t-rank.c - ranking metrics on hand-worked lists, the RAGAS context precision examples, the
 * edge cases of rag-ap(1) CONVENTIONS, and the relevance vector of records. */
#include "base.h"
#include "rank.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>

#define EPS 1e-9

/* value of metric spec over gains (n), with all relevant items known = ideal (ni; NULL: gains) */
static double val(const char *spec, const double *g, size_t n, const double *ideal, size_t ni, double level, int *undef)
{
	rag_rank_metric m;
	rag_rank_list l;
	char err[RAG_ERRLEN];
	const char *why;
	double v = -1;
	if (rag_rank_metric_parse(spec, &m, err, sizeof err) < 0) {
		printf("# parse %s: %s\n", spec, err);
		*undef = -1;
		return -1;
	}
	l.gain = g;
	l.n = n;
	l.ideal = ideal ? ideal : g;
	l.nideal = ideal ? ni : n;
	l.level = level;
	*undef = rag_rank_eval(&m, &l, &v, &why);
	return v;
}

static double v1(const char *spec, const double *g, size_t n, const double *ideal, size_t ni)
{
	int u;
	double v = val(spec, g, n, ideal, ni, 0, &u);
	return u ? NAN : v;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void ragas_examples(void)
{
	/* context_precision.md: relevant chunk first 1.0 (RAGAS prints 0.9999999999), second 0.5
	 * (0.49999999995): we give the exact values */
	double first[] = {1, 0}, second[] = {0, 1}, one[] = {1};
	is_num(v1("ap", first, 2, NULL, 0), 1.0, 0, "RAGAS: relevant chunk first -> 1 exactly");
	is_num(v1("ap", second, 2, NULL, 0), 0.5, 0, "RAGAS: relevant chunk second -> 0.5 exactly");
	is_num(v1("ap", one, 1, NULL, 0), 1.0, 0, "RAGAS: one relevant chunk -> 1");
	/* ID based precision example: 2 of 4 retrieved ids are relevant -> 0.5 (precision of the list) */
	{
		double g[] = {1, 0, 0, 1}, ideal[] = {1, 1, 1, 1};
		is_num(v1("p", g, 4, ideal, 4), 0.5, 0, "RAGAS IDBasedContextPrecision example: precision 0.5");
	}
}

static void hand_worked(void)
{
	double g[] = {1, 0, 1, 0, 1};
	/* (1/1 + 2/3 + 3/5) / 3 */
	is_num(v1("ap", g, 5, NULL, 0), (1.0 + 2.0 / 3 + 3.0 / 5) / 3, EPS, "ap of 1,0,1,0,1");
	/* ap@3: relevant in top 3 are ranks 1, 3: (1 + 2/3) / 2 */
	is_num(v1("ap@3", g, 5, NULL, 0), (1.0 + 2.0 / 3) / 2, EPS, "ap@3 divides by the relevant items in the top 3");
	is_num(v1("p@1", g, 5, NULL, 0), 1, EPS, "p@1");
	is_num(v1("p@2", g, 5, NULL, 0), 0.5, EPS, "p@2");
	is_num(v1("p@5", g, 5, NULL, 0), 0.6, EPS, "p@5");
	is_num(v1("recall@3", g, 5, NULL, 0), 2.0 / 3, EPS, "recall@3 against the 3 relevant of the list");
	is_num(v1("mrr", g, 5, NULL, 0), 1, EPS, "mrr when the first is relevant");
	{
		/* average precision (map) divides by every relevant item known: 4 known, 2 retrieved */
		double l[] = {1, 0, 1}, ideal[] = {1, 1, 1, 1};
		is_num(v1("map", l, 3, ideal, 4), (1.0 + 2.0 / 3) / 4, EPS, "map divides by all relevant known");
		is_num(v1("ap", l, 3, ideal, 4), (1.0 + 2.0 / 3) / 2, EPS, "ap (context precision) divides by those retrieved");
		is_num(v1("recall", l, 3, ideal, 4), 0.5, EPS, "recall 2 of 4");
		is_num(v1("recall@1", l, 3, ideal, 4), 0.25, EPS, "recall@1 1 of 4");
		is_num(v1("map@1", l, 3, ideal, 4), 0.25, EPS, "map@1 (trec map_cut_1)");
	}
	{
		double l[] = {0, 0, 1};
		is_num(v1("mrr", l, 3, NULL, 0), 1.0 / 3, EPS, "mrr: first relevant at rank 3");
		is_num(v1("mrr@2", l, 3, NULL, 0), 0, EPS, "mrr@2: none in the top 2 -> 0");
		is_num(v1("hit@2", l, 3, NULL, 0), 0, EPS, "hit@2 none");
		is_num(v1("hit@3", l, 3, NULL, 0), 1, EPS, "hit@3 one");
	}
	{
		/* R-precision: 3 relevant known, 1 of them in the top 3 */
		double l[] = {1, 0, 0, 1, 1};
		is_num(v1("rprec", l, 5, NULL, 0), 1.0 / 3, EPS, "rprec 1 of the top 3");
	}
	{
		/* the nDCG example of Wikipedia: grades 3,2,3,0,1,2 against ideal 3,3,3,2,2,2,1,0:
		 * DCG6 6.861, IDCG6 8.740, nDCG6 0.785 */
		double l[] = {3, 2, 3, 0, 1, 2}, ideal[] = {3, 3, 3, 2, 2, 2, 1, 0};
		double dcg = 3 + 2 / log2(3) + 3 / log2(4) + 0 + 1 / log2(6) + 2 / log2(7);
		double idcg = 3 + 3 / log2(3) + 3 / log2(4) + 2 / log2(5) + 2 / log2(6) + 2 / log2(7);
		is_num(v1("ndcg@6", l, 6, ideal, 8), dcg / idcg, EPS, "ndcg@6, graded gains");
		is_num(v1("ndcg@6", l, 6, ideal, 8), 0.785, 0.0005, "ndcg@6 = 0.785 as in the worked example");
		is_num(v1("ndcg@1", l, 6, ideal, 8), 1, EPS, "ndcg@1 top grade first");
	}
}

static void edge_cases(void)
{
	int u;
	double none[] = {0, 0, 0}, two[] = {1, 1};
	/* no relevant item retrieved: context precision 0, not undefined */
	is_num(v1("ap", none, 3, NULL, 0), 0, 0, "ap with no relevant chunk is 0");
	val("map", none, 3, NULL, 0, 0, &u);
	is_int(u, 1, "map with no relevant item known is undefined");
	val("recall@2", none, 3, NULL, 0, 0, &u);
	is_int(u, 1, "recall with no relevant item known is undefined");
	val("ndcg@3", none, 3, NULL, 0, 0, &u);
	is_int(u, 1, "ndcg with no relevant item known is undefined");
	val("rprec", none, 3, NULL, 0, 0, &u);
	is_int(u, 1, "rprec with no relevant item known is undefined");
	is_num(v1("p@3", none, 3, NULL, 0), 0, 0, "p@3 with no relevant chunk is 0");
	is_num(v1("mrr", none, 3, NULL, 0), 0, 0, "mrr with no relevant chunk is 0");
	/* k larger than the list: missing positions are not relevant, p@k divides by k */
	is_num(v1("p@5", two, 2, NULL, 0), 0.4, EPS, "p@5 of a list of 2 relevant = 2/5");
	is_num(v1("recall@5", two, 2, NULL, 0), 1, EPS, "recall@5 of a list of 2");
	is_num(v1("ndcg@5", two, 2, NULL, 0), 1, EPS, "ndcg@5 of a perfect list of 2");
	is_num(v1("ap@5", two, 2, NULL, 0), 1, EPS, "ap@5 of a list of 2");
	/* an empty list */
	{
		double ideal[] = {1, 1};
		is_num(v1("ap", NULL, 0, ideal, 2), 0, 0, "ap of an empty list is 0");
		is_num(v1("recall@3", NULL, 0, ideal, 2), 0, 0, "recall of an empty list with relevant known is 0");
		is_num(v1("p@3", NULL, 0, ideal, 2), 0, 0, "p@3 of an empty list is 0");
		is_num(v1("ndcg@3", NULL, 0, ideal, 2), 0, 0, "ndcg of an empty list is 0");
		val("p", NULL, 0, ideal, 2, 0, &u);
		is_int(u, 1, "p (the whole list) of an empty list is undefined");
	}
	/* graded: relevance level */
	{
		double g[] = {1, 2, 0};
		int uu;
		is_num(val("ap", g, 3, NULL, 0, 2, &uu), 0.5, EPS, "level 2: only the grade-2 item is relevant");
		is_num(val("ap", g, 3, NULL, 0, 0, &uu), 1, EPS, "default level: grades above 0 are relevant");
		is_num(val("ndcg@3", g, 3, NULL, 0, 2, &uu), (1 + 2 / log2(3)) / (2 + 1 / log2(3)), EPS,
		       "ndcg uses the grades as gains whatever the level");
	}
}

static void parsing(void)
{
	rag_rank_metric m;
	char err[RAG_ERRLEN];
	ok(rag_rank_metric_parse("ap", &m, err, sizeof err) == 0 && strcmp(m.name, "context_precision") == 0,
	   "ap is context_precision");
	ok(rag_rank_metric_parse("p@5", &m, err, sizeof err) == 0 && strcmp(m.name, "precision@5") == 0 && m.k == 5,
	   "p@5 is precision@5");
	ok(rag_rank_metric_parse("recall@10", &m, err, sizeof err) == 0 && strcmp(m.name, "recall@10") == 0, "recall@10");
	ok(rag_rank_metric_parse("ndcg@10", &m, err, sizeof err) == 0 && strcmp(m.name, "ndcg@10") == 0, "ndcg@10");
	ok(rag_rank_metric_parse("map", &m, err, sizeof err) == 0 && strcmp(m.name, "average_precision") == 0, "map");
	ok(rag_rank_metric_parse("hit@3", &m, err, sizeof err) == 0 && strcmp(m.name, "hit@3") == 0, "hit@3");
	ok(rag_rank_metric_parse("rprec", &m, err, sizeof err) == 0 && strcmp(m.name, "r_precision") == 0, "rprec");
	ok(rag_rank_metric_parse("mrr", &m, err, sizeof err) == 0 && strcmp(m.name, "mrr") == 0, "mrr");
	ok(rag_rank_metric_parse("rprec@3", &m, err, sizeof err) < 0, "rprec takes no cut-off");
	ok(rag_rank_metric_parse("p@0", &m, err, sizeof err) < 0, "p@0 refused");
	ok(rag_rank_metric_parse("p@x", &m, err, sizeof err) < 0, "p@x refused");
	ok(rag_rank_metric_parse("bleu", &m, err, sizeof err) < 0 && strstr(err, "unknown metric"), "unknown metric named");
}

static void similarity(void)
{
	is_num(rag_relevance_similarity("kitten", "sitting"), 1 - 3.0 / 7, EPS, "kitten/sitting: 1 - 3/7");
	is_num(rag_relevance_similarity("Paris", "PARIS"), 1, EPS, "case folded");
	is_num(rag_relevance_similarity("", ""), 1, EPS, "two empty texts are alike");
	is_num(rag_relevance_similarity("abc", ""), 0, EPS, "one empty text: 0");
	is_num(rag_relevance_similarity("巴黎", "巴黎市"), 1 - 1.0 / 3, EPS, "code points, not bytes");
}

static void relevance(void)
{
	rag_relevance r;
	char err[RAG_ERRLEN];
	jv rec;
	int rc;

	rec = jv_parse("{\"contexts\":[{\"id\":\"a\",\"text\":\"x\"},{\"id\":\"b\",\"text\":\"y\"},{\"id\":\"a\",\"text\":\"x\"},"
	               "{\"id\":3,\"text\":\"z\"}],\"relevant_ids\":[\"a\",3,\"d\"]}");
	rc = rag_relevance_get(rec, RAG_REL_AUTO, NULL, 0.5, &r, err, sizeof err);
	ok(rc == 0 && r.n == 4 && r.gain[0] == 1 && r.gain[1] == 0 && r.gain[2] == 0 && r.gain[3] == 1 && r.nideal == 3,
	   "ids: a found, b not, a again counts 0, number id 3 found; 3 relevant known");
	is_str(r.source, "ids", "ids source");
	rag_relevance_free(&r);
	jv_free(rec);

	rec = jv_parse("{\"contexts\":[{\"id\":\"a\",\"text\":\"x\"},{\"id\":\"b\",\"text\":\"y\"}],\"relevant_ids\":{\"b\":3,\"c\":1,\"a\":0}}");
	rc = rag_relevance_get(rec, RAG_REL_IDS, NULL, 0.5, &r, err, sizeof err);
	ok(rc == 0 && r.n == 2 && r.gain[0] == 0 && r.gain[1] == 3 && r.nideal == 3, "graded ids: grades as gains");
	rag_relevance_free(&r);
	jv_free(rec);

	rec = jv_parse("{\"contexts\":[\"x\"],\"relevant_ids\":[\"a\"]}");
	rc = rag_relevance_get(rec, RAG_REL_AUTO, NULL, 0.5, &r, err, sizeof err);
	ok(rc == -1 && strstr(err, "contexts[0] has no \"id\""), "ids against contexts without ids: an input error");
	rag_relevance_free(&r);
	jv_free(rec);

	rec = jv_parse("{\"verdicts\":{\"context_utilization\":[{\"chunk\":\"x\",\"verdict\":false,\"reason\":\"\"},"
	               "{\"chunk\":\"y\",\"verdict\":true,\"reason\":\"\"}]},\"relevant_ids\":[\"q\"]}");
	rc = rag_relevance_get(rec, RAG_REL_AUTO, NULL, 0.5, &r, err, sizeof err);
	ok(rc == 0 && r.n == 2 && r.gain[0] == 0 && r.gain[1] == 1, "verdicts come before ids");
	is_str(r.ap_name, "context_utilization", "average precision named after the verdicts");
	rag_relevance_free(&r);
	jv_free(rec);

	/* the same record for mrr: the ids first (the user's), the verdicts where there are none */
	rec = jv_parse("{\"contexts\":[{\"id\":\"x\"},{\"id\":\"q\"}],\"verdicts\":{\"context_precision\":["
	               "{\"chunk\":\"x\",\"verdict\":true,\"reason\":\"\"},{\"chunk\":\"q\",\"verdict\":false,\"reason\":\"\"}]},"
	               "\"relevant_ids\":[\"q\"]}");
	{
		rag_rank_metric ap, mrr;
		rag_rank_metric_parse("ap", &ap, err, sizeof err);
		rag_rank_metric_parse("mrr", &mrr, err, sizeof err);
		is_int(rag_relevance_source(RAG_REL_AUTO, &ap), RAG_REL_AUTO, "context precision: verdicts first");
		is_int(rag_relevance_source(RAG_REL_AUTO, &mrr), RAG_REL_AUTO_IDS, "mrr: ids first");
		is_int(rag_relevance_source(RAG_REL_VERDICTS, &mrr), RAG_REL_VERDICTS, "a source asked for: that one");
	}
	rc = rag_relevance_get(rec, RAG_REL_AUTO_IDS, NULL, 0.5, &r, err, sizeof err);
	ok(rc == 0 && r.n == 2 && r.gain[0] == 0 && r.gain[1] == 1, "ids first: q relevant, x not, whatever the verdicts say");
	is_str(r.source, "ids", "...from the ids");
	rag_relevance_free(&r);
	rc = rag_relevance_get(rec, RAG_REL_AUTO, NULL, 0.5, &r, err, sizeof err);
	ok(rc == 0 && r.gain[0] == 1 && r.gain[1] == 0 && !strcmp(r.source, "verdicts"), "verdicts first: x relevant");
	rag_relevance_free(&r);
	rec = jv_object_set(rec, jv_string("relevant_ids"), jv_null());
	rc = rag_relevance_get(rec, RAG_REL_AUTO_IDS, NULL, 0.5, &r, err, sizeof err);
	ok(rc == 0 && !strcmp(r.source, "verdicts"), "ids first, relevant_ids null: the verdicts");
	rag_relevance_free(&r);
	jv_free(rec);

	rec = jv_parse("{\"verdicts\":{\"context_precision\":null}}");
	rc = rag_relevance_get(rec, RAG_REL_AUTO, NULL, 0.5, &r, err, sizeof err);
	is_int(rc, -2, "null verdicts: the judging failed upstream");
	rag_relevance_free(&r);
	jv_free(rec);

	rec = jv_parse("{\"verdicts\":{\"context_precision\":[{\"verdict\":\"yes\"}]}}");
	rc = rag_relevance_get(rec, RAG_REL_AUTO, NULL, 0.5, &r, err, sizeof err);
	ok(rc == -1 && strstr(err, "verdicts.context_precision[0]"), "a verdict that is not a boolean: input error");
	rag_relevance_free(&r);
	jv_free(rec);

	/* RAGAS NonLLMContextPrecisionWithReference example: 0.9999999999 there, 1 here */
	rec = jv_parse("{\"retrieved_contexts\":[\"The Eiffel Tower is located in Paris.\"],"
	               "\"reference_contexts\":[\"Paris is the capital of France.\","
	               "\"The Eiffel Tower is one of the most famous landmarks in Paris.\"]}");
	rc = rag_relevance_get(rec, RAG_REL_AUTO, NULL, 0.5, &r, err, sizeof err);
	ok(rc == 0 && r.n == 1 && r.gain[0] == 1 && r.nideal == 2, "similarity: the chunk matches the second reference");
	{
		rag_rank_metric m;
		rag_rank_list l = {r.gain, r.n, r.ideal, r.nideal, 0};
		const char *why;
		double v = -1;
		rag_rank_metric_parse("ap", &m, err, sizeof err);
		rag_rank_eval(&m, &l, &v, &why);
		is_num(v, 1, 0, "RAGAS non-LLM context precision example: 1");
	}
	rag_relevance_free(&r);
	jv_free(rec);

	rec = jv_parse("{\"contexts\":[\"x\"]}");
	rc = rag_relevance_get(rec, RAG_REL_AUTO, NULL, 0.5, &r, err, sizeof err);
	ok(rc == -1 && strstr(err, "nothing to rank by"), "no source: input error naming the three");
	rag_relevance_free(&r);
	jv_free(rec);
}

int main(void)
{
	ragas_examples();
	hand_worked();
	edge_cases();
	parsing();
	similarity();
	relevance();
	return done_testing();
}
