#!/bin/sh
# 41-aliases.t - a field given by its RAGAS name is the same field: rag-claims --from
# ground_truth writes claims.reference, which rag-verify --metric context_recall reads; --from
# response reads an "answer"; rag-embsim --pair takes either name.
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

done_testing
