#!/bin/sh
# 66-report-browser.t - rag-report's page in a real browser (Selenium, headless Chromium, no
# network): every tab, the filters, a sort, a record opened (contexts with their chunk verdicts,
# claims with verdicts and reasons, what it missed), two runs compared side by side, the history
# by date with its points opening their runs; hostile text stays text; with the script off the
# Summary reads; 20,000 records page and filter. Screenshots of each tab are kept in tests/tmp/report-shots/ (artefacts, not committed).
. "$(dirname "$0")/lib.sh"
need python3
need_browser

cat >"$T/base.jsonl" <<'EOF2'
{"id":"en-1","category":"history","answer":"Einstein was born in 1879 in Germany.","scores":{"faithfulness":0.9,"context_recall":0.9}}
{"id":"en-2","category":"history","answer":"He was born in Ulm.","scores":{"faithfulness":0.9,"context_recall":0.7}}
{"id":"zh-1","category":"地理","answer":"长城约两万公里。","scores":{"faithfulness":0.2,"context_recall":0.8}}
EOF2
cat >"$T/run.jsonl" <<'EOF2'
{"id":"en-1","category":"history","question":"When was Einstein born?","answer":"Einstein was born in 1879.","reference":"Einstein was born on 14 March 1879.","contexts":["Albert Einstein was born on 14 March 1879 in Ulm."],"scores":{"faithfulness":1,"context_recall":1},"verdicts":{"faithfulness":[{"claim":"Einstein was born in 1879.","verdict":true,"reason":"stated in context 1"}]}}
{"id":"en-2","category":"history","source":"docs/einstein.md:12","question":"Where was Einstein born?","answer":"In Ulm, on 20th March 1879.","reference":"Einstein was born in Ulm.","contexts":["Albert Einstein was born in Ulm.","Ulm is a city in Germany."],"scores":{"faithfulness":0.5,"context_recall":1,"context_precision":0.5},"relevance_from":{"context_precision":"verdicts"},"verdicts":{"faithfulness":[{"claim":"Einstein was born in Ulm.","verdict":true,"reason":"context 1 says so"},{"claim":"Einstein was born on 20th March 1879.","verdict":false,"reason":"no context gives this date","score":0.4}],"context_precision":[{"chunk":"Albert Einstein was born in Ulm.","verdict":true,"reason":"names the place","score":0.8},{"chunk":"Ulm is a city in Germany.","verdict":false,"reason":"says nothing of Einstein"}]}}
{"id":"zh-1","category":"地理","question":"长城有多长？","answer":"长城全长约5000公里。","reference":"长城全长约两万一千公里。","contexts":["长城全长21196公里。"],"scores":{"faithfulness":0.6,"context_recall":0.8},"verdicts":{"faithfulness":[{"claim":"长城全长约5000公里。","verdict":false,"reason":"上下文说是21196公里"}]}}
{"id":"<script>alert(1)</script>","category":"x\"><img src=x onerror=alert(2)>","question":"<iframe src=\"http://evil.example/\"></iframe>","answer":"</td></tr></table><h1>pwned</h1> & 'quotes' \u2028 </script><!--","scores":{"faithfulness":0,"context_recall":null},"errors":[{"tool":"rag-verify","message":"<b>bold</b> error"}]}
EOF2
# the store's history (rag-store history): one summary a line, oldest first; the current run's
# id is not in it, so the page adds the run itself at the end
cat >"$T/history.jsonl" <<'EOF2'
{"run":"r-100","started":"2026-11-20T09:00:00Z","label":"v1.0","commit":"a1b2c3d4e5f6","testset":"qa","n":3,"passed":true,"means":{"faithfulness":0.81,"context_recall":0.9},"report":"file:///srv/runs/r-100/report.html"}
{"run":"r-101","started":"2026-11-25T09:00:00Z","label":null,"commit":"0badc0ffee00","testset":"qa","n":3,"passed":false,"means":{"faithfulness":0.66},"report":" java\tscript:alert(3)"}
EOF2

run rag rag-report --title 'Nightly <eval>' -t faithfulness=0.7 -r faithfulness=0.6 --max-error-rate 1 \
	-b "$T/base.jsonl" --history "$T/history.jsonl" -o "$T/page.html" "$T/run.jsonl"
is "$RC" 0 "the page is written"
shots=$TOP/tests/tmp/report-shots
rm -rf "$shots"; mkdir -p "$shots"
run timeout 300 "$PY" "$TOP/tests/browser/report.py" walk "$T/page.html" "$shots"
is "$RC" 0 "the browser walk ran"
[ "$RC" = 0 ] || diag "$(tail -n 20 "$ERR")"
cp "$OUT" "$T/walk.plain"
got() { sed -n "s/^$1: //p" "$OUT" | sed -n "${2:-1}p"; }

is "$(got title)" 'Nightly <eval>' "the title, as text"
is "$(got tabs)" 'Summary Records Compare History' "four tabs"
is "$(got verdict)" FAIL "the gate's verdict"
is "$(got 'summary shown'):$(got 'records shown')" 'True:False' "the Summary tab first, the others hidden"
is "$(got cards)" 3 "a card per metric"
is "$(got 'record threshold lines')" 1 "the per-record threshold marked on its histogram"
is "$(got 'failing folded')" True "the failing records folded under their heading until opened"
is "$(got 'failing listed')" '<script>alert(1)</script> | en-2' "the failing records and only those (zh-1 passed at 0.6)"
is "$(got 'records shown' 2):$(got 'summary shown' 2)" 'True:False' "Records: shown, Summary hidden"
is "$(got count)" '4 of 4 records' "Records: all four"
is "$(got rows):$(got 'failing rows')" '4:2' "Records: a row each, two marked failing"
is "$(got 'search 长城')" '1 of 4 records zh-1' "search in Chinese"
is "$(got failed)" '2 of 4 records en-2,<script>alert(1)</script>' "filter: failed (in input order)"
is "$(got passed)" '2 of 4 records en-1,zh-1' "filter: passed"
is "$(got 'category 地理')" '1 of 4 records zh-1' "filter: a category"
is "$(got 'with errors')" '1 of 4 records' "filter: with errors"
is "$(got 'faithfulness below 0.6')" '2 of 4 records' "filter: a metric below a value"
is "$(got 'sorted up')" '<script>alert(1)</script>,en-2,zh-1,en-1' "sort by faithfulness, ascending"
is "$(got 'sorted down')" 'en-1,zh-1,en-2,<script>alert(1)</script>' "and descending"
is "$(got 'detail why')" 'faithfulness 0.500 is below the per-record threshold 0.600' "an opened record says which threshold it missed"
is "$(got 'detail claims')" 'Einstein was born in Ulm. ✔ yes – context 1 says so | Einstein was born on 20th March 1879. ✘ no 0.400 no context gives this date' \
	"each claim with its verdict, its graded score where it has one (the offline judge's), and reason"
is "$(got 'detail contexts')" 2 "the contexts"
is "$(got 'detail chunk verdicts')" 'context_precision: ✔ yes 0.800 — names the place | context_precision: ✘ no — says nothing of Einstein' \
	"each context with its chunk verdict"
like "$(got 'detail where')" 'run\.jsonl:2\)$' "the record's file:line"
is "$(got 'detail source')" 'source: docs/einstein.md:12' "the record's source"
is "$(got 'detail relevance from')" "from the judge's chunk verdicts" "a record's scores say where context precision's relevance came from (relevance_from)"
is "$(got 'detail reference')" True "the reference"
is "$(got 'detail closed')" 0 "a second click closes it"
is "$(got 'hostile shown'):$(got 'hostile error shown')" 'True:True' "hostile text shown as text"
is "$(got 'hostile elements')" 'iframe=0 img=0 h1=1 b=0' "no element made of hostile text"
is "$(got h1)" 'Nightly <eval>' "the one h1 is the title's"
is "$(got 'no alert')" True "no script of the data ran"
is "$(got 'compare shown')" True "Compare tab"
like "$(got 'compare metrics')" '^context_recall 3 0\.800 0\.933 \+0\.133 \[.*\] none \| faithfulness 3 0\.667 0\.700 \+0\.033 \[.*\] ' \
	"Compare: per metric the means, the delta and the bootstrap interval"
is "$(got 'compare count')" '3 of 3 matched records' "Compare: the records matched by id"
is "$(got 'compare order')" 'en-2:regressed,zh-1:improved,en-1:unchanged' "regressed first, then improved (by more than 0.1, the gate's --regression)"
is "$(got 'side by side')" 'He was born in Ulm. || In Ulm, on 20th March 1879.' "the two answers side by side"
like "$(got changes)" 'faithfulness: 0\.900 → 0\.500 \(-0\.400, regressed\)' "the changes, as the gate classed them"
is "$(got 'compare improved')" '1 of 3 matched records zh-1' "Compare: filter improved"
is "$(got 'history shown')" True "History tab"
is "$(got charts)" 'context_precision context_recall faithfulness' "a chart per metric"
is "$(got points)" '1 2 3' "a point per run that has the metric (the run itself last)"
is "$(got labels)" 'v1.0,0badc0ff,run.jsonl' "x labels: the label, else the commit, else the file"
is "$(got dates)" '2026-11-20,2026-11-25' "x labels: the dates (the run file has none)"
is "$(got 'threshold line')" 1 "the gate's threshold on the chart"
is "$(got 'history rows')" 3 "the runs' table"
is "$(got 'opened run' 1)" 'Run r-100' "a point opens its run"
is "$(got 'opened link' 1)" 'file:///srv/runs/r-100/report.html' "with a link to its report"
is "$(got 'opened run' 2):$(got 'opened link' 2)" 'Run r-101:none' "a javascript: link (spelt \" java<TAB>script:\") is not made a link"
like "$(got 'opened run' 3)" '\(this report\)$' "the last point is this run"
is "$(got 'no alert' 2)" True "still no script of the data ran"
is "$(got 'console errors')" 0 "no error in the console"
for s in summary records compare history; do
	check "a screenshot of $s" test -s "$shots/$s.png"
done

# with JavaScript off the Summary still reads
run timeout 120 "$PY" "$TOP/tests/browser/report.py" noscript "$T/page.html" "$shots"
is "$RC" 0 "script off: the browser ran"
is "$(got ran)" no "script off: nothing ran"
is "$(got 'summary shown'):$(got 'tabs shown')" 'True:False' "script off: the Summary shows, the tabs (which need the script) do not"
is "$(got verdict):$(got cards):$(got 'failing listed')" 'FAIL:3:2' "script off: the verdict, the cards, the failing records"
like "$(got checks)" 'FAIL: faithfulness mean 0\.525 < 0\.700' "script off: the checks"
like "$(got notice)" 'need JavaScript' "script off: the Records tab says it needs the script"

# in Chinese (issue 36 item 11), at 390 and 1440 px: the head's verdict sentence and exit status,
# and no English on Records' filters and headers, Compare, History but the run's data and metrics
run timeout 300 "$PY" "$TOP/tests/browser/report.py" chinese "$T/page.html"
is "$RC" 0 "the page in Chinese: the browser ran"
for W in 390 1440; do
	is "$(got "zh $W verdict")" "未通过 $T/run.jsonl：4 条记录：2 条通过（占 3 条无错误或空值记录的 66.7%），1 条未通过，1 条出错或为空。" \
		"zh $W: the verdict sentence in Chinese, the gate's numbers"
	is "$(got "zh $W exit")" '退出状态 1：门禁未通过。' "zh $W: the exit status in Chinese"
	for t in records compare history; do
		is "$(got "zh $W $t english")" none "zh $W: no English on $t but the data and metric names"
	done
	# the Summary's hints, metric cards and failing records' reasons, and the reason under each
	# record's result: each message's code and arguments said in Chinese
	is "$(got "zh $W summary english")" none "zh $W: no English in the Summary's checks, hints, cards, failing records, distribution and groups"
	like "$(got "zh $W summary checks")" '^未通过：faithfulness 均值 0\.525 < 0\.700 \| 未通过：3 条记录中 2 条通过' \
		"zh $W: the checks from their codes, the failed first"
	is "$(got "zh $W records why english")" none "zh $W: nor in the records' reasons"
	like "$(got "zh $W summary hints")" '^评审模型调用失败：1 条记录没有分数（rag-verify: <b>bold</b> error）.* \| 忠实度低：' \
		"zh $W: the hints as share/hints/zh.txt says them, the outage's count and error filled in"
done

# the Summary's cost table and the gate's self-judging warning in Chinese: two records judged by
# judge-x, which also wrote the first one's answer, 300 of its 1,000 prompt tokens cached; the
# other model has no price. The notes' numbers are the summary's (rag-gate --json).
cat >"$T/cost.jsonl" <<'EOF2'
{"id":"c1","answer_model":"judge-x","question":"q1","answer":"a1","scores":{"faithfulness":1},"usage":{"rag-verify":{"faithfulness":{"judge":"openai:judge-x","calls":1,"cache_hits":0,"prompt_tokens":1000,"cached_tokens":300,"completion_tokens":100}}}}
{"id":"c2","question":"q2","answer":"a2","scores":{"faithfulness":0.5},"usage":{"rag-judge":{"correctness":{"judge":"openai:other","calls":1,"cache_hits":0,"prompt_tokens":10,"completion_tokens":10}}}}
EOF2
printf 'prices:\n  currency: EUR\n  judge-x:\n    input: 2.5\n    cached_input: 1.25\n    output: 10\n' >"$T/prices.yaml"
run rag rag-report -c "$T/prices.yaml" -o "$T/cost.html" "$T/cost.jsonl"
run rag rag-gate -c "$T/prices.yaml" --summary-only --json <"$T/cost.jsonl"
is "$(jq -c '[.cost.prompt_tokens, .cost.cached_tokens, .cost.no_price, .self_judging.records, .records]' "$OUT")" '[1010,300,["other"],1,2]' \
	"the cost fixture's summary: 1010 prompt tokens, 300 cached, other unpriced, 1 of 2 records self-judged"
run timeout 300 "$PY" "$TOP/tests/browser/report.py" chinese "$T/cost.html"
is "$RC" 0 "the cost page in Chinese: the browser ran"
for W in 390 1440; do
	is "$(got "zh $W cost english")" none "zh $W: no English in the cost table, its notes and the warning"
	is "$(got "zh $W cost text")" '警告：自我评审：评审模型“judge-x”也生成了 1 条记录（共 2 条）的回答，其分数可能偏高 | 提示词令牌 1010 个，其中 300 个由服务商缓存（按 cached_input 计价）。 | 没有模型 other 的价格' \
		"zh $W: the warning, the cached note and the unpriced model said from the summary's numbers"
done

# issue 24's 300-record run (tests/browser/run300.py: 10 records with no answer, 59 with
# faithfulness below 0.7, context_recall 1.000 everywhere at a threshold of 1.0) at 1440x900 and
# 390x844, in English and in Chinese: the first screen says what failed and why, nothing is
# wider than a phone, the causes are counted by hand
python3 "$TOP/tests/browser/run300.py" >"$T/r300.jsonl"
cat >"$T/h300.jsonl" <<'EOF2'
{"run":"r-1","started":"2026-11-20T09:00:00Z","label":"v1.0","n":300,"passed":false,"means":{"faithfulness":0.78,"answer_relevancy":0.95,"context_recall":1}}
{"run":"r-2","started":"2026-11-21T09:00:00Z","label":"v1.1","n":300,"passed":false,"means":{"faithfulness":0.73,"answer_relevancy":0.94,"context_recall":1}}
EOF2
run rag rag-report -t faithfulness=0.8 -r faithfulness=0.7 -r context_recall=1 -t answer_relevancy=0.95 \
	--max-error-rate 0.01 --history "$T/h300.jsonl" -o "$T/r300.html" "$T/r300.jsonl"
is "$RC" 0 "300 records: the page is written"
for L in en zh; do
	run timeout 300 "$PY" "$TOP/tests/browser/report.py" screens "$T/r300.html" "$shots" $L
	is "$RC" 0 "300 records ($L): the browser ran"
	[ "$RC" = 0 ] || diag "$(tail -n 20 "$ERR")"
	for W in 1440 390; do
		k="$W $L"
		is "$(got "$k first failed check is the first check")" True "$k: the failed checks come first"
		is "$(got "$k first failed check in first screen")" True "$k: a failed check on the first screen"
		is "$(got "$k first cause in first screen")" True "$k: the first failing cause on the first screen"
		is "$(got "$k causes")" 'the service failed: 10 records unscored: 10 | faithfulness below 0.700: 59' \
			"$k: the failing records by cause, counted (the service's outage first: 10 without an answer; 59 below the threshold; once each)"
		is "$(got "$k page wider than the screen"):$(got "$k records page wider than the screen"):$(got "$k history page wider than the screen")" \
			False:False:False "$k: no horizontal scroll on Summary, Records, History ($(got "$k page width"))"
		is "$(got "$k history tab in view")" True "$k: the History tab is in view"
		is "$(got "$k perfect bar fills")" '#1a7f37' "$k: the perfect bar (all 1.000 at 1.0) is green, not red"
		is "$(got "$k failed cards")" 2 "$k: each metric a failed check names is marked"
		# the failing records folded under their heading (issue 36 item 12: 141,644 px on a phone)
		is "$(got "$k failing folded")" True "$k: the failing records folded by default"
		h=$(got "$k summary height")
		note "$k: the Summary of 300 records is $h px high"
		check "$k: the Summary under 8,000 px high ($h)" test "${h:-99999}" -lt 8000
		is "$(got "$k history y ticks")" 0.72,0.74,0.76,0.78,0.80,0.82 "$k: the history's y axis spans the data (0.73-0.80), not 0-1"
		is "$(got "$k history date labels overlap")" False "$k: the history's date labels do not overlap"
		check "$k: a screenshot of the first screen" test -s "$shots/first-$W-$L.png"
	done
	w=$(got "1440 $L records table width")
	check "1440 $L: the Records table fits ($w px)" test "$w" -le 1440
	w=$(got "390 $L why width")
	check "390 $L: the why column is readable ($w px)" test "$w" -ge 200
done
is "$(got '1440 zh tabs'):$(got '390 zh tabs')" '概要 记录 对比 历史:概要 记录 对比 历史' "Chinese (?lang=zh): the tabs README names"
is "$(got 'switched tabs')" 'Summary Records Compare History' "the switch turns the page to English"
is "$(got 'kept tabs')" 'Summary Records Compare History' "and the choice is kept (localStorage) when the page opens again"
is "$(got 'console errors')" 0 "300 records: no error in the console"

# a single run: a note, not a chart per metric with one dot
run rag rag-report -r faithfulness=0.7 -o "$T/one.html" "$T/r300.jsonl"
run timeout 120 "$PY" "$TOP/tests/browser/report.py" onerun "$T/one.html"
is "$(got charts):$(got 'history rows')" 0:1 "one run: no chart of one dot, its means in the table"
like "$(got note)" '^One run: a trend needs two or more' "one run: a note says why"

# a big run: 20,000 records page and filter (2,000 under valgrind, whose point is the leaks)
N=20000
[ "${RAG_VALGRIND:-0}" = 1 ] && N=2000
python3 -c '
import json, sys
for i in range(int(sys.argv[1])):
    f = (i * 37 % 101) / 100
    print(json.dumps({"id": "q%05d" % i, "category": "c%d" % (i % 7), "question": "question %d" % i,
                      "answer": "answer %d" % i, "contexts": ["context %d" % i],
                      "scores": {"faithfulness": f, "context_recall": 1 - f}}))' "$N" >"$T/big.jsonl"
run rag rag-report -r faithfulness=0.5 -o "$T/big.html" "$T/big.jsonl"
is "$RC" 0 "$N records: the page is written"
run timeout 300 "$PY" "$TOP/tests/browser/report.py" big "$T/big.html" "$N" "$shots"
is "$RC" 0 "$N records: the browser ran"
[ "$RC" = 0 ] || diag "$(tail -n 20 "$ERR")"
is "$(got count)" "$N of $N records" "$N records: all counted"
is "$(got rows)" 100 "drawn a page (100 rows) at a time"
is "$(got pager)" "rows 1–100 of $N, page 1 of $((N / 100))" "the pager"
is "$(got 'page 2 first')" 101 "the next page"
want=$(python3 -c 'import sys; print(sum(1 for i in range(int(sys.argv[1])) if (i * 37 % 101) / 100 < 0.5))' "$N")
is "$(got failed)" "$want of $N records" "filtered: the failing ones"
is "$(got lowest)" 0.000 "sorted: the lowest first"

# --compress (rag-eval's report.html, records.jsonl beside it): the records gzip'ed and base64 in
# the page, unpacked by the browser (DecompressionStream): the same walk shows the same
run rag rag-report --compress --title 'Nightly <eval>' -t faithfulness=0.7 -r faithfulness=0.6 --max-error-rate 1 \
	-b "$T/base.jsonl" --history "$T/history.jsonl" -o "$T/pagez.html" "$T/run.jsonl"
is "$RC" 0 "--compress: the page is written"
check "--compress: no record's text in the page" sh -c "! grep -q 'Einstein was born in Ulm' '$T/pagez.html'"
run timeout 300 "$PY" "$TOP/tests/browser/report.py" walk "$T/pagez.html" "$T"
is "$RC" 0 "--compress: the browser walk ran"
is "$(grep -v '^ready' "$OUT")" "$(grep -v '^ready' "$T/walk.plain")" "--compress: the walk shows what the plain page shows"
run rag rag-report --compress -r faithfulness=0.5 -o "$T/bigz.html" "$T/big.jsonl"
check "--compress: $N records in a page of less than a third the size" \
	test $(($(wc -c <"$T/bigz.html") * 3)) -lt "$(wc -c <"$T/big.html")"
run timeout 300 "$PY" "$TOP/tests/browser/report.py" big "$T/bigz.html" "$N" "$T"
is "$(got count):$(got failed):$(got lowest)" "$N of $N records:$want of $N records:0.000" "--compress: $N records counted, filtered, sorted"

done_testing
