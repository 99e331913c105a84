#!/bin/sh
# gate-window.sh - rag-gate --window over an endless stream: throughput and peak memory at
# RECORDS and at a tenth of them (not a test; issue 38, item 6).
#
#   sh bench/gate-window.sh [--json] [-n RECORDS]
#
# Streams RECORDS (default 10000000) deterministic scored records (bench_records_gate's, with a
# `started` time one second apart) from awk through a FIFO, never a file, into
#   bin/rag-gate --window 10000 -t faithfulness=0.4 -r faithfulness=0.05 --min-pass-rate 0.9
# and the same with --window 1h (windows by the records' time: 3,600 records each), each under
# /usr/bin/time -v on rag-gate alone, then the count windows at RECORDS / 10. Reports records per
# second and the peak resident memory; only the open window's scores are held, so the peak at
# RECORDS should be that at RECORDS / 10. Checked: the windows' records add up to RECORDS. No
# network. Exit status: 0, or 1 when a run failed or a count is wrong, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=10000000
bench_args "" "$@"
bench_need awk mkfifo /usr/bin/time
bench_setup gate-window rag-gate

# stream N records into $W/fifo in the background (the LCG of bench_records_gate, a time)
stream() {
	rm -f "$W/fifo"
	mkfifo "$W/fifo" || exit 1
	awk -v n="$1" 'BEGIN {
		split("math geo history science law", cat, " ")
		s = 12345
		t0 = 1765000000
		for (i = 1; i <= n; i++) {
			s = (s * 1103515245 + 12345) % 2147483648; f = int(s / 2147483648 * 1000) / 1000
			s = (s * 1103515245 + 12345) % 2147483648; r = int(s / 2147483648 * 1000) / 1000
			fs = (i % 100 == 0) ? "null" : f
			t = t0 + i
			printf "{\"id\":\"q%d\",\"category\":\"%s\",\"started\":\"%s\",\"scores\":{\"faithfulness\":%s,\"context_recall\":%s}}\n",
				i, cat[i % 5 + 1], strftime("%Y-%m-%dT%H:%M:%SZ", t, 1), fs, r
		}
	}' >"$W/fifo" &
}
GATE="-t faithfulness=0.4 -r faithfulness=0.05 --min-pass-rate 0.9"

# one run: LABEL RECORDS WINDOW; sets <LABEL>_RC, _S, _KB, _RECS, _WINS
one() {
	stream "$2"
	bench_time "$1" "$BIN/rag-gate" --window "$3" $GATE "$W/fifo"
	wait
	eval "${1}_RC=\$RC ${1}_S=\$SECS ${1}_KB=\$RSS_KB"
	eval "${1}_RECS=$(awk -F'"records":' '{ split($2, a, /[,}]/); n += a[1] } END { print n + 0 }' "$W/out.$1")"
	eval "${1}_WINS=$(wc -l <"$W/out.$1" | tr -d ' ')"
}
awk 'BEGIN { exit !(strftime("%Y", 0, 1) == "1970") }' 2>/dev/null || { echo "gate-window.sh: needs an awk with strftime (gawk, mawk 1.3.4)" >&2; exit 2; }
one count "$N" 10000
one time "$N" 1h
one tenth $((N / 10)) 10000

rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print "inf" }'; }
if [ "$JSON" = 1 ]; then
	for l in count time tenth; do
		eval "printf '%s\"%s\":{\"exit\":%s,\"records\":%s,\"windows\":%s,\"seconds\":%s,\"records_per_second\":%s,\"max_rss_kb\":%s}' \
			\"\$([ \$l = count ] && echo '{' || echo ,)\" \$l \"\$${l}_RC\" \"\$${l}_RECS\" \"\$${l}_WINS\" \"\$${l}_S\" \
			\"\$(rate \$${l}_RECS \$${l}_S)\" \"\$${l}_KB\""
	done
	echo '}'
else
	printf '%-28s %5s %10s %8s %8s %10s %12s\n' run exit records windows seconds records/s "max RSS KiB"
	for l in count time tenth; do
		case $l in count) d="--window 10000" ;; time) d="--window 1h" ;; tenth) d="--window 10000, N/10" ;; esac
		eval "printf '%-28s %5s %10s %8s %8s %10s %12s\n' \"\$d\" \"\$${l}_RC\" \"\$${l}_RECS\" \"\$${l}_WINS\" \"\$${l}_S\" \
			\"\$(rate \$${l}_RECS \$${l}_S)\" \"\$${l}_KB\""
	done
fi
# the gate's exit is 0 or 1 (the alert at the end); anything else failed
for l in count time tenth; do
	eval "rc=\$${l}_RC"
	[ "$rc" -le 1 ] || exit 1
done
[ "$count_RECS" = "$N" ] && [ "$time_RECS" = "$N" ] && [ "$tenth_RECS" = $((N / 10)) ] || exit 1
exit 0
