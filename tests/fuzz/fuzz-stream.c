/* fuzz-stream.c - libFuzzer target: the record reader, rag_stream_run (lib/stream.c), over a
 * memfd holding the input. The first byte picks the options (window, max_line, strict) and how
 * records are released (at once in start, or later from run, oldest or newest first), so the
 * window, long lines, CRLF and bad lines are all reached. Checked: one line out per line in. */
#include "base.h"
#include "record.h"
#include "stream.h"

#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
	rag_item *held[64];
	int n, newest_first, sync;
	long started, finished;
} fz;

static void f_start(rag_item *it, void *ctx)
{
	fz *f = ctx;
	f->started++;
	if (f->sync || f->n == 64) return;
	rag_item_hold(it);
	f->held[f->n++] = it;
}

static void f_finish(rag_item *it, void *ctx)
{
	fz *f = ctx;
	f->finished++;
	it->rec = rag_record_set(it->rec, "scores", "fuzz", jv_number(1));
}

static void release_one(fz *f)
{
	rag_item *it;
	if (f->newest_first) {
		it = f->held[--f->n];
	} else {
		it = f->held[0];
		memmove(f->held, f->held + 1, (size_t)--f->n * sizeof *f->held);
	}
	rag_item_release(it);
}

static int f_run(void *ctx, int fd, double timeout)
{
	fz *f = ctx;
	struct pollfd p = {fd, POLLIN, 0};
	if (f->n) release_one(f);
	return fd >= 0 && poll(&p, 1, 0) > 0;
}

static void f_cancel(void *ctx)
{
	fz *f = ctx;
	while (f->n) release_one(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned flags = size ? data[0] : 0;
	static const int windows[] = {1, 2, 3, 256};
	static const size_t lines[] = {8, 64, 4096, 8u << 20};
	rag_stream_opts o = {0};
	rag_stream_ops ops = {f_start, f_finish, f_run, f_cancel};
	rag_stream_stats st = {0};
	fz f = {0};
	char err[RAG_ERRLEN] = "", *outp = NULL;
	size_t outn = 0, i, in_lines = 0;
	FILE *in, *out;
	int fd;

	if (size) data++, size--;
	fd = memfd_create("in.jsonl", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) abort();
	in = fdopen(fd, "r");
	out = open_memstream(&outp, &outn);
	o.prog = "rag-fuzz";
	o.input_name = "<fuzz>";
	o.window = windows[flags & 3];
	o.max_line = lines[(flags >> 2) & 3];
	o.strict = (flags >> 4) & 1;
	f.newest_first = (flags >> 5) & 1;
	f.sync = (flags >> 6) & 1;
	(void)rag_stream_run(in, out, &o, &ops, &f, &st, err, sizeof err);
	fclose(in);
	fclose(out);
	if (f.n) abort();                          /* every held record was released */
	if (f.started != f.finished) abort();      /* and finished */
	if (!o.strict) {
		/* one output line per input line (a last line without a newline counts) */
		for (i = 0; i < size; i++) in_lines += data[i] == '\n';
		if (size && data[size - 1] != '\n') in_lines++;
		for (i = 0; i < outn; i++) in_lines -= outp[i] == '\n';
		if (in_lines != 0) abort();
	}
	free(outp);
	return 0;
}
