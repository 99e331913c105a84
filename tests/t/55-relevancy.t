#!/bin/sh
# 55-relevancy.t - rag-revq and rag-embsim: answer relevancy and semantic similarity.
#
# Offline (no endpoint): the answer as the pseudo-question, the refusal list, the hashed
# embedder. Against the fake (tests/fakellm.py: /v1/embeddings gives bag-of-words vectors of
# 16 numbers; the revq prompt gets "What is said about: <answer>?" questions): what is asked,
# batching across records, dedup, the cache, Chinese, and every fault keeping one output line
# per input line with the right errors and exit status.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-revq" ] && [ -x "$BIN/rag-embsim" ] || bail_out "bin/rag-revq or bin/rag-embsim is not built: run make"

EXAMPLE=$TOP/share/examples/example.jsonl
judge_config

offline() {
	_ob=${RAG_BASE_URL:-} _ok=${RAG_API_KEY:-} _oc=${RAG_CACHE:-}
	unset RAG_BASE_URL RAG_API_KEY RAG_CACHE
	"$@"
	_ost=$?
	if [ -n "$_ob" ]; then RAG_BASE_URL=$_ob; export RAG_BASE_URL; fi
	if [ -n "$_ok" ]; then RAG_API_KEY=$_ok; export RAG_API_KEY; fi
	if [ -n "$_oc" ]; then RAG_CACHE=$_oc; export RAG_CACHE; fi
	return $_ost
}
field() { jq -c --arg id "$1" "select(.id == \$id) | $2" "$OUT"; }
# embedding requests the fake saw, and the texts they carried
emb_requests() { jq -c 'select(.path | endswith("/embeddings"))' "$FAKE_LOG" | wc -l | tr -d ' '; }
emb_texts() { jq -s '[.[] | select(.path | endswith("/embeddings")) | .body.input | length] | add // 0' "$FAKE_LOG"; }
chat_requests() { jq -c 'select(.path | endswith("/chat/completions"))' "$FAKE_LOG" | wc -l | tr -d ' '; }

# ================================================================ offline
revq_off() { rag rag-revq -c "$CONF" "$@"; }
offline run revq_off <"$EXAMPLE"
is "$RC" 0 "offline rag-revq: exit 0"
is "$(nlines "$OUT")" 10 "offline rag-revq: one line per record"
like "$(cat "$ERR")" '^rag-revq: notice: no LLM endpoint configured' "offline rag-revq: a notice says so"
check "offline rag-revq: the answer is the one pseudo-question, flagged" \
	jq -se 'all(.[]; .questions.generated == [.answer] and .questions.offline_pseudo == true)' "$OUT"
is "$(jq -r 'select(.questions.noncommittal) | .id' "$OUT" | tr '\n' ' ')" "en-6 zh-4 " \
	"offline rag-revq: the refusals (en-6 I don't know, zh-4 我不知道...) are noncommittal"
cp "$OUT" "$T/revq-offline.jsonl"

emb_off() { rag rag-embsim -c "$CONF" "$@"; }
offline run emb_off --pair answer,reference <"$EXAMPLE"
like "$(cat "$ERR")" '^rag-embsim: notice: no embeddings endpoint configured; using the offline embedder' \
	"offline rag-embsim on records no stage judged: a notice says so"
is "$(grep -c notice "$ERR")" 1 "offline rag-embsim: one notice for 10 records"
offline run emb_off <"$T/revq-offline.jsonl"
is "$RC" 0 "offline rag-embsim: exit 0"
is "$(nlines "$OUT")" 10 "offline rag-embsim: one line per record"
unlike "$(cat "$ERR")" 'notice' "offline rag-embsim after the offline rag-revq: no second notice (the records say usage.rag-revq.judge offline)"
is "$(jq -r 'select(.questions.noncommittal) | "\(.id)=\(.scores.answer_relevancy)"' "$OUT" | tr '\n' ' ')" "en-6=0 zh-4=0 " \
	"offline: a noncommittal answer scores 0"
check "offline: the others score in (0, 1], by the offline estimate: no similarity, a reason" \
	jq -se 'all(.[] | select(.questions.noncommittal | not); .scores.answer_relevancy > 0 and .scores.answer_relevancy <= 1 and .similarities.answer_relevancy == [] and (.reasons.answer_relevancy | type) == "string")' "$OUT"
is "$(jq -r 'select(.questions.noncommittal) | .reasons.answer_relevancy' "$OUT" | sort -u)" "the answer is noncommittal" \
	"offline: a noncommittal record says why it scores 0"
cp "$OUT" "$T/emb1.jsonl"
offline run emb_off <"$T/revq-offline.jsonl"
check "offline rag-embsim is deterministic" cmp -s "$OUT" "$T/emb1.jsonl"
check "offline Chinese: zh-3 has a real value in (0, 1)" \
	jq -se '.[] | select(.id == "zh-3") | .scores.answer_relevancy > 0 and .scores.answer_relevancy < 1' "$T/emb1.jsonl"

# the offline estimate: an echo is no answer, an answer beats a sentence that answers nothing
cat >"$T/ar.jsonl" <<'EOF'
{"id":"echo","question":"When was the harbour lighthouse first lit?","answer":"When was the harbour lighthouse first lit?"}
{"id":"restate","question":"When was the harbour lighthouse first lit?","answer":"The harbour lighthouse was first lit."}
{"id":"answers","question":"When was the harbour lighthouse first lit?","answer":"The harbour lighthouse was first lit in 1889."}
{"id":"bare","question":"When was the harbour lighthouse first lit?","answer":"In 1889."}
{"id":"aside","question":"When was the harbour lighthouse first lit?","answer":"The harbour has a small fish market."}
{"id":"count","question":"How many keepers did the lighthouse have?","answer":"The lighthouse keepers lived in the cottage."}
{"id":"counted","question":"How many keepers did the lighthouse have?","answer":"The lighthouse had three keepers."}
{"id":"why","question":"Why was the lighthouse closed?","answer":"The lighthouse was closed because the harbour silted up."}
{"id":"whynot","question":"Why was the lighthouse closed?","answer":"The lighthouse was closed in 1950."}
{"id":"yes","question":"Is the lighthouse still working?","answer":"Yes."}
{"id":"zh-echo","question":"灯塔是哪一年首次点亮的？","answer":"灯塔是哪一年首次点亮的？"}
{"id":"zh-answers","question":"灯塔是哪一年首次点亮的？","answer":"灯塔于1889年首次点亮。"}
{"id":"zh-aside","question":"灯塔是哪一年首次点亮的？","answer":"港口有一个小鱼市。"}
{"id":"zh-why","question":"灯塔为什么关闭了？","answer":"灯塔关闭了，因为港口淤塞。"}
{"id":"zh-whynot","question":"灯塔为什么关闭了？","answer":"灯塔在冬天关闭了。"}
EOF
offline run revq_off <"$T/ar.jsonl"
cp "$OUT" "$T/ar-revq.jsonl"
offline run emb_off <"$T/ar-revq.jsonl"
is "$RC" 0 "offline estimate: exit 0"
is "$(field echo .scores.answer_relevancy)" 0 "offline: an answer that only repeats the question scores 0, not 1"
is "$(field echo .reasons.answer_relevancy)" '"the answer adds nothing to the question"' "...and says why"
is "$(field restate .scores.answer_relevancy)" 0 "offline: a restatement without the asked time adds nothing either"
is "$(field answers .scores.answer_relevancy)" 1 "offline: the question's words and the year it asks for: 1"
is "$(field bare .scores.answer_relevancy)" 1 "offline: a bare \"In 1889.\" to a when-question: 1"
is "$(field aside .scores.answer_relevancy)" 0.125 "offline: a sentence on the harbour, no time: 1 of 4 words, halved"
is "$(field count .scores.answer_relevancy)" 0.5 "offline: how many, no number: the words (not \"many\"), halved"
is "$(field counted .scores.answer_relevancy)" 1 "offline: how many, a number: 1"
check "offline: why with a cause beats why without one" \
	jq -se 'map({(.id): .scores.answer_relevancy}) | add | .why > .whynot' "$OUT"
is "$(field yes .scores.answer_relevancy)" 1 "offline: a bare yes to a yes-no question: 1"
is "$(field zh-echo .scores.answer_relevancy)" 0 "offline, Chinese: an echo of the question scores 0"
check "offline, Chinese: the answer with the year beats the echo and the aside" \
	jq -se 'map({(.id): .scores.answer_relevancy}) | add | .["zh-answers"] > .["zh-aside"] and .["zh-answers"] > .["zh-echo"]' "$OUT"
check "offline, Chinese: 为什么 with 因为 beats 为什么 without a cause" \
	jq -se 'map({(.id): .scores.answer_relevancy}) | add | .["zh-why"] > .["zh-whynot"]' "$OUT"
offline run emb_off --embedder offline <"$T/ar-revq.jsonl"
is "$(field echo .scores.answer_relevancy)" 0 "offline estimate whatever the embedder: --embedder offline too"

offline run emb_off --pair answer,reference <"$EXAMPLE"
is "$RC" 0 "offline --pair answer,reference: exit 0"
check "offline --pair: scores.semantic_similarity on every record, no similarities" \
	jq -se 'all(.[]; (.scores.semantic_similarity | type) == "number" and .scores.semantic_similarity >= 0 and .scores.semantic_similarity <= 1 and .similarities == null)' "$OUT"
offline run emb_off --pair response,reference --score sim_ar <"$EXAMPLE"
check "--pair takes RAGAS names; --score names the score" jq -se 'all(.[]; (.scores.sim_ar | type) == "number")' "$OUT"

cat >"$T/bad.jsonl" <<'EOF'
{"id":"ok","question":"What is the Zed?","questions":{"generated":["What is the Zed?"],"noncommittal":false}}
{"id":"noq","questions":{"generated":["What is the Zed?"],"noncommittal":false}}
{"id":"nogen","question":"What is the Zed?"}
{"id":"upstream","question":"What is the Zed?","questions":{"generated":null,"noncommittal":null}}
{"id":"badnc","question":"What is the Zed?","questions":{"generated":["x"],"noncommittal":"maybe"}}
{"id":"emptygen","question":"What is the Zed?","questions":{"generated":[],"noncommittal":true}}
not json
{"id":"last","question":"Where?","questions":{"generated":["Where?"],"noncommittal":false}}
EOF
offline run emb_off <"$T/bad.jsonl"
is "$RC" 3 "bad records: exit 3"
is "$(nlines "$OUT")" 8 "bad records: one line per input line"
is "$(field ok .scores.answer_relevancy)" 1 "the same question scores 1"
is "$(field last .scores.answer_relevancy)" 1 "the stream goes on after bad lines"
is "$(jq -r 'select(.id) | "\(.id)=\(.scores.answer_relevancy)"' "$OUT" | tr '\n' ' ')" \
	"ok=1 noq=null nogen=null upstream=null badnc=null emptygen=0 last=1 " "bad records: null scores where they cannot be computed"
like "$(field nogen '.errors[0].message')" 'run rag-revq first' "no questions: the error says to run rag-revq"
like "$(field upstream '.errors[0].message')" 'rag-revq stage failed' "questions.generated null: the upstream failure is named"
like "$(cat "$ERR")" 'rag-embsim: error \(at <stdin>:2\): record has no "question" field' "stderr names the line of a record without a question"
unlike "$(cat "$ERR")" '<stdin>:4' "an upstream failure is not an input error"

offline run emb_off --pair answer <"$EXAMPLE"
is "$RC" 2 "--pair with one field: usage error"
offline run emb_off --embedder nope <"$EXAMPLE"
is "$RC" 2 "--embedder nope: usage error"

# ---------------------------------------------------------------- a long stream (offline)
# 1500 records of 4 distinct texts each: past the 2048 vectors kept for reuse, settled vectors
# are let go; a record whose texts were let go long ago is embedded again, to the same numbers.
i=0
: >"$T/long.jsonl"
while [ $i -lt 1500 ]; do
	printf '{"id":"l%d","question":"What is item %d?","questions":{"generated":["What is item %d about?","Which item is %d?","Tell me about item %d"],"noncommittal":false}}\n' $i $i $i $i $i >>"$T/long.jsonl"
	i=$((i + 1))
done
# (the first 2048 vectors stay; record l1000's come after them and are let go)
sed -n 1001p "$T/long.jsonl" | sed 's/"l1000"/"again"/' >>"$T/long.jsonl"
offline run rag rag-embsim -q <"$T/long.jsonl"
is "$RC" 0 "long stream: exit 0"
is "$(nlines "$OUT")" 1501 "long stream: one line per record"
check "long stream: every record scored" jq -se 'all(.[]; (.scores.answer_relevancy | type) == "number")' "$OUT"
is "$(field again .scores.answer_relevancy)" "$(field l1000 .scores.answer_relevancy)" \
	"long stream: texts met again after they were let go give the same score"
last=$(field l1499 .scores.answer_relevancy)
sed -n 1500p "$T/long.jsonl" >"$T/one.jsonl"
offline run rag rag-embsim -q <"$T/one.jsonl"
is "$(field l1499 .scores.answer_relevancy)" "$last" "long stream: the last record scores as it does alone"

# ================================================================ against the fake
# ---------------------------------------------------------------- rag-revq: what is asked
fresh
printf '%s\n' '{"id":"a","question":"SECRETQUESTION When was the first Super Bowl?","answer":"The first superbowl was held on Jan 15, 1967"}' \
	'{"id":"b","question":"Where is France?","answer":"I don'"'"'t know."}' \
	'{"id":"c","question":"中国的首都是哪里？","answer":"中国的首都是北京。"}' >"$T/three.jsonl"
run rag rag-revq -c "$CONF" <"$T/three.jsonl"
is "$RC" 0 "rag-revq: exit 0"
is "$(chat_requests)" 3 "rag-revq: one request per record by default"
is "$(grep -c SECRETQUESTION "$FAKE_LOG")" 0 "rag-revq: the question is never shown to the judge"
is "$(field a '.questions.generated | length')" 3 "rag-revq: three questions by default"
is "$(jq -c '.questions.noncommittal' "$OUT" | tr '\n' ' ')" "false true false " "rag-revq: the noncommittal flag from the judge"
check "rag-revq: no offline_pseudo flag from a model" jq -se 'all(.[]; .questions.offline_pseudo == null)' "$OUT"
is "$(jq -r 'select(.path | endswith("/chat/completions")) | .body.messages[1].content | test("中国的首都是北京") ' "$FAKE_LOG" | sort | uniq -c | awk '{printf "%s %s ", $1, $2}')" "2 false 1 true " \
	"rag-revq: the Chinese answer goes to the judge as it is"
check "rag-revq: the Chinese answer gets the Chinese prompt" \
	jq -se 'any(.[]; (.body.messages[0].content | test("回答的相关性")) and (.body.messages[1].content | test("中国的首都是北京")))' "$FAKE_LOG"
cp "$OUT" "$T/three-q.jsonl"

check "rag-revq: the default (list) asks one request for 3 questions, without \"n\"" \
	jq -se 'all(.[]; (.body | has("n") | not) and (.body.messages[1].content | test("Write 3 question|写出 3 个问题")))' "$FAKE_LOG"

fresh
run rag rag-revq -c "$CONF" --generations requests <"$T/three.jsonl"
is "$RC" 0 "--generations requests: exit 0"
is "$(chat_requests)" 9 "--generations requests: N requests per record (3 x 3)"
is "$(jq -r '.body.messages[1].content | capture("(?<v>[0-9]/3)").v' "$FAKE_LOG" | sort | uniq -c | awk '{printf "%s %s ", $1, $2}')" "3 1/3 3 2/3 3 3/3 " \
	"--generations requests: the requests are numbered 1/3, 2/3, 3/3"
is "$(field a '.questions.generated | length')" 3 "--generations requests: three questions"
is "$(field b .questions.noncommittal)" true "--generations requests: noncommittal when a generation says so"

fresh
run rag rag-revq -c "$CONF" --generations n <"$T/three.jsonl"
is "$RC" 0 "--generations n: exit 0"
is "$(chat_requests)" 3 "--generations n: one request per record"
check "--generations n: each asks for n = 3 choices of one question" \
	jq -se 'all(.[]; .body.n == 3 and (.body.messages[1].content | test("Write 1 question|写出 1 个问题")))' "$FAKE_LOG"
is "$(field a '.questions.generated')" \
	'["What is said about: The first superbowl was held on Jan 15, 1967?","What is said about: The first superbowl was held on Jan 15, 1967? [choice 1]","What is said about: The first superbowl was held on Jan 15, 1967? [choice 2]"]' \
	"--generations n: one question from each choice"
is "$(field b .questions.noncommittal)" true "--generations n: noncommittal from the choices"

fresh '[{"match": "\"n\":", "ignore_n": true}]'
run rag rag-revq -c "$CONF" --generations n <"$T/three.jsonl"
is "$RC" 0 "--generations n, an endpoint that ignores n: exit 0"
is "$(chat_requests)" 9 "an endpoint that ignores n: the two missing choices asked separately (3 + 3 x 2)"
is "$(field a '.questions.generated | length')" 3 "an endpoint that ignores n: still three questions"
is "$(jq -r 'select(.body.n == null) | .body.messages[1].content | capture("(?<v>[0-9]/3)").v' "$FAKE_LOG" | sort | uniq -c | awk '{printf "%s %s ", $1, $2}')" "3 2/3 3 3/3 " \
	"an endpoint that ignores n: the separate requests are 2/3 and 3/3"
fresh
RAG_CACHE_DIR=$T/revq-cache; export RAG_CACHE_DIR
run rag rag-revq -c "$CONF" --cache rw --generations n <"$T/three.jsonl"
jq -c .questions "$OUT" >"$T/revq-n1"
run rag rag-revq -c "$CONF" --cache rw --generations n <"$T/three.jsonl"
is "$(chat_requests)" 3 "--generations n with the cache: the second run sends nothing"
jq -c .questions "$OUT" >"$T/revq-n2"
check "--generations n with the cache: the same choices come back" cmp -s "$T/revq-n1" "$T/revq-n2"
run rag rag-revq -c "$CONF" --cache rw <"$T/three.jsonl"
is "$(chat_requests)" 6 "the cache key holds n: list mode is asked anew"
unset RAG_CACHE_DIR
run rag rag-revq -c "$CONF" --generations sometimes <"$T/three.jsonl"
is "$RC" 2 "--generations sometimes: usage error"

fresh
run rag rag-revq -c "$CONF" -n 5 <"$T/three.jsonl"
is "$(field a '.questions.generated | length')" 5 "-n 5: five questions"
run rag rag-revq -c "$CONF" --n 0 <"$T/three.jsonl"
is "$RC" 2 "--n 0: usage error"

# ---------------------------------------------------------------- rag-embsim through the endpoint
fresh
run rag rag-embsim -c "$CONF" <"$T/three-q.jsonl"
is "$RC" 0 "rag-embsim: exit 0"
is "$(emb_requests)" 1 "rag-embsim: three records' texts in one request"
is "$(emb_texts)" 12 "rag-embsim: 3 questions + 9 generated questions sent"
is "$(jq -r 'select(.path | endswith("/embeddings")) | .body.model' "$FAKE_LOG")" text-embedding-3-small "rag-embsim: the default model"
is "$(jq -r 'select(.path | endswith("/embeddings")) | .auth' "$FAKE_LOG")" "Bearer test-secret-key" "rag-embsim: the key of llm by default"
is "$(jq -r '.body | has("dimensions")' "$FAKE_LOG")" false "rag-embsim: no dimensions field unless configured"
is "$(field b .scores.answer_relevancy)" 0 "rag-embsim: noncommittal scores 0"
check "rag-embsim: the others score in (0, 1], with 3 similarities each" \
	jq -se 'all(.[] | select(.id != "b"); .scores.answer_relevancy > 0 and .scores.answer_relevancy <= 1 and (.similarities.answer_relevancy | length) == 3)' "$OUT"
check "rag-embsim: the score is the mean of the similarities" \
	jq -se 'all(.[] | select(.id != "b"); (.scores.answer_relevancy - (.similarities.answer_relevancy | add / length)) | fabs < 1e-12)' "$OUT"
like "$(field c .scores.answer_relevancy)" '^0\.[0-9]+' "rag-embsim: Chinese: a value between 0 and 1"
check "rag-embsim: the Chinese texts were sent as they are" \
	jq -se 'any(.[]; .body.input | index("中国的首都是哪里？"))' "$FAKE_LOG"
like "$(cat "$ERR")" 'embedder openai:text-embedding-3-small: 1 request, 12 texts, 12 distinct, 0 from cache' "rag-embsim: the summary counts requests and texts"
cp "$OUT" "$T/three-scored.jsonl"


# the fake's vectors are computed here too: the similarity of record a's question with its
# first generated question, by hand
want=$(python3 - "$TOP/tests/fakellm.py" <<'EOF'
import importlib.util, math, sys
spec = importlib.util.spec_from_file_location("fakellm", sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
a = m.embed_vector("SECRETQUESTION When was the first Super Bowl?", 16)
b = m.embed_vector("What is said about: The first superbowl was held on Jan 15, 1967?", 16)
c = sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a)) / math.sqrt(sum(y * y for y in b))
print("%.9f" % max(0, c))
EOF
)
is "$(field a '.similarities.answer_relevancy[0] * 1e9 | round / 1e9' | xargs printf '%.9f')" "$want" "rag-embsim: the cosine of the fake's vectors, as computed by hand"

# The same input, the same requests (issue 35, item 8): a partial batch went out 200 ms after its
# first text, so a pause in the input (a slow stage upstream) made 2 requests of what --estimate
# and a quick run make 1. Now a batch goes out full, at the input's end, or with the window full
# and nothing in flight: the first record, a pause, then the rest: still 1 request, the same
# texts. (The pause is what the old timer needed to fire; the run with it must give what the run
# without it gives, so no timing can make this fail, only the old timer pass it.)
fresh
run rag rag-embsim -c "$CONF" --estimate <"$T/three-q.jsonl"
is "$(jq -c '.estimate.requests' "$OUT")" 1 "rag-embsim --estimate: 1 request for the 12 texts"
fresh
rm -f "$T/slow.fifo"
mkfifo "$T/slow.fifo"
"$BIN/rag-embsim" -c "$CONF" <"$T/slow.fifo" >"$T/slow.out" 2>"$T/slow.err" &
pid=$!
exec 7>"$T/slow.fifo"
head -n 1 "$T/three-q.jsonl" >&7
sleep 1
tail -n +2 "$T/three-q.jsonl" >&7
exec 7>&-
wait "$pid"
is "$?:$(emb_requests):$(emb_texts)" "0:1:12" "rag-embsim: the input paused after its first record: still 1 request of 12 texts"
is "$(jq -c '[.id, .scores.answer_relevancy]' "$T/slow.out")" "$(jq -c '[.id, .scores.answer_relevancy]' "$T/three-scored.jsonl")" \
	"...and the same scores"

fresh
run rag rag-embsim -c "$CONF" --model emb-m --dimensions 8 <"$T/three-q.jsonl"
is "$(jq -c 'select(.path | endswith("/embeddings")) | [.body.model, .body.dimensions]' "$FAKE_LOG")" '["emb-m",8]' \
	"--model and --dimensions go into the request"
is "$RC" 0 "--dimensions 8: exit 0"

# pair through the endpoint
fresh
printf '%s\n' '{"id":"p","answer":"Paris is the capital of France.","reference":"The capital of France is Paris."}' >"$T/pair.jsonl"
run rag rag-embsim -c "$CONF" --pair answer,reference <"$T/pair.jsonl"
is "$(jq -c '.scores.semantic_similarity' "$OUT")" 1 "--pair: same words, same bag-of-words vector: 1"

# ---------------------------------------------------------------- batching across records
i=0
: >"$T/hundred.jsonl"
while [ $i -lt 100 ]; do
	printf '{"id":"r%d","question":"What is item %d?","questions":{"generated":["What is item %d about?","Which item is number %d?","Tell me about item %d"],"noncommittal":false}}\n' $i $i $i $i $i >>"$T/hundred.jsonl"
	i=$((i + 1))
done
fresh
run rag rag-embsim -c "$CONF" <"$T/hundred.jsonl"
is "$RC" 0 "100 records: exit 0"
is "$(nlines "$OUT")" 100 "100 records: 100 lines"
is "$(emb_texts)" 400 "100 records: 400 distinct texts sent, each once"
n=$(emb_requests)
check "100 records: batched across records, 64 texts a request: 7 requests (got $n)" test "$n" -eq 7
check "100 records: no request over the batch size" jq -se 'all(.[]; (.body.input | length) <= 64)' "$FAKE_LOG"
check "100 records: every record scored" jq -se 'all(.[]; (.scores.answer_relevancy | type) == "number")' "$OUT"
is "$(jq -r .id "$OUT" | head -3 | tr '\n' ' ')" "r0 r1 r2 " "100 records: in input order"

fresh
run rag rag-embsim -c "$CONF" --batch-size 10 <"$T/hundred.jsonl"
is "$(emb_requests)" 40 "--batch-size 10: 40 requests for 400 texts"

# ---------------------------------------------------------------- dedup
i=0
: >"$T/same.jsonl"
while [ $i -lt 50 ]; do
	echo '{"question":"What is the Zed?","questions":{"generated":["What is the Zed?","Where is the Zed?","What is the Zed?"],"noncommittal":false}}' >>"$T/same.jsonl"
	i=$((i + 1))
done
fresh
run rag rag-embsim -c "$CONF" <"$T/same.jsonl"
is "$RC" 0 "repeated texts: exit 0"
is "$(emb_requests):$(emb_texts)" "1:2" "repeated texts: 50 records, 200 texts, 2 distinct: one request with 2 texts"
is "$(jq -c '.similarities.answer_relevancy | map(. * 1e9 | round / 1e9)' "$OUT" | sort -u)" "[1,$(jq -c '.similarities.answer_relevancy[1] * 1e9 | round / 1e9' "$OUT" | head -1),1]" \
	"repeated texts: every record gets its vectors back"
like "$(cat "$ERR")" '200 texts, 2 distinct' "repeated texts: the summary says 2 distinct"

# ---------------------------------------------------------------- cache
# (one fake for all: the endpoint is part of the key, and a new fake has a new port)
fresh
RAG_CACHE_DIR=$T/emb-cache; export RAG_CACHE_DIR
echo 0 >"$T/since"
# new_requests: embedding requests since the last call (kept in a file: $(...) is a subshell)
new_requests() { _n=$(emb_requests); echo $((_n - $(cat "$T/since"))); echo "$_n" >"$T/since"; }
run rag rag-embsim -c "$CONF" --cache rw <"$T/three-q.jsonl"
is "$(new_requests)" 1 "cache: the first run asks"
cp "$OUT" "$T/cache1.jsonl"
run rag rag-embsim -c "$CONF" --cache rw <"$T/three-q.jsonl"
is "$RC" 0 "cache: second run exit 0"
is "$(new_requests)" 0 "cache: the second run sends no request"
check "cache: the same scores" cmp -s "$OUT" "$T/cache1.jsonl"
like "$(cat "$ERR")" '0 requests, 12 texts, 12 distinct, 12 from cache' "cache: the summary counts the texts from the cache"
run rag rag-embsim -c "$CONF" --cache replay <"$T/three-q.jsonl"
is "$RC:$(new_requests)" "0:0" "cache replay: all found, no request"
echo '{"id":"new","question":"A new question?","questions":{"generated":["What is said about: The first superbowl was held on Jan 15, 1967?"],"noncommittal":false}}' >"$T/new.jsonl"
run rag rag-embsim -c "$CONF" --cache replay <"$T/new.jsonl"
is "$RC" 4 "cache replay, a new text: exit 4"
like "$(jq -r '.errors[0].message' "$OUT")" 'cache miss in replay mode \(1 of 2 texts' "cache replay: the error says what is missing"
is "$(new_requests)" 0 "cache replay: still no request"
run rag rag-embsim -c "$CONF" --cache rw <"$T/new.jsonl"
is "$(new_requests):$(jq -c 'select(.path | endswith("/embeddings")) | .body.input' "$FAKE_LOG" | tail -1)" '1:["A new question?"]' \
	"cache: only the text not cached is sent"
run rag rag-embsim -c "$CONF" --cache rw --model other-model <"$T/new.jsonl"
is "$(new_requests):$(jq -c 'select(.path | endswith("/embeddings")) | .body.input | length' "$FAKE_LOG" | tail -1)" 1:2 \
	"cache: another model is another key"
run rag rag-embsim -c "$CONF" --cache off <"$T/three-q.jsonl"
is "$(new_requests)" 1 "cache off: asks again"
unset RAG_CACHE_DIR

# ---------------------------------------------------------------- endpoint and key of their own
fresh
EMB_KEY=emb-secret-key; export EMB_KEY
cat >"$T/emb.yaml" <<EOF
llm:
  base_url: http://127.0.0.1:9/v1
  model: judge-x
  retries: 0
embeddings:
  base_url: $FAKE_URL/v1/
  api_key_env: EMB_KEY
  model: emb-own
EOF
_b=$RAG_BASE_URL; unset RAG_BASE_URL
run rag rag-embsim -c "$T/emb.yaml" <"$T/three-q.jsonl"
RAG_BASE_URL=$_b; export RAG_BASE_URL
is "$RC" 0 "embeddings.base_url: its own endpoint (llm's is unreachable)"
is "$(jq -r '[.path, .auth, .body.model] | join(" ")' "$FAKE_LOG")" "/v1/embeddings Bearer emb-secret-key emb-own" \
	"embeddings.api_key_env and model: its own key and model"
unlike "$(cat "$ERR")" 'emb-secret-key|test-secret-key' "the keys never show on stderr"

# ---------------------------------------------------------------- faults
# five records of 4 texts, 2 records a request (--batch-size 8)
head -5 "$T/hundred.jsonl" >"$T/five.jsonl"
fault() {  # fault PLAN DESC WANT-RC ERROR-ERE [ARGS]
	_plan=$1 _d=$2 _rc=$3 _ere=$4; shift 4
	fresh "$_plan"
	run rag rag-embsim -c "$CONF" --batch-size 8 "$@" <"$T/five.jsonl"
	is "$RC" "$_rc" "fault $_d: exit $_rc"
	is "$(nlines "$OUT")" 5 "fault $_d: one line per input line"
	is "$(jq -r .id "$OUT" | tr '\n' ' ')" "r0 r1 r2 r3 r4 " "fault $_d: in order"
	if [ -n "$_ere" ]; then
		like "$(jq -r '.errors[]?.message' "$OUT" | sort -u)" "$_ere" "fault $_d: the error says why"
	fi
}
fault '[{"status": 500}]' "http 500" 4 'endpoint answered http 500 after 1 attempt'
check "fault http 500: every score null with an error" \
	jq -se 'all(.[]; .scores.answer_relevancy == null and .similarities.answer_relevancy == null and (.errors | length) == 1 and .errors[0].tool == "rag-embsim")' "$OUT"
fault '[{"status": 400}]' "http 400" 4 'endpoint answered http 400: fake: status 400'
fault '[{"drop": true}]' "dropped connection" 4 'request failed after 1 attempt'
fault '[{"body": "this is not json"}]' "a body that is not JSON" 4 'not JSON'
fault '[{"body": {"data": "x"}}]' "no data array" 4 'no data array'
fault '[{"empty": true}]' "empty embedding list" 4 'empty data list for 8 texts'
fault '[{"few": true}]' "one vector short" 4 '7 vectors for 8 texts'
fault '[{"dims": 8}]' "wrong dimension" 4 'dimension mismatch: embedding 0 has 8 numbers, expected 16' --dimensions 16
fault '[{"dims": 8, "times": 1}]' "dimension change between requests" 4 'dimension mismatch' -j 1
is "$(jq -c '.scores.answer_relevancy | type' "$OUT" | tr '\n' ' ')" '"number" "number" "null" "null" "null" ' \
	"fault dimension change: the first request's records scored, the later ones null"
fault '[{"body": {"data": [{"index": 0, "embedding": [1]}, {"index": 1, "embedding": [1]}, {"index": 2, "embedding": []}, {"index": 3, "embedding": [1]}, {"index": 4, "embedding": [1]}, {"index": 5, "embedding": [1]}, {"index": 6, "embedding": [1]}, {"index": 7, "embedding": [1]}]}}]' "an empty vector" 4 'data\[2\]\.embedding is not a non-empty array of numbers'
fault '[{"reverse": true}]' "data in reverse order" 0 ''
jq -c '.scores' "$OUT" >"$T/rev.scores"
fresh
run rag rag-embsim -c "$CONF" --batch-size 8 <"$T/five.jsonl"
jq -c '.scores' "$OUT" >"$T/fwd.scores"
check "data in reverse order: vectors are matched by index, same scores" cmp -s "$T/rev.scores" "$T/fwd.scores"

# retries: a transient failure, then success
cat >"$T/retry.yaml" <<EOF
llm:
  model: judge-x
  timeout: 10
  retries: 2
EOF
fresh '[{"status": 503, "times": 1}, {"retry_after": 0, "times": 1}]'
run rag rag-embsim -c "$T/retry.yaml" --batch-size 8 <"$T/five.jsonl"
is "$RC" 0 "503 then 429 with Retry-After, retries 2: exit 0"
check "retries: every record scored" jq -se 'all(.[]; (.scores.answer_relevancy | type) == "number")' "$OUT"
like "$(cat "$ERR")" '2 retries' "retries: counted in the summary"

# interrupted while the requests are out: every record still gets its line, exit 130
fake_start --latency-ms 5000
"$BIN/rag-embsim" -c "$CONF" --batch-size 8 <"$T/five.jsonl" >"$T/int.out" 2>"$T/int.err" &
pid=$!
i=0
while [ "$(emb_requests)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT "$pid"
wait "$pid"
is "$?" 130 "SIGINT with requests in flight: exit 130"
is "$(nlines "$T/int.out")" 5 "SIGINT: one line per record read"
check "SIGINT: each null, with an error saying why" \
	jq -se 'all(.[]; .scores.answer_relevancy == null and (.errors[0].message | test("interrupted")))' "$T/int.out"

# rag-revq faults: null questions, errors, exit 4; rag-embsim then passes the failure on
fresh '[{"status": 500}]'
run rag rag-revq -c "$CONF" <"$T/three.jsonl"
is "$RC" 4 "rag-revq, http 500: exit 4"
is "$(nlines "$OUT")" 3 "rag-revq, http 500: one line per record"
check "rag-revq, http 500: questions null with an error" \
	jq -se 'all(.[]; .questions.generated == null and .questions.noncommittal == null and .errors[0].tool == "rag-revq")' "$OUT"
cp "$OUT" "$T/revq-failed.jsonl"
fresh
run rag rag-embsim -c "$CONF" <"$T/revq-failed.jsonl"
is "$RC:$(emb_requests)" "0:0" "rag-embsim after a failed rag-revq: exit 0, no request"
check "rag-embsim after a failed rag-revq: null, and the upstream error kept" \
	jq -se 'all(.[]; .scores.answer_relevancy == null and (.errors | length) == 2)' "$OUT"

fresh '[{"content": "no json here"}]'
run rag rag-revq -c "$CONF" <"$T/three.jsonl"
is "$RC" 4 "rag-revq, replies that are not JSON: exit 4"
is "$(chat_requests)" 6 "rag-revq, replies that are not JSON: asked again once each"
like "$(jq -r '.errors[0].message' "$OUT" | head -1)" 'did not fit, even when asked again' "rag-revq: the error says the reply did not fit"
fresh '[{"content": {"questions": ["Q?"]}}]'
run rag rag-revq -c "$CONF" <"$T/three.jsonl"
is "$RC" 4 "rag-revq, no noncommittal flag: exit 4 (never guessed)"
fresh '[{"content": {"questions": ["Q?"], "noncommittal": false}, "match": "superbowl"}]'
run rag rag-revq -c "$CONF" <"$T/three.jsonl"
is "$RC" 0 "rag-revq, one question for three asked: accepted"
is "$(jq -c '.questions.generated | length' "$OUT" | tr '\n' ' ')" "1 3 3 " "rag-revq: as many questions as the judge gave, up to N"

# ---------------------------------------------------------------- -v names the embeddings endpoint
fresh
run rag rag-embsim -c "$CONF" -v </dev/null
like "$(grep '^rag-embsim: info: ' "$ERR")" "^rag-embsim: info: embedder openai:text-embedding-3-small, endpoint $FAKE_URL/v1, config $CONF, cache off\$" \
	"rag-embsim -v: the info line names the embedder and its endpoint URL"
run rag rag-embsim -c "$CONF" -v --base-url http://127.0.0.1:9/emb </dev/null
like "$(grep '^rag-embsim: info: ' "$ERR")" 'endpoint http://127.0.0.1:9/emb,' "rag-embsim -v: --base-url is the endpoint shown"
unlike "$(cat "$ERR")" 'test-secret-key' "rag-embsim -v: the key is never shown"

done_testing
