#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""Tables and a chart from bench/run.sh's raw.txt.

usage: report.py <raw.txt> <out dir>
Writes <out>/results.md and <out>/chart.png (standard library only: the PNG
is drawn pixel by pixel and compressed with zlib). Every title and table names
the DPDK release of the run (raw.txt's PLATFORM line); a row run.sh could not
measure says "not measured: <reason>" (its NOTMEASURED lines).
"""
import os
import re
import struct
import sys
import zlib

KV = re.compile(r'(\w+)=("[^"]*"|\S+)')


def kv(line):
    return {k: v.strip('"') for k, v in KV.findall(line)}


def num(d, k, default=None):
    try:
        return float(d[k])
    except (KeyError, ValueError):
        return default


class Raw:
    def __init__(self, path):
        self.fwd = {}      # label -> RESULT dict (+ 'model' and 'tasks')
        self.cg = {}       # tag -> CG dict (+ 'model')
        self.cge = {}      # tag -> CGE dict: callgrind of the device's engine thread
        self.tpmd = {}     # tag -> dict
        self.l3fwd = None
        self.doorbell = None
        self.tso = {}      # label -> TSO dict (fwd_bench --tso), 'cg <label>' -> the cg run's
        self.meta = {}
        self.pending = {}  # label -> TASK lines printed before their RESULT
        self.notes = []
        self.failed = []
        self.not_measured = {}  # (section, tag) -> reason
        self.result_dpdk = set()  # the DPDK releases fwd_bench reported running on
        with open(path) as f:
            for line in f:
                self.add(line.rstrip('\n'))
        self.dpdk = self.meta.get('dpdk', '?')
        # "DPDK 24.11" for short labels (the chart), the full version elsewhere
        self.branch = '.'.join(self.dpdk.split('.')[:2])

    def why(self, section, tag):
        """'not measured: <reason>' or 'failed to run' for a row without figures."""
        if (section, tag) in self.not_measured:
            return 'not measured: ' + self.not_measured[(section, tag)]
        failed_tag = {'fwd': tag, 'l3fwd': 'l3fwd'}.get(section, section + '_' + tag)
        if failed_tag in self.failed:
            return 'failed to run (see raw.txt)'
        only = self.meta.get('only')
        if only and section not in only.split(','):
            return 'not measured: section %s not run (run.sh --only %s)' % (section, only)
        return 'not measured: not in this run (no line in raw.txt)'

    def section_notes(self, section, tags=None):
        """The not-measured lines of a section, as markdown list items."""
        return ['- %s: %s' % (t, r)
                for (sec, t), r in sorted(self.not_measured.items())
                if sec == section and (tags is None or t in tags)]

    def add(self, line):
        first = line.split(' ', 1)[0]
        d = kv(line)
        if first in ('PLATFORM', 'MACHINE', 'VERSIONS', 'MODE'):
            self.meta.update(d)
        elif first == 'NOTMEASURED':
            self.not_measured[(d.get('section', '?'), d.get('tag', '?'))] = d.get('reason', '?')
        elif first == 'NOTE':
            self.notes.append(line[5:])
        elif first == 'FAILED':
            self.failed.append(d.get('tag', '?'))
        elif first == 'CG':
            d['model'] = None
            self.cg[d['tag']] = d
        elif first == 'CGE':
            self.cge[d['tag']] = d
        elif first == 'TESTPMD':
            self.tpmd[d['tag']] = d
        elif first == 'L3FWD':
            self.l3fwd = d
        elif first == 'DOORBELL':
            self.doorbell = d
        elif first in ('fwd', 'cg') and ' TSO ' in line:
            key = line.split()[1]
            self.tso[key if first == 'fwd' else 'cg ' + key] = d
        elif first == 'cg':
            tag = line.split()[1]
            if tag in self.cg and ' MODEL ' in line:
                self.cg[tag]['model'] = d
        elif first in ('fwd', 'rss', 'scale'):
            label = line.split()[1]
            if ' RESULT ' in line:
                if 'dpdk' in d:
                    self.result_dpdk.add(d['dpdk'])
                d['model'] = []
                d['tasks'] = self.pending.pop(label, [])
                self.fwd[label] = d
            elif ' MODEL ' in line and label in self.fwd:
                self.fwd[label]['model'].append(d)
            elif ' TASK ' in line:
                self.pending.setdefault(label, []).append(d)


def fmt(v, nd=1):
    if v is None:
        return 'n/a'
    if isinstance(v, str):
        return v
    return ('%.' + str(nd) + 'f') % v


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def ir_pkt(c):
    if c is None:
        return None, None, None
    p = num(c, 'pkts')
    if not p:
        return None, None, None
    return num(c, 'ir_rx') / p, num(c, 'ir_tx') / p, num(c, 'ir') / p


def engine_ns(r):
    if not r or not r.get('model'):
        return None
    m = r['model'][0]
    return num(m, 'ns_per_frame')


def peers(raw):
    """(tag, name) of the port pairs compared; DPDK's own net/mana is the run's release."""
    return [('null', 'net_null (floor)'), ('ring', 'net_ring pair'),
            ('memif', 'net_memif pair'), ('upstream', 'DPDK %s net/mana (model)' % raw.dpdk),
            ('distro', "Debian's net/mana binary (model)"),
            ('mana', 'net_mana (this PMD)'), ('mana_ff', 'net_mana + MBUF_FAST_FREE')]


def peer_table(raw, out):
    mana_c = num(raw.fwd.get('mana', {}), 'cyc_pkt')
    mana_i = ir_pkt(raw.cg.get('mana'))[2]
    out.append('| port pair | cycles/pkt rx | tx | rx+tx | avg burst | Mpps | '
               'instr/pkt rx | tx | rx+tx | net_mana cycles ratio | net_mana instr ratio |')
    out.append('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for tag, name in peers(raw):
        r = raw.fwd.get(tag)
        irx, itx, itot = ir_pkt(raw.cg.get(tag))
        if r is None:
            cyc = [raw.why('fwd', tag), '', '', '', '']
        else:
            cyc = [fmt(num(r, 'cyc_rx')), fmt(num(r, 'cyc_tx')), fmt(num(r, 'cyc_pkt')),
                   fmt(num(r, 'avg_burst')), fmt(num(r, 'mpps'), 3)]
        if itot is None:
            ins = [raw.why('cg', tag), '', '']
        else:
            ins = [fmt(irx), fmt(itx), fmt(itot)]
        out.append('| %s | %s | %s | %s |' % (
            name, ' | '.join(cyc), ' | '.join(ins),
            ' | '.join((fmt(ratio(mana_c, num(r, 'cyc_pkt') if r else None), 2),
                        fmt(ratio(mana_i, itot), 2)))))


def datapath_table(raw, out):
    """net_mana's instructions per packet on each datapath (issue 16), same run."""
    out += ['', '### net_mana by datapath (callgrind, 64 B, burst 32)', '',
            '| datapath | instr/pkt rx | tx | rx+tx | vs scalar |', '|---|---:|---:|---:|---:|']
    scalar = ir_pkt(raw.cg.get('mana_scalar'))[2]
    for tag, name in (('mana_scalar', 'scalar'), ('mana_sse', 'SSE4.2'), ('mana_avx2', 'AVX2'),
                      ('mana_neon', 'NEON'), ('mana', 'auto (the default)'),
                      ('mana_ff', 'auto + MBUF_FAST_FREE')):
        irx, itx, itot = ir_pkt(raw.cg.get(tag))
        if itot is None:
            out.append('| %s | %s | | | |' % (name, raw.why('cg', tag)))
        else:
            out.append('| %s | %s | %s | %s | %s |' % (name, fmt(irx), fmt(itx), fmt(itot),
                                                      fmt(ratio(itot, scalar), 2)))


def tpmd_cyc(raw, tag):
    """testpmd's cycles/pkt, None when the run stalled (too few packets to mean anything)."""
    t = raw.tpmd.get(tag)
    if t is None or num(t, 'pkts', 0) < 10000:
        return None
    return num(t, 'cyc_pkt')


def tpmd_burst(raw, tag, key='burst_nonempty'):
    """testpmd's average RX burst (packets per non-empty poll, or per poll with
    key='burst_poll'); None when not measured or the run stalled."""
    t = raw.tpmd.get(tag)
    if t is None or num(t, 'pkts', 0) < 10000:
        return None
    return num(t, key)


def tpmd_burst_or_why(raw, tag):
    v = tpmd_burst(raw, tag)
    if v is not None:
        return v
    t = raw.tpmd.get(tag)
    if t is not None and num(t, 'pkts', 0) >= 10000:
        return 'not measured: no burst statistics in the TESTPMD line (run.sh before ' \
            '--record-burst-stats)'
    return tpmd_or_why(raw, tag, None)


def target_rows(raw):
    """(text, measured, limit, met) for each target of issues 6 and 16; a
    figure that could not be measured is the reason instead (a str)."""
    rows = []
    mana = ir_pkt(raw.cg.get('mana'))[2]
    mana_ff = ir_pkt(raw.cg.get('mana_ff'))[2]
    null = ir_pkt(raw.cg.get('null'))[2]
    up = ir_pkt(raw.cg.get('upstream'))[2]
    distro = ir_pkt(raw.cg.get('distro'))[2]

    def cg_or_why(tag, v):
        return raw.why('cg', tag) if v is None else v

    def row(text, meas, limit, at_least=False):
        met = None if not isinstance(meas, float) or not isinstance(limit, float) \
            else (meas >= limit if at_least else meas <= limit)
        rows.append((text, meas, limit, met))

    row('instr/pkt (rx+tx) <= 0.5 x DPDK %s net/mana' % raw.dpdk, cg_or_why('mana', mana),
        up * 0.5 if up else cg_or_why('upstream', up))
    row('instr/pkt (rx+tx) <= 1.5 x net_null', cg_or_why('mana', mana),
        null * 1.5 if null else cg_or_why('null', null))
    row('instr/pkt with MBUF_FAST_FREE <= net_null', cg_or_why('mana_ff', mana_ff),
        cg_or_why('null', null))
    tm = tpmd_cyc(raw, 'mana')
    tn = tpmd_cyc(raw, 'null')
    tmf = tpmd_cyc(raw, 'memif')
    row('testpmd io cycles/pkt <= 2 x net_null', tpmd_or_why(raw, 'mana', tm),
        tn * 2 if tn else tpmd_or_why(raw, 'null', tn))
    if tmf is not None or 'memif' not in raw.tpmd:
        row('testpmd io cycles/pkt < net_memif', tpmd_or_why(raw, 'mana', tm),
            tpmd_or_why(raw, 'memif', tmf))
    else:
        # testpmd's memif pair stalls after its tx_first bursts: the harness's
        # figures (same TSC method) stand in, said so in the row.
        row('testpmd io cycles/pkt < net_memif (memif stalled in testpmd: '
            'fwd_bench cycles/pkt of both instead)', num(raw.fwd.get('mana', {}), 'cyc_pkt'),
            num(raw.fwd.get('memif', {}), 'cyc_pkt'))
    # issue 16 (speed): instruction budgets from the callgrind section, testpmd's bursts
    row('issue 16: rx+tx instr/pkt <= 100', cg_or_why('mana', mana), 100.0)
    row('issue 16: rx+tx instr/pkt <= 80 with MBUF_FAST_FREE', cg_or_why('mana_ff', mana_ff),
        80.0)
    text = "issue 16: rx+tx instr/pkt <= 0.2 x Debian 13's upstream net/mana"
    if raw.branch == '24.11':
        row(text, cg_or_why('mana', mana),
            distro * 0.2 if distro else cg_or_why('distro', distro))
    else:
        row(text, cg_or_why('mana', mana),
            'not measured on DPDK %s: Debian 13 (DPDK 24.11) ships that binary' % raw.dpdk)
    row('issue 16: testpmd io avg RX burst >= 24 of 32 (1 lcore, 1 engine thread)',
        tpmd_burst_or_why(raw, 'mana'), 24.0, at_least=True)
    return rows


def tpmd_or_why(raw, tag, v):
    if v is not None:
        return v
    if tag in raw.tpmd:
        return 'stalled (%s packets)' % raw.tpmd[tag].get('pkts', '?')
    return raw.why('testpmd', tag)


def why_not_met(raw):
    """The reasons, from this run's own figures, for each target not met."""
    rows = target_rows(raw)
    unmet = [t for t, _, _, met in rows if met is False]
    if not unmet:
        return []
    out = ['', 'Why:', '']
    if any('MBUF_FAST_FREE' in t for t in unmet):
        out.append('- instructions with fast free: net_null only allocates on RX and frees on TX; '
                   'net_mana also parses CQEs (owner bits, type, length, hash, checksum bits, '
                   'packet type), writes a WQE per packet and refills the RX ring (see the '
                   'callgrind breakdown below for where each instruction goes).')
    if any('avg RX burst' in t for t in unmet):
        out.append('- testpmd bursts: the lcore polls faster than the software device completes '
                   'frames, so most polls find few; the device makes RX completions visible in '
                   'groups (model key cqe_batch, doc/design.md "Completion batching").')
    if any('testpmd io cycles' in t for t in unmet):
        mana = raw.fwd.get('mana', {})
        null = raw.fwd.get('null', {})
        out.append('- testpmd cycles: the software device delivers %s Mpps, so net_mana\'s bursts '
                   'hold %s packets on average where net_null\'s hold %s; the per-burst work '
                   '(CQ poll, doorbell, completion) is shared by fewer packets. The instruction '
                   'counts above, taken at full bursts, are the driver\'s own cost.'
                   % (fmt(num(mana, 'mpps'), 3), fmt(num(mana, 'avg_burst')),
                      fmt(num(null, 'avg_burst'))))
        if tpmd_burst(raw, 'mana') is not None:
            out.append('- in testpmd itself net_mana\'s RX polls that return packets hold %s on '
                       'average (%s per poll, empty polls included); cycles/pkt counts busy '
                       'iterations only, so on a shared machine a preempted one weighs in '
                       'fully.' % (fmt(tpmd_burst(raw, 'mana')),
                                   fmt(tpmd_burst(raw, 'mana', 'burst_poll'), 2)))
    return out


def callgrind_breakdown(path, pkts, top=18):
    """Self cost per function from callgrind_annotate's output, per packet."""
    rows = []
    total = None
    if not os.path.exists(path) or not pkts:
        return total, rows
    with open(path) as f:
        for line in f:
            m = re.match(r'\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$', line)
            if not m:
                continue
            ir = int(m.group(1).replace(',', ''))
            what = m.group(2)
            if 'PROGRAM TOTALS' in what:
                total = ir / pkts
                continue
            if total is not None and ir >= total * pkts * 0.999:
                continue  # callers of everything (main, libc start): no self cost
            fn = what.split(' [')[0]
            obj = what.split(' [')[1].rstrip(']') if ' [' in what else ''
            fn = re.sub(r'^.*/(work/main/|include/dpdk/|dpdk/)', '', fn)
            rows.append((fn, os.path.basename(obj), ir / pkts))
            if len(rows) >= top:
                break
    return total, rows


def tso_scatter_section(raw):
    """TSO payload throughput and instructions per send; 9000 B with 2 KB mbufs."""
    dv = raw.dpdk
    out = ['', '## TSO and scattered RX (issue 14), DPDK %s' % dv, '',
           'TSO: one vPort sends TCP/IPv4 packets of 65160 payload bytes (45 segments of MSS '
           '1448) built of a header mbuf and a cloned 16 KB-mbuf payload chain, through '
           'tx_prepare and tx_burst, to a wire whose sink verifies every segment\'s '
           'checksums; Gbit/s counts TCP payload accepted by tx_burst. Instructions per send: '
           'callgrind inside tx_prepare + tx_burst (the device\'s thread is not collected).', '',
           '| run | sends | Gbit/s TCP payload | cycles/send (prepare+burst) | instr/send '
           '(prepare+burst) | of which tx_burst | segments on the wire (model) | sink errors |',
           '|---|---:|---:|---:|---:|---:|---:|---:|']
    t = raw.tso.get('mana_tso')
    r = raw.fwd.get('mana_tso')
    c = raw.cg.get('mana_tso')
    if t is None:
        out.append('| mana_tso | %s | | | | | | |' % raw.why('fwd', 'mana_tso'))
    else:
        m = r['model'][0] if r and r.get('model') else {}
        ins = ir_pkt(c)
        out.append('| mana_tso | %s | %s | %s | %s | %s | %s | %s |' % (
            t.get('sends'), fmt(num(t, 'tso_gbps'), 2), fmt(num(t, 'cyc_send')),
            fmt(ins[2]) if c else raw.why('cg', 'mana_tso'), fmt(ins[1]) if c else '',
            m.get('tx_frames', '-'), m.get('errors', '-')))
    out += ['', '9000-byte frames forwarded with 2 KB mbufs (--mbuf-data 2176: scattered RX '
            'into chains of 5 mbufs, multi-segment TX), one queue pair, burst 32:', '',
            '| run | frame | cycles/pkt | Mpps | Gbit/s | instr/pkt | on the wire (model) |',
            '|---|---:|---:|---:|---:|---:|---:|']
    r = raw.fwd.get('mana_sc9000')
    if r is None:
        out.append('| mana_sc9000 | 9000 | %s | | | | |' % raw.why('fwd', 'mana_sc9000'))
    else:
        mpps = num(r, 'mpps')
        c = raw.cg.get('mana_sc9000')
        wire = '%s of %s sent' % (r['model'][0].get('tx_frames'), r.get('sent')) \
            if r['model'] else '-'
        out.append('| mana_sc9000 | 9000 | %s | %s | %s | %s | %s |' % (
            fmt(num(r, 'cyc_pkt')), fmt(mpps, 3),
            fmt(mpps * 9000 * 8 / 1e3 if mpps else None, 2),
            fmt(ir_pkt(c)[2]) if c else raw.why('cg', 'mana_sc9000'), wire))
    out += section_tail(raw, 'tso', 'TSO and scatter rows')
    return out


def engine_section(raw, outdir):
    """The software device's own cost per frame, by frame size (section engine)."""
    dv = raw.dpdk
    out = ['', '## The software device\'s cost per frame (engine thread), DPDK %s' % dv, '',
           'net_mana forwarding between two gen wires (lossless, one flow, burst 32). engine '
           'ns/frame: the engine thread\'s CPU time over the frames it sent or delivered in '
           'the timed run (idle passes included: it is the engine\'s whole cost only when '
           'most passes are busy). instr/frame: callgrind inside the engine\'s frame work '
           'alone, SQ processing (mm_tx_process: WQE decode, gather, TX offloads, the sink) '
           'and the wire poll (gen_poll: frame generation, parse, RSS, checksum '
           'verification, RX WQE decode, scatter, CQEs), per engine frame of the dump. '
           'valgrind counts each byte of a `rep movsb` copy as one instruction, so memcpy '
           'weighs more in instr/frame at 1514 and 9000 B than in time.', '',
           'Both include the engine\'s polling: empty SQ passes and offers of a frame that no '
           'RQ could take yet (offers/RX frame), which vary with how the threads are '
           'scheduled.', '',
           '| frame | engine ns/frame | busy passes / passes | Mpps fwd | instr/frame | '
           'SQ processing instr/TX frame | wire poll instr/RX frame | offers/RX frame | '
           'top self cost (instr/frame) |', '|---:|---:|---:|---:|---:|---:|---:|---:|---|']
    for ln in (64, 1514, 9000):
        tag = 'mana_eng%d' % ln
        r = raw.fwd.get(tag)
        c = raw.cge.get(tag)
        ns = busy = mpps = None
        if r is not None:
            mpps = num(r, 'mpps')
            if r['model']:
                mm = r['model'][0]
                ns = num(mm, 'ns_per_frame')
                busy = '%s / %s' % (mm.get('busy_passes'), mm.get('passes'))
        ipf = itx = irx = top = offers = None
        if c is not None and num(c, 'frames'):
            fr = num(c, 'frames')
            ipf = num(c, 'ir', 0) / fr
            itx = num(c, 'ir_tx', 0) / num(c, 'tx_frames', fr / 2)
            irx = num(c, 'ir_rx', 0) / num(c, 'rx_frames', fr / 2)
            offers = num(c, 'offers')
            if offers is not None and num(c, 'rx_frames'):
                offers = offers / num(c, 'rx_frames')
            _, rows = callgrind_breakdown(
                os.path.join(outdir, 'callgrind_engine_%s.txt' % tag), fr, top=5)
            top = '; '.join('%s %s' % (re.sub(r'^.*:', '', fn), fmt(v)) for fn, _, v in rows)
        why_f = raw.why('engine', tag) if r is None else None
        why_c = raw.why('engine', 'cge') if c is None else None
        out.append('| %d | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            ln, why_f or fmt(ns), busy or '', fmt(mpps, 3) if mpps else '',
            why_c or fmt(ipf), fmt(itx) if itx else '', fmt(irx) if irx else '',
            fmt(offers, 2) if offers else '', top or ''))
    out += section_tail(raw, 'engine', 'engine rows')
    return out


def section_tail(raw, section, what):
    """Below a table of variable rows: what was left out of it, and why."""
    notes = raw.section_notes(section)
    if notes:
        return ['', 'Not measured here:', ''] + notes
    return []


def md(raw, outdir):
    m = raw.meta
    dv = raw.dpdk
    out = ['# net_mana forwarding benchmark: DPDK %s, %s' % (dv, m.get('os', 'OS unknown')), '',
           'Generated by `bench/run.sh%s` on %s. Every figure below was measured with DPDK %s.'
           % (' --short' if m.get('short') == '1' else '', m.get('date', '?'), dv), '',
           '- machine: %s, %s CPUs, load average at start %s (shared machine: compare '
           'ratios within this run)' % (m.get('cpu', '?'), m.get('ncpu', '?'), m.get('load', '?')),
           '- DPDK %s (%s; EAL plugins from %s), %s, %s, net_mana build type %s' % (
               dv, m.get('os', '?'), m.get('pmd_dir', '?'), m.get('gcc', '?'),
               m.get('valgrind', '?'), m.get('buildtype', '?')),
           '- forwarding lcore on CPU 0; the software device\'s engine thread on CPU %s; '
           '--no-huge; 64-byte UDP frames from the `gen` wire (lossless: one frame per posted '
           'RX WQE), burst 32 unless stated' % m.get('engine_cpu', '?'),
           '- cycles: TSC around rx_burst and tx_burst, busy iterations only, rdtsc pair '
           'overhead subtracted, preempted iterations (> 200k cycles) left out; '
           'instructions: callgrind, %s frames after a warm-up, only inside rx_burst/tx_burst '
           '(the harness polls only when a full burst is ready, so empty polls are not '
           'counted, and yields once before each poll, so that the device\'s thread, which '
           'valgrind runs in turn with the lcore, completes each burst\'s sends about as soon '
           'as a device running alongside would)' % m.get('cg_frames', '?'),
           '- DPDK\'s own net/mana (built from the source tree, and Debian\'s binary where the '
           'OS ships one) runs on the software device\'s PCI function through the replacement '
           'libibverbs/libmana. Debian strips the binary\'s static functions; no figure needs '
           'them: callgrind collects inclusively inside the harness\'s own bench_rx_burst / '
           'bench_tx_burst (rte_eth_rx_burst/tx_burst and all they call, the driver\'s '
           'code included), and the device\'s engine runs on another thread, not collected. '
           'Their doorbell page is the shared one read as memory (doorbell=memory): a trapped '
           'doorbell costs a page fault, the test oracle\'s price, not the driver\'s', '']
    other = sorted(raw.result_dpdk - {dv})
    if other:
        out += ['**Warning:** fwd_bench reported running on DPDK %s, not %s: the build and '
                'the installed DPDK differ.' % (', '.join(other), dv), '']
    if raw.failed:
        out += ['**Failed to run:** ' + ', '.join(raw.failed), '']

    out += ['## Targets (issues 6 and 16), DPDK %s' % dv, '', '| target | measured | limit | |',
            '|---|---:|---:|---|']
    for text, meas, limit, met in target_rows(raw):
        out.append('| %s | %s | %s | %s |' % (text, fmt(meas), fmt(limit),
                                             'n/a' if met is None else
                                             ('met' if met else '**not met**')))
    out += why_not_met(raw)
    out += ['', '## Driver cost per packet, side by side (64 B, burst 32), DPDK %s' % dv, '']
    peer_table(raw, out)
    datapath_table(raw, out)

    out += ['', '## Frame sizes, DPDK %s' % dv, '',
            'Mpps counts what tx_burst accepted; "on the wire" is the device\'s own count of '
            'frames it transmitted (model tx_frames), which tells TX error completions apart.', '',
            '| port pair | frame | cycles/pkt | avg burst | Mpps | Gbit/s | instr/pkt | '
            'engine ns/frame | on the wire (model) |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|']
    for label in sorted(raw.fwd, key=lambda x: (not x.startswith('mana'), x.split('_')[0],
                                                num(raw.fwd[x], 'len', 0))):
        r = raw.fwd[label]
        if not (re.match(r'\w+_len\d+$', label) or label == 'mana'):
            continue
        ln = num(r, 'len')
        mpps = num(r, 'mpps')
        cgt = raw.cg.get(label)
        wire = '-'
        if r['model']:
            wire = '%s of %s sent' % (r['model'][0].get('tx_frames'), r.get('sent'))
        out.append('| %s | %d | %s | %s | %s | %s | %s | %s | %s |' % (
            label.split('_')[0], ln, fmt(num(r, 'cyc_pkt')), fmt(num(r, 'avg_burst')),
            fmt(mpps, 3), fmt(mpps * ln * 8 / 1e3 if mpps else None, 2),
            fmt(ir_pkt(cgt)[2]), fmt(engine_ns(r)), wire))
    out += section_tail(raw, 'sizes', 'frame-size rows')

    out += ['', '## Burst sizes (64 B), DPDK %s' % dv, '', '| port pair | burst | '
            'cycles/pkt rx+tx | avg burst | Mpps | instr/pkt |', '|---|---:|---:|---:|---:|---:|']
    bl = [x for x in raw.fwd if re.match(r'\w+_burst\d+$', x)] + ['mana']
    for label in sorted(set(bl), key=lambda x: (x.split('_')[0], num(raw.fwd.get(x, {}), 'burst', 0))):
        r = raw.fwd.get(label)
        if r is None:
            continue
        out.append('| %s | %d | %s | %s | %s | %s |' % (
            label.split('_')[0], num(r, 'burst'), fmt(num(r, 'cyc_pkt')),
            fmt(num(r, 'avg_burst')), fmt(num(r, 'mpps'), 3), fmt(ir_pkt(raw.cg.get(label))[2])))
    out += section_tail(raw, 'bursts', 'burst-size rows')

    out += ['', '## RSS scaling (net_mana, 64 flows, engine on CPU %s), DPDK %s' % (
        m.get('engine_cpu'), dv), '',
            '| queues | lcores | Mpps | cycles/pkt (all) | per queue: cycles/pkt, Mpps | '
            'engine ns/frame | engine CPU share |', '|---:|---:|---:|---:|---|---:|---:|']
    for label in sorted((x for x in raw.fwd if x.startswith('rss_q')), key=lambda x: int(x[5:])):
        r = raw.fwd[label]
        perq = {}
        for t in r['tasks']:
            q = t.get('queue')
            perq.setdefault(q, []).append((num(t, 'cyc_pkt', 0), num(t, 'mpps', 0)))
        pq = '; '.join('q%s: %s, %s' % (q, fmt(sum(c for c, _ in v) / len(v)),
                                         fmt(sum(x for _, x in v), 3))
                       for q, v in sorted(perq.items(), key=lambda kvp: int(kvp[0])))
        share = None
        if r['model']:
            share = num(r['model'][0], 'cpu_ns', 0) / 1e9 / max(num(r, 'seconds', 1), 1e-9)
        out.append('| %d | %d | %s | %s | %s | %s | %s |' % (
            num(r, 'queues'), num(r, 'lcores'), fmt(num(r, 'mpps'), 3), fmt(num(r, 'cyc_pkt')),
            pq, fmt(engine_ns(r)), fmt(share, 2)))
    out += section_tail(raw, 'rss', 'RSS rows')

    out += ['', '## Scaling: queues x lcores x engine threads (net_mana, 2 vPorts, 64 flows), '
            '%s CPUs, DPDK %s' % (m.get('ncpu', '?'), dv), '',
            'Each lcore and each engine thread on a CPU of its own (lcores from CPU 0, the '
            'engine threads after them); queue k of vPort p is served by engine thread '
            '(p + k) % threads, so up to 2 x queues threads share the work '
            '(doc/user_guide.md "Engine threads").', '',
            '| queues | lcores | engine threads | CPUs used / machine | Mpps | cycles/pkt (all) | '
            'engine ns/frame | engine CPU share (CPUs) |', '|---:|---:|---:|---:|---:|---:|---:|---:|']
    scale = [x for x in raw.fwd if x.startswith('scale_')]
    for label in sorted(scale, key=lambda x: (num(raw.fwd[x], 'engine_threads', 0),
                                              num(raw.fwd[x], 'lcores', 0),
                                              num(raw.fwd[x], 'queues', 0))):
        r = raw.fwd[label]
        share = None
        if r['model']:
            share = num(r['model'][0], 'cpu_ns', 0) / 1e9 / max(num(r, 'seconds', 1), 1e-9)
        et = num(r, 'engine_threads', 0)
        if r['model'] and num(r['model'][0], 'threads') is not None:
            et = num(r['model'][0], 'threads')
        out.append('| %d | %d | %d | %d / %s | %s | %s | %s | %s |' % (
            num(r, 'queues'), num(r, 'lcores'), et, num(r, 'lcores') + et,
            '%d' % num(r, 'ncpu', 0), fmt(num(r, 'mpps'), 3), fmt(num(r, 'cyc_pkt')),
            fmt(engine_ns(r)), fmt(share, 2)))
    out += section_tail(raw, 'scale', 'scaling rows')

    out += ['', '## testpmd io forwarding (`--record-core-cycles`, 64 B, burst 32) and l3fwd, '
            'DPDK %s' % dv, '',
            'Debian\'s dpdk-testpmd with net_mana loaded as a plugin, or with Debian\'s own '
            'net/mana binary on the software device\'s PCI function (row "Debian\'s net/mana '
            'binary"); the upstream driver built from the tree is measured in fwd_bench only.',
            '',
            '`--record-burst-stats`: avg RX burst is packets per RX poll that returned '
            'packets (io forwarding calls tx_burst once for each such poll: testpmd\'s '
            'TX-bursts count them), and per poll, empty ones included.',
            '',
            '| port pair | testpmd cycles/pkt | io packets | avg RX burst | per poll | '
            'net_mana ratio |',
            '|---|---:|---:|---:|---:|---:|']
    tm = tpmd_cyc(raw, 'mana')
    for tag, name in peers(raw):
        if tag in ('upstream', 'mana_ff'):
            continue  # not a testpmd case
        t = raw.tpmd.get(tag)
        if t is None:
            out.append('| %s | %s | | | | |' % (name, raw.why('testpmd', tag)))
            continue
        c = tpmd_cyc(raw, tag)
        out.append('| %s | %s | %s | %s | %s | %s |' % (
            name, fmt(c) if c is not None else 'stalled (%s cycles/pkt)' % t.get('cyc_pkt'),
            t.get('pkts', '?'), fmt(tpmd_burst(raw, tag)),
            fmt(tpmd_burst(raw, tag, 'burst_poll'), 2), fmt(ratio(tm, c), 2)))
    if raw.l3fwd:
        out += ['', 'l3fwd (LPM) on the two net_mana vPorts, one lcore, DPDK %s: **%s Mpps** '
                '(%s packets in %s s, from the telemetry socket).' % (
                    dv, raw.l3fwd.get('mpps'), raw.l3fwd.get('opackets'),
                    raw.l3fwd.get('seconds'))]
    else:
        out += ['', 'l3fwd, DPDK %s: %s.' % (dv, raw.why('l3fwd', 'l3fwd_lpm'))]

    out += tso_scatter_section(raw)

    out += ['', '## Doorbell cost on the software device', '']
    db = raw.doorbell
    if db is None:
        out.append('Doorbell cost: %s.' % raw.why('doorbell', 'doorbell'))
    else:
        out += ['What one doorbell costs the ringing thread (%s stores, engine on its own '
                'thread). `doorbell=shared` traps every store to the hardware-like page so that '
                'none is lost (doc/design.md, "Doorbell modes"); the fault floor is a bare write '
                'fault and return on this machine, which any trapping design pays.' %
                db.get('stores'), '',
                '| mode | ns per doorbell | vs per-queue page |', '|---|---:|---:|',
                '| doorbell=object (plain store) | %s | 1 |' % fmt(num(db, 'object_ns'), 1),
                '| doorbell=shared (trapped, queued) | %s | %s |' % (
                    fmt(num(db, 'shared_ns'), 0),
                    fmt(ratio(num(db, 'shared_ns'), num(db, 'object_ns')), 0)),
                '| fault floor (bare fault + skip) | %s | %s |' % (
                    fmt(num(db, 'fault_floor_ns'), 0),
                    fmt(ratio(num(db, 'fault_floor_ns'), num(db, 'object_ns')), 0))]

    out += ['', '## The device apart from the driver: model engine cost, DPDK %s' % dv, '',
            '| run | engine ns/frame | frames (rx+tx) | engine CPU s | busy passes / passes |',
            '|---|---:|---:|---:|---:|']
    for label, r in raw.fwd.items():
        for mm in r['model']:
            out.append('| %s | %s | %s | %s | %s / %s |' % (
                label, fmt(num(mm, 'ns_per_frame')), mm.get('frames'),
                fmt(num(mm, 'cpu_ns', 0) / 1e9, 2), mm.get('busy_passes'), mm.get('passes')))

    out += engine_section(raw, outdir)

    for tag in ('mana', 'mana_ff', 'upstream'):
        c = raw.cg.get(tag)
        title = '## callgrind: where %s\'s instructions per packet go (self cost), DPDK %s' % (
            tag, dv)
        if c is None:
            out += ['', title, '', raw.why('cg', tag) + '.']
            continue
        total, rows = callgrind_breakdown(os.path.join(outdir, 'callgrind_%s.txt' % tag),
                                          num(c, 'pkts'))
        out += ['', title, '',
                'Total %s instr/pkt (rx %s, tx %s); functions inlined into a caller are '
                'shown under the source file they come from.' % (
                    fmt(total), fmt(ir_pkt(c)[0]), fmt(ir_pkt(c)[1])), '',
                '| function (file:function) | object | instr/pkt |', '|---|---|---:|']
        for fn, obj, v in rows:
            out.append('| `%s` | %s | %s |' % (fn, obj, fmt(v)))
    return out


# ---- PNG: a bar chart, no dependencies --------------------------------

FONT = {  # 3x5 glyphs, rows top to bottom, 3 bits each
    'A': (2, 5, 7, 5, 5), 'B': (6, 5, 6, 5, 6), 'C': (3, 4, 4, 4, 3), 'D': (6, 5, 5, 5, 6),
    'E': (7, 4, 6, 4, 7), 'F': (7, 4, 6, 4, 4), 'G': (3, 4, 5, 5, 3), 'H': (5, 5, 7, 5, 5),
    'I': (7, 2, 2, 2, 7), 'J': (1, 1, 1, 5, 2), 'K': (5, 5, 6, 5, 5), 'L': (4, 4, 4, 4, 7),
    'M': (5, 7, 7, 5, 5), 'N': (6, 5, 5, 5, 5), 'O': (2, 5, 5, 5, 2), 'P': (6, 5, 6, 4, 4),
    'Q': (2, 5, 5, 6, 3), 'R': (6, 5, 6, 5, 5), 'S': (3, 4, 2, 1, 6), 'T': (7, 2, 2, 2, 2),
    'U': (5, 5, 5, 5, 7), 'V': (5, 5, 5, 5, 2), 'W': (5, 5, 7, 7, 5), 'X': (5, 5, 2, 5, 5),
    'Y': (5, 5, 2, 2, 2), 'Z': (7, 1, 2, 4, 7), '0': (7, 5, 5, 5, 7), '1': (2, 6, 2, 2, 7),
    '2': (6, 1, 2, 4, 7), '3': (6, 1, 2, 1, 6), '4': (5, 5, 7, 1, 1), '5': (7, 4, 6, 1, 6),
    '6': (3, 4, 7, 5, 7), '7': (7, 1, 2, 2, 2), '8': (7, 5, 7, 5, 7), '9': (7, 5, 7, 1, 6),
    '.': (0, 0, 0, 0, 2), '/': (1, 1, 2, 4, 4), '-': (0, 0, 7, 0, 0), '+': (0, 2, 7, 2, 0),
    '(': (1, 2, 2, 2, 1), ')': (4, 2, 2, 2, 4), ':': (0, 2, 0, 2, 0), '_': (0, 0, 0, 0, 7),
    ' ': (0, 0, 0, 0, 0), ',': (0, 0, 0, 2, 4), '=': (0, 7, 0, 7, 0),
}


class Canvas:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = bytearray(b'\xff' * (w * h * 3))

    def rect(self, x0, y0, x1, y1, rgb):
        for y in range(max(0, y0), min(self.h, y1)):
            row = y * self.w * 3
            for x in range(max(0, x0), min(self.w, x1)):
                self.px[row + 3 * x:row + 3 * x + 3] = bytes(rgb)

    def text(self, x, y, s, rgb=(0, 0, 0), scale=2):
        for ch in s.upper():
            g = FONT.get(ch, FONT[' '])
            for r, bits in enumerate(g):
                for c in range(3):
                    if bits & (4 >> c):
                        self.rect(x + c * scale, y + r * scale, x + (c + 1) * scale,
                                  y + (r + 1) * scale, rgb)
            x += 4 * scale

    def png(self, path):
        raw = b''.join(b'\x00' + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3])
                       for y in range(self.h))

        def chunk(t, data):
            c = struct.pack('>I', len(data)) + t + data
            return c + struct.pack('>I', zlib.crc32(t + data) & 0xffffffff)
        with open(path, 'wb') as f:
            f.write(b'\x89PNG\r\n\x1a\n')
            f.write(chunk(b'IHDR', struct.pack('>IIBBBBB', self.w, self.h, 8, 2, 0, 0, 0)))
            f.write(chunk(b'IDAT', zlib.compress(raw, 9)))
            f.write(chunk(b'IEND', b''))


def chart(raw, path):
    groups = [('INSTRUCTIONS/PKT RX+TX (CALLGRIND)', lambda t: ir_pkt(raw.cg.get(t))[2]),
              ('CYCLES/PKT RX+TX (TSC, BUSY)', lambda t: num(raw.fwd.get(t, {}), 'cyc_pkt')),
              ('TESTPMD CYCLES/PKT (STALLED RUNS LEFT OUT)', lambda t: tpmd_cyc(raw, t))]
    names = {'null': 'NULL', 'ring': 'RING', 'memif': 'MEMIF', 'upstream': 'DPDK %s MANA' % raw.branch,
             'distro': 'DEBIAN MANA', 'mana': 'NET_MANA', 'mana_ff': 'MANA FASTFREE'}
    colors = {'null': (120, 120, 120), 'ring': (90, 150, 200), 'memif': (80, 180, 120),
              'upstream': (220, 140, 40), 'distro': (170, 110, 30), 'mana': (200, 40, 40), 'mana_ff': (150, 30, 110)}
    w, gh = 900, 190
    cv = Canvas(w, 40 + gh * len(groups))
    cv.text(10, 10, 'NET_MANA IO-FORWARD COST, 64 B, BURST 32, DPDK %s (ONE RUN)' % raw.dpdk,
            scale=3)
    for gi, (title, get) in enumerate(groups):
        top = 45 + gi * gh
        cv.text(10, top, title)
        vals = [(t, get(t)) for t, _ in peers(raw)]
        if gi == 2:
            vals = [(t, v) for t, v in vals if t not in ('upstream', 'mana_ff')]
        measured = [v for _, v in vals if v is not None]
        if not measured:
            cv.text(20, top + 30, 'NOT MEASURED')
            continue
        vmax = max(measured) or 1
        for i, (t, v) in enumerate(vals):
            y = top + 20 + i * 26
            cv.text(10, y + 4, names[t])
            if v is None:
                stalled = gi == 2 and t in raw.tpmd
                cv.text(148, y + 4, 'STALLED' if stalled else 'NOT MEASURED', (120, 120, 120))
                continue
            bw = int((w - 260) * v / vmax)
            cv.rect(140, y, 140 + max(bw, 1), y + 20, colors[t])
            cv.text(148 + bw, y + 4, fmt(v))
    cv.png(path)


def main():
    raw = Raw(sys.argv[1])
    outdir = sys.argv[2]
    text = md(raw, outdir)
    with open(os.path.join(outdir, 'results.md'), 'w') as f:
        f.write('\n'.join(text) + '\n')
    chart(raw, os.path.join(outdir, 'chart.png'))
    # The targets on stdout as well (CI logs).
    print('DPDK %s, %s' % (raw.dpdk, raw.meta.get('os', '?')))
    for t, meas, limit, met in target_rows(raw):
        why = [v for v in (meas, limit) if isinstance(v, str)]
        print('TARGET %-50s measured %-8s limit %-8s %s' % (
            t, fmt(meas) if not why else '-', fmt(limit) if not why else '-',
            why[0] if why else ('met' if met else 'NOT MET')))


if __name__ == '__main__':
    main()
