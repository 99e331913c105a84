/* t-op.c - the registry of the LLM operations: every descriptor the library's sources define is
 * in it (mk/ops.sh made it of them), has every field set, its prompt in both languages under
 * share/prompts, a name of its own, and a metric tool's its tool and metric where config.c's
 * list of score names has them;
 * every prompt there is an operation's; an operation with a field left unset is refused before anything is asked; and
 * the expected completions --estimate counts are rag(7) ESTIMATES' figures. */
#include "base.h"
#include "judge.h"
#include "metric.h"
#include "evalplan.h"
#include "gen.h"
#include "config.h"
#include "tap.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int prompt_exists(const char *name, const char *lang)
{
	char *path = rag_xasprintf("%s/share/prompts/%s.%s.txt", RAG_TEST_TOP, name, lang);
	int ok = access(path, R_OK) == 0;
	free(path);
	return ok;
}

/* The descriptors defined in lib/, as HACKING.md's recipe writes them: "const rag_op
 * rag_op_NAME = {" at the start of a line. */
static long defined_ops(void)
{
	DIR *d = opendir(RAG_TEST_TOP "/lib");
	struct dirent *e;
	long n = 0;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name), flen;
		char *path, *text, *p, err[RAG_ERRLEN];
		if (len < 3 || strcmp(e->d_name + len - 2, ".c")) continue;
		path = rag_xasprintf("%s/lib/%s", RAG_TEST_TOP, e->d_name);
		text = rag_read_file(path, &flen, err, sizeof err);
		for (p = text; p && (p = strstr(p, "const rag_op rag_op_")); p++)
			if (p == text || p[-1] == '\n') n++;
		free(text);
		free(path);
	}
	if (d) closedir(d);
	return n;
}

static int ask_none(const rag_op *op, rag_judge *j, const char *lang, const char *question, jv rec,
                    rag_usage *usage, rag_judge_cb cb, void *arg, char *err, size_t errlen)
{
	(void)op, (void)j, (void)lang, (void)question, (void)rec, (void)usage, (void)cb, (void)arg;
	rag_seterr(err, errlen, "never");
	return -1;
}

static int offline_none(const rag_op *op, rag_judge *j, const char *lang, const char *question, jv rec,
                        jv *result, char *err, size_t errlen)
{
	(void)op, (void)j, (void)lang, (void)question, (void)rec, (void)result;
	rag_seterr(err, errlen, "never");
	return -1;
}

static const char *none(jv reply, int expect, jv *result, char *problem, size_t plen)
{
	(void)expect, (void)result, (void)problem, (void)plen;
	jv_free(reply);
	return "never";
}

static double fifty(int expect)
{
	(void)expect;
	return 50;
}

int main(void)
{
	const rag_op *const *all = rag_op_all(), *const *o, *const *p;
	char err[RAG_ERRLEN], notice[RAG_ERRLEN];
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	for (o = all; *o; o++, n++) {
		const rag_op *op = *o;
		int rc = rag_judge_op_check(op, err, sizeof err);
		ok(rc == 0, "%s: every field is set (%s)", op->name ? op->name : "(no name)", rc ? err : "");
		ok(prompt_exists(op->name, "en") && prompt_exists(op->name, "zh"),
		   "%s: share/prompts/%s.en.txt and .zh.txt", op->name, op->name);
		ok(rag_op_find(op->name) == op, "%s: rag_op_find finds it", op->name);
		for (p = all; p < o; p++)
			if (!strcmp((*p)->name, op->name)) ok(0, "%s: its name is its own", op->name);
		if (op->tool) {
			ok(rag_op_tool(op->tool) == op, "%s: rag_op_tool finds it by its tool, %s", op->name, op->tool);
			ok(rag_config_metric_tool(op->metric) && !strcmp(rag_config_metric_tool(op->metric), op->tool),
			   "%s: no custom rubric may be called %s, %s's score (obj/gen/ops.inc has it)", op->name,
			   op->metric, op->tool);
			{
				const char *gop, *gdoc = rag_evalplan_tool_doc(rag_evalplan_find(op->metric), &gop);
				ok(gdoc && gop && !strcmp(gdoc, op->doc) && !strcmp(gop, op->name),
				   "%s: rag-eval's plan has its operation and .doc as the descriptor (obj/gen/ops.inc)",
				   op->name);
			}
		}
		if (op->schema) {
			jv s = jv_parse(op->schema);
			ok(jv_get_kind(s) == JV_KIND_OBJECT, "%s: its schema is a JSON object", op->name);
			jv_free(s);
		}
	}
	is_int((long)n, defined_ops(), "every descriptor lib/ defines is in the registry");
	ok(n >= 10, "the ten built-in operations at least");
	ok(rag_op_tool("rag-verify") == NULL, "a tool of many operations is no operation's metric tool");
	ok(rag_op_find("no-such-operation") == NULL, "an unknown name: NULL");

	/* every prompt file belongs to an operation: one left out of the registry is found here */
	d = opendir(RAG_TEST_TOP "/share/prompts");
	ok(d != NULL, "share/prompts opens");
	while (d && (e = readdir(d))) {
		char *name = rag_xstrdup(e->d_name), *dot = strchr(name, '.');
		if (e->d_name[0] != '.' && dot) {
			*dot = 0;
			ok(rag_op_find(name) != NULL, "prompt %s: an operation of the registry", e->d_name);
		}
		free(name);
	}
	if (d) closedir(d);

	/* a field left unset: refused by name, before a judge is made */
	{
		const rag_op fields[] = {
			{NULL, RAG_OP_JSON, "{}", none, fifty, "x", NULL, NULL, NULL, NULL, NULL},
			{"t", 0, "{}", none, fifty, "x", NULL, NULL, NULL, NULL, NULL},
			{"t", RAG_OP_JSON, NULL, none, fifty, "x", NULL, NULL, NULL, NULL, NULL},
			{"t", RAG_OP_TEXT, "{}", none, fifty, "x", NULL, NULL, NULL, NULL, NULL},
			{"t", RAG_OP_JSON, "{}", NULL, fifty, "x", NULL, NULL, NULL, NULL, NULL},
			{"t", RAG_OP_JSON, "{}", none, NULL, "x", NULL, NULL, NULL, NULL, NULL},
			{"t", RAG_OP_JSON, "{}", none, fifty, NULL, NULL, NULL, NULL, NULL, NULL},
		};
		static const char *const says[] = {"a name", "reply's shape", "JSON Schema", "no schema", "reply check",
		                                   "expected completion", "offline"};
		/* a metric tool's four fields: all or none */
		const rag_op tools[] = {
			{"t", RAG_OP_JSON, "{}", none, fifty, "x", .tool = "rag-t", .metric = "t", .doc = "T."},
			{"t", RAG_OP_JSON, "{}", none, fifty, "x", .metric = "t", .doc = "T.", .ask = ask_none},
			{"t", RAG_OP_JSON, "{}", none, fifty, "x", .tool = "t", .metric = "t", .doc = "T.", .ask = ask_none},
			{"t", RAG_OP_JSON, "{}", none, fifty, "x", .tool = "rag-t", .metric = "t", .ask = ask_none},
		};
		const rag_op tool = {"t", RAG_OP_JSON, "{}", none, fifty, NULL, .tool = "rag-t", .metric = "t", .doc = "T.",
		                     .ask = ask_none},
		             offline_tool = {"t", RAG_OP_JSON, "{}", none, fifty, NULL, .tool = "rag-t", .metric = "t",
		                             .doc = "T.", .ask = ask_none, .offline_ask = offline_none},
		             text_tool = {"t", RAG_OP_JSON, "{}", none, fifty, "x", .tool = "rag-t", .metric = "t", .doc = "T.",
		                          .ask = ask_none};
		const rag_op good = {"claims", RAG_OP_JSON, "{}", none, fifty, RAG_OP_NO_OFFLINE, NULL, NULL, NULL, NULL, NULL};
		size_t i;
		rag_config cfg;
		for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
			err[0] = 0;
			ok(rag_judge_op_check(&fields[i], err, sizeof err) < 0 && strstr(err, says[i]),
			   "a descriptor lacking \"%s\" is refused, saying so (%s)", says[i], err);
		}
		ok(rag_judge_op_check(&good, err, sizeof err) == 0, "one with every field is taken");
		for (i = 0; i < sizeof tools / sizeof tools[0]; i++) {
			err[0] = 0;
			ok(rag_judge_op_check(&tools[i], err, sizeof err) < 0 && strstr(err, "metric tool's four fields"),
			   "a metric tool's descriptor lacking one of its four fields is refused (%zu: %s)", i, err);
		}
		ok(rag_judge_op_check(&tool, err, sizeof err) == 0, "a metric tool's with all four is taken");
		ok(rag_judge_op_check(&offline_tool, err, sizeof err) == 0, "and with its offline answer, a function");
		ok(rag_judge_op_check(&text_tool, err, sizeof err) < 0 && strstr(err, ".offline_ask"),
		   "a metric tool's offline answer is a function, not the text .offline (%s)", err);
		rag_config_defaults(&cfg);
		{
			const rag_op *const list[] = {&good, &fields[5], NULL};
			rag_judge *j = rag_judge_new(&cfg, list, notice, sizeof notice, err, sizeof err);
			ok(j == NULL && strstr(err, "expected completion"), "rag_judge_new refuses it, even offline (%s)", err);
			rag_judge_free(j);
		}
		rag_config_free(&cfg);
	}

	/* the completions of rag(7) ESTIMATES: 10, and per item 15 a claim (4 a text, or fewer
	 * when fewer are allowed), 30 a verdict, 45 a claim with its verdict, 25 a question, 80 a
	 * rag-gen question, 40 a rubric's score or a hard case; 2 a verifier's Yes or No */
	is_num(rag_op_claims.completion(20 * 2 + 1), 70, 0, "claims: 4 taken");
	is_num(rag_op_claims.completion(2 * 2), 40, 0, "claims: at most 2 allowed");
	is_num(rag_op_verify.completion(7), 220, 0, "verify: 7 verdicts");
	is_num(rag_op_chunks.completion(0), 40, 0, "chunks: at least one verdict");
	is_num(rag_op_faithfulness.completion(20 * 2 + 1), 190, 0, "faithfulness: 4 claims with verdicts");
	is_num(rag_op_correctness.completion(3 << 15 | 2), 160, 0, "correctness: both lists' verdicts");
	is_num(rag_op_revq.completion(3), 85, 0, "revq: 3 questions");
	is_num(rag_op_gen.completion(5), 410, 0, "gen: 5 questions");
	is_num(rag_op_genhard.completion(1), 50, 0, "genhard: one question and reference");
	is_num(rag_op_rubric.completion(0), 50, 0, "rubric: a score and its reason");
	is_num(rag_op_verifier.completion(1), 2, 0, "verifier: Yes or No");
	is_int(rag_op_verifier.reply, RAG_OP_TEXT, "the verifier's reply is plain text");
	ok(rag_op_verifier.schema == NULL, "and has no schema");
	is_str(rag_op_rubric.offline, RAG_OP_NO_OFFLINE, "the rubric has no offline answer");
	return done_testing();
}
