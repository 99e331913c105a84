#!/bin/sh
# mk/deps.sh - the Makefile's package step (Debian 12 and 13).
#
#   sh mk/deps.sh check CC PCLIB...   exit 1 with one message naming what the build lacks
#   sh mk/deps.sh list SET...         the Debian packages of these sets, one line
#   sh mk/deps.sh install SET|PKG...  install with apt-get those of the packages not installed
#
# The sets, by purpose (README's Quick start names each package; 96-docs.t holds the two equal):
#   build  to build and run the tools: the compiler, the -dev libraries (which bring the
#          run-time libraries): `make deps`
#   demo   what `make demo` runs besides the tools (its RAG service, jq)
#   test   every tool a test uses (`make test-deps`; `make check` installs build and test)
#   deb    what `make deb` builds and checks the Debian package with
#   bench  what the benchmarks (bench/, `make bench`) add to the test set: GNU time (their peak
#          memory), wrk (bench/serve.sh's clients): `sh mk/deps.sh install bench`
#   stress what `make check-loaded` adds to the test set: stress-ng, the load it runs the suite under
# Every name exists on Debian 12 (bookworm) and 13 (trixie): no versioned name (clang's run-time
# is libclang-rt-dev, PostgreSQL is postgresql).
#
# "check" never installs anything: plain `make` and `make install` run it, and packagers run
# those. "install" is `make deps` (also run by `make demo`, `make test-deps` and `make check`):
# one line says what it installs; apt's own output goes to a log that is shown only when apt
# fails. It waits for another apt (unattended-upgrades on a new cloud machine) for up to 600 s:
# dpkg's lock through DPkg::Lock::Timeout, the lists and archives locks (which apt-get does not
# wait for) by retrying.
set -u
LOCK_WAIT=${RAG_APT_LOCK_WAIT:-600}

PKGS_build="build-essential pkg-config libcurl4-openssl-dev libjq-dev libonig-dev libyaml-dev
	libutf8proc-dev libstemmer-dev libicu-dev libsqlite3-dev libpq-dev libmicrohttpd-dev zlib1g-dev
	libprotobuf-c-dev protobuf-c-compiler"
PKGS_demo="jq python3"
# Selenium drives headless Chromium through the report's tabs, the CJK fonts draw its Chinese;
# clang and its run-time build the fuzz targets and make asan, llvm's symbolizer names the
# functions of a leak report; postgresql is the server of rag-store's test; pmccabe, cppcheck
# and valgrind are make lint's and make valgrind's; git runs the commit-msg hook's test on a
# repository of its own (a source tree without git, as check-fresh copies it, lacks it); nodejs
# and npm run the real OpenTelemetry SDK of tests/otel/ (npm ci installs it: make test-deps)
PKGS_test="$PKGS_demo perl curl groff-base libxml2-utils bsdutils procps zsh fish strace parallel
	chromium chromium-driver python3-selenium fonts-noto-cjk clang libclang-rt-dev llvm
	postgresql valgrind pmccabe cppcheck git nodejs npm"
PKGS_deb="dpkg-dev debhelper lintian"
PKGS_bench="time wrk"
PKGS_stress="stress-ng"

# list SET...: the packages of the sets, once each, in order
list() {
	out=
	for s in "$@"; do
		case $s in
		build|demo|test|deb|bench|stress) eval "set_pkgs=\$PKGS_$s" ;;
		*) echo "mk/deps.sh: no package set \"$s\" (build, demo, test, deb, bench, stress)" >&2; return 2 ;;
		esac
		for p in $set_pkgs; do
			case " $out " in *" $p "*) ;; *) out="$out $p" ;; esac
		done
	done
	echo "${out# }"
}

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
	# the build generates the OTLP protobuf code with protoc-c (Makefile, "protobuf")
	command -v protoc-c >/dev/null 2>&1 || missing="$missing protoc-c"
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

# otel: the npm packages of tests/otel/ (the real OpenTelemetry JS SDK that 71-otel-sdk.t's fake
# service is traced with), installed by `npm ci` from its package-lock.json when the test set is.
# Nothing to do when node_modules was made from this lock (the copy npm ci left beside it), so a
# second make check asks no registry. A failure (offline, no registry) does not stop make check:
# the message says so, and 71-otel-sdk.t skips as for a tool not installed (check-fresh fails on it).
otel() {
	dir=$(dirname "$0")/../tests/otel
	if cmp -s "$dir/package-lock.json" "$dir/node_modules/.ragpipe-lock"; then
		echo "$me: tests/otel's npm packages are installed"
		return 0
	fi
	if ! command -v npm >/dev/null 2>&1; then
		echo "$me: no npm: tests/otel's npm packages not installed (71-otel-sdk.t will skip)" >&2
		return 0
	fi
	log=$(mktemp "${TMPDIR:-/tmp}/ragpipe-npm.XXXXXX") || {
		echo "$me: no temporary file for npm ci's log: tests/otel's npm packages not installed (71-otel-sdk.t will skip)" >&2
		return 0
	}
	echo "$me: installing tests/otel's npm packages (npm ci)"
	if npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund >"$log" 2>&1; then
		cp "$dir/package-lock.json" "$dir/node_modules/.ragpipe-lock"
		rm -f "$log"
		return 0
	fi
	echo "$me: npm ci failed (offline, or no npm registry?): 71-otel-sdk.t will skip; the end of its output (all of it in $log):" >&2
	tail -n 5 "$log" >&2
	return 0
}

# install SET|PKG...: a set's name stands for its packages
install() {
	pkgs=
	what=
	for a in "$@"; do
		case $a in
		build|demo|test|deb|bench|stress) pkgs="$pkgs $(list "$a")"; what="$what $a" ;;
		*) pkgs="$pkgs $a" ;;
		esac
	done
	case $what in
	" build") me="make deps" ;;
	" test") me="make test-deps" ;;
	"") me="mk/deps.sh" ;;
	*) me="make deps (${what# })" ;;
	esac
	# after the packages: the test set's npm packages (otel)
	after() { case " $what " in *" test "*) otel ;; esac; }
	set -- $pkgs
	missing=
	for p in "$@"; do
		# nodejs and npm: present when the command is. Node's own builds (nodesource's nodejs
		# package Provides and Conflicts npm, and has npm in it; nvm's; a tarball) leave
		# Debian's npm not installed, and apt-get install npm would remove that nodejs.
		case $p in
		nodejs|npm) command -v "${p%js}" >/dev/null 2>&1 && continue ;;
		esac
		case $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) in
		ii*) ;;
		*) missing="$missing $p" ;;
		esac
	done
	if [ -z "$missing" ]; then
		echo "$me: the $# Debian packages are installed"
		after
		return
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
		after
		return
	fi
	echo "$me: apt-get failed; the end of its output (all of it in $log):" >&2
	tail -n 20 "$log" >&2
	return 1
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
check) check "$@" ;;
list) list "$@" ;;
install) install "$@" ;;
*) echo "usage: sh mk/deps.sh check CC PCLIB... | list SET... | install SET|PKG..." >&2; exit 2 ;;
esac
