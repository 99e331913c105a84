/* rag-gate - decide whether a run of scored records is good enough: thresholds on the mean and
 * on each record, nulls counted, the worst records with their reasons, and the comparison with a
 * baseline run. It reads the whole run before it can say anything (a summary is not one line per
 * record); with --tee it passes the records on and so still sits inside a pipeline. */
#include "tool.h"
#include "base.h"
#include "stream.h"
#include "gate.h"
#include "report.h"
#include "llm.h"
#include "store.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage[] =
	"Usage: rag-gate [OPTIONS] [FILE...] < records.jsonl\n"
	"Read a whole run of scored records and decide: exit 0 when it passes the gate, 1 when\n"
	"it fails, 3 or 4 when too many records have no score (the verdict's). Thresholds come from the config's gate section and from the options; with\n"
	"none, give --summary-only for the summary alone. With --window, an endless stream:\n"
	"one line per window of records, each window gated alone.\n";

enum { OPT_JSON = RAG_OPT_TOOL, OPT_MARKDOWN, OPT_JUNIT, OPT_TEE, OPT_SUMMARY_ONLY, OPT_WINDOW, OPT_ON_FAIL,
       OPT_FAIL_AFTER, OPT_RECOVER_AFTER, OPT_WEBHOOK,
       OPT_STORE, OPT_IDLE };

/* the RAG_OPT_ ones are rag_cli_gate's, handled by rag_cli_option */
static const rag_opt options[] = {
	RAG_CLI_GATE_THRESHOLD_OPTS,
	{"summary-only", 0, OPT_SUMMARY_ONLY, NULL, NULL, "no decision: the summary, and exit 0"},
	{"baseline", 'b', 'b', "FILE", RAG_ARG_FILE, "compare with an earlier run, aligned by id"},
	{"regression", 0, RAG_OPT_REGRESSION, "DELTA", NULL, "a record regressed when it lost more (default 0.1)"},
	{"fail-on-regression", 0, RAG_OPT_FAIL_REG, NULL, NULL, "fail when a mean's interval lies wholly below 0"},
	{"seed", 0, RAG_OPT_SEED, "N", NULL, "bootstrap seed (default 1)"},
	{"resamples", 0, RAG_OPT_RESAMPLES, "N", NULL, "bootstrap resamples (default 2000)"},
	{"confidence", 0, RAG_OPT_CONFIDENCE, "LEVEL", NULL, "bootstrap interval (default 0.95)"},
	{"worst", 0, RAG_OPT_WORST, "N", NULL, "worst records listed (default 10)"},
	{"json", 0, OPT_JSON, NULL, NULL, "the summary as one JSON object"},
	{"markdown", 0, OPT_MARKDOWN, NULL, NULL, "the summary as Markdown (a pull-request comment)"},
	{"junit", 0, OPT_JUNIT, "FILE", RAG_ARG_FILE, "JUnit XML: a suite per category, a test case per record"},
	{"output", 'o', 'o', "FILE", RAG_ARG_FILE, "write the summary to FILE"},
	{"tee", 0, OPT_TEE, NULL, NULL, "pass the records to stdout; the summary goes to stderr"},
	{"window", 0, OPT_WINDOW, "SIZE", NULL, "a rolling gate: a line per window of SIZE records (500) or of\n"
	 "the records' started time (15m, 1h, 1d)"},
	{"on-fail", 0, OPT_ON_FAIL, "COMMAND", NULL, "with --window: run COMMAND (sh -c) when the alert turns failing,\n"
	 "the window's line on its stdin"},
	{"webhook", 0, OPT_WEBHOOK, "URL", NULL, "with --window: POST the window's line (JSON) to URL when the alert\n"
	 "turns failing and when it recovers; a failed POST is a warning"},
	{"store", 0, OPT_STORE, "URL", NULL, "with --window: add each window with its records to the store at\n"
	 "URL as it closes (as rag-store add-window does)"},
	{"fail-after", 0, OPT_FAIL_AFTER, "K", NULL, "the alert turns failing after K failed windows in a row (default 1)"},
	{"recover-after", 0, OPT_RECOVER_AFTER, "M", NULL, "and back after M passed windows in a row (default 1)"},
	{"idle", 0, OPT_IDLE, "SECONDS", NULL, "with --window of a time: when no input has come for SECONDS, the\n"
	 "window clock moves on by the time waited, closing a window it passes\n"
	 "(default 30, as rag-trace waits for a trace; 0: never)"},
	RAG_OPT_END
};

typedef struct tool {
	rag_cli *cli;
	rag_gate *gate;
	const char *input;
	const char *first_input;  /* the run's name in a Markdown summary */
	FILE *junit_body;         /* test cases, until the counts are known */
	rag_window *window;       /* --window: the rolling gate, in place of gate */
	const char *on_fail;      /* --on-fail COMMAND */
	const char *webhook;      /* --webhook URL */
	rag_webhook_opts hook;    /* --webhook: its tries */
	rag_store *store;         /* --store URL: each window added as it closes */
	rag_strv held;            /* --store: the lines of the records not yet in a stored window */
	size_t held_from;         /* the first of held not yet stored */
	int store_failed;         /* --store: a window could not be added */
	int write_failed;         /* --window: stdout could not be written */
	double idle;              /* --idle SECONDS: a time window's quiet before its clock moves; 0: never */
	double quiet_since;       /* --idle: when input last came, or the clock last moved (rag_now) */
	rag_junit junit;
	rag_buf junit_case;
} tool;

static void observe(rag_item *it, void *ctx)
{
	tool *t = ctx;
	char where[600];
	rag_item_where(it, where, sizeof where);
	if (t->junit_body) {
		jv checks = rag_gate_add(t->gate, it->rec, where, it->bad, 1);
		if (it->bad && jv_array_length(jv_copy(checks)) == 0) {
			checks = jv_array_append(checks, JV_OBJECT(jv_string("metric"), jv_string("(record)"),
			                                           jv_string("status"), jv_string("error"),
			                                           jv_string("message"), jv_string("the line is not a record")));
		}
		t->junit_case.len = 0;
		rag_junit_record(&t->junit_case, &t->junit, it->rec, where, checks);
		if (t->junit_case.len) {
			/* each case behind its suite and length, read back suite by suite */
			uint32_t head[2] = {(uint32_t)t->junit.last, (uint32_t)t->junit_case.len};
			fwrite(head, sizeof head, 1, t->junit_body);
			fwrite(t->junit_case.p, 1, t->junit_case.len, t->junit_body);
		}
		jv_free(checks);
	} else {
		rag_gate_add(t->gate, it->rec, where, it->bad, 0);
	}
}

/* --on-fail: COMMAND run by sh with the window's line on its standard input and its standard
 * output on ours for messages (the window lines own standard output); waited for, so that its
 * windows' commands never overlap. */
static void run_on_fail(tool *t, const char *line)
{
	int fd[2], status;
	pid_t pid;
	void (*old)(int);
	size_t len = strlen(line), off = 0;
	if (pipe(fd) < 0) {
		rag_msg(t->cli->prog, "warning", "--on-fail: cannot make a pipe: %s", strerror(errno));
		return;
	}
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		rag_msg(t->cli->prog, "warning", "--on-fail: cannot start the command: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		dup2(fd[0], 0);
		dup2(2, 1);
		close(fd[0]);
		close(fd[1]);
		execl("/bin/sh", "sh", "-c", t->on_fail, (char *)NULL);
		_exit(127);
	}
	close(fd[0]);
	old = signal(SIGPIPE, SIG_IGN);   /* a command that reads nothing is no error */
	while (off < len) {
		ssize_t n = write(fd[1], line + off, len - off);
		if (n < 0 && errno == EINTR) continue;
		if (n <= 0) break;
		off += (size_t)n;
	}
	close(fd[1]);
	signal(SIGPIPE, old);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rag_msg(t->cli->prog, "warning", "--on-fail: the command exited with status %d",
		        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* --webhook: the window's line POSTed, tried again after a 429, a 5xx or no reply; a failure
 * is said and the gate goes on (the message shows the URL's host alone: rag_webhook_post). The
 * retries wait here, the window's line already written: the next line waits for them (its
 * records wait in the pipe, none is lost), so that the POSTs of a window that fired and of one
 * that recovered arrive in their order, as --on-fail's commands run one at a time. */
static void post_webhook(tool *t, const char *json)
{
	char err[RAG_ERRLEN];
	if (rag_webhook_post(t->webhook, json, &t->hook, err, sizeof err) < 0)
		rag_msg(t->cli->prog, "warning", "--webhook: %s", err);
}

/* --store: the window of line (borrowed) added with its records, the first of those held */
static void store_window(tool *t, jv line)
{
	char err[RAG_ERRLEN];
	double n = rag_json_num(line, "records");
	size_t k = isfinite(n) && n >= 0 ? (size_t)n : 0;
	long id;
	if (k > t->held.n - t->held_from) k = t->held.n - t->held_from;
	if (rag_store_window_add(t->store, line, (const char *const *)t->held.v + t->held_from, k, &id, err,
	                         sizeof err)) {
		rag_msg(t->cli->prog, "error", "--store: window %g: %s", rag_json_num(line, "window"), err);
		t->store_failed = 1;
	}
	t->held_from += k;
	if (t->held_from == t->held.n) {
		rag_strv_free(&t->held);
		t->held_from = 0;
	}
}

/* --window: each window's line to stdout at once (the stream is endless), its command run */
static void window_lines(tool *t, jv lines)
{
	jv_array_foreach(lines, i, l) {
		jv d = jv_dump_string(jv_copy(l), 0);
		char *text = rag_xasprintf("%s\n", jv_string_value(d));
		int fired = jv_get_kind(jv_object_get(jv_copy(l), jv_string("fired"))) == JV_KIND_TRUE;
		if (!t->write_failed && (fputs(text, stdout) == EOF || fflush(stdout) != 0)) t->write_failed = 1;
		if (t->store) store_window(t, l);
		if (fired && t->on_fail) run_on_fail(t, text);
		if (t->webhook && (fired || jv_get_kind(jv_object_get(jv_copy(l), jv_string("recovered"))) == JV_KIND_TRUE))
			post_webhook(t, jv_string_value(d));
		free(text);
		jv_free(d);
		jv_free(l);
		(void)i;
	}
	jv_free(lines);
}

/* --idle: the stream's wait for input (rag_cli_read_run_wait), which, once no input has come for
 * --idle seconds, moves the window clock on by the time waited (rag_window_idle) and writes the
 * window that closes, as rag-trace moves its own clock (rag_trace_idle) */
static int wait_quiet(void *ctx, int fd, double timeout)
{
	tool *t = ctx;
	struct pollfd p = {fd, POLLIN, 0};
	double left = t->quiet_since + t->idle - rag_now(), now;
	int ready;
	if (fd < 0) return 0;
	if (left < timeout) timeout = left > 0 ? left : 0;
	ready = poll(&p, 1, (int)ceil(timeout * 1000)) > 0;
	now = rag_now();
	if (ready) {
		t->quiet_since = now;
	} else if (now - t->quiet_since >= t->idle) {
		jv lines = jv_array();
		rag_window_idle(t->window, now - t->quiet_since, &lines);
		t->quiet_since = now;
		window_lines(t, lines);
	}
	return ready;
}

static void observe_window(rag_item *it, void *ctx)
{
	tool *t = ctx;
	char where[600];
	jv lines = jv_array();
	rag_item_where(it, where, sizeof where);
	if (t->store) {
		jv d = jv_get_kind(it->rec) == JV_KIND_OBJECT ? jv_dump_string(jv_copy(it->rec), 0) : jv_string("{}");
		rag_strv_push(&t->held, rag_xstrdup(jv_string_value(d)));
		jv_free(d);
	}
	rag_window_add(t->window, it->rec, where, it->bad, &lines);
	window_lines(t, lines);
}

/* One input; records to out (NULL: nowhere). */
static int read_input(tool *t, const char *name, FILE *out)
{
	const char *file = rag_cli_run_file(name);
	t->input = file ? file : "<stdin>";
	if (!t->first_input) t->first_input = t->input;
	if (t->window) return rag_cli_read_run_wait(t->cli, name, out, observe_window, t->idle > 0 ? wait_quiet : NULL, t);
	return rag_cli_read_run(t->cli, name, out, observe, t);
}

/* The JUnit file (f, open, closed here): the head, then each category's suite with its records'
 * cases, copied from where they were kept aside (a pass over them per suite), then the tail. */
static int write_junit(tool *t, FILE *f, const char *path, jv s)
{
	char buf[65536], *head;
	size_t k;
	int ok = 1;
	head = rag_junit_head(s, &t->junit);
	fputs(head, f);
	free(head);
	for (k = 0; k < t->junit.nsuite && ok; k++) {
		head = rag_junit_suite_head(&t->junit, k, s);
		fputs(head, f);
		free(head);
		uint32_t jc[2];
		ok = fseek(t->junit_body, 0, SEEK_SET) == 0;
		while (ok && fread(jc, sizeof jc, 1, t->junit_body) == 1) {
			size_t left = jc[1], n;
			if (jc[0] != k) {
				ok = fseek(t->junit_body, (long)left, SEEK_CUR) == 0;
				continue;
			}
			while (ok && left > 0 && (n = fread(buf, 1, left < sizeof buf ? left : sizeof buf, t->junit_body)) > 0) {
				fwrite(buf, 1, n, f);
				left -= n;
			}
			if (left) ok = 0;
		}
		fputs(rag_junit_suite_tail(), f);
	}
	fputs(rag_junit_tail(), f);
	ok = ok && !ferror(t->junit_body) && !ferror(f);
	if (fclose(f) != 0) ok = 0;
	if (!ok) rag_msg(t->cli->prog, "error", "cannot write \"%s\": %s", path, strerror(errno));
	return ok ? 0 : -1;
}

/* The summary as text, JSON or Markdown: to output (sout) when given, else to the standard
 * error with --tee (the records go to the standard output), else to the standard output. */
static int print_summary(tool *t, jv summary, int json, int markdown, int tee, FILE *sout, const char *output)
{
	FILE *f = sout ? sout : tee ? stderr : stdout;
	const char *nc = getenv("NO_COLOR");
	int color = !json && !markdown && !sout && isatty(fileno(f)) && !(nc && *nc), rc;
	char *text;
	if (tee) fflush(stdout);
	if (json) {
		jv d = jv_dump_string(jv_copy(summary), 0);
		text = rag_xasprintf("%s\n", jv_string_value(d));
		jv_free(d);
	} else if (markdown) {
		text = rag_report_markdown(JV_ARRAY(JV_OBJECT(jv_string("name"), jv_string(t->first_input ? t->first_input : "<stdin>"),
		                                              jv_string("summary"), jv_copy(summary))), "rag-gate");
	} else {
		text = rag_report_text(summary, color);
	}
	rc = rag_cli_write(t->cli, f, sout ? output : NULL, text);   /* one write: stderr is shared */
	free(text);
	return rc;
}

/* --window's options as given */
typedef struct window_args {
	const char *spec;
	const char *store;        /* --store URL */
	long fail_after, recover_after;
	double idle;              /* --idle SECONDS, or -1: not given */
	int whole_run;            /* an option of a whole run's summary was given */
} window_args;

/* --window, --on-fail, --webhook, --store, --fail-after, --recover-after or --idle: 1 taken, 0
 * another option, -1 misuse (said) */
static int window_option(tool *t, window_args *wa, int opt, const char *arg)
{
	switch (opt) {
	case OPT_WINDOW: wa->spec = arg; return 1;
	case OPT_ON_FAIL: t->on_fail = arg; return 1;
	case OPT_WEBHOOK: t->webhook = arg; return 1;
	case OPT_STORE: wa->store = arg; return 1;
	case OPT_FAIL_AFTER: return rag_cli_int(t->cli, "--fail-after", arg, 1, 1000000, &wa->fail_after) ? -1 : 1;
	case OPT_RECOVER_AFTER: return rag_cli_int(t->cli, "--recover-after", arg, 1, 1000000, &wa->recover_after) ? -1 : 1;
	case OPT_IDLE: return rag_cli_double(t->cli, "--idle", arg, 0, 1e9, 0, &wa->idle) ? -1 : 1;
	default: return 0;
	}
}

/* Whether the options do not go together (said): the rolling gate's without --window, or a
 * whole run's outputs with it */
static int window_misuse(const tool *t, const window_args *wa)
{
	if (!wa->spec && (t->on_fail || t->webhook || wa->store || wa->fail_after != 1 || wa->recover_after != 1 || wa->idle >= 0)) {
		rag_msg(t->cli->prog, "error", "--on-fail, --webhook, --store, --fail-after, --recover-after and --idle are the "
		        "rolling gate's: give --window");
		return 1;
	}
	if (wa->spec && wa->whole_run) {
		rag_msg(t->cli->prog, "error", "--window writes a line per window: --json, --markdown, --junit, --tee, -o, "
		        "--baseline and --summary-only are for a whole run");
		return 1;
	}
	return 0;
}

/* --webhook's tries: 3, 10 s each, 1 s then 2 s between them, or the reply's Retry-After up to
 * 30 s; RAG_WEBHOOK_BACKOFF=SECONDS the first wait (the tests' small one). -1: misuse, said. */
static int hook_backoff(tool *t)
{
	const char *v = getenv("RAG_WEBHOOK_BACKOFF");
	char *end;
	t->hook.timeout_ms = 10000;
	t->hook.tries = 3;
	t->hook.backoff = 1;
	t->hook.retry_after_max = 30;
	if (!v || !*v) return 0;
	t->hook.backoff = strtod(v, &end);
	if (*end || !(t->hook.backoff >= 0 && t->hook.backoff <= 60)) {
		rag_msg(t->cli->prog, "error", "RAG_WEBHOOK_BACKOFF=%s: give seconds from 0 to 60", v);
		return -1;
	}
	return 0;
}

/* --window: the stream's windows, each gated alone; 1 when the alert is failing at the end */
static int run_window(tool *t, const rag_gate_opts *go, const window_args *wa, int argc, char **argv)
{
	const char *spec = wa->spec;
	rag_window_opts wo;
	char err[RAG_ERRLEN];
	jv lines = jv_array();
	int rc = 0, i;
	memset(&wo, 0, sizeof wo);
	if (rag_window_parse(spec, &wo.count, &wo.seconds, err, sizeof err) < 0) {
		jv_free(lines);
		rag_msg(t->cli->prog, "error", "%s", err);
		return rag_cli_misuse(t->cli);
	}
	if (wo.count && wa->idle >= 0) {
		/* a window of N records has no clock to move: an --idle that did nothing would be a
		 * silent surprise */
		jv_free(lines);
		rag_msg(t->cli->prog, "error", "--idle moves the clock of a window of time (--window 1h): --window %s "
		        "counts records", spec);
		return rag_cli_misuse(t->cli);
	}
	t->idle = wo.seconds > 0 ? (wa->idle >= 0 ? wa->idle : 30) : 0;
	if (t->webhook && hook_backoff(t) < 0) {
		jv_free(lines);
		return rag_cli_misuse(t->cli);
	}
	wo.fail_after = (int)wa->fail_after;
	wo.recover_after = (int)wa->recover_after;
	wo.gate = go;
	if (wa->store && !(t->store = rag_store_open(wa->store, err, sizeof err))) {
		jv_free(lines);
		rag_msg(t->cli->prog, "error", "%s", err);
		return RAG_EXIT_STORE;
	}
	t->window = rag_window_new(&wo);
	t->quiet_since = rag_now();
	if (optind == argc) {
		rc = read_input(t, "-", NULL);
	} else {
		for (i = optind; i < argc && !rc && !rag_tool_interrupted; i++) rc = read_input(t, argv[i], NULL);
	}
	rag_window_end(t->window, &lines);
	window_lines(t, lines);
	if (t->write_failed && errno != EPIPE) {
		rag_msg(t->cli->prog, "error", "cannot write output: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	if (!rc && t->store_failed) rc = RAG_EXIT_STORE;
	if (!rc) rc = rag_window_failing(t->window) ? RAG_EXIT_FAIL : RAG_EXIT_OK;
	rag_window_free(t->window);
	rag_store_close(t->store);
	rag_strv_free(&t->held);
	return rc;
}

/* ---------------------------------------------------------------- options */
int main(int argc, char **argv)
{
	rag_cli cli;
	tool t;
	rag_gate_opts go;
	rag_cli_gate g;
	size_t i;
	int opt, rc = 0, done, json = 0, markdown = 0, tee = 0, pass = 0, summary_only = 0, verdict_rc = 0;
	const char *baseline = NULL, *junit = NULL, *output = NULL;
	window_args wa = { NULL, NULL, 1, 1, -1, 0 };
	FILE *sout = NULL, *jout = NULL;
	jv summary = jv_invalid();

	memset(&cli, 0, sizeof cli);
	memset(&t, 0, sizeof t);
	rag_cli_gate_init(&g);
	cli.prog = "rag-gate";
	cli.usage = usage;
	cli.opts = options;
	cli.gate = &g;
	t.cli = &cli;
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		/* a whole run's outputs (wa.whole_run: none goes with --window) */
		case 'b': baseline = optarg; wa.whole_run = 1; break;
		case OPT_JSON: json = wa.whole_run = 1; break;
		case OPT_MARKDOWN: markdown = wa.whole_run = 1; break;
		case OPT_JUNIT: junit = optarg; wa.whole_run = 1; break;
		case 'o': output = optarg; wa.whole_run = 1; break;
		case OPT_TEE: tee = wa.whole_run = 1; break;
		case OPT_SUMMARY_ONLY: summary_only = wa.whole_run = 1; break;
		default:
			if ((done = window_option(&t, &wa, opt, optarg)) < 0) goto misuse;
			if (done) break;
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) goto out;
		}
	}
	if (json && markdown) {
		rag_msg(cli.prog, "error", "--json and --markdown are two formats of one summary: choose one");
		goto misuse;
	}
	if (window_misuse(&t, &wa)) goto misuse;
	if ((rc = rag_cli_setup(&cli))) goto out;

	rag_cli_gate_opts(&cli, &g, &go);
	if (!summary_only && !rag_cli_gate_any(&go, baseline)) {
		/* a gate with nothing to check would pass any run that has its scores */
		rag_msg(cli.prog, "error", "no threshold to gate on: give -t METRIC=MIN or -r METRIC=MIN, or gate.mean "
		        "or gate.record in the configuration (rag.yaml), or --pass METRIC; --summary-only for the summary alone");
		goto misuse;
	}
	if (wa.spec) {
		rc = run_window(&t, &go, &wa, argc, argv);
		goto out;
	}
	t.gate = rag_gate_new(&go);

	if (output && (rc = rag_cli_open(&cli, output, "w", &sout))) goto out;
	if (junit && (rc = rag_cli_open(&cli, junit, "w", &jout))) goto out;
	if (junit && !(t.junit_body = tmpfile())) {
		rag_msg(cli.prog, "error", "cannot create a temporary file: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	if (baseline && (rc = rag_cli_read_baseline(&cli, t.gate, baseline))) goto out;
	if (optind == argc) {
		rc = read_input(&t, "-", tee ? stdout : NULL);
	} else {
		for (i = (size_t)optind; i < (size_t)argc && !rc && !rag_tool_interrupted; i++)
			rc = read_input(&t, argv[i], tee ? stdout : NULL);
	}
	if (rc) goto out;

	summary = rag_cli_hints(&cli, t.gate, rag_gate_summary(t.gate));
	if (rag_gate_error(t.gate)) {
		/* scores were lost: no verdict, neither pass nor fail */
		rag_msg(cli.prog, "error", "%s: no summary", rag_gate_error(t.gate));
		rc = RAG_EXIT_INTERNAL;
		goto out;
	}
	if (summary_only) {
		summary = jv_object_set(summary, jv_string("pass"), jv_null());
		summary = jv_object_set(summary, jv_string("verdict"), rag_verdict(summary));
	}
	pass = summary_only || jv_get_kind(jv_object_get(jv_copy(summary), jv_string("pass"))) == JV_KIND_TRUE;
	if (jout) {
		int bad = write_junit(&t, jout, junit, summary) < 0;   /* it closes jout */
		jout = NULL;
		if (bad) {
			rc = RAG_EXIT_INTERNAL;
			goto out;
		}
	}
	if ((!cli.quiet || sout) && (rc = print_summary(&t, summary, json, markdown, tee, sout, output))) goto out;
	/* the run's one verdict (rag_verdict) gives the exit status, as rag-eval's: 1 when the gate
	 * failed, 3 or 4 for an outage (records not scored beyond the error budget or more than
	 * half of the run, whatever the checks say); the summary alone decides nothing */
	if (!summary_only) {
		jv v = jv_object_get(jv_copy(summary), jv_string("verdict"));
		double st = rag_json_num(v, "exit_status");
		verdict_rc = !isnan(st) ? (int)st : pass ? RAG_EXIT_OK : RAG_EXIT_FAIL;
		jv_free(v);
	}

out:
	if (sout && fclose(sout) != 0 && rc <= RAG_EXIT_FAIL) {
		rag_msg(cli.prog, "error", "cannot write \"%s\": %s", output, strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	if (fclose(stdout) != 0 && errno != EPIPE && rc <= RAG_EXIT_FAIL) {
		rag_msg(cli.prog, "error", "cannot write output: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	if (!rc) rc = verdict_rc;   /* after the writes: a write error is one whatever the verdict */
	if (jout) fclose(jout);
	if (t.junit_body) fclose(t.junit_body);
	rag_buf_free(&t.junit_case);
	rag_junit_free(&t.junit);
	jv_free(summary);
	rag_gate_free(t.gate);
	rag_cli_gate_free(&g);
	rag_cli_free(&cli);
	return rc;
misuse:
	rc = rag_cli_misuse(&cli);
	goto out;
}
