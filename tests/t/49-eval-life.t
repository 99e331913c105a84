#!/bin/sh
# 49-eval-life.t - a rag-eval run's life: its run directory is one process's (a second run into
# it, or a --resume of it, is refused while the first runs); a kill -9 of rag-eval ends every
# stage of its pipeline (no request after, no gate.txt or junit.xml) and --resume finishes the
# run; the messages of an interrupted run, of a stage's error under the progress line, and of a
# write error. Every wait is on the fake judge's log, a file or the processes' state: the fake
# holds the judge's requests ("hold") until the test releases them.
. "$(dirname "$0")/lib.sh"

need jq curl
[ -x "$BIN/rag-eval" ] || bail_out "bin/rag-eval is not built: run make"

head -n 10 "$TOP/share/examples/example.jsonl" >"$T/set.jsonl"
head -n 3 "$T/set.jsonl" >"$T/set3.jsonl"

# until CMD...: CMD is true within 20 s (polled every 50 ms); 1 when it never was
until_true() {
	_u=0
	while [ "$_u" -lt 400 ]; do
		"$@" && return 0
		sleep 0.05
		_u=$((_u + 1))
	done
	return 1
}
requests_at_least() { [ "$(fake_requests)" -ge "$1" ]; }
release() { curl -s -X POST -d '{}' "$FAKE_URL/_fake/release" >/dev/null; }
# running NAME: the processes whose command line names the file NAME of $T (from /proc: no
# procps on a minimal system; a zombie's command line is empty, so it is not counted; the
# brackets keep grep from finding itself)
running() {
	grep -ls "$(basename "$T")/$(printf '%s' "$1" | sed 's/[.]/[.]/g')" /proc/[0-9]*/cmdline 2>/dev/null | wc -l | tr -d ' '
}
none_running() { [ "$(running "$1")" = 0 ]; }

# ---------------------------------------------------------------- one run a directory
# The judge holds every request: the first run is mid-run (its request logged) while the
# second one starts; context_recall is one request a record, -j 1 one at a time.
fresh '[{"hold": true, "hold_s": 30}]'
printf 'llm:\n  model: judge-x\n  timeout: 60\n  retries: 0\ncache:\n  mode: off\n' >"$T/own.yaml"
"$BIN/rag-eval" -q -c "$T/own.yaml" -m context_recall -j 1 -o "$T/same" "$T/set3.jsonl" \
	>"$T/first.out" 2>"$T/first.err" &
first=$!
check "the first run is asking the judge" until_true requests_at_least 1
run rag rag-eval -q -c "$T/own.yaml" -m context_recall -j 1 -o "$T/same" "$T/set3.jsonl"
is "$RC" 2 "a second run into the same directory: exit status 2"
like "$(cat "$ERR")" "^rag-eval: error: \"$T/same\" is in use by another rag-eval" "...named, and why"
run rag rag-eval -q -c "$T/own.yaml" --resume "$T/same"
is "$RC" 2 "--resume of a directory another rag-eval is running: exit status 2"
like "$(cat "$ERR")" "^rag-eval: error: \"$T/same\" is in use by another rag-eval" "...named, and why"
is "$(fake_requests)" 1 "neither asked the judge anything"
release
wait "$first"
is "$?" 0 "the first run finishes: exit status 0"
is "$(jq -r .id "$T/same/records.jsonl" | tr '\n' ' ')" "en-1 en-2 en-3 " "records.jsonl: each case once, in order"
is "$(jq -r '.run_id' "$T/same/records.jsonl" | sort -u | wc -l | tr -d ' ')" 1 "...under one run id"
is "$(jq -r '.counts.records' "$T/same/run.json")" 3 "run.json counts 3 records"
run rag rag-eval -q -c "$T/own.yaml" -m context_recall -o "$T/same" "$T/set3.jsonl"
is "$RC" 2 "once it ended, a new run into it is still refused (it holds a run): exit status 2"
like "$(cat "$ERR")" "holds a run already: --resume" "...with the way to finish it"

# ---------------------------------------------------------------- kill -9 of rag-eval
# rag-eval killed while the judge holds two requests: its stages end with it (they would
# otherwise send the rest when the judge answers), write nothing, and --resume finishes the run.
fresh '[{"hold": true, "hold_s": 30}]'
printf 'llm:\n  model: judge-x\n  timeout: 60\n  retries: 0\ncache:\n  mode: off\n' >"$T/kill.yaml"
"$BIN/rag-eval" -q -c "$T/kill.yaml" -m context_recall -j 2 -o "$T/killed" "$T/set.jsonl" >/dev/null 2>"$T/killed.err" &
victim=$!
check "the run has two requests in flight" until_true requests_at_least 2
sent=$(fake_requests)
check "its stages are running ($(running kill.yaml) processes)" test "$(running kill.yaml)" -gt 1
kill -9 "$victim"
{ wait "$victim"; } 2>/dev/null
check "kill -9 of rag-eval: every stage of its pipeline ends" until_true none_running kill.yaml
release
check "...and after the judge answers, none is left either" until_true none_running kill.yaml
is "$(fake_requests)" "$sent" "the judge got no request after the kill"
# (rag-gate opens its files when it starts, to fail early on a bad path: empty, or not there)
check "no gate written into gate.txt" test ! -s "$T/killed/gate.txt"
check "nor into junit.xml" test ! -s "$T/killed/junit.xml"
is "$(jq -r '.ended' "$T/killed/run.json")" null "run.json: the run has no end"
run rag rag-eval -q -c "$T/kill.yaml" --resume "$T/killed"
is "$RC" 0 "--resume finishes the killed run: exit status 0"
is "$(jq -r .id "$T/killed/records.jsonl" | tr '\n' ' ')" "$(jq -r .id "$T/set.jsonl" | tr '\n' ' ')" \
	"records.jsonl: every case once, in order"
is "$(jq -c '[.counts.records, .resumed_with]' "$T/killed/run.json")" "[10,0]" \
	"run.json counts 10 records, none of them from before the kill"
like "$(cat "$T/killed/gate.txt")" "10 records" "gate.txt is over the whole run"
is "$(fake_requests)" $((sent + 10)) "--resume asked the judge once a case"

# the same through GNU parallel's shards (--jobs 2), which a parent-death signal would not reach:
# the shards' stages watch rag-eval themselves
if command -v parallel >/dev/null 2>&1; then
	PARALLEL_HOME=$T/parallel-home
	export PARALLEL_HOME
	unset PARALLEL
	fresh '[{"hold": true, "hold_s": 30}]'
	cp "$T/kill.yaml" "$T/shards.yaml"
	"$BIN/rag-eval" -q -c "$T/shards.yaml" -m context_recall -j 2 --jobs 2 -o "$T/shards" "$T/set.jsonl" \
		>/dev/null 2>"$T/shards.err" &
	victim=$!
	check "--jobs 2: the shards have two requests in flight" until_true requests_at_least 2
	sent=$(fake_requests)
	kill -9 "$victim"
	{ wait "$victim"; } 2>/dev/null
	check "--jobs 2, kill -9 of rag-eval: every stage of every shard ends" until_true none_running shards.yaml
	release
	check "...and after the judge answers, none is left either" until_true none_running shards.yaml
	is "$(fake_requests)" "$sent" "--jobs 2: the judge got no request after the kill"
	check "--jobs 2: no gate written" test ! -s "$T/shards/gate.txt"
	run rag rag-eval -q -c "$T/shards.yaml" --resume "$T/shards"
	is "$RC" 0 "--jobs 2: --resume finishes the run: exit status 0"
	is "$(jq -r .id "$T/shards/records.jsonl" | tr '\n' ' ')" "$(jq -r .id "$T/set.jsonl" | tr '\n' ' ')" \
		"--jobs 2: records.jsonl: every case once, in order"
else
	skip_missing parallel "the kill of a sharded run"
fi

# ---------------------------------------------------------------- --resume loses no record
# --resume skips the ids records.jsonl holds, so an id that repeats in the test set lost every
# later case with it (45-59 of 60 records came back, exit 0). A run cut short after 4 records
# whose test set then repeats a scored id: --resume refuses it, naming both lines, and neither
# scores nor drops anything; the test set mended, it finishes with every case once.
printf 'llm:\n  provider: offline\ncache:\n  mode: off\n' >"$T/off.yaml"
cp "$T/set.jsonl" "$T/grow.jsonl"
run rag rag-eval -q -c "$T/off.yaml" -m keyword_overlap -o "$T/cut" "$T/grow.jsonl"
is "$RC" 0 "an offline run of 10 records: exit status 0"
head -n 4 "$T/cut/records.jsonl" >"$T/cut4" && cat "$T/cut4" >"$T/cut/records.jsonl"
sed -n 2p "$T/set.jsonl" | jq -c '.question = "Asked again under a scored id"' >>"$T/grow.jsonl"
run rag rag-eval -q -c "$T/off.yaml" --resume "$T/cut"
is "$RC" 3 "--resume of a run whose test set repeats an id: exit status 3"
is "$(cat "$ERR")" "rag-eval: error: $T/grow.jsonl:11: id \"en-2\" repeats line 2" "...named, with both lines"
is "$(nlines "$T/cut/records.jsonl")" 4 "...and records.jsonl is as it was"
sed -i '$d' "$T/grow.jsonl"
run rag rag-eval -q -c "$T/off.yaml" --resume "$T/cut"
is "$RC:$(jq -r .id "$T/cut/records.jsonl" | tr '\n' ' ')" "0:$(jq -r .id "$T/set.jsonl" | tr '\n' ' ')" \
	"mended, --resume finishes it: every case once, in order"

# ---------------------------------------------------------------- the messages
# Ctrl-C (SIGINT to rag-eval, as a terminal sends it: the pipeline has a process group of its
# own) while the judge holds its requests: one line for the run, none a record
fresh '[{"hold": true, "hold_s": 30}]'
cp "$T/kill.yaml" "$T/int.yaml"
"$BIN/rag-eval" -c "$T/int.yaml" -m context_recall -j 2 -o "$T/int" "$T/set.jsonl" >/dev/null 2>"$T/int.err" &
victim=$!
check "the run to interrupt has two requests in flight" until_true requests_at_least 2
kill -INT "$victim"
wait "$victim"
is "$?" 130 "Ctrl-C: exit status 130"
release
is "$(grep -c . "$T/int.err")" 1 "Ctrl-C: one line on standard error"
like "$(cat "$T/int.err")" "^rag-eval: interrupted: [0-9]+ of 10 records scored; finish the run with --resume $T/int\$" \
	"...saying how many records were scored and how to finish the run"
run rag rag-eval -q -c "$T/int.yaml" --resume "$T/int"
is "$RC:$(nlines "$T/int/records.jsonl")" "0:10" "...and --resume does"

# a stage's message under rag-eval's progress line (a terminal, from script(1)): the line is
# cleared first, and the record is named by the test set and its id. The RAG chain holds the
# second record until the progress line shows the first, then fails it.
mkdir -p "$T/bin"
for t in "$BIN"/rag-*; do ln -s "$t" "$T/bin/"; done
{
	echo '#!/bin/sh'
	echo 'rec=$(cat)'
	echo 'if [ "$(printf "%s" "$rec" | jq -r .id)" = en-2 ]; then'
	echo "	while [ ! -e '$T/go' ]; do sleep 0.05; done"
	echo '	echo "the service is down" >&2'
	echo '	exit 1'
	echo 'fi'
	echo 'printf "%s" "$rec" | jq -c "{answer: .reference, sources: [{id: \"d1\", text: .reference}]}"'
} >"$T/my-rag"
chmod +x "$T/my-rag"
jq -c 'del(.answer, .contexts)' "$T/set.jsonl" >"$T/noanswers.jsonl"
printf 'llm:\n  provider: offline\ncache:\n  mode: off\ncollect:\n  command: %s\n' "$T/my-rag" >"$T/tty.yaml"
if command -v script >/dev/null 2>&1; then
	script -qec "'$BIN/rag-eval' -c '$T/tty.yaml' --bin '$T/bin' -m keyword_overlap -o '$T/tty' '$T/noanswers.jsonl'" \
		/dev/null </dev/null >"$T/tty.out" 2>&1 &
	tty=$!
	check "the progress line shows the first record" until_true grep -q "1/10 records" "$T/tty.out"
	touch "$T/go"
	wait "$tty"
	tr '\r' '\n' <"$T/tty.out" >"$T/tty.lines"
	like "$(cat "$T/tty.lines")" "rag-collect: error" "rag-collect says the record failed"
	unlike "$(cat "$T/tty.lines")" "records, .*rag-collect: error" "...on a line of its own, not after the progress line"
	like "$(cat "$T/tty.lines")" "rag-collect: error \\(at $T/noanswers.jsonl, id \"en-2\"\\): " \
		"...naming the test set and the record's id"
	unlike "$(grep 'rag-[a-z]*: error' "$T/tty.lines")" "<stdin>" "...not a line of the pipeline's standard input"
else
	for i in 1 2 3 4 5; do skip_missing script "a stage's message under the progress line"; done
fi

# a full disk: the run directory on a tmpfs of 24 KiB, too small for the records (10 of 8 KiB),
# mounted in a mount namespace of the run's own (as root, or in a user namespace); the last line
# says what was written, not what a run that went well writes
printf 'llm:\n  provider: offline\ncache:\n  mode: off\n' >"$T/none.yaml"
jq -c '.notes = ("x" * 8000)' "$T/set.jsonl" >"$T/big.jsonl"
mkdir -p "$T/full"
ns=
for n in "-m" "-r -m"; do
	# shellcheck disable=SC2086
	if unshare $n sh -c 'mount -t tmpfs -o size=4k none "$0"' "$T/full" 2>/dev/null; then ns=$n; break; fi
done
if [ -n "$ns" ]; then
	# shellcheck disable=SC2086
	unshare $ns sh -c 'mount -t tmpfs -o size=24k none "$0" || exit
		"$1/rag-eval" -c "$2" -m keyword_overlap -o "$0/run" "$3" 2>"$4/full.err"
		echo $? >"$4/full.rc"
		for f in "$0"/run/*; do [ -s "$f" ] && basename "$f"; done >"$4/full.there"
		ls -A "$0/run" | grep "[.]part\$" >"$4/full.parts"' \
		"$T/full" "$BIN" "$T/none.yaml" "$T/big.jsonl" "$T"
	is "$(cat "$T/full.rc")" 5 "a full disk: exit status 5"
	like "$(cat "$T/full.err")" "rag-eval: error: cannot write records.jsonl: No space left on device" "...said"
	last=$(tail -n 1 "$T/full.err")
	like "$last" "^rag-eval: info: run [^ ]+: .*; in $T/full/run \\((.* written; )?records.jsonl cut short; .*report.html.* not written\\)\$" \
		"the last line says what was written and what was not: records.jsonl cut short, no report"
	written=$(printf '%s\n' "$last" | sed -n 's/.*(\(.*\) written; .*/\1/p' | tr -d ',')
	for f in $written; do
		check "...$f, said written, is there" grep -qx "$f" "$T/full.there"
	done
	unlike "$written" "report.html|summary.md" "...and not the report or the summary, which were not"
	is "$(cat "$T/full.parts")" "" "...nor what was made of them as the records came (.NAME.part)"
else
	skip "a full disk: no tmpfs can be mounted here (not root, no user namespaces)"
fi

done_testing
