#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# net_mana's rdma-core backend (lib/verbs_shim/mana_vs_rdma.c), the path real
# Azure hardware takes, run on the software MANA device behind the
# replacement libibverbs.so.1/libmana.so.1 of lib/ibverbs_model: Debian's
# dpdk-testpmd loads our plugin by bare name with
#   LD_LIBRARY_PATH=<plugin dir>:<replacement dir>
# and the device comes from MANA_MODEL, exactly as a program built against
# rdma-core 44 sees a MANA VF. Nothing of the plugin's own (in-process)
# model is used: the driver finds the device in ibv_get_device_list().
#
#   rdma_backend_test.sh <plugin dir> <replacement dir> <scenario>
#
# Scenarios:
#   symbols            no name both the plugin and the replacement export (it
#                      would interpose and bypass rdma-core), neither carries
#                      a model of its own (both need libmana_model.so.0), and every
#                      symbol and version the installed rdma-core exports
#   pci_io_shared      -a <BDF>, io forwarding, hardware-like shared doorbell page
#   pci_csum_queue     -a <BDF>, csum forwarding (IP/UDP/TCP offloads), per-object pages
#   vdev_io_queue      --vdev net_mana0,ibdev=<name>, io, per-object pages
#   vdev_io_2048       the same with rdma-core 56's provider and 2048-entry rings
#   vdev_csum_shared   --vdev net_mana0,ibdev=<name>, csum, shared page
#   rss_2q_cycles      vdev, 2 RSS queues, 2 port stop/start cycles under traffic
#   rss_4q_cycles      PCI, 4 RSS queues, 2 port stop/start cycles under traffic
#
# Every forwarding scenario checks, besides testpmd's and the device's
# counters (N generator frames in, N out minus testpmd's TX-dropped, nothing
# bad at the sink), that the rdma-core backend really ran: the shim's log
# names it, the port has no in-process model counters (no dev_* xstats), and
# the replacement library counted the verbs and manadv calls the driver made
# through rdma-core's interface (MANA_MODEL_STATS "libibverbs calls"), every
# object created also destroyed.
#
# Exit: 0 pass, 1 fail, 77 skipped (no dpdk-testpmd).

set -u

PMD_DIR=$1
IBVM_DIR=$2
SCENARIO=$3
TESTPMD=${TESTPMD:-/usr/bin/dpdk-testpmd}
DEADLINE_S=${RB_DEADLINE_S:-40}
N=10000
RB_RDMA_CORE=44		# the provider the software device mirrors (scenarios may change it)
RB_RING=256		# --rxd/--txd
DEV=manae_rb0
BDF=7870:00:01.0
CYCLES=2
RATE=2500

if [ "$SCENARIO" = symbols ]; then
	# No testpmd needed: the harness would skip without it.
	TESTPMD=/bin/true
fi
# shellcheck source=../lib/testpmd_harness.sh
. "$(dirname "$0")/../lib/testpmd_harness.sh"
harness_init rb
[ "$SCENARIO" = symbols ] || require_loadable "$TESTPMD" "$IBVM_DIR"
ROOT=$W/sys
STATS=$W/model_stats.txt

# ---- symbols -------------------------------------------------------------

# Dynamic symbols "name version" (version in parentheses = hidden).
dynsyms() {
	objdump -T "$1" | awk '$2 == "g" && $4 != "*UND*" { print $(NF), $(NF - 1) }'
}

run_symbols() {
	local lib=$IBVM_DIR/libibverbs.so.1 plugin=$PMD_DIR/librte_net_mana.so clash n

	[ -f "$lib" ] || { fail "$lib not built"; return; }
	# The clash: a name both export, at a version an unversioned reference
	# binds to (not hidden).
	clash=$(comm -12 <(dynsyms "$plugin" | awk '{ print $1 }' | sort -u) \
			 <(dynsyms "$lib" | awk '$2 !~ /^\(/ { print $1 }' | sort -u) | tr '\n' ' ')
	check_str "names the plugin and the replacement both export (default version)" \
		"$clash" ""
	# One software device per process: neither carries a copy of the model,
	# both need the one libmana_model.so.0.
	n=$(dynsyms "$lib" | grep -c '^mana_model_' || true)
	check "mana_model_* symbols the replacement exports" "$n" -eq 0
	n=$(dynsyms "$plugin" | grep -c '^mana_model_' || true)
	check "mana_model_* symbols the plugin exports" "$n" -eq 0
	for n in "$lib" "$plugin"; do
		check_str "$(basename "$n") needs libmana_model.so.0" \
			"$(objdump -p "$n" | awk '$1 == "NEEDED" && $2 == "libmana_model.so.0" { print $2 }')" \
			"libmana_model.so.0"
	done
	n=$(objdump -T "$IBVM_DIR/libmana.so.1" |
		grep -c -E ' MANA_1\.0 +manadv_(init_obj|set_context_attr)$')
	check "libmana.so.1 manadv exports at MANA_1.0" "$n" -eq 2
	# The installed rdma-core's ABI (44 on Debian 12, 56 on Debian 13): every
	# symbol and version its libibverbs.so.1 and libmana.so.1 export, the
	# replacement exports too, or binaries linked against it fail to load.
	local sysdir missing r
	sysdir=$(pkg-config --variable=libdir libibverbs)
	for r in libibverbs.so.1 libmana.so.1; do
		if [ ! -f "$sysdir/$r" ]; then
			fail "no installed $sysdir/$r to compare with"
			continue
		fi
		missing=$(comm -23 <(dynsyms "$sysdir/$r" | sort -u) \
				   <(dynsyms "$IBVM_DIR/$r" | sort -u) | tr '\n' ' ')
		check_str "$r: symbols of the installed rdma-core the replacement lacks" \
			"$missing" ""
	done
}

# ---- testpmd -------------------------------------------------------------

# start_testpmd <pci|vdev> <doorbell> <generator options> <testpmd application args...>
start_testpmd() {
	local front=$1 db=$2 gen=$3 eal

	shift 3
	mkdir -p "$ROOT/bus/pci/devices"
	if [ "$front" = pci ]; then
		eal=(-a "$BDF")
		export SYSFS_PCI_DEVICES=$ROOT/bus/pci/devices
	else
		# The function is in a private sysfs tree EAL does not scan.
		eal=(--no-pci --vdev "net_mana0,ibdev=$DEV")
	fi
	# A current kernel (max_qp_wr 2048) under rdma-core 44's provider unless a
	# scenario says otherwise: the driver's probe asks the provider through
	# the rdma-core backend (doc/hardware.md §2.5).
	export MANA_MODEL="name=$DEV,pci=$BDF,sysfs=$ROOT,doorbell=$db"
	MANA_MODEL+=",max_qp_wr=2048,rdma_core=$RB_RDMA_CORE"
	MANA_MODEL+=",wire0=gen:count=$N:lossless=1:len=128:$gen"
	export MANA_MODEL_STATS=$STATS
	# The replacement libraries behind the plugin; pmd.net.mana.driver at
	# info, where the shim names the backend.
	testpmd_spawn --lib "$IBVM_DIR" --log 'pmd.net.mana.driver:info' \
		$((DEADLINE_S * 2 + 30)) --file-prefix "rb_${SCENARIO}_$$" "${eal[@]}" \
		-- -i --port-topology=loop --nb-cores=1 --total-num-mbufs=8192 --no-flush-rx \
		--rxd="$RB_RING" --txd="$RB_RING" "$@"
}

# rx_good: the driver's rx_good_packets, fresh. Run in a subshell: on
# failure its FAIL line is the output, for the caller to record.
rx_good() {
	cmd_wait "rx_good_packets:" "show port xstats 0" || return 1
	xstat rx_good_packets
}

# wait_rx <n>: until the port has received at least n frames.
wait_rx() {
	local v

	while :; do
		v=$(rx_good) || { fail "rx_good_packets: $v"; return 1; }
		[ "${v:-0}" -ge "$1" ] && return 0
		may_wait "rx_good_packets >= $1 (last: '$v')" || return 1
		sleep 0.3
	done
}

# wait_rx_settled <floor>: at least floor frames and no new one for ~1 s.
wait_rx_settled() {
	local v prev=-1 same=0

	while [ "$same" -lt 3 ]; do
		v=$(rx_good) || { fail "rx_good_packets: $v"; return 1; }
		if [ "${v:-0}" -ge "$1" ] && [ "$v" = "$prev" ]; then
			same=$((same + 1))
		else
			same=0
		fi
		prev=$v
		may_wait "rx_good_packets to settle >= $1 (last: '$v')" || return 1
		sleep 0.3
	done
}

# stop_fwd, then time for the device to transmit what the last bursts
# posted before a port stop.
stop_fwd_settle() {
	stop_fwd
	sleep 0.5
}

# Sum of one key over every "Forward statistics for port 0" block.
fwd_sum() {
	awk -v key="$1:" '
		/Forward statistics for port 0 / { inb = 1; next }
		inb && /^ *-+ *$/ { inb = 0 }
		inb { for (i = 1; i < NF; i++) if ($i == key) s += $(i + 1) }
		END { print s + 0 }' "$OUT"
}

# stats_val <line prefix> <key>: "key=value" from that MANA_MODEL_STATS line.
stats_val() {
	grep "^$1 " "$STATS" 2>/dev/null | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }'
}

# model <key>: a port-0 counter of MANA_MODEL_STATS.
model() {
	stats_val "$DEV port0" "$1"
}

# call <name>: how often the driver called it through rdma-core's interface.
call() {
	stats_val "libibverbs calls" "$1"
}

quit_testpmd() {
	cmd "show port stats 0"
	cmd "show port xstats 0"
	sleep 0.3
	testpmd_quit
	check_log "$OUT" "$LOG_ERRORS" "driver errors in the log"
}

# The rdma-core backend drove the device, <starts> port starts of <nq> queues.
check_backend() {
	local nq=$1 starts=$2 v

	v=$(count_text "$DEV: opened through the rdma-core backend")
	check "shim log: device opened through the rdma-core backend" "$v" -ge 1
	check_str "in-process model counters on the port (dev_rx_frames xstat)" \
		"$(xstat dev_rx_frames)" ""
	if ! grep -q "^libibverbs calls " "$STATS" 2>/dev/null; then
		fail "no 'libibverbs calls' line in $STATS"
		return
	fi
	grep "^libibverbs calls " "$STATS"
	check "ibv_open_device calls" "$(call open_device)" -ge 1
	check "ibv_close_device = ibv_open_device" "$(call close_device)" -eq "$(call open_device)"
	check "ibv_create_qp (RAW TX QPs)" "$(call create_qp)" -eq $((nq * starts))
	check "ibv_create_wq" "$(call create_wq)" -eq $((nq * starts))
	check "ibv_create_rwq_ind_table" "$(call create_rwq_ind_table)" -eq "$starts"
	check "ibv_create_qp_ex (RSS QPs)" "$(call create_qp_ex)" -eq "$starts"
	# plus, with rdma-core >= 49, the probe's CQ of 2048 (created, destroyed)
	check "ibv_create_cq (one per queue, the probe's)" "$(call create_cq)" -eq \
		$((2 * nq * starts + (RB_RDMA_CORE >= 49)))
	check "ibv_alloc_parent_domain" "$(call alloc_parent_domain)" -ge 1
	check "ibv_reg_mr" "$(call reg_mr)" -ge 1
	check "manadv_set_context_attr" "$(call manadv_set_context_attr)" -ge 1
	check "manadv_init_obj (TX and RX queues)" "$(call manadv_init_obj)" -ge \
		$((2 * nq * starts))
	# Teardown through rdma-core destroyed every object it created.
	check "ibv_destroy_qp = RAW + RSS QPs" "$(call destroy_qp)" -eq \
		$(($(call create_qp) + $(call create_qp_ex)))
	check "ibv_destroy_rwq_ind_table" "$(call destroy_rwq_ind_table)" -eq \
		"$(call create_rwq_ind_table)"
	check "ibv_destroy_wq" "$(call destroy_wq)" -eq "$(call create_wq)"
	check "ibv_destroy_cq" "$(call destroy_cq)" -eq "$(call create_cq)"
	check "ibv_dereg_mr" "$(call dereg_mr)" -eq "$(call reg_mr)"
	check "ibv_dealloc_pd (PDs and parent domains)" "$(call dealloc_pd)" -eq \
		$(($(call alloc_pd) + $(call alloc_parent_domain)))
	check "ibv_destroy_comp_channel" "$(call destroy_comp_channel)" -eq \
		"$(call create_comp_channel)"
	# rdma-core < 49: the probe's CQ of 2048 refused, said once, rings of 256
	local refused='' limited=0

	if [ "$RB_RDMA_CORE" -lt 49 ]; then
		refused='create_cq: cqe 2048 not in 1..256 (the provider of rdma-core < 49)'
		limited=1
	fi
	check_str "device last_error" "$(grep "^$DEV last_error=" "$STATS" | cut -d= -f2-)" \
		"$refused"
	check "probe NOTICE 'rings limited to 256'" \
		"$(grep -c 'provider 256 (rdma-core < 49): rings limited to 256' "$OUT")" -eq "$limited"
}

# check_device <sent> <-eq|-le>: what the device saw: every generator frame
# into an RX WQE, <sent> frames on the wire, all intact, no protocol
# violation; the driver consumed all (-eq) or, with port stops releasing
# unread completions, some (-le) of the coalesced CQEs the device wrote.
check_device() {
	local sent=$1 op=$2 k

	if [ ! -s "$STATS" ]; then
		fail "no model statistics in $STATS"
		return
	fi
	grep "^$DEV port0 " "$STATS"
	check "model wire_gen_frames" "$(model wire_gen_frames)" -eq "$N"
	check "model rx_frames" "$(model rx_frames)" -eq "$N"
	check "model wire_sink_frames" "$(model wire_sink_frames)" -eq "$sent"
	check "model tx_frames" "$(model tx_frames)" -eq "$sent"
	check "model wire_sink_bytes" "$(model wire_sink_bytes)" -eq $((sent * 128))
	for k in wire_sink_bad tx_err db_rejected queue_errors rx_drop_no_wqe rx_drop_no_rxq \
		 rx_drop_sge rx_truncated; do
		check "model $k" "$(model $k)" -eq 0
	done
	check "driver rx_coalesced_cqes vs model's ($op)" "$(xstat rx_coalesced_cqes)" "$op" \
		"$(model rx_coalesced_cqes)"
}

# check_tx <sent> <stops> <queues>: the port's TX counters. The driver counts
# a packet when tx_burst hands it to the device, so TX-packets is exactly
# what was sent; only a port stop takes back what was still in flight (at
# most one ring per queue per stop).
check_tx() {
	local sent=$1 slack=$(($2 * $3 * 256))

	check "NIC TX-errors" "$(nic TX-errors)" -eq 0
	check "NIC TX-packets" "$(nic TX-packets)" -le "$sent"
	check "NIC TX-packets" "$(nic TX-packets)" -ge $((sent - slack))
}

# run_forward <pci|vdev> <doorbell> <io|csum> [testpmd args...]: one queue,
# N frames forwarded.
run_forward() {
	local front=$1 db=$2 mode=$3 dropped sent

	shift 3
	start_testpmd "$front" "$db" flows=8 --forward-mode="$mode" --rxq=1 --txq=1 "$@"
	cmd "start"
	wait_rx "$N"
	stop_fwd_settle
	quit_testpmd
	dropped=$(fwd_sum TX-dropped)
	sent=$((N - dropped))
	check "forward RX-packets" "$(fwd_sum RX-packets)" -eq "$N"
	check "NIC RX-packets" "$(nic RX-packets)" -eq "$N"
	check "NIC RX-errors" "$(nic RX-errors)" -eq 0
	check "forward TX-dropped (ring full)" "$dropped" -lt $((N / 10))
	check_tx "$sent" 0 1
	check_device "$sent" -eq
	check_backend 1 1
	if [ "$mode" = csum ]; then
		check "model wire_sink_csum_ok" "$(model wire_sink_csum_ok)" -eq "$sent"
		check "forward Bad-ipcsum" "$(fwd_sum Bad-ipcsum)" -eq 0
		check "forward Bad-l4csum" "$(fwd_sum Bad-l4csum)" -eq 0
	fi
}

# Forward statistics blocks (one per `start`) whose RX-packets is above 0.
fwd_runs_with_rx() {
	awk '
		/Forward statistics for port 0 / { inb = 1; next }
		inb && /^ *-+ *$/ { inb = 0 }
		inb { for (i = 1; i < NF; i++) if ($i == "RX-packets:" && $(i + 1) > 0) n++ }
		END { print n + 0 }' "$OUT"
}

# run_rss_cycles <pci|vdev> <queues>: RSS over nq queues, the port stopped
# and started CYCLES times while the generator is still sending (rate-limited
# to RATE frames/s so that traffic spans the cycles). Frames the device had
# already put into RX WQEs when a port stops are released with the queues
# (at most one ring per queue per stop), so the port receives between
# N - CYCLES * nq * 256 and N of them.
run_rss_cycles() {
	local front=$1 nq=$2 c starts sent dropped rx

	start_testpmd "$front" queue "flows=64:rate=$RATE" --forward-mode=io \
		--rxq="$nq" --txq="$nq"
	for ((c = 1; c <= CYCLES; c++)); do
		cmd "start"
		wait_rx $((c * N / (CYCLES + 2))) || break
		stop_fwd_settle
		cmd "port stop 0"
		wait_count "Stopping ports..." "$c" || break
		cmd "port start 0"
		wait_count "Port 0: " $((c + 1)) || break
	done
	cmd "start"
	wait_rx_settled $((N - CYCLES * nq * 256))
	stop_fwd_settle
	quit_testpmd
	starts=$((CYCLES + 1))
	rx=$(nic RX-packets)
	dropped=$(fwd_sum TX-dropped)
	sent=$((${rx:-0} - dropped))
	check "port starts seen" "$(count_text "Port 0: ")" -eq "$starts"
	check "forwarding runs that received frames" "$(fwd_runs_with_rx)" -eq "$starts"
	check "NIC RX-packets" "$rx" -ge $((N - CYCLES * nq * 256))
	check "NIC RX-packets" "$rx" -le "$N"
	check "forward RX-packets = NIC RX-packets" "$(fwd_sum RX-packets)" -eq "${rx:-0}"
	check "NIC RX-errors" "$(nic RX-errors)" -eq 0
	check "forward TX-dropped (ring full)" "$dropped" -lt $((N / 10))
	check_tx "$sent" "$CYCLES" "$nq"
	check_device "$sent" -le
	check_queues "$nq" "$(nic RX-packets)" "NIC RX-packets"
	check_backend "$nq" "$starts"
}

case "$SCENARIO" in
symbols)
	run_symbols
	;;
pci_io_shared)
	run_forward pci shared io
	;;
pci_csum_queue)
	run_forward pci queue csum --tx-offloads=0xe
	;;
vdev_io_queue)
	run_forward vdev queue io
	;;
vdev_io_2048)
	# rdma-core >= 49's provider: the probe's CQ taken, 2048-entry rings
	RB_RDMA_CORE=56
	RB_RING=2048
	run_forward vdev queue io
	;;
vdev_csum_shared)
	run_forward vdev shared csum --tx-offloads=0xe
	;;
rss_2q_cycles)
	run_rss_cycles vdev 2
	;;
rss_4q_cycles)
	run_rss_cycles pci 4
	;;
*)
	echo "unknown scenario $SCENARIO"
	exit 1
	;;
esac

harness_exit
