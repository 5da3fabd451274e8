#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
"""Counts of meson test runs, for the stages of scripts/run-tests.sh.

usage: test-counts.py [options] OUT NAME=TESTLOG [NAME=TESTLOG ...]

Reads each meson-logs/testlog.json and writes "passed failed skipped" to OUT
('-': standard output). OK and EXPECTEDFAIL pass, SKIP skips, any other
result (FAIL, TIMEOUT, ERROR, UNEXPECTEDPASS, ...) fails. A step failed
(--error) and a run that left no log count one failure each; with
--problems the failures are listed under that heading first.
  --skips N          skips counted beyond the logs' (default 0)
  --error TEXT       a step that failed (repeatable)
  --problems HEAD    list the failures under the line "HEAD problems:"
  --log-after-error  a missing log is a failure even after a step failed
                     (else a failed step already stands for it)
  --tail N           with --problems, the last N lines a failed test printed
                     (default 15), so that a CI log shows why
A NAME of '' labels nothing (the run's failures show the test name alone).
"""

import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(add_help=True)
    ap.add_argument("--skips", type=int, default=0)
    ap.add_argument("--error", action="append", default=[])
    ap.add_argument("--problems")
    ap.add_argument("--log-after-error", action="store_true")
    ap.add_argument("--tail", type=int, default=15)
    ap.add_argument("out")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()

    errors = [e for e in a.error if e]
    passed, skipped, failures, tails = 0, a.skips, [], []
    for run in a.runs:
        name, _, path = run.partition("=")
        label = f"{name}: " if name else ""
        try:
            f = open(path, encoding="utf-8")
        except FileNotFoundError:
            if a.log_after_error or not errors:
                failures.append(f"{label}no test log (build or test run failed)")
            continue
        with f:
            for line in f:
                if not line.strip():
                    continue
                t = json.loads(line)
                res = t.get("result", "")
                if res in ("OK", "EXPECTEDFAIL"):
                    passed += 1
                elif res == "SKIP":
                    skipped += 1
                else:
                    failures.append(f"{label}{t.get('name', '?')}: {res}")
                    out = (t.get("stdout") or "").rstrip("\n").split("\n")
                    tails.append((failures[-1], out[-a.tail:] if a.tail > 0 else []))
    failures += [f"step failed: {e}" for e in errors]
    if failures and a.problems:
        print(f"{a.problems} problems:")
        for x in failures:
            print("  " + x)
        for head, lines in tails:
            if lines and lines != [""]:
                print(f"{a.problems} last lines of {head}")
                for x in lines:
                    print("    " + x)
    counts = f"{passed} {len(failures)} {skipped}\n"
    if a.out == "-":
        sys.stdout.write(counts)
    else:
        with open(a.out, "w", encoding="utf-8") as out:
            out.write(counts)


if __name__ == "__main__":
    main()
