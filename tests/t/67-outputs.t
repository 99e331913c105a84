#!/bin/sh
# 67-outputs.t - what the tools do with their outputs: a reader that goes away early (rag-gate
# --tee reads on and decides on the whole run; a judge tool ends quietly, the records it dropped
# being no judge errors), a full disk on every output of every tool (exit 5, "cannot write"),
# and rag-gate's summary on a shared standard error in one write (strace).
. "$(dirname "$0")/lib.sh"
need jq python3

EXAMPLE=$TOP/share/examples/example.jsonl

# ---------------------------------------------------------------- rag-gate --tee | head
# 5000 records, the first 1000 at 1.0: a reader that stops after one line must not make the
# gate decide on the first few hundred it happened to read
awk 'BEGIN { for (i = 1; i <= 5000; i++)
	printf "{\"id\":\"r%d\",\"scores\":{\"faithfulness\":%s}}\n", i, i <= 1000 ? "1.0" : "0.0" }' >"$T/run.jsonl"
run rag rag-gate -t faithfulness=0.5 "$T/run.jsonl"
is "$RC" 1 "read whole: the run (mean 0.2) fails"
tee_head() { { rag rag-gate --tee "$@" <"$T/run.jsonl" 2>"$T/tee.err"; echo $? >"$T/tee.rc"; } | head -n 1; }
run tee_head -t faithfulness=0.5
is "$(cat "$T/tee.rc")" 1 "--tee | head -n 1: the gate reads on to the end and fails"
like "$(head -n 1 "$T/tee.err")" '^rag-gate: FAIL: 5000 records' "--tee | head -n 1: the summary is of all 5000 records"
is "$(nlines "$OUT")" 1 "--tee | head -n 1: head got its line"
unlike "$(cat "$T/tee.err")" ': error|[Bb]roken pipe' "--tee | head -n 1: the closed pipe is no error"
run tee_head -t faithfulness=0.2
is "$(cat "$T/tee.rc")" 0 "--tee | head -n 1, a run that passes on the whole: exit 0"
like "$(head -n 1 "$T/tee.err")" '^rag-gate: PASS: 5000 records' "--tee | head -n 1: PASS of all 5000 records"

# ---------------------------------------------------------------- a judge tool | head
awk 'BEGIN { for (i = 1; i <= 60; i++)
	printf "{\"id\":\"q%d\",\"question\":\"What is the Zed?\",\"contexts\":[\"The Zed is a river.\"],\"answer\":\"The Zed is a river. It runs north for %d km.\"}\n", i, i }' >"$T/sixty.jsonl"
claims_head() { { rag rag-claims <"$1" 2>"$T/claims.err"; echo $? >"$T/claims.rc"; } | head -n 1; }

# offline (no endpoint), stopped mid-run (more than a pipe holds): the notice, and nothing else
awk 'BEGIN { for (i = 1; i <= 3000; i++)
	printf "{\"id\":\"p%d\",\"contexts\":[\"The Zed is a river.\"],\"answer\":\"The Zed is a river. It runs north for %d km.\"}\n", i, i }' >"$T/big.jsonl"
run claims_head "$T/big.jsonl"
is "$(cat "$T/claims.rc")" 0 "offline rag-claims | head -n 1: exit 0"
is "$(grep -v ': notice: ' "$T/claims.err")" "" "offline rag-claims | head -n 1: no summary line, no message but the notice"

# a slow judge: the records in flight are dropped, not reported or counted as judge failures
fake_start --latency-ms 200
run claims_head "$T/sixty.jsonl"
is "$(cat "$T/claims.rc")" 0 "rag-claims | head -n 1, requests in flight: exit 0"
is "$(nlines "$OUT")" 1 "rag-claims | head -n 1: head got its line"
is "$(cat "$T/claims.err")" "" "rag-claims | head -n 1: nothing on stderr (no per-record message, no judge-error count, no summary)"
isnt "$(fake_requests)" 60 "rag-claims | head -n 1: it stopped before asking for every record"
rag rag-claims -q <"$T/sixty.jsonl" >"$T/claims.jsonl" 2>/dev/null
verify_head() { { rag rag-verify <"$T/claims.jsonl" 2>"$T/verify.err"; echo $? >"$T/verify.rc"; } | head -n 1; }
run verify_head
is "$(cat "$T/verify.rc"):$(cat "$T/verify.err")" "0:" "rag-verify | head -n 1: exit 0, nothing on stderr"
fake_stop
unset RAG_BASE_URL RAG_API_KEY RAG_CACHE

# ---------------------------------------------------------------- a full disk, on every output
if [ -w /dev/full ]; then
	rag rag-claims -q <"$EXAMPLE" >"$T/c.jsonl"
	rag rag-revq -q <"$EXAMPLE" >"$T/rq.jsonl"
	rag rag-verify -q --chunks <"$EXAMPLE" >"$T/ch.jsonl"
	printf '{"id":"a","scores":{"faithfulness":0.5}}\n{"id":"b","scores":{"faithfulness":0.4}}\n' >"$T/s.jsonl"
	# full TOOL ARGS...: the tool with standard output on /dev/full (input from $IN)
	full() { _ft=$1; shift; rag "$_ft" "$@" <"${IN:-/dev/null}" >/dev/full 2>"$T/full.err"; }
	# expect DESC: the last full exited 5 and said it could not write
	expect() {
		_frc=$?
		like "$_frc:$(cat "$T/full.err")" '^5:rag-[a-z]+: error: cannot write (output|"/dev/full"): No space left on device$' "$1"
	}
	for tool in rag-claims rag-verify rag-revq rag-embsim rag-ap rag-gate rag-report; do
		IN=/dev/null full "$tool" --help; expect "$tool --help > /dev/full: exit 5"
		IN=/dev/null full "$tool" --version; expect "$tool --version > /dev/full: exit 5"
	done
	IN=$EXAMPLE full rag-claims -q; expect "rag-claims > /dev/full: exit 5"
	IN=$T/c.jsonl full rag-verify -q; expect "rag-verify > /dev/full: exit 5"
	IN=$EXAMPLE full rag-revq -q; expect "rag-revq > /dev/full: exit 5"
	IN=$T/rq.jsonl full rag-embsim -q; expect "rag-embsim > /dev/full: exit 5"
	IN=$T/ch.jsonl full rag-ap -q -m ap,mrr; expect "rag-ap > /dev/full: exit 5"
	# a gate that passes, so that its status is not 1 already
	for args in "" "--json" "--markdown" "--tee" "--tee --json -o $T/sum.json"; do
		# shellcheck disable=SC2086
		IN=$T/s.jsonl full rag-gate -t faithfulness=0.4 $args; expect "rag-gate $args > /dev/full: exit 5"
	done
	for args in "-o /dev/full" "--json -o /dev/full" "--markdown -o /dev/full" "--junit /dev/full"; do
		# shellcheck disable=SC2086
		rag rag-gate -t faithfulness=0.4 $args "$T/s.jsonl" >/dev/null 2>"$T/full.err"; expect "rag-gate $args: exit 5"
	done
	rag rag-gate --tee -t faithfulness=0.4 "$T/s.jsonl" >/dev/null 2>/dev/full
	is "$?" 5 "rag-gate --tee 2> /dev/full (the summary): exit 5"
	IN=$T/s.jsonl full rag-report; expect "rag-report > /dev/full: exit 5"
	IN=$T/s.jsonl full rag-report --markdown; expect "rag-report --markdown > /dev/full: exit 5"
	rag rag-report -o /dev/full "$T/s.jsonl" 2>"$T/full.err"; expect "rag-report -o /dev/full: exit 5"
	rag rag-report --markdown -o /dev/full "$T/s.jsonl" 2>"$T/full.err"; expect "rag-report --markdown -o /dev/full: exit 5"
else
	skip "no /dev/full"
fi

# ---------------------------------------------------------------- the summary in one write
# stderr is unbuffered and shared by every stage of a pipeline: a summary written in pieces
# interleaves with another stage's messages mid-line
awk 'BEGIN { for (i = 1; i <= 300; i++)
	printf "{\"id\":\"r%d\",\"category\":\"c%d\",\"question\":\"Question %d?\",\"scores\":{\"faithfulness\":%s,\"context_recall\":0.5}}\n",
		i, i % 7, i, i <= 100 ? "1.0" : "0.0" }' >"$T/cats.jsonl"
if command -v strace >/dev/null 2>&1; then
	# (LeakSanitizer cannot run under ptrace, and says so on stderr: not in a sanitizer build)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=write -e signal=none -o "$T/strace" \
		"$BIN/rag-gate" --tee -t faithfulness=0.5 -b "$T/cats.jsonl" "$T/cats.jsonl" >/dev/null 2>"$T/sum.err"
	is "$(grep -c '^[0-9 ]*write(2,' "$T/strace")" 1 "rag-gate --tee: the summary goes to stderr in one write"
	is "$(sed -n 's/^[0-9 ]*write(2,.* = \([0-9]*\)$/\1/p' "$T/strace" | awk '{ s += $1 } END { print s + 0 }')" \
		"$(wc -c <"$T/sum.err" | tr -d ' ')" "and that write is the whole summary"
	check "the summary is long enough to have been split" test "$(wc -c <"$T/sum.err")" -gt 2000
else
	skip_missing strace
	skip_missing strace
	skip_missing strace
fi

done_testing
