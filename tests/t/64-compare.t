#!/bin/sh
# 64-compare.t - two runs compared, one definition on every surface (issue 35 item 4): rag-gate
# -b (its JSON and its text), rag-report's Markdown and page, rag-store diff (its lines and its
# counts line) and rag-serve's /api/compare give the same counts and the same paired means for
# a pair of runs with a fall within the tolerance (0.02), a fall beyond it, a record that lost
# its answer (an error and a null now: a regression, counted as lost) and a rise; and each says
# the definition where it shows the counts. The port is read from rag-serve's stderr line.
. "$(dirname "$0")/lib.sh"
need jq curl
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
trap 'serve_stop; _lib_cleanup' EXIT
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"

cat >"$T/base.jsonl" <<'J'
{"id":"q1","question":"a","answer":"x","scores":{"faithfulness":0.8}}
{"id":"q2","question":"b","answer":"y","scores":{"faithfulness":0.8}}
{"id":"q3","question":"c","answer":"z","scores":{"faithfulness":0.7}}
{"id":"q4","question":"d","answer":"w","scores":{"faithfulness":0.5}}
J
cat >"$T/cur.jsonl" <<'J'
{"id":"q1","question":"a","answer":"x","scores":{"faithfulness":0.78}}
{"id":"q2","question":"b","answer":"y","scores":{"faithfulness":0.4}}
{"id":"q3","question":"c","answer":null,"scores":{"faithfulness":null},"errors":[{"tool":"rag-collect","error":"HTTP 503 from the service"}]}
{"id":"q4","question":"d","answer":"w","scores":{"faithfulness":0.9}}
J
# q1 fell by 0.02 (within gate.regression, 0.1: unchanged), q2 by 0.4 (regressed), q3 lost its
# answer (regressed, lost), q4 rose by 0.4 (improved); the means over the 3 pairs scored on
# both sides: 0.7 -> 0.693333
COUNTS='[4,2,1,1,1]'
MEANS='[3,0.7,0.693333]'
SENT='2 regressed [(]1 lost their score[)], 1 improved, 1 unchanged [(]paired by id over 4 records; regressed: fell by more than 0[.]1 on some metric or lost its score'
R='def r: . * 1e6 | round / 1e6;'

# ---------------------------------------------------------------- rag-gate -b
run rag rag-gate -c "$T/c.yaml" -b "$T/base.jsonl" --summary-only --json "$T/cur.jsonl"
is "$RC" 0 "rag-gate -b --json"
is "$(jq -c '.baseline | [.paired, .regressed_records, .lost_records, .improved_records, .unchanged_records]' "$OUT")" "$COUNTS" \
	"rag-gate -b: 4 paired, 2 regressed (1 lost), 1 improved, 1 unchanged"
is "$(jq -c "$R"' .baseline.metrics[0] | [.pairs, (.baseline_mean | r), (.mean | r)]' "$OUT")" "$MEANS" \
	"rag-gate -b: the paired means"
like "$(jq -r .baseline.definition "$OUT")" 'paired by id over 4 records; regressed: fell by more than 0.1' \
	"rag-gate -b --json names the definition"
run rag rag-gate -c "$T/c.yaml" -b "$T/base.jsonl" --summary-only "$T/cur.jsonl"
like "$(cat "$OUT")" "$SENT" "rag-gate -b's text: the counts with the definition"

# ---------------------------------------------------------------- rag-report
run rag rag-report -c "$T/c.yaml" -b "$T/base.jsonl" --markdown "$T/cur.jsonl"
like "$(cat "$OUT")" "$SENT" "summary.md: the same counts and definition"
run rag rag-report -c "$T/c.yaml" -b "$T/base.jsonl" -o "$T/r.html" "$T/cur.jsonl"
like "$(cat "$T/r.html")" "$SENT" "report.html: the same counts and definition"
is "$(grep -o '"cc":"[a-z]*"' "$T/r.html" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
	' 1 "cc":"improved"; 2 "cc":"regressed"; 1 "cc":"same";' \
	"report.html's Compare tab: each record's class, the library's (the lost answer regressed)"

# ---------------------------------------------------------------- rag-store diff
DB=$T/s.db
run rag rag-store -q -c "$T/c.yaml" --store "$DB" --run-id A add - <"$T/base.jsonl"
is "$RC" 0 "run A stored"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" --run-id B add - <"$T/cur.jsonl"
is "$RC" 0 "run B stored"
run rag rag-store -c "$T/c.yaml" --store "$DB" diff A B
is "$RC" 0 "rag-store diff"
is "$(jq -s -c '[.[] | [.id, .change, .lost]]' "$OUT")" \
	'[["q1","same",false],["q2","regressed",false],["q3","regressed",true],["q4","improved",false]]' \
	"rag-store diff: a fall of 0.02 is no regression; the lost answer is one"
like "$(cat "$ERR")" "A -> B: $SENT" "rag-store diff's counts line: the same counts and definition"

# ---------------------------------------------------------------- rag-serve's compare
serve_start --store "$DB" || bail_out "rag-serve did not start"
curl -s -o "$OUT" "${URL}api/compare?base=A&new=B"
is "$(jq -c '[.paired, .changes.regressed, .changes.lost, .changes.improved, .changes.same]' "$OUT")" "$COUNTS" \
	"/api/compare: the same counts"
is "$(jq -c "$R"' .metrics[0] | [.pairs, (.base | r), (.new | r)]' "$OUT")" "$MEANS" "/api/compare: the same paired means"
like "$(jq -r .definition "$OUT")" 'paired by id over 4 records; regressed: fell by more than 0.1' \
	"/api/compare names the definition"
is "$(jq -c '.worse[0] | [.id, .lost]' "$OUT")" '["q3",true]' "the lost answer first among the worse records"
curl -s -o "$OUT" "${URL}api/compare?base=A&new=B&regression=0.01"
is "$(jq -c '[.changes.regressed, .changes.same, .tolerance]' "$OUT")" '[3,0,0.01]' \
	"/api/compare?regression=0.01: the fall of 0.02 regressed"
curl -s -o "$OUT" -w '%{http_code}' "${URL}api/compare?base=A&new=B&regression=2" >"$T/code"
is "$(cat "$T/code")" 400 "a tolerance off the scale: 400"
serve_stop
done_testing
