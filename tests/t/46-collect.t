#!/bin/sh
# 46-collect.t - rag-collect against the fake RAG service (tests/fakerag.py) and local commands:
# HTTP (JSON POST with sources, an OpenAI-compatible chat endpoint, SSE streams), command mode,
# failures (null answer, errors entry, exit 4), retries and Retry-After, timeouts, a service
# without sources, secret headers, the system: section, order and bad lines, SIGINT, and the
# concurrency limit. Assertions are on the fake's log and the output, not on the clock.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-collect" ] || bail_out "bin/rag-collect is not built: run make"

FAKE_SERVER=fakerag.py
export FAKE_SERVER
SECRET=sekrit-token-4242-abcdef

collect() { run rag rag-collect "$@"; }
# requests in the fake's log whose body holds STR
reqs() { jq -c --arg m "$1" 'select((.body | tostring) | contains($m))' "$FAKE_LOG" | wc -l | tr -d ' '; }
# the most requests the fake served at once (from the start and end times it logged)
overlap() {
	jq -s '[.[] | [.t, 1], [.t_end, -1]] | add // [] | [_nwise(2)] | sort_by(.[0], .[1])
	       | reduce .[] as $e ({n: 0, max: 0}; .n += $e[1] | .max = ([.max, .n] | max)) | .max' "$FAKE_LOG"
}

cat >"$T/set.jsonl" <<'EOF'
{"id": "q1", "question": "What is the capital of France?", "reference": "Paris", "category": "geo"}
not json
{"id": "q3", "question": "谁发明了电话？", "reference": "贝尔"}
{"id": "q4", "reference": "no question here"}
{"id": "q5", "question": "How tall is Everest?", "system": {"top_k": 9}}
EOF

# ---------------------------------------------------------------- HTTP: JSON POST with sources
fresh
collect --url "$FAKE_URL/ask" <"$T/set.jsonl"
is "$RC" 3 "bad input lines: exit 3"
is "$(nlines "$OUT")" 5 "one line out per line in"
is "$(jq -r '.id // "bad"' "$OUT" | tr '\n' ' ')" "q1 bad q3 q4 q5 " "in input order, the bad line in its place"
check "answer, contexts and context_ids from the reply; status and latency_ms" jq -se '
	.[0] | .answer == "Answer to: What is the capital of France?"
	and .contexts == ["Context 30 about What is the capital of France?", "Context 31 about What is the capital of France?"]
	and .context_ids == ["doc-30", "doc-31"] and .status == 200 and (.latency_ms | type) == "number"
	and .latency_ms >= 0 and (has("errors") | not)' "$OUT"
check "every other field passes through" jq -se '.[0] | .reference == "Paris" and .category == "geo"' "$OUT"
check "a Chinese question is asked and answered as it is" jq -se '.[2] | .answer == "Answer to: 谁发明了电话？" and .contexts[0] == "Context 7 about 谁发明了电话？"' "$OUT"
check "a record without a question: answer null, an input error, no request" jq -se '
	.[3] | .answer == null and .errors[0].tool == "rag-collect" and .errors[0].message == "record has no \"question\" field"' "$OUT"
is "$(fake_requests)" 3 "one request per record with a question"
check "the request body is {question}" jq -se 'map(.body) | sort_by(.question) == ([{"question": "How tall is Everest?"}, {"question": "What is the capital of France?"}, {"question": "谁发明了电话？"}] | sort_by(.question))' "$FAKE_LOG"
like "$(cat "$ERR")" 'rag-collect: 5 records, 2 input errors, 0 service errors' "the summary line counts them"

# --strict stops at the bad line
collect --url "$FAKE_URL/ask" --strict <"$T/set.jsonl"
is "$RC" 3 "--strict: exit 3"

# ---------------------------------------------------------------- the system: section
cat >"$T/sys.yaml" <<EOF
collect:
  url: $FAKE_URL/ask
system:
  top_k: 5
  similarity_threshold: 0.7
  chunk_size: 512
  rerank: true
  model: gpt-4o-mini
  prompt_version: "3"
EOF
grep -v '^not json' "$T/set.jsonl" | grep -v q4 >"$T/good.jsonl"
collect -c "$T/sys.yaml" --system chunk_size=256 --system retriever=bm25 <"$T/good.jsonl"
is "$RC" 0 "system: exit 0"
check "system: numbers, booleans and strings as written; --system over the file" jq -se '
	.[0].system == {"top_k": 5, "similarity_threshold": 0.7, "chunk_size": 256, "rerank": true,
	                "model": "gpt-4o-mini", "prompt_version": "3", "retriever": "bm25"}' "$OUT"
check "system: a record's own system keys are kept" jq -se '.[2].system.top_k == 9 and .[2].system.chunk_size == 256' "$OUT"

# ---------------------------------------------------------------- headers: ${VAR}, secrets
printf '[{"match": "France", "echo_header": "Authorization"}, {"match": "Everest", "echo_token": true}]\n' >"$T/plan.json"
fake_start --plan "$T/plan.json"
cat >"$T/hdr.yaml" <<EOF
collect:
  url: $FAKE_URL/ask
  cache: rw
  headers:
    Authorization: Bearer \${RAG_TEST_TOKEN}
    X-Tenant: acme
EOF
RAG_TEST_TOKEN=$SECRET
export RAG_TEST_TOKEN
collect -c "$T/hdr.yaml" -v <"$T/good.jsonl"
is "$RC" 0 "headers: exit 0"
check "headers: \${VAR} expanded into the request" jq -se 'all(.[]; .headers.authorization == "Bearer '"$SECRET"'" and .headers["x-tenant"] == "acme")' "$FAKE_LOG"
check "headers: a reply quoting the header has it scrubbed" jq -se '.[0].answer | test("\\[\\*{20,}\\]$")' "$OUT"
check "headers: a reply quoting the token without its Bearer has it scrubbed" jq -se '.[2].answer | test("\\(token \\*{20,}\\)$")' "$OUT"
if grep -rl -- "$SECRET" "$OUT" "$ERR" "$XDG_CACHE_HOME" >/dev/null 2>&1; then
	tap_ok 1 "headers: the secret is in no output, message or cache file"
	grep -rl -- "$SECRET" "$OUT" "$ERR" "$XDG_CACHE_HOME" | sed 's/^/#   /'
else
	tap_ok 0 "headers: the secret is in no output, message or cache file"
fi
check "headers: the replies were cached" test "$(find "$XDG_CACHE_HOME" -type f | wc -l)" -ge 3
n0=$(fake_requests)
cp "$OUT" "$T/first.jsonl"
collect -c "$T/hdr.yaml" -v <"$T/good.jsonl"
is "$(fake_requests)" "$n0" "cache: a second run asks the service nothing"
check "cache: the same records as the first run (the latency of the call kept)" cmp "$T/first.jsonl" "$OUT"
like "$(cat "$ERR")" '3 from cache' "cache: counted with -v"
collect -c "$T/hdr.yaml" --cache replay <"$T/good.jsonl"
is "$RC:$(fake_requests)" "0:$n0" "cache replay: answered from the cache, nothing asked"
RAG_CACHE_DIR=$T/empty-cache collect -c "$T/hdr.yaml" --cache replay <"$T/good.jsonl"
is "$RC:$(fake_requests)" "4:$n0" "cache replay, an empty cache: exit 4, nothing asked"
check "cache replay, an empty cache: each answer null, the miss named" jq -se 'all(.[]; .answer == null and (.errors[0].message | test("cache miss in replay mode")))' "$OUT"
RAG_TEST_TOKEN=other-token-0000000000
collect -c "$T/hdr.yaml" <"$T/good.jsonl"
is "$(fake_requests)" "$((n0 + 3))" "cache: another token is another key"
unset RAG_TEST_TOKEN
collect -c "$T/hdr.yaml" <"$T/good.jsonl"
is "$RC" 2 "an unset \${VAR} in a header: exit 2"
like "$(cat "$ERR")" 'RAG_TEST_TOKEN' "the message names the variable"
collect --url "$FAKE_URL/ask" -H "Authorization $SECRET" <"$T/good.jsonl"
is "$RC" 2 "a malformed -H: exit 2"
unlike "$(cat "$ERR")" "$SECRET" "a malformed -H: its value is not echoed"

# ---------------------------------------------------------------- SSE and OpenAI-compatible
fresh
collect --url "$FAKE_URL/sse" <"$T/good.jsonl"
is "$RC" 0 "SSE: exit 0"
check "SSE: the answer assembled from the events, the sources from the last one" jq -se '
	.[0].answer == "Answer to: What is the capital of France?" and .[0].context_ids == ["doc-30", "doc-31"]
	and .[1].answer == "Answer to: 谁发明了电话？"' "$OUT"
fresh '[{"multiline": true, "crlf": true}]'
collect --url "$FAKE_URL/sse" <"$T/good.jsonl"
check "SSE: events over several data: lines, CR LF line ends, nothing after [DONE]" jq -se '
	.[0].answer == "Answer to: What is the capital of France?" and .[0].context_ids == ["doc-30", "doc-31"]
	and .[2].answer == "Answer to: How tall is Everest?"' "$OUT"
BODY='{model: "rag-model", messages: [{role: "user", content: .question}]}'
collect --url "$FAKE_URL/v1/chat/completions" --body "$BODY" <"$T/good.jsonl"
check "OpenAI-compatible chat: the answer from choices[0].message.content, no contexts" jq -se '
	all(.[]; (.answer | startswith("Answer to: ")) and (has("contexts") | not)) and .[0].answer == "Answer to: What is the capital of France?"' "$OUT"
collect --url "$FAKE_URL/v1/chat/completions" --body "$BODY + {stream: true}" <"$T/good.jsonl"
is "$RC" 0 "OpenAI-compatible streaming: exit 0"
check "OpenAI-compatible streaming: the deltas joined" jq -se '.[1].answer == "Answer to: 谁发明了电话？" and .[2].answer == "Answer to: How tall is Everest?"' "$OUT"
collect --url "$FAKE_URL/sse" --stream false <"$T/good.jsonl"
is "$RC" 4 "--stream false on a stream: the body is not JSON, exit 4"
# a stream cut in the middle of an event (the connection closed, no [DONE], no transport error)
# is no answer: never the text of its pieces (issue 22)
fresh '[{"match": "France", "cut_stream": true}]'
collect --url "$FAKE_URL/sse" <"$T/good.jsonl"
is "$RC" 4 "SSE cut mid-event: exit 4"
check "SSE cut mid-event: that answer null with why, the others whole" jq -se '
	(.[0] | .answer == null and (has("contexts") | not) and (.errors[0].message | test("stream was cut")))
	and .[1].answer == "Answer to: 谁发明了电话？" and (.[1] | has("errors") | not)' "$OUT"
collect --url "$FAKE_URL/v1/chat/completions" --body "$BODY + {stream: true}" <"$T/good.jsonl"
is "$RC" 4 "OpenAI-compatible stream cut mid-event: exit 4"
check "OpenAI-compatible stream cut mid-event: answer null with why, no text of its pieces" jq -se '
	(.[0] | .answer == null and (.errors[0].message | test("stream was cut")))
	and ([.[] | .answer // "" | select(test("choices"))] == [])' "$OUT"
fresh '[{"no_done": true}]'
collect --url "$FAKE_URL/sse" <"$T/good.jsonl"
is "$RC" 0 "SSE whose events end whole without [DONE]: exit 0"
check "SSE without [DONE]: each answer assembled" jq -se '.[0].answer == "Answer to: What is the capital of France?" and .[0].context_ids == ["doc-30", "doc-31"]' "$OUT"
collect --url "$FAKE_URL/v1/chat/completions" --body "$BODY + {stream: true}" <"$T/good.jsonl"
is "$RC" 4 "OpenAI's chunks without [DONE]: exit 4 (OpenAI always ends with it)"
check "OpenAI's chunks without [DONE]: each answer null, the missing [DONE] named" jq -se 'all(.[]; .answer == null and (.errors[0].message | test("DONE")))' "$OUT"
collect --url "$FAKE_URL/ask" --answer '.answer | ascii_upcase' --contexts '[.sources[].id]' --ids 'null' <"$T/good.jsonl"
check "--answer, --contexts, --ids: programs of the user's" jq -se '.[0].answer == "ANSWER TO: WHAT IS THE CAPITAL OF FRANCE?" and .[0].contexts == ["doc-30", "doc-31"] and (.[0] | has("context_ids") | not)' "$OUT"

# ---------------------------------------------------------------- failures
fresh '[{"match": "France", "status": 500}, {"match": "Everest", "body": "<html>oops</html>"}]'
collect --url "$FAKE_URL/ask" --retries 1 <"$T/good.jsonl"
is "$RC" 4 "a service failing for some records: exit 4"
is "$(nlines "$OUT")" 3 "failures: one line per record"
check "http 500: answer null (never \"\"), status 500, an errors entry, no contexts" jq -se '
	.[0] | .answer == null and .status == 500 and (has("contexts") | not)
	and .errors[0].tool == "rag-collect" and (.errors[0].message | test("http 500 after 2 attempts"))' "$OUT"
check "a reply that is not JSON: answer null and why" jq -se '.[2] | .answer == null and (.errors[0].message | test("not JSON"))' "$OUT"
check "the other record is answered" jq -se '.[1].answer == "Answer to: 谁发明了电话？" and (.[1] | has("errors") | not)' "$OUT"
is "$(reqs France)" 2 "http 500: retried once (retries 1), from the log"
like "$(cat "$ERR")" '2 service errors' "the summary counts the service errors"

# 4xx bodies of every shape (not OpenAI's {"error": {"message"}}): no crash, each record null
# with a short clean quote of the body, the token quoted in one starred out (issue 22)
fresh '[{"match": "France", "status": 404, "ctype": "text/html", "body": "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body><h1>404 Not Found</h1>\u0007</body></html>"},
	{"match": "电话", "status": 401, "body": {"error": "invalid token {{token}}"}},
	{"match": "Everest", "status": 422, "body": {"detail": [{"msg": "field required"}]}},
	{"match": "empty", "status": 400, "body": []}]'
printf '%s\n' '{"id":"e","question":"empty?"}' >"$T/good4.jsonl"
cat "$T/good.jsonl" "$T/good4.jsonl" >"$T/bodies.jsonl"
collect --url "$FAKE_URL/ask" -H "Authorization: Bearer $SECRET" <"$T/bodies.jsonl"
is "$RC" 4 "4xx bodies of any shape: exit 4 (no abort)"
is "$(nlines "$OUT")" 4 "4xx bodies: one line per record"
check "4xx bodies: each answer null with the body quoted, on one clean line" jq -se '
	[.[] | .answer == null and (.errors[0].message | test("[\u0000-\u001f]") | not) and (.errors[0].message | length) < 300] == [true, true, true, true]
	and (.[0].errors[0].message | test("http 404: 404 Not Found 404 Not Found$"))
	and (.[1].errors[0].message | test("http 401: invalid token \\*+$"))
	and (.[2].errors[0].message | test("http 422: .*field required"))
	and (.[3].errors[0].message | test("http 400: \\[\\]$"))' "$OUT"
unlike "$(cat "$OUT" "$ERR")" "$SECRET" "4xx bodies: the token quoted back is starred out"

fresh '[{"match": "France", "retry_after": 1, "times": 1}]'
collect --url "$FAKE_URL/ask" <"$T/good.jsonl"
is "$RC" 0 "429 with Retry-After, then success: exit 0"
is "$(reqs France)" 2 "Retry-After: asked twice"
check "Retry-After: the retry waited the second it was told (fake's log)" jq -se '
	[.[] | select(.body.question | test("France"))] | (.[1].t - .[0].t_end) >= 0.9' "$FAKE_LOG"

fresh '[{"match": "France", "no_sources": true}, {"match": "Everest", "empty_sources": true}]'
collect --url "$FAKE_URL/ask" <"$T/good.jsonl"
is "$RC" 0 "a service that returns no sources: exit 0"
check "no sources: the answer, and no contexts or context_ids" jq -se '.[0] | .answer != null and (has("contexts") | not) and (has("context_ids") | not)' "$OUT"
check "sources []: contexts []" jq -se '.[2].contexts == [] and (.[2] | has("context_ids") | not)' "$OUT"

fresh '[{"match": "France", "delay_ms": 4000}]'
collect --url "$FAKE_URL/ask" --timeout 0.5 --retries 0 <"$T/good.jsonl"
is "$RC" 4 "a slow reply past --timeout: exit 4"
check "slow reply: answer null, a timeout named" jq -se '.[0].answer == null and (.[0].errors[0].message | test("[Tt]imeout|timed out"))' "$OUT"
check "slow reply: the others answered" jq -se '.[1].answer != null and .[2].answer != null' "$OUT"

fresh '[{"match": "Everest", "drop": true}]'
collect --url "$FAKE_URL/ask" --retries 1 <"$T/good.jsonl"
is "$RC" 4 "a dropped connection: exit 4"
check "dropped: answer null and an error" jq -se '.[2].answer == null and (.[2].errors | length) == 1' "$OUT"
check "dropped: retried (curl may also resend once on a dropped reused connection)" test "$(reqs Everest)" -ge 2

fresh '[{"match": "France", "cut_body": true}]'
collect --url "$FAKE_URL/ask" --retries 1 <"$T/good.jsonl"
is "$RC" 4 "a body cut short: exit 4"
check "cut body: answer null and an error, the others answered" jq -se '.[0].answer == null and (.[0].errors | length) == 1 and .[1].answer != null' "$OUT"

printf '[{"match": "France", "status": 401, "echo_header": "Authorization"}]\n' >"$T/plan.json"
fake_start --plan "$T/plan.json"
collect --url "$FAKE_URL/ask" -H "Authorization: Bearer $SECRET" <"$T/good.jsonl"
is "$RC" 4 "http 401: exit 4, not retried"
is "$(reqs France)" 1 "http 401: one request (a 4xx other than 408, 409, 429 is final)"
check "http 401: status 401, the service's message with the token starred out" jq -se '
	.[0] | .status == 401 and .answer == null and (.errors[0].message | test("http 401: bad credentials: \\*+$"))' "$OUT"
unlike "$(cat "$OUT" "$ERR")" "$SECRET" "http 401: the token the service quoted is in no output or message"

# ---------------------------------------------------------------- concurrency
fresh
fake_start --latency-ms 300
for i in 1 2 3 4 5 6 7 8; do printf '{"id": %d, "question": "question %d"}\n' "$i" "$i"; done >"$T/eight.jsonl"
collect --url "$FAKE_URL/ask" -j 2 <"$T/eight.jsonl"
is "$RC" 0 "-j 2: exit 0"
is "$(overlap)" 2 "-j 2: at most 2 requests at once, and 2 were (fake's log)"
is "$(jq -r .id "$OUT" | tr '\n' ' ')" "1 2 3 4 5 6 7 8 " "-j 2: in input order"
collect --url "$FAKE_URL/ask" -j 8 <"$T/eight.jsonl"
check "-j 8: more than 2 at once" test "$(overlap)" -gt 2

# ---------------------------------------------------------------- config errors
collect --url "$FAKE_URL/ask" --command cat <"$T/good.jsonl"
is "$RC" 2 "--url and --command: exit 2"
collect <"$T/good.jsonl"
is "$RC" 2 "no system to call: exit 2"
like "$(cat "$ERR")" 'collect.url or collect.command' "no system: says what to set"
collect --url "$FAKE_URL/ask" --answer '.answer |||' <"$T/good.jsonl"
is "$RC" 2 "an answer program that does not compile: exit 2"
like "$(cat "$ERR")" 'collect.answer: the jq program does not compile' "the bad program is named"
collect --url "$FAKE_URL/ask" --answer '.missing' <"$T/good.jsonl"
is "$RC" 4 "an answer program that finds nothing: exit 4"
check "no answer in the reply: null and why" jq -se 'all(.[]; .answer == null and (.errors[0].message | test("no answer")))' "$OUT"

# ---------------------------------------------------------------- command mode
CMD='jq -c "{answer: (\"cmd: \" + .question), sources: [{id: \"c1\", text: (.id + \" context\")}]}"'
collect --command "$CMD" <"$T/set.jsonl"
is "$RC" 3 "command: bad lines give exit 3 (and nothing else fails)"
is "$(nlines "$OUT")" 5 "command: one line per line"
check "command: the record on stdin, the answer and contexts from its JSON object, status 0" jq -se '
	.[0].answer == "cmd: What is the capital of France?" and .[0].contexts == ["q1 context"] and .[0].context_ids == ["c1"]
	and .[0].status == 0 and .[2].answer == "cmd: 谁发明了电话？" and .[3].answer == "cmd: "' "$OUT"
collect --command 'if grep -q France; then echo "no index for this" >&2; exit 7; fi; echo "{\"answer\": \"ok\"}"' <"$T/good.jsonl"
is "$RC" 4 "command: a non-zero exit: exit 4"
check "command: a non-zero exit gives answer null, status 7 and its last stderr line" jq -se '
	.[0] | .answer == null and .status == 7 and (.errors[0].message | test("status 7: no index for this"))' "$OUT"
check "command: the others answered" jq -se '.[1].answer == "ok" and .[2].answer == "ok"' "$OUT"
collect --command 'echo loading; echo "{\"answer\": \"last line\"}"' <"$T/good.jsonl"
check "command: log lines before the object are skipped" jq -se 'all(.[]; .answer == "last line")' "$OUT"
collect --command 'echo not json' <"$T/good.jsonl"
check "command: no JSON object: answer null and why" jq -se 'all(.[]; .answer == null and (.errors[0].message | test("no JSON object")))' "$OUT"

# a hung command is killed, with what it started, at the timeout
collect --command 'sh -c "echo \$\$ >>'"$T"'/hung.pids; exec sleep 60" & echo $! >>'"$T"'/hung.pids; wait' --timeout 0.5 <"$T/good.jsonl"
is "$RC" 4 "command: hung commands, timeout 0.5 s: exit 4"
check "command: hung: answer null, killed past collect.timeout" jq -se 'all(.[]; .answer == null and (.errors[0].message | test("collect.timeout")))' "$OUT"
# gone within 2 s (a killed process may take a moment to be reaped by init)
alive_of() {
	_i=0
	while [ $_i -lt 40 ]; do
		alive=0
		for p in $(sort -u "$1"); do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
		[ "$alive" = 0 ] && break
		sleep 0.05
		_i=$((_i + 1))
	done
	echo "$alive"
}
is "$(alive_of "$T/hung.pids")" 0 "command: hung: no process of theirs is left (their process group was killed)"

# a command that answers and exits, leaving a child in the background that holds its standard
# output (one that ignores SIGTERM too): the answer is what it printed when it exited, taken then,
# not after collect.timeout (100 s here; the tool is stopped after 30); the children are ended
: >"$T/bg.pids"
_rto=${RAG_TEST_TIMEOUT:-120}
RAG_TEST_TIMEOUT=30
cat >"$T/bg.sh" <<'EOF'
echo '{"answer": "right away"}'
sleep 1000 &
echo $! >>"$1"
sh -c 'trap "" TERM; echo $$ >>"$1"; exec sleep 1000' sh "$1" &
until grep -qx "$!" "$1"; do :; done
EOF
collect --timeout 100 --command "sh $T/bg.sh $T/bg.pids" <"$T/good.jsonl"
RAG_TEST_TIMEOUT=$_rto
is "$RC" 0 "command: exits, a child left holding its stdout: exit 0, at once"
check "command: the answer it printed when it exited, no error" jq -se '
	length == 3 and all(.[]; .answer == "right away" and .status == 0 and .errors == null)' "$OUT"
is "$(nlines "$T/bg.pids")" 6 "command: each left two children (their pids noted)"
is "$(alive_of "$T/bg.pids")" 0 "command: the children left in the background are ended"

# the concurrency limit: each command notes its start and end, and ends only once two have
# started (or 10 s have passed, for a tool that ran one at a time): two overlap however slowly
# a busy machine starts them
: >"$T/cc.log"
collect -j 2 --command 'echo start >>'"$T"'/cc.log; i=0; while [ "$(grep -c start '"$T"'/cc.log)" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done; echo end >>'"$T"'/cc.log; echo "{\"answer\": \"x\"}"' <"$T/eight.jsonl"
is "$RC" 0 "command -j 2: exit 0"
is "$(awk '/start/ {n++; if (n > m) m = n} /end/ {n--} END {print m}' "$T/cc.log")" 2 "command -j 2: at most 2 at once, and 2 were"
is "$(jq -r .id "$OUT" | tr '\n' ' ')" "1 2 3 4 5 6 7 8 " "command -j 2: in input order"

# ---------------------------------------------------------------- SIGINT
: >"$T/int.started"
"$BIN/rag-collect" -j 3 --command 'echo $$ >>'"$T"'/int.started; exec sleep 60' <"$T/eight.jsonl" >"$T/int.out" 2>"$T/int.err" &
pid=$!
i=0
while [ "$(nlines "$T/int.started")" -lt 3 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT "$pid"
wait "$pid"
is "$?" 130 "SIGINT with commands running: exit 130"
n=$(nlines "$T/int.out")
check "SIGINT: one line per record read ($n), in order" jq -se --argjson n "$n" '
	length == $n and $n >= 3 and (map(.id) == [range(1; $n + 1)])' "$T/int.out"
check "SIGINT: each answer null, with an error saying why" jq -se 'all(.[]; .answer == null and (.errors[0].message | test("interrupted")))' "$T/int.out"
is "$(alive_of "$T/int.started")" 0 "SIGINT: the commands were killed"

# and with HTTP calls in flight (the fake answers after 5 s)
: >"$T/arrivals"
fake_start --latency-ms 5000 --arrivals "$T/arrivals"
"$BIN/rag-collect" -j 4 --url "$FAKE_URL/ask" <"$T/eight.jsonl" >"$T/int2.out" 2>"$T/int2.err" &
pid=$!
# the fake notes a request as it arrives, before its latency: four there are four in flight
four_in_flight() { [ "$(nlines "$T/arrivals")" -ge 4 ]; }
wait_until 60 four_in_flight
kill -INT "$pid"
wait "$pid"
is "$?" 130 "SIGINT with HTTP calls in flight: exit 130"
check "SIGINT, HTTP: all 8 lines, in order, each answer null and why" jq -se '
	map(.id) == [range(1; 9)] and all(.[]; .answer == null and (.errors[0].message | test("interrupted")))' "$T/int2.out"

done_testing
