#!/bin/sh
# 47-eval-estimate.t - rag-eval --estimate when the answers are still to collect: the stages see
# stand-ins for them (the sizes of collect.expected_*, or those of the first N records collected
# for real with --sample N, which collects only those), the estimate says which, and its
# requests are those the real run sends. The system under test is a local command (it logs each
# call); the judge is tests/fakellm.py.
. "$(dirname "$0")/lib.sh"
need jq python3

jq -nc 'range(6) | {id: "q\(.)", question: "What is fact number \(.) about the river Danube?"}' >"$T/set.jsonl"
# the system: an answer of two sentences and three contexts; each call logged
cat >"$T/system.sh" <<X
#!/bin/sh
echo call >>"$T/calls.log"
jq -c '{answer: ("The Danube is long. " + .question + " It flows east."), sources: [{id: "d1", text: "The Danube flows east."}, {id: "d2", text: "It is long."}, {id: "d3", text: "It has ports."}]}'
X
chmod +x "$T/system.sh"
conf() {
	printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\ncollect:\n  command: %s\n%s' "$T/system.sh" "${1:-}" >"$T/rag.yaml"
}
fresh
conf

# ---------------------------------------------------------------- stand-ins from the config
run rag rag-eval -c "$T/rag.yaml" -m faithfulness --estimate "$T/set.jsonl"
is "$RC" 0 "--estimate with answers to collect: exit 0"
check "nothing was collected" test ! -e "$T/calls.log"
is "$(fake_requests)" 0 "nothing was sent to the judge"
like "$(cat "$ERR")" 'rag-collect: 6 records to collect \(not sent, not priced: the system under test\); the stages after it see stand-ins: answers of 400 characters, 5 contexts of 1000 characters \(collect\.expected_answer_chars' \
	"it says what stands in for the answers, and where the sizes come from"
unlike "$(cat "$ERR")" 'no answer' "no stage reads a record without an answer"
is "$(jq -c '.estimate.collect | [.records, .sampled, .sizes_from, .answer_chars, .contexts, .context_chars]' "$OUT")" \
	'[6,0,"config",400,5,1000]' "the JSON says so too"
EST=$(jq '.estimate.requests' "$OUT")
is "$(jq -c '.estimate.stages | map([.stage, .requests])' "$OUT")" '[["rag-claims",6],["rag-verify",6]]' \
	"one claims request and one verification request a record (it said 0 before)"
run rag rag-eval -q -c "$T/rag.yaml" -m faithfulness -o "$T/run" "$T/set.jsonl"
is "$(fake_requests)" "$EST" "the real run sends the requests estimated ($EST)"
is "$(nlines "$T/calls.log")" 6 "and collects the 6 records"

# the sizes from the config
conf '  expected_answer_chars: 100
  expected_contexts: 2
  expected_context_chars: 50
'
run rag rag-eval -c "$T/rag.yaml" -m faithfulness --estimate "$T/set.jsonl"
is "$(jq -c '.estimate.collect | [.answer_chars, .contexts, .context_chars]' "$OUT")" '[100,2,50]' \
	"collect.expected_*: the sizes stood in"
conf

# ---------------------------------------------------------------- --sample N: measured sizes
rm -f "$T/calls.log"
fresh
run rag rag-eval -c "$T/rag.yaml" -m faithfulness --estimate --sample 2 "$T/set.jsonl"
is "$RC" 0 "--estimate --sample 2: exit 0"
is "$(nlines "$T/calls.log")" 2 "--sample 2 collects the first 2 records, no more"
is "$(fake_requests)" 0 "and sends nothing to the judge"
# by hand: the answers are "The Danube is long. " (20) + the question (45) + " It flows east." (15)
# = 80 characters; 3 contexts of 22, 11 and 13 characters: a mean of 15.3
is "$(jq -c '.estimate.collect | [.records, .sampled, .sizes_from, .answer_chars, .contexts, (.context_chars * 10 | round)]' "$OUT")" \
	'[6,2,"sample",80,3,153]' "the sizes measured on the sample, by hand"
like "$(cat "$ERR")" 'rag-collect: 6 records to collect; the first 2 collected \(--sample: 2 requests sent to the system under test\), the others stood in at their mean sizes: answers of 80 characters, 3\.0 contexts of 15 characters' \
	"it says the sizes come from the sample"
is "$(jq '.estimate.requests' "$OUT")" "$EST" "the requests estimated are the same"
run rag rag-eval -c "$T/rag.yaml" -m faithfulness --sample 2 "$T/set.jsonl"
is "$RC" 2 "--sample without --estimate: a usage error"

done_testing
