#!/bin/sh
# 89-serve-profiles.t - rag-serve's Run tab profiles (--profiles DIR): GET /api/evals/profiles
# lists each rag-config(5) file NAME.yaml as the form shows it (never a key, a header or the
# store); a run started from one gets the whole profile (the judge's timeout and retries, its
# key from the profile's own ${VAR}, collect.headers) with the form's fields over it, proved
# where they arrive: the fake judge's and the fake RAG service's logs and the run's run.json.
# A form value names no variable; a name that is not a profile of the directory is refused
# (400 for a path, 404 for none); the secret is in no reply, no page, no file of the work
# directory and no message of rag-serve's. No test waits on the clock.
. "$(dirname "$0")/lib.sh"
need jq curl python3
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
EX=$TOP/share/examples/example.jsonl
DB=$T/store.db
WORK=$T/work
SECRET=sk-profile-secret-7f3a91
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"
head -n 5 "$EX" | jq -c '{id, question, reference, category}' >"$T/qa.jsonl"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" testset import "$T/qa.jsonl" --name qa
is "$RC" 0 "a test set imported"

# the fake judge (RAG_API_KEY=test-secret-key: rag-serve's own key) and the fake RAG service
fake_start
JUDGE=$FAKE_URL/v1
RLOG=$T/rag.log
: >"$RLOG"
python3 "$TOP/tests/fakerag.py" --port 0 --port-file "$T/rag.port" --log "$RLOG" --max-seconds 300 \
	</dev/null >/dev/null 2>"$T/rag.err" &
RPID=$!
wait_until 10 test -s "$T/rag.port" || bail_out "fakerag did not start: $(cat "$T/rag.err")"
SVC=http://127.0.0.1:$(cat "$T/rag.port")/ask
trap 'serve_stop; kill "$RPID" 2>/dev/null; _lib_cleanup' EXIT

# the profiles: a team's, with its own key and headers from a variable of rag-serve's
# environment; one that is not YAML; a file that is no profile; one beside the directory
mkdir "$T/profiles"
cat >"$T/profiles/team.yaml" <<EOF
# the search team's profile
llm:
  provider: openai
  base_url: $JUDGE
  model: judge-team
  api_key: \${PROFILE_SECRET}
  timeout: 17
  retries: 2
collect:
  url: $SVC
  headers:
    X-Team: search
    X-Token: \${PROFILE_SECRET}
system:
  top_k: 5
  index: v2
eval:
  metrics: [faithfulness, keyword_overlap]
gate:
  mean:
    keyword_overlap: 0.1
EOF
printf 'llm:\n  provider: offline\n' >"$T/profiles/offline.yaml"
printf 'llm: [\n' >"$T/profiles/broken.yaml"
printf 'not a profile\n' >"$T/profiles/README.txt"
printf 'llm:\n  provider: offline\n' >"$T/outside.yaml"
PROFILE_SECRET=$SECRET
export PROFILE_SECRET

# every reply kept, to look for the secret in them at the end
evals_api

# ---------------------------------------------------------------- no directory
run rag rag-serve -c "$T/c.yaml" --store "$DB" --work-dir "$WORK" --listen 127.0.0.1:0 --profiles "$T/nope"
is "$RC" 2 "--profiles of a directory that is not there: exit 2"
like "$(cat "$ERR")" "rag-serve: error: --profiles: the profiles' directory \"$T/nope\": " "and why"

serve_start --store "$DB" --work-dir "$WORK"
get /api/evals/profiles
is "$CODE:$(jq -c . "$OUT")" '200:{"profiles":[]}' "without --profiles: no profile"
post /api/evals '{"testset":"qa","profile":"team"}'
is "$CODE" 404 "and a start from one: 404"
serve_stop

# ---------------------------------------------------------------- the list
serve_start --store "$DB" --work-dir "$WORK" --profiles "$T/profiles"
get /api/evals/profiles
is "$CODE:$(jq -c '[.profiles[].name]' "$OUT")" '200:["broken","offline","team"]' \
	"GET /api/evals/profiles: the files NAME.yaml of the directory, by name"
is "$(jq -c '.profiles[] | select(.name == "team") | [.service_url, .judge_base_url, .judge_model, .own_key,
	.system, .metrics, .thresholds]' "$OUT")" \
	"[\"$SVC\",\"$JUDGE\",\"judge-team\",true,{\"top_k\":5,\"index\":\"v2\"},[\"faithfulness\",\"keyword_overlap\"],{\"keyword_overlap\":0.1}]" \
	"a profile as the form shows it"
is "$(jq -c '.profiles[] | select(.name == "offline") | [.judge_base_url, .own_key]' "$OUT")" '[null,false]' \
	"the offline judge: no endpoint; no key of its own"
like "$(jq -r '.profiles[] | select(.name == "broken") | .error' "$OUT")" '^not YAML: ' "a profile that is not YAML: listed with why"
unlike "$(cat "$OUT")" 'X-Token|X-Team|PROFILE_SECRET|api_key' "no header and no key, nor the key's variable"
get /
check "the page has the Profile select" grep -q 'name="profile"' "$OUT"
get /run.js

# ---------------------------------------------------------------- a run from a profile
FORM=$(jq -nc '{testset: "qa", profile: "team", judge_model: "judge-form", system: {top_k: 7, index: "v2"},
	label: "from a profile"}')
post /api/evals "$FORM"
is "$CODE:$(jq -r .profile "$OUT")" 202:team "POST /api/evals with a profile starts a run"
ID=$(jq -r .id "$OUT")
wait_until 120 ended "$ID"
is "$(state "$ID")" done "it ends: done"
is "$(jq -c '[.done, .total, .errors, .exit_status < 2]' "$T/state.json")" '[5,5,0,true]' \
	"5 of 5 records, no error, the gate's exit status"
RUNDIR=$(jq -r .rundir "$T/state.json")
is "$(jq -r '.headers["x-team"]' "$RLOG" | sort -u)" search "the service got the profile's collect header"
check "and its header from a variable, expanded by rag-eval" \
	test "$(jq -r '.headers["x-token"]' "$RLOG" | sort -u)" = "$SECRET"
is "$(jq -c '.body | [.top_k, .index]' "$RLOG" | sort -u)" '[7,"v2"]' \
	"the form's top_k over the profile's, the profile's other knob"
check "the judge was asked with the profile's key, not rag-serve's" \
	test "$(jq -r 'select(.path | test("chat")) | .auth' "$FAKE_LOG" | sort -u)" = "Bearer $SECRET"
is "$(jq -r 'select(.path | test("chat")) | .body.model' "$FAKE_LOG" | sort -u)" judge-form \
	"with the form's model over the profile's"
is "$(jq -c '.config.llm | [.timeout, .retries, .base_url]' "$RUNDIR/run.json")" "[17,2,\"$JUDGE\"]" \
	"run.json: the profile's judge timeout, retries and endpoint"
is "$(jq -c '.config.gate.mean' "$RUNDIR/run.json")" '{"keyword_overlap":0.1}' "and its thresholds"
get /api/runs
is "$(jq -c --arg id "$ID" '.runs[] | select(.run == $id) | [.label, (.means | keys)]' "$OUT")" \
	'["from a profile",["faithfulness","keyword_overlap"]]' "in the store, with the profile's metrics"
check "its configuration names the variable" grep -qF '${PROFILE_SECRET}' "$WORK/$ID/rag.yaml"

# a form value that names a variable: the text, never its value
: >"$FAKE_LOG"
post /api/evals "$(jq -nc '{testset: "qa", profile: "team", judge_model: "${PROFILE_SECRET}",
	metrics: ["faithfulness"]}')"
is "$CODE" 202 "a form value naming a variable, over a profile"
VID=$(jq -r .id "$OUT")
wait_until 120 ended "$VID"
is "$(state "$VID")" done "it ends: done"
is "$(jq -r 'select(.path | test("chat")) | .body.model' "$FAKE_LOG" | sort -u)" '${PROFILE_SECRET}' \
	"the judge got the model's name as written: the form's text expands nothing"

# ---------------------------------------------------------------- names that are not profiles
post /api/evals '{"testset":"qa","profile":"../outside"}'
is "$CODE:$(jq -r .error "$OUT")" '400:"profile": the name of a profile rag-serve lists' "a profile named by a path: 400"
post /api/evals '{"testset":"qa","profile":"profiles/team"}'
is "$CODE" 400 "a name with a slash: 400"
post /api/evals '{"testset":"qa","profile":".."}'
is "$CODE" 400 "..: 400"
post /api/evals '{"testset":"qa","profile":"README.txt"}'
is "$CODE:$(jq -r .error "$OUT")" '404:"profile": no profile "README.txt" here' "a file that is not NAME.yaml: 404"
post /api/evals '{"testset":"qa","profile":"nope"}'
is "$CODE" 404 "a profile the directory does not have: 404"
post /api/evals '{"testset":"qa","profile":"broken"}'
is "$CODE" 400 "a profile that is not YAML: 400"
like "$(jq -r .error "$OUT")" '^"profile": broken: not YAML: ' "with why"

# ---------------------------------------------------------------- the form's judge, the profile's provider
# an Azure profile: a judge the form names is asked as Azure is (its deployment's route, its
# api-version, the api-key header), not turned into an OpenAI endpoint
fake_start --provider azure
cat >"$T/profiles/azure.yaml" <<EOF
llm:
  provider: azure
  base_url: https://team.openai.azure.invalid
  deployment: judge-dep
  api_version: 2024-10-21
  api_key: \${PROFILE_SECRET}
  allow_urls: [$FAKE_URL]
EOF
post /api/evals "$(jq -nc --arg u "$FAKE_URL" --arg s "$SVC" '{testset: "qa", profile: "azure", judge_base_url: $u, service_url: $s,
	metrics: ["faithfulness"]}')"
is "$CODE" 202 "a form's judge over an Azure profile"
AID=$(jq -r .id "$OUT")
wait_until 120 ended "$AID"
is "$(state "$AID")" done "it ends: done"
is "$(jq -c '[.done, .errors]' "$T/state.json")" '[5,0]' "every record judged, no error"
is "$(jq -c '.config.llm | [.provider, .deployment, .base_url]' "$(jq -r .rundir "$T/state.json")/run.json")" \
	"[\"azure\",\"judge-dep\",\"$FAKE_URL\"]" "run.json: the profile's provider and deployment, the form's endpoint"
is "$(jq -r 'select(.path | test("chat")) | .path' "$FAKE_LOG" | sort -u)" \
	'/openai/deployments/judge-dep/chat/completions?api-version=2024-10-21' "the judge asked on Azure's route"

# ---------------------------------------------------------------- the secret
is "$(grep -c "$SECRET" "$T/replies")" 0 "the profile's secret is in no reply"
is "$(grep -rl "$SECRET" "$WORK" | wc -l | tr -d ' ')" 0 "nor in any file of the work directory"
serve_stop
unlike "$(cat "$T/serve.err")" "$SECRET" "nor in rag-serve's messages"
is "$SRC" 0 "rag-serve stops: exit 0"

done_testing
