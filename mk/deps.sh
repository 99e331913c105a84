#!/bin/sh
# mk/deps.sh - the Makefile's package step (Debian 12).
#
#   sh mk/deps.sh check CC PCLIB...   exit 1 with one message naming what the build lacks
#   sh mk/deps.sh install PKG...      install with apt-get those of the Debian packages not installed
#
# "check" never installs anything: plain `make` and `make install` run it, and packagers run
# those. "install" is `make deps` (also run by `make demo` and `make check`): one line says what it
# installs; apt's own output goes to a log that is shown only when apt fails. It waits for another
# apt (unattended-upgrades on a new cloud machine) for up to 600 s: dpkg's lock through
# DPkg::Lock::Timeout, the lists and archives locks (which apt-get does not wait for) by retrying.
set -u
me="make deps"
LOCK_WAIT=${RAG_APT_LOCK_WAIT:-600}

check() {
	cc=$1; shift
	missing=
	have_cc=yes
	command -v "${cc%% *}" >/dev/null 2>&1 || { have_cc=; missing="$missing ${cc%% *}"; }
	if command -v pkg-config >/dev/null 2>&1; then
		for pc in "$@"; do
			pkg-config --exists "$pc" || missing="$missing $pc"
		done
	else
		missing="$missing pkg-config"
	fi
	# libjq 1.6 and libstemmer ship no .pc file: try the headers and the link
	if [ -n "$have_cc" ]; then
		printf '#include <jq.h>\n#include <libstemmer.h>\nint main(void){jv_free(jv_null());sb_stemmer_list();return 0;}\n' |
			$cc -x c - -o /dev/null -ljq -lonig -lstemmer >/dev/null 2>&1 ||
			missing="$missing libjq/libonig/libstemmer"
	fi
	[ -z "$missing" ] && return 0
	echo "make: cannot build, missing:$missing; run \`make deps\` to install the Debian packages (apt-get, as root or with sudo)" >&2
	return 1
}

# apt ARGS...: apt-get ARGS as root, output to $log. dpkg's lock it waits for itself; when it
# fails on another lock ("E: Could not get lock"), it is run again until LOCK_WAIT has passed.
apt() {
	t0=$(date +%s)
	said=
	while :; do
		$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$LOCK_WAIT" "$@" >>"$log" 2>&1 &&
			return 0
		st=$?
		tail -n 3 "$log" | grep -q '^E: Could not get lock' || return $st
		if [ $(($(date +%s) - t0)) -ge "$LOCK_WAIT" ]; then
			echo "$me: another apt still holds its lock after ${LOCK_WAIT} s" >&2
			return $st
		fi
		[ -n "$said" ] || echo "$me: waiting for another apt to finish (up to ${LOCK_WAIT} s)"
		said=1
		sleep 5
	done
}

install() {
	missing=
	for p in "$@"; do
		case $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) in
		ii*) ;;
		*) missing="$missing $p" ;;
		esac
	done
	if [ -z "$missing" ]; then
		echo "$me: the $# Debian packages the build and the tests need are installed"
		return 0
	fi
	if [ "$(id -u)" = 0 ]; then
		SUDO=
	elif command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "$me: not root and no sudo: run \`make deps\` as root, or install:$missing" >&2
		return 1
	fi
	log=$(mktemp "${TMPDIR:-/tmp}/ragpipe-deps.XXXXXX") || return 1
	echo "$me: installing with apt-get:$missing"
	if apt update -q && apt install -y -q --no-install-recommends $missing; then
		rm -f "$log"
		return 0
	fi
	echo "$me: apt-get failed; the end of its output (all of it in $log):" >&2
	tail -n 20 "$log" >&2
	return 1
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
check) check "$@" ;;
install) install "$@" ;;
*) echo "usage: sh mk/deps.sh check CC PCLIB... | install PKG..." >&2; exit 2 ;;
esac
