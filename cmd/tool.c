/* tool.c - what every tool shares: options, --help, messages, set-up. The run of the record
 * stream, its signals and its summary line are in tool-run.c. */
#include "tool.h"
#include "base.h"
#include "config.h"
#include "usage.h"
#include "record.h"
#include "stream.h"
#include "llm.h"
#include "judge.h"
#include "gate.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One write per message, so that the stages of a pipeline do not interleave mid-line; on a
 * terminal it clears the line first, where a progress line (this tool's, or rag-eval's over
 * its stages) is written without a newline. */
void rag_tool_say(const char *prog, const char *text)
{
	rag_buf b = {0};
	if (isatty(2)) rag_buf_adds(&b, "\r\033[K");
	rag_buf_addf(&b, "%s: %s\n", prog, text);
	fputs(b.p, stderr);
	fflush(stderr);
	rag_buf_free(&b);
}

void rag_msg(const char *prog, const char *level, const char *fmt, ...)
{
	va_list ap;
	char *m, *line;
	va_start(ap, fmt);
	m = rag_xvasprintf(fmt, ap);
	va_end(ap);
	line = rag_xasprintf("%s: %s", level, m);
	rag_tool_say(prog, line);
	free(line);
	free(m);
}

const rag_opt rag_cli_judge_opts[] = {
	{"judge", 0, RAG_OPT_JUDGE, "NAME", RAG_CLI_JUDGE_VALUES, "offline | openai"},
	{"model", 0, RAG_OPT_MODEL, "NAME", NULL, "judge model"},
	{"base-url", 0, RAG_OPT_BASE_URL, "URL", NULL, "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1"},
	{"lang", 0, RAG_OPT_LANG, "LANG", RAG_CLI_LANG_VALUES, "auto | en | zh (prompt language)"},
	{"cache", 0, RAG_OPT_CACHE, "MODE", RAG_CLI_CACHE_VALUES, "rw | ro | replay | off"},
	{"concurrency", 'j', 'j', "N", NULL, "requests in flight (default 8)"},
	{"estimate", 0, RAG_OPT_ESTIMATE, NULL, NULL, "send nothing: print the requests, tokens and cost a run\n"
	 "would take (no records written)"},
	{"max-cost", 0, RAG_OPT_MAX_COST, "AMOUNT", NULL, "send no judge request that would take the run's cost\n"
	 "past AMOUNT (prices.currency; llm.max_cost)"},
	RAG_OPT_END
};

const rag_opt rag_cli_shared_opts[] = {
	{"config", 'c', 'c', "FILE", RAG_ARG_FILE, "configuration file (see rag-config(5))"},
	{"strict", 0, RAG_OPT_STRICT, NULL, NULL, "stop at the first bad input line (exit 3)"},
	{"unbuffered", 0, RAG_OPT_UNBUFFERED, NULL, NULL, "flush after each record"},
	{"max-line", 0, RAG_OPT_MAX_LINE, "BYTES", NULL, "longest input line accepted (default 8388608)"},
	{"max-memory", 0, RAG_OPT_MAX_MEMORY, "BYTES", NULL, "records read ahead take at most this (default 16777216)"},
	{"quiet", 'q', 'q', NULL, NULL, "no notice or summary line on stderr"},
	{"verbose", 'v', 'v', NULL, NULL, "more messages on stderr"},
	{"help", 'h', 'h', NULL, NULL, "show this help"},
	{"version", 'V', 'V', NULL, NULL, "show the version"},
	RAG_OPT_END
};

/* The tables of a tool, in the order of its --help. */
static int tables(const rag_cli *cli, const rag_opt *t[3])
{
	int n = 0;
	if (cli->opts) t[n++] = cli->opts;
	if (cli->judge_opts) t[n++] = rag_cli_judge_opts;
	t[n++] = rag_cli_shared_opts;
	return n;
}

/* getopt_long's tables from ours; --list-options is for the tests, so in no table. */
static void build(rag_cli *cli)
{
	const rag_opt *t[3];
	size_t nl = 0, ns = 0, maxl = sizeof cli->longopts / sizeof cli->longopts[0];
	int i, n = tables(cli, t);
	cli->shortopts[ns++] = ':';          /* a missing argument is ':', told apart from unknown */
	for (i = 0; i < n; i++) {
		const rag_opt *o;
		for (o = t[i]; o->name; o++) {
			if (nl + 3 >= maxl || ns + 3 >= sizeof cli->shortopts) {
				rag_msg(cli->prog, "error", "internal: too many options");
				abort();
			}
			cli->longopts[nl].name = o->name;
			cli->longopts[nl].has_arg = o->arg ? required_argument : no_argument;
			cli->longopts[nl].flag = NULL;
			cli->longopts[nl++].val = o->val;
			if (o->short_name) {
				cli->shortopts[ns++] = (char)o->short_name;
				if (o->arg) cli->shortopts[ns++] = ':';
			}
		}
	}
	cli->longopts[nl].name = "list-options";
	cli->longopts[nl].has_arg = no_argument;
	cli->longopts[nl].flag = NULL;
	cli->longopts[nl++].val = RAG_OPT_LIST_OPTIONS;
	if (cli->hidden) {
		cli->longopts[nl].name = cli->hidden;
		cli->longopts[nl].has_arg = no_argument;
		cli->longopts[nl].flag = NULL;
		cli->longopts[nl++].val = RAG_OPT_HIDDEN;
	}
	memset(&cli->longopts[nl], 0, sizeof cli->longopts[nl]);
	cli->shortopts[ns] = 0;
}

static const rag_opt *find_val(const rag_cli *cli, int val)
{
	const rag_opt *t[3], *o;
	int i, n = tables(cli, t);
	for (i = 0; i < n; i++)
		for (o = t[i]; o->name; o++)
			if (o->val == val) return o;
	return NULL;
}

/* The word getopt stopped at, as written: "--name" without its "=value". */
static char *long_word(const char *w)
{
	return rag_xstrndup(w, strcspn(w, "="));
}

/* getopt's own complaints, in the form of every other message (opterr is 0). */
static void complain(const rag_cli *cli, int c, char **argv)
{
	const char *w = optind > 0 ? argv[optind - 1] : "";
	int is_long = strncmp(w, "--", 2) == 0;
	const rag_opt *o = optopt ? find_val(cli, optopt) : NULL;
	char *word;

	if (c == ':' && is_long && o) {
		rag_msg(cli->prog, "error", "option --%s needs an argument", o->name);
	} else if (c == ':') {
		rag_msg(cli->prog, "error", "option -%c needs an argument", optopt);
	} else if (is_long && o) {
		rag_msg(cli->prog, "error", "option --%s takes no argument", o->name);
	} else if (optopt) {
		if (optopt > ' ' && optopt < 127) rag_msg(cli->prog, "error", "unknown option -%c", optopt);
		else rag_msg(cli->prog, "error", "unknown option");
	} else {
		const rag_opt *t[3], *p;
		rag_buf b = {0};
		int i, n = tables(cli, t), hits = 0;
		word = long_word(w);
		for (i = 0; i < n; i++)
			for (p = t[i]; p->name; p++)
				if (strncmp(p->name, word + 2, strlen(word + 2)) == 0)
					rag_buf_addf(&b, "%s--%s", hits++ ? ", " : "", p->name);
		if (hits > 1) rag_msg(cli->prog, "error", "option %s is ambiguous (%s)", word, b.p);
		else rag_msg(cli->prog, "error", "unknown option %s", word);
		rag_buf_free(&b);
		free(word);
	}
}

int rag_cli_getopt(rag_cli *cli, int argc, char **argv)
{
	int c;
	if (!cli->shortopts[0]) build(cli);
	opterr = 0;
	c = getopt_long(argc, argv, cli->shortopts, cli->longopts, NULL);
	if (c == '?' || c == ':') {
		complain(cli, c, argv);
		return '?';
	}
	return c;
}

/* One section of --help: "  -x, --name ARG" then the help at a column that fits them all. */
static void usage_section(const char *title, const rag_opt *opts)
{
	const rag_opt *o;
	int col = 25;
	for (o = opts; o->name; o++) {
		int w = 8 + (int)strlen(o->name) + (o->arg ? 1 + (int)strlen(o->arg) : 0);
		if (w + 2 > col) col = w + 2;
	}
	printf("%s:\n", title);
	for (o = opts; o->name; o++) {
		const char *h = o->help, *nl;
		char left[128];
		if (o->short_name) snprintf(left, sizeof left, "  -%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		else snprintf(left, sizeof left, "      --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		printf("%-*s", col, left);
		while ((nl = strchr(h, '\n'))) {
			printf("%.*s\n%*s", (int)(nl - h), h, col, "");
			h = nl + 1;
		}
		printf("%s\n", h);
	}
}

static void usage(const rag_cli *cli)
{
	fputs(cli->usage, stdout);
	if (cli->opts) {
		putchar('\n');
		usage_section("Options", cli->opts);
	}
	if (cli->judge_opts) {
		putchar('\n');
		usage_section("Judge options", rag_cli_judge_opts);
	}
	putchar('\n');
	usage_section("Shared options", rag_cli_shared_opts);
	printf("\nSee %s(1) and rag(7).\n", cli->prog);
}

/* For mk/completions.sh and mk/man.sh, which make the completions and the manual pages'
 * SYNOPSIS and OPTIONS from it, and tests/t/90-options.t: one line per option, --NAME, -X or -,
 * the argument's name or -, its kind (none, file, values or text), the values, its table
 * (tool, judge or shared) and its --help text on one line, tab-separated. */
static void list_options(const rag_cli *cli)
{
	const rag_opt *t[3], *o;
	const char *h;
	int i, n = tables(cli, t);
	for (i = 0; i < n; i++)
		for (o = t[i]; o->name; o++) {
			const char *table = t[i] == rag_cli_shared_opts ? "shared" : t[i] == rag_cli_judge_opts ? "judge" : "tool";
			const char *kind = !o->arg ? "none" : !o->values ? "text" :
			                   strcmp(o->values, RAG_ARG_FILE) == 0 ? "file" : "values";
			printf("--%s\t", o->name);
			if (o->short_name) printf("-%c\t", o->short_name);
			else fputs("-\t", stdout);
			printf("%s\t%s\t%s\t%s\t", o->arg ? o->arg : "-", kind,
			       strcmp(kind, "values") == 0 ? o->values : "", table);
			for (h = o->help; *h; h++) putchar(*h == '\n' ? ' ' : *h);
			putchar('\n');
		}
}

int rag_cli_misuse(const rag_cli *cli)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", cli->prog);
	return RAG_EXIT_USAGE;
}

int rag_cli_open(const rag_cli *cli, const char *path, const char *mode, FILE **f)
{
	if ((*f = fopen(path, mode))) return 0;
	rag_msg(cli->prog, "error", "cannot open \"%s\": %s", path, strerror(errno));
	return RAG_EXIT_USAGE;
}

int rag_cli_no_operands(const rag_cli *cli, int argc, char **argv)
{
	if (optind >= argc) return 0;
	rag_msg(cli->prog, "error", "unexpected argument \"%s\" (records are read from standard input)",
	        argv[optind]);
	return rag_cli_misuse(cli);
}

int rag_cli_int(const rag_cli *cli, const char *opt, const char *arg, long min, long max, long *out)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		rag_msg(cli->prog, "error", "%s must be an integer from %ld to %ld, not \"%s\"", opt, min, max, arg);
		return -1;
	}
	*out = v;
	return 0;
}

static int one_of(const rag_cli *cli, const char *opt, const char *arg, const char *const *allowed)
{
	size_t i;
	rag_buf b = {0};
	for (i = 0; allowed[i]; i++)
		if (strcmp(arg, allowed[i]) == 0) return 0;
	for (i = 0; allowed[i]; i++) rag_buf_addf(&b, "%s%s", i ? ", " : "", allowed[i]);
	rag_msg(cli->prog, "error", "%s must be one of %s, not \"%s\"", opt, b.p, arg);
	rag_buf_free(&b);
	return -1;
}

/* A METRIC=MIN option value added to list (gate.c's syntax); told and -1 when bad. */
static int threshold(const rag_cli *cli, const char *opt, const char *arg, rag_kd **list, size_t *n)
{
	char err[RAG_ERRLEN];
	if (rag_gate_threshold_parse(arg, list, n, err, sizeof err) == 0) return 0;
	rag_msg(cli->prog, "error", "%s %s", opt, err);
	return -1;
}

/* A comma-separated list of names added to list; told and -1 when one is empty. */
static int names(const rag_cli *cli, const char *opt, const char *arg, rag_strv *list)
{
	const char *p = arg;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len) {
			rag_msg(cli->prog, "error", "%s takes names separated by commas, not \"%s\"", opt, arg);
			return -1;
		}
		rag_strv_push(list, rag_xstrndup(p, len));
		if (!comma) return 0;
		p = comma + 1;
	}
}

/* rag-gate's and rag-report's options: 0 handled, -1 a bad value (told), 1 not one of them. */
static long gate_option(const rag_cli *cli, rag_cli_gate *g, int opt, const char *arg)
{
	int bad;
	switch (opt) {
	case 't': bad = threshold(cli, "--threshold", arg, &g->mean, &g->nmean); break;
	case 'r': bad = threshold(cli, "--record-threshold", arg, &g->record, &g->nrecord); break;
	case RAG_OPT_MIN_PASS: bad = rag_cli_double(cli, "--min-pass-rate", arg, 0, 1, 0, &g->min_pass); break;
	case RAG_OPT_MAX_ERR: bad = rag_cli_double(cli, "--max-error-rate", arg, 0, 1, 0, &g->max_err); break;
	case RAG_OPT_REGRESSION: bad = rag_cli_double(cli, "--regression", arg, 0, 1, 0, &g->regression); break;
	case RAG_OPT_FAIL_REG: g->fail_reg = 1; bad = 0; break;
	case RAG_OPT_SEED: bad = rag_cli_int(cli, "--seed", arg, 0, 0x7fffffffffffffffL, &g->seed); break;
	case RAG_OPT_RESAMPLES: bad = rag_cli_int(cli, "--resamples", arg, 1, 1000000, &g->resamples); break;
	case RAG_OPT_CONFIDENCE: bad = rag_cli_double(cli, "--confidence", arg, 0, 0.999999, 1, &g->confidence); break;
	case RAG_OPT_WORST: bad = rag_cli_int(cli, "--worst", arg, 0, 100000, &g->worst); break;
	case RAG_OPT_FAIL_FLIP: g->fail_flip = 1; bad = 0; break;
	case RAG_OPT_PASS:
	case RAG_OPT_BY:
		bad = names(cli, opt == RAG_OPT_PASS ? "--pass" : "--by", arg, opt == RAG_OPT_PASS ? &g->pass : &g->by);
		break;
	case RAG_OPT_METRICS:
		bad = names(cli, "--metrics", arg, &g->metrics);
		break;
	default: return 1;
	}
	return bad ? -1 : 0;
}

void rag_cli_gate_init(rag_cli_gate *g)
{
	memset(g, 0, sizeof *g);
	g->batch = jv_invalid();
	g->min_pass = g->max_err = g->regression = g->confidence = NAN;
	g->seed = g->resamples = g->worst = -1;
}

size_t rag_cli_budget(const rag_cli *cli)
{
	size_t b = cli->cfg.stream.max_memory > 0 ? (size_t)cli->cfg.stream.max_memory : RAG_STREAM_BUDGET;
	return cli->gate ? b / 2 : b;
}

void rag_cli_gate_opts(const rag_cli *cli, rag_cli_gate *g, rag_gate_opts *go)
{
	const rag_config *c = &cli->cfg;
	memset(go, 0, sizeof *go);
	g->merged_mean = rag_gate_thresholds_merge(c->gate.mean, c->gate.nmean, g->mean, g->nmean, &go->nmean);
	g->merged_record = rag_gate_thresholds_merge(c->gate.record, c->gate.nrecord, g->record, g->nrecord, &go->nrecord);
	go->mean = g->merged_mean;
	go->record = g->merged_record;
	go->min_pass_rate = isnan(g->min_pass) ? c->gate.min_pass_rate : g->min_pass;
	go->max_error_rate = isnan(g->max_err) ? c->gate.max_error_rate : g->max_err;
	go->regression = isnan(g->regression) ? c->gate.regression : g->regression;
	go->confidence = isnan(g->confidence) ? c->gate.confidence : g->confidence;
	go->fail_on_regression = g->fail_reg || c->gate.fail_on_regression;
	go->resamples = g->resamples > 0 ? (int)g->resamples : c->gate.resamples;
	go->worst = g->worst >= 0 ? (int)g->worst : c->gate.worst;
	go->seed = (uint64_t)(g->seed >= 0 ? g->seed : c->gate.seed);
	go->fail_on_flip = g->fail_flip || c->gate.fail_on_flip;
	go->prices = c->prices.v;
	go->nprices = c->prices.n;
	go->currency = c->prices.currency;
	{
		/* rag-eval --batch: the tokens its batches answered, at the batch price in the cost */
		const char *bu = getenv("RAG_BATCH_USAGE");
		char err[RAG_ERRLEN];
		size_t len;
		char *text = bu && *bu ? rag_read_file(bu, &len, err, sizeof err) : NULL;
		jv_free(g->batch);
		g->batch = text ? jv_parse_sized(text, (int)len) : jv_invalid();
		free(text);
		go->batch = g->batch;
	}
	go->answer_model = c->llm.answer_model;
	go->by_category = c->gate.by_category;
	/* the scores kept for the summary: the budget's half that the records do not have */
	go->budget = rag_cli_budget(cli);
	go->nby_category = c->gate.nby_category;
	go->by_category_mean = c->gate.by_category_mean;
	go->nby_category_mean = c->gate.nby_category_mean;
	{
		/* --pass adds to gate.pass; --by replaces gate.by */
		const rag_strv *by = g->by.n ? &g->by : &c->gate.by;
		size_t i, j, n = 0;
		g->merged_pass = rag_xmalloc((c->gate.pass.n + g->pass.n + 1) * sizeof *g->merged_pass);
		for (i = 0; i < c->gate.pass.n + g->pass.n; i++) {
			const char *p = i < c->gate.pass.n ? c->gate.pass.v[i] : g->pass.v[i - c->gate.pass.n];
			for (j = 0; j < n && strcmp(g->merged_pass[j], p); j++)
				;
			if (j == n) g->merged_pass[n++] = p;
		}
		go->pass = g->merged_pass;
		go->npass = n;
		g->merged_by = rag_xmalloc((by->n + 1) * sizeof *g->merged_by);
		for (i = 0; i < by->n; i++) g->merged_by[i] = by->v[i];
		go->by = g->merged_by;
		go->nby = by->n;
		go->run = (const char *const *)g->metrics.v;
		go->nrun = g->metrics.n;
	}
}

int rag_cli_gate_any(const rag_gate_opts *go, const char *baseline)
{
	return go->nmean > 0 || go->nrecord > 0 || go->npass > 0 || go->nby_category > 0 || go->nby_category_mean > 0 ||
	       (go->fail_on_regression && baseline);
}

jv rag_cli_hints(const rag_cli *cli, const rag_gate *g, jv summary)
{
	const char *l = cli->cfg.lang;
	char err[RAG_ERRLEN];
	jv hints;
	if (!l || (strcmp(l, "en") && strcmp(l, "zh"))) l = rag_gate_lang(g);
	hints = rag_hints_load(l, err, sizeof err);
	if (!jv_is_valid(hints)) {
		rag_msg(cli->prog, "warning", "no failure hints: %s", err);
		jv_free(hints);
		return summary;
	}
	summary = rag_hints_apply(summary, hints);
	jv_free(hints);
	return summary;
}

jv rag_cli_hints_texts(const rag_cli *cli, jv summary)
{
	static const char *const langs[] = { "en", "zh" };
	size_t i;
	for (i = 0; i < sizeof langs / sizeof langs[0]; i++) {
		char err[RAG_ERRLEN];
		jv hints = rag_hints_load(langs[i], err, sizeof err);
		if (jv_is_valid(hints)) summary = rag_hints_texts(summary, hints, langs[i]);
		else rag_msg(cli->prog, "warning", "no failure hints: %s", err);
		jv_free(hints);
	}
	return summary;
}

void rag_cli_gate_free(rag_cli_gate *g)
{
	size_t i;
	for (i = 0; i < g->nmean; i++) free(g->mean[i].key);
	for (i = 0; i < g->nrecord; i++) free(g->record[i].key);
	free(g->mean);
	free(g->record);
	rag_strv_free(&g->pass);
	rag_strv_free(&g->by);
	rag_strv_free(&g->metrics);
	free(g->merged_pass);
	free(g->merged_by);
	free(g->merged_mean);
	free(g->merged_record);
	jv_free(g->batch);
	memset(g, 0, sizeof *g);
}

/* After --help, --version: what they printed reached standard output (a full disk is an error,
 * a reader gone away is not). */
static int printed(const rag_cli *cli)
{
	int bad = ferror(stdout);
	if (fflush(stdout) != 0) bad = 1;
	if (!bad || errno == EPIPE) return RAG_EXIT_OK;
	rag_msg(cli->prog, "error", "cannot write output: %s", strerror(errno));
	return RAG_EXIT_INTERNAL;
}

int rag_cli_write(const rag_cli *cli, FILE *f, const char *path, const char *s)
{
	size_t n = strlen(s);
	int fd = fileno(f);
	if (fflush(f) == 0) {
		while (n > 0) {
			ssize_t w = write(fd, s, n);
			if (w < 0 && errno == EINTR) continue;
			if (w <= 0) {
				if (w == 0) errno = EIO;
				break;
			}
			s += w;
			n -= (size_t)w;
		}
		if (n == 0) return 0;
	}
	if (f == stdout && errno == EPIPE) return 0;
	if (path) rag_msg(cli->prog, "error", "cannot write \"%s\": %s", path, strerror(errno));
	else rag_msg(cli->prog, "error", "cannot write output: %s", strerror(errno));
	return RAG_EXIT_INTERNAL;
}

int rag_cli_option(rag_cli *cli, int opt, const char *arg, int *done)
{
	static const char *const judges[] = {"offline", "openai", NULL};
	static const char *const langs[] = {"auto", "en", "zh", NULL};
	static const char *const caches[] = {"rw", "read-write", "ro", "read-only", "replay", "off", NULL};
	long v;
	*done = 0;
	switch (opt) {
	case 'c': cli->config_path = arg; return 0;
	case RAG_OPT_JUDGE:
		if (one_of(cli, "--judge", arg, judges)) return rag_cli_misuse(cli);
		cli->provider = arg;
		return 0;
	case RAG_OPT_MODEL: cli->model = arg; return 0;
	case RAG_OPT_BASE_URL: cli->base_url = arg; return 0;
	case RAG_OPT_ESTIMATE: cli->estimate = 1; return 0;
	case RAG_OPT_MAX_COST:
		if (rag_cli_double(cli, "--max-cost", arg, 0, HUGE_VAL, 1, &cli->max_cost)) return rag_cli_misuse(cli);
		return 0;
	case RAG_OPT_LANG:
		if (one_of(cli, "--lang", arg, langs)) return rag_cli_misuse(cli);
		cli->lang = arg;
		return 0;
	case RAG_OPT_CACHE:
		if (one_of(cli, "--cache", arg, caches)) return rag_cli_misuse(cli);
		cli->cache_mode = arg;
		return 0;
	case 'j':
		if (rag_cli_int(cli, "--concurrency", arg, 1, 1024, &v)) return rag_cli_misuse(cli);
		cli->concurrency = (int)v;
		return 0;
	case RAG_OPT_STRICT: cli->strict = 1; return 0;
	case RAG_OPT_UNBUFFERED: cli->unbuffered = 1; return 0;
	case RAG_OPT_MAX_LINE:
		if (rag_cli_int(cli, "--max-line", arg, 1024, 1L << 30, &v)) return rag_cli_misuse(cli);
		cli->max_line = (size_t)v;
		return 0;
	case RAG_OPT_MAX_MEMORY:
		if (rag_cli_int(cli, "--max-memory", arg, 65536, INT_MAX, &v)) return rag_cli_misuse(cli);
		cli->max_memory = v;
		return 0;
	case 'q': cli->quiet = 1; return 0;
	case 'v': cli->verbose++; return 0;
	case 'h':
		usage(cli);
		*done = 1;
		return printed(cli);
	case RAG_OPT_LIST_OPTIONS:
		list_options(cli);
		*done = 1;
		return printed(cli);
	case 'V':
		printf("%s (ragpipe) %s\n", cli->prog, RAG_VERSION);
		*done = 1;
		return printed(cli);
	default:
		if (cli->gate && (v = gate_option(cli, cli->gate, opt, arg)) <= 0)
			return v ? rag_cli_misuse(cli) : 0;
		return rag_cli_misuse(cli);
	}
}

int rag_cli_config(rag_cli *cli)
{
	char err[RAG_ERRLEN];
	rag_config *cfg = &cli->cfg;
	if (rag_config_load(cfg, cli->config_path, err, sizeof err) < 0) {
		rag_msg(cli->prog, "error", "%s", err);
		return RAG_EXIT_USAGE;
	}
	if (cli->provider) rag_set_str(&cfg->llm.provider, cli->provider);
	if (cli->model) rag_set_str(&cfg->llm.model, cli->model);
	if (cli->base_url) rag_set_str(&cfg->llm.base_url, cli->base_url);
	if (cli->lang) rag_set_str(&cfg->lang, cli->lang);
	if (cli->cache_mode) cfg->cache.mode = rag_config_cache_mode_parse(cli->cache_mode);
	if (cli->concurrency) cfg->llm.concurrency = cli->concurrency;
	/* a request budget shared with the other stages of a pipeline (rag(7) CONCURRENCY) */
	cfg->llm.inflight_file = getenv("RAG_INFLIGHT");
	if (cli->max_cost > 0) cfg->llm.max_cost = cli->max_cost;
	/* the run's spending shared with the other stages (rag(7) COST) */
	cfg->llm.spend_file = getenv("RAG_SPEND");
	/* ... and per window of the records' time (rag-eval --follow) */
	{
		const char *w = getenv("RAG_SPEND_WINDOW");
		char *end;
		double v = w && *w ? strtod(w, &end) : 0;
		cfg->llm.spend_window = w && *w && !*end && isfinite(v) && v > 0 ? v : 0;
	}
	/* rag-eval --batch: this stage writes the requests it would send, for one batch */
	cfg->llm.batch_collect = getenv("RAG_BATCH_COLLECT");
	if (cfg->llm.batch_collect && !*cfg->llm.batch_collect) cfg->llm.batch_collect = NULL;
	if (cli->max_memory) cfg->stream.max_memory = (int)cli->max_memory;
	return 0;
}

/* held here, said by tool-run.c with the first record: set-up calls it, and set-up calls
 * nothing of the run */
void rag_cli_notice(rag_cli *cli, const char *judge, const char *msg)
{
	if (cli->quiet) return;
	free(cli->notice);
	free(cli->notice_judge);
	cli->notice = rag_xstrdup(msg);
	cli->notice_judge = rag_xstrdup(judge);
}

static int meter_admit(void *arg, double at, double prompt_tokens, double completion_tokens, double *held, char *msg,
                       size_t msglen)
{
	if (at > 0) rag_cost_meter_at(arg, at);   /* a cap per window: the request's record's */
	return rag_cost_meter_admit(arg, prompt_tokens, completion_tokens, held, msg, msglen);
}

static void meter_settle(void *arg, double held, double prompt_tokens, double cached_tokens, double completion_tokens)
{
	rag_cost_meter_settle(arg, held, prompt_tokens, cached_tokens, completion_tokens);
}

int rag_cli_judge(rag_cli *cli)
{
	char err[RAG_ERRLEN], notice[RAG_ERRLEN];
	const rag_config *cfg = &cli->cfg;
	cli->judge = rag_judge_new(cfg, cli->ops, notice, sizeof notice, err, sizeof err);
	if (!cli->judge) {
		rag_msg(cli->prog, "error", "%s", err);
		return RAG_EXIT_USAGE;
	}
	if (notice[0]) rag_cli_notice(cli, rag_judge_name(cli->judge), notice);
	if (cfg->llm.max_cost > 0 && !rag_judge_offline(cli->judge) && !cli->estimate) {
		/* the spending cap: every request the cache does not answer is metered */
		rag_llm_meter m = {0};
		if (!(cli->meter = rag_cost_meter_new(cfg, rag_judge_name(cli->judge), err, sizeof err))) {
			rag_msg(cli->prog, "error", "%s", err);
			return RAG_EXIT_USAGE;
		}
		m.arg = cli->meter;
		m.admit = meter_admit;
		m.settle = meter_settle;
		rag_judge_set_meter(cli->judge, &m);
	}
	if (cli->verbose) {
		char url[512];
		rag_msg(cli->prog, "info", "judge %s, endpoint %s, config %s, cache %s", rag_judge_name(cli->judge),
		        rag_cli_endpoint(cli, 0, rag_judge_offline(cli->judge), url, sizeof url),
		        cfg->path ? cfg->path : "(none)", rag_config_cache_mode_name(cfg->cache.mode));
	}
	return 0;
}

int rag_cli_setup(rag_cli *cli)
{
	int rc = rag_cli_config(cli);
	if (rc || !cli->judge_opts) return rc;
	return rag_cli_judge(cli);
}

int rag_cli_fieldmap(rag_cli *cli, const rag_strv *given, rag_fieldmap **out)
{
	char err[RAG_ERRLEN];
	const rag_config *cfg = &cli->cfg;
	rag_fieldmap *m = rag_fieldmap_new();
	size_t i;
	*out = NULL;
	for (i = 0; i < cfg->nfields; i++) {
		char *where = rag_xasprintf("%s%sfields.%s", cfg->path ? cfg->path : "", cfg->path ? ": " : "",
		                            cfg->fields[i].key);
		int bad = rag_fieldmap_add(m, cfg->fields[i].key, cfg->fields[i].value, where, err, sizeof err);
		free(where);
		if (bad) goto fail;
	}
	for (i = 0; given && i < given->n; i++) {
		const char *eq = strchr(given->v[i], '=');
		char *name, *where;
		int bad;
		if (!eq || eq == given->v[i] || !eq[1]) {
			rag_seterr(err, sizeof err, "--field \"%s\": give NAME=PROGRAM (reference=.expected.text)", given->v[i]);
			goto fail;
		}
		name = rag_xstrndup(given->v[i], (size_t)(eq - given->v[i]));
		where = rag_xasprintf("--field %s", name);
		bad = rag_fieldmap_add(m, name, eq + 1, where, err, sizeof err);
		free(name);
		free(where);
		if (bad) goto fail;
	}
	*out = m;
	return 0;
fail:
	rag_msg(cli->prog, "error", "%s", err);
	rag_fieldmap_free(m);
	return RAG_EXIT_USAGE;
}

const char *rag_cli_endpoint(const rag_cli *cli, int embeddings, int offline, char *buf, size_t n)
{
	const char *url = rag_llm_base_url(&cli->cfg, embeddings), *host = strstr(url, "://");
	const char *at = host ? strchr(host + 3, '@') : NULL, *slash = host ? strchr(host + 3, '/') : NULL;
	if (offline) return "none";
	/* a password in the URL is a key too */
	if (at && (!slash || at < slash)) snprintf(buf, n, "%.*s***%s", (int)(host + 3 - url), url, at);
	else snprintf(buf, n, "%s", url);
	return buf;
}

/* No endpoint, no scores: the judge is a model, and a made-up number is worse than none. A
 * replay cache is the one way to run without one (every miss then an error). */
int rag_cli_need_endpoint(rag_cli *cli)
{
	rag_config *cfg = &cli->cfg;
	const char *prov = cfg->llm.provider;
	int none = prov && !strcmp(prov, "offline");
	if (!prov || !*prov)
		none = !(cfg->llm.base_url && *cfg->llm.base_url) && !(cfg->llm.api_key && *cfg->llm.api_key);
	if (!none) return 0;
	if (cfg->cache.mode == RAG_CACHE_REPLAY && !(prov && !strcmp(prov, "offline"))) {
		rag_set_str(&cfg->llm.provider, "openai");
		return 0;
	}
	rag_msg(cli->prog, "error", "%s needs an LLM endpoint: it has no offline judge and never invents "
	        "a score (set RAG_BASE_URL and RAG_MODEL, or llm.base_url in rag.yaml; or --cache replay to "
	        "score from a recorded cache)", cli->prog);
	return RAG_EXIT_USAGE;
}

const char *rag_cli_lang(const rag_cli *cli, const char *text)
{
	const char *l = cli->cfg.lang;
	if (l && (strcmp(l, "en") == 0 || strcmp(l, "zh") == 0)) return l;
	return rag_text_lang(text ? text : "");
}

void rag_cli_free(rag_cli *cli)
{
	rag_judge_free(cli->judge);   /* before its meter: what it had in flight is settled */
	cli->judge = NULL;
	rag_cost_meter_free(cli->meter);
	cli->meter = NULL;
	free(cli->notice);
	free(cli->notice_judge);
	cli->notice = cli->notice_judge = NULL;
	jv_free(cli->names_seen);
	cli->names_seen = jv_invalid();
	rag_config_free(&cli->cfg);
}

int rag_cli_double(const rag_cli *cli, const char *opt, const char *arg, double lo, double hi,
                   int lo_open, double *out)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= lo && v <= hi) || (lo_open && v == lo)) {
		rag_msg(cli->prog, "error", "%s must be a number %s %g to %g, not \"%s\"", opt,
		        lo_open ? "above" : "from", lo, hi, arg);
		return -1;
	}
	*out = v;
	return 0;
}
