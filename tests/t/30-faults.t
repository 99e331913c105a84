#!/bin/sh
# 30-faults.t - rag-claims / rag-verify against a misbehaving judge (tests/fakellm.py).
#
# Each case feeds tests/fixtures/faults.jsonl (8 records, claims.answer present, so rag-verify
# makes exactly one judge call per record) through rag-verify with a plan that targets ONE record
# through a marker in its claim text, and checks: exit status (4 when a record failed remotely,
# else 0), one output line per input line, ids in input order, the target record carries an
# errors entry and scores.faithfulness null, the others carry numeric scores and no errors, and the
# API key appears in neither stdout nor stderr.
. "$(dirname "$0")/lib.sh"

need jq
[ -x "$BIN/rag-verify" ] && [ -x "$BIN/rag-claims" ] || bail_out "bin/rag-verify or bin/rag-claims is not built: run make"

FIX=$FIXTURES/faults.jsonl
IDS="r1 r2 r3 r4 r5 r6 r7 r8"
NREC=8
KEY=test-secret-key

# short timeout, one retry: a failing record costs at most 2 requests and a few seconds
cat >"$T/rag.yaml" <<'EOF'
llm:
  model: fake-judge
  timeout: 1
  retries: 1
EOF
CONF=$T/rag.yaml

# plan JSON: write the plan and (re)start the fake with it
plan() {
	printf '%s\n' "$1" >"$T/plan.json"
	fake_start --plan "$T/plan.json"
}

# verify [ARGS]: rag-verify on the fixture
verify() {
	run rag rag-verify -c "$CONF" "$@" <"$FIX"
}

no_key() {  # no_key NAME FILE...: the API key appears in none of the files
	if grep -l -- "$KEY" "$@" >/dev/null 2>&1; then
		tap_ok 1 "$1: the API key appears in no output"; grep -n -- "$KEY" "$@" | head -5 | sed 's/^/#   /'
	else
		tap_ok 0 "$1: the API key appears in no output"
	fi
}

# expect NAME TARGET RC [METRIC]: the common assertions on $OUT/$ERR/$RC after a run.
# TARGET is the id of the record that must have failed, or "none".
expect() {
	_name=$1 _target=$2 _rc=$3 _m=${4:-faithfulness}
	is "$RC" "$_rc" "$_name: exit status $_rc"
	[ "$RC" = "$_rc" ] || sed 's/^/#   stderr: /' "$ERR" | head -20
	is "$(nlines "$OUT")" "$NREC" "$_name: one output line per input line"
	is "$(jq -r .id "$OUT" 2>/dev/null | tr '\n' ' ')" "$IDS " "$_name: ids in input order"
	if [ "$_target" != none ]; then
		check "$_name: $_target has scores.$_m null and an errors entry from rag-verify" \
			jq -se --arg id "$_target" --arg m "$_m" \
			'.[] | select(.id == $id) | (.scores | has($m)) and .scores[$m] == null and any(.errors[]?; .tool == "rag-verify" and (.message | type) == "string" and (.message | length) > 0)' "$OUT"
	fi
	check "$_name: every other record has a numeric score and no errors" \
		jq -se --arg id "$_target" --arg m "$_m" \
		'[.[] | select(.id != $id)] | length > 0 and all(.[]; (.scores[$m] | type) == "number" and (.errors // [] | length) == 0)' "$OUT"
	no_key "$_name" "$OUT" "$ERR"
}

# the error message of record ID
errmsg() { jq -r --arg id "$1" 'select(.id == $id) | [.errors[]?.message] | join(" | ")' "$OUT"; }
# requests whose body mentions MARKER
hits() { fake_requests_matching "$1"; }

# ---------------------------------------------------------------- baseline: no faults
plan '[]'
verify
expect "baseline" none 0
is "$(jq -r '.scores.faithfulness' "$OUT" | tr '\n' ' ')" "0.5 1 1 1 1 1 1 1 " "baseline: scores follow the fake's verdicts"
check "baseline: verdicts.faithfulness has one {claim, verdict, reason} per claim" \
	jq -se 'all(.[]; (.verdicts.faithfulness | length) == (.claims.answer | length) and all(.verdicts.faithfulness[]; (.claim | type) == "string" and (.verdict | type) == "boolean" and (.reason | type) == "string"))' "$OUT"
is "$(jq -c 'select(.id == "r1") | [.verdicts.faithfulness[].verdict]' "$OUT")" "[true,false]" "baseline: the UNSUPPORTED claim is false"
is "$(fake_requests)" "$NREC" "baseline: one judge call per record"
is "$(jq -s '[.[].usage["rag-verify"].faithfulness.calls] | add' "$OUT")" "$NREC" "baseline: usage.rag-verify.faithfulness.calls adds up to the requests"
is "$(jq -r '.usage["rag-verify"].faithfulness.judge' "$OUT" | sort -u)" "openai:fake-judge" "baseline: usage judge is openai:<model>"
is "$(jq -r '.body.model' "$FAKE_LOG" | sort -u)" "fake-judge" "baseline: requests use llm.model"
is "$(jq -r '.path' "$FAKE_LOG" | sort -u)" "/v1/chat/completions" "baseline: POST <base_url>/chat/completions"
is "$(jq -r '.auth' "$FAKE_LOG" | sort -u)" "Bearer $KEY" "auth: every request carries Authorization: Bearer <key>"
check "baseline: the claims are sent in a STATEMENTS block" \
	jq -se 'all(.[]; .body.messages | map(select(.role == "user")) | last | .content | test("<<<STATEMENTS-[0-9a-f]{8}\n1\\. "))' "$FAKE_LOG"
is "$(jq -c 'select(.id == "r7") | .extra' "$OUT")" '{"keep":[1,2,3]}' "baseline: other fields pass through"

# ---------------------------------------------------------------- 429 + Retry-After, then success
plan '[{"match": "RATE429", "status": 429, "retry_after": 1, "times": 1}]'
verify
expect "429 then ok" none 0
is "$(hits RATE429)" 2 "429 then ok: retried once"
check "429 then ok: the retry waits for Retry-After (>= ~1 s)" \
	jq -se '[.[] | select(.body | tostring | contains("RATE429")) | .t] | (.[1] - .[0]) >= 0.9' "$FAKE_LOG"

# ---------------------------------------------------------------- 500 once, then success
plan '[{"match": "FAULT500", "status": 500, "times": 1}]'
verify
expect "500 once" none 0
is "$(hits FAULT500)" 2 "500 once: retried once"

# ---------------------------------------------------------------- 500 forever
plan '[{"match": "FAULT500", "status": 500}]'
verify
expect "500 forever" r3 4
is "$(hits FAULT500)" 2 "500 forever: 1 + llm.retries (1) attempts"
like "$(errmsg r3)" '500' "500 forever: the error names the HTTP status"

# ---------------------------------------------------------------- slower than llm.timeout
# The reply would come after 10 s; llm.timeout is 1 s. The server's log holds when each attempt
# came: the retry follows the first by the timeout and a backoff (~1.25 to 1.75 s), never by the
# 10 s the reply would have taken.
plan '[{"match": "SLOWREPLY", "delay_ms": 10000}]'
verify
expect "timeout" r4 4
is "$(hits SLOWREPLY)" 2 "timeout: 1 + llm.retries (1) attempts"
like "$(errmsg r4)" '[Tt]ime|timed out' "timeout: the error says it timed out"
check "timeout: the retry comes after llm.timeout (1 s), not after the slow reply (10 s)" \
	jq -se '[.[] | select(.body | tostring | contains("SLOWREPLY")) | .t] | (.[1] - .[0]) as $gap | $gap >= 0.9 and $gap < 10' "$FAKE_LOG"

# ---------------------------------------------------------------- dropped connection
plan '[{"match": "DROPCONN", "drop": true}]'
verify
expect "drop forever" r5 4
# libcurl itself resends a request whose reused keep-alive connection died (up to 5 times per
# attempt), so the HTTP request count is 2 attempts x (1..6) rather than exactly 2.
_h=$(hits DROPCONN)
check "drop forever: 1 + llm.retries attempts, each possibly resent by libcurl ($_h requests)" \
	test "$_h" -ge 2 -a "$_h" -le 12

plan '[{"match": "DROPCONN", "drop": true, "times": 1}]'
verify
expect "drop once" none 0

# ---------------------------------------------------------------- malformed JSON body (HTTP 200)
plan '[{"match": "BADJSON", "body": "{not json"}]'
verify
expect "malformed body" r6 4

# ---------------------------------------------------------------- too few verdicts
plan '[{"match": "FEWVERDICTS", "few": true}]'
verify
expect "few verdicts" r7 4
is "$(hits FEWVERDICTS)" 2 "few verdicts: re-asked once"
like "$(errmsg r7)" 'verdict' "few verdicts: the error is about the verdicts"
like "$(errmsg r7)" '[23]' "few verdicts: the error mentions the count"

plan '[{"match": "FEWVERDICTS", "few": true, "times": 1}]'
verify
expect "few once" none 0
is "$(hits FEWVERDICTS)" 2 "few once: the re-ask is answered"
is "$(jq -r 'select(.id == "r7") | .scores.faithfulness' "$OUT")" 1 "few once: r7 scored from the full answer"

# ---------------------------------------------------------------- finish_reason length
plan '[{"match": "TRUNCATED", "finish_reason": "length"}]'
verify
expect "finish_reason length" r8 4

# ---------------------------------------------------------------- rag-claims | rag-verify
plan '[]'
pipeline() { { rag rag-claims -c "$CONF" <"$FIX"; echo $? >"$T/rc1"; } | rag rag-verify -c "$CONF"; }
run pipeline
is "$(cat "$T/rc1")" 0 "pipeline: rag-claims exit status 0"
expect "pipeline" none 0
is "$(jq -r '.scores.faithfulness' "$OUT" | tr '\n' ' ')" "0.5 1 1 1 1 1 1 1 " "pipeline: scores from the claims the judge extracted"
is "$(fake_requests)" $((NREC * 2)) "pipeline: one claims call and one verify call per record"
check "pipeline: the claims request holds QUESTION and TEXT blocks" \
	jq -se '[.[] | .body.messages | map(select(.role == "user")) | last | .content | select(test("<<<TEXT-"))] | length == 8 and all(.[]; test("<<<QUESTION-[0-9a-f]{8}\n") and test("<<<TEXT-[0-9a-f]{8}\n"))' "$FAKE_LOG"

# rag-claims itself failing for one record: the error is recorded, claims.answer is not a
# (misleadingly empty) list, and rag-verify then reports the missing claims as an input error.
plan '[{"match": "FAULT500", "status": 500}]'
run rag rag-claims -c "$CONF" <"$FIX"
is "$RC" 4 "rag-claims 500 forever: exit status 4"
is "$(nlines "$OUT")" "$NREC" "rag-claims 500 forever: one output line per input line"
is "$(jq -r .id "$OUT" | tr '\n' ' ')" "$IDS " "rag-claims 500 forever: ids in input order"
check "rag-claims 500 forever: r3 has an errors entry from rag-claims and no claims list" \
	jq -se '.[] | select(.id == "r3") | any(.errors[]?; .tool == "rag-claims") and ((.claims.answer // null) | type) != "array"' "$OUT"
check "rag-claims 500 forever: the others have claims and no errors" \
	jq -se '[.[] | select(.id != "r3")] | all(.[]; (.claims.answer | type) == "array" and (.claims.answer | length) > 0 and (.errors // [] | length) == 0)' "$OUT"
no_key "rag-claims 500 forever" "$OUT" "$ERR"
cp "$OUT" "$T/claims-failed.jsonl"
plan '[]'
run rag rag-verify -c "$CONF" <"$T/claims-failed.jsonl"
# rag(7): claims.answer = null means the claims stage failed; rag-verify scores null and adds an
# error naming it, without changing its own exit status (the failure was counted upstream).
is "$RC" 0 "verify after failed claims: exit 0 (the failure was counted by rag-claims)"
check "verify after failed claims: r3 is null and keeps the rag-claims error" \
	jq -se '.[] | select(.id == "r3") | .scores.faithfulness == null and any(.errors[]; .tool == "rag-claims") and any(.errors[]; .tool == "rag-verify")' "$OUT"

# ---------------------------------------------------------------- the key never leaks
# verbose, with a read-write cache, through a failure and a success. The same fake serves both
# runs (the endpoint is part of the cache key): r3 fails its 2 attempts in the first run only.
plan '[{"match": "FAULT500", "status": 500, "times": 2}]'
RAG_CACHE=rw RAG_CACHE_DIR=$T/ragcache; export RAG_CACHE RAG_CACHE_DIR
run rag rag-verify -c "$CONF" -v <"$FIX"
expect "cache rw -v" r3 4
check "cache rw: the cache directory holds entries" \
	sh -c 'find "$1" -type f -name "*.json" | grep -q .' sh "$T/ragcache"
if grep -r -l -- "$KEY" "$T/ragcache" >/dev/null 2>&1; then
	tap_ok 1 "cache rw: the API key is not in the cache"
	grep -r -l -- "$KEY" "$T/ragcache" | head -3 | sed 's/^/#   /'
else
	tap_ok 0 "cache rw: the API key is not in the cache"
fi
_n=$(fake_requests)
run rag rag-verify -c "$CONF" <"$FIX"
unset RAG_CACHE_DIR
expect "cache rw warm" none 0
is "$(( $(fake_requests) - _n ))" 1 "cache rw warm: only the record that failed before is asked again"
check "cache rw warm: cache_hits recorded" \
	jq -se '[.[] | .usage["rag-verify"].faithfulness.cache_hits] | add == 7' "$OUT"

done_testing
