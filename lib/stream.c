/* stream.c - the record loop: one JSON object per input line, exactly one per output line, in
 * input order, with the judge's work for many records in flight at once.
 *
 * Input is read with poll()+read() into our own buffer rather than stdio, so that waiting for
 * the next line and waiting for the judge are one wait: a slow upstream stage must not stall
 * requests already in flight, and a slow judge must not stop us reading ahead (up to window).
 *
 * What is read ahead is bounded twice: at most window records in flight, and at most budget
 * bytes for them and the read buffer together, each record counted as RAG_STREAM_FACTOR times
 * its line (about what libjq takes to hold it) plus RAG_STREAM_OVERHEAD. While that is full the
 * stream reads nothing (the judge waits without the input's POLLIN), so a slow judge holds the
 * upstream writer in the pipe instead of the input piling up here; a line read is a line we
 * have room for, and one longer than the whole budget still goes, alone. */
#include "base.h"
#include "usage.h"
#include "record.h"
#include "stream.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The signal the tool's handler caught (rag_stream_opts.interrupted), 0 for none. */
static sig_atomic_t interrupted(const rag_stream_opts *o)
{
	return o->interrupted ? *o->interrupted : 0;
}

struct rag_stream {
	const rag_stream_opts *o;
	int stop_strict;          /* a bad line in strict mode: read no more */
	char stop_msg[RAG_ERRLEN];
	int remote_failed, input_failed;
};

void rag_item_hold(rag_item *it)
{
	it->pending++;
}

void rag_item_release(rag_item *it)
{
	if (it->pending > 0) it->pending--;
}

void rag_item_where(const rag_item *it, char *buf, size_t n)
{
	const rag_stream_opts *o = it->stream_->o;
	const char *id = o->position_by_id && jv_get_kind(it->rec) == JV_KIND_OBJECT ? rag_record_str(it->rec, "id") : NULL;
	if (id) snprintf(buf, n, "%s, id \"%.200s\"", o->input_name ? o->input_name : "<stdin>", id);
	else snprintf(buf, n, "%s:%zu", o->input_name ? o->input_name : "<stdin>", it->lineno);
}

static void report(rag_item *it, const char *msg)
{
	const rag_stream_opts *o = it->stream_->o;
	char pos[300];
	char *line;
	if (!o->report) return;
	rag_item_where(it, pos, sizeof pos);
	line = rag_xasprintf("error (at %s): %s", pos, msg);
	o->report(o->progress_ctx, line);
	free(line);
}

void rag_item_remote_error(rag_item *it, const char *msg)
{
	it->remote = 1;
	it->stream_->remote_failed = 1;
	report(it, msg);
}

static void item_position(const rag_item *it, char *buf, size_t n)
{
	snprintf(buf, n, "%s:%zu", it->stream_->o->input_name ? it->stream_->o->input_name : "<stdin>",
	         it->lineno);
}

static void mark_bad(rag_item *it, const char *tool, const char *metric, const char *msg)
{
	char pos[300];
	jv e = jv_object();
	rag_stream *s = it->stream_;
	item_position(it, pos, sizeof pos);
	e = jv_object_set(e, jv_string("tool"), jv_string(tool));
	if (metric) e = jv_object_set(e, jv_string("metric"), jv_string(metric));
	e = jv_object_set(e, jv_string("message"), jv_string(msg));
	e = jv_object_set(e, jv_string("at"), jv_string(pos));
	it->rec = rag_record_add_error(it->rec, e);
	it->bad = 1;
	s->input_failed = 1;
	if (!s->o->strict) report(it, msg);
	if (s->o->strict && !s->stop_strict) {
		s->stop_strict = 1;
		snprintf(s->stop_msg, sizeof s->stop_msg, "error (at %s): %s", pos, msg);
	}
}

void rag_item_input_error(rag_item *it, const char *tool, const char *metric, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	va_start(ap, fmt);
	msg = rag_xvasprintf(fmt, ap);
	va_end(ap);
	mark_bad(it, tool, metric, msg);
	free(msg);
}

void rag_item_not_applicable(rag_item *it, const char *metric, const char *reason)
{
	it->rec = rag_record_set(it->rec, "scores", metric, jv_null());
	it->rec = rag_record_set(it->rec, "not_applicable", metric, jv_string(reason));
	it->not_applicable++;
}

int rag_item_question(rag_item *it, const char **s, char *err, size_t errlen)
{
	char *q;
	if (rag_record_text(it->rec, "question", s, err, errlen) < 0) return -1;
	if (!(q = rag_record_question_in_context(it->rec, *s))) return 0;
	free(it->question_);
	it->question_ = q;
	*s = q;
	return 0;
}

/* The stream's own entry for a record whose line had invalid UTF-8: written with U+FFFD and not
 * judged, by this stage and, since it finds this entry, by every later one (upstream_bad). */
static const char bad_utf8[] = "invalid UTF-8 (replaced with U+FFFD; record not judged)";

/* An earlier stage could not read this record's line: it wrote only {"errors": [...]}, or the
 * record with the entry for invalid UTF-8. Such a record is passed on as it came, rather than
 * judged or given a second complaint for the same line. Consumes rec. */
static int upstream_bad(jv rec)
{
	jv errors = jv_object_get(jv_copy(rec), jv_string("errors"));
	int bad = 0;
	if (jv_get_kind(errors) == JV_KIND_ARRAY) {
		if (jv_object_length(jv_copy(rec)) == 1) bad = 1;
		jv_array_foreach(errors, i, e) {
			jv m = jv_get_kind(e) == JV_KIND_OBJECT ? jv_object_get(jv_copy(e), jv_string("message")) : jv_invalid();
			if (jv_get_kind(m) == JV_KIND_STRING && strcmp(jv_string_value(m), bad_utf8) == 0) bad = 1;
			jv_free(m);
			jv_free(e);
		}
	}
	jv_free(errors);
	jv_free(rec);
	return bad;
}

/* Turn one line into an item: parsed, or carrying the reason it could not be. */
static rag_item *make_item(rag_stream *s, size_t lineno, const char *line, size_t len, int too_long)
{
	rag_item *it = rag_xmalloc(sizeof *it);
	const char *prog = s->o->prog;
	size_t i;
	memset(it, 0, sizeof *it);
	it->lineno = lineno;
	it->stream_ = s;
	it->rec = jv_object();

	if (too_long) {
		rag_item_input_error(it, prog, NULL, "line is longer than the limit of %zu bytes (--max-line)",
		                     s->o->max_line);
		return it;
	}
	if (len && line[len - 1] == '\r') len--;
	for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		;
	if (i == len) {
		rag_item_input_error(it, prog, NULL, "empty line");
		return it;
	}
	if (memchr(line, 0, len)) {
		/* no JSON text holds a raw NUL (a string spells it \u0000); and libjq 1.6 leaks on one */
		rag_item_input_error(it, prog, NULL, "not valid JSON: a NUL byte at byte %zu",
		                     (size_t)((const char *)memchr(line, 0, len) - line) + 1);
		return it;
	}
	if (!rag_utf8_valid(line, len)) {
		/* keep what can be kept: the record with U+FFFD, but not judged */
		char *fixed = rag_utf8_sanitize(line, len);
		jv v = jv_parse(fixed);
		free(fixed);
		if (jv_get_kind(v) == JV_KIND_OBJECT) {
			jv_free(it->rec);
			it->rec = v;
		} else {
			jv_free(v);
		}
		rag_item_input_error(it, prog, NULL, "%s", bad_utf8);
		return it;
	}
	jv v = jv_parse_sized(line, (int)len);
	if (!jv_is_valid(v)) {
		jv msg = jv_invalid_get_msg(v);
		/* jq quotes the whole line in its message; a position is enough */
		const char *m = jv_get_kind(msg) == JV_KIND_STRING ? jv_string_value(msg) : "parse error";
		const char *cut = strstr(m, " (while parsing");
		rag_item_input_error(it, prog, NULL, "not valid JSON: %.*s", cut ? (int)(cut - m) : 200, m);
		jv_free(msg);
		return it;
	}
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		const char *k = jv_kind_name(jv_get_kind(v));
		rag_item_input_error(it, prog, NULL, "line is a JSON %s, not an object", k);
		jv_free(v);
		return it;
	}
	jv_free(it->rec);
	it->rec = v;
	if (upstream_bad(jv_copy(v))) it->passthrough = 1;
	return it;
}

static void free_item(rag_item *it)
{
	free(it->question_);
	jv_free(it->rec);
	free(it);
}

/* stdout failures: EPIPE means the reader went away, which ends us quietly. */
static int write_item(FILE *out, rag_item *it, int unbuffered, int *epipe)
{
	jv dumped = jv_dump_string(jv_copy(it->rec), 0);
	const char *p = jv_string_value(dumped);
	size_t n = (size_t)jv_string_length_bytes(jv_copy(dumped));
	int ok = fwrite(p, 1, n, out) == n && putc('\n', out) != EOF;
	jv_free(dumped);
	if (ok && unbuffered) ok = fflush(out) == 0;
	if (!ok && errno == EPIPE) *epipe = 1;
	return ok ? 0 : -1;
}

typedef struct reader {
	int fd;
	char *buf;
	size_t len, cap, start;
	int eof;
	int skipping;             /* inside an over-long line: discard to the next newline */
	size_t skipped;
	const volatile sig_atomic_t *intr;   /* a signal came: a read it broke is not retried */
} reader;

#define READ_BASE ((size_t)64 << 10)   /* the buffer's usual size, and the most one read asks for */

/* Read what is available now (one read) of at most want bytes. The buffer holds what is unread
 * and grows only for a line longer than it; it goes back to READ_BASE once drained. */
static int reader_fill(reader *r, size_t want, char *err, size_t errlen)
{
	ssize_t n;
	if (r->start > 0 && r->start == r->len) r->start = r->len = 0;
	if (r->len == 0 && r->cap > 4 * READ_BASE) {
		free(r->buf);
		r->buf = NULL;
		r->cap = 0;
	}
	if (r->start > 0 && (r->start > r->cap / 2 || r->cap - r->len < want)) {
		memmove(r->buf, r->buf + r->start, r->len - r->start);
		r->len -= r->start;
		r->start = 0;
	}
	if (r->cap - r->len < want) {
		size_t cap = r->cap ? r->cap : READ_BASE;
		while (cap - r->len < want) cap *= 2;
		r->buf = rag_xrealloc(r->buf, cap);
		r->cap = cap;
	}
	do n = read(r->fd, r->buf + r->len, want);
	while (n < 0 && errno == EINTR && !(r->intr && *r->intr));
	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN) return 0;
		snprintf(err, errlen, "cannot read input: %s", strerror(errno));
		return -1;
	}
	if (n == 0) r->eof = 1;
	r->len += (size_t)n;
	return 0;
}

/* Next complete line, or 0 when more input is needed. *too_long set for a discarded line. The
 * line is not taken yet: the caller that takes it sets r->start to *next (a discarded line is
 * gone already: *next is where the reader is). */
static int reader_line(reader *r, size_t max, const char **line, size_t *len, int *too_long, size_t *next)
{
	for (;;) {
		size_t have = r->len - r->start;
		char *b = r->buf ? r->buf + r->start : NULL, *nl = have ? memchr(b, '\n', have) : NULL;
		if (r->skipping) {
			if (nl) {
				r->start += (size_t)(nl - b) + 1;
				r->skipping = 0;
				*line = NULL;
				*len = 0;
				*too_long = 1;
				*next = r->start;
				return 1;
			}
			r->start = r->len;
			if (r->eof) {
				r->skipping = 0;
				*line = NULL;
				*len = 0;
				*too_long = 1;
				*next = r->start;
				return 1;
			}
			return 0;
		}
		/* max counts the line's content: the CR of a CRLF ending is not part of it */
		if (nl && (size_t)(nl - b) <= max + (nl > b && nl[-1] == '\r')) {
			*line = b;
			*len = (size_t)(nl - b);
			*too_long = 0;
			*next = r->start + *len + 1;
			return 1;
		}
		if (nl || have > max + 1) {
			r->skipping = 1;
			continue;
		}
		if (r->eof && have > 0 && have > max + (b[have - 1] == '\r')) {
			r->skipping = 1;
			continue;
		}
		if (r->eof && have > 0) {
			*line = b;
			*len = have;
			*too_long = 0;
			*next = r->len;
			return 1;
		}
		return 0;
	}
}

/* What a record in flight counts against the budget. */
static size_t item_cost(size_t len)
{
	return len * RAG_STREAM_FACTOR + RAG_STREAM_OVERHEAD;
}

/* Nothing from it on waits for an asynchronous operation. */
static int settled(const rag_item *it)
{
	for (; it; it = it->next)
		if (it->pending) return 0;
	return 1;
}

int rag_stream_run(FILE *in, FILE *out, const rag_stream_opts *opts, const rag_stream_ops *ops,
                   void *ctx, rag_stream_stats *stats, char *err, size_t errlen)
{
	rag_stream s;
	rag_stream_opts o = *opts;
	reader r = {0};
	rag_item *head = NULL, *tail = NULL;
	long held = 0, lineno = 0, written = 0;
	size_t held_bytes = 0;    /* item_cost of the records in flight */
	int rc = RAG_EXIT_OK, epipe = 0, failed_write = 0, cancelled = 0, wrote = 0;
	double t0 = rag_now(), last_progress = 0;

	if (!o.window) o.window = 256;
	if (!o.max_line) o.max_line = (size_t)8 << 20;
	if (!o.budget) o.budget = RAG_STREAM_BUDGET;
	memset(&s, 0, sizeof s);
	s.o = &o;
	memset(stats, 0, sizeof *stats);
	r.fd = fileno(in);
	r.intr = o.interrupted;
	err[0] = 0;

	for (;;) {
		/* epipe && !o.drain: the reader went away, and nobody else wants what we read */
		int can_take = !s.stop_strict && !interrupted(&o) && !(epipe && !o.drain) && !failed_write;
		const char *line;
		size_t len, next, want = 0;
		int too_long, fd, starved = 0;

		/* take the complete lines already buffered, while the window and the budget have room
		 * (a record alone in flight is taken whatever its size) */
		while (can_take && held < o.window) {
			rag_item *it;
			if (!reader_line(&r, o.max_line, &line, &len, &too_long, &next)) {
				starved = 1;
				break;
			}
			/* a line too long is gone already (the reader skipped it): its item is taken */
			if (held > 0 && !too_long && held_bytes + item_cost(len) > o.budget) break;
			it = make_item(&s, (size_t)++lineno, line, len, too_long);
			r.start = next;
			it->bytes = len;
			if (tail) tail->next = it; else head = it;
			tail = it;
			held++;
			held_bytes += item_cost(len);
			stats->records++;
			if (!it->bad && !it->passthrough) {
				rag_item_hold(it);    /* held until start returns: sync judges finish inside */
				ops->start(it, ctx);
				rag_item_release(it);
			}
			can_take = !s.stop_strict && !interrupted(&o);
		}

		if ((interrupted(&o) || (epipe && !o.drain) || failed_write) && !cancelled) {
			/* nobody will see the rest, or the user wants out: fail what is in flight so that
			 * every record read so far still gets its line (with an error saying why) */
			cancelled = 1;
			if (ops->cancel) ops->cancel(ctx);
		}

		/* write what is complete at the head, in order */
		while (head && head->pending == 0) {
			rag_item *it = head;
			if (s.stop_strict && it->bad)
				break;    /* the line that stopped a strict run is named, not written */
			if (!it->bad && !it->passthrough && ops->finish) ops->finish(it, ctx);
			if (it->bad) stats->input_errors++;
			if (it->remote) stats->remote_errors++;
			if (it->not_applicable) stats->not_applicable++;
			rag_usage_add(&stats->usage, &it->usage);
			if (o.observe) o.observe(it, ctx);
			if (out && !epipe && !failed_write && write_item(out, it, o.unbuffered, &epipe) < 0 && !epipe) {
				failed_write = 1;
				snprintf(err, errlen, "cannot write output: %s", strerror(errno));
			}
			written++;
			wrote = 1;
			head = it->next;
			if (!head) tail = NULL;
			held_bytes -= item_cost(it->bytes);
			free_item(it);
			held--;
		}

		if (o.progress && rag_now() - last_progress > 0.5) {
			last_progress = rag_now();
			o.progress(o.progress_ctx, written, lineno, held);
		}

		/* a strict stop: once nothing read is still in flight, the bad line (counted, not
		 * written) and what was read after it go; a line found bad while it was judged stops
		 * the run as a bad line read does */
		if (s.stop_strict && head && head->bad && settled(head)) {
			stats->input_errors++;
			break;
		}
		if (!head && (s.stop_strict || interrupted(&o) || (epipe && !o.drain) || failed_write ||
		              (r.eof && r.start == r.len && !r.skipping)))
			break;

		/* whatever is written goes out before we wait: the next stage may be waiting for it */
		if (out && wrote && !epipe && !failed_write && fflush(out) != 0) {
			if (errno == EPIPE) epipe = 1;
			else {
				failed_write = 1;
				snprintf(err, errlen, "cannot write output: %s", strerror(errno));
			}
		}
		wrote = 0;

		/* read only when no complete line waits, and only what the budget has room for: the
		 * records in flight and the part of a line already buffered count against it */
		if (!r.eof && can_take && held < o.window && starved) {
			size_t used = held_bytes + (r.len - r.start);
			want = used < o.budget ? o.budget - used : 0;
			if (want > READ_BASE) want = READ_BASE;
			if (held == 0) want = READ_BASE;             /* a line longer than the budget, alone */
			if (want < 4096) want = 0;                   /* too little room: wait for records to go */
		}
		fd = want ? r.fd : -1;
		if (ops->run(ctx, fd, 0.25) && fd >= 0 && reader_fill(&r, want, err, errlen) < 0) {
			rc = RAG_EXIT_INTERNAL;
			r.eof = 1;
			r.start = r.len;
		}
	}

	/* anything left (strict stop): free it */
	while (head) {
		rag_item *it = head;
		head = it->next;
		free_item(it);
	}
	free(r.buf);
	if (out && !failed_write && !epipe && fflush(out) != 0) {
		if (errno == EPIPE) epipe = 1;
		else {
			failed_write = 1;
			snprintf(err, errlen, "cannot write output: %s", strerror(errno));
		}
	}

	stats->seconds = rag_now() - t0;
	stats->interrupted = (int)interrupted(&o);
	stats->closed = epipe;
	if (failed_write) return RAG_EXIT_INTERNAL;
	if (rc != RAG_EXIT_OK) return rc;
	if (s.stop_strict) {
		snprintf(err, errlen, "%s", s.stop_msg);
		return RAG_EXIT_DATA;
	}
	if (interrupted(&o)) return 128 + (int)interrupted(&o);
	if (epipe && !o.drain) return RAG_EXIT_OK;   /* a drained run ends as if it had been read */
	if (s.remote_failed) return RAG_EXIT_REMOTE;
	if (s.input_failed) return RAG_EXIT_DATA;
	return RAG_EXIT_OK;
}
