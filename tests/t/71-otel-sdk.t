#!/bin/sh
# 71-otel-sdk.t - traces made by the real OpenTelemetry SDK, end to end (issue 38, item 5 and its
# "done when"). tests/otel/fakeservice.js, traced by the JavaScript SDK from npm (make test-deps:
# npm ci), answers 20 requests instrumented three ways (Spring AI's observations, the GenAI
# conventions, OpenInference): good answers, answers no context supports, one errored request,
# a thumbs-down and a thumbs-up. Its spans go at once to a file (the SDK's own OTLP JSON, one
# export request a line) and, by the OTLP/HTTP JSON exporter, to rag-serve's receiver (and in a
# second run, by the OTLP/HTTP protobuf exporter). Then:
#  - rag-trace over the file: one record a request, each field equal to the service's log (the
#    trace and root span ids the SDK gave, question, contexts, answer, model, start, latency,
#    token usage, feedback, the error);
#  - rag-trace over the receiver's spool (JSON, then protobuf): the same records as over the file
#    of the same spans, byte for byte once sorted (the
#    exporter posts its batches concurrently, so the spool's lines come in another order: a
#    quiet time beyond the stream's span makes every trace whole);
#  - the chain rag-trace | rag-claims | rag-verify (offline judge) | rag-gate --window 5 --on-fail
#    --store: the window of bad answers ran the command with its line, its means and pass rate
#    those worked out here from the scored records; the good windows did not;
#  - the failing window's worst trace added to a test set through rag-serve's API: the case has
#    its question, contexts, answer and trace id;
#  - the exporter's headers carrying rag-serve's bearer token (--token-file): refused without.
# Nothing waits on the clock: the service exits once every export is acknowledged, the pipe
# ends with its input.
. "$(dirname "$0")/lib.sh"

need jq python3 curl node
[ -x "$BIN/rag-trace" ] || bail_out "bin/rag-trace is not built: run make"
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
OTEL=$TOP/tests/otel
# the SDK's packages (engines: node ^18.19.0 || >=20.6.0)
nodev=$(node -e 'const [a, b] = process.versions.node.split(".").map(Number); console.log(a > 20 || (a === 20 && b >= 6) || (a === 18 && b >= 19) ? "ok" : process.versions.node)')
[ "$nodev" = ok ] || skip_all "node $nodev is older than the OpenTelemetry SDK's ^18.19 || >=20.6"
# its npm packages: make test-deps' npm ci; a skip for a missing tool, which check-fresh refuses
[ -d "$OTEL/node_modules/@opentelemetry/sdk-trace-base" ] || skip_all_missing tests/otel/node_modules

printf 'llm:\n  provider: offline\n' >"$T/c.yaml"
trap 'serve_stop; _lib_cleanup' EXIT

# ---------------------------------------------------------------- the requests
# 20 requests a minute apart from 2026-12-06 01:00 UTC; windows of 5 by count: requests 0-4
# good (0 a thumbs-up, 3 a thumbs-down), 5-8 answers that no context supports and 9 errored,
# 10-19 good. Latencies with half milliseconds; one context score a whole 1 (an intValue).
python3 - "$T/requests.jsonl" <<'EOF'
import json, sys
facts = [
    ("When was the Eiffel Tower completed?", "The Eiffel Tower is in Paris. It was completed in 1889.",
     "The Eiffel Tower was completed in 1889."),
    ("How long is the refund window?", "Refunds are accepted within 30 days of delivery.",
     "Refunds are accepted within 30 days of delivery."),
    ("Do you ship to Canada?", "We ship to the United States and Canada.", "We ship to Canada."),
    ("Can I pay by invoice?", "Invoices are accepted for business customers.",
     "Invoices are accepted for business customers."),
    ("How tall is Mount Fuji?", "Mount Fuji is 3776 metres tall.", "Mount Fuji is 3776 metres tall."),
]
bad = "The warehouse was painted green by Napoleon on the Moon in 1750."
out = open(sys.argv[1], "w")
for i in range(20):
    q, ctx, good = facts[i % 5]
    other = facts[(i + 2) % 5][1]
    r = {"question": q, "contexts": [{"id": "kb-%d" % (i % 5), "text": ctx, "score": 1 if i == 4 else round(0.95 - i * 0.01, 2)},
                                     {"id": "kb-%d" % ((i + 2) % 5), "text": other, "score": 0.25}],
         "answer": bad if 5 <= i <= 8 else good, "model": "gpt-4o-mini",
         "usage": {"prompt_tokens": 100 + i, "completion_tokens": 10 + i},
         "feedback": {0: "up", 3: "down"}.get(i), "error": "upstream 503: model overloaded" if i == 9 else None,
         "start": "2026-12-06T01:%02d:00.000Z" % i, "latency_ms": 800 + 37.5 * i}
    out.write(json.dumps(r) + "\n")
EOF

# want FLAVOUR FILTER: the filter over the service's log, the lines by trace id, compact
want() { jq -c -s "sort_by(.trace_id) | .[] | $2" "$T/$1.log"; }
# got FILE FILTER: the filter over rag-trace's records, by trace id
got() { jq -c -s "sort_by(.trace_id) | .[] | $2" "$1"; }

# rag-serve is started with --per-client 0: the SDK's exporter posts its last batches all at once
# (about 12 connections from 127.0.0.1 here), near the default 16 connections a client, and this
# test is of the traces, not of that limit (82-serve-slow.t's)
for f in springai genai openinference; do
	# ------------------------------------------------------------ the service, to a file and to rag-serve
	rm -f "$T/$f.spool"
	serve_start --store "$T/$f.db" --otlp-spool "$T/$f.spool" --per-client 0 || bail_out "rag-serve did not start"
	run node "$OTEL/fakeservice.js" --flavour $f --in "$T/requests.jsonl" --log "$T/$f.log" \
		--file "$T/$f.otlp.jsonl" --otlp-json "${URL}v1/traces"
	is "$RC:$(cat "$ERR")" "0:" "$f: the SDK exported every span, to the file and to rag-serve (exit 0)"
	is "$(nlines "$T/$f.log")" 20 "$f: the service answered 20 requests"
	check "$f: the file holds export requests of the SDK's encoding (resourceSpans, hex ids, string times)" \
		jq -e -s 'length > 1 and all(.[]; .resourceSpans[0].scopeSpans[0].scope.name == "ragpipe-fakeservice"
			and all(.resourceSpans[].scopeSpans[].spans[]; (.traceId | test("^[0-9a-f]{32}$")) and (.startTimeUnixNano | type) == "string"))' \
		"$T/$f.otlp.jsonl"

	# ------------------------------------------------------------ rag-trace over the file, field by field
	run rag rag-trace -q <"$T/$f.otlp.jsonl"
	is "$RC" 0 "$f: rag-trace over the SDK's file: exit 0"
	cp "$OUT" "$T/$f.records.jsonl"
	R=$T/$f.records.jsonl
	is "$(nlines "$R")" 20 "$f: one record a request"
	is "$(got "$R" '[.trace_id, .id, .span_id]')" "$(want $f '[.trace_id, .trace_id, .span_id]')" \
		"$f: trace ids (and record ids) and the root span's id, the SDK's"
	is "$(got "$R" .question)" "$(want $f .question)" "$f: question"
	is "$(got "$R" '[.contexts[].text]')" "$(want $f '[.contexts[].text]')" "$f: the contexts' texts, in order"
	if [ $f = springai ]; then
		# Spring AI's observations carry the documents' texts alone
		is "$(got "$R" '[(.contexts | map(keys)), .context_ids]' | sort -u)" '[[["text"],["text"]],null]' \
			"$f: no context ids or scores (Spring AI's observations have none)"
	else
		is "$(got "$R" '[.contexts, .context_ids]')" "$(want $f '[[.contexts[] | {id, text, score}], [.contexts[].id]]')" \
			"$f: the contexts' ids and scores (a whole 1 too), context_ids"
	fi
	is "$(got "$R" '.answer // null')" "$(want $f .answer)" "$f: answer (none for the errored request)"
	is "$(got "$R" .model)" "$(want $f .model)" "$f: model"
	is "$(got "$R" '[.started, .latency_ms]')" "$(want $f '[.started, .latency_ms]')" "$f: started and latency_ms, the spans' own times"
	is "$(got "$R" '.usage["rag-trace"].answer // null | if . then {prompt_tokens, completion_tokens} else null end')" \
		"$(want $f .usage)" "$f: the service's token usage"
	is "$(got "$R" '.feedback // null')" "$(want $f .feedback)" "$f: feedback as the service set it"
	is "$(got "$R" '[.trace.status, (.trace.error // "" | test("upstream 503: model overloaded"))]')" \
		"$(want $f '[(if .error then "error" else "ok" end), (.error != null)]')" "$f: the errored request's status and message"
	is "$(jq -r 'select(.feedback == -1 or .feedback == "down" or .feedback == "thumbs_down") | .question' "$R")" \
		"Can I pay by invoice?" "$f: the thumbs-down is request 3's"

	# ------------------------------------------------------------ the receiver's spool: the same records
	is "$(jq -s -c '[.[].resourceSpans[].scopeSpans[].spans[]] | length' "$T/$f.spool")" \
		"$(jq -s -c '[.[].resourceSpans[].scopeSpans[].spans[]] | length' "$T/$f.otlp.jsonl")" \
		"$f: the spool has every span the file has"
	# The exporter posts its batches concurrently: the spool has them in the order they arrived,
	# a later request's spans before an earlier one's rest. Here 20 minutes of the traces' time
	# are made in a fraction of a second, so batches posted at once are minutes apart in it and
	# the default quiet time (30 s) passes while spans of an earlier trace are still to come (a
	# live service's batches at once are as close in its time as in the wall clock's). A quiet
	# time beyond the stream's 20 minutes waits for them all.
	rag rag-trace -q --quiet-time 3600 <"$T/$f.spool" | jq -S -c . | sort >"$T/$f.spool-records"
	jq -S -c . "$R" | sort >"$T/$f.file-records"
	check "$f: rag-trace --quiet-time 3600 over the receiver's spool: the file's records, byte for byte once sorted" \
		cmp "$T/$f.spool-records" "$T/$f.file-records"

	# ------------------------------------------------------------ the chain, as a pipe
	: >"$T/$f.fired"
	run sh -c "'$BIN/rag-trace' -q <'$T/$f.otlp.jsonl' | '$BIN/rag-claims' -q -c '$T/c.yaml' |
		'$BIN/rag-verify' -q -c '$T/c.yaml' | tee '$T/$f.scored.jsonl' |
		'$BIN/rag-gate' -c '$T/c.yaml' --window 5 -t faithfulness=0.5 -r faithfulness=0.5 --on-fail 'cat >>\"$T/$f.fired\"' --store '$T/$f.db'"
	is "$RC" 0 "$f: rag-trace | rag-claims | rag-verify | rag-gate --window 5 --store: exit 0 (the last windows pass)"
	cp "$OUT" "$T/$f.windows"
	is "$(jq -c '[.window, .records, .pass]' "$T/$f.windows" | tr '\n' ' ')" \
		'[1,5,true] [2,5,false] [3,5,true] [4,5,true] ' "$f: four windows of 5; the second (bad answers, the error) fails"
	is "$(jq -c '[.window, .fired, .records]' "$T/$f.fired")" '[2,true,5]' \
		"$f: --on-fail ran once, with the failing window's line; the good windows did not run it"
	# the failing window's means and pass rate from its five scored records, by hand
	is "$(jq -c '[(.means.faithfulness * 10000 | round), (.pass_rate * 10000 | round)]' "$T/$f.fired")" \
		"$(jq -s -c '.[5:10] | [([.[].scores.faithfulness | numbers] | add / length * 10000 | round),
			(map(select(has("errors") | not)) | (map(select(.scores.faithfulness >= 0.5)) | length) / length * 10000 | round)]' \
			"$T/$f.scored.jsonl")" \
		"$f: the failing window's faithfulness mean and pass rate (records at 0.5 or more of those without errors), worked out from its records"
	is "$(jq -s -c '[.[5:9][].scores.faithfulness < 0.5, .[9].scores.faithfulness == null] | all' "$T/$f.scored.jsonl")" true \
		"$f: the unsupported answers below 0.5, the errored request without a score"

	# ------------------------------------------------------------ add to test set, through rag-serve
	printf '{"question":"old","reference":"kept"}\n' >"$T/set.jsonl"
	run rag rag-store -q -c "$T/c.yaml" --store "$T/$f.db" testset import "$T/set.jsonl" --name prod
	is "$RC" 0 "$f: a test set to add to"
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' "${URL}api/production/windows")
	wid=$(jq -r '.windows[] | select(.pass == false) | .id' "$OUT")
	is "$CODE:$(jq -c '[.total, [.windows[] | .pass]]' "$OUT")" '200:[4,[true,false,true,true]]' "$f: the store has the four windows"
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' "${URL}api/production/windows/$wid/records")
	seq=$(jq -r '.records[0].seq' "$OUT")
	worst=$(jq -c '.records[0].record | {trace_id, question, contexts: [.contexts[].text], answer}' "$OUT")
	is "$CODE:$(printf '%s' "$worst" | jq -r .trace_id)" \
		"200:$(jq -r -s '.[5:10] | map(select(.scores.faithfulness | numbers)) | min_by(.scores.faithfulness) | .trace_id' "$T/$f.scored.jsonl")" \
		"$f: the failing window's worst trace, the lowest faithfulness"
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "Origin: http://$HOSTPORT" -H "X-CSRF-Token: $CSRF" \
		-H 'Content-Type: application/json' \
		--data-binary "{\"window\":$wid,\"seq\":$seq,\"testset\":\"prod\",\"base_version\":1,\"who\":\"oncall\"}" \
		"${URL}api/production/add")
	is "$CODE:$(jq -c '[.name, .version, .n]' "$OUT")" '200:["prod",2,2]' "$f: added to the test set: version 2, two cases"
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' "${URL}api/testsets/prod")
	is "$CODE:$(jq -c '.cases[1] | {trace_id, question, contexts, answer}' "$OUT")" "200:$worst" \
		"$f: the case has the trace's question, contexts, answer and its trace id"
	serve_stop

	# ------------------------------------------------------------ the protobuf exporter
	# the SDK's OTLP/HTTP protobuf exporter (the SDKs' default protocol) to a receiver of its own,
	# the same spans to a file: rag-trace makes the same records of both
	serve_start --store "$T/$f-pb.db" --otlp-spool "$T/$f.pb-spool" --per-client 0 || bail_out "rag-serve did not start"
	run node "$OTEL/fakeservice.js" --flavour $f --in "$T/requests.jsonl" --log "$T/$f.pb.log" \
		--file "$T/$f.pb.otlp.jsonl" --otlp-proto "${URL}v1/traces"
	is "$RC:$(cat "$ERR")" "0:" "$f: the protobuf exporter's every span acknowledged by rag-serve (exit 0)"
	rag rag-trace -q --quiet-time 3600 <"$T/$f.pb-spool" | jq -S -c . | sort >"$T/$f.pb-spool-records"
	rag rag-trace -q <"$T/$f.pb.otlp.jsonl" | jq -S -c . | sort >"$T/$f.pb-file-records"
	is "$(jq -r .trace_id "$T/$f.pb-spool-records" | sort | tr '\n' ' ')" "$(jq -r .trace_id "$T/$f.pb.log" | sort | tr '\n' ' ')" \
		"$f: protobuf: a record of each of the 20 traces the SDK made"
	check "$f: rag-trace over the protobuf receiver's spool: the records of the same spans' OTLP JSON, byte for byte once sorted" \
		cmp "$T/$f.pb-spool-records" "$T/$f.pb-file-records"
	serve_stop
done

# ---------------------------------------------------------------- the API's token, as an exporter sends it
# rag-serve with --token-file: the exporter's headers option (OTEL_EXPORTER_OTLP_HEADERS) carries
# the bearer token; without it every export is refused and the service says so
printf 'otel-sdk-token-0123456789abcdef\n' >"$T/token"
serve_start --store "$T/auth.db" --otlp-spool "$T/auth.spool" --token-file "$T/token" --per-client 0 || bail_out "rag-serve did not start"
run node "$OTEL/fakeservice.js" --flavour genai --in "$T/requests.jsonl" --log "$T/auth.log" --otlp-json "${URL}v1/traces"
is "$RC:$(nlines "$T/auth.spool")" 1:0 "no token: the exports refused (exit 1), nothing in the spool"
like "$(cat "$ERR")" 'otlp-json export failed' "no token: the service says its export failed"
run node "$OTEL/fakeservice.js" --flavour genai --in "$T/requests.jsonl" --log "$T/auth.log" --otlp-json "${URL}v1/traces" \
	--header "Authorization=Bearer otel-sdk-token-0123456789abcdef"
is "$RC:$(cat "$ERR")" "0:" "the bearer token in the exporter's headers: every export taken (exit 0)"
is "$(rag rag-trace -q --quiet-time 3600 <"$T/auth.spool" | jq -r .trace_id | sort | tr '\n' ' ')" \
	"$(jq -r .trace_id "$T/auth.log" | sort | tr '\n' ' ')" "a record of each of the 20 traces"
serve_stop
check "the token in none of rag-serve's messages" sh -c "! grep -q otel-sdk-token '$T/serve.err'"

done_testing
