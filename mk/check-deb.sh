#!/bin/sh
# mk/check-deb.sh - `make check-deb`: the Debian package of `make deb`, installed with apt into a
# fresh Debian root (mk/fresh-root.sh) of this machine's release (the package's Depends name
# its libraries), and run there with no source tree: rag-eval on the installed examples, from
# another directory, as a user would. Needs root; not part of make check (debootstrap, and apt
# fetching the run-time libraries from the mirror).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
me=check-deb
t_start=$(date +%s)
say() { echo "$me: $*"; }
die() { echo "$me: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || exec sudo FRESH_CACHE="${FRESH_CACHE:-}" FRESH_KEEP="${FRESH_KEEP:-}" sh "$0" "$@"
RELEASE=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
if [ -n "${1:-}" ] && [ "$1" != "$RELEASE" ]; then
	die "the package is built on $RELEASE, so it is tested on $RELEASE (not $1): build it on $1 to test it there"
fi
. "$top/mk/fresh-root.sh"
V=$(cat "$top/VERSION")
deb=ragpipe_${V}_$(dpkg --print-architecture).deb
[ -s "$top/dist/$deb" ] || die "no dist/$deb: run make deb"

fresh_root
cp "$top/dist/$deb" "$root/tmp/"
t0=$(date +%s)
# python3: the examples' RAG service (the package suggests it)
run_in / "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/$deb python3 >/tmp/apt.log 2>&1 || { tail -n 20 /tmp/apt.log; exit 1; }"
t1=$(date +%s)
[ ! -e "$root/root/ragpipe" ] && [ ! -e "$root/tmp/ragpipe-$V" ] || die "a source tree is in the root"

# ---------------------------------------------------------------- what the package holds
fail=0
bad() { echo "$me: FAIL: $*" >&2; fail=1; }
for f in /usr/bin/rag-eval /usr/bin/rag-collect /usr/bin/rag-store /usr/share/man/man1/rag-eval.1.gz \
	/usr/share/man/man7/rag.7.gz /usr/share/man/man5/rag-config.5.gz \
	/usr/share/bash-completion/completions/rag-eval /usr/share/zsh/vendor-completions/_ragpipe \
	/usr/share/fish/vendor_completions.d/ragpipe.fish /usr/share/ragpipe/prompts/verify.en.txt \
	/usr/share/ragpipe/hints/en.txt /usr/share/ragpipe/report/report.js \
	/usr/share/ragpipe/serve/gate-zh.js /usr/share/ragpipe/examples/testset.json /usr/share/doc/ragpipe/copyright; do
	[ -s "$root$f" ] || bad "not installed: $f"
done
got=$(run_in / "rag-eval --version" 2>&1 | tail -n 1)
[ "$got" = "rag-eval (ragpipe) $V" ] || bad "rag-eval --version says: $got"

# ---------------------------------------------------------------- rag-eval, from elsewhere
# the installed example with its answers (example.jsonl), and the make demo walk-through: the
# test set collected from the examples' RAG service, scored, gated and reported
run_in / "mkdir -p /home/user/work"
st=0
run_in /home/user/work "rag-eval -q -o run1 /usr/share/ragpipe/examples/example.jsonl" || st=$?
[ "$st" = 0 ] || bad "rag-eval on example.jsonl: exit $st"
st=0
run_in /home/user/work "RAG_DEMO_OUT=demo sh /usr/share/ragpipe/examples/demo-eval.sh >demo.log 2>&1" || st=$?
[ "$st" = 0 ] || { bad "demo-eval.sh: exit $st"; tail -n 20 "$root/home/user/work/demo.log" >&2; }
t2=$(date +%s)
demo=$(ls -d "$root"/home/user/work/demo/demo-* 2>/dev/null | head -n 1)
for d in "$root/home/user/work/run1" "$demo"; do
	for f in records.jsonl run.json gate.json gate.txt junit.xml summary.md report.html; do
		[ -s "$d/$f" ] || bad "no ${d#"$root"}/$f"
	done
done
n1=$(wc -l <"$root/home/user/work/run1/records.jsonl" 2>/dev/null || echo 0)
n2=$(wc -l <"$demo/records.jsonl" 2>/dev/null || echo 0)
[ "$fail" = 0 ] || die "the installed package failed (see above)"
say "ok: $deb installed with apt in a fresh $release_name root ($((t1 - t0)) s); rag-eval from /home/user/work: example.jsonl ($n1 records) and demo-eval.sh ($n2 records) exit 0 with every run file ($((t2 - t1)) s; $((t2 - t_start)) s in all)"
