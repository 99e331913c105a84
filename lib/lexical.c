/* lexical.c - string metrics of a text against a reference, with no model: ROUGE-N, ROUGE-L and
 * ROUGE-Lsum as Google's rouge_score computes them, token F1 and exact match as SQuAD's script,
 * BLEU and chrF as sacrebleu, and the presence of required or forbidden strings and patterns.
 *
 * Each metric keeps the tokenization of the implementation it is checked against
 * (tests/t/70-kw.t and tests/unit/t-lexical.c), so that the numbers agree with theirs: ROUGE's
 * words are rouge_score's on ASCII text (lower case, every run of characters other than a-z and
 * 0-9 a separator, optionally Porter-stemmed when longer than 3), BLEU's are sacrebleu's 13a
 * tokens, chrF counts characters with white space removed. Texts are compared as code points. */
#include "base.h"
#include "lexical.h"

#include <libstemmer.h>
#include <math.h>
#include <oniguruma.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <utf8proc.h>

/* ------------------------------------------------------------------ interning */

/* Tokens become small integers, so that n-grams compare as integer tuples. */
struct intern {
	char **s;
	size_t *len;
	size_t n, cap;
	size_t *slot, nslot;     /* open addressing: index + 1, 0 = empty */
};

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;
	for (i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static int intern_id(struct intern *t, const char *s, size_t n)
{
	size_t i, k;
	if (t->n * 2 >= t->nslot) {
		size_t ns = t->nslot ? t->nslot * 2 : 64, *slot = rag_xcalloc(ns, sizeof *slot);
		for (k = 0; k < t->n; k++) {
			for (i = hash(t->s[k], t->len[k]) & (ns - 1); slot[i]; i = (i + 1) & (ns - 1)) {}
			slot[i] = k + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->nslot = ns;
	}
	for (i = hash(s, n) & (t->nslot - 1); t->slot[i]; i = (i + 1) & (t->nslot - 1)) {
		k = t->slot[i] - 1;
		if (t->len[k] == n && !memcmp(t->s[k], s, n)) return (int)k;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 32;
		t->s = rag_xrealloc(t->s, t->cap * sizeof *t->s);
		t->len = rag_xrealloc(t->len, t->cap * sizeof *t->len);
	}
	t->s[t->n] = rag_xstrndup(s, n);
	t->len[t->n] = n;
	t->slot[i] = t->n + 1;
	return (int)t->n++;
}

static void intern_free(struct intern *t)
{
	size_t k;
	for (k = 0; k < t->n; k++) free(t->s[k]);
	free(t->s);
	free(t->len);
	free(t->slot);
	memset(t, 0, sizeof *t);
}

/* A token sequence: ids, and for ROUGE-Lsum the line of each token. */
struct seq {
	int *id, *line;
	size_t n, cap;
};

static void seq_add(struct seq *q, int id, int line)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 32;
		q->id = rag_xrealloc(q->id, q->cap * sizeof *q->id);
		q->line = rag_xrealloc(q->line, q->cap * sizeof *q->line);
	}
	q->id[q->n] = id;
	q->line[q->n++] = line;
}

static void seq_free(struct seq *q)
{
	free(q->id);
	free(q->line);
	memset(q, 0, sizeof *q);
}

/* ------------------------------------------------------------------ n-gram counts */

/* The n-grams of ids[0..len) as rows of n ints (sort_grams sorts them, so counts are runs). */
static int *grams(const int *ids, size_t len, int n, size_t *count)
{
	size_t i, m = len >= (size_t)n ? len - (size_t)n + 1 : 0;
	int *g = rag_xmalloc((m + 1) * (size_t)n * sizeof *g);
	for (i = 0; i < m; i++) memcpy(g + i * (size_t)n, ids + i, (size_t)n * sizeof *g);
	*count = m;
	return g;
}

/* Sum over distinct n-grams of min(count in a, count in b). Both sorted with sort_grams. */
static size_t clipped_overlap(const int *a, size_t na, const int *b, size_t nb, int n)
{
	size_t i = 0, j = 0, hits = 0, w = (size_t)n;
	while (i < na && j < nb) {
		int c = memcmp(a + i * w, b + j * w, w * sizeof(int));
		if (c < 0) i++;
		else if (c > 0) j++;
		else {
			size_t ci = i, cj = j;
			while (ci < na && !memcmp(a + ci * w, a + i * w, w * sizeof(int))) ci++;
			while (cj < nb && !memcmp(b + cj * w, b + j * w, w * sizeof(int))) cj++;
			hits += ci - i < cj - j ? ci - i : cj - j;
			i = ci;
			j = cj;
		}
	}
	return hits;
}

/* qsort's comparison has no context argument: an n-gram of up to MAXN ids is sorted as a row of
 * fixed width, zero-padded, rather than through a global holding n. */
#define MAXN 9
struct row { int v[MAXN]; };
static int cmp_row(const void *a, const void *b)
{
	return memcmp(((const struct row *)a)->v, ((const struct row *)b)->v, sizeof(struct row));
}

static void sort_grams(int **g, size_t m, int n)
{
	struct row *r = rag_xcalloc(m + 1, sizeof *r);
	size_t i;
	for (i = 0; i < m; i++) memcpy(r[i].v, *g + i * (size_t)n, (size_t)n * sizeof(int));
	qsort(r, m, sizeof *r, cmp_row);
	for (i = 0; i < m; i++) memcpy(*g + i * (size_t)n, r[i].v, (size_t)n * sizeof(int));
	free(r);
}

static void prf(double hits, double npred, double nref, rag_prf *out)
{
	out->precision = npred > 0 ? hits / npred : 0;
	out->recall = nref > 0 ? hits / nref : 0;
	out->f = out->precision + out->recall > 0
	         ? 2 * out->precision * out->recall / (out->precision + out->recall) : 0;
}

/* ------------------------------------------------------------------ words (ROUGE, F1) */

struct rag_lex {
	struct intern in;
	struct seq cand, ref;
	int a, an, the;           /* ids of the articles SQuAD drops, -1 when absent */
};

static int is_word_char(long c)
{
	utf8proc_category_t k;
	if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
	k = utf8proc_category((utf8proc_int32_t)c);
	return (k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO) ||
	       (k >= UTF8PROC_CATEGORY_MN && k <= UTF8PROC_CATEGORY_ND);
}

static void words(rag_lex *x, struct seq *q, const char *text, struct sb_stemmer *stem)
{
	char *norm = rag_text_normalize(text), *fixed = NULL;
	size_t n, i = 0, j, l;
	int line = 0;
	long c;

	if (!norm) {
		fixed = rag_utf8_sanitize(text, strlen(text));
		norm = rag_text_normalize(fixed);
		free(fixed);
		if (!norm) norm = rag_xstrdup("");
	}
	n = strlen(norm);
	while (i < n) {
		l = rag_utf8_decode(norm + i, n - i, &c);
		if (c == '\n') line++;
		if (rag_text_is_cjk(c)) {
			seq_add(q, intern_id(&x->in, norm + i, l), line);
			i += l;
			continue;
		}
		if (!is_word_char(c)) {
			i += l;
			continue;
		}
		for (j = i; j < n; j += l) {
			l = rag_utf8_decode(norm + j, n - j, &c);
			if (rag_text_is_cjk(c) || !is_word_char(c)) break;
		}
		if (stem && j - i > 3) {
			const sb_symbol *s = sb_stemmer_stem(stem, (const sb_symbol *)norm + i, (int)(j - i));
			seq_add(q, intern_id(&x->in, (const char *)s, (size_t)sb_stemmer_length(stem)), line);
		} else {
			seq_add(q, intern_id(&x->in, norm + i, j - i), line);
		}
		i = j;
	}
	free(norm);
}

static int find_id(const struct intern *t, const char *s)
{
	size_t i, n = strlen(s);
	if (!t->nslot) return -1;
	for (i = hash(s, n) & (t->nslot - 1); t->slot[i]; i = (i + 1) & (t->nslot - 1)) {
		size_t k = t->slot[i] - 1;
		if (t->len[k] == n && !memcmp(t->s[k], s, n)) return (int)k;
	}
	return -1;
}

rag_lex *rag_lex_new(const char *cand, const char *ref, int stem)
{
	rag_lex *x = rag_xcalloc(1, sizeof *x);
	struct sb_stemmer *st = stem ? sb_stemmer_new("porter", NULL) : NULL;
	words(x, &x->cand, cand ? cand : "", st);
	words(x, &x->ref, ref ? ref : "", st);
	if (st) sb_stemmer_delete(st);
	x->a = find_id(&x->in, "a");
	x->an = find_id(&x->in, "an");
	x->the = find_id(&x->in, "the");
	return x;
}

void rag_lex_free(rag_lex *x)
{
	if (!x) return;
	intern_free(&x->in);
	seq_free(&x->cand);
	seq_free(&x->ref);
	free(x);
}

#ifdef RAG_UNITTESTS   /* only the unit tests call it */
RAG_UNITTEST size_t rag_lex_count(const rag_lex *x, int ref)
{
	return ref ? x->ref.n : x->cand.n;
}
#endif

int rag_lex_rouge_n(const rag_lex *x, int n, rag_prf *out)
{
	size_t nc, nr;
	int *gc, *gr;
	if (n < 1 || n > MAXN) return -1;
	gc = grams(x->cand.id, x->cand.n, n, &nc);
	gr = grams(x->ref.id, x->ref.n, n, &nr);
	sort_grams(&gc, nc, n);
	sort_grams(&gr, nr, n);
	prf((double)clipped_overlap(gc, nc, gr, nr, n), (double)nc, (double)nr, out);
	free(gc);
	free(gr);
	return 0;
}

/* The LCS table of a[0..na) and b[0..nb), (na + 1) x (nb + 1). */
static int *lcs_table(const int *a, size_t na, const int *b, size_t nb)
{
	size_t i, j, w = nb + 1;
	int *t = rag_xcalloc((na + 1) * w, sizeof *t);
	for (i = 1; i <= na; i++)
		for (j = 1; j <= nb; j++)
			t[i * w + j] = a[i - 1] == b[j - 1] ? t[(i - 1) * w + j - 1] + 1
			               : t[(i - 1) * w + j] > t[i * w + j - 1] ? t[(i - 1) * w + j] : t[i * w + j - 1];
	return t;
}

void rag_lex_rouge_l(const rag_lex *x, rag_prf *out)
{
	size_t nc = x->cand.n, nr = x->ref.n;
	int *t;
	if (!nc || !nr) {
		prf(0, (double)nc, (double)nr, out);
		return;
	}
	t = lcs_table(x->ref.id, nr, x->cand.id, nc);
	prf((double)t[nr * (nc + 1) + nc], (double)nc, (double)nr, out);
	free(t);
}

/* rouge_score's _backtrack_norec: mark in hit[] the positions of ref in one LCS with can. */
static void lcs_mark(const int *ref, size_t nr, const int *can, size_t nc, char *hit)
{
	int *t = lcs_table(ref, nr, can, nc);
	size_t i = nr, j = nc, w = nc + 1;
	while (i > 0 && j > 0) {
		if (ref[i - 1] == can[j - 1]) {
			hit[i - 1] = 1;
			i--;
			j--;
		} else if (t[i * w + j - 1] > t[(i - 1) * w + j]) {
			j--;
		} else {
			i--;
		}
	}
	free(t);
}

/* Lines of a sequence: start and length of each non-empty run of one line number. */
static size_t lines_of(const struct seq *q, size_t **start, size_t **len)
{
	size_t i, n = 0;
	*start = rag_xmalloc((q->n + 1) * sizeof **start);
	*len = rag_xmalloc((q->n + 1) * sizeof **len);
	for (i = 0; i < q->n; i++) {
		if (i == 0 || q->line[i] != q->line[i - 1]) {
			(*start)[n] = i;
			(*len)[n++] = 0;
		}
		(*len)[n - 1]++;
	}
	return n;
}

/* Summary-level LCS (ROUGE-Lsum): for each reference line the union of its LCS with every
 * candidate line; a token counts while both texts have copies of it left. */
void rag_lex_rouge_lsum(const rag_lex *x, rag_prf *out)
{
	size_t *cs, *cl, *rs, *rl, ncl, nrl, i, j, k, hits = 0;
	size_t nid = x->in.n;
	int *left_c, *left_r;
	char *hit;

	if (!x->cand.n || !x->ref.n) {
		prf(0, (double)x->cand.n, (double)x->ref.n, out);
		return;
	}
	ncl = lines_of(&x->cand, &cs, &cl);
	nrl = lines_of(&x->ref, &rs, &rl);
	left_c = rag_xcalloc(nid + 1, sizeof *left_c);
	left_r = rag_xcalloc(nid + 1, sizeof *left_r);
	for (i = 0; i < x->cand.n; i++) left_c[x->cand.id[i]]++;
	for (i = 0; i < x->ref.n; i++) left_r[x->ref.id[i]]++;
	for (i = 0; i < nrl; i++) {
		const int *r = x->ref.id + rs[i];
		hit = rag_xcalloc(rl[i] + 1, 1);
		for (j = 0; j < ncl; j++) lcs_mark(r, rl[i], x->cand.id + cs[j], cl[j], hit);
		for (k = 0; k < rl[i]; k++) {
			if (hit[k] && left_c[r[k]] > 0 && left_r[r[k]] > 0) {
				hits++;
				left_c[r[k]]--;
				left_r[r[k]]--;
			}
		}
		free(hit);
	}
	prf((double)hits, (double)x->cand.n, (double)x->ref.n, out);
	free(cs);
	free(cl);
	free(rs);
	free(rl);
	free(left_c);
	free(left_r);
}

/* The tokens SQuAD compares: the words without the articles a, an, the. */
static int *squad(const rag_lex *x, const struct seq *q, size_t *n)
{
	int *v = rag_xmalloc((q->n + 1) * sizeof *v);
	size_t i;
	*n = 0;
	for (i = 0; i < q->n; i++)
		if (q->id[i] != x->a && q->id[i] != x->an && q->id[i] != x->the) v[(*n)++] = q->id[i];
	return v;
}

void rag_lex_token_f1(const rag_lex *x, rag_prf *out)
{
	size_t nc, nr;
	int *c = squad(x, &x->cand, &nc), *r = squad(x, &x->ref, &nr);
	if (!nc || !nr) {
		/* SQuAD: two empty answers agree; one empty one scores 0 */
		out->precision = out->recall = out->f = nc == nr;
	} else {
		sort_grams(&c, nc, 1);
		sort_grams(&r, nr, 1);
		prf((double)clipped_overlap(c, nc, r, nr, 1), (double)nc, (double)nr, out);
	}
	free(c);
	free(r);
}

int rag_lex_exact_match(const rag_lex *x)
{
	size_t nc, nr;
	int *c = squad(x, &x->cand, &nc), *r = squad(x, &x->ref, &nr);
	int eq = nc == nr && (nc == 0 || !memcmp(c, r, nc * sizeof *c));
	free(c);
	free(r);
	return eq;
}

/* ------------------------------------------------------------------ BLEU */

/* Python's re.sub of a two-character pattern, emulated over bytes: a non-digit before a
 * multi-byte character matches its last byte alone, which writes the same text. */
static int is_d(char c) { return c >= '0' && c <= '9'; }

static char *tok_13a(const char *in)
{
	rag_buf a = {0}, b = {0};
	const char *p;
	size_t i, n;

	/* the language-independent part */
	rag_buf_add(&a, " ", 1);
	for (p = in; *p;) {
		if (!strncmp(p, "<skipped>", 9)) p += 9;
		else if (!strncmp(p, "-\n", 2)) p += 2;
		else if (*p == '\n') rag_buf_add(&a, " ", 1), p++;
		else if (!strncmp(p, "&quot;", 6)) rag_buf_add(&a, "\"", 1), p += 6;
		else if (!strncmp(p, "&amp;", 5)) rag_buf_add(&a, "&", 1), p += 5;
		else if (!strncmp(p, "&lt;", 4)) rag_buf_add(&a, "<", 1), p += 4;
		else if (!strncmp(p, "&gt;", 4)) rag_buf_add(&a, ">", 1), p += 4;
		else rag_buf_add(&a, p++, 1);
	}
	rag_buf_add(&a, " ", 1);
	/* ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 " */
	for (i = 0; i < a.len; i++) {
		unsigned char c = (unsigned char)a.p[i];
		if ((c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
		    (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/') {
			rag_buf_add(&b, " ", 1);
			rag_buf_add(&b, a.p + i, 1);
			rag_buf_add(&b, " ", 1);
		} else {
			rag_buf_add(&b, a.p + i, 1);
		}
	}
	/* ([^0-9])([\.,]) -> "\1 \2 " */
	a.len = 0;
	for (i = 0, n = b.len; i < n;) {
		if (i + 1 < n && !is_d(b.p[i]) && (b.p[i + 1] == '.' || b.p[i + 1] == ',')) {
			rag_buf_add(&a, b.p + i, 1);
			rag_buf_add(&a, " ", 1);
			rag_buf_add(&a, b.p + i + 1, 1);
			rag_buf_add(&a, " ", 1);
			i += 2;
		} else {
			rag_buf_add(&a, b.p + i++, 1);
		}
	}
	/* ([\.,])([^0-9]) -> " \1 \2" */
	b.len = 0;
	for (i = 0, n = a.len; i < n;) {
		if (i + 1 < n && (a.p[i] == '.' || a.p[i] == ',') && !is_d(a.p[i + 1])) {
			rag_buf_add(&b, " ", 1);
			rag_buf_add(&b, a.p + i, 1);
			rag_buf_add(&b, " ", 1);
			rag_buf_add(&b, a.p + i + 1, 1);
			i += 2;
		} else {
			rag_buf_add(&b, a.p + i++, 1);
		}
	}
	/* ([0-9])(-) -> "\1 \2 " */
	a.len = 0;
	for (i = 0, n = b.len; i < n;) {
		if (i + 1 < n && is_d(b.p[i]) && b.p[i + 1] == '-') {
			rag_buf_add(&a, b.p + i, 2);
			a.p[a.len - 1] = ' ';
			rag_buf_add(&a, "- ", 2);
			i += 2;
		} else {
			rag_buf_add(&a, b.p + i++, 1);
		}
	}
	rag_buf_add(&a, "", 1);
	rag_buf_free(&b);
	return a.p;
}

/* sacrebleu's zh tokenizer in outline: each CJK character stands apart, then 13a. */
static char *spaced_cjk(const char *s)
{
	rag_buf b = {0};
	size_t n = strlen(s), i = 0, l;
	long c;
	while (i < n) {
		l = rag_utf8_decode(s + i, n - i, &c);
		if (rag_text_is_cjk(c)) rag_buf_add(&b, " ", 1);
		rag_buf_add(&b, s + i, l);
		if (rag_text_is_cjk(c)) rag_buf_add(&b, " ", 1);
		i += l;
	}
	rag_buf_add(&b, "", 1);
	return b.p;
}

static char *lower(const char *s)
{
	/* Python's str.lower(): case mapping, not NFKC */
	rag_buf b = {0};
	size_t n = strlen(s), i = 0, l;
	long c;
	while (i < n) {
		utf8proc_uint8_t u[4];
		utf8proc_ssize_t k;
		l = rag_utf8_decode(s + i, n - i, &c);
		k = utf8proc_encode_char(utf8proc_tolower((utf8proc_int32_t)c), u);
		rag_buf_add(&b, u, (size_t)k);
		i += l;
	}
	rag_buf_add(&b, "", 1);
	return b.p;
}

static int is_space(const char *s, size_t n, size_t *len)
{
	long c;
	*len = rag_utf8_decode(s, n, &c);
	return c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f) || c == 0x85 || c == 0xa0 ||
	       c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
	       c == 0x202f || c == 0x205f || c == 0x3000;
}

/* The tokens of a BLEU text, interned into t. */
static void bleu_tokens(const char *text, const rag_bleu_opts *o, struct intern *t, struct seq *q)
{
	char *s = o->lowercase ? lower(text) : rag_xstrdup(text), *u;
	size_t n, i = 0, j, l;

	if (o->tokenize == RAG_BLEU_13A || o->tokenize == RAG_BLEU_ZH) {
		if (o->tokenize == RAG_BLEU_ZH) {
			u = spaced_cjk(s);
			free(s);
			s = u;
		}
		u = tok_13a(s);
		free(s);
		s = u;
	}
	n = strlen(s);
	while (i < n) {
		if (is_space(s + i, n - i, &l)) {
			i += l;
			continue;
		}
		if (o->tokenize == RAG_BLEU_CHAR) {
			seq_add(q, intern_id(t, s + i, l), 0);
			i += l;
			continue;
		}
		for (j = i; j < n && !is_space(s + j, n - j, &l); j += l) {}
		seq_add(q, intern_id(t, s + i, j - i), 0);
		i = j;
	}
	free(s);
}

void rag_bleu_opts_init(rag_bleu_opts *o)
{
	memset(o, 0, sizeof *o);
	o->tokenize = RAG_BLEU_13A;
	o->smooth = RAG_SMOOTH_EXP;
	o->smooth_value = -1;
	o->max_order = 4;
	o->effective_order = 1;
}

static int has_cjk(const char *s)
{
	size_t n = s ? strlen(s) : 0, i = 0;
	long c;
	while (i < n) {
		i += rag_utf8_decode(s + i, n - i, &c);
		if (rag_text_is_cjk(c)) return 1;
	}
	return 0;
}

int rag_bleu_tokenizer_for(const char *lang, const char *hyp, const char *ref)
{
	if (lang && *lang)
		return !strncasecmp(lang, "zh", 2) || !strncasecmp(lang, "ja", 2) || !strncasecmp(lang, "cmn", 3)
		       ? RAG_BLEU_ZH : RAG_BLEU_13A;
	return has_cjk(hyp) || has_cjk(ref) ? RAG_BLEU_ZH : RAG_BLEU_13A;
}

void rag_bleu_stats_add(rag_bleu_stats *st, const char *hyp, const char *const *refs, size_t nrefs,
                        const rag_bleu_opts *o)
{
	struct intern t = {0};
	struct seq h = {0}, *r = rag_xcalloc(nrefs + 1, sizeof *r);
	size_t ri, best = 0, bestdiff = (size_t)-1;
	int n, maxn = o->max_order < 1 ? 1 : o->max_order > RAG_BLEU_MAX ? RAG_BLEU_MAX : o->max_order;

	bleu_tokens(hyp, o, &t, &h);
	for (ri = 0; ri < nrefs; ri++) {
		size_t d;
		bleu_tokens(refs[ri], o, &t, &r[ri]);
		d = r[ri].n > h.n ? r[ri].n - h.n : h.n - r[ri].n;
		/* the closest reference length; of two as close, the shorter */
		if (d < bestdiff || (d == bestdiff && r[ri].n < best)) {
			bestdiff = d;
			best = r[ri].n;
		}
	}
	st->sys_len += (double)h.n;
	st->ref_len += (double)best;
	for (n = 1; n <= maxn; n++) {
		size_t nh, m, i, hits = 0;
		int *gh = grams(h.id, h.n, n, &nh);
		size_t *maxc;
		sort_grams(&gh, nh, n);
		/* each distinct n-gram of the hypothesis: its count, clipped by its most in one reference */
		maxc = rag_xcalloc(nh + 1, sizeof *maxc);
		for (ri = 0; ri < nrefs; ri++) {
			int *gr = grams(r[ri].id, r[ri].n, n, &m);
			size_t a = 0, b = 0, w = (size_t)n;
			sort_grams(&gr, m, n);
			while (a < nh && b < m) {
				int c = memcmp(gh + a * w, gr + b * w, w * sizeof(int));
				if (c < 0) a++;
				else if (c > 0) b++;
				else {
					size_t cb = b, ca = a;
					while (cb < m && !memcmp(gr + cb * w, gr + b * w, w * sizeof(int))) cb++;
					while (ca < nh && !memcmp(gh + ca * w, gh + a * w, w * sizeof(int))) ca++;
					if (cb - b > maxc[a]) maxc[a] = cb - b;
					a = ca;
					b = cb;
				}
			}
			free(gr);
		}
		for (i = 0; i < nh;) {
			size_t e = i;
			while (e < nh && !memcmp(gh + e * (size_t)n, gh + i * (size_t)n, (size_t)n * sizeof(int))) e++;
			hits += e - i < maxc[i] ? e - i : maxc[i];
			i = e;
		}
		st->correct[n - 1] += (double)hits;
		st->total[n - 1] += (double)nh;
		free(maxc);
		free(gh);
	}
	for (ri = 0; ri < nrefs; ri++) seq_free(&r[ri]);
	free(r);
	seq_free(&h);
	intern_free(&t);
}

static double my_log(double x)
{
	return x == 0 ? -9999999999.0 : log(x);
}

double rag_bleu_score(const rag_bleu_stats *st, const rag_bleu_opts *o)
{
	double correct[RAG_BLEU_MAX], total[RAG_BLEU_MAX], prec[RAG_BLEU_MAX] = {0};
	double bp, mteval = 1, sum = 0, sv = o->smooth_value;
	int n, maxn = o->max_order < 1 ? 1 : o->max_order > RAG_BLEU_MAX ? RAG_BLEU_MAX : o->max_order;
	int eff = maxn, any = 0;

	if (sv < 0) sv = o->smooth == RAG_SMOOTH_FLOOR ? 0.1 : 1;
	memcpy(correct, st->correct, sizeof correct);
	memcpy(total, st->total, sizeof total);
	if (st->sys_len < st->ref_len)
		bp = st->sys_len > 0 ? exp(1 - st->ref_len / st->sys_len) : 0;
	else
		bp = 1;
	for (n = 0; n < maxn; n++) any |= correct[n] != 0;
	if (!any) return 0;            /* no match at all: 0 (sacrebleu #141) */
	for (n = 1; n <= maxn; n++) {
		if (o->smooth == RAG_SMOOTH_ADDK && n > 1) {
			correct[n - 1] += sv;
			total[n - 1] += sv;
		}
		if (total[n - 1] == 0) break;
		if (o->effective_order) eff = n;
		if (correct[n - 1] == 0) {
			if (o->smooth == RAG_SMOOTH_EXP) {
				mteval *= 2;
				prec[n - 1] = 100 / (mteval * total[n - 1]);
			} else if (o->smooth == RAG_SMOOTH_FLOOR) {
				prec[n - 1] = 100 * sv / total[n - 1];
			}
		} else {
			prec[n - 1] = 100 * correct[n - 1] / total[n - 1];
		}
	}
	for (n = 0; n < eff; n++) sum += my_log(prec[n]);
	sum = bp * exp(sum / eff) / 100;
	return sum > 1 ? 1 : sum;       /* exp(log) of a perfect match can come out a hair above 1 */
}

/* ------------------------------------------------------------------ chrF */

void rag_chrf_opts_init(rag_chrf_opts *o)
{
	memset(o, 0, sizeof *o);
	o->char_order = 6;
	o->beta = 2;
}

/* Character n-gram counts of one text per order: sorted arrays of code-point rows. */
static void chrf_one(const long *h, size_t nh, const long *r, size_t nr, int order, double *v)
{
	int n;
	for (n = 1; n <= order; n++) {
		size_t mh = nh >= (size_t)n ? nh - (size_t)n + 1 : 0, mr = nr >= (size_t)n ? nr - (size_t)n + 1 : 0;
		struct intern t = {0};
		int *ih = rag_xmalloc((mh + 1) * sizeof *ih), *ir = rag_xmalloc((mr + 1) * sizeof *ir);
		size_t i;
		for (i = 0; i < mh; i++) ih[i] = intern_id(&t, (const char *)(h + i), (size_t)n * sizeof *h);
		for (i = 0; i < mr; i++) ir[i] = intern_id(&t, (const char *)(r + i), (size_t)n * sizeof *r);
		sort_grams(&ih, mh, 1);
		sort_grams(&ir, mr, 1);
		v[3 * (n - 1)] = (double)mh;
		v[3 * (n - 1) + 1] = (double)mr;
		v[3 * (n - 1) + 2] = (double)clipped_overlap(ih, mh, ir, mr, 1);
		free(ih);
		free(ir);
		intern_free(&t);
	}
}

static long *chars(const char *text, const rag_chrf_opts *o, size_t *n)
{
	char *s = o->lowercase ? lower(text) : rag_xstrdup(text);
	size_t len = strlen(s), i = 0, l;
	long *v = rag_xmalloc((len + 1) * sizeof *v), c;
	*n = 0;
	while (i < len) {
		if (!o->whitespace && is_space(s + i, len - i, &l)) {
			i += l;
			continue;
		}
		l = rag_utf8_decode(s + i, len - i, &c);
		v[(*n)++] = c;
		i += l;
	}
	free(s);
	return v;
}

static double chrf_f(const double *v, const rag_chrf_opts *o)
{
	const double eps = 1e-16;
	double factor = o->beta * o->beta, score = 0, ap = 0, ar = 0;
	int i, eff = 0;
	for (i = 0; i < o->char_order; i++) {
		double nh = v[3 * i], nr = v[3 * i + 1], m = v[3 * i + 2];
		double p = nh > 0 ? m / nh : eps, r = nr > 0 ? m / nr : eps, d = factor * p + r;
		score += d > 0 ? (1 + factor) * p * r / d : eps;
		if (nh > 0 && nr > 0) eff++;
		ap += p;
		ar += r;
	}
	if (o->eps_smoothing) return score / o->char_order;
	if (!eff) return 0;
	ap /= eff;
	ar /= eff;
	return ap + ar > 0 ? (1 + factor) * ap * ar / (factor * ap + ar) : 0;
}

void rag_chrf_stats_add(rag_chrf_stats *st, const char *hyp, const char *const *refs, size_t nrefs,
                        const rag_chrf_opts *o)
{
	size_t nh, nr, ri, k;
	long *h = chars(hyp, o, &nh);
	double best[3 * RAG_CHRF_MAX] = {0}, v[3 * RAG_CHRF_MAX], bestf = -1;
	rag_chrf_opts oo = *o;
	if (oo.char_order > RAG_CHRF_MAX) oo.char_order = RAG_CHRF_MAX;
	st->order = oo.char_order;
	for (ri = 0; ri < nrefs; ri++) {
		long *r = chars(refs[ri], &oo, &nr);
		double f;
		memset(v, 0, sizeof v);
		chrf_one(h, nh, r, nr, oo.char_order, v);
		f = chrf_f(v, &oo);
		/* of several references, the one with the best score */
		if (f > bestf) {
			bestf = f;
			memcpy(best, v, sizeof best);
		}
		free(r);
	}
	for (k = 0; k < 3 * RAG_CHRF_MAX; k++) st->v[k] += best[k];
	free(h);
}

double rag_chrf_score(const rag_chrf_stats *st, const rag_chrf_opts *o)
{
	rag_chrf_opts oo = *o;
	if (oo.char_order > RAG_CHRF_MAX) oo.char_order = RAG_CHRF_MAX;
	return chrf_f(st->v, &oo);
}

/* ------------------------------------------------------------------ presence */

int rag_lex_contains(const char *text, const char *needle)
{
	char *t = rag_text_normalize(text), *n = rag_text_normalize(needle);
	int found = t && n && strstr(t, n) != NULL;
	free(t);
	free(n);
	return found;
}

/* Oniguruma, jq's own engine (and libonig exports a regcomp of its own that would shadow the C
 * library's), in Perl syntax: a pattern means here what it means in jq's test(). */
int rag_lex_regex(const char *text, const char *pattern, int *match, char *err, size_t errlen)
{
	OnigRegex re;
	OnigErrorInfo info;
	OnigEncoding enc = ONIG_ENCODING_UTF8;
	const UChar *p = (const UChar *)pattern, *t = (const UChar *)text;
	size_t tn = strlen(text);
	int rc;

	onig_initialize(&enc, 1);
	rc = onig_new(&re, p, p + strlen(pattern), ONIG_OPTION_CAPTURE_GROUP, ONIG_ENCODING_UTF8,
	              ONIG_SYNTAX_PERL_NG, &info);
	if (rc != ONIG_NORMAL) {
		UChar msg[ONIG_MAX_ERROR_MESSAGE_LEN];
		onig_error_code_to_str(msg, rc, &info);
		rag_seterr(err, errlen, "bad regular expression \"%s\": %s", pattern, (const char *)msg);
		return -1;
	}
	rc = onig_search(re, t, t + tn, t, t + tn, NULL, ONIG_OPTION_NONE);
	onig_free(re);
	if (rc < 0 && rc != ONIG_MISMATCH) {
		rag_seterr(err, errlen, "regular expression \"%s\" failed on the text", pattern);
		return -1;
	}
	*match = rc >= 0;
	return 0;
}
