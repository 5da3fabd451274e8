#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Runs a command on a copy of this tree inside a Debian root of another
# release or architecture made with debootstrap, so that one machine tests
# other platforms too: Debian 13 (scripts/debian13-root.sh), Debian 12 arm64
# under qemu-user emulation (scripts/arm64-tests.sh). Run as root.
#
#   0. A foreign --arch (arm64 on x86-64) runs through qemu-user-static: when
#      no binfmt_misc handler for it is registered, one is (binfmt_misc is
#      mounted first if it is not), and only that one is unregistered at exit.
#      Where the machine forbids it: one line saying so, exit status 77.
#   1. The root: debootstrap --variant=minbase [--arch ARCH] SUITE into --root,
#      from the Debian archive this machine's own apt configuration names; its
#      apt sources are that archive (SUITE, SUITE-updates) and, when this
#      machine has one, its security archive (SUITE-security). Made once, then
#      reused.
#   2. The root is bound onto itself (so that "/" is a mount point inside),
#      /proc, /sys, /dev, /dev/pts and /dev/shm are mounted into it, and with
#      --dpdk-src <DPDK tree of the root's release> that tree, read-only, at
#      /opt/dpdk-src (given to the command as NET_MANA_DPDK_SRC). Every mount
#      is undone on exit, whatever the command's result.
#   3. The tree (tracked and untracked files, not what git ignores) is copied
#      to /root/net_mana in the root, keeping the build directories of the
#      previous run there, and the command runs in it with a clean environment.
#      With --same-path the copy is also bound at its path on this machine
#      ($root/root/net_mana) inside the root and the command runs there, so
#      that a build made on this machine in the copy runs in the root.
#
# usage: scripts/debian-root.sh --suite SUITE --root DIR [--arch ARCH] [--name NAME]
#                               [--dpdk-src DIR] [--counts FILE] [--same-path]
#                               -- COMMAND [ARGS...]
#   --suite SUITE    Debian suite of the root (trixie, bookworm, ...)
#   --root DIR       where the root is made
#   --arch ARCH      Debian architecture of the root (default: this machine's)
#   --name NAME      prefix of this script's lines (default: SUITE-ARCH-root)
#   --dpdk-src DIR   DPDK source tree to bind at /opt/dpdk-src
#   --counts FILE    copy the root's .deps/counts-<platform> (run-tests.sh) to FILE
#   --same-path      run in the copy at its path on this machine (step 3)
# Exit status: the command's; 77 when a foreign architecture cannot run here.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
host_arch=$(dpkg --print-architecture)
root=
dpdk_src=
suite=
arch=$host_arch
name=
counts=
same_path=0
mounted=()

log() { printf '%s: %s\n' "$name" "$*"; }
die() { printf '%s: error: %s\n' "$name" "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	--suite) suite=$2; shift ;;
	--root) root=$2; shift ;;
	--arch) arch=$2; shift ;;
	--name) name=$2; shift ;;
	--dpdk-src) dpdk_src=$2; shift ;;
	--counts) counts=$2; shift ;;
	--) shift; break ;;
	--same-path) same_path=1 ;;
	-h|--help) sed -n '5,41p' "${BASH_SOURCE[0]}"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
name=${name:-$suite-$arch-root}
[ -n "$suite" ] || die "no --suite (see --help)"
[ -n "$root" ] || die "no --root (see --help)"
[ $# -gt 0 ] || die "no command (see --help)"
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mounts, chroot)"
[ -z "$dpdk_src" ] || [ -d "$dpdk_src" ] || die "DPDK source tree $dpdk_src is not a directory"

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
	binfmt_cleanup
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

# ---- 0. A foreign architecture: qemu-user through binfmt_misc ----------------------

binfmt_dir=/proc/sys/fs/binfmt_misc
binfmt_ours=		# the handler this script registered, unregistered at exit
binfmt_mounted=0	# binfmt_misc was mounted by this script

binfmt_cleanup() {
	if [ -n "$binfmt_ours" ] && [ -e "$binfmt_dir/$binfmt_ours" ]; then
		echo -1 > "$binfmt_dir/$binfmt_ours" ||
			log "warning: could not unregister binfmt handler $binfmt_ours"
		log "unregistered binfmt handler $binfmt_ours"
	fi
	binfmt_ours=
	if [ "$binfmt_mounted" = 1 ]; then
		umount "$binfmt_dir" 2>/dev/null || true
		binfmt_mounted=0
	fi
}

# ELF header magic and mask of a Debian architecture's executables (the
# e_ident bytes, then e_type (2 or 3) and e_machine), and qemu's name for it.
binfmt_id() {
	local elf64le='\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00'
	local mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff'
	case "$1" in
	arm64) echo "aarch64 ${elf64le}\xb7\x00 ${mask}\xff\xff 7f454c460201010000000000000000000200b700" ;;
	*) return 1 ;;
	esac
}

# Succeeds when an enabled handler of this magic (hex) is registered.
binfmt_registered() {
	local f
	[ -f "$binfmt_dir/status" ] && [ "$(cat "$binfmt_dir/status")" = enabled ] || return 1
	for f in "$binfmt_dir"/*; do
		case "${f##*/}" in status|register) continue ;; esac
		[ "$(head -1 "$f" 2>/dev/null)" = enabled ] || continue
		grep -qx "magic $1" "$f" 2>/dev/null && return 0
	done
	return 1
}

# Foreign architecture: a qemu-user handler registered, or exit 77 with one
# line saying why not. NET_MANA_BINFMT_REGISTER=1 registers one even when a
# handler is there (to test this path; the newest handler is used first).
foreign_arch() {
	local qarch magic mask hex qemu line interp
	read -r qarch magic mask hex < <(binfmt_id "$arch") ||
		die "--arch $arch: no qemu-user handler known for it (arm64 only)"
	qemu=/usr/bin/qemu-$qarch-static
	if [ ! -f "$binfmt_dir/register" ]; then
		modprobe binfmt_misc 2>/dev/null || true
		if mount -t binfmt_misc binfmt_misc "$binfmt_dir" 2>/dev/null; then
			binfmt_mounted=1
		fi
	fi
	if binfmt_registered "$hex" && [ "${NET_MANA_BINFMT_REGISTER:-0}" != 1 ]; then
		log "$arch executables run through the registered qemu-$qarch handler"
		return 0
	fi
	if [ ! -x "$qemu" ]; then
		log "apt-get install qemu-user-static"
		apt-get install -y -q --no-install-recommends qemu-user-static > /dev/null 2>&1 ||
			true
	fi
	if [ ! -x "$qemu" ]; then
		echo "SKIP: $name: $arch needs $qemu (Debian: qemu-user-static), which cannot be installed"
		exit 77
	fi
	if [ ! -w "$binfmt_dir/register" ]; then
		echo "SKIP: $name: $arch needs a binfmt_misc handler for qemu-$qarch and this" \
			"machine has no writable $binfmt_dir (mount -t binfmt_misc not permitted)"
		exit 77
	fi
	# Debian's own registration (qemu-user-static's binfmt.d file) under a
	# name of ours, else the same with qemu itself. F: the kernel opens qemu
	# now, so it runs inside the chroot too.
	line=$(sed -n "s/^:qemu-$qarch:/:net-mana-qemu-$qarch:/p" \
		"/usr/lib/binfmt.d/qemu-$qarch.conf" 2>/dev/null) || line=
	interp=$(echo "$line" | cut -d: -f8)
	if [ -z "$line" ] || [ ! -x "$interp" ] || [[ "$(echo "$line" | cut -d: -f9)" != *F* ]]
	then
		line=$(printf ':net-mana-qemu-%s:M::%s:%s:%s:F' "$qarch" "$magic" "$mask" "$qemu")
	fi
	if ! echo "$line" > "$binfmt_dir/register" 2>/dev/null; then
		echo "SKIP: $name: $arch needs a binfmt_misc handler for qemu-$qarch and this" \
			"machine refuses to register one"
		exit 77
	fi
	binfmt_ours=net-mana-qemu-$qarch
	log "registered binfmt handler $binfmt_ours ($(echo "$line" | cut -d: -f8)); unregistered at exit"
}

if [ "$arch" != "$host_arch" ]; then
	foreign_arch
fi

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
	# A root left half made: nothing may still be mounted in it before it goes.
	if awk -v r="$root/" 'index($2 "/", r) == 1 { f = 1 } END { exit !f }' /proc/mounts; then
		die "$root has file systems mounted in it (a run killed before its cleanup?)"
	fi
	rm -rf "$root"
	mkdir -p "$root"
	log "debootstrap --variant=minbase --arch=$arch $suite (archive of suite '$host' in /etc/apt)"
	if ! debootstrap --variant=minbase --arch="$arch" "$suite" "$root" "$archive" \
		> "$root.log" 2>&1; then
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
	log "$suite $arch root ready in $root"
}

if [ -f "$root/.net-mana-root" ]; then
	log "reusing the $suite $arch root in $root"
else
	make_root
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# Packages installed in the root start no service (openvswitch-switch,
# iperf3): a daemon started in a chroot outlives the run and keeps the
# root's mounts busy. The policy-rc.d of build chroots and Docker images.
if [ ! -e "$root/usr/sbin/policy-rc.d" ]; then
	printf '#!/bin/sh\n# net_mana scripts/debian-root.sh: no service starts in this root.\nexit 101\n' \
		> "$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
fi

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
# The counts the command leaves (run-tests.sh): .deps/counts-<root's platform>.
counts_in=$copy/.deps/counts-$(. "$root/etc/os-release" && echo "${ID}${VERSION_ID%%.*}")
rm -f "$counts_in"
(cd "$repo" && git ls-files -z -co --exclude-standard |
	tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$copy"

workdir=/root/net_mana
if [ "$same_path" = 1 ]; then
	workdir=$copy
	bind "$copy" "$copy"
fi

log "running in the root: $*"
set +e
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" "${env_src[@]}" \
	bash -c 'cd "$0" && exec "$@"' "$workdir" "$@"
rc=$?
set -e
if [ -n "$counts" ] && [ -f "$counts_in" ]; then
	cp "$counts_in" "$counts"
fi
exit $rc
