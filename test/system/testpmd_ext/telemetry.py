#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""The driver's telemetry endpoints from Debian's unmodified dpdk-testpmd with
the plugin: run it on the software device (2 queues, 100 generated frames,
rxonly), query /ethdev/mana/* over the telemetry socket and through DPDK's
dpdk-telemetry.py, and check the values.

    telemetry.py --pmd-dir DIR [--testpmd dpdk-testpmd]
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time

failures = []


def check(ok, what):
    print(('ok   ' if ok else 'FAIL ') + what)
    if not ok:
        failures.append(what)


def query(sock, cmd):
    sock.send(cmd.encode())
    return json.loads(sock.recv(1 << 20).decode())[cmd.split(',')[0]]


def via_script(prefix, rss):
    """The same endpoints through DPDK's own client, dpdk-telemetry.py (which
    prints one JSON reply a line when its input is not a terminal)."""
    # The tested DPDK's own (a prefix's bin comes first in PATH), else Debian's.
    script = shutil.which('dpdk-telemetry.py') or '/usr/bin/dpdk-telemetry.py'
    if not os.path.exists(script):
        print('dpdk-telemetry.py not installed (Debian package dpdk-dev): not checked')
        return
    cmds = '/\n/help,/ethdev/mana/rss\n/ethdev/mana/rss,0\n/ethdev/mana/port,0\n'
    p = subprocess.run([sys.executable, script, '-f', prefix], input=cmds.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30,
                       check=False)
    out = p.stdout.decode(errors='replace')
    print(out)
    replies = {}
    for line in out.splitlines():
        try:
            replies.update(json.loads(line))
        except ValueError:
            pass
    check(p.returncode == 0, 'dpdk-telemetry.py exit status %d' % p.returncode)
    check(all(e in replies.get('/', []) for e in
              ('/ethdev/mana/port', '/ethdev/mana/rss', '/ethdev/mana/rxq',
               '/ethdev/mana/txq', '/ethdev/mana/model')),
          'dpdk-telemetry.py lists the five /ethdev/mana endpoints')
    check(bool(replies.get('/help', {}).get('/ethdev/mana/rss')),
          'dpdk-telemetry.py: /help,/ethdev/mana/rss describes the endpoint')
    check(replies.get('/ethdev/mana/rss') == rss,
          'dpdk-telemetry.py: /ethdev/mana/rss,0 equals the socket\'s answer')
    port = replies.get('/ethdev/mana/port') or {}
    check(port.get('ibdev') == 'net_mana0' and port.get('nb_rxq') == 2,
          'dpdk-telemetry.py: /ethdev/mana/port,0')


def eal_runtime_rm(prefix):
    """EAL never removes its runtime directory (config, fbarrays, sockets)."""
    base = '/var/run/dpdk' if os.geteuid() == 0 else \
        os.path.join(os.environ.get('XDG_RUNTIME_DIR', '/tmp'), 'dpdk')
    shutil.rmtree(os.path.join(base, prefix), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--pmd-dir', required=True)
    ap.add_argument('--testpmd', default='dpdk-testpmd')
    a = ap.parse_args()
    prefix = 'mana_tel_%d' % os.getpid()
    # The plugin's directory first; DPDK's own libraries (a prefix's) stay found.
    libs = [a.pmd_dir] + ([os.environ['LD_LIBRARY_PATH']]
                          if os.environ.get('LD_LIBRARY_PATH') else [])
    env = dict(os.environ, LD_LIBRARY_PATH=':'.join(libs))
    cmd = [a.testpmd, '--no-huge', '-m', '512', '-l', '0-1', '--file-prefix', prefix,
           '-d', 'librte_net_mana.so', '--vdev',
           'net_mana0,mac=02:00:00:00:00:0a,wire=gen:flows=4:count=100:lossless=1', '--',
           '--total-num-mbufs=8192', '--rxq=2', '--txq=2', '--forward-mode=rxonly',
           '--stats-period', '1']
    print('$ ' + ' '.join(cmd), flush=True)
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    path = '/var/run/dpdk/%s/dpdk_telemetry.v2' % prefix
    try:
        sock = None
        for _ in range(100):
            if os.path.exists(path):
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                sock.connect(path)
                break
            time.sleep(0.1)
        check(sock is not None, 'telemetry socket ' + path)
        if sock is None:
            return 1
        sock.recv(1024)
        for _ in range(100):		# until the 100 frames were received
            if query(sock, '/ethdev/mana/model,0')['rx_frames'] >= 100:
                break
            time.sleep(0.1)
        port = query(sock, '/ethdev/mana/port,0')
        print(port)
        check(port['backend'] == 'model' and port['ibdev'] == 'net_mana0',
              'port: model device net_mana0')
        check(port['mac'] == '02:00:00:00:00:0a' and port['started'] == 1,
              'port: MAC and started')
        check(port['nb_rxq'] == 2 and port['doorbell_pages'] == 4, 'port: 2 queues, 4 doorbells')
        check(port['mr_count'] >= 1 and len(port['mr_table']) == port['mr_count'],
              'port: MR table listed')
        rss = query(sock, '/ethdev/mana/rss,0')
        print(rss)
        check(rss['key'].startswith('2cc681d15bdbf4f7'), 'rss: default key')
        check(rss['reta'] == [i % 2 for i in range(64)], 'rss: 64 entries alternate 0,1')
        check(len(set(rss['wq_id'])) == 2 and 0 not in rss['wq_id'], 'rss: two RQ ids')
        model = query(sock, '/ethdev/mana/model,0')
        check(model['rx_frames'] == 100 and model['wire_gen_frames'] == 100,
              'model: 100 frames generated and delivered')
        for q in (0, 1):
            rxq = query(sock, '/ethdev/mana/rxq,0,%d' % q)
            print(rxq)
            check(rxq['running'] == 1 and rxq['wq_id'] in rss['wq_id'],
                  'rxq %d: running, RQ id in the RSS table' % q)
            check(rxq['cq_count'] == 256 and rxq['cq_index'] == rxq['cq_head'] % 256,
                  'rxq %d: CQ position' % q)
        txq = query(sock, '/ethdev/mana/txq,0,0')
        check(txq['running'] == 1 and txq['free_desc'] == txq['nb_desc'], 'txq 0: idle')
        check(query(sock, '/ethdev/mana/port,9') is None, 'port 9: no answer')
        sock.close()
        via_script(prefix, rss)
    finally:
        p.terminate()
        out, _ = p.communicate(timeout=30)
        print(out.decode(errors='replace')[-2000:])
        eal_runtime_rm(prefix)
    print('telemetry: %s' % ('FAILED' if failures else 'passed'))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
