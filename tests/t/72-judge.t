#!/bin/sh
# 72-judge.t - rag-judge: rubric scores with a reason, against the fake judge.
#
# The fake (tests/fakellm.py) scores a rubric prompt from markers in the answer: "SCORE:NAME=V"
# for rubric NAME, else "SCORE=V", else the top of the scale; with "JITTER" and a request seed s,
# seeds 1, 2, 3 give V, V+1, V-1 (yes/no: yes, no, yes). So every number below is exact: the
# built-in rubrics and a custom one, the scales and their normalisation, the re-ask of a score
# that does not fit then null + error, --repeat's mean, stdev and flip, the prompt language, no
# endpoint, the replay cache, not applicable without a reference, bad lines.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-judge" ] || bail_out "bin/rag-judge is not built: run make"

judge_config judge-x
BASE_CONF=$CONF
# judge ARGS...: rag-judge with the test config
judge() { run rag rag-judge -c "$CONF" "$@"; }
# field ID JQ: a field of the output record with that id
field() { jq -c --arg id "$1" "select(.id == \$id) | $2" "$OUT"; }
# reqs JQ: over the request log; lu the last user message, sys the system message
JQDEF='def lu: [.body.messages[] | select(.role == "user")] | last | .content;
def sys: [.body.messages[] | select(.role == "system")] | first | .content;
def rubric: lu | capture("rubric \"(?<r>[^\"]+)\"|评分标准“(?<z>[^”]+)”") | (.r // .z);'
reqs() { jq -r "$JQDEF $1" "$FAKE_LOG"; }
# offline CMD...: without the fake's endpoint in the environment
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

Q='What is the capital of France?'
CTX='Paris is the capital and largest city of France.'
REF='Paris is the capital of France.'
rec() {  # rec ID ANSWER [EXTRA-JSON-MEMBERS]
	printf '{"id":"%s","question":"%s","contexts":["%s"],"answer":"%s","reference":"%s"%s}\n' \
		"$1" "$Q" "$CTX" "$2" "$REF" "${3:-}"
}

# ================================================================ the built-in rubrics
fresh
rec b1 'Paris. SCORE:correctness=8 SCORE:relevance=6 SCORE:completeness=4 SCORE:groundedness_0_10=3 SCORE:consistent=no' >"$T/b.jsonl"
rec b2 'Paris is the capital.' >>"$T/b.jsonl"
judge --rubric correctness,relevance,completeness,groundedness_0_10,consistent <"$T/b.jsonl"
is "$RC" 0 "built-in rubrics: exit 0"
is "$(nlines "$OUT")" 2 "built-in rubrics: one line per record"
is "$(field b1 '[.scores.correctness, .scores.relevance, .scores.completeness, .scores.groundedness_0_10, .scores.consistent]')" \
	'[0.8,0.6,0.4,0.3,0]' "b1: each rubric's score from its own marker, normalised (0-10: s/10, no: 0)"
is "$(field b2 '[.scores.correctness, .scores.relevance, .scores.completeness, .scores.groundedness_0_10, .scores.consistent]')" \
	'[1,1,1,1,1]' "b2: no marker, the top of each scale"
is "$(field b1 '.verdicts.correctness')" '{"score":8,"scale":"0-10","reason":"fake: rubric correctness scored 8"}' \
	"b1: verdicts.correctness is the score on the scale, the scale and the judge's reason"
is "$(field b1 '.verdicts.consistent | [.score, .scale, .pass]')" '[0,"yes/no",false]' "b1: consistent (yes/no) said no: score 0, pass false"
is "$(field b2 '.verdicts.consistent | [.score, .pass]')" '[1,true]' "b2: consistent said yes: score 1, pass true"
is "$(field b1 '.verdicts | map_values(has("repeats") or has("stdev") or has("flip")) | [.[]] | any')" false \
	"without --repeat: no repeats, stdev or flip"
is "$(field b1 '.usage["rag-judge"] | keys[0]')" '"correctness,relevance,completeness,groundedness_0_10,consistent"' \
	"usage.rag-judge.<the rubrics>"
is "$(field b1 '.usage["rag-judge"][].calls')" 5 "b1: five calls counted"
is "$(fake_requests)" 10 "one request per rubric and record"
is "$(reqs 'rubric' | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" \
	"2completeness 2consistent 2correctness 2groundedness_0_10 2relevance " "each rubric asked for each record"
# what each rubric shows the judge
is "$(reqs 'select(rubric == "correctness") | lu | [test("<<<QUESTION-"), test("<<<ANSWER-"), test("<<<REFERENCE-"), test("<<<CONTEXT-")] | map(tostring) | join(",")' | sort -u)" \
	"true,true,true,false" "correctness: question, answer and reference, no contexts"
is "$(reqs 'select(rubric == "relevance") | lu | [test("<<<QUESTION-"), test("<<<ANSWER-"), test("<<<REFERENCE-"), test("<<<CONTEXT-")] | map(tostring) | join(",")' | sort -u)" \
	"true,true,false,false" "relevance: question and answer only"
is "$(reqs 'select(rubric == "groundedness_0_10") | lu | [test("<<<QUESTION-"), test("<<<ANSWER-"), test("<<<REFERENCE-"), test("Context 1:\n<<<CONTEXT-")] | map(tostring) | join(",")' | sort -u)" \
	"true,true,false,true" "groundedness_0_10: question, contexts and answer, no reference"
# the correctness bands, as issue 11 gives them
_bands=$(reqs 'select(rubric == "correctness") | sys' | head -n 30)
for _b in '- 10: equivalent' '- 7-9: right, with minor differences' '- 4-6: partly right' '- 1-3: mostly wrong' '- 0: unrelated to the reference, or contradicting it'; do
	like "$_bands" "$_b" "correctness prompt: the band \"$_b\""
done
like "$(reqs 'select(rubric == "relevance") | sys' | head -n 20)" 'Deduct for answering another question' "relevance prompt: deducts for another question, missing parts, padding"
like "$(reqs 'select(rubric == "groundedness_0_10") | sys' | head -n 20)" 'even when it is true or common knowledge' "groundedness prompt: common knowledge counts against"
like "$(reqs 'select(rubric == "consistent") | sys' | head -n 30)" 'Scale: yes/no' "consistent prompt: the yes/no scale"
like "$(reqs 'select(rubric == "correctness") | lu' | tail -n 1)" '^Score the record against the rubric "correctness" on the scale 0-10\. Reply with JSON only: \{"score": <an integer from 0 to 10>' \
	"the prompt asks for an integer on the scale"
is "$(jq -r '.response_format.json_schema.name' "$FAKE_LOG" | sort -u)" rubric "the request carries the rubric reply's schema"
is "$(jq -c '.response_format.json_schema.schema.required' "$FAKE_LOG" | sort -u)" '["score","reason"]' "the schema requires score and reason"

# ================================================================ a custom rubric
cat >"$T/custom.yaml" <<'EOF'
llm:
  model: judge-x
  timeout: 10
  retries: 0
rubrics:
  tone:
    criteria: Is the answer polite and plain?
    scale: 1-5
    steps:
      - Read the answer.
      - Look for rude or obscure words.
    fields: [question, answer, notes]
    scores:
      1: rude
      5: polite and plain
  cites:
    criteria: Does the answer name its source?
    scale: yes/no
  correctness:
    criteria: Our own correctness, replacing the built-in one.
    fields: [answer, reference]
EOF
fresh
{ rec c1 'Paris, thank you. SCORE:tone=4 SCORE:cites=yes SCORE:correctness=9' ',"notes":"NOTE-TEXT"'
  rec c2 'Paris. SCORE:tone=1 SCORE:cites=no' ',"notes":"n"'
  rec c3 'Paris. SCORE:tone=7' ',"notes":"n"'
  rec c4 'Paris.'; } >"$T/c.jsonl"
run rag rag-judge -c "$T/custom.yaml" --rubric tone,cites,correctness <"$T/c.jsonl"
is "$RC" 4 "custom rubrics: exit 4 (c3's score 7 is not on 1-5; c4 has no notes: 3 too, 4 wins)"
is "$(field c1 '[.scores.tone, .verdicts.tone.score, .verdicts.tone.scale, .scores.cites, .verdicts.cites.pass, .scores.correctness]')" \
	'[0.75,4,"1-5",1,true,0.9]' "c1: tone 4 on 1-5 is 0.75; cites yes; the config's correctness"
is "$(field c2 '[.scores.tone, .scores.cites, .verdicts.cites.pass]')" '[0,0,false]' "c2: tone 1 is 0, cites no"
is "$(field c3 '[.scores.tone, .verdicts.tone]')" '[null,null]' "c3: a score off the 1-5 scale twice: null"
like "$(field c3 '.errors[] | select(.metric == "tone") | .message')" 'did not fit, even when asked again: \\"score\\" 7 is out of the scale 1-5' \
	"c3: the error says the score is off the scale"
is "$(field c4 '[.scores.tone, (.errors[] | select(.metric == "tone") | .message)]')" '[null,"record has no \"notes\" field (rubric \"tone\" reads it)"]' \
	"c4: a field the rubric reads is missing: null and an input error"
_tone=$(reqs 'select(rubric == "tone" and (lu | contains("NOTE-TEXT"))) | sys')
like "$_tone" 'Criteria:
Is the answer polite and plain\?' "custom prompt: the criteria"
like "$_tone" 'Evaluation steps:
1\. Read the answer\.
2\. Look for rude or obscure words\.' "custom prompt: the evaluation steps, numbered"
like "$_tone" 'Score descriptions:
- 1: rude
- 5: polite and plain' "custom prompt: the score descriptions"
like "$(reqs 'select(rubric == "tone" and (lu | contains("NOTE-TEXT"))) | lu')" 'notes:
<<<NOTES-[0-9a-f]{8}
NOTE-TEXT' "custom prompt: the notes field in its own block"
is "$(reqs 'select(rubric == "correctness") | lu | [test("<<<QUESTION-"), test("<<<REFERENCE-")] | map(tostring) | join(",")' | sort -u)" \
	"false,true" "a config rubric of a built-in's name replaces it (its fields: answer, reference)"
unlike "$(reqs 'select(rubric == "cites") | sys' | head -n 1)" 'Evaluation steps' "no steps: no steps section"

# config errors: FILE:LINE:COL
cfg_err() {  # cfg_err DESC WANT-ERE YAML
	printf 'llm:\n  model: judge-x\nrubrics:\n%s\n' "$3" >"$T/bad.yaml"
	run rag rag-judge -c "$T/bad.yaml" --rubric correctness </dev/null
	is "$RC" 2 "config: $1: exit 2"
	like "$(cat "$ERR")" "$2" "config: $1: the message names the place"
}
cfg_err "unknown key" 'bad\.yaml:5:5: unknown key "critera" in rubric "x" \(did you mean "criteria"\?\)' '  x:
    critera: y'
cfg_err "bad scale" 'bad\.yaml:6:12: "scale" of rubric "x" must be one of 0-10, 1-5, yes/no, not "1-10"' '  x:
    criteria: y
    scale: 1-10'
cfg_err "a score off the scale" 'bad\.yaml:7:7: score "6" of rubric "x" is not on its scale 1-5' '  x:
    criteria: y
    scores:
      6: too high
    scale: 1-5'
cfg_err "no criteria" 'bad\.yaml:4:3: rubric "x" has no "criteria"' '  x:
    scale: 1-5'
cfg_err "a bad name" 'bad\.yaml:4:3: rubric name "a b" must be' '  a b:
    criteria: y'
cfg_err "steps not a list of strings" 'bad\.yaml:7:9: "steps" must be a list of strings, not a list of mappings' '  x:
    criteria: y
    steps:
      - a: b'
# a rubric may not take the name of another tool's score: it would write scores.NAME over that
# metric's (and gate.record.NAME would gate both), silently. Every metric rag-verify, rag-kw
# (and their --precision-recall halves) and rag-embsim write, as their option tables list them.
cfg_err "a metric's name" 'bad\.yaml:4:3: rubric name "faithfulness" is taken: rag-verify writes scores\.faithfulness, which the rubric'"'"'s score would overwrite; give the rubric another name' '  faithfulness:
    criteria: y'
taken=$( { "$BIN/rag-verify" --list-options | awk -F'\t' '$1 == "--metric" { print $5 }'
	"$BIN/rag-kw" --list-options | awk -F'\t' '$1 == "--metrics" { print $5 }'
	echo answer_relevancy semantic_similarity rouge1_precision rougeLsum_recall token_f1_precision
	echo average_precision mrr r_precision precision recall hit ndcg; } | tr ' ' '\n' | grep .)
is "$(echo "$taken" | wc -l | tr -d ' ')" 31 "the names taken: rag-verify's, rag-kw's, rag-embsim's, rag-ap's (31)"
free=
for name in $taken; do
	printf 'llm:\n  model: judge-x\nrubrics:\n  %s:\n    criteria: y\n' "$name" >"$T/bad.yaml"
	"$BIN/rag-judge" -c "$T/bad.yaml" --rubric correctness </dev/null >/dev/null 2>"$T/taken.err"
	grep -q "rubric name \"$name\" is taken" "$T/taken.err" || free="$free $name"
done
is "$free" "" "every metric's name is refused as a rubric's"
printf 'llm:\n  model: judge-x\nrubrics:\n  faithfulness_tone:\n    criteria: y\n  precision_recall:\n    criteria: y\n' >"$T/ok.yaml"
run rag rag-judge -c "$T/ok.yaml" --rubric faithfulness_tone --estimate </dev/null
is "$RC" 0 "a name that only begins like a metric's is free"
run rag rag-judge -c "$CONF" --rubric nope </dev/null
is "$RC" 2 "an unknown rubric: exit 2"
like "$(cat "$ERR")" '^rag-judge: error: unknown rubric "nope" \(built in: correctness, relevance, completeness, groundedness_0_10, consistent' \
	"an unknown rubric: the message lists the built-in ones"

# ================================================================ replies that do not fit
# each: the first reply (a plan rule, once) does not fit, the re-ask gets the fake's own
bad_reply() {  # bad_reply DESC CONTENT-JSON PROBLEM-ERE [RUBRIC]
	fresh "[{\"match\": \"MARK\", \"content\": $2, \"times\": 1}]"
	rec m1 'Paris. MARK SCORE=6 SCORE:consistent=no' >"$T/m.jsonl"
	judge --rubric "${4:-correctness}" <"$T/m.jsonl"
	is "$RC $(fake_requests)" "0 2" "$1: re-asked once (2 requests), then scored: exit 0"
	is "$(field m1 ".scores[\"${4:-correctness}\"]")" "$( [ "${4:-}" = consistent ] && echo 0 || echo 0.6)" "$1: the score of the re-ask"
	like "$(reqs '[.body.messages[] | select(.role == "user")] | last | .content' | tail -n 1)" "Your reply did not fit: $3" "$1: the re-ask names the problem"
	like "$(reqs '[.body.messages[] | select(.role == "user")] | last | .content' | tail -n 1)" \
		"Answer again with JSON only: \\{\"score\": ($( [ "${4:-}" = consistent ] && echo '\"yes\" or \"no\"' || echo '<an integer from 0 to 10>')), \"reason\": \"...\"\\} with a score on the scale" \
		"$1: the re-ask shows the form of the reply"
	fresh "[{\"match\": \"MARK\", \"content\": $2}]"
	judge --rubric "${4:-correctness}" <"$T/m.jsonl"
	is "$RC $(fake_requests)" "4 2" "$1, twice: exit 4 after 2 requests"
	is "$(field m1 "[.scores[\"${4:-correctness}\"], .verdicts[\"${4:-correctness}\"], (.errors | length)]")" '[null,null,1]' \
		"$1, twice: null score and verdict, one error (never a default score)"
}
bad_reply "a score out of range" '{"score": 11, "reason": "r"}' '"score" 11 is out of the scale 0-10'
bad_reply "a negative score" '{"score": -1, "reason": "r"}' '"score" -1 is out of the scale 0-10'
bad_reply "a score in words" '{"score": "high", "reason": "r"}' '"score" is string, not a number on the scale 0-10'
bad_reply "a score as a numeral string" '{"score": "7", "reason": "r"}' '"score" is string, not a number'
bad_reply "a fractional score" '{"score": 7.5, "reason": "r"}' '"score" 7\.5 is not an integer'
bad_reply "no score" '{"reason": "r"}' '"score" is missing'
bad_reply "no reason" '{"score": 6}' '"reason" is missing or empty'
bad_reply "an empty reason" '{"score": 6, "reason": "  "}' '"reason" is missing or empty'
bad_reply "not JSON" '"Six out of ten."' '.'
bad_reply "a number for yes/no" '{"score": 1, "reason": "r"}' '"score" must be "yes" or "no"' consistent

# ================================================================ --repeat
printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\n  seed: 1\ngate:\n  record:\n    correctness: 0.75\n' >"$T/seed.yaml"
fresh
{ rec r1 'Paris. SCORE:correctness=7 JITTER'; rec r2 'Paris. SCORE:correctness=2'; rec r3 'Paris. SCORE:consistent=yes JITTER'; } >"$T/r.jsonl"
run rag rag-judge -c "$T/seed.yaml" --rubric correctness,consistent --repeat 3 <"$T/r.jsonl"
is "$RC" 0 "--repeat 3: exit 0"
is "$(fake_requests)" 18 "--repeat 3: three requests per rubric and record"
is "$(reqs '.body.seed' | sort | uniq -c | awk '{ print $1 ":" $2 }' | tr '\n' ' ')" "6:1 6:2 6:3 " "--repeat 3 with llm.seed 1: seeds 1, 2, 3"
is "$(field r1 '.verdicts.correctness | [.score, .repeats, .stdev, .flip]')" '[7,[7,8,6],1,true]' \
	"r1: mean 7 of 7, 8, 6, stdev 1; flip against gate.record.correctness 0.75 (0.8 passes, 0.7 and 0.6 fail)"
is "$(field r1 '.scores.correctness')" 0.7 "r1: scores.correctness is the normalised mean"
is "$(field r2 '.verdicts.correctness | [.score, .repeats, .stdev, .flip]')" '[2,[2,2,2],0,false]' "r2: no jitter: stdev 0, no flip"
is "$(field r3 '.verdicts.consistent | [.repeats, .pass, .flip]')" '[[1,0,1],true,true]' "r3: yes/no repeats yes, no, yes: pass (more yes), flip"
is "$(field r3 '.scores.consistent | . * 1000 | round')" 667 "r3: scores.consistent is the share of yes (2/3)"
run rag rag-judge -c "$T/seed.yaml" --rubric correctness -n 3 -t 0.6 <"$T/r.jsonl"
is "$(field r1 '.verdicts.correctness.flip')" false "--threshold 0.6 wins over the config: 0.6, 0.7, 0.8 all pass, no flip"
fresh
run rag rag-judge -c "$CONF" --rubric correctness -n 2 <"$T/r.jsonl"
is "$(field r1 '.verdicts.correctness | [has("flip"), .repeats]')" '[false,[7,7]]' "no threshold known: no flip; no seed: no jitter"
is "$(reqs '.body | has("seed")' | sort -u)" false "no llm.seed: no seed sent"
# without a seed the repeats are the same request: the cache still keeps each apart
fresh
RAG_CACHE=rw RAG_CACHE_DIR=$T/rcache run rag rag-judge -c "$CONF" --rubric relevance -n 3 <"$T/r.jsonl"
is "$RC $(fake_requests)" "0 9" "--repeat 3, no seed, cache rw: 9 requests"
is "$(find "$T/rcache" -type f | wc -l | tr -d ' ')" 9 "--repeat 3: nine cache entries (the repeat is in the key)"
RAG_CACHE=rw RAG_CACHE_DIR=$T/rcache run rag rag-judge -c "$CONF" --rubric relevance -n 3 <"$T/r.jsonl"
is "$RC $(fake_requests)" "0 9" "second run: every repeat from the cache, no request"
is "$(field r1 '.usage["rag-judge"].relevance | [.calls, .cache_hits]')" '[0,3]' "second run: three cache hits a record"
run rag rag-judge -c "$CONF" --repeat 0 </dev/null
is "$RC" 2 "--repeat 0: exit 2"
run rag rag-judge -c "$CONF" --threshold 1.5 </dev/null
is "$RC" 2 "--threshold 1.5: exit 2"

# ================================================================ the prompt's language
fresh
{ printf '%s\n' '{"id":"zh","question":"签收后多久可以退货？","answer":"签收后7天内可以无理由退货。SCORE=9","reference":"签收后7天内可以无理由退货"}'
  rec en 'Paris.'; } >"$T/lang.jsonl"
judge --rubric correctness <"$T/lang.jsonl"
is "$RC" 0 "Chinese and English records: exit 0"
is "$(field zh .scores.correctness)" 0.9 "the Chinese record scored"
_zs=$(jq -r "$JQDEF"' select(lu | contains("签收后多久")) | sys' "$FAKE_LOG")
like "$_zs" '^你是一个问答系统的严格评估者' "a Chinese question: the Chinese prompt"
like "$_zs" '10: 与参考答案等价' "the Chinese prompt: the correctness bands in Chinese"
like "$(jq -r "$JQDEF"' select(lu | contains("签收后多久")) | lu' "$FAKE_LOG")" '参考答案：
<<<REFERENCE-' "the Chinese prompt: the field labels in Chinese"
like "$(jq -r "$JQDEF"' select(lu | contains("签收后多久")) | lu' "$FAKE_LOG" | tail -n 1)" '^按评分标准“correctness”、在分数范围 0-10 内为这条记录打分' "the Chinese prompt's request line"
like "$(jq -r "$JQDEF"' select(lu | contains("capital")) | sys' "$FAKE_LOG")" '^You are a strict evaluator' "an English question: the English prompt"
fresh
judge --rubric correctness --lang zh <"$T/lang.jsonl"
like "$(jq -r "$JQDEF"' select(lu | contains("capital")) | sys' "$FAKE_LOG" | head -n 1)" '^你是一个问答系统' "--lang zh: the Chinese prompt for English text too"

# ================================================================ no endpoint
offline run rag rag-judge --rubric correctness <"$T/b.jsonl"
is "$RC" 2 "no endpoint: exit 2"
is "$(cat "$OUT")" "" "no endpoint: nothing on stdout"
like "$(cat "$ERR")" '^rag-judge: error: rag-judge needs an LLM endpoint: it has no offline judge and never invents a score' \
	"no endpoint: says it needs one"
run rag rag-judge -c "$CONF" --judge offline <"$T/b.jsonl"
is "$RC" 2 "--judge offline: exit 2"
# replay: record with the endpoint, then score from the cache with the fake gone
fresh
RAG_CACHE=rw RAG_CACHE_DIR=$T/replay run rag rag-judge -c "$CONF" --rubric correctness,relevance <"$T/b.jsonl"
cp "$OUT" "$T/recorded.jsonl"
is "$RC $(fake_requests)" "0 4" "recording for replay: 4 requests"
fake_stop
RAG_CACHE_DIR=$T/replay run rag rag-judge -c "$CONF" --cache replay --rubric correctness,relevance <"$T/b.jsonl"
is "$RC" 0 "replay from the recorded cache, the fake stopped: exit 0"
is "$(jq -c 'del(.usage)' "$OUT")" "$(jq -c 'del(.usage)' "$T/recorded.jsonl")" "replay: the same records"
is "$(jq -s '[.[].usage["rag-judge"][].cache_hits] | add' "$OUT")" 4 "replay: four cache hits"
# no endpoint at all, replay: it runs, and every miss is an error (nothing made up)
offline run rag rag-judge --cache replay --rubric correctness <"$T/b.jsonl"
is "$RC" 4 "no endpoint, --cache replay, empty cache: runs, exit 4"
is "$(nlines "$OUT")" 2 "no endpoint, replay: one line per record"
is "$(jq -c '[.scores.correctness, (.errors[0].message | startswith("cache miss in replay mode"))]' "$OUT" | sort -u)" '[null,true]' \
	"no endpoint, replay: each record null with a cache miss error"

run rag rag-judge -c "$CONF" --judge offline --cache replay <"$T/b.jsonl"
is "$RC" 2 "--judge offline --cache replay: still exit 2 (there is no offline rubric judge)"

# ================================================================ the judge grading itself
fresh
{ rec s1 'Paris.' ',"model":"judge-x"'; rec s2 'Paris.' ',"model":"judge-x"'; } >"$T/self.jsonl"
judge --rubric relevance <"$T/self.jsonl"
is "$RC" 0 "answers from the judge's own model: exit 0"
is "$(grep -c 'warning: the judge model "judge-x" also generated the answers' "$ERR")" 1 \
	"answers from the judge's own model: one warning"

# ================================================================ not applicable, bad lines
fresh
{ printf '%s\n' '{"id":"n1","question":"Q?","answer":"A. SCORE=5"}'
  printf '%s\n' 'not json'
  printf '%s\n' '{"id":"n3","question":"Q?"}'
  printf '%s\n' '{"id":"n4","question":"Q?","answer":["x"],"reference":"R"}'
  rec n5 'Paris. SCORE=4'; } >"$T/n.jsonl"
judge --rubric correctness,completeness,relevance <"$T/n.jsonl"
is "$RC" 3 "bad lines and records: exit 3"
is "$(nlines "$OUT")" 5 "one output line per input line"
is "$(jq -r '.id // "-"' "$OUT" | tr '\n' ' ')" "n1 - n3 n4 n5 " "in order"
is "$(field n1 '[.scores.correctness, .scores.completeness, .verdicts.correctness, .not_applicable, .scores.relevance, (.errors // [] | length)]')" \
	'[null,null,null,{"correctness":"no reference answer","completeness":"no reference answer"},0.5,0]' \
	"n1, no reference: correctness and completeness not applicable, no error; relevance scored"
like "$(cat "$ERR")" '5 records, 3 input errors, 1 not applicable' "the summary counts the not applicable apart"
is "$(field n3 '[.scores.relevance, (.errors[] | select(.metric == "relevance") | .message)]')" '[null,"record has no \"answer\" field (rubric \"relevance\" reads it)"]' \
	"n3: no answer: an input error"
is "$(field n4 '[.scores.correctness, (.errors[] | select(.metric == "correctness") | .message)]')" '[null,"field \"answer\" is array, not a string (rubric \"correctness\" reads it)"]' \
	"n4: a mistyped answer: an input error"
is "$(field n5 '[.scores.correctness, .scores.completeness, .scores.relevance]')" '[0.4,0.4,0.4]' "n5 scored"
is "$(fake_requests)" 4 "requests only for what could be judged (n1's relevance, n5's three)"

# ================================================================ the order asked, not the order answered
# the correctness request is answered late, so its reply arrives after relevance's: the record
# still says correctness first, in verdicts, scores and errors, byte for byte as when in order
rec o1 'Paris. SCORE:correctness=7 SCORE:relevance=5' >"$T/o.jsonl"
rec o2 'Paris is the capital.' >>"$T/o.jsonl"
fresh
judge --rubric correctness,relevance <"$T/o.jsonl"
cp "$OUT" "$T/o-inorder.jsonl"
fresh '[{"match": "the rubric \\\"correctness\\\"", "delay_ms": 400}]'
judge --rubric correctness,relevance <"$T/o.jsonl"
is "$RC" 0 "replies out of order: exit 0"
check "replies out of order: the same bytes as in order" cmp "$T/o-inorder.jsonl" "$OUT"
is "$(field o1 '[.verdicts, .scores] | map(keys_unsorted)' )" '[["correctness","relevance"],["correctness","relevance"]]' \
	"replies out of order: verdicts and scores in the order --rubric asked"
fresh '[{"match": "the rubric \\\"correctness\\\"", "delay_ms": 400, "status": 400}, {"match": "the rubric \\\"relevance\\\"", "status": 400}]'
judge --rubric correctness,relevance <"$T/o.jsonl"
is "$RC" 4 "both rubrics refused: exit 4"
is "$(field o1 '[.errors[].metric]')" '["correctness","relevance"]' "both refused, relevance first: errors in the order asked"

done_testing
