#!/bin/sh
# store.sh - rag-store's add, list and export of one big run on SQLite and PostgreSQL (not a test).
#
#   sh bench/store.sh [--json] [-n RECORDS]
#
# Generates a run directory of RECORDS (default 20000) deterministic scored records (a question,
# three contexts, an answer, a reference, four scores, usage: about 880 bytes a record) and its
# run.json, then on each backend times under /usr/bin/time -v:
#   1. rag-store add RUNDIR (one transaction)
#   2. rag-store list --json, with the run and 20 small ones in the store
#   3. rag-store export RUN, checked byte for byte against records.jsonl (cmp)
# SQLite: a file in the work directory. PostgreSQL: a server of its own started with initdb and
# pg_ctl from /usr/lib/postgresql/15/bin on a socket in the work directory (as nobody when run as
# root), fsync off as in the test, stopped at the end; left out when those binaries are missing.
# No network. Exit status: 0, or 1 when a step failed or an export differs, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=20000
bench_args "" "$@"
bench_need /usr/bin/time
bench_setup store rag-store
PGBIN=/usr/lib/postgresql/15/bin
PG_UP= AS=

pg_stop() {
	[ -n "$PG_UP" ] && $AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null 2>&1
	PG_UP=
	case ${PGDIR:-} in /tmp/ragpipe-pg.*) rm -rf "$PGDIR" ;; esac
}
trap 'pg_stop; _bench_cleanup' EXIT

# ---------------------------------------------------------------- the run
mkdir -p "$W/run"
awk -v n="$N" 'BEGIN {
	split("math geo history science law", cat, " ")
	s = 12345
	for (i = 1; i <= n; i++) {
		s = (s * 1103515245 + 12345) % 2147483648; f = int(s / 2147483648 * 1000) / 1000
		s = (s * 1103515245 + 12345) % 2147483648; r = int(s / 2147483648 * 1000) / 1000
		ctx = ""
		for (c = 1; c <= 3; c++)
			ctx = ctx (c > 1 ? "," : "") sprintf("\"Context %d of question %d: a passage of the knowledge base, long enough to stand for a chunk that a retriever returns, with some facts in it (%d).\"", c, i, s % 1000)
		printf "{\"id\":\"q%d\",\"run_id\":\"big\",\"category\":\"%s\",\"question\":\"What is the answer to question %d?\",\"contexts\":[%s],\"answer\":\"The answer to question %d is %d.\",\"reference\":\"It is %d.\",\"scores\":{\"faithfulness\":%s,\"context_recall\":%s,\"answer_relevancy\":%s,\"context_precision\":%s},\"usage\":{\"rag-verify\":{\"faithfulness\":{\"calls\":1,\"cache_hits\":0,\"prompt_tokens\":812,\"completion_tokens\":64,\"judge\":\"openai:fake-judge\"}}}}\n", i, cat[i % 5 + 1], i, ctx, i, s % 97, s % 97, f, r, 1 - f, r
	}
}' >"$W/run/records.jsonl"
printf '{"run_id":"big","started":"2026-12-01T12:00:00Z","ended":"2026-12-01T12:30:00Z","testset":"/data/qa.jsonl","metrics":["faithfulness","context_recall","answer_relevancy","context_precision"],"git":{"commit":"0123456789abcdef0123456789abcdef01234567","dirty":false},"gate":"pass","exit_status":0}\n' >"$W/run/run.json"
BYTES=$(wc -c <"$W/run/records.jsonl" | tr -d ' ')
head -n 5 "$W/run/records.jsonl" >"$W/small.jsonl"

# bench_backend NAME URL: add, list, export; figures in NAME_ADD, NAME_LIST, NAME_EXPORT...
FAILED=0
bench_backend() {
	_n=$1 _u=$2
	_i=1
	while [ $_i -le 20 ]; do
		"$BIN/rag-store" -q --store "$_u" add - --run-id "small$_i" --testset qa <"$W/small.jsonl" >/dev/null || FAILED=1
		_i=$((_i + 1))
	done
	bench_time "$_n-add" "$BIN/rag-store" -q --store "$_u" add "$W/run"
	[ "$RC" = 0 ] || { FAILED=1; cat "$W/err.$_n-add" >&2; }
	eval "${_n}_ADD=\$SECS ${_n}_ADD_KB=\$RSS_KB"
	bench_time "$_n-list" "$BIN/rag-store" -q --store "$_u" list --json
	[ "$RC" = 0 ] && [ "$(wc -l <"$W/out.$_n-list")" -eq 21 ] || { FAILED=1; cat "$W/err.$_n-list" >&2; }
	eval "${_n}_LIST=\$SECS"
	bench_time "$_n-export" "$BIN/rag-store" -q --store "$_u" export big
	[ "$RC" = 0 ] || { FAILED=1; cat "$W/err.$_n-export" >&2; }
	eval "${_n}_EXPORT=\$SECS ${_n}_EXPORT_KB=\$RSS_KB"
	if cmp -s "$W/out.$_n-export" "$W/run/records.jsonl"; then eval "${_n}_SAME=yes"; else eval "${_n}_SAME=no"; FAILED=1; fi
}

bench_backend sqlite "sqlite://$W/runs.db"
SQLITE_DB_KB=$(($(wc -c <"$W/runs.db") / 1024))

HAVE_PG=0
if [ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pg_ctl" ]; then
	PGDIR=$W/pg
	mkdir -p "$PGDIR/sock"
	if [ "$(id -u)" = 0 ]; then
		AS="runuser -u nobody --"
		chmod 711 "$W"
		chown -R nobody "$PGDIR"
		if ! $AS test -w "$PGDIR/sock"; then
			PGDIR=$(mktemp -d /tmp/ragpipe-pg.XXXXXX) && mkdir -p "$PGDIR/sock" && chown -R nobody "$PGDIR" && chmod 711 "$PGDIR"
		fi
	fi
	if $AS "$PGBIN/initdb" -D "$PGDIR/data" -U ragpipe --auth=trust -E UTF8 --no-sync >"$W/initdb.log" 2>&1 &&
		$AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w -o "-k $PGDIR/sock -c listen_addresses= -c fsync=off" \
			start >/dev/null 2>&1; then
		PG_UP=1 HAVE_PG=1
		bench_backend pg "postgresql://ragpipe@/postgres?host=$PGDIR/sock"
	else
		echo "store.sh: PostgreSQL did not start: $(tail -n 3 "$W/initdb.log" "$PGDIR/log" 2>/dev/null)" >&2
		FAILED=1
	fi
fi

if [ "$JSON" = 1 ]; then
	printf '{"records":%s,"bytes":%s,"sqlite":{"add_s":%s,"add_rss_kb":%s,"list_s":%s,"export_s":%s,"export_rss_kb":%s,"byte_identical":"%s","db_kb":%s}' \
		"$N" "$BYTES" "$sqlite_ADD" "$sqlite_ADD_KB" "$sqlite_LIST" "$sqlite_EXPORT" "$sqlite_EXPORT_KB" "$sqlite_SAME" "$SQLITE_DB_KB"
	[ "$HAVE_PG" = 1 ] && printf ',"postgresql":{"add_s":%s,"add_rss_kb":%s,"list_s":%s,"export_s":%s,"export_rss_kb":%s,"byte_identical":"%s"}' \
		"$pg_ADD" "$pg_ADD_KB" "$pg_LIST" "$pg_EXPORT" "$pg_EXPORT_KB" "$pg_SAME"
	printf '}\n'
else
	echo "rag-store, one run of $N records ($BYTES bytes of records.jsonl), 20 small runs beside it"
	printf '%-12s %8s %10s %8s %10s %12s %6s\n' backend "add s" "add MB" "list s" "export s" "export MB" cmp
	printf '%-12s %8s %10s %8s %10s %12s %6s\n' sqlite "$sqlite_ADD" "$((sqlite_ADD_KB / 1024))" "$sqlite_LIST" \
		"$sqlite_EXPORT" "$((sqlite_EXPORT_KB / 1024))" "$sqlite_SAME"
	[ "$HAVE_PG" = 1 ] && printf '%-12s %8s %10s %8s %10s %12s %6s\n' postgresql "$pg_ADD" "$((pg_ADD_KB / 1024))" \
		"$pg_LIST" "$pg_EXPORT" "$((pg_EXPORT_KB / 1024))" "$pg_SAME"
	echo "SQLite file: $SQLITE_DB_KB KiB"
fi
exit "$FAILED"
