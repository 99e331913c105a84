#!/bin/sh
# 88-serve-flow-browser.t - seed 004's whole workbench flow in rag-serve, in a real browser
# (Selenium, headless Chromium, no network): a test set made, cases imported, one edited, a run
# started from the page against the fake judge (tests/fakellm.py) and a fake RAG service
# (tests/fakerag.py), its progress watched (4 of 5 while the judge holds the fifth case), the run
# opened (its failed checks first, its first failing cause inside the first screen at 1440 and
# 390 px), three records marked, the labels exported and read by rag-agree, from the CSV and
# straight from the store, with the same figures; in English at 1440 px and in Chinese at 390
# px, no horizontal scroll. The page's numbers are held to the store's and records.jsonl's.
# Screenshots in tests/tmp/serve-flow-shots/ (artefacts, not committed).
. "$(dirname "$0")/lib.sh"
need python3 jq curl
need_browser
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
DB=$T/store.db
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"

# the cases, each with a part to play: c1's service call fails (no answer: the run's failing
# cause), c3's answer is a claim the judge finds unsupported (faithfulness 0), c4 is edited in the
# page, c5's judge requests are held until the page has shown the progress at 4 of 5
files=$TOP/tests/tmp/serve-flow-shots
rm -rf "$files"; mkdir -p "$files"
cat >"$files/cases.jsonl" <<'EOT'
{"id": "c1", "question": "Why is the BROKEN service down?", "reference": "The service is down for maintenance.", "category": "ops"}
{"id": "c2", "question": "How do I reset my password?", "reference": "Open Settings, then Security, then Reset password.", "category": "account"}
{"id": "c3", "question": "Is the UNSUPPORTED plan free?", "reference": "The free plan has three projects.", "category": "billing"}
{"id": "c4", "question": "What is the refund window?", "reference": "Refunds are given within 30 days.", "category": "billing"}
{"id": "c5", "question": "Where is the HOLD-ME office?", "reference": "The office is in Berlin.", "category": "misc"}
EOT

# the RAG service: c1's question gets a 400 (not retried: one error, no answer)
printf '[{"match": "BROKEN", "status": 400}]\n' >"$T/rag-plan.json"
python3 "$TOP/tests/fakerag.py" --port 0 --port-file "$T/rag.port" --plan "$T/rag-plan.json" --log "$T/rag.log" \
	--max-seconds 900 </dev/null >/dev/null 2>"$T/rag.err" &
RPID=$!
trap 'serve_stop; kill "$RPID" 2>/dev/null; _lib_cleanup' EXIT
wait_until 10 test -s "$T/rag.port" || bail_out "fakerag did not start: $(cat "$T/rag.err")"
SVC=http://127.0.0.1:$(cat "$T/rag.port")/ask
# the judge: lib.sh's fake (RAG_API_KEY=test-secret-key, which rag-serve passes to rag-eval),
# holding every request of the fifth case until the page has seen 4 of 5; a fresh one a language
printf '[{"match": "HOLD-ME", "hold": true, "hold_s": 300}]\n' >"$T/judge-plan.json"
FAKE_MAX_SECONDS=900
export FAKE_MAX_SECONDS
fake_start --plan "$T/judge-plan.json"
serve_start --store "$DB" --work-dir "$T/work" || bail_out "rag-serve did not start"

# got KEY: what the browser's walk said of KEY (its output kept: later commands reuse $OUT)
got() { sed -n "s/^$1: //p" "$WALK" | sed -n "${2:-1}p"; }
# fmt3 X: X to 3 decimals, as the page and the gate write a score
fmt3() { LC_ALL=C printf '%.3f' "$1"; }

for k in en zh; do
	case $k in en) W=1440 NAME=flow-en ;; zh) W=390 NAME=流程-zh ;; esac
	[ "$k" = zh ] && fake_start --plan "$T/judge-plan.json"
	run timeout 300 "$PY" "$TOP/tests/browser/flow.py" walk "$URL" "$files" "$k" "$W" "$FAKE_URL" "$SVC"
	is "$RC" 0 "$k: the browser's flow ran"
	[ "$RC" = 0 ] || diag "$(tail -n 20 "$ERR")"
	WALK=$T/walk.$k
	cp "$OUT" "$WALK"

	# ---------------------------------------------------------------- the test set: made, imported, edited
	case $k in
	en)
		is "$(got 'en lang')" en "en: a browser asking for English gets English"
		is "$(got 'en made')" 'Made “flow-en”, version 1, 0 cases.' "en: a test set made, empty"
		is "$(got 'en opened')" 'flow-en — version 1 of 1' "en: opened"
		is "$(got 'en imported')" 'Saved as version 2 (5 cases).' "en: the file's cases imported: version 2"
		is "$(got 'en edited')" 'Saved as version 3 (5 cases).' "en: one case edited: version 3"
		is "$(got 'en title after edit')" 'flow-en — version 3 of 3' "en: the page shows version 3" ;;
	zh)
		is "$(got 'zh lang')" zh-CN "zh: a browser asking for Chinese gets Chinese"
		is "$(got 'zh made')" '已创建“流程-zh”，版本 1，0 条用例。' "zh: a test set made, empty"
		is "$(got 'zh opened')" '流程-zh — 版本 1（最新 1）' "zh: opened"
		is "$(got 'zh imported')" '已保存为版本 2（5 条用例）。' "zh: the file's cases imported: version 2"
		is "$(got 'zh edited')" '已保存为版本 3（5 条用例）。' "zh: one case edited: version 3"
		is "$(got 'zh title after edit')" '流程-zh — 版本 3（最新 3）' "zh: the page shows version 3" ;;
	esac
	is "$(got "$k ids")" c1,c2,c3,c4,c5 "$k: the cases imported, in the file's order"
	EDITED=$(case $k in en) echo 'Edited (en): how long is the refund window?' ;; zh) echo '编辑过：退款期限是多久？' ;; esac)
	is "$(got "$k question 4")" "$EDITED" "$k: case 4 shows its edit"
	run rag rag-store -q -c "$T/c.yaml" --store "$DB" testset export "$NAME"
	is "$(jq -r .question "$OUT" | sed -n 4p)" "$EDITED" "$k: the store's newest version has the edit"
	like "$(got "$k testsets")" "(^|,)$NAME(,|\$)" "$k: the Run evaluation tab offers the test set"

	# ---------------------------------------------------------------- the run: progress watched
	like "$(got "$k mid state")" '^running ' "$k: the page shows the run running"
	is "$(got "$k mid progress")" 4/5 "$k: at 4 of 5 records while the judge holds the fifth"
	case $k in
	en) like "$(got 'en mid count')" '^4 of 5 records · 1 with errors' "en: its count: 4 of 5, one with errors (c1)" ;;
	zh) like "$(got 'zh mid count')" '^4 / 5 条记录 · 1 条出错' "zh: its count, in Chinese" ;;
	esac
	is "$(got "$k progress")" 5/5 "$k: then 5 of 5"
	case $k in
	en) like "$(got 'en state')" '^done done$' "en: done"
	    like "$(got 'en count')" '^5 of 5 records · 1 with errors · gate failed$' "en: 5 of 5, one with errors, the gate failed" ;;
	zh) like "$(got 'zh state')" '^done 已完成$' "zh: done (已完成)"
	    like "$(got 'zh count')" '^5 / 5 条记录 · 1 条出错 · 门禁未通过$' "zh: the count in Chinese, the gate failed" ;;
	esac
	# the time left while it ran: the server's estimate from the first records on, or "estimating"
	# (issue 36 item 10), in the page's language and units
	case $k in
	en) like "$(got 'en mid count')" ' · (about ([0-9]+ (h|min|s) ?)+ left|estimating the time left)$' "en: the time left, or estimating" ;;
	zh) like "$(got 'zh mid count')" ' · (约剩 ([0-9]+ (小时|分钟|秒) ?)+|正在估算剩余时间)$' "zh: the time left in Chinese units, or estimating" ;;
	esac
	ID=$(got "$k title" | grep -o '[0-9]\{8\}-[0-9]\{6\}-[0-9a-f]\{6\}')
	like "$ID" '^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$' "$k: the run's id shown"
	eval "ID_$k=\$ID"
	curl -s "${URL}api/evals/$ID" >"$T/state.$k.json"
	RUNDIR=$(jq -r .rundir "$T/state.$k.json")
	RECS=$RUNDIR/records.jsonl
	curl -s "${URL}api/runs/$ID" >"$T/run.$k.json"
	is "$(jq -c '[.label, .testset, .testset_version, .n, .passed]' "$T/run.$k.json")" "[\"flow-$k\",\"$NAME\",3,5,false]" \
		"$k: in the store: its label, the test set's version 3, 5 records, the gate failed"
	is "$(jq -r .question "$RECS" | sed -n 4p)" "$EDITED" "$k: rag-eval was given the edited case"
	is "$(jq -c --arg q "$EDITED" 'select(.body.question == $q) | .body.top_k' "$T/rag.log" | sort -u)" 3 \
		"$k: the service got the edited question and the form's top_k"
	is "$(jq -r 'select(.body | tostring | test("HOLD-ME")) | .rule' "$FAKE_LOG" | sort -u)" 0 \
		"$k: the judge held every request of the fifth case (its plan's rule)"

	# ---------------------------------------------------------------- the opened run: the page against the store
	like "$(got "$k run title")" "$ID\$" "$k: the run opened from the tab"
	is "$(got "$k record ids")" c1,c2,c3,c4,c5 "$k: its 5 records"
	n=$(nlines "$RECS")
	errs=$(jq -s '[.[] | select((.errors // []) | length > 0)] | length' "$RECS")
	case $k in
	en) like "$(got 'en summary')" "Label \\| flow-en \\| .*Test set \\| flow-en@3 \\| Records \\| $n \\| With errors \\| $errs \\| Gate \\| fail" \
	        "en: the summary's records ($n) and errors ($errs) are records.jsonl's, the gate failed" ;;
	zh) like "$(got 'zh summary')" "标签 \\| flow-zh \\| .*测试集 \\| 流程-zh@3 \\| 记录数 \\| $n \\| 出错记录 \\| $errs \\| 门禁 \\| 未通过" \
	        "zh: the summary's records ($n) and errors ($errs) are records.jsonl's, in Chinese" ;;
	esac
	is "$n:$errs" 5:1 "$k: records.jsonl: 5 records, 1 with errors (c1, no answer)"
	curl -s "${URL}api/runs/$ID/records?limit=50" >"$T/recs.$k.json"
	pass=$(jq '[.records[] | select(.passed == true)] | length' "$T/recs.$k.json")
	fail=$(jq '[.records[] | select(.passed == false)] | length' "$T/recs.$k.json")
	none=$(jq '[.records[] | select(.passed == null)] | length' "$T/recs.$k.json")
	is "$pass:$fail:$none" 4:0:1 "$k: the store: 4 records passed, c1 (no answer) has no verdict (the gate's: out of the pass rate)"
	# the Run evaluation tab, the run ended: its pass rate, exit status and means, the store's
	RATE=$(jq -r '.verdict | "\(.pass_rate * 100 * 10 | round / 10)"' "$T/run.$k.json")
	EXIT=$(jq -r .verdict.exit_status "$T/run.$k.json")
	case $k in
	en) like "$(got 'en result')" "^Pass rate \| ${RATE}(\.0)?% \($pass of $pass records with a verdict\) \| Exit status \| $EXIT: " \
	        "en: the ended run's pass rate (the store's verdict) and exit status on the tab" ;;
	zh) is "$(got 'zh result')" "通过率 | ${RATE}.0%（$pass 条有结论的记录中 $pass 条通过） | 退出状态 | $EXIT：未通过" \
	        "zh: the ended run's pass rate and exit status, in Chinese"
	    is "$(got 'zh evals english')" none "zh: no English on the Run evaluation tab but data and allowed terms" ;;
	esac
	is "$(got "$k result means")" "faithfulness,$(fmt3 "$(jq -r .means.faithfulness "$T/run.$k.json")") | keyword_overlap,$(fmt3 "$(jq -r .means.keyword_overlap "$T/run.$k.json")")" \
		"$k: and each metric's mean, the store's"
	is "$(got "$k trends hold the run")" yes "$k: History's trends hold the run started from the page, not a run behind"
	# faithfulness by hand: c1 no answer (null), c3 one unsupported claim (0), the rest 1: mean
	# (0 + 1 + 1 + 1) / 4 = 0.750 >= 0.5; keyword_overlap's mean from the store
	F=$(jq -r '.means.faithfulness' "$T/run.$k.json")
	KW=$(fmt3 "$(jq -r '.means.keyword_overlap' "$T/run.$k.json")")
	is "$(fmt3 "$F")" 0.750 "$k: faithfulness's mean, (0 + 1 + 1 + 1) / 4"
	is "$(jq -s -c '[.[].scores.faithfulness]' "$RECS")" '[null,1,0,1,1]' "$k: faithfulness of c1..c5 in records.jsonl"
	# the gate's checks by metric (faithfulness's, then keyword_overlap's), then the pass rate: the
	# page moves the three that failed (c1's nulls, max_error_rate 0; keyword_overlap's mean) first
	is "$(got "$k checks")" 'false:nulls faithfulness | false:nulls keyword_overlap | false:mean keyword_overlap | true:mean faithfulness | true:pass rate' \
		"$k: the failed checks first, then those that passed"
	T_CHECKS=$(got "$k checks text")
	case $k in
	en) like "$T_CHECKS" "keyword_overlap mean $KW < 0\\.900" "$k: keyword_overlap's check: the store's mean, $KW"
	    like "$T_CHECKS" "faithfulness mean 0\\.750 >= 0\\.500" "$k: faithfulness's check: 0.750"
	    like "$T_CHECKS" "faithfulness: $errs of $n records have no score" "$k: the nulls' check: $errs of $n, records.jsonl's"
	    like "$T_CHECKS" "$pass of $pass records pass" "$k: the pass rate's check: $pass of $pass, the store's (c1 errored, out of it)" ;;
	zh) # the checks worded in Chinese from their codes (issue 36 item 11)
	    like "$T_CHECKS" "keyword_overlap 均值 $KW < 0\\.900" "$k: keyword_overlap's check: the store's mean, $KW"
	    like "$T_CHECKS" "faithfulness 均值 0\\.750 ≥ 0\\.500" "$k: faithfulness's check: 0.750"
	    like "$T_CHECKS" "faithfulness：$n 条记录中 $errs 条没有分数" "$k: the nulls' check: $errs of $n, records.jsonl's"
	    like "$T_CHECKS" "$pass 条记录中 $pass 条通过" "$k: the pass rate's check: $pass of $pass, the store's (c1 errored, out of it)" ;;
	esac
	curl -s "${URL}api/runs/$ID/checks" >"$T/checks.$k.json"
	# issue 36 item 4: a PASS/FAIL badge, the exit status and its reason; in Chinese the reason
	# worded from its code and numbers (reason_code, reason_args), the English reason in English
	case $k in
	en) is "$(got "$k verdict")" "FAIL exit status $(jq -r .exit_status "$T/checks.$k.json"): $(jq -r .reason "$T/checks.$k.json")" \
		"$k: the opened run's stored verdict first: the badge, the exit status and its reason" ;;
	zh) is "$(got "$k verdict")" "未通过 退出状态 $(jq -r .exit_status "$T/checks.$k.json")：$n 条记录中 $errs 条无法评分（评审模型或 RAG 服务调用失败；错误见 records.jsonl）：gate.max_error_rate 为 0" \
		"$k: the opened run's stored verdict first, its reason in Chinese" ;;
	esac
	is "$(jq -r .exit_status "$T/checks.$k.json")" "$(jq -r .exit_status "$RUNDIR/run.json")" "$k: the exit status rag-eval gave"
	is "$(jq -c '[.gated, .pass, .records, .passed, .errored, (.checks | map(.pass))]' "$T/checks.$k.json")" \
		"[true,false,$n,$pass,$errs,[false,false,false,true,true]]" "$k: /api/runs/ID/checks: the gate over the stored records"
	is "$(got "$k causes")" 'the service failed: 1 record unscored=1' "$k: one failing cause: the service's outage (no answer), one record"
	is "$(jq -c '[.causes[] | [.kind, .cause, .count, [.records[].id]]]' "$T/checks.$k.json")" \
		'[["outage","the service failed: 1 record unscored",1,["c1"]]]' "$k: the API's cause, its record c1"
	like "$(got "$k first cause records")" '^c1 ' "$k: the cause lists c1 with its error"
	case $k in
	en) is "$(got 'en checks title'):$(got 'en causes title')" 'Checks:What to fix first' "en: the headings"
	    is "$(got 'en first cause')" 'the RAG service failed: 1 record' "en: the first cause, its count" ;;
	zh) is "$(got 'zh checks title'):$(got 'zh causes title')" '检查项:先修复什么' "zh: the headings in Chinese"
	    is "$(got 'zh first cause')" 'RAG 服务调用失败: 1 条记录' "zh: the first cause in Chinese" ;;
	esac
	for w in 1440 390; do
		is "$(got "$k first screen $w")" True "$k, $w px: the failed check and the first cause inside the first screen ($(got "$k first screen bottom $w") px)"
		is "$(got "$k fits run $w")" True "$k, $w px: the opened run does not scroll sideways"
		is "$(got "$k id lines $w")" 1 "$k, $w px: each record's id and category on one line"
	done
	for s in sets cases form progress marked; do
		is "$(got "$k fits $s")" True "$k, $W px: $s, no horizontal scroll"
	done

	# ---------------------------------------------------------------- three marks, exported, read by rag-agree
	is "$(got "$k review metric")" faithfulness "$k: faithfulness reviewed"
	is "$(got "$k marks")" "c1= | c2=ana-$k: ✔ | c3=ana-$k: ✘ | c4=ana-$k: ✘ | c5=" "$k: c2 right, c3 and c4 wrong"
	is "$(got "$k labels link")" "${URL}api/runs/$ID/labels.csv?metric=faithfulness" "$k: the labels' CSV link"
	curl -s -o "$T/labels.$k.csv" "$(got "$k labels link")"
	is "$(cut -d, -f1-4 "$T/labels.$k.csv")" "$(printf 'id,label,metric,who\nc2,1,faithfulness,ana-%s\nc3,0,faithfulness,ana-%s\nc4,0,faithfulness,ana-%s' "$k" "$k" "$k")" \
		"$k: labels.csv: exactly the 3 marks"
	run rag rag-store -q -c "$T/c.yaml" --store "$DB" export "$ID"
	cp "$OUT" "$T/export.$k.jsonl"
	run rag rag-agree -c "$T/c.yaml" -f scores.faithfulness -L "$T/labels.$k.csv" --json "$T/export.$k.jsonl"
	is "$RC" 0 "$k: rag-agree on the exported labels: exit 0"
	cp "$OUT" "$T/agree-csv.$k.json"
	run rag rag-agree -c "$T/c.yaml" --store "$DB" --run "$ID" --metric faithfulness --json
	is "$RC" 0 "$k: rag-agree --run straight from the store: exit 0"
	cp "$OUT" "$T/agree-run.$k.json"
	# the same figures both ways (the labels' name aside)
	is "$(jq -S -c 'del(.label)' "$T/agree-run.$k.json")" "$(jq -S -c 'del(.label)' "$T/agree-csv.$k.json")" \
		"$k: rag-agree from the CSV and from the store: the same figures"
	# by hand, judge (faithfulness) against the marks: c2 1.0/1, c3 0.0/0, c4 1.0/0; c1 has no
	# score, c5 no mark. Threshold 0.5: tp c2, fp c4, tn c3: accuracy 2/3, precision 1/2,
	# recall 1, f1 2/3; kappa (2/3 - (2/3 * 1/3 + 1/3 * 2/3)) / (1 - 4/9) = (2/9) / (5/9) = 0.4;
	# AUC: c2 over c3 1, over c4 (tied) 1/2: 1.5 / 2 = 0.75; Spearman: ranks (2.5, 1, 2.5) and
	# (3, 1.5, 1.5), r = 0.75 / 1.5 = 0.5; Kendall's tau-b: 1 concordant pair, 0 discordant, 1 tie
	# each side: 1 / sqrt(2 * 2) = 0.5
	is "$(jq -c '[.pairs, .without_score, .without_label, .labels_unmatched, .labels_kind, .positives, .negatives]' "$T/agree-csv.$k.json")" \
		'[3,1,1,0,"binary",1,2]' "$k: 3 pairs; c1 without a score, c5 without a label; 1 positive, 2 negatives"
	is "$(jq -c '[.confusion.tp, .confusion.fp, .confusion.fn, .confusion.tn]' "$T/agree-csv.$k.json")" '[1,1,0,1]' \
		"$k: at 0.5: tp 1 (c2), fp 1 (c4), fn 0, tn 1 (c3)"
	is "$(jq -c '[.auc, .accuracy, .precision, .recall, .f1, .kappa, .spearman, .kendall_tau_b] | map(. * 1000 | round / 1000)' "$T/agree-csv.$k.json")" \
		'[0.75,0.667,0.5,1,0.667,0.4,0.5,0.5]' "$k: AUC 0.75, accuracy 0.667, precision 0.5, recall 1, F1 0.667, kappa 0.4, Spearman 0.5, Kendall 0.5"
	is "$(got "$k no alert"):$(got "$k console errors")" True:0 "$k: no alert, no error in the console"
	for s in sets-$k-$W cases-$k-$W progress-$k-$W run-$k-1440 run-$k-390 marked-$k-$W; do
		check "$k: a screenshot of $s" test -s "$files/shots/$s.png"
	done
	# ---------------------------------------------------------------- History (issue 36 item 9)
	case $k in en) PR='pass rate' ;; zh) PR='通过率' ;; esac
	is "$(got "$k thresholds")" "$PR=1 faithfulness=0.5 keyword_overlap=0.9" \
		"$k: each trend chart draws the gate's threshold the run was judged by (its stored verdict's)"
	is "$(got "$k broken headers 1440")" none "$k, 1440 px: no header of History's runs breaks a word"
	is "$(got "$k evals small targets")" none "$k, $W px: no tap target of Run evaluation under 24 px"
done
isnt "$ID_en" "$ID_zh" "two runs, one a language"

# ---------------------------------------------------------------- Compare (issue 36 item 8), in Chinese at 390 px
WALK=$T/walk.zh
curl -s "${URL}api/compare?base=$ID_en&new=$ID_zh" >"$T/cmp.json"
is "$(got 'zh compare hash')" True "the comparison has its address, #/compare/BASE/NEW"
is "$(got 'zh compare pairing')" "按编号配对：$(jq -r .paired "$T/cmp.json") 对" "the pairing named, with the pairs' count"
sig() { LC_ALL=C awk -v x="$1" 'BEGIN { s = sprintf("%.3f", x); if (x > 0) s = "+" s; print s }'; }
KO=$(jq -c '.metrics[] | select(.metric == "keyword_overlap")' "$T/cmp.json")
like "$(got 'zh compare rows')" "keyword_overlap,$(fmt3 "$(echo "$KO" | jq .base)"),$(fmt3 "$(echo "$KO" | jq .new)"),[^,]*,\\[$(sig "$(echo "$KO" | jq .ci_low)"), $(sig "$(echo "$KO" | jq .ci_high)")\\]," \
	"keyword_overlap's means and interval as /api/compare gives them (compare.c's)"
like "$(got 'zh compare rows')" '\| 通过率,100\.0%（4 条有结论）,100\.0%（4 条有结论）,0\.0 个百分点,,$' "the pass-rate row, each run's verdict's"
like "$(got 'zh compare links')" '^[1-9][0-9]* True$' "the records that changed link to their view in the new run, by id (#/run/ID/id/RID)"
like "$(got 'zh compare link opens')" '^True \| #/run/[^/]*/record/N$' "a changed record's link opens that record, at its own address"
is "$(got 'zh broken compare headers 1440')" none "1440 px: no header of the comparison breaks a word"
is "$(got 'zh fits compare')" True "390 px: the comparison does not scroll sideways"
is "$(got 'zh history small targets')" none "390 px: no tap target of History and Compare under 24 px"
is "$(got 'zh history english')" none "中文: no English on History and Compare but the data and allowed terms"
is "$(got 'zh history link')" 'flow-zh | flow-zh' "a filtered History's address (#/history?label=flow-zh) opens filtered"
is "$(got 'zh compare reloaded')" "$ID_en (flow-en) → $ID_zh (flow-zh) | True" "the comparison's address reloaded: the same two runs compared"

done_testing
