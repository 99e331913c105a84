/* rag-verify - judge each claim of a record against its retrieved contexts: faithfulness (the
 * answer's claims) or context recall (the reference's claims). */
#include "rag.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-verify [OPTIONS] < records.jsonl > records.jsonl\n"
	"Judge every claim of each record against its contexts: verdicts.<METRIC> and\n"
	"scores.<METRIC> = supported claims / all claims.\n"
	"\n"
	"Options:\n"
	"      --metric NAME      faithfulness (claims.answer, default) | context_recall (claims.reference)\n"
	"      --claims FIELD     read claims.<FIELD> instead of the metric's default\n"
	"      --recheck          re-check unsupported claims against each chunk alone\n"
	"      --literal          accept a claim that appears literally in a context\n"
	"      --batch-claims N   claims per judge call (default 20)\n"
	"      --batch-chars N    context characters per judge call (default 24000)\n"
	"\n";

enum { OPT_METRIC = RAG_OPT_TOOL, OPT_CLAIMS, OPT_RECHECK, OPT_LITERAL, OPT_BATCH_CLAIMS, OPT_BATCH_CHARS };

static const struct option options[] = {
	{"metric", required_argument, 0, OPT_METRIC},
	{"claims", required_argument, 0, OPT_CLAIMS},
	{"recheck", no_argument, 0, OPT_RECHECK},
	{"literal", no_argument, 0, OPT_LITERAL},
	{"batch-claims", required_argument, 0, OPT_BATCH_CLAIMS},
	{"batch-chars", required_argument, 0, OPT_BATCH_CHARS},
	RAG_CLI_LONG,
	{0, 0, 0, 0},
};

typedef struct tool {
	rag_cli *cli;
	const char *metric;
	const char *claims_field;
	int warned;
} tool;

static void set_null(rag_item *it, const tool *t)
{
	it->rec = rag_record_set(it->rec, "verdicts", t->metric, jv_null());
	it->rec = rag_record_set(it->rec, "scores", t->metric, jv_null());
}

static void verified(void *arg, jv result, const char *error)
{
	rag_item *it = arg;
	tool *t = it->data;
	if (error) {
		jv_free(result);
		set_null(it, t);
		it->rec = rag_record_error(it->rec, "rag-verify", t->metric, "%s", error);
		rag_item_remote_error(it, error);
	} else {
		int n = jv_array_length(jv_copy(result)), i, yes = 0;
		for (i = 0; i < n; i++) {
			jv v = jv_object_get(jv_array_get(jv_copy(result), i), jv_string("verdict"));
			yes += jv_get_kind(v) == JV_KIND_TRUE;
			jv_free(v);
		}
		it->rec = rag_record_set(it->rec, "verdicts", t->metric, result);
		/* nothing claimed, nothing unfaithful: a refusal scores 1, visible as an empty list */
		it->rec = rag_record_set(it->rec, "scores", t->metric, jv_number(n ? (double)yes / n : 1.0));
	}
	rag_item_release(it);
}

/* claims.<field> as an array of strings, or a reason why not. */
static jv record_claims(jv rec, const char *field, int *upstream_failed)
{
	jv all = jv_object_get(jv_copy(rec), jv_string("claims")), c;
	int i, n;
	*upstream_failed = 0;
	if (jv_get_kind(all) == JV_KIND_OBJECT) {
		c = jv_object_get(all, jv_string(field));
	} else {
		jv_free(all);
		c = jv_invalid();
	}
	if (!jv_is_valid(c)) {
		jv_free(c);
		return jv_invalid_with_msg(jv_string_fmt("record has no claims.%s: run rag-claims%s first", field,
		                                         strcmp(field, "answer") ? " --from reference" : ""));
	}
	if (jv_get_kind(c) == JV_KIND_NULL) {
		*upstream_failed = 1;
		return jv_invalid_with_msg(jv_string_fmt("claims.%s is null: the claims stage failed for this record", field));
	}
	if (jv_get_kind(c) != JV_KIND_ARRAY) {
		const char *k = jv_kind_name(jv_get_kind(c));
		jv_free(c);
		return jv_invalid_with_msg(jv_string_fmt("claims.%s is %s, not an array", field, k));
	}
	n = jv_array_length(jv_copy(c));
	for (i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(c), i);
		int ok = jv_get_kind(s) == JV_KIND_STRING;
		jv_free(s);
		if (!ok) {
			jv_free(c);
			return jv_invalid_with_msg(jv_string_fmt("claims.%s[%d] is not a string", field, i));
		}
	}
	return c;
}

static void start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	jv claims, contexts;
	const char *question;
	int upstream;

	it->data = t;
	if (strcmp(t->metric, "context_recall") == 0) {
		const char *ref = rag_record_str(it->rec, "reference");
		if (!ref || !*ref) {
			set_null(it, t);
			rag_item_input_error(it, "rag-verify", t->metric,
			                     "record has no reference: context recall needs a reference answer");
			return;
		}
	}
	claims = record_claims(it->rec, t->claims_field, &upstream);
	if (!jv_is_valid(claims)) {
		jv m = jv_invalid_get_msg(claims);
		set_null(it, t);
		if (upstream)
			it->rec = rag_record_error(it->rec, "rag-verify", t->metric, "%s", jv_string_value(m));
		else
			rag_item_input_error(it, "rag-verify", t->metric, "%s", jv_string_value(m));
		jv_free(m);
		return;
	}
	contexts = rag_record_contexts(it->rec);
	if (!jv_is_valid(contexts)) {
		jv m = jv_invalid_get_msg(contexts);
		jv_free(claims);
		set_null(it, t);
		rag_item_input_error(it, "rag-verify", t->metric, "%s", jv_string_value(m));
		jv_free(m);
		return;
	}
	if (rag_judge_self_check(t->cli->judge, it->rec) && !t->warned) {
		t->warned = 1;
		rag_msg("rag-verify", "warning", "the judge model \"%s\" also generated the answers; its scores may flatter them",
		        rag_judge_model(t->cli->judge));
	}
	question = rag_record_str(it->rec, "question");
	{
		/* without a question, the claims tell the language */
		jv first = jv_array_length(jv_copy(claims)) ? jv_array_get(jv_copy(claims), 0) : jv_string("");
		const char *lang = rag_cli_lang(t->cli, question && *question ? question : jv_string_value(first));
		jv_free(first);
		rag_item_hold(it);
		rag_judge_verify(t->cli->judge, lang, question, claims, contexts, &it->usage, verified, it);
	}
}

static void finish(rag_item *it, void *ctx)
{
	tool *t = ctx;
	it->rec = rag_record_usage(it->rec, "rag-verify", &it->usage, rag_judge_name(t->cli->judge));
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_stream_ops ops = {start, finish, NULL, NULL};
	int opt, rc, done, recheck = 0, literal = 0;
	long batch_claims = 0, batch_chars = 0;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	cli.prog = "rag-verify";
	cli.usage = usage;
	cli.judge_opts = 1;
	t.cli = &cli;
	t.metric = "faithfulness";
	while ((opt = getopt_long(argc, argv, RAG_CLI_SHORT, options, NULL)) != -1) {
		switch (opt) {
		case OPT_METRIC:
			if (strcmp(optarg, "faithfulness") && strcmp(optarg, "context_recall")) {
				rag_msg(cli.prog, "error", "--metric must be faithfulness or context_recall, not \"%s\"", optarg);
				return rag_cli_misuse(&cli);
			}
			t.metric = optarg;
			break;
		case OPT_CLAIMS: t.claims_field = optarg; break;
		case OPT_RECHECK: recheck = 1; break;
		case OPT_LITERAL: literal = 1; break;
		case OPT_BATCH_CLAIMS:
			if (rag_cli_int(&cli, "--batch-claims", optarg, 1, 1000, &batch_claims)) return rag_cli_misuse(&cli);
			break;
		case OPT_BATCH_CHARS:
			if (rag_cli_int(&cli, "--batch-chars", optarg, 100, 100000000, &batch_chars)) return rag_cli_misuse(&cli);
			break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) return rc;
		}
	}
	if (optind < argc) {
		rag_msg(cli.prog, "error", "unexpected argument \"%s\" (records are read from standard input)", argv[optind]);
		return rag_cli_misuse(&cli);
	}
	if (!t.claims_field)
		t.claims_field = strcmp(t.metric, "context_recall") == 0 ? "reference" : "answer";
	if ((rc = rag_cli_setup(&cli))) {
		rag_cli_free(&cli);
		return rc;
	}
	if (recheck) cli.cfg.verify.recheck_chunks = 1;
	if (literal) cli.cfg.verify.literal_match = 1;
	if (batch_claims) cli.cfg.verify.batch_claims = (int)batch_claims;
	if (batch_chars) cli.cfg.verify.batch_chars = (int)batch_chars;
	rc = rag_cli_run(&cli, &ops, &t);
	rag_cli_free(&cli);
	return rc;
}
