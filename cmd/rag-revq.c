/* rag-revq - reverse questions: from each answer alone, the questions it would answer and whether
 * it is noncommittal; the first half of answer relevancy (rag-embsim compares them with the
 * real question). */
#include "tool.h"
#include "base.h"
#include "record.h"
#include "stream.h"
#include "judge.h"
#include "metric.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-revq [OPTIONS] < records.jsonl > records.jsonl\n"
	"Generate, from each answer alone, the questions it would answer: questions.generated\n"
	"(array) and questions.noncommittal (bool). The offline judge uses the answer itself as\n"
	"the one pseudo-question (questions.offline_pseudo: true).\n";

enum { OPT_GENERATIONS = RAG_OPT_TOOL };

static const rag_opt options[] = {
	{"n", 'n', 'n', "N", NULL, "questions to generate (default 3)"},
	{"generations", 0, OPT_GENERATIONS, "MODE", "list n requests",
	 "list (one request asking for N questions, default) |\n"
	 "n (one request, N choices: the endpoint's n parameter) |\n"
	 "requests (N requests of one question each)"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	int n, mode;
	jv refusals;
} tool;

static void set_null(rag_item *it)
{
	it->rec = rag_record_set(it->rec, "questions", "generated", jv_null());
	it->rec = rag_record_set(it->rec, "questions", "noncommittal", jv_null());
}

static void generated(void *arg, jv result, const char *error)
{
	rag_item *it = arg;
	if (error) {
		jv_free(result);
		set_null(it);
		it->rec = rag_record_error(it->rec, "rag-revq", "answer_relevancy", "%s", error);
		rag_item_remote_error(it, error);
	} else {
		it->rec = rag_record_set(it->rec, "questions", "generated",
		                         jv_object_get(jv_copy(result), jv_string("generated")));
		it->rec = rag_record_set(it->rec, "questions", "noncommittal",
		                         jv_object_get(result, jv_string("noncommittal")));
	}
	rag_item_release(it);
}

static void start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	const char *answer;
	char why[RAG_ERRLEN];
	it->stage = "answer_relevancy";
	if (rag_record_expects_refusal(it->rec)) {
		/* the right answer to it declines, which answer relevancy would score 0 */
		set_null(it);
		rag_item_not_applicable(it, "answer_relevancy", RAG_NA_UNANSWERABLE);
		return;
	}
	if (rag_record_need_text(it->rec, "answer", 0, &answer, why, sizeof why) < 0) {
		set_null(it);
		rag_item_input_error(it, "rag-revq", "answer_relevancy", "%s", why);
		return;
	}
	if (rag_judge_offline(t->cli->judge)) {
		/* no question can be generated without a model: the answer stands in for one */
		it->rec = rag_record_set(it->rec, "questions", "generated",
		                         *answer ? jv_array_append(jv_array(), jv_string(answer)) : jv_array());
		it->rec = rag_record_set(it->rec, "questions", "noncommittal",
		                         jv_bool(rag_revq_noncommittal(t->refusals, answer)));
		it->rec = rag_record_set(it->rec, "questions", "offline_pseudo", jv_true());
		return;
	}
	if (!*answer) {
		/* an empty answer commits to nothing; no judge needed to say so */
		it->rec = rag_record_set(it->rec, "questions", "generated", jv_array());
		it->rec = rag_record_set(it->rec, "questions", "noncommittal", jv_true());
		return;
	}
	rag_cli_self_check(t->cli, it->rec);
	rag_item_hold(it);
	rag_revq_ask(t->cli->judge, rag_cli_lang(t->cli, answer), answer, t->n, t->mode, &it->usage,
	             generated, it);
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_stream_ops ops = {start, NULL, NULL, NULL};
	int opt, rc, done;
	long n = 3;
	char err[RAG_ERRLEN];

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-revq";
	cli.usage = usage;
	cli.opts = options;
	cli.judge_opts = 1;
	cli.ops = (const rag_op *const[]){&rag_op_revq, NULL};
	t.cli = &cli;
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case 'n':
			if (rag_cli_int(&cli, "--n", optarg, 1, 20, &n)) return rag_cli_misuse(&cli);
			break;
		case OPT_GENERATIONS:
			if (!strcmp(optarg, "list")) t.mode = RAG_REVQ_LIST;
			else if (!strcmp(optarg, "n")) t.mode = RAG_REVQ_N;
			else if (!strcmp(optarg, "requests")) t.mode = RAG_REVQ_REQUESTS;
			else {
				rag_msg(cli.prog, "error", "--generations must be one of list, n, requests, not \"%s\"", optarg);
				return rag_cli_misuse(&cli);
			}
			break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) return rc;
		}
	}
	if ((rc = rag_cli_no_operands(&cli, argc, argv))) return rc;
	t.n = (int)n;
	if ((rc = rag_cli_setup(&cli))) {
		rag_cli_free(&cli);
		return rc;
	}
	if (rag_judge_offline(cli.judge)) {
		char *path = rag_xasprintf("%s/refusals.txt", rag_datadir());
		t.refusals = rag_revq_refusals_load(path, err, sizeof err);
		free(path);
		if (!jv_is_valid(t.refusals)) {
			rag_msg(cli.prog, "error", "%s", err);
			rag_cli_free(&cli);
			return RAG_EXIT_USAGE;
		}
	} else {
		t.refusals = jv_array();
	}
	rc = rag_cli_run(&cli, &ops, &t);
	jv_free(t.refusals);
	rag_cli_free(&cli);
	return rc;
}
