# lib.sh - shared helpers for the shell tests (POSIX sh; sourced, not run).
#
#   #!/bin/sh
#   . "$(dirname "$0")/lib.sh"
#   fake_start --plan "$T/plan.json"
#   run rag rag-verify -c "$T/rag.yaml" <"$TOP/tests/fixtures/x.jsonl"
#   is "$RC" 0 "exit status"
#   check "one line per record" test "$(wc -l <"$OUT")" -eq 6
#   done_testing
#
# After sourcing: the cwd is the repo top ($TOP); $BIN is $TOP/bin; $T is a fresh temp dir
# under tests/tmp/ (removed at exit unless RAG_KEEP_TMP=1 or a test failed and
# RAG_KEEP_FAILED=1). The environment is cleaned of RAG_* / OPENAI_API_KEY / proxy variables,
# and XDG_CONFIG_HOME / XDG_CACHE_HOME / XDG_DATA_HOME point into $T so a user's config, cache
# and run store never leak in.
#
# TAP:  tap_plan N | tap_ok STATUS DESC | check DESC CMD... | is GOT WANT DESC | isnt GOT WANT DESC
#       like GOT ERE DESC | unlike GOT ERE DESC | diag MSG... (stderr: prove shows it) | note MSG...
#       (stdout: shown by prove -v only) | bail_out MSG | done_testing
# Skip: skip_missing TOOL [DESC] | skip_all_missing TOOL | need TOOL...   (a tool not installed:
#       make test-deps installs every tool a test uses, so .ci/run fails on these)
#       skip DESC... | skip_all REASON   (any other reason)
#       With RAG_SKIP_LOG set (make check sets it), each skip appends "TEST<TAB>KIND<TAB>REASON"
#       to that file, KIND being "missing TOOL" or "other"; make check counts them at the end.
# Run:  run CMD...          -> $OUT, $ERR (files), $RC (status); stdin is the caller's
#       rag TOOL ARGS...    -> bin/TOOL, under valgrind when RAG_VALGRIND=1 (exit 99 on errors)
# Fake: fake_start [fakellm args...] | fresh [PLAN] | fake_stop | fake_requests | $FAKE_LOG $FAKE_PORT $FAKE_URL
#       judge_config [MODEL] -> $CONF

# ---------------------------------------------------------------- locations
if [ -n "${RAG_TOP:-}" ]; then
	TOP=$RAG_TOP
else
	TOP=$(cd "$(dirname "$0")/../.." && pwd) || { echo "Bail out! cannot find the repo top"; exit 255; }
fi
cd "$TOP" || { echo "Bail out! cannot cd to $TOP"; exit 255; }
export TOP
BIN=${RAG_BIN:-$TOP/bin}   # RAG_BIN: test another build (e.g. an installed one)
FIXTURES=$TOP/tests/fixtures
top() { printf '%s\n' "$TOP"; }

_tname=$(basename "$0" .t)
mkdir -p "$TOP/tests/tmp" || { echo "Bail out! cannot create tests/tmp"; exit 255; }
T=$(mktemp -d "$TOP/tests/tmp/$_tname.XXXXXX") || { echo "Bail out! mktemp failed"; exit 255; }
export T

# ---------------------------------------------------------------- environment
unset RAG_CONFIG RAG_BASE_URL RAG_API_KEY RAG_MODEL RAG_PROVIDER RAG_CACHE RAG_CACHE_DIR RAG_LANG \
	RAG_DATADIR OPENAI_API_KEY OPENAI_BASE_URL
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy ftp_proxy FTP_PROXY
no_proxy='*'; NO_PROXY='*'
XDG_CONFIG_HOME=$T/config
XDG_CACHE_HOME=$T/cache
mkdir -p "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
LC_ALL=C.UTF-8
export no_proxy NO_PROXY XDG_CONFIG_HOME XDG_CACHE_HOME LC_ALL
# rag-store's default store ($XDG_DATA_HOME/ragpipe/runs.db) in $T too, never the user's
XDG_DATA_HOME=$T/data
export XDG_DATA_HOME
# rag-serve's work directory ($XDG_STATE_HOME/ragpipe/serve) too
XDG_STATE_HOME=$T/state
export XDG_STATE_HOME
if [ -e "$TOP/rag.yaml" ]; then
	echo "# warning: $TOP/rag.yaml exists and is read by tools run without -c"
fi

# ---------------------------------------------------------------- exit handling
FAKE_PID=
_tap_n=0
_tap_fail=0
_tap_planned=
_fake_n=0

_lib_cleanup() {
	_st=$?
	fake_stop
	if [ "${RAG_KEEP_TMP:-0}" = 1 ] || { [ "${RAG_KEEP_FAILED:-0}" = 1 ] && [ "$_tap_fail" -gt 0 ]; }; then
		echo "# kept $T"
	else
		rm -rf "$T"
	fi
	return $_st
}
trap '_lib_cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---------------------------------------------------------------- TAP
tap_plan() { _tap_planned=$1; echo "1..$1"; }
# diag LINE...: each argument on its own "# " line, on standard error, which prove shows
# (as Test::More's diag): a failing test says why in make check's output, without a rerun.
# note LINE...: the same on standard output, which prove keeps to itself unless -v (figures
# a test measured, for a verbose run)
diag() { for _l in "$@"; do printf '%s\n' "$_l"; done | sed 's/^/# /' >&2; }
note() { for _l in "$@"; do printf '%s\n' "$_l"; done | sed 's/^/# /'; }
bail_out() { echo "Bail out! $*"; exit 255; }

# _skip_log KIND REASON
_skip_log() {
	[ -n "${RAG_SKIP_LOG:-}" ] && printf '%s\t%s\t%s\n' "$_tname" "$1" "$2" >>"$RAG_SKIP_LOG"
	return 0
}
skip_all() { _skip_log other "$* (the whole file)"; echo "1..0 # SKIP $*"; _tap_planned=0; exit 0; }
skip_all_missing() {
	_skip_log "missing $1" "$1 is not installed (the whole file)"
	echo "1..0 # SKIP $1 is not installed"; _tap_planned=0; exit 0
}
# need TOOL...: skip the whole file unless every TOOL is installed.
need() {
	for _need in "$@"; do
		command -v "$_need" >/dev/null 2>&1 || skip_all_missing "$_need"
	done
}

# need_browser: skip the whole file unless headless Chromium can be driven (chromium,
# chromedriver, Selenium); sets PY, the python3 that imports selenium (Debian's
# python3-selenium is /usr/bin/python3's, whatever python3 comes first in PATH), and exports
# CHROMIUM and CHROMEDRIVER for tests/browser/*.py.
need_browser() {
	need python3 chromium chromedriver
	PY=python3
	if ! "$PY" -c 'import selenium' 2>/dev/null; then
		PY=/usr/bin/python3
		"$PY" -c 'import selenium' 2>/dev/null || skip_all_missing python3-selenium
	fi
	CHROMIUM=$(command -v chromium) CHROMEDRIVER=$(command -v chromedriver)
	export CHROMIUM CHROMEDRIVER
}

# evals_api: the calls a test of rag-serve's Run tab makes, once URL, HOSTPORT and CSRF are
# set: get PATH and post PATH JSON (the reply in $OUT, its HTTP status in $CODE), state ID (a
# run's state; its reply in $T/state.json) and ended ID (true once it is neither running nor
# cancelling). Every reply is also appended to $T/replies (emptied here), where the test looks
# for a secret at the end.
evals_api() {
	: >"$T/replies"
	get() {
		CODE=$(curl -s -o "$OUT" -w '%{http_code}' "$URL${1#/}")
		cat "$OUT" >>"$T/replies"
	}
	post() {
		CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "Origin: http://$HOSTPORT" -H "X-CSRF-Token: $CSRF" \
			-H 'Content-Type: application/json' --data "$2" "$URL${1#/}")
		cat "$OUT" >>"$T/replies"
	}
	state() {
		curl -s "${URL}api/evals/$1" >"$T/state.json"
		cat "$T/state.json" >>"$T/replies"
		jq -r .state "$T/state.json"
	}
	ended() { case $(state "$1") in running|cancelling) return 1 ;; esac; }
}

# tap_ok STATUS DESC: pass when STATUS is 0.
tap_ok() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ] 2>/dev/null; then
		echo "ok $_tap_n - $2"
		return 0
	fi
	_tap_fail=$((_tap_fail + 1))
	echo "not ok $_tap_n - $2"
	diag "  Failed test $_tap_n - $2 ($_tname)"
	return 1
}

# skip DESC: a passing test marked SKIP, for a reason other than a tool not installed.
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $*"; _skip_log other "$*"; }
# skip_missing TOOL [DESC]: a test skipped because TOOL is not installed.
skip_missing() {
	_sm=$1; shift
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n # SKIP $_sm is not installed${1:+: $*}"
	_skip_log "missing $_sm" "$_sm is not installed${1:+: $*}"
}

# check DESC CMD...: pass when CMD exits 0 (its stdout/stderr are shown only on failure).
check() {
	_d=$1; shift
	"$@" >"$T/.check" 2>&1
	_s=$?
	if ! tap_ok "$_s" "$_d"; then
		diag "  command: $* (exit $_s)"
		head -c 2000 "$T/.check" | sed 's/^/#   /' >&2
	fi
	return $_s
}

# is GOT WANT DESC
is() {
	if [ "$1" = "$2" ]; then tap_ok 0 "$3"; return 0; fi
	tap_ok 1 "$3"
	printf '%s\n' "$1" >"$T/.got"; printf '%s\n' "$2" >"$T/.want"
	if [ "$(wc -l <"$T/.got")" -le 1 ] && [ "$(wc -l <"$T/.want")" -le 1 ]; then
		diag "   got: '$1'" "  want: '$2'"
	else
		diff -u "$T/.want" "$T/.got" | sed -e '1,2d' -e 's/^/#   /' | head -40 >&2
	fi
	return 1
}
isnt() {
	if [ "$1" != "$2" ]; then tap_ok 0 "$3"; return 0; fi
	tap_ok 1 "$3"; diag "   got: '$1'" "  (should differ)"; return 1
}

# like GOT ERE DESC (grep -E on the whole text)
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then tap_ok 0 "$3"; return 0; fi
	tap_ok 1 "$3"; diag "   got: '$(printf '%s' "$1" | head -c 600)'" ; diag "  want match: /$2/"; return 1
}
unlike() {
	if ! printf '%s\n' "$1" | grep -Eq -- "$2"; then tap_ok 0 "$3"; return 0; fi
	tap_ok 1 "$3"; diag "   got: '$(printf '%s' "$1" | head -c 600)'"; diag "  should not match: /$2/"; return 1
}

done_testing() {
	if [ -z "$_tap_planned" ]; then
		echo "1..$_tap_n"
	elif [ "$_tap_planned" != "$_tap_n" ]; then
		diag "planned $_tap_planned tests but ran $_tap_n"
	fi
	[ "$_tap_fail" -eq 0 ] && exit 0
	diag "failed $_tap_fail of $_tap_n"
	exit 1
}

# ---------------------------------------------------------------- running tools
OUT=$T/out
ERR=$T/err
RC=0
# run CMD...: stdout -> $OUT, stderr -> $ERR, status -> $RC. Never fails itself.
run() {
	"$@" >"$OUT" 2>"$ERR"
	RC=$?
	return 0
}

# rag TOOL ARGS...: bin/TOOL, under valgrind when RAG_VALGRIND=1 (extra valgrind options in
# RAG_VALGRIND_OPTS). A hung tool is killed after RAG_TEST_TIMEOUT seconds (default 120; 0 = never)
# and then exits 124.
rag() {
	_tool=$1; shift
	if [ ! -x "$BIN/$_tool" ]; then
		echo "rag: $BIN/$_tool is not built (make)" >&2
		return 127
	fi
	_to=
	if [ "${RAG_TEST_TIMEOUT:-120}" != 0 ] && command -v timeout >/dev/null 2>&1; then
		_to="timeout -k 5 ${RAG_TEST_TIMEOUT:-120}"
		[ "${RAG_VALGRIND:-0}" = 1 ] && _to="timeout -k 5 $((${RAG_TEST_TIMEOUT:-120} * 5))"
	fi
	if [ "${RAG_VALGRIND:-0}" = 1 ]; then
		$_to valgrind -q --error-exitcode=99 --leak-check=full ${RAG_VALGRIND_OPTS:-} \
			"$BIN/$_tool" "$@"
	else
		$_to "$BIN/$_tool" "$@"
	fi
}

# nlines FILE: number of lines
# wait_until SECONDS CMD...: run CMD (a check of a state: a file, a log line, a process) every
# 0.05 s until it succeeds; gives up (status 1) after SECONDS. A bound for a hung tool, not a
# timing: the test then asserts on the state itself, never on how long it took.
wait_until() {
	_wu_n=$(($1 * 20))
	shift
	_wu_i=0
	until "$@"; do
		[ "$_wu_i" -ge "$_wu_n" ] && return 1
		sleep 0.05
		_wu_i=$((_wu_i + 1))
	done
}

nlines() { wc -l <"$1" | tr -d ' '; }

# ---------------------------------------------------------------- the fake LLM server
# fake_start [args for tests/fakellm.py]: start it (stopping a previous one), wait until
# /health answers (with FAKE_SERVER=fakerag.py: tests/fakerag.py, the fake RAG service), export RAG_BASE_URL, RAG_API_KEY=test-secret-key, RAG_CACHE=off.
# Each start gets a fresh log: $FAKE_LOG.
# judge_config [MODEL]: $CONF, a rag.yaml for a judge under test: MODEL (default judge-x),
# 10 s a request, no retries.
judge_config() {
	printf 'llm:\n  model: %s\n  timeout: 10\n  retries: 0\n' "${1:-judge-x}" >"$T/rag.yaml"
	CONF=$T/rag.yaml
}

# fresh [PLAN-JSON]: a new fake (empty log) that answers by that plan (default: []).
fresh() {
	printf '%s\n' "${1:-[]}" >"$T/plan.json"
	fake_start --plan "$T/plan.json"
}

fake_start() {
	fake_stop
	_fake_n=$((_fake_n + 1))
	FAKE_LOG=$T/fake.$_fake_n.log
	_pf=$T/fake.$_fake_n.port
	: >"$FAKE_LOG"
	python3 "$TOP/tests/${FAKE_SERVER:-fakellm.py}" --port 0 --port-file "$_pf" --log "$FAKE_LOG" \
		--max-seconds "${FAKE_MAX_SECONDS:-300}" "$@" \
		</dev/null >"$T/fake.$_fake_n.stdout" 2>"$T/fake.$_fake_n.stderr" &
	FAKE_PID=$!
	_i=0
	FAKE_PORT=
	while [ "$_i" -lt 100 ]; do         # 100 x 0.05 s = 5 s
		if [ -s "$_pf" ]; then
			FAKE_PORT=$(cat "$_pf")
			if _fake_health "$FAKE_PORT"; then break; fi
		fi
		if ! kill -0 "$FAKE_PID" 2>/dev/null; then
			sed 's/^/# fakellm: /' "$T/fake.$_fake_n.stderr"
			FAKE_PID=
			bail_out "fakellm exited during start"
		fi
		sleep 0.05
		_i=$((_i + 1))
	done
	if [ "$_i" -ge 100 ]; then
		sed 's/^/# fakellm: /' "$T/fake.$_fake_n.stderr"
		bail_out "fakellm did not answer /health within 5 s"
	fi
	FAKE_URL=http://127.0.0.1:$FAKE_PORT
	RAG_BASE_URL=$FAKE_URL/v1
	RAG_API_KEY=test-secret-key
	RAG_CACHE=off
	export FAKE_LOG FAKE_PORT FAKE_URL RAG_BASE_URL RAG_API_KEY RAG_CACHE
}

_fake_health() {
	if command -v curl >/dev/null 2>&1; then
		[ "$(curl -s --max-time 1 "http://127.0.0.1:$1/health" 2>/dev/null)" = ok ]
	else
		python3 -c 'import sys, urllib.request
sys.exit(0 if urllib.request.urlopen("http://127.0.0.1:%s/health" % sys.argv[1], timeout=1).read() == b"ok" else 1)' "$1" 2>/dev/null
	fi
}

fake_stop() {
	if [ -n "$FAKE_PID" ]; then
		kill "$FAKE_PID" 2>/dev/null
		wait "$FAKE_PID" 2>/dev/null
		FAKE_PID=
	fi
	return 0
}

# fake_requests: number of requests the current fake has logged.
fake_requests() {
	if [ -n "${FAKE_LOG:-}" ] && [ -f "$FAKE_LOG" ]; then nlines "$FAKE_LOG"; else echo 0; fi
}

# fake_requests_matching STR: requests whose body contains STR.
fake_requests_matching() {
	jq -c --arg m "$1" 'select((.body | tostring) | contains($m))' "$FAKE_LOG" | wc -l | tr -d ' '
}

# ---------------------------------------------------------------- a PostgreSQL server
# pg_start: a server of the test's own (initdb, pg_ctl) on a socket in $PGDIR/sock, no TCP, as
# nobody when run as root; its URL is postgresql://ragpipe@/postgres?host=$PGDIR/sock (trust:
# any password is taken). pg_stop stops it: a test that starts one sets
# trap 'pg_stop; _lib_cleanup' EXIT. $PGBIN: where the server's programs are.
# the newest major version installed (Debian 12 has 15, Debian 13 17)
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5n | tail -n 1)
PGBIN=${PGBIN:-/usr/lib/postgresql/none/bin}

PG_UP= PGDIR= AS=
pg_stop() {
	if [ -n "$PG_UP" ]; then
		$AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null 2>&1
		PG_UP=
	fi
	case $PGDIR in /tmp/ragpipe-pg.*) rm -rf "$PGDIR" ;; esac
}
# pg_start: a server of our own on a socket in $PGDIR/sock; PostgreSQL will not run as root
pg_start() {
	PGDIR=$T/pg
	mkdir -p "$PGDIR/sock" || return 1
	if [ "$(id -u)" = 0 ]; then
		AS="runuser -u nobody --"
		chmod 711 "$T"
		chown -R nobody "$PGDIR"
		if ! $AS test -w "$PGDIR/sock"; then
			# the tree above is closed to nobody: a directory of its own in /tmp
			PGDIR=$(mktemp -d /tmp/ragpipe-pg.XXXXXX) || return 1
			mkdir -p "$PGDIR/sock" && chown -R nobody "$PGDIR" && chmod 711 "$PGDIR" || return 1
		fi
	fi
	$AS "$PGBIN/initdb" -D "$PGDIR/data" -U ragpipe --auth=trust -E UTF8 --no-sync >"$T/initdb.log" 2>&1 ||
		{ diag "initdb failed:"; sed 's/^/#   /' "$T/initdb.log" | tail -5; return 1; }
	$AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w \
		-o "-k $PGDIR/sock -c listen_addresses= -c fsync=off" start >"$T/pg_ctl.log" 2>&1 ||
		{ diag "pg_ctl start failed:"; tail -5 "$PGDIR/log" | sed 's/^/#   /'; return 1; }
	PG_UP=1
}

# serve_start ARGS...: rag-serve on a free loopback port in the background, with the test's
# $T/c.yaml and ARGS (the process itself, not a wrapper, so that $SPID is the one to signal):
# $URL and $HOSTPORT from its "http://127.0.0.1:PORT/" line on stderr ($T/serve.err), $CSRF
# the page's token from /api/session (empty where it has none). serve_stop: SIGTERM, and its
# exit status in $SRC. A test that starts one traps serve_stop on EXIT.
SPID=
serve_start() {
	# a previous server's lines gone first: the background shell may open the file after the wait began
	rm -f "$T/serve.err"
	"$BIN/rag-serve" -c "$T/c.yaml" --listen 127.0.0.1:0 "$@" 2>"$T/serve.err" &
	SPID=$!
	wait_until 30 grep -qs 'http://127\.0\.0\.1:[0-9]*/$' "$T/serve.err" || { diag "$(cat "$T/serve.err")"; return 1; }
	URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*/$' "$T/serve.err" | head -n 1)
	HOSTPORT=${URL#http://}
	HOSTPORT=${HOSTPORT%/}
	CSRF=$(curl -s "${URL}api/session" | jq -r '.csrf // empty' 2>/dev/null)
}
serve_stop() {
	[ -n "$SPID" ] || return 0
	kill -TERM "$SPID" 2>/dev/null
	wait "$SPID"
	SRC=$?
	SPID=
}
