#!/bin/sh
# 37-cost-cap.t - the spending cap (--max-cost, llm.max_cost): no judge request is sent once the
# run's cost so far and the next request's estimate would pass it. Against the fake, whose plan
# gives every reply the same usage (1,000 prompt and 50 completion tokens), at a price of 1 per
# million input tokens and 0 per output token: each request costs exactly 0.001, and its
# estimate is its prompt's characters / 4 millionths (the prompts here are ASCII; --estimate's
# prompt_chars), so the cap points are computed by hand below.
. "$(dirname "$0")/lib.sh"

need jq
for t in rag-claims rag-verify rag-gate rag-eval; do
	[ -x "$BIN/$t" ] || bail_out "bin/$t is not built: run make"
done

i=1
while [ $i -le 9 ]; do
	printf '{"id":"q%d","question":"Where is thing %d?","contexts":["Thing %d is in Paris."],"answer":"Thing %d is in Paris."}\n' \
		$i $i $i $i
	i=$((i + 1))
done >"$T/set.jsonl"
printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\nprices:\n  judge-x:\n    input: 1\n    output: 0\n' >"$T/rag.yaml"
CONF=$T/rag.yaml
PLAN='[{"usage": {"prompt_tokens": 1000, "completion_tokens": 50}}]'
capped() { jq -s -c "map(select(.errors != null and (.errors | any(.message | startswith(\"spending cap reached\"))))) | map(.id)" "$1"; }

# one claims request's estimate (every record's prompt has as many characters: ids of one digit)
fresh "$PLAN"
run rag rag-claims -c "$CONF" --estimate <"$T/set.jsonl"
is "$(jq .estimate.requests "$OUT")" 9 "--estimate: 9 claims requests"
CH=$(jq '.estimate.prompt_chars / 9' "$OUT")
is "$(jq '.estimate.prompt_chars % 9' "$OUT")" 0 "every claims prompt has the same length ($CH characters)"
EST=$(echo "$CH" | awk '{printf "%.10f", $1 / 4 / 1e6}')
check "a request's estimate ($EST) is less than what it costs (0.001)" awk -v e="$EST" 'BEGIN { exit !(e > 0 && e < 0.001) }'

# a judge tool's --estimate says whether the cap would be reached
run rag rag-claims -c "$CONF" --estimate --max-cost 0.001 <"$T/set.jsonl"
is "$(jq -c '.estimate | [.max_cost, .cap_reached]' "$OUT")" '[0.001,true]' "rag-claims --estimate: 9 requests would pass 0.001"
like "$(cat "$ERR")" 'the spending cap \(llm.max_cost 0.001 USD\) would be reached' "rag-claims --estimate: says so"
run rag rag-claims -c "$CONF" --estimate --max-cost 1 <"$T/set.jsonl"
is "$(jq -c '.estimate.cap_reached' "$OUT")" false "rag-claims --estimate: 9 requests stay within 1"
is "$(fake_requests)" 0 "--estimate with a cap: nothing sent"

# --- the cap points: after k requests the run spent k x 0.001; request k+1 is sent when
# k x 0.001 + EST <= cap. A cap of 0.002 + EST + a tenth of a token sends 3; 0.002 + EST - a
# tenth of a token sends 2.
fresh "$PLAN"
run rag rag-claims -c "$CONF" -j 1 <"$T/set.jsonl"
cp "$OUT" "$T/nocap.jsonl"
is "$RC" 0 "without a cap: exit status 0"
is "$(fake_requests)" 9 "without a cap: 9 requests"

CAP3=$(awk -v e="$EST" 'BEGIN { printf "%.10f", 0.002 + e + 0.1e-6 }')
CAP2=$(awk -v e="$EST" 'BEGIN { printf "%.10f", 0.002 + e - 0.1e-6 }')
fresh "$PLAN"
run rag rag-claims -c "$CONF" -j 1 --max-cost "$CAP3" <"$T/set.jsonl"
is "$RC" 4 "--max-cost $CAP3: exit status 4 (records not scored)"
is "$(fake_requests)" 3 "--max-cost 0.002 + estimate (+0.1 token): 3 requests sent"
is "$(nlines "$OUT")" 9 "--max-cost: no record lost (9 lines)"
is "$(jq -r .id "$OUT" | paste -sd, -)" "q1,q2,q3,q4,q5,q6,q7,q8,q9" "--max-cost: in input order"
is "$(capped "$OUT")" '["q4","q5","q6","q7","q8","q9"]' "--max-cost: the records past the cap have the cap's error"
is "$(jq -s -c 'map(select(.id > "q3") | .claims.answer) | unique' "$OUT")" '[null]' \
	"--max-cost: the records past the cap have null claims, nothing invented"
is "$(head -3 "$OUT")" "$(head -3 "$T/nocap.jsonl")" "--max-cost: the records up to the cap are byte-identical to a run without it"
like "$(cat "$ERR")" "spending cap reached \\(llm.max_cost 0\\.00[0-9]* USD, 0.003000 spent by the run\\)" \
	"--max-cost: the summary says the cap was reached and what the run spent"

fresh "$PLAN"
run rag rag-claims -c "$CONF" -j 1 --max-cost "$CAP2" <"$T/set.jsonl"
is "$(fake_requests)" 2 "--max-cost 0.002 + estimate (-0.1 token): 2 requests sent"
is "$(capped "$OUT")" '["q3","q4","q5","q6","q7","q8","q9"]' "--max-cost one token lower: the cap falls a record earlier"

# a cap below the first request's estimate: nothing is sent
fresh "$PLAN"
run rag rag-claims -c "$CONF" -j 1 --max-cost 0.0000001 <"$T/set.jsonl"
is "$(fake_requests)" 0 "a cap below one request's estimate: nothing sent"
is "$(jq -s 'map(select(.errors[0].message | startswith("spending cap reached"))) | length' "$OUT")" 9 \
	"a cap below one request's estimate: every record has the cap's error"

# llm.max_cost and RAG_MAX_COST set it as --max-cost does; --max-cost wins
printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\n  max_cost: %s\nprices:\n  judge-x:\n    input: 1\n    output: 0\n' "$CAP3" >"$T/capped.yaml"
fresh "$PLAN"
run rag rag-claims -c "$T/capped.yaml" -j 1 <"$T/set.jsonl"
is "$(fake_requests) $RC" "3 4" "llm.max_cost: 3 requests, exit status 4"
fresh "$PLAN"
RAG_MAX_COST=$CAP2 run rag rag-claims -c "$CONF" -j 1 <"$T/set.jsonl"
is "$(fake_requests)" 2 "RAG_MAX_COST: 2 requests"
fresh "$PLAN"
run rag rag-claims -c "$T/capped.yaml" -j 1 --max-cost "$CAP2" <"$T/set.jsonl"
is "$(fake_requests)" 2 "--max-cost over llm.max_cost: 2 requests"

# the cap needs the judge model's price; a cap that is not a positive number is misuse
printf 'llm:\n  model: judge-y\n  timeout: 10\n  retries: 0\nprices:\n  judge-x:\n    input: 1\n    output: 0\n' >"$T/noprice.yaml"
fresh "$PLAN"
run rag rag-claims -c "$T/noprice.yaml" --max-cost 1 <"$T/set.jsonl"
is "$RC" 2 "a cap without the model's price: exit status 2"
like "$(cat "$ERR")" "llm.max_cost needs the price of the judge's model: prices.judge-y.input and .output" \
	"a cap without the model's price: says which price"
is "$(fake_requests)" 0 "a cap without the model's price: nothing sent"
run rag rag-claims -c "$CONF" --max-cost 0 <"$T/set.jsonl"
is "$RC" 2 "--max-cost 0: exit status 2"
run rag rag-claims -c "$CONF" --max-cost lots <"$T/set.jsonl"
like "$(cat "$ERR")" '--max-cost must be a number above 0' "--max-cost lots: says it must be a number"

# --- cache hits cost nothing: q1..q6 in the cache, then the cap of 3 requests scores 9 records
# (one fake for both: the endpoint, its port, is part of the cache key)
fresh "$PLAN"
head -6 "$T/set.jsonl" | RAG_CACHE=rw RAG_CACHE_DIR=$T/judge-cache rag rag-claims -q -c "$CONF" -j 1 >/dev/null
is "$(fake_requests)" 6 "the cache filled with 6 records"
RAG_CACHE=rw RAG_CACHE_DIR=$T/judge-cache run rag rag-claims -c "$CONF" -j 1 --max-cost "$CAP3" <"$T/set.jsonl"
is "$(fake_requests)" 9 "with the cache: 3 more requests sent, the 6 cache hits free"
is "$(capped "$OUT")" '[]' "with the cache: no record capped"
is "$RC" 0 "with the cache: exit status 0"

# --- the verdict: a record the cap left unscored is an outage (4) whatever gate.max_error_rate
fresh "$PLAN"
rag rag-claims -q -c "$CONF" -j 1 --max-cost "$CAP3" <"$T/set.jsonl" 2>/dev/null |
	rag rag-verify -q -c "$CONF" -j 1 --judge offline >"$T/verified.jsonl" 2>/dev/null
run rag rag-gate -c "$CONF" --max-error-rate 0.9 --json --summary-only <"$T/verified.jsonl"
is "$(jq -c '.verdict | [.exit_status, .capped, .not_scored]' "$OUT")" '[4,6,6]' \
	"rag-gate: capped records within --max-error-rate 0.9: the verdict's exit status 4, the capped counted"
like "$(jq -r .verdict.reason "$OUT")" '^spending cap reached: 6 of 9 records could not be scored' \
	"rag-gate: the verdict's reason starts with the cap"
run rag rag-gate -c "$CONF" --json --summary-only <"$T/nocap.jsonl"
is "$(jq -c '.verdict | has("capped")' "$OUT")" false "rag-gate: no capped record, no capped count"

# --- rag-eval: one cap for the whole run, its stages (claims, verify) in parallel sharing it
fresh "$PLAN"
run rag rag-eval -q -c "$CONF" -m faithfulness -j 1 -o "$T/run0" "$T/set.jsonl"
is "$RC" 0 "rag-eval without a cap: exit status 0"
is "$(fake_requests)" 18 "rag-eval without a cap: 18 requests"

# a cap the run stays within changes nothing: every record as without it, exit status 0
fresh "$PLAN"
run rag rag-eval -q -c "$CONF" -m faithfulness -j 1 --max-cost 0.1 -o "$T/run2" "$T/set.jsonl"
is "$RC" 0 "rag-eval --max-cost 0.1 (18 requests cost 0.018): exit status 0"
is "$(jq -c 'del(.run_id)' "$T/run2/records.jsonl")" "$(jq -c 'del(.run_id)' "$T/run0/records.jsonl")" \
	"rag-eval --max-cost 0.1: the records byte-identical to the run without a cap (but their run_id)"

# The cap point of two stages at once: rag-eval -j 1 is one request in flight for the whole
# run, and a request is sent only once it holds that slot, so after k answered it is sent when
# k x 0.001 + its estimate <= cap, or, while the one before it is answered but not yet counted,
# (k - 1) x 0.001 + that one's estimate + its own <= cap. With the cap at 0.006 + 0.00045, an
# estimate below 0.00045 and two above it, both rules send the 7th request and refuse the 8th,
# whichever stage asks: 7 requests.
run rag rag-eval -c "$CONF" -m faithfulness --estimate "$T/set.jsonl"
ESTS=$(jq -r '.estimate.stages | map(.prompt_chars / .requests / 4 / 1e6) | "\(min) \(max)"' "$OUT")
check "the stages' estimates ($ESTS): the largest below 0.00045, two of the smallest above it" \
	awk -v e="$ESTS" 'BEGIN { split(e, x, " "); exit !(x[2] < 0.00045 && 2 * x[1] > 0.00045) }'
fresh "$PLAN"
mkdir "$T/tmp"
TMPDIR=$T/tmp run rag rag-eval -q -c "$CONF" -m faithfulness -j 1 --max-cost 0.00645 -o "$T/run1" "$T/set.jsonl"
R=$T/run1/records.jsonl
is "$RC" 4 "rag-eval --max-cost: exit status 4"
is "$(nlines "$R")" 9 "rag-eval --max-cost: no record lost"
is "$(fake_requests)" 7 "rag-eval --max-cost 0.00645, two stages sharing it: 7 requests"
SCORED=$(jq -s 'map(select(.scores.faithfulness != null)) | length' "$R")
UNSC=$(jq -s 'map(select(.scores.faithfulness == null and (.errors | any(.message | startswith("spending cap reached"))))) | length' "$R")
is "$((SCORED + UNSC))" 9 "rag-eval --max-cost: every record scored or with the cap's error ($SCORED + $UNSC)"
check "rag-eval --max-cost: some records unscored" test "$UNSC" -gt 0
is "$(jq -s -c 'map(.scores.faithfulness | select(. == 0)) | length' "$R")" 0 "rag-eval --max-cost: no score 0 for a record not scored"
is "$(jq -c 'select(.scores.faithfulness != null) | del(.run_id)' "$R")" \
	"$(jq -c --slurpfile ids "$R" 'select(.id as $i | $ids | any(.id == $i and .scores.faithfulness != null)) | del(.run_id)' "$T/run0/records.jsonl")" \
	"rag-eval --max-cost: the records scored are byte-identical to the run without a cap"
is "$(jq -c '[.verdict.exit_status, .verdict.capped]' "$T/run1/run.json")" "[4,$UNSC]" "rag-eval --max-cost: run.json's verdict counts the capped records"
like "$(jq -r .exit_reason "$T/run1/run.json")" '^spending cap reached' "rag-eval --max-cost: the exit reason says the cap"
is "$(ls -A "$T/tmp")" "" "rag-eval removes its spending file from \$TMPDIR"

# shards of --jobs on this machine share it too (and the one slot of -j 1): the same cap point
if command -v parallel >/dev/null 2>&1; then
	fresh "$PLAN"
	run rag rag-eval -q -c "$CONF" -m faithfulness -j 1 --jobs 2 --max-cost 0.00645 -o "$T/run4" "$T/set.jsonl"
	is "$RC $(nlines "$T/run4/records.jsonl")" "4 9" "rag-eval --jobs 2 --max-cost: exit status 4, no record lost"
	is "$(fake_requests)" 7 "rag-eval --jobs 2 --max-cost 0.00645: 7 requests for the two shards together"
else
	skip_missing parallel "rag-eval --jobs 2 --max-cost"
	skip_missing parallel "rag-eval --jobs 2 --max-cost"
fi

# shards on other hosts cannot share the spending file: refused
run rag rag-eval -q -c "$CONF" -m faithfulness --jobs 2 --sshlogin 'nowhere.invalid' --max-cost 1 -o "$T/run3" "$T/set.jsonl"
is "$RC" 2 "rag-eval --max-cost --sshlogin: a usage error"
like "$(cat "$ERR")" 'a spending cap \(--max-cost, llm.max_cost\) holds on one machine: not with --sshlogin' \
	"rag-eval --max-cost --sshlogin: says why"

# --estimate says whether the cap would be reached
run rag rag-eval -c "$CONF" -m faithfulness --max-cost 0.0065 --estimate "$T/set.jsonl"
is "$(jq -c '.estimate | [.max_cost, .cap_reached]' "$OUT")" '[0.0065,false]' "rag-eval --estimate: the estimate stays within 0.0065"
like "$(cat "$ERR")" 'the spending cap \(llm.max_cost 0.0065 USD\) would not be reached' "rag-eval --estimate: says so"
run rag rag-eval -c "$CONF" -m faithfulness --max-cost 0.001 --estimate "$T/set.jsonl"
is "$(jq -c '.estimate.cap_reached' "$OUT")" true "rag-eval --estimate: a cap of 0.001 would be reached"
like "$(cat "$ERR")" 'the spending cap \(llm.max_cost 0.001 USD\) would be reached' "rag-eval --estimate: says so"

# --- rag-eval --batch under a cap: before a stage's batch is created its requests are weighed in
# order at the batch price (batch_discount 0.5: each claims request's estimate costs EST / 2),
# against the cap less what the run spent; those within it go in the batch, the rest are not
# sent and their records get the cap's error, as on the live path. A batch's cost (its usage at
# the batch price: 0.0005 a request) is added to the run's spending once it is taken.
bconf() {   # bconf NAME: CONF with the batch route's price, a cache and no wait between looks
	printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\n  batch_poll: 0\ncache:\n  mode: rw\n  dir: %s\nprices:\n  judge-x:\n    input: 1\n    output: 0\n    batch_discount: 0.5\n' \
		"$T/bc-$1" >"$T/$1.yaml"
}
batched() { jq -r 'select(.path | startswith("batch:")) | .n' "$FAKE_LOG" | wc -l | tr -d ' '; }
live() { jq -r 'select(.path == "/v1/chat/completions") | .n' "$FAKE_LOG" | wc -l | tr -d ' '; }
bfresh() { fresh "$PLAN"; RAG_CACHE=; export RAG_CACHE; }

bconf bnocap
bfresh
run rag rag-eval -q -c "$T/bnocap.yaml" -m faithfulness --batch -o "$T/brun0" "$T/set.jsonl"
is "$RC $(batched) $(live)" "0 18 0" "rag-eval --batch without a cap: exit 0, 18 requests in batches, none live"

# the first stage (claims): 3 x EST / 2 + a twentieth of a token admits exactly 3 of its 9
BCAP3=$(awk -v e="$EST" 'BEGIN { printf "%.10f", 3 * e / 2 + 0.05e-6 }')
bconf bcap3
bfresh
mkdir "$T/btmp"
TMPDIR=$T/btmp run rag rag-eval -c "$T/bcap3.yaml" -m faithfulness --batch --max-cost "$BCAP3" -o "$T/brun3" "$T/set.jsonl"
R=$T/brun3/records.jsonl
is "$RC" 4 "rag-eval --batch --max-cost 3 claims' estimates at the batch price: exit status 4"
is "$(batched) $(live)" "3 0" "...3 requests in the claims' batch, none sent live, none in the next stage's"
is "$(jq -c '[.collected, .requests, .capped]' "$T/brun3/batch/stage-1.json")" "[9,3,6]" "...the stage's state: 9 asked, 3 sent, 6 capped"
like "$(cat "$ERR")" "batch \\(rag-claims\\): spending cap reached: 3 of 9 requests within llm.max_cost" "...said"
is "$(nlines "$R")" 9 "...no record lost"
is "$(jq -s 'map(select(.scores.faithfulness == null and (.errors | any(.message | startswith("spending cap reached"))))) | length' "$R")" 9 \
	"...every record null, with the cap's error (no stage finished one)"
is "$(jq -s -c 'map(.scores.faithfulness | select(. == 0)) | length' "$R")" 0 "...no score 0 for a record not scored"
is "$(jq -c '[.verdict.exit_status, .verdict.capped]' "$T/brun3/run.json")" "[4,9]" "...run.json's verdict counts the capped records"
is "$(ls -A "$T/btmp")" "" "...and its spending file is removed"
BCAP2=$(awk -v e="$EST" 'BEGIN { printf "%.10f", 3 * e / 2 - 0.05e-6 }')
bconf bcap2
bfresh
run rag rag-eval -q -c "$T/bcap2.yaml" -m faithfulness --batch --max-cost "$BCAP2" -o "$T/brun2" "$T/set.jsonl"
is "$RC $(batched)" "4 2" "...a tenth of a token lower (at the batch price): 2 requests"

# killed while the capped stage's batch runs, then resumed: the requests the cap left out stay
# out (the new invocation's count starts at nothing, but the cap was reached)
printf '%s\n' "$PLAN" >"$T/plan.json"
fake_start --plan "$T/plan.json" --batch-hold
RAG_CACHE=
export RAG_CACHE
bconf bcapk
mkdir "$T/ktmp"
TMPDIR=$T/ktmp "$BIN/rag-eval" -q -c "$T/bcapk.yaml" -m faithfulness --batch --max-cost "$BCAP3" -o "$T/brunk" \
	"$T/set.jsonl" >/dev/null 2>"$T/brunk.err" &
pid=$!
looked() { jq -r 'select(.method == "GET" and (.path | startswith("/v1/batches/"))) | .n' "$FAKE_LOG" | grep -q .; }
check "a capped run looks at its held batch" wait_until 60 looked
kill -9 "$pid"
wait "$pid" 2>/dev/null
curl -s -X POST -d '{}' "$FAKE_URL/_fake/release" >/dev/null
TMPDIR=$T/ktmp run rag rag-eval -q -c "$T/bcapk.yaml" --max-cost "$BCAP3" --resume "$T/brunk"
is "$RC $(batched) $(live)" "4 3 0" "...--resume: exit status 4, still 3 requests batched, none sent live"
is "$(jq -s 'map(select(.scores.faithfulness == null and (.errors | any(.message | startswith("spending cap reached"))))) | length' "$T/brunk/records.jsonl")" 9 \
	"...every record with the cap's error"

# ...and killed after its batches, while the pipeline wrote its records (none kept here): the
# resumed run's count starts at nothing, but the requests the cap left out stay out
bconf bcapr
bfresh
run rag rag-eval -q -c "$T/bcapr.yaml" --max-cost "$BCAP3" --batch -o "$T/brunr" "$T/set.jsonl"
: >"$T/brunr/records.jsonl"
run rag rag-eval -q -c "$T/bcapr.yaml" --max-cost "$BCAP3" --resume "$T/brunr"
is "$RC $(batched) $(live)" "4 3 0" "...--resume after the batches: exit status 4, no request sent beyond the 3 batched"
is "$(jq -s 'map(select(.scores.faithfulness == null and (.errors | any(.message | startswith("spending cap reached"))))) | length' "$T/brunr/records.jsonl")" 9 \
	"...every record with the cap's error"

# the second stage sees what the first one's batch cost: all 9 claims (9 x 0.0005 = 0.0045
# spent, more than their estimates) and then exactly 2 verify requests (EV / 2 each)
run rag rag-eval -c "$CONF" -m faithfulness --estimate "$T/set.jsonl"
EV=$(jq '.estimate.stages | map(select(.tool == "rag-verify")) | .[0] | .prompt_chars / .requests / 4 / 1e6' "$OUT")
is "$(jq '.estimate.stages | map(select(.tool == "rag-verify")) | .[0] | .prompt_chars % .requests' "$OUT")" 0 \
	"every verify prompt has the same length"
BCAPV=$(awk -v v="$EV" 'BEGIN { printf "%.10f", 0.0045 + 2 * v / 2 + 0.05e-6 }')
check "...9 claims' estimates ($EST each, at half price) fit in $BCAPV" awk -v e="$EST" -v c="$BCAPV" 'BEGIN { exit !(9 * e / 2 < c) }'
bconf bcapv
bfresh
run rag rag-eval -q -c "$T/bcapv.yaml" -m faithfulness --batch --max-cost "$BCAPV" -o "$T/brunv" "$T/set.jsonl"
R=$T/brunv/records.jsonl
is "$RC" 4 "rag-eval --batch --max-cost 0.0045 + 2 verify estimates: exit status 4"
is "$(batched) $(live)" "11 0" "...9 claims and 2 verify requests in batches, none live"
is "$(jq -s -c 'map(select(.scores.faithfulness != null) | .id)' "$R")" '["q1","q2"]' "...the first 2 records scored"
is "$(jq -s -c 'map(select(.scores.faithfulness == null and (.errors | any(.message | startswith("spending cap reached")))) | .id)' "$R")" \
	'["q3","q4","q5","q6","q7","q8","q9"]' "...the other 7 null, with the cap's error"
is "$(jq -c 'select(.scores.faithfulness != null) | del(.run_id)' "$R")" \
	"$(jq -c 'select(.id == "q1" or .id == "q2") | del(.run_id)' "$T/brun0/records.jsonl")" \
	"...the records scored byte-identical to the batch run without a cap"

# the cap at the batch price needs one
printf 'llm:\n  model: judge-x\n  timeout: 10\n  retries: 0\n  batch_poll: 0\ncache:\n  mode: rw\n  dir: %s\nprices:\n  judge-x:\n    input: 1\n    output: 0\n' \
	"$T/bc-nob" >"$T/bnob.yaml"
bfresh
run rag rag-eval -q -c "$T/bnob.yaml" -m faithfulness --batch --max-cost 1 -o "$T/brunnob" "$T/set.jsonl"
is "$RC" 2 "rag-eval --batch --max-cost without a batch price: exit status 2"
like "$(cat "$ERR")" "llm.max_cost with --batch needs the batch price of the judge's model: prices.judge-x.batch_input" "...says which price"
is "$(fake_requests)" 0 "...nothing sent"

fake_stop
done_testing
