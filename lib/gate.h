/* gate.h - scores of a whole run: statistics and the seeded generator (stats.c), cost
 * (cost.c), the quality gate (gate.c), failure hints (hints.c). Layer 6 (HACKING.md). */
#ifndef RAG_GATE_H
#define RAG_GATE_H

#include <stddef.h>
#include <stdint.h>

#include <jv.h>

#include "config.h"

/* ---------------------------------------------------------------- stats.c */
/* A generator of our own (xoshiro256** seeded by splitmix64), so that a seed gives the same
 * draws on every machine and with every C library. */
typedef struct rag_rng { uint64_t s[4]; } rag_rng;
void rag_rng_seed(rag_rng *r, uint64_t seed);
uint64_t rag_rng_below(rag_rng *r, uint64_t n);   /* uniform in [0, n), n > 0, no modulo bias */
void rag_stats_sort(double *x, size_t n);          /* ascending */
double rag_stats_mean(const double *x, size_t n);  /* NAN when n is 0 */
/* Quantile p in [0, 1] of sorted x by linear interpolation between the closest ranks (Hyndman
 * and Fan's type 7, the default of R, NumPy and spreadsheets' PERCENTILE.INC): with
 * h = (n - 1) p, x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]), 0-based. NAN when
 * n is 0. */
double rag_stats_quantile(const double *sorted, size_t n, double p);
/* Where quantile p of n sorted numbers lies: the 0-based rank i it starts from and, in *f, the
 * fraction of the way to rank i + 1 (0 at p <= 0, p >= 1 and n 0). */
size_t rag_stats_rank(size_t n, double p, double *f);
typedef struct rag_summary { size_t n; double mean, median, min, p10, max; } rag_summary;
/* Summary of x[0..n); sorts x in place. NANs when n is 0. */
void rag_stats_summary(double *x, size_t n, rag_summary *s);
/* Percentile bootstrap interval of the mean of d[0..n) (paired differences): `resamples` means
 * of n draws with replacement from rag_rng seeded with seed; the interval runs between their
 * quantiles (1 - confidence) / 2 and (1 + confidence) / 2. -1 (and NANs) when n is 0 or the
 * arguments are out of range. */
int rag_stats_bootstrap(const double *d, size_t n, int resamples, double confidence, uint64_t seed,
                        double *lo, double *hi);

/* ---------------------------------------------------------------- series.c */
/* Series of numbers (a metric's scores in the run, a category, a group) within a memory
 * budget: each keeps its count, sum (in its numbers' order), least, greatest and ten-bin
 * histogram as they come; a series opened to keep its numbers keeps them in memory until all
 * kept numbers take more than the budget, then in one temporary file ($TMPDIR, unlinked), from
 * which summaries read them back exactly. The set owns its series; indexes are small integers
 * valid until rag_series_free. */
typedef struct rag_series rag_series;
rag_series *rag_series_new(size_t budget);      /* bytes of numbers in memory; 0: 16 MiB */
size_t rag_series_open(rag_series *s, int keep);   /* a new empty series; keep: its numbers too */
void rag_series_push(rag_series *s, size_t i, double x);
/* from's numbers after to's, in their order (from not kept: its figures, its sum added whole) */
void rag_series_append(rag_series *s, size_t to, size_t from);
size_t rag_series_count(const rag_series *s, size_t i);
double rag_series_mean(const rag_series *s, size_t i);    /* NAN when empty: rag_stats_mean's */
/* ten bins of width 0.1 over [0, 1], the last closed; outside [0, 1] the nearest end bin */
const long *rag_series_histogram(const rag_series *s, size_t i);
/* rag_stats_summary's figures of series i (median and p10 NAN for a series not kept); it sorts
 * the series' numbers, whose order rag_series_values no longer gives after. -1 when numbers were
 * lost (rag_series_error). */
int rag_series_summary(rag_series *s, size_t i, rag_summary *out);
/* series i's numbers in their order, into a new array of *n; NULL when not kept or lost */
double *rag_series_values(rag_series *s, size_t i, size_t *n);
/* what went wrong with the temporary file (a write or read failed: numbers lost), or NULL. When
 * the file cannot be created the numbers stay in memory and there is no error. */
const char *rag_series_error(const rag_series *s);
void rag_series_free(rag_series *s);

/* ---------------------------------------------------------------- cost.c */
/* The price of a judge ("openai:<model>", or a model's name) in the table (borrowed), or NULL. */
const rag_price *rag_cost_price_find(const rag_price *v, size_t n, const char *judge);
/* What the tokens cost at price p (per million tokens): NAN when p is NULL or lacks a price the
 * tokens need (no tokens cost 0 whatever the price). */
/* cached_tokens: of prompt_tokens, those priced at cached_input (at input where it is unknown) */
double rag_cost_tokens(const rag_price *p, double prompt_tokens, double cached_tokens, double completion_tokens);
/* acc (consumed; jv_null() to start) with a record's usage object (borrowed: usage.<tool>.<stage>,
 * or the flat usage.<tool> of older records) added, per tool, stage and judge. */
jv rag_cost_add(jv acc, jv usage);
/* acc (consumed) priced: {currency, calls, cache_hits, prompt_tokens, completion_tokens, total,
 * stages: [{tool, stage, judge, calls, cache_hits, prompt_tokens, completion_tokens, cost}],
 * no_price: [model], messages: ["no price for model M"]}; a cost (and the total) is null when a
 * model it needs has no price. */
jv rag_cost_summary(jv acc, const rag_price *prices, size_t nprices, const char *currency);
/* The batch route's price of p (rag-eval --batch): prices.<model>.batch_input and batch_output
 * where given, else input and output less batch_discount (cached_input too); NAN what neither
 * gives. model borrowed from p; p NULL: every price NAN. */
rag_price rag_cost_batch_price(const rag_price *p);
/* summary (consumed: rag_cost_summary's) with the tokens the batch route answered (batch,
 * borrowed: judge -> {requests, prompt_tokens, cached_tokens, completion_tokens}) priced at the
 * batch price instead of the list price: "total" changed (null when a batch price is unknown,
 * with the message "no batch price for model M"), and "batch": {requests, prompt_tokens,
 * cached_tokens, completion_tokens, cost, cost_at_list_price}; a batch's count is taken at most
 * as the records hold of its model (a reply no record used costs nothing here). No batch:
 * summary as it was. */
jv rag_cost_batch(jv summary, jv batch, const rag_price *prices, size_t n);

/* The spending cap (llm.max_cost, rag-config(5)): before a judge request the cache did not
 * answer is sent, the run's cost so far (the replies' usage at the judge's price, plus the
 * estimates of the requests still in flight) and the request's own estimate (its prompt's
 * tokens as --estimate counts them, the operation's expected completion) are compared with
 * the cap; a request that would pass it is not sent, and from then on none is (in every
 * process sharing the spending file: a refusal never lets a later, smaller request through,
 * so the records scored are a prefix of what each stage asked). A refused request's error
 * starts with RAG_COST_CAPPED, by which the gate tells a capped record (rag_verdict). */
#define RAG_COST_CAPPED "spending cap reached"
typedef struct rag_cost_meter rag_cost_meter;
/* A meter of cfg->llm.max_cost (> 0) for the judge (its name or model), the spending shared
 * through cfg->llm.spend_file (a file of one line, "SPENT HELD REACHED", under flock) when set,
 * else in this process. NULL and err when the judge's model has no input and output price, or
 * the file cannot be opened. */
rag_cost_meter *rag_cost_meter_new(const rag_config *cfg, const char *judge, char *err, size_t errlen);
/* 0 and *held (the estimate's cost, held until settled): the request may be sent; -1 and msg
 * (RAG_COST_CAPPED ...): it may not, nor any later one. */
int rag_cost_meter_admit(rag_cost_meter *m, double prompt_tokens, double completion_tokens, double *held,
                         char *msg, size_t msglen);
/* A request admitted with held is over: its tokens (the reply's usage) are spent, held freed. */
void rag_cost_meter_settle(rag_cost_meter *m, double held, double prompt_tokens, double cached_tokens,
                           double completion_tokens);
/* What the run spent so far (in every process sharing the file), and whether the cap stopped it */
double rag_cost_meter_spent(rag_cost_meter *m, int *reached);
double rag_cost_meter_cap(const rag_cost_meter *m);
/* With cfg->llm.spend_window (> 0): the cap holds per window of that many seconds of the
 * records' started time (rag-eval --follow's cap per hour). t: the started time (seconds since
 * the epoch) of the record a request is about to be admitted for; a record of a later window than the meter's (in
 * every process sharing the file) starts that window: nothing spent in it, the cap not reached
 * (requests in flight stay held, and what they spend counts in the window they end in). NAN,
 * an earlier window, or no spend_window: nothing changes. */
void rag_cost_meter_at(rag_cost_meter *m, double t);
/* rag-eval --batch: the meter weighs and settles at the judge model's batch price
 * (rag_cost_batch_price), for a batch's requests weighed one by one before it is created, each
 * admitted one held until the batch's usage settles it. -1 and err when the model has none. */
int rag_cost_meter_batch(rag_cost_meter *m, const char *judge, char *err, size_t errlen);
/* The cap reached, as a refusal reaches it: no request is admitted after (rag-eval --batch
 * resumed, whose run before left a stage's requests out by the cap). */
void rag_cost_meter_reach(rag_cost_meter *m);
void rag_cost_meter_free(rag_cost_meter *m);

/* ---------------------------------------------------------------- gate.c */
/* The quality gate over a whole run (rag-gate(1)): every score is kept per metric and per
 * category (a median needs them all) in series within o.budget (series.c), plus the ids of a
 * baseline and the worst records. */
typedef struct rag_gate rag_gate;
typedef struct rag_gate_opts {
	const rag_kd *mean; size_t nmean;       /* metric -> lowest mean (borrowed) */
	const rag_kd *record; size_t nrecord;   /* metric -> lowest score of a passing record */
	double min_pass_rate, max_error_rate, regression, confidence;
	int fail_on_regression, resamples, worst;
	uint64_t seed;
	/* metrics gated on the tool's own pass verdict (verdicts.<m>.pass, verdicts.<m>[0].verdict) */
	const char *const *pass; size_t npass;
	int fail_on_flip;                       /* a flip (verdicts.<m>.flip) on a gated metric fails */
	/* fields the records are grouped by (dotted paths); none: category */
	const char *const *by; size_t nby;
	/* the metrics the run scored (rag-eval's); none: not known. A threshold or pass verdict on
	 * another metric is not checked: a skipped check says it was not run */
	const char *const *run; size_t nrun;
	/* the price table (borrowed) for the summary's cost; none: every cost null */
	const rag_price *prices; size_t nprices;
	const char *currency;
	/* rag-eval --batch: what its batches answered, by model (borrowed; invalid: none), priced at
	 * the batch price in the summary's cost (rag_cost_batch) */
	jv batch;
	/* llm.answer_model: the model that wrote the answers when the records do not say (their
	 * answer_model or model); a record judged by it is self-judged. NULL: none */
	const char *answer_model;
	/* gate.by_category (borrowed): a record whose category, or the value of a field of by,
	 * is a triple's category has the triple's per-record threshold on its metric, in place of
	 * record's (the highest where several of its fields match) */
	const rag_cat_kd *by_category; size_t nby_category;
	/* gate.by_category's means (borrowed): the records whose category, or the value of a field
	 * of by, is a triple's category must have at least the triple's mean on its metric; a check
	 * each ("mean M for "C""), as gate.mean's over the run */
	const rag_cat_kd *by_category_mean; size_t nby_category_mean;
	/* bytes of scores kept in memory (--max-memory); beyond them a temporary file. 0: 16 MiB */
	size_t budget;
} rag_gate_opts;
rag_gate *rag_gate_new(const rag_gate_opts *o);
/* A record of the baseline run (consumed), before any rag_gate_add; name is the baseline's
 * file for the summary. A line of rag-store diff (with "change") stands for the baseline's
 * record by its baseline_scores, and is left out when they are null (a record added since). */
void rag_gate_baseline(rag_gate *g, jv rec);
void rag_gate_baseline_name(rag_gate *g, const char *name);
/* A record of the run (borrowed); where names its position ("file:17"), unreadable says the line
 * was not a record. With want_checks: returns one check per metric of the table, {metric,
 * score, threshold, status: "pass"|"failure"|"error"|"skipped", message?} (skipped: the metric
 * is not applicable to the record, not_applicable.<metric>); else jv_invalid(). */
jv rag_gate_add(rag_gate *g, jv rec, const char *where, int unreadable, int want_checks);
/* rag_gate_add, returning the gate's verdict on the record, for a report that shows it:
 * {failed, errored (a gated score missing, or the line unreadable: out of the pass rate),
 * missed: [why it failed: the thresholds it missed, its nulls], checks: [as rag_gate_add's],
 * changes: [{metric, baseline, current, delta, change: "regressed"|"improved"|"none"|"lost"|
 * "gained"}] against the baseline record of the same id (rag_compare_pair's; empty without one),
 * change?: the record's class, "regressed"|"improved"|"same" (compare.c; absent without a
 * pair)}. A record passes when neither failed nor errored. */
jv rag_gate_add_verdict(rag_gate *g, jv rec, const char *where, int unreadable);

/* A run's failing records grouped by cause (causes.c), the one grouping of rag-report's page and
 * rag-serve's opened run. Fed each record with its gate verdict (rag_gate_add_verdict's; a
 * record that passed is passed over), one cause a record, its root: its first error (an error
 * that follows from it is no cause of its own): an outage when it names no place in the record
 * (a judge or the service failed), else no answer (the stage), else the error; without errors
 * a retrieval miss (relevant ids, a reciprocal rank, hit or recall of 0), else a metric below
 * its per-record threshold (retrieval's first, then the farthest below), a metric with one and
 * no score; else the first thing it missed. */
typedef struct rag_causes rag_causes;
#define RAG_CAUSE_SHOWN 10   /* records listed under a cause, the farthest below its threshold first */
rag_causes *rag_causes_new(void);
/* rec and verdict borrowed; seq the record's place in the run (the order of equals) */
void rag_causes_add(rag_causes *cs, jv rec, jv verdict, long seq);
/* [{kind: "outage"|"miss"|"below"|"null"|"noanswer"|"error", who?: "judge"|"service" (an
 * outage), metric?, threshold?, tool?, text?, key: the cause's name ("below:METRIC",
 * "outage:judge", "miss:", "error:TEXT"...), cause: the English line ("the judge failed: N
 * records unscored"; an outage's text: the first record's error, the endpoint's), count, records: [{seq, id, detail}] (RAG_CAUSE_SHOWN at
 * most, the farthest below the threshold first, then by seq)}], outages first, then the most
 * records, then the farthest below */
jv rag_causes_json(const rag_causes *cs);
void rag_causes_free(rag_causes *cs);
/* The verdict and every table: {pass, verdict (rag_verdict's), records, unreadable, errored,
 * not_scored, remote_failed, capped? (rag_verdict_capped's), not_applicable_records, passed, pass_rate,
 * thresholds (by_category_mean: {category: {metric: mean}} when set), metrics: [...],
 * categories: [...], by: [...], groups: [...], worst: [...],
 * baseline?: {...}, checks: [...], self_judging?: {model, records}, warnings?: [text]}
 * (rag-gate(1) --json). self_judging: records judged by the model that wrote their answers
 * (usage.<tool>.<stage>.judge "openai:M", M the record's answer_model or model, else
 * o.answer_model, compared without case), the first such model. Call once. */
jv rag_gate_summary(rag_gate *g);
/* Why the summary cannot be trusted (scores lost with their temporary file: rag_series_error),
 * or NULL. A summary with an error gives no verdict: the tool says it and exits 5. */
const char *rag_gate_error(const rag_gate *g);
/* Where metric row m (borrowed, of rag_gate_summary's metrics) took its relevance from, when
 * rag-ap said (relevance_from): "relevant ids in 2 records, the judge's chunk verdicts in 1";
 * NULL when it did not. malloc'ed. */
char *rag_gate_from_text(jv m);
/* The language of the run's questions so far, "en" or "zh" (rag_text_lang by majority). */
const char *rag_gate_lang(const rag_gate *g);
void rag_gate_free(rag_gate *g);
/* "METRIC=MIN" (MIN in [0, 1]) into list: a metric already there gets the new minimum. -1 and
 * err when arg is not that. */
int rag_gate_threshold_parse(const char *arg, rag_kd **list, size_t *n, char *err, size_t errlen);
/* The config's thresholds with the flags' over them, metric by metric: a new array (free it, not
 * the keys, which stay borrowed from the two lists). */
rag_kd *rag_gate_thresholds_merge(const rag_kd *cfg, size_t ncfg, const rag_kd *flags, size_t nflags, size_t *n);

/* ---------------------------------------------------------------- compare.c */
/* Two runs compared, the one definition of rag-gate -b, rag-report and its page, rag-store diff
 * and rag-serve's compare: records paired by id (the first record of an id on each side). A
 * metric of a pair is compared where the baseline or the current record scored it: both
 * scored, it regressed when it fell by more than tol (the gate's regression tolerance,
 * gate.regression), improved when it rose by more, else "none"; scored in the baseline and not
 * now, with the current record unscored (rag_verdict_unscored: an error or a null), it was
 * "lost"; the other way, the baseline unscored, "gained"; a metric neither scored, or not run
 * on one side, is not compared. A record regressed when some metric regressed or was lost (a
 * record that lost its answer is a regression: "lost" counts it apart too), else improved when
 * some metric improved or was gained, else it is unchanged. The paired means of a metric are
 * over the pairs scored on both sides. */
enum { RAG_CHANGE_UNCHANGED, RAG_CHANGE_REGRESSED, RAG_CHANGE_IMPROVED };
typedef struct rag_compare rag_compare;
rag_compare *rag_compare_new(double tol);
/* Intervals asked for: rag_compare_json gives each paired mean's percentile bootstrap interval
 * of the pairs' differences (rag_stats_bootstrap, in pairing order, as the gate's baseline
 * summary has it), ci_low and ci_high, and its change ("regression" when the interval lies
 * below 0, "improvement" above, else "none"), and the confidence. Call before the pairs. */
void rag_compare_intervals(rag_compare *c, int resamples, double confidence, uint64_t seed);
/* One pair: the baseline's scores and the current's (borrowed objects, or null), whether each
 * record was unscored (rag_verdict_unscored != 0). With out, each compared metric appended to
 * *out as {metric, baseline, current (null: none), delta (null: one side unscored), change:
 * "regressed"|"improved"|"none"|"lost"|"gained"}, by metric name. Returns RAG_CHANGE_*. */
int rag_compare_pair(rag_compare *c, jv bscores, int bunscored, jv cscores, int cunscored, jv *out);
/* "regressed", "improved" or "same" (rag-store diff's word for unchanged) */
const char *rag_compare_name(int change);
/* the paired means of metric: 0, or -1 (NANs, *n 0) when no pair scored it on both sides */
int rag_compare_mean(const rag_compare *c, const char *metric, double *base, double *cur, long *n);
/* {paired, regressed, lost, improved, gained, unchanged, tolerance, means: [{metric, pairs,
 * baseline, current, delta, and with intervals ci_low, ci_high, change}] by metric name,
 * definition, and with intervals confidence}: the definition in words, shown wherever the
 * counts are: "paired by id over N records; regressed: fell by more than T on some metric or
 * lost its score (...)..." */
jv rag_compare_json(const rag_compare *c);
/* "R regressed (L lost their score), I improved, U unchanged (the definition)" of counts
 * (borrowed: rag_compare_json's, or an object with its keys). malloc'ed. */
char *rag_compare_counts_text(jv counts);
void rag_compare_free(rag_compare *c);

/* ---------------------------------------------------------------- verdict.c */
/* A run's verdict, made once from its gate's summary and stored with the run (run.json's
 * "verdict", gate.json's, the store's): every surface shows it and none makes it again. */
/* Whether a record (borrowed) was scored: 0 yes; 1 no, for its input or a null; 2 no, a remote
 * failure (its first error is the judge's or the service's, with no "at"). */
int rag_verdict_unscored(jv rec);
/* Whether a record (borrowed) was left unscored by the spending cap: an error of its starts
 * with RAG_COST_CAPPED (cost.c). */
int rag_verdict_capped(jv rec);
/* The pass rate, the one definition: records that passed of the records with a verdict, those
 * without errors or nulls (the records less those errored: a gated score missing, an error
 * entry, a line unreadable), the denominator named wherever it is shown. NAN
 * when none has a verdict. */
double rag_verdict_pass_rate(long passed, long with_verdict);
/* A record's pass from its gate verdict (rag_gate_add_verdict's, borrowed): 1 passed, 0 failed,
 * -1 no verdict (errored). */
int rag_verdict_record_pass(jv verdict);
/* The verdict of a gate summary (borrowed; rag_gate_summary's, its pass null for a summary with
 * no decision): {decision: "pass"|"fail"|"none", exit_status, reason, reason_code: "outage"|
 * "gate_failed"|"gate_passed"|"no_threshold" and reason_args: the reason's numbers ({records,
 * with_verdict, passed, not_scored, remote_failed, half, capped, max_error_rate, check: gate_failed's
 * first failed check}), for a page that words it in its own language, records, with_verdict,
 * passed, failed, errored, not_applicable (records with a metric not applicable), not_scored,
 * remote_failed, capped (where the spending cap left any unscored), pass_rate (null: none with
 * a verdict), pass_rate_of: with_verdict, its denominator, thresholds and by: the gate's options,
 * checks: the gate's checks, each {check, pass, message: English words, code and args: the same
 * as a code and its numbers and names}}.
 * The exit status: 3 or 4 (4 when a judge or service failed) when records were not scored
 * beyond gate.max_error_rate, or more than half of the run (a dead judge: whatever the budget),
 * or when the spending cap left any record unscored (the summary's "capped": 4 whatever the
 * budget, the reason starting with RAG_COST_CAPPED); else 1 when the gate failed, else 0. */
jv rag_verdict(jv summary);
/* The verdict of a run that did not end with one (interrupted, a stage failed): decision null. */
jv rag_verdict_failed(int status, const char *reason);
/* "exit status 0: the gate passed: ..." of a verdict (borrowed); malloc'ed. */
char *rag_verdict_exit_line(jv verdict);

/* The gate's options as the verdict (borrowed) records them (its thresholds, by): the run's
 * whole gate, for a per-record pass worked out where the records are stored, never a part of
 * the configuration. vg owns what o borrows. -1 when the verdict has no thresholds. */
typedef struct rag_verdict_gate {
	rag_gate_opts o;
	rag_kd *mean, *record; rag_cat_kd *cat; size_t ncat;
	char **pass, **by; size_t npass, nby;
} rag_verdict_gate;
int rag_verdict_gate_opts(jv verdict, rag_verdict_gate *vg);
void rag_verdict_gate_free(rag_verdict_gate *vg);

/* ---------------------------------------------------------------- window.c */
/* The rolling gate (rag-gate --window): an endless stream of scored records cut into windows,
 * each decided by a gate of its own over its records alone (the checks rag-gate makes of the
 * same records in a batch), with a rule against flapping. Only the open window's scores are
 * held. A time window is a span of the records' own time (their `started`, ISO 8601, as
 * rag-trace writes it), aligned on multiples of its length since the epoch: a record of a later
 * window closes the open one, a record of an earlier one counts in the open one as late, and
 * one with no time counts in the open one. The window clock is the latest `started` seen, moved
 * on by rag_window_idle while the stream is quiet; a window the clock has passed is closed. */
typedef struct rag_window rag_window;
typedef struct rag_window_opts {
	long count;               /* records a window; or */
	double seconds;           /* a window's length in the records' time */
	int fail_after, recover_after;   /* the alert fails after K failed windows in a row, and
	                                  * recovers after M passed ones (at least 1) */
	const rag_gate_opts *gate;       /* borrowed, for every window's gate */
} rag_window_opts;
/* "500" (records) or "90s", "15m", "1h", "1d" (time): 0 with one of *count and *seconds set,
 * or -1 and err. */
int rag_window_parse(const char *arg, long *count, double *seconds, char *err, size_t errlen);
/* An ISO 8601 time (2026-12-06T05:46:40.123Z, an offset, a date alone) in seconds since the
 * epoch; NAN when s is not one. */
double rag_window_time(const char *s);
rag_window *rag_window_new(const rag_window_opts *o);
/* One record (borrowed; where and unreadable as rag_gate_add's): the line of each window it
 * closes is appended to *out: {window (its number from 1), from, to (ISO; a count window's
 * first and last record times, null when they have none), records, late?, means: {metric:
 * mean}, pass_rate, pass, decision, exit_status, reason (rag_verdict's), checks (the gate's),
 * alert: "ok"|"failing", fired?: true (the alert turned failing at this window), recovered?:
 * true, error? (scores lost: no pass)}. */
void rag_window_add(rag_window *w, jv rec, const char *where, int unreadable, jv *out);
/* The stream has been idle for secs of wall time (rag-gate --idle): a time window's clock moves
 * on by secs of the records' time, and the open window, when the clock has passed its end, closes
 * with the very line a record of a later window would have closed it with (appended to *out);
 * a record that comes after for a window so closed is late. Nothing before the first record
 * with a time, nor for a count window (a count is no clock). */
void rag_window_idle(rag_window *w, double secs, jv *out);
/* The input's end: the open window's line, with complete: false, when it has records. */
void rag_window_end(rag_window *w, jv *out);
/* Whether the alert is failing now. */
int rag_window_failing(const rag_window *w);
void rag_window_free(rag_window *w);

/* ---------------------------------------------------------------- hints.c */
/* The failure hints of lang ("en", "zh"): <datadir>/hints/<lang>.txt, lines "METRIC: text" (or
 * "A+B: text", the advice when both fail), as an object KEY -> text. jv_invalid() and err when
 * the file cannot be read or an entry is malformed. */
jv rag_hints_load(const char *lang, char *err, size_t errlen);
/* summary (consumed, from rag_gate_summary) with "hints": [{metrics: [...], hint, key, kind?,
 * args?}] (key: the entry the hint is; args of an outage: {n, error}): an
 * outage first when a judge or the service failed (remote_failed), {metrics: [], kind: "outage",
 * hint: the entry outage or outage_service with {n} (or {records}: "2 records") the records and {error} the first
 * remote_error}; then, unless the outage left more than half of the run unscored, the metrics
 * whose gate failed (gate_failed): the advice for failures together first, then retrieval's
 * metrics, then the rest. hints borrowed. */
jv rag_hints_apply(jv summary, jv hints);
/* summary (consumed, rag_hints_apply's) with each hint said in lang too, from hints (borrowed,
 * rag_hints_load's of lang): "texts": {lang: text}, its key's entry with its args filled in,
 * for a page that shows it in its reader's language */
jv rag_hints_texts(jv summary, jv hints, const char *lang);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside stats.c and by tests/unit/t-stats.c: the generator's raw draws, checked
 * against xoshiro256**'s reference values. Static in the library (RAG_UNITTEST, base.h): declared
 * only when RAG_UNITTESTS is defined, as for the unit tests' build of the library (obj/libragu.a). */
#ifdef RAG_UNITTESTS
uint64_t rag_rng_next(rag_rng *r);
#endif /* RAG_UNITTESTS */

#endif
