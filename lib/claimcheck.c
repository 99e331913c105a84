/* claimcheck.c - the offline judge's verdicts: each claim checked against the contexts by its
 * words, its numbers and its negation, no network.
 *
 * It is deliberately simple and deterministic, so that a run without an LLM still gives scores
 * that move the right way: a wrong date, a wrong number or a flipped negation makes a claim
 * unsupported even when most of its words are found. Words are compared as rag_text_tokens
 * (text.c); contexts are cut into sentences as claimsplit.c cuts answers.
 *
 * Besides its yes or no, each verdict has a graded score, how sure a word-overlap judge can be
 * that the claim is supported: the share of its content words found, less for each name or
 * number of the claim that is not, and for a negation that differs. Names and numbers are what a
 * made-up sentence gets wrong while its other words stay right, so they weigh most. */
#include "base.h"
#include "offline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add the tokens of text to a string vector (copies); as evidence, rag_text_tokens_evidence. */
static void add_tokens_as(rag_strv *into, const char *text, int evidence)
{
	jv toks = evidence ? rag_text_tokens_evidence(text) : rag_text_tokens(text);
	int i, n = jv_array_length(jv_copy(toks));

	for (i = 0; i < n; i++) {
		jv t = jv_array_get(jv_copy(toks), i);
		rag_strv_push(into, rag_xstrdup(jv_string_value(t)));
		jv_free(t);
	}
	jv_free(toks);
}

static void add_tokens(rag_strv *into, const char *text)
{
	add_tokens_as(into, text, 0);
}

/* Sort and drop duplicates, so that membership is a binary search. */
static void set_finish(rag_strv *a)
{
	size_t i, o = 0;

	if (!a->n)
		return;
	qsort(a->v, a->n, sizeof *a->v, cmp_strp);
	for (i = 1; i < a->n; i++) {
		if (!strcmp(a->v[i], a->v[o]))
			free(a->v[i]);
		else
			a->v[++o] = a->v[i];
	}
	a->n = o + 1;
}

static int set_has(const rag_strv *a, const char *s)
{
	return a->n && bsearch(&s, a->v, a->n, sizeof *a->v, cmp_strp) != NULL;
}

/* rag_text_tokens makes a token a number exactly when it starts with an ASCII digit. */
static int is_number_token(const char *t)
{
	return t[0] >= '0' && t[0] <= '9';
}

/* Words that carry nothing a context could support or contradict on their own (prepositions,
 * connectives, vague quantities), as the Snowball stems rag_text_tokens makes of them: a claim's
 * share of content words found leaves them out, so that "since", "through" or "once" missing
 * from a context that has every fact of the claim does not count against it. So are the words
 * by which an answer names its source ("the passage", "the context", "this summary"): no
 * context holds them about itself. Sorted. */
static const char *const light_stems[] = {
	"across", "again", "almost", "along", "alreadi", "although", "among", "anoth", "around",
	"away", "back", "becaus", "behind", "beyond", "context", "down", "dure", "either", "even",
	"ever", "everi", "further", "henc", "howev", "instead", "mani", "meanwhil", "much", "near",
	"off", "onc", "onto", "other", "out", "over", "own", "passag", "per", "quit", "rather",
	"sever", "sinc", "still", "summari", "therefor", "though", "through", "thus", "toward",
	"under", "up", "upon", "via", "well", "whether", "within", "yet",
};

static int is_light(const char *t)
{
	return bsearch(&t, light_stems, sizeof light_stems / sizeof *light_stems, sizeof *light_stems,
	               cmp_strp) != NULL;
}

static int is_date_word(const char *t);

/* The names of a claim: its capitalised words (an acronym too) that do not start a sentence,
 * as tokens, each with the word it came from (toks[i] from words[i]). English only: Chinese has
 * no capitals, and its names are left to the share of words found. */
static void claim_names(const char *claim, rag_strv *toks, rag_strv *words)
{
	const char *p = claim, *w;
	int start = 1;

	while (*p) {
		if (*p == '.' || *p == '!' || *p == '?') {
			start = 1;
			p++;
			continue;
		}
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))) {
			p++;
			continue;
		}
		for (w = p; (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '\'' ||
		            (*p >= '0' && *p <= '9'); p++)
			;
		if (!start && *w >= 'A' && *w <= 'Z') {
			char *word = rag_xstrndup(w, (size_t)(p - w));
			jv t = rag_text_tokens(word);
			int i, n = jv_array_length(jv_copy(t));
			for (i = 0; i < n; i++) {
				jv one = jv_array_get(jv_copy(t), i);
				if (!is_number_token(jv_string_value(one)) && !is_date_word(jv_string_value(one))) {
					rag_strv_push(toks, rag_xstrdup(jv_string_value(one)));
					rag_strv_push(words, rag_xstrdup(word));
				}
				jv_free(one);
			}
			jv_free(t);
			free(word);
		}
		start = 0;
	}
}

/* Stemmed month names (as rag_text_tokens gives them) and their numbers: a context saying
 * "14 March 1879" also supports the 3 of "1879-03-14" and "1879年3月14日". */
static const char *const month_stems[][2] = {
	{ "januari", "1" }, { "februari", "2" }, { "march", "3" }, { "april", "4" }, { "may", "5" },
	{ "june", "6" }, { "juli", "7" }, { "august", "8" }, { "septemb", "9" }, { "octob", "10" },
	{ "novemb", "11" }, { "decemb", "12" },
};

static const char *const weekday_stems[] = {
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
};

/* Months and weekdays are capitalised but are dates, not names: a date is held to its numbers. */
static int is_date_word(const char *t)
{
	size_t k;

	for (k = 0; k < sizeof month_stems / sizeof *month_stems; k++)
		if (!strcmp(t, month_stems[k][0]))
			return 1;
	for (k = 0; k < sizeof weekday_stems / sizeof *weekday_stems; k++)
		if (!strcmp(t, weekday_stems[k]))
			return 1;
	return 0;
}

struct sentence {
	rag_strv toks;    /* set */
	char *text;
	rag_negation *neg;   /* its negation scan, made when first needed (sentence_neg) */
};

/* The negation scan of a sentence, made once for all the claims checked against it. */
static const rag_negation *sentence_neg(const struct sentence *s)
{
	if (!s->neg)
		((struct sentence *)s)->neg = rag_negation_scan(s->text);
	return s->neg;
}

struct context {
	struct sentence *sent;
	size_t nsent;
	rag_strv all;     /* set of every token */
	rag_strv nums;    /* set of numbers, month numbers included */
};

static void context_build(struct context *c, const char *text)
{
	rag_strv sents = { 0 };
	size_t i, k;

	memset(c, 0, sizeof *c);
	rag_offline_sentences(text, &sents, 0);
	c->sent = rag_xmalloc((sents.n ? sents.n : 1) * sizeof *c->sent);
	c->nsent = sents.n;
	for (i = 0; i < sents.n; i++) {
		struct sentence *s = &c->sent[i];
		memset(s, 0, sizeof *s);
		add_tokens_as(&s->toks, sents.v[i], 1);
		set_finish(&s->toks);
		s->text = sents.v[i];
		sents.v[i] = NULL;
		for (k = 0; k < s->toks.n; k++)
			rag_strv_push(&c->all, rag_xstrdup(s->toks.v[k]));
	}
	set_finish(&c->all);
	for (i = 0; i < c->all.n; i++) {
		if (is_number_token(c->all.v[i]))
			rag_strv_push(&c->nums, rag_xstrdup(c->all.v[i]));
		for (k = 0; k < sizeof month_stems / sizeof *month_stems; k++)
			if (!strcmp(c->all.v[i], month_stems[k][0]))
				rag_strv_push(&c->nums, rag_xstrdup(month_stems[k][1]));
	}
	set_finish(&c->nums);
	rag_strv_free(&sents);
}

static void context_free(struct context *c)
{
	size_t i;
	for (i = 0; i < c->nsent; i++) {
		rag_strv_free(&c->sent[i].toks);
		free(c->sent[i].text);
		rag_negation_free(c->sent[i].neg);
	}
	free(c->sent);
	rag_strv_free(&c->all);
	rag_strv_free(&c->nums);
}

/* Which tokens of a claim each sentence of a context holds, looked up once per claim: in[i *
 * claim->n + k] for token k in sentence i, cnt[i] how many. */
struct hits {
	unsigned char *in;
	size_t *cnt;
};

/* Both sets sorted: one merge per sentence. */
static void hits_make(struct hits *h, const rag_strv *claim, const struct context *c)
{
	size_t i, k, j;
	int d;

	h->in = rag_xmalloc((c->nsent && claim->n ? c->nsent * claim->n : 1));
	h->cnt = rag_xmalloc((c->nsent ? c->nsent : 1) * sizeof *h->cnt);
	for (i = 0; i < c->nsent; i++) {
		const rag_strv *set = &c->sent[i].toks;
		unsigned char *in = h->in + i * claim->n;
		h->cnt[i] = 0;
		for (k = j = 0; k < claim->n; k++) {
			in[k] = 0;
			while (j < set->n && (d = strcmp(set->v[j], claim->v[k])) < 0)
				j++;
			if (j < set->n && d == 0) {
				in[k] = 1;
				h->cnt[i]++;
			}
		}
	}
}

static void hits_free(struct hits *h)
{
	free(h->in);
	free(h->cnt);
}

static size_t count_found(const rag_strv *claim, const rag_strv *set)
{
	size_t i, f = 0;
	for (i = 0; i < claim->n; i++)
		if (set_has(set, claim->v[i]))
			f++;
	return f;
}

/* ---- a number with the words it qualifies
 *
 * "Returned within 30 days" is not stated by a context that returns within 7 days and ships
 * orders over 30 dollars free: 30 is in it, but not with the words the claim gives it. So a
 * claim's number counts only where it stands with its words: the claim's words nearest it (a
 * few on each side, light words and other numbers left out) are looked up in each sentence,
 * and the sentences holding most of them must hold the number, unless none of them holds
 * another number (the words stated in one sentence, the number in the next: "Einstein won
 * the Nobel Prize. This was in 1921."). The same in Chinese, where 5天 is one token: "超过5天"
 * against a context whose 超过 goes with 3天. */

/* The words of the claim each number qualifies: how many on each side. */
enum { NUMBER_WORDS = 3 };

/* Where a number of the claim stands in the evidence. */
enum { NUM_ABSENT = 0, NUM_ELSEWHERE = 1, NUM_PLACED = 2 };

/* Does sentence s state the number n (a month name too: "March" for 3)? */
static int sentence_has_number(const struct sentence *s, const char *n)
{
	size_t k;

	if (set_has(&s->toks, n))
		return 1;
	for (k = 0; k < sizeof month_stems / sizeof *month_stems; k++)
		if (!strcmp(n, month_stems[k][1]) && set_has(&s->toks, month_stems[k][0]))
			return 1;
	return 0;
}

/* Does sentence s state a number that the claim (its tokens, a set) does not? */
static int sentence_other_number(const struct sentence *s, const rag_strv *claim)
{
	size_t k;

	for (k = 0; k < s->toks.n; k++)
		if (is_number_token(s->toks.v[k]) && !set_has(claim, s->toks.v[k]))
			return 1;
	return 0;
}

/* The words each number of the claim qualifies (words[k] a set, for toks->v[k] a number; empty
 * for the other tokens): the NUMBER_WORDS tokens of the claim, in its order, nearest the
 * number on each side, of those in toks (light words are not) that are no number. */
static rag_strv *number_words(const char *claim, const rag_strv *toks)
{
	rag_strv *words = rag_xcalloc(toks->n ? toks->n : 1, sizeof *words);
	jv seq = rag_text_tokens(claim);
	int n = jv_array_length(jv_copy(seq)), i, j, taken, dir;
	const char **v = rag_xmalloc((size_t)(n ? n : 1) * sizeof *v);
	size_t k;

	for (i = 0; i < n; i++) {
		jv t = jv_array_get(jv_copy(seq), i);
		v[i] = jv_string_value(t);   /* the array holds it */
		jv_free(t);
	}
	for (i = 0; i < n; i++) {
		const char *const *at;
		if (!is_number_token(v[i]) || !(at = bsearch(&v[i], toks->v, toks->n, sizeof *toks->v, cmp_strp)))
			continue;
		k = (size_t)(at - (const char *const *)toks->v);
		for (dir = -1; dir <= 1; dir += 2)
			for (taken = 0, j = i + dir; j >= 0 && j < n && taken < NUMBER_WORDS; j += dir)
				if (!is_number_token(v[j]) && set_has(toks, v[j])) {
					rag_strv_push(&words[k], rag_xstrdup(v[j]));
					taken++;
				}
		set_finish(&words[k]);
	}
	free(v);
	jv_free(seq);
	return words;
}

/* Where the contexts cs[0..nc) state the claim's number n, qualified by words (a set): absent;
 * placed in a sentence among those that hold most of its words (or wherever, when those hold
 * no other number, or none holds any of them); else elsewhere. claim: the claim's tokens. */
static int number_placed(const struct context *cs, size_t nc, const char *n, const rag_strv *words,
                         const rag_strv *claim)
{
	size_t k, i, f, best = 0;
	int present = 0, in_best = 0, other = 0;

	for (k = 0; k < nc && !present; k++)
		present = set_has(&cs[k].nums, n);
	if (!present)
		return NUM_ABSENT;
	for (k = 0; k < nc && words->n; k++) {
		for (i = 0; i < cs[k].nsent; i++) {
			const struct sentence *s = &cs[k].sent[i];
			if (!(f = count_found(words, &s->toks)) || f < best)
				continue;
			if (f > best) {
				best = f;
				in_best = other = 0;
			}
			in_best |= sentence_has_number(s, n);
			other |= sentence_other_number(s, claim);
		}
	}
	return in_best || !other ? NUM_PLACED : NUM_ELSEWHERE;
}

/* The evidence for a claim is local: its words are counted in the best window of this many
 * consecutive sentences of a context, not across a whole page, where half the words of any
 * sentence on its subject are found somewhere. */
enum { EVIDENCE_WINDOW = 3 };

/* Does the set hold a word that begins with t, or that t begins with, both of at least 4
 * letters: "German" (german) for "Germany" (germani), a name's other form. With other, a word
 * other than t itself. */
static int kin_in(const rag_strv *set, const char *t, int other)
{
	size_t lo = 0, hi = set->n, mid, len = strlen(t), k;
	char buf[64];

	if (len < 4 || len >= sizeof buf)
		return 0;
	while (lo < hi) {     /* the first word >= t */
		mid = (lo + hi) / 2;
		if (strcmp(set->v[mid], t) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (other && lo < set->n && !strcmp(set->v[lo], t))
		lo++;
	if (lo < set->n && !strncmp(set->v[lo], t, len))
		return 1;
	for (k = 4; k < len; k++) {
		memcpy(buf, t, k);
		buf[k] = 0;
		if (set_has(set, buf))
			return 1;
	}
	return 0;
}

static int set_has_kin(const rag_strv *set, const char *t)
{
	return kin_in(set, t, 0);
}

/* What count_found_ctx knows of each claim token before it looks at windows. */
enum { TOK_NUMBER_FOUND = 1, TOK_KIN = 2 };

/* Is claim token k found in the window of EVIDENCE_WINDOW sentences of c from sentence i? A
 * number that c states with its words is found anywhere in c (how[k] & TOK_NUMBER_FOUND); with
 * TOK_KIN, a name that c holds in another form, also as a kin. */
static int found_in_window(const rag_strv *claim, const unsigned char *how, size_t k,
                           const struct context *c, const struct hits *h, size_t i)
{
	size_t j;

	if (how[k] & TOK_NUMBER_FOUND)
		return 1;
	for (j = i; j < i + EVIDENCE_WINDOW && j < c->nsent; j++)
		if (h->in[j * claim->n + k] ||
		    ((how[k] & TOK_KIN) && set_has_kin(&c->sent[j].toks, claim->v[k])))
			return 1;
	return 0;
}

/* Claim tokens found in a context: words in its best window of sentences, numbers placed with
 * their words (placed, per token: number_placed) anywhere in it (a number also counts when the
 * context has it as a month name: "01" in "1967-01-15" against "January"); names (isname, may
 * be NULL) also as a kin. *at: where the first best window starts; with found (claim->n
 * flags), which tokens it holds. */
static size_t count_found_ctx(const rag_strv *claim, const unsigned char *isname, const unsigned char *placed,
                              const struct context *c, const struct hits *h, size_t *at, unsigned char *found)
{
	size_t i, k, f, best = 0;
	unsigned char *how = rag_xmalloc(claim->n ? claim->n : 1);

	/* a sentence's words are the context's: where the context has no other form of a name, no
	 * window has one, and the window looks for the name alone */
	for (k = 0; k < claim->n; k++)
		how[k] = (unsigned char)((is_number_token(claim->v[k]) && placed[k] == NUM_PLACED ? TOK_NUMBER_FOUND : 0) |
		                         (isname && isname[k] && kin_in(&c->all, claim->v[k], 1) ? TOK_KIN : 0));
	*at = 0;
	for (i = 0; i < (c->nsent ? c->nsent : 1); i++) {
		for (f = 0, k = 0; k < claim->n; k++)
			f += (size_t)found_in_window(claim, how, k, c, h, i);
		if (f > best) {
			best = f;
			*at = i;
		}
	}
	for (k = 0; found && k < claim->n; k++)
		found[k] = (unsigned char)found_in_window(claim, how, k, c, h, *at);
	free(how);
	return best;
}

/* How one context (or all of them together) fares for one claim. */
struct cand {
	int level;           /* 0 too few words, 1 a number missing, 2 negation differs, 3 supported */
	int joined;          /* 1 for all contexts together */
	size_t idx;          /* the context, or for joined the one whose sentence matched best */
	size_t found;
	double share;
	rag_buf missing;     /* "20, 1880" */
	size_t nmissing;
	int elsewhere;       /* a number missing is stated, but not with its words */
	const struct sentence *sent;   /* the best-matching sentence, for the negation check */
	size_t sent_found;   /* the claim tokens it holds */
	const rag_strv *claim;   /* the claim's tokens */
	int checked;         /* the negation check has run */
	unsigned char *flags;   /* one context: which claim tokens its best window holds */
};

/* Best-matching sentence of context c: the most claim tokens, the first on a tie. */
static const struct sentence *best_sentence(const struct context *c, const struct hits *h,
                                            size_t *found)
{
	const struct sentence *best = NULL;
	size_t i, f;

	for (i = 0; i < c->nsent; i++) {
		f = h->cnt[i];
		if (!best || f > *found) {
			best = &c->sent[i];
			*found = f;
		}
	}
	return best;
}

/* Level from words and numbers; 2 until the negation check (see verify_one) says 3. */
static void cand_level(struct cand *cd, const rag_strv *claim, double threshold,
                       const struct sentence *best)
{
	cd->share = (double)cd->found / (double)claim->n;
	cd->sent = best;
	cd->claim = claim;
	if (cd->share + 1e-9 < threshold)
		cd->level = 0;
	else if (cd->nmissing)
		cd->level = 1;
	else
		cd->level = 2;
}

static void note_missing(struct cand *cd, const char *num, int state)
{
	cd->elsewhere |= state == NUM_ELSEWHERE;
	if (cd->nmissing++)
		rag_buf_adds(&cd->missing, ", ");
	rag_buf_adds(&cd->missing, num);
}

static void cand_single(struct cand *cd, const struct context *c, const struct hits *h, size_t idx,
                        const rag_strv *claim, const unsigned char *isname, const unsigned char *placed,
                        double threshold)
{
	const struct sentence *s;
	size_t i, f = 0, at;

	cd->idx = idx;
	cd->flags = rag_xmalloc(claim->n ? claim->n : 1);
	cd->found = count_found_ctx(claim, isname, placed, c, h, &at, cd->flags);
	for (i = 0; i < claim->n; i++)
		if (is_number_token(claim->v[i]) && placed[i] != NUM_PLACED)
			note_missing(cd, claim->v[i], placed[i]);
	s = best_sentence(c, h, &f);
	cd->sent_found = f;
	cand_level(cd, claim, threshold, s);
}

/* Is claim token i found in any of the contexts together: a number placed with its words
 * across them (jplaced), another word in any, a name also as a kin. */
static int found_joined(const rag_strv *claim, size_t i, const unsigned char *isname, const unsigned char *jplaced,
                        const struct context *cs, size_t nc)
{
	size_t k;

	if (is_number_token(claim->v[i]))
		return jplaced[i] == NUM_PLACED;
	for (k = 0; k < nc; k++)
		if (set_has(&cs[k].all, claim->v[i]) || (isname[i] && set_has_kin(&cs[k].all, claim->v[i])))
			return 1;
	return 0;
}

static void cand_joined(struct cand *cd, const struct context *cs, const struct hits *hs, size_t nc,
                        const rag_strv *claim, const unsigned char *isname, const unsigned char *jplaced,
                        double threshold)
{
	const struct sentence *s, *best = NULL;
	size_t i, k, f, bestf = 0;
	int hit;

	cd->joined = 1;
	for (i = 0; i < claim->n; i++) {
		hit = found_joined(claim, i, isname, jplaced, cs, nc);
		cd->found += (size_t)hit;
		if (is_number_token(claim->v[i]) && !hit)
			note_missing(cd, claim->v[i], jplaced[i]);
	}
	for (k = 0; k < nc; k++) {
		f = 0;
		if ((s = best_sentence(&cs[k], &hs[k], &f)) && (!best || f > bestf)) {
			best = s;
			bestf = f;
			cd->idx = k;
		}
	}
	cd->sent_found = bestf;
	cand_level(cd, claim, threshold, best);
}

/* The negation check of a candidate: the claim's negation agrees with its best sentence; or,
 * for a claim that denies something, with another sentence of the same context(s) that matches
 * the claim at least half as well. A denial is often made in a sentence of its own ("...three
 * bodies which have never been identified") beside the one that shares most words with the
 * claim; and such a sentence agrees only when it denies the same things, so a positive claim is
 * still held to its best sentence. */
static int negation_ok(const struct cand *cd, const char *claim, rag_negation **cneg,
                       const struct context *cs, const struct hits *hs, size_t nc)
{
	size_t k, i, f;

	if (!cd->sent)
		return rag_text_negation_agrees(claim, "");
	if (!*cneg)
		*cneg = rag_negation_scan(claim);
	if (rag_negation_agree(*cneg, sentence_neg(cd->sent)))
		return 1;
	if (!rag_negation_denies(*cneg))
		return 0;
	for (k = cd->joined ? 0 : cd->idx; k < (cd->joined ? nc : cd->idx + 1); k++) {
		for (i = 0; i < cs[k].nsent; i++) {
			const struct sentence *s = &cs[k].sent[i];
			if (s == cd->sent)
				continue;
			f = hs[k].cnt[i];
			if (f && 2 * f >= cd->sent_found && rag_negation_denies(sentence_neg(s)) &&
			    rag_negation_agree(*cneg, sentence_neg(s)))
				return 1;
		}
	}
	return 0;
}

/* Is a better than b: a higher level, then one context over all together, then more words
 * found, then the earlier context; except that where no candidate reaches the threshold, more
 * words found come first: a claim a quarter of whose words are in each of two contexts is half
 * found in them together, not a quarter in one. */
static int cand_better(const struct cand *a, const struct cand *b)
{
	if (a->level != b->level)
		return a->level > b->level;
	if (a->level == 0 && a->found != b->found)
		return a->found > b->found;
	if (a->joined != b->joined)
		return !a->joined;
	if (a->found != b->found)
		return a->found > b->found;
	return a->idx < b->idx;
}

static jv verdict(jv claim, int ok, const char *reason, jv context, double score)
{
	jv v = jv_object();
	v = jv_object_set(v, jv_string("claim"), claim);
	v = jv_object_set(v, jv_string("verdict"), jv_bool(ok));
	v = jv_object_set(v, jv_string("reason"), jv_string(reason));
	v = jv_object_set(v, jv_string("context"), context);
	v = jv_object_set(v, jv_string("score"), jv_number(floor(score * 1e4 + 0.5) / 1e4));
	return v;
}

/* The graded score's discounts: for each name of the claim its evidence lacks, for each number
 * missing from it, for a negation that differs. */
#define NAME_DISCOUNT 0.8
#define NUMBER_DISCOUNT 0.5
#define NEGATION_DISCOUNT 0.25

/* Which claim tokens the candidate's evidence holds (found, toks->n flags): for one context its
 * best window, for all together any of them. */
static void cand_found(const struct cand *cd, const rag_strv *toks, const unsigned char *isname,
                       const unsigned char *jplaced, const struct context *cs, size_t nc, unsigned char *found)
{
	size_t i;

	if (!cd->joined) {
		memcpy(found, cd->flags, toks->n);
		return;
	}
	for (i = 0; i < toks->n; i++)
		found[i] = (unsigned char)found_joined(toks, i, isname, jplaced, cs, nc);
}

/* The claim's names its evidence lacks, as the claim writes them ("Nepal, Libya") into missing;
 * their count. A name counts as found when its evidence (found) or its context (for all
 * contexts together, any) has it or a kin of it (set_has_kin). */
static size_t names_missing(const rag_strv *toks, const unsigned char *found, const rag_strv *ntoks,
                            const rag_strv *nwords, const struct cand *cd, const struct context *cs,
                            size_t nc, rag_buf *missing)
{
	size_t i, k, j, n = 0;
	rag_strv seen = { 0 };
	int kin;

	for (i = 0; i < toks->n; i++) {
		if (found[i])
			continue;
		for (k = 0; k < ntoks->n; k++)
			if (!strcmp(ntoks->v[k], toks->v[i]))
				break;
		if (k == ntoks->n)
			continue;
		for (kin = 0, j = cd->joined ? 0 : cd->idx; j < (cd->joined ? nc : cd->idx + 1) && !kin; j++)
			kin = set_has_kin(&cs[j].all, toks->v[i]);
		if (kin)
			continue;
		n++;
		for (j = 0; j < seen.n && strcmp(seen.v[j], nwords->v[k]); j++)
			;
		if (j == seen.n) {
			if (seen.n)
				rag_buf_adds(missing, ", ");
			rag_buf_adds(missing, nwords->v[k]);
			rag_strv_push(&seen, rag_xstrdup(nwords->v[k]));
		}
	}
	rag_strv_free(&seen);
	return n;
}

/* A number stated, but not with the claim's words for it: "number 30 not with its words in
 * context 1". */
#define WITH_WORDS "with its words "

/* After the numbers a candidate misses: " not in it", " not with its words in any"... */
static const char *missing_where(const struct cand *cd, const char *where)
{
	if (!cd->nmissing)
		return "";
	if (!strcmp(where, "any"))
		return cd->elsewhere ? " not " WITH_WORDS "in any" : " not in any";
	return cd->elsewhere ? " not " WITH_WORDS "in it" : " not in it";
}

/* The words each number of the claim (toks) qualifies, and where each number stands
 * (number_placed): in each context, *placed[i * toks->n + k], and in all together, *jplaced[k]. */
static rag_strv *place_numbers(const char *claim, const rag_strv *toks, const struct context *cs, size_t nc,
                               unsigned char **placed, unsigned char **jplaced)
{
	rag_strv *words = number_words(claim, toks);
	size_t i, k;

	*placed = rag_xcalloc(nc * toks->n + 1, 1);
	*jplaced = rag_xcalloc(toks->n + 1, 1);
	for (k = 0; k < toks->n; k++) {
		if (!is_number_token(toks->v[k]))
			continue;
		for (i = 0; i < nc; i++)
			(*placed)[i * toks->n + k] = (unsigned char)number_placed(&cs[i], 1, toks->v[k], &words[k], toks);
		(*jplaced)[k] = (unsigned char)number_placed(cs, nc, toks->v[k], &words[k], toks);
	}
	return words;
}

static void numbers_free(rag_strv *words, size_t n, unsigned char *placed, unsigned char *jplaced)
{
	size_t k;

	for (k = 0; k < n; k++)
		rag_strv_free(&words[k]);
	free(words);
	free(placed);
	free(jplaced);
}

static jv verify_plain(jv claim, const struct context *cs, size_t nc, double threshold)
{
	rag_strv toks = { 0 }, ntoks = { 0 }, namewords = { 0 };
	rag_buf names = { 0 };
	struct cand *cands, *best;
	size_t i, o, ncand, most = 0, nnames;
	unsigned char *found, *isname;
	unsigned char *placed, *jplaced;   /* each number's place in each context, in all together */
	rag_strv *nwords;                  /* the words each number qualifies */
	int pct, tpct;
	double score;
	char *reason, *tail;
	jv ctx = jv_null(), out;
	rag_negation *cneg = NULL;   /* the claim's negation scan, when a check needs it */
	struct hits *hs;             /* the claim's tokens in each context's sentences */

	if (jv_get_kind(claim) != JV_KIND_STRING)
		return verdict(claim, 0, "claim is not a string", jv_null(), 0);
	if (!nc)
		return verdict(claim, 0, "no contexts", jv_null(), 0);
	add_tokens(&toks, jv_string_value(claim));
	set_finish(&toks);
	if (!toks.n) {
		rag_strv_free(&toks);
		return verdict(claim, 0, "claim has no content words", jv_null(), 0);
	}
	/* light words out, unless they are all the claim has */
	for (i = o = 0; i < toks.n; i++)
		if (!is_light(toks.v[i]))
			o++;
	if (o) {
		for (i = o = 0; i < toks.n; i++) {
			if (is_light(toks.v[i]))
				free(toks.v[i]);
			else
				toks.v[o++] = toks.v[i];
		}
		toks.n = o;
	}
	claim_names(jv_string_value(claim), &ntoks, &namewords);
	isname = rag_xmalloc(toks.n);
	for (i = 0; i < toks.n; i++)
		for (isname[i] = 0, o = 0; o < ntoks.n && !isname[i]; o++)
			isname[i] = !strcmp(ntoks.v[o], toks.v[i]);

	nwords = place_numbers(jv_string_value(claim), &toks, cs, nc, &placed, &jplaced);
	hs = rag_xmalloc(nc * sizeof *hs);
	for (i = 0; i < nc; i++)
		hits_make(&hs[i], &toks, &cs[i]);
	ncand = nc + (nc > 1);
	cands = rag_xmalloc(ncand * sizeof *cands);
	memset(cands, 0, ncand * sizeof *cands);
	for (i = 0; i < nc; i++) {
		cand_single(&cands[i], &cs[i], &hs[i], i, &toks, isname, placed + i * toks.n, threshold);
		if (cands[i].found > cands[most].found)
			most = i;
	}
	if (nc > 1)
		cand_joined(&cands[nc], cs, hs, nc, &toks, isname, jplaced, threshold);
	/* The negation check costs the most: it runs on the candidates in order of preference and
	 * stops at the first that agrees. */
	for (;;) {
		best = NULL;
		for (i = 0; i < ncand; i++)
			if (cands[i].level == 2 && !cands[i].checked && (!best || cand_better(&cands[i], best)))
				best = &cands[i];
		if (!best)
			break;
		best->checked = 1;
		if (negation_ok(best, jv_string_value(claim), &cneg, cs, hs, nc)) {
			best->level = 3;
			break;
		}
	}
	best = &cands[0];
	for (i = 1; i < ncand; i++)
		if (cand_better(&cands[i], best))
			best = &cands[i];

	found = rag_xmalloc(toks.n);
	cand_found(best, &toks, isname, jplaced, cs, nc, found);
	nnames = names_missing(&toks, found, &ntoks, &namewords, best, cs, nc, &names);
	free(found);
	/* one formula for yes and no: a supported claim with a third of its words unfound is less
	 * sure than one with all (a missing number or negation cannot be supported: level 3 has
	 * neither) */
	score = best->share * pow(NUMBER_DISCOUNT, (double)best->nmissing) *
	        (best->level == 2 ? NEGATION_DISCOUNT : 1.0) * pow(NAME_DISCOUNT, (double)nnames);
	tail = nnames ? rag_xasprintf("; name%s %s not in %s", strchr(names.p, ',') ? "s" : "", names.p,
	                              best->joined ? "any context" : "it")
	              : rag_xstrdup("");

	pct = (int)floor(best->share * 100.0 + 1e-9);
	tpct = (int)floor(threshold * 100.0 + 0.5);
	switch (best->level) {
	case 3:
		if (best->joined) {
			reason = rag_xasprintf("supported by the contexts together (%d%% of content words%s)", pct, tail);
			ctx = jv_number((double)most);
		} else {
			reason = rag_xasprintf("supported by context %zu (%d%% of content words%s)", best->idx + 1, pct, tail);
			ctx = jv_number((double)best->idx);
		}
		break;
	case 2:
		reason = rag_xasprintf("negation differs from context %zu%s", best->idx + 1, tail);
		ctx = jv_number((double)best->idx);
		break;
	case 1:
		if (best->joined) {
			reason = rag_xasprintf("number%s %s not %sin any context%s", best->nmissing > 1 ? "s" : "",
			                       best->missing.p, best->elsewhere ? WITH_WORDS : "", tail);
		} else {
			reason = rag_xasprintf("number%s %s not %sin context %zu%s", best->nmissing > 1 ? "s" : "",
			                       best->missing.p, best->elsewhere ? WITH_WORDS : "", best->idx + 1, tail);
			ctx = jv_number((double)best->idx);
		}
		break;
	default:
		if (!best->found) {
			reason = rag_xstrdup("no content words found in any context");
		} else if (best->joined) {
			reason = rag_xasprintf("%d%% of content words found in the contexts together (below %d%%)%s%s%s%s",
			                       pct, tpct,
			                       best->nmissing ? (best->nmissing > 1 ? "; numbers " : "; number ") : "",
			                       best->nmissing ? best->missing.p : "", missing_where(best, "any"), tail);
			ctx = jv_number((double)most);
		} else {
			reason = rag_xasprintf("%d%% of content words found in context %zu (below %d%%)%s%s%s%s",
			                       pct, best->idx + 1, tpct,
			                       best->nmissing ? (best->nmissing > 1 ? "; numbers " : "; number ") : "",
			                       best->nmissing ? best->missing.p : "", missing_where(best, "it"), tail);
			ctx = jv_number((double)best->idx);
		}
		break;
	}
	out = verdict(claim, best->level == 3, reason, ctx, score);
	free(reason);
	free(tail);
	rag_buf_free(&names);
	for (i = 0; i < ncand; i++) {
		rag_buf_free(&cands[i].missing);
		free(cands[i].flags);
	}
	free(cands);
	for (i = 0; i < nc; i++)
		hits_free(&hs[i]);
	free(hs);
	rag_negation_free(cneg);
	free(isname);
	numbers_free(nwords, toks.n, placed, jplaced);
	rag_strv_free(&toks);
	rag_strv_free(&ntoks);
	rag_strv_free(&namewords);
	return out;
}

/* Where a claim sets a denial against what it states, "The X200 supports Wi-Fi 6, not Wi-Fi 7."
 * or "保修期为两年，而不是三年。": 1, with the end of the statement (*head, before the comma) and
 * the start of the denial (*tail: "not Wi-Fi 7.", "不是三年。"); else 0. Such a claim holds two
 * facts of opposite sign, and checked as one its negation agrees with no sentence. The denial is
 * short and ends the claim; "not only", "not surprisingly" and other idioms in which not denies
 * nothing of its own are no contrast. */
static int contrast_at(const char *c, size_t *head, size_t *tail)
{
	static const char *const idioms[] = {
		"only", "surprisingly", "least", "yet", "to", "always", "even", "quite", "just",
		"necessarily", "all", "every", "much", "long", "far", "unlike", "counting", NULL,
	};
	const char *p, *q, *t;
	size_t words = 0, k;

	if ((p = strstr(c, "，而不是")) || (p = strstr(c, "，而非"))) {
		*head = (size_t)(p - c);
		*tail = *head + strlen("，而");
		return *head > 0;
	}
	if (!(p = strstr(c, ", not ")) && !(p = strstr(c, ", but not ")))
		return 0;
	t = strstr(p, "not ");
	for (k = 0, q = t + 4; idioms[k]; k++) {
		size_t l = strlen(idioms[k]);
		if (!strncmp(q, idioms[k], l) && (q[l] == ' ' || q[l] == ',' || q[l] == '.' || !q[l]))
			return 0;
	}
	for (; *q; q++) {
		if (*q == ',' || *q == ';' || *q == ':')
			return 0;
		words += *q == ' ';
	}
	*head = (size_t)(p - c);
	*tail = (size_t)(t - c);
	return *head > 0 && words < 8;
}

/* Is the denial of a contrast (the tokens deny, of the text after its "not") contradicted, and
 * by which context: a sentence holds all of them, says no negation, and shares a word with the
 * statement before it (head): "supports Wi-Fi 7" against "..., not Wi-Fi 7". A sentence that
 * holds them and denies them backs the denial; one that never names them says nothing either
 * way, and then the statement decides ("two years, not three": the context gives the two). */
static int denial_contradicted(const rag_strv *deny, const rag_strv *head, const struct context *cs,
                               size_t nc, size_t *ctx)
{
	size_t k, i, j;
	int against = 0;

	for (k = 0; k < nc; k++) {
		for (i = 0; i < cs[k].nsent; i++) {
			const struct sentence *s = &cs[k].sent[i];
			if (count_found(deny, &s->toks) < deny->n)
				continue;
			if (rag_negation_denies(sentence_neg(s)))
				return 0;
			for (j = 0; j < head->n && !against; j++)
				if (!set_has(deny, head->v[j]) && set_has(&s->toks, head->v[j])) {
					against = 1;
					*ctx = k;
				}
		}
	}
	return against;
}

/* A claim's verdict. A contrast (contrast_at) is checked as its statement, unless a context
 * contradicts its denial (denial_contradicted): then it is unsupported, scored as a negation
 * that differs. */
static jv verify_one(jv claim, const struct context *cs, size_t nc, double threshold)
{
	size_t h, t, at = 0;
	rag_strv deny = { 0 }, head = { 0 };
	jv out;
	const char *c;
	char *stated, *why;

	if (jv_get_kind(claim) != JV_KIND_STRING || !contrast_at(jv_string_value(claim), &h, &t))
		return verify_plain(claim, cs, nc, threshold);
	c = jv_string_value(claim);
	stated = rag_xstrndup(c, h);
	out = verify_plain(jv_string(stated), cs, nc, threshold);
	add_tokens(&deny, c + t);
	set_finish(&deny);
	add_tokens(&head, stated);
	set_finish(&head);
	if (deny.n && denial_contradicted(&deny, &head, cs, nc, &at)) {
		size_t l = strlen(c + t);
		jv g = jv_object_get(jv_copy(out), jv_string("score"));
		double sc = jv_get_kind(g) == JV_KIND_NUMBER ? jv_number_value(g) : 0;
		jv_free(g);
		for (;;) {      /* the quoted denial without its full stop */
			if (l > 0 && strchr(".!?", c[t + l - 1]))
				l--;
			else if (l >= 3 && !memcmp(c + t + l - 3, "。", 3))
				l -= 3;
			else
				break;
		}
		why = rag_xasprintf("\"%.*s\" is contradicted by context %zu", (int)l, c + t, at + 1);
		out = jv_object_set(out, jv_string("verdict"), jv_false());
		out = jv_object_set(out, jv_string("reason"), jv_string(why));
		out = jv_object_set(out, jv_string("context"), jv_number((double)at));
		out = jv_object_set(out, jv_string("score"),
		                    jv_number(floor(sc * NEGATION_DISCOUNT * 1e4 + 0.5) / 1e4));
		free(why);
	}
	free(stated);
	rag_strv_free(&deny);
	rag_strv_free(&head);
	return jv_object_set(out, jv_string("claim"), claim);
}

jv rag_offline_verify(jv claims, jv contexts, double threshold)
{
	struct context *cs;
	size_t nc = 0, i;
	int n, k;
	jv out = jv_array();

	if (!(threshold >= 0.0 && threshold <= 1.0))
		threshold = 0.6;
	if (jv_get_kind(claims) != JV_KIND_ARRAY) {
		jv_free(claims);
		jv_free(contexts);
		return out;
	}
	if (jv_get_kind(contexts) == JV_KIND_ARRAY)
		nc = (size_t)jv_array_length(jv_copy(contexts));
	cs = rag_xmalloc((nc ? nc : 1) * sizeof *cs);
	for (i = 0; i < nc; i++) {
		jv t = jv_array_get(jv_copy(contexts), (int)i);
		char *fixed = rag_utf8_sanitize(jv_get_kind(t) == JV_KIND_STRING ? jv_string_value(t) : "",
		                                jv_get_kind(t) == JV_KIND_STRING ?
		                                (size_t)jv_string_length_bytes(jv_copy(t)) : 0);
		context_build(&cs[i], fixed);
		free(fixed);
		jv_free(t);
	}
	n = jv_array_length(jv_copy(claims));
	for (k = 0; k < n; k++)
		out = jv_array_append(out, verify_one(jv_array_get(jv_copy(claims), k), cs, nc, threshold));
	for (i = 0; i < nc; i++)
		context_free(&cs[i]);
	free(cs);
	jv_free(claims);
	jv_free(contexts);
	return out;
}
