#!/bin/sh
# 83-serve-prefix-browser.t - rag-serve's page under a path prefix, as behind a reverse proxy
# (issue 36, safety 3): with --base-path /ragpipe/ the page at /ragpipe/ loads its files and
# asks the API relative to its <base>, so History lists the runs, a run opens with its records
# paged from the store, review marks are posted and stored, and the labels' link is under the
# prefix, in real Chromium (tests/browser/serve.py walk, the walk of 83-serve-browser.t).
. "$(dirname "$0")/lib.sh"
need python3 jq curl
need_browser
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
DB=$T/store.db
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"
head -n 3 "$TOP/share/examples/example.jsonl" | rag rag-kw -q -c "$T/c.yaml" >"$T/g.jsonl"
python3 -c '
import json
for i in range(24):
    print(json.dumps({"id": "q%02d" % (i + 1), "category": "c%d" % (i % 3), "question": "question %d" % i,
                      "answer": "answer %d" % i, "scores": {"faithfulness": (i % 10) / 10}}))
print(json.dumps({"id": "<img src=x onerror=alert(1)>", "category": "<script>alert(2)</script>",
                  "question": "q", "answer": "a", "scores": {"<img src=y onerror=alert(3)>": 1}}))' >"$T/h.jsonl"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" --run-id G --label 'v1' add - <"$T/g.jsonl"
is "$RC" 0 "run G added"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" --run-id H --label '<b>v2</b>' --commit cafe1234 add - <"$T/h.jsonl"
is "$RC" 0 "run H added"
trap 'serve_stop; _lib_cleanup' EXIT
serve_start --store "$DB" --work-dir "$T/work" --base-path /ragpipe/ || bail_out "rag-serve did not start"
PAGE=${URL}ragpipe/

shots=$TOP/tests/tmp/serve-prefix-shots
rm -rf "$shots"; mkdir -p "$shots"
run timeout 300 "$PY" "$TOP/tests/browser/serve.py" walk "$PAGE" "$shots"
is "$RC" 0 "the browser walk ran at $PAGE"
[ "$RC" = 0 ] || diag "$(tail -n 20 "$ERR")"
got() { sed -n "s/^$1: //p" "$OUT" | sed -n "${2:-1}p"; }
is "$(got runs)" 'H,G' "History under the prefix: the runs"
is "$(got 'run title'):$(got 'records count')" 'Run H:records 1–20 of 25' "a run opened: its records from the store"
is "$(got 'page 2 count')" 'records 21–25 of 25' "and their second page"
is "$(got 'marks shown')" 'ana: ✔ | ana: 0.400 – <img src=z onerror=alert(4)>' "review marks posted from the page"
is "$(curl -s "${PAGE}api/runs/H/marks" | jq -c '[.marks[] | [.seq, .label, .who]]')" '[[1,1,"ana"],[2,0.4,"ana"]]' \
	"and stored"
is "$(got 'labels link')" "${PAGE}api/runs/H/labels.csv?metric=faithfulness" "the labels' link under the prefix"
is "$(got 'console errors')" 0 "no error in the console (no file or call missed)"
done_testing
