/* rag-store - the run history: runs added from a run directory or a scored stream, listed,
 * shown, exported byte for byte, compared record by record, and test sets with versions, in
 * SQLite (the default, a file under $XDG_DATA_HOME/ragpipe/) or PostgreSQL (store.url). The
 * store is lib/store.c; this file reads the files, picks the command and prints. */
#include "tool.h"
#include "base.h"
#include "gate.h"
#include "store.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-store [OPTIONS] add RUNDIR | add - < records.jsonl\n"
	"       rag-store [OPTIONS] list | show RUN | export RUN | diff RUN RUN | history\n"
	"       rag-store [OPTIONS] testset import FILE --name NAME [--tag TAG] | testset export NAME[@VERSION] | info\n"
	"       rag-store [OPTIONS] add-window WINDOWS.jsonl RECORDS.jsonl\n"
	"Keep runs in a store (SQLite or PostgreSQL): add, list, show, export, diff them. A RUN is\n"
	"its id, the first 4 or more characters of one run's id, last, last~N (the Nth run before\n"
	"the newest), or label:NAME (the newest run labelled NAME).\n";

enum {
	OPT_STORE = RAG_OPT_TOOL, OPT_LABEL, OPT_TESTSET, OPT_NAME, OPT_SINCE, OPT_UNTIL, OPT_COMMIT,
	OPT_SYSTEM, OPT_JSON, OPT_LIMIT, OPT_RUN_ID, OPT_TAG
};

static const rag_opt options[] = {
	{"store", 0, OPT_STORE, "URL", NULL, "the store: sqlite:///PATH, a file's path or postgresql://...\n"
	 "(default store.url, else $XDG_DATA_HOME/ragpipe/runs.db)"},
	{"label", 0, OPT_LABEL, "TEXT", NULL, "add: the run's label"},
	{"testset", 0, OPT_TESTSET, "NAME", NULL, "add: the run's test set; list, history: only its runs"},
	{"run-id", 0, OPT_RUN_ID, "ID", NULL, "add: the run's id (default run.json's, else UTC time and a random suffix)"},
	{"commit", 0, OPT_COMMIT, "SHA", NULL, "add: the git commit; list, history: runs of commits starting so"},
	{"name", 0, OPT_NAME, "NAME", NULL, "testset import: the test set's name"},
	{"tag", 0, OPT_TAG, "TAG", NULL, "testset import: the test set's tag (its knowledge base, say;\n"
	 "rag-serve lists the test sets by it)"},
	{"since", 0, OPT_SINCE, "TIME", NULL, "list, history: runs started at TIME or later (2026-12-01, ISO 8601 UTC)"},
	{"until", 0, OPT_UNTIL, "TIME", NULL, "list, history: runs started at TIME or before (a day: to its end)"},
	{"system", 0, OPT_SYSTEM, "KEY=VALUE", NULL, "list, history: runs whose system setting KEY is VALUE (repeatable)"},
	{"limit", 0, OPT_LIMIT, "K", NULL, "list, history: the newest K runs only"},
	{"json", 0, OPT_JSON, NULL, NULL, "list: one JSON object a run instead of the table"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli cli;
	const char *url_opt, *label, *testset, *name, *since, *until, *commit, *run_id, *tag;
	rag_strv system;
	long limit;
	int json;
	rag_store *store;
	char err[RAG_ERRLEN];
} tool;

/* ---------------------------------------------------------------- output */

static int out_text(tool *t, rag_buf *b)
{
	int rc = rag_cli_write(&t->cli, stdout, NULL, b->p ? b->p : "");
	rag_buf_free(b);
	return rc;
}

/* v (consumed) as one line of JSON into b */
static void add_json(rag_buf *b, jv v)
{
	jv d = jv_dump_string(v, 0);
	rag_buf_adds(b, jv_string_value(d));
	rag_buf_add(b, "\n", 1);
	jv_free(d);
}

/* the store's failure: its message, RAG_EXIT_STORE */
static int store_failed(tool *t)
{
	rag_msg(t->cli.prog, "error", "%s", t->err);
	return RAG_EXIT_STORE;
}

/* a lookup's result: 0, not found (1, with its message), or the store's failure */
static int looked_up(tool *t, int r)
{
	if (r == 0) return 0;
	if (r > 0) {
		rag_msg(t->cli.prog, "error", "%s", t->err);
		return RAG_EXIT_FAIL;
	}
	return store_failed(t);
}

/* ---------------------------------------------------------------- commands */

static void gate_opts(tool *t, rag_cli_gate *g, rag_gate_opts *go)
{
	rag_cli_gate_init(g);
	rag_cli_gate_opts(&t->cli, g, go);
}

static int cmd_add(tool *t, const char *src)
{
	rag_store_run in;
	rag_cli_gate g;
	rag_gate_opts go;
	char *records = NULL, *runtext = NULL, *id = NULL, *f, label[1024];
	size_t len = 0, rlen;
	jv run = jv_null();
	int rc = 0;
	memset(&in, 0, sizeof in);
	if (!strcmp(src, "-")) {
		rag_buf b = {0};
		char chunk[65536];
		size_t n;
		while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) rag_buf_add(&b, chunk, n);
		if (ferror(stdin)) {
			rag_msg(t->cli.prog, "error", "cannot read <stdin>: %s", strerror(errno));
			rag_buf_free(&b);
			return RAG_EXIT_DATA;
		}
		records = b.p ? b.p : rag_xstrdup("");
		len = b.len;
	} else {
		f = rag_xasprintf("%s/run.json", src);
		runtext = rag_read_file(f, &rlen, t->err, sizeof t->err);
		free(f);
		if (runtext) run = jv_parse_sized(runtext, (int)rlen);
		if (jv_get_kind(run) != JV_KIND_OBJECT) {
			rag_msg(t->cli.prog, "error", "\"%s\" is not a run directory: %s", src,
			        runtext ? "run.json is not a JSON object" : t->err);
			rc = RAG_EXIT_DATA;
			goto out;
		}
		f = rag_xasprintf("%s/records.jsonl", src);
		records = rag_read_file(f, &len, t->err, sizeof t->err);
		free(f);
		if (!records) {
			rag_msg(t->cli.prog, "error", "\"%s\" is not a run directory: %s", src, t->err);
			rc = RAG_EXIT_DATA;
			goto out;
		}
	}
	if (!len && jv_get_kind(run) != JV_KIND_OBJECT) {
		rag_msg(t->cli.prog, "error", "no records on <stdin>: nothing to add");
		rc = RAG_EXIT_DATA;
		goto out;
	}
	in.id = t->run_id;
	in.run = run;
	in.records = records;
	in.len = len;
	in.label = t->label ? t->label : *rag_json_str(run, "label", label, sizeof label) ? label : NULL;   /* rag-eval --label's */
	in.testset = t->testset;
	in.commit = t->commit;
	gate_opts(t, &g, &go);
	in.gate = &go;
	if (rag_store_add(t->store, &in, &id, t->err, sizeof t->err) < 0) {
		rc = store_failed(t);
	} else {
		rag_buf b = {0};
		rag_buf_addf(&b, "%s\n", id);
		if (!t->cli.quiet) rag_msg(t->cli.prog, "info", "run %s added to %s", id, rag_store_url(t->store));
		rc = out_text(t, &b);
	}
	rag_cli_gate_free(&g);
out:
	jv_free(run);
	free(runtext);
	free(records);
	free(id);
	return rc;
}

/* a text for the table: control characters as "?", at most w columns' worth of bytes */
static void cell(rag_buf *b, const char *s, int w)
{
	size_t i;
	char *c = rag_xstrdup(s && *s ? s : "-");
	for (i = 0; c[i]; i++)
		if ((unsigned char)c[i] < 0x20 || c[i] == 0x7f) c[i] = '?';
	rag_buf_addf(b, "%-*s ", w, c);
	free(c);
}

/* a list row's exit status and pass rate, its stored verdict's ("-" for a run without one) */
static void list_verdict(rag_buf *b, jv r)
{
	jv v = rag_json_get(jv_copy(r), "verdict");
	double st = rag_json_num(r, "exit_status"), rate = rag_json_num(v, "pass_rate");
	if (isnan(st)) rag_buf_addf(b, "%4s ", "-");
	else rag_buf_addf(b, "%4.0f ", st);
	if (isnan(rate)) rag_buf_adds(b, "-\n");
	else rag_buf_addf(b, "%.1f%% of %.0f\n", rate * 100, rag_json_num(v, "pass_rate_of"));
	jv_free(v);
}

static int cmd_list(tool *t, int history)
{
	rag_store_filter f;
	jv runs;
	rag_buf b = {0};
	memset(&f, 0, sizeof f);
	f.testset = t->testset;
	f.since = t->since;
	f.until = t->until;
	f.commit = t->commit;
	f.system = (const char *const *)t->system.v;
	f.nsystem = t->system.n;
	f.limit = t->limit;
	if (rag_store_list(t->store, &f, &runs, t->err, sizeof t->err) < 0) return store_failed(t);
	if (!history && !t->json)
		rag_buf_addf(&b, "%-28s %-20s %-16s %-16s %-12s %6s %-12s %4s %s\n", "RUN", "STARTED", "TESTSET", "LABEL", "COMMIT",
		             "N", "GATE", "EXIT", "PASS RATE (OF RECORDS WITHOUT ERRORS OR NULLS)");
	jv_array_foreach(runs, i, r) {
		if (history) {
			add_json(&b, rag_store_history(r));
		} else if (t->json) {
			add_json(&b, r);
		} else {
			char buf[4][256], commit[16];
			const char *c = rag_json_str(r, "commit", buf[3], sizeof buf[3]);
			snprintf(commit, sizeof commit, "%.12s", c);
			cell(&b, rag_json_str(r, "run", buf[0], sizeof buf[0]), 28);
			cell(&b, rag_json_str(r, "started", buf[1], sizeof buf[1]), 20);
			cell(&b, rag_json_str(r, "testset", buf[2], sizeof buf[2]), 16);
			cell(&b, rag_json_str(r, "label", buf[2], sizeof buf[2]), 16);
			cell(&b, commit, 12);
			rag_buf_addf(&b, "%6.0f %-12s ", rag_json_num(r, "n"), rag_json_str(r, "gate", buf[0], sizeof buf[0])[0] ?
			             buf[0] : "-");
			list_verdict(&b, r);
			jv_free(r);
		}
		(void)i;
	}
	jv_free(runs);
	return out_text(t, &b);
}

static int cmd_show(tool *t, const char *ref, int export)
{
	char *id = NULL;
	int rc = looked_up(t, rag_store_resolve(t->store, ref, &id, t->err, sizeof t->err));
	rag_buf b = {0};
	if (rc) return rc;
	if (export) {
		rc = looked_up(t, rag_store_export(t->store, id, &b, t->err, sizeof t->err));
	} else {
		jv r;
		rc = looked_up(t, rag_store_show(t->store, id, &r, t->err, sizeof t->err));
		if (!rc) add_json(&b, r);
	}
	free(id);
	if (rc) {
		rag_buf_free(&b);
		return rc;
	}
	return out_text(t, &b);
}

static int cmd_diff(tool *t, const char *ra, const char *rb)
{
	char *a = NULL, *b = NULL;
	int rc;
	jv lines, cmp;
	rag_buf out = {0};
	long added = 0, removed = 0;
	if ((rc = looked_up(t, rag_store_resolve(t->store, ra, &a, t->err, sizeof t->err))) ||
	    (rc = looked_up(t, rag_store_resolve(t->store, rb, &b, t->err, sizeof t->err))))
		goto out;
	/* compare.c's definition, with the gate's tolerance: rag-gate -b counts the same */
	if (rag_store_diff(t->store, a, b, t->cli.cfg.gate.regression, &lines, &cmp, t->err, sizeof t->err) < 0) {
		rc = store_failed(t);
		goto out;
	}
	jv_array_foreach(lines, i, l) {
		char buf[16];
		const char *c = rag_json_str(l, "change", buf, sizeof buf);
		added += !strcmp(c, "added");
		removed += !strcmp(c, "removed");
		add_json(&out, l);
		(void)i;
	}
	jv_free(lines);
	if (!t->cli.quiet) {
		char *text = rag_compare_counts_text(cmp);
		rag_msg(t->cli.prog, "info", "%s -> %s: %s; %ld added, %ld removed", a, b, text, added, removed);
		free(text);
	}
	jv_free(cmp);
	rc = out_text(t, &out);
out:
	free(a);
	free(b);
	return rc;
}

static int cmd_testset(tool *t, int argc, char **argv)
{
	int rc = 0, version = 0, created = 0;
	rag_buf b = {0};
	if (argc == 2 && !strcmp(argv[0], "import")) {
		size_t len;
		char *text;
		if (!t->name) {
			rag_msg(t->cli.prog, "error", "testset import: give the test set's name with --name NAME");
			return rag_cli_misuse(&t->cli);
		}
		if (!(text = rag_read_file(argv[1], &len, t->err, sizeof t->err))) {
			rag_msg(t->cli.prog, "error", "%s", t->err);
			return RAG_EXIT_USAGE;
		}
		if (rag_store_testset_import(t->store, t->name, text, len, argv[1], &version, &created, t->err,
		                             sizeof t->err) < 0) {
			/* a broken file is named FILE:LINE:COLUMN; else the store failed */
			int broken = !strncmp(t->err, argv[1], strlen(argv[1]));
			rag_msg(t->cli.prog, "error", "%s", t->err);
			free(text);
			return broken ? RAG_EXIT_DATA : RAG_EXIT_STORE;
		}
		free(text);
		if (t->tag && rag_store_testset_tag(t->store, t->name, t->tag, t->err, sizeof t->err) != 0) {
			rag_msg(t->cli.prog, "error", "%s", t->err);
			return RAG_EXIT_STORE;
		}
		if (!t->cli.quiet)
			rag_msg(t->cli.prog, "info", created ? "test set %s: version %d added" :
			        "test set %s: unchanged, still version %d", t->name, version);
		rag_buf_addf(&b, "%s@%d\n", t->name, version);
		return out_text(t, &b);
	}
	if (argc == 2 && !strcmp(argv[0], "export")) {
		char *name = rag_xstrdup(argv[1]), *at = strrchr(name, '@');
		if (at) {
			char *end;
			long v = strtol(at + 1, &end, 10);
			if (*end || end == at + 1 || v < 1 || v > 1000000000) {
				rag_msg(t->cli.prog, "error", "testset export \"%s\": VERSION is a number from 1", argv[1]);
				free(name);
				return rag_cli_misuse(&t->cli);
			}
			*at = 0;
			version = (int)v;
		}
		rc = looked_up(t, rag_store_testset_export(t->store, name, version, &b, &version, t->err, sizeof t->err));
		free(name);
		if (rc) {
			rag_buf_free(&b);
			return rc;
		}
		return out_text(t, &b);
	}
	rag_msg(t->cli.prog, "error", "testset: import FILE --name NAME, or export NAME[@VERSION]");
	return rag_cli_misuse(&t->cli);
}

/* file's lines (not empty ones) into *lines; "-" is the standard input */
static int read_lines(tool *t, const char *file, rag_strv *lines)
{
	char *text, *p, *nl;
	size_t len;
	if (!strcmp(file, "-")) {
		rag_buf b = {0};
		char chunk[65536];
		size_t n;
		while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) rag_buf_add(&b, chunk, n);
		text = b.p ? b.p : rag_xstrdup("");
		if (ferror(stdin)) {
			rag_msg(t->cli.prog, "error", "cannot read <stdin>: %s", strerror(errno));
			free(text);
			return RAG_EXIT_DATA;
		}
	} else if (!(text = rag_read_file(file, &len, t->err, sizeof t->err))) {
		rag_msg(t->cli.prog, "error", "%s", t->err);
		return RAG_EXIT_USAGE;
	}
	for (p = text; *p; p = nl ? nl + 1 : p + strlen(p)) {
		size_t n;
		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (n && p[n - 1] == '\r') n--;
		if (n) rag_strv_push(lines, rag_xstrndup(p, n));
	}
	free(text);
	return 0;
}

/* add-window: each window's line takes the next records of the stream rag-gate --window read,
 * as many as it says it decided (rag-gate counts a late record, or one without a time, in the
 * open window, so the stream's order is the windows') */
static int cmd_add_window(tool *t, const char *wfile, const char *rfile)
{
	rag_strv w = {0}, r = {0};
	rag_buf b = {0};
	size_t i, at = 0;
	int rc;
	if (!strcmp(wfile, "-") && !strcmp(rfile, "-")) {
		rag_msg(t->cli.prog, "error", "add-window: one of WINDOWS.jsonl and RECORDS.jsonl may be -, not both");
		return rag_cli_misuse(&t->cli);
	}
	if ((rc = read_lines(t, wfile, &w)) || (rc = read_lines(t, rfile, &r))) goto out;
	/* every line checked before any is stored, so that broken input adds nothing */
	for (i = 0; i < w.n; i++) {
		jv line = jv_parse(w.v[i]);
		double n = rag_json_num(line, "records");
		jv_free(line);
		if (!isfinite(n) || n < 0 || n > (double)(r.n - at)) {
			rag_msg(t->cli.prog, "error", "(at %s:%zu): %s", wfile, i + 1, isfinite(n) ?
			        "the window says more records than RECORDS.jsonl has left" : "not a line of rag-gate --window");
			rc = RAG_EXIT_DATA;
			goto out;
		}
		at += (size_t)n;
	}
	for (i = at = 0; i < w.n; i++) {
		jv line = jv_parse(w.v[i]);
		double n = rag_json_num(line, "records");
		long id;
		int st;
		st = rag_store_window_add(t->store, line, (const char *const *)r.v + at, (size_t)n, &id, t->err,
		                          sizeof t->err);
		jv_free(line);
		if (st) {
			rag_msg(t->cli.prog, "error", "(at %s:%zu): %s", wfile, i + 1, t->err);
			rc = st > 0 ? RAG_EXIT_DATA : RAG_EXIT_STORE;
			goto out;
		}
		at += (size_t)n;
		rag_buf_addf(&b, "%ld\n", id);
	}
	if (at != r.n) rag_msg(t->cli.prog, "warning", "%zu records after the last window's were not stored", r.n - at);
	if (!t->cli.quiet) rag_msg(t->cli.prog, "info", "%zu windows, %zu records added to %s", w.n, at, rag_store_url(t->store));
	rc = out_text(t, &b);
out:
	if (rc) rag_buf_free(&b);
	rag_strv_free(&w);
	rag_strv_free(&r);
	return rc;
}

static int cmd_info(tool *t)
{
	jv i;
	rag_buf b = {0};
	if (rag_store_info(t->store, &i, t->err, sizeof t->err) < 0) return store_failed(t);
	add_json(&b, i);
	return out_text(t, &b);
}

/* ---------------------------------------------------------------- main */

static int operands(tool *t, const char *cmd, int n, int want_min, int want_max)
{
	if (n >= want_min && n <= want_max) return 0;
	rag_msg(t->cli.prog, "error", "%s: %s", cmd, n < want_min ? "an operand is missing" : "too many operands");
	return rag_cli_misuse(&t->cli);
}

int main(int argc, char **argv)
{
	tool t;
	int opt, rc = 0, done, n;
	const char *cmd, *url;
	char **ops;

	memset(&t, 0, sizeof t);
	t.cli.prog = "rag-store";
	t.cli.usage = usage;
	t.cli.opts = options;
	while ((opt = rag_cli_getopt(&t.cli, argc, argv)) != -1) {
		switch (opt) {
		case OPT_STORE: t.url_opt = optarg; break;
		case OPT_LABEL: t.label = optarg; break;
		case OPT_TESTSET: t.testset = optarg; break;
		case OPT_NAME: t.name = optarg; break;
		case OPT_TAG: t.tag = optarg; break;
		case OPT_SINCE: t.since = optarg; break;
		case OPT_UNTIL: t.until = optarg; break;
		case OPT_COMMIT: t.commit = optarg; break;
		case OPT_RUN_ID: t.run_id = optarg; break;
		case OPT_JSON: t.json = 1; break;
		case OPT_SYSTEM:
			if (!strchr(optarg, '=') || optarg[0] == '=') {
				rag_msg(t.cli.prog, "error", "--system \"%s\": KEY=VALUE", optarg);
				rc = rag_cli_misuse(&t.cli);
				goto out;
			}
			rag_strv_push(&t.system, rag_xstrdup(optarg));
			break;
		case OPT_LIMIT:
			if (rag_cli_int(&t.cli, "--limit", optarg, 1, 1000000000L, &t.limit) < 0) {
				rc = rag_cli_misuse(&t.cli);
				goto out;
			}
			break;
		default:
			rc = rag_cli_option(&t.cli, opt, optarg, &done);
			if (rc || done) goto out;
		}
	}
	/* the configuration first: a -c that cannot be read is that error, whatever the command */
	if ((rc = rag_cli_config(&t.cli))) goto out;
	if (optind >= argc) {
		rag_msg(t.cli.prog, "error", "no command: add, add-window, list, show, export, diff, history, testset or info");
		rc = rag_cli_misuse(&t.cli);
		goto out;
	}
	cmd = argv[optind];
	ops = argv + optind + 1;
	n = argc - optind - 1;
	if (!strcmp(cmd, "add")) rc = operands(&t, cmd, n, 1, 1);
	else if (!strcmp(cmd, "list") || !strcmp(cmd, "history") || !strcmp(cmd, "info")) rc = operands(&t, cmd, n, 0, 0);
	else if (!strcmp(cmd, "show") || !strcmp(cmd, "export")) rc = operands(&t, cmd, n, 1, 1);
	else if (!strcmp(cmd, "diff")) rc = operands(&t, cmd, n, 2, 2);
	else if (!strcmp(cmd, "testset")) rc = operands(&t, cmd, n, 2, 2);
	else if (!strcmp(cmd, "add-window")) rc = operands(&t, cmd, n, 2, 2);
	else {
		rag_msg(t.cli.prog, "error", "unknown command \"%s\": add, add-window, list, show, export, diff, history, testset or info",
		        cmd);
		rc = rag_cli_misuse(&t.cli);
	}
	if (rc) goto out;
	url = t.url_opt ? t.url_opt : t.cli.cfg.store.url ? t.cli.cfg.store.url : t.cli.cfg.store.default_url;
	if (!url || !*url) {
		rag_msg(t.cli.prog, "error", "no store: give --store URL or store.url in the configuration "
		        "(the default needs $XDG_DATA_HOME or $HOME)");
		rc = RAG_EXIT_USAGE;
		goto out;
	}
	if (!(t.store = rag_store_open(url, t.err, sizeof t.err))) {
		rc = store_failed(&t);
		goto out;
	}
	if (t.cli.verbose)
		rag_msg(t.cli.prog, "info", "store %s (%s)", rag_store_url(t.store), rag_store_backend(t.store));

	if (!strcmp(cmd, "add")) rc = cmd_add(&t, ops[0]);
	else if (!strcmp(cmd, "list")) rc = cmd_list(&t, 0);
	else if (!strcmp(cmd, "history")) rc = cmd_list(&t, 1);
	else if (!strcmp(cmd, "show")) rc = cmd_show(&t, ops[0], 0);
	else if (!strcmp(cmd, "export")) rc = cmd_show(&t, ops[0], 1);
	else if (!strcmp(cmd, "diff")) rc = cmd_diff(&t, ops[0], ops[1]);
	else if (!strcmp(cmd, "testset")) rc = cmd_testset(&t, n, ops);
	else if (!strcmp(cmd, "add-window")) rc = cmd_add_window(&t, ops[0], ops[1]);
	else rc = cmd_info(&t);
out:
	if (fclose(stdout) != 0 && errno != EPIPE && rc <= RAG_EXIT_FAIL) {
		rag_msg(t.cli.prog, "error", "cannot write output: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	rag_store_close(t.store);
	rag_strv_free(&t.system);
	rag_cli_free(&t.cli);
	return rc;
}
