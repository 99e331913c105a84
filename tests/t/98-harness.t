#!/bin/sh
# 98-harness.t - the tests' own harness: a failing test says why in make check's output, without
# a rerun. prove shows a test's standard error and keeps its standard output (the TAP) to
# itself, so a failure's name and diagnostics (lib.sh's diag, tests/unit/tap.h's got and want)
# must be on standard error. Run on a shell test and a C unit test made to fail.
. "$(dirname "$0")/lib.sh"
need prove cc

cat >"$T/fails.t" <<EOF2
#!/bin/sh
RAG_TOP='$TOP'
. '$TOP/tests/t/lib.sh'
is "got-this" "want-that" "a comparison that fails"
check "a command that fails" sh -c 'echo why-it-failed; exit 3'
like "some text" "^other" "a match that fails"
is "same" "same" "a comparison that passes"
note "a figure for prove -v only"
done_testing
EOF2
chmod +x "$T/fails.t"
prove "$T/fails.t" >"$T/prove.out" 2>&1
st=$?
check "prove fails on the failing test" test "$st" != 0
p=$(cat "$T/prove.out")
like "$p" "Failed test 1 - a comparison that fails \\(fails\\)" "the failing test's number, name and file"
like "$p" "got: 'got-this'" "...what it got"
like "$p" "want: 'want-that'" "...and what it wanted"
like "$p" "Failed test 2 - a command that fails" "a failing check is named"
like "$p" "command: sh -c .*exit 3" "...with its command and exit status"
like "$p" "why-it-failed" "...and the command's output"
like "$p" "want match: /\\^other/" "a failing like names its pattern"
unlike "$p" "a comparison that passes" "a passing test is not shown"
unlike "$p" "a figure for prove -v only" "a note is not shown without -v"
like "$(prove -v "$T/fails.t" 2>&1)" "# a figure for prove -v only" "...and is with -v"

cat >"$T/fails.c" <<'EOF2'
#include "tap.h"
int main(void)
{
	is_int(41 + 1, 43, "an integer that is not %s", "right");
	is_str("got-text", "want-text", "a string that differs");
	ok(1, "one that passes");
	return done_testing();
}
EOF2
cc -I"$TOP/tests/unit" -o "$T/fails.test" "$T/fails.c" -lm 2>"$T/cc.err" || bail_out "cannot compile: $(cat "$T/cc.err")"
prove --exec '' "$T/fails.test" >"$T/prove.out" 2>&1
st=$?
check "prove fails on the failing unit test" test "$st" != 0
p=$(cat "$T/prove.out")
like "$p" "Failed test 1 - an integer that is not right" "a unit test's failure is named"
like "$p" "at .*fails\\.c:4" "...with its file and line"
like "$p" "got:  42" "...what it got"
like "$p" "want: 43" "...and what it wanted"
like "$p" "got:  'got-text'" "a string's got and want"
unlike "$p" "one that passes" "a passing unit test is not shown"
done_testing
