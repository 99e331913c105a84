/* claimcheck.c - the offline judge's verdicts: each claim checked against the contexts by its
 * words, its numbers and its negation, no network.
 *
 * It is deliberately simple and deterministic, so that a run without an LLM still gives scores
 * that move the right way: a wrong date, a wrong number or a flipped negation makes a claim
 * unsupported even when most of its words are found. Words are compared as rag_text_tokens
 * (text.c); contexts are cut into sentences as claimsplit.c cuts answers. */
#include "rag.h"

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

/* Stemmed month names (as rag_text_tokens gives them) and their numbers: a context saying
 * "14 March 1879" also supports the 3 of "1879-03-14" and "1879年3月14日". */
static const char *const month_stems[][2] = {
	{ "januari", "1" }, { "februari", "2" }, { "march", "3" }, { "april", "4" }, { "may", "5" },
	{ "june", "6" }, { "juli", "7" }, { "august", "8" }, { "septemb", "9" }, { "octob", "10" },
	{ "novemb", "11" }, { "decemb", "12" },
};

struct sentence {
	rag_strv toks;    /* set */
	char *text;
};

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
	}
	free(c->sent);
	rag_strv_free(&c->all);
	rag_strv_free(&c->nums);
}

static size_t count_found(const rag_strv *claim, const rag_strv *set)
{
	size_t i, f = 0;
	for (i = 0; i < claim->n; i++)
		if (set_has(set, claim->v[i]))
			f++;
	return f;
}

/* The evidence for a claim is local: its words are counted in the best window of this many
 * consecutive sentences of a context, not across a whole page, where half the words of any
 * sentence on its subject are found somewhere. */
enum { EVIDENCE_WINDOW = 3 };

/* Claim tokens found in a context: words in its best window of sentences, numbers anywhere in
 * it (a number also counts when the context has it as a month name: "01" in "1967-01-15"
 * against "January"). */
static size_t count_found_ctx(const rag_strv *claim, const struct context *c)
{
	size_t i, k, j, f, nums = 0, best = 0;
	int hit;

	for (k = 0; k < claim->n; k++)
		nums += is_number_token(claim->v[k]) && set_has(&c->nums, claim->v[k]);
	for (i = 0; i < (c->nsent ? c->nsent : 1); i++) {
		for (f = nums, k = 0; k < claim->n; k++) {
			if (is_number_token(claim->v[k]) && set_has(&c->nums, claim->v[k]))
				continue;
			for (hit = 0, j = i; j < i + EVIDENCE_WINDOW && j < c->nsent && !hit; j++)
				hit = set_has(&c->sent[j].toks, claim->v[k]);
			f += (size_t)hit;
		}
		if (f > best)
			best = f;
	}
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
	const struct sentence *sent;   /* the best-matching sentence, for the negation check */
	size_t sent_found;   /* the claim tokens it holds */
	const rag_strv *claim;   /* the claim's tokens */
	int checked;         /* the negation check has run */
};

/* Best-matching sentence of context c: the most claim tokens, the first on a tie. */
static const struct sentence *best_sentence(const struct context *c, const rag_strv *claim,
                                            size_t *found)
{
	const struct sentence *best = NULL;
	size_t i, f;

	for (i = 0; i < c->nsent; i++) {
		f = count_found(claim, &c->sent[i].toks);
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

static void note_missing(struct cand *cd, const char *num)
{
	if (cd->nmissing++)
		rag_buf_adds(&cd->missing, ", ");
	rag_buf_adds(&cd->missing, num);
}

static void cand_single(struct cand *cd, const struct context *c, size_t idx,
                        const rag_strv *claim, double threshold)
{
	const struct sentence *s;
	size_t i, f = 0;

	cd->idx = idx;
	cd->found = count_found_ctx(claim, c);
	for (i = 0; i < claim->n; i++)
		if (is_number_token(claim->v[i]) && !set_has(&c->nums, claim->v[i]))
			note_missing(cd, claim->v[i]);
	s = best_sentence(c, claim, &f);
	cd->sent_found = f;
	cand_level(cd, claim, threshold, s);
}

static void cand_joined(struct cand *cd, const struct context *cs, size_t nc,
                        const rag_strv *claim, double threshold)
{
	const struct sentence *s, *best = NULL;
	size_t i, k, f, bestf = 0;
	int hit;

	cd->joined = 1;
	for (i = 0; i < claim->n; i++) {
		int num = is_number_token(claim->v[i]);
		for (hit = 0, k = 0; k < nc && !hit; k++)
			hit = set_has(&cs[k].all, claim->v[i]) || (num && set_has(&cs[k].nums, claim->v[i]));
		cd->found += (size_t)hit;
		if (num && !hit)
			note_missing(cd, claim->v[i]);
	}
	for (k = 0; k < nc; k++) {
		f = 0;
		if ((s = best_sentence(&cs[k], claim, &f)) && (!best || f > bestf)) {
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
static int negation_ok(const struct cand *cd, const char *claim, const struct context *cs, size_t nc)
{
	size_t k, i, f;
	const rag_strv *toks;

	if (rag_text_negation_agrees(claim, cd->sent ? cd->sent->text : ""))
		return 1;
	if (!cd->sent || !rag_text_negation(claim))
		return 0;
	toks = cd->claim;
	for (k = cd->joined ? 0 : cd->idx; k < (cd->joined ? nc : cd->idx + 1); k++) {
		for (i = 0; i < cs[k].nsent; i++) {
			const struct sentence *s = &cs[k].sent[i];
			if (s == cd->sent)
				continue;
			f = count_found(toks, &s->toks);
			if (f && 2 * f >= cd->sent_found && rag_text_negation(s->text) &&
			    rag_text_negation_agrees(claim, s->text))
				return 1;
		}
	}
	return 0;
}

/* Is a better than b: a higher level, then one context over all together, then more words
 * found, then the earlier context. */
static int cand_better(const struct cand *a, const struct cand *b)
{
	if (a->level != b->level)
		return a->level > b->level;
	if (a->joined != b->joined)
		return !a->joined;
	if (a->found != b->found)
		return a->found > b->found;
	return a->idx < b->idx;
}

static jv verdict(jv claim, int ok, const char *reason, jv context)
{
	jv v = jv_object();
	v = jv_object_set(v, jv_string("claim"), claim);
	v = jv_object_set(v, jv_string("verdict"), jv_bool(ok));
	v = jv_object_set(v, jv_string("reason"), jv_string(reason));
	v = jv_object_set(v, jv_string("context"), context);
	return v;
}

static jv verify_one(jv claim, const struct context *cs, size_t nc, double threshold)
{
	rag_strv toks = { 0 };
	struct cand *cands, *best;
	size_t i, ncand, most = 0;
	int pct, tpct;
	char *reason;
	jv ctx = jv_null(), out;

	if (jv_get_kind(claim) != JV_KIND_STRING)
		return verdict(claim, 0, "claim is not a string", jv_null());
	if (!nc)
		return verdict(claim, 0, "no contexts", jv_null());
	add_tokens(&toks, jv_string_value(claim));
	set_finish(&toks);
	if (!toks.n) {
		rag_strv_free(&toks);
		return verdict(claim, 0, "claim has no content words", jv_null());
	}

	ncand = nc + (nc > 1);
	cands = rag_xmalloc(ncand * sizeof *cands);
	memset(cands, 0, ncand * sizeof *cands);
	for (i = 0; i < nc; i++) {
		cand_single(&cands[i], &cs[i], i, &toks, threshold);
		if (cands[i].found > cands[most].found)
			most = i;
	}
	if (nc > 1)
		cand_joined(&cands[nc], cs, nc, &toks, threshold);
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
		if (negation_ok(best, jv_string_value(claim), cs, nc)) {
			best->level = 3;
			break;
		}
	}
	best = &cands[0];
	for (i = 1; i < ncand; i++)
		if (cand_better(&cands[i], best))
			best = &cands[i];

	pct = (int)floor(best->share * 100.0 + 1e-9);
	tpct = (int)floor(threshold * 100.0 + 0.5);
	switch (best->level) {
	case 3:
		if (best->joined) {
			reason = rag_xasprintf("supported by the contexts together (%d%% of content words)", pct);
			ctx = jv_number((double)most);
		} else {
			reason = rag_xasprintf("supported by context %zu (%d%% of content words)", best->idx + 1, pct);
			ctx = jv_number((double)best->idx);
		}
		break;
	case 2:
		reason = rag_xasprintf("negation differs from context %zu", best->idx + 1);
		ctx = jv_number((double)best->idx);
		break;
	case 1:
		if (best->joined) {
			reason = rag_xasprintf("number%s %s not in any context", best->nmissing > 1 ? "s" : "",
			                       best->missing.p);
		} else {
			reason = rag_xasprintf("number%s %s not in context %zu", best->nmissing > 1 ? "s" : "",
			                       best->missing.p, best->idx + 1);
			ctx = jv_number((double)best->idx);
		}
		break;
	default:
		if (!best->found) {
			reason = rag_xstrdup("no content words found in any context");
		} else {
			reason = rag_xasprintf("%d%% of content words found in context %zu (below %d%%)%s%s%s",
			                       pct, best->idx + 1, tpct,
			                       best->nmissing ? (best->nmissing > 1 ? "; numbers " : "; number ") : "",
			                       best->nmissing ? best->missing.p : "",
			                       best->nmissing ? " not in it" : "");
			ctx = jv_number((double)best->idx);
		}
		break;
	}
	out = verdict(claim, best->level == 3, reason, ctx);
	free(reason);
	for (i = 0; i < ncand; i++)
		rag_buf_free(&cands[i].missing);
	free(cands);
	rag_strv_free(&toks);
	return out;
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
