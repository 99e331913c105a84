/* tool-metric.c - the whole of a metric tool of one operation (rag_op.tool set: rag-polite's
 * main is one call of rag_cli_metric): the judge's and the shared options, and for each record
 * the operation's question, its score written to scores.<metric>, or null with an errors entry.
 * What the tool asks is its descriptor's; nothing here names an operation (HACKING.md, "A new
 * LLM metric tool"). */
#include "tool.h"
#include "base.h"
#include "record.h"
#include "stream.h"
#include "judge.h"
#include "metric.h"

#include <stdlib.h>
#include <string.h>

typedef struct metric_tool {
	rag_cli *cli;
	const rag_op *op;
} metric_tool;

static void scored(void *arg, jv result, const char *error)
{
	rag_item *it = arg;
	const metric_tool *t = it->data;
	const char *metric = t->op->metric;
	if (!error && (jv_get_kind(result) != JV_KIND_NUMBER || !(jv_number_value(result) >= 0) ||
	               jv_number_value(result) > 1))
		error = "internal error: the operation's score is not a number from 0 to 1";
	if (error) {
		it->rec = rag_record_set(it->rec, "scores", metric, jv_null());
		it->rec = rag_record_error(it->rec, t->op->tool, metric, "%s", error);
		rag_item_remote_error(it, error);
		jv_free(result);
	} else {
		it->rec = rag_record_set(it->rec, "scores", metric, result);
	}
	rag_item_release(it);
}

static void start(rag_item *it, void *ctx)
{
	metric_tool *t = ctx;
	const rag_op *op = t->op;
	const char *question = NULL, *answer = NULL;
	char why[RAG_ERRLEN];

	it->data = t;
	it->stage = op->metric;
	why[0] = 0;
	/* the prompt's language: the question's, else the answer's (a text the operation reads
	 * itself, with the one message of a missing field) */
	if (rag_item_question(it, &question, why, sizeof why) < 0 ||
	    rag_record_text(it->rec, "answer", &answer, why, sizeof why) < 0)
		goto bad;
	rag_cli_self_check(t->cli, it->rec);
	rag_item_hold(it);
	if (op->ask(op, t->cli->judge, rag_cli_lang(t->cli, question ? question : answer), question, it->rec, &it->usage,
	            scored, it, why, sizeof why) == 0)
		return;
	rag_item_release(it);
bad:
	it->rec = rag_record_set(it->rec, "scores", op->metric, jv_null());
	rag_item_input_error(it, op->tool, op->metric, "%s", why);
}

int rag_cli_metric(const char *prog, int argc, char **argv)
{
	rag_cli cli;
	metric_tool t;
	rag_stream_ops ops = {start, NULL, NULL, NULL};
	const rag_op *op = rag_op_tool(prog);
	char *usage;
	int opt, rc, done;

	if (!op) {
		rag_msg(prog, "error", "internal: no operation of the registry has the tool %s", prog);
		return RAG_EXIT_INTERNAL;
	}
	usage = rag_xasprintf("Usage: %s [OPTIONS] < records.jsonl > records.jsonl\n%s\nIt writes scores.%s.\n", prog,
	                      op->doc, op->metric);
	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = prog;
	cli.usage = usage;
	cli.judge_opts = 1;
	cli.ops = (const rag_op *const[]){op, NULL};
	t.cli = &cli;
	t.op = op;
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		rc = rag_cli_option(&cli, opt, optarg, &done);
		if (rc || done) goto out;
	}
	if ((rc = rag_cli_no_operands(&cli, argc, argv))) goto out;
	if ((rc = rag_cli_config(&cli)) || (!strcmp(op->offline, RAG_OP_NO_OFFLINE) && (rc = rag_cli_need_endpoint(&cli))) ||
	    (rc = rag_cli_judge(&cli)))
		goto out;
	rc = rag_cli_run(&cli, &ops, &t);
out:
	rag_cli_free(&cli);
	free(usage);
	return rc;
}
