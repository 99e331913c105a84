#!/bin/sh
# 49-eval-java.t - a seed user's test set, as a Java service writes it (Jackson's camelCase:
# sampleId, referenceAnswer, groundTruth, retrievedContexts with ids, relevantDocIds, category),
# Chinese and English, with an unanswerable case answered with an invented fact, through
# rag-eval with the offline judge: every number the run reports is the one computed by hand
# from the records (issue 21, "Done when").
. "$(dirname "$0")/lib.sh"

need jq
[ -x "$BIN/rag-eval" ] || bail_out "bin/rag-eval is not built: run make"

cat >"$T/set.json" <<'EOF'
[
 {"sampleId": "RET-001", "question": "退货需要几天？", "answer": "收货后7天内可以退货。",
  "referenceAnswer": "收到商品后7天内可以申请退货。",
  "retrievedContexts": [{"id": "d1", "text": "运费由买家承担。"}, {"id": "d2", "text": "收到商品后7天内可以申请退货。"}],
  "relevantDocIds": ["d2"], "category": "returns"},
 {"sampleId": "PAY-001", "question": "Which cards do you accept?", "answer": "We accept Visa and Mastercard.",
  "groundTruth": "We accept Visa, Mastercard and PayPal.",
  "retrievedContexts": [{"id": "d3", "text": "We accept Visa and Mastercard."}, {"id": "d4", "text": "Orders ship in 3 days."}],
  "relevantDocIds": ["d9"], "category": "payment"},
 {"sampleId": "REF-001", "question": "公司CEO的手机号码是多少？", "answer": "CEO的手机号码是13800000000。",
  "expect": "refusal",
  "retrievedContexts": [{"id": "d5", "text": "客服热线工作时间为9点到18点。"}], "category": "refusal"}
]
EOF
printf 'llm:\n  provider: offline\ncache:\n  mode: off\neval:\n  metrics: [mrr, recall@2, token_f1]\n' >"$T/rag.yaml"
run rag rag-eval -c "$T/rag.yaml" -o "$T/run" "$T/set.json"
R=$T/run/records.jsonl
score() { jq -r --arg id "$1" "select(.id == \$id) | .scores[\"$2\"] // \"null\"" "$R"; }

is "$RC" 1 "the invented answer to the unanswerable case fails the gate: exit 1"
is "$(jq -r .id "$R" | tr '\n' ' ')" "RET-001 PAY-001 REF-001 " "the user's ids (sampleId), in order"
like "$(cat "$ERR")" "1 unanswerable case \\(expect: refusal\\): the refusal metric is scored too" \
	"refusal is added to the metrics named, and said once"
# RET-001, Chinese, each CJK character a token: answer 收货后7天内可以退货 (10), reference
# 收到商品后7天内可以申请退货 (14), in common 收 货 后 7 天 内 可 以 退 (9): F1 = 2*9/(10+14) = 0.75;
# relevant d2 retrieved second: mrr 1/2, recall@2 1
is "$(score RET-001 token_f1) $(score RET-001 mrr) $(score RET-001 recall@2)" "0.75 0.5 1" \
	"RET-001: token_f1 18/24, mrr 1/2, recall@2 1 (referenceAnswer, relevantDocIds)"
# PAY-001: answer we accept visa and mastercard (5), groundTruth + paypal (6), 5 in common:
# F1 = 10/11; the relevant d9 never retrieved: mrr 0, recall@2 0 (not undefined)
is "$(score PAY-001 token_f1 | cut -c1-6) $(score PAY-001 mrr) $(score PAY-001 recall@2)" "0.9090 0 0" \
	"PAY-001: token_f1 10/11 (groundTruth), mrr 0 and recall@2 0 for a relevant id not retrieved"
is "$(score REF-001 refusal)" 0 "REF-001: the invented answer does not decline: refusal 0"
is "$(jq -c 'select(.id == "REF-001") | [.not_applicable | keys[]]' "$R")" '["mrr","recall@2","token_f1"]' \
	"REF-001: the other metrics not applicable, with a reason"
check "no reason names a metric that did not run" jq -se \
	'[.[].not_applicable // {} | .[]] | all(test("refusal metric|faithfulness|context_utilization") | not)' "$R"
is "$(jq -c '[.[] | .errors] | map(. // []) | flatten | length' -s "$R")" 0 "no errors"
# the gate: means over the records scored, and the pass rate over all three
G=$(cat "$T/run/gate.txt")
like "$G" "FAIL: 3 records: 2 passed \\(66\\.7% of 3\\), 1 failed, 0 with errors or nulls" "gate.txt: 2 of 3 passed, said of 3"
like "$G" "mrr +2 +1 +0 +0\\.250 " "gate.txt: mrr over 2 records, 1 n/a, mean (0.5 + 0)/2"
like "$G" "recall@2 +2 +1 +0 +0\\.500 " "gate.txt: recall@2 mean (1 + 0)/2"
like "$G" "token_f1 +2 +1 +0 +0\\.830 " "gate.txt: token_f1 mean (0.75 + 10/11)/2 = 0.830"
like "$G" "refusal +1 +2 +0 +0\\.000 .*record>=1\\.000" "gate.txt: refusal gated per record by default"
like "$G" "returns: 1 record: 1 passed" "gate.txt: the category from category"
like "$G" "REF-001 \\[refusal\\] at [^ ]*/set\\.json, id \"REF-001\"" "gate.txt: the worst record named by the test set and its id, not <stdin>:3"
is "$(jq -c '[.counts.records, .counts.records_not_scored, .gate, .exit_status]' "$T/run/run.json")" '[3,0,"fail",1]' \
	"run.json: 3 records, none unscored, the gate failed, exit 1"
done_testing
