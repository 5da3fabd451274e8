#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Prints, one per line, the C sources of DPDK's testpmd as the DPDK tree's own
# app/test-pmd/meson.build lists them in its "sources = files(...)" block, so
# that app/testpmd_ext builds the testpmd of whichever release the tree is
# (22.11 and 24.11 differ: cmdline_cman.c, hairpin.c, recycle_mbufs.c, ...).
# Conditional sources (bpf_cmd.c) are left to the caller, which knows the
# installed DPDK's features.
#
# usage: testpmd_sources.py <dpdk tree>/app/test-pmd/meson.build

import re
import sys


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^sources\s*=\s*files\((.*?)\)", text, re.S | re.M)
    if m is None:
        sys.exit("no 'sources = files(...)' block in " + sys.argv[1])
    names = re.findall(r"'([^']+\.c)'", m.group(1))
    if not names:
        sys.exit("no sources listed in " + sys.argv[1])
    print("\n".join(names))


if __name__ == "__main__":
    main()
