#!/bin/sh
# accuracy.sh - the offline judge against people: on each human-labelled set of bench/data
# (bench/data/README.md), the ROC AUC of the offline judge's score beside that of a
# word-overlap baseline on the same rows, through rag-agree, for the dev and the held-out part.
#
#   sh bench/accuracy.sh [--json]
#
# RAG_BIN=/path/to/bin runs other binaries; RAG_ACC_DATA=DIR reads the sets from DIR
# (default bench/data, made by bench/mkdata.py, else ../shared/testdata/accuracy beside the
# checkout). No judge endpoint: the offline judge.
# The baselines (printed with the table):
#   faithfulness       share of the answer's distinct words found in the contexts
#   context relevance  share of the question's distinct words found in the chunk
#   answer relevancy   share of the question's distinct words found in the answer
#   Chinese chunks     share of the question's distinct character bigrams found in the chunk
# (words: lowercase ASCII letter and digit runs; bigrams: adjacent letters, digits or CJK
# ideographs, punctuation and spaces dropped first)
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 2
. bench/lib.sh

JSON=0
case ${1-} in
--json) JSON=1 ;;
-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
'') ;;
*) echo "usage: $0 [--json]" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "usage: $0 [--json]" >&2; exit 2; }

DATA=${RAG_ACC_DATA:-$TOP/bench/data}
# a checkout without the sets: the copy kept beside it in shared/, where there is one
[ -n "${RAG_ACC_DATA:-}" ] || [ -s "$DATA/faith-en/dev.jsonl" ] || [ ! -s "$TOP/../shared/testdata/accuracy/faith-en/dev.jsonl" ] ||
	DATA=$TOP/../shared/testdata/accuracy
[ -s "$DATA/faith-en/dev.jsonl" ] || {
	echo "accuracy.sh: no sets in $DATA (bench/mkdata.py SRC $DATA makes them; bench/data/README.md)" >&2
	exit 2
}
bench_need jq
bench_setup accuracy rag-claims rag-verify rag-revq rag-embsim rag-agree
unset RAG_API_KEY RAG_BASE_URL     # the offline judge, whatever bench_setup left for the fake

# jq: the baselines
JQ_DEFS='
def words: ascii_downcase | [scan("[a-z0-9]+")] | unique;
def bigrams: explode | map(select((. >= 48 and . <= 57) or (. >= 65 and . <= 90) or (. >= 97 and . <= 122)
    or (. >= 13312 and . <= 40959) or (. >= 63744 and . <= 64255)))
  | if length < 2 then [] else [range(0; length - 1) as $i | .[$i:$i + 2] | implode] | unique end;
def share($want; $have): ($have | map({(.): true}) | add // {}) as $h
  | if ($want | length) == 0 then 0 else ([$want[] | select($h[.])] | length) / ($want | length) end;
def ctx: (.contexts // []) | join("\n");
def chunk_score($m): ((.verdicts[$m] // [])[0]) as $v
  | if $v == null then null elif ($v.score | type) == "number" then $v.score
    elif $v.verdict == true then 1 else 0 end;
'

judge() {   # SET PART: the judged records on stdout
	case $1 in
	faith-en|faith-sum) "$BIN/rag-claims" -q <"$DATA/$1/$2.jsonl" | "$BIN/rag-verify" -q ;;
	ctx-en|ctx-zh) "$BIN/rag-verify" -q --chunks <"$DATA/$1/$2.jsonl" ;;
	ans-en) "$BIN/rag-revq" -q <"$DATA/$1/$2.jsonl" | "$BIN/rag-embsim" -q ;;
	esac
}

pairs() {   # SET: judged records in, {id, judge, base, human} out
	case $1 in
	faith-en|faith-sum) jq -c "$JQ_DEFS"'{id, judge: .scores.faithfulness, base: share(.answer | words; ctx | words), human: .human.faithful}' ;;
	ctx-en) jq -c "$JQ_DEFS"'{id, judge: chunk_score("context_precision"), base: share(.question | words; ctx | words), human: .human.relevant}' ;;
	ctx-zh) jq -c "$JQ_DEFS"'{id, judge: chunk_score("context_precision"), base: share(.question | bigrams; ctx | bigrams), human: .human.relevant}' ;;
	ans-en) jq -c "$JQ_DEFS"'{id, judge: .scores.answer_relevancy, base: share(.question | words; .answer | words), human: .human.addresses}' ;;
	esac
}

auc() {     # FIELD FILE: "auc n" (auc null when rag-agree gives none)
	"$BIN/rag-agree" -q --field "$1" --label human --json "$2" |
		jq -r '"\(if .auc == null then "null" else (.auc * 1000 | round / 1000) end) \(.pairs)"'
}

: >"$W/rows"
# faith-sum (FaithBench, non-commercial) only where it was made
sets="faith-en ctx-en ans-en ctx-zh"
[ -s "$DATA/faith-sum/dev.jsonl" ] && sets="$sets faith-sum"
for set in $sets; do
	case $set in
	faith-en|faith-sum) metric="faithfulness (rag-claims, rag-verify)" ;;
	ctx-en) metric="context relevance (rag-verify --chunks)" ;;
	ans-en) metric="answer relevancy (rag-revq, rag-embsim)" ;;
	ctx-zh) metric="Chinese chunk relevance (rag-verify --chunks)" ;;
	esac
	for part in dev heldout; do
		judge $set $part | pairs $set >"$W/p.$set.$part" || exit 1
		set -- $(auc judge "$W/p.$set.$part")
		ja=$1 jn=$2
		set -- $(auc base "$W/p.$set.$part")
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$set" "$metric" "$part" "$ja" "$jn" "$1" "$2" >>"$W/rows"
	done
done

if [ $JSON = 1 ]; then
	jq -R -s -c 'split("\n") | map(select(length > 0) | split("\t")
		| {set: .[0], metric: .[1], part: .[2], offline_auc: (.[3] | fromjson), n: (.[4] | tonumber),
		   baseline_auc: (.[5] | fromjson), baseline_n: (.[6] | tonumber)})' "$W/rows"
	exit 0
fi
awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); if (/^The baselines/) on = 1; if (on) print; next } NR > 1 { exit }' "$0"
echo
echo "| metric | set | part | offline AUC | n | baseline AUC |"
echo "|---|---|---|---:|---:|---:|"
awk -F '\t' '{ n = $5; if ($7 != $5) n = $5 " (baseline " $7 ")";
	printf "| %s | %s | %s | %s | %s | %s |\n", $2, $1, ($3 == "dev" ? "dev" : "held-out"), $4, n, $6 }' "$W/rows"
