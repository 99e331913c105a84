#!/bin/sh
# 49-eval-memory.t - a run of rag-eval in bounded memory (issue 26): every process of a run of
# 20,000 records with --max-memory 8388608 (rag-eval itself, its --emit stage, rag-kw, rag-gate,
# rag-report) peaks under 32 MiB, where rag-eval held the whole test set (94 MB here); and
# rag-eval --emit reads a JSON array and a CSV file record by record too. Each tool runs through
# tests/peak.py (RAG_EVAL_BIN points at wrappers), which logs its VmHWM and wait4's ru_maxrss (of
# it and every process it waited for): memory, never time, is asserted.
. "$(dirname "$0")/lib.sh"

need jq python3
[ "${RAG_VALGRIND:-0}" = 1 ] && skip_all "memory under valgrind is valgrind's"
[ -x "$BIN/rag-eval" ] || bail_out "bin/rag-eval is not built: run make"
# under AddressSanitizer (make asan) a process's memory is mostly the sanitizer's shadow and
# quarantine: the runs and their records are still checked, the bounds are skipped (as 15-memory)
ASAN=0
ldd "$BIN/rag-eval" 2>/dev/null | grep -q libasan && ASAN=1
# bound DESC KIB: KIB is a peak within LIMIT
bound() {
	if [ $ASAN = 1 ]; then
		skip "$1: peak memory (not measured under AddressSanitizer)"
	else
		check "$1: peak $2 KiB <= $LIMIT KiB" test "$2" -gt 0 -a "$2" -le $LIMIT
	fi
}

N=20000 LIMIT=32768
mkdir -p "$T/w"
for t in "$BIN"/rag-*; do
	printf '#!/bin/sh\nexec python3 %s %s %s "$@"\n' "$TOP/tests/peak.py" "$T/peak.log" "$t" >"$T/w/${t##*/}"
	chmod +x "$T/w/${t##*/}"
done
awk -v n=$N 'BEGIN {
	for (i = 1; i <= n; i++) {
		printf "{\"id\":\"m%06d\",\"question\":\"What is widget %d?\",\"contexts\":[\"Widget %d is red and weighs %d kg.\"],", i, i, i, i % 90
		printf "\"answer\":\"Widget %d is red. It weighs %d kilograms.\",\"reference\":\"Widget %d is a red widget of %d kg.\"}\n", i, i % 90, i, i % 90
	}
}' >"$T/set.jsonl"
printf 'cache:\n  mode: off\n' >"$T/rag.yaml"

# peak NAME: the largest figure (KiB) of NAME's lines in the log, both columns
peak() { awk -v n="$1" '$1 == n { if ($2 > m) m = $2; if ($3 > m) m = $3 } END { print m + 0 }' "$T/peak.log"; }

RAG_EVAL_BIN="$T/w" run python3 "$TOP/tests/peak.py" "$T/peak.log" "$BIN/rag-eval" -q -c "$T/rag.yaml" \
	-m token_f1,rougeL --max-memory 8388608 -o "$T/run" "$T/set.jsonl"
is "$RC" 0 "a run of $N records: exit 0"
is "$(nlines "$T/run/records.jsonl")" "$N" "every record scored"
note "peak KiB (own, with what it waited for):" "$(sort "$T/peak.log" | uniq)"
for tool in rag-eval rag-kw rag-gate rag-report; do
	bound "$tool" "$(peak $tool)"
done
# the top line is rag-eval's own, with every process of the run it waited for: the bound holds
# for all of them, those not wrapped (sh) and the wrappers included
bound "the whole run's largest process" "$(tail -n 1 "$T/peak.log" | awk '{ print $3 }')"

# --emit, the pipeline's first stage, on a JSON array (pretty) and on CSV: the same records
jq -s . "$T/set.jsonl" >"$T/set.json"
{ echo 'id,question,answer,reference'; jq -r '[.id, .question, .answer, .reference] | @csv' "$T/set.jsonl"; } >"$T/set.csv"
for f in set.json set.csv; do
	: >"$T/peak.log"
	run python3 "$TOP/tests/peak.py" "$T/peak.log" "$BIN/rag-eval" --emit -q --format ${f#set.} <"$T/$f"
	is "$RC" 0 "--emit $f: exit 0"
	is "$(jq -r .id "$OUT" | tail -n 1)" "m0$N" "--emit $f: the last record"
	is "$(nlines "$OUT")" "$N" "--emit $f: every record"
	bound "--emit $f" "$(peak rag-eval)"
done
done_testing
