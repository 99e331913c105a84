#!/bin/sh
# 69-gate-webhook.t - rag-gate --window --webhook URL (issue 38, item 3): the window's line
# POSTed as JSON each time the alert turns failing and each time it recovers, to a local fake
# (tests/fakellm.py, a scope of its own); a webhook that fails (404, nothing listening) is a
# warning and the gate goes on with the same lines and exit status; the URL's user, password,
# path and query (where a webhook's token is) appear in no message. A 5xx, a 429 or a dropped
# connection is tried again, 3 tries in all, after the backoff (RAG_WEBHOOK_BACKOFF: small here)
# or the reply's Retry-After; a 404 is not.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-gate" ] || bail_out "bin/rag-gate is not built: run make"
trap 'fake_stop; _lib_cleanup' EXIT
RAG_WEBHOOK_BACKOFF=0.05   # the waits between tries (1 s, 2 s by default)
export RAG_WEBHOOK_BACKOFF
: >"$T/all.err"
keep_err() { cat "$ERR" >>"$T/all.err"; }

# windows of 1 record: F P F P P (fires, recovers, fires, recovers, stays ok)
i=0
for r in 0.1 0.9 0.1 0.9 0.9; do
	i=$((i + 1))
	printf '{"id":"w%d","scores":{"faithfulness":%s}}\n' $i $r
done >"$T/in.jsonl"
GATE="--window 1 -t faithfulness=0.5"
run rag rag-gate $GATE "$T/in.jsonl"
cp "$OUT" "$T/plain.out"
PLAIN_RC=$RC

# ---------------------------------------------------------------- a webhook that answers
fresh '[{"scope": "hook", "body": "{\"ok\": true}"}]'
# the URL of the current fake's scope "hook", its secrets in the user, the password and the query
hook() { HOOK="http://hookuser:hookpass-5ecret@127.0.0.1:$FAKE_PORT/s/hook/v1/chat/completions?token=tok-5ecret"; }
hook
run rag rag-gate $GATE --webhook "$HOOK" "$T/in.jsonl"
keep_err
is "$RC:$(cat "$OUT")" "$PLAIN_RC:$(cat "$T/plain.out")" "--webhook: the same lines and exit status as without it"
is "$(jq -c 'select(.scope == "hook") | .body' "$FAKE_LOG")" "$(jq -c 'select(.fired or .recovered)' "$T/plain.out")" \
	"each line that fires or recovers POSTed as its JSON, in order, and no other"
is "$(jq -c 'select(.scope == "hook") | [.body.window, .body.alert]' "$FAKE_LOG" | tr '\n' ' ')" \
	'[1,"failing"] [2,"ok"] [3,"failing"] [4,"ok"] ' "four POSTs: windows 1 and 3 fired, 2 and 4 recovered"
is "$(cat "$ERR")" "" "a webhook that answers 2xx: nothing on standard error"

# ---------------------------------------------------------------- tried again
# one window that fires; the fake drops the first POST's connection, answers the second 503 and
# takes the third
printf '{"id":"x1","scores":{"faithfulness":0.1}}\n' >"$T/one.jsonl"
run rag rag-gate $GATE "$T/one.jsonl"
cp "$OUT" "$T/one.out"
ONE_RC=$RC
fresh '[{"scope": "hook", "drop": true, "times": 1}, {"scope": "hook", "status": 503, "times": 1}, {"scope": "hook", "body": "{}"}]'
hook
run rag rag-gate $GATE --webhook "$HOOK" "$T/one.jsonl"
keep_err
is "$RC:$(cat "$OUT")" "$ONE_RC:$(cat "$T/one.out")" "a dropped connection, then a 503, then 2xx: the same line and exit status"
is "$(jq -c 'select(.scope == "hook") | [.rule, .body.window]' "$FAKE_LOG" | tr '\n' ' ')" '[0,1] [1,1] [2,1] ' \
	"three POSTs of window 1's line: the dropped one, the 503, the one taken"
is "$(cat "$ERR")" "" "taken at the third try: no warning"
fresh '[{"scope": "hook", "status": 500}]'
hook
run rag rag-gate $GATE --webhook "$HOOK" "$T/one.jsonl"
keep_err
is "$RC:$(jq -c 'select(.scope == "hook") | .body.window' "$FAKE_LOG" | tr '\n' ' ')" "$ONE_RC:1 1 1 " "always 500: three tries, then the gate goes on"
like "$(cat "$ERR")" "warning: --webhook: webhook http://127\.0\.0\.1:[0-9]*/\.\.\.: http 500 \(3 tries\)$" "one warning, the last status and the tries"
# a 429 whose Retry-After (1 s) is longer than the backoff: the second try waits for it
fresh '[{"scope": "hook", "retry_after": "1", "times": 1}, {"scope": "hook", "body": "{}"}]'
hook
run rag rag-gate $GATE --webhook "$HOOK" "$T/one.jsonl"
keep_err
is "$RC:$(jq -c 'select(.scope == "hook") | .rule' "$FAKE_LOG" | tr '\n' ' ')" "$ONE_RC:0 1 " "a 429 then 2xx: two POSTs"
gap=$(jq -s '[.[] | select(.scope == "hook") | .t] | .[1] - .[0]' "$FAKE_LOG")
check "the second POST came after the 429's Retry-After: 1 ($gap s later), not the 0.05 s backoff" \
	awk -v g="$gap" 'BEGIN { exit !(g >= 0.99) }'
RAG_WEBHOOK_BACKOFF=soon run rag rag-gate $GATE --webhook "$HOOK" "$T/one.jsonl"
is "$RC" 2 "RAG_WEBHOOK_BACKOFF that is not seconds: exit 2"

# ---------------------------------------------------------------- webhooks that fail
BAD="http://hookuser:hookpass-5ecret@127.0.0.1:$FAKE_PORT/hooks/T0/path-5ecret?token=tok-5ecret"
run rag rag-gate $GATE --webhook "$BAD" "$T/in.jsonl"
keep_err
is "$RC:$(cat "$OUT")" "$PLAIN_RC:$(cat "$T/plain.out")" "a webhook answering 404: the gate goes on, the same lines and exit status"
is "$(grep -c 'warning: --webhook: webhook http://127.0.0.1:[0-9]*/\.\.\.: http 404' "$ERR")" 4 "each failed POST a warning on standard error, with the status"
is "$(jq -c 'select(.path | startswith("/hooks/")) | .body.window' "$FAKE_LOG" | tr '\n' ' ')" "1 2 3 4 " "the fake saw the four POSTs"
PORT=$FAKE_PORT
fake_stop
run rag rag-gate $GATE --webhook "http://hookuser:hookpass-5ecret@127.0.0.1:$PORT/hooks/path-5ecret?token=tok-5ecret" "$T/in.jsonl"
keep_err
is "$RC:$(cat "$OUT")" "$PLAIN_RC:$(cat "$T/plain.out")" "a webhook nobody listens on: the gate goes on, the same lines and exit status"
is "$(grep -c 'warning: --webhook: webhook http://127.0.0.1:[0-9]*/\.\.\.: .* (3 tries)$' "$ERR")" 4 "each failed connection a warning, after 3 tries"
run rag rag-gate $GATE --webhook "ftp://127.0.0.1/x" "$T/in.jsonl"
keep_err
like "$(cat "$ERR")" "not an http or https URL" "an ftp:// webhook: refused as each window fires, the gate goes on"
is "$(grep -c 'webhook' "$T/all.err")" 13 "thirteen warnings kept: 1 for 500, 4 for 404, 4 unreachable, 4 ftp"
unlike "$(cat "$T/all.err")" "5ecret" "no message shows the URL's user, password, path or query"

run rag rag-gate -t faithfulness=0.5 --webhook "$HOOK" "$T/in.jsonl"
keep_err
is "$RC" 2 "--webhook without --window: exit 2"
like "$(cat "$ERR")" "--webhook" "and says why"
unlike "$(cat "$ERR")" "5ecret" "without naming the URL"

done_testing
