#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# DPDK's own net/mana, unmodified, in Debian's dpdk-testpmd, on the software
# MANA device behind the replacement libibverbs/libmana (lib/ibverbs_model):
# built from the DPDK source tree of the installed release, or the binary
# Debian 13 ships (librte-net-mana25). See doc/rdma_core_on_model.md.
#
# usage: upstream_testpmd.sh io|csum|rss|vlan_strip|vlan_keep <plugin.so> <queue_state_preload.so|-> \
#                            <ibverbs_model dir> <work dir> [frames]
# rss: io forwarding over 4 RX/TX queue pairs, 64 UDP flows, RSS on IP and
# UDP ports; every queue must receive and send (the device's per-queue
# counters) and the totals must be frame-exact. All queues ring one shared
# doorbell page, as on hardware: this needs the lossless shared doorbell.
# vlan_strip / vlan_keep (DPDK 24.03 and later): io forwarding of frames
# tagged VLAN 100, PCP 5; the device strips the tag into the completion. With
# --enable-hw-vlan-strip the frames leave the port untagged; without it the
# driver writes the tag back and they leave tagged (the sink counts tagged
# frames). The tag written back carries the VLAN ID only: the completion has
# no PCP/DEI.
# Environment: DPDK_PMD_DIR (EAL's plugin directory), MANA_COALESCE=0|1 (RX
# CQE coalescing on the device; with 1 some completions must be coalesced).
#
# The model presents PCI function 7870:00:00.0 in <work>/sysfs, with the
# hardware-like shared doorbell page, RX CQE coalescing as MANA_COALESCE says
# (22.11's driver drops coalesced completions, 24.11's takes them). Its wire
# is a generator of <frames> UDP frames (lossless: one per posted RX WQE) and
# a sink that verifies what the port transmits.
#
# testpmd runs in a private mount namespace whose plugin directory holds only
# the plugins it needs plus the upstream net/mana: Debian's other plugins are
# not loaded (mlx4/mlx5 providers would otherwise bind to the replacement
# libibverbs), and EAL loads the plugin from a root-owned path (it refuses
# plugins below world-writable directories such as /tmp).
#
# Exit: 0 pass, 1 fail, 77 skipped (not root, no dpdk-testpmd, no unshare).

set -u
mode=$1 plugin=$2 preload=$3 ibvm_dir=$4 work=$5 frames=${6:-1000}
# EAL's plugin directory of the installed DPDK (meson passes it).
pmds=${DPDK_PMD_DIR:?DPDK_PMD_DIR not set}
coalesce=${MANA_COALESCE:-0}
abi=${pmds##*/pmds-}
testpmd=$(command -v dpdk-testpmd || true)
bdf=7870:00:00.0

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; failed=1; }

[ "$(id -u)" = 0 ] || skip "needs root (mount namespace, EAL)"
[ -n "$testpmd" ] || skip "dpdk-testpmd not installed (Debian package dpdk-dev)"
[ -d "$pmds" ] || skip "no $pmds"
# shellcheck source=../lib/loadable.sh
. "$(dirname "$0")/../lib/loadable.sh"
require_loadable "$testpmd" "$ibvm_dir"
unshare -m --propagation private true 2>/dev/null || skip "unshare -m not permitted"
case $mode in io|csum|rss|vlan_strip|vlan_keep) ;; *) echo "bad mode $mode"; exit 2;; esac
nq=1 flows=8 fwd_mode=$mode extra_opt= gen_opt=
case $mode in
rss) nq=4 flows=64 fwd_mode=io extra_opt=--rss-udp ;;
vlan_strip) fwd_mode=io gen_opt=:vlan=100:pcp=5 extra_opt=--enable-hw-vlan-strip ;;
vlan_keep) fwd_mode=io gen_opt=:vlan=100:pcp=5 ;;
esac

rm -rf "$work"
mkdir -p "$work/orig"
out=$work/testpmd.log
stats=$work/model_stats.txt

# Plugins testpmd or the driver under test is linked against (neither starts
# without them) and the ring mempool driver; everything else in the directory
# stays out. Debian links them through $pmds; a DPDK installed from source
# keeps the files there and links to them in its libdir, hence realpath.
libs="$( { ldd "$testpmd"
	LD_LIBRARY_PATH=$ibvm_dir${NET_MANA_DPDK_LIB_DIR:+:$NET_MANA_DPDK_LIB_DIR} ldd "$plugin"
	} 2>/dev/null | while read -r name _ path _; do
		case "$path $(realpath -q "$path")" in
		"$pmds"/*|*" $pmds"/*) echo "$name" ;;
		esac
	done | sort -u | tr '\n' ' ')librte_mempool_ring.so.${abi%%.*}"

tx_offloads=0x0
# A full TX ring (the model's engine thread starved on a loaded machine) must
# delay forwarding, not drop: the sink must see every frame. So TX retries,
# up to 1 s per burst.
fwd_cmds="set burst tx delay 1000 retry 1000
set fwd $fwd_mode retry
start"
if [ "$mode" = csum ]; then
	# IPv4 + UDP checksum offload from configure time: no port restart needed
	tx_offloads=0x6
fi

# A copy first: the plugin may live in $pmds, which the namespace covers.
cp -L "$plugin" "$work/plugin.so" || skip "cannot read $plugin"
cat > "$work/ns.sh" <<NS
set -e
mount --bind $pmds $work/orig
mount -t tmpfs -o mode=0755,size=256m mana_pmds $pmds
for l in $libs; do cp -a $work/orig/\${l%%.so*}.so* $pmds/; done
cp $work/plugin.so $pmds/librte_net_mana_upstream.so
umount $work/orig
export SYSFS_PCI_DEVICES=$work/sysfs/bus/pci/devices
export LD_LIBRARY_PATH=$ibvm_dir${NET_MANA_DPDK_LIB_DIR:+:$NET_MANA_DPDK_LIB_DIR}
[ "$preload" = - ] || export LD_PRELOAD=$preload
export MANA_MODEL='name=mana_up0,pci=$bdf,sysfs=$work/sysfs,doorbell=shared,coalesce=$coalesce,wire0=gen:count=$frames:lossless=1:len=128:flows=$flows$gen_opt'
export MANA_MODEL_STATS=$stats
{ sleep 1; echo "$fwd_cmds"; sleep 5; echo stop; echo "show port stats 0"; echo quit; } | \
timeout 120 $testpmd -l 0-1 -n 1 --no-huge -m 512 --iova-mode=va \
	--file-prefix=mana_up\$\$ -a $bdf --log-level=pmd.net.mana.*:info -- \
	-i --rxq=$nq --txq=$nq --rxd=256 --txd=256 --nb-cores=1 --port-topology=loop \
	--total-num-mbufs=$((2048 * nq)) --no-flush-rx --forward-mode=$fwd_mode \
	--tx-offloads=$tx_offloads $extra_opt
NS
unshare -m --propagation private bash "$work/ns.sh" > "$out" 2>&1
rc=$?
failed=0
[ $rc = 0 ] || fail "testpmd exited $rc"
grep -q "Successfully probed on IB port 1" "$out" || fail "upstream net/mana did not probe"

# NIC statistics of port 0 (the driver's counters)
nic() { sed -n '/NIC statistics for port 0/,/####$/p' "$out" | grep -o "$1: *[0-9]*" | head -1 |
	awk '{print $NF}'; }
fwd() { sed -n '/Forward statistics for port 0/,/-----$/p' "$out" | grep -o "$1: *[0-9]*" |
	head -1 | awk '{print $NF}'; }
model() { grep "^mana_up0 port0 " "$stats" 2>/dev/null | tr ' ' '\n' | awk -F= -v k="$1" \
	'$1 == k {print $2}'; }

rx=$(nic RX-packets) rxerr=$(nic RX-errors) tx=$(nic TX-packets) txerr=$(nic TX-errors)
echo "testpmd $mode: RX-packets=$rx RX-errors=$rxerr TX-packets=$tx TX-errors=$txerr"
[ "$rx" = "$frames" ] || fail "RX-packets $rx, want $frames"
[ "$rxerr" = 0 ] && [ "$txerr" = 0 ] || fail "RX/TX errors $rxerr/$txerr"
# 22.11 counts a TX packet when it reaps the completion, inside the next
# tx_burst; io/csum call tx_burst only with received packets, so the last
# bursts stay uncounted. What left the port is counted by the model's sink.
[ -n "$tx" ] && [ "$tx" -le "$frames" ] && [ "$tx" -ge $((frames - 256 * nq)) ] ||
	fail "TX-packets $tx, want $((frames - 256 * nq))..$frames"
if [ "$mode" = csum ]; then
	badip=$(fwd Bad-ipcsum) badl4=$(fwd Bad-l4csum)
	echo "testpmd csum: Bad-ipcsum=$badip Bad-l4csum=$badl4"
	[ "$badip" = 0 ] && [ "$badl4" = 0 ] || fail "generated frames flagged bad on RX"
fi

cat "$stats" 2>/dev/null || fail "no model statistics ($stats)"
for k in wire_gen_frames tx_frames wire_sink_frames; do
	v=$(model $k)
	[ "$v" = "$frames" ] || fail "model $k=$v, want $frames"
done
for k in wire_sink_bad tx_err db_rejected queue_errors rx_drop_no_wqe rx_drop_no_rxq \
	 rx_drop_sge rx_truncated; do
	v=$(model $k)
	[ "$v" = 0 ] || fail "model $k=$v, want 0"
done
v=$(model rx_coalesced_cqes)
if [ "$coalesce" = 1 ]; then
	[ -n "$v" ] && [ "$v" -gt 0 ] || fail "model rx_coalesced_cqes=$v, want > 0 (coalescing on)"
	echo "coalesced RX completions: $v"
else
	[ "$v" = 0 ] || fail "model rx_coalesced_cqes=$v, want 0 (coalescing off)"
fi
if [ "$mode" = rss ]; then
	# The device's own counters of every queue that ended (written at exit).
	for kind in rq sq; do
		lines=$(grep "^mana_up0 $kind " "$stats")
		n=$(printf '%s\n' "$lines" | grep -c "frames=")
		[ "$n" = "$nq" ] || fail "$n ${kind}s in the device's counters, want $nq"
		sum=0
		for f in $(printf '%s\n' "$lines" | grep -o ' frames=[0-9]*' | cut -d= -f2); do
			[ "$f" -gt 0 ] || fail "a $kind carried no frame: $(printf '%s\n' "$lines" | tr '\n' ';')"
			sum=$((sum + f))
		done
		[ "$sum" = "$frames" ] || fail "${kind}s carried $sum frames, want $frames"
		echo "$kind frames: $(printf '%s\n' "$lines" | grep -o ' frames=[0-9]*' | cut -d= -f2 | tr '\n' ' ')"
	done
fi
case $mode in
vlan_strip|vlan_keep)
	# io forwarding leaves the frames as the driver delivered them: untagged
	# out means the device stripped the tag, tagged out that the driver wrote
	# it back.
	want=0
	[ "$mode" = vlan_keep ] && want=$frames
	v=$(model wire_sink_vlan)
	[ "$v" = "$want" ] || fail "sink saw $v tagged frames, want $want"
	echo "tagged frames at the sink: $v of $frames"
	;;
esac
if [ "$mode" = csum ]; then
	v=$(model wire_sink_csum_ok)
	[ "$v" = "$frames" ] || fail "sink verified $v checksums, want $frames"
fi
if [ $failed != 0 ]; then
	echo "--- $out (tail)"; tail -40 "$out"
	exit 1
fi
echo "PASS: upstream net/mana $mode forwarding, $frames frames, $nq queue pair(s)"
exit 0
