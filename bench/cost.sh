#!/bin/sh
# cost.sh - what one run of the default metrics costs at a named list price (not a test).
#
#   sh bench/cost.sh [-n RECORDS] [-j J] [--no-peers] [--keep-runs FILE]
#
# Makes RECORDS (default 1000) records, each a question, 3 contexts of 800 characters, a
# 3-sentence answer and a 2-sentence reference, and scores them with the default metrics
# (faithfulness, answer_relevancy, context_precision, context_recall), cache off, against
# bench/peerfake.py, the fake judge of bench/peers.sh:
#   ragpipe    rag-eval, -j J (default 16), the fake saying in usage what OpenAI's prompt cache
#              would serve (--cached-tokens: the longest prefix a prompt shares with one sent
#              before, counted only from 1,024 tokens on, in steps of 128, as OpenAI's Prompt
#              Caching guide says; bench/prefix.sh measures the same prefixes by characters)
#   autoevals, promptfoo   bench/peers.sh --records: the same records, the same fake, their own
#              prompts for the same metrics (promptfoo has no context precision), -j J
# Tokens are what the fake's usage says (bench/peerfake.py): a chat request's prompt tokens its
# messages' and schemas' characters / 4, its completion tokens its reply's characters / 4, an
# embeddings request's tokens its texts' characters / 4. They are priced by ragpipe's own price
# table (rag-gate's cost, lib/cost.c), in four ways for ragpipe:
#   plain        every prompt token at the input price
#   prefix       the cached tokens at the cached input price
#   any prefix   every shared prefix at the cached input price, OpenAI's 1,024-token minimum and
#                128-token steps aside: what bench/prefix.sh measures, an upper bound
#   batch        the Batch API's prices (half the list prices), no prefix cache
#   both         the cached tokens at the batch cached input price
# and plainly for the peers. The prices (USD per million tokens) are parameters, named by
# PRICE_MODEL; the defaults are OpenAI's list prices of gpt-4o-mini and text-embedding-3-small
# (see bench/README.md for the page and the date):
#   PRICE_INPUT=0.15 PRICE_CACHED=0.075 PRICE_OUTPUT=0.60 PRICE_EMBED=0.02
#   PRICE_BATCH_INPUT=0.075 PRICE_BATCH_OUTPUT=0.30 PRICE_BATCH_EMBED=0.01
#   PRICE_BATCH_CACHED=0.0375   (an assumption, labelled so: the batch discount on the cached price)
# Prints a Markdown table: requests, prompt tokens (and cached), completion and embedding
# tokens, and the cost of the run and per 1,000 records. --keep-runs FILE keeps peers.sh's
# runs. Exit status: 0, 1 when a run failed or lost records, 2 on usage errors.
set -u

PWD0=$(pwd)
TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=1000 J=16 PEERS=1 KEEP=
usage() { echo "usage: $0 [-n RECORDS] [-j J] [--no-peers] [--keep-runs FILE]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	-n) [ $# -ge 2 ] || usage; N=$2; shift ;;
	-j) [ $# -ge 2 ] || usage; J=$2; shift ;;
	--no-peers) PEERS=0 ;;
	--keep-runs) [ $# -ge 2 ] || usage; KEEP=$2; shift ;;
	-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) usage ;;
	esac
	shift
done
for v in "$N" "$J"; do case $v in ''|*[!0-9]*|0) usage ;; esac; done
case $KEEP in ''|/*) ;; *) KEEP=$PWD0/$KEEP ;; esac

PRICE_MODEL=${PRICE_MODEL:-"OpenAI gpt-4o-mini, text-embedding-3-small"}
PRICE_INPUT=${PRICE_INPUT:-0.15} PRICE_CACHED=${PRICE_CACHED:-0.075} PRICE_OUTPUT=${PRICE_OUTPUT:-0.60}
PRICE_EMBED=${PRICE_EMBED:-0.02}
PRICE_BATCH_INPUT=${PRICE_BATCH_INPUT:-0.075} PRICE_BATCH_OUTPUT=${PRICE_BATCH_OUTPUT:-0.30}
PRICE_BATCH_CACHED=${PRICE_BATCH_CACHED:-0.0375} PRICE_BATCH_EMBED=${PRICE_BATCH_EMBED:-0.01}

bench_need python3 jq awk
bench_setup cost rag-eval rag-claims rag-verify rag-revq rag-embsim rag-ap rag-gate

# ---------------------------------------------------------------- records
python3 - "$N" >"$W/records.jsonl" <<'PY' || exit 1
import json, sys
n = int(sys.argv[1])
colours = "red green blue amber violet silver".split()
cities = "Lyon Porto Ghent Turku Graz Split Bergen Krakow".split()
facts = ["It is stored in a dry room at {t} degrees.", "Its case is made of {c} steel from {city}.",
         "The maker tested it {k} times before sale.", "Each unit ships with a manual of {p} pages.",
         "Its warranty lasts {y} years in most countries.", "Repairs are done in {city} within {d} days.",
         "The first batch had {k} units in total.", "It draws {w} watts when it runs at full speed."]

def context(i, j):
    """800 characters of sentences about widget i: the first one the record's own fact"""
    head = ["Widget %d is %s and weighs %d kilograms." % (i, colours[i % 6], 10 + i * 7 % 90),
            "Widget %d was first made in %s." % (i, cities[i % 8]),
            "The design of widget %d dates from %d." % (i, 1800 + i * 13 % 200)][j]
    s, k = head, 0
    while len(s) < 800:
        f = facts[(i + j + k) % len(facts)].format(t=(i + k) % 30, c=colours[(i + k) % 6], city=cities[(i + j + k) % 8],
                                                   k=(i * 3 + k) % 97 + 2, p=(i + k) % 80 + 10, y=(i + k) % 9 + 1,
                                                   d=(i + k) % 20 + 1, w=(i * 5 + k) % 900 + 50)
        s += " Widget %d: %s" % (i, f)
        k += 1
    return s[:800]

for i in range(1, n + 1):
    u = " It is sold on the moon UNSUPPORTED." if i % 4 == 0 else ""
    c, t, w, y = colours[i % 6], cities[i % 8], 10 + i * 7 % 90, 1800 + i * 13 % 200
    print(json.dumps({"id": "c%05d" % i, "question": "What do we know about widget %d?" % i,
                      "contexts": [context(i, j) for j in range(3)],
                      "answer": "Widget %d is %s. It weighs %d kilograms. It was first made in %s in %d.%s" % (i, c, w, t, y, u),
                      "reference": "Widget %d is %s and weighs %d kilograms. It was made in %s.%s" % (i, c, w, t, u)}))
PY

# ---------------------------------------------------------------- ragpipe: rag-eval
python3 bench/peerfake.py --port 0 --port-file "$W/port" --log "$W/rp.log" --latency-ms 1 --cached-tokens \
	--max-seconds 7200 </dev/null >"$W/fake.out" 2>&1 &
FAKE_PID=$!
i=0
while [ ! -s "$W/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$W/port" ] || { echo "cost.sh: the fake did not start" >&2; cat "$W/fake.out" >&2; exit 1; }
RAG_BASE_URL=http://127.0.0.1:$(cat "$W/port")/v1
export RAG_BASE_URL
printf 'llm:\n  model: fake-judge\n  timeout: 60\nembeddings:\n  model: fake-embedding\n' >"$W/rag.yaml"
"$BIN/rag-eval" -q -c "$W/rag.yaml" --bin "$BIN" -j "$J" -o "$W/run" "$W/records.jsonl" >"$W/eval.out" 2>"$W/eval.err"
RC=$?
LINES=$(wc -l <"$W/run/records.jsonl" 2>/dev/null | tr -d ' ')
if [ "$RC" -gt 1 ] || [ "${LINES:-0}" -ne "$N" ]; then
	echo "cost.sh: rag-eval exited $RC with ${LINES:-0} of $N records" >&2
	tail -n 5 "$W/eval.err" >&2
	exit 1
fi
kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
FAKE_PID=

# the tokens of a fake's log: "requests prompt cached completion embedding_requests
# embedding_tokens prefix" (prefix: any shared prefix, OpenAI's minimum and steps aside)
log_tokens() {
	jq -s -r 'map(select(.kind != "embeddings")) as $c | map(select(.kind == "embeddings")) as $e |
		"\($c | length) \($c | map(.prompt_tokens) | add // 0) \($c | map(.cached_tokens // 0) | add // 0) \($c | map(.completion_tokens) | add // 0) \($e | length) \($e | map(.prompt_tokens) | add // 0) \($c | map(.prefix_tokens // 0) | add // 0)"' "$1"
}
set -- $(log_tokens "$W/rp.log")
RP_REQ=$1 RP_PT=$2 RP_CT=$3 RP_OT=$4 RP_EREQ=$5 RP_ET=$6 RP_XT=$7
# ragpipe's own count of the same tokens (the records' usage): the fake's, or the table is wrong
OWN=$(jq -s -r '[.[] | .usage // {} | .[] | .[] | select(.judge == "openai:fake-judge")] |
	"\(map(.prompt_tokens) | add) \(map(.cached_tokens // 0) | add) \(map(.completion_tokens) | add)"' "$W/run/records.jsonl")
[ "$OWN" = "$RP_PT $RP_CT $RP_OT" ] ||
	echo "cost.sh: note: the records' usage ($OWN) is not the fake's log ($RP_PT $RP_CT $RP_OT)" >&2

# ---------------------------------------------------------------- the peers: bench/peers.sh
AE_REQ= PF_REQ= PEER_NOTE=
if [ "$PEERS" = 1 ]; then
	sh bench/peers.sh --records "$W/records.jsonl" --repeat 1 -j "$J" --latency-ms 1 --runs "$W/peers.tsv" \
		>"$W/peers.out" 2>"$W/peers.err"
	PRC=$?
	[ -n "$KEEP" ] && cp "$W/peers.tsv" "$KEEP"
	# one run a metric and tool: the "same -j" one (a metric it did not score in full is named)
	peer_sum() {
		awk -F'\t' -v t="$1" -v n="$N" 'NR > 1 && $2 == t && $4 != "inflight" && !seen[$1]++ {
			if ($13 != n) bad = bad " " $1   # scored every record: its tokens count, whatever its exit
			q += $7 - $8; e += $8; p += $16; c += $17; x += $18; m = m " " $1 }
			END { printf "%d %d %d %d %d%s\n", q, p, c, e, x, (bad != "" ? " failed:" bad : "") }' "${PT:-$W/peers.tsv}"
	}
	# ragpipe's stages run metric by metric there (rag-eval's requests, the same tokens): its three
	# metrics that promptfoo has, to set beside promptfoo's
	if grep -q '	promptfoo	' "$W/peers.tsv" 2>/dev/null; then
		set -- $(awk -F'\t' '$1 != "context_precision" { print }' "$W/peers.tsv" >"$W/peers3.tsv"; PT=$W/peers3.tsv peer_sum ragpipe)
		R3_REQ=$1 R3_PT=$2 R3_OT=$3 R3_EREQ=$4 R3_ET=$5
	fi
	if grep -q '	autoevals	' "$W/peers.tsv" 2>/dev/null; then set -- $(peer_sum autoevals); AE_REQ=$1 AE_PT=$2 AE_OT=$3 AE_EREQ=$4 AE_ET=$5; AE_BAD=${6:-}; fi
	if grep -q '	promptfoo	' "$W/peers.tsv" 2>/dev/null; then set -- $(peer_sum promptfoo); PF_REQ=$1 PF_PT=$2 PF_OT=$3 PF_EREQ=$4 PF_ET=$5; PF_BAD=${6:-}; fi
	PEER_NOTE=$(sed -n 's/^note: //p' "$W/peers.out")
	[ "$PRC" = 0 ] || PEER_NOTE="$PEER_NOTE${PEER_NOTE:+; }peers.sh exited $PRC: $(grep -m 2 'peers.sh:' "$W/peers.err" | tr '\n' ' ')"
fi

# ---------------------------------------------------------------- priced by ragpipe's table
cat >"$W/prices.yaml" <<EOF
prices:
  currency: USD
  list: {input: $PRICE_INPUT, cached_input: $PRICE_CACHED, output: $PRICE_OUTPUT}
  batch: {input: $PRICE_BATCH_INPUT, cached_input: $PRICE_BATCH_CACHED, output: $PRICE_BATCH_OUTPUT}
  list-embed: {input: $PRICE_EMBED, output: 0}
  batch-embed: {input: $PRICE_BATCH_EMBED, output: 0}
EOF
# row NAME PRICE REQ PROMPT CACHED COMPLETION EREQ ETOKENS: one tool's usage in the priced record
ROWS=
row() {
	ROWS="$ROWS$(jq -nc --arg k "$1" --arg p "$2" --argjson q "$3" --argjson pt "$4" --argjson ct "$5" --argjson ot "$6" \
		--argjson eq "$7" --argjson et "$8" \
		'{($k): {chat: {judge: $p, calls: $q, cache_hits: 0, prompt_tokens: $pt, cached_tokens: $ct, completion_tokens: $ot},
		         embeddings: {judge: ($p + "-embed"), calls: $eq, cache_hits: 0, prompt_tokens: $et, completion_tokens: 0}}}')
"
}
row "1 ragpipe" list "$RP_REQ" "$RP_PT" 0 "$RP_OT" "$RP_EREQ" "$RP_ET"
row "2 ragpipe, prefix cache" list "$RP_REQ" "$RP_PT" "$RP_CT" "$RP_OT" "$RP_EREQ" "$RP_ET"
row "3 ragpipe, any shared prefix cached (an upper bound)" list "$RP_REQ" "$RP_PT" "$RP_XT" "$RP_OT" "$RP_EREQ" "$RP_ET"
row "4 ragpipe, batch" batch "$RP_REQ" "$RP_PT" 0 "$RP_OT" "$RP_EREQ" "$RP_ET"
row "5 ragpipe, batch and prefix cache" batch "$RP_REQ" "$RP_PT" "$RP_CT" "$RP_OT" "$RP_EREQ" "$RP_ET"
[ -n "$AE_REQ" ] && row "6 autoevals" list "$AE_REQ" "$AE_PT" 0 "$AE_OT" "$AE_EREQ" "$AE_ET"
[ -n "$PF_REQ" ] && row "7 ragpipe, promptfoo's three metrics" list "$R3_REQ" "$R3_PT" 0 "$R3_OT" "$R3_EREQ" "$R3_ET"
[ -n "$PF_REQ" ] && row "8 promptfoo (no context precision)" list "$PF_REQ" "$PF_PT" 0 "$PF_OT" "$PF_EREQ" "$PF_ET"
printf '%s' "$ROWS" | jq -sc '{id: "cost", usage: add}' >"$W/usage.jsonl"
"$BIN/rag-gate" -c "$W/prices.yaml" --summary-only --json <"$W/usage.jsonl" >"$W/gate.json" 2>"$W/gate.err" ||
	{ echo "cost.sh: rag-gate failed" >&2; cat "$W/gate.err" >&2; exit 1; }

echo "cost.sh: $N records (3 contexts of 800 characters), the default metrics, -j $J, cache off; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "prices ($PRICE_MODEL), USD per million tokens: input $PRICE_INPUT, cached input $PRICE_CACHED, output $PRICE_OUTPUT, embeddings $PRICE_EMBED; batch: input $PRICE_BATCH_INPUT, cached input $PRICE_BATCH_CACHED (assumed), output $PRICE_BATCH_OUTPUT, embeddings $PRICE_BATCH_EMBED"
[ -n "$PEER_NOTE" ] && echo "note: $PEER_NOTE"
[ -n "${AE_BAD:-}" ] && echo "note: autoevals did not score every record for:${AE_BAD#failed:}"
[ -n "${PF_BAD:-}" ] && echo "note: promptfoo did not score every record for:${PF_BAD#failed:}"
echo
echo "| run | requests | prompt tokens | of them cached | completion tokens | embedding tokens | cost (USD) | per 1,000 records |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
jq -r --argjson n "$N" '.cost.stages | group_by(.tool)[] |
	(map(select(.stage == "chat"))[0]) as $c | (map(select(.stage == "embeddings"))[0]) as $e |
	(map(.cost) | add) as $cost |
	"| \($c.tool | sub("^[0-9] "; "")) | \($c.calls + $e.calls) | \($c.prompt_tokens) | \($c.cached_tokens) | \($c.completion_tokens) | \($e.prompt_tokens) | \($cost * 10000 | round / 10000) | \($cost * 1000 / $n * 10000 | round / 10000) |"' \
	"$W/gate.json"
exit 0
