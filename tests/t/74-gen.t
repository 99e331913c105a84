#!/bin/sh
# 74-gen.t - rag-gen: a test set from documents, against the fake judge.
#
# The fake (tests/fakellm.py, gen_reply) answers a generation prompt with one question per plan
# line, with the slot's difficulty and type, the reference the document's sentence i; with
# "DUPLICATE" in the document every question is the same. So the counts below are exact: the
# 2/2/1 mix, English and Chinese documents in their own prompt language, ids stable across runs,
# a reply that does not fit re-asked once then the chunk reported, near-duplicates dropped,
# JSON Lines chunks, the offline generator marked in every record.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-gen" ] || bail_out "bin/rag-gen is not built: run make"

judge_config gen-x
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

done_testing
