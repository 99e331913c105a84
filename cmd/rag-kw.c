/* rag-kw - lexical metrics of a text field against another, no model, no network: keyword
 * overlap (with a pass verdict), token F1, exact match, required and forbidden strings and
 * patterns, Levenshtein similarity, ROUGE, BLEU and chrF. The maths is lib/lexical.c and
 * lib/keywords.c; this file reads the fields and writes the results. */
#include "tool.h"
#include "base.h"
#include "record.h"
#include "stream.h"
#include "metric.h"
#include "rank.h"
#include "lexical.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-kw [OPTIONS] < records.jsonl > records.jsonl\n"
	"Lexical metrics of each record's answer against its reference, written to scores.<NAME>;\n"
	"keyword_overlap also writes keywords.found, keywords.missed (keywords.partly) and\n"
	"verdicts.keyword_overlap.\n";

enum { OPT_FROM = RAG_OPT_TOOL, OPT_AGAINST, OPT_THRESHOLD, OPT_STEM, OPT_PR, OPT_TOKENIZE,
       OPT_SMOOTH, OPT_LOWERCASE };

#define METRICS "keyword_overlap token_f1 exact_match contains contains_all regex levenshtein " \
	"rouge1 rouge2 rougeL rougeLsum bleu chrf refusal"

static const rag_opt options[] = {
	{"metrics", 'm', 'm', "LIST", METRICS,
	 "keyword_overlap, token_f1, exact_match, contains, contains_all, regex,\n"
	 "levenshtein, rouge1, rouge2, rougeL, rougeLsum, bleu, chrf, refusal,\n"
	 "comma-separated (default keyword_overlap)"},
	{"from", 0, OPT_FROM, "FIELD", "answer response reference question", "the text scored (default answer)"},
	{"against", 0, OPT_AGAINST, "FIELD", "reference ground_truth answer", "the text it is compared with (default reference)"},
	{"threshold", 0, OPT_THRESHOLD, "X", NULL, "keyword_overlap passes at X or more (default 0.3)"},
	{"stem", 0, OPT_STEM, NULL, NULL, "Porter-stem ROUGE's words longer than 3 letters"},
	{"precision-recall", 0, OPT_PR, NULL, NULL, "also scores.<m>_precision and <m>_recall (ROUGE, token_f1)"},
	{"tokenize", 0, OPT_TOKENIZE, "NAME", "auto 13a none zh char",
	 "BLEU's tokens: auto (default: zh for a record whose lang\n"
	 "or text is Chinese or Japanese, else 13a) | 13a | none | zh | char"},
	{"smooth", 0, OPT_SMOOTH, "METHOD", "exp none floor add-k", "BLEU's smoothing: exp (default) | none | floor | add-k"},
	{"lowercase", 0, OPT_LOWERCASE, NULL, NULL, "BLEU and chrF ignore case"},
	RAG_OPT_END
};

enum kind { KEYWORD, TOKEN_F1, EXACT, CONTAINS, CONTAINS_ALL, REGEX, LEVENSHTEIN, ROUGE1, ROUGE2,
            ROUGEL, ROUGELSUM, BLEU, CHRF, REFUSAL, NKINDS };
static const char *const names[NKINDS] = {
	"keyword_overlap", "token_f1", "exact_match", "contains", "contains_all", "regex", "levenshtein",
	"rouge1", "rouge2", "rougeL", "rougeLsum", "bleu", "chrf", "refusal",
};

typedef struct tool {
	rag_cli *cli;
	int want[NKINDS], nwant;
	const char *from, *against;
	double threshold;
	int stem, pr;
	rag_bleu_opts bleu;
	int tokenize_auto;        /* --tokenize auto: BLEU's tokenizer chosen per record */
	rag_chrf_opts chrf;
	rag_keywords *kw;
	jv refusals;              /* share/refusals.txt, for refusal */
} tool;

/* The list a record names for field (a string or an array of strings), else the config's. 1 with
 * *out set (borrowed strings, a malloc'ed array), 0 when neither has one, -1 mistyped. */
static int list_of(jv rec, const char *field, const rag_strv *cfg, jv *keep, const char ***out, size_t *n)
{
	jv v = rag_record_get(rec, field);
	size_t i;
	*keep = jv_null();
	*out = NULL;
	*n = 0;
	if (!jv_is_valid(v) || jv_get_kind(v) == JV_KIND_NULL) {
		jv_free(v);
		if (!cfg->n) return 0;
		*out = rag_xmalloc(cfg->n * sizeof **out);
		for (i = 0; i < cfg->n; i++) (*out)[i] = cfg->v[i];
		*n = cfg->n;
		return 1;
	}
	if (jv_get_kind(v) == JV_KIND_STRING) v = JV_ARRAY(v);
	if (jv_get_kind(v) != JV_KIND_ARRAY) {
		jv_free(v);
		return -1;
	}
	*out = rag_xmalloc(((size_t)jv_array_length(jv_copy(v)) + 1) * sizeof **out);
	jv_array_foreach(v, j, s) {
		if (jv_get_kind(s) != JV_KIND_STRING) {
			jv_free(s);
			jv_free(v);
			free(*out);
			*out = NULL;
			return -1;
		}
		(*out)[(*n)++] = jv_string_value(s);   /* lives in v, which *keep holds */
		jv_free(s);
		(void)j;
	}
	*keep = v;
	return 1;
}

/* contains / contains_all / regex: 1, 0, or -1 with err (an input error). */
static int presence(const tool *t, int k, jv rec, const char *text, char *err, size_t errlen)
{
	const char *yes_f = k == REGEX ? "must_match" : "must_contain";
	const char *no_f = k == REGEX ? "must_not_match" : "must_not_contain";
	const rag_strv *yes_c = k == REGEX ? &t->cli->cfg.kw.must_match : &t->cli->cfg.kw.must_contain;
	const rag_strv *no_c = k == REGEX ? &t->cli->cfg.kw.must_not_match : &t->cli->cfg.kw.must_not_contain;
	jv ky, kn;
	const char **yes, **no;
	size_t ny, nn, i;
	int hy, hn, pass, any = 0, all = 1, m;

	hy = list_of(rec, yes_f, yes_c, &ky, &yes, &ny);
	hn = list_of(rec, no_f, no_c, &kn, &no, &nn);
	if (hy < 0 || hn < 0) {
		rag_seterr(err, errlen, "%s is not a string or an array of strings", hy < 0 ? yes_f : no_f);
		pass = -1;
		goto out;
	}
	if (!hy && !hn) {
		rag_seterr(err, errlen, "no %s or %s in the record or the configuration", yes_f, no_f);
		pass = -1;
		goto out;
	}
	for (i = 0; i < ny; i++) {
		if (k == REGEX) {
			if (rag_lex_regex(text, yes[i], &m, err, errlen) < 0) { pass = -1; goto out; }
		} else {
			m = rag_lex_contains(text, yes[i]);
		}
		any |= m;
		all &= m;
	}
	/* contains: one of the list is enough; contains_all and regex: every one */
	pass = ny == 0 || (k == CONTAINS ? any : all);
	for (i = 0; i < nn; i++) {
		if (k == REGEX) {
			if (rag_lex_regex(text, no[i], &m, err, errlen) < 0) { pass = -1; goto out; }
		} else {
			m = rag_lex_contains(text, no[i]);
		}
		if (m) pass = 0;
	}
out:
	free(yes);
	free(no);
	jv_free(ky);
	jv_free(kn);
	return pass;
}

static void set(rag_item *it, const char *name, double v)
{
	it->rec = rag_record_set(it->rec, "scores", name, jv_number(v));
}

static void set_prf(rag_item *it, const tool *t, const char *name, const rag_prf *p)
{
	char b[64];
	set(it, name, p->f);
	if (!t->pr) return;
	snprintf(b, sizeof b, "%s_precision", name);
	set(it, b, p->precision);
	snprintf(b, sizeof b, "%s_recall", name);
	set(it, b, p->recall);
}

static void set_null(rag_item *it, const tool *t, int k)
{
	char b[64];
	it->rec = rag_record_set(it->rec, "scores", names[k], jv_null());
	if (k == KEYWORD || k == REFUSAL) it->rec = rag_record_set(it->rec, "verdicts", names[k], jv_null());
	if (!t->pr || !(k == TOKEN_F1 || (k >= ROUGE1 && k <= ROUGELSUM))) return;
	snprintf(b, sizeof b, "%s_precision", names[k]);
	it->rec = rag_record_set(it->rec, "scores", b, jv_null());
	snprintf(b, sizeof b, "%s_recall", names[k]);
	it->rec = rag_record_set(it->rec, "scores", b, jv_null());
}

/* Metric k does not apply: the record has nothing to compare with (rag(7) NOT APPLICABLE). */
static void not_applicable(rag_item *it, const tool *t, int k, const char *reason)
{
	char b[64];
	set_null(it, t, k);
	rag_item_not_applicable(it, names[k], reason);
	if (!t->pr || !(k == TOKEN_F1 || (k >= ROUGE1 && k <= ROUGELSUM))) return;
	snprintf(b, sizeof b, "%s_precision", names[k]);
	rag_item_not_applicable(it, b, reason);
	snprintf(b, sizeof b, "%s_recall", names[k]);
	rag_item_not_applicable(it, b, reason);
}

static void keyword(rag_item *it, const tool *t, const char *text, const char *ref)
{
	double s, nf;
	jv found, missed, partly, v;
	int n;
	if (rag_keywords_overlap(t->kw, text, ref, &s, &found, &missed, &partly) < 0) {
		jv_free(found);
		jv_free(missed);
		jv_free(partly);
		set_null(it, t, KEYWORD);
		rag_item_input_error(it, "rag-kw", names[KEYWORD], "%s has no keywords", t->against);
		return;
	}
	n = jv_array_length(jv_copy(found)) + jv_array_length(jv_copy(missed)) + jv_array_length(jv_copy(partly));
	nf = s * n;   /* found, and the shares of those found in part */
	set(it, names[KEYWORD], s);
	it->rec = rag_record_set(it->rec, "keywords", "found", found);
	it->rec = rag_record_set(it->rec, "keywords", "missed", missed);
	if (jv_array_length(jv_copy(partly)))   /* Chinese keywords found by their characters' bigrams */
		it->rec = rag_record_set(it->rec, "keywords", "partly", partly);
	else
		jv_free(partly);
	v = JV_OBJECT(jv_string("verdict"), jv_bool(s >= t->threshold),
	              jv_string("reason"), jv_string_fmt("%.4g of %d keywords of the %s found (%.0f%%, %s %.0f%%)",
	                                                 nf, n, t->against, 100 * s,
	                                                 s >= t->threshold ? "threshold" : "below",
	                                                 100 * t->threshold),
	              jv_string("threshold"), jv_number(t->threshold));
	it->rec = rag_record_set(it->rec, "verdicts", names[KEYWORD], JV_ARRAY(v));
}

/* An unanswerable case (expect: refusal): 1 when the text declines (a phrase of
 * share/refusals.txt, or nothing said), 0 when it answers anyway: an invented answer. */
static void refusal(rag_item *it, const tool *t, const char *text)
{
	int declined = rag_revq_noncommittal(t->refusals, text);
	jv v = JV_OBJECT(jv_string("verdict"), jv_bool(declined),
	                 jv_string("reason"), jv_string(declined ? "an unanswerable case, and the answer declines"
	                                                : "an unanswerable case, but the answer does not decline: "
	                                                  "nothing in the documents supports it"));
	set(it, names[REFUSAL], declined);
	it->rec = rag_record_set(it->rec, "verdicts", names[REFUSAL], JV_ARRAY(v));
}

/* The text of field: 1 with *s (borrowed from rec), 0 absent, -1 not a string. */
static int text_of(jv rec, const char *field, const char **s)
{
	jv v = rag_record_get(rec, field);
	int kind = jv_get_kind(v);
	jv_free(v);
	*s = rag_record_str(rec, field);
	if (kind == JV_KIND_INVALID || kind == JV_KIND_NULL) return 0;
	return *s ? 1 : -1;
}

static void start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	const char *text, *ref;
	char err[RAG_ERRLEN];
	int k, hr = text_of(it->rec, t->against, &ref), said = 0;
	int unanswerable = rag_record_expects_refusal(it->rec);
	rag_lex *x = NULL;
	rag_prf p;
	char reason[128];

	if (rag_record_need_text(it->rec, t->from, 0, &text, err, sizeof err) < 0) {
		for (k = 0; k < NKINDS; k++) if (t->want[k]) set_null(it, t, k);
		rag_item_input_error(it, "rag-kw", NULL, "%s", err);
		return;
	}
	for (k = 0; k < NKINDS; k++) {
		if (!t->want[k]) continue;
		if (k == CONTAINS || k == CONTAINS_ALL || k == REGEX) {
			int pass = presence(t, k, it->rec, text, err, sizeof err);
			if (pass < 0) {
				set_null(it, t, k);
				rag_item_input_error(it, "rag-kw", names[k], "%s", err);
			} else {
				set(it, names[k], pass);
			}
			continue;
		}
		if (k == REFUSAL) {
			if (unanswerable) refusal(it, t, text);
			else not_applicable(it, t, k, "an answerable case (no expect: refusal)");
			continue;
		}
		if (unanswerable) {
			/* no answer to compare with: declining is right, and refusal scores it */
			not_applicable(it, t, k, RAG_NA_UNANSWERABLE);
			continue;
		}
		if (hr == 0 || (hr > 0 && !*ref)) {
			/* nothing to compare with: by definition, not a failure */
			snprintf(reason, sizeof reason, "no %s", strcmp(rag_record_canonical(t->against), "reference") ? rag_record_canonical(t->against) : "reference answer");
			not_applicable(it, t, k, reason);
			continue;
		}
		if (hr < 0) {
			set_null(it, t, k);
			if (!said++) {
				/* a value that is not a string (absent and null are not applicable, above) */
				rag_record_need_text(it->rec, t->against, 0, &ref, err, sizeof err);
				rag_item_input_error(it, "rag-kw", NULL, "%s", err);
			}
			continue;
		}
		if (!x && (k == TOKEN_F1 || k == EXACT || (k >= ROUGE1 && k <= ROUGELSUM)))
			x = rag_lex_new(text, ref, t->stem);
		switch (k) {
		case KEYWORD: keyword(it, t, text, ref); break;
		case TOKEN_F1: rag_lex_token_f1(x, &p); set_prf(it, t, names[k], &p); break;
		case EXACT: set(it, names[k], rag_lex_exact_match(x)); break;
		case LEVENSHTEIN: set(it, names[k], rag_relevance_similarity(text, ref)); break;
		case ROUGE1: rag_lex_rouge_n(x, 1, &p); set_prf(it, t, names[k], &p); break;
		case ROUGE2: rag_lex_rouge_n(x, 2, &p); set_prf(it, t, names[k], &p); break;
		case ROUGEL: rag_lex_rouge_l(x, &p); set_prf(it, t, names[k], &p); break;
		case ROUGELSUM: rag_lex_rouge_lsum(x, &p); set_prf(it, t, names[k], &p); break;
		case BLEU: {
			rag_bleu_stats st;
			rag_bleu_opts o = t->bleu;
			if (t->tokenize_auto)   /* per record, so that a mixed set is scored right */
				o.tokenize = rag_bleu_tokenizer_for(rag_record_str(it->rec, "lang"), text, ref);
			memset(&st, 0, sizeof st);
			rag_bleu_stats_add(&st, text, &ref, 1, &o);
			set(it, names[k], rag_bleu_score(&st, &o));
			break;
		}
		case CHRF: {
			rag_chrf_stats st;
			memset(&st, 0, sizeof st);
			rag_chrf_stats_add(&st, text, &ref, 1, &t->chrf);
			set(it, names[k], rag_chrf_score(&st, &t->chrf));
			break;
		}
		}
	}
	rag_lex_free(x);
}

static int parse_metrics(tool *t, const char *list)
{
	char *copy = rag_xstrdup(list), *p, *save = NULL;
	int k;
	for (p = strtok_r(copy, ", ", &save); p; p = strtok_r(NULL, ", ", &save)) {
		for (k = 0; k < NKINDS && strcmp(p, names[k]); k++) {}
		if (k == NKINDS) {
			rag_msg("rag-kw", "error", "unknown metric \"%s\" (one of: %s)", p, METRICS);
			free(copy);
			return -1;
		}
		t->nwant += !t->want[k];
		t->want[k] = 1;
	}
	free(copy);
	if (!t->nwant) {
		rag_msg("rag-kw", "error", "--metrics names no metric");
		return -1;
	}
	return 0;
}

/* The index of arg in v (NULL-terminated) into *out, or -1. */
static int choose(const char *arg, const char *const *v, int *out)
{
	int i;
	for (i = 0; v[i]; i++) {
		if (!strcmp(arg, v[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const char *const tokenizers[] = {"13a", "none", "zh", "char", "auto", NULL};   /* RAG_BLEU_*, then auto */
	static const char *const smoothers[] = {"exp", "none", "floor", "add-k", NULL}; /* RAG_SMOOTH_* */
	rag_cli cli;
	tool t;
	rag_stream_ops ops = {start, NULL, NULL, NULL};
	const char *metrics = NULL;
	char err[RAG_ERRLEN];
	double threshold = -1;
	int opt, rc, done, stem = 0;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-kw";
	cli.usage = usage;
	cli.opts = options;
	t.cli = &cli;
	t.from = "answer";
	t.against = "reference";
	rag_bleu_opts_init(&t.bleu);
	t.tokenize_auto = 1;
	rag_chrf_opts_init(&t.chrf);
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case 'm': metrics = optarg; break;
		case OPT_FROM: t.from = optarg; break;
		case OPT_AGAINST: t.against = optarg; break;
		case OPT_THRESHOLD:
			if (rag_cli_double(&cli, "--threshold", optarg, 0, 1, 0, &threshold)) return rag_cli_misuse(&cli);
			break;
		case OPT_STEM: stem = 1; break;
		case OPT_PR: t.pr = 1; break;
		case OPT_TOKENIZE:
			if (choose(optarg, tokenizers, &t.bleu.tokenize)) {
				rag_msg(cli.prog, "error", "--tokenize must be auto, 13a, none, zh or char, not \"%s\"", optarg);
				return rag_cli_misuse(&cli);
			}
			t.tokenize_auto = !strcmp(optarg, "auto");
			if (t.tokenize_auto) t.bleu.tokenize = RAG_BLEU_13A;
			break;
		case OPT_SMOOTH:
			if (choose(optarg, smoothers, &t.bleu.smooth)) {
				rag_msg(cli.prog, "error", "--smooth must be exp, none, floor or add-k, not \"%s\"", optarg);
				return rag_cli_misuse(&cli);
			}
			break;
		case OPT_LOWERCASE: t.bleu.lowercase = t.chrf.lowercase = 1; break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) return rc;
		}
	}
	if ((rc = rag_cli_no_operands(&cli, argc, argv))) return rc;
	if ((rc = rag_cli_setup(&cli))) {
		rag_cli_free(&cli);
		return rc;
	}
	/* the flags over the config's kw section */
	if (!metrics) metrics = cli.cfg.kw.metrics ? cli.cfg.kw.metrics : "keyword_overlap";
	t.threshold = threshold >= 0 ? threshold : cli.cfg.kw.threshold;
	t.stem = stem || cli.cfg.kw.stem;
	if (parse_metrics(&t, metrics)) {
		rc = rag_cli_misuse(&cli);
		rag_cli_free(&cli);
		return rc;
	}
	if (t.want[KEYWORD] && !(t.kw = rag_keywords_new(err, sizeof err))) {
		rag_msg(cli.prog, "error", "%s", err);
		rag_cli_free(&cli);
		return RAG_EXIT_INTERNAL;
	}
	if (t.want[REFUSAL]) {
		char *path = rag_xasprintf("%s/refusals.txt", rag_datadir());
		t.refusals = rag_revq_refusals_load(path, err, sizeof err);
		free(path);
		if (!jv_is_valid(t.refusals)) {
			rag_msg(cli.prog, "error", "%s", err);
			rag_keywords_free(t.kw);
			rag_cli_free(&cli);
			return RAG_EXIT_USAGE;
		}
	} else {
		t.refusals = jv_null();
	}
	rc = rag_cli_run(&cli, &ops, &t);
	jv_free(t.refusals);
	rag_keywords_free(t.kw);
	rag_cli_free(&cli);
	return rc;
}
