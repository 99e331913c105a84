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
 * have room for, and one longer than the whole budget still goes, alone.
 *
 * Output goes the same way round: records are written to our own buffer, and from it only what
 * the pipe takes without blocking (poll()+write() of at most PIPE_BUF). A stage blocked in a
 * write would hold its requests' slots of the shared budget (RAG_INFLIGHT) with their replies
 * unread, while the stage downstream, whose reading would unblock it, waits for a slot: a
 * pipeline that never ends. What waits in the buffer (a queue of chunks, each freed once
 * written) counts against the budget like the records in flight, so a slow reader still holds
 * the input back; and with nothing in flight and no room to read, the loop sleeps until the
 * reader takes something. */
#include "base.h"
#include "usage.h"
#include "record.h"
#include "stream.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* The output waiting for its reader: a queue of chunks of OCHUNK bytes, the oldest written first
 * and freed once written. One buffer that grew and was moved down as it was written held up to
 * twice what waited, and as many old copies as realloc left behind: rag-kw at --max-memory
 * 8 MiB peaked at 22 MB behind a slow reader, 12 MB behind a fast one. */
#define OCHUNK ((size_t)64 << 10)

typedef struct ochunk {
	struct ochunk *next;
	size_t start, len;        /* data[start..len) waits */
	char data[];
} ochunk;

typedef struct outq {
	ochunk *head, *tail;
	size_t waiting;           /* bytes in the chunks not yet written */
} outq;

static void outq_add(outq *q, const char *p, size_t n)
{
	while (n) {
		size_t room, k;
		if (!q->tail || q->tail->len == OCHUNK) {
			ochunk *c = rag_xmalloc(sizeof *c + OCHUNK);
			c->next = NULL;
			c->start = c->len = 0;
			if (q->tail) q->tail->next = c; else q->head = c;
			q->tail = c;
		}
		room = OCHUNK - q->tail->len;
		k = n < room ? n : room;
		memcpy(q->tail->data + q->tail->len, p, k);
		q->tail->len += k;
		q->waiting += k;
		p += k;
		n -= k;
	}
}

/* n bytes of the head chunk written: drop them, and the chunk once it is empty */
static void outq_taken(outq *q, size_t n)
{
	ochunk *c = q->head;
	c->start += n;
	q->waiting -= n;
	if (c->start == c->len) {
		q->head = c->next;
		if (!q->head) q->tail = NULL;
		free(c);
	}
}

static void outq_free(outq *q)
{
	while (q->head) {
		ochunk *c = q->head;
		q->head = c->next;
		free(c);
	}
	q->tail = NULL;
	q->waiting = 0;
}

/* A record's line onto the output queue. */
static void buffer_item(outq *q, rag_item *it)
{
	jv dumped = jv_dump_string(jv_copy(it->rec), 0);
	outq_add(q, jv_string_value(dumped), (size_t)jv_string_length_bytes(jv_copy(dumped)));
	outq_add(q, "\n", 1);
	jv_free(dumped);
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
#define OUT_POLL 0.01                   /* seconds between looks at an output that took nothing */

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

/* One run of the record loop: what rag_stream_run's steps share. */
typedef struct loop {
	rag_stream s;
	rag_stream_opts o;
	reader r;
	const rag_stream_ops *ops;
	void *ctx;
	FILE *out;
	rag_stream_stats *stats;
	rag_item *head, *tail;    /* the records in flight, in input order */
	long held, lineno, written;
	size_t held_bytes;        /* item_cost of the records in flight */
	size_t blocked;           /* item_cost of a complete line the budget had no room for, or 0 */
	int epipe, failed_write;
	int out_fd;               /* out's descriptor, written from oq; -1: none (out NULL, or a
	                           * memory stream, written with stdio) */
	outq oq;                  /* written records not yet taken by out */
	size_t out_chunk;         /* the most one write gives out when it must not block */
	char *err;
	size_t errlen;
} loop;

/* Bytes of written records that out has not taken yet, and the memory they hold: their chunks,
 * the head's written part and the tail's room counted (what the budget must cover). */
static size_t out_waiting(const loop *u)
{
	return u->oq.waiting;
}

static size_t out_held(const loop *u)
{
	return u->oq.head ? u->oq.waiting + u->oq.head->start + (OCHUNK - u->oq.tail->len) : 0;
}

/* epipe && !o.drain: the reader went away, and nobody else wants what we read */
static int run_abandoned(const loop *u)
{
	return interrupted(&u->o) || (u->epipe && !u->o.drain) || u->failed_write;
}

/* Take the complete lines already buffered, while the window and the budget have room (a record
 * alone in flight is taken whatever its size), and start each. Returns 1 when no complete line
 * was left (more must be read); *can_take says whether taking may go on. */
static int take_lines(loop *u, int *can_take)
{
	const char *line;
	size_t len, next;
	int too_long;

	u->blocked = 0;
	while (*can_take && u->held < u->o.window) {
		rag_item *it;
		if (!reader_line(&u->r, u->o.max_line, &line, &len, &too_long, &next))
			return 1;
		/* a line too long is gone already (the reader skipped it): its item is taken */
		if ((u->held > 0 || out_waiting(u)) && !too_long && u->held_bytes + out_held(u) + item_cost(len) > u->o.budget) {
			u->blocked = item_cost(len);
			break;
		}
		it = make_item(&u->s, (size_t)++u->lineno, line, len, too_long);
		u->r.start = next;
		it->bytes = len;
		if (u->tail) u->tail->next = it; else u->head = it;
		u->tail = it;
		u->held++;
		u->held_bytes += item_cost(len);
		u->stats->records++;
		if (!it->bad && !it->passthrough) {
			rag_item_hold(it);    /* held until start returns: sync judges finish inside */
			u->ops->start(it, u->ctx);
			rag_item_release(it);
		}
		*can_take = !u->s.stop_strict && !interrupted(&u->o);
	}
	return 0;
}

/* Write what is complete at the head, in order, and free it. Returns how many went. */
static long write_ready(loop *u)
{
	long n = 0;
	while (u->head && u->head->pending == 0) {
		rag_item *it = u->head;
		if (u->s.stop_strict && it->bad)
			break;    /* the line that stopped a strict run is named, not written */
		if (!it->bad && !it->passthrough && u->ops->finish) u->ops->finish(it, u->ctx);
		if (it->bad) u->stats->input_errors++;
		if (it->remote) u->stats->remote_errors++;
		if (it->not_applicable) u->stats->not_applicable++;
		rag_usage_add(&u->stats->usage, &it->usage);
		if (u->o.observe) u->o.observe(it, u->ctx);
		if (u->out && !u->epipe && !u->failed_write) buffer_item(&u->oq, it);
		u->written++;
		u->head = it->next;
		if (!u->head) u->tail = NULL;
		u->held_bytes -= item_cost(it->bytes);
		free_item(it);
		u->held--;
		n++;
	}
	return n;
}

/* Write what waits in the output queue: what out takes now without blocking (a pipe that polls
 * writable takes PIPE_BUF bytes whole), or, with block, all of it. A closed pipe is not an error. */
static void push_out(loop *u, int block)
{
	while (out_waiting(u) && !u->epipe && !u->failed_write) {
		ochunk *c = u->oq.head;
		size_t n = c->len - c->start;
		ssize_t w;
		if (u->out_fd < 0) {
			/* a stream with no descriptor (open_memstream): it takes everything */
			if (fwrite(c->data + c->start, 1, n, u->out) != n || fflush(u->out) != 0) {
				u->failed_write = 1;
				snprintf(u->err, u->errlen, "cannot write output: %s", strerror(errno));
			}
			outq_taken(&u->oq, n);
			continue;
		}
		if (!block) {
			struct pollfd p = {u->out_fd, POLLOUT, 0};
			if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLOUT | POLLERR | POLLHUP))) break;
			if (n > u->out_chunk) n = u->out_chunk;
		}
		w = write(u->out_fd, c->data + c->start, n);
		if (w < 0 && errno == EINTR) {
			if (interrupted(&u->o) && !block) break;
			continue;
		}
		if (w < 0 && errno == EPIPE) u->epipe = 1;
		else if (w < 0) {
			u->failed_write = 1;
			snprintf(u->err, u->errlen, "cannot write output: %s", strerror(errno));
		} else {
			outq_taken(&u->oq, (size_t)w);
		}
	}
	if (u->epipe || u->failed_write) outq_free(&u->oq);   /* nobody to write to */
}

/* How much to read now: only when no complete line waits, and only what the budget has room for
 * (the records in flight and the part of a line already buffered count against it); 0: nothing. */
static size_t read_want(const loop *u, int can_take, int starved)
{
	size_t used, want;
	if (u->r.eof || !can_take || u->held >= u->o.window || !starved) return 0;
	used = u->held_bytes + out_held(u) + (u->r.len - u->r.start);
	want = used < u->o.budget ? u->o.budget - used : 0;
	if (want > READ_BASE) want = READ_BASE;
	if (u->held == 0 && !out_waiting(u)) want = READ_BASE;   /* a line longer than the budget, alone */
	if (want < 4096) want = 0;                      /* too little room: wait for records to go */
	return want;
}

/* Why nothing is read now (read_want gave 0), as the tool's run is told (stream.h): the input
 * ended (every line taken), or may not be taken; the window is full, or the budget is without
 * the output waiting for the reader (RAG_STREAM_FULL); else only that output holds it back. */
static int idle_why(const loop *u, int can_take, int starved)
{
	size_t need;
	if (!can_take || (u->r.eof && starved)) return RAG_STREAM_ENDED;
	if (u->held >= u->o.window || !out_waiting(u)) return RAG_STREAM_FULL;
	/* what the records in flight would leave for the next line (read_want's 4096 to read one) */
	need = u->blocked ? u->blocked : (u->r.len - u->r.start) + 4096;
	return u->held_bytes + need <= u->o.budget ? RAG_STREAM_OUTPUT : RAG_STREAM_FULL;
}

/* The run's exit status once the loop is over (rc: a read that failed). */
static int run_status(loop *u, int rc)
{
	if (u->failed_write) return RAG_EXIT_INTERNAL;
	if (rc != RAG_EXIT_OK) return rc;
	if (u->s.stop_strict) {
		snprintf(u->err, u->errlen, "%s", u->s.stop_msg);
		return RAG_EXIT_DATA;
	}
	if (interrupted(&u->o)) return 128 + (int)interrupted(&u->o);
	if (u->epipe && !u->o.drain) return RAG_EXIT_OK;   /* a drained run ends as if it had been read */
	if (u->s.remote_failed) return RAG_EXIT_REMOTE;
	if (u->s.input_failed) return RAG_EXIT_DATA;
	return RAG_EXIT_OK;
}

int rag_stream_run(FILE *in, FILE *out, const rag_stream_opts *opts, const rag_stream_ops *ops,
                   void *ctx, rag_stream_stats *stats, char *err, size_t errlen)
{
	loop u;
	int rc = RAG_EXIT_OK, cancelled = 0;
	double t0 = rag_now(), last_progress = 0;

	memset(&u, 0, sizeof u);
	u.o = *opts;
	if (!u.o.window) u.o.window = 256;
	if (!u.o.max_line) u.o.max_line = (size_t)8 << 20;
	if (!u.o.budget) u.o.budget = RAG_STREAM_BUDGET;
	u.s.o = &u.o;
	u.ops = ops;
	u.ctx = ctx;
	u.out = out;
	u.stats = stats;
	u.err = err;
	u.errlen = errlen;
	memset(stats, 0, sizeof *stats);
	u.r.fd = fileno(in);
	u.r.intr = u.o.interrupted;
	u.out_fd = -1;
	if (out) {
		struct stat st;
		fflush(out);   /* what the tool wrote before goes first */
		u.out_fd = fileno(out);
		u.out_chunk = fstat(u.out_fd, &st) == 0 && S_ISREG(st.st_mode) ? READ_BASE : PIPE_BUF;
	}
	err[0] = 0;

	for (;;) {
		int can_take = !u.s.stop_strict && !run_abandoned(&u);
		int fd, starved = take_lines(&u, &can_take);
		size_t want;
		long wrote;

		if (run_abandoned(&u) && !cancelled) {
			/* nobody will see the rest, or the user wants out: fail what is in flight so that
			 * every record read so far still gets its line (with an error saying why) */
			cancelled = 1;
			if (ops->cancel) ops->cancel(ctx);
		}

		wrote = write_ready(&u);

		if (u.o.progress && rag_now() - last_progress > 0.5) {
			last_progress = rag_now();
			u.o.progress(u.o.progress_ctx, u.written, u.lineno, u.held);
		}

		/* a strict stop: once nothing read is still in flight, the bad line (counted, not
		 * written) and what was read after it go; a line found bad while it was judged stops
		 * the run as a bad line read does */
		if (u.s.stop_strict && u.head && u.head->bad && settled(u.head)) {
			stats->input_errors++;
			break;
		}
		if (!u.head && (u.s.stop_strict || run_abandoned(&u) ||
		                (u.r.eof && u.r.start == u.r.len && !u.r.skipping)))
			break;

		/* whatever is written goes out before we wait, as far as the reader takes it without
		 * blocking us: the next stage may be waiting for it, and our requests for us */
		push_out(&u, 0);
		/* records gone make room for the lines already read: they are taken before the tool
		 * is told the window is full (it may send a partial batch then) */
		if (wrote && !starved && can_take && !run_abandoned(&u)) continue;

		want = read_want(&u, can_take, starved);
		fd = want ? u.r.fd : idle_why(&u, can_take, starved);
		if (fd < 0 && !u.head && out_waiting(&u) && u.out_fd >= 0) {
			/* nothing in flight and no room to read: all there is to wait for is the reader.
			 * The tool's run would return at once (no request, no input to wait on), and
			 * the loop spun a core until the reader took the output */
			struct pollfd p = {u.out_fd, POLLOUT, 0};
			poll(&p, 1, 250);
			continue;
		}
		if (fd == RAG_STREAM_OUTPUT) {
			/* only the reader holds us back: the tool's transfers without waiting (its batch
			 * waits for more), then a wait for the reader, not a spin while it is slow */
			struct pollfd p = {u.out_fd, POLLOUT, 0};
			ops->run(ctx, fd, 0);
			poll(&p, 1, 50);
			continue;
		}
		if (ops->run(ctx, fd, out_waiting(&u) ? OUT_POLL : 0.25) && fd >= 0 &&
		    reader_fill(&u.r, want, err, errlen) < 0) {
			rc = RAG_EXIT_INTERNAL;
			u.r.eof = 1;
			u.r.start = u.r.len;
		}
	}

	/* anything left (strict stop): free it */
	while (u.head) {
		rag_item *it = u.head;
		u.head = it->next;
		free_item(it);
	}
	free(u.r.buf);
	push_out(&u, 1);   /* nothing is in flight now: what is left may wait for the reader */
	outq_free(&u.oq);

	stats->seconds = rag_now() - t0;
	stats->interrupted = (int)interrupted(&u.o);
	stats->closed = u.epipe;
	return run_status(&u, rc);
}
