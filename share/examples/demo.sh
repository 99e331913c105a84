#!/bin/sh
# make demo: evaluate the bundled example set with the offline judge (or the endpoint that the
# environment or ./rag.yaml configures), print the scored records and a summary.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bin=$top/bin
data=share/examples/example.jsonl
out=${RAG_DEMO_OUT:-$top/demo-out}
mkdir -p "$out"

echo "== faithfulness: rag-claims | rag-verify   ($data)"
"$bin/rag-claims" < "$data" | "$bin/rag-verify" > "$out/faithfulness.jsonl"
echo
echo "== context recall: rag-claims --from reference | rag-verify --metric context_recall"
"$bin/rag-claims" -q --from reference < "$out/faithfulness.jsonl" \
	| "$bin/rag-verify" -q --metric context_recall > "$out/recall.jsonl"
echo
echo "== answer relevancy: rag-revq | rag-embsim"
"$bin/rag-revq" -q < "$out/recall.jsonl" | "$bin/rag-embsim" -q > "$out/relevancy.jsonl"
echo
echo "== context precision: rag-verify --chunks | rag-ap"
"$bin/rag-verify" -q --chunks < "$out/relevancy.jsonl" | "$bin/rag-ap" -q -m ap,mrr > "$out/scored.jsonl"
echo
echo "== scored records ($out/scored.jsonl)"
jq -r '[.id, .category,
        (.scores.faithfulness | if . == null then "null" else (. * 100 | round / 100 | tostring) end),
        (.scores.context_recall | if . == null then "null" else (. * 100 | round / 100 | tostring) end),
        (.scores.answer_relevancy | if . == null then "null" else (. * 100 | round / 100 | tostring) end),
        (.scores.context_precision | if . == null then "null" else (. * 100 | round / 100 | tostring) end),
        ([.verdicts.faithfulness[]? | select(.verdict | not) | .claim] | join(" | "))]
       | @tsv' "$out/scored.jsonl" \
	| awk -F'\t' 'BEGIN { printf "%-6s %-10s %-13s %-15s %-17s %-18s %s\n", "id", "category", "faithfulness", "context_recall", "answer_relevancy", "context_precision", "unsupported claims" }
	              { printf "%-6s %-10s %-13s %-15s %-17s %-18s %s\n", $1, $2, $3, $4, $5, $6, $7 }'
echo
echo "== summary"
jq -s -r '
  def stats(m): [.[] | .scores[m]] as $all | ($all | map(select(. != null))) as $ok
    | "\(m): mean \(if ($ok | length) > 0 then (($ok | add / length) * 1000 | round / 1000) else "n/a" end)"
      + " over \($ok | length) scored, \(($all | length) - ($ok | length)) null";
  (length | "records: \(.)"), stats("faithfulness"), stats("context_recall"), stats("answer_relevancy"),
  stats("context_precision"),
  "judge: \(.[0].usage["rag-verify"].judge // "unknown")"' "$out/scored.jsonl"
echo
echo "== the gate: rag-gate, as a CI job would run it (JUnit: $out/gate.xml, Markdown: $out/gate.md)"
status=0
"$bin/rag-gate" -t faithfulness=0.7 -t context_recall=0.7 -r faithfulness=0.5 --min-pass-rate 0.8 \
	--worst 3 --junit "$out/gate.xml" "$out/scored.jsonl" || status=$?
"$bin/rag-gate" -q -t faithfulness=0.7 -t context_recall=0.7 -r faithfulness=0.5 --min-pass-rate 0.8 \
	--markdown -o "$out/gate.md" "$out/scored.jsonl" || true
echo "rag-gate exit status: $status (0 pass, 1 fail)"
"$bin/rag-report" -q -t faithfulness=0.7 -t context_recall=0.7 -r faithfulness=0.5 --min-pass-rate 0.8 \
	--title "ragpipe demo" -o "$out/report.html" "$out/scored.jsonl"
echo "report: $out/report.html"
