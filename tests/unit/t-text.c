/* t-text.c - utf8.c and text.c: strict UTF-8, language guess, normalisation, tokens, negation. */
#include "base.h"
#include "tap.h"

#include <stdlib.h>

/* The tokens of s joined with spaces, for one-line comparisons. */
static char *toks(const char *s)
{
	jv t = rag_text_tokens(s);
	rag_buf b = { 0 };
	int i, n = jv_array_length(jv_copy(t));

	for (i = 0; i < n; i++) {
		jv x = jv_array_get(jv_copy(t), i);
		if (i)
			rag_buf_adds(&b, " ");
		rag_buf_adds(&b, jv_string_value(x));
		jv_free(x);
	}
	jv_free(t);
	return b.p ? b.p : rag_xstrdup("");
}

#define is_toks(s, want, ...) do { char *g = toks(s); is_str(g, want, __VA_ARGS__); free(g); } while (0)
#define is_sanitized(in, n, want, ...) do { char *g = rag_utf8_sanitize(in, n); \
	is_str(g, want, __VA_ARGS__); free(g); } while (0)
#define is_norm(in, want, ...) do { char *g = rag_text_normalize(in); \
	is_str(g, want, __VA_ARGS__); free(g); } while (0)

static void utf8(void)
{
	ok(rag_utf8_valid("hello", 5), "ascii is valid");
	ok(rag_utf8_valid("", 0), "empty is valid");
	ok(rag_utf8_valid("caf\xC3\xA9 \xE4\xB8\xAD", 9), "2- and 3-byte sequences are valid");
	ok(rag_utf8_valid("\xF0\x9F\x98\x80", 4), "a 4-byte emoji is valid");
	ok(rag_utf8_valid("\xF4\x8F\xBF\xBF", 4), "U+10FFFF is valid");
	ok(rag_utf8_valid("a\0b", 3), "an embedded NUL is valid UTF-8");
	ok(!rag_utf8_valid("\xC0\x80", 2), "overlong C0 80 is rejected");
	ok(!rag_utf8_valid("\xC1\xBF", 2), "overlong C1 BF is rejected");
	ok(!rag_utf8_valid("\xE0\x80\x80", 3), "overlong 3-byte NUL is rejected");
	ok(!rag_utf8_valid("\xF0\x80\x80\x80", 4), "overlong 4-byte NUL is rejected");
	ok(!rag_utf8_valid("\xED\xA0\x80", 3), "surrogate ED A0 80 is rejected");
	ok(!rag_utf8_valid("\xED\xBF\xBF", 3), "surrogate ED BF BF is rejected");
	ok(!rag_utf8_valid("\xF4\x90\x80\x80", 4), "above U+10FFFF is rejected");
	ok(!rag_utf8_valid("\xF5\x80\x80\x80", 4), "lead byte F5 is rejected");
	ok(!rag_utf8_valid("\xE4\xB8", 2), "a truncated 3-byte sequence is rejected");
	ok(!rag_utf8_valid("\xF0\x9F\x98", 3), "a truncated emoji is rejected");
	ok(!rag_utf8_valid("\x80", 1), "a lone continuation byte is rejected");
	ok(rag_utf8_valid("\xE4\xB8\xAD\xE4\xB8", 3), "only the first n bytes are checked");

	is_sanitized("plain", 5, "plain", "sanitize keeps valid text");
	is_sanitized("\xF0\x9F\x98\x80!", 5, "\xF0\x9F\x98\x80!", "sanitize keeps a valid emoji");
	is_sanitized("a\xC0\x80z", 4, "a\xEF\xBF\xBD\xEF\xBF\xBDz",
	             "overlong C0 80: two replacement characters (C0 never starts a sequence)");
	is_sanitized("\xED\xA0\x80", 3, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD",
	             "surrogate: each byte replaced (ED A0 is not a valid prefix)");
	is_sanitized("x\xE4\xB8y", 4, "x\xEF\xBF\xBDy",
	             "a truncated sequence is one replacement character (maximal subpart)");
	is_sanitized("\xF0\x9F\x98", 3, "\xEF\xBF\xBD", "a truncated emoji at the end is one U+FFFD");
	{
		long cp = 0;
		is_int(rag_utf8_decode("\xE4\xB8\xAD", 3, &cp), 3, "decode: a 3-byte sequence");
		is_int(cp, 0x4E2D, "decode: U+4E2D");
		is_int(rag_utf8_decode("\xF0\x9F\x98\x80", 4, &cp), 4, "decode: a 4-byte sequence");
		is_int(cp, 0x1F600, "decode: U+1F600");
		is_int(rag_utf8_decode("\xED\xA0\x80", 3, &cp), 1, "decode: a surrogate moves one byte");
		is_int(cp, 0xFFFD, "decode: ... as U+FFFD");
		is_int(rag_utf8_decode("\xE4\xB8\xAD", 2, &cp), 1, "decode: respects n");
		is_int(rag_utf8_decode("", 0, &cp), 0, "decode: nothing to decode");
	}
	{
		char *g = rag_utf8_sanitize("\xFF\xC3\x28\xE2\x82", 5);
		ok(rag_utf8_valid(g, strlen(g)), "sanitize output is valid UTF-8");
		free(g);
	}
}

static void lang_and_normalize(void)
{
	is_str(rag_text_lang("Hello world"), "en", "english text is en");
	is_str(rag_text_lang("长城位于中国北方。"), "zh", "chinese text is zh");
	is_str(rag_text_lang("GPT-4模型由OpenAI开发"), "zh",
	       "chinese with latin names is zh (a word counts once)");
	is_str(rag_text_lang("The Great Wall (长城) is very long"), "en",
	       "english with a chinese name is en");
	is_str(rag_text_lang(""), "en", "empty text is en");
	is_str(rag_text_lang("1234 !!"), "en", "no letters is en");
	ok(rag_text_is_cjk(0x4E2D) && rag_text_is_cjk(0x3042) && rag_text_is_cjk(0x30AB),
	   "Han and kana are CJK");
	ok(!rag_text_is_cjk('a') && !rag_text_is_cjk(0x3002) && !rag_text_is_cjk(0xAC00),
	   "latin, CJK punctuation and hangul are not");

	is_norm("ＡＢＣ１２３", "abc123", "full-width letters and digits fold to ascii");
	is_norm("Straße", "strasse", "case folding expands sharp s");
	is_norm("\xEF\xAC\x81nd", "find", "the fi ligature decomposes");
	is_norm("E\xCC\x81" "clair", "\xC3\xA9" "clair", "accents are kept, composed");
	is_norm("长城，北方", "长城,北方", "the full-width comma becomes ascii");
	ok(rag_text_normalize("bad \xC0\x80") == NULL, "invalid UTF-8 does not normalise");
	ok(rag_text_normalize(NULL) == NULL, "NULL does not normalise");
}

static void tokens(void)
{
	is_toks("Einstein was born in Germany on 20th March 1879.",
	        "einstein born germani 20 march 1879", "stop words dropped, stems, ordinal folded");
	is_toks("Albert Einstein (born 14 March 1879) was a German-born physicist",
	        "albert einstein born 14 march 1879 german born physicist", "hyphens split words");
	is_toks("1,967 and 1967", "1967 1967", "thousands separators are dropped");
	is_toks("15.5 2.50 3.0 03 007", "15.5 2.5 3 3 7", "numbers are canonical");
	is_toks("version 1.2.3", "version 1.2.3", "a dotted version stays one token");
	is_toks("1,2,3", "1 2 3", "a comma before fewer than three digits separates");
	is_toks("the 1870s", "1870", "a decade is its year");
	is_toks("5km", "5 km", "a unit after a number is a word");
	is_toks("Jan 15, 1967", "januari 15 1967", "month abbreviations become month names");
	is_toks("January", "januari", "the full month name has the same token");
	is_toks("three children", "3 children", "small number words are numbers");
	is_toks("one of them", "one", "one stays a word");
	is_toks("１２３４人", "1234人", "full-width digits are numbers, with their unit");
	is_toks("It isn't O'Brien's", "obrien", "contractions and possessives");
	is_toks("He didn\xE2\x80\x99t go", "go", "typographic apostrophe contractions");
	is_toks("GPT-4", "gpt 4", "letters and digits split");
	is_toks("长城位于中国北方", "长城 城位 位于 于中 中国 国北 北方", "CJK runs become bigrams");
	is_toks("猫", "猫", "a lone CJK character is itself");
	is_toks("长城，全长约21196公里。", "长城 全长 长约 21196公里",
	        "punctuation cuts CJK runs; numbers inside CJK");
	is_toks("长城不在中国", "长城 在中 中国", "a negator cuts the run and is no token");
	is_toks("他没有去北京", "他 去北 北京", "没有 is removed whole");
	is_toks("非常好", "非常 常好", "非常 is not a negator");
	is_toks("无线耳机", "无线 线耳 耳机", "无线 keeps its 无");
	is_toks("不锈钢水杯", "不锈 锈钢 钢水 水杯", "不锈钢 keeps its 不");
	is_toks("北方的长城", "北方 长城", "的 cuts the run");
	is_toks("目的地", "目的 的地", "目的 keeps its 的");
	is_toks("会议室可容纳12人", "会议 议室 室可 可容 容纳 12人", "a number and its unit are one token");
	is_toks("会议室可容纳十二人", "会议 议室 室可 可容 容纳 12人", "十二人 = 12人");
	is_toks("签收后七天内可以退货", "签收 收后 7天 天内 内可 可以 以退 退货", "七天 = 7天, and the run goes on from its unit");
	is_toks("一百零五人 二十岁 两个月 三万人 3万人 2.5万元", "105人 20岁 2个月 30000人 30000人 25000元",
	        "positional numerals, 个月 before 个, 万 multiplies");
	is_toks("二〇二三年一月", "2023年 1月", "digit-by-digit years; a lone 一 before 月");
	is_toks("一个人 一样 三心二意", "一个 个人 一样 三心 心二 二意",
	        "no unit after it, or 一 as an article: a numeral is text");
	is_toks("十分重要", "十分 分重 重要", "十分 (very) is no quantity: 分 is no unit");
	is_toks("5千克 五千克", "5千克 5千克", "千克 is a unit, not the numeral 千");
	{
		jv t = rag_text_tokens_evidence("38岁 十二人 5 km");
		jv d = jv_dump_string(t, 0);
		is_str(jv_string_value(d), "[\"38岁\",\"38\",\"12人\",\"12\",\"5\",\"km\"]",
		       "as evidence a quantity also gives its bare number");
		jv_free(d);
	}
	is_toks("", "", "empty text has no tokens");
	{
		jv t = rag_text_tokens(NULL);
		is_int(jv_array_length(t), 0, "NULL has no tokens");
	}
	is_toks("Paris \xFF capital", "pari capit", "invalid bytes are repaired, not fatal");
}

static void negation(void)
{
	ok(rag_text_negation("Einstein was not born in France."), "not");
	ok(rag_text_negation("He isn't here"), "n't");
	ok(rag_text_negation("He didn\xE2\x80\x99t go"), "n't with a typographic apostrophe");
	ok(rag_text_negation("He never went"), "never");
	ok(rag_text_negation("It cannot fly"), "cannot");
	ok(rag_text_negation("tea without sugar"), "without");
	ok(rag_text_negation("NO entry"), "case-folded no");
	ok(!rag_text_negation("It is known"), "no negator");
	ok(!rag_text_negation("a notable knot"), "words containing not are not negators");
	ok(rag_text_negation("长城不在中国"), "不");
	ok(rag_text_negation("他没有去"), "没有");
	ok(rag_text_negation("尚未完成"), "未");
	ok(!rag_text_negation("非常好"), "非常 is not a negation");
	ok(!rag_text_negation("未来很好"), "未来 is not a negation");
	ok(!rag_text_negation("不仅如此"), "不仅 is not a negation");
	ok(!rag_text_negation(""), "empty text");
	ok(!rag_text_negation("It is not only fast but cheap"), "not only is no negation");
	ok(rag_text_negation("Is it true or not"), "a negator at the end still counts");

	/* a negator inside a word that denies nothing */
	ok(!rag_text_negation("这款耳机支持无线充电"), "无线 (wireless) is a word");
	ok(!rag_text_negation("这台无人机可以飞行30分钟"), "无人机 (drone) is a word");
	ok(!rag_text_negation("水杯采用不锈钢材质"), "不锈钢 (stainless steel) is a word");
	ok(!rag_text_negation("新用户可领取无门槛优惠券"), "无门槛 (no minimum spend) names a coupon");
	ok(!rag_text_negation("本店支持七天无理由退货"), "无理由退货 names a return policy");
	ok(!rag_text_negation("大雨让我们不得不提前出发"), "不得不 (must) is no denial");
	ok(!rag_text_negation("未来三年的计划"), "未来 (future)");
	ok(rag_text_negation("这张优惠券已经无效"), "无效 (invalid) still denies");
	ok(rag_text_negation("本品无毒"), "无毒 (non-toxic) still denies");
	ok(rag_text_negation("这款耳机不支持无线充电"), "不 before a protected word still counts");
	ok(!rag_text_negation("| Basic | No | 10 dollars |"), "a No cell denies nothing");
	ok(!rag_text_negation("| 基础版 | 不 | 每月10元 |"), "zh: a 不 cell denies nothing");
	ok(rag_text_negation("| Basic | Not included |"), "a cell that denies its own words does");
}

static void negation_agreement(void)
{
	ok(rag_text_negation_agrees("Einstein was born in Ulm.", "Einstein was born in Ulm."),
	   "no negation on either side");
	ok(!rag_text_negation_agrees("Einstein was not born in Ulm.", "Einstein was born in Ulm."),
	   "the claim denies what the text states");
	ok(!rag_text_negation_agrees("Einstein liked school.", "He did not like school."),
	   "the text denies what the claim states (stems agree: liked = like)");
	ok(rag_text_negation_agrees("Einstein did not like school.", "He didn't like school."),
	   "both deny the same thing");
	ok(rag_text_negation_agrees("Einstein was born in Ulm.",
	                            "Einstein, who did not like school, was born in Ulm."),
	   "a negation about something else does not matter");
	ok(!rag_text_negation_agrees("It has no cellar.", "It has a cellar."), "no + noun");
	ok(!rag_text_negation_agrees("The answer is no.", "The answer is yes."),
	   "a negator with nothing after it still disagrees");
	ok(rag_text_negation_agrees("It is not only fast.", "It is fast."), "not only");
	ok(!rag_text_negation_agrees("长城不在中国", "长城位于中国北方"), "zh: 不在 against 位于");
	ok(!rag_text_negation_agrees("定制商品也支持无理由退货。", "定制商品不支持无理由退货。"),
	   "zh: 不支持 is not cancelled by 无理由");
	ok(rag_text_negation_agrees("定制商品不支持无理由退货", "定制商品不支持无理由退货。"),
	   "zh: the same negations agree");
	ok(rag_text_negation_agrees("他没去北京", "他没有去北京"), "zh: 没 and 没有 negate the same");
	ok(rag_text_negation_agrees("这个办法非常好", "这个办法非常好"), "zh: 非常 negates nothing");
	ok(rag_text_negation_agrees("", ""), "empty texts agree");
	ok(rag_text_negation_agrees("本店支持七天无理由退货", "本店商品签收后七天内可以退货"),
	   "zh: 无理由 in the claim alone is not a negation the text lacks");
	ok(rag_text_negation_agrees("新用户可领取无门槛优惠券", "新用户注册即可领取优惠券"),
	   "zh: 无门槛 likewise");
	ok(!rag_text_negation_agrees("本品无毒", "本品有毒"), "zh: 无毒 against 有毒 still disagrees");
	ok(!rag_text_negation_agrees("这款耳机不支持无线充电", "这款耳机支持无线充电"),
	   "zh: 不支持 against 支持, around 无线");
}

/* Identifiers and values hold negators without denying anything, and a negator denies only a
 * word of its own clause: supported claims of API documentation once read as denials. */
static void negation_false(void)
{
	ok(!rag_text_negation("The server answers with CANNOT_PARSE_JSON."), "an identifier: CANNOT_PARSE_JSON");
	ok(!rag_text_negation("An empty result gives NO_DATA_FOUND"), "an identifier: NO_DATA_FOUND");
	ok(rag_text_negation_agrees("A request the server fails to parse gets an error code.",
	                            "A request the server fails to parse gets the error code CANNOT_PARSE_JSON."),
	   "CANNOT_PARSE_JSON denies no parse");
	ok(rag_text_negation_agrees("The service signals an empty data set with an error code.",
	                            "An empty data set makes the service return the error code NO_DATA_FOUND."),
	   "NO_DATA_FOUND denies no data");
	ok(!rag_text_negation("The timeout defaults to None."), "None, a value");
	ok(!rag_text_negation("retries: int, default none"), "default none, a value");
	ok(rag_text_negation_agrees("The timeout defaults to None.", "timeout (float, default None): seconds to wait."),
	   "default None");
	ok(rag_text_negation_agrees("The timeout parameter is optional.",
	                            "timeout (float or None, optional): seconds to wait for the server."),
	   "optional after None: no denial");
	ok(rag_text_negation_agrees("The cache is optional.", "Retries: none; the cache is optional."),
	   "a negator does not reach past its clause");
	ok(rag_text_negation_agrees("The export is written as CSV rather than Excel.", "The export is written as CSV, not Excel."),
	   "A rather than B against A, not B");
	ok(rag_text_negation_agrees("Use the v2 endpoint instead of v1.", "Use the v2 endpoint, not v1."),
	   "A instead of B against A, not B");
	ok(rag_text_negation_agrees("The export is written as CSV, not Excel.", "The export is written as CSV rather than Excel."),
	   "A, not B against A rather than B");
	/* what still denies */
	ok(rag_text_negation("None of the files were copied."), "None starting a sentence still denies");
	ok(rag_text_negation("The answer is no."), "no at the end of a clause still denies");
	ok(!rag_text_negation_agrees("The answer is no, sadly.", "The answer is yes, happily."),
	   "no ending a clause still disagrees");
	ok(!rag_text_negation_agrees("The cache is not optional.", "The cache is optional."),
	   "not optional against optional");
	ok(!rag_text_negation_agrees("The export is written as Excel.", "The export is written as CSV, not Excel."),
	   "A against A, not B... B against it still disagrees");
}

int main(void)
{
	utf8();
	lang_and_normalize();
	tokens();
	negation();
	negation_agreement();
	negation_false();
	return done_testing();
}
