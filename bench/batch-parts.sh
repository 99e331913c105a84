#!/bin/sh
# batch-parts.sh - rag-eval --batch with each stage as one batch against the same run in parts
# (llm.batch_max_requests 300) (not a test).
#
#   sh bench/batch-parts.sh [--json] [-n RECORDS]
#
# RECORDS (default 1,000) records of 49-eval-batch.t's shape, the metrics faithfulness,
# context_recall and context_precision, the judge tests/fakellm.py (no latency; a batch moves
# one step a look, llm.batch_poll 0). For each of the two runs: the wall time, the uploads and
# batches the fake saw, the largest upload in requests, and whether the records are those of
# the other run, byte for byte. Cache in the work directory, 127.0.0.1 only.
# Exit status: 0, 1 when a run failed or the records differ, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=1000
bench_args "" "$@"
bench_need jq awk
bench_setup batch-parts rag-eval rag-claims rag-verify rag-gate
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) {
	u = i % 7 == 0 ? " It is UNSUPPORTED here." : ""
	x = i % 5 == 0 ? ", \"IRRELEVANT filler " i ".\"" : ""
	r = i % 3 == 0 ? ", \"reference\": \"Item " i " is a thing in the list.\"" : ""
	printf "{\"id\": \"r%04d\", \"question\": \"What is item %d?\", \"answer\": \"Item %d is a thing. It is number %d in the list.%s\", \"contexts\": [\"Item %d is a thing.\", \"Number %d is item %d.\"%s]%s}\n", i, i, i, i, u, i, i, i, x, r
} }' >"$W/set.jsonl"

fail=0
for how in one parts; do
	rm -f "$W/port" "$W/fake.log"
	bench_fake 0
	printf 'llm:\n  model: judge-x\n  timeout: 30\n  retries: 0\n  batch_poll: 0\n' >"$W/$how.yaml"
	[ "$how" = parts ] && printf '  batch_max_requests: 300\n' >>"$W/$how.yaml"
	printf 'cache:\n  mode: rw\n  dir: %s\n' "$W/cache-$how" >>"$W/$how.yaml"
	t0=$(now)
	RAG_CACHE= "$BIN/rag-eval" -q -c "$W/$how.yaml" -m faithfulness,context_recall,context_precision --batch \
		--run-id same -o "$W/run-$how" "$W/set.jsonl" >/dev/null 2>"$W/err.$how"
	rc=$?
	t1=$(now)
	[ "$rc" = 0 ] || { echo "batch-parts.sh: the run ($how) exited $rc:" >&2; cat "$W/err.$how" >&2; fail=1; }
	ups=$(jq -r 'select(.path == "/v1/files" and .method == "POST") | .n' "$W/fake.log" | wc -l | tr -d ' ')
	bats=$(jq -r 'select(.path == "/v1/batches" and .method == "POST") | .n' "$W/fake.log" | wc -l | tr -d ' ')
	big=$(jq -s 'map(select(.path == "/v1/files") | .body.lines) | max' "$W/fake.log")
	eval "secs_$how=\$(awk -v a=\"$t0\" -v b=\"$t1\" 'BEGIN { printf \"%.2f\", b - a }')"
	eval "ups_$how=$ups bats_$how=$bats big_$how=$big"
	kill "$FAKE_PID" 2>/dev/null
	wait "$FAKE_PID" 2>/dev/null
	FAKE_PID=
done
same=false
cmp -s "$W/run-one/records.jsonl" "$W/run-parts/records.jsonl" && same=true
[ "$same" = true ] || fail=1
if [ "$JSON" = 1 ]; then
	printf '{"records": %s, "one": {"seconds": %s, "uploads": %s, "batches": %s, "largest_upload": %s}, "parts": {"seconds": %s, "uploads": %s, "batches": %s, "largest_upload": %s}, "same_records": %s}\n' \
		"$N" "$secs_one" "$ups_one" "$bats_one" "$big_one" "$secs_parts" "$ups_parts" "$bats_parts" "$big_parts" "$same"
else
	printf '%-36s %8s %8s %8s %15s\n' run seconds uploads batches "largest upload"
	printf '%-36s %8s %8s %8s %15s\n' "one batch a stage" "$secs_one" "$ups_one" "$bats_one" "$big_one"
	printf '%-36s %8s %8s %8s %15s\n' "llm.batch_max_requests 300" "$secs_parts" "$ups_parts" "$bats_parts" "$big_parts"
	echo "records byte for byte the same: $same ($N records)"
fi
exit "$fail"
