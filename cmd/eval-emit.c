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

/* The ids of the complete records of a records.jsonl (a line cut short by a crash is not one),
 * into ids, read a line at a time: a run of a million records is not held to resume it. */
void eval_done_ids(const char *path, rag_idtab *ids, size_t *complete_len)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, at = 0;
	ssize_t n;
	*complete_len = 0;
	if (!f) return;
	while ((n = getline(&line, &cap, f)) > 0) {
		jv rec, id;
		at += (size_t)n;
		if (line[n - 1] != '\n') break;
		rec = jv_parse_sized(line, (int)(n - 1));
		if (jv_get_kind(rec) != JV_KIND_OBJECT) {
			jv_free(rec);
			continue;
		}
		*complete_len = at;
		id = jv_object_get(rec, jv_string("id"));
		if (jv_get_kind(id) == JV_KIND_STRING && rag_idtab_find(ids, jv_string_value(id)) < 0)
			rag_idtab_add(ids, jv_string_value(id));
		jv_free(id);
	}
	free(line);
	fclose(f);
}

/* The format of a test set not named by --format: its name's extension, else its first
 * characters (those of a file, read again from its start after). */
static int detect(FILE *f, const char *name, const char *text, size_t len)
{
	char head[4096];
	size_t n;
	if (text) return rag_testset_detect(name, text, len);
	n = fread(head, 1, sizeof head, f);
	rewind(f);
	return rag_testset_detect(name, head, n);
}

/* Standard input whole (rag-eval - : the pipeline's first stage reads it again from e->input):
 * its text, or NULL after a message. */
static char *read_stdin(eval *e, size_t *len)
{
	rag_buf b = {0};
	char buf[65536];
	ssize_t n;
	while ((n = read(0, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR) continue;
			rag_msg(e->cli.prog, "error", "cannot read standard input: %s", strerror(errno));
			rag_buf_free(&b);
			return NULL;
		}
		rag_buf_add(&b, buf, (size_t)n);
	}
	rag_buf_add(&b, "", 1);
	*len = b.len - 1;
	return b.p;
}

/* The test set, record by record, to cb (records consumed; cb returns 0, or an exit status that
 * stops the reading): the file named, or standard input ("-"), which --emit reads as it comes and
 * rag-eval keeps in e->input for the pipeline. 0, or an exit status after a message. */
int eval_each_record(eval *e, rag_testset_cb cb, void *ctx)
{
	char err[RAG_ERRLEN];
	const char *name = e->testset;
	FILE *f;
	rag_fieldmap *fields;
	int rc, from_stdin = !strcmp(e->testset, "-");
	if (from_stdin) {
		name = "<stdin>";
		if (e->emit) {
			f = stdin;
		} else {
			if (!e->input && !(e->input = read_stdin(e, &e->input_len))) return RAG_EXIT_INTERNAL;
			f = fmemopen(e->input, e->input_len, "r");
		}
	} else {
		f = fopen(name, "r");
	}
	if (!f) {
		rag_msg(e->cli.prog, "error", "cannot open \"%s\": %s", name, strerror(errno));
		return from_stdin ? RAG_EXIT_INTERNAL : RAG_EXIT_USAGE;
	}
	if (e->format == RAG_TESTSET_AUTO)
		e->format = detect(f, from_stdin ? NULL : name, from_stdin && !e->emit ? e->input : NULL, e->input_len);
	if ((rc = rag_cli_fieldmap(&e->cli, &e->fields, &fields))) {
		if (f != stdin) fclose(f);
		return rc;
	}
	rc = rag_testset_each(f, name, e->format, fields, cb, ctx, err, sizeof err);
	rag_fieldmap_free(fields);
	if (f != stdin) fclose(f);
	if (rc < 0) {
		rag_msg(e->cli.prog, "error", "%s", err);
		return RAG_EXIT_DATA;
	}
	return rc;
}

struct emit {
	eval *e;
	rag_idtab skip;
};

static int emit_one(jv rec, size_t line, void *ctx)
{
	struct emit *m = ctx;
	jv id = jv_object_get(jv_copy(rec), jv_string("id")), d;
	int rc = 0;
	(void)line;
	if (m->skip.n && rag_idtab_find(&m->skip, jv_string_value(id)) >= 0) {
		jv_free(id);
		jv_free(rec);
		return 0;
	}
	jv_free(id);
	if (m->e->run_id_opt) rec = jv_object_set(rec, jv_string("run_id"), jv_string(m->e->run_id_opt));
	d = jv_dump_string(rec, 0);
	if (fputs(jv_string_value(d), stdout) < 0 || putchar('\n') == EOF) rc = RAG_EXIT_INTERNAL;
	jv_free(d);
	return rc;
}

int eval_emit(eval *e)
{
	struct emit m = { e, {0} };
	size_t dummy;
	int rc;
	if (e->skip_done) eval_done_ids(e->skip_done, &m.skip, &dummy);
	rc = eval_each_record(e, emit_one, &m);
	if (fflush(stdout) != 0 && errno != EPIPE) rc = RAG_EXIT_INTERNAL;
	rag_idtab_free(&m.skip);
	return rc;
}
