#!/bin/sh
# 56-complete.t - rag-complete, HACKING.md's metric tool of one operation
# (lib/answer_completeness.c and rag_cli_metric): does the answer cover every aspect of the
# question. A score with its reason against tests/fakellm.py (its <<<SCORED- block: 0 exactly
# when the answer holds UNSUPPORTED), a reply that does not fit asked again and then null with
# an errors entry, a dead endpoint null (never a score), a record without an answer or a
# question an input error; the offline judge (.offline_ask) without an endpoint, its share of
# the question's terms computed by hand in English and Chinese; and rag-eval's stage of it.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-complete" ] || bail_out "bin/rag-complete is not built: run make"

judge_config judge-x
complete() { run rag rag-complete -c "$CONF" "$@"; }
field() { jq -c --arg id "$1" "select(.id == \$id) | $2" "$OUT"; }
chat_requests() { jq -c 'select(.path | endswith("/chat/completions"))' "$FAKE_LOG" | wc -l | tr -d ' '; }
cat >"$T/in.jsonl" <<'EOF2'
{"id":"p1","question":"What is the capital of France?","answer":"Paris is the capital of France, happy to help."}
{"id":"p2","question":"What is the capital of France?","answer":"UNSUPPORTED Look it up yourself."}
{"id":"p3","question":"What is the capital of France?"}
{"id":"p4","answer":"Paris."}
EOF2

fresh
complete <"$T/in.jsonl"
is "$RC" 3 "a record without an answer: exit 3 (the others scored)"
is "$(nlines "$OUT")" 4 "one line per record"
is "$(field p1 '[.scores.answer_completeness, .reasons.answer_completeness]')" '[1,"fake: scored 1"]' \
	"p1: the judge's score 1 and its reason"
is "$(field p2 '[.scores.answer_completeness, .reasons.answer_completeness]')" '[0,"fake: scored 0"]' \
	"p2: the judge's score 0 and its reason"
is "$(field p1 '.verdicts')" 'null' "no verdicts where the operation has none"
is "$(field p3 '[.scores.answer_completeness, .errors[0].tool, .errors[0].metric, .errors[0].message]')" \
	'[null,"rag-complete","answer_completeness","record has no \"answer\" field"]' "p3: null and the input error, nothing asked"
is "$(field p4 '[.scores.answer_completeness, .errors[0].message]')" '[null,"record has no \"question\" field"]' \
	"p4: no question, nothing to cover: null and the input error, nothing asked"
is "$(chat_requests)" 2 "one request a record that has an answer"
check "the answer goes in a SCORED block, the question in a QUESTION block" \
	jq -se '[.[] | select(.path | endswith("/chat/completions")) | .body.messages[-1].content |
	        test("<<<SCORED-[0-9A-Za-z]+\n") and test("<<<QUESTION-")] | all' "$FAKE_LOG"
is "$(jq -c 'select(.id == "p1") | .usage["rag-complete"].answer_completeness | has("prompt_tokens")' "$OUT")" true \
	"usage.rag-complete.answer_completeness"

# a reply that does not fit (no reason) is asked again, then null with an errors entry
fresh '[{"few": true}]'
complete <"$T/in.jsonl"
is "$RC" 4 "replies without a reason: exit 4"
is "$(field p1 '[.scores.answer_completeness, .reasons.answer_completeness, (.errors[0].message | test("reason"))]')" '[null,null,true]' \
	"p1: no score, no reason, an error naming the reason"
is "$(chat_requests)" 4 "each record asked twice: the re-ask"

fresh '[{"bad_ids": true}]'
complete <"$T/in.jsonl"
is "$(field p1 '[.scores.answer_completeness, (.errors[0].message | test("not from 0 to 1"))]')" '[null,true]' \
	"a score out of 0..1 is no score"

# a dead endpoint: null and an errors entry, never a score
RAG_BASE_URL=http://127.0.0.1:9/v1 complete <"$T/in.jsonl"
is "$RC" 4 "a dead endpoint: exit 4"
is "$(field p1 '[.scores.answer_completeness, (.errors | length)]')" '[null,1]' "a dead endpoint: null and one errors entry"

# no endpoint: the offline judge (.offline_ask), the share of the question's distinct content
# terms (rag_text_tokens of the question less the words that ask) among the answer's.
# e1: capital, France, population (what, is, the, of, and, its are no terms); the answer has the
# first two: 2/3. z1: 谁 and 多久 ask; 退货的运费由 承担 退款 gives the bigrams 退货 (的 cuts),
# 运费 费由, 承担, 退款; the answer's bigrams hold all but 退款: 4/5. z2: all five: 1. e0: only
# words that ask, no term to look for: null and an input error, never a score.
cat >"$T/off.jsonl" <<'EOF2'
{"id":"e1","question":"What is the capital of France and its population?","answer":"Paris is the capital of France."}
{"id":"z1","question":"退货的运费由谁承担，多久退款？","answer":"退货运费由买家承担。"}
{"id":"z2","question":"退货的运费由谁承担，多久退款？","answer":"退货运费由买家承担，七天内退款。"}
{"id":"e0","question":"What?","answer":"Paris."}
EOF2
fake_stop
_ob=$RAG_BASE_URL _ok=$RAG_API_KEY
unset RAG_BASE_URL RAG_API_KEY
complete <"$T/off.jsonl"
RAG_BASE_URL=$_ob RAG_API_KEY=$_ok
export RAG_BASE_URL RAG_API_KEY
is "$RC" 3 "offline: exit 3 (e0 has nothing to look for)"
is "$(nlines "$OUT")" 4 "offline: one line per record"
is "$(field e1 '[.scores.answer_completeness, .reasons.answer_completeness]')" \
	'[0.6667,"the answer has 2 of the question'"'"'s 3 terms; covered: capit, franc; missed: popul"]' \
	"offline, English: 2 of 3 terms, the missed one named"
is "$(field z1 '[.scores.answer_completeness, .reasons.answer_completeness]')" \
	'[0.8,"the answer has 4 of the question'"'"'s 5 terms; covered: 退货, 运费, 费由, 承担; missed: 退款"]' \
	"offline, Chinese: 4 of 5 terms, 退款 missed"
is "$(field z2 '.scores.answer_completeness')" 1 "offline, Chinese: every term covered"
is "$(field e0 '[.scores.answer_completeness, .reasons.answer_completeness, .errors[0].message]')" \
	'[null,null,"the question has no content terms to look for in the answer"]' "offline: no term, no score"
is "$(field e1 '.usage["rag-complete"].answer_completeness.judge')" '"offline"' "offline: usage names the offline judge"

run rag rag-complete --help
like "$(cat "$OUT")" 'scores.answer_completeness and its reason, reasons.answer_completeness' "--help says what it writes, from the descriptor"

# rag-eval runs it as a stage of its own
printf '%s\n' '{"id":"e1","question":"q","answer":"a"}' >"$T/e.jsonl"
run rag rag-eval -m answer_completeness --dry-run "$T/e.jsonl"
is "$RC" 0 "rag-eval -m answer_completeness --dry-run: exit 0"
like "$(cat "$OUT")" 'rag-complete' "rag-eval -m answer_completeness --dry-run: the stage is rag-complete"
done_testing
