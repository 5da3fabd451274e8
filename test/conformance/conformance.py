#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""net_mana conformance suite, after DPDK's DTS test suites (dts/tests/, v25.11).

    conformance.py --suite NAME --testpmd PATH [--testpmd-mana PATH] --pmd-dir DIR
    conformance.py --list

Each suite follows the DTS suite of the same name: its testpmd commands,
packets and checks, on two vPorts of the software device cabled to TAP
interfaces (conflib.py). One line per case: `PASS|FAIL|N/A <suite>/<case>:
reason`; N/A only where the case tests something MANA hardware does not
have, with the hardware.md section that says so. Then 'N passed, N failed'.
Exit 0 when no case failed, 1 otherwise, 77 when it cannot run here (not
root, no /dev/net/tun, no scapy, no testpmd).
"""

import argparse
import os
import random
import re
import sys

SUITES = ["checksum_offload", "vlan", "mtu", "scatter", "queue_start_stop",
          "dynamic_queue_conf", "port_stats", "pmd_rss", "l2fwd", "mac_filter",
          "promisc_support", "tso"]


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", choices=SUITES)
    ap.add_argument("--testpmd", default="/usr/bin/dpdk-testpmd")
    ap.add_argument("--testpmd-mana", default="")
    ap.add_argument("--pmd-dir", default="")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print("\n".join(SUITES))
        return 0
    if not a.suite:
        ap.error("--suite is required")
    if os.geteuid() != 0:
        skip("not root (TAP interfaces)")
    if not os.path.exists("/dev/net/tun"):
        skip("no /dev/net/tun")
    if not os.access(a.testpmd, os.X_OK):
        skip(f"{a.testpmd} not found")
    try:
        import scapy.all  # noqa: F401
    except ImportError:
        skip("python3-scapy not installed")
    if not os.path.isfile(os.path.join(a.pmd_dir, "librte_net_mana.so")):
        print(f"FAIL: {a.pmd_dir}/librte_net_mana.so not built")
        return 1
    # A network namespace of its own: the TAPs and whatever reaches the
    # kernel through them stay inside it.
    if os.environ.get("CONF_NETNS") != "1":
        os.environ["CONF_NETNS"] = "1"
        try:
            os.execvp("unshare", ["unshare", "--net", "--", sys.executable] + sys.argv)
        except OSError as e:
            print(f"note: no network namespace ({e}); TAPs in this one")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import conflib
    import suites
    ctx = conflib.Context(a.suite, a.testpmd, a.testpmd_mana or "", a.pmd_dir)
    ctx.open()
    try:
        counts = conflib.run_cases(ctx, suites.CASES[a.suite])
    finally:
        ctx.close()
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['N/A']} skipped")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    random.seed(31)
    sys.exit(main())
