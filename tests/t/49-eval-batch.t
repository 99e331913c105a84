#!/bin/sh
# 49-eval-batch.t - rag-eval --batch: each judge stage's requests sent as batches through the
# batch route (the fake's /v1/files and /v1/batches), their replies fed back through the cache.
# 1,000 records through the batch route give the records of the same run without it, byte for
# byte, with no live request, as one batch a stage and in parts (llm.batch_max_requests,
# llm.batch_max_bytes: no part over them, no request in two); a batch that fails some lines and
# one that expires have those requests sent live, no record lost; a rag-eval killed while its
# batches run is resumed on the same batches, not others; the uploaded requests hold no key;
# run.json prices the batch's tokens at the batch price; Azure's routes. Every wait is on the
# fake's log or a file: a batch moves one step a look (llm.batch_poll 0), never by the clock.
. "$(dirname "$0")/lib.sh"

need jq curl
[ -x "$BIN/rag-eval" ] || bail_out "bin/rag-eval is not built: run make"

# N records: some claims unsupported, some contexts irrelevant, every third with a reference
records() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) {
		u = i % 7 == 0 ? " It is UNSUPPORTED here." : ""
		x = i % 5 == 0 ? ", \"IRRELEVANT filler " i ".\"" : ""
		r = i % 3 == 0 ? ", \"reference\": \"Item " i " is a thing in the list.\"" : ""
		printf "{\"id\": \"r%04d\", \"question\": \"What is item %d?\", \"answer\": \"Item %d is a thing. It is number %d in the list.%s\", \"contexts\": [\"Item %d is a thing.\", \"Number %d is item %d.\"%s]%s}\n", i, i, i, i, u, i, i, i, x, r
	} }'
}
METRICS=faithfulness,context_recall,context_precision
conf() {   # conf NAME CACHEDIR: a judge of the fake, the cache in CACHEDIR, batch prices
	printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\n  batch_poll: 0\ncache:\n  mode: rw\n  dir: %s\nprices:\n  judge-x:\n    input: 2\n    output: 8\n    batch_discount: 0.5\n' \
		"$2" >"$T/$1.yaml"
}
live() { jq -r 'select(.path == "/v1/chat/completions") | .n' "$FAKE_LOG" | wc -l | tr -d ' '; }
posted() { jq -r --arg p "$1" 'select(.path == $p and .method == "POST") | .n' "$FAKE_LOG" | wc -l | tr -d ' '; }
# fake_start sets RAG_CACHE=off, over the configuration's cache.mode: unset again
fake() { fake_start "$@"; RAG_CACHE=; export RAG_CACHE; }

# ---------------------------------------------------------------- 1,000 records, byte for byte
records 1000 >"$T/set.jsonl"
fake
conf plain "$T/c-plain"
conf batch "$T/c-batch"
run rag rag-eval -q -c "$T/plain.yaml" -m "$METRICS" --run-id same -o "$T/plain" "$T/set.jsonl"
is "$RC" 0 "without --batch: exit 0"
plain_live=$(live)
check "...every request sent live" test "$plain_live" -gt 2000
fake
run rag rag-eval -c "$T/batch.yaml" -m "$METRICS" --batch --run-id same -o "$T/batch" "$T/set.jsonl"
is "$RC" 0 "with --batch: exit 0"
is "$(nlines "$T/batch/records.jsonl")" 1000 "...1,000 records"
check "...byte for byte the records of the run without it" cmp "$T/plain/records.jsonl" "$T/batch/records.jsonl"
is "$(live)" 0 "...and not one request sent live"
is "$(posted /v1/batches)" 4 "...one batch a judge stage (claims, faithfulness, context recall, context precision)"
is "$(jq -s 'map(.requests) | add' "$T"/batch/batch/stage-*.json)" "$(jq -r 'select(.path | startswith("batch:")) | .n' "$FAKE_LOG" | wc -l | tr -d ' ')" \
	"...every request the stages kept answered once by a batch"
like "$(cat "$ERR")" "batch batch_fake_1 \\(rag-claims\\): in_progress, [0-9]+ of 1000 requests done, 0 failed" \
	"progress on stderr from the batch's request_counts"
like "$(cat "$ERR")" "batch batch_fake_1 \\(rag-claims\\): completed, 1000 of 1000 requests done" "...to its end"
check "the uploaded requests hold no key" sh -c "! jq -r 'select(.path == \"/v1/files\") | .body.content' '$FAKE_LOG' | grep -q test-secret-key"
check "...nor does any file the run directory keeps" sh -c "! grep -rq test-secret-key '$T/batch'"
is "$(jq -r 'select(.path == "/v1/files") | .auth' "$FAKE_LOG" | sort -u)" "Bearer test-secret-key" \
	"the key went with the upload, to the configured endpoint only"
is "$(jq -r 'select(.path == "/v1/files") | .body.content' "$FAKE_LOG" | jq -r 'keys | join(",")' | sort -u)" \
	"body,custom_id,method,url" "each uploaded line is {custom_id, method, url, body}"
# cost: the batch's tokens at half price, the rest (none here) at the list price
jq '.counts.cost' "$T/batch/run.json" >"$T/cost.json"
is "$(jq '.batch.requests' "$T/cost.json")" "$(jq -s 'map(.requests) | add' "$T"/batch/batch/stage-*.json)" \
	"run.json's cost: the batch's requests"
is "$(jq '(.batch.cost * 2 - .batch.cost_at_list_price) | fabs < 1e-9' "$T/cost.json")" true \
	"...priced at batch_discount 0.5: half the list price"
is "$(jq '(.total - ([.stages[].cost] | add) + .batch.cost_at_list_price - .batch.cost) | fabs < 1e-9' "$T/cost.json")" true \
	"...the total: the stages at the list price, less what the batch saved"
is "$(jq '.counts.cost.total < 0.6 * ([.counts.cost.stages[].cost] | add)' "$T/batch/run.json")" true \
	"...about half of what the same run costs without --batch"
is "$(jq .cost.total "$T/batch/gate.json")" "$(jq .counts.cost.total "$T/batch/run.json")" \
	"the gate's cost (gate.json, summary.md, the report): run.json's figure"
like "$(cat "$T/batch/summary.md")" "[0-9]+ requests answered by the batch route: [0-9.]+ at its price" "...said in summary.md"

# ---------------------------------------------------------------- a stage over one batch's limits
# llm.batch_max_requests 300 against a fake that refuses an upload of more (as OpenAI refuses
# one of more than 50,000): each stage's requests go as parts of at most 300, each its own file
# and batch, polled together
uploads() { jq -c 'select(.path == "/v1/files") | .body' "$FAKE_LOG"; }
fake --batch-max-lines 300
conf parts "$T/c-parts"
sed -i 's/^  batch_poll: 0$/  batch_poll: 0\n  batch_max_requests: 300/' "$T/parts.yaml"
run rag rag-eval -c "$T/parts.yaml" -m "$METRICS" --batch --run-id same -o "$T/parts" "$T/set.jsonl"
is "$RC" 0 "1,000 records, llm.batch_max_requests 300: exit 0"
check "...byte for byte the records of the run without --batch" cmp "$T/plain/records.jsonl" "$T/parts/records.jsonl"
is "$(live)" 0 "...and not one request sent live"
is "$(jq '.parts | length' "$T/parts/batch/stage-1.json")" 4 "...the claims stage's 1,000 requests in 4 parts"
is "$(jq -c '[.parts[].requests]' "$T/parts/batch/stage-1.json")" "[300,300,300,100]" "...of 300, 300, 300 and 100, in order"
want_parts=$(jq -s 'map(.requests / 300 | ceil) | add' "$T"/parts/batch/stage-*.json)
check "...every stage in parts of at most 300 ($want_parts in all)" test "$want_parts" -gt 4
is "$(posted /v1/files) $(posted /v1/batches)" "$want_parts $want_parts" "...each part one upload and one batch"
is "$(jq -s 'map(.parts | length) | add' "$T"/parts/batch/stage-*.json)" "$want_parts" "...each part kept in its stage's state"
is "$(uploads | jq -s 'map(select(.lines > 300)) | length')" 0 "...no upload over 300 requests"
is "$(uploads | jq -r .content | jq -r .custom_id | sort | uniq -d | wc -l | tr -d ' ')" 0 "...no request in two parts"
is "$(uploads | jq -r .content | jq -r .custom_id | wc -l | tr -d ' ')" "$(jq -s 'map(.requests) | add' "$T"/parts/batch/stage-*.json)" \
	"...every request the stages asked in one part"
like "$(cat "$ERR")" "batches \\(rag-claims\\), 4 parts: (1 completed, )?[0-9]* ?in_progress; [0-9]+ of 1000 requests done, 0 failed" \
	"...one progress line for the stage's parts together"
like "$(cat "$ERR")" "batches \\(rag-claims\\), 4 parts: completed; 1000 of 1000 requests done, 0 failed" "...to their end"
check "...the parts' files in the run directory" test -s "$T/parts/batch/stage-1.part-4.jsonl"
is "$(jq -r .custom_id "$T/parts/batch/stage-1.part-"[1-4].jsonl | sort | uniq -d | wc -l | tr -d ' ')" 0 "...each request in one of them"

# ---------------------------------------------------------------- a batch that fails part way
records 60 >"$T/small.jsonl"
cat >"$T/fail.json" <<'EOF'
[{"via": "batch", "match": "item 12?", "batch": "error"},
 {"via": "batch", "match": "item 31?", "status": 500}]
EOF
fake --plan "$T/fail.json"
conf p2 "$T/c-p2"
run rag rag-eval -q -c "$T/p2.yaml" -m "$METRICS" --run-id small -o "$T/small-plain" "$T/small.jsonl"
fake --plan "$T/fail.json"
conf b2 "$T/c-b2"
run rag rag-eval -c "$T/b2.yaml" -m "$METRICS" --batch --run-id small -o "$T/small-fail" "$T/small.jsonl"
is "$RC" 0 "a batch that failed some requests: exit 0"
check "...the records of the run without --batch" cmp "$T/small-plain/records.jsonl" "$T/small-fail/records.jsonl"
failed_lines=$(jq -r 'select(.path | startswith("batch:")) | select(.rule != null) | .n' "$FAKE_LOG" | wc -l | tr -d ' ')
check "...some lines failed in the batch ($failed_lines)" test "$failed_lines" -ge 2
# sent live: those, and a later stage's request that needs a reply of theirs (a record's
# faithfulness verdicts need its claims): every live request is of records 12 and 31
check "...sent live ($(live) requests)" test "$(live)" -ge "$failed_lines"
is "$(jq -r 'select(.path == "/v1/chat/completions") | .body | tostring | test("item (12|31)[?]")' "$FAKE_LOG" | sort -u)" true \
	"...every live request of the records whose requests failed"
like "$(cat "$ERR")" "requests not answered \\(the batch server_error: fake: the batch failed this request\\)|not answered \\(the batch's request answered http 500" \
	"...said on stderr, with why"
is "$(jq -s 'map(.not_answered // 0) | add' "$T"/small-fail/batch/stage-*.json)" "$failed_lines" "...and counted in the batch's state"
check "...whose error file names them" sh -c "jq -s 'map(.failed // {} | length) | add' '$T'/small-fail/batch/stage-*.json | grep -qx '$failed_lines'"

# ---------------------------------------------------------------- a bytes limit
# llm.batch_max_bytes at 22 claims requests' worth: parts within it, each a file the fake (which
# refuses a larger one) takes
line_bytes=$(jq '[.parts[].bytes] | add / 1000 | floor' "$T/parts/batch/stage-1.json")
max=$(awk -v b="$line_bytes" 'BEGIN { printf "%d", 22 * b }')
fake --batch-max-bytes "$max"
conf bytes "$T/c-bytes"
sed -i "s/^  batch_poll: 0\$/  batch_poll: 0\\n  batch_max_bytes: $max/" "$T/bytes.yaml"
run rag rag-eval -q -c "$T/bytes.yaml" -m "$METRICS" --batch --run-id small -o "$T/small-bytes" "$T/small.jsonl"
is "$RC" 0 "llm.batch_max_bytes $max: exit 0"
check "...the records of the run without --batch" cmp "$T/small-plain/records.jsonl" "$T/small-bytes/records.jsonl"
is "$(live)" 0 "...no live request"
nb=$(jq '.parts | length' "$T/small-bytes/batch/stage-1.json")
check "...the claims stage's 60 requests in parts ($nb)" test "$nb" -ge 3
is "$(uploads | jq -s --argjson m "$max" 'map(select((.content | utf8bytelength) > $m)) | length')" 0 "...no upload over $max bytes"
is "$(jq -s --argjson m "$max" 'map(.parts[] | select(.bytes > $m)) | length' "$T"/small-bytes/batch/stage-*.json)" 0 \
	"...nor any part the run directory keeps"
is "$(uploads | jq -r .content | jq -r .custom_id | sort | uniq -d | wc -l | tr -d ' ')" 0 "...no request in two parts"
sed "s/batch_max_bytes: $max/batch_max_bytes: 1024/" "$T/bytes.yaml" >"$T/tiny.yaml"
fake
run rag rag-eval -q -c "$T/tiny.yaml" -m "$METRICS" --batch --run-id small -o "$T/small-tiny" "$T/small.jsonl"
is "$RC" 2 "a request over llm.batch_max_bytes on its own: exit 2"
like "$(cat "$ERR")" "batch: a request of [0-9]+ bytes is over llm.batch_max_bytes \\(1024\\)" "...said"
is "$(posted /v1/files)" 0 "...nothing uploaded"
printf 'llm:\n  batch_max_requests: 0\n' >"$T/zero.yaml"
run rag rag-eval -q -c "$T/zero.yaml" -m "$METRICS" --batch --estimate "$T/small.jsonl"
is "$RC" 2 "llm.batch_max_requests 0: exit 2"
like "$(cat "$ERR")" "batch_max_requests" "...the key named"

# ---------------------------------------------------------------- a batch that expires
cat >"$T/expire.json" <<'EOF'
[{"via": "batch", "match": "item 20?", "batch": "expire", "times": 1}]
EOF
fake --plan "$T/expire.json" --batch-step 5
conf b3 "$T/c-b3"
run rag rag-eval -c "$T/b3.yaml" -m "$METRICS" --batch --run-id small -o "$T/small-exp" "$T/small.jsonl"
is "$RC" 0 "a batch that expired: exit 0"
check "...the records of the run without --batch" cmp "$T/small-plain/records.jsonl" "$T/small-exp/records.jsonl"
like "$(cat "$ERR")" "batch batch_fake_1 \\(rag-claims\\): expired" "...its state said"
like "$(cat "$ERR")" "batch batch_fake_1 \\(rag-claims\\) expired: [0-9]+ of 60 requests not answered \\(the batch batch_expired" \
	"...and what it left, and why"
expired=$(jq '.not_answered' "$T/small-exp/batch/stage-1.json")
check "...some requests left ($expired)" test "$expired" -gt 0
claims_live=$(jq -r 'select(.path == "/v1/chat/completions") | .body | tostring | select(contains("<<<TEXT-")) | 1' "$FAKE_LOG" | wc -l | tr -d ' ')
is "$claims_live" "$expired" "...those sent live"
is "$(live)" "$((2 * expired))" "...with the faithfulness request of each, which needs its claims; no more"

# ---------------------------------------------------------------- one part of several expires
# llm.batch_max_requests 25: the claims stage's 60 requests in 3 parts; the first part expires
# at record 20's line: its requests from there go live with a warning naming the part, the
# other parts answer theirs, no record changes
fake --plan "$T/expire.json" --batch-step 5
conf b8 "$T/c-b8"
sed -i 's/^  batch_poll: 0$/  batch_poll: 0\n  batch_max_requests: 25/' "$T/b8.yaml"
run rag rag-eval -c "$T/b8.yaml" -m "$METRICS" --batch --run-id small -o "$T/small-pexp" "$T/small.jsonl"
is "$RC" 0 "a part that expired among 3: exit 0"
check "...the records of the run without --batch" cmp "$T/small-plain/records.jsonl" "$T/small-pexp/records.jsonl"
is "$(jq -c '[.parts[] | .status]' "$T/small-pexp/batch/stage-1.json")" '["expired","completed","completed"]' \
	"...the first part expired, the others completed"
expired=$(jq '.parts[0].not_answered' "$T/small-pexp/batch/stage-1.json")
like "$(cat "$ERR")" "batch batch_fake_1 \\(rag-claims, part 1 of 3\\) expired: $expired of 25 requests not answered \\(the batch batch_expired" \
	"...said for that part, with the count and why"
is "$(jq '.not_answered' "$T/small-pexp/batch/stage-1.json")" "$expired" "...the stage's sum: that part's alone"
is "$(jq -r 'select(.path == "/v1/chat/completions") | .body | tostring | select(contains("<<<TEXT-")) | 1' "$FAKE_LOG" | wc -l | tr -d ' ')" \
	"$expired" "...those claims requests sent live"

# ---------------------------------------------------------------- a batch that fails as a whole
printf '[{"via": "batch", "match": "item 5?", "batch": "fail"}]\n' >"$T/failed.json"
fake --plan "$T/failed.json"
conf b5 "$T/c-b5"
run rag rag-eval -c "$T/b5.yaml" -m "$METRICS" --batch --run-id small -o "$T/small-failed" "$T/small.jsonl"
is "$RC" 0 "a batch refused as a whole: exit 0"
check "...the records of the run without --batch" cmp "$T/small-plain/records.jsonl" "$T/small-failed/records.jsonl"
like "$(cat "$ERR")" "batch batch_fake_1 \\(rag-claims\\) failed: 60 of 60 requests not answered \\(fake: the batch's input was refused\\)" \
	"...said, with the batch's own error"
check "...the failed batches' requests sent live" test "$(live)" -ge 60

# ---------------------------------------------------------------- killed mid-batch, resumed
fake --batch-hold
conf b4 "$T/c-b4"
"$BIN/rag-eval" -q -c "$T/b4.yaml" -m "$METRICS" --batch --run-id small -o "$T/small-res" "$T/small.jsonl" \
	>"$T/kill.out" 2>"$T/kill.err" &
pid=$!
looked() { [ "$(jq -r 'select(.method == "GET" and (.path | startswith("/v1/batches/"))) | .n' "$FAKE_LOG" | wc -l)" -ge 2 ]; }
check "rag-eval looks at its batch, which the fake holds in progress" wait_until 60 looked
kill -9 "$pid"
wait "$pid" 2>/dev/null
is "$(jq -r .parts[0].batch_id "$T/small-res/batch/stage-1.json")" batch_fake_1 "the batch's id is kept in the run directory"
is "$(jq -r .batch "$T/small-res/run.json")" true "...and run.json says the run goes by batches"
curl -s -X POST -d '{}' "$FAKE_URL/_fake/release" >/dev/null
run rag rag-eval -c "$T/b4.yaml" --resume "$T/small-res"
is "$RC" 0 "--resume: exit 0"
is "$(posted /v1/batches)" 4 "...the first stage's batch looked at again, not sent again (one batch a stage)"
is "$(posted /v1/files)" 4 "...nor its requests uploaded again"
like "$(cat "$ERR")" "batch batch_fake_1 \\(rag-claims\\): completed" "...the same batch, to its end"
check "...the records of the run without --batch" cmp "$T/small-plain/records.jsonl" "$T/small-res/records.jsonl"
is "$(live)" 0 "...with no live request"

# ---------------------------------------------------------------- a stage over the provider's limit
# the fake refuses an upload over its limit, as a provider does: a stage of 60 requests as one
# batch (llm.batch_max_requests above the provider's 25) is refused, exit 4
fake --batch-max-lines 25
conf over "$T/c-over"
run rag rag-eval -q -c "$T/over.yaml" -m "$METRICS" --batch --run-id small -o "$T/small-over" "$T/small.jsonl"
is "$RC" 4 "one batch over the provider's limit: exit 4"
like "$(cat "$ERR")" "uploading 60 requests: files: endpoint answered http 400: fake: a batch's file holds at most 25 requests" \
	"...the provider's refusal said"

# ---------------------------------------------------------------- killed while parts are in flight
# llm.batch_max_requests 25: the claims stage's 60 requests in 3 parts, all created and held
# in progress by the fake when rag-eval is killed; the third part's batch id then taken out of
# the state, as if the kill had come between its upload and its batch. --resume waits on the
# first two, creates the third (uploading nothing again), and creates nothing else twice.
fake --batch-hold
conf b7 "$T/c-b7"
sed -i 's/^  batch_poll: 0$/  batch_poll: 0\n  batch_max_requests: 25/' "$T/b7.yaml"
"$BIN/rag-eval" -q -c "$T/b7.yaml" -m "$METRICS" --batch --run-id small -o "$T/small-parts" "$T/small.jsonl" \
	>"$T/kill7.out" 2>"$T/kill7.err" &
pid=$!
all_looked() { [ "$(posted /v1/batches)" -ge 3 ] &&
	[ "$(jq -r 'select(.method == "GET" and (.path | startswith("/v1/batches/"))) | .n' "$FAKE_LOG" | wc -l)" -ge 3 ]; }
check "rag-eval looks at its 3 parts, which the fake holds in progress" wait_until 60 all_looked
kill -9 "$pid"
wait "$pid" 2>/dev/null
is "$(jq -c '[.parts[].batch_id]' "$T/small-parts/batch/stage-1.json")" '["batch_fake_1","batch_fake_2","batch_fake_3"]' \
	"the parts' batch ids are kept in the stage's state"
jq 'del(.parts[2].batch_id)' "$T/small-parts/batch/stage-1.json" >"$T/st1.json"
mv "$T/st1.json" "$T/small-parts/batch/stage-1.json"
curl -s -X POST -d '{}' "$FAKE_URL/_fake/release" >/dev/null
run rag rag-eval -c "$T/b7.yaml" --resume "$T/small-parts"
is "$RC" 0 "--resume: exit 0"
like "$(cat "$ERR")" "batch batch_fake_4 \\(rag-claims, part 3 of 3\\): 10 requests sent" "...the part not created, created"
unlike "$(cat "$ERR")" "rag-claims, part [12] of 3\\): [0-9]+ requests sent" "...the others not again"
total=$(jq -s 'map(.parts | length) | add' "$T"/small-parts/batch/stage-*.json)
is "$(posted /v1/files)" "$total" "...no part uploaded twice ($total parts)"
is "$(posted /v1/batches)" "$((total + 1))" "...one batch a part, and the third part's one more"
check "...the records of the run without --batch" cmp "$T/small-plain/records.jsonl" "$T/small-parts/records.jsonl"
is "$(live)" 0 "...with no live request"

# ---------------------------------------------------------------- Azure OpenAI's batch route
# the classic route (a deployment): files and batches under /openai/ with api-version, the key
# as api-key, the lines' url /chat/completions and their model the deployment
azure() {   # azure NAME CACHEDIR
	printf 'llm:\n  provider: azure\n  deployment: judge-dep\n  model: judge-x\n  timeout: 10\n  retries: 0\n  batch_poll: 0\ncache:\n  mode: rw\n  dir: %s\n' \
		"$2" >"$T/$1.yaml"
	RAG_BASE_URL=$FAKE_URL   # the resource's endpoint, not fake_start's /v1
}
fake --provider azure --require-key test-secret-key
azure az-plain "$T/c-az-plain"
run rag rag-eval -q -c "$T/az-plain.yaml" -m "$METRICS" --run-id small -o "$T/az-plain" "$T/small.jsonl"
is "$RC" 0 "Azure, without --batch: exit 0"
fake --provider azure --require-key test-secret-key
azure az-batch "$T/c-az-batch"
run rag rag-eval -q -c "$T/az-batch.yaml" -m "$METRICS" --batch --run-id small -o "$T/az-batch" "$T/small.jsonl"
is "$RC" 0 "Azure, with --batch: exit 0"
check "...the records of the run without it" cmp "$T/az-plain/records.jsonl" "$T/az-batch/records.jsonl"
is "$(live)" 0 "...no live request"
is "$(jq -r 'select(.method == "POST") | .path | sub("[?].*"; "")' "$FAKE_LOG" | sort -u | tr '\n' ' ')" "/openai/batches /openai/files " \
	"...its files and batches on Azure's routes"
is "$(jq -r 'select(.method == "POST") | .path | sub("^[^?]*"; "")' "$FAKE_LOG" | sort -u)" "?api-version=2024-10-21" "...with the api-version"
is "$(jq -r 'select(.method != null) | .headers["api-key"]' "$FAKE_LOG" | sort -u)" test-secret-key "...the key as api-key"
is "$(jq -r 'select(.method == "POST" and (.path | startswith("/openai/files"))) | .body.content' "$FAKE_LOG" | jq -r '[.url, .body.model] | join(" ")' | sort -u)" \
	"/chat/completions judge-dep" "...each line's url /chat/completions, its model the deployment"

# ---------------------------------------------------------------- SIGTERM while a batch runs
fake --batch-hold
conf b6 "$T/c-b6"
"$BIN/rag-eval" -q -c "$T/b6.yaml" -m "$METRICS" --batch --run-id small -o "$T/small-term" "$T/small.jsonl" \
	>"$T/term.out" 2>"$T/term.err" &
pid=$!
check "a run looks at its held batch" wait_until 60 looked
kill -TERM "$pid"
wait "$pid"
is "$?" 143 "SIGTERM while the batch runs: exit status 143"
like "$(cat "$T/term.err")" "^rag-eval: interrupted: batch batch_fake_1 is kept: --resume $T/small-term looks at it again" \
	"...and the batch kept, said with how to go on"
is "$(jq -r .parts[0].status "$T/small-term/batch/stage-1.json")" in_progress "...its last state in the run directory"

# ---------------------------------------------------------------- answers to collect
# the system under test is asked once a record (rag-collect keeps its replies in the cache
# with --batch), not once for each stage's collecting and again by the run
python3 "$TOP/tests/fakerag.py" --port 0 --port-file "$T/rag.port" --log "$T/rag.log" --max-seconds 120 \
	</dev/null >/dev/null 2>"$T/rag.err" &
ragpid=$!
check "the fake RAG service is up" wait_until 10 test -s "$T/rag.port"
awk '{ sub(/, "answer": "[^"]*", "contexts": \[[^]]*\]/, ""); print }' "$T/small.jsonl" | head -n 12 >"$T/ask.jsonl"
like "$(head -1 "$T/ask.jsonl")" '^[{]"id": "r0000", "question": "What is item 0[?]", "reference"' "records without answers"
fake
for m in plain batch; do
	conf "ask-$m" "$T/c-ask-$m"
	printf 'collect:\n  url: http://127.0.0.1:%s/ask\n' "$(cat "$T/rag.port")" >>"$T/ask-$m.yaml"
done
run rag rag-eval -q -c "$T/ask-plain.yaml" -m "$METRICS" --run-id ask -o "$T/ask-plain" "$T/ask.jsonl"
is "$RC" 0 "answers collected, without --batch: exit 0"
asked=$(nlines "$T/rag.log")
run rag rag-eval -q -c "$T/ask-batch.yaml" -m "$METRICS" --batch --run-id ask -o "$T/ask-batch" "$T/ask.jsonl"
is "$RC" 0 "answers collected, with --batch: exit 0"
is "$(($(nlines "$T/rag.log") - asked))" 12 "...the system under test asked once a record"
# the service's latency_ms is a clock's, different in any two runs
jq -c 'del(.latency_ms)' "$T/ask-plain/records.jsonl" >"$T/ask-plain.jsonl"
jq -c 'del(.latency_ms)' "$T/ask-batch/records.jsonl" >"$T/ask-batch.jsonl"
check "...the records of the run without --batch (but the service's latency_ms)" cmp "$T/ask-plain.jsonl" "$T/ask-batch.jsonl"
kill "$ragpid" 2>/dev/null
wait "$ragpid" 2>/dev/null

# ---------------------------------------------------------------- --estimate --batch
before=$(fake_requests)
run rag rag-eval -q -c "$T/b4.yaml" -m "$METRICS" --estimate "$T/small.jsonl"
cp "$OUT" "$T/est.json"
run rag rag-eval -q -c "$T/b4.yaml" -m "$METRICS" --estimate --batch "$T/small.jsonl"
is "$RC" 0 "--estimate --batch: exit 0"
is "$(jq -r .estimate.priced_at "$OUT")" batch "...priced at the batch price"
is "$(jq -n --slurpfile a "$T/est.json" --slurpfile b "$OUT" '($a[0].estimate.cost / 2 - $b[0].estimate.cost) | fabs < 1e-9')" true \
	"...half the list price's estimate (batch_discount 0.5)"
is "$(fake_requests)" "$before" "...and nothing sent"

# ---------------------------------------------------------------- what --batch needs
sed 's/mode: rw/mode: off/' "$T/b4.yaml" >"$T/off.yaml"
run rag rag-eval -q -c "$T/off.yaml" -m "$METRICS" --batch -o "$T/nocache" "$T/small.jsonl"
is "$RC" 2 "--batch with the cache off: exit 2"
like "$(cat "$ERR")" "needs cache.mode rw" "...said why"
run rag rag-eval -q -c "$T/b4.yaml" -m "$METRICS" --batch --jobs 2 -o "$T/nojobs" "$T/small.jsonl"
is "$RC" 2 "--batch with --jobs: exit 2"

done_testing
