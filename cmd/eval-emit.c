/* eval-emit.c - rag-eval --emit, the pipeline's first stage: the test set as JSON Lines with
 * the run id on every record, less the ids a resumed run already has. */
#include "eval.h"
#include "base.h"
#include "config.h"
#include "usage.h"
#include "record.h"
#include "stream.h"
#include "judge.h"
#include "gate.h"
#include "store.h"
#include "evalplan.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

/* The ids of the complete records of a records.jsonl (a line cut short by a crash is not one). */
jv eval_done_ids(const char *path, size_t *complete_len)
{
	char err[RAG_ERRLEN];
	size_t len, i = 0;
	char *text = rag_read_file(path, &len, err, sizeof err);
	jv ids = jv_object();
	*complete_len = 0;
	if (!text) return ids;
	while (i < len) {
		char *nl = memchr(text + i, '\n', len - i);
		jv rec, id;
		if (!nl) break;
		rec = jv_parse_sized(text + i, (int)(nl - text - (long)i));
		i = (size_t)(nl - text) + 1;
		if (jv_get_kind(rec) != JV_KIND_OBJECT) {
			jv_free(rec);
			continue;
		}
		*complete_len = i;
		id = jv_object_get(rec, jv_string("id"));
		if (jv_get_kind(id) == JV_KIND_STRING) ids = jv_object_set(ids, id, jv_true());
		else jv_free(id);
	}
	free(text);
	return ids;
}

int eval_load_testset(eval *e, const char *name, int from_stdin)
{
	char err[RAG_ERRLEN];
	size_t len;
	char *text;
	rag_fieldmap *fields;
	int rc;
	if (from_stdin) {
		rag_buf b = {0};
		char buf[65536];
		ssize_t n;
		while ((n = read(0, buf, sizeof buf)) != 0) {
			if (n < 0) {
				if (errno == EINTR) continue;
				rag_msg(e->cli.prog, "error", "cannot read standard input: %s", strerror(errno));
				rag_buf_free(&b);
				return RAG_EXIT_INTERNAL;
			}
			rag_buf_add(&b, buf, (size_t)n);
		}
		rag_buf_add(&b, "", 1);
		text = b.p;
		len = b.len - 1;
		name = "<stdin>";
	} else if (!(text = rag_read_file(name, &len, err, sizeof err))) {
		rag_msg(e->cli.prog, "error", "%s", err);
		return RAG_EXIT_USAGE;
	}
	if (e->format == RAG_TESTSET_AUTO) e->format = rag_testset_detect(from_stdin ? NULL : name, text, len);
	if ((rc = rag_cli_fieldmap(&e->cli, &e->fields, &fields))) {
		free(text);
		return rc;
	}
	e->records = rag_testset_parse_fields(text, len, name, e->format, fields, err, sizeof err);
	rag_fieldmap_free(fields);
	if (!jv_is_valid(e->records)) {
		rag_msg(e->cli.prog, "error", "%s", err);
		free(text);
		return RAG_EXIT_DATA;
	}
	if (!e->emit && jv_array_length(jv_copy(e->records)) == 0) {
		rag_msg(e->cli.prog, "error", "%s: no records in the test set", name);
		free(text);
		return RAG_EXIT_DATA;
	}
	if (from_stdin) {
		e->input = text;
		e->input_len = len;
	} else {
		free(text);
	}
	return 0;
}

int eval_emit(eval *e)
{
	jv skip = jv_object();
	size_t n, i, dummy;
	int rc = 0;
	if (e->skip_done) skip = (jv_free(skip), eval_done_ids(e->skip_done, &dummy));
	if ((rc = eval_load_testset(e, e->testset, !strcmp(e->testset, "-")))) goto out;
	n = (size_t)jv_array_length(jv_copy(e->records));
	for (i = 0; i < n; i++) {
		jv rec = jv_array_get(jv_copy(e->records), (int)i), d;
		jv id = jv_object_get(jv_copy(rec), jv_string("id"));
		int seen = jv_object_has(jv_copy(skip), id);
		if (seen) {
			jv_free(rec);
			continue;
		}
		if (e->run_id_opt) rec = jv_object_set(rec, jv_string("run_id"), jv_string(e->run_id_opt));
		d = jv_dump_string(rec, 0);
		if (fputs(jv_string_value(d), stdout) < 0 || putchar('\n') == EOF) rc = RAG_EXIT_INTERNAL;
		jv_free(d);
		if (rc) break;
	}
	if (fflush(stdout) != 0 && errno != EPIPE) rc = RAG_EXIT_INTERNAL;
out:
	jv_free(skip);
	return rc;
}
