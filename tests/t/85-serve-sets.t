#!/bin/sh
# 85-serve-sets.t - rag-serve's Test sets and Cases API: a test set made empty and from JSON,
# JSON Lines and CSV (rag-eval's reader, a broken line named FILE:LINE), the list by tag, a
# version's cases, edits (add, edit, delete, category and tags over several, a file imported)
# each making a new version while the old stays, two writers on one version (the second gets
# 409 naming the newer version and who made it), hostile text kept as data, cross-origin and
# CSRF-less writes refused, delete (refused while a run names the set), on SQLite and on a
# PostgreSQL server of the test's own. The port is read from rag-serve's stderr; no test waits
# on the clock.
. "$(dirname "$0")/lib.sh"
need jq curl
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"

trap 'serve_stop; pg_stop; _lib_cleanup' EXIT
# get PATH [CURL ARGS...]: the body into $OUT, the status into $CODE
get() {
	_p=$1; shift
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' "$@" "$URL${_p#/}")
}
# post PATH JSON [CURL ARGS...]: a write from the page's origin with its CSRF token
post() {
	_p=$1 _b=$2; shift 2
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "Origin: http://$HOSTPORT" -H "X-CSRF-Token: $CSRF" \
		-H 'Content-Type: application/json' "$@" --data-binary "$_b" "$URL${_p#/}")
}
# body KEY=VALUE...: a JSON object of texts (jq --arg), a value @FILE read from FILE
body() {
	_args= _prog=
	for _kv in "$@"; do
		_k=${_kv%%=*} _v=${_kv#*=}
		case $_v in
		@*) _args="$_args --rawfile $_k ${_v#@}" ;;
		*) _args="$_args --arg $_k $(printf '%s' "$_v" | jq -Rs .)" ;;
		esac
		_prog="$_prog${_prog:+, }$_k: \$$_k"
	done
	eval "jq -n -c $_args '{$_prog}'"
}

# the files: JSON array, JSON Lines (a hostile question), CSV (a quoted cell), and broken ones
cat >"$T/arr.json" <<'EOF'
[
  {"id": "a1", "question": "What is RAG?", "reference": "Retrieval-augmented generation."},
  {"id": "a2", "question": "Who reads it?", "groundTruth": "rag-eval", "category": "tools"}
]
EOF
cat >"$T/lines.jsonl" <<'EOF'
{"id": "l1", "question": "<script>alert(1)</script> \"quoted\" & 'single'", "reference": "</td><b>x</b>"}
{"id": "l2", "question": "second", "category": "c2"}
{"id": "l3", "question": "third"}
EOF
printf 'id,question,reference,category\nc1,"one, with a comma","r1",kb\nc2,"two ""quoted""",r2,kb\n' >"$T/cells.csv"
printf '{"id": "b1", "question": "fine"}\n{"id": "b2", "question": "fine too"}\n{"id": "b3", "question": oops}\n' >"$T/bad.jsonl"
printf 'id,question\nx1,ok\nx2,"never closed\n' >"$T/bad.csv"
printf '{"id":"q-3","question":"a"}\n{"id":"q-4","question":"b"}\n{"id":"q-3","question":"c"}\n' >"$T/twice.jsonl"
printf '[\n  {"id": "j1", "question": "q"},\n  {"id": "j2" "question": "q"}\n]\n' >"$T/bad.json"

# suite BACKEND STORE-URL: every check against one store
suite() {
	be=$1
	serve_start --store "$2" || { tap_ok 1 "$be: rag-serve started"; return; }

	# ---------------------------------------------------------------- made and imported
	post /api/testsets '{"name":"empty","tag":"kb-a","who":"ana"}'
	is "$CODE:$(jq -c '[.name, .version, .n, .created]' "$OUT")" '200:["empty",1,0,true]' "$be: an empty test set made, version 1"
	post /api/testsets "$(body name=arr tag=kb-a who=ana file=arr.json text=@"$T/arr.json")"
	is "$CODE:$(jq -c '[.version, .n]' "$OUT")" '200:[1,2]' "$be: a JSON array imported"
	post /api/testsets "$(body name=lines tag=kb-b file=lines.jsonl text=@"$T/lines.jsonl")"
	is "$CODE:$(jq -c '[.version, .n]' "$OUT")" '200:[1,3]' "$be: JSON Lines imported"
	post /api/testsets "$(body name=cells tag=kb-b file=cells.csv text=@"$T/cells.csv")"
	is "$CODE:$(jq -c '[.version, .n]' "$OUT")" '200:[1,2]' "$be: CSV imported"
	get /api/testsets/cells
	is "$(jq -c '[.cases[] | [.id, .question, .reference, .category]]' "$OUT")" \
		'[["c1","one, with a comma","r1","kb"],["c2","two \"quoted\"","r2","kb"]]' "$be: CSV's cells, quotes and commas read as rag-eval reads them"
	get /api/testsets/arr
	is "$(jq -c '[.cases[1].reference, .file, .author]' "$OUT")" '["rag-eval","arr.json","ana"]' \
		"$be: an alias (groundTruth) read as reference; the file and who made it kept"
	post /api/testsets "$(body name=bad file=bad.jsonl text=@"$T/bad.jsonl")"
	is "$CODE" 400 "$be: a broken JSON Lines file: 400"
	like "$(jq -r .error "$OUT")" '^bad\.jsonl:3:[0-9]+: ' "$be: its error names the file's line 3"
	post /api/testsets "$(body name=twice file=twice.jsonl text=@"$T/twice.jsonl")"
	is "$CODE:$(jq -r .error "$OUT")" '400:twice.jsonl:3: id "q-3" repeats line 1' \
		"$be: a file that repeats an id: 400, naming the id and both lines"
	get /api/testsets/twice
	is "$CODE" 404 "$be: ...and no test set made of it"
	post /api/testsets "$(body name=bad file=bad.csv text=@"$T/bad.csv")"
	like "$CODE $(jq -r .error "$OUT")" '^400 bad\.csv:3:[0-9]+: unterminated quoted field' "$be: a broken CSV file: FILE:LINE"
	post /api/testsets "$(body name=bad file=bad.json text=@"$T/bad.json")"
	like "$CODE $(jq -r .error "$OUT")" '^400 bad\.json:3:[0-9]+: ' "$be: a broken JSON array: FILE:LINE"
	get /api/testsets/bad
	is "$CODE" 404 "$be: nothing was made of a broken file"
	post /api/testsets "$(body name=arr text=@"$T/lines.jsonl")"
	is "$CODE:$(jq -r .conflict "$OUT")" 409:true "$be: a name already taken: 409"
	like "$(jq -r .error "$OUT")" 'named "arr" is in the store already \(version 1\)' "$be: and says so"
	post /api/testsets '{"name":"a/b"}'
	is "$CODE" 400 "$be: a name with a slash: 400"

	run rag rag-store -q -c "$T/c.yaml" --store "$2" testset import "$T/cells.csv" --name from-store --tag kb-c
	is "$RC:$(cat "$OUT")" '0:from-store@1' "$be: rag-store testset import --tag"
	run rag rag-store -q -c "$T/c.yaml" --store "$2" testset import "$T/cells.csv" --name nowhere --tag ''
	is "$RC" 0 "$be: an empty --tag: none"

	# ---------------------------------------------------------------- the list
	get /api/testsets
	is "$(jq -c '[.testsets[] | [.name, .tag, .latest, .n]]' "$OUT")" \
		'[["arr","kb-a",1,2],["cells","kb-b",1,2],["empty","kb-a",1,0],["from-store","kb-c",1,2],["lines","kb-b",1,3],["nowhere",null,1,2]]' \
		"$be: the test sets, tag, version, cases"
	is "$(jq -c .tags "$OUT")" '["kb-a","kb-b","kb-c"]' "$be: the tags offered"
	get '/api/testsets?tag=kb-b'
	is "$(jq -c '[.testsets[].name]' "$OUT")" '["cells","lines"]' "$be: filtered by tag"

	# ---------------------------------------------------------------- hostile text
	get /api/testsets/lines
	is "$(jq -c '.cases[0] | [.question, .reference]' "$OUT")" "$(sed -n 1p "$T/lines.jsonl" | jq -c '[.question, .reference]')" \
		"$be: hostile text stored and returned as data, byte for byte"
	like "$(curl -s -D - -o /dev/null "${URL}api/testsets/lines" | tr -d '\r' | grep -i '^content-type:')" 'application/json' \
		"$be: as JSON, never HTML"

	# ---------------------------------------------------------------- paged, searched and filtered in the store
	# 120 cases: every third "kb-x", every seventh's question names Paris (a capital P)
	post /api/testsets "$(jq -n -c --arg t "$(seq 1 120 | jq -c '{id: "p\(.)", question: (if . % 7 == 0 then "where is Paris \(.)" else "q \(.)" end)} + (if . % 3 == 0 then {category: "kb-x"} else {} end)')" '{name: "many", text: $t}')"
	is "$CODE:$(jq -c '.n' "$OUT")" '200:120' "$be: 120 cases made"
	get '/api/testsets/many?limit=50&offset=50'
	is "$CODE:$(jq -c '[.total, .all, .offset, .limit, (.cases | length), .seqs[0], .cases[0].id, .seqs[49], .categories]' "$OUT")" \
		'200:[120,120,50,50,50,51,"p51",100,["kb-x"]]' "$be: page 2 of 50: cases 51-100 and their seqs"
	get '/api/testsets/many?q=paris&limit=5'
	is "$(jq -c '[.total, .seqs, [.cases[].id]]' "$OUT")" '[17,[7,14,21,28,35],["p7","p14","p21","p28","p35"]]' \
		"$be: searched without case: 17 found, the first 5"
	get '/api/testsets/many?q=paris&category=kb-x&offset=2'
	is "$(jq -c '[.total, .seqs]' "$OUT")" '[5,[63,84,105]]' "$be: searched within a category, from the third"
	get '/api/testsets/many?category=-&limit=1'
	is "$(jq -c '[.total, .seqs]' "$OUT")" '[80,[1]]' "$be: the cases without a category"
	get '/api/testsets/many?q=nothing-like-it'
	is "$(jq -c '[.total, .cases]' "$OUT")" '[0,[]]' "$be: nothing found"
	get '/api/testsets/many?limit=0'
	is "$CODE" 400 "$be: a limit of 0 refused"
	get /api/testsets/many
	is "$(jq -c '[(.cases | length), .seqs]' "$OUT")" '[120,null]' "$be: without paging, every case (as rag-store exports them)"

	# ---------------------------------------------------------------- edits
	post /api/testsets/lines/cases '{"base_version":1,"who":"bo","ops":[
		{"op":"edit","seq":2,"case":{"question":"second, edited <img src=x onerror=alert(1)>","category":"c2"}},
		{"op":"add","case":{"question":"a new one"}},
		{"op":"set","seqs":[1,3],"category":"bulk","tags":["t1","t2"]}]}'
	is "$CODE:$(jq -c '[.version, .base_version, .n, .created]' "$OUT")" '200:[2,1,4,true]' "$be: an edit: version 2"
	get /api/testsets/lines
	is "$(jq -c '[.version, .latest, .author, [.cases[] | [.id, .category, .tags]]]' "$OUT")" \
		'[2,2,"bo",[["l1","bulk",["t1","t2"]],["l2","c2",null],["l3","bulk",["t1","t2"]],["case-1",null,null]]]' \
		"$be: the edit kept its id, the added case got one, the bulk edit set category and tags"
	is "$(jq -r '.cases[1].question' "$OUT")" 'second, edited <img src=x onerror=alert(1)>' "$be: the edited text as written"
	get '/api/testsets/lines?version=1'
	is "$(jq -c '[.version, .latest, [.cases[].question]]' "$OUT")" \
		"$(jq -s -c '[1, 2, [.[].question]]' "$T/lines.jsonl")" "$be: version 1 is still there, unchanged"
	run rag rag-store -q -c "$T/c.yaml" --store "$2" testset export lines
	is "$(jq -s -c '[.[].id]' "$OUT")" '["l1","l2","l3","case-1"]' "$be: rag-store exports the new version"

	# two writers opened version 2; the first saves, the second is refused and told why
	post /api/testsets/lines/cases '{"base_version":2,"who":"cy","ops":[{"op":"delete","seqs":[4]}]}'
	is "$CODE:$(jq .version "$OUT")" 200:3 "$be: writer 1 on version 2: version 3"
	post /api/testsets/lines/cases '{"base_version":2,"who":"dee","ops":[{"op":"edit","seq":1,"case":{"question":"lost?"}}]}'
	is "$CODE:$(jq -c '[.conflict, .base_version, .latest, .author]' "$OUT")" '409:[true,2,3,"cy"]' \
		"$be: writer 2 on version 2 too: 409, with the versions and who"
	like "$(jq -r .error "$OUT")" 'was changed \(version 3 by cy at [0-9T:Z-]+\) after you opened version 2; reload it and apply your edit again' \
		"$be: naming the newer version, who made it, and what to do"
	get /api/testsets/lines
	is "$(jq -c '[.latest, (.cases | length), (.cases[0].question | test("^<script>"))]' "$OUT")" '[3,3,true]' \
		"$be: version 3 is writer 1's, writer 2's edit did not land"
	post /api/testsets/lines/cases "$(jq -n -c --rawfile t "$T/bad.jsonl" '{base_version: 3, ops: [{op: "import", file: "more.jsonl", text: $t}]}')"
	like "$CODE $(jq -r .error "$OUT")" '^400 more\.jsonl:3:[0-9]+: ' "$be: a bulk import of a broken file: FILE:LINE of the text sent"
	post /api/testsets/lines/cases "$(jq -n -c --rawfile t "$T/twice.jsonl" '{base_version: 3, ops: [{op: "import", file: "more.jsonl", text: $t}]}')"
	is "$CODE $(jq -r .error "$OUT")" '400 more.jsonl:3: id "q-3" repeats line 1' "$be: a bulk import of a file that repeats an id: 400"
	post /api/testsets/lines/cases "$(jq -n -c --rawfile t "$T/cells.csv" '{base_version: 3, ops: [{op: "import", file: "more.csv", text: $t}]}')"
	is "$CODE:$(jq -c '[.version, .n]' "$OUT")" '200:[4,5]' "$be: a bulk import: the file's cases added, version 4"
	post /api/testsets/lines/cases '{"base_version":4,"ops":[{"op":"add","case":{"id":"l2","question":"dup"}}]}'
	is "$CODE:$(jq -r .error "$OUT")" '400:two cases have the id "l2": an id names one case' "$be: an id twice: 400"
	post /api/testsets/lines/cases '{"base_version":4,"ops":[{"op":"edit","seq":9,"case":{"question":"x"}}]}'
	is "$CODE" 400 "$be: a seq the version does not have: 400"
	post /api/testsets/lines/cases '{"base_version":4,"ops":[{"op":"add","case":{"answer":"no question"}}]}'
	is "$CODE:$(jq -r .error "$OUT")" '400:a case needs its question (a text)' "$be: a case without its question: 400"
	post /api/testsets/lines/cases '{"ops":[]}'
	is "$CODE" 400 "$be: an edit without its base_version: 400"
	get /api/testsets/lines
	is "$(jq .latest "$OUT")" 4 "$be: no refused edit made a version"

	# ---------------------------------------------------------------- refused writes
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H 'Origin: http://evil.example' -H "X-CSRF-Token: $CSRF" \
		--data '{"name":"evil"}' "${URL}api/testsets")
	is "$CODE" 403 "$be: a cross-origin create: 403"
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "Origin: http://$HOSTPORT" --data '{"name":"evil"}' "${URL}api/testsets")
	is "$CODE" 403 "$be: a create without the CSRF token: 403"
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "X-CSRF-Token: $CSRF" --data '{"base_version":4}' "${URL}api/testsets/lines/delete")
	is "$CODE" 403 "$be: a delete with neither Origin nor Referer: 403"
	get /api/testsets/evil
	is "$CODE" 404 "$be: nothing was made"

	# ---------------------------------------------------------------- delete
	post /api/testsets/lines/delete '{"base_version":3}'
	is "$CODE" 409 "$be: a delete based on an older version: 409"
	post /api/testsets/empty/delete '{"base_version":1}'
	is "$CODE:$(jq -c .deleted "$OUT")" '200:true' "$be: a test set no run names: deleted"
	get /api/testsets/empty
	is "$CODE" 404 "$be: and gone"
	head -n 2 "$TOP/share/examples/example.jsonl" | rag rag-kw -q -c "$T/c.yaml" >"$T/run.jsonl"
	run rag rag-store -q -c "$T/c.yaml" --store "$2" --run-id R1 --testset arr add - <"$T/run.jsonl"
	is "$RC" 0 "$be: a run of test set arr added"
	post /api/testsets/arr/delete '{"base_version":1}'
	is "$CODE:$(jq -r .conflict "$OUT")" 409:true "$be: a test set a run names: refused, 409"
	like "$(jq -r .error "$OUT")" 'test set "arr" is kept: 1 run of the history names it \(the newest: R1\)' "$be: and says which run"
	get /api/testsets/arr
	is "$CODE" 200 "$be: it is still there"
	get /api/testsets
	is "$(jq -c '[.testsets[] | select(.name == "arr") | .runs]' "$OUT")" '[1]' "$be: the list says how many runs name it"
	serve_stop
}

suite SQLite "$T/store.db"

# ---------------------------------------------------------------- PostgreSQL
if [ ! -x "$PGBIN/initdb" ]; then
	skip_missing postgresql "the test sets' API on PostgreSQL (make deps installs it)"
	done_testing
fi
if ! pg_start; then
	tap_ok 1 "a PostgreSQL server of our own started"
	done_testing
fi
suite PostgreSQL "postgresql://ragpipe@/postgres?host=$PGDIR/sock"

done_testing
