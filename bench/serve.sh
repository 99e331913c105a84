#!/bin/sh
# serve.sh - rag-serve's JSON API under concurrent clients, over a big store (not a test).
#
#   sh bench/serve.sh [--smoke] [--json] [--pg] [-r RUNS] [-n RECORDS] [-c CLIENTS]
#                     [-d SECONDS] [-t THREADS]
#
# Builds a SQLite store (with --pg, then the same on a PostgreSQL server of its own:
# bench_pg_start, fsync off) of RUNS (default 200) runs of RECORDS (default 1000) scored records each
# (bench_records_store's records, about 880 bytes a record; one `rag-store add RUNDIR` a run, its
# run.json giving the id runI, a start spread over November 2026, the label vK (K = I mod 4 + 1),
# a commit and the test set qa), timed as a whole; checks the store's counts (GET /api/info).
# Then starts bin/rag-serve on 127.0.0.1:0 (libmicrohttpd) and, on each endpoint in
# turn, runs wrk (HTTP/1.1, keep-alive) with CLIENTS (default 50) connections on THREADS
# (default 2) threads for SECONDS (default 60), each request's path drawn by bench/serve.lua
# (pages of 20, as the page asks for them):
#   runs     GET /api/runs?offset=O&limit=20: a page of the run list (O drawn)
#   records  GET /api/runs/runI/records?offset=O&limit=20: a page of a run's records (by seq;
#            the run and O drawn)
#   filter   GET /api/runs?offset=0&limit=20&label=vK&since=2026-11-DD: the run list filtered by
#            a label and a start day (both drawn)
# and reports per endpoint: the requests done, the replies that were not 200, socket errors
# (connect, read, write, timeouts of 30 s), the median, 99th percentile and largest latency
# (ms, wrk's), requests/s, rag-serve's peak resident memory during that endpoint (VmHWM of
# /proc/PID/status, reset before each endpoint through /proc/PID/clear_refs) and the CPU it
# used (utime + stime of /proc/PID/stat over the endpoint's seconds: 100 % is one core, all a
# server that uses the store one request at a time can have). Each endpoint's first path is asked once with curl before its
# load, its reply checked. Nothing leaves 127.0.0.1. wrk is Debian's package wrk
# (`sh mk/deps.sh install bench`).
# --smoke: 3 runs of 50 records, 4 clients, 2 s an endpoint (a check that the script works).
# BENCH_KEEP=1 keeps the work directory. Exit status: 0, or 1 when the store was not built,
# rag-serve did not start or stopped, or a request failed (not 200, or a socket error); 2 on
# usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

usage() { echo "usage: $0 [--smoke] [--json] [--pg] [-r RUNS] [-n RECORDS] [-c CLIENTS] [-d SECONDS] [-t THREADS]" >&2; exit 2; }
R='' N='' C='' D='' TH=2 SMOKE=0 JSON=0 PG=0
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) SMOKE=1 ;;
	--json) JSON=1 ;;
	--pg) PG=1 ;;
	-r) [ $# -ge 2 ] || usage; R=$2; shift ;;
	-n) [ $# -ge 2 ] || usage; N=$2; shift ;;
	-c) [ $# -ge 2 ] || usage; C=$2; shift ;;
	-d) [ $# -ge 2 ] || usage; D=$2; shift ;;
	-t) [ $# -ge 2 ] || usage; TH=$2; shift ;;
	-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) usage ;;
	esac
	shift
done
if [ "$SMOKE" = 1 ]; then
	: "${R:=3}" "${N:=50}" "${C:=4}" "${D:=2}"
fi
: "${R:=200}" "${N:=1000}" "${C:=50}" "${D:=60}"
for v in "$R" "$N" "$C" "$D" "$TH"; do case $v in ''|*[!0-9]*|0) usage ;; esac; done
# the starts spread over the 30 days of November, a second apart at least
[ "$R" -le 2592000 ] || usage
[ "$TH" -le "$C" ] || TH=$C
bench_need wrk curl jq
bench_setup serve rag-store rag-serve

# ---------------------------------------------------------------- a backend
mkdir -p "$W/run" "$W/work"
bench_records_store "$N" run "$W/run/records.jsonl"
STEP=$((2592000 / R))
TCK=$(getconf CLK_TCK)
FAILED=0
ROWS=

# build STORE: the RUNS runs added, one rag-store add each; BUILD_S the seconds it took
build() {
	_t0=$(now)
	_i=1
	while [ $_i -le "$R" ]; do
		_s=$(((_i - 1) * STEP))
		_st=$(printf '2026-11-%02dT%02d:%02d:%02dZ' $((1 + _s / 86400)) $((_s % 86400 / 3600)) $((_s % 3600 / 60)) $((_s % 60)))
		printf '{"run_id":"run%d","started":"%s","ended":"%s","label":"v%d","testset":"qa","metrics":["faithfulness","context_recall","answer_relevancy","context_precision"],"git":{"commit":"%08x00000000000000000000000000000000","dirty":false},"gate":"pass","exit_status":0}\n' \
			"$_i" "$_st" "$_st" $((_i % 4 + 1)) $((_i * 40503 % 4294967296)) >"$W/run/run.json"
		"$BIN/rag-store" -q --store "$1" add "$W/run" >/dev/null 2>"$W/add.err" ||
			{ echo "serve.sh: rag-store add of run$_i failed: $(cat "$W/add.err")" >&2; return 1; }
		_i=$((_i + 1))
	done
	BUILD_S=$(awk -v a="$_t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
}

# serve_start STORE: rag-serve on a free loopback port, its PID in SPID, its URL in URL
SPID=
serve_start() {
	# wrk's connections all come from 127.0.0.1: no limit a client
	"$BIN/rag-serve" --store "$1" --listen 127.0.0.1:0 --work-dir "$W/work" --per-client 0 2>"$W/serve.err" &
	SPID=$!
	_i=0
	while ! grep -qs 'http://127\.0\.0\.1:[0-9]*/$' "$W/serve.err" && kill -0 "$SPID" 2>/dev/null && [ $_i -lt 200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*/$' "$W/serve.err" | head -n 1)
	[ -n "$URL" ] || { echo "serve.sh: rag-serve did not start: $(cat "$W/serve.err")" >&2; return 1; }
	_got=$(curl -s "${URL}api/info" | jq -r '"\(.runs) \(.records)"' 2>/dev/null)
	[ "$_got" = "$R $((R * N))" ] ||
		{ echo "serve.sh: the store holds \"$_got\" runs and records, not $R $((R * N))" >&2; return 1; }
}
serve_stop() {
	[ -n "$SPID" ] && kill -TERM "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	SPID=
}
trap 'serve_stop; bench_pg_stop; _bench_cleanup' EXIT

# check ENDPOINT: its first path answered 200 with what the store holds
check() {
	case $1 in
	runs) _p="api/runs?offset=0&limit=20" _want=$R _got='.total' ;;
	records) _p="api/runs/run1/records?offset=0&limit=20" _want=$((N < 20 ? N : 20)) _got='.records | length' ;;
	filter) _p="api/runs?offset=0&limit=20&label=v2&since=2026-11-01" _want=$(((R + 3) / 4)) _got='.total' ;;
	esac
	_code=$(curl -s -o "$W/check.$1" -w '%{http_code}' "$URL$_p")
	[ "$_code:$(jq "$_got" "$W/check.$1" 2>/dev/null)" = "200:$_want" ] ||
		{ echo "serve.sh: GET /$_p: $_code, $(head -c 200 "$W/check.$1"), not $_want" >&2; return 1; }
}

# backend NAME STORE: build it, serve it, load each endpoint; a row of ROWS an endpoint:
#   backend build_s db_kb endpoint requests non200 sockerr p50 p99 max rps secs rss_kb cpu%
backend() {
	build "$2" || { FAILED=1; return; }
	case $2 in sqlite://*) _kb=$(($(wc -c <"${2#sqlite://}") / 1024)) ;; *) _kb=- ;; esac
	serve_start "$2" || { FAILED=1; serve_stop; return; }
	for _ep in runs records filter; do
		check "$_ep" || { FAILED=1; continue; }
		{ echo 5 >"/proc/$SPID/clear_refs"; } 2>/dev/null ||
			echo "serve.sh: cannot reset rag-serve's peak memory: the endpoints' peaks add up" >&2
		_c0=$(awk '{ print $14 + $15 }' "/proc/$SPID/stat")
		wrk -t "$TH" -c "$C" -d "${D}s" --timeout 30s -s "$TOP/bench/serve.lua" "$URL" -- "$_ep" "$R" "$N" \
			>"$W/wrk.$1.$_ep" 2>&1
		_c1=$(awk '{ print $14 + $15 }' "/proc/$SPID/stat" 2>/dev/null)
		_hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$SPID/status" 2>/dev/null)
		_res=$(grep '^serve-result ' "$W/wrk.$1.$_ep")
		if [ -z "$_res" ] || [ -z "$_hwm" ]; then
			echo "serve.sh: $1 $_ep: wrk or rag-serve failed: $(tail -n 5 "$W/wrk.$1.$_ep") $(tail -n 3 "$W/serve.err")" >&2
			FAILED=1
			break
		fi
		_row=$(echo "$_res" | awk -v b="$1 $BUILD_S $_kb $_ep" -v hwm="$_hwm" -v c0="$_c0" -v c1="$_c1" -v tck="$TCK" \
			'{ printf "%s %s %s %s %s %s %s %s %s %s %.0f", b, $2, $3, $4, $5, $6, $7, $8, $9, hwm, 100 * (c1 - c0) / tck / $9 }')
		[ "$(echo "$_row" | awk '{ print $6 + $7 }')" = 0 ] || FAILED=1
		ROWS="$ROWS$_row
"
	done
	serve_stop
}

backend sqlite "sqlite://$W/runs.db"
if [ "$PG" = 1 ]; then
	bench_pg_start
	case $? in
	0) backend postgresql "$PG_URL" ;;
	1) FAILED=1 ;;
	2) echo "serve.sh: --pg: PostgreSQL's server is not installed (postgresql)" >&2; FAILED=1 ;;
	esac
fi

# ---------------------------------------------------------------- the table
if [ "$JSON" = 1 ]; then
	printf '%s' "$ROWS" | awk -v r="$R" -v n="$N" -v c="$C" -v d="$D" -v th="$TH" '
	BEGIN { printf "{\"runs\":%s,\"records\":%s,\"clients\":%s,\"seconds\":%s,\"threads\":%s,\"backends\":[", r, n, c, d, th }
	NF && $1 != last { printf "%s{\"backend\":\"%s\",\"store_build_s\":%s,\"db_kb\":%s,\"endpoints\":[", nb++ ? "]}," : "", $1, $2, $3 == "-" ? "null" : $3; last = $1; k = 0 }
	NF { printf "%s{\"endpoint\":\"%s\",\"requests\":%s,\"non200\":%s,\"socket_errors\":%s,\"p50_ms\":%s,\"p99_ms\":%s,\"max_ms\":%s,\"requests_per_s\":%s,\"seconds\":%s,\"peak_rss_kb\":%s,\"server_cpu_pct\":%s}", k++ ? "," : "", $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14 }
	END { printf "%s]}\n", nb ? "]}" : "" }'
else
	echo "rag-serve, $R runs x $N records; wrk: $C connections on $TH threads, $D s an endpoint"
	printf '%s' "$ROWS" | awk '
	NF && $1 != last {
		printf "%s%s: the store built in %s s%s\n", last == "" ? "" : "\n", $1, $2, $3 == "-" ? "" : sprintf(", %.0f MB", $3 / 1024)
		printf "%-8s %9s %8s %9s %8s %8s %8s %9s %9s %7s\n", "endpoint", "requests", "non-200", "sock err", "p50 ms", "p99 ms", "max ms", "req/s", "peak MB", "CPU %"
		last = $1
	}
	NF { printf "%-8s %9s %8s %9s %8s %8s %8s %9s %9.1f %7s\n", $4, $5, $6, $7, $8, $9, $10, $11, $13 / 1024, $14 }'
fi
exit "$FAILED"
