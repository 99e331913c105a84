#!/bin/sh
# compute.sh - the compute-only tools beside the same work written in jq (not a test).
#
#   sh bench/compute.sh [--json] [-n RECORDS] [--repeat K] [--embsim-repeat K] [--jq-records M]
#
# Generates RECORDS (default 1000000) seeded records for each tool and times, on the same file,
# the tool and a jq program, each under /usr/bin/time -v (peak resident memory), K times (default
# 2), keeping the fastest (wall clock; its CPU seconds, user + system, are shown too: on a shared
# machine they move less than the wall clock; --embsim-repeat K for rag-embsim, the slowest, alone:
# about 0.4 ms of CPU a record). --jq-records M (default RECORDS) gives the per-record
# jq programs (all but rag-gate's jq -s) the first M records only, and their numbers are compared
# on those M:
#   rag-ap -m ap,p@5,mrr       8 chunk verdicts a record     jq -c (as bench/ap.sh)
#   rag-gate --json            2 scores, 5 categories        jq -s (as bench/gate.sh): per metric
#                                                            and category: scored, null, mean,
#                                                            median, min, 10th percentile
#   rag-kw -m rouge1           an answer and a reference     jq -c: lower case, [^a-z0-9]+ as a
#                              of 12-20 words                separator (written without a regex:
#                                                            jq 1.6's splits is 10 times slower),
#                                                            clipped unigram counts, F
#   rag-embsim --embedder offline --pair answer,reference   jq -c: the cosine of the two texts'
#                              (the same records as rag-kw)  word counts (no stemming, no hashed
#                                                            trigrams: see below)
# and checks that the tool and jq give the same numbers: rag-ap byte-identical output, rag-gate's
# table within 1e-9, rouge1 within 1e-12 for every record. rag-embsim's offline vectors (stemmed
# words without stop words and character trigrams, hashed with 64-bit FNV-1a) cannot be written
# in jq (no stemmer; its numbers are doubles, so no 64-bit hash): its jq line is the nearest
# work jq can do, a plain bag-of-words cosine, and its numbers are not compared.
# No network. Exit status: 0, or 1 when a run failed or numbers differ, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=1000000 REPEAT=2 JQN= EREP=
ARGS=
while [ $# -gt 0 ]; do
	case $1 in
	--repeat) [ $# -ge 2 ] || { echo "usage: $0 [--json] [-n RECORDS] [--repeat K] [--jq-records M]" >&2; exit 2; }; REPEAT=$2; shift ;;
	--embsim-repeat) [ $# -ge 2 ] || { echo "usage: $0 [--json] [-n RECORDS] [--repeat K] [--embsim-repeat K] [--jq-records M]" >&2; exit 2; }; EREP=$2; shift ;;
	--jq-records) [ $# -ge 2 ] || { echo "usage: $0 [--json] [-n RECORDS] [--repeat K] [--jq-records M]" >&2; exit 2; }; JQN=$2; shift ;;
	*) ARGS="$ARGS $1" ;;
	esac
	shift
done
# shellcheck disable=SC2086
bench_args "" $ARGS
[ -n "$JQN" ] || JQN=$N
[ -n "$EREP" ] || EREP=$REPEAT
for v in "$REPEAT" "$JQN" "$EREP"; do
	case $v in ''|*[!0-9]*|0) echo "usage: $0 [--json] [-n RECORDS] [--repeat K] [--jq-records M]" >&2; exit 2 ;; esac
done
[ "$JQN" -le "$N" ] || JQN=$N
bench_need jq /usr/bin/time awk
bench_setup compute rag-ap rag-gate rag-kw rag-embsim

FAILED=0
UP0=$(uptime)
: >"$W/results.tsv"
# best NAME INPUT CMD...: CMD < INPUT, REPEAT times; the fastest run's output stays in
# $W/out.NAME; a line "NAME seconds rss_kb cpu_seconds records" into results.tsv
best() {
	_n=$1 _in=$2; shift 2
	_bs= _bk= _bc=
	_k=0
	while [ $_k -lt "$REPEAT" ]; do
		_k=$((_k + 1))
		bench_time "$_n.try" "$@" <"$_in"
		if [ "$RC" -ne 0 ]; then
			echo "compute.sh: $_n exited $RC" >&2
			head -5 "$W/err.$_n.try" >&2
			FAILED=1
		fi
		if [ -z "$_bs" ] || awk -v a="$SECS" -v b="$_bs" 'BEGIN { exit !(a < b) }'; then
			_bs=$SECS _bk=$RSS_KB
			_bc=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$W/time.$_n.try")
			mv "$W/out.$_n.try" "$W/out.$_n"
		fi
		rm -f "$W/out.$_n.try"
	done
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$_n" "$_bs" "$_bk" "$_bc" "$(wc -l <"$_in" | tr -d ' ')" "$_k" >>"$W/results.tsv"
	echo "compute.sh: $_n: best of $_k ${_bs}s" >&2
}

# ---------------------------------------------------------------- rag-ap
bench_records_ap "$N" "$W/ap.jsonl" || exit 1
bench_jq_ap "$W/ap.jq"
best rag-ap "$W/ap.jsonl" "$BIN/rag-ap" -q -m ap,p@5,mrr
head -n "$JQN" "$W/ap.jsonl" >"$W/ap.head"
best jq-ap "$W/ap.head" jq -c -f "$W/ap.jq"
SAME_AP=false
[ "$(wc -l <"$W/out.rag-ap")" -eq "$N" ] && head -n "$JQN" "$W/out.rag-ap" | cmp -s - "$W/out.jq-ap" && SAME_AP=true
echo "compute.sh: rag-ap and jq the same: $SAME_AP" >&2
rm -f "$W/ap.jsonl" "$W/ap.head" "$W/out.rag-ap" "$W/out.jq-ap"

# ---------------------------------------------------------------- rag-gate
bench_records_gate "$N" "$W/gate.jsonl" || exit 1
bench_jq_gate "$W/gate.jq"
best rag-gate "$W/gate.jsonl" "$BIN/rag-gate" --json -t faithfulness=0.4 -r faithfulness=0.05 \
	--min-pass-rate 0.9 --max-error-rate 0.02 -
best jq-gate "$W/gate.jsonl" jq -s -c -f "$W/gate.jq"
SAME_GATE=$(bench_same_gate "$W/out.rag-gate" "$W/out.jq-gate")
echo "compute.sh: rag-gate and jq the same: ${SAME_GATE:-false}" >&2
rm -f "$W/gate.jsonl"

# ---------------------------------------------------------------- rag-kw and rag-embsim
bench_records_kw "$N" "$W/kw.jsonl" || exit 1
cat >"$W/kw.jq" <<'EOF'
def words: ascii_downcase | explode
	| map(if (. >= 97 and . <= 122) or (. >= 48 and . <= 57) then . else 32 end)
	| implode | split(" ") | map(select(. != ""));
def counts: reduce .[] as $w ({}; .[$w] += 1);
(.answer | words) as $p | (.reference | words) as $t
| ($p | counts) as $cp | ($t | counts) as $ct
| (reduce ($cp | to_entries[]) as $e (0; . + ([$e.value, ($ct[$e.key] // 0)] | min))) as $hits
| (if ($p | length) > 0 then $hits / ($p | length) else 0 end) as $pr
| (if ($t | length) > 0 then $hits / ($t | length) else 0 end) as $rc
| .scores.rouge1 = (if $pr + $rc > 0 then 2 * $pr * $rc / ($pr + $rc) else 0 end)
EOF
cat >"$W/cos.jq" <<'EOF'
def words: ascii_downcase | explode
	| map(if (. >= 97 and . <= 122) or (. >= 48 and . <= 57) then . else 32 end)
	| implode | split(" ") | map(select(. != ""));
def counts: reduce .[] as $w ({}; .[$w] += 1);
def norm: [.[] | . * .] | add // 0 | sqrt;
(.answer | words | counts) as $a | (.reference | words | counts) as $b
| (reduce ($a | to_entries[]) as $e (0; . + $e.value * ($b[$e.key] // 0))) as $dot
| ($a | norm) as $na | ($b | norm) as $nb
| .scores.semantic_similarity = (if $na > 0 and $nb > 0 then $dot / ($na * $nb) else 0 end)
EOF
best rag-kw "$W/kw.jsonl" "$BIN/rag-kw" -q -m rouge1
head -n "$JQN" "$W/kw.jsonl" >"$W/kw.head"
best jq-kw "$W/kw.head" jq -c -f "$W/kw.jq"
[ "$(wc -l <"$W/out.rag-kw")" -eq "$N" ] || { echo "compute.sh: rag-kw wrote $(wc -l <"$W/out.rag-kw") of $N" >&2; FAILED=1; }
head -n "$JQN" "$W/out.rag-kw" | jq -r .scores.rouge1 >"$W/a"
jq -r .scores.rouge1 "$W/out.jq-kw" >"$W/b"
DIFF_KW=$(paste "$W/a" "$W/b" | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12 || $1 == "null" || $2 == "null") k++ } END { print k + 0 }')
SAME_KW=false
[ "$DIFF_KW" -eq 0 ] && [ "$(wc -l <"$W/a")" -eq "$JQN" ] && SAME_KW=true
echo "compute.sh: rag-kw and jq the same: $SAME_KW ($DIFF_KW differ)" >&2
rm -f "$W/a" "$W/b" "$W/out.rag-kw" "$W/out.jq-kw"
REP_ALL=$REPEAT REPEAT=$EREP
best rag-embsim "$W/kw.jsonl" "$BIN/rag-embsim" -q --embedder offline --pair answer,reference
best jq-embsim "$W/kw.head" jq -c -f "$W/cos.jq"
LINES_ES=$(grep -c '"semantic_similarity":[0-9]' "$W/out.rag-embsim")
[ "$LINES_ES" -eq "$N" ] || { echo "compute.sh: rag-embsim scored $LINES_ES of $N" >&2; FAILED=1; }

# ---------------------------------------------------------------- the table
UP1=$(uptime)
awk -F'\t' -v n="$N" -v json="$JSON" -v sap="$SAME_AP" -v sgate="${SAME_GATE:-false}" -v skw="$SAME_KW" \
	-v rep="${REP_ALL:-$REPEAT}" -v up0="$UP0" -v up1="$UP1" -v cpu="$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)" -v ncpu="$(nproc)" '
function rt(x, y) { return y > 0 ? x / y : 0 }
{ s[$1] = $2; k[$1] = $3; c[$1] = $4; r[$1] = $5; nb[$1] = $6 }
END {
	split("rag-ap rag-gate rag-kw rag-embsim", t, " ")
	split("ap gate kw embsim", j, " ")
	same["ap"] = sap; same["gate"] = sgate; same["kw"] = skw; same["embsim"] = "not comparable"
	what["ap"] = "ap, p@5, mrr"; what["gate"] = "gate table"; what["kw"] = "rouge1"; what["embsim"] = "offline cosine"
	if (json) {
		printf "{\"bench\":\"compute\",\"records\":%d,\"repeat\":%d,\"tools\":[", n, rep
		for (i = 1; i <= 4; i++) {
			a = t[i]; b = "jq-" j[i]
			printf "%s{\"tool\":\"%s\",\"records\":%d,\"seconds\":%s,\"cpu_seconds\":%s,\"records_per_s\":%.0f,\"peak_rss_kb\":%s,\"jq_records\":%d,\"jq_seconds\":%s,\"jq_cpu_seconds\":%s,\"jq_records_per_s\":%.0f,\"jq_peak_rss_kb\":%s,\"same\":\"%s\"}", \
				(i > 1 ? "," : ""), a, r[a], s[a], c[a], rt(r[a], s[a]), k[a], r[b], s[b], c[b], rt(r[b], s[b]), k[b], same[j[i]]
		}
		printf "]}\n"
		exit
	}
	printf "compute.sh: %d records, best of %d (rag-embsim and its jq line: of %d); %d CPUs, %s\n\n", n, rep, nb["rag-embsim"], ncpu, cpu
	printf "load before: %s\nload after:  %s\n\n", up0, up1
	printf "%-11s %-15s %8s %8s %8s %10s %8s | %8s %8s %8s %10s %8s | %6s %s\n", "tool", "work", "records", "seconds", "CPU s", "records/s", "peak MB", "jq recs", "seconds", "CPU s", "records/s", "peak MB", "speed", "same numbers"
	for (i = 1; i <= 4; i++) {
		a = t[i]; b = "jq-" j[i]
		printf "%-11s %-15s %8d %8.2f %8.2f %10.0f %8.1f | %8d %8.2f %8.2f %10.0f %8.1f | %5.1fx %s\n", a, what[j[i]], r[a], s[a], c[a], rt(r[a], s[a]), k[a] / 1000, \
			r[b], s[b], c[b], rt(r[b], s[b]), k[b] / 1000, (rt(r[b], s[b]) > 0 ? rt(r[a], s[a]) / rt(r[b], s[b]) : 0), same[j[i]]
	}
	printf "\npeak MB: GNU time (10^6 bytes); CPU s: user + system; speed: the tool'"'"'s records/s over jq'"'"'s.\n"
	printf "rag-embsim'"'"'s jq line is a plain bag-of-words cosine (jq has no stemmer and no 64-bit hash),\n"
	printf "not the offline embedder'"'"'s numbers.\n"
}' "$W/results.tsv"
[ "$SAME_AP" = true ] && [ "${SAME_GATE:-false}" = true ] && [ "$SAME_KW" = true ] || FAILED=1
exit $FAILED
