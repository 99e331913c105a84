#!/bin/sh
# 56-polite.t - rag-polite, HACKING.md's metric tool of one operation (lib/politeness.c and
# rag_cli_metric): a score with its reason against tests/fakellm.py (its <<<SCORED- block:
# 0 exactly when the answer holds UNSUPPORTED), a reply that does not fit asked again and then
# null with an errors entry, a dead endpoint null (never a score), no endpoint refused, a
# record without an answer an input error, and rag-eval's stage of it.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-polite" ] || bail_out "bin/rag-polite is not built: run make"

judge_config judge-x
polite() { run rag rag-polite -c "$CONF" "$@"; }
field() { jq -c --arg id "$1" "select(.id == \$id) | $2" "$OUT"; }
chat_requests() { jq -c 'select(.path | endswith("/chat/completions"))' "$FAKE_LOG" | wc -l | tr -d ' '; }
cat >"$T/in.jsonl" <<'EOF2'
{"id":"p1","question":"What is the capital of France?","answer":"Paris is the capital of France, happy to help."}
{"id":"p2","question":"What is the capital of France?","answer":"UNSUPPORTED Look it up yourself."}
{"id":"p3","question":"What is the capital of France?"}
EOF2

fresh
polite <"$T/in.jsonl"
is "$RC" 3 "a record without an answer: exit 3 (the others scored)"
is "$(nlines "$OUT")" 3 "one line per record"
is "$(field p1 '[.scores.politeness, .reasons.politeness]')" '[1,"fake: scored 1"]' \
	"p1: the judge's score 1 and its reason"
is "$(field p2 '[.scores.politeness, .reasons.politeness]')" '[0,"fake: scored 0"]' \
	"p2: the judge's score 0 and its reason"
is "$(field p1 '.verdicts')" 'null' "no verdicts where the operation has none"
is "$(field p3 '[.scores.politeness, .errors[0].tool, .errors[0].metric, .errors[0].message]')" \
	'[null,"rag-polite","politeness","record has no \"answer\" field"]' "p3: null and the input error, nothing asked"
is "$(chat_requests)" 2 "one request a record that has an answer"
check "the answer goes in a SCORED block, the question in a QUESTION block" \
	jq -se '[.[] | select(.path | endswith("/chat/completions")) | .body.messages[-1].content |
	        test("<<<SCORED-[0-9A-Za-z]+\n") and test("<<<QUESTION-")] | all' "$FAKE_LOG"
is "$(jq -c 'select(.id == "p1") | .usage["rag-polite"].politeness | has("prompt_tokens")' "$OUT")" true \
	"usage.rag-polite.politeness"

# a reply that does not fit (no reason) is asked again, then null with an errors entry
fresh '[{"few": true}]'
polite <"$T/in.jsonl"
is "$RC" 4 "replies without a reason: exit 4"
is "$(field p1 '[.scores.politeness, .reasons.politeness, (.errors[0].message | test("reason"))]')" '[null,null,true]' \
	"p1: no score, no reason, an error naming the reason"
is "$(chat_requests)" 4 "each record asked twice: the re-ask"

fresh '[{"bad_ids": true}]'
polite <"$T/in.jsonl"
is "$(field p1 '[.scores.politeness, (.errors[0].message | test("not from 0 to 1"))]')" '[null,true]' \
	"a score out of 0..1 is no score"

# a dead endpoint: null and an errors entry, never a score
RAG_BASE_URL=http://127.0.0.1:9/v1 polite <"$T/in.jsonl"
is "$RC" 4 "a dead endpoint: exit 4"
is "$(field p1 '[.scores.politeness, (.errors | length)]')" '[null,1]' "a dead endpoint: null and one errors entry"

# no endpoint: there is no offline answer of tone, so no made-up score
fake_stop
_ob=$RAG_BASE_URL _ok=$RAG_API_KEY
unset RAG_BASE_URL RAG_API_KEY
polite <"$T/in.jsonl"
RAG_BASE_URL=$_ob RAG_API_KEY=$_ok
export RAG_BASE_URL RAG_API_KEY
is "$RC" 2 "no endpoint: exit 2"
is "$(nlines "$OUT")" 0 "no endpoint: nothing written"
like "$(cat "$ERR")" 'rag-polite: error: .*endpoint' "no endpoint: it says why"

run rag rag-polite --help
like "$(cat "$OUT")" 'scores.politeness and its reason, reasons.politeness' "--help says what it writes, from the descriptor"

# rag-eval runs it as a stage of its own
printf '%s\n' '{"id":"e1","question":"q","answer":"a"}' >"$T/e.jsonl"
run rag rag-eval -m politeness --dry-run "$T/e.jsonl"
is "$RC" 0 "rag-eval -m politeness --dry-run: exit 0"
like "$(cat "$OUT")" 'rag-polite' "rag-eval -m politeness --dry-run: the stage is rag-polite"
done_testing
