#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
# shellcheck disable=SC2317 # functions called through wait_for, traps
#
# Open vSwitch with DPDK on two net_mana ports (issue 31 item 3):
#
#   ovs_test.sh <directory of librte_net_mana.so> <scenario>
#
# Every scenario starts its own ovsdb-server and DPDK ovs-vswitchd (no
# systemd, nothing of the machine's OVS touched: database, pid files,
# control sockets, logs, OVS_RUNDIR/OVS_DBDIR/OVS_LOGDIR and TMPDIR in a
# temporary directory), with dpdk-init=true and two software devices in dpdk-extra
# (--no-huge, -d <plugin by bare name> through LD_LIBRARY_PATH), each vPort
# wired to a TAP interface (wire=tap:), each TAP moved into a network
# namespace of its own with an address, and a netdev bridge nmbr<pid> (action
# NORMAL) between the two ports: ns0 -- p0 [bridge] p1 -- ns1.
#
# A vPort receives only its own MAC, broadcast and multicast (no promiscuous
# mode, doc/hardware.md §16), so each vPort has the MAC of the namespace
# interface behind the OTHER port: what ns0 sends to ns1 passes p0's filter.
#
# Scenarios (one meson test each):
#   ping          ping both ways
#   stats         OVS's interface statistics equal what the kernel ends sent
#                 and received (ping traffic: nothing is dropped)
#   tcp1500[_tso], tcp9000[_tso]
#                 iperf3 TCP 10 s ns0 -> ns1 at MTU 1500 / 9000 (mtu_request
#                 and the namespace MTU), userspace-tso-enable false / true;
#                 above OVS_TCP_FLOOR_<scenario> Mbit/s (defaults below)
#   tso_br0       TCP 5 s from the bridge's own interface to ns1 with TSO:
#                 OVS sends the kernel's 64 KB segments in external-buffer
#                 mbufs; p1 must send TSO packets and miss no registration
#   rxq2, rxq4    options:n_rxq=N on both ports, 64 TCP streams: every RX
#                 queue of both ports receives (rx_q<i>_packets, the
#                 driver's per-queue counters in OVS's interface statistics);
#                 rxq4 also: n_rxq=3 is refused (queue counts are powers of 2)
#   readd         del-port p1 (ping fails), add-port p1 by its MAC (ping works)
#   restart       ovs-vswitchd stopped and started again; ping and TCP after
# Every scenario ends with: no mana_model.* tree left in the private TMPDIR of
# ovs-vswitchd, no namespace, TAP, bridge interface or process of the test
# left. What a killed run left is removed by the next run (reap_stale).
#
# Descriptors: OVS asks for 2048 per queue. OVS 3.2 and later clamp that to
# the port's limit (OVS commit 9dad8dfd1); OVS 3.1 (Debian 12) does not, so
# there, with a port limit below 2048 (rdma-core 44: 256), the test sets
# options:n_rxq_desc/n_txq_desc to the limit, as doc/user_guide.md tells OVS
# 3.1 users. The limit is read from the running ovs-vswitchd (the driver's
# telemetry, /ethdev/mana/port,<id> max_desc).
#
# Environment: NET_MANA_OVS_VSWITCHD (default: Debian's DPDK ovs-vswitchd,
# /usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk).
# Exit: 0 pass, 1 fail, 77 skipped (not root; no /dev/net/tun, ip netns,
# iperf3, Open vSwitch or its DPDK ovs-vswitchd).

set -u

PMD_DIR=$1
SCEN=$2
VSWITCHD=${NET_MANA_OVS_VSWITCHD:-/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk}
SCHEMA=/usr/share/openvswitch/vswitch.ovsschema

# Throughput floors, Mbit/s: a fifth of the lowest median measured on a loaded
# 2-CPU machine or less, below every run (doc/user_guide.md, "Open vSwitch"),
# so they hold under load and still catch a datapath that stalls.
declare -A FLOOR=([tcp1500]=10 [tcp1500_tso]=10 [tcp9000]=15 [tcp9000_tso]=15
	[tso_br0]=40)

skip() { echo "SKIP: $*"; exit 77; }
pid_alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
pid_gone() { ! pid_alive "$1"; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, TAP interfaces, ovs-vswitchd)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
	skip "no 'ip netns' (iproute2)"
fi
command -v iperf3 >/dev/null || skip "no iperf3 (Debian package iperf3)"
command -v ping >/dev/null || skip "no ping (Debian package iputils-ping)"
for t in ovsdb-tool ovsdb-server ovs-vsctl ovs-appctl ovs-ofctl; do
	command -v $t >/dev/null || skip "no $t (Debian package openvswitch-switch)"
done
[ -x "$VSWITCHD" ] || skip "no DPDK ovs-vswitchd $VSWITCHD (Debian package openvswitch-switch-dpdk)"
[ -f "$SCHEMA" ] || skip "no $SCHEMA (Debian package openvswitch-common)"

# What a run killed before its EXIT trap (SIGKILL, meson's timeout) left: its
# directory names its pid in 'owner'; a directory whose owner is gone has its
# daemons stopped and its namespaces, TAPs and bridge interface removed.
reap_stale() {
	local d o p f
	for d in "${TMPDIR:-/tmp}"/ovs_test.*; do
		o=$(cat "$d/owner" 2>/dev/null) || continue
		pid_alive "$o" && continue
		for f in ovs-vswitchd.pid ovsdb-server.pid; do
			p=$(cat "$d/$f" 2>/dev/null)
			if pid_alive "$p" && grep -qF "$d" "/proc/$p/cmdline" 2>/dev/null; then
				kill -KILL "$p"
			fi
		done
		ip netns del "nm_ovs0_$o" 2>/dev/null
		ip netns del "nm_ovs1_$o" 2>/dev/null
		ip link del "nmovs0_$o" 2>/dev/null
		ip link del "nmovs1_$o" 2>/dev/null
		ip link del "nmbr$o" 2>/dev/null
		rm -rf /var/run/dpdk/ovs_*_"$o"
		rm -f "$d/owner"
		echo "removed what the killed run $o left (logs in $d)"
	done
}
reap_stale

W=$(mktemp -d "${TMPDIR:-/tmp}/ovs_test.XXXXXX") || exit 1
echo $$ > "$W/owner"
mkdir -p "$W/tmp"
id=$$
NS=("nm_ovs0_$id" "nm_ovs1_$id")
TAP=("nmovs0_$id" "nmovs1_$id")
# a subnet per run: tso_br0 puts an address in the root namespace, where two
# runs at once (another checkout's CI, a Debian root) would share a route
net=198.18.$((32 + id % 200))
IP=("$net.1" "$net.2")
BR0_IP=$net.3
NSMAC=(02:00:00:31:00:01 02:00:00:31:00:02)	# the namespace interfaces
# vPort i has the MAC of the namespace interface behind the other port
VPMAC=("${NSMAC[1]}" "${NSMAC[0]}")
PREFIX=ovs_${SCEN}_$id
# the bridge: its internal port is a kernel interface of that name in the
# root namespace, which the netdev datapath keeps after ovs-vswitchd exits
BR=nmbr$id
VSWITCHD_PID=
rc=1
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
log() { echo "ovs_test: $*"; }

vsctl() { ovs-vsctl --db="unix:$W/db.sock" --timeout=60 "$@"; }
appctl() { ovs-appctl -t "$W/ovs-vswitchd.ctl" --timeout=60 "$@"; }
nsx() { local n=$1; shift; ip netns exec "${NS[$n]}" "$@"; }

# wait_for <seconds> <command...>: poll until the command succeeds
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

stop_vswitchd() {
	pid_alive "$VSWITCHD_PID" || return 0
	appctl exit >/dev/null 2>&1
	if ! wait_for 30 pid_gone "$VSWITCHD_PID"; then
		fail "ovs-vswitchd did not exit within 30 s of 'ovs-appctl exit'"
		kill -KILL "$VSWITCHD_PID" 2>/dev/null
	fi
	VSWITCHD_PID=
}

# Stop what the test started; undo the namespaces and TAPs. Idempotent.
cleanup_procs() {
	local p
	stop_vswitchd
	p=$(cat "$W/ovsdb-server.pid" 2>/dev/null)
	if pid_alive "$p"; then
		kill "$p"
		wait_for 10 pid_gone "$p" || kill -KILL "$p" 2>/dev/null
	fi
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for p in 0 1; do
		ip netns pids "${NS[$p]}" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "${NS[$p]}" 2>/dev/null
		ip link del "${TAP[$p]}" 2>/dev/null
	done
	ip link del "$BR" 2>/dev/null
	rm -rf "/var/run/dpdk/$PREFIX"
}

# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	cleanup_procs
	rm -f "$W/owner"
	if [ "$rc" = 0 ]; then
		rm -rf "$W"
	else
		echo "logs kept in $W"
	fi
}
trap cleanup EXIT
trap 'exit 1' TERM INT HUP	# the EXIT trap runs on these too

# ---- OVS ---------------------------------------------------------------

start_ovsdb() {
	ovsdb-tool create "$W/conf.db" "$SCHEMA" || return 1
	ovsdb-server "$W/conf.db" --remote="punix:$W/db.sock" --pidfile="$W/ovsdb-server.pid" \
		--unixctl="$W/ovsdb-server.ctl" --log-file="$W/ovsdb-server.log" \
		--detach --no-chdir > "$W/ovsdb-server.out" 2>&1 || return 1
	vsctl --no-wait init
}

dpdk_initialized() { [ "$(vsctl get Open_vSwitch . dpdk_initialized 2>/dev/null)" = true ]; }

# start_vswitchd: with the dpdk-* and userspace-tso settings already in the
# database; waits until DPDK is initialised (the TAPs exist then).
start_vswitchd() {
	env TMPDIR="$W/tmp" OVS_RUNDIR="$W" OVS_DBDIR="$W" OVS_LOGDIR="$W" \
		OVS_PKGDATADIR=/usr/share/openvswitch \
		LD_LIBRARY_PATH="$PMD_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$VSWITCHD" "unix:$W/db.sock" --pidfile="$W/ovs-vswitchd.pid" \
		--unixctl="$W/ovs-vswitchd.ctl" --log-file="$W/ovs-vswitchd.log" \
		--detach --no-chdir > "$W/ovs-vswitchd.out" 2>&1 ||
		{ fail "ovs-vswitchd did not start"; return 1; }
	VSWITCHD_PID=$(cat "$W/ovs-vswitchd.pid")
	if ! wait_for 60 dpdk_initialized; then
		fail "DPDK in ovs-vswitchd not initialised within 60 s"
		tail -30 "$W/ovs-vswitchd.log"
		return 1
	fi
}

# telemetry <command>: the reply of ovs-vswitchd's DPDK telemetry socket (JSON)
telemetry() {
	python3 - "/var/run/dpdk/$PREFIX/dpdk_telemetry.v2" "$1" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.recv(1 << 16)
s.send(sys.argv[2].encode())
print(s.recv(1 << 20).decode())
EOF
}

# The port's descriptor limit, from the driver's telemetry in ovs-vswitchd.
port_max_desc() {
	telemetry "/ethdev/mana/port,$1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["/ethdev/mana/port"]["max_desc"])'
}

# xstat_sum <port id> <suffix>: the sum of the driver's tx_q<i>_<suffix>
xstat_sum() {
	telemetry "/ethdev/xstats,$1" | python3 -c 'import json, re, sys
x = json.load(sys.stdin)["/ethdev/xstats"]
print(sum(v for k, v in x.items() if re.fullmatch(r"tx_q\d+_" + sys.argv[1], k)))' "$2"
}

ovs_version() { "$VSWITCHD" --version | sed -n '1s/.* \([0-9][0-9.]*\)$/\1/p'; }

# desc_options <dpdk port id>: n_rxq_desc/n_txq_desc where OVS needs them
desc_options() {
	local ver max maj min
	ver=$(ovs_version)
	maj=${ver%%.*}; min=${ver#*.}; min=${min%%.*}
	max=$(port_max_desc "$1") || { echo "cannot read port $1's limit" >&2; return 1; }
	if [ "$maj" -lt 3 ] || { [ "$maj" = 3 ] && [ "$min" -lt 2 ]; }; then
		if [ "$max" -lt 2048 ]; then
			echo "options:n_rxq_desc=$max options:n_txq_desc=$max"
		fi
	fi
	echo "OVS $ver, port $1 max_desc $max" >&2
}

# add_port <i> <dpdk-devargs> [more Interface settings]: port p<i> of DPDK port <i>
add_port() {
	local i=$1 devargs=$2 opts; shift 2
	opts=$(desc_options "$i") || return 1
	# shellcheck disable=SC2086 # opts: settings, split on purpose
	vsctl add-port "$BR" "p$i" -- set Interface "p$i" type=dpdk \
		"options:dpdk-devargs=\"$devargs\"" $opts "$@"
}

# setup [mtu] [tso]: ovsdb-server, ovs-vswitchd, namespaces, bridge
setup() {
	local mtu=${1:-1500} tso=${2:-false} i extra
	start_ovsdb || { fail "ovsdb-server did not start"; return 1; }
	extra="--no-huge -m 1024 --legacy-mem --no-pci --file-prefix $PREFIX -d librte_net_mana.so"
	for i in 0 1; do
		extra+=" --vdev net_mana$i,mac=${VPMAC[$i]},wire=tap:${TAP[$i]}"
	done
	vsctl --no-wait set Open_vSwitch . other_config:dpdk-init=true \
		"other_config:dpdk-extra=\"$extra\"" \
		other_config:userspace-tso-enable="$tso" \
		other_config:per-port-memory=true || return 1
	start_vswitchd || return 1
	for i in 0 1; do
		ip netns add "${NS[$i]}" || return 1
		nsx "$i" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
		ip -n "${NS[$i]}" link set lo up
	done
	attach_taps "$mtu" || return 1
	vsctl add-br $BR -- set Bridge $BR datapath_type=netdev || return 1
	vsctl set Open_vSwitch . other_config:max-idle=10000	# fewer flow revalidations
	for i in 0 1; do
		add_port "$i" "net_mana$i" mtu_request="$mtu" || { fail "add-port p$i"; return 1; }
	done
	wait_ports_up || return 1
	if [ -n "${OVS_TEST_PAUSE:-}" ]; then	# debugging: look around, then touch go
		echo "paused: $W (touch $W/go)"
		wait_for 3600 test -e "$W/go"
	fi
	ping_ok 0 1 || { fail "no ping after setup"; return 1; }
}

# attach_taps <mtu>: move the TAPs the tap wires made into the namespaces.
# The wire creates its TAP in ovs-vswitchd's namespace when DPDK probes the
# vdev; it lives as long as the device (the wire holds its only descriptor),
# so after a restart of ovs-vswitchd it is new and in the root namespace.
attach_taps() {
	local i mtu=$1 peer
	for i in 0 1; do
		peer=$((1 - i))
		wait_for 30 ip link show "${TAP[$i]}" >/dev/null 2>&1 ||
			{ fail "TAP ${TAP[$i]} not made by the tap wire"; return 1; }
		ip link set "${TAP[$i]}" netns "${NS[$i]}" || return 1
		ip -n "${NS[$i]}" link set "${TAP[$i]}" address "${NSMAC[$i]}" mtu "$mtu" up || return 1
		ip -n "${NS[$i]}" addr add "${IP[$i]}/24" dev "${TAP[$i]}" || return 1
		# no ARP: the counters of 'stats' then see only the test's traffic
		ip -n "${NS[$i]}" neigh replace "${IP[$peer]}" lladdr "${NSMAC[$peer]}" \
			dev "${TAP[$i]}" nud permanent || return 1
	done
}

port_up() { [ "$(vsctl get Interface "p$1" link_state 2>/dev/null)" = up ]; }

wait_ports_up() {
	local i
	for i in 0 1; do
		if ! wait_for 30 port_up "$i"; then
			fail "p$i: link not up: $(vsctl get Interface "p$i" error 2>&1)"
			return 1
		fi
	done
}

ping_ok() {	# ping_ok <from> <to>
	nsx "$1" ping -c 3 -i 0.2 -W 2 "${IP[$2]}" >/dev/null 2>&1 ||
		nsx "$1" ping -c 3 -i 0.2 -W 2 "${IP[$2]}" >/dev/null 2>&1
}

iperf_listening() { nsx 1 ss -ltn 2>/dev/null | grep -q ":5201 "; }

# iperf <seconds> [client options]: TCP ns0 -> ns1; prints Mbit/s received
iperf() {
	local t=$1 out; shift
	nsx 1 iperf3 -s -1 -B "${IP[1]}" > "$W/iperf3-server.log" 2>&1 &
	wait_for 10 iperf_listening ||
		{ echo "iperf3 server did not listen" >&2; return 1; }
	if [ -n "${IPERF_FROM_ROOT:-}" ]; then
		out=$(timeout -k 5 $((t + 30)) iperf3 -c "${IP[1]}" -B "$BR0_IP" -t "$t" -J "$@")
	else
		out=$(nsx 0 timeout -k 5 $((t + 30)) iperf3 -c "${IP[1]}" -t "$t" -J "$@")
	fi
	wait
	echo "$out" > "$W/iperf3-client.json"
	python3 -c 'import json, sys
r = json.load(sys.stdin)
if "error" in r:
	sys.exit("iperf3: " + r["error"])
print(int(r["end"]["sum_received"]["bits_per_second"] / 1e6))' <<< "$out"
}

# ---- statistics ---------------------------------------------------------

ovs_stat() { vsctl get Interface "$1" "statistics:$2" 2>/dev/null | tr -d '"'; }
tap_stats() {	# tap_stats <i>: "tx_packets rx_packets tx_bytes rx_bytes" of TAP i
	local c out=
	for c in tx_packets rx_packets tx_bytes rx_bytes; do
		out+="$(nsx "$1" cat "/sys/class/net/${TAP[$1]}/statistics/$c") "
	done
	echo "$out"
}

# The database's copy is refreshed every 5 s: wait until it holds what
# ovs-vswitchd reads now (ovs-ofctl asks it directly) and print it.
ovs_stats_settled() {
	python3 - "$W" "$BR" <<'EOF'
import subprocess, sys, time
w = sys.argv[1]
def db(p):
	out = subprocess.run(['ovs-vsctl', '--db=unix:%s/db.sock' % w, 'get', 'Interface', p,
		'statistics'], capture_output=True, text=True, check=True).stdout
	d = dict(kv.split('=') for kv in out.strip('{}\n').split(', '))
	return {k: int(v) for k, v in d.items()}
def live(p):
	out = subprocess.run(['ovs-ofctl', 'dump-ports', 'unix:%s/%s.mgmt' % (w, sys.argv[2]), p],
		capture_output=True, text=True, check=True).stdout.replace('\n', ' ')
	rx = out.split('rx ', 1)[1]; tx = out.split('tx ', 1)[1]
	return (int(rx.split('pkts=')[1].split(',')[0]), int(tx.split('pkts=')[1].split(',')[0]))
end = time.time() + 30
while True:
	d0, d1 = db('p0'), db('p1')
	l0, l1 = live('p0'), live('p1')
	if (d0['rx_packets'], d0['tx_packets']) == l0 and (d1['rx_packets'], d1['tx_packets']) == l1:
		for p, d in (('p0', d0), ('p1', d1)):
			print(p, d['rx_packets'], d['tx_packets'], d['rx_bytes'], d['tx_bytes'])
		break
	if time.time() > end:
		sys.exit('database statistics did not settle: db %s %s, live %s %s' % (d0, d1, l0, l1))
	time.sleep(0.5)
EOF
}

# ---- scenarios ------------------------------------------------------------

scen_ping() {
	ping_ok 0 1 || fail "ns0 -> ns1: no ping reply"
	ping_ok 1 0 || fail "ns1 -> ns0: no ping reply"
}

scen_stats() {
	local a b n=200 i k0 k1
	a=$(ovs_stats_settled) || { fail "$a"; return; }
	for i in 0 1; do k0[i]=$(tap_stats "$i"); done
	nsx 0 ping -q -c $n -i 0.005 -s 1000 "${IP[1]}" >/dev/null || fail "ns0 -> ns1: pings lost"
	nsx 1 ping -q -c $n -i 0.005 -s 56 "${IP[0]}" >/dev/null || fail "ns1 -> ns0: pings lost"
	b=$(ovs_stats_settled) || { fail "$b"; return; }
	for i in 0 1; do k1[i]=$(tap_stats "$i"); done
	echo "OVS before: $a"; echo "OVS after:  $b"
	python3 - "$a" "$b" "${k0[0]}" "${k0[1]}" "${k1[0]}" "${k1[1]}" $n <<'EOF' || fails=$((fails + 1))
import sys
def parse(s):
	return {l.split()[0]: [int(x) for x in l.split()[1:]] for l in s.splitlines()}
a, b = parse(sys.argv[1]), parse(sys.argv[2])
k0 = [list(map(int, sys.argv[3].split())), list(map(int, sys.argv[4].split()))]
k1 = [list(map(int, sys.argv[5].split())), list(map(int, sys.argv[6].split()))]
n = int(sys.argv[7])
d = {p: [y - x for x, y in zip(a[p], b[p])] for p in a}
ktx = [k1[i][0] - k0[i][0] for i in (0, 1)]
krx = [k1[i][1] - k0[i][1] for i in (0, 1)]
kbtx = [k1[i][2] - k0[i][2] for i in (0, 1)]
kbrx = [k1[i][3] - k0[i][3] for i in (0, 1)]
ok = True
def check(c, what):
	global ok
	print(('ok   ' if c else 'FAIL ') + what)
	ok = ok and c
for i in (0, 1):
	p = 'p%d' % i
	check(d[p][0] == ktx[i], '%s rx_packets +%d == ns%d TAP tx_packets +%d' % (p, d[p][0], i, ktx[i]))
	check(d[p][1] == krx[i], '%s tx_packets +%d == ns%d TAP rx_packets +%d' % (p, d[p][1], i, krx[i]))
	check(d[p][2] == kbtx[i], '%s rx_bytes +%d == ns%d TAP tx_bytes +%d' % (p, d[p][2], i, kbtx[i]))
	check(d[p][3] == kbrx[i], '%s tx_bytes +%d == ns%d TAP rx_bytes +%d' % (p, d[p][3], i, kbrx[i]))
check(d['p0'][0] == d['p1'][1] and d['p1'][0] == d['p0'][1],
      'the bridge forwarded every frame: p0 rx %d = p1 tx %d, p1 rx %d = p0 tx %d'
      % (d['p0'][0], d['p1'][1], d['p1'][0], d['p0'][1]))
check(d['p0'][0] >= 2 * n and d['p1'][0] >= 2 * n, 'at least %d frames each way' % (2 * n))
sys.exit(0 if ok else 1)
EOF
}

scen_tcp() {	# throughput of setup's MTU and TSO setting
	local mbps floor=${FLOOR[$SCEN]}
	local env=OVS_TCP_FLOOR_$SCEN
	floor=${!env:-$floor}
	mbps=$(iperf 10) || { fail "iperf3 failed: $mbps"; return; }
	echo "ovs_test: $SCEN: $mbps Mbit/s (floor $floor)"
	[ "$mbps" -ge "$floor" ] || fail "$SCEN: $mbps Mbit/s, below the floor of $floor"
}

rxq_counts() {	# rxq_counts <port> <n>: the per-queue packet counters, "a b c"
	local q out=
	for ((q = 0; q < $2; q++)); do out+="$(ovs_stat "$1" "rx_q${q}_packets") "; done
	echo "$out"
}

all_queues_received() {	# all_queues_received <n>
	local p c
	for p in p0 p1; do
		for c in $(rxq_counts "$p" "$1"); do
			[ "${c:-0}" -gt 0 ] || return 1
		done
	done
}

configured_rxq() {	# configured_rxq <port>: RX queues the PMD threads poll
	appctl dpif-netdev/pmd-rxq-show | grep -c "port: $1 *queue-id:"
}

rxq_count_is() { [ "$(configured_rxq "$1")" = "$2" ]; }

scen_rxq() {
	local n=${SCEN#rxq} p mbps
	if [ "$n" = 4 ]; then
		# refused: RSS spreads over a power-of-two number of queues
		vsctl set Interface p0 options:n_rxq=3
		wait_for 30 grep -q 'port 0: 3 RX queues; RSS needs a power of two' \
			"$W/ovs-vswitchd.log" || fail "n_rxq=3: the driver's refusal not logged"
		[ "$(configured_rxq p0)" != 3 ] || fail "p0: n_rxq=3 accepted"
		grep -m1 'port 0: 3 RX queues' "$W/ovs-vswitchd.log"
	fi
	for p in p0 p1; do vsctl set Interface "$p" "options:n_rxq=$n"; done
	for p in p0 p1; do
		wait_for 30 rxq_count_is "$p" "$n" ||
			{ fail "$p: not $n RX queues: $(appctl dpif-netdev/pmd-rxq-show)"; return; }
	done
	wait_ports_up || return
	mbps=$(iperf 3 -P 64) || { fail "iperf3 -P 64 failed: $mbps"; return; }
	echo "ovs_test: $SCEN: 64 streams, $mbps Mbit/s"
	wait_for 30 all_queues_received "$n" ||
		fail "not every RX queue received: p0 $(rxq_counts p0 "$n"), p1 $(rxq_counts p1 "$n")"
	echo "rx_q<i>_packets: p0 $(rxq_counts p0 "$n"), p1 $(rxq_counts p1 "$n")"
	appctl dpif-netdev/pmd-rxq-show
}

has_mac() { [ "$(cat "/sys/class/net/$1/address" 2>/dev/null)" = "$2" ]; }

# TCP from the bridge's internal port (a kernel TAP in the root namespace) to
# ns1: with userspace TSO the kernel hands OVS TCP segments of up to 64 KB,
# which OVS copies into mbufs with external buffers (its
# dpdk_pktmbuf_alloc()) and sends with TSO through p1. The bridge takes ns0's MAC,
# the one p1 receives (ns0 stays silent).
scen_tso_br0() {
	local mbps tso mrfail floor=${OVS_TCP_FLOOR_tso_br0:-${FLOOR[tso_br0]}}
	vsctl set Bridge $BR "other_config:hwaddr=${NSMAC[0]}" || { fail "$BR hwaddr"; return; }
	wait_for 10 has_mac "$BR" "${NSMAC[0]}" ||
		{ fail "$BR did not take ${NSMAC[0]}"; return; }
	if ! { ip link set "$BR" up && ip addr add "$BR0_IP/24" dev "$BR" &&
		ip neigh replace "${IP[1]}" lladdr "${NSMAC[1]}" dev "$BR" nud permanent &&
		ip -n "${NS[1]}" neigh replace "$BR0_IP" lladdr "${NSMAC[0]}" \
			dev "${TAP[1]}" nud permanent; }; then
		fail "$BR: address and neighbours not set"
		return
	fi
	mbps=$(IPERF_FROM_ROOT=1 iperf 5) || { fail "iperf3 from $BR: $mbps"; return; }
	tso=$(xstat_sum 1 tso_packets); mrfail=$(xstat_sum 1 mr_fail)
	echo "ovs_test: $SCEN: $BR -> ns1 $mbps Mbit/s (floor $floor); p1 TSO sends $tso, MR misses $mrfail"
	[ "$tso" -gt 0 ] || fail "p1 sent no TSO packet (tx_q*_tso_packets 0)"
	[ "$mrfail" = 0 ] || fail "p1: $mrfail sends with data the driver could not register (tx_q*_mr_fail)"
	[ "$mbps" -ge "$floor" ] || fail "$SCEN: $mbps Mbit/s, below the floor of $floor"
}

scen_readd() {
	vsctl del-port $BR p1 || { fail "del-port p1"; return; }
	if nsx 0 ping -c 2 -i 0.2 -W 1 "${IP[1]}" >/dev/null 2>&1; then
		fail "ping answered with p1 deleted"
	fi
	# again, found by its MAC (OVS's syntax for a port among several of a device)
	add_port 1 "class=eth,mac=${VPMAC[1]}" mtu_request=1500 || { fail "add-port p1 again"; return; }
	wait_ports_up || return
	ping_ok 0 1 || fail "no ping after add-port"
	ping_ok 1 0 || fail "no ping back after add-port"
}

scen_restart() {
	local mbps
	stop_vswitchd
	ls -d "$W"/tmp/mana_model.* >/dev/null 2>&1 &&
		fail "mana_model.* left by the ovs-vswitchd that exited: $(ls -d "$W"/tmp/mana_model.*)"
	start_vswitchd || return
	attach_taps 1500 || { fail "TAPs after restart"; return; }
	wait_ports_up || return
	ping_ok 0 1 || fail "no ping after restart"
	ping_ok 1 0 || fail "no ping back after restart"
	mbps=$(iperf 3) || { fail "iperf3 after restart: $mbps"; return; }
	echo "ovs_test: restart: TCP $mbps Mbit/s after the restart"
}

case "$SCEN" in
ping) setup && scen_ping ;;
stats) setup && scen_stats ;;
tcp1500) setup 1500 false && scen_tcp ;;
tcp1500_tso) setup 1500 true && scen_tcp ;;
tcp9000) setup 9000 false && scen_tcp ;;
tcp9000_tso) setup 9000 true && scen_tcp ;;
rxq2|rxq4) setup && scen_rxq ;;
tso_br0) setup 1500 true && scen_tso_br0 ;;
readd) setup && scen_readd ;;
restart) setup && scen_restart ;;
*) echo "unknown scenario '$SCEN'"; exit 1 ;;
esac || fails=$((fails + 1))

# ---- the end: everything of the test gone ---------------------------------
cleanup_procs
if ls -d "$W"/tmp/mana_model.* >/dev/null 2>&1; then
	fail "left in ovs-vswitchd's TMPDIR: $(ls -d "$W"/tmp/mana_model.*)"
fi
for i in 0 1; do
	ip netns list | grep -qw "${NS[$i]}" && fail "namespace ${NS[$i]} left"
	ip link show "${TAP[$i]}" >/dev/null 2>&1 && fail "TAP ${TAP[$i]} left"
done
ip link show "$BR" >/dev/null 2>&1 && fail "the bridge's interface $BR left"
for f in ovs-vswitchd.pid ovsdb-server.pid; do
	p=$(cat "$W/$f" 2>/dev/null)
	pid_alive "$p" && fail "${f%.pid} (pid $p) still running"
done
grep -E '[|](ERR|EMER)[|]' "$W/ovs-vswitchd.log" | head -5 | sed 's/^/ovs-vswitchd.log: /'
if [ "$fails" = 0 ]; then
	rc=0
	log "$SCEN: PASS (${SECONDS} s)"
else
	log "$SCEN: $fails failure(s); ovs-vswitchd.log:"
	grep -v '|coverage|' "$W/ovs-vswitchd.log" | tail -40
fi
exit "$rc"
