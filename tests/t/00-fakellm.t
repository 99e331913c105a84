#!/bin/sh
# 00-fakellm.t - the fake OpenAI-compatible server (tests/fakellm.py) itself.
. "$(dirname "$0")/lib.sh"

need curl jq

# post BODY-FILE: POST to the fake; $T/resp (body), $T/hdr (headers), $T/code (HTTP code),
# $T/curlrc (curl's exit status: 52 = empty reply); prints the HTTP code.
post() {
	curl -s -o "$T/resp" -D "$T/hdr" -w '%{http_code}' --max-time 10 \
		-H 'Content-Type: application/json' -H 'Authorization: Bearer test-secret-key' \
		--data-binary @"$1" "$FAKE_URL/v1/chat/completions" >"$T/code"
	echo $? >"$T/curlrc"
	cat "$T/code"
}
content() { jq -r '.choices[0].message.content' "$T/resp"; }

# Requests in the ragpipe wire format.
verify_req() {   # verify_req MARKER FILE: three statements, the second UNSUPPORTED
	cat >"$2" <<EOF
{"model":"judge-x","temperature":0,"messages":[{"role":"system","content":"You check statements."},
{"role":"user","content":"Context:\n<<<CONTEXT-0a1b2c3d\nParis is the capital of France.\nCONTEXT-0a1b2c3d>>>\nStatements:\n<<<STATEMENTS-1234abcd\n1. Paris is the capital of France. $1\n2. UNSUPPORTED Paris has 90 million people.\n3. Paris is in Europe.\nSTATEMENTS-1234abcd>>>\nAnswer in JSON."}]}
EOF
}
claims_req() {   # claims_req TEXT FILE
	cat >"$2" <<EOF
{"model":"judge-x","messages":[{"role":"user","content":"<<<QUESTION-00000000\nWhat is Paris?\nQUESTION-00000000>>>\n<<<TEXT-9f9f9f9f\n$1\nTEXT-9f9f9f9f>>>"}]}
EOF
}

cat >"$T/plan.json" <<'EOF'
[
 {"match": "FAULT500", "status": 500, "times": 1},
 {"match": "RATE429", "status": 429, "retry_after": 1},
 {"match": "DROPCONN", "drop": true},
 {"match": "FEWVERDICTS", "few": true},
 {"match": "TRUNCATED", "finish_reason": "length"},
 {"match": "BADJSON", "body": "{not json"},
 {"match": "LITERAL", "content": "hello there"},
 {"match": "TEAPOT", "status": 418, "body": "short and stout"},
 {"match": "SLOWREPLY", "delay_ms": 300}
]
EOF
fake_start --plan "$T/plan.json"

# --- health
check "GET /health answers ok" test "$(curl -s "$FAKE_URL/health")" = ok

# --- auto verdicts
verify_req "" "$T/v.json"
is "$(post "$T/v.json")" 200 "auto verify: status 200"
is "$(content | jq -c '[.verdicts[] | [.id, .verdict]]')" '[[1,true],[2,false],[3,true]]' \
	"auto verify: one verdict per statement, UNSUPPORTED is false"
is "$(jq -r '.object, .model, .choices[0].finish_reason' "$T/resp" | tr '\n' ' ')" \
	"chat.completion judge-x stop " "auto verify: OpenAI envelope, model echoed"
check "auto verify: usage tokens are positive" \
	jq -e '.usage.prompt_tokens > 0 and .usage.completion_tokens > 0 and .usage.total_tokens == .usage.prompt_tokens + .usage.completion_tokens' "$T/resp"
like "$(tr -d '\r' <"$T/hdr" | grep -i '^content-length:')" '^[Cc]ontent-[Ll]ength: [0-9]+$' \
	"replies carry Content-Length"

# --- auto claims
claims_req "Paris is the capital of France. It has about 2 million people! Is it big? 巴黎很美。" "$T/c.json"
post "$T/c.json" >/dev/null
is "$(content | jq -c .claims)" \
	'["Paris is the capital of France.","It has about 2 million people!","Is it big?","巴黎很美。"]' \
	"auto claims: sentences of the TEXT block"
claims_req "I don't know." "$T/c2.json"
post "$T/c2.json" >/dev/null
is "$(content | jq -c .claims)" '[]' "auto claims: a refusal gives []"

# --- unknown prompt
printf '%s' '{"model":"m","messages":[{"role":"user","content":"hello"}]}' >"$T/u.json"
is "$(post "$T/u.json")" 200 "unknown prompt: status 200"
is "$(content | jq -r .error)" "fake: unknown prompt" "unknown prompt: error content"

# --- a re-ask (assistant reply + a plain user message appended) is answered from the block
jq -c '.messages += [{"role":"assistant","content":"oops"},{"role":"user","content":"Your reply did not fit. Answer again."}]' "$T/v.json" >"$T/reask.json"
post "$T/reask.json" >/dev/null
is "$(content | jq -c '[.verdicts[].id]')" '[1,2,3]' "re-ask: verdicts from the last user message holding a block"

# --- 500 with times:1, then success
verify_req "FAULT500" "$T/f500.json"
is "$(post "$T/f500.json")" 500 "500 rule: first request gets 500"
check "500 rule: OpenAI-style error body" jq -e '.error.message' "$T/resp"
is "$(post "$T/f500.json")" 200 "500 rule with times:1: second request succeeds"
is "$(content | jq '.verdicts | length')" 3 "500 rule: the success is an auto reply"

# --- 429 carries Retry-After
verify_req "RATE429" "$T/r.json"
is "$(post "$T/r.json")" 429 "429 rule: status 429"
is "$(tr -d '\r' <"$T/hdr" | grep -i '^retry-after:' | sed 's/^[^:]*: *//')" 1 "429 rule: Retry-After: 1"

# --- drop
verify_req "DROPCONN" "$T/d.json"
_c=$(post "$T/d.json")
is "$(cat "$T/curlrc")" 52 "drop: curl sees an empty reply (exit 52)"
is "$_c" 000 "drop: no HTTP status at all"
check "drop: server still alive afterwards" test "$(curl -s "$FAKE_URL/health")" = ok

# --- few
verify_req "FEWVERDICTS" "$T/few.json"
post "$T/few.json" >/dev/null
is "$(content | jq -c '[.verdicts[].id]')" '[1,2]' "few: the last verdict is removed"

# --- finish_reason length
verify_req "TRUNCATED" "$T/len.json"
post "$T/len.json" >/dev/null
is "$(jq -r '.choices[0].finish_reason' "$T/resp")" length "length: finish_reason is length"
check "length: content is cut (not valid JSON)" sh -c '! jq -r ".choices[0].message.content" "$1" | jq . >/dev/null 2>&1' sh "$T/resp"

# --- raw body, literal content, status+body
verify_req "BADJSON" "$T/bj.json"
is "$(post "$T/bj.json")" 200 "body rule: status 200"
is "$(cat "$T/resp")" "{not json" "body rule: the raw body is sent"
verify_req "LITERAL" "$T/lit.json"
post "$T/lit.json" >/dev/null
is "$(content)" "hello there" "content rule: literal assistant content"
verify_req "TEAPOT" "$T/tea.json"
is "$(post "$T/tea.json")" 418 "status+body rule: the status"
is "$(cat "$T/resp")" "short and stout" "status+body rule: the body"

# --- delay_ms
verify_req "SLOWREPLY" "$T/slow.json"
_t=$(curl -s -o /dev/null -w '%{time_total}' -H 'Content-Type: application/json' \
	--data-binary @"$T/slow.json" "$FAKE_URL/v1/chat/completions")
check "delay_ms rule: reply takes >= 0.3 s (took $_t)" awk -v t="$_t" 'BEGIN { exit !(t >= 0.28) }'

# --- /chat/completions without /v1
_c=$(curl -s -o "$T/resp" -w '%{http_code}' --data-binary @"$T/v.json" "$FAKE_URL/chat/completions")
is "$_c" 200 "/chat/completions is accepted too"

# --- log
_n=$(fake_requests)
is "$_n" 16 "log: one line per request"
check "log: every line is JSON with n, path, auth, body, rule, t" \
	jq -se 'all(.[]; has("n") and has("path") and has("auth") and has("body") and has("rule") and has("t"))' "$FAKE_LOG"
is "$(jq -r 'select(.body | tostring | contains("FAULT500")) | .rule' "$FAKE_LOG" | tr '\n' ' ')" \
	"0 null " "log: rule index, then null once times is used up"
is "$(head -n 1 "$FAKE_LOG" | jq -r '.auth')" "Bearer test-secret-key" "log: auth header recorded"
is "$(jq -r 'select(.path == "/chat/completions") | .auth' "$FAKE_LOG")" null "log: missing auth is null"
is "$(head -n 1 "$FAKE_LOG" | jq -r '.body.model')" "judge-x" "log: body is parsed JSON"
is "$(fake_requests_matching RATE429)" 1 "fake_requests_matching counts by body substring"

# --- a non-JSON request body is logged raw
curl -s -o /dev/null --data-binary 'plain words' "$FAKE_URL/v1/chat/completions"
is "$(tail -n 1 "$FAKE_LOG" | jq -r '.body')" "plain words" "log: a non-JSON body is kept as a string"

# --- connection reuse (HTTP/1.1 keep-alive): two requests on one curl invocation
_out=$(curl -s -v -o /dev/null -o /dev/null --data-binary @"$T/v.json" \
	"$FAKE_URL/v1/chat/completions" "$FAKE_URL/v1/chat/completions" 2>&1)
# curl 7.88 (Debian 12) says "Re-using existing connection", 8.14 (Debian 13) "Re-using existing
# http: connection", older ones "Reusing existing connection"
like "$_out" 'Re-?using existing (https?: )?connection' "keep-alive: the connection is reused"

# --- latency
fake_start --latency-ms 150
_t=$(curl -s -o "$T/resp" -w '%{time_total}' --data-binary @"$T/v.json" "$FAKE_URL/v1/chat/completions")
check "--latency-ms 150: reply takes >= 100 ms (took $_t s)" awk -v t="$_t" 'BEGIN { exit !(t >= 0.1) }'
is "$(content | jq '.verdicts | length')" 3 "--latency-ms: reply still correct"
_t=$(curl -s -o /dev/null -w '%{time_total}' "$FAKE_URL/health")
check "--latency-ms does not delay /health (took $_t s)" awk -v t="$_t" 'BEGIN { exit !(t < 0.1) }'

# --- port file and --max-seconds
_pf=$T/ms.port
python3 "$TOP/tests/fakellm.py" --port-file "$_pf" --max-seconds 1 >/dev/null 2>&1 &
_pid=$!
_i=0; while [ ! -s "$_pf" ] && [ $_i -lt 100 ]; do sleep 0.05; _i=$((_i + 1)); done
like "$(cat "$_pf" 2>/dev/null)" '^[0-9]+$' "--port-file holds the port number"
_i=0; while kill -0 "$_pid" 2>/dev/null && [ $_i -lt 60 ]; do sleep 0.1; _i=$((_i + 1)); done
if kill -0 "$_pid" 2>/dev/null; then kill "$_pid"; tap_ok 1 "--max-seconds 1: exits by itself"
else tap_ok 0 "--max-seconds 1: exits by itself"; fi
wait "$_pid" 2>/dev/null

# --- --require-key
fake_start --require-key test-secret-key
is "$(post "$T/v.json")" 200 "--require-key: the right key passes"
_c=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer wrong' --data-binary @"$T/v.json" "$FAKE_URL/v1/chat/completions")
is "$_c" 401 "--require-key: a wrong key gets 401"

# --- the fakes and every Python script of the tree compile without a warning (Python 3.12 and
# later warn of an invalid escape such as "\w" in a plain string; 3.11 only with -W error)
_warn=
for _py in $(cd "$TOP" && find . -name '*.py' ! -path './tests/tmp/*' ! -path './.git/*'); do
	python3 -W error -c 'import sys
with open(sys.argv[1], encoding="utf-8") as f: compile(f.read(), sys.argv[1], "exec")' "$TOP/$_py" 2>"$T/pywarn" ||
		_warn="$_warn $_py: $(tail -n 1 "$T/pywarn")"
done
is "$_warn" "" "every Python file compiles with warnings as errors"

done_testing
