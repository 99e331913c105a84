/* rag-ap - ranking metrics of the retrieved contexts: average precision (context precision),
 * precision, recall, hit, reciprocal rank, nDCG and R-precision; no judge, no network. With
 * --trec, the same maths on TREC qrels and run files, printed the way trec_eval -q prints. */
#include "tool.h"
#include "base.h"
#include "record.h"
#include "stream.h"
#include "rank.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-ap [OPTIONS] < records.jsonl > records.jsonl\n"
	"       rag-ap --trec QRELS RUN\n"
	"Ranking metrics of each record's retrieved contexts, written to scores.<NAME>: the\n"
	"relevance of each chunk comes from contexts[].id against relevant_ids, from\n"
	"verdicts.context_precision (see rag-verify(1)), or from similarity to reference_contexts;\n"
	"context precision reads the verdicts first, the other metrics the ids.\n"
	"relevance_from.<NAME> says which.\n";

enum { OPT_FROM = RAG_OPT_TOOL, OPT_VERDICTS, OPT_THRESHOLD, OPT_LEVEL, OPT_TREC };

static const rag_opt options[] = {
	{"metrics", 'm', 'm', "LIST", "ap map p@5 p@10 recall@5 recall@10 hit@1 hit@3 mrr ndcg@10 rprec",
	 "ap, map, p@K, recall@K, hit@K, mrr, ndcg@K, rprec, comma-separated\n"
	 "(default ap: scores.context_precision)"},
	{"from", 0, OPT_FROM, "SOURCE", "auto verdicts ids similarity",
	 "auto (default; ap.from) | verdicts | ids | similarity"},
	{"verdicts", 0, OPT_VERDICTS, "NAME", "context_precision context_utilization",
	 "read verdicts.NAME: context_precision | context_utilization"},
	{"threshold", 0, OPT_THRESHOLD, "X", NULL, "least similarity of a relevant chunk (default 0.5)"},
	{"level", 0, OPT_LEVEL, "GRADE", NULL, "relevant when the grade is at least GRADE (default: above 0)"},
	{"trec", 0, OPT_TREC, "QRELS", RAG_ARG_FILE, "TREC mode: QRELS and RUN files, trec_eval -q style rows"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	rag_rank_metric *m;
	int nm;
	int source;
	const char *verdicts;
	double threshold, level;
} tool;

/* The name of metric i for this record: average precision is named after its verdicts. */
static const char *metric_name(const tool *t, int i, const rag_relevance *r, char *buf, size_t len)
{
	const rag_rank_metric *m = &t->m[i];
	if (m->kind != RAG_RANK_AP || !r || !r->ap_name || strcmp(r->ap_name, "context_precision") == 0)
		return m->name;
	if (m->k) snprintf(buf, len, "%s@%ld", r->ap_name, m->k);
	else snprintf(buf, len, "%s", r->ap_name);
	return buf;
}

static void all_na(rag_item *it, const tool *t, const char *reason)
{
	rag_relevance r = {0};
	char buf[64];
	int i;
	for (i = 0; i < t->nm; i++) rag_item_not_applicable(it, metric_name(t, i, &r, buf, sizeof buf), reason);
}

/* not_applicable.<metric> set by an earlier tool */
static int already_na(jv rec, const char *metric)
{
	jv na = rag_json_get(rag_json_get(jv_copy(rec), "not_applicable"), metric);
	int set = jv_get_kind(na) == JV_KIND_STRING;
	jv_free(na);
	return set;
}

/* The relevance of a record from one order of sources (rag_relevance_source), found once for
 * every metric that reads it. */
typedef struct found {
	int done, rc, said;       /* said: its error is in the record */
	rag_relevance r;
	char err[RAG_ERRLEN];
} found;

/* Metric i of the record from f: its score and relevance_from.<name>, or null with the reason. */
static void score(rag_item *it, const tool *t, int i, found *f, const found *other)
{
	char buf[64];
	const char *name = metric_name(t, i, &f->r, buf, sizeof buf), *why;
	rag_rank_list l;
	double v;

	if (f->rc == -2 && f->r.ap_name && already_na(it->rec, f->r.ap_name)) {
		/* rag-verify --chunks found nothing to judge against and said so: every ranking
		 * metric of those verdicts is not applicable for the same reason */
		jv na = rag_json_get(rag_json_get(jv_copy(it->rec), "not_applicable"), f->r.ap_name);
		rag_item_not_applicable(it, name, jv_string_value(na));
		jv_free(na);
		return;
	}
	if (f->rc < 0) {
		it->rec = rag_record_set(it->rec, "scores", name, jv_null());
		/* the reason once, though two orders of sources may have ended at the same one */
		if (f->said || (other->said && !strcmp(other->err, f->err))) return;
		f->said = 1;
		if (f->rc == -2)
			it->rec = rag_record_error(it->rec, "rag-ap", NULL, "%s", f->err);
		else
			rag_item_input_error(it, "rag-ap", NULL, "%s", f->err);
		return;
	}
	l.gain = f->r.gain;
	l.n = f->r.n;
	l.ideal = f->r.ideal;
	l.nideal = f->r.nideal;
	l.level = t->level;
	it->rec = rag_record_set(it->rec, "relevance_from", name, jv_string(f->r.source));
	if (rag_rank_eval(&t->m[i], &l, &v, &why) == 0) {
		it->rec = rag_record_set(it->rec, "scores", name, jv_number(v));
	} else {
		it->rec = rag_record_set(it->rec, "scores", name, jv_null());
		it->rec = rag_record_error(it->rec, "rag-ap", name, "%s is undefined: %s", name, why);
	}
}

static void start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	found f[2];               /* context precision's order of sources, and the ids-first one */
	char err[RAG_ERRLEN];
	int i;

	/* an unanswerable case (expect: refusal) has no relevant context by design */
	if (rag_record_expects_refusal(it->rec)) {
		all_na(it, t, RAG_NA_UNANSWERABLE);
		return;
	}
	/* reference-based relevance with no reference to judge against: not applicable (rag(7)) */
	if (t->source == RAG_REL_SIMILARITY || t->source == RAG_REL_IDS) {
		const char *field = t->source == RAG_REL_IDS ? "relevant_ids" : "reference_contexts";
		jv v = jv_object_get(jv_copy(it->rec), jv_string(field));
		int none = !jv_is_valid(v) || jv_get_kind(v) == JV_KIND_NULL ||
		           (t->source == RAG_REL_SIMILARITY && jv_get_kind(v) == JV_KIND_ARRAY && jv_array_length(jv_copy(v)) == 0);
		jv_free(v);
		if (none) {
			snprintf(err, sizeof err, "no %s", t->source == RAG_REL_IDS ? "relevant ids" : "reference contexts");
			all_na(it, t, err);
			return;
		}
	}
	memset(f, 0, sizeof f);
	for (i = 0; i < t->nm; i++) {
		int src = rag_relevance_source(t->source, &t->m[i]), w = src == RAG_REL_AUTO_IDS;
		if (!f[w].done) {
			f[w].rc = rag_relevance_get(it->rec, src, t->verdicts, t->threshold, &f[w].r, f[w].err, sizeof f[w].err);
			f[w].done = 1;
			/* named after the verdicts asked for, though none were read */
			if (f[w].rc < 0 && !f[w].r.ap_name) f[w].r.ap_name = t->verdicts;
		}
		score(it, t, i, &f[w], &f[!w]);
	}
	rag_relevance_free(&f[0].r);
	rag_relevance_free(&f[1].r);
}

static int parse_metrics(tool *t, const char *list)
{
	char *copy = rag_xstrdup(list), *p, *save = NULL, err[RAG_ERRLEN];
	int i;
	for (p = strtok_r(copy, ", ", &save); p; p = strtok_r(NULL, ", ", &save)) {
		rag_rank_metric m;
		if (rag_rank_metric_parse(p, &m, err, sizeof err) < 0) {
			rag_msg("rag-ap", "error", "%s", err);
			free(copy);
			return -1;
		}
		for (i = 0; i < t->nm && strcmp(t->m[i].name, m.name); i++) {}
		if (i < t->nm) continue;           /* asked twice: once is enough */
		t->m = rag_xrealloc(t->m, (size_t)(t->nm + 1) * sizeof *t->m);
		t->m[t->nm++] = m;
	}
	free(copy);
	if (t->nm == 0) {
		rag_msg("rag-ap", "error", "--metrics names no metric");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ --trec */

static const long cuts[] = {5, 10, 15, 20, 30, 100, 200, 500, 1000};
#define NCUTS (sizeof cuts / sizeof cuts[0])
static const long success_cuts[] = {1, 5, 10};
#define NSUCCESS (sizeof success_cuts / sizeof success_cuts[0])

/* The trec_eval measures we compute, in the order printed; counts come first. */
typedef struct measure { char name[48]; rag_rank_metric m; } measure;

static int trec_measures(measure **out)
{
	measure *ms = rag_xmalloc(64 * sizeof *ms);
	int n = 0;
	size_t i;
#define ADD(NAME, KIND, K) do { snprintf(ms[n].name, sizeof ms[n].name, "%s", NAME); \
	memset(&ms[n].m, 0, sizeof ms[n].m); ms[n].m.kind = KIND; ms[n].m.k = K; n++; } while (0)
	ADD("map", RAG_RANK_MAP, 0);
	ADD("Rprec", RAG_RANK_RPREC, 0);
	ADD("recip_rank", RAG_RANK_RR, 0);
	for (i = 0; i < NCUTS; i++) { char b[32]; snprintf(b, sizeof b, "P_%ld", cuts[i]); ADD(b, RAG_RANK_P, cuts[i]); }
	for (i = 0; i < NCUTS; i++) { char b[32]; snprintf(b, sizeof b, "recall_%ld", cuts[i]); ADD(b, RAG_RANK_RECALL, cuts[i]); }
	ADD("ndcg", RAG_RANK_NDCG, 0);
	for (i = 0; i < NCUTS; i++) { char b[32]; snprintf(b, sizeof b, "ndcg_cut_%ld", cuts[i]); ADD(b, RAG_RANK_NDCG, cuts[i]); }
	for (i = 0; i < NCUTS; i++) { char b[32]; snprintf(b, sizeof b, "map_cut_%ld", cuts[i]); ADD(b, RAG_RANK_MAP, cuts[i]); }
	for (i = 0; i < NSUCCESS; i++) { char b[32]; snprintf(b, sizeof b, "success_%ld", success_cuts[i]); ADD(b, RAG_RANK_HIT, success_cuts[i]); }
#undef ADD
	*out = ms;
	return n;
}

/* -m in --trec mode: our metrics under trec_eval's names and cut-offs (p@3 -> P_3). */
static int trec_chosen(const tool *t, measure **out)
{
	measure *ms = rag_xmalloc(((size_t)t->nm + 1) * sizeof *ms);
	int i;
	for (i = 0; i < t->nm; i++) {
		const rag_rank_metric *m = &t->m[i];
		char *n = ms[i].name;
		size_t len = sizeof ms[i].name;
		ms[i].m = *m;
		switch (m->kind) {
		case RAG_RANK_MAP: if (m->k) snprintf(n, len, "map_cut_%ld", m->k); else snprintf(n, len, "map"); break;
		case RAG_RANK_P: if (m->k) snprintf(n, len, "P_%ld", m->k); else snprintf(n, len, "set_P"); break;
		case RAG_RANK_RECALL: if (m->k) snprintf(n, len, "recall_%ld", m->k); else snprintf(n, len, "set_recall"); break;
		case RAG_RANK_NDCG: if (m->k) snprintf(n, len, "ndcg_cut_%ld", m->k); else snprintf(n, len, "ndcg"); break;
		case RAG_RANK_HIT: snprintf(n, len, "success_%ld", m->k ? m->k : 1000000L); break;
		case RAG_RANK_RR: if (m->k) snprintf(n, len, "recip_rank_%ld", m->k); else snprintf(n, len, "recip_rank"); break;
		case RAG_RANK_RPREC: snprintf(n, len, "Rprec"); break;
		default: snprintf(n, len, "%s", m->name); break;   /* context_precision: ours alone */
		}
	}
	*out = ms;
	return t->nm;
}

static int trec_main(const tool *t, const char *qrels, const char *run, double level)
{
	char err[RAG_ERRLEN];
	rag_trec *tr = rag_trec_load(qrels, run, err, sizeof err);
	measure *ms;
	double *sum;
	long tot_ret = 0, tot_rel = 0, tot_relret = 0;
	size_t nq, q, i, nms;

	if (!tr) {
		rag_msg("rag-ap", "error", "%s", err);
		return RAG_EXIT_DATA;
	}
	if (level <= 0) level = 1;            /* trec_eval: relevant when the judgment is >= 1 */
	nms = (size_t)(t->nm ? trec_chosen(t, &ms) : trec_measures(&ms));
	sum = rag_xcalloc(nms, sizeof *sum);
	nq = rag_trec_count(tr);
	for (q = 0; q < nq; q++) {
		const char *qid = rag_trec_qid(tr, q);
		rag_rank_list l;
		long relret = 0;
		rag_trec_list(tr, q, level, &l);
		for (i = 0; i < l.n; i++) relret += l.gain[i] >= level;
		printf("%-22s\t%s\t%zu\n", "num_ret", qid, l.n);
		printf("%-22s\t%s\t%ld\n", "num_rel", qid, rag_rank_nrel(&l));
		printf("%-22s\t%s\t%ld\n", "num_rel_ret", qid, relret);
		tot_ret += (long)l.n;
		tot_rel += rag_rank_nrel(&l);
		tot_relret += relret;
		for (i = 0; i < nms; i++) {
			double v;
			const char *why;
			/* trec_eval gives 0 where we would say undefined (a query without relevant docs) */
			if (rag_rank_eval(&ms[i].m, &l, &v, &why)) v = 0;
			sum[i] += v;
			printf("%-22s\t%s\t%.4f\n", ms[i].name, qid, v);
		}
	}
	printf("%-22s\tall\t%zu\n", "num_q", nq);
	printf("%-22s\tall\t%ld\n", "num_ret", tot_ret);
	printf("%-22s\tall\t%ld\n", "num_rel", tot_rel);
	printf("%-22s\tall\t%ld\n", "num_rel_ret", tot_relret);
	for (i = 0; i < nms; i++) printf("%-22s\tall\t%.4f\n", ms[i].name, nq ? sum[i] / (double)nq : 0.0);
	free(sum);
	free(ms);
	rag_trec_free(tr);
	if (ferror(stdout) || fclose(stdout) != 0) {
		rag_msg("rag-ap", "error", "cannot write output");
		return RAG_EXIT_INTERNAL;
	}
	return RAG_EXIT_OK;
}

/* ------------------------------------------------------------------ main */

/* --from and ap.from: RAG_REL_*, or -1 */
static int source_parse(const char *s)
{
	if (strcmp(s, "auto") == 0) return RAG_REL_AUTO;
	if (strcmp(s, "verdicts") == 0) return RAG_REL_VERDICTS;
	if (strcmp(s, "ids") == 0) return RAG_REL_IDS;
	if (strcmp(s, "similarity") == 0) return RAG_REL_SIMILARITY;
	return -1;
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_stream_ops ops = {start, NULL, NULL, NULL};
	const char *metrics = "ap", *trec = NULL;
	int opt, rc, done, metrics_given = 0, from_given = 0;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-ap";
	cli.usage = usage;
	cli.opts = options;
	cli.judge_opts = 0;
	t.cli = &cli;
	t.threshold = 0.5;
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case 'm': metrics = optarg; metrics_given = 1; break;
		case OPT_FROM:
			if ((t.source = source_parse(optarg)) < 0) {
				rag_msg(cli.prog, "error", "--from must be auto, verdicts, ids or similarity, not \"%s\"", optarg);
				return rag_cli_misuse(&cli);
			}
			from_given = 1;
			break;
		case OPT_VERDICTS:
			if (strcmp(optarg, "context_precision") && strcmp(optarg, "context_utilization")) {
				rag_msg(cli.prog, "error", "--verdicts must be context_precision or context_utilization, not \"%s\"", optarg);
				return rag_cli_misuse(&cli);
			}
			t.verdicts = optarg;
			break;
		case OPT_THRESHOLD:
			if (rag_cli_double(&cli, "--threshold", optarg, 0, 1, 0, &t.threshold)) return rag_cli_misuse(&cli);
			break;
		case OPT_LEVEL:
			if (rag_cli_double(&cli, "--level", optarg, 0, 1e9, 1, &t.level)) return rag_cli_misuse(&cli);
			break;
		case OPT_TREC: trec = optarg; break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) return rc;
		}
	}
	if (trec) {
		if (argc - optind != 1) {
			rag_msg(cli.prog, "error", "--trec QRELS needs one RUN file after it");
			return rag_cli_misuse(&cli);
		}
		if (metrics_given && parse_metrics(&t, metrics)) {
			free(t.m);
			return rag_cli_misuse(&cli);
		}
		{
			/* the library reads them; opened here first so that a missing one is a usage error */
			const char *files[2] = {trec, argv[optind]};
			FILE *f;
			int i;
			for (i = 0; i < 2; i++) {
				if ((rc = rag_cli_open(&cli, files[i], "r", &f))) {
					free(t.m);
					return rc;
				}
				fclose(f);
			}
		}
		rc = trec_main(&t, trec, argv[optind], t.level);
		free(t.m);
		return rc;
	}
	if ((rc = rag_cli_no_operands(&cli, argc, argv))) return rc;
	if (parse_metrics(&t, metrics)) {
		free(t.m);
		return rag_cli_misuse(&cli);
	}
	if ((rc = rag_cli_setup(&cli))) {
		free(t.m);
		rag_cli_free(&cli);
		return rc;
	}
	/* ap.from: its choices are checked as the configuration is read */
	if (!from_given && cli.cfg.ap.from) t.source = source_parse(cli.cfg.ap.from);
	rc = rag_cli_run(&cli, &ops, &t);
	rag_cli_free(&cli);
	free(t.m);
	return rc;
}
