#!/bin/sh
# mk/check-fresh.sh - `make check-fresh`: the README's Quick start on a fresh Debian.
#
#   sh mk/check-fresh.sh [RELEASE]     bookworm (Debian 12, the default) or trixie (Debian 13)
#
# Makes a minimal Debian root of RELEASE (mk/fresh-root.sh: debootstrap --variant=minbase, kept
# as a tarball), clones this checkout's HEAD into it (git clone: the committed tree with its
# .git, as a user has it), and runs there, as root, what the README says, as it says it:
#   apt-get update && apt-get install make; make demo; make check
# Needs root; FRESH_KEEP=1 keeps the root of a failed run for a look inside.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
me=check-fresh
t_start=$(date +%s)
say() { echo "$me: $*"; }
die() { echo "$me: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || exec sudo FRESH_CACHE="${FRESH_CACHE:-}" FRESH_KEEP="${FRESH_KEEP:-}" sh "$0" "$@"
RELEASE=${1:-bookworm}
. "$top/mk/fresh-root.sh"

fresh_root
fresh_clone /root/ragpipe

# ---------------------------------------------------------------- the README's commands
run_in /root/ragpipe 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make >/dev/null'
t0=$(date +%s)
run_in /root/ragpipe 'make demo'
t1=$(date +%s)
run_in /root/ragpipe 'make check'
t2=$(date +%s)
# make check installed every tool a test uses: none may have been skipped for a missing one
if grep -q '	missing ' "$root/root/ragpipe/tests/tmp/skipped" 2>/dev/null; then
	die "tests were skipped for a tool that is not installed: the test packages (mk/deps.sh) lack it"
fi
say "ok: make demo ($((t1 - t0)) s) and make check ($((t2 - t1)) s) passed on a fresh $release_name ($RELEASE; $(( t2 - t_start )) s in all)"
