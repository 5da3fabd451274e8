#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Debian's dpdk-testpmd under valgrind's memcheck, io forwarding on a
# software device with doorbell=memory (valgrind cannot resume a trapped
# doorbell store: doc/design.md, "Doorbell modes") and one queue pair (that mode
# loses the doorbells of all but one queue of a kind: user guide, section 3).
# --fair-sched=yes: valgrind runs one thread at a time, and without it the
# forwarding lcore takes the lock back before the device's engine thread
# gets it (Debian 13's valgrind 3.24: 2 frames a second, SIGINT unanswered
# for minutes; with it 1000 frames in 5 s).
# Passes when frames were forwarded and memcheck reports no error.
#
# Usage: valgrind_io.sh <plugin dir> <work dir>
# Environment: TESTPMD (default dpdk-testpmd), VG_FRAMES (default 1000: the
# frames to see forwarded before stopping), VG_DEADLINE (default 240 s).
# Exit 77 (skipped) without valgrind or dpdk-testpmd.

set -u
PMD_DIR=$1
W=$2
TESTPMD=${TESTPMD:-dpdk-testpmd}
FRAMES=${VG_FRAMES:-1000}
DEADLINE=${VG_DEADLINE:-240}

command -v valgrind >/dev/null ||
	{ echo "SKIP: valgrind not installed (apt-get install valgrind)"; exit 77; }
command -v "$TESTPMD" >/dev/null || { echo "SKIP: $TESTPMD not found"; exit 77; }

rm -rf "$W"; mkdir -p "$W"
PREFIX=vg_io_$$
start=$(date +%s)
# --stats-period 1: testpmd prints the port's counters every second until
# SIGINT, when it stops the port and prints the totals.
LD_LIBRARY_PATH=$PMD_DIR setsid valgrind --tool=memcheck --fair-sched=yes --error-exitcode=99 \
	--log-file="$W/memcheck.log" "$TESTPMD" --no-huge -m 512 --no-pci -l 0-1 \
	--file-prefix "$PREFIX" -d librte_net_mana.so \
	--vdev 'net_mana0,wire=loop,doorbell=memory' -- \
	--forward-mode=io --port-topology=loop --tx-first --rxq=1 --txq=1 \
	--rxd=256 --txd=256 --total-num-mbufs=8192 --nb-cores=1 --stats-period 1 \
	</dev/null >"$W/testpmd.out" 2>&1 &
pid=$!

# Wait, at most DEADLINE seconds, until the port has received FRAMES frames.
seen=0
while [ $(( $(date +%s) - start )) -lt "$DEADLINE" ] && kill -0 $pid 2>/dev/null; do
	seen=$(grep -o 'RX-packets: *[0-9]*' "$W/testpmd.out" | awk '{ n = $2 } END { print n + 0 }')
	[ "$seen" -ge "$FRAMES" ] && break
	sleep 1
done
kill -INT $pid 2>/dev/null
# The port's stop and close run under valgrind too: give them their time.
for _ in $(seq 120); do kill -0 $pid 2>/dev/null || break; sleep 1; done
if kill -0 $pid 2>/dev/null; then
	echo "FAIL: testpmd under valgrind did not exit within 120 s of SIGINT"
	kill -KILL -- -$pid 2>/dev/null
fi
wait $pid
rc=$?
rm -rf /var/run/dpdk/"$PREFIX" "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk/$PREFIX" 2>/dev/null
echo "memcheck run: $(( $(date +%s) - start )) s, exit status $rc, $seen frames received"

fail=0
errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$W/memcheck.log" | tail -1)
if [ "$seen" -lt "$FRAMES" ]; then
	echo "FAIL: $seen frames received (expected at least $FRAMES within $DEADLINE s)"; fail=1
fi
if [ "$rc" -ne 0 ]; then
	echo "FAIL: exit status $rc (99: memcheck found errors)"; fail=1
fi
if [ "${errors:-x}" != 0 ]; then
	echo "FAIL: memcheck: ${errors:-no} errors reported (ERROR SUMMARY)"; fail=1
fi
if [ $fail -ne 0 ]; then
	echo "--- testpmd (last lines)"; tail -20 "$W/testpmd.out"
	echo "--- memcheck log"; cat "$W/memcheck.log"
	exit 1
fi
grep 'ERROR SUMMARY' "$W/memcheck.log"
echo "PASS: io forwarding under memcheck, doorbell=memory, no error"
