#!/bin/sh
# relevancy.sh - throughput of rag-revq | rag-embsim against the fake (not a test).
#
#   sh bench/relevancy.sh [--json] [-n RECORDS] [-j CONCURRENCY] [--latency-ms MS]
#
# Generates RECORDS deterministic records (question, answer), starts tests/fakellm.py with a
# fixed reply latency (chat and embeddings alike), and times
#   1. bin/rag-revq -j J                 alone (one chat request per record, 3 questions)
#   2. bin/rag-embsim -j J               alone, on the questions from 1
#   3. bin/rag-revq -j J | bin/rag-embsim -j J
# with RAG_CACHE=off, and counts the embedding requests per 100 records (the texts of many
# records share a request: embeddings.batch_size, default 64). Everything stays on 127.0.0.1.
# Exit status: 0, or 1 when a run failed or lost records, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=200 J=8 LAT=100
bench_args "jl" "$@"
bench_setup relevancy rag-revq rag-embsim

awk -v n="$N" 'BEGIN {
	split("red green blue amber violet silver", col, " ")
	split("Lyon Porto Ghent Turku Graz Split Bergen Krakow", city, " ")
	for (i = 1; i <= n; i++) {
		c = col[(i % 6) + 1]; t = city[(i % 8) + 1]
		printf "{\"id\":\"b%03d\",\"question\":\"What colour is widget %d, and where was it made?\",", i, i
		printf "\"answer\":\"Widget %d is %s and was first made in %s.\"}\n", i, c, t
	}
}' >"$W/records.jsonl"

bench_fake "$LAT"

chat() { grep -c '"/v1/chat/completions"' "$W/fake.log"; }
emb() { grep -c '"/v1/embeddings"' "$W/fake.log"; }

FAILED=0
# measure NAME: runs $CMD; sets SECS_, CHAT_, EMB_, ERRS_, RC_<NAME>
measure() {
	_c0=$(chat); _e0=$(emb); _t0=$(now)
	sh -c "$CMD" >"$W/$1.out" 2>"$W/$1.err"
	_rc=$?
	_t1=$(now); _c1=$(chat); _e1=$(emb)
	eval "SECS_$1=\$(awk -v a=\"\$_t0\" -v b=\"\$_t1\" 'BEGIN { printf \"%.3f\", b - a }')"
	eval "CHAT_$1=\$((_c1 - _c0))"
	eval "EMB_$1=\$((_e1 - _e0))"
	eval "ERRS_$1=\$(grep -c '\"errors\"' \"\$W/\$1.out\")"
	eval "RC_$1=\$_rc"
	if [ "$_rc" -ne 0 ] || [ "$(wc -l <"$W/$1.out")" -ne "$N" ]; then
		FAILED=1
		echo "relevancy.sh: $1 exited $_rc with $(wc -l <"$W/$1.out") of $N lines" >&2
		tail -n 5 "$W/$1.err" >&2
	fi
}

CMD="'$BIN/rag-revq' -c '$W/rag.yaml' -q -j $J <'$W/records.jsonl'"
measure revq
cp "$W/revq.out" "$W/questions.jsonl"
CMD="'$BIN/rag-embsim' -c '$W/rag.yaml' -q -j $J <'$W/questions.jsonl'"
measure embsim
CMD="'$BIN/rag-revq' -c '$W/rag.yaml' -q -j $J <'$W/records.jsonl' | '$BIN/rag-embsim' -c '$W/rag.yaml' -q -j $J"
measure pipeline
SCORED=$(grep -c '"answer_relevancy":[0-9]' "$W/pipeline.out")

awk -v n="$N" -v j="$J" -v lat="$LAT" -v json="$JSON" -v scored="$SCORED" \
	-v s1="$SECS_revq" -v c1="$CHAT_revq" -v m1="$EMB_revq" -v e1="$ERRS_revq" -v rc1="$RC_revq" \
	-v s2="$SECS_embsim" -v c2="$CHAT_embsim" -v m2="$EMB_embsim" -v e2="$ERRS_embsim" -v rc2="$RC_embsim" \
	-v s3="$SECS_pipeline" -v c3="$CHAT_pipeline" -v m3="$EMB_pipeline" -v e3="$ERRS_pipeline" -v rc3="$RC_pipeline" '
BEGIN {
	name[1] = "rag-revq"; s[1] = s1; c[1] = c1; m[1] = m1; e[1] = e1; rc[1] = rc1
	name[2] = "rag-embsim"; s[2] = s2; c[2] = c2; m[2] = m2; e[2] = e2; rc[2] = rc2
	name[3] = "pipeline"; s[3] = s3; c[3] = c3; m[3] = m3; e[3] = e3; rc[3] = rc3
	for (k = 1; k <= 3; k++) rate[k] = s[k] > 0 ? n / s[k] : 0
	if (json) {
		printf "{\"bench\":\"relevancy\",\"records\":%d,\"concurrency\":%d,\"latency_ms\":%d,\"scored\":%d,\"stages\":[", n, j, lat, scored
		for (k = 1; k <= 3; k++)
			printf "%s{\"stage\":\"%s\",\"seconds\":%.3f,\"records_per_s\":%.1f,\"chat_requests\":%d,\"embedding_requests\":%d,\"embedding_requests_per_100\":%.2f,\"records_with_errors\":%d,\"exit\":%d}", \
				(k > 1 ? "," : ""), name[k], s[k], rate[k], c[k], m[k], 100 * m[k] / n, e[k], rc[k]
		printf "]}\n"
		exit
	}
	printf "ragpipe answer relevancy benchmark: %d records, -j %d, fake latency %d ms, cache off\n\n", n, j, lat
	printf "%-11s %8s %10s %6s %10s %12s %7s\n", "stage", "seconds", "records/s", "chat", "embedding", "emb/100 rec", "errors"
	for (k = 1; k <= 3; k++)
		printf "%-11s %8.2f %10.1f %6d %10d %12.2f %7d%s\n", name[k], s[k], rate[k], c[k], m[k], 100 * m[k] / n, e[k], \
			(rc[k] != 0 ? "  (exit " rc[k] ")" : "")
	printf "\npipeline: %d of %d records scored; ideal for rag-revq alone: %d / %.1f s = %.1f records/s\n", scored, n, j, lat / 1000, j / (lat / 1000)
}'
exit $FAILED
