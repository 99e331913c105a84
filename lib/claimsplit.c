/* claimsplit.c - the offline judge's claims: a text cut into atomic claims by rules, no network.
 *
 * It is deliberately simple and deterministic. A claim is cut small enough to fail on its own:
 * sentences become clauses, and "born in Ulm on 14 March 1879" a place and a date, so that a
 * wrong date is one unsupported claim, not a whole sentence. English and Chinese get the same
 * treatment; the language-specific parts are word lists. claimcheck.c cuts the contexts it
 * checks claims against into sentences with the same rules (rag_offline_sentences). */
#include "base.h"
#include "offline.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* ---------------------------------------------------------------- small helpers */

/* ASCII classes, of bytes and of decoded code points alike (hence long, as rag_utf8_decode's) */
static int is_lower(long c) { return c >= 'a' && c <= 'z'; }
static int is_upper(long c) { return c >= 'A' && c <= 'Z'; }
static int is_digit(long c) { return c >= '0' && c <= '9'; }
static int lower(int c) { return is_upper(c) ? c + 32 : c; }

/* Length of the whitespace character at s (not newline: newlines end sentences), else 0. */
static size_t space_len(const char *s, size_t n)
{
	if (!n)
		return 0;
	if (s[0] == ' ' || s[0] == '\t' || s[0] == '\r' || s[0] == '\f' || s[0] == '\v')
		return 1;
	if (n >= 2 && !memcmp(s, "\xC2\xA0", 2))           /* no-break space */
		return 2;
	if (n >= 3 && !memcmp(s, "\xE3\x80\x80", 3))       /* ideographic space */
		return 3;
	return 0;
}

/* Length of the first item of list that s starts with, else 0. */
static size_t starts_with_any(const char *s, size_t n, const char *const *list)
{
	size_t l;
	for (; *list; list++) {
		l = strlen(*list);
		if (l <= n && !memcmp(s, *list, l))
			return l;
	}
	return 0;
}

static int in_list(const char *s, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && !memcmp(s, *list, n))
			return 1;
	return 0;
}

/* Case-insensitive (ASCII) version of in_list, for words taken from the text. */
static int in_list_ci(const char *s, size_t n, const char *const *list)
{
	size_t k;
	for (; *list; list++) {
		if (strlen(*list) != n)
			continue;
		for (k = 0; k < n && lower((unsigned char)s[k]) == (unsigned char)(*list)[k]; k++)
			;
		if (k == n)
			return 1;
	}
	return 0;
}

/* Copy of s[a..b) with surrounding whitespace trimmed, inner whitespace runs collapsed to one
 * space (claims must be single-line) and markdown bold markers dropped. */
static char *clean_dup(const char *s, size_t a, size_t b)
{
	char *out = rag_xmalloc(b - a + 1);
	size_t o = 0, l;
	int pending_space = 0;

	while (a < b) {
		if ((l = space_len(s + a, b - a)) || s[a] == '\n') {
			pending_space = o > 0;
			a += l ? l : 1;
			continue;
		}
		if (b - a >= 2 && s[a] == '*' && s[a + 1] == '*') {
			a += 2;
			continue;
		}
		if (pending_space)
			out[o++] = ' ';
		pending_space = 0;
		out[o++] = s[a++];
	}
	out[o] = 0;
	return out;
}

/* Words of an English piece: byte ranges between spaces. */
struct words {
	size_t n, cap;
	size_t *a, *b;
};

static void words_split(const char *s, struct words *w)
{
	size_t i = 0, n = strlen(s), st;

	w->n = 0;
	while (i < n) {
		while (i < n && s[i] == ' ')
			i++;
		if (i >= n)
			break;
		st = i;
		while (i < n && s[i] != ' ')
			i++;
		if (w->n == w->cap) {
			w->cap = w->cap ? w->cap * 2 : 32;
			w->a = rag_xrealloc(w->a, w->cap * sizeof *w->a);
			w->b = rag_xrealloc(w->b, w->cap * sizeof *w->b);
		}
		w->a[w->n] = st;
		w->b[w->n++] = i;
	}
}

static void words_free(struct words *w)
{
	free(w->a);
	free(w->b);
}

/* Word k without the punctuation around it (quotes, commas, a final period...). */
static void word_core(const char *s, const struct words *w, size_t k, size_t *a, size_t *b)
{
	static const char punct[] = ",.;:!?\"'()[]";
	*a = w->a[k], *b = w->b[k];
	while (*a < *b && strchr(punct, s[*a]))
		(*a)++;
	while (*b > *a && strchr(punct, s[*b - 1]))
		(*b)--;
}

static int word_is(const char *s, const struct words *w, size_t k, const char *const *list)
{
	size_t a, b;
	if (k >= w->n)
		return 0;
	word_core(s, w, k, &a, &b);
	return in_list_ci(s + a, b - a, list);
}

/* Counts used to decide whether a piece is long enough to be a claim of its own. */
static void piece_size(const char *s, size_t a, size_t b, size_t *words, size_t *cjk)
{
	int in_word = 0;
	long c;

	*words = *cjk = 0;
	while (a < b) {
		a += rag_utf8_decode(s + a, b - a, &c);
		if (rag_text_is_cjk(c)) {
			(*cjk)++;
			in_word = 0;
		} else if (c < 128 && (is_lower(c) || is_upper(c) || is_digit(c))) {
			if (!in_word)
				(*words)++;
			in_word = 1;
		} else if (c > 127 && c != 0x3000 &&   /* a decoded code point fits in int32 */
		           utf8proc_category((utf8proc_int32_t)c) <= UTF8PROC_CATEGORY_ND) {
			if (!in_word)
				(*words)++;
			in_word = 1;
		} else {
			in_word = 0;
		}
	}
}

/* Too short to stand as a claim: fewer than 3 words, or 4 characters of CJK text. */
static int too_short(const char *s, size_t a, size_t b)
{
	size_t words, cjk;
	piece_size(s, a, b, &words, &cjk);
	return cjk ? cjk + words < 4 : words < 3;
}

/* ---------------------------------------------------------------- sentences */

static const char *const cjk_enders[] = { "。", "！", "？", "…", NULL };
static const char *const closers[] = {
	"\"", "'", ")", "]", "”", "’", "」", "』", "）", "》", NULL,
};
/* Abbreviations after which a period never ends a sentence. */
static const char *const abbrev_always[] = {
	"dr", "mr", "mrs", "ms", "prof", "st", "mt", "gen", "gov", "sen", "rep", "rev", "capt",
	"col", "lt", "sgt", "e.g", "i.e", "cf", "vs", "fig", "approx", "ca", "vol", "pp", "ft", NULL,
};
/* Abbreviations that end a sentence only when a typical sentence start follows. */
static const char *const abbrev_maybe[] = {
	"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "jr",
	"sr", "etc", "inc", "ltd", "co", "corp", "al", "no", NULL,
};
static const char *const starters[] = {
	"the", "a", "an", "it", "he", "she", "they", "this", "that", "these", "those", "there", "we",
	"i", "in", "on", "at", "his", "her", "its", "their", "our", "however", "but", "and", "as",
	"after", "before", "when", "while", "also", "some", "many", "most", "during", "from", "for",
	"since", "although", "because", "if", "today", "later", "then", "you", NULL,
};

/* Whether the period at s[dot] (followed by whitespace, next word at s[next]) ends a sentence. */
static int period_ends(const char *s, size_t n, size_t start, size_t dot, size_t next)
{
	size_t ws = dot, e;
	int c = next < n ? (unsigned char)s[next] : 0;

	if (is_lower(c))
		return 0;                   /* "approx. five", "etc. and" */
	while (ws > start && s[ws - 1] != ' ' && s[ws - 1] != '(' && s[ws - 1] != '"' &&
	       s[ws - 1] != '\n' && s[ws - 1] != '\t')
		ws--;
	if (dot - ws == 1 && is_upper((unsigned char)s[ws]))
		return 0;                   /* an initial: "J. K. Rowling" */
	if (in_list_ci(s + ws, dot - ws, abbrev_always))
		return 0;
	if (memchr(s + ws, '.', dot - ws) || in_list_ci(s + ws, dot - ws, abbrev_maybe)) {
		/* "U.S.", "a.m.", "Jan.": ends only before e.g. "He", "The" */
		for (e = next; e < n && (is_lower(s[e]) || is_upper(s[e])); e++)
			;
		return is_upper(c) && in_list_ci(s + next, e - next, starters);
	}
	return 1;
}

/* Skip a list marker at the start of a line: "- ", "* ", "• ", "1. ", "2) ", "## ". */
static size_t skip_marker(const char *s, size_t n, size_t i)
{
	size_t j = i, k, l;

	while (j < n && (l = space_len(s + j, n - j)))
		j += l;
	k = j;
	if (k < n && (s[k] == '-' || s[k] == '*' || s[k] == '+') && !(k + 1 < n && s[k + 1] == '*'))
		k++;
	else if (n - k >= 3 && !memcmp(s + k, "•", 3))
		k += 3;
	else if (k < n && s[k] == '#') {
		while (k < n && s[k] == '#')
			k++;
	} else if (k < n && is_digit((unsigned char)s[k])) {
		while (k < n && k - j < 3 && is_digit((unsigned char)s[k]))
			k++;
		if (k < n && (s[k] == '.' || s[k] == ')'))
			k++;
		else if (n - k >= 3 && !memcmp(s + k, "、", 3))
			k += 3;
		else
			return j;
	} else {
		return j;
	}
	if (k < n && (l = space_len(s + k, n - k)))
		return k + l;
	if (k > j && n - k >= 3 && (unsigned char)s[k] >= 0xE0)   /* "1、长城..." needs no space */
		return k;
	return j;
}

static void push_sentence(rag_strv *out, const char *s, size_t a, size_t b)
{
	char *t = clean_dup(s, a, b);
	if (*t)
		rag_strv_push(out, t);
	else
		free(t);
}

/* Whether s[a..b), trailing blanks and closing marks aside, ends as a sentence does. */
static int ends_sentence(const char *s, size_t a, size_t b)
{
	while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r' || s[b - 1] == '*'))
		b--;
	if (b > a && strchr(".!?", s[b - 1]))
		return 1;
	return b - a >= 3 && starts_with_any(s + b - 3, 3, cjk_enders);
}

/* Whether the line s[a..b) is a Markdown table's separator row: |, -, : and blanks, a - at least. */
static int table_rule(const char *s, size_t a, size_t b)
{
	int dash = 0;
	for (; a < b; a++) {
		if (s[a] == '-')
			dash = 1;
		else if (!strchr("|: \t\r", s[a]))
			return 0;
	}
	return dash;
}

/* Layout at the start of the line s[i..e): a table row or a heading is a unit of its own, never
 * merged into a sentence or cut inside (a "No" cell, a heading "Speed, not size" belong to no
 * sentence around them). In answers (markers) a title is no claim and is dropped: a # heading, a
 * bold line, a bold label before its text ("**Speed, not size**: The chip..."), a table's
 * header row and its separator row; contexts keep them all as sentences. Returns where the
 * line's text goes on, e when nothing is left of it. */
static size_t line_layout(const char *s, size_t n, size_t i, size_t e, rag_strv *out, int markers)
{
	size_t h = i, c, r, l;
	const char *q;

	while (h < e && (l = space_len(s + h, e - h)))
		h += l;
	if (h < e && s[h] == '|') {
		for (r = e + 1; r < n && (l = space_len(s + r, n - r)); r += l)
			;
		if (!markers || !(table_rule(s, h, e) ||
		                  (r < n && s[r] == '|' && table_rule(s, r, (size_t)(strchrnul(s + r, '\n') - s)))))
			push_sentence(out, s, h, e);
		return e;
	}
	if (markers) {
		i = skip_marker(s, n, i);
		if (h < e && s[h] == '#' && !ends_sentence(s, i, e))
			return e;
	}
	if (e - i > 4 && s[i] == '*' && s[i + 1] == '*' && s[i + 2] != '*' &&
	    (q = memmem(s + i + 2, e - i - 2, "**", 2)) && (c = (size_t)(q - s)) > i + 2 &&
	    !ends_sentence(s, i + 2, c)) {
		for (r = c + 2; r < e && (s[r] == ':' || s[r] == ' ' || s[r] == '-' || (l = space_len(s + r, e - r)));
		     r += (s[r] == ':' || s[r] == ' ' || s[r] == '-') ? 1 : l)
			;
		if (e - r >= 3 && !memcmp(s + r, "：", 3))
			r += 3;
		if (!markers)
			push_sentence(out, s, i, c + 2);
		return r;
	}
	return i;
}

void rag_offline_sentences(const char *s, rag_strv *out, int markers)
{
	size_t n = strlen(s), i = 0, start = 0, j, l, next;
	int line_start = 1;

	while (i < n) {
		if (line_start) {
			i = start = line_layout(s, n, i, (size_t)(strchrnul(s + i, '\n') - s), out, markers);
			line_start = 0;
			continue;
		}
		if (s[i] == '\n') {
			push_sentence(out, s, start, i);
			i++;
			line_start = 1;
			continue;
		}
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') {
			for (j = i; j < n && (s[j] == '.' || s[j] == '!' || s[j] == '?'); j++)
				;
			while (j < n && (l = starts_with_any(s + j, n - j, closers)))
				j += l;
			if (j < n && !space_len(s + j, n - j) && s[j] != '\n' && (unsigned char)s[j] < 0x80) {
				i = j;              /* "3.5", "e.g.x", "a.m.," */
				continue;
			}
			for (next = j; next < n && (l = space_len(s + next, n - next)); next += l)
				;
			if (s[i] == '.' && j == i + 1 && !period_ends(s, n, start, i, next)) {
				i = j;
				continue;
			}
			push_sentence(out, s, start, j);
			i = start = j;
			continue;
		}
		if ((unsigned char)s[i] >= 0xE2 && (l = starts_with_any(s + i, n - i, cjk_enders))) {
			for (j = i + l; j < n; j += l) {
				if (!(l = starts_with_any(s + j, n - j, cjk_enders)) &&
				    !(l = starts_with_any(s + j, n - j, closers)) && s[j] != '!' && s[j] != '?')
					break;
				if (!l)
					l = 1;
			}
			push_sentence(out, s, start, j);
			i = start = j;
			continue;
		}
		i++;
	}
	push_sentence(out, s, start, n);
}

/* ---------------------------------------------------------------- filters */

/* A comparison key: case-folded, punctuation turned into single spaces, trimmed. */
static char *text_key(const char *s)
{
	char *norm = rag_text_normalize(s), *p;
	rag_buf out = { 0 };
	size_t n, i = 0, l;
	long c;
	utf8proc_category_t k;
	int space = 0;

	if (!norm)
		return rag_xstrdup("");
	n = strlen(norm);
	while (i < n) {
		l = rag_utf8_decode(norm + i, n - i, &c);
		k = utf8proc_category((utf8proc_int32_t)c);   /* a decoded code point fits in int32 */
		if (k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_NO) {
			if (space && out.len)
				rag_buf_add(&out, " ", 1);
			space = 0;
			rag_buf_add(&out, norm + i, l);
		} else {
			space = 1;
		}
		i += l;
	}
	free(norm);
	p = out.p ? out.p : rag_xstrdup("");
	return p;
}

static const char *const greetings[] = {
	"hi", "hello", "hey", "hi there", "hello there", "greetings", "sure", "certainly",
	"of course", "okay", "ok", "yes", "no", "absolutely", "great question", "good question",
	"thank you", "thanks", "you re welcome", "you are welcome", "happy to help", "glad to help",
	"i hope this helps", "hope this helps", "hope that helps", "i hope that helps",
	"here is the answer", "here s the answer", "here is what i found", "let me explain",
	"good luck", "你好", "您好", "好的", "当然", "没问题", "谢谢", "是的", "不是",
	"希望对你有帮助", "希望对您有帮助", "希望这对你有帮助", "希望这对您有帮助",
	"希望这对您有所帮助", "希望能帮到你", "希望能帮到您", NULL,
};
static const char *const filler_prefixes[] = {
	"let me know", "feel free", "if you have any", "if you need", "is there anything",
	"i hope this", "i hope that", "hope this", "hope that", "please let me know",
	"如果你还有", "如果您还有", "如有其他", "如果还有", "希望这", "希望以上", "希望对", "希望能",
	NULL,
};
/* share/refusals.txt, the one list of refusal phrasings (rag-revq reads it too), made into C
 * strings by the Makefile. */
static const char *const refusals[] = {
#include "refusals.inc"
	NULL,
};
/* Politeness that is no refusal, but no claim either: the sentence that holds it is dropped. */
static const char *const apologies[] = {
	"as an ai", "i m sorry", "i am sorry", "i apologize", "抱歉", "对不起", NULL,
};
/* "The context does not mention X": a source word and a not-saying phrase together. */
static const char *const sources[] = {
	"context", "contexts", "document", "documents", "passage", "passages", "provided text",
	"the text", "provided information",
	"information provided", "given information", "the sources", "provided sources",
	"上下文", "文中", "文档", "资料", "材料", "提供的信息", "所给信息", NULL,
};
/* "t mention" is the tail of "doesn't mention" once the apostrophe became a space. An adverb
 * between ("does not explicitly mention") is dropped before these are looked for. */
static const char *const not_saying[] = {
	"not mention", "t mention", "not provide", "t provide", "not contain", "t contain",
	"not specify", "t specify", "not say", "t say", "not include", "t include", "not state",
	"t state", "not give", "t give", "not discuss", "t discuss", "not answer", "t answer",
	"not address", "t address", "not mentioned", "not provided", "not specified", "not stated",
	"not given", "no information", "no mention", "no details", "not clear", "unclear",
	"未提及", "未提到", "没有提到", "没有提及", "未说明", "没有说明", "未给出", "没有给出",
	"未提供", "没有提供", "并未", "并没有", NULL,
};
/* Adverbs that hedge a not-saying verb: "is not explicitly mentioned in the context". */
static const char *const hedges[] = {
	"explicitly", "directly", "specifically", "clearly", "exactly", "precisely", "actually",
	"really", "further", NULL,
};

/* Whether key (from text_key) holds phrase as whole words; CJK phrases match anywhere, since
 * CJK text has no spaces. */
static int has_phrase(const char *key, const char *phrase, int anywhere)
{
	size_t l = strlen(phrase);
	const char *p = key;
	int cjk = (unsigned char)phrase[0] >= 0x80;

	while ((p = strstr(p, phrase))) {
		if (cjk || ((p == key || p[-1] == ' ') && (!p[l] || p[l] == ' ')))
			return 1;
		if (!anywhere)
			return 0;
		p++;
	}
	return 0;
}

static int contains_any(const char *key, const char *const *list)
{
	for (; *list; list++)
		if (has_phrase(key, *list, 1))
			return 1;
	return 0;
}

static int has_pair(const unsigned char *pairs, char a, char b)
{
	unsigned pr = (unsigned)(unsigned char)a << 8 | (unsigned char)b;
	return pairs[pr >> 3] & (1u << (pr & 7));
}

/* contains_any for phrases as people write them ("i don't know"): each is put in key form first,
 * its ASCII punctuation read as spaces. The phrases are short; a longer one is never matched. */
static int contains_any_written(const char *key, const char *const *list)
{
	char buf[256];
	size_t o;
	const char *p;
	unsigned char pairs[256 * 256 / 8] = { 0 };   /* the byte pairs of key */

	/* a phrase with a byte pair key lacks is not in it: most sentences rule out most phrases
	 * (share/refusals.txt's hundred) without a search */
	for (p = key; p[0] && p[1]; p++) {
		unsigned pr = (unsigned char)p[0] << 8 | (unsigned char)p[1];
		pairs[pr >> 3] |= (unsigned char)(1u << (pr & 7));
	}
	for (; *list; list++) {
		int lacks = 0;      /* the phrase has a byte pair that key lacks: looked at as it is made */
		for (o = 0, p = *list; *p && o + 1 < sizeof buf && !lacks; p++) {
			unsigned char c = (unsigned char)*p;
			if (c < 0x80 && !is_lower(c) && !is_digit(c)) {
				if (o && buf[o - 1] != ' ')
					buf[o++] = ' ';
			} else {
				/* the pair this byte ends, and the one a space before it ends (a space at
				 * the end, which goes, ends none that counts) */
				lacks = (o && !has_pair(pairs, buf[o - 1], (char)c)) ||
				        (o >= 2 && buf[o - 1] == ' ' && !has_pair(pairs, buf[o - 2], ' '));
				buf[o++] = (char)c;
			}
		}
		if (lacks)
			continue;
		while (o && buf[o - 1] == ' ')
			o--;
		buf[o] = 0;
		if (!*p && o && has_phrase(key, buf, 1))
			return 1;
	}
	return 0;
}

/* key without the words of list */
static char *drop_words(const char *key, const char *const *list)
{
	struct words w = { 0 };
	rag_buf b = { 0 };
	size_t k;

	words_split(key, &w);
	for (k = 0; k < w.n; k++) {
		if (in_list(key + w.a[k], w.b[k] - w.a[k], list))
			continue;
		if (b.len)
			rag_buf_add(&b, " ", 1);
		rag_buf_add(&b, key + w.a[k], w.b[k] - w.a[k]);
	}
	words_free(&w);
	return b.p ? b.p : rag_xstrdup("");
}

static int starts_any(const char *key, const char *const *list)
{
	for (; *list; list++)
		if (!strncmp(key, *list, strlen(*list)) && has_phrase(key, *list, 0))
			return 1;
	return 0;
}

/* A sentence ending in a question mark (perhaps inside quotes) asks rather than claims. */
static int is_question(const char *sent)
{
	size_t n = strlen(sent), k, l;

	while (n > 0) {             /* look past closing quotes */
		k = n;
		while (k > 0 && ((unsigned char)sent[k - 1] & 0xC0) == 0x80)
			k--;
		if (k > 0)
			k--;
		l = starts_with_any(sent + k, n - k, closers);
		if (!l || l != n - k)
			break;
		n = k;
	}
	return (n > 0 && sent[n - 1] == '?') || (n >= 3 && !memcmp(sent + n - 3, "？", 3));
}

/* Words that talk about the text itself, as the Snowball stems rag_text_tokens makes of them:
 * "Here is a concise summary of the passage", "Covering the core pieces of information", "Key
 * points include", "As described in the context". A sentence of nothing else frames an answer
 * and claims nothing a context could hold. Sorted. */
static const char *const framing_stems[] = {
	"abov", "accord", "answer", "base", "below", "brief", "concis", "context", "core", "cover",
	"describ", "detail", "document", "follow", "given", "highlight", "includ", "inform", "key",
	"main", "mention", "overview", "passag", "piec", "point", "provid", "question", "source",
	"state", "summar", "summari", "text",
};

static int cmp_stem(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* English text whose every content word is a framing word (framing_stems); key is its
 * text_key. A stem, less the i that Snowball writes for a final y, begins the word it comes
 * from: text without any of them as a substring has none, and is not tokenized. */
static int is_framing(const char *s, const char *key)
{
	jv toks;
	int i, n, all;
	char pre[16];

	for (i = 0; i < (int)(sizeof framing_stems / sizeof *framing_stems); i++) {
		size_t l = strlen(framing_stems[i]);
		if (l >= sizeof pre)
			break;
		memcpy(pre, framing_stems[i], l + 1);
		if (l > 3 && pre[l - 1] == 'i')
			pre[l - 1] = 0;
		if (strstr(key, pre))
			break;
	}
	if (i == (int)(sizeof framing_stems / sizeof *framing_stems))
		return 0;
	toks = rag_text_tokens(s);
	n = jv_array_length(jv_copy(toks));
	all = n > 0;

	for (i = 0; i < n && all; i++) {
		jv t = jv_array_get(jv_copy(toks), i);
		const char *k = jv_string_value(t);
		all = bsearch(&k, framing_stems, sizeof framing_stems / sizeof *framing_stems,
		              sizeof *framing_stems, cmp_stem) != NULL;
		jv_free(t);
	}
	jv_free(toks);
	return all;
}

/* Text that carries no claim: refusals, greetings, fillers, framing, bare punctuation. */
static int is_noise(const char *s)
{
	char *key = text_key(s), *plain;
	int noise = !*key || in_list(key, strlen(key), greetings) || starts_any(key, filler_prefixes) ||
	            contains_any_written(key, refusals) || contains_any(key, apologies) || is_framing(s, key);

	if (!noise && contains_any(key, sources)) {
		plain = drop_words(key, hedges);
		noise = contains_any(plain, not_saying);
		free(plain);
	}
	free(key);
	return noise;
}

/* Drop interjections and framing that open a sentence: "Sure, ...", "Based on the context, ...",
 * "此外，...". The rest starts with a capital letter. */
static char *skip_interjection(char *s)
{
	static const char *const words[] = {
		"sure", "yes", "no", "well", "certainly", "of course", "absolutely", "okay", "ok",
		"however", "moreover", "furthermore", "additionally", "in addition", "also", "besides",
		"overall", "in summary", "in short", "in conclusion", "based on the context",
		"based on the provided context", "based on the provided information",
		"based on the information provided", "according to the context",
		"according to the provided context", "according to the documents",
		"according to the provided information", "according to the passage",
		"according to the provided passage", "according to the document",
		"according to the text", "in the passage", "in the provided passage",
		"in the context", "in the provided context", "based on the passage",
		"based on the provided passage", "based on the document", "based on the text",
		"as described in the passage", "as described in the context", "as stated in the passage",
		"as stated in the context", "as mentioned in the passage", "as mentioned in the context",
		"好的", "当然", "是的", "嗯", "此外", "另外",
		"同时", "而且", "但是", "然而", "总之", "总的来说", "根据上下文", "根据提供的信息",
		"根据提供的上下文", "根据资料", "根据文中信息", NULL,
	};
	static const char *const seps[] = { ", ", "! ", "，", "！", NULL };
	const char *const *w;
	char *start = s;
	size_t l, m;
	int again = 1;

	while (again) {                 /* "Sure, based on the context, ..." */
		again = 0;
		for (w = words; *w && !again; w++) {
			l = strlen(*w);
			if (strlen(s) > l && in_list_ci(s, l, (const char *const[]){ *w, NULL }) &&
			    (m = starts_with_any(s + l, strlen(s + l), seps))) {
				s += l + m;
				while (*s == ' ')
					s++;
				again = 1;
			}
		}
	}
	if (s != start && is_lower((unsigned char)*s))
		*s = (char)(*s - 32);
	return s;
}

/* Drop a framing lead before a colon: "Key points include: The bridge opened in 1932." (every
 * word of the lead a framing word, is_framing), "以下是总结：大桥于1932年通车。" (a Chinese lead
 * that starts with 以下, 总结, 要点 or 概括, or ends with 如下). The rest starts with a capital
 * letter. */
static char *skip_framing(char *s)
{
	static const char *const zh_lead[] = { "以下", "总结", "要点", "概括", NULL };
	char *c = strstr(s, ": "), *z = strstr(s, "：");
	char *lead, *rest;
	int framing;

	if (z && (!c || z < c)) {
		lead = rag_xstrndup(s, (size_t)(z - s));
		rest = z + strlen("：");
		framing = starts_with_any(lead, strlen(lead), zh_lead) ||
		          (strlen(lead) >= 6 && !strcmp(lead + strlen(lead) - 6, "如下"));
	} else if (c) {
		char *key;
		lead = rag_xstrndup(s, (size_t)(c - s));
		rest = c + 2;
		key = text_key(lead);
		framing = is_framing(lead, key);
		free(key);
	} else {
		return s;
	}
	free(lead);
	while (*rest == ' ')
		rest++;
	if (!framing || !*rest)
		return s;
	if (is_lower((unsigned char)*rest))
		*rest = (char)(*rest - 32);
	return rest;
}

/* ---------------------------------------------------------------- clauses */

static const char *const en_conj[] = { "and", "but", "while", "whereas", "yet", "although", NULL };
static const char *const en_subject_pron[] = { "he", "she", "it", "they", "we", "i", NULL };
static const char *const en_pronouns[] = { "it", "he", "she", "they", "this", NULL };
static const char *const en_subject_det[] = {
	"this", "these", "there", "its", "his", "her", "their", "the", "a", "an", NULL,
};
static const char *const en_aux[] = {
	"is", "was", "are", "were", "has", "had", "have", "will", "would", "can", "could", "did",
	"does", "do", "became", "becomes", "remains", "remained", "may", "might", "must", "should",
	"shall", NULL,
};
static const char *const zh_conj[] = {
	"而且", "并且", "但是", "同时", "此外", "另外", "然而", "因此", "所以", "不过", "但", NULL,
};
static const char *const zh_pron[] = { "它们", "他们", "她们", "它", "他", "她", "这", NULL };

/* Does the clause starting at word k look like it has its own subject and verb? */
static int clause_has_subject(const char *s, const struct words *w, size_t k)
{
	size_t a, b, j;

	if (k >= w->n)
		return 0;
	if (word_is(s, w, k, en_subject_pron))
		return 1;
	word_core(s, w, k, &a, &b);
	if (!word_is(s, w, k, en_subject_det) && !(a < b && is_upper((unsigned char)s[a])))
		return 0;
	/* a determiner or a name must be followed by a verb within a few words */
	for (j = k + 1; j < w->n && j <= k + 5; j++) {
		word_core(s, w, j, &a, &b);
		if (word_is(s, w, j, en_aux) || (b - a > 3 && !memcmp(s + b - 2, "ed", 2)))
			return 1;
	}
	return 0;
}

struct cut {
	size_t end;      /* the first piece ends here */
	size_t resume;   /* the second piece starts here */
	int zh;          /* the second piece may lack its subject. Chinese: 1 after a conjunction,
	                  * 2 after a bare comma, where only an adverb or auxiliary shows it;
	                  * 3: English, "and" + auxiliary */
};

/* A Chinese clause that opens with one of these is a condition or a cause: the comma after it
 * leads to the clause it qualifies, which is no claim without it. */
static const char *const zh_subordinators[] = {
	"如果", "假如", "要是", "若", "只要", "只有", "除非", "即使", "虽然", "尽管", "因为", "由于",
	"一旦", "当", NULL,
};

/* Whether the comma at s[i] separates Chinese clauses: "，", or "," between CJK characters.
 * "、" never does: it joins the items of one list (苹果、香蕉和橙子), no piece of which is a
 * claim. */
static int zh_comma(const char *s, size_t n, size_t i)
{
	size_t p = i;
	long c;

	if (n - i >= 3 && !memcmp(s + i, "，", 3))
		return 1;
	if (s[i] != ',' || i == 0 || i + 1 >= n)
		return 0;
	while (p > 0 && ((unsigned char)s[p - 1] & 0xC0) == 0x80)
		p--;
	if (p > 0)
		p--;
	rag_utf8_decode(s + p, i - p, &c);
	if (!rag_text_is_cjk(c))
		return 0;
	rag_utf8_decode(s + i + 1, n - i - 1, &c);
	return rag_text_is_cjk(c);
}

static const char *const en_relative[] = { "which", "who", "whom", "whose", "where", NULL };
/* what opens a clause or phrase after a comma that adds a fact of its own */
static const char *const en_adjuncts[] = {
	"with", "as", "after", "before", "when", "because", "since", "though", "until", "including",
	"following", NULL,
};

/* Word k is an -ing participle ("winning", "being"), not a noun such as "thing" or "morning". */
static int is_participle(const char *s, const struct words *w, size_t k)
{
	static const char *const not_participles[] = {
		"thing", "things", "something", "anything", "nothing", "everything", "morning", "evening",
		"king", "ring", "spring", "string", "wing", "ceiling", "building", "during", "including",
		"according", "regarding", "concerning", "following", NULL,
	};
	size_t a, b;

	word_core(s, w, k, &a, &b);
	return b - a > 5 && !memcmp(s + b - 3, "ing", 3) && is_lower((unsigned char)s[a]) &&
	       !word_is(s, w, k, not_participles);
}

/* Candidate cut points inside an English or Chinese clause. */
static size_t find_cuts(const char *s, struct cut *cuts, size_t max)
{
	size_t n = strlen(s), nc = 0, i, k, l, b, clause;
	struct words w = { 0 };

	words_split(s, &w);
	for (k = 1; k + 1 < w.n && nc < max; k++) {
		b = w.b[k - 1];
		/* a clause that adds a fact of its own to a complete one: a non-restrictive relative
		 * clause (", which was...", ", where she..."), a participle phrase (", winning the
		 * final...", ", being appointed..."), a dash ("... 2004 – the election day") */
		if (s[b - 1] == ',' && k >= 4 &&
		    (word_is(s, &w, k, en_relative) || word_is(s, &w, k, en_adjuncts) ||
		     (is_participle(s, &w, k) && !is_participle(s, &w, k - 1)))) {
			cuts[nc++] = (struct cut){ b - 1, w.a[k], 0 };
			continue;
		}
		/* "... born in New York and is of Chinese descent": a second predicate of the subject */
		if (k >= 3 && s[b - 1] != ',' && word_is(s, &w, k, (const char *const[]){ "and", "but", NULL }) &&
		    word_is(s, &w, k + 1, en_aux)) {
			cuts[nc++] = (struct cut){ b, w.a[k + 1], 3 };
			continue;
		}
		if (k >= 3 && (in_list(s + w.a[k], w.b[k] - w.a[k], (const char *const[]){ "–", "—", "--", NULL }))) {
			cuts[nc++] = (struct cut){ b, w.a[k + 1], 0 };
			continue;
		}
		if (!word_is(s, &w, k, en_conj))
			continue;
		b = w.b[k - 1];
		if (s[b - 1] == ',' && (clause_has_subject(s, &w, k + 1) ||
		                        !word_is(s, &w, k, (const char *const[]){ "and", NULL })))
			cuts[nc++] = (struct cut){ b - 1, w.a[k + 1], 0 };       /* ", and he ...", ", but lost" */
		else if (in_list_ci(s + w.a[k], w.b[k] - w.a[k], (const char *const[]){ "and", NULL }) &&
		         word_is(s, &w, k + 1, en_subject_pron))
			cuts[nc++] = (struct cut){ b, w.a[k + 1], 0 };           /* "... and he ..." */
	}
	for (i = 0, clause = 0; i < n && nc < max; i++) {
		if (!(l = starts_with_any(s + i, n - i, (const char *const[]){ "，", ",", "；", ";", NULL })))
			continue;
		k = i + l;
		if (s[i] == ';' || (l == 3 && !memcmp(s + i, "；", 3))) {
			clause = k;             /* split_clauses cuts there */
			continue;
		}
		while (k < n && s[k] == ' ')
			k++;
		if ((l = starts_with_any(s + k, n - k, zh_conj)))
			cuts[nc++] = (struct cut){ i, k + l, 1 };
		else if (starts_with_any(s + k, n - k, zh_pron))
			cuts[nc++] = (struct cut){ i, k, 0 };
		else if (zh_comma(s, n, i) && !starts_with_any(s + clause, n - clause, zh_subordinators))
			cuts[nc++] = (struct cut){ i, k, 2 };   /* 7天内可以退货，运费由买家承担 */
		clause = k;
	}
	words_free(&w);
	return nc;
}

static int cut_cmp(const void *x, const void *y)
{
	const struct cut *a = x, *b = y;
	return (a->end > b->end) - (a->end < b->end);
}

/* Push s[a..b) as a claim; a piece that starts after a cut gets a capital letter. */
static void push_piece(rag_strv *out, const char *s, size_t a, size_t b)
{
	char *t;
	size_t l;

	while (a < b && (l = space_len(s + a, b - a)))
		a += l;
	/* a piece cut out of a sentence does not keep the comma or semicolon before the cut */
	for (;;) {
		while (b > a && s[b - 1] == ' ')
			b--;
		if (b > a && (s[b - 1] == ',' || s[b - 1] == ';' || s[b - 1] == ':'))
			b--;
		else if (b - a >= 3 && (!memcmp(s + b - 3, "，", 3) || !memcmp(s + b - 3, "；", 3) ||
		                        !memcmp(s + b - 3, "：", 3) || !memcmp(s + b - 3, "、", 3)))
			b -= 3;
		else
			break;
	}
	if (a >= b)
		return;
	t = rag_xstrndup(s + a, b - a);
	if (a > 0 && is_lower((unsigned char)t[0]))
		t[0] = (char)(t[0] - 32);
	rag_strv_push(out, t);
}

static char *claim_subject(const char *c);

/* 年度会员可享受九折优惠，并且可以免费退换货: the piece after 并且 starts with its verb and
 * borrows the sentence's subject, found where the same verb character starts in the sentence
 * (年度会员|可享受) or else before its first verb (年度会员可以免费退换货). */
static void carry_subject(rag_strv *out, const char *sentence, int how)
{
	static const char *const predicate_start[] = {
		"可", "能", "会", "也", "还", "都", "就", "已", "将", "是", "有", "被", "在", "为", "要",
		"位于", NULL,
	};
	/* after a bare comma, 有效期一年 is a new subject: only these start a predicate there */
	static const char *const adverb_start[] = {
		"也", "还", "都", "就", "又", "并", "已经", "可以", "能够", "将会", "位于", "被", "曾", NULL,
	};
	char *last = out->v[out->n - 1], *subj = NULL;
	const char *p;
	size_t l, i, cl;
	long c;

	if (how == 3) {
		/* "Chen was born in Ohio and is of Chinese descent": the words of the first piece
		 * before its first auxiliary or -ed verb, when that comes early */
		struct words w = { 0 };
		size_t k, a, b;
		const char *first = out->v[out->n - 2];

		words_split(first, &w);
		for (k = 1; k < w.n && k <= 5; k++) {
			word_core(first, &w, k, &a, &b);
			if (word_is(first, &w, k, en_aux) || (b - a > 3 && !memcmp(first + b - 2, "ed", 2)))
				break;
			if (b < w.b[k])
				k = w.n;            /* punctuation: not a plain subject */
		}
		if (k < w.n && k <= 5) {
			word_core(first, &w, k - 1, &a, &b);
			subj = rag_xstrndup(first, b);
		}
		words_free(&w);
		if (!subj)
			return;
		out->v[out->n - 1] = rag_xasprintf("%s %c%s", subj, lower((unsigned char)last[0]), last + 1);
		free(last);
		free(subj);
		return;
	}
	if (!(l = starts_with_any(last, strlen(last), how == 2 ? adverb_start : predicate_start)))
		return;
	if ((p = strstr(sentence, last)) && p > sentence) {
		/* the same verb character earlier in the sentence, before the piece itself */
		char *v = rag_xstrndup(last, 3);
		const char *q = strstr(sentence, v);
		free(v);
		if (q && q < p && q > sentence) {
			for (i = 0; i < (size_t)(q - sentence); i += cl) {
				cl = rag_utf8_decode(sentence + i, (size_t)(q - sentence) - i, &c);
				if (!rag_text_is_cjk(c))
					break;
			}
			if (i == (size_t)(q - sentence) && i <= 24)
				subj = rag_xstrndup(sentence, i);
		}
	}
	if (!subj && !(subj = claim_subject(sentence)))
		return;
	out->v[out->n - 1] = rag_xasprintf("%s%s", subj, last);
	free(last);
	free(subj);
}

/* Split at ; and ；, then at coordinated clauses; a piece too short to stand alone stays joined. */
static void split_clauses(const char *s, rag_strv *out)
{
	struct cut cuts[64];
	size_t n = strlen(s), nc = 0, i, l, from, k;
	int zh_carry = 0;

	for (i = 0; i < n && nc < 32; i += l) {
		l = starts_with_any(s + i, n - i, (const char *const[]){ ";", "；", NULL });
		if (l)
			cuts[nc++] = (struct cut){ i, i + l, 0 };
		else
			l = 1;
	}
	nc += find_cuts(s, cuts + nc, 64 - nc);
	qsort(cuts, nc, sizeof *cuts, cut_cmp);
	from = 0;
	for (k = 0; k < nc; k++) {
		if (cuts[k].end < from || too_short(s, from, cuts[k].end) ||
		    too_short(s, cuts[k].resume, n))
			continue;
		push_piece(out, s, from, cuts[k].end);
		if (from > 0 && zh_carry)
			carry_subject(out, s, zh_carry);
		from = cuts[k].resume;
		zh_carry = cuts[k].zh;
	}
	push_piece(out, s, from, n);
	if (from > 0 && zh_carry)
		carry_subject(out, s, zh_carry);
}

static const char *const participles[] = {
	"born", "held", "built", "made", "won", "sold", "shot", "found", "bought", "hit", "set",
	"put", "run", "begun", "written", "given", "seen", "taken", "known", "buried", "laid", NULL,
};
static const char *const place_time_preps[] = { "in", "on", "at", NULL };

static int has_digit(const char *s, size_t a, size_t b)
{
	for (; a < b; a++)
		if (is_digit((unsigned char)s[a]))
			return 1;
	return 0;
}

/* "X was born in Ulm on 14 March 1879" is two facts; checking them apart lets a wrong date fail
 * on its own. Only for "<aux> <participle> in|on|at A in|on|at B" where exactly one of A and B
 * holds a number. Returns 1 and pushes two claims when it splits. */
static int split_place_time(const char *s, rag_strv *out)
{
	struct words w = { 0 };
	size_t i, k, a, b, e;
	int done = 0;

	words_split(s, &w);
	for (i = 1; i + 4 < w.n && !done; i++) {
		if (!word_is(s, &w, i, (const char *const[]){ "was", "were", "is", "are", NULL }))
			continue;
		word_core(s, &w, i + 1, &a, &b);
		if (!(word_is(s, &w, i + 1, participles) ||
		      (b - a > 3 && is_lower((unsigned char)s[a]) &&
		       (!memcmp(s + b - 2, "ed", 2) || !memcmp(s + b - 2, "en", 2)))))
			continue;
		if (!word_is(s, &w, i + 2, place_time_preps))
			break;
		for (k = i + 4; k < w.n; k++)
			if (word_is(s, &w, k, place_time_preps))
				break;
		if (k >= w.n || k - (i + 3) > 4 || w.n - (k + 1) > 4)
			break;          /* a place or a date is a few words: "in Ulm", "on 14 March 1879" */
		if (has_digit(s, w.a[i + 2], w.b[k - 1]) == has_digit(s, w.a[k], strlen(s)))
			break;
		e = w.b[k - 1];
		while (e > w.a[i + 2] && (s[e - 1] == ',' || s[e - 1] == ' '))
			e--;
		rag_strv_push(out, rag_xasprintf("%.*s %.*s", (int)w.b[i + 1], s, (int)(e - w.a[i + 2]),
		                                 s + w.a[i + 2]));
		rag_strv_push(out, rag_xasprintf("%.*s %s", (int)w.b[i + 1], s, s + w.a[k]));
		done = 1;
	}
	words_free(&w);
	return done;
}

/* ---------------------------------------------------------------- subjects and pronouns */

static const char *const question_words[] = {
	"what", "who", "when", "where", "which", "how", "why", "whom", "whose", NULL,
};
static const char *const question_aux[] = {
	"is", "was", "are", "were", "does", "did", "do", "has", "have", "had", NULL,
};
static const char *const how_adjectives[] = {
	"tall", "old", "long", "big", "far", "large", "high", "deep", "heavy", "fast", "wide", NULL,
};
static const char *const trailing_verbs[] = {
	"born", "held", "built", "made", "founded", "located", "situated", "known", "called",
	"named", "do", "mean", "live", "die", "start", "begin", "end", "work", "play", "come", "go",
	"invent", "discover", "write", "win", "released", "published", "used", "like", "have", "be",
	"become", "happen", "take", "occur", "formed", "created", "place", "stand", "contain",
	/* adjectives that end a question as its predicate: "When is the museum open?" */
	"open", "closed", "available", "free", "famous", "popular", "important", "necessary",
	"possible", "true", "legal", "safe", NULL,
};
static const char *const not_subject_start[] = {
	"what", "who", "when", "where", "which", "how", "why", "tell", "describe", "explain", "give",
	"list", "name", "is", "are", "was", "were", "do", "does", "did", "can", "could", "please",
	"in", "on", "at", "the", "a", "an", "it", "he", "she", "they", "this", "that", "i", "we",
	"you", NULL,
};
static const char *const joiners[] = { "of", "the", "de", "von", "van", "la", "du", NULL };

/* First run of capitalised words, e.g. "Albert Einstein", "University of Oxford". */
static char *capitalised_phrase(const char *s, const struct words *w, size_t from)
{
	size_t k, a, b, first = (size_t)-1, last = 0, end;

	for (k = from; k < w->n; k++) {
		word_core(s, w, k, &a, &b);
		if (a < b && is_upper((unsigned char)s[a]) && !word_is(s, w, k, not_subject_start)) {
			if (first == (size_t)-1)
				first = k;
			last = k;
		} else if (first != (size_t)-1 && !(word_is(s, w, k, joiners) && k + 1 < w->n)) {
			break;
		}
		if (first != (size_t)-1 && b < w->b[k])
			break;          /* punctuation after the word ends the phrase */
	}
	if (first == (size_t)-1)
		return NULL;
	word_core(s, w, last, &a, &end);
	if (end >= 2 && !memcmp(s + end - 2, "'s", 2))
		end -= 2;
	else if (end >= 4 && !memcmp(s + end - 4, "\xE2\x80\x99s", 4))
		end -= 4;
	word_core(s, w, first, &a, &b);
	return rag_xstrndup(s + a, end - a);
}

/* Whether word k has a capital letter: "Einstein", "NASA", "iPhone". */
static int capitalised(const char *s, const struct words *w, size_t k)
{
	size_t a, b;

	if (k >= w->n || word_is(s, w, k, not_subject_start))
		return 0;
	for (word_core(s, w, k, &a, &b); a < b; a++)
		if (is_upper((unsigned char)s[a]))
			return 1;
	return 0;
}

/* The subject after do-support or a modal, "When did the Eiffel Tower open?". The verb after it is a bare
 * form that no list can tell from a noun ("open", "close", "reopen"), so the subject is read from
 * the front and never reaches the verb: a name (capitalised words, "of" between them), perhaps
 * after a determiner and a modifier or two ("the first Super Bowl"), else a determiner and the
 * words before the question's last word ("the new bridge"). A pronoun names nothing, and a
 * subject whose end is unsure is none either: NULL, and the claim stays as written. */
static char *do_subject(const char *q, const struct words *w, size_t k)
{
	static const char *const det[] = {
		"the", "a", "an", "this", "that", "these", "those", "his", "her", "its", "their", "my",
		"our", "your", NULL,
	};
	size_t j = k, c, end, a, b;

	if (word_is(q, w, k, en_subject_pron) || word_is(q, w, k, en_pronouns) ||
	    word_is(q, w, k, (const char *const[]){ "you", "that", "these", "those", NULL }))
		return NULL;
	if (word_is(q, w, j, det))
		j++;
	for (c = j; c < w->n && c <= j + 2 && !capitalised(q, w, c); c++)
		;
	if (c < w->n && c <= j + 2) {
		for (end = c; end + 1 < w->n; end++) {
			word_core(q, w, end, &a, &b);
			if (b < w->b[end])
				break;              /* punctuation ends the name */
			if (capitalised(q, w, end + 1))
				continue;
			if (end + 2 < w->n && word_is(q, w, end + 1, joiners) && capitalised(q, w, end + 2)) {
				end++;
				continue;
			}
			break;
		}
		word_core(q, w, end, &a, &b);
		if (b - a > 2 && !memcmp(q + b - 2, "'s", 2) && end + 2 < w->n)
			end++;                  /* "Einstein's father" */
	} else if (j > k && w->n - j >= 2 && w->n - j <= 3) {
		/* no name: only "the [modifier] noun verb?", where the verb is the question's last
		 * word; anything after the verb ("grow so fast?") leaves the boundary unknown */
		static const char *const adverbs[] = {
			"so", "very", "first", "last", "ever", "still", "really", "just", "finally",
			"actually", "eventually", "originally", "usually", "often", "now", NULL,
		};
		for (end = j; end + 1 < w->n - 1; end++)
			;
		for (c = j; c <= end; c++)
			if (word_is(q, w, c, adverbs))
				return NULL;
	} else {
		return NULL;
	}
	word_core(q, w, end, &a, &b);
	if (end + 1 >= w->n || b < w->b[end])
		return NULL;                /* no verb after it: not the shape assumed */
	word_core(q, w, k, &a, &c);
	return rag_xstrndup(q + a, b - a);
}

static char *en_question_subject(const char *q)
{
	struct words w = { 0 };
	size_t k = 1, last, a, b, x, e;
	char *subj = NULL;

	words_split(q, &w);
	if (w.n >= 3 && word_is(q, &w, 0, question_words)) {
		if (word_is(q, &w, 0, (const char *const[]){ "how", NULL }) &&
		    word_is(q, &w, 1, how_adjectives))
			k = 2;
		if (word_is(q, &w, 0, (const char *const[]){ "why", NULL }) || k + 1 >= w.n) {
			;
		} else if (word_is(q, &w, k, (const char *const[]){ "do", "does", "did", "will", "would",
		                                               "can", "could", "should", "may", "might", NULL })) {
			subj = do_subject(q, &w, k + 1);
		} else if (word_is(q, &w, k, question_aux)) {
			/* "When was the first Super Bowl held?": the subject ends before the verb or
			 * adjective that ends the question */
			last = w.n - 1;
			while (last > k + 1) {
				word_core(q, &w, last, &a, &b);
				if (!is_lower((unsigned char)q[a]) ||
				    !(word_is(q, &w, last, trailing_verbs) ||
				      (b - a > 3 && !memcmp(q + b - 2, "ed", 2))))
					break;
				last--;
			}
			if (last - k <= 8 && !word_is(q, &w, k + 1, en_subject_pron) &&
			    !word_is(q, &w, k + 1, en_pronouns) &&
			    !word_is(q, &w, k + 1, (const char *const[]){ "you", NULL })) {
				word_core(q, &w, k + 1, &a, &b);
				word_core(q, &w, last, &x, &e);
				if (a < e)
					subj = rag_xstrndup(q + a, e - a);
			}
		}
	}
	/* In "Who wrote Hamlet?" the capitalised phrase is not what the answer talks about. */
	if (!subj && !word_is(q, &w, 0, question_words))
		subj = capitalised_phrase(q, &w, 0);
	words_free(&w);
	return subj;
}

static char *zh_question_subject(const char *q)
{
	static const char *const lead[] = { "请问", "请告诉我", "你知道", "请介绍一下", "介绍一下", NULL };
	static const char *const markers[] = {
		"是什么", "是谁", "在哪", "是哪", "有多", "是多少", "位于哪", "什么时候", "何时",
		"为什么", "怎么", "如何", "多少", "哪", "什么", "谁", "几", NULL,
	};
	size_t n = strlen(q), l, best = n, i;
	const char *const *m;
	const char *p;
	long c;

	while ((l = starts_with_any(q, n, lead))) {
		q += l;
		n -= l;
	}
	for (m = markers; *m; m++)
		if ((p = strstr(q, *m)) && (size_t)(p - q) < best)
			best = (size_t)(p - q);
	if (best == 0 || best == n || best > 36)
		return NULL;
	for (i = 0; i < best; i += l) {      /* a subject is one phrase, without punctuation */
		l = rag_utf8_decode(q + i, best - i, &c);
		if (!rag_text_is_cjk(c) && !(c < 128 && (is_lower(c) || is_upper(c) || is_digit(c))))
			return NULL;
	}
	return rag_xstrndup(q, best);
}

static char *question_subject(const char *q)
{
	if (!q || !*q)
		return NULL;
	return !strcmp(rag_text_lang(q), "zh") ? zh_question_subject(q) : en_question_subject(q);
}

static const char *const zh_verbs[] = {
	"是", "位于", "在", "有", "为", "于", "被", "曾", "将", "出生", "成立", "建于", "发明", "发现",
	"属于", "拥有", "包括", NULL,
};

/* The subject a claim starts with, to stand in for a pronoun in the claims after it. */
static char *claim_subject(const char *c)
{
	struct words w = { 0 };
	size_t k, a, b, n = strlen(c), i, l;
	char *subj = NULL;
	long cp;

	rag_utf8_decode(c, n, &cp);
	if (rag_text_is_cjk(cp)) {
		if (starts_with_any(c, n, zh_pron))
			return NULL;
		for (i = 0; i < n && i <= 30; i += l) {
			if (starts_with_any(c + i, n - i, zh_verbs))
				return i ? rag_xstrndup(c, i) : NULL;
			l = rag_utf8_decode(c + i, n - i, &cp);
			if (!rag_text_is_cjk(cp))
				return NULL;
		}
		return NULL;
	}
	words_split(c, &w);
	if (w.n && !word_is(c, &w, 0, en_pronouns) && !word_is(c, &w, 0, en_subject_pron)) {
		for (k = 1; k < w.n && k <= 6; k++) {
			size_t x, y;
			if (strchr(",;:", c[w.b[k - 1] - 1]))
				break;      /* "Paris, the capital, is" is not a plain subject */
			word_core(c, &w, k - 1, &a, &b);
			word_core(c, &w, k, &x, &y);
			/* before an auxiliary, or a past verb ("The bridge opened"), not an adjective
			 * after a determiner ("The painted bridge") */
			if (word_is(c, &w, k, en_aux) ||
			    (y - x > 3 && !memcmp(c + y - 2, "ed", 2) && is_lower((unsigned char)c[x]) &&
			     !word_is(c, &w, k - 1, en_subject_det))) {
				subj = rag_xstrndup(c, b);
				break;
			}
		}
		if (!subj && is_upper((unsigned char)c[0]) && !word_is(c, &w, 0, not_subject_start))
			subj = capitalised_phrase(c, &w, 0);
	}
	words_free(&w);
	return subj;
}

static int starts_with_pronoun(const char *c)
{
	struct words w = { 0 };
	int r;

	if (starts_with_any(c, strlen(c), zh_pron))
		return 1;
	words_split(c, &w);
	r = word_is(c, &w, 0, en_subject_pron) || word_is(c, &w, 0, en_pronouns);
	words_free(&w);
	return r;
}

enum { KIND_ANY = -1, KIND_UNKNOWN, KIND_PERSON, KIND_THING };

/* Replace a leading pronoun with subject; NULL when the claim stays as it is. *kind remembers
 * what the subject was taken for: once "He" stood for it, "It" does not, and the other way. */
static char *resolve_pronoun(const char *c, const char *subj, int *kind)
{
	static const char *const this_verbs[] = {
		"is", "was", "has", "had", "can", "will", "would", "could", "does", "did", "makes", "made",
		"means", "meant", "became", "remains", "remained", NULL,
	};
	static const char *const expletive_next[] = {
		"seems", "seemed", "appears", "appeared", "rains", "rained", NULL,
	};
	struct words w = { 0 };
	size_t n = strlen(c), l = 0, a, b;
	char *r = NULL;
	int want = KIND_UNKNOWN;     /* what the pronoun stands for; UNKNOWN: leave it */

	if (!subj || !*subj)
		return NULL;
	if ((l = starts_with_any(c, n, zh_pron))) {
		if (l == 3 && !memcmp(c, "这", 3))
			want = starts_with_any(c + 3, n - 3, (const char *const[]){ "是", "就是", "也是", NULL })
			       ? KIND_THING : KIND_UNKNOWN;
		else if (l == 3 && !memcmp(c, "它", 3))
			want = KIND_THING;
		else if (l == 3)
			want = KIND_PERSON;
		else
			want = KIND_ANY;
	} else if (strcmp(rag_text_lang(subj), "zh")) {
		words_split(c, &w);
		if (w.n >= 2 && (word_core(c, &w, 0, &a, &b), b == w.b[0])) {
			l = w.b[0];
			if (word_is(c, &w, 0, (const char *const[]){ "it", NULL })) {
				if (!word_is(c, &w, 1, expletive_next) &&
				    !(word_is(c, &w, 1, (const char *const[]){ "is", "was", NULL }) &&
				      word_is(c, &w, 3, (const char *const[]){ "that", "to", "whether", NULL })))
					want = KIND_THING;
			} else if (word_is(c, &w, 0, (const char *const[]){ "he", "she", NULL })) {
				/* a person's name, not "the capital of France" */
				if (is_upper((unsigned char)subj[0]) && strncmp(subj, "The ", 4) &&
				    strncmp(subj, "A ", 2) && strncmp(subj, "An ", 3))
					want = KIND_PERSON;
			} else if (word_is(c, &w, 0, (const char *const[]){ "they", NULL })) {
				want = KIND_ANY;
			} else if (word_is(c, &w, 0, (const char *const[]){ "this", NULL }) &&
			           word_is(c, &w, 1, this_verbs)) {
				want = KIND_THING;
			}
		}
		words_free(&w);
	}
	if (want > KIND_UNKNOWN && *kind != KIND_UNKNOWN && *kind != want)
		want = KIND_UNKNOWN;
	if (want == KIND_UNKNOWN)
		return NULL;
	if (want > KIND_UNKNOWN)
		*kind = want;
	r = rag_xasprintf("%s%s", subj, c + l);
	if (is_lower((unsigned char)r[0]))
		r[0] = (char)(r[0] - 32);
	return r;
}

/* ---------------------------------------------------------------- claims */

/* The sentence's closing mark, given to pieces cut from it so that every claim reads whole. */
static const char *sentence_end(const char *s)
{
	size_t n = strlen(s);
	if (n && (s[n - 1] == '.' || s[n - 1] == '!'))
		return s[n - 1] == '.' ? "." : "!";
	if (n >= 3 && !memcmp(s + n - 3, "。", 3))
		return "。";
	if (n >= 3 && !memcmp(s + n - 3, "！", 3))
		return "！";
	return "";
}

static char *with_end(char *piece, const char *end)
{
	size_t n = strlen(piece), e = strlen(end);
	char *r;

	if (!e || (n >= e && !memcmp(piece + n - e, end, e)) ||
	    (n && strchr(".!?", piece[n - 1])) ||
	    (n >= 3 && starts_with_any(piece + n - 3, 3, cjk_enders)))
		return piece;
	r = rag_xasprintf("%s%s", piece, end);
	free(piece);
	return r;
}

jv rag_offline_claims(const char *question, const char *text, int max_claims)
{
	rag_strv sents = { 0 }, claims = { 0 };
	char *fixed, *qsubj, *prev = NULL, *resolved, *subj;
	jv out = jv_array();
	size_t i, k, d;
	int noisy, qkind = KIND_UNKNOWN, pkind = KIND_UNKNOWN;

	if (!text)
		return out;
	fixed = rag_utf8_sanitize(text, strlen(text));
	rag_offline_sentences(fixed, &sents, 1);
	for (i = 0; i < sents.n; i++) {
		const char *s = skip_framing(skip_interjection(sents.v[i]));
		const char *end = sentence_end(s);
		rag_strv pieces = { 0 };

		if (is_question(s))
			continue;
		noisy = is_noise(s);
		split_clauses(s, &pieces);
		for (k = 0; k < pieces.n; k++) {
			rag_strv two = { 0 };
			char *p = pieces.v[k];

			/* "I'm not sure, but Paris is the capital": the claim after a hedge survives, unless
			 * it leans on a pronoun from the refusal. */
			if (is_noise(p) || (noisy && (pieces.n == 1 || starts_with_pronoun(p)))) {
				free(p);
			} else if (split_place_time(p, &two)) {
				for (d = 0; d < two.n; d++)
					rag_strv_push(&claims, with_end(two.v[d], end));
				free(two.v);
				free(p);
			} else {
				rag_strv_push(&claims, with_end(p, end));
			}
		}
		free(pieces.v);
	}

	if (question) {
		char *q = rag_utf8_sanitize(question, strlen(question));
		qsubj = question_subject(q);
		free(q);
	} else {
		qsubj = NULL;
	}
	for (i = 0; i < claims.n; i++) {
		resolved = resolve_pronoun(claims.v[i], qsubj ? qsubj : prev, qsubj ? &qkind : &pkind);
		if (resolved) {
			free(claims.v[i]);
			claims.v[i] = resolved;
		} else if ((subj = claim_subject(claims.v[i]))) {
			free(prev);
			prev = subj;
			pkind = KIND_UNKNOWN;
		}
	}
	for (i = 0; i < claims.n; i++) {
		if (max_claims > 0 && jv_array_length(jv_copy(out)) >= max_claims)
			break;
		for (k = 0; k < i && strcmp(claims.v[k], claims.v[i]); k++)
			;
		if (k == i)
			out = jv_array_append(out, jv_string(claims.v[i]));
	}
	free(prev);
	free(qsubj);
	rag_strv_free(&claims);
	rag_strv_free(&sents);
	free(fixed);
	return out;
}
