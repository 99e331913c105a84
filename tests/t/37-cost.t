#!/bin/sh
# 37-cost.t - what a run cost (the price table, rag-gate's and rag-eval's cost) and what it
# would cost (--estimate): costs against hand-computed numbers, a model without a price is null
# and named, --estimate sends nothing and counts the requests a run sends, and the estimate
# beside the measured usage of the same run against the fake server.
. "$(dirname "$0")/lib.sh"

need jq python3
for _t in rag-claims rag-verify rag-revq rag-judge rag-embsim rag-gate rag-report rag-eval; do
	[ -x "$BIN/$_t" ] || bail_out "bin/$_t is not built: run make"
done

# ---------------------------------------------------------------- the price table
cat >"$T/prices.yaml" <<'EOF'
prices:
  currency: EUR
  judge-x:
    input: 2.5
    output: 10
EOF
# two records' usage, as the tools write it; "other" has no price
cat >"$T/run.jsonl" <<'EOF'
{"id":"a","scores":{"faithfulness":1},"usage":{"rag-claims":{"answer":{"judge":"openai:judge-x","calls":1,"cache_hits":0,"prompt_tokens":1000,"completion_tokens":200}},"rag-verify":{"faithfulness":{"judge":"openai:judge-x","calls":1,"cache_hits":0,"prompt_tokens":3000,"completion_tokens":100}}}}
{"id":"b","scores":{"faithfulness":0.5},"usage":{"rag-claims":{"answer":{"judge":"openai:judge-x","calls":1,"cache_hits":1,"prompt_tokens":500,"completion_tokens":100}},"rag-judge":{"correctness":{"judge":"openai:other","calls":1,"cache_hits":0,"prompt_tokens":10,"completion_tokens":10}}}}
EOF
# by hand: rag-claims answer 1500 x 2.5 + 300 x 10 = 6750 per million; rag-verify 3000 x 2.5
# + 100 x 10 = 8500 per million; rag-judge unpriced
run rag rag-gate -c "$T/prices.yaml" --summary-only --json <"$T/run.jsonl"
is "$RC" 0 "rag-gate --json with prices: exit 0"
is "$(jq -c '.cost.stages | map({k: "\(.tool) \(.stage)", c: (if .cost == null then null else (.cost * 1e6 | round) end)})' "$OUT")" \
	'[{"k":"rag-claims answer","c":6750},{"k":"rag-judge correctness","c":null},{"k":"rag-verify faithfulness","c":8500}]' \
	"cost per stage (per million) as computed by hand; the unpriced model's null"
is "$(jq -c '.cost | [.currency, .calls, .cache_hits, .prompt_tokens, .completion_tokens, .total]' "$OUT")" \
	'["EUR",4,1,4510,410,null]' "cost totals: currency, calls, tokens; total null with a model unpriced"
is "$(jq -c '.cost | [.no_price, .messages]' "$OUT")" '[["other"],["no price for model other"]]' \
	"the unpriced model is named: no price for model other"
run rag rag-gate -c "$T/prices.yaml" --summary-only <"$T/run.jsonl"
like "$(cat "$OUT")" 'no price for model other' "text summary: says no price for model other"
like "$(grep '^  total' "$OUT")" 'unknown' "text summary: the total is unknown, not 0"
like "$(grep 'rag-verify faithfulness' "$OUT")" '0\.008500' "text summary: the priced stage's cost"
run rag rag-gate -c "$T/prices.yaml" --summary-only --markdown <"$T/run.jsonl"
like "$(cat "$OUT")" '\| rag-claims \| answer \| openai:judge-x \| 2 \| 1500 \| 300 \| 0\.006750 \|' "Markdown summary: the cost table"
run rag rag-report -c "$T/prices.yaml" "$T/run.jsonl"
like "$(tr -d '\n' <"$OUT")" '<section id="cost">.*no price for model other' "HTML report: the cost section names the unpriced model"

printf '  other:\n    input: 1\n    output: 1\n' >>"$T/prices.yaml"
run rag rag-gate -c "$T/prices.yaml" --summary-only --json <"$T/run.jsonl"
is "$(jq '.cost.total * 1e6 | round' "$OUT")" 15270 "every model priced: total = 6750 + 8500 + 20 per million"
is "$(jq -c '.cost.messages' "$OUT")" '[]' "every model priced: no message"

# no price table: every cost null, never 0
run rag rag-gate --summary-only --json <"$T/run.jsonl"
is "$(jq -c '[.cost.total, .cost.currency, (.cost.stages | map(.cost) | unique)]' "$OUT")" '[null,"USD",[null]]' \
	"no prices: total and every stage null, currency USD by default"

# the table's errors
printf 'prices:\n  judge-x: 3\n' >"$T/bad1.yaml"
run rag rag-gate -c "$T/bad1.yaml" --summary-only <"$T/run.jsonl"
is "$RC" 2 "a price that is not a mapping: exit 2"
like "$(cat "$ERR")" 'bad1.yaml:2:12: price of "judge-x" must be a mapping' "a price that is not a mapping: where and why"
printf 'prices:\n  judge-x:\n    input: -1\n' >"$T/bad2.yaml"
run rag rag-gate -c "$T/bad2.yaml" --summary-only <"$T/run.jsonl"
like "$(cat "$ERR")" '"input" of the price of "judge-x" must be a number of at least 0' "a negative price is refused"
printf 'prices:\n  judge-x:\n    inptu: 1\n' >"$T/bad3.yaml"
run rag rag-gate -c "$T/bad3.yaml" --summary-only <"$T/run.jsonl"
like "$(cat "$ERR")" 'unknown key "inptu" in the price of "judge-x"' "an unknown key in a price is refused"
printf 'prices:\n  judge-x:\n    input: 1\n    output:\n' >"$T/half.yaml"
run rag rag-gate -c "$T/half.yaml" --summary-only --json <"$T/run.jsonl"
is "$(jq -c '[(.cost.stages[] | select(.tool == "rag-claims") | .cost), .cost.no_price]' "$OUT")" '[null,["judge-x","other"]]' \
	"an output price left empty is unknown: completion tokens make the cost null"

# ---------------------------------------------------------------- a measured run, priced
printf '%s\n' '{"id":"s","question":"Where is Ulm?","answer":"Ulm is in Germany.","contexts":["Ulm is a city in Germany."]}' >"$T/small.jsonl"
printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\n' >"$T/prices0.yaml"
printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\nprices:\n  judge-x:\n    input: 2\n    output: 8\n' >"$T/rag.yaml"
CONF=$T/rag.yaml
EXAMPLE=$TOP/share/examples/example.jsonl
NREC=$(nlines "$EXAMPLE")
fresh
rag rag-claims -c "$CONF" <"$EXAMPLE" 2>"$T/e1" | rag rag-verify -q -c "$CONF" >"$T/pipe.jsonl"
is "$(nlines "$T/pipe.jsonl")" "$NREC" "fake run: one line per record"
REQ=$(fake_requests)
# the tool's summary line: its tokens at 2 and 8 per million
LINE=$(grep 'completion tokens' "$T/e1")
PT=$(echo "$LINE" | sed -n 's/.* \([0-9]*\) prompt + \([0-9]*\) completion tokens.*/\1/p')
CT=$(echo "$LINE" | sed -n 's/.* \([0-9]*\) prompt + \([0-9]*\) completion tokens.*/\2/p')
like "$LINE" "completion tokens, cost $(awk -v p="$PT" -v c="$CT" 'BEGIN { printf "%.6f", (p * 2 + c * 8) / 1e6 }') USD, " \
	"the summary line: the stage's cost at the model's prices"
printf 'llm:\n  model: judge-y\n  timeout: 10\n  retries: 0\nprices:\n  judge-x:\n    input: 2\n    output: 8\n' >"$T/other.yaml"
rag rag-claims -c "$T/other.yaml" <"$T/small.jsonl" 2>"$T/e2" >/dev/null
like "$(cat "$T/e2")" 'completion tokens, no price for model judge-y, ' "the summary line: a model without a price is named"
rag rag-claims -c "$T/prices0.yaml" <"$T/small.jsonl" 2>"$T/e3" >/dev/null
unlike "$(cat "$T/e3")" 'cost|price' "the summary line: no price table, nothing said of cost"
run rag rag-gate -c "$CONF" --summary-only --json <"$T/pipe.jsonl"
is "$(jq '.cost.calls' "$OUT")" "$REQ" "fake run: the summary's calls are the requests the endpoint saw ($REQ)"
HAND=$(jq -s '[.[].usage[][] | .prompt_tokens * 2 + .completion_tokens * 8] | add | round' "$T/pipe.jsonl")
is "$(jq '.cost.total * 1e6 | round' "$OUT")" "$HAND" "fake run: the total is the records' tokens at 2 and 8 per million ($HAND per million)"
is "$(jq -c '.cost.stages | map("\(.tool) \(.stage)")' "$OUT")" '["rag-claims answer","rag-verify faithfulness"]' \
	"fake run: one cost entry per stage"

# rag-eval: run.json's counts.cost
fresh
run rag rag-eval -c "$CONF" -m faithfulness -o "$T/evrun" "$EXAMPLE"
is "$(jq '.counts.cost.calls' "$T/evrun/run.json")" "$(fake_requests)" "rag-eval: run.json counts.cost.calls are the requests sent"
HAND=$(jq -s '[.[].usage[][] | .prompt_tokens * 2 + .completion_tokens * 8] | add | round' "$T/evrun/records.jsonl")
is "$(jq '.counts.cost.total * 1e6 | round' "$T/evrun/run.json")" "$HAND" "rag-eval: run.json counts.cost.total from the records' tokens"
like "$(cat "$T/evrun/gate.txt")" 'cost \(USD' "rag-eval: gate.txt shows the cost"
fake_stop

# ---------------------------------------------------------------- --estimate sends nothing
fresh
for tool in "rag-claims" "rag-verify --one-request" "rag-verify --chunks" "rag-verify --metric context_recall" \
            "rag-verify --metric answer_correctness" "rag-verify --metric context_recall --mode claim_chunk" \
            "rag-revq" "rag-judge --rubric correctness,relevance" "rag-embsim --pair answer,reference"; do
	# shellcheck disable=SC2086
	run rag $tool -c "$CONF" --estimate <"$EXAMPLE"
	is "$RC" 0 "$tool --estimate: exit 0"
	is "$(nlines "$OUT")" 1 "$tool --estimate: no records, one JSON line"
	like "$(cat "$ERR")" 'estimate: 10 records: [0-9]* requests?, about [0-9]* prompt tokens' "$tool --estimate: the summary on stderr"
	unlike "$(cat "$ERR")" 'error' "$tool --estimate: no per-record estimate errors on stderr"
done
is "$(fake_requests)" 0 "--estimate on every tool: the fake server's log is empty"
run rag rag-eval -c "$CONF" --estimate -o "$T/never" "$EXAMPLE"
is "$RC" 0 "rag-eval --estimate: exit 0"
is "$(fake_requests)" 0 "rag-eval --estimate: no request"
check "rag-eval --estimate: no run directory" test ! -e "$T/never"
is "$(jq -c '.estimate.stages | map(.stage)' "$OUT")" \
	'["rag-claims","rag-verify","rag-verify --metric context_recall","rag-revq","rag-embsim","rag-verify --chunks --metric context_precision"]' \
	"rag-eval --estimate: a line for each stage that asks a model"
is "$(jq '.estimate | .requests == (.stages | map(.requests) | add)' "$OUT")" true "rag-eval --estimate: the total is the sum of the stages"
like "$(cat "$ERR")" 'total: 10 records, [0-9]* requests, .*cost unknown: no price for model text-embedding-3-small' \
	"rag-eval --estimate: the embedding model without a price makes the total unknown"
fake_stop

# ---------------------------------------------------------------- --estimate counts by hand
# three records with claims given; batches of 2 claims: 3 claims -> 2 requests, 5 -> 3, 1 -> 1
cat >"$T/claims.jsonl" <<'EOF'
{"id":"1","question":"Q1?","answer":"A.","contexts":["Ulm is a city."],"claims":{"answer":["c1","c2","c3"]}}
{"id":"2","question":"Q2?","answer":"A.","contexts":["Ulm is a city."],"claims":{"answer":["c1","c2","c3","c4","c5"]}}
{"id":"3","question":"Q3?","answer":"A.","contexts":["Ulm is a city."],"claims":{"answer":["c1"]}}
EOF
fresh
run rag rag-verify -c "$CONF" --batch-claims 2 --estimate <"$T/claims.jsonl"
is "$(jq '.estimate.requests' "$OUT")" 6 "rag-verify --batch-claims 2 --estimate: 2 + 3 + 1 = 6 requests"
# expected completion by the rule: 10 a request + 30 a verdict: 6 x 10 + 9 x 30 = 330
is "$(jq '.estimate.completion_tokens' "$OUT")" 330 "rag-verify --estimate: completion tokens by the rule (6 x 10 + 9 x 30)"
is "$(jq -c '.estimate | [.judge, .currency, (.cost * 1e6 | round)]' "$OUT")" \
	"[\"openai:judge-x\",\"USD\",$(jq '.estimate | .prompt_tokens * 2 + .completion_tokens * 8 | round' "$OUT")]" \
	"rag-verify --estimate: the cost is its tokens at the model's prices"
is "$(fake_requests)" 0 "rag-verify --estimate: nothing sent"
rag rag-verify -q -c "$CONF" --batch-claims 2 <"$T/claims.jsonl" >/dev/null
is "$(fake_requests)" 6 "rag-verify --batch-claims 2, a real run: the endpoint saw the 6 requests estimated"
# rag-judge: the rubrics of a record in one request; rag-revq --generations requests: one a question
fresh
run rag rag-judge -c "$CONF" --rubric correctness,relevance --estimate <"$T/claims.jsonl"
is "$(jq '.estimate.requests' "$OUT")" 3 "rag-judge two rubrics --estimate: 3 records, one request each (relevance is not applicable)"
rag rag-judge -q -c "$CONF" --rubric correctness,relevance <"$T/claims.jsonl" >/dev/null
is "$(fake_requests)" 3 "rag-judge two rubrics, a real run: the 3 requests estimated"
fresh
run rag rag-revq -c "$CONF" -n 3 --generations requests --estimate <"$T/claims.jsonl"
is "$(jq '.estimate.requests' "$OUT")" 9 "rag-revq -n 3 --generations requests --estimate: 3 x 3 = 9 requests"
# rag-embsim: 20 records, 40 texts in batches of 8 -> 5 requests; prompt tokens by the rule
jq -nc 'range(20) | {id: "r\(.)", answer: "answer \(.)", reference: "reference \(.)"}' >"$T/twenty.jsonl"
run rag rag-embsim -c "$CONF" --pair answer,reference --batch-size 8 --estimate <"$T/twenty.jsonl"
is "$(jq '.estimate.requests' "$OUT")" 5 "rag-embsim --batch-size 8 --estimate: 40 texts -> 5 requests"
CH=$(jq -r '.answer, .reference' "$T/twenty.jsonl" | tr -d '\n' | wc -c)
is "$(jq '.estimate.prompt_chars' "$OUT")" "$CH" "rag-embsim --estimate: the characters of the 40 texts"
is "$(jq '.estimate.prompt_tokens' "$OUT")" "$(( (CH + 3) / 4 ))" "rag-embsim --estimate: English text, 4 characters a token"
run rag rag-embsim -c "$CONF" --pair answer,reference --embedder offline --estimate <"$T/twenty.jsonl"
is "$(jq -c '.estimate | [.requests, .cost]' "$OUT")" '[0,0]' "rag-embsim --embedder offline --estimate: nothing to send, cost 0"
# Chinese: one token a character
printf '%s\n' '{"id":"z","answer":"爱因斯坦出生于德国","reference":"爱因斯坦生于德国乌尔姆"}' >"$T/zh.jsonl"
run rag rag-embsim -c "$CONF" --pair answer,reference --estimate <"$T/zh.jsonl"
is "$(jq -c '.estimate | [.prompt_chars, .prompt_tokens]' "$OUT")" '[20,20]' "rag-embsim --estimate: Chinese, 1 token a character"
is "$(fake_requests)" 0 "the counts by hand after the last fresh fake: nothing sent"
fake_stop

# ---------------------------------------------------------------- estimate against measured
# The same records estimated, then sent to the fake server (which counts a token per 4
# characters of every prompt, and whose replies are short). The requests must agree exactly;
# on English records the prompt tokens within 1.5 times; the completion tokens are printed
# (the rule is set for real judges, whose verdicts carry reasons the fake's do not).
jq -c 'select(.id | startswith("en"))' "$EXAMPLE" >"$T/en.jsonl"
fresh
for tool in "rag-claims" "rag-verify --one-request" "rag-verify --metric context_recall" "rag-verify --chunks" \
            "rag-verify --metric answer_correctness" "rag-verify --mode claim --metric context_recall" \
            "rag-revq" "rag-judge --rubric correctness"; do
	# shellcheck disable=SC2086
	EST=$(rag $tool -q -c "$CONF" --estimate <"$T/en.jsonl" | jq -c '.estimate | [.requests, .prompt_tokens, .completion_tokens]')
	# shellcheck disable=SC2086
	MEAS=$(rag $tool -q -c "$CONF" <"$T/en.jsonl" | jq -s -c '[.[].usage[][]] | [(map(.calls) | add), (map(.prompt_tokens) | add), (map(.completion_tokens) | add)]')
	note "$tool: estimate [requests, prompt, completion] $EST, measured $MEAS"
	is "$(printf '%s %s' "$EST" "$MEAS" | jq -s '.[0][0] == .[1][0]')" true "$tool: estimated requests = measured ($EST vs $MEAS)"
	is "$(printf '%s %s' "$EST" "$MEAS" | jq -s '(.[0][1] / .[1][1]) as $r | $r >= 0.67 and $r <= 1.5')" true \
		"$tool: estimated prompt tokens within 1.5x of measured"
	is "$(printf '%s %s' "$EST" "$MEAS" | jq -s '.[0][2] >= .[1][2]')" true "$tool: the completion estimate is not below the fake's"
done
fake_stop

# rag-eval's four default metrics on the whole example (English and Chinese): the estimate of
# every stage against the run's requests (judge calls and the one embeddings request)
fresh
rag rag-eval -q -c "$CONF" --estimate "$EXAMPLE" >"$T/est.json"
EST=$(jq -c '.estimate | [.requests, .prompt_tokens, .completion_tokens]' "$T/est.json")
EST_EMB=$(jq '[.estimate.stages[] | select(.tool == "rag-embsim") | .requests] | add // 0' "$T/est.json")
rag rag-eval -q -c "$CONF" -o "$T/evfull" "$EXAMPLE"
MEAS=$(jq -c '.counts | [.calls, .prompt_tokens, .completion_tokens]' "$T/evfull/run.json")
SENT_CHAT=$(jq -c 'select(.path | test("chat/completions"))' "$FAKE_LOG" | wc -l | tr -d ' ')
SENT_EMB=$(jq -c 'select(.path | test("embeddings"))' "$FAKE_LOG" | wc -l | tr -d ' ')
note "rag-eval, 4 metrics, $NREC records: estimate [requests, prompt, completion] $EST ($EST_EMB of embeddings); measured judge usage $MEAS, endpoint requests $SENT_CHAT chat + $SENT_EMB embeddings"
is "$(echo "$EST" | jq --argjson e "$EST_EMB" '.[0] - $e')" "$SENT_CHAT" "rag-eval --estimate: the judge requests of every stage together = what the run sent"
# rag-embsim's batches are the input's (full, or at its end), never a timer's: the run sends
# the requests --estimate counts, on a busy machine too (it once sent 2 where it said 1)
check "rag-eval --estimate: the embeddings requests ($EST_EMB) are what the run sends ($SENT_EMB)" \
	test "$SENT_EMB" -eq "$EST_EMB" -a "$EST_EMB" -ge 1
fake_stop

# the offline judge asks nothing: no cost section, but the JSON still has the (zero) totals
rag rag-claims -q --judge offline <"$EXAMPLE" | rag rag-verify -q --judge offline >"$T/off.jsonl"
rag rag-gate --summary-only <"$T/off.jsonl" >"$T/off.txt" 2>&1
like "$(cat "$T/off.txt")" "faithfulness" "offline: the text summary ..."
unlike "$(cat "$T/off.txt")" "^cost" "... has no cost section"
rag rag-gate --summary-only --markdown <"$T/off.jsonl" >"$T/off.md" 2>&1
like "$(cat "$T/off.md")" "faithfulness" "offline: the Markdown summary ..."
unlike "$(cat "$T/off.md")" "### Cost" "... has none either"
is "$(rag rag-gate --summary-only --json <"$T/off.jsonl" 2>/dev/null | jq -c '[.cost.calls, .cost.total]')" "[0,0]" "offline: the JSON's cost totals are there, zero"

# ---------------------------------------------------------------- cached input tokens
# A provider's prefix cache serves part of the prompt at a lower price: the tools count what the
# reply says was cached (OpenAI's usage.prompt_tokens_details.cached_tokens, DeepSeek's
# usage.prompt_cache_hit_tokens) and prices.<model>.cached_input prices it.
cat >"$T/cprices.yaml" <<'EOF'
prices:
  judge-x:
    input: 2.5
    cached_input: 0.25
    output: 10
  judge-y:
    input: 2
    output: 8
EOF
cat >"$T/cached.jsonl" <<'EOF'
{"id":"a","scores":{"faithfulness":1},"usage":{"rag-verify":{"faithfulness":{"judge":"openai:judge-x","calls":1,"cache_hits":0,"prompt_tokens":3000,"cached_tokens":2000,"completion_tokens":100}}}}
{"id":"b","scores":{"faithfulness":1},"usage":{"rag-verify":{"faithfulness":{"judge":"openai:judge-y","calls":1,"cache_hits":0,"prompt_tokens":1000,"cached_tokens":600,"completion_tokens":100}}}}
EOF
# by hand: judge-x (3000 - 2000) x 2.5 + 2000 x 0.25 + 100 x 10 = 4000 per million; judge-y has
# no cached_input: its cached tokens at the input price, 1000 x 2 + 100 x 8 = 2800
run rag rag-gate -c "$T/cprices.yaml" --summary-only --json <"$T/cached.jsonl"
is "$(jq -c '[.cost.stages[] | [.judge, .cached_tokens, (.cost * 1e6 | round)]]' "$OUT")" \
	'[["openai:judge-x",2000,4000],["openai:judge-y",600,2800]]' "cached_input prices the cached tokens; without it they cost input"
is "$(jq -c '[.cost.cached_tokens, (.cost.total * 1e6 | round)]' "$OUT")" '[2600,6800]' "cost totals: cached tokens and the total"
run rag rag-gate -c "$T/cprices.yaml" --summary-only <"$T/cached.jsonl"
like "$(cat "$OUT")" '2600 of them cached' "text summary: the cached prompt tokens"
run rag rag-gate -c "$T/cprices.yaml" --summary-only --markdown <"$T/cached.jsonl"
like "$(cat "$OUT")" '2600 of them cached' "Markdown summary: the cached prompt tokens"
printf 'prices:\n  judge-x:\n    cached_input: -1\n' >"$T/bad-cached.yaml"
run rag rag-gate -c "$T/bad-cached.yaml" --summary-only <"$T/cached.jsonl"
is "$RC" 2 "a negative cached_input: exit 2"

# read from the replies: OpenAI's form and DeepSeek's
cat >"$T/one.jsonl" <<'EOF'
{"id":"c1","question":"Where does the Zed rise?","contexts":["The Zed rises in the hills."],"claims":{"answer":["The Zed rises in the hills."]}}
EOF
fresh '[{"usage": {"prompt_tokens": 900, "completion_tokens": 50, "total_tokens": 950, "prompt_tokens_details": {"cached_tokens": 700}}}]'
run rag rag-verify -c "$CONF" <"$T/one.jsonl"
is "$(jq -c '.usage["rag-verify"].faithfulness | [.prompt_tokens, .cached_tokens]' "$OUT")" '[900,700]' \
	"usage.prompt_tokens_details.cached_tokens is counted"
fresh '[{"usage": {"prompt_tokens": 900, "completion_tokens": 50, "total_tokens": 950, "prompt_cache_hit_tokens": 400, "prompt_cache_miss_tokens": 500}}]'
run rag rag-verify -c "$CONF" <"$T/one.jsonl"
is "$(jq -c '.usage["rag-verify"].faithfulness | [.prompt_tokens, .cached_tokens]' "$OUT")" '[900,400]' \
	"DeepSeek's usage.prompt_cache_hit_tokens is counted"
fresh '[{"usage": {"prompt_tokens": 900, "completion_tokens": 50, "total_tokens": 950, "prompt_tokens_details": {"cached_tokens": "lots"}}}]'
run rag rag-verify -c "$CONF" <"$T/one.jsonl"
is "$RC,$(jq -c '.usage["rag-verify"].faithfulness | [.prompt_tokens, .cached_tokens]' "$OUT")" '0,[900,null]' \
	"a cached count that is no number is left out, the rest counted"
fake_stop

# --estimate: how much of the prompts is a prefix repeated from the request before, which a
# provider's prefix cache could serve (each request's messages' contents, in order, against the
# request before it in the same process; 4 characters a token for this ASCII text)
cat >"$T/two.jsonl" <<'EOF'
{"id":"e1","question":"Where does the Zed rise?","contexts":["The Zed rises in the hills."],"claims":{"answer":["The Zed rises in the hills."]}}
{"id":"e2","question":"Where does the Zed end?","contexts":["The Zed ends in the sea."],"claims":{"answer":["The Zed ends in the sea."]}}
EOF
fresh
run rag rag-verify -c "$CONF" -j 1 <"$T/two.jsonl"
LCP=$(jq -sr '[.[] | [.body.messages[].content] | add] | .[0] as $a | .[1] as $b
	| [range(0; [$a, $b] | map(length) | min) | select($a[.:. + 1] != $b[.:. + 1])] | first' "$FAKE_LOG")
run rag rag-verify -c "$CONF" --estimate <"$T/two.jsonl"
is "$(jq -c '.estimate.cached_prefix_tokens' "$OUT")" "$(( (LCP + 3) / 4 ))" \
	"rag-verify --estimate: the prefix the second request repeats ($LCP characters), in tokens"
like "$(cat "$ERR")" 'of them a prefix repeated' "...said on stderr"
cat >>"$T/cprices.yaml" <<'EOF'
  judge-est:
    input: 2
    cached_input: 0.5
    output: 8
EOF
printf 'llm:\n  model: judge-est\n  timeout: 10\n  retries: 0\n' >"$T/est.yaml"
cat "$T/cprices.yaml" >>"$T/est.yaml"
run rag rag-verify -c "$T/est.yaml" --estimate <"$T/two.jsonl"
is "$(jq -c '.estimate | ((.prompt_tokens - .cached_prefix_tokens) * 2 + .cached_prefix_tokens * 0.5 + .completion_tokens * 8) / 1e6 - .cost | fabs < 1e-12' "$OUT")" true \
	"...priced at cached_input, the rest at input"
run rag rag-eval -c "$T/est.yaml" --estimate -o "$T/never2" "$EXAMPLE"
is "$(jq -c '.estimate | .cached_prefix_tokens == ([.stages[].cached_prefix_tokens // 0] | add) and .cached_prefix_tokens > 0' "$OUT")" true \
	"rag-eval --estimate: the stages' repeated prefixes, summed"
fake_stop

done_testing
