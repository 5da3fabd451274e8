# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""The cases, suite by suite, after DTS's dts/tests/TestSuite_<suite>.py (v25.11).

Port 0's TAP is DTS's traffic generator egress, port 1's its ingress. A case
returns its PASS reason, raises CaseFailed, or raises CaseNA citing the
hardware.md section of the MANA property it needs and lacks (after checking
that the driver refuses it as that section says).
"""

import logging
import re

# scapy warns of missing routes when it fills in addresses: no route is used here.
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.layers.inet import IP, TCP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import Dot1Q, Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402

import conflib as L  # noqa: E402
from conflib import CaseFailed, CaseNA, Testpmd, refused, verify  # noqa: E402

P0, P1 = L.PORT_MAC

# ---- helpers --------------------------------------------------------------------


def sid(i):
    """Source MAC that names test frame i in testpmd's verbose output."""
    return "02:00:00:00:aa:%02x" % (i & 0xFF)


def eth(i=1, dst=P0):
    return Ether(src=sid(i), dst=dst)


def marker_frame(n):
    return Ether(src=L.TG_MAC, dst=P0, type=0x88B5) / Raw(b"CONFMARK%06d" % n + b"\0" * 40)


_marker_no = [0]


def send_expect(ctx, pkt, key, should_receive, timeout=L.FRAME_TIMEOUT_S):
    """Send pkt on port 0's TAP; the first frame on port 1's TAP holding key, or None.
    A frame that must not arrive is followed by a marker on the same path:
    its arrival shows the first one would have arrived by then."""
    w_in, w_out = ctx.wires
    w_out.drain()
    w_in.send(pkt)
    if should_receive:
        frames = w_out.collect(lambda f: any(key in x for x in f), timeout)
    else:
        _marker_no[0] += 1
        mk = b"CONFMARK%06d" % _marker_no[0]
        w_in.send(marker_frame(_marker_no[0]))
        frames = w_out.collect(lambda f: any(mk in x for x in f), timeout)
        verify(any(mk in x for x in frames),
               "the marker frame sent after the dropped one never arrived")
    for f in frames:
        if key in f:
            return f
    return None


def expect_fwd(ctx, pkt, key, what):
    f = send_expect(ctx, pkt, key, True)
    verify(f is not None, f"{what}: not forwarded to port 1")
    return f


def expect_drop(ctx, pkt, key, what):
    f = send_expect(ctx, pkt, key, False)
    verify(f is None, f"{what}: forwarded, expected dropped")


def cmd_ok(tp, line):
    out = tp.cmd(line)
    bad = L.refused_line(out)
    verify(bad is None, f"'{line}' failed: {bad}")
    return out


def rx_verbose(ctx, tp, pkt, i, start_stop=True):
    """Send pkt (source MAC sid(i)) and return its verbose RX record."""
    mark = tp.mark()
    if start_stop:
        tp.cmd("start")
    ctx.wires[0].send(pkt)
    m = tp.wait_output(mark, r"(?i)src=%s[^\n]*\n\s*ol_flags: [^\n]*\n" % re.escape(sid(i)))
    if start_stop:
        tp.cmd("stop")
    verify(m is not None, f"frame {sid(i)} not received by port 0 (verbose output)")
    recs = [p for p in L.verbose_packets(tp.output_since(mark)) if p["src"] == sid(i)]
    verify(recs, f"frame {sid(i)}: verbose record not parsed")
    return recs[0]


def checksums_ok(raw):
    """The received frame's IPv4/TCP/UDP checksums are right (scapy recomputes them)."""
    p = Ether(raw)
    for cls in (IP, TCP, UDP):
        if cls in p:
            got = p[cls].chksum
            q = Ether(raw)
            del q[cls].chksum
            want = Ether(bytes(q))[cls].chksum
            if got != want:
                return f"{cls.__name__} checksum 0x{got:04x}, expected 0x{want:04x}"
    return None


def port_info(tp, port=0):
    return tp.cmd(f"show port info {port}")


def rx_capa(tp):
    return tp.cmd("show port 0 rx_offload capabilities")


def no_wqe_drops(tp, port):
    xs = tp.xstats(port)
    return sum(v for k, v in xs.items() if "no_wqe" in k)


# ---- checksum_offload -------------------------------------------------------------

CS_DPORT = 50000
CS_LOAD = b"xxxxx"


def cs_testpmd(ctx):
    tp = Testpmd(ctx, ["--enable-rx-cksum", "--forward-mode=csum"])
    cmd_ok(tp, "set verbose 1")
    return tp


def cs_setup_hw(tp):
    cmd_ok(tp, "port stop all")
    for port in (0, 1):
        for layer in ("ip", "udp", "tcp"):
            cmd_ok(tp, f"csum set {layer} hw {port}")
    cmd_ok(tp, "port start all")


def cs_flags(ctx, tp, pkt, i, good_l4, good_ip):
    r = rx_verbose(ctx, tp, pkt, i)
    is_ip = "RTE_MBUF_F_RX_IP_CKSUM_GOOD" in r["flags"]
    is_l4 = "RTE_MBUF_F_RX_L4_CKSUM_GOOD" in r["flags"]
    verify(is_l4 == good_l4, f"frame {i}: L4 checksum GOOD flag {is_l4}, expected {good_l4} "
           f"({' '.join(r['flags'])})")
    verify(is_ip == good_ip, f"frame {i}: IP checksum GOOD flag {is_ip}, expected {good_ip} "
           f"({' '.join(r['flags'])})")


def cs_insert_packets():
    return [eth(1) / IP() / UDP(dport=CS_DPORT) / Raw(CS_LOAD),
            eth(2) / IP() / TCP(dport=CS_DPORT) / Raw(CS_LOAD),
            eth(3) / IPv6(src="::1") / UDP(dport=CS_DPORT) / Raw(CS_LOAD),
            eth(4) / IPv6(src="::1") / TCP(dport=CS_DPORT) / Raw(CS_LOAD)]


def cs_forward_all(ctx, tp, pkts):
    cmd_ok(tp, "start")
    for p in pkts:
        f = expect_fwd(ctx, p, CS_LOAD, f"{p.summary()}")
        bad = checksums_ok(f)
        verify(bad is None, f"{p.summary()}: forwarded with {bad}")
    cmd_ok(tp, "stop")


def cs_insert_checksums(ctx):
    pkts = cs_insert_packets()
    with cs_testpmd(ctx) as tp:
        cs_setup_hw(tp)
        cs_forward_all(ctx, tp, pkts)
        for i, p in enumerate(pkts, 1):
            cs_flags(ctx, tp, p, i, True, True)
    return "IPv4/IPv6 UDP/TCP forwarded with checksums inserted by the device; RX flags GOOD"


def cs_no_insert_checksums(ctx):
    pkts = cs_insert_packets()
    with cs_testpmd(ctx) as tp:
        cs_forward_all(ctx, tp, pkts)
        for i, p in enumerate(pkts, 1):
            cs_flags(ctx, tp, p, i, True, True)
    return "forwarded with software checksums; RX flags GOOD"


def cs_l4_rx(ctx):
    pkts = [eth(1) / IP() / UDP(dport=CS_DPORT), eth(2) / IP() / TCP(dport=CS_DPORT),
            eth(3) / IP() / UDP(chksum=0xF, dport=CS_DPORT),
            eth(4) / IP() / TCP(chksum=0xF, dport=CS_DPORT)]
    with cs_testpmd(ctx) as tp:
        cs_setup_hw(tp)
        for i in (1, 2):
            cs_flags(ctx, tp, pkts[i - 1], i, True, True)
        for i in (3, 4):
            cs_flags(ctx, tp, pkts[i - 1], i, False, True)
    return "bad UDP/TCP checksums not GOOD, good ones GOOD"


def cs_l3_rx(ctx):
    pkts = [eth(1) / IP() / UDP(dport=CS_DPORT), eth(2) / IP() / TCP(dport=CS_DPORT),
            eth(3) / IP(chksum=0xF) / UDP(dport=CS_DPORT),
            eth(4) / IP(chksum=0xF) / TCP(dport=CS_DPORT)]
    with cs_testpmd(ctx) as tp:
        cs_setup_hw(tp)
        for i in (1, 2):
            cs_flags(ctx, tp, pkts[i - 1], i, True, True)
        for i in (3, 4):
            cs_flags(ctx, tp, pkts[i - 1], i, True, False)
    return "bad IPv4 header checksums not GOOD, good ones GOOD"


def cs_validate_rx(ctx):
    pkts = [eth(1) / IP() / UDP(dport=CS_DPORT), eth(2) / IP() / TCP(dport=CS_DPORT),
            eth(3) / IPv6(src="::1") / UDP(dport=CS_DPORT),
            eth(4) / IPv6(src="::1") / TCP(dport=CS_DPORT),
            eth(5) / IP(chksum=0x0) / UDP(chksum=0xF, dport=CS_DPORT),
            eth(6) / IP(chksum=0x0) / TCP(chksum=0xF, dport=CS_DPORT),
            eth(7) / IPv6(src="::1") / UDP(chksum=0xF, dport=CS_DPORT),
            eth(8) / IPv6(src="::1") / TCP(chksum=0xF, dport=CS_DPORT)]
    with cs_testpmd(ctx) as tp:
        cs_setup_hw(tp)
        for i in range(1, 5):
            cs_flags(ctx, tp, pkts[i - 1], i, True, True)
        for i in (5, 6):
            cs_flags(ctx, tp, pkts[i - 1], i, False, False)
        for i in (7, 8):
            cs_flags(ctx, tp, pkts[i - 1], i, False, True)
    return "8 IPv4/IPv6 frames, good and bad checksums, flags as DTS expects"


def cs_vlan(ctx):
    pkts = [eth(1) / Dot1Q(vlan=1) / IP(chksum=0x0) / UDP(chksum=0xF, dport=CS_DPORT) / Raw(CS_LOAD),
            eth(2) / Dot1Q(vlan=1) / IP(chksum=0x0) / TCP(chksum=0xF, dport=CS_DPORT) / Raw(CS_LOAD),
            eth(3) / Dot1Q(vlan=1) / IPv6(src="::1") / UDP(chksum=0xF, dport=CS_DPORT) / Raw(CS_LOAD),
            eth(4) / Dot1Q(vlan=1) / IPv6(src="::1") / TCP(chksum=0xF, dport=CS_DPORT) / Raw(CS_LOAD)]
    with cs_testpmd(ctx) as tp:
        cs_setup_hw(tp)
        cmd_ok(tp, "start")
        for p in pkts:
            expect_fwd(ctx, p, CS_LOAD, p.summary())
        cmd_ok(tp, "stop")
        for i in (1, 2):
            cs_flags(ctx, tp, pkts[i - 1], i, False, False)
        for i in (3, 4):
            cs_flags(ctx, tp, pkts[i - 1], i, False, True)
    return "tagged IPv4/IPv6 with bad checksums forwarded, flags not GOOD (IPv6 header GOOD)"


def cs_sctp(ctx):
    with cs_testpmd(ctx) as tp:
        capa = rx_capa(tp)
        if "SCTP_CKSUM" not in capa:
            raise CaseNA("no SCTP checksum offload (RX_OFFLOAD_SCTP_CKSUM not advertised): "
                         "the RX completion reports IP, TCP and UDP results only "
                         "(hardware.md §4.4, §21)")
    raise CaseFailed("SCTP_CKSUM advertised: this case has no SCTP check written")


# ---- vlan ---------------------------------------------------------------------------

VL_LOAD = b"xxxxx"


def vlan_testpmd(ctx):
    tp = Testpmd(ctx, ["--forward-mode=mac"])
    tp.cmd("set promisc 0 off")
    return tp


def vlan_filter_refused(tp):
    out = tp.cmd("vlan set filter on 0")
    return refused(out) or "VLAN_FILTER" not in rx_capa(tp)


def vlan_receipt_no_stripping(ctx):
    with vlan_testpmd(ctx) as tp:
        filt = vlan_filter_refused(tp)
        cmd_ok(tp, "vlan set strip off 0")
        cmd_ok(tp, "start")
        f = expect_fwd(ctx, eth(1) / Dot1Q(vlan=1) / Raw(VL_LOAD), VL_LOAD, "VLAN 1 frame")
        p = Ether(f)
        verify(Dot1Q in p and p[Dot1Q].vlan == 1, f"tag not kept: {p.summary()}")
    return "tag 1 kept with stripping off" + (
        " (VLAN filter refused, hardware.md §21; the receipt is checked without it)" if filt else "")


def vlan_receipt_stripping(ctx):
    with vlan_testpmd(ctx) as tp:
        filt = vlan_filter_refused(tp)
        cmd_ok(tp, "vlan set strip on 0")
        cmd_ok(tp, "start")
        f = expect_fwd(ctx, eth(1) / Dot1Q(vlan=1) / Raw(VL_LOAD), VL_LOAD, "VLAN 1 frame")
        p = Ether(f)
        verify(Dot1Q not in p, f"tag not stripped: {p.summary()}")
    return "tag stripped with stripping on" + (
        " (VLAN filter refused, hardware.md §21)" if filt else "")


def vlan_no_receipt(ctx):
    with vlan_testpmd(ctx) as tp:
        if vlan_filter_refused(tp):
            # Without a filter the frame of VLAN 2 must arrive: that is what the port does.
            cmd_ok(tp, "start")
            expect_fwd(ctx, eth(1) / Dot1Q(vlan=2) / Raw(VL_LOAD), VL_LOAD, "VLAN 2 frame")
            raise CaseNA("no VLAN filter: `vlan set filter on` refused (RX_OFFLOAD_VLAN_FILTER "
                         "not advertised), every tag is received (hardware.md §21)")
        cmd_ok(tp, "rx_vlan add 1 0")
        cmd_ok(tp, "start")
        expect_drop(ctx, eth(1) / Dot1Q(vlan=2) / Raw(VL_LOAD), VL_LOAD, "VLAN 2 frame")
    return "VLAN 2 filtered"


def vlan_header_insertion(ctx):
    with vlan_testpmd(ctx) as tp:
        cmd_ok(tp, "port stop all")
        cmd_ok(tp, "tx_vlan set 1 51")
        cmd_ok(tp, "port start all")
        cmd_ok(tp, "start")
        f = expect_fwd(ctx, eth(1, P0) / Raw(VL_LOAD), VL_LOAD, "untagged frame")
        p = Ether(f)
        verify(Dot1Q in p and p[Dot1Q].vlan == 51, f"no tag 51 inserted: {p.summary()}")
    return "tag 51 inserted by port 1"


# ---- mtu -------------------------------------------------------------------------------

STD_MTU, JUMBO_MTU, PAD = 1500, 9000, 9


def mtu_frame(size):
    """DTS's frame: Ethernet, 4 filler bytes, an IP packet of `size` bytes (MTU + 18 at size = MTU)."""
    return Ether(src=L.TG_MAC, dst=P0) / Raw(b"    ") / IP(len=size) / Raw(b"X" * (size - 20))


def mtu_check(ctx, size, should):
    key = b"X" * (size - 20)
    if should:
        f = expect_fwd(ctx, mtu_frame(size), key, f"IP packet of {size} bytes")
        verify(len(f) == size + 18, f"{size}: frame of {len(f)} bytes, expected {size + 18}")
    else:
        expect_drop(ctx, mtu_frame(size), key, f"IP packet of {size} bytes")


def mtu_of(tp):
    m = re.search(r"MTU:\s*(\d+)", port_info(tp, 0))
    verify(m is not None, "show port info: no MTU line")
    return int(m.group(1))


def mtu_boundary(ctx, tp, mtu):
    mtu_check(ctx, mtu - PAD, True)
    mtu_check(ctx, mtu, True)
    cur = mtu_of(tp)
    mtu_check(ctx, mtu + PAD, cur >= STD_MTU + PAD and mtu == STD_MTU)


def mtu_set_all(tp, mtu):
    cmd_ok(tp, "port stop all")
    for port in (0, 1):
        cmd_ok(tp, f"port config mtu {port} {mtu}")
    cmd_ok(tp, "port start all")
    for port in (0, 1):
        m = re.search(r"MTU:\s*(\d+)", port_info(tp, port))
        verify(m and int(m.group(1)) == mtu, f"port {port}: MTU not {mtu}")


MTU_ARGS = ["--tx-offloads=0x8000", f"--mbuf-size={JUMBO_MTU + 200}"]


def mtu_runtime(ctx):
    with Testpmd(ctx, MTU_ARGS, mbufs=4096) as tp:
        for mtu in (STD_MTU, 2400, 4800, JUMBO_MTU):
            mtu_set_all(tp, mtu)
            cmd_ok(tp, "start")
            if mtu != STD_MTU:
                mtu_boundary(ctx, tp, STD_MTU)
            mtu_boundary(ctx, tp, mtu)
            cmd_ok(tp, "stop")
    return "MTU 1500, 2400, 4800, 9000: MTU + 18-byte frames forwarded, MTU + 27 dropped"


def mtu_cli_std(ctx):
    with Testpmd(ctx, MTU_ARGS + ["--mbcache=200", "--max-pkt-len=1518"], mbufs=4096) as tp:
        cmd_ok(tp, "start")
        mtu_check(ctx, STD_MTU - PAD, True)
        mtu_check(ctx, STD_MTU, True)
        mtu_check(ctx, STD_MTU + PAD, False)
    return "--max-pkt-len=1518: 1509- and 1518-byte frames forwarded, 1527 dropped"


def mtu_cli_jumbo(ctx):
    with Testpmd(ctx, MTU_ARGS + ["--mbcache=200", "--max-pkt-len=9018"], mbufs=4096) as tp:
        cmd_ok(tp, "start")
        mtu_check(ctx, JUMBO_MTU - PAD, True)
        mtu_check(ctx, JUMBO_MTU, True)
        mtu_check(ctx, STD_MTU + PAD, True)
    return "--max-pkt-len=9018: 9009-, 9018- and 1527-byte frames forwarded"


def mtu_cli_std_jumbo(ctx):
    with Testpmd(ctx, MTU_ARGS + ["--mbcache=200", "--max-pkt-len=9018"], mbufs=4096) as tp:
        cmd_ok(tp, "start")
        mtu_check(ctx, JUMBO_MTU - PAD, True)
        mtu_check(ctx, JUMBO_MTU, True)
        mtu_check(ctx, JUMBO_MTU + PAD, False)
    return "--max-pkt-len=9018: 9018-byte frame forwarded, 9027 dropped"


# ---- scatter (pmd_buffer_scatter) ------------------------------------------------------


def scatter(ctx, offload):
    args = ["--forward-mode=mac", "--mbcache=200", "--mbuf-size=2048", "--max-pkt-len=9000",
            "--tx-offloads=0x8000"] + (["--enable-scatter"] if offload else [])
    with Testpmd(ctx, args) as tp:
        info = tp.cmd("show rxq info 0 0")
        if not offload and not re.search(r"(?i)scattered packets:\s*on", info):
            raise CaseFailed("scattered RX not on without --enable-scatter at MTU 8982 "
                             "with 2048-byte mbufs")
        cmd_ok(tp, "start")
        for off in (-1, 0, 1, 4, 5):
            size = 2048 + off
            base = Ether(src=L.TG_MAC, dst=P0) / IP()
            load = bytes([0x58]) * (size - len(base) - 4) + b"%04d" % size
            f = expect_fwd(ctx, base / Raw(load), load, f"frame of {size - 4 + 4} bytes")
            verify(Ether(f)[Raw].load == load, f"offset {off}: payload changed")
    return "frames of 2047..2053 bytes over 2048-byte mbufs forwarded intact"


def scatter_2048(ctx):
    return scatter(ctx, False)


def scatter_2048_offload(ctx):
    return scatter(ctx, True)


# ---- queue_start_stop --------------------------------------------------------------------

QS_LOAD = b"xxxxx"


def qs_frame(i):
    return eth(i) / IP() / Raw(QS_LOAD + b"%04d" % i)


def qs_expect_rx_dropped(ctx, tp, i):
    """Port 0's stopped RX queue: the device drops the frame for want of a buffer."""
    w_out = ctx.wires[1]
    w_out.drain()
    before = no_wqe_drops(tp, 0)
    ctx.wires[0].send(qs_frame(i))
    tp.wait_stat(0, lambda xs: sum(v for k, v in xs.items() if "no_wqe" in k) > before,
                 "a drop for want of an RX buffer", xstats=True)
    got = w_out.collect(lambda f: True, 0)
    verify(not any(QS_LOAD + b"%04d" % i in f for f in got), "frame forwarded from a stopped queue")


def qs_expect_tx_dropped(ctx, tp, i):
    """Port 1's stopped TX queue: port 0 receives the frame, port 1 sends nothing."""
    w_out = ctx.wires[1]
    w_out.drain()
    # testpmd polls no stream whose TX queue is stopped: the frame waits in
    # port 0's RX queue; the device's count of delivered frames shows it there.
    rx0 = tp.xstats(0).get("dev_rx_frames", 0)
    ctx.wires[0].send(qs_frame(i))
    tp.wait_stat(0, lambda xs: xs.get("dev_rx_frames", 0) > rx0,
                 "dev_rx_frames to grow", xstats=True)
    cmd_ok(tp, "stop")
    tx1 = tp.port_stats(1).get("TX-packets", 0)
    verify(tx1 == 0, f"port 1 sent {tx1} frames through a stopped TX queue")
    got = w_out.collect(lambda f: True, 0)
    verify(not any(QS_LOAD + b"%04d" % i in f for f in got), "frame sent by a stopped queue")


def qs_expect_fwd(ctx, i):
    expect_fwd(ctx, qs_frame(i), QS_LOAD + b"%04d" % i, f"frame {i}")


def qs_rx(ctx):
    with Testpmd(ctx, ["--forward-mode=mac"]) as tp:
        cmd_ok(tp, "port 0 rxq 0 stop")
        cmd_ok(tp, "start")
        qs_expect_rx_dropped(ctx, tp, 1)
        cmd_ok(tp, "stop")
        cmd_ok(tp, "port 0 rxq 0 start")
        cmd_ok(tp, "start")
        qs_expect_fwd(ctx, 2)
    return "stopped RX queue drops, restarted queue forwards"


def qs_tx(ctx):
    with Testpmd(ctx, ["--forward-mode=mac"]) as tp:
        cmd_ok(tp, "port 1 txq 0 stop")
        cmd_ok(tp, "start")
        qs_expect_tx_dropped(ctx, tp, 1)
        cmd_ok(tp, "port 1 txq 0 start")
        cmd_ok(tp, "start")
        qs_expect_fwd(ctx, 2)
    return "stopped TX queue sends nothing, restarted queue forwards"


def qs_rx_deferred(ctx):
    with Testpmd(ctx, ["--forward-mode=mac"]) as tp:
        cmd_ok(tp, "port stop all")
        cmd_ok(tp, "port 0 rxq 0 deferred_start on")
        cmd_ok(tp, "port start all")
        cmd_ok(tp, "start")
        qs_expect_rx_dropped(ctx, tp, 1)
        cmd_ok(tp, "stop")
        cmd_ok(tp, "port 0 rxq 0 start")
        cmd_ok(tp, "start")
        qs_expect_fwd(ctx, 2)
    return "deferred RX queue drops until started, then forwards"


def qs_tx_deferred(ctx):
    with Testpmd(ctx, ["--forward-mode=mac"]) as tp:
        cmd_ok(tp, "port stop all")
        cmd_ok(tp, "port 1 txq 0 deferred_start on")
        cmd_ok(tp, "port start all")
        cmd_ok(tp, "start")
        qs_expect_tx_dropped(ctx, tp, 1)
        cmd_ok(tp, "port 1 txq 0 start")
        cmd_ok(tp, "start")
        qs_expect_fwd(ctx, 2)
    return "deferred TX queue sends nothing until started, then forwards"


# ---- dynamic_queue_conf ----------------------------------------------------------------

DQ_QUEUES, DQ_MODIFY, DQ_PACKETS = 8, 3, 1024


def dq_send(ctx, tp):
    """DTS's 1024 frames to 192.168.1.1..254, in chunks that port 0 has taken
    (received or dropped for want of a buffer) before the next one goes."""
    sent = 0
    # The device's count of frames it delivered (to queues testpmd may not poll) or dropped.
    xs = tp.xstats(0)
    base = xs.get("dev_rx_frames", 0) + sum(v for k, v in xs.items() if "no_wqe" in k)
    while sent < DQ_PACKETS:
        for _ in range(32):
            ctx.wires[0].send(Ether(src=L.TG_MAC, dst=P0) /
                              IP(src="192.168.0.1", dst=f"192.168.1.{sent % 254 + 1}") / Raw())
            sent += 1
        tp.wait_stat(0, lambda xs: xs.get("dev_rx_frames", 0) +
                     sum(v for k, v in xs.items() if "no_wqe" in k) >= base + sent,
                     f"{sent} frames taken", xstats=True)


def dq_queue_in(stats, port, rx, q):
    """The queue forwarded something: its stream's counters in `stop`'s output."""
    if rx:
        m = re.search(r"Forward Stats for RX Port=\s*%d/Queue=\s*%d -> TX Port=\s*\d+/Queue=\s*\d+"
                      r"\s*-+\n\s*RX-packets:\s*(\d+)" % (port, q), stats)
    else:
        m = re.search(r"Forward Stats for RX Port=\s*\d+/Queue=\s*\d+ -> TX Port=\s*%d/Queue=\s*%d"
                      r"\s*-+\n\s*RX-packets:\s*\d+\s+TX-packets:\s*(\d+)" % (port, q), stats)
    return m is not None and int(m.group(1)) > 0


def dq_run(ctx, rx, ring):
    port = 0 if rx else 1
    kind = "rxq" if rx else "txq"
    mod = set()
    while len(mod) < DQ_MODIFY:
        mod.add(L.rng.randint(1, DQ_QUEUES - 1))
    keep = set(range(DQ_QUEUES)) - mod
    with Testpmd(ctx, [f"--rxq={DQ_QUEUES}", f"--txq={DQ_QUEUES}", "--port-topology=chained"],
                 mbufs=16384) as tp:
        for q in sorted(mod):
            cmd_ok(tp, f"port {port} {kind} {q} stop")
        cmd_ok(tp, "set fwd mac")
        if ring:
            info = tp.cmd(f"show {kind} info {port} {min(mod)}")
            m = re.search(r"Number of (?:RXDs|TXDs):\s*(\d+)", info)
            cur = int(m.group(1)) if m else 0
            mx = re.search(r"Max possible number of (?:RXDs|TXDs) per queue:\s*(\d+)",
                           port_info(tp, port))
            # DTS: 512, or 256 on a queue of 512; below a device maximum of 256, 128.
            new = 256 if cur == 512 else 512
            if mx and int(mx.group(1)) < new:
                new = 128 if cur != 128 else 64
            for q in sorted(mod):
                cmd_ok(tp, f"port config {port} {kind} {q} ring_size {new}")
                out = tp.cmd(f"port {port} {kind} {q} setup")
                verify(not refused(out), f"runtime setup of {kind} {q} on a started port "
                       f"refused: {out.strip()[-200:]}")
                info = tp.cmd(f"show {kind} info {port} {q}")
                verify(re.search(r"Number of (?:RXDs|TXDs):\s*%d\b" % new, info),
                       f"{kind} {q}: ring size not {new}")
        else:
            cmd_ok(tp, "start")
            dq_send(ctx, tp)
            out = tp.cmd("stop")
            for q in keep:
                verify(dq_queue_in(out, port, rx, q), f"queue {q} forwarded nothing")
            for q in mod:
                verify(not dq_queue_in(out, port, rx, q), f"stopped queue {q} forwarded")
        for q in sorted(mod):
            cmd_ok(tp, f"port {port} {kind} {q} start")
        cmd_ok(tp, "start")
        dq_send(ctx, tp)
        out = tp.cmd("stop")
        for q in mod:
            verify(dq_queue_in(out, port, rx, q), f"restarted queue {q} forwarded nothing")
    return f"{kind} {sorted(mod)} of port {port}: " + (
        "ring size changed at run time, then forwarding" if ring else
        "stopped ones idle, the others forward; restarted ones forward")


def dq_rx_stop(ctx):
    return dq_run(ctx, True, False)


def dq_tx_stop(ctx):
    return dq_run(ctx, False, False)


def dq_rx_conf(ctx):
    return dq_run(ctx, True, True)


def dq_tx_conf(ctx):
    return dq_run(ctx, False, True)


# ---- port_stats ----------------------------------------------------------------------------


def ps_updates(ctx):
    with Testpmd(ctx, ["--forward-mode=mac"]) as tp:
        cmd_ok(tp, "start")
        cmd_ok(tp, "clear port stats all")
        load = b"X" * (100 - 20 - 14)
        expect_fwd(ctx, Ether(src=L.TG_MAC, dst=P0) / IP() / Raw(load), load, "100-byte frame")
        s1 = tp.wait_stat(1, lambda s: s.get("TX-packets", 0) >= 1, "TX-packets 1")
        s0 = tp.port_stats(0)
        verify(s0.get("RX-packets") == 1, f"port 0 RX-packets {s0.get('RX-packets')}, expected 1")
        verify(s0.get("RX-bytes") == 100, f"port 0 RX-bytes {s0.get('RX-bytes')}, expected 100")
        verify(s1.get("TX-packets") == 1, f"port 1 TX-packets {s1.get('TX-packets')}, expected 1")
        verify(s1.get("TX-bytes") == 100, f"port 1 TX-bytes {s1.get('TX-bytes')}, expected 100")
    return "1 frame of 100 bytes counted on port 0 RX and port 1 TX"


# ---- pmd_rss -------------------------------------------------------------------------------

RSS_SRC, RSS_DST = "02:00:00:00:00:00", "11:00:00:00:00:00"
RSS_SIP, RSS_DIP = "10.0.0.1", "10.0.0.2"


def toeplitz(key, data):
    h = 0
    k = int.from_bytes(key, "big")
    kbits = len(key) * 8
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                h ^= (k >> (kbits - 32 - (i * 8 + b))) & 0xFFFFFFFF
    return h


def rss_key(tp):
    out = tp.cmd("show port 0 rss-hash key")
    m = re.search(r"RSS key:\s*\n?\s*([0-9A-Fa-f]+)", out)
    verify(m is not None, f"no RSS key shown: {out.strip()[-200:]}")
    return bytes.fromhex(m.group(1))


def rss_send(ctx, tp, mirrored=False):
    pkts = []
    for i in range(10):
        pkts.append((i, i + 1))
        if mirrored:
            pkts.append((i + 1, i))
    cmd_ok(tp, "set verbose 1")
    mark = tp.mark()
    cmd_ok(tp, "start")
    for sp, dp in pkts:
        ctx.wires[0].send(Ether(src=RSS_SRC, dst=RSS_DST) / IP(src=RSS_SIP, dst=RSS_DIP) /
                          UDP(sport=sp, dport=dp))
    deadline_ok = tp.wait_output(mark, r"(?s)(received \d+ packets.*?){%d}" % 1)
    verify(deadline_ok is not None, "no frame received")
    # Wait until all of them are printed.
    want = len(pkts)

    def count():
        return len([p for p in L.verbose_packets(tp.output_since(mark))
                    if p["src"] == RSS_SRC and p["port"] == 0])
    import time
    end = time.monotonic() + L.FRAME_TIMEOUT_S
    while count() < want and time.monotonic() < end:
        time.sleep(0.1)
    tp.cmd("stop")
    cmd_ok(tp, "set verbose 0")
    recs = [p for p in L.verbose_packets(tp.output_since(mark))
            if p["src"] == RSS_SRC and p["port"] == 0]
    verify(len(recs) == want, f"{len(recs)} of {want} frames received")
    return pkts, recs


def rss_verify(reta, pkts, recs, key):
    for r in recs:
        verify(r["hash"] is not None, "frame without an RSS hash")
        q = reta[r["hash"] % len(reta)]
        verify(q == r["queue"], f"hash 0x{r['hash']:08x}: queue {r['queue']}, RETA says {q}")
        if key is not None:
            # Queues may reorder frames: the hash must be the Toeplitz hash of one of the flows.
            want = {toeplitz(key, bytes([10, 0, 0, 1, 10, 0, 0, 2]) + a.to_bytes(2, "big") +
                             b.to_bytes(2, "big")) for a, b in pkts}
            verify(r["hash"] in want, f"hash 0x{r['hash']:08x} is no Toeplitz hash of the flows")


def reta_table(kind, nq, size=64):
    if kind == "seq":
        return [i % nq for i in range(size)]
    if kind == "rev":
        return [nq - 1 - i % nq for i in range(size)]
    return [0] * size


def reta_set(tp, kind, nq):
    """Apply a DTS preset with dpdk-testpmd-mana's whole-table command."""
    pat = {"seq": list(range(nq)), "rev": list(range(nq - 1, -1, -1)), "const0": [0]}[kind]
    line = "mana port 0 rss reta " + " ".join(map(str, pat))
    out = tp.cmd(line)
    verify(not refused(out), f"'{line}' failed: {out.strip()[-300:]}")


def rss_setup(tp):
    cmd_ok(tp, "set fwd rxonly")
    cmd_ok(tp, "port config all rss udp")


def need_mana(ctx):
    if not ctx.testpmd_mana:
        raise CaseFailed("dpdk-testpmd-mana not built (needs -Ddpdk_src): its `mana port 0 "
                         "rss reta` sets a whole table")


def rss_algorithm(ctx, algorithm):
    if algorithm in ("simple_xor", "symmetric_toeplitz"):
        with Testpmd(ctx, ["--rxq=4", "--txq=4"]) as tp:
            out = tp.cmd("flow validate 0 ingress pattern eth / ipv4 / udp / end actions rss "
                         f"types ipv4-udp end queues end func {algorithm} / end")
            verify(refused(out), f"flow rule with func {algorithm} accepted")
        raise CaseNA(f"the device hashes with Toeplitz only, no {algorithm} (hardware.md §6); "
                     "the flow rule is refused")
    need_mana(ctx)
    with Testpmd(ctx, ["--rxq=4", "--txq=4"], mana=True) as tp:
        key = rss_key(tp)
        verify(len(key) == 40, f"key of {len(key)} bytes")
        for kind in ("seq", "rev", "const0"):
            reta_set(tp, kind, 4)
            rss_setup(tp)
            pkts, recs = rss_send(ctx, tp)
            rss_verify(reta_table(kind, 4), pkts, recs, key)
    return ("Toeplitz hash of the 40-byte key recomputed for every frame; queue = RETA[hash % 64] "
            "for seq, rev and const0 tables (no rte_flow: the port's RSS configuration, "
            "hardware.md §21)")


def rss_key_default(ctx):
    return rss_algorithm(ctx, "default")


def rss_key_toeplitz(ctx):
    return rss_algorithm(ctx, "toeplitz")


def rss_key_xor(ctx):
    return rss_algorithm(ctx, "simple_xor")


def rss_key_sym(ctx):
    return rss_algorithm(ctx, "symmetric_toeplitz")


def rss_key_short_long(ctx):
    with Testpmd(ctx, ["--rxq=4", "--txq=4"]) as tp:
        m = re.search(r"Hash key size in bytes:\s*(\d+)", port_info(tp))
        verify(m, "no hash key size")
        size = int(m.group(1))
        for n in (size * 2 - 2, size * 2 + 2):
            key = "".join(L.rng.choice("0123456789ABCDEF") for _ in range(n))
            out = tp.cmd(f"port config 0 rss-hash-key ipv4-udp {key}")
            verify("invalid" in out.lower(), f"key of {n} hex digits accepted: {out.strip()}")
    return "keys of 39 and 41 bytes refused"


def rss_key_size(ctx):
    with Testpmd(ctx) as tp:
        m = re.search(r"Hash key size in bytes:\s*(\d+)", port_info(tp))
        verify(m and int(m.group(1)) == 40, "hash key size not 40 (hardware.md §6)")
    return "40 bytes, the device's key (hardware.md §6)"


def rss_reta_queues(ctx, nq, kinds):
    need_mana(ctx)
    with Testpmd(ctx, [f"--rxq={nq}", f"--txq={nq}"], mana=True, mbufs=16384) as tp:
        for kind in kinds:
            reta_set(tp, kind, nq)
            rss_setup(tp)
            pkts, recs = rss_send(ctx, tp)
            rss_verify(reta_table(kind, nq), pkts, recs, None)
            if kind == "const0":
                others = [r["queue"] for r in recs if r["queue"] != 0]
                verify(not others, f"{len(others)} frames on queues other than 0")
    if kinds == ("const0",):
        return (f"{nq} queues, every entry queue 0: all frames on queue 0 (a table of one WQ, "
                "the other queues idle, hardware.md §6)")
    return f"{nq} queues: {' and '.join(kinds)} tables, every frame on RETA[hash % 64]"


def rss_reta_2(ctx):
    return rss_reta_queues(ctx, 2, ("seq", "rev"))


def rss_reta_2_const0(ctx):
    return rss_reta_queues(ctx, 2, ("const0",))


def rss_reta_9(ctx):
    with Testpmd(ctx, ["--rxq=9", "--txq=9"]) as tp:
        out = tp.output_since(0)
        if "power of two" in out:
            raise CaseNA("9 RX queues refused at port start: the device spreads 2^n queues "
                         "over its 64 table entries (hardware.md §6)")
        raise CaseFailed("9 RX queues accepted")


def rss_reta_16(ctx):
    return rss_reta_queues(ctx, 16, ("seq", "rev"))


def rss_reta_16_const0(ctx):
    return rss_reta_queues(ctx, 16, ("const0",))


def rss_reta_single_entry(ctx):
    """DTS sets the table one entry at a time (port config 0 rss reta (i,q))."""
    with Testpmd(ctx, ["--rxq=4", "--txq=4"]) as tp:
        out = tp.cmd("port config 0 rss reta (0,3)")
        if not refused(out):
            raise CaseFailed("a single entry changing the table's period accepted")
        # The same entry set to what it holds is fine.
        cmd_ok(tp, "port config 0 rss reta (0,0)")
        # Entries 0 and 1 swapped everywhere they repeat: one partial update the device can hold.
        pairs = ",".join(f"({i},{[1, 0, 2, 3][i % 4]})" for i in range(0, 64) if i % 4 < 2)
        out = tp.cmd(f"port config 0 rss reta {pairs[:len(pairs)]}")
    raise CaseNA("one RETA entry alone is refused when it breaks the period: the device table "
                 "is entry i = queue[i mod 2^n] with each queue once (hardware.md §6); whole "
                 "tables are checked in reta_key_reta_queues_*")


def rss_reta_size(ctx):
    with Testpmd(ctx, ["--rxq=4", "--txq=4"]) as tp:
        m = re.search(r"Redirection table size:\s*(\d+)", port_info(tp))
        verify(m and int(m.group(1)) == 64, "RETA size not 64 (hardware.md §6)")
    return "64 entries, the device's table (hardware.md §6)"


# ---- l2fwd ----------------------------------------------------------------------------------

L2_PEER = "02:00:00:00:aa:fe"


def l2fwd_integrity(ctx):
    pkts = []
    for i in range(50):
        l4 = (UDP if i % 2 else TCP)(sport=L.rng.randint(1, 65535), dport=L.rng.randint(1, 65535))
        ip = IP(src=f"10.{L.rng.randint(0, 255)}.{L.rng.randint(0, 255)}.{L.rng.randint(1, 254)}",
                dst=f"10.{L.rng.randint(0, 255)}.{L.rng.randint(0, 255)}.{L.rng.randint(1, 254)}")
        pkts.append(bytes(Ether(src=L.TG_MAC, dst=P0) / ip / l4 /
                          Raw(bytes(L.rng.randint(0, 255) for _ in range(100)))))
    with Testpmd(ctx, ["--forward-mode=mac", f"--eth-peer=1,{L2_PEER}",
                       "--disable-device-start"], mbufs=16384) as tp:
        for nq in (1, 2, 4, 8):
            cmd_ok(tp, "port stop all")
            cmd_ok(tp, f"port config all rxq {nq}")
            cmd_ok(tp, f"port config all txq {nq}")
            cmd_ok(tp, "port start all")
            cmd_ok(tp, "start")
            ctx.wires[1].drain()
            for p in pkts:
                ctx.wires[0].send(p)
            want = {p[14:] for p in pkts}
            frames = ctx.wires[1].collect(
                lambda f: want <= {x[14:] for x in f}, L.FRAME_TIMEOUT_S)
            got = [f for f in frames if f[14:] in want]
            missing = len(want - {f[14:] for f in got})
            verify(missing == 0, f"{nq} queues: {missing} of 50 frames missing")
            for f in got:
                verify(f[:6] == bytes.fromhex(L2_PEER.replace(":", "")) and
                       f[6:12] == bytes.fromhex(P1.replace(":", "")),
                       f"{nq} queues: MACs not rewritten: {Ether(f).summary()}")
            cmd_ok(tp, "stop")
    return "50 random frames forwarded intact with 1, 2, 4, 8 queues, MACs rewritten"


# ---- mac_filter --------------------------------------------------------------------------

MF_LOAD = b"X" * 22


def mf_frame(dst):
    return Ether(src=L.TG_MAC, dst=dst) / IP() / Raw(MF_LOAD)


def mf_add_remove(ctx):
    with Testpmd(ctx) as tp:
        tp.cmd("set promisc 0 off")
        cmd_ok(tp, "start")
        expect_fwd(ctx, mf_frame(P0), MF_LOAD, "frame to the port's MAC")
        fake = "00:00:00:00:00:01"
        expect_drop(ctx, mf_frame(fake), MF_LOAD, "frame to another MAC")
        out = tp.cmd(f"mac_addr add 0 {fake}")
        if refused(out):
            expect_drop(ctx, mf_frame(fake), MF_LOAD, "frame to the refused MAC")
            raise CaseNA("no MAC filter: `mac_addr add` refused; a vPort has one MAC "
                         "(max_mac_addrs 1; hardware.md §16); own MAC forwarded, other "
                         "unicast dropped")
        expect_fwd(ctx, mf_frame(fake), MF_LOAD, "frame to the added MAC")
        cmd_ok(tp, f"mac_addr remove 0 {fake}")
        expect_drop(ctx, mf_frame(fake), MF_LOAD, "frame to the removed MAC")
    return "added MAC received, removed MAC dropped"


def mf_invalid(ctx):
    with Testpmd(ctx) as tp:
        cmd_ok(tp, "start")
        verify(refused(tp.cmd("mac_addr add 0 00:00:00:00:00:00")), "zero MAC added")
        verify(refused(tp.cmd(f"mac_addr remove 0 {P0}")), "default MAC removed")
        alt = "1" + P0[1:]
        out = tp.cmd(f"mac_addr add 0 {alt}")
        if refused(out):
            verify(refused(tp.cmd(f"mac_addr remove 0 {P0}")), "default MAC removed")
            raise CaseNA("zero MAC and removal of the default MAC refused; adding a second "
                         "MAC refused too: a vPort has one MAC (max_mac_addrs 1; hardware.md §16)")
        raise CaseFailed(f"second MAC {alt} accepted, the device has one: {out.strip()}")


def mf_multicast(ctx):
    with Testpmd(ctx) as tp:
        cmd_ok(tp, "start")
        tp.cmd("set promisc 0 off")
        mc = "01:00:5e:00:00:00"
        out = tp.cmd(f"mcast_addr add 0 {mc}")
        verify(refused(out), f"multicast filter entry accepted: {out.strip()}")
        expect_fwd(ctx, mf_frame(mc), MF_LOAD, "multicast frame")
    raise CaseNA("no multicast filter: `mcast_addr add` refused and every multicast frame is "
                 "received (all-multicast always on; hardware.md §16)")


# ---- promisc_support ----------------------------------------------------------------------

ALT_MAC = "02:00:00:00:00:00"


def promisc_packets(ctx):
    load = b"\0" * 60 + b"PROMISC"
    with Testpmd(ctx) as tp:
        outs = [tp.cmd(f"set promisc {p} on") for p in (0, 1)]
        info = port_info(tp)
        on = re.search(r"Promiscuous mode:\s*enabled", info) is not None
        cmd_ok(tp, "start")
        if not on:
            expect_drop(ctx, Ether(src=L.TG_MAC, dst=ALT_MAC) / IP() / Raw(load), load,
                        "frame to another MAC")
            raise CaseNA("no promiscuous mode: `set promisc on` refused "
                         f"({outs[0].strip()[-80:]!r}), frames to another MAC dropped "
                         "(hardware.md §16)")
        expect_fwd(ctx, Ether(src=L.TG_MAC, dst=ALT_MAC) / IP() / Raw(load), load,
                   "frame to another MAC (promiscuous)")
    return "promiscuous mode received a frame to another MAC"


def allmulticast(ctx):
    load = b"ALLMULTI" * 4
    with Testpmd(ctx) as tp:
        verify(re.search(r"Allmulticast mode:\s*enabled", port_info(tp)),
               "all-multicast not shown enabled")
        cmd_ok(tp, "start")
        mc = "01:00:5e:00:00:01"
        expect_fwd(ctx, Ether(src=L.TG_MAC, dst=mc) / IP() / Raw(load), load, "multicast frame")
        tp.cmd("set allmulti 0 off")
        verify(re.search(r"Allmulticast mode:\s*enabled", port_info(tp)),
               "all-multicast shown disabled after `set allmulti 0 off`")
        expect_fwd(ctx, Ether(src=L.TG_MAC, dst=mc) / IP() / Raw(load), load,
                   "multicast frame after `set allmulti 0 off`")
    return ("all-multicast on from probe, multicast received; disabling refused (always on, "
            "hardware.md §16) and multicast still received")


# ---- tso ---------------------------------------------------------------------------------------


def tso(ctx, v6):
    mss, total = 800, 5000
    data = bytes((i * 7) & 0xFF for i in range(total))
    l3 = IPv6(src="2001:db8::1", dst="2001:db8::2") if v6 else IP(src="10.0.0.1", dst="10.0.0.2")
    pkt = Ether(src=L.TG_MAC, dst=P0) / l3 / TCP(sport=1234, dport=5678, seq=1000, flags="A") / Raw(data)
    with Testpmd(ctx, ["--forward-mode=csum", "--enable-rx-cksum", "--max-pkt-len=9018",
                       "--mbuf-size=9200"], mbufs=4096) as tp:
        cmd_ok(tp, "port stop all")
        for port in (0, 1):
            cmd_ok(tp, f"csum set ip hw {port}")
            cmd_ok(tp, f"csum set tcp hw {port}")
            cmd_ok(tp, f"tso set {mss} {port}")
        cmd_ok(tp, "port start all")
        cmd_ok(tp, "start")
        ctx.wires[1].drain()
        ctx.wires[0].send(pkt)

        def segs(frames):
            out = []
            for f in frames:
                p = Ether(f)
                if TCP in p and p[TCP].sport == 1234:
                    out.append(p)
            return out
        frames = ctx.wires[1].collect(
            lambda f: sum(len(bytes(p[TCP].payload)) for p in segs(f)) >= total)
        got = sorted(segs(frames), key=lambda p: p[TCP].seq)
        n = -(-total // mss)
        verify(len(got) == n, f"{len(got)} segments, expected {n}")
        joined = b"".join(bytes(p[TCP].payload) for p in got)
        verify(joined == data, "segment payloads do not make up the packet")
        for k, p in enumerate(got):
            verify(p[TCP].seq == 1000 + k * mss, f"segment {k}: seq {p[TCP].seq}")
            verify(len(bytes(p[TCP].payload)) <= mss, f"segment {k} over the MSS")
            bad = checksums_ok(bytes(p))
            verify(bad is None, f"segment {k}: {bad}")
    return f"{total}-byte TCP/{'IPv6' if v6 else 'IPv4'} payload sent as {n} segments of MSS {mss}, checksums right"


def tso_ipv4(ctx):
    return tso(ctx, False)


def tso_ipv6(ctx):
    return tso(ctx, True)


CASES = {
    "checksum_offload": [
        ("insert_checksums", cs_insert_checksums),
        ("no_insert_checksums", cs_no_insert_checksums),
        ("l4_rx_checksum", cs_l4_rx),
        ("l3_rx_checksum", cs_l3_rx),
        ("validate_rx_checksum", cs_validate_rx),
        ("vlan_checksum", cs_vlan),
        ("validate_sctp_checksum", cs_sctp),
    ],
    "vlan": [
        ("vlan_receipt_no_stripping", vlan_receipt_no_stripping),
        ("vlan_receipt_stripping", vlan_receipt_stripping),
        ("vlan_no_receipt", vlan_no_receipt),
        ("vlan_header_insertion", vlan_header_insertion),
    ],
    "mtu": [
        ("runtime_mtu_updating_and_forwarding", mtu_runtime),
        ("cli_mtu_forwarding_for_std_packets", mtu_cli_std),
        ("cli_jumbo_forwarding_for_jumbo_mtu", mtu_cli_jumbo),
        ("cli_mtu_std_packets_for_jumbo_mtu", mtu_cli_std_jumbo),
    ],
    "scatter": [
        ("scatter_mbuf_2048", scatter_2048),
        ("scatter_mbuf_2048_with_offload", scatter_2048_offload),
    ],
    "queue_start_stop": [
        ("rx_queue_start_stop", qs_rx),
        ("tx_queue_start_stop", qs_tx),
        ("rx_queue_deferred_start", qs_rx_deferred),
        ("tx_queue_deferred_start", qs_tx_deferred),
    ],
    "dynamic_queue_conf": [
        ("rx_queue_stop", dq_rx_stop),
        ("rx_queue_configuration", dq_rx_conf),
        ("tx_queue_stop", dq_tx_stop),
        ("tx_queue_configuration", dq_tx_conf),
    ],
    "port_stats": [("stats_updates", ps_updates)],
    "pmd_rss": [
        ("key_hash_algorithm_default", rss_key_default),
        ("key_hash_algorithm_toeplitz", rss_key_toeplitz),
        ("key_hash_algorithm_simple_xor", rss_key_xor),
        ("key_hash_algorithm_symmetric_toeplitz", rss_key_sym),
        ("update_key_set_hash_key_short_long", rss_key_short_long),
        ("update_key_reported_key_size", rss_key_size),
        ("reta_key_reta_queues_2", rss_reta_2),
        ("reta_key_reta_queues_2_const0", rss_reta_2_const0),
        ("reta_key_reta_queues_9", rss_reta_9),
        ("reta_key_reta_queues_16", rss_reta_16),
        ("reta_key_reta_queues_16_const0", rss_reta_16_const0),
        ("reta_single_entry_update", rss_reta_single_entry),
        ("reta_key_reported_reta_size", rss_reta_size),
    ],
    "l2fwd": [("l2fwd_integrity", l2fwd_integrity)],
    "mac_filter": [
        ("add_remove_mac_addresses", mf_add_remove),
        ("invalid_address", mf_invalid),
        ("multicast_filter", mf_multicast),
    ],
    "promisc_support": [
        ("promisc_packets", promisc_packets),
        ("allmulticast_always_on", allmulticast),
    ],
    "tso": [("tso_ipv4", tso_ipv4), ("tso_ipv6", tso_ipv6)],
}
