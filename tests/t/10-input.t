#!/bin/sh
# 10-input.t - the record stream: one output line per input line, in order, whatever the input;
# bad lines carry an errors entry with their position; --strict stops at the first one.
. "$(dirname "$0")/lib.sh"
need jq

good='{"id":"g1","question":"Where is the tower?","answer":"The tower is in Paris.","contexts":["The tower is in Paris."],"extra":{"n":[1,2,{"deep":true}]}}'

# ---------------------------------------------------------------- a mix of bad lines
{
	echo "$good"
	echo 'not json at all'
	echo '[1,2,3]'
	echo ''
	printf '{"id":"u1","answer":"bad \377 byte","contexts":["x"]}\n'
	echo '{"id":"m1","question":"q"}'
	echo '{"id":"t1","answer":"A is B.","contexts":5}'
	printf '{"id":"crlf","answer":"The tower is in Paris.","contexts":["The tower is in Paris."]}\r\n'
	printf '{"id":"last","answer":"The tower is in Paris.","contexts":["The tower is in Paris."]}'
} >"$T/mixed.jsonl"

run rag rag-claims -q <"$T/mixed.jsonl"
is "$RC" 3 "bad input lines: exit status 3"
is "$(nlines "$OUT")" 9 "nine input lines, nine output lines (the last one had no newline)"
check "every output line is a JSON object" jq -e 'type == "object"' "$OUT"
is "$(jq -r '.errors[0].at // "-"' "$OUT" | tr '\n' ' ')" "- <stdin>:2 <stdin>:3 <stdin>:4 <stdin>:5 <stdin>:6 - - - " \
	"errors name the line (rag-claims does not read contexts, so line 7 is fine here)"
like "$(sed -n 2p "$OUT")" 'not valid JSON' "a line that is not JSON says so"
unlike "$(sed -n 2p "$OUT")" 'not json at all' "the message does not repeat the whole line"
like "$(sed -n 3p "$OUT")" 'line is a JSON array, not an object' "an array line says so"
like "$(sed -n 4p "$OUT")" '"empty line"' "an empty line says so"
is "$(sed -n 5p "$OUT" | jq -r '.id + " " + .errors[0].message')" "u1 invalid UTF-8 (replaced with U+FFFD; record not judged)" \
	"invalid UTF-8: the record is kept, with an error"
check "invalid UTF-8: the output is valid UTF-8" sh -c "sed -n 5p '$OUT' | iconv -f UTF-8 -t UTF-8 >/dev/null"
is "$(sed -n 6p "$OUT" | jq -r '.errors[0].message')" 'record has no "answer" field' "a missing field is named"
is "$(sed -n 6p "$OUT" | jq -c '.claims.answer')" null "and its claims are null, not an empty list"
is "$(jq -r 'select(.id == "g1") | .extra | tojson' "$OUT")" '{"n":[1,2,{"deep":true}]}' "fields the tool does not own pass through"
is "$(jq -r 'select(.id == "crlf" or .id == "last") | .claims.answer | length' "$OUT" | tr '\n' ' ')" "1 1 " \
	"CRLF and a last line without newline are records like the others"
like "$(cat "$ERR")" 'rag-claims: error \(at <stdin>:2\): not valid JSON' "stderr names the line: prog: error (at <stdin>:N): ..."
is "$(grep -c 'error (at' "$ERR")" 5 "one stderr line per bad record"

# rag-verify on the output: upstream error records pass through, mistyped fields are named
cp "$OUT" "$T/claims.jsonl"
run rag rag-verify -q <"$T/claims.jsonl"
is "$RC" 3 "rag-verify on the same stream: exit 3"
is "$(nlines "$OUT")" 9 "rag-verify: nine lines"
is "$(sed -n 2p "$OUT" | jq -c '.errors | length')" 1 "an upstream error record passes through without a second complaint"
is "$(jq -r 'select(.id == "t1") | .errors[-1].message' "$OUT")" 'field "contexts" is number, not an array' "a mistyped contexts is named"
is "$(jq -r 'select(.id == "t1") | .scores.faithfulness' "$OUT")" null "and its score is null"
is "$(jq -r 'select(.id == "g1") | .scores.faithfulness' "$OUT")" 1 "good records are scored as usual"
is "$(sed -n 5p "$OUT")" "$(sed -n 5p "$T/claims.jsonl")" \
	"an invalid UTF-8 record passes through as it came: not judged, no second error entry"
run rag rag-verify <"$T/claims.jsonl"
unlike "$(cat "$ERR")" '<stdin>:5\)' "rag-verify prints no second error for the invalid UTF-8 line"
unlike "$(cat "$ERR")" 'run rag-claims first' "no hint to run rag-claims for a line rag-claims could not read"
is "$(grep -c 'error (at' "$ERR")" 1 "rag-verify on the same stream: one stderr line, for the record it reads itself (t1)"

# ---------------------------------------------------------------- a 10 MB line
{
	echo "$good"
	printf '{"id":"big","answer":"'
	head -c 10485760 /dev/zero | tr '\0' 'a'
	echo '"}'
	echo "$good"
} >"$T/big.jsonl"
run rag rag-claims -q <"$T/big.jsonl"
is "$RC" 3 "10 MB line: exit status 3"
is "$(nlines "$OUT")" 3 "10 MB line: three lines in, three out"
like "$(sed -n 2p "$OUT")" 'longer than the limit of 8388608 bytes' "the long line gets an error naming the limit"
is "$(sed -n 3p "$OUT" | jq -r .id)" g1 "the line after it is read normally"
run rag rag-claims -q --max-line 20000000 <"$T/big.jsonl"
is "$RC" 0 "--max-line raises the limit"
is "$(sed -n 2p "$OUT" | jq -r '.claims.answer | length')" 1 "and the long record is processed"

# ---------------------------------------------------------------- --strict
printf '%s\n%s\nnot json\n%s\n' "$good" "$good" "$good" >"$T/strict.jsonl"
run rag rag-claims -q --strict <"$T/strict.jsonl"
is "$RC" 3 "--strict: exit status 3"
is "$(nlines "$OUT")" 2 "--strict: the records before the bad line are written"
like "$(cat "$ERR")" '^rag-claims: error \(at <stdin>:3\): not valid JSON' "--strict: stderr names the line"

# ---------------------------------------------------------------- order and count on a longer stream
i=0
while [ $i -lt 500 ]; do
	printf '{"id":%d,"question":"What is item %d?","answer":"Item %d is red. Item %d weighs 40 kg.","contexts":["Item %d is red."]}\n' $i $i $i $i $i
	i=$((i + 1))
done >"$T/500.jsonl"
run sh -c "'$BIN/rag-claims' -q <'$T/500.jsonl' | '$BIN/rag-verify' -q"
is "$RC" 0 "500 records through the pipeline: exit 0"
is "$(jq -r .id "$OUT" | tr '\n' ' ')" "$(seq 0 499 | tr '\n' ' ')" "500 records come out in input order"
is "$(jq -c '[.verdicts.faithfulness[].verdict]' "$OUT" | sort -u | tr '\n' ' ')" "[true,false] " \
	"each has 1 of 2 claims supported, the first"

# ---------------------------------------------------------------- the progress line
run rag rag-claims <"$T/500.jsonl"
like "$(cat "$ERR")" 'rag-claims: 500 records' "stderr not a terminal: the summary line"
unlike "$(cat "$ERR")" 'records written' "stderr not a terminal: no progress line"
echo '{"answer":"A is B.","contexts":["A is B."]}' >"$T/one.jsonl"
run rag rag-claims <"$T/one.jsonl"
like "$(cat "$ERR")" '^rag-claims: 1 record, 0 input errors, 0 judge errors, 0 calls, 0 cache hits, ' \
	"one record: the summary says 1 record, in the singular"
if command -v script >/dev/null 2>&1; then
	script -qec "'$BIN/rag-claims' <'$T/500.jsonl' >'$T/tty.out'" "$T/tty.log" >/dev/null 2>&1
	like "$(cat "$T/tty.log")" 'rag-claims: [0-9]+ records? written, [0-9]+ in flight' "stderr a terminal: a progress line"
	check "the progress line is erased before the summary" grep -q "$(printf '\r\033\\[K')rag-claims: 500 records" "$T/tty.log"
	is "$(nlines "$T/tty.out")" 500 "stdout keeps only the records"
	script -qec "'$BIN/rag-claims' -q <'$T/500.jsonl' >/dev/null" "$T/tty-q.log" >/dev/null 2>&1
	unlike "$(cat "$T/tty-q.log")" 'records written' "-q: no progress line on a terminal either"
else
	skip_missing script "no terminal to test the progress line on"
fi

# ---------------------------------------------------------------- misuse
run rag rag-verify --metric nonsense </dev/null
is "$RC" 2 "a bad --metric value: exit 2"
like "$(cat "$ERR")" 'metric must be faithfulness, context_recall, context_precision, context_utilization or answer_correctness' "and the message names the choices"
run rag rag-claims extra-argument </dev/null
is "$RC" 2 "a stray argument: exit 2"
run rag rag-claims -c "$T/nonexistent.yaml" </dev/null
is "$RC" 2 "a missing -c file: exit 2"
printf 'llm:\n  modle: x\n' >"$T/typo.yaml"
run rag rag-claims -c "$T/typo.yaml" </dev/null
is "$RC" 2 "an unknown config key: exit 2"
like "$(cat "$ERR")" 'typo.yaml:2:3: unknown key "modle"' "the config error names file, line and column"
run rag rag-claims -q </dev/null
is "$RC" 0 "empty input: exit 0"
is "$(nlines "$OUT")" 0 "empty input: no output"

done_testing
