#!/bin/sh
# mk/skipped.sh LOG: the end of `make check`: how many tests were skipped, and why.
# LOG has a line "TEST<TAB>KIND<TAB>REASON" per skip (tests/t/lib.sh writes it), KIND being
# "missing TOOL" (a tool not installed: `make test-deps` installs them) or "other".
log=$1
n=$(grep -c . "$log" 2>/dev/null) || n=0
if [ "$n" = 0 ]; then
	echo "make check: no test skipped"
	exit 0
fi
missing=$(awk -F'\t' '$2 ~ /^missing / { sub(/^missing /, "", $2); print $2 }' "$log" | sort -u | tr '\n' ' ')
if [ -n "$missing" ]; then
	echo "make check: $n tests skipped, $(grep -c '	missing ' "$log") of them for a tool not installed (${missing% }: run \`make test-deps\`):"
else
	echo "make check: $n tests skipped:"
fi
# one line per test file and reason (for a missing tool: per tool), most frequent first
awk -F'\t' '{ if ($2 ~ /^missing /) { t = $2; sub(/^missing /, "", t); print $1 ": " t " is not installed" } else print $1 ": " $3 }' "$log" |
	sort | uniq -c | sort -k1,1nr -k2 | sed 's/^ */  /'
