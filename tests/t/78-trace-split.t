#!/bin/sh
# 78-trace-split.t - rag-trace behind a load balancer (issue 38, item 6): one stream of export
# requests split by trace id, as the OpenTelemetry Collector's load-balancing exporter does with
# routing_key: traceID (each export request cut into one per instance, holding the spans of the
# traces that instance owns), read by two rag-trace instances; the union of their records is the
# records of one instance over the whole stream, byte for byte (sorted by trace id), with every
# trace's spans split across lines and interleaved with other traces' (a root span a line after
# its children), with and without --sample (its picks hash the trace id alone, so the two
# instances keep the very traces one would).
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-trace" ] || bail_out "bin/rag-trace is not built: run make"

# 400 traces of 3 spans (OpenInference: CHAIN root, RETRIEVER, LLM), 30 spans a line, each
# trace's children in one line and its root in a later one; every 7th trace an error span
python3 - "$T/stream.jsonl" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
T0 = 1765000000 * 10**9
def a(k, v):
    if isinstance(v, str): return {"key": k, "value": {"stringValue": v}}
    return {"key": k, "value": {"intValue": str(v)}}
def span(tid, sid, parent, name, start, end, attrs, err=False):
    d = {"traceId": tid, "spanId": sid, "name": name, "kind": 1, "startTimeUnixNano": str(start),
         "endTimeUnixNano": str(end), "attributes": attrs, "status": {"code": 2} if err else {}}
    if parent: d["parentSpanId"] = parent
    return d
batch, pending = [], []
def flush():
    global batch
    out.write(json.dumps({"resourceSpans": [{"resource": {"attributes": [a("service.name", "split")]},
              "scopeSpans": [{"scope": {"name": "split"}, "spans": batch}]}]}) + "\n")
    batch = []
for i in range(400):
    tid = "%032x" % ((i + 1) * 0x9E3779B97F4A7C15 % (1 << 128))
    root = "%016x" % (3 * i + 1)
    t = T0 + i * 10**8
    batch.append(span(tid, "%016x" % (3 * i + 2), root, "retrieve", t + 10**6, t + 3 * 10**7,
        [a("openinference.span.kind", "RETRIEVER"), a("input.value", "question %d" % i),
         a("retrieval.documents.0.document.id", "doc-%d" % (i % 17)),
         a("retrieval.documents.0.document.content", "Document %d." % (i % 17))]))
    batch.append(span(tid, "%016x" % (3 * i + 3), root, "llm", t + 4 * 10**7, t + 6 * 10**8,
        [a("openinference.span.kind", "LLM"), a("llm.model_name", "m"), a("llm.token_count.prompt", 100 + i),
         a("llm.token_count.completion", 10 + i % 9), a("output.value", "Answer %d." % i)], err=(i % 7 == 0)))
    batch.extend(pending)
    pending = [span(tid, root, None, "rag", t, t + 7 * 10**8,
        [a("openinference.span.kind", "CHAIN"), a("input.value", "question %d" % i), a("output.value", "Answer %d." % i)])]
    if len(batch) >= 30:
        flush()
batch.extend(pending)
flush()
PY

# the splitter: each export request cut in two by the trace id's last 8 hex digits mod 2 (the
# Collector hashes the trace id onto a ring of its backends; any function of the id alone
# splits alike); an instance gets a line only when it holds spans for it
python3 - "$T/stream.jsonl" "$T/part0.jsonl" "$T/part1.jsonl" <<'PY'
import json, sys
src, parts = sys.argv[1], [open(p, "w") for p in sys.argv[2:]]
for line in open(src):
    req = json.loads(line)
    for k, f in enumerate(parts):
        rs = []
        for r in req["resourceSpans"]:
            ss = []
            for s in r["scopeSpans"]:
                spans = [x for x in s["spans"] if int(x["traceId"][-8:], 16) % len(parts) == k]
                if spans: ss.append(dict(s, spans=spans))
            if ss: rs.append(dict(r, scopeSpans=ss))
        if rs: f.write(json.dumps({"resourceSpans": rs}) + "\n")
PY
is "$(cat "$T/part0.jsonl" "$T/part1.jsonl" | jq '[.resourceSpans[].scopeSpans[].spans[]] | length' | awk '{ n += $1 } END { print n }')" 1200 \
	"the split holds the stream's 1200 spans"
ids() { jq -r '.resourceSpans[].scopeSpans[].spans[].traceId' "$1" | sort -u; }
ids "$T/part0.jsonl" >"$T/ids0"
ids "$T/part1.jsonl" >"$T/ids1"
is "$(nlines "$T/ids0"):$(nlines "$T/ids1"):$(comm -12 "$T/ids0" "$T/ids1" | wc -l | tr -d ' ')" \
	"$(ids "$T/stream.jsonl" | python3 -c 'import sys; h = [int(l.strip()[-8:], 16) % 2 for l in sys.stdin]; print("%d:%d:0" % (h.count(0), h.count(1)))')" \
	"each instance gets every span of the traces of its half, and no trace is in both"

for opts in "" "--sample 0.3"; do
	run rag rag-trace -q $opts <"$T/stream.jsonl"
	is "$RC" 0 "one instance${opts:+ ($opts)} over the whole stream: exit 0"
	jq -c . "$OUT" | sort >"$T/one.jsonl"
	[ -z "$opts" ] && is "$(nlines "$T/one.jsonl")" 400 "one instance: a record per trace, 400"
	run rag rag-trace -q $opts <"$T/part0.jsonl"
	RC0=$RC
	cp "$OUT" "$T/r0.jsonl"
	run rag rag-trace -q $opts <"$T/part1.jsonl"
	is "$RC0:$RC" "0:0" "two instances${opts:+ ($opts)}, one on each half: exit 0"
	cat "$T/r0.jsonl" "$OUT" | jq -c . | sort >"$T/two.jsonl"
	check "two instances${opts:+ ($opts)}: some records from each" test -s "$T/r0.jsonl" -a -s "$OUT"
	is "$(nlines "$T/two.jsonl")" "$(nlines "$T/one.jsonl")" "two instances${opts:+ ($opts)}: as many records as one"
	if cmp -s "$T/one.jsonl" "$T/two.jsonl"; then ok=1; else ok=0; diff "$T/one.jsonl" "$T/two.jsonl" | head -5 | sed 's/^/# /' >&2; fi
	is "$ok" 1 "two instances${opts:+ ($opts)}: the union of their records is one instance's, byte for byte"
done
check "--sample 0.3: fewer records than traces, errors kept" test "$(nlines "$T/one.jsonl")" -lt 400 -a "$(jq -c 'select(.trace.kept != "sample")' "$T/one.jsonl" | wc -l)" -gt 0

done_testing
