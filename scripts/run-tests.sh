#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# README command 2: set the machine up and run every test. Run as root.
#   build       normal build: every suite (meson test)
#   build-asan  AddressSanitizer + UndefinedBehaviorSanitizer: suites 'unit' and
#               'component' (the driver on the software device, EAL --no-huge)
#   build-fuzz  clang, libFuzzer + ASan + UBSan (-Dfuzz=true): suite 'fuzz', each
#               fuzzer for NET_MANA_FUZZ_TIME seconds (default 20) from its seeds
#               (the driver's fuzzers SKIP where the driver is not built)
#   build-nomodel  -Dmodel=false, the build for Azure hardware: suite
#               'model_less' (no software-device code in the plugin; the PCI
#               and ibdev= paths over the replacement libibverbs of 'build')
# then, on Debian 12, build, build-nomodel and their suites again in a
# Debian 13 root (DPDK 24.11, rdma-core 56) that scripts/debian13-root.sh
# makes with debootstrap (the sanitizer and fuzzing builds check the same
# code on Debian 12, and leaving them out there saves CI about 5 minutes). The
# driver there needs a DPDK 24.11 tree for its SDK headers (the archive may
# not serve Debian 13's dpdk source package): NET_MANA_DEBIAN13_DPDK_SRC, else
# ../shared/dpdk/dpdk-24.11.tar.xz beside the repository (as CI provides it),
# checked against ../shared/dpdk/SHA256SUMS (a mismatch: one line, a failure)
# and unpacked outside the repository, to /var/tmp/net_mana-dpdk/dpdk-24.11
# (reused while intact). With neither, the root runs what needs no driver
# and the driver's tests are one SKIP line.
# Then the suites 'unit', 'component' and 'arm64' in a Debian 12 arm64 root
# and in a Debian 13 arm64 root (its driver on the same DPDK 24.11 tree)
# under qemu-user emulation (scripts/arm64-tests.sh), and, where
# ../shared/dpdk/dpdk-23.11.tar.xz is beside the repository, 'unit',
# 'component' and 'testpmd' against DPDK 23.11 built from that tree into a
# prefix (scripts/dpdk-from-source.sh).
#
# Output: one line per platform, "debian12: N passed, N failed" and
# "debian13: N passed, N failed, N skipped", "debian12-arm64: N passed,
# N failed, N skipped", "debian13-arm64: ...", "source-dpdk23.11: ...", then
# the total "N passed,
# N failed[, N skipped]" as the last line. Exit status 0 only if nothing
# failed and at least one test passed.
#
# Usage: scripts/run-tests.sh [--no-debian13] [setup.sh options, e.g. --no-apt]
#   --no-debian13   no Debian 13 roots, x86-64 and arm64 (also NET_MANA_DEBIAN13=0)
#   --no-arm64      no arm64 roots, Debian 12 and 13 (also NET_MANA_ARM64=0)
#   --no-source     no DPDK 23.11 built from source (also NET_MANA_SOURCE_STAGE=0)
#   --no-sanitizers no build-asan and build-fuzz (the Debian 13 root's run)
# Environment:
#   NET_MANA_DPDK_SRC           DPDK source tree of this machine's DPDK (setup.sh)
#   NET_MANA_DEBIAN13_DPDK_SRC  a DPDK 24.11 source tree for the Debian 13 root
#                               (default: ../shared/dpdk/dpdk-24.11.tar.xz, above)
#   NET_MANA_DPDK_UNPACK        where that archive is unpacked (/var/tmp/net_mana-dpdk)
#   NET_MANA_DEBIAN13_ROOT      where the root is made (default .deps/debian13-root)

set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 1

debian13=${NET_MANA_DEBIAN13:-1}
arm64=${NET_MANA_ARM64:-1}
source_dpdk=${NET_MANA_SOURCE_STAGE:-1}
sanitizers=1
setup_args=()
for a in "$@"; do
	case "$a" in
	--no-debian13) debian13=0 ;;
	--no-arm64) arm64=0 ;;
	--no-source) source_dpdk=0 ;;
	--no-sanitizers) sanitizers=0 ;;
	*) setup_args+=("$a") ;;
	esac
done

# debian12, debian13, ...: the platform these tests run on.
platform() {
	local ID= VERSION_ID=
	# shellcheck disable=SC1091
	. /etc/os-release
	echo "${ID}${VERSION_ID%%.*}"
}
plat=$(platform)

errors=()
skips=()

if ! bash scripts/setup.sh "${setup_args[@]}"; then
	echo "run-tests: scripts/setup.sh failed" >&2
	errors+=("scripts/setup.sh")
fi
if [ -f .deps/no-driver ]; then
	skips+=("driver build and its tests: $(cat .deps/no-driver)")
fi

# ---- The DPDK 24.11 tree of the Debian 13 roots ------------------------------
# The DPDK 24.11 tree of the root's driver-SDK headers when the user gave
# none: ../shared/dpdk/dpdk-24.11.tar.xz beside the repository (CI), checked
# against ../shared/dpdk/SHA256SUMS and unpacked outside the repository, to
# NET_MANA_DPDK_UNPACK (default /var/tmp/net_mana-dpdk)/dpdk-24.11. Reused
# while its stamp names the archive's checksum and every file still matches
# the archive (tar --compare). Prints the tree; one line and 1 on error.
debian13_shared_src() {
	local dir=$repo/../shared/dpdk name=dpdk-24.11.tar.xz
	local base=${NET_MANA_DPDK_UNPACK:-/var/tmp/net_mana-dpdk} sum want tree
	tree=$base/${name%.tar.xz}
	want=$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1; exit }' \
		"$dir/SHA256SUMS" 2>/dev/null) || want=
	if [ -z "$want" ]; then
		echo "run-tests: debian13: $dir/SHA256SUMS has no entry for $name: not used" >&2
		return 1
	fi
	sum=$(sha256sum < "$dir/$name" | cut -d' ' -f1)
	if [ "$sum" != "$want" ]; then
		echo "run-tests: debian13: $dir/$name does not match SHA256SUMS ($sum," \
			"want $want): not used" >&2
		return 1
	fi
	mkdir -p "$base" || return 1
	# One unpacker at a time; the tree appears whole or not at all.
	if ! (
		flock 9
		if [ "$(cat "$tree/.net-mana-sha256" 2>/dev/null)" = "$sum" ] &&
			tar -C "$base" -dJf "$dir/$name" > /dev/null 2>&1; then
			echo "run-tests: debian13: DPDK 24.11 tree $tree (already unpacked)" >&2
			exit 0
		fi
		rm -rf "$base/.unpack" "$tree" && mkdir "$base/.unpack" &&
			tar -C "$base/.unpack" -xJf "$dir/$name" &&
			echo "$sum" > "$base/.unpack/${tree##*/}/.net-mana-sha256" &&
			mv "$base/.unpack/${tree##*/}" "$tree" && rmdir "$base/.unpack" &&
			echo "run-tests: debian13: DPDK 24.11 tree unpacked to $tree" >&2
	) 9> "$base/.lock"; then
		echo "run-tests: debian13: cannot unpack $dir/$name to $tree" >&2
		return 1
	fi
	echo "$tree"
}

d13_src=${NET_MANA_DEBIAN13_DPDK_SRC:-}
d13_refused=0
if [ "$plat" = debian12 ] && [ "$debian13" = 1 ] && [ -z "$d13_src" ] &&
	[ -e "$repo/../shared/dpdk/dpdk-24.11.tar.xz" ] && ! d13_src=$(debian13_shared_src); then
	d13_refused=1	# the line debian13_shared_src printed says why
fi

# ---- The other platforms' roots, made while this machine's tests run -----------
# Making a root and installing its packages is mostly waiting on the archive
# and dpkg under emulation (from scratch in CI, one after the other: the
# Debian 12 arm64 root 221 s, the Debian 13 arm64 root 664 s).
# One background job makes them one after the other while this machine's
# builds and tests run; each stage below waits for it. A step that failed
# here is retried by its stage, which reports it.
prep_pid=
prep_log=.deps/prepare-roots.log
if [ "$plat" = debian12 ] && [ ${#errors[@]} -eq 0 ] &&
	{ [ "$debian13" = 1 ] || [ "$arm64" = 1 ]; }; then
	mkdir -p .deps
	echo "run-tests: making the other platforms' roots in the background ($prep_log)"
	(
		t=$SECONDS
		if [ "$debian13" = 1 ] && [ "$d13_refused" = 0 ]; then
			NET_MANA_DEBIAN13_DPDK_SRC=$d13_src bash scripts/debian13-root.sh -- \
				bash scripts/setup.sh --no-build --allow-no-driver
			echo "run-tests: prepare: debian13 root: status $?, $((SECONDS - t)) s"
		fi
		if [ "$arm64" = 1 ]; then
			t=$SECONDS
			bash scripts/arm64-tests.sh --prepare
			echo "run-tests: prepare: debian12-arm64 root: status $?, $((SECONDS - t)) s"
			if [ "$debian13" = 1 ] && [ -n "$d13_src" ]; then
				t=$SECONDS
				NET_MANA_ARM64_DPDK_SRC=$d13_src bash scripts/arm64-tests.sh \
					--suite trixie --prepare
				echo "run-tests: prepare: debian13-arm64 root: status $?," \
					"$((SECONDS - t)) s"
			fi
		fi
	) > "$prep_log" 2>&1 < /dev/null &
	prep_pid=$!
	prep_start=$SECONDS
fi

# prepared: wait for the background job (once) and print its log.
prepared() {
	[ -n "$prep_pid" ] || return 0
	wait "$prep_pid"
	prep_pid=
	sed 's/^/  | /' "$prep_log"
	echo "run-tests: the roots were made in $((SECONDS - prep_start)) s" \
		"beside this machine's tests"
}

# suite_files DIR SUITE...: the files the tests of these suites of build DIR
# depend on (meson's introspection), relative to DIR. The sanitizer and
# fuzzing builds compile only those (with --no-rebuild for meson test): not
# dpdk-testpmd-mana, the examples or DPDK's own net/mana, which only the
# suites of 'build' run (in build-asan 136 of 227 build steps, in
# build-fuzz 43 of 121).
suite_files() {
	python3 - "$@" <<'PY'
import json
import os
import sys

bdir, suites = sys.argv[1], set(sys.argv[2:])
info = os.path.join(bdir, "meson-info")
with open(os.path.join(info, "intro-tests.json"), encoding="utf-8") as f:
    tests = json.load(f)
with open(os.path.join(info, "intro-targets.json"), encoding="utf-8") as f:
    files = {t["id"]: t["filename"] for t in json.load(f)}
top = os.path.abspath(bdir)
need = set()
for t in tests:
    if suites & {s.split(":")[-1] for s in t["suite"]}:
        for d in t["depends"]:
            need.update(os.path.relpath(p, top) for p in files.get(d, []))
print("\n".join(sorted(need)))
PY
}

# ninja_suites DIR SUITE...: build what those suites need (everything when
# the introspection names nothing).
ninja_suites() {
	local dir=$1 files
	shift
	files=$(suite_files "$dir" "$@") || return 1
	# shellcheck disable=SC2086	# one file name a line, no blanks in them
	ninja -C "$dir" $files
}

# ---- Sanitizer build ----------------------------------------------------
# b_lundef=false: with sanitizers, shared objects keep undefined references
# to the runtime. The driver options follow the ones setup.sh chose.
asan_opts=("-Db_sanitize=address,undefined" -Db_lundef=false)
asan_suites=(--suite unit)
asan_names=(unit)
if [ -f .deps/no-driver ]; then
	asan_opts+=(-Ddriver=false)
else
	asan_opts+=(-Ddriver=true "-Ddpdk_src=${NET_MANA_DPDK_SRC:-}")
	asan_suites+=(--suite component)
	asan_names+=(component)
fi
if [ ${#errors[@]} -eq 0 ] && [ "$sanitizers" = 1 ]; then
	if [ -f build-asan/build.ninja ]; then
		meson setup --reconfigure build-asan "${asan_opts[@]}" ||
			errors+=("configure build-asan")
	else
		meson setup build-asan "${asan_opts[@]}" || errors+=("configure build-asan")
	fi
	ninja_suites build-asan "${asan_names[@]}" || errors+=("build build-asan")
fi

# ---- Fuzzers (test/fuzz) ---------------------------------------------------
# Their own build: clang, every object instrumented for libFuzzer.
fuzz_opts=(-Dfuzz=true "-Db_sanitize=address,undefined" -Db_lundef=false -Dtests=false
	-Dexamples=false)
if [ -f .deps/no-driver ]; then
	fuzz_opts+=(-Ddriver=false)
else
	fuzz_opts+=(-Ddriver=true "-Ddpdk_src=${NET_MANA_DPDK_SRC:-}")
fi
if [ ${#errors[@]} -eq 0 ] && [ "$sanitizers" = 1 ]; then
	if ! command -v clang > /dev/null; then
		errors+=("build-fuzz: no clang (scripts/setup.sh installs clang libclang-rt-dev)")
	elif [ -f build-fuzz/build.ninja ]; then
		meson setup --reconfigure build-fuzz "${fuzz_opts[@]}" ||
			errors+=("configure build-fuzz")
	else
		CC=clang meson setup build-fuzz "${fuzz_opts[@]}" || errors+=("configure build-fuzz")
	fi
	[ ! -f build-fuzz/build.ninja ] || ninja_suites build-fuzz fuzz ||
		errors+=("build build-fuzz")
fi

# ---- Build without the software device ------------------------------------
nomodel=0
if [ ${#errors[@]} -eq 0 ] && [ ! -f .deps/no-driver ]; then
	nomodel=1
	nomodel_opts=(-Dmodel=false "-Ddpdk_src=${NET_MANA_DPDK_SRC:-}")
	if [ -f build-nomodel/build.ninja ]; then
		meson setup --reconfigure build-nomodel "${nomodel_opts[@]}" ||
			errors+=("configure build-nomodel")
	else
		meson setup build-nomodel "${nomodel_opts[@]}" || errors+=("configure build-nomodel")
	fi
	ninja -C build-nomodel || errors+=("build build-nomodel")
fi

# ---- Tests --------------------------------------------------------------
# A run that never starts must not leave an old log to be counted.
rm -f build/meson-logs/testlog.json build-asan/meson-logs/testlog.json \
	build-fuzz/meson-logs/testlog.json build-nomodel/meson-logs/testlog.json

if [ ${#errors[@]} -eq 0 ]; then
	echo "run-tests: meson test -C build (all suites)"
	meson test -C build --print-errorlogs || true

	if [ "$sanitizers" = 1 ]; then
		echo "run-tests: meson test -C build-asan ${asan_suites[*]} (ASan + UBSan)"
		ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
			meson test -C build-asan --no-rebuild "${asan_suites[@]}" \
				--print-errorlogs || true

		echo "run-tests: meson test -C build-fuzz --suite fuzz (libFuzzer)"
		meson test -C build-fuzz --no-rebuild --suite fuzz --print-errorlogs || true
	fi

	if [ "$nomodel" = 1 ]; then
		echo "run-tests: meson test -C build-nomodel (-Dmodel=false)"
		NET_MANA_IBVM_DIR=$repo/build/lib/ibverbs_model \
			meson test -C build-nomodel --print-errorlogs || true
	fi
fi

# ---- This platform's counts ------------------------------------------------
# "passed failed skipped" in .deps/counts-<platform>; the failures are listed.
mkdir -p .deps
runs=(build=build/meson-logs/testlog.json)
[ "$sanitizers" = 0 ] || runs+=(build-asan=build-asan/meson-logs/testlog.json
	build-fuzz=build-fuzz/meson-logs/testlog.json)
[ "$nomodel" = 0 ] || runs+=(build-nomodel=build-nomodel/meson-logs/testlog.json)
err_args=()
for e in "${errors[@]}"; do
	err_args+=(--error "$e")
done
python3 scripts/test-counts.py --problems "run-tests: $plat:" --log-after-error \
	--skips "${#skips[@]}" "${err_args[@]}" ".deps/counts-$plat" "${runs[@]}"
for s in "${skips[@]}"; do
	echo "SKIP: $plat: $s"
done
totals=(".deps/counts-$plat")
echo "run-tests: $plat took $SECONDS s"

# ---- Debian 13 root ----------------------------------------------------------

prepared
if [ "$plat" = debian12 ] && [ "$debian13" = 1 ]; then
	echo "run-tests: debian13: build and build-nomodel's suites in a Debian 13 root" \
		"(scripts/debian13-root.sh)"
	rm -f .deps/counts-debian13
	d13_start=$SECONDS
	if [ "$d13_refused" = 1 ]; then
		echo "0 1 0" > .deps/counts-debian13
	else
		NET_MANA_DEBIAN13_DPDK_SRC=$d13_src \
			bash scripts/debian13-root.sh --counts .deps/counts-debian13 -- \
			bash scripts/run-tests.sh --no-debian13 --no-sanitizers --allow-no-driver
		rc=$?
		if [ ! -s .deps/counts-debian13 ]; then
			echo "run-tests: debian13: the root's run ended with status $rc" \
				"and no counts"
			echo "0 1 0" > .deps/counts-debian13
		fi
	fi
	echo "run-tests: debian13 took $((SECONDS - d13_start)) s"
	totals+=(.deps/counts-debian13)
fi

# ---- Debian 12 arm64 root (qemu-user) -------------------------------------------
# Its own line and counts; where qemu-user cannot run here, one SKIP line
# and one skip counted.
if [ "$plat" = debian12 ] && [ "$arm64" = 1 ]; then
	echo "run-tests: debian12-arm64: unit, component, arm64 suites under qemu-user" \
		"(scripts/arm64-tests.sh)"
	rm -f .deps/counts-debian12-arm64
	arm64_start=$SECONDS
	bash scripts/arm64-tests.sh --counts .deps/counts-debian12-arm64
	[ -s .deps/counts-debian12-arm64 ] || echo "0 1 0" > .deps/counts-debian12-arm64
	echo "run-tests: debian12-arm64 took $((SECONDS - arm64_start)) s"
	totals+=(.deps/counts-debian12-arm64)
fi

# ---- Debian 13 arm64 root (qemu-user) -------------------------------------------
# The driver on the DPDK 24.11 tree of the Debian 13 stage; without one, a
# SKIP line (Debian 13's dpdk source package may not be served).
if [ "$plat" = debian12 ] && [ "$arm64" = 1 ] && [ "$debian13" = 1 ]; then
	rm -f .deps/counts-debian13-arm64
	arm64_start=$SECONDS
	if [ "$d13_refused" = 1 ]; then
		echo "0 1 0" > .deps/counts-debian13-arm64
	elif [ -z "$d13_src" ]; then
		echo "SKIP: debian13-arm64: no DPDK 24.11 tree (NET_MANA_DEBIAN13_DPDK_SRC or" \
			"../shared/dpdk/dpdk-24.11.tar.xz)"
		echo "0 0 1" > .deps/counts-debian13-arm64
	else
		echo "run-tests: debian13-arm64: unit, component, arm64 suites under qemu-user" \
			"(scripts/arm64-tests.sh --suite trixie)"
		NET_MANA_ARM64_DPDK_SRC=$d13_src bash scripts/arm64-tests.sh --suite trixie \
			--counts .deps/counts-debian13-arm64
	fi
	[ -s .deps/counts-debian13-arm64 ] || echo "0 1 0" > .deps/counts-debian13-arm64
	echo "run-tests: debian13-arm64 took $((SECONDS - arm64_start)) s"
	totals+=(.deps/counts-debian13-arm64)
fi

# ---- DPDK 23.11 built from source (scripts/dpdk-from-source.sh) ---------------
# Optional: only where ../shared/dpdk holds the tarball (checksum checked
# against the SHA256SUMS beside it; NET_MANA_SOURCE_DPDK names another).
# A subset, to fit CI's time: suites unit, component and testpmd.
src_tar=${NET_MANA_SOURCE_DPDK:-$repo/../shared/dpdk/dpdk-23.11.tar.xz}
if [ "$plat" != debian12 ] || [ "$source_dpdk" = 0 ]; then
	:	# the host's run only (not inside the roots), unless left out
elif [ -f "$src_tar" ]; then
	rm -f .deps/counts-source-dpdk23.11
	src_start=$SECONDS
	bash scripts/dpdk-from-source.sh --sums "${src_tar%/*}/SHA256SUMS" --reuse \
		--suites unit,component,testpmd --counts .deps/counts-source-dpdk23.11 \
		--prefix /opt/net_mana-dpdk23.11 "$src_tar" /var/tmp/net_mana-dpdk23.11
	[ -s .deps/counts-source-dpdk23.11 ] || echo "0 1 0" > .deps/counts-source-dpdk23.11
	echo "run-tests: source-dpdk23.11 took $((SECONDS - src_start)) s"
	totals+=(.deps/counts-source-dpdk23.11)
else
	echo "SKIP: source-dpdk23.11: no ${src_tar#"$repo"/} (DPDK built from source)"
fi

# ---- Summary: one line per platform, then the total ---------------------------
for c in "${totals[@]}"; do
	read -r p f s < "$c"
	name=${c##*/counts-}
	line="$name: $p passed, $f failed"
	[ "$s" -eq 0 ] && [ "$name" = debian12 ] || line+=", $s skipped"
	echo "$line"
done
read -r p f s < <(cat "${totals[@]}" | awk '{ p += $1; f += $2; s += $3 }
	END { print p + 0, f + 0, s + 0 }')
line="$p passed, $f failed"
[ "$s" -eq 0 ] || line+=", $s skipped"
echo "$line"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
