#!/bin/sh
# serve-slow.sh - rag-serve's legitimate requests under slow clients and under a held store
# lock (issue 36; not a test).
#
#   sh bench/serve-slow.sh [--bin RAG-SERVE] [-n SLOW] [-d SECONDS] [-- RAG-SERVE-ARGS...]
#
# Starts RAG-SERVE (default bin/rag-serve) on 127.0.0.1:0 over a new SQLite store (a test set
# imported, so that GET /api/runs reads the store), and in each scenario two legitimate
# clients on 127.0.0.1 ask for SECONDS (default 40), each one request at a time, 8 a second at
# most: one GET /api/runs?limit=20 (it reads the store), the other GET / (the page, no store),
# each request on a new connection with a 30 s limit (one not answered in time, refused or
# reset counts as failed, at 30 s). The scenarios:
#   idle      no one else
#   slow      SLOW (default 300) slow clients from 127.0.0.2, one attacker: each sends the start
#             of a request and a header line every 5 to 15 s (tests/slowclients.py), and opens
#             again a second after the server closes it
#   slow-30   the same SLOW clients spread over 30 addresses (127.0.1.1 to 127.0.1.30)
#   lock      another process holds an exclusive lock on the store (BEGIN EXCLUSIVE) all along
# Prints a line per scenario and kind of request: requests, answered (HTTP 2xx), failed, other
# statuses (such as 503), and the median, 99th percentile and largest latency in ms. Nothing
# leaves 127.0.0.1. A new rag-serve for each scenario. Exit status 0, 1 when rag-serve did not
# start, 2 on usage errors.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
BIN=$TOP/bin/rag-serve N=300 D=40
while [ $# -gt 0 ]; do
	case $1 in
	--bin) BIN=$2; shift ;;
	-n) N=$2; shift ;;
	-d) D=$2; shift ;;
	--) shift; break ;;
	-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) echo "usage: $0 [--bin RAG-SERVE] [-n SLOW] [-d SECONDS] [-- RAG-SERVE-ARGS...]" >&2; exit 2 ;;
	esac
	shift
done
W=$(mktemp -d) || exit 2
SPID= APID= LPID=
cleanup() {
	for p in $APID $LPID $SPID; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
export RAG_DATADIR="$TOP/share" RAG_CACHE=off
unset RAG_CONFIG RAG_API_KEY RAG_BASE_URL OPENAI_API_KEY
printf 'llm:\n  provider: offline\n' >"$W/c.yaml"
DB=$W/store.db
"$TOP/bin/rag-store" -q -c "$W/c.yaml" --store "$DB" testset import "$TOP/share/examples/example.jsonl" --name qa >/dev/null ||
	exit 1

serve_start() {
	# the previous server's lines gone first: the background shell may open the file after the wait began
	rm -f "$W/serve.err"
	"$BIN" -q -c "$W/c.yaml" --store "$DB" --work-dir "$W/work" --listen 127.0.0.1:0 "$@" 2>"$W/serve.err" &
	SPID=$!
	i=0
	while ! grep -qs 'http://127\.0\.0\.1:[0-9]*/$' "$W/serve.err"; do
		i=$((i + 1))
		[ $i -lt 300 ] && kill -0 "$SPID" 2>/dev/null || { cat "$W/serve.err" >&2; exit 1; }
		sleep 0.1
	done
	PORT=$(grep -o '127\.0\.0\.1:[0-9]*/$' "$W/serve.err" | head -n 1 | sed 's/.*://; s,/,,')
}
serve_stop() { kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; SPID=; }

# legit NAME: the legitimate client's requests for D seconds, a line a kind
legit() {
	python3 - "$1" "$PORT" "$D" <<'EOF'
import http.client, sys, threading, time
name, port, dur = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
res = {"/api/runs?limit=20": [], "/": []}
end = time.monotonic() + dur
def client(path):
    while time.monotonic() < end:
        t0 = time.monotonic()
        st = 0
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.0.1", 0))
            c.request("GET", path, headers={"Host": "127.0.0.1:%d" % port})
            r = c.getresponse()
            r.read()
            st = r.status
            c.close()
        except (OSError, http.client.HTTPException):
            st = 0
        dt = time.monotonic() - t0
        res[path].append((st, 30.0 if st == 0 else dt))
        time.sleep(max(0.0, 0.125 - dt))
ts = [threading.Thread(target=client, args=(p,)) for p in res]
for t in ts: t.start()
for t in ts: t.join()
for path, v in res.items():
    lat = sorted(x[1] for x in v)
    n = len(lat)
    q = lambda p: lat[min(n - 1, int(p * n))] * 1000 if n else float("nan")
    ok = sum(1 for s, _ in v if 200 <= s < 300)
    failed = sum(1 for s, _ in v if s == 0)
    print("%-8s %-20s requests %4d  answered %4d  failed %4d  other %4d  p50 %8.1f ms  p99 %8.1f ms  max %8.1f ms" %
          (name, path, n, ok, failed, n - ok - failed, q(0.5), q(0.99), lat[-1] * 1000 if n else float("nan")))
EOF
}

echo "# rag-serve: $BIN $*; slow clients: $N; $D s a scenario; $(nproc) CPUs; $(date -u +%Y-%m-%dT%H:%MZ)"
serve_start "$@"
legit idle
serve_stop

for sc in slow slow-30; do
	serve_start "$@"
	if [ "$sc" = slow ]; then src=127.0.0.2; else src=$(seq -s, -f '127.0.1.%g' 1 30); fi
	python3 "$TOP/tests/slowclients.py" --port "$PORT" -n "$N" --source "$src" --interval 5:15 --reconnect \
		--max-seconds $((D + 30)) --state "$W/slow.json" &
	APID=$!
	# the slow clients in place first: every one opened once
	i=0
	while [ "$(jq -r '.opened + .failed' "$W/slow.json" 2>/dev/null || echo 0)" -lt "$N" ] && [ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1))
	done
	legit "$sc"
	kill "$APID" 2>/dev/null; wait "$APID" 2>/dev/null; APID=
	serve_stop
done

serve_start "$@"
python3 - "$DB" "$W/locked" <<'EOF' &
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(3600)
EOF
LPID=$!
i=0
while [ ! -e "$W/locked" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
legit lock
kill "$LPID" 2>/dev/null; wait "$LPID" 2>/dev/null; LPID=
serve_stop
exit 0
