#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Runs a command on a copy of this tree inside a Debian 13 (trixie) root made
# with debootstrap, so that a Debian 12 machine tests the Debian 13 platform
# too (DPDK 24.11, rdma-core 56). Run as root. Used by scripts/run-tests.sh.
#
#   1. The root: debootstrap --variant=minbase trixie into
#      NET_MANA_DEBIAN13_ROOT (default .deps/debian13-root), from the Debian
#      archive this machine's own apt configuration names; its apt sources are
#      that archive (trixie, trixie-updates) and, when this machine has one,
#      its security archive (trixie-security). Made once, then reused.
#   2. The root is bound onto itself (so that "/" is a mount point inside),
#      /proc, /sys, /dev, /dev/pts and /dev/shm are mounted into it, and with
#      NET_MANA_DEBIAN13_DPDK_SRC=<DPDK 24.11 tree> that tree, read-only, at
#      /opt/dpdk-src (given to the command as NET_MANA_DPDK_SRC). Every mount
#      is undone on exit, whatever the command's result.
#   3. The tree (tracked and untracked files, not what git ignores) is copied
#      to /root/net_mana in the root, keeping the build directories of the
#      previous run there, and the command runs in it with a clean environment.
#
# usage: scripts/debian13-root.sh [--counts FILE] -- COMMAND [ARGS...]
#   --counts FILE   copy the root's .deps/counts-debian13 (run-tests.sh) to FILE
# Exit status: the command's.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
root=${NET_MANA_DEBIAN13_ROOT:-$repo/.deps/debian13-root}
dpdk_src=${NET_MANA_DEBIAN13_DPDK_SRC:-}
suite=trixie
counts=
mounted=()

log() { printf 'debian13-root: %s\n' "$*"; }
die() { printf 'debian13-root: error: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	--counts) counts=$2; shift ;;
	--) shift; break ;;
	-h|--help) sed -n '5,25p' "${BASH_SOURCE[0]}"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
[ $# -gt 0 ] || die "no command (see --help)"
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mounts, chroot)"
[ -z "$dpdk_src" ] || [ -d "$dpdk_src" ] ||
	die "NET_MANA_DEBIAN13_DPDK_SRC=$dpdk_src is not a directory"

# ---- The archive, from this machine's apt configuration ---------------------

host_codename() {
	local VERSION_CODENAME=
	# shellcheck disable=SC1091
	. /etc/os-release
	echo "$VERSION_CODENAME"
}

# "URI suite" for every enabled deb entry (deb822 .sources and one-line .list).
apt_entries() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = "" }
		{
			n = split($0, l, "\n"); deb = 0; off = 0; uris = ""; suites = ""
			for (i = 1; i <= n; i++) {
				k = tolower(l[i]); v = l[i]; sub(/^[^:]*:[ \t]*/, "", v)
				if (k ~ /^#/) continue
				if (k ~ /^types:/ && (" " v " ") ~ /[ ]deb[ ]/) deb = 1
				if (k ~ /^enabled:[ \t]*no/) off = 1
				if (k ~ /^uris:/) uris = v
				if (k ~ /^suites:/) suites = v
			}
			if (!deb || off) next
			nu = split(uris, u, /[ \t]+/); ns = split(suites, s, /[ \t]+/)
			for (a = 1; a <= nu; a++) for (b = 1; b <= ns; b++) print u[a], s[b]
		}' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [options] URI suite components...
		sed -n 's/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?//p' "$f" |
			awk '{ print $1, $2 }'
	done
}

# The first URI serving suite $1 of this machine.
uri_for() {
	apt_entries | awk -v s="$1" '$2 == s { print $1; exit }'
}

# ---- Mounts ---------------------------------------------------------------------

cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null ||
			log "warning: could not unmount ${mounted[i]}"
	done
	mounted=()
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bind() {	# bind <source> <target inside the root> [ro]
	mkdir -p "$root$2"
	mount --bind "$1" "$root$2"
	mounted+=("$root$2")
	if [ "${3:-}" = ro ]; then
		mount -o remount,bind,ro "$root$2"
	fi
}

# ---- 1. The root --------------------------------------------------------------------

make_root() {
	local host archive security
	host=$(host_codename)
	[ -n "$host" ] || die "this machine's /etc/os-release names no release"
	archive=$(uri_for "$host")
	[ -n "$archive" ] || die "no apt entry for suite '$host' in /etc/apt to take the archive from"
	security=$(uri_for "$host-security")
	if ! command -v debootstrap > /dev/null; then
		log "apt-get install debootstrap"
		apt-get install -y -q --no-install-recommends debootstrap > /dev/null ||
			die "cannot install debootstrap"
	fi
	rm -rf "$root"
	mkdir -p "$root"
	log "debootstrap --variant=minbase $suite (archive of suite '$host' in /etc/apt)"
	if ! debootstrap --variant=minbase "$suite" "$root" "$archive" > "$root.log" 2>&1; then
		tail -5 "$root.log"
		die "debootstrap failed (log: $root.log)"
	fi
	rm -f "$root/etc/apt/sources.list"
	{
		printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\n' \
			"$archive" "$suite" "$suite"
		printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
		if [ -n "$security" ]; then
			printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\n' \
				"$security" "$suite"
			printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
		fi
	} > "$root/etc/apt/sources.list.d/debian.sources"
	touch "$root/.net-mana-root"
	log "Debian 13 root ready in $root"
}

if [ -f "$root/.net-mana-root" ]; then
	log "reusing the Debian 13 root in $root"
else
	make_root
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# ---- 2. Mounts ----------------------------------------------------------------------

# The root bound onto itself first: inside, "/" is then a mount point, as
# unshare -m (the tests' private mount namespaces) needs.
mount --bind "$root" "$root"
mounted+=("$root")
mkdir -p "$root/proc"
mount -t proc proc "$root/proc"
mounted+=("$root/proc")
bind /sys /sys
bind /dev /dev
bind /dev/pts /dev/pts
if mountpoint -q /dev/shm; then
	bind /dev/shm /dev/shm
fi
env_src=()
if [ -n "$dpdk_src" ]; then
	bind "$dpdk_src" /opt/dpdk-src ro
	env_src=(NET_MANA_DPDK_SRC=/opt/dpdk-src)
	log "DPDK source tree $dpdk_src at /opt/dpdk-src (read-only)"
fi

# ---- 3. The tree and the command ------------------------------------------------------

copy=$root/root/net_mana
mkdir -p "$copy"
# Everything but the build directories and .deps of the previous run goes.
find "$copy" -mindepth 1 -maxdepth 1 ! -name 'build' ! -name 'build-asan' ! -name 'build-fuzz' \
	! -name 'build-nomodel' \
	! -name '.deps' -exec rm -rf {} +
rm -f "$copy/.deps/counts-debian13"
(cd "$repo" && git ls-files -z -co --exclude-standard |
	tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$copy"

log "running in the root: $*"
set +e
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" "${env_src[@]}" \
	bash -c 'cd /root/net_mana && exec "$@"' bash "$@"
rc=$?
set -e
if [ -n "$counts" ] && [ -f "$copy/.deps/counts-debian13" ]; then
	cp "$copy/.deps/counts-debian13" "$counts"
fi
exit $rc
