/* t-stream.c - the record loop (stream.c) driven directly over pipes: one output line per input
 * line, in order, whatever the line (CRLF, no final newline, blank, not JSON, not an object,
 * invalid UTF-8, too long, an upstream error record) and however the input arrives (at once, a
 * byte at a time); the positions and reports; --strict; records finished out of order inside a
 * bounded window; the stats; out == NULL and observe; a reader that went away (EPIPE). */
#include "base.h"
#include "stream.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>


typedef struct buf { char *p; size_t n, cap; } buf;

static void buf_add(buf *b, const void *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = rag_xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) abort();
	buf_add(b, s, (size_t)n);
	free(s);
}

static const char *buf_str(const buf *b) { return b->p ? b->p : ""; }
static void buf_free(buf *b) { free(b->p); memset(b, 0, sizeof *b); }

/* ---------------------------------------------------------------- the writer upstream */
/* A thread writing the input into a pipe in pieces. With sync it writes a piece only once the
 * stream has read everything before it (the pipe is empty when the stream next waits), so each
 * read() the stream makes returns exactly one piece: a line split anywhere, deterministically. */
typedef struct feed {
	int fd;
	const char *data;
	size_t len, piece;        /* piece 0: all at once */
	int sync;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t written, drained;
	int stop;                 /* the stream returned: give up */
} feed;

static void *writer(void *arg)
{
	feed *f = arg;
	sigset_t pipe_only;
	size_t off = 0;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, NULL);   /* a stream that stopped reading: EPIPE here */
	while (off < f->len) {
		size_t n = f->piece && f->piece < f->len - off ? f->piece : f->len - off;
		ssize_t w;
		pthread_mutex_lock(&f->mu);
		if (f->stop) {
			pthread_mutex_unlock(&f->mu);
			break;
		}
		/* written is counted with the write, so "pipe empty and written == N" means read */
		w = write(f->fd, f->data + off, n);
		if (w > 0) f->written += (size_t)w;
		pthread_mutex_unlock(&f->mu);
		if (w < 0 && errno == EAGAIN) {
			struct pollfd p = {f->fd, POLLOUT, 0};
			poll(&p, 1, 100);
			continue;
		}
		if (w < 0) break;
		off += (size_t)w;
		if (f->sync) {
			pthread_mutex_lock(&f->mu);
			while (f->drained < f->written && !f->stop) pthread_cond_wait(&f->cv, &f->mu);
			pthread_mutex_unlock(&f->mu);
		}
	}
	close(f->fd);
	return NULL;
}

/* Called by the tool's run(): the stream is about to wait; is all that was written read? */
static void feed_check(feed *f, int fd)
{
	int avail = -1;
	if (!f || !f->sync || fd < 0) return;
	pthread_mutex_lock(&f->mu);
	if (ioctl(fd, FIONREAD, &avail) == 0 && avail == 0) {
		f->drained = f->written;
		pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
}

/* A thread reading the output pipe to its end. */
typedef struct collector { int fd; buf out; } collector;

/* A reader that holds off until the tool says (t_idle_output): set, the collector reads nothing */
static volatile sig_atomic_t out_gate;
static int out_pipe_size;   /* the output pipe's capacity when set (F_SETPIPE_SZ), else the default */

static void *collect(void *arg)
{
	collector *c = arg;
	char b[8192];
	ssize_t n;
	int waits = 0;
	/* the flag is the tool's: it clears it on what the stream says. A stream that never says
	 * it would wait for this reader for ever: after 10 s it reads anyway, and the test fails */
	while (out_gate && waits++ < 10000) {
		struct pollfd none = {-1, 0, 0};
		poll(&none, 1, 1);
	}
	while ((n = read(c->fd, b, sizeof b)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0) buf_add(&c->out, b, (size_t)n);
	close(c->fd);
	return NULL;
}

/* ---------------------------------------------------------------- the tool */
enum { LAST_FIRST, RANDOM, OLDEST };   /* all, last first; a random few; the oldest one */

typedef struct tool {
	/* what it does */
	int async;                /* hold every record in start, release it in run */
	int order;                /* which held records run() releases */
	int until_full;           /* release only when the stream cannot read (window full or EOF) */
	int keep_newest;          /* with until_full: never on RAG_STREAM_OUTPUT, and the newest held
	                           * stays held until the input ends (a batch that waits for more) */
	long remote_every;        /* a judge failure on every Nth line */
	long bad_async;           /* an input error on this line, raised in run() before the release */
	const char *need;         /* a field a record must have, else an input error in start */
	void (*hook)(struct tool *t);   /* called first in every run() */
	unsigned long seed;
	/* what it holds */
	rag_item **held;
	size_t nheld;
	feed *f;
	/* what it saw */
	long starts, finishes, cancels, cancelled, runs, full_waits, blind, done;
	long inflight, max_inflight, window;
	long why[4];              /* run's fd < 0 by its reason: why[-fd] (RAG_STREAM_FULL, _ENDED, _OUTPUT) */
	long full_not_full;       /* RAG_STREAM_FULL with room in the window (no budget set) */
	long ended_early;         /* RAG_STREAM_ENDED before every line was started */
	long lines;               /* the lines of the input, when the test says */
	long big_company;         /* records in flight when a line over 60,000 bytes started, it too */
	size_t last_start, last_finish, last_observe;
	int disorder;             /* start, finish or observe out of input order, or finish while pending */
	int unfinished_observed;  /* observe saw a good record that finish had not seen */
	int stuck;
	int pipe_ignored;         /* SIGPIPE was ignored while the stream ran */
	buf observed, reports;
} tool;

/* what a tool's signal handler sets (rag_stream_opts.interrupted) */
static volatile sig_atomic_t interrupted;

static unsigned long rnd(tool *t)
{
	t->seed = t->seed * 6364136223846793005UL + 1442695040888963407UL;
	return t->seed >> 33;
}

static void t_start(rag_item *it, void *ctx)
{
	tool *t = ctx;
	struct sigaction sa;
	t->starts++;
	if (it->lineno <= t->last_start) t->disorder = 1;
	t->last_start = it->lineno;
	sigaction(SIGPIPE, NULL, &sa);
	t->pipe_ignored = sa.sa_handler == SIG_IGN;
	if (t->need && !jv_object_has(jv_copy(it->rec), jv_string(t->need))) {
		rag_item_input_error(it, "t-stream", "m", "record has no \"%s\"", t->need);
		return;
	}
	it->rec = jv_object_set(it->rec, jv_string("seen"), jv_number((double)it->lineno));
	if (++t->inflight > t->max_inflight) t->max_inflight = t->inflight;
	if (it->bytes > 60000) t->big_company = t->inflight;
	if (t->async) {
		rag_item_hold(it);
		t->held = rag_xrealloc(t->held, (t->nheld + 1) * sizeof *t->held);
		t->held[t->nheld++] = it;
	}
}

static void t_finish(rag_item *it, void *ctx)
{
	tool *t = ctx;
	t->finishes++;
	t->inflight--;
	if (it->lineno <= t->last_finish || it->pending) t->disorder = 1;
	t->last_finish = it->lineno;
	it->rec = jv_object_set(it->rec, jv_string("fin"), jv_true());
}

static void t_observe(rag_item *it, void *ctx)
{
	tool *t = ctx;
	int fin = jv_object_has(jv_copy(it->rec), jv_string("fin"));
	if (it->lineno <= t->last_observe) t->disorder = 1;
	t->last_observe = it->lineno;
	if (!it->bad && !it->passthrough && !fin) t->unfinished_observed = 1;
	buf_printf(&t->observed, "%zu%c ", it->lineno, it->bad ? 'b' : it->passthrough ? 'p' : 'g');
}

static void t_report(void *ctx, const char *msg)
{
	tool *t = ctx;
	buf_printf(&t->reports, "%s\n", msg);
}

static void release(tool *t, size_t k, const char *why)
{
	rag_item *it = t->held[k];
	t->held[k] = t->held[--t->nheld];
	it->rec = jv_object_set(it->rec, jv_string(why), jv_number((double)++t->done));
	it->usage.calls = 1;
	it->usage.prompt_tokens = 3;
	if (t->remote_every && it->lineno % (size_t)t->remote_every == 0)
		rag_item_remote_error(it, "judge timed out");
	if (t->bad_async && it->lineno == (size_t)t->bad_async)
		rag_item_input_error(it, "t-stream", NULL, "found bad while judged");
	rag_item_release(it);
}

static int t_run(void *ctx, int fd, double timeout)
{
	tool *t = ctx;
	struct pollfd p = {fd, POLLIN, 0};
	t->runs++;
	if (t->hook) t->hook(t);
	if (interrupted && t->hook) return 0;   /* the signal came while records were held: cancel takes them */
	feed_check(t->f, fd);
	if (fd < 0 && t->inflight == t->window) t->full_waits++;
	if (fd < 0 && -fd < 4) t->why[-fd]++;
	if (fd == RAG_STREAM_FULL && t->inflight < t->window) t->full_not_full++;
	if (fd == RAG_STREAM_ENDED && t->lines && t->starts < t->lines) t->ended_early++;
	if (fd == RAG_STREAM_OUTPUT || fd == RAG_STREAM_ENDED) out_gate = 0;
	if (t->keep_newest && fd >= RAG_STREAM_OUTPUT) {
		if (t->nheld > 1 && fd < 0 && fd != RAG_STREAM_OUTPUT) {
			size_t i, newest = 0;
			for (i = 1; i < t->nheld; i++)
				if (t->held[i]->lineno > t->held[newest]->lineno) newest = i;
			for (i = t->nheld; i-- > 0;)
				if (i != newest) release(t, i, "done");
		} else if (t->nheld && fd == RAG_STREAM_ENDED) {
			while (t->nheld) release(t, t->nheld - 1, "done");
		}
		return fd >= 0 && poll(&p, 1, (int)(timeout * 1000)) > 0;
	}
	if (t->nheld && (!t->until_full || fd < 0)) {
		t->blind = 0;
		if (t->order == RANDOM) {
			size_t k = 1 + rnd(t) % t->nheld;
			while (k-- && t->nheld) release(t, rnd(t) % t->nheld, "done");
		} else if (t->order == OLDEST) {
			rag_item *oldest = t->held[0];
			size_t i, at = 0;
			for (i = 1; i < t->nheld; i++)
				if (t->held[i]->lineno < oldest->lineno) oldest = t->held[at = i];
			release(t, at, "done");
		} else {
			while (t->nheld) release(t, t->nheld - 1, "done");
		}
		return fd >= 0 && poll(&p, 1, 0) > 0;
	}
	if (fd < 0) {
		/* nothing to read and nothing of ours pending: the stream is waiting for nothing */
		if (++t->blind > 1000) {
			t->stuck = 1;
			interrupted = SIGTERM;
		}
		return 0;
	}
	t->blind = 0;
	return poll(&p, 1, (int)(timeout * 1000)) > 0;
}

static void t_cancel(void *ctx)
{
	tool *t = ctx;
	t->cancels++;
	t->cancelled += (long)t->nheld;
	while (t->nheld) release(t, t->nheld - 1, "cancelled");
}

static const rag_stream_ops ops = {t_start, t_finish, t_run, t_cancel};

static void tool_init(tool *t)
{
	memset(t, 0, sizeof *t);
	t->seed = 42;
}

static void tool_free(tool *t)
{
	free(t->held);
	buf_free(&t->observed);
	buf_free(&t->reports);
}

/* ---------------------------------------------------------------- one run */
enum { OUT_PIPE, OUT_NULL, OUT_CLOSED };

typedef struct result {
	int rc;
	char err[RAG_ERRLEN];
	rag_stream_stats st;
	buf out;
	size_t pending_after;     /* bytes left in out's stdio buffer after the run */
	void (*pipe_after)(int);  /* SIGPIPE's disposition after the run */
} result;

static rag_stream_opts opts(const char *name, int window, size_t max_line)
{
	rag_stream_opts o;
	memset(&o, 0, sizeof o);
	o.prog = "t-stream";
	o.input_name = name;
	o.window = window;
	o.max_line = max_line;
	o.report = t_report;
	o.observe = t_observe;
	o.interrupted = &interrupted;
	return o;
}

static void run_stream(const char *data, size_t len, size_t piece, int sync, int out_mode,
                       rag_stream_opts *o, tool *t, result *r)
{
	int inp[2], outp[2];
	feed f = {0};
	collector c = {0};
	pthread_t wt, ct;
	FILE *in, *out = NULL;
	struct sigaction sa;

	memset(r, 0, sizeof *r);
	if (pipe(inp) || pipe(outp)) abort();
	if (out_pipe_size) fcntl(outp[1], F_SETPIPE_SZ, out_pipe_size);
	f.fd = inp[1];
	f.data = data;
	f.len = len;
	f.piece = piece;
	f.sync = sync;
	pthread_mutex_init(&f.mu, NULL);
	pthread_cond_init(&f.cv, NULL);
	if (sync) fcntl(inp[1], F_SETFL, O_NONBLOCK);   /* never block while holding the lock */
	t->f = &f;
	t->window = o->window ? o->window : 256;
	o->progress_ctx = t;
	pthread_create(&wt, NULL, writer, &f);
	in = fdopen(inp[0], "r");
	if (out_mode == OUT_CLOSED) close(outp[0]);
	if (out_mode == OUT_NULL) close(outp[1]);
	else out = fdopen(outp[1], "w");
	c.fd = outp[0];
	if (out_mode != OUT_CLOSED) pthread_create(&ct, NULL, collect, &c);

	r->rc = rag_stream_run(in, out, o, &ops, t, &r->st, r->err, sizeof r->err);
	if (t->stuck) interrupted = 0;   /* our own way out of a stuck stream: not for the next run */

	sigaction(SIGPIPE, NULL, &sa);
	r->pipe_after = sa.sa_handler;
	pthread_mutex_lock(&f.mu);
	f.stop = 1;
	pthread_cond_broadcast(&f.cv);
	pthread_mutex_unlock(&f.mu);
	fclose(in);                               /* a writer blocked on a full pipe gets EPIPE */
	if (out) {
		r->pending_after = __fpending(out);
		if (out_mode == OUT_CLOSED) signal(SIGPIPE, SIG_IGN);   /* so a leftover cannot kill us */
		fclose(out);
		if (out_mode == OUT_CLOSED) signal(SIGPIPE, SIG_DFL);
	}
	if (out_mode != OUT_CLOSED) pthread_join(ct, NULL);
	pthread_join(wt, NULL);
	pthread_mutex_destroy(&f.mu);
	pthread_cond_destroy(&f.cv);
	t->f = NULL;
	r->out = c.out;
}

static size_t count_char(const char *s, char ch)
{
	size_t n = 0;
	for (; *s; s++) n += *s == ch;
	return n;
}

/* ---------------------------------------------------------------- every kind of line */
static char reader_in[1024], reader_want[4096];
static const char reader_reports[] =
	"error (at in.jsonl:3): empty line\n"
	"error (at in.jsonl:4): empty line\n"
	"error (at in.jsonl:5): not valid JSON: Invalid numeric literal at line 1, column 4\n"
	"error (at in.jsonl:6): line is a JSON array, not an object\n"
	"error (at in.jsonl:7): line is a JSON string, not an object\n"
	"error (at in.jsonl:8): line is a JSON null, not an object\n"
	"error (at in.jsonl:9): invalid UTF-8 (replaced with U+FFFD; record not judged)\n"
	"error (at in.jsonl:11): line is longer than the limit of 64 bytes (--max-line)\n"
	"error (at in.jsonl:14): line is longer than the limit of 64 bytes (--max-line)\n"
	"error (at in.jsonl:15): empty line\n";
static const char reader_observed[] = "1g 2g 3b 4b 5b 6b 7b 8b 9b 10p 11b 12g 13g 14b 15b 16g ";

#define E(n, m) "{\"errors\":[{\"tool\":\"t-stream\",\"message\":\"" m "\",\"at\":\"in.jsonl:" #n "\"}]}\n"
#define TOO_LONG "line is longer than the limit of 64 bytes (--max-line)"

static void reader_input(void)
{
	char x49[50], x50[51], x83[84];
	memset(x49, 'x', 49); x49[49] = 0;
	memset(x50, 'x', 50); x50[50] = 0;
	memset(x83, 'x', 83); x83[83] = 0;
	snprintf(reader_in, sizeof reader_in,
	         "{\"i\":1}\n"
	         "{\"i\":2}\r\n"
	         "\n"
	         " \t \r\n"
	         "not json\n"
	         "[1,2]\n"
	         "\"str\"\n"
	         "null\n"
	         "{\"i\":9,\"s\":\"a\xff" "b\"}\n"
	         "{\"errors\":[{\"tool\":\"up\",\"message\":\"x\",\"at\":\"<stdin>:4\"}]}\n"
	         "{\"i\":11,\"p\":\"%s\"}\n"      /* 100 bytes */
	         "{\"i\":12,\"errors\":[{\"tool\":\"up\",\"message\":\"y\"}]}\n"
	         "{\"i\":13,\"p\":\"%s\"}\n"      /* 64 bytes: the limit */
	         "{\"i\":14,\"p\":\"%s\"}\n"      /* 65 bytes */
	         "\r\n"
	         "{\"i\":16}",                    /* no final newline */
	         x83, x49, x50);
	snprintf(reader_want, sizeof reader_want,
	         "{\"i\":1,\"seen\":1,\"fin\":true}\n"
	         "{\"i\":2,\"seen\":2,\"fin\":true}\n"
	         E(3, "empty line")
	         E(4, "empty line")
	         E(5, "not valid JSON: Invalid numeric literal at line 1, column 4")
	         E(6, "line is a JSON array, not an object")
	         E(7, "line is a JSON string, not an object")
	         E(8, "line is a JSON null, not an object")
	         "{\"i\":9,\"s\":\"a\xef\xbf\xbd" "b\",\"errors\":[{\"tool\":\"t-stream\",\"message\":"
	         "\"invalid UTF-8 (replaced with U+FFFD; record not judged)\",\"at\":\"in.jsonl:9\"}]}\n"
	         "{\"errors\":[{\"tool\":\"up\",\"message\":\"x\",\"at\":\"<stdin>:4\"}]}\n"
	         E(11, TOO_LONG)
	         "{\"i\":12,\"errors\":[{\"tool\":\"up\",\"message\":\"y\"}],\"seen\":12,\"fin\":true}\n"
	         "{\"i\":13,\"p\":\"%s\",\"seen\":13,\"fin\":true}\n"
	         E(14, TOO_LONG)
	         E(15, "empty line")
	         "{\"i\":16,\"seen\":16,\"fin\":true}\n",
	         x49);
}

static void t_reader(void)
{
	static const struct { size_t piece; int sync; const char *how; } ways[] = {
		{0, 0, "at once"}, {1, 1, "a byte per read"}, {5, 1, "5 bytes per read"}, {3, 0, "3 bytes per write"},
	};
	size_t w, len;
	reader_input();
	len = strlen(reader_in);
	for (w = 0; w < sizeof ways / sizeof *ways; w++) {
		rag_stream_opts o = opts("in.jsonl", 0, 64);
		const char *how = ways[w].how;
		tool t;
		result r;
		tool_init(&t);
		run_stream(reader_in, len, ways[w].piece, ways[w].sync, OUT_PIPE, &o, &t, &r);
		is_str(buf_str(&r.out), reader_want, "%s: one line out per line in, in order: CRLF, blank, not JSON, "
		       "not an object, invalid UTF-8, upstream errors, too long, exactly the limit, no final newline", how);
		is_str(buf_str(&t.reports), reader_reports, "%s: each bad line reported once, with its position", how);
		is_str(buf_str(&t.observed), reader_observed, "%s: observe sees every record in order (g good, b bad, "
		       "p passed through)", how);
		ok(r.rc == RAG_EXIT_DATA && !r.err[0], "%s: bad lines give RAG_EXIT_DATA and no stop message (rc %d, '%s')",
		   how, r.rc, r.err);
		ok(r.st.records == 16 && r.st.input_errors == 10 && r.st.remote_errors == 0 && r.st.usage.calls == 0,
		   "%s: stats count 16 records, 10 input errors, no remote errors (%ld, %ld, %ld)", how, r.st.records,
		   r.st.input_errors, r.st.remote_errors);
		ok(t.starts == 5 && t.finishes == 5 && !t.disorder && !t.unfinished_observed,
		   "%s: start and finish once per good record, in order, finish before observe (%ld, %ld)", how,
		   t.starts, t.finishes);
		if (ways[w].sync)
			ok(t.runs >= (long)(len / ways[w].piece), "%s: the input really came in %zu pieces (%ld waits)", how,
			   len / ways[w].piece, t.runs);
		buf_free(&r.out);
		tool_free(&t);
	}
}

/* Small inputs at the edges: nothing, a lone newline, a final empty line, a final CR. */
static void t_edges(void)
{
	static const struct { const char *in, *want, *name; long records; int rc; } cases[] = {
		{"", "", "empty input", 0, RAG_EXIT_OK},
		{"{}\n", "{\"seen\":1,\"fin\":true}\n", "a final newline makes no extra record", 1, RAG_EXIT_OK},
		{"\n", "{\"errors\":[{\"tool\":\"t-stream\",\"message\":\"empty line\",\"at\":\"<stdin>:1\"}]}\n",
		 "a lone newline is one empty line, at <stdin>:1 with no input name", 1, RAG_EXIT_DATA},
		{"{}\n\n", "{\"seen\":1,\"fin\":true}\n"
		 "{\"errors\":[{\"tool\":\"t-stream\",\"message\":\"empty line\",\"at\":\"<stdin>:2\"}]}\n",
		 "an empty last line is a record", 2, RAG_EXIT_DATA},
		{"{}\r", "{\"seen\":1,\"fin\":true}\n", "a CR with no newline at the end is dropped", 1, RAG_EXIT_OK},
		{"{\"errors\":[]}\n{\"a\":[]}\n", "{\"errors\":[]}\n{\"a\":[],\"seen\":2,\"fin\":true}\n",
		 "an object whose only field is errors passes through unstarted", 2, RAG_EXIT_OK},
	};
	size_t i;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		rag_stream_opts o = opts(NULL, 0, 0);
		tool t;
		result r;
		tool_init(&t);
		run_stream(cases[i].in, strlen(cases[i].in), 0, 0, OUT_PIPE, &o, &t, &r);
		is_str(buf_str(&r.out), cases[i].want, "%s", cases[i].name);
		ok(r.rc == cases[i].rc && r.st.records == cases[i].records, "%s: rc %d, %ld records", cases[i].name, r.rc,
		   r.st.records);
		buf_free(&r.out);
		tool_free(&t);
	}
}

/* Lines longer than the read buffer and the pipe: skipped across many reads, counted, and the
 * lines after them read whole; the default limit is 8 MiB. */
static void t_long(void)
{
	size_t n = 300000 + 8 + 100000 + 1 + 150000 + 64, len, lines = 0;
	char *in = rag_xmalloc(n), *p = in, *nl;
	rag_stream_opts o = opts("long", 0, 100000);
	tool t;
	result r;
	int good = 1;

	memset(p, 'x', 300000); p += 300000; *p++ = '\n';
	p += sprintf(p, "{\"i\":2}\n");
	p += sprintf(p, "{\"i\":3,\"p\":\"");
	memset(p, 'y', 100000 - 15); p += 100000 - 15;
	p += sprintf(p, "\"}\n");                     /* exactly 100000 bytes */
	memset(p, 'z', 150000); p += 150000;          /* too long, and no final newline */
	len = (size_t)(p - in);
	tool_init(&t);
	run_stream(in, len, 4093, 0, OUT_PIPE, &o, &t, &r);
	for (p = r.out.p; p && (nl = strchr(p, '\n')); p = nl + 1) {
		lines++;
		*nl = 0;
		if (lines == 1) good &= !strcmp(p, "{\"errors\":[{\"tool\":\"t-stream\",\"message\":\"line is longer than "
		                                "the limit of 100000 bytes (--max-line)\",\"at\":\"long:1\"}]}");
		if (lines == 2) good &= !strcmp(p, "{\"i\":2,\"seen\":2,\"fin\":true}");
		if (lines == 3) good &= !strncmp(p, "{\"i\":3,\"p\":\"yyy", 15) && strstr(p, "\"seen\":3,\"fin\":true}");
		if (lines == 4) good &= strstr(p, "limit of 100000 bytes") && strstr(p, "\"at\":\"long:4\"");
	}
	ok(lines == 4 && good, "over-long lines bigger than the buffer are skipped, the lines after them kept (%zu lines)",
	   lines);
	is_str(buf_str(&t.reports), "error (at long:1): line is longer than the limit of 100000 bytes (--max-line)\n"
	       "error (at long:4): line is longer than the limit of 100000 bytes (--max-line)\n",
	       "both over-long lines reported at their line numbers");
	ok(r.st.records == 4 && r.st.input_errors == 2 && r.rc == RAG_EXIT_DATA, "4 records, 2 input errors, rc %d", r.rc);
	buf_free(&r.out);
	tool_free(&t);
	free(in);

	/* the default: 8 MiB */
	n = ((size_t)8 << 20) + 1;
	in = rag_xmalloc(n + 16);
	memset(in, ' ', n);
	in[0] = '{';
	in[n - 1] = '}';
	len = n + (size_t)sprintf(in + n, "\n{\"i\":2}\n");
	o = opts("big", 0, 0);
	tool_init(&t);
	run_stream(in, len, 0, 0, OUT_PIPE, &o, &t, &r);
	is_str(buf_str(&r.out), "{\"errors\":[{\"tool\":\"t-stream\",\"message\":\"line is longer than the limit of "
	       "8388608 bytes (--max-line)\",\"at\":\"big:1\"}]}\n{\"i\":2,\"seen\":2,\"fin\":true}\n",
	       "max_line 0 means 8 MiB: a line one byte over is refused, the next one read");
	buf_free(&r.out);
	tool_free(&t);
	free(in);
}

/* --strict: the lines before the first bad one are written, that one and the rest are not, and
 * err names it; whether the line is bad by its syntax, by the tool's check in start, or while
 * records before it are still being judged. */
static void t_strict(void)
{
	buf in = {0};
	rag_stream_opts o;
	tool t;
	result r;
	int i;

	buf_printf(&in, "{\"i\":1}\n{\"i\":2}\nnot json\n");
	for (i = 4; i <= 5000; i++) buf_printf(&in, "{\"i\":%d}\n", i);   /* more than a pipe holds */
	o = opts(NULL, 0, 0);
	o.strict = 1;
	tool_init(&t);
	run_stream(in.p, in.n, 0, 0, OUT_PIPE, &o, &t, &r);
	is_str(buf_str(&r.out), "{\"i\":1,\"seen\":1,\"fin\":true}\n{\"i\":2,\"seen\":2,\"fin\":true}\n",
	       "strict: the lines before the bad one are written, it and the rest are not");
	is_int(r.rc, RAG_EXIT_DATA, "strict: RAG_EXIT_DATA");
	is_str(r.err, "error (at <stdin>:3): not valid JSON: Invalid numeric literal at line 1, column 4",
	       "strict: err names the line");
	ok(!t.reports.n, "strict: the stop is said once, in err, not also reported (%zu bytes)", t.reports.n);
	ok(t.starts == 2 && r.st.records == 3, "strict: nothing after the bad line is started or read (%ld started, "
	   "%ld records)", t.starts, r.st.records);
	is_str(buf_str(&t.observed), "1g 2g ", "strict: observe sees only what is written");
	ok(r.st.input_errors == 1, "strict: the bad line counts as an input error (got %ld)", r.st.input_errors);
	buf_free(&r.out);
	tool_free(&t);
	buf_free(&in);

	/* the records before the bad line are still out with the judge when it is read */
	buf_printf(&in, "{\"i\":1}\n{\"i\":2}\n{\"i\":3}\n{\"i\":4}\n[5]\n{\"i\":6}\n");
	o = opts("s", 8, 0);
	o.strict = 1;
	tool_init(&t);
	t.async = t.until_full = 1;
	run_stream(in.p, in.n, 0, 0, OUT_PIPE, &o, &t, &r);
	is_str(buf_str(&r.out), "{\"i\":1,\"seen\":1,\"done\":4,\"fin\":true}\n{\"i\":2,\"seen\":2,\"done\":3,\"fin\":true}\n"
	       "{\"i\":3,\"seen\":3,\"done\":2,\"fin\":true}\n{\"i\":4,\"seen\":4,\"done\":1,\"fin\":true}\n",
	       "strict, async: the records in flight before the bad line are finished (last first) and written in order");
	ok(r.rc == RAG_EXIT_DATA && !strcmp(r.err, "error (at s:5): line is a JSON array, not an object"),
	   "strict, async: RAG_EXIT_DATA, err names line 5 (%d, %s)", r.rc, r.err);
	ok(t.starts == 4 && t.cancels == 0, "strict, async: line 6 never started, nothing cancelled");
	buf_free(&r.out);
	tool_free(&t);
	buf_free(&in);

	/* the tool finds the line bad in start */
	buf_printf(&in, "{\"q\":1}\n{\"i\":2}\n{\"q\":3}\n");
	o = opts(NULL, 0, 0);
	o.strict = 1;
	tool_init(&t);
	t.need = "q";
	run_stream(in.p, in.n, 0, 0, OUT_PIPE, &o, &t, &r);
	is_str(buf_str(&r.out), "{\"q\":1,\"seen\":1,\"fin\":true}\n", "strict: a record the tool rejects in start stops the run");
	ok(r.rc == RAG_EXIT_DATA && !strcmp(r.err, "error (at <stdin>:2): record has no \"q\""),
	   "strict: err carries the tool's message and position (%d, %s)", r.rc, r.err);
	buf_free(&r.out);
	tool_free(&t);

	/* and without --strict the same record is written with the tool's error entry, and counted */
	o = opts(NULL, 0, 0);
	tool_init(&t);
	t.need = "q";
	run_stream(in.p, in.n, 0, 0, OUT_PIPE, &o, &t, &r);
	is_str(buf_str(&r.out), "{\"q\":1,\"seen\":1,\"fin\":true}\n"
	       "{\"i\":2,\"errors\":[{\"tool\":\"t-stream\",\"metric\":\"m\",\"message\":\"record has no \\\"q\\\"\","
	       "\"at\":\"<stdin>:2\"}]}\n{\"q\":3,\"seen\":3,\"fin\":true}\n",
	       "not strict: the tool's input error is written whole with metric and position, and the run goes on");
	ok(r.rc == RAG_EXIT_DATA && r.st.input_errors == 1 && t.finishes == 2 &&
	   !strcmp(buf_str(&t.reports), "error (at <stdin>:2): record has no \"q\"\n"),
	   "not strict: RAG_EXIT_DATA, 1 input error, reported, the bad record not finished (%d %ld %ld)", r.rc,
	   r.st.input_errors, t.finishes);
	buf_free(&r.out);
	tool_free(&t);
	buf_free(&in);

	/* the tool finds line 3 bad while judging it, after lines 4..6 were started (no tool in cmd/
	 * does this today; stream.h allows it: "in strict mode the stream stops after it") */
	buf_printf(&in, "{\"i\":1}\n{\"i\":2}\n{\"i\":3}\n{\"i\":4}\n{\"i\":5}\n{\"i\":6}\n");
	o = opts(NULL, 0, 0);
	o.strict = 1;
	tool_init(&t);
	t.async = 1;
	t.bad_async = 3;
	run_stream(in.p, in.n, 0, 0, OUT_PIPE, &o, &t, &r);
	ok(r.rc == RAG_EXIT_DATA && !strcmp(r.err, "error (at <stdin>:3): found bad while judged"),
	   "strict, bad while judged: RAG_EXIT_DATA, err names line 3 (%d, %s)", r.rc, r.err);
	ok(count_char(buf_str(&r.out), '\n') == 2 && !strstr(buf_str(&r.out), "found bad"),
	   "strict, bad while judged: only lines 1 and 2 are written (got %zu lines)", count_char(buf_str(&r.out), '\n'));
	ok(r.st.input_errors == 1 && t.nheld == 0, "strict, bad while judged: one input error, nothing left held (%ld, %zu)",
	   r.st.input_errors, t.nheld);
	buf_free(&r.out);
	tool_free(&t);
	buf_free(&in);
}

/* Records finished out of order, within a window of W: written in input order, never more than
 * W started and not yet written, and the stream keeps going when the window is full. */
static void t_window(void)
{
	static const int windows[] = {1, 4};
	size_t k;
	for (k = 0; k < sizeof windows / sizeof *windows; k++) {
		int w = windows[k], i, in_order = 1;
		buf in = {0};
		rag_stream_opts o = opts(NULL, w, 0);
		tool t;
		result r;
		char *p, *nl;
		for (i = 1; i <= 30; i++) buf_printf(&in, "{\"i\":%d}\n", i);
		tool_init(&t);
		t.async = t.until_full = 1;
		run_stream(in.p, in.n, 0, 0, OUT_PIPE, &o, &t, &r);
		for (i = 0, p = r.out.p; p && (nl = strchr(p, '\n')); p = nl + 1) {
			char want[64];
			i++;
			snprintf(want, sizeof want, "{\"i\":%d,\"seen\":%d,", i, i);
			in_order &= !strncmp(p, want, strlen(want));
		}
		ok(i == 30 && in_order, "window %d: 30 lines out, in input order, though finished last first", w);
		if (w > 1)
			ok(strstr(buf_str(&r.out), "{\"i\":1,\"seen\":1,\"done\":4,") != NULL,
			   "window %d: really finished out of order (line 1 finished 4th)", w);
		is_int(t.max_inflight, w, "window %d: at most (and here exactly) %d records started and not written", w, w);
		ok(t.full_waits > 0 && !t.stuck && !t.disorder && r.rc == RAG_EXIT_OK,
		   "window %d: the stream waits on the tool when the window is full and goes on (%ld waits)", w,
		   t.full_waits);
		buf_free(&r.out);
		tool_free(&t);
		buf_free(&in);
	}
}

/* Why the stream waits for no input, as run() is told (stream.h): a full window is
 * RAG_STREAM_FULL, the input's end RAG_STREAM_ENDED, and neither is said where it is not so: a
 * tool that batches records' work sends a partial batch on them, and on nothing else, so that
 * its batches are the input's alone (rag-embsim's, issue 35 item 8). */
static void t_idle_why(void)
{
	static const size_t pieces[] = {0, 7};
	size_t k;
	for (k = 0; k < sizeof pieces / sizeof *pieces; k++) {
		buf in = {0};
		rag_stream_opts o = opts(NULL, 4, 0);
		tool t;
		result r;
		int i;
		for (i = 1; i <= 30; i++) buf_printf(&in, "{\"i\":%d}\n", i);
		tool_init(&t);
		t.async = t.until_full = 1;
		t.lines = 30;
		run_stream(in.p, in.n, pieces[k], pieces[k] != 0, OUT_PIPE, &o, &t, &r);
		ok(r.rc == RAG_EXIT_OK && count_char(buf_str(&r.out), '\n') == 30 && !t.stuck, "idle (pieces of %zu): 30 lines",
		   pieces[k]);
		ok(t.why[-RAG_STREAM_FULL] > 0 && t.full_not_full == 0,
		   "idle (pieces of %zu): RAG_STREAM_FULL %ld times, each with the window full", pieces[k], t.why[-RAG_STREAM_FULL]);
		ok(t.why[-RAG_STREAM_ENDED] > 0 && t.ended_early == 0,
		   "idle (pieces of %zu): RAG_STREAM_ENDED %ld times, only once every line was taken", pieces[k],
		   t.why[-RAG_STREAM_ENDED]);
		buf_free(&r.out);
		tool_free(&t);
		buf_free(&in);
	}
}

/* A reader slower than the input is no reason to send a partial batch: with the output held
 * back (a reader that takes nothing until the stream says so), the budget full only of it and a
 * record still held, the tool is told RAG_STREAM_OUTPUT, not RAG_STREAM_FULL; it keeps its
 * newest record for more, and the run ends with every line, in order. */
static void t_idle_output(void)
{
	buf in = {0};
	rag_stream_opts o = opts(NULL, 256, 0);
	tool t;
	result r;
	int i;
	for (i = 1; i <= 60; i++) {
		char line[64];
		int n = snprintf(line, sizeof line, "{\"i\":%d,\"pad\":\"", i);
		buf_add(&in, line, (size_t)n);
		for (; n < 1000 - 2; n++) buf_add(&in, "x", 1);
		buf_add(&in, "\"}\n", 3);
	}
	o.budget = 128 << 10;
	tool_init(&t);
	t.async = t.until_full = t.keep_newest = 1;
	t.lines = 60;
	out_gate = 1;
	out_pipe_size = 4096;
	run_stream(in.p, in.n, 0, 0, OUT_PIPE, &o, &t, &r);
	out_pipe_size = 0;
	out_gate = 0;
	ok(r.rc == RAG_EXIT_OK && count_char(buf_str(&r.out), '\n') == 60 && !t.disorder, "slow reader: 60 lines, in order");
	ok(t.why[-RAG_STREAM_OUTPUT] > 0, "slow reader: the tool was told RAG_STREAM_OUTPUT (%ld times; FULL %ld, ENDED %ld)",
	   t.why[-RAG_STREAM_OUTPUT], t.why[-RAG_STREAM_FULL], t.why[-RAG_STREAM_ENDED]);
	ok(t.ended_early == 0, "slow reader: RAG_STREAM_ENDED only once every line was taken");
	buf_free(&r.out);
	tool_free(&t);
	buf_free(&in);
}

/* The byte budget: lines of 100 bytes count 12 x 100 + 1024 = 2224 each, so a budget of 65536
 * holds 29 of them, whatever the window; a line over the whole budget goes alone, and nothing
 * is lost or reordered around it. */
static void t_budget(void)
{
	buf in = {0};
	rag_stream_opts o = opts(NULL, 256, 0);
	tool t;
	result r;
	int i, lines = 0;
	char *p;
	for (i = 1; i <= 300; i++) {
		char line[128];
		int n = snprintf(line, sizeof line, "{\"i\":%d,\"pad\":\"", i);
		buf_add(&in, line, (size_t)n);
		for (; n < 100 - 2; n++) buf_add(&in, "x", 1);
		buf_add(&in, "\"}\n", 3);
	}
	ok(in.n == 300 * 101, "300 lines of 100 bytes");
	o.budget = 65536;
	tool_init(&t);
	t.async = t.until_full = 1;
	run_stream(in.p, in.n, 0, 0, OUT_PIPE, &o, &t, &r);
	for (p = r.out.p; p && (p = strchr(p, '\n')); p++) lines++;
	is_int(lines, 300, "budget 64 KiB: 300 lines out");
	is_int(t.max_inflight, 29, "budget 64 KiB: at most (and here exactly) 29 records of 100 bytes in flight");
	ok(t.full_waits == 0 && !t.stuck && !t.disorder && r.rc == RAG_EXIT_OK,
	   "budget 64 KiB: the window (256) was never full, the stream went on in order");
	buf_free(&r.out);
	tool_free(&t);

	/* a line of 70,000 bytes among them */
	buf_free(&in);
	for (i = 1; i <= 20; i++) buf_printf(&in, "{\"i\":%d}\n", i);
	buf_add(&in, "{\"big\":\"", 8);
	for (i = 0; i < 70000; i++) buf_add(&in, "y", 1);
	buf_add(&in, "\"}\n", 3);
	for (i = 21; i <= 40; i++) buf_printf(&in, "{\"i\":%d}\n", i);
	tool_init(&t);
	t.async = t.until_full = 1;
	run_stream(in.p, in.n, 4096, 0, OUT_PIPE, &o, &t, &r);
	lines = 0;
	for (p = r.out.p; p && (p = strchr(p, '\n')); p++) lines++;
	is_int(lines, 41, "a line over the budget: 41 lines out");
	is_int(t.big_company, 1, "the line over the budget was alone in flight");
	ok(strstr(buf_str(&r.out), "\"seen\":21,") && !t.disorder && r.rc == RAG_EXIT_OK,
	   "and it was judged, in its place");
	buf_free(&r.out);
	tool_free(&t);
	buf_free(&in);
}

/* 10,000 lines through pipes both ways, finished in random order, window 4, with bad lines and
 * judge failures among them. */
static void t_big(void)
{
	const long n = 10000;
	buf in = {0};
	rag_stream_opts o = opts("big", 4, 0);
	tool t;
	result r;
	long i = 0, bad = 0, remote = 0, wrong = 0;
	char *p, *nl;

	for (i = 1; i <= n; i++) {
		if (i % 997 == 0) buf_printf(&in, "{\"i\":%ld\n", i);   /* cut short: not JSON */
		else buf_printf(&in, "{\"i\":%ld,\"pad\":\"%0*d\"}\n", i, (int)(i % 50), 0);
	}
	tool_init(&t);
	t.async = 1;
	t.order = RANDOM;
	t.remote_every = 1000;
	run_stream(in.p, in.n, 4093, 0, OUT_PIPE, &o, &t, &r);
	for (i = 0, p = r.out.p; p && (nl = strchr(p, '\n')); p = nl + 1) {
		jv v = jv_parse_sized(p, (int)(nl - p));
		char at[32];
		i++;
		snprintf(at, sizeof at, "big:%ld", i);
		if (i % 997 == 0) {
			jv e = jv_object_get(jv_array_get(jv_object_get(jv_copy(v), jv_string("errors")), 0), jv_string("at"));
			bad++;
			wrong += jv_get_kind(e) != JV_KIND_STRING || strcmp(jv_string_value(e), at);
			jv_free(e);
		} else {
			jv a = jv_object_get(jv_copy(v), jv_string("i")), s = jv_object_get(jv_copy(v), jv_string("seen")),
			   d = jv_object_get(jv_copy(v), jv_string("done"));
			wrong += jv_get_kind(a) != JV_KIND_NUMBER || jv_number_value(a) != i ||
			         jv_get_kind(s) != JV_KIND_NUMBER || jv_number_value(s) != i || jv_get_kind(d) != JV_KIND_NUMBER;
			jv_free(a);
			jv_free(s);
			jv_free(d);
		}
		jv_free(v);
	}
	ok(i == n && wrong == 0 && bad == 10, "10,000 lines through pipes: 10,000 out, each at its place (%ld lines, "
	   "%ld wrong)", i, wrong);
	ok(t.max_inflight <= 4 && t.max_inflight > 1, "never more than the window of 4 in flight (max %ld)", t.max_inflight);
	ok(!t.disorder && !t.stuck && t.starts == n - 10 && t.finishes == n - 10,
	   "start, finish in input order, each once per good record (%ld, %ld)", t.starts, t.finishes);
	for (p = t.reports.p; p && (p = strstr(p, "judge timed out")); p++) remote++;
	ok(r.st.records == n && r.st.input_errors == 10 && r.st.remote_errors == 10,
	   "stats: %ld records, %ld input errors, %ld remote errors", r.st.records, r.st.input_errors, r.st.remote_errors);
	ok(r.st.usage.calls == n - 10 && r.st.usage.prompt_tokens == 3 * (n - 10),
	   "stats: the records' usage is summed (%ld calls)", r.st.usage.calls);
	ok(remote == 10 && strstr(buf_str(&t.reports), "error (at big:1000): judge timed out\n") &&
	   strstr(buf_str(&t.reports), "error (at big:997): not valid JSON") && count_char(buf_str(&t.reports), '\n') == 20,
	   "each input error and judge failure reported once, with its position");
	is_int(r.rc, RAG_EXIT_REMOTE, "a judge failure and bad input: RAG_EXIT_REMOTE wins");
	buf_free(&r.out);
	tool_free(&t);
	buf_free(&in);
}

/* out == NULL: nothing written anywhere (not to stdout either), the rest as with an output. */
static void t_no_output(void)
{
	rag_stream_opts o = opts("in.jsonl", 0, 64);
	FILE *tmp = tmpfile();
	int saved = dup(1);
	struct stat sb;
	tool t;
	result r;
	tool_init(&t);
	fflush(stdout);
	dup2(fileno(tmp), 1);
	run_stream(reader_in, strlen(reader_in), 0, 0, OUT_NULL, &o, &t, &r);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	fstat(fileno(tmp), &sb);
	fclose(tmp);
	ok(sb.st_size == 0 && r.out.n == 0, "out NULL: nothing written (%ld bytes on stdout)", (long)sb.st_size);
	is_str(buf_str(&t.observed), reader_observed, "out NULL: observe still sees every record in order");
	ok(r.rc == RAG_EXIT_DATA && r.st.records == 16 && r.st.input_errors == 10 && t.finishes == 5 &&
	   !strcmp(buf_str(&t.reports), reader_reports), "out NULL: same status, stats, finishes and reports");
	buf_free(&r.out);
	tool_free(&t);
}

/* The reader downstream went away: the stream stops reading, cancels what is in flight, still
 * finishes every record it read, and returns RAG_EXIT_OK with no message. SIGPIPE is the
 * caller's: a tool ignores it (tool.c), and the stream leaves its disposition as it found it. */
static void t_epipe(void)
{
	static const struct { int unbuffered, async; const char *how; } ways[] = {
		{0, 0, "buffered"}, {1, 0, "unbuffered"}, {0, 1, "records in flight"},
	};
	buf in = {0};
	size_t w;
	int i;
	for (i = 1; i <= 1000; i++) buf_printf(&in, "{\"i\":%d}\n", i);
	for (w = 0; w < sizeof ways / sizeof *ways; w++) {
		rag_stream_opts o = opts(NULL, 4, 0);
		const char *how = ways[w].how;
		tool t;
		result r;
		o.unbuffered = ways[w].unbuffered;
		tool_init(&t);
		t.async = ways[w].async;
		t.order = OLDEST;   /* one at a time: the rest are in flight when the write fails */
		signal(SIGPIPE, SIG_IGN);                 /* as rag_tool_signals does */
		run_stream(in.p, in.n, 0, 0, OUT_CLOSED, &o, &t, &r);
		signal(SIGPIPE, SIG_DFL);
		ok(r.rc == RAG_EXIT_OK && !r.err[0], "reader gone, %s: RAG_EXIT_OK, no message (%d, '%s')", how, r.rc, r.err);
		ok(r.st.records > 0 && r.st.records < 1000, "reader gone, %s: stops reading (%ld of 1000 read)", how,
		   r.st.records);
		ok(t.cancels <= 1 && t.nheld == 0 && t.finishes == r.st.records &&
		   (long)count_char(buf_str(&t.observed), ' ') == r.st.records,
		   "reader gone, %s: cancelled at most once, every record read finished and observed (%ld, %ld)", how,
		   t.cancels, t.finishes);
		if (ways[w].async)
			ok(t.cancels == 1 && t.cancelled > 0, "reader gone, %s: what was in flight is cancelled (%ld records)",
			   how, t.cancelled);
		ok(t.pipe_ignored && r.pipe_after == SIG_IGN, "reader gone, %s: SIGPIPE left as the caller set it",
		   how);
		ok(r.pending_after == 0, "reader gone, %s: nothing left in the output buffer to be written later (%zu bytes)",
		   how, r.pending_after);
		tool_free(&t);
	}
	buf_free(&in);
}

/* The tool's handler caught a signal (here: set from run() after 20 records were read): the stream
 * reads no more, cancels what is in flight, writes every record it read (in order, the held ones
 * with what cancel put in them) and returns 128 + the signal. */
static void t_interrupt_tool(tool *t)
{
	if (t->starts >= 20 && t->nheld > 0 && !interrupted) interrupted = SIGINT;
}

static void t_interrupt(void)
{
	buf in = {0}, want = {0};
	rag_stream_opts o = opts(NULL, 8, 0);
	tool t;
	result r;
	size_t lines;
	int i;
	for (i = 1; i <= 1000; i++) buf_printf(&in, "{\"i\":%d}\n", i);
	tool_init(&t);
	t.async = 1;
	t.until_full = 1;          /* hold records until the window is full: some are in flight */
	t.hook = t_interrupt_tool;
	interrupted = 0;
	run_stream(in.p, in.n, 0, 0, OUT_PIPE, &o, &t, &r);
	lines = count_char(buf_str(&r.out), '\n');
	ok(r.rc == 128 + SIGINT, "interrupted: returns 128 + the signal (%d)", r.rc);
	ok(r.st.interrupted == SIGINT, "interrupted: the stats say which signal (%d)", r.st.interrupted);
	ok(r.st.records >= 20 && r.st.records < 1000, "interrupted: reads no more (%ld of 1000 read)", r.st.records);
	ok((long)lines == r.st.records, "interrupted: every record read is written (%zu lines, %ld read)", lines,
	   r.st.records);
	ok(t.cancels == 1 && t.cancelled > 0 && !t.disorder, "interrupted: what was in flight is cancelled once (%ld), "
	   "in order", t.cancelled);
	for (i = 1; i <= (int)r.st.records; i++) buf_printf(&want, "%dg ", i);
	is_str(buf_str(&t.observed), buf_str(&want), "interrupted: observe saw each record read, in order");
	interrupted = 0;
	buf_free(&in);
	buf_free(&want);
	buf_free(&r.out);
	tool_free(&t);
}

/* max_line counts a line's content: a CRLF line of exactly max_line bytes is accepted as the same
 * LF line is; one byte more is too long, with or without a final newline. */
static void t_crlf_limit(void)
{
	static const char in[] = "{\"a\":\"12345678\"}\r\n{\"a\":\"12345678\"}\n{\"a\":\"123456789\"}\r\n"
	                         "{\"a\":\"123456789\"}\n{\"a\":\"12345678\"}\r";
	static const char last[] = "{\"a\":\"12345678\"}\n{\"a\":\"123456789\"}";
	rag_stream_opts o = opts(NULL, 0, 16);
	tool t;
	result r;
	tool_init(&t);
	run_stream(in, sizeof in - 1, 0, 0, OUT_PIPE, &o, &t, &r);
	is_str(buf_str(&t.observed), "1g 2g 3b 4b 5g ", "max_line 16: CRLF and LF lines of 16 bytes pass, 17 do not");
	buf_free(&r.out);
	tool_free(&t);
	tool_init(&t);
	o = opts(NULL, 0, 16);
	run_stream(last, sizeof last - 1, 0, 0, OUT_PIPE, &o, &t, &r);
	is_str(buf_str(&t.observed), "1g 2b ", "max_line 16: a last line of 17 bytes without a newline is too long");
	buf_free(&r.out);
	tool_free(&t);
}

/* A raw NUL byte in a line (no JSON text has one): a bad line naming the byte, not a parse. */
static void t_nul(void)
{
	static const char in[] = "{\"a\":1}\n{\"a\":\0\"b\"}\n{\"a\":3}\n";
	rag_stream_opts o = opts(NULL, 0, 0);
	tool t;
	result r;
	tool_init(&t);
	run_stream(in, sizeof in - 1, 0, 0, OUT_PIPE, &o, &t, &r);
	is_str(buf_str(&t.observed), "1g 2b 3g ", "a NUL byte: that line is bad, the others are records");
	ok(strstr(buf_str(&t.reports), "error (at <stdin>:2): not valid JSON: a NUL byte at byte 6") != NULL,
	   "a NUL byte: the message names the line and the byte");
	buf_free(&r.out);
	tool_free(&t);
}

int main(void)
{
	alarm(600);   /* a deadlock fails the test instead of hanging the suite */
	signal(SIGPIPE, SIG_DFL);
	t_reader();
	t_edges();
	t_long();
	t_strict();
	t_window();
	t_idle_why();
	t_idle_output();
	t_budget();
	t_big();
	t_no_output();
	t_epipe();
	t_interrupt();
	t_crlf_limit();
	t_nul();
	return done_testing();
}
