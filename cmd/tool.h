/* tool.h - the tool layer: what every cmd/rag-*.c shares on top of the library (the headers of
 * lib/).
 *
 * The library (lib/) computes and returns errors; this layer owns the process: options, messages
 * on stderr, signals, exit statuses, the run of a tool and its summary line. It is the one place
 * that prints, as curl's tool_*.c files are for libcurl. */
#ifndef RAG_TOOL_H
#define RAG_TOOL_H

#include <getopt.h>
#include <signal.h>

#include "base.h"
#include "config.h"
#include "usage.h"
#include "record.h"
#include "stream.h"
#include "judge.h"
/* the gate's types, by name only: a tool that gates includes gate.h, the others need not */
struct rag_gate;
struct rag_gate_opts;
struct rag_cost_meter;

/* One option of a tool: its table entry gives getopt_long its struct option, --help its line,
 * and the hidden --list-options its line, from which `make` makes the manual page's SYNOPSIS
 * items and OPTIONS tags (mk/man.sh) and the three completions (mk/completions.sh). */
typedef struct rag_opt {
	const char *name;         /* the long name, without "--" */
	int short_name;           /* its one-letter form, or 0 */
	int val;                  /* what rag_cli_getopt returns for it */
	const char *arg;          /* the argument's name in --help ("N", "FILE", "METRIC=MIN"), NULL: none */
	const char *values;       /* what the completions offer for the argument: the values, separated
	                           * by spaces; RAG_ARG_FILE: file names; NULL: nothing (free text) */
	const char *help;         /* the --help text; each "\n" starts a continuation line */
} rag_opt;
#define RAG_ARG_FILE "<file>"
#define RAG_OPT_END {0, 0, 0, 0, 0, 0}

enum {
	RAG_OPT_JUDGE = 1000, RAG_OPT_MODEL, RAG_OPT_BASE_URL, RAG_OPT_LANG, RAG_OPT_CACHE,
	RAG_OPT_STRICT, RAG_OPT_UNBUFFERED, RAG_OPT_MAX_LINE, RAG_OPT_LIST_OPTIONS,
	RAG_OPT_MAX_MEMORY, RAG_OPT_ESTIMATE,
	/* rag-gate's and rag-report's (rag_cli_gate) */
	RAG_OPT_MIN_PASS, RAG_OPT_MAX_ERR, RAG_OPT_REGRESSION, RAG_OPT_FAIL_REG, RAG_OPT_SEED,
	RAG_OPT_RESAMPLES, RAG_OPT_CONFIDENCE, RAG_OPT_WORST, RAG_OPT_PASS, RAG_OPT_FAIL_FLIP, RAG_OPT_BY,
	RAG_OPT_METRICS, RAG_OPT_HIDDEN, RAG_OPT_MAX_COST,
	RAG_OPT_TOOL = 1100 /* tools start here */
};
/* The options of the tools that ask a judge (rag_cli.judge_opts), and those of every tool. */
extern const rag_opt rag_cli_judge_opts[];
extern const rag_opt rag_cli_shared_opts[];
/* The values the completions offer for --judge, --lang and --cache; also for a tool that lists
 * one of them among its own options (rag-embsim's --cache). */
#define RAG_CLI_JUDGE_VALUES "offline openai"
#define RAG_CLI_LANG_VALUES "auto en zh"
#define RAG_CLI_CACHE_VALUES "rw ro replay off"
/* The threshold options rag-gate and rag-report share, with the same help, first in their tables. */
#define RAG_CLI_GATE_THRESHOLD_OPTS \
	{"threshold", 't', 't', "METRIC=MIN", NULL, "the mean of METRIC must be at least MIN"}, \
	{"record-threshold", 'r', 'r', "METRIC=MIN", NULL, "a record passes when its METRIC is at least MIN"}, \
	{"min-pass-rate", 0, RAG_OPT_MIN_PASS, "RATE", NULL, "share of records that must pass (default 1)"}, \
	{"max-error-rate", 0, RAG_OPT_MAX_ERR, "RATE", NULL, "share of records a metric may leave null (default 0)"}, \
	{"pass", 0, RAG_OPT_PASS, "METRIC", NULL, "a record passes METRIC when the tool's own verdict says pass"}, \
	{"fail-on-flip", 0, RAG_OPT_FAIL_FLIP, NULL, NULL, "a record whose repeats flip on a gated metric fails"}, \
	{"by", 0, RAG_OPT_BY, "FIELD", NULL, "group the summary by FIELD (dotted path; default category)"}, \
	{"metrics", 0, RAG_OPT_METRICS, "LIST", NULL, "the metrics the run scored: a threshold on another is not run,\n" \
	 "not checked (rag-eval gives it)"}, \
	{"lang", 0, RAG_OPT_LANG, "LANG", RAG_CLI_LANG_VALUES, "auto | en | zh (failure hints)"}

typedef struct rag_cli {
	const char *prog;
	int judge_opts;           /* the tool asks a judge: judge options in --help, a judge is set up */
	const char *usage;        /* the tool's synopsis and description, for --help */
	const rag_opt *opts;      /* the tool's own options, ended by RAG_OPT_END */
	const char *hidden;       /* one more long option (without "--", no argument) for the build
	                           * and the tests, as --list-options, in no table and no --help:
	                           * rag_cli_getopt returns RAG_OPT_HIDDEN (rag-eval --list-metrics) */
	struct rag_cli_gate *gate; /* rag-gate, rag-report: where rag_cli_option puts the gate options */
	struct option longopts[64];  /* built from the tables by rag_cli_getopt */
	char shortopts[64];
	const char *config_path;  /* -c */
	int verbose, quiet, strict, unbuffered;
	const char *cache_mode;   /* --cache MODE */
	const char *provider, *model, *base_url, *lang; /* --judge, --model, --base-url, --lang */
	int concurrency;          /* -j N, 0 = config */
	size_t max_line;
	long max_memory;          /* --max-memory BYTES, 0 = config (stream.max_memory) */
	double max_cost;          /* --max-cost AMOUNT, 0 = config (llm.max_cost) */
	struct rag_cost_meter *meter;   /* the spending cap's (rag_cli_judge), or NULL */
	const rag_op *const *ops; /* the operations the judge asks (NULL-terminated), set before set-up */
	const char *remote_noun;  /* a tool with remote work of its own: what the summary calls a record
	                           * it failed ("embedder error"); a judge tool's are "judge error"s */
	rag_config cfg;
	rag_judge *judge;
	char *notice, *notice_judge;   /* held for the first record (rag_cli_notice) */
	int output_gone;          /* rag_cli_run: the stream dropped work for its output (EPIPE, a write error) */
	int estimate;             /* --estimate: count the requests, send none, write no records */
	long estimate_records;    /* the records an --estimate run read */
	jv names_seen;            /* the field names checked for typos (rag_cli_run): an object, or
	                           * invalid (all zero) before the first record */
} rag_cli;

void rag_msg(const char *prog, const char *level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "prog: text" on stderr in one write (rag_msg's, and the stream's messages in tool-run.c) */
void rag_tool_say(const char *prog, const char *text);
/* getopt_long over the tool's options, the judge options when judge_opts, and the shared ones.
 * Returns the option's val, or -1 after the last option. An unknown option, a missing or an
 * unwanted argument gets its message here and returns '?', which rag_cli_option turns into the
 * usage hint and RAG_EXIT_USAGE. */
int rag_cli_getopt(rag_cli *cli, int argc, char **argv);
/* Parse an integer option value; prints and returns -1 when it is not one in [min, max]. */
int rag_cli_int(const rag_cli *cli, const char *opt, const char *arg, long min, long max, long *out);
/* Handle a shared option (and a gate option when cli->gate is set). Returns 0 handled, or an
 * exit code to exit with now (help, version: RAG_EXIT_OK with *done set; misuse: the usage hint
 * and RAG_EXIT_USAGE). */
int rag_cli_option(rag_cli *cli, int opt, const char *arg, int *done);
/* Open a file the user named: 0 with *f set, or RAG_EXIT_USAGE after `prog: error: cannot open
 * "PATH": reason`. Every file a tool is told to read or write is opened through it, so that a
 * file that cannot be opened has one exit status in every tool (rag(7) EXIT STATUS). */
int rag_cli_open(const rag_cli *cli, const char *path, const char *mode, FILE **f);
/* For filters that read records from stdin only: 0, or after a message and the usage hint
 * RAG_EXIT_USAGE when an operand is left after the options. */
int rag_cli_no_operands(const rag_cli *cli, int argc, char **argv);
/* Write a rendered text (a summary, a report) to f, opened for path (NULL: standard output or
 * error): what f holds, then s in one write(2), so that it neither interleaves mid-line with
 * another stage's messages on a shared standard error nor loses a write error in a buffer.
 * Returns 0, or after `prog: error: cannot write "PATH": reason` ("cannot write output" for
 * path NULL) RAG_EXIT_INTERNAL. A reader gone away from standard output (EPIPE) is no error. */
int rag_cli_write(const rag_cli *cli, FILE *f, const char *path, const char *s);
/* Print the usage hint for misuse and return RAG_EXIT_USAGE. */
int rag_cli_misuse(const rag_cli *cli);
/* Set-up in two steps, so that a tool's own flags reach the configuration before the judge is
 * made from it (the judge copies what it needs; cfg is read-only after that):
 * rag_cli_config loads the configuration and applies the shared flags; rag_cli_judge makes the
 * judge, with the prompts of the operations of cli->ops, and holds its notice (and with -v says
 * what it uses).
 * rag_cli_setup does both (the judge only for a judge tool). Each returns 0 or an exit code. */
int rag_cli_config(rag_cli *cli);
int rag_cli_judge(rag_cli *cli);
int rag_cli_setup(rag_cli *cli);
/* The `fields:` mapping of the configuration, then the --field NAME=PROGRAM options given (NULL:
 * none; a later one replaces an earlier one for the same field), compiled into *out (freed with
 * rag_fieldmap_free). 0, or after a message naming the key RAG_EXIT_USAGE. */
int rag_cli_fieldmap(rag_cli *cli, const rag_strv *given, rag_fieldmap **out);
/* "NAME: did you mean KNOWN?" for each pair [[name, suggestion]...] (consumed) found record by
 * record (rag_record_near_misses), as rag-eval reads its test set; nothing with -q. */
void rag_cli_say_near(rag_cli *cli, jv near);
/* The warning, once a run, that the judge's model also generated the answers (rec borrowed). */
void rag_cli_self_check(rag_cli *cli, jv rec);
/* A notice about the judge (named as in usage.<tool>.<stage>.judge: "offline", "openai:<model>"), said
 * once per pipeline: held until the first record is judged, and dropped when that record shows
 * an earlier stage with the same judge, which said it already (rag(7), MESSAGES). */
void rag_cli_notice(rag_cli *cli, const char *judge, const char *msg);
/* Run the record stream on stdin/stdout with the tool's ops; prints the summary; closes
 * stdout. Returns the exit code. */
int rag_cli_run(rag_cli *cli, const rag_stream_ops *ops, void *ctx);
void rag_cli_free(rag_cli *cli);
/* --estimate's report of est (borrowed) for records read: the summary line on stderr (unless
 * -q), and one JSON line on stdout, {"estimate": {tool, judge, records, requests, prompt_chars,
 * prompt_tokens, completion_tokens, currency, cost, message?}} (rag(7) ESTIMATES); judge names
 * the model priced ("openai:<model>"). Returns 0 or RAG_EXIT_INTERNAL when stdout failed. */
int rag_cli_estimate_report(rag_cli *cli, const char *judge, long records, const rag_estimate *est);
/* Parse a number option value in [lo, hi] (above lo when lo_open); prints and returns -1 when
 * it is not one. */
int rag_cli_double(const rag_cli *cli, const char *opt, const char *arg, double lo, double hi,
                   int lo_open, double *out);
/* rag-gate's and rag-report's gate options, as given; each unset one is the config's. */
typedef struct rag_cli_gate {
	rag_kd *mean, *record;    /* -t, -r */
	size_t nmean, nrecord;
	double min_pass, max_err, regression, confidence;   /* NAN: unset */
	long seed, resamples, worst;                        /* -1: unset */
	int fail_reg, fail_flip;
	rag_strv pass, by, metrics;                         /* --pass, --by, --metrics (comma-separated, repeatable) */
	rag_kd *merged_mean, *merged_record;                /* what rag_cli_gate_opts gave */
	const char **merged_pass, **merged_by;
	jv batch;                 /* what rag-eval --batch's batches answered (RAG_BATCH_USAGE) */
} rag_cli_gate;
void rag_cli_gate_init(rag_cli_gate *g);
/* The options over cli->cfg.gate (after rag_cli_setup); go borrows from g until rag_cli_gate_free. */
void rag_cli_gate_opts(const rag_cli *cli, rag_cli_gate *g, struct rag_gate_opts *go);
/* What --max-memory (stream.max_memory) gives a tool's records: read ahead, in flight, written
 * and waiting for the reader. A tool that keeps a gate's scores as well (cli->gate: rag-gate,
 * rag-report) gives them the other half, so that the two stay within the one budget together. */
size_t rag_cli_budget(const rag_cli *cli);
void rag_cli_gate_free(rag_cli_gate *g);
/* Whether go has anything to decide on: a mean or a record threshold, or --fail-on-regression
 * with a baseline. The rates alone are not enough (they qualify the thresholds, and the nulls
 * they allow are checked in every run): a run of zeros with every score present passes them. */
int rag_cli_gate_any(const struct rag_gate_opts *go, const char *baseline);
/* summary (consumed) with the failure hints (rag_hints_apply) in the language of --lang or the
 * config's lang, or with auto that of the run's questions (g borrowed); a hints file that
 * cannot be read is a warning, and no hints. */
jv rag_cli_hints(const rag_cli *cli, const struct rag_gate *g, jv summary);
/* summary (consumed, with its hints) with each hint said in English and Chinese too ("texts":
 * {en, zh}), for rag-report's page, which shows them in its reader's language */
jv rag_cli_hints_texts(const rag_cli *cli, jv summary);
/* For tools that read whole runs (rag-gate, rag-report): the record stream over one named file
 * ("-" is stdin), calling observe(item, ctx) for every record, good or bad, in order, and writing
 * the records to out unless it is NULL. Bad lines are for observe to count: they do not make the
 * status 3 unless --strict stopped the stream. Returns an exit code. */
int rag_cli_read_run(rag_cli *cli, const char *name, FILE *out, void (*observe)(rag_item *, void *),
                     void *ctx);
/* rag_cli_read_run with wait (ctx; NULL: a plain poll) as the stream's wait for input (its
 * rag_stream_ops.run: wait up to timeout seconds for fd, 1 when it is readable), for a tool
 * that acts while its input is quiet (rag-gate --idle). */
int rag_cli_read_run_wait(rag_cli *cli, const char *name, FILE *out, void (*observe)(rag_item *, void *),
                          int (*wait)(void *ctx, int fd, double timeout), void *ctx);
/* The file a run's records come from: name, or for "-" (stdin) the one RAG_EVAL_RECORDS names,
 * which rag-eval sets for the outputs it makes while its run goes (rag-gate --json and
 * --markdown, rag-report): those records are the ones it is writing to that file, which then
 * names them (positions, the run's name, run.json beside it) as if it had been read. NULL: a
 * plain standard input. */
const char *rag_cli_run_file(const char *name);
/* rag_cli_read_run over records held in text[0..len) (rag-agree --run: a run's records from the
 * store), named name in messages. */
int rag_cli_read_text(rag_cli *cli, const char *text, size_t len, const char *name,
                      void (*observe)(rag_item *, void *), void *ctx);
/* rag_cli_read_run over a baseline run: its records (the readable ones) go to
 * rag_gate_baseline, before the run itself is read. */
int rag_cli_read_baseline(rag_cli *cli, struct rag_gate *g, const char *name);
/* For -v: the base URL the requests go to (embeddings: the embeddings one), a password in it
 * masked, into buf; "none" when offline. */
const char *rag_cli_endpoint(const rag_cli *cli, int embeddings, int offline, char *buf, size_t n);
/* For a tool with no offline judge (rag-judge, a metric tool whose operation has
 * RAG_OP_NO_OFFLINE), after rag_cli_config: 0 when the configuration names an endpoint (or
 * --cache replay, which then asks the cache alone), else RAG_EXIT_USAGE after a message. */
int rag_cli_need_endpoint(rag_cli *cli);
/* The whole of a metric tool of one operation, its main (cmd/tool-metric.c): the operation of
 * the registry whose .tool is prog (rag_op_tool), the judge's and the shared options, and for
 * each record the operation's .ask, its score written to scores.<metric>, or null with an
 * errors entry (HACKING.md, "A new LLM metric tool"). Returns the exit status. */
int rag_cli_metric(const char *prog, int argc, char **argv);
/* The language of prompts for a record: cfg lang, or by the script of text when "auto". */
const char *rag_cli_lang(const rag_cli *cli, const char *text);


/* Set by the SIGINT/SIGTERM handler that rag_tool_signals installs: the signal number, 0 until
 * one came. The stream stops reading, fails what is in flight and writes what it read. */
extern volatile sig_atomic_t rag_tool_interrupted;
/* SIGINT and SIGTERM set rag_tool_interrupted (without SA_RESTART, so waits return early);
 * SIGPIPE is ignored so that a reader gone away is EPIPE, which ends a tool quietly; and, in a
 * stage of rag-eval, rag_tool_watch_eval. */
void rag_tool_signals(void);
/* A stage of rag-eval's pipeline (RAG_EVAL_ALIVE names the read end of a pipe that rag-eval
 * alone writes to) ends when rag-eval's process is gone, however it went (kill -9, the OOM
 * killer): the pipe's hang-up sends it SIGIO (O_ASYNC on a file description of its own), whose
 * default action ends it where it is, writing nothing more and sending no more requests. Its
 * messages then name the test set (RAG_EVAL_TESTSET) and the record's id. Once a process;
 * rag_tool_signals and rag_cli_run call it. */
void rag_tool_watch_eval(void);

#endif
