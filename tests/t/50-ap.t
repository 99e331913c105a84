#!/bin/sh
# 50-ap.t - rag-ap: ranking metrics of the retrieved contexts, no judge.
#
# --trec on trec_eval's own test files (tests/fixtures/trec: qrels.test, results.test and
# qrels.rel_level from usnistgov/trec_eval v10.0 test/, with the official expected outputs
# out.test.aq, out.test.aql, out.test.meas_params and the NIST notice, LICENSE.md): every row we print must equal
# the official value to 4 decimals. Then records: the RAGAS context precision examples, the
# three sources of relevance, and the edge cases of rag-ap(1) CONVENTIONS.
. "$(dirname "$0")/lib.sh"

need jq
[ -x "$BIN/rag-ap" ] || bail_out "bin/rag-ap is not built: run make"
TR=$FIXTURES/trec

# agree MINE OFFICIAL: "COMPARED MAXDIFF MISSING": rows of MINE (measure, qid, value) looked up
# in OFFICIAL; MISSING counts rows of ours the official output does not have.
agree() {
	awk -F'\t' '
		NR == FNR { sub(/ +$/, "", $1); want[$1 "\t" $2] = $3; next }
		{ sub(/ +$/, "", $1); k = $1 "\t" $2
		  if (!(k in want)) { miss++; next }
		  n++; d = $3 - want[k]; if (d < 0) d = -d; if (d > max) max = d }
		END { printf "%d %.6f %d\n", n, max, miss }' "$2" "$1"
}

# ---------------------------------------------------------------- trec_eval agreement
run rag rag-ap --trec "$TR/qrels.test" "$TR/results.test"
is "$RC" 0 "--trec: exit 0"
res=$(agree "$OUT" "$TR/out.test.aq")
# 3 queries + all = 4 rows for each of our 46 measures, plus num_q
is "$res" "185 0.000000 0" "--trec qrels.test results.test: all 185 rows equal trec_eval -q -m all_trec (4 decimals)"
for m in map Rprec recip_rank P_5 P_10 P_1000 recall_5 recall_1000 ndcg ndcg_cut_10 map_cut_10 success_1 success_10 num_rel_ret; do
	n=$(grep -c "^$m  *	" "$OUT")
	is "$n" 4 "--trec prints $m for 3 queries and all"
done
is "$(grep -E '^map +	all	' "$OUT" | cut -f3)" 0.1785 "--trec: map all = 0.1785 as out.test.aq"

run rag rag-ap --level 2 --trec "$TR/qrels.rel_level" "$TR/results.test"
res=$(agree "$OUT" "$TR/out.test.aql")
is "$res" "185 0.000000 0" "--trec --level 2 qrels.rel_level: all 185 rows equal trec_eval -l2 (graded nDCG too)"

# -m in --trec mode: other cut-offs, against the official -m P.5,7,3 -m recall.20,2000 ... run
run rag rag-ap --trec "$TR/qrels.test" "$TR/results.test" -m p@3,p@5,p@7,recall@20,recall@2000,ndcg@10,ndcg@20,ndcg@23,hit@2,hit@5,hit@20
res=$(agree "$OUT" "$TR/out.test.meas_params")
is "$res" "44 0.000000 13" "--trec -m: 44 rows (and 13 count rows the file lacks): (P_3, P_7, recall_2000, ndcg_cut_23, success_20...) equal out.test.meas_params"
is "$(grep -c '^P_7  *	' "$OUT")" 4 "--trec -m p@7 prints P_7"

# ties: equal scores go by docno descending, whatever the rank column says
printf 'q1 0 a 1\nq1 0 b 0\nq1 0 c 1\nq2 0 x 0\n' >"$T/qrels"
printf 'q1 Q0 a 1 2.0 r\nq1 Q0 b 2 2.0 r\nq1 Q0 c 3 5 r\nq3 Q0 z 1 1 r\n' >"$T/run"
run rag rag-ap --trec "$T/qrels" "$T/run"
is "$(grep -E '^recip_rank +	q1	' "$OUT" | cut -f3)" 1.0000 "ties: c (score 5) first"
is "$(grep -E '^map +	q1	' "$OUT" | cut -f3)" 0.8333 "ties: then b before a (docno descending): map (1 + 2/3)/2"
is "$(grep -c '	q3	' "$OUT")" 0 "a query without judgments is not evaluated"
is "$(grep -E '^num_q +	all	' "$OUT" | cut -f3)" 1 "num_q counts the evaluated queries"
printf 'q1 Q0 a 1 2.0 r\nq1 Q0 a 2 1.0 r\n' >"$T/run2"
run rag rag-ap --trec "$T/qrels" "$T/run2"
is "$RC" 3 "a document ranked twice: exit 3"
like "$(cat "$ERR")" 'run2:2: document "a" is ranked twice for query "q1"' "...naming the line"
run rag rag-ap --trec "$T/nonexistent" "$T/run"
is "$RC" 2 "--trec with a missing file: exit 2, as in every tool"
run rag rag-ap --trec "$T/qrels"
is "$RC" 2 "--trec without RUN: usage error"

# ---------------------------------------------------------------- records
# ap LINE ARGS...: scores of one record, compact
ap() { _l=$1; shift; printf '%s\n' "$_l" | rag rag-ap -q "$@" >"$OUT" 2>"$ERR"; RC=$?; }
scores() { jq -c .scores "$OUT"; }

V='{"chunk":"c","reason":"r","verdict":'
ap "{\"verdicts\":{\"context_precision\":[${V}true},${V}false}]}}"
is "$(scores)" '{"context_precision":1}' "RAGAS example: relevant chunk first -> 1, not 0.9999999999"
ap "{\"verdicts\":{\"context_precision\":[${V}false},${V}true}]}}"
is "$(scores)" '{"context_precision":0.5}' "RAGAS example: relevant chunk second -> 0.5, not 0.49999999995"
ap "{\"verdicts\":{\"context_utilization\":[${V}false},${V}true}]}}"
is "$(scores)" '{"context_utilization":0.5}' "context_utilization verdicts: named so"
ap '{"retrieved_contexts":["The Eiffel Tower is located in Paris."],"reference_contexts":["Paris is the capital of France.","The Eiffel Tower is one of the most famous landmarks in Paris."]}' -m ap,recall
is "$(scores)" '{"context_precision":1,"recall":0.5}' "RAGAS non-LLM example (similarity): 1; one of two references found"
ap '{"retrieved_contexts":["The Eiffel Tower is located in Paris."],"reference_contexts":["The Eiffel Tower is one of the most famous landmarks in Paris."]}' --threshold 0.9
is "$(scores)" '{"context_precision":0}' "--threshold 0.9: not similar enough"

# hand-worked: ids d1..d5 retrieved, relevant d1, d3, d5, d8 -> gains 1,0,1,0,1 of 4 known
R='{"contexts":[{"id":"d1","text":"a"},{"id":"d2","text":"b"},{"id":"d3","text":"c"},{"id":"d4","text":"d"},{"id":"d5","text":"e"}],"relevant_ids":["d1","d3","d5","d8"]}'
ap "$R" -m ap,map,p@2,p@10,recall@3,hit@1,mrr,rprec
is "$(jq -c '.scores | map_values(. * 10000 | round / 10000)' "$OUT")" \
	'{"context_precision":0.7556,"average_precision":0.5667,"precision@2":0.5,"precision@10":0.3,"recall@3":0.5,"hit@1":1,"mrr":1,"r_precision":0.5}' \
	"ids: ap (1+2/3+3/5)/3, map the same sum/4, p@10 divides by 10, rprec 2 of top 4"
ap '{"contexts":[{"id":1},{"id":2},{"id":3}],"relevant_ids":{"3":3,"1":1,"9":2}}' -m ndcg@3,ap --level 2
is "$(jq -c '.scores | map_values(. * 10000 | round / 10000)' "$OUT")" '{"ndcg@3":0.525,"context_precision":0.3333}' \
	"graded ids: ndcg (1 + 3/2)/(3 + 2/log2 3 + 1/2); --level 2: only id 3 relevant"

# edge cases
ap "{\"verdicts\":{\"context_precision\":[${V}false},${V}false}]}}" -m ap,recall,mrr,p@2
is "$(scores)" '{"context_precision":0,"recall":null,"mrr":0,"precision@2":0}' "no relevant chunk: ap 0, recall null"
like "$(jq -r '.errors[0].message' "$OUT")" '^recall is undefined: there is no relevant item to find$' "...with the reason"
is "$RC" 0 "...and exit 0 (not an input error)"
ap '{"contexts":[],"relevant_ids":["a"]}' -m ap,p@3,recall@3,ndcg@3,p
is "$(scores)" '{"context_precision":0,"precision@3":0,"recall@3":0,"ndcg@3":0,"precision":null}' "empty list: 0, precision of the whole list null"
ap '{"contexts":[{"id":"a"},{"id":"a"}],"relevant_ids":["a"]}' -m recall,p@2
is "$(scores)" '{"recall":1,"precision@2":0.5}' "an id found twice counts once"
ap '{"contexts":["x"]}'
is "$RC" 3 "nothing to rank by: exit 3"
is "$(scores)" '{"context_precision":null}' "...null score"
like "$(jq -r '.errors[0].message' "$OUT")" 'nothing to rank by' "...and the reason"
like "$(cat "$ERR")" 'rag-ap: error \(at <stdin>:1\)' "...on stderr with the position"
ap '{"verdicts":{"context_precision":null}}'
is "$(scores)" '{"context_precision":null}' "null verdicts (judge failed upstream): null"
like "$(jq -r '.errors[0].message' "$OUT")" 'chunks of this record were not judged' "...with the reason"
# nothing to judge against: not applicable (rag(7)), not an error
printf '%s\n' '{"id":"a","contexts":["x"]}' '{"id":"b","contexts":["x"],"reference_contexts":[]}' '{"id":"c","contexts":["x"],"reference_contexts":["x"]}' |
	rag rag-ap --from similarity >"$OUT" 2>"$ERR"
is "$?:$(jq -c '[.scores.context_precision, .not_applicable.context_precision]' "$OUT" | tr '\n' ' ')" \
	'0:[null,"no reference contexts"] [null,"no reference contexts"] [1,null] ' \
	"--from similarity, no reference contexts (absent or []): null and not applicable, exit 0"
like "$(cat "$ERR")" '3 records, 0 input errors, 2 not applicable' "...counted apart in the summary"
printf '%s\n' '{"id":"a","contexts":[{"id":1}]}' | rag rag-ap -q --from ids -m ap,p@5 >"$OUT" 2>"$ERR"
is "$?:$(jq -c '.not_applicable' "$OUT")" '0:{"context_precision":"no relevant ids","precision@5":"no relevant ids"}' \
	"--from ids, no relevant_ids: every metric asked not applicable"
# an unanswerable case (expect: refusal): no relevant context by design, every metric n/a
printf '%s\n' '{"id":"u","expect":"refusal","verdicts":{"context_precision":[{"verdict":true}]}}' | rag rag-ap -q -m ap,mrr >"$OUT" 2>"$ERR"
is "$?:$(jq -c '[.scores, (.not_applicable | keys), .errors]' "$OUT")" '0:[{"context_precision":null,"mrr":null},["context_precision","mrr"],null]' \
	"expect: refusal: ap and mrr null and not applicable, no error"
# verdicts rag-verify --chunks declared not applicable: the ranking metrics of them too, same reason
printf '%s\n' '{"id":"n","verdicts":{"context_precision":null},"not_applicable":{"context_precision":"no reference answer"}}' | rag rag-ap -q -m ap,mrr >"$OUT" 2>"$ERR"
is "$?:$(jq -c '.not_applicable' "$OUT")" '0:{"context_precision":"no reference answer","mrr":"no reference answer"}' \
	"verdicts not applicable upstream: mrr not applicable with the same reason, not a bare null"
ap '{"contexts":[{"id":"a"}],"relevant_ids":"a"}'
is "$RC" 3 "relevant_ids of the wrong type: exit 3"
ap '{}' -m bleu
is "$RC" 2 "unknown metric: usage error"
like "$(cat "$ERR")" 'unknown metric "bleu"' "...named"
ap '{}' -m p@0
is "$RC" 2 "p@0: usage error"

# rag-collect's records: string contexts, their ids in context_ids
ap '{"contexts":["x","y","z"],"context_ids":["d2","d1",3],"relevant_ids":["d1",3]}' -m mrr,ap
is "$RC" 0 "string contexts with context_ids: exit 0"
is "$(jq -c '[.scores.mrr, .scores.context_precision]' "$OUT")" "[0.5,0.5833333333333333]" "ids from context_ids, in retrieval order"
ap '{"contexts":["x","y"],"context_ids":["d2"],"relevant_ids":["d1"]}' -m mrr
is "$RC" 3 "context_ids shorter than contexts: an input error"
like "$(cat "$ERR")" 'contexts\[1\] has no "id".*context_ids\[1\]' "...naming the chunk without an id"

# the source of each metric (rag-ap(1) SOURCES): the ids the user gave before a judge's
# verdicts for every id-based metric; context precision, a judge's metric, from the verdicts.
# d1 judged relevant, d2 not; the user says d2 is the relevant one.
J="\"contexts\":[{\"id\":\"d1\"},{\"id\":\"d2\"}],\"verdicts\":{\"context_precision\":[${V}true},${V}false}]}"
ap "{$J,\"relevant_ids\":[\"d2\"]}" -m ap,mrr,recall@2,p@1,hit@1,map,ndcg@2
is "$RC:$(jq -c '.scores | map_values(. * 10000 | round / 10000)' "$OUT")" \
	'0:{"context_precision":1,"mrr":0.5,"recall@2":1,"precision@1":0,"hit@1":0,"average_precision":0.5,"ndcg@2":0.6309}' \
	"ids and verdicts: ap 1 from the verdicts; mrr 1/2, recall 1/1, p@1 0, map (1/2)/1, ndcg (1/log2 3)/1 from the ids"
is "$(jq -c .relevance_from "$OUT")" \
	'{"context_precision":"verdicts","mrr":"ids","recall@2":"ids","precision@1":"ids","hit@1":"ids","average_precision":"ids","ndcg@2":"ids"}' \
	"...and each metric says its source in relevance_from"
ap "{$J,\"relevant_ids\":[\"d9\"]}" -m ap,mrr,recall@2,hit@2
is "$RC:$(scores):$(jq -c .errors "$OUT")" '0:{"context_precision":1,"mrr":0,"recall@2":0,"hit@2":0}:null' \
	"relevant id not retrieved: mrr, recall@2 and hit@2 are 0, not the verdicts' 1 and not undefined"
ap "{$J,\"relevant_ids\":{\"d2\":2}}" -m mrr,ndcg@2
is "$(jq -c '[.scores.mrr, .relevance_from.mrr]' "$OUT")" '[0.5,"ids"]' "graded ids (qrels) before verdicts too"
ap "{$J}" -m ap,mrr,recall@2
is "$(scores):$(jq -c .relevance_from "$OUT")" \
	'{"context_precision":1,"mrr":1,"recall@2":1}:{"context_precision":"verdicts","mrr":"verdicts","recall@2":"verdicts"}' \
	"no relevant_ids: the verdicts, and relevance_from says so"
ap "{$J,\"relevant_ids\":null}" -m mrr
is "$RC:$(jq -c '[.scores.mrr, .relevance_from.mrr]' "$OUT")" '0:[1,"verdicts"]' "relevant_ids null: as absent"
ap "{$J,\"relevant_ids\":[\"d2\"]}" -m ap,mrr --from ids
is "$(scores):$(jq -c .relevance_from "$OUT")" '{"context_precision":0.5,"mrr":0.5}:{"context_precision":"ids","mrr":"ids"}' \
	"--from ids: context precision from the ids too"
ap "{$J,\"relevant_ids\":[\"d2\"]}" -m ap,mrr --from verdicts
is "$(scores):$(jq -c .relevance_from "$OUT")" '{"context_precision":1,"mrr":1}:{"context_precision":"verdicts","mrr":"verdicts"}' \
	"--from verdicts: every metric from the verdicts"
ap "{$J}" -m ap,mrr --from ids
is "$RC:$(scores):$(jq -c .not_applicable "$OUT"):$(jq -c .relevance_from "$OUT")" \
	'0:{"context_precision":null,"mrr":null}:{"context_precision":"no relevant ids","mrr":"no relevant ids"}:null' \
	"--from ids without relevant_ids: not applicable, never a number from the verdicts"
ap "{\"contexts\":[{\"id\":\"d1\"}],\"relevant_ids\":[\"d1\"]}" -m mrr --from verdicts
is "$RC:$(scores)" '3:{"mrr":null}' "--from verdicts without verdicts: an input error, never a number from the ids"
printf 'ap:\n  from: ids\n' >"$T/ap.yaml"
ap "{$J,\"relevant_ids\":[\"d2\"]}" -m ap -c "$T/ap.yaml"
is "$(jq -c '[.scores.context_precision, .relevance_from.context_precision]' "$OUT")" '[0.5,"ids"]' "ap.from: ids in the configuration"
ap "{$J,\"relevant_ids\":[\"d2\"]}" -m ap -c "$T/ap.yaml" --from auto
is "$(jq -c '[.scores.context_precision, .relevance_from.context_precision]' "$OUT")" '[1,"verdicts"]' "...--from overrides it"
printf 'ap:\n  from: judge\n' >"$T/ap-bad.yaml"
ap '{}' -c "$T/ap-bad.yaml"
is "$RC" 2 "ap.from of an unknown source: a configuration error"
# the judge had nothing to judge against (no reference answer): context precision not
# applicable, mrr still from the ids; and a judge that failed leaves mrr from the ids too
ap '{"contexts":[{"id":"d1"}],"relevant_ids":["d1"],"verdicts":{"context_precision":null},"not_applicable":{"context_precision":"no reference answer"}}' -m ap,mrr
is "$RC:$(scores):$(jq -c .not_applicable "$OUT")" '0:{"context_precision":null,"mrr":1}:{"context_precision":"no reference answer"}' \
	"verdicts not applicable, ids given: ap not applicable, mrr 1 from the ids"
ap '{"contexts":[{"id":"d1"}],"relevant_ids":["d1"],"verdicts":{"context_precision":null}}' -m ap,mrr
is "$RC:$(scores):$(jq -c '[.errors[] | .message]' "$OUT")" \
	'0:{"context_precision":null,"mrr":1}:["verdicts.context_precision is null: the chunks of this record were not judged (see its errors)"]' \
	"verdicts null (the judge failed), ids given: ap null with the reason, mrr 1 from the ids"
# both sources fail the same way: the reason once
ap '{"contexts":["x"]}' -m ap,mrr
is "$RC:$(jq -c '.errors | length' "$OUT")" '3:1' "nothing to rank by, for ap and mrr: one error entry"

# trec_eval's test files as records, each with verdicts of a judge that found every chunk
# relevant: the ids decide, and every id-based number equals trec_eval -q's (out.test.aq, and
# out.test.aql for graded judgments at -l2). The run ordered as trec_eval orders it: score
# descending, ties by docno descending.
LC_ALL=C sort -k1,1 -k5,5gr -k3,3r "$TR/results.test" >"$T/sorted"
# trec_records QRELS: one record a query of the sorted run
trec_records() {
	jq -cnR --rawfile q "$1" '
	($q | split("\n") | map(select(length > 0) | split(" ") | {q: .[0], d: .[2], g: (.[3] | tonumber)})
	 | group_by(.q) | map({key: .[0].q, value: (map({key: .d, value: .g}) | from_entries)}) | from_entries) as $rel
	| [inputs | select(length > 0) | [splits("[ \t]+")] | {q: .[0], d: .[2]}] | group_by(.q)[]
	| {id: .[0].q, contexts: map({id: .d}), relevant_ids: $rel[.[0].q],
	   verdicts: {context_precision: map({verdict: true})}}' "$T/sorted"
}
# trec_rows OUT: its scores as rows "measure<TAB>qid<TAB>value" under trec_eval's names
trec_rows() {
	jq -r '.id as $q | .scores | to_entries[] | [(.key | sub("^average_precision@"; "map_cut_")
	| sub("^average_precision$"; "map") | sub("^r_precision$"; "Rprec") | sub("^mrr$"; "recip_rank")
	| sub("^precision@"; "P_") | sub("^recall@"; "recall_") | sub("^ndcg@"; "ndcg_cut_") | sub("^hit@"; "success_")),
	$q, .value] | @tsv' "$1"
}
equal4() { awk '{ print $1, ($2 <= 0.00005 ? "equal" : "differ " $2), $3 }'; }
TM=map,rprec,mrr,p@5,p@10,p@1000,recall@5,recall@1000,ndcg,ndcg@10,map@10,hit@1,hit@10
trec_records "$TR/qrels.test" >"$T/trec.jsonl"
rag rag-ap -q -m $TM <"$T/trec.jsonl" >"$T/trec.out" 2>"$ERR"
is "$?" 0 "trec_eval's test files as records: exit 0"
trec_rows "$T/trec.out" >"$T/trec.rows"
is "$(agree "$T/trec.rows" "$TR/out.test.aq" | equal4)" "39 equal 0" \
	"...all 39 rows (13 metrics, 3 queries) equal trec_eval -q to its 4 decimals, the verdicts unread"
is "$(jq -r '.relevance_from | [.[]] | unique | join(",")' "$T/trec.out" | sort -u)" ids "...and relevance_from says ids"
trec_records "$TR/qrels.rel_level" >"$T/trecl.jsonl"
rag rag-ap -q --level 2 -m $TM <"$T/trecl.jsonl" >"$T/trecl.out" 2>"$ERR"
trec_rows "$T/trecl.out" >"$T/trecl.rows"
is "$(agree "$T/trecl.rows" "$TR/out.test.aql" | equal4)" "39 equal 0" \
	"graded (qrels.rel_level, --level 2): the 39 rows equal trec_eval -q -l2 (graded nDCG too)"

# the stream: one line per input line, in order
printf '%s\nnot json\n%s\n' "$R" '{"contexts":[{"id":"d8"}],"relevant_ids":["d8"]}' | rag rag-ap -q -m mrr >"$OUT" 2>"$ERR"
is "$?" 3 "a bad line: exit 3"
is "$(jq -c '.scores.mrr' "$OUT" | tr '\n' ' ')" "1 null 1 " "three lines out, in order"

done_testing
