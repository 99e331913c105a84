# mk/fresh-root.sh - a fresh minimal Debian root, for check-fresh.sh and check-deb.sh (sourced).
#
#   me=NAME RELEASE=bookworm|trixie; . mk/fresh-root.sh
#   fresh_root              $root: a new root of RELEASE (debootstrap --variant=minbase), with
#                           /proc, /sys, /dev mounted, name resolution, the apt proxy, the
#                           machine's added certificate authorities, the
#                           updates and security suites; removed at exit (FRESH_KEEP=1 keeps
#                           the root of a failed run for a look inside)
#   fresh_copy_tree DIR     the source tree (mk/tree-tar.sh: no build output) copied into $root/DIR
#   fresh_clone DIR         a git clone of this checkout's HEAD in $root/DIR, with its .git, as a
#                           user's `git clone` gives it (what is not committed is not in it)
#   run_in DIR CMD          CMD run by sh as root in $root, in DIR, with a clean environment
#                           (but the machine's proxies and NODE_EXTRA_CA_CERTS)
# The bare root is debootstrapped once per release and mirror and kept as a tarball in
# $FRESH_CACHE (default /var/tmp/ragpipe-fresh); every run unpacks it anew. Mirror: the one this
# machine's apt uses for Debian. Needs root (debootstrap, chroot, mount); installs debootstrap
# when missing. The caller has set -eu and defined say and die.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
RELEASE=${RELEASE:-bookworm}
case $RELEASE in
bookworm) release_name="Debian 12" ;;
trixie) release_name="Debian 13" ;;
*) die "RELEASE=$RELEASE: bookworm (Debian 12) or trixie (Debian 13)" ;;
esac
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null 2>&1 || sh "$top/mk/deps.sh" install debootstrap ||
	die "cannot install debootstrap"

# ---------------------------------------------------------------- the mirror this machine uses
# This machine's release (/etc/os-release), the first URIs of a stanza for it in debian.sources
# (deb822), else the first "deb" line for it in sources.list; none: debootstrap's default. The
# same mirror serves every release.
host_release=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
host_release=${host_release:-bookworm}
mirror=
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
	mirror=$(awk -v rel="$host_release" '
		/^[ \t]*$/ { if (suite && uri && !m) m = uri; suite = 0; uri = ""; next }
		/^URIs:/ { uri = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == rel) suite = 1 }
		END { if (suite && uri && !m) m = uri; print m }' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
	mirror=$(awk -v rel="$host_release" '$1 == "deb" && $3 == rel { print $2; exit }' /etc/apt/sources.list)
fi

# ---------------------------------------------------------------- the bare root, cached
fresh_bare() {
	cache=${FRESH_CACHE:-/var/tmp/ragpipe-fresh}
	mkdir -p "$cache"
	key=$(printf '%s' "$mirror" | md5sum | cut -c1-12)
	tarball=$cache/$RELEASE-minbase-$key.tar.gz
	if [ -s "$tarball" ]; then
		say "bare $release_name root from $tarball"
		return 0
	fi
	bare=$(mktemp -d "$cache/bare.XXXXXX")
	chmod 755 "$bare"   # it becomes /: mktemp's 0700 would keep apt's _apt user out
	say "debootstrap --variant=minbase $RELEASE, mirror ${mirror:-debootstrap's default} (once; kept as $tarball)"
	if ! debootstrap --variant=minbase "$RELEASE" "$bare" $mirror >"$bare.log" 2>&1; then
		tail -n 20 "$bare.log" >&2
		rm -rf --one-file-system "$bare"
		die "debootstrap failed (its log: $bare.log)"
	fi
	rm -f "$bare"/var/cache/apt/archives/*.deb
	tar -C "$bare" --numeric-owner -czpf "$tarball.part" . && mv "$tarball.part" "$tarball"
	rm -rf --one-file-system "$bare" "$bare.log"
}

# ---------------------------------------------------------------- this run's root
root=
mounted=
fresh_cleanup() {
	st=$?
	trap - EXIT INT TERM HUP
	if [ -n "$root" ]; then
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
	fi
	exit "$st"
}

fresh_root() {
	fresh_bare
	root=$(mktemp -d "$cache/run.XXXXXX")
	trap fresh_cleanup EXIT
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
	# and the certificate authorities this machine adds to Debian's (a network that inspects TLS,
	# as a company's proxy does: npm ci's registry is reached through it): ca-certificates takes
	# them in when a package installs it, as on the machine itself
	if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
		mkdir -p "$root/usr/local/share/ca-certificates"
		cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
		say "certificate authorities from /usr/local/share/ca-certificates"
	fi
	# and its updates and security suites, as an installed Debian has them: this machine's
	# debian.sources with its release's name changed to RELEASE
	if [ -r /etc/apt/sources.list.d/debian.sources ] && grep -q "$host_release" /etc/apt/sources.list.d/debian.sources; then
		sed "s/\\<$host_release\\>/$RELEASE/g" /etc/apt/sources.list.d/debian.sources \
			>"$root/etc/apt/sources.list.d/debian.sources"
		rm -f "$root/etc/apt/sources.list"
	fi
	# no daemon that a package installs may start inside the root (it would hold the mounts)
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"
}

fresh_copy_tree() {
	mkdir -p "$root$1"
	sh "$top/mk/tree-tar.sh" | tar -C "$root$1" -xf -
	say "copied $(cd "$root$1" && find . -type f | wc -l) files to $1"
}

fresh_clone() {
	git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || die "$top is not a git checkout: nothing to clone"
	_dirty=$(git -C "$top" status --porcelain --untracked-files=no | wc -l)
	[ "$_dirty" = 0 ] || say "warning: $_dirty files with changes not committed: the clone has HEAD without them"
	git clone -q --no-hardlinks "$top" "$root$1" || die "git clone $top failed"
	say "cloned $(git -C "$root$1" rev-parse --short HEAD) ($(git -C "$root$1" ls-files | wc -l) files and its .git) to $1"
}

run_in() {
	_dir=$1; shift
	say "# $*"
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		${http_proxy:+http_proxy=$http_proxy} ${https_proxy:+https_proxy=$https_proxy} \
		${NODE_EXTRA_CA_CERTS:+NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS} \
		sh -c "cd $_dir && $*"
}
