/* stream.h - the record loop (stream.c): one line out per line in, in order, a window of
 * records in flight within a byte budget; the items tools hold while they judge. Layer 2
 * (HACKING.md). */
#ifndef RAG_STREAM_H
#define RAG_STREAM_H

#include <stddef.h>
#include <signal.h>
#include <stdio.h>

#include <jv.h>

#include "usage.h"

/* ---------------------------------------------------------------- stream.c */
typedef struct rag_item {
	size_t lineno;
	jv rec;                   /* the record (object); tools modify it in place */
	int pending;              /* outstanding async operations */
	int bad;                  /* input error: rec already carries the error */
	int remote;               /* the judge failed for this record */
	int passthrough;          /* an upstream stage's error record: written as it came */
	int not_applicable;       /* metrics not applicable to this record (rag_item_not_applicable) */
	size_t bytes;             /* its input line's length (what it counts against the budget) */
	rag_usage usage;
	const char *stage;        /* usage.<tool>.<stage>: the metric or field judged (static), set by the tool */
	void *data;               /* tool state for this record */
	char *question_;          /* private: rag_item_question's text */
	struct rag_item *next;
	struct rag_stream *stream_; /* private */
} rag_item;

#define RAG_STREAM_BUDGET ((size_t)16 << 20)   /* rag_stream_opts.budget by default: 16 MiB */
#define RAG_STREAM_FACTOR 12      /* a parsed record takes about 10 times its line (libjq) */
#define RAG_STREAM_OVERHEAD 1024  /* and its item, the tool's state, the allocator's share */
typedef struct rag_stream rag_stream;
typedef struct rag_stream_ops {
	/* Called once per good record, in order. May start async operations (rag_item_hold). */
	void (*start)(rag_item *it, void *ctx);
	/* Called when pending drops to 0, before the record is written. */
	void (*finish)(rag_item *it, void *ctx);
	/* Progress pending async work; wait up to timeout seconds or until fd (>= 0) is readable.
	 * Returns 1 when fd is readable. fd < 0 says why no input is waited for (RAG_STREAM_FULL,
	 * _ENDED, _OUTPUT, below), for a tool that gathers records' work into batches. */
	int (*run)(void *ctx, int fd, double timeout);
	/* Fail all pending work now (interrupt): callbacks must still release their items. */
	void (*cancel)(void *ctx);
} rag_stream_ops;

/* run's fd when no input is waited for. What a record brings is the input's alone, so a batch
 * that must not depend on timing goes out partial only when no more can join it: at the end,
 * or with the window full and nothing else of its own in flight that would free it. */
#define RAG_STREAM_FULL (-1)     /* the window or the budget is full of records in flight: none
                                  * is taken until one of them finishes */
#define RAG_STREAM_ENDED (-2)    /* none will come: the input ended (or a strict stop, an interrupt) */
#define RAG_STREAM_OUTPUT (-3)   /* none until the reader takes the output waiting for it (which
                                  * holds the budget): a matter of its speed, not of the input */

typedef struct rag_stream_opts {
	const char *prog;         /* "rag-verify" */
	const char *input_name;   /* "<stdin>" or a file name for positions */
	/* the reports name a record by input_name and its id ("set.jsonl, id \"q3\""), not by its
	 * line: a stage of rag-eval, whose line numbers are the pipeline's, not the test set's; a
	 * record without an id keeps its line. The records' "at" keeps the line. */
	int position_by_id;
	int strict;               /* stop at the first bad line with RAG_EXIT_DATA */
	int unbuffered;           /* flush after each record */
	int window;               /* max records held in memory (default 256) */
	/* max bytes for the records in flight (each RAG_STREAM_FACTOR x its line's length +
	 * RAG_STREAM_OVERHEAD) and the read buffer together: nothing more is read while they fill
	 * it; a record alone in flight goes whatever its size (max_line bounds it). Default
	 * RAG_STREAM_BUDGET. */
	size_t budget;
	size_t max_line;          /* longest accepted line (default 8 MiB) */
	/* called for each problem with a record: "error (at <stdin>:17): ..." (printing is the
	 * caller's business) */
	void (*report)(void *ctx, const char *msg);
	/* called about twice a second when set (progress line) */
	void (*progress)(void *ctx, long done, long read, long pending);
	void *progress_ctx;
	/* when set: called with the ops' ctx for every record, good, bad or an upstream error
	 * passed through, in order, just before it is written (rag-gate sees what a filter writes) */
	void (*observe)(rag_item *it, void *ctx);
	/* when set: nonzero (the signal's number) once the tool's signal handler ran; the stream
	 * then reads no more, cancels what is in flight, writes every record it read and returns
	 * 128 + the signal. The tool installs the handler (without SA_RESTART) and ignores SIGPIPE. */
	const volatile sig_atomic_t *interrupted;
	/* when the reader of out goes away (EPIPE): write no more, but read and observe on to the end
	 * of input (a reader of whole runs, such as rag-gate --tee, decides on all of it); unset: stop
	 * reading too, as a filter whose output nobody reads has nothing left to do */
	int drain;
} rag_stream_opts;

typedef struct rag_stream_stats {
	long records, input_errors, remote_errors;   /* lines read; bad lines; records the judge failed */
	long not_applicable;      /* records with a metric not applicable to them */
	rag_usage usage;
	double seconds;
	int interrupted;
	int closed;               /* the reader of out went away (EPIPE); without drain, reading stopped */
} rag_stream_stats;

void rag_item_hold(rag_item *it);
void rag_item_release(rag_item *it);
/* Record an input error on this record (missing or mistyped field): adds an errors entry with
 * the position, marks it bad; in strict mode the stream stops after it. */
void rag_item_input_error(rag_item *it, const char *tool, const char *metric, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The metric does not apply to this record by its definition (no reference answer for context
 * recall): scores.<metric> = null and not_applicable.<metric> = reason, no errors entry, no
 * change to the exit status; the summary counts such records apart (rag(7) NOT APPLICABLE). */
void rag_item_not_applicable(rag_item *it, const char *metric, const char *reason);
/* The question a judge prompt carries: as rag_record_text(it->rec, "question", ...), but with a
 * follow-up case's earlier turns before it (rag_record_question_in_context); *s lives as long as
 * the item. Every tool that puts the question into a prompt reads it here. */
int rag_item_question(rag_item *it, const char **s, char *err, size_t errlen);
/* Mark this record as having a remote (judge) failure: sets the RAG_EXIT_REMOTE status and
 * reports msg with the record's position. */
/* Where a record is, for a person: "FILE:LINE", or "TESTSET, id \"ID\"" in a stage of rag-eval
 * (rag_stream_opts.position_by_id), whose inner line numbers mean nothing to its user. */
void rag_item_where(const rag_item *it, char *buf, size_t n);
void rag_item_remote_error(rag_item *it, const char *msg);
/* Read records from in, write to out (NULL: write nothing). Returns an exit code (enum rag_exit). Prints nothing itself:
 * err receives the message when the stream had to stop (strict, write error). */
int rag_stream_run(FILE *in, FILE *out, const rag_stream_opts *o, const rag_stream_ops *ops,
                   void *ctx, rag_stream_stats *stats, char *err, size_t errlen);

#endif
