/* util.c - allocation, growable buffers and string vectors, files, clocks, the data directory. */
#include "base.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Out of memory is the one failure the library does not report upwards: every caller would
 * have to abort anyway, and the message must still get out. */
static void oom(void)
{
	static const char msg[] = "ragpipe: fatal: out of memory\n";
	ssize_t r = write(2, msg, sizeof msg - 1);
	(void)r;
	abort();
}

void *rag_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) oom();
	return p;
}

void *rag_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) oom();
	return p;
}

char *rag_xstrdup(const char *s)
{
	return rag_xstrndup(s, strlen(s));
}

char *rag_xstrndup(const char *s, size_t n)
{
	char *p = rag_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

void rag_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen) return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void rag_set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? rag_xstrdup(v) : NULL;
}

void *rag_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) oom();
	return p;
}

char *rag_xvasprintf(const char *fmt, va_list ap)
{
	char *p;
	if (vasprintf(&p, fmt, ap) < 0) oom();
	return p;
}

char *rag_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	p = rag_xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void rag_buf_add(rag_buf *b, const void *data, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1) cap *= 2;
		b->p = rag_xrealloc(b->p, cap);
		b->cap = cap;
	}
	if (n) memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = 0;
}

void rag_buf_adds(rag_buf *b, const char *s)
{
	rag_buf_add(b, s, strlen(s));
}

void rag_buf_base64(rag_buf *b, const void *data, size_t n)
{
	static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	size_t i;
	for (i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		char q[4];
		q[0] = A[v >> 18 & 63];
		q[1] = A[v >> 12 & 63];
		q[2] = i + 1 < n ? A[v >> 6 & 63] : '=';
		q[3] = i + 2 < n ? A[v & 63] : '=';
		rag_buf_add(b, q, 4);
	}
}

void rag_hex(char *out, const void *data, size_t n)
{
	static const char H[] = "0123456789abcdef";
	const unsigned char *p = data;
	size_t i;
	for (i = 0; i < n; i++) {
		out[2 * i] = H[p[i] >> 4];
		out[2 * i + 1] = H[p[i] & 15];
	}
	out[2 * n] = 0;
}

void rag_buf_hex(rag_buf *b, const void *data, size_t n)
{
	const unsigned char *p = data;
	char q[2 * 64 + 1];
	while (n) {
		size_t k = n < 64 ? n : 64;
		rag_hex(q, p, k);
		rag_buf_add(b, q, 2 * k);
		p += k;
		n -= k;
	}
}

void rag_buf_addf(rag_buf *b, const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	p = rag_xvasprintf(fmt, ap);
	va_end(ap);
	rag_buf_adds(b, p);
	free(p);
}

void rag_buf_free(rag_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void rag_strv_push(rag_strv *a, char *s)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = rag_xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = s;
}

void rag_strv_free(rag_strv *a)
{
	size_t i;
	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

double rag_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *rag_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	rag_buf b = {0};
	char chunk[65536];
	size_t n;
	if (!f) {
		snprintf(err, errlen, "cannot open \"%s\": %s", path, strerror(errno));
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		rag_buf_add(&b, chunk, n);
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read \"%s\": %s", path, strerror(errno));
		fclose(f);
		rag_buf_free(&b);
		return NULL;
	}
	fclose(f);
	if (!b.p) rag_buf_add(&b, "", 0);
	if (len) *len = b.len;
	return b.p;
}

#ifndef RAG_DATADIR
#define RAG_DATADIR "/usr/local/share/ragpipe"
#endif

/* Running from the build tree must find share/ next to bin/ without installing, and an
 * installed binary finds <prefix>/share/ragpipe next to <prefix>/bin whatever PREFIX it was
 * built with (a relocated or DESTDIR-staged install works too); the compiled-in directory is
 * the last resort. */
const char *rag_datadir(void)
{
	static char dir[PATH_MAX];
	static const char *const rel[] = {"../share/ragpipe", "../share"};
	const char *env = getenv("RAG_DATADIR");
	char exe[PATH_MAX], probe[PATH_MAX + 64];
	ssize_t n;
	char *slash;
	size_t i;

	if (env && *env) return env;
	if (dir[0]) return dir;
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			for (i = 0; i < sizeof rel / sizeof rel[0]; i++) {
				snprintf(probe, sizeof probe, "%s/%s/prompts", exe, rel[i]);
				if (access(probe, R_OK) == 0) {
					snprintf(dir, sizeof dir, "%.*s/%s", (int)(sizeof dir - 32), exe, rel[i]);
					return dir;
				}
			}
		}
	}
	snprintf(dir, sizeof dir, "%s", RAG_DATADIR);
	return dir;
}

int rag_write_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR) continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static uint64_t id_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
	for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

const char *rag_idtab_id(const rag_idtab *t, size_t row)
{
	return t->ids + t->off[row];
}

long rag_idtab_find(const rag_idtab *t, const char *id)
{
	size_t i, mask = t->tab_cap - 1;
	if (!t->tab_cap) return -1;
	for (i = (size_t)id_hash(id) & mask; t->tab[i]; i = (i + 1) & mask)
		if (strcmp(rag_idtab_id(t, t->tab[i] - 1), id) == 0) return (long)t->tab[i] - 1;
	return -1;
}

static void idtab_put(rag_idtab *t, size_t row)
{
	size_t i, mask = t->tab_cap - 1;
	for (i = (size_t)id_hash(rag_idtab_id(t, row)) & mask; t->tab[i]; i = (i + 1) & mask)
		;
	t->tab[i] = (uint32_t)(row + 1);
}

long rag_idtab_add(rag_idtab *t, const char *id)
{
	size_t row = t->n, len = strlen(id) + 1, r;
	if (t->n >= UINT32_MAX - 1) return -1;
	if (row == t->off_cap) {
		t->off_cap = t->off_cap ? 2 * t->off_cap : 256;
		t->off = rag_xrealloc(t->off, t->off_cap * sizeof *t->off);
	}
	if (t->len + len > t->cap) {
		while (t->len + len > t->cap) t->cap = t->cap ? 2 * t->cap : 4096;
		t->ids = rag_xrealloc(t->ids, t->cap);
	}
	memcpy(t->ids + t->len, id, len);
	t->off[row] = t->len;
	t->len += len;
	t->n++;
	if (2 * t->n > t->tab_cap) {
		free(t->tab);
		t->tab_cap = t->tab_cap ? 2 * t->tab_cap : 1024;
		t->tab = rag_xcalloc(t->tab_cap, sizeof *t->tab);
		for (r = 0; r < t->n; r++) idtab_put(t, r);
	} else {
		idtab_put(t, row);
	}
	return (long)row;
}

void rag_idtab_free(rag_idtab *t)
{
	free(t->ids);
	free(t->off);
	free(t->tab);
	memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------- CSV for people */

/* the characters that start a formula in a spreadsheet (OWASP: CSV injection) */
static int csv_formula_char(char c)
{
	return c && strchr("=+-@\t\r", c) != NULL;
}

/* a plain decimal number, as a spreadsheet reads it and a person writes it: [+-]digits[.digits]
 * [e[+-]digits] (no hex, inf or nan, which are text there) */
static int csv_number(const char *s)
{
	int digits = 0;
	if (*s == '+' || *s == '-') s++;
	while (*s >= '0' && *s <= '9') s++, digits++;
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9') s++, digits++;
	}
	if (!digits) return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-') s++;
		if (!(*s >= '0' && *s <= '9')) return 0;
		while (*s >= '0' && *s <= '9') s++;
	}
	return !*s;
}

int rag_csv_protect(const char *s)
{
	if (!s) return 0;
	if (csv_formula_char(s[0])) return !csv_number(s);
	return s[0] == '\'' && (csv_formula_char(s[1]) || s[1] == '\'');
}

const char *rag_csv_unprotect(const char *s)
{
	return s && s[0] == '\'' && (csv_formula_char(s[1]) || s[1] == '\'') ? s + 1 : s;
}
