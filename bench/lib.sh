# lib.sh - what the benchmarks share (sourced, POSIX sh).
#   bench_args "OPTS" "$@"     the options: --json, -n RECORDS, -h (the script's header comment),
#                             and -j CONCURRENCY and --latency-ms MS where OPTS has j and l;
#                             defaults in N, J, LAT beforehand; sets JSON
#   bench_need CMD...          exits 2 unless each command (jq, /usr/bin/time...) is there
#   bench_time LABEL CMD...    CMD under GNU time, stdout in $W/out.LABEL, stderr in $W/err.LABEL;
#                             sets RC, SECS, RSS_KB
#   bench_setup NAME TOOL...   checks the tools are built, makes the work dir $W (removed at exit
#                             unless BENCH_KEEP=1), cleans the environment, writes $W/rag.yaml
#   bench_fake LATENCY_MS      starts tests/fakellm.py, exports RAG_BASE_URL; its log: $W/fake.log
#   now                        seconds, with fractions
BIN=${RAG_BIN:-$TOP/bin}
FAKE_PID=

_bench_usage() {
	_u="usage: $0 [--json] [-n RECORDS]"
	case $1 in *j*) _u="$_u [-j CONCURRENCY]" ;; esac
	case $1 in *l*) _u="$_u [--latency-ms MS]" ;; esac
	echo "$_u" >&2
	exit 2
}

bench_args() {
	_opts=$1; shift
	JSON=0
	while [ $# -gt 0 ]; do
		case $1 in
		--json) JSON=1 ;;
		-n) [ $# -ge 2 ] || _bench_usage "$_opts"; N=$2; shift ;;
		-j) case $_opts in *j*) [ $# -ge 2 ] && J=$2 && shift ;; *) false ;; esac || _bench_usage "$_opts" ;;
		--latency-ms) case $_opts in *l*) [ $# -ge 2 ] && LAT=$2 && shift ;; *) false ;; esac || _bench_usage "$_opts" ;;
		-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
		*) _bench_usage "$_opts" ;;
		esac
		shift
	done
	for _v in "$N" ${J:+"$J"} ${LAT:+"$LAT"}; do
		case $_v in ''|*[!0-9]*|0) _bench_usage "$_opts" ;; esac
	done
}

bench_need() {
	for _c in "$@"; do
		command -v "$_c" >/dev/null 2>&1 || { echo "${0##*/}: $_c is not installed" >&2; exit 2; }
	done
}

bench_time() {
	_label=$1; shift
	/usr/bin/time -v -o "$W/time.$_label" "$@" >"$W/out.$_label" 2>"$W/err.$_label"
	RC=$?
	SECS=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$W/time.$_label")
	RSS_KB=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$W/time.$_label")
}

bench_setup() {
	_name=$1; shift
	for _t in "$@"; do
		[ -x "$BIN/$_t" ] || { echo "$_name.sh: $BIN/$_t is not built (make)" >&2; exit 2; }
	done
	mkdir -p bench/out
	W=$(mktemp -d "$TOP/bench/out/$_name.XXXXXX") || exit 2
	trap _bench_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	unset RAG_CONFIG RAG_MODEL RAG_PROVIDER RAG_CACHE_DIR RAG_LANG OPENAI_API_KEY
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
	no_proxy='*' NO_PROXY='*'
	XDG_CONFIG_HOME=$W/config XDG_CACHE_HOME=$W/cache
	RAG_CACHE=off RAG_API_KEY=bench-key
	export no_proxy NO_PROXY XDG_CONFIG_HOME XDG_CACHE_HOME RAG_CACHE RAG_API_KEY
	printf 'llm:\n  model: fake-judge\n  timeout: 30\n' >"$W/rag.yaml"
}

_bench_cleanup() {
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
	[ "${BENCH_KEEP:-0}" = 1 ] && echo "kept $W" >&2 || rm -rf "$W"
}

bench_fake() {
	python3 tests/fakellm.py --port 0 --port-file "$W/port" --log "$W/fake.log" \
		--latency-ms "$1" --max-seconds 900 </dev/null >"$W/fake.out" 2>&1 &
	FAKE_PID=$!
	_i=0
	while [ ! -s "$W/port" ] && [ $_i -lt 100 ]; do sleep 0.05; _i=$((_i + 1)); done
	[ -s "$W/port" ] || { echo "$_name.sh: the fake did not start" >&2; cat "$W/fake.out" >&2; exit 1; }
	RAG_BASE_URL=http://127.0.0.1:$(cat "$W/port")/v1
	export RAG_BASE_URL
}

now() { date +%s.%N 2>/dev/null | grep -v N || python3 -c 'import time; print("%.6f" % time.time())'; }
