/* eval-estimate.c - rag-eval --estimate: each stage run with --estimate on the test set's
 * records (stand-ins for the answers still to collect), summed. */
#include "eval.h"
#include "base.h"
#include "config.h"
#include "usage.h"
#include "record.h"
#include "stream.h"
#include "judge.h"
#include "gate.h"
#include "store.h"
#include "evalplan.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

/* The first stage of an estimate's pipelines: the test set as records (rag-eval --emit). */
static void add_emit(eval *e, rag_buf *b, const char *src)
{
	rag_evalplan_shq(b, e->self);
	rag_buf_addf(b, " --emit --format %s --run-id ", rag_testset_format_name(e->format));
	rag_evalplan_shq(b, e->run_id);
	if (e->done_before) {
		/* --resume: what is left to score */
		char *f = eval_path_in(e, "records.jsonl");
		rag_buf_adds(b, " --skip-done ");
		rag_evalplan_shq(b, f);
		free(f);
	}
	rag_buf_adds(b, " < ");
	rag_evalplan_shq(b, src);
}

/* A temporary file (made from tmpl) holding text: 0, or -1 with errno. */
static int write_tmp(char *tmpl, const char *text, size_t len)
{
	int fd = mkstemp(tmpl), e;
	if (fd < 0) return -1;
	if (rag_write_all(fd, text, len) < 0) {
		e = errno;
		close(fd);
		unlink(tmpl);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

/* --estimate with answers still to collect: the records the stages would see, into a temporary
 * file made from out (the caller unlinks it), each without an answer given one of the sizes rag
 * would collect: collect.expected_* from the config, or, with --sample N, the mean sizes of
 * the first N records collected for real (which those records keep). *info: what was stood in
 * and how, for the estimate's JSON. 0 or an exit status. */
static int standin(eval *e, const char *src, char *out, jv *info)
{
	rag_buf b = {0}, filled = {0};
	char *emitted, *collected = NULL, tmpl[] = "/tmp/rag-eval-sample-XXXXXX";
	rag_standin sz = {e->cli.cfg.collect.expected_answer_chars, e->cli.cfg.collect.expected_contexts,
	                  e->cli.cfg.collect.expected_context_chars}, sum = {0, 0, 0};
	long n = 0, sampled = 0, measured = 0, to_collect = 0, i;
	const char *p, *q;
	jv lines = jv_array(), got = jv_array();

	add_emit(e, &b, src);
	emitted = eval_capture(b.p, 0);
	rag_buf_free(&b);
	if (!emitted) {
		rag_msg(e->cli.prog, "error", "--estimate: the test set could not be read as records");
		jv_free(lines);
		jv_free(got);
		return RAG_EXIT_INTERNAL;
	}
	for (p = emitted; *p; p = *q ? q + 1 : q) {
		q = p + strcspn(p, "\n");
		if (q > p) lines = jv_array_append(lines, jv_string_sized(p, (int)(q - p)));
	}
	free(emitted);
	n = jv_array_length(jv_copy(lines));
	if (e->sample > 0 && n > 0) {
		/* the first N records, collected for real: the sizes of what the system answers */
		for (i = 0; i < n && i < e->sample; i++) {
			jv l = jv_array_get(jv_copy(lines), (int)i);
			rag_buf_adds(&b, jv_string_value(l));
			rag_buf_adds(&b, "\n");
			jv_free(l);
			sampled++;
		}
		if (write_tmp(tmpl, b.p, b.len) < 0) {
			rag_msg(e->cli.prog, "error", "cannot write a temporary file: %s", strerror(errno));
			rag_buf_free(&b);
			jv_free(lines);
			jv_free(got);
			return RAG_EXIT_INTERNAL;
		}
		rag_buf_free(&b);
		rag_evalplan_tool(&e->plan, &b, "rag-collect");
		rag_evalplan_common(&e->plan, &b);
		rag_buf_adds(&b, " < ");
		rag_evalplan_shq(&b, tmpl);
		/* a record the system failed (4) or that had no question (3) is measured out, not fatal */
		rag_buf_adds(&b, "; s=$?; [ $s -eq 0 ] || [ $s -eq 3 ] || [ $s -eq 4 ]");
		if (e->cli.verbose) rag_msg(e->cli.prog, "info", "estimate: %s", b.p);
		collected = eval_capture(b.p, 0);
		rag_buf_free(&b);
		unlink(tmpl);
		if (!collected) {
			rag_msg(e->cli.prog, "error", "--estimate --sample: rag-collect failed on the sample");
			jv_free(lines);
			jv_free(got);
			return RAG_EXIT_REMOTE;
		}
		for (p = collected; *p; p = *q ? q + 1 : q) {
			jv r;
			q = p + strcspn(p, "\n");
			if (q == p) continue;
			r = jv_parse_sized(p, (int)(q - p));
			if (jv_get_kind(r) == JV_KIND_OBJECT) rag_usage_standin_add(&sum, &measured, r);
			got = jv_array_append(got, jv_get_kind(r) == JV_KIND_OBJECT ? r : (jv_free(r), jv_null()));
		}
		free(collected);
		if (measured > 0) {
			rag_usage_standin_mean(&sum, measured);
			sz = sum;
		}
	}
	for (i = 0; i < n; i++) {
		jv l = jv_array_get(jv_copy(lines), (int)i), r = jv_parse(jv_string_value(l)), d;
		jv_free(l);
		if (jv_get_kind(r) != JV_KIND_OBJECT) {
			jv_free(r);
			continue;
		}
		if (!rag_record_str(r, "answer")) {
			jv c = i < sampled ? jv_array_get(jv_copy(got), (int)i) : jv_null();
			to_collect++;
			if (jv_get_kind(c) == JV_KIND_OBJECT && rag_record_str(c, "answer")) {
				jv_free(r);
				r = c;
			} else {
				jv_free(c);
				r = rag_usage_standin(r, &sz);
			}
		}
		d = jv_dump_string(r, 0);
		rag_buf_adds(&filled, jv_string_value(d));
		rag_buf_adds(&filled, "\n");
		jv_free(d);
	}
	jv_free(lines);
	jv_free(got);
	if (write_tmp(out, filled.p ? filled.p : "", filled.len) < 0) {
		rag_msg(e->cli.prog, "error", "cannot write a temporary file: %s", strerror(errno));
		rag_buf_free(&filled);
		return RAG_EXIT_INTERNAL;
	}
	rag_buf_free(&filled);
	if (!e->cli.quiet) {
		if (measured)
			rag_msg(e->cli.prog, "estimate", "rag-collect: %ld record%s to collect; the first %ld collected "
			        "(--sample: %ld request%s sent to the system under test), the others stood in at their "
			        "mean sizes: answers of %.0f characters, %.1f contexts of %.0f characters", to_collect,
			        to_collect == 1 ? "" : "s", sampled, sampled, sampled == 1 ? "" : "s", sz.answer_chars,
			        sz.contexts, sz.context_chars);
		else
			rag_msg(e->cli.prog, "estimate", "rag-collect: %ld record%s to collect (not sent, not priced: the "
			        "system under test); the stages after it see stand-ins%s: answers of %.0f characters, %.0f "
			        "contexts of %.0f characters (collect.expected_answer_chars, expected_contexts, "
			        "expected_context_chars)", to_collect, to_collect == 1 ? "" : "s",
			        sampled ? " (no record of the sample was collected)" : "", sz.answer_chars, sz.contexts,
			        sz.context_chars);
	}
	*info = JV_OBJECT(jv_string("tool"), jv_string("rag-collect"), jv_string("records"), jv_number((double)to_collect),
	                  jv_string("sampled"), jv_number((double)sampled),
	                  jv_string("sizes_from"), jv_string(measured ? "sample" : "config"),
	                  jv_string("answer_chars"), jv_number(sz.answer_chars), jv_string("contexts"), jv_number(sz.contexts),
	                  jv_string("context_chars"), jv_number(sz.context_chars));
	return 0;
}

/* What the stages would send, summed; their estimates, and the models the price table lacks. */
typedef struct est_total {
	double req, pc, pt, ct, cost, records;
	double kt;                /* the stages' cached_prefix_tokens */
	int priced;
	jv list, missing;
} est_total;

static void est_free(est_total *t)
{
	jv_free(t->list);
	jv_free(t->missing);
}

/* The test set on standard input into a temporary file made from tmpl, for each stage to read. */
static int stdin_copy(eval *e, char *tmpl)
{
	int fd = mkstemp(tmpl);
	if (fd < 0 || rag_write_all(fd, e->input ? e->input : "", e->input_len) < 0) {
		rag_msg(e->cli.prog, "error", "cannot write a temporary file: %s", strerror(errno));
		if (fd >= 0) close(fd), unlink(tmpl);
		return RAG_EXIT_INTERNAL;
	}
	close(fd);
	return 0;
}

/* Stage s run with --estimate on the records (filled: the stand-ins' file, else the test set
 * src as --emit gives it), after the offline claims and questions stages before it: *out its
 * estimate, with "stage". 0, or RAG_EXIT_INTERNAL after a message. */
static int stage_estimate(eval *e, int s, const char *src, const char *filled, jv *out)
{
	const rag_evalstage *st = rag_evalplan_stage(s);
	rag_buf b = {0};
	char *res;
	jv v, x;
	int t;
	if (filled) {
		rag_buf_adds(&b, "cat ");
		rag_evalplan_shq(&b, filled);
	} else {
		add_emit(e, &b, src);
	}
	for (t = 0; t < s; t++) {
		if (!e->plan.stage_on[t] || (t != RAG_EVAL_CLAIMS && t != RAG_EVAL_REVQ)) continue;
		rag_buf_adds(&b, " | ");
		rag_evalplan_tool(&e->plan, &b, rag_evalplan_stage(t)->tool);
		rag_evalplan_common(&e->plan, &b);
		rag_buf_adds(&b, " --judge offline 2>/dev/null");   /* its record errors: the stage estimated says them */
	}
	rag_buf_adds(&b, " | ");
	rag_evalplan_tool(&e->plan, &b, st->tool);
	rag_evalplan_common(&e->plan, &b);
	if (st->args) rag_buf_addf(&b, " %s", st->args);
	if (st->list && e->plan.stage_list[s].len) {
		rag_buf_addf(&b, " %s ", st->list);
		rag_evalplan_shq(&b, e->plan.stage_list[s].p);
	}
	rag_buf_adds(&b, " --estimate || [ $? -eq 3 ]");   /* bad records (3) are counted out, not fatal */
	if (e->cli.verbose) rag_msg(e->cli.prog, "info", "estimate: %s", b.p);
	res = eval_capture(b.p, 1);
	rag_buf_free(&b);
	v = res ? jv_parse(res) : jv_invalid();
	free(res);
	x = jv_get_kind(v) == JV_KIND_OBJECT ? jv_object_get(v, jv_string("estimate")) : (jv_free(v), jv_invalid());
	if (jv_get_kind(x) != JV_KIND_OBJECT) {
		rag_msg(e->cli.prog, "error", "--estimate: the stage %s%s%s gave no estimate", st->tool,
		        st->args ? " " : "", st->args ? st->args : "");
		jv_free(x);
		return RAG_EXIT_INTERNAL;
	}
	*out = jv_object_set(x, jv_string("stage"), st->args ? jv_string_fmt("%s %s", st->tool, st->args) : jv_string(st->tool));
	return 0;
}

/* A stage's estimate x (consumed) into the sums, and its line on stderr. */
static void est_add(eval *e, est_total *t, jv x)
{
	char stage[256];
	double c;
	t->req += rag_json_num(x, "requests");
	t->pc += rag_json_num(x, "prompt_chars");
	t->pt += rag_json_num(x, "prompt_tokens");
	t->ct += rag_json_num(x, "completion_tokens");
	if (rag_json_num(x, "cached_prefix_tokens") > 0) t->kt += rag_json_num(x, "cached_prefix_tokens");
	t->records = rag_json_num(x, "records");
	if (e->batch) {
		/* --batch: every request at the batch price, no provider's prefix cache counted on */
		char judge[256];
		const rag_config *cf = &e->cli.cfg;
		rag_price bp = rag_cost_batch_price(rag_cost_price_find(cf->prices.v, cf->prices.n,
		                                                        rag_json_str(x, "judge", judge, sizeof judge)));
		double bc = rag_cost_tokens(&bp, rag_json_num(x, "prompt_tokens"), 0, rag_json_num(x, "completion_tokens"));
		x = jv_object_set(x, jv_string("cost"), isnan(bc) ? jv_null() : jv_number(bc));
		x = jv_object_set(x, jv_string("priced_at"), jv_string("batch"));
	}
	c = rag_json_num(x, "cost");
	if (isnan(c)) {
		char judge[256];
		const char *j = rag_json_str(x, "judge", judge, sizeof judge), *colon = j ? strchr(j, ':') : NULL;
		t->priced = 0;
		if (j) t->missing = jv_object_set(t->missing, jv_string(colon ? colon + 1 : j), jv_true());
	} else {
		t->cost += c;
	}
	if (!e->cli.quiet) {
		char cs[128];
		if (isnan(c)) snprintf(cs, sizeof cs, "cost unknown (no %sprice)", e->batch ? "batch " : "");
		else snprintf(cs, sizeof cs, "cost %.6f %s%s", c, e->cli.cfg.prices.currency, e->batch ? " at the batch price" : "");
		rag_msg(e->cli.prog, "estimate", "%s: %.0f request%s, about %.0f prompt + %.0f completion tokens, %s",
		        rag_json_str(x, "stage", stage, sizeof stage), rag_json_num(x, "requests"),
		        rag_json_num(x, "requests") == 1 ? "" : "s", rag_json_num(x, "prompt_tokens"),
		        rag_json_num(x, "completion_tokens"), cs);
	}
	t->list = jv_array_append(t->list, x);
}

/* The total: its line on stderr, and the estimate's JSON (coll: rag-collect's stand-ins, or
 * invalid) on stdout. Consumes t's and coll. 0, or RAG_EXIT_INTERNAL. */
static int est_write(eval *e, est_total *t, jv coll, int have_filled)
{
	const char *cur = e->cli.cfg.prices.currency;
	double cap = e->cli.cfg.llm.max_cost;
	jv keys = jv_keys(jv_copy(t->missing)), o;
	rag_buf m = {0};
	int rc = 0;
	jv_array_foreach(keys, i, k) {
		rag_buf_addf(&m, "%sno %sprice for model %s", i ? "; " : "", e->batch ? "batch " : "", jv_string_value(k));
		jv_free(k);
	}
	jv_free(keys);
	if (!e->cli.quiet && cap > 0) {
		/* the spending cap: whether the run, as estimated, would reach it */
		if (!t->priced)
			rag_msg(e->cli.prog, "estimate", "the spending cap (llm.max_cost %g %s): unknown whether it would be "
			        "reached, the cost is unknown", cap, cur);
		else
			rag_msg(e->cli.prog, "estimate", "the spending cap (llm.max_cost %g %s) %s: the estimate is %.6f %s",
			        cap, cur, t->cost > cap ? "would be reached, records left unscored" : "would not be reached",
			        t->cost, cur);
	}
	if (!e->cli.quiet) {
		if (t->priced)
			rag_msg(e->cli.prog, "estimate", "total: %.0f records, %.0f requests, about %.0f prompt + %.0f completion "
			        "tokens, cost %.6f %s by the price table (an estimate: no request was sent to a judge; each stage "
			        "estimated from the test set's records%s)", t->records, t->req, t->pt, t->ct, t->cost, cur,
			        have_filled ? " and stand-ins for the answers to collect" : "");
		else
			rag_msg(e->cli.prog, "estimate", "total: %.0f records, %.0f requests, about %.0f prompt + %.0f completion "
			        "tokens, cost unknown: %s (an estimate: no request was sent to a judge; each stage estimated "
			        "from the test set's records%s)", t->records, t->req, t->pt, t->ct, m.p,
			        have_filled ? " and stand-ins for the answers to collect" : "");
	}
	o = JV_OBJECT(jv_string("tool"), jv_string("rag-eval"), jv_string("records"), jv_number(t->records),
	              jv_string("requests"), jv_number(t->req), jv_string("prompt_chars"), jv_number(t->pc),
	              jv_string("prompt_tokens"), jv_number(t->pt), jv_string("completion_tokens"), jv_number(t->ct),
	              jv_string("currency"), jv_string(cur));
	/* each stage's prefix repeated from its request before (not across stages) */
	o = jv_object_set(o, jv_string("cached_prefix_tokens"), jv_number(t->kt));
	o = jv_object_set(o, jv_string("cost"), t->priced ? jv_number(t->cost) : jv_null());
	if (e->batch) o = jv_object_set(o, jv_string("priced_at"), jv_string("batch"));
	if (!t->priced) o = jv_object_set(o, jv_string("message"), jv_string(m.p));
	if (cap > 0) {
		o = jv_object_set(o, jv_string("max_cost"), jv_number(cap));
		o = jv_object_set(o, jv_string("cap_reached"), t->priced ? jv_bool(t->cost > cap) : jv_null());
	}
	o = jv_object_set(o, jv_string("stages"), t->list);
	t->list = jv_invalid();
	if (jv_is_valid(coll)) o = jv_object_set(o, jv_string("collect"), coll);
	else jv_free(coll);
	rag_buf_free(&m);
	jv_free(t->missing);
	t->missing = jv_invalid();
	o = jv_dump_string(JV_OBJECT(jv_string("estimate"), o), 0);
	printf("%s\n", jv_string_value(o));
	jv_free(o);
	if (fflush(stdout) != 0) rc = RAG_EXIT_INTERNAL;
	return rc;
}

/* Each stage that asks a model, run with --estimate on the test set's records: what it would
 * send, summed. A stage after the first would see the records the earlier ones changed; those
 * are not there without sending, so each stage sees the test set's records, after the earlier
 * claims and questions stages ran with the offline judge (claims split locally, the answer as
 * its one pseudo-question), which sends nothing. With answers still to collect, the stages see
 * stand-ins for them (standin): rag-collect's calls are counted apart (the system under test is
 * no priced model). */
int eval_estimate(eval *e)
{
	char tmpl[] = "/tmp/rag-eval-estimate-XXXXXX", filled[] = "/tmp/rag-eval-standin-XXXXXX";
	const char *src = e->testset;
	est_total t = {0, 0, 0, 0, 0, 0, 0, 1, jv_array(), jv_object()};
	jv coll = jv_invalid(), x;
	int s, k, rc = 0, tmp = 0, have_filled = 0;

	if (!strcmp(e->testset, "-")) {
		if ((rc = stdin_copy(e, tmpl))) {
			est_free(&t);
			return rc;
		}
		src = tmpl;
		tmp = 1;
	}
	if (e->collect) {
		if ((rc = standin(e, src, filled, &coll))) {
			if (tmp) unlink(tmpl);
			est_free(&t);
			return rc;
		}
		have_filled = 1;
	} else if (e->sample && !e->cli.quiet) {
		rag_msg(e->cli.prog, "notice", "--sample: no answer to collect (collect: is not configured, or every "
		        "record has one): nothing sampled");
	}
	for (k = 0; (s = rag_evalplan_nth(k)) >= 0 && !rc; k++) {
		const rag_evalstage *st = rag_evalplan_stage(s);
		if (!e->plan.stage_on[s] || !st->jobs || s == RAG_EVAL_COLLECT) continue;
		if ((rc = stage_estimate(e, s, src, have_filled ? filled : NULL, &x))) break;
		est_add(e, &t, x);
	}
	if (tmp) unlink(tmpl);
	if (have_filled) unlink(filled);
	if (rc) {
		est_free(&t);
		jv_free(coll);
		return rc;
	}
	return est_write(e, &t, coll, have_filled);
}
