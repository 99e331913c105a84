#!/bin/sh
# 76-store.t - rag-store on both backends, real servers: an SQLite file, and a PostgreSQL server
# this test starts itself (initdb, pg_ctl; a socket in a private directory, no TCP; as an
# unprivileged user when run as root), stopped at the end. The same commands on both give the
# same results (compared); runs from run directories and from a stream, export byte for byte
# (cmp), diff and rag-gate -b over it, history, the list's filters, test set versions, four
# adds at once lose nothing (also on a new store, its schema made by all four at once), the
# schema's migration (absent, older, newer refused), the password of a URL never shown;
# rag-eval --store. The offline judge throughout.
. "$(dirname "$0")/lib.sh"

need jq
[ -x "$BIN/rag-store" ] || bail_out "bin/rag-store is not built: run make"
EX=$TOP/share/examples/example.jsonl

# ---------------------------------------------------------------- PostgreSQL (pg_start: lib.sh)
trap 'pg_stop; _lib_cleanup' EXIT

# ---------------------------------------------------------------- two runs to keep
# run A: four records; run B: en-2 answered better, en-3 worse, en-4 gone, en-9 new
head -n 4 "$EX" >"$T/set.jsonl"
jq -c 'if .id == "en-2" then .answer = .reference
       elif .id == "en-3" then .answer = "I do not know."
       else . end | select(.id != "en-4")' "$T/set.jsonl" >"$T/setB.jsonl"
sed -n 5p "$EX" | jq -c '.id = "en-9"' >>"$T/setB.jsonl"
conf() {
	printf 'llm:\n  provider: offline\ncache:\n  mode: off\ngate:\n  record:\n    keyword_overlap: 0.5\nsystem:\n  top_k: %s\n' "$1"
}
conf 5 >"$T/a.yaml"
conf 3 >"$T/b.yaml"
run rag rag-eval -q -c "$T/a.yaml" -m keyword_overlap --run-id A -o "$T/A" "$T/set.jsonl"
is "$RC" 1 "run A: made (the gate fails one record)"
run rag rag-eval -q -c "$T/b.yaml" -m keyword_overlap --run-id B -o "$T/B" "$T/setB.jsonl"
is "$RC" 1 "run B: made"
# B started after A, whatever the clock did
jq '.started = "2030-01-02T00:00:00Z"' "$T/B/run.json" >"$T/B/run.json.new" && mv "$T/B/run.json.new" "$T/B/run.json"
# a stream whose last line has no newline
printf '%s' "$(head -n 2 "$T/A/records.jsonl")" >"$T/stream.jsonl"

printf 'llm:\n  provider: offline\n' >"$T/c.yaml"
st() { rag rag-store -c "$T/c.yaml" --store "$URL" "$@"; }

# suite NAME: the same commands against $URL; outputs into $T/NAME/ for comparing
suite() {
	D=$T/$1
	mkdir -p "$D"
	run st add "$T/A"
	is "$RC:$(cat "$OUT")" "0:A" "$1: add RUNDIR prints the run's id"
	run st add "$T/B" --label v2
	is "$RC:$(cat "$OUT")" "0:B" "$1: add a second run with a label"
	run st add - --run-id S --label stream --testset set --commit abc123 <"$T/stream.jsonl"
	is "$RC:$(cat "$OUT")" "0:S" "$1: add - (a stream)"
	run st add "$T/A"
	is "$RC" 6 "$1: the same run again: exit 6"
	like "$(cat "$ERR")" 'run "A" is already in the store' "$1: and says so"
	run st add "$T/nope"
	is "$RC" 3 "$1: not a run directory: exit 3"

	run st export A
	check "$1: export A is records.jsonl byte for byte" cmp "$OUT" "$T/A/records.jsonl"
	run st export B
	check "$1: export B too" cmp "$OUT" "$T/B/records.jsonl"
	run st export S
	check "$1: a stream without its last newline comes back without it" cmp "$OUT" "$T/stream.jsonl"
	cp "$OUT" "$D/export-S"
	run st export last~2
	check "$1: last~2 is the second run before the newest (A)" cmp "$OUT" "$T/A/records.jsonl"
	run st export nosuch
	is "$RC" 1 "$1: an unknown run: exit 1"
	like "$(cat "$ERR")" 'no run "nosuch" in the store' "$1: and says which"
	run st show last~7
	is "$RC" 1 "$1: last~7 of three runs: exit 1"

	run st list --json
	# the stream's times are those of its add
	jq -c 'del(.added) | if .run == "S" then del(.started, .ended) else . end' "$OUT" >"$D/list"
	is "$(jq -r .run "$D/list" | tr '\n' ' ')" "A S B " "$1: list, oldest first"
	is "$(jq -c '[.testset, .label, .n, .gate, .passed, .system.top_k]' "$D/list" | tr '\n' ' ')" \
		'["set",null,4,"fail",false,5] ["set","stream",2,null,null,null] ["setB","v2",4,"fail",false,3] ' \
		"$1: each run's test set, label, records, gate, system"
	is "$(jq -c .means "$D/list" | head -n 1)" \
		"$(jq -s -c '{keyword_overlap: (map(.scores.keyword_overlap) | add / length * 1e6 | round / 1e6)}' "$T/A/records.jsonl")" \
		"$1: the means of the records' scores"
	run st list
	like "$(head -n 1 "$OUT")" '^RUN +STARTED +TESTSET +LABEL +COMMIT +N +GATE' "$1: list: a table"
	like "$(head -n 1 "$OUT")" 'GATE +EXIT +PASS RATE \(OF RECORDS WITHOUT ERRORS OR NULLS\)$' "$1: list: the exit status and the pass rate, its denominator named"
	is "$(nlines "$OUT")" 4 "$1: a line a run"
	run st list --json --testset set
	is "$(jq -r .run "$OUT" | tr '\n' ' ')" "A S " "$1: --testset"
	run st list --json --system top_k=3
	is "$(jq -r .run "$OUT" | tr '\n' ' ')" "B " "$1: --system KEY=VALUE"
	run st list --json --since 2030-01-01
	is "$(jq -r .run "$OUT" | tr '\n' ' ')" "B " "$1: --since"
	run st list --json --until 2029-12-31
	is "$(jq -r .run "$OUT" | tr '\n' ' ')" "A S " "$1: --until a day: to its end"
	run st list --json --commit abc
	is "$(jq -r .run "$OUT" | tr '\n' ' ')" "S " "$1: --commit by its start"
	for w in % _ _bc a%3 '\'; do
		run st list --json --commit "$w"
		is "$RC:$(cat "$OUT")" "0:" "$1: --commit '$w': a wildcard of SQL's LIKE matches only itself"
	done
	run st list --json --limit 1
	is "$(jq -r .run "$OUT")" "B" "$1: --limit: the newest"

	run st show A
	is "$(jq -c '[.run, .run_json.run_id, .run_json.testset == "'"$T/set.jsonl"'"]' "$OUT")" '["A","A",true]' \
		"$1: show: the run and its run.json whole"
	jq -c 'del(.added)' "$OUT" >"$D/show-A"

	run st diff A B
	is "$RC" 0 "$1: diff: exit 0"
	cp "$OUT" "$D/diff"
	is "$(jq -r '"\(.id):\(.change)"' "$OUT" | tr '\n' ' ')" "en-1:same en-2:improved en-3:regressed en-9:added en-4:removed " \
		"$1: diff: same, improved, regressed, added, removed, by id"
	is "$(jq -c 'select(.id == "en-3") | [(.delta.keyword_overlap < 0), .answer, (.baseline_answer | length > 0)]' "$OUT")" \
		'[true,"I do not know.",true]' "$1: diff: the delta, both answers"
	is "$(jq -c 'select(.id == "en-9") | [.baseline_scores, .baseline_answer, .delta]' "$OUT")" '[null,null,{}]' \
		"$1: an added record has no baseline"
	like "$(cat "$ERR")" '1 regressed [(]0 lost their score[)], 1 improved, 1 unchanged [(]paired by id over 3 records; regressed: fell by more than 0[.]1.*; 1 added, 1 removed' "$1: diff: the counts on stderr, and the definition"
	run st diff A last
	check "$1: diff A last is diff A B" cmp "$OUT" "$D/diff"

	run st history
	jq -c 'if .run == "S" then del(.started) else . end' "$OUT" >"$D/history"
	is "$(jq -c 'keys_unsorted' "$OUT" | sort -u)" '["run","started","label","commit","testset","n","passed","means","exit_status","pass_rate","pass_rate_of"]' \
		"$1: history: format H"
	run st history --testset set --limit 1
	is "$(jq -r .run "$OUT")" S "$1: history --testset --limit"

	run st testset import "$T/set.jsonl" --name qa
	is "$RC:$(cat "$OUT")" "0:qa@1" "$1: testset import: version 1"
	run st testset import "$T/set.jsonl" --name qa
	is "$(cat "$OUT")" "qa@1" "$1: the same content again: no new version"
	like "$(cat "$ERR")" "unchanged" "$1: and says so"
	jq -s '.' "$T/set.jsonl" >"$T/set.json"
	run st testset import "$T/set.json" --name qa
	is "$(cat "$OUT")" "qa@1" "$1: the same records in another format: no new version"
	run st testset import "$T/setB.jsonl" --name qa
	is "$(cat "$OUT")" "qa@2" "$1: changed: version 2"
	run st testset export qa@1
	is "$(cat "$OUT")" "$(jq -c . "$T/set.jsonl")" "$1: export qa@1: the first version's records"
	cp "$OUT" "$D/testset-1"
	run st testset export qa
	is "$(cat "$OUT")" "$(jq -c . "$T/setB.jsonl")" "$1: export qa: the newest"
	run st testset export qa@3
	is "$RC" 1 "$1: a version not there: exit 1"
	printf '{"id":"x",\n' >"$T/broken.jsonl"
	run st testset import "$T/broken.jsonl" --name qa
	is "$RC" 3 "$1: a broken test set: exit 3"
	like "$(cat "$ERR")" 'broken\.jsonl:[0-9]+:[0-9]+' "$1: named FILE:LINE:COLUMN"
	# runs match records by id (rag-eval --resume, --baseline, diff): an id that repeats is refused
	printf '{"id":"q-1","question":"a"}\n{"id":"q-3","question":"b"}\n{"id":"q-3","question":"c"}\n' >"$T/twice.jsonl"
	run st testset import "$T/twice.jsonl" --name qa
	is "$RC" 3 "$1: a test set that repeats an id: exit 3"
	like "$(cat "$ERR")" 'error: .*twice\.jsonl:3: id "q-3" repeats line 2$' "$1: named, with both lines"
	run st testset export qa
	is "$(nlines "$OUT")" "$(nlines "$T/setB.jsonl")" "$1: and no version of it stored"

	# four CI jobs at once, and four more on a new store whose schema they all make at once
	for i in 1 2 3 4; do
		st -q add - --run-id "C$i" --testset ci <"$T/A/records.jsonl" >"$T/conc.$i" 2>&1 &
		rag rag-store -q -c "$T/c.yaml" --store "$FRESH" add - --run-id "F$i" <"$T/B/records.jsonl" >"$T/newstore.$i" 2>&1 &
	done
	wait
	is "$(cat "$T"/conc.* | sort | tr '\n' ' ')" "C1 C2 C3 C4 " "$1: four adds at once: each printed its id"
	is "$(cat "$T"/newstore.* | sort | tr '\n' ' ')" "F1 F2 F3 F4 " "$1: four adds at once on a new store: each printed its id"
	rm -f "$T"/conc.* "$T"/newstore.*
	run rag rag-store -c "$T/c.yaml" --store "$FRESH" info
	is "$(jq -c '[.schema_version, .runs, .records]' "$OUT")" '[6,4,16]' "$1: the new store made once, every run and record there"
	run st info
	is "$(jq -c '[.schema_version, .runs, .records]' "$OUT")" '[6,7,26]' "$1: and every run and record is there"
	run st list --json --testset ci
	is "$(jq -r .n "$OUT" | tr '\n' ' ')" "4 4 4 4 " "$1: each whole"
	# a commit that holds the wildcards itself is found by them, taken literally
	for c in 'x%_!y' 'x\_z'; do
		rag rag-store -q -c "$T/c.yaml" --store "$FRESH" add - --commit "$c" <"$T/stream.jsonl" >/dev/null 2>&1
	done
	for wc in 'x%|x%_!y' 'x%_!|x%_!y' 'x\_|x\_z' 'x\|x\_z'; do
		w=${wc%%|*}
		run rag rag-store -c "$T/c.yaml" --store "$FRESH" list --json --commit "$w"
		is "$(jq -r .commit "$OUT" | tr '\n' ' ')" "${wc#*|} " "$1: --commit '$w' finds the commit that starts with it"
	done
	run rag rag-store -c "$T/c.yaml" --store "$FRESH" list --json --commit 'x_'
	is "$RC:$(cat "$OUT")" "0:" "$1: --commit 'x_' finds neither"

	# a run named by its label or by the start of its id
	fr() { rag rag-store -c "$T/c.yaml" --store "$FRESH" "$@"; }
	for r in nightly-0001:nightly nightly-0002:nightly ab%_1:x; do
		fr -q add - --run-id "${r%%:*}" --label "${r#*:}" <"$T/stream.jsonl" >/dev/null 2>&1
	done
	run fr show label:nightly
	is "$RC:$(jq -r .run "$OUT")" "0:nightly-0002" "$1: label:NAME is the newest run with that label"
	run fr show label:weekly
	is "$RC" 1 "$1: label:NAME of no run: exit 1"
	like "$(cat "$ERR")" 'no run labelled "weekly" in the store' "$1: and says so"
	run fr show nightly-0001
	is "$RC:$(jq -r .run "$OUT")" "0:nightly-0001" "$1: an id whole"
	run fr export nightly-0
	is "$RC" 1 "$1: the start of two ids: exit 1"
	like "$(cat "$ERR")" '"nightly-0" names more than one run \(nightly-0001, nightly-0002\.\.\.\): give more of the id' \
		"$1: and names two of them"
	run fr show ab%_
	is "$RC:$(jq -r .run "$OUT")" "0:ab%_1" "$1: the start of one id (its %_ taken literally)"
	run fr show ab__
	is "$RC" 1 "$1: _ in a prefix matches only _"
	run fr show ab%
	is "$RC" 1 "$1: fewer than 4 characters are no prefix"
	like "$(cat "$ERR")" 'no run "ab%" in the store' "$1: it is looked up as an id"
}

# ---------------------------------------------------------------- SQLite
run rag rag-store -c "$T/c.yaml" info
is "$(jq -r .url "$OUT")" "$XDG_DATA_HOME/ragpipe/runs.db" "the default store: \$XDG_DATA_HOME/ragpipe/runs.db"
check "made with its directory" test -f "$XDG_DATA_HOME/ragpipe/runs.db"
URL=sqlite://$T/runs.db FRESH=sqlite://$T/fresh.db
suite sqlite
URL=$T/plain.db
run st add "$T/A"
is "$RC:$(cat "$OUT")" "0:A" "a plain path is an SQLite file"
printf 'store:\n  url: sqlite://%s\n' "$T/fromconf.db" >"$T/s.yaml"
run rag rag-store -c "$T/s.yaml" info
is "$(jq -r .url "$OUT")" "sqlite://$T/fromconf.db" "store.url from the configuration"

# rag-gate -b over a diff: the baseline is the diff's baseline_scores
run rag rag-gate --summary-only --json -b "$T/sqlite/diff" "$T/B/records.jsonl"
jq -c '.baseline | del(.file)' "$OUT" >"$T/gate-diff"
run rag rag-gate --summary-only --json -b "$T/A/records.jsonl" "$T/B/records.jsonl"
jq -c '.baseline | del(.file)' "$OUT" >"$T/gate-run"
check "rag-gate -b diff.jsonl compares as with the baseline run itself" cmp "$T/gate-diff" "$T/gate-run"
is "$(jq -c '.matched' "$T/gate-diff")" 3 "the records in both"

# migrations: absent, older, newer
: >"$T/empty.db"
run rag rag-store --store "$T/empty.db" info
is "$(jq -c .schema_version "$OUT")" 6 "an empty database: the schema made, version 6"
if python3 -c 'import sqlite3' 2>/dev/null; then
	python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)"); c.execute("INSERT INTO schema_version VALUES (0)"); c.commit()' "$T/old.db"
	run rag rag-store --store "$T/old.db" add "$T/A"
	is "$RC" 0 "a store of version 0: migrated, then added to"
	run rag rag-store --store "$T/old.db" info
	is "$(jq -c '[.schema_version, .runs]' "$OUT")" '[6,1]' "and it is version 6 now"
	# a store of version 1 (before review marks): its runs kept, the marks' table added
	python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("DROP TABLE marks"); c.execute("UPDATE schema_version SET version = 1"); c.commit()' "$T/old.db"
	run rag rag-store --store "$T/old.db" info
	is "$(jq -c '[.schema_version, .runs]' "$OUT")" '[6,1]' "a store of version 1: migrated to 6, its run kept"
	check "with the marks' table" python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM marks")' "$T/old.db"
	# a store of version 2 (before rag-serve's test set edits): the tags' and authors' tables added
	python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("DROP TABLE testset_info"); c.execute("DROP TABLE testset_authors"); c.execute("UPDATE schema_version SET version = 2"); c.commit()' "$T/old.db"
	run rag rag-store --store "$T/old.db" info
	is "$(jq -c '[.schema_version, .runs]' "$OUT")" '[6,1]' "a store of version 2: migrated to 6, its run kept"
	check "with the test sets' tags and authors" python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("SELECT count(*) FROM testset_info"); c.execute("SELECT count(*) FROM testset_authors")' "$T/old.db"
	python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE schema_version SET version = 99"); c.commit()' "$T/old.db"
	run rag rag-store --store "$T/old.db" list
	is "$RC" 6 "a store of a newer version: refused, exit 6"
	like "$(cat "$ERR")" "schema version 99, newer than this ragpipe's \(6\)" "with a clear message"
else
	skip_missing python3 "the sqlite3 module writes the old and new stores"
fi

# rag-eval --store: the run stored at the end, history.jsonl beside it
run rag rag-eval -q -c "$T/a.yaml" -m keyword_overlap --run-id E1 --store "$T/eval.db" -o "$T/E1" "$T/set.jsonl"
is "$RC" 1 "rag-eval --store: the gate's status"
run rag rag-eval -q -c "$T/a.yaml" -m keyword_overlap --run-id E2 --store "$T/eval.db" -o "$T/E2" "$T/set.jsonl"
is "$(jq -r .run "$T/E2/history.jsonl" | tr '\n' ' ')" "E1 E2 " "history.jsonl: the test set's stored runs, oldest first"
# the report's History tab holds the stored runs (the page's data block, read back as JSON)
sed -n 's/^.*<script type="application\/json" id="rag-data">//; s/<\/script>.*$//p' "$T/E2/report.html" >"$T/E2.data"
is "$(jq -r '[.history[].run] | join(" ")' "$T/E2.data")" "E1 E2" "report.html: its History has the stored runs E1 and E2"
run rag rag-store --store "$T/eval.db" export E2
check "the stored records are the run's" cmp "$OUT" "$T/E2/records.jsonl"
run rag rag-store --store "$T/eval.db" testset export set
is "$(cat "$OUT")" "$(jq -c . "$T/set.jsonl")" "and its test set, stored once (a version 1)"
run rag rag-eval -c "$T/a.yaml" --store "$T/eval.db" --resume "$T/E2"
is "$RC" 1 "rag-eval --resume of a stored run: the gate's status, no store error"
like "$(cat "$ERR")" "run E2 is in .* already" "it says the run is there already"
run rag rag-store --store "$T/eval.db" info
is "$(jq -c '[.runs, .testsets]' "$OUT")" '[2,1]' "two runs, one test set"
run rag rag-eval -q -c "$T/a.yaml" -m keyword_overlap --run-id E3 --store "postgresql://u:hunter2pw@/x?host=$T/none" -o "$T/E3" "$T/set.jsonl"
is "$RC" 6 "rag-eval: a store that fails: exit 6"
check "...and the report is still written (without the stored runs)" test -s "$T/E3/report.html"
check "and the run directory is kept" test -s "$T/E3/records.jsonl"
unlike "$(cat "$ERR")" hunter2pw "the URL's password is not in the message"
like "$(cat "$ERR")" 'u:\*\*\*@' "it is masked"

# ---------------------------------------------------------------- PostgreSQL
if [ ! -x "$PGBIN/initdb" ] || [ ! -x "$PGBIN/pg_ctl" ]; then
	skip_missing postgresql "the PostgreSQL half (make test-deps installs it)"
	done_testing
fi
if ! pg_start; then
	tap_ok 1 "a PostgreSQL server of our own started"
	done_testing
fi
tap_ok 0 "a PostgreSQL server of our own started (socket only)"
URL="postgresql://ragpipe:pw-s3cret@/postgres?host=$PGDIR/sock"
FRESH="postgresql://ragpipe@/fresh?host=$PGDIR/sock"
"$PGBIN/createdb" -h "$PGDIR/sock" -U ragpipe fresh >"$T/createdb.log" 2>&1 || diag "createdb: $(cat "$T/createdb.log")"
suite pg
for f in list show-A diff history testset-1 export-S; do
	check "the same $f on both backends" cmp "$T/sqlite/$f" "$T/pg/$f"
done
run st info
is "$(jq -r .url "$OUT")" "postgresql://ragpipe:***@/postgres?host=$PGDIR/sock" "the URL shown with its password masked"
is "$(jq -r .backend "$OUT")" postgresql "the backend"
run rag rag-store -c "$T/c.yaml" --store "postgresql://ragpipe:pw-s3cret@/nosuchdb?host=$PGDIR/sock" list
is "$RC" 6 "a database not there: exit 6"
unlike "$(cat "$ERR")" 'pw-s3cret' "no password in the message"
like "$(cat "$ERR")" 'nosuchdb' "the message says what failed"
# store.url with a password: run.json keeps it masked, and nothing stored holds it
printf 'llm:\n  provider: offline\ncache:\n  mode: off\nstore:\n  url: "%s"\n' "$URL" >"$T/pg.yaml"
run rag rag-eval -q -c "$T/pg.yaml" -m keyword_overlap --run-id P1 -o "$T/P1" "$T/set.jsonl"
is "$RC" 0 "rag-eval with store.url on PostgreSQL"
unlike "$(cat "$T/P1/run.json" "$T/P1/history.jsonl")" 'pw-s3cret' "run.json and history.jsonl hold no password"
run rag rag-store -c "$T/pg.yaml" show P1
is "$(jq -r .run "$OUT")" P1 "stored where store.url says"
unlike "$(cat "$OUT")" 'pw-s3cret' "nor does the stored run"
# migration: a newer schema refused, as on SQLite
"$PGBIN/psql" -q -h "$PGDIR/sock" -U ragpipe -d postgres -c 'UPDATE schema_version SET version = 99' >/dev/null 2>&1
run st list
is "$RC" 6 "PostgreSQL: a newer schema refused, exit 6"
like "$(cat "$ERR")" "newer than this ragpipe's" "with the same message"
unlike "$(cat "$ERR")" 'pw-s3cret' "and no password"
"$PGBIN/psql" -q -h "$PGDIR/sock" -U ragpipe -d postgres -c 'UPDATE schema_version SET version = 0' >/dev/null 2>&1
run st info
is "$(jq -c '[.schema_version, .runs]' "$OUT")" '[6,8]' "an older version: migrated, the runs kept"
"$PGBIN/psql" -q -h "$PGDIR/sock" -U ragpipe -d postgres -c 'DROP TABLE marks; UPDATE schema_version SET version = 1' >/dev/null 2>&1
run st info
is "$(jq -c '[.schema_version, .runs]' "$OUT")" '[6,8]' "version 1 (before review marks): migrated to 6, the runs kept"
"$PGBIN/psql" -q -h "$PGDIR/sock" -U ragpipe -d postgres -c 'DROP TABLE testset_info; DROP TABLE testset_authors; UPDATE schema_version SET version = 2' >/dev/null 2>&1
run st info
is "$(jq -c '[.schema_version, .runs]' "$OUT")" '[6,8]' "version 2 (before rag-serve's test set edits): migrated to 6, the runs kept"

# the connection lost in the middle of an add: another session holds run_cases, so the add has
# its run inserted and waits on its first record; then its backend is ended, or the server is
# stopped at once. Exit 6 with a message, and nothing of the run stored.
psql_q() { "$PGBIN/psql" -X -q -t -A -h "$PGDIR/sock" -U ragpipe -d postgres -c "$1" 2>/dev/null; }
# pg_wait SQL: until the query gives a row (the server's state, polled; 30 s at most)
pg_wait() {
	_i=0
	while [ -z "$(psql_q "$1")" ]; do
		_i=$((_i + 1))
		[ $_i -gt 300 ] && return 1
		sleep 0.1
	done
}
# hold_run_cases: a session that holds run_cases until fd 7 is closed
hold_run_cases() {
	rm -f "$T/holdin"
	mkfifo "$T/holdin"
	"$PGBIN/psql" -X -q -h "$PGDIR/sock" -U ragpipe -d postgres <"$T/holdin" >"$T/hold.log" 2>&1 &
	HOLD_PID=$!
	exec 7>"$T/holdin"
	printf 'BEGIN;\nLOCK TABLE run_cases IN ACCESS EXCLUSIVE MODE;\n' >&7
	pg_wait "SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'run_cases' AND l.mode = 'AccessExclusiveLock' AND l.granted"
}
# add_blocked ID: rag-store add in the background, returned once it waits on run_cases
add_blocked() {
	(rag rag-store -c "$T/c.yaml" --store "$URL&application_name=ragpipe-cut" add "$T/A" --run-id "$1" \
		>"$T/cut.out" 2>"$T/cut.err"; echo $? >"$T/cut.rc") &
	ADD_PID=$!
	pg_wait "SELECT pid FROM pg_stat_activity WHERE application_name = 'ragpipe-cut' AND wait_event_type = 'Lock'"
}
for how in terminate immediate; do
	rm -f "$T/cut.rc"
	hold_run_cases || diag "run_cases was not locked"
	add_blocked "CUT-$how" || diag "the add did not wait on run_cases"
	if [ $how = terminate ]; then
		psql_q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'ragpipe-cut'" >/dev/null
		wait $ADD_PID
		exec 7>&-
		wait $HOLD_PID
	else
		$AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null 2>&1
		wait $ADD_PID
		exec 7>&-
		wait $HOLD_PID
		$AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w \
			-o "-k $PGDIR/sock -c listen_addresses= -c fsync=off" start >"$T/pg_ctl.log" 2>&1 ||
			diag "pg_ctl start again failed"
	fi
	is "$(cat "$T/cut.rc")" 6 "the connection lost mid-add ($how): exit 6"
	like "$(cat "$T/cut.err")" '^rag-store: error: .*postgresql: .*(terminat|connection|server)' "$how: a message says the store failed"
	unlike "$(cat "$T/cut.err")" 'pw-s3cret' "$how: and no password"
	is "$(cat "$T/cut.out")" "" "$how: no run id printed"
	run st info
	is "$(jq -c '[.runs, .records]' "$OUT")" '[8,30]' "$how: after the server is back, nothing of the run is stored"
	run st export "CUT-$how"
	is "$RC" 1 "$how: the run is not there"
done
pg_stop
done_testing
