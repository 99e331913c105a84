#!/bin/sh
# 36-usage.t - what the records and the summary lines say a run cost: usage per stage, so that a
# pipeline's usage adds up to the requests the endpoint saw, and summaries that count failures.
. "$(dirname "$0")/lib.sh"

need jq python3
for _t in rag-claims rag-verify rag-embsim; do
	[ -x "$BIN/$_t" ] || bail_out "bin/$_t is not built: run make"
done

printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\n' >"$T/rag.yaml"
CONF=$T/rag.yaml
EXAMPLE=$TOP/share/examples/example.jsonl
NREC=$(nlines "$EXAMPLE")

fresh() {
	printf '%s\n' "${1:-[]}" >"$T/plan.json"
	fake_start --plan "$T/plan.json"
}

# ---------------------------------------------------------------- usage per stage
# Before, usage.<tool> was overwritten by a later stage of the same tool: after this pipeline
# the record kept only the last rag-verify's usage, and the sum under-counted the run.
fresh
rag rag-claims -c "$CONF" <"$EXAMPLE" 2>"$T/e1" | rag rag-verify -c "$CONF" 2>"$T/e2" |
	rag rag-claims -c "$CONF" --from reference 2>"$T/e3" |
	rag rag-verify -c "$CONF" --metric context_recall 2>"$T/e4" >"$T/pipe.jsonl"
is "$(nlines "$T/pipe.jsonl")" "$NREC" "pipeline: one line per record"
is "$(jq -c '.usage | map_values(keys)' "$T/pipe.jsonl" | sort -u)" \
	'{"rag-claims":["answer","reference"],"rag-verify":["context_recall","faithfulness"]}' \
	"pipeline: usage.<tool>.<field or metric> for each of the four stages"
is "$(jq -r '.usage[][].judge' "$T/pipe.jsonl" | sort -u)" "openai:judge-x" "pipeline: every stage names its judge"
is "$(jq -s '[.[].usage[][].calls] | add' "$T/pipe.jsonl")" "$(fake_requests)" \
	"pipeline: the calls of all stages add up to the requests the endpoint saw"
# the one-liner of rag(7) and the README, against the four summary lines
SUM=$(jq -s '[.[].usage[]?[]? | .prompt_tokens + .completion_tokens] | add' "$T/pipe.jsonl")
LINES=$(cat "$T/e1" "$T/e2" "$T/e3" "$T/e4" | sed -n 's/.* \([0-9]*\) prompt + \([0-9]*\) completion tokens.*/\1 \2/p' |
	awk '{ s += $1 + $2 } END { print s }')
is "$SUM" "$LINES" "pipeline: the tokens summed over the file are those of the four summary lines"
check "pipeline: tokens were counted" test "$SUM" -gt 0

# the same stage run again replaces its own entry, and leaves the others
rag rag-verify -c "$CONF" --metric context_recall <"$T/pipe.jsonl" 2>/dev/null >"$T/again.jsonl"
is "$(jq -c '.usage | map_values(keys)' "$T/again.jsonl" | sort -u)" \
	'{"rag-claims":["answer","reference"],"rag-verify":["context_recall","faithfulness"]}' \
	"again: the same stage keeps one entry"
is "$(jq -c '.usage["rag-verify"].faithfulness' "$T/again.jsonl")" "$(jq -c '.usage["rag-verify"].faithfulness' "$T/pipe.jsonl")" \
	"again: another stage's entry is left as it was"

# --chunks chooses the metric by record: the usage says which
printf '%s\n' '{"id":"p","question":"Q?","reference":"Ulm.","contexts":["Ulm."]}' '{"id":"u","question":"Q?","answer":"Ulm.","contexts":["Ulm."]}' >"$T/chunks.jsonl"
run rag rag-verify -q -c "$CONF" --chunks <"$T/chunks.jsonl"
is "$(jq -c '.usage["rag-verify"] | keys' "$OUT" | tr '\n' ' ')" '["context_precision"] ["context_utilization"] ' \
	"--chunks: usage under each record's metric"

# the notice is still said once per pipeline, read from usage.<tool>.<stage>.judge
unset RAG_BASE_URL RAG_API_KEY
rag rag-claims -c "$CONF" <"$EXAMPLE" 2>"$T/n1" | rag rag-verify -c "$CONF" 2>"$T/n2" >/dev/null
is "$(cat "$T/n1" "$T/n2" | grep -c 'notice:')" 1 "offline pipeline: one notice"
is "$(grep -c 'notice:' "$T/n2")" 0 "offline pipeline: rag-verify sees rag-claims's judge in usage and stays quiet"
fake_stop

# ---------------------------------------------------------------- rag-embsim's summary lines
# 20 records (40 texts) in batches of 8: 5 requests, each failing. Before: "20 records, 0 input errors"
# and "0 requests" while the endpoint saw 5.
jq -nc 'range(20) | {id: "r\(.)", answer: "answer \(.)", reference: "reference \(.)"}' >"$T/twenty.jsonl"
fresh '[{"match": "\"input\"", "status": 500}]'
run rag rag-embsim -c "$CONF" --pair answer,reference --batch-size 8 <"$T/twenty.jsonl"
is "$RC" 4 "embedder failing: exit 4"
is "$(jq -c '.scores.semantic_similarity' "$OUT" | sort | uniq -c | tr -s ' ')" " 20 null" "embedder failing: 20 nulls"
is "$(fake_requests)" 5 "embedder failing: the endpoint saw 5 requests"
like "$(cat "$ERR")" 'rag-embsim: 20 records, 0 input errors, 20 embedder errors, ' \
	"embedder failing: the record summary counts the records the embedder failed"
like "$(cat "$ERR")" 'embedder openai:[^ ]*: 5 requests, 40 texts, 40 distinct, 0 from cache, 0 retries, 5 failed' \
	"embedder failing: the embedder line counts the requests sent and failed"

# two failures, then answers: with two retries every record is scored, and every attempt counts
printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 2\n' >"$T/retry.yaml"
fresh '[{"match": "\"input\"", "status": 500, "times": 2}]'
run rag rag-embsim -c "$T/retry.yaml" --pair answer,reference --batch-size 8 <"$T/twenty.jsonl"
is "$RC,$(jq -c '.scores.semantic_similarity | type' "$OUT" | sort -u)" '0,"number"' "retried: every record scored"
is "$(fake_requests)" 7 "retried: the endpoint saw 7 requests"
like "$(cat "$ERR")" 'rag-embsim: 20 records, 0 input errors, 0 embedder errors, ' "retried: no record failed"
like "$(cat "$ERR")" ': 7 requests, 40 texts, 40 distinct, 0 from cache, 2 retries, 2 failed' \
	"retried: the embedder line counts every attempt, and the two that failed"
fake_stop

# ---------------------------------------------------------------- rag-embsim's usage in the records
# The estimate counted the embedding requests and tokens (and priced them); a run wrote no usage,
# so its cost left them out. Now each record carries its share, by the estimate's rule: 20
# records, 40 texts of 9 and 12 characters (4 characters a token: 20 x 21 / 4 = 105 tokens), in
# batches of 8 = 5 requests; the run's cost (rag-gate) is the estimate's.
jq -nc 'range(20) | {id: "r\(.)", answer: "answer \(. + 10)", reference: "reference \(. + 10)"}' >"$T/even.jsonl"
printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\nprices:\n  text-embedding-3-small:\n    input: 1000\n    output: 0\n' >"$T/emb.yaml"
fresh
run rag rag-embsim -c "$T/emb.yaml" --pair answer,reference --batch-size 8 --estimate <"$T/even.jsonl"
EST=$(jq -c '.estimate | [.requests, .prompt_tokens, (.cost * 1e6 | round)]' "$OUT")
is "$EST" '[5,105,105000]' "rag-embsim --estimate: 5 requests, 105 tokens, 0.105 at 1000 a million (x 1e6)"
run rag rag-embsim -c "$T/emb.yaml" --pair answer,reference --batch-size 8 <"$T/even.jsonl"
is "$RC" 0 "rag-embsim run: exit 0"
is "$(jq -sc '[.[].usage["rag-embsim"].semantic_similarity] | [(map(.calls) | add), (map(.prompt_tokens) | add), (map(.judge) | unique)]' "$OUT")" \
	'[5,105,["openai:text-embedding-3-small"]]' "the records' usage adds up to the estimate's requests and tokens, under the embedder"
is "$(fake_requests)" 5 "and the endpoint saw the 5 requests"
rag rag-gate -c "$T/emb.yaml" --summary-only --json <"$OUT" >"$T/gate.json"
is "$(jq -c '.cost | [.calls, .prompt_tokens, (.total * 1e6 | round)]' "$T/gate.json")" '[5,105,105000]' \
	"the run's cost prices them as the estimate does"
fake_stop

done_testing
