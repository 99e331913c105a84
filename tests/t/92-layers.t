#!/bin/sh
# 92-layers.t - the library never prints and never exits: its objects reference none of the
# functions and streams that do, except util.o's out-of-memory path (write(2) and abort).
# The tool layer (cmd/tool.c, cmd/tool-run.c, cmd/tool.h) is the one place that prints; no
# library file includes it, and the library archive does not hold it.
. "$(dirname "$0")/lib.sh"

command -v nm >/dev/null 2>&1 || bail_out "nm (binutils) is missing: run make deps"
[ -f "$TOP/lib/librag.a" ] || bail_out "lib/librag.a is not built: run make"

# what prints, exits or reaches the standard streams; the _chk names are what
# _FORTIFY_SOURCE turns printf and friends into
FORBIDDEN='printf|vprintf|fprintf|vfprintf|dprintf|vdprintf|puts|fputs|putchar|perror|exit|_exit|_Exit|abort|err|errx|warn|warnx|error|stdout|stderr|stdin|__printf_chk|__fprintf_chk|__vfprintf_chk|__vprintf_chk|__dprintf_chk|__vdprintf_chk'

nsrc=$(ls "$TOP"/lib/*.c | wc -l)
# the objects of the archive, not stray ones in the tree
members=$(ar t "$TOP/lib/librag.a" | LC_ALL=C sort)
is "$(printf '%s\n' "$members" | grep -c '\.o$')" "$nsrc" "librag.a holds one object per lib/*.c ($nsrc)"
is "$(printf '%s\n' "$members" | grep -x 'tool.o')" "" "librag.a does not hold the tool layer"

# nm -A of the archive: "lib/librag.a:util.o:    U abort"
nm -u -A "$TOP/lib/librag.a" >"$T/undef" 2>"$T/nm.err"
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
is "$(grep -lE '#include [<"](tool\.h|getopt\.h)[>"]' "$TOP"/lib/*.c "$TOP"/lib/*.h 2>/dev/null)" "" \
	"no library file includes tool.h or getopt.h"
is "$(grep -L '#include "tool.h"' "$TOP"/cmd/rag-*.c)" "" "every tool includes tool.h"

done_testing
