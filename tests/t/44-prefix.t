#!/bin/sh
# 44-prefix.t - a record's requests share one fence nonce and a prompt prefix that holds its
# contexts, so a provider's prefix cache pays for them once (issue 26, goal 3).
#
# rag-verify for faithfulness, for context recall and with --chunks each run as its own process,
# as rag-eval's stages do, on the same record: the fake judge (tests/fakellm.py) logs the three
# requests, whose fences must carry one nonce, whose system prompt must be the same, and whose
# longest common prefix must hold every context of the record, fenced.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-verify" ] || bail_out "bin/rag-verify is not built: run make"

judge_config

REC='{"id":"p1","question":"Where does the Zed rise?","answer":"The Zed rises in the northern hills. It runs south.",
"reference":"The Zed rises in the northern hills.","claims":{"answer":["The Zed rises in the northern hills.","The Zed runs south."]},
"contexts":["The river Zed rises in the northern hills and runs south through three towns.","IRRELEVANT: the price of bread rose.","A mill stands beside the bridge over the Zed."]}'
printf '%s\n' "$REC" | tr -d '\n' >"$T/in"
echo >>"$T/in"

three() {
	run rag rag-verify -c "$CONF" <"$T/in"
	is "$RC" 0 "faithfulness: exit 0"
	run rag rag-verify -c "$CONF" --metric context_recall <"$T/in"
	is "$RC" 0 "context recall: exit 0"
	run rag rag-verify -c "$CONF" --chunks <"$T/in"
	is "$RC" 0 "context precision: exit 0"
	is "$(jq -c '[.verdicts.context_precision[].verdict]' "$OUT")" '[true,false,true]' "context precision: a verdict a context"
}
# prompts: each request's messages, role and content, as one text (a JSON string a line)
prompts() { jq -c '[.body.messages[] | "[\(.role)]\n\(.content)\n"] | add' "$FAKE_LOG"; }

fresh
three
is "$(fake_requests)" 3 "three requests"
is "$(jq -r '.body.messages[] | .content' "$FAKE_LOG" | grep -o '<<<[A-Z_]*-[0-9a-f]*' | sed 's/.*-//' | sort -u | wc -l | tr -d ' ')" 1 \
	"the three requests' fences share one nonce"
is "$(jq -c '.body.messages[0]' "$FAKE_LOG" | sort -u | wc -l | tr -d ' ')" 1 "...and one system prompt"
prompts >"$T/prompts"
check "their common prefix holds every context of the record, fenced" python3 - "$T/prompts" "$T/in" <<'PY'
import json, os, sys
ps = [json.loads(l) for l in open(sys.argv[1])]
rec = json.loads(open(sys.argv[2]).read())
common = os.path.commonprefix(ps)
sys.exit(0 if all("\n" + c + "\nCONTEXT-" in common for c in rec["contexts"]) else 1)
PY
cp "$T/prompts" "$T/prompts.1"

# the same record again: the same bytes
fresh
three
prompts >"$T/prompts"
is "$(cmp -s "$T/prompts" "$T/prompts.1" && echo same)" same "the same record gives the same prompts"

# a provider with a prefix cache (the fake's --cached-tokens): the second and third requests find
# the record's contexts cached, and the records count it in usage.<tool>.<stage>.cached_tokens
fake_start --cached-tokens openai
run rag rag-verify -c "$CONF" <"$T/in"
is "$(jq -c '.usage["rag-verify"].faithfulness.cached_tokens' "$OUT")" null "the first request: nothing cached, nothing said"
run rag rag-verify -c "$CONF" --metric context_recall <"$T/in"
CT=$(jq '.usage["rag-verify"].context_recall.cached_tokens' "$OUT")
CTX=$(jq '[.contexts[] | length] | add' "$T/in")
check "the second request: its cached tokens ($CT) cover the contexts ($CTX characters / 4)" test "${CT:-0}" -ge $((CTX / 4))
fake_start --cached-tokens deepseek
run rag rag-verify -c "$CONF" <"$T/in"
run rag rag-verify -c "$CONF" --chunks <"$T/in"
CT=$(jq '.usage["rag-verify"].context_precision.cached_tokens' "$OUT")
check "DeepSeek's form: the chunks request's cached tokens ($CT) cover the contexts" test "${CT:-0}" -ge $((CTX / 4))
like "$(cat "$ERR")" "prompt \\($CT cached\\) \\+ " "the summary line says how many prompt tokens were cached"
fake_stop

done_testing
