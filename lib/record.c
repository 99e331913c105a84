/* record.c - the record schema: field aliases, contexts, results, errors. */
#include "base.h"
#include "usage.h"
#include "record.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The record format's field names, and the other names each is known by: RAGAS's (0.1 and
 * 0.2+), the camelCase of a Java or JavaScript test set (a Spring AI or LangChain4j sample class
 * serialised as it is), and the names other evaluation tools use. This is the one table: field
 * access (rag_record_get), a test set's records (rag_record_normalize), the CSV columns that hold
 * JSON and the did-you-mean check all read it. Ours first; then, when ours is absent, the first
 * alias the record has. */
#define MAX_ALIASES 10
static const struct field {
	const char *name;
	const char *alias[MAX_ALIASES];
} fields[] = {
	{"id", {"sampleId", "sample_id", "caseId", "case_id", "questionId", "question_id", "testId", "test_id"}},
	{"question", {"user_input", "userInput", "query"}},
	{"answer", {"response", "actualAnswer", "actual_answer", "actualOutput", "actual_output"}},
	{"contexts", {"retrieved_contexts", "retrievedContexts", "retrieval_context", "retrievalContext"}},
	{"context_ids", {"contextIds", "retrieved_context_ids", "retrievedContextIds", "retrievedIds", "retrieved_ids",
	                 "retrievedDocIds", "retrieved_doc_ids"}},
	{"reference", {"ground_truth", "groundTruth", "referenceAnswer", "reference_answer", "expectedAnswer",
	               "expected_answer", "expectedOutput", "expected_output"}},
	{"reference_contexts", {"referenceContexts"}},
	{"relevant_ids", {"relevantIds", "relevantDocIds", "relevant_doc_ids", "relevantDocumentIds",
	                  "relevant_document_ids", "reference_context_ids", "referenceContextIds"}},
	{"category", {0}},
	{"expect", {0}},
	{"history", {0}},
	{"keywords", {0}},
	{"must_contain", {"mustContain"}},
	{"must_not_contain", {"mustNotContain"}},
	{"must_match", {"mustMatch"}},
	{"must_not_match", {"mustNotMatch"}},
	{"lang", {0}},
	{"system", {0}},
	{"difficulty", {0}},
	{"type", {0}},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

/* What the tools write into a record: known, so never "did you mean", and never suggested. */
static const char *const written[] = {
	"claims", "verdicts", "scores", "parts", "errors", "errors_input", "usage", "run_id", "questions",
	"reasons", "similarities", "not_applicable", "sources", "source", "generator", "kind", "variant_of",
	"latency_ms", NULL
};

/* the table's row for name (ours or an alias), or NULL */
static const struct field *row_of(const char *name)
{
	size_t i, k;
	for (i = 0; i < NFIELDS; i++) {
		if (!strcmp(name, fields[i].name)) return &fields[i];
		for (k = 0; k < MAX_ALIASES && fields[i].alias[k]; k++)
			if (!strcmp(name, fields[i].alias[k])) return &fields[i];
	}
	return NULL;
}

const char *rag_record_canonical(const char *field)
{
	const struct field *f = row_of(field);
	return f ? f->name : field;
}

#ifdef RAG_UNITTESTS   /* only the unit tests call it */
RAG_UNITTEST int rag_record_is_field(const char *name)
{
	return row_of(name) != NULL;
}
#endif

RAG_UNITTEST int rag_record_known(const char *name)
{
	size_t i;
	if (row_of(name)) return 1;
	for (i = 0; written[i]; i++)
		if (!strcmp(name, written[i])) return 1;
	return 0;
}

jv rag_record_get(jv rec, const char *field)
{
	const struct field *f;
	jv v;
	size_t k;
	if (jv_get_kind(rec) != JV_KIND_OBJECT) return jv_invalid();
	if (!(f = row_of(field))) return jv_object_get(jv_copy(rec), jv_string(field));
	v = jv_object_get(jv_copy(rec), jv_string(f->name));
	for (k = 0; !jv_is_valid(v) && k < MAX_ALIASES && f->alias[k]; k++) {
		jv_free(v);
		v = jv_object_get(jv_copy(rec), jv_string(f->alias[k]));
	}
	return v;
}

jv rag_record_normalize(jv rec)
{
	size_t i, k;
	if (jv_get_kind(rec) != JV_KIND_OBJECT) return rec;
	for (i = 0; i < NFIELDS; i++) {
		if (jv_object_has(jv_copy(rec), jv_string(fields[i].name))) continue;
		for (k = 0; k < MAX_ALIASES && fields[i].alias[k]; k++) {
			jv v = jv_object_get(jv_copy(rec), jv_string(fields[i].alias[k]));
			if (jv_is_valid(v)) {
				rec = jv_object_delete(rec, jv_string(fields[i].alias[k]));
				rec = jv_object_set(rec, jv_string(fields[i].name), v);
				break;
			}
			jv_free(v);
		}
	}
	return rec;
}

/* ---------------------------------------------------------------- did you mean */

/* name folded for comparing: ASCII lower case, without '_', '-' and ' ' (referenceAnswer,
 * reference_answer and Reference-Answer fold alike); at most n - 1 bytes */
static size_t fold(const char *name, char *out, size_t n)
{
	size_t j = 0;
	for (; *name && j + 1 < n; name++) {
		if (*name == '_' || *name == '-' || *name == ' ') continue;
		out[j++] = (char)(*name >= 'A' && *name <= 'Z' ? *name - 'A' + 'a' : *name);
	}
	out[j] = 0;
	return j;
}

/* Levenshtein distance of a[0..m) and b[0..n), both at most 63 bytes */
static size_t distance(const char *a, size_t m, const char *b, size_t n)
{
	size_t row[64], i, j;
	for (j = 0; j <= n; j++) row[j] = j;
	for (i = 1; i <= m; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (j = 1; j <= n; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best) best = up + 1;
			if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[n];
}

/* how far a name of folded length n may be from a known one: a short name one edit from a
 * known one is as likely a field of the user's own (question_zh, hang beside lang), so only a
 * long one gets two edits, and one under 5 letters matches only when it folds to the same
 * (ID, Lang) */
static size_t allowed(size_t n)
{
	return n >= 12 ? 2 : n >= 5 ? 1 : 0;
}

static void nearer(const char *name, const char *fname, size_t fn, const char **best, size_t *bestd)
{
	char f[64];
	size_t n = fold(name, f, sizeof f), d;
	if (n > fn + 2 || fn > n + 2) return;
	d = distance(fname, fn, f, n);
	if (d < *bestd) {
		*best = name;
		*bestd = d;
	}
}

RAG_UNITTEST const char *rag_record_suggest(const char *field)
{
	char f[64];
	const char *best = NULL;
	size_t n, i, k, bestd;
	if (rag_record_known(field) || strlen(field) >= sizeof f) return NULL;
	n = fold(field, f, sizeof f);
	bestd = allowed(n) + 1;
	for (i = 0; i < NFIELDS; i++) {
		nearer(fields[i].name, f, n, &best, &bestd);
		for (k = 0; k < MAX_ALIASES && fields[i].alias[k]; k++) nearer(fields[i].alias[k], f, n, &best, &bestd);
	}
	return best;
}

jv rag_record_near_misses(jv rec, jv *seen)
{
	jv out = jv_array();
	if (jv_get_kind(rec) != JV_KIND_OBJECT) return out;
	jv_object_foreach(rec, k, v) {
		/* each name decided once: a test set repeats its names on every record */
		if (!jv_object_has(jv_copy(*seen), jv_copy(k))) {
			const char *near = rag_record_suggest(jv_string_value(k));
			if (near) out = jv_array_append(out, JV_ARRAY(jv_copy(k), jv_string(near)));
			*seen = jv_object_set(*seen, jv_copy(k), jv_true());
		}
		jv_free(k);
		jv_free(v);
	}
	return out;
}

/* ---------------------------------------------------------------- fields: a mapping */

struct rag_fieldmap {
	struct mapped {
		const char *field;    /* ours, static */
		char *where;          /* as the user wrote it, for messages: "fields.reference" */
		rag_jq *jq;
	} *v;
	size_t n;
};

rag_fieldmap *rag_fieldmap_new(void)
{
	return rag_xcalloc(1, sizeof(rag_fieldmap));
}

int rag_fieldmap_add(rag_fieldmap *m, const char *field, const char *prog, const char *where, char *err, size_t errlen)
{
	const struct field *f = row_of(field);
	char msg[RAG_ERRLEN];
	rag_jq *q;
	size_t i;
	if (!f) {
		rag_buf b = {0};
		for (i = 0; i < NFIELDS; i++) rag_buf_addf(&b, "%s%s", i ? ", " : "", fields[i].name);
		rag_seterr(err, errlen, "%s: \"%s\" is not a field of the record format (%s)", where, field, b.p);
		rag_buf_free(&b);
		return -1;
	}
	if (!(q = rag_jq_new(prog, msg, sizeof msg))) {
		rag_seterr(err, errlen, "%s: %s", where, msg);
		return -1;
	}
	/* the same field named again (--field over the configuration's): the later one */
	for (i = 0; i < m->n && m->v[i].field != f->name; i++)
		;
	if (i == m->n) m->v = rag_xrealloc(m->v, ++m->n * sizeof *m->v);
	else {
		rag_jq_free(m->v[i].jq);
		free(m->v[i].where);
	}
	m->v[i].field = f->name;
	m->v[i].where = rag_xstrdup(where);
	m->v[i].jq = q;
	return 0;
}

#ifdef RAG_UNITTESTS   /* only the unit tests call it */
RAG_UNITTEST size_t rag_fieldmap_count(const rag_fieldmap *m)
{
	return m ? m->n : 0;
}
#endif

int rag_fieldmap_apply(rag_fieldmap *m, jv *rec, char *err, size_t errlen)
{
	char msg[RAG_ERRLEN];
	size_t i;
	jv in;
	if (!m || !m->n || jv_get_kind(*rec) != JV_KIND_OBJECT) return 0;
	in = jv_copy(*rec);    /* every program reads the record as it came */
	for (i = 0; i < m->n; i++) {
		jv v;
		int got = rag_jq_first(m->v[i].jq, jv_copy(in), &v, msg, sizeof msg);
		if (got < 0) {
			rag_seterr(err, errlen, "%s: %s", m->v[i].where, msg);
			jv_free(v);
			jv_free(in);
			return -1;
		}
		/* a record the program finds nothing in keeps what it has: absent is not applicable */
		if (got && jv_get_kind(v) != JV_KIND_NULL) *rec = jv_object_set(*rec, jv_string(m->v[i].field), v);
		else jv_free(v);
	}
	jv_free(in);
	return 0;
}

void rag_fieldmap_free(rag_fieldmap *m)
{
	size_t i;
	if (!m) return;
	for (i = 0; i < m->n; i++) {
		free(m->v[i].where);
		rag_jq_free(m->v[i].jq);
	}
	free(m->v);
	free(m);
}

int rag_record_has_nul(jv s)
{
	return jv_get_kind(s) == JV_KIND_STRING &&
	       strlen(jv_string_value(s)) != (size_t)jv_string_length_bytes(jv_copy(s));
}

int rag_record_text(jv rec, const char *field, const char **s, char *err, size_t errlen)
{
	jv v = rag_record_get(rec, field);
	int rc = 0;
	*s = NULL;
	if (rag_record_has_nul(v)) {
		snprintf(err, errlen, "field \"%s\" contains a NUL character (\\u0000)", field);
		rc = -1;
	} else if (jv_get_kind(v) == JV_KIND_STRING) {
		*s = jv_string_value(v);    /* lives inside rec, as in rag_record_str */
	}
	jv_free(v);
	return rc;
}

char *rag_record_id(jv rec)
{
	jv id = rag_json_get(jv_copy(rec), "id");
	char *s = rag_json_id(id);
	jv_free(id);
	return s;
}

int rag_record_need_text(jv rec, const char *field, int flags, const char **s, char *err, size_t errlen)
{
	jv v = rag_record_get(rec, field);
	jv_kind k = jv_get_kind(v);
	const char *name = rag_record_canonical(field);
	jv_free(v);
	*s = NULL;
	if ((flags & RAG_FIELD_OPTIONAL) && (k == JV_KIND_INVALID || k == JV_KIND_NULL)) return 0;
	if (k == JV_KIND_INVALID) {
		rag_seterr(err, errlen, "record has no \"%s\" field", name);
		return -1;
	}
	if (k != JV_KIND_STRING) {
		rag_seterr(err, errlen, "field \"%s\" is %s, not a string", name, jv_kind_name(k));
		return -1;
	}
	if (rag_record_text(rec, field, s, err, errlen) < 0) {
		rag_seterr(err, errlen, "field \"%s\" contains a NUL character (\\u0000)", name);
		return -1;
	}
	if ((flags & RAG_FIELD_NONEMPTY) && !**s) {
		rag_seterr(err, errlen, "field \"%s\" is empty", name);
		*s = NULL;
		return -1;
	}
	return 0;
}

const char *rag_record_str(jv rec, const char *field)
{
	jv v = rag_record_get(rec, field);
	const char *s = NULL;
	/* The value lives inside rec, which holds a reference; the copy we got can go. */
	if (jv_get_kind(v) == JV_KIND_STRING) s = jv_string_value(v);
	jv_free(v);
	return s;
}

jv rag_record_claims(jv rec, const char *field, int *state)
{
	jv all = jv_object_get(jv_copy(rec), jv_string("claims")), c;
	int i, n;
	*state = RAG_CLAIMS_BAD;
	if (jv_get_kind(all) == JV_KIND_OBJECT) {
		c = jv_object_get(all, jv_string(field));
	} else {
		jv_free(all);
		c = jv_invalid();
	}
	if (!jv_is_valid(c)) {
		jv_free(c);
		*state = RAG_CLAIMS_ABSENT;
		return jv_invalid_with_msg(jv_string_fmt("record has no claims.%s: run rag-claims%s first", field,
		                                         strcmp(field, "answer") ? " --from reference" : ""));
	}
	if (jv_get_kind(c) == JV_KIND_NULL) {
		*state = RAG_CLAIMS_FAILED;
		return jv_invalid_with_msg(jv_string_fmt("claims.%s is null: the claims stage failed for this record", field));
	}
	if (jv_get_kind(c) != JV_KIND_ARRAY) {
		const char *k = jv_kind_name(jv_get_kind(c));
		jv_free(c);
		return jv_invalid_with_msg(jv_string_fmt("claims.%s is %s, not an array", field, k));
	}
	n = jv_array_length(jv_copy(c));
	for (i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(c), i);
		int ok = jv_get_kind(s) == JV_KIND_STRING, nul = rag_record_has_nul(s);
		jv_free(s);
		if (!ok) {
			jv_free(c);
			return jv_invalid_with_msg(jv_string_fmt("claims.%s[%d] is not a string", field, i));
		}
		if (nul) {
			jv_free(c);
			return jv_invalid_with_msg(jv_string_fmt("claims.%s[%d] contains a NUL character (\\u0000)", field, i));
		}
	}
	*state = RAG_CLAIMS_OK;
	return c;
}

jv rag_record_contexts(jv rec)
{
	jv ctx = rag_record_get(rec, "contexts"), out;
	int i, n;
	if (!jv_is_valid(ctx)) {
		jv_free(ctx);
		return jv_invalid_with_msg(jv_string("record has no \"contexts\" field"));
	}
	if (jv_get_kind(ctx) == JV_KIND_STRING) {
		/* a single context given as a string is common enough to accept */
		if (rag_record_has_nul(ctx)) {
			jv_free(ctx);
			return jv_invalid_with_msg(jv_string("field \"contexts\" contains a NUL character (\\u0000)"));
		}
		return JV_ARRAY(ctx);
	}
	if (jv_get_kind(ctx) != JV_KIND_ARRAY) {
		const char *k = jv_kind_name(jv_get_kind(ctx));
		jv_free(ctx);
		return jv_invalid_with_msg(jv_string_fmt("field \"contexts\" is %s, not an array", k));
	}
	out = jv_array();
	n = jv_array_length(jv_copy(ctx));
	for (i = 0; i < n; i++) {
		jv c = jv_array_get(jv_copy(ctx), i);
		if (jv_get_kind(c) == JV_KIND_OBJECT) {
			jv t = jv_object_get(c, jv_string("text"));
			if (jv_get_kind(t) != JV_KIND_STRING) {
				jv_free(t);
				jv_free(out);
				jv_free(ctx);
				return jv_invalid_with_msg(jv_string_fmt("contexts[%d] has no string \"text\"", i));
			}
			c = t;
		}
		if (jv_get_kind(c) != JV_KIND_STRING) {
			const char *k = jv_kind_name(jv_get_kind(c));
			jv msg = jv_string_fmt("contexts[%d] is %s, not a string or an object with \"text\"", i, k);
			jv_free(c);
			jv_free(out);
			jv_free(ctx);
			return jv_invalid_with_msg(msg);
		}
		if (rag_record_has_nul(c)) {
			jv_free(c);
			jv_free(out);
			jv_free(ctx);
			return jv_invalid_with_msg(jv_string_fmt("contexts[%d] contains a NUL character (\\u0000)", i));
		}
		out = jv_array_append(out, c);
	}
	jv_free(ctx);
	return out;
}

static jv error_entry(const char *tool, const char *metric, const char *msg)
{
	jv e = jv_object();
	e = jv_object_set(e, jv_string("tool"), jv_string(tool));
	if (metric) e = jv_object_set(e, jv_string("metric"), jv_string(metric));
	e = jv_object_set(e, jv_string("message"), jv_string(msg));
	return e;
}

jv rag_record_add_error(jv rec, jv entry)
{
	jv errs;
	if (jv_get_kind(rec) != JV_KIND_OBJECT) {
		jv_free(rec);
		rec = jv_object();
	}
	errs = jv_object_get(jv_copy(rec), jv_string("errors"));
	if (jv_get_kind(errs) != JV_KIND_ARRAY) {
		/* a foreign "errors" that is not our array is kept, not clobbered */
		if (jv_is_valid(errs) && jv_get_kind(errs) != JV_KIND_NULL)
			rec = jv_object_set(rec, jv_string("errors_input"), errs);
		else
			jv_free(errs);
		errs = jv_array();
	}
	errs = jv_array_append(errs, entry);
	return jv_object_set(rec, jv_string("errors"), errs);
}

jv rag_record_error(jv rec, const char *tool, const char *metric, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	jv e;
	va_start(ap, fmt);
	msg = rag_xvasprintf(fmt, ap);
	va_end(ap);
	e = error_entry(tool, metric, msg);
	free(msg);
	return rag_record_add_error(rec, e);
}

jv rag_record_set(jv rec, const char *section, const char *name, jv value)
{
	jv sec = jv_object_get(jv_copy(rec), jv_string(section));
	if (jv_get_kind(sec) != JV_KIND_OBJECT) {
		jv_free(sec);
		sec = jv_object();
	}
	sec = jv_object_set(sec, jv_string(name), value);
	return jv_object_set(rec, jv_string(section), sec);
}

jv rag_record_usage(jv rec, const char *tool, const char *stage, const rag_usage *u, const char *judge)
{
	jv all = jv_object_get(jv_copy(rec), jv_string("usage")), mine;
	mine = jv_get_kind(all) == JV_KIND_OBJECT ? jv_object_get(all, jv_string(tool)) : (jv_free(all), jv_invalid());
	/* an entry of the flat shape, {"judge": ...}, is one run of a whole tool: this run replaces it */
	if (jv_get_kind(mine) == JV_KIND_OBJECT) {
		jv j = jv_object_get(jv_copy(mine), jv_string("judge"));
		if (jv_get_kind(j) == JV_KIND_STRING) {
			jv_free(mine);
			mine = jv_invalid();
		}
		jv_free(j);
	}
	if (jv_get_kind(mine) != JV_KIND_OBJECT) {
		jv_free(mine);
		mine = jv_object();
	}
	mine = jv_object_set(mine, jv_string(stage), rag_usage_json(u, judge));
	return rag_record_set(rec, "usage", tool, mine);
}

/* ---------------------------------------------------------------- hard cases (rag-gen) */

int rag_record_expects_refusal(jv rec)
{
	jv e = jv_get_kind(rec) == JV_KIND_OBJECT ? jv_object_get(jv_copy(rec), jv_string("expect")) : jv_invalid();
	int yes = jv_get_kind(e) == JV_KIND_STRING && !strcmp(jv_string_value(e), "refusal");
	jv_free(e);
	return yes;
}

char *rag_record_question_in_context(jv rec, const char *question)
{
	jv h = jv_get_kind(rec) == JV_KIND_OBJECT ? jv_object_get(jv_copy(rec), jv_string("history")) : jv_invalid();
	int zh, turns = 0;
	rag_buf b = {0};
	char *out;
	if (jv_get_kind(h) != JV_KIND_ARRAY || !question) {
		jv_free(h);
		return NULL;
	}
	/* the labels in the question's language, as the prompt that carries them */
	zh = !strcmp(rag_text_lang(question), "zh");
	jv_array_foreach(h, i, turn) {
		jv q = jv_get_kind(turn) == JV_KIND_OBJECT ? jv_object_get(jv_copy(turn), jv_string("question")) : jv_invalid();
		jv a = jv_get_kind(turn) == JV_KIND_OBJECT ? jv_object_get(jv_copy(turn), jv_string("answer")) : jv_invalid();
		/* a turn is a question and, when it came, its answer; anything else is left out */
		if (jv_get_kind(q) == JV_KIND_STRING && !rag_record_has_nul(q) && *jv_string_value(q)) {
			if (!turns++) rag_buf_addf(&b, "%s\n", zh ? "此前的对话：" : "Earlier turns of this conversation:");
			rag_buf_addf(&b, "%s%s\n", zh ? "问：" : "Q: ", jv_string_value(q));
			if (jv_get_kind(a) == JV_KIND_STRING && !rag_record_has_nul(a))
				rag_buf_addf(&b, "%s%s\n", zh ? "答：" : "A: ", jv_string_value(a));
		}
		jv_free(q);
		jv_free(a);
		jv_free(turn);
		(void)i;
	}
	jv_free(h);
	if (!turns) {
		rag_buf_free(&b);
		return NULL;
	}
	rag_buf_addf(&b, "\n%s%s", zh ? "现在的问题：" : "The question now: ", question);
	out = rag_xstrdup(b.p);
	rag_buf_free(&b);
	return out;
}
