#!/bin/sh
# 84-serve-run.t - rag-serve's Run tab: POST /api/evals starts rag-eval as a child over a test
# set version of the store, against a fake RAG service (tests/fakerag.py) and a fake judge
# (tests/fakellm.py); its progress read back from the run directory; it ends in the store with
# the numbers rag-eval itself gives for the same input. A run held by the judge is cancelled
# (SIGTERM to its group): "cancelled", no judge request after its processes are gone, and the
# directory finished by rag-eval --resume. Hostile form values reach rag-eval as one argument
# each (a wrapper --rag-eval writes its argv) and expand no variable; the API key is in no reply
# and no file. No test waits on the clock: each waits on a state (wait_until).
. "$(dirname "$0")/lib.sh"
need jq curl python3 pgrep ps
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
EX=$TOP/share/examples/example.jsonl
DB=$T/store.db
WORK=$T/work
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"

# the test set: the example's questions and references, no answers (the service gives them)
head -n 5 "$EX" | jq -c '{id, question, reference, category}' >"$T/qa.jsonl"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" testset import "$T/qa.jsonl" --name qa
is "$RC" 0 "a test set imported"

# the fake judge (lib.sh's: RAG_API_KEY=test-secret-key in rag-serve's environment), then the
# fake RAG service beside it
fake_start
JUDGE=$FAKE_URL/v1
RPID=
rag_start() {
	[ -n "$RPID" ] && { kill "$RPID" 2>/dev/null; wait "$RPID" 2>/dev/null; }
	RLOG=$T/rag.$1.log
	: >"$RLOG"
	rm -f "$T/rag.port"
	python3 "$TOP/tests/fakerag.py" --port 0 --port-file "$T/rag.port" --log "$RLOG" --max-seconds 300 \
		</dev/null >/dev/null 2>"$T/rag.err" &
	RPID=$!
	wait_until 10 test -s "$T/rag.port" || bail_out "fakerag did not start: $(cat "$T/rag.err")"
	SVC=http://127.0.0.1:$(cat "$T/rag.port")/ask
}
rag_start 1

trap 'serve_stop; [ -n "$RPID" ] && kill "$RPID" 2>/dev/null; _lib_cleanup' EXIT
# every reply kept, to look for the key in them at the end
evals_api

serve_start --store "$DB" --work-dir "$WORK"
# ---------------------------------------------------------------- a run, to the end
get /api/evals/form
is "$CODE:$(jq -c '.defaults | [.judge_key, .service_url]' "$OUT")" '200:[true,null]' \
	"the form's defaults: whether rag-serve has a judge key (never the key)"
FORM=$(jq -nc --arg j "$JUDGE" --arg s "$SVC" '{testset: "qa", judge_base_url: $j, judge_model: "judge-x",
	service_url: $s, system: {top_k: 4, similarity_threshold: 0.5}, metrics: ["faithfulness", "keyword_overlap"],
	thresholds: {keyword_overlap: 0.1}, label: "from the page"}')
post /api/evals "$FORM"
is "$CODE" 202 "POST /api/evals starts a run"
ID=$(jq -r .id "$OUT")
like "$ID" '^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$' "its id, a run id"
is "$(jq -c '[.testset, .version, .total]' "$OUT")" '["qa",1,5]' "the test set's version and its records"
wait_until 120 ended "$ID"
is "$(state "$ID")" done "the run ends: done"
is "$(jq -c '[.done, .total, .errors, .exit_status, .run]' "$T/state.json")" "[5,5,0,0,\"$ID\"]" \
	"its progress: 5 of 5 records, no error, exit status 0, the run in the store under its id"
cp "$T/state.json" "$T/ended.json"
get /api/runs
is "$(jq -r --arg id "$ID" '[.runs[] | select(.run == $id)] | length' "$OUT")" 1 "the run is in /api/runs"
# the tab shows the pass rate and the means the store has (issue 36 item 10), not only the log
is "$(jq -c '[.verdict.pass_rate, .verdict.passed, .verdict.with_verdict, .verdict.exit_status, .means]' "$T/ended.json")" \
	"$(jq -c --arg id "$ID" '.runs[] | select(.run == $id) | [.verdict.pass_rate, .verdict.passed, .verdict.with_verdict, .exit_status, .means]' "$OUT")" \
	"the ended run's pass rate, counts, exit status and means: the store's"
like "$(jq -c '[.verdict.pass_rate, (.means | keys)]' "$T/ended.json")" '^\[[0-9.]+,\["faithfulness","keyword_overlap"\]\]$' \
	"a pass rate and both metrics' means"
is "$(jq -c --arg id "$ID" '.runs[] | select(.run == $id) | [.label, .testset, .testset_version, .n]' "$OUT")" \
	'["from the page","qa",1,5]' "with its label, the test set's name and version (the same records: no new version)"
jq -c --arg id "$ID" '.runs[] | select(.run == $id) | .means' "$OUT" >"$T/means.serve"
check "the judge was asked with the key rag-serve has" test "$(jq -r 'select(.path | test("chat")) | .auth' "$FAKE_LOG" | sort -u)" = "Bearer test-secret-key"
is "$(jq -c '.body.top_k' "$RLOG" | sort -u | paste -sd,)" 4 "the service got the form's top_k"

# rag-eval itself on the same input: the same numbers
cat >"$T/ref.yaml" <<EOF
llm:
  provider: openai
  base_url: $JUDGE
  model: judge-x
collect:
  url: $SVC
  body: '{question: .question} + (if .history then {history} else {} end) + (.system // {})'
system:
  top_k: 4
  similarity_threshold: 0.5
gate:
  mean:
    keyword_overlap: 0.1
EOF
run rag rag-eval -q -c "$T/ref.yaml" -m faithfulness,keyword_overlap -o "$T/ref" "$T/qa.jsonl"
is "$RC" 0 "rag-eval by hand on the same test set: exit status 0"
# (the store keeps a mean to 6 decimals)
is "$(jq -c 'map_values(. * 1e6 | round / 1e6)' "$T/means.serve")" "$(jq -s -c '[.[].scores | to_entries[]] | group_by(.key) |
	map({key: .[0].key, value: ([.[].value] | add / length * 1e6 | round / 1e6)}) | from_entries' "$T/ref/records.jsonl")" \
	"the stored run's means are rag-eval's own"
get "/api/runs/$ID/records?limit=50"
is "$(jq -c '[.records[].record | [.id, .scores]]' "$OUT")" "$(jq -s -c '[.[] | [.id, .scores]]' "$T/ref/records.jsonl")" \
	"and each record's scores"

get /api/evals
is "$(jq -c --arg id "$ID" '[.evals[] | select(.id == $id) | .state]' "$OUT")" '["done"]' "GET /api/evals lists it"
is "$(ps -o stat= --ppid "$SPID" | grep -c Z)" 0 "rag-serve reaped its child: no zombie"

# ---------------------------------------------------------------- bad forms
post /api/evals '{"testset":"nope"}'
is "$CODE" 404 "a test set not in the store: 404"
post /api/evals '{"testset":"qa","service_url":"file:///etc/passwd"}'
is "$CODE:$(jq -r .error "$OUT")" '400:"service_url": an http:// or https:// URL' "a service URL that is not http(s): 400"
post /api/evals '{"testset":"qa","thresholds":{"faithfulness":2}}'
is "$CODE" 400 "a threshold above 1: 400"
post /api/evals '{"testset":"../qa"}'
is "$CODE" 400 "a test set name with a slash: 400"
CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "Origin: http://evil.example" -H "X-CSRF-Token: $CSRF" \
	--data "$FORM" "${URL}api/evals")
is "$CODE" 403 "a start from another origin: 403"
CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "Origin: http://$HOSTPORT" --data "$FORM" "${URL}api/evals")
is "$CODE" 403 "a start without the CSRF token: 403"

# ---------------------------------------------------------------- progress, cancel
# a judge that holds the requests of the last record (the X200 router's): the first 4 come
# through, in order, and the run waits on the fifth
fake_stop
printf '[{"match": "X200 router", "hold": true, "hold_s": 120}]\n' >"$T/hold5.json"
fake_start --plan "$T/hold5.json"
HOLD_FORM=$(jq -nc --arg j "$FAKE_URL/v1" --arg s "$SVC" '{testset: "qa", judge_base_url: $j, judge_model: "judge-x",
	service_url: $s, metrics: ["faithfulness"]}')
post /api/evals "$HOLD_FORM"
is "$CODE" 202 "a second run started"
CID=$(jq -r .id "$OUT")
done_of() { [ "$(state "$1"; jq .done "$T/state.json")" = "$(printf 'running\n%s' "$2")" ]; }
wait_until 60 done_of "$CID" 4
is "$(state "$CID")" running "it is running"
is "$(jq -c '[.done, .total, .errors]' "$T/state.json")" '[4,5,0]' \
	"its progress read from the run directory: 4 of 5 records done, the fifth held by the judge"
# the time left is measured from the first records seen (rag_evals_eta, t-serverun.c): a whole
# number of seconds, or null ("estimating") when the first 4 were seen at once
like "$(jq -r .eta_s "$T/state.json")" '^([0-9]+|null)$' "and the time left (a whole number of seconds, or estimating)"
is "$(nlines "$(jq -r .rundir "$T/state.json")/records.jsonl")" 4 "as records.jsonl has them"
post "/api/evals/$CID/cancel" '{}'
is "$CODE" 200 "POST /api/evals/ID/cancel"
wait_until 60 ended "$CID"
is "$(state "$CID")" cancelled "the run's state: cancelled"
like "$(jq -r .exit_status "$T/state.json")" '^(130|143)$' "rag-eval ended by the signal (130 or 143)"
is "$(jq -r .done "$T/state.json")" 4 "the records it had scored are kept"
is "$(jq -r .run "$T/state.json")" null "a cancelled run is not in the store"
# every process of the run gone (each has the work directory in its arguments)
gone() { ! pgrep -f "$WORK/$1" >/dev/null; }
wait_until 30 gone "$CID"
check "no process of the run is left" gone "$CID"
n=$(fake_requests)
curl -s -X POST "$FAKE_URL/_fake/release" >/dev/null
is "$(fake_requests)" "$n" "no judge request after the run was cancelled (its processes are gone; the held ones released)"
RUNDIR=$(jq -r .rundir "$T/state.json")
check "the run directory stays: run.json" test -s "$RUNDIR/run.json"
post "/api/evals/$CID/resume" '{}'
is "$CODE" 202 "POST /api/evals/ID/resume: rag-eval --resume of the cancelled run"
wait_until 120 ended "$CID"
is "$(state "$CID"):$(jq -c '[.done, .total, .run]' "$T/state.json")" "done:[5,5,\"$CID\"]" \
	"it finishes: 5 of 5 records, in the store"
is "$(jq -r .id "$RUNDIR/records.jsonl" | paste -sd,)" "$(jq -r .id "$T/qa.jsonl" | paste -sd,)" \
	"records.jsonl: the 5 records, in order"
post "/api/evals/$CID/resume" '{}'
is "$CODE" 409 "a run that is done: nothing to resume (409)"

# ---------------------------------------------------------------- hostile values, one argv element each
serve_stop
fake_stop
fake_start
cat >"$T/wrap" <<EOF
#!/bin/sh
# each argument on a line of its own, as received
for a in "\$@"; do printf '%s\n' "\$a"; done >"$T/argv"
env >"$T/env"
exec "$BIN/rag-eval" "\$@"
EOF
chmod +x "$T/wrap"
HOSTILE='x"; rm -rf / ; $(touch '$T'/pwned) `touch '$T'/pwned2` ${RAG_API_KEY}'
head -n 2 "$T/qa.jsonl" >"$T/-dash set.jsonl"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" testset import "$T/-dash set.jsonl" --name '-dash $(id)'
is "$RC" 0 "a test set named '-dash \$(id)'"
serve_start --store "$DB" --work-dir "$WORK" --rag-eval "$T/wrap"
post /api/evals "$(jq -nc --arg h "$HOSTILE" --arg s "$SVC" --arg j "$FAKE_URL/v1" '{testset: "-dash $(id)",
	judge_base_url: $j, service_url: $s, label: ("-" + $h), system: {prompt: $h}, metrics: "keyword_overlap"}')"
is "$CODE" 202 "a run with hostile values started"
HID=$(jq -r .id "$OUT")
wait_until 60 ended "$HID"
is "$(state "$HID")" done "it ends: done"
is "$(grep -c '^--label=' "$T/argv")" 1 "the label: one argument"
is "$(grep '^--label=' "$T/argv")" "--label=-$HOSTILE" "as given, a shell never read it"
is "$(tail -n 1 "$T/argv")" "$WORK/$HID/set/-dash \$(id).jsonl" "the test set: one argument, its path"
is "$(sed -n '$=' "$T/argv")" 7 "7 arguments: the config, -o, the run id, metrics, label, --, the test set"
check "no shell ran the text" test ! -e "$T/pwned" -a ! -e "$T/pwned2"
is "$(jq -r '.body.prompt' "$T/rag.1.log" | tail -n 1)" "$HOSTILE" \
	"a system setting sent to the service as written: \${RAG_API_KEY} expanded to nothing"
get /api/runs
is "$(jq -r --arg id "$HID" '.runs[] | select(.run == $id) | .label' "$OUT")" "-$HOSTILE" "the label in the store as written"
check "rag-eval got the key in its environment" grep -q '^RAG_API_KEY=test-secret-key$' "$T/env"
like "$(grep '^RAG_SERVE_STORE_URL=' "$T/env")" "$DB" "and the store's URL"

# ---------------------------------------------------------------- the key
is "$(grep -c 'test-secret-key' "$T/replies")" 0 "the API key is in no reply"
is "$(grep -rl 'test-secret-key' "$WORK" | wc -l | tr -d ' ')" 0 "nor in any file of the work directory"
unlike "$(cat "$T/serve.err")" 'test-secret-key' "nor in rag-serve's messages"

# ---------------------------------------------------------------- rag-serve ends: so do its runs
# a judge that holds every request
fake_stop
printf '[{"hold": true, "hold_s": 120}]\n' >"$T/hold.json"
fake_start --plan "$T/hold.json"
post /api/evals "$(jq -nc --arg j "$FAKE_URL/v1" --arg s "$SVC" '{testset: "qa", judge_base_url: $j, service_url: $s,
	metrics: ["faithfulness"]}')"
LID=$(jq -r .id "$OUT")
wait_until 60 test -s "$FAKE_LOG"
check "a run held by the judge" test -s "$FAKE_LOG"
serve_stop
is "$SRC" 0 "SIGTERM to rag-serve: exit 0"
wait_until 30 gone "$LID"
check "no process of its run is left" gone "$LID"
# kill -9: the run ends with it (RAG_EVAL_ALIVE)
fake_stop
fake_start --plan "$T/hold.json"
serve_start --store "$DB" --work-dir "$WORK"
post /api/evals "$(jq -nc --arg j "$FAKE_URL/v1" --arg s "$SVC" '{testset: "qa", judge_base_url: $j, service_url: $s,
	metrics: ["faithfulness"]}')"
KID=$(jq -r .id "$OUT")
wait_until 60 test -s "$FAKE_LOG"
kill -KILL "$SPID"
wait "$SPID" 2>/dev/null
SPID=
wait_until 30 gone "$KID"
check "kill -9 of rag-serve: no process of its run is left" gone "$KID"

done_testing
