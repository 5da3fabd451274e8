#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# One fuzzer as a meson test: replay every regression input once, then fuzz
# from the seed corpus for NET_MANA_FUZZ_TIME seconds (default 20). New
# inputs go to a scratch corpus, never into the repository; a crash leaves
# its input in <build>/test/fuzz/artifacts/ and fails the test.
#   run_fuzzer.sh <fuzzer> <corpus dir> <regress dir>
#   run_fuzzer.sh --skip <reason>      (exit 77: meson's SKIP)
set -euo pipefail

if [ "${1:-}" = --skip ]; then
	echo "SKIP: ${2:-}"
	exit 77
fi

fuzzer=$1 corpus=$2 regress=$3
time=${NET_MANA_FUZZ_TIME:-20}
name=$(basename "$fuzzer")
artifacts=$(dirname "$fuzzer")/artifacts
mkdir -p "$artifacts"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# (UBSan findings must fail the run: -fsanitize=undefined alone only reports.)
export UBSAN_OPTIONS="$UBSAN_OPTIONS:halt_on_error=1"

# -error_exitcode: libFuzzer's default, 77, is meson's SKIP: a crash must fail.
opts=(-timeout=10 -rss_limit_mb=2048 -error_exitcode=1 -artifact_prefix="$artifacts/$name-")
if [ -d "$regress" ] && [ -n "$(ls -A "$regress")" ]; then
	echo "$name: replaying $(ls "$regress" | wc -l) regression inputs"
	"$fuzzer" "${opts[@]}" -runs=1 "$regress"/*
fi
[ -d "$corpus" ] && [ -n "$(ls -A "$corpus")" ] || {
	echo "$name: no seed corpus in $corpus" >&2
	exit 1
}
echo "$name: fuzzing for ${time}s from $(ls "$corpus" | wc -l) seeds"
"$fuzzer" "${opts[@]}" -max_total_time="$time" -print_final_stats=1 "$scratch" "$corpus"
