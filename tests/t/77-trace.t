#!/bin/sh
# 77-trace.t - rag-trace: OpenTelemetry traces (OTLP JSON, the Collector's file exporter) made
# into records.
#
# Hand-written export requests (tests/fixtures/trace/) of one RAG request each, instrumented
# three ways: OpenInference (the chain's root span on a line after its children), GenAI's
# conventions (structured messages and documents as JSON text) and Spring AI's observations
# (prompt and completion in the chat client's events, the vector store's documents, a
# thumbs-down). Each record is checked field by field against what the spans say. Then the
# order of lines and spans, the quiet time (in the traces' own time, so nothing waits on the
# clock but the one idle-input check, which waits on the record), a trace.fields mapping,
# sampling (the same picks twice and in any order, the hash worked out again in Python, the
# rate over 10,000 ids), the keep rules, the memory bound (evicted traces reported, none lost,
# the peak resident memory of 60,000 traces that of 20,000) and malformed lines.
. "$(dirname "$0")/lib.sh"

need jq python3
[ -x "$BIN/rag-trace" ] || bail_out "bin/rag-trace is not built: run make"
FX=$FIXTURES/trace

# field KEY FILE JQ-FILTER: the filter's value over the record of trace KEY in FILE, compact
field() { jq -c --arg id "$1" "select(.trace_id == \$id) | $3" "$2"; }

# ---------------------------------------------------------------- OpenInference
run rag rag-trace -q <"$FX/openinference.jsonl"
is "$RC" 0 "OpenInference: exit 0"
cp "$OUT" "$T/oi.jsonl"
is "$(nlines "$T/oi.jsonl")" 1 "OpenInference: two lines of one trace make one record"
OI=0af7651916cd43dd8448eb211c80319c
is "$(field $OI "$T/oi.jsonl" .id)" "\"$OI\"" "OpenInference: id is the trace id"
is "$(field $OI "$T/oi.jsonl" .question)" '"What is the refund window?"' "OpenInference: question from the chain's input.value"
is "$(field $OI "$T/oi.jsonl" .answer)" '"You can return it within 30 days."' "OpenInference: answer from the chain's output.value"
is "$(field $OI "$T/oi.jsonl" .contexts)" \
	'[{"id":"doc-1","text":"Refunds are accepted within 30 days of delivery.","score":0.91},{"id":"doc-2","text":"Shipping takes 3 to 5 days.","score":0.42}]' \
	"OpenInference: contexts from retrieval.documents.N.document.id/content/score, in order"
is "$(field $OI "$T/oi.jsonl" .context_ids)" '["doc-1","doc-2"]' "OpenInference: context_ids"
is "$(field $OI "$T/oi.jsonl" .model)" '"gpt-4o-mini"' "OpenInference: model from llm.model_name"
is "$(field $OI "$T/oi.jsonl" .started)" '"2025-12-06T05:46:40.000Z"' "OpenInference: started, the root's start in ISO time"
is "$(field $OI "$T/oi.jsonl" .latency_ms)" 1250 "OpenInference: latency_ms from the first start to the last end"
is "$(field $OI "$T/oi.jsonl" '.usage["rag-trace"].answer | [.calls, .prompt_tokens, .completion_tokens, .judge]')" \
	'[1,120,9,"service:gpt-4o-mini"]' "OpenInference: usage from llm.token_count.*"
is "$(field $OI "$T/oi.jsonl" '[.span_id, .feedback]')" '["a1b2c3d4e5f60718","up"]' "OpenInference: the root span's id, the feedback attribute"
is "$(field $OI "$T/oi.jsonl" '[.trace, has("errors")]')" '[{"spans":3,"status":"ok","kept":"sample"},false]' \
	"OpenInference: three spans, no error"

# ---------------------------------------------------------------- GenAI
run rag rag-trace -q <"$FX/genai.jsonl"
cp "$OUT" "$T/ga.jsonl"
GA=4bf92f3577b34da6a3ce929d0e0e4736
is "$(field $GA "$T/ga.jsonl" .question)" '"Do you ship to Canada?"' "GenAI: question from the retrieval's gen_ai.retrieval.query.text"
is "$(field $GA "$T/ga.jsonl" .answer)" '"Yes, we ship to Canada."' "GenAI: answer from gen_ai.output.messages' assistant text"
is "$(field $GA "$T/ga.jsonl" .contexts)" \
	'[{"id":"kb-7","text":"We ship to the US and Canada.","score":0.83},{"id":"kb-9","text":"Returns are free.","score":0.35}]' \
	"GenAI: contexts from gen_ai.retrieval.documents (JSON text)"
is "$(field $GA "$T/ga.jsonl" .model)" '"qwen-plus-2025-01"' "GenAI: model from gen_ai.response.model before the request's"
is "$(field $GA "$T/ga.jsonl" '.usage["rag-trace"].answer | [.prompt_tokens, .completion_tokens]')" '[200,14]' \
	"GenAI: usage from gen_ai.usage.input_tokens and output_tokens"
is "$(field $GA "$T/ga.jsonl" '[.span_id, .latency_ms, .started]')" '["00f067aa0ba902b7",900,"2025-12-06T05:46:42.000Z"]' \
	"GenAI: the HTTP root span's id, latency and start"
# without the retrieval span, the question is the model's last user message
jq -c '.resourceSpans[0].scopeSpans[0].spans |= map(select(.name != "retrieval kb"))' "$FX/genai.jsonl" >"$T/ga-noret.jsonl"
run rag rag-trace -q <"$T/ga-noret.jsonl"
is "$(field $GA "$OUT" '[.question, .contexts]')" '["Context: We ship to the US and Canada. Question: Do you ship to Canada?",null]' \
	"GenAI: with no retrieval, the question is gen_ai.input.messages' last user text, no contexts"

# ---------------------------------------------------------------- Spring AI
run rag rag-trace -q <"$FX/springai.jsonl"
cp "$OUT" "$T/sp.jsonl"
SP=5b8efff798038103d269b633813fc60c
is "$(field $SP "$T/sp.jsonl" .question)" '"Can I pay by invoice?"' "Spring AI: question from the chat client's gen_ai.prompt event"
is "$(field $SP "$T/sp.jsonl" .answer)" '"Yes, invoices are accepted for orders over 500 EUR."' "Spring AI: answer from the chat client's gen_ai.completion event"
is "$(field $SP "$T/sp.jsonl" .contexts)" \
	'[{"text":"Invoices are accepted for business customers."},{"text":"Card payments are processed at once."}]' \
	"Spring AI: contexts from db.vector.query.response.documents"
is "$(field $SP "$T/sp.jsonl" '[.model, .usage["rag-trace"].answer.prompt_tokens, .usage["rag-trace"].answer.completion_tokens]')" \
	'["gpt-4o-2024-08-06",310,12]' "Spring AI: the chat model's model and usage"
is "$(field $SP "$T/sp.jsonl" '[.feedback, .trace.spans, .latency_ms]')" '[-1,4,1600]' "Spring AI: user.feedback, four spans, latency"

# Spring AI's vector store with log-query-response on (its milestones): the documents as the event
# db.vector.content.query.response, whose attribute has the query's name, db.vector.query.content
jq -c '.resourceSpans[0].scopeSpans[0].spans |= map(if .name == "vector_store pgvector query" then
	(.attributes | map(select(.key == "db.vector.query.response.documents")) | .[0].value) as $docs |
	.attributes |= map(select(.key != "db.vector.query.response.documents")) |
	.events = [{name: "db.vector.content.query.response", timeUnixNano: .endTimeUnixNano,
	            attributes: [{key: "db.vector.query.content", value: $docs}]}] else . end)' "$FX/springai.jsonl" >"$T/sp-event.jsonl"
run rag rag-trace -q <"$T/sp-event.jsonl"
is "$(field $SP "$OUT" '[.question, .contexts]')" \
	'["Can I pay by invoice?",[{"text":"Invoices are accepted for business customers."},{"text":"Card payments are processed at once."}]]' \
	"Spring AI: contexts from the vector store's query response event, not hidden by the span's query of the same name"

# ---------------------------------------------------------------- order of lines and spans
cat "$FX/openinference.jsonl" "$FX/genai.jsonl" "$FX/springai.jsonl" >"$T/all.jsonl"
run rag rag-trace -q <"$T/all.jsonl"
jq -S -c . "$OUT" | sort >"$T/all.sorted"
# every line reversed, and the spans of each line reversed
tac "$T/all.jsonl" | jq -c '.resourceSpans[0].scopeSpans[0].spans |= reverse' >"$T/rev.jsonl"
run rag rag-trace -q <"$T/rev.jsonl"
jq -S -c . "$OUT" | sort >"$T/rev.sorted"
is "$(cat "$T/rev.sorted")" "$(cat "$T/all.sorted")" "lines and spans in reverse order: the same three records"
# one span a line, all lines shuffled by a fixed permutation
jq -c '.resourceSpans[0] as $r | $r.scopeSpans[0].spans[] as $s | {resourceSpans: [$r | .scopeSpans[0].spans = [$s]]}' \
	"$T/all.jsonl" | awk '{ print (NR * 7) % 11, $0 }' | sort -n | cut -d' ' -f2- >"$T/split.jsonl"
is "$(nlines "$T/split.jsonl")" 10 "ten spans, one a line"
run rag rag-trace -q <"$T/split.jsonl"
is "$(jq -S -c . "$OUT" | sort)" "$(cat "$T/all.sorted")" "one span a line, shuffled: the same three records"

# the quiet time is in the traces' time: with 1 s, the OpenInference trace (ends at 1.25 s) is
# complete once the GenAI line (ends at 2.9 s) is read, GenAI's once Spring AI's is; with the
# default 30 s all three wait for the input's end and come in the order first seen
run rag rag-trace -q --quiet-time 1 <"$T/all.jsonl"
is "$(jq -r .trace_id "$OUT" | tr '\n' ' ')" "$OI $GA $SP " "--quiet-time 1: each trace out when a later one's spans end a second after it"
run rag rag-trace -q <"$T/rev.jsonl"
is "$(jq -r .trace_id "$OUT" | tr '\n' ' ')" "$SP $GA $OI " "default quiet time: out at the input's end, in the order first seen"
# a span that comes after its trace's record: a record of its own, marked late, with an error
{ head -1 "$FX/openinference.jsonl"; cat "$FX/genai.jsonl"; tail -1 "$FX/openinference.jsonl"; } >"$T/late.jsonl"
run rag rag-trace --quiet-time 1 <"$T/late.jsonl"
is "$(jq -c 'select(.trace_id == "'$OI'") | [.trace.spans, .trace.late, (.errors[0].message // "" | test("came after its record"))]' "$OUT" | tr '\n' ' ')" \
	'[2,null,false] [1,true,true] ' "the OpenInference root after its trace was complete: a second record, late, with an error"
like "$(cat "$ERR")" ', 1 late,' "the summary counts it"
# an idle input (tail -F between bursts) moves the clock on: the record comes without more input
mkfifo "$T/fifo"
rag rag-trace -q --quiet-time 0.2 <"$T/fifo" >"$T/live.out" 2>"$T/live.err" &
LIVE=$!
exec 7>"$T/fifo"
cat "$FX/genai.jsonl" >&7
check "an idle input: the trace's record comes while the input is still open" wait_until 30 test -s "$T/live.out"
is "$(jq -r .trace_id "$T/live.out")" "$GA" "an idle input: the waiting trace's record"
exec 7>&-
wait $LIVE
is "$?" 0 "an idle input: exit 0 at its end"

# ---------------------------------------------------------------- trace.fields
python3 - "$T/custom.jsonl" <<'EOF'
import json, sys
a = lambda k, v: {"key": k, "value": {"stringValue": v}}
span = {"traceId": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "spanId": "aaaaaaaaaaaaaaaa", "name": "handle",
        "startTimeUnixNano": "1765000000000000000", "endTimeUnixNano": "1765000000500000000",
        "attributes": [a("app.query", "Where is my parcel?"), a("app.reply", "It left the depot today."),
                       a("app.docs", json.dumps([{"id": "t-1", "text": "Parcel left the depot."}])),
                       a("app.route", "tracking"), a("app.rating", "thumbs_down")]}
open(sys.argv[1], "w").write(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}) + "\n")
EOF
run rag rag-trace -q <"$T/custom.jsonl"
is "$(jq -c '[.question, .answer, (.errors[0].message | startswith("no question in the trace"))]' "$OUT")" '[null,null,true]' \
	"names no convention knows: no question or answer, an errors entry says so"
cat >"$T/fields.yaml" <<'EOF'
trace:
  fields:
    question: app.query
    answer: app.reply
    contexts: app.docs
    feedback: app.rating
    category: app.route
EOF
run rag rag-trace -q -c "$T/fields.yaml" <"$T/custom.jsonl"
is "$(jq -c '[.question, .answer, .contexts, .context_ids, .feedback, .category, has("errors")]' "$OUT")" \
	'["Where is my parcel?","It left the depot today.",[{"id":"t-1","text":"Parcel left the depot."}],["t-1"],"thumbs_down","tracking",false]' \
	"trace.fields: each field from the attribute it names, another field (category) copied"
run rag rag-trace -q -c "$T/fields.yaml" <"$FX/openinference.jsonl"
is "$(jq -c '[.question, .answer, (.contexts | length), .feedback, has("category")]' "$OUT")" \
	'["What is the refund window?","You can return it within 30 days.",2,"up",false]' \
	"trace.fields naming attributes a trace lacks: the conventions' names still give the fields"
printf 'trace:\n  fields:\n    latency_ms: app.took\n' >"$T/bad-fields.yaml"
run rag rag-trace -q -c "$T/bad-fields.yaml" <"$T/custom.jsonl"
is "$RC" 2 "trace.fields of a field rag-trace writes itself: exit 2"
like "$(cat "$ERR")" 'trace.fields.latency_ms' "... naming the key"

# ---------------------------------------------------------------- sampling
# 10,000 traces of one span; their ids hex of a counter's SHA-256 (made here, not by the tool)
python3 - "$T/many.jsonl" 10000 <<'EOF'
import hashlib, json, sys
out, n = open(sys.argv[1], "w"), int(sys.argv[2])
a = lambda k, v: {"key": k, "value": {"stringValue": v}}
for i in range(n):
    tid = hashlib.sha256(str(i).encode()).hexdigest()[:32]
    t0 = 1765000000000000000 + i * 1000000
    span = {"traceId": tid, "spanId": tid[:16], "name": "rag", "startTimeUnixNano": str(t0), "endTimeUnixNano": str(t0 + 500000),
            "attributes": [a("openinference.span.kind", "CHAIN"), a("input.value", "question %d" % i), a("output.value", "answer %d" % i)]}
    out.write(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}) + "\n")
EOF
run rag rag-trace -q --sample 0.3 <"$T/many.jsonl"
jq -r .trace_id "$OUT" | sort >"$T/pick1"
run rag rag-trace -q --sample 0.3 <"$T/many.jsonl"
jq -r .trace_id "$OUT" | sort >"$T/pick2"
is "$(cmp "$T/pick1" "$T/pick2" && echo same)" same "--sample 0.3: the same traces picked twice"
sort -R --random-source="$T/many.jsonl" "$T/many.jsonl" >"$T/many.shuf"
run rag rag-trace -q --sample 0.3 <"$T/many.shuf"
jq -r .trace_id "$OUT" | sort >"$T/pick3"
is "$(cmp "$T/pick1" "$T/pick3" && echo same)" same "--sample 0.3: the same traces in another order"
N=$(nlines "$T/pick1")
check "--sample 0.3: $N of 10000 picked, within 0.3 +- 0.02" test "$N" -ge 2800 -a "$N" -le 3200
python3 - "$T/many.jsonl" 0.3 <<'EOF' | sort >"$T/pick.py"
import hashlib, json, sys
for line in open(sys.argv[1]):
    tid = json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    if int.from_bytes(hashlib.sha256(tid.lower().encode()).digest()[:8], "big") < float(sys.argv[2]) * 2**64:
        print(tid)
EOF
is "$(cmp "$T/pick1" "$T/pick.py" && echo same)" same "--sample: the picks are SHA-256's, as another program works them out"
run rag rag-trace -q --sample 0 <"$T/many.jsonl"
is "$(nlines "$OUT")" 0 "--sample 0: none"
run rag rag-trace --sample 0.3 <"$T/many.jsonl"
like "$(cat "$ERR")" "10000 traces: $N records, $((10000 - N)) left out by --sample" "the summary counts what sampling left out"

# ---------------------------------------------------------------- keep rules
# an error span, the Spring AI thumbs-down, a jq filter: kept with --sample 0
jq -c '.resourceSpans[0].scopeSpans[0].spans[0].status = {"code": 2, "message": "upstream timeout"}' "$FX/genai.jsonl" >"$T/ga-err.jsonl"
cat "$FX/openinference.jsonl" "$T/ga-err.jsonl" "$FX/springai.jsonl" >"$T/keep.jsonl"
run rag rag-trace -q --sample 0 <"$T/keep.jsonl"
is "$(jq -c '[.trace_id[0:4], .trace.kept, .trace.status]' "$OUT" | tr '\n' ' ')" \
	'["4bf9","error","error"] ["5b8e","feedback","ok"] ' "--sample 0: the error trace and the thumbs-down kept, the rest not"
is "$(jq -r 'select(.trace.status == "error") | .trace.error' "$OUT")" "chat qwen-plus: upstream timeout" "the error span's name and message"
run rag rag-trace -q --sample 0 --keep '.model == "gpt-4o-mini" or any(.spans[]; .attributes["llm.token_count.total"] > 100)' <"$T/keep.jsonl"
is "$(jq -r '[.trace_id[0:4], .trace.kept] | join(":")' "$OUT" | tr '\n' ' ')" "0af7:keep 4bf9:error 5b8e:feedback " \
	"--keep: a trace the filter accepts is kept too"
run rag rag-trace -q --keep '.[' <"$T/keep.jsonl"
is "$RC" 2 "--keep that does not compile: exit 2"
run rag rag-trace -q --sample 1.5 <"$T/keep.jsonl"
is "$RC" 2 "--sample above 1: exit 2"

# ---------------------------------------------------------------- memory bound
# 2,000 traces of one span of ~1 KB, never quiet: 64 KiB holds about fifty, so the oldest are
# evicted as the input goes; every trace still makes one record, each evicted one with an error
# and a warning
python3 - "$T/open.jsonl" 2000 <<'EOF'
import hashlib, json, sys
out, n = open(sys.argv[1], "w"), int(sys.argv[2])
a = lambda k, v: {"key": k, "value": {"stringValue": v}}
for i in range(n):
    tid = hashlib.sha256(b"open%d" % i).hexdigest()[:32]
    span = {"traceId": tid, "spanId": tid[:16], "parentSpanId": "ffffffffffffffff", "name": "llm",
            "startTimeUnixNano": "1765000000000000000", "endTimeUnixNano": "1765000000000000000",
            "attributes": [a("input.value", "q%d " % i + "x" * 900), a("output.value", "a%d" % i)]}
    out.write(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}) + "\n")
EOF
run rag rag-trace -v --max-memory 65536 <"$T/open.jsonl"
is "$RC" 0 "memory bound: exit 0"
is "$(nlines "$OUT")" 2000 "memory bound: 2000 traces, 2000 records, none lost"
EV=$(jq -s 'map(select(.trace.complete == false)) | length' "$OUT")
check "memory bound: most traces evicted ($EV)" test "$EV" -gt 1500
is "$(jq -s 'map(select(.trace.complete == false and (.errors[0].message | test("--max-memory")))) | length' "$OUT")" "$EV" \
	"memory bound: each evicted record has an error naming --max-memory"
is "$(grep -c 'evicted before it was complete' "$ERR")" "$EV" "memory bound: a warning for each evicted trace"
PEAK=$(sed -n 's/.*spans held at most \([0-9]*\) bytes.*/\1/p' "$ERR")
check "memory bound: the spans held stayed within --max-memory (peak $PEAK)" test "${PEAK:-999999999}" -le 65536
# the process itself: 60,000 such traces take no more memory than 20,000 (both past the 16,384
# ids remembered for late spans, so only a leak could tell them apart: 40,000 traces more at
# 50 bytes each would show)
python3 - "$T/open20.jsonl" 20000 "$T/open60.jsonl" 60000 <<'EOF'
import hashlib, json, sys
a = lambda k, v: {"key": k, "value": {"stringValue": v}}
for path, n in ((sys.argv[1], int(sys.argv[2])), (sys.argv[3], int(sys.argv[4]))):
    out = open(path, "w")
    for i in range(n):
        tid = hashlib.sha256(b"open%d" % i).hexdigest()[:32]
        span = {"traceId": tid, "spanId": tid[:16], "parentSpanId": "ffffffffffffffff", "name": "llm",
                "startTimeUnixNano": "1765000000000000000", "endTimeUnixNano": "1765000000000000000",
                "attributes": [a("input.value", "q%d " % i + "x" * 900), a("output.value", "a%d" % i)]}
        out.write(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}) + "\n")
EOF
if ldd "$BIN/rag-trace" 2>/dev/null | grep -q libasan; then
	skip "peak memory (not measured under AddressSanitizer)"
else
	run python3 "$TOP/tests/peak.py" "$T/peak.small" "$BIN/rag-trace" -q --max-memory 1048576 <"$T/open20.jsonl"
	run python3 "$TOP/tests/peak.py" "$T/peak.big" "$BIN/rag-trace" -q --max-memory 1048576 <"$T/open60.jsonl"
	SMALL=$(awk '{ print $2 }' "$T/peak.small")
	BIG=$(awk '{ print $2 }' "$T/peak.big")
	note "peak resident memory: 20,000 traces $SMALL KiB, 60,000 traces $BIG KiB (--max-memory 1 MiB)"
	check "memory bound: 60,000 traces peak within 2 MiB of 20,000's ($BIG vs $SMALL KiB)" test "$BIG" -le $((SMALL + 2048))
fi

# ---------------------------------------------------------------- malformed lines
{
	echo 'not json at all'
	echo '{"resourceSpans": 3}'
	echo '[1, 2]'
	echo ''
	jq -c '.resourceSpans[0].scopeSpans[0].spans[1].traceId = "xyz"' "$FX/genai.jsonl"
	cat "$FX/openinference.jsonl"
	printf '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "0af7651916cd'
} >"$T/bad.jsonl"
run rag rag-trace <"$T/bad.jsonl"
is "$RC" 3 "malformed lines: exit 3 (bad input data)"
like "$(cat "$ERR")" 'rag-trace: error \(at <stdin>:1\): not JSON' "not JSON: an error at its line"
like "$(cat "$ERR")" '\(at <stdin>:2\): not an OTLP export request' "no resourceSpans array: an error at its line"
like "$(cat "$ERR")" '\(at <stdin>:3\): not an OTLP export request' "a JSON array: an error at its line"
like "$(cat "$ERR")" '\(at <stdin>:5\): a span has no traceId' "a span without a trace id: a warning at its line"
like "$(cat "$ERR")" '\(at <stdin>:8\): not JSON' "a line cut short at the input's end: an error"
is "$(jq -r '.trace_id[0:4] + ":" + (.trace.spans | tostring)' "$OUT" | sort | tr '\n' ' ')" "0af7:3 4bf9:2 " \
	"malformed lines: the good lines' traces still made (the bad span left out)"
like "$(cat "$ERR")" '4 bad lines, 1 bad spans' "the summary counts them"
run rag rag-trace -q --strict <"$T/bad.jsonl"
is "$RC:$(nlines "$OUT")" "3:0" "--strict: the first bad line ends the input (exit 3), no record"
run rag rag-trace -q --max-line 1500 <"$FX/springai.jsonl"
like "$(cat "$ERR")" '\(at <stdin>:1\): the line is longer than --max-line' "a line over --max-line: an error at its line"
is "$RC:$(jq -r .trace.spans "$OUT")" "3:2" "... left out, the next line read"
# base64 ids (protobuf's JSON mapping) are read as the same hex ids
jq -c '.resourceSpans[0].scopeSpans[0].spans[].traceId = "S/kvNXezTaajzpKdDg5HNg=="' "$FX/genai.jsonl" >"$T/b64.jsonl"
run rag rag-trace -q <"$T/b64.jsonl"
is "$(jq -r .trace_id "$OUT")" "$GA" "a base64 trace id is read as its hex"

done_testing
