#!/bin/sh
# 89-serve-creds-browser.t - the Run tab's note, in real Chromium (tests/browser/serve.py creds):
# a judge URL typed in the form that is not the endpoint rag-serve's key (RAG_API_KEY) was
# configured for runs without the key, and the page says which credential was left out and for
# which URL, in English at 1440 px and in Chinese at 390 px (89-serve-creds.t proves the API
# side: the reply's withheld list, what the servers received). The other judge's log shows it
# got no key. No test waits on the clock.
. "$(dirname "$0")/lib.sh"
need jq curl
need_browser
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
DB=$T/store.db
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"
head -n 2 "$TOP/share/examples/example.jsonl" | jq -c '{id, question, reference, category}' >"$T/qa.jsonl"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" testset import "$T/qa.jsonl" --name qa
is "$RC" 0 "a test set imported"

# the judge rag-serve's key is for (RAG_BASE_URL, RAG_API_KEY: lib.sh's); another judge and a
# service on ports of their own
fake_start
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
trap 'serve_stop; for p in $PIDS; do kill "$p" 2>/dev/null; done; _lib_cleanup' EXIT

serve_start --store "$DB" --work-dir "$T/work"
shots=$TOP/tests/tmp/serve-shots
mkdir -p "$shots"
run timeout 300 "$PY" "$TOP/tests/browser/serve.py" creds "$URL" "$shots" "$OTHER_JUDGE" "$SVC"
is "$RC" 0 "the browser's runs ran"
[ "$RC" = 0 ] || diag "$(tail -n 20 "$ERR")"
got() { sed -n "s/^$1: //p" "$OUT" | head -n 1; }
for k in en zh; do
	is "$(got "$k creds note before")" False "$k: no note before a run"
	is "$(got "$k creds state")" done "$k: the run of the typed judge is done"
	is "$(got "$k creds note shown")" True "$k: the note is shown"
	is "$(got "$k creds hscroll"):$(got "$k creds console errors")" False:0 "$k: no sideways scroll, no console error"
done
is "$(got 'en creds note')" \
	"Credential not sent: rag-serve's llm.api_key was not sent to $OTHER_JUDGE, which is neither the endpoint it was configured for nor in rag-serve's llm.allow_urls." \
	"en: which credential was left out, for which URL, and what would allow it"
is "$(got 'zh creds note')" \
	"凭据未发送：rag-serve's llm.api_key 没有发送到 $OTHER_JUDGE，它既不是该凭据配置的端点，也不在 rag-serve's llm.allow_urls 中。" \
	"zh: the note in Chinese"
is "$(got 'zh creds note english')" '' "zh: no English in it but the credential's and the allow-list's names"
is "$(jq -r 'select(.path | test("chat")) | .auth // "none"' "$T/other-judge.log" | sort -u | paste -sd, -)" none \
	"the typed judge got no key"
check "it was asked" test -s "$T/other-judge.log"
for s in evals-creds-en-1440 evals-creds-zh-390; do
	check "a screenshot of $s" test -s "$shots/$s.png"
done
serve_stop
done_testing
