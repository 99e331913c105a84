#!/bin/sh
# demo.sh: evaluate the bundled example set with the offline judge (or the endpoint that the
# environment or ./rag.yaml configures), print the scored records and a summary, gate and report.
# Runs from the source tree (make demo: the tools in bin/) or installed
# (PREFIX/share/ragpipe/examples/demo.sh: the tools in PREFIX/bin, else on PATH). The output
# goes to $RAG_DEMO_OUT, default ./demo-out. Exits non-zero when a stage fails.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tools="rag-claims rag-verify rag-revq rag-embsim rag-ap rag-gate rag-report"
bin=
for d in "$here/../../bin" "$here/../../../bin"; do   # the source tree's, or PREFIX/bin
	[ -x "$d/rag-claims" ] || continue
	bin=$(cd "$d" && pwd)
	break
done
if [ -z "$bin" ] && p=$(command -v rag-claims 2>/dev/null); then bin=$(dirname "$p"); fi   # on PATH
[ -n "$bin" ] || { echo "demo.sh: cannot find rag-claims (not beside $here, not on PATH)" >&2; exit 2; }
for t in $tools; do
	[ -x "$bin/$t" ] || { echo "demo.sh: cannot find $t in $bin, beside the other tools" >&2; exit 2; }
done
command -v jq >/dev/null 2>&1 || { echo "demo.sh: jq is needed to print the tables (apt-get install jq)" >&2; exit 2; }
data=$here/example.jsonl
[ -r "$data" ] || { echo "demo.sh: cannot read $data" >&2; exit 2; }
out=${RAG_DEMO_OUT:-demo-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# POSIX sh has no pipefail: the first stage of a pipe leaves its failure in $st
st=$out/.first-stage-status
rm -f "$st"
first_ok() {
	if [ -s "$st" ]; then
		echo "demo.sh: $1 failed (exit status $(cat "$st"))" >&2
		rm -f "$st"
		exit 1
	fi
}

echo "== faithfulness: rag-claims | rag-verify   ($data, tools in $bin)"
{ "$bin/rag-claims" < "$data" || echo $? > "$st"; } | "$bin/rag-verify" > "$out/faithfulness.jsonl"
first_ok rag-claims
echo
echo "== context recall: rag-claims --from reference | rag-verify --metric context_recall"
{ "$bin/rag-claims" -q --from reference < "$out/faithfulness.jsonl" || echo $? > "$st"; } \
	| "$bin/rag-verify" -q --metric context_recall > "$out/recall.jsonl"
first_ok "rag-claims --from reference"
echo
echo "== answer relevancy: rag-revq | rag-embsim"
{ "$bin/rag-revq" -q < "$out/recall.jsonl" || echo $? > "$st"; } | "$bin/rag-embsim" -q > "$out/relevancy.jsonl"
first_ok rag-revq
echo
echo "== context precision: rag-verify --chunks | rag-ap"
{ "$bin/rag-verify" -q --chunks < "$out/relevancy.jsonl" || echo $? > "$st"; } \
	| "$bin/rag-ap" -q -m ap,mrr > "$out/scored.jsonl"
first_ok "rag-verify --chunks"
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
# 0, 1, or the verdict's 3 or 4 (too many records not scored): anything else, rag-gate failed
case $status in 0|1|3|4) ;; *) echo "demo.sh: rag-gate failed (exit status $status)" >&2; exit 1 ;; esac
s2=0
"$bin/rag-gate" -q -t faithfulness=0.7 -t context_recall=0.7 -r faithfulness=0.5 --min-pass-rate 0.8 \
	--markdown -o "$out/gate.md" "$out/scored.jsonl" || s2=$?
case $s2 in 0|1|3|4) ;; *) echo "demo.sh: rag-gate --markdown failed (exit status $s2)" >&2; exit 1 ;; esac
echo "rag-gate exit status: $status (0 pass, 1 fail, 3 or 4 too many records not scored)"
"$bin/rag-report" -q -t faithfulness=0.7 -t context_recall=0.7 -r faithfulness=0.5 --min-pass-rate 0.8 \
	--title "ragpipe demo" -o "$out/report.html" "$out/scored.jsonl"
echo "report: $out/report.html"
