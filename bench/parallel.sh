#!/bin/sh
# parallel.sh - rag-eval --jobs: shards sharing one endpoint and its rate limit (not a test).
#
#   sh bench/parallel.sh [--json] [-n RECORDS] [-j CONCURRENCY] [--latency-ms MS]
#
# Makes a test set of RECORDS (default 8000) answered records (share/examples/example.jsonl
# with new ids), starts tests/fakellm.py answering in MS (default 200) ms, and runs
#   bin/rag-eval --jobs SHARDS -j J -m METRIC
# METRIC is $BENCH_METRIC, default context_recall (one stage, one request a record; faithfulness
# is two stages, rag-claims and rag-verify, each a process with its own limit), with SHARDS
# (default 4, $BENCH_SHARDS) shards of -j J (default 16) and llm.requests_per_minute set to
# RPM / (SHARDS x STAGES) in each process (RPM, the endpoint's limit, default 6000, $BENCH_RPM:
# 100 requests a second; STAGES 2 for faithfulness, else 1; $BENCH_PER_PROCESS sets the
# per-process limit instead, e.g. to show what a limit divided by the shards alone does), the
# cache off. From the fake's log (the arrival time "t" of every request) it prints the records/s,
# the most requests that arrived in one second and in any 60 s, against the limit. rate.c's
# limit is a sliding window of 60 s per process: a process may spend its minute's requests as
# fast as its -j and the latency allow, so the one-second peak shows the concurrency, the 60 s
# count the limit. Needs GNU parallel and jq; everything stays on 127.0.0.1.
# Exit status: 0, or 1 when the run failed, lost records or went over the limit, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=8000 J=16 LAT=200
SHARDS=${BENCH_SHARDS:-4}
RPM=${BENCH_RPM:-6000}
METRIC=${BENCH_METRIC:-context_recall}
bench_args "jl" "$@"
bench_need jq python3 parallel
bench_setup parallel rag-eval rag-verify rag-gate
PARALLEL_HOME=$W/parallel-home
export PARALLEL_HOME
unset PARALLEL

# ---------------------------------------------------------------- the test set
jq -c '{id, question, contexts, answer, reference}' share/examples/example.jsonl >"$W/base.jsonl"
awk -v n="$N" '{ line[NR] = $0 } END {
	for (i = 1; i <= n; i++) {
		l = line[(i - 1) % NR + 1]
		sub(/"id":"[^"]*"/, "\"id\":\"p" sprintf("%06d", i) "\"", l)
		print l
	}
}' "$W/base.jsonl" >"$W/testset.jsonl"

# ---------------------------------------------------------------- the run
bench_fake "$LAT"
case $METRIC in faithfulness) STAGES=2 ;; *) STAGES=1 ;; esac
PER=${BENCH_PER_PROCESS:-$(awk -v r="$RPM" -v s="$SHARDS" -v g="$STAGES" 'BEGIN { printf "%d", r / s / g }')}
printf 'llm:\n  model: fake-judge\n  timeout: 60\n  requests_per_minute: %s\ncache:\n  mode: off\n' "$PER" >"$W/rag.yaml"
t0=$(now)
"$BIN/rag-eval" -q -c "$W/rag.yaml" --bin "$BIN" --jobs "$SHARDS" -j "$J" -m "$METRIC" -o "$W/run" \
	"$W/testset.jsonl" >"$W/eval.out" 2>"$W/eval.err"
RC=$?
t1=$(now)
SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
LINES=$(wc -l <"$W/run/records.jsonl" 2>/dev/null | tr -d ' ')
ERRS=$(grep -c '"errors":\[{' "$W/run/records.jsonl" 2>/dev/null)

# the arrival times, sorted: the most in one second (by the clock's seconds) and in any 60 s
jq -r '.t' "$W/fake.log" | sort -n >"$W/t"
STATS=$(awk '
	{ t[NR] = $1; s = int($1); c[s]++; if (c[s] > peak1) peak1 = c[s] }
	END {
		j = 1
		for (i = 1; i <= NR; i++) {
			while (t[i] - t[j] >= 60) j++
			if (i - j + 1 > peak60) peak60 = i - j + 1
		}
		printf "%d %d %d %.3f", NR, peak1, peak60, NR ? t[NR] - t[1] : 0
	}' "$W/t")
set -- $STATS
REQS=$1 PEAK1=$2 PEAK60=$3 SPAN=$4
FAILED=0
if [ "$RC" -gt 1 ] || [ "${LINES:-0}" -ne "$N" ]; then
	FAILED=1
	echo "parallel.sh: rag-eval exited $RC with ${LINES:-0} of $N records" >&2
	tail -n 5 "$W/eval.err" >&2
fi
[ "$PEAK60" -le "$RPM" ] || FAILED=1

awk -v n="$N" -v j="$J" -v sh="$SHARDS" -v lat="$LAT" -v rpm="$RPM" -v per="$PER" -v json="$JSON" -v s="$SECS" \
	-v q="$REQS" -v p1="$PEAK1" -v p60="$PEAK60" -v span="$SPAN" -v e="${ERRS:-0}" -v rc="$RC" -v m="$METRIC" '
BEGIN {
	rate = s > 0 ? n / s : 0
	# the shards on this machine share rag-eval's budget of -j requests in flight (RAG_INFLIGHT)
	burst = j * 1000 / lat
	# the limit allows rpm in the first minute (at the burst rate), then rpm a minute
	first = rpm / burst
	ideal = n <= rpm ? n / burst : 60 * int((n - 1) / rpm) + ((n - 1) % rpm + 1) / burst
	if (json) {
		printf "{\"bench\":\"parallel\",\"metric\":\"%s\",\"records\":%d,\"shards\":%d,\"concurrency\":%d,\"latency_ms\":%d,", m, n, sh, j, lat
		printf "\"requests_per_minute\":%d,\"per_process\":%d,\"seconds\":%.3f,\"records_per_s\":%.1f,", rpm, per, s, rate
		printf "\"requests\":%d,\"peak_1s\":%d,\"peak_60s\":%d,\"ideal_seconds\":%.1f,\"records_with_errors\":%d,\"exit\":%d}\n", q, p1, p60, ideal, e, rc
		exit
	}
	printf "ragpipe rag-eval --jobs benchmark: %d records, %s (%.1f requests a record), %d shards x -j %d,\n", n, m, q / n, sh, j
	printf "fake judge latency %d ms, llm.requests_per_minute %d a process (the endpoint'"'"'s limit: %d, %.0f/s), cache off\n\n", lat, per, rpm, rpm / 60
	printf "seconds %.2f, %.1f records/s, %d requests in %.1f s, %d records with errors, exit %d\n", s, rate, q, span, e, rc
	printf "most requests in one second: %d (-j in flight for the whole run, at the latency: %.0f/s)\n", p1, burst
	printf "most requests in any 60 s: %d (the limit: %d) %s\n", p60, rpm, p60 <= rpm ? "within" : "OVER THE LIMIT"
	if (q <= n) printf "ideal under the limit: %.1f s (%d requests a minute, each minute'"'"'s at %.0f/s)\n", ideal, rpm, burst
	else printf "ideal: not computed (more than one stage a shard)\n"
}'
exit $FAILED
