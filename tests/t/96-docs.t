#!/bin/sh
# 96-docs.t - the README's Layout and rag(7)'s FILES and SEE ALSO say what the tree and
# `make install` hold: every path the Layout names exists, every tool and manual page is named
# there, FILES names exactly the files installed under share/ragpipe, SEE ALSO every page.
. "$(dirname "$0")/lib.sh"

# the metric tools of the operation registry (rag-eval --list-metrics: NAME TOOLS OPERATION DOC,
# OPERATION "-" but for theirs): the Layout names them as a kind, not one by one, so that a new
# one is no edit of the README; rag(7) lists them (mk/man.sh), and the checks below hold it
"$BIN/rag-eval" --list-metrics >"$T/metrics"
is "$?" 0 "rag-eval --list-metrics: exit 0"
REG_TOOLS=" $(awk -F '\t' '$3 != "-" { print $2 }' "$T/metrics" | tr '\n' ' ')"
REG_OPS=" $(awk -F '\t' '$3 != "-" { print $3 }' "$T/metrics" | tr '\n' ' ')"
registry_tool() { case $REG_TOOLS in *" $1 "*) return 0 ;; esac; return 1; }
registry_op() { case $REG_OPS in *" $1 "*) return 0 ;; esac; return 1; }

# ---------------------------------------------------------------- README: Layout
# the fenced block under "## Layout"
awk '/^## Layout/ { on = 1; next } on && /^```/ { if (in_block) exit; in_block = 1; next } in_block' \
	"$TOP/README.md" >"$T/layout"
check "README has a Layout block" test -s "$T/layout"

# the first column of each entry: a path from the top
missing=
for p in $(awk '/^[^ ]/ { print $1 }' "$T/layout"); do
	[ -e "$TOP/$p" ] || missing="$missing $p"
done
is "$missing" "" "every path in the first column of the Layout exists"

# paths named in the descriptions: dir/file (bin/rag-ap, cmd/tool.c, lib/base.h...)
missing=
for p in $(grep -o -E '[a-z]+(/[A-Za-z0-9_-]+)*/[A-Za-z0-9_.-]+\.[a-z]+|bin/rag-[a-z]+' "$T/layout" | sort -u); do
	[ -e "$TOP/$p" ] || missing="$missing $p"
done
is "$missing" "" "every dir/file path in the Layout's descriptions exists"

# every tool: its source named, and its binary named among what make builds
missing=
for c in "$TOP"/cmd/rag-*.c; do
	t=$(basename "$c" .c)
	registry_tool "$t" && continue
	grep -q -w -F "$t.c" "$T/layout" || missing="$missing $t.c"
	grep -q -F "bin/$t" "$T/layout" || missing="$missing bin/$t"
done
is "$missing" "" "the Layout names every cmd/rag-*.c and the bin/ tool that make builds from it (but the registry's metric tools)"
# and only those: every rag-x.c named is a tool
extra=
for t in $(grep -o -E 'rag-[a-z]+\.c' "$T/layout" | sort -u); do
	[ -e "$TOP/cmd/$t" ] || extra="$extra $t"
done
is "$extra" "" "every rag-*.c the Layout names is in cmd/"

# every manual page as name(N), and every name(N) a page (the pages of the tree: their sources,
# not what an older build left beside them)
missing=
for m in "$TOP"/share/man/man*/*.[0-9].in; do
	f=$(basename "$m" .in)
	[ "${f##*.}" = 1 ] && registry_tool "${f%.*}" && continue
	grep -q -F "${f%.*}(${f##*.})" "$T/layout" || missing="$missing ${f%.*}(${f##*.})"
done
is "$missing" "" "the Layout names every manual page in share/man"
extra=
for r in $(grep -o -E 'rag[a-z-]*\([0-9]\)' "$T/layout" | sort -u); do
	n=${r%(*} s=${r#*(}; s=${s%)}
	[ -e "$TOP/share/man/man$s/$n.$s" ] || extra="$extra $r"
done
is "$extra" "" "every page the Layout names is in share/man"

# every prompt family in share/prompts named in the Layout's prompts entry
missing=
for f in "$TOP"/share/prompts/*.txt; do
	fam=$(basename "$f" | cut -d. -f1)
	registry_op "$fam" && continue
	grep '^share/prompts/' "$T/layout" | grep -q -w "$fam" || missing="$missing $fam"
done
is "$missing" "" "the Layout's share/prompts/ entry names every prompt (chunks, claims, revq, verify)"

# ---------------------------------------------------------------- rag(7): FILES
RAG7=$TOP/share/man/man7/rag.7
run make -s -C "$TOP" install PREFIX=/usr/local DESTDIR="$T/inst"
is "$RC" 0 "make install PREFIX=/usr/local DESTDIR=...: exit 0"
(cd "$T/inst/usr/local/share/ragpipe" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$T/installed"
check "make install puts files under share/ragpipe" test -s "$T/installed"

# FILES entries: a .TP heading /usr/local/share/ragpipe/DIR/ lists its files in the body
# (.B NAME / .BR NAME ,); a heading that names a file is that file. Other entries are not installed.
sed -n '/^\.SH FILES/,/^\.SH /p' "$RAG7" | sed 's/\\-/-/g' | awk '
	/^\.TP/ { head = 1; next }
	head { head = 0; dir = ""
		if ($1 == ".B" && index($2, "/usr/local/share/ragpipe/") == 1) {
			p = substr($2, length("/usr/local/share/ragpipe/") + 1)
			if (p ~ /\/$/) dir = p; else if (p != "") print p
		}
		next }
	dir != "" && ($1 == ".B" || $1 == ".BR") && $2 ~ /^[A-Za-z0-9_.-]+\.(txt|json|jsonl|yaml|sh|py)$/ { print dir $2 }
' | LC_ALL=C sort -u >"$T/files"
check "rag(7) FILES names files under /usr/local/share/ragpipe" test -s "$T/files"
is "$(comm -23 "$T/installed" "$T/files" | tr '\n' ' ')" "" "rag(7) FILES names every file make install puts under share/ragpipe"
is "$(comm -13 "$T/installed" "$T/files" | tr '\n' ' ')" "" "every file rag(7) FILES names under share/ragpipe is installed"
is "$(grep -c '^prompts/' "$T/files")" "$(ls "$TOP"/share/prompts | wc -l | tr -d ' ')" "rag(7) FILES lists every prompt in share/prompts"

# ---------------------------------------------------------------- rag(7): SEE ALSO
sed -n '/^\.SH SEE ALSO/,/^\.SH /p' "$RAG7" | sed 's/\\-/-/g' >"$T/seealso"
missing=
for m in "$TOP"/share/man/man*/*.[0-9].in; do
	f=$(basename "$m" .in)
	[ "$f" = rag.7 ] && continue
	grep -q -E "^\.BR ${f%.*} \(${f##*.}\)" "$T/seealso" || missing="$missing ${f%.*}(${f##*.})"
done
is "$missing" "" "rag(7) SEE ALSO names every other manual page"
extra=
for r in $(grep -o -E '^\.BR rag[a-z-]* \([0-9]\)' "$T/seealso" | awk '{ print $2 "." substr($3, 2, 1) }'); do
	[ -e "$TOP/share/man/man${r##*.}/$r" ] || extra="$extra $r"
done
is "$extra" "" "every rag page in rag(7) SEE ALSO exists"

# the registry's metric tools: each in rag(7)'s list of tools, SEE ALSO and FILES (mk/man.sh's
# @tools, @tool-pages and @tool-prompts, from rag-eval --list-metrics), its page and its two
# prompts there
missing=
for t in $REG_TOOLS; do
	grep -q -E "^\.BR $t \(1\)" "$T/seealso" || missing="$missing $t(1)"
	sed 's/\\-/-/g' "$RAG7" | grep -q -x -F ".BR $t (1)" || missing="$missing $t(1)-in-the-list-of-tools"
	[ -e "$TOP/share/man/man1/$t.1" ] || missing="$missing share/man/man1/$t.1"
done
for o in $REG_OPS; do
	grep -q -x "prompts/$o.en.txt" "$T/files" && grep -q -x "prompts/$o.zh.txt" "$T/files" || missing="$missing prompts/$o"
done
is "$missing" "" "rag(7) names each metric tool of the registry (${REG_TOOLS# }), its page and its prompts"

# ---------------------------------------------------------------- README: the package sets
# Quick start's bullet "- SET `PKG...`: ..." lists the set's packages as mk/deps.sh has them
for set in build demo test deb bench stress; do
	want=$(sh "$TOP/mk/deps.sh" list "$set")
	got=$(awk -v set="$set" '
		/^## / { on = ($0 ~ /^## Quick start/); next }
		on && index($0, "- " set " `") == 1 { item = 1; text = $0; next }
		item && /^  / { text = text " " $0; next }
		item { exit }
		END { sub(/^[^`]*`/, "", text); sub(/`.*/, "", text); print text }' "$TOP/README.md" | tr -s ' ')
	is "$got" "$want" "README's Quick start lists mk/deps.sh's $set packages"
done
# and no package name of any set is written elsewhere in the README's Quick start as a set of its own
is "$(sed -n '/^## Quick start/,/^## /p' "$TOP/README.md" | grep -c -E 'libclang-rt-[0-9]|postgresql/[0-9]')" 0 \
	"README's Quick start names no versioned clang run-time or PostgreSQL path"

# ---------------------------------------------------------------- check-fresh runs the README
# make check-fresh shows that the Quick start's commands work on a new machine: it must run them
# as typed there (no -j2 the README does not say), in a clone with its .git, after the
# README's line for a minimal image
qs=$(awk '/^## Quick start/ { on = 1; next } on && /^```sh/ { c = 1; next } c && /^```/ { exit }
	c { sub(/ *#.*/, ""); print }' "$TOP/README.md")
is "$qs" "$(printf 'make demo\nmake check')" "the Quick start's two commands"
cf=$(sed -n "s/^run_in \/root\/ragpipe '\([^']*\)'\$/\1/p" "$TOP/mk/check-fresh.sh")
is "$(printf '%s\n' "$cf" | grep -v '^apt-get')" "$qs" "check-fresh runs them as the Quick start types them, in its order"
like "$(sed -n '/^## Quick start/,/^## /p' "$TOP/README.md" | tr '\n' ' ')" "\(\`apt-get update && apt-get install make\`\)" \
	"the Quick start says how a minimal image gets make"
like "$(printf '%s\n' "$cf" | head -n 1)" "^apt-get update -qq && .*apt-get install -y -qq make " "...which check-fresh runs first"
like "$(cat "$TOP/mk/check-fresh.sh")" "^fresh_clone /root/ragpipe\$" "check-fresh works in a git clone (with its .git), not a copy"

# ---------------------------------------------------------------- the CI recipes (rag-eval in CI)
# GitHub's test-report step needs checks and pull-requests write where the default token is
# read-only; a GitLab job publishes the same junit.xml; both run the image as the README says
ci=$(sed -n '/^#### rag-eval in CI/,/^#### /p' "$TOP/README.md")
gh=$(printf '%s\n' "$ci" | awk '/^```yaml/ { n++; on = (n == 1); next } /^```/ { on = 0 } on')
gl=$(printf '%s\n' "$ci" | awk '/^```yaml/ { n++; on = (n == 2); next } /^```/ { on = 0 } on')
like "$gh" "^    permissions:" "the GitHub job asks for its token's permissions"
like "$gh" "^      checks: write" "...checks: write, for the test report"
like "$gh" "^      pull-requests: write" "...pull-requests: write, for its comment"
like "$gh" "publish-unit-test-result-action" "...which the test-report step needs"
like "$gh" "--user \"\\\$\(id -u\):\\\$\(id -g\)\"" "the GitHub job runs the image as the runner's uid"
like "$gl" "^rag-quality:" "a GitLab job to copy"
like "$gl" "^      junit: rag-run/junit.xml" "...that publishes rag-eval's junit.xml (artifacts: reports: junit:)"
like "$gl" "rag-eval .*-o rag-run " "...written by its rag-eval into rag-run"
like "$gl" "^    when: always" "...even when the gate fails"
like "$(cat "$TOP/Containerfile")" "chmod 1777 /data" "the image's /data is writable by any uid (sticky)"

# ---------------------------------------------------------------- debian/: the version
is "$(sed -n '1s/^ragpipe (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")" "$(cat "$TOP/VERSION")" \
	"debian/changelog's newest entry is VERSION's version"

# ---------------------------------------------------------------- no-reference claims
# context_recall on a record without a reference is not applicable, with exit status 0: the
# docs say so, and quote no message the tools never write
printf '%s\n' '{"question":"q","contexts":["A is B."],"answer":"A is B."}' >"$T/noref.jsonl"
run "$BIN/rag-verify" -q --metric context_recall <"$T/noref.jsonl"
is "$RC" 0 "rag-verify --metric context_recall, no reference: exit 0"
like "$(cat "$OUT")" '"not_applicable":\{"context_recall":"no reference answer"\}' "...not applicable: no reference answer"
is "$(grep -l -E '"record has no reference|\\\(lqrecord has no reference' "$TOP/README.md" "$TOP"/share/man/man*/* | tr '\n' ' ')" "" \
	"no doc quotes \"record has no reference\" (a message no tool writes)"
is "$(sed -n '/^No reference$/,/^\.TP/p' "$RAG7" | grep -c -E 'exit status 3|counts as bad input')" 0 \
	"rag(7)'s No reference entry does not call it bad input (exit 3)"

done_testing
