/* genreview.c - a generated test set read by a person: the review sheet (Markdown or CSV, one
 * row a case, keep/drop/fix), its edits applied, and the test-set check (what a set holds and
 * what it lacks). rag-gen(1) REVIEW and CHECK. */
#include "base.h"
#include "record.h"
#include "gen.h"

#include <stdlib.h>
#include <string.h>

static const char *str_of(jv rec, const char *field, jv *keep)
{
	*keep = jv_get_kind(rec) == JV_KIND_OBJECT ? jv_object_get(jv_copy(rec), jv_string(field)) : jv_invalid();
	return jv_get_kind(*keep) == JV_KIND_STRING ? jv_string_value(*keep) : NULL;
}

static const char *kind_of(jv rec, jv *keep)
{
	const char *k = str_of(rec, "kind", keep);
	return k && *k ? k : "regular";
}

/* ------------------------------------------------------------------ the sheet */

/* a Markdown cell: | as \|, a line break as <br> */
static void md_cell(rag_buf *b, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|') rag_buf_adds(b, "\\|");
		else if (*s == '\n') rag_buf_adds(b, "<br>");
		else if (*s == '\\') rag_buf_adds(b, "\\\\");
		else if (*s != '\r') rag_buf_add(b, s, 1);
	}
}

/* a quoted cell; a text a spreadsheet would run as a formula with a ' first (rag_csv_protect),
 * which rag_gen_review_read takes off again */
static void csv_cell(rag_buf *b, const char *s)
{
	rag_buf_adds(b, "\"");
	if (rag_csv_protect(s)) rag_buf_adds(b, "'");
	for (; s && *s; s++) {
		if (*s == '"') rag_buf_adds(b, "\"\"");
		else rag_buf_add(b, s, 1);
	}
	rag_buf_adds(b, "\"");
}

char *rag_gen_review_sheet(jv cases, int csv, const char *name)
{
	rag_buf b = {0};
	int n = jv_array_length(jv_copy(cases)), i;
	if (csv) {
		rag_buf_adds(&b, "action,id,kind,question,reference\n");
	} else {
		rag_buf_addf(&b, "# Review of %s\n\n", name ? name : "the test set");
		rag_buf_adds(&b, "Write keep, drop or fix in the action column; for fix, edit the question and reference\n"
		             "cells (a | in a cell is written \\|, a line break <br>). Then: rag-gen --apply-review THIS-FILE "
		             "TESTSET.\n\n");
		rag_buf_adds(&b, "| action | id | kind | question | reference |\n|---|---|---|---|---|\n");
	}
	for (i = 0; i < n; i++) {
		jv rec = jv_array_get(jv_copy(cases), i), k1, k2, k3, k4;
		const char *id = str_of(rec, "id", &k1), *kind = kind_of(rec, &k2), *q = str_of(rec, "question", &k3);
		const char *r = str_of(rec, "reference", &k4);
		if (csv) {
			rag_buf_adds(&b, "keep,");
			csv_cell(&b, id);
			rag_buf_addf(&b, ",%s%s,", rag_csv_protect(kind) ? "'" : "", kind);
			csv_cell(&b, q);
			rag_buf_adds(&b, ",");
			csv_cell(&b, r);
			rag_buf_adds(&b, "\n");
		} else {
			rag_buf_adds(&b, "| keep | ");
			md_cell(&b, id);
			rag_buf_addf(&b, " | %s | ", kind);
			md_cell(&b, q);
			rag_buf_adds(&b, " | ");
			md_cell(&b, r);
			rag_buf_adds(&b, " |\n");
		}
		jv_free(k1);
		jv_free(k2);
		jv_free(k3);
		jv_free(k4);
		jv_free(rec);
	}
	return b.p ? b.p : rag_xstrdup("");
}

/* the cells of a Markdown table row (without the outer bars), unescaped; -1 when not a row */
static int md_cells(const char *line, rag_strv *out)
{
	const char *p = line;
	rag_buf c = {0};
	while (*p == ' ') p++;
	if (*p != '|') return -1;
	p++;
	for (; *p && *p != '\n' && *p != '\r'; p++) {
		if (*p == '\\' && (p[1] == '|' || p[1] == '\\')) {
			rag_buf_add(&c, ++p, 1);
		} else if (*p == '<' && !strncmp(p, "<br>", 4)) {
			rag_buf_adds(&c, "\n");
			p += 3;
		} else if (*p == '|') {
			size_t a = 0, z = c.len;
			while (a < z && c.p[a] == ' ') a++;
			while (z > a && c.p[z - 1] == ' ') z--;
			rag_strv_push(out, rag_xstrndup(c.p ? c.p + a : "", z - a));
			c.len = 0;
		} else {
			rag_buf_add(&c, p, 1);
		}
	}
	rag_buf_free(&c);
	return 0;
}

static int action_ok(const char *a)
{
	return !strcmp(a, "keep") || !strcmp(a, "drop") || !strcmp(a, "fix");
}

jv rag_gen_review_read(const char *text, size_t len, const char *name, int csv, char *err, size_t errlen)
{
	jv rows = jv_array();
	if (csv) {
		jv recs = rag_testset_parse(text, len, name, RAG_TESTSET_CSV, err, errlen);
		if (!jv_is_valid(recs)) {
			jv_free(rows);
			return recs;
		}
		jv_array_foreach(recs, i, r) {
			jv ka, ki, kq, kr;
			/* a cell written with a ' against a spreadsheet's formulas comes back as it was */
			const char *a = str_of(r, "action", &ka), *id = rag_csv_unprotect(str_of(r, "id", &ki));
			const char *q = rag_csv_unprotect(str_of(r, "question", &kq));
			const char *rf = rag_csv_unprotect(str_of(r, "reference", &kr));
			const char *bad = !a ? "no action" : !action_ok(a) ? "the action is not keep, drop or fix" : NULL;
			if (bad) {
				rag_seterr(err, errlen, "%s: row %d: %s", name, i + 2, bad);
				jv_free(ka); jv_free(ki); jv_free(kq); jv_free(kr); jv_free(r); jv_free(recs); jv_free(rows);
				return jv_invalid();
			}
			rows = jv_array_append(rows, JV_OBJECT(jv_string("action"), jv_string(a), jv_string("id"),
			                                       jv_string(id ? id : ""), jv_string("question"), jv_string(q ? q : ""),
			                                       jv_string("reference"), jv_string(rf ? rf : ""),
			                                       jv_string("where"), jv_string_fmt("%s: row %d", name, i + 2)));
			jv_free(ka); jv_free(ki); jv_free(kq); jv_free(kr); jv_free(r);
		}
		jv_free(recs);
		return rows;
	} else {
		char *copy = rag_xstrndup(text, len), *line, *save = NULL;
		int no = 0, header = 0;
		for (line = copy; line; line = save) {
			rag_strv cells = {0};
			char *nl = strchr(line, '\n');
			save = nl ? nl + 1 : NULL;
			if (nl) *nl = 0;
			no++;
			if (md_cells(line, &cells) < 0) {
				rag_strv_free(&cells);
				continue;
			}
			if (!header) {
				if (cells.n < 5 || strcmp(cells.v[0], "action") || strcmp(cells.v[1], "id")) {
					rag_seterr(err, errlen, "%s:%d: the table's header must be | action | id | kind | question | reference |",
					           name, no);
					rag_strv_free(&cells);
					goto bad;
				}
				header = 1;
			} else if (cells.n && strspn(cells.v[0], "-: ") == strlen(cells.v[0]) && *cells.v[0]) {
				/* the separator row */
			} else if (cells.n != 5) {
				rag_seterr(err, errlen, "%s:%d: %zu cells, 5 expected (action, id, kind, question, reference): "
				           "a | inside a cell is written \\|", name, no, cells.n);
				rag_strv_free(&cells);
				goto bad;
			} else if (!action_ok(cells.v[0])) {
				rag_seterr(err, errlen, "%s:%d: the action \"%s\" is not keep, drop or fix", name, no, cells.v[0]);
				rag_strv_free(&cells);
				goto bad;
			} else {
				rows = jv_array_append(rows, JV_OBJECT(jv_string("action"), jv_string(cells.v[0]), jv_string("id"),
				                                       jv_string(cells.v[1]), jv_string("question"), jv_string(cells.v[3]),
				                                       jv_string("reference"), jv_string(cells.v[4]),
				                                       jv_string("where"), jv_string_fmt("%s:%d", name, no)));
			}
			rag_strv_free(&cells);
		}
		free(copy);
		if (!header) {
			rag_seterr(err, errlen, "%s: no review table (| action | id | kind | question | reference |)", name);
			jv_free(rows);
			return jv_invalid();
		}
		return rows;
bad:
		free(copy);
		jv_free(rows);
		return jv_invalid();
	}
}

jv rag_gen_review_apply(jv cases, jv rows, int counts[4], char *err, size_t errlen)
{
	jv out = jv_array();
	int n = jv_array_length(jv_copy(cases)), m = jv_array_length(jv_copy(rows)), i, k;
	memset(counts, 0, 4 * sizeof *counts);
	/* every row names a case of the set, once */
	for (k = 0; k < m; k++) {
		jv row = jv_array_get(jv_copy(rows), k), kid, kw, x;
		const char *id = str_of(row, "id", &kid), *where = str_of(row, "where", &kw);
		int found = 0, j;
		for (i = 0; i < n && !found; i++) {
			jv c = jv_array_get(jv_copy(cases), i);
			const char *cid = str_of(c, "id", &x);
			found = cid && !strcmp(cid, id);
			jv_free(x);
			jv_free(c);
		}
		for (j = 0; j < k && found; j++) {
			jv other = jv_array_get(jv_copy(rows), j), ko;
			const char *oid = str_of(other, "id", &ko);
			if (!strcmp(oid, id)) found = -1;
			jv_free(ko);
			jv_free(other);
		}
		if (found <= 0) rag_seterr(err, errlen, "%s: %s \"%s\"", where,
		                           found < 0 ? "a second row for the case" : "no case of the test set has the id", id);
		jv_free(kid);
		jv_free(kw);
		jv_free(row);
		if (found <= 0) {
			jv_free(out);
			return jv_invalid();
		}
	}
	for (i = 0; i < n; i++) {
		jv rec = jv_array_get(jv_copy(cases), i), kid;
		const char *id = str_of(rec, "id", &kid);
		int done = 0;
		for (k = 0; k < m && !done; k++) {
			jv row = jv_array_get(jv_copy(rows), k), kr, ka, kq, kf, kw, oq, orf;
			const char *rid = str_of(row, "id", &kr), *a = str_of(row, "action", &ka);
			const char *q = str_of(row, "question", &kq), *rf = str_of(row, "reference", &kf);
			const char *where = str_of(row, "where", &kw), *was_q = str_of(rec, "question", &oq);
			const char *was_r = str_of(rec, "reference", &orf);
			if (id && !strcmp(rid, id)) {
				int edited = strcmp(q, was_q ? was_q : "") || strcmp(rf, was_r ? was_r : "");
				done = 1;
				if (!strcmp(a, "keep") && edited) {
					rag_seterr(err, errlen, "%s: the case \"%s\" is edited but its action is keep: write fix to "
					           "apply the edit, or undo it", where, id);
					done = -1;
				} else if (!strcmp(a, "fix") && !*q) {
					rag_seterr(err, errlen, "%s: the case \"%s\" is to be fixed but its question is empty", where, id);
					done = -1;
				} else if (!strcmp(a, "drop")) {
					counts[1]++;
				} else if (!strcmp(a, "fix") && edited) {
					/* a new text, a new id; the old one says where it came from */
					char *nid = rag_gen_id(q, id);
					jv fixed = jv_object_set(jv_copy(rec), jv_string("question"), jv_string(q));
					if (*rf) fixed = jv_object_set(fixed, jv_string("reference"), jv_string(rf));
					else fixed = jv_object_delete(fixed, jv_string("reference"));
					fixed = jv_object_set(fixed, jv_string("revised_from"), jv_string(id));
					fixed = jv_object_set(fixed, jv_string("id"), jv_string(nid));
					fixed = jv_object_set(fixed, jv_string("reviewed"), jv_string("fix"));
					free(nid);
					out = jv_array_append(out, fixed);
					counts[2]++;
				} else {
					out = jv_array_append(out, jv_object_set(jv_copy(rec), jv_string("reviewed"), jv_string("keep")));
					counts[0]++;
				}
			}
			jv_free(kr); jv_free(ka); jv_free(kq); jv_free(kf); jv_free(kw); jv_free(oq); jv_free(orf);
			jv_free(row);
		}
		if (!done) {
			out = jv_array_append(out, jv_copy(rec));
			counts[3]++;
		}
		jv_free(kid);
		jv_free(rec);
		if (done < 0) {
			jv_free(out);
			return jv_invalid();
		}
	}
	return out;
}

/* ------------------------------------------------------------------ the check */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the distinct tokens of s, sorted: each case's once, for the pairs' Jaccard */
static void sorted_tokens(const char *s, rag_strv *out)
{
	jv t = rag_text_tokens(s ? s : "");
	size_t i, k;
	jv_array_foreach(t, j, w) {
		rag_strv_push(out, rag_xstrdup(jv_string_value(w)));
		jv_free(w);
		(void)j;
	}
	jv_free(t);
	if (!out->n) return;
	qsort(out->v, out->n, sizeof *out->v, cmp_str);
	for (i = 1, k = 1; i < out->n; i++) {
		if (strcmp(out->v[i], out->v[k - 1])) out->v[k++] = out->v[i];
		else free(out->v[i]);
	}
	out->n = k;
}

/* rag_gen_similarity over sorted_tokens */
static double jaccard(const rag_strv *x, const rag_strv *y)
{
	size_t i = 0, k = 0, common = 0, all;
	while (i < x->n && k < y->n) {
		int c = strcmp(x->v[i], y->v[k]);
		if (!c) {
			common++;
			i++;
			k++;
		} else if (c < 0) {
			i++;
		} else {
			k++;
		}
	}
	all = x->n + y->n - common;
	return all ? (double)common / (double)all : 1;
}

static jv bump(jv counts, const char *key)
{
	jv v = jv_object_get(jv_copy(counts), jv_string(key));
	double n = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : 0;
	jv_free(v);
	return jv_object_set(counts, jv_string(key), jv_number(n + 1));
}

jv rag_gen_check_set(jv cases, double dup_threshold)
{
	static const char *const fields[] = {"category", "difficulty", "type", "kind"};
	jv counts[4], dups = jv_array(), noref = jv_array(), noids = jv_array(), warns = jv_array(), r;
	int n = jv_array_length(jv_copy(cases)), i, k, f;
	int have[RAG_GEN_NKINDS] = {0};
	rag_strv *toks = rag_xcalloc((size_t)n + 1, sizeof *toks);
	for (f = 0; f < 4; f++) counts[f] = jv_object();
	for (i = 0; i < n; i++) {
		jv rec = jv_array_get(jv_copy(cases), i), kq;
		sorted_tokens(str_of(rec, "question", &kq), &toks[i]);
		jv_free(kq);
		jv_free(rec);
	}
	for (i = 0; i < n; i++) {
		jv rec = jv_array_get(jv_copy(cases), i), kid, kq, kv, rid;
		const char *id = str_of(rec, "id", &kid), *q = str_of(rec, "question", &kq), *v;
		int refusal = rag_record_expects_refusal(rec);
		for (f = 0; f < 4; f++) {
			jv kf;
			const char *s = f == 3 ? kind_of(rec, &kf) : str_of(rec, fields[f], &kf);
			counts[f] = bump(counts[f], s && *s ? s : "(none)");
			for (k = 0; f == 3 && k < RAG_GEN_NKINDS; k++)
				if (!strcmp(s, rag_gen_kinds[k])) have[k] = 1;
			jv_free(kf);
		}
		if (!refusal) {
			jv kr;
			const char *ref = str_of(rec, "reference", &kr);
			if (!ref || !*ref) noref = jv_array_append(noref, jv_string(id ? id : ""));
			jv_free(kr);
			rid = rag_record_get(rec, "relevant_ids");
			if (jv_get_kind(rid) != JV_KIND_ARRAY || !jv_array_length(jv_copy(rid)))
				noids = jv_array_append(noids, jv_string(id ? id : ""));
			jv_free(rid);
		}
		/* duplicates: the same id, or questions this similar; a noisy variant of its own case is none */
		for (k = 0; k < i; k++) {
			jv o = jv_array_get(jv_copy(cases), k), koi, koq, kov;
			const char *oid = str_of(o, "id", &koi), *oq = str_of(o, "question", &koq), *ov = str_of(o, "variant_of", &kov);
			v = str_of(rec, "variant_of", &kv);
			if ((id && oid && !strcmp(id, oid)) ||
			    (q && oq && !(v && oid && !strcmp(v, oid)) && !(ov && id && !strcmp(ov, id)) &&
			     jaccard(&toks[i], &toks[k]) >= dup_threshold))
				dups = jv_array_append(dups, JV_ARRAY(jv_string(oid ? oid : ""), jv_string(id ? id : "")));
			jv_free(kv);
			jv_free(koi);
			jv_free(koq);
			jv_free(kov);
			jv_free(o);
		}
		jv_free(kid);
		jv_free(kq);
		jv_free(rec);
	}
	for (i = 0; i < n; i++) rag_strv_free(&toks[i]);
	free(toks);
	if (n < 20) warns = jv_array_append(warns, jv_string_fmt("only %d case(s): fewer than 20 says little", n));
	for (k = 0; k < RAG_GEN_NKINDS; k++)
		if (!have[k] && k != RAG_GEN_MULTI_HOP)
			warns = jv_array_append(warns, jv_string_fmt("no %s case", rag_gen_kinds[k]));
	r = JV_OBJECT(jv_string("cases"), jv_number(n), jv_string("category"), counts[0], jv_string("difficulty"), counts[1],
	              jv_string("type"), counts[2], jv_string("kind"), counts[3]);
	r = jv_object_set(r, jv_string("duplicates"), dups);
	r = jv_object_set(r, jv_string("missing_reference"), noref);
	r = jv_object_set(r, jv_string("missing_relevant_ids"), noids);
	r = jv_object_set(r, jv_string("warnings"), warns);
	return r;
}

char *rag_gen_check_text(jv r, const char *name, int json, int *found)
{
	static const char *const groups[] = {"category", "difficulty", "type", "kind"};
	static const char *const lists[] = {"missing_reference", "missing_relevant_ids", "warnings"};
	static const char *const label[] = {"missing reference: \"%s\"\n", "missing relevant_ids: \"%s\"\n", "warning: %s\n"};
	jv dups = jv_object_get(jv_copy(r), jv_string("duplicates")), l[3];
	int n[4], k;
	rag_buf b = {0};
	n[0] = jv_array_length(jv_copy(dups));
	for (k = 0; k < 3; k++) {
		l[k] = jv_object_get(jv_copy(r), jv_string(lists[k]));
		n[k + 1] = jv_array_length(jv_copy(l[k]));
	}
	*found = n[0] || n[1] || n[2] || n[3];
	if (json) {
		jv dump = jv_dump_string(jv_copy(r), 0);
		rag_buf_addf(&b, "%s\n", jv_string_value(dump));
		jv_free(dump);
	} else {
		rag_buf_addf(&b, "%s: %.0f cases\n", name, rag_json_num(r, "cases"));
		for (k = 0; k < 4; k++) {
			jv o = jv_object_get(jv_copy(r), jv_string(groups[k]));
			rag_buf_addf(&b, "%s:", groups[k]);
			jv_object_foreach(o, key, v) {
				rag_buf_addf(&b, " %s %.0f", jv_string_value(key), jv_number_value(v));
				jv_free(key);
				jv_free(v);
			}
			jv_free(o);
			rag_buf_adds(&b, "\n");
		}
		jv_array_foreach(dups, i, p) {
			jv a = jv_array_get(jv_copy(p), 0), c = jv_array_get(p, 1);
			rag_buf_addf(&b, "duplicate: \"%s\" and \"%s\"\n", jv_string_value(a), jv_string_value(c));
			jv_free(a);
			jv_free(c);
			(void)i;
		}
		for (k = 0; k < 3; k++) {
			jv_array_foreach(l[k], i, s) {
				rag_buf_addf(&b, label[k], jv_string_value(s));
				jv_free(s);
				(void)i;
			}
		}
		rag_buf_addf(&b, "%d duplicate(s), %d missing a reference, %d missing relevant ids, %d warning(s)\n",
		             n[0], n[1], n[2], n[3]);
	}
	jv_free(dups);
	for (k = 0; k < 3; k++) jv_free(l[k]);
	return b.p;
}
