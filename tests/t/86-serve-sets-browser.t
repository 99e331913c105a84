#!/bin/sh
# 86-serve-sets-browser.t - rag-serve's Test sets and Cases tabs in a real browser (Selenium,
# headless Chromium, no network), in English at 1440 px and in Chinese at 390 px: a test set
# made from a file (a broken one's FILE:LINE shown), opened, a case edited (a new version), a
# category set on two cases, a CSV imported, an edit refused with 409 after another writer
# saved (and reloaded), hostile text kept as text, no horizontal scroll at 1440 and 390 px.
# Screenshots in tests/tmp/serve-sets-shots/ (artefacts, not committed).
. "$(dirname "$0")/lib.sh"
need python3 jq
need_browser
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"

files=$TOP/tests/tmp/serve-sets-shots
rm -rf "$files"; mkdir -p "$files"
cat >"$files/cases.jsonl" <<'EOT'
{"id": "f1", "question": "What is <img src=x onerror=alert(1)>?", "reference": "</td><script>alert(2)</script>"}
{"id": "f2", "question": "How do I reset my password?", "reference": "Settings, then Security."}
{"id": "f3", "question": "\"Quoted\" & 'single'", "category": "misc", "contexts": ["kept as it is"]}
EOT
printf '{"id": "b1", "question": "fine"}\n{"id": "b2", "question": oops}\n' >"$files/bad.jsonl"
printf 'id,question,reference\nm1,"imported, one",r1\nm2,imported two,r2\n' >"$files/more.csv"

"$BIN/rag-serve" -c "$T/c.yaml" --store "$T/store.db" --listen 127.0.0.1:0 2>"$T/serve.err" &
SPID=$!
trap 'kill -TERM $SPID 2>/dev/null; wait $SPID; _lib_cleanup' EXIT
wait_until 30 grep -qs 'http://127\.0\.0\.1:[0-9]*/$' "$T/serve.err" || bail_out "rag-serve did not start: $(cat "$T/serve.err")"
URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*/$' "$T/serve.err" | head -n 1)

# two runs of 9 metrics for History's table at 1440 px (its long means beside short headers)
for r in 1 2; do
	jq -nc '[range(3)] | .[] | {id: "q\(.)", question: "q", answer: "a", category: "c", scores: {faithfulness: 0.8,
		answer_relevancy: 0.7, context_precision: 0.6, context_recall: 0.9, keyword_overlap: 0.3, answer_correctness: 0.5,
		context_relevance: 0.4, noise_sensitivity: 0.2, refusal: 1}}' >"$T/r$r.jsonl"
	run rag rag-store -q -c "$T/c.yaml" --store "$T/store.db" --label "nightly-build-$r" --testset qa add - <"$T/r$r.jsonl"
	is "$RC" 0 "a run of 9 metrics added ($r)"
done
run timeout 300 "$PY" "$TOP/tests/browser/serve_sets.py" walk "$URL" "$files"
is "$RC" 0 "the browser walk ran"
[ "$RC" = 0 ] || diag "$(tail -n 20 "$ERR")"
got() { sed -n "s/^$1: //p" "$OUT" | sed -n "${2:-1}p"; }

# English, 1440 px
is "$(got 'en tabs')" 'Test sets Cases Run evaluation History Run Production' "the tabs"
like "$(got 'en bad file')" '^Error: bad\.jsonl:2:[0-9]+: ' "a broken file: its FILE:LINE on the page"
is "$(got 'en made')" 'Made “faq”, version 1, 3 cases.' "a test set made from a file"
is "$(got 'en sets')" 'faq v1 of 1 3' "listed with its version and cases"
is "$(got 'en cases shown')" 'True:False' "opened: the Cases tab"
is "$(got 'en title')" 'faq — version 1 of 1' "its version"
is "$(got 'en editor shown')" False "the case editor hidden until a case is edited"
is "$(got 'en ids')" 'f1,f2,f3' "its cases"
is "$(got 'en hostile')" 'img=0 script=0' "hostile text shown as text"
is "$(got 'en edit saved')" 'Saved as version 2 (3 cases).' "a case edited: a new version"
is "$(got 'en title after edit')" 'faq — version 2 of 2' "the page shows it"
is "$(got 'en question 2')" 'edited: en' "with the edit"
is "$(got 'en selected')" '2 selected' "two cases selected"
is "$(got 'en categories')" 'bulk-en,,bulk-en' "their category set at once"
is "$(got 'en imported')" 'Saved as version 4 (5 cases).' "a CSV imported into it"
is "$(got 'en count')" 'cases 1–5 of 5 found (5 in this version)' "its cases added"
is "$(got 'en other writer')" 5 "another writer saved version 5"
like "$(got 'en conflict')" \
	'^Not saved: test set “faq” was changed \(version 5, by cy-en, [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z\) after you opened version 4; reload it and apply your edit again\. Reload the newest$' \
	"an edit on version 4: refused, naming version 5 and its author"
like "$(got 'en reloaded')" '^faq — version 5 of 5 \| theirs$' "reloaded: the other writer's edit is there"
for k in 'fits sets' 'fits cases' 'fits conflict'; do
	is "$(got "en $k")" True "1440 px: $k, no horizontal scroll"
done
is "$(got 'en fits cases other width')" True "390 px: the English Cases tab, no horizontal scroll"
is "$(got 'en fits sets other width')" True "390 px: the English Test sets tab, no horizontal scroll"

# Chinese, 390 px
is "$(got 'zh tabs')" '测试集 用例管理 运行评估 历史 运行 生产' "中文: the tabs"
like "$(got 'zh bad file')" '^错误：bad\.jsonl:2:[0-9]+: ' "中文: a broken file's FILE:LINE"
is "$(got 'zh made')" '已创建“常见问题”，版本 1，3 条用例。' "中文: a test set made"
is "$(got 'zh title')" '常见问题 — 版本 1（最新 1）' "中文: opened"
is "$(got 'zh edit saved')" '已保存为版本 2（3 条用例）。' "中文: a case edited, a new version"
is "$(got 'zh question 2')" 'edited: zh' "中文: with the edit"
is "$(got 'zh categories')" 'bulk-zh,,bulk-zh' "中文: the category set on two"
is "$(got 'zh count')" '第 1–5 条，共找到 5 条（此版本共 5 条）' "中文: a CSV imported"
like "$(got 'zh conflict')" '^未保存：测试集“常见问题”在你打开版本 4 之后已被修改（版本 5，cy-zh，[0-9T:Z-]+）。请重新加载后再次修改。 重新加载最新版本$' \
	"中文: the 409 said in Chinese, naming version 5 and its author"
for k in 'fits sets' 'fits cases' 'fits conflict'; do
	is "$(got "zh $k")" True "390 px, 中文: $k, no horizontal scroll"
done
is "$(got 'zh fits cases other width')" True "1440 px: the Chinese Cases tab, no horizontal scroll"
is "$(got 'zh fits sets other width')" True "1440 px: the Chinese Test sets tab, no horizontal scroll"
# 320 cases (issue 36 item 7): found and paged by the server, 25 a page, the address kept
for l in zh en; do
	case $l in zh) w=390 ;; *) w=1440 ;; esac
	is "$(got "$l many editor shown")" False "$l $w px: 320 cases, the editor hidden"
	is "$(got "$l many fits")" True "$l $w px: 320 cases, no horizontal scroll"
	is "$(got "$l many small targets")" none "$l $w px: no tap target under 24 px"
	is "$(got "$l sets small targets")" none "$l $w px: none on the Test sets tab either"
	is "$(got "$l many search kept")" paris "$l $w px: the search kept over a reload"
done
is "$(got 'en many first')" 'cases 1–25 of 320 found (320 in this version) | 25 | p1,p2,p3' "320 cases: the first page of 25"
is "$(got 'en many next')" 'cases 26–50 of 320 found (320 in this version) | p26 | #/cases/many-en?page=2' "the next page, in the address"
is "$(got 'en many search')" 'cases 1–25 of 45 found (320 in this version) | p7,p14,p21,p28' "searched without case"
is "$(got 'en many category')" 'cases 1–15 of 15 found (320 in this version) | p21,p42,p63,p84' "and within a category"
is "$(got 'en many reloaded')" '#/cases/many-en?category=kb-x&q=paris | True | cases 1–15 of 15 found (320 in this version)' \
	"the address reloaded: the same cases found"
is "$(got 'zh many first')" '第 1–25 条，共找到 320 条（此版本共 320 条） | 25 | p1,p2,p3' "中文: 320 cases, the first page"
is "$(got 'zh many category')" '第 1–15 条，共找到 15 条（此版本共 320 条） | p21,p42,p63,p84' "中文: searched within a category"
is "$(got 'zh many reloaded')" '#/cases/many-zh?category=kb-x&q=paris | True | 第 1–15 条，共找到 15 条（此版本共 320 条）' \
	"中文: the address reloaded"
is "$(got 'zh many english')" none "中文: no English on the Cases tab but the data and allowed terms"
is "$(got 'zh sets english')" none "中文: no English on the Test sets tab but the data and allowed terms"
h=$(got 'zh many height')
note "the Cases tab of 320 cases at 390 px, 中文: $h px high (99,923 px before: every case one table)"
check "390 px: 320 cases under 10,000 px high ($h)" test "${h:-99999}" -lt 10000
# History's runs at 1440 px (issue 36 item 9): no header or short cell broken mid-word
is "$(got 'en runs listed')" 2 "History lists the two runs"
is "$(got 'en runs broken 1440')" none "1440 px: History's headers and short cells keep their words whole"
is "$(got 'zh runs broken 1440')" none "1440 px, 中文: and in Chinese"
for k in opened reloaded; do
	is "$(got "compare $k")" 'True | Paired by id: 3 pairs | 10 rows | pass rate' \
		"1440 px: the comparison's address $k: the two runs, the pairing, 9 metrics and the pass rate"
done
is "$(got 'compare fits 1440')" True "1440 px: the comparison of 9 metrics does not scroll sideways"
is "$(got 'no alert')" True "no script of the data ran"
is "$(got 'console errors')" 0 "no other error in the console"
for s in sets-en-1440 cases-en-1440 conflict-en-1440 sets-zh-390 cases-zh-390 conflict-zh-390 many-zh-390 many-en-1440; do
	check "a screenshot of $s" test -s "$files/shots/$s.png"
done

done_testing
