#!/bin/sh
# 75-agree-store.t - rag-agree --run: a stored run's records and its reviewers' marks (rag-serve)
# as the judge's scores and the human labels, the same summary as rag-serve's labels.csv of the
# run gives with the run's records, byte for byte, on SQLite and on PostgreSQL; several reviewers
# (the latest mark kept, --who one reviewer), --metric, the store's failures (exit 6). And the
# CSV written for people (labels.csv, rag-agree's sheet) against formula injection: no cell a
# spreadsheet would run, read back as it was. No test waits on the clock: rag-serve's port is
# read from its stderr line.
. "$(dirname "$0")/lib.sh"
need jq curl python3
[ -x "$BIN/rag-serve" ] || bail_out "bin/rag-serve is not built: run make"
EX=$TOP/share/examples/example.jsonl
DB=$T/store.db
M=keyword_overlap
printf 'llm:\n  provider: offline\n' >"$T/c.yaml"

# a run of 6 records whose ids a spreadsheet would take for formulas (and one plain)
head -n 6 "$EX" | jq -c --slurp 'to_entries[] | .value.id = (["-r1", "=r2", "+r3", "@r4", "r5", "-1"][.key]) | .value' |
	rag rag-kw -q -c "$T/c.yaml" >"$T/r.jsonl"
run rag rag-store -q -c "$T/c.yaml" --store "$DB" --run-id R --label v1 add - <"$T/r.jsonl"
is "$RC:$(cat "$OUT")" 0:R "run R added"

trap 'serve_stop; pg_stop; _lib_cleanup' EXIT
post() {
	CODE=$(curl -s -o "$OUT" -w '%{http_code}' -X POST -H "Origin: http://$HOSTPORT" -H "X-CSRF-Token: $CSRF" \
		-H 'Content-Type: application/json' --data "$1" "${URL}api/runs/R/marks")
}
# marks: the reviews of seed 004's flow, hostile text in the comment and the reviewer's name;
# record 4 marked by two reviewers (ana first, bo later: bo's is the latest), record 5 by nobody,
# record 6 (id -1) right; a mark of another metric
marks() {
	post "{\"seq\":1,\"metric\":\"$M\",\"verdict\":true,\"who\":\"ana\",\"comment\":\"=HYPERLINK(\\\"http://evil.example\\\",\\\"x\\\")\"}"
	is "$CODE" 200 "$1: a mark with a formula for a comment"
	post "{\"seq\":2,\"metric\":\"$M\",\"verdict\":false,\"who\":\"@SUM(1)\",\"comment\":\"-2+3\"}"
	is "$CODE" 200 "$1: a mark by a reviewer named @SUM(1)"
	post "{\"seq\":3,\"metric\":\"$M\",\"label\":0.25,\"who\":\"ana\",\"comment\":\"+x\"}"
	post "{\"seq\":4,\"metric\":\"$M\",\"verdict\":true,\"who\":\"ana\"}"
	post "{\"seq\":4,\"metric\":\"$M\",\"verdict\":false,\"who\":\"bo\",\"comment\":\"\\tTAB\"}"
	post "{\"seq\":6,\"metric\":\"$M\",\"verdict\":true,\"who\":\"ana\"}"
	post "{\"seq\":1,\"metric\":\"faithfulness\",\"verdict\":false,\"who\":\"ana\"}"
	is "$CODE" 200 "$1: a mark of another metric"
}
# no_formula FILE: every cell of the CSV FILE that a spreadsheet would run as a formula (OWASP:
# =, +, -, @, tab, CR first) and is not a number, one a line
no_formula() {
	python3 -c '
import csv, re, sys
num = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
for row in csv.reader(open(sys.argv[1], newline="")):
    for c in row:
        if c[:1] in ("=", "+", "-", "@", "\t", "\r") and not num.match(c):
            print(repr(c))
' "$1"
}

serve_start --store "$DB"
marks SQLite
curl -s -o "$T/labels.csv" "${URL}api/runs/R/labels.csv?metric=$M"
curl -s -o "$T/all.csv" "${URL}api/runs/R/labels.csv"
serve_stop
run rag rag-store -q -c "$T/c.yaml" --store "$DB" export R
cp "$OUT" "$T/R.jsonl"

# ---------------------------------------------------------------- labels.csv: no formula
is "$(no_formula "$T/labels.csv")" "" "labels.csv: no cell a spreadsheet would run as a formula"
like "$(cat "$T/labels.csv")" "'=HYPERLINK" "the comment kept, behind a '"
like "$(cat "$T/labels.csv")" "(^|\\n)'-r1,1," "an id starting with - behind a '"
like "$(cat "$T/labels.csv")" "(^|\\n)-1,1," "an id that is a number (-1) as it is"
run rag rag-agree -c "$T/c.yaml" -f scores.$M -L "$T/labels.csv" --json "$T/R.jsonl"
is "$(jq -c '[.pairs, .labels_unmatched, .labels_duplicate, .without_label, .bad_labels]' "$OUT")" '[5,0,1,1,0]' \
	"labels.csv read back: the 5 marked records (ids -r1, =r2, +r3, @r4, -1) matched, record 4's two marks one duplicate"
cp "$OUT" "$T/csv.json"
run rag rag-agree -c "$T/c.yaml" -f scores.$M -L "$T/labels.csv" --who '@SUM(1)' --json "$T/R.jsonl"
is "$(jq -c '[.pairs, .labels_unmatched, .without_label]' "$OUT")" '[1,0,5]' \
	"--who @SUM(1): that reviewer's one mark, its name read back from behind the '"
cp "$OUT" "$T/csv-who.json"
run rag rag-agree -c "$T/c.yaml" -f scores.$M -L "$T/all.csv" --metric $M --json "$T/R.jsonl"
check "--metric over labels.csv of every metric: the same summary as labels.csv?metric" sh -c \
	"sed 's|all\\.csv|labels.csv|' '$OUT' | cmp -s - '$T/csv.json'"

# ---------------------------------------------------------------- rag-agree --run
# the same summary as the CSV path's, byte for byte, but the label's name
same_as_csv() {   # GOT WANT LABELS-NAME DESC
	sed "s|\"label\":\"$T/labels.csv\"|\"label\":\"$3\"|" "$2" >"$T/want.json"
	check "$4" cmp -s "$1" "$T/want.json"
	cmp -s "$1" "$T/want.json" || diag "$(diff "$T/want.json" "$1")"
}
run rag rag-agree -c "$T/c.yaml" --store "$DB" --run R -f scores.$M --json
is "$RC" 0 "--run R: exit 0"
same_as_csv "$OUT" "$T/csv.json" "the marks of run R ($M)" \
	"--store --run: the summary of the run's records and labels.csv, byte for byte"
run rag rag-agree -c "$T/c.yaml" --store "sqlite://$DB" --run last --metric $M --json
same_as_csv "$OUT" "$T/csv.json" "the marks of run R ($M)" "--run last --metric M (--field scores.M): the same"
run rag rag-agree -c "$T/c.yaml" --store "$DB" --run R --metric $M --who '@SUM(1)' --json
same_as_csv "$OUT" "$T/csv-who.json" "the marks of run R ($M, by @SUM(1))" "--who: the same as labels.csv's --who"
run rag rag-agree -c "$T/c.yaml" --store "$DB" --run R --metric $M
like "$(head -n 1 "$OUT")" "^rag-agree: scores\\.$M against the marks of run R \\($M\\)\$" "text: it names the marks"
printf 'llm:\n  provider: offline\nstore:\n  url: %s\n' "$DB" >"$T/s.yaml"
run rag rag-agree -c "$T/s.yaml" --run R --metric $M --json
same_as_csv "$OUT" "$T/csv.json" "the marks of run R ($M)" "the store from store.url"
run rag rag-agree -c "$T/c.yaml" --store "$DB" --run R --metric faithfulness --field scores.$M --json
is "$(jq -c '[.pairs, .without_label]' "$OUT")" '[1,5]' "--metric with --field: the marks of that metric"

# ---------------------------------------------------------------- mistakes and failures
run rag rag-agree -c "$T/c.yaml" --store "$DB" --run nope --metric $M
is "$RC" 6 "a run the store does not hold: exit 6"
like "$(cat "$ERR")" '^rag-agree: error: no run "nope" in the store' "and says so"
run rag rag-agree -c "$T/c.yaml" --store 'postgresql://u:pa55-xyz@127.0.0.1:1/db' --run R --metric $M
is "$RC" 6 "a store that cannot be opened: exit 6"
like "$(cat "$ERR")" '^rag-agree: error: ' "with a message"
unlike "$(cat "$ERR")" 'pa55-xyz' "without the URL's password"
printf 'not a database\n' >"$T/broken.db"
run rag rag-agree -c "$T/c.yaml" --store "$T/broken.db" --run R --metric $M
is "$RC" 6 "a file that is no store: exit 6"
run rag rag-agree -c "$T/c.yaml" --store "$DB" --run R --metric $M "$T/R.jsonl"
is "$RC" 2 "--run and a FILE: exit 2"
run rag rag-agree -c "$T/c.yaml" --store "$DB" --run R --metric $M -L "$T/labels.csv"
is "$RC" 2 "--run and --labels: exit 2"
like "$(cat "$ERR")" '--labels FILE and --run REF are two sources' "says why"
run rag rag-agree -c "$T/c.yaml" --store "$DB" -f scores.$M -L "$T/labels.csv" "$T/R.jsonl"
is "$RC" 2 "--store without --run: exit 2"
run rag rag-agree -c "$T/c.yaml" --store "$DB" --run R
is "$RC" 2 "--run without --field or --metric: exit 2"
run rag rag-agree -c "$T/c.yaml" -f scores.$M --who ana "$T/R.jsonl"
is "$RC" 2 "--who without marks or a labels file: exit 2"

# ---------------------------------------------------------------- the sheet: no formula
run rag rag-agree -c "$T/c.yaml" -f scores.$M --sample 6 --sheet "$T/sheet.csv" "$T/R.jsonl"
is "$RC" 0 "a sheet of the 6 records"
is "$(no_formula "$T/sheet.csv")" "" "the sheet: no cell a spreadsheet would run as a formula"
python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
w = csv.writer(open(sys.argv[2], "w", newline=""))
w.writerow(rows[0])
for i, r in enumerate(rows[1:]):
    r[-1] = str(i % 2)
    w.writerow(r)
' "$T/sheet.csv" "$T/filled.csv"
run rag rag-agree -c "$T/c.yaml" -f scores.$M -L "$T/filled.csv" --json "$T/R.jsonl"
is "$(jq -c '[.pairs, .labels_unmatched, .without_label]' "$OUT")" '[6,0,0]' \
	"the sheet filled in and read back: every id (-r1, =r2, +r3, @r4, -1) matches its record"

# ---------------------------------------------------------------- PostgreSQL
if [ ! -x "$PGBIN/initdb" ]; then
	skip_missing postgresql "rag-agree --run on PostgreSQL (make deps installs it)"
	done_testing
fi
if ! pg_start; then
	tap_ok 1 "a PostgreSQL server of our own started"
	done_testing
fi
PGURL="postgresql://ragpipe:pw-s3cret-77@/postgres?host=$PGDIR/sock"
run rag rag-store -q -c "$T/c.yaml" --store "$PGURL" --run-id R --label v1 add - <"$T/r.jsonl"
is "$RC:$(cat "$OUT")" 0:R "PostgreSQL: run R added"
serve_start --store "$PGURL"
marks PostgreSQL
curl -s -o "$T/labels.csv" "${URL}api/runs/R/labels.csv?metric=$M"
serve_stop
is "$(no_formula "$T/labels.csv")" "" "PostgreSQL: labels.csv, no formula"
run rag rag-agree -c "$T/c.yaml" -f scores.$M -L "$T/labels.csv" --json "$T/R.jsonl"
cp "$OUT" "$T/csv.json"
is "$(jq -c '[.pairs, .labels_unmatched, .labels_duplicate, .without_label]' "$OUT")" '[5,0,1,1]' \
	"PostgreSQL: labels.csv read back, every mark matched"
run rag rag-agree -c "$T/c.yaml" --store "$PGURL" --run R --metric $M --json
is "$RC" 0 "PostgreSQL: --run R, exit 0"
same_as_csv "$OUT" "$T/csv.json" "the marks of run R ($M)" "PostgreSQL: the same summary as its labels.csv's, byte for byte"
unlike "$(cat "$ERR")" 'pw-s3cret-77' "PostgreSQL: the password in no message"
run rag rag-agree -c "$T/c.yaml" --store "$PGURL" --run nope --metric $M
is "$RC" 6 "PostgreSQL: a run not there, exit 6"

done_testing
