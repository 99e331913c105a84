#!/bin/sh
# 49-eval-ranks.t - rag-eval's ranking metrics come from the ids the user gave: context
# precision from the judge's chunk verdicts (rag-verify --chunks), mrr and recall@k from
# relevant_ids where a record has them, the verdicts only where it has none; ap.from forces one
# source. The offline judge; every number is computed by hand from the records below.
. "$(dirname "$0")/lib.sh"

need jq
[ -x "$BIN/rag-eval" ] || bail_out "bin/rag-eval is not built: run make"

base='llm:\n  provider: offline\ncache:\n  mode: off\n'
printf "$base" >"$T/rag.yaml"
printf "${base}ap:\n  from: ids\n" >"$T/ids.yaml"
printf "${base}ap:\n  from: verdicts\n" >"$T/verdicts.yaml"
# The offline judge finds d1 ("Paris is the capital...") relevant to the question and d2 (Lyon)
# not; the user says: a's relevant document is d2, b's is d9 (not retrieved), c gives no ids.
Q='"question":"What is the capital of France?","answer":"Paris is the capital of France.","reference":"Paris is the capital of France."'
C='"contexts":["Paris is the capital of France.","Lyon is a big city in France."],"context_ids":["d1","d2"]'
printf '%s\n' "{\"id\":\"a\",$Q,$C,\"relevant_ids\":[\"d2\"]}" "{\"id\":\"b\",$Q,$C,\"relevant_ids\":[\"d9\"]}" \
	"{\"id\":\"c\",$Q,$C}" >"$T/set.jsonl"
row() { jq -c '[.id, .scores.context_precision, .scores.mrr, .scores["recall@2"]]' "$1" | tr '\n' ' '; }
from() { jq -c '[.id, .relevance_from.context_precision, .relevance_from.mrr, .relevance_from["recall@2"]]' "$1" | tr '\n' ' '; }

run rag rag-eval -q -c "$T/rag.yaml" -m context_precision,mrr,recall@2 -o "$T/auto" "$T/set.jsonl"
is "$RC" 0 "context_precision,mrr,recall@2: exit 0"
is "$(jq -c '[.id, [.verdicts.context_precision[].verdict]]' "$T/auto/records.jsonl" | tr '\n' ' ')" \
	'["a",[true,false]] ["b",[true,false]] ["c",[true,false]] ' "the judge: d1 relevant, d2 not"
is "$(row "$T/auto/records.jsonl")" '["a",1,0.5,1] ["b",1,0,0] ["c",1,1,1] ' \
	"context precision 1 from the verdicts; mrr and recall@2 from the ids: a 1/2 and 1/1, b 0 and 0; c from the verdicts"
is "$(from "$T/auto/records.jsonl")" \
	'["a","verdicts","ids","ids"] ["b","verdicts","ids","ids"] ["c","verdicts","verdicts","verdicts"] ' \
	"each record says the source of each metric"
is "$(jq -c '[.[] | .errors] | unique' -s "$T/auto/records.jsonl")" '[null]' "no errors: a relevant id not retrieved is 0, not undefined"
is "$(awk '$1 == "mrr" || $1 == "recall@2" { print $1, $2, $5 }' "$T/auto/gate.txt" | tr '\n' ' ')" \
	'mrr 3 0.500 recall@2 3 0.667 ' "the summary: mrr mean (1/2 + 0 + 1)/3, recall@2 mean (1 + 0 + 1)/3"
# the summaries and the report say which relevance each metric read, in how many records
is "$(grep 'relevance from' "$T/auto/gate.txt")" "  context_precision: relevance from the judge's chunk verdicts in 3 records
  mrr: relevance from relevant ids in 2 records, the judge's chunk verdicts in 1
  recall@2: relevance from relevant ids in 2 records, the judge's chunk verdicts in 1" "gate.txt: the source of each metric under the table"
is "$(grep -c '^- mrr: relevance from relevant ids in 2 records, the judge.s chunk verdicts in 1$' "$T/auto/summary.md")" 1 \
	"summary.md: the same"
is "$(grep -c 'relevance from relevant ids in 2 records, the judge&#39;s chunk verdicts in 1' "$T/auto/report.html")" 2 \
	"report.html: the cards of mrr and recall@2 say it"
sed -n 's/.*<script type="application\/json" id="rag-data">\(.*\)<\/script>/\1/p' "$T/auto/report.html" >"$T/data.json"
# rag-eval writes the page's records compressed (rag-report --compress): one gzip+base64 string,
# the records' JSON joined by commas, as the page's script unpacks them
python3 -c '
import base64, gzip, json, sys
d = json.load(open(sys.argv[1]))
r = d["records"]
if len(r) == 1 and isinstance(r[0], str):
    d["records"] = json.loads("[" + gzip.decompress(base64.b64decode(r[0])).decode() + "]")
json.dump(d, open(sys.argv[1], "w"))
' "$T/data.json"
is "$(jq -c '[.records[] | .rf.mrr]' "$T/data.json")" '["ids","ids","verdicts"]' "report.html: each record's sources, for its scores table"

# ap.from: ids: no judge for context precision, every metric from the ids, c not applicable
run rag rag-eval -q -c "$T/ids.yaml" -m context_precision,mrr,recall@2 -o "$T/ids" --dry-run "$T/set.jsonl"
like "$(tr -d '\\\n' <"$OUT")" 'rag-ap -q -c [^|]* --from ids -m ap,mrr,recall@2 ' "ap.from: ids is passed to rag-ap as --from ids"
like "$(tr -d '\\\n' <"$OUT")" '--emit [^|]*[|] +[^|]*rag-ap -q [^|]*[|] +[^|]*rag-gate ' \
	"...its only stage: context precision from ids needs no rag-verify --chunks"
run rag rag-eval -q -c "$T/ids.yaml" -m context_precision,mrr,recall@2 -o "$T/ids" "$T/set.jsonl"
is "$RC" 0 "ap.from: ids: exit 0"
is "$(row "$T/ids/records.jsonl")" '["a",0.5,0.5,1] ["b",0,0,0] ["c",null,null,null] ' \
	"ap.from: ids: context precision 1/2 and 0 from the ids; c has none"
is "$(jq -c '.not_applicable.mrr' "$T/ids/records.jsonl" | tr '\n' ' ')" 'null null "no relevant ids" ' \
	"...c not applicable with its reason, never a number from the verdicts"

# ap.from: verdicts: mrr asked alone still gets the judge's verdicts, and reads only them
run rag rag-eval -q -c "$T/verdicts.yaml" -m mrr,recall@2 -o "$T/v" --dry-run "$T/set.jsonl"
like "$(tr -d '\\\n' <"$OUT")" 'rag-verify -q -c [^|]* --chunks[^|]* +[|] +[^|]*rag-ap -q -c [^|]* --from verdicts -m mrr,recall@2 ' \
	"ap.from: verdicts: rag-verify --chunks runs for mrr, rag-ap gets --from verdicts"
run rag rag-eval -q -c "$T/verdicts.yaml" -m mrr,recall@2 -o "$T/v" "$T/set.jsonl"
is "$RC:$(jq -c '[.id, .scores.mrr, .scores["recall@2"], .relevance_from.mrr]' "$T/v/records.jsonl" | tr '\n' ' ')" \
	'0:["a",1,1,"verdicts"] ["b",1,1,"verdicts"] ["c",1,1,"verdicts"] ' "ap.from: verdicts: every record from the verdicts"

done_testing
