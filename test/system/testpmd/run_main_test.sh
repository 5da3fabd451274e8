#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# README command 1's argument handling: scripts/run-main.sh hands setup.sh's
# options (--no-apt, --no-build) to setup.sh and everything else to
# dpdk-testpmd, and refuses --allow-no-driver with one line (issue 32: it
# handed --no-apt to testpmd, which printed its usage and failed).
#
#   run_main_test.sh <repository root> <directory of librte_net_mana.so>
#
# run-main.sh runs from a scratch copy of the repository layout whose
# scripts/setup.sh only records its arguments (no apt, no build); the plugin
# is the build's. Exit: 0 pass, 1 fail, 77 skipped (no dpdk-testpmd).

set -u

REPO=$1
PMD_DIR=$2
FAILS=0

fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

ok_if() {
	if [ "$2" = "$3" ]; then echo "ok: $1"; else fail "$1: got '$2', expected '$3'"; fi
}

if ! command -v dpdk-testpmd >/dev/null; then
	echo "SKIP: dpdk-testpmd not found"
	exit 77
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/run_main_test.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/scripts" "$W/build/drivers/net"
cp "$REPO/scripts/run-main.sh" "$W/scripts/"
ln -s "$(cd "$PMD_DIR" && pwd)" "$W/build/drivers/net/mana"
cat >"$W/scripts/setup.sh" <<'SETUP'
printf '%s\n' "$@" >"$(dirname "$0")/../setup.args"
SETUP

# run_main <seconds> <args...>: run-main.sh for that long; its status in RC, output in $W/out.
run_main() {
	local s=$1

	shift
	rm -f "$W/setup.args"
	NET_MANA_SECONDS=$s timeout 120 bash "$W/scripts/run-main.sh" "$@" >"$W/out" 2>&1
	RC=$?
	if [ "$RC" -ne 0 ]; then
		echo "-- run-main.sh $*: exit status $RC, last lines:"
		tail -n 12 "$W/out" | sed 's/^/  | /'
	fi
}

# Long enough for testpmd to start forwarding on a loaded machine (run-main
# fails when nothing was forwarded).
run_main 10 --no-apt --burst=16
ok_if "run-main.sh --no-apt --burst=16: exit status" "$RC" 0
ok_if "setup.sh got" "$(cat "$W/setup.args" 2>/dev/null | tr '\n' ' ')" "--no-apt "
ok_if "testpmd got --burst=16 (packets/burst=16)" \
	"$(grep -c 'packets/burst=16' "$W/out")" 1
ok_if "run-main forwarded" "$(grep -c '^run-main: forwarded [1-9][0-9]* packets' "$W/out")" 1
ok_if "no testpmd usage ('Usage:')" "$(grep -c 'Usage:' "$W/out")" 0

run_main 1 --no-build --no-apt
ok_if "setup.sh got" "$(cat "$W/setup.args" 2>/dev/null | tr '\n' ' ')" "--no-build --no-apt "
ok_if "dpdk-testpmd started (its 'EAL:' lines), no usage" \
	"$(grep -c -m 1 '^EAL: ' "$W/out"),$(grep -c 'Usage:' "$W/out")" "1,0"

run_main 1 --allow-no-driver
ok_if "run-main.sh --allow-no-driver: exit status" "$RC" 2
ok_if "setup.sh not run" "$([ -e "$W/setup.args" ] && echo run || echo not run)" "not run"
ok_if "one line says why" "$(grep -c '^run-main: --allow-no-driver is a setup.sh option' "$W/out")" 1

if [ "$FAILS" -ne 0 ]; then
	echo "run_main: $FAILS check(s) failed"
	exit 1
fi
echo "run_main: all checks passed"
