/* tool.h - the tool layer: what every cmd/rag-*.c shares on top of the library (rag.h).
 *
 * The library (lib/) computes and returns errors; this layer owns the process: options, messages
 * on stderr, signals, exit statuses, the run of a tool and its summary line. It is the one place
 * that prints, as curl's tool_*.c files are for libcurl. */
#ifndef RAG_TOOL_H
#define RAG_TOOL_H

#include <getopt.h>
#include <signal.h>

#include "rag.h"

enum {
	RAG_OPT_JUDGE = 1000, RAG_OPT_MODEL, RAG_OPT_BASE_URL, RAG_OPT_LANG, RAG_OPT_CACHE,
	RAG_OPT_STRICT, RAG_OPT_UNBUFFERED, RAG_OPT_MAX_LINE, RAG_OPT_TOOL = 1100 /* tools start here */
};
/* Every tool: RAG_CLI_BASE_SHORT / RAG_CLI_BASE_LONG. Tools that ask a judge (or another
 * remote service) add RAG_CLI_JUDGE_SHORT / RAG_CLI_JUDGE_LONG and set rag_cli.judge_opts. */
#define RAG_CLI_JUDGE_SHORT "j:"
#define RAG_CLI_JUDGE_LONG \
	{"judge", required_argument, 0, RAG_OPT_JUDGE}, \
	{"model", required_argument, 0, RAG_OPT_MODEL}, \
	{"base-url", required_argument, 0, RAG_OPT_BASE_URL}, \
	{"lang", required_argument, 0, RAG_OPT_LANG}, \
	{"cache", required_argument, 0, RAG_OPT_CACHE}, \
	{"concurrency", required_argument, 0, 'j'}
#define RAG_CLI_BASE_SHORT "c:qvhV"
#define RAG_CLI_BASE_LONG \
	{"config", required_argument, 0, 'c'}, \
	{"strict", no_argument, 0, RAG_OPT_STRICT}, \
	{"unbuffered", no_argument, 0, RAG_OPT_UNBUFFERED}, \
	{"max-line", required_argument, 0, RAG_OPT_MAX_LINE}, \
	{"quiet", no_argument, 0, 'q'}, \
	{"verbose", no_argument, 0, 'v'}, \
	{"help", no_argument, 0, 'h'}, \
	{"version", no_argument, 0, 'V'}
#define RAG_CLI_SHORT RAG_CLI_JUDGE_SHORT RAG_CLI_BASE_SHORT
#define RAG_CLI_LONG RAG_CLI_JUDGE_LONG, RAG_CLI_BASE_LONG

typedef struct rag_cli {
	const char *prog;
	int judge_opts;           /* the tool asks a judge: judge options in --help, a judge is set up */
	const char *usage;        /* the tool's synopsis and own options, for --help */
	const char *config_path;  /* -c */
	int verbose, quiet, strict, unbuffered;
	const char *cache_mode;   /* --cache MODE */
	const char *provider, *model, *base_url, *lang; /* --judge, --model, --base-url, --lang */
	int concurrency;          /* -j N, 0 = config */
	size_t max_line;
	rag_config cfg;
	rag_judge *judge;
	char *notice, *notice_judge;   /* held for the first record (rag_cli_notice) */
} rag_cli;

void rag_msg(const char *prog, const char *level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Parse an integer option value; prints and returns -1 when it is not one in [min, max]. */
int rag_cli_int(const rag_cli *cli, const char *opt, const char *arg, long min, long max, long *out);
/* Handle a shared option. Returns 0 handled, or an exit code to exit with now (help, version:
 * RAG_EXIT_OK with *done set; bad values: RAG_EXIT_USAGE). */
int rag_cli_option(rag_cli *cli, int opt, const char *arg, int *done);
/* For filters that read records from stdin only: 0, or after a message and the usage hint
 * RAG_EXIT_USAGE when an operand is left after the options. */
int rag_cli_no_operands(const rag_cli *cli, int argc, char **argv);
/* Print the usage hint for misuse and return RAG_EXIT_USAGE. */
int rag_cli_misuse(const rag_cli *cli);
/* Load the configuration, apply flags, and for a judge tool create the judge and print the
 * notice. 0 or an exit code. */
int rag_cli_setup(rag_cli *cli);
/* A notice about the judge (named as in usage.<tool>.judge: "offline", "openai:<model>"), said
 * once per pipeline: held until the first record is judged, and dropped when that record shows
 * an earlier stage with the same judge, which said it already (rag(7), MESSAGES). */
void rag_cli_notice(rag_cli *cli, const char *judge, const char *msg);
/* Run the record stream on stdin/stdout with the tool's ops; prints the summary; closes
 * stdout. Returns the exit code. */
int rag_cli_run(rag_cli *cli, const rag_stream_ops *ops, void *ctx);
void rag_cli_free(rag_cli *cli);
/* Parse a number option value in [lo, hi] (above lo when lo_open); prints and returns -1 when
 * it is not one. */
int rag_cli_double(const rag_cli *cli, const char *opt, const char *arg, double lo, double hi,
                   int lo_open, double *out);
/* A METRIC=MIN option value added to list (gate.c's syntax); prints and returns -1 when bad. */
int rag_cli_threshold(const rag_cli *cli, const char *opt, const char *arg, rag_kd **list, size_t *n);
/* For tools that read whole runs (rag-gate, rag-report): the record stream over one named file
 * ("-" is stdin), calling observe(item, ctx) for every record, good or bad, in order, and writing
 * the records to out unless it is NULL. Bad lines are for observe to count: they do not make the
 * status 3 unless --strict stopped the stream. Returns an exit code. */
int rag_cli_read_run(rag_cli *cli, const char *name, FILE *out, void (*observe)(rag_item *, void *),
                     void *ctx);
/* For -v: the base URL the requests go to (embeddings: the embeddings one), a password in it
 * masked, into buf; "none" when offline. */
const char *rag_cli_endpoint(const rag_cli *cli, int embeddings, int offline, char *buf, size_t n);
/* The language of prompts for a record: cfg lang, or by the script of text when "auto". */
const char *rag_cli_lang(const rag_cli *cli, const char *text);


/* Set by the SIGINT/SIGTERM handler that rag_tool_signals installs: the signal number, 0 until
 * one came. The stream stops reading, fails what is in flight and writes what it read. */
extern volatile sig_atomic_t rag_tool_interrupted;
/* SIGINT and SIGTERM set rag_tool_interrupted (without SA_RESTART, so waits return early);
 * SIGPIPE is ignored so that a reader gone away is EPIPE, which ends a tool quietly. */
void rag_tool_signals(void);

#endif
