#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""Packet rate of a running DPDK application, from its telemetry socket.

usage: telemetry_rate.py <socket> <nports> <warmup s> <measure s>
Waits for the socket, samples the ports' opackets after the warm-up and
again after the measured interval; prints "mpps=X opackets=N seconds=S".
"""
import json
import socket
import sys
import time


def query(sock, cmd):
    sock.send(cmd.encode())
    return json.loads(sock.recv(1 << 16).decode())


def opackets(sock, nports):
    total = 0
    for p in range(nports):
        reply = query(sock, "/ethdev/stats,%d" % p)
        total += reply["/ethdev/stats"]["opackets"]
    return total


def main():
    path, nports = sys.argv[1], int(sys.argv[2])
    warm, secs = float(sys.argv[3]), float(sys.argv[4])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    deadline = time.time() + 20
    while True:
        try:
            sock.connect(path)
            break
        except OSError:
            if time.time() > deadline:
                sys.exit("no telemetry socket at %s" % path)
            time.sleep(0.2)
    sock.recv(1 << 16)  # the greeting
    time.sleep(warm)
    a, t0 = opackets(sock, nports), time.time()
    time.sleep(secs)
    b, t1 = opackets(sock, nports), time.time()
    print("mpps=%.3f opackets=%d seconds=%.2f" % ((b - a) / (t1 - t0) / 1e6, b - a, t1 - t0))


if __name__ == "__main__":
    main()
