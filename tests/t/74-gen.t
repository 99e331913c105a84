#!/bin/sh
# 74-gen.t - rag-gen: a test set from documents, against the fake judge.
#
# The fake (tests/fakellm.py, gen_reply) answers a generation prompt with one question per plan
# line, with the slot's difficulty and type, the reference the document's sentence i; with
# "DUPLICATE" in the document every question is the same. So the counts below are exact: the
# 2/2/1 mix, English and Chinese documents in their own prompt language, ids stable across runs,
# a reply that does not fit re-asked once then the chunk reported, near-duplicates dropped,
# JSON Lines chunks, the offline generator marked in every record. Then the hard cases (their
# shares, markers and prompts; genhard_reply answers them), a follow-up's history in the judge's
# prompts and rag-collect's body, the refusal score and the gate on it, the review round trip
# (Markdown and CSV) and the test-set check.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-gen" ] || bail_out "bin/rag-gen is not built: run make"

judge_config gen-x
HARD=$T/hard.yaml
cp "$CONF" "$HARD"
# the regular cases' tests below make no hard cases; the hard cases' use $HARD, the defaults
printf 'gen:\n  unanswerable: 0\n  noisy: 0\n  multi_hop: 0\n  follow_up: 0\n' >>"$CONF"
gen() { run rag rag-gen -c "$CONF" "$@"; }
JQDEF='def lu: [.body.messages[] | select(.role == "user")] | first | .content;
def sys: [.body.messages[] | select(.role == "system")] | first | .content;'
reqs() { jq -r "$JQDEF $1" "$FAKE_LOG"; }
offline() {
	_ob=${RAG_BASE_URL:-} _ok=${RAG_API_KEY:-}
	unset RAG_BASE_URL RAG_API_KEY
	"$@"
	_ost=$?
	if [ -n "$_ob" ]; then RAG_BASE_URL=$_ob; export RAG_BASE_URL; fi
	if [ -n "$_ok" ]; then RAG_API_KEY=$_ok; export RAG_API_KEY; fi
	return $_ost
}

mkdir -p "$T/docs"
cat >"$T/docs/solar.md" <<'DOC'
# Solar panels

Solar panels convert sunlight into electricity. A typical panel has an efficiency of about 20 percent.

## Maintenance

Panels need cleaning twice a year. Dust reduces their output by up to 5 percent.
DOC
printf '# 太阳能\n\n太阳能电池板把阳光转换成电能。典型电池板的效率约为百分之二十。\n\n电池板每年需要清洁两次。灰尘会使输出降低百分之五。\n' >"$T/docs/zh.md"
printf 'Wind turbines turn wind into electricity. They work best on open plains.\n' >"$T/docs/wind.txt"
: >"$T/docs/empty.md"
cd "$T" || bail_out "no $T"

# ================================================================ English and Chinese documents
fresh
gen docs/solar.md docs/zh.md docs/wind.txt
is "$RC" 0 "three documents: exit 0"
is "$(nlines "$OUT")" 20 "4 chunks x 5 questions"
is "$(fake_requests)" 4 "one request per chunk"
is "$(jq -r '.difficulty' "$OUT" | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" "8easy 4hard 8medium " \
	"the mix: 2 easy, 2 medium, 1 hard per 5"
is "$(jq -r '.type' "$OUT" | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" "4comparative 8explanatory 8factual " \
	"the types: factual, explanatory, factual, explanatory, comparative"
is "$(jq -r '.relevant_ids[0]' "$OUT" | sort -u | sed 's/#.*//' | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" \
	"2docs/solar.md 1docs/wind.txt 1docs/zh.md " "chunk ids: the file's path and a hash (solar.md: a chunk per heading)"
is "$(jq -r '.relevant_ids[0]' "$OUT" | sort -u | wc -l | tr -d ' ')" 4 "four distinct chunk ids"
like "$(jq -r '.relevant_ids[0]' "$OUT" | head -1)" '^docs/solar\.md#[0-9a-f]{8}$' "a chunk id is PATH#8-hex-digits"
is "$(jq -r '.category' "$OUT" | sort -u | tr '\n' '|')" "Solar panels|wind.txt|太阳能|" \
	"category: the first heading, else the file's name"
is "$(jq -r '.generator' "$OUT" | sort -u)" "openai:gen-x" "generator: openai:<model>"
is "$(jq -c 'select(.source == "docs/zh.md") | .lang' "$OUT" | sort -u)" '"zh"' "the Chinese document's cases: lang zh"
is "$(jq -c '[.id, .question, .reference, .relevant_ids, .reference_contexts, .difficulty, .type, .category, .source] | map(. != null and . != "") | all' "$OUT" | sort -u)" \
	true "every case has id, question, reference, relevant_ids, reference_contexts, difficulty, type, category, source"
like "$(jq -r 'select(.source == "docs/zh.md") | .question' "$OUT" | head -1)" '关于“' "the Chinese chunk's questions in Chinese"
is "$(reqs 'select(lu | test("电池板")) | sys' | grep -c '你根据知识库')" 1 "the Chinese chunk get the Chinese prompt"
is "$(reqs 'select(lu | test("Solar")) | sys' | grep -c 'You write test questions')" 2 "the English chunks get the English prompt"
like "$(reqs 'lu' | head -40)" '1\. easy, factual' "the plan names slot 1's difficulty and type"
like "$(reqs 'lu' | head -40)" '5\. hard, comparative' "the plan names slot 5's"
like "$(reqs 'lu' | head -40)" '<<<DOCUMENT-' "the chunk goes in a fenced block"
like "$(reqs '.body.response_format | tostring' | head -1)" '"difficulty"' "the gen schema is sent as response_format"
like "$(cat "$ERR")" 'summary: 20 cases \(8 easy, 8 medium, 4 hard; 8 factual, 8 explanatory, 4 comparative\) from 4 of 4 chunks in 3 documents; 0 near-duplicates dropped' \
	"the summary counts difficulty and type from how many chunks"
jq -r '.id' "$OUT" >"$T/ids1"
is "$(sort -u "$T/ids1" | wc -l | tr -d ' ')" 20 "twenty distinct case ids"

# ---------------------------------------------------------------- stable ids across runs
gen docs/solar.md docs/zh.md docs/wind.txt
jq -r '.id' "$OUT" >"$T/ids2"
is "$(cmp -s "$T/ids1" "$T/ids2" && echo same)" same "the same documents give the same case ids on a second run"
gen --per-chunk 2 docs/wind.txt
is "$(nlines "$OUT")" 2 "--per-chunk 2: two questions"
is "$(jq -r '.difficulty' "$OUT" | tr '\n' ' ')" "easy easy " "--per-chunk 2: the first two slots of the mix"

# ---------------------------------------------------------------- a document that gives none
gen docs/empty.md docs/wind.txt
is "$RC" 0 "an empty document beside a good one: exit 0"
like "$(cat "$ERR")" '"docs/empty.md" gave no cases: it has no text' "the empty document is named, with the reason"
gen docs/empty.md
is "$RC" 3 "only an empty document: no cases, exit 3"
like "$(cat "$ERR")" 'error: no cases were made' "... and says so"
gen docs/missing.md
is "$RC" 2 "a document that cannot be opened: exit 2"

# ================================================================ a broken reply: re-asked, then reported
fresh '[{"match": "Wind turbines", "content": "not json at all", "times": 1}]'
gen docs/wind.txt
is "$RC" 0 "a broken reply then a good one: exit 0"
is "$(fake_requests)" 2 "the broken reply was re-asked once"
is "$(nlines "$OUT")" 5 "... and the re-ask's questions written"
fresh '[{"match": "Wind turbines", "few": true}]'
gen docs/wind.txt docs/solar.md
is "$RC" 4 "a chunk whose replies never fit: exit 4"
is "$(fake_requests_matching 'Wind turbines')" 2 "asked twice, no more"
is "$(jq -r '.source' "$OUT" | sort -u)" "docs/solar.md" "the other document's cases still written"
like "$(cat "$ERR")" 'chunk "docs/wind.txt#[0-9a-f]{8}" gave no cases: .*4 question\(s\) came, 5 were asked for' \
	"the chunk is reported with the reason"
like "$(cat "$ERR")" 'from 2 of 3 chunks' "the summary counts the chunks that gave cases"

# an empty list of questions fits no reply: re-asked once, then the chunk reported
fresh '[{"match": "Wind turbines", "content": "{\"questions\": []}"}]'
gen docs/wind.txt docs/solar.md
is "$RC" 4 "a chunk whose replies hold no question: exit 4"
is "$(fake_requests_matching 'Wind turbines')" 2 "...asked twice, no more"
like "$(cat "$ERR")" 'chunk "docs/wind.txt#[0-9a-f]{8}" gave no cases' "...and reported"
is "$(jq -r '.source' "$OUT" | sort -u)" "docs/solar.md" "...the other document's cases still written"

fresh '[{"match": "Wind turbines", "status": 500}]'
gen docs/wind.txt docs/solar.md
is "$RC" 4 "the endpoint fails for a chunk: exit 4"
is "$(jq -r '.source' "$OUT" | sort -u)" "docs/solar.md" "the other chunks' cases still written"
like "$(cat "$ERR")" 'chunk "docs/wind.txt#[0-9a-f]{8}" gave no cases: .*500' "the chunk is named with the endpoint's failure"

# ================================================================ near-duplicates
fresh
printf 'Alpha is the first letter. DUPLICATE marker here.\n' >docs/dup.txt
printf 'Beta is the second letter. DUPLICATE too.\n' >docs/dup2.txt
gen docs/dup.txt docs/dup2.txt
is "$RC" 0 "near-duplicates: exit 0"
is "$(nlines "$OUT")" 1 "ten identical questions from two chunks: one kept"
like "$(cat "$ERR")" '9 near-duplicates dropped' "the summary says how many were dropped"
like "$(cat "$ERR")" 'chunk "docs/dup2.txt#[0-9a-f]{8}" gave no cases: every question was a near-duplicate' \
	"the chunk whose questions were all dropped is named"
gen --dedup 1 docs/dup.txt
is "$(nlines "$OUT")" 1 "--dedup 1 still drops exact duplicates"

# ================================================================ JSON Lines chunks
printf '%s\n' '{"id":"kb-1","text":"Hydro power uses falling water to turn turbines.","category":"hydro"}' \
	'{"text":"no id here"}' '{"id":"kb-2","text":"Geothermal plants use heat from the earth."}' >chunks.jsonl
gen --chunks chunks.jsonl -n 1
is "$RC" 3 "a chunk line without an id: exit 3, the others done"
is "$(jq -r '.relevant_ids[0]' "$OUT" | tr '\n' ' ')" "kb-1 kb-2 " "the chunks' own ids are the relevant ids"
is "$(jq -r '.category' "$OUT" | tr '\n' ' ')" "hydro chunks.jsonl " "category: the chunk's, else the file"
like "$(cat "$ERR")" 'chunks.jsonl:2\) no "id"' "the bad line is named by its position"
gen --chunks chunks.jsonl -n 1 --category energy
is "$(jq -r '.category' "$OUT" | sort -u)" energy "--category sets every case's"

# ================================================================ --estimate
fresh
gen --estimate docs/solar.md
is "$RC" 0 "--estimate: exit 0"
is "$(fake_requests)" 0 "--estimate sends nothing"
is "$(jq -r '.estimate.requests' "$OUT")" 2 "--estimate counts one request per chunk"

run rag rag-gen -c "$HARD" --estimate docs/solar.md docs/zh.md docs/wind.txt
is "$(jq -r '.estimate.requests' "$OUT")" 12 "--estimate with hard cases: a request a chunk and one a hard case (4 + 8)"
is "$(fake_requests)" 0 "... and sends nothing"
gen --estimate --chunks chunks.jsonl
is "$RC" 3 "--estimate over a chunks file with a bad line: exit 3"
gen -q docs/empty.md docs/wind.txt
like "$(cat "$ERR")" '"docs/empty.md" gave no cases' "-q: the warning still shows"
unlike "$(cat "$ERR")" 'summary:' "-q: no summary"
gen docs/solar.md
unlike "$(cat "$OUT" "$ERR")" 'test-secret-key' "the API key is nowhere in the output or messages"

# ================================================================ offline
offline run rag rag-gen --cache off docs/solar.md docs/zh.md
is "$RC" 0 "offline: exit 0"
is "$(jq -r '.generator' "$OUT" | sort -u)" offline "offline: every record says generator offline"
is "$(jq -r '.reference' "$OUT" | head -1)" "Solar panels convert sunlight into electricity." "offline: a sentence of the chunk is the reference"
is "$(jq -r '.question' "$OUT" | head -1)" 'What does the document say about "Solar panels convert..."?' "offline: the question by the stated rule"
is "$(jq -r 'select(.source == "docs/solar.md") | .question' "$OUT" | sed -n 2p)" 'What does the document say about A typical panel?' \
	"offline: the subject before a verb of being or having"
like "$(jq -r 'select(.source == "docs/zh.md") | .question' "$OUT" | head -1)" '^文档中关于' "offline: Chinese questions for a Chinese document"
like "$(cat "$ERR")" 'notice: no LLM endpoint configured: the offline extractive generator' "offline: a notice says so"
like "$(cat "$ERR")" 'generator offline' "offline: the summary names the generator"

# ================================================================ hard cases, asked of the model
fresh
run rag rag-gen -c "$HARD" docs/solar.md docs/zh.md docs/wind.txt
is "$RC" 0 "hard cases: exit 0"
is "$(jq -r '.kind // "regular"' "$OUT" | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" \
	"2follow_up 2multi_hop 2noisy 20regular 2unanswerable " "the default shares, 0.1 of 20 cases: two of each kind"
is "$(fake_requests)" 12 "one request a chunk, one a hard case"
like "$(cat "$ERR")" 'hard cases: 2 unanswerable, 2 noisy, 2 multi-hop, 2 follow-up' "the summary counts each kind"
is "$(jq -c 'select(.kind == "unanswerable") | [.expect, .reference, .relevant_ids]' "$OUT" | sort -u)" '["refusal",null,null]' \
	"unanswerable: expect refusal, no reference, no relevant_ids"
is "$(jq -r 'select(.kind == "unanswerable") | .question' "$OUT" | sort -u | tr '\n' '|')" \
	"What is the warranty period of Solar panels convert?|“太阳能电池板”的保修期是多久？|" "unanswerable: the model's questions, the Chinese chunk's in Chinese"
check "noisy: the case it rewords keeps its reference and relevant ids" jq -se '
	(map(select(.kind == null)) | INDEX(.id)) as $base | map(select(.kind == "noisy"))
	| length == 2 and all(.variant_of as $v | $base[$v] != null and .reference == $base[$v].reference
	                      and .relevant_ids == $base[$v].relevant_ids and .question != $base[$v].question)' "$OUT"
check "multi-hop: two distinct chunk ids and both texts" jq -se '
	map(select(.kind == "multi_hop")) | length == 2 and all((.relevant_ids | length) == 2 and .relevant_ids[0] != .relevant_ids[1]
	and (.reference_contexts | length) == 2 and (.reference | length) > 0)' "$OUT"
check "follow-up: a history of one turn, a question and a reference" jq -se '
	map(select(.kind == "follow_up")) | length == 2 and all((.history | length) == 1 and (.history[0].question | length) > 0
	and (.history[0].answer | length) > 0 and (.question | IN("And what else does it say about that?", "那它还说了什么？"))
	and (.reference | length) > 0)' "$OUT"
is "$(reqs 'select(lu | test("follow_up")) | lu' | grep -c '<<<QUESTION-')" 2 "the follow-up prompt carries the first question in a block"
like "$(reqs 'select(lu | test("种类（Kind）")) | sys' | grep -c '困难测试用例')" '^[1-9]' "a Chinese chunk's hard case gets the Chinese prompt"
is "$(reqs 'select(lu | test("Kind: ")) | sys' | grep -c 'You write one hard test case')" "$(reqs 'select(lu | test("Kind: ")) | 1' | wc -l | tr -d ' ')" \
	"an English chunk's, the English prompt"
is "$(reqs 'select(lu | test("Kind: multi_hop")) | lu' | grep -c '<<<DOCUMENT-')" 4 "a multi-hop prompt carries two documents"
jq -r '.id' "$OUT" >"$T/hids1"
is "$(sort -u "$T/hids1" | wc -l | tr -d ' ')" 28 "28 distinct ids"
cp "$OUT" "$T/hard.jsonl"
run rag rag-gen -c "$HARD" docs/solar.md docs/zh.md docs/wind.txt
is "$(jq -r '.id' "$OUT" | cmp -s - "$T/hids1" && echo same)" same "the hard cases' ids are stable across runs"

run rag rag-gen -c "$HARD" --unanswerable 0.25 --noisy 0 --multi-hop 0 --follow-up 0 docs/solar.md docs/zh.md docs/wind.txt
is "$(jq -r '.kind // "regular"' "$OUT" | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" "20regular 5unanswerable " \
	"--unanswerable 0.25 of 20: five; 0 for the others: none"
printf 'llm:\n  model: gen-x\n  timeout: 10\n  retries: 0\ngen:\n  noisy: 0.15\n  unanswerable: 0\n  multi_hop: 0\n  follow_up: 0\n' >"$T/noisy.yaml"
run rag rag-gen -c "$T/noisy.yaml" docs/solar.md docs/zh.md docs/wind.txt
is "$(jq -r '.kind // "regular"' "$OUT" | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" "3noisy 20regular " \
	"gen.noisy 0.15 in the config: three"
run rag rag-gen -c "$HARD" --noisy 1.5 docs/wind.txt
is "$RC" 2 "--noisy above 1: exit 2"
run rag rag-gen -c "$HARD" --per-chunk 1 --multi-hop 0.5 --unanswerable 0 --noisy 0 --follow-up 0 docs/wind.txt docs/zh.md
like "$(cat "$ERR")" 'warning: fewer multi-hop cases than their share asks: no two chunks share a term' \
	"no pair of chunks for a multi-hop case: a warning says why"
fresh '[{"match": "Kind: noisy", "content": "{\"question\": \"\", \"reference\": \"\"}"}]'
run rag rag-gen -c "$HARD" --unanswerable 0 --multi-hop 0 --follow-up 0 docs/wind.txt
is "$RC" 4 "a hard case whose reply never fits: exit 4"
like "$(cat "$ERR")" 'a noisy case gave none: .*no "question" text' "... named with the reason"
is "$(jq -r '.kind // "regular"' "$OUT" | sort -u)" regular "the regular cases are still written"

# ---------------------------------------------------------------- hard cases offline
# (./rag.yaml, read without -c, sets the shares to 0: the flags set them back)
SHARES="--unanswerable 0.1 --noisy 0.1 --multi-hop 0.1 --follow-up 0.1"
offline run rag rag-gen --cache off $SHARES docs/solar.md docs/zh.md docs/wind.txt
is "$RC" 0 "offline hard cases: exit 0"
is "$(jq -r 'select(.kind) | .kind' "$OUT" | tr '\n' ' ')" "unanswerable noisy multi_hop follow_up " "offline: one of each kind, by the rules"
is "$(jq -r 'select(.kind) | .generator' "$OUT" | sort -u)" offline "offline: the hard cases say generator offline"
is "$(jq -r 'select(.kind == "unanswerable") | .question' "$OUT")" "Who invented Solar panels, and in which year?" \
	"offline unanswerable: an attribute no chunk names"
is "$(jq -r 'select(.kind == "noisy") | .question' "$OUT")" 'hey quick q - what does the dcoument say abut "solar panels convert..."??' \
	"offline noisy: seeded typos and a colloquial opening"
is "$(jq -r 'select(.kind == "multi_hop") | .question' "$OUT")" 'What do "Solar panels" and "Maintenance" each say about percent?' \
	"offline multi-hop: two sections and the term they share"
is "$(jq -r 'select(.kind == "follow_up") | [.question, .history[0].answer, .reference] | join("|")' "$OUT")" \
	"And what does it say right after that?|Solar panels convert sunlight into electricity.|A typical panel has an efficiency of about 20 percent." \
	"offline follow-up: what the chunk says after the first turn's answer"
printf '# 风能\n\n风力发电机把风能转换成电能。风力发电机在开阔的平原上效果最好。\n' >docs/zhwind.md
offline run rag rag-gen --cache off $SHARES --unanswerable 0.5 --noisy 0.5 docs/zh.md docs/zhwind.md
like "$(jq -r 'select(.kind == "unanswerable") | .question' "$OUT" | head -1)" '^太阳能.*(发明|保修|价格|专利)' "offline: a Chinese unanswerable question"
like "$(jq -r 'select(.kind == "noisy") | .question' "$OUT" | head -1)" '^(请问一下|hi，想问下|那个)' "offline: a Chinese noisy question"
is "$(jq -r 'select(.kind == "multi_hop") | .relevant_ids | length' "$OUT")" 2 "offline: Chinese chunks paired by shared characters"

# ================================================================ a follow-up's history in the judge's prompts
fresh
jq -c 'select(.kind == "follow_up") | .answer = "It says a typical panel is 20 percent efficient." | .contexts = [.reference_contexts[0]]' \
	"$T/hard.jsonl" | head -1 >"$T/fu.jsonl"
run rag rag-claims -c "$CONF" <"$T/fu.jsonl"
is "$RC" 0 "rag-claims on a follow-up case: exit 0"
like "$(reqs 'lu')" 'Earlier turns of this conversation:' "the judge's prompt has the earlier turns"
is "$(reqs 'lu' | grep -cF "Q: $(jq -r '.history[0].question' "$T/fu.jsonl")")" 1 "... with the first question"
like "$(reqs 'lu')" 'The question now: And what else' "... then the question"
fresh
run rag rag-judge -c "$CONF" --rubric correctness <"$T/fu.jsonl"
like "$(reqs 'lu')" 'Earlier turns of this conversation:' "rag-judge's rubric prompt has them too"
fresh
printf '%s\n' '{"id":"z","question":"那它有多高效？","history":[{"question":"太阳能电池板做什么？","answer":"把阳光转换成电能。"}],"answer":"效率约为百分之二十。","contexts":["典型电池板的效率约为百分之二十。"]}' >"$T/fuzh.jsonl"
run rag rag-claims -c "$CONF" <"$T/fuzh.jsonl"
like "$(reqs 'lu')" '此前的对话：' "a Chinese follow-up: the turns labelled in Chinese"
FAKE_SERVER=fakerag.py
fresh
run rag rag-collect --url "$FAKE_URL/ask" <"$T/fu.jsonl"
check "rag-collect's default body sends the history" jq -se '.[0].body | (.history | length) == 1 and (.question | test("what else"))' "$FAKE_LOG"
FAKE_SERVER=fakellm.py

# ================================================================ refusal: scored and gated
cat >"$T/ref.jsonl" <<'EOF'
{"id":"u1","question":"Who invented solar panels?","expect":"refusal","answer":"I don't know: the documents do not say who invented them."}
{"id":"u2","question":"Who invented solar panels?","expect":"refusal","answer":"Thomas Edison invented solar panels in 1901."}
{"id":"u3","question":"太阳能电池板是谁发明的？","expect":"refusal","answer":"资料中没有相关信息。"}
{"id":"a1","question":"What do panels convert?","reference":"Panels convert sunlight into electricity.","answer":"Panels convert sunlight into electricity."}
EOF
run rag rag-kw -m refusal,keyword_overlap <"$T/ref.jsonl"
is "$RC" 0 "rag-kw -m refusal: exit 0"
is "$(jq -c '.scores.refusal' "$OUT" | tr '\n' ' ')" "1 0 1 null " "a refusal scores 1, an invented answer 0 (English and Chinese); an answerable case: null"
is "$(jq -r '.not_applicable.refusal // "-"' "$OUT" | tail -1)" "an answerable case (no expect: refusal)" "... and refusal is not applicable to it"
is "$(jq -c '.scores.keyword_overlap' "$OUT" | tr '\n' ' ')" "null null null 1 " "keyword_overlap is not applicable to the unanswerable cases"
like "$(jq -r '.not_applicable.keyword_overlap' "$OUT" | head -1)" 'unanswerable case' "... saying why"
is "$(jq -r '.errors | length' "$OUT" | sort -u)" 0 "no errors entry"
like "$(cat "$ERR")" '4 not applicable' "the summary counts them"
cp "$OUT" "$T/ref.scored"
run rag rag-gate -r refusal=1 <"$T/ref.scored"
is "$RC" 1 "rag-gate -r refusal=1: the invented answer fails the gate"
grep -v '"u2"' "$T/ref.scored" >"$T/ref.ok"
run rag rag-gate -r refusal=1 -t refusal=1 <"$T/ref.ok"
is "$RC" 0 "... and without it the gate passes, the answerable case left out"
fresh
run rag rag-revq -c "$CONF" <"$T/ref.jsonl"
is "$(jq -r '.not_applicable.answer_relevancy // "-"' "$OUT" | head -3 | sort -u)" 'an unanswerable case (expect: refusal): its right answer declines' \
	"answer relevancy is not applicable to an unanswerable case"
is "$(fake_requests)" 1 "... and rag-revq asks the judge only about the answerable one"
run rag rag-verify -c "$CONF" --metric answer_correctness <"$T/ref.jsonl"
is "$(jq -r '.not_applicable.answer_correctness // "-"' "$OUT" | head -1)" 'an unanswerable case (expect: refusal): its right answer declines' \
	"answer_correctness is not applicable to it either"
run rag rag-eval -c "$CONF" -o "$T/ev" --dry-run -m faithfulness,refusal "$T/ref.jsonl"
like "$(tr -d '\\\n' <"$OUT")" 'rag-kw -q -c [^|]* -m refusal' "rag-eval -m refusal runs rag-kw -m refusal"
jq -c '.contexts = ["Solar panels convert sunlight into electricity."]' "$T/ref.jsonl" >"$T/ref.ctx.jsonl"
offline run rag rag-eval -o "$T/ev" -m faithfulness,answer_relevancy,context_precision,context_recall,refusal \
	"$T/ref.ctx.jsonl"
is "$RC" 1 "rag-eval offline over unanswerable and answerable cases: exit 1, u2's invented answer fails the gate by default"
is "$(jq -c '[.id, .scores.refusal, .not_applicable.context_precision != null, .not_applicable.answer_relevancy != null, (.errors | length)]' \
	"$T/ev/records.jsonl" | tr '\n' ' ')" \
	'["u1",1,true,true,0] ["u2",0,true,true,0] ["u3",1,true,true,0] ["a1",null,false,false,0] ' \
	"rag-eval: refusal scored, the answer metrics not applicable to the unanswerable cases, no error"
like "$(cat "$T/ev/gate.txt")" 'refusal +3 +1 +0 +0\.667' "the summary's refusal row (gate.txt: the closing screen is short): 3 computed, 1 n/a, mean 0.667"

# ================================================================ the review round trip
fresh
run rag rag-gen -c "$HARD" --review "$T/sheet.md" docs/solar.md docs/zh.md docs/wind.txt
is "$RC" 0 "--review: exit 0"
cp "$OUT" "$T/set.jsonl"
is "$(grep -c '^| keep | ' "$T/sheet.md")" 28 "the Markdown sheet: one row a case, each keep"
like "$(sed -n '/^| action/p' "$T/sheet.md")" '^\| action \| id \| kind \| question \| reference \|$' "... under its header"
D1=$(sed -n 1p "$T/set.jsonl" | jq -r .id)
F1=$(sed -n 2p "$T/set.jsonl" | jq -r .id)
K3=$(sed -n 3p "$T/set.jsonl" | jq -r .id)
awk -v d="$D1" -v f="$F1" 'BEGIN { FS = " [|] "; OFS = " | " }
	index($0, "| keep | " d " ") == 1 { sub(/^\| keep/, "| drop") }
	index($0, "| keep | " f " ") == 1 { sub(/^\| keep/, "| fix"); $4 = "How efficient is a typical panel \\| really?"; $5 = "About 20 percent. |" }
	{ print }' "$T/sheet.md" >"$T/edited.md"
run rag rag-gen --apply-review "$T/edited.md" "$T/set.jsonl"
is "$RC" 0 "--apply-review: exit 0"
is "$(nlines "$OUT")" 27 "the dropped case left out"
is "$(jq -r --arg d "$D1" 'select(.id == $d) | .id' "$OUT")" "" "... by its id"
is "$(jq -r --arg f "$F1" 'select(.revised_from == $f) | [.question, .reference, .reviewed] | join("#")' "$OUT")" \
	"How efficient is a typical panel | really?#About 20 percent.#fix" "the fixed case rewritten, an escaped | read back"
isnt "$(jq -r --arg f "$F1" 'select(.revised_from == $f) | .id' "$OUT")" "$F1" "... with a new id"
is "$(jq -r --arg k "$K3" 'select(.id == $k) | .reviewed' "$OUT")" keep "an unchanged case keeps its id"
like "$(cat "$ERR")" 'review: 26 kept, 1 dropped, 1 fixed, 0 not in the sheet' "the summary says what changed"
sed '0,/| regular | Question 1 (/s//| regular | Question one (/' "$T/sheet.md" >"$T/bad1.md"
run rag rag-gen --apply-review "$T/bad1.md" "$T/set.jsonl"
is "$RC" 3 "an edited row left at keep: exit 3"
like "$(cat "$ERR")" 'bad1.md:[0-9]+: the case "gen-[0-9a-f]+" is edited but its action is keep' "... named by its line"
awk 'NR == 8 { sub(/^\| keep/, "| maybe") } { print }' "$T/sheet.md" >"$T/bad2.md"
run rag rag-gen --apply-review "$T/bad2.md" "$T/set.jsonl"
is "$RC" 3 "an unknown action: exit 3"
like "$(cat "$ERR")" 'bad2.md:8: the action "maybe" is not keep, drop or fix' "... at its line"
awk 'NR == 9 { sub(/ \| regular \| /, " | ") } { print }' "$T/sheet.md" >"$T/bad3.md"
run rag rag-gen --apply-review "$T/bad3.md" "$T/set.jsonl"
like "$(cat "$ERR")" 'bad3.md:9: 4 cells, 5 expected' "a row with a cell missing: its line"
run rag rag-gen --apply-review "$T/sheet.md"
is "$RC" 2 "--apply-review without the TESTSET: exit 2"

offline run rag rag-gen --cache off $SHARES --review "$T/sheet.csv" docs/solar.md docs/zh.md
is "$(head -1 "$T/sheet.csv")" "action,id,kind,question,reference" "the CSV sheet's header"
cp "$OUT" "$T/set2.jsonl"
is "$(($(nlines "$T/sheet.csv") - 1))" "$(nlines "$T/set2.jsonl")" "one row a case"
Z=$(jq -r 'select(.lang == "zh" and .kind == null) | .id' "$T/set2.jsonl" | head -1)
U=$(jq -r 'select(.kind == "unanswerable") | .id' "$T/set2.jsonl")
sed -e "s/^keep,\"$U\"/drop,\"$U\"/" -e "s/^keep,\"$Z\",regular,\"[^\"]*\"/fix,\"$Z\",regular,\"电池板的效率是多少？\"/" "$T/sheet.csv" >"$T/edited.csv"
run rag rag-gen --apply-review "$T/edited.csv" "$T/set2.jsonl"
is "$RC" 0 "CSV: --apply-review exit 0"
is "$(jq -r 'select(.kind == "unanswerable") | .id' "$OUT")" "" "CSV: the dropped unanswerable case left out"
is "$(jq -r --arg z "$Z" 'select(.revised_from == $z) | .question' "$OUT")" "电池板的效率是多少？" "CSV: a Chinese question fixed"
sed '3s/^keep,/perhaps,/' "$T/sheet.csv" >"$T/bad.csv"
run rag rag-gen --apply-review "$T/bad.csv" "$T/set2.jsonl"
like "$(cat "$ERR")" 'bad.csv: row 3: the action is not keep, drop or fix' "CSV: a bad action named by its row"

# ================================================================ the test-set check
run rag rag-gen --check "$T/set.jsonl"
is "$RC" 0 "--check on a set of 28 with every kind: exit 0, nothing found"
like "$(cat "$OUT")" 'kind: .*regular 20' "it counts by kind"
like "$(cat "$OUT")" 'difficulty: .*easy ' "... by difficulty"
like "$(cat "$OUT")" '0 duplicate\(s\), 0 missing a reference, 0 missing relevant ids, 0 warning\(s\)' "... and says nothing is missing"
run rag rag-gen --check "$T/set.jsonl" --json
is "$(jq -c '[.cases, .kind.unanswerable, .kind.noisy, .kind.multi_hop, .kind.follow_up]' "$OUT")" '[28,2,2,2,2]' \
	"--json: the counts as one object"
{ sed -n '1,3p' "$T/set.jsonl"; sed -n 1p "$T/set.jsonl"; sed -n 2p "$T/set.jsonl" | jq -c 'del(.reference) | .id = "noref" | .question = "Nothing like the others at all, truly"'
  sed -n 3p "$T/set.jsonl" | jq -c 'del(.relevant_ids) | .id = "noids" | .question = "Something else entirely different here"'; } >"$T/bad.jsonl"
run rag rag-gen --check "$T/bad.jsonl" --json
is "$RC" 1 "--check on a set with problems: exit 1"
is "$(jq -c '[.duplicates, .missing_reference, .missing_relevant_ids]' "$OUT")" \
	"[[[\"$D1\",\"$D1\"]],[\"noref\"],[\"noids\"]]" "a duplicate, a missing reference, missing relevant ids"
is "$(jq -r '.warnings | join("|")' "$OUT")" "only 6 case(s): fewer than 20 says little|no unanswerable case|no noisy case|no follow_up case" \
	"warnings: a small set, no unanswerable, noisy or follow-up case"
run rag rag-gen --check "$T/bad.jsonl"
like "$(cat "$OUT")" 'missing reference: "noref"' "the text report names the case"
run rag rag-gen --check "$T/missing.jsonl"
is "$RC" 3 "--check of a file that cannot be read: exit 3"
run rag rag-gen --check "$T/set.jsonl" docs/solar.md
is "$RC" 2 "--check with operands: exit 2"

done_testing
