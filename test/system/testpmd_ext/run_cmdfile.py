#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""Run dpdk-testpmd-mana with a --cmdline-file script on the software device
and check its output against an expectation file.

    run_cmdfile.py --testpmd EXE --script X.cmd --expect X.expect

The script names its device and testpmd options in header comments:
    #@ vdev: <--vdev string>
    #@ args: <testpmd options after -i>
    #@ stdin: <a command typed at the prompt after the script> (repeatable;
              for output testpmd prints to the terminal only, such as help)
The expectation file holds one regular expression per line (blank lines and
lines starting with '#' are skipped); they must match in this order. A
pattern may contain \\n to span lines, capture (?P<name>...), and use
{name} for the escaped text of an earlier capture. A line starting with '!'
is a pattern that must match nowhere in the output; a line starting with '~'
may match anywhere (output of the forwarding lcore interleaves with the
command line's).
"""

import argparse
import atexit
import os
import re
import shutil
import subprocess
import sys


def stdin_lines(script):
    return ''.join(line.split(':', 1)[1].strip() + '\n' for line in open(script)
                   if line.startswith('#@ stdin:'))


def header(script, key):
    for line in open(script):
        if line.startswith('#@ ' + key + ':'):
            return line.split(':', 1)[1].strip()
    return ''


def eal_runtime_rm(prefix):
    """EAL never removes its runtime directory (config, fbarrays, sockets)."""
    base = '/var/run/dpdk' if os.geteuid() == 0 else \
        os.path.join(os.environ.get('XDG_RUNTIME_DIR', '/tmp'), 'dpdk')
    shutil.rmtree(os.path.join(base, prefix), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--testpmd', required=True)
    ap.add_argument('--script', required=True)
    ap.add_argument('--expect', required=True)
    a = ap.parse_args()

    name = os.path.splitext(os.path.basename(a.script))[0]
    prefix = 'mana_tpx_%s_%d' % (name, os.getpid())
    atexit.register(eal_runtime_rm, prefix)
    cmd = ['stdbuf', '-o0', a.testpmd, '--no-huge', '-m', '512', '-l', '0-1',
           '--file-prefix', prefix,
           '--vdev', header(a.script, 'vdev'), '--', '-i', '--total-num-mbufs=8192',
           '--cmdline-file=' + a.script] + header(a.script, 'args').split()
    print('$ ' + ' '.join(cmd), flush=True)
    # After the script the prompt reads the #@ stdin lines, then EOF ends testpmd.
    p = subprocess.run(cmd, input=stdin_lines(a.script).encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120, check=False)
    out = p.stdout.decode(errors='replace')
    print(out)

    failures = []
    if p.returncode != 0:
        failures.append('testpmd exit status %d' % p.returncode)
    caps = {}
    pos = 0
    for raw in open(a.expect):
        pat = raw.rstrip('\n')
        if not pat.strip() or pat.startswith('#'):
            continue
        negate, anywhere = pat.startswith('!'), pat.startswith('~')
        if negate or anywhere:
            pat = pat[1:]
        pat = re.sub(r'\{(\w+)\}', lambda m: re.escape(caps.get(m.group(1), '<unset>')), pat)
        if negate:
            if re.search(pat, out):
                failures.append('unexpected: ' + pat)
            continue
        m = re.compile(pat).search(out, 0 if anywhere else pos)
        if m is None:
            failures.append('not found (in order): ' + pat)
            continue
        caps.update({k: v for k, v in m.groupdict().items() if v is not None})
        print('ok   ' + pat)
        if not anywhere:
            pos = m.end()
    for f in failures:
        print('FAIL ' + f)
    print('%s: %s' % (name, 'FAILED' if failures else 'passed'))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
