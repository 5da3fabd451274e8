#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Runs a command on a copy of this tree inside a Debian 13 (trixie) root made
# with debootstrap, so that a Debian 12 machine tests the Debian 13 platform
# too (DPDK 24.11, rdma-core 56). Run as root. Used by scripts/run-tests.sh;
# the root, its mounts and the copy of the tree: scripts/debian-root.sh.
#
#   NET_MANA_DEBIAN13_ROOT      where the root is made (default .deps/debian13-root)
#   NET_MANA_DEBIAN13_DPDK_SRC  a DPDK 24.11 tree, read-only at /opt/dpdk-src in
#                               the root and given to the command as NET_MANA_DPDK_SRC
#
# usage: scripts/debian13-root.sh [--counts FILE] -- COMMAND [ARGS...]
#   --counts FILE   copy the root's .deps/counts-debian13 (run-tests.sh) to FILE
# Exit status: the command's.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
args=(--suite trixie --name debian13-root
	--root "${NET_MANA_DEBIAN13_ROOT:-$repo/.deps/debian13-root}")
if [ -n "${NET_MANA_DEBIAN13_DPDK_SRC:-}" ]; then
	args+=(--dpdk-src "$NET_MANA_DEBIAN13_DPDK_SRC")
fi
case "${1:-}" in
-h|--help) sed -n '5,16p' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
exec bash "$repo/scripts/debian-root.sh" "${args[@]}" "$@"
