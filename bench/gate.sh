#!/bin/sh
# gate.sh - throughput and memory of rag-gate against the same aggregation in jq -s (not a test).
#
#   sh bench/gate.sh [--json] [-n RECORDS]
#
# Generates RECORDS (default 1000000) deterministic scored records (id, one of 5 categories,
# scores.faithfulness and scores.context_recall, 1% of faithfulness null, a short answer), then
# times on the same file, each under /usr/bin/time -v (peak resident memory):
#   1. bin/rag-gate --json -t faithfulness=0.4 -r faithfulness=0.05 --min-pass-rate 0.9
#      --max-error-rate 0.02
#   2. jq -s with a program computing the same table: per metric and per category the records
#      scored and null, mean, median, min and 10th percentile (type 7, as rag-gate)
# and checks that both give the same numbers (to 1e-9). No network. Exit status: 0, or 1 when a
# run failed or the numbers differ, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=1000000
bench_args "" "$@"
bench_need jq /usr/bin/time
bench_setup gate rag-gate

# ---------------------------------------------------------------- the records
# an LCG in awk: the same file on every machine
bench_records_gate "$N" "$W/run.jsonl"
BYTES=$(wc -c <"$W/run.jsonl" | tr -d ' ')

bench_time gate "$BIN/rag-gate" --json -t faithfulness=0.4 -r faithfulness=0.05 --min-pass-rate 0.9 \
	--max-error-rate 0.02 "$W/run.jsonl"
GATE_RC=$RC GATE_S=$SECS GATE_KB=$RSS_KB

bench_jq_gate "$W/agg.jq"
bench_time jq jq -s -c -f "$W/agg.jq" "$W/run.jsonl"
JQ_RC=$RC JQ_S=$SECS JQ_KB=$RSS_KB

# the same numbers? (rag-gate sums in input order, jq's add too; the tolerance covers printing)
SAME=$(bench_same_gate "$W/out.gate" "$W/out.jq")

rate() { awk -v n="$N" -v s="$1" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print "inf" }'; }
if [ "$JSON" = 1 ]; then
	printf '{"records":%s,"bytes":%s,"rag_gate":{"exit":%s,"seconds":%s,"records_per_second":%s,"max_rss_kb":%s},' \
		"$N" "$BYTES" "$GATE_RC" "$GATE_S" "$(rate "$GATE_S")" "$GATE_KB"
	printf '"jq_s":{"exit":%s,"seconds":%s,"records_per_second":%s,"max_rss_kb":%s},"same_numbers":%s}\n' \
		"$JQ_RC" "$JQ_S" "$(rate "$JQ_S")" "$JQ_KB" "${SAME:-false}"
else
	printf 'records: %s (%s bytes)\n' "$N" "$BYTES"
	printf '%-10s %6s %9s %12s %12s\n' tool exit seconds records/s "max RSS MiB"
	printf '%-10s %6s %9s %12s %12s\n' rag-gate "$GATE_RC" "$GATE_S" "$(rate "$GATE_S")" "$((GATE_KB / 1024))"
	printf '%-10s %6s %9s %12s %12s\n' "jq -s" "$JQ_RC" "$JQ_S" "$(rate "$JQ_S")" "$((JQ_KB / 1024))"
	printf 'same numbers: %s\n' "${SAME:-false}"
fi
# rag-gate exits 0 here (the generated run passes); jq 0; the numbers agree
[ "$GATE_RC" = 0 ] && [ "$JQ_RC" = 0 ] && [ "${SAME:-false}" = true ] || exit 1
exit 0
