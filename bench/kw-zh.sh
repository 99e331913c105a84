#!/bin/sh
# kw-zh.sh - rag-kw's Chinese keyword_overlap on a small paraphrase set (not a test).
#
#   sh bench/kw-zh.sh [--json]
#
# bench/kw-zh/dev.jsonl and heldout.jsonl (bench/kw-zh/README): 24 and 12 Chinese references,
# each with a correct paraphrase (human.correct true) and a wrong answer on the same topic
# (false). Prints, for each part, the mean keyword_overlap of the paraphrases and of the wrong
# answers, and rag-agree's ROC AUC of the score against human.correct. RAG_BIN=/path/to/bin
# runs other binaries. No network.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

JSON=0
case ${1-} in
--json) JSON=1 ;;
-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
'') ;;
*) echo "usage: $0 [--json]" >&2; exit 2 ;;
esac
bench_need jq
bench_setup kw-zh rag-kw rag-agree

for part in dev heldout; do
	"$BIN/rag-kw" -q -m keyword_overlap <bench/kw-zh/$part.jsonl |
		jq -c '{id, score: .scores.keyword_overlap, human: .human.correct}' >"$W/scores.jsonl" || exit 1
	AUC=$("$BIN/rag-agree" -q --field score --label human --json "$W/scores.jsonl" | jq '.auc * 1000 | round / 1000')
	jq -s -c --arg part $part --argjson auc "$AUC" '{part: $part,
		paraphrase_mean: (map(select(.human) | .score) | add / length * 1000 | round / 1000),
		wrong_mean: (map(select(.human | not) | .score) | add / length * 1000 | round / 1000),
		auc: $auc, n: length}' "$W/scores.jsonl"
done >"$W/out.jsonl"
if [ $JSON = 1 ]; then
	jq -s -c . "$W/out.jsonl"
else
	jq -r '"\(.part): keyword_overlap on \(.n) rows: paraphrases \(.paraphrase_mean), wrong answers \(.wrong_mean), AUC \(.auc)"' "$W/out.jsonl"
fi
