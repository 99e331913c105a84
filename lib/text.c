/* text.c - language guess, normalisation and the tokens the offline judge compares.
 *
 * Everything works on NFKC + case-folded text, so full-width digits and letters, ligatures and
 * case differences never decide a match. English words are Snowball-stemmed and stop words
 * dropped; CJK text has no spaces, so it is compared as overlapping character bigrams. Negators
 * are never content tokens: the negation functions at the end look at them instead, so that
 * "not in China" and "in China" share their words and differ only in the negation check. */
#include "base.h"

#include <libstemmer.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* TK_CELL: a table's |; TK_CLAUSE: punctuation that ends a clause, "." or "," (TK_SENTENCE: one
 * that ends a sentence); TK_IDENT: an identifier written with underscores (NO_DATA_FOUND) */
enum { TK_WORD, TK_NUM, TK_CJK, TK_CELL, TK_CLAUSE, TK_SENTENCE, TK_IDENT };

static int is_han(long c)
{
	return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
	       (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x323AF);
}

int rag_text_is_cjk(long c)
{
	/* 〇 (U+3007), the ideographic zero of 二〇二三年, is no Han character but is written as one */
	return is_han(c) || c == 0x3007 || (c >= 0x3040 && c <= 0x30FF) || (c >= 0x31F0 && c <= 0x31FF);
}

/* c is a decoded code point (<= 0x10FFFF): the cast to utf8proc's int32 loses nothing. */
static int is_letter(long c)
{
	utf8proc_category_t k = utf8proc_category((utf8proc_int32_t)c);
	return k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO;
}

static int is_mark(long c)
{
	utf8proc_category_t k = utf8proc_category((utf8proc_int32_t)c);
	return k >= UTF8PROC_CATEGORY_MN && k <= UTF8PROC_CATEGORY_ME;
}

static int is_digit(long c)     /* of a byte or a decoded code point */
{
	return c >= '0' && c <= '9';
}

const char *rag_text_lang(const char *s)
{
	/* Each ideograph counts once and so does each run of other letters: counting letters would
	 * let "GPT-4模型由OpenAI开发" look English because Latin words are long. */
	size_t i = 0, n = s ? strlen(s) : 0, l;
	long han = 0, words = 0;
	int in_word = 0;
	long c;

	while (i < n) {
		l = rag_utf8_decode(s + i, n - i, &c);
		if (is_han(c)) {
			han++;
			in_word = 0;
		} else if (is_letter(c)) {
			if (!in_word)
				words++;
			in_word = 1;
		} else if (!is_mark(c)) {
			in_word = 0;
		}
		i += l;
	}
	return han > words ? "zh" : "en";
}

char *rag_text_normalize(const char *s)
{
	utf8proc_uint8_t *out = NULL;
	utf8proc_ssize_t r;

	if (!s)
		return NULL;
	/* ASCII is its own NFKC form and folds by lowering: skip utf8proc for the common case. */
	for (r = 0; s[r] && !((unsigned char)s[r] & 0x80); r++)
		;
	if (!s[r]) {
		char *p = rag_xmalloc((size_t)r + 1);
		for (r = 0; s[r]; r++)
			p[r] = (char)(s[r] >= 'A' && s[r] <= 'Z' ? s[r] + 32 : s[r]);
		p[r] = 0;
		return p;
	}
	r = utf8proc_map((const utf8proc_uint8_t *)s, 0, &out,
	                 UTF8PROC_NULLTERM | UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
	                 UTF8PROC_CASEFOLD);
	if (r < 0)
		return NULL;
	return (char *)out;
}

/* Normalised copy of s; invalid UTF-8 is repaired first so that one bad byte does not make a
 * whole context unmatchable. */
static char *normalize_any(const char *s)
{
	char *fixed, *n;

	if ((n = rag_text_normalize(s)))
		return n;
	fixed = rag_utf8_sanitize(s, strlen(s));
	n = rag_text_normalize(fixed);
	free(fixed);
	return n ? n : rag_xstrdup("");
}

/* ---- CJK runs: negators and 的 split a run; some words merely contain those characters. */

/* Longest first, so that 没有 is removed whole and does not leave 有 behind. */
static const char *const zh_negators[] = {
	"没有", "无法", "并非", "从未", "未曾", "从不", "绝不", "毫无",
	"不", "没", "未", "无", "非", "别", "勿", NULL,
};
/* Words that contain a negator or 的 but negate nothing. A negator denies the word after it
 * (不支持, 没有货, 未提及); inside these it is part of a word whose meaning is not "not" + the
 * rest: 非常 "very", 未来 "future", 无线 "wireless", 不锈钢 "stainless steel", 不得不 "must",
 * and the fixed terms that name an offer or a policy, 无理由退货 (the statutory "return without
 * giving a reason") and 无门槛 (a coupon with no minimum spend). Words that still deny (无效
 * "invalid", 不同 "different", 无毒 "non-toxic") stay negations, so that 无毒 against 有毒 is
 * still caught. ICU's word breaks cannot draw this line: its dictionary makes single words of
 * 不在, 无效 and 不能, which deny, and splits 无|理由, which names. */
static const char *const zh_protected[] = {
	"非常", "非洲", "非凡", "无非", "非得", "未来", "未免", "别人", "别的", "特别", "区别", "分别",
	"类别", "性别", "级别", "告别", "识别", "辨别", "个别", "别墅", "无论", "无线", "无数",
	"无疑", "毫无疑问", "无比", "无所谓", "无人机", "无人驾驶", "无理由", "无门槛", "不锈钢",
	"不得不", "不仅", "不但", "不过", "不断", "不久", "不少", "不管", "不错", "不然", "不禁",
	"不由得", "不好意思", "不客气", "没关系", "差不多", "除非", "莫非", "目的", "的确", "的士",
	NULL,
};

/* A piece of a CJK run (negator 0), or a negator that cut the run (negator 1). */
typedef void (*seg_fn)(void *arg, const char *s, size_t n, int negator);

/* Cut a CJK run at negators and at 的, passing each piece and each negator to seg in text order.
 * Returns 1 when a negator was found. */
static int cjk_segments(const char *run, size_t n, seg_fn seg, void *arg)
{
	char *prot;
	size_t p, start = 0, k, l;
	int negated = 0;
	long c;

	/* Most runs hold no character that could cut them: one piece, nothing to protect. Every
	 * negator starts with a 3-byte character, so comparing 3 bytes finds all candidates. */
	for (p = 0; p + 3 <= n; p += rag_utf8_decode(run + p, n - p, &c)) {
		if (!memcmp(run + p, "的", 3))
			break;
		for (k = 0; zh_negators[k] && memcmp(run + p, zh_negators[k], 3); k++)
			;
		if (zh_negators[k])
			break;
	}
	if (p + 3 > n) {
		if (n && seg)
			seg(arg, run, n, 0);
		return 0;
	}

	prot = rag_xmalloc(n);
	memset(prot, 0, n);
	for (k = 0; zh_protected[k]; k++) {
		size_t el = strlen(zh_protected[k]);
		const char *q = run;
		while ((q = memmem(q, n - (size_t)(q - run), zh_protected[k], el))) {
			memset(prot + (q - run), 1, el);
			q += el;
		}
	}
	p = 0;
	while (p < n) {
		size_t cut = 0;
		int cut_neg = 0;
		if (!prot[p]) {
			for (k = 0; zh_negators[k]; k++) {
				l = strlen(zh_negators[k]);
				if (l <= n - p && !memcmp(run + p, zh_negators[k], l)) {
					cut = l;
					negated = cut_neg = 1;
					break;
				}
			}
			if (!cut && n - p >= 3 && !memcmp(run + p, "的", 3))
				cut = 3;
		}
		if (cut) {
			if (p > start && seg)
				seg(arg, run + start, p - start, 0);
			if (cut_neg && seg)
				seg(arg, run + p, cut, 1);
			p += cut;
			start = p;
		} else {
			p += rag_utf8_decode(run + p, n - p, &c);
		}
	}
	if (n > start && seg)
		seg(arg, run + start, n - start, 0);
	free(prot);
	return negated;
}

/* ---- the scanner shared by the tokens and the negation check */

typedef void (*emit_fn)(void *arg, int kind, const char *s, size_t n);

/* Read a number at s[i]: thousands separators dropped, one decimal point kept, leading zeros of
 * the integer part and trailing zeros of a fraction dropped so that "03" = "3" and "2.50" = "2.5".
 * An ordinal or plural suffix (1st, 20th, 1870s) belongs to the number. Returns the next index. */
static size_t scan_number(const char *s, size_t n, size_t i, rag_buf *b)
{
	static const char *const suffixes[] = { "st", "nd", "rd", "th", "s", NULL };
	const char *const *q;
	size_t dots = 0, j = i, k, l;
	char *dot;
	long c;

	b->len = 0;
	for (;;) {
		while (j < n && is_digit(s[j]))
			rag_buf_add(b, s + j++, 1);
		if (j + 3 < n && s[j] == ',' && !dots && is_digit(s[j + 1]) && is_digit(s[j + 2]) &&
		    is_digit(s[j + 3]) && (j + 4 >= n || !is_digit(s[j + 4]))) {
			j++;
		} else if (j + 1 < n && s[j] == '.' && is_digit(s[j + 1])) {
			rag_buf_add(b, ".", 1);
			dots++;
			j++;
		} else {
			break;
		}
	}
	if (dots == 1) {
		dot = strchr(b->p, '.');
		while (b->len > 0 && b->p[b->len - 1] == '0')
			b->p[--b->len] = 0;
		if (b->p + b->len - 1 == dot)
			b->p[--b->len] = 0;
	}
	if (dots <= 1) {
		for (k = 0; k + 1 < b->len && b->p[k] == '0' && is_digit(b->p[k + 1]); k++)
			;
		memmove(b->p, b->p + k, b->len - k + 1);
		b->len -= k;
	}
	for (q = suffixes; *q; q++) {
		l = strlen(*q);
		if (l > n - j || memcmp(s + j, *q, l))
			continue;
		if (j + l < n) {
			rag_utf8_decode(s + j + l, n - j - l, &c);
			if (is_letter(c) || is_mark(c) || is_digit(c))
				continue;   /* "5km" is a number and a word, not a suffix */
		}
		return j + l;
	}
	return j;
}

static int is_apostrophe(const char *s, size_t n, size_t *len)
{
	if (n >= 1 && s[0] == '\'')
		return *len = 1, 1;
	if (n >= 3 && !memcmp(s, "\xE2\x80\x99", 3))   /* U+2019, the typographic apostrophe */
		return *len = 3, 1;
	return 0;
}

/* ---- quantities: a number and its Chinese unit are one token
 *
 * 12人 is a count of people: a text that has 人 somewhere and 12 of something else does not
 * state it. So a number followed by a unit (人, 天, 公里, 个月...) is one token, "12人", and a
 * Chinese numeral before a unit is that number: 十二人 is "12人", 七天 "7天". Without a unit
 * after it a numeral is left as text (三心二意, 一样), and a lone 一 only counts before a unit of
 * time or measure, since 一个, 一本 are as often "a" as "one". */

/* Longest first: 个月 before 个, 千克 before the numeral 千. */
static const char *const zh_units[] = {
	"平方米", "平方公里", "公里", "公斤", "千克", "千米", "厘米", "毫米", "毫升", "小时", "分钟",
	"个月", "周岁", "星期", "人", "个", "位", "名", "岁", "年", "月", "日", "号", "天", "周",
	"次", "元", "块", "件", "条", "台", "辆", "本", "家", "所", "项", "种", "只", "张", "份",
	"倍", "米", "克", "吨", "层", "秒", "座", "间", "套", "部", "场", "届", "期", "节", "篇",
	"页", "斤", "升", "点", "万", "亿", NULL,
};
/* the units after which a lone 一 is the number one */
static const char *const zh_units_one[] = {
	"平方米", "平方公里", "公里", "公斤", "千克", "千米", "厘米", "毫米", "毫升", "小时", "分钟",
	"个月", "周岁", "星期", "人", "名", "岁", "年", "月", "日", "号", "天", "周", "次", "元",
	"块", "倍", "米", "克", "吨", "秒", "斤", "升", "万", "亿", NULL,
};

static size_t unit_len(const char *s, size_t n, const char *const *units)
{
	size_t l;
	for (; *units; units++) {
		l = strlen(*units);
		if (l <= n && !memcmp(s, *units, l))
			return l;
	}
	return 0;
}

/* The value of a Chinese numeral character: 0-9, or 10, 100, 1000, 10^4, 10^8; -1 if none. */
static long zh_digit(const char *s, size_t n)
{
	static const char *const d[] = {
		"零", "一", "二", "三", "四", "五", "六", "七", "八", "九", NULL,
	};
	size_t k;

	if (n < 3)
		return -1;
	for (k = 0; d[k]; k++)
		if (!memcmp(s, d[k], 3))
			return (long)k;
	if (!memcmp(s, "〇", 3))
		return 0;
	if (!memcmp(s, "两", 3))
		return 2;
	if (!memcmp(s, "十", 3))
		return 10;
	if (!memcmp(s, "百", 3))
		return 100;
	if (!memcmp(s, "千", 3))
		return 1000;
	if (!memcmp(s, "万", 3))
		return 10000;
	if (!memcmp(s, "亿", 3))
		return 100000000;
	return -1;
}

/* A Chinese numeral at s followed by a unit: its value and unit into b, and the bytes used;
 * 0 when there is none. 十二 = 12, 一百零五 = 105, 三万 = 30000, 二〇二三 = 2023. */
static size_t zh_quantity(const char *s, size_t n, rag_buf *b)
{
	unsigned long long total = 0, section = 0, num = 0, v;
	size_t p = 0, u, count = 0;
	int positional = 0;
	long d;
	char digits[16];

	while (p < n && count < 12 && (d = zh_digit(s + p, n - p)) >= 0) {
		/* 千克 and 千米 are units, not the numeral 千 */
		if (d == 1000 && count && unit_len(s + p, n - p, (const char *const[]){ "千克", "千米", NULL }))
			break;
		if (d >= 10)
			positional = 1;
		if (count < sizeof digits - 1)
			digits[count] = (char)(d < 10 ? '0' + d : 'x');
		count++;
		p += 3;
	}
	if (!count)
		return 0;
	if (count == 1 && !memcmp(s, "一", 3))
		u = unit_len(s + p, n - p, zh_units_one);
	else
		u = unit_len(s + p, n - p, zh_units);
	if (!u)
		return 0;
	b->len = 0;
	if (!positional) {
		for (v = 0; v < count && v + 1 < count && digits[v] == '0'; v++)
			;                       /* leading zeros go, as in scan_number */
		rag_buf_add(b, digits + v, count - v);
	} else {
		for (size_t q = 0; q < p; q += 3) {
			d = zh_digit(s + q, p - q);
			if (d < 10) {
				num = (unsigned long long)d;
			} else if (d < 10000) {
				section += (num ? num : 1) * (unsigned long long)d;
				num = 0;
			} else {
				total = (total + section + num) * (unsigned long long)d;
				section = num = 0;
			}
		}
		rag_buf_addf(b, "%llu", total + section + num);
	}
	rag_buf_add(b, s + p, u);
	return p + u;
}

/* The unit after the number in b (ASCII digits, ending at s[i]): appended to it; 万 and 亿
 * multiply instead, so that 3万人 = 三万人 = "30000人". Returns the next index. */
static size_t scan_unit(const char *s, size_t n, size_t i, rag_buf *b)
{
	size_t l;
	double v = 0;
	int wan = n - i >= 3 && !memcmp(s + i, "万", 3), yi = n - i >= 3 && !memcmp(s + i, "亿", 3);

	if (wan || yi)
		v = strtod(b->p, NULL) * (wan ? 1e4 : 1e8);
	if ((wan || yi) && v < 1e15 && v == (double)(long long)v) {
		b->len = 0;
		rag_buf_addf(b, "%lld", (long long)v);
		i += 3;
	}
	if ((l = unit_len(s + i, n - i, zh_units)) && memcmp(s + i, "万", 3) && memcmp(s + i, "亿", 3)) {
		rag_buf_add(b, s + i, l);
		i += l;
	}
	return i;
}

/* Emit a CJK run, its quantities (七天, 十二人) as numbers. The text after a quantity goes on
 * from its unit, which also begins the next bigram (四座磨坊: 4座, 座磨, 磨坊), so that the run's
 * words read as they did; a unit with nothing after it is the quantity's alone (12人: no 人). */
static void scan_cjk(const char *s, size_t n, rag_buf *b, emit_fn emit, void *arg)
{
	size_t p = 0, start = 0, unit = (size_t)-1, q, l;
	long c;

	while (p < n) {
		if ((q = zh_quantity(s + p, n - p, b))) {
			if (p > start && !(start == unit && p - start <= 3))
				emit(arg, TK_CJK, s + start, p - start);
			emit(arg, TK_NUM, b->p, b->len);
			/* the unit's last character: 个月 goes on from 月 */
			for (l = q; l > 0 && ((unsigned char)s[p + l - 1] & 0xC0) == 0x80; l--)
				;
			start = unit = p + (l ? l - 1 : 0);
			p += q;
		} else {
			p += rag_utf8_decode(s + p, n - p, &c);
		}
	}
	if (n > start && !(start == unit && n - start <= 3))
		emit(arg, TK_CJK, s + start, n - start);
}

static int is_ascii_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The end of an identifier at s[i]: a run of ASCII letters, digits and underscores that starts
 * with a letter or an underscore and holds both (CANNOT_PARSE_JSON, __init__, max_retries); i
 * when there is none. It is one word: the words inside it are a name's, so its "cannot" or "no"
 * denies nothing. */
static size_t ident_end(const char *s, size_t n, size_t i)
{
	size_t j;
	int under = 0, alpha = 0;
	long c;

	if (s[i] != '_' && !is_ascii_alpha(s[i]))
		return i;
	for (j = i; j < n && (s[j] == '_' || is_digit(s[j]) || is_ascii_alpha(s[j])); j++) {
		under |= s[j] == '_';
		alpha |= s[j] != '_' && !is_digit(s[j]);
	}
	if (j < n && ((unsigned char)s[j] & 0x80)) {
		rag_utf8_decode(s + j, n - j, &c);
		if (is_letter(c) || is_mark(c))
			return i;       /* a word that goes on past ASCII is no identifier */
	}
	return under && alpha ? j : i;
}

/* TK_SENTENCE for punctuation that ends a sentence, TK_CLAUSE for one that ends a clause, else 0. */
static int clause_end(long c)
{
	if (c == '.' || c == '!' || c == '?' || c == '\n' || c == 0x3002 || c == 0xFF01 || c == 0xFF1F)
		return TK_SENTENCE;
	if (c == ',' || c == ';' || c == ':' || c == '(' || c == ')' || c == '[' || c == ']' ||
	    c == 0xFF0C || c == 0x3001 || c == 0xFF1B || c == 0xFF1A || c == 0xFF08 || c == 0xFF09)
		return TK_CLAUSE;
	return 0;
}

static void scan(const char *s, emit_fn emit, void *arg)
{
	size_t n = strlen(s), i = 0, j, l, al;
	rag_buf b = {0};
	long c, d;
	int k;

	while (i < n) {
		l = rag_utf8_decode(s + i, n - i, &c);
		if (is_digit(c)) {
			i = scan_number(s, n, i, &b);
			i = scan_unit(s, n, i, &b);
			emit(arg, TK_NUM, b.p, b.len);
		} else if (rag_text_is_cjk(c)) {
			for (j = i; j < n; j += l) {
				l = rag_utf8_decode(s + j, n - j, &d);
				if (!rag_text_is_cjk(d))
					break;
			}
			scan_cjk(s + i, j - i, &b, emit, arg);
			i = j;
		} else if ((j = ident_end(s, n, i)) > i) {
			emit(arg, TK_IDENT, s + i, j - i);
			i = j;
		} else if (is_letter(c)) {
			/* A word: letters and marks, plus apostrophes between letters (don't, o'brien). */
			for (j = i; j < n; j += l) {
				l = rag_utf8_decode(s + j, n - j, &d);
				if (rag_text_is_cjk(d))
					break;
				if (is_letter(d) || is_mark(d))
					continue;
				if (is_apostrophe(s + j, n - j, &al) && j + al < n) {
					rag_utf8_decode(s + j + al, n - j - al, &d);
					if (is_letter(d) && !rag_text_is_cjk(d)) {
						l = al;
						continue;
					}
				}
				break;
			}
			emit(arg, TK_WORD, s + i, j - i);
			i = j;
		} else {
			if (c == '|')
				emit(arg, TK_CELL, s + i, 1);
			else if ((k = clause_end(c)))
				emit(arg, k, s + i, l);
			i += l;
		}
	}
	rag_buf_free(&b);
}

/* ---- tokens */

static const char *const stop_words[] = {   /* sorted: searched with bsearch */
	"a", "about", "also", "am", "an", "and", "any", "are", "as", "at",
	"be", "been", "being", "both", "but", "by", "can", "cannot", "could", "did",
	"do", "does", "doing", "each", "for", "from", "had", "has", "have", "having",
	"he", "her", "here", "hers", "him", "his", "how", "i", "if", "in",
	"into", "is", "it", "its", "itself", "just", "me", "might", "must", "my",
	"neither", "never", "no", "nobody", "none", "nor", "not", "nothing", "nowhere", "of",
	"on", "or", "our", "ours", "shall", "she", "should", "so", "some", "such",
	"than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they",
	"this", "those", "to", "too", "us", "very", "was", "we", "were", "what",
	"when", "where", "which", "while", "who", "whom", "whose", "why", "will", "with",
	"without", "would", "you", "your", "yours",
};

static const char *const en_negators[] = {
	"not", "no", "never", "nor", "neither", "none", "nobody", "nothing", "nowhere", "cannot",
	"without", NULL,
};

/* Month abbreviations become full names so that "Jan 15" and "January 15" agree. */
static const char *const months[][2] = {
	{ "jan", "january" }, { "feb", "february" }, { "mar", "march" }, { "apr", "april" },
	{ "jun", "june" }, { "jul", "july" }, { "aug", "august" }, { "sep", "september" },
	{ "sept", "september" }, { "oct", "october" }, { "nov", "november" }, { "dec", "december" },
};

/* Small number words are numbers ("three children" = "3 children"); "one" is left alone since it
 * is as often a pronoun. */
static const char *const number_words[] = {
	"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct tokens {
	struct sb_stemmer *stem;
	jv out;
	rag_buf w;
	int evidence;       /* a quantity also gives its bare number */
};

static void add_token(struct tokens *t, const char *s, size_t n)
{
	t->out = jv_array_append(t->out, jv_string_sized(s, (int)n));
}

/* Strip an English contraction or possessive: "isn't" -> "is", "einstein's" -> "einstein",
 * "can't" -> "can", "o'brien" -> "obrien". Works in place on a NUL-terminated word. */
static void strip_apostrophe(rag_buf *w)
{
	char *a = strrchr(w->p, '\'');
	const char *suf;
	size_t k;

	if (!a)
		return;
	suf = a + 1;
	if (!strcmp(suf, "t") && a > w->p && a[-1] == 'n') {
		a[-1] = 0;
		if (!strcmp(w->p, "ca"))
			strcpy(w->p, "can");
		else if (!strcmp(w->p, "wo"))
			strcpy(w->p, "will");
		else if (!strcmp(w->p, "sha"))
			strcpy(w->p, "shall");
	} else if (!strcmp(suf, "s") || !strcmp(suf, "re") || !strcmp(suf, "ve") ||
	           !strcmp(suf, "d") || !strcmp(suf, "ll") || !strcmp(suf, "m") || !*suf) {
		*a = 0;
	}
	/* any apostrophe left is part of a name */
	for (a = w->p, k = 0; w->p[k]; k++)
		if (w->p[k] != '\'')
			*a++ = w->p[k];
	*a = 0;
	w->len = strlen(w->p);
}

/* The keys of the words seen last, by thread: a context's words recur in every sentence and in
 * every record on its subject, and their stop-word search and stemming took a fifth of the
 * offline judge's time. A key is a function of the word's bytes alone (the stemmer is always
 * Snowball's English), so a word found here gets the key it would get anyway. Direct-mapped:
 * a word whose slot another took is worked out again. */
enum { KEY_SLOTS = 1024, KEY_MAX = 24 };
struct key_slot {
	unsigned char n;         /* the word's length; 0: empty */
	unsigned char len;       /* the key's */
	unsigned char stop;      /* a stop word: no key */
	char in[KEY_MAX], out[KEY_MAX];
};
static _Thread_local struct key_slot key_cache[KEY_SLOTS];

static const char *word_key_uncached(struct sb_stemmer *stem, rag_buf *w, const char *s, size_t n,
                                     size_t *len);

/* The English stemmer, made when a word first needs it: with the keys remembered, most texts
 * need none. NULL if it cannot be made. */
static struct sb_stemmer *stemmer(struct sb_stemmer **stem)
{
	if (!*stem)
		*stem = sb_stemmer_new("english", NULL);
	return *stem;
}

/* The key of a word: case-folded, contraction stripped, month abbreviation expanded, number
 * word as digits, stemmed. NULL for a stop word. The result lives in w or in the stemmer until
 * the next call. *stem: the stemmer, made here when first needed. */
static const char *word_key(struct sb_stemmer **stem, rag_buf *w, const char *s, size_t n,
                            size_t *len)
{
	struct key_slot *slot;
	const char *key;
	uint32_t h = 2166136261u;
	size_t k;

	if (!n || n >= KEY_MAX)
		return word_key_uncached(stemmer(stem), w, s, n, len);
	for (k = 0; k < n; k++)
		h = (h ^ (unsigned char)s[k]) * 16777619u;
	slot = &key_cache[h & (KEY_SLOTS - 1)];
	if (slot->n == n && !memcmp(slot->in, s, n)) {
		if (slot->stop)
			return NULL;
		w->len = 0;
		rag_buf_add(w, slot->out, slot->len);
		*len = slot->len;
		return w->p;
	}
	key = word_key_uncached(stemmer(stem), w, s, n, len);
	if (!*stem || (key && *len >= KEY_MAX))   /* unstemmed, or too long to keep */
		return key;
	slot->n = (unsigned char)n;
	memcpy(slot->in, s, n);
	slot->stop = !key;
	slot->len = key ? (unsigned char)*len : 0;
	if (key)
		memcpy(slot->out, key, *len);
	return key;
}

static const char *word_key_uncached(struct sb_stemmer *stem, rag_buf *w, const char *s, size_t n,
                                     size_t *len)
{
	const char *key;
	size_t k;

	w->len = 0;
	for (k = 0; k < n; k++) {
		if (k + 2 < n && !memcmp(s + k, "\xE2\x80\x99", 3)) {
			rag_buf_add(w, "'", 1);
			k += 2;
		} else {
			rag_buf_add(w, s + k, 1);
		}
	}
	if (!w->len)
		return NULL;
	strip_apostrophe(w);
	if (!w->len)
		return NULL;
	key = w->p;
	if (bsearch(&key, stop_words, sizeof stop_words / sizeof *stop_words, sizeof *stop_words,
	            cmp_str))
		return NULL;
	for (k = 0; k < sizeof number_words / sizeof *number_words; k++) {
		if (k != 1 && !strcmp(key, number_words[k])) {
			w->len = 0;
			rag_buf_addf(w, "%zu", k);
			*len = w->len;
			return w->p;
		}
	}
	for (k = 0; k < sizeof months / sizeof *months; k++) {
		if (!strcmp(key, months[k][0])) {
			w->len = 0;
			rag_buf_adds(w, months[k][1]);
			break;
		}
	}
	if (stem) {
		const sb_symbol *st = sb_stemmer_stem(stem, (const sb_symbol *)w->p, (int)w->len);
		if (st) {
			*len = (size_t)sb_stemmer_length(stem);
			return (const char *)st;
		}
	}
	*len = w->len;
	return w->p;
}

static int is_negator_word(const char *s, size_t n)
{
	size_t k;

	if ((n >= 3 && !memcmp(s + n - 3, "n't", 3)) || (n >= 5 && !memcmp(s + n - 5, "n\xE2\x80\x99t", 5)))
		return 1;
	for (k = 0; en_negators[k]; k++)
		if (strlen(en_negators[k]) == n && !memcmp(s, en_negators[k], n))
			return 1;
	return 0;
}

/* A piece of a CJK run: overlapping bigrams, or the character itself when it stands alone. */
static void cjk_token(void *arg, const char *s, size_t n, int negator)
{
	struct tokens *t = arg;
	size_t a = 0, b, c;
	long cp;

	if (negator)
		return;
	b = rag_utf8_decode(s, n, &cp);
	if (b >= n) {
		add_token(t, s, n);
		return;
	}
	while (b < n) {
		c = b + rag_utf8_decode(s + b, n - b, &cp);
		add_token(t, s + a, c - a);
		a = b;
		b = c;
	}
}

static void token_emit(void *arg, int kind, const char *s, size_t n)
{
	struct tokens *t = arg;
	const char *key;
	size_t len;

	if (kind == TK_CELL || kind == TK_CLAUSE || kind == TK_SENTENCE)
		return;
	if (kind == TK_NUM) {
		add_token(t, s, n);
		for (len = 0; t->evidence && len < n && (is_digit(s[len]) || s[len] == '.'); len++)
			;
		if (t->evidence && len < n)
			add_token(t, s, len);       /* "38岁" states 38 */
	}
	else if (kind == TK_CJK)
		cjk_segments(s, n, cjk_token, t);
	else if ((kind == TK_IDENT || !is_negator_word(s, n)) && (key = word_key(&t->stem, &t->w, s, n, &len)))
		add_token(t, key, len);
}

static jv tokens_of(const char *s, int evidence)
{
	struct tokens t = { 0 };
	char *norm;

	t.evidence = evidence;
	t.out = jv_array();
	if (!s)
		return t.out;
	norm = normalize_any(s);
	scan(norm, token_emit, &t);
	if (t.stem)
		sb_stemmer_delete(t.stem);
	rag_buf_free(&t.w);
	free(norm);
	return t.out;
}

jv rag_text_tokens(const char *s)
{
	return tokens_of(s, 0);
}

jv rag_text_tokens_evidence(const char *s)
{
	return tokens_of(s, 1);
}

/* ---- negation
 *
 * What a negator negates is taken to be the next key after it: the next content word (stemmed,
 * as in the tokens) or, in CJK text, the next character. "Einstein did not like school" negates
 * "like"; 定制商品不支持无理由退货 negates 支 and 理. Comparing these heads, and not only whether
 * a negator occurs, keeps 无理由 ("no-questions-asked") from cancelling 不支持. */

struct strset {
	char **v;
	size_t n, cap;
};

static void set_add(struct strset *a, const char *s, size_t n)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = rag_xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = rag_xstrndup(s, n);
}

static int set_has(const struct strset *a, const char *s)
{
	size_t i;
	for (i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], s))
			return 1;
	return 0;
}

static void set_free(struct strset *a)
{
	size_t i;
	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

struct negation {
	struct sb_stemmer *stem;
	rag_buf w, fold;
	int pending;             /* a negator waits for its head: 1, or 2 for a contrast ("rather than") */
	int after_not;           /* the negator was "not": "not only" negates nothing */
	int at_start;            /* the next word begins a sentence */
	int after_default;       /* the words so far: "default", "defaults to": a None after is a value */
	char prev[8];            /* the previous word, folded, when short: "rather" before "than" */
	struct strset keys;      /* every key of the text */
	struct strset heads;     /* the keys right after a negator */
	struct strset contrast;  /* the keys right after "rather than", "instead of": what the text
	                          * sets aside, which agrees with a denial but is none itself */
};

static void neg_key(struct negation *g, const char *s, size_t n)
{
	set_add(&g->keys, s, n);
	if (g->pending)
		set_add(g->pending == 2 ? &g->contrast : &g->heads, s, n);
	g->pending = 0;
	g->at_start = 0;
}

/* A negator with nothing after it in its clause ("The answer is no.", "... or not.") denies,
 * though no word of the text is its head; a contrast with nothing after it sets nothing aside. */
static void neg_clause_end(struct negation *g)
{
	if (g->pending == 1)
		set_add(&g->heads, "", 0);
	g->pending = g->after_not = 0;
}

static void neg_cjk(void *arg, const char *s, size_t n, int negator)
{
	struct negation *g = arg;
	size_t l;
	long c;

	if (negator) {
		g->pending = 1;
		g->after_not = 0;
		return;
	}
	for (; n; s += l, n -= l) {
		l = rag_utf8_decode(s, n, &c);
		neg_key(g, s, l);
	}
}

/* The word folded as the tokens fold it (the negation scan keeps the text's case to tell a value
 * from a negator): into g->fold, NUL-terminated. */
static const char *neg_fold(struct negation *g, const char *s, size_t n)
{
	size_t k;
	char *f;

	g->fold.len = 0;
	for (k = 0; k < n && !((unsigned char)s[k] & 0x80); k++)
		;
	if (k == n) {
		for (k = 0; k < n; k++) {
			char c = (char)(s[k] >= 'A' && s[k] <= 'Z' ? s[k] + 32 : s[k]);
			if (c)      /* as "%c" through rag_buf_addf, which adds up to a NUL */
				rag_buf_add(&g->fold, &c, 1);
		}
	} else {
		char *w = rag_xstrndup(s, n);
		f = rag_text_normalize(w);
		rag_buf_adds(&g->fold, f ? f : w);
		free(f);
		free(w);
	}
	rag_buf_add(&g->fold, "", 1);
	g->fold.len--;
	return g->fold.p;
}

/* A negator written as a value: "None" inside a sentence (Python's), or after "default". */
static int neg_value(const struct negation *g, const char *s, size_t n, const char *folded)
{
	if (strcmp(folded, "none"))
		return 0;
	return g->after_default || (!g->at_start && n == 4 && !memcmp(s, "None", 4));
}

static void neg_word(struct negation *g, const char *s, size_t n)
{
	const char *f = neg_fold(g, s, n), *key;
	size_t len, fn = g->fold.len;
	int value = neg_value(g, s, n, f), contrast;

	contrast = (!strcmp(g->prev, "rather") && !strcmp(f, "than")) ||
	           (!strcmp(g->prev, "instead") && !strcmp(f, "of"));
	snprintf(g->prev, sizeof g->prev, "%s", fn < sizeof g->prev ? f : "");
	g->after_default = !strcmp(f, "default") || !strcmp(f, "defaults") ||
	                   (g->after_default && (!strcmp(f, "to") || !strcmp(f, "is")));
	if (contrast) {
		g->pending = 2;
		g->after_not = 0;
	} else if (g->after_not && !strcmp(f, "only")) {
		g->pending = g->after_not = 0;
	} else if (!value && is_negator_word(f, fn)) {
		g->pending = 1;
		g->after_not = !strcmp(f, "not");
	} else if ((key = word_key(&g->stem, &g->w, f, fn, &len))) {
		neg_key(g, key, len);
		g->after_not = 0;
	}
	g->at_start = 0;
}

static void neg_emit(void *arg, int kind, const char *s, size_t n)
{
	struct negation *g = arg;
	const char *key;
	size_t len;

	if (kind == TK_CELL) {
		/* a negator that ends a table cell ("| Basic | No |") is the cell's value: it denies
		 * nothing in the next cell */
		g->pending = g->after_not = 0;
		g->at_start = 1;
	} else if (kind == TK_CLAUSE || kind == TK_SENTENCE) {
		/* a negator denies a word of its own clause, never one after a comma or a stop */
		neg_clause_end(g);
		g->at_start = g->at_start || kind == TK_SENTENCE;
		g->after_default = g->after_default && kind == TK_CLAUSE && n == 1 && *s == ':';
		g->prev[0] = 0;
	} else if (kind == TK_CJK) {
		cjk_segments(s, n, neg_cjk, g);
		g->prev[0] = 0;
	} else if (kind == TK_NUM) {
		neg_key(g, s, n);
		g->prev[0] = 0;
	} else if (kind == TK_IDENT) {
		/* a name, never a negator */
		if ((key = word_key(&g->stem, &g->w, neg_fold(g, s, n), g->fold.len, &len)))
			neg_key(g, key, len);
		g->prev[0] = 0;
	} else {
		neg_word(g, s, n);
	}
}

/* Normalised as rag_text_normalize, but keeping case: "None" and "none" differ here. */
static char *normalize_keep_case(const char *s)
{
	utf8proc_uint8_t *out = NULL;
	char *fixed;
	utf8proc_ssize_t r;
	const int flags = UTF8PROC_NULLTERM | UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT;

	r = utf8proc_map((const utf8proc_uint8_t *)s, 0, &out, flags);
	if (r >= 0)
		return (char *)out;
	fixed = rag_utf8_sanitize(s, strlen(s));
	r = utf8proc_map((const utf8proc_uint8_t *)fixed, 0, &out, flags);
	free(fixed);
	return r >= 0 ? (char *)out : rag_xstrdup("");
}

static void negation_scan(struct negation *g, const char *s)
{
	char *norm = normalize_keep_case(s ? s : "");

	memset(g, 0, sizeof *g);     /* the stemmer is made when a word needs it (word_key) */
	g->at_start = 1;
	scan(norm, neg_emit, g);
	neg_clause_end(g);       /* "... or not" negates, though nothing follows */
	free(norm);
}

static void negation_free(struct negation *g)
{
	if (g->stem)
		sb_stemmer_delete(g->stem);
	rag_buf_free(&g->w);
	rag_buf_free(&g->fold);
	set_free(&g->keys);
	set_free(&g->heads);
	set_free(&g->contrast);
}

struct rag_negation {
	struct negation g;
};

rag_negation *rag_negation_scan(const char *s)
{
	rag_negation *n = rag_xmalloc(sizeof *n);

	negation_scan(&n->g, s);
	/* what the comparisons need is kept; the scan's stemmer and buffers go now */
	if (n->g.stem)
		sb_stemmer_delete(n->g.stem);
	n->g.stem = NULL;
	rag_buf_free(&n->g.w);
	rag_buf_free(&n->g.fold);
	return n;
}

void rag_negation_free(rag_negation *n)
{
	if (!n)
		return;
	negation_free(&n->g);
	free(n);
}

int rag_negation_denies(const rag_negation *n)
{
	return n->g.heads.n > 0;
}

int rag_negation_agree(const rag_negation *claim, const rag_negation *text)
{
	const struct negation *c = &claim->g, *t = &text->g;
	size_t i;
	int ok = 1;

	/* the claim denies what the text does not deny or set aside ("A, not B" against "A rather
	 * than B") */
	for (i = 0; ok && i < c->heads.n; i++)
		ok = set_has(&t->heads, c->heads.v[i]) || set_has(&t->contrast, c->heads.v[i]);
	/* the text denies what the claim states, and neither denies nor sets aside */
	for (i = 0; ok && i < t->heads.n; i++)
		ok = !set_has(&c->keys, t->heads.v[i]) || set_has(&c->heads, t->heads.v[i]) ||
		     set_has(&c->contrast, t->heads.v[i]);
	return ok;
}

int rag_text_negation(const char *s)
{
	struct negation g;
	int neg;

	negation_scan(&g, s);
	neg = g.heads.n > 0;
	negation_free(&g);
	return neg;
}

int rag_text_negation_agrees(const char *claim, const char *text)
{
	rag_negation *c = rag_negation_scan(claim), *t = rag_negation_scan(text);
	int ok = rag_negation_agree(c, t);

	rag_negation_free(c);
	rag_negation_free(t);
	return ok;
}
