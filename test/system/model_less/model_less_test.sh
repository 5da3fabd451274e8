#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# The plugin of a -Dmodel=false build (test/system/model_less/meson.build).
#   model_less_test.sh <plugin dir> symbols|vdev
#   model_less_test.sh <plugin dir> rdma:<scenario> <rdma_backend_test.sh>
# Exit: 0 pass, 1 fail, 77 skipped.

set -u

PMD_DIR=$1
CASE=$2
PLUGIN=$PMD_DIR/librte_net_mana.so
TESTPMD=${TESTPMD:-/usr/bin/dpdk-testpmd}
failed=0

fail() {
	echo "FAIL: $*"
	failed=1
}

[ -f "$PLUGIN" ] || { echo "FAIL: $PLUGIN not built"; exit 1; }

case $CASE in
symbols)
	needed=$(objdump -p "$PLUGIN" | awk '$1 == "NEEDED" { print $2 }')
	echo "NEEDED: $(echo "$needed" | tr '\n' ' ')"
	for lib in libpcap libmana_model; do
		if echo "$needed" | grep -q "^$lib"; then
			fail "the plugin needs $lib"
		fi
	done
	echo "$needed" | grep -q '^libibverbs\.so\.1$' || fail "the plugin does not need libibverbs.so.1"
	echo "$needed" | grep -q '^libmana\.so\.1$' || fail "the plugin does not need libmana.so.1"
	# Every symbol of the plugin, defined or referenced, local or global: the
	# software device's code is mm_* and mana_model_* (its engine thread
	# mm_engine_*); the PMD's own rte_pmd_mana_model_* and mana_pci_model_*
	# answer "no software device" here.
	model_syms=$(nm "$PLUGIN" | awk '{ print $NF }' |
		grep -E '^(mm_|mana_model_)' | sort -u | tr '\n' ' ')
	[ -z "$model_syms" ] || fail "software-device symbols in the plugin: $model_syms"
	pcap_syms=$(nm "$PLUGIN" | awk '{ print $NF }' | grep -E '^pcap_' | sort -u | tr '\n' ' ')
	[ -z "$pcap_syms" ] || fail "libpcap symbols in the plugin: $pcap_syms"
	n=$(nm -D --defined-only "$PLUGIN" | wc -l)
	echo "plugin: $n dynamic symbols defined, no software-device or libpcap symbol"
	;;
vdev)
	[ -x "$TESTPMD" ] || { echo "SKIP: no $TESTPMD"; exit 77; }
	out=$(cd / && LD_LIBRARY_PATH=$PMD_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		timeout 30 "$TESTPMD" --no-huge -m 256 \
		--file-prefix "ml_vdev_$$" -l 0 --no-pci -d librte_net_mana.so \
		--vdev net_mana0 -- --total-num-mbufs=2048 </dev/null 2>&1)
	echo "$out" | grep -E 'mana|vdev'
	n=$(echo "$out" | grep -c 'this build of net_mana has no software device')
	[ "$n" -eq 1 ] || fail "expected one 'no software device' line, got $n"
	n=$(echo "$out" | grep -c '^mana: ')
	[ "$n" -eq 1 ] || fail "expected exactly one line from net_mana, got $n"
	echo "$out" | grep -q 'No probed ethernet devices' ||
		fail "testpmd found a port although the vdev cannot exist"
	;;
rdma:*)
	script=$3
	ibvm=${NET_MANA_IBVM_DIR:-}
	if [ -z "$ibvm" ] || [ ! -f "$ibvm/libibverbs.so.1" ]; then
		echo "SKIP: NET_MANA_IBVM_DIR names no replacement libibverbs (a build with the" \
			"software device: <build>/lib/ibverbs_model)"
		exit 77
	fi
	exec bash "$script" "$PMD_DIR" "$ibvm" "${CASE#rdma:}"
	;;
*)
	echo "FAIL: unknown case $CASE"
	exit 1
	;;
esac
[ "$failed" -eq 0 ] && echo PASS
exit "$failed"
