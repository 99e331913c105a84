#!/bin/sh
# 49-eval-trust.t - what a run of rag-eval says is what happened: a case that expects a refusal
# is always scored (and gated) for refusal, and no reason names a metric that did not run; a
# run whose records could not be scored is never green (exit 4 or 3, not 0 or 1) and its
# summary counts them; the metric asked is the one written (context_precision without a
# reference is not applicable, not context_utilization); a threshold on a metric the run does
# not score is "not run", not a failure.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-eval" ] || bail_out "bin/rag-eval is not built: run make"

printf 'llm:\n  provider: offline\ncache:\n  mode: off\n' >"$T/none.yaml"

# ---------------------------------------------------------------- the metric asked, and only it
printf '%s\n' '{"id":"n1","question":"What is the capital of France?","answer":"Paris.","contexts":["Paris is the capital of France."]}' \
	'{"id":"r1","question":"What is the capital of France?","answer":"Paris.","reference":"Paris is the capital of France.","contexts":["Paris is the capital of France."]}' >"$T/noref.jsonl"
run rag rag-eval -c "$T/none.yaml" -m context_precision -o "$T/cp" "$T/noref.jsonl"
is "$(jq -c '[.id, (.scores | keys), .not_applicable.context_precision]' "$T/cp/records.jsonl" | tr '\n' ' ')" \
	'["n1",["context_precision"],"no reference answer"] ["r1",["context_precision"],null] ' \
	"-m context_precision without a reference: not applicable with its reason, no context_utilization"
is "$RC" 0 "...and not an error: exit 0"

done_testing
