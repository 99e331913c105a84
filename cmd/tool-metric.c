/* tool-metric.c - the whole of a metric tool of one operation (rag_op.tool set: its main,
 * cmd/tool-metric-main.c, is one call of rag_cli_metric): the judge's and the shared options, and for each record
 * the operation's question, asked of the LLM judge (.ask) or answered by the offline one
 * (.offline_ask), its score written to scores.<metric>, its reason to reasons.<metric> and its
 * verdicts, where the operation has them, to verdicts.<metric>; or the score null with an errors
 * entry.
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

/* A result as .ask and .offline_ask give it: {"score": 0..1, "reason": a text[, "verdicts": []]}. */
static int result_fits(jv r)
{
	jv score = rag_json_get(jv_copy(r), "score"), reason = rag_json_get(jv_copy(r), "reason"),
	   verdicts = rag_json_get(jv_copy(r), "verdicts");
	int ok = jv_get_kind(score) == JV_KIND_NUMBER && jv_number_value(score) >= 0 && jv_number_value(score) <= 1 &&
	         jv_get_kind(reason) == JV_KIND_STRING &&
	         (!jv_is_valid(verdicts) || jv_get_kind(verdicts) == JV_KIND_ARRAY);
	jv_free(score);
	jv_free(reason);
	jv_free(verdicts);
	return ok;
}

static void scored(void *arg, jv result, const char *error)
{
	rag_item *it = arg;
	const metric_tool *t = it->data;
	const char *metric = t->op->metric;
	if (!error && !result_fits(result))
		error = "internal error: the operation's result is not a score from 0 to 1 with its reason";
	if (error) {
		it->rec = rag_record_set(it->rec, "scores", metric, jv_null());
		it->rec = rag_record_error(it->rec, t->op->tool, metric, "%s", error);
		rag_item_remote_error(it, error);
		jv_free(result);
	} else {
		jv verdicts = rag_json_get(jv_copy(result), "verdicts");
		if (jv_is_valid(verdicts)) it->rec = rag_record_set(it->rec, "verdicts", metric, verdicts);
		else jv_free(verdicts);
		it->rec = rag_record_set(it->rec, "scores", metric, rag_json_get(jv_copy(result), "score"));
		it->rec = rag_record_set(it->rec, "reasons", metric, rag_json_get(result, "reason"));
	}
	rag_item_release(it);
}

static void start(rag_item *it, void *ctx)
{
	metric_tool *t = ctx;
	const rag_op *op = t->op;
	const char *question = NULL, *answer = NULL, *lang;
	char why[RAG_ERRLEN];
	jv result;

	it->data = t;
	it->stage = op->metric;
	why[0] = 0;
	/* the prompt's language: the question's, else the answer's (a text the operation reads
	 * itself, with the one message of a missing field) */
	if (rag_item_question(it, &question, why, sizeof why) < 0 ||
	    rag_record_text(it->rec, "answer", &answer, why, sizeof why) < 0)
		goto bad;
	lang = rag_cli_lang(t->cli, question ? question : answer);
	rag_cli_self_check(t->cli, it->rec);
	rag_item_hold(it);
	if (rag_judge_offline(t->cli->judge)) {
		if (op->offline_ask(op, t->cli->judge, lang, question, it->rec, &result, why, sizeof why) == 0) {
			scored(it, result, NULL);
			return;
		}
	} else if (op->ask(op, t->cli->judge, lang, question, it->rec, &it->usage, scored, it, why, sizeof why) == 0) {
		return;
	}
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
	usage = rag_xasprintf("Usage: %s [OPTIONS] < records.jsonl > records.jsonl\n%s\nIt writes scores.%s and its reason, "
	                      "reasons.%s.\n", prog, op->doc, op->metric, op->metric);
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
	if ((rc = rag_cli_config(&cli)) || (!op->offline_ask && (rc = rag_cli_need_endpoint(&cli))) ||
	    (rc = rag_cli_judge(&cli)))
		goto out;
	rc = rag_cli_run(&cli, &ops, &t);
out:
	rag_cli_free(&cli);
	free(usage);
	return rc;
}
