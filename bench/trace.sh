#!/bin/sh
# trace.sh - rag-trace's throughput and memory on a recorded stream of spans (not a test).
#
#   sh bench/trace.sh [--json] [-n SPANS]
#
# Generates SPANS (default 1000000, rounded up to whole traces) deterministic spans as the Collector's file exporter writes
# them: traces of 4 spans (an OpenInference CHAIN root, a RETRIEVER with 3 documents, an LLM
# span with token counts, an embedding span), exported in batches of 100 spans a line, each
# trace's children in one batch and its root in the next (as a service exports spans when they
# end), then runs bin/rag-trace on one core (taskset -c 0) under /usr/bin/time -v, with
# --sample 1 (every trace a record) and --sample 0.05, and reports spans per second and the peak
# resident memory. Checked: one record per trace with --sample 1. No network. Exit status: 0,
# or 1 when a run failed or a count is wrong, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=1000000
bench_args "" "$@"
bench_need python3 taskset /usr/bin/time
bench_setup trace rag-trace

python3 - "$W/spans.jsonl" "$N" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
out = open(path, "w")
T0 = 1765000000 * 10**9
def a(k, v):
    if isinstance(v, str): return {"key": k, "value": {"stringValue": v}}
    if isinstance(v, int): return {"key": k, "value": {"intValue": str(v)}}
    return {"key": k, "value": {"doubleValue": v}}
def span(tid, sid, parent, name, start, end, attrs):
    d = {"traceId": tid, "spanId": sid, "name": name, "kind": 1, "startTimeUnixNano": str(start),
         "endTimeUnixNano": str(end), "attributes": attrs, "status": {}}
    if parent: d["parentSpanId"] = parent
    return d
def trace(i):
    tid = "%032x" % (i * 2654435761 % (1 << 128) or 1)
    root = "%016x" % (4 * i + 1)
    t = T0 + i * 20 * 10**6
    kids = [
        span(tid, "%016x" % (4 * i + 2), root, "embed", t + 10**6, t + 5 * 10**6,
             [a("openinference.span.kind", "EMBEDDING"), a("embedding.model_name", "text-embedding-3-small")]),
        span(tid, "%016x" % (4 * i + 3), root, "retrieve", t + 5 * 10**6, t + 40 * 10**6,
             [a("openinference.span.kind", "RETRIEVER"), a("input.value", "question %d about the returns policy" % i)] +
             sum(([a("retrieval.documents.%d.document.id" % k, "doc-%d" % ((i + k) % 5000)),
                   a("retrieval.documents.%d.document.content" % k, "Document %d says refunds take %d days after delivery." % ((i + k) % 5000, k + 2)),
                   a("retrieval.documents.%d.document.score" % k, round(0.9 - 0.1 * k, 2))] for k in range(3)), [])),
        span(tid, "%016x" % (4 * i + 4), root, "llm", t + 41 * 10**6, t + 900 * 10**6,
             [a("openinference.span.kind", "LLM"), a("llm.model_name", "gpt-4o-mini"),
              a("llm.token_count.prompt", 400 + i % 100), a("llm.token_count.completion", 20 + i % 30),
              a("output.value", "Refunds take %d days after delivery." % (2 + i % 3))]),
    ]
    r = span(tid, root, None, "rag", t, t + 950 * 10**6,
             [a("openinference.span.kind", "CHAIN"), a("input.value", "question %d about the returns policy" % i),
              a("output.value", "Refunds take %d days after delivery." % (2 + i % 3))])
    return kids, r
batch, pending = [], []
def flush():
    global batch
    if batch:
        out.write(json.dumps({"resourceSpans": [{"resource": {"attributes": [a("service.name", "bench")]},
                  "scopeSpans": [{"scope": {"name": "bench"}, "spans": batch}]}]}, separators=(",", ":")) + "\n")
        batch = []
for i in range((n + 3) // 4):
    kids, r = trace(i)
    batch.extend(kids)
    batch.extend(pending)
    pending = [r]
    if len(batch) >= 100:
        flush()
batch.extend(pending)
flush()
PY
SPANS=$(python3 -c 'import json,sys; print(sum(len(json.loads(l)["resourceSpans"][0]["scopeSpans"][0]["spans"]) for l in open(sys.argv[1])))' "$W/spans.jsonl")
TRACES=$(python3 -c 'import json,sys; print(len({s["traceId"] for l in open(sys.argv[1]) for s in json.loads(l)["resourceSpans"][0]["scopeSpans"][0]["spans"]}))' "$W/spans.jsonl")
BYTES=$(wc -c <"$W/spans.jsonl" | tr -d ' ')

bench_time all taskset -c 0 "$BIN/rag-trace" -q --quiet-time 5 --sample 1 <"$W/spans.jsonl"
ALL_RC=$RC ALL_S=$SECS ALL_KB=$RSS_KB ALL_N=$(wc -l <"$W/out.all" | tr -d ' ')
bench_time sample taskset -c 0 "$BIN/rag-trace" -q --quiet-time 5 --sample 0.05 <"$W/spans.jsonl"
S_RC=$RC S_S=$SECS S_KB=$RSS_KB S_N=$(wc -l <"$W/out.sample" | tr -d ' ')

rate() { awk -v n="$SPANS" -v s="$1" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print "inf" }'; }
if [ "$JSON" = 1 ]; then
	printf '{"spans":%s,"traces":%s,"bytes":%s,' "$SPANS" "$TRACES" "$BYTES"
	printf '"sample_1":{"exit":%s,"seconds":%s,"spans_per_second":%s,"max_rss_kb":%s,"records":%s},' \
		"$ALL_RC" "$ALL_S" "$(rate "$ALL_S")" "$ALL_KB" "$ALL_N"
	printf '"sample_0.05":{"exit":%s,"seconds":%s,"spans_per_second":%s,"max_rss_kb":%s,"records":%s}}\n' \
		"$S_RC" "$S_S" "$(rate "$S_S")" "$S_KB" "$S_N"
else
	printf 'spans: %s in %s traces (%s bytes), one core\n' "$SPANS" "$TRACES" "$BYTES"
	printf '%-14s %5s %8s %10s %12s %9s\n' run exit seconds spans/s "max RSS KiB" records
	printf '%-14s %5s %8s %10s %12s %9s\n' "--sample 1" "$ALL_RC" "$ALL_S" "$(rate "$ALL_S")" "$ALL_KB" "$ALL_N"
	printf '%-14s %5s %8s %10s %12s %9s\n' "--sample 0.05" "$S_RC" "$S_S" "$(rate "$S_S")" "$S_KB" "$S_N"
fi
[ "$ALL_RC" = 0 ] && [ "$S_RC" = 0 ] && [ "$ALL_N" = "$TRACES" ] || exit 1
exit 0
