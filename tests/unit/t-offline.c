/* t-offline.c - the offline judge: claim splitting and lexical verification. */
#include "base.h"
#include "offline.h"
#include "metric.h"
#include "tap.h"

#include <stdlib.h>

/* Claims of text joined with " | ", for one-line comparisons. */
static char *claims(const char *question, const char *text, int max)
{
	jv c = rag_offline_claims(question, text, max);
	rag_buf b = { 0 };
	int i, n = jv_array_length(jv_copy(c));

	for (i = 0; i < n; i++) {
		jv x = jv_array_get(jv_copy(c), i);
		if (i)
			rag_buf_adds(&b, " | ");
		rag_buf_adds(&b, jv_string_value(x));
		jv_free(x);
	}
	jv_free(c);
	return b.p ? b.p : rag_xstrdup("");
}

#define is_claims(q, text, max, want, ...) do { char *g_c = claims(q, text, max); \
	is_str(g_c, want, __VA_ARGS__); free(g_c); } while (0)

static jv strings(const char *const *v)
{
	jv a = jv_array();
	for (; v && *v; v++)
		a = jv_array_append(a, jv_string(*v));
	return a;
}

/* Verdicts for claims against contexts (NULL-terminated lists). */
static jv verify(const char *const *cl, const char *const *ctx, double threshold)
{
	return rag_offline_verify(strings(cl), strings(ctx), threshold);
}

static int verdict_of(jv vs, int i)
{
	jv v = jv_object_get(jv_array_get(jv_copy(vs), i), jv_string("verdict"));
	int r = jv_get_kind(v) == JV_KIND_TRUE;
	jv_free(v);
	return r;
}

/* The reason of verdict i, in a static buffer so tests can compare it directly. */
static const char *reason_of(jv vs, int i)
{
	static char buf[256];
	jv r = jv_object_get(jv_array_get(jv_copy(vs), i), jv_string("reason"));
	snprintf(buf, sizeof buf, "%s", jv_get_kind(r) == JV_KIND_STRING ? jv_string_value(r) : "?");
	jv_free(r);
	return buf;
}

/* The context index of verdict i, -1 for null. */
static int context_of(jv vs, int i)
{
	jv c = jv_object_get(jv_array_get(jv_copy(vs), i), jv_string("context"));
	int r = jv_get_kind(c) == JV_KIND_NUMBER ? (int)jv_number_value(c) : -1;
	jv_free(c);
	return r;
}

/* The graded score of verdict i, -1 when it has none. */
static double graded(jv vs, int i)
{
	jv g = jv_object_get(jv_array_get(jv_copy(vs), i), jv_string("score"));
	double r = jv_get_kind(g) == JV_KIND_NUMBER ? jv_number_value(g) : -1;
	jv_free(g);
	return r;
}

static double score(jv vs)
{
	int i, n = jv_array_length(jv_copy(vs)), s = 0;
	for (i = 0; i < n; i++)
		s += verdict_of(vs, i);
	return n ? (double)s / n : 1.0;
}

static const char *const einstein[] = {
	"Albert Einstein (born 14 March 1879) was a German-born theoretical physicist, widely "
	"acknowledged to be one of the greatest and most influential physicists of all time. Best "
	"known for developing the theory of relativity, he also made important contributions to "
	"the development of the theory of quantum mechanics.",
	NULL,
};

static void ragas_einstein(void)
{
	const char *q = "Where and when was Einstein born?";
	jv c, v;

	is_claims(q, "Einstein was born in Germany on 20th March 1879.", 0,
	          "Einstein was born in Germany. | Einstein was born on 20th March 1879.",
	          "place and date become two claims");

	c = rag_offline_claims(q, "Einstein was born in Germany on 20th March 1879.", 20);
	v = rag_offline_verify(c, strings(einstein), 0.6);
	is_int(jv_array_length(jv_copy(v)), 2, "low answer: two verdicts");
	ok(verdict_of(v, 0), "low answer: born in Germany is supported");
	is_str(reason_of(v, 0), "supported by context 1 (100% of content words)",
	       "low answer: reason 1 (Germany found as its kin, German-born)");
	is_int(context_of(v, 0), 0, "low answer: context 0");
	ok(!verdict_of(v, 1), "low answer: the wrong date is unsupported");
	is_str(reason_of(v, 1), "number 20 not in context 1", "low answer: reason names the number");
	is_num(score(v), 0.5, 1e-9, "low answer scores 0.5");
	jv_free(v);

	c = rag_offline_claims(q, "Einstein was born in Germany on 14th March 1879.", 20);
	v = rag_offline_verify(c, strings(einstein), 0.6);
	is_num(score(v), 1.0, 1e-9, "high answer scores 1");
	is_str(reason_of(v, 1), "supported by context 1 (100% of content words)", "high answer: reason");
	jv_free(v);

	/* unsplit, the sentence still fails on its date */
	v = verify((const char *const[]){ "Einstein was born in Germany on 20th March 1879.",
	                                  "Einstein was born in Germany on 14th March 1879.", NULL },
	           einstein, 0.6);
	ok(!verdict_of(v, 0) && verdict_of(v, 1), "unsplit sentences: wrong date fails, right passes");
	jv_free(v);
}

static void superbowl(void)
{
	static const char *const ctx[] = {
		"The First AFL\xE2\x80\x93NFL World Championship Game was an American football game played "
		"on January 15, 1967, at the Los Angeles Memorial Coliseum in Los Angeles.",
		NULL,
	};
	jv v = verify((const char *const[]){ "The first superbowl was held on Jan 15, 1967",
	                                     "The first superbowl was held on Jan 16, 1967",
	                                     "The first superbowl was held on 1967-01-15", NULL },
	              ctx, 0.6);
	ok(verdict_of(v, 0), "Jan 15, 1967 agrees with January 15, 1967");
	is_str(reason_of(v, 0), "supported by context 1 (66% of content words)", "super bowl reason");
	ok(!verdict_of(v, 1), "Jan 16 does not");
	is_str(reason_of(v, 1),
	       "50% of content words found in context 1 (below 60%); number 16 not in it",
	       "the reason gives the share and the missing number");
	ok(verdict_of(v, 2), "an ISO date agrees with the month name (January counts as 1)");
	jv_free(v);
}

static void chinese(void)
{
	static const char *const ctx[] = { "长城位于中国北方，全长约21196公里。", NULL };
	jv v = verify((const char *const[]){ "长城位于中国北方", "长城全长约5000公里", "长城不在中国",
	                                     "长城全长约21,196公里。", NULL },
	              ctx, 0.6);
	ok(verdict_of(v, 0), "长城位于中国北方 is supported");
	is_str(reason_of(v, 0), "supported by context 1 (100% of content words)", "zh: reason 1");
	ok(!verdict_of(v, 1), "长城全长约5000公里 is unsupported");
	is_str(reason_of(v, 1), "number 5000公里 not in context 1", "zh: the number is named, with its unit");
	ok(!verdict_of(v, 2), "长城不在中国 is unsupported");
	is_str(reason_of(v, 2), "negation differs from context 1", "zh: negation is the reason");
	ok(verdict_of(v, 3), "21,196 agrees with 21196");
	jv_free(v);

	{
		static const char *const policy[] = {
			"自收货之日起7天内，商品未使用且包装完好的，可以无理由退货。",
			"定制商品不支持无理由退货。", NULL,
		};
		v = verify((const char *const[]){ "收货后7天内可以无理由退货，商品须未使用且包装完好。",
		                                  "定制商品也支持无理由退货。", NULL },
		           policy, 0.6);
		ok(verdict_of(v, 0), "zh: 未使用 and 无理由 on both sides agree");
		ok(!verdict_of(v, 1), "zh: 也支持 against 不支持 is unsupported");
		is_str(reason_of(v, 1), "negation differs from context 2", "zh: ...and the reason says so");
		is_int(context_of(v, 1), 1, "zh: ...naming the second context");
		jv_free(v);
	}

	is_claims("长城是什么？", "长城是世界文化遗产，但是它受到了破坏。", 0,
	          "长城是世界文化遗产。 | 长城受到了破坏。", "zh: split at ，但是 and resolve 它");
	is_claims("长城在哪里？", "它位于中国北方。", 0, "长城位于中国北方。",
	          "zh: the subject before 在哪 replaces 它");
	is_claims(NULL, "长城位于中国北方；全长约两万公里。希望对你有帮助！", 0,
	          "长城位于中国北方。 | 全长约两万公里。", "zh: ；splits, the filler is dropped");
	is_claims(NULL, "爱因斯坦出生于1879年3月14日。", 0, "爱因斯坦出生于1879年3月14日。",
	          "zh: a date sentence stays whole");
}

/* Chinese clauses end at "，" and "；" as English ones end at "; " or ", and he": a sentence whose
 * clauses two contexts support one each is supported, and a wrong clause fails alone. "、" lists
 * the items of one clause and never cuts; a condition stays with the clause it qualifies. */
static void zh_clauses(void)
{
	static const char *const library[] = { "会员每月可免费借阅10本书。", "图书逾期归还的，每天罚款1元。", NULL };
	jv c, v;

	is_claims(NULL, "这家店周一至周五营业，周末休息。", 0, "这家店周一至周五营业。 | 周末休息。",
	          "zh: split at ，");
	is_claims(NULL, "公园早上6点开门；晚上10点关门。", 0, "公园早上6点开门。 | 晚上10点关门。",
	          "zh: split at ；");
	is_claims(NULL, "公司在北京、上海和广州都设有办公室。", 0, "公司在北京、上海和广州都设有办公室。",
	          "zh: 、 joins a list, no cut");
	is_claims(NULL, "如果订单金额超过100元，可以免运费。", 0, "如果订单金额超过100元，可以免运费。",
	          "zh: a condition keeps its clause");
	is_claims(NULL, "北京是中国的首都,也是全国的政治中心。", 0, "北京是中国的首都。 | 北京也是全国的政治中心。",
	          "zh: an ASCII comma between Chinese clauses; 也 borrows the subject");
	is_claims(NULL, "会员价格为99元，有效期一年。", 0, "会员价格为99元。 | 有效期一年。",
	          "zh: after a bare comma 有效期 is a subject of its own, nothing borrowed");
	is_claims(NULL, "上海，简称沪。", 0, "上海，简称沪。", "zh: a piece too short stays joined");

	c = rag_offline_claims("借书有什么规定？", "会员每月可免费借阅10本书，逾期每天罚款1元。", 0);
	v = rag_offline_verify(c, strings(library), 0.6);
	is_int(jv_array_length(jv_copy(v)), 2, "zh: two clauses, two claims");
	is_num(score(v), 1.0, 1e-9, "zh: supported by two contexts, one clause each");
	is_int(context_of(v, 0) * 10 + context_of(v, 1), 1, "zh: context 1 for the first, 2 for the second");
	jv_free(v);

	c = rag_offline_claims(NULL, "会员每月可免费借阅10本书，逾期每天罚款5元。", 0);
	v = rag_offline_verify(c, strings(library), 0.6);
	ok(verdict_of(v, 0) && !verdict_of(v, 1), "zh: the clause with the wrong fine fails alone");
	is_num(score(v), 0.5, 1e-9, "zh: ... and the answer scores 0.5, not 0");
	jv_free(v);

	{
		static const char *const shop[] = {
			"The museum opens at 9 am on weekdays.", "On weekdays the museum closes at 5 pm.", NULL,
		};
		c = rag_offline_claims(NULL, "The museum opens at 9 am on weekdays, and it closes at 5 pm.", 0);
		v = rag_offline_verify(c, strings(shop), 0.6);
		is_num(score(v), 1.0, 1e-9, "en: the same with ', and it'");
		jv_free(v);
	}
}

/* A number and its unit are one quantity: a short reference such as 12人 is not found in a text
 * that has 人 and some other number, and 十二人 is 12人. */
static void quantities(void)
{
	static const char *const ctx[] = {
		"每人限购2件，活动共有30人报名。", "本次会议共有12人参加。", "参加培训的共十二人。",
		"The hall seats 12 people.", NULL,
	};
	jv v;

	v = verify((const char *const[]){ "12人", "共有十二人参加", "共30人报名", "共13人参加", NULL }, ctx, 0.6);
	ok(verdict_of(v, 0), "zh: 12人 is found where 12 and 人 go together");
	is_int(context_of(v, 0), 1, "zh: ... in context 2, not in context 1 (人 and 2 apart)");
	ok(verdict_of(v, 1), "zh: 十二人 = 12人");
	ok(verdict_of(v, 2), "zh: 30人 found");
	ok(!verdict_of(v, 3), "zh: 13人 is not");
	is_str(reason_of(v, 3), "number 13人 not in context 3", "zh: the reason names the quantity (of the closest context)");
	jv_free(v);

	{
		static const char *const age[] = { "他在38岁时带领球队赢得了冠军。", NULL };
		v = verify((const char *const[]){ "38", "他在38岁时带领球队赢得冠军", "他在39岁时带领球队赢得冠军", NULL }, age, 0.6);
		ok(verdict_of(v, 0), "zh: a bare 38 is stated by 38岁 (%s)", reason_of(v, 0));
		ok(verdict_of(v, 1) && !verdict_of(v, 2), "zh: 38岁 found, 39岁 not");
		jv_free(v);
	}
	{
		static const char *const one[] = { "每人限购2件。", NULL };
		v = verify((const char *const[]){ "12人", NULL }, one, 0.6);
		ok(!verdict_of(v, 0), "zh: 12人 against 每人限购2件: no part of it alone matches");
		jv_free(v);
	}
	{
		static const char *const trip[] = { "行程共七天，费用为三千元。", NULL };
		v = verify((const char *const[]){ "行程共7天", "费用为3000元", "行程共5天", NULL }, trip, 0.6);
		ok(verdict_of(v, 0) && verdict_of(v, 1), "zh: 七天 = 7天, 三千元 = 3000元");
		ok(!verdict_of(v, 2), "zh: 5天 is not 七天");
		jv_free(v);
	}
}

/* A number counts only where it stands with the words it qualifies: a claim whose number was
 * swapped for another number of the same context is not supported (issue 35, item 9). */
static void swapped_numbers(void)
{
	static const char *const returns[] = {
		"Unused items can be returned within 7 days of delivery. Orders over 30 dollars ship for free.", NULL,
	};
	static const char *const zh[] = {
		"订单超过3天未发货，可以申请退款。商品签收后5天内可以无理由退货。", NULL,
	};
	jv v;

	v = verify((const char *const[]){ "Unused items can be returned within 30 days.",
	                                  "Unused items can be returned within 7 days.",
	                                  "Orders over 30 dollars ship for free.", NULL }, returns, 0.6);
	ok(!verdict_of(v, 0), "en: 30 of the context, but with dollars: returned within 30 days not supported");
	is_str(reason_of(v, 0), "number 30 not with its words in context 1", "...the reason says where it is not");
	is_num(graded(v, 0), 0.5, 1e-9, "...scored as a number missing");
	ok(verdict_of(v, 1) && verdict_of(v, 2), "en: each number with its own words: supported");
	jv_free(v);

	v = verify((const char *const[]){ "订单超过5天未发货可以申请退款。", "订单超过3天未发货可以申请退款。",
	                                  "商品签收后5天内可以无理由退货。", NULL }, zh, 0.6);
	ok(!verdict_of(v, 0), "zh: 5天 of the context, but with 签收: 超过5天未发货 not supported (%s)", reason_of(v, 0));
	is_str(reason_of(v, 0), "number 5天 not with its words in context 1", "zh: ...the reason names the quantity");
	ok(verdict_of(v, 1) && verdict_of(v, 2), "zh: each quantity with its own words: supported");
	jv_free(v);

	/* across contexts too: the words in one, the swapped number in the other */
	v = verify((const char *const[]){ "Unused items can be returned within 30 days.", NULL },
	           (const char *const[]){ "Unused items can be returned within 7 days of delivery.",
	                                  "Orders over 30 dollars ship for free.", NULL }, 0.6);
	ok(!verdict_of(v, 0), "en: not by the contexts together either (%s)", reason_of(v, 0));
	jv_free(v);

	/* a number stated in the sentence after its words, no other number beside them: still found */
	v = verify((const char *const[]){ "Einstein received the Nobel Prize in 1921.", NULL },
	           (const char *const[]){ "In 1905 Einstein wrote four papers. Later Einstein received the Nobel Prize. "
	                                  "That was in 1921.", NULL }, 0.6);
	ok(verdict_of(v, 0), "en: a number in the sentence after its words, none other there: supported (%s)",
	   reason_of(v, 0));
	jv_free(v);
	v = verify((const char *const[]){ "The Basic plan costs 20 dollars a month.", "The Pro plan costs 20 dollars a month.",
	                                  NULL },
	           (const char *const[]){ "The Basic plan costs 10 dollars a month. The Pro plan costs 20 dollars a month.",
	                                  NULL }, 0.6);
	ok(!verdict_of(v, 0) && verdict_of(v, 1), "en: a price given to the other plan is not supported, its own is");
	jv_free(v);
}

/* Markup is no sentence: a table row and a heading are units of their own, a "No" cell denies
 * nothing, and in an answer a title (a heading, a bold label, a table's header row) is no claim. */
static void markup(void)
{
	static const char *const plans[] = {
		"The Basic plan costs 10 dollars a month and has no single sign-on. "
		"The Pro plan costs 20 dollars a month and includes single sign-on.", NULL,
	};
	jv c, v;

	is_claims(NULL, "| Plan | SSO | Price |\n|---|:---:|---|\n| Basic | No | 10 dollars |\n"
	          "| Pro | Yes | 20 dollars. Billed monthly |", 0,
	          "| Basic | No | 10 dollars | | | Pro | Yes | 20 dollars. Billed monthly |",
	          "table: the header and separator rows go, each row is one claim, never cut inside");
	c = rag_offline_claims(NULL, "| Plan | SSO | Price |\n|---|---|---|\n| Basic | No | 10 dollars |", 0);
	v = rag_offline_verify(c, strings(plans), 0.6);
	ok(verdict_of(v, 0), "table: the row with a No cell is supported (%s)", reason_of(v, 0));
	jv_free(v);

	is_claims(NULL, "## Speed, not size\nThe chip runs at 3 GHz.", 0, "The chip runs at 3 GHz.",
	          "a # heading is a title, no claim");
	is_claims(NULL, "1. **Speed, not size**: The chip runs at 3 GHz.\n2. **Battery** - It lasts ten hours.", 0,
	          "The chip runs at 3 GHz. | It lasts ten hours.", "a bold label before its text is a title");
	is_claims(NULL, "**Summary**\nThe chip is fast.\n# The chip shipped in 2021.", 0,
	          "The chip is fast. | The chip shipped in 2021.",
	          "a bold line is a title; a heading that is a sentence stays a claim");
	c = rag_offline_claims(NULL, "**Speed, not size**: The chip runs at 3 GHz.", 0);
	v = rag_offline_verify(c, strings((const char *const[]){ "The chip runs at 3 GHz and its size is 5 mm.", NULL }), 0.6);
	ok(verdict_of(v, 0), "the label's 'not size' no longer rejects the claim after it");
	jv_free(v);

	v = verify((const char *const[]){ "The earphones charge over a wired cable.", NULL },
	           (const char *const[]){ "**Wireless, not wired** The earphones charge over a wired cable.", NULL }, 0.6);
	ok(verdict_of(v, 0), "context: a bold heading is a sentence of its own (%s)", reason_of(v, 0));
	jv_free(v);
	v = verify((const char *const[]){ "The earphones charge over a wired cable.", NULL },
	           (const char *const[]){ "## Wireless, not wired\nThe earphones charge over a wired cable.", NULL }, 0.6);
	ok(verdict_of(v, 0), "context: a # heading is a sentence of its own");
	jv_free(v);

	is_claims(NULL, "| 套餐 | 免运费 |\n|---|---|\n| 基础版 | 不 |\n| 专业版 | 是 |", 0,
	          "| 基础版 | 不 | | | 专业版 | 是 |", "zh: a table");
	v = verify((const char *const[]){ "| 基础版 | 不 | 每月10元 |", NULL },
	           (const char *const[]){ "基础版每月10元，专业版免运费。", NULL }, 0.6);
	ok(verdict_of(v, 0), "zh: a 不 cell denies nothing (%s)", reason_of(v, 0));
	jv_free(v);
	is_claims(NULL, "## 价格，而非功能\n专业版每月20元。", 0, "专业版每月20元。", "zh: a heading is a title");

	/* a denial made in a sentence of its own */
	v = verify((const char *const[]){ "The painting has never been restored.", "The painting has been restored.", NULL },
	           (const char *const[]){ "Visitors can see the painting in room 4 after it was restored by volunteers. "
	                                  "Sadly the old frame of the painting has never been restored.", NULL }, 0.6);
	ok(verdict_of(v, 0), "a denial in another sentence than the best one supports the denial");
	jv_free(v);
	v = verify((const char *const[]){ "Einstein did not like school.", NULL },
	           (const char *const[]){ "Einstein liked school very much. He did not like exams.", NULL }, 0.6);
	ok(!verdict_of(v, 0), "...but not a sentence that matches the claim much less well");
	jv_free(v);
}

/* Evidence is local: the words of a claim found scattered over a long page do not support it. */
static void evidence_window(void)
{
	static const char *const page[] = {
		"The festival takes place in Edinburgh every August. Tickets go on sale in spring. "
		"The box office is on the Royal Mile. Volunteers help at every venue. "
		"Food stalls open at noon. The main stage hosts music. Most shows last an hour. "
		"The closing concert features a large orchestra.",
		NULL,
	};
	jv v = verify((const char *const[]){ "The festival takes place in Edinburgh every August.",
	                                     "The orchestra on the main stage sells food at noon in August.",
	                                     NULL }, page, 0.6);
	ok(verdict_of(v, 0), "words of one sentence: supported");
	ok(!verdict_of(v, 1), "the same share of words spread over the page: not (%s)", reason_of(v, 1));
	jv_free(v);
}

static void refusals(void)
{
	is_claims(NULL, "I don't know.", 0, "", "I don't know -> []");
	is_claims(NULL, "I don\xE2\x80\x99t know the answer to that.", 0, "", "typographic apostrophe");
	is_claims(NULL, "I cannot answer this question based on the provided context.", 0, "",
	          "I cannot answer -> []");
	is_claims(NULL, "The context does not mention when Einstein was born.", 0, "",
	          "the context does not mention -> []");
	is_claims(NULL, "The provided text doesn't specify his birthplace.", 0, "",
	          "the text doesn't specify -> []");
	is_claims(NULL, "我不知道。", 0, "", "我不知道 -> []");
	is_claims(NULL, "根据提供的信息无法回答这个问题。", 0, "", "根据提供的信息无法 -> []");
	is_claims(NULL, "Hello! Thank you. What do you mean?", 0, "", "greetings and questions -> []");
	is_claims(NULL, "", 0, "", "empty text -> []");
	{
		jv c = rag_offline_claims("q", NULL, 0);
		is_int(jv_array_length(c), 0, "NULL text -> []");
	}
	is_claims(NULL, "Sure! Paris is the capital of France. I hope this helps!", 0,
	          "Paris is the capital of France.", "fillers around a claim are dropped");
	is_claims(NULL, "Yes, the tower is 330 metres tall.", 0, "The tower is 330 metres tall.",
	          "a leading interjection is dropped");
	is_claims(NULL, "Sure, based on the context, the answer is 42.", 0, "The answer is 42.",
	          "framing phrases are dropped");
	is_claims(NULL, "根据上下文，长城位于中国北方。此外，它很长。", 0,
	          "长城位于中国北方。 | 长城很长。", "zh: 根据上下文 and 此外 are dropped");
	is_claims(NULL, "I'm not sure, but Paris might be the capital.", 0,
	          "Paris might be the capital.", "a claim after a hedge survives");
	is_claims(NULL, "The project has an aim. The contexts don\xE2\x80\x99t mention it.", 0,
	          "The project has an aim.", "refusal phrases match whole words only");
	is_claims(NULL, "The package does not include batteries.", 0,
	          "The package does not include batteries.", "a negative claim is not a refusal");

	/* phrasings that were missed, in forms of our own */
	is_claims(NULL, "There is no clear information on whether the museum charges for entry.", 0, "",
	          "there is no clear information on whether -> []");
	is_claims(NULL, "The opening date is not explicitly stated.", 0, "", "is not explicitly stated -> []");
	is_claims(NULL, "It is not explicitly stated who designed the bridge.", 0, "",
	          "it is not explicitly stated -> []");
	is_claims(NULL, "There is no direct answer to this question in the passages.", 0, "",
	          "there is no direct answer -> []");
	is_claims(NULL, "The architect's name is not explicitly mentioned in the context.", 0, "",
	          "is not explicitly mentioned in the context -> []");
	is_claims(NULL, "The documents do not directly address the refund policy.", 0, "",
	          "a hedging adverb between the source and its verb");
	is_claims(NULL, "The provided text gives no details about the second floor.", 0, "",
	          "gives no details");
	is_claims(NULL, "Honestly, I have no idea.", 0, "", "a phrase from share/refusals.txt alone (one list)");
	is_claims(NULL, "文中没有明确说明退货运费由谁承担。", 0, "", "zh: 文中没有明确说明 -> []");
	is_claims(NULL, "上下文未提及具体的开放时间。", 0, "", "zh: 上下文未提及 -> []");
	is_claims(NULL, "资料里没有给出具体数字。", 0, "", "zh: a source and 没有给出");
	is_claims(NULL, "提供的信息中并未说明会员价格。", 0, "", "zh: 提供的信息 ... 并未说明");
	is_claims(NULL, "抱歉，我无法从上下文中找到答案。", 0, "", "zh: an apology and 我无法");
	is_claims(NULL, "The report is not clear about costs. The bridge opened in 1932.", 0,
	          "The report is not clear about costs. | The bridge opened in 1932.",
	          "no source word: a sentence about a report is a claim");
	is_claims(NULL, "该产品无法从中国出口。", 0, "该产品无法从中国出口。",
	          "zh: 无法从 alone is no refusal (cannot be exported from China)");
	is_claims(NULL, "The context does not explicitly mention the year, but the bridge opened in May.", 0,
	          "The bridge opened in May.", "the claim after ', but' outlives the refusal before it");
}

/* share/refusals.txt is the one list: rag-revq reads it, the splitter has it compiled in. Every
 * phrase of the file, alone as a sentence or inside one, gives no claim. */
static void refusal_list(void)
{
	char err[256];
	jv list = rag_revq_refusals_load(RAG_TEST_TOP "/share/refusals.txt", err, sizeof err);
	int i, n = jv_is_valid(list) ? jv_array_length(jv_copy(list)) : 0, missed = 0;

	ok(n > 50, "share/refusals.txt loads (%d phrases)", n);
	for (i = 0; i < n; i++) {
		jv p = jv_array_get(jv_copy(list), i);
		char *t = rag_xasprintf("Well, %s the answer here.", jv_string_value(p));
		jv c = rag_offline_claims(NULL, t, 0);
		if (jv_array_length(c) != 0) {
			if (!missed++)
				printf("# a claim from \"%s\"\n", t);
		}
		free(t);
		jv_free(p);
	}
	is_int(missed, 0, "every phrase of share/refusals.txt makes its sentence no claim");
	jv_free(list);
}

static void splitting(void)
{
	is_claims("What is the pH of the sample?", "The pH is 3.5 in the sample. It is acidic.", 0,
	          "The pH is 3.5 in the sample. | The pH of the sample is acidic.",
	          "no split at a decimal point; It resolved from the question");
	is_claims(NULL, "Dr. Smith moved to the U.S. in 1990, e.g. to Boston. J. K. Rowling wrote books.",
	          0, "Dr. Smith moved to the U.S. in 1990, e.g. to Boston. | J. K. Rowling wrote books.",
	          "abbreviations and initials do not end sentences");
	is_claims(NULL, "The U.S. Army was founded in 1775. The Navy followed.", 0,
	          "The U.S. Army was founded in 1775. | The Navy followed.",
	          "a dotted abbreviation before a sentence start ends the sentence");
	is_claims(NULL, "It cost approx. 5 dollars in Jan. 1990 at St. Mary's.", 0,
	          "It cost approx. 5 dollars in Jan. 1990 at St. Mary's.",
	          "approx. Jan. St. do not end sentences");
	is_claims(NULL, "1. Paris is big.\n2. Rome is old.\n- Oslo is cold", 0,
	          "Paris is big. | Rome is old. | Oslo is cold", "list markers are dropped, lines split");
	is_claims(NULL, "Paris is the capital of France; it has many museums.", 0,
	          "Paris is the capital of France. | Paris has many museums.",
	          "; splits, the pronoun takes the previous subject");
	is_claims(NULL, "Paris is large; yes.", 0, "Paris is large; yes.",
	          "a piece too short to be a claim stays joined");
	is_claims(NULL, "Einstein developed relativity, and he won the Nobel Prize in 1921.", 0,
	          "Einstein developed relativity. | Einstein won the Nobel Prize in 1921.",
	          "', and he' splits");
	is_claims(NULL, "Einstein studied physics, mathematics and philosophy.", 0,
	          "Einstein studied physics, mathematics and philosophy.",
	          "a list is not a coordinated clause");
	is_claims(NULL, "Einstein was born in Ulm in 1879.", 0,
	          "Einstein was born in Ulm. | Einstein was born in 1879.", "place and year split");
	is_claims(NULL, "The A   team\twon\n\nThe B team lost", 0, "The A team won | The B team lost",
	          "whitespace collapses; blank lines are no claims");
	is_claims(NULL, "Paris is big. Paris is big.", 0, "Paris is big.", "duplicates are dropped");

	/* a clause that adds a fact of its own is a claim of its own */
	is_claims(NULL, "Marie Curie moved to Paris in 1891, where she studied physics.", 0,
	          "Marie Curie moved to Paris in 1891. | Where she studied physics.",
	          "a non-restrictive relative clause, kept as written");
	is_claims(NULL, "The team won the final, beating Spain 2-1 in extra time.", 0,
	          "The team won the final. | Beating Spain 2-1 in extra time.", "a participle phrase");
	is_claims(NULL, "The museum shows modern art, including paintings, drawings and prints.", 0,
	          "The museum shows modern art. | Including paintings, drawings and prints.",
	          "a phrase after ', including'");
	is_claims(NULL, "Anna Maria Lind, who won twice, is the coach.", 0, "Anna Maria Lind, who won twice, is the coach.",
	          "a relative clause after the subject alone does not cut it from its verb");
	is_claims(NULL, "He enjoyed cooking, baking and gardening.", 0, "He enjoyed cooking, baking and gardening.",
	          "a list of -ing words is no participle phrase");
	is_claims(NULL, "Shapovalov won his first match, but lost in the next round.", 0,
	          "Shapovalov won his first match. | Lost in the next round.", "', but' with no subject after it");
	is_claims(NULL, "The album came out on 2 November 2004 – the day of the election.", 0,
	          "The album came out on 2 November 2004. | The day of the election.", "a dash");
	is_claims(NULL, "Chen was born in Ohio and is of Chinese descent.", 0,
	          "Chen was born in Ohio. | Chen is of Chinese descent.", "'and' + auxiliary: the subject is shared");
	is_claims(NULL, "The bridge opened in 1932 and has six lanes.", 0,
	          "The bridge opened in 1932. | The bridge has six lanes.", "... before an -ed verb");
	is_claims(NULL, "The company makes cars and is based in Ohio.", 0,
	          "The company makes cars. | Is based in Ohio.", "no plain subject found: nothing borrowed");
	is_claims(NULL, "In 2018 she was named in the squad for the 2018 World Cup in the West Indies.", 0,
	          "In 2018 she was named in the squad for the 2018 World Cup in the West Indies.",
	          "a long phrase is no place or date to split off");
}

static void pronouns(void)
{
	is_claims("Who was Marie Curie?", "She was a physicist. She won two Nobel Prizes.", 0,
	          "Marie Curie was a physicist. | Marie Curie won two Nobel Prizes.",
	          "She -> the subject after 'Who was'");
	is_claims("When was the first Super Bowl held?", "It took place in 1967 in Los Angeles.", 0,
	          "The first Super Bowl took place in 1967 in Los Angeles.",
	          "the trailing verb of the question is not part of the subject");
	is_claims("Where did Albert Einstein work?", "He worked in Bern.", 0,
	          "Albert Einstein worked in Bern.", "no 'what is' form: the capitalised phrase");
	is_claims(NULL, "Marie Curie was born in Warsaw. She was a physicist.", 0,
	          "Marie Curie was born in Warsaw. | Marie Curie was a physicist.",
	          "no question: the previous claim's subject");
	is_claims("What is water?", "It is important to note that water boils at 100 degrees.", 0,
	          "It is important to note that water boils at 100 degrees.",
	          "an expletive it is kept");
	is_claims("What is the capital of France?", "This theory is old.", 0, "This theory is old.",
	          "this + noun is a determiner, not a pronoun");
	is_claims("What is the capital of France?", "He was a king.", 0, "He was a king.",
	          "he is not replaced by a non-name subject");
	is_claims(NULL, "They are fast.", 0, "They are fast.", "nothing to resolve with");
	is_claims("Who wrote Hamlet?",
	          "Shakespeare wrote Hamlet around 1600. He also wrote Macbeth; it was first performed in 1606.",
	          0, "Shakespeare wrote Hamlet around 1600. | Shakespeare also wrote Macbeth. | "
	          "It was first performed in 1606.",
	          "'Who wrote X': X is not the subject; once He is Shakespeare, it is not");
	is_claims(NULL, "The Eiffel Tower is in Paris. It was built in 1889.", 0,
	          "The Eiffel Tower is in Paris. | The Eiffel Tower was built in 1889.",
	          "It takes the previous subject");
	is_claims(NULL, "The old ferry sailed in 1932. It carried six cars.", 0,
	          "The old ferry sailed in 1932. | The old ferry carried six cars.",
	          "the previous subject ends before a past verb too");
	is_claims(NULL, "The painted ferry sailed in 1932. It carried six cars.", 0,
	          "The painted ferry sailed in 1932. | The painted ferry carried six cars.",
	          "... not at an -ed adjective after the determiner");
	is_claims("长城在哪里？", "它位于中国北方。它们很长。", 0, "长城位于中国北方。 | 长城很长。",
	          "zh: 它 and 它们");
	is_claims("年度会员有什么优惠？", "年度会员可享受九折优惠，并且可以免费退换货。", 0,
	          "年度会员可享受九折优惠。 | 年度会员可以免费退换货。",
	          "zh: the piece after 并且 borrows the subject");
	is_claims(NULL, "长城位于中国北方，而且是世界文化遗产。", 0,
	          "长城位于中国北方。 | 长城是世界文化遗产。", "zh: the subject before 位于");
}

/* The question's subject stands in for a pronoun, and must never carry the question's verb in
 * with it: "When did it open?" once turned "It opened on..." into "It open opened on...". */
static void question_subjects(void)
{
	is_claims("When did it open?", "It opened on 31 March 1889.", 0, "It opened on 31 March 1889.",
	          "a pronoun subject is no subject: the claim is kept as written");
	is_claims("When will it close?", "It will close at 6 pm.", 0, "It will close at 6 pm.",
	          "modal + pronoun: kept as written");
	is_claims("Where was it found?", "It was found in a cave near Lyon.", 0,
	          "It was found in a cave near Lyon.", "be + pronoun + participle: kept as written");
	is_claims("When did the Eiffel Tower open?", "It opened to the public in 1889.", 0,
	          "The Eiffel Tower opened to the public in 1889.", "did + name + verb: the name alone");
	is_claims("When does the library close?", "It closes at 8 pm on weekdays.", 0,
	          "The library closes at 8 pm on weekdays.", "does + the + noun: the verb stays out");
	is_claims("How did the company grow?", "It grew by buying its rivals.", 0,
	          "The company grew by buying its rivals.", "did + the + noun + verb");
	is_claims("How did the company grow so fast?", "It grew by buying its rivals.", 0,
	          "It grew by buying its rivals.", "words after a lowercase verb: no subject, no guess");
	is_claims("When will the new bridge reopen?", "It will reopen in 2027.", 0,
	          "The new bridge will reopen in 2027.", "will + the + modifier + noun");
	is_claims("Why did the Roman Empire fall?", "It fell because of many causes.", 0,
	          "It fell because of many causes.", "why-questions give no subject");
	is_claims("When did Marie Curie win her second Nobel Prize?", "She won it in 1911.", 0,
	          "Marie Curie won it in 1911.", "the object after the verb stays out");
	is_claims("When did Einstein's son emigrate?", "He emigrated in 1938.", 0,
	          "Einstein's son emigrated in 1938.", "a possessive name takes its noun");
	is_claims("When is the museum open?", "It is open every day except Monday.", 0,
	          "The museum is open every day except Monday.", "be + noun + predicative adjective");
	is_claims("When did it rain?", "It rained on Tuesday.", 0, "It rained on Tuesday.",
	          "past tense of a regular verb: kept");
	is_claims("When did they leave?", "They left in May.", 0, "They left in May.",
	          "an irregular verb after a pronoun: kept");
}

static void cap(void)
{
	const char *t = "Paris is in France. Rome is in Italy. Oslo is in Norway.";
	is_claims(NULL, t, 2, "Paris is in France. | Rome is in Italy.", "max_claims 2");
	is_claims(NULL, t, 0, "Paris is in France. | Rome is in Italy. | Oslo is in Norway.",
	          "max_claims 0 means no cap");
	is_claims(NULL, t, -1, "Paris is in France. | Rome is in Italy. | Oslo is in Norway.",
	          "negative max_claims means no cap");
}

static void verification(void)
{
	jv v;

	v = verify((const char *const[]){ "Paris is in France.", NULL }, NULL, 0.6);
	is_int(jv_array_length(jv_copy(v)), 1, "empty contexts: one verdict");
	ok(!verdict_of(v, 0), "empty contexts: unsupported");
	is_str(reason_of(v, 0), "no contexts", "empty contexts: reason");
	is_int(context_of(v, 0), -1, "empty contexts: context is null");
	jv_free(v);

	v = verify(NULL, einstein, 0.6);
	is_int(jv_array_length(v), 0, "no claims -> []");

	v = verify((const char *const[]){ "Einstein was not born in Germany.", NULL }, einstein, 0.6);
	ok(!verdict_of(v, 0), "en: negated claim against a positive context");
	is_str(reason_of(v, 0), "negation differs from context 1", "en: negation reason");
	jv_free(v);

	{
		static const char *const ctx[] = { "Einstein was born in Ulm. He did not like school.", NULL };
		v = verify((const char *const[]){ "Einstein was born in Ulm.", "Einstein did not like school.",
		                                  "Einstein liked school.", NULL },
		           ctx, 0.6);
		ok(verdict_of(v, 0), "negation elsewhere in the context does not matter");
		ok(verdict_of(v, 1), "a negated claim matches the negated sentence");
		ok(!verdict_of(v, 2), "a positive claim against the negated sentence fails");
		is_str(reason_of(v, 2), "negation differs from context 1", "negation reason");
		jv_free(v);
	}
	{
		static const char *const ctx[] = { "Marie Curie studied physics in Paris.",
		                                   "Marie Curie discovered polonium and radium.", NULL };
		v = verify((const char *const[]){ "Marie Curie studied physics and discovered radium.",
		                                  "Marie Curie studied chemistry in Warsaw.", NULL },
		           ctx, 0.8);
		ok(verdict_of(v, 0), "supported by the contexts together");
		is_str(reason_of(v, 0), "supported by the contexts together (100% of content words)",
		       "joined reason");
		is_int(context_of(v, 0), 0, "joined: the context with the most words");
		ok(!verdict_of(v, 1), "threshold 0.8: 3 of 5 words is not enough");
		is_str(reason_of(v, 1), "60% of content words found in context 1 (below 80%); name Warsaw not in it",
		       "the reason gives share and threshold, and the name not found");
		jv_free(v);
	}
	{
		static const char *const ctx[] = { "Cats sleep a lot.", "Dogs bark at night.", NULL };
		v = verify((const char *const[]){ "Dogs bark loudly at night.", "Fish swim.", NULL }, ctx, 0.6);
		ok(verdict_of(v, 0), "the second context supports");
		is_str(reason_of(v, 0), "supported by context 2 (75% of content words)", "1-based index");
		is_int(context_of(v, 0), 1, "0-based context field");
		is_str(reason_of(v, 1), "no content words found in any context", "nothing matches");
		is_int(context_of(v, 1), -1, "nothing matches: context null");
		jv_free(v);
	}
	{
		static const char *const ctx[] = { "Einstein was born on 1879-03-14.", NULL };
		v = verify((const char *const[]){ "Einstein was born on 14 March 1879.",
		                                  "Einstein was born on March 20, 1879.", NULL }, ctx, 0.6);
		ok(verdict_of(v, 0), "14 March 1879 agrees with 1879-03-14");
		is_str(reason_of(v, 1), "number 20 not in context 1", "March 20 does not");
		jv_free(v);
	}
	{
		static const char *const ctx[] = { "人口为１２３４人。", "Paris \xFF is the capital of France.", NULL };
		v = verify((const char *const[]){ "人口为1234人", "Paris is the capital of France.", NULL },
		           ctx, 0.6);
		ok(verdict_of(v, 0), "full-width digits match ascii digits");
		ok(verdict_of(v, 1), "invalid UTF-8 in a context is repaired");
		jv_free(v);
	}
	{
		jv cl = jv_array_append(jv_array_append(jv_array(), jv_number(3)), jv_string("is the"));
		v = rag_offline_verify(cl, strings(einstein), 0.6);
		is_str(reason_of(v, 0), "claim is not a string", "a non-string claim");
		is_str(reason_of(v, 1), "claim has no content words", "a claim of stop words");
		ok(!verdict_of(v, 0) && !verdict_of(v, 1), "both unsupported");
		jv_free(v);
	}
	{
		jv cl = strings((const char *const[]){ "Einstein was a physicist.", NULL });
		v = rag_offline_verify(cl, strings(einstein), 7.0);
		ok(verdict_of(v, 0), "an out-of-range threshold falls back to 0.6");
		jv_free(v);
	}
	{
		jv o = jv_array_get(verify((const char *const[]){ "Einstein was a physicist.", NULL },
		                           einstein, 0.6), 0);
		jv k = jv_keys(o);
		jv d = jv_dump_string(k, 0);
		is_str(jv_string_value(d), "[\"claim\",\"context\",\"reason\",\"score\",\"verdict\"]",
		       "verdict objects have claim, verdict, reason, context, score");
		jv_free(d);
	}
}

/* The graded score beside the yes or no: names and numbers weigh most, light words not at all. */
static void graded_scores(void)
{
	static const char *const festival[] = {
		"The lantern festival is celebrated in Thailand and Laos every November, when rivers fill "
		"with floating candles.", NULL };
	static const char *const physicist[] = {
		"Lise Meitner was an Austrian-born physicist who worked in Berlin for thirty years.", NULL };
	static const char *const museum[] = {
		"After the flood the museum was rebuilt in brick and reopened in 1952.", NULL };
	static const char *const ferry[] = { "The ferry leaves at dawn.", "Calais harbour takes trucks.", NULL };
	jv v;

	v = verify((const char *const[]){ "The lantern festival is celebrated in Thailand and Laos.",
	                                  "The lantern festival is celebrated in Thailand, Laos and Cambodia.",
	                                  NULL }, festival, 0.6);
	ok(verdict_of(v, 0) && verdict_of(v, 1), "graded: both festival claims pass the word threshold");
	is_num(graded(v, 0), 1.0, 1e-9, "graded: every word and name found scores 1");
	is_num(graded(v, 1), 5.0 / 6.0 * 0.8, 1e-4, "graded: 5 of 6 words found, times 0.8 for the name missing");
	is_str(reason_of(v, 1), "supported by context 1 (83% of content words; name Cambodia not in it)",
	       "graded: the reason names the name, as the claim writes it");
	jv_free(v);

	v = verify((const char *const[]){ "Meitner was born in Austria and worked in Berlin.",
	                                  "Meitner worked in Vienna in November.", NULL }, physicist, 0.5);
	is_num(graded(v, 0), 1.0, 1e-9, "graded: Austria is found as its kin Austrian, a word found like any other");
	is_str(reason_of(v, 1), "supported by context 1 (50% of content words; name Vienna not in it)",
	       "graded: a month is a date, not a name: Vienna is the one name missing");
	jv_free(v);

	v = verify((const char *const[]){ "After the flood the museum was once again rebuilt in brick.",
	                                  "The museum reopened in 1953.",
	                                  "The museum was not rebuilt after the flood.",
	                                  "The museum was rebuilt in stone by volunteers.",
	                                  "The museum in the passage was rebuilt in brick.", NULL }, museum, 0.6);
	is_str(reason_of(v, 0), "supported by context 1 (100% of content words)",
	       "graded: light words (once, again) are not content words");
	is_str(reason_of(v, 4), "supported by context 1 (100% of content words)",
	       "graded: nor is the passage an answer names as its source");
	ok(!verdict_of(v, 1), "graded: a wrong year is unsupported");
	is_num(graded(v, 1), 1.0 / 3.0, 1e-4, "graded: 2 of its 3 words found, halved for the number missing");
	ok(!verdict_of(v, 2), "graded: a flipped negation is unsupported");
	is_num(graded(v, 2), 0.25, 1e-9, "graded: all its words found, a quarter left for the contradiction");
	ok(!verdict_of(v, 3), "graded: 2 of 4 words is below the threshold");
	is_num(graded(v, 3), 0.5, 1e-9, "graded: an unsupported claim scores the share of words found");
	jv_free(v);

	v = verify((const char *const[]){ "The night ferry leaves Dover and reaches Calais, carrying cars and trucks.",
	                                  NULL }, ferry, 0.6);
	is_str(reason_of(v, 0), "44% of content words found in the contexts together (below 60%); "
	       "name Dover not in any context",
	       "graded: below the threshold everywhere, the contexts together hold the most words");
	is_num(graded(v, 0), 4.0 / 9.0 * 0.8, 1e-4, "graded: 4 of 9 words, one name missing");
	jv_free(v);

	v = verify((const char *const[]){ "Einstein was a physicist.", NULL }, NULL, 0.6);
	is_num(graded(v, 0), 0.0, 1e-9, "graded: no contexts scores 0");
	jv_free(v);
}

/* "A, not B": the statement checked, the denial held against what the contexts say of B. */
static void contrasts(void)
{
	static const char *const router[] = {
		"The R7 router supports Wi-Fi 6 on the 2.4 GHz and 5 GHz bands. It does not support Wi-Fi 7.",
		NULL };
	static const char *const warranty[] = { "本产品保修期为两年。", NULL };
	jv v;

	v = verify((const char *const[]){ "The R7 supports Wi-Fi 6, not Wi-Fi 7.",
	                                  "The R7 works on 5 GHz, not 2.4 GHz.",
	                                  "The R7 supports Wi-Fi 6, but not Bluetooth.",
	                                  "The R7 supports Wi-Fi 6, not only on 2.4 GHz.", NULL }, router, 0.6);
	ok(verdict_of(v, 0), "contrast: a statement and a denial the context shares are supported");
	is_num(graded(v, 0), 1.0, 1e-9, "contrast: ... and score 1");
	ok(!verdict_of(v, 1), "contrast: a denial of what the context states is unsupported");
	is_str(reason_of(v, 1), "\"not 2.4 GHz\" is contradicted by context 1", "contrast: the reason quotes the denial");
	is_num(graded(v, 1), 0.8 * 0.25, 1e-9, "contrast: scored as a negation that differs (4 of 5 words, times 0.25)");
	ok(verdict_of(v, 2), "contrast: a denial of what no context names leaves the statement to decide");
	ok(verdict_of(v, 3) && reason_of(v, 3)[0] != '"', "contrast: \", not only\" is none (got %s)", reason_of(v, 3));
	jv_free(v);

	v = verify((const char *const[]){ "保修期为两年，而不是三年。", "保修期为三年，而不是两年。", NULL },
	           warranty, 0.6);
	ok(verdict_of(v, 0), "contrast zh: 两年，而不是三年 against 两年");
	ok(!verdict_of(v, 1), "contrast zh: 三年，而不是两年 against 两年");
	jv_free(v);
}

/* Framing: the sentences and leads with which a model introduces what it says. */
static void framing(void)
{
	is_claims(NULL, "Here's a brief overview of the document, covering the key details:\n\n"
	          "The museum opened in 1952 and has 40 rooms.", 0,
	          "The museum opened in 1952. | The museum has 40 rooms.",
	          "framing: a lead sentence of framing words only is no claim");
	is_claims(NULL, "Main points include: The ferry leaves at six. As mentioned in the context, "
	          "tickets cost 5 euros.", 0,
	          "The ferry leaves at six. | Tickets cost 5 euros.",
	          "framing: a framing lead before a colon, and as mentioned in the context, go");
	is_claims(NULL, "Opening hours: the museum opens at 9.", 0,
	          "Opening hours: the museum opens at 9.", "framing: a lead with content words stays");
	is_claims(NULL, "This summary covers the museum's history.", 0,
	          "This summary covers the museum's history.", "framing: a sentence with content words stays");
	is_claims(NULL, "以下是要点：博物馆于1952年开放。", 0, "博物馆于1952年开放。",
	          "framing zh: 以下是要点： goes, the statement after it stays");
	is_claims(NULL, "开放时间如下：每天九点开门。", 0, "每天九点开门。", "framing zh: a lead ending 如下");
	is_claims(NULL, "以下三种商品不支持退货。", 0, "以下三种商品不支持退货。",
	          "framing zh: 以下 without a colon is a statement");
}

/* Supported claims of API documentation that were rejected as "negation differs": identifiers
 * and values hold no negation, a negator denies only in its own clause, and "A rather than B"
 * says what "A, not B" says. */
static void false_negations(void)
{
	static const char *const ctx_parse[] = { "A request the server fails to parse gets the error code CANNOT_PARSE_JSON.", NULL };
	static const char *const ctx_empty[] = { "An empty data set makes the service return the error code NO_DATA_FOUND.", NULL };
	static const char *const ctx_default[] = { "timeout (float, default None): seconds to wait for the server.", NULL };
	static const char *const ctx_optional[] = { "timeout (float or None, optional): seconds to wait for the server.", NULL };
	static const char *const ctx_csv[] = { "The export is written as CSV, not Excel.", NULL };
	jv v;

	v = verify((const char *const[]){ "A request the server fails to parse gets an error code.", NULL }, ctx_parse, 0.6);
	ok(verdict_of(v, 0), "CANNOT_PARSE_JSON is no negation (%s)", reason_of(v, 0));
	jv_free(v);
	v = verify((const char *const[]){ "The service signals an empty data set with an error code.", NULL }, ctx_empty, 0.6);
	ok(verdict_of(v, 0), "NO_DATA_FOUND is no negation (%s)", reason_of(v, 0));
	jv_free(v);
	v = verify((const char *const[]){ "The timeout defaults to None.", NULL }, ctx_default, 0.6);
	ok(verdict_of(v, 0), "default None is a value (%s)", reason_of(v, 0));
	jv_free(v);
	v = verify((const char *const[]){ "The timeout is optional.", NULL }, ctx_optional, 0.6);
	ok(verdict_of(v, 0), "optional after None, is not denied (%s)", reason_of(v, 0));
	jv_free(v);
	v = verify((const char *const[]){ "The export is written as CSV rather than Excel.",
	                                  "The export is written as Excel.", NULL }, ctx_csv, 0.6);
	ok(verdict_of(v, 0), "A rather than B against A, not B (%s)", reason_of(v, 0));
	ok(!verdict_of(v, 1), "B against A, not B is still unsupported");
	is_str(reason_of(v, 1), "negation differs from context 1", "...as a negation that differs");
	jv_free(v);
}

/* An answer that claims nothing checkable has no faithfulness: not applicable, never a free 1. */
static void no_claims(void)
{
	static const char *const ctx[] = { "The X200 is a laptop with two USB-C ports.", NULL };
	double sc = -1;
	jv c = rag_offline_claims("Does the X200 work with the Y10 dock?",
	                          "Based on the context, there is no clear information on whether the X200 "
	                          "works with the Y10 dock.", 0);
	jv v;

	is_int(jv_array_length(jv_copy(c)), 0, "no claim in \"there is no clear information on whether\"");
	v = rag_offline_verify(c, strings(ctx), 0.6);
	is_int(rag_verify_score(v, &sc), -1, "no verdicts: no score (not applicable)");
	jv_free(v);
	v = verify((const char *const[]){ "The X200 is a laptop.", "The X200 has four USB-C ports.", NULL }, ctx, 0.6);
	ok(rag_verify_score(v, &sc) == 0 && sc > 0.5 && sc < 1, "verdicts: the mean of their scores (%g)", sc);
	jv_free(v);
	v = jv_parse("[{\"verdict\": true}, {\"verdict\": false}, {\"verdict\": true}]");
	ok(rag_verify_score(v, &sc) == 0 && sc > 0.66 && sc < 0.67, "an LLM's verdicts: the share of yes (%g)", sc);
	jv_free(v);
}

int main(void)
{
	ragas_einstein();
	superbowl();
	chinese();
	zh_clauses();
	quantities();
	swapped_numbers();
	markup();
	evidence_window();
	refusals();
	refusal_list();
	splitting();
	pronouns();
	question_subjects();
	cap();
	verification();
	graded_scores();
	contrasts();
	framing();
	false_negations();
	no_claims();
	return done_testing();
}
