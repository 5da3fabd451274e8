#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""The Linux end of the TSO stream: a TCP socket that reads to EOF and checks.

    tso_tcp_recv.py <address> <port> <bytes> <ready file> [<timeout s>]

Listens (the ready file appears once it does), accepts one connection, reads
until the peer closes, then checks that exactly <bytes> arrived and that byte
i is tso_tcp.c's tso_tcp_byte(i) = ((i * 7) ^ (i >> 9) ^ (i >> 17)) & 0xff.
Exit status 0 only then; one line says what was wrong otherwise.
"""

import socket
import sys


def expected(n):
    # Within an aligned 512-byte block (i >> 9) and (i >> 17) are constant:
    # the block is the pattern of (i * 7) & 0xff XORed with one byte.
    base = bytes((j * 7) & 0xff for j in range(512))
    xor = [bytes(x ^ c for x in range(256)) for c in range(256)]
    out = bytearray()
    for b in range((n + 511) // 512):
        out += base.translate(xor[(b ^ (b >> 8)) & 0xff])
    return bytes(out[:n])


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__)
        return 2
    addr, port, want, ready = argv[0], int(argv[1]), int(argv[2]), argv[3]
    timeout = float(argv[4]) if len(argv) == 5 else 60.0
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(1)
    srv.settimeout(timeout)
    with open(ready, 'w') as f:
        f.write('listening\n')
    try:
        conn, peer = srv.accept()
    except socket.timeout:
        print('tso_tcp_recv: FAIL: no connection within %.0f s' % timeout)
        return 1
    conn.settimeout(timeout)
    data = bytearray()
    try:
        while True:
            chunk = conn.recv(1 << 20)
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        print('tso_tcp_recv: FAIL: stalled after %d of %d bytes from %s' %
              (len(data), want, peer[0]))
        return 1
    except ConnectionResetError:
        print('tso_tcp_recv: FAIL: connection reset after %d bytes' % len(data))
        return 1
    conn.close()
    exp = expected(want)
    if bytes(data) == exp:
        print('tso_tcp_recv: %d bytes from %s:%d, every byte as sent' % (len(data), *peer))
        return 0
    n = min(len(data), len(exp))
    first = next((i for i in range(n) if data[i] != exp[i]), n)
    print('tso_tcp_recv: FAIL: %d bytes received, %d sent; first difference at byte %d' %
          (len(data), want, first))
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
