#!/bin/sh
# 95-install.t - make install honours PREFIX and DESTDIR, and the installed tools find their
# prompts without the build tree.
. "$(dirname "$0")/lib.sh"
need jq

D=$T/stage
run make -s -C "$TOP" install PREFIX=/opt/rp DESTDIR="$D"
is "$RC" 0 "make install PREFIX=/opt/rp DESTDIR=...: exit 0"
for f in bin/rag-claims bin/rag-verify share/ragpipe/prompts/claims.en.txt share/ragpipe/prompts/verify.zh.txt \
	share/man/man1/rag-claims.1 share/man/man1/rag-verify.1 share/man/man5/rag-config.5 share/man/man7/rag.7 \
	share/bash-completion/completions/rag-verify share/zsh/site-functions/_ragpipe \
	share/fish/vendor_completions.d/ragpipe.fish share/ragpipe/examples/example.jsonl; do
	check "installed: $f" test -f "$D/opt/rp/$f"
done

# the staged copy, run from elsewhere, against the fake: it must load its prompts
fake_start
cd "$T"
echo '{"id":1,"question":"q?","answer":"A is B. C is D.","contexts":["A is B."]}' >"$T/in.jsonl"
run sh -c "'$D/opt/rp/bin/rag-claims' -q <'$T/in.jsonl' | '$D/opt/rp/bin/rag-verify' -q"
is "$RC" 0 "the installed tools run against an endpoint"
is "$(jq -c '.claims.answer' "$OUT")" '["A is B.","C is D."]' "the installed rag-claims found its prompts"
is "$(jq -r '.scores.faithfulness' "$OUT")" 1 "the installed rag-verify found its prompts"
cd "$TOP"
done_testing
