#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Prepare a Debian 12 (DPDK 22.11) or Debian 13 (DPDK 24.11) machine and
# build net_mana. Idempotent; run as root.
#   1. apt: install the packages the build, the tests and scripts/run-main.sh need;
#   2. the DPDK source tree of the installed libdpdk-dev release (the
#      driver-SDK headers Debian does not ship): NET_MANA_DPDK_SRC if set,
#      else the source package of exactly the installed version, fetched with
#      apt-get source into .deps/dpdk-src;
#   3. meson setup build && ninja -C build.
#
# Options:
#   --no-apt     do not run apt-get update/install (packages already present);
#                also NET_MANA_SKIP_APT=1. The DPDK source is still fetched
#                with apt-get source if .deps/dpdk-src is missing.
#   --no-build   stop after step 2.
#   --allow-no-driver
#                when no DPDK source tree can be had, print one "SKIP" line
#                saying why and build only what needs none (-Ddriver=false:
#                the software device, the replacement libraries, their tests)
#                instead of failing. The reason is left in .deps/no-driver.
# Environment:
#   NET_MANA_DPDK_SRC=<dir>  use this DPDK source tree (of the installed
#                            release) instead of apt-get source.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps="$repo/.deps"
src_dir="$deps/dpdk-src"
stamp="$src_dir/.net-mana-version"
skip_apt=${NET_MANA_SKIP_APT:-0}
do_build=1
allow_no_driver=0
no_driver_file="$deps/no-driver"

packages=(
	# build (the same names on Debian 12 and 13)
	gcc libc6-dev make pkg-config meson ninja-build python3 python3-pyelftools
	libdpdk-dev dpdk libibverbs-dev ibverbs-providers libnuma-dev libpcap-dev
	# fetching and unpacking the DPDK source package
	dpkg-dev xz-utils
	# tests and the run command: dpdk-testpmd is in dpdk-dev, the example
	# sources (l3fwd, l2fwd, skeleton) in dpdk-doc
	dpdk-dev dpdk-doc iproute2 valgrind
	# the Debian packages (dpkg-buildpackage -b; debian/control's
	# Build-Depends: debhelper-compat (= 13) is debhelper's, and
	# dpkg-checkbuilddeps always wants build-essential)
	debhelper build-essential
	# the conformance suite (test/conformance): scapy builds and parses frames
	python3-scapy
	# test/system/ovs: Open vSwitch with its DPDK ovs-vswitchd, iperf3, ping
	openvswitch-switch-dpdk iperf3 iputils-ping
	# the fuzzers of test/fuzz (build-fuzz): clang and its libFuzzer/sanitizer
	# runtime, which --no-install-recommends would leave out (clang 14 on
	# Debian 12, 19 on Debian 13; the same package names)
	clang libclang-rt-dev
)

log() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	--no-apt) skip_apt=1 ;;
	--no-build) do_build=0 ;;
	--allow-no-driver) allow_no_driver=1 ;;
	-h|--help) sed -n '2,26p' "${BASH_SOURCE[0]}"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done

export DEBIAN_FRONTEND=noninteractive

need_root() {
	[ "$(id -u)" -eq 0 ] || die "$1 needs root: run this as root"
}

# Only what is missing is installed: packages already there are not upgraded.
install_packages() {
	local p st missing=()
	for p in "${packages[@]}"; do
		st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) || st=
		case "$st" in *" ok installed") ;; *) missing+=("$p") ;; esac
	done
	if [ ${#missing[@]} -eq 0 ]; then
		log "all packages present"
		return
	fi
	need_root "installing packages"
	log "apt-get update"
	# A broken third-party repository must not stop us; install decides.
	apt-get update -q || log "warning: apt-get update reported errors"
	log "apt-get install ${missing[*]}"
	apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# ---- DPDK source package of the installed version -----------------------

dpdk_version() {
	dpkg-query -W -f='${source:Version}' libdpdk-dev 2>/dev/null ||
		die "libdpdk-dev is not installed (run without --no-apt)"
}

have_source_version() {
	local recs
	# Not piped into grep -q: with pipefail an early grep exit fails the pipe.
	recs=$(apt-cache showsrc dpdk 2>/dev/null) || return 1
	grep -qx "Version: $1" <<< "$recs"
}

# deb822 stanzas of the enabled .sources files whose Types include "deb",
# turned into deb-src stanzas (comments dropped).
derive_deb822_src() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		case "$f" in */net-mana-deb-src.sources) continue ;; esac
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
		{
			n = split($0, l, "\n"); out = ""; deb = 0; off = 0
			for (i = 1; i <= n; i++) {
				if (l[i] ~ /^#/)
					continue
				if (tolower(l[i]) ~ /^types:/) {
					if ((" " l[i] " ") ~ /[: ]deb[ ]/)
						deb = 1
					l[i] = "Types: deb-src"
				}
				if (tolower(l[i]) ~ /^enabled:[ \t]*no/)
					off = 1
				out = out l[i] "\n"
			}
			if (deb && !off)
				printf "%s\n", out
		}' "$f"
	done
}

# One-line "deb ..." entries turned into "deb-src ...".
derive_list_src() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		case "$f" in */net-mana-deb-src.list) continue ;; esac
		sed -n 's/^[[:space:]]*deb[[:space:]]\+/deb-src /p' "$f"
	done
}

# Add deb-src entries mirroring the machine's own deb entries (no host name
# is ever hard-coded here).
add_deb_src() {
	local d822 dlist
	need_root "adding deb-src entries"
	d822=$(derive_deb822_src)
	dlist=$(derive_list_src)
	[ -n "$d822$dlist" ] || die "no enabled 'deb' entry in /etc/apt to derive deb-src from"
	if [ -n "$d822" ]; then
		printf '# Written by net_mana scripts/setup.sh: deb-src twins of the deb entries.\n%s\n' \
			"$d822" > /etc/apt/sources.list.d/net-mana-deb-src.sources
		log "wrote /etc/apt/sources.list.d/net-mana-deb-src.sources"
	fi
	if [ -n "$dlist" ]; then
		printf '# Written by net_mana scripts/setup.sh: deb-src twins of the deb entries.\n%s\n' \
			"$dlist" > /etc/apt/sources.list.d/net-mana-deb-src.list
		log "wrote /etc/apt/sources.list.d/net-mana-deb-src.list"
	fi
	apt-get update -q || log "warning: apt-get update reported errors"
}

# Sets $source_error (one line) and returns 1 when the source of the installed
# version cannot be had; apt's own output goes to .deps/apt-source.log.
fetch_dpdk_source() {
	local ver upver tmp why alog="$deps/apt-source.log"
	ver=$(dpdk_version)
	[ -n "$ver" ] || die "libdpdk-dev is not installed (run without --no-apt)"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$ver" ]; then
		log "DPDK source $ver already in .deps/dpdk-src"
		return 0
	fi
	mkdir -p "$deps"
	if ! have_source_version "$ver"; then
		log "apt knows no source package dpdk $ver: adding deb-src entries"
		add_deb_src
		if ! have_source_version "$ver"; then
			source_error="apt has no source package dpdk=$ver (no deb-src entry serves it)"
			return 1
		fi
	fi
	upver=${ver#*:}		# file names carry no epoch
	log "apt-get source dpdk=$ver"
	# As root apt warns that the download is unsandboxed: harmless.
	if ! (cd "$deps" && apt-get source -q --download-only "dpdk=$ver") > "$alog" 2>&1; then
		# The HTTP status of the first failed file (e.g. "404 Not Found"), else apt's error.
		why=$(grep -m1 '^E: Failed to fetch' "$alog" | grep -oE ' [0-9]{3} +[A-Za-z][A-Za-z ]*' |
			head -1 | tr -s ' ' | sed 's/^ //; s/ $//') || true
		[ -n "$why" ] || why=$(grep -m1 '^E:' "$alog" | cut -c4-) || true
		source_error="apt-get source dpdk=$ver failed (${why:-see the log}: the mirror does"
		source_error+=" not serve it; apt's output: .deps/apt-source.log)"
		return 1
	fi
	tmp="$deps/dpdk-src.tmp"
	rm -rf "$tmp" "$src_dir"
	dpkg-source -x "$deps/dpdk_$upver.dsc" "$tmp" >/dev/null
	echo "$ver" > "$tmp/.net-mana-version"
	mv "$tmp" "$src_dir"
	log "DPDK source $ver unpacked to .deps/dpdk-src"
}

# ---- main --------------------------------------------------------------

if [ "$skip_apt" = 1 ]; then
	log "skipping apt-get install (--no-apt)"
else
	install_packages
fi

meson_args=(-Ddriver=true)
rm -f "$no_driver_file"
source_error=
if [ -n "${NET_MANA_DPDK_SRC:-}" ]; then
	[ -d "$NET_MANA_DPDK_SRC" ] || die "NET_MANA_DPDK_SRC=$NET_MANA_DPDK_SRC is not a directory"
	meson_args+=("-Ddpdk_src=$NET_MANA_DPDK_SRC")
	log "DPDK source tree: $NET_MANA_DPDK_SRC"
elif fetch_dpdk_source; then
	meson_args+=(-Ddpdk_src=)	# the default, .deps/dpdk-src
else
	rel=$(dpdk_version)
	rel=${rel#*:}
	rel=${rel%%-*}		# upstream version, e.g. 24.11.8
	reason="no DPDK $rel source tree: $source_error; pass NET_MANA_DPDK_SRC=<DPDK"
	reason+=" ${rel%.*} source tree> (doc/user_guide.md, 'DPDK source tree')"
	[ "$allow_no_driver" = 1 ] || die "$reason"
	log "building without the driver (--allow-no-driver): $reason"
	mkdir -p "$deps"
	echo "$reason" > "$no_driver_file"
	meson_args=(-Ddriver=false)
fi

[ "$do_build" = 1 ] || exit 0

cd "$repo"
if [ -f build/build.ninja ]; then
	log "meson setup --reconfigure build"
	meson setup --reconfigure build "${meson_args[@]}"
else
	log "meson setup build"
	meson setup build "${meson_args[@]}"
fi
log "ninja -C build"
ninja -C build
log "done"
