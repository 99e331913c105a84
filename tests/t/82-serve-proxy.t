#!/bin/sh
# 82-serve-proxy.t - rag-serve behind a reverse proxy (issue 36, safety 3): with --trusted-proxy
# ADDR, a request from that address has its X-Forwarded-Proto (the Origin check of a write, the
# session cookie's Secure), X-Forwarded-Host (the Origin check) and X-Forwarded-Prefix (the
# page's <base>, the cookie's Path, the login's redirect, a path that keeps the prefix)
# honoured; without the option, or from another address, the same headers change nothing.
# --base-path serves the pages under a prefix without a proxy's word. curl plays the proxy
# (TLS and sign-on are the proxy's, rag-serve(1) BEHIND A REVERSE PROXY). No test waits on
# the clock.
. "$(dirname "$0")/lib.sh"
need jq curl
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
DB=$T/store.db
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/token"
TOKEN=$(cat "$T/token")
trap 'serve_stop; _lib_cleanup' EXIT

# the proxy's request: proxied PATH [ARGS...], its HTTP status; the headers of a TLS site
# evals.example under /ragpipe, each from a variable a call may set for itself: HOST, PROTO,
# PREFIX, ORIGIN
proxied() {
	p=$1; shift
	curl -s -o "$OUT" -D "$T/head" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
		-H "Host: ${HOST:-evals.example}" -H "X-Forwarded-Proto: ${PROTO:-https}" -H 'X-Forwarded-Host: evals.example' \
		-H "X-Forwarded-Prefix: ${PREFIX:-/ragpipe}" "$@" "$URL${p#/}"
}
n=0
write() {   # write: POST /api/testsets (a new, empty test set) from the page at ORIGIN (https://evals.example)
	n=$((n + 1))
	proxied /api/testsets -X POST -H "Origin: ${ORIGIN:-https://evals.example}" -H "X-CSRF-Token: $CSRF" \
		-H 'Content-Type: application/json' --data "{\"name\": \"t$n\"}"
}
login_code() { sed -n 's/.*login?code=\([0-9a-f]*\).*/\1/p' "$T/serve.err" | head -n 1; }
session_csrf() {
	CSRF=$(curl -s -H "Authorization: Bearer $TOKEN" "${URL}api/session" | jq -r .csrf)
}
base_href() { grep -o '<base href="[^"]*">' "$OUT"; }
cookie() { tr -d '\r' <"$T/head" | sed -n 's/^Set-Cookie: rag_session=[0-9a-f]*; //p'; }
location() { tr -d '\r' <"$T/head" | sed -n 's/^Location: //p'; }

for mode in none other; do
	if [ "$mode" = none ]; then
		what="without --trusted-proxy"
		serve_start --store "$DB" --work-dir "$T/work" --token-file "$T/token"
	else
		what="from an address that is not the trusted proxy's"
		serve_start --store "$DB" --work-dir "$T/work" --token-file "$T/token" --trusted-proxy 127.0.0.9
	fi
	session_csrf
	is "$(write)" 403 "$what: X-Forwarded-Host and -Proto do not make another site's Origin this server's"
	is "$(proxied /)" 403 "$what: a Host that is not this server's, on loopback: 403"
	is "$(HOST=$HOSTPORT proxied /):$(base_href)" '200:<base href="/">' "$what: X-Forwarded-Prefix is not the page's base"
	is "$(HOST=$HOSTPORT proxied "/login?code=$(login_code)"):$(cookie):$(location)" \
		'303:Path=/; HttpOnly; SameSite=Strict:/' "$what: the cookie is not Secure, its path and the redirect /"
	serve_stop
done

# ---------------------------------------------------------------- behind the trusted proxy
serve_start --store "$DB" --work-dir "$T/work" --token-file "$T/token" --trusted-proxy 127.0.0.1
session_csrf
is "$(write)" 200 "a write from https://evals.example through the proxy (X-Forwarded-Proto, -Host): taken"
is "$(PROTO=http write)" 403 "an https Origin where the proxy says http: refused"
is "$(ORIGIN=https://evil.example write)" 403 "another site's Origin: refused"
is "$(proxied /):$(base_href)" '200:<base href="/ragpipe/">' "the page's base: the proxy's prefix"
check "and its files relative to it" grep -q '<script src="serve.js" defer>' "$OUT"
is "$(proxied /ragpipe/api/session):$(jq -r .version "$OUT")" "200:$(cat "$TOP/VERSION")" \
	"a path that keeps the prefix: the path within it"
is "$(PREFIX=/a/../b proxied /):$(base_href)" '200:<base href="/">' "a prefix that is not a plain path: none"
is "$(PREFIX='/x"><script>' proxied /):$(base_href)" '200:<base href="/">' "nor one that would be markup"
is "$(proxied "/login?code=$(login_code)"):$(cookie):$(location)" \
	'303:Path=/ragpipe/; HttpOnly; SameSite=Strict; Secure:/ragpipe/' \
	"the login: a Secure cookie of the prefix's path (the browser came by https), back to /ragpipe/"
serve_stop

# ---------------------------------------------------------------- --base-path
run rag rag-serve -c "$T/c.yaml" --store "$DB" --base-path 'a b'
is "$RC" 2 "--base-path of a text that is not a path: exit 2"
serve_start --store "$DB" --work-dir "$T/work" --base-path /ragpipe/
is "$(curl -s -o "$OUT" -w '%{http_code}' "${URL}ragpipe/"):$(base_href)" '200:<base href="/ragpipe/">' \
	"--base-path /ragpipe/: the page at /ragpipe/, its base"
is "$(curl -s -o "$OUT" -w '%{http_code}' "${URL}ragpipe/api/session")" 200 "the API under it"
is "$(curl -s -o "$OUT" -w '%{http_code}' "${URL}")" 404 "a path outside it: 404"
is "$(curl -s -o "$OUT" -w '%{http_code}' -H 'X-Forwarded-Prefix: /other' "${URL}ragpipe/"):$(base_href)" \
	'200:<base href="/ragpipe/">' "X-Forwarded-Prefix of a client: ignored"
serve_stop
is "$SRC" 0 "rag-serve stops: exit 0"
done_testing
