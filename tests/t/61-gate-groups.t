#!/bin/sh
# 61-gate-groups.t - rag-gate beyond thresholds: a record passes only when every enabled metric
# passes; not applicable metrics (rag(7)) left out of means, nulls and gates and counted apart;
# the tools' own pass verdicts (keyword_overlap, yes/no rubrics); flips across repeats with and
# without --fail-on-flip; failure hints in English and Chinese; groups by any field (--by),
# nested and missing; how many records each metric was computed on, in every format.
. "$(dirname "$0")/lib.sh"
need jq
need python3

js() { jq -r "$1" "$OUT"; }

# ---------------------------------------------------------------- every enabled metric must pass
cat >"$T/multi.jsonl" <<'EOF'
{"id":"good","scores":{"faithfulness":0.9,"answer_relevancy":0.9,"context_recall":0.9}}
{"id":"one-low","scores":{"faithfulness":0.9,"answer_relevancy":0.2,"context_recall":0.9}}
EOF
run rag rag-gate --json -r faithfulness=0.5 -r answer_relevancy=0.5 -r context_recall=0.5 "$T/multi.jsonl"
is "$RC:$(js '[.passed, .pass_rate] | @tsv')" "1:1	0.5" "one metric of three below its threshold fails the record (the others pass)"
is "$(js '.worst[0] | "\(.id) \(.failed) \(.reasons[0])"')" "one-low true answer_relevancy 0.200 is below the per-record threshold 0.500" \
	"the failed record names the metric that failed it"
is "$(js '[.metrics[] | "\(.metric)=\(.passed)/\(.failed)"] | join(" ")')" "answer_relevancy=1/1 context_recall=2/0 faithfulness=2/0" \
	"per metric: records passing and failing it"

# ---------------------------------------------------------------- not applicable on some records
cat >"$T/na.jsonl" <<'EOF'
{"id":"r1","question":"q1","scores":{"faithfulness":0.9,"context_recall":0.8}}
{"id":"r2","question":"q2","scores":{"faithfulness":0.8,"context_recall":0.6}}
{"id":"r3","question":"q3","scores":{"faithfulness":0.7,"context_recall":null},"not_applicable":{"context_recall":"no reference answer"}}
EOF
run rag rag-gate --json -t context_recall=0.7 -r context_recall=0.5 -t faithfulness=0.5 "$T/na.jsonl"
is "$RC" 0 "not applicable on some records: the gate passes (no null, no failure)"
is "$(js '.metrics[] | select(.metric == "context_recall") | [.computed, .not_applicable, .null, .mean, .error_rate] | @tsv')" "2	1	0	0.7	0" \
	"context_recall: computed on 2, 1 not applicable, 0 null, mean over the 2 (0.7), error rate 0"
is "$(js '.metrics[] | select(.metric == "context_recall") | .pass_rate')" 1 "its pass rate leaves the not applicable record out"
is "$(js '[.passed, .errored, .pass_rate] | @tsv')" "3	0	1" "the not applicable record passes (not an error)"
like "$(js '.checks[] | select(.check == "mean context_recall") | .message')" 'computed on 2 of 3 records; 1 not applicable' \
	"the mean check says how many records it was computed on"
run rag rag-gate -t context_recall=0.7 "$T/na.jsonl"
like "$(cat "$OUT")" 'context_recall +2 +1 +0 +0\.700' "text: computed, n/a, null columns"
like "$(cat "$OUT")" 'r3 at .*context_recall n/a' "text: a worst record's not applicable score is n/a, not null"
run rag rag-gate --markdown -t context_recall=0.7 "$T/na.jsonl"
like "$(cat "$OUT")" '\| context\\_recall \| 2 \| 1 \| 0 \| 0\.700' "Markdown: computed, n/a, null columns"
run rag rag-report -t context_recall=0.7 "$T/na.jsonl"
like "$(cat "$OUT")" 'computed on 2 of 3 records, 1 not applicable' "HTML: the card says how many it was computed on"
run rag rag-gate --junit "$T/junit.xml" -t context_recall=0.7 -r context_recall=0.5 "$T/na.jsonl"
is "$RC" 0 "--junit with a not applicable check: exit 0"
cat >"$T/count.py" <<'EOF'
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
for s in d.getElementsByTagName("testsuite"):
    cases = s.getElementsByTagName("testcase")
    sk = [c for c in cases if c.getElementsByTagName("skipped")]
    ok = int(s.getAttribute("skipped")) == len(sk)
    print(s.getAttribute("name"), len(cases), len(sk), "ok" if ok else "MISMATCH",
          " ".join(c.getAttribute("name") + ": " + c.getElementsByTagName("skipped")[0].getAttribute("message") for c in sk))
    for c in cases:
        for o in c.getElementsByTagName("system-out"):
            print(c.getAttribute("name"), "says:", o.firstChild.data)
EOF
is "$(python3 "$T/count.py" "$T/junit.xml")" "gate 2 0 ok 
(no category) 3 0 ok 
r3 says: context_recall: not applicable (no reference answer)" \
	"JUnit: a record passed on the metrics that apply, the not applicable one said in its system-out"

# ---------------------------------------------------------------- not applicable on every record
for i in 1 2 3; do
	printf '{"id":"n%d","scores":{"faithfulness":0.9,"context_recall":null},"not_applicable":{"context_recall":"no reference answer"}}\n' $i
done >"$T/allna.jsonl"
run rag rag-gate --json -t context_recall=0.7 -t faithfulness=0.5 "$T/allna.jsonl"
is "$RC" 0 "not applicable on every record: the recall gate is skipped, not failed"
is "$(js '.checks[] | select(.check == "mean context_recall") | [.pass, .skipped, .message] | @tsv')" \
	"true	true	context_recall: computed on 0 of 3 records (no reference answer): gate skipped" "the skipped check says so"
is "$(js '[.checks[] | select(.check | startswith("nulls"))] | length')" 0 "and no nulls check: not applicable is not null"
run rag rag-gate -t context_recall=0.7 -t faithfulness=0.5 "$T/allna.jsonl"
like "$(cat "$OUT")" 'skip context_recall: computed on 0 of 3 records' "text: the check is shown as skipped"
run rag rag-gate --json -t context_recall=0.7 "$T/allna.jsonl"
is "$RC" 0 "only a not applicable metric gated: still no 'no scores' failure"
# a metric gated that no record has, applicable or not: still a failure
printf '{"id":"x","scores":{"faithfulness":0.9}}\n' >"$T/norecall.jsonl"
run rag rag-gate --json -t context_recall=0.7 "$T/norecall.jsonl"
is "$RC:$(js '.checks[] | select(.check == "mean context_recall") | .message')" "1:context_recall: no record has a score" \
	"a gated metric missing (not marked not applicable) still fails"

# ---------------------------------------------------------------- the tools' own pass verdicts
cat >"$T/verdicts.jsonl" <<'EOF'
{"id":"k1","scores":{"keyword_overlap":0.5,"consistent":1},"verdicts":{"keyword_overlap":[{"verdict":true,"reason":"2 of 4","threshold":0.3}],"consistent":{"score":"yes","scale":"yes/no","reason":"ok","pass":true}}}
{"id":"k2","scores":{"keyword_overlap":0.2,"consistent":1},"verdicts":{"keyword_overlap":[{"verdict":false,"reason":"1 of 5","threshold":0.3}],"consistent":{"score":"yes","scale":"yes/no","reason":"ok","pass":true}}}
{"id":"k3","scores":{"keyword_overlap":0.6,"consistent":0},"verdicts":{"keyword_overlap":[{"verdict":true,"reason":"3 of 5","threshold":0.3}],"consistent":{"score":"no","scale":"yes/no","reason":"off","pass":false}}}
EOF
run rag rag-gate --json --pass keyword_overlap "$T/verdicts.jsonl"
is "$RC:$(js '[.passed, (.metrics[] | select(.metric == "keyword_overlap") | .pass_rate * 1000 | round)] | @tsv')" "1:2	667" \
	"--pass keyword_overlap: a record passes it exactly when its verdict does (2 of 3)"
is "$(js '[.worst[] | select(.failed) | .id] | join(",")')" "k2" "the record whose verdict failed is the one that fails"
run rag rag-gate --json --pass keyword_overlap,consistent "$T/verdicts.jsonl"
is "$RC:$(js '.passed'):$(js '.metrics[] | select(.metric == "consistent") | [.passed, .failed] | @tsv')" "1:1:2	1" \
	"--pass A,B: a yes/no rubric's pass gates as such; both must pass"
printf 'gate:\n  pass: [keyword_overlap, consistent]\n' >"$T/pass.yaml"
run rag rag-gate --json -c "$T/pass.yaml" "$T/verdicts.jsonl"
is "$RC:$(js '.passed'):$(js '.thresholds.pass | join(",")')" "1:1:keyword_overlap,consistent" "config gate.pass: the same, and a threshold of its own"
printf '{"id":"nov","scores":{"keyword_overlap":0.5}}\n' >"$T/noverdict.jsonl"
run rag rag-gate --json --pass keyword_overlap "$T/noverdict.jsonl"
is "$RC:$(js '.errored'):$(js '.worst[0].reasons[0]')" "1:1:keyword_overlap has no pass verdict (verdicts.keyword_overlap)" \
	"a pass gate with no verdict to read: an error, named"
like "$(js '.checks[] | select(.check == "nulls keyword_overlap") | .message')" '1 of 1 record has no score or no pass verdict' \
	"...and counted as a null of the metric"
printf '{"id":"nak","scores":{"keyword_overlap":null},"not_applicable":{"keyword_overlap":"no reference answer"}}\n' >"$T/nakw.jsonl"
run rag rag-gate --json --pass keyword_overlap "$T/nakw.jsonl"
is "$RC:$(js '.passed'):$(js '.checks[] | select(.skipped) | .message')" "0:1:keyword_overlap: computed on 0 of 1 record (no reference answer): gate skipped" \
	"a pass gate on a not applicable metric is skipped"

# ---------------------------------------------------------------- flips across repeats
cat >"$T/flip.jsonl" <<'EOF'
{"id":"f1","scores":{"correctness":0.8,"faithfulness":0.9},"verdicts":{"correctness":{"score":8,"scale":"0-10","reason":"","mean":8,"spread":3,"flip":true},"faithfulness":{"flip":true}}}
{"id":"f2","scores":{"correctness":0.9,"faithfulness":0.9},"verdicts":{"correctness":{"score":9,"scale":"0-10","reason":"","flip":false}}}
EOF
run rag rag-gate --json -r correctness=0.5 "$T/flip.jsonl"
is "$RC:$(js '.passed')" "0:2" "a flip does not fail the gate without --fail-on-flip"
is "$(js '[.metrics[] | "\(.metric)=\(.flips)"] | join(" ")')" "correctness=1 faithfulness=1" "but the summary counts flips per metric, gated or not"
like "$(js '.checks[] | select(.check == "flips correctness") | .message')" 'correctness: 1 record flips across repeats' "and a check line says so"
run rag rag-gate --json -r correctness=0.5 --fail-on-flip "$T/flip.jsonl"
is "$RC:$(js '.passed'):$(js '.worst[0].reasons[0]')" "1:1:correctness: the repeats flip across the threshold (--fail-on-flip)" \
	"--fail-on-flip: the record with a flip on a gated metric fails"
printf 'gate:\n  fail_on_flip: true\n  record:\n    correctness: 0.5\n' >"$T/flip.yaml"
run rag rag-gate --json -c "$T/flip.yaml" "$T/flip.jsonl"
is "$RC:$(js '.passed')" "1:1" "config gate.fail_on_flip: the same"
run rag rag-gate --json -r faithfulness=0.5 --fail-on-flip "$T/flip.jsonl"
is "$RC" 1 "--fail-on-flip: a flip on the gated faithfulness fails f1"
run rag rag-gate --json -r correctness=0.1 --fail-on-flip "$T/flip.jsonl" -c /dev/null
is "$(js '[.metrics[] | select(.metric == "faithfulness") | .flips] | @tsv')" "1" "flips on an ungated metric are counted, and fail nothing"

# ---------------------------------------------------------------- failure hints
cat >"$T/low.jsonl" <<'EOF'
{"id":"l1","question":"Where was Einstein born?","scores":{"faithfulness":0.3,"context_recall":0.2,"answer_relevancy":0.9,"context_precision":0.9}}
{"id":"l2","question":"When was he born?","scores":{"faithfulness":0.4,"context_recall":0.3,"answer_relevancy":0.9,"context_precision":0.9}}
EOF
run rag rag-gate --json -t faithfulness=0.7 -t context_recall=0.7 -t answer_relevancy=0.7 -t context_precision=0.7 "$T/low.jsonl"
is "$(js '[.hints[] | .metrics | join("+")] | join(" ")')" "context_recall+faithfulness context_recall faithfulness" \
	"hints: recall and faithfulness both failed: the advice to fix retrieval first, then recall, then faithfulness"
like "$(js '.hints[0].hint')" 'fix retrieval first' "the combined hint says to fix retrieval first"
like "$(js '.hints[1].hint')" 'chunking.*hybrid retrieval.*TopK' "the recall hint: chunking, hybrid retrieval, TopK"
like "$(js '.hints[2].hint')" 'contexts do not support.*temperature' "the faithfulness hint: unsupported statements, prompt, temperature"
run rag rag-gate --json -t answer_relevancy=0.95 -t context_precision=0.95 "$T/low.jsonl"
is "$(js '[.hints[] | .metrics[0]] | join(" ")')" "context_precision answer_relevancy" "retrieval first: precision before relevancy"
like "$(js '.hints[0].hint')" 'reranker.*similarity threshold' "the precision hint: a reranker, the similarity threshold"
like "$(js '.hints[1].hint')" 'query rewriting' "the relevancy hint: query rewriting"
run rag rag-gate --json -t faithfulness=0.1 "$T/low.jsonl"
is "$(js '.hints | length')" 0 "a passing gate has no hints"
run rag rag-gate -t faithfulness=0.7 -t context_recall=0.7 "$T/low.jsonl"
like "$(cat "$OUT")" 'where to look' "text: the hints have their section"
like "$(cat "$OUT")" '- Recall and faithfulness both fail: fix retrieval first' "text: the combined hint first"
run rag rag-gate --markdown -t faithfulness=0.7 "$T/low.jsonl"
like "$(cat "$OUT")" '### Where to look' "Markdown: the hints"
run rag rag-report -t faithfulness=0.7 "$T/low.jsonl"
like "$(cat "$OUT")" '<section id="hints">' "HTML: the hints section"
run rag rag-gate --lang zh --json -t faithfulness=0.7 -t context_recall=0.7 "$T/low.jsonl"
like "$(js '.hints[0].hint')" '先修检索' "--lang zh: the Chinese hints"
sed 's/Where was Einstein born?/爱因斯坦出生在哪里？/; s/When was he born?/他是什么时候出生的？/' "$T/low.jsonl" >"$T/lowzh.jsonl"
run rag rag-gate --json -t context_recall=0.7 "$T/lowzh.jsonl"
like "$(js '.hints[0].hint')" '上下文召回率低.*TopK' "lang auto: Chinese questions, Chinese hints"
printf 'lang: zh\n' >"$T/zh.yaml"
run rag rag-gate -c "$T/zh.yaml" -t context_recall=0.7 "$T/low.jsonl"
like "$(cat "$OUT")" '上下文召回率低' "config lang: zh: Chinese hints in the text summary"
run rag rag-gate --lang en --json -t context_recall=0.7 "$T/lowzh.jsonl"
like "$(js '.hints[0].hint')" '^Low context recall' "--lang en over Chinese questions: English"
mkdir -p "$T/data/hints"
run env RAG_DATADIR="$T/data" "$BIN/rag-gate" --json -t context_recall=0.7 "$T/low.jsonl"
is "$RC:$(js '.hints | length')" "1:0" "no hints file: still a verdict, no hints"
like "$(cat "$ERR")" 'rag-gate: warning: no failure hints' "and a warning says so"

# ---------------------------------------------------------------- groups: --by
cat >"$T/groups.jsonl" <<'EOF'
{"id":"g1","category":"geo","difficulty":"easy","system":{"top_k":3},"scores":{"faithfulness":0.9}}
{"id":"g2","category":"geo","difficulty":"hard","system":{"top_k":5},"scores":{"faithfulness":0.5}}
{"id":"g3","category":"math","difficulty":"hard","system":{"top_k":5},"scores":{"faithfulness":0.3}}
{"id":"g4","category":"math","system":{"top_k":3},"scores":{"faithfulness":1}}
EOF
run rag rag-gate --json -r faithfulness=0.4 --min-pass-rate 0 "$T/groups.jsonl"
is "$(js '.by | join(",")'):$(js '[.groups[0].groups[] | "\(.group)=\(.records)"] | join(" ")')" "category:geo=2 math=2" \
	"the default group is category"
run rag rag-gate --json -r faithfulness=0.4 --min-pass-rate 0 --by difficulty "$T/groups.jsonl"
is "$(js '[.groups[0].groups[] | "\(.group) n=\(.records) pass=\(.pass_rate) mean=\(.metrics[0].mean)"] | join(", ")')" \
	"(none) n=1 pass=1 mean=1, easy n=1 pass=1 mean=0.9, hard n=2 pass=0.5 mean=0.4" \
	"--by difficulty: a record without it is in (none); per group n, pass rate, mean per metric"
is "$(js '[.categories[] | "\(.category)=\(.records)/\(.passed)"] | join(" ")')" "geo=2/2 math=2/1" "--by difficulty: the categories are still there"
run rag rag-gate --json -r faithfulness=0.4 --min-pass-rate 0 --by system.top_k "$T/groups.jsonl"
is "$(js '[.groups[0].groups[] | "\(.group)=\(.records)/\(.passed)"] | join(" ")')" "3=2/2 5=2/1" "--by system.top_k: a nested field, a number as its text"
run rag rag-gate --json -r faithfulness=0.4 --min-pass-rate 0 --by difficulty,system.top_k --by category "$T/groups.jsonl"
is "$(js '[.groups[].by] | join(",")')" "difficulty,system.top_k,category" "--by: comma-separated and repeatable, in order"
is "$(js '[.categories[] | "\(.category)=\(.records)/\(.passed)"] | join(" ")')" "geo=2/2 math=2/1" "categories stay as before (kept once with the category groups)"
run rag rag-gate --json -r faithfulness=0.4 --min-pass-rate 0 --by nosuch "$T/groups.jsonl"
is "$(js '.groups | length')" 0 "a field no record has: no group table"
printf 'gate:\n  by: [difficulty]\n' >"$T/by.yaml"
run rag rag-gate --json -c "$T/by.yaml" -r faithfulness=0.4 --min-pass-rate 0 "$T/groups.jsonl"
is "$(js '.groups[0].by')" difficulty "config gate.by"
run rag rag-gate -r faithfulness=0.4 --min-pass-rate 0 --by system.top_k "$T/groups.jsonl"
like "$(cat "$OUT")" 'by system.top_k' "text: the group table is named by its field"
like "$(cat "$OUT")" '  5: 2 records: 1 passed \(50\.0% of 2\), 1 failed' "text: a group's n and pass rate"
run rag rag-gate --markdown -r faithfulness=0.4 --min-pass-rate 0 --by difficulty "$T/groups.jsonl"
like "$(cat "$OUT")" '#### \(none\) \(1 record: 1 passed \(100\.0% of 1\), 0 failed, 0 with errors or nulls\)' "Markdown: the groups, (none) among them"
run rag rag-report -r faithfulness=0.4 --by difficulty "$T/groups.jsonl"
like "$(cat "$OUT")" '<h2><span data-i18n="by">By</span> difficulty</h2>' "rag-report --by: the HTML page's groups"
like "$(cat "$OUT")" '<h3>hard</h3>' "...with each group"
run rag rag-report --markdown -r faithfulness=0.4 --by system.top_k "$T/groups.jsonl"
like "$(cat "$OUT")" 'By system\.top\\_k' "rag-report --markdown --by"
run rag rag-gate --by '' -r faithfulness=0.4 "$T/groups.jsonl"
is "$RC" 2 "--by with an empty name: a usage error"

# a field first seen part way: "(none)" still holds every record without it, before and after
printf '%s\n' '{"id":"1","scores":{"f":0.2}}' '{"id":"2","scores":{"f":null},"not_applicable":{"f":"no reference"}}' \
	'{"id":"3","topic":"a","scores":{"f":1}}' '{"id":"4","scores":{"f":0.6}}' >"$T/late.jsonl"
run rag rag-gate --summary-only --by topic --json "$T/late.jsonl"
is "$(jq -c '[.groups[0].groups[] | [.group, .records, .metrics[0].computed, .metrics[0].not_applicable, .metrics[0].mean]]' "$OUT")" \
	'[["(none)",3,2,1,0.4],["a",1,1,0,1]]' "--by a field first seen on record 3: (none) has records 1, 2 and 4 (0.2, n/a, 0.6)"

# ---------------------------------------------------------------- gate.by_category, by hand
# gate.record faithfulness 0.8 for every record; billing's own 0.9. b1 0.95 passes both;
# b2 0.85 passes 0.8 but not billing's 0.9: the category's threshold flips it to a failure;
# p1 0.85 passes (payment has none of its own: 0.8); p2 0.7 fails 0.8. So 2 of 4 pass, where
# without by_category 3 of 4 would.
printf '%s\n' \
	'{"id":"b1","category":"billing","question":"Refund time?","scores":{"faithfulness":0.95}}' \
	'{"id":"b2","category":"billing","question":"Refund fee?","scores":{"faithfulness":0.85}}' \
	'{"id":"p1","category":"payment","question":"Cards?","scores":{"faithfulness":0.85}}' \
	'{"id":"p2","category":"payment","question":"PayPal?","scores":{"faithfulness":0.7}}' >"$T/bc.jsonl"
printf 'gate:\n  record: {faithfulness: 0.8}\n' >"$T/flat.yaml"
printf 'gate:\n  record: {faithfulness: 0.8}\n  by_category:\n    billing: {faithfulness: 0.9}\n' >"$T/bc.yaml"
run rag rag-gate -c "$T/flat.yaml" --json "$T/bc.jsonl"
is "$(js '[.passed, .records] | @tsv')" "3	4" "without by_category: 3 of 4 pass (b2's 0.85 is above 0.8)"
run rag rag-gate -c "$T/bc.yaml" --json --junit "$T/bc.xml" "$T/bc.jsonl"
is "$RC" 1 "with billing: {faithfulness: 0.9}: the gate fails"
is "$(js '[.passed, .records] | @tsv')" "2	4" "...2 of 4 pass: b2 flipped to a failure"
is "$(js '[.categories[] | [.category, .passed, .records]] | tostring')" '[["billing",1,2],["payment",1,2]]' \
	"...billing 1 of 2 (b1), payment 1 of 2 (p1)"
is "$(js '.thresholds.by_category | tostring')" '{"billing":{"faithfulness":0.9}}' "JSON: thresholds.by_category"
is "$(js '[.worst[] | select(.id == "b2") | .reasons[0]] | .[0]')" \
	'faithfulness 0.850 is below the per-record threshold 0.900 for "billing"' "JSON: b2's reason names the category's threshold"
is "$(js '[.metrics[] | select(.metric == "faithfulness") | .threshold_record] | .[0]')" 0.8 \
	"JSON: the metric's own per-record threshold is still the run's 0.8"
like "$(cat "$T/bc.xml")" 'failure message="faithfulness 0\.850 is below the per-record threshold 0\.900 for &quot;billing&quot;"' \
	"JUnit: b2's failure with the category's threshold"
like "$(tr -d '\n' <"$T/bc.xml")" '<testsuite name="billing"[^>]*> *<properties> *<property name="threshold faithfulness" value="0\.900"/>' \
	"JUnit: the billing suite's threshold as a property"
check "JUnit: valid by the Jenkins JUnit schema" xmllint --noout --schema "$FIXTURES/junit.xsd" "$T/bc.xml"
run rag rag-gate -c "$T/bc.yaml" "$T/bc.jsonl"
like "$(cat "$OUT")" 'per-record thresholds for "billing": faithfulness>=0\.900 \(gate\.by_category\)' "text: the category's threshold shown"
run rag rag-gate -c "$T/bc.yaml" --markdown "$T/bc.jsonl"
like "$(cat "$OUT")" 'Per-record thresholds for \*\*billing\*\*: faithfulness ≥ 0\.900' "Markdown: shown"
run rag rag-report -c "$T/bc.yaml" "$T/bc.jsonl"
like "$(cat "$OUT")" 'Per-record thresholds for <b>billing</b>: faithfulness &#8805; 0\.900' "HTML report: shown"
like "$(cat "$OUT")" '"st":"fail","why":\["faithfulness 0\.850 is below the per-record threshold 0\.900 for \\"billing\\"' \
	"HTML report: b2 failed there too, on its category's threshold"
# any --by field: the records' topic, not their category
jq -c '{id, topic: .category, question, scores}' "$T/bc.jsonl" >"$T/topic.jsonl"
run rag rag-gate -c "$T/bc.yaml" --by topic --json "$T/topic.jsonl"
is "$(js '[.passed, .records] | @tsv')" "2	4" "--by topic: the records whose topic is billing are held to its 0.9"
run rag rag-gate -c "$T/bc.yaml" --json "$T/topic.jsonl"
is "$(js '[.passed, .records] | @tsv')" "3	4" "...and by category (the default) they have none: 3 of 4"
# a lower threshold for a hard category: in place of gate.record's, not only stricter
printf 'gate:\n  record: {faithfulness: 0.8}\n  by_category:\n    payment: {faithfulness: 0.6}\n' >"$T/low.yaml"
run rag rag-gate -c "$T/low.yaml" --json "$T/bc.jsonl"
is "$(js '[.passed, .records] | @tsv')" "4	4" "payment: {faithfulness: 0.6}: p2's 0.7 passes its category's threshold"
# a metric gated only by a category: the others' records are not held to it
printf 'gate:\n  mean: {faithfulness: 0}\n  by_category:\n    billing: {faithfulness: 0.9}\n' >"$T/only.yaml"
run rag rag-gate -c "$T/only.yaml" --json "$T/bc.jsonl"
is "$(js '[.passed, .records] | @tsv')" "3	4" "a threshold of billing's alone: b2 fails, the payment records pass"
# the configuration's mistakes, at their line
printf 'gate:\n  by_category:\n    billing: {faithfulness: 1.5}\n' >"$T/bad1.yaml"
run rag rag-gate -c "$T/bad1.yaml" --json "$T/bc.jsonl"
is "$RC" 2 "by_category: a threshold above 1: exit 2"
like "$(cat "$ERR")" 'bad1\.yaml:3:[0-9]+: "faithfulness" of category "billing" must be a number between 0 and 1' "...said at its line"
printf 'gate:\n  by_category:\n    billing: 0.9\n' >"$T/bad2.yaml"
run rag rag-gate -c "$T/bad2.yaml" --json "$T/bc.jsonl"
is "$RC" 2 "by_category: a category that is not a mapping: exit 2"
like "$(cat "$ERR")" 'the thresholds of category "billing" must be a mapping \(metric: minimum, or mean: and record: mappings\)' "...said"
printf 'gate:\n  by_category:\n    billing: {faithfulness: 0.9, faithfulness: 0.5}\n' >"$T/bad3.yaml"
run rag rag-gate -c "$T/bad3.yaml" --json "$T/bc.jsonl"
is "$RC" 2 "by_category: a metric twice in one category: exit 2"
like "$(cat "$ERR")" 'duplicate key "faithfulness" in category "billing"' "...said"

# ---------------------------------------------------------------- gate.by_category's means, by hand
# A topic gated on its mean (seed 000: a gate per topic on the means): billing 0.95 and 0.85,
# mean 0.900, holds 0.9; payment 0.85 and 0.7, mean 0.775, misses 0.8, though each of its
# records passes its per-record 0.6 and the run's mean 0.8375 holds 0.7. So 4 of 4 records pass
# and the gate fails on payment's mean alone.
printf 'gate:\n  mean: {faithfulness: 0.7}\n  by_category:\n    billing:\n      mean: {faithfulness: 0.9}\n    payment:\n      mean: {faithfulness: 0.8}\n      record: {faithfulness: 0.6}\n' >"$T/cm.yaml"
run rag rag-gate -c "$T/cm.yaml" --json --junit "$T/cm.xml" "$T/bc.jsonl"
is "$RC" 1 "by_category means: payment's 0.775 under its 0.8 fails the gate"
is "$(js '[.passed, .records, .pass] | @tsv')" "4	4	false" "...though every record passes"
is "$(js '[.checks[] | select(.check | startswith("mean faithfulness for")) | [.check, .pass, .message]] | tostring')" \
	'[["mean faithfulness for \"billing\"",true,"faithfulness mean 0.900 >= 0.900 for \"billing\" (gate.by_category; 2 records)"],["mean faithfulness for \"payment\"",false,"faithfulness mean 0.775 < 0.800 for \"payment\" (gate.by_category; 2 records)"]]' \
	"JSON: a check each, in the configuration's order, with the category's mean"
is "$(js '[.categories[] | select(.category == "payment") | .metrics[0].mean * 1000 | round] | .[0]')" 775 \
	"...the mean the categories table shows"
is "$(js '.thresholds.by_category_mean | tostring')" '{"billing":{"faithfulness":0.9},"payment":{"faithfulness":0.8}}' \
	"JSON: thresholds.by_category_mean"
is "$(js '.thresholds.by_category | tostring')" '{"payment":{"faithfulness":0.6}}' "...and record: as thresholds.by_category"
is "$(js '[.metrics[] | select(.metric == "faithfulness") | .gate_failed] | .[0]')" true \
	"JSON: the metric's gate failed (its hint is given)"
like "$(tr -d '\n' <"$T/cm.xml")" '<testcase classname="gate" name="mean faithfulness for &quot;payment&quot;" time="0\.000"> *<failure message="faithfulness mean 0\.775 &lt; 0\.800' \
	"JUnit: the failed mean a test case of the gate"
like "$(tr -d '\n' <"$T/cm.xml")" '<testsuite name="payment"[^>]*> *<properties> *<property name="threshold faithfulness" value="0\.600"/> *<property name="threshold mean faithfulness" value="0\.800"/>' \
	"JUnit: the payment suite's thresholds as properties"
check "JUnit: valid by the Jenkins JUnit schema" xmllint --noout --schema "$FIXTURES/junit.xsd" "$T/cm.xml"
run rag rag-gate -c "$T/cm.yaml" "$T/bc.jsonl"
like "$(cat "$OUT")" 'mean thresholds for "payment": faithfulness>=0\.800 \(gate\.by_category\)' "text: the category's mean threshold shown"
like "$(cat "$OUT")" 'FAIL faithfulness mean 0\.775 < 0\.800 for "payment" \(gate\.by_category; 2 records\)' "text: its check"
run rag rag-gate -c "$T/cm.yaml" --markdown "$T/bc.jsonl"
like "$(cat "$OUT")" 'Mean thresholds for \*\*payment\*\*: faithfulness ≥ 0\.800' "Markdown: shown"
like "$(cat "$OUT")" '\| faithfulness mean 0\.775 &lt; 0\.800 for "payment" \(gate\.by\\_category; 2 records\)' "Markdown: its check"
run rag rag-report -c "$T/cm.yaml" "$T/bc.jsonl"
like "$(cat "$OUT")" 'Mean thresholds for <b>payment</b>: faithfulness &#8805; 0\.800' "HTML report: shown"
run rag rag-gate -c "$T/cm.yaml" --by topic --json "$T/topic.jsonl"
is "$(js '[.checks[] | select(.check == "mean faithfulness for \"payment\"") | .pass] | tostring')" '[false]' \
	"--by topic: the mean of the records whose topic is payment"
printf 'gate:\n  by_category:\n    hr: {mean: {faithfulness: 0.9}}\n    billing: {faithfulness: 0.5, mean: {faithfulness: 0.9}}\n' >"$T/cm2.yaml"
run rag rag-gate -c "$T/cm2.yaml" --json "$T/bc.jsonl"
is "$RC:$(js '[.checks[] | select(.check | startswith("mean ")) | [.pass, (.skipped // false)]] | tostring')" '0:[[true,true],[true,false]]' \
	"a category the run does not have: skipped; a mean beside per-record thresholds of the old form"
is "$(js '[.checks[] | select(.check == "mean faithfulness for \"hr\"") | .message] | .[0]')" \
	'faithfulness: computed on 0 of 0 records (no record of this category in the run): gate skipped' "...said"
printf 'gate:\n  by_category:\n    billing: {mean: {faithfulness: 2}}\n' >"$T/bad4.yaml"
run rag rag-gate -c "$T/bad4.yaml" --json "$T/bc.jsonl"
like "$RC:$(cat "$ERR")" '^2:.*bad4\.yaml:3:[0-9]+: "faithfulness" of category "billing".s mean must be a number between 0 and 1' \
	"a mean above 1: exit 2, said at its line"
printf 'gate:\n  by_category:\n    billing: {record: {faithfulness: 0.5}, faithfulness: 0.6}\n' >"$T/bad5.yaml"
run rag rag-gate -c "$T/bad5.yaml" --json "$T/bc.jsonl"
like "$RC:$(cat "$ERR")" '^2:.*duplicate key "faithfulness" in category "billing"' "a per-record threshold both ways: a duplicate"

# rag-eval: a configuration whose only thresholds are a category's means gates the run (it was
# a summary alone), and every file of the run shows the check
printf '%s\n' '{"id":"a","category":"hr","question":"How long?","answer":"seven days","reference":"seven days"}' \
	'{"id":"b","category":"hr","question":"How long?","answer":"ten weeks","reference":"seven days"}' \
	'{"id":"c","category":"it","question":"Is it?","answer":"yes it is","reference":"yes it is"}' >"$T/cm-set.jsonl"
printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  by_category:\n    hr: {mean: {token_f1: 0.8}}\n' >"$T/cm-eval.yaml"
run rag rag-eval -q -c "$T/cm-eval.yaml" -m token_f1 -o "$T/cm-run" "$T/cm-set.jsonl"
is "$RC" 1 "rag-eval: hr's token_f1 mean 0.5 under its 0.8: exit 1"
like "$(cat "$T/cm-run/gate.txt")" 'FAIL token_f1 mean 0\.500 < 0\.800 for "hr" \(gate\.by_category; 2 records\)' "...gate.txt says why"
is "$(jq -c '[.pass, (.checks[] | select(.check == "mean token_f1 for \"hr\"") | .pass)]' "$T/cm-run/gate.json")" '[false,false]' \
	"...gate.json"
like "$(cat "$T/cm-run/junit.xml")" 'name="mean token_f1 for &quot;hr&quot;"' "...junit.xml"
like "$(cat "$T/cm-run/summary.md")" 'token\\_f1 mean 0\.500 &lt; 0\.800 for "hr"' "...summary.md"
like "$(cat "$T/cm-run/report.html")" 'Mean thresholds for <b>hr</b>' "...report.html"
is "$(jq -c '.config.gate.by_category' "$T/cm-run/run.json")" '{"hr":{"mean":{"token_f1":0.8}}}' \
	"...run.json's configuration, in the shape it was written"

done_testing
