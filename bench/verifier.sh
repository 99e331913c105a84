#!/bin/sh
# verifier.sh - rag-verify's verifier modes against its batched mode, at the fake judge (not a test).
#
#   sh bench/verifier.sh [--json] [-n RECORDS] [-j CONCURRENCY] [--latency-ms MS]
#
# Generates RECORDS deterministic records, each with 3 contexts and 3 claims already split
# (claims.answer: one of them UNSUPPORTED), starts tests/fakellm.py with a fixed reply latency
# (default 100 ms), and times bin/rag-verify -j J on them in each mode:
#   batched      all the claims of a record in one JSON request (the default)
#   claim        a Yes/No verifier model asked once per claim, all contexts as the document
#   claim_chunk  once per claim and chunk
# with RAG_CACHE=off. Prints per mode: seconds, records/s, requests per record, seconds of
# judge time per record (requests per record x latency), the ideal rate (J / (requests per
# record x latency)) and the share of it reached, and the rate against the batched mode.
# Everything stays on 127.0.0.1. Exit status: 0, or 1 when a run failed or lost records, 2 on
# usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=200 J=16 LAT=100
bench_args "jl" "$@"
bench_setup verifier rag-verify

awk -v n="$N" 'BEGIN {
	split("red green blue amber violet silver", col, " ")
	split("Lyon Porto Ghent Turku Graz Split Bergen Kraków", city, " ")
	for (i = 1; i <= n; i++) {
		c = col[(i % 6) + 1]; t = city[(i % 8) + 1]
		w = 10 + (i * 7) % 90; y = 1800 + (i * 13) % 200
		printf "{\"id\":\"v%03d\",\"question\":\"What do we know about widget %d?\",", i, i
		printf "\"contexts\":[\"Widget %d is %s and weighs %d kilograms.\",", i, c, w
		printf "\"Widget %d was first made in %s.\",", i, t
		printf "\"The design of widget %d dates from %d.\"],", i, y
		printf "\"claims\":{\"answer\":[\"Widget %d is %s.\",\"Widget %d weighs %d kilograms.\",", i, c, i, w
		printf "\"UNSUPPORTED Widget %d was first made in %d.\"]}}\n", i, y + 1
	}
}' >"$W/records.jsonl"

bench_fake "$LAT"
reqs() { wc -l <"$W/fake.log" | tr -d ' '; }

FAILED=0
# measure MODE: rag-verify --mode MODE; sets SECS_<MODE>, REQS_<MODE>, RC_<MODE>
measure() {
	_r0=$(reqs); _t0=$(now)
	"$BIN/rag-verify" -c "$W/rag.yaml" -q -j "$J" --mode "$1" <"$W/records.jsonl" >"$W/$1.out" 2>"$W/$1.err"
	_rc=$?
	_t1=$(now); _r1=$(reqs)
	eval "SECS_$1=\$(awk -v a=\"\$_t0\" -v b=\"\$_t1\" 'BEGIN { printf \"%.3f\", b - a }')"
	eval "REQS_$1=\$((_r1 - _r0))"
	eval "RC_$1=\$_rc"
	if [ "$_rc" -ne 0 ] || [ "$(wc -l <"$W/$1.out")" -ne "$N" ]; then
		FAILED=1
		echo "verifier.sh: --mode $1 exited $_rc with $(wc -l <"$W/$1.out") of $N lines" >&2
		tail -n 5 "$W/$1.err" >&2
	fi
}
measure batched
measure claim
measure claim_chunk

awk -v n="$N" -v j="$J" -v lat="$LAT" -v json="$JSON" \
	-v s1="$SECS_batched" -v q1="$REQS_batched" -v s2="$SECS_claim" -v q2="$REQS_claim" \
	-v s3="$SECS_claim_chunk" -v q3="$REQS_claim_chunk" '
BEGIN {
	name[1] = "batched"; s[1] = s1; q[1] = q1
	name[2] = "claim"; s[2] = s2; q[2] = q2
	name[3] = "claim_chunk"; s[3] = s3; q[3] = q3
	for (k = 1; k <= 3; k++) {
		rpr[k] = q[k] / n; rate[k] = s[k] > 0 ? n / s[k] : 0
		judge[k] = rpr[k] * lat / 1000
		ideal[k] = rpr[k] > 0 ? j / judge[k] : 0
		ratio[k] = ideal[k] > 0 ? rate[k] / ideal[k] : 0
		vs[k] = rate[1] > 0 ? rate[k] / rate[1] : 0
	}
	if (json) {
		printf "{\"bench\":\"verifier\",\"records\":%d,\"concurrency\":%d,\"latency_ms\":%d,\"modes\":[", n, j, lat
		for (k = 1; k <= 3; k++)
			printf "%s{\"mode\":\"%s\",\"seconds\":%.3f,\"records_per_s\":%.1f,\"requests\":%d,\"requests_per_record\":%.2f,\"judge_seconds_per_record\":%.3f,\"ideal_records_per_s\":%.1f,\"ratio\":%.3f,\"vs_batched\":%.3f}", \
				(k > 1 ? "," : ""), name[k], s[k], rate[k], q[k], rpr[k], judge[k], ideal[k], ratio[k], vs[k]
		printf "]}\n"
		exit
	}
	printf "ragpipe verifier benchmark: %d records (3 claims, 3 contexts each), -j %d, fake judge latency %d ms, cache off\n\n", n, j, lat
	printf "%-12s %8s %10s %9s %8s %9s %10s %6s %8s\n", "mode", "seconds", "records/s", "requests", "req/rec", "judge s/r", "ideal r/s", "ratio", "vs batch"
	for (k = 1; k <= 3; k++)
		printf "%-12s %8.2f %10.1f %9d %8.2f %9.3f %10.1f %6.2f %8.2f\n", name[k], s[k], rate[k], q[k], rpr[k], judge[k], ideal[k], ratio[k], vs[k]
	printf "\njudge s/r = requests per record x latency (the judge time a record costs); ideal = concurrency /\n(requests per record x latency); vs batch = records/s against the batched mode.\n"
}'
exit $FAILED
