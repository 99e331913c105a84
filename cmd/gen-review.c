/* gen-review.c - rag-gen's review mode, apart from generation: --check a test set (its cases
 * and near-duplicates), --apply a review sheet to it (kept, dropped, fixed). */
#include "gen-tool.h"
#include "base.h"
#include "record.h"
#include "gen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int gen_is_csv(const char *path)
{
	size_t n = strlen(path);
	return n >= 4 && !strcasecmp(path + n - 4, ".csv");
}

/* A test set file's cases, or invalid after saying why. */
static jv read_set(rag_cli *cli, const char *path)
{
	char err[RAG_ERRLEN], *text;
	size_t len;
	jv cases;
	if (!(text = rag_read_file(path, &len, err, sizeof err))) {
		rag_msg(cli->prog, "error", "%s", err);
		return jv_invalid();
	}
	cases = rag_testset_parse(text, len, path, RAG_TESTSET_AUTO, err, sizeof err);
	free(text);
	if (!jv_is_valid(cases)) rag_msg(cli->prog, "error", "%s", err);
	return cases;
}

/* --check TESTSET: what it holds, what it lacks; 0 clean, 1 findings. */
int gen_check_set(rag_cli *cli, const char *path, int json, double dedup)
{
	jv cases = read_set(cli, path), r;
	int rc, found;
	char *text;
	if (!jv_is_valid(cases)) {
		jv_free(cases);
		return RAG_EXIT_DATA;
	}
	r = rag_gen_check_set(cases, dedup);
	jv_free(cases);
	text = rag_gen_check_text(r, path, json, &found);
	rc = rag_cli_write(cli, stdout, NULL, text);
	free(text);
	jv_free(r);
	return rc ? rc : found ? 1 : 0;
}

/* --apply-review SHEET TESTSET: the reviewed set on stdout, what changed on stderr. */
int gen_apply_review(rag_cli *cli, const char *sheet, const char *path)
{
	char err[RAG_ERRLEN], *text;
	size_t slen;
	jv cases = read_set(cli, path), rows, out;
	int counts[4], rc;
	rag_buf b = {0};
	if (!jv_is_valid(cases)) {
		jv_free(cases);
		return RAG_EXIT_DATA;
	}
	if (!(text = rag_read_file(sheet, &slen, err, sizeof err))) {
		rag_msg(cli->prog, "error", "%s", err);
		jv_free(cases);
		return RAG_EXIT_USAGE;
	}
	rows = rag_gen_review_read(text, slen, sheet, gen_is_csv(sheet), err, sizeof err);
	free(text);
	if (!jv_is_valid(rows)) {
		rag_msg(cli->prog, "error", "%s", err);
		jv_free(cases);
		return RAG_EXIT_DATA;
	}
	out = rag_gen_review_apply(cases, rows, counts, err, sizeof err);
	jv_free(cases);
	jv_free(rows);
	if (!jv_is_valid(out)) {
		rag_msg(cli->prog, "error", "%s", err);
		return RAG_EXIT_DATA;
	}
	jv_array_foreach(out, i, rec) {
		jv dump = jv_dump_string(rec, 0);
		rag_buf_addf(&b, "%s\n", jv_string_value(dump));
		jv_free(dump);
		(void)i;
	}
	jv_free(out);
	rc = b.p ? rag_cli_write(cli, stdout, NULL, b.p) : 0;
	rag_buf_free(&b);
	if (!cli->quiet)
		rag_msg(cli->prog, "summary", "review: %d kept, %d dropped, %d fixed, %d not in the sheet (kept as they were)",
		        counts[0], counts[1], counts[2], counts[3]);
	return rc;
}
