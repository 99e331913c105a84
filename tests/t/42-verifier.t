#!/bin/sh
# 42-verifier.t - rag-verify --mode claim | claim_chunk (verify.mode): a dedicated fact-checking
# model (MiniCheck and the like) asked one claim at a time, or one claim and chunk at a time, for
# a bare Yes or No in plain text.
#
# Against the fake LLM (tests/fakellm.py: a request with a <<<CLAIM- block gets the plain text
# "Yes", or "No" when the claim contains "UNSUPPORTED" or the document "IRRELEVANT"): the number
# of requests, what each carries (no response_format, max_tokens 4, the claim and the document
# fenced), the verdicts and their reasons, the reading of the reply (the first word, English or
# Chinese) and its re-ask, and the offline fallback.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-verify" ] || bail_out "bin/rag-verify is not built: run make"

judge_config
verify() { run rag rag-verify -c "$CONF" "$@"; }
feed() { printf '%s\n' "$1" >"$T/in"; shift; "$@" <"$T/in"; }
JQDEF='def lu: [.body.messages[] | select(.role == "user")] | first | .content;
def claim: lu | capture("<<<CLAIM-(?<n>[0-9a-f]+)\n(?<c>.*)\nCLAIM-") | .c;'
reqs() { jq -r "$JQDEF $1" "$FAKE_LOG"; }
verdicts() { jq -c "[.verdicts.faithfulness[] | $1]" "$OUT"; }

A='Einstein was born in Ulm in 1879.'
B='IRRELEVANT: the price of bread rose last year.'
REC="{\"id\":\"r1\",\"question\":\"Where was Einstein born?\",\"contexts\":[\"$A\",\"$B\"],\"claims\":{\"answer\":[\"Einstein was born in Ulm.\",\"UNSUPPORTED Einstein was born in Paris.\",\"Einstein was born in 1879.\"]}}"
# the chunk that supports the claims second, so the reason names chunk 2
REC2="{\"id\":\"r2\",\"question\":\"Where was Einstein born?\",\"contexts\":[\"$B\",\"$A\"],\"claims\":{\"answer\":[\"Einstein was born in Ulm.\",\"UNSUPPORTED Einstein was born in Paris.\"]}}"

# ---------------------------------------------------------------- the default: batched
fresh
feed "$REC" verify
is "$RC,$(fake_requests)" "0,1" "default mode (batched): one request for three claims"
is "$(jq -r '.response_format.type' "$FAKE_LOG")" json_schema "...with a JSON Schema"

# ---------------------------------------------------------------- claim: one request per claim
fresh
feed "$REC" verify --mode claim
is "$RC" 0 "--mode claim: exit 0"
is "$(fake_requests)" 3 "--mode claim: one request per claim (3)"
is "$(jq -c 'select(.response_format != null)' "$FAKE_LOG" | wc -l | tr -d ' ')" 0 "...none with a response_format: a plain-text reply"
is "$(jq -r '.body.max_tokens' "$FAKE_LOG" | sort -u)" 4 "...max_tokens 4 (verify.verifier_max_tokens)"
is "$(reqs 'claim' | sort | tr '\n' '|')" "Einstein was born in 1879.|Einstein was born in Ulm.|UNSUPPORTED Einstein was born in Paris.|" \
	"...each with one claim, fenced"
is "$(reqs 'lu | [match("<<<DOCUMENT-"; "g")] | length' | sort -u)" 1 "...and one document"
like "$(jq -r 'select(.n == 1) | '"$JQDEF"' lu' "$FAKE_LOG" | tr '\n' ' ')" "$A" "...that holds the first context"
like "$(jq -r 'select(.n == 1) | '"$JQDEF"' lu' "$FAKE_LOG" | tr '\n' ' ')" "IRRELEVANT: the price" "...and the second: all contexts are the document"
like "$(jq -r 'select(.n == 1) | .body.messages[0].content' "$FAKE_LOG" | tr '\n' ' ')" 'Answer with one word: Yes or No' "the system prompt asks for Yes or No"
# the fake says No to any document holding IRRELEVANT: all three claims No here
is "$(verdicts .verdict)" '[false,false,false]' "--mode claim: a document the fake calls IRRELEVANT: No for each claim"
is "$(verdicts .reason)" '["verifier: No","verifier: No","verifier: No"]' "...reasons \"verifier: No\""
is "$(jq -c '.scores.faithfulness' "$OUT")" 0 "...faithfulness 0"
is "$(jq -r '.usage["rag-verify"].faithfulness.calls' "$OUT")" 3 "usage counts 3 calls"
fresh
feed "{\"question\":\"Where?\",\"contexts\":[\"$A\"],\"claims\":{\"answer\":[\"Einstein was born in Ulm.\",\"UNSUPPORTED Paris.\"]}}" verify --mode claim
is "$(verdicts '[.verdict, .reason]')" '[[true,"verifier: Yes"],[false,"verifier: No"]]' "--mode claim: Yes and No, in claim order"
is "$(jq -c '.scores.faithfulness' "$OUT")" 0.5 "...faithfulness 0.5"
unlike "$(cat "$OUT")" '"chunks"' "...and no per-chunk answers"

# --batch-chars: the contexts split into groups; a claim is supported when any group says Yes
LA="$A He was the first child of Hermann and Pauline Einstein, of a Jewish family."
LB="$B Bakers blamed the cost of flour and of the fuel for their ovens."
fresh
feed "{\"question\":\"Where?\",\"contexts\":[\"$LB\",\"$LA\"],\"claims\":{\"answer\":[\"Einstein was born in Ulm.\",\"UNSUPPORTED Paris.\"]}}" verify --mode claim --batch-chars 100
is "$(fake_requests)" 4 "--mode claim --batch-chars 100: one request per claim and context group (2 x 2)"
is "$(verdicts '[.verdict, .reason]')" '[[true,"verifier: Yes (context 2)"],[false,"verifier: No (contexts 1-2)"]]' \
	"...a Yes from any group supports the claim, and the reason names that group"

# ---------------------------------------------------------------- claim_chunk
fresh
feed "$REC2" verify --mode claim_chunk
is "$RC,$(fake_requests)" "0,4" "--mode claim_chunk: one request per claim and chunk (2 x 2)"
is "$(reqs 'lu | [match("<<<DOCUMENT-"; "g")] | length' | sort -u)" 1 "...each with one chunk as the document"
is "$(verdicts '[.verdict, .reason]')" '[[true,"verifier: Yes (chunk 2)"],[false,"verifier: No (chunks 1-2)"]]' \
	"...supported when a chunk says Yes, the reason names the first such chunk"
is "$(verdicts .chunks)" '[[false,true],[false,false]]' "...and verdicts carry what each chunk said, in retrieval order"
# all chunks are asked even after a Yes: the count does not depend on the order of answers
fresh
feed "{\"question\":\"Where?\",\"contexts\":[\"$A\",\"$A Again.\",\"$A Once more.\"],\"claims\":{\"answer\":[\"Einstein was born in Ulm.\"]}}" verify --mode claim_chunk
is "$(fake_requests)" 3 "claim_chunk: each chunk asked even after the first said Yes (3 requests for 1 claim)"
is "$(verdicts .reason)" '["verifier: Yes (chunk 1)"]' "...the reason names chunk 1"

# verify.mode in the config; the flag wins over it
printf 'verify:\n  mode: claim_chunk\n  verifier_max_tokens: 8\n' >>"$CONF"
fresh
feed "$REC2" verify
is "$(fake_requests),$(jq -r '.body.max_tokens' "$FAKE_LOG" | sort -u)" "4,8" "verify.mode: claim_chunk in the config: 4 requests, verify.verifier_max_tokens 8"
fresh
feed "$REC2" verify --mode batched
is "$(fake_requests)" 1 "--mode batched overrides the config: 1 request"
judge_config

# --literal still applies: a claim found in a context is not asked
fresh
feed "{\"question\":\"Where?\",\"contexts\":[\"$A\"],\"claims\":{\"answer\":[\"Einstein was born in Ulm in 1879.\",\"UNSUPPORTED Paris.\"]}}" verify --mode claim --literal
is "$(fake_requests)" 1 "--literal with --mode claim: the literal claim is not asked (1 request)"
is "$(verdicts .reason)" '["found literally in context 1","verifier: No"]' "...its reason says so"

# no claims, no contexts: no request, as in batched mode
fresh
feed '{"question":"Q?","contexts":["x"],"claims":{"answer":[]}}' verify --mode claim
is "$RC,$(fake_requests),$(jq -c '[.scores.faithfulness, .not_applicable.faithfulness]' "$OUT")" \
	'0,0,[null,"the answer makes no checkable claim"]' "no claims: no request, faithfulness not applicable"

# ---------------------------------------------------------------- reading the reply
# one_reply CONTENT: $GOT, the verdict of one claim when the verifier answers CONTENT (not in a
# subshell: the fake it starts must be this shell's)
one_reply() {
	fresh "[{\"content\": \"$1\"}]"
	feed "{\"question\":\"Where?\",\"contexts\":[\"$A\"],\"claims\":{\"answer\":[\"Einstein was born in Ulm.\"]}}" verify --mode claim
	GOT=$(jq -c '.verdicts.faithfulness | if . == null then null else .[0].verdict end' "$OUT")
}
one_reply 'yes.'; is "$GOT" true "a reply \"yes.\": supported"
one_reply '**Yes**, it says so'; is "$GOT" true "\"**Yes**, it says so\": supported"
one_reply 'NO'; is "$GOT" false "\"NO\": unsupported"
one_reply 'No, the document says Ulm'; is "$GOT" false "\"No, the document says Ulm\": unsupported"
one_reply '是'; is "$GOT" true "\"是\": supported"
one_reply '否。'; is "$GOT" false "\"否。\": unsupported"
one_reply '不支持'; is "$GOT" false "\"不支持\": unsupported"
one_reply 'Maybe'; is "$GOT" null "\"Maybe\" (twice): null"
is "$RC" 4 "...exit 4"
is "$(fake_requests)" 2 "...after one re-ask"
like "$(jq -r '.errors[0].message' "$OUT")" 'the reply begins with "Maybe", not Yes or No' \
	"...the error names the reply's first word"
is "$(jq -r 'select(.n == 2) | .body.messages | length' "$FAKE_LOG")" 4 "the re-ask carries the reply and the problem"
like "$(jq -r 'select(.n == 2) | .body.messages[3].content' "$FAKE_LOG")" 'Answer again with only: Yes or No' "...asking for Yes or No only"
one_reply 'Yesterday'; is "$GOT" null "\"Yesterday\" is no Yes: null"
# a first reply that does not fit, then the fake's own Yes
fresh '[{"content": "I think so", "times": 1}]'
feed "{\"question\":\"Where?\",\"contexts\":[\"$A\"],\"claims\":{\"answer\":[\"Einstein was born in Ulm.\"]}}" verify --mode claim
is "$RC,$(fake_requests),$(verdicts .verdict)" "0,2,[true]" "\"I think so\", then Yes: supported after one re-ask"
# a reply cut at max_tokens is read from its first word
fresh '[{"content": "Yes, the document states it", "finish_reason": "length"}]'
feed "{\"question\":\"Where?\",\"contexts\":[\"$A\"],\"claims\":{\"answer\":[\"Einstein was born in Ulm.\"]}}" verify --mode claim
is "$RC,$(fake_requests),$(verdicts .verdict)" "0,1,[true]" "a reply cut off at max_tokens (finish_reason length) after Yes: supported, no error"
# an endpoint failure: null and an error for the record, one line out
fresh '[{"status": 500}]'
feed "$REC2" verify --mode claim_chunk
is "$RC,$(nlines "$OUT"),$(jq -c '.scores.faithfulness' "$OUT")" "4,1,null" "http 500: exit 4, one line, faithfulness null"
is "$(jq -r '.errors | length' "$OUT")" 1 "...one errors entry for the record, not one per request"

# ---------------------------------------------------------------- Chinese
fresh
feed '{"question":"爱因斯坦出生在哪里？","contexts":["爱因斯坦1879年出生于乌尔姆。"],"claims":{"answer":["爱因斯坦出生于乌尔姆。"]}}' verify --mode claim
is "$RC,$(verdicts '[.verdict, .reason]')" '0,[[true,"verifier: Yes"]]' "Chinese record: supported"
like "$(jq -r '.body.messages[0].content' "$FAKE_LOG")" '事实核查模型' "...asked with the Chinese verifier prompt"
like "$(reqs claim)" '爱因斯坦出生于乌尔姆。' "...the claim fenced"

# ---------------------------------------------------------------- offline, misuse
fake_stop
run env -u RAG_BASE_URL -u RAG_API_KEY "$BIN/rag-verify" --mode claim <"$T/in"
is "$RC" 0 "offline with --mode claim: exit 0"
like "$(cat "$ERR")" 'notice: verify.mode claim needs a verifier model at an LLM endpoint; the offline judge checks the claims instead' \
	"...a notice says the offline judge checks the claims instead"
is "$(jq -c '.verdicts.faithfulness[0].verdict' "$OUT")" true "...and it does"
verify --mode nope <"$T/in"
is "$RC,$(wc -c <"$OUT" | tr -d ' ')" "2,0" "--mode nope: exit 2, nothing on stdout"
like "$(cat "$ERR")" 'mode must be batched, claim or claim_chunk' "...the message names the modes"
verify --chunks --mode claim <"$T/in"
is "$RC" 2 "--chunks --mode claim: exit 2 (chunks are not claims)"
printf 'verify:\n  mode: claims\n' >"$T/bad.yaml"
run rag rag-verify -c "$T/bad.yaml" <"$T/in"
is "$RC" 2 "verify.mode: claims (a typo) in the config: exit 2"
like "$(cat "$ERR")" 'must be one of batched, claim, claim_chunk' "...naming the choices"

done_testing
