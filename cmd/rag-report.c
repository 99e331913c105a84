/* rag-report - one run, or several runs as a history, rendered as one self-contained HTML page
 * to explore (Summary, Records, Compare, History), or as Markdown.
 * The page holds every record of the run, but the summary comes first: the records are spooled,
 * as the page's JSON, to an unlinked temporary file as they arrive, and copied into the page
 * when it is written, so the memory does not grow with the run. */
#include "tool.h"
#include "base.h"
#include "record.h"
#include "stream.h"
#include "gate.h"
#include "report.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"Usage: rag-report [OPTIONS] [RUN.jsonl...] > report.html\n"
	"Render scored runs (oldest first; the last is the run reported, the others its history)\n"
	"as one self-contained HTML page to explore (Summary, Records, Compare, History),\n"
	"or as Markdown.\n";

enum { OPT_TITLE = RAG_OPT_TOOL, OPT_MARKDOWN, OPT_HISTORY, OPT_COMPRESS };

/* the RAG_OPT_ ones are rag_cli_gate's, handled by rag_cli_option */
static const rag_opt options[] = {
	RAG_CLI_GATE_THRESHOLD_OPTS,
	{"baseline", 'b', 'b', "FILE", RAG_ARG_FILE, "compare the last run with an earlier run, by id"},
	{"history", 0, OPT_HISTORY, "FILE", RAG_ARG_FILE, "earlier runs' summaries, one JSON object a line (rag-store history)"},
	{"worst", 0, RAG_OPT_WORST, "N", NULL, "failing records listed in the summary (default 10)"},
	{"title", 0, OPT_TITLE, "TEXT", NULL, "the page's title"},
	{"markdown", 0, OPT_MARKDOWN, NULL, NULL, "Markdown instead of HTML"},
	{"compress", 0, OPT_COMPRESS, NULL, NULL, "the page's records gzip-compressed, unpacked by the browser"},
	{"output", 'o', 'o', "FILE", RAG_ARG_FILE, "write to FILE instead of standard output"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	rag_gate *gate;
	const char *input;
	int keep;          /* the records are spooled for the page (the last run, in HTML) */
	FILE *recs;        /* the last run's records, as rag_report_record gives them, in the
	                    * page's JSON, comma-separated */
	size_t nrecs;
	rag_causes *causes; /* the last run's failing records by cause (causes.c), for the page */
	FILE *base;        /* the baseline's "id": {a, sc} pairs, in the page's JSON */
	/* the baseline's ids, in the order first seen (a repeated id keeps its first place and
	 * takes the last value, as a JSON object's key does): each as the page writes it; per row,
	 * where its last pair is in base, and its length */
	rag_idtab base_ids;
	off_t *base_off;
	size_t *base_len, base_cap;
	int spool_errno;   /* a write to a spool failed: errno */
	int compress;      /* --compress: the records as one gzip+base64 string (rag_report_gz64) */
	rag_buf buf;       /* one record's JSON, reused */
} tool;

/* An unlinked temporary file in $TMPDIR (or /tmp), or NULL and errno. */
static FILE *spool_new(void)
{
	const char *dir = getenv("TMPDIR");
	char *path = rag_xasprintf("%s/rag-report.XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path), e;
	FILE *f = NULL;
	if (fd >= 0) {
		unlink(path);
		if (!(f = fdopen(fd, "w+"))) {
			e = errno;
			close(fd);
			errno = e;
		}
	}
	free(path);
	return f;
}

/* The row of the baseline's id (as the page writes it), a new one when it is not there yet;
 * -1 when the table is full. */
static long base_row(tool *t, const char *id)
{
	long row = rag_idtab_find(&t->base_ids, id);
	if (row >= 0) return row;
	if ((row = rag_idtab_add(&t->base_ids, id)) < 0) return -1;
	if ((size_t)row == t->base_cap) {
		t->base_cap = t->base_cap ? 2 * t->base_cap : 256;
		t->base_off = rag_xrealloc(t->base_off, t->base_cap * sizeof *t->base_off);
		t->base_len = rag_xrealloc(t->base_len, t->base_cap * sizeof *t->base_len);
	}
	return row;
}

static void spool_put(tool *t, FILE *f, const char *p, size_t n)
{
	if (!t->spool_errno && fwrite(p, 1, n, f) != n) t->spool_errno = errno ? errno : EIO;
}

static void observe(rag_item *it, void *ctx)
{
	tool *t = ctx;
	char where[600];
	rag_item_where(it, where, sizeof where);
	if (t->keep) {
		jv v = rag_gate_add_verdict(t->gate, it->rec, where, it->bad);
		/* seq: the record's place in the page's records, the order of equals as the page's */
		rag_causes_add(t->causes, it->rec, v, (long)t->nrecs);
		t->buf.len = 0;
		if (t->nrecs++) rag_buf_adds(&t->buf, ",");
		rag_report_json_block(&t->buf, rag_report_record(it->rec, v, where));
		spool_put(t, t->recs, t->buf.p, t->buf.len);
	} else {
		rag_gate_add(t->gate, it->rec, where, it->bad, 0);
	}
}

/* a baseline record: to the gate, and its answer and scores kept for the side by side */
static void observe_base(rag_item *it, void *ctx)
{
	tool *t = ctx;
	jv a, sc;
	char *id;
	off_t off;
	long k;
	size_t keylen;
	if (it->bad) return;
	rag_gate_baseline(t->gate, jv_copy(it->rec));
	if (!t->keep) return;
	if (!(id = rag_record_id(it->rec))) return;
	a = rag_record_get(it->rec, "answer");
	sc = rag_json_get(jv_copy(it->rec), "scores");
	t->buf.len = 0;
	rag_report_json_block(&t->buf, jv_string(id));
	free(id);
	keylen = t->buf.len;
	rag_buf_adds(&t->buf, ":");
	rag_report_json_block(&t->buf, JV_OBJECT(jv_string("a"), jv_get_kind(a) == JV_KIND_STRING ? a : (jv_free(a), jv_null()),
	                                         jv_string("sc"), jv_get_kind(sc) == JV_KIND_OBJECT ? sc : (jv_free(sc), jv_object())));
	if ((off = ftello(t->base)) < 0 && !t->spool_errno) t->spool_errno = errno;
	spool_put(t, t->base, t->buf.p, t->buf.len);
	t->buf.p[keylen] = 0;
	k = base_row(t, t->buf.p);
	t->buf.p[keylen] = ':';
	if (k < 0) return;   /* beyond the table: the gate counts no more either */
	t->base_off[k] = off;
	t->base_len[k] = t->buf.len;
}

/* The page: the frame, the spooled records and the baseline's pairs written into it, to out.
 * 0, or errno. */
static int write_page(tool *t, FILE *out, const char *frame, size_t ra, size_t ba)
{
	char chunk[65536];
	size_t n, k;
	if (fwrite(frame, 1, ra, out) != ra) return errno ? errno : EIO;
	if (t->recs) {
		if (fflush(t->recs) != 0 || fseeko(t->recs, 0, SEEK_SET) != 0) return errno ? errno : EIO;
		if (t->compress && t->nrecs) {
			/* "records": ["<gzip, base64>"]: a string where a record is an object */
			char err[RAG_ERRLEN];
			if (fputc('"', out) == EOF || rag_report_gz64(t->recs, out, err, sizeof err) < 0 || fputc('"', out) == EOF)
				return errno ? errno : EIO;
		} else {
			while ((n = fread(chunk, 1, sizeof chunk, t->recs)) > 0)
				if (fwrite(chunk, 1, n, out) != n) return errno ? errno : EIO;
		}
		if (ferror(t->recs)) return errno ? errno : EIO;
	}
	if (fwrite(frame + ra, 1, ba - ra, out) != ba - ra) return errno ? errno : EIO;
	if (t->base && t->base_ids.n) {
		if (fflush(t->base) != 0) return errno ? errno : EIO;
		for (k = 0; k < t->base_ids.n; k++) {
			size_t left = t->base_len[k];
			if ((k && fputc(',', out) == EOF) || fseeko(t->base, t->base_off[k], SEEK_SET) != 0) return errno ? errno : EIO;
			while (left > 0) {
				n = fread(chunk, 1, left < sizeof chunk ? left : sizeof chunk, t->base);
				if (n == 0) return errno ? errno : EIO;
				if (fwrite(chunk, 1, n, out) != n) return errno ? errno : EIO;
				left -= n;
			}
		}
	}
	n = strlen(frame + ba);
	if (fwrite(frame + ba, 1, n, out) != n) return errno ? errno : EIO;
	return fflush(out) != 0 ? (errno ? errno : EIO) : 0;
}

static int read_input(tool *t, const char *name)
{
	const char *file = rag_cli_run_file(name);
	t->input = file ? file : "<stdin>";
	return rag_cli_read_run(t->cli, name, NULL, observe, t);
}

/* The file dir(name)/leaf, when it exists: a new string, or NULL. */
static char *beside(const char *name, const char *leaf)
{
	const char *slash = strrchr(name, '/');
	char *p = slash ? rag_xasprintf("%.*s/%s", (int)(slash - name), name, leaf) : rag_xstrdup(leaf);
	if (access(p, R_OK) == 0) return p;
	free(p);
	return NULL;
}

/* What a run file's directory says of it (rag-eval's run directory): its run.json as meta, and
 * its report.html as a file:// link, into run. */
static jv run_meta(jv run, const char *name)
{
	char *rj = beside(name, "run.json"), *rh = beside(name, "report.html"), real[PATH_MAX];
	if (rj) {
		char err[RAG_ERRLEN];
		size_t len;
		char *text = rag_read_file(rj, &len, err, sizeof err);
		jv m = text ? jv_parse_sized(text, (int)len) : jv_invalid();
		if (jv_get_kind(m) == JV_KIND_OBJECT) run = jv_object_set(run, jv_string("meta"), m);
		else jv_free(m);
		free(text);
	}
	if (rh && realpath(rh, real)) {
		rag_buf u = {0};
		const char *p;
		rag_buf_adds(&u, "file://");
		for (p = real; *p; p++) {
			unsigned char c = (unsigned char)*p;
			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("/-._~", c))
				rag_buf_add(&u, p, 1);
			else
				rag_buf_addf(&u, "%%%02X", c);
		}
		run = jv_object_set(run, jv_string("href"), jv_string(u.p));
		rag_buf_free(&u);
	}
	free(rj);
	free(rh);
	return run;
}

static int read_history(const rag_cli *cli, const char *path, jv *out)
{
	char err[RAG_ERRLEN];
	size_t len;
	char *text = rag_read_file(path, &len, err, sizeof err);
	if (!text) {
		rag_msg(cli->prog, "error", "--history: %s", err);
		return RAG_EXIT_USAGE;
	}
	*out = rag_report_history_read(text, len, path, err, sizeof err);
	free(text);
	if (!jv_is_valid(*out)) {
		rag_msg(cli->prog, "error", "--history: %s", err);
		return RAG_EXIT_DATA;
	}
	return 0;
}

/* -o FILE is written as FILE.XXXXXX, renamed to FILE once whole, so that a failure part way
 * leaves no half page under its name (FILE's mode kept when it exists); a FILE that is not a
 * regular file (/dev/stdout, a pipe, a symbolic link) is written in place, and so is FILE when
 * its directory takes no new file. */
static int open_output(const rag_cli *cli, const char *output, FILE **out, char **tmp)
{
	struct stat st;
	int fd, have = lstat(output, &st) == 0;
	mode_t mask;
	*tmp = NULL;
	if (have && !S_ISREG(st.st_mode)) return rag_cli_open(cli, output, "w", out);
	*tmp = rag_xasprintf("%s.XXXXXX", output);
	if ((fd = mkstemp(*tmp)) < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		free(*tmp);
		*tmp = NULL;
		return rag_cli_open(cli, output, "w", out);
	}
	if (fd < 0 || !(*out = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(*tmp);
		}
		rag_msg(cli->prog, "error", "cannot open \"%s\": %s", output, strerror(e));
		free(*tmp);
		*tmp = NULL;
		return RAG_EXIT_USAGE;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, have ? st.st_mode & 07777 : 0666 & ~mask) != 0) { /* the file stays 0600 */ }
	return 0;
}

/* The end of -o FILE: closed, then renamed into place, or removed after a failure. */
static int close_output(const rag_cli *cli, const char *output, FILE *out, char *tmp, int rc)
{
	if (fclose(out) != 0 && rc == 0) {
		rag_msg(cli->prog, "error", "cannot write \"%s\": %s", output, strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	if (tmp && rc == 0 && rename(tmp, output) != 0) {
		rag_msg(cli->prog, "error", "cannot write \"%s\": %s", output, strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	if (tmp && rc) unlink(tmp);
	free(tmp);
	return rc;
}

/* One run (the file name, "-" for the standard input) read and summed up into runs; the last
 * with the baseline. 0, or the exit status. */
static int report_run(tool *t, const rag_gate_opts *go, const char *name, int last, int markdown,
                      const char *baseline, jv *runs)
{
	int rc = 0;
	t->gate = rag_gate_new(go);
	t->keep = last && !markdown;
	if (t->keep) t->causes = rag_causes_new();
	if (last && baseline) {
		rag_gate_baseline_name(t->gate, baseline);
		rc = rag_cli_read_run(t->cli, baseline, NULL, observe_base, t);
	}
	if (!rc) rc = read_input(t, name);
	if (!rc) {
		jv s = last ? rag_cli_hints(t->cli, t->gate, rag_gate_summary(t->gate)) : rag_gate_summary(t->gate), run;
		/* the page says its hints in its reader's language */
		if (last && !markdown) s = rag_cli_hints_texts(t->cli, s);
		const char *as = rag_cli_run_file(name);
		if (rag_gate_error(t->gate)) {
			/* scores were lost: no report of what is left */
			rag_msg(t->cli->prog, "error", "%s: %s: no report", name, rag_gate_error(t->gate));
			jv_free(s);
			rag_gate_free(t->gate);
			t->gate = NULL;
			return RAG_EXIT_INTERNAL;
		}
		/* no threshold, no verdict: the page does not say PASS of a run nothing was asked of */
		if (!rag_cli_gate_any(go, last ? baseline : NULL)) s = jv_object_set(s, jv_string("pass"), jv_null());
		run = JV_OBJECT(jv_string("name"), jv_string(as ? as : "<stdin>"), jv_string("summary"), s);
		if (as && !markdown) run = run_meta(run, as);
		*runs = jv_array_append(*runs, run);
	}
	rag_gate_free(t->gate);
	t->gate = NULL;
	return rc;
}

int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_gate_opts go;
	rag_cli_gate g;
	size_t i;
	int opt, rc = 0, done, markdown = 0, nfiles;
	const char *baseline = NULL, *output = NULL, *title = NULL, *history = NULL;
	char *text = NULL, *tmp = NULL;
	size_t ra = 0, ba = 0;
	jv runs = jv_array(), hist = jv_invalid();
	FILE *out = stdout;

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	rag_cli_gate_init(&g);
	cli.prog = "rag-report";
	cli.usage = usage;
	cli.opts = options;
	cli.gate = &g;
	t.cli = &cli;
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case 'b': baseline = optarg; break;
		case OPT_HISTORY: history = optarg; break;
		case OPT_TITLE: title = optarg; break;
		case OPT_MARKDOWN: markdown = 1; break;
		case OPT_COMPRESS: t.compress = 1; break;
		case 'o': output = optarg; break;
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) goto out;
		}
	}
	if ((rc = rag_cli_setup(&cli))) goto out;
	if (history && markdown) {
		rag_msg(cli.prog, "error", "--history is for the HTML page, not --markdown");
		rc = RAG_EXIT_USAGE;
		goto out;
	}
	if (history && (rc = read_history(&cli, history, &hist))) goto out;

	rag_cli_gate_opts(&cli, &g, &go);

	if (!markdown) {
		/* the last run's records, and the baseline's answers, wait in temporary files */
		if (!(t.recs = spool_new()) || (baseline && !(t.base = spool_new()))) {
			const char *dir = getenv("TMPDIR");
			rag_msg(cli.prog, "error", "cannot make a temporary file in \"%s\": %s", dir && *dir ? dir : "/tmp", strerror(errno));
			rc = RAG_EXIT_INTERNAL;
			goto out;
		}
	}

	nfiles = argc - optind;
	for (i = 0; i < (size_t)(nfiles ? nfiles : 1) && !rc; i++) {
		const char *name = nfiles ? argv[optind + (int)i] : "-";
		int last = i + 1 == (size_t)(nfiles ? nfiles : 1);
		rc = report_run(&t, &go, name, last, markdown, baseline, &runs);
	}
	if (rc) goto out;
	if (t.spool_errno) {
		const char *dir = getenv("TMPDIR");
		rag_msg(cli.prog, "error", "cannot write a temporary file in \"%s\": %s", dir && *dir ? dir : "/tmp", strerror(t.spool_errno));
		rc = RAG_EXIT_INTERNAL;
		goto out;
	}

	if (!title) title = "RAG evaluation report";
	if (markdown) {
		text = rag_report_markdown(jv_copy(runs), title);
	} else {
		char err[RAG_ERRLEN];
		jv rep = JV_OBJECT(jv_string("runs"), jv_copy(runs), jv_string("gated"), jv_bool(rag_cli_gate_any(&go, baseline)));
		if (baseline) rep = jv_object_set(rep, jv_string("baseline"), JV_OBJECT(jv_string("name"), jv_string(baseline)));
		if (jv_is_valid(hist)) rep = jv_object_set(rep, jv_string("history"), jv_copy(hist));
		if (t.causes) rep = jv_object_set(rep, jv_string("causes"), rag_causes_json(t.causes));
		if (!(text = rag_report_html_frame(rep, title, &ra, &ba, err, sizeof err))) {
			rag_msg(cli.prog, "error", "%s", err);
			rc = RAG_EXIT_INTERNAL;
			goto out;
		}
	}
	if (output && (rc = open_output(&cli, output, &out, &tmp))) goto out;
	if (markdown) {
		rc = rag_cli_write(&cli, out, output, text);
	} else {
		int e = write_page(&t, out, text, ra, ba);
		if (e && !(out == stdout && e == EPIPE)) {
			if (output) rag_msg(cli.prog, "error", "cannot write \"%s\": %s", output, strerror(e));
			else rag_msg(cli.prog, "error", "cannot write output: %s", strerror(e));
			rc = RAG_EXIT_INTERNAL;
		}
	}
	if (out != stdout) rc = close_output(&cli, output, out, tmp, rc);
out:
	if (fclose(stdout) != 0 && errno != EPIPE && rc == 0) {
		rag_msg(cli.prog, "error", "cannot write output: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	free(text);
	jv_free(runs);
	jv_free(hist);
	if (t.recs) fclose(t.recs);
	if (t.base) fclose(t.base);
	rag_idtab_free(&t.base_ids);
	rag_causes_free(t.causes);
	free(t.base_off);
	free(t.base_len);
	rag_buf_free(&t.buf);
	rag_cli_gate_free(&g);
	rag_cli_free(&cli);
	return rc;
}
