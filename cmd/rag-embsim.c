/* rag-embsim - embedding similarity: answer relevancy (the question against the questions
 * rag-revq generated from the answer) or the similarity of any two text fields. */
#include "tool.h"
#include "base.h"
#include "config.h"
#include "usage.h"
#include "record.h"
#include "stream.h"
#include "offline.h"
#include "llm.h"
#include "metric.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-embsim [OPTIONS] < records.jsonl > records.jsonl\n"
	"Cosine similarity of embeddings. By default answer relevancy: the mean similarity of the\n"
	"question and each of questions.generated (from rag-revq), 0 when questions.noncommittal,\n"
	"into scores.answer_relevancy (each similarity in similarities.answer_relevancy). After an\n"
	"offline rag-revq (questions.offline_pseudo), an offline estimate instead (rag-embsim(1)).\n"
	"Negative cosines count as 0.\n";

enum { OPT_PAIR = RAG_OPT_TOOL, OPT_METRIC, OPT_EMBEDDER, OPT_EMODEL, OPT_EBASE, OPT_DIMS, OPT_BATCH };

/* --cache and -j are the judge's (rag_cli_option), for the embeddings endpoint */
static const rag_opt options[] = {
	{"pair", 0, OPT_PAIR, "A,B", "answer,reference", "similarity of text fields A and B instead (e.g. answer,reference)"},
	{"score", 0, OPT_METRIC, "NAME", NULL, "write scores.NAME (default answer_relevancy, with --pair\n"
	 "semantic_similarity)"},
	{"embedder", 0, OPT_EMBEDDER, "NAME", "openai offline",
	 "openai | offline (default: openai when an endpoint is configured)"},
	{"model", 0, OPT_EMODEL, "NAME", NULL, "embedding model (embeddings.model)"},
	{"base-url", 0, OPT_EBASE, "URL", NULL, "embeddings endpoint (embeddings.base_url)"},
	{"dimensions", 0, OPT_DIMS, "N", NULL, "ask for vectors of N numbers (embeddings.dimensions)"},
	{"batch-size", 0, OPT_BATCH, "N", NULL, "texts per request (embeddings.batch_size, default 64)"},
	{"cache", 0, RAG_OPT_CACHE, "MODE", RAG_CLI_CACHE_VALUES, "rw | ro | replay | off (cache.mode)"},
	{"concurrency", 'j', 'j', "N", NULL, "requests in flight (llm.concurrency)"},
	{"estimate", 0, RAG_OPT_ESTIMATE, NULL, NULL, "send nothing: print the requests, tokens and cost a run\n"
	 "would take (no records written)"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	rag_embed *emb;
	char *a, *b;              /* --pair fields, or NULL */
	const char *metric;
	rag_estimate est;         /* --estimate: the texts it would embed (requests at the end) */
	long est_texts;
	double sent_texts, sent_tokens;   /* a run: the texts asked for so far, their tokens */
} tool;

/* A run's usage of the embeddings endpoint, into the record (its item it), as --estimate counts
 * it: the texts the record asks for and their tokens by the estimate's rule, and its share of the
 * requests, batch_size texts each. A request holds the texts of several records, so each record
 * carries the requests and tokens that the texts before it, in input order, had not yet filled
 * (ceil of the running total less ceil before it): they add up to the estimate's ceilings, the
 * same bytes whatever order the replies come in, and the run's cost prices them as the estimate
 * does. The cache's answers are counted too: a bound, as the estimate is. */
static void charge(rag_item *it, tool *t, jv texts)
{
	rag_usage u;
	double bs = t->cli->cfg.embeddings.batch_size > 0 ? t->cli->cfg.embeddings.batch_size : 64, tok = 0, n;
	if (!strcmp(rag_embed_name(t->emb), "offline")) return;   /* nothing is sent */
	n = jv_array_length(jv_copy(texts));
	jv_array_foreach(texts, i, x) {
		if (jv_get_kind(x) == JV_KIND_STRING) tok += rag_usage_tokens(jv_string_value(x));
		jv_free(x);
		(void)i;
	}
	memset(&u, 0, sizeof u);
	u.calls = (long)(ceil((t->sent_texts + n) / bs) - ceil(t->sent_texts / bs));
	u.prompt_tokens = (long)(ceil(t->sent_tokens + tok) - ceil(t->sent_tokens));
	t->sent_texts += n;
	t->sent_tokens += tok;
	it->rec = rag_record_usage(it->rec, t->cli->prog, t->metric, &u, rag_embed_name(t->emb));
}

typedef struct job {
	tool *t;
	rag_item *it;
	int noncommittal;
} job;

static void set_null(rag_item *it, const tool *t)
{
	it->rec = rag_record_set(it->rec, "scores", t->metric, jv_null());
	if (!t->a) it->rec = rag_record_set(it->rec, "similarities", t->metric, jv_null());
}

static void fail(rag_item *it, const tool *t, const char *msg)
{
	set_null(it, t);
	it->rec = rag_record_error(it->rec, "rag-embsim", t->metric, "%s", msg);
	rag_item_remote_error(it, msg);
}

static double cos_clipped(jv a, jv b, char *err, size_t errlen, int *bad)
{
	double c = 0;
	if (rag_vec_cosine_jv(a, b, &c, err, errlen) < 0) {
		*bad = 1;
		return 0;
	}
	return c < 0 ? 0 : c;     /* an opposite direction is no relevance, not negative relevance */
}

static void embedded(void *arg, jv vecs, const char *error)
{
	job *j = arg;
	tool *t = j->t;
	rag_item *it = j->it;
	char err[RAG_ERRLEN];
	int bad = 0;
	if (error) {
		fail(it, t, error);
	} else if (t->a) {
		jv va = jv_array_get(jv_copy(vecs), 0), vb = jv_array_get(jv_copy(vecs), 1);
		double c = cos_clipped(va, vb, err, sizeof err, &bad);
		jv_free(va);
		jv_free(vb);
		if (bad) fail(it, t, err);
		else it->rec = rag_record_set(it->rec, "scores", t->metric, jv_number(c));
	} else {
		int i, n = jv_array_length(jv_copy(vecs));
		jv q = jv_array_get(jv_copy(vecs), 0), sims = jv_array();
		double sum = 0;
		for (i = 1; i < n && !bad; i++) {
			jv g = jv_array_get(jv_copy(vecs), i);
			double c = cos_clipped(q, g, err, sizeof err, &bad);
			jv_free(g);
			sum += c;
			sims = jv_array_append(sims, jv_number(c));
		}
		jv_free(q);
		if (bad) {
			jv_free(sims);
			fail(it, t, err);
		} else {
			it->rec = rag_record_set(it->rec, "similarities", t->metric, sims);
			it->rec = rag_record_set(it->rec, "scores", t->metric,
			                         jv_number(j->noncommittal ? 0 : sum / (n - 1)));
		}
	}
	jv_free(vecs);
	free(j);
	rag_item_release(it);
}

/* a non-empty string field, or NULL after an input error */
static const char *text_field(rag_item *it, const tool *t, const char *name)
{
	const char *s;
	char why[RAG_ERRLEN];
	if (rag_record_need_text(it->rec, name, RAG_FIELD_NONEMPTY, &s, why, sizeof why) < 0) {
		set_null(it, t);
		rag_item_input_error(it, "rag-embsim", t->metric, "%s", why);
		return NULL;
	}
	return s;
}

/* [question, generated...] for answer relevancy, or the reason why not */
static int relevancy_texts(rag_item *it, tool *t, jv *texts, int *noncommittal)
{
	const char *q = text_field(it, t, "question");
	jv qs, gen, nc, pv;
	int i, n, pseudo;
	if (!q) return -1;
	qs = jv_object_get(jv_copy(it->rec), jv_string("questions"));
	if (jv_get_kind(qs) != JV_KIND_OBJECT) {
		jv_free(qs);
		set_null(it, t);
		rag_item_input_error(it, "rag-embsim", t->metric, "record has no questions.generated: run rag-revq first");
		return -1;
	}
	gen = jv_object_get(jv_copy(qs), jv_string("generated"));
	pv = jv_object_get(jv_copy(qs), jv_string("offline_pseudo"));
	pseudo = jv_get_kind(pv) == JV_KIND_TRUE;
	jv_free(pv);
	nc = jv_object_get(qs, jv_string("noncommittal"));
	if (jv_get_kind(gen) == JV_KIND_NULL) {
		jv_free(gen);
		jv_free(nc);
		set_null(it, t);
		it->rec = rag_record_error(it->rec, "rag-embsim", t->metric,
		                           "questions.generated is null: the rag-revq stage failed for this record");
		return -1;
	}
	if (jv_get_kind(gen) != JV_KIND_ARRAY || (jv_get_kind(nc) != JV_KIND_TRUE && jv_get_kind(nc) != JV_KIND_FALSE)) {
		int g = jv_get_kind(gen) == JV_KIND_ARRAY;
		jv_free(gen);
		jv_free(nc);
		set_null(it, t);
		rag_item_input_error(it, "rag-embsim", t->metric, "%s", g ? "questions.noncommittal is not true or false"
		                     : "questions.generated is not an array: run rag-revq first");
		return -1;
	}
	*noncommittal = jv_get_kind(nc) == JV_KIND_TRUE;
	jv_free(nc);
	n = jv_array_length(jv_copy(gen));
	if (pseudo && n == 1 && !t->cli->estimate) {
		/* rag-revq had no model: its one "question" is the answer, and a cosine of the question
		 * with it would make an echo of the question score 1. The offline estimate instead.
		 * (--estimate counts the texts a run would embed: rag-eval's stands in for them so.) */
		jv s = jv_array_get(jv_copy(gen), 0);
		char why[RAG_ERRLEN];
		double r = jv_get_kind(s) == JV_KIND_STRING ? rag_revq_offline(q, jv_string_value(s), why, sizeof why) : -1;
		jv_free(s);
		jv_free(gen);
		if (r < 0) {
			set_null(it, t);
			rag_item_input_error(it, "rag-embsim", t->metric, "questions.generated[0] is not a string");
			return -1;
		}
		it->rec = rag_record_set(it->rec, "similarities", t->metric, jv_array());
		it->rec = rag_record_set(it->rec, "scores", t->metric, jv_number(*noncommittal ? 0 : r));
		it->rec = rag_record_set(it->rec, "reasons", t->metric,
		                         jv_string(*noncommittal ? "the answer is noncommittal" : why));
		return -1;
	}
	*texts = jv_array_append(jv_array(), jv_string(q));
	for (i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(gen), i);
		if (jv_get_kind(s) != JV_KIND_STRING || !*jv_string_value(s) || rag_record_has_nul(s)) {
			int nul = rag_record_has_nul(s);
			jv_free(s);
			jv_free(gen);
			jv_free(*texts);
			set_null(it, t);
			rag_item_input_error(it, "rag-embsim", t->metric, nul ? "questions.generated[%d] contains a NUL character "
			                     "(\\u0000)" : "questions.generated[%d] is not a non-empty string", i);
			return -1;
		}
		*texts = jv_array_append(*texts, s);
	}
	jv_free(gen);
	if (n == 0) {
		jv_free(*texts);
		if (*noncommittal) {
			/* nothing generated from an evasive answer: it scores 0 as such */
			it->rec = rag_record_set(it->rec, "similarities", t->metric, jv_array());
			it->rec = rag_record_set(it->rec, "scores", t->metric, jv_number(0));
		} else {
			set_null(it, t);
			rag_item_input_error(it, "rag-embsim", t->metric, "questions.generated is empty");
		}
		return -1;
	}
	return 0;
}

static void start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	jv texts;
	job *j;
	int noncommittal = 0;
	if (t->a) {
		const char *a = text_field(it, t, t->a), *b = a ? text_field(it, t, t->b) : NULL;
		if (!a || !b) return;
		texts = JV_ARRAY(jv_string(a), jv_string(b));
	} else if (rag_record_expects_refusal(it->rec)) {
		/* as rag-revq said: declining is the right answer, not an irrelevant one */
		set_null(it, t);
		rag_item_not_applicable(it, t->metric, RAG_NA_UNANSWERABLE);
		return;
	} else if (relevancy_texts(it, t, &texts, &noncommittal) < 0) {
		return;
	}
	if (t->cli->estimate) {
		int i, n = jv_array_length(jv_copy(texts));
		for (i = 0; i < n; i++) {
			jv x = jv_array_get(jv_copy(texts), i);
			t->est.prompt_chars += rag_usage_chars(jv_string_value(x));
			t->est.prompt_tokens += rag_usage_tokens(jv_string_value(x));
			t->est_texts++;
			jv_free(x);
		}
		jv_free(texts);
		return;
	}
	charge(it, t, texts);
	j = rag_xmalloc(sizeof *j);
	j->t = t;
	j->it = it;
	j->noncommittal = noncommittal;
	rag_item_hold(it);
	rag_embed_texts(t->emb, texts, embedded, j);
}

static int run(void *ctx, int fd, double timeout)
{
	tool *t = ctx;
	return rag_embed_run(t->emb, fd, timeout);
}

static void cancel(void *ctx)
{
	tool *t = ctx;
	rag_embed_cancel(t->emb, "interrupted before the embeddings came");
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_stream_ops ops = {start, NULL, run, cancel};
	int opt, rc, done;
	const char *pair = NULL, *embedder = NULL, *model = NULL, *base = NULL;
	long dims = -1, batch = 0;
	char err[RAG_ERRLEN], notice[RAG_ERRLEN];

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-embsim";
	cli.usage = usage;
	cli.opts = options;
	cli.remote_noun = "embedder error";
	t.cli = &cli;
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case OPT_PAIR: pair = optarg; break;
		case OPT_METRIC:
			if (!*optarg || strspn(optarg, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(optarg)) {
				rag_msg(cli.prog, "error", "--score must be a name of lowercase letters, digits and _, not \"%s\"", optarg);
				return rag_cli_misuse(&cli);
			}
			t.metric = optarg;
			break;
		case OPT_EMBEDDER:
			if (strcmp(optarg, "openai") && strcmp(optarg, "offline")) {
				rag_msg(cli.prog, "error", "--embedder must be one of openai, offline, not \"%s\"", optarg);
				return rag_cli_misuse(&cli);
			}
			embedder = optarg;
			break;
		case OPT_EMODEL: model = optarg; break;
		case OPT_EBASE: base = optarg; break;
		case OPT_DIMS:
			if (rag_cli_int(&cli, "--dimensions", optarg, 1, 65536, &dims)) return rag_cli_misuse(&cli);
			break;
		case OPT_BATCH:
			if (rag_cli_int(&cli, "--batch-size", optarg, 1, 2048, &batch)) return rag_cli_misuse(&cli);
			break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) return rc;
		}
	}
	if ((rc = rag_cli_no_operands(&cli, argc, argv))) return rc;
	if (pair) {
		const char *comma = strchr(pair, ',');
		if (!comma || comma == pair || !comma[1] || strchr(comma + 1, ',')) {
			rag_msg(cli.prog, "error", "--pair must be two field names, FIELD,FIELD, not \"%s\"", pair);
			return rag_cli_misuse(&cli);
		}
		char *first = rag_xstrndup(pair, (size_t)(comma - pair));
		t.a = rag_xstrdup(rag_record_canonical(first));
		t.b = rag_xstrdup(rag_record_canonical(comma + 1));
		free(first);
	}
	if (!t.metric) t.metric = pair ? "semantic_similarity" : "answer_relevancy";
	if ((rc = rag_cli_setup(&cli))) goto out;
	if (embedder) rag_set_str(&cli.cfg.embeddings.provider, embedder);
	if (model) rag_set_str(&cli.cfg.embeddings.model, model);
	if (base) rag_set_str(&cli.cfg.embeddings.base_url, base);
	if (dims > 0) cli.cfg.embeddings.dimensions = (int)dims;
	if (batch) cli.cfg.embeddings.batch_size = (int)batch;
	t.emb = rag_embed_new(&cli.cfg, notice, sizeof notice, err, sizeof err);
	if (!t.emb) {
		rag_msg(cli.prog, "error", "%s", err);
		rc = RAG_EXIT_USAGE;
		goto out;
	}
	if (notice[0]) rag_cli_notice(&cli, rag_embed_name(t.emb), notice);
	if (cli.verbose) {
		char url[512];
		rag_msg(cli.prog, "info", "embedder %s, endpoint %s, config %s, cache %s", rag_embed_name(t.emb),
		        rag_cli_endpoint(&cli, 1, strcmp(rag_embed_name(t.emb), "offline") == 0, url, sizeof url),
		        cli.cfg.path ? cli.cfg.path : "(none)", rag_config_cache_mode_name(cli.cfg.cache.mode));
	}
	rc = rag_cli_run(&cli, &ops, &t);
	if (cli.estimate) {
		/* the embedder batches texts across records; repeated texts would be sent once, so
		 * this is at most what a run takes. The offline embedder sends nothing. */
		int offline = !strcmp(rag_embed_name(t.emb), "offline");
		int bs = cli.cfg.embeddings.batch_size > 0 ? cli.cfg.embeddings.batch_size : 64;
		if (offline) memset(&t.est, 0, sizeof t.est);
		else t.est.requests = (t.est_texts + bs - 1) / bs;
		if (rc == RAG_EXIT_OK || rc == RAG_EXIT_DATA) {
			int r = rag_cli_estimate_report(&cli, rag_embed_name(t.emb), cli.estimate_records, &t.est);
			if (r) rc = r;
		}
		goto out;
	}
	if (!cli.quiet) {
		long req, failed, texts, distinct, hits, retries;
		rag_embed_stats(t.emb, &req, &failed, &texts, &distinct, &hits, &retries);
		fprintf(stderr, "%s: embedder %s: %ld request%s, %ld text%s, %ld distinct, %ld from cache, %ld retr%s, "
		        "%ld failed\n", cli.prog, rag_embed_name(t.emb), req, req == 1 ? "" : "s", texts,
		        texts == 1 ? "" : "s", distinct, hits, retries, retries == 1 ? "y" : "ies", failed);
	}
out:
	rag_embed_free(t.emb);
	free(t.a);
	free(t.b);
	rag_cli_free(&cli);
	return rc;
}
