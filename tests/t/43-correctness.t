#!/bin/sh
# 43-correctness.t - rag-verify --metric answer_correctness (RAGAS): the answer's claims judged
# against the reference's (TP, FP) and back (FN) in one request, the factual F1 weighted with
# the similarity of the two texts; and the one-request paths: context recall (the reference's
# sentences when the record has no claims.reference) and faithfulness (--one-request: claims and
# verdicts from one reply).
#
# Against the fake LLM (tests/fakellm.py: a statement of one list is true exactly when the other
# list has the same statement; its /v1/embeddings gives bag-of-words vectors): the worked example
# of ../shared/testdata/ragas_docs/answer_correctness.md, the parts written, the weights, the
# similarity taken from rag-embsim when the record has it, not applicable without a reference,
# re-ask and failure, Chinese; the request counts from the fake's log.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-verify" ] || bail_out "bin/rag-verify is not built: run make"

judge_config
feed() { printf '%s\n' "$1" >"$T/in"; shift; "$@" <"$T/in"; }
ac() { run rag rag-verify -c "$CONF" --metric answer_correctness "$@"; }
chat() { jq -c 'select(.path | endswith("chat/completions"))' "$FAKE_LOG" | wc -l | tr -d ' '; }
emb() { jq -c 'select(.path | endswith("embeddings"))' "$FAKE_LOG" | wc -l | tr -d ' '; }
num() { jq -r "($1) * 1000000 | round" "$OUT"; }

# The worked example: "Einstein was born in Spain in 1879." against "Einstein was born in 1879
# in Germany.": TP [born in 1879], FP [born in Spain], FN [born in Germany]; F1 0.5.
EX='{"id":"ex","question":"Where and when was Einstein born?","answer":"Einstein was born in Spain in 1879.","reference":"Einstein was born in 1879 in Germany.","claims":{"answer":["Einstein was born in Spain.","Einstein was born in 1879."],"reference":["Einstein was born in 1879.","Einstein was born in Germany."]}}'

# ---------------------------------------------------------------- the worked example
fresh
feed "$EX" ac
is "$RC" 0 "worked example: exit 0"
is "$(chat)" 1 "one chat request for both lists"
is "$(emb)" 1 "one embeddings request for the similarity (answer and reference together)"
is "$(jq -c 'select(.path | endswith("embeddings")) | .body.input' "$FAKE_LOG")" \
	'["Einstein was born in Spain in 1879.","Einstein was born in 1879 in Germany."]' "...of the answer and the reference"
is "$(jq -c '.parts.answer_correctness | [.tp, .fp, .fn, .factual]' "$OUT")" '[1,1,1,0.5]' "TP 1, FP 1, FN 1: factual F1 0.5"
is "$(jq -c '[.verdicts.answer_correctness[] | [.source, .class]]' "$OUT")" \
	'[["answer","fp"],["answer","tp"],["reference","covered"],["reference","fn"]]' "per claim: fp (Spain), tp (1879), covered (1879), fn (Germany)"
is "$(jq -r '.verdicts.answer_correctness[3].claim' "$OUT")" 'Einstein was born in Germany.' "...each verdict names its claim"
is "$(jq -r '.verdicts.answer_correctness[0].reason' "$OUT")" 'fake: not in the reference' "...with the judge's reason"
check "the similarity is a number in (0, 1), from the embedder" \
	jq -e '.parts.answer_correctness | (.similarity > 0 and .similarity < 1 and .similarity_from == "embedder")' "$OUT"
is "$(num '.scores.answer_correctness')" "$(num '0.75 * 0.5 + 0.25 * .parts.answer_correctness.similarity')" \
	"scores.answer_correctness = 0.75 x 0.5 + 0.25 x similarity"
is "$(jq -c '.parts.answer_correctness.weights' "$OUT")" '[0.75,0.25]' "the weights are written with the parts"
is "$(jq -r '.usage["rag-verify"].answer_correctness.calls' "$OUT")" 1 "usage.rag-verify.answer_correctness counts the one call"
like "$(jq -r 'select(.path | endswith("chat/completions")) | .body.messages[1].content' "$FAKE_LOG")" '<<<ANSWER_STATEMENTS-' \
	"the request fences the answer's statements"
like "$(jq -r 'select(.path | endswith("chat/completions")) | .body.messages[1].content' "$FAKE_LOG")" '<<<REFERENCE_STATEMENTS-' \
	"...and the reference's"
is "$(jq -r 'select(.path | endswith("chat/completions")) | .response_format.json_schema.name' "$FAKE_LOG")" correctness \
	"...with the correctness JSON Schema"

# the similarity of rag-embsim --pair answer,reference, when the record has it: no embedding
fresh
feed "$(printf '%s' "$EX" | jq -c '.scores.semantic_similarity = 0.8')" ac
is "$(chat),$(emb)" "1,0" "scores.semantic_similarity in the record: no embeddings request"
is "$(num '.scores.answer_correctness')" 575000 "...0.75 x 0.5 + 0.25 x 0.8 = 0.575"
is "$(jq -r '.parts.answer_correctness.similarity_from' "$OUT")" rag-embsim "...similarity_from says where it came from"

# weights
fresh
feed "$EX" ac --weights 1,0
is "$(chat),$(emb)" "1,0" "--weights 1,0: no similarity asked"
is "$(jq -c '[.scores.answer_correctness, .parts.answer_correctness.similarity]' "$OUT")" '[0.5,null]' "...the score is the F1, the similarity null"
fresh
feed "$(printf '%s' "$EX" | jq -c '.scores.semantic_similarity = 0.8')" ac --weights 1,1
is "$(num '.scores.answer_correctness')" 650000 "--weights 1,1: the plain mean (0.5 + 0.8) / 2"
printf 'verify:\n  factual_weight: 0.5\n  similarity_weight: 0.5\n' >>"$CONF"
fresh
feed "$(printf '%s' "$EX" | jq -c '.scores.semantic_similarity = 0.9')" ac
is "$(num '.scores.answer_correctness')" 700000 "verify.factual_weight and similarity_weight 0.5 in the config: 0.7"
judge_config
ac --weights 0,0 <"$T/in"
is "$RC,$(wc -c <"$OUT" | tr -d ' ')" "2,0" "--weights 0,0: exit 2, nothing on stdout"
ac --weights 0.75 <"$T/in"
is "$RC" 2 "--weights 0.75 (one number): exit 2"
ac --weights ,0.25 <"$T/in"
is "$RC" 2 "--weights ,0.25 (the first number missing): exit 2"
run rag rag-verify -c "$CONF" --weights 1,0 <"$T/in"
is "$RC" 2 "--weights without --metric answer_correctness: exit 2"

# ---------------------------------------------------------------- without claims: sentences
fresh
feed '{"question":"Where was Einstein born?","answer":"Einstein was born in Spain in 1879.","reference":"Einstein was born in 1879. Einstein was born in Germany."}' ac --weights 1,0
is "$RC,$(chat)" "0,1" "no claims in the record: the texts' sentences, one request"
is "$(jq -c '[.verdicts.answer_correctness[] | .claim]' "$OUT")" \
	'["Einstein was born in Spain in 1879.","Einstein was born in 1879.","Einstein was born in Germany."]' "...one answer sentence, two reference sentences"
is "$(jq -c '.parts.answer_correctness | [.tp, .fp, .fn]' "$OUT")" '[0,1,2]' "...judged as statements"

# a refusal: no answer claim, every reference claim missed, no request
fresh
feed '{"question":"Where?","answer":"I don'"'"'t know.","reference":"In Ulm.","claims":{"answer":[],"reference":["Einstein was born in Ulm."]}}' ac --weights 1,0
is "$RC,$(chat),$(jq -c '[.scores.answer_correctness, .parts.answer_correctness.fn]' "$OUT")" "0,0,[0,1]" \
	"no answer claims: no request, F1 0, the reference claim a false negative"

# ---------------------------------------------------------------- not applicable, input errors
fresh
feed '{"id":"noref","question":"Where?","answer":"In Ulm."}' ac
is "$RC,$(chat),$(emb)" "0,0,0" "no reference: exit 0, no request"
is "$(jq -c '[.scores.answer_correctness, .not_applicable.answer_correctness, .errors]' "$OUT")" \
	'[null,"no reference answer",null]' "...scores null, not_applicable says why, no errors entry"
like "$(cat "$ERR")" '1 not applicable' "...the summary counts it as not applicable"
feed '{"question":"Where?","answer":"In Ulm.","reference":42}' ac
is "$RC,$(jq -c '[.scores.answer_correctness, .not_applicable]' "$OUT")" "3,[null,null]" "a reference that is a number: an input error (exit 3), not \"not applicable\""
fresh
feed '{"question":"Where?","reference":"In Ulm."}' ac
is "$RC,$(chat)" "3,0" "no answer: an input error, exit 3, no request"
feed '{"question":"Where?","answer":"In Ulm.","reference":"In Ulm.","claims":{"answer":null}}' ac
is "$RC,$(jq -c '.scores.answer_correctness' "$OUT")" "0,null" "claims.answer null (the claims stage failed): null, counted upstream"

# ---------------------------------------------------------------- the reply
fresh '[{"content": {"answer": [{"id": 1, "verdict": true, "reason": "x"}, {"id": 2, "verdict": true, "reason": "x"}]}, "times": 1}]'
feed "$EX" ac --weights 1,0
is "$RC,$(chat)" "0,2" "a reply without the reference list: asked again once, then scored"
like "$(jq -r 'select(.n == 2) | .body.messages[3].content' "$FAKE_LOG")" 'reference' "...the re-ask names what was missing"
fresh '[{"content": {"answer": [], "reference": []}}]'
feed "$EX" ac --weights 1,0
is "$RC,$(chat),$(jq -c '[.scores.answer_correctness, .verdicts.answer_correctness]' "$OUT")" "4,2,[null,null]" \
	"a reply with no verdicts, twice: null, exit 4"
like "$(jq -r '.errors[0].message' "$OUT")" 'answer: expected 2 verdicts' "...the error names the list"

# ---------------------------------------------------------------- Chinese
fresh
feed '{"question":"爱因斯坦出生在哪里？","answer":"爱因斯坦出生于西班牙。","reference":"爱因斯坦出生于德国。","claims":{"answer":["爱因斯坦出生于西班牙。"],"reference":["爱因斯坦出生于德国。"]}}' ac --weights 1,0
is "$RC,$(jq -c '.parts.answer_correctness | [.tp, .fp, .fn]' "$OUT")" "0,[0,1,1]" "Chinese: fp and fn"
like "$(jq -r 'select(.path | endswith("chat/completions")) | .body.messages[0].content' "$FAKE_LOG")" '参考答案' \
	"...asked with the Chinese prompt"

# ---------------------------------------------------------------- offline
fake_stop
run env -u RAG_BASE_URL -u RAG_API_KEY "$BIN/rag-verify" --metric answer_correctness <"$T/in"
is "$RC" 0 "offline (judge and embedder): exit 0"
check "offline: a number, the parts, similarity from the offline embedder" \
	jq -e '(.scores.answer_correctness | type) == "number" and .parts.answer_correctness.similarity_from == "embedder"' "$OUT"
is "$(grep -c notice "$ERR")" 1 "offline: one notice (the judge's), not a second for the embedder"

# ---------------------------------------------------------------- context recall in one request
CR='{"id":"cr","question":"Where and when was Einstein born?","reference":"Einstein was born in Ulm. UNSUPPORTED He was born in 1900.","contexts":["Einstein was born in Ulm in 1879."]}'
fresh
feed "$CR" run rag rag-verify -c "$CONF" --metric context_recall
is "$RC,$(fake_requests)" "0,1" "context recall without claims.reference: one request per record"
is "$(jq -c '[.verdicts.context_recall[] | [.claim, .verdict]]' "$OUT")" \
	'[["Einstein was born in Ulm.",true],["UNSUPPORTED He was born in 1900.",false]]' "...the reference's sentences, judged"
is "$(jq -c '.scores.context_recall' "$OUT")" 0.5 "...context recall 0.5"
like "$(jq -r '.body.messages[1].content' "$FAKE_LOG")" '<<<STATEMENTS-' "...with the statements fenced as in the two-stage path"
printf '%s\n%s\n%s\n' "$CR" "$CR" "$CR" | jq -c '.id = "cr\(input_line_number)"' >"$T/three.jsonl"
fresh
run rag rag-verify -c "$CONF" --metric context_recall <"$T/three.jsonl"
is "$(fake_requests),$(nlines "$OUT")" "3,3" "three records: three requests (against 2 each for rag-claims --from reference | rag-verify)"
# a sentence without content words (the "No." that answers a yes/no question) is no statement
fresh
feed '{"id":"yn","question":"Does the R7 support Wi-Fi 7?","reference":"No. The R7 supports Wi-Fi 6, not Wi-Fi 7.","contexts":["The R7 supports Wi-Fi 6. It does not support Wi-Fi 7."]}' \
	run rag rag-verify -c "$CONF" --metric context_recall
is "$(jq -c '[.verdicts.context_recall[] | .claim]' "$OUT")" '["The R7 supports Wi-Fi 6, not Wi-Fi 7."]' \
	"the reference's sentences: a bare No. is left out"
feed '{"id":"yn","question":"Does the R7 support Wi-Fi 7?","reference":"No.","contexts":["The R7 supports Wi-Fi 6."]}' \
	run rag rag-verify -c "$CONF" --metric context_recall
is "$(jq -c '[.verdicts.context_recall[] | .claim]' "$OUT")" '["No."]' "...but kept when it is all the reference says"
# with claims.reference: the two-stage path, the claims as they are
fresh
feed "$(printf '%s' "$CR" | jq -c '.claims.reference = ["Einstein was born in Ulm."]')" run rag rag-verify -c "$CONF" --metric context_recall
is "$(jq -c '[.verdicts.context_recall[] | .claim]' "$OUT")" '["Einstein was born in Ulm."]' "claims.reference present: those claims are judged"
# --claims reference given: the claims are required
feed "$CR" run rag rag-verify -c "$CONF" --metric context_recall --claims reference
is "$RC" 3 "--claims reference with no claims.reference: an input error (exit 3)"
like "$(jq -r '.errors[0].message' "$OUT")" 'run rag-claims --from reference first' "...that says to run rag-claims --from reference"

# ---------------------------------------------------------------- faithfulness in one request
FR='{"id":"f1","question":"Where was Einstein born?","answer":"Einstein was born in Ulm. UNSUPPORTED He was born in 1900.","contexts":["Einstein was born in Ulm in 1879."]}'
fresh
feed "$FR" run rag rag-verify -c "$CONF" --one-request
is "$RC,$(fake_requests)" "0,1" "--one-request: one request per record, no claims.answer needed"
is "$(jq -c '[.verdicts.faithfulness[] | [.claim, .verdict]]' "$OUT")" \
	'[["Einstein was born in Ulm.",true],["UNSUPPORTED He was born in 1900.",false]]' "...the claims and their verdicts from the one reply"
is "$(jq -c '.claims.answer' "$OUT")" '["Einstein was born in Ulm.","UNSUPPORTED He was born in 1900."]' "...the claims written to claims.answer"
is "$(jq -c '.scores.faithfulness' "$OUT")" 0.5 "...faithfulness 0.5"
is "$(jq -r '.response_format.json_schema.name' "$FAKE_LOG")" faithfulness "...with the faithfulness JSON Schema"
like "$(jq -r '.body.messages[1].content' "$FAKE_LOG")" '<<<ANSWER_TEXT-' "...the answer fenced"
like "$(jq -r '.body.messages[1].content' "$FAKE_LOG")" '<<<CONTEXT-' "...with the contexts"
fresh
feed "$(printf '%s' "$FR" | jq -c '.claims.answer = ["kept"]')" run rag rag-verify -c "$CONF" --one-request
is "$(jq -c '.claims.answer' "$OUT")" '["kept"]' "--one-request leaves an earlier stage's claims.answer as it was"
fresh
feed '{"question":"Where?","answer":"I don'"'"'t know.","contexts":["Einstein was born in Ulm."]}' run rag rag-verify -c "$CONF" --one-request
is "$RC,$(jq -c '[.verdicts.faithfulness, .scores.faithfulness, .not_applicable.faithfulness]' "$OUT")" \
	'0,[[],null,"the answer makes no checkable claim"]' "--one-request, a refusal: no claims, faithfulness not applicable (not 1)"
fresh '[{"content": {"claims": []}}]'
feed "$FR" run rag rag-verify -c "$CONF" --one-request
is "$RC,$(fake_requests),$(jq -c '.scores.faithfulness' "$OUT")" "4,2,null" \
	"--one-request: no claims for an answer that says something, twice: null, exit 4"
fresh '[{"content": {"claims": [{"claim": "Einstein was born in Ulm.", "verdict": "perhaps", "reason": "x"}]}, "times": 1}]'
feed "$FR" run rag rag-verify -c "$CONF" --one-request
is "$RC,$(fake_requests)" "0,2" "--one-request: a verdict that is no verdict is asked again once"
fresh
feed '{"question":"Where?","answer":"Einstein was born in Ulm.","contexts":[]}' run rag rag-verify -c "$CONF" --one-request
is "$RC,$(jq -c '[.verdicts.faithfulness[].reason, .scores.faithfulness]' "$OUT")" '0,["no contexts were retrieved",0]' \
	"--one-request, no contexts: the claims alone, unsupported"
like "$(jq -r '.body.messages[1].content' "$FAKE_LOG")" '<<<TEXT-' "...asked with the claims prompt"
feed "$FR" run rag rag-verify -c "$CONF" --one-request --metric context_recall
is "$RC" 2 "--one-request --metric context_recall: exit 2"
fake_stop
run env -u RAG_BASE_URL -u RAG_API_KEY "$BIN/rag-verify" -q --one-request <"$T/in"
is "$RC,$(jq -c '[.verdicts.faithfulness[].verdict]' "$OUT")" "0,[true,false]" "--one-request offline: the offline claims and verdicts (Ulm yes, 1900 no)"

# a required text missing or mistyped: the one wording of every tool (record.c), then what needs it
printf '%s\n' '{"reference":"Paris.","contexts":["c"]}' '{"answer":7,"reference":"Paris.","contexts":["c"]}' >"$T/noans"
run env -u RAG_BASE_URL -u RAG_API_KEY "$BIN/rag-verify" -q --metric answer_correctness <"$T/noans"
is "$RC,$(jq -c '.errors[0].message' "$OUT" | tr '\n' ' ')" \
	'3,"record has no \"answer\" field: answer_correctness judges the answer against the reference" "field \"answer\" is number, not a string: answer_correctness judges the answer against the reference" ' \
	"answer_correctness without an answer: which field, missing or not a string, and why it is needed"
run env -u RAG_BASE_URL -u RAG_API_KEY "$BIN/rag-verify" -q --one-request <"$T/noans"
is "$RC,$(jq -c '.errors[0].message' "$OUT" | head -1)" \
	'3,"record has no \"answer\" field: --one-request splits the answer into claims"' "--one-request without an answer: the same wording"

done_testing
