#!/bin/sh
# kw.sh - throughput of rag-kw against the same computation written in Python (not a test).
#
#   sh bench/kw.sh [--json] [-n RECORDS]
#
# Generates RECORDS (default 1000000) deterministic English records (an answer and a reference
# of 12 to 20 words drawn from 200), then times on the same file
#   1. bin/rag-kw -q -m rouge1
#   2. python3 with rouge_score's ROUGE-1 (its tokenizer: lower case, [^a-z0-9]+ as a separator;
#      clipped unigram counts; F-measure), reading and writing JSON Lines
#   3. bin/rag-kw -q -m keyword_overlap (stemmed keywords, found and missed lists, verdict),
#      for its own figure
# each under /usr/bin/time -v (peak resident memory), and checks that 1 and 2 give the same
# rouge1 for every record (within 1e-12). No network. Exit status: 0, or 1 when a run failed
# or the values differ, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=1000000
bench_args "" "$@"
bench_need python3 jq /usr/bin/time
bench_setup kw rag-kw

# ---------------------------------------------------------------- records
bench_records_kw "$N" "$W/records.jsonl" || exit 1
BYTES=$(wc -c <"$W/records.jsonl" | tr -d ' ')

cat >"$W/rouge1.py" <<'PY'
import collections, json, re, sys
tok = re.compile(r"[^a-z0-9]+")
def words(s):
    return [w for w in tok.sub(" ", s.lower()).split() if w]
out = sys.stdout
for line in sys.stdin:
    r = json.loads(line)
    p, t = collections.Counter(words(r["answer"])), collections.Counter(words(r["reference"]))
    hits = sum(min(c, t[w]) for w, c in p.items())
    np, nt = sum(p.values()), sum(t.values())
    pr = hits / np if np else 0.0
    rc = hits / nt if nt else 0.0
    r.setdefault("scores", {})["rouge1"] = 2 * pr * rc / (pr + rc) if pr + rc else 0.0
    out.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
PY

timed() {
	bench_time "$@" <"$W/records.jsonl"
	if [ "$RC" -ne 0 ]; then
		echo "kw.sh: $1 exited $RC" >&2
		sed 's/^/  /' "$W/err.$1" | head -5 >&2
		exit 1
	fi
}

timed rag-kw "$BIN/rag-kw" -q -m rouge1
KW_S=$SECS KW_KB=$RSS_KB
timed python3 python3 "$W/rouge1.py"
PY_S=$SECS PY_KB=$RSS_KB
timed keywords "$BIN/rag-kw" -q -m keyword_overlap
KO_S=$SECS KO_KB=$RSS_KB

jq -r .scores.rouge1 "$W/out.rag-kw" >"$W/a"
jq -r .scores.rouge1 "$W/out.python3" >"$W/b"
DIFF=$(paste "$W/a" "$W/b" | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12) n++ } END { print n + 0 }')
LINES=$(wc -l <"$W/a" | tr -d ' ')
SAME=yes
[ "$DIFF" -eq 0 ] && [ "$LINES" -eq "$N" ] || SAME=no

rate() { awk -v n="$N" -v s="$1" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
KW_R=$(rate "$KW_S") PY_R=$(rate "$PY_S") KO_R=$(rate "$KO_S")
if [ "$JSON" = 1 ]; then
	printf '{"records":%s,"input_bytes":%s,"rag_kw_rouge1":{"seconds":%s,"records_per_s":%s,"peak_rss_kb":%s},' \
		"$N" "$BYTES" "$KW_S" "$KW_R" "$KW_KB"
	printf '"python3_rouge1":{"seconds":%s,"records_per_s":%s,"peak_rss_kb":%s},' "$PY_S" "$PY_R" "$PY_KB"
	printf '"rag_kw_keyword_overlap":{"seconds":%s,"records_per_s":%s,"peak_rss_kb":%s},"same_values":%s}\n' \
		"$KO_S" "$KO_R" "$KO_KB" "$([ $SAME = yes ] && echo true || echo false)"
else
	printf 'records: %s (%s bytes, English, 12-20 words each side)\n' "$N" "$BYTES"
	printf '%-24s %8s s %10s records/s %9s KiB peak RSS\n' "rag-kw -m rouge1" "$KW_S" "$KW_R" "$KW_KB"
	printf '%-24s %8s s %10s records/s %9s KiB peak RSS\n' "python3 rouge1" "$PY_S" "$PY_R" "$PY_KB"
	printf '%-24s %8s s %10s records/s %9s KiB peak RSS\n' "rag-kw -m keyword_overlap" "$KO_S" "$KO_R" "$KO_KB"
	printf 'rouge1 the same for every record (within 1e-12): %s (%s differ)\n' "$SAME" "$DIFF"
fi
[ "$SAME" = yes ]
