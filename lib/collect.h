/* collect.h - rag-collect's call of the system under test (collect.c). Layer 5 (HACKING.md). */
#ifndef RAG_COLLECT_H
#define RAG_COLLECT_H

#include <stddef.h>

#include <jv.h>

#include "config.h"

/* ---------------------------------------------------------------- collect.c */
/* rag-collect's call of the system under test (rag-collect(1)), from cfg->collect: HTTP (a body
 * made from the record by the collect.body jq program, sent with rag_llm_http) or a command
 * (/bin/sh -c, the record as one JSON line on its standard input, one JSON object read from its
 * standard output; its own process group, SIGTERM then SIGKILL past collect.timeout; the caller
 * ignores SIGPIPE, as the tool layer does). The reply (for a stream, the array of its events,
 * each parsed as JSON where it is JSON) goes through the answer, contexts and context_ids jq
 * programs; every program is compiled once, here. */
typedef struct rag_collect rag_collect;
typedef struct rag_collect_stats {
	long requests, failed, cache_hits, retries;   /* calls (commands run), those that failed */
} rag_collect_counts;
/* fields (consumed by the callback): what to set on the record: answer (a string, or null on
 * failure), contexts (strings) and context_ids when the reply gave them, latency_ms and status
 * (the HTTP status, or the command's exit status) when known, system (an object: the knobs the
 * reply says it ran with, by collect.system_from). error: NULL, or why the call failed
 * (borrowed for the call). Set them with rag_collect_merge. */
typedef void (*rag_collect_cb)(void *arg, jv fields, const char *error);
/* NULL and err when neither or both of url and command are set, or a program does not compile. */
rag_collect *rag_collect_new(const rag_config *cfg, char *err, size_t errlen);
/* Call the system for rec (borrowed), with the config's system: knobs in it (rag_collect_system)
 * so the body program (or the command) sees what is recorded; cb runs later, from
 * rag_collect_run, exactly once. */
void rag_collect_record(rag_collect *c, jv rec, rag_collect_cb cb, void *arg);
/* rec (consumed) with the callback's fields (consumed) set, the reply's system knobs over the
 * record's own and those over the config's (what ran is what is recorded). */
jv rag_collect_merge(const rag_collect *c, jv rec, jv fields);
/* As rag_llm_run: progress, wait up to timeout for progress or fd; 1 when fd is readable. */
int rag_collect_run(rag_collect *c, int fd, double timeout);
/* Fail every call queued or in flight now (commands killed), callbacks with why. */
void rag_collect_cancel(rag_collect *c, const char *why);
void rag_collect_stats(const rag_collect *c, rag_collect_counts *s);
/* The configured system knobs that the body program does not send (HTTP only; a command reads
 * the whole record): the number of them, their names comma-separated into names. Found by
 * making the body of a probe record whose knobs are unique strings and looking for each in it;
 * a body program that fails on the probe (arithmetic on a knob) counts as sending them all. */
int rag_collect_unsent_knobs(const rag_collect *c, char *names, size_t nameslen);
void rag_collect_free(rag_collect *c);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside collect.c and by tests/unit/t-collect.c: what a call goes to, and the config's
 * system knobs set on a record. Static in the library (RAG_UNITTEST, base.h): declared only when
 * RAG_UNITTESTS is defined, as for the unit tests' build of the library (obj/libragu.a). */
#ifdef RAG_UNITTESTS
const char *rag_collect_target(const rag_collect *c);   /* the URL or the command (borrowed) */
/* rec (consumed) with the config's system: keys in its "system" object; keys the record's own
 * system object already has are kept. */
jv rag_collect_system(const rag_collect *c, jv rec);
#endif /* RAG_UNITTESTS */

#endif
