#!/bin/sh
# 63-gate-budget.t - rag-gate and rag-report keep a run's scores within --max-memory (issue 26):
# beyond the budget the scores go to a temporary file and the summary reads them back, so the
# summary is the same bytes as with every score in memory (means, medians, p10s, histograms, the
# categories, --by groups whose "(none)" fills from the file, a baseline's paired bootstrap),
# the process's peak memory, --junit's included, does not grow with the run (20,000 records
# against 200,000), and
# a temporary file that cannot be written is an error (exit 5), never a verdict.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-gate" ] || bail_out "bin/rag-gate is not built: run make"

# gen N SHIFT: N records of 3 metrics, 5 categories, system.top_k from the middle record on
# (the first half in --by's "(none)"), scores of every kind: distinct, ties, out of [0, 1]
gen() {
	awk -v n="$1" -v off="$2" 'BEGIN { s = 7; split("billing search login export api", cat, " ")
	for (i = 1; i <= n; i++) {
		s = (s * 1103515245 + 12345) % 2147483648; a = s / 2147483648
		s = (s * 1103515245 + 12345) % 2147483648; b = int(s / 2147483648 * 20) / 20
		s = (s * 1103515245 + 12345) % 2147483648; c = s / 2147483648 - off
		printf "{\"id\":\"q%06d\",\"category\":\"%s\",", i, cat[i % 5 + 1]
		if (i > n / 2) printf "\"system\":{\"top_k\":%d},", 3 + i % 3
		printf "\"scores\":{\"faithfulness\":%.6f,\"answer_relevancy\":%s,\"token_f1\":%.9f}}\n", a, b, c
	} }'
}
gen 20000 0 >"$T/small.jsonl"
gen 200000 0 >"$T/big.jsonl"
gen 20000 0.25 >"$T/base.jsonl"
BIG=268435456 SMALL=65536
GATE="-t faithfulness=0.4 -r answer_relevancy=0.05 --by category --by system.top_k --json"

# the same summary from memory and from the file
for f in small big; do
	run "$BIN/rag-gate" $GATE --max-memory $BIG "$T/$f.jsonl"
	cp "$OUT" "$T/$f.mem"
	run "$BIN/rag-gate" $GATE --max-memory $SMALL "$T/$f.jsonl"
	is "$RC" 1 "$f: the gate's verdict (a record below 0.05) with $SMALL bytes"
	check "$f: the summary from the file is the summary from memory, byte for byte" cmp "$T/$f.mem" "$OUT"
done
is "$(jq -c '[.records, (.groups | map(.by)), (.groups[1].groups | map([.group, .records]))]' "$T/big.mem")" \
	'[200000,["category","system.top_k"],[["(none)",100000],["3",33333],["4",33333],["5",33334]]]' \
	'big: 200,000 records; "(none)" has the first 100,000'
is "$(jq -c '[.metrics[] | select(.metric == "answer_relevancy") | .computed, .median, .p10]' "$T/big.mem")" \
	'[200000,0.45,0.05]' "big: answer_relevancy's median and p10 (ties of twentieths)"
# by hand: the median of faithfulness over the 200,000, with sort
is "$(jq -r '.metrics[] | select(.metric == "faithfulness") | .median' "$T/big.mem" | awk '{ printf "%.9g\n", $1 }')" \
	"$(jq -r .scores.faithfulness "$T/big.jsonl" | sort -g | sed -n '100000p;100001p' |
	   awk 'NR == 1 { a = $1 } NR == 2 { printf "%.9g\n", (a + $1) / 2 }')" \
	"big: faithfulness's median is the mean of the 100,000th and 100,001st by sort"

# a baseline: the pairs' mean change and bootstrap interval from the file too
run "$BIN/rag-gate" $GATE --max-memory $BIG -b "$T/base.jsonl" "$T/small.jsonl"
cp "$OUT" "$T/cmp.mem"
run "$BIN/rag-gate" $GATE --max-memory $SMALL -b "$T/base.jsonl" "$T/small.jsonl"
check "with a baseline: the same bytes from the file" cmp "$T/cmp.mem" "$OUT"
is "$(jq -c '[.baseline.metrics[] | select(.metric == "token_f1") | .pairs, (.delta * 1000 | round), .change]' "$OUT")" \
	'[20000,250,"improvement"]' "with a baseline: token_f1's 20,000 pairs, +0.250"

# rag-report's page data and Markdown from the file too
run "$BIN/rag-report" --markdown --max-memory $BIG "$T/big.jsonl"
cp "$OUT" "$T/md.mem"
run "$BIN/rag-report" --markdown --max-memory $SMALL "$T/big.jsonl"
is "$RC" 0 "rag-report --markdown with $SMALL bytes: exit 0"
check "rag-report --markdown: the same bytes from the file" cmp "$T/md.mem" "$OUT"

# memory: the peak does not grow with the run, --junit's cases included (it did by 8 bytes a
# score per metric, category and group, and 24 bytes a JUnit case: +26 MB from 20,000 to
# 200,000 records here)
if ldd "$BIN/rag-gate" 2>/dev/null | grep -q libasan; then
	skip "peak memory (not measured under AddressSanitizer)"
else
	for f in small big; do
		run python3 "$TOP/tests/peak.py" "$T/peak.$f" "$BIN/rag-gate" $GATE --max-memory $SMALL \
			--junit "$T/$f.xml" "$T/$f.jsonl"
		is "$(grep -c '<testcase classname="[a-z]*" name="q' "$T/$f.xml")" "$(nlines "$T/$f.jsonl")" "$f: --junit has a case per record"
	done
	s=$(awk '{ print $2 }' "$T/peak.small") b=$(awk '{ print $2 }' "$T/peak.big")
	note "rag-gate peak KiB: 20,000 records $s, 200,000 records $b"
	check "rag-gate's peak at 200,000 records ($b KiB) within 2 MiB of 20,000's ($s KiB)" \
		test "$s" -gt 0 -a "$b" -le $((s + 2048))
fi

# a temporary file that cannot grow (as a full disk: the write fails, here with EFBIG, SIGXFSZ
# ignored): an error, exit 5, no verdict
run sh -c 'trap "" XFSZ; ulimit -f 8; exec "$@"' sh "$BIN/rag-gate" $GATE --max-memory $SMALL "$T/small.jsonl"
is "$RC" 5 "a temporary file that cannot grow: exit 5 (a system error)"
like "$(cat "$ERR")" "temporary file.*no summary" "and it says why"
is "$(nlines "$OUT")" 0 "and gives no summary"
run sh -c 'trap "" XFSZ; ulimit -f 8; exec "$@"' sh "$BIN/rag-report" --markdown --max-memory $SMALL "$T/small.jsonl"
is "$RC" 5 "rag-report: exit 5 too"
# a TMPDIR that cannot be written: the scores stay in memory, the summary is right
TMPDIR=/nonexistent/ragpipe run "$BIN/rag-gate" $GATE --max-memory $SMALL "$T/small.jsonl"
check "a TMPDIR that cannot be written: the summary from memory" cmp "$T/small.mem" "$OUT"
done_testing
