/* cost.c and the token estimate of usage.c: prices found by judge name, costs, the sums over
 * records' usage, and the rule for CJK and other text. */
#include "base.h"
#include "config.h"
#include "usage.h"
#include "gate.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static jv usage(const char *text)
{
	return jv_parse(text);
}

int main(void)
{
	rag_price pr[3] = {{"judge-x", 2.5, 10, NAN, NAN, NAN, NAN}, {"emb", 0.5, NAN, NAN, NAN, NAN, NAN},
	                   {"cached-x", 2, 8, 0.5, NAN, NAN, NAN}};
	jv acc, u, s;

	ok(rag_cost_price_find(pr, 2, "openai:judge-x") == &pr[0], "openai:<model> is priced by the model");
	ok(rag_cost_price_find(pr, 2, "judge-x") == &pr[0], "a bare model name is found too");
	ok(rag_cost_price_find(pr, 2, "openai:other") == NULL, "an unpriced model: NULL");
	ok(rag_cost_price_find(pr, 2, NULL) == NULL, "no judge: NULL");
	is_num(rag_cost_tokens(&pr[0], 1e6, 0, 1e6), 12.5, 1e-12, "a million of each: input + output");
	is_num(rag_cost_tokens(&pr[0], 1500, 0, 300), 0.00675, 1e-12, "1500 prompt + 300 completion tokens");
	ok(isnan(rag_cost_tokens(NULL, 10, 0, 0)), "no price: NAN, never 0");
	is_num(rag_cost_tokens(NULL, 0, 0, 0), 0, 0, "no tokens cost 0 even unpriced");
	is_num(rag_cost_tokens(&pr[1], 1000, 0, 0), 0.0005, 1e-12, "an embedding model needs only input");
	ok(isnan(rag_cost_tokens(&pr[1], 1000, 0, 1)), "a missing output price with completion tokens: NAN");
	is_num(rag_cost_tokens(&pr[2], 1000, 600, 100), (400 * 2 + 600 * 0.5 + 100 * 8) / 1e6, 1e-15,
	       "cached tokens at cached_input, the rest of the prompt at input");
	is_num(rag_cost_tokens(&pr[0], 1000, 600, 100), (1000 * 2.5 + 100 * 10) / 1e6, 1e-15,
	       "no cached_input: cached tokens cost input");

	acc = jv_null();
	u = usage("{\"rag-claims\":{\"answer\":{\"judge\":\"openai:judge-x\",\"calls\":1,\"cache_hits\":0,"
	          "\"prompt_tokens\":1000,\"completion_tokens\":200}},\"rag-old\":{\"judge\":\"openai:old\",\"calls\":2,"
	          "\"prompt_tokens\":5,\"completion_tokens\":5}}");
	acc = rag_cost_add(acc, u);
	acc = rag_cost_add(acc, u);
	jv_free(u);
	u = jv_string("not usage");
	acc = rag_cost_add(acc, u);   /* ignored (usage is borrowed) */
	jv_free(u);
	s = rag_cost_summary(acc, pr, 2, "EUR");
	is_num(rag_json_num(s, "calls"), 6, 0, "summed over records: calls");
	is_num(rag_json_num(s, "prompt_tokens"), 2010, 0, "summed: prompt tokens");
	ok(jv_get_kind(jv_object_get(jv_copy(s), jv_string("total"))) == JV_KIND_NULL, "one stage unpriced: total null");
	{
		jv st = jv_object_get(jv_copy(s), jv_string("stages"));
		jv a = jv_array_get(jv_copy(st), 0), b = jv_array_get(jv_copy(st), 1);
		char buf[64];
		is_int(jv_array_length(jv_copy(st)), 2, "one entry a tool and stage");
		is_num(rag_json_num(a, "cost"), 0.009, 1e-12, "rag-claims answer: 2000 x 2.5 + 400 x 10 per million");
		is_str(rag_json_str(b, "stage", buf, sizeof buf), "all", "the flat shape of older records: stage all");
		jv_free(a);
		jv_free(b);
		jv_free(st);
	}
	{
		jv m = jv_dump_string(jv_object_get(jv_copy(s), jv_string("messages")), 0);
		is_str(jv_string_value(m), "[\"no price for model old\"]", "the message names the unpriced model");
		jv_free(m);
	}
	jv_free(s);

	{
		/* the batch route's price: its own, else the discount, else unknown */
		rag_price bp[3] = {{"own", 2, 8, NAN, 1, 4, NAN}, {"off", 2, 8, 0.5, NAN, NAN, 0.5},
		                   {"none", 2, 8, NAN, NAN, NAN, NAN}};
		rag_price b = rag_cost_batch_price(&bp[0]);
		jv sum, bt;
		is_num(rag_cost_tokens(&b, 1e6, 0, 1e6), 5, 1e-12, "batch_input and batch_output: the batch price");
		b = rag_cost_batch_price(&bp[1]);
		is_num(rag_cost_tokens(&b, 1e6, 0, 1e6), 5, 1e-12, "batch_discount 0.5: half of input and output");
		is_num(rag_cost_tokens(&b, 1e6, 1e6, 0), 0.25, 1e-12, "batch_discount: half of cached_input too");
		b = rag_cost_batch_price(&bp[2]);
		ok(isnan(rag_cost_tokens(&b, 10, 0, 10)), "no batch price: unknown (NAN), never the list price");
		/* a run whose records cost 2 x 1e6 prompt + 1e6 completion tokens at list price (12),
		 * 1e6 + 1e6 of them answered by the batch: 12 - 10 + 5 */
		acc = rag_cost_add(jv_null(), bt = jv_parse("{\"rag-claims\":{\"answer\":{\"judge\":\"openai:own\",\"calls\":2,"
		                                            "\"prompt_tokens\":2000000,\"completion_tokens\":1000000}}}"));
		jv_free(bt);
		sum = rag_cost_summary(acc, bp, 3, "USD");
		bt = jv_parse("{\"openai:own\":{\"requests\":1,\"prompt_tokens\":1000000,\"completion_tokens\":1000000}}");
		sum = rag_cost_batch(sum, bt, bp, 3);
		is_num(rag_json_num(sum, "total"), 7, 1e-9, "the batch's tokens repriced: total 12 - 10 + 5");
		{
			jv bo = rag_json_get(jv_copy(sum), "batch");
			is_num(rag_json_num(bo, "cost"), 5, 1e-9, "batch.cost: at the batch price");
			is_num(rag_json_num(bo, "cost_at_list_price"), 10, 1e-9, "batch.cost_at_list_price");
			is_num(rag_json_num(bo, "requests"), 1, 0, "batch.requests");
			jv_free(bo);
		}
		jv_free(sum);
		jv_free(bt);
		/* a batch that answered more than these records used (a resumed run's gate sees the
		 * new records only): counted at most as the records hold */
		acc = rag_cost_add(jv_null(), bt = jv_parse("{\"rag-claims\":{\"answer\":{\"judge\":\"openai:own\",\"calls\":1,"
		                                            "\"prompt_tokens\":1000000,\"completion_tokens\":0}}}"));
		jv_free(bt);
		sum = rag_cost_summary(acc, bp, 3, "USD");
		bt = jv_parse("{\"own\":{\"requests\":4,\"prompt_tokens\":4000000,\"completion_tokens\":1000000}}");
		sum = rag_cost_batch(sum, bt, bp, 3);
		is_num(rag_json_num(sum, "total"), 1, 1e-9, "more batch tokens than records: the records' (2 - 2 + 1)");
		{
			jv bo = rag_json_get(jv_copy(sum), "batch");
			is_num(rag_json_num(bo, "requests"), 1, 0, "...and the records' requests");
			jv_free(bo);
		}
		jv_free(sum);
		jv_free(bt);
		acc = rag_cost_add(jv_null(), bt = jv_parse("{\"t\":{\"s\":{\"judge\":\"none\",\"calls\":1,\"prompt_tokens\":10}}}"));
		jv_free(bt);
		sum = rag_cost_summary(acc, bp, 3, "USD");
		bt = jv_parse("{\"none\":{\"requests\":1,\"prompt_tokens\":10}}");
		sum = rag_cost_batch(sum, bt, bp, 3);
		{
			jv t = rag_json_get(jv_copy(sum), "total");
			ok(jv_get_kind(t) == JV_KIND_NULL, "no batch price: total null");
			jv_free(t);
		}
		{
			jv m = jv_dump_string(rag_json_get(jv_copy(sum), "messages"), 0);
			ok(strstr(jv_string_value(m), "no batch price for model none") != NULL, "...and the message names the model");
			jv_free(m);
		}
		{
			/* the pages word that message again from batch.no_price */
			jv np = jv_dump_string(rag_json_get(rag_json_get(jv_copy(sum), "batch"), "no_price"), 0);
			is_str(jv_string_value(np), "[\"none\"]", "...and batch.no_price names it for the pages");
			jv_free(np);
		}
		jv_free(sum);
		jv_free(bt);
	}

	is_num(rag_usage_tokens("abcdefgh"), 2, 1e-12, "English: 4 characters a token");
	is_num(rag_usage_tokens("爱因斯坦"), 4, 1e-12, "Chinese: 1 token a character");
	is_num(rag_usage_tokens("爱因斯坦 born"), 4 + 5.0 / 4, 1e-12, "mixed: each by its rule");
	is_num(rag_usage_tokens("こんにちは、한국어"), 9, 1e-12, "kana, CJK punctuation, hangul: 1 a character");
	is_num(rag_usage_chars("爱因斯坦 born"), 9, 0, "characters are code points");
	is_num(rag_usage_tokens(""), 0, 0, "empty: 0");
	is_num(rag_usage_tokens("\xff\xfe"), 0.5, 1e-12, "invalid bytes count one each");

	/* the spending cap: a price of 1 per million input tokens, 0 per output token */
	{
		rag_config cfg;
		rag_price p1 = {"judge-x", 1, 0, NAN, NAN, NAN, NAN};
		rag_cost_meter *m, *m2;
		char err[RAG_ERRLEN], path[] = "/tmp/t-cost-spend-XXXXXX";
		double h1, h2, h3;
		int reached, fd;
		rag_config_defaults(&cfg);
		cfg.llm.max_cost = 0.0025;
		ok(!rag_cost_meter_new(&cfg, "openai:judge-x", err, sizeof err), "a cap without the model's price: refused");
		ok(strstr(err, "prices.judge-x.input") != NULL, "it names the price it needs");
		cfg.prices.v = &p1;
		cfg.prices.n = 1;
		m = rag_cost_meter_new(&cfg, "openai:judge-x", err, sizeof err);
		ok(m != NULL, "a cap with the price: a meter");
		ok(rag_cost_meter_admit(m, 1000, 50, &h1, err, sizeof err) == 0 && h1 == 0.001, "the first request: admitted, 0.001 held");
		ok(rag_cost_meter_admit(m, 1000, 0, &h2, err, sizeof err) == 0, "the second, in flight with it: admitted (0.002 held)");
		ok(rag_cost_meter_admit(m, 600, 0, &h3, err, sizeof err) < 0, "a third of 0.0006 would pass 0.0025: refused");
		ok(!strncmp(err, RAG_COST_CAPPED, strlen(RAG_COST_CAPPED)), "the refusal starts with \"%s\"", RAG_COST_CAPPED);
		rag_cost_meter_settle(m, h1, 100, 0, 10);
		rag_cost_meter_settle(m, h2, 100, 50, 10);
		is_num(rag_cost_meter_spent(m, &reached), 0.0002, 1e-15, "settled: what the replies' usage cost, not the estimates");
		ok(reached == 1, "the cap is marked reached");
		ok(rag_cost_meter_admit(m, 1, 0, &h3, err, sizeof err) < 0, "once refused, even a small request is refused");
		rag_cost_meter_free(m);

		/* two processes' meters on one file: one amount */
		fd = mkstemp(path);
		ok(fd >= 0, "a spending file");
		close(fd);
		cfg.llm.spend_file = path;
		m = rag_cost_meter_new(&cfg, "judge-x", err, sizeof err);
		m2 = rag_cost_meter_new(&cfg, "judge-x", err, sizeof err);
		ok(m && m2, "two meters on one file");
		ok(rag_cost_meter_admit(m, 1500, 0, &h1, err, sizeof err) == 0, "meter 1 holds 0.0015");
		ok(rag_cost_meter_admit(m2, 1500, 0, &h2, err, sizeof err) < 0, "meter 2 may not pass the run's cap with 0.0015 more");
		ok(rag_cost_meter_admit(m, 10, 0, &h3, err, sizeof err) < 0, "and meter 1 sees the cap reached");
		rag_cost_meter_settle(m, h1, 1500, 0, 0);
		is_num(rag_cost_meter_spent(m2, &reached), 0.0015, 1e-15, "meter 2 reads what meter 1 spent");
		rag_cost_meter_free(m);
		rag_cost_meter_free(m2);
		unlink(path);

		/* a cap per hour of the records' time (rag-eval --follow), on one file */
		strcpy(path, "/tmp/t-cost-spend-XXXXXX");
		fd = mkstemp(path);
		ok(fd >= 0, "a spending file for the hours");
		close(fd);
		cfg.llm.spend_window = 3600;
		m = rag_cost_meter_new(&cfg, "judge-x", err, sizeof err);
		m2 = rag_cost_meter_new(&cfg, "judge-x", err, sizeof err);
		rag_cost_meter_at(m, 36000);    /* 10:00 */
		ok(rag_cost_meter_admit(m, 2000, 0, &h1, err, sizeof err) == 0, "hour 10: 0.002 admitted");
		rag_cost_meter_settle(m, h1, 2000, 0, 0);
		rag_cost_meter_at(m2, 37000);   /* 10:16, the other process */
		ok(rag_cost_meter_admit(m2, 1000, 0, &h2, err, sizeof err) < 0, "hour 10, another meter: 0.001 more refused");
		ok(strstr(err, "window") != NULL, "the refusal names the window");
		rag_cost_meter_at(m2, 36500);   /* a late record of hour 10: nothing changes */
		ok(rag_cost_meter_admit(m2, 1, 0, &h2, err, sizeof err) < 0, "a late record of the same hour: still refused");
		rag_cost_meter_at(m2, 39600);   /* 11:00 */
		is_num(rag_cost_meter_spent(m, &reached), 0, 1e-15, "hour 11: nothing spent in it, seen by both meters");
		ok(reached == 0, "hour 11: the cap not reached");
		ok(rag_cost_meter_admit(m, 2000, 0, &h1, err, sizeof err) == 0, "hour 11: 0.002 admitted");
		rag_cost_meter_at(m, 36000);    /* back to hour 10: no reset, counts in hour 11 */
		ok(rag_cost_meter_admit(m, 1000, 0, &h2, err, sizeof err) < 0, "a record of an earlier hour counts in the open one");
		rag_cost_meter_free(m);
		rag_cost_meter_free(m2);
		unlink(path);
		cfg.llm.spend_window = 0;
		cfg.prices.v = NULL;
		cfg.prices.n = 0;
		cfg.llm.spend_file = NULL;
		rag_config_free(&cfg);
	}
	return done_testing();
}
