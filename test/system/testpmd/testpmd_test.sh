#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Runs Debian's dpdk-testpmd on a net_mana vdev (software device) in one
# forwarding mode and checks the counters it prints.
#
#   testpmd_test.sh <directory of librte_net_mana.so> <scenario>
#
# Scenarios: io_1q io_1q_2048 io_4q io_4q_threads mac_1q csum_2q rxonly_2q txonly_1q
#            txonly_multiseg_2q
#            vlan_strip vlan_keep settings_new settings_old rx_filter scatter_pcap
#            queue_stop_4q rss_reta_8q rss_reta_mana
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

# TP_DATAPATH=<scalar|sse|avx2|neon>: every vdev on that datapath (meson runs
# the forwarding scenarios once per path of the build); skipped (77) where
# the CPU lacks it. The machine first: under qemu-user an arm64 testpmd sees
# the x86 host's /proc/cpuinfo.
case ${TP_DATAPATH:-} in
sse | avx2) [ "$(uname -m)" = x86_64 ] || { echo "SKIP: $TP_DATAPATH: not x86-64"; exit 77; } ;;
neon) [ "$(uname -m)" = aarch64 ] || { echo "SKIP: neon: not arm64"; exit 77; } ;;
esac
case ${TP_DATAPATH:-} in
sse) grep -q -w sse4_2 /proc/cpuinfo || { echo "SKIP: no SSE4.2"; exit 77; } ;;
avx2) grep -q -w avx2 /proc/cpuinfo || { echo "SKIP: no AVX2"; exit 77; } ;;
esac

# start_testpmd <vdev devargs> <testpmd application args...>
start_testpmd() {
	local vdev=$1${TP_DATAPATH:+,datapath=$TP_DATAPATH}

	shift
	testpmd_spawn $((DEADLINE_S + 30)) --no-pci --file-prefix "tp_${SCENARIO}_$$" \
		--vdev "net_mana_tp,$vdev" \
		-- -i --port-topology=loop --nb-cores=1 --total-num-mbufs=8192 --no-flush-rx "$@"
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
# SETTINGS: more software device settings for the vdev (empty: none).
# The RX and TX burst modes testpmd printed name TP_DATAPATH's path.
check_burst_modes() {
	local name

	case ${TP_DATAPATH:-} in
	scalar) name=Scalar ;;
	sse) name=SSE4.2 ;;
	avx2) name=AVX2 ;;
	neon) name=NEON ;;
	*) return 0 ;;
	esac
	check "burst modes naming $name" "$(grep -a -c "Burst mode: $name," "$OUT")" -eq 2
}

# The device's engine threads in testpmd (a child of the timeout wrapper TP),
# by name (mm-<device>/<i>, the device name cut to 10 characters).
count_engine_threads() {
	local p t

	ENGINE_THREADS=$(for p in $(pgrep -P "$TP"); do cat "/proc/$p/task/"*/comm; done 2>/dev/null |
		grep -c '^mm-net_mana_t/')
	# Their CPUs, each distinct list once (issue 32, D15: all on lcore 0's CPU).
	ENGINE_CPUS=$(for p in $(pgrep -P "$TP"); do
			for t in /proc/"$p"/task/*; do
				grep -q '^mm-net_mana_t/' "$t/comm" 2>/dev/null &&
					awk '/^Cpus_allowed_list:/ { print $2 }' "$t/status"
			done
		done 2>/dev/null | sort -u | tr '\n' ' ')
}

run_forward() {
	local mode=$1 nq=$2 flows=$3 dropped

	shift 3
	start_testpmd "wire=gen:flows=$flows:len=128:count=$N:lossless=1${SETTINGS:+,$SETTINGS}" \
		--forward-mode="$mode" --rxq="$nq" --txq="$nq" "$@"
	cmd "show rxq info 0 0"
	cmd "show txq info 0 0"
	cmd "start"
	wait_xstat rx_good_packets -ge "$N"
	[ -n "${ON_FORWARDED:-}" ] && "$ON_FORWARDED"
	stop_fwd
	dropped=$(fwd TX-dropped)
	wait_xstat dev_wire_sink_frames -ge $((N - ${dropped:-0}))
	quit_testpmd
	check_burst_modes
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

# xstat_port <port> <name>: the value in the last extended statistics block of that port.
xstat_port() {
	awk -v hdr="NIC extended statistics for port $1 " -v key="$2:" '
		{ sub(/^(testpmd> )+/, "") }
		index($0, hdr) { inb = 1; next }
		/statistics for port/ { inb = 0 }
		inb && $1 == key { val = $2 }
		END { print val }' "$OUT"
}

# pcap_frames <file>: one line per captured frame, "<length> <TPID> <TCI>"
# (hex; TPID is bytes 12..13, TCI bytes 14..15).
pcap_frames() {
	python3 - "$1" <<'PY'
import struct, sys
with open(sys.argv[1], 'rb') as f:
    d = f.read()
magic = struct.unpack_from('<I', d, 0)[0]
end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
off = 24
while off + 16 <= len(d):
    caplen = struct.unpack_from(end + 'I', d, off + 8)[0]
    fr = d[off + 16:off + 16 + caplen]
    off += 16 + caplen
    print('%d %04x %04x' % (caplen, (fr[12] << 8) | fr[13], (fr[14] << 8) | fr[15]))
PY
}

# VLAN on RX (doc/design.md, "Receive"): the generator sends 802.1Q-tagged frames
# (VLAN 100, PCP 5) to port 0; io forwarding sends them out of port 1, whose
# wire is a pcap capture. The device strips every tag and reports the VLAN
# ID; with --enable-hw-vlan-strip testpmd sees untagged frames flagged
# RTE_MBUF_F_RX_VLAN_STRIPPED and forwards them untagged; without it the
# driver writes the tag back (VLAN 100, PCP 0: the completion carries only
# the ID) and the capture holds tagged frames.
run_vlan() {
	local strip=$1 nv=2000 len=128 rxlen tpid n dropped sink frames wires
	local -a opt=()

	if [ "$strip" = 1 ]; then
		opt=(--enable-hw-vlan-strip)
		rxlen=$((len - 4)) tpid=0800
	else
		rxlen=$len tpid=8100
	fi
	wires="wire=gen:flows=8:len=$len:count=$nv:lossless=1:vlan=100:pcp=5"
	wires="$wires,wire=pcap:tx=$W/tx.pcap"
	start_testpmd "ports=2,$wires" --forward-mode=io --port-topology=paired \
		--rxq=1 --txq=1 "${opt[@]}"
	cmd "set verbose 1"
	cmd "start"
	wait_xstat rx_good_packets -ge "$nv"
	stop_fwd
	# port 0's frames leave through port 1 (TX ring full: dropped by testpmd)
	dropped=$(block_val "Forward statistics for port" 1 TX-dropped)
	while :; do
		cmd "show port xstats 1"
		sleep 0.5
		sink=$(xstat_port 1 dev_wire_sink_frames)
		if [ -n "$sink" ] && [ "$sink" -ge $((nv - ${dropped:-0})) ]; then
			break
		fi
		may_wait "port 1 dev_wire_sink_frames >= $((nv - ${dropped:-0}))" || break
	done
	cmd "show port stats all"
	cmd "show port xstats 0"
	cmd "show port xstats 1"
	testpmd_quit
	check_log "$OUT" "$LOG_ERRORS" "driver errors in the log"
	# receive side (port 0)
	check "forward RX-packets" "$(fwd RX-packets)" -eq "$nv"
	check "NIC RX-packets" "$(nic RX-packets)" -eq "$nv"
	check "NIC RX-errors" "$(nic RX-errors)" -eq 0
	check "NIC RX-bytes" "$(nic RX-bytes)" -eq $((nv * rxlen))
	check "port 0 dev_rx_bytes (the device stripped every tag)" \
		"$(xstat_port 0 dev_rx_bytes)" -eq $((nv * (len - 4)))
	check "port 0 dev_rx_drop_no_wqe" "$(xstat_port 0 dev_rx_drop_no_wqe)" -eq 0
	check "verbose: packets with VLAN tci=0x64" "$(count_text "VLAN tci=0x64 ")" -eq "$nv"
	check "verbose: packets of type 0x$tpid, $rxlen bytes" \
		"$(count_text "type=0x$tpid - length=$rxlen ")" -eq "$nv"
	check "verbose: RTE_MBUF_F_RX_VLAN_STRIPPED" \
		"$(count_text "RTE_MBUF_F_RX_VLAN_STRIPPED")" -eq $((strip * nv))
	# far side (port 1's capture)
	sink=$(xstat_port 1 dev_wire_sink_frames)
	check "sink frames + testpmd TX-dropped" $((${sink:-0} + ${dropped:-0})) -eq "$nv"
	check "forward TX-dropped (ring full)" "${dropped:-0}" -lt $((nv / 10))
	check "port 1 dev_wire_sink_bad" "$(xstat_port 1 dev_wire_sink_bad)" -eq 0
	check "port 1 dev_wire_sink_vlan" "$(xstat_port 1 dev_wire_sink_vlan)" -eq \
		$(((1 - strip) * ${sink:-0}))
	frames=$(pcap_frames "$W/tx.pcap")
	check "captured frames" "$(printf '%s\n' "$frames" | grep -c .)" -eq "${sink:-0}"
	if [ "$strip" = 1 ]; then
		n=$(printf '%s\n' "$frames" | grep -c "^$rxlen 0800 ")
		check "captured frames: untagged, $rxlen bytes" "$n" -eq "${sink:-0}"
	else
		n=$(printf '%s\n' "$frames" | grep -c "^$len 8100 0064$")
		check "captured frames: tagged VLAN 100, PCP 0, DEI 0" "$n" -eq "${sink:-0}"
	fi
}

# The software device's settings (user guide, "Software device settings"):
# io forwarding on the shared doorbell page without RX coalescing, spelt the
# new way (no deprecation line) or the old way (one line per old spelling).
run_settings() {
	local spelling=$1

	if [ "$spelling" = new ]; then
		SETTINGS="doorbell=shared,coalesce=0,engine_cpu=-1"
	else
		SETTINGS="doorbell=object,rx_coalesce=0,cpu=-1"
	fi
	run_forward io 2 16
	check_queues 2 "$N"
	check "dev_rx_coalesced_cqes (coalescing off)" "$(xstat dev_rx_coalesced_cqes)" -eq 0
	if [ "$spelling" = new ]; then
		check "deprecation lines" "$(count_text "deprecated")" -eq 0
	else
		check "line: devarg rx_coalesce is deprecated" \
			"$(count_text "devarg rx_coalesce is deprecated, use coalesce")" -eq 1
		check "line: devarg doorbell=object is deprecated" \
			"$(count_text "devarg doorbell=object is deprecated, use doorbell=queue")" -eq 1
		check "line: devarg cpu is deprecated" \
			"$(count_text "devarg cpu is deprecated, use engine_cpu")" -eq 1
	fi
}

# write_runt_pcap <file>: a capture of 1- and 13-byte records, a frame to a
# foreign unicast MAC and three broadcast frames (60 bytes each).
write_runt_pcap() {
	python3 - "$1" <<'PY'
import struct, sys
foreign = bytes.fromhex("02aabbccddee") + b"\x02" * 6 + b"\x08\x00" + bytes(46)
frames = [b"\x01", b"\xff" * 13, foreign]
frames += [b"\xff" * 6 + b"\x02" * 6 + b"\x08\x06" + bytes([i]) * 46 for i in range(3)]
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for i, fr in enumerate(frames):
        f.write(struct.pack("<IIII", 1000 + i, 0, len(fr), len(fr)) + fr)
PY
}

# rx_filter (issue 13 item 13, hardware.md §16): the vPort takes broadcast
# and its own MAC; unicast to another MAC and frames shorter than an Ethernet
# header are dropped and counted (dev_rx_drop_filter, dev_rx_drop_runt),
# never handed to the application. Three runs of one port each.
run_rx_filter() {
	local n=2000

	start_testpmd "wire=gen:dmac=02-aa-bb-cc-dd-ee:count=$n:lossless=1" --forward-mode=rxonly
	cmd "start"
	wait_xstat dev_rx_drop_filter -ge "$n"
	stop_fwd
	quit_testpmd
	check "foreign unicast: dev_wire_gen_frames" "$(xstat dev_wire_gen_frames)" -eq "$n"
	check "foreign unicast: dev_rx_drop_filter" "$(xstat dev_rx_drop_filter)" -eq "$n"
	check "foreign unicast: rx_good_packets" "$(xstat rx_good_packets)" -eq 0
	check "foreign unicast: forward RX-packets" "$(fwd RX-packets)" -eq 0

	rm -f "$W/in"
	start_testpmd "wire=gen:dmac=ff-ff-ff-ff-ff-ff:count=$n:lossless=1" --forward-mode=rxonly
	cmd "start"
	wait_xstat rx_good_packets -ge "$n"
	stop_fwd
	quit_testpmd
	check "broadcast: rx_good_packets" "$(xstat rx_good_packets)" -eq "$n"
	check "broadcast: forward RX-packets" "$(fwd RX-packets)" -eq "$n"
	check "broadcast: dev_rx_drop_filter" "$(xstat dev_rx_drop_filter)" -eq 0

	rm -f "$W/in"
	write_runt_pcap "$W/runts.pcap"
	start_testpmd "wire=pcap:rx=$W/runts.pcap" --forward-mode=rxonly
	cmd "start"
	wait_xstat rx_good_packets -ge 3
	wait_xstat dev_rx_drop_runt -ge 2
	stop_fwd
	quit_testpmd
	check "pcap: dev_rx_drop_runt (1 and 13 bytes)" "$(xstat dev_rx_drop_runt)" -eq 2
	check "pcap: dev_rx_drop_filter" "$(xstat dev_rx_drop_filter)" -eq 1
	check "pcap: rx_good_packets (broadcast)" "$(xstat rx_good_packets)" -eq 3
	check "pcap: rx_good_bytes" "$(xstat rx_good_bytes)" -eq 180
}

# write_jumbo_pcap <file>: frames of many sizes 64..9014 (non-IP, broadcast),
# each with its own payload; prints how many.
write_jumbo_pcap() {
	python3 - "$1" <<'PY'
import struct, sys
sizes = list(range(64, 301)) + [1514, 1518, 4096, 8192] + list(range(9000, 9015))
for b in range(1920, 9015, 2048):	# the 2 KB mbuf chain boundaries, +-2
    sizes += [n for n in range(b - 2, b + 3) if n <= 9014]
sizes += list(range(301, 9000, 97))
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for i, n in enumerate(sizes):
        hdr = b"\xff" * 6 + bytes([2, 0, 0, 0, i >> 8, i & 255]) + b"\x88\xb5"
        body = bytes((i * 31 + 7 * k) & 255 for k in range(n - len(hdr)))
        f.write(struct.pack("<IIII", 1000 + i, 0, n, n) + hdr + body)
print(len(sizes))
PY
}

# compare_pcaps <in> <out>: "<frames out> <out of order or altered> <sizes>":
# every frame of out must be the next one of in, byte for byte (frames
# testpmd dropped on a full TX ring are skipped over).
compare_pcaps() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
def frames(path):
    d = open(path, "rb").read()
    out, off = [], 24
    while off + 16 <= len(d):
        _, _, cap, orig = struct.unpack_from("<IIII", d, off)
        out.append(d[off + 16:off + 16 + cap] if cap == orig else b"")
        off += 16 + cap
    return out
src, dst = frames(sys.argv[1]), frames(sys.argv[2])
i = bad = 0
for fr in dst:
    while i < len(src) and src[i] != fr:
        i += 1
    if i == len(src):
        bad += 1
        i = 0
    else:
        i += 1
print(len(dst), bad, len(set(len(f) for f in dst)))
PY
}

# scatter_pcap: 2048-byte mbufs, MTU 9000 (doc/design.md, "Receive"): frames of
# 64..9014 bytes replayed from a capture arrive in chains of up to 5 mbufs,
# leave as multi-segment packets and are captured again byte-exact, every one.
# The capture replays faster than a full TX ring of 5-segment packets drains
# when the machine is loaded (CI under qemu-user: 64 of 366 dropped by
# testpmd), so testpmd retries a short burst for up to 1 s (io retry) and
# nothing may be dropped.
run_scatter_pcap() {
	local n res out bad sizes dropped

	n=$(write_jumbo_pcap "$W/jumbo.pcap")
	start_testpmd "wire=pcap:rx=$W/jumbo.pcap:tx=$W/out.pcap" --forward-mode=io \
		--mbuf-size=2048 --max-pkt-len=9018 --enable-scatter
	cmd "set fwd io retry"
	cmd "set burst tx delay 100 retry 10000"
	cmd "show rxq info 0 0"
	cmd "start"
	wait_xstat rx_good_packets -ge "$n"
	stop_fwd
	dropped=$(fwd TX-dropped)
	wait_xstat dev_tx_frames -ge $((n - ${dropped:-0}))
	quit_testpmd
	check_str "rxq info: scattered RX" "$(grep -a -o 'RX scattered packets: on' "$OUT" |
		head -1)" "RX scattered packets: on"
	check_str "rxq info: burst mode" "$(grep -a -o 'Scalar, scattered (5 SGEs, 10112-byte frames)' \
		"$OUT" | head -1)" "Scalar, scattered (5 SGEs, 10112-byte frames)"
	check "NIC RX-packets" "$(nic RX-packets)" -eq "$n"
	check "NIC RX-errors" "$(nic RX-errors)" -eq 0
	check "rx_truncated" "$(xstat rx_truncated)" -eq 0
	check "dev_queue_errors" "$(xstat dev_queue_errors)" -eq 0
	check "forward TX-dropped (io retry)" "${dropped:-0}" -eq 0
	res=$(compare_pcaps "$W/jumbo.pcap" "$W/out.pcap")
	read -r out bad sizes <<< "$res"
	check "captured frames + TX-dropped" $((${out:-0} + ${dropped:-0})) -eq "$n"
	check "captured frames not byte-exact or out of order" "${bad:-1}" -eq 0
	check "distinct sizes captured" "${sizes:-0}" -ge 300
}

SETTINGS=
# queue_state Rx|Tx: the state `show rxq/txq info` printed last (started, stopped).
queue_state() {
	grep -a -o "$1 queue state: [a-z]*" "$OUT" | tail -n 1 | awk '{ print $4 }'
}

# xstats_now: `show port xstats 0`, and time for it to be printed.
xstats_now() {
	cmd "show port xstats 0"
	sleep 0.5
}

# RX queue 1 stopped on a 4-queue io-forwarding port (testpmd takes queue
# commands with forwarding stopped, and skips stopped queues when it forwards
# again): queue 1 receives nothing more and the device drops its share for
# want of posted buffers (dev_rx_drop_no_wqe) while queue 0 goes on; started
# again, it receives. Then `deferred_start on` for RX and TX queue 2: after
# `port start` both report deferred and stopped and queue 2 receives nothing;
# `port 0 rxq/txq 2 start` starts them. The generator is not lossless (a
# lossless one would wait for the stopped queue's buffers).
run_queue_stop() {
	local q1 q0 d

	start_testpmd "wire=gen:flows=64:len=128:rate=20000" --rxq=4 --txq=4
	cmd "start"
	wait_xstat rx_q1_packets -ge 500 || return
	stop_fwd
	cmd "port 0 rxq 1 stop"
	cmd_wait "Rx queue state:" "show rxq info 0 1"
	check_str "rxq 1 state after rxq stop" \
		"$(queue_state Rx)" "stopped"
	xstats_now
	q1=$(xstat rx_q1_packets)
	q0=$(xstat rx_q0_packets)
	d=$(xstat dev_rx_drop_no_wqe)
	cmd "start"
	wait_xstat rx_q0_packets -ge $((q0 + 2000)) || return
	check "rx_q1_packets while queue 1 is stopped" "$(xstat rx_q1_packets)" -eq "$q1"
	check "dev_rx_drop_no_wqe while queue 1 is stopped" "$(xstat dev_rx_drop_no_wqe)" \
		-ge $((d + 1000))
	stop_fwd
	cmd "port 0 rxq 1 start"
	cmd "start"
	wait_xstat rx_q1_packets -ge $((q1 + 2000)) || return
	stop_fwd

	cmd "port stop 0"
	cmd "port 0 rxq 2 deferred_start on"
	cmd "port 0 txq 2 deferred_start on"
	cmd "port start 0"
	cmd_wait "Rx queue state:" "show rxq info 0 2"
	cmd_wait "Tx queue state:" "show txq info 0 2"
	check_str "rxq 2 deferred" "$(grep -a -o 'RX deferred start: on' "$OUT" | tail -n 1)" \
		"RX deferred start: on"
	check_str "txq 2 deferred" "$(grep -a -o 'TX deferred start: on' "$OUT" | tail -n 1)" \
		"TX deferred start: on"
	check_str "rxq 2 state after port start" \
		"$(queue_state Rx)" "stopped"
	check_str "txq 2 state after port start" \
		"$(queue_state Tx)" "stopped"
	xstats_now
	q1=$(xstat rx_q2_packets)
	q0=$(xstat rx_q0_packets)
	cmd "start"
	wait_xstat rx_q0_packets -ge $((q0 + 2000)) || return
	check "rx_q2_packets while deferred" "$(xstat rx_q2_packets)" -eq "$q1"
	stop_fwd
	cmd "port 0 rxq 2 start"
	cmd "port 0 txq 2 start"
	cmd_wait "Rx queue state:" "show rxq info 0 2"
	cmd_wait "Tx queue state:" "show txq info 0 2"
	check_str "rxq 2 state after rxq start" \
		"$(queue_state Rx)" "started"
	check_str "txq 2 state after txq start" \
		"$(queue_state Tx)" "started"
	d=$(xstat tx_q2_packets)
	cmd "start"
	wait_xstat rx_q2_packets -ge $((q1 + 2000)) || return
	wait_xstat tx_q2_packets -ge $((d + 2000)) || return
	stop_fwd
	quit_testpmd
}

# rx_q<i>_packets of the queue that received frames (a single flow: one queue).
busy_queue() {
	local nq=$1 q

	for ((q = 0; q < nq; q++)); do
		if [ "$(xstat "rx_q${q}_packets")" -gt 0 ]; then
			echo "$q"
			return
		fi
	done
	echo -1
}

# reta_pairs <nq> <slot> <queue>: testpmd's (entry,queue) list giving <queue>
# to every entry i with i % nq = slot.
reta_pairs() {
	local nq=$1 s=$2 q=$3 i out=

	for ((i = s; i < 64; i += nq)); do
		out+="($i,$q)"
	done
	echo "$out"
}

# flow_on <nq> <q> <what>: one flow, so one queue: the next 2000 frames go
# to queue q, and every other queue's counter stays.
flow_on() {
	local nq=$1 q=$2 what=$3 i before=()

	xstats_now
	for ((i = 0; i < nq; i++)); do
		before[i]=$(xstat "rx_q${i}_packets")
	done
	cmd "start"
	wait_xstat "rx_q${q}_packets" -ge $((before[q] + 2000)) || return 1
	stop_fwd
	xstats_now
	for ((i = 0; i < nq; i++)); do
		[ "$i" -eq "$q" ] && continue
		check "rx_q${i}_packets $what (the flow is on queue $q)" \
			"$(xstat "rx_q${i}_packets")" -eq "${before[i]}"
	done
}

# reta_entry <entry>: the queue testpmd's last "show port 0 rss reta" printed for it.
reta_entry() {
	grep -a -o -E "hash index=$1, queue=[0-9]+" "$OUT" | tail -n 1 | sed 's/.*queue=//'
}

# Issue 31: RETA updates of some entries (Debian's testpmd, "port config 0
# rss reta (i,q)..."), given to the started port. A merged table that keeps
# the device's shape (2^n distinct queues repeated every 2^n entries; here
# a permutation of the 8 queues) is taken; one that breaks it is refused
# with the driver's line naming the entries that must change together, or
# the distinct queues when their count is no power of two. A single flow (one queue)
# shows which table is in effect through the per-queue counters.
run_rss_reta_8q() {
	local q r i others msg

	start_testpmd "wire=gen:flows=1:len=128:rate=20000" --rxq=8 --txq=8
	cmd "start"
	wait_xstat rx_good_packets -ge 1000 || return
	stop_fwd
	xstats_now
	q=$(busy_queue 8)
	check "the flow's queue" "$q" -ge 0
	r=$(((q + 1) % 8))
	# What DTS does: the flow's entry and one more, alone.
	cmd_wait "Bad redirection table parameter" "port config 0 rss reta ($q,$r)($r,$q)"
	msg="port 0: RETA entry $((q + 8)) = queue $q (kept) but entry $q = queue $r (updated):"
	msg+=" with 8 distinct queues (0, 1, 2, 3, 4, 5, 6 and 7) the device repeats entries"
	msg+=" 0..7 over its 64, so entries $q, $((q + 8)), ..., $((q + 56)) must name the same"
	msg+=" queue"
	check "refusal naming the entries to change together" "$(count_text "$msg")" -eq 1
	flow_on 8 "$q" "after the refused update" || return
	# Half of a swap: queue q left out, 7 distinct queues, refused.
	cmd_wait "Bad redirection table parameter" \
		"port config 0 rss reta $(reta_pairs 8 "$q" "$r")"
	others=
	for ((i = 0; i < 8; i++)); do
		[ "$i" -eq "$q" ] && continue
		others+="${others:+, }$i"
	done
	others="${others%, *} and ${others##*, }"
	msg="port 0: RETA names 7 distinct queues ($others); the device's table holds 1, 2,"
	msg+=" 4, ... distinct queues, each once, repeated over the 64 entries"
	check "refusal of 7 distinct queues" "$(count_text "$msg")" -eq 1
	flow_on 8 "$q" "after the second refused update" || return
	# Queues q and r swapped in all their 16 entries, one command: taken.
	cmd "port config 0 rss reta $(reta_pairs 8 "$q" "$r")$(reta_pairs 8 "$r" "$q")"
	cmd_wait "RSS RETA configuration: hash index=63," \
		"show port 0 rss reta 64 (0xffffffffffffffff)"
	check "refusals" "$(count_text "Bad redirection table parameter")" -eq 2
	check "RETA entry $q" "$(reta_entry "$q")" -eq "$r"
	check "RETA entry $((q + 56))" "$(reta_entry $((q + 56)))" -eq "$r"
	check "RETA entry $r" "$(reta_entry "$r")" -eq "$q"
	check "RETA entry $(((r + 3) % 8))" "$(reta_entry $(((r + 3) % 8)))" -eq $(((r + 3) % 8))
	flow_on 8 "$r" "after the swap" || return
	quit_testpmd
}

# dpdk-testpmd-mana's "mana port 0 rss reta ...": the whole table from a
# pattern, on 4 queues. "3 2 1 0" moves the flow from queue q to 3 - q;
# "0 1", a table over 2 of the 4 queues, to q % 2; "0" (DTS's const0) to
# queue 0; round-robin brings it back; patterns the device cannot take (3
# distinct queues, a count that does not divide 64, no such queue) are
# refused.
run_rss_reta_mana() {
	local q msg

	TESTPMD=${TESTPMD_MANA:-}
	if [ ! -x "$TESTPMD" ]; then
		echo "SKIP: dpdk-testpmd-mana not built (TESTPMD_MANA)"
		exit 77
	fi
	testpmd_spawn --builtin 1 $((DEADLINE_S + 30)) --no-pci --file-prefix "tp_${SCENARIO}_$$" \
		--vdev "net_mana_tp,wire=gen:flows=1:len=128:rate=20000" \
		-- -i --port-topology=loop --nb-cores=1 --total-num-mbufs=8192 --no-flush-rx \
		--rxq=4 --txq=4
	cmd "start"
	wait_xstat rx_good_packets -ge 1000 || return
	stop_fwd
	xstats_now
	q=$(busy_queue 4)
	check "the flow's queue" "$q" -ge 0
	cmd_wait "MANA port 0 RSS table:" "mana port 0 rss reta 3 2 1 0"
	check "pattern 3 2 1 0 taken" \
		"$(count_text "MANA port 0 RSS table: entry i = queue 3 2 1 0 [i % 4]")" -eq 1
	flow_on 4 $((3 - q)) "after 'rss reta 3 2 1 0'" || return
	cmd_wait "RSS table: refused" "mana port 0 rss reta 0 1 2 0"
	msg="port 0: RETA names 3 distinct queues (0, 1 and 2); the device's table holds 1,"
	msg+=" 2, 4, ... distinct queues, each once, repeated over the 64 entries"
	check "pattern 0 1 2 0 refused by the driver" "$(count_text "$msg")" -eq 1
	cmd_wait "does not repeat evenly" "mana port 0 rss reta 0 1 2"
	cmd_wait "nor round-robin" "mana port 0 rss reta 0 4 1 2"
	flow_on 4 $((3 - q)) "after the refused patterns" || return
	cmd_wait "MANA port 0 RSS table:" "mana port 0 rss reta 0 1"
	check "pattern 0 1 taken" \
		"$(count_text "MANA port 0 RSS table: entry i = queue 0 1 [i % 2]")" -eq 1
	flow_on 4 $((q % 2)) "after 'rss reta 0 1'" || return
	cmd_wait "MANA port 0 RSS table:" "mana port 0 rss reta 0"
	check "pattern 0 taken" \
		"$(count_text "MANA port 0 RSS table: entry i = queue 0 [i % 1]")" -eq 1
	flow_on 4 0 "after 'rss reta 0'" || return
	cmd_wait "MANA port 0 RSS table:" "mana port 0 rss reta round-robin"
	check "round-robin taken" \
		"$(count_text "MANA port 0 RSS table: entry i = queue 0 1 2 3 [i % 4]")" -eq 1
	flow_on 4 "$q" "after 'rss reta round-robin'" || return
	quit_testpmd
}

case "$SCENARIO" in
io_1q)
	run_forward io 1 8
	;;
io_1q_2048)
	# 2048-entry rings (doc/user_guide.md "Ring depth"): a device mirroring
	# rdma-core >= 49 on a kernel that allows 2048.
	SETTINGS="max_qp_wr=2048,rdma_core=56"
	run_forward io 1 8 --rxd=2048 --txd=2048
	check "RX ring of 2048" "$(grep -c 'Number of RXDs: 2048' "$OUT")" -ge 1
	check "TX ring of 2048" "$(grep -c 'Number of TXDs: 2048' "$OUT")" -ge 1
	;;
settings_new)
	run_settings new
	;;
settings_old)
	run_settings old
	;;
io_4q)
	run_forward io 4 64
	check_queues 4 "$N"
	;;
io_4q_threads)
	# Queues spread over two engine threads (doc/user_guide.md "Engine
	# threads"): queues 1 and 3 of each kind on thread 1, the wire on thread
	# 0, so half the frames pass an RX queue's handoff ring and two threads
	# send on one wire. Every frame still arrives once, on every queue.
	SETTINGS="engine_threads=2"
	ON_FORWARDED=count_engine_threads
	run_forward io 4 64
	check_queues 4 "$N"
	check "engine threads mm-net_mana_t/<i> while forwarding" "$ENGINE_THREADS" -eq 2
	# Not pinned: every CPU this test may use, not the main lcore's alone
	# (testpmd runs -l 0-1; doc/user_guide.md "Engine threads").
	check_str "engine threads' Cpus_allowed_list (not pinned)" "$ENGINE_CPUS" \
		"$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status) "
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
rx_filter)
	run_rx_filter
	;;
vlan_strip)
	run_vlan 1
	;;
vlan_keep)
	run_vlan 0
	;;
scatter_pcap)
	run_scatter_pcap
	;;
txonly_multiseg_2q)
	# Three 64-byte segments per packet (MULTI_SEGS offload 0x8000).
	run_txonly 2 64,64,64 192 --tx-offloads=0x8000
	;;
queue_stop_4q)
	run_queue_stop
	;;
rss_reta_8q)
	run_rss_reta_8q
	;;
rss_reta_mana)
	run_rss_reta_mana
	;;
*)
	echo "unknown scenario $SCENARIO"
	exit 1
	;;
esac

harness_exit
