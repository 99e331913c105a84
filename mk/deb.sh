#!/bin/sh
# mk/deb.sh - `make deb`: the Debian package, dist/ragpipe_<version>_<arch>.deb.
#
# Copies the source tree (mk/tree-tar.sh: no build output) to dist/build/ragpipe-<version>/,
# builds the binary package there with dpkg-buildpackage (debian/: dh, the Makefile with
# PREFIX=/usr), copies the .deb to dist/ and runs lintian on it: an error fails, warnings are
# printed. The version is VERSION's; debian/changelog must name the same one. The build's log
# is dist/build/build.log. The tree itself is left as it was. Needs the build and deb package
# sets (make deb installs them first).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
me="make deb"
die() { echo "$me: $*" >&2; exit 1; }
cd "$top"
V=$(cat VERSION)
CV=$(dpkg-parsechangelog -S Version)
[ "$CV" = "$V" ] || die "debian/changelog's version is $CV, VERSION says $V: add a changelog entry (dch -v $V)"
arch=$(dpkg --print-architecture)
deb=ragpipe_${V}_$arch.deb
b=$top/dist/build
rm -rf "$b"
mkdir -p "$b/ragpipe-$V"
sh mk/tree-tar.sh | tar -C "$b/ragpipe-$V" -xf -
t0=$(date +%s)
echo "$me: dpkg-buildpackage -b in dist/build/ragpipe-$V (log: dist/build/build.log)"
if ! (cd "$b/ragpipe-$V" && dpkg-buildpackage -b -us -uc -j"${DEB_JOBS:-2}") >"$b/build.log" 2>&1; then
	tail -n 30 "$b/build.log" >&2
	die "dpkg-buildpackage failed (all of it in dist/build/build.log)"
fi
cp "$b/$deb" "$top/dist/"
echo "$me: dist/$deb ($(du -k "dist/$deb" | cut -f1) kB) in $(($(date +%s) - t0)) s"
# lintian's tags: E: fails the build; W: and I: are printed (RAG_DEB_LINTIAN=0: no lintian, for
# the Containerfile's build stage)
[ "${RAG_DEB_LINTIAN:-1}" != 0 ] || exit 0
lintian "dist/$deb" >"$b/lintian.log" 2>&1 || :
sed 's/^/  /' "$b/lintian.log"
if grep -q '^E: ' "$b/lintian.log"; then
	die "lintian: $(grep -c '^E: ' "$b/lintian.log") errors"
fi
echo "$me: lintian: 0 errors, $(grep -c '^W: ' "$b/lintian.log") warnings"
