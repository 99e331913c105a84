/* genchunk.c - documents cut into chunks for rag-gen: by Markdown headings, then paragraphs, then
 * sentences, within a size limit. A chunk's id is the file's path and a hash of the chunk's
 * text, so the same document gives the same ids on every run, and an edit changes the ids of
 * the chunks it touched only. */
#include "base.h"
#include "usage.h"
#include "offline.h"
#include "gen.h"

#include <stdlib.h>
#include <string.h>

/* The level of a Markdown ATX heading line ("## Title"), else 0; *title its text. */
static int heading(const char *line, size_t n, const char **title, size_t *tlen)
{
	size_t i = 0;
	while (i < n && i < 6 && line[i] == '#') i++;
	if (!i || i >= n || (line[i] != ' ' && line[i] != '\t')) return 0;
	while (i < n && (line[i] == ' ' || line[i] == '\t')) i++;
	while (n > i && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '#' || line[n - 1] == '\r')) n--;
	*title = line + i;
	*tlen = n - i;
	return *tlen > 0 ? 1 : 0;
}

static int blank(const char *line, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') return 0;
	return 1;
}

typedef struct splitter {
	const char *path;
	long max;                 /* characters a chunk may hold */
	jv out;                   /* the chunks so far */
	rag_buf cur;              /* the chunk being filled */
	char *head;               /* the section's heading, or NULL */
	int head_only;            /* the chunk holds its heading alone, so far */
} splitter;

static void emit(splitter *s)
{
	char hex[65], *id, *text;
	size_t n = s->cur.len;
	int k, dup = 1, len;
	while (n && (s->cur.p[n - 1] == '\n' || s->cur.p[n - 1] == ' ')) n--;
	/* a chunk that is its heading alone says nothing to ask about */
	if (!n || s->head_only) {
		s->head_only = 0;
		s->cur.len = 0;
		return;
	}
	text = rag_xstrndup(s->cur.p, n);
	s->cur.len = 0;
	rag_sha256_hex(text, strlen(text), hex);
	hex[8] = 0;
	id = rag_xasprintf("%s#%s", s->path, hex);
	/* the same text twice in one file: the second is "#hash-2", still stable */
	len = jv_array_length(jv_copy(s->out));
	for (k = 0; k < len; k++) {
		jv c = jv_array_get(jv_copy(s->out), k);
		char buf[600];
		const char *cid = rag_json_str(c, "id", buf, sizeof buf);
		if (!strncmp(cid, id, strlen(id)) && (!cid[strlen(id)] || cid[strlen(id)] == '-')) dup++;
		jv_free(c);
	}
	if (dup > 1) {
		char *d = rag_xasprintf("%s-%d", id, dup);
		free(id);
		id = d;
	}
	s->out = jv_array_append(s->out, JV_OBJECT(jv_string("id"), jv_string(id), jv_string("text"), jv_string(text),
	                                             jv_string("heading"), s->head ? jv_string(s->head) : jv_null()));
	free(id);
	free(text);
}

/* One piece (a paragraph or a sentence) into the chunk: a new chunk when it would overflow. */
static void add_piece(splitter *s, const char *p, size_t n, const char *sep)
{
	char *tmp;
	double have, add;
	if (!n) return;
	tmp = rag_xstrndup(p, n);
	add = rag_usage_chars(tmp);
	if (s->cur.len) {
		char *c = rag_xstrndup(s->cur.p, s->cur.len);
		have = rag_usage_chars(c);
		free(c);
		if (have + add + (double)strlen(s->head_only ? "\n\n" : sep) > (double)s->max) emit(s);
	}
	if (s->cur.len) rag_buf_adds(&s->cur, s->head_only ? "\n\n" : sep);
	s->head_only = 0;
	rag_buf_add(&s->cur, tmp, n);
	free(tmp);
}

/* A piece longer than the limit alone, cut at code point boundaries. */
static void add_long(splitter *s, const char *p, size_t n)
{
	size_t i = 0, start = 0;
	long cp, count = 0;
	while (i < n) {
		size_t l = rag_utf8_decode(p + i, n - i, &cp);
		if (count == s->max) {
			add_piece(s, p + start, i - start, " ");
			emit(s);
			start = i;
			count = 0;
		}
		i += l;
		count++;
	}
	add_piece(s, p + start, n - start, " ");
}

static void add_paragraph(splitter *s, const char *p, size_t n)
{
	char *para;
	rag_strv sent = {0};
	size_t i;
	if (!n) return;
	para = rag_xstrndup(p, n);
	if (rag_usage_chars(para) <= (double)s->max) {
		add_piece(s, p, n, "\n\n");
		free(para);
		return;
	}
	/* too long for one chunk: its sentences, each as long as the limit at most */
	rag_offline_sentences(para, &sent, 0);
	for (i = 0; i < sent.n; i++) {
		const char *t = sent.v[i];
		if (rag_usage_chars(t) > (double)s->max) add_long(s, t, strlen(t));
		else add_piece(s, t, strlen(t), rag_text_lang(t)[0] == 'z' ? "" : " ");
	}
	rag_strv_free(&sent);
	free(para);
}

jv rag_gen_chunk_split(const char *path, const char *text, long max_chars, char **title)
{
	splitter s;
	const char *p = text, *e, *para = NULL, *pend = NULL, *t;
	char *ok = NULL;
	int fence = 0;
	size_t tl;

	memset(&s, 0, sizeof s);
	s.path = path;
	s.max = max_chars > 0 ? max_chars : 1500;
	s.out = jv_array();
	if (title) *title = NULL;
	if (!rag_utf8_valid(text, strlen(text))) p = text = ok = rag_utf8_sanitize(text, strlen(text));
	for (; *p; p = *e ? e + 1 : e) {
		size_t n;
		e = strchr(p, '\n');
		if (!e) e = p + strlen(p);
		n = (size_t)(e - p);
		if (n >= 3 && (!strncmp(p, "```", 3) || !strncmp(p, "~~~", 3))) fence = !fence;
		if (!fence && heading(p, n, &t, &tl)) {
			if (para) add_paragraph(&s, para, (size_t)(pend - para));
			para = NULL;
			emit(&s);
			free(s.head);
			s.head = rag_xstrndup(t, tl);
			if (title && !*title) *title = rag_xstrdup(s.head);
			/* the heading opens its chunk: the text under it is read with it */
			add_piece(&s, p, n, "\n\n");
			s.head_only = 1;
			continue;
		}
		if (!fence && blank(p, n)) {
			if (para) add_paragraph(&s, para, (size_t)(pend - para));
			para = NULL;
			continue;
		}
		if (!para) para = p;
		pend = e;
	}
	if (para) add_paragraph(&s, para, (size_t)(pend - para));
	emit(&s);
	free(s.head);
	rag_buf_free(&s.cur);
	free(ok);
	return s.out;
}
