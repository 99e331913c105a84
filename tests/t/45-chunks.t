#!/bin/sh
# 45-chunks.t - rag-verify --chunks: the usefulness of each retrieved chunk (context precision
# against the reference, context utilization against the answer), then rag-ap on its verdicts.
#
# Against the fake LLM (tests/fakellm.py: a request with <<<CONTEXT- blocks only gets one verdict per
# block, false exactly when the chunk contains "IRRELEVANT"): one request for all the chunks of a
# record, several only past --batch-chars, verdicts merged in retrieval order; a reply with a
# verdict missing is asked again once, then the record is null with an error (exit 4). Without
# an endpoint: the offline judge (lexical overlap, verify.chunk_threshold) and the RAGAS examples.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-verify" ] && [ -x "$BIN/rag-ap" ] || bail_out "bin/rag-verify or bin/rag-ap is not built: run make"

judge_config

chunks() { run rag rag-verify -c "$CONF" --chunks "$@"; }
# feed LINE CMD...: CMD with LINE on its stdin (not a pipe: run must set RC in this shell)
feed() { printf '%s\n' "$1" >"$T/in"; shift; "$@" <"$T/in"; }
JQDEF='def lu: [.body.messages[] | select(.role == "user")] | last | .content;
def nchunk: [.body.messages[] | select(.role == "user")] | first | .content | [match("<<<CONTEXT-"; "g")] | length;'
reqs() { jq -r "$JQDEF $1" "$FAKE_LOG"; }

A='The river Zed rises in the northern hills and runs south through three towns.'
B='IRRELEVANT: the price of bread in the capital rose last year.'
C='A mill built in the old style still stands beside the bridge over the Zed.'
REC="{\"id\":\"r1\",\"question\":\"Where does the Zed rise?\",\"reference\":\"The Zed rises in the northern hills.\",\"contexts\":[\"$A\",\"$B\",\"$C\"]}"

# ---------------------------------------------------------------- one request per record
fresh
feed "$REC" chunks
is "$RC" 0 "three chunks: exit 0"
is "$(fake_requests)" 1 "three chunks: one request"
is "$(reqs 'nchunk')" 3 "...holding three CONTEXT blocks, the chunks"
like "$(reqs 'lu')" '<<<REFERENCE-' "...and the reference, fenced"
is "$(jq -c '[.verdicts.context_precision[] | .verdict]' "$OUT")" '[true,false,true]' "verdicts in retrieval order"
is "$(jq -r '.verdicts.context_precision[1].chunk' "$OUT")" "$B" "each verdict names its chunk"
is "$(jq -r '.verdicts.context_precision[1].reason' "$OUT")" "fake: marked IRRELEVANT" "...with the judge's reason"
is "$(jq -c '.scores.context_precision * 10000 | round' "$OUT")" 8333 "scores.context_precision = (1 + 2/3) / 2"
is "$(rag rag-ap -q -m ap <"$OUT" | jq -c '.scores.context_precision * 10000 | round')" 8333 "rag-ap on the verdicts: the same number"
is "$(jq -r '.usage["rag-verify"].context_precision.calls' "$OUT")" 1 "usage counts one call"

# no reference: context utilization, against the answer
fresh
feed "{\"question\":\"Where does the Zed rise?\",\"answer\":\"In the northern hills.\",\"contexts\":[\"$B\",\"$A\"]}" chunks
is "$(jq -c '.scores' "$OUT")" '{"context_utilization":0.5}' "no reference: context_utilization, 0.5"
like "$(reqs 'lu')" '<<<ANSWER-' "...judged against the answer"
unlike "$(reqs 'lu')" '<<<REFERENCE-' "...not a reference"

# --batch-chars: several requests, merged in order
fresh
feed "$REC" chunks --batch-chars 100
is "$(fake_requests)" 3 "--batch-chars 100: one request per chunk of about 75 characters"
is "$(jq -c '[.verdicts.context_precision[] | .verdict]' "$OUT")" '[true,false,true]' "...merged in retrieval order"
fresh
feed "$REC" chunks --batch-chars 160
is "$(fake_requests)" 2 "--batch-chars 160: two requests (A+B, then C)"
# the two are in flight together: the fake server may log either first
is "$(reqs 'nchunk' | sort -n | tr '\n' ' ')" "1 2 " "...of 2 and 1 chunks"

# ---------------------------------------------------------------- the wrong number of verdicts
fresh '[{"match": "CONTEXT-", "few": true, "times": 1}]'
feed "$REC" chunks
is "$RC" 0 "one verdict missing once: re-asked, exit 0"
is "$(fake_requests)" 2 "...two requests"
like "$(jq -r '[.body.messages[] | select(.role == "user")] | last | .content' "$FAKE_LOG" | tail -1)" 'expected 3 verdicts, got 2' \
	"...the re-ask names the problem"
is "$(jq -c '[.verdicts.context_precision[] | .verdict]' "$OUT")" '[true,false,true]' "...and the second reply is used"
fresh '[{"match": "CONTEXT-", "few": true}]'
feed "$REC" chunks
is "$RC" 4 "one verdict missing every time: exit 4"
is "$(fake_requests)" 2 "...asked twice, not more"
is "$(jq -c '[.verdicts.context_precision, .scores.context_precision]' "$OUT")" '[null,null]' "...null verdicts and score"
like "$(jq -r '.errors[0].message' "$OUT")" 'did not fit, even when asked again: expected 3 verdicts, got 2' "...and the reason"
is "$(rag rag-ap -q <"$OUT" | jq -c .scores)" '{"context_precision":null}' "rag-ap after it: null too"
fresh '[{"match": "CONTEXT-", "content": {"verdicts": [{"id": 1, "verdict": true, "reason": "x"}, {"id": 2, "verdict": false, "reason": "x"}, {"id": 3, "verdict": true, "reason": "x"}, {"id": 4, "verdict": true, "reason": "x"}]}}]'
feed "$REC" chunks
is "$RC" 4 "a verdict too many: exit 4"
like "$(jq -r '.errors[0].message' "$OUT")" 'verdict id 4 is not one of the statements 1-3' "...named"

# ---------------------------------------------------------------- edges
fresh
feed '{"question":"q","reference":"r","contexts":[]}' chunks
is "$(fake_requests)" 0 "no chunks: no request"
is "$(jq -c '[.verdicts.context_precision, .scores.context_precision]' "$OUT")" '[[],0]' "...verdicts [] and score 0"
feed '{"question":"q","answer":"a","contexts":["x"]}' chunks --metric context_precision
is "$RC" 0 "--metric context_precision without a reference: not applicable, exit 0"
is "$(jq -c '[.scores.context_precision, .not_applicable.context_precision, .errors]' "$OUT")" \
	'[null,"no reference answer",null]' "...null, not_applicable says why, no errors entry"
is "$(fake_requests)" 0 "...and no request"
printf '%s\n' '{"question":"q","answer":"a","contexts":["x"]}' | rag rag-verify -q --chunks --metric context_precision \
	| rag rag-ap -q -m ap >"$OUT" 2>"$ERR"
is "$(jq -c '[.scores.context_precision, .not_applicable.context_precision, .errors]' "$OUT")" \
	'[null,"no reference answer",null]' "...which rag-ap passes on as not applicable"
feed '{"question":"q","contexts":["x"]}' chunks
is "$RC" 3 "neither reference nor answer: exit 3"
feed '{"question":"q","reference":"r"}' chunks
is "$RC" 3 "no contexts field: exit 3"
run rag rag-verify --metric context_precision </dev/null
is "$RC" 2 "--metric context_precision without --chunks: usage error"
run rag rag-verify --chunks --metric faithfulness </dev/null
is "$RC" 2 "--chunks --metric faithfulness: usage error"
run rag rag-verify --chunks --recheck </dev/null
is "$RC" 2 "--chunks --recheck: usage error"
fresh
feed '{"question":"泽河发源于哪里？","reference":"泽河发源于北部山区。","contexts":["泽河发源于北部山区，向南流经三个城镇。"]}' chunks
like "$(reqs '[.body.messages[] | .content] | join("\n")')" '片段' "a Chinese question: the Chinese prompt"
is "$(jq -c '.scores' "$OUT")" '{"context_precision":1}' "...scored"
fake_stop

# ---------------------------------------------------------------- offline judge
unset RAG_BASE_URL RAG_API_KEY RAG_CACHE
E1='{"question":"Where is the Eiffel Tower located?","reference":"The Eiffel Tower is located in Paris.","contexts":["The Eiffel Tower is located in Paris.","The Brandenburg Gate is located in Berlin."]}'
E2='{"question":"Where is the Eiffel Tower located?","answer":"The Eiffel Tower is located in Paris.","contexts":["The Brandenburg Gate is located in Berlin.","The Eiffel Tower is located in Paris."]}'
feed "$E1
$E2" run rag rag-verify --chunks -q
is "$RC" 0 "offline: exit 0"
is "$(jq -c .scores "$OUT" | tr '\n' ' ')" '{"context_precision":1} {"context_utilization":0.5} ' \
	"offline: the RAGAS examples, 1 and 0.5 (RAGAS: 0.9999999999, 0.49999999995)"
like "$(jq -r '.verdicts.context_precision[1].reason' "$OUT" | head -1)" \
	'^33% of the content words of the question and 0% of those the reference adds found in the chunk: 0% together \(below 50%\)$' \
	"offline: the reason gives both shares, the score and the threshold"
is "$(head -n 1 "$OUT" | jq -c '[.verdicts.context_precision[] | .score]')" '[1,0]' \
	"offline: the chunk score is a number: the harmonic mean of 3/3 and 1/1, and of 1/3 and 0/1"

# the question decides between chunks that both hold the reference
C1='The old lighthouse on the cape was first lit in 1889.'
C2='The harbour railway station was first opened in 1889.'
feed "{\"question\":\"When was the lighthouse on the cape first lit?\",\"reference\":\"In 1889.\",\"contexts\":[\"$C2\",\"$C1\"]}
{\"question\":\"When was the harbour railway station opened?\",\"reference\":\"In 1889.\",\"contexts\":[\"$C2\",\"$C1\"]}" \
	run rag rag-verify --chunks -q
is "$(jq -c '[.verdicts.context_precision[] | .verdict]' "$OUT" | tr '\n' ' ')" '[false,true] [true,false] ' \
	"offline: the same reference and chunks, two questions: the chunk about each question is the useful one"
is "$(jq -r '.verdicts.context_precision | (.[0].score < .[1].score)' "$OUT" | tr '\n' ' ')" 'true false ' \
	"...and scores higher"
is "$(jq -c .scores "$OUT" | tr '\n' ' ')" '{"context_precision":0.5} {"context_precision":1} ' \
	"...so the useful chunk's rank sets the precision"
is "$(jq -r '.verdicts.context_precision[0].score * 1000 | round' "$OUT" | head -1)" 400 \
	"...the station chunk for the lighthouse: 1 of 4 question words, the year: 2 x 1/4 x 1 / (1/4 + 1)"
printf 'verify:\n  chunk_threshold: 0.4\n' >"$T/low.yaml"
feed "{\"question\":\"When was the lighthouse on the cape first lit?\",\"reference\":\"In 1889.\",\"contexts\":[\"$C2\",\"$C1\"]}" \
	run rag rag-verify -c "$T/low.yaml" --chunks -q
is "$(jq -c '[.verdicts.context_precision[] | .verdict]' "$OUT")" '[true,true]' "verify.chunk_threshold 0.4: the 40% chunk is useful too"

# a reference that only repeats the question: all its words count, nothing is left to add
feed '{"question":"Is the lighthouse on the cape?","reference":"The lighthouse is on the cape.","contexts":["The lighthouse stands on the cape.","The station stands by the harbour."]}' \
	run rag rag-verify --chunks -q
is "$(jq -c '[.verdicts.context_precision[] | .score]' "$OUT")" '[1,0]' "offline: an echoing reference: the question's and its words, 1 and 0"

# no question: the reference's share alone, as before
feed '{"reference":"The lighthouse was first lit in 1889.","contexts":["It was first lit in 1889.","The station opened in 1901."]}' \
	run rag rag-verify --chunks -q
is "$(jq -c '[.verdicts.context_precision[] | .verdict]' "$OUT")" '[true,false]' "offline: no question: the reference's words alone"
like "$(jq -r '.verdicts.context_precision[0].reason' "$OUT")" '^[0-9]+% of the content words of the reference found in the chunk' \
	"...and the reason says so"

# Chinese: character bigrams, the question too
feed '{"question":"灯塔是哪一年首次点亮的？","reference":"1889年。","contexts":["火车站于1889年建成通车。","海角上的灯塔于1889年首次点亮。"]}' \
	run rag rag-verify --chunks -q
is "$(jq -c '[.verdicts.context_precision[] | .verdict]' "$OUT")" '[false,true]' \
	"offline, Chinese: both chunks hold 1889年, the one about the lighthouse is useful"

# a chunk's quantity states its bare number too: "12人" supports a reference of "12"; 12队 does not
feed '{"question":"球队有多少名队员？","reference":"12","contexts":["这支球队共有12人。","这支球队共有3名教练。"]}' \
	run rag rag-verify --chunks -q
like "$(jq -r '.verdicts.context_precision[0].reason' "$OUT")" ' and 100% of those the reference adds found' \
	"offline, Chinese: the chunk with 12人 holds the reference's 12"
is "$(jq -r '.verdicts.context_precision | .[0].score > .[1].score' "$OUT")" true "...and scores above the chunk without it"

done_testing
