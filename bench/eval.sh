#!/bin/sh
# eval.sh - throughput of rag-eval, the whole pipeline, against a RAG service and a judge that
# both answer in a fixed latency (not a test).
#
#   sh bench/eval.sh [--json] [-n RECORDS] [-j CONCURRENCY] [--latency-ms MS] [--service-ms MS]
#
# Makes a test set of RECORDS (default 200) questions without answers over the demonstration's
# documents (share/examples/docs), starts tests/fakellm.py with a reply latency of --latency-ms
# (default 100) and share/examples/rag_service.py with one of --service-ms (default the
# judge's), and times
#   bin/rag-eval -j J (default 16) with the default metrics (faithfulness, answer_relevancy,
#   context_precision, context_recall): rag-collect, then 7 stages, then rag-gate
# with RAG_CACHE=off. Each record goes through a chain of sequential requests: collect, then
# each stage that asks the judge once (counted from the records' usage: the stages with calls).
# The ideal time is the longer of two bounds: the chain, the service's latency + (ceil(N / J) +
# chain - 2) x latency (the first record's chain, then a batch of J every latency, were each
# stage free to have J in flight), and the budget, judge requests x latency / J (rag-eval's
# stages share one budget of J judge requests in flight, RAG_INFLIGHT; rag-collect has its own
# J); the ratio is the ideal time over the time measured. Before the run it times 20 requests to
# the fake one at a time (its latency plus its own handling, which the ideal leaves out) and
# prints the budget's bound and the ratio at that round trip too; and the most any run reaches,
# in whole latencies: the judge requests, each one latency, take ceil(requests / J) of them on J
# slots, after the RAG service's first answer (the ideal counts a fraction of the last, and no
# service). Needs rag-collect (merged with rag-eval); BENCH_EVAL_BIN names another directory of
# tools. Everything stays on 127.0.0.1.
# Exit status: 0, or 1 when the run failed or lost records, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=200 J=16 LAT=100 SVC=
bench_args "jls" "$@"
SVC=${SVC:-$LAT}
bench_need jq python3
EBIN=${BENCH_EVAL_BIN:-$BIN}
[ -x "$EBIN/rag-collect" ] || { echo "eval.sh: $EBIN/rag-collect is not built: it comes with the rag-collect merge" >&2; exit 2; }
bench_setup eval rag-eval

# ---------------------------------------------------------------- the test set
jq -c '.[]' share/examples/testset.json >"$W/base.jsonl"
awk -v n="$N" '{ line[NR] = $0 } END {
	for (i = 1; i <= n; i++) {
		l = line[(i - 1) % NR + 1]
		sub(/"id":"[^"]*"/, "\"id\":\"b" sprintf("%04d", i) "\"", l)
		print l
	}
}' "$W/base.jsonl" >"$W/testset.jsonl"

# ---------------------------------------------------------------- the services
bench_fake "$LAT"
python3 share/examples/rag_service.py --port 0 --port-file "$W/svc.port" --latency "$SVC" 2>"$W/svc.err" &
SVC_PID=$!
trap 'kill "$SVC_PID" 2>/dev/null; _bench_cleanup' EXIT
i=0
while [ ! -s "$W/svc.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$W/svc.port" ] || { echo "eval.sh: the RAG service did not start" >&2; cat "$W/svc.err" >&2; exit 1; }
printf 'llm:\n  model: fake-judge\n  timeout: 30\n  concurrency: %d\ncollect:\n  url: http://127.0.0.1:%s/ask\n' \
	"$J" "$(cat "$W/svc.port")" >"$W/rag.yaml"

# ---------------------------------------------------------------- the fake's own round trip
# One request at a time, 20 times, on one kept-alive connection (as libcurl's): what a request
# takes end to end, the fake's latency plus its own handling (reading and logging the request,
# writing the reply). The ideal counts only the latency; the run cannot do better than this.
RTT=$(python3 - "$(cat "$W/port")" <<'PY'
import http.client, json, sys, time
body = json.dumps({"model": "fake-judge", "messages": [{"role": "system", "content": "You split an answer into atomic claims."},
                   {"role": "user", "content": "Text to split:\n" + "Paris is the capital of France. " * 30}]})
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
ts = []
for i in range(21):
    t = time.time()
    c.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json", "Authorization": "Bearer bench-key"})
    c.getresponse().read()
    if i: ts.append(time.time() - t)   # the first opens the connection
ts.sort()
print("%.1f" % (1000 * ts[len(ts) // 2]))
PY
)
: >"$W/fake.log"   # the probe's requests are not the run's

# ---------------------------------------------------------------- the run
# CPU: a process's user + system ticks, and the machine's busy and idle ticks (/proc/stat)
proc_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
all_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat; }
c0=$(all_ticks) f0=$(proc_ticks "$FAKE_PID") s0=$(proc_ticks "$SVC_PID")
t0=$(now)
"$EBIN/rag-eval" -q -c "$W/rag.yaml" --bin "$EBIN" -j "$J" -o "$W/run" "$W/testset.jsonl" >"$W/eval.out" 2>"$W/eval.err"
RC=$?
t1=$(now)
c1=$(all_ticks) f1=$(proc_ticks "$FAKE_PID") s1=$(proc_ticks "$SVC_PID")
SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
LINES=$(wc -l <"$W/run/records.jsonl" 2>/dev/null | tr -d ' ')
ERRS=$(grep -c '"errors":\[{' "$W/run/records.jsonl" 2>/dev/null)
JREQS=$(wc -l <"$W/fake.log" | tr -d ' ')
# the chain: collect, and every stage that asked the judge for the record
CHAIN=$(jq -s '[.[] | [.usage // {} | .[] | .[] | select((.calls // 0) + (.cache_hits // 0) > 0)] | length + 1] | max // 1' \
	"$W/run/records.jsonl" 2>/dev/null)
FAILED=0
if [ "$RC" -gt 1 ] || [ "${LINES:-0}" -ne "$N" ]; then
	FAILED=1
	echo "eval.sh: rag-eval exited $RC with ${LINES:-0} of $N records" >&2
	tail -n 5 "$W/eval.err" >&2
fi

awk -v n="$N" -v j="$J" -v lat="$LAT" -v svc="$SVC" -v json="$JSON" -v s="$SECS" -v chain="${CHAIN:-1}" -v q="$JREQS" \
	-v e="${ERRS:-0}" -v rc="$RC" -v rtt="${RTT:-0}" '
BEGIN {
	batches = int((n + j - 1) / j)
	chained = (svc + (batches + chain - 2) * lat) / 1000
	ideal = chained
	# the judge stages share one budget of -j requests in flight (RAG_INFLIGHT): the judge
	# requests cannot take less than requests x latency / j, however the stages overlap
	budget = q * lat / 1000 / j
	if (budget > ideal) ideal = budget
	# the judge requests all take one latency: in whatever order, J slots need ceil(q / J)
	# latencies for them, and the first waits for the first answer of the RAG service; the ideal
	# above counts a fraction of the last latency, and no service
	whole = (int((q + j - 1) / j) * lat + svc) / 1000
	reach = whole > 0 ? ideal / whole : 0
	if (reach > 1) reach = 1
	rate = s > 0 ? n / s : 0
	irate = ideal > 0 ? n / ideal : 0
	ratio = s > 0 ? ideal / s : 0
	if (json) {
		printf "{\"bench\":\"eval\",\"records\":%d,\"concurrency\":%d,\"latency_ms\":%d,\"service_ms\":%d,\"seconds\":%.3f,\"records_per_s\":%.1f,", n, j, lat, svc, s, rate
		printf "\"chain\":%d,\"judge_requests\":%d,\"ideal_seconds\":%.3f,\"ideal_records_per_s\":%.1f,\"ratio\":%.3f,\"reachable_ratio\":%.3f,\"records_with_errors\":%d,\"exit\":%d}\n", chain, q, ideal, irate, ratio, reach, e, rc
		exit
	}
	printf "ragpipe rag-eval benchmark: %d records, -j %d, fake judge latency %d ms, RAG service latency %d ms, cache off\n\n", n, j, lat, svc
	printf "seconds %.2f, %.1f records/s, %d judge requests (%.2f a record), %d records with errors, exit %d\n", s, rate, q, q / n, e, rc
	printf "chain of sequential requests a record: %d (collect + the judge stages)\n", chain
	printf "ideal: the longer of %d ms + (ceil(%d / %d) + %d - 2) x %d ms = %.2f s (the chain) and %d judge requests x %d ms / %d in flight = %.2f s (the run'"'"'s one budget): %.2f s, %.1f records/s\n", svc, n, j, chain, lat, chained, q, lat, j, budget, ideal, irate
	printf "ratio to the ideal: %.3f\n", ratio
	printf "in whole latencies: %d requests, %d at a time, take ceil(%d / %d) x %d ms, after the RAG service'"'"'s first answer (%d ms): %.2f s, %.3f of the ideal at the most\n", q, j, q, j, lat, svc, whole, reach
	# the same budget at the round trip measured at the fake judge, not at its latency
	if (rtt > 0 && s > 0)
		printf "the fake'"'"'s own round trip, one request at a time: %.1f ms for its %d ms (median of 20); at that, the budget'"'"'s bound is %.2f s and the ratio %.3f\n", rtt, lat, q * rtt / 1000 / j, (q * rtt / 1000 / j > ideal ? q * rtt / 1000 / j : ideal) / s
}'
[ "$JSON" = 1 ] || python3 bench/inflight.py "$W/fake.log" "$LAT" "$J" "$t0" "$t1"
# where the CPU went: the machine's cores busy over the run, and the two fakes' share of them
[ "$JSON" = 1 ] || awk -v c0="$c0" -v c1="$c1" -v f="$((f1 - f0))" -v v="$((s1 - s0))" -v hz="$(getconf CLK_TCK)" \
	-v cores="$(nproc)" -v s="$SECS" 'BEGIN {
	split(c0, a, " "); split(c1, b, " ")
	busy = (b[1] - a[1]) / hz; idle = (b[2] - a[2]) / hz
	printf "CPU over the run: %.2f of %d cores busy on average (%.1f core-s of %.1f); the fake judge %.1f core-s, the RAG service %.1f, the rest (ragpipe) %.1f\n",
		busy / s, cores, busy, busy + idle, f / hz, v / hz, busy - (f + v) / hz
}'
exit $FAILED
