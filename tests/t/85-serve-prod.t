#!/bin/sh
# 85-serve-prod.t - production windows in the store and rag-serve's Production API (issue 38,
# item 4): rag-gate --window's lines and their records kept by rag-store add-window (trace ids
# kept), read back through /api/production/windows and a window's records worst first (by
# each record's lowest score, or by one metric), a record made a case of a test set (a new
# version, its trace id kept; 409 on an old version, 403 without CSRF), bad arguments and
# broken input refused; trace_url other than http(s) refused at start. On SQLite and on a
# PostgreSQL server of the test's own; every expectation computed by hand below.
. "$(dirname "$0")/lib.sh"
need jq curl
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
printf 'llm:\n  provider: offline\ntrace_url: "https://traces.example/trace/{trace_id}?from=ragpipe"\n' >"$T/c.yaml"

trap 'serve_stop; pg_stop; _lib_cleanup' EXIT
get() {
	_p=$1; shift
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' "$@" "$URL${_p#/}")
}
post() {
	_p=$1 _b=$2; shift 2
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "Origin: http://$HOSTPORT" -H "X-CSRF-Token: $CSRF" \
		-H 'Content-Type: application/json' "$@" --data-binary "$_b" "$URL${_p#/}")
}

# five scored records of rag-trace, an hour apart: faithfulness 0.8 0.7 0.6 0.5 0.4,
# answer_relevancy 1 but 0.1 for the second; the fourth's trace id needs URL-encoding, the
# fifth's question is hostile
cat >"$T/records.jsonl" <<'EOT'
{"id":"t1","trace_id":"aa01","started":"2026-12-06T01:10:00Z","question":"q1","contexts":[{"id":"d1","text":"c1","score":0.9}],"context_ids":["d1"],"answer":"a1","scores":{"faithfulness":0.8,"answer_relevancy":1}}
{"id":"t2","trace_id":"aa02","started":"2026-12-06T02:10:00Z","question":"q2","contexts":[{"id":"d2","text":"c2"}],"answer":"a2","scores":{"faithfulness":0.7,"answer_relevancy":0.1}}
{"id":"t3","trace_id":"aa03","started":"2026-12-06T03:10:00Z","question":"q3","contexts":[],"answer":"a3","scores":{"faithfulness":0.6,"answer_relevancy":1}}
{"id":"t4","trace_id":"a/b&c d","started":"2026-12-06T04:10:00Z","question":"q4","contexts":[{"id":"d4","text":"c4"}],"answer":"a4","scores":{"faithfulness":0.5,"answer_relevancy":1}}
{"id":"t5","trace_id":"aa05","started":"2026-12-06T05:10:00Z","question":"<script>alert(1)</script> & \"q5\"","contexts":[{"id":"d5","text":"refunds in 30 days"},{"id":"d6","text":"c6"}],"context_ids":["d5","d6"],"answer":"a5","scores":{"faithfulness":0.4,"answer_relevancy":1}}
EOT
# windows of 3: [t1 t2 t3] (faithfulness mean 0.7 >= 0.6: pass), [t4 t5] (0.45: fail)
run rag rag-gate --window 3 -t faithfulness=0.6 "$T/records.jsonl"
cp "$OUT" "$T/windows.jsonl"
is "$(jq -c '[.window, .records, .pass]' "$T/windows.jsonl" | tr '\n' ' ')" '[1,3,true] [2,2,false] ' "rag-gate --window 3: two windows, the second failing"
printf '{"question":"old","reference":"kept"}\n' >"$T/set.jsonl"

# suite BACKEND STORE-URL
suite() {
	be=$1
	run rag rag-store -q -c "$T/c.yaml" --store "$2" add-window "$T/windows.jsonl" "$T/records.jsonl"
	is "$RC:$(tr '\n' ' ' <"$OUT")" "0:1 2 " "$be: add-window: the windows' numbers in the store"
	run rag rag-store -q -c "$T/c.yaml" --store "$2" testset import "$T/set.jsonl" --name refunds
	is "$RC" 0 "$be: a test set to add to"
	# broken input: a window that says more records than are left; a line that is no window's
	head -n 4 "$T/records.jsonl" >"$T/four.jsonl"
	run rag rag-store -q -c "$T/c.yaml" --store "$2" add-window "$T/windows.jsonl" "$T/four.jsonl"
	is "$RC" 3 "$be: records fewer than the windows say: exit 3, nothing stored"
	like "$(cat "$ERR")" "windows.jsonl:2\\): the window says more records than RECORDS.jsonl has left" "$be: naming the window's line"
	run rag rag-store -q -c "$T/c.yaml" --store "$2" add-window - - </dev/null
	is "$RC" 2 "$be: add-window - -: both cannot be the standard input, exit 2"
	printf '{"nope":1}\n' >"$T/nowin.jsonl"
	run rag rag-store -q -c "$T/c.yaml" --store "$2" add-window "$T/nowin.jsonl" "$T/records.jsonl"
	is "$RC" 3 "$be: a line that is no window's: exit 3"
	serve_start --store "$2" || { tap_ok 1 "$be: rag-serve started"; return; }

	get /api/production/windows
	is "$CODE:$(jq -c '[.total, [.windows[] | [.id, .window, .records, .pass, (.means.faithfulness * 1000 | round)]]]' "$OUT")" \
		'200:[2,[[1,1,3,true,700],[2,2,2,false,450]]]' "$be: the windows, oldest first: means by hand (0.8+0.7+0.6)/3, (0.5+0.4)/2"
	is "$(jq -c '[.windows[] | .checks[0].args.threshold]' "$OUT")" '[0.6,0.6]' "$be: each with its checks and threshold"
	get '/api/production/windows?limit=1'
	is "$(jq -c '[.total, [.windows[].id]]' "$OUT")" '[2,[2]]' "$be: limit=1: the newest"
	# window 1 by each record's lowest score: t2 0.1, t3 0.6, t1 0.8
	get /api/production/windows/1/records
	is "$CODE:$(jq -c '[.total, [.records[] | [.seq, .trace_id, .score]]]' "$OUT")" \
		'200:[3,[[2,"aa02",0.1],[3,"aa03",0.6],[1,"aa01",0.8]]]' "$be: window 1's records, the lowest score first"
	get '/api/production/windows/1/records?metric=faithfulness&limit=2'
	is "$(jq -c '[.metric, [.records[] | [.seq, .score]]]' "$OUT")" '["faithfulness",[[3,0.6],[2,0.7]]]' \
		"$be: by faithfulness, two: t3 0.6, t2 0.7"
	get /api/production/windows/2/records
	is "$(jq -c '[.records[] | [.seq, .trace_id, .record.question]]' "$OUT")" \
		'[[2,"aa05","<script>alert(1)</script> & \"q5\""],[1,"a/b&c d","q4"]]' "$be: window 2: t5 0.4 then t4 0.5, the records whole"
	get /api/production/windows/9/records
	is "$CODE:$(jq -r .error "$OUT")" "404:no production window 9" "$be: no such window: 404"
	get /api/production/windows/x/records
	is "$CODE" 404 "$be: a window that is no number: 404"
	get '/api/production/windows/1/records?limit=0'
	is "$CODE:$(jq -r .error "$OUT")" "400:limit: a whole number from 1 to 1000" "$be: limit=0: 400"
	get /api/session
	is "$(jq -r .trace_url "$OUT")" "https://traces.example/trace/{trace_id}?from=ragpipe" "$be: the trace viewer's template for the page"

	# add to test set: window 2's worst (t5) as a case of refunds, version 1 -> 2
	post /api/production/add '{"window":2,"seq":2,"testset":"refunds","base_version":1,"who":"oncall"}'
	is "$CODE:$(jq -c '[.name, .version, .n]' "$OUT")" '200:["refunds",2,2]' "$be: added: version 2, 2 cases"
	get /api/testsets/refunds
	is "$(jq -c '[.version, .author, (.cases | length)]' "$OUT")" '[2,"oncall",2]' "$be: the new version, by its author"
	is "$(jq -c '.cases[1] | [.question, .contexts, .context_ids, .answer, .trace_id, .id]' "$OUT")" \
		'["<script>alert(1)</script> & \"q5\"",["refunds in 30 days","c6"],["d5","d6"],"a5","aa05","case-2"]' \
		"$be: the case: question, the contexts' texts, their ids, answer, the trace id kept"
	get '/api/testsets/refunds?version=1'
	is "$(jq -c '[.cases[].question]' "$OUT")" '["old"]' "$be: version 1 as it was"
	post /api/production/add '{"window":2,"seq":1,"testset":"refunds","base_version":1}'
	is "$CODE:$(jq -c '[.conflict, .latest]' "$OUT")" '409:[true,2]' "$be: based on version 1 now: 409, naming version 2"
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "X-CSRF-Token: wrong" -H "Origin: http://$HOSTPORT" \
		--data-binary '{"window":2,"seq":1,"testset":"refunds","base_version":2}' "${URL}api/production/add")
	is "$CODE" 403 "$be: a wrong CSRF token: 403"
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "X-CSRF-Token: $CSRF" -H "Origin: http://evil.example" \
		--data-binary '{"window":2,"seq":1,"testset":"refunds","base_version":2}' "${URL}api/production/add")
	is "$CODE" 403 "$be: another origin: 403"
	post /api/production/add '{"window":2,"seq":7,"testset":"refunds","base_version":2}'
	is "$CODE:$(jq -r .error "$OUT")" "404:no record 7 in production window 2" "$be: no such record: 404"
	post /api/production/add '{"window":2,"seq":1}'
	is "$CODE" 400 "$be: no test set named: 400"
	post /api/production/add '{"window":2,"seq":1,"testset":"nosuch","base_version":1}'
	is "$CODE" 404 "$be: no such test set: 404"
	get /api/testsets/refunds
	is "$(jq -c '[.version, (.cases | length)]' "$OUT")" '[2,2]' "$be: none of the refused writes changed it"
	serve_stop
	run rag rag-store -q -c "$T/c.yaml" --store "$2" testset export refunds
	is "$(sed -n 2p "$OUT" | jq -r .trace_id)" aa05 "$be: rag-store exports the case with its trace id"
}

suite SQLite "$T/store.db"

# trace_url: a link on a page, so only http(s)
printf 'trace_url: "javascript:alert(1)//{trace_id}"\n' >"$T/bad.yaml"
run rag rag-serve -c "$T/bad.yaml" --store "$T/store.db" --listen 127.0.0.1:0
is "$RC" 2 "trace_url javascript:...: rag-serve refuses to start (exit 2)"
like "$(cat "$ERR")" 'trace_url: an http:// or https:// URL' "and says why"

if [ ! -x "$PGBIN/initdb" ]; then
	skip_missing postgresql "production windows on PostgreSQL (make deps installs it)"
	done_testing
fi
if ! pg_start; then
	tap_ok 1 "a PostgreSQL server of our own started"
	done_testing
fi
suite PostgreSQL "postgresql://ragpipe@/postgres?host=$PGDIR/sock"

done_testing
