#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# A TCP stream sent with TSO through a TAP wire into a Linux socket in a
# network namespace this test makes (issue 14 item 1):
#
#   tso_tcp_test.sh <directory of librte_net_mana.so> <tso_tcp binary> [vlan] [bytes]
#
# tso_tcp creates net_mana0 with wire=tap:<tap>, starts the port, then runs
# the setup below: the TAP moves into namespace <ns>, gets an address, comes
# up, and has a static neighbour entry for the DPDK side (no ARP); a Python
# socket (tso_tcp_recv.py) listens there. With a VLAN ID (not 0) the address
# is on a VLAN interface over the TAP and tso_tcp tags every frame. tso_tcp connects, sends the stream
# in TSO sends of up to 64 KB and closes; the receiver checks every byte. The
# test passes when both say so and the device segmented (tso_tcp checks
# dev_tx_lso_segments > dev_tx_lso_wqes > 0). The namespace and the TAP are
# removed at the end, also on failure.
#
# TSO_TCP_OPTS: more tso_tcp options (--no-tso: the same stream in plain
# frames, to tell a TSO fault from one of the TCP path).
#
# Exit: 0 pass, 1 fail, 77 skipped (not root, no /dev/net/tun, no ip netns;
# with a VLAN, a kernel without 802.1Q support).

set -u

PMD_DIR=$1
TSO_TCP=$2
VLAN=${3:-0}
BYTES=${4:-8388608}
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (network namespace, TAP interface)"
	exit 77
fi
if [ ! -c /dev/net/tun ]; then
	echo "SKIP: no /dev/net/tun"
	exit 77
fi
if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
	echo "SKIP: no 'ip netns' (iproute2)"
	exit 77
fi

ns=nm_tso_$$
tap=nmtso$$
if [ "$VLAN" != 0 ]; then
	# a VLAN interface needs the kernel's 802.1Q support (module 8021q)
	ip netns add "$ns" || exit 1
	vlan_ok=0
	ip -n "$ns" link add link lo name lo.5 type vlan id 5 2>/dev/null && vlan_ok=1
	ip netns del "$ns"
	if [ "$vlan_ok" = 0 ]; then
		echo "SKIP: this kernel cannot make VLAN interfaces (802.1Q, module 8021q)"
		exit 77
	fi
fi
dev=$tap
[ "$VLAN" = 0 ] || dev=$tap.$VLAN
W=$(mktemp -d "${TMPDIR:-/tmp}/tso_tcp.XXXXXX") || exit 1
DPDK_IP=198.18.14.2 LINUX_IP=198.18.14.1
DPDK_MAC=02:00:00:00:0f:02 LINUX_MAC=02:00:00:00:0f:01
RECV_PID=
rc=1

# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	if [ -n "$RECV_PID" ] && kill -0 "$RECV_PID" 2>/dev/null; then
		kill "$RECV_PID" 2>/dev/null
	fi
	ip netns del "$ns" 2>/dev/null
	ip link del "$tap" 2>/dev/null
	if [ "$rc" = 0 ]; then
		rm -rf "$W"
	else
		echo "logs kept in $W"
	fi
}
trap cleanup EXIT

# Run by tso_tcp once the port has started (the TAP exists and is attached).
cat > "$W/setup.sh" <<SETUP
set -e
ip netns add $ns
ip netns exec $ns sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link set $tap netns $ns
ip -n $ns link set $tap address $LINUX_MAC
ip -n $ns link set lo up
ip -n $ns link set $tap up
[ "$VLAN" = 0 ] || ip -n $ns link add link $tap name $dev type vlan id $VLAN
ip -n $ns link set $dev up
ip -n $ns addr add $LINUX_IP/24 dev $dev
ip -n $ns neigh replace $DPDK_IP lladdr $DPDK_MAC dev $dev nud permanent
ip netns exec $ns python3 $here/tso_tcp_recv.py $LINUX_IP 5001 $BYTES $W/ready 60 \
	> $W/recv.log 2>&1 &
echo \$! > $W/recv.pid
for i in \$(seq 1 200); do [ -f $W/ready ] && exit 0; sleep 0.1; done
echo "the receiver did not start listening"; cat $W/recv.log; exit 1
SETUP

# shellcheck disable=SC2086 # TSO_TCP_OPTS: options, split on purpose
LD_LIBRARY_PATH=$PMD_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	timeout -k 5 120 "$TSO_TCP" -l 0 --no-huge -m 512 --no-pci --file-prefix "tso_tcp_$$" \
	-d librte_net_mana.so --log-level='pmd.net.mana.*:notice' \
	--vdev "net_mana0,mac=$DPDK_MAC,wire=tap:$tap" -- \
	--local-ip $DPDK_IP --peer-ip $LINUX_IP --peer-mac $LINUX_MAC --port 5001 \
	--bytes "$BYTES" --chunk 65160 --mss 1448 --seconds 60 --setup "bash $W/setup.sh" \
	--vlan "$VLAN" ${TSO_TCP_OPTS:-} \
	> "$W/tso_tcp.log" 2>&1
src=$?
cat "$W/tso_tcp.log"
RECV_PID=$(cat "$W/recv.pid" 2>/dev/null)
if [ -n "$RECV_PID" ]; then
	# the receiver ends by itself (EOF or its own timeout)
	for _ in $(seq 1 100); do kill -0 "$RECV_PID" 2>/dev/null || break; sleep 0.2; done
fi
wait 2>/dev/null
cat "$W/recv.log" 2>/dev/null
fails=0
if [ "$src" != 0 ]; then
	echo "FAIL: tso_tcp exit status $src"
	fails=$((fails + 1))
fi
want="^tso_tcp_recv: $BYTES bytes from .* every byte as sent"
if ! grep -q "$want" "$W/recv.log" 2>/dev/null; then
	echo "FAIL: the Linux socket did not read the whole stream intact"
	fails=$((fails + 1))
fi
if [ "$fails" = 0 ]; then
	rc=0
	echo "tso_tcp: PASS ($BYTES bytes, ${SECONDS} s)"
fi
exit "$rc"
