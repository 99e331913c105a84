#!/bin/sh
# 20-cache.t - replies cached on disk: a second run asks nothing; replay mode runs from the cache
# alone and a miss fails clearly; the key depends on the model; no secret reaches the cache.
. "$(dirname "$0")/lib.sh"
need jq

cat >"$T/in.jsonl" <<'EOF2'
{"id":1,"question":"Where is the tower?","answer":"The tower is in Paris. It is 330 m tall.","contexts":["The tower is in Paris and is 330 m tall."]}
{"id":2,"question":"长城在哪里？","answer":"长城位于中国北方。","contexts":["长城位于中国北方。"]}
{"id":3,"question":"Who wrote it?","answer":"Nobody UNSUPPORTED wrote it.","contexts":["An anonymous author."]}
EOF2
printf 'llm:\n  model: judge-a\n' >"$T/a.yaml"
printf 'llm:\n  model: judge-b\n' >"$T/b.yaml"
CACHE=$T/cachedir
pipeline() {   # pipeline CONFIG CACHEMODE
	run sh -c "'$BIN/rag-claims' -q -c '$1' --cache $2 <'$T/in.jsonl' | '$BIN/rag-verify' -q -c '$1' --cache $2"
}

fake_start
export RAG_CACHE_DIR="$CACHE"
pipeline "$T/a.yaml" rw
is "$RC" 0 "first run: exit 0"
is "$(fake_requests)" 6 "first run: 3 claims + 3 verify requests"
cp "$OUT" "$T/first.jsonl"
is "$(jq -s '[.[].usage[][].cache_hits] | add' "$OUT")" 0 "first run: no cache hits"
is "$(find "$CACHE" -name '*.json' | wc -l | tr -d ' ')" 6 "six replies cached"

pipeline "$T/a.yaml" rw
is "$(fake_requests)" 6 "second run: no new request"
is "$(jq -s '[.[].usage[][].cache_hits] | add' "$OUT")" 6 "second run: six cache hits, counted in usage"
is "$(jq -c 'del(.usage)' "$OUT")" "$(jq -c 'del(.usage)' "$T/first.jsonl")" "second run: the same records"

pipeline "$T/b.yaml" rw
is "$(fake_requests)" 12 "another judge model is another key: six new requests"

pipeline "$T/a.yaml" replay
is "$RC" 0 "replay from a full cache: exit 0"
is "$(fake_requests)" 12 "replay: no request"
is "$(jq -c 'del(.usage)' "$OUT")" "$(jq -c 'del(.usage)' "$T/first.jsonl")" "replay: the same records"

check "no file in the cache holds the API key" sh -c "! grep -r -q 'test-secret-key' '$CACHE'"
check "cache entries are readable JSON with content" sh -c "find '$CACHE' -name '*.json' -exec cat {} + | jq -e -s 'all(.[]; .content | type == \"string\")'"
is "$(stat -c %a "$CACHE")" 700 "the cache directory is private (0700)"

# replay with a cold cache: every record fails clearly, nothing is sent
export RAG_CACHE_DIR="$T/cold"
mkdir -p "$T/cold"
run rag rag-claims -c "$T/a.yaml" --cache replay <"$T/in.jsonl"
is "$RC" 4 "replay miss: exit 4"
is "$(nlines "$OUT")" 3 "replay miss: one line per record"
is "$(jq -r '.errors[0].message' "$OUT" | cut -c1-27 | sort -u)" "cache miss in replay mode (" "replay miss: each record says why"
is "$(jq -c '.claims.answer' "$OUT" | sort -u)" null "replay miss: claims null, never empty"
like "$(cat "$ERR")" 'cache miss in replay mode' "replay miss: stderr says so"
is "$(fake_requests)" 12 "replay miss: no request"

# read-only: uses what is there, writes nothing
export RAG_CACHE_DIR="$T/ro"
mkdir -p "$T/ro"
run rag rag-claims -q -c "$T/a.yaml" --cache ro <"$T/in.jsonl"
is "$RC" 0 "read-only on an empty cache: exit 0 (misses go to the endpoint)"
is "$(find "$T/ro" -name '*.json' | wc -l | tr -d ' ')" 0 "read-only writes nothing"

# off: always asks
export RAG_CACHE_DIR="$CACHE"
before=$(fake_requests)
run rag rag-claims -q -c "$T/a.yaml" --cache off <"$T/in.jsonl"
is "$(( $(fake_requests) - before ))" 3 "cache off: every record asks"

# two processes filling one cache at once
export RAG_CACHE_DIR="$T/shared"
printf 'llm:\n  model: judge-c\n' >"$T/c.yaml"
"$BIN/rag-claims" -q -c "$T/c.yaml" --cache rw <"$T/in.jsonl" >"$T/p1" 2>&1 &
p1=$!
"$BIN/rag-claims" -q -c "$T/c.yaml" --cache rw <"$T/in.jsonl" >"$T/p2" 2>&1 &
p2=$!
wait $p1 $p2
is "$(jq -c .claims "$T/p1")" "$(jq -c .claims "$T/p2")" "two processes on one cache: the same results"
is "$(find "$T/shared" -name '*.json' | wc -l | tr -d ' ')" 3 "two processes on one cache: three entries, none torn"
is "$(find "$T/shared" -name '.tmp*' | wc -l | tr -d ' ')" 0 "two processes on one cache: no temporary file left"

# a cache entry of another shape (a file damaged or written by hand: data from outside, as a
# reply is) is a miss, asked again, never a libjq assertion (issue 22): a top-level array, a
# string, choices that are not strings, an embeddings entry whose embedding is not a list
export RAG_CACHE_DIR="$T/damaged"
printf 'llm:\n  model: judge-d\nembeddings:\n  model: emb-d\n' >"$T/d.yaml"
run sh -c "'$BIN/rag-revq' -q --n 2 -c '$T/d.yaml' --cache rw <'$T/in.jsonl' | '$BIN/rag-embsim' -q -c '$T/d.yaml' --cache rw"
cp "$OUT" "$T/d-first.jsonl"
check "damaged cache entries: a first run with answer_relevancy" jq -se 'all(.[]; .scores.answer_relevancy != null)' "$OUT"
for shape in '[]' '"text"' '{"content": "{\"questions\": [\"q?\", \"r?\"], \"noncommittal\": false}", "choices": [1, 2], "embedding": {"a": 1}}' \
	'{"content": 5, "choices": {}, "embedding": "x"}'; do
	for f in $(find "$T/damaged" -name '*.json'); do printf '%s' "$shape" >"$f"; done
	before=$(fake_requests)
	run rag rag-revq -q --n 2 -c "$T/d.yaml" --cache rw <"$T/in.jsonl"
	is "$RC" 0 "every cache entry $shape: rag-revq exits 0 (no abort)"
	cp "$OUT" "$T/d-revq.jsonl"
	run rag rag-embsim -q -c "$T/d.yaml" --cache rw <"$T/d-revq.jsonl"
	is "$RC" 0 "every cache entry $shape: rag-embsim exits 0 (no abort)"
	check "every cache entry $shape: a miss, asked again" test "$(( $(fake_requests) - before ))" -ge 4
	is "$(jq -c 'del(.usage)' "$OUT")" "$(jq -c 'del(.usage)' "$T/d-first.jsonl")" "every cache entry $shape: the records of the first run"
done

# the README's "once, with the key" recording (Caching), run as written: it fails when the
# endpoint cannot be reached (a pipe would end with the last stage's 0, and an empty cache
# would be committed: issue 40), and says how many replies it recorded when it can
awk '/^# once, with the key/ { on = 1 } on && /^$/ { exit } on' "$TOP/README.md" | sed 's/sk-[.][.][.]/test-secret-key/' >"$T/record.sh"
like "$(cat "$T/record.sh")" "rag-claims" "the README's recording commands found"
mkdir -p "$T/rec" && cp "$T/in.jsonl" "$T/rec/qa.jsonl"
record() {   # record BASE_URL CACHE_DIR: the README's lines in $T/rec with the tools on PATH
	run env PATH="$BIN:$PATH" RAG_BASE_URL="$1" RAG_MODEL=judge-r RAG_CACHE_DIR="$2" RAG_CACHE= \
		sh -c 'cd "$1" && exec sh "$2"' sh "$T/rec" "$T/record.sh"
}
fresh
record "http://127.0.0.1:$FAKE_PORT/v1" "$T/rec/cache"
is "$RC" 0 "the recording with the judge answering: exit 0"
like "$(cat "$OUT")" "^recorded: +6 replies in $T/rec/cache\$" "...and it says how many replies it recorded"
fake_stop
record "http://127.0.0.1:1/v1" "$T/rec/cold"
isnt "$RC" 0 "the recording with the endpoint unreachable fails (exit $RC)"
unlike "$(cat "$OUT")" "recorded" "...and says nothing was recorded"
like "$(cat "$ERR")" "unreachable" "...and says why"

done_testing
