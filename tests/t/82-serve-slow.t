#!/bin/sh
# 82-serve-slow.t - rag-serve under slow clients and a store held locked (issue 36, safety 2):
# 60 connections of one client (127.0.0.2) that send the start of a request and a header line
# every 0.3 to 0.6 s hold no more than --per-client of the slots, legitimate requests (from
# 127.0.0.1) are answered meanwhile, and the ones let in are cut at --request-timeout however
# their bytes trickle in; while another process holds an exclusive lock on the SQLite store,
# requests that read it end with 503 or 500 after about --store-wait seconds, and the page and
# the session are answered at once (a thread a connection). Bounded: tests/slowclients.py ends
# after 60 s at most; every wait is on a state (its state file, a file a helper writes).
. "$(dirname "$0")/lib.sh"
need jq curl python3
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
DB=$T/store.db
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"
head -n 2 "$TOP/share/examples/example.jsonl" | jq -c '{id, question, reference}' >"$T/qa.jsonl"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" testset import "$T/qa.jsonl" --name qa
is "$RC" 0 "a test set imported"
SLOW= LOCKER=
trap 'serve_stop; for p in $SLOW $LOCKER; do kill "$p" 2>/dev/null; done; _lib_cleanup' EXIT

run rag rag-serve -c "$T/c.yaml" --store "$DB" --per-client x
is "$RC" 2 "--per-client x: exit 2"
serve_start --store "$DB" --work-dir "$T/work" --max-connections 40 --per-client 8 --request-timeout 5 \
	--store-wait 2 || bail_out "rag-serve did not start"
PORT=${HOSTPORT##*:}
legit() {   # legit PATH: the HTTP status of a request from 127.0.0.1 (000: none in 10 s)
	curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$URL${1#/}"
}

# ---------------------------------------------------------------- one slow client, 60 connections
python3 "$TOP/tests/slowclients.py" --port "$PORT" -n 60 --source 127.0.0.2 --interval 0.3:0.6 --max-seconds 60 \
	--state "$T/slow.json" &
SLOW=$!
wait_until 30 jq -e '.opened + .failed == 60 and .closed >= 52' "$T/slow.json" >/dev/null 2>&1
is "$(jq -c '[.opened, .failed, ([.lives[] | select(. < 1)] | length)]' "$T/slow.json")" '[60,0,52]' \
	"60 connections from one client: 52 closed at once (--per-client 8)"
codes=
for i in 1 2 3 4 5; do codes="$codes$(legit /api/session) $(legit /api/runs) "; done
is "$codes" "$(printf '200 200 %.0s' 1 2 3 4 5)" "10 legitimate requests from another client meanwhile: each answered"
# the 8 let in trickle a header line every 0.6 s at most, which restarts libmicrohttpd's own
# timeout (30 s); the deadline of the request (5 s) cuts them all the same
wait_until 40 jq -e '.open == 0' "$T/slow.json" >/dev/null
is "$(jq '.open' "$T/slow.json")" 0 "the 8 held ones are cut while they still send bytes"
is "$(jq '[.lives[] | select(. >= 4.5 and . < 25)] | length' "$T/slow.json")" 8 \
	"each after the 5 s the request has (not libmicrohttpd's 30 s)"
kill "$SLOW" 2>/dev/null; wait "$SLOW" 2>/dev/null; SLOW=
is "$(legit /api/session)" 200 "and the server answers"

# ---------------------------------------------------------------- a store held locked by another process
python3 - "$DB" "$T/locked" "$T/release" <<'EOF' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
end = time.monotonic() + 120          # bounded: never holds it longer
while not os.path.exists(sys.argv[3]) and time.monotonic() < end:
    time.sleep(0.05)
db.execute("COMMIT")
EOF
LOCKER=$!
wait_until 10 test -e "$T/locked"
check "another process holds an exclusive lock on the store" test -e "$T/locked"
# two requests that read the store, sent whole before the page is asked for: on one thread the
# page would wait behind them
python3 - "$PORT" "$T/runs" <<'EOF' &
import http.client, json, sys, threading, time
port, out = int(sys.argv[1]), sys.argv[2]
res = []
def one(i):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    t0 = time.monotonic()
    c.putrequest("GET", "/api/runs")
    c.endheaders()
    open("%s.sent%d" % (out, i), "w").close()
    try:
        r = c.getresponse()
        res.append([r.status, round(time.monotonic() - t0, 2)])
    except OSError:
        res.append([0, round(time.monotonic() - t0, 2)])
ts = [threading.Thread(target=one, args=(i,)) for i in range(2)]
for t in ts: t.start()
for t in ts: t.join()
with open(out + ".tmp", "w") as f: json.dump(sorted(res), f)
import os; os.replace(out + ".tmp", out + ".json")
EOF
RUNS=$!
wait_until 10 test -e "$T/runs.sent0" -a -e "$T/runs.sent1"
is "$(legit /):$(legit /api/session)" 200:200 "the page and the session are answered while both wait on the store"
wait "$RUNS"
is "$(jq -c '[.[] | (.[0] == 503 or .[0] == 500) and .[1] < 15]' "$T/runs.json")" '[true,true]' \
	"the requests that read it end (503 or 500) after about --store-wait, not the store's 120 s"
touch "$T/release"
wait "$LOCKER"; LOCKER=
is "$(legit /api/runs)" 200 "the lock released: the store is read again"

serve_stop
is "$SRC" 0 "rag-serve stops: exit 0"
done_testing
