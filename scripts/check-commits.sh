#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Checks the messages of the commits after a base as DPDK's devtools want
# them (doc/guides/contributing/patches.rst of DPDK, "Commit Messages:
# Subject Line" and "Body"), with this project's own code:
#   - headline at most 60 characters, "area: what": the area in lower case
#     (net/mana, model, test, doc, ci, ...; several joined by ", "), then a
#     lower-case word, an acronym or a name such as Debian (not "Fix ...",
#     which DPDK refuses), and no full stop at the end;
#   - a blank line, then a body (the why and the numbers), lines of at most
#     75 characters (a line with a URL, or a trailer such as "Fixes:", may
#     be longer).
# Merge commits are not checked (DPDK's history has none; here they only
# join reviewed branches).
#
# usage: scripts/check-commits.sh [BASE]
#   BASE  the last commit not checked (default: the hash in .ci/commit-check-base,
#         the commit before this check existed)
# Output: one line per problem, "<commit> <rule>: <headline>", then
# "check-commits: N commits after <base>, N problems".
# Exit: 0 none, 1 problems, 77 not a git checkout or BASE not in its history
# (a shallow clone, a tarball).

set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base=${1:-$(cat "$repo/.ci/commit-check-base" 2>/dev/null)}

if ! git -C "$repo" rev-parse --git-dir > /dev/null 2>&1; then
	echo "SKIP: $repo is not a git checkout"
	exit 77
fi
if [ -z "$base" ] || ! git -C "$repo" cat-file -e "$base^{commit}" 2>/dev/null; then
	echo "SKIP: base commit '${base:-?}' is not in this history (shallow clone?)"
	exit 77
fi

area='[a-z][a-z0-9_/.+-]*'
# Names that keep their capital at the start of the "what".
names='Debian Ubuntu Linux Azure Microsoft Open OpenVMM Cobalt'
n=0
problems=0
problem() {
	echo "${c:0:12} $1: $head"
	problems=$((problems + 1))
}
for c in $(git -C "$repo" rev-list --no-merges --reverse "$base..HEAD"); do
	n=$((n + 1))
	msg=$(git -C "$repo" log -1 --format=%B "$c")
	head=$(sed -n 1p <<< "$msg")
	[ ${#head} -le 60 ] || problem "headline over 60 characters (${#head})"
	[[ $head =~ ^$area(,\ $area)*:\ [^\ ] ]] ||
		problem "headline not 'area: what' (lower-case area, one space)"
	if [[ $head =~ :\ ([A-Z][a-z][A-Za-z]*) ]] &&
		[[ " $names " != *" ${BASH_REMATCH[1]} "* ]]; then
		problem "headline starts with a capital after the area"
	fi
	[[ $head == *. ]] && problem "headline ends with a full stop"
	[ -z "$(sed -n 2p <<< "$msg")" ] || problem "no blank line after the headline"
	body=$(sed -n '3,$p' <<< "$msg")
	grep -q '[^[:space:]]' <<< "$body" || problem "no body (the why and the numbers)"
	long=$(grep -v -E '://|^[A-Z][a-z-]+: ' <<< "$body" | awk 'length($0) > 75' | head -1)
	[ -z "$long" ] || problem "body line over 75 characters ('${long:0:40}...')"
done
echo "check-commits: $n commits after ${base:0:12}, $problems problems"
[ "$problems" -eq 0 ]
