#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""The frames of mp_test.sh's pdump scenario: send them, check a capture.

    pdump_frames.py send <ifname> <count> <dst MAC> <src MAC> <length>
        writes <count> Ethernet frames of <length> bytes to the interface
        (AF_PACKET, root): EtherType 0x88B5 (local experimental), payload
        "NMPD", the frame's number (32-bit big-endian, from 0), then bytes
        (number + k) mod 256. At most 128 frames are out at a time: the next
        goes when one has come back (the port forwards them back out), so
        neither the TAP's queue (500 frames) nor the port's RX ring (256
        descriptors by default) can overflow. Prints "sent: N" and
        "returned: M"; it stops sending when nothing came back for 2 s.
    pdump_frames.py check <capture.pcap> <dst MAC> <src MAC> <length>
        prints "records: N" (the capture's complete records; 0 for a file
        that holds only the header) and checks each record in order: link
        type Ethernet, captured and wire length <length>, the MACs, the
        EtherType and payload of frame number i for record i. A fault is
        one line; the first 5 are printed.

Written from the pcap file format (microsecond and nanosecond magic, either
byte order); it imports no project code.
Exit status: 0 when every record matched (also for 0 records), 1 otherwise.
"""

import socket
import struct
import sys

ETHERTYPE = 0x88B5
MAGIC = b"NMPD"
WINDOW = 128
RETURN_TIMEOUT_S = 2.0
PCAP_MAGICS = {0xA1B2C3D4, 0xA1B23C4D}
LINKTYPE_ETHERNET = 1


def mac_bytes(text):
    return bytes(int(b, 16) for b in text.replace("-", ":").split(":"))


def frame(number, dst, src, length):
    head = dst + src + struct.pack("!H", ETHERTYPE) + MAGIC + struct.pack("!I", number)
    pad = bytes((number + k) % 256 for k in range(length - len(head)))
    return head + pad


def send(ifname, count, dst, src, length):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE))
    sock.bind((ifname, ETHERTYPE))
    sock.settimeout(RETURN_TIMEOUT_S)
    sent = back = 0
    while back < count:
        while sent < count and sent - back < WINDOW:
            sock.send(frame(sent, dst, src, length))
            sent += 1
        try:
            data, addr = sock.recvfrom(65536)
        except socket.timeout:
            break
        if addr[2] != socket.PACKET_OUTGOING and data[14:18] == MAGIC:
            back += 1
    sock.close()
    print(f"sent: {sent}")
    print(f"returned: {back}")
    return 0


def records(data):
    """Yields (index, header fault or None, caplen, wirelen, bytes)."""
    if len(data) < 24:
        yield 0, "file shorter than a pcap header", 0, 0, b""
        return
    for order in ("<", ">"):
        magic, _, _, _, _, _, link = struct.unpack(order + "IHHiIII", data[:24])
        if magic in PCAP_MAGICS:
            break
    else:
        yield 0, f"not a pcap file (magic {data[:4].hex()})", 0, 0, b""
        return
    if link != LINKTYPE_ETHERNET:
        yield 0, f"link type {link}, not Ethernet ({LINKTYPE_ETHERNET})", 0, 0, b""
        return
    off, i = 24, 0
    while off + 16 <= len(data):
        _, _, caplen, wirelen = struct.unpack(order + "IIII", data[off:off + 16])
        if off + 16 + caplen > len(data):
            break  # a partial last record is not counted
        yield i, None, caplen, wirelen, data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        i += 1


def check(path, dst, src, length):
    with open(path, "rb") as f:
        data = f.read()
    count, faults = 0, []
    for i, fault, caplen, wirelen, body in records(data):
        if fault is not None:
            faults.append(fault)
            break
        count += 1
        if caplen != length or wirelen != length:
            faults.append(f"record {i}: length {caplen}/{wirelen}, expected {length}")
        elif body != frame(i, dst, src, length):
            got = struct.unpack("!I", body[18:22])[0] if body[14:18] == MAGIC else None
            faults.append(f"record {i}: not frame {i} (dst {body[0:6].hex(':')}, "
                          f"src {body[6:12].hex(':')}, type {body[12:14].hex()}, "
                          f"frame number {got})")
    print(f"records: {count}")
    for fault in faults[:5]:
        print(f"FAIL: {path}: {fault}")
    return 1 if faults else 0


def main(argv):
    if len(argv) == 7 and argv[1] == "send":
        return send(argv[2], int(argv[3]), mac_bytes(argv[4]), mac_bytes(argv[5]),
                    int(argv[6]))
    if len(argv) == 6 and argv[1] == "check":
        return check(argv[2], mac_bytes(argv[3]), mac_bytes(argv[4]), int(argv[5]))
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
