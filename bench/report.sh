#!/bin/sh
# report.sh - rag-report's page for big runs in headless Chromium (not a test).
#
#   sh bench/report.sh [--json] [-n RECORDS]
#
# Generates deterministic scored runs of 1,000 and RECORDS (default 20,000) records: an English
# or Chinese question, an answer, three contexts with their chunk verdicts, three claims with
# verdicts and reasons, three metrics, a category, 2% errors), a baseline of the same ids, and
# renders each with bin/rag-report -r faithfulness=0.5 -b BASELINE. Then, for each page: its size,
# the time rag-report took and its peak memory (GNU time), and in Chromium (Selenium, headless,
# no network) the time from navigation to the page's ready (its script run), the time to draw
# the Records tab (its first page of 100 rows), and the time one filter takes (result: failed,
# over every record). Exit status: 0, 1 when a run failed, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=20000
bench_args "" "$@"
bench_need /usr/bin/time chromium chromedriver
PY=python3
"$PY" -c 'import selenium' 2>/dev/null || PY=/usr/bin/python3
"$PY" -c 'import selenium' 2>/dev/null || { echo "report.sh: python3-selenium is not installed" >&2; exit 2; }
bench_setup report rag-report

gen() {   # gen N SEED > file: the records; SEED 0 the run, 1 its baseline
	"$PY" - "$1" "$2" <<'PY'
import json, random, sys
n, seed = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(1000 + seed)
zh = ["长城有多长？", "黄河发源于哪里？", "北京是哪一年成为首都的？"]
for i in range(n):
    chinese = i % 5 == 0
    q = zh[i % 3] if chinese else "What does document %d say about topic %d and its history?" % (i % 97, i)
    a = ("长城全长约两万一千公里，始建于春秋战国时期。" * 2) if chinese else \
        "Topic %d was first described in %d; the document says it spread to %d regions over two centuries." % (i, 1800 + i % 200, i % 9)
    ctx = [("Context %d of record %d: " % (k, i)) + "a passage of the retrieved document that says several things about the topic. " * 3
           for k in range(3)]
    f = round(rnd.random(), 3)
    claims = [{"claim": "Claim %d of record %d about the topic." % (k, i), "verdict": rnd.random() < f,
               "reason": "context %d says so" % k} for k in range(3)]
    chunks = [{"chunk": ctx[k], "verdict": rnd.random() < 0.6, "reason": "relevant to the question" } for k in range(3)]
    rec = {"id": "q%06d" % i, "category": ["math", "geo", "history", "science", "law"][i % 5], "question": q,
           "answer": a, "reference": a, "contexts": ctx,
           "scores": {"faithfulness": f, "context_recall": round(rnd.random(), 3), "context_precision": round(rnd.random(), 3)},
           "verdicts": {"faithfulness": claims, "context_precision": chunks}}
    if i % 50 == 7:
        rec["scores"]["faithfulness"] = None
        rec["errors"] = [{"tool": "rag-verify", "metric": "faithfulness", "message": "the judge's reply was not JSON"}]
    print(json.dumps(rec, ensure_ascii=False))
PY
}

sizes=1000
[ "$N" = 1000 ] || sizes="1000 $N"
FAIL=0
ROWS=
for n in $sizes; do
	gen "$n" 0 >"$W/run$n.jsonl"
	gen "$n" 1 >"$W/base$n.jsonl"
	bench_time "r$n" "$BIN/rag-report" -q -r faithfulness=0.5 --max-error-rate 1 -b "$W/base$n.jsonl" -o "$W/page$n.html" "$W/run$n.jsonl"
	[ "$RC" = 0 ] || { echo "report.sh: rag-report failed on $n records" >&2; cat "$W/err.r$n" >&2; FAIL=1; continue; }
	R_S=$SECS R_KB=$RSS_KB
	IN=$(wc -c <"$W/run$n.jsonl" | tr -d ' ')
	SIZE=$(wc -c <"$W/page$n.html" | tr -d ' ')
	"$PY" tests/browser/report.py time "$W/page$n.html" "$W" >"$W/time$n.txt" 2>"$W/time$n.err" || {
		echo "report.sh: Chromium failed on $n records" >&2; tail -5 "$W/time$n.err" >&2; FAIL=1; continue; }
	v() { sed -n "s/^$1: //p" "$W/time$n.txt"; }
	ROWS="$ROWS$n $IN $SIZE $R_S $R_KB $(v ready_ms) $(v ready_page_ms) $(v records_tab_ms) $(v filter_ms) $(v search_ms)
"
done

if [ "$JSON" = 1 ]; then
	printf '%s' "$ROWS" | awk 'BEGIN { printf "[" } NF { printf "%s{\"records\":%s,\"input_bytes\":%s,\"page_bytes\":%s,\"render_s\":%s,\"render_rss_kb\":%s,\"load_ms\":%s,\"ready_ms\":%s,\"records_tab_ms\":%s,\"filter_ms\":%s,\"search_ms\":%s}", sep, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10; sep = "," } END { print "]" }'
else
	printf '%-8s %10s %10s %9s %9s %9s %9s %9s %9s %9s\n' records input page rag-report peak load ready records filter search
	printf '%-8s %10s %10s %9s %9s %9s %9s %9s %9s %9s\n' "" MB MB s MB ms ms ms ms ms
	printf '%s' "$ROWS" | awk 'NF { printf "%-8s %10.1f %10.1f %9.2f %9.0f %9s %9s %9s %9s %9s\n", $1, $2 / 1e6, $3 / 1e6, $4, $5 / 1024, $6, $7, $8, $9, $10 }'
	echo "load: driver.get to the page's ready (its script run), as Selenium sees it; ready: the same by the"
	echo "page's own clock (performance.now); records: the Records tab drawn (100 rows); filter: result = failed"
	echo "over every record; search: typing 13 characters, the 120 ms pause, the filter."
fi
exit $FAIL
