/* tool-run.c - the tool layer's run of the record stream: signals, rag-eval's pipe watch, the
 * first record's checks and notice, the summary line, --estimate's report, a run read back. */
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
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t rag_tool_interrupted;

/* This process is a stage of rag-eval's pipeline (rag_tool_watch_eval found its pipe): its
 * messages name the test set and the record's id, and an interrupted run is said once, by
 * rag-eval. The test set's name (RAG_EVAL_TESTSET), NULL when not a stage. */
static const char *eval_testset;

void rag_tool_watch_eval(void)
{
	static int done;
	const char *v = getenv("RAG_EVAL_ALIVE"), *name = getenv("RAG_EVAL_TESTSET");
	char path[64], *end;
	struct stat st;
	struct pollfd p;
	long fd;
	int own;
	if (done) return;
	done = 1;
	if (!v || !*v) return;
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno || *end || fd < 0 || fd > INT_MAX || fstat((int)fd, &st) < 0 || !S_ISFIFO(st.st_mode)) return;
	/* a file description of our own, since the signal goes to one owner a description, and the
	 * inherited one is every stage's */
	snprintf(path, sizeof path, "/proc/self/fd/%ld", fd);
	if ((own = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) return;
	signal(SIGIO, SIG_DFL);
	if (fcntl(own, F_SETOWN, getpid()) < 0 || fcntl(own, F_SETFL, O_NONBLOCK | O_ASYNC) < 0) {
		close(own);
		return;
	}
	eval_testset = name && *name ? name : "<stdin>";
	/* rag-eval gone before the watch began: its hang-up was before our description */
	p.fd = (int)fd;
	p.events = POLLIN;
	p.revents = 0;
	if (poll(&p, 1, 0) > 0 && (p.revents & POLLHUP)) raise(SIGIO);
}

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
	rag_tool_watch_eval();
}

/* "NAME: did you mean KNOWN?" for each pair of near (consumed) */
static void say_near(rag_cli *cli, jv near)
{
	jv_array_foreach(near, i, pair) {
		jv name = jv_array_get(jv_copy(pair), 0), to = jv_array_get(pair, 1);
		rag_msg(cli->prog, "warning", "%s: did you mean %s? (spelled so, no tool reads it)", jv_string_value(name),
		        jv_string_value(to));
		jv_free(name);
		jv_free(to);
		(void)i;
	}
	jv_free(near);
}

void rag_cli_say_near(rag_cli *cli, jv near)
{
	if (!cli->quiet) say_near(cli, near);
	else jv_free(near);
}

/* A record's field names, checked by the first tool of a pipeline only: a record that carries
 * what a tool writes has been through one, which said it (rag-eval's records carry run_id: it
 * checked its test set itself). Deciding by the record needs no shared state, as say_notice
 * does. A warning, so -q leaves it (rag(7) MESSAGES). */
static void check_names(rag_cli *cli, jv rec)
{
	static const char *const done[] = {"usage", "scores", "claims", "verdicts", "errors", "run_id", NULL};
	size_t i;
	if (jv_get_kind(rec) != JV_KIND_OBJECT) return;
	for (i = 0; done[i]; i++)
		if (jv_object_has(jv_copy(rec), jv_string(done[i]))) return;
	if (jv_get_kind(cli->names_seen) != JV_KIND_OBJECT) cli->names_seen = jv_object();
	say_near(cli, rag_record_near_misses(rec, &cli->names_seen));
}

void rag_cli_self_check(rag_cli *cli, jv rec)
{
	if (rag_judge_self_check(cli->judge, rec))
		rag_msg(cli->prog, "warning", "the judge model \"%s\" also generated the answers; its scores may flatter them",
		        rag_judge_model(cli->judge));
}

/* 1 when the usage entry u (borrowed) names this judge */
static int same_judge(jv u, const char *judge)
{
	jv j = jv_object_get(jv_copy(u), jv_string("judge"));
	int same = jv_get_kind(j) == JV_KIND_STRING && strcmp(jv_string_value(j), judge) == 0;
	jv_free(j);
	return same;
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
			/* usage.<tool>.<stage>.judge; usage.<tool>.judge in records of the flat shape */
			if (jv_get_kind(u) == JV_KIND_OBJECT) {
				said |= same_judge(u, cli->notice_judge);
				jv_object_foreach(u, sk, su) {
					if (jv_get_kind(su) == JV_KIND_OBJECT) said |= same_judge(su, cli->notice_judge);
					jv_free(sk);
					jv_free(su);
				}
			}
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

/* A record's error said on stderr the first LIKE_SHOWN times its message comes (whatever the
 * record: "error (at POS): MSG"), then counted: an unreachable judge gives each record the same
 * error, and 40 records are not 40 lines. The counts are said once, at the end (said_more). */
#define LIKE_SHOWN 3
#define LIKE_KEPT 32
static struct like { char *msg; long n; } likes[LIKE_KEPT];
static size_t nlikes;

/* 1 when msg (its text after the position) was said LIKE_SHOWN times already, counted */
static int seen_enough(const char *msg)
{
	const char *text = strncmp(msg, "error (at ", 10) ? NULL : strstr(msg, "): ");
	size_t i;
	if (!text) return 0;
	text += 3;
	for (i = 0; i < nlikes; i++)
		if (!strcmp(likes[i].msg, text)) return ++likes[i].n > LIKE_SHOWN;
	if (nlikes < LIKE_KEPT) {
		likes[nlikes].msg = rag_xstrdup(text);
		likes[nlikes++].n = 1;
	}
	return 0;
}

/* "... and 37 more like it: MSG" for each error said LIKE_SHOWN times and then kept quiet */
static void said_more(const rag_cli *cli)
{
	size_t i;
	for (i = 0; i < nlikes; i++) {
		if (likes[i].n > LIKE_SHOWN)
			rag_msg(cli->prog, "error", "... and %ld more like it: %s", likes[i].n - LIKE_SHOWN, likes[i].msg);
		free(likes[i].msg);
	}
	nlikes = 0;
}

static void report(void *ctx, const char *msg)
{
	const rag_cli *cli = ctx;
	if (cli->output_gone) return;   /* the records cancelled for it: nobody will read them */
	if (cli->estimate && strstr(msg, RAG_ESTIMATE_ERROR)) return;   /* each record's, by design */
	if (eval_testset && rag_tool_interrupted) return;   /* rag-eval says it once, for the run */
	if (seen_enough(msg)) return;
	rag_tool_say(cli->prog, msg);
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
	check_names(w->cli, it->rec);
	if (w->cli->notice) say_notice(w->cli, it->rec);
	if (w->judge && w->cli->meter && w->cli->cfg.llm.spend_window > 0) {
		/* a cap per window of the records' time: this record's requests count in its window */
		jv st = jv_get_kind(it->rec) == JV_KIND_OBJECT ? jv_object_get(jv_copy(it->rec), jv_string("started")) : jv_invalid();
		rag_judge_set_at(w->judge, jv_get_kind(st) == JV_KIND_STRING ? rag_window_time(jv_string_value(st)) : 0);
		jv_free(st);
	}
	w->tool->start(it, w->tool_ctx);
}

static void w_finish(rag_item *it, void *ctx)
{
	wrap *w = ctx;
	if (w->tool->finish) w->tool->finish(it, w->tool_ctx);
	/* a judge tool says in every record what its judge cost it, and which judge it was, under
	 * the stage the tool named (its metric or field) */
	if (w->judge) {
		const char *stage = it->stage ? it->stage : "all";
		jv a = rag_judge_adapted(w->judge, 0);
		it->rec = rag_record_usage(it->rec, w->cli->prog, stage, &it->usage, rag_judge_name(w->judge));
		/* and how its requests were changed for its endpoint, where they were (rag-eval's run.json
		 * sums it up): a plain run's records keep their bytes */
		if (jv_array_length(jv_copy(a)) > 0 && jv_get_kind(it->rec) == JV_KIND_OBJECT)
			it->rec = jv_setpath(it->rec, JV_ARRAY(jv_string("usage"), jv_string(w->cli->prog), jv_string(stage),
			                                       jv_string("adapted")), a);
		else
			jv_free(a);
	}
}

/* What this run learned from the endpoint's 400s (rag_judge_adapted), said once, at the end. */
static void say_adapted(rag_cli *cli)
{
	jv a = rag_judge_adapted(cli->judge, 1);
	rag_buf b = {0};
	if (jv_array_length(jv_copy(a)) > 0 && !cli->quiet) {
		jv_array_foreach(a, i, x) {
			rag_buf_addf(&b, "%s%s", i ? ", " : "", jv_string_value(x));
			jv_free(x);
		}
		rag_msg(cli->prog, "notice", "judge %s: its endpoint refused part of the request (http 400, in this run or one the cache "
		        "remembers), so requests "
		        "were sent with %s (rag-config(5) PROVIDERS: set llm.provider or llm.max_tokens_param to ask so "
		        "from the start)", rag_judge_name(cli->judge), b.p);
	}
	rag_buf_free(&b);
	jv_free(a);
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
	/* the stream cancels for a signal, or because its output went away (EPIPE) or failed: then
	 * the records cancelled are not judge failures, and are neither reported nor summed up */
	if (!rag_tool_interrupted) w->cli->output_gone = 1;
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
	char err[RAG_ERRLEN], n1[64], n2[64], n3[64], n4[64], n5[64], na[64] = "";
	int rc, show_progress = !cli->quiet && isatty(2);

	rag_tool_watch_eval();
	memset(&o, 0, sizeof o);
	o.prog = cli->prog;
	o.input_name = eval_testset ? eval_testset : "<stdin>";
	o.position_by_id = eval_testset != NULL;
	o.strict = cli->strict;
	o.unbuffered = cli->unbuffered;
	o.max_line = cli->max_line;
	o.budget = rag_cli_budget(cli);
	o.window = cli->cfg.llm.concurrency * 8 > 256 ? cli->cfg.llm.concurrency * 8 : 256;
	o.progress_ctx = cli;
	o.report = report;
	o.interrupted = &rag_tool_interrupted;
	rag_tool_signals();
	if (show_progress) o.progress = progress;
	if (cli->estimate) {
		/* the records go nowhere: what is wanted is the count (a tool without a judge counts
		 * its own, and reports with rag_cli_estimate_report) */
		rag_estimate est = {0};
		FILE *null = fopen("/dev/null", "w");
		if (!null) {
			rag_msg(cli->prog, "error", "cannot open /dev/null: %s", strerror(errno));
			return RAG_EXIT_INTERNAL;
		}
		if (cli->judge) rag_judge_estimate(cli->judge, &est);
		rc = rag_stream_run(stdin, null, &o, &ops, &w, &st, err, sizeof err);
		fclose(null);
		if (show_progress) fputs("\r\033[K", stderr);
		if (err[0] && rc == RAG_EXIT_DATA) fprintf(stderr, "%s: %s\n", cli->prog, err);
		else if (err[0]) rag_msg(cli->prog, "error", "%s", err);
		if (rc == RAG_EXIT_REMOTE) rc = RAG_EXIT_OK;   /* every request "failed" by design */
		cli->estimate_records = st.records;
		if (cli->judge && rag_cli_estimate_report(cli, rag_judge_name(cli->judge), st.records, &est) &&
		    rc == RAG_EXIT_OK)
			rc = RAG_EXIT_INTERNAL;
		return rc;
	}
	rc = rag_stream_run(stdin, stdout, &o, &ops, &w, &st, err, sizeof err);
	if (show_progress) fputs("\r\033[K", stderr);
	said_more(cli);
	if (st.not_applicable) snprintf(na, sizeof na, ", %ld not applicable", st.not_applicable);
	if (err[0] && rc == RAG_EXIT_DATA) fprintf(stderr, "%s: %s\n", cli->prog, err);   /* "error (at ...)" */
	else if (err[0]) rag_msg(cli->prog, "error", "%s", err);
	if (st.closed || cli->output_gone) {
		/* a closed output ends the tool quietly; work dropped for a failed one is no judge error */
	} else if (!cli->quiet && !cli->judge && cli->remote_noun) {
		fprintf(stderr, "%s: %s, %s%s, %s, %.2f s%s\n", cli->prog, count(n1, st.records, "record"),
		        count(n2, st.input_errors, "input error"), na, count(n3, st.remote_errors, cli->remote_noun),
		        st.seconds, st.interrupted ? ", interrupted" : "");
	} else if (!cli->quiet && !cli->judge) {
		fprintf(stderr, "%s: %s, %s%s, %.2f s%s\n", cli->prog, count(n1, st.records, "record"),
		        count(n2, st.input_errors, "input error"), na, st.seconds, st.interrupted ? ", interrupted" : "");
	} else if (!cli->quiet) {
		char line[1536], cost[192] = "", adapt[96] = "", cached[48] = "", capped[192] = "";
		say_adapted(cli);
		int lim, low, cuts;
		rag_judge_inflight(cli->judge, &lim, &low, &cuts);
		if (cuts)
			snprintf(adapt, sizeof adapt, ", in flight lowered to %d of %d by 429s (%d cut%s)", low,
			         cli->cfg.llm.concurrency, cuts, cuts == 1 ? "" : "s");
		if (cli->cfg.prices.n) {
			/* with a price table: what the tokens cost, or which model it does not price */
			const char *judge = rag_judge_name(cli->judge), *colon = strchr(judge, ':');
			double c = rag_cost_tokens(rag_cost_price_find(cli->cfg.prices.v, cli->cfg.prices.n, judge),
			                          (double)st.usage.prompt_tokens, (double)st.usage.cached_tokens,
			                          (double)st.usage.completion_tokens);
			if (isnan(c)) snprintf(cost, sizeof cost, ", no price for model %.120s", colon ? colon + 1 : judge);
			else snprintf(cost, sizeof cost, ", cost %.6f %.16s", c, cli->cfg.prices.currency);
		}
		if (cli->meter) {
			/* the spending cap: what the run spent (all its stages), and whether it stopped it */
			int reached;
			double spent = rag_cost_meter_spent(cli->meter, &reached);
			if (reached && cli->cfg.llm.spend_window > 0)   /* rag-eval --follow: the last window's */
				snprintf(capped, sizeof capped, ", " RAG_COST_CAPPED " (llm.max_cost %g %.16s per %g s of the records' "
				         "time, %.6f spent in the last)", rag_cost_meter_cap(cli->meter), cli->cfg.prices.currency,
				         cli->cfg.llm.spend_window, spent);
			else if (reached)
				snprintf(capped, sizeof capped, ", " RAG_COST_CAPPED " (llm.max_cost %g %.16s, %.6f spent by the run)",
				         rag_cost_meter_cap(cli->meter), cli->cfg.prices.currency, spent);
		}
		if (st.usage.cached_tokens)   /* a provider's prefix cache served some of the prompt */
			snprintf(cached, sizeof cached, " (%ld cached)", st.usage.cached_tokens);
		snprintf(line, sizeof line, "%s: %s, %s%s, %s, %s, %s, %ld prompt%s + %ld completion tokens%s%s%s, %.2f s (judge %s)%s\n",
		        cli->prog, count(n1, st.records, "record"), count(n2, st.input_errors, "input error"), na,
		        count(n3, st.remote_errors, "judge error"), count(n4, st.usage.calls, "call"),
		        count(n5, st.usage.cache_hits, "cache hit"), st.usage.prompt_tokens, cached, st.usage.completion_tokens,
		        cost, capped, adapt, st.seconds, rag_judge_name(cli->judge), st.interrupted ? ", interrupted" : "");
		fputs(line, stderr);
	}
	if (fclose(stdout) != 0 && errno != EPIPE && rc == RAG_EXIT_OK) {
		rag_msg(cli->prog, "error", "cannot write output: %s", strerror(errno));
		rc = RAG_EXIT_INTERNAL;
	}
	return rc;
}

int rag_cli_estimate_report(rag_cli *cli, const char *judge, long records, const rag_estimate *est)
{
	const rag_config *c = &cli->cfg;
	const rag_price *p = rag_cost_price_find(c->prices.v, c->prices.n, judge);
	double pt = ceil(est->prompt_tokens), ct = ceil(est->completion_tokens), kt = ceil(est->cached_prefix_tokens);
	double cost = est->requests ? rag_cost_tokens(p, pt, kt, ct) : 0;
	const char *colon = strchr(judge, ':');
	char costs[160];
	jv o;
	int rc = 0;

	if (isnan(cost)) snprintf(costs, sizeof costs, "cost unknown: no price for model %s", colon ? colon + 1 : judge);
	else snprintf(costs, sizeof costs, "cost %.6f %s by the price table", cost, c->prices.currency);
	if (!cli->quiet)
		rag_msg(cli->prog, "estimate", "%ld record%s: %ld request%s, about %.0f prompt tokens (%.0f characters; "
		        "about %.0f of them a prefix repeated from the request before, which a provider's prefix cache "
		        "could serve), about %.0f completion tokens, %s (judge %s; an estimate: no request was sent, the "
		        "cache not consulted)", records, records == 1 ? "" : "s", est->requests, est->requests == 1 ? "" : "s",
		        pt, est->prompt_chars, kt, ct, costs, judge);
	o = JV_OBJECT(jv_string("tool"), jv_string(cli->prog), jv_string("judge"), jv_string(judge),
	              jv_string("records"), jv_number((double)records), jv_string("requests"), jv_number((double)est->requests),
	              jv_string("prompt_chars"), jv_number(est->prompt_chars), jv_string("prompt_tokens"), jv_number(pt),
	              jv_string("completion_tokens"), jv_number(ct));
	o = jv_object_set(o, jv_string("cached_prefix_tokens"), jv_number(kt));
	o = jv_object_set(o, jv_string("currency"), jv_string(c->prices.currency));
	o = jv_object_set(o, jv_string("cost"), isnan(cost) ? jv_null() : jv_number(cost));
	if (isnan(cost)) o = jv_object_set(o, jv_string("message"), jv_string(costs + strlen("cost unknown: ")));
	if (c->llm.max_cost > 0) {
		/* the spending cap (--max-cost): whether this run, as estimated, would reach it */
		o = jv_object_set(o, jv_string("max_cost"), jv_number(c->llm.max_cost));
		o = jv_object_set(o, jv_string("cap_reached"), isnan(cost) ? jv_null() : jv_bool(cost > c->llm.max_cost));
		if (!cli->quiet)
			rag_msg(cli->prog, "estimate", "the spending cap (llm.max_cost %g %s) %s", c->llm.max_cost,
			        c->prices.currency, isnan(cost) ? "may or may not be reached: the cost is unknown"
			        : cost > c->llm.max_cost ? "would be reached, records left unscored" : "would not be reached");
	}
	o = jv_dump_string(JV_OBJECT(jv_string("estimate"), o), 0);
	if (printf("%s\n", jv_string_value(o)) < 0) rc = -1;
	jv_free(o);
	if (fclose(stdout) != 0 && errno != EPIPE) rc = -1;
	if (rc) rag_msg(cli->prog, "error", "cannot write output: %s", strerror(errno));
	return rc ? RAG_EXIT_INTERNAL : 0;
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

static void baseline_record(rag_item *it, void *ctx)
{
	if (!it->bad) rag_gate_baseline(ctx, jv_copy(it->rec));
}

int rag_cli_read_baseline(rag_cli *cli, rag_gate *g, const char *name)
{
	rag_gate_baseline_name(g, name);
	return rag_cli_read_run(cli, name, NULL, baseline_record, g);
}

/* the record stream over in (named input_name in messages), as rag_cli_read_run's */
static int read_stream(rag_cli *cli, FILE *in, const char *input_name, int position_by_id, FILE *out,
                       void (*observe)(rag_item *, void *), int (*wait)(void *, int, double), void *ctx)
{
	rag_stream_opts o;
	rag_stream_ops ops = {no_start, NULL, wait ? wait : wait_input, NULL};
	rag_stream_stats st;
	char err[RAG_ERRLEN];
	int rc;

	rag_tool_watch_eval();
	memset(&o, 0, sizeof o);
	o.prog = cli->prog;
	o.input_name = input_name;
	o.position_by_id = position_by_id;
	o.strict = cli->strict;
	o.unbuffered = cli->unbuffered;
	o.max_line = cli->max_line;
	o.budget = rag_cli_budget(cli);
	o.report = report;
	o.progress_ctx = cli;
	o.observe = observe;
	o.interrupted = &rag_tool_interrupted;
	o.drain = 1;    /* a run is decided on all of it, whoever stops reading what it passes on */
	rag_tool_signals();
	rc = rag_stream_run(in, out, &o, &ops, ctx, &st, err, sizeof err);
	if (err[0] && rc == RAG_EXIT_DATA) fprintf(stderr, "%s: %s\n", cli->prog, err);
	else if (err[0]) rag_msg(cli->prog, "error", "%s", err);
	if (rc == RAG_EXIT_DATA && !cli->strict) rc = RAG_EXIT_OK;
	return rc;
}

int rag_cli_read_text(rag_cli *cli, const char *text, size_t len, const char *name,
                      void (*observe)(rag_item *, void *), void *ctx)
{
	/* the stream reads a descriptor (read(2), poll(2)): the text goes through an unlinked
	 * temporary file */
	FILE *f = tmpfile();
	int rc;
	if (!f || (len && fwrite(text, 1, len, f) != len) || fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0) {
		rag_msg(cli->prog, "error", "cannot hold the records of %s in a temporary file: %s", name, strerror(errno));
		if (f) fclose(f);
		return RAG_EXIT_INTERNAL;
	}
	rc = read_stream(cli, f, name, 0, NULL, observe, NULL, ctx);
	fclose(f);
	return rc;
}

const char *rag_cli_run_file(const char *name)
{
	const char *v = getenv("RAG_EVAL_RECORDS");
	if (strcmp(name, "-")) return name;
	return v && *v ? v : NULL;
}

int rag_cli_read_run(rag_cli *cli, const char *name, FILE *out, void (*observe)(rag_item *, void *),
                     void *ctx)
{
	return rag_cli_read_run_wait(cli, name, out, observe, NULL, ctx);
}

int rag_cli_read_run_wait(rag_cli *cli, const char *name, FILE *out, void (*observe)(rag_item *, void *),
                          int (*wait)(void *ctx, int fd, double timeout), void *ctx)
{
	FILE *in = stdin;
	const char *file = rag_cli_run_file(name);
	int rc, named = strcmp(name, "-") != 0;

	if (named && (rc = rag_cli_open(cli, name, "r", &in))) return rc;
	rag_tool_watch_eval();   /* first: it finds the test set's name that messages give */
	rc = read_stream(cli, in, file ? file : eval_testset ? eval_testset : "<stdin>", !file && eval_testset, out,
	                 observe, wait, ctx);
	if (named) fclose(in);
	return rc;
}
