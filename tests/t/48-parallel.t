#!/bin/sh
# 48-parallel.t - rag-eval --jobs N: the scoring stages in N shards under GNU parallel --pipe
# --keep-order. The sharded run's records.jsonl equals the single process's byte for byte (40
# records, every default metric and rag-kw, the offline judge); the shards really ran (a
# wrapper of rag-claims keeps what each shard read: 3 shards, every record once, in order);
# --dry-run prints parallel --pipe --keep-order with the gate after it, and the printed text run
# through sh gives the same records; --resume with --jobs finishes a cut run into the same file;
# without parallel, with --sshlogin alone, with a '{' that parallel would expand: exit status 2.
. "$(dirname "$0")/lib.sh"

need jq parallel
[ -x "$BIN/rag-eval" ] || bail_out "bin/rag-eval is not built: run make"

# parallel keeps its files under $PARALLEL_HOME (default ~/.parallel) and reads options from
# $PARALLEL and its config there: none of the user's
PARALLEL_HOME=$T/parallel-home
export PARALLEL_HOME
unset PARALLEL

printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  mean:\n    faithfulness: 0.1\n' >"$T/rag.yaml"
C=$T/rag.yaml
M=faithfulness,answer_relevancy,context_precision,context_recall,keyword_overlap
for i in 1 2 3 4; do
	jq -c --arg i "$i" '.id = .id + "-" + $i' "$TOP/share/examples/example.jsonl"
done >"$T/set.jsonl"
is "$(nlines "$T/set.jsonl")" 40 "a test set of 40 records"

# the tools, with a rag-claims that keeps a copy of what it reads (one file a process; not for
# the --version that rag-eval asks for run.json)
mkdir -p "$T/bin" "$T/shards"
for t in "$BIN"/rag-*; do ln -s "$t" "$T/bin/"; done
rm "$T/bin/rag-claims"
printf '#!/bin/sh\n[ "$1" = --version ] && exec "%s/rag-claims" "$@"\ntee "%s/shards/$$" | "%s/rag-claims" "$@"\n' \
	"$BIN" "$T" "$BIN" >"$T/bin/rag-claims"
chmod +x "$T/bin/rag-claims"

# ---------------------------------------------------------------- one process, then 3 shards
run rag rag-eval -q -c "$C" --bin "$T/bin" -m "$M" --run-id par -o "$T/one" "$T/set.jsonl"
is "$RC" 0 "one process: exit status 0"
is "$(ls "$T/shards" | wc -l | tr -d ' ')" 1 "one process: rag-claims ran once"
is "$(nlines "$T/one/records.jsonl")" 40 "one process: 40 records"
rm -f "$T/shards"/*

run rag rag-eval -q -c "$C" --bin "$T/bin" -m "$M" --run-id par --jobs 3 -o "$T/three" "$T/set.jsonl"
is "$RC" 0 "--jobs 3: exit status 0"
check "--jobs 3: records.jsonl equals the single process's, byte for byte" cmp "$T/one/records.jsonl" "$T/three/records.jsonl"
is "$(ls "$T/shards" | wc -l | tr -d ' ')" 3 "3 shards ran rag-claims"
is "$(cat "$T/shards"/* | wc -l | tr -d ' ')" 40 "the shards read 40 records between them"
is "$(for f in "$T/shards"/*; do [ -s "$f" ] || echo empty; done)" "" "each shard had records"
is "$(cat "$T/shards"/* | jq -r .id | LC_ALL=C sort | uniq -d)" "" "no record went to two shards"
is "$(jq -r .id "$T/three/records.jsonl" | tr '\n' ' ')" "$(jq -r .id "$T/set.jsonl" | tr '\n' ' ')" \
	"the records come back in the test set's order"
check "gate.txt: the same" cmp "$T/one/gate.txt" "$T/three/gate.txt"
is "$(sed "s|$T/three/|DIR/|g" "$T/three/gate.json")" "$(sed "s|$T/one/|DIR/|g" "$T/one/gate.json")" \
	"gate.json: the same (but the run directory it names)"
is "$(jq -r '.counts.records' "$T/three/run.json")" 40 "run.json counts 40 records"
like "$(jq -r '.pipeline' "$T/three/run.json")" "parallel --pipe --keep-order -j 3" "run.json keeps the sharded command"

# ---------------------------------------------------------------- --dry-run
run rag rag-eval -c "$C" -m "$M" --run-id par -j 4 --jobs 3 -o "$T/dry" --dry-run "$T/set.jsonl"
is "$RC" 0 "--dry-run --jobs 3: exit status 0"
cp "$OUT" "$T/dry.sh"
is "$(nlines "$T/dry.sh")" 4 "four lines: --emit, parallel, the shard's stages, the gate"
like "$(sed -n 1p "$T/dry.sh")" "rag-eval --emit .* < $T/set.jsonl \\\\$" "--emit first, one process"
like "$(sed -n 2p "$T/dry.sh")" "^  [|] parallel --pipe --keep-order -j 3 --block [0-9]+ --recend '\\\\n' \\\\$" \
	"then parallel --pipe --keep-order -j 3"
like "$(sed -n 3p "$T/dry.sh")" "^      '[^']*/rag-claims -q -c [^ ]+ -j 4 [|] [^']*rag-verify [^']*[|] [^']*rag-kw -q -c [^ ]+ -m keyword_overlap' \\\\$" \
	"over one quoted pipeline of the stages, -j 4 each"
like "$(sed -n 4p "$T/dry.sh")" "^  [|] [^|]*rag-gate [^|]*--tee" "the gate after it, one process"
check "--dry-run changes nothing" test ! -e "$T/dry"
block=$(sed -n 's/.*--block \([0-9]*\).*/\1/p' "$T/dry.sh")
size=$(wc -c <"$T/set.jsonl" | tr -d ' ')
check "the block (${block} bytes) spreads the records (about $size bytes) over 3 shards" \
	test "$block" -ge 1024 -a "$block" -lt $((size / 2))
sh "$T/dry.sh" >"$T/dry.out" 2>"$T/dry.err"
is "$?" 0 "the printed command runs as printed (sh)"
check "and gives the records of the run, byte for byte" cmp "$T/dry.out" "$T/one/records.jsonl"

run rag rag-eval -c "$C" -m faithfulness --jobs 2 --sshlogin '2/me@h1,:' -o "$T/dry" --dry-run "$T/set.jsonl"
like "$(cat "$OUT")" "parallel --pipe --keep-order -j 2 --block [0-9]+ --recend '\\\\n' --sshlogin 2/me@h1,: " \
	"--sshlogin HOSTS goes to parallel"

# ---------------------------------------------------------------- --resume --jobs
cp -r "$T/one" "$T/cut"
head -n 10 "$T/one/records.jsonl" >"$T/cut/records.jsonl"
printf '{"id":"en-1-2","cut sh' >>"$T/cut/records.jsonl"    # a line cut short by a crash
rm -f "$T/shards"/*
run rag rag-eval -q -c "$C" --bin "$T/bin" --jobs 3 --resume "$T/cut"
is "$RC" 0 "--resume --jobs 3: exit status 0"
check "the resumed records.jsonl equals the uninterrupted run's" cmp "$T/one/records.jsonl" "$T/cut/records.jsonl"
is "$(cat "$T/shards"/* | wc -l | tr -d ' ')" 30 "the shards scored the 30 records left"
is "$(ls "$T/shards" | wc -l | tr -d ' ')" 3 "in 3 shards"

# ---------------------------------------------------------------- refusals
mkdir -p "$T/nopath"
run env PATH="$T/nopath" "$BIN/rag-eval" -q -c "$C" --bin "$BIN" -m faithfulness --jobs 2 -o "$T/np" "$T/set.jsonl"
is "$RC" 2 "--jobs without GNU parallel: exit status 2"
like "$(cat "$ERR")" "GNU parallel, which is not installed .*apt-get install parallel" "says to install it"
check "and no run directory is made" test ! -e "$T/np"
run env PATH="$T/nopath" "$BIN/rag-eval" -c "$C" --bin "$BIN" -m faithfulness --jobs 2 -o "$T/np" --dry-run "$T/set.jsonl"
is "$RC" 0 "--dry-run --jobs needs no parallel (it runs nothing)"

run rag rag-eval -q -c "$C" -m faithfulness --sshlogin h1 -o "$T/ssh" "$T/set.jsonl"
is "$RC" 2 "--sshlogin without --jobs: exit status 2"
like "$(cat "$ERR")" "--sshlogin goes with --jobs" "said"

cp "$C" "$T/{x}.yaml"
run rag rag-eval -q -c "$T/{x}.yaml" -m faithfulness --jobs 2 -o "$T/brace" "$T/set.jsonl"
is "$RC" 2 "a '{' in a stage's command line: exit status 2"
like "$(cat "$ERR")" "holds a '\{'.*replacement string" "said: parallel would expand it"
run rag rag-eval -q -c "$C" -m faithfulness --jobs 0 -o "$T/j0" "$T/set.jsonl"
is "$RC" 2 "--jobs 0: exit status 2"

done_testing
