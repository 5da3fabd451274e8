#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# README command 2: set the machine up and run every test. Run as root.
#   build       normal build: every suite (meson test)
#   build-asan  AddressSanitizer + UndefinedBehaviorSanitizer: suites 'unit' and
#               'component' (the driver on the software device, EAL --no-huge)
# The last line is "N passed, N failed" (", N skipped" appended when some
# were skipped), summed over both runs. Exit status 0 only if nothing failed
# and at least one test passed.
#
# Usage: scripts/run-tests.sh [setup.sh options, e.g. --no-apt]

set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 1

errors=()

bash scripts/setup.sh "$@" || {
	echo "run-tests: scripts/setup.sh failed" >&2
	echo "0 passed, 1 failed"
	exit 1
}

# ---- Sanitizer build ----------------------------------------------------
# b_lundef=false: with sanitizers, shared objects keep undefined references
# to the runtime.
asan_opts=("-Db_sanitize=address,undefined" -Db_lundef=false)
if [ -f build-asan/build.ninja ]; then
	meson setup --reconfigure build-asan "${asan_opts[@]}" || errors+=("configure build-asan")
else
	meson setup build-asan "${asan_opts[@]}" || errors+=("configure build-asan")
fi
ninja -C build-asan || errors+=("build build-asan")

# ---- Tests --------------------------------------------------------------
# A run that never starts must not leave an old log to be counted.
rm -f build/meson-logs/testlog.json build-asan/meson-logs/testlog.json

echo "run-tests: meson test -C build (all suites)"
meson test -C build --print-errorlogs || true

echo "run-tests: meson test -C build-asan --suite unit --suite component (ASan + UBSan)"
ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
	meson test -C build-asan --suite unit --suite component --print-errorlogs || true

# ---- Summary ------------------------------------------------------------
python3 - "${errors[@]}" <<'EOF'
import json
import sys

runs = [("build", "build/meson-logs/testlog.json"),
        ("build-asan", "build-asan/meson-logs/testlog.json")]
passed = failed = skipped = 0
failures = []
for name, path in runs:
    try:
        f = open(path, encoding="utf-8")
    except FileNotFoundError:
        failures.append(f"{name}: no test log (build or test run failed)")
        continue
    with f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            t = json.loads(line)
            res = t.get("result", "")
            if res in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif res == "SKIP":
                skipped += 1
            else:       # FAIL, TIMEOUT, ERROR, UNEXPECTEDPASS, ...
                failed += 1
                failures.append(f"{name}: {t.get('name', '?')}: {res}")
for e in sys.argv[1:]:
    failures.append(f"step failed: {e}")
if failures:
    print("run-tests: problems:")
    for x in failures:
        print("  " + x)
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed or failures or passed == 0 else 0)
EOF
