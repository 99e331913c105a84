#!/bin/sh
# 87-serve-history.t - rag-serve's History API: /api/trends (each metric's mean per run, oldest
# first, and the share of records passed, for the runs the filters let through) and
# /api/compare (two runs' means and their difference, the records that changed most, both
# ways), over a store of three hand-made runs whose numbers can be checked by hand, on SQLite and
# on a PostgreSQL server of its own. The port is read from rag-serve's stderr line; no test
# waits on the clock.
. "$(dirname "$0")/lib.sh"
need jq curl
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
DB=$T/store.db
# a gate on each record: faithfulness 0.5 or more passes; on the mean, 0.6
printf 'llm:\n  provider: offline\ngate:\n  record:\n    faithfulness: 0.5\n  mean:\n    faithfulness: 0.6\n' >"$T/c.yaml"

# R1 (nightly, qa): faithfulness 0.8, 0.6 -> mean 0.7, 2 of 2 pass
# R2 (nightly, qa): faithfulness 0.9, 0.4 -> 0.65, 1 of 2; relevance 0.5, 1.0 -> 0.75
# R3 (a hostile label, test set zz): faithfulness 1.0, 0.2, 0.3 -> 0.5, 1 of 3
cat >"$T/r1.jsonl" <<'J'
{"id":"q1","question":"a","answer":"x","scores":{"faithfulness":0.8}}
{"id":"q2","question":"b","answer":"y","scores":{"faithfulness":0.6}}
J
cat >"$T/r2.jsonl" <<'J'
{"id":"q1","question":"a","answer":"x","scores":{"faithfulness":0.9,"relevance":0.5}}
{"id":"q2","question":"b","answer":"y","scores":{"faithfulness":0.4,"relevance":1.0}}
J
cat >"$T/r3.jsonl" <<'J'
{"id":"q1","question":"a","answer":"x","scores":{"faithfulness":1.0}}
{"id":"q2","question":"b","answer":"y","scores":{"faithfulness":0.2}}
{"id":"q3","question":"c","answer":"z","scores":{"faithfulness":0.3}}
J
HOSTILE='<img src=x onerror=alert(1)>"'"'"
trap 'serve_stop; pg_stop; _lib_cleanup' EXIT
# get PATH: the body into $OUT, the status into $CODE
get() { CODE=$(curl -s -o "$OUT" -w '%{http_code}' "$URL${1#/}"); }
# a number rounded to 6 places, for sums of binary fractions
R='def r: if type == "number" then . * 1e6 | round / 1e6 else . end;'

# checks STORE PREFIX: the three runs added to STORE, rag-serve over it, the API checked (each
# test's description after PREFIX)
checks() {
STORE=$1 P=$2
run rag rag-store -q -c "$T/c.yaml" --store "$STORE" --run-id R1 --label nightly --testset qa --commit aaaa1111 add - <"$T/r1.jsonl"
is "$RC" 0 "${P}run R1 added"
run rag rag-store -q -c "$T/c.yaml" --store "$STORE" --run-id R2 --label nightly --testset qa --commit bbbb2222 add - <"$T/r2.jsonl"
is "$RC" 0 "${P}run R2 added"
run rag rag-store -q -c "$T/c.yaml" --store "$STORE" --run-id R3 --label "$HOSTILE" --testset zz add - <"$T/r3.jsonl"
is "$RC" 0 "${P}run R3 added (a hostile label)"
serve_start --store "$STORE" || bail_out "rag-serve did not start"

# ---------------------------------------------------------------- trends
get /api/trends
is "$CODE" 200 "${P}GET /api/trends"
is "$(jq -c '[.total, .shown, [.runs[].run], .metrics]' "$OUT")" '[3,3,["R1","R2","R3"],["faithfulness","relevance"]]' \
	"${P}every run, oldest first, and the metrics of any"
is "$(jq -c "$R"' .series.faithfulness | map(r)' "$OUT")" '[0.7,0.65,0.5]' "${P}faithfulness: the mean of each run"
is "$(jq -c "$R"' .series.relevance | map(r)' "$OUT")" '[null,0.75,null]' "${P}relevance: null for the runs without it"
is "$(jq -c "$R"' .pass_rate | map(r)' "$OUT")" '[1,0.5,0.333333]' "${P}the share of records passed per run"
# the gate's thresholds each run was judged by, from its stored verdict, for the charts' lines
is "$(jq -c '[.runs[].thresholds]' "$OUT")" "$(jq -nc '[range(3) | {mean: {faithfulness: 0.6}, min_pass_rate: 1}]')" \
	"${P}each run's gate thresholds: the mean's and the pass rate's"
cp "$OUT" "$T/trends.json"
run rag rag-store -q -c "$T/c.yaml" --store "$STORE" list --json
is "$(jq -c "$R"' .series.faithfulness | map(r)' "$T/trends.json")" "$(jq -s -c "$R"' [.[].means.faithfulness | r]' "$OUT")" \
	"${P}the series is the means rag-store list gives, in its order"
get /api/trends
is "$(jq -r '.runs[2].label' "$OUT")" "$HOSTILE" "${P}a hostile label comes back as data"
is "$(curl -s -o /dev/null -w '%{content_type}' "${URL}api/trends")" 'application/json; charset=utf-8' "${P}as JSON"
get '/api/trends?label=nightly'
is "$(jq -c "$R"' [.total, [.runs[].run], (.series.faithfulness | map(r))]' "$OUT")" '[2,["R1","R2"],[0.7,0.65]]' \
	"${P}filter: label"
get '/api/trends?testset=zz'
is "$(jq -c '[.total, [.runs[].run]]' "$OUT")" '[1,["R3"]]' "${P}filter: test set"
get '/api/trends?commit=bbbb'
is "$(jq -c '[.runs[].run]' "$OUT")" '["R2"]' "${P}filter: commit prefix"
get '/api/trends?until=2000-01-01'
is "$(jq -c '[.total, .runs, .metrics, .series]' "$OUT")" '[0,[],[],{}]' "${P}filter: a date range holding none"
get '/api/trends?since=2000-01-01&until=2999-12-31'
is "$(jq .total "$OUT")" 3 "${P}filter: a date range holding all"
get '/api/trends?metric=relevance'
is "$(jq -c '[.metrics, (.series | keys)]' "$OUT")" '[["relevance"],["relevance"]]' "${P}metric: that series only"
get '/api/trends?limit=2'
is "$(jq -c '[.total, .shown, [.runs[].run]]' "$OUT")" '[3,2,["R2","R3"]]' "${P}limit: the newest runs, oldest first"
get '/api/trends?limit=0'
is "$CODE:$(jq -r .error "$OUT")" '400:limit: a whole number from 1 to 500' "${P}a bad limit: 400 and why"
get "/api/trends?since=x'or'1"
is "$CODE" 400 "${P}a since that is no date: 400"

# ---------------------------------------------------------------- compare
get '/api/compare?base=R1&new=R2'
is "$CODE" 200 "${P}GET /api/compare"
is "$(jq -c '[.base.run, .base.label, .base.n, .new.run, .new.n]' "$OUT")" '["R1","nightly",2,"R2",2]' "${P}the two runs"
# the paired means (compare.c): over the records scored in both runs; relevance, run in R2 only, has none
is "$(jq -c "$R"' [.metrics[] | [.metric, .pairs, (.base | r), (.new | r), (.delta | r)]]' "$OUT")" \
	'[["faithfulness",2,0.7,0.65,-0.05]]' "${P}each metric's paired means and the difference"
# its interval and the pass rates (issue 36 item 8): the interval rag-gate -b gives for the same
# two runs (compare.c's pairs, the gate's bootstrap and defaults), each run's stored pass rate
cp "$OUT" "$T/cmp.json"
"$BIN/rag-gate" -c "$T/c.yaml" --summary-only --json -b "$T/r1.jsonl" <"$T/r2.jsonl" >"$T/gate.json" 2>/dev/null
is "$(jq -c "$R"' [.metrics[] | [(.ci_low | r), (.ci_high | r), .change]]' "$T/cmp.json")" \
	"$(jq -c "$R"' [.baseline.metrics[] | [(.ci_low | r), (.ci_high | r), .change]]' "$T/gate.json")" \
	"${P}each mean's interval and change: rag-gate -b's for the same runs"
is "$(jq -c "$R"' [.metrics[0].ci_low, .metrics[0].ci_high, .confidence] | map(r)' "$T/cmp.json")" '[-0.2,0.1,0.95]' \
	"${P}the differences +0.1 and -0.2: the interval [-0.2, +0.1] at 95%"
is "$(jq -c "$R"' .pass_rate | [.base, .new, (.delta | r), .base_of, .new_of]' "$T/cmp.json")" '[1,0.5,-0.5,2,2]' \
	"${P}the pass rates, each run's verdict's (2 of 2, 1 of 2), and the difference"
is "$(jq -c "$R"' [.worse[] | [.id, .metric, (.base | r), (.new | r), (.delta | r)]]' "$OUT")" \
	'[["q2","faithfulness",0.6,0.4,-0.2]]' "${P}the record that got worse"
is "$(jq -c "$R"' [.better[] | [.id, .metric, (.base | r), (.new | r), (.delta | r)]]' "$OUT")" \
	'[["q1","faithfulness",0.8,0.9,0.1]]' "${P}the record that got better"
# q1 rose by 0.1, not by more than gate.regression (0.1): unchanged, as rag-gate -b counts it
is "$(jq -c '.changes' "$OUT")" '{"regressed":1,"lost":0,"improved":0,"same":1,"added":0,"removed":0}' "${P}the changes counted"
get '/api/compare?base=R2&new=R3'
is "$(jq -c "$R"' [[.worse[] | [.id, (.delta | r)]], [.better[] | [.id, (.delta | r)]], .changes.regressed, .changes.added]' "$OUT")" \
	'[[["q2",-0.2]],[["q1",0.1]],1,1]' "${P}a metric the new run did not run is not lost (q1); a record only the new run has: added"
is "$(jq -r .new.label "$OUT")" "$HOSTILE" "${P}a hostile label as data"
get '/api/compare?base=R2&new=R3&limit=1'
is "$(jq -c '[.worse[].id]' "$OUT")" '["q2"]' "${P}limit: the most changed only"
get '/api/compare?base=R1&new=nope'
is "$CODE" 404 "${P}an unknown new run: 404"
like "$(jq -r .error "$OUT")" 'nope' "${P}and which"
get '/api/compare?base=nope&new=R1'
is "$CODE" 404 "${P}an unknown base run: 404"
get '/api/compare?base=R1'
is "$CODE" 400 "${P}new missing: 400"

serve_stop
is "$SRC" 0 "${P}SIGTERM stops it"
}

checks "$DB" ""

# ---------------------------------------------------------------- one pass rate
# issue 35 item 2: History's pass rate is the gate's, passed of the records with a verdict (a
# record with an error entry has none), and says its denominator: 2 of 3, not 2 of 4
cat >"$T/e.jsonl" <<'J'
{"id":"e1","question":"a","answer":"x","scores":{"faithfulness":0.9}}
{"id":"e2","question":"b","answer":"y","scores":{"faithfulness":0.2}}
{"id":"e3","question":"c","answer":"z","scores":{"faithfulness":0.8}}
{"id":"e4","question":"d","answer":"w","scores":{"faithfulness":null},"errors":[{"tool":"rag-verify","metric":"faithfulness","message":"the judge failed"}]}
J
run rag rag-store -q -c "$T/c.yaml" --store "$T/e.db" --run-id E add - <"$T/e.jsonl"
is "$RC" 0 "a run with an errored record added"
run rag rag-gate -c "$T/c.yaml" --json "$T/e.jsonl"
gate_rate=$(jq -c "$R"' [(.pass_rate | r), .pass_rate_of, (.verdict.pass_rate | r), .verdict.with_verdict]' "$OUT")
is "$gate_rate" '[0.666667,3,0.666667,3]' "rag-gate: 2 of the 3 records with a verdict pass"
serve_start --store "$T/e.db" || bail_out "rag-serve did not start"
get /api/trends
is "$(jq -c "$R"' [(.pass_rate[0] | r), .pass_rate_of[0]]' "$OUT")" '[0.666667,3]' \
	"History: the gate's pass rate and its denominator (not 2 of 4 records)"
serve_stop
run rag rag-store --store "$T/e.db" history
is "$(jq -c "$R"' [(.pass_rate | r), .pass_rate_of]' "$OUT")" '[0.666667,3]' "rag-store history: the same, with its denominator"
run rag rag-store --store "$T/e.db" show E
is "$(jq -c "$R"' [(.verdict.pass_rate | r), .verdict.pass_rate_of]' "$OUT")" '[0.666667,3]' "rag-store show: the same"

# ---------------------------------------------------------------- PostgreSQL
# the same on a PostgreSQL server of the test's own (lib.sh's pg_start): the trends' counts and
# the filters are SQL of both backends
if [ ! -x "$PGBIN/initdb" ]; then
	skip_missing postgresql "the History API on PostgreSQL (make deps installs it)"
	done_testing
fi
if ! pg_start; then
	tap_ok 1 "a PostgreSQL server of our own started"
	done_testing
fi
checks "postgresql://ragpipe@/postgres?host=$PGDIR/sock" "PostgreSQL: "

done_testing
