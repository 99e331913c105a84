#!/bin/sh
# faithfulness.sh - throughput of rag-claims | rag-verify against the fake judge (not a test).
#
#   sh bench/faithfulness.sh [--json] [-n RECORDS] [-j CONCURRENCY] [--latency-ms MS]
#
# Generates RECORDS deterministic records (question, 3 contexts, a 3-sentence answer), starts
# tests/fakellm.py with a fixed reply latency, and times
#   1. bin/rag-claims -j J               alone
#   2. bin/rag-verify -j J               alone, on the claims from 1
#   3. bin/rag-claims -j J | '$BIN/rag-verify' -j J
#   4. bin/rag-verify --one-request -j J  the claims and verdicts in one request (no rag-claims)
# with RAG_CACHE=off. The ideal rate of a stage is J / (requests per record x latency); a pipe
# runs its stages concurrently, so its ideal is the slowest stage's. Everything stays on 127.0.0.1.
# Exit status: 0, or 1 when a run failed or lost records, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=200 J=16 LAT=100
bench_args "jl" "$@"
bench_setup faithfulness rag-claims rag-verify

# ---------------------------------------------------------------- records
awk -v n="$N" 'BEGIN {
	split("red green blue amber violet silver", col, " ")
	split("Lyon Porto Ghent Turku Graz Split Bergen Kraków", city, " ")
	for (i = 1; i <= n; i++) {
		c = col[(i % 6) + 1]; t = city[(i % 8) + 1]
		w = 10 + (i * 7) % 90; y = 1800 + (i * 13) % 200
		printf "{\"id\":\"b%03d\",\"question\":\"What do we know about widget %d?\",", i, i
		printf "\"contexts\":[\"Widget %d is %s and weighs %d kilograms.\",", i, c, w
		printf "\"Widget %d was first made in %s.\",", i, t
		printf "\"The design of widget %d dates from %d.\"],", i, y
		printf "\"answer\":\"Widget %d is %s. It weighs %d kilograms. It was first made in %s in %d.\"}\n", i, c, w, t, y
	}
}' >"$W/records.jsonl"

# ---------------------------------------------------------------- the fake judge
bench_fake "$LAT"

reqs() { wc -l <"$W/fake.log" | tr -d ' '; }

FAILED=0
# measure NAME: runs the command line in $CMD; sets SECS_<NAME>, REQS_<NAME>, LINES_<NAME>, ERRS_<NAME>
measure() {
	_r0=$(reqs); _t0=$(now)
	sh -c "$CMD" >"$W/$1.out" 2>"$W/$1.err"
	_rc=$?
	_t1=$(now); _r1=$(reqs)
	eval "SECS_$1=\$(awk -v a=\"\$_t0\" -v b=\"\$_t1\" 'BEGIN { printf \"%.3f\", b - a }')"
	eval "REQS_$1=\$((_r1 - _r0))"
	eval "LINES_$1=\$(wc -l <\"\$W/\$1.out\" | tr -d ' ')"
	eval "ERRS_$1=\$(grep -c '\"errors\"' \"\$W/\$1.out\")"
	eval "RC_$1=\$_rc"
	if [ "$_rc" -ne 0 ] || [ "$(wc -l <"$W/$1.out")" -ne "$N" ]; then
		FAILED=1
		echo "faithfulness.sh: $1 exited $_rc with $(wc -l <"$W/$1.out") of $N lines" >&2
		tail -n 5 "$W/$1.err" >&2
	fi
}

CMD="'$BIN/rag-claims' -c '$W/rag.yaml' -q -j $J <'$W/records.jsonl'"
measure claims
cp "$W/claims.out" "$W/claims.jsonl"
CMD="'$BIN/rag-verify' -c '$W/rag.yaml' -q -j $J <'$W/claims.jsonl'"
measure verify
CMD="'$BIN/rag-claims' -c '$W/rag.yaml' -q -j $J <'$W/records.jsonl' | '$BIN/rag-verify' -c '$W/rag.yaml' -q -j $J"
measure pipeline
CMD="'$BIN/rag-verify' -c '$W/rag.yaml' -q -j $J --one-request <'$W/records.jsonl'"
measure onereq

# ---------------------------------------------------------------- report
awk -v n="$N" -v j="$J" -v lat="$LAT" -v json="$JSON" \
	-v s1="$SECS_claims" -v q1="$REQS_claims" -v e1="$ERRS_claims" -v rc1="$RC_claims" \
	-v s2="$SECS_verify" -v q2="$REQS_verify" -v e2="$ERRS_verify" -v rc2="$RC_verify" \
	-v s3="$SECS_pipeline" -v q3="$REQS_pipeline" -v e3="$ERRS_pipeline" -v rc3="$RC_pipeline" \
	-v s4="$SECS_onereq" -v q4="$REQS_onereq" -v e4="$ERRS_onereq" -v rc4="$RC_onereq" '
function ideal(rpr) { return rpr > 0 ? j / (rpr * lat / 1000) : 0 }
BEGIN {
	name[1] = "rag-claims"; s[1] = s1; q[1] = q1; e[1] = e1; rc[1] = rc1; rpr[1] = q1 / n
	name[2] = "rag-verify"; s[2] = s2; q[2] = q2; e[2] = e2; rc[2] = rc2; rpr[2] = q2 / n
	name[3] = "pipeline";   s[3] = s3; q[3] = q3; e[3] = e3; rc[3] = rc3
	# the pipe: the slowest stage sets the ideal; requests per record of that stage
	id1 = ideal(rpr[1]); id2 = ideal(rpr[2])
	for (k = 1; k <= 2; k++) id[k] = ideal(rpr[k])
	id[3] = (id1 < id2) ? id1 : id2; rpr[3] = q3 / n
	name[4] = "one-request"; s[4] = s4; q[4] = q4; e[4] = e4; rc[4] = rc4; rpr[4] = q4 / n; id[4] = ideal(rpr[4])
	for (k = 1; k <= 4; k++) { rate[k] = s[k] > 0 ? n / s[k] : 0; ratio[k] = id[k] > 0 ? rate[k] / id[k] : 0 }
	if (json) {
		printf "{\"bench\":\"faithfulness\",\"records\":%d,\"concurrency\":%d,\"latency_ms\":%d,\"stages\":[", n, j, lat
		for (k = 1; k <= 4; k++)
			printf "%s{\"stage\":\"%s\",\"seconds\":%.3f,\"records_per_s\":%.1f,\"requests\":%d,\"requests_per_record\":%.2f,\"ideal_records_per_s\":%.1f,\"ratio\":%.3f,\"records_with_errors\":%d,\"exit\":%d}", \
				(k > 1 ? "," : ""), name[k], s[k], rate[k], q[k], rpr[k], id[k], ratio[k], e[k], rc[k]
		printf "]}\n"
		exit
	}
	printf "ragpipe faithfulness benchmark: %d records, -j %d, fake judge latency %d ms, cache off\n\n", n, j, lat
	printf "%-11s %8s %10s %9s %8s %10s %6s %7s\n", "stage", "seconds", "records/s", "requests", "req/rec", "ideal r/s", "ratio", "errors"
	for (k = 1; k <= 4; k++)
		printf "%-11s %8.2f %10.1f %9d %8.2f %10.1f %6.2f %7d%s\n", name[k], s[k], rate[k], q[k], rpr[k], id[k], ratio[k], e[k], \
			(rc[k] != 0 ? "  (exit " rc[k] ")" : "")
	printf "\nideal = concurrency / (requests per record x latency) per stage; the pipeline ideal is its slowest\nstage (its req/rec counts both stages).\n"
	printf "pipeline: %.1f records/s = %.0f%% of the ideal %.1f records/s\n", rate[3], 100 * ratio[3], id[3]
	printf "one-request: rag-verify --one-request alone, %.2f requests per record\n", rpr[4]
}'
exit $FAILED
