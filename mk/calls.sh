#!/bin/sh
# calls.sh [-r ROOT] OBJECT... - the call graph of the build, file by file, held to HACKING.md's
# layers: an object calls (or reads) a file's name when nm lists it undefined there and defined
# in that file's object. Prints each finding and fails when there is one:
#   loop: files that call each other, directly or round a circle (each pair's names);
#   upward: a file that calls a file of a higher layer (mk/layers.sh; the tool layer,
#     cmd/tool*.c, stands above the library, and the tools, cmd/'s other files, above it);
#   public: a function no other file calls: it is static; or one that, besides its own file,
#     only the unit tests of ROOT/tests/unit call: it is RAG_UNITTEST (base.h). A name the unit
#     tests mention counts as a call there; a fuzz target of ROOT/tests/fuzz is a real caller
#     (its build has no RAG_UNITTESTS), and a name one mentions is not a finding.
# A file is named by its object's path after obj/ (obj/lib/util.o: lib/util.c), so that a probe
# of objects under another obj/ is read as the tree's own (tests/t/92-layers.t plants one).
# `make calls` runs it over the build's objects (make lint); -e prints the edges, "CALLER
# CALLEE NAME" a line, and checks nothing.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
edges=0
while getopts r:e o; do
	case $o in
	r) root=$OPTARG ;;
	e) edges=1 ;;
	*) echo "usage: calls.sh [-e] [-r ROOT] OBJECT..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "calls.sh: no objects (run make first)" >&2; exit 2; }

# public functions that no file calls yet, each with why it stays public
#   rag_cli_metric: the whole program of a metric tool (HACKING.md's recipe); its first user is
#   issue 39's item 3
ALLOW_PUBLIC='rag_cli_metric'

{
	sh "$(dirname "$0")/layers.sh" "$root" | sed 's/^/L /'
	# the words of the unit tests (W) and of the fuzz targets (F), each set read alone
	for f in "$root"/tests/unit/*.c; do [ -f "$f" ] && cat "$f"; done |
		grep -o '[A-Za-z_][A-Za-z0-9_]*' | LC_ALL=C sort -u | sed 's/^/W /'
	for f in "$root"/tests/fuzz/*.c; do [ -f "$f" ] && cat "$f"; done |
		grep -o '[A-Za-z_][A-Za-z0-9_]*' | LC_ALL=C sort -u | sed 's/^/F /'
	for o in "$@"; do
		s=$(printf '%s\n' "$o" | sed 's|.*obj/||; s|\.o$|.c|')
		nm -g --defined-only "$o" | awk -v s="$s" 'NF == 3 { print "D", s, $2, $3 }'
		nm -u "$o" | awk -v s="$s" '{ print "U", s, $NF }'
	done
} | LC_ALL=C awk -v edges="$edges" -v allow=" $ALLOW_PUBLIC " '
$1 == "L" { layer[$2] = $3; if ($3 > top) top = $3; next }
$1 == "W" { tested[$2] = 1; next }
$1 == "F" { fuzzed[$2] = 1; next }
$1 == "D" { def[$4] = $2; kind[$4] = $3; file[$2] = 1; next }
$1 == "U" { used[$2, $3] = 1; users[$3] = users[$3] " " $2; next }
function lay(f,   b) {
	if (f ~ /^cmd\/tool[-.a-z]*\.c$/) return top + 1
	if (f ~ /^cmd\//) return top + 2
	b = f; sub(/.*\//, "", b)
	return (b in layer) ? layer[b] : -1
}
# the words of list (separated by sep) sorted, joined by sep
function sorted(list, sep,   w, n, i, j, t, r) {
	n = split(list, w, sep)
	for (i = 2; i <= n; i++) for (j = i; j > 1 && w[j - 1] > w[j]; j--) { t = w[j]; w[j] = w[j - 1]; w[j - 1] = t }
	r = w[1]; for (i = 2; i <= n; i++) r = r sep w[i]
	return r
}
END {
	for (k in used) {
		split(k, a, SUBSEP)
		if (!(a[2] in def) || def[a[2]] == a[1]) continue
		e = a[1] SUBSEP def[a[2]]
		if (e in names) names[e] = names[e] ", " a[2]
		else names[e] = a[2]
		out[a[1]] = out[a[1]] " " def[a[2]]
	}
	if (edges) {
		for (e in names) { split(e, a, SUBSEP); print a[1], a[2], names[e] }
		exit 0
	}
	nf = 0
	for (f in file) { nf++; if (lay(f) < 0) { print "calls: " f ": no layer in HACKING.md" | "sort"; bad++ } }
	# reach[f, g]: g is reached from f by calls (a depth-first walk from each file)
	for (f in file) {
		sp = 0; stack[++sp] = f
		while (sp > 0) {
			x = stack[sp--]
			n = split(out[x], to, " ")
			for (i = 1; i <= n; i++)
				if (!((f, to[i]) in reach)) { reach[f, to[i]] = 1; stack[++sp] = to[i] }
		}
	}
	nloops = 0
	for (f in file) {
		if (f in inloop || !((f, f) in reach)) continue
		members = f; inloop[f] = 1
		for (g in file) if (g != f && (f, g) in reach && (g, f) in reach) { members = members " " g; inloop[g] = 1 }
		n = split(sorted(members, " "), m, " ")
		line = "calls: loop: " m[1]
		for (i = 2; i <= n; i++) line = line " " m[i]
		sep = " ("
		for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
			if ((m[i], m[j]) in names) { line = line sep m[i] " -> " m[j] ": " sorted(names[m[i], m[j]], ", "); sep = "; " }
		print line ")" | "sort"
		nloops++
	}
	nup = 0; ncalls = 0
	for (e in names) {
		ncalls++
		split(e, a, SUBSEP)
		if (lay(a[1]) >= 0 && lay(a[1]) < lay(a[2])) {
			print "calls: upward: " a[1] " (layer " lay(a[1]) ") calls " a[2] " (layer " lay(a[2]) "): " sorted(names[e], ", ") | "sort"
			nup++
		}
	}
	npub = 0
	for (s in def) {
		if (kind[s] != "T" || s == "main" || s in fuzzed || index(allow, " " s " ")) continue
		n = split(users[s], u, " "); other = 0
		for (i = 1; i <= n; i++) if (u[i] != def[s]) other = 1
		if (other) continue
		if (s in tested)
			print "calls: public: " def[s] ": " s " is called by the tests alone: make it RAG_UNITTEST (base.h)" | "sort"
		else
			print "calls: public: " def[s] ": " s " is called by no other file: make it static" | "sort"
		npub++
	}
	close("sort")
	printf "make calls: %d files, %d pairs that call: %d loops, %d upward calls, %d public functions no other file calls (or the unit tests alone)\n", \
		nf, ncalls, nloops, nup, npub
	exit (bad + nloops + nup + npub) ? 1 : 0
}'
