# lib.sh - what the benchmarks against the fake judge share (sourced, POSIX sh).
#   bench_setup NAME TOOL...   checks the tools are built, makes the work dir $W (removed at exit
#                             unless BENCH_KEEP=1), cleans the environment, writes $W/rag.yaml
#   bench_fake LATENCY_MS      starts tests/fakellm.py, exports RAG_BASE_URL; its log: $W/fake.log
#   now                        seconds, with fractions
BIN=${RAG_BIN:-$TOP/bin}
FAKE_PID=

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
