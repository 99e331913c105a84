#!/bin/sh
# mk/check-fresh.sh - `make check-fresh`: the README's Quick start on a fresh Debian 12.
#
# Builds a minimal Debian 12 root (debootstrap --variant=minbase bookworm), copies the source
# tree into it (the files git tracks plus the untracked ones it does not ignore: no build
# output), and runs there, as root, what the README says to run on a minimal image:
#   apt-get update && apt-get install make; make -j2 demo; make check
# The bare root is debootstrapped once and kept as a tarball in $FRESH_CACHE (default
# /var/tmp/ragpipe-fresh); every run unpacks it anew. Mirror: the one this machine's apt uses.
# Needs root (debootstrap, chroot, mount); installs debootstrap when missing.
# FRESH_KEEP=1 keeps the root of a failed run for a look inside.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
me=check-fresh
t_start=$(date +%s)
say() { echo "$me: $*"; }
die() { echo "$me: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || exec sudo FRESH_CACHE="${FRESH_CACHE:-}" FRESH_KEEP="${FRESH_KEEP:-}" sh "$0" "$@"
command -v debootstrap >/dev/null 2>&1 || sh "$top/mk/deps.sh" install debootstrap ||
	die "cannot install debootstrap"

# ---------------------------------------------------------------- the mirror this machine uses
# The first URIs of a stanza for bookworm in debian.sources (deb822), else the first "deb" line
# for bookworm in sources.list; none: debootstrap's default.
mirror=
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
	mirror=$(awk '
		/^[ \t]*$/ { if (suite && uri && !m) m = uri; suite = 0; uri = ""; next }
		/^URIs:/ { uri = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") suite = 1 }
		END { if (suite && uri && !m) m = uri; print m }' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
	mirror=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list)
fi
say "mirror: ${mirror:-debootstrap's default}"

# ---------------------------------------------------------------- the bare root, cached
cache=${FRESH_CACHE:-/var/tmp/ragpipe-fresh}
mkdir -p "$cache"
key=$(printf '%s' "$mirror" | md5sum | cut -c1-12)
tarball=$cache/bookworm-minbase-$key.tar.gz
if [ ! -s "$tarball" ]; then
	bare=$(mktemp -d "$cache/bare.XXXXXX")
	chmod 755 "$bare"   # it becomes /: mktemp's 0700 would keep apt's _apt user out
	say "debootstrap --variant=minbase bookworm (once; kept as $tarball)"
	if ! debootstrap --variant=minbase bookworm "$bare" $mirror >"$bare.log" 2>&1; then
		tail -n 20 "$bare.log" >&2
		rm -rf --one-file-system "$bare"
		die "debootstrap failed (its log: $bare.log)"
	fi
	rm -f "$bare"/var/cache/apt/archives/*.deb
	tar -C "$bare" --numeric-owner -czpf "$tarball.part" . && mv "$tarball.part" "$tarball"
	rm -rf --one-file-system "$bare" "$bare.log"
else
	say "bare root from $tarball"
fi

# ---------------------------------------------------------------- this run's root
root=$(mktemp -d "$cache/run.XXXXXX")
mounted=
cleanup() {
	st=$?
	trap - EXIT INT TERM HUP
	# processes still running in the root (a test's server, a stuck browser) hold the mounts
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	for m in $mounted; do
		umount "$root$m" 2>/dev/null || umount -l "$root$m" 2>/dev/null || echo "$me: cannot unmount $root$m" >&2
	done
	if grep -q " $root/" /proc/mounts; then
		echo "$me: $root still has mounts; not removing it" >&2
	elif [ "$st" != 0 ] && [ "${FRESH_KEEP:-}" = 1 ]; then
		echo "$me: kept $root"
	else
		rm -rf --one-file-system "$root"
	fi
	exit "$st"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

tar -C "$root" --numeric-owner -xzpf "$tarball"
chmod 755 "$root"   # as / is (a tarball from an older run may say 0700)
# mount MOUNTPOINT ARGS...: remembered newest first, so cleanup unmounts /dev/pts before /dev
mnt() { _m=$1; shift; mount "$@" "$root$_m" && mounted="$_m $mounted"; }
mnt /proc -t proc proc
mnt /sys -t sysfs -o ro sysfs
mnt /dev --bind /dev
mnt /dev/pts --bind /dev/pts
mnt /dev/shm -t tmpfs -o mode=1777,nosuid,nodev shm

# what a new machine has that debootstrap does not make: name resolution, the apt proxy
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || :
for f in /etc/apt/apt.conf.d/* /etc/apt/apt.conf; do
	if [ -f "$f" ] && grep -qi 'proxy' "$f"; then
		cp "$f" "$root$f"
		say "apt proxy setting from $f"
	fi
done
# and its updates and security suites, as an installed Debian 12 has them
if [ -r /etc/apt/sources.list.d/debian.sources ] && grep -q bookworm /etc/apt/sources.list.d/debian.sources; then
	cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
	rm -f "$root/etc/apt/sources.list"
fi
# no daemon that a package installs may start inside the root (it would hold the mounts)
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"

# the tree: what git tracks and what it would add, no build output
mkdir -p "$root/root/ragpipe"
(cd "$top" && git ls-files -z -co --exclude-standard |
	xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - -cf -) | tar -C "$root/root/ragpipe" -xf -
say "copied $(cd "$root/root/ragpipe" && find . -type f | wc -l) files to /root/ragpipe"

# ---------------------------------------------------------------- the README's commands
run_in() {
	say "# $*"
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		${http_proxy:+http_proxy=$http_proxy} ${https_proxy:+https_proxy=$https_proxy} \
		sh -c "cd /root/ragpipe && $*"
}
run_in 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make >/dev/null'
t0=$(date +%s)
run_in 'make -j2 demo'
t1=$(date +%s)
run_in 'make check'
t2=$(date +%s)
# make deps installed every tool a test uses: none may have been skipped for a missing one
if grep -q '	missing ' "$root/root/ragpipe/tests/tmp/skipped" 2>/dev/null; then
	die "tests were skipped for a tool that is not installed: the packages of make deps lack it"
fi
say "ok: make -j2 demo ($((t1 - t0)) s) and make check ($((t2 - t1)) s) passed on a fresh Debian 12 ($(( t2 - t_start )) s in all)"
