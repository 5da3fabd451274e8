#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Runs Debian's dpdk-testpmd on a net_mana vdev (software device) in one
# forwarding mode and checks the counters it prints.
#
#   testpmd_test.sh <directory of librte_net_mana.so> <scenario>
#
# Scenarios: io_1q io_4q mac_1q csum_2q rxonly_2q txonly_1q txonly_multiseg_2q
#
# testpmd runs interactively with its commands written to a FIFO, so the
# script can wait for the traffic to finish (polling `show port xstats 0`)
# instead of sleeping for a fixed time. The generator wire makes the
# expected numbers exact: count=N lossless=1 produces N frames, each only
# when an RX buffer is posted, so none is dropped. The device's own counters
# (xstats dev_*) tell what reached the wire side: dev_wire_sink_frames
# counts the frames the port transmitted, dev_wire_sink_bad those with a
# wrong checksum or a corrupted generator payload.
#
# Exit: 0 pass, 1 fail, 77 skipped (no dpdk-testpmd).

set -u

PMD_DIR=$1
SCENARIO=$2
TESTPMD=${TESTPMD:-/usr/bin/dpdk-testpmd}
N=20000
DEADLINE_S=${TP_DEADLINE_S:-120}

# shellcheck source=../lib/testpmd_harness.sh
. "$(dirname "$0")/../lib/testpmd_harness.sh"
harness_init tp

# start_testpmd <vdev devargs> <testpmd application args...>
start_testpmd() {
	local vdev=$1

	shift
	testpmd_spawn $((DEADLINE_S + 30)) --no-pci --file-prefix "tp_${SCENARIO}_$$" \
		--vdev "net_mana_tp,$vdev" \
		-- -i --port-topology=loop --nb-cores=1 --total-num-mbufs=8192 --no-flush-rx "$@"
}

# wait_xstat <name> <op> <value>: polls `show port xstats 0` until it holds.
wait_xstat() {
	local v

	while :; do
		cmd "show port xstats 0"
		sleep 0.5
		v=$(xstat "$1")
		if [ -n "$v" ] && test "$v" "$2" "$3"; then
			return 0
		fi
		may_wait "$1 $2 $3 (last: '$v')" || return 1
	done
}

fwd() {
	block_val "Forward statistics for port" 0 "$1"
}

# Print the final statistics and quit; every check parses the complete output.
quit_testpmd() {
	cmd "show port stats all"
	cmd "show port xstats 0"
	testpmd_quit
	check_log "$OUT" "$LOG_ERRORS" "driver errors in the log"
}

# Common checks of a run that received exactly N generator frames.
check_rx_exact() {
	check "forward RX-packets" "$(fwd RX-packets)" -eq "$N"
	check "forward RX-dropped" "$(fwd RX-dropped)" -eq 0
	check "NIC RX-packets" "$(nic RX-packets)" -eq "$N"
	check "NIC RX-errors" "$(nic RX-errors)" -eq 0
	check "NIC RX-missed" "$(nic RX-missed)" -eq 0
	check "dev_wire_gen_frames" "$(xstat dev_wire_gen_frames)" -eq "$N"
	check "dev_rx_drop_no_wqe" "$(xstat dev_rx_drop_no_wqe)" -eq 0
	check "dev_queue_errors" "$(xstat dev_queue_errors)" -eq 0
	check "dev_db_rejected" "$(xstat dev_db_rejected)" -eq 0
}

# TX side of a run: what the device put on the wire. testpmd's TX-packets is
# the port's opackets, which counts completed packets; completions are
# processed by the next tx_burst, so once forwarding stops it may stay behind
# the wire by what was in flight (at most nb_desc per queue).
check_tx_side() {
	local nq=$1 len=$2 sink

	sink=$(xstat dev_wire_sink_frames)
	check "dev_wire_sink_bad" "$(xstat dev_wire_sink_bad)" -eq 0
	check "dev_wire_sink_bytes" "$(xstat dev_wire_sink_bytes)" -eq $((${sink:-0} * len))
	check "dev_tx_frames" "$(xstat dev_tx_frames)" -eq "${sink:-0}"
	check "NIC TX-errors" "$(nic TX-errors)" -eq 0
	check "NIC TX-packets (completed)" "$(nic TX-packets)" -le "${sink:-0}"
	check "NIC TX-packets (completed)" "$(nic TX-packets)" -ge $((${sink:-0} - 256 * nq))
}

# Forwarding modes: every frame received was sent back or counted as dropped
# by testpmd (TX ring full), and the sink saw exactly the ones sent, intact.
run_forward() {
	local mode=$1 nq=$2 flows=$3 dropped

	shift 3
	start_testpmd "wire=gen:flows=$flows:len=128:count=$N:lossless=1" \
		--forward-mode="$mode" --rxq="$nq" --txq="$nq" "$@"
	cmd "start"
	wait_xstat rx_good_packets -ge "$N"
	stop_fwd
	dropped=$(fwd TX-dropped)
	wait_xstat dev_wire_sink_frames -ge $((N - ${dropped:-0}))
	quit_testpmd
	check_rx_exact
	check "sink frames + testpmd TX-dropped" \
		$(($(xstat dev_wire_sink_frames) + ${dropped:-0})) -eq "$N"
	check "forward TX-dropped (ring full)" "$dropped" -lt $((N / 10))
	check_tx_side "$nq" 128
}

# txonly: the sink got intact frames of the configured length; testpmd's
# (completed) TX-packets is at most nb_desc per queue behind.
run_txonly() {
	local nq=$1 txpkts=$2 len=$3 sent

	shift 3
	start_testpmd "wire=none" --forward-mode=txonly --rxq="$nq" --txq="$nq" \
		--txpkts="$txpkts" "$@"
	cmd "start"
	wait_xstat dev_wire_sink_frames -ge "$N"
	stop_fwd
	sent=$(fwd TX-packets)
	wait_xstat dev_wire_sink_frames -ge "${sent:-0}"
	quit_testpmd
	check "forward TX-packets" "$sent" -ge $((N - 256 * nq))
	check "forward RX-packets" "$(fwd RX-packets)" -eq 0
	check "dev_wire_sink_frames - TX-packets" $(($(xstat dev_wire_sink_frames) - ${sent:-0})) \
		-le $((256 * nq))
	check_tx_side "$nq" "$len"
}

case "$SCENARIO" in
io_1q)
	run_forward io 1 8
	;;
io_4q)
	run_forward io 4 64
	check_queues 4 "$N"
	;;
mac_1q)
	run_forward mac 1 8
	;;
csum_2q)
	# Checksums by the device: IPv4, UDP and TCP offloads (0x2|0x4|0x8); the
	# csum engine writes the pseudo-header sums itself. The sink verifies
	# every checksum; RX flags must say good.
	run_forward csum 2 32 --tx-offloads=0xe
	check "dev_wire_sink_csum_ok" "$(xstat dev_wire_sink_csum_ok)" -eq "$(xstat dev_wire_sink_frames)"
	check "forward Bad-ipcsum" "$(fwd Bad-ipcsum)" -eq 0
	check "forward Bad-l4csum" "$(fwd Bad-l4csum)" -eq 0
	check_queues 2 "$N"
	;;
rxonly_2q)
	start_testpmd "wire=gen:flows=16:len=128:count=$N:lossless=1" \
		--forward-mode=rxonly --rxq=2 --txq=2
	cmd "start"
	wait_xstat rx_good_packets -ge "$N"
	stop_fwd
	quit_testpmd
	check_rx_exact
	check "forward TX-packets" "$(fwd TX-packets)" -eq 0
	check "NIC RX-bytes" "$(nic RX-bytes)" -eq $((N * 128))
	check_queues 2 "$N"
	;;
txonly_1q)
	run_txonly 1 64 64
	;;
txonly_multiseg_2q)
	# Three 64-byte segments per packet (MULTI_SEGS offload 0x8000).
	run_txonly 2 64,64,64 192 --tx-offloads=0x8000
	;;
*)
	echo "unknown scenario $SCENARIO"
	exit 1
	;;
esac

harness_exit
