#!/bin/sh
# 82-serve.t - rag-serve over a store of two runs: the JSON API (the runs, filtered and paged; a
# run; its records paged; the test sets), the page's files, and its security: a public address
# without a token refused, the token (bearer, one-time login link), Host checked, cross-origin
# and CSRF-less writes refused, path traversal and oversized bodies rejected, a store's
# password never shown, SIGTERM stops it. The port is read from its stderr line (--listen
# 127.0.0.1:0); no test waits on the clock.
. "$(dirname "$0")/lib.sh"
need jq curl
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
EX=$TOP/share/examples/example.jsonl
DB=$T/store.db
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"

# two runs: A (3 records, label v1, commit aaaa...), B (5 records, label v2, with a test set)
head -n 3 "$EX" | rag rag-kw -q -c "$T/c.yaml" >"$T/a.jsonl"
head -n 5 "$EX" | rag rag-kw -q -c "$T/c.yaml" >"$T/b.jsonl"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" --run-id A --label v1 --commit aaaa1111 add - <"$T/a.jsonl"
is "$RC:$(cat "$OUT")" 0:A "run A added"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" --run-id B --label v2 --commit bbbb2222 add - <"$T/b.jsonl"
is "$RC:$(cat "$OUT")" 0:B "run B added"
head -n 4 "$EX" >"$T/set.jsonl"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" testset import "$T/set.jsonl" --name qa
is "$RC" 0 "a test set imported"

trap 'serve_stop; pg_stop; _lib_cleanup' EXIT
# get PATH [CURL ARGS...]: the body into $OUT, the status into $CODE
get() {
	_p=$1; shift
	CODE=$(curl -s --path-as-is -o "$OUT" -w '%{http_code}' "$@" "$URL${_p#/}")
}

serve_start --store "$DB"
check "it says the URL it serves" test -n "$URL"

# ---------------------------------------------------------------- the API
get /api/runs
is "$CODE" 200 "GET /api/runs"
is "$(jq -c '[.total, [.runs[].run]]' "$OUT")" '[2,["B","A"]]' "two runs, newest first"
is "$(jq -c '.runs[] | select(.run == "A") | [.label, .commit, .n]' "$OUT")" '["v1","aaaa1111",3]' "run A's label, commit, records"
want=$(jq -s '[.[].scores.keyword_overlap] | add / length * 1e6 | round / 1e6' "$T/b.jsonl")
is "$(jq '.runs[] | select(.run == "B") | .means.keyword_overlap * 1e6 | round / 1e6' "$OUT")" "$want" \
	"run B's mean is the mean of its records"
get '/api/runs?label=v1'
is "$(jq -c '[.total, [.runs[].run]]' "$OUT")" '[1,["A"]]' "filter: label"
get '/api/runs?commit=bbbb'
is "$(jq -c '[.runs[].run]' "$OUT")" '["B"]' "filter: commit prefix"
get '/api/runs?since=2000-01-01&until=2999-12-31'
is "$(jq .total "$OUT")" 2 "filter: a date range holding both"
get '/api/runs?until=2000-01-01'
is "$(jq -c '[.total, .runs]' "$OUT")" '[0,[]]' "filter: a date range holding none"
get '/api/runs?limit=1&offset=1'
is "$(jq -c '[.total, .offset, .limit, [.runs[].run]]' "$OUT")" '[2,1,1,["A"]]' "runs paged: the second page of one"
get '/api/runs?limit=0'
is "$CODE:$(jq -r .error "$OUT")" '400:limit: a whole number from 1 to 500' "a bad limit: 400 and why"
get "/api/runs?since=x'or'1"
is "$CODE" 400 "a since that is no date: 400"
get /api/runs/B
is "$CODE" 200 "GET /api/runs/B"
is "$(jq -c '[.run, .label, .n, .records_with_errors]' "$OUT")" '["B","v2",5,0]' "run B's summary"
get /api/runs/nope
is "$CODE" 404 "an unknown run: 404"
get '/api/runs/B/records?offset=2&limit=2'
is "$CODE" 200 "GET a run's records, page 2"
is "$(jq -c '[.total, .offset, [.records[].seq], [.records[].id]]' "$OUT")" \
	"[5,2,[3,4],$(sed -n 3,4p "$T/b.jsonl" | jq -s -c '[.[].id]')]" "records 3-4 of 5, by id as added"
is "$(jq -c '.records[0].record' "$OUT")" "$(sed -n 3p "$T/b.jsonl" | jq -c .)" "a record as it was added"
get '/api/runs/B/records?offset=4&limit=50'
is "$(jq -c '[.records[].seq]' "$OUT")" '[5]' "the last page"
get /api/testsets
is "$(jq -c '[.testsets[] | [.name, [.versions[] | [.version, .n]]]]' "$OUT")" '[["qa",[[1,4]]]]' "the test sets and their versions"
get /api/session
is "$CODE" 200 "GET /api/session"
CSRF=$(jq -r .csrf "$OUT")
like "$CSRF" '^[0-9a-f]{64}$' "a CSRF token for the page"
get /api/nothing
is "$CODE" 404 "an unknown API path: 404"

# ---------------------------------------------------------------- the page
get /
is "$CODE" 200 "GET / serves the page"
check "the page is share/serve/index.html" cmp -s "$OUT" "$TOP/share/serve/index.html"
get /serve.js
is "$CODE" 200 "its script"
CODE=$(curl -s -o /dev/null -D "$T/h" -w '%{http_code}' "$URL")
like "$(tr -d '\r' <"$T/h" | grep -i '^content-security-policy:')" "script-src 'self'" "a Content-Security-Policy: no inline script"

# ---------------------------------------------------------------- security
get /../../../etc/passwd
like "$CODE" '^(400|404)$' "../ in the path: refused"
unlike "$(cat "$OUT")" 'root:' "and nothing outside was read"
get /%2e%2e/%2e%2e/etc/passwd
like "$CODE" '^(400|404)$' "%2e%2e in the path: refused"
get /.hidden.html
is "$CODE" 400 "a hidden file: refused"
get /api/runs -H 'Host: evil.example:80'
is "$CODE" 403 "a foreign Host header (DNS rebinding): 403"
get /api/x -X POST -H "Origin: http://evil.example" -H "X-CSRF-Token: $CSRF" --data '{}'
is "$CODE" 403 "a POST from a foreign Origin: 403"
get /api/x -X POST --data '{}'
is "$CODE" 403 "a POST with neither Origin nor Referer: 403"
get /api/x -X POST -H "Origin: http://$HOSTPORT" --data '{}'
is "$CODE:$(jq -r .error "$OUT")" '403:a write without its CSRF token' "a POST without the CSRF token: 403"
get /api/x -X POST -H "Origin: http://$HOSTPORT" -H 'X-CSRF-Token: 0000' --data '{}'
is "$CODE" 403 "a POST with a wrong CSRF token: 403"
get /api/x -X POST -H "Origin: http://$HOSTPORT" -H "X-CSRF-Token: $CSRF" --data '{}'
is "$CODE" 404 "same origin and the token: past the checks (no such path)"
head -c 70000 /dev/zero | tr '\0' x >"$T/big"
get /api/x -X POST -H "Origin: http://$HOSTPORT" -H "X-CSRF-Token: $CSRF" --data-binary @"$T/big"
is "$CODE" 413 "a body over 64 KiB: 413"
get /api/x -X POST -H "Origin: http://$HOSTPORT" -H "X-CSRF-Token: $CSRF" -H 'Transfer-Encoding: chunked' --data-binary @"$T/big"
is "$CODE" 413 "a chunked body over 64 KiB: 413"

# ---------------------------------------------------------------- review marks
# post METHOD-less BODY: a mark on run B from this page's origin with its CSRF token
post() {
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "Origin: http://$HOSTPORT" -H "X-CSRF-Token: $CSRF" \
		-H 'Content-Type: application/json' --data "$1" "${URL}api/runs/${2:-B}/marks")
}
post '{"seq":1,"metric":"keyword_overlap","verdict":true,"who":"ana","comment":"right, \"quoted\", two\nlines"}'
is "$CODE:$(jq -c '[.seq, .label, .who]' "$OUT")" '200:[1,1,"ana"]' "a mark: record 1 right"
post '{"seq":2,"metric":"keyword_overlap","verdict":false,"who":"ana"}'
is "$CODE" 200 "a mark: record 2 wrong"
post '{"seq":3,"metric":"keyword_overlap","label":0.2,"who":"ana"}'
is "$CODE" 200 "a mark: record 3 a score"
post '{"seq":3,"metric":"keyword_overlap","label":0.6,"who":"ana"}'
is "$CODE" 200 "record 3 marked again by the same reviewer"
post '{"seq":4,"metric":"keyword_overlap","verdict":true,"who":"bo"}'
is "$CODE" 200 "another reviewer, record 4"
post '{"seq":99,"metric":"keyword_overlap","verdict":true,"who":"ana"}'
is "$CODE" 404 "a record the run does not have: 404"
post '{"seq":1,"metric":"keyword_overlap","verdict":true,"who":"ana"}' nope
is "$CODE" 404 "a run not there: 404"
post '{"seq":1,"metric":"keyword_overlap","verdict":true}'
is "$CODE:$(jq -r .error "$OUT")" '400:"who": a text of 1 to 100 bytes (required)' "a mark without its reviewer: 400"
post '{"seq":1,"metric":"keyword_overlap","who":"ana"}'
is "$CODE" 400 "a mark without verdict or label: 400"
post '{"seq":1.5,"metric":"m","verdict":true,"who":"ana"}'
is "$CODE" 400 "a seq that is not a whole number: 400"
post 'not json'
is "$CODE" 400 "a body that is not JSON: 400"
get /api/runs/B/marks
is "$(jq -c '[.marks[] | [.seq, .id, .label, .who]]' "$OUT")" \
	"$(sed -n 1,4p "$T/b.jsonl" | jq -s -c '[.[0].id, .[1].id, .[2].id, .[3].id] as $i |
		[[1, $i[0], 1, "ana"], [2, $i[1], 0, "ana"], [3, $i[2], 0.6, "ana"], [4, $i[3], 1, "bo"]]')" \
	"the marks, one per reviewer, record and metric (the later replaces)"
like "$(jq -r '.marks[0].created' "$OUT")" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' "with when"
get '/api/runs/B/labels.csv?metric=keyword_overlap'
is "$CODE" 200 "the marks as CSV"
cp "$OUT" "$T/labels.csv"
is "$(head -n 1 "$T/labels.csv")" 'id,label,metric,who,comment,created' "a header naming id and label"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" export B
cp "$OUT" "$T/B.jsonl"
run rag rag-agree -c "$T/c.yaml" -f scores.keyword_overlap -L "$T/labels.csv" --json "$T/B.jsonl"
like "$RC" '^[01]$' "rag-agree reads the labels exported"
is "$(jq -c '[.pairs, .labels_unmatched, .labels_duplicate, .bad_labels, .without_label]' "$OUT")" '[4,0,0,0,1]' \
	"rag-agree: the 4 marks paired with their records, none unmatched or bad (the comment's quotes and line break in one cell)"
serve_stop
is "$SRC" 0 "SIGTERM: it stops, exit 0"
like "$(cat "$T/serve.err")" 'stopped \(SIGTERM\)' "and says so"

# ---------------------------------------------------------------- addresses and tokens
run rag rag-serve -c "$T/c.yaml" --store "$DB" --listen 0.0.0.0:0
is "$RC" 2 "a public address without --token-file: exit 2"
like "$(cat "$ERR")" 'not a loopback address: give --token-file' "and says why"
run rag rag-serve -c "$T/c.yaml" --store "$DB" --listen nowhere
is "$RC" 2 "--listen that is not ADDR:PORT: exit 2"
printf 'short\n' >"$T/short"
run rag rag-serve -c "$T/c.yaml" --store "$DB" --listen 0.0.0.0:0 --token-file "$T/short"
is "$RC" 2 "a token shorter than 16 characters: exit 2"
printf 's3cret-token-0123456789\n' >"$T/token"
serve_start --store "$DB" --token-file "$T/token"
get /api/runs
is "$CODE" 401 "with a token: a request without it, 401"
get /
is "$CODE" 401 "the page too"
get /api/runs -H 'Authorization: Bearer wrong-token-0123456789'
is "$CODE" 401 "a wrong bearer token: 401"
get /api/runs -H 'Authorization: Bearer s3cret-token-0123456789'
is "$CODE:$(jq .total "$OUT")" 200:2 "the bearer token: 200"
unlike "$(cat "$T/serve.err")" 's3cret-token' "the token is not in its messages"
LOGIN=$(sed -n 's/.*login link (once): //p' "$T/serve.err")
like "$LOGIN" "^${URL}login\\?code=[0-9a-f]+\$" "a one-time login link on stderr"
CODE=$(curl -s -o /dev/null -D "$T/h" -w '%{http_code}' "$LOGIN")
is "$CODE" 303 "the login link: a redirect to the page"
COOKIE=$(tr -d '\r' <"$T/h" | sed -n 's/^[Ss]et-[Cc]ookie: \(rag_session=[0-9a-f]*\);.*/\1/p')
like "$(tr -d '\r' <"$T/h" | grep -i '^set-cookie:')" 'HttpOnly; SameSite=Strict' "an HttpOnly, SameSite=Strict cookie"
get /api/runs -H "Cookie: $COOKIE"
is "$CODE" 200 "the cookie lets the browser in"
CODE=$(curl -s -o /dev/null -w '%{http_code}' "$LOGIN")
is "$CODE" 403 "the login link works once"
serve_stop
# a public address with the token: any Host (the machine's names are many), the token still needed
rm -f "$T/serve.err"
"$BIN/rag-serve" -c "$T/c.yaml" --store "$DB" --listen 0.0.0.0:0 --token-file "$T/token" 2>"$T/serve.err" &
SPID=$!
wait_until 30 grep -qs 'http://0\.0\.0\.0:[0-9]*/$' "$T/serve.err"
PORT=$(sed -n 's|.*http://0\.0\.0\.0:\([0-9]*\)/$|\1|p' "$T/serve.err" | head -n 1)
URL=http://127.0.0.1:$PORT/
get /api/runs -H 'Host: ragpipe.example.internal' -H 'Authorization: Bearer s3cret-token-0123456789'
is "$CODE" 200 "0.0.0.0 with a token: a request by another name of the machine, with the token: 200"
get /api/runs -H 'Host: ragpipe.example.internal'
is "$CODE" 401 "and without the token: 401"
serve_stop

# ---------------------------------------------------------------- a store URL's password
# a PostgreSQL URL that cannot connect: the password is not in the message
run rag rag-serve -c "$T/c.yaml" --store 'postgresql://u:pa55word-xyz@127.0.0.1:1/db'
is "$RC" 6 "a store that cannot be opened: exit 6"
unlike "$(cat "$ERR")" 'pa55word-xyz' "its password is not in the message"
# a store URL with a password in the configuration, over SQLite: nothing shows it
printf 'llm:\n  provider: offline\nstore:\n  url: sqlite://%s\n' "$DB" >"$T/s.yaml"
rm -f "$T/serve.err"
"$BIN/rag-serve" -c "$T/s.yaml" --listen 127.0.0.1:0 2>"$T/serve.err" &
SPID=$!
wait_until 30 grep -qs 'http://127\.0\.0\.1:[0-9]*/$' "$T/serve.err"
URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*/$' "$T/serve.err" | head -n 1)
get /api/info
is "$(jq -r .backend "$OUT")" sqlite "store.url from the configuration"
serve_stop

# ---------------------------------------------------------------- the run's own verdict
# issue 35 item 1: an opened run shows the verdict its gate made, with the run's whole
# configuration (rag-eval's implicit refusal threshold, gate.by_category), as stored; never
# the records gated again on a part of it. One hr record at 0.5 (by_category hr: 0.9), one
# out-of-scope case answered instead of refused, one that passes: 1 of 3 pass, exit 1.
printf '%s\n' \
	'{"id":"hr-1","category":"hr","question":"How many days of leave do employees get?","contexts":["Employees get 25 days of paid leave a year."],"answer":"Employees get 25 days of paid leave a year. The office has a gym on the roof."}' \
	'{"id":"oos-1","category":"it","expect":"refusal","question":"What is the capital of Mars?","contexts":["Olympus City is the capital of Mars."],"answer":"The capital of Mars is Olympus City."}' \
	'{"id":"it-1","category":"it","question":"What is the capital of France?","contexts":["Paris is the capital of France."],"answer":"Paris is the capital of France."}' \
	>"$T/three.jsonl"
printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  record:\n    faithfulness: 0.3\n  by_category:\n    hr:\n      faithfulness: 0.9\n  min_pass_rate: 0.5\n' >"$T/cat.yaml"
run rag rag-eval -q -c "$T/cat.yaml" -m faithfulness --run-id V -o "$T/v" --store "$T/v.db" "$T/three.jsonl"
is "$RC" 1 "rag-eval: 1 of 3 records pass, the gate fails (exit 1)"
serve_start --store "$T/v.db"
get /api/runs/V/checks
is "$(jq -c '[.pass, .decision, .exit_status, .passed, .records, .with_verdict, .pass_rate_of]' "$OUT")" '[false,"fail",1,1,3,3,3]' \
	"rag-serve: the run's stored verdict, 1 of 3 pass, exit 1 (not 3 of 3 re-gated without refusal and by_category)"
is "$(jq -r .reason "$OUT")" "$(jq -r .exit_reason "$T/v/run.json")" "rag-serve: the exit status's reason, as run.json has it"
is "$(jq -c '[.checks[0].pass, .checks[0].message]' "$OUT")" '[false,"1 of 3 records pass (33.3%; min_pass_rate 50%)"]' \
	"rag-serve: the gate's failed check first"
is "$(jq -c '[.causes[] | [.metric, .records[0].id]]' "$OUT")" '[["refusal","oos-1"],["faithfulness","hr-1"]]' \
	"rag-serve: what to fix first names both failed records, not \"No record failed\""
get /api/runs/V/records
is "$(jq -c '[.records[].passed]' "$OUT")" '[false,false,true]' "rag-serve: its records table agrees, per record"
is "$(jq -c '[.records[].cause]' "$OUT")" '["faithfulness below 0.900: 0.500 (−0.400)","refusal below 1.000: 0.000 (−1.000)",null]' \
	"rag-serve: each record that did not pass says why, as stored with the run"
get /api/runs
is "$(jq -c '.runs[0] | [.passed, .exit_status, .verdict.exit_status, .verdict.pass_rate_of]' "$OUT")" '[false,1,1,3]' \
	"rag-serve: the runs table's gate and exit status"
serve_stop
run rag rag-store --store "$T/v.db" show V
is "$(jq -c '[.verdict.decision, .verdict.exit_status, .verdict.passed, .verdict.with_verdict, (.causes | length)]' "$OUT")" \
	'["fail",1,1,3,2]' "rag-store show: the same stored verdict and causes"

# ---------------------------------------------------------------- a run's records filtered, a record whole
# issue 36 items 4-5: six hand-made records gated at faithfulness 0.5 and answer_relevancy 0.5
# per record (max_error_rate 0.2): f1 passes; f2 (faithfulness 0.2) and f6 (0.45) are below
# faithfulness; f3 below both, farthest below answer_relevancy (0.1, -0.4) its cause; f4 passes;
# f5 has an error (faithfulness null). Every expectation below is worked out from these lines.
printf '%s\n' \
	'{"id":"f1","category":"a","question":"What is Paris?","answer":"Paris is in France.","reference":"France","contexts":["Paris is the capital of France.","Lyon is in France."],"verdicts":{"context_precision":[{"chunk":"Paris is the capital of France.","verdict":true,"reason":"names Paris"},{"chunk":"Lyon is in France.","verdict":false,"reason":"about Lyon"}],"faithfulness":[{"claim":"Paris is in France","verdict":true,"reason":"context 1 says so"}]},"scores":{"faithfulness":0.9,"answer_relevancy":0.8}}' \
	'{"id":"f2","category":"a","question":"Where is Berlin?","answer":"In Germany.","scores":{"faithfulness":0.2,"answer_relevancy":0.9}}' \
	'{"id":"f3","category":"b","question":"Tokyo?","answer":"Japan.","scores":{"faithfulness":0.4,"answer_relevancy":0.1}}' \
	'{"id":"f4","category":"b","question":"Rome?","answer":"Italy.","scores":{"faithfulness":0.7,"answer_relevancy":0.6}}' \
	'{"id":"f5","category":"b","question":"Oslo?","answer":"Norway.","scores":{"faithfulness":null,"answer_relevancy":0.9},"errors":[{"tool":"rag-verify","at":"answer","message":"claims.answer is null"}]}' \
	'{"id":"f6","category":"c","question":"What is the MADRID capital of?","answer":"Spain.","scores":{"faithfulness":0.45,"answer_relevancy":0.95}}' \
	>"$T/f.jsonl"
printf 'llm:\n  provider: offline\ngate:\n  max_error_rate: 0.2\n  record:\n    faithfulness: 0.5\n    answer_relevancy: 0.5\n' >"$T/f.yaml"
run rag rag-store -q -c "$T/f.yaml" --store "$T/f.db" --run-id F add - <"$T/f.jsonl"
is "$RC" 0 "run F added with its gate"
serve_start --store "$T/f.db"
# recs QUERY: "total:[seqs]" of the records page the query gives
recs() {
	get "/api/runs/F/records?$1"
	printf '%s:%s' "$(jq -c .total "$OUT")" "$(jq -c '[.records[].seq]' "$OUT")"
}
is "$(recs '')" '6:[1,2,3,4,5,6]' "records: no filter, all six"
is "$(recs 'failed=1')" '4:[2,3,5,6]' "records: failed only (f5 errored counts as not passed)"
is "$(recs 'category=b')" '3:[3,4,5]' "records: a category"
is "$(recs 'cause=below:faithfulness')" '2:[2,6]' "records: a cause (f3's cause is answer_relevancy, not this)"
is "$(recs 'cause=below:answer_relevancy')" '1:[3]' "records: another cause"
is "$(recs 'metric=faithfulness&below=0.5')" '3:[2,3,6]' "records: a metric below a value (f5's null is not below)"
is "$(recs 'metric=answer_relevancy&below=0.8')" '2:[3,4]' "records: below is strict (f1's 0.8 is not below 0.8)"
is "$(recs 'q=madrid')" '1:[6]' "records: text, either case"
is "$(recs 'q=france')" '1:[1]' "records: text in the answer or the reference"
is "$(recs 'id=f3')" '1:[3]' "records: an id exactly (Compare's links are by id)"
is "$(recs 'id=f')" '0:[]' "records: an id is not a text search"
is "$(recs 'failed=1&category=b')" '2:[3,5]' "records: two filters together"
is "$(recs 'failed=1&offset=2&limit=2')" '4:[5,6]' "records: a filtered list paged, the second page of two"
get '/api/runs/F/records?failed=1'
is "$(jq -c '[.lines, .records[0].why.key, .records[0].why.detail, .records[0].cause]' "$OUT")" \
	'[6,"below:faithfulness","0.200 (−0.300)","faithfulness below 0.500: 0.200 (−0.300)"]' \
	"records: the run's lines, each record's cause as a key and its words"
get '/api/runs/F/records?metric=faithfulness'
is "$CODE" 400 "records: a metric without below: 400"
get '/api/runs/F/records?metric=faithfulness&below=low'
is "$CODE" 400 "records: below not a number: 400"
get '/api/runs/F/records?failed=yes'
is "$CODE" 400 "records: failed not 0 or 1: 400"
get /api/runs/F/checks
is "$(jq -c '[.causes[] | [.key, .count]]' "$OUT")" \
	'[["below:faithfulness",2],["error:claims.answer is null",1],["below:answer_relevancy",1]]' "checks: each cause's key, the filter's name"
is "$(jq -c '[.reason_code, .reason_args.check.code, .checks[0].code, .checks[0].args]' "$OUT")" \
	'["gate_failed","pass_rate","pass_rate",{"passed":2,"of":5,"rate":0.4,"min_pass_rate":1}]' \
	"checks: the reason and each check as a code and its numbers (2 of the 5 with a verdict pass)"
get /api/runs/F/records/3
is "$CODE" 200 "a record by its seq"
is "$(jq -c '[.seq, .id, .passed, .why.key, [.verdict.checks[] | [.metric, .score, .threshold, .status]]]' "$OUT")" \
	'[3,"f3",false,"below:answer_relevancy",[["faithfulness",0.4,0.5,"failure"],["answer_relevancy",0.1,0.5,"failure"]]]' \
	"a record: its scores against the per-record thresholds, as its gate stored them, and its cause"
get /api/runs/F/records/1
is "$(jq -c '[.passed, .why, .fields.question, .fields.reference, .fields.contexts, (.record.verdicts.context_precision | map(.verdict)), .record.verdicts.faithfulness[0].reason]' "$OUT")" \
	'[true,null,"What is Paris?","France",["Paris is the capital of France.","Lyon is in France."],[true,false],"context 1 says so"]' \
	"a record that passed: its texts, contexts, chunk verdicts and claims"
get /api/runs/F/records/5
is "$(jq -c '[.passed, .why.kind, .why.text, .verdict.errored]' "$OUT")" '[null,"error","claims.answer is null",true]' \
	"a record with an error: no verdict, the error its cause"
get /api/session
CSRF=$(jq -r .csrf "$OUT")
for b in '{"seq":3,"metric":"faithfulness","verdict":false,"who":"ann"}' '{"seq":3,"metric":"answer_relevancy","label":0.2,"who":"bob","comment":"off topic"}' \
	'{"seq":4,"metric":"faithfulness","verdict":true,"who":"ann"}'; do
	get /api/runs/F/marks -X POST -H "Origin: ${URL%/}" -H "X-CSRF-Token: $CSRF" -H 'Content-Type: application/json' --data "$b"
done
is "$CODE" 200 "three review marks made"
get /api/runs/F/records/3
is "$(jq -c '[.marks[] | [.metric, .label, .who, .comment]]' "$OUT")" \
	'[["answer_relevancy",0.2,"bob","off topic"],["faithfulness",0,"ann",null]]' "a record's review marks, every metric's (not record 4's)"
get /api/runs/F/records/7
is "$CODE" 404 "a record not in the run: 404"
get /api/runs/F/records/0
is "$CODE" 400 "record 0: 400"
get /api/runs/F/records/x1
is "$CODE" 400 "a record that is no number: 400"
get /api/runs/nope/records/1
is "$CODE" 404 "a record of an unknown run: 404"
serve_stop

# ---------------------------------------------------------------- PostgreSQL
# the same runs in a PostgreSQL server of the test's own (lib.sh's pg_start), through a URL with
# a password: the same API replies, and the password in no message and no reply
if [ ! -x "$PGBIN/initdb" ]; then
	skip_missing postgresql "the API on PostgreSQL (make deps installs it)"
	done_testing
fi
if ! pg_start; then
	tap_ok 1 "a PostgreSQL server of our own started"
	done_testing
fi
PGURL="postgresql://ragpipe:pw-s3cret-77@/postgres?host=$PGDIR/sock"
for r in A B; do
	run rag rag-store -q -c "$T/c.yaml" --store "$PGURL" --run-id $r --label v$( [ $r = A ] && echo 1 || echo 2) \
		add - <"$T/$(echo $r | tr AB ab).jsonl"
	is "$RC:$(cat "$OUT")" "0:$r" "PostgreSQL: run $r added"
done
serve_start --store "$PGURL"
unlike "$(cat "$T/serve.err")" 'pw-s3cret-77' "PostgreSQL: the password is not in its messages"
like "$(cat "$T/serve.err")" 'ragpipe:\*\*\*@' "its URL shown masked"
get /api/info
is "$(jq -r .backend "$OUT")" postgresql "PostgreSQL: /api/info"
get /api/session
unlike "$(cat "$OUT")" 'pw-s3cret-77' "PostgreSQL: the password is not in /api/session"
get /api/runs
unlike "$(cat "$OUT")" 'pw-s3cret-77' "nor in /api/runs"
is "$(jq -c '[.total, [.runs[].run], [.runs[].label]]' "$OUT")" '[2,["B","A"],["v2","v1"]]' "PostgreSQL: the runs"
get '/api/runs?label=v1&limit=1'
is "$(jq -c '[.total, [.runs[].run]]' "$OUT")" '[1,["A"]]' "PostgreSQL: a filter"
get '/api/runs/B/records?offset=2&limit=2'
is "$(jq -c '[.total, [.records[].seq], .records[0].record]' "$OUT")" \
	"[5,[3,4],$(sed -n 3p "$T/b.jsonl" | jq -c .)]" "PostgreSQL: records page 2, as added"
serve_stop
run rag rag-store -q -c "$T/f.yaml" --store "$PGURL" --run-id F add - <"$T/f.jsonl"
is "$RC" 0 "PostgreSQL: run F added with its gate"
serve_start --store "$PGURL"
is "$(recs 'failed=1&category=b'):$(recs 'cause=below:faithfulness'):$(recs 'metric=faithfulness&below=0.5'):$(recs 'q=MADRID')" \
	'2:[3,5]:2:[2,6]:3:[2,3,6]:1:[6]' "PostgreSQL: the same filters, the same records"
get /api/runs/F/records/3
is "$(jq -c '[.seq, .why.key, [.verdict.checks[] | .status]]' "$OUT")" '[3,"below:answer_relevancy",["failure","failure"]]' \
	"PostgreSQL: a record whole"
serve_stop
is "$SRC" 0 "PostgreSQL: SIGTERM stops it"

done_testing
