#!/bin/sh
# 46-collect-knobs.t - the system: knobs rag-collect records are those that ran: the body
# program sees them (.system.top_k is sent), and the reply's own settings can be taken into the
# record's system object (--system-from, collect.system_from), over the configured ones.
# Against tests/fakerag.py; assertions on its log and the output.
. "$(dirname "$0")/lib.sh"

need jq python3
FAKE_SERVER=fakerag.py
export FAKE_SERVER

cat >"$T/set.jsonl" <<'X'
{"id": "q1", "question": "What is the capital of France?"}
{"id": "q2", "question": "How tall is Everest?", "system": {"top_k": 9}}
X
fresh '[{"meta": {"retriever": "hybrid"}}]'
cat >"$T/sys.yaml" <<X
collect:
  url: $FAKE_URL/ask
system:
  top_k: 5
  retriever: bm25
X

# ---------------------------------------------------------------- the body sees the knobs
run rag rag-collect -c "$T/sys.yaml" --body '{question, top_k: .system.top_k}' <"$T/set.jsonl"
is "$RC" 0 "a body program over .system: exit 0"
is "$(jq -c '[.body.question, .body.top_k]' "$FAKE_LOG" | sort | tr '\n' ' ')" \
	'["How tall is Everest?",9] ["What is the capital of France?",5] ' \
	"the body program sees the configured top_k (5), and a record's own (9)"
is "$(jq -c '.system' "$OUT" | tr '\n' ' ')" '{"top_k":5,"retriever":"bm25"} {"top_k":9,"retriever":"bm25"} ' \
	"the records say the knobs that were sent"

like "$(cat "$ERR")" "warning: the system setting retriever is recorded in every record but not in the request" \
	"a knob the body does not send (retriever) is named in a warning"
unlike "$(cat "$ERR")" "top_k is recorded|top_k, retriever" "...and not one it sends (top_k)"

# a knob that is recorded but never sent: the service ran its own (the default body sends the
# question alone): said once, at the start, naming the knobs and how to send them
fresh '[]'
sed "s|url: .*|url: $FAKE_URL/ask|" "$T/sys.yaml" >"$T/sys1.yaml"
run rag rag-collect -q -c "$T/sys1.yaml" <"$T/set.jsonl"
is "$RC" 0 "the default body with knobs configured: exit 0"
like "$(cat "$ERR")" "warning: the system settings top_k, retriever are recorded in every record but not in the request \(its body is the default, \{question\}\): send them with --body" \
	"knobs the default body does not send: a warning, under -q too, names them and --body"
is "$(grep -c warning "$ERR")" 1 "...once, not once a record"
is "$(jq -c '.body | keys' "$FAKE_LOG" | sort -u)" '["question"]' "...as the service's log shows: the question alone was sent"
run rag rag-collect -q -c "$T/sys1.yaml" --body '{question} + .system' <"$T/set.jsonl"
is "$(grep -c warning "$ERR")" 0 "a body that sends every knob: no warning"
run rag rag-collect -q -c "$T/sys1.yaml" --body '{question, k: (.system.top_k + 1), r: .system.retriever}' <"$T/set.jsonl"
is "$(grep -c warning "$ERR")" 0 "a body that computes with a knob: no warning"
printf 'collect:\n  url: %s/ask\n' "$FAKE_URL" >"$T/noknobs.yaml"
run rag rag-collect -q -c "$T/noknobs.yaml" <"$T/set.jsonl"
is "$(grep -c warning "$ERR")" 0 "no knobs configured: no warning"

# ---------------------------------------------------------------- the reply's own knobs
fresh '[{"meta": {"retriever": "hybrid"}}]'
sed "s|url: .*|url: $FAKE_URL/ask|" "$T/sys.yaml" >"$T/sys2.yaml"
run rag rag-collect -c "$T/sys2.yaml" --system-from '.meta' <"$T/set.jsonl"
is "$RC" 0 "--system-from: exit 0"
is "$(jq -c '.system' "$OUT" | tr '\n' ' ')" '{"top_k":3,"retriever":"hybrid"} {"top_k":3,"retriever":"hybrid"} ' \
	"--system-from .meta: what the service says ran (top_k 3: the default body sent none; hybrid) over the configured knobs"
printf 'collect:\n  url: %s/ask\n  system_from: ".meta | {retriever}"\nsystem:\n  top_k: 5\n  retriever: bm25\n' "$FAKE_URL" >"$T/sys3.yaml"
run rag rag-collect -c "$T/sys3.yaml" <"$T/set.jsonl"
is "$(jq -c '.system' "$OUT" | tr '\n' ' ')" '{"top_k":5,"retriever":"hybrid"} {"top_k":9,"retriever":"hybrid"} ' \
	"collect.system_from in the config: the reply's retriever, the other knobs as configured"
fresh '[{"body": "{\"answer\": \"A\", \"meta\": 7}"}]'
sed "s|url: .*|url: $FAKE_URL/ask|" "$T/sys.yaml" >"$T/sys4.yaml"
run rag rag-collect -c "$T/sys4.yaml" --system-from '.meta' <"$T/set.jsonl"
is "$RC" 4 "a reply whose system program gives no object: exit 4"
is "$(jq -c '[.answer, .errors[0].message]' "$OUT" | head -n 1)" '[null,"the system program gave number, not an object"]' \
	"the record has a null answer and says why"
fresh '[{"body": "{\"answer\": \"A\"}"}]'
sed "s|url: .*|url: $FAKE_URL/ask|" "$T/sys.yaml" >"$T/sys5.yaml"
run rag rag-collect -c "$T/sys5.yaml" --system-from '.meta' <"$T/set.jsonl"
is "$RC:$(jq -c '.system' "$OUT" | head -n 1)" '0:{"top_k":5,"retriever":"bm25"}' \
	"a reply without the knobs (null): the configured ones stay"
run rag rag-collect -c "$T/sys5.yaml" --system-from '.meta |' <"$T/set.jsonl"
is "$RC" 2 "a --system-from that does not compile: exit 2"
like "$(cat "$ERR")" 'collect.system_from: the jq program does not compile' "and says which program"

# ---------------------------------------------------------------- command mode
printf 'collect:\n  command: "jq -c '"'"'{answer: \\"A\\", used: .system}'"'"'"\n  system_from: .used | {top_k}\nsystem:\n  top_k: 5\n' >"$T/cmd.yaml"
run rag rag-collect -c "$T/cmd.yaml" <"$T/set.jsonl"
is "$RC:$(jq -c '.system.top_k' "$OUT" | tr '\n' ' ')" '0:5 9 ' \
	"command mode: the command reads the record with its knobs, and its reply's knobs are taken"
is "$(grep -c warning "$ERR")" 0 "command mode: no warning (the command reads the whole record)"

# ---------------------------------------------------------------- the run's knobs in the store
# rag-eval with the reply's knobs: run.json keeps the configured ones (top_k 5, bm25), every
# record says what ran (top_k 3, hybrid); the store's run has what ran, and is found by it.
fresh '[{"meta": {"retriever": "hybrid"}}]'
printf 'llm:\n  provider: offline\ncollect:\n  url: %s/ask\n  system_from: .meta\nsystem:\n  top_k: 5\n  retriever: bm25\n' "$FAKE_URL" >"$T/ev.yaml"
run rag rag-eval -q -c "$T/ev.yaml" -m faithfulness --run-id K -o "$T/K" "$T/set.jsonl"
is "$(jq -c '.system' "$T/K/records.jsonl" | sort -u)" '{"top_k":3,"retriever":"hybrid"}' "rag-eval: every record has the knobs that ran"
is "$(jq -c '[.system, .config.system]' "$T/K/run.json")" '[{"top_k":3,"retriever":"hybrid"},{"top_k":5,"retriever":"bm25"}]' \
	"run.json: system is what the records say ran, config.system what was configured"
# records that say different settings ran: run.json's system is null, not one of them
fresh '[]'
printf 'llm:\n  provider: offline\ncollect:\n  url: %s/ask\n' "$FAKE_URL" >"$T/ev2.yaml"
jq -c '.system = {"top_k": 7}' "$T/set.jsonl" | head -n 1 >"$T/set2.jsonl"
sed -n 2p "$T/set.jsonl" >>"$T/set2.jsonl"
run rag rag-eval -q -c "$T/ev2.yaml" -m faithfulness --run-id K2 -o "$T/K2" "$T/set2.jsonl"
is "$(jq -c '.system' "$T/K2/run.json")" null "run.json: system null when the records' differ"
fresh '[{"meta": {"retriever": "hybrid"}}]'
sed "s|url: .*|url: $FAKE_URL/ask|" "$T/ev.yaml" >"$T/ev3.yaml" && mv "$T/ev3.yaml" "$T/ev.yaml"
run rag rag-store -c "$T/ev.yaml" --store "$T/k.db" add "$T/K"
is "$RC" 0 "rag-store add: exit 0"
run rag rag-store -c "$T/ev.yaml" --store "$T/k.db" list --json
is "$(jq -c '.system' "$OUT")" '{"top_k":3,"retriever":"hybrid"}' "the store's run has the knobs that ran, not those configured"
run rag rag-store -c "$T/ev.yaml" --store "$T/k.db" list --json --system retriever=hybrid
is "$(jq -r '.run' "$OUT")" K "and is found by them"

done_testing
