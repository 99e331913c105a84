#!/bin/sh
# memory.sh - peak resident memory of the tools as the input grows (not a test).
#
#   sh bench/memory.sh [--json] [-n RECORDS]... [-t TOOL]... [--slow-seconds S]
#
# Generates deterministic records of about 460 bytes each (a question, 2 contexts, an answer, a
# reference, claims.answer, verdicts.context_precision and scores.faithfulness: what each tool
# below reads), by default 2,000, 60,000 and 1,000,000 of them (-n, repeatable, sets the
# sizes), and measures on each file, with GNU time's "Maximum resident set size":
#   claims   bin/rag-claims --judge offline
#   verify   bin/rag-verify --judge offline
#   revq     bin/rag-revq --judge offline | bin/rag-embsim --embedder offline (each its own figure)
#   ap       bin/rag-ap
#   kw       bin/rag-kw
#   gate     bin/rag-gate --summary-only --json FILE
#   report   bin/rag-report --markdown FILE
#   page     bin/rag-report -o PAGE FILE (the HTML page, every record in it; the page removed after)
#   eval     bin/rag-eval -m token_f1,rougeL (lexical metrics: rag-kw, no judge, no network)
#            --max-memory 8388608, end to end, every process run through tests/peak.py
#            (RAG_EVAL_BIN: wrappers): a row per process, eval:rag-eval (rag-eval itself and its
#            --emit stage), eval:rag-kw, eval:rag-gate, eval:rag-report, each its largest VmHWM
#   slow     bin/rag-claims -j 8 against tests/fakellm.py at 200 ms a reply, for S seconds
#            (--slow-seconds, default 10) then interrupted: its peak memory (VmHWM) and the input
#            bytes it had read (the read-ahead a slow judge allows) at that moment
# (-t, repeatable, picks tools). No network beyond 127.0.0.1. Exit status: 0, or 1 when a run
# failed or lost records, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

usage() { echo "usage: $0 [--json] [-n RECORDS]... [-t TOOL]... [--slow-seconds S]" >&2; exit 2; }
JSON=0 SIZES= TOOLS= SLOW=10
while [ $# -gt 0 ]; do
	case $1 in
	--json) JSON=1 ;;
	-n) [ $# -ge 2 ] || usage; SIZES="$SIZES $2"; shift ;;
	-t) [ $# -ge 2 ] || usage; TOOLS="$TOOLS $2"; shift ;;
	--slow-seconds) [ $# -ge 2 ] || usage; SLOW=$2; shift ;;
	-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) usage ;;
	esac
	shift
done
[ -n "$SIZES" ] || SIZES="2000 60000 1000000"
[ -n "$TOOLS" ] || TOOLS="claims verify revq ap kw gate report page eval slow"
for _v in $SIZES $SLOW; do
	case $_v in ''|*[!0-9]*|0) usage ;; esac
done
for _t in $TOOLS; do
	case $_t in claims|verify|revq|ap|kw|gate|report|page|eval|slow) ;; *) usage ;; esac
done
bench_need /usr/bin/time python3
bench_setup memory rag-claims rag-verify rag-revq rag-embsim rag-ap rag-kw rag-gate rag-report rag-eval

# gen N FILE: N records of about 460 bytes
gen() {
	awk -v n="$1" 'BEGIN {
		split("red green blue amber violet silver", col, " ")
		split("Lyon Porto Ghent Turku Graz Split Bergen Cork", city, " ")
		s = 12345
		for (i = 1; i <= n; i++) {
			c = col[(i % 6) + 1]; t = city[(i % 8) + 1]
			w = 10 + (i * 7) % 90; y = 1800 + (i * 13) % 200
			s = (s * 1103515245 + 12345) % 2147483648; f = int(s / 2147483648 * 1000) / 1000
			printf "{\"id\":\"m%07d\",\"question\":\"What is widget %d?\",", i, i
			printf "\"contexts\":[\"Widget %d is %s and weighs %d kilograms.\",", i, c, w
			printf "\"Widget %d was first made in %s in %d.\"],", i, t, y
			printf "\"answer\":\"Widget %d is %s. It weighs %d kilograms. It was made in %s.\",", i, c, w, t
			printf "\"reference\":\"Widget %d is a %s widget of %d kg.\",", i, c, w
			printf "\"claims\":{\"answer\":[\"Widget %d is %s.\",\"Widget %d weighs %d kilograms.\"]},", i, c, i, w
			printf "\"verdicts\":{\"context_precision\":[{\"verdict\":%s},{\"verdict\":%s}]},", (i % 3 ? "true" : "false"), (i % 2 ? "true" : "false")
			printf "\"scores\":{\"faithfulness\":%s}}\n", f
		}
	}' >"$2"
}

FAILED=0
ROWS=
# row TOOL N KB SECS [EXTRA]: one result
row() {
	ROWS="$ROWS$1 $2 $3 $4 ${5:--}
"
}

# timed TOOL N CMD...: CMD under GNU time, stdin the records; checks exit status and lines
timed() {
	_tool=$1 _n=$2; shift 2
	/usr/bin/time -f '%M %e' -o "$W/time" "$@" <"$W/records.jsonl" >"$W/out" 2>"$W/err"
	_rc=$?
	_lines=$(wc -l <"$W/out" | tr -d ' ')
	if [ "$_rc" -ne 0 ] || { [ "$_tool" != gate ] && [ "$_tool" != report ] && [ "$_tool" != page ] && [ "$_lines" -ne "$_n" ]; }; then
		echo "memory.sh: $_tool at $_n records exited $_rc with $_lines lines" >&2
		tail -n 3 "$W/err" >&2
		FAILED=1
	fi
	read -r _kb _s <"$W/time"
	row "$_tool" "$_n" "$_kb" "$_s"
}

# slow N: rag-claims -j 8 at 200 ms a reply, SLOW seconds, then SIGINT; a fresh fake each time
# (one left from an earlier size may have reached its --max-seconds)
slow() {
	if [ -n "$FAKE_PID" ]; then
		kill "$FAKE_PID" 2>/dev/null
		wait "$FAKE_PID" 2>/dev/null
		FAKE_PID=
	fi
	rm -f "$W/port"
	bench_fake 200
	"$BIN/rag-claims" -c "$W/rag.yaml" -q -j 8 <"$W/records.jsonl" >/dev/null 2>"$W/err" &
	_pid=$!
	sleep "$SLOW"
	_pos=$(awk '/^pos:/ { print $2 }' "/proc/$_pid/fdinfo/0" 2>/dev/null)
	_hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$_pid/status" 2>/dev/null)
	kill -0 "$FAKE_PID" 2>/dev/null || _pos=
	kill -INT "$_pid" 2>/dev/null
	wait "$_pid"
	if [ -z "$_pos" ] || [ -z "$_hwm" ]; then
		echo "memory.sh: rag-claims or the fake judge ended early" >&2
		tail -n 3 "$W/err" >&2
		FAILED=1
		return
	fi
	row slow "$1" "$_hwm" "$SLOW" "$_pos"
}

# whole N: rag-eval end to end, each process through tests/peak.py
whole() {
	rm -rf "$W/w" "$W/run" "$W/peak.log"
	mkdir -p "$W/w"
	for _t in "$BIN"/rag-*; do
		printf '#!/bin/sh\nexec python3 %s %s %s "$@"\n' "$TOP/tests/peak.py" "$W/peak.log" "$_t" >"$W/w/${_t##*/}"
		chmod +x "$W/w/${_t##*/}"
	done
	_t0=$(now)
	RAG_EVAL_BIN="$W/w" python3 "$TOP/tests/peak.py" "$W/peak.log" "$BIN/rag-eval" -q -c "$W/rag.yaml" \
		-m token_f1,rougeL --max-memory 8388608 -o "$W/run" "$W/records.jsonl" 2>"$W/err"
	_rc=$?
	_s=$(awk -v a="$_t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	_lines=$(wc -l <"$W/run/records.jsonl" | tr -d ' ')
	if [ "$_rc" -ne 0 ] || [ "$_lines" -ne "$1" ]; then
		echo "memory.sh: rag-eval at $1 records exited $_rc with $_lines records" >&2
		tail -n 3 "$W/err" >&2
		FAILED=1
	fi
	for _p in rag-eval rag-kw rag-gate rag-report; do
		row "eval:$_p" "$1" "$(awk -v p=$_p '$1 == p && $2 > m { m = $2 } END { print m + 0 }' "$W/peak.log")" "$_s"
	done
	rm -rf "$W/run"
}

for n in $SIZES; do
	gen "$n" "$W/records.jsonl"
	for t in $TOOLS; do
		case $t in
		claims) timed claims "$n" "$BIN/rag-claims" -c "$W/rag.yaml" -q --judge offline ;;
		verify) timed verify "$n" "$BIN/rag-verify" -c "$W/rag.yaml" -q --judge offline ;;
		revq)
			/usr/bin/time -f '%M %e' -o "$W/time.revq" "$BIN/rag-revq" -c "$W/rag.yaml" -q --judge offline \
				<"$W/records.jsonl" 2>"$W/err.revq" |
				/usr/bin/time -f '%M %e' -o "$W/time.embsim" "$BIN/rag-embsim" -c "$W/rag.yaml" -q \
				--embedder offline >"$W/out" 2>"$W/err"
			_lines=$(wc -l <"$W/out" | tr -d ' ')
			if [ "$_lines" -ne "$n" ] || grep -q '"errors"' "$W/out"; then
				echo "memory.sh: rag-revq | rag-embsim at $n records: $_lines lines" >&2
				tail -n 3 "$W/err.revq" "$W/err" >&2
				FAILED=1
			fi
			read -r _kb _s <"$W/time.revq"; row revq "$n" "$_kb" "$_s"
			read -r _kb _s <"$W/time.embsim"; row embsim "$n" "$_kb" "$_s"
			;;
		ap) timed ap "$n" "$BIN/rag-ap" -c "$W/rag.yaml" -q ;;
		kw) timed kw "$n" "$BIN/rag-kw" -c "$W/rag.yaml" -q ;;
		gate) timed gate "$n" "$BIN/rag-gate" -c "$W/rag.yaml" --summary-only --json "$W/records.jsonl" ;;
		report) timed report "$n" "$BIN/rag-report" -c "$W/rag.yaml" -q --markdown "$W/records.jsonl" ;;
		page)
			timed page "$n" "$BIN/rag-report" -c "$W/rag.yaml" -q -o "$W/page.html" "$W/records.jsonl"
			rm -f "$W/page.html" ;;
		eval) whole "$n" ;;
		slow) slow "$n" ;;
		esac
	done
done

if [ "$JSON" = 1 ]; then
	printf '%s' "$ROWS" | awk 'BEGIN { printf "[" }
		NF { printf "%s{\"tool\":\"%s\",\"records\":%s,\"peak_rss_kb\":%s,\"seconds\":%s%s}", n++ ? "," : "",
			$1, $2, $3, $4, $5 == "-" ? "" : ",\"input_bytes_read\":" $5 }
		END { print "]" }'
else
	printf '%-16s %9s %12s %9s %s\n' tool records "peak KiB" seconds "input read (slow)"
	printf '%s' "$ROWS" | awk 'NF { printf "%-16s %9s %12s %9s %s\n", $1, $2, $3, $4, $5 }'
fi
exit "$FAILED"
