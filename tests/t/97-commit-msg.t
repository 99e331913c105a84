#!/bin/sh
# 97-commit-msg.t - mk/commit-msg, the hook `make hooks` installs, holds commit messages to
# HACKING.md's rule: "area: what" in at most 72 characters, a blank line, and a body saying why
# for a commit that changes code (lib/, cmd/, mk/, the Makefile). Run as git runs it, in a
# throwaway repository under tests/tmp.
. "$(dirname "$0")/lib.sh"
need git

R=$T/repo
git init -q "$R" || bail_out "git init failed"
g() { git -C "$R" -c user.name=t -c user.email=t@ragpipe.invalid "$@"; }
mkdir -p "$R/lib" "$R/docs" "$R/mk"

# make hooks points a repository at its mk/ (core.hooksPath), where the hook is
run make -s -C "$TOP" hooks HOOKS_REPO="$R"
is "$RC" 0 "make hooks: exit 0"
is "$(git -C "$R" config core.hooksPath)" "mk" "make hooks sets core.hooksPath to mk"
cp "$TOP/mk/commit-msg" "$R/mk/commit-msg" || bail_out "cannot copy the hook"

# commit FILE MESSAGE: stage FILE (a new line in it) and commit with MESSAGE through the hook
n=0
commit() {
	n=$((n + 1))
	echo "change $n" >>"$R/$1"
	g add "$1" && run g commit -q -F - <<MSG
$2
MSG
}

long="docs: $(printf 'x%.0s' $(seq 84))"
is "${#long}" 90 "the long subject has 90 characters"
commit docs/a.txt "$long"
is "$RC" 1 "a 90-character subject is refused"
like "$(cat "$ERR")" "subject has 90 characters, more than 72" "the hook says the subject is too long"
is "$(g rev-list --all --count 2>/dev/null || echo 0)" 0 "nothing was committed"

commit docs/a.txt "the subject says no area"
is "$RC" 1 "a subject that is not \"area: what\" is refused"
like "$(cat "$ERR")" "not \"area: what\"" "the hook names the form"

commit docs/a.txt "docs: a typo"
is "$RC" 0 "a short subject alone is enough for a change outside the code"

commit lib/x.c "x: count the records once"
is "$RC" 1 "a code commit without a body is refused"
like "$(cat "$ERR")" "changes code \\(lib/x.c\\.*\\): add a body saying why" "the hook names the code it changes"

commit lib/x.c "x: count the records once
Because the summary counted them twice."
is "$RC" 1 "a body without the blank line after the subject is refused"

commit lib/x.c "x: count the records once

Signed-off-by: t <t@ragpipe.invalid>"
is "$RC" 1 "a trailer alone is no body"

commit lib/x.c "x: count the records once

The summary counted a record twice when its line was retried; the
stream already counts it when it is read."
is "$RC" 0 "a good code commit is accepted"
is "$(g log -1 --format=%s)" "x: count the records once" "and committed with its subject"

done_testing
