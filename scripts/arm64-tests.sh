#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# The arm64 stages of scripts/run-tests.sh: builds and tests the tree on
# Debian 12 arm64 (DPDK 22.11, rdma-core 44) or, with --suite trixie, Debian 13
# arm64 (DPDK 24.11, rdma-core 56) in a root made by scripts/debian-root.sh
# (debootstrap --arch=arm64 --variant=minbase SUITE, from the archive this
# machine's apt configuration names), run through qemu-user-static; the qemu
# binfmt handler is registered for the run when none is. Run as root.
#
#   1. packages: the build and test packages are installed in the root;
#   2. build `build` with warnings as errors (driver, software device,
#      replacement libraries, dpdk-testpmd-mana, examples, tests, bench):
#      cross   (default; gcc-aarch64-linux-gnu is installed here if missing)
#              here with this machine's aarch64-linux-gnu-gcc and the root as
#              sysroot (the root's headers, libraries and DPDK), in
#              the root's copy of the tree (DPDK's example sources: the
#              root's dpdk-doc);
#      native  in the root, its gcc under emulation (about 15 times
#              slower: 20 files of lib/mana_model took 149 s against 10 s);
#              with no DPDK tree given, apt-get source in the root (Debian 13's
#              may not be served: then give one);
#   3. test in the root: meson's suites 'unit', 'component' and 'arm64' (the
#      testpmd scenarios on the software device test/system/testpmd/meson.build
#      tags so: io on the loop wire, 4-queue RSS, csum, scatter, TSO, each
#      arm64 datapath), with per-test timeouts times NET_MANA_ARM64_TIMEOUT.
#
# Output: the time of each step and "debian12-arm64: N passed, N failed,
# N skipped" (debian13-arm64 with --suite trixie), or with --counts those
# numbers in FILE for the caller's summary; where qemu-user cannot run here,
# one SKIP line and one skip counted.
#
# usage: scripts/arm64-tests.sh [--suite bookworm|trixie] [--counts FILE]
#                               [--native | --cross] [--prepare]
#   --prepare   step 1 only (the root and its packages), so that a caller can
#               make the root while other work runs; a later full run finds
#               them in place (and retries what failed). Exit status: step 1's.
# Environment:
#   NET_MANA_ARM64_ROOT      where the root is made (default
#                            .deps/debian12-arm64-root, .deps/debian13-arm64-root)
#   NET_MANA_ARM64_DPDK_SRC  a DPDK tree of the root's release (22.11, 24.11) for
#                            the driver-SDK headers (default for bookworm: this
#                            machine's .deps/dpdk-src when it is 22.11; else
#                            apt-get source in the root, native build)
#   NET_MANA_ARM64_TIMEOUT   meson's --timeout-multiplier (default 6)

set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
suite=bookworm
counts=
step=
mode=
prepare=0

while [ $# -gt 0 ]; do
	case "$1" in
	--counts) counts=$2; shift ;;
	--suite) suite=$2; shift ;;
	--native) mode=native ;;
	--cross) mode=cross ;;
	--prepare) prepare=1 ;;
	--in-root) step=$2; shift ;;	# internal: packages, build or test, in the root
	-h|--help) sed -n '5,46p' "${BASH_SOURCE[0]}"; exit 0 ;;
	*) echo "arm64-tests: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
# The root's Debian release and its DPDK (the driver-SDK tree must match it).
case "$suite" in
bookworm) name=debian12-arm64 dpdk_ver=22.11 ;;
trixie) name=debian13-arm64 dpdk_ver=24.11 ;;
*) echo "arm64-tests: --suite $suite: bookworm or trixie" >&2; exit 2 ;;
esac

# The meson options of `build` (both modes).
build_opts() {
	echo -Ddriver=true -Dtests=true -Dexamples=true --werror --buildtype=debugoptimized
}

# ---- In the root ---------------------------------------------------------------

in_root_packages() {
	local p st missing=()
	# Both: what the tests run (dpdk-testpmd is in dpdk-dev, meson runs them)
	# and, for the cross build, the sysroot's headers, libraries and .pc files.
	# dpdk-doc: DPDK's example sources (l3fwd, l2fwd, skeleton), which the
	# build takes from the DPDK prefix it finds: the root's /usr, in both modes.
	local packages=(python3 meson libdpdk-dev dpdk-dev libibverbs-dev ibverbs-providers
		libnuma-dev libpcap-dev iproute2 dpdk-doc)

	# native: the compiler; no DPDK tree given: apt-get source, dpkg-source
	[ "$1" = cross ] || packages+=(gcc libc6-dev ninja-build pkg-config)
	[ -n "${NET_MANA_DPDK_SRC:-}" ] || packages+=(dpkg-dev xz-utils)
	for p in "${packages[@]}"; do
		st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) || st=
		case "$st" in *" ok installed") ;; *) missing+=("$p") ;; esac
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	echo "arm64-tests: apt-get install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q > /dev/null || echo "arm64-tests: warning: apt-get update reported errors"
	# No fsync per file: dpkg runs under emulation, and the root is scratch.
	if ! apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-unsafe-io \
		"${missing[@]}" > .deps/arm64-apt.log 2>&1
	then
		tail -5 .deps/arm64-apt.log
		return 1
	fi
}

in_root_build() {
	# The DPDK source tree (apt-get source when none was given).
	bash scripts/setup.sh --no-apt --no-build || return 1
	if [ -f build/build.ninja ] && [ "$(cat .deps/arm64-build-mode 2>/dev/null)" = native ]
	then
		meson setup --reconfigure build $(build_opts) \
			"-Ddpdk_src=${NET_MANA_DPDK_SRC:-}" > .deps/arm64-setup.log 2>&1
	else
		rm -rf build
		meson setup build $(build_opts) "-Ddpdk_src=${NET_MANA_DPDK_SRC:-}" \
			> .deps/arm64-setup.log 2>&1 && echo native > .deps/arm64-build-mode
	fi || { tail -20 .deps/arm64-setup.log; return 1; }
	nice ninja -C build -j 2 > .deps/arm64-build.log 2>&1 ||
		{ grep -E -m 20 'error|warning' .deps/arm64-build.log; return 1; }
}

in_root_test() {
	local plat

	plat=$(. /etc/os-release && echo "${ID}${VERSION_ID%%.*}")
	rm -f build/meson-logs/testlog.json
	if [ -f .deps/arm64-built ]; then
		echo "arm64-tests: meson test --suite unit --suite component --suite arm64"
		nice meson test -C build --no-rebuild --suite unit --suite component --suite arm64 \
			--timeout-multiplier "${NET_MANA_ARM64_TIMEOUT:-6}" --num-processes 2 \
			--print-errorlogs > .deps/arm64-test.log 2>&1
		# the tests that did not pass, as meson printed them
		grep -E '^ *[0-9]+/[0-9]+ ' .deps/arm64-test.log | grep -v -E ' (OK|SKIP) ' || true
	fi
	local err_args=() e
	while IFS= read -r e; do
		err_args+=(--error "$e")
	done < <(cat .deps/arm64-errors 2>/dev/null)
	python3 scripts/test-counts.py --problems "arm64-tests:" "${err_args[@]}" \
		".deps/counts-$plat" "=build/meson-logs/testlog.json"
}

if [ -n "$step" ]; then
	cd "$repo" || exit 1
	mkdir -p .deps
	case "$step" in
	packages-*)
		rm -f .deps/arm64-errors .deps/arm64-built
		in_root_packages "${step#packages-}" || echo "apt-get install" >> .deps/arm64-errors
		;;
	build)
		[ -s .deps/arm64-errors ] || { in_root_build && touch .deps/arm64-built; } ||
			echo "build (native)" >> .deps/arm64-errors
		;;
	test) in_root_test ;;
	esac
	exit 0
fi

# ---- On this machine -----------------------------------------------------------

root=${NET_MANA_ARM64_ROOT:-$repo/.deps/$name-root}
copy=$root/root/net_mana
src=${NET_MANA_ARM64_DPDK_SRC:-}
if [ -z "$src" ] && [ "$suite" = bookworm ] && [ -f "$repo/.deps/dpdk-src/VERSION" ] &&
	grep -q '^22\.11\.' "$repo/.deps/dpdk-src/VERSION"; then
	src=$repo/.deps/dpdk-src
fi
if [ -n "$src" ] && [[ "$(cat "$src/VERSION" 2>/dev/null)" != "$dpdk_ver".* ]]; then
	echo "arm64-tests: $src is not a DPDK $dpdk_ver tree ($name has DPDK $dpdk_ver)" >&2
	exit 2
fi
if [ -z "$mode" ]; then
	mode=native
	if [ -n "$src" ] && ! command -v aarch64-linux-gnu-gcc > /dev/null; then
		echo "arm64-tests: apt-get install gcc-aarch64-linux-gnu (the cross build)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			gcc-aarch64-linux-gnu > /dev/null 2>&1 || true
	fi
	if command -v aarch64-linux-gnu-gcc > /dev/null && [ -n "$src" ]; then
		mode=cross
	fi
fi
[ "$mode" = native ] || [ -n "$src" ] ||
	{ echo "arm64-tests: --cross needs a DPDK $dpdk_ver tree (NET_MANA_ARM64_DPDK_SRC)" >&2; exit 2; }

in_root() {	# in_root <step> [debian-root.sh options]
	local s=$1

	shift
	bash "$repo/scripts/debian-root.sh" --suite "$suite" --arch arm64 --name "$name" \
		--root "$root" ${src:+--dpdk-src "$src"} "$@" -- \
		bash scripts/arm64-tests.sh --in-root "$s"
}

# The cross build: aarch64-linux-gnu-gcc with the root as sysroot, in the
# root's copy of the tree, so that the root runs it at the same path
# (debian-root.sh --same-path). The configure step runs aarch64 test programs
# here: qemu takes the root's libraries (QEMU_LD_PREFIX). Debian's cross gcc
# also searches its own arm64 C library (libc6-dev-arm64-cross of this
# machine's release: glibc 2.36), so the root's libraries come first (-L,
# -rpath-link): else a newer root's do not link (Debian 13: glibc 2.41, its
# DPDK needs __isoc23_strtoull@GLIBC_2.38). The build is configured by the
# root's own meson (pure Python, run here by this machine's python3): the
# root's `meson test` refuses a build directory of another meson version
# (Debian 12 has 1.0, Debian 13 1.7).
cross_build() {
	local cf=$copy/.deps/arm64-cross.ini lib=$root/usr/lib/aarch64-linux-gnu stamp
	local rmeson=$copy/.deps/root-meson

	mkdir -p "$rmeson"
	cp "$root/usr/bin/meson" "$rmeson/meson" &&
		ln -sfn "$root/usr/lib/python3/dist-packages/mesonbuild" "$rmeson/mesonbuild" ||
		return 1

	cat > "$cf" <<-EOF
	[binaries]
	c = 'aarch64-linux-gnu-gcc'
	ar = 'aarch64-linux-gnu-ar'
	strip = 'aarch64-linux-gnu-strip'
	pkgconfig = 'pkg-config'

	[properties]
	sys_root = '$root'
	pkg_config_libdir = ['$root/usr/lib/aarch64-linux-gnu/pkgconfig', '$root/usr/share/pkgconfig']
	needs_exe_wrapper = false

	[built-in options]
	c_args = ['--sysroot=$root']
	c_link_args = ['--sysroot=$root', '-L$lib', '-L$root/lib/aarch64-linux-gnu', '-Wl,-rpath-link,$lib']

	[host_machine]
	system = 'linux'
	cpu_family = 'aarch64'
	cpu = 'armv8-a'
	endian = 'little'
	EOF
	# meson reads a cross file at the first setup only: another one, another build.
	stamp="cross $(sha256sum < "$cf" | cut -c1-16) meson $(python3 "$rmeson/meson" --version)"
	(
		cd "$copy" || exit 1
		export QEMU_LD_PREFIX=$root
		if [ ! -f build/build.ninja ] || [ "$(cat .deps/arm64-build-mode 2>/dev/null)" != "$stamp" ]
		then
			rm -rf build
			python3 "$rmeson/meson" setup build --cross-file "$cf" $(build_opts) \
				"-Ddpdk_src=$src" > .deps/arm64-setup.log 2>&1 &&
				echo "$stamp" > .deps/arm64-build-mode
		else
			python3 "$rmeson/meson" setup --reconfigure build $(build_opts) \
				"-Ddpdk_src=$src" > .deps/arm64-setup.log 2>&1
		fi || { tail -20 .deps/arm64-setup.log; exit 1; }
		nice ninja -C build > .deps/arm64-build.log 2>&1 ||
			{ grep -E -m 20 'error|warning' .deps/arm64-build.log; exit 1; }
	)
}

start=$SECONDS
t0=$SECONDS
echo "arm64-tests: $name, build: $mode"
in_root "packages-$mode"
rc=$?
t_pkg=$((SECONDS - t0))
if [ "$prepare" = 1 ]; then
	[ "$rc" != 0 ] || [ ! -s "$copy/.deps/arm64-errors" ] || rc=1
	echo "arm64-tests: $name: root and packages $t_pkg s (status $rc)"
	exit "$rc"
fi
t0=$SECONDS
if [ "$rc" = 0 ]; then
	if [ "$mode" = native ]; then
		in_root build
		rc=$?
	elif [ -s "$copy/.deps/arm64-errors" ]; then
		:
	elif cross_build; then
		touch "$copy/.deps/arm64-built"
	else
		echo "build (cross)" >> "$copy/.deps/arm64-errors"
	fi
fi
t_build=$((SECONDS - t0))
t0=$SECONDS
tmp_counts=$(mktemp)
if [ "$rc" = 0 ]; then
	in_root test --same-path --counts "$tmp_counts"
	rc=$?
fi
t_test=$((SECONDS - t0))
if [ "$rc" = 77 ]; then
	echo "0 0 1" > "$tmp_counts"
elif [ ! -s "$tmp_counts" ]; then
	echo "arm64-tests: the root's run ended with status $rc and no counts"
	echo "0 1 0" > "$tmp_counts"
fi
read -r p f s < "$tmp_counts"
echo "arm64-tests: $name took $((SECONDS - start)) s: root and packages $t_pkg s," \
	"build ($mode) $t_build s, tests $t_test s"
# With --counts the caller prints the line (run-tests.sh's summary).
if [ -n "$counts" ]; then
	cp "$tmp_counts" "$counts"
else
	echo "$name: $p passed, $f failed, $s skipped"
fi
rm -f "$tmp_counts"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
