/* t-evalplan.c - rag-eval's plan: metrics and configuration -> stages -> the exact text
 * rag-eval --dry-run prints; the metric registry against rag-eval(1)'s Metrics. */
#include "base.h"
#include "config.h"
#include "evalplan.h"
#include "tap.h"

#include <stdlib.h>

/* A plan for metrics list (NULL: the configuration's, else the defaults) where the tests run:
 * tools on PATH, the test set t.jsonl, run x in runs/x. */
static int plan_for(rag_evalplan *p, const char *list, const rag_config *cfg, char *err, size_t n)
{
	memset(p, 0, sizeof *p);
	p->self = "rag-eval";
	p->format = "json";
	p->run_id = "x";
	p->rundir = "runs/x";
	p->testset = "t.jsonl";
	if (rag_evalplan_set_metrics(p, list, cfg, err, n) < 0) return -1;
	/* as rag-eval's set-up: a summary when nothing is gated */
	p->summary_only = !cfg->gate.nmean && !cfg->gate.nrecord && !p->refusal_gate;
	return 0;
}

static char *render(const rag_evalplan *p)
{
	rag_buf b = {0};
	rag_evalplan_render(p, &b);
	return b.p;
}

static int stages_on(const rag_evalplan *p)
{
	int s, n = 0;
	for (s = 0; s < RAG_EVAL_MAXSTAGES; s++) n += p->stage_on[s] != 0;
	return n;
}

static void test_defaults(void)
{
	rag_config cfg;
	rag_evalplan p;
	char err[1024], *t;
	rag_config_defaults(&cfg);
	ok(plan_for(&p, NULL, &cfg, err, sizeof err) == 0, "the default metrics plan");
	is_int(p.metrics.n, 4, "four default metrics");
	is_str(p.metrics.v[0], "faithfulness", "faithfulness first");
	is_int(stages_on(&p), 7, "seven stages");
	ok(p.stage_on[RAG_EVAL_CLAIMS] && p.stage_on[RAG_EVAL_VERIFY] && p.stage_on[RAG_EVAL_VERIFY_RECALL] &&
	   p.stage_on[RAG_EVAL_REVQ] && p.stage_on[RAG_EVAL_EMBSIM] && p.stage_on[RAG_EVAL_CHUNKS] &&
	   p.stage_on[RAG_EVAL_AP], "claims, verify, recall, revq, embsim, chunks and ap");
	is_str(p.stage_list[RAG_EVAL_AP].p, "ap", "context_precision gives rag-ap -m ap");
	t = render(&p);
	is_str(t, "mkdir -p runs/x && rag-eval --emit -q --format json --run-id x < t.jsonl \\\n"
	       "  | rag-claims -q \\\n"
	       "  | rag-verify -q \\\n"
	       "  | rag-verify -q --metric context_recall \\\n"
	       "  | rag-revq -q \\\n"
	       "  | rag-embsim -q \\\n"
	       "  | rag-verify -q --chunks --metric context_precision \\\n"
	       "  | rag-ap -q -m ap \\\n"
	       "  | rag-gate -q --summary-only --metrics faithfulness,answer_relevancy,context_precision,context_recall "
	       "--tee -o runs/x/gate.txt --junit runs/x/junit.xml", "the default metrics' --dry-run text");
	free(t);
	rag_evalplan_free(&p);
	rag_config_free(&cfg);
}

static void test_ranking(void)
{
	rag_config cfg;
	rag_evalplan p;
	char err[1024], *t;
	rag_strv argv = {0};
	rag_config_defaults(&cfg);
	rag_strv_push(&cfg.eval.metrics, rag_xstrdup("mrr"));
	rag_strv_push(&cfg.eval.metrics, rag_xstrdup("ndcg@10"));
	rag_strv_push(&cfg.eval.metrics, rag_xstrdup("hit@3"));
	rag_strv_push(&cfg.eval.metrics, rag_xstrdup("mrr"));   /* twice: one column */
	ok(plan_for(&p, NULL, &cfg, err, sizeof err) == 0, "eval.metrics: a ranking-only plan");
	is_int(stages_on(&p), 1, "one stage");
	is_str(p.stage_list[RAG_EVAL_AP].p, "mrr,ndcg@10,hit@3", "one rag-ap stage, each metric once");
	p.config_path = "my rag.yaml";
	p.bin = "/opt/rag/bin";
	p.jobs = 4;   /* rag-ap takes no -j */
	t = render(&p);
	is_str(t, "mkdir -p runs/x && rag-eval --emit -q -c 'my rag.yaml' --format json --run-id x < t.jsonl \\\n"
	       "  | /opt/rag/bin/rag-ap -q -c 'my rag.yaml' -m mrr,ndcg@10,hit@3 \\\n"
	       "  | /opt/rag/bin/rag-gate -q -c 'my rag.yaml' --summary-only --metrics mrr,ndcg@10,hit@3,mrr "
	       "--tee -o runs/x/gate.txt --junit runs/x/junit.xml", "a ranking-only --dry-run text, -c quoted");
	free(t);
	rag_evalplan_argv(&p, RAG_EVAL_AP, &argv);
	is_int(argv.n, 6, "rag-ap's argv: six words");
	is_str(argv.v[0], "/opt/rag/bin/rag-ap", "argv[0] the tool in --bin");
	is_str(argv.v[3], "my rag.yaml", "-c's path, one word");
	is_str(argv.v[4], "-m", "its list option");
	is_str(argv.v[5], "mrr,ndcg@10,hit@3", "its list, one word");
	rag_strv_free(&argv);
	rag_evalplan_free(&p);
	rag_config_free(&cfg);
}

static void test_refusal(void)
{
	rag_config cfg;
	rag_evalplan p;
	char err[1024], *t;
	rag_config_defaults(&cfg);
	ok(plan_for(&p, "keyword_overlap,correctness", &cfg, err, sizeof err) == 0, "-m keyword_overlap,correctness");
	is_int(rag_evalplan_refusal(&p, &cfg, err, sizeof err), 1, "unanswerable cases: refusal added");
	is_int(p.metrics.n, 3, "three metrics");
	ok(p.refusal_gate, "the gate gets refusal, the configuration gating none");
	p.summary_only = 0;
	p.jobs = 3;
	p.max_memory = 300000;
	t = render(&p);
	is_str(t, "mkdir -p runs/x && rag-eval --emit -q --format json --run-id x < t.jsonl \\\n"
	       "  | rag-kw -q --max-memory 300000 -m keyword_overlap,refusal \\\n"
	       "  | rag-judge -q --max-memory 300000 -j 3 --rubric correctness \\\n"
	       "  | rag-gate -q --max-memory 300000 -r refusal=1 --metrics keyword_overlap,correctness,refusal "
	       "--tee -o runs/x/gate.txt --junit runs/x/junit.xml", "refusal added: --dry-run text with -r refusal=1");
	free(t);
	is_int(rag_evalplan_refusal(&p, &cfg, err, sizeof err), 0, "refusal asked for already: not added twice");
	is_int(p.metrics.n, 3, "still three metrics");
	rag_evalplan_free(&p);

	/* a configuration that gates refusal itself: no -r refusal=1 */
	cfg.gate.record = rag_xcalloc(1, sizeof *cfg.gate.record);
	cfg.gate.record[0].key = rag_xstrdup("refusal");
	cfg.gate.record[0].value = 1;
	cfg.gate.nrecord = 1;
	ok(plan_for(&p, "refusal", &cfg, err, sizeof err) == 0, "-m refusal");
	is_int(rag_evalplan_refusal(&p, &cfg, err, sizeof err), 0, "refusal named: not added");
	ok(!p.refusal_gate, "gate.record.refusal: the configuration gates it");
	rag_evalplan_free(&p);
	rag_config_free(&cfg);
}

static void test_offline(void)
{
	rag_config cfg;
	rag_evalplan p;
	char err[1024], *t;
	rag_config_defaults(&cfg);
	cfg.ap.from = rag_xstrdup("ids");
	ok(plan_for(&p, "context_precision,rouge1,bleu,mrr", &cfg, err, sizeof err) == 0,
	   "judge-less: context precision from ids, rag-kw's and rag-ap's");
	ok(!p.stage_on[RAG_EVAL_CHUNKS] && !p.stage_on[RAG_EVAL_VERIFY], "no stage asks a judge");
	is_int(stages_on(&p), 2, "rag-ap and rag-kw");
	p.shards = 2;
	p.block = 1024;
	p.sshlogin = "2/:,host b";
	p.skip_done = 1;
	t = render(&p);
	is_str(t, "mkdir -p runs/x && rag-eval --emit -q --format json --run-id x --skip-done runs/x/records.jsonl < t.jsonl \\\n"
	       "  | parallel --pipe --keep-order -j 2 --block 1024 --recend '\\n' --sshlogin '2/:,host b' \\\n"
	       "      'rag-ap -q --from ids -m ap,mrr | rag-kw -q -m rouge1,bleu' \\\n"
	       "  | rag-gate -q --summary-only --metrics context_precision,rouge1,bleu,mrr "
	       "--tee -o runs/x/gate.txt --junit runs/x/junit.xml", "offline, in shards, resumed: --dry-run text");
	free(t);
	rag_evalplan_free(&p);
	free(cfg.ap.from);
	cfg.ap.from = rag_xstrdup("verdicts");
	ok(plan_for(&p, "mrr", &cfg, err, sizeof err) == 0, "ap.from verdicts");
	ok(p.stage_on[RAG_EVAL_CHUNKS] && p.stage_on[RAG_EVAL_AP], "mrr from verdicts: the chunk judge first");
	rag_evalplan_free(&p);
	rag_config_free(&cfg);
}

static void test_errors(void)
{
	rag_config cfg;
	rag_evalplan p;
	char err[1024];
	rag_config_defaults(&cfg);
	ok(plan_for(&p, "faithfulness,faithfulnes", &cfg, err, sizeof err) < 0, "an unknown metric");
	ok(!strncmp(err, "unknown metric \"faithfulnes\": the metrics are faithfulness,", 58), "its message names it: %s", err);
	rag_evalplan_free(&p);
	ok(plan_for(&p, ",", &cfg, err, sizeof err) < 0, "-m , names none");
	is_str(err, "no metric to score: name at least one (-m faithfulness)", "its message");
	rag_evalplan_free(&p);
	ok(rag_evalplan_find("ndcg@10") && !rag_evalplan_find("ndcg@") && !rag_evalplan_find("ndcg@1x"),
	   "ndcg@K: a number after the prefix");
	ok(rag_evalplan_find("rubric:tone") && !rag_evalplan_find("rubric:"), "rubric:NAME");
	is_str(rag_evalplan_score_name("rubric:tone"), "tone", "rubric:tone scores tone");
	rag_config_free(&cfg);
}

/* parallel's --block from the bytes of the lines --emit writes and the longest (rag-eval counts
 * them as it reads the test set) */
static void test_block(void)
{
	is_int(rag_evalplan_block_of(4 * 50, 50, 2), 1024, "a small test set: the 1 KiB floor");
	is_int(rag_evalplan_block_of(4 * 50 + 4050, 4050, 2), 2125 + 4050,
	       "a 4,000-character record: half the bytes and the longest line, a block that holds it");
	is_int(rag_evalplan_block_of(4051, 4050, 1), 4051 + 4050, "one shard: all the bytes and the longest line");
	is_int(rag_evalplan_block_of(100L * 1024 * 1024, 100, 2), 1024L * 1024, "a large test set: the 1 MiB cap");
	is_int(rag_evalplan_block_of(3L * 1024 * 1024, 2L * 1024 * 1024, 2), 2L * 1024 * 1024 + 1,
	       "a line longer than the cap: a block that holds it");
}

/* The stages in the order they run: each once, the metric tools of the operation registry
 * after the built-in ones and rag-judge last; a metric tool's metric (its .metric) is a stage of
 * its own, with -j, before rag-judge. */
static void test_tools(void)
{
	rag_config cfg;
	rag_evalplan p;
	char err[1024];
	int seen[RAG_EVAL_MAXSTAGES] = {0}, k, s, last = -1, ntools = 0, twice = 0;
	size_t i;
	const rag_evalmetric *m;
	for (k = 0; (s = rag_evalplan_nth(k)) >= 0; k++) {
		ok(rag_evalplan_stage(s) != NULL, "stage %d (the %d-th to run) is a stage", s, k);
		twice |= seen[s]++;
		if (s >= RAG_EVAL_NSTAGES) {
			ntools++;
			ok(last < RAG_EVAL_JUDGE || last >= RAG_EVAL_NSTAGES, "metric tool stage %d runs after the built-in ones", s);
		}
		last = s;
	}
	ok(!twice, "no stage runs twice");
	is_int(last, RAG_EVAL_JUDGE, "rag-judge runs last");
	is_int(k, RAG_EVAL_NSTAGES + ntools, "every built-in stage and every metric tool's");
	ok(rag_evalplan_stage(RAG_EVAL_NSTAGES + ntools) == NULL && rag_evalplan_stage(-1) == NULL,
	   "no stage beyond them");
	rag_config_defaults(&cfg);
	for (i = 0; (m = rag_evalplan_metric(i)); i++) {
		char *list, *want, *t;
		if (m->s1 < RAG_EVAL_NSTAGES) continue;
		list = rag_xasprintf("correctness,%s", m->name);
		ok(plan_for(&p, list, &cfg, err, sizeof err) == 0, "-m %s: planned", list);
		p.jobs = 2;
		t = render(&p);
		want = rag_xasprintf("  | %s -q -j 2 \\\n  | rag-judge -q -j 2 --rubric correctness \\\n",
		                     rag_evalplan_stage(m->s1)->tool);
		ok(strstr(t, want) != NULL, "-m %s: its tool's stage, then rag-judge's", list);
		ok(rag_evalplan_find(m->name) == m, "%s: found by its name", m->name);
		free(want);
		free(t);
		free(list);
		rag_evalplan_free(&p);
	}
	rag_config_free(&cfg);
}

/* Every metric of the registry in rag-eval(1)'s Metrics section, by its name (a prefix as
 * written there: p@, rubric:), and every default named as one. */
static void test_manual(void)
{
	char path[4096], err[RAG_ERRLEN], *text, *sec, *end, *sh;
	size_t len, i;
	const rag_evalmetric *m;
	rag_buf missing = {0};
	snprintf(path, sizeof path, "%s/share/man/man1/rag-eval.1", RAG_TEST_TOP);
	text = rag_read_file(path, &len, err, sizeof err);
	ok(text != NULL, "rag-eval(1) read: %s", text ? path : err);
	if (!text) return;
	sec = strstr(text, ".SS Metrics\n");
	ok(sec != NULL, "rag-eval(1) has a Metrics section");
	if (!sec) {
		free(text);
		return;
	}
	sh = strstr(sec + 1, "\n.S");
	end = sh ? sh : text + len;
	*end = 0;
	for (i = 0; (m = rag_evalplan_metric(i)); i++) {
		char *want = rag_xasprintf("%s", m->name);
		if (!strstr(sec, want)) rag_buf_addf(&missing, " %s", m->name);
		free(want);
	}
	is_str(missing.p ? missing.p : "", "", "every metric of the registry is in rag-eval(1)'s Metrics");
	rag_buf_free(&missing);
	for (i = 0; rag_evalplan_defaults[i]; i++) {
		ok(rag_evalplan_find(rag_evalplan_defaults[i]) != NULL, "default %s is in the registry",
		   rag_evalplan_defaults[i]);
		ok(strstr(sec, rag_evalplan_defaults[i]) != NULL, "default %s is in rag-eval(1)", rag_evalplan_defaults[i]);
	}
	free(text);
}

int main(void)
{
	test_defaults();
	test_ranking();
	test_refusal();
	test_offline();
	test_errors();
	test_block();
	test_tools();
	test_manual();
	return done_testing();
}
