#!/bin/sh
# 47-eval.t - rag-eval: the test set formats (JSON Lines, a JSON array, pretty JSON, CSV, stdin)
# give the same records; broken files are named by line and column; the run directory holds
# what rag-eval(1) says, every record its run_id, run.json no secret; --dry-run prints the
# command that runs (run through sh, it gives the same records) and changes nothing; --resume
# after a SIGKILL of the whole run equals an uninterrupted run; --baseline last; the metrics
# table; exit statuses. The offline judge throughout.
#
# Collecting runs the real rag-collect: in command mode against a small shell "RAG chain" that
# answers each record from its reference (0.2 s a record), and, for make demo, in HTTP mode
# against the demonstration's RAG service (share/examples/rag_service.py).
. "$(dirname "$0")/lib.sh"

need jq
[ -x "$BIN/rag-eval" ] || bail_out "bin/rag-eval is not built: run make"
EX=$TOP/share/examples/example.jsonl

printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  mean:\n    faithfulness: 0.5\n' >"$T/rag.yaml"
C=$T/rag.yaml
printf 'llm:\n  provider: offline\ncache:\n  mode: off\n' >"$T/none.yaml"
# records without run-specific fields, sorted by id, for comparing runs
norm() { jq -S -c 'del(.latency_ms)' "$1" | LC_ALL=C sort; }

# ---------------------------------------------------------------- input formats
head -n 4 "$EX" >"$T/set.jsonl"
jq -s '.' "$T/set.jsonl" >"$T/set.json"
jq '.' "$T/set.jsonl" >"$T/pretty.json"            # several objects, each across lines
{
	printf '\357\273\277id,question,answer,reference,category,contexts\r\n'
	jq -r '[.id, .question, .answer, .reference, .category, (.contexts | tojson)] | @csv' "$T/set.jsonl" \
		| sed 's/$/\r/'
} >"$T/set.csv"
for f in set.jsonl set.json pretty.json set.csv; do
	run rag rag-eval -q -c "$C" -m faithfulness,keyword_overlap --run-id fmt -o "$T/run-$f" "$T/$f"
	is "$RC" 0 "$f: exit status 0"
done
is "$(nlines "$T/run-set.jsonl/records.jsonl")" 4 "JSON Lines: one record a line"
is "$(norm "$T/run-set.json/records.jsonl")" "$(norm "$T/run-set.jsonl/records.jsonl")" "a JSON array gives the same records"
is "$(norm "$T/run-pretty.json/records.jsonl")" "$(norm "$T/run-set.jsonl/records.jsonl")" "pretty JSON gives the same records"
is "$(norm "$T/run-set.csv/records.jsonl")" "$(norm "$T/run-set.jsonl/records.jsonl")" \
	"CSV (BOM, CRLF, quoted fields, a JSON contexts column) gives the same records"
is "$(jq -r '.format' "$T/run-set.csv/run.json")" csv "run.json names the format detected"
run rag rag-eval -q -c "$C" -m faithfulness,keyword_overlap --run-id fmt -o "$T/run-stdin" - <"$T/set.json"
is "$RC" 0 "stdin (-): exit status 0"
is "$(jq -c '[.id, .scores.keyword_overlap]' "$T/run-stdin/records.jsonl")" \
	"$(jq -c '[.id, .scores.keyword_overlap]' "$T/run-set.json/records.jsonl")" "stdin gives the same records"

# CSV in Chinese, ids given to records without one, a record without a reference not applicable
printf 'question,answer,reference,category\n长城有多长？,长城全长约两万公里。,长城全长约两万一千公里。,地理\n天空是什么颜色？,蓝色。,,常识\n' >"$T/zh.csv"
run rag rag-eval -q -c "$T/none.yaml" -m keyword_overlap -o "$T/run-zh" "$T/zh.csv"
is "$RC" 0 "Chinese CSV: exit status 0"
is "$(jq -r '.id' "$T/run-zh/records.jsonl" | tr '\n' ' ')" "case-1 case-2 " "records without an id are case-N"
is "$(jq -r '.category' "$T/run-zh/records.jsonl" | head -n 1)" "地理" "Chinese text intact"
is "$(jq -c 'has("reference")' "$T/run-zh/records.jsonl" | tr '\n' ' ')" "true false " \
	"an empty reference cell is no reference (absent, not \"\")"

# an id that repeats is refused, named with both lines (--resume skipped every later case with
# it, --baseline paired one of them); so is a given id equal to a case-N the reader makes
printf 'id,question,answer,must_contain\nd,q,7 days,"[""7""]"\ne,q,no,\nd,q,no,\n' >"$T/dup.csv"
run rag rag-eval -q -c "$T/none.yaml" -m contains -o "$T/run-dup" "$T/dup.csv"
is "$RC" 3 "a repeated id: exit status 3"
is "$(cat "$ERR")" "rag-eval: error: $T/dup.csv:4: id \"d\" repeats line 2" "...named, with both lines, even with -q"
check "...and no run directory is made" test ! -e "$T/run-dup"
printf '{"question":"q","answer":"a"}\n{"id":"case-1","question":"r","answer":"b"}\n' >"$T/made.jsonl"
run rag rag-eval -q -c "$T/none.yaml" -m keyword_overlap -o "$T/run-made" "$T/made.jsonl"
is "$RC" 3 "a given id equal to the case-N of a record without an id: exit status 3"
like "$(cat "$ERR")" "made.jsonl:2: id \"case-1\" repeats line 1 \\(the record on line 1 has no id" "...said so"
# rag-kw's lists in CSV cells are JSON
sed '4d' "$T/dup.csv" >"$T/lists.csv"
run rag rag-eval -q -c "$T/none.yaml" -m contains -o "$T/run-lists" "$T/lists.csv"
is "$(head -n 1 "$T/run-lists/records.jsonl" | jq -c '[.must_contain, .scores.contains]')" '[["7"],1]' \
	"a must_contain cell holding a JSON array is a list"

# ---------------------------------------------------------------- broken files
printf '{"id":"a","question":"q"}\n{"id":"b",\n "question": x}\n' >"$T/bad.jsonl"
printf '[\n  {"id": "a"},\n  {"id": "b"}\n' >"$T/bad.json"
printf 'question,reference\n"where,"x\n' >"$T/bad.csv"
printf 'question,reference\nq1,r1\nq2\n' >"$T/short.csv"
run rag rag-eval -q -c "$C" -o "$T/run-bad" "$T/bad.jsonl"
is "$RC" 3 "a broken JSON Lines file: exit status 3"
like "$(cat "$ERR")" "^rag-eval: error: .*bad\.jsonl:3:[0-9]+: invalid" "named FILE:LINE:COLUMN"
check "and no run directory is made" test ! -e "$T/run-bad"
run rag rag-eval -q -c "$C" -o "$T/run-bad" "$T/bad.json"
is "$RC" 3 "an unclosed JSON array: exit status 3"
like "$(cat "$ERR")" "bad\.json:4:[0-9]+: unfinished" "named at its end"
run rag rag-eval -q -c "$C" -o "$T/run-bad" "$T/bad.csv"
is "$RC" 3 "a CSV field with text after its closing quote: exit status 3"
like "$(cat "$ERR")" "bad\.csv:2:9: text after a quoted field" "named at the text"
run rag rag-eval -q -c "$C" -o "$T/run-bad" "$T/short.csv"
like "$(cat "$ERR")" "short\.csv:3:1: 1 field where the header has 2" "a short CSV row named by its line"

# ---------------------------------------------------------------- the run directory
run rag rag-eval -c "$C" --run-id dir1 -o "$T/dir1" "$EX"
is "$RC" 0 "a run over the example set passes its gate (exit 0)"
for f in records.jsonl run.json gate.txt gate.json junit.xml summary.md report.html; do
	check "the run directory has $f" test -s "$T/dir1/$f"
done
is "$(nlines "$T/dir1/records.jsonl")" "$(nlines "$EX")" "one record per test case"
is "$(jq -r '.run_id' "$T/dir1/records.jsonl" | sort -u)" dir1 "every record carries the run id"
is "$(jq -r '[.scores | keys[]] | unique | join(",")' "$T/dir1/records.jsonl" | sort -u)" \
	"answer_relevancy,context_precision,context_recall,faithfulness" "the default metrics scored"
like "$(cat "$ERR")" "PASS" "the gate's text on stderr"
like "$(cat "$ERR")" "rag-eval: info: run dir1: 10 records, 0 with errors.*$T/dir1" "one summary naming the run directory"
is "$(jq -r '[.run_id, (.started | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T")), (.ended != null), .counts.records, .gate] | @tsv' "$T/dir1/run.json")" \
	"$(printf 'dir1\ttrue\ttrue\t10\tpass')" "run.json: id, start and end, counts, the gate"
is "$(jq -r '.models.judge | join(",")' "$T/dir1/run.json")" offline "run.json: the judge model from the records' usage"
is "$(jq -r '.tools["rag-verify"]' "$T/dir1/run.json")" "$(cat "$TOP/VERSION")" "run.json: tool versions"
is "$(jq -r --arg v "$(cat "$TOP/VERSION")" '[.tools["rag-eval", "rag-gate", "rag-report"] == $v] | all' "$T/dir1/run.json")" true \
	"run.json: rag-eval's, rag-gate's and rag-report's versions too (read while the pipeline ran)"
if command -v git >/dev/null 2>&1 && git -C "$TOP" rev-parse HEAD >/dev/null 2>&1; then
	is "$(jq -r '.git.commit' "$T/dir1/run.json")" "$(git -C "$TOP" rev-parse HEAD)" "run.json: the git commit of the working directory"
	like "$(jq -r '.git.dirty' "$T/dir1/run.json")" '^(true|false)$' "run.json: its dirty flag"
else
	skip "not in a git checkout"; skip "not in a git checkout"
fi
# with no git to run (a PATH without it: rag-eval runs the tools by their paths), the fields are null
mkdir -p "$T/empty"
PATH=$T/empty "$BIN/rag-eval" -q -c "$C" -m faithfulness -o "$T/nogit" "$EX" 2>/dev/null
is "$(jq -c '.git' "$T/nogit/run.json")" '{"commit":null,"dirty":null}' "run.json: no git, null fields"
is "$(jq -r '.pass' "$T/dir1/gate.json")" true "gate.json is the gate's JSON"
if command -v xmllint >/dev/null 2>&1; then
	check "junit.xml is well-formed XML" xmllint --noout "$T/dir1/junit.xml"
else
	skip_missing xmllint
fi
like "$(head -c 300 "$T/dir1/report.html")" "<html" "report.html is the HTML report"
like "$(cat "$T/dir1/summary.md")" "faithfulness" "summary.md is the Markdown summary"
run rag rag-eval -q -c "$C" --run-id dir1 -o "$T/dir1" "$EX"
is "$RC" 2 "a directory that holds a run already: exit status 2"
like "$(cat "$ERR")" "--resume" "and the message says how to finish it"

# ---------------------------------------------------------------- secrets
printf 'llm:\n  provider: offline\n  base_url: http://user:${EVAL_PW}@127.0.0.1:9/v1\n  api_key: ${EVAL_KEY}\ncache:\n  mode: off\n' >"$T/secret.yaml"
printf 'collect:\n  url: http://127.0.0.1:9/ask\n  headers:\n    Authorization: Bearer ${EVAL_TOKEN}\nsystem:\n  top_k: 5\n' >>"$T/secret.yaml"
EVAL_PW=pw-SECRET-4711 EVAL_KEY=sk-SECRET-FILE RAG_API_KEY=sk-SECRET-ENV EVAL_TOKEN=tok-SECRET-HEADER \
	run rag rag-eval -c "$T/secret.yaml" -m keyword_overlap -o "$T/sec" "$EX"
is "$RC" 0 "a run with secrets in the configuration: exit status 0"
check "run.json has the configuration" test "$(jq -r '.config.llm.provider' "$T/sec/run.json")" = offline
is "$(jq -r '.config.llm.base_url' "$T/sec/run.json")" "http://user:***@127.0.0.1:9/v1" "a URL's password masked"
is "$(jq -r '.config.llm | has("api_key")' "$T/sec/run.json")" false "no api_key in run.json"
is "$(grep -rl 'SECRET' "$T/sec" "$OUT" "$ERR" | wc -l | tr -d ' ')" 0 "no secret anywhere in the run directory or the messages"
like "$(jq -r '.config.gate.min_pass_rate' "$T/sec/run.json")" '^1$' "run.json: the config with its defaults"
is "$(jq -c '[.config.collect.url, (.config.collect | has("headers")), .config.system.top_k]' "$T/sec/run.json")" \
	'["http://127.0.0.1:9/ask",false,5]' "run.json: collect's URL and the system settings, no headers (secrets)"

# ---------------------------------------------------------------- --dry-run
run rag rag-eval -c "$C" --run-id dry -o "$T/dry" --dry-run "$EX"
is "$RC" 0 "--dry-run: exit status 0"
check "--dry-run changes nothing" test ! -e "$T/dry"
"$BIN/rag-eval" -c "$C" --run-id mm -o "$T/mm" -m keyword_overlap --max-memory 200000 --dry-run "$EX" >"$T/mm.out" 2>&1
is "$(grep -c -- '| .*--max-memory 200000' "$T/mm.out")" 2 "--max-memory goes to every stage (rag-kw and rag-gate)"
run rag rag-eval -c "$C" --run-id dry -o "$T/dry" --dry-run "$EX"
cp "$OUT" "$T/dry.sh"
like "$(tr -d '\n' <"$T/dry.sh")" "rag-claims .*[|] .*rag-verify" "the pipeline names the stages"
like "$(cat "$T/dry.sh")" "< $EX" "with the input redirect"
like "$(tail -n 1 "$T/dry.sh")" "rag-gate .*--tee" "and ends in rag-gate --tee"
sh "$T/dry.sh" >"$T/dry.out" 2>"$T/dry.err"
is "$?" 0 "the printed command runs as printed (sh)"
run rag rag-eval -q -c "$C" --run-id dry -o "$T/dry-real" "$EX"
is "$(cat "$T/dry.out")" "$(cat "$T/dry-real/records.jsonl")" "and gives the records of the run, byte for byte"
is "$(jq -r '.pipeline' "$T/dry-real/run.json" | sed "s|$T/dry-real|DIR|g")" "$(sed "s|$T/dry|DIR|g" "$T/dry.sh")" \
	"run.json keeps the command that ran: the one --dry-run printed"

# the metrics table: stages in order, rag-ap and rag-kw metrics merged into one stage each
run rag rag-eval -c "$C" -o "$T/m" --dry-run -m mrr,context_precision,rouge1,ndcg@5,bleu "$EX"
like "$(tr -d '\\\n' <"$OUT")" "rag-verify -q -c [^|]* --chunks --metric context_precision +[|] +[^|]*rag-ap -q -c [^|]* -m mrr,ap,ndcg@5 +[|] +[^|]*rag-kw -q -c [^|]* -m rouge1,bleu" \
	"rag-verify --chunks --metric context_precision before one rag-ap -m mrr,ap,ndcg@5, one rag-kw -m rouge1,bleu"
run rag rag-eval -c "$C" -o "$T/m" --dry-run -m keyword_overlap,refusal "$EX"
like "$(tr -d '\\\n' <"$OUT")" "rag-kw -q -c [^|]* -m keyword_overlap,refusal +[|]" "refusal joins rag-kw's stage"
# a test set with an unanswerable case: with the default metrics, refusal is scored too
printf '%s\n' '{"id":"u1","question":"What is the capital of Mars?","expect":"refusal","answer":"I do not know: the documents do not say.","contexts":["Paris is the capital of France."]}' \
	'{"id":"a1","question":"What is the capital of France?","answer":"Paris.","reference":"Paris is the capital of France.","contexts":["Paris is the capital of France."]}' >"$T/unans.jsonl"
run rag rag-eval -c "$C" -o "$T/unans" "$T/unans.jsonl"
is "$(jq -c '[.id, .scores.refusal, .not_applicable.answer_relevancy != null]' "$T/unans/records.jsonl" | tr '\n' ' ')" \
	'["u1",1,true] ["a1",null,false] ' "the default metrics and an unanswerable case: refusal scored, answer_relevancy not applicable to it"
like "$(cat "$ERR")" '1 unanswerable case \(expect: refusal\): the refusal metric is scored too' "...and rag-eval says so"
run rag rag-eval -c "$C" -o "$T/unans-m" -m faithfulness "$T/unans.jsonl"
is "$(jq -c '.scores | has("refusal")' "$T/unans-m/records.jsonl" | sort -u)" true "-m given: refusal joins it all the same (49-eval-trust.t)"
run rag rag-eval -c "$C" -o "$T/m" --dry-run -m correctness,rubric:tone -j 4 "$EX"
like "$(tr -d '\\\n' <"$OUT")" "rag-judge -q -c [^|]* -j 4 --rubric correctness,tone +[|] +[^|]*rag-gate" \
	"rag-judge rubrics in one stage, a custom one as rubric:NAME, with -j"
mkdir -p "$T/nojudge"
for t in rag-eval rag-gate rag-report; do ln -s "$BIN/$t" "$T/nojudge/"; done
run rag rag-eval -q -c "$C" -o "$T/m" --bin "$T/nojudge" -m correctness "$EX"
is "$RC" 2 "a metric whose tool is not there: exit status 2"
like "$(cat "$ERR")" "rag-judge is not installed \(not in $T/nojudge\)" "named, before anything runs"
check "and no run directory is made" test ! -e "$T/m"
run rag rag-eval -c "$C" -o "$T/m" --dry-run -m faithfulness -j 3 "$EX"
like "$(cat "$OUT")" "rag-claims -q -c [^ ]+ -j 3" "-j N passed to the stages"
run rag rag-eval -c "$C" -o "$T/m" --dry-run -m faithfulnes "$EX"
is "$RC" 2 "an unknown metric: exit status 2"
like "$(cat "$ERR")" 'unknown metric "faithfulnes"' "named"
printf 'llm:\n  provider: offline\neval:\n  metrics: [keyword_overlap, token_f1]\n' >"$T/m.yaml"
run rag rag-eval -c "$T/m.yaml" -o "$T/m" --dry-run "$EX"
like "$(cat "$OUT")" "rag-kw -q -c [^ ]+ -m keyword_overlap,token_f1" "eval.metrics from the configuration"
unlike "$(cat "$OUT")" "rag-claims" "and only those"

# ---------------------------------------------------------------- lexical metrics in Chinese
# rag-eval's BLEU and ROUGE are what a user gets from rag-kw --tokenize zh on a Chinese record
# (BLEU was 0 there: 13a makes an unspaced sentence one token), and 13a's on an English record
# of the same set. By hand, zh: 8 of 9 characters, 6 of 8 bigrams, 4 of 7 trigrams, 2 of 6
# four-grams (BLEU (8/9 x 6/8 x 4/7 x 2/6)^(1/4) = 0.597, ROUGE-1 8/9).
{
	echo '{"id":"zh","question":"退货运费谁付？","answer":"退货运费由买家承担","reference":"退货运费由卖家承担","contexts":["退货运费由卖家承担。"]}'
	echo '{"id":"en","question":"Where did the cat sit?","answer":"The cat sat on the mat.","reference":"The cat sat on a mat.","contexts":["The cat sat on a mat."]}'
} >"$T/lex.jsonl"
run rag rag-eval -q -c "$T/none.yaml" -m bleu,rouge1 -o "$T/lex" "$T/lex.jsonl"
is "$RC" 0 "Chinese and English lexical metrics: exit status 0"
is "$(jq -r 'select(.id == "zh") | [.scores.bleu, .scores.rouge1] | map(. * 1e6 | round) | join(" ")' "$T/lex/records.jsonl")" \
	"$(awk 'BEGIN { printf "%d %d", exp(log(8/9 * 6/8 * 4/7 * 2/6) / 4) * 1e6 + 0.5, 8/9 * 1e6 + 0.5 }')" \
	"rag-eval on a Chinese record: BLEU and ROUGE-1 as computed by hand"
zh_kw=$(jq -c 'select(.id == "zh")' "$T/lex.jsonl" | rag rag-kw -q -m bleu,rouge1 --tokenize zh | jq -c '[.scores.bleu, .scores.rouge1]')
en_kw=$(jq -c 'select(.id == "en")' "$T/lex.jsonl" | rag rag-kw -q -m bleu,rouge1 --tokenize 13a | jq -c '[.scores.bleu, .scores.rouge1]')
is "$(jq -c '[.scores.bleu, .scores.rouge1]' "$T/lex/records.jsonl" | tr '\n' ' ')" "$zh_kw $en_kw " \
	"rag-eval on a mixed set: rag-kw --tokenize zh's numbers for the Chinese record, 13a's for the English one"

# ---------------------------------------------------------------- exit statuses, thresholds
printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  mean:\n    faithfulness: 0.99\n' >"$T/strict.yaml"
run rag rag-eval -q -c "$T/strict.yaml" -m faithfulness -o "$T/fail" "$EX"
is "$RC" 1 "a gate that fails: exit status 1"
is "$(jq -r '.pass' "$T/fail/gate.json")" false "gate.json says so"
is "$(jq -r '.gate' "$T/fail/run.json")" fail "run.json says so"
run rag rag-eval -c "$T/none.yaml" -m faithfulness -o "$T/none" "$EX"
is "$RC" 0 "no threshold configured: exit status 0"
like "$(cat "$ERR")" "no threshold is configured.*a summary, no decision" "the summary says there was no decision"
like "$(cat "$T/none/run.json")" '"gate": "summary only"' "and run.json"
run rag rag-eval -q -c "$C" -o "$T/x" "$T/nonexistent.jsonl"
is "$RC" 2 "a test set that cannot be read: exit status 2"
run rag rag-eval -q -c "$C"
is "$RC" 2 "no test set: exit status 2"
printf '\n' >"$T/empty.json"
run rag rag-eval -q -c "$C" -o "$T/x" "$T/empty.json"
is "$RC" 3 "a test set with no records: exit status 3"
like "$(cat "$ERR")" "empty.json: no records in the test set" "named"

# ---------------------------------------------------------------- --baseline last
printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  mean:\n    keyword_overlap: 0.1\neval:\n  runs_dir: runs\n' >"$T/runs.yaml"
run rag rag-eval -q -c "$T/runs.yaml" -m keyword_overlap --baseline last "$EX"
is "$RC" 2 "--baseline last with no earlier run: exit status 2"
run rag rag-eval -q -c "$T/runs.yaml" -m keyword_overlap --run-id b1 "$EX"
is "$RC" 0 "a first run into eval.runs_dir"
check "eval.runs_dir is relative to the configuration file" test -s "$T/runs/b1/records.jsonl"
sleep 1
run rag rag-eval -q -c "$T/runs.yaml" -m keyword_overlap --run-id b2 "$EX"
run rag rag-eval -c "$T/runs.yaml" -m keyword_overlap --run-id b3 --baseline last --dry-run "$EX"
like "$(cat "$OUT")" "rag-gate .*-b $T/runs/b2/records.jsonl" "--baseline last is the newest earlier run"
run rag rag-eval -q -c "$T/runs.yaml" -m keyword_overlap --run-id b3 --baseline last "$EX"
is "$RC" 0 "a run against its baseline: exit status 0"
is "$(jq -r '.baseline' "$T/runs/b3/run.json")" "$T/runs/b2" "run.json names the baseline"
like "$(cat "$T/runs/b3/gate.txt")" "baseline" "the gate compared with it"

# ---------------------------------------------------------------- collect (rag-collect, command mode)
mkdir -p "$T/bin"
for t in "$BIN"/rag-*; do ln -s "$t" "$T/bin/"; done
# while the file T/hold is there, it holds every record but those T/pass names (one id a line)
# until the file is gone: a run the test kills or signals is mid-run because the test holds it
# there, not because it is slow (on a busy machine a slow run can still win a race)
cat >"$T/my-rag" <<'EOF'
#!/bin/sh
# a RAG chain run per record (rag-collect --command): the answer and its source from the reference
T=$(dirname "$0")
in=$(cat)
if [ -e "$T/hold" ] && ! printf '%s' "$in" | jq -r .id | grep -qxF -f "$T/pass"; then
	echo held >>"$T/held"
	while [ -e "$T/hold" ]; do sleep 0.05; done
fi
printf '%s\n' "$in" | jq -c '{answer: .reference, sources: [{id: "d1", text: .reference}]}'
EOF
chmod +x "$T/my-rag"
jq -c 'del(.answer, .contexts)' "$EX" >"$T/noanswers.jsonl"
: >"$T/pass"
printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  mean:\n    faithfulness: 0.5\ncollect:\n  command: %s\n' "$T/my-rag" >"$T/collect.yaml"
run rag rag-eval -c "$T/collect.yaml" -o "$T/c" --bin "$T/bin" --dry-run "$T/noanswers.jsonl"
like "$(cat "$OUT")" "^mkdir .*--emit.*\\\\$" "the first stage is the test set"
like "$(sed -n 2p "$OUT")" "$T/bin/rag-collect -q -c " "rag-collect comes next when the records have no answers"
run rag rag-eval -c "$T/collect.yaml" -o "$T/c" --bin "$T/bin" --dry-run "$EX"
unlike "$(cat "$OUT")" "rag-collect" "no rag-collect when the records have answers"
RAG_EVAL_BIN=$T/bin run rag rag-eval -c "$T/collect.yaml" -o "$T/c" --dry-run "$T/noanswers.jsonl"
like "$(cat "$OUT")" "$T/bin/rag-collect" "RAG_EVAL_BIN names the tools' directory"

# progress on a terminal only (script(1) gives it one)
run rag rag-eval -c "$T/collect.yaml" --bin "$T/bin" -m keyword_overlap -o "$T/quiet" "$T/noanswers.jsonl"
unlike "$(cat "$ERR")" "records, [0-9.]+/s" "no progress line when standard error is not a terminal"
if command -v script >/dev/null 2>&1; then
	script -qec "'$BIN/rag-eval' -c '$T/collect.yaml' --bin '$T/bin' -m keyword_overlap -o '$T/tty' '$T/noanswers.jsonl'" \
		/dev/null </dev/null >"$T/tty.out" 2>&1
	like "$(tr '\r' '\n' <"$T/tty.out")" "^rag-eval: [0-9]+/10 records, [0-9.]+/s, 0 errors, ETA [0-9]+:[0-9]{2}" \
		"on a terminal, a progress line: done/total, rate, errors, ETA"
else
	skip_missing script "the progress line"
fi

# an uninterrupted run, then one killed halfway (rag-eval and its pipeline, SIGKILL) and resumed
run rag rag-eval -q -c "$T/collect.yaml" --bin "$T/bin" --run-id k1 -o "$T/whole" "$T/noanswers.jsonl"
is "$RC" 0 "the uninterrupted run passes"
is "$(jq -r '.answer' "$T/whole/records.jsonl" | head -n 1)" "$(head -n 1 "$EX" | jq -r '.reference')" "the answers collected"
# the first 3 records go through, the rest are held until the run has been killed
jq -r .id "$T/noanswers.jsonl" | head -n 3 >"$T/pass"
: >"$T/hold"
setsid sh -c 'echo $$ >"$0/pgid"; exec "$1/rag-eval" -q -c "$0/collect.yaml" --bin "$0/bin" --run-id k1 -o "$0/killed" "$0/noanswers.jsonl"' \
	"$T" "$BIN" >/dev/null 2>&1 &
three_scored() { [ -s "$T/killed/records.jsonl" ] && [ "$(nlines "$T/killed/records.jsonl")" -ge 3 ]; }
wait_until 120 three_scored
kill -9 "-$(cat "$T/pgid")" 2>/dev/null
wait
rm -f "$T/hold"
n=$(nlines "$T/killed/records.jsonl")
is "$n" 3 "the killed run had scored the 3 records let through, and no more"
is "$(jq -r '.ended' "$T/killed/run.json")" null "run.json of the killed run has no end"
run rag rag-eval -q --resume "$T/killed" -c "$T/collect.yaml" --bin "$T/bin"
is "$RC" 0 "--resume finishes the run: exit status 0"
is "$(jq -c 'del(.latency_ms)' "$T/killed/records.jsonl")" "$(jq -c 'del(.latency_ms)' "$T/whole/records.jsonl")" \
	"records.jsonl after --resume equals the uninterrupted run's, in order (but for latency_ms, a time)"
is "$(jq -r '.resumed_with' "$T/killed/run.json")" "$n" "run.json: how many records the resumed run had"
# the counts are summed as records come (eval_totals_line), the earlier part's read first: they
# must be the whole run's, as the uninterrupted run's are
is "$(jq -c '.counts | del(.cost)' "$T/killed/run.json")" "$(jq -c '.counts | del(.cost)' "$T/whole/run.json")" \
	"run.json's counts after --resume are the whole run's (the uninterrupted run's)"
is "$(jq -c '.pass' "$T/killed/gate.json")" true "the gate decided over the whole run"
like "$(cat "$T/killed/gate.txt")" "10 records" "gate.txt is over the whole run"
is "$(ls -A "$T/killed" | grep -c '[.]part$')" 0 "--resume leaves none of the killed run's unfinished outputs (.NAME.part)"
# gate.json and summary.md were made as the uninterrupted run's records came (eval_live_start):
# they are what rag-gate makes of its records.jsonl read after the run, byte for byte (a
# --resume with nothing left makes them so), and nothing of them is left behind
cp "$T/whole/gate.json" "$T/whole.gate.json"
cp "$T/whole/summary.md" "$T/whole.summary.md"
is "$(ls -A "$T/whole" | grep -c '[.]part$')" 0 "a run that ended well leaves no .NAME.part"
# as a run killed while its outputs were being made leaves them
for f in gate.json summary.md report.html; do echo partial >"$T/whole/.$f.part"; done
run rag rag-eval -q --resume "$T/whole" -c "$T/collect.yaml" --bin "$T/bin"
is "$RC" 0 "--resume of the finished run: exit status 0"
is "$(ls -A "$T/whole" | grep -c '[.]part$')" 0 "...and it removes the .NAME.part a killed run left, with nothing left to score"
check "gate.json made as the records came is the one made of records.jsonl after the run" \
	cmp -s "$T/whole.gate.json" "$T/whole/gate.json"
check "summary.md made as the records came is the one made of records.jsonl after the run" \
	cmp -s "$T/whole.summary.md" "$T/whole/summary.md"
run rag rag-eval -q --resume "$T/killed" -c "$T/collect.yaml" --bin "$T/bin"
is "$(nlines "$T/killed/records.jsonl")" 10 "a second --resume has nothing left to score"

# SIGTERM to rag-eval alone (a CI runner's timeout, kill PID): every stage gets it and stops.
# running() counts the processes whose command line names term.yaml (from /proc: no procps
# on a minimal system; the bracket keeps grep from finding itself)
running() { grep -ls "$(basename "$T")/ter[m][.]yaml" /proc/[0-9]*/cmdline 2>/dev/null | wc -l | tr -d ' '; }
# the RAG command notes each call: once it has been called, rag-eval has started its pipeline
printf '#!/bin/sh\necho called >>"%s/term.calls"\nexec "%s/my-rag"\n' "$T" "$T" >"$T/term-rag"
chmod +x "$T/term-rag"
printf 'llm:\n  provider: offline\ncache:\n  mode: off\ncollect:\n  command: %s\n  concurrency: 1\n' "$T/term-rag" >"$T/term.yaml"
# (the first record is held: the run is mid-run when the signal comes)
: >"$T/pass"
: >"$T/hold"
"$BIN/rag-eval" -q -c "$T/term.yaml" --bin "$T/bin" -m faithfulness -o "$T/term" "$T/noanswers.jsonl" >/dev/null 2>"$T/term.err" &
tpid=$!
wait_until 60 test -s "$T/term.calls"
before=$(running)
kill -TERM "$tpid"
wait "$tpid"
st=$?
rm -f "$T/hold"
is "$st" 143 "SIGTERM to rag-eval: exit status 143"
check "its stages were running when the signal came ($before)" test "$before" -gt 1
none_running() { [ "$(running)" = 0 ]; }
wait_until 60 none_running
is "$(running)" 0 "...and no stage of its pipeline is left running"
like "$(cat "$T/term.err")" "--resume" "...and it says how to finish the run"
is "$(ls -A "$T/term" | grep -E '^(gate[.]json|summary[.]md|report[.]html)$|[.]part$' | paste -sd, -)" "" \
	"...and no summary or report of a run cut short, made or half made as the records came"

# a stage that fails: the run says so and how to finish it
cat >"$T/bin/rag-collect.fail" <<'EOF'
#!/bin/sh
head -n 2
echo "rag-collect: error: the service is down" >&2
exit 4
EOF
chmod +x "$T/bin/rag-collect.fail"
rm "$T/bin/rag-collect" && mv "$T/bin/rag-collect.fail" "$T/bin/rag-collect"
run rag rag-eval -q -c "$T/collect.yaml" --bin "$T/bin" -o "$T/broken" "$T/noanswers.jsonl"
check "a stage that stops: the exit status is not 0 or 1 (got $RC)" test "$RC" -gt 1
like "$(cat "$ERR")" "2 of 10 records came through.*--resume" "the message names the shortfall and --resume"
# --force removes what a killed run was making as its records came (.NAME.part), as it removes the
# run's files: a run whose stage passes no record makes none of its own
for f in gate.json summary.md report.html; do echo partial >"$T/broken/.$f.part"; done
printf '#!/bin/sh\necho "rag-collect: error: the service is down" >&2\nexit 4\n' >"$T/bin/rag-collect"
run rag rag-eval -q --force -c "$T/collect.yaml" --bin "$T/bin" -o "$T/broken" "$T/noanswers.jsonl"
check "--force, then a stage that passes no record: the exit status is not 0 or 1 (got $RC)" test "$RC" -gt 1
is "$(ls -A "$T/broken" | grep -c '[.]part$')" 0 "--force removes the .NAME.part a killed run left"

# ---------------------------------------------------------------- make demo
# demo-eval.sh: the demonstration's RAG service, asked by rag-collect over HTTP
if command -v python3 >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then
	RAG_DEMO_OUT=$T/demo run sh "$TOP/share/examples/demo-eval.sh"
	is "$RC" 0 "make demo's demo-eval.sh passes its gate"
	run_dir=$(ls -d "$T"/demo/demo-* 2>/dev/null | head -n 1)
	check "the demo's run directory has the report" test -s "$run_dir/report.html"
	is "$(nlines "$run_dir/records.jsonl")" "$(jq length "$TOP/share/examples/testset.json")" "every test case scored"
	is "$(jq -r 'select(.id == "en-4") | .context_ids[0]' "$run_dir/records.jsonl")" "x200#1" \
		"the service retrieved the warranty paragraph first"
	like "$(jq -r 'select(.id == "zh-3") | .answer' "$run_dir/records.jsonl")" "九折" "a Chinese answer from the Chinese documents"
	is "$(jq -r 'select(.id == "en-4") | .scores.mrr' "$run_dir/records.jsonl")" 1 "mrr scored"
	like "$(cat "$OUT")" "rag-collect -q -c .*demo.yaml" "the demo prints the pipeline, collect first"
	python3 "$TOP/share/examples/rag_service.py" --port-file "$T/svc.port" 2>/dev/null &
	svc=$!
	i=0; while [ ! -s "$T/svc.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	r=$(curl -s -d '{"question":"What is the moon made of?"}' "http://127.0.0.1:$(cat "$T/svc.port")/ask")
	is "$(printf '%s' "$r" | jq -c '.sources')" "[]" "rag_service.py: a question no document answers has no sources"
	is "$(curl -s -o /dev/null -w '%{http_code}' -d 'not json' "http://127.0.0.1:$(cat "$T/svc.port")/ask")" 400 \
		"rag_service.py: a body that is not {\"question\"} is 400"
	kill "$svc" 2>/dev/null; wait "$svc" 2>/dev/null
else
	skip_missing python3 "the demo"
fi

done_testing
