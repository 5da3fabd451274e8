#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# The Debian packages as doc/user_guide.md (section 10, "Debian packages")
# builds them: `dpkg-buildpackage -b -us -uc` in a copy of the source tree.
# Checks: the Build-Depends are installed (scripts/setup.sh installs them;
# dpkg-checkbuilddeps), the build succeeds, the two packages hold the files
# debian/*.install names, and nothing that is not packaged was compiled
# (dpdk-testpmd-mana, the benchmarks, the tests, the examples). Prints the
# time the build took.
#
# Usage: package_build.sh <source root> <work dir> <DPDK source tree>
# Exit 77 (skipped) without dpkg-buildpackage.

set -u
SRC=$1
W=$2
DPDK_SRC=$3

command -v dpkg-buildpackage >/dev/null ||
	{ echo "SKIP: dpkg-buildpackage not found (dpkg-dev)"; exit 77; }

fail=0
check() {	# check <what> <condition...>
	local what=$1; shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}

# Build-Depends first: the error a user gets otherwise is dpkg-buildpackage's
# "Unmet build dependencies", after the source was copied.
if ! deps=$(cd "$SRC" && dpkg-checkbuilddeps 2>&1); then
	echo "FAIL Build-Depends not installed (scripts/setup.sh installs them): $deps"
	exit 1
fi
echo "ok   Build-Depends installed (dpkg-checkbuilddeps)"

# A copy of the tree: dpkg-buildpackage writes into the tree and the
# packages beside it. In a git clone its tracked and new files (what git does
# not ignore); elsewhere (the Debian 13 root's copy has no .git) all but the
# build directories and .deps.
rm -rf "$W"; mkdir -p "$W/src"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$W/src"
else
	(cd "$SRC" && tar --exclude='./build*' --exclude=./.deps --exclude='./obj-*' \
		--exclude=./debian/.debhelper -cf - .) | tar -xf - -C "$W/src"
fi
[ -f "$W/src/debian/rules" ] || { echo "FAIL copying the source tree to $W/src"; exit 1; }

start=$(date +%s)
(cd "$W/src" && NET_MANA_DPDK_SRC=$DPDK_SRC dpkg-buildpackage -b -us -uc) >"$W/build.log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
echo "dpkg-buildpackage -b -us -uc: exit status $rc, $secs s"
if [ $rc -ne 0 ]; then
	echo "FAIL the package build"; tail -30 "$W/build.log"; exit 1
fi

deb=$(ls "$W"/librte-pmd-mana_*.deb 2>/dev/null | head -1)
dev=$(ls "$W"/librte-pmd-mana-dev_*.deb 2>/dev/null | head -1)
check "librte-pmd-mana package built" test -n "$deb"
check "librte-pmd-mana-dev package built" test -n "$dev"
[ $fail -eq 0 ] || exit 1
dpkg-deb -c "$deb" >"$W/deb.list"
dpkg-deb -c "$dev" >"$W/dev.list"
check "the plugin in the pmds directory" \
	grep -q '/dpdk/pmds-[0-9.]*/librte_pmd_mana\.so$' "$W/deb.list"
check "libmana_model.so.0 in net_mana/" grep -q '/net_mana/libmana_model\.so\.0 ' "$W/deb.list"
check "rte_pmd_mana.h" grep -q '/usr/include/dpdk/rte_pmd_mana\.h$' "$W/dev.list"
check "libdpdk-net-mana.pc" grep -q '/pkgconfig/libdpdk-net-mana\.pc$' "$W/dev.list"

# What was compiled: dh runs ninja -v, whose lines give each compiler
# command (-c ../<source>, from obj-<triplet>/); a source built by a custom
# target of a tree outside (testpmd's) is named in its object (-o ...).
compiled() { grep -Eq -- "(-c \.\./|-o )$1" "$W/build.log"; }
not_compiled() { ! compiled "$1"; }
check "the driver compiled (the check sees compiler lines)" compiled 'drivers/net/mana/'
check "dpdk-testpmd-mana not compiled (app/testpmd_ext)" not_compiled 'app/testpmd_ext/'
check "no benchmarks compiled (bench)" not_compiled 'bench/'
check "no tests compiled" not_compiled 'test/'
check "no examples compiled" not_compiled 'examples/'

[ $fail -eq 0 ] || { echo "--- build log: $W/build.log"; exit 1; }
echo "PASS: the Debian packages built in $secs s"
