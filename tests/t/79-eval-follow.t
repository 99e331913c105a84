#!/bin/sh
# 79-eval-follow.t - rag-eval --follow SIZE (issue 38, item 3): production traces scored in one
# command, rag-trace | the configured metrics' stages | rag-gate --window SIZE, with the gate's
# thresholds, --on-fail and the store. Hand-written OTLP JSON (OpenInference, as 68-gate-window.t's
# chain). Checked: the windows are those of the pipe of the tools by hand; a failing window's
# command runs; each window is stored with its records (trace ids kept) as rag-store add-window
# stores them; SIGTERM on an endless input (a FIFO held open) loses no record: the trace rag-trace
# held and the open window come out and are stored; the spending cap holds per hour of the
# records' time (tests/fakellm.py as the judge, priced): 3 requests an hour, not 3 in all.
. "$(dirname "$0")/lib.sh"

need jq python3
# sql DB QUERY: QUERY's rows a line each, columns joined by "|", as the sqlite3 shell prints them
# (Python's sqlite3 module, which python3 has: no package of its own for the test)
sql() {
	python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print(*r, sep="|")' "$1" "$2"
}
for t in rag-eval rag-trace rag-gate rag-store; do [ -x "$BIN/$t" ] || bail_out "bin/$t is not built: run make"; done
trap 'fake_stop; _lib_cleanup' EXIT

# traces KINDS START-SECONDS STEP-SECONDS FILE: one trace a letter, G a supported answer, B not;
# each root span on the line after its retriever's
traces() {
	python3 - "$@" <<'PY'
import hashlib, json, sys
kinds, t0, step, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
a = lambda k, v: {"key": k, "value": ({"stringValue": v} if isinstance(v, str) else {"doubleValue": v})}
ctx = "The Eiffel Tower is in Paris. It was completed in 1889."
good = "The Eiffel Tower was completed in 1889."
bad = "The Eiffel Tower was painted green by Napoleon in 1750."
out = open(path, "w")
for i, c in enumerate(kinds):
    tid = hashlib.sha256(b"follow%d-%d" % (t0, i)).hexdigest()[:32]
    t = (t0 + i * step) * 10**9
    root = {"traceId": tid, "spanId": tid[:16], "name": "rag", "startTimeUnixNano": str(t), "endTimeUnixNano": str(t + 10**9),
            "attributes": [a("openinference.span.kind", "CHAIN"), a("input.value", "When was the Eiffel Tower completed?"),
                           a("output.value", good if c == "G" else bad)]}
    ret = {"traceId": tid, "spanId": tid[16:32], "parentSpanId": tid[:16], "name": "retrieve", "startTimeUnixNano": str(t + 1000),
           "endTimeUnixNano": str(t + 2000),
           "attributes": [a("openinference.span.kind", "RETRIEVER"), a("retrieval.documents.0.document.id", "eiffel"),
                          a("retrieval.documents.0.document.content", ctx), a("retrieval.documents.0.document.score", 0.9)]}
    for sp in (ret, root):
        out.write(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [sp]}]}]}) + "\n")
PY
}
printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  mean:\n    faithfulness: 0.5\n' >"$T/rag.yaml"
C=$T/rag.yaml
printf 'llm:\n  provider: offline\ncache:\n  mode: off\n' >"$T/none.yaml"

# ---------------------------------------------------------------- the windows, the command, the store
traces GGGBBGBBBG 1765000000 60 "$T/traces.jsonl"
run sh -c "'$BIN/rag-trace' -q -c '$C' <'$T/traces.jsonl' | '$BIN/rag-claims' -q -c '$C' | '$BIN/rag-verify' -q -c '$C' |
	tee '$T/scored.jsonl' | '$BIN/rag-gate' -q -c '$C' --window 3"
cp "$OUT" "$T/byhand.out"
is "$(jq -c '[.window, .records, .pass]' "$T/byhand.out" | tr '\n' ' ')" '[1,3,true] [2,3,false] [3,3,false] [4,1,true] ' \
	"by hand: windows GGG, BBG, BBB, G; the 2nd and 3rd fail"

run rag rag-eval -c "$C" -m faithfulness --follow 3 --dry-run "$T/traces.jsonl"
like "$(tr -d '\\\n' <"$OUT")" "rag-trace -q -c .*rag-claims .*rag-verify .*rag-gate .*--window 3" "--dry-run: rag-trace | the metric's stages | rag-gate --window 3"

: >"$T/fired.log"
STORE=sqlite://$T/store.db
run rag rag-eval -c "$C" -m faithfulness --follow 3 --on-fail "cat >>'$T/fired.log'" --store "$STORE" "$T/traces.jsonl"
is "$RC" 0 "--follow over a file: exit 0 (the alert ok at the end)"
is "$(jq -c 'del(.alert, .fired, .recovered)' "$OUT")" "$(jq -c 'del(.alert, .fired, .recovered)' "$T/byhand.out")" \
	"--follow: each window's line that of the pipe by hand"
is "$(jq -c '[.window, .alert]' "$OUT" | tr '\n' ' ')" '[1,"ok"] [2,"failing"] [3,"failing"] [4,"ok"] ' "the alert: failing at window 2, ok at 4"
is "$(jq -c '[.window, .fired]' "$T/fired.log")" '[2,true]' "--on-fail: run once, the failing window's line on its stdin"
is "$(sql "$T/store.db" 'select count(*) from prod_windows')" 4 "--store: the four windows stored"
is "$(sql "$T/store.db" 'select window_id || ":" || trace_id from prod_records order by window_id, seq' | tr '\n' ' ')" \
	"$(jq -r '.trace_id' "$T/scored.jsonl" | awk '{ printf "%d:%s ", int((NR - 1) / 3) + 1, $1 }')" \
	"--store: each window's records, in order, their trace ids kept"
run rag rag-store -q --store "sqlite://$T/byhand.db" add-window "$T/byhand.out" "$T/scored.jsonl"
is "$(sql "$T/store.db" 'select line from prod_records order by window_id, seq' | md5sum)" \
	"$(sql "$T/byhand.db" 'select line from prod_records order by window_id, seq' | md5sum)" \
	"--store: the records stored as rag-store add-window stores the pipe's"

# ---------------------------------------------------------------- SIGTERM: no record lost
# an endless input: a FIFO held open. Five traces a minute apart: rag-trace makes the first four
# records (the stream's time passes their quiet time), the fifth it holds. Window 1 comes out
# (3 records); then SIGTERM.
traces GGGBG 1765100000 60 "$T/five.jsonl"
mkfifo "$T/fifo"
sleep 600 >"$T/fifo" &
HOLD=$!
"$BIN/rag-eval" -c "$C" -m faithfulness --follow 3 --store "sqlite://$T/term.db" <"$T/fifo" >"$T/term.out" 2>"$T/term.err" &
EVAL=$!
cat "$T/five.jsonl" >"$T/fifo"
wait_until 60 grep -q '"window":1' "$T/term.out"
is "$(nlines "$T/term.out")" 1 "an endless input: window 1 out, the rest held"
kill -TERM "$EVAL"
wait "$EVAL"
TRC=$?
kill "$HOLD" 2>/dev/null
wait "$HOLD" 2>/dev/null
is "$TRC" 0 "SIGTERM: rag-eval ends with the gate's status"
is "$(jq -c '[.window, .records]' "$T/term.out" | tr '\n' ' ')" '[1,3] [2,2] ' "SIGTERM: the open window decided and written, with the trace rag-trace held"
is "$(sql "$T/term.db" 'select count(*) from prod_records')" 5 "SIGTERM: all five records stored"
like "$(cat "$T/term.err")" "interrupted" "SIGTERM: said on stderr"

# ---------------------------------------------------------------- the spending cap per hour
# the fake judge: every reply's usage 1000 prompt tokens, at 1 a million: 0.001 a request (a
# request's estimate far less than 0.0005), so --max-cost 0.0025 sends 3 requests an hour.
# answer_relevancy: rag-revq's one chat request a record (rag-embsim's embeddings are not
# metered). 8 traces 15 minutes apart from 10:00: 4 in each of two hours.
printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\ncache:\n  mode: off\nprices:\n  judge-x:\n    input: 1\n    output: 0\ngate:\n  mean:\n    answer_relevancy: 0.5\n' >"$T/cap.yaml"
fresh '[{"usage": {"prompt_tokens": 1000, "completion_tokens": 10}}]'
traces GGGGGGGG 1765101600 900 "$T/hours.jsonl"
run rag rag-eval -c "$T/cap.yaml" -m answer_relevancy -j 1 --follow 100 --max-cost 0.0025 --store "sqlite://$T/cap.db" "$T/hours.jsonl"
is "$(jq -c '[.records]' "$OUT")" '[8]' "the cap per hour: one window of 8 records"
is "$(sql "$T/cap.db" 'select line from prod_records order by seq' | jq -r '.started[11:13] + (if .scores.answer_relevancy == null then "-" else "+" end)' | tr '\n' ' ')" \
	"10+ 10+ 10+ 10- 11+ 11+ 11+ 11- " "--max-cost 0.0025 per hour: 3 records scored in each hour, the 4th capped (a cap for the run would score 3 in all)"
is "$(sql "$T/cap.db" 'select line from prod_records order by seq' | jq -r 'select(.scores.answer_relevancy == null) | .errors[0].message' | cut -c1-21 | sort -u)" \
	"spending cap reached:" "the capped records carry the cap's error"
is "$(jq -c 'select(.path == "/v1/chat/completions")' "$FAKE_LOG" | wc -l | tr -d ' ')" 6 "six chat requests sent, three an hour"

# ---------------------------------------------------------------- misuse
run rag rag-eval -c "$T/none.yaml" -m faithfulness --follow 3 "$T/traces.jsonl"
is "$RC:$(grep -c 'give thresholds' "$ERR")" "2:1" "--follow without a gate's thresholds: exit 2, said"
run rag rag-eval -c "$C" --on-fail true "$T/traces.jsonl"
is "$RC" 2 "--on-fail without --follow: exit 2"
run rag rag-eval -c "$C" --follow 3 -o "$T/rundir" "$T/traces.jsonl"
is "$RC" 2 "--follow with -o: exit 2 (no run directory)"

done_testing
