#!/bin/sh
# mk/check-stress.sh [N [TEST...]]: the shell suite (or those tests) N times in a row (default 5), each round in a new
# random order (prove --shuffle), to find the tests that fail only now and then: an order they
# depend on, a race, a wait on the clock. Every round runs to its end; then one line per test
# file that ever failed, with its rounds and failed test numbers. Exit 1 when any did.
n=${1:-5}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- tests/t/*.t
dir=tests/tmp/stress
rm -rf "$dir"
mkdir -p "$dir"
: >"$dir/failed"
i=1
while [ "$i" -le "$n" ]; do
	prove --shuffle "$@" >"$dir/round.$i" 2>&1
	st=$?
	# prove's summary: "tests/t/F.t (Wstat: ... Failed: K)" then "  Failed tests:  a-b, c"
	awk -v r="$i" '
		/^tests\/t\/[^ ]+ +\(Wstat/ { if (f != "") print f "\t" r "\t" what; f = $1; what = "exit " $3 }
		/^  Failed tests?:/ && f != "" { what = $0; sub(/^  Failed tests?: */, "#", what) }
		/^  Parse errors:/ && f != "" { what = "parse errors" }
		END { if (f != "") print f "\t" r "\t" what }' "$dir/round.$i" >>"$dir/failed"
	if [ "$st" = 0 ]; then
		echo "make check-stress: round $i of $n: all passed"
	else
		echo "make check-stress: round $i of $n: FAILED (tests/tmp/stress/round.$i)"
	fi
	i=$((i + 1))
done
if [ ! -s "$dir/failed" ]; then
	echo "make check-stress: $n rounds in random order, no test failed"
	exit 0
fi
echo "make check-stress: $n rounds, tests that failed at least once:"
awk -F'\t' '{ r[$1] = r[$1] (r[$1] == "" ? "" : ", ") "round " $2 ": " $3; c[$1]++ }
	END { for (f in c) printf "  %s: failed in %d of %d rounds (%s)\n", f, c[f], n, r[f] }' n="$n" "$dir/failed" | sort
exit 1
