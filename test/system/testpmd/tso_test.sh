#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# TSO through Debian's dpdk-testpmd csum engine, checked on the far side
# (issue 14 item 1):
#
#   tso_test.sh <directory of librte_net_mana.so> <scenario>
#
# Port 0 (MTU 9000) replays a capture of large TCP frames that tso_pcap.py
# writes; the csum engine forwards them to port 1 (MTU 1500) with IP and TCP
# checksum offload and `tso set <mss> 1`; port 1's wire writes a capture that
# tso_pcap.py, a parser of its own that imports no project code, checks
# segment by segment against the input (lengths, IPv4 ids, sequence numbers,
# flags, checksums, the payload byte for byte).
#
#   ipv4, ipv6            MSS 1448 (IPv4) / 1428 (IPv6: 40-byte header, TCP
#                         timestamps still within MTU 1500); 9216-byte mbufs
#   ipv4_scatter,         --mbuf-size=2048 --enable-scatter: frames arrive in
#   ipv6_scatter          chains of 2 KB mbufs, so TSO sends multi-segment mbufs
#
# (No VLAN scenario: testpmd's csum engine never asks for VLAN insertion,
# whatever `tx_vlan set` says; tso_tcp_netns_vlan sends tagged TSO instead.)
#
# Exit: 0 pass, 1 fail, 77 skipped (no dpdk-testpmd).

set -u

PMD_DIR=$1
SCENARIO=$2
TESTPMD=${TESTPMD:-/usr/bin/dpdk-testpmd}
DEADLINE_S=${TP_DEADLINE_S:-120}
TSO_PCAP=$(dirname "$0")/tso_pcap.py
MAC0=02:00:00:00:0e:10
MAC1=02:00:00:00:0e:11

# shellcheck source=../lib/testpmd_harness.sh
. "$(dirname "$0")/../lib/testpmd_harness.sh"
harness_init tso

mbufs=(--mbuf-size=9216)
families=4 mss=1448
case "$SCENARIO" in
ipv4) ;;
ipv6) families=6 mss=1428 ;;
ipv4_scatter) mbufs=(--mbuf-size=2048 --enable-scatter) ;;
ipv6_scatter) families=6 mss=1428 mbufs=(--mbuf-size=2048 --enable-scatter) ;;
*)
	echo "unknown scenario $SCENARIO"
	exit 1
	;;
esac

# port_xstat <port> <name>: the value in the last `show port xstats <port>`.
port_xstat() {
	awk -v hdr="NIC extended statistics for port $1 " -v key="$2:" '
		index($0, hdr) { inb = 1; next }
		inb && !/^[a-z_0-9]+: [0-9]+$/ { inb = 0 }
		inb && $1 == key { val = $2 }
		END { print val }' "$OUT"
}

read -r n_frames < <(python3 "$TSO_PCAP" gen "$W/in.pcap" "$MAC0" "$families" "$mss")
read -r _ n_tso n_segs < <(python3 "$TSO_PCAP" expect "$W/in.pcap" "$mss")
echo "input: $n_frames frames, $n_tso above the MSS of $mss, $n_segs frames expected out"

testpmd_spawn $((DEADLINE_S + 30)) --no-pci --file-prefix "tso_${SCENARIO}_$$" \
	--vdev "net_mana0,ports=2,mac=$MAC0,mac=$MAC1,wire=pcap:rx=$W/in.pcap,wire=pcap:tx=$W/out.pcap" \
	-- -i --total-num-mbufs=8192 --nb-cores=1 --rxq=1 --txq=1 --disable-device-start --no-flush-rx \
	"${mbufs[@]}"
wait_text "testpmd>"
cmd "port config mtu 0 9000"
cmd "csum set ip hw 1"
cmd "csum set tcp hw 1"
case "$SCENARIO" in
*_scatter) cmd "port config 1 tx_offload multi_segs on" ;;
esac
# 22.11 answers "TSO segment size for non-tunneled packets is N", 24.11 drops "TSO ".
cmd_wait "segment size for non-tunneled packets is" "tso set $mss 1"
check "'tso set $mss 1' answers 'TSO is not supported'" "$(count_text "TSO is not supported")" -eq 0
cmd "set fwd csum"
cmd "port start all"
cmd "start"
wait_xstat rx_good_packets -ge "$n_frames"
# what left port 1 reaches the capture (flushed every pass that wrote frames)
while [ "$(python3 "$TSO_PCAP" count "$W/out.pcap")" -lt "$n_segs" ]; do
	may_wait "$n_segs frames in $W/out.pcap" || break
	sleep 0.5
done
stop_fwd
cmd "show port xstats 1"
cmd "show port stats 1"
testpmd_quit
check_log "$OUT" "$LOG_ERRORS" "driver errors in the log"

check "forward RX-packets of port 0" "$(fwd RX-packets)" -eq "$n_frames"
check "forward TX-dropped" "$(block_val "Forward statistics for port" 1 TX-dropped)" -eq 0
check "port 1 dev_tx_lso_wqes (TSO sends)" "$(port_xstat 1 dev_tx_lso_wqes)" -eq "$n_tso"
check "port 1 dev_tx_lso_segments" "$(port_xstat 1 dev_tx_lso_segments)" -eq \
	$((n_segs - (n_frames - n_tso)))
check "port 1 dev_tx_frames" "$(port_xstat 1 dev_tx_frames)" -eq "$n_segs"
check "port 1 dev_wire_sink_bad (bad checksums)" "$(port_xstat 1 dev_wire_sink_bad)" -eq 0
check "port 1 tx_errors" "$(port_xstat 1 tx_errors)" -eq 0
check "port 1 dev_tx_err_mtu_drop" "$(port_xstat 1 dev_tx_err_mtu_drop)" -eq 0
if python3 "$TSO_PCAP" check "$W/in.pcap" "$W/out.pcap" "$mss"; then
	echo "ok: the capture of port 1 holds every segment, correctly formed"
else
	fail "the capture of port 1 (tso_pcap.py check)"
fi
harness_exit
