# lib.sh - what the benchmarks share (sourced, POSIX sh).
#   bench_args "OPTS" "$@"     the options: --json, -n RECORDS, -h (the script's header comment),
#                             and -j CONCURRENCY, --latency-ms MS and --service-ms MS where OPTS
#                             has j, l and s; defaults in N, J, LAT, SVC beforehand; sets JSON
#   bench_need CMD...          exits 2 unless each command (jq, /usr/bin/time...) is there
#   bench_time LABEL CMD...    CMD under GNU time, stdout in $W/out.LABEL, stderr in $W/err.LABEL;
#                             sets RC, SECS, RSS_KB
#   bench_setup NAME TOOL...   checks the tools are built, makes the work dir $W (removed at exit
#                             unless BENCH_KEEP=1), cleans the environment, writes $W/rag.yaml
#   bench_fake LATENCY_MS      starts tests/fakellm.py, exports RAG_BASE_URL; its log: $W/fake.log
#   bench_pg_start             a PostgreSQL server of the script's own (below), its store URL in
#                             PG_URL; bench_pg_stop stops it (trap it on EXIT)
#   now                        seconds, with fractions
#   bench_records_ap/gate/kw, bench_jq_ap/gate: the compute benchmarks' records and jq (below)
#   bench_records_store N RUN FILE: scored records of run RUN as a store holds them (below)
BIN=${RAG_BIN:-$TOP/bin}
FAKE_PID=

_bench_usage() {
	_u="usage: $0 [--json] [-n RECORDS]"
	case $1 in *j*) _u="$_u [-j CONCURRENCY]" ;; esac
	case $1 in *l*) _u="$_u [--latency-ms MS]" ;; esac
	case $1 in *s*) _u="$_u [--service-ms MS]" ;; esac
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
		--service-ms) case $_opts in *s*) [ $# -ge 2 ] && SVC=$2 && shift ;; *) false ;; esac || _bench_usage "$_opts" ;;
		-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
		*) _bench_usage "$_opts" ;;
		esac
		shift
	done
	for _v in "$N" ${J:+"$J"} ${LAT:+"$LAT"} ${SVC:+"$SVC"}; do
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

# bench_pg_start: a server of our own, as tests/t/lib.sh's pg_start: initdb and pg_ctl of the
# newest PostgreSQL installed (Debian 12 has 15, 13 has 17) on a socket in $W/pg/sock, no TCP,
# trust, fsync off (these are not a durable server's figures); as nobody when run as root
# (PostgreSQL will not run as root), in a directory of its own in /tmp when nobody cannot reach
# $W. Returns 0 (PG_URL set), 1 when it did not start (and says why), 2 when it is not installed.
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5n | tail -n 1)
PGBIN=${PGBIN:-/usr/lib/postgresql/none/bin}
PG_UP= PGDIR= AS= PG_URL=
bench_pg_start() {
	[ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pg_ctl" ] || return 2
	PGDIR=$W/pg
	mkdir -p "$PGDIR/sock" || return 1
	if [ "$(id -u)" = 0 ]; then
		AS="runuser -u nobody --"
		chmod 711 "$W"
		chown -R nobody "$PGDIR"
		if ! $AS test -w "$PGDIR/sock"; then
			PGDIR=$(mktemp -d /tmp/ragpipe-pg.XXXXXX) && mkdir -p "$PGDIR/sock" && chown -R nobody "$PGDIR" &&
				chmod 711 "$PGDIR" || return 1
		fi
	fi
	if $AS "$PGBIN/initdb" -D "$PGDIR/data" -U ragpipe --auth=trust -E UTF8 --no-sync >"$W/initdb.log" 2>&1 &&
		$AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w -o "-k $PGDIR/sock -c listen_addresses= -c fsync=off" \
			start >/dev/null 2>&1; then
		PG_UP=1
		PG_URL="postgresql://ragpipe@/postgres?host=$PGDIR/sock"
		return 0
	fi
	echo "${0##*/}: PostgreSQL did not start: $(tail -n 3 "$W/initdb.log" "$PGDIR/log" 2>/dev/null)" >&2
	return 1
}
bench_pg_stop() {
	[ -n "$PG_UP" ] && $AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null 2>&1
	PG_UP=
	case $PGDIR in /tmp/ragpipe-pg.*) rm -rf "$PGDIR" ;; esac
}

now() { date +%s.%N 2>/dev/null | grep -v N || python3 -c 'import time; print("%.6f" % time.time())'; }

# The seeded records of the compute benchmarks, the same file on every machine, and the jq
# programs that do the same work (ap.sh, gate.sh, kw.sh and compute.sh use them):
#   bench_records_ap N FILE    8 chunk verdicts a record; chunk j of record i useful when
#                              (i * 7 + j * 3 + i / 5) % 5 < 2: every pattern of positions
#   bench_records_gate N FILE  two scores (an LCG), five categories, every 100th faithfulness null
#   bench_records_kw N FILE    an answer and a reference of 12-20 words drawn from 200
#   bench_jq_ap FILE, bench_jq_gate FILE   the jq programs of rag-ap's metrics and rag-gate's table
bench_records_ap() {
	awk -v n="$1" 'BEGIN {
		for (i = 1; i <= n; i++) {
			printf "{\"id\":\"r%d\",\"verdicts\":{\"context_precision\":[", i
			for (j = 0; j < 8; j++) {
				v = ((i * 7 + j * 3 + int(i / 5)) % 5) < 2 ? "true" : "false"
				printf "%s{\"chunk\":\"chunk %d of record %d\",\"verdict\":%s,\"reason\":\"\"}", j ? "," : "", j + 1, i, v
			}
			printf "]}}\n"
		}
	}' >"$2"
}
bench_records_gate() {
	awk -v n="$1" 'BEGIN {
		split("math geo history science law", cat, " ")
		s = 12345
		for (i = 1; i <= n; i++) {
			s = (s * 1103515245 + 12345) % 2147483648; f = int(s / 2147483648 * 1000) / 1000
			s = (s * 1103515245 + 12345) % 2147483648; r = int(s / 2147483648 * 1000) / 1000
			fs = (i % 100 == 0) ? "null" : f
			printf "{\"id\":\"q%d\",\"category\":\"%s\",\"answer\":\"The answer to question %d.\",\"scores\":{\"faithfulness\":%s,\"context_recall\":%s}}\n", i, cat[i % 5 + 1], i, fs, r
		}
	}' >"$2"
}
bench_records_kw() {
	awk -v n="$1" 'BEGIN {
		srand(11)
		for (w = 0; w < 200; w++) word[w] = sprintf("w%c%c%d", 97 + w % 26, 97 + int(w / 26) % 26, w % 7)
		word[0] = "The"; word[1] = "returns"; word[2] = "7"; word[3] = "days"; word[4] = "refund,"
		for (i = 1; i <= n; i++) {
			a = ""; r = ""
			la = 12 + int(rand() * 9); lr = 12 + int(rand() * 9)
			for (k = 0; k < la; k++) a = a (k ? " " : "") word[int(rand() * rand() * 200)]
			for (k = 0; k < lr; k++) r = r (k ? " " : "") word[int(rand() * rand() * 200)]
			printf "{\"id\":\"r%d\",\"answer\":\"%s.\",\"reference\":\"%s.\"}\n", i, a, r
		}
	}' >"$2"
}
# bench_records_store N RUN FILE: N scored records of run RUN (store.sh, serve.sh): a question,
# three contexts, an answer, a reference, four scores (an LCG), five categories, a usage entry;
# about 880 bytes a record, the same bytes on every machine
bench_records_store() {
	awk -v n="$1" -v run="$2" 'BEGIN {
		split("math geo history science law", cat, " ")
		s = 12345
		for (i = 1; i <= n; i++) {
			s = (s * 1103515245 + 12345) % 2147483648; f = int(s / 2147483648 * 1000) / 1000
			s = (s * 1103515245 + 12345) % 2147483648; r = int(s / 2147483648 * 1000) / 1000
			ctx = ""
			for (c = 1; c <= 3; c++)
				ctx = ctx (c > 1 ? "," : "") sprintf("\"Context %d of question %d: a passage of the knowledge base, long enough to stand for a chunk that a retriever returns, with some facts in it (%d).\"", c, i, s % 1000)
			printf "{\"id\":\"q%d\",\"run_id\":\"%s\",\"category\":\"%s\",\"question\":\"What is the answer to question %d?\",\"contexts\":[%s],\"answer\":\"The answer to question %d is %d.\",\"reference\":\"It is %d.\",\"scores\":{\"faithfulness\":%s,\"context_recall\":%s,\"answer_relevancy\":%s,\"context_precision\":%s},\"usage\":{\"rag-verify\":{\"faithfulness\":{\"calls\":1,\"cache_hits\":0,\"prompt_tokens\":812,\"completion_tokens\":64,\"judge\":\"openai:fake-judge\"}}}}\n", i, run, cat[i % 5 + 1], i, ctx, i, s % 97, s % 97, f, r, 1 - f, r
		}
	}' >"$3"
}
bench_jq_ap() {
	cat >"$1" <<'EOF'
[.verdicts.context_precision[] | if .verdict then 1 else 0 end] as $g
| ($g | length) as $n
| (reduce range(0; $n) as $i ({h: 0, s: 0};
     if $g[$i] == 1 then .h += 1 | .s += (.h / ($i + 1)) else . end)) as $a
| .scores.context_precision = (if $a.h > 0 then $a.s / $a.h else 0 end)
| .scores["precision@5"] = (($g[0:5] | add // 0) / 5)
| .scores.mrr = ((first(range(0; $n) | select($g[.] == 1)) | 1 / (. + 1)) // 0)
EOF
}
bench_jq_gate() {
	cat >"$1" <<'EOF'
def q(p): length as $n | if $n == 0 then null else
	((($n - 1) * p) as $h | ($h | floor) as $i | ($h - $i) as $f |
	 if $i + 1 < $n and $f > 0 then .[$i] + $f * (.[$i + 1] - .[$i]) else .[$i] end) end;
def stats($m): length as $all | (map(.scores[$m] | select(type == "number")) | sort) as $v |
	{metric: $m, scored: ($v | length), null: ($all - ($v | length)),
	 mean: (if ($v | length) > 0 then ($v | add) / ($v | length) else null end),
	 median: ($v | q(0.5)), min: $v[0], p10: ($v | q(0.1))};
{records: length,
 metrics: [stats("context_recall"), stats("faithfulness")],
 categories: (group_by(.category) | map({category: .[0].category, records: length,
	metrics: [stats("context_recall"), stats("faithfulness")]}))}
EOF
}
# bench_same_gate GATE JQ: "true" when rag-gate's --json summary (file GATE) and bench_jq_gate's
# (file JQ) hold the same records and, for every metric overall and per category, the same
# counts and statistics (to 1e-9: both sum in input order; the tolerance covers printing)
bench_same_gate() {
	jq -n --slurpfile g "$1" --slurpfile j "$2" '
	def rows(s): [s.metrics[] | {k: "all \(.metric)", v: [.scored, .null, .mean, .median, .min, .p10]}] +
		[s.categories[] | .category as $c | .metrics[] | {k: "\($c) \(.metric)", v: [.scored, .null, .mean, .median, .min, .p10]}];
	($g[0] | rows(.)) as $a | ($j[0] | rows(.)) as $b |
	($a | length) == ($b | length) and ($g[0].records == $j[0].records) and
	([range($a | length)] | all(. as $i | $a[$i].k == $b[$i].k and
		([range(6)] | all(. as $x | (($a[$i].v[$x] - $b[$i].v[$x]) | fabs) < 1e-9))))' 2>/dev/null
}
