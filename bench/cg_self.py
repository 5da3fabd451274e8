#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""Self cost per object and function of a callgrind dump, per packet.

    cg_self.py <callgrind.out> <packets> [object suffix]

Self costs are attributed by instruction address, so they hold where
callgrind's call tracking does not: on arm64 under qemu-user (valgrind
3.19) its --toggle-collect lost functions called from a toggled one, and
inclusive costs were off (bench/results/arm64-qemu/results.md). Prints
the instructions per packet of each object and of each function of the
object whose path ends with the suffix (default librte_net_mana.so).
"""

import collections
import re
import sys


def self_costs(path):
    """{(object, function): Ir} of the dump, recursion marks ('2) folded."""
    names = {'ob': {}, 'fn': {}, 'fl': {}}

    def name(kind, val):
        m = re.match(r'\((\d+)\)(?: (.*))?', val)
        if not m:
            return val
        if m.group(2):
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), '?')

    cost = collections.Counter()
    ob = fn = None
    call_line = False
    keys = {'ob=': 'ob', 'cob=': 'ob', 'fn=': 'fn', 'cfn=': 'fn', 'fl=': 'fl', 'fi=': 'fl',
            'fe=': 'fl', 'cfi=': 'fl', 'cfl=': 'fl'}
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            key = line.split('=', 1)[0] + '='
            if key in keys:
                val = name(keys[key], line[len(key):])
                if key == 'ob=':
                    ob = val
                elif key == 'fn=':
                    fn = re.sub(r"'\d+$", '', val)
                continue
            if line.startswith('calls='):
                call_line = True    # the next cost line is the call's inclusive cost
                continue
            if line[:1].isdigit() or line[:1] in '+-*':
                parts = line.split()
                if len(parts) < 2:
                    continue
                if call_line:
                    call_line = False
                    continue
                cost[(ob, fn)] += int(parts[-1])
    return cost


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cost = self_costs(sys.argv[1])
    pkts = int(sys.argv[2])
    suffix = sys.argv[3] if len(sys.argv) > 3 else 'librte_net_mana.so'
    by_ob = collections.Counter()
    for (ob, _), c in cost.items():
        by_ob[ob] += c
    print('total %.1f instr/pkt' % (sum(by_ob.values()) / pkts))
    for ob, c in by_ob.most_common(8):
        print('  %-60s %9.2f' % (ob, c / pkts))
    print('functions of *%s:' % suffix)
    for (ob, fn), c in cost.most_common():
        if ob is not None and ob.endswith(suffix):
            print('  %-40s %9.2f' % (fn, c / pkts))


if __name__ == '__main__':
    main()
