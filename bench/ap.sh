#!/bin/sh
# ap.sh - throughput of rag-ap against the same computation written in jq (not a test).
#
#   sh bench/ap.sh [--json] [-n RECORDS]
#
# Generates RECORDS (default 1000000) deterministic records, each with 8 chunk verdicts
# (verdicts.context_precision, as rag-verify --chunks writes them), then times on the same file
#   1. bin/rag-ap -q -m ap,p@5,mrr
#   2. jq -c with a program that computes context_precision, precision@5 and mrr the same way
# each under /usr/bin/time -v (peak resident memory), and checks that both outputs are
# byte-identical. No network. Exit status: 0, or 1 when a run failed or the outputs differ,
# 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=1000000
bench_args "" "$@"
bench_need jq /usr/bin/time
bench_setup ap rag-ap

# ---------------------------------------------------------------- records
# 8 chunks; chunk j of record i is useful when (i * 7 + j * 3) % 5 < 2: every pattern of
# positions turns up, including none useful.
bench_records_ap "$N" "$W/records.jsonl" || exit 1
BYTES=$(wc -c <"$W/records.jsonl" | tr -d ' ')

# ---------------------------------------------------------------- the jq program
bench_jq_ap "$W/ap.jq"

# timed NAME CMD...: CMD < records under GNU time; a failure ends the benchmark
timed() {
	bench_time "$@" <"$W/records.jsonl"
	if [ "$RC" -ne 0 ]; then
		echo "ap.sh: $1 exited $RC" >&2
		sed 's/^/  /' "$W/err.$1" | head -5 >&2
		exit 1
	fi
}

timed rag-ap "$BIN/rag-ap" -q -m ap,p@5,mrr
AP_S=$SECS AP_KB=$RSS_KB
timed jq jq -c -f "$W/ap.jq"
JQ_S=$SECS JQ_KB=$RSS_KB

SAME=yes
cmp -s "$W/out.rag-ap" "$W/out.jq" || SAME=no
LINES=$(wc -l <"$W/out.rag-ap" | tr -d ' ')
[ "$LINES" -eq "$N" ] || SAME=no

rate() { awk -v n="$N" -v s="$1" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
AP_R=$(rate "$AP_S") JQ_R=$(rate "$JQ_S")
if [ "$JSON" = 1 ]; then
	printf '{"records":%s,"input_bytes":%s,"rag_ap":{"seconds":%s,"records_per_s":%s,"peak_rss_kb":%s},' \
		"$N" "$BYTES" "$AP_S" "$AP_R" "$AP_KB"
	printf '"jq":{"seconds":%s,"records_per_s":%s,"peak_rss_kb":%s},"identical_output":%s}\n' \
		"$JQ_S" "$JQ_R" "$JQ_KB" "$([ $SAME = yes ] && echo true || echo false)"
else
	printf 'records: %s (%s bytes, 8 chunk verdicts each); metrics: context_precision, precision@5, mrr\n' "$N" "$BYTES"
	printf '%-8s %10s s %12s records/s %10s KiB peak RSS\n' rag-ap "$AP_S" "$AP_R" "$AP_KB"
	printf '%-8s %10s s %12s records/s %10s KiB peak RSS\n' jq "$JQ_S" "$JQ_R" "$JQ_KB"
	printf 'outputs byte-identical: %s\n' "$SAME"
fi
[ "$SAME" = yes ]
