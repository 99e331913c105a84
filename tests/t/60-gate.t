#!/bin/sh
# 60-gate.t - rag-gate: thresholds (equal passes), nulls, empty input, bad lines, categories,
# the worst records and their reasons, the baseline (alignment, missing ids, regressions, a
# reproducible bootstrap), the output formats (JSON, JUnit XML well-formed and counted,
# Markdown and text with hostile text escaped), --tee, the config's gate section.
. "$(dirname "$0")/lib.sh"
need jq

# rec ID CATEGORY FAITHFULNESS [RECALL]: a scored record (null for a null score)
rec() {
	if [ -n "${4:-}" ]; then
		printf '{"id":"%s","category":"%s","scores":{"faithfulness":%s,"context_recall":%s}}\n' "$1" "$2" "$3" "$4"
	else
		printf '{"id":"%s","category":"%s","scores":{"faithfulness":%s}}\n' "$1" "$2" "$3"
	fi
}
# js EXPR: a jq expression over the --json summary in $OUT
js() { jq -r "$1" "$OUT"; }
# a threshold every run with a score meets: a gate needs one, and the cases that give it test
# what every gate checks besides (nulls, empty runs, bad lines) or shows (statistics, reasons)
ANY="-t faithfulness=0"

# ---------------------------------------------------------------- thresholds: equal passes
{ rec a x 0.7; rec b x 0.9; } >"$T/two.jsonl"
run rag rag-gate -t faithfulness=0.8 "$T/two.jsonl"
is "$RC" 0 "a mean equal to its threshold passes (0.7 and 0.9 average to 0.8 in decimal)"
like "$(cat "$OUT")" 'PASS' "the summary says PASS"
run rag rag-gate -t faithfulness=0.8001 "$T/two.jsonl"
is "$RC" 1 "a mean just below the threshold fails: exit 1"
like "$(cat "$OUT")" 'FAIL' "the summary says FAIL"
like "$(cat "$OUT")" 'faithfulness mean 0.800 < 0.800' "the failed check is named"
run rag rag-gate -r faithfulness=0.7 "$T/two.jsonl"
is "$RC" 0 "a record score equal to its record threshold passes"
run rag rag-gate -r faithfulness=0.71 --json "$T/two.jsonl"
is "$RC" 1 "one record below its record threshold fails the default pass rate of 1"
is "$(js '[.passed, .pass_rate] | @tsv')" "1	0.5" "passed and pass rate counted"
is "$(js '.worst[0].id + ": " + .worst[0].reasons[0]')" "a: faithfulness 0.700 is below the per-record threshold 0.710" \
	"the worst record is first, with the threshold it missed"
run rag rag-gate -r faithfulness=0.71 --min-pass-rate 0.5 "$T/two.jsonl"
is "$RC" 0 "--min-pass-rate 0.5: one of two is enough (equal passes)"
run rag rag-gate -r faithfulness=0.71 --min-pass-rate 0.51 "$T/two.jsonl"
is "$RC" 1 "--min-pass-rate 0.51: one of two is not"
# nothing to gate on: a usage error, not a PASS (the mean here is 0.8, but it could be 0.1)
run rag rag-gate "$T/two.jsonl"
is "$RC:$(cat "$OUT")" "2:" "no threshold anywhere: exit 2, no summary"
like "$(cat "$ERR")" 'rag-gate: error: no threshold to gate on: give -t METRIC=MIN or -r METRIC=MIN, or gate.mean or gate.record in the configuration' \
	"and the message says how to give one"
run rag rag-gate --min-pass-rate 0.5 --max-error-rate 0.5 "$T/two.jsonl"
is "$RC" 2 "the rates alone are no threshold: exit 2"
run rag rag-gate --fail-on-regression "$T/two.jsonl"
is "$RC" 2 "--fail-on-regression without a baseline is none either"
run rag rag-gate --fail-on-regression -b "$T/two.jsonl" "$T/two.jsonl"
is "$RC" 0 "--fail-on-regression with a baseline is something to decide"
printf 'gate:\n  record:\n    faithfulness: 0.5\n' >"$T/rec.yaml"
run rag rag-gate -c "$T/rec.yaml" "$T/two.jsonl"
is "$RC" 0 "a threshold in the config's gate section is enough"
run rag rag-gate --summary-only "$T/two.jsonl"
is "$RC" 0 "--summary-only: no threshold needed, exit 0"
like "$(head -n 1 "$OUT")" '^rag-gate: SUMMARY: 2 records' "--summary-only: the verdict is SUMMARY, not PASS"
unlike "$(cat "$OUT")" 'PASS' "--summary-only: no PASS anywhere"
{ rec a x 0.1; rec b x null; } >"$T/poor.jsonl"
run rag rag-gate --summary-only --json -t faithfulness=0.9 "$T/poor.jsonl"
is "$RC:$(js '.pass'):$(js '[.checks[] | select(.pass == false)] | length')" "0:null:2" \
	"--summary-only with thresholds: the checks are shown, pass is null, exit 0"
run rag rag-gate --summary-only --markdown "$T/two.jsonl"
like "$(head -n 1 "$OUT")" ': SUMMARY$' "--summary-only --markdown: SUMMARY"

# ---------------------------------------------------------------- statistics
for i in 1 2 3 4 5 6 7 8 9 10; do rec "s$i" x "$i" | sed 's/"faithfulness":\([0-9]*\)/"faithfulness":0.\1/; s/0\.10}/1}/'; done >"$T/ten.jsonl"
run rag rag-gate $ANY --json "$T/ten.jsonl"
is "$(js '.metrics[0] | [.scored, .null] + ([.mean, .median, .min, .p10] | map(. * 1000 | round)) | @tsv')" "10	0	550	550	100	190" \
	"0.1 .. 1.0: mean 0.55, median 0.55, min 0.1, p10 0.19 (linear interpolation, type 7)"
is "$(js '.metrics[0].histogram | join(" ")')" "0 1 1 1 1 1 1 1 1 2" "histogram: ten bins of 0.1, 1.0 in the last"

# ---------------------------------------------------------------- nulls
{ rec a x 0.9; rec b x null; rec c x 0.8; } >"$T/null.jsonl"
run rag rag-gate $ANY --json "$T/null.jsonl"
is "$RC" 3 "a null score fails the gate by default, even with no threshold: an outage, exit 3 (its input)"
is "$(js '.metrics[0] | [.scored, .null] | @tsv')" "2	1" "the null is counted, not dropped"
is "$(js '.metrics[0].mean')" 0.8500000000000001 "the mean is over the scored records"
like "$(js '.checks[] | select(.pass == false) | .message')" 'faithfulness: 1 of 3 records have no score' "the check names the nulls"
is "$(js '.worst[0].id + ": " + .worst[0].reasons[0]')" "b: faithfulness is null" "the null record comes first among the worst"
run rag rag-gate $ANY --max-error-rate 0.34 "$T/null.jsonl"
is "$RC" 0 "--max-error-rate 0.34 allows 1 null in 3"
run rag rag-gate $ANY --max-error-rate 0.33 "$T/null.jsonl"
is "$RC" 3 "--max-error-rate 0.33 does not: the verdict's exit 3"
run rag rag-gate -t faithfulness=0.5 --max-error-rate 0.5 --json "$T/null.jsonl"
is "$RC:$(js '[.errored, .passed] | @tsv')" "0:1	2" "a null in a gated metric makes the record an error, not a failure"
printf '{"id":"m","scores":{}}\n{"id":"n","scores":{"faithfulness":1}}\n' >"$T/missing.jsonl"
run rag rag-gate --json -t faithfulness=0.5 "$T/missing.jsonl"
is "$RC:$(js '.metrics[0] | [.scored, .null] | @tsv')" "1:1	1" "a missing score counts as null"
printf '{"id":"s","scores":{"faithfulness":"high"}}\n' >"$T/string.jsonl"
run rag rag-gate $ANY --json "$T/string.jsonl"
is "$RC:$(js '.worst[0].reasons[0]')" "3:faithfulness is not a number" "a score that is not a number is a null too"
run rag rag-gate -t context_recall=0.5 --json "$T/two.jsonl"
is "$RC:$(js '.metrics[] | select(.metric == "context_recall") | [.scored, .null] | @tsv')" "1:0	2" \
	"a gated metric no record carries: all null, fails"

# ---------------------------------------------------------------- the exit status is the verdict's
# one decision per run: rag-gate exits with its summary's verdict.exit_status, as rag-eval does
# (it exited 0 or 1 by its checks alone). dead: a judge failed for 2 of 3 records (an errors
# entry naming no place in the record: a remote failure).
{ rec a x 0.9; for i in b c; do
	printf '{"id":"%s","scores":{"faithfulness":null},"errors":[{"tool":"rag-verify","message":"the judge failed"}]}\n' $i
done; } >"$T/dead.jsonl"
run rag rag-gate -t faithfulness=0.5 --max-error-rate 0.7 --json "$T/dead.jsonl"
is "$RC:$(js '.pass'):$(js '.verdict.exit_status')" "4:true:4" \
	"more than half not scored, within a budget of 0.7: the checks pass, the gate exits its verdict's 4 (was 0)"
run rag rag-gate -t faithfulness=0.5 --json "$T/dead.jsonl"
is "$RC:$(js '.pass'):$(js '.verdict.exit_status')" "4:false:4" "nulls beyond the budget: 4 (was 1)"
run rag rag-gate -t faithfulness=0.95 --max-error-rate 0.7 --junit "$T/dead.xml" -q "$T/dead.jsonl"
is "$RC:$(grep -c '<property name="verdict.exit_status" value="4"/>' "$T/dead.xml")" "4:1" "-q, --junit: 4, as its verdict"
run rag rag-gate --summary-only "$T/dead.jsonl"
is "$RC" 0 "--summary-only decides nothing: exit 0"
run rag rag-gate -t faithfulness=0.5 --max-error-rate 0.7 --json -o /dev/full "$T/dead.jsonl"
is "$RC" 5 "a write error is exit 5 whatever the verdict"
run rag rag-gate -t faithfulness=0.8001 --json "$T/two.jsonl"
is "$RC:$(js '.verdict.exit_status')" "1:1" "a plain failing gate: 1, as its verdict"
run rag rag-gate -t faithfulness=0.8 --json "$T/two.jsonl"
is "$RC:$(js '.verdict.exit_status')" "0:0" "a passing gate: 0, as its verdict"

# ---------------------------------------------------------------- empty input, no scores, bad lines
run rag rag-gate $ANY --json </dev/null
is "$RC" 1 "empty input fails: an empty run proves nothing"
is "$(js '.records'):$(js '.checks[0].message')" "0:no records: an empty run cannot pass" "and says why"
printf '{"id":"a"}\n' >"$T/noscores.jsonl"
run rag rag-gate $ANY "$T/noscores.jsonl"
is "$RC" 1 "records without any score fail"
like "$(cat "$OUT")" 'no record carries a number in scores' "and the summary says so"
{ rec a x 0.9; echo 'not json'; rec c x 0.9; } >"$T/bad.jsonl"
run rag rag-gate $ANY --json "$T/bad.jsonl"
is "$RC" 3 "a bad line fails the gate by default (the verdict's exit 3: a record not scored for its input)"
like "$(cat "$ERR")" "rag-gate: error \\(at $T/bad.jsonl:2\\): not valid JSON" "stderr names the file and line"
is "$(js '[.records, .unreadable, .metrics[0].null] | @tsv')" "3	1	1" "the bad line counts as a record with nulls"
run rag rag-gate $ANY --max-error-rate 0.5 "$T/bad.jsonl"
is "$RC" 0 "--max-error-rate allows it"
run rag rag-gate $ANY --strict "$T/bad.jsonl"
is "$RC" 3 "--strict: a bad line stops the gate with exit 3"
printf '{"errors":[{"tool":"rag-verify","message":"boom"}]}\n' | cat "$T/two.jsonl" - >"$T/upstream.jsonl"
run rag rag-gate $ANY --json "$T/upstream.jsonl"
is "$RC:$(js '.metrics[0].null')" "4:1" "an upstream error record counts as null (a failed stage: the verdict's exit 4)"
like "$(js '.worst[0].reasons | join(" / ")')" 'rag-verify: error: boom' "and its error is the reason"

# ---------------------------------------------------------------- files, stdin, positions
run rag rag-gate $ANY --json "$T/two.jsonl" - <"$T/ten.jsonl"
is "$(js '.records')" 12 "files and - (stdin) are one run"
run rag rag-gate $ANY "$T/no-such-file.jsonl"
is "$RC" 2 "a file that cannot be opened: exit 2"
like "$(cat "$ERR")" 'cannot open' "with a message"

# ---------------------------------------------------------------- categories
{
	rec m1 math 1.0 0.5
	rec m2 math 0.5 1.0
	rec g1 geo 0.9 0.7
	rec g2 geo null 0.8
	printf '{"id":"n1","scores":{"faithfulness":0.6,"context_recall":0.6}}\n'
} >"$T/cats.jsonl"
run rag rag-gate $ANY --json --max-error-rate 1 "$T/cats.jsonl"
is "$(js '[.categories[].category] | join(",")')" "geo,math" "categories by name (records without one are only in the totals)"
is "$(js '.categories[] | select(.category == "geo") | .metrics[] | select(.metric == "faithfulness") | [.scored, .null, .mean] | @tsv')" \
	"1	1	0.9" "per category: scored, null, mean"
is "$(js '.categories[] | select(.category == "math") | .metrics[] | select(.metric == "context_recall") | [.median, .min] | @tsv')" \
	"0.75	0.5" "per category: median, min"
is "$(js '.metrics[] | select(.metric == "faithfulness") | [.scored, .null] | @tsv')" "4	1" "totals over all records"
run rag rag-gate $ANY --max-error-rate 1 "$T/cats.jsonl"
like "$(cat "$OUT")" 'geo: 2 records' "the readable summary has the categories"

# ---------------------------------------------------------------- the worst records and their reasons
{
	printf '%s\n' '{"id":"ok","scores":{"faithfulness":1}}'
	printf '%s\n' '{"id":"lie","scores":{"faithfulness":0.25},"verdicts":{"faithfulness":[{"claim":"The moon is cheese.","verdict":false,"reason":"no"},{"claim":"Water is wet.","verdict":true,"reason":""},{"claim":"Two","verdict":false},{"claim":"Three","verdict":false},{"claim":"Four","verdict":false}]}}'
	printf '%s\n' '{"id":"fail","scores":{"faithfulness":null},"errors":[{"tool":"rag-verify","metric":"faithfulness","message":"http 500 after 4 retries"}]}'
	printf '%s\n' '{"id":"mid","scores":{"faithfulness":0.6}}'
} >"$T/worst.jsonl"
run rag rag-gate $ANY --json --worst 3 --max-error-rate 1 "$T/worst.jsonl"
is "$(js '[.worst[].id] | join(",")')" "fail,lie,mid" "the worst first: the error, then by score; --worst 3"
is "$(js '.worst[0].reasons | join(" / ")')" "faithfulness is null / rag-verify: faithfulness: error: http 500 after 4 retries" \
	"an error's reason is its message"
is "$(js '.worst[1].reasons | join(" / ")')" \
	"faithfulness: unsupported claim: The moon is cheese. / faithfulness: unsupported claim: Two / faithfulness: unsupported claim: Three / faithfulness: 1 more" \
	"unsupported claims are the reasons, three then a count"
is "$(js '.worst[1].at')" "$T/worst.jsonl:2" "each names its position"
run rag rag-gate $ANY --json --worst 0 --max-error-rate 1 "$T/worst.jsonl"
is "$(js '.worst | length')" 0 "--worst 0 lists none"

# ---------------------------------------------------------------- baseline
{ rec q1 x 0.9; rec q2 x 0.9; rec q3 x 0.5; rec q4 x 0.8; rec gone x 0.8; } >"$T/base.jsonl"
{ rec q1 x 0.9; rec q2 x 0.5; rec q3 x 0.9; rec q4 x 0.75; rec new x 0.6; echo '{"scores":{"faithfulness":1}}'; } >"$T/cur.jsonl"
run rag rag-gate $ANY --json -b "$T/base.jsonl" "$T/cur.jsonl"
is "$(js '.baseline | [.records, .matched, .only_current_count, .only_baseline_count, .records_without_id] | @tsv')" "5	4	1	1	1" \
	"aligned by id: 4 matched, 1 only here, 1 only in the baseline, 1 without an id"
is "$(js '.baseline.only_current | join(",")'):$(js '.baseline.only_baseline | join(",")')" "new:gone" "the ids present in one run only are listed"
is "$(js '.baseline.regressed | map("\(.id) \(.metric) \(.baseline) \(.current)") | join(",")')" "q2 faithfulness 0.9 0.5" \
	"regressed by more than 0.1 (q4 lost only 0.05)"
is "$(js '.baseline.improved | map(.id) | join(",")')" "q3" "improved by more than 0.1"
is "$(js '.baseline.metrics[0] | [.pairs] + ([.baseline_mean, .mean, .delta] | map(. * 10000 | round)) | @tsv')" "4	7750	7625	-125" \
	"per-metric means over the pairs, and their difference"
run rag rag-gate $ANY --json -b "$T/base.jsonl" --regression 0.01 "$T/cur.jsonl"
is "$(js '.baseline.regressed | map(.id) | join(",")')" "q2,q4" "--regression 0.01: q4 too, the biggest drop first"
run rag rag-gate $ANY -b "$T/base.jsonl" "$T/cur.jsonl"
like "$(cat "$OUT")" 'only in the baseline: gone' "the readable summary lists them"

# a real drop: 200 pairs, every one lower by 0.1 to 0.3
i=0
: >"$T/b200.jsonl"; : >"$T/c200.jsonl"
while [ $i -lt 200 ]; do
	printf '{"id":"r%d","scores":{"faithfulness":0.9}}\n' $i >>"$T/b200.jsonl"
	printf '{"id":"r%d","scores":{"faithfulness":0.%d}}\n' $i $((6 + i % 3)) >>"$T/c200.jsonl"
	i=$((i + 1))
done
run rag rag-gate $ANY --json -b "$T/b200.jsonl" --seed 7 "$T/c200.jsonl"
is "$RC" 0 "a significant drop alone does not fail the gate"
is "$(js '.baseline.metrics[0].change')" regression "but is marked a regression"
ci1=$(js '.baseline.metrics[0] | [.ci_low, .ci_high] | @tsv')
run rag rag-gate $ANY --json -b "$T/b200.jsonl" --seed 7 "$T/c200.jsonl"
is "$(js '.baseline.metrics[0] | [.ci_low, .ci_high] | @tsv')" "$ci1" "the same seed gives the same interval"
run rag rag-gate $ANY --json -b "$T/b200.jsonl" --seed 8 "$T/c200.jsonl"
isnt "$(js '.baseline.metrics[0] | [.ci_low, .ci_high] | @tsv')" "$ci1" "another seed, another interval"
is "$(js '.baseline.metrics[0] | .ci_low < .delta and .delta < .ci_high and .ci_high < 0')" true \
	"the interval holds the mean drop and lies below 0"
run rag rag-gate $ANY --json -b "$T/b200.jsonl" --seed 7 --fail-on-regression "$T/c200.jsonl"
is "$RC" 1 "--fail-on-regression: an interval wholly below 0 fails"
like "$(js '.checks[] | select(.pass == false) | .message')" 'lies wholly below 0' "and says so"
run rag rag-gate $ANY --json -b "$T/base.jsonl" --fail-on-regression "$T/cur.jsonl" --max-error-rate 1
is "$(js '.baseline.metrics[0].change'):$RC" "none:0" "a mixed change (interval across 0) does not fail"
# pinned: the interval must not move between versions or machines (seed 7, 2000 resamples)
is "$(printf '%s\n' "$ci1" | awk '{ printf "%.4f %.4f", $1, $2 }')" "-0.2120 -0.1895" "the interval is pinned (seed 7, 2000 resamples)"

# ---------------------------------------------------------------- JUnit XML
cat >"$T/hostile.jsonl" <<'EOF'
{"id":"<b>&amp;\"quote's\"]]>\u0001\u001b[31m|*_`x`","category":"c<&>","scores":{"faithfulness":0.2},"verdicts":{"faithfulness":[{"claim":"<b>&amp;\"quote's\"]]>\u0001\u001b[31m|*_`x`","verdict":false}]}}
EOF
rec fine x 0.9 0.8 >>"$T/hostile.jsonl"
printf '{"id":"nul","scores":{"faithfulness":null}}\n' >>"$T/hostile.jsonl"
run rag rag-gate -r faithfulness=0.5 --junit "$T/junit.xml" "$T/hostile.jsonl"
is "$RC" 3 "the hostile run fails (its null: exit 3)"
check "the JUnit file is well-formed XML" python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$T/junit.xml"
if command -v xmllint >/dev/null 2>&1; then
	check "xmllint agrees" xmllint --noout "$T/junit.xml"
else
	skip_missing xmllint
fi
cat >"$T/count.py" <<'EOF'
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
out = []
for s in d.getElementsByTagName("testsuite"):
    cases = s.getElementsByTagName("testcase")
    fails = sum(len(c.getElementsByTagName("failure")) for c in cases)
    errs = sum(len(c.getElementsByTagName("error")) for c in cases)
    ok = (int(s.getAttribute("tests")), int(s.getAttribute("failures")), int(s.getAttribute("errors"))) == (len(cases), fails, errs)
    out.append("%s %d %d %d %s" % (s.getAttribute("name"), len(cases), fails, errs, "ok" if ok else "MISMATCH"))
r = d.documentElement
out.append("all %s %s %s" % (r.getAttribute("tests"), r.getAttribute("failures"), r.getAttribute("errors")))
names = [c.getAttribute("name") for c in d.getElementsByTagName("testcase")]
out.append("hostile id kept: %s" % any(n.startswith('<b>&amp;"quote\'s"]]>') for n in names))
print("\n".join(out))
EOF
is "$(python3 "$T/count.py" "$T/junit.xml")" "gate 3 3 0 ok
c<&> 1 1 0 ok
x 1 0 0 ok
(no category) 1 0 1 ok
all 6 4 1
hostile id kept: True" \
	"JUnit counts: a case per gate check, a suite per category and a case per record; failures and errors right"
check "the hostile JUnit file is valid by the Jenkins JUnit schema (tests/fixtures/junit.xsd)" \
	xmllint --noout --schema "$FIXTURES/junit.xsd" "$T/junit.xml"

# a case a record, named by its id, in its category's suite; a failure says what failed and why
cat >"$T/ju.jsonl" <<'EOF'
{"id":"b1","category":"billing","question":"How long do refunds take?","latency_ms":1500,"scores":{"faithfulness":0.5,"context_precision":1},"verdicts":{"faithfulness":[{"claim":"Refunds take 5 days.","verdict":true,"reason":"supported"},{"claim":"The moon is cheese.","verdict":false,"reason":"not in any context"}]}}
{"id":"p1","category":"payment","question":"Which cards?","scores":{"faithfulness":1,"context_precision":0},"verdicts":{"context_precision":[{"chunk":"Shipping is free.","verdict":false,"reason":"off topic"}]}}
{"id":"n1","question":"Who?","scores":{"faithfulness":null,"context_precision":1},"errors":[{"tool":"rag-verify","message":"the judge failed"}]}
{"id":"b2","category":"billing","question":"Refund fee?","latency_ms":250,"scores":{"faithfulness":0.9,"context_precision":1}}
EOF
run rag rag-gate -r faithfulness=0.8 -r context_precision=0.5 --junit "$T/ju.xml" "$T/ju.jsonl"
is "$RC" 4 "JUnit run: the gate fails (a judge failed for n1: exit 4)"
check "its JUnit file is valid by the Jenkins JUnit schema" xmllint --noout --schema "$FIXTURES/junit.xsd" "$T/ju.xml"
cat >"$T/ju.py" <<'EOF'
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
for s in d.getElementsByTagName("testsuite"):
    print("suite %s time=%s:" % (s.getAttribute("name"), s.getAttribute("time")),
          " ".join("%s/%s" % (c.getAttribute("name"), c.getAttribute("time")) for c in s.getElementsByTagName("testcase")))
for c in d.getElementsByTagName("testcase"):
    for el in c.getElementsByTagName("failure") + c.getElementsByTagName("error"):
        print("%s %s: %s" % (c.getAttribute("name"), el.tagName, el.getAttribute("message")))
        for line in (el.firstChild.data.split("\n") if el.firstChild else []):
            print("  " + line)
EOF
is "$(python3 "$T/ju.py" "$T/ju.xml")" "suite gate time=0.000: nulls faithfulness/0.000 pass rate/0.000
suite billing time=1.750: b1/1.500 b2/0.250
suite payment time=0.000: p1/0.000
suite (no category) time=0.000: n1/0.000
nulls faithfulness failure: faithfulness: 1 of 4 records have no score (25.0%; max_error_rate 0%)
pass rate failure: 1 of 3 records pass (33.3%; min_pass_rate 100%)
b1 failure: faithfulness 0.500 is below the per-record threshold 0.800
  question: How long do refunds take?
  faithfulness 0.500 is below the per-record threshold 0.800
  faithfulness: unsupported claim: The moon is cheese. (not in any context)
  at $T/ju.jsonl:1
p1 failure: context_precision 0.000 is below the per-record threshold 0.500
  question: Which cards?
  context_precision 0.000 is below the per-record threshold 0.500
  context_precision: irrelevant chunk: Shipping is free. (off topic)
  at $T/ju.jsonl:2
n1 error: faithfulness is null
  question: Who?
  faithfulness is null
  error: rag-verify: the judge failed
  at $T/ju.jsonl:3" \
	"JUnit: a suite per category (first seen first, the rest in one), a case per record named by its id, its time (latency_ms); a failure: the question, value and threshold, the rejected claim or chunk with the judge's reason, where"

# ---------------------------------------------------------------- Markdown and text escaping
run rag rag-gate --markdown -r faithfulness=0.5 "$T/hostile.jsonl"
is "$RC" 3 "--markdown: exit status as ever"
unlike "$(cat "$OUT")" '<b>' "Markdown: no raw HTML from the records"
unlike "$(cat "$OUT")" "$(printf '\033')" "Markdown: no escape characters"
like "$(cat "$OUT")" '&lt;b&gt;&amp;amp;' "Markdown: HTML characters as entities"
like "$(cat "$OUT")" '\\\|\\\*\\_\\`x\\`' "Markdown: table bars and emphasis escaped"
bad=$(grep '^| ' "$OUT" | awk '{ n = gsub(/(^|[^\\])\|/, "&"); if (prev && $0 !~ /^\|---/ && n != cols) print; }
	/^\|---/ { cols = gsub(/\|/, "|"); prev = 1 } /^$/ { prev = 0 }' | head -3)
is "$bad" "" "Markdown: every row has the cells of its table (hostile bars escaped)"
run rag rag-gate -r faithfulness=0.5 "$T/hostile.jsonl"
unlike "$(cat "$OUT")" "$(printf '\033')" "text: no escape characters (not a terminal; hostile ESC shown as ?)"
like "$(cat "$OUT")" 'unsupported claim: <b>&amp;' "text: the claim is shown as written"
NO_COLOR=1 run rag rag-gate -r faithfulness=0.5 "$T/hostile.jsonl"
unlike "$(cat "$OUT")" "$(printf '\033')" "NO_COLOR: no escape characters"

# ---------------------------------------------------------------- --tee, -o, -q
jq -c . "$T/cats.jsonl" >"$T/cats.c.jsonl"
run rag rag-gate $ANY --tee --max-error-rate 1 "$T/cats.c.jsonl"
is "$RC" 0 "--tee: the gate's status"
check "--tee: the records pass through unchanged" cmp "$OUT" "$T/cats.c.jsonl"
like "$(cat "$ERR")" 'rag-gate: PASS' "--tee: the summary on stderr"
run rag rag-gate $ANY --tee --json --max-error-rate 1 -o "$T/sum.json" <"$T/cats.c.jsonl"
is "$(jq -r .pass "$T/sum.json"):$(nlines "$OUT")" "true:5" "-o FILE takes the summary, stdout the records"
run rag rag-gate $ANY -q "$T/null.jsonl"
is "$RC:$(cat "$OUT")" "3:" "-q: no summary, the status tells"

# ---------------------------------------------------------------- the config's gate section
cat >"$T/rag.yaml" <<'EOF'
gate:
  mean:
    faithfulness: 0.85
  record:
    faithfulness: 0.6
  min_pass_rate: 0.5
EOF
run rag rag-gate -c "$T/rag.yaml" --json "$T/two.jsonl"
is "$RC" 1 "config gate.mean 0.85 fails a mean of 0.8"
is "$(js '.thresholds | [.mean.faithfulness, .record.faithfulness, .min_pass_rate] | @tsv')" "0.85	0.6	0.5" "the config's thresholds are used"
run rag rag-gate -c "$T/rag.yaml" -t faithfulness=0.8 "$T/two.jsonl"
is "$RC" 0 "a flag replaces the config's threshold for its metric"
printf 'gate:\n  mean:\n    faithfulness: 1.5\n' >"$T/bad.yaml"
run rag rag-gate -c "$T/bad.yaml" "$T/two.jsonl"
is "$RC" 2 "a threshold out of range in the config: exit 2"
like "$(cat "$ERR")" 'bad.yaml:3:19: "faithfulness" must be between 0 and 1' "named with file, line, column"
printf 'gate:\n  min_pass_rat: 0.5\n' >"$T/typo.yaml"
run rag rag-gate -c "$T/typo.yaml" "$T/two.jsonl"
like "$RC $(cat "$ERR")" '^2 .*did you mean "min_pass_rate"' "a typo in the gate section is caught"

# ---------------------------------------------------------------- misuse
for args in "-t faithfulness" "-t =0.5" "-t faithfulness=1.5" "-r faithfulness=x" "--min-pass-rate 2" "--confidence 1" \
	"--json --markdown" "--resamples 0"; do
	# shellcheck disable=SC2086
	run rag rag-gate $args "$T/two.jsonl"
	is "$RC:$(cat "$OUT")" "2:" "misuse ($args): exit 2, nothing on stdout"
done

# one record: every summary says it in the singular
printf '{"id":"one","scores":{"faithfulness":0.2}}\n' >"$T/one.jsonl"
run rag rag-gate -t faithfulness=0.5 -r faithfulness=0.5 -b "$T/one.jsonl" "$T/one.jsonl"
is "$RC" 1 "one record below its thresholds: FAIL"
like "$(cat "$OUT")" 'FAIL: 1 record: 0 passed \(0\.0% of 1\), 1 failed' "text: 1 record"
like "$(cat "$OUT")" '0 of 1 record passes' "text: 0 of 1 record passes"
like "$(cat "$OUT")" 'one.jsonl: 1 record; 0 only in this run' "text: the baseline has 1 record"
like "$(cat "$OUT")" '  1 record matched by id: 0 regressed' "text: 1 record matched"
unlike "$(cat "$OUT")" '(^|[^0-9])1 records' "text: no \"1 records\""
run rag rag-gate -t faithfulness=0.5 -r faithfulness=0.5 -b "$T/one.jsonl" --markdown "$T/one.jsonl"
like "$(cat "$OUT")" '1 record: 0 passed' "Markdown: 1 record"
like "$(cat "$OUT")" '1 record matched by id' "Markdown: 1 record matched"
unlike "$(cat "$OUT")" '(^|[^0-9])1 records' "Markdown: no \"1 records\""

done_testing
