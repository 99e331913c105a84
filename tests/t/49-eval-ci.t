#!/bin/sh
# 49-eval-ci.t - the README's CI recipes (GitHub Actions, Maven, Gradle), as written, twice in a
# row into the same build directory, against a local RAG service (tests/fakerag.py) and the
# offline judge: a second `mvn verify` without `clean` must work (issue 25 item 5). The command
# lines are taken from README.md itself, so the README cannot drift from what is tested.
. "$(dirname "$0")/lib.sh"

need jq python3 flock xmllint
[ -x "$BIN/rag-eval" ] || bail_out "bin/rag-eval is not built: run make"
PATH=$BIN:$PATH
export PATH

# Each recipe's argv, one argument a line, in a file per recipe: the GitHub step's rag-eval, the
# exec-maven-plugin's <argument>s, the Gradle Exec task's commandLine(...); the build
# directory written as the build tool would expand it (target/, build/).
python3 - "$TOP/README.md" "$T" <<'EOF'
import re, shlex, sys
text = open(sys.argv[1], encoding="utf-8").read()
out = sys.argv[2]
# the GitHub step runs rag-eval in ragpipe's image (docker run ... ragpipe rag-eval ...): its
# rag-eval command line, as the image runs it (docker itself is not run here)
gh = re.search(r"^\s*(?:run: )?(rag-eval .*-o rag-run .*)$", text, re.M)
mvn = re.search(r"<artifactId>exec-maven-plugin</artifactId>(.*?)</plugin>", text, re.S)
gradle = re.search(r'commandLine\((.*?)\)\n', text, re.S)
argv = {
    "github": shlex.split(gh.group(1)),
    "maven": ["rag-eval"] + [a.replace("${project.build.directory}", "target")
                             for a in re.findall(r"<argument>(.*?)</argument>", mvn.group(1))],
    "gradle": [a if a is not None else "build/rag-eval"
               for a in (m.group(1) for m in re.finditer(
                   r'"([^"]*)"|layout\.buildDirectory\.dir\("rag-eval"\)\.get\(\)\.asFile\.path',
                   gradle.group(1)))],
}
for name, args in argv.items():
    with open("%s/%s.argv" % (out, name), "w", encoding="utf-8") as f:
        f.write("\n".join(args) + "\n")
EOF
for r in github maven gradle; do
	check "README: the $r recipe's command line was found" test -s "$T/$r.argv"
done
is "$(head -1 "$T/maven.argv") $(head -1 "$T/gradle.argv")" "rag-eval rag-eval" "Maven and Gradle run rag-eval"

FAKE_SERVER=fakerag.py
fake_start
# the service under test and the offline judge; a gate that the fake's answers pass
conf() {
	mkdir -p "$(dirname "$1")"
	printf 'collect:\n  url: %s/ask\nllm:\n  provider: offline\ncache:\n  mode: off\n' "$FAKE_URL" >"$1"
	printf 'eval:\n  metrics: [faithfulness, context_utilization]\ngate:\n  mean: {faithfulness: 0.1}\n' >>"$1"
}
testset() {
	mkdir -p "$(dirname "$1")"
	printf '[{"id": "q1", "question": "How long do refunds take?", "category": "billing"},\n' >"$1"
	printf ' {"id": "q2", "question": "Which cards are accepted?", "category": "payment"}]\n' >>"$1"
}

# run_recipe NAME N: the recipe's command line in $T/NAME (the project), its N-th time
run_recipe() {
	_r=$1 _n=$2
	( cd "$T/$_r" && set -- && while IFS= read -r _a; do set -- "$@" "$_a"; done <"$T/$_r.argv" && "$@" ) \
		>"$T/$_r.$_n.out" 2>"$T/$_r.$_n.err"
	echo $? >"$T/$_r.$_n.rc"
}

mkdir -p "$T/github" "$T/maven" "$T/gradle"
conf "$T/github/rag.yaml"; testset "$T/github/tests/testset.json"
conf "$T/maven/src/test/rag/rag.yaml"; testset "$T/maven/src/test/rag/testset.json"
conf "$T/gradle/src/test/rag/rag.yaml"; testset "$T/gradle/src/test/rag/testset.json"
dir_of() { case $1 in github) echo "$T/github/rag-run" ;; maven) echo "$T/maven/target/rag-eval" ;; gradle) echo "$T/gradle/build/rag-eval" ;; esac; }

for r in github maven gradle; do
	d=$(dir_of $r)
	run_recipe $r 1
	is "$(cat "$T/$r.1.rc")" 0 "$r: the first build passes the gate (exit 0)"
	[ "$(cat "$T/$r.1.rc")" = 0 ] || diag "$(cat "$T/$r.1.err")"
	first=$(jq -r .run_id "$d/run.json" 2>/dev/null)
	: >"$T/$r.between"
	run_recipe $r 2
	is "$(cat "$T/$r.2.rc")" 0 "$r: the same build again, without clean, passes too (exit 0)"
	[ "$(cat "$T/$r.2.rc")" = 0 ] || diag "$(cat "$T/$r.2.err")"
	second=$(jq -r .run_id "$d/run.json" 2>/dev/null)
	isnt "$second" "$first" "$r: the second build is a new run ($second)"
	is "$(jq -r '"\(.id) \(.run_id == "'"$second"'")"' "$d/records.jsonl" 2>/dev/null | tr '\n' ' ')" "q1 true q2 true " \
		"$r: records.jsonl holds the second run's records alone, each once"
	check "$r: junit.xml is the second build's" test "$d/junit.xml" -nt "$T/$r.between"
	check "$r: summary.md and report.html are there" test -s "$d/summary.md" -a -s "$d/report.html"
	check "$r: junit.xml is valid by the Jenkins JUnit schema" xmllint --noout --schema "$FIXTURES/junit.xsd" "$d/junit.xml"
done
is "$(jq -r .path "$FAKE_LOG" | sort | uniq -c | tr -s ' ' | sed 's/^ //')" "12 /ask" \
	"the service was asked each question once per build: 3 recipes x 2 builds x 2 questions"

# --force replaces a finished run, never a running one: the directory locked by another process
# (flock(1) holds what a running rag-eval holds) is refused, and nothing in it is touched
d=$(dir_of maven)
cp "$d/records.jsonl" "$T/before.jsonl"
( cd "$T/maven" && flock "$d" rag-eval --force -c src/test/rag/rag.yaml -o target/rag-eval src/test/rag/testset.json ) \
	>"$T/locked.out" 2>"$T/locked.err"
is "$?" 2 "--force into a directory a running rag-eval holds: exit status 2"
like "$(cat "$T/locked.err")" "is in use by another rag-eval" "...and why"
check "...its records untouched" cmp "$T/before.jsonl" "$d/records.jsonl"
# without --force, a directory that holds a run is still refused, with the way out
( cd "$T/maven" && rag-eval -c src/test/rag/rag.yaml -o target/rag-eval src/test/rag/testset.json ) \
	>"$T/plain.out" 2>"$T/plain.err"
is "$?" 2 "a run into a directory that holds one, without --force: exit status 2"
like "$(cat "$T/plain.err")" "holds a run already: --resume .* or --force to replace it" "...naming --force"
run rag rag-eval --force --resume "$d"
is "$RC" 2 "--force with --resume: a usage error (exit 2)"
# --force never deletes the baseline it compares with
run rag rag-eval --force -c "$T/maven/src/test/rag/rag.yaml" -o "$d" -b "$d" "$T/maven/src/test/rag/testset.json"
is "$RC" 2 "--force -o DIR -b DIR: refused (exit 2), the baseline would be replaced"
check "...its records untouched" cmp "$T/before.jsonl" "$d/records.jsonl"
# a file of the user's in the run directory stays; only the run's own files are replaced
echo mine >"$d/notes.txt"
( cd "$T/maven" && rag-eval -q --force -c src/test/rag/rag.yaml -o target/rag-eval src/test/rag/testset.json ) >/dev/null 2>&1
is "$(cat "$d/notes.txt")" mine "--force: a file that is not the run's is kept"

# --label: the run's label in run.json and in the store, as rag-store add --label stores it
( cd "$T/maven" && rag-eval -q --force --label "nightly #7" --store "$T/runs.db" -c src/test/rag/rag.yaml \
	-o target/rag-eval src/test/rag/testset.json ) >"$T/label.out" 2>"$T/label.err"
is "$?" 0 "--label with --store: exit 0"
is "$(jq -r .label "$d/run.json")" "nightly #7" "--label: run.json says it"
run rag rag-store --store "$T/runs.db" list --json
is "$(jq -r '.label' "$OUT")" "nightly #7" "--label: the stored run has it, as rag-store list shows"
( cd "$T/maven" && rag-eval -q --resume target/rag-eval ) >/dev/null 2>&1
is "$(jq -r .label "$d/run.json")" "nightly #7" "--resume keeps the run's label"
run rag rag-store --store "$T/byhand.db" add "$d"
run rag rag-store --store "$T/byhand.db" list --json
is "$(jq -r '.label' "$OUT")" "nightly #7" "rag-store add RUNDIR takes the label from run.json"
run rag rag-store --store "$T/byhand2.db" --label other add "$d"
run rag rag-store --store "$T/byhand2.db" list --json
is "$(jq -r '.label' "$OUT")" "other" "...and rag-store add --label overrides it"
done_testing
