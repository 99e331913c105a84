#!/bin/sh
# 92-layers.t - the library never prints and never exits: its objects reference none of the
# functions and streams that do, except util.o's out-of-memory path (write(2) and abort).
# The tool layer (cmd/tool.c, cmd/tool-run.c, cmd/tool.h) is the one place that prints; no
# library file includes it, and the library archive does not hold it. Both graphs of files, the
# includes and the calls (mk/calls.sh), keep to HACKING.md's layers and have no loop.
. "$(dirname "$0")/lib.sh"

command -v nm >/dev/null 2>&1 || bail_out "nm (binutils) is missing: run make deps"
[ -f "$TOP/obj/librag.a" ] || bail_out "obj/librag.a is not built: run make"

# what prints, exits or reaches the standard streams; the _chk names are what
# _FORTIFY_SOURCE turns printf and friends into
FORBIDDEN='printf|vprintf|fprintf|vfprintf|dprintf|vdprintf|puts|fputs|putchar|perror|exit|_exit|_Exit|abort|err|errx|warn|warnx|error|stdout|stderr|stdin|__printf_chk|__fprintf_chk|__vfprintf_chk|__vprintf_chk|__dprintf_chk|__vdprintf_chk'

nsrc=$(ls "$TOP"/lib/*.c "$TOP"/lib/store/*.c | wc -l)
# the objects of the archive, not stray ones in the tree
members=$(ar t "$TOP/obj/librag.a" | LC_ALL=C sort)
is "$(printf '%s\n' "$members" | grep -c '\.o$')" "$nsrc" "librag.a holds one object per lib/*.c and lib/store/*.c ($nsrc)"
is "$(printf '%s\n' "$members" | grep -x 'tool.o')" "" "librag.a does not hold the tool layer"

# nm -A of the archive: "obj/librag.a:util.o:    U abort"
nm -u -A "$TOP/obj/librag.a" >"$T/undef" 2>"$T/nm.err"
is "$?:$(cat "$T/nm.err")" "0:" "nm reads librag.a"
check "nm lists undefined symbols of the library" grep -q ' U ' "$T/undef"
sed -n 's/^.*:\([^:]*\.o\): *U \(.*\)$/\1 \2/p' "$T/undef" |
	grep -E " ($FORBIDDEN)\$" | LC_ALL=C sort -u >"$T/found"
# the one allowed place: util.o's oom() writes its message with write(2) and aborts
grep -v -x -e 'util.o abort' "$T/found" >"$T/bad"
is "$(cat "$T/bad")" "" "no library object prints, exits or uses stdin/stdout/stderr"
is "$(grep -c . "$T/found")" 1 "util.o's out-of-memory abort is the one exception, and it is seen"

# the checker itself: an object that prints is caught
printf '#include <stdio.h>\nvoid f(int n) { fprintf(stderr, "%%d", n); }\n' >"$T/p.c"
if cc -c -o "$T/p.o" "$T/p.c" 2>/dev/null; then
	is "$(nm -u "$T/p.o" | awk '{print $2}' | grep -cE "^($FORBIDDEN)\$")" 2 \
		"the check sees fprintf and stderr in an object that prints"
else
	tap_ok 1 "cc compiles a probe object"
fi

# sources: no library file includes the tool layer or getopt
is "$(grep -lE '#include [<"](tool\.h|getopt\.h)[>"]' "$TOP"/lib/*.[ch] "$TOP"/lib/store/*.[ch] 2>/dev/null)" "" \
	"no library file includes tool.h or getopt.h"
is "$(grep -L '#include "tool.h"' "$TOP"/cmd/rag-*.c)" "" "every tool includes tool.h"


# ---------------------------------------------------------------- the include graph
# HACKING.md's table of headers gives each library header and file its layer ("| 2 records |
# `record.h` | ... (record.c); ... (testset.c) |", read by mk/layers.sh, which places a file that
# defines an operation's descriptor and that the table does not name in metric.h's layer, so
# that a new operation needs no row); a library file includes headers of its own layer or a
# lower one only. The tools (cmd/) may include any library header.
sh "$TOP/mk/layers.sh" "$TOP" >"$T/layers"
check "HACKING.md's table gives layers" test "$(wc -l <"$T/layers")" -gt 40
check "HACKING.md's table gives metric.h a layer" grep -q '^metric.h [0-9]' "$T/layers"

# layer_violations ROOT: "FILE (layer A) includes H (layer B)" for each include of a higher
# layer under ROOT/lib; "FILE: no layer" for a file the table does not place
layer_violations() {
	for f in "$1"/lib/*.[ch] "$1"/lib/store/*.[ch]; do [ -f "$f" ] && echo "$f"; done |
	while read -r f; do
		printf '%s %s\n' "${f#"$1"/}" "$(grep -h '^#include "[^"]*\.h"' "$f" |
			sed 's/^#include "\(.*\)".*/\1/' | sed 's|.*/||' | tr '\n' ' ')"
	done | awk 'NR == FNR { layer[$1] = $2; next }
	{
		n = split($1, p, "/"); base = p[n]
		if (!(base in layer)) { print $1 ": no layer in HACKING.md"; next }
		for (i = 2; i <= NF; i++) {
			if (!($i in layer)) print $1 " includes " $i ": no layer in HACKING.md"
			else if (layer[$i] > layer[base])
				print $1 " (layer " layer[base] ") includes " $i " (layer " layer[$i] ")"
		}
	}' "$T/layers" -
}
layer_violations "$TOP" >"$T/viol"
is "$(cat "$T/viol")" "" "every library file has a layer, and includes no header of a higher layer"

# The functions only unit tests call (RAG_UNITTEST, declared inside #ifdef RAG_UNITTESTS in their
# header's last section) are static in the library: none is a symbol librag.a defines, and the
# unit tests' build, obj/libragu.a, defines every one.
awk '/^#ifdef RAG_UNITTESTS/ {on = 1; next} /^#endif/ {on = 0}
	on && match($0, /[a-z_0-9]+\(/) && $0 !~ /^[ \t]*\*/ && $0 !~ /^\/\*/ {print substr($0, RSTART, RLENGTH - 1)}' \
	"$TOP"/lib/*.h "$TOP"/lib/store/*.h | sort -u >"$T/unitonly"
check "the headers declare functions for the unit tests only" test "$(wc -l <"$T/unitonly")" -gt 20
nm -g --defined-only "$TOP/obj/librag.a" 2>/dev/null | awk '{print $3}' | sort -u >"$T/defined"
is "$(comm -12 "$T/unitonly" "$T/defined" | tr '\n' ' ')" "" "librag.a exports none of the unit tests' functions"
if [ -f "$TOP/obj/libragu.a" ]; then
	nm -g --defined-only "$TOP/obj/libragu.a" 2>/dev/null | awk '{print $3}' | sort -u >"$T/definedu"
	is "$(comm -23 "$T/unitonly" "$T/definedu" | tr '\n' ' ')" "" "libragu.a defines every one of them"
fi

# the checker itself: a foundation header that includes the gate's is caught
mkdir -p "$T/probe/lib"
printf '#include "gate.h"\n' >"$T/probe/lib/base.h"
is "$(layer_violations "$T/probe")" "lib/base.h (layer 1) includes gate.h (layer 6)" \
	"the check sees a header that includes one of a higher layer"

# ---------------------------------------------------------------- the call graph
# mk/calls.sh (make lint's calls) over the build's objects: no files that call each other in a
# loop, no call up to a higher layer, no public function that no other file calls, or that only
# the unit tests do (RAG_UNITTEST, base.h)
sh "$TOP/mk/calls.sh" -r "$TOP" "$TOP"/obj/lib/*.o "$TOP"/obj/lib/store/*.o "$TOP"/obj/cmd/*.o >"$T/calls" 2>&1
is "$?:$(grep -v '^make calls:' "$T/calls")" "0:" "no loop, no upward call, no public function only its file (or the unit tests) calls"
like "$(cat "$T/calls")" "0 loops, 0 upward calls, 0 public" "the call graph is read and says so"

# the checker itself: a planted loop, an upward call, a lone public function and one that only
# a unit test calls are caught; one a fuzz target calls is not (its build has no RAG_UNITTESTS:
# a real caller). The probe's tree: this HACKING.md's layers, a unit test and a fuzz target.
mkdir -p "$T/cprobe/obj/lib" "$T/croot/tests/unit" "$T/croot/tests/fuzz"
cp "$TOP/HACKING.md" "$T/croot/"
printf 'int main(void) { return rag_p_tested(); }\n' >"$T/croot/tests/unit/t-probe.c"
printf 'int LLVMFuzzerTestOneInput(void) { return rag_p_fuzzed(); }\n' >"$T/croot/tests/fuzz/fuzz-probe.c"
probe() { printf '%s\n' "$2" >"$T/cprobe/$1.c" && cc -c -o "$T/cprobe/obj/lib/$1.o" "$T/cprobe/$1.c"; }
probe json 'int rag_p_b(void); int rag_p_a(void) { return rag_p_b(); }'
probe text 'int rag_p_a(void); int rag_p_b(void) { return rag_p_a() + 1; }'
probe util 'int rag_p_g(void); int rag_p_u(void) { return rag_p_g(); }'
probe gate 'int rag_p_g(void) { return 1; } int rag_p_lone(void) { return 2; }
int rag_p_tested(void) { return 3; } int rag_p_fuzzed(void) { return 4; }'
probe verdict 'int rag_p_u(void); int rag_p_v(void) { return rag_p_u(); }'
sh "$TOP/mk/calls.sh" -r "$T/croot" "$T"/cprobe/obj/lib/*.o >"$T/cprobe.out" 2>&1
is "$?" 1 "the check fails on the planted calls"
is "$(grep -v '^make calls:' "$T/cprobe.out")" "calls: loop: lib/json.c lib/text.c (lib/json.c -> lib/text.c: rag_p_b; lib/text.c -> lib/json.c: rag_p_a)
calls: public: lib/gate.c: rag_p_lone is called by no other file: make it static
calls: public: lib/gate.c: rag_p_tested is called by the tests alone: make it RAG_UNITTEST (base.h)
calls: public: lib/verdict.c: rag_p_v is called by no other file: make it static
calls: upward: lib/util.c (layer 1) calls lib/gate.c (layer 6): rag_p_g" \
	"it names the loop, the upward call, the lone public functions and the one the tests alone call"

done_testing
