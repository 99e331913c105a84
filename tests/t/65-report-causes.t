#!/bin/sh
# 65-report-causes.t - what to fix first (issue 35 item 5): one cause a record, its root; a judge
# that failed is an outage of its own ("the judge failed: N records unscored", the
# endpoint's error its text), first, never advice about the system, and the downstream "claims.answer is
# null" no cause; a dead judge gives the outage's hint alone; a retrieval miss (relevant ids, a
# reciprocal rank of 0) is a cause of its own; an unreachable judge: every record written with
# its error, stderr a few lines and "... and N more like it". rag-gate, summary.md, report.html
# and the store (rag-serve's opened run reads its causes) say the same. No network: port 9 of
# the loopback refuses at once.
. "$(dirname "$0")/lib.sh"
need jq
trap '_lib_cleanup' EXIT
EX=$TOP/share/examples/example.jsonl
printf 'gate:\n  mean:\n    faithfulness: 0.7\n  record:\n    faithfulness: 0.5\n' >"$T/g.yaml"

# ---------------------------------------------------------------- a judge's 500 on one record
cat >"$T/one.jsonl" <<'J'
{"id":"q1","question":"a","answer":"x","contexts":["x"],"scores":{"faithfulness":0.9}}
{"id":"q2","question":"b","answer":"y","contexts":["y"],"scores":{"faithfulness":0.3}}
{"id":"q3","question":"c","answer":"z","contexts":["z"],"scores":{"faithfulness":null},"errors":[{"tool":"rag-claims","message":"HTTP 500: internal error"},{"tool":"rag-verify","metric":"faithfulness","message":"claims.answer is null: the claims stage failed for this record"}]}
{"id":"q4","question":"d","answer":"w","contexts":["w"],"scores":{"faithfulness":0.95}}
J
OUTAGE='The judge failed: 1 record unscored [(]rag-claims: HTTP 500: internal error[)]'
run rag rag-gate -c "$T/g.yaml" "$T/one.jsonl"
like "$(cat "$OUT")" "$OUTAGE" "rag-gate: the outage's hint, with the endpoint's error"
run rag rag-report -c "$T/g.yaml" --markdown "$T/one.jsonl"
like "$(cat "$OUT")" "$OUTAGE" "summary.md: the outage's hint"
run rag rag-report -c "$T/g.yaml" -o "$T/one.html" "$T/one.jsonl"
sed -n 's/.*"causes":\(\[.*\]\),"summary".*/\1/p' "$T/one.html" >"$T/causes.json"
is "$(jq -c '[.[] | [.kind, .cause, .text, .count, [.records[].id]]]' "$T/causes.json")" \
	'[["outage","the judge failed: 1 record unscored","HTTP 500: internal error",1,["q3"]],["below","faithfulness below 0.500",null,1,["q2"]]]' \
	"report.html: the outage first, then q2 below; each record under one cause"
unlike "$(cat "$T/causes.json")" 'claims.answer is null' "the downstream error is no cause of its own"
run rag rag-store -q -c "$T/g.yaml" --store "$T/s.db" --run-id one add - <"$T/one.jsonl"
run rag rag-store -q --store "$T/s.db" show one
is "$(jq -c '[.causes[] | [.kind, .count]]' "$OUT")" '[["outage",1],["below",1]]' \
	"the store (rag-serve's opened run): the same causes"

# ---------------------------------------------------------------- a dead judge
jq -c '.scores.faithfulness = null | .errors = [{"tool":"rag-claims","message":"endpoint unreachable"}]' "$T/one.jsonl" >"$T/dead.jsonl"
run rag rag-gate -c "$T/g.yaml" --json "$T/dead.jsonl"
is "$(jq -c '[.hints[] | .kind // .metrics]' "$OUT")" '["outage"]' \
	"a dead judge: the outage's hint alone, no advice about faithfulness"
like "$(jq -r '.hints[0].hint' "$OUT")" '^The judge failed: 4 records unscored [(]rag-claims: endpoint unreachable[)]' "with the count and the error"

# ---------------------------------------------------------------- a retrieval miss
cat >"$T/miss.jsonl" <<'J'
{"id":"m1","question":"a","answer":"x","relevant_ids":["d1"],"scores":{"mrr":0,"faithfulness":0.2}}
{"id":"m2","question":"b","answer":"y","relevant_ids":["d2"],"scores":{"mrr":1,"faithfulness":0.3}}
{"id":"m3","question":"c","answer":"z","scores":{"faithfulness":0.9}}
J
run rag rag-report -c "$T/g.yaml" -o "$T/miss.html" "$T/miss.jsonl"
sed -n 's/.*"causes":\(\[.*\]\),"summary".*/\1/p' "$T/miss.html" >"$T/causes.json"
is "$(jq -c '[.[] | [.kind, .cause, [.records[].id]]] | sort' "$T/causes.json")" \
	'[["below","faithfulness below 0.500",["m2"]],["miss","retrieval missed: no relevant document retrieved",["m1"]]]' \
	"a retrieval miss is a cause of its own (m1), not faithfulness below"

# ---------------------------------------------------------------- an unreachable judge
RAG_BASE_URL=http://127.0.0.1:9/v1 RAG_MODEL=m run rag rag-eval -m faithfulness -o "$T/run" "$EX"
is "$RC" 4 "an unreachable judge: exit status 4"
is "$(nlines "$T/run/records.jsonl")" "$(nlines "$EX")" "every record written"
is "$(jq -c 'select((.errors | length) == 0) | .id' "$T/run/records.jsonl" | wc -l | tr -d ' ')" 0 "each with its error"
is "$(grep -c '^rag-claims: error (at ' "$ERR")" 3 "stderr: the first three records' error"
like "$(cat "$ERR")" 'rag-claims: error: [.][.][.] and 7 more like it: endpoint unreachable' "then how many more like it"
like "$(jq -r '.hints[0].hint' "$T/run/gate.json")" '^The judge failed: 10 records unscored' "gate.json: the outage's hint first"
is "$(jq -c '[.hints[] | .kind // "advice"]' "$T/run/gate.json")" '["outage"]' "and no advice about the system"
done_testing
