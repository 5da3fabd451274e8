#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""Run the command blocks of a document (doc/user_guide.md, one chapter or
all of it; README.md; the NIC guide doc/guides/nics/mana.rst), so that the
commands shown to users keep working as written.

    run_doc_commands.py --doc FILE [--chapter N[,M...]] \
        --build-root BUILD --workdir DIR [--dpdk-prefix P] [--only NAME,...]

Markdown: every ```sh block (of chapter N, "## N. ...", or of the whole
file) must follow a marker comment, and so must a bare ``` block that holds
a command (a line starting with dpdk-*, ./scripts/, LD_LIBRARY_PATH=, ...):

    <!-- doc-test: hardware -->                    not run (Azure hardware)
    <!-- doc-test: ovs -->                         not run: root and Open vSwitch;
                                                   test/system/ovs runs these settings
    <!-- doc-test: covered by=TEST [by=...] -->    not run here: the meson test TEST,
                                                   or the script of the repository
                                                   named (by=.ci/run: the CI job),
                                                   runs the same commands (root and
                                                   hugepages, minutes, ...)
    <!-- doc-test: fragment -->                    not a command: arguments to put
                                                   into one, a session's input; a
                                                   line that starts a command fails
    <!-- doc-test: run name=N [key=value ...] -->   run on the software device

reStructuredText: the same markers as comments right before a
".. code-block:: console" (or sh, bash, shell) directive; a marker may go on
over indented lines:

    .. doc-test: run name=N
       expect="..."

    .. code-block:: console

       dpdk-testpmd ...

A literal block ("::") that holds a command is an error: commands go in
marked code-blocks.

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
until=output sees lines as they are printed, and stdin at end of file (an
interactive testpmd, -i, quits at once). The only change made to a
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
    """(line number, text) of chapter `number` (## N. ...; N,M,...: several),
    each up to the next ## heading; every line of the file when `number` is
    None."""
    lines = open(path, encoding='utf-8').read().split('\n')
    if number is None:
        return list(enumerate(lines, 1))
    out, inside = [], False
    for i, text in enumerate(lines, 1):
        if text.startswith('## '):
            inside = any(text.startswith('## %s. ' % n) for n in number.split(','))
        elif inside:
            out.append((i, text))
    return out


# A line that runs something: what a reader would paste into a shell (at the
# start of a dedented line; indented lines continue another).
COMMAND = re.compile(r'^(sudo\s+)?([A-Z_][A-Z0-9_]*=\S*\s+)*('
                     r'(dpdk-[a-z-]+|meson|ninja|dpkg-buildpackage|apt-get|mkdir|mount)(\s|$)|'
                     r'(\./scripts/|scripts/|build/|apps/)\S+|echo\s.*>)')


def marked(path, line, marker, body):
    """A block found: its marker words parsed."""
    words = shlex.split(marker) if marker else []
    opts = {}
    for w in words[1:]:
        k, _, v = w.partition('=')
        opts.setdefault(k, []).append(v)
    return {'line': line, 'kind': words[0] if words else None, 'opts': opts,
            'text': '\n'.join(body) + '\n', 'doc': os.path.basename(path)}


def md_blocks(path, number):
    """The sh blocks of a markdown file (or chapter), and bare blocks holding a
    command: dicts with line, kind, options, text. A block without a marker
    is returned with kind None."""
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
        if text.startswith('```'):
            body = []
            for _, t in it:
                if t.startswith('```'):
                    break
                body.append(t)
            if FENCE_SH.match(text) or (text.strip() == '```' and
                                        any(COMMAND.match(t) for t in body)):
                found.append(marked(path, n, marker, body))
            marker = None
        elif text.strip():
            marker = None	# a marker belongs to the block right after it
    return found


RST_MARKER = re.compile(r'^\.\.\s+doc-test:\s*(.*?)\s*$')
RST_CODE = re.compile(r'^\.\.\s+code-block::\s*(console|sh|bash|shell)\s*$')


def rst_indented(lines, i):
    """The indented body that starts at or after lines[i] (blank lines first
    skipped), dedented, and the index after it."""
    while i < len(lines) and not lines[i][1].strip():
        i += 1
    body = []
    while i < len(lines) and (not lines[i][1].strip() or lines[i][1][0] in ' \t'):
        body.append(lines[i][1])
        i += 1
    while body and not body[-1].strip():
        body.pop()
    indent = min((len(t) - len(t.lstrip()) for t in body if t.strip()), default=0)
    return [t[indent:] for t in body], i


def rst_blocks(path):
    """The console code-blocks of a reStructuredText file with their markers
    (kind None: no marker), and a failure for each literal block ("::")
    that holds a command."""
    found, marker, lines = [], None, chapter_lines(path, None)
    i = 0
    while i < len(lines):
        n, text = lines[i]
        m = RST_MARKER.match(text)
        if m:
            cont, i = [], i + 1
            while i < len(lines) and lines[i][1][:1] in (' ', '\t') and lines[i][1].strip():
                cont.append(lines[i][1].strip())
                i += 1
            marker = ' '.join([m.group(1)] + cont)
            continue
        if RST_CODE.match(text):
            body, i = rst_indented(lines, i + 1)
            found.append(marked(path, n, marker, body))
            marker = None
            continue
        if text.rstrip().endswith('::') and not text.lstrip().startswith('..'):
            body, i = rst_indented(lines, i + 1)
            cmd = [t for t in body if COMMAND.match(t)]
            if cmd:
                check(False, '%s line %d: a command in a literal block ("%s"): put it in a '
                      '".. code-block:: console" after a ".. doc-test:" marker'
                      % (path, n, cmd[0].strip()))
            marker = None
            continue
        if text.strip():
            marker = None
        i += 1
    return found


def blocks(path, number):
    if path.endswith('.rst'):
        return rst_blocks(path)
    return md_blocks(path, number)


def meson_tests(root):
    """The test names defined in the meson.build files below root: the
    literal first argument of each test() call, and for test('prefix_' + s,
    ...) in a loop, prefix_ followed by each quoted string of that file."""
    names = set()
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith('.') and not x.startswith('build')]
        if 'meson.build' not in files:
            continue
        text = open(os.path.join(d, 'meson.build'), encoding='utf-8').read()
        quoted = re.findall(r"'([A-Za-z0-9_]+)'", text)
        for t in re.findall(r"\btest\(\s*'([^']+)'", text):
            names.add(t)
            if t.endswith('_'):
                names.update(t + q for q in quoted)
    return names


def covered(b, a):
    """A covered block names, in each by=, an existing meson test or a file
    of the repository (.ci/run: the CI job itself) that runs the same
    commands."""
    by = b['opts'].get('by', [])
    check(by != [], '%s line %d: covered names what runs it (by=<meson test>)'
          % (b['doc'], b['line']))
    tests = None
    for t in by:
        if '/' in t:
            ok = os.path.isfile(os.path.join(a.source_root, t))
        else:
            tests = tests if tests is not None else meson_tests(a.source_root)
            ok = t in tests
        check(ok, '%s line %d: covered by=%s exists' % (b['doc'], b['line'], t))


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
    print('--- block %s (%s line %d)\n%s' % (name, b['doc'], b['line'], script), flush=True)
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
    ap.add_argument('--chapter', help='the markdown chapter number, or numbers N,M,... '
                    '(default: the whole file)')
    ap.add_argument('--source-root', default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), '..', '..', '..'), help='where covered by= tests are looked up')
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
        if b['kind'] == 'covered':
            covered(b, a)
            continue
        if b['kind'] == 'fragment':
            cmd = [t for t in b['text'].split('\n') if COMMAND.match(t)]
            check(not cmd, '%s line %d: a fragment without commands%s'
                  % (b['doc'], b['line'], ' ("%s")' % cmd[0] if cmd else ''))
            continue
        if b['kind'] != 'run' or name is None:
            check(False, 'command block at %s line %d has no doc-test marker (run name=..., '
                  'hardware, ovs, covered by=..., fragment)' % (a.doc, b['line']))
            continue
        if a.only and name not in a.only.split(',') + ['build']:
            continue
        run_block(b, a)
        ran += 1
    where = os.path.basename(a.doc) + (' chapter %s' % a.chapter if a.chapter else '')
    check(ran > 0, '%d blocks of %s run' % (ran, where))
    print('%s: %s' % (where, 'FAILED: ' + '; '.join(failures)
                      if failures else 'passed (%d blocks)' % ran))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
