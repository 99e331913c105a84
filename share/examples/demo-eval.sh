#!/bin/sh
# demo-eval.sh: `make demo` - rag-eval in one command on the bundled test set (testset.json, no
# answers yet): a small RAG service (rag_service.py, over docs/) is started on a free port, its
# answers collected (rag-collect), scored with the offline judge, gated and reported into a run
# directory under $RAG_DEMO_OUT (default ./demo-out). Runs from the source tree (the tools in
# bin/) or installed (PREFIX/share/ragpipe/examples: the tools in PREFIX/bin, else on PATH).
# RAG_EVAL_BIN names the tools' directory instead. Exits with rag-eval's status. demo.sh is the same walk-through stage by stage.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${RAG_EVAL_BIN:-}   # as rag-eval --bin: the tools' directory
for d in "$here/../../bin" "$here/../../../bin"; do   # the source tree's, or PREFIX/bin
	[ -z "$bin" ] && [ -x "$d/rag-eval" ] || continue
	bin=$(cd "$d" && pwd)
	break
done
if [ -z "$bin" ] && p=$(command -v rag-eval 2>/dev/null); then bin=$(dirname "$p"); fi
[ -n "$bin" ] || { echo "demo-eval.sh: cannot find rag-eval (not beside $here, not on PATH)" >&2; exit 2; }
if [ ! -x "$bin/rag-collect" ]; then
	echo "demo-eval.sh: rag-collect is not built: the stage-by-stage demonstration instead (demo.sh)" >&2
	exec sh "$here/demo.sh"
fi
command -v python3 >/dev/null 2>&1 || { echo "demo-eval.sh: python3 is needed for the RAG service (apt-get install python3)" >&2; exit 2; }
out=${RAG_DEMO_OUT:-demo-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# the system under test
rm -f "$out/service.port"
python3 "$here/rag_service.py" --port 0 --port-file "$out/service.port" 2>"$out/service.log" &
svc=$!
trap 'kill "$svc" 2>/dev/null || true' EXIT INT TERM
i=0
while [ ! -s "$out/service.port" ]; do
	kill -0 "$svc" 2>/dev/null || { cat "$out/service.log" >&2; echo "demo-eval.sh: the RAG service did not start" >&2; exit 1; }
	i=$((i + 1))
	[ "$i" -lt 100 ] || { echo "demo-eval.sh: the RAG service did not start within 10 s" >&2; exit 1; }
	sleep 0.1
done
RAG_DEMO_PORT=$(cat "$out/service.port")
export RAG_DEMO_PORT
echo "== the RAG service under test: http://127.0.0.1:$RAG_DEMO_PORT/ask (rag_service.py over $here/docs)"
id=demo-$(date -u +%Y%m%d-%H%M%S)
run=$out/$id
echo "== the pipeline (rag-eval --dry-run):"
"$bin/rag-eval" -c "$here/demo.yaml" -o "$run" --run-id "$id" --dry-run "$here/testset.json"
echo
echo "== rag-eval -c demo.yaml testset.json"
status=0
"$bin/rag-eval" -c "$here/demo.yaml" -o "$run" --run-id "$id" "$here/testset.json" || status=$?
echo
echo "run directory: $run"
ls "$run"
echo "report: $run/report.html"
exit "$status"
