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
# SQLite: a file in the work directory. PostgreSQL: a server of its own (bench_pg_start: initdb
# and pg_ctl of the newest /usr/lib/postgresql/*/bin, a socket in the work directory, as nobody
# when run as root, fsync off as in the test), stopped at the end; left out when those binaries
# are missing.
# No network. Exit status: 0, or 1 when a step failed or an export differs, 2 on usage errors.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$TOP" || exit 2
. "$TOP/bench/lib.sh"

N=20000
bench_args "" "$@"
bench_need /usr/bin/time
bench_setup store rag-store
trap 'bench_pg_stop; _bench_cleanup' EXIT

# ---------------------------------------------------------------- the run
mkdir -p "$W/run"
bench_records_store "$N" big "$W/run/records.jsonl"
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
bench_pg_start
case $? in
0) HAVE_PG=1; bench_backend pg "$PG_URL" ;;
1) FAILED=1 ;;
esac

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
