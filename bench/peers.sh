#!/bin/sh
# peers.sh - ragpipe beside autoevals and promptfoo on the same fake judge (not a test).
#
#   sh bench/peers.sh [--smoke] [-n RECORDS] [-j J]... [--latency-ms MS] [--repeat K]
#                     [-m METRIC]... [--no-peers] [--runs FILE] [--records FILE]
#
# Installs autoevals 0.3.0 and promptfoo 0.121.20 (the last promptfoo that runs on Node 20;
# `npm view promptfoo@0.121.20 engines`: ^20.20.0 || >=22.22.0) from the npm registry into
# PEERS_DIR (default ${TMPDIR:-/tmp}/ragpipe-peers, never the project; kept between runs), then,
# in a network namespace that has only loopback (unshare -n, lo up: promptfoo sends telemetry;
# PROMPTFOO_DISABLE_TELEMETRY and PROMPTFOO_DISABLE_UPDATE are set as well), starts
# bench/peerfake.py answering every tool's own prompts after MS (default 200) ms, and scores
# RECORDS (default 200) unique generated records with each tool, cache off, whole processes
# timed (start-up included), for faithfulness, answer_relevancy, context_recall and
# context_precision (promptfoo has no context precision), at each J (default 8, 32, 64):
#   ragpipe    the pipe of rag-eval's stages (rag-claims | rag-verify, rag-revq | rag-embsim,
#              rag-verify --metric context_recall, rag-verify --chunks | rag-ap), each stage -j J
#   ragpipe-1r faithfulness only: rag-verify --one-request -j J (claims and verdicts together)
#   autoevals  bench/peers-autoevals.js: J records scored at a time (Eval's maxConcurrency)
#   promptfoo  promptfoo eval -j J (--max-concurrency) with the echo provider and the RAG
#              assertions context-faithfulness, answer-relevance, context-recall
# in two modes: "same -j" (each tool's own -j J), and "inflight J" (J requests in flight for the
# whole run: ragpipe's stages share one budget through RAG_INFLIGHT, as rag-eval -j J does;
# autoevals' requests go through a semaphore of J; promptfoo, whose requests for a test case go
# one after another, is the same run in both). A mode that changes nothing for a tool is run once.
# Each cell (metric, -j, mode, tool) runs K times (default 3), every run kept: K rounds per
# metric and -j, each round running the tools in turn (ragpipe, ragpipe-1r, autoevals,
# promptfoo, then again), so that a drift of the machine's load falls on every tool alike. Every
# run is one line of FILE (default bench/out/peers-runs.tsv: seconds, requests, characters,
# peak memory, records scored, exit status, mean score, and the run's round). Per cell, over its
# runs that exited 0 with every record scored: the median and [min-max] of the seconds and of
# the peak memory (GNU time; a pipe: the sum of its stages), records/s (over the median
# seconds), requests and prompt characters a record (counted at the fake: the messages' text;
# the tool and response_format schemas apart), the most requests in flight (at the fake), the
# ratio to the ideal (records x requests a record x latency / J) and to each peer: the peer's
# seconds over the tool's, run k against run k of the same round, their median and [min-max].
# No best of. bench/peers-table.awk prints the tables again from FILE. Each line also has the
# tokens the fake's usage gave the run (bench/peerfake.py: characters / 4): chat prompt, chat
# completion, embeddings; bench/cost.sh prices them. --records FILE: score FILE's records
# (JSON Lines with id, question, contexts, answer, reference) instead of the generated ones.
# --smoke: 10 records, -j 8, one run each (unless --repeat); without npm (or the registry)
# ragpipe alone. --no-peers: ragpipe alone. BENCH_KEEP=1 keeps the work directory. Exit
# status: 0, or 1 when a run failed or lost records, 2 on usage errors.
set -u

PWD0=$(pwd)
TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

AE_VER=0.3.0 PF_VER=0.121.20
N=200 LAT=200 JS= REPEAT='' METRICS= PEERS=1 SMOKE=0 RUNS=$TOP/bench/out/peers-runs.tsv RECORDS=
usage() { echo "usage: $0 [--smoke] [-n RECORDS] [-j J]... [--latency-ms MS] [--repeat K] [-m METRIC]... [--no-peers] [--runs FILE] [--records FILE]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) SMOKE=1 ;;
	--no-peers) PEERS=0 ;;
	-n) [ $# -ge 2 ] || usage; N=$2; shift ;;
	-j) [ $# -ge 2 ] || usage; JS="$JS $2"; shift ;;
	--latency-ms) [ $# -ge 2 ] || usage; LAT=$2; shift ;;
	--repeat) [ $# -ge 2 ] || usage; REPEAT=$2; shift ;;
	-m) [ $# -ge 2 ] || usage; METRICS="$METRICS $2"; shift ;;
	--runs) [ $# -ge 2 ] || usage; RUNS=$2; [ -n "$RUNS" ] || usage; shift ;;
	--records) [ $# -ge 2 ] || usage; RECORDS=$2; [ -n "$RECORDS" ] || usage; shift ;;
	-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) usage ;;
	esac
	shift
done
if [ "$SMOKE" = 1 ]; then
	N=10
	[ -n "$REPEAT" ] || REPEAT=1
	[ -n "$JS" ] || JS=8
fi
[ -n "$REPEAT" ] || REPEAT=3
case $RUNS in /*) ;; *) RUNS=$PWD0/$RUNS ;; esac
if [ -n "$RECORDS" ]; then
	case $RECORDS in /*) ;; *) RECORDS=$PWD0/$RECORDS ;; esac
	[ -r "$RECORDS" ] || { echo "peers.sh: cannot read $RECORDS" >&2; exit 2; }
	N=$(wc -l <"$RECORDS" | tr -d ' ')
fi
[ -n "$JS" ] || JS="8 32 64"
[ -n "$METRICS" ] || METRICS="faithfulness answer_relevancy context_recall context_precision"
for v in "$N" "$LAT" "$REPEAT" $JS; do case $v in ''|*[!0-9]*|0) usage ;; esac; done
for m in $METRICS; do
	case $m in faithfulness|answer_relevancy|context_recall|context_precision) ;; *) usage ;; esac
done
bench_need python3 /usr/bin/time awk jq
PEERS_DIR=${PEERS_DIR:-${TMPDIR:-/tmp}/ragpipe-peers}
case $PEERS_DIR in
"$TOP"|"$TOP"/*) echo "peers.sh: PEERS_DIR $PEERS_DIR is inside the project: the peers go outside it" >&2; exit 2 ;;
esac
export PEERS_DIR

# ---------------------------------------------------------------- the peers (outside the namespace)
# PEER_NOTE says why a peer is missing; AE, PF: 1 when it is there
AE=0 PF=0 PEER_NOTE=
pkg_version() { sed -n 's/^  "version": "\(.*\)",$/\1/p' "$PEERS_DIR/node_modules/$1/package.json" 2>/dev/null | head -1; }
install_peers() {
	[ "$(pkg_version autoevals)" = $AE_VER ] && [ "$(pkg_version promptfoo)" = $PF_VER ] && return 0
	command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { PEER_NOTE="node or npm is not installed"; return 1; }
	nv=$(node -p 'process.versions.node' 2>/dev/null)
	case $nv in 20.*|2[2-9].*|[3-9][0-9].*) ;; *) PEER_NOTE="node $nv: promptfoo $PF_VER needs ^20.20.0 or >=22.22.0"; return 1 ;; esac
	timeout 30 npm view "autoevals@$AE_VER" version >/dev/null 2>&1 || { PEER_NOTE="the npm registry is unreachable"; return 1; }
	mkdir -p "$PEERS_DIR" || return 1
	[ -f "$PEERS_DIR/package.json" ] || echo '{"name":"ragpipe-peers","private":true}' >"$PEERS_DIR/package.json"
	echo "peers.sh: installing autoevals@$AE_VER promptfoo@$PF_VER into $PEERS_DIR (a few minutes)" >&2
	# no install scripts: none of the two needs one to run (promptfoo's libsql is prebuilt)
	(cd "$PEERS_DIR" && timeout 1200 npm install --no-audit --no-fund --ignore-scripts \
		"autoevals@$AE_VER" "promptfoo@$PF_VER") >"$PEERS_DIR/install.log" 2>&1 ||
		{ PEER_NOTE="npm install failed ($PEERS_DIR/install.log)"; return 1; }
}
if [ "${PEERS_INSIDE:-0}" != 1 ] && [ "$PEERS" = 1 ]; then
	install_peers || { echo "peers.sh: no peers: $PEER_NOTE; ragpipe alone" >&2; PEERS=0; }
elif [ "${PEERS_INSIDE:-0}" != 1 ]; then
	PEER_NOTE="--no-peers: ragpipe alone"
fi

# ---------------------------------------------------------------- into the namespace
if [ "${PEERS_INSIDE:-0}" != 1 ]; then
	NS=
	if unshare -n true 2>/dev/null; then NS="unshare -n"
	elif unshare -rn true 2>/dev/null; then NS="unshare -rn"
	fi
	PEERS_INSIDE=1 PEERS_ON=$PEERS PEERS_NOTE=$PEER_NOTE
	export PEERS_INSIDE PEERS_ON PEERS_NOTE
	set -- -n "$N" --latency-ms "$LAT" --repeat "$REPEAT" --runs "$RUNS"
	for j in $JS; do set -- "$@" -j "$j"; done
	for m in $METRICS; do set -- "$@" -m "$m"; done
	[ -n "$RECORDS" ] && set -- "$@" --records "$RECORDS"
	if [ -n "$NS" ]; then
		exec $NS sh -c 'ip link set lo up && exec sh "$0" "$@"' "$TOP/bench/peers.sh" "$@"
	fi
	# no namespace: ragpipe and autoevals on 127.0.0.1 alone, promptfoo not run (telemetry)
	PEERS_NOTE="no network namespace (unshare -n failed): promptfoo not run"
	export PEERS_NOTE PEERS_NS=0
	exec sh "$TOP/bench/peers.sh" "$@"
fi
PEERS=${PEERS_ON:-0}
PEER_NOTE=${PEERS_NOTE:-}
if [ "$PEERS" = 1 ]; then
	AE=1 PF=1
	[ "${PEERS_NS:-1}" = 0 ] && PF=0
fi

bench_setup peers rag-claims rag-verify rag-revq rag-embsim rag-ap
unset RAG_INFLIGHT
printf 'llm:\n  model: fake-judge\n  timeout: 60\nembeddings:\n  model: fake-embedding\n' >"$W/rag.yaml"

# ---------------------------------------------------------------- records
# unique records: a question, 3 contexts, a 3-sentence answer, a 2-sentence reference; every
# 4th answer and reference has an UNSUPPORTED sentence, every 5th record an IRRELEVANT context
if [ -n "$RECORDS" ]; then cp "$RECORDS" "$W/records.jsonl" || exit 1; else
awk -v n="$N" 'BEGIN {
	split("red green blue amber violet silver", col, " ")
	split("Lyon Porto Ghent Turku Graz Split Bergen Kraków", city, " ")
	for (i = 1; i <= n; i++) {
		c = col[(i % 6) + 1]; t = city[(i % 8) + 1]
		w = 10 + (i * 7) % 90; y = 1800 + (i * 13) % 200
		u = (i % 4 == 0) ? " It is sold on the moon UNSUPPORTED." : ""
		x = (i % 5 == 0) ? " IRRELEVANT" : ""
		printf "{\"id\":\"p%05d\",\"question\":\"What do we know about widget %d?\",", i, i
		printf "\"contexts\":[\"Widget %d is %s and weighs %d kilograms.\",", i, c, w
		printf "\"Widget %d was first made in %s.\",", i, t
		printf "\"The design of widget %d dates from %d.%s\"],", i, y, x
		printf "\"answer\":\"Widget %d is %s. It weighs %d kilograms. It was first made in %s in %d.%s\",", i, c, w, t, y, u
		printf "\"reference\":\"Widget %d is %s and weighs %d kilograms. It was made in %s.%s\"}\n", i, c, w, t, u
	}
}' >"$W/records.jsonl" || exit 1
fi

# promptfoo's config for a metric: the echo provider returns the answer; the context is one
# string (a list in vars would be a matrix of test cases, one a chunk)
pf_config() {
	case $1 in
	faithfulness) _a='{"type":"context-faithfulness","threshold":0}' ;;
	answer_relevancy) _a='{"type":"answer-relevance","threshold":0}' ;;
	context_recall) _a='{"type":"context-recall","value":"{{reference}}","threshold":0}' ;;
	esac
	jq -s --arg url "$RAG_BASE_URL" --argjson a "$_a" '{
	  description: "ragpipe bench/peers.sh",
	  prompts: ["{{answer}}"],
	  providers: ["echo"],
	  defaultTest: {options: {provider: {
	    text: {id: "openai:chat:fake-judge", config: {apiBaseUrl: $url, apiKey: "bench-key"}},
	    embedding: {id: "openai:embedding:fake-embedding", config: {apiBaseUrl: $url, apiKey: "bench-key"}}}}},
	  tests: [.[] | {description: .id, vars: {query: .question, context: (.contexts | join("\n")),
	    answer: .answer, reference: .reference}, assert: [$a]}]
	}' "$W/records.jsonl" >"$W/pf-$1.json"
}

# ---------------------------------------------------------------- the fake judge
python3 bench/peerfake.py --port 0 --port-file "$W/port" --log "$W/fake.log" \
	--latency-ms "$LAT" --max-seconds 7200 </dev/null >"$W/fake.out" 2>&1 &
FAKE_PID=$!
i=0
while [ ! -s "$W/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$W/port" ] || { echo "peers.sh: the fake did not start" >&2; cat "$W/fake.out" >&2; exit 1; }
RAG_BASE_URL=http://127.0.0.1:$(cat "$W/port")/v1
OPENAI_BASE_URL=$RAG_BASE_URL OPENAI_API_KEY=bench-key
PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_CACHE_ENABLED=false
PROMPTFOO_CONFIG_DIR=$W/promptfoo PROMPTFOO_DISABLE_SHARING=1 NODE_NO_WARNINGS=1
export RAG_BASE_URL OPENAI_BASE_URL OPENAI_API_KEY PROMPTFOO_DISABLE_TELEMETRY PROMPTFOO_DISABLE_UPDATE \
	PROMPTFOO_CACHE_ENABLED PROMPTFOO_CONFIG_DIR PROMPTFOO_DISABLE_SHARING NODE_NO_WARNINGS

# ---------------------------------------------------------------- one run
FAILED=0
# the stage under GNU time, its peak in $W/rss.K
st() { _k=$1; shift; printf '/usr/bin/time -f %%M -o %s/rss.%s %s' "$W" "$_k" "$*"; }
R="'$BIN/rag-"
C="-c '$W/rag.yaml' -q"

# command METRIC TOOL J MODE: the shell command line of one run into $CMD ("" when none)
command_for() {
	_m=$1 _t=$2 _j=$3 _mode=$4 CMD=
	case $_t in
	ragpipe)
		_b=
		[ "$_mode" = inflight ] && _b="RAG_INFLIGHT='$W/budget.$_j' "
		case $_m in
		faithfulness) CMD="$_b$(st 1 "${R}claims' $C -j $_j") <'$W/records.jsonl' | $_b$(st 2 "${R}verify' $C -j $_j")" ;;
		answer_relevancy) CMD="$_b$(st 1 "${R}revq' $C -j $_j") <'$W/records.jsonl' | $_b$(st 2 "${R}embsim' $C --embedder openai -j $_j")" ;;
		context_recall) CMD="$_b$(st 1 "${R}verify' $C --metric context_recall -j $_j") <'$W/records.jsonl'" ;;
		context_precision) CMD="$_b$(st 1 "${R}verify' $C --chunks -j $_j") <'$W/records.jsonl' | $(st 2 "${R}ap' -q -m ap")" ;;
		esac ;;
	ragpipe-1r)
		[ "$_m" = faithfulness ] && CMD="$(st 1 "${R}verify' $C --one-request -j $_j") <'$W/records.jsonl'" ;;
	autoevals)
		[ "$AE" = 1 ] || return 0
		_lim=0
		[ "$_mode" = inflight ] && _lim=$_j
		CMD="$(st 1 "node bench/peers-autoevals.js $_m '$W/records.jsonl' $_j $_lim")" ;;
	promptfoo)
		[ "$PF" = 1 ] && [ "$_m" != context_precision ] || return 0
		[ -f "$W/pf-$_m.json" ] || pf_config "$_m"
		CMD="$(st 1 "'$PEERS_DIR/node_modules/.bin/promptfoo' eval -c '$W/pf-$_m.json' -j $_j --no-cache --no-write --no-table --no-progress-bar --no-share -o '$W/pf-out.json'") >'$W/pf.stdout'" ;;
	esac
}

# a mode that changes nothing for the tool and metric: its run is the other mode's
same_run() {
	case $1:$2 in
	ragpipe:context_recall|ragpipe:context_precision|ragpipe-1r:*|promptfoo:*) return 0 ;;
	autoevals:answer_relevancy) return 1 ;;
	autoevals:*) return 0 ;;
	esac
	return 1
}

# scored FILE TOOL: the records with a score
scored() {
	case $2 in
	ragpipe*) grep -c '"scores":{[^}]*"[a-z_]*":[0-9]' "$1" ;;
	autoevals) grep -c '"score":[0-9]' "$1" ;;
	promptfoo) jq '[.results.results[] | select(.gradingResult.componentResults[0].score != null and (.error // null) == null)] | length' "$1" ;;
	esac
}

# mean FILE TOOL METRIC: the mean score (the tools' scores should agree: one fake, one rule)
mean() {
	case $2 in
	ragpipe*) jq -s --arg m "$3" '[.[] | .scores[$m] | numbers] | add / length' "$1" ;;
	autoevals) jq -s '[.[] | .score | numbers] | add / length' "$1" ;;
	promptfoo) jq '[.results.results[] | .gradingResult.componentResults[0].score | numbers] | add / length' "$1" ;;
	esac
}

# run METRIC TOOL J MODE K: run K of a cell, one line into $RUNS (MODE "both": the run stands for
# both modes, when the mode changes nothing for the tool)
run_once() {
	_cm=$4
	[ "$_cm" = both ] && _cm=samej
	command_for "$1" "$2" "$3" "$_cm"
	[ -n "$CMD" ] || return 0
	rm -f "$W"/rss.* "$W/budget.$3" "$W/pf-out.json"
	_l0=$(wc -l <"$W/fake.log" 2>/dev/null || echo 0)
	_t0=$(now)
	sh -c "$CMD" >"$W/run.out" 2>"$W/run.err"
	_rc=$?
	_t1=$(now)
	sleep 0.3   # the last log lines
	_l1=$(wc -l <"$W/fake.log")
	_out=$W/run.out
	[ "$2" = promptfoo ] && _out=$W/pf-out.json
	_ok=$(scored "$_out" "$2" 2>/dev/null || echo 0)
	_mean=$(mean "$_out" "$2" "$1" 2>/dev/null | awk '{ printf "%.3f", $1 }')
	_rss=$(cat "$W"/rss.* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
	_line=$(sed -n "$((_l0 + 1)),${_l1}p" "$W/fake.log" | awk -v t0="$_t0" -v t1="$_t1" \
		'{ q++; if (match($0, /"chars": [0-9]+/)) { v = substr($0, RSTART + 9, RLENGTH - 9); if ($0 ~ /"kind": "embeddings"/) e++; else c += v }
		   if (match($0, /"schema_chars": [0-9]+/)) s += substr($0, RSTART + 16, RLENGTH - 16)
		   if (match($0, /"inflight": [0-9]+/)) { f = substr($0, RSTART + 12, RLENGTH - 12) + 0; if (f > pk) pk = f }
		   if (match($0, /"prompt_tokens": [0-9]+/)) { v = substr($0, RSTART + 17, RLENGTH - 17); if ($0 ~ /"kind": "embeddings"/) et += v; else pt += v }
		   if (match($0, /"completion_tokens": [0-9]+/)) ct += substr($0, RSTART + 21, RLENGTH - 21) }
		 END { printf "%.3f\t%d\t%d\t%d\t%d\t%d", t1 - t0, q, e, c, s, pk; printf "%d\t%d\t%d", pt, ct, et > "/dev/stderr" }' 2>"$W/tokens")
	if [ "$_rc" -ne 0 ] || [ "${_ok:-0}" -ne "$N" ]; then
		FAILED=1
		echo "peers.sh: $1 $2 -j $3 $4 run $5: exit $_rc, $_ok of $N records scored (stderr: $W/fail.$1.$2.$3.$4.$5.err)" >&2
		cp "$W/run.err" "$W/fail.$1.$2.$3.$4.$5.err"
		grep -m 3 -i 'error' "$W/run.err" >&2
		tail -n 3 "$W/run.err" >&2
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$_line" "$_rss" "${_ok:-0}" "$_rc" "${_mean:-nan}" "$(cat "$W/tokens")" >>"$RUNS"
}

# every run is kept: REPEAT rounds per metric and -j, each round running every tool (and mode)
# once, in turn, so that a drift of the machine's load spreads over all the tools alike
UP0=$(uptime)
mkdir -p "$(dirname "$RUNS")" || exit 2
printf 'metric\ttool\tj\tmode\trun\tseconds\trequests\tembeddings\tchars\tschema_chars\tinflight\tpeak_kb\tok\texit\tmean\tprompt_tokens\tcompletion_tokens\tembedding_tokens\n' >"$RUNS" || exit 2
for m in $METRICS; do
	for j in $JS; do
		k=0
		while [ $k -lt "$REPEAT" ]; do
			k=$((k + 1))
			for t in ragpipe ragpipe-1r autoevals promptfoo; do
				if same_run "$t" "$m"; then
					run_once "$m" "$t" "$j" both $k
				else
					run_once "$m" "$t" "$j" samej $k
					run_once "$m" "$t" "$j" inflight $k
				fi
			done
		done
	done
done
UP1=$(uptime)

# ---------------------------------------------------------------- the tables
echo "peers.sh: $N records, fake judge latency $LAT ms, cache off, $REPEAT runs a cell, all kept; $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
echo "run order: for each metric and -j, $REPEAT rounds, each running the tools in turn (ragpipe, ragpipe-1r, autoevals, promptfoo; both modes), so drift falls on every tool alike"
echo "versions: ragpipe $(cat VERSION 2>/dev/null), autoevals $([ "$AE" = 1 ] && echo $AE_VER || echo "not run"), promptfoo $([ "$PF" = 1 ] && echo $PF_VER || echo "not run"), node $(node -p process.versions.node 2>/dev/null || echo none)"
[ -n "$PEER_NOTE" ] && echo "note: $PEER_NOTE"
echo "load before: $UP0"
echo "load after:  $UP1"
echo "every run: $RUNS"
awk -F'\t' -v n="$N" -v lat="$LAT" -f "$TOP/bench/peers-table.awk" "$RUNS"
exit $FAILED
