#!/bin/sh
# mk/check-stress.sh [N [TEST...]]: the suite (or those shell tests) N times in a row (default 5),
# each round in a new random order (prove --shuffle), to find the tests that fail only now and
# then: an order they depend on, a race, a wait on the clock. The default suite is make check's:
# the C unit tests (tests/unit/*.test, built by the make target) and the shell tests. Every
# round runs to its end; then one line per test file that ever failed, with its rounds and failed
# test numbers. Exit 1 when any did.
#
# RAG_STRESS_LOAD=K (make check-loaded: K = twice the cores) runs the rounds on a busy machine, as
# a user's often is: `stress-ng --cpu K` keeps K processes spinning at the tests' own priority for
# the whole run, and each round's line says how long it took and the load average at its end.
n=${1:-5}
[ $# -gt 0 ] && shift
units=
if [ $# = 0 ]; then
	set -- tests/t/*.t
	units=$(ls tests/unit/*.test 2>/dev/null)
fi
dir=tests/tmp/stress
rm -rf "$dir"
mkdir -p "$dir"
: >"$dir/failed"

load=${RAG_STRESS_LOAD:-}
lpid=
if [ -n "$load" ]; then
	command -v stress-ng >/dev/null 2>&1 || {
		echo "make check-loaded: stress-ng is not installed (sh mk/deps.sh install stress)" >&2
		exit 2
	}
	# its own bound: it ends after 12 h whatever happens to this script
	stress-ng --cpu "$load" --timeout 12h --quiet >"$dir/stress-ng.log" 2>&1 &
	lpid=$!
	trap 'kill "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	echo "make check-stress: under load: stress-ng --cpu $load (pid $lpid) on $(nproc) cores"
fi

i=1
t_all=$(date +%s)
while [ "$i" -le "$n" ]; do
	t0=$(date +%s)
	: >"$dir/round.$i"
	st=0
	if [ -n "$units" ]; then
		# shellcheck disable=SC2086
		prove --shuffle --exec '' $units >>"$dir/round.$i" 2>&1 || st=1
	fi
	prove --shuffle "$@" >>"$dir/round.$i" 2>&1 || st=1
	t1=$(date +%s)
	# prove's summary: "tests/t/F.t (Wstat: ... Failed: K)" then "  Failed tests:  a-b, c"
	awk -v r="$i" '
		/^tests\/(t|unit)\/[^ ]+ +\(Wstat/ { if (f != "") print f "\t" r "\t" what; f = $1; what = "exit " $3 }
		/^  Failed tests?:/ && f != "" { what = $0; sub(/^  Failed tests?: */, "#", what) }
		/^  Parse errors:/ && f != "" { what = "parse errors" }
		END { if (f != "") print f "\t" r "\t" what }' "$dir/round.$i" >>"$dir/failed"
	how="$((t1 - t0)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	if [ "$st" = 0 ]; then
		echo "make check-stress: round $i of $n: all passed ($how)"
	else
		echo "make check-stress: round $i of $n: FAILED ($how; tests/tmp/stress/round.$i)"
		# what the failing tests said on standard error (lib.sh's diag: their names and why)
		grep -E '^(#   Failed test|#  +Failed test)' "$dir/round.$i" | head -20
	fi
	i=$((i + 1))
done
echo "make check-stress: $n rounds in $(($(date +%s) - t_all)) s${load:+ under stress-ng --cpu $load}"
if [ ! -s "$dir/failed" ]; then
	echo "make check-stress: $n rounds in random order, no test failed"
	exit 0
fi
echo "make check-stress: $n rounds, tests that failed at least once:"
awk -F'\t' '{ r[$1] = r[$1] (r[$1] == "" ? "" : ", ") "round " $2 ": " $3; c[$1]++ }
	END { for (f in c) printf "  %s: failed in %d of %d rounds (%s)\n", f, c[f], n, r[f] }' n="$n" "$dir/failed" | sort
exit 1
