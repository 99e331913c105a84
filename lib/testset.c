/* testset.c - reading a test set: JSON Lines, a JSON array, pretty-printed JSON objects, or CSV
 * with a header row (RFC 4180), into records (rag-eval(1), INPUT).
 *
 * Every error names its place as FILE:LINE:COLUMN (1-based, columns in bytes), so that a broken
 * file is fixed where it is broken, not searched. */
#include "base.h"
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* the columns of a CSV file that hold a JSON array (or object) rather than a string */
static const char *const json_columns[] = {
	"contexts", "relevant_ids", "context_ids", "reference_contexts", "keywords", "system",
	"must_contain", "must_not_contain", "must_match", "must_not_match", NULL
};

const char *rag_testset_format_name(int format)
{
	return format == RAG_TESTSET_CSV ? "csv" : format == RAG_TESTSET_JSON ? "json" : "auto";
}

int rag_testset_format_parse(const char *s)
{
	if (!s) return -1;
	if (!strcmp(s, "auto")) return RAG_TESTSET_AUTO;
	if (!strcmp(s, "json") || !strcmp(s, "jsonl")) return RAG_TESTSET_JSON;
	if (!strcmp(s, "csv")) return RAG_TESTSET_CSV;
	return -1;
}

static size_t bom(const char *text, size_t len)
{
	return len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

int rag_testset_detect(const char *name, const char *text, size_t len)
{
	const char *dot = name ? strrchr(name, '.') : NULL;
	size_t i;
	if (dot && !strchr(dot, '/')) {
		if (!strcasecmp(dot, ".csv")) return RAG_TESTSET_CSV;
		if (!strcasecmp(dot, ".json") || !strcasecmp(dot, ".jsonl") || !strcasecmp(dot, ".ndjson"))
			return RAG_TESTSET_JSON;
	}
	/* by content: JSON starts with an object or an array, a CSV header with a name */
	for (i = bom(text, len); i < len && strchr(" \t\r\n", text[i]); i++)
		;
	/* nothing but blanks: no records, of either format */
	return i == len || text[i] == '{' || text[i] == '[' ? RAG_TESTSET_JSON : RAG_TESTSET_CSV;
}

/* line and column (1-based) of byte off */
static void position(const char *text, size_t off, size_t *line, size_t *col)
{
	size_t i, l = 1, start = 0;
	for (i = 0; i < off; i++)
		if (text[i] == '\n') l++, start = i + 1;
	*line = l;
	*col = off - start + 1;
}

static int fail_at(const char *name, const char *text, size_t off, char *err, size_t errlen,
                   const char *msg)
{
	size_t line, col;
	position(text, off, &line, &col);
	rag_seterr(err, errlen, "%s:%zu:%zu: %s", name, line, col, msg);
	return -1;
}

/* Each record's line, when asked for (out not NULL): offsets come in order, so the newlines
 * are counted once. */
struct lines {
	const char *text;
	size_t off, line;
	jv *out;
};

static void note_line(struct lines *l, size_t off)
{
	if (!l->out) return;
	for (; l->off < off; l->off++)
		if (l->text[l->off] == '\n') l->line++;
	*l->out = jv_array_append(*l->out, jv_number((double)l->line));
}

/* the offset of the first byte of invalid UTF-8, or len */
static size_t first_invalid(const char *text, size_t len)
{
	size_t i = 0;
	while (i < len) {
		long cp;
		size_t n = rag_utf8_decode(text + i, len - i, &cp);
		if (cp == 0xFFFD && !rag_utf8_valid(text + i, n)) return i;
		i += n;
	}
	return len;
}

/* ---------------------------------------------------------------- JSON */

/* libjq's "Invalid numeric literal at line 3, column 8" as "NAME:3:8: invalid numeric literal"
 * (msg consumed) */
static void jq_error(const char *name, jv msg, char *err, size_t errlen)
{
	const char *m = jv_string_value(msg), *at = strstr(m, " at line ");
	unsigned long line = 0, col = 0;
	char first;
	if (at && sscanf(at, " at line %lu, column %lu", &line, &col) == 2) {
		first = (char)(m[0] >= 'A' && m[0] <= 'Z' ? m[0] - 'A' + 'a' : m[0]);
		rag_seterr(err, errlen, "%s:%lu:%lu: %c%.*s", name, line, col ? col : 1, first,
		           (int)(at - m - 1), m + 1);
	} else {
		rag_seterr(err, errlen, "%s: %s", name, m);
	}
	jv_free(msg);
}

/* the end of the JSON value that starts at i (already parsed once, so well formed) */
static size_t skip_value(const char *text, size_t len, size_t i)
{
	int depth = 0, str = 0;
	if (i >= len) return len;
	if (!strchr("{[\"", text[i])) {
		while (i < len && !strchr(" \t\r\n,]}", text[i])) i++;
		return i;
	}
	for (; i < len; i++) {
		char c = text[i];
		if (str) {
			if (c == '\\') i++;
			else if (c == '"') { str = 0; if (!depth) return i + 1; }
			continue;
		}
		if (c == '"') str = 1;
		else if (c == '{' || c == '[') depth++;
		else if ((c == '}' || c == ']') && --depth == 0) return i + 1;
	}
	return len;
}

/* the offset of the n-th (0-based) value from i: the values of the top level, or with i just
 * inside a '[', the elements of that array. Only for the message about a value that is not a
 * record (a scan from i: computed on that failure alone, so reading stays linear). */
static size_t value_start(const char *text, size_t len, size_t i, size_t n)
{
	size_t k;
	for (k = 0;; k++) {
		while (i < len && strchr(" \t\r\n,", text[i])) i++;
		if (k == n || i >= len) return i < len ? i : len - (len > 0);
		i = skip_value(text, len, i);
	}
}

/* "WHAT is number, not an object (a record)" at the value's place */
static int not_record(jv v, const char *name, const char *text, size_t at, const char *what,
                      char *err, size_t errlen)
{
	char msg[160];
	snprintf(msg, sizeof msg, "%s is %s, not an object (a record)", what, jv_kind_name(jv_get_kind(v)));
	jv_free(v);
	return fail_at(name, text, at, err, errlen, msg);
}

static jv parse_json(const char *name, const char *text, size_t len, struct lines *ln, char *err, size_t errlen)
{
	jv out = jv_array(), v;
	jv_parser *p;
	size_t skip = bom(text, len), nvalues = 0, vat = skip;
	char what[64];

	if (len - skip > (size_t)0x7fffffff) {
		rag_seterr(err, errlen, "%s: too large", name);
		jv_free(out);
		return jv_invalid();
	}
	p = jv_parser_new(0);
	jv_parser_set_buf(p, text + skip, (int)(len - skip), 0);
	while (jv_is_valid(v = jv_parser_next(p))) {
		nvalues++;
		if (ln->out) vat = value_start(text, len, vat, nvalues > 1);   /* this value's start, from the last's */
		if (jv_get_kind(v) == JV_KIND_ARRAY) {
			/* a JSON array file: its elements are the records */
			int i, n = jv_array_length(jv_copy(v));
			size_t eat = vat + 1;
			for (i = 0; i < n; i++) {
				jv e = jv_array_get(jv_copy(v), i);
				if (ln->out) note_line(ln, eat = value_start(text, len, eat, i > 0));
				if (jv_get_kind(e) != JV_KIND_OBJECT) {
					size_t at = value_start(text, len, skip, nvalues - 1);
					snprintf(what, sizeof what, "element %d of the array", i + 1);
					not_record(e, name, text, value_start(text, len, at + 1, (size_t)i), what, err, errlen);
					jv_free(v);
					goto fail;
				}
				out = jv_array_append(out, e);
			}
			jv_free(v);
			continue;
		}
		if (jv_get_kind(v) != JV_KIND_OBJECT) {
			snprintf(what, sizeof what, "value %zu", nvalues);
			not_record(v, name, text, value_start(text, len, skip, nvalues - 1), what, err, errlen);
			goto fail;
		}
		note_line(ln, vat);
		out = jv_array_append(out, v);
	}
	if (jv_invalid_has_msg(jv_copy(v))) {
		jq_error(name, jv_invalid_get_msg(v), err, errlen);
		goto fail;
	}
	jv_free(v);
	jv_parser_free(p);
	return out;
fail:
	jv_parser_free(p);
	jv_free(out);
	return jv_invalid();
}

/* ---------------------------------------------------------------- CSV (RFC 4180) */

struct csv {
	const char *name, *text;
	size_t len, i;
	char *err;
	size_t errlen;
};

/* One field from c->i: its text in *field (malloc'ed), *end set to 1 at the end of a row (or of
 * the file). Returns 0, or -1 with the message. */
static int csv_field(struct csv *c, char **field, int *end)
{
	rag_buf b = {0};
	size_t start = c->i;
	*end = 0;
	if (c->i < c->len && c->text[c->i] == '"') {
		c->i++;
		for (;;) {
			if (c->i >= c->len) {
				rag_buf_free(&b);
				return fail_at(c->name, c->text, start, c->err, c->errlen,
				               "unterminated quoted field (a \" opened here is never closed)");
			}
			if (c->text[c->i] == '"') {
				if (c->i + 1 < c->len && c->text[c->i + 1] == '"') {
					rag_buf_add(&b, "\"", 1);
					c->i += 2;
					continue;
				}
				c->i++;
				break;
			}
			rag_buf_add(&b, c->text + c->i, 1);
			c->i++;
		}
		if (c->i < c->len && !strchr(",\r\n", c->text[c->i])) {
			rag_buf_free(&b);
			return fail_at(c->name, c->text, c->i, c->err, c->errlen,
			               "text after a quoted field's closing quote (a \" inside a field is written \"\")");
		}
	} else {
		while (c->i < c->len && !strchr(",\r\n", c->text[c->i])) {
			if (c->text[c->i] == '"') {
				rag_buf_free(&b);
				return fail_at(c->name, c->text, c->i, c->err, c->errlen,
				               "a quote inside an unquoted field (quote the whole field, and write \" as \"\")");
			}
			rag_buf_add(&b, c->text + c->i, 1);
			c->i++;
		}
	}
	if (c->i >= c->len) {
		*end = 1;
	} else if (c->text[c->i] == ',') {
		c->i++;
	} else {
		if (c->text[c->i] == '\r') c->i++;
		if (c->i < c->len && c->text[c->i] == '\n') c->i++;
		*end = 1;
	}
	rag_buf_add(&b, "", 0);
	if (!b.p) b.p = rag_xstrdup("");
	*field = b.p;
	return 0;
}

/* One row: its fields (a rag_strv) and the offset where it starts; 1 at the end of the file. */
static int csv_row(struct csv *c, rag_strv *row, size_t *start)
{
	int end = 0;
	char *f;
	/* blank lines between rows are no rows */
	while (c->i < c->len && (c->text[c->i] == '\n' || c->text[c->i] == '\r')) c->i++;
	if (c->i >= c->len) return 1;
	*start = c->i;
	while (!end) {
		if (csv_field(c, &f, &end) < 0) return -1;
		rag_strv_push(row, f);
	}
	return 0;
}

static int json_column(const char *col)
{
	size_t i;
	col = rag_record_canonical(col);    /* relevantDocIds holds a list as relevant_ids does */
	for (i = 0; json_columns[i]; i++)
		if (!strcmp(json_columns[i], col)) return 1;
	return 0;
}

static jv parse_csv(const char *name, const char *text, size_t len, struct lines *ln, char *err, size_t errlen)
{
	struct csv c = { name, text, len, bom(text, len), err, errlen };
	rag_strv head = {0}, row = {0};
	jv out = jv_array();
	size_t start = 0, i, j;
	char msg[200];
	int r;

	if ((r = csv_row(&c, &head, &start)) != 0) {
		if (r > 0) rag_seterr(err, errlen, "%s: empty: a CSV test set starts with a header row (question,reference,...)", name);
		goto fail;
	}
	for (i = 0; i < head.n; i++) {
		if (!*head.v[i]) {
			snprintf(msg, sizeof msg, "column %zu of the header has no name", i + 1);
			fail_at(name, text, start, err, errlen, msg);
			goto fail;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(head.v[i], head.v[j])) {
				snprintf(msg, sizeof msg, "column \"%.60s\" appears twice in the header", head.v[i]);
				fail_at(name, text, start, err, errlen, msg);
				goto fail;
			}
	}
	while ((r = csv_row(&c, &row, &start)) == 0) {
		jv rec = jv_object();
		if (row.n != head.n) {
			snprintf(msg, sizeof msg, "%zu field%s where the header has %zu", row.n, row.n == 1 ? "" : "s", head.n);
			jv_free(rec);
			fail_at(name, text, start, err, errlen, msg);
			goto fail;
		}
		for (i = 0; i < row.n; i++) {
			const char *v = row.v[i];
			/* an empty cell is an absent field: no reference is "not applicable", never "" */
			if (!*v) continue;
			if (json_column(head.v[i])) {
				const char *p = v + strspn(v, " \t");
				if (*p == '[' || *p == '{') {
					jv parsed = jv_parse(p);
					if (!jv_is_valid(parsed)) {
						jv_free(parsed);
						jv_free(rec);
						snprintf(msg, sizeof msg, "column \"%.60s\" does not hold valid JSON", head.v[i]);
						fail_at(name, text, start, err, errlen, msg);
						goto fail;
					}
					rec = jv_object_set(rec, jv_string(head.v[i]), parsed);
					continue;
				}
			}
			rec = jv_object_set(rec, jv_string(head.v[i]), jv_string(v));
		}
		note_line(ln, start);
		out = jv_array_append(out, rec);
		rag_strv_free(&row);
	}
	if (r < 0) goto fail;
	rag_strv_free(&head);
	rag_strv_free(&row);
	return out;
fail:
	rag_strv_free(&head);
	rag_strv_free(&row);
	jv_free(out);
	return jv_invalid();
}

/* ---------------------------------------------------------------- ids */

/* The record's id as the readers give it (rec consumed): a number id as its text, so that ids
 * compare as strings everywhere; a record without one (or with an empty one) is case-N, N its
 * 1-based place in the file, and *made says so. */
static jv with_id(jv rec, size_t n, int *made)
{
	jv id = jv_object_get(jv_copy(rec), jv_string("id"));
	jv_kind k = jv_get_kind(id);
	*made = 0;
	if (k == JV_KIND_NUMBER) {
		char *s = rag_json_id(id);
		rec = jv_object_set(rec, jv_string("id"), jv_string(s));
		free(s);
	} else if (k != JV_KIND_STRING || !jv_string_length_bytes(jv_copy(id))) {
		rec = jv_object_set(rec, jv_string("id"), jv_string_fmt("case-%zu", n));
		*made = 1;
	}
	jv_free(id);
	return rec;
}

/* The ids met so far, each with its record's line and whether the reader made it. A test set's
 * records are matched by id (--resume skips the ids a run has, --baseline and the store pair
 * runs by them), so an id that repeats would hide a record: it is refused where it is met. */
struct ids {
	rag_idtab tab;
	size_t *line, cap;   /* per row: the line, its top bit set when the id was made (case-N) */
};

#define IDS_MADE ((size_t)1 << (sizeof(size_t) * 8 - 1))

/* 0 with rec's id (borrowed; a string, as with_id leaves it) kept, or -1 with "NAME:LINE: id
 * "X" repeats line L" in err, and why when one of the two is a made case-N (a given id equal to
 * the one the reader gives a record without an id by its place). */
static int ids_add(struct ids *t, jv rec, size_t line, int made, const char *name, char *err, size_t errlen)
{
	jv id = jv_object_get(jv_copy(rec), jv_string("id"));
	const char *s = jv_string_value(id);
	long row = rag_idtab_find(&t->tab, s);
	if (row >= 0) {
		size_t first = t->line[row] & ~IDS_MADE;
		int first_made = (t->line[row] & IDS_MADE) != 0;
		if (made || first_made)
			rag_seterr(err, errlen, "%s:%zu: id \"%s\" repeats line %zu (the record on line %zu has no id: "
			           "\"%s\" is the one its place in the file gives it)", name, line, s, first,
			           made ? line : first, s);
		else
			rag_seterr(err, errlen, "%s:%zu: id \"%s\" repeats line %zu", name, line, s, first);
		jv_free(id);
		return -1;
	}
	if ((row = rag_idtab_add(&t->tab, s)) < 0) {
		rag_seterr(err, errlen, "%s:%zu: too many records", name, line);
		jv_free(id);
		return -1;
	}
	if ((size_t)row == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->line = rag_xrealloc(t->line, t->cap * sizeof *t->line);
	}
	t->line[row] = line | (made ? IDS_MADE : 0);
	jv_free(id);
	return 0;
}

static void ids_free(struct ids *t)
{
	rag_idtab_free(&t->tab);
	free(t->line);
}

/* ---------------------------------------------------------------- records */

static jv parse_all(const char *text, size_t len, const char *name, int format, int unique, jv *lines, char *err,
                    size_t errlen);

jv rag_testset_parse(const char *text, size_t len, const char *name, int format, char *err, size_t errlen)
{
	return parse_all(text, len, name, format, 0, NULL, err, errlen);
}

jv rag_testset_read(const char *text, size_t len, const char *name, int format, char *err, size_t errlen)
{
	return parse_all(text, len, name, format, 1, NULL, err, errlen);
}

jv rag_testset_parse_lines(const char *text, size_t len, const char *name, int format, jv *lines, char *err,
                           size_t errlen)
{
	return parse_all(text, len, name, format, 0, lines, err, errlen);
}

/* The records' fields by our names: the aliases (sampleId, groundTruth...) of the fields absent;
 * its id (with_id); and (unique) each id once, lines (borrowed) the line each record starts on.
 * 0, or -1 with err. */
static int name_fields(jv *out, const char *name, int unique, jv lines, char *err, size_t errlen)
{
	size_t n = (size_t)jv_array_length(jv_copy(*out)), i;
	struct ids ids = {{0}, NULL, 0};
	int rc = 0;
	for (i = 0; i < n && !rc; i++) {
		jv rec = jv_array_get(jv_copy(*out), (int)i);
		int made;
		rec = with_id(rag_record_normalize(rec), i + 1, &made);
		if (unique) {
			jv l = jv_array_get(jv_copy(lines), (int)i);
			rc = ids_add(&ids, rec, (size_t)jv_number_value(l), made, name, err, errlen);
			jv_free(l);
		}
		*out = jv_array_set(*out, (int)i, rec);
	}
	ids_free(&ids);
	return rc;
}

/* the records, their fields by our names, and (lines not NULL) the line each starts on */
static jv parse_all(const char *text, size_t len, const char *name, int format, int unique, jv *lines, char *err,
                    size_t errlen)
{
	jv out, own = jv_invalid();
	size_t bad;
	struct lines ln = {text, 0, 1, lines};
	if (lines) *lines = jv_invalid();
	if (!name) name = "<stdin>";
	if ((bad = first_invalid(text, len)) < len) {
		fail_at(name, text, bad, err, errlen, "invalid UTF-8");
		return jv_invalid();
	}
	if (memchr(text, 0, len)) {
		fail_at(name, text, (size_t)((const char *)memchr(text, 0, len) - text), err, errlen, "a NUL byte");
		return jv_invalid();
	}
	if (format == RAG_TESTSET_AUTO) format = rag_testset_detect(name, text, len);
	/* libjq's parser takes 0x1E (RS, of JSON text sequences) anywhere as "start again": what came
	 * before it would be dropped without a word */
	if (format == RAG_TESTSET_JSON && memchr(text, 0x1E, len)) {
		fail_at(name, text, (size_t)((const char *)memchr(text, 0x1E, len) - text), err, errlen,
		        "a record separator byte (0x1E)");
		return jv_invalid();
	}
	/* a repeated id is named by its lines, asked for or not */
	if (!lines && unique) ln.out = &own;
	if (ln.out) *ln.out = jv_array();
	out = format == RAG_TESTSET_CSV ? parse_csv(name, text, len, &ln, err, errlen)
	                                : parse_json(name, text, len, &ln, err, errlen);
	if (jv_is_valid(out) && name_fields(&out, name, unique, ln.out ? *ln.out : jv_null(), err, errlen) < 0) {
		jv_free(out);
		out = jv_invalid();
	}
	jv_free(own);
	if (!jv_is_valid(out) && lines) {
		jv_free(*lines);
		*lines = jv_invalid();
	}
	return out;
}

/* ---------------------------------------------------------------- record by record */

/* The file read in chunks: buf[0..len) holds the text from byte base of the file on, and
 * [pos..len) what is not yet taken. A unit (a JSON value, an array's element, a CSV row) is
 * found in the window, taken, and what is before the next one let go: memory is the longest
 * record, whatever the file's size. */
struct rd {
	FILE *f;
	const char *name;
	char *buf;
	size_t len, cap, pos;
	size_t line, col;      /* of buf[0], 1-based */
	int eof, ioerr;
	size_t seen, seen_nl;  /* the newlines in buf[0..seen): rd_line counts each byte once */
};

#define RD_CHUNK 65536

/* Let go of buf[0..pos), counting its lines; then read more. 0 when nothing more came. */
static int rd_more(struct rd *r)
{
	size_t i, n;
	for (i = 0; i < r->pos; i++) {
		if (r->buf[i] == '\n') r->line++, r->col = 1;
		else r->col++;
	}
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->pos = 0;
	r->seen = r->seen_nl = 0;
	if (r->eof) return 0;
	if (r->cap - r->len < RD_CHUNK) {
		r->cap = r->len + RD_CHUNK > 2 * r->cap ? r->len + RD_CHUNK : 2 * r->cap;
		r->buf = rag_xrealloc(r->buf, r->cap + 1);
	}
	n = fread(r->buf + r->len, 1, r->cap - r->len, r->f);
	if (n == 0) {
		r->eof = 1;
		r->ioerr = ferror(r->f) != 0;
	}
	r->len += n;
	r->buf[r->len] = 0;
	return n > 0;
}

/* the byte at pos + k, or -1 at the end of the file */
static int rd_peek(struct rd *r, size_t k)
{
	while (r->pos + k >= r->len)
		if (!rd_more(r)) return -1;
	return (unsigned char)r->buf[r->pos + k];
}

/* The line of buf[pos] in the file. Units come in order, so the newlines before pos are counted
 * once a window, not again for each unit: counting them from buf[0] for every record made a
 * test set's reading quadratic in the window (1.1 s of CPU for 20,000 records). */
static size_t rd_line(struct rd *r)
{
	size_t i;
	for (i = r->seen; i < r->pos; i++)
		if (r->buf[i] == '\n') r->seen_nl++;
	r->seen = r->pos;
	return r->line + r->seen_nl;
}

/* The length of the JSON value at pos (well formed or not: jq says what is wrong with it).
 * Scanning it may move the window (rd_more): offsets are from pos. */
static size_t rd_value(struct rd *r)
{
	int c = rd_peek(r, 0), depth = 0, str = 0;
	size_t k;
	if (c < 0) return 0;
	if (!strchr("{[\"", c)) {
		for (k = 0; (c = rd_peek(r, k)) >= 0 && !strchr(" \t\r\n,]}[{\"", c) && c; k++)
			;
		return k ? k : 1;
	}
	for (k = 0; (c = rd_peek(r, k)) >= 0; k++) {
		if (str) {
			if (c == '\\') k++;
			else if (c == '"') { str = 0; if (!depth) return k + 1; }
			continue;
		}
		if (c == '"') str = 1;
		else if (c == '{' || c == '[') depth++;
		else if ((c == '}' || c == ']') && --depth == 0) return k + 1;
	}
	return r->len - r->pos;
}

/* The length of the CSV row at pos, its line end included. */
static size_t rd_row(struct rd *r)
{
	int c, quoted = 0;
	size_t k;
	for (k = 0; (c = rd_peek(r, k)) >= 0; k++) {
		if (c == '"') quoted = !quoted;
		else if (!quoted && (c == '\n' || c == '\r')) {
			if (c == '\r' && rd_peek(r, k + 1) == '\n') k++;
			return k + 1;
		}
	}
	return r->len - r->pos;
}

static void rd_skip(struct rd *r, const char *set)
{
	int c;
	while ((c = rd_peek(r, 0)) >= 0 && c && strchr(set, c)) r->pos++;
}

/* "NAME:LINE:COL: msg" for offset off (from pos) of the unit at pos */
static int rd_fail(struct rd *r, size_t off, char *err, size_t errlen, const char *msg)
{
	size_t line, col;
	position(r->buf, r->pos + off, &line, &col);
	if (line == 1) col += r->col - 1;
	rag_seterr(err, errlen, "%s:%zu:%zu: %s", r->name, r->line + line - 1, col, msg);
	return -1;
}

/* the unit [pos, pos + n) holds valid UTF-8 and no NUL */
static int rd_clean(struct rd *r, size_t n, char *err, size_t errlen)
{
	size_t bad = first_invalid(r->buf + r->pos, n);
	const char *nul = memchr(r->buf + r->pos, 0, n);
	if (bad < n) return rd_fail(r, bad, err, errlen, "invalid UTF-8");
	if (nul) return rd_fail(r, (size_t)(nul - (r->buf + r->pos)), err, errlen, "a NUL byte");
	return 0;
}

struct each {
	struct rd r;
	int format;
	rag_fieldmap *fields;
	rag_testset_cb cb;
	void *ctx;
	size_t n;              /* records given */
	rag_strv head;         /* CSV: the header's names */
	struct ids ids;        /* each id once */
	char *err;
	size_t errlen;
};

/* The record of the unit (consumed): our fields, its id, then the caller's. */
static int give(struct each *x, jv rec, size_t line)
{
	char msg[RAG_ERRLEN];
	int made;
	x->n++;
	if (rag_fieldmap_apply(x->fields, &rec, msg, sizeof msg) < 0) {
		rag_seterr(x->err, x->errlen, "%s: record %zu: %s", x->r.name, x->n, msg);
		jv_free(rec);
		return -2;   /* not a syntax error: said as it is */
	}
	rec = with_id(rag_record_normalize(rec), x->n, &made);
	if (ids_add(&x->ids, rec, line, made, x->r.name, x->err, x->errlen) < 0) {
		jv_free(rec);
		return -3;   /* said as it is, unless the file is broken further on (rag_testset_each) */
	}
	return x->cb(rec, line, x->ctx);
}

/* one JSON value at pos, which must be a record; its bytes taken */
static int json_unit(struct each *x)
{
	struct rd *r = &x->r;
	size_t n = rd_value(r), line;
	jv v;
	if (rd_clean(r, n, x->err, x->errlen) < 0) return -1;
	if (memchr(r->buf + r->pos, 0x1E, n)) return rd_fail(r, 0, x->err, x->errlen, "a record separator byte");
	v = jv_parse_sized(r->buf + r->pos, (int)n);
	if (!jv_is_valid(v)) {
		jv_free(v);
		return rd_fail(r, 0, x->err, x->errlen, "not valid JSON");
	}
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return rd_fail(r, 0, x->err, x->errlen, "not an object (a record)");
	}
	line = rd_line(r);
	r->pos += n;
	return give(x, v, line);
}

static int each_json(struct each *x)
{
	struct rd *r = &x->r;
	int c, rc;
	for (;;) {
		rd_skip(r, " \t\r\n");
		if ((c = rd_peek(r, 0)) < 0) return 0;
		if (c != '[') {
			if ((rc = json_unit(x))) return rc;
			continue;
		}
		/* a JSON array: its elements are the records */
		r->pos++;
		rd_skip(r, " \t\r\n");
		if (rd_peek(r, 0) == ']') {
			r->pos++;
			continue;
		}
		for (;;) {
			rd_skip(r, " \t\r\n");
			if ((c = rd_peek(r, 0)) < 0 || c == ']') return rd_fail(r, 0, x->err, x->errlen, "expected a record");
			if ((rc = json_unit(x))) return rc;
			rd_skip(r, " \t\r\n");
			c = rd_peek(r, 0);
			if (c == ']') {
				r->pos++;
				break;
			}
			if (c != ',') return rd_fail(r, 0, x->err, x->errlen, "expected , or ] after an element");
			r->pos++;
		}
	}
}

static int each_csv(struct each *x)
{
	struct rd *r = &x->r;
	rag_strv row = {0};
	size_t n, i, start;
	int rc = 0;
	for (;;) {
		struct csv c;
		jv rec;
		rd_skip(r, "\r\n");
		if (rd_peek(r, 0) < 0) break;
		n = rd_row(r);
		if (rd_clean(r, n, x->err, x->errlen) < 0) return -1;
		c = (struct csv){ x->r.name, r->buf + r->pos, n, 0, x->err, x->errlen };
		if (csv_row(&c, &row, &start) < 0) {
			rag_strv_free(&row);
			return rd_fail(r, 0, x->err, x->errlen, "a broken row");
		}
		if (!x->head.v) {
			x->head = row;
			row = (rag_strv){0};
			for (i = 0; i < x->head.n; i++) {
				size_t j;
				if (!*x->head.v[i]) return rd_fail(r, 0, x->err, x->errlen, "a header column has no name");
				for (j = 0; j < i; j++)
					if (!strcmp(x->head.v[i], x->head.v[j]))
						return rd_fail(r, 0, x->err, x->errlen, "a header column twice");
			}
			r->pos += n;
			continue;
		}
		if (row.n != x->head.n) {
			rag_strv_free(&row);
			return rd_fail(r, 0, x->err, x->errlen, "a row of another width than the header");
		}
		rec = jv_object();
		for (i = 0; i < row.n; i++) {
			const char *v = row.v[i], *p = v + strspn(v, " \t");
			if (!*v) continue;
			if (json_column(x->head.v[i]) && (*p == '[' || *p == '{')) {
				jv parsed = jv_parse(p);
				if (!jv_is_valid(parsed)) {
					jv_free(parsed);
					jv_free(rec);
					rag_strv_free(&row);
					return rd_fail(r, 0, x->err, x->errlen, "a column that does not hold valid JSON");
				}
				rec = jv_object_set(rec, jv_string(x->head.v[i]), parsed);
			} else {
				rec = jv_object_set(rec, jv_string(x->head.v[i]), jv_string(v));
			}
		}
		rag_strv_free(&row);
		start = rd_line(r);
		r->pos += n;
		if ((rc = give(x, rec, start))) break;
	}
	rag_strv_free(&row);
	if (!rc && !x->head.v) {
		rag_seterr(x->err, x->errlen, "%s: empty: a CSV test set starts with a header row (question,reference,...)",
		           x->r.name);
		return -2;
	}
	return rc;
}

/* A broken file: the whole-file reader's message, which names the place exactly as it always
 * has (read again, on this failure alone: a file that can be read again). */
static void exact_error(struct each *x, int format)
{
	size_t len;
	char *text, msg[RAG_ERRLEN], chunk[RD_CHUNK];
	rag_buf b = {0};
	jv all;
	if (fseeko(x->r.f, 0, SEEK_SET) != 0) return;
	while ((len = fread(chunk, 1, sizeof chunk, x->r.f)) > 0) rag_buf_add(&b, chunk, len);
	if (ferror(x->r.f)) {
		rag_buf_free(&b);
		return;
	}
	rag_buf_add(&b, "", 1);
	text = b.p;
	len = b.len - 1;
	all = parse_all(text, len, x->r.name, format, 0, NULL, msg, sizeof msg);
	if (!jv_is_valid(all)) rag_seterr(x->err, x->errlen, "%s", msg);
	jv_free(all);
	free(text);
}

int rag_testset_each(FILE *f, const char *name, int format, rag_fieldmap *fields, rag_testset_cb cb, void *ctx,
                     char *err, size_t errlen)
{
	struct each x = { { f, name ? name : "<stdin>", NULL, 0, 0, 0, 1, 1, 0, 0, 0, 0 }, format, fields, cb, ctx, 0,
	                  {0}, {{0}, NULL, 0}, err, errlen };
	int rc, c;
	size_t k;
	x.r.cap = RD_CHUNK;
	x.r.buf = rag_xmalloc(x.r.cap + 1);
	if (rd_peek(&x.r, 2) >= 0 && !memcmp(x.r.buf, "\xEF\xBB\xBF", 3)) x.r.pos = 3;
	if (format == RAG_TESTSET_AUTO) {
		/* the name's extension, else the first character that is not blank */
		for (k = 0; (c = rd_peek(&x.r, k)) >= 0 && strchr(" \t\r\n", c) && c; k++)
			;
		format = rag_testset_detect(name, c < 0 ? "" : (char[]){(char)c, 0}, c < 0 ? 0 : 1);
	}
	/* libjq strips a byte order mark at the start of what it parses: a second one, after ours */
	if (format != RAG_TESTSET_CSV && rd_peek(&x.r, 2) >= 0 && !memcmp(x.r.buf + x.r.pos, "\xEF\xBB\xBF", 3)) x.r.pos += 3;
	rc = format == RAG_TESTSET_CSV ? each_csv(&x) : each_json(&x);
	/* a broken file is said as the whole-file reader says it, which reads the whole file before
	 * it looks at the ids: a repeated id met first, then a syntax error further on, is the
	 * syntax error there too (where the file can be read again) */
	if (rc == -1 || rc == -3) exact_error(&x, format);
	if (!rc && x.r.ioerr) {
		rag_seterr(err, errlen, "%s: cannot read: %s", x.r.name, strerror(errno));
		rc = -1;
	}
	rag_strv_free(&x.head);
	ids_free(&x.ids);
	free(x.r.buf);
	return rc == -2 || rc == -3 ? -1 : rc;
}
