#!/bin/sh
# 82-serve-otlp.t - rag-serve's OTLP/HTTP receiver (POST /v1/traces, --otlp-spool): the JSON
# encoding, plain and gzip, each request one line of the spool equal to it (jq -c), and rag-trace
# reading the spool making the records it makes of the requests' file; the protobuf encoding
# (bodies made by obj/tests/otlp-pb from the same requests), plain and gzip, each spool line the
# request in JSON again and rag-trace's records the same as from JSON; the replies OTLP/HTTP
# gives (200 {} or no bytes, 400 with a Status in the request's encoding, 413 for a body or a
# gzip bomb beyond the limit, 415 for another type, 503 with Retry-After for a spool that
# cannot be written), 404 without --otlp-spool,
# the bearer token where one is required and no CSRF token, --base-path, and 20 requests at once
# making 20 whole lines. curl against a started rag-serve; nothing waits on the clock.
. "$(dirname "$0")/lib.sh"
need jq curl gzip
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
PB=$TOP/obj/tests/otlp-pb
[ -x "$PB" ] || bail_out "obj/tests/otlp-pb is not built: run make obj/tests/otlp-pb"
FX=$FIXTURES/trace
DB=$T/store.db
SPOOL=$T/spool.jsonl
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"
trap 'serve_stop; _lib_cleanup' EXIT

# post FILE [CURL ARGS...]: FILE to /v1/traces as JSON (Content-Type $CT where set); the reply into
# $OUT, the status into $CODE
post() {
	_f=$1; shift
	CODE=$(curl -s -o "$OUT" -D "$T/headers" -w '%{http_code}' -H "Content-Type: ${CT:-application/json}" \
		--data-binary "@$_f" "$@" "${URL}v1/traces")
}

# ---------------------------------------------------------------- without --otlp-spool
serve_start --store "$DB"
post "$FX/genai.jsonl"
is "$CODE" 404 "without --otlp-spool: 404"
serve_stop

# ---------------------------------------------------------------- the JSON encoding
serve_start --store "$DB" --otlp-spool "$SPOOL" --otlp-max-body 65536
check "the spool is made at start" test -f "$SPOOL"
i=0
for f in openinference genai springai; do
	# each export request of the fixtures pretty-printed: a body of many lines
	while IFS= read -r line; do
		i=$((i + 1))
		printf '%s\n' "$line" | jq . >"$T/req$i.json"
	done <"$FX/$f.jsonl"
done
NREQ=$i
codes=
for i in $(seq 1 "$NREQ"); do
	post "$T/req$i.json"
	codes="$codes$CODE $(cat "$OUT");"
done
is "$codes" "$(for i in $(seq 1 "$NREQ"); do printf '200 {};'; done)" "each request (JSON, many lines): 200 and {}"
is "$(nlines "$SPOOL")" "$NREQ" "one spool line a request"
is "$(jq -c . "$SPOOL")" "$(cat "$FX/openinference.jsonl" "$FX/genai.jsonl" "$FX/springai.jsonl" | jq -c .)" \
	"each spool line is its request (jq -c)"
like "$(grep -i '^content-type' "$T/headers")" 'application/json' "the reply is JSON"

# rag-trace over the spool makes what it makes of the requests' file
cat "$FX/openinference.jsonl" "$FX/genai.jsonl" "$FX/springai.jsonl" >"$T/direct.jsonl"
rag rag-trace -q <"$T/direct.jsonl" | jq -S -c . | sort >"$T/want.jsonl"
rag rag-trace -q <"$SPOOL" | jq -S -c . | sort >"$T/got.jsonl"
is "$(nlines "$T/got.jsonl")" 3 "rag-trace over the spool: three records"
is "$(cat "$T/got.jsonl")" "$(cat "$T/want.jsonl")" "the records rag-trace makes of the requests' file"

# ---------------------------------------------------------------- the protobuf encoding
# the same requests as protobuf bodies (OTLP/HTTP's default, http/protobuf): a spool line each,
# the request in OTLP JSON again, and rag-trace's records the same as from the JSON
: >"$SPOOL"
codes=
for i in $(seq 1 "$NREQ"); do
	"$PB" <"$T/req$i.json" >"$T/req$i.pb" || bail_out "otlp-pb cannot make request $i"
	CT=application/x-protobuf; post "$T/req$i.pb"; CT=
	codes="$codes$CODE $(wc -c <"$OUT");"
done
is "$codes" "$(for i in $(seq 1 "$NREQ"); do printf '200 0;'; done)" \
	"each request (protobuf): 200 and an empty ExportTraceServiceResponse (no bytes)"
like "$(grep -i '^content-type' "$T/headers")" 'application/x-protobuf' "the reply is protobuf"
is "$(nlines "$SPOOL")" "$NREQ" "protobuf: one spool line a request"
is "$(jq -S -c . "$SPOOL")" "$(cat "$FX/openinference.jsonl" "$FX/genai.jsonl" "$FX/springai.jsonl" | jq -S -c .)" \
	"protobuf: each spool line is its request in OTLP JSON (jq -S -c)"
rag rag-trace -q <"$SPOOL" | jq -S -c . | sort >"$T/got-pb.jsonl"
is "$(nlines "$T/got-pb.jsonl")" 3 "rag-trace over the protobuf spool: three records"
is "$(cat "$T/got-pb.jsonl")" "$(cat "$T/want.jsonl")" "the same records as from the JSON requests"
# gzip, and what is refused: a Status in protobuf (not JSON), nothing in the spool
gzip -c "$T/req1.pb" >"$T/req1.pb.gz"
CT=application/x-protobuf; post "$T/req1.pb.gz" -H 'Content-Encoding: gzip'; CT=
is "$CODE:$(wc -c <"$OUT")" '200:0' "protobuf, gzip: 200"
is "$(tail -n 1 "$SPOOL" | jq -S -c .)" "$(jq -S -c . "$T/req1.json")" "protobuf, gzip: the spool line is the request"
n0=$(nlines "$SPOOL")
printf '\n\005\001' >"$T/bad.pb"
CT=application/x-protobuf; post "$T/bad.pb"; CT=
is "$CODE" 400 "protobuf, not a request: 400"
like "$(grep -i '^content-type' "$T/headers")" 'application/x-protobuf' "its Status is protobuf"
# a Status {code = 3, message = "the body is not..."}: field 1 varint 3, field 2 the text
is "$(od -An -tx1 -N3 "$OUT" | tr -d ' ')" 080312 "its Status: code 3 (INVALID_ARGUMENT), then the message (field 2)"
like "$(tail -c +5 "$OUT")" 'not an ExportTraceServiceRequest' "its message says why"
CT=application/x-protobuf; post "$T/req1.pb" -H 'Origin: http://evil.example'; CT=
is "$CODE:$(od -An -tx1 -N2 "$OUT" | tr -d ' ')" 403:0807 "the server's own refusal of a protobuf request: a Status in protobuf (code 7)"
is "$(nlines "$SPOOL")" "$n0" "nothing refused reached the spool"

# gzip
gzip -c "$T/req1.json" >"$T/req1.json.gz"
post "$T/req1.json.gz" -H 'Content-Encoding: gzip'
is "$CODE:$(cat "$OUT")" '200:{}' "gzip: 200"
is "$(tail -n 1 "$SPOOL" | jq -c .)" "$(jq -c . "$T/req1.json")" "gzip: the spool line is the inflated request"

# what is refused, and leaves the spool as it was
n0=$(nlines "$SPOOL")
printf '%s' '{"resourceSpans": [' >"$T/bad.json"
post "$T/bad.json"
is "$CODE:$(jq -r .message "$OUT")" "400:the body is not JSON: Unfinished JSON term at EOF at line 1, column 19" \
	"a body that is not JSON: 400 and a Status saying why, not quoting the body"
printf '%s' '{"resourceSpans": {"a": 1}}' >"$T/bad2.json"
post "$T/bad2.json"
is "$CODE:$(jq -r .message "$OUT")" '400:"resourceSpans" is not an array' "resourceSpans not an array: 400, why"
printf 'not gzip' >"$T/bad.gz"
post "$T/bad.gz" -H 'Content-Encoding: gzip'
is "$CODE" 400 "Content-Encoding gzip on what is not gzip: 400"
CT=text/plain; post "$T/req1.json"; CT=
is "$CODE:$(jq -r .code "$OUT")" 415:3 "another Content-Type: 415, a Status in JSON"
like "$(jq -r .message "$OUT")" 'application/x-protobuf or application/json' "and it names the two types taken"
# the limit (65536): a body beyond it, and a gzip bomb that inflates beyond it
jq -c --arg x "$(head -c 70000 /dev/zero | tr '\0' x)" '.resourceSpans[0].resource.attributes = [{key: "x", value: {stringValue: $x}}]' \
	"$T/req1.json" >"$T/big.json"
post "$T/big.json"
is "$CODE:$(jq -r .code "$OUT")" 413:8 "a body beyond --otlp-max-body: 413 and RESOURCE_EXHAUSTED"
head -c 10000000 /dev/zero | tr '\0' ' ' | gzip -c >"$T/bomb.gz"
check "the bomb is small" test "$(wc -c <"$T/bomb.gz")" -lt 65536
post "$T/bomb.gz" -H 'Content-Encoding: gzip'
is "$CODE:$(jq -r .message "$OUT")" '413:the request inflates to more than the body limit' "a gzip bomb: 413"
CODE=$(curl -s -o "$OUT" -w '%{http_code}' "${URL}v1/traces")
is "$CODE" 405 "GET /v1/traces: 405"
post "$T/req1.json" -H 'Origin: http://evil.example'
is "$CODE" 403 "a browser's page of another site: 403"
is "$(nlines "$SPOOL")" "$n0" "nothing refused reached the spool"

# a spool that cannot be written: 503 and Retry-After
mv "$SPOOL" "$T/spool.kept"
mkdir "$SPOOL"
post "$T/req1.json"
is "$CODE" 503 "a spool that cannot be written: 503"
like "$(grep -i '^retry-after' "$T/headers")" '^[Rr]etry-[Aa]fter: [0-9]+' "and Retry-After"
rmdir "$SPOOL"
mv "$T/spool.kept" "$SPOOL"
serve_stop

# ---------------------------------------------------------------- the token, --base-path, 20 at once
printf 'abcdefghijklmnop0123456789\n' >"$T/token"
serve_start --store "$DB" --otlp-spool "$SPOOL" --token-file "$T/token" --base-path /ragpipe/ --per-client 0
URL=${URL}ragpipe/
post "$T/req1.json"
is "$CODE:$(jq -r .code "$OUT")" 401:16 "no token: 401 and UNAUTHENTICATED"
unlike "$(cat "$OUT")" abcdefghijklmnop "the reply never shows the token"
post "$T/req1.json" -H 'Authorization: Bearer wrongwrongwrongwrong'
is "$CODE" 401 "a wrong token: 401"
n0=$(nlines "$SPOOL")
post "$T/req1.json" -H 'Authorization: Bearer abcdefghijklmnop0123456789'
is "$CODE:$(cat "$OUT")" '200:{}' "the bearer token (an exporter's header), no CSRF token, under --base-path: 200"
is "$(nlines "$SPOOL")" $((n0 + 1)) "and its line"

# 20 requests at once, each of 1 MB: 20 whole lines
for i in $(seq 1 20); do
	{ printf '%s' "$i"; head -c 1000000 /dev/zero | tr '\0' y; } >"$T/big.txt"
	jq -c --rawfile x "$T/big.txt" '.resourceSpans[0].resource.attributes = [{key: "x", value: {stringValue: $x}}]' \
		"$T/req1.json" >"$T/par$i.json"
done
: >"$SPOOL"
pids=
for i in $(seq 1 20); do
	curl -s -o "$T/par$i.out" -w '%{http_code}\n' -H 'Content-Type: application/json' \
		-H 'Authorization: Bearer abcdefghijklmnop0123456789' --data-binary "@$T/par$i.json" \
		"${URL}v1/traces" >"$T/par$i.code" &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done
is "$(cat "$T"/par*.code | sort | uniq -c | tr -s ' ')" ' 20 200' "20 at once: 20 times 200"
is "$(nlines "$SPOOL")" 20 "20 lines"
is "$(jq -c . "$SPOOL" | sort | sha256sum)" "$(cat "$T"/par*.json | sort | sha256sum)" "each a whole request, none interleaved"

done_testing
