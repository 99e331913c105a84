#!/bin/sh
# 62-counts.t - the counts a summary gives add up, by hand: the pass rate states its denominator
# (the records without errors or nulls) in the text, Markdown and HTML summaries and in each
# category; the baseline's changes count records apart from record x metric pairs. And a
# record's id is written one way everywhere: a number id 0.1 is "0.1" in JUnit, in rag-store
# diff, and as the key rag-gate -b matches a diff's lines by.
. "$(dirname "$0")/lib.sh"
need jq

# ---------------------------------------------------------------- a number id, one text
printf '{"id":0.1,"scores":{"faithfulness":0.9}}\n{"id":2,"scores":{"faithfulness":0.8}}\n' >"$T/a.jsonl"
printf '{"id":0.1,"scores":{"faithfulness":0.5}}\n{"id":2,"scores":{"faithfulness":0.8}}\n' >"$T/b.jsonl"
run rag rag-gate -r faithfulness=0.6 --junit "$T/j.xml" "$T/b.jsonl"
like "$(cat "$T/j.xml")" '<testcase classname="ragpipe" name="0\.1" ' \
	"JUnit: the id 0.1 is named 0.1 (not 0.10000000000000001)"
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"
st() { rag rag-store -c "$T/c.yaml" --store "$T/s.db" "$@"; }
run st add - --run-id A <"$T/a.jsonl"
is "$RC" 0 "store: run A added"
run st add - --run-id B <"$T/b.jsonl"
is "$RC" 0 "store: run B added"
run st diff A B
cp "$OUT" "$T/diff.jsonl"
is "$(jq -r '"\(.id):\(.change)"' "$T/diff.jsonl" | tr '\n' ' ')" "0.1:regressed 2:same " \
	"rag-store diff: the id 0.1 as 0.1, its regression found"
run rag rag-gate -t faithfulness=0 --json -b "$T/diff.jsonl" "$T/b.jsonl"
is "$(jq -c '.baseline | [.matched, .only_current_count, .regressed_count, [.regressed[].id]]' "$OUT")" '[2,0,1,["0.1"]]' \
	"rag-gate -b diff.jsonl: the number id 0.1 matches its diff line and its regression is found"
run rag rag-gate -t faithfulness=0 --json -b "$T/a.jsonl" "$T/b.jsonl"
is "$(jq -c '.baseline | [.matched, .regressed_count]' "$OUT")" '[2,1]' "and so it does against the run itself"

# ---------------------------------------------------------------- the pass rate's denominator
# category A: 3 pass, 1 null (an error); B: 4 pass, 2 below the record threshold of 0.5.
# 10 records, 1 with errors or nulls, 7 of the other 9 pass: 77.8%; A 3 of 3, B 4 of 6.
{
	for i in 1 2 3; do printf '{"id":"a%s","category":"A","scores":{"faithfulness":0.9}}\n' $i; done
	printf '{"id":"a4","category":"A","scores":{"faithfulness":null}}\n'
	for i in 1 2 3 4; do printf '{"id":"b%s","category":"B","scores":{"faithfulness":0.8}}\n' $i; done
	for i in 5 6; do printf '{"id":"b%s","category":"B","scores":{"faithfulness":0.2}}\n' $i; done
} >"$T/ten.jsonl"
G="-r faithfulness=0.5 --min-pass-rate 0.5 --max-error-rate 0.5"
run rag rag-gate $G "$T/ten.jsonl"
is "$(head -n 1 "$OUT")" \
	"rag-gate: PASS: 10 records: 7 passed (77.8% of the 9 without errors or nulls), 2 failed, 1 with errors or nulls" \
	"text: the pass rate is 7 of 9 and says so; 7 + 2 + 1 = 10"
like "$(cat "$OUT")" '  A: 4 records: 3 passed \(100\.0% of the 3 without errors or nulls\), 0 failed, 1 with errors or nulls' \
	"text: a category with an error says its 100% is of 3, not of its 4 records"
like "$(cat "$OUT")" '  B: 6 records: 4 passed \(66\.7% of 6\), 2 failed, 0 with errors or nulls' \
	"text: a category without errors: 4 of 6"
like "$(cat "$OUT")" 'faithfulness .* 77\.8% of 9 ' "text: the metric's pass rate names the 9 records checked"
run rag rag-gate $G --json "$T/ten.jsonl"
is "$(jq -c '[.records, .errored, .passed, .pass_rate_of, (.pass_rate * 1000 | round)]' "$OUT")" '[10,1,7,9,778]' \
	"JSON: the pass rate's denominator is pass_rate_of"
is "$(jq -c '[.categories[] | [.category, .records, .errored, .passed, .pass_rate_of]]' "$OUT")" '[["A",4,1,3,3],["B",6,0,4,6]]' \
	"JSON: each category's records, errors, passes and denominator"
run rag rag-gate $G --markdown "$T/ten.jsonl"
like "$(cat "$OUT")" '10 records: 7 passed \(77\.8% of the 9 without errors or nulls\), 2 failed, 1 with errors or nulls\.' \
	"Markdown: the same sentence"
like "$(cat "$OUT")" '#### A \(4 records: 3 passed \(100\.0% of the 3 without errors or nulls\), 0 failed, 1 with errors or nulls\)' \
	"Markdown: the category's"
run rag rag-report $G -o "$T/ten.html" "$T/ten.jsonl"
like "$(cat "$T/ten.html")" ': 10 records: 7 passed \(77\.8% of the 9 without errors or nulls\), 2 failed, 1 with errors or nulls\.</p>' \
	"HTML: the header's counts add up (it said 3 failed: the error counted twice)"
like "$(cat "$T/ten.html")" '<span class="counts">4 records: 3 passed \(100\.0% of the 3 without errors or nulls\), 0 failed, 1 with errors or nulls</span>' \
	"HTML: the category's"
like "$(cat "$T/ten.html")" '7 passed, 2 failed \(77\.8% of 9\)' "HTML: the metric's card names its denominator"

# ---------------------------------------------------------------- changes: records and pairs apart
# r1 loses 0.4 on both metrics (2 pairs), r2 loses one and gains one (a regressed record), r3
# gains one, r4 the same: 4 matched, 2 records regressed, 1 improved, 1 neither; pairs 3 and 2.
cat >"$T/base.jsonl" <<'X'
{"id":"r1","scores":{"faithfulness":0.9,"context_recall":0.9}}
{"id":"r2","scores":{"faithfulness":0.9,"context_recall":0.5}}
{"id":"r3","scores":{"faithfulness":0.5,"context_recall":0.5}}
{"id":"r4","scores":{"faithfulness":0.5,"context_recall":0.5}}
X
cat >"$T/cur.jsonl" <<'X'
{"id":"r1","scores":{"faithfulness":0.5,"context_recall":0.5}}
{"id":"r2","scores":{"faithfulness":0.5,"context_recall":0.9}}
{"id":"r3","scores":{"faithfulness":0.9,"context_recall":0.5}}
{"id":"r4","scores":{"faithfulness":0.5,"context_recall":0.5}}
X
# (the classes are lib/compare.c's, and the sentence names its definition: paired by id, what
# regressed and improved mean)
CH='4 records matched by id: 2 regressed \(0 lost their score\), 1 improved, 1 unchanged \(paired by id over 4 records; regressed: fell by more than 0\.1 on some metric or lost its score [^;]*; improved: rose by more than 0\.1 or gained its score, none regressed; means over the pairs scored on both sides\); of the pairs of a record and a metric, 3 regressed and 2 improved'
run rag rag-gate -t faithfulness=0 -b "$T/base.jsonl" "$T/cur.jsonl"
like "$(cat "$OUT")" "$CH" "text: records regressed (2) apart from pairs (3)"
like "$(cat "$OUT")" 'regressed by more than 0\.100: 3 pairs of a record and a metric' "text: the list's count says pairs"
run rag rag-gate -t faithfulness=0 -b "$T/base.jsonl" --json "$T/cur.jsonl"
is "$(jq -c '.baseline | [.matched, .regressed_records, .improved_records, .unchanged_records, .regressed_count, .improved_count]' "$OUT")" \
	'[4,2,1,1,3,2]' "JSON: records per class add up to those matched; the pairs apart"
run rag rag-gate -t faithfulness=0 -b "$T/base.jsonl" --markdown "$T/cur.jsonl"
like "$(cat "$OUT")" "$CH; 0 only in this run, 0 only in the baseline\." "Markdown: the same"
run rag rag-report -t faithfulness=0 -b "$T/base.jsonl" -o "$T/cmp.html" "$T/cur.jsonl"
like "$(cat "$T/cmp.html")" "<p id=\"compare-head\">Against [^:]*: $CH;" "HTML: the same"
run st diff A B
like "$(cat "$ERR")" 'A -> B: 1 regressed \(0 lost their score\), 0 improved, 1 unchanged \(paired by id over 2 records; .*\); 0 added, 0 removed' \
	"rag-store diff: its counts are of records, and say so"

done_testing
