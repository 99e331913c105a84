#!/bin/sh
# serve-eta.sh - the time left that rag-serve's Run evaluation tab shows, against the truth
# (issue 36 item 10; not a test).
#
#   sh bench/serve-eta.sh [-n RECORDS] [--judge-ms MS] [--service-ms MS]
#
# Imports RECORDS (default 90) questions of the bundled examples as a test set of a new SQLite
# store, starts tests/fakellm.py as the judge and tests/fakerag.py as the service, each
# answering after MS (defaults 3000 and 300), and rag-serve (bin/) over the store; starts a run
# of faithfulness and answer_relevancy from the API and asks for its progress every second
# until it ends. Prints a line a poll while records are done and some are left: the seconds
# since the start, the records done, the seconds truly left (the end's time less the poll's),
# what the rule from the start gives (elapsed / done x left, the rule before issue 36) and the
# server's eta_s (null: "estimating"). Nothing leaves 127.0.0.1; the work directory is removed
# unless BENCH_KEEP=1.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
N=90 JMS=3000 SMS=300
while [ $# -gt 0 ]; do
	case $1 in
	-n) N=$2; shift ;;
	--judge-ms) JMS=$2; shift ;;
	--service-ms) SMS=$2; shift ;;
	-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) echo "usage: $0 [-n RECORDS] [--judge-ms MS] [--service-ms MS]" >&2; exit 2 ;;
	esac
	shift
done
W=$(mktemp -d) || exit 2
SPID= LPID= RPID=
cleanup() {
	for p in $SPID $LPID $RPID; do kill "$p" 2>/dev/null; done
	[ "${BENCH_KEEP:-0}" = 1 ] && echo "kept: $W" >&2 || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cd "$W" || exit 2
jq -c '{question, reference, category}' "$TOP/share/examples/example.jsonl" >q.jsonl
i=0
while [ "$i" -lt "$N" ]; do
	cat q.jsonl
	i=$((i + $(wc -l <q.jsonl)))
done | head -n "$N" | jq -c '. + {id: "r\(input_line_number)"}' >qa.jsonl
printf 'llm:\n  provider: offline\n' >c.yaml
"$TOP/bin/rag-store" -q -c c.yaml --store "$W/s.db" testset import qa.jsonl --name qa >/dev/null || exit 1
python3 "$TOP/tests/fakellm.py" --port 0 --port-file llm.port --latency-ms "$JMS" --max-seconds 900 >/dev/null 2>llm.err &
LPID=$!
python3 "$TOP/tests/fakerag.py" --port 0 --port-file rag.port --latency-ms "$SMS" --max-seconds 900 >/dev/null 2>rag.err &
RPID=$!
while [ ! -s llm.port ] || [ ! -s rag.port ]; do sleep 0.1; done
RAG_API_KEY=bench "$TOP/bin/rag-serve" -c c.yaml --store "$W/s.db" --work-dir "$W/work" --listen 127.0.0.1:0 2>serve.err &
SPID=$!
while ! grep -qs 'http://127' serve.err; do
	kill -0 "$SPID" 2>/dev/null || { cat serve.err >&2; exit 1; }
	sleep 0.1
done
URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' serve.err | head -n 1)
HP=${URL#http://}
HP=${HP%/}
CSRF=$(curl -s "${URL}api/session" | jq -r .csrf)
FORM=$(jq -nc --arg j "http://127.0.0.1:$(cat llm.port)/v1" --arg s "http://127.0.0.1:$(cat rag.port)/ask" \
	'{testset: "qa", judge_base_url: $j, judge_model: "m", service_url: $s, metrics: ["faithfulness", "answer_relevancy"]}')
ID=$(curl -s -X POST -H "Origin: http://$HP" -H "X-CSRF-Token: $CSRF" -H 'Content-Type: application/json' \
	--data-binary "$FORM" "${URL}api/evals" | jq -r .id)
t0=$(date +%s.%N)
: >samples.tsv
while :; do
	s=$(curl -s "${URL}api/evals/$ID")
	now=$(date +%s.%N)
	printf '%s\t%s\n' "$(echo "$now - $t0" | bc)" "$(echo "$s" | jq -r '[.done, .total, (.eta_s // "null")] | @tsv')" >>samples.tsv
	[ "$(echo "$s" | jq -r .state)" = running ] || break
	sleep 1
done
echo "$s" | jq -c '{state, done, total, exit_status}' >&2
awk -F'\t' '{ t[NR] = $1; d[NR] = $2; n = $3; e[NR] = $4; if ($2 == $3 && !end) end = $1 }
END {
	printf "%8s %6s %8s %10s %8s\n", "seconds", "done", "left", "from start", "eta_s"
	for (i = 1; i <= NR; i++)
		if (d[i] > 0 && d[i] < n)
			printf "%8.1f %6d %8.1f %10.1f %8s\n", t[i], d[i], end - t[i], t[i] / d[i] * (n - d[i]), e[i]
	printf "the run: %d records in %.1f s\n", n, end
}' samples.tsv
