#!/bin/sh
# 73-agree.t - rag-agree: a judge's field against human labels, end to end.
#
# The measures' arithmetic is tests/unit/t-agree.c's (scikit-learn's and scipy's documented
# examples, hand-computed kappa and PPI); here the real binary: the fields, labels in the records,
# in JSON Lines and in CSV joined by id with ids missing on either side, the sample sheet (the same
# seed, the same sheet; filled in and read back), the formats and the exit statuses.
. "$(dirname "$0")/lib.sh"

need jq
[ -x "$BIN/rag-agree" ] || bail_out "bin/rag-agree is not built: run make"
F=scores.faithfulness

# scikit-learn's roc_auc_score example as four records (y = [0,0,1,1], s = [.1,.4,.35,.8]:
# AUC 0.75), labels in three spellings, one record without a score and one without a label
cat >"$T/run.jsonl" <<'EOF'
{"id":"a","question":"Q1","answer":"A1","contexts":["c1","c2"],"category":"x","scores":{"faithfulness":0.1},"human":0,"verdicts":{"faithfulness":[{"verdict":false,"reason":"claim 1 is not in the context"}]}}
{"id":"b","question":"Q2","answer":"A2, \"quoted\"","contexts":["c"],"category":"x","scores":{"faithfulness":0.4},"human":"no"}
{"id":"c","question":"Q3","answer":"A3","contexts":[],"category":"y","scores":{"faithfulness":0.35},"human":"yes"}
{"id":"d","question":"Q4","answer":"A4","contexts":["x"],"category":"y","scores":{"faithfulness":0.8},"human":true}
{"id":"e","question":"Q5","answer":"A5","scores":{"faithfulness":null},"human":true}
{"id":"f","question":"Q6","answer":"A6","scores":{"faithfulness":0.9}}
EOF

# ---------------------------------------------------------------- labels in the records
run rag rag-agree --field $F --label human --json "$T/run.jsonl"
is "$RC" 0 "labels in the records: exit 0"
is "$(jq -r .auc "$OUT")" 0.75 "AUC 0.75, scikit-learn's documented example"
is "$(jq -c '[.records, .pairs, .without_score, .without_label]' "$OUT")" "[6,4,1,1]" \
	"6 records: 4 pairs, 1 without a score and 1 without a label counted, not dropped silently"
is "$(jq -c .confusion "$OUT")" '{"tp":1,"fp":0,"fn":1,"tn":2}' "confusion matrix at 0.5"
is "$(jq -c '[.best.optimise, .best.threshold, .best.value]' "$OUT")" '["f1",0.35,0.8]' "best F1 threshold 0.35 (F1 0.8)"
is "$(jq -r .kappa "$OUT")" 0.5 "kappa at 0.5: po 3/4, pe 1/2"
is "$(jq -r '.intervals.auc | length' "$OUT")" 2 "AUC has a bootstrap interval"
# the corrected mean: judge over the 5 scored (0.1+0.4+0.35+0.8+0.9)/5 = 0.51, the four labelled
# differences (0.1, 0.4, -0.65, -0.2) mean -0.0875: 0.51 + 0.0875 = 0.5975
is "$(jq -r '.ppi.estimate * 10000 | round' "$OUT")" 5975 "PPI estimate: the judge's mean corrected by the labelled differences"
is "$(jq -c '[.ppi.n_all, .ppi.n_labelled]' "$OUT")" "[5,4]" "PPI over 5 scored, 4 labelled"
cp "$OUT" "$T/first.json"
# the corrected mean is a mean of labels, so it stays on their scale: judge 0.92 over 10 records,
# two labelled with differences -0.8 and 0: 1.32 [0.520, 2.120] by the normal interval, which
# runs past the scale's 1; clipped: 1 [0.520, 1], and ppi.clipped says so
{ printf '{"id":"l1","scores":{"faithfulness":0.2},"human":1}\n{"id":"l2","scores":{"faithfulness":1},"human":1}\n'
  for i in 3 4 5 6 7 8 9 10; do printf '{"id":"u%s","scores":{"faithfulness":1}}\n' "$i"; done; } >"$T/two.jsonl"
run rag rag-agree --field $F --label human --json "$T/two.jsonl"
is "$(jq -c '[.ppi.estimate, (.ppi.lo * 1000 | round), .ppi.hi, .ppi.clipped, (.ppi.judge_mean * 1000 | round)]' "$OUT")" '[1,520,1,true,920]' \
	"PPI with 2 labels: the estimate and its interval clipped to the scale [0, 1]"
run rag rag-agree --field $F --label human "$T/two.jsonl"
like "$(cat "$OUT")" 'corrected mean   1\.000 \[0\.520, 1\.000\] \(judge mean 0\.920 over 10 records, corrected by 2 labelled; clipped to the labels. scale\)' \
	"...said in the text"
run rag rag-agree --field $F --label human --json <"$T/run.jsonl"
check "stdin and a FILE operand agree; the same seed, the same intervals" cmp -s "$OUT" "$T/first.json"
run rag rag-agree --field $F --label human --json --seed 9 <"$T/run.jsonl"
check "--seed changes the bootstrap" sh -c "! cmp -s '$OUT' '$T/first.json'"

run rag rag-agree --field $F --label human <"$T/run.jsonl"
like "$(cat "$OUT")" "ROC AUC +0\.750 \[" "text output: AUC with its interval"
like "$(cat "$OUT")" "left out: 1 without a score, 1 without a label" "text output says what was left out"
like "$(cat "$OUT")" "corrected mean +0\.598" "text output: the corrected mean"
run rag rag-agree --field $F --label human --markdown <"$T/run.jsonl"
like "$(cat "$OUT")" "^\| ROC AUC \| 0\.750 \|" "Markdown output: a table row for AUC"

# a verdict field (booleans) and a threshold
printf '%s\n' '{"id":1,"v":true,"h":1}' '{"id":2,"v":false,"h":0}' '{"id":3,"v":true,"h":0}' '{"id":4,"v":false,"h":"否"}' \
	'{"id":5,"v":true,"h":"是"}' >"$T/verdicts.jsonl"
run rag rag-agree -f v -l h --json <"$T/verdicts.jsonl"
is "$(jq -c '[.pairs, .accuracy, .confusion.fp]' "$OUT")" "[5,0.8,1]" "a boolean verdict; labels 是/否 read as yes/no"

# ---------------------------------------------------------------- degenerate cases
printf '%s\n' '{"id":1,"s":0.2,"h":1}' '{"id":2,"s":0.7,"h":1}' '{"id":3,"s":0.9,"h":1}' >"$T/oneclass.jsonl"
run rag rag-agree -f s -l h --json <"$T/oneclass.jsonl"
is "$RC" 0 "one class only: still exit 0"
is "$(jq -r .auc "$OUT")" null "one class only: AUC null, not a number"
like "$(jq -r .null_reasons.auc "$OUT")" "one class only" "one class only: the reason"
printf '%s\n' '{"id":1,"s":0.5,"h":1}' '{"id":2,"s":0.5,"h":3}' '{"id":3,"s":0.5,"h":5}' >"$T/constant.jsonl"
run rag rag-agree -f s -l h --scale 1-5 --json <"$T/constant.jsonl"
is "$(jq -c '[.labels_kind, .spearman, .auc]' "$OUT")" '["graded",null,null]' "graded labels, constant scores: Spearman and AUC null"
is "$(jq -r .null_reasons.spearman "$OUT")" "the scores are constant" "constant scores: the reason"
printf '%s\n' '{"id":1,"s":0.1,"h":1}' '{"id":2,"s":0.5,"h":3}' '{"id":3,"s":0.9,"h":5}' '{"id":4,"s":0.7,"h":4}' >"$T/graded.jsonl"
run rag rag-agree -f s -l h --scale 1-5 --json <"$T/graded.jsonl"
is "$(jq -c '[.spearman, .kendall_tau_b]' "$OUT")" "[1,1]" "graded labels in the scores' order: Spearman and Kendall 1"

# ---------------------------------------------------------------- the labels' scale
# labels outside it are errors at their place, left out and counted: never graded, never in the
# corrected mean (a -1 made it 0.250 [-1.200, 1.700])
run rag rag-agree -f s -l h --json <"$T/graded.jsonl"
is "$RC" 3 "graded labels on the default scale 0-1: exit 3"
like "$(cat "$ERR")" '^rag-agree: error \(at <stdin>:2\): the label 3 is outside the scale 0-1' \
	"the label outside the scale named at its line of the records (--label)"
is "$(jq -c '[.bad_labels, .pairs]' "$OUT")" "[3,1]" "3 labels outside the scale counted and left out"
printf '%s\n' '{"id":"a","label":1}' '{"id":"b","label":0}' '{"id":"c","label":-1}' '{"id":"d","label":1}' >"$T/neg.jsonl"
run rag rag-agree --field $F --labels "$T/neg.jsonl" --json <"$T/run.jsonl"
is "$RC" 3 "a label of -1 in a labels file: exit 3"
is "$(grep -c . "$ERR")" 1 "one message"
like "$(cat "$ERR")" "^rag-agree: error \\(at $T/neg\\.jsonl:3\\): the label -1 is outside the scale 0-1" \
	"it names the labels file and the label's line in it, not <stdin>"
is "$(jq -c '[.bad_labels, .pairs, .labels_kind, .ppi.n_labelled]' "$OUT")" '[1,3,"binary",3]' \
	"-1 is not taken as a graded label: left out of the measures and the corrected mean"
printf 'id,label\r\na,yes\r\n\r\nb,"no"\r\nc,"maybe\r\nnot"\r\nd,7\r\n' >"$T/bad.csv"
run rag rag-agree --field $F --labels "$T/bad.csv" --json <"$T/run.jsonl"
is "$RC" 3 "labels that cannot be read, or are outside the scale, in a CSV file: exit 3"
like "$(cat "$ERR")" "at $T/bad\\.csv:5\\): the label \\(--labels\\) cannot be read" "a CSV row's line (a quoted cell over two lines)"
like "$(cat "$ERR")" "error \\(at $T/bad\\.csv:7\\): the label 7 is outside the scale 0-1" "and the next row's"
unlike "$(cat "$ERR")" "<stdin>" "no message names <stdin> for the labels file"
run rag rag-agree --field $F --labels "$T/bad.csv" --scale 0-10 --json "$T/run.jsonl"
is "$(jq -c '[.bad_labels, .pairs]' "$OUT")" '[1,3]' "--scale 0-10: 7 is a label"
run rag rag-agree -f s -l h --scale 2-5 --json <"$T/graded.jsonl"
like "$(cat "$ERR")" 'error \(at <stdin>:1\): the label 1 is outside the scale 2-5' "--scale LO-HI: its ends"
for bad in 5-1 1 x-2 1-1 1-5x; do
	run rag rag-agree -f s -l h --scale "$bad" <"$T/graded.jsonl"
	is "$RC" 2 "--scale $bad: exit 2"
done

# ---------------------------------------------------------------- a labels file joined by id
printf '%s\n' '{"id":"a","label":0}' '{"id":"b","label":"no"}' '{"id":"c","label":1}' '{"id":"d","label":true}' \
	'{"id":"zz","label":1}' >"$T/labels.jsonl"
run rag rag-agree --field $F --labels "$T/labels.jsonl" --json "$T/run.jsonl"
is "$RC" 0 "labels from JSON Lines: exit 0"
is "$(jq -c '[.pairs, .auc, .without_label, .labels_unmatched]' "$OUT")" "[4,0.75,1,1]" \
	"JSONL labels: 4 joined, f has no label, zz matches no record"
printf 'id,label\r\na,0\r\nb,no\r\nc,yes\r\nd,1\r\nzz,1\r\n' >"$T/labels.csv"
run rag rag-agree --field $F --labels "$T/labels.csv" --json "$T/run.jsonl"
is "$(jq -c '[.pairs, .auc, .without_label, .labels_unmatched]' "$OUT")" "[4,0.75,1,1]" "CSV labels: the same join"
# --id: another join field
jq -c '{key: .id, scores}' "$T/run.jsonl" >"$T/keyed.jsonl"
run rag rag-agree --field $F --labels "$T/labels.csv" --id key --json "$T/keyed.jsonl"
is "$(jq -r .pairs "$OUT")" 4 "--id key joins on another field"
run rag rag-agree --field $F --labels "$T/labels.csv" --json "$T/keyed.jsonl"
is "$(jq -c '[.pairs, .without_id]' "$OUT")" "[0,5]" "records without the id field: none joined, counted"
is "$RC" 3 "no pair at all: exit 3"
like "$(cat "$ERR")" "no record has both a score" "no pair: said"

# ---------------------------------------------------------------- the sample sheet
i=0
: >"$T/big.jsonl"
while [ $i -lt 40 ]; do
	cat=$([ $((i % 3)) -eq 0 ] && echo refund || echo shipping)
	jq -n -c --argjson i $i --arg c "$cat" '{id: "r\($i)", question: "问题 \($i)?", answer: "答案 \($i)",
		contexts: ["第一段 \($i)", "second, with a comma and a \"quote\""], category: $c,
		scores: {faithfulness: (($i * 37 % 100) / 100)}, verdicts: {faithfulness: {reason: "reason \($i)"}}}' >>"$T/big.jsonl"
	i=$((i + 1))
done
run rag rag-agree --field $F --sample 10 --sheet "$T/s1.csv" --seed 3 "$T/big.jsonl"
is "$RC" 0 "--sample without labels: exit 0"
like "$(cat "$ERR")" "10 of 40 records drawn" "the sample is counted on stderr"
run rag rag-agree --field $F --sample 10 --sheet "$T/s2.csv" --seed 3 <"$T/big.jsonl"
check "the same seed, the same sheet" cmp -s "$T/s1.csv" "$T/s2.csv"
run rag rag-agree --field $F --sample 10 --sheet "$T/s3.csv" --seed 4 <"$T/big.jsonl"
check "another seed, another sample" sh -c "! cmp -s '$T/s1.csv' '$T/s3.csv'"
is "$(head -1 "$T/s1.csv" | tr -d '\r')" "id,category,score,reason,question,answer,contexts,label" "sheet header"
# the rows, through the test set reader's own CSV rules: jq over a CSV is no help, count ids
rows=$(grep -c '^r[0-9]*,' "$T/s1.csv")
is "$rows" 10 "10 rows on the sheet"
is "$(grep '^r[0-9]*,refund' "$T/s1.csv" | wc -l | tr -d ' ')" 4 "stratified by category: refund has 14 of 40, 4 of 10 rows"
like "$(cat "$T/s1.csv")" "问题" "Chinese text on the sheet as it was"
like "$(cat "$T/s1.csv")" ',"\(1\) 第一段 [0-9]+ \(2\) second, with a comma and a ""quote"""' "contexts numbered in one cell, CSV quoting"
like "$(cat "$T/s1.csv")" ",reason [0-9]+," "the judge's reason from verdicts.faithfulness"
like "$(sed -n 2p "$T/s1.csv" | tr -d '\r')" ',$' "the label column is empty"
# fill it in: label 1 when the score is 0.5 or more, but for one wrong label; and one left empty
awk -F, 'NR == 1 { print; next } /^r[0-9]+,/ { n++; sub(/\r$/, ""); lab = ($3 >= 0.5) ? 1 : 0; if (n == 1) lab = 1 - lab;
	if (n == 2) lab = ""; print $0 lab "\r"; next } { print }' "$T/s1.csv" >"$T/filled.csv"
run rag rag-agree --field $F --labels "$T/filled.csv" --json <"$T/big.jsonl"
is "$RC" 0 "the filled sheet read back: exit 0"
is "$(jq -c '[.pairs, .without_label, .ppi.n_all, .ppi.n_labelled]' "$OUT")" "[9,31,40,9]" \
	"the filled sheet: 9 labelled (one left empty), the corrected mean over all 40"
is "$(jq -r '.confusion.fp + .confusion.fn' "$OUT")" 1 "the one wrong label is the one disagreement"
run rag rag-agree --field $F --sample 5 --sheet "$T/s.md" <"$T/big.jsonl"
is "$(head -1 "$T/s.md")" "| id | category | score | reason | question | answer | contexts | label |" "a .md sheet is a Markdown table"
is "$(grep -c '^| r' "$T/s.md")" 5 "5 rows in the Markdown sheet"

# ---------------------------------------------------------------- exit statuses
run rag rag-agree --label human <"$T/run.jsonl"
is "$RC" 2 "no --field: exit 2"
run rag rag-agree --field $F --label human --labels "$T/labels.csv" <"$T/run.jsonl"
is "$RC" 2 "--label and --labels together: exit 2"
run rag rag-agree --field $F <"$T/run.jsonl"
is "$RC" 2 "no labels and no sheet: exit 2"
run rag rag-agree --field $F --sample 3 <"$T/run.jsonl"
is "$RC" 2 "--sample without --sheet: exit 2"
run rag rag-agree --field $F --label human --optimise auc <"$T/run.jsonl"
is "$RC" 2 "--optimise auc: exit 2"
run rag rag-agree --field $F --label human --confidence 1 <"$T/run.jsonl"
is "$RC" 2 "--confidence 1: exit 2"
run rag rag-agree --field $F --labels "$T/nope.csv" <"$T/run.jsonl"
is "$RC" 2 "a labels file that cannot be opened: exit 2"
{ cat "$T/run.jsonl"; echo 'not json'; } >"$T/broken.jsonl"
run rag rag-agree --field $F --label human --json <"$T/broken.jsonl"
is "$RC" 3 "a line that is not a record: exit 3"
is "$(jq -c '[.unreadable, .pairs]' "$OUT")" "[1,4]" "the unreadable line counted, the rest compared"
printf '%s\n' '{"id":1,"s":"high","h":1}' '{"id":2,"s":0.5,"h":"maybe"}' '{"id":3,"s":0.7,"h":1}' '{"id":4,"s":0.1,"h":0}' >"$T/bad.jsonl"
run rag rag-agree -f s -l h --json <"$T/bad.jsonl"
is "$RC" 3 "a score or a label of the wrong kind: exit 3"
is "$(jq -c '[.bad_scores, .bad_labels, .pairs]' "$OUT")" "[1,1,2]" "both counted, left out"
like "$(cat "$ERR")" "warning \(at <stdin>:1\): s is not a number" "the bad score named with its position"
printf 'id,label\n"a,0\n' >"$T/broken.csv"
run rag rag-agree --field $F --labels "$T/broken.csv" <"$T/run.jsonl"
is "$RC" 3 "a broken CSV labels file: exit 3"
printf '%s\n' '{"id":"a","verdict":1}' >"$T/nolabel.jsonl"
run rag rag-agree --field $F --labels "$T/nolabel.jsonl" <"$T/run.jsonl"
is "$RC" 3 "a labels file with no label in any row: exit 3"

# ---------------------------------------------------------------- length bias, by hand
# Five answers of 10 (Chinese: 30 bytes), 20, 30, 40, 50 characters; the judge's scores rise with
# the length: Spearman 1. The labels 1 0 1 0 1: ranks 4 1.5 4 1.5 4 against 1..5, covariance
# -2 + 1.5 + 0 - 1.5 + 2 = 0: rho 0, so the judge's is 1 above the labels' (> 0.2): a warning.
# In bytes the first answer (30) would tie the third and rho would not be 1.
a() { printf "%${1}s" "" | tr ' ' a; }
zh=退货需要几天请问一下
lb() {
	printf '{"id":1,"answer":"%s","s":0.1,"h":%s}\n' "$zh" "$1"
	printf '{"id":2,"answer":"%s","s":0.3,"h":%s}\n' "$(a 20)" "$2"
	printf '{"id":3,"answer":"%s","s":0.5,"h":%s}\n' "$(a 30)" "$3"
	printf '{"id":4,"answer":"%s","s":0.7,"h":%s}\n' "$(a 40)" "$4"
	printf '{"id":5,"answer":"%s","s":0.9,"h":%s}\n' "$(a 50)" "$5"
}
lb 1 0 1 0 1 >"$T/len.jsonl"
run rag rag-agree -f s --label h --json "$T/len.jsonl"
is "$(jq -c '.length_bias | del(.null_reasons)' "$OUT")" \
	'{"unit":"characters","measure":"spearman","pairs":5,"judge":1,"human":0,"difference":1,"warn":true}' \
	"length bias: the judge's Spearman with the length in characters 1, the labels' 0, warned (1 > 0.2)"
like "$(cat "$ERR")" "^rag-agree: warning: the judge's scores follow the answers' length more than the labels do \\(Spearman 1\\.000 against 0\\.000\\)" \
	"...and said on stderr"
run rag rag-agree -f s --label h "$T/len.jsonl"
like "$(cat "$OUT")" "length bias +Spearman with the answer's length \\(characters\\), 5 pairs: judge 1\\.000, labels 0\\.000" \
	"text: the two correlations side by side"
like "$(cat "$OUT")" "warning: the judge's scores follow the answers' length more than the labels do" "text: the warning"
run rag rag-agree -f s --label h --markdown "$T/len.jsonl"
like "$(cat "$OUT")" "> \\*\\*Warning:\\*\\* the judge's scores follow" "Markdown: the warning"
# labels 0 0 1 1 1: ranks 1.5 1.5 4 4 4, covariance 3 + 1.5 + 0 + 1 + 2 = 7.5, variances 10 and
# 7.5: rho 7.5 / sqrt(75) = 0.866; the judge's 1 is 0.134 above: no warning
lb 0 0 1 1 1 >"$T/len2.jsonl"
run rag rag-agree -f s --label h --json "$T/len2.jsonl"
is "$(jq -r '.length_bias | "\(.human * 1000 | round) \(.difference * 1000 | round) \(.warn)"' "$OUT")" "866 134 false" \
	"labels that follow the length too: rho 0.866, 0.134 apart: no warning"
unlike "$(cat "$ERR")" "length" "...and nothing on stderr"
# four pairs: too few to tell a bias from chance (rag-agree(1)): the numbers, no warning
head -4 "$T/len.jsonl" >"$T/len4.jsonl"
run rag rag-agree -f s --label h --json "$T/len4.jsonl"
is "$(jq -r '.length_bias | "\(.pairs) \(.judge) \(.human * 1000 | round) \(.warn)"' "$OUT")" "4 1 -447 false" \
	"4 pairs (labels 1 0 1 0: rho -2/sqrt(20) = -0.447): fewer than 5, no warning"
# every answer of one length: no correlation to give, null and why
jq -c '.answer = "same"' "$T/len.jsonl" >"$T/len3.jsonl"
run rag rag-agree -f s --label h --json "$T/len3.jsonl"
is "$(jq -c '.length_bias | [.judge, .human, .warn, .null_reasons.judge]' "$OUT")" '[null,null,false,"the answers are all of one length"]' \
	"answers of one length: null, with the reason, no warning"

done_testing
