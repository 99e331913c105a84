/* rubric.c - the rubric operation of rag-judge: score one record against one rubric (criteria,
 * evaluation steps, score descriptions) on the rubric's scale, with a reason.
 *
 * One prompt template (share/prompts/rubric.<lang>.txt) serves every rubric: the built-in ones
 * below and the custom ones of the configuration (rubrics.<name>) fill it with their texts. A
 * reply whose score is not on the scale (not a number, out of range, not an integer) or whose
 * reason is missing is re-asked once by rag_judge_ask, then an error: never a default score. */
#include "base.h"
#include "config.h"
#include "usage.h"
#include "record.h"
#include "llm.h"
#include "judge.h"
#include "metric.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------ the built-in rubrics */

typedef struct builtin {
	const char *name;
	int scale;
	const char *fields;       /* comma-separated */
	const char *criteria[2];  /* [en, zh] */
	const char *steps[2];     /* one a line, or NULL */
	const char *scores[2];    /* "score\tdescription" lines */
} builtin;

static const builtin builtins[] = {
	{"correctness", RAG_SCALE_0_10, "question,answer,reference",
	 {"Is the answer correct, compared with the reference answer? Take the reference as right and "
	  "judge the facts the answer states against it, not its style or length.",
	  "与参考答案相比，回答是否正确？以参考答案为准，对照它判断回答所陈述的事实，而不是文风或长短。"},
	 {"Note the key facts of the reference answer.\n"
	  "Compare each fact of the answer with them: the same, different, missing or contradicting.\n"
	  "Choose the band that fits, then the score within it.",
	  "列出参考答案的关键事实。\n"
	  "把回答中的每个事实与之对照：相同、不同、缺失还是矛盾。\n"
	  "选出相符的分数段，再在段内确定分数。"},
	 {"10\tequivalent to the reference: every key fact right, nothing contradicting it\n"
	  "7-9\tright, with minor differences (a detail missing or added, less precise wording)\n"
	  "4-6\tpartly right: some key facts right, others missing or wrong\n"
	  "1-3\tmostly wrong: few of the key facts right\n"
	  "0\tunrelated to the reference, or contradicting it",
	  "10\t与参考答案等价：关键事实全部正确，没有与之矛盾之处\n"
	  "7-9\t正确，但有细微差别（缺少或多出细节、措辞不够精确）\n"
	  "4-6\t部分正确：部分关键事实正确，其余缺失或错误\n"
	  "1-3\t大部分错误：只有少数关键事实正确\n"
	  "0\t与参考答案无关，或与之矛盾"}},
	{"relevance", RAG_SCALE_0_10, "question,answer",
	 {"Does the answer address the question that was asked? Deduct for answering another question, "
	  "for parts of the question left unanswered, and for padding (text that does not help answer "
	  "it). Whether the answer is true is not judged here.",
	  "回答是否针对所提的问题？答非所问、遗漏问题的部分、堆砌无助于回答的内容（凑字数）都要扣分。"
	  "这里不评判回答是否属实。"},
	 {"Find what the question asks, part by part.\n"
	  "Check which parts the answer addresses, and what in it answers nothing that was asked.\n"
	  "Score from how much of the question is answered, less for padding or another question.",
	  "逐项找出问题所问的内容。\n"
	  "检查回答回应了哪些部分，以及哪些内容与所问无关。\n"
	  "按回答覆盖问题的程度打分，有凑字数或答非所问时扣分。"},
	 {"10\taddresses the whole question directly, nothing beside the point\n"
	  "7-9\taddresses it, with a small part missing or a little padding\n"
	  "4-6\taddresses part of it, or buries the answer in padding\n"
	  "1-3\tmostly about something else\n"
	  "0\tdoes not address the question at all",
	  "10\t直接回答了整个问题，没有离题内容\n"
	  "7-9\t回答了问题，但缺少一小部分或略有堆砌\n"
	  "4-6\t只回答了一部分，或答案淹没在无关内容中\n"
	  "1-3\t大部分在讲别的事情\n"
	  "0\t完全没有回答这个问题"}},
	{"completeness", RAG_SCALE_0_10, "question,answer,reference",
	 {"Does the answer cover every point of the reference answer? A point stated in other words "
	  "counts as covered; what the answer adds beyond the reference is not penalised.",
	  "回答是否涵盖了参考答案的每一个要点？换一种说法表达的要点也算涵盖；回答在参考答案之外补充的内容不扣分。"},
	 {"List the points of the reference answer.\n"
	  "Mark each point covered or not covered by the answer.\n"
	  "Score from the share of points covered.",
	  "列出参考答案的各个要点。\n"
	  "逐一标出回答是否涵盖该要点。\n"
	  "按涵盖要点的比例打分。"},
	 {"10\tevery point of the reference covered\n"
	  "7-9\tall but a minor point covered\n"
	  "4-6\tabout half of the points covered\n"
	  "1-3\tfew of the points covered\n"
	  "0\tnone of the points covered",
	  "10\t涵盖了参考答案的全部要点\n"
	  "7-9\t只缺一个次要要点\n"
	  "4-6\t涵盖了大约一半的要点\n"
	  "1-3\t只涵盖了少数要点\n"
	  "0\t没有涵盖任何要点"}},
	{"groundedness_0_10", RAG_SCALE_0_10, "question,contexts,answer",
	 {"Is everything the answer states supported by the retrieved contexts alone? A statement not "
	  "found in the contexts counts against the answer even when it is true or common knowledge.",
	  "回答所陈述的一切是否都仅凭检索到的上下文即可得到支持？上下文中没有的陈述，即使属实或属于常识，也要扣分。"},
	 {"Split the answer into its statements.\n"
	  "For each, find whether the contexts state or directly imply it; use no outside knowledge.\n"
	  "Score from the share of statements supported; a statement that contradicts the contexts weighs most.",
	  "把回答拆分成各个陈述。\n"
	  "逐一判断上下文是否陈述或直接蕴含该陈述；不使用任何外部知识。\n"
	  "按得到支持的陈述比例打分；与上下文矛盾的陈述扣分最多。"},
	 {"10\tevery statement supported by the contexts\n"
	  "7-9\talmost every statement supported; a minor detail not in the contexts\n"
	  "4-6\tabout half of the statements supported\n"
	  "1-3\tmostly unsupported by the contexts\n"
	  "0\tnothing supported, or contradicting the contexts",
	  "10\t每个陈述都得到上下文支持\n"
	  "7-9\t几乎所有陈述都得到支持；有一个次要细节不在上下文中\n"
	  "4-6\t大约一半的陈述得到支持\n"
	  "1-3\t大部分陈述得不到上下文支持\n"
	  "0\t没有任何陈述得到支持，或与上下文矛盾"}},
	{"consistent", RAG_SCALE_YESNO, "question,contexts,answer",
	 {"Is the answer consistent with the question and the retrieved contexts: does it answer the "
	  "question that was asked, without contradicting the contexts?",
	  "回答是否与问题和检索到的上下文一致：它是否回答了所提的问题，且不与上下文矛盾？"},
	 {NULL, NULL},
	 {"yes\tit answers the question asked and agrees with the contexts\n"
	  "no\tit answers something else, or contradicts the contexts",
	  "yes\t回答了所提的问题，且与上下文一致\n"
	  "no\t回答的是别的问题，或与上下文矛盾"}},
};
#define NBUILTINS (sizeof builtins / sizeof builtins[0])

/* ------------------------------------------------------------------ a rubric */

struct rag_rubric {
	char *name;
	int scale;
	int builtin;
	char *criteria[2];
	rag_strv steps[2];
	rag_strv scores[2];       /* "score: description" lines */
	rag_strv fields;
};

const char *rag_rubric_builtins(void)
{
	return "correctness, relevance, completeness, groundedness_0_10, consistent";
}

static void split_lines(const char *text, rag_strv *out, int scores)
{
	const char *p = text, *e;
	if (!text) return;
	while (*p) {
		e = strchr(p, '\n');
		if (!e) e = p + strlen(p);
		if (scores) {
			const char *tab = memchr(p, '\t', (size_t)(e - p));
			rag_strv_push(out, rag_xasprintf("%.*s: %.*s", (int)(tab - p), p, (int)(e - tab - 1), tab + 1));
		} else {
			rag_strv_push(out, rag_xstrndup(p, (size_t)(e - p)));
		}
		p = *e ? e + 1 : e;
	}
}

rag_rubric *rag_rubric_get(const rag_config *cfg, const char *name, char *err, size_t errlen)
{
	rag_rubric *r;
	size_t i, k;
	int lg;
	for (i = 0; i < cfg->rubrics.n; i++) {
		const rag_rubric_conf *c = &cfg->rubrics.v[i];
		if (strcmp(c->name, name) != 0) continue;
		r = rag_xcalloc(1, sizeof *r);
		r->name = rag_xstrdup(name);
		r->scale = c->scale;
		for (lg = 0; lg < 2; lg++) {
			/* a custom rubric is written in one language: the prompt's frame is the record's */
			r->criteria[lg] = rag_xstrdup(c->criteria);
			for (k = 0; k < c->steps.n; k++) rag_strv_push(&r->steps[lg], rag_xstrdup(c->steps.v[k]));
			for (k = 0; k < c->nscores; k++)
				rag_strv_push(&r->scores[lg], rag_xasprintf("%s: %s", c->scores[k].key, c->scores[k].value));
		}
		if (c->fields.n) {
			for (k = 0; k < c->fields.n; k++) rag_strv_push(&r->fields, rag_xstrdup(rag_record_canonical(c->fields.v[k])));
		} else {
			rag_strv_push(&r->fields, rag_xstrdup("question"));
			rag_strv_push(&r->fields, rag_xstrdup("answer"));
		}
		return r;
	}
	for (i = 0; i < NBUILTINS; i++) {
		const builtin *b = &builtins[i];
		const char *p, *e;
		if (strcmp(b->name, name) != 0) continue;
		r = rag_xcalloc(1, sizeof *r);
		r->name = rag_xstrdup(name);
		r->scale = b->scale;
		r->builtin = 1;
		for (lg = 0; lg < 2; lg++) {
			r->criteria[lg] = rag_xstrdup(b->criteria[lg]);
			split_lines(b->steps[lg], &r->steps[lg], 0);
			split_lines(b->scores[lg], &r->scores[lg], 1);
		}
		for (p = b->fields; *p; p = *e ? e + 1 : e) {
			e = strchr(p, ',');
			if (!e) e = p + strlen(p);
			rag_strv_push(&r->fields, rag_xstrndup(p, (size_t)(e - p)));
		}
		return r;
	}
	rag_seterr(err, errlen, "unknown rubric \"%s\" (built in: %s; or define it under \"rubrics\" in rag.yaml)",
	           name, rag_rubric_builtins());
	return NULL;
}

void rag_rubric_free(rag_rubric *r)
{
	int lg;
	if (!r) return;
	free(r->name);
	for (lg = 0; lg < 2; lg++) {
		free(r->criteria[lg]);
		rag_strv_free(&r->steps[lg]);
		rag_strv_free(&r->scores[lg]);
	}
	rag_strv_free(&r->fields);
	free(r);
}

const char *rag_rubric_name(const rag_rubric *r) { return r->name; }
int rag_rubric_scale(const rag_rubric *r) { return r->scale; }
#ifdef RAG_UNITTESTS   /* only the unit tests call them */
RAG_UNITTEST size_t rag_rubric_nfields(const rag_rubric *r) { return r->fields.n; }
RAG_UNITTEST const char *rag_rubric_field(const rag_rubric *r, size_t i) { return i < r->fields.n ? r->fields.v[i] : NULL; }
#endif

/* ------------------------------------------------------------------ the record's inputs */

int rag_rubric_inputs(const rag_rubric *r, jv rec, jv *values, const char **na, char *err, size_t errlen)
{
	jv out = jv_array();
	size_t i;
	*na = NULL;
	*values = jv_null();
	for (i = 0; i < r->fields.n; i++) {
		const char *f = r->fields.v[i], *s;
		char why[RAG_ERRLEN];
		jv v;
		int missing;
		if (strcmp(f, "contexts") == 0) {
			jv c = rag_record_contexts(rec);
			if (!jv_is_valid(c)) {
				jv m = jv_invalid_get_msg(c);
				rag_seterr(err, errlen, "%s", jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "bad contexts");
				jv_free(m);
				jv_free(out);
				return -1;
			}
			out = jv_array_append(out, c);
			continue;
		}
		v = rag_record_get(rec, f);
		missing = !jv_is_valid(v) || jv_get_kind(v) == JV_KIND_NULL;
		jv_free(v);
		if (missing && strcmp(f, "reference") == 0) {
			/* correctness and completeness are defined against a reference: none, no metric */
			*na = "no reference answer";
			jv_free(out);
			return 1;
		}
		if (rag_record_need_text(rec, f, 0, &s, why, sizeof why) < 0) {
			rag_seterr(err, errlen, "%s (rubric \"%s\" reads it)", why, r->name);
			jv_free(out);
			return -1;
		}
		if (strcmp(f, "question") == 0) {
			/* a follow-up case: the judge reads the question after its earlier turns */
			char *inc = rag_record_question_in_context(rec, s);
			if (inc) {
				out = jv_array_append(out, jv_string(inc));
				free(inc);
				continue;
			}
		}
		out = jv_array_append(out, jv_string(s));
	}
	*values = out;
	return 0;
}

/* ------------------------------------------------------------------ the reply */

double rag_rubric_normalise(int scale, double s)
{
	switch (scale) {
	case RAG_SCALE_1_5: return (s - 1) / 4;
	case RAG_SCALE_YESNO: return s;
	default: return s / 10;
	}
}

/* yes / no as 1 / 0, or -1 */
static int yes_no(jv v)
{
	static const char *const yes[] = {"yes", "是"}, *const no[] = {"no", "否"};
	char buf[16];
	const char *s;
	size_t n, i;
	if (jv_get_kind(v) == JV_KIND_TRUE) return 1;
	if (jv_get_kind(v) == JV_KIND_FALSE) return 0;
	if (jv_get_kind(v) != JV_KIND_STRING) return -1;
	s = jv_string_value(v);
	while (*s == ' ') s++;
	n = strlen(s);
	while (n && s[n - 1] == ' ') n--;
	if (n >= sizeof buf) return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	for (i = 0; i < 2; i++) {
		if (strcasecmp(buf, yes[i]) == 0) return 1;
		if (strcasecmp(buf, no[i]) == 0) return 0;
	}
	return -1;
}

RAG_UNITTEST const char *rag_rubric_check(jv v, int scale, jv *result, char *problem, size_t plen)
{
	jv score, reason;
	double x = NAN;
	const char *p;
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return "expected an object with \"score\" and \"reason\"";
	}
	score = jv_object_get(jv_copy(v), jv_string("score"));
	reason = jv_object_get(v, jv_string("reason"));
	problem[0] = 0;
	if (!jv_is_valid(score) || jv_get_kind(score) == JV_KIND_NULL) {
		snprintf(problem, plen, "\"score\" is missing");
	} else if (scale == RAG_SCALE_YESNO) {
		int yn = yes_no(score);
		if (yn < 0) snprintf(problem, plen, "\"score\" must be \"yes\" or \"no\" on the scale yes/no");
		else x = yn;
	} else if (jv_get_kind(score) != JV_KIND_NUMBER) {
		snprintf(problem, plen, "\"score\" is %s, not a number on the scale %s", jv_kind_name(jv_get_kind(score)),
		         rag_config_scale_name(scale));
	} else {
		double lo = scale == RAG_SCALE_1_5 ? 1 : 0, hi = scale == RAG_SCALE_1_5 ? 5 : 10;
		x = jv_number_value(score);
		if (!isfinite(x) || x < lo || x > hi)
			snprintf(problem, plen, "\"score\" %.6g is out of the scale %s", x, rag_config_scale_name(scale));
		else if (x != floor(x))
			snprintf(problem, plen, "\"score\" %.6g is not an integer (the scale %s has integers)", x,
			         rag_config_scale_name(scale));
	}
	if (!problem[0]) {
		p = jv_get_kind(reason) == JV_KIND_STRING ? jv_string_value(reason) : "";
		while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
		if (!*p) snprintf(problem, plen, "\"reason\" is missing or empty: give the reason for the score");
	}
	if (problem[0]) {
		jv_free(score);
		jv_free(reason);
		return problem;
	}
	*result = JV_OBJECT(jv_string("score"), jv_number(x), jv_string("reason"), reason);
	jv_free(score);
	return NULL;
}

/* ------------------------------------------------------------------ the question */

static const struct {
	const char *steps, *scores, *none, *context, *colon, *score_form[3];
} labels[2] = {
	{"Evaluation steps:", "Score descriptions:", "(none)", "Context", ":",
	 {"<an integer from 0 to 10>", "<an integer from 1 to 5>", "\"yes\" or \"no\""}},
	{"评估步骤：", "评分说明：", "（无）", "上下文", "：",
	 {"<0 到 10 的整数>", "<1 到 5 的整数>", "\"yes\" 或 \"no\""}},
};

static const char *field_label(const char *f, int lg)
{
	static const char *const names[][3] = {
		{"question", "Question", "问题"},
		{"answer", "Answer", "回答"},
		{"reference", "Reference answer", "参考答案"},
		{"contexts", "Retrieved contexts", "检索到的上下文"},
	};
	size_t i;
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i][0], f) == 0) return names[i][1 + lg];
	return f;
}

/* QUESTION, ANSWER, ...: the field's name in capitals, other characters as "_" */
static char *block_tag(const char *f)
{
	char *t = rag_xstrdup(strcmp(f, "contexts") == 0 ? "CONTEXT" : f), *p;
	for (p = t; *p; p++) {
		if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
		else if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) *p = '_';
	}
	return t;
}

void rag_rubric_ask(rag_judge *j, const char *lang, const rag_rubric *r, jv values, int repeat,
                    rag_usage *usage, rag_judge_cb cb, void *arg)
{
	int lg = lang && strcmp(lang, "zh") == 0;
	rag_buf b = {0};
	jv texts = jv_array(), vars = jv_object();
	/* the judge keeps the hint for the re-ask: static text */
	static const char *const hints[3] = {
		"{\"score\": <an integer from 0 to 10>, \"reason\": \"...\"} with a score on the scale 0-10 and a reason",
		"{\"score\": <an integer from 1 to 5>, \"reason\": \"...\"} with a score on the scale 1-5 and a reason",
		"{\"score\": \"yes\" or \"no\", \"reason\": \"...\"} with a score on the scale yes/no and a reason",
	};
	char nonce[RAG_NONCE_LEN];
	size_t i;
	int k, n;

	/* the nonce from every record text the request carries */
	for (i = 0; i < r->fields.n; i++) {
		jv v = jv_array_get(jv_copy(values), (int)i);
		if (jv_get_kind(v) == JV_KIND_ARRAY) {
			n = jv_array_length(jv_copy(v));
			for (k = 0; k < n; k++) texts = jv_array_append(texts, jv_array_get(jv_copy(v), k));
			jv_free(v);
		} else {
			texts = jv_array_append(texts, v);
		}
	}
	rag_prompt_nonce(texts, nonce);
	jv_free(texts);

	for (i = 0; i < r->fields.n; i++) {
		const char *f = r->fields.v[i];
		jv v = jv_array_get(jv_copy(values), (int)i);
		char *tag = block_tag(f), *blk;
		rag_buf_addf(&b, "%s%s%s\n", i ? "\n" : "", field_label(f, lg), labels[lg].colon);
		if (jv_get_kind(v) == JV_KIND_ARRAY) {
			n = jv_array_length(jv_copy(v));
			if (n == 0) rag_buf_addf(&b, "%s\n", labels[lg].none);
			for (k = 0; k < n; k++) {
				jv s = jv_array_get(jv_copy(v), k);
				blk = rag_prompt_block(tag, nonce, jv_string_value(s));
				rag_buf_addf(&b, "%s%s %d%s\n%s\n", k ? "\n" : "", labels[lg].context, k + 1, labels[lg].colon, blk);
				free(blk);
				jv_free(s);
			}
		} else {
			blk = rag_prompt_block(tag, nonce, jv_string_value(v));
			rag_buf_addf(&b, "%s\n", blk);
			free(blk);
		}
		free(tag);
		jv_free(v);
	}
	jv_free(values);
	vars = jv_object_set(vars, jv_string("fields"), jv_string(b.p ? b.p : ""));
	rag_buf_free(&b);

	vars = jv_object_set(vars, jv_string("rubric"), jv_string(r->name));
	vars = jv_object_set(vars, jv_string("criteria"), jv_string(r->criteria[lg]));
	if (r->steps[lg].n) {
		rag_buf_addf(&b, "%s\n", labels[lg].steps);
		for (i = 0; i < r->steps[lg].n; i++) rag_buf_addf(&b, "%zu. %s\n", i + 1, r->steps[lg].v[i]);
		rag_buf_adds(&b, "\n");
	}
	vars = jv_object_set(vars, jv_string("steps"), jv_string(b.p ? b.p : ""));
	rag_buf_free(&b);
	if (r->scores[lg].n) {
		rag_buf_addf(&b, "%s\n", labels[lg].scores);
		for (i = 0; i < r->scores[lg].n; i++) rag_buf_addf(&b, "- %s\n", r->scores[lg].v[i]);
		rag_buf_adds(&b, "\n");
	}
	vars = jv_object_set(vars, jv_string("scores"), jv_string(b.p ? b.p : ""));
	rag_buf_free(&b);
	vars = jv_object_set(vars, jv_string("scale"), jv_string(rag_config_scale_name(r->scale)));
	vars = jv_object_set(vars, jv_string("score_form"), jv_string(labels[lg].score_form[r->scale]));
	rag_judge_ask_repeat(j, &rag_op_rubric, lang, vars, repeat, r->scale, hints[r->scale], usage, cb, arg);
}

/* ------------------------------------------------------------------ the verdict */

jv rag_rubric_verdict(const rag_rubric *r, const double *scores, int n, const char *reason, double threshold)
{
	double mean = 0, ss = 0;
	int i, above = 0, below = 0;
	jv v;
	for (i = 0; i < n; i++) mean += scores[i];
	mean /= n;
	v = JV_OBJECT(jv_string("score"), jv_number(mean), jv_string("scale"), jv_string(rag_config_scale_name(r->scale)),
	              jv_string("reason"), jv_string(reason ? reason : ""));
	/* a yes/no rubric passes on a yes; over repeats, on more yes than no */
	if (r->scale == RAG_SCALE_YESNO) v = jv_object_set(v, jv_string("pass"), jv_bool(mean > 0.5));
	if (n > 1) {
		jv reps = jv_array();
		for (i = 0; i < n; i++) {
			reps = jv_array_append(reps, jv_number(scores[i]));
			ss += (scores[i] - mean) * (scores[i] - mean);
		}
		v = jv_object_set(v, jv_string("repeats"), reps);
		v = jv_object_set(v, jv_string("stdev"), jv_number(sqrt(ss / (n - 1))));
		if (isnan(threshold) && r->scale == RAG_SCALE_YESNO) threshold = 1;
		if (!isnan(threshold)) {
			for (i = 0; i < n; i++) {
				if (rag_rubric_normalise(r->scale, scores[i]) >= threshold) above++;
				else below++;
			}
			v = jv_object_set(v, jv_string("flip"), jv_bool(above && below));
		}
	}
	return v;
}

/* 10 tokens, and 40 the score with its reason */
static double completion(int scale)
{
	(void)scale;
	return 10 + 40.0;
}

/* a number on the rubric's scale, or "yes" / "no" (rag_rubric_check checks which) */
const rag_op rag_op_rubric = {
	.name = "rubric",
	.reply = RAG_OP_JSON,
	.schema = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"score\",\"reason\"],"
	          "\"properties\":{\"score\":{\"type\":[\"number\",\"string\"]},\"reason\":{\"type\":\"string\"}}}",
	.check = rag_rubric_check,
	.completion = completion,
	.offline = RAG_OP_NO_OFFLINE,   /* rag-judge refuses without an endpoint: never a made-up score */
};
