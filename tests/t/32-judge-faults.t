#!/bin/sh
# 32-judge-faults.t - a judge that misbehaves in ways the reply check and the client must catch:
# replies that failed their check must never be cached; a claims list that is empty for a text
# that says something; the key echoed in a reply; numbers from the server that are no numbers
# (verdict ids, token counts); Retry-After and hangs against llm.deadline; a dead endpoint; and
# near-JSON replies, the JSON Schema sent as response_format, and an endpoint that refuses it.
# Everything is asserted on the output and on the fake's request log, not on the clock.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-verify" ] && [ -x "$BIN/rag-claims" ] || bail_out "bin/rag-verify or bin/rag-claims is not built: run make"

KEY=test-secret-key
cat >"$T/rag.yaml" <<'EOF'
llm:
  model: fake-judge
  timeout: 10
  retries: 1
EOF
CONF=$T/rag.yaml

# fresh [PLAN-JSON]: a new fake (empty log), with that plan
fresh() {
	printf '%s\n' "${1:-[]}" >"$T/plan.json"
	fake_start --plan "$T/plan.json"
}
# again [PLAN-JSON]: the same, on the port of the last one (the endpoint is part of a cache key)
again() {
	printf '%s\n' "${1:-[]}" >"$T/plan.json"
	fake_start --plan "$T/plan.json" --port "$FAKE_PORT"
}

# three records: claims to split (rag-claims), and claims to verify (rag-verify)
cat >"$T/in.jsonl" <<'EOF'
{"id":"a","question":"Where is the tower?","answer":"The tower is in Paris. It is 330 m tall.","contexts":["The tower is in Paris and is 330 m tall."],"claims":{"answer":["The tower is in Paris.","It is 330 m tall."]}}
{"id":"b","question":"Who built it?","answer":"Gustave Eiffel MARK built it.","contexts":["Gustave Eiffel's company built it."],"claims":{"answer":["Gustave Eiffel MARK built it."]}}
{"id":"c","question":"When?","answer":"It opened in 1889.","contexts":["It opened in 1889."],"claims":{"answer":["It opened in 1889."]}}
EOF

# ---------------------------------------------------------------- 2. no failed reply is cached
# One run in read-write mode against a server that fails record b's check, then one against a
# healthy server: the second asks again for b, and b comes out right.
cache_case() {   # cache_case NAME TOOL FIELD RULE-JSON
	_n=$1 _tool=$2 _f=$3
	export RAG_CACHE_DIR="$T/cache-$_n"
	fresh "[$4]"
	run rag "$_tool" -q -c "$CONF" --cache rw <"$T/in.jsonl"
	is "$RC" 4 "$_n: the faulty run fails record b (exit 4)"
	is "$(jq -c "select(.id == \"b\") | $_f" "$OUT")" null "$_n: b is null in the faulty run"
	again '[]'
	run rag "$_tool" -q -c "$CONF" --cache rw <"$T/in.jsonl"
	is "$RC" 0 "$_n: the healthy run after it: exit 0"
	is "$(fake_requests_matching MARK)" 1 "$_n: the healthy run asks for b again (nothing of the failure was cached)"
	is "$(jq -c "select(.id == \"b\") | $_f | type" "$OUT")" '"array"' "$_n: b has its result now"
	is "$(fake_requests)" 1 "$_n: and only b: the good replies of the first run were cached"
	unset RAG_CACHE_DIR
}
cache_case claims-length rag-claims .claims.answer '{"match": "MARK", "finish_reason": "length"}'
cache_case claims-nonjson rag-claims .claims.answer '{"match": "MARK", "content": "I would rather not say."}'
cache_case claims-types rag-claims .claims.answer '{"match": "MARK", "content": {"claims": [1, 2]}}'
cache_case verify-few rag-verify .verdicts.faithfulness '{"match": "MARK", "few": true}'
cache_case verify-length rag-verify .verdicts.faithfulness '{"match": "MARK", "finish_reason": "length"}'
cache_case verify-types rag-verify .verdicts.faithfulness '{"match": "MARK", "content": {"verdicts": [{"id": 1, "verdict": "perhaps"}]}}'

# A cache that holds a reply that does not fit (an older ragpipe cached before it checked): the
# same question goes to the endpoint again, and its good answer replaces the entry.
export RAG_CACHE_DIR="$T/cache-old"
fresh '[]'
run rag rag-claims -q -c "$CONF" --cache rw <"$T/in.jsonl"
for f in $(find "$T/cache-old" -name '*.json'); do
	jq -c '.content = "{\"claims\": 42}"' "$f" >"$f.new" && mv "$f.new" "$f"
done
again '[]'
run rag rag-claims -q -c "$CONF" --cache rw <"$T/in.jsonl"
is "$RC" 0 "damaged cache: exit 0"
is "$(fake_requests)" 3 "damaged cache: each entry that does not fit is asked again, once"
is "$(jq -c '.claims.answer | length' "$OUT" | tr '\n' ' ')" "2 1 1 " "damaged cache: the claims are right"
again '[]'
run rag rag-claims -q -c "$CONF" --cache rw <"$T/in.jsonl"
is "$(fake_requests)" 0 "damaged cache: the fresh answers replaced the entries"
unset RAG_CACHE_DIR

# ---------------------------------------------------------------- 3. no claims in a factual text
fresh '[{"match": "MARK", "content": {"claims": []}}]'
run rag rag-claims -q -c "$CONF" <"$T/in.jsonl"
is "$RC" 4 "empty claims for a factual answer: exit 4"
is "$(fake_requests_matching MARK)" 2 "empty claims for a factual answer: asked again once"
is "$(jq -c 'select(.id == "b") | .claims.answer' "$OUT")" null "empty claims for a factual answer: null, not []"
like "$(jq -r 'select(.id == "b") | .errors[0].message' "$OUT")" 'no claims' "empty claims: the error says why"
fresh '[{"match": "MARK", "content": {"claims": []}, "times": 1}]'
run rag rag-claims -q -c "$CONF" <"$T/in.jsonl"
is "$RC" 0 "empty claims once: the re-ask gets them (exit 0)"
is "$(jq -c 'select(.id == "b") | .claims.answer' "$OUT")" '["Gustave Eiffel MARK built it."]' "empty claims once: the claims of the re-ask"
printf '%s\n' '{"id":"r","question":"Who?","answer":"I don'"'"'t know."}' '{"id":"e","question":"Who?","answer":""}' >"$T/refusal.jsonl"
fresh '[{"content": {"claims": []}}]'
run rag rag-claims -q -c "$CONF" <"$T/refusal.jsonl"
is "$RC" 0 "a refusal and an empty answer may have no claims: exit 0"
is "$(jq -c '.claims.answer' "$OUT" | tr '\n' ' ')" "[] [] " "a refusal and an empty answer: []"
is "$(fake_requests)" 2 "a refusal and an empty answer: one request each, no re-ask"

# ---------------------------------------------------------------- 6. the key in a reply
export RAG_CACHE_DIR="$T/cache-key"
fresh '[{"match": "MARK", "content": {"claims": ["the key is test-secret-key", "and Bearer test-secret-key"]}}]'
run rag rag-claims -q -c "$CONF" --cache rw <"$T/in.jsonl"
is "$RC" 0 "key echoed: exit 0"
check "key echoed: no cache file holds the key" sh -c "! grep -r -q -- '$KEY' '$T/cache-key'"
check "key echoed: the output does not hold it" sh -c "! grep -q -- '$KEY' '$OUT' '$ERR'"
like "$(jq -r 'select(.id == "b") | .claims.answer[0]' "$OUT")" '^the key is \*+$' "key echoed: it is starred out"
unset RAG_CACHE_DIR

# ---------------------------------------------------------------- 9. numbers that are no numbers
fresh '[{"match": "MARK", "content": {"verdicts": [{"id": 1e10, "verdict": true, "reason": "x"}]}}]'
run rag rag-verify -q -c "$CONF" <"$T/in.jsonl"
is "$RC" 4 "verdict id 1e10: exit 4"
is "$(fake_requests_matching MARK)" 2 "verdict id 1e10: a reply problem, asked again"
like "$(jq -r 'select(.id == "b") | .errors[0].message' "$OUT")" 'verdict id 1e\+10 is not one of the statements 1-1' \
	"verdict id 1e10: the error names the id as it came"
fresh '[{"match": "MARK", "content": {"verdicts": [{"id": -3.5, "verdict": true, "reason": "x"}]}, "times": 1}]'
run rag rag-verify -q -c "$CONF" <"$T/in.jsonl"
is "$RC" 0 "verdict id -3.5 once: the re-ask fits (exit 0)"
fresh '[{"match": "MARK", "usage": {"prompt_tokens": 1e300, "completion_tokens": 5}},
        {"match": "opened", "usage": {"prompt_tokens": 10, "completion_tokens": -5}}]'
run rag rag-verify -q -c "$CONF" <"$T/in.jsonl"
is "$RC" 0 "absurd usage: the verdicts still count (exit 0)"
is "$(jq -c 'select(.id != "a") | .usage["rag-verify"].faithfulness | [.prompt_tokens, .completion_tokens, .invalid_usage]' "$OUT" | tr '\n' ' ')" \
	"[0,0,1] [0,0,1] " "absurd usage (1e300, -5): counted as missing, and said so"
is "$(jq -c 'select(.id == "a") | .usage["rag-verify"].faithfulness | has("invalid_usage")' "$OUT")" false "sane usage: no invalid_usage"

# ---------------------------------------------------------------- 10. llm.deadline
cat >"$T/deadline.yaml" <<'EOF'
llm:
  model: fake-judge
  timeout: 30
  retries: 4
  deadline: 2
EOF
fresh '[{"match": "MARK", "retry_after": 5}]'
run rag rag-verify -q -c "$T/deadline.yaml" <"$T/in.jsonl"
is "$RC" 4 "Retry-After past the deadline: exit 4"
is "$(fake_requests_matching MARK)" 1 "Retry-After 5 s, llm.deadline 2 s: no retry is made"
like "$(jq -r 'select(.id == "b") | .errors[0].message' "$OUT")" 'would pass llm.deadline \(2 s\).*429' \
	"Retry-After past the deadline: the error says so"
fresh '[{"match": "MARK", "delay_ms": 8000}]'
run rag rag-verify -q -c "$T/deadline.yaml" <"$T/in.jsonl"
is "$RC" 4 "a hang past the deadline: exit 4"
is "$(fake_requests_matching MARK)" 1 "a hang: one attempt, cut at the deadline (not llm.timeout, 30 s)"
like "$(jq -r 'select(.id == "b") | .errors[0].message' "$OUT")" 'llm.deadline \(2 s\) passed after 1 attempt' \
	"a hang past the deadline: the error says so"
fresh '[{"match": "MARK", "retry_after": 1, "times": 1}]'
run rag rag-verify -q -c "$T/deadline.yaml" <"$T/in.jsonl"
is "$RC" 0 "Retry-After within the deadline: retried, exit 0"
is "$(fake_requests_matching MARK)" 2 "Retry-After within the deadline: two attempts"

# ---------------------------------------------------------------- 11. a dead endpoint
i=0; : >"$T/forty.jsonl"
while [ $i -lt 40 ]; do
	printf '{"id":"%d","question":"Q?","answer":"Answer number %d is here."}\n' $i $i >>"$T/forty.jsonl"
	i=$((i + 1))
done
cat >"$T/dead.yaml" <<'EOF'
llm:
  model: fake-judge
  timeout: 10
  retries: 4
EOF
fresh '[{"drop": true}]'
run rag rag-claims -q -c "$T/dead.yaml" <"$T/forty.jsonl"
is "$RC" 4 "every connection dropped: exit 4"
is "$(nlines "$OUT")" 40 "every connection dropped: one line per input line"
_h=$(fake_requests)
check "every connection dropped: a few attempts ($_h), not 40 records x 5" test "$_h" -le 16
is "$(jq -r '.errors[0].message | test("^endpoint unreachable")' "$OUT" | sort -u)" true \
	"every connection dropped: every record says the endpoint is unreachable"
is "$(jq -c '.claims.answer' "$OUT" | sort -u)" null "every connection dropped: every record null"
fake_stop
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
RAG_BASE_URL=http://127.0.0.1:$PORT/v1 run rag rag-claims -q -c "$T/dead.yaml" <"$T/forty.jsonl"
is "$RC" 4 "closed port: exit 4"
is "$(nlines "$OUT")" 40 "closed port: one line per input line"
is "$(jq -r '.errors[0].message | test("^endpoint unreachable: .*(refused|connect)")' "$OUT" | sort -u)" true \
	"closed port: every record says the endpoint is unreachable, and why"
# one record of many that cannot connect: the others answer between, so no one is given up
fresh '[{"match": "MARK", "drop": true}]'
run rag rag-claims -q -c "$CONF" <"$T/in.jsonl"
is "$RC" 4 "one record dropped: exit 4"
is "$(jq -c 'select(.id != "b") | .claims.answer | length' "$OUT" | tr '\n' ' ')" "2 1 " "one record dropped: the others are judged"
unlike "$(jq -r 'select(.id == "b") | .errors[0].message' "$OUT")" 'unreachable' "one record dropped: not an unreachable endpoint"

# ---------------------------------------------------------------- 16. near-JSON and the schema
fresh '[{"match": "MARK", "content": "{'"'"'claims'"'"': ['"'"'Gustave built it.'"'"', '"'"'It is old.'"'"',]}"}]'
run rag rag-claims -q -c "$CONF" <"$T/in.jsonl"
is "$RC" 0 "a Python-style reply with a trailing comma: exit 0"
is "$(jq -c 'select(.id == "b") | .claims.answer' "$OUT")" '["Gustave built it.","It is old."]' "a Python-style reply: read"
is "$(fake_requests_matching MARK)" 1 "a Python-style reply: no re-ask"

fresh '[]'
run rag rag-claims -q -c "$CONF" <"$T/in.jsonl"
is "$(jq -c '.response_format | [.type, .json_schema.name, .json_schema.strict, (.json_schema.schema.required | join(","))]' "$FAKE_LOG" | sort -u)" \
	'["json_schema","claims",true,"claims"]' "schema: rag-claims sends the claims schema"
fresh '[]'
run rag rag-verify -q -c "$CONF" <"$T/in.jsonl"
is "$(jq -c '.response_format | [.type, .json_schema.name, .json_schema.schema.properties.verdicts.items.required]' "$FAKE_LOG" | sort -u)" \
	'["json_schema","verify",["id","verdict","reason"]]' "schema: rag-verify sends the verdicts schema"
for m in object true off false; do
	printf 'llm:\n  model: fake-judge\n  json_mode: %s\n' $m >"$T/jm.yaml"
	fresh '[]'
	run rag rag-claims -q -c "$T/jm.yaml" <"$T/in.jsonl"
	case $m in object|true) want='{"type":"json_object"}' ;; *) want=null ;; esac
	is "$(jq -c '.response_format' "$FAKE_LOG" | sort -u)" "$want" "json_mode $m: response_format $want"
done
# the cache key is the request, its response_format too
export RAG_CACHE_DIR="$T/cache-schema"
printf 'llm:\n  model: fake-judge\n  json_mode: object\n' >"$T/jm.yaml"
fresh '[]'
run rag rag-claims -q -c "$CONF" --cache rw <"$T/in.jsonl"
is "$(fake_requests)" 3 "schema: three requests"
run rag rag-claims -q -c "$CONF" --cache rw <"$T/in.jsonl"
is "$(fake_requests)" 3 "schema: found in the cache"
run rag rag-claims -q -c "$T/jm.yaml" --cache rw <"$T/in.jsonl"
is "$(fake_requests)" 6 "schema and object are two cache keys"
run rag rag-claims -q -c "$T/jm.yaml" --cache rw <"$T/in.jsonl"
is "$(fake_requests)" 6 "and each is found again"
unset RAG_CACHE_DIR
# an endpoint that refuses the schema
printf 'llm:\n  model: fake-judge\n  concurrency: 1\n' >"$T/one.yaml"
fresh '[{"match": "json_schema", "status": 400, "body": {"error": {"message": "This response_format type is unavailable now", "type": "invalid_request_error"}}}]'
run rag rag-claims -q -c "$T/one.yaml" <"$T/in.jsonl"
is "$RC" 0 "schema refused (http 400): exit 0"
is "$(jq -r '.response_format.type' "$FAKE_LOG" | tr '\n' ' ')" "json_schema json_object json_object json_object " \
	"schema refused: asked again with json_object, and json_object from then on"
# a 400 for another reason (a prompt too long) is that request's error: the schema stays
fresh '[{"match": "MARK", "status": 400, "body": {"error": {"message": "maximum context length is 8192 tokens", "type": "invalid_request_error"}}}]'
run rag rag-claims -q -c "$T/one.yaml" <"$T/in.jsonl"
is "$RC" 4 "a 400 that is not about the schema: exit 4"
is "$(jq -r '.response_format.type' "$FAKE_LOG" | tr '\n' ' ')" "json_schema json_schema json_schema " \
	"a 400 that is not about the schema: not asked again, and the schema is still sent"

done_testing
