# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# require_loadable <program> <library dir>: skip (exit 77) when the program
# cannot be loaded with the libraries of that directory first on the search
# path (the replacement libibverbs/libmana): ldd -r binds every symbol as the
# loader does at start-up and names the first that is missing. Debian 13's
# testpmd links rdma-core 56's providers (libmlx5, ...), which import private
# libibverbs symbols; a later rdma-core may add more than the replacement
# carries. Sourced by testpmd_harness.sh and test/system/rdma_compat/upstream_testpmd.sh.

require_loadable() {
	local missing

	# NET_MANA_DPDK_LIB_DIR: the libraries of a DPDK installed into a prefix.
	missing=$(LD_LIBRARY_PATH=$2${NET_MANA_DPDK_LIB_DIR:+:$NET_MANA_DPDK_LIB_DIR} \
		ldd -r "$1" 2>&1 | grep -m1 'undefined symbol')
	if [ -n "$missing" ]; then
		echo "SKIP: $1 cannot load with the replacement libibverbs in $2:"
		echo "SKIP:   ${missing//$'\t'/ }"
		echo "SKIP: (its rdma-core providers need an ABI the replacement does not carry)"
		exit 77
	fi
}
