#!/bin/sh
# 65-report.t - rag-report: one self-contained HTML page (structure, no external asset, one
# inline script and one JSON block), escaping of hostile text (in the HTML and in the JSON the
# script reads), Chinese text intact, a history of runs, a baseline, --history, --markdown; where
# Chromium is installed, the page loads headless and gives a screenshot. 66-report-browser.t
# drives the page's tabs.
. "$(dirname "$0")/lib.sh"
need python3

# a scored run: the example records with scores, one of them hostile, one Chinese
cat >"$T/run2.jsonl" <<'EOF'
{"id":"en-1","category":"history","question":"When was Einstein born?","answer":"Einstein was born in 1879.","scores":{"faithfulness":1,"context_recall":1}}
{"id":"en-2","category":"history","question":"Where?","answer":"In Ulm.","scores":{"faithfulness":0.5,"context_recall":1},"verdicts":{"faithfulness":[{"claim":"Einstein was born on 20th March 1879.","verdict":false}]}}
{"id":"zh-1","category":"地理","question":"长城有多长？","answer":"长城全长约5000公里。","scores":{"faithfulness":0.5,"context_recall":0.8},"verdicts":{"faithfulness":[{"claim":"长城全长约5000公里。","verdict":false}]}}
{"id":"<script>alert(1)</script>","category":"x\"><img src=x onerror=alert(2)>","question":"<iframe src=\"http://evil.example/\"></iframe>","answer":"</td></tr></table><h1>pwned</h1> & 'quotes' \u2028\u2029 </script><!-- -->","scores":{"faithfulness":0,"context_recall":null},"errors":[{"tool":"rag-verify","message":"<b>bold</b> error"}]}
EOF
cat >"$T/run1.jsonl" <<'EOF'
{"id":"en-1","category":"history","scores":{"faithfulness":0.9,"context_recall":0.9}}
{"id":"en-2","category":"history","scores":{"faithfulness":0.9,"context_recall":0.7}}
{"id":"zh-1","category":"地理","scores":{"faithfulness":0.6,"context_recall":0.8}}
EOF

cat >"$T/check.py" <<'EOF'
# check.py FILE: structural checks of a rag-report page; prints one line per finding
import sys, html.parser
VOID = {"meta", "br", "img", "hr", "link", "input"}
SVG_LEAF = {"line", "circle", "polyline", "path"}
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.tags, self.attrs, self.text, self.blocks = [], [], {}, [], [], []
    def handle_decl(self, d): self.tags["!doctype"] = d
    def handle_starttag(self, t, a):
        if t == "script": self.json = ("type", "application/json") in a
        self.tags[t] = self.tags.get(t, 0) + 1
        self.attrs += [(t, k, v) for k, v in a]
        if t not in VOID and t not in SVG_LEAF: self.stack.append(t)
    def handle_startendtag(self, t, a):
        self.tags[t] = self.tags.get(t, 0) + 1
        self.attrs += [(t, k, v) for k, v in a]
    def handle_endtag(self, t):
        if t in VOID or t in SVG_LEAF: return
        if not self.stack or self.stack[-1] != t: self.errors.append("unbalanced </%s> in %s" % (t, self.stack[-3:])); return
        self.stack.pop()
    def handle_data(self, d):
        # a script's content is not text of the page; the JSON block is kept apart
        if self.stack and self.stack[-1] == "script":
            if self.json: self.blocks.append(d)
        else:
            self.text.append(d)
p = P()
src = open(sys.argv[1], encoding="utf-8").read()
p.feed(src); p.close()
print("doctype:", p.tags.get("!doctype", "none"))
print("balanced:", not p.errors and not p.stack, p.errors[:3], p.stack[:3])
print("script:", p.tags.get("script", 0), "json:", len(p.blocks), "iframe:", p.tags.get("iframe", 0), "img:", p.tags.get("img", 0))
ext = [(t, k, v) for t, k, v in p.attrs if k in ("src", "href") or (k == "style" and "url(" in (v or ""))]
print("external:", len(ext) + src.count("@import") + src.count("url("))
print("handlers:", len([1 for t, k, v in p.attrs if k.startswith("on")]))
print("charset:", any(t == "meta" and k == "charset" and v.lower() == "utf-8" for t, k, v in p.attrs))
print("svg:", p.tags.get("svg", 0))
print("sections:", " ".join(v for t, k, v in p.attrs if t == "section" and k == "id"))
print("parts:", " ".join(v for t, k, v in p.attrs if t == "div" and k == "id"))
import json, re
raw = re.search(r'<script type="application/json" id="rag-data">(.*?)</script>', src, re.S).group(1)
print("block clean:", not re.search(r"[<>&\u2028\u2029]", raw))
data = json.loads(raw)
print("records:", len(data["records"]), "history:", len(data["history"]))
blob = json.dumps(data, ensure_ascii=False)
text = "".join(p.text)
for needle in sys.argv[2:]:
    print("text has %s: %s" % (needle, needle in text))
    print("data has %s: %s" % (needle, needle in blob))
EOF

run rag rag-report -t faithfulness=0.7 -r faithfulness=0.5 --max-error-rate 1 "$T/run2.jsonl"
is "$RC" 0 "one run: exit 0 (a report, not a verdict)"
cp "$OUT" "$T/one.html"
is "$(python3 "$T/check.py" "$T/one.html" '<script>alert(1)</script>' '长城全长约5000公里。' '</td></tr></table><h1>pwned</h1>' '<b>bold</b> error' '地理')" \
"doctype: DOCTYPE html
balanced: True [] []
script: 2 json: 1 iframe: 0 img: 0
external: 0
handlers: 0
charset: True
svg: 8
sections: summary causes hints failed distribution categories records compare history
parts: records-app history-app
block clean: True
records: 4 history: 1
text has <script>alert(1)</script>: True
data has <script>alert(1)</script>: True
text has 长城全长约5000公里。: False
data has 长城全长约5000公里。: True
text has </td></tr></table><h1>pwned</h1>: True
data has </td></tr></table><h1>pwned</h1>: True
text has <b>bold</b> error: True
data has <b>bold</b> error: True
text has 地理: True
data has 地理: True" \
	"one run: a balanced page, one script and one JSON block, no external asset, hostile text as text in both, Chinese intact"
# the failing records by cause, grouped by rag-report (lib/causes.c) into the data block: the
# hostile record's one cause, its root: its error names no place in the record, an outage of the judge
sed -n 's/.*<script type="application\/json" id="rag-data">\(.*\)<\/script>/\1/p' "$T/one.html" >"$T/one.json"
is "$(jq -c '[.causes[] | [.kind, .cause, .count, [.records[] | .id, .detail]]]' "$T/one.json")" \
	'[["outage","the judge failed: 1 record unscored",1,["<script>alert(1)</script>","rag-verify: <b>bold</b> error"]]]' \
	"the data block's causes: one a record, its root: the judge's error, an outage (not also its score below)"
unlike "$(sed '/^<script>$/,/^<\/script>$/d' "$T/one.html")" '<script>alert|<iframe|<img|<h1>pwned|<b>bold|</script><!--' "no hostile markup survives anywhere"
like "$(cat "$T/one.html")" '&lt;script&gt;alert\(1\)&lt;/script&gt;' "the hostile id is escaped in the HTML"
like "$(cat "$T/one.html")" '\\u003cscript\\u003ealert\(1\)\\u003c/script\\u003e' "and in the JSON block"
like "$(cat "$T/one.html")" ' \\u2028\\u2029 \\u003c/script\\u003e\\u003c!-- --\\u003e' "U+2028, U+2029, </script> and <!-- escaped in the JSON"
like "$(cat "$T/one.html")" 'FAIL' "the verdict is on the page"
like "$(cat "$T/one.html")" 'faithfulness 0\.000 is below the per-record threshold 0\.500' "a failing record says which threshold it missed"
unlike "$(sed -n '/<section id="failed">/,/<\/section>/p' "$T/one.html")" 'en-2|zh-1|en-1' "records that passed (en-2 at 0.5 = the threshold) are not listed as failing"
like "$(cat "$T/one.html")" 'Noto Sans CJK SC' "the CSS names a CJK font family"
like "$(cat "$T/one.html")" 'class="thr-record"' "the histograms mark the gate's per-record threshold"
like "$(cat "$T/one.html")" 'red below the per-record threshold 0\.500' "and say what their colours mean"

run rag rag-report --title 'Nightly <eval> & "co"' "$T/run1.jsonl" "$T/run2.jsonl" -b "$T/run1.jsonl" --max-error-rate 1
is "$RC" 0 "two runs and a baseline: exit 0"
cp "$OUT" "$T/two.html"
like "$(python3 "$T/check.py" "$T/two.html")" 'records: 4 history: 2' "history: both runs"
like "$(python3 "$T/check.py" "$T/two.html")" 'balanced: True' "still balanced"
like "$(cat "$T/two.html")" '<table id="compare-metrics">' "a baseline: the comparison table, readable without the script"
like "$(cat "$T/two.html")" '"base":\{"name":"[^"]*run1\.jsonl","records":\{"en-1":\{"a":null' "the baseline's answers by id for the side by side"
like "$(cat "$T/two.html")" '<title>Nightly &lt;eval&gt; &amp; &quot;co&quot;</title>' "the title is escaped"

# --history: the store's summaries, oldest first, with the run at the end
printf '%s\n' '{"run":"r1","started":"2026-11-01T10:00:00Z","label":"v1","commit":null,"testset":"qa","n":3,"passed":true,"means":{"faithfulness":0.8}}' '' \
	'{"run":"r2","started":"2026-11-02T10:00:00Z","label":null,"commit":"abc","testset":"qa","n":3,"passed":false,"means":{"faithfulness":0.7}}' >"$T/h.jsonl"
run rag rag-report --history "$T/h.jsonl" "$T/run1.jsonl"
is "$RC" 0 "--history: exit 0"
like "$(python3 "$T/check.py" "$OUT")" 'records: 3 history: 3' "--history: its two runs and this one"
like "$(cat "$OUT")" '"history":\[\{"run":"r1",.*\{"run":"r2",.*"current":true' "oldest first, this run last and marked"
printf '%s\n' '{"run":"r1","means":{}}' 'not json' >"$T/bad.jsonl"
run rag rag-report --history "$T/bad.jsonl" "$T/run1.jsonl"
is "$RC" 3 "--history with a bad line: exit 3"
like "$(cat "$ERR")" 'bad\.jsonl:2: not JSON' "and the line is named"
run rag rag-report --history "$T/nope.jsonl" "$T/run1.jsonl"
is "$RC" 2 "--history: a missing file: exit 2"
# a run directory of rag-eval: run.json gives the run's id, date and commit
mkdir -p "$T/rundir"
cp "$T/run1.jsonl" "$T/rundir/records.jsonl"
printf '%s\n' '{"run_id":"20261130-x","started":"2026-11-30T08:00:00Z","git":{"commit":"deadbeef","dirty":false},"testset":"/t/qa.json"}' >"$T/rundir/run.json"
echo '<html></html>' >"$T/rundir/report.html"
run rag rag-report "$T/rundir/records.jsonl" "$T/run2.jsonl"
like "$(cat "$OUT")" '"history":\[\{"run":"20261130-x","started":"2026-11-30T08:00:00Z","label":null,"commit":"deadbeef","testset":"/t/qa.json","n":3,"passed":null,"means":\{[^}]*\},"report":"file:///[^"]*/rundir/report\.html"' \
	"a run directory's run.json and report.html in the history"

run rag rag-report --markdown -t faithfulness=0.7 "$T/run1.jsonl" "$T/run2.jsonl"
is "$RC" 0 "--markdown: exit 0"
like "$(cat "$OUT")" '^## RAG evaluation report: ' "--markdown: a heading"
like "$(cat "$OUT")" 'Trend \(mean per run' "--markdown: the trend table"
unlike "$(cat "$OUT")" '<script>|<iframe' "--markdown: no hostile HTML"
run rag rag-report --markdown -r faithfulness=0.5 --max-error-rate 1 "$T/run2.jsonl"
like "$(cat "$OUT")" '\| en-2 \| pass \| Where\? \|' "--markdown: a low record that passed says so"
like "$(cat "$OUT")" '\| &lt;script&gt;alert\(1\)&lt;/script&gt; \| \*\*FAIL\*\* \|' "--markdown: a failing record says FAIL"

# no threshold, no verdict: the page does not call a run good that nothing was asked of
{ printf '{"id":"a","scores":{"faithfulness":0.1}}\n'; printf '{"id":"b","scores":{"faithfulness":0.2}}\n'; } >"$T/poor.jsonl"
run rag rag-report "$T/poor.jsonl"
is "$RC" 0 "no threshold: exit 0 (a report, not a verdict)"
like "$(cat "$OUT")" '<span class="verdict none">SUMMARY</span>' "no threshold: the page's verdict is SUMMARY"
# (the page's script holds both languages' words, PASS among them: what is shown is outside it)
unlike "$(sed '/<script>/,/<\/script>/d' "$OUT")" 'PASS' "no threshold: no PASS on the page"
run rag rag-report --markdown "$T/poor.jsonl"
like "$(head -n 1 "$OUT")" ': SUMMARY$' "no threshold, --markdown: SUMMARY"
run rag rag-report -t faithfulness=0.1 "$T/poor.jsonl"
like "$(cat "$OUT")" '<span class="verdict pass">PASS</span>' "with a threshold met: PASS"

run rag rag-report -o "$T/o.html" "$T/run1.jsonl"
is "$RC:$(cat "$OUT")" "0:" "-o FILE: nothing on stdout"
check "-o FILE: the page is in FILE" grep -q '</html>' "$T/o.html"
run rag rag-report "$T/missing.jsonl"
is "$RC" 2 "a missing run file: exit 2"
# the records wait in an unlinked temporary file in $TMPDIR, copied into the page at the end
mkdir "$T/tmpd"
TMPDIR=$T/tmpd run rag rag-report -b "$T/run1.jsonl" -o "$T/o2.html" "$T/run2.jsonl"
is "$RC:$(ls -A "$T/tmpd")" "0:" "TMPDIR: the spool files are gone when rag-report ends"
run rag rag-report -b "$T/run1.jsonl" "$T/run2.jsonl"
check "and the page is the same on stdout with the default TMPDIR" cmp -s "$OUT" "$T/o2.html"
if [ "${RAG_VALGRIND:-0}" = 1 ]; then
	skip "a TMPDIR that is not there (valgrind itself needs TMPDIR)"
else
	TMPDIR=$T/nonexistent run rag rag-report -o "$T/o3.html" "$T/run1.jsonl"
	is "$RC" 5 "TMPDIR not usable: exit 5"
	like "$(cat "$ERR")" "cannot make a temporary file in \"$T/nonexistent\"" "naming the directory"
	check "and no page" test ! -e "$T/o3.html"
	TMPDIR=$T/nonexistent run rag rag-report --markdown "$T/run1.jsonl"
	is "$RC" 0 "--markdown keeps no records: no temporary file, TMPDIR not used"
fi
# the data block read back: every record's fields where the input had them, in order
sed -n 's/.*<script type="application\/json" id="rag-data">\(.*\)<\/script>/\1/p' "$T/o2.html" >"$T/o2.json"
is "$(jq -c '[.records[] | [.id, .q, .a, .sc]]' "$T/o2.json")" "$(jq -s -c '[.[] | [(.id | if type == "string" then . else tojson end), .question, .answer, .scores]]' "$T/run2.jsonl")" \
	"the data block's records are the run's, in order"
is "$(jq -c '[keys_unsorted, (.base.records | keys_unsorted)]' "$T/o2.json")" '[["title","run","gated","causes","summary","records","base","history"],["en-1","en-2","zh-1"]]' \
	"the data block's keys in their order, and the baseline's ids"
# a repeated baseline id keeps its first place and takes the last value, as a JSON object does
printf '%s\n' '{"id":"a","answer":"one"}' '{"id":"b","answer":"two"}' '{"id":"a","answer":"three"}' >"$T/dupbase.jsonl"
run rag rag-report -b "$T/dupbase.jsonl" "$T/run1.jsonl"
like "$(cat "$OUT")" '"base":\{"name":"[^"]*dupbase\.jsonl","records":\{"a":\{"a":"three","sc":\{\}\},"b":\{"a":"two","sc":\{\}\}\}\}' \
	"a repeated baseline id: first place, last value"
# -o FILE is written beside it and renamed once whole: a write failing part way (a file size
# limit the spool fits in, the page does not) leaves FILE as it was and nothing else
echo old >"$T/keep.html"
sh -c 'trap "" XFSZ; ulimit -f 48; exec "$@"' sh "$BIN/rag-report" -o "$T/keep.html" "$T/run2.jsonl" >"$OUT" 2>"$ERR"
RC=$?
is "$RC:$(cat "$T/keep.html")" "5:old" "a write failing part way: exit 5, FILE as it was"
like "$(cat "$ERR")" "cannot write \"$T/keep.html\"" "naming FILE"
is "$(cd "$T" && ls keep.html*)" "keep.html" "and no partial file beside it"
run rag rag-report -t nonsense "$T/run1.jsonl"
is "$RC" 2 "a bad threshold: exit 2"

# Chromium, where installed, loads the page headless and takes a screenshot.
chrome=
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && { chrome=$c; break; }
done
if [ -n "$chrome" ]; then
	# no background traffic: the page is a local file and the test must reach no network
	run timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-default-apps --user-data-dir="$T/chrome-profile" --window-size=1200,2000 \
		--screenshot="$T/shot.png" "file://$T/two.html"
	check "Chromium renders the page to a screenshot" test -s "$T/shot.png"
else
	skip_missing chromium "no headless screenshot"
fi

done_testing
