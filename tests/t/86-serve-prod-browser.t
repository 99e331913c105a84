#!/bin/sh
# 86-serve-prod-browser.t - rag-serve's Production tab in a real browser (Selenium, headless
# Chromium, no network), in English and in Chinese at 1440x900 and 390x844: the windows and
# each metric's chart against its threshold (a window below it marked), a window opened from
# its link with its records worst first, the trace viewer's link (trace_url, the trace id
# URL-encoded), a record added to a test set (a new version with its trace id, checked through
# the API), every text of the tab translated, no sideways scroll, hostile text kept as text.
# Screenshots and the page heights in tests/tmp/serve-prod-shots/ (artefacts, not committed).
. "$(dirname "$0")/lib.sh"
need python3 jq curl
need_browser
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
printf 'llm:\n  provider: offline\ntrace_url: "https://traces.example/trace/{trace_id}?from=ragpipe"\n' >"$T/c.yaml"

shots=$TOP/tests/tmp/serve-prod-shots
rm -rf "$shots"; mkdir -p "$shots"
# windows of 3 (faithfulness >= 0.6): [t1 t2 t3] passes (0.7), [t4 t5] fails (0.45)
cat >"$T/records.jsonl" <<'EOT'
{"id":"t1","trace_id":"aa01","started":"2026-12-06T01:10:00Z","question":"q1","contexts":[{"id":"d1","text":"c1"}],"answer":"a1","scores":{"faithfulness":0.8,"answer_relevancy":1}}
{"id":"t2","trace_id":"aa02","started":"2026-12-06T02:10:00Z","question":"q2","contexts":[{"id":"d2","text":"c2"}],"answer":"a2","scores":{"faithfulness":0.7,"answer_relevancy":0.1}}
{"id":"t3","trace_id":"aa03","started":"2026-12-06T03:10:00Z","question":"q3","contexts":[],"answer":"a3","scores":{"faithfulness":0.6,"answer_relevancy":1}}
{"id":"t4","trace_id":"a/b&c d","started":"2026-12-06T04:10:00Z","question":"q4","contexts":[{"id":"d4","text":"c4"}],"answer":"a4","scores":{"faithfulness":0.5,"answer_relevancy":1}}
{"id":"t5","trace_id":"aa05","started":"2026-12-06T05:10:00Z","question":"<img src=x onerror=alert(1)> q5","contexts":[{"id":"d5","text":"c5"}],"answer":"a5","scores":{"faithfulness":0.4,"answer_relevancy":1}}
EOT
rag rag-gate --window 3 -t faithfulness=0.6 "$T/records.jsonl" >"$T/windows.jsonl"
printf '{"question":"old"}\n' >"$T/set.jsonl"
run rag rag-store -q --store "$T/store.db" add-window "$T/windows.jsonl" "$T/records.jsonl"
is "$RC" 0 "two windows stored"
run rag rag-store -q --store "$T/store.db" testset import "$T/set.jsonl" --name refunds
is "$RC" 0 "a test set to add to"

trap 'serve_stop; _lib_cleanup' EXIT
serve_start --store "$T/store.db" || bail_out "rag-serve did not start"
run timeout 300 "$PY" "$TOP/tests/browser/serve_prod.py" walk "$URL" "$shots"
is "$RC" 0 "the browser walk ran"
[ "$RC" = 0 ] || diag "$(tail -n 20 "$ERR")"
got() { sed -n "s/^$1: //p" "$OUT" | sed -n "${2:-1}p"; }

is "$(got 'en tabs')" 'Test sets Cases Run evaluation History Run Production' "the Production tab in the nav"
is "$(got 'zh tabs')" '测试集 用例管理 运行评估 历史 运行 生产' "中文: its name"
HREFS='https://traces.example/trace/aa05?from=ragpipe https://traces.example/trace/a%2Fb%26c%20d?from=ragpipe'
for v in 'en 1440' 'en 390' 'zh 1440' 'zh 390'; do
	is "$(got "$v hash")" '#/production' "$v: the tab's address"
	is "$(got "$v windows"):$(got "$v charts")" '#2,#1:answer_relevancy,faithfulness,'"$(case $v in en*) echo 'pass rate' ;; *) echo '通过率' ;; esac)" \
		"$v: the windows, newest first; a chart per metric and the pass rate"
	is "$(got "$v thresholds"):$(got "$v below")" '0.6,1:1' "$v: faithfulness's threshold 0.6, pass rate's 1; window 2's 0.45 marked below"
	is "$(got "$v records"):$(got "$v scores"):$(got "$v by faithfulness")" '2,1:0.400,0.500:0.400,0.500' \
		"$v: window 2 opened, its worst first (t5 0.4, t4 0.5), by faithfulness the same"
	is "$(got "$v trace hrefs")" "$HREFS" "$v: the trace viewer's links, the ids URL-encoded"
	is "$(got "$v fits list"):$(got "$v fits window")" 'True:True' "$v: no sideways scroll"
	is "$(got "$v small")" none "$v: no control of the tab under 24 x 24 px"
	like "$(got "$v height")" '^[0-9]+$' "$v: the page's height measured ($(got "$v height") px)"
done
is "$(got 'en 1440 decisions')" 'fail,pass' "the decisions"
is "$(got 'zh 1440 decisions')" '未通过,通过' "中文: the decisions"
is "$(got 'en 1440 opened')" '#/production/2 Window 2: its worst records, lowest score first' "window 2 opened, in the address"
is "$(got 'zh 1440 opened')" '#/production/2 窗口 2：最差的记录，分数最低的在前' "中文: window 2 opened"
is "$(got 'en 1440 questions')" '<img src=x onerror=alert(1)> q5 | q4' "hostile text shown as text"
is "$(got 'en 1440 trace link'):$(got 'zh 1440 trace link')" 'view trace:查看链路' "the link's words in both languages"
is "$(got 'en 1440 added')" 'added to refunds as version 2' "a record added to refunds: version 2"
is "$(got 'zh 1440 added')" '已加入 refunds，版本 3' "中文: another, version 3"
is "$(got 'en 1440 set option')" 'refunds (v2)' "the picker knows the new version"
is "$(got 'zh 1440 latin')" '' "中文: no text of the tab left in English"
is "$(got 'zh 390 latin')" '' "中文 at 390 px: none either"
is "$(got reloaded)" '2,3,1' "window 1 from its address: t2 0.1, t3 0.6, t1 0.8"
is "$(got hostile):$(got 'no alert')" 'script=0 img=0:True' "no element or script of the data"
is "$(got 'console errors')" 0 "no error in the console"

get_set() { curl -s "${URL}api/testsets/refunds"; }
is "$(get_set | jq -c '[.version, [.cases[] | .trace_id], .author]')" '[3,[null,"aa05","aa05"],"oncall-zh"]' \
	"the test set: version 3, the added cases with their trace id, by the name given"
is "$(get_set | jq -c '.cases[1] | [.question, .contexts, .answer]')" '["<img src=x onerror=alert(1)> q5",["c5"],"a5"]' \
	"the case: the record's question, contexts and answer"
for v in en-1440 en-390 zh-1440 zh-390; do
	check "screenshot production-window-$v.png" test -s "$shots/production-window-$v.png"
done
grep ' height: ' "$OUT" >"$shots/heights.txt"
done_testing
