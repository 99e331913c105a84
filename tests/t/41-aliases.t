#!/bin/sh
# 41-aliases.t - a field given by another name is the same field: rag-claims --from
# ground_truth writes claims.reference, which rag-verify --metric context_recall reads; --from
# response reads an "answer"; rag-embsim --pair takes either name. A Java test set's camelCase
# (sampleId, referenceAnswer, groundTruth, expectedAnswer, retrievedContexts, relevantDocIds)
# through rag-eval gives the user's ids, reference metrics and recall from the ids; a fields:
# mapping and --field take any other schema by jq programs; a name that looks like a typo of a
# known one is said once a run (of rag-eval, or of a pipeline of the tools), a field of the
# user's own never.
. "$(dirname "$0")/lib.sh"

printf '%s\n' \
	'{"id":"r1","user_input":"Where was Einstein born?","response":"Einstein was born in Ulm.","retrieved_contexts":["Albert Einstein was born in Ulm, Germany, in 1879."],"ground_truth":"Einstein was born in Ulm in 1879."}' \
	'{"id":"r2","question":"Where was Einstein born?","answer":"Einstein was born in Ulm.","contexts":["Albert Einstein was born in Ulm, Germany, in 1879."],"reference":"Einstein was born in Ulm in 1879."}' \
	>"$T/in.jsonl"

run sh -c "'$BIN/rag-claims' -q --judge offline --from ground_truth <'$T/in.jsonl' | '$BIN/rag-verify' -q --judge offline --metric context_recall"
is "$RC" 0 "rag-claims --from ground_truth | rag-verify --metric context_recall exits 0"
is "$(jq -r '.claims | keys | join(",")' "$OUT" | tr '\n' ' ')" "reference reference " \
	"claims.reference from ground_truth and from reference"
is "$(jq -r '.scores.context_recall' "$OUT" | tr '\n' ' ')" "1 1 " "context recall is scored for both spellings"
is "$(jq -c '.errors // []' "$OUT" | tr '\n' ' ')" "[] [] " "no errors"

run sh -c "'$BIN/rag-claims' -q --judge offline --from response <'$T/in.jsonl'"
is "$RC" 0 "rag-claims --from response exits 0"
is "$(jq -r '.claims.answer | length' "$OUT" | tr '\n' ' ')" "1 1 " "--from response reads response and answer into claims.answer"

run sh -c "'$BIN/rag-embsim' -q --embedder offline --pair response,ground_truth <'$T/in.jsonl'"
is "$RC" 0 "rag-embsim --pair response,ground_truth exits 0"
is "$(jq -r '.scores.semantic_similarity | type' "$OUT" | tr '\n' ' ')" "number number " \
	"--pair with RAGAS names finds the fields of both records"
a=$(jq -r '.scores.semantic_similarity' "$OUT" | sed -n 1p)
b=$(jq -r '.scores.semantic_similarity' "$OUT" | sed -n 2p)
is "$a" "$b" "the same texts under either name give the same similarity"

# ---------------------------------------------------------------- a Java test set through rag-eval
printf 'llm:\n  provider: offline\ncache:\n  mode: off\n' >"$T/off.yaml"
cat >"$T/java.json" <<'JSON'
[
 {"sampleId": "RET-001", "question": "How many days do I have to return an item?",
  "answer": "You have 7 days to return an item.",
  "referenceAnswer": "Items can be returned within 7 days of delivery.",
  "retrievedContexts": [{"id": "d1", "text": "Shipping takes 3 days."}, {"id": "d2", "text": "Items can be returned within 7 days of delivery."}],
  "relevantDocIds": ["d2"], "category": "returns"},
 {"sampleId": "RET-002", "question": "Who pays the return shipping?",
  "answer": "The customer pays the return shipping.",
  "groundTruth": "The customer pays the return shipping fee.",
  "retrievedContexts": [{"id": "d3", "text": "The customer pays the return shipping fee."}, {"id": "d4", "text": "Refunds take 5 days."}],
  "relevantDocIds": ["d3"], "category": "returns"},
 {"sampleId": "PAY-001", "question": "Which cards are accepted?",
  "answer": "Visa and Mastercard are accepted.",
  "expectedAnswer": "We accept Visa and Mastercard.",
  "retrievedContexts": [{"id": "d5", "text": "Gift cards never expire."}, {"id": "d6", "text": "We accept Visa and Mastercard."}],
  "relevantDocIds": ["d9"], "category": "payment"}
]
JSON
run rag rag-eval -c "$T/off.yaml" -m token_f1,mrr,recall@1 -o "$T/run-java" "$T/java.json"
R=$T/run-java/records.jsonl
is "$RC" 0 "a Java-style test set: exit 0"
is "$(jq -r '.id' "$R" | tr '\n' ' ')" "RET-001 RET-002 PAY-001 " "the ids are the user's sampleIds, not case-N"
is "$(jq -r '.category' "$R" | tr '\n' ' ')" "returns returns payment " "the categories"
is "$(jq -r '.scores.token_f1 | type' "$R" | tr '\n' ' ')" "number number number " \
	"token_f1 computed from referenceAnswer, groundTruth and expectedAnswer"
is "$(jq -c '[.errors // [] | .[].message]' "$R" | tr '\n' ' ')" "[] [] [] " "no errors (no \"no reference answer\")"
is "$(jq -c '[.scores.mrr, .scores["recall@1"]]' "$R" | tr '\n' ' ')" "[0.5,0] [1,1] [0,0] " \
	"mrr and recall@1 from relevantDocIds against the contexts' ids, by hand: d2 second, d3 first, d9 none"
unlike "$(cat "$ERR")" "did you mean" "known names: no did-you-mean"

# the same names read by a tool alone
jq -c '.[]' "$T/java.json" >"$T/java.jsonl"
run sh -c "'$BIN/rag-kw' -q -m token_f1 <'$T/java.jsonl' | '$BIN/rag-ap' -q -m mrr"
is "$(jq -c '[.scores.token_f1 != null, .scores.mrr]' "$OUT" | tr '\n' ' ')" "[true,0.5] [true,1] [true,0] " \
	"rag-kw and rag-ap alone read referenceAnswer/groundTruth/expectedAnswer, retrievedContexts and relevantDocIds"

# ---------------------------------------------------------------- fields: and --field
printf '%s\n' \
	'{"meta":{"key":"K1"},"q":"How many days do I have to return an item?","answer":"7 days.","expected":{"text":"Within 7 days."},"lookedUp":[{"content":"Items can be returned within 7 days.","docId":"d2"}],"gold":["d2"]}' \
	'{"meta":{"key":"K2"},"q":"Who pays?","answer":"The customer.","expected":{"text":"The customer pays."},"lookedUp":[{"content":"Refunds take 5 days.","docId":"d4"}],"gold":["d3"]}' \
	>"$T/own.jsonl"
cat >"$T/fields.yaml" <<'YAML'
llm:
  provider: offline
cache:
  mode: off
fields:
  id: .meta.key
  question: .q
  reference: .expected.text
  contexts: '.lookedUp | map({text: .content, id: .docId})'
  relevant_ids: .gold
YAML
run rag rag-eval -c "$T/fields.yaml" -m token_f1,mrr -o "$T/run-own" "$T/own.jsonl"
is "$RC" 0 "fields: in rag.yaml: exit 0"
is "$(jq -c '[.id, .reference, (.scores.token_f1 | type), .scores.mrr]' "$T/run-own/records.jsonl" | tr '\n' ' ')" \
	'["K1","Within 7 days.","number",1] ["K2","The customer pays.","number",0] ' \
	"fields: maps ids, the reference, contexts with ids and the relevant ids by jq programs"
is "$(jq -c '.fields' "$T/run-own/run.json")" null "no --field: run.json has no fields"
is "$(jq -r '.config.fields.reference' "$T/run-own/run.json")" ".expected.text" "run.json's config shows the mapping"

run rag rag-eval -c "$T/off.yaml" -m token_f1 --field id=.meta.key --field reference=.expected.text -o "$T/run-flag" "$T/own.jsonl"
is "$RC" 0 "--field: exit 0"
is "$(jq -c '[.id, (.scores.token_f1 | type)]' "$T/run-flag/records.jsonl" | tr '\n' ' ')" '["K1","number"] ["K2","number"] ' \
	"--field id=.meta.key --field reference=.expected.text"
is "$(jq -c '.fields' "$T/run-flag/run.json")" '["id=.meta.key","reference=.expected.text"]' "run.json keeps --field for --resume"
run rag rag-eval -c "$T/fields.yaml" -m token_f1 --field reference=.answer -o "$T/run-over" "$T/own.jsonl"
is "$(jq -c '[.reference, .scores.token_f1]' "$T/run-over/records.jsonl" | head -n 1)" '["7 days.",1]' \
	"--field replaces the configuration's program for the same field"

run rag rag-eval -c "$T/off.yaml" -m token_f1 --field 'reference=.expected[' -o "$T/run-bad" "$T/own.jsonl"
is "$RC" 2 "a --field program that does not compile: exit 2"
like "$(cat "$ERR")" '^rag-eval: error: --field reference: the jq program does not compile' "the message names the field"
check "and no run directory is made" test ! -e "$T/run-bad"
printf 'llm:\n  provider: offline\nfields:\n  reference: .expected | map(\n' >"$T/badf.yaml"
run rag rag-eval -c "$T/badf.yaml" -m token_f1 -o "$T/run-bad" "$T/own.jsonl"
is "$RC" 2 "a fields: program that does not compile: exit 2"
like "$(cat "$ERR")" 'badf\.yaml: fields\.reference: the jq program does not compile' "the message names the file and the key"
printf 'llm:\n  provider: offline\nfields:\n  refrence: .expected.text\n' >"$T/badk.yaml"
run rag rag-eval -c "$T/badk.yaml" -m token_f1 -o "$T/run-bad" "$T/own.jsonl"
is "$RC" 2 "a fields: key that is no field: exit 2"
like "$(cat "$ERR")" 'fields\.refrence: "refrence" is not a field of the record format' "the message names the key"
run rag rag-eval -c "$T/off.yaml" -m token_f1 --field reference -o "$T/run-bad" "$T/own.jsonl"
is "$RC" 2 "--field without =PROGRAM: exit 2"
run rag rag-eval -c "$T/off.yaml" -m token_f1 --field 'reference=.expected.text | error("boom")' -o "$T/run-bad" "$T/own.jsonl"
is "$RC" 3 "a program that fails on a record: exit 3 (bad input)"
like "$(cat "$ERR")" 'own\.jsonl: record 1: --field reference: the jq program failed: boom' "named by the record"

# ---------------------------------------------------------------- did you mean
printf '%s\n' \
	'{"sampleId":"a","question":"q1","answer":"x y","referenceAnswr":"x y","myNotes":"mine","Question":"dup"}' \
	'{"sampleId":"b","question":"q2","answer":"x y","referenceAnswr":"x","myNotes":"mine"}' \
	'{"sampleId":"c","question":"q3","answer":"x y","referenceAnswr":"y","myNotes":"mine","question_zh":"问"}' \
	>"$T/typo.jsonl"
run rag rag-eval -c "$T/off.yaml" -m token_f1 -o "$T/run-typo" "$T/typo.jsonl"
is "$(grep -c 'referenceAnswr: did you mean referenceAnswer?' "$ERR")" 1 "a typo of a known name: said once in a run of 3 records"
is "$(grep -c 'Question: did you mean question?' "$ERR")" 1 "a known name in other case: said"
is "$(grep -c 'did you mean' "$ERR")" 2 "nothing about myNotes or question_zh (fields of the user's own)"
is "$(jq -r '.myNotes' "$T/run-typo/records.jsonl" | tr '\n' ' ')" "mine mine mine " "the user's own fields pass through"
run rag rag-eval -q -c "$T/off.yaml" -m token_f1 -o "$T/run-typo-q" "$T/typo.jsonl"
unlike "$(cat "$ERR")" "did you mean" "-q: no warning"
# a pipeline of the tools: its first stage says it, once; a later one sees a record a tool wrote
run sh -c "'$BIN/rag-kw' -m token_f1 <'$T/typo.jsonl' | '$BIN/rag-ap' -m mrr"
is "$(grep -c 'did you mean' "$ERR")" 2 "rag-kw | rag-ap: two names, each said once"
is "$(grep -c '^rag-kw: warning: referenceAnswr: did you mean referenceAnswer?' "$ERR")" 1 "by the first stage"
run sh -c "'$BIN/rag-kw' -q -m token_f1 <'$T/typo.jsonl'"
is "$(grep -c 'did you mean' "$ERR")" 2 "a tool with -q: warned all the same (rag(7) MESSAGES: warnings always show)"
run sh -c "'$BIN/rag-eval' -c '$T/off.yaml' -m token_f1 --emit --run-id r <'$T/typo.jsonl' | '$BIN/rag-kw' -m token_f1"
unlike "$(cat "$ERR")" "did you mean" "records rag-eval emitted (run_id): it checked them, its stages do not"

done_testing
