#!/bin/sh
# prefix.sh - what a provider's prefix cache could serve of rag-eval's judge requests (not a test).
#
#   sh bench/prefix.sh [--json] [-n RECORDS]
#
# Runs rag-eval with the default metrics (faithfulness, answer_relevancy, context_precision,
# context_recall) on the bundled test set (share/examples/testset.json, repeated up to RECORDS,
# default 8), its answers collected from share/examples/rag_service.py, the judge
# tests/fakellm.py, which logs every request's body. Then, for each record, over its
# context-carrying requests (those whose prompt holds one of its contexts as a fenced block of its
# own, CONTEXT or CHUNK: faithfulness's
# verify, context recall, context precision), with a prompt being its messages' role and
# content in order:
#   - the longest common prefix of them all, in characters, and whether it holds every one of
#     the record's contexts;
#   - the characters a prefix cache would not reprocess: for each request after the record's
#     first, the longest prefix it shares with an earlier request of the record (in the order
#     the fake received them);
#   - the same over the whole run: each request against every request before it, any record's
#     (the shared system prompt, the instructions).
# Prints the totals and means a record; --json one JSON value. Cache off, 127.0.0.1 only.
# Exit status: 0, 1 when the run failed or lost records, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=8
bench_args "" "$@"
bench_need jq python3
[ -x "$BIN/rag-collect" ] || { echo "prefix.sh: $BIN/rag-collect is not built" >&2; exit 2; }
bench_setup prefix rag-eval

jq -c '.[]' share/examples/testset.json >"$W/base.jsonl"
awk -v n="$N" '{ line[NR] = $0 } END {
	for (i = 1; i <= n; i++) {
		l = line[(i - 1) % NR + 1]
		if (n > NR) sub(/"id":"[^"]*"/, "\"id\":\"p" sprintf("%04d", i) "\"", l)
		print l
	}
}' "$W/base.jsonl" >"$W/testset.jsonl"

bench_fake 0
python3 share/examples/rag_service.py --port 0 --port-file "$W/svc.port" 2>"$W/svc.err" &
SVC_PID=$!
trap 'kill "$SVC_PID" 2>/dev/null; _bench_cleanup' EXIT
i=0
while [ ! -s "$W/svc.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$W/svc.port" ] || { echo "prefix.sh: the RAG service did not start" >&2; cat "$W/svc.err" >&2; exit 1; }
printf 'llm:\n  model: fake-judge\n  timeout: 30\ncollect:\n  url: http://127.0.0.1:%s/ask\n' \
	"$(cat "$W/svc.port")" >"$W/rag.yaml"

"$BIN/rag-eval" -q -c "$W/rag.yaml" --bin "$BIN" -o "$W/run" "$W/testset.jsonl" >"$W/eval.out" 2>"$W/eval.err"
RC=$?
LINES=$(wc -l <"$W/run/records.jsonl" 2>/dev/null | tr -d ' ')
if [ "$RC" -gt 1 ] || [ "${LINES:-0}" -ne "$N" ]; then
	echo "prefix.sh: rag-eval exited $RC with ${LINES:-0} of $N records" >&2
	tail -n 5 "$W/eval.err" >&2
	exit 1
fi

python3 - "$W/run/records.jsonl" "$W/fake.log" "$JSON" <<'PY'
import json, sys

records = [json.loads(l) for l in open(sys.argv[1])]
log = [json.loads(l) for l in open(sys.argv[2])]
as_json = sys.argv[3] == "1"

def prompt(req):
    body = req.get("body")
    if not isinstance(body, dict) or "messages" not in body:
        return None
    return "".join("[%s]\n%s\n" % (m.get("role"), m.get("content")) for m in body["messages"])

def lcp(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i

prompts = [p for p in (prompt(r) for r in sorted(log, key=lambda r: r["n"])) if p is not None]
total_chars = sum(len(p) for p in prompts)
rows = []
for rec in records:
    q = rec.get("question") or ""
    ctxs = [c if isinstance(c, str) else (c.get("text") or "") for c in rec.get("contexts") or []]
    ctxs = [c for c in ctxs if c]
    # a context is carried when it is a fenced block of its own (CONTEXT, or CHUNK for the
    # chunks of before): an answer that quotes a context does not make a request carry it
    def carries(p, c):
        return any("\n%s\n%s-" % (c, tag) in p for tag in ("CONTEXT", "CHUNK"))
    mine = [p for p in prompts if q and q in p and any(carries(p, c) for c in ctxs)]
    if not mine:
        continue
    common = mine[0]
    for p in mine[1:]:
        common = common[:lcp(common, p)]
    reuse = sum(max(lcp(p, e) for e in mine[:k]) for k, p in enumerate(mine) if k)
    rows.append({"id": rec.get("id"), "requests": len(mine), "chars": sum(len(p) for p in mine),
                 "common_prefix": len(common), "contexts_in_prefix": all(c in common for c in ctxs),
                 "reusable": reuse})

n = len(rows)
out = {"bench": "prefix", "records": len(records), "records_measured": n,
       "judge_requests": len(prompts), "prompt_chars": total_chars,
       "context_requests": sum(r["requests"] for r in rows),
       "context_request_chars": sum(r["chars"] for r in rows),
       "mean_common_prefix": round(sum(r["common_prefix"] for r in rows) / n, 1) if n else 0,
       "max_common_prefix": max((r["common_prefix"] for r in rows), default=0),
       "records_with_contexts_in_prefix": sum(r["contexts_in_prefix"] for r in rows),
       "reusable_chars": sum(r["reusable"] for r in rows)}
out["reusable_share"] = round(out["reusable_chars"] / total_chars, 4) if total_chars else 0
out["chars_to_process"] = total_chars - out["reusable_chars"]
# a cache over the whole run: each request against every request before it, whatever its record
import os
run_reuse = 0
for k, p in enumerate(prompts):
    if k:
        run_reuse += max(len(os.path.commonprefix([p, e])) for e in prompts[:k])
out["run_reusable_chars"] = run_reuse
if as_json:
    print(json.dumps(out))
    sys.exit(0)
print("ragpipe prefix benchmark: rag-eval, default metrics, %d records, fake judge" % out["records"])
print("%-12s %9s %7s %14s %9s %9s" % ("record", "requests", "chars", "common prefix", "contexts", "reusable"))
for r in rows:
    print("%-12s %9d %7d %14d %9s %9d" % (r["id"], r["requests"], r["chars"], r["common_prefix"],
                                         "yes" if r["contexts_in_prefix"] else "no", r["reusable"]))
print()
print("judge requests %d, prompt characters %d; context-carrying requests %d (%d characters)"
      % (out["judge_requests"], total_chars, out["context_requests"], out["context_request_chars"]))
print("common prefix of a record's context-carrying requests: mean %.1f, max %d characters; "
      "holds all its contexts in %d of %d records" % (out["mean_common_prefix"], out["max_common_prefix"],
                                                      out["records_with_contexts_in_prefix"], n))
print("characters a prefix cache would not reprocess: %d (%.1f%% of all prompt characters)"
      % (out["reusable_chars"], 100 * out["reusable_share"]))
print("prompt characters left to process with such a cache: %d" % out["chars_to_process"])
print("a cache over the whole run (each request against every one before it): %d characters (%.1f%%)"
      % (run_reuse, 100.0 * run_reuse / total_chars if total_chars else 0))
PY
