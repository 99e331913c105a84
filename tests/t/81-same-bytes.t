#!/bin/sh
# 81-same-bytes.t - the same input and the same replies give the same bytes, whatever order the
# replies arrive in (issue 25): every networked tool, and rag-collect, is run on three records
# once with the replies in order and then with one record's replies held back (the fake's
# delay_ms on a marker that only that record's requests carry), so that they arrive last; the
# outputs must be byte for byte the same (rag-collect's latency_ms, a time, aside). A tool that
# writes as replies arrive (a rubric, a claim, a record) fails here: with c349678's rag-judge,
# which wrote its rubrics in reply order, the slowa and slowc rows fail (slowb delays all of
# r2's requests alike, so it need not reorder them; it is kept for the records' own order).
. "$(dirname "$0")/lib.sh"

need jq python3
for _t in rag-claims rag-verify rag-revq rag-embsim rag-judge rag-collect; do
	[ -x "$BIN/$_t" ] || bail_out "bin/$_t is not built: run make"
done

# r1 carries SLOWA in every text, r2 SLOWB; r2's claims split into a delayed one (SLOWC) and
# one that is not, so that the replies of one record's requests arrive out of order too
cat >"$T/in.jsonl" <<'EOF'
{"id":"r1","question":"What is the capital SLOWA of France?","contexts":["Paris SLOWA is the capital and largest city of France.","France SLOWA is in Europe."],"answer":"Paris SLOWA is the capital of France. UNSUPPORTED Paris SLOWA has 90 million inhabitants.","reference":"Paris SLOWA is the capital of France.","claims":{"answer":["Paris SLOWA is the capital of France.","UNSUPPORTED Paris SLOWA has 90 million inhabitants."],"reference":["Paris SLOWA is the capital of France."]},"questions":{"generated":["Which city SLOWA is the capital of France?"],"noncommittal":false}}
{"id":"r2","question":"What river SLOWB flows through Paris?","contexts":["The Seine SLOWB flows through Paris.","IRRELEVANT The Loire SLOWB is long."],"answer":"The Seine SLOWB flows through Paris. It SLOWC reaches the sea.","reference":"The Seine SLOWB flows through Paris.","claims":{"answer":["The Seine SLOWB flows through Paris.","It SLOWC reaches the sea."],"reference":["The Seine SLOWB flows through Paris."]},"questions":{"generated":["Which river SLOWB crosses Paris?"],"noncommittal":false}}
{"id":"r3","question":"How tall is Mont Blanc?","contexts":["IRRELEVANT Lyon is a city.","Mont Blanc is 4805 metres high."],"answer":"Mont Blanc is 4805 metres high.","reference":"Mont Blanc is 4805 metres high. UNSUPPORTED It is in Spain.","claims":{"answer":["Mont Blanc is 4805 metres high."],"reference":["Mont Blanc is 4805 metres high.","UNSUPPORTED It is in Spain."]},"questions":{"generated":["What is the height of Mont Blanc?"],"noncommittal":false}}
EOF
printf 'llm:\n  model: fake-judge\n  timeout: 20\n  retries: 0\nembeddings:\n  model: fake-emb\n  batch_size: 1\n' >"$T/rag.yaml"

# the plans: in order; r1 late; r2 late; r2's second claim late (one record's requests apart)
PLANS='none slowa slowb slowc'
plan_of() {
	case $1 in
	none) echo '[]' ;;
	slowa) echo '[{"match": "SLOWA", "delay_ms": 400}]' ;;
	slowb) echo '[{"match": "SLOWB", "delay_ms": 400}]' ;;
	slowc) echo '[{"match": "SLOWC", "delay_ms": 400}]' ;;
	esac
}

# tool ids and their commands (one request per claim for --mode claim: a record's replies apart)
TOOLS='claims verify verify1 claimmode recall chunks correctness revq embsim judge'
tool_cmd() {
	case $1 in
	claims) echo "rag-claims" ;;
	verify) echo "rag-verify" ;;
	verify1) echo "rag-verify --one-request" ;;
	claimmode) echo "rag-verify --mode claim" ;;
	recall) echo "rag-verify --metric context_recall" ;;
	chunks) echo "rag-verify --chunks" ;;
	correctness) echo "rag-verify --metric answer_correctness" ;;
	revq) echo "rag-revq --n 2" ;;
	embsim) echo "rag-embsim" ;;
	judge) echo "rag-judge --rubric correctness,relevance,completeness" ;;
	esac
}

for p in $PLANS; do
	fresh "$(plan_of "$p")"
	for t in $TOOLS; do
		# shellcheck disable=SC2046
		rag $(tool_cmd "$t") -c "$T/rag.yaml" <"$T/in.jsonl" >"$T/$t.$p.out" 2>"$T/$t.$p.err"
		echo $? >"$T/$t.$p.rc"
	done
	fake_stop
done
for t in $TOOLS; do
	is "$(cat "$T/$t.none.rc") $(nlines "$T/$t.none.out")" "0 3" "$(tool_cmd "$t"): exit 0, three records, replies in order"
	for p in slowa slowb slowc; do
		check "$(tool_cmd "$t"): the same bytes with $p's replies last" cmp "$T/$t.none.out" "$T/$t.$p.out"
	done
done

# rag-collect against the fake RAG service: the answers of r1 held back
FAKE_SERVER=fakerag.py
export FAKE_SERVER
jq -c '{id, question}' "$T/in.jsonl" >"$T/q.jsonl"
for p in none slowa; do
	fresh "$(plan_of "$p")"
	rag rag-collect -j 3 --url "$FAKE_URL/ask" <"$T/q.jsonl" >"$T/collect.$p.out" 2>"$T/collect.$p.err"
	echo $? >"$T/collect.$p.rc"
	fake_stop
	jq -c 'del(.latency_ms)' "$T/collect.$p.out" >"$T/collect.$p.cmp"
done
is "$(cat "$T/collect.none.rc") $(nlines "$T/collect.none.out")" "0 3" "rag-collect: exit 0, three records"
check "rag-collect: the same bytes (latency_ms aside) with r1's answer last" cmp "$T/collect.none.cmp" "$T/collect.slowa.cmp"

done_testing
