#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""Run the command blocks of one chapter of doc/user_guide.md, so that the
commands shown to users keep working.

    run_doc_commands.py --doc doc/user_guide.md --chapter 12 \
        --build-root BUILD --workdir DIR [--dpdk-prefix P] [--only NAME,...]

Every ```sh block of the chapter must follow a marker comment:

    <!-- doc-test: hardware -->                    not run (Azure hardware)
    <!-- doc-test: ovs -->                         not run: root and Open vSwitch;
                                                   test/system/ovs runs these settings
    <!-- doc-test: run name=N [key=value ...] -->   run on the software device

Keys of a run block (values may be "quoted"; expect= may repeat):
    until=exit               wait for the command to end (default)
    until=pcap:FILE:N        wait until FILE (a capture) holds N frames, then SIGINT
    until=output:REGEX       wait until the output matches, then SIGINT
    timeout=S                deadline in seconds (default 90); past it the block fails
    status=N                 expected exit status (default 0)
    expect=REGEX             must match the output (multi-line mode)
    pcap=FILE frames=N dmac=MAC ttl=N
                             the capture holds exactly N frames, each to MAC with that
                             IPv4 TTL

A block runs under bash -e in DIR, where build/ is a link to the build root
and earlier blocks' files stay, with stdout line-buffered (stdbuf) so that
until=output sees lines as they are printed. The only change made to a
block: each --no-huge gets a unique --file-prefix after it (so runs do not
collide); a block that loads the plugin must therefore use --no-huge.
Exit status 0 when every block passed, 77 (skipped) when dpdk-testpmd is
missing or the build's DPDK is not the one in /usr.
"""

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_example import eal_runtime_rm, pcap_read, mac  # noqa: E402

MARKER = re.compile(r'^<!--\s*doc-test:\s*(.*?)\s*-->\s*$')
FENCE_SH = re.compile(r'^```(sh|bash|shell)\s*$')

failures = []


def check(ok, what):
    print(('ok   ' if ok else 'FAIL ') + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def chapter_lines(path, number):
    """(line number, text) of chapter `number` (## N. ...), up to the next ## heading."""
    lines = open(path, encoding='utf-8').read().split('\n')
    out, inside = [], False
    for i, text in enumerate(lines, 1):
        if text.startswith('## '):
            inside = text.startswith('## %s. ' % number)
        elif inside:
            out.append((i, text))
    return out


def blocks(path, number):
    """The chapter's sh blocks: dicts with line, kind, options, text. A block
    without a marker is an error (returned with kind None)."""
    found, marker, lines = [], None, chapter_lines(path, number)
    if not lines:
        check(False, '%s has no chapter "## %s. ..."' % (path, number))
        return found
    it = iter(lines)
    for n, text in it:
        m = MARKER.match(text)
        if m:
            marker = m.group(1)
            continue
        if FENCE_SH.match(text):
            body = []
            for _, t in it:
                if t.startswith('```'):
                    break
                body.append(t)
            words = shlex.split(marker) if marker else []
            opts = {}
            for w in words[1:]:
                k, _, v = w.partition('=')
                opts.setdefault(k, []).append(v)
            found.append({'line': n, 'kind': words[0] if words else None, 'opts': opts,
                          'text': '\n'.join(body) + '\n'})
            marker = None
        elif text.strip():
            marker = None	# a marker belongs to the block right after it
    return found


def opt(b, key, default=None):
    v = b['opts'].get(key)
    return v[-1] if v else default


def prepare(b, prefix):
    """The block's script: --no-huge followed by a unique --file-prefix."""
    text = b['text']
    if '--no-huge' not in text:
        if 'librte_net_mana.so' in text:
            check(False, 'block %s (line %d) loads the plugin without --no-huge'
                  % (opt(b, 'name'), b['line']))
            return None
        return text
    return re.sub(r'--no-huge(?=\s)', '--no-huge --file-prefix ' + prefix, text)


def condition(b, outfile, workdir):
    """The block's until= condition as a function (None: wait for the exit),
    or False when until= is not understood."""
    until = opt(b, 'until', 'exit')
    kind, _, arg = until.partition(':')
    if kind == 'exit':
        return None
    if kind == 'pcap':
        path, _, n = arg.rpartition(':')
        path = os.path.join(workdir, path)	# relative to the block's directory
        return lambda: len(pcap_read(path)) >= int(n)
    if kind == 'output':
        rx = re.compile(arg, re.M)
        return lambda: rx.search(open(outfile, errors='replace').read()) is not None
    check(False, 'block %s: unknown until=%s' % (opt(b, 'name'), until))
    return False


def wait_for(b, p, outfile, deadline, workdir):
    """Waits for the block's until= condition; True when met before the deadline
    (for until=exit: when the command ended)."""
    met = condition(b, outfile, workdir)
    if met is False:
        return False
    while time.monotonic() < deadline:
        if p.poll() is not None:
            return met is None or met()
        if met is not None and met():
            return True
        time.sleep(0.2)
    return False


def stop(p):
    """SIGINT to the block's process group (the application quits and closes
    its ports), then waits; SIGKILL if it does not end within 30 s."""
    if p.poll() is None:
        time.sleep(0.5)		# a moment more: nothing further may arrive
        os.killpg(p.pid, signal.SIGINT)
    try:
        return p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return None


def check_pcap(b, name, workdir):
    path = opt(b, 'pcap')
    if path is None:
        return
    frames = pcap_read(os.path.join(workdir, path))
    want = int(opt(b, 'frames', '0'))
    check(len(frames) == want, '%s: %d frames in %s (expected %d)'
          % (name, len(frames), path, want))
    dmac = opt(b, 'dmac')
    if dmac is not None:
        bad = sum(1 for f in frames if mac(f[0:6]) != dmac.lower())
        check(bad == 0, '%s: frames not to %s: %d' % (name, dmac, bad))
    ttl = opt(b, 'ttl')
    if ttl is not None:
        bad = sum(1 for f in frames if len(f) < 34 or f[12:14] != b'\x08\x00' or
                  f[22] != int(ttl))
        check(bad == 0, '%s: frames without IPv4 TTL %s: %d' % (name, ttl, bad))


def run_block(b, a):
    name = opt(b, 'name', 'line%d' % b['line'])
    prefix = 'docapp_%s_%d' % (name, os.getpid())
    script = prepare(b, prefix)
    if script is None:
        return
    path = os.path.join(a.workdir, name + '.sh')
    with open(path, 'w', encoding='utf-8') as f:
        f.write(script)
    outfile = os.path.join(a.workdir, name + '.out')
    print('--- block %s (user_guide.md line %d)\n%s' % (name, b['line'], script), flush=True)
    with open(outfile, 'w') as out:
        p = subprocess.Popen(['stdbuf', '-oL', '-eL', 'bash', '-e', path], cwd=a.workdir,
                             stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True)
        deadline = time.monotonic() + float(opt(b, 'timeout', '90'))
        met = wait_for(b, p, outfile, deadline, a.workdir)
        rc = stop(p)
    eal_runtime_rm(prefix)
    text = open(outfile, errors='replace').read()
    print(text, flush=True)
    check(met, '%s: until=%s reached within %s s' % (name, opt(b, 'until', 'exit'),
                                                     opt(b, 'timeout', '90')))
    want = int(opt(b, 'status', '0'))
    check(rc == want, '%s: exit status %s (expected %d)' % (name, rc, want))
    for rx in b['opts'].get('expect', []):
        check(re.search(rx, text, re.M) is not None, '%s: output matches /%s/' % (name, rx))
    check_pcap(b, name, a.workdir)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--doc', required=True)
    ap.add_argument('--chapter', required=True)
    ap.add_argument('--build-root', required=True)
    ap.add_argument('--workdir', required=True)
    ap.add_argument('--dpdk-prefix', default='/usr', help="the build's DPDK prefix")
    ap.add_argument('--only', help='run only the blocks of these names, comma-separated '
                    '(and name=build; a block may need files of an earlier one)')
    a = ap.parse_args()
    if shutil.which('dpdk-testpmd') is None:
        print('SKIP: dpdk-testpmd not found')
        return 77
    if os.path.realpath(a.dpdk_prefix) != '/usr':
        # The chapter shows Debian's DPDK: its example sources in
        # /usr/share/dpdk/examples, pkg-config and dpdk-testpmd of /usr.
        print('SKIP: the chapter\'s commands use Debian\'s DPDK in /usr; this build\'s '
              'DPDK is in %s' % a.dpdk_prefix)
        return 77
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    os.symlink(os.path.abspath(a.build_root), os.path.join(a.workdir, 'build'))
    found = blocks(a.doc, a.chapter)
    ran = 0
    for b in found:
        name = opt(b, 'name')
        if b['kind'] in ('hardware', 'ovs'):
            print('--- %s block at line %d: not run' % (b['kind'], b['line']))
            continue
        if b['kind'] != 'run' or name is None:
            check(False, 'sh block at %s line %d has no <!-- doc-test: run name=... --> '
                  'or <!-- doc-test: hardware --> marker' % (a.doc, b['line']))
            continue
        if a.only and name not in a.only.split(',') + ['build']:
            continue
        run_block(b, a)
        ran += 1
    check(ran > 0, '%d blocks of chapter %s run' % (ran, a.chapter))
    print('user guide chapter %s: %s' % (a.chapter, 'FAILED: ' + '; '.join(failures)
                                         if failures else 'passed (%d blocks)' % ran))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
