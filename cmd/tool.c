/* tool.c - what every tool shares: options, messages, signals, set-up, the run, the summary. */
#include "tool.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>

volatile sig_atomic_t rag_tool_interrupted;

static void on_signal(int sig)
{
	rag_tool_interrupted = sig;
}

void rag_tool_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* One write per message, so that the stages of a pipeline do not interleave mid-line. */
void rag_msg(const char *prog, const char *level, const char *fmt, ...)
{
	va_list ap;
	rag_buf b = {0};
	char *m;
	va_start(ap, fmt);
	m = rag_xvasprintf(fmt, ap);
	va_end(ap);
	rag_buf_addf(&b, "%s: %s: %s\n", prog, level, m);
	fputs(b.p, stderr);
	fflush(stderr);
	free(m);
	rag_buf_free(&b);
}

static const char judge_usage[] =
	"Judge options:\n"
	"      --judge NAME       offline | openai\n"
	"      --model NAME       judge model\n"
	"      --base-url URL     OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1\n"
	"      --lang LANG        auto | en | zh (prompt language)\n"
	"      --cache MODE       rw | ro | replay | off\n"
	"  -j, --concurrency N    requests in flight (default 8)\n"
	"\n";

static const char common_usage[] =
	"Shared options:\n"
	"  -c, --config FILE      configuration file (see rag-config(5))\n"
	"      --strict           stop at the first bad input line (exit 3)\n"
	"      --unbuffered       flush after each record\n"
	"      --max-line BYTES   longest input line accepted (default 8388608)\n"
	"  -q, --quiet            no notice or summary line on stderr\n"
	"  -v, --verbose          more messages on stderr\n"
	"  -h, --help             show this help\n"
	"  -V, --version          show the version\n";

int rag_cli_misuse(const rag_cli *cli)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", cli->prog);
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
		if (one_of(cli, "--judge", arg, judges)) return RAG_EXIT_USAGE;
		cli->provider = arg;
		return 0;
	case RAG_OPT_MODEL: cli->model = arg; return 0;
	case RAG_OPT_BASE_URL: cli->base_url = arg; return 0;
	case RAG_OPT_LANG:
		if (one_of(cli, "--lang", arg, langs)) return RAG_EXIT_USAGE;
		cli->lang = arg;
		return 0;
	case RAG_OPT_CACHE:
		if (one_of(cli, "--cache", arg, caches)) return RAG_EXIT_USAGE;
		cli->cache_mode = arg;
		return 0;
	case 'j':
		if (rag_cli_int(cli, "--concurrency", arg, 1, 1024, &v)) return RAG_EXIT_USAGE;
		cli->concurrency = (int)v;
		return 0;
	case RAG_OPT_STRICT: cli->strict = 1; return 0;
	case RAG_OPT_UNBUFFERED: cli->unbuffered = 1; return 0;
	case RAG_OPT_MAX_LINE:
		if (rag_cli_int(cli, "--max-line", arg, 1024, 1L << 30, &v)) return RAG_EXIT_USAGE;
		cli->max_line = (size_t)v;
		return 0;
	case 'q': cli->quiet = 1; return 0;
	case 'v': cli->verbose++; return 0;
	case 'h':
		fputs(cli->usage, stdout);
		if (cli->judge_opts) fputs(judge_usage, stdout);
		fputs(common_usage, stdout);
		printf("\nSee %s(1) and rag(7).\n", cli->prog);
		*done = 1;
		return RAG_EXIT_OK;
	case 'V':
		printf("%s (ragpipe) %s\n", cli->prog, RAG_VERSION);
		*done = 1;
		return RAG_EXIT_OK;
	default:
		return rag_cli_misuse(cli);
	}
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = rag_xstrdup(v);
}

int rag_cli_setup(rag_cli *cli)
{
	char err[RAG_ERRLEN], notice[RAG_ERRLEN];
	rag_config *cfg = &cli->cfg;
	if (rag_config_load(cfg, cli->config_path, err, sizeof err) < 0) {
		rag_msg(cli->prog, "error", "%s", err);
		return RAG_EXIT_USAGE;
	}
	if (cli->provider) set_str(&cfg->llm.provider, cli->provider);
	if (cli->model) set_str(&cfg->llm.model, cli->model);
	if (cli->base_url) set_str(&cfg->llm.base_url, cli->base_url);
	if (cli->lang) set_str(&cfg->lang, cli->lang);
	if (cli->cache_mode) cfg->cache.mode = rag_cache_mode_parse(cli->cache_mode);
	if (cli->concurrency) cfg->llm.concurrency = cli->concurrency;
	if (!cli->judge_opts) return 0;
	cli->judge = rag_judge_new(cfg, notice, sizeof notice, err, sizeof err);
	if (!cli->judge) {
		rag_msg(cli->prog, "error", "%s", err);
		return RAG_EXIT_USAGE;
	}
	if (notice[0]) rag_cli_notice(cli, rag_judge_name(cli->judge), notice);
	if (cli->verbose) {
		char url[512];
		rag_msg(cli->prog, "info", "judge %s, endpoint %s, config %s, cache %s", rag_judge_name(cli->judge),
		        rag_cli_endpoint(cli, 0, strcmp(rag_judge_name(cli->judge), "offline") == 0, url, sizeof url),
		        cfg->path ? cfg->path : "(none)", rag_cache_mode_name(cfg->cache.mode));
	}
	return 0;
}

void rag_cli_notice(rag_cli *cli, const char *judge, const char *msg)
{
	if (cli->quiet) return;
	free(cli->notice);
	free(cli->notice_judge);
	cli->notice = rag_xstrdup(msg);
	cli->notice_judge = rag_xstrdup(judge);
}

/* The held notice, before the first record is judged: said unless an earlier stage of the
 * pipeline judged this record with the same judge (and so said it, or was told -q). Deciding
 * by the records needs no shared state and holds however the stages are joined. */
static void say_notice(rag_cli *cli, jv rec)
{
	jv usage = jv_object_get(jv_copy(rec), jv_string("usage"));
	int said = 0;
	if (jv_get_kind(usage) == JV_KIND_OBJECT) {
		jv_object_foreach(usage, k, u) {
			jv j = jv_get_kind(u) == JV_KIND_OBJECT ? jv_object_get(jv_copy(u), jv_string("judge")) : jv_invalid();
			if (jv_get_kind(j) == JV_KIND_STRING && strcmp(jv_string_value(j), cli->notice_judge) == 0) said = 1;
			jv_free(j);
			jv_free(k);
			jv_free(u);
		}
	}
	jv_free(usage);
	if (!said) rag_msg(cli->prog, "notice", "%s", cli->notice);
	free(cli->notice);
	free(cli->notice_judge);
	cli->notice = cli->notice_judge = NULL;
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

const char *rag_cli_lang(const rag_cli *cli, const char *text)
{
	const char *l = cli->cfg.lang;
	if (l && (strcmp(l, "en") == 0 || strcmp(l, "zh") == 0)) return l;
	return rag_text_lang(text ? text : "");
}

static void report(void *ctx, const char *msg)
{
	const rag_cli *cli = ctx;
	if (isatty(2) && !cli->quiet) fputs("\r\033[K", stderr);
	fprintf(stderr, "%s: %s\n", cli->prog, msg);
}

static void progress(void *ctx, long done, long read, long pending)
{
	const rag_cli *cli = ctx;
	fprintf(stderr, "\r%s: %ld record%s written, %ld in flight ", cli->prog, done, done == 1 ? "" : "s", pending);
	(void)read;
}

/* The stream calls the tool for records and the judge for waiting; one context carries both. */
typedef struct wrap {
	rag_cli *cli;
	const rag_stream_ops *tool;
	void *tool_ctx;
	rag_judge *judge;
} wrap;

static void w_start(rag_item *it, void *ctx)
{
	wrap *w = ctx;
	if (w->cli->notice) say_notice(w->cli, it->rec);
	w->tool->start(it, w->tool_ctx);
}

static void w_finish(rag_item *it, void *ctx)
{
	wrap *w = ctx;
	if (w->tool->finish) w->tool->finish(it, w->tool_ctx);
}

static int w_run(void *ctx, int fd, double timeout)
{
	wrap *w = ctx;
	if (w->tool->run) return w->tool->run(w->tool_ctx, fd, timeout);   /* a tool with its own remote work */
	if (!w->judge) {
		struct pollfd p = {fd, POLLIN, 0};
		return fd >= 0 && poll(&p, 1, (int)(timeout * 1000)) > 0;
	}
	return rag_judge_run(w->judge, fd, timeout);
}

static void w_cancel(void *ctx)
{
	wrap *w = ctx;
	if (w->tool->cancel) w->tool->cancel(w->tool_ctx);
	if (w->judge) rag_judge_cancel(w->judge, "interrupted before the judge answered");
}

/* "1 record", "2 records": a count and its noun, into buf */
static const char *count(char *buf, long n, const char *noun)
{
	snprintf(buf, 64, "%ld %s%s", n, noun, n == 1 ? "" : "s");
	return buf;
}

int rag_cli_run(rag_cli *cli, const rag_stream_ops *tool_ops, void *ctx)
{
	rag_stream_opts o;
	rag_stream_ops ops = {w_start, w_finish, w_run, w_cancel};
	wrap w = {cli, tool_ops, ctx, cli->judge};
	rag_stream_stats st;
	char err[RAG_ERRLEN], n1[64], n2[64], n3[64], n4[64], n5[64];
	int rc, show_progress = !cli->quiet && isatty(2);

	memset(&o, 0, sizeof o);
	o.prog = cli->prog;
	o.input_name = "<stdin>";
	o.strict = cli->strict;
	o.unbuffered = cli->unbuffered;
	o.max_line = cli->max_line;
	o.window = cli->cfg.llm.concurrency * 8 > 256 ? cli->cfg.llm.concurrency * 8 : 256;
	o.progress_ctx = cli;
	o.report = report;
	o.interrupted = &rag_tool_interrupted;
	rag_tool_signals();
	if (show_progress) o.progress = progress;
	rc = rag_stream_run(stdin, stdout, &o, &ops, &w, &st, err, sizeof err);
	if (show_progress) fputs("\r\033[K", stderr);
	if (err[0] && rc == RAG_EXIT_DATA) fprintf(stderr, "%s: %s\n", cli->prog, err);   /* "error (at ...)" */
	else if (err[0]) rag_msg(cli->prog, "error", "%s", err);
	if (!cli->quiet && !cli->judge) {
		fprintf(stderr, "%s: %s, %s, %.2f s%s\n", cli->prog, count(n1, st.records, "record"),
		        count(n2, st.input_errors, "input error"), st.seconds, st.interrupted ? ", interrupted" : "");
	} else if (!cli->quiet) {
		char line[1024];
		snprintf(line, sizeof line, "%s: %s, %s, %s, %s, %s, %ld prompt + %ld completion tokens, %.2f s (judge %s)%s\n",
		        cli->prog, count(n1, st.records, "record"), count(n2, st.input_errors, "input error"),
		        count(n3, st.remote_errors, "judge error"), count(n4, st.usage.calls, "call"),
		        count(n5, st.usage.cache_hits, "cache hit"), st.usage.prompt_tokens, st.usage.completion_tokens,
		        st.seconds, rag_judge_name(cli->judge), st.interrupted ? ", interrupted" : "");
		fputs(line, stderr);
	}
	if (fclose(stdout) != 0 && errno != EPIPE && rc == RAG_EXIT_OK) {
		rag_msg(cli->prog, "error", "cannot write output: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	return rc;
}

void rag_cli_free(rag_cli *cli)
{
	rag_judge_free(cli->judge);
	cli->judge = NULL;
	free(cli->notice);
	free(cli->notice_judge);
	cli->notice = cli->notice_judge = NULL;
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

int rag_cli_threshold(const rag_cli *cli, const char *opt, const char *arg, rag_kd **list, size_t *n)
{
	char err[RAG_ERRLEN];
	if (rag_gate_threshold_parse(arg, list, n, err, sizeof err) == 0) return 0;
	rag_msg(cli->prog, "error", "%s %s", opt, err);
	return -1;
}

static void no_start(rag_item *it, void *ctx)
{
	(void)it;
	(void)ctx;
}

static int wait_input(void *ctx, int fd, double timeout)
{
	struct pollfd p = {fd, POLLIN, 0};
	(void)ctx;
	return fd >= 0 && poll(&p, 1, (int)(timeout * 1000)) > 0;
}

int rag_cli_read_run(rag_cli *cli, const char *name, FILE *out, void (*observe)(rag_item *, void *),
                     void *ctx)
{
	rag_stream_opts o;
	rag_stream_ops ops = {no_start, NULL, wait_input, NULL};
	rag_stream_stats st;
	char err[RAG_ERRLEN];
	FILE *in = stdin;
	int rc, named = strcmp(name, "-") != 0;

	if (named && !(in = fopen(name, "r"))) {
		rag_msg(cli->prog, "error", "cannot open \"%s\": %s", name, strerror(errno));
		return RAG_EXIT_USAGE;
	}
	memset(&o, 0, sizeof o);
	o.prog = cli->prog;
	o.input_name = named ? name : "<stdin>";
	o.strict = cli->strict;
	o.unbuffered = cli->unbuffered;
	o.max_line = cli->max_line;
	o.report = report;
	o.progress_ctx = cli;
	o.observe = observe;
	o.interrupted = &rag_tool_interrupted;
	rag_tool_signals();
	rc = rag_stream_run(in, out, &o, &ops, ctx, &st, err, sizeof err);
	if (named) fclose(in);
	if (err[0] && rc == RAG_EXIT_DATA) fprintf(stderr, "%s: %s\n", cli->prog, err);
	else if (err[0]) rag_msg(cli->prog, "error", "%s", err);
	if (rc == RAG_EXIT_DATA && !cli->strict) rc = RAG_EXIT_OK;
	return rc;
}
