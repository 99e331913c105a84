#!/bin/sh
# 39-providers.t - a judge from every provider (issue 37): every LLM operation and a rag-eval run
# scored through each of fakellm.py's provider modes (a reasoning model's 400s, Azure's routes
# and api-key, a server without json_schema, usage under other names, a gateway's own header)
# with the same scores as through the plain fake; a configured header's value is a secret
# everywhere a key is; what a reasoning model refused is learned once, said once, in run.json,
# and remembered by the cache.
. "$(dirname "$0")/lib.sh"

need jq python3
for _t in rag-claims rag-verify rag-revq rag-embsim rag-judge rag-eval; do
	[ -x "$BIN/$_t" ] || bail_out "bin/$_t is not built: run make"
done

EXAMPLE=$TOP/share/examples/example.jsonl
AZ=az-secret-key-0123456789            # the key: Bearer, or azure's api-key
GW=gw-token-secret-9876543210          # a gateway's own header, from ${GW_TOKEN}
export GW_TOKEN=$GW

# the pipeline of every LLM operation, and the scores it gave, by record
ops() {  # ops NAME CONFIG: $T/NAME.scores, stderr in $T/NAME.err*
	rag rag-claims -c "$2" <"$EXAMPLE" 2>"$T/$1.err1" | rag rag-verify -c "$2" 2>"$T/$1.err2" |
		rag rag-claims -c "$2" --from reference 2>"$T/$1.err3" |
		rag rag-verify -c "$2" --metric context_recall 2>"$T/$1.err4" |
		rag rag-verify -c "$2" --chunks 2>"$T/$1.err5" |
		rag rag-revq -c "$2" 2>"$T/$1.err6" | rag rag-embsim -c "$2" 2>"$T/$1.err7" |
		rag rag-judge -c "$2" --rubric correctness,relevance 2>"$T/$1.err8" >"$T/$1.out"
	jq -c '{id, scores}' "$T/$1.out" >"$T/$1.scores"
	rag rag-eval -q -c "$2" --run-id "$1" -o "$T/run-$1" "$EXAMPLE" 2>"$T/$1.erre"
	jq -c '{id, scores}' "$T/run-$1/records.jsonl" >"$T/$1.eval"
}

# a configuration for the fake now running: MODE's own lines after llm's common ones
conf() {  # conf FILE [LINES...]
	_f=$1; shift
	{ printf 'llm:\n  model: judge-x\n  timeout: 20\n  retries: 0\n'
	  for _l in "$@"; do printf '%s\n' "$_l"; done; } >"$_f"
}

start() {  # start FAKE-ARGS...: the fake, its URL only in the configuration
	fake_start "$@"
	unset RAG_BASE_URL
	RAG_API_KEY=$AZ
	export RAG_API_KEY
}

no_secret() {  # no_secret DESC FILES...: neither secret in any of them
	_d=$1; shift
	_hits=$(grep -l -r -e "$AZ" -e "$GW" "$@" 2>/dev/null)
	is "$_hits" "" "$_d: no key or header value in any output, stderr, run.json or cache file"
}

# ---------------------------------------------------------------- the plain fake: the scores
start
conf "$T/plain.yaml" "  base_url: $FAKE_URL/v1"
ops plain "$T/plain.yaml"
is "$(nlines "$T/plain.scores")" "$(nlines "$EXAMPLE")" "plain: every record through every operation"
is "$(jq -c '.scores | keys' "$T/plain.scores" | sort -u)" \
	'["answer_relevancy","context_precision","context_recall","correctness","faithfulness","relevance"]' \
	"plain: every operation's score"
is "$(jq -s '[.[] | select(.errors)] | length' "$T/plain.out" "$T/run-plain/records.jsonl")" 0 \
	"plain: no record with an error (a null score is one not applicable)"
check "plain: rag-eval scored every record" test "$(nlines "$T/plain.eval")" -eq "$(nlines "$EXAMPLE")"

# ---------------------------------------------------------------- each provider's endpoint
same() {  # same NAME: NAME's scores are the plain fake's
	is "$(cat "$T/$1.scores")" "$(cat "$T/plain.scores")" "$1: every operation's scores as through the plain fake"
	is "$(cat "$T/$1.eval")" "$(cat "$T/plain.eval")" "$1: rag-eval's scores as through the plain fake"
}

# a reasoning model, learned from its 400s
start --provider openai-reasoning
conf "$T/reason.yaml" "  base_url: $FAKE_URL/v1"
ops reason "$T/reason.yaml"
same reason
is "$(jq -s '[.[] | select(.body.max_tokens != null)] | length > 0' "$FAKE_LOG")" true \
	"reason: the first requests asked with max_tokens (and were refused)"
is "$(jq -s '[.[] | select(.body.max_completion_tokens != null and .body.temperature == null)] | length > 0' "$FAKE_LOG")" true \
	"reason: then with max_completion_tokens and no temperature"
is "$(grep -c 'notice: judge openai:judge-x: its endpoint refused part of the request' "$T/reason.err1")" 1 \
	"reason: the tool says the adaptation once"
like "$(cat "$T/reason.err1")" "max_completion_tokens, no_temperature" "reason: and names it"
is "$(jq -c '.models.adapted' "$T/run-reason/run.json")" '{"openai:judge-x":["max_completion_tokens","no_temperature"]}' \
	"reason: run.json records the adaptation"
is "$(jq -c '.usage["rag-verify"].faithfulness.adapted' "$T/reason.out" | sort -u)" '["max_completion_tokens","no_temperature"]' \
	"reason: so does each record's usage"
is "$(jq -c '.models.adapted' "$T/run-plain/run.json")" null "plain: no adaptation in run.json"
is "$(jq -s '[.[].usage[][] | select(has("adapted"))] | length' "$T/plain.out")" 0 "plain: none in the records"

# the preset asks so from the first request, with the reasoning effort
conf "$T/preset.yaml" "  base_url: $FAKE_URL/v1" "  provider: openai-reasoning" "  reasoning_effort: low"
: >"$FAKE_LOG"
run rag rag-claims -c "$T/preset.yaml" <"$EXAMPLE"
is "$RC" 0 "preset: exit 0"
is "$(jq -s '[.[] | select(.body.max_tokens != null or .body.temperature != null)] | length' "$FAKE_LOG")" 0 \
	"preset: no request with max_tokens or a temperature, so no 400"
is "$(jq -r '.body.reasoning_effort' "$FAKE_LOG" | sort -u)" low "preset: reasoning_effort sent"
unlike "$(cat "$ERR")" "notice: judge" "preset: nothing learned, nothing said"

# a 400 about max_tokens that is not a refusal of the parameter (too large) is the request's own
printf '%s\n' '[{"times": 1, "status": 400, "body": {"error": {"message": "max_tokens is too large: 2048. This model supports at most 1024 completion tokens.", "type": "invalid_request_error", "param": "max_tokens", "code": null}}}]' >"$T/large.json"
start --plan "$T/large.json"
conf "$T/large.yaml" "  base_url: $FAKE_URL/v1"
run rag rag-claims -c "$T/large.yaml" <"$EXAMPLE"
like "$(cat "$ERR")" "http 400: max_tokens is too large" "too large: the record's error"
unlike "$(cat "$ERR")" "notice: judge" "too large: nothing adapted"
is "$(jq -s '[.[] | select(.body.max_completion_tokens != null)] | length' "$FAKE_LOG")" 0 "too large: max_tokens kept"
start --provider openai-reasoning
conf "$T/reason.yaml" "  base_url: $FAKE_URL/v1"

# learned once, remembered by the cache: the next run asks as this one learned, a replay too
: >"$FAKE_LOG"
RAG_CACHE=rw RAG_CACHE_DIR=$T/cache-reason rag rag-claims -c "$T/reason.yaml" <"$EXAMPLE" >"$T/m1.jsonl" 2>/dev/null
N1=$(nlines "$FAKE_LOG")
RAG_CACHE=rw RAG_CACHE_DIR=$T/cache-reason rag rag-claims -c "$T/reason.yaml" --from reference <"$EXAMPLE" >/dev/null 2>&1
is "$(jq -s ".[$N1:] | [.[] | select(.body.max_tokens != null or .body.temperature != null)] | length" "$FAKE_LOG")" 0 \
	"memo: a later run with the cache sends no request the endpoint refused"
run env RAG_CACHE=replay RAG_CACHE_DIR=$T/cache-reason "$BIN/rag-claims" -c "$T/reason.yaml" <"$EXAMPLE"
is "$RC" 0 "memo: a replay of the adapted run finds every reply"
is "$(jq -c .claims "$OUT")" "$(jq -c .claims "$T/m1.jsonl")" "memo: the replay's claims are the run's"
no_secret reason "$T"/reason.* "$T/run-reason" "$T/cache-reason"

# Azure OpenAI, the classic route (deployment, api-version, api-key) and the v1 route
start --provider azure --require-key "$AZ"
conf "$T/azure.yaml" "  provider: azure" "  base_url: $FAKE_URL" "  deployment: judge-dep" \
	"embeddings:" "  deployment: emb-dep"
ops azure "$T/azure.yaml"
same azure
is "$(jq -r '.path' "$FAKE_LOG" | sort -u | tr '\n' ' ')" \
	"/openai/deployments/emb-dep/embeddings?api-version=2024-10-21 /openai/deployments/judge-dep/chat/completions?api-version=2024-10-21 " \
	"azure: the classic routes, with the default api-version"
is "$(jq -r '.auth' "$FAKE_LOG" | sort -u)" null "azure: no Authorization header"
is "$(jq -r --arg k "$AZ" '.headers["api-key"] == $k' "$FAKE_LOG" | sort -u)" true "azure: the key as api-key"
no_secret azure "$T"/azure.* "$T/run-azure"
conf "$T/azure1.yaml" "  provider: azure" "  base_url: $FAKE_URL" "  api_version: 2025-01-01-preview"
: >"$FAKE_LOG"
ops azure1 "$T/azure1.yaml"
same azure1
is "$(jq -r '.path' "$FAKE_LOG" | sort -u | tr '\n' ' ')" "/openai/v1/chat/completions /openai/v1/embeddings " \
	"azure1: without a deployment, the v1 routes (no api-version)"
# what Azure says to OpenAI's request: the reason for provider azure
printf 'llm:\n  base_url: %s/openai/deployments/judge-dep\n  retries: 0\n  query:\n    api-version: 2024-10-21\n' "$FAKE_URL" >"$T/azbear.yaml"
run rag rag-claims -c "$T/azbear.yaml" <"$EXAMPLE"
like "$(cat "$ERR")" "http 401: Access denied due to invalid subscription key" "azure: a Bearer key on the classic route: 401"
unlike "$(cat "$ERR")" "$AZ" "azure: the 401's message holds no key"
is "$(jq -r '.path' "$FAKE_LOG" | tail -1)" "/openai/deployments/judge-dep/chat/completions?api-version=2024-10-21" \
	"llm.query: appended to the request's URL"
printf 'llm:\n  base_url: %s/openai/deployments/judge-dep\n  retries: 0\n  headers:\n    api-key: ${GW_TOKEN}\n' "$FAKE_URL" >"$T/aznover.yaml"
run rag rag-claims -c "$T/aznover.yaml" <"$EXAMPLE"
like "$(cat "$ERR")" "http 404: Resource not found" "azure: no api-version on the classic route: 404"

# a server without structured outputs, DeepSeek's usage, Anthropic's compatibility, llama.cpp
for m in no-schema deepseek anthropic llamacpp; do
	start --provider $m
	conf "$T/$m.yaml" "  base_url: $FAKE_URL/v1"
	ops $m "$T/$m.yaml"
	same $m
done
is "$(jq -c '.models.adapted' "$T/run-no-schema/run.json")" '{"openai:judge-x":["json_object"]}' \
	"no-schema: the json_object fallback is recorded in run.json"
is "$(jq -s '[.[].usage[][].prompt_tokens] | add > 0' "$T/deepseek.out")" true "deepseek: usage counted"
is "$(jq -s '[.[].usage[][].prompt_tokens] | add > 0' "$T/llamacpp.out")" true "llamacpp: usage counted beside its timings"

# Gemini's, Qwen's (DashScope), Ollama's and vLLM's OpenAI-compatible endpoints
for m in gemini qwen ollama vllm; do
	start --provider $m
	conf "$T/$m.yaml" "  base_url: $FAKE_URL/v1"
	ops $m "$T/$m.yaml"
	same $m
	is "$(jq -s '[.[].usage[][].prompt_tokens] | add > 0' "$T/$m.out")" true "$m: usage counted"
done
is "$(jq -c '.models.adapted' "$T/run-gemini/run.json")" '{"openai:judge-x":["json_object"]}' \
	"gemini: its list-shaped 400 for the schema taught json_object"
is "$(jq -c '.models.adapted' "$T/run-qwen/run.json")" null "qwen: every prompt says JSON: nothing refused"
is "$(jq -s '[.[] | select(.body.response_format != null)] | length > 0' "$FAKE_LOG")" true \
	"vllm: the requests had a response_format"
# an error as each of them words it: its message, not the body
printf '%s\n' '[{"times": 1, "status": 400}]' >"$T/e400.json"
for m in gemini vllm qwen; do
	start --provider $m --plan "$T/e400.json"
	conf "$T/e$m.yaml" "  base_url: $FAKE_URL/v1"
	run rag rag-claims -c "$T/e$m.yaml" <"$EXAMPLE"
	like "$(cat "$ERR")" "http 400: fake: status 400\$" "$m: an error body's message is the record's error"
	is "$(jq -s '[.[] | select(.errors)] | length' "$OUT")" 1 "$m: one record has it"
done
# Qwen refuses JSON mode when no message has the word "json": a prompt of one's own without it
sed 's/[Jj][Ss][Oo][Nn]/object/g' "$TOP/share/prompts/claims.en.txt" >"$T/claims-nojson.txt"
start --provider qwen
conf "$T/qnj.yaml" "  base_url: $FAKE_URL/v1" "prompts:" "  claims: $T/claims-nojson.txt"
run rag rag-claims -c "$T/qnj.yaml" <"$EXAMPLE"
is "$RC" 0 "qwen, a prompt without \"json\": exit 0"
is "$(jq -s '[.[] | select(.errors)] | length' "$OUT")" 0 "qwen, a prompt without \"json\": no record refused"
is "$(jq -cs '[.[] | select(.body.response_format != null) | .body.messages[0].content | test("Reply in JSON[.]$")] | unique' "$FAKE_LOG")" '[true]' \
	"qwen: the system message said JSON, as JSON mode needs"
conf "$T/qwen.yaml" "  base_url: $FAKE_URL/v1"
is "$(jq -c '.claims' "$OUT")" "$(rag rag-claims -c "$T/qwen.yaml" <"$EXAMPLE" 2>/dev/null | jq -c '.claims')" \
	"qwen, a prompt without \"json\": the claims of the installed prompt"

# a gateway's own header, from the environment, a secret everywhere
start --require-header "X-Gateway-Token=$GW"
conf "$T/gw.yaml" "  base_url: $FAKE_URL/v1" "  headers:" '    X-Gateway-Token: ${GW_TOKEN}' \
	"  query:" "    tenant: t1"
RAG_CACHE=rw RAG_CACHE_DIR=$T/cache-gw
export RAG_CACHE RAG_CACHE_DIR
ops gw "$T/gw.yaml"
RAG_CACHE=off
same gw
is "$(jq -r --arg k "$GW" '.headers["x-gateway-token"] == $k' "$FAKE_LOG" | sort -u)" true "gw: every request (embeddings too) has the header"
is "$(jq -r '.path | test("[?]tenant=t1$")' "$FAKE_LOG" | sort -u)" true "gw: and the query"
is "$(jq -c '.config.llm | has("headers")' "$T/run-gw/run.json")" false "gw: run.json's config has no headers"
no_secret gw "$T"/gw.* "$T/run-gw" "$T/cache-gw"
# a reply that quotes the header's value: scrubbed from the error
printf '[{"times": 1, "status": 400, "body": "{\\"error\\": {\\"message\\": \\"bad token {{header:X-Gateway-Token}}\\"}}"}]\n' >"$T/echo.json"
start --require-header "X-Gateway-Token=$GW" --plan "$T/echo.json"
conf "$T/gw.yaml" "  base_url: $FAKE_URL/v1" "  headers:" '    X-Gateway-Token: ${GW_TOKEN}'
run rag rag-claims -c "$T/gw.yaml" <"$EXAMPLE"
like "$(cat "$OUT" "$ERR")" "bad token \*\*\*\*" "gw: the quoted value starred out"
no_secret "gw echo" "$OUT" "$ERR"
# a redirect is not followed: the header never goes where the endpoint points
printf '[{"status": 307, "headers": {"Location": "%s/s/elsewhere/v1/chat/completions"}}]\n' "$FAKE_URL" >"$T/redir.json"
start --plan "$T/redir.json"
conf "$T/gw.yaml" "  base_url: $FAKE_URL/v1" "  headers:" '    X-Gateway-Token: ${GW_TOKEN}'
run rag rag-claims -c "$T/gw.yaml" <"$EXAMPLE"
like "$(cat "$ERR")" "http 307" "redirect: an error, not followed"
is "$(jq -s '[.[] | select(.scope == "elsewhere")] | length' "$FAKE_LOG")" 0 "redirect: nothing sent where it pointed"
# embeddings elsewhere get embeddings' own headers, never llm's
start
conf "$T/emb.yaml" "  base_url: $FAKE_URL/v1" "  headers:" '    X-Gateway-Token: ${GW_TOKEN}' \
	"embeddings:" "  base_url: $FAKE_URL/s/emb/v1"
printf '%s\n' '{"id":"e","question":"Q?","answer":"Ulm is a city.","reference":"Ulm is a city."}' |
	rag rag-embsim -q -c "$T/emb.yaml" --pair answer,reference >/dev/null
is "$(jq -r 'select(.scope == "emb") | .headers | has("x-gateway-token")' "$FAKE_LOG" | sort -u)" false \
	"embeddings at another endpoint: llm.headers not sent there"

# the cache key holds a header by a hash of its value: another value, another key
RAG_CACHE=rw RAG_CACHE_DIR=$T/cache-key
export RAG_CACHE RAG_CACHE_DIR
: >"$FAKE_LOG"
rag rag-claims -q -c "$T/emb.yaml" <"$EXAMPLE" >/dev/null
N1=$(nlines "$FAKE_LOG")
rag rag-claims -q -c "$T/emb.yaml" <"$EXAMPLE" >/dev/null
is "$(nlines "$FAKE_LOG")" "$N1" "cache key: the same header value finds the replies"
GW_TOKEN=gw-another-token-000000
rag rag-claims -q -c "$T/emb.yaml" <"$EXAMPLE" >/dev/null
GW_TOKEN=$GW
is "$(nlines "$FAKE_LOG")" "$((N1 * 2))" "cache key: another header value asks again"
no_secret "cache key" "$T/cache-key"
RAG_CACHE=off

# ---------------------------------------------------------------- configuration
printf 'llm:\n  headers:\n    X-A: "one\\ntwo"\n' >"$T/nl.yaml"
run rag rag-claims -c "$T/nl.yaml" </dev/null
is "$RC" 2 "a header value of two lines: exit 2"
like "$(cat "$ERR")" 'llm.headers: header "X-A" must be' "and says which"
printf 'llm:\n  deployment: d\n' >"$T/dep.yaml"
run rag rag-claims -c "$T/dep.yaml" </dev/null
like "$(cat "$ERR")" "llm.deployment .* needs llm.provider: azure" "a deployment without azure: refused"
printf 'llm:\n  headers:\n    X-A: ${NOT_SET_ANYWHERE}\n' >"$T/unset.yaml"
run rag rag-claims -c "$T/unset.yaml" </dev/null
like "$(cat "$ERR")" 'environment variable "NOT_SET_ANYWHERE" is not set' "an unset \${VAR} in a header: named"

done_testing
