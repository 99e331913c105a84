#!/bin/sh
# 89-serve-creds.t - a credential goes only to the endpoint it was configured for (issue 36):
# the Run tab's form may name any judge endpoint and service URL, and a run then goes without
# rag-serve's judge key (RAG_API_KEY), a profile's llm.api_key and its collect.headers unless
# the URL is the one they were configured for or one of their allow-lists (llm.allow_urls,
# collect.allow_urls). Proved where it arrives: a fake judge and a fake service on other ports
# log what they were sent (no Authorization, no X-Secret), and the start's reply and the run's
# state say which credential was left out; with the allow-lists they get them. No test waits
# on the clock.
. "$(dirname "$0")/lib.sh"
need jq curl python3
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
EX=$TOP/share/examples/example.jsonl
DB=$T/store.db
WORK=$T/work
SECRET=sk-profile-secret-5d20e7
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"
head -n 2 "$EX" | jq -c '{id, question, reference, category}' >"$T/qa.jsonl"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" testset import "$T/qa.jsonl" --name qa
is "$RC" 0 "a test set imported"

# the judge rag-serve is configured for (RAG_BASE_URL, RAG_API_KEY=test-secret-key: lib.sh's)
fake_start
JUDGE=$FAKE_URL/v1
# another judge and two services, on ports of their own: "other" is any URL a form may name
PIDS=
server() {   # server NAME SCRIPT: its URL in $SRV_URL, its log $T/NAME.log
	: >"$T/$1.log"
	python3 "$TOP/tests/$2" --port 0 --port-file "$T/$1.port" --log "$T/$1.log" --max-seconds 300 \
		</dev/null >/dev/null 2>"$T/$1.err" &
	PIDS="$PIDS $!"
	wait_until 10 test -s "$T/$1.port" || bail_out "$2 did not start: $(cat "$T/$1.err")"
	SRV_URL=http://127.0.0.1:$(cat "$T/$1.port")
}
server other-judge fakellm.py
OTHER_JUDGE=$SRV_URL/v1
server svc fakerag.py
SVC=$SRV_URL/ask
server other-svc fakerag.py
OTHER_SVC=$SRV_URL/ask
trap 'serve_stop; for p in $PIDS; do kill "$p" 2>/dev/null; done; _lib_cleanup' EXIT

mkdir "$T/profiles"
team_profile() {   # team_profile [ALLOW]: ALLOW the other judge and service in its allow-lists
	{
		printf 'llm:\n  provider: openai\n  base_url: %s\n  model: judge-team\n  api_key: ${PROFILE_SECRET}\n' "$JUDGE"
		printf '  headers:\n    X-Gw-Key: ${PROFILE_SECRET}\n'
		[ -n "${1:-}" ] && printf '  allow_urls: [%s]\n' "$OTHER_JUDGE"
		printf 'collect:\n  url: %s\n  headers:\n    X-Secret: ${PROFILE_SECRET}\n' "$SVC"
		[ -n "${1:-}" ] && printf '  allow_urls:\n    - %s\n' "$OTHER_SVC"
		printf 'eval:\n  metrics: [faithfulness]\n'
	} >"$T/profiles/team.yaml"
}
team_profile
PROFILE_SECRET=$SECRET
export PROFILE_SECRET
evals_api
run_to_end() {   # run_to_end FORM: started (202) and ended; its start's reply in $T/start.json
	post /api/evals "$1"
	cp "$OUT" "$T/start.json"
	[ "$CODE" = 202 ] || { diag "start: $CODE $(cat "$OUT")"; return 1; }
	RID=$(jq -r .id "$OUT")
	wait_until 120 ended "$RID"
}
auths() { jq -r 'select(.path | test("chat")) | .auth // "none"' "$1" | sort -u | paste -sd, -; }
secret_headers() { jq -r '.headers["x-secret"] // "none"' "$1" | sort -u | paste -sd, -; }
gw_headers() { jq -r 'select(.path | test("chat")) | .headers["x-gw-key"] // "none"' "$1" | sort -u | paste -sd, -; }

serve_start --store "$DB" --work-dir "$WORK" --profiles "$T/profiles"

# ---------------------------------------------------------------- rag-serve's key
run_to_end "$(jq -nc --arg j "$OTHER_JUDGE" --arg s "$SVC" '{testset: "qa", judge_base_url: $j, service_url: $s,
	metrics: ["faithfulness"]}')"
is "$(state "$RID")" done "a run of a judge the form names ends: done"
check "the other judge was asked" test -s "$T/other-judge.log"
is "$(auths "$T/other-judge.log")" none "without rag-serve's key: no Authorization header"
is "$(jq -c '[.withheld[] | [.credential, .allow]]' "$T/start.json")" \
	'[["rag-serve'"'"'s llm.api_key","rag-serve'"'"'s llm.allow_urls"]]' "the start's reply says the key was left out"
like "$(jq -r '.withheld[0].note' "$T/start.json")" '^credential not sent: ' "with a note"
is "$(jq -c '[.withheld[].url]' "$T/state.json")" "[\"$OTHER_JUDGE\"]" "and so does the run's state"

: >"$FAKE_LOG"
run_to_end "$(jq -nc --arg j "$JUDGE/" --arg s "$SVC" '{testset: "qa", judge_base_url: $j, service_url: $s,
	metrics: ["faithfulness"]}')"
is "$(auths "$FAKE_LOG")" "Bearer test-secret-key" "the endpoint rag-serve is configured for gets its key"
is "$(jq -c .withheld "$T/start.json")" '[]' "nothing left out"

# ---------------------------------------------------------------- a profile's key and headers
: >"$T/other-judge.log"
: >"$T/other-svc.log"
run_to_end "$(jq -nc --arg j "$OTHER_JUDGE" --arg s "$OTHER_SVC" '{testset: "qa", profile: "team",
	judge_base_url: $j, service_url: $s}')"
is "$(state "$RID")" done "a run of a profile with the form's judge and service ends: done"
is "$(auths "$T/other-judge.log")" none "the other judge got no key: neither the profile's nor rag-serve's"
is "$(gw_headers "$T/other-judge.log")" none "...nor the profile's llm.headers (a gateway's key)"
check "the other service was called" test -s "$T/other-svc.log"
is "$(secret_headers "$T/other-svc.log")" none "the other service got no X-Secret header"
is "$(jq -c '[.withheld[].credential] | sort' "$T/start.json")" \
	'["the profile'"'"'s collect.headers","the profile'"'"'s llm.api_key","the profile'"'"'s llm.headers"]' \
	"the reply names the three left out"
unlike "$(cat "$WORK/$RID/rag.yaml")" 'PROFILE_SECRET' "the run's configuration names no secret"

: >"$FAKE_LOG"
: >"$T/svc.log"
run_to_end '{"testset": "qa", "profile": "team"}'
is "$(auths "$FAKE_LOG")" "Bearer $SECRET" "the profile's own judge gets its key"
is "$(gw_headers "$FAKE_LOG")" "$SECRET" "...and its llm.headers"
is "$(secret_headers "$T/svc.log")" "$SECRET" "and its own service its header"
is "$(jq -c .withheld "$T/start.json")" '[]' "nothing left out"

# ---------------------------------------------------------------- the allow-lists
serve_stop
printf 'llm:\n  provider: offline\n  allow_urls:\n    - %s\n' "$OTHER_JUDGE" >"$T/c.yaml"
team_profile allow
serve_start --store "$DB" --work-dir "$WORK" --profiles "$T/profiles"
: >"$T/other-judge.log"
run_to_end "$(jq -nc --arg j "$OTHER_JUDGE" --arg s "$SVC" '{testset: "qa", judge_base_url: $j, service_url: $s,
	metrics: ["faithfulness"]}')"
is "$(auths "$T/other-judge.log")" "Bearer test-secret-key" "in rag-serve's llm.allow_urls: the judge gets its key"
is "$(jq -c .withheld "$T/start.json")" '[]' "nothing left out"
: >"$T/other-judge.log"
: >"$T/other-svc.log"
run_to_end "$(jq -nc --arg j "$OTHER_JUDGE" --arg s "$OTHER_SVC" '{testset: "qa", profile: "team",
	judge_base_url: $j, service_url: $s}')"
is "$(auths "$T/other-judge.log")" "Bearer $SECRET" "in the profile's llm.allow_urls: the profile's key"
is "$(gw_headers "$T/other-judge.log")" "$SECRET" "...and its llm.headers"
is "$(secret_headers "$T/other-svc.log")" "$SECRET" "in its collect.allow_urls: its header"

# ---------------------------------------------------------------- the secret
is "$(grep -c -e "$SECRET" -e test-secret-key "$T/replies")" 0 "no secret in any reply"
serve_stop
unlike "$(cat "$T/serve.err")" "$SECRET|test-secret-key" "nor in rag-serve's messages"

done_testing
