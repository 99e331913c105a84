#!/bin/sh
# 68-gate-window.t - rag-gate --window: the rolling gate over an endless stream (issue 38,
# item 3). Windows by count and by the records' own `started` time (never the clock), each line
# with its span, records, means, pass rate and checks; each window's checks the very ones a
# batch rag-gate gives for that window's records; the rule against flapping (--fail-after,
# --recover-after) and --on-fail with the window's line on its standard input; a time window
# closed by a quiet input (--idle) with the line a later record gives; the peak memory
# of 200,000 records that of 20,000 (one window's scores held); and the whole chain from
# OpenTelemetry traces: rag-trace | rag-claims | rag-verify | rag-gate --window, offline judge.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-gate" ] || bail_out "bin/rag-gate is not built: run make"

# ---------------------------------------------------------------- windows by count
# 7 records, one an hour, faithfulness 0.3 .. 0.9, answer_relevancy 1 but for record 5
for i in 1 2 3 4 5 6 7; do
	ar=1; [ $i = 5 ] && ar=0.2
	printf '{"id":"r%d","started":"2026-12-06T0%d:10:00Z","scores":{"faithfulness":0.%d,"answer_relevancy":%s}}\n' \
		$i $i $((i + 2)) $ar
done >"$T/seven.jsonl"
GATE="-t faithfulness=0.6 -r answer_relevancy=0.5 --min-pass-rate 0.6"
run rag rag-gate --window 3 $GATE "$T/seven.jsonl"
cp "$OUT" "$T/count.out"
COUNT_RC=$RC
is "$(nlines "$T/count.out")" 3 "--window 3 over 7 records: three lines (3, 3 and the last 1 at the input's end)"
is "$(jq -c '[.window, .records, .from, .to, (if has("complete") then .complete else true end)]' "$T/count.out" | tr '\n' ' ')" \
	'[1,3,"2026-12-06T01:10:00.000Z","2026-12-06T03:10:00.000Z",true] [2,3,"2026-12-06T04:10:00.000Z","2026-12-06T06:10:00.000Z",true] [3,1,"2026-12-06T07:10:00.000Z","2026-12-06T07:10:00.000Z",false] ' \
	"each line: its number, records, first and last started; the last one not complete"
# by hand: means (0.3+0.4+0.5)/3 = 0.4, (0.6+0.7+0.8)/3 = 0.7, 0.9; pass rates 1, 2/3, 1
is "$(jq -c '[(.means.faithfulness * 1000 | round), (.means.answer_relevancy * 1000 | round), (.pass_rate * 1000 | round), .pass]' "$T/count.out" | tr '\n' ' ')" \
	'[400,1000,1000,false] [700,733,667,true] [900,1000,1000,true] ' "means and pass rates by hand: window 1 fails its mean, 2 passes at 2 of 3"
# each window's checks are those of a batch rag-gate over its records alone
ok=0
for w in 1 2 3; do
	sed -n "$((w * 3 - 2)),$((w * 3))p" "$T/seven.jsonl" >"$T/w$w.jsonl"
	run rag rag-gate --json $GATE "$T/w$w.jsonl"
	want=$(jq -c '[.checks, .pass, .verdict.pass_rate, .verdict.reason, ([.metrics[] | {(.metric): .mean}] | add)]' "$OUT")
	got=$(sed -n "${w}p" "$T/count.out" | jq -c '[.checks, .pass, .pass_rate, .reason, .means]')
	if [ "$got" = "$want" ]; then ok=$((ok + 1)); else diag "window $w: got $got" "want $want"; fi
done
is "$ok" 3 "each window's checks, pass, pass rate, reason and means: a batch rag-gate's over the same records"
is "$COUNT_RC:$(jq -r '.alert + (if .fired then "!" elif .recovered then "+" else "" end)' "$T/count.out" | tr '\n' ' ')" "0:failing! ok+ ok " "a failing window fires, a passing one recovers (default K=M=1); the alert ok at the end: exit 0"

# ---------------------------------------------------------------- windows by time
# hours 1-3 in the 2h windows [00:00, 02:00), [02:00, 04:00); a late record (01:30 after 02:10)
# counts in the open window; a record with no time in the open one
{
	sed -n 1p "$T/seven.jsonl"
	sed -n 2p "$T/seven.jsonl"
	echo '{"id":"late","started":"2026-12-06T01:30:00+00:00","scores":{"faithfulness":0.5,"answer_relevancy":1}}'
	echo '{"id":"notime","scores":{"faithfulness":0.5,"answer_relevancy":1}}'
	sed -n 3,7p "$T/seven.jsonl"
} >"$T/timed.jsonl"
run rag rag-gate --window 2h $GATE "$T/timed.jsonl"
is "$(jq -c '[.from[11:16], .to[11:16], .records, (.late // 0)]' "$OUT" | tr '\n' ' ')" \
	'["00:00","02:00",1,0] ["02:00","04:00",4,1] ["04:00","06:00",2,0] ["06:00","08:00",2,0] ' \
	"--window 2h: windows of the records' started time on the hour, a late record and one with no time in the open window"
run rag rag-gate --window 90x $GATE "$T/timed.jsonl"
is "$RC" 2 "--window 90x: exit 2"

# ---------------------------------------------------------------- a quiet stream closes its window
# records through a FIFO kept open (tail -F at night): with --idle 0.2 the window of 00:00 is
# written, and its command run, once its records' clock has moved past 00:01 in the quiet,
# without a later record or the input's end; the line the one a later record closes it with
at() { printf '{"id":"%s","started":"2026-12-06T00:%s","scores":{"faithfulness":%s}}\n' "$1" "$2" "$3"; }
{ at q1 00:20Z 0.2; at q2 00:59.9Z 0.4; } >"$T/quiet.jsonl"
{ cat "$T/quiet.jsonl"; at q3 01:10Z 0.9; } >"$T/quiet-later.jsonl"
run rag rag-gate --window 60s -t faithfulness=0.5 "$T/quiet-later.jsonl"
head -1 "$OUT" >"$T/quiet-want.out"
mkfifo "$T/quiet.fifo"
: >"$T/quiet-fired.log"
rag rag-gate --window 60s --idle 0.2 -t faithfulness=0.5 --on-fail "cat >>'$T/quiet-fired.log'" \
	<"$T/quiet.fifo" >"$T/quiet.out" 2>"$T/quiet.err" &
QUIET=$!
exec 7>"$T/quiet.fifo"
cat "$T/quiet.jsonl" >&7
# the bound only stops a hang: the line comes about 0.1 s of quiet after 00:00:59.9
check "the input open and quiet: the window's line comes (--idle 0.2)" wait_until 60 test -s "$T/quiet-fired.log"
is "$(cat "$T/quiet.out")" "$(cat "$T/quiet-want.out")" "its line: the one a record of the next window closes it with (2 records, mean 0.3, fired)"
is "$(cat "$T/quiet-fired.log")" "$(cat "$T/quiet-want.out")" "--on-fail ran for it, the line on its standard input"
# a record of the closed window is late (in the clock's window, 00:01), one of 00:03 closes that
# one; the input's end writes the last: one line per window, every record in one
{ at q4 00:30Z 0.9; at q5 03:10Z 0.8; } >&7
exec 7>&-
wait $QUIET
QRC=$?
is "$(jq -c '[.window, .from[11:16], .records, (.late // 0), (if has("complete") then .complete else true end), .alert]' "$T/quiet.out" | tr '\n' ' ')" \
	'[1,"00:00",2,0,true,"failing"] [2,"00:01",1,1,true,"ok"] [3,"00:03",1,0,false,"ok"] ' \
	"after the quiet: a late record in the clock's window, then 00:03's window at the input's end"
is "$QRC:$(cat "$T/quiet.err")" "0:" "exit 0 (the alert recovered), nothing on standard error"
run rag rag-gate --window 500 --idle 5 -t faithfulness=0.5 "$T/quiet.jsonl"
is "$RC" 2 "--idle with a window of records (no clock to move): exit 2"
like "$(cat "$ERR")" "--idle moves the clock of a window of time" "and says why"
run rag rag-gate --idle 5 -t faithfulness=0.5 "$T/quiet.jsonl"
is "$RC" 2 "--idle without --window: exit 2"
printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  mean:\n    faithfulness: 0.5\n' >"$T/follow.yaml"
run rag rag-eval -c "$T/follow.yaml" -m faithfulness --follow 1h --idle 0.5 --dry-run "$T/quiet.jsonl"
like "$(tr -d '\\\n' <"$OUT")" "rag-gate .*--window 1h.* --idle 0\.5" "rag-eval --follow --idle: passed on to rag-gate"

# ---------------------------------------------------------------- flapping and --on-fail
# windows of 1 record: F P F F P P F F F
i=0
for r in 0.1 0.9 0.1 0.1 0.9 0.9 0.1 0.1 0.1; do
	i=$((i + 1))
	printf '{"id":"f%d","scores":{"faithfulness":%s}}\n' $i $r
done >"$T/flap.jsonl"
cat >"$T/onfail.sh" <<'EOF'
cat >>"$ONFAIL_LOG"
echo "the on-fail command says this on rag-gate's stderr"
EOF
ONFAIL_LOG=$T/onfail.log
export ONFAIL_LOG
run rag rag-gate --window 1 -t faithfulness=0.5 --fail-after 2 --recover-after 2 --on-fail "sh '$T/onfail.sh'" "$T/flap.jsonl"
is "$(jq -r '.alert + (if .fired then "!" elif .recovered then "+" else "" end)' "$OUT" | tr '\n' ' ')" \
	"ok ok ok failing! failing ok+ ok failing! failing " "--fail-after 2 --recover-after 2: fires at the 2nd failure in a row, recovers at the 2nd pass"
is "$(nlines "$ONFAIL_LOG")" 2 "--on-fail ran twice, once each time the alert turned failing"
is "$(jq -c . "$ONFAIL_LOG")" "$(jq -c 'select(.fired)' "$OUT")" "--on-fail: the window's line on its standard input"
like "$(cat "$ERR")" "the on-fail command says this on rag-gate's stderr" "--on-fail: its output goes to standard error, not among the lines"
is "$RC" 1 "the alert failing at the input's end: exit 1"
run rag rag-gate --on-fail true -t faithfulness=0.5 "$T/flap.jsonl"
is "$RC" 2 "--on-fail without --window: exit 2"
run rag rag-gate --window 3 --json -t faithfulness=0.5 "$T/flap.jsonl"
is "$RC" 2 "--window with --json: exit 2"

# ---------------------------------------------------------------- memory: one window held
# 20,000 and 200,000 records in windows of 1,000, with a budget that would hold every score:
# the peak is the same when only the open window's scores are kept
gen() {
	awk -v n="$1" 'BEGIN { s = 7
	for (i = 1; i <= n; i++) {
		s = (s * 1103515245 + 12345) % 2147483648
		printf "{\"id\":\"q%06d\",\"started\":\"2026-12-06T%02d:%02d:%02dZ\",\"scores\":{\"faithfulness\":%.6f}}\n", i, int(i / 10000) % 24, int(i / 100) % 60, i % 60, s / 2147483648
	} }'
}
gen 20000 >"$T/small.jsonl"
gen 200000 >"$T/big.jsonl"
if ldd "$BIN/rag-gate" 2>/dev/null | grep -q libasan; then
	skip "peak memory (not measured under AddressSanitizer)"
	skip "windows counted"
else
	for f in small big; do
		run python3 "$TOP/tests/peak.py" "$T/peak.$f" "$BIN/rag-gate" --window 1000 -t faithfulness=0.4 \
			--max-memory 268435456 "$T/$f.jsonl"
		cp "$OUT" "$T/$f.out"
	done
	is "$(nlines "$T/small.out"):$(nlines "$T/big.out")" "20:200" "a line per 1,000 records"
	s=$(awk '{ print $2 }' "$T/peak.small") b=$(awk '{ print $2 }' "$T/peak.big")
	note "rag-gate --window 1000 peak KiB: 20,000 records $s, 200,000 records $b"
	check "rag-gate --window's peak at 200,000 records ($b KiB) within 2 MiB of 20,000's ($s KiB)" \
		test "$s" -gt 0 -a "$b" -le $((s + 2048))
fi

# ---------------------------------------------------------------- the whole chain from traces
# ten OpenInference traces (each root span on a line after its retriever's), answers supported
# by their context (G) or not (B): windows of 3 are GGG, BBG, BBB, G
[ -x "$BIN/rag-trace" ] || bail_out "bin/rag-trace is not built: run make"
python3 - "$T/traces.jsonl" <<'EOF'
import hashlib, json, sys
a = lambda k, v: {"key": k, "value": ({"stringValue": v} if isinstance(v, str) else {"doubleValue": v})}
ctx = "The Eiffel Tower is in Paris. It was completed in 1889."
good = "The Eiffel Tower was completed in 1889."
bad = "The Eiffel Tower was painted green by Napoleon in 1750."
out = open(sys.argv[1], "w")
for i, c in enumerate("GGGBBGBBBG"):
    tid = hashlib.sha256(b"pipe%d" % i).hexdigest()[:32]
    t0 = 1765000000000000000 + i * 60 * 10**9
    root = {"traceId": tid, "spanId": tid[:16], "name": "rag", "startTimeUnixNano": str(t0), "endTimeUnixNano": str(t0 + 10**9),
            "attributes": [a("openinference.span.kind", "CHAIN"), a("input.value", "When was the Eiffel Tower completed?"),
                           a("output.value", good if c == "G" else bad)]}
    ret = {"traceId": tid, "spanId": tid[16:32], "parentSpanId": tid[:16], "name": "retrieve", "startTimeUnixNano": str(t0 + 1000),
           "endTimeUnixNano": str(t0 + 2000),
           "attributes": [a("openinference.span.kind", "RETRIEVER"), a("retrieval.documents.0.document.id", "eiffel"),
                          a("retrieval.documents.0.document.content", ctx), a("retrieval.documents.0.document.score", 0.9)]}
    for sp in (ret, root):
        out.write(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [sp]}]}]}) + "\n")
EOF
: >"$T/chain-fired.log"
run sh -c "cat '$T/traces.jsonl' | '$BIN/rag-trace' -q --sample 1 | '$BIN/rag-claims' -q --judge offline |
	'$BIN/rag-verify' -q --judge offline | tee '$T/scored.jsonl' |
	'$BIN/rag-gate' --window 3 -t faithfulness=0.5 --on-fail 'cat >>\"$T/chain-fired.log\"'"
is "$RC" 0 "traces | rag-trace | rag-claims | rag-verify | rag-gate --window 3: exit 0 (the last window passed)"
is "$(jq -r '.answer == "The Eiffel Tower was completed in 1889."' "$T/scored.jsonl" | tr '\n' ' ')" \
	"true true true false false true false false false true " "the records in the traces' order"
is "$(jq -s -c '[.[] | .scores.faithfulness] | [(.[0:3] | all(. == 1)), (.[3,4,6,7,8] | . < 0.5), (.[5,9] | . == 1)] | flatten | all' "$T/scored.jsonl")" \
	true "the offline judge: a supported answer 1, an unsupported one below 0.5"
# each window's mean is the mean of its records' scores, worked out here from the scored records
want=$(jq -s -c '[range(0; length; 3) as $k | .[$k:$k + 3] | (map(.scores.faithfulness) | add / length * 10000 | round)]' "$T/scored.jsonl")
is "$(jq -s -c 'map(.means.faithfulness * 10000 | round)' "$OUT")" "$want" "each window's mean from its three records"
is "$(jq -c '[.window, .records, .pass, .alert]' "$OUT" | tr '\n' ' ')" \
	'[1,3,true,"ok"] [2,3,false,"failing"] [3,3,false,"failing"] [4,1,true,"ok"] ' "GGG passes, BBG fails, BBB fails, G passes"
is "$(jq -c '[.window, .fired]' "$T/chain-fired.log")" '[2,true]' "--on-fail ran once, for the window that turned the alert"
is "$(jq -c '.trace_id' "$T/scored.jsonl" | head -1)" "\"$(printf pipe0 | sha256sum | cut -c1-32)\"" "the records keep their trace ids"

done_testing
