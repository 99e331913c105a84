#!/bin/sh
# otlp.sh - rag-serve's OTLP/HTTP receiver on 1 MB export requests, protobuf and JSON (not a test).
#
#   sh bench/otlp.sh [--json] [-n REQUESTS]
#
# Makes one ExportTraceServiceRequest of about 1 MB in OTLP JSON (2,000 spans of an
# OpenInference RAG service, each with its ids, times and a 300-byte answer), the same request in
# protobuf (obj/tests/otlp-pb, the tests' packer), starts bin/rag-serve with --otlp-spool on
# loopback and POSTs each body REQUESTS times (default 50) from one curl, one request after
# another: protobuf (decoded by protobuf-c, written to the spool as OTLP JSON) and JSON (checked
# and put on one line). Reports requests per second and the body's MB per second for each.
# Checked: every reply 200, one spool line a request, and the protobuf lines equal to the JSON
# request (jq -S). No network. Exit status: 0; 1 when a check failed; 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=50
bench_args "" "$@"
bench_need python3 curl jq
bench_setup otlp rag-serve
PB=$TOP/obj/tests/otlp-pb
[ -x "$PB" ] || { echo "otlp.sh: $PB is not built (make obj/tests/otlp-pb)" >&2; exit 2; }

python3 - "$W/req.json" <<'PY'
import json, sys
T0 = 1765000000 * 10**9
spans = []
for i in range(2000):
    tid = "%032x" % ((i // 4) * 2654435761 + 1)
    attrs = [{"key": "openinference.span.kind", "value": {"stringValue": "LLM"}},
             {"key": "llm.model_name", "value": {"stringValue": "qwen-plus"}},
             {"key": "llm.token_count.prompt", "value": {"intValue": str(200 + i)}},
             {"key": "output.value", "value": {"stringValue": ("answer %d " % i) * 30}}]
    spans.append({"traceId": tid, "spanId": "%016x" % (i + 1), "parentSpanId": "%016x" % (i // 4 * 4 + 1),
                  "name": "llm", "kind": 1, "startTimeUnixNano": str(T0 + i * 1000),
                  "endTimeUnixNano": str(T0 + i * 1000 + 500), "attributes": attrs, "status": {"code": 1}})
req = {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "rag"}}]},
                          "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}]}
json.dump(req, open(sys.argv[1], "w"), separators=(",", ":"))
PY
"$PB" <"$W/req.json" >"$W/req.pb" || { echo "otlp.sh: otlp-pb failed" >&2; exit 1; }

"$BIN/rag-serve" --store "$W/store.db" --listen 127.0.0.1:0 --otlp-spool "$W/spool.jsonl" \
	--otlp-max-body 8388608 --per-client 0 2>"$W/serve.err" &
SPID=$!
trap 'kill -TERM "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; _bench_cleanup' EXIT
i=0
while ! grep -qs 'http://127\.0\.0\.1:[0-9]*/$' "$W/serve.err" && kill -0 "$SPID" 2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*/$' "$W/serve.err" | head -n 1)
[ -n "$URL" ] || { echo "otlp.sh: rag-serve did not start: $(cat "$W/serve.err")" >&2; exit 1; }

FAILED=0
# run LABEL TYPE BODY: N POSTs of BODY from one curl; sets RPS and MBPS
run() {
	: >"$W/spool.jsonl"
	urls=
	for i in $(seq 1 "$N"); do urls="$urls -o /dev/null ${URL}v1/traces"; done
	t0=$(now)
	# shellcheck disable=SC2086
	curl -s -w '%{http_code}\n' -H "Content-Type: $2" --data-binary "@$3" $urls >"$W/codes.$1"
	t1=$(now)
	bytes=$(wc -c <"$3")
	[ "$(grep -c '^200$' "$W/codes.$1")" = "$N" ] || { echo "otlp.sh: $1: not every reply 200: $(sort "$W/codes.$1" | uniq -c | tr '\n' ' ')" >&2; FAILED=1; }
	[ "$(wc -l <"$W/spool.jsonl")" = "$N" ] || { echo "otlp.sh: $1: not one spool line a request" >&2; FAILED=1; }
	RPS=$(awk -v n="$N" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", n / (b - a) }')
	MBPS=$(awk -v n="$N" -v s="$bytes" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", n * s / (b - a) / 1e6 }')
	SIZE=$bytes
}
run protobuf application/x-protobuf "$W/req.pb"
[ "$(head -n 1 "$W/spool.jsonl" | jq -S -c .)" = "$(jq -S -c . "$W/req.json")" ] ||
	{ echo "otlp.sh: the protobuf request's spool line is not the JSON request" >&2; FAILED=1; }
PB_RPS=$RPS PB_MBPS=$MBPS PB_SIZE=$SIZE
run json application/json "$W/req.json"
JS_RPS=$RPS JS_MBPS=$MBPS JS_SIZE=$SIZE

if [ "$JSON" = 1 ]; then
	printf '{"requests":%s,"protobuf":{"bytes":%s,"requests_per_s":%s,"mb_per_s":%s},"json":{"bytes":%s,"requests_per_s":%s,"mb_per_s":%s}}\n' \
		"$N" "$PB_SIZE" "$PB_RPS" "$PB_MBPS" "$JS_SIZE" "$JS_RPS" "$JS_MBPS"
else
	printf 'otlp: %s requests of 2,000 spans each, one at a time over loopback\n' "$N"
	printf '  protobuf  %8s bytes  %7s requests/s  %6s MB/s\n' "$PB_SIZE" "$PB_RPS" "$PB_MBPS"
	printf '  json      %8s bytes  %7s requests/s  %6s MB/s\n' "$JS_SIZE" "$JS_RPS" "$JS_MBPS"
fi
exit $FAILED
