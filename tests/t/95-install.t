#!/bin/sh
# 95-install.t - make install honours PREFIX and DESTDIR, and the installed tools find their
# prompts without the build tree.
. "$(dirname "$0")/lib.sh"
need jq

D=$T/stage
run make -s -C "$TOP" install PREFIX=/opt/rp DESTDIR="$D"
is "$RC" 0 "make install PREFIX=/opt/rp DESTDIR=...: exit 0"
for f in bin/rag-claims bin/rag-verify share/ragpipe/prompts/claims.en.txt share/ragpipe/prompts/verify.zh.txt \
	share/ragpipe/hints/en.txt share/ragpipe/hints/zh.txt share/ragpipe/report/report.js \
	share/man/man1/rag-claims.1 share/man/man1/rag-verify.1 share/man/man5/rag-config.5 share/man/man7/rag.7 \
	share/bash-completion/completions/rag-verify share/zsh/site-functions/_ragpipe \
	share/fish/vendor_completions.d/ragpipe.fish share/ragpipe/examples/example.jsonl; do
	check "installed: $f" test -f "$D/opt/rp/$f"
done

# make uninstall removes what make install put there, and nothing else
mkdir -p "$D/opt/rp/bin" && echo keep >"$D/opt/rp/bin/other-tool"
run make -s -C "$TOP" uninstall PREFIX=/opt/rp DESTDIR="$D"
is "$RC" 0 "make uninstall PREFIX=/opt/rp DESTDIR=...: exit 0"
is "$(cd "$D/opt/rp" && find . -type f | LC_ALL=C sort | tr '\n' ' ')" "./bin/other-tool " \
	"make uninstall: no file of make install's left, another one kept"
check "make uninstall: ragpipe's data directory is gone" test ! -e "$D/opt/rp/share/ragpipe"
run make -s -C "$TOP" uninstall PREFIX=/opt/rp DESTDIR="$D"
is "$RC" 0 "make uninstall a second time (nothing there): exit 0"
# the completions' directories can be moved (Debian's zsh directory is vendor-completions)
run make -s -C "$TOP" install PREFIX=/opt/rp DESTDIR="$D" ZSHCOMPDIR=/opt/rp/share/zsh/vendor-completions
check "make install ZSHCOMPDIR=...: zsh's completion there" test -f "$D/opt/rp/share/zsh/vendor-completions/_ragpipe"

# the version lives in VERSION: the tools print it and the installed pages carry it
V=$(cat "$TOP/VERSION")
like "$V" '^[0-9]+\.[0-9]+\.[0-9]+' "VERSION holds a version"
is "$("$D/opt/rp/bin/rag-ap" --version)" "rag-ap (ragpipe) $V" "the installed rag-ap --version prints VERSION"
is "$(grep -l '@VERSION@' "$D"/opt/rp/share/man/man*/* | wc -l)" 0 "no installed page is left with @VERSION@"
is "$(grep -L "^\.TH .*\"ragpipe $V\"" "$D"/opt/rp/share/man/man*/* | tr '\n' ' ')" "" "every installed page's .TH names ragpipe $V"
# (the pages' sources: make builds the pages from them, with the version)
is "$(grep -rhE 'ragpipe\\?\)?"? [0-9]+\.[0-9]+\.[0-9]+|VERSION "[0-9]' "$TOP"/share/man "$TOP"/lib "$TOP"/cmd \
	--include='*.in' --include='*.man' --include='*.[ch]' | wc -l)" 0 \
	"no version number is written anywhere else in the pages' sources or headers"
is "$(grep -l '@VERSION@' "$TOP"/share/man/man*/*.[0-9] | wc -l)" 0 "no page make built is left with @VERSION@"

# the installed demo.sh, run from elsewhere: the tools beside it, the examples in its directory
run make -s -C "$TOP" install PREFIX=/usr DESTDIR="$T/inst"
is "$RC" 0 "make install PREFIX=/usr DESTDIR=...: exit 0"
DEMO=$T/inst/usr/share/ragpipe/examples/demo.sh
mkdir -p "$T/elsewhere"
demo() { (cd "$T/elsewhere" && RAG_DEMO_OUT=$T/$1 PATH=${2:-/usr/bin:/bin} sh "$3"); }
run demo demo1 "" "$DEMO"
is "$RC" 0 "installed demo.sh: exit 0"
like "$(cat "$OUT")" "tools in $T/inst/usr/bin\)" "installed demo.sh: uses the installed tools beside it"
is "$(wc -l <"$T/demo1/scored.jsonl" | tr -d ' ')" 10 "installed demo.sh: scores the 10 installed examples"
check "installed demo.sh: every record has the four scores" \
	jq -se 'all(.[]; .scores | has("faithfulness") and has("context_recall") and has("answer_relevancy") and has("context_precision"))' "$T/demo1/scored.jsonl"
check "installed demo.sh: writes the report" test -s "$T/demo1/report.html"
unlike "$(cat "$ERR")" 'demo.sh:' "installed demo.sh: no complaint"

mkdir -p "$T/ex-only"
cp -R "$T/inst/usr/share/ragpipe/examples/". "$T/ex-only/"
run demo demo2 "$T/inst/usr/bin:/usr/bin:/bin" "$T/ex-only/demo.sh"
is "$RC" 0 "demo.sh with no tools beside it: exit 0, with the tools on PATH"
like "$(cat "$OUT")" "tools in $T/inst/usr/bin\)" "demo.sh with no tools beside it: uses those on PATH"

cp -R "$T/inst" "$T/broken"
rm "$T/broken/usr/bin/rag-embsim"
run demo demo3 "" "$T/broken/usr/share/ragpipe/examples/demo.sh"
isnt "$RC" 0 "demo.sh, a tool missing: exit status not 0"
like "$(cat "$ERR")" 'demo.sh: cannot find rag-embsim' "demo.sh, a tool missing: says which"

cp "$T/inst/usr/bin/rag-embsim" "$T/broken/usr/bin/"
printf '#!/bin/sh\nexit 4\n' >"$T/broken/usr/bin/rag-revq"   # fails, and writes nothing
run demo demo4 "" "$T/broken/usr/share/ragpipe/examples/demo.sh"
isnt "$RC" 0 "demo.sh, the first stage of a pipe fails: exit status not 0"
like "$(cat "$ERR")" 'demo.sh: rag-revq failed \(exit status 4\)' "demo.sh, the first stage of a pipe fails: says which"
check "demo.sh, a stage fails: it stops there (no report)" test ! -e "$T/demo4/report.html"

# the staged copy, run from elsewhere, against the fake: it must load its prompts
fake_start
cd "$T"
echo '{"id":1,"question":"q?","answer":"A is B. C is D.","contexts":["A is B."]}' >"$T/in.jsonl"
run sh -c "'$D/opt/rp/bin/rag-claims' -q <'$T/in.jsonl' | '$D/opt/rp/bin/rag-verify' -q"
is "$RC" 0 "the installed tools run against an endpoint"
is "$(jq -c '.claims.answer' "$OUT")" '["A is B.","C is D."]' "the installed rag-claims found its prompts"
is "$(jq -r '.scores.faithfulness' "$OUT")" 1 "the installed rag-verify found its prompts"
echo '{"id":1,"question":"q?","scores":{"context_recall":0.1}}' >"$T/low.jsonl"
run "$D/opt/rp/bin/rag-gate" --json -t context_recall=0.5 "$T/low.jsonl"
like "$(jq -r '.hints[0].hint' "$OUT")" '^Low context recall' "the installed rag-gate found its failure hints"
run "$D/opt/rp/bin/rag-report" "$T/low.jsonl"
like "$(cat "$OUT")" 'document\.getElementById\(.rag-data.\)' "the installed rag-report found its page's script"
cd "$TOP"
done_testing
