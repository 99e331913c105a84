/* t-rubric.c - rubric.c and the rubrics section of config.c: the reply check of every scale,
 * normalisation, the verdict of repeats (mean, sample stdev, flip), which rubric a name gives
 * (built-in, the config's, one that replaces a built-in), the inputs a rubric reads from a
 * record (not applicable without a reference, input errors), and rubric config errors. */
#include "base.h"
#include "config.h"
#include "metric.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static char problem[256];

/* The check of reply (JSON text) on scale: NULL and *score, *reason, or the problem. */
static const char *check(const char *reply, int scale, double *score, char *reason, size_t rlen)
{
	jv result = jv_null();
	const char *p = rag_rubric_check(jv_parse(reply), scale, &result, problem, sizeof problem);
	if (!p) {
		*score = rag_json_num(result, "score");
		rag_json_str(result, "reason", reason, rlen);
	}
	jv_free(result);
	return p;
}

static void test_check(void)
{
	double s = -1;
	char r[64];
	ok(!check("{\"score\": 7, \"reason\": \"close\"}", RAG_SCALE_0_10, &s, r, sizeof r) && s == 7 && !strcmp(r, "close"),
	   "0-10: 7 with a reason fits");
	ok(!check("{\"score\": 0, \"reason\": \"x\"}", RAG_SCALE_0_10, &s, r, sizeof r) && s == 0, "0-10: 0 fits");
	ok(!check("{\"score\": 10.0, \"reason\": \"x\"}", RAG_SCALE_0_10, &s, r, sizeof r) && s == 10, "0-10: 10.0 is the integer 10");
	is_str(check("{\"score\": 11, \"reason\": \"x\"}", RAG_SCALE_0_10, &s, r, sizeof r),
	       "\"score\" 11 is out of the scale 0-10", "0-10: 11 is out of range");
	is_str(check("{\"score\": 7.5, \"reason\": \"x\"}", RAG_SCALE_0_10, &s, r, sizeof r),
	       "\"score\" 7.5 is not an integer (the scale 0-10 has integers)", "0-10: 7.5 is not an integer");
	is_str(check("{\"score\": \"7\", \"reason\": \"x\"}", RAG_SCALE_0_10, &s, r, sizeof r),
	       "\"score\" is string, not a number on the scale 0-10", "0-10: \"7\" is text, not a number");
	is_str(check("{\"score\": null, \"reason\": \"x\"}", RAG_SCALE_0_10, &s, r, sizeof r), "\"score\" is missing",
	       "0-10: a null score is missing");
	is_str(check("{\"reason\": \"x\"}", RAG_SCALE_0_10, &s, r, sizeof r), "\"score\" is missing", "no score");
	is_str(check("{\"score\": 5}", RAG_SCALE_0_10, &s, r, sizeof r),
	       "\"reason\" is missing or empty: give the reason for the score", "no reason");
	is_str(check("{\"score\": 5, \"reason\": \" \\n\"}", RAG_SCALE_0_10, &s, r, sizeof r),
	       "\"reason\" is missing or empty: give the reason for the score", "a blank reason");
	is_str(check("{\"score\": 5, \"reason\": 3}", RAG_SCALE_0_10, &s, r, sizeof r),
	       "\"reason\" is missing or empty: give the reason for the score", "a reason that is not text");
	is_str(check("[5, \"x\"]", RAG_SCALE_0_10, &s, r, sizeof r), "expected an object with \"score\" and \"reason\"",
	       "not an object");
	is_str(check("{\"score\": 0, \"reason\": \"x\"}", RAG_SCALE_1_5, &s, r, sizeof r),
	       "\"score\" 0 is out of the scale 1-5", "1-5: 0 is out of range");
	ok(!check("{\"score\": 5, \"reason\": \"x\"}", RAG_SCALE_1_5, &s, r, sizeof r) && s == 5, "1-5: 5 fits");
	ok(!check("{\"score\": \"Yes\", \"reason\": \"x\"}", RAG_SCALE_YESNO, &s, r, sizeof r) && s == 1, "yes/no: \"Yes\" is 1");
	ok(!check("{\"score\": \"no\", \"reason\": \"x\"}", RAG_SCALE_YESNO, &s, r, sizeof r) && s == 0, "yes/no: \"no\" is 0");
	ok(!check("{\"score\": \"是\", \"reason\": \"x\"}", RAG_SCALE_YESNO, &s, r, sizeof r) && s == 1, "yes/no: 是 is 1");
	ok(!check("{\"score\": false, \"reason\": \"x\"}", RAG_SCALE_YESNO, &s, r, sizeof r) && s == 0, "yes/no: false is 0");
	is_str(check("{\"score\": 1, \"reason\": \"x\"}", RAG_SCALE_YESNO, &s, r, sizeof r),
	       "\"score\" must be \"yes\" or \"no\" on the scale yes/no", "yes/no: a number does not fit");
	is_str(check("{\"score\": \"maybe\", \"reason\": \"x\"}", RAG_SCALE_YESNO, &s, r, sizeof r),
	       "\"score\" must be \"yes\" or \"no\" on the scale yes/no", "yes/no: maybe does not fit");
}

static char err[RAG_ERRLEN];

static void test_verdict(void)
{
	rag_config cfg;
	rag_rubric *c, *y;
	double three[3] = {7, 8, 6}, same[3] = {5, 5, 5}, yn[3] = {1, 0, 1}, one[1] = {4};
	jv v, d;

	rag_config_defaults(&cfg);
	c = rag_rubric_get(&cfg, "correctness", err, sizeof err);
	y = rag_rubric_get(&cfg, "consistent", err, sizeof err);
	ok(c && y, "correctness and consistent are built in");
	is_num(rag_rubric_normalise(RAG_SCALE_0_10, 7), 0.7, 1e-15, "0-10: 7 is 0.7");
	is_num(rag_rubric_normalise(RAG_SCALE_1_5, 4), 0.75, 0, "1-5: 4 is 0.75");
	is_num(rag_rubric_normalise(RAG_SCALE_1_5, 1), 0, 0, "1-5: 1 is 0");
	is_num(rag_rubric_normalise(RAG_SCALE_YESNO, 1), 1, 0, "yes/no: yes is 1");

	v = rag_rubric_verdict(c, one, 1, "why", 0.5);
	d = jv_dump_string(v, JV_PRINT_SORTED);
	is_str(jv_string_value(d), "{\"reason\":\"why\",\"scale\":\"0-10\",\"score\":4}",
	       "one score: score, scale, reason; no repeats, stdev or flip");
	jv_free(d);
	v = rag_rubric_verdict(c, three, 3, "why", 0.75);
	d = jv_dump_string(jv_object_get(jv_copy(v), jv_string("repeats")), 0);
	is_str(jv_string_value(d), "[7,8,6]", "the repeats in order");
	jv_free(d);
	is_num(rag_json_num(v, "score"), 7, 0, "repeats 7, 8, 6: the mean 7");
	is_num(rag_json_num(v, "stdev"), 1, 0, "repeats 7, 8, 6: the sample stdev 1");
	ok(rag_json_true(v, "flip"), "repeats 0.7, 0.8, 0.6 against 0.75: a flip");
	jv_free(v);
	v = rag_rubric_verdict(c, three, 3, "why", 0.6);
	d = jv_object_get(jv_copy(v), jv_string("flip"));
	ok(jv_get_kind(d) == JV_KIND_FALSE, "against 0.6 (equal passes): no flip");
	jv_free(d);
	jv_free(v);
	v = rag_rubric_verdict(c, three, 3, "why", NAN);
	ok(!jv_object_has(jv_copy(v), jv_string("flip")), "no threshold: no flip field");
	jv_free(v);
	v = rag_rubric_verdict(c, same, 3, "why", 0.5);
	is_num(rag_json_num(v, "stdev"), 0, 0, "the same score three times: stdev 0");
	jv_free(v);
	v = rag_rubric_verdict(y, yn, 3, "why", NAN);
	ok(rag_json_true(v, "pass") && rag_json_true(v, "flip"), "yes, no, yes: pass (more yes), flip without a threshold");
	jv_free(v);
	v = rag_rubric_verdict(y, yn + 1, 2, "why", NAN);
	ok(!rag_json_true(v, "pass"), "no, yes: a tie does not pass");
	jv_free(v);
	rag_rubric_free(c);
	rag_rubric_free(y);
	rag_config_free(&cfg);
}

/* Load text as a config file: 0 or -1 with err. */
static int load_text(rag_config *c, const char *text)
{
	char path[] = "/tmp/t-rubric-XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("# cannot write %s\n", path);
		exit(1);
	}
	unsetenv("RAG_CONFIG");
	rc = rag_config_load(c, path, err, sizeof err);
	unlink(path);
	return rc;
}

/* The message for text, past "FILE:", or "" when it loads. */
static const char *fails(const char *text)
{
	rag_config c;
	const char *p;
	if (load_text(&c, text) == 0) {
		rag_config_free(&c);
		return "";
	}
	p = strchr(err, ':');
	return p ? p + 1 : err;
}

static void test_config(void)
{
	rag_config cfg;
	rag_rubric *r;
	jv rec, values;
	const char *na;

	is_int(load_text(&cfg, "rubrics:\n  tone:\n    criteria: Polite?\n    scale: 1-5\n"
	                       "    steps: [Read it., Judge it.]\n    fields: [response, notes]\n"
	                       "    scores:\n      1: rude\n      5: polite\n"
	                       "  correctness:\n    criteria: Ours.\n    scale: yes/no\n"), 0, "a rubrics section loads (%s)", err);
	is_int(cfg.rubrics.n, 2, "two rubrics");
	is_str(cfg.rubrics.v[0].name, "tone", "the first, by name");
	is_int(cfg.rubrics.v[0].scale, RAG_SCALE_1_5, "its scale");
	is_int(cfg.rubrics.v[0].steps.n, 2, "its steps");
	is_str(cfg.rubrics.v[0].scores[1].key, "5", "its scores, in file order");
	is_str(cfg.rubrics.v[0].scores[1].value, "polite", "and what they mean");
	r = rag_rubric_get(&cfg, "tone", err, sizeof err);
	is_int(rag_rubric_nfields(r), 2, "tone reads two fields");
	is_str(rag_rubric_field(r, 0), "answer", "a RAGAS name (response) is read as ours (answer)");
	rec = jv_parse("{\"response\": \"Fine.\", \"notes\": \"n\"}");
	is_int(rag_rubric_inputs(r, rec, &values, &na, err, sizeof err), 0, "tone's inputs from a record with both");
	jv_free(values);
	jv_free(rec);
	rec = jv_parse("{\"answer\": \"Fine.\", \"notes\": 3}");
	is_int(rag_rubric_inputs(r, rec, &values, &na, err, sizeof err), -1, "a field that is not a string");
	is_str(err, "field \"notes\" is number, not a string (rubric \"tone\" reads it)", "names the field, its type and the rubric");
	jv_free(rec);
	rag_rubric_free(r);
	r = rag_rubric_get(&cfg, "correctness", err, sizeof err);
	is_int(rag_rubric_scale(r), RAG_SCALE_YESNO, "a config rubric of a built-in's name replaces it");
	rag_rubric_free(r);
	ok(!rag_rubric_get(&cfg, "nope", err, sizeof err), "an unknown rubric");
	is_str(err, "unknown rubric \"nope\" (built in: correctness, relevance, completeness, groundedness_0_10, "
	       "consistent; or define it under \"rubrics\" in rag.yaml)", "its message lists the built-in ones");
	rag_config_free(&cfg);

	rag_config_defaults(&cfg);
	r = rag_rubric_get(&cfg, "completeness", err, sizeof err);
	rec = jv_parse("{\"question\": \"Q\", \"answer\": \"A\"}");
	is_int(rag_rubric_inputs(r, rec, &values, &na, err, sizeof err), 1, "completeness without a reference: not applicable");
	is_str(na, "no reference answer", "the reason");
	jv_free(rec);
	rag_rubric_free(r);
	r = rag_rubric_get(&cfg, "groundedness_0_10", err, sizeof err);
	rec = jv_parse("{\"question\": \"Q\", \"answer\": \"A\", \"contexts\": [{\"text\": \"C1\"}, \"C2\"]}");
	is_int(rag_rubric_inputs(r, rec, &values, &na, err, sizeof err), 0, "groundedness reads the contexts");
	{
		jv d = jv_dump_string(jv_copy(values), 0);
		is_str(jv_string_value(d), "[\"Q\",[\"C1\",\"C2\"],\"A\"]", "question, contexts (as texts), answer");
		jv_free(d);
	}
	jv_free(values);
	jv_free(rec);
	rec = jv_parse("{\"question\": \"Q\", \"answer\": \"A\"}");
	is_int(rag_rubric_inputs(r, rec, &values, &na, err, sizeof err), -1, "no contexts: an input error, not n/a");
	jv_free(rec);
	rag_rubric_free(r);
	rag_config_free(&cfg);

	is_str(fails("rubrics:\n  x:\n    scale: 1-5\n"), "2:3: rubric \"x\" has no \"criteria\": say what the judge is to assess",
	       "no criteria");
	is_str(fails("rubrics:\n  x: just text\n"),
	       "2:6: rubric \"x\" must be a mapping (criteria, scale, steps, fields, scores), not a scalar", "not a mapping");
	is_str(fails("rubrics:\n  x:\n    criteria: c\n    scale: 0-100\n"),
	       "4:12: \"scale\" of rubric \"x\" must be one of 0-10, 1-5, yes/no, not \"0-100\"", "a bad scale");
	is_str(fails("rubrics:\n  x:\n    criteria: c\n    scale: yes/no\n    scores: {yes: a, maybe: b}\n"),
	       "5:22: score \"maybe\" of rubric \"x\" is not on its scale yes/no", "a score off a yes/no scale");
	is_str(fails("rubrics:\n  x:\n    criteria: c\n    scores: {11: a}\n"),
	       "4:14: score \"11\" of rubric \"x\" is not on its scale 0-10", "a score off the default 0-10 scale");
	is_str(fails("rubrics:\n  x:\n    criteria: c\n    stepz: [a]\n"),
	       "4:5: unknown key \"stepz\" in rubric \"x\" (did you mean \"steps\"?)", "a typo, with a hint");
	is_str(fails("rubrics:\n  x:\n    criteria: c\n    criteria: d\n"),
	       "4:5: duplicate key \"criteria\" in rubric \"x\"", "a duplicate key");
	is_str(fails("rubrics:\n  x:\n    criteria: [a, b]\n"),
	       "3:15: \"criteria\" of rubric \"x\" must be a single value, not a list", "criteria as a list");
	is_str(fails("rubrics:\n  x:\n    criteria: c\n    fields: [answer, \"\"]\n"),
	       "4:13: \"fields\" of rubric \"x\" holds an empty string", "an empty field name");
	is_str(fails("rubrics:\n  x.y:\n    criteria: c\n"),
	       "2:3: rubric name \"x.y\" must be 1-64 letters, digits, \"_\" or \"-\"", "a name with a dot");
	is_str(fails("rubrics:\n  x:\n    criteria: ${T_RUBRIC_UNSET}\n"),
	       "3:15: environment variable \"T_RUBRIC_UNSET\" is not set (used in \"criteria\")", "${VAR} expands, unset is an error");
}

int main(void)
{
	test_check();
	test_verdict();
	test_config();
	is_int(rag_config_scale_parse("1-5"), RAG_SCALE_1_5, "rag_config_scale_parse 1-5");
	is_int(rag_config_scale_parse("1-10"), -1, "rag_config_scale_parse: an unknown scale");
	is_str(rag_config_scale_name(RAG_SCALE_YESNO), "yes/no", "rag_config_scale_name");
	return done_testing();
}
