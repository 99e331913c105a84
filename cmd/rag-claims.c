/* rag-claims - split a text field of each record into atomic, self-contained claims. */
#include "tool.h"
#include "base.h"
#include "record.h"
#include "stream.h"
#include "metric.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-claims [OPTIONS] < records.jsonl > records.jsonl\n"
	"Split a text of each record (default: the answer) into atomic claims, written to\n"
	"claims.<FIELD>.\n";

enum { OPT_FROM = RAG_OPT_TOOL };

static const rag_opt options[] = {
	{"from", 0, OPT_FROM, "FIELD", "answer reference question response user_input",
	 "text field to split (default answer; e.g. reference)"},
	{"max-claims", 'n', 'n', "N", NULL, "at most N claims (default 20)"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	const char *from;         /* field read, as given */
	const char *key;          /* claims.<key>: the canonical name */
	int max_claims;
} tool;

static void claims_done(void *arg, jv result, const char *error)
{
	rag_item *it = arg;
	tool *t = it->data;
	if (error) {
		it->rec = rag_record_set(it->rec, "claims", t->key, jv_null());
		it->rec = rag_record_error(it->rec, "rag-claims", NULL, "%s", error);
		rag_item_remote_error(it, error);
		jv_free(result);
	} else {
		it->rec = rag_record_set(it->rec, "claims", t->key, result);
	}
	rag_item_release(it);
}

static void start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	jv v = rag_record_get(it->rec, t->from);
	const char *text, *question;
	char why[RAG_ERRLEN];

	it->data = t;
	it->stage = t->key;
	if (!strcmp(t->key, "reference") && (!jv_is_valid(v) || jv_get_kind(v) == JV_KIND_NULL ||
	                                      (jv_get_kind(v) == JV_KIND_STRING && !*jv_string_value(v)))) {
		/* no reference answer: context recall, which needs its claims, does not apply (rag(7)
		 * NOT APPLICABLE); rag-verify passes it through */
		jv_free(v);
		it->rec = rag_record_set(it->rec, "claims", t->key, jv_null());
		rag_item_not_applicable(it, "context_recall", "no reference answer");
		return;
	}
	jv_free(v);
	/* borrowed from the record, which does not change until the callback */
	if (rag_record_need_text(it->rec, t->from, 0, &text, why, sizeof why) < 0 ||
	    rag_item_question(it, &question, why, sizeof why) < 0) {
		it->rec = rag_record_set(it->rec, "claims", t->key, jv_null());
		rag_item_input_error(it, "rag-claims", NULL, "%s", why);
		return;
	}
	rag_cli_self_check(t->cli, it->rec);
	rag_item_hold(it);
	rag_claims_ask(t->cli->judge, rag_cli_lang(t->cli, question ? question : text), question, text,
	                 t->max_claims, &it->usage, claims_done, it);
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_stream_ops ops = {start, NULL, NULL, NULL};
	int opt, rc, done;
	long v;
	const char *max_arg = NULL;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-claims";
	cli.usage = usage;
	cli.opts = options;
	cli.judge_opts = 1;
	cli.ops = (const rag_op *const[]){&rag_op_claims, NULL};
	t.cli = &cli;
	t.from = "answer";
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case OPT_FROM:
			if (!*optarg) {
				rag_msg(cli.prog, "error", "--from needs a field name");
				return rag_cli_misuse(&cli);
			}
			t.from = optarg;
			break;
		case 'n': max_arg = optarg; break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) return rc;
		}
	}
	if ((rc = rag_cli_no_operands(&cli, argc, argv))) return rc;
	if (max_arg && rag_cli_int(&cli, "--max-claims", max_arg, 1, 10000, &v) < 0) return rag_cli_misuse(&cli);
	t.key = rag_record_canonical(t.from);
	if ((rc = rag_cli_setup(&cli))) {
		rag_cli_free(&cli);
		return rc;
	}
	t.max_claims = max_arg ? (int)v : cli.cfg.verify.max_claims;
	rc = rag_cli_run(&cli, &ops, &t);
	rag_cli_free(&cli);
	return rc;
}
