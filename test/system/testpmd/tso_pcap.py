#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""Large TCP frames for TSO, and an independent check of the segments.

    tso_pcap.py gen <in.pcap> <dst MAC> <4|6|46> <mss>
        writes the input capture: TCP over IPv4 and/or IPv6, frames of 60 to
        ~8000 bytes (payloads around 1, 2 and 5 MSS), with and without TCP
        options, some with PSH, FIN or CWR, each with its own payload
        pattern; prints the frame count.
    tso_pcap.py expect <in.pcap> <mss>
        prints "<frames> <tso frames> <segments>": what the far side must see.
    tso_pcap.py count <out.pcap>
        prints the number of complete frames in a capture (0 if absent).
    tso_pcap.py check <in.pcap> <out.pcap> <mss> [--vlan ID]
        checks every output frame against its input frame (in order): each
        input frame whose TCP payload exceeds the MSS must leave as
        ceil(payload / MSS) segments of at most 1514 bytes (1518 tagged);
        IPv4 total length, id incrementing per segment, header checksum;
        IPv6 payload length; TCP sequence advancing by the payload, FIN and
        PSH on the last segment only, CWR on the first only, the other
        header fields and options unchanged, checksum right; the segments'
        payloads concatenated equal the input payload. A frame within the
        MSS leaves as one frame with the same bytes and right checksums.
        With --vlan every frame carries an 802.1Q tag of that VLAN ID.

Written from RFC 791, 793, 8200 and the pcap file format; it imports no
project code, so it cannot share a mistake with the driver or the device.
Exit status: 0 when every check passed, 1 otherwise (one line per fault).
"""

import struct
import sys

ETH_IPV4 = 0x0800
ETH_IPV6 = 0x86DD
ETH_VLAN = 0x8100
TCP_FIN, TCP_SYN, TCP_RST, TCP_PSH, TCP_ACK, TCP_URG, TCP_ECE, TCP_CWR = (
    0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80)


# ---- pcap -------------------------------------------------------------------

def read_pcap(path):
    """The frames of a capture file (classic format, either byte order)."""
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except FileNotFoundError:
        return []
    if len(data) < 24:
        return []
    magic = data[:4]
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        end = '<'
    elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        end = '>'
    else:
        raise ValueError('%s: not a pcap file' % path)
    linktype = struct.unpack(end + 'I', data[20:24])[0]
    if linktype != 1:
        raise ValueError('%s: link type %d, not Ethernet' % (path, linktype))
    frames = []
    off = 24
    while off + 16 <= len(data):
        incl, orig = struct.unpack(end + 'II', data[off + 8:off + 16])
        if off + 16 + incl > len(data):
            break   # a record still being written
        if incl != orig:
            raise ValueError('%s: frame %d captured %d of %d bytes' %
                             (path, len(frames), incl, orig))
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def write_pcap(path, frames):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack('<IIII', 1, i, len(fr), len(fr)))
            f.write(fr)


# ---- checksums --------------------------------------------------------------

def ones_sum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def csum(data):
    return ~ones_sum(data) & 0xffff


def pseudo(l3, src, dst, length):
    if l3 == 4:
        return src + dst + struct.pack('!BBH', 0, 6, length)
    return src + dst + struct.pack('!IxxxB', length, 6)


# ---- building the input -----------------------------------------------------

def tcp_header(sport, dport, seq, ack, flags, window, options):
    doff = (20 + len(options)) // 4
    return struct.pack('!HHIIBBHHH', sport, dport, seq, ack, doff << 4, flags,
                       window, 0, 0) + options


def build_frame(dmac, l3, payload, flags, options, ident, seq):
    smac = bytes.fromhex('020000000099')
    tcp = bytearray(tcp_header(40000 + ident % 1000, 5001, seq, 0x01020304, flags,
                               0x7210, options))
    if l3 == 4:
        src, dst = bytes([10, 0, 0, 2]), bytes([10, 0, 0, 1])
        ip = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp) + len(payload),
                                   ident, 0x4000, 64, 6, 0, src, dst))
        ip[10:12] = struct.pack('!H', csum(bytes(ip)))
        ethertype = ETH_IPV4
    else:
        src = bytes.fromhex('fd000000000000000000000000000002')
        dst = bytes.fromhex('fd000000000000000000000000000001')
        ip = bytearray(struct.pack('!IHBB16s16s', 0x60000000 | (ident & 0xfffff),
                                   len(tcp) + len(payload), 6, 64, src, dst))
        ethertype = ETH_IPV6
    seg = bytes(tcp) + payload
    tcp[16:18] = struct.pack('!H', csum(pseudo(l3, src, dst, len(seg)) + seg))
    return dmac + smac + struct.pack('!H', ethertype) + bytes(ip) + bytes(tcp) + payload


def pattern(n, k):
    """Payload of frame k: no two frames, and no two MSS-sized pieces, alike."""
    return bytes(((i * 7 + (i >> 8) * 13 + k * 31) & 0xff) for i in range(n))


TS_OPTIONS = bytes([1, 1, 8, 10]) + struct.pack('!II', 0x11223344, 0x55667788)


def gen(path, dmac_text, families, mss):
    """Frames of the IP versions in families ("4", "6" or "46") for that MSS."""
    dmac = bytes.fromhex(dmac_text.replace(':', ''))
    # (payload length, TCP flags, options); the sizes straddle 1, 2 and 5 MSS
    # and go up to frames of ~8000 bytes.
    shapes = [
        (6, TCP_ACK, b''), (100, TCP_ACK | TCP_PSH, b''), (mss, TCP_ACK, b''),
        (mss + 1, TCP_ACK | TCP_PSH, b''), (2 * mss, TCP_ACK, b''),
        (2 * mss + 1, TCP_ACK | TCP_FIN, b''), (4000, TCP_ACK | TCP_PSH | TCP_FIN, b''),
        (5 * mss, TCP_ACK, b''), (7880, TCP_ACK | TCP_PSH, b''),
        (5000, TCP_ACK | TCP_CWR | TCP_PSH, b''),
        (mss - 12, TCP_ACK, TS_OPTIONS), (3000, TCP_ACK | TCP_PSH, TS_OPTIONS),
        (7868, TCP_ACK | TCP_FIN, TS_OPTIONS),
    ]
    frames = []
    k = 0
    for rnd in range(3):
        for l3 in (4, 6):
            if str(l3) not in families:
                continue
            for plen, flags, opts in shapes:
                ident = (0xfff0 + k * 3) & 0xffff     # ids wrap within a frame
                seq = (0xffff0000 + k * 0x01000193) & 0xffffffff
                frames.append(build_frame(dmac, l3, pattern(plen, k), flags, opts, ident,
                                          seq))
                k += 1
    write_pcap(path, frames)
    print(len(frames))


# ---- parsing ----------------------------------------------------------------

class Frame:
    """An Ethernet/[802.1Q]/IPv4-or-IPv6/TCP frame taken apart."""

    def __init__(self, data):
        self.data = data
        self.vlan = None
        off = 12
        ethertype = struct.unpack('!H', data[off:off + 2])[0]
        if ethertype == ETH_VLAN:
            self.vlan = struct.unpack('!H', data[14:16])[0] & 0x0fff
            off = 16
            ethertype = struct.unpack('!H', data[off:off + 2])[0]
        self.eth = data[:12]
        l3 = off + 2
        self.l3off = l3
        if ethertype == ETH_IPV4:
            self.l3 = 4
            ihl = (data[l3] & 0x0f) * 4
            self.iphdr = data[l3:l3 + ihl]
            (_, self.tos, self.ip_len, self.ip_id, self.frag, self.ttl, self.proto,
             self.ip_csum) = struct.unpack('!BBHHHBBH', data[l3:l3 + 12])
            self.src, self.dst = data[l3 + 12:l3 + 16], data[l3 + 16:l3 + 20]
            self.ip_end = l3 + self.ip_len
            l4 = l3 + ihl
        elif ethertype == ETH_IPV6:
            self.l3 = 6
            self.iphdr = data[l3:l3 + 40]
            self.flow, self.ip_len, self.proto, self.ttl = struct.unpack(
                '!IHBB', data[l3:l3 + 8])
            self.src, self.dst = data[l3 + 8:l3 + 24], data[l3 + 24:l3 + 40]
            self.ip_end = l3 + 40 + self.ip_len
            l4 = l3 + 40
        else:
            raise ValueError('ethertype 0x%04x' % ethertype)
        if self.proto != 6:
            raise ValueError('IP protocol %d, not TCP' % self.proto)
        self.l4off = l4
        (self.sport, self.dport, self.seq, self.ack, doff, self.flags, self.window,
         self.tcp_csum, self.urg) = struct.unpack('!HHIIBBHHH', data[l4:l4 + 20])
        self.tcp_hlen = (doff >> 4) * 4
        self.options = data[l4 + 20:l4 + self.tcp_hlen]
        self.payload = data[l4 + self.tcp_hlen:self.ip_end]

    def ip_csum_ok(self):
        return self.l3 == 6 or ones_sum(self.iphdr) == 0xffff

    def tcp_csum_ok(self):
        seg = self.data[self.l4off:self.ip_end]
        return ones_sum(pseudo(self.l3, self.src, self.dst, len(seg)) + seg) == 0xffff


def expected_segments(fr, mss):
    """testpmd's csum engine asks for TSO only above hdrs + MSS."""
    n = len(fr.payload)
    return 1 if n <= mss else (n + mss - 1) // mss


def expect(in_path, mss):
    frames = [Frame(d) for d in read_pcap(in_path)]
    counts = [expected_segments(f, mss) for f in frames]
    print(len(frames), sum(1 for f in frames if len(f.payload) > mss), sum(counts))


# ---- the check --------------------------------------------------------------

class Checker:
    def __init__(self):
        self.faults = 0

    def fault(self, where, text):
        self.faults += 1
        if self.faults <= 40:
            print('FAIL: %s: %s' % (where, text))

    def eq(self, where, what, got, want):
        if got != want:
            self.fault(where, '%s is %r, expected %r' % (what, got, want))


def check_segment(c, where, inp, seg, k, n, off, vlan):
    """Segment k of n of input frame inp, carrying the payload from off."""
    max_len = 1514 + (4 if vlan is not None else 0)
    if len(seg.data) > max_len:
        c.fault(where, 'frame of %d bytes, more than %d' % (len(seg.data), max_len))
    c.eq(where, 'VLAN ID', seg.vlan, vlan)
    c.eq(where, 'IP version', seg.l3, inp.l3)
    if seg.ip_end != len(seg.data):
        c.fault(where, 'IP length ends at byte %d of a %d-byte frame' %
                (seg.ip_end, len(seg.data)))
    if seg.l3 == 4:
        c.eq(where, 'IPv4 id', seg.ip_id, (inp.ip_id + k) & 0xffff)
        c.eq(where, 'IPv4 tos/flags/ttl', (seg.tos, seg.frag, seg.ttl),
             (inp.tos, inp.frag, inp.ttl))
        c.eq(where, 'IPv4 header length', len(seg.iphdr), len(inp.iphdr))
        if not seg.ip_csum_ok():
            c.fault(where, 'IPv4 header checksum 0x%04x wrong' % seg.ip_csum)
    else:
        c.eq(where, 'IPv6 flow/hop limit', (seg.flow, seg.ttl), (inp.flow, inp.ttl))
    c.eq(where, 'IP addresses', (seg.src, seg.dst), (inp.src, inp.dst))
    c.eq(where, 'TCP ports', (seg.sport, seg.dport), (inp.sport, inp.dport))
    c.eq(where, 'TCP seq', seg.seq, (inp.seq + off) & 0xffffffff)
    c.eq(where, 'TCP ack/window/urg', (seg.ack, seg.window, seg.urg),
         (inp.ack, inp.window, inp.urg))
    c.eq(where, 'TCP options', seg.options, inp.options)
    last_only = TCP_FIN | TCP_PSH
    want = inp.flags & ~(last_only | TCP_CWR)
    if k == n - 1:
        want |= inp.flags & last_only
    if k == 0:
        want |= inp.flags & TCP_CWR
    c.eq(where, 'TCP flags', '0x%02x' % seg.flags, '0x%02x' % want)
    if not seg.tcp_csum_ok():
        c.fault(where, 'TCP checksum 0x%04x wrong' % seg.tcp_csum)


def check(in_path, out_path, mss, vlan):
    c = Checker()
    inputs = [Frame(d) for d in read_pcap(in_path)]
    raw_out = read_pcap(out_path)
    pos = segs = tso = 0
    for i, inp in enumerate(inputs):
        n = expected_segments(inp, mss)
        tso += n > 1
        if pos + n > len(raw_out):
            c.fault('input frame %d' % i, 'needs %d output frames, %d left' %
                    (n, len(raw_out) - pos))
            break
        got = b''
        eth = None
        for k in range(n):
            where = 'input frame %d (%d bytes, IPv%d) segment %d/%d (output frame %d)' % (
                i, len(inp.data), inp.l3, k + 1, n, pos)
            try:
                seg = Frame(raw_out[pos])
            except (ValueError, struct.error) as e:
                c.fault(where, 'not a TCP frame: %s' % e)
                pos += 1
                continue
            if eth is None:
                eth = seg.eth
            c.eq(where, 'Ethernet addresses', seg.eth, eth)
            want_len = mss if k < n - 1 else len(inp.payload) - mss * (n - 1)
            c.eq(where, 'TCP payload length', len(seg.payload), want_len)
            check_segment(c, where, inp, seg, k, n, len(got), vlan)
            got += seg.payload
            pos += 1
            segs += 1
        if got != inp.payload:
            diff = next((j for j in range(min(len(got), len(inp.payload)))
                         if got[j] != inp.payload[j]), min(len(got), len(inp.payload)))
            c.fault('input frame %d' % i, 'payload of the segments (%d bytes) differs from '
                    'the input (%d bytes) from byte %d' % (len(got), len(inp.payload), diff))
    if pos < len(raw_out):
        c.fault(out_path, '%d output frames more than the input makes' % (len(raw_out) - pos))
    if c.faults:
        print('tso_pcap: %d fault(s) in %d output frames of %d input frames' %
              (c.faults, len(raw_out), len(inputs)))
        return 1
    print('tso_pcap: %d input frames (%d above the MSS of %d) -> %d segments, all correct' %
          (len(inputs), tso, mss, segs))
    return 0


def main(argv):
    if len(argv) == 5 and argv[0] == 'gen':
        gen(argv[1], argv[2], argv[3], int(argv[4]))
        return 0
    if len(argv) == 3 and argv[0] == 'expect':
        expect(argv[1], int(argv[2]))
        return 0
    if len(argv) == 2 and argv[0] == 'count':
        print(len(read_pcap(argv[1])))
        return 0
    if len(argv) in (4, 6) and argv[0] == 'check':
        vlan = int(argv[5]) if len(argv) == 6 and argv[4] == '--vlan' else None
        return check(argv[1], argv[2], int(argv[3]), vlan)
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
