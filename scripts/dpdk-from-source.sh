#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# net_mana against a DPDK built from source and installed into a prefix, the
# way a user without a distribution DPDK works (doc/user_guide.md, "DPDK
# built from source"). Nothing is written into the repository:
#   1. unpack the tarball (or take the tree) under WORKDIR;
#   2. build DPDK with the driver SDK and only what the tests use (bus/pci,
#      bus/vdev, mempool/ring, net/null, net/ring, net/memif, net/pcap;
#      dpdk-testpmd, dpdk-proc-info, dpdk-pdump; the libraries of l3fwd);
#   3. meson install it into the prefix (--prefix, default WORKDIR/prefix);
#   4. configure net_mana with PKG_CONFIG_PATH alone (no -Ddpdk_src, no
#      Debian DPDK): a check that the installed SDK is enough;
#   5. build net_mana (WORKDIR/net_mana), the tree given as -Ddpdk_src only
#      for what is compiled from DPDK's sources (dpdk-testpmd-mana, DPDK's
#      own net/mana of the compat tests);
#   6. meson test (all suites, or --suites), with the prefix's dpdk-testpmd;
#   7. meson install of net_mana into the prefix: the plugin in its pmds
#      directory, autoloaded by its dpdk-testpmd (counted as one test); then
#      uninstalled, so that the prefix can serve the next run (--reuse).
# Each step's wall time is printed; the last line is
# "source-dpdk<X.Y>: N passed, N failed[, N skipped]".
#
# Usage: scripts/dpdk-from-source.sh [options] <dpdk tarball or tree> <workdir>
#   --prefix DIR     install DPDK there (default WORKDIR/prefix). EAL loads no
#                    plugin from below a world-writable directory (/tmp,
#                    /var/tmp): with WORKDIR there, give a prefix elsewhere
#   --sums FILE      check the tarball against this SHA256SUMS first
#   --suites LIST    comma-separated meson test suites (default: all)
#   --counts FILE    write "passed failed skipped" there
#   --name NAME      the summary line's name (default source-dpdk<X.Y>)
#   --reuse          keep an installed prefix of the same tarball (stamp)
#   --jobs N         ninja -j (default 2)
# rdma-core (libibverbs-dev, ibverbs-providers), libnuma-dev, libpcap-dev,
# meson, ninja and python3-pyelftools come from the distribution.

set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sums=
prefix=
suites=
counts=
name=
reuse=0
jobs=2

log() { printf 'from-source: %s\n' "$*"; }
die() { printf 'from-source: error: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) prefix=$2; shift ;;
	--sums) sums=$2; shift ;;
	--suites) suites=$2; shift ;;
	--counts) counts=$2; shift ;;
	--name) name=$2; shift ;;
	--reuse) reuse=1 ;;
	--jobs) jobs=$2; shift ;;
	-h|--help) sed -n '2,36p' "${BASH_SOURCE[0]}"; exit 0 ;;
	--*) die "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 2 ] || die "usage: $0 [options] <dpdk tarball or tree> <workdir>"
input=$(realpath "$1")
work=$(realpath -m "$2")
prefix=$(realpath -m "${prefix:-$work/prefix}")
for d in "$work" "$prefix"; do
	case "$d/" in
	"$repo"/*) die "$d is inside the repository: DPDK is never built there" ;;
	esac
done
# EAL refuses its own plugin directory below a world-writable one ("Cannot
# init plugins"): every DPDK program of that prefix would fail to start.
d=$prefix
while [ "$d" != / ]; do
	d=$(dirname "$d")
	if [ -d "$d" ] && [ -n "$(find "$d" -maxdepth 0 -perm -0002)" ]; then
		die "prefix $prefix: $d is world-writable, and EAL loads no plugin" \
			"from below it: give --prefix elsewhere (e.g. /opt/dpdk-<version>)"
	fi
done

# A run that stops early still leaves counts: one failure, the step that stopped.
fail_counts() {
	[ -z "$counts" ] || echo "0 1 0" > "$counts"
	die "$1"
}

# step NAME COMMAND...: run it, its output in WORKDIR/NAME.log (the end of it
# shown on failure); print and keep its wall time.
times=()
step() {
	local what=$1 t0=$SECONDS rc
	shift
	log "$what: $*"
	"$@" > "$work/$what.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || tail -30 "$work/$what.log"
	times+=("$what $((SECONDS - t0)) s")
	log "$what took $((SECONDS - t0)) s (status $rc)"
	return $rc
}

mkdir -p "$work" || die "cannot create $work"
src=$work/src
dpdk_build=$work/dpdk-build
nm_build=$work/net_mana

# ---- 1. Source tree ----------------------------------------------------------
if [ -d "$input" ]; then
	tree=$input
	stamp_id="tree:$input"
else
	[ -f "$input" ] || fail_counts "$input: no such file"
	if [ -n "$sums" ]; then
		[ -f "$sums" ] || fail_counts "$sums: no such file"
		# The tarball's line of SHA256SUMS, checked where the tarball is.
		(cd "$(dirname "$input")" && grep -E " \*?$(basename "$input")\$" "$sums" |
			sha256sum -c --strict -) || fail_counts "checksum of $input does not match $sums"
	fi
	stamp_id="tar:$(sha256sum < "$input" | cut -d' ' -f1)"
	if [ ! -f "$src/.stamp" ] || [ "$(cat "$src/.stamp")" != "$stamp_id" ]; then
		rm -rf "$src"
		mkdir -p "$src"
		step unpack tar -xf "$input" -C "$src" --strip-components=1 ||
			fail_counts "unpacking $input failed"
		echo "$stamp_id" > "$src/.stamp"
	fi
	tree=$src
fi
[ -f "$tree/VERSION" ] || fail_counts "$tree is not a DPDK source tree (no VERSION)"
ver=$(cat "$tree/VERSION")
branch=$(cut -d. -f1-2 <<< "$ver")
name=${name:-source-dpdk$branch}
log "DPDK $ver from $input, work directory $work"

# ---- 2, 3. DPDK build and install ----------------------------------------------
dpdk_opts=(
	--prefix="$prefix" --buildtype=release
	-Denable_driver_sdk=true
	# DPDK's default links its applications statically: a plugin linked to
	# the shared libraries then brings a second EAL into dpdk-testpmd
	# ("RTE_RING tailq is already registered", PANIC). Distributions build
	# shared, as here.
	-Ddefault_library=shared
	-Denable_drivers=bus/pci,bus/vdev,mempool/ring,net/null,net/ring,net/memif,net/pcap
	-Denable_apps=test-pmd,proc-info,pdump
	# testpmd's optional features and l3fwd's (the examples suite), with
	# what they depend on; the rest of DPDK's libraries stay out.
	-Denable_libs=acl,bitratestats,bpf,cryptodev,dmadev,eventdev,fib,gro,gso,latencystats,lpm,metrics,pcapng,pdump,rib,security,timer
	-Denable_docs=false -Dtests=false -Dexamples=
)
dpdk_id="$stamp_id $(echo "${dpdk_opts[*]}" | sha256sum | cut -c1-16)"
if [ "$reuse" = 1 ] && [ "$(cat "$prefix/.stamp" 2>/dev/null)" = "$dpdk_id" ]; then
	log "DPDK $ver already installed in $prefix (--reuse)"
else
	# A build of the same source is set up again with these options (ninja
	# then redoes only what they change); the prefix is installed afresh.
	if [ "$(cat "$dpdk_build/.net-mana-src" 2>/dev/null)" = "$stamp_id" ]; then
		setup_mode=(--reconfigure)
	else
		rm -rf "$dpdk_build"
		setup_mode=()
	fi
	rm -rf "$prefix"
	# DPDK's build needs python3 with pyelftools (25.11 checks at setup): the
	# distribution's python3-pyelftools, when another python3 (pyenv) is first.
	dpdk_path=$PATH
	if ! python3 -c 'import elftools' 2>/dev/null &&
			/usr/bin/python3 -c 'import elftools' 2>/dev/null; then
		dpdk_path=/usr/bin:$PATH
	fi
	step dpdk-setup env PATH="$dpdk_path" nice meson setup "${setup_mode[@]}" "$dpdk_build" \
		"$tree" "${dpdk_opts[@]}" || fail_counts "DPDK meson setup failed ($work/dpdk-setup.log)"
	echo "$stamp_id" > "$dpdk_build/.net-mana-src"
	step dpdk-build nice ninja -j"$jobs" -C "$dpdk_build" || {
		fail_counts "DPDK build failed ($work/dpdk-build.log)"
	}
	step dpdk-install meson install -C "$dpdk_build" --quiet || {
		fail_counts "DPDK install failed ($work/dpdk-install.log)"
	}
	echo "$dpdk_id" > "$prefix/.stamp"
fi

# ---- The environment a user of the prefix sets --------------------------------
pc=$(find "$prefix" -name libdpdk.pc -path '*/pkgconfig/*' | head -1)
[ -n "$pc" ] || fail_counts "no libdpdk.pc under $prefix"
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH=$(dirname "$pc")
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$prefix/bin:$PATH
log "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
log "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

# ---- 4. net_mana with PKG_CONFIG_PATH alone ----------------------------------------
rm -rf "$work/net_mana-notree"
step net_mana-setup-notree meson setup "$work/net_mana-notree" "$repo" -Ddpdk_src= || {
	fail_counts "net_mana does not configure against $prefix alone"
}
grep -q "driver-SDK headers from *: the installed DPDK" "$work/net_mana-setup-notree.log" ||
	fail_counts "net_mana did not take the SDK headers from $prefix"
rm -rf "$work/net_mana-notree"

# ---- 5. net_mana build ----------------------------------------------
# A build made against another prefix starts again: meson keeps the
# dependencies it found when it reconfigures.
if [ "$(cat "$nm_build/.net-mana-prefix" 2>/dev/null)" != "$prefix $stamp_id" ]; then
	rm -rf "$nm_build"
fi
if [ -f "$nm_build/build.ninja" ]; then
	setup=(meson setup --reconfigure "$nm_build" "$repo" "-Ddpdk_src=$tree")
else
	setup=(meson setup "$nm_build" "$repo" "-Ddpdk_src=$tree")
fi
step net_mana-setup "${setup[@]}" || {
	fail_counts "net_mana meson setup failed ($work/net_mana-setup.log)"
}
echo "$prefix $stamp_id" > "$nm_build/.net-mana-prefix"
step net_mana-build nice ninja -j"$jobs" -C "$nm_build" || {
	fail_counts "net_mana build failed ($work/net_mana-build.log)"
}
# Every DPDK library the plugin needs is the prefix's (never the system's).
for so in $(readelf -d "$nm_build/drivers/net/mana/librte_net_mana.so" |
		sed -n 's/.*NEEDED.*\[\(librte_[^]]*\)\]/\1/p'); do
	[ -e "$libdir/$so" ] || fail_counts "the plugin needs $so, which $libdir lacks"
done

# ---- 6. Tests (before the install: an installed plugin is autoloaded by the
# prefix's dpdk-testpmd, beside the one each test loads from the build) ---------
suite_args=()
IFS=, read -r -a suite_list <<< "$suites"
for s in "${suite_list[@]}"; do
	suite_args+=(--suite "$s")
done
rm -f "$nm_build/meson-logs/testlog.json"
step tests nice meson test -C "$nm_build" --no-rebuild --print-errorlogs "${suite_args[@]}"
grep -E '^ *[0-9]+/[0-9]+ ' "$work/tests.log" | grep -vE ' OK | SKIP ' || true

# ---- 7. net_mana installed into the prefix, autoloaded, uninstalled ------------------
# The prefix's dpdk-testpmd, no -d: EAL loads the plugin from its pmds directory.
autoload_check() {
	local out

	out=$( (sleep 4; echo) | timeout -k 5 60 dpdk-testpmd -l 0-1 --no-huge -m 512 \
		--no-pci --file-prefix "from_source_$$" --vdev 'net_mana0,wire=loop' -- \
		--total-num-mbufs=8192 --forward-mode=io --tx-first 2>&1)
	echo "$out"
	grep -qE 'RX-packets: *[1-9]' <<< "$out"
}
installed=0
if step net_mana-install meson install -C "$nm_build" --no-rebuild --quiet; then
	pmd_dir=$(pkg-config --variable=pmddir libdpdk-net-mana)
	if [ -f "$pmd_dir/librte_pmd_mana.so" ] && step autoload autoload_check; then
		installed=1
		log "meson install: $pmd_dir/librte_pmd_mana.so, autoloaded by $prefix/bin/dpdk-testpmd"
	else
		log "meson install: no plugin in '$pmd_dir' autoloaded ($work/autoload.log)"
	fi
	# Uninstalled again: a later run's tests (--reuse) must not see it.
	xargs -r rm -f < "$nm_build/meson-logs/install-log.txt" 2>/dev/null
	sed -n 's|/[^/]*$||p' "$nm_build/meson-logs/install-log.txt" | sort -u |
		xargs -r rmdir --ignore-fail-on-non-empty 2>/dev/null
fi

read -r passed failed skipped < <(python3 "$repo/scripts/test-counts.py" - \
	"=$nm_build/meson-logs/testlog.json")
# The install and autoload check count as one test.
if [ "$installed" = 1 ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi
[ -z "$counts" ] || echo "$passed $failed $skipped" > "$counts"
log "step times (DPDK $ver): ${times[*]/%/;}"
line="$name: $passed passed, $failed failed"
[ "$skipped" -eq 0 ] || line+=", $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
