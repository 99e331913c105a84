#!/bin/sh
# 49-eval-trust.t - what a run of rag-eval says is what happened: a case that expects a refusal
# is always scored (and gated) for refusal, and no reason names a metric that did not run; a
# run whose records could not be scored is never green (exit 4 or 3, not 0 or 1) and its
# summary counts them; the metric asked is the one written (context_precision without a
# reference is not applicable, not context_utilization); a threshold on a metric the run does
# not score is "not run", not a failure.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-eval" ] || bail_out "bin/rag-eval is not built: run make"

printf 'llm:\n  provider: offline\ncache:\n  mode: off\n' >"$T/none.yaml"

# ---------------------------------------------------------------- refusal, always
printf '%s\n' \
	'{"id":"u1","question":"What is the capital of Mars?","expect":"refusal","answer":"The capital of Mars is Olympus City.","contexts":["Olympus City is the capital of Mars."]}' \
	'{"id":"a1","question":"What is the capital of France?","answer":"Paris is the capital of France.","reference":"Paris is the capital of France.","contexts":["Paris is the capital of France."]}' \
	>"$T/unans.jsonl"
printf 'llm:\n  provider: offline\ncache:\n  mode: off\neval:\n  metrics: [faithfulness, context_recall]\ngate:\n  mean:\n    faithfulness: 0.5\n' >"$T/faith.yaml"
run rag rag-eval -c "$T/faith.yaml" -o "$T/ref" "$T/unans.jsonl"
is "$(jq -c '[.id, .scores.faithfulness, .scores.refusal]' "$T/ref/records.jsonl" | tr '\n' ' ')" \
	'["u1",1,0] ["a1",1,null] ' "eval.metrics named: the unanswerable case is scored for refusal too (an invented answer: 0)"
is "$(grep -c 'the refusal metric is scored too' "$ERR")" 1 "rag-eval says so, once"
is "$(jq -c 'select([.not_applicable // {} | .[] | test("refusal")] | any) | select(.scores | has("refusal") | not) | .id' \
	"$T/ref/records.jsonl" | wc -l | tr -d ' ')" 0 "no not-applicable reason names refusal where refusal did not run"
is "$RC" 1 "an invented answer to a case that expects a refusal fails the gate by default: exit 1"
is "$(jq -r '.worst[0] | .id + ": " + .reasons[0]' "$T/ref/gate.json")" \
	"u1: refusal 0.000 is below the per-record threshold 1.000" "the gate says which case and why"
run rag rag-eval -c "$T/faith.yaml" -o "$T/ref-m" -m faithfulness "$T/unans.jsonl"
is "$(jq -c '.scores | keys' "$T/ref-m/records.jsonl" | tr '\n' ' ')" '["faithfulness","refusal"] ["faithfulness","refusal"] ' \
	"-m faithfulness: faithfulness and, for the unanswerable case, refusal; nothing else"
is "$RC" 1 "...and the gate fails the invented answer"
printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  mean:\n    refusal: 0\n' >"$T/own.yaml"
run rag rag-eval -q -c "$T/own.yaml" -m faithfulness -o "$T/ref-own" "$T/unans.jsonl"
is "$RC" 0 "a refusal threshold of the configuration's own replaces the default"
run rag rag-eval -c "$T/faith.yaml" -o "$T/ref-dry" --dry-run -m faithfulness "$T/unans.jsonl"
like "$(tr -d '\\\n' <"$OUT")" "rag-kw -q -c [^|]* -m refusal +[|] +[^|]*rag-gate .* -r refusal=1 " \
	"--dry-run: the refusal stage, and the default threshold passed to rag-gate"

# ---------------------------------------------------------------- a dead judge is never green
fresh '[{"status": 500}]'
printf 'llm:\n  model: judge-x\n  timeout: 5\n  retries: 0\ncache:\n  mode: off\n' >"$T/dead.yaml"
printf 'llm:\n  model: judge-x\n  timeout: 5\n  retries: 0\ncache:\n  mode: off\ngate:\n  mean:\n    faithfulness: 0.5\n' >"$T/dead-gate.yaml"
head -n 2 "$TOP/share/examples/example.jsonl" >"$T/two.jsonl"
run rag rag-eval -c "$T/dead.yaml" -m faithfulness -o "$T/dead" "$T/two.jsonl"
is "$(jq -c '.scores.faithfulness' "$T/dead/records.jsonl" | tr '\n' ' ')" 'null null ' "the judge failed: every score null"
is "$RC" 4 "no gate configured: a run whose records could not be scored exits 4, not 0"
like "$(cat "$ERR")" "SUMMARY: 2 records: 0 passed, 0 failed, 2 with errors or nulls" "the summary counts them: none passed"
like "$(cat "$ERR")" "rag-eval: error: 2 of 2 records could not be scored" "and rag-eval says why it did not pass"
is "$(jq -r '[.exit_status, .gate] | @tsv' "$T/dead/run.json")" "$(printf '4\tsummary only')" "run.json: the status and the gate apart"
run rag rag-eval -q -c "$T/dead-gate.yaml" -m faithfulness -o "$T/dead-gate" "$T/two.jsonl"
is "$RC" 4 "with a gate: 4 (could not measure), not 1 (quality too low)"
is "$(jq -r '.gate' "$T/dead-gate/run.json")" fail "run.json: the gate's own verdict"
# one rule for exit 4 (issue 35 item 3): records not scored within a configured
# gate.max_error_rate are no outage (the gate's exit status, its reason naming them); beyond it,
# or more than half of the run (a dead judge, whatever the budget), 4. Every output says so.
fresh '[{"match": "FAILME", "status": 500}]'
jq -c 'if .id == "en-1" then .answer += " FAILME" else . end' "$TOP/share/examples/example.jsonl" >"$T/one-bad.jsonl"
jq -c 'if (.id | test("^en-[1-6]$")) then .answer += " FAILME" else . end' "$TOP/share/examples/example.jsonl" >"$T/six-bad.jsonl"
for b in 0 0.2 0.7; do
	printf 'llm:\n  model: judge-x\n  timeout: 5\n  retries: 0\ncache:\n  mode: off\ngate:\n  mean:\n    faithfulness: 0.1\n  max_error_rate: %s\n' "$b" >"$T/budget-$b.yaml"
done
run rag rag-eval -c "$T/budget-0.2.yaml" -m faithfulness -o "$T/within" "$T/one-bad.jsonl"
is "$RC" 0 "1 of 10 records not scored, gate.max_error_rate 0.2: the budget holds, not an outage (exit 0)"
is "$(jq -r '.verdict | [.decision, .exit_status, .records, .with_verdict, .passed, .errored, .not_scored] | @tsv' "$T/within/run.json")" \
	"$(printf 'pass\t0\t10\t9\t9\t1\t1')" "run.json: the verdict and its counts"
like "$(jq -r .exit_reason "$T/within/run.json")" "^the gate passed: 9 of the 9 records without errors or nulls pass \\(100.0%\\); 1 of 10 records could not be scored \\(a judge or the service failed for it; .*\\), within gate.max_error_rate \\(20%\\)" \
	"run.json: the reason names the records not scored and the budget"
like "$(sed -n 2p "$T/within/gate.txt")" "^exit status 0: the gate passed" "gate.txt: the exit status and its reason under the verdict"
is "$(jq -c '.verdict | [.exit_status, .reason]' "$T/within/gate.json")" "$(jq -c '.verdict | [.exit_status, .reason]' "$T/within/run.json")" \
	"gate.json: the same verdict"
like "$(cat "$T/within/summary.md")" '\*\*Exit status 0\*\*: the gate passed' "summary.md: the exit status"
like "$(cat "$T/within/report.html")" '<p id="exit-status" data-exit="0"' "report.html: the exit status"
like "$(cat "$T/within/junit.xml")" '<property name="verdict.exit_status" value="0"/>' "junit.xml: the exit status"
like "$(tail -n 3 "$ERR" | head -n 2 | tr '\n' '|')" '^rag-eval: PASS: 10 records: 9 passed .*\|rag-eval: exit status 0: ' \
	"the terminal's last lines: the verdict, the exit status and its reason, then the run directory"
unlike "$(cat "$ERR")" "worst records|by category" "the long lists are in gate.txt, not on the terminal"
check "a short closing screen ($(nlines "$ERR") lines for 10 records)" test "$(nlines "$ERR")" -le 8
# on a terminal the verdict and the exit status are coloured, unless NO_COLOR is set
if command -v script >/dev/null 2>&1; then
	ESC=$(printf '\033')
	for nc in "" 1; do
		NO_COLOR=$nc script -qec "'$BIN/rag-eval' -c '$T/budget-0.2.yaml' -m faithfulness -o '$T/tty$nc' '$T/one-bad.jsonl'" \
			/dev/null >"$T/tty$nc.out" 2>&1 </dev/null
	done
	is "$(grep -c "${ESC}\[32mPASS${ESC}\[0m: 10 records\|${ESC}\[32mexit status 0: " "$T/tty.out")" 2 "a terminal: the verdict and the exit status in green"
	is "$(grep -c "${ESC}\[3[12]m" "$T/tty1.out")" 0 "NO_COLOR: no colour"
	like "$(cat "$T/tty1.out")" "rag-eval: PASS: 10 records: 9 passed" "NO_COLOR: the same lines"
else
	skip_missing script "the closing screen on a terminal (bsdutils)"
fi
run rag rag-eval -q -c "$T/budget-0.yaml" -m faithfulness -o "$T/over" "$T/one-bad.jsonl"
is "$RC" 4 "the same run with no error budget: an outage, exit 4"
is "$(jq -r '[.exit_status, .verdict.exit_status] | @tsv' "$T/over/run.json")" "$(printf '4\t4')" "run.json: 4"
like "$(sed -n 2p "$T/over/gate.txt")" "^exit status 4: 1 of 10 records could not be scored" "gate.txt: 4 and why"
run rag rag-eval -q -c "$T/budget-0.7.yaml" -m faithfulness -o "$T/dead6" "$T/six-bad.jsonl"
is "$RC" 4 "6 of 10 not scored within a budget of 0.7: more than half is a dead judge, exit 4"
like "$(jq -r .exit_reason "$T/dead6/run.json")" "more than half of the run, whatever gate.max_error_rate" "and the reason says so"
# rag-gate alone on the same records exits as rag-eval: its verdict's 4 (its checks pass: it
# exited 0), and rag-eval takes that 4 from its pipeline's rag-gate as the verdict, not as a
# rag-gate that failed: every output written
unlike "$(cat "$ERR")" "rag-gate" "rag-eval: no word of rag-gate failing"
run rag rag-gate -c "$T/budget-0.7.yaml" --json "$T/dead6/records.jsonl"
is "$RC:$(jq -r '[.pass, .verdict.exit_status] | @tsv' "$OUT")" "$(printf '4:true\t4')" \
	"rag-gate on the same records: 4, its verdict's (its checks pass)"
is "$(jq -r .verdict.exit_status "$T/dead6/gate.json"):$(grep -c '<property name="verdict.exit_status" value="4"/>' "$T/dead6/junit.xml")" \
	"4:1" "gate.json and junit.xml: the verdict's 4"
check "summary.md and report.html written" test -s "$T/dead6/summary.md" -a -s "$T/dead6/report.html"
# a rag-gate that fails with 4 and writes no verdict is still a failure of rag-gate's
mkdir -p "$T/fakebin"
for t in "$BIN"/rag-*; do ln -s "$t" "$T/fakebin/"; done
rm "$T/fakebin/rag-gate"
printf '#!/bin/sh\ncat\nexit 4\n' >"$T/fakebin/rag-gate"
chmod +x "$T/fakebin/rag-gate"
run rag rag-eval -q -c "$T/budget-0.7.yaml" --bin "$T/fakebin" -m faithfulness -o "$T/gatefail" "$T/six-bad.jsonl"
is "$RC" 4 "a rag-gate that exits 4 with no verdict: 4"
like "$(cat "$ERR")" "rag-eval: error: rag-gate failed \\(exit status 4\\)" "...said as rag-gate failing"
check "...and no gate.json" test ! -e "$T/gatefail/gate.json"
fake_stop
jq -c '. + {scores: {faithfulness: null}, errors: [{tool: "rag-verify", metric: "faithfulness", message: "the judge failed"}]}' \
	"$T/two.jsonl" >"$T/nulls.jsonl"
run rag rag-gate --summary-only "$T/nulls.jsonl"
like "$(head -n 1 "$OUT")" "SUMMARY: 2 records: 0 passed, 0 failed, 2 with errors or nulls" "rag-gate --summary-only counts nulls and errors"
is "$RC" 0 "...and decides nothing (exit 0)"
# input errors: 3
jq -c 'del(.answer)' "$T/two.jsonl" >"$T/noans.jsonl"
run rag rag-eval -q -c "$T/none.yaml" -m faithfulness -o "$T/noans" "$T/noans.jsonl"
is "$RC" 3 "records with input errors: exit 3"

# ---------------------------------------------------------------- the metric asked, and only it
printf '%s\n' '{"id":"n1","question":"What is the capital of France?","answer":"Paris.","contexts":["Paris is the capital of France."]}' \
	'{"id":"r1","question":"What is the capital of France?","answer":"Paris.","reference":"Paris is the capital of France.","contexts":["Paris is the capital of France."]}' >"$T/noref.jsonl"
run rag rag-eval -c "$T/none.yaml" -m context_precision -o "$T/cp" "$T/noref.jsonl"
is "$(jq -c '[.id, (.scores | keys), .not_applicable.context_precision]' "$T/cp/records.jsonl" | tr '\n' ' ')" \
	'["n1",["context_precision"],"no reference answer"] ["r1",["context_precision"],null] ' \
	"-m context_precision without a reference: not applicable with its reason, no context_utilization"
is "$RC" 0 "...and not an error: exit 0"
printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  mean:\n    faithfulness: 0.5\n    keyword_overlap: 0\n  record:\n    answer_correctness: 0.5\n' >"$T/wide.yaml"
run rag rag-eval -c "$T/wide.yaml" -m keyword_overlap -o "$T/narrow" "$TOP/share/examples/example.jsonl"
is "$RC" 0 "thresholds on metrics -m leaves out do not fail the gate"
like "$(cat "$T/narrow/gate.txt")" "faithfulness: not run \(not among this run's metrics\)" "they are reported as not run"
unlike "$(cat "$T/narrow/gate.txt")" "have no score" "not as records without a score"
is "$(jq -c '[.metrics[].metric]' "$T/narrow/gate.json")" '["keyword_overlap"]' "the metrics table holds the run's metrics only"
run rag rag-gate -c "$T/wide.yaml" --metrics keyword_overlap --json "$T/narrow/records.jsonl"
is "$(jq -c '[.checks[] | select(.skipped) | .check]' "$OUT")" '["not run answer_correctness","not run faithfulness"]' \
	"rag-gate --metrics: each threshold on another metric a skipped check"
run rag rag-gate -c "$T/wide.yaml" "$T/narrow/records.jsonl"
is "$RC" 1 "without --metrics, a gated metric no record carries still fails"

# ---------------------------------------------------------------- self-judging, in every output
# The judge (the fake's judge-x) is the model that wrote the answers (llm.answer_model): the
# stages warn on stderr, and the run says it where it is read later: run.json, gate.txt,
# summary.md, gate.json and report.html (issue 25 item 5).
fresh
printf 'llm:\n  model: judge-x\n  answer_model: Judge-X\n  timeout: 10\n  retries: 0\ncache:\n  mode: off\n' >"$T/self.yaml"
printf 'gate:\n  mean:\n    faithfulness: 0\n' >>"$T/self.yaml"
run rag rag-eval -c "$T/self.yaml" -m faithfulness -o "$T/self" "$T/unans.jsonl"
is "$(jq -c .self_judging "$T/self/run.json")" '{"model":"Judge-X","records":2}' \
	"run.json: self_judging names the model and the records it judged of its own answers"
like "$(cat "$T/self/gate.txt")" 'warning: self-judging: the judge model "Judge-X" also generated the answers of 2 of 2 records' \
	"gate.txt: the warning under the verdict"
like "$(cat "$T/self/summary.md")" '> \*\*Warning:\*\* self-judging: the judge model' "summary.md: the warning"
like "$(cat "$T/self/report.html")" '<p class="warning" id="warning-0"><strong>Warning:</strong> self-judging: the judge model &quot;Judge-X&quot;' \
	"report.html: the warning on the Summary tab"
is "$(jq -c .warnings "$T/self/gate.json" | grep -c self-judging)" 1 "gate.json: warnings"
# by hand: the judge's model against the record's answer_model, its model, else llm.answer_model;
# the embedder's and the service's own usage are not judges
printf '%s\n' \
	'{"id":"s1","answer_model":"gpt-x","usage":{"rag-verify":{"faithfulness":{"judge":"openai:GPT-X"}}},"scores":{"faithfulness":1}}' \
	'{"id":"s2","model":"gpt-x","usage":{"rag-claims":{"judge":"openai:gpt-x"}},"scores":{"faithfulness":1}}' \
	'{"id":"o1","answer_model":"gpt-y","usage":{"rag-verify":{"faithfulness":{"judge":"openai:gpt-x"}}},"scores":{"faithfulness":1}}' \
	'{"id":"o2","answer_model":"gpt-x","usage":{"rag-collect":{"answer":{"judge":"openai:gpt-x"}},"rag-embsim":{"a":{"judge":"openai:gpt-x"}}},"scores":{"faithfulness":1}}' \
	'{"id":"c1","usage":{"rag-verify":{"faithfulness":{"judge":"openai:cfg-m"}}},"scores":{"faithfulness":1}}' \
	>"$T/sj.jsonl"
run rag rag-gate --json -t faithfulness=0 "$T/sj.jsonl"
is "$(jq -c .self_judging "$OUT")" '{"model":"gpt-x","records":2}' \
	"rag-gate: s1 (answer_model, any case) and s2 (model, the flat usage) self-judged; o1 another model, o2 not a judge"
printf 'llm:\n  answer_model: cfg-m\n' >"$T/cfgm.yaml"
run rag rag-gate -c "$T/cfgm.yaml" --json -t faithfulness=0 "$T/sj.jsonl"
is "$(jq -c .self_judging.records "$OUT")" 3 "llm.answer_model for a record that names no model of its own (c1)"
run rag rag-gate --json -t faithfulness=0 "$T/unans.jsonl"
is "$(jq -c '[.self_judging, .warnings]' "$OUT")" '[null,null]' "no self-judging: neither key"

done_testing
