#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Wires and settings as a user meets them through Debian's dpdk-testpmd
# (issue 13 items 5, 6, 7, 16, 18):
#
#   wires_test.sh <directory of librte_net_mana.so> <scenario>
#
#   refused       bad pair wires, pcap files and numbers: the probe fails at
#                 once with the one line that says why (never blocks)
#   pair_pending  a pair to a vdev not created yet: link down, TX counted in
#                 dev_tx_drop_link_down; `port attach` of the far end brings it up
#   pcap_tx_error a pcap tx FIFO whose reader goes away: one log line, the
#                 frames not written counted in dev_wire_drops
#
# Exit: 0 pass, 1 fail, 77 skipped (no dpdk-testpmd).

set -u

PMD_DIR=$1
SCENARIO=$2
TESTPMD=${TESTPMD:-/usr/bin/dpdk-testpmd}
DEADLINE_S=${TP_DEADLINE_S:-120}

# shellcheck source=../lib/testpmd_harness.sh
. "$(dirname "$0")/../lib/testpmd_harness.sh"
harness_init wires

# refused <expected line (fixed string)> <vdev devargs>...: the vdev
# net_mana0 is not probed, the line is printed once, testpmd does not hang.
N_REFUSED=0
refused() {
	local want=$1 out rc args=()

	shift
	for v in "$@"; do
		args+=(--vdev "$v")
	done
	N_REFUSED=$((N_REFUSED + 1))
	out=$W/refused_$N_REFUSED
	echo quit | LD_LIBRARY_PATH=$PMD_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		timeout -k 5 30 "$TESTPMD" -l 0-1 --no-huge -m 512 --no-pci \
		--file-prefix "wires_${SCENARIO}_$$_$N_REFUSED" -d librte_net_mana.so "${args[@]}" \
		-- -i --total-num-mbufs=8192 >"$out" 2>&1
	rc=$?
	check "'$*' exit status (124: blocked)" "$rc" -ne 124
	check "'$*': the line '$want'" "$(grep -a -c -F -e "$want" "$out")" -eq 1
	check "'$*': net_mana0 not probed" \
		"$(grep -a -c -F -e 'failed to initialize net_mana0 device' "$out")" -eq 1
}

# link_is <up|down>: `show port info 0` until it says so.
link_is() {
	local n

	while :; do
		n=$(count_text "Link status: $1")
		cmd "show port info 0"
		sleep 0.5
		if [ "$(count_text "Link status: $1")" -gt "$n" ]; then
			echo "ok: link $1"
			return 0
		fi
		may_wait "link $1" || return 1
	done
}

case "$SCENARIO" in
refused)
	refused "devargs: port 0: wire pair:1 names port 1, but the device has 1 port (ports=2 for more); a pair cable joins two ports that name each other" \
		"net_mana0,wire=pair:1"
	refused "devargs: port 0: wire pair:1, but port 1's wire is loop, not pair:0; both ends of a pair cable name each other" \
		"net_mana0,ports=2,wire=pair:1,wire=loop"
	refused "create net_mana0: port 0: wire pair:net_mana1/0, but port 0 of device net_mana1 is loop, not pair:net_mana0/0; both ends of a pair cable name each other" \
		"net_mana1,wire=loop" "net_mana0,wire=pair:net_mana1/0"
	mkfifo "$W/fifo"
	refused "pcap wire: rx file $W/fifo is a FIFO; rx= takes a capture file (regular file)" \
		"net_mana0,wire=pcap:rx=$W/fifo"
	# a capture of one frame: 24-byte header, 16-byte record header, 60 bytes
	printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' >"$W/in.pcap"
	printf '\x00\x00\x00\x00\x00\x00\x00\x00\x3c\x00\x00\x00\x3c\x00\x00\x00' >>"$W/in.pcap"
	head -c 60 /dev/zero >>"$W/in.pcap"
	refused "pcap wire: rx file $W/in.pcap and tx file $W/./in.pcap are the same file; give tx= another file" \
		"net_mana0,wire=pcap:rx=$W/in.pcap:tx=$W/./in.pcap:loop=1"
	check "the rx file is intact (bytes)" "$(stat -c %s "$W/in.pcap")" -eq 100
	refused "pcap wire: cannot write /dev/full: No space left on device" \
		"net_mana0,wire=pcap:tx=/dev/full"
	refused "bad value '+2' for key 'ports': integers are decimal without a leading 0, or 0x hex; no blanks or '+'" \
		"net_mana0,ports=+2"
	refused "bad value ' 1' for key 'engine_cpu': integers are decimal without a leading 0, or 0x hex; no blanks or '+'" \
		"net_mana0,engine_cpu= 1"
	refused "bad value '1023' for key 'engine_cpu': CPU 1023 is offline or outside this process's CPU affinity" \
		"net_mana0,engine_cpu=1023"
	;;
pair_pending)
	testpmd_spawn $((DEADLINE_S + 30)) --no-pci --file-prefix "wires_${SCENARIO}_$$" \
		--vdev "net_mana0,wire=pair:net_mana1/0" -- -i --total-num-mbufs=8192
	wait_text "testpmd>"
	link_is down
	cmd "set fwd txonly"
	cmd "start"
	wait_xstat dev_tx_drop_link_down -gt 0
	stop_fwd
	check "dev_tx_frames while the far end is missing" "$(xstat dev_tx_frames)" -eq 0
	cmd "port attach net_mana1,wire=pair:net_mana0/0"
	wait_text "Port 1 is attached"
	check "link events of port 0" "$(count_text "Port 0: link state change event")" -eq 1
	link_is up
	cmd "port start 1"
	cmd "start"
	wait_xstat dev_tx_frames -gt 0
	stop_fwd
	testpmd_quit
	;;
pcap_tx_error)
	mkfifo "$W/tx"
	# the reader takes the capture header and a few frames, then goes away
	head -c 3000 <"$W/tx" >/dev/null &
	reader=$!
	trap '' PIPE	# inherited: the write fails with EPIPE instead of a signal
	testpmd_spawn $((DEADLINE_S + 30)) --no-pci --file-prefix "wires_${SCENARIO}_$$" \
		--vdev "net_mana0,wire=pcap:tx=$W/tx" -- -i --total-num-mbufs=8192
	wait_text "testpmd>"
	cmd "set fwd txonly"
	cmd "start"
	wait_xstat dev_wire_drops -gt 10000
	stop_fwd
	cmd "show port xstats 0"
	testpmd_quit
	check "error lines" "$(count_text "pcap wire: writing $W/tx failed: Broken pipe; no more frames are written, each is counted in wire_drops (dev_wire_drops)")" -eq 1
	# what reached the pipe: its buffer (64 KiB), the reader's 3000 bytes, one stdio buffer
	tx=$(xstat dev_tx_frames)
	drops=$(xstat dev_wire_drops)
	check "frames written (dev_tx_frames - dev_wire_drops)" \
		$((${tx:-0} - ${drops:-0})) -lt 1200
	kill_proc "$reader"	# still there if testpmd never opened the FIFO
	;;
*)
	echo "unknown scenario $SCENARIO"
	exit 1
	;;
esac

harness_exit
