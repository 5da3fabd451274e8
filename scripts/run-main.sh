#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# README command 1: set the machine up, build, then forward traffic with
# Debian's own dpdk-testpmd through the net_mana plugin on the software MANA
# device, for NET_MANA_SECONDS (default 10) seconds, printing statistics every
# second and a summary at the end. Run as root.
#
# Usage: scripts/run-main.sh [setup.sh options] [extra testpmd application arguments...]
#   setup.sh options (anywhere on the line, handed to scripts/setup.sh):
#     --no-apt     do not run apt-get (packages already present)
#     --no-build   use the build as it is (no meson/ninja run)
#   every other argument goes to dpdk-testpmd (after its own, so it wins).
#   setup.sh's --allow-no-driver is refused: this command needs the driver.
# Environment:
#   NET_MANA_DEVARGS   the --vdev string (default below, DEVARGS)
#   NET_MANA_SECONDS   run time in seconds (default 10)
#   NET_MANA_SKIP_APT=1  passed to setup.sh: do not run apt-get install

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

# ---- What runs (edit here) ----------------------------------------------
# The software device: one vPort whose wire loops its TX back into its RX
# (doc/ lists every devarg). testpmd sends one burst first (--tx-first) and
# then forwards whatever it receives back out of the same port, so the
# packets circulate through TX ring -> model -> RX ring for the whole run.
DEVARGS=${NET_MANA_DEVARGS:-"net_mana0,wire=loop"}
SECONDS_TO_RUN=${NET_MANA_SECONDS:-10}
EAL_ARGS=(--no-huge -m 512 --no-pci --file-prefix "netmana-main-$$" -l 0-1)
TESTPMD_ARGS=(--forward-mode=io --port-topology=loop --tx-first
	--rxd=256 --txd=256 --total-num-mbufs=8192 --nb-cores=1 --stats-period 1)
# ---------------------------------------------------------------------------

drv_dir="$repo/build/drivers/net/mana"
log="$repo/build/run-main.log"

setup_args=()
testpmd_extra=()
for a in "$@"; do
	case "$a" in
	--no-apt|--no-build) setup_args+=("$a") ;;
	--allow-no-driver)
		echo "run-main: --allow-no-driver is a setup.sh option for the tests;" \
			"run-main.sh needs the driver" \
			"(run scripts/setup.sh --allow-no-driver alone)" >&2
		exit 2 ;;
	*) testpmd_extra+=("$a") ;;
	esac
done

bash "$repo/scripts/setup.sh" "${setup_args[@]}"

[ -f "$drv_dir/librte_net_mana.so" ] || {
	echo "run-main: $drv_dir/librte_net_mana.so was not built" >&2
	exit 1
}
command -v dpdk-testpmd >/dev/null || {
	echo "run-main: dpdk-testpmd not found (Debian package 'dpdk-dev')" >&2
	exit 1
}

# EAL refuses a plugin path below a world-writable directory (such as /tmp),
# so the plugin is loaded by bare name through LD_LIBRARY_PATH.
export LD_LIBRARY_PATH="$drv_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

cleanup() {
	rm -rf "/var/run/dpdk/netmana-main-$$"
}
trap cleanup EXIT

echo "run-main: dpdk-testpmd for ${SECONDS_TO_RUN}s on --vdev '$DEVARGS'"
set +e
# stdbuf -oL: stdout is a pipe, and a testpmd that dies of the SIGINT it
# re-raises (below) loses what its stdio buffer held, the final statistics
# among it (seen on Debian 13: exit 130, no "Accumulated" block).
timeout --preserve-status -s INT -k 20 "$SECONDS_TO_RUN" \
	stdbuf -oL -eL dpdk-testpmd "${EAL_ARGS[@]}" -d librte_net_mana.so --vdev "$DEVARGS" \
	-- "${TESTPMD_ARGS[@]}" "${testpmd_extra[@]}" < /dev/null 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

# The summary testpmd prints on exit: per-port and accumulated counters.
echo
echo "run-main: final statistics (full output in build/run-main.log)"
awk '/Forward statistics for port/ { p = 1 } p { print } /^Done\./ { p = 0 }' "$log"

# The run ends with SIGINT: DPDK 22.11's testpmd then exits 0; 24.11's
# re-raises the signal after its cleanup and dies of it (130). Either is
# the normal end once testpmd printed its final statistics; anything else
# is a failure.
if [ "$rc" -eq 130 ] && grep -q 'Accumulated forward statistics' "$log"; then
	rc=0
fi
if [ "$rc" -ne 0 ]; then
	echo "run-main: dpdk-testpmd failed (exit status $rc)" >&2
	exit "$rc"
fi
rx=$(awk '/Accumulated forward statistics/ { a = 1 }
	a && /RX-packets:/ { print $2; exit }' "$log")
if [ -z "$rx" ] || [ "$rx" -eq 0 ]; then
	echo "run-main: no packet was forwarded" >&2
	exit 1
fi
echo "run-main: forwarded $rx packets in ${SECONDS_TO_RUN}s"
