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
like "$(cat "$T/j.xml")" '<testcase classname="ragpipe" name="0\.1 faithfulness">' \
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

done_testing
