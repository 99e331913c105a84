/* relevance.c - the relevance vector of a record, for the ranking metrics: from chunk verdicts,
 * from context ids against relevant ids (or grades), or from the similarity of each chunk to
 * the reference contexts. */
#include "base.h"
#include "record.h"
#include "rank.h"

#include <stdlib.h>
#include <string.h>

static const char *const verdict_metrics[] = {"context_precision", "context_utilization"};

static void add(double **v, size_t *n, size_t *cap, double x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = rag_xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = x;
}

void rag_relevance_free(rag_relevance *r)
{
	free(r->gain);
	free(r->ideal);
	memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------ verdicts */

static int from_verdicts(jv v, const char *metric, rag_relevance *r, char *err, size_t errlen)
{
	size_t cap = 0;
	int i, n;
	r->ap_name = metric;
	if (jv_get_kind(v) == JV_KIND_NULL) {
		jv_free(v);
		snprintf(err, errlen, "verdicts.%s is null: the chunks of this record were not judged (see its errors)", metric);
		return -2;
	}
	if (jv_get_kind(v) != JV_KIND_ARRAY) {
		snprintf(err, errlen, "verdicts.%s is %s, not an array", metric, jv_kind_name(jv_get_kind(v)));
		jv_free(v);
		return -1;
	}
	n = jv_array_length(jv_copy(v));
	for (i = 0; i < n; i++) {
		jv o = jv_array_get(jv_copy(v), i);
		jv d = jv_get_kind(o) == JV_KIND_OBJECT ? jv_object_get(o, jv_string("verdict")) : (jv_free(o), jv_invalid());
		jv_kind k = jv_get_kind(d);
		jv_free(d);
		if (k != JV_KIND_TRUE && k != JV_KIND_FALSE) {
			snprintf(err, errlen, "verdicts.%s[%d] has no true or false \"verdict\"", metric, i);
			jv_free(v);
			return -1;
		}
		add(&r->gain, &r->n, &cap, k == JV_KIND_TRUE);
	}
	jv_free(v);
	/* the list is all there is: its own relevant chunks are the relevant set */
	r->nideal = r->n;
	r->ideal = rag_xmalloc((r->n ? r->n : 1) * sizeof *r->ideal);
	if (r->n) memcpy(r->ideal, r->gain, r->n * sizeof *r->gain);
	r->source = "verdicts";
	r->ap_name = metric;
	return 0;
}

/* ------------------------------------------------------------------ ids */

/* An id (a string or a number) as a string key, as rag_json_id writes it; invalid otherwise. */
static jv id_key(jv id)
{
	jv k = jv_invalid();
	if (jv_get_kind(id) == JV_KIND_STRING || jv_get_kind(id) == JV_KIND_NUMBER) {
		char *s = rag_json_id(id);
		k = jv_string(s);
		free(s);
	}
	jv_free(id);
	return k;
}

static int from_ids(jv rec, jv rel, rag_relevance *r, char *err, size_t errlen)
{
	jv grades = jv_object(), ctx = rag_record_get(rec, "contexts"), seen = jv_object();
	jv ids = rag_record_get(rec, "context_ids");   /* rag-collect's: the ids beside string contexts */
	size_t cap = 0, icap = 0;
	int i, n, rc = -1;

	if (jv_get_kind(rel) == JV_KIND_ARRAY) {
		n = jv_array_length(jv_copy(rel));
		for (i = 0; i < n; i++) {
			jv key = id_key(jv_array_get(jv_copy(rel), i));
			if (!jv_is_valid(key)) {
				snprintf(err, errlen, "relevant_ids[%d] is not a string or a number", i);
				goto out;
			}
			grades = jv_object_set(grades, key, jv_number(1));
		}
	} else if (jv_get_kind(rel) == JV_KIND_OBJECT) {
		int it;
		for (it = jv_object_iter(rel); jv_object_iter_valid(rel, it); it = jv_object_iter_next(rel, it)) {
			jv key = jv_object_iter_key(rel, it), g = jv_object_iter_value(rel, it);
			if (jv_get_kind(g) != JV_KIND_NUMBER) {
				snprintf(err, errlen, "relevant_ids.\"%.60s\" is %s, not a number (a grade)",
				         jv_string_value(key), jv_kind_name(jv_get_kind(g)));
				jv_free(key);
				jv_free(g);
				goto out;
			}
			grades = jv_object_set(grades, key, g);
		}
	} else {
		snprintf(err, errlen, "relevant_ids is %s, not an array of ids or an object of grades",
		         jv_kind_name(jv_get_kind(rel)));
		goto out;
	}
	if (jv_get_kind(ctx) != JV_KIND_ARRAY) {
		snprintf(err, errlen, jv_is_valid(ctx) ? "field \"contexts\" is not an array"
		                                       : "record has no \"contexts\" field");
		goto out;
	}
	n = jv_array_length(jv_copy(ctx));
	for (i = 0; i < n; i++) {
		jv c = jv_array_get(jv_copy(ctx), i), key, g;
		if (jv_get_kind(c) == JV_KIND_OBJECT)
			key = id_key(jv_object_get(c, jv_string("id")));
		else if (jv_get_kind(ids) == JV_KIND_ARRAY && i < jv_array_length(jv_copy(ids)))
			key = (jv_free(c), id_key(jv_array_get(jv_copy(ids), i)));
		else
			key = (jv_free(c), jv_invalid());
		if (!jv_is_valid(key)) {
			snprintf(err, errlen, "contexts[%d] has no \"id\" (a string or a number; or context_ids[%d]) "
			         "to match relevant_ids", i, i);
			goto out;
		}
		g = jv_object_get(jv_copy(grades), jv_copy(key));
		if (jv_object_has(jv_copy(seen), jv_copy(key))) {
			/* found again: nothing new */
			add(&r->gain, &r->n, &cap, 0);
			jv_free(key);
		} else {
			add(&r->gain, &r->n, &cap, jv_get_kind(g) == JV_KIND_NUMBER ? jv_number_value(g) : 0);
			seen = jv_object_set(seen, key, jv_true());
		}
		jv_free(g);
	}
	{
		int it;
		for (it = jv_object_iter(grades); jv_object_iter_valid(grades, it); it = jv_object_iter_next(grades, it)) {
			jv g = jv_object_iter_value(grades, it);
			add(&r->ideal, &r->nideal, &icap, jv_number_value(g));
			jv_free(g);
		}
	}
	r->source = "ids";
	r->ap_name = "context_precision";
	rc = 0;
out:
	jv_free(grades);
	jv_free(ctx);
	jv_free(ids);
	jv_free(seen);
	jv_free(rel);
	return rc;
}

/* ------------------------------------------------------------------ similarity */

/* Code points of the normalised text. */
static long *codepoints(const char *s, size_t *n)
{
	char *t = rag_text_normalize(s);
	const char *p;
	size_t len, cap;
	long *cp;
	if (!t) t = rag_utf8_sanitize(s, strlen(s));
	len = strlen(t);
	cap = len + 1;
	cp = rag_xmalloc(cap * sizeof *cp);
	*n = 0;
	for (p = t; *p;) {
		long c;
		p += rag_utf8_decode(p, strlen(p), &c);
		cp[(*n)++] = c;
	}
	free(t);
	return cp;
}

double rag_relevance_similarity(const char *a, const char *b)
{
	size_t na, nb, i, j, max;
	long *ca = codepoints(a, &na), *cb = codepoints(b, &nb);
	size_t *row;
	double sim;
	max = na > nb ? na : nb;
	if (max == 0) {
		free(ca);
		free(cb);
		return 1;
	}
	/* Levenshtein distance, one row at a time */
	row = rag_xmalloc((nb + 1) * sizeof *row);
	for (j = 0; j <= nb; j++) row[j] = j;
	for (i = 1; i <= na; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (j = 1; j <= nb; j++) {
			size_t up = row[j], best = diag + (ca[i - 1] != cb[j - 1]);
			if (up + 1 < best) best = up + 1;
			if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	sim = 1.0 - (double)row[nb] / (double)max;
	free(row);
	free(ca);
	free(cb);
	return sim;
}

static int from_similarity(jv rec, jv refs, double threshold, rag_relevance *r, char *err, size_t errlen)
{
	jv ctx = rag_record_contexts(rec);
	int i, j, n, nref, *found = NULL;
	size_t cap = 0;
	if (!jv_is_valid(ctx)) {
		jv m = jv_invalid_get_msg(ctx);
		snprintf(err, errlen, "%s", jv_string_value(m));
		jv_free(m);
		jv_free(refs);
		return -1;
	}
	if (jv_get_kind(refs) == JV_KIND_STRING) refs = JV_ARRAY(refs);
	if (jv_get_kind(refs) != JV_KIND_ARRAY) {
		snprintf(err, errlen, "reference_contexts is %s, not an array of strings", jv_kind_name(jv_get_kind(refs)));
		jv_free(refs);
		jv_free(ctx);
		return -1;
	}
	nref = jv_array_length(jv_copy(refs));
	for (j = 0; j < nref; j++) {
		jv s = jv_array_get(jv_copy(refs), j);
		int ok = jv_get_kind(s) == JV_KIND_STRING, nul = rag_record_has_nul(s);
		jv_free(s);
		if (!ok || nul) {
			snprintf(err, errlen, nul ? "reference_contexts[%d] contains a NUL character (\\u0000)"
			         : "reference_contexts[%d] is not a string", j);
			jv_free(refs);
			jv_free(ctx);
			return -1;
		}
	}
	found = rag_xcalloc((size_t)nref + 1, sizeof *found);
	n = jv_array_length(jv_copy(ctx));
	for (i = 0; i < n; i++) {
		jv c = jv_array_get(jv_copy(ctx), i);
		double best = -1;
		int bj = -1;
		for (j = 0; j < nref; j++) {
			jv s = jv_array_get(jv_copy(refs), j);
			double sim = rag_relevance_similarity(jv_string_value(c), jv_string_value(s));
			jv_free(s);
			if (sim > best) best = sim, bj = j;
		}
		jv_free(c);
		/* a chunk stands for the reference context it is most like; finding that one again
		 * adds nothing */
		if (bj >= 0 && best >= threshold && !found[bj]) {
			found[bj] = 1;
			add(&r->gain, &r->n, &cap, 1);
		} else {
			add(&r->gain, &r->n, &cap, 0);
		}
	}
	r->nideal = (size_t)nref;
	r->ideal = rag_xmalloc(((size_t)nref + 1) * sizeof *r->ideal);
	for (j = 0; j < nref; j++) r->ideal[j] = 1;
	free(found);
	jv_free(refs);
	jv_free(ctx);
	r->source = "similarity";
	r->ap_name = "context_precision";
	return 0;
}

/* ------------------------------------------------------------------ the record */

static jv verdicts_of(jv rec, const char *metric)
{
	jv all = jv_object_get(jv_copy(rec), jv_string("verdicts"));
	if (jv_get_kind(all) != JV_KIND_OBJECT) {
		jv_free(all);
		return jv_invalid();
	}
	return jv_object_get(all, jv_string(metric));
}

/* relevant_ids, or invalid when absent or null (a test set's empty column) */
static jv ids_of(jv rec)
{
	jv v = rag_record_get(rec, "relevant_ids");   /* relevantDocIds, reference_context_ids... */
	if (jv_get_kind(v) == JV_KIND_NULL) {
		jv_free(v);
		return jv_invalid();
	}
	return v;
}

int rag_relevance_source(int source, const rag_rank_metric *m)
{
	/* the ids are what the user says is relevant: every metric of ids reads them first; context
	 * precision is a judge's metric (rag-verify --chunks), read from its verdicts first */
	if (source == RAG_REL_AUTO && m->kind != RAG_RANK_AP) return RAG_REL_AUTO_IDS;
	return source;
}

int rag_relevance_get(jv rec, int source, const char *verdicts, double threshold, rag_relevance *r,
                      char *err, size_t errlen)
{
	int any = source == RAG_REL_AUTO || source == RAG_REL_AUTO_IDS;
	jv v;
	size_t i;
	memset(r, 0, sizeof *r);
	if (source == RAG_REL_AUTO_IDS) {
		v = ids_of(rec);
		if (jv_is_valid(v)) return from_ids(rec, v, r, err, errlen);
		jv_free(v);
	}
	if (any || source == RAG_REL_VERDICTS) {
		for (i = 0; i < sizeof verdict_metrics / sizeof verdict_metrics[0]; i++) {
			const char *m = verdicts ? verdicts : verdict_metrics[i];
			v = verdicts_of(rec, m);
			if (jv_is_valid(v)) return from_verdicts(v, verdicts ? verdicts : verdict_metrics[i], r, err, errlen);
			jv_free(v);
			if (verdicts) break;
		}
		if (source == RAG_REL_VERDICTS) {
			snprintf(err, errlen, "record has no verdicts.%s: run rag-verify --chunks first",
			         verdicts ? verdicts : "context_precision");
			return -1;
		}
	}
	if (source == RAG_REL_AUTO || source == RAG_REL_IDS) {
		v = ids_of(rec);
		if (jv_is_valid(v)) return from_ids(rec, v, r, err, errlen);
		jv_free(v);
		if (source == RAG_REL_IDS) {
			snprintf(err, errlen, "record has no \"relevant_ids\" field");
			return -1;
		}
	}
	v = rag_record_get(rec, "reference_contexts");
	if (jv_is_valid(v)) return from_similarity(rec, v, threshold, r, err, errlen);
	jv_free(v);
	if (source == RAG_REL_SIMILARITY)
		snprintf(err, errlen, "record has no \"reference_contexts\" field");
	else
		snprintf(err, errlen, "record has nothing to rank by: no verdicts.context_precision (run rag-verify "
		         "--chunks), no \"relevant_ids\", no \"reference_contexts\"");
	return -1;
}
