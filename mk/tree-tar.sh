#!/bin/sh
# mk/tree-tar.sh - the source tree as a tar on standard output: the files git tracks and the
# untracked ones it does not ignore (no build output); outside a git checkout, every file but
# the build's. For check-fresh (the tree in a fresh root) and make deb (the tree to package).
set -eu
cd "$(dirname "$0")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z -co --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -
else
	tar --exclude=./bin --exclude=./obj --exclude=./dist --exclude=./tests/tmp --exclude='*.o' --exclude='*.a' \
		--exclude=./tests/fuzz/build --exclude='./tests/unit/*.test' -cf - .
fi
