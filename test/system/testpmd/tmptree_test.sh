#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# The software device's temporary sysfs tree ($TMPDIR/mana_model.XXXXXX,
# user guide "The software device") does not outlive dpdk-testpmd:
#   sigterm  testpmd forwarding on a 2-port net_mana vdev gets SIGTERM
#            (its handler closes the ports and exits): no tree left;
#   quit     the same through `quit`;
#   sigkill  SIGKILL leaves the tree (nothing runs in the process); the next
#            testpmd in that TMPDIR removes it when its device is made, and
#            leaves none itself.
# Each case in a private TMPDIR.
#
#   tmptree_test.sh <directory of librte_net_mana.so> <scenario>
#
# Exit: 0 pass, 1 fail, 77 skipped (no dpdk-testpmd).

set -u

PMD_DIR=$1
SCENARIO=$2
TESTPMD=${TESTPMD:-/usr/bin/dpdk-testpmd}
DEADLINE_S=${TP_DEADLINE_S:-60}

# shellcheck source=../lib/testpmd_harness.sh
. "$(dirname "$0")/../lib/testpmd_harness.sh"
harness_init tt

export TMPDIR=$W/tmp
mkdir "$TMPDIR" || exit 1
RUN=0

# trees: the mana_model.* directories in TMPDIR.
trees() {
	find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'mana_model.*' | sort
}

# start: testpmd forwarding (txonly) on a 2-port vdev, its device made.
start() {
	RUN=$((RUN + 1))
	rm -f "$W/in"
	testpmd_spawn $((DEADLINE_S + 30)) --no-pci --file-prefix "tt_${SCENARIO}_$$_$RUN" \
		--vdev "net_mana_tt,ports=2,wire=none,wire=none" \
		-- -i --forward-mode=txonly --total-num-mbufs=4096
	wait_text "testpmd>" || return 1
	cmd "start"
	wait_text "packet forwarding - ports=" || return 1
	check "trees while testpmd runs" "$(trees | wc -l)" -eq 1
}

# wait_end: testpmd's exit status in RC (TP is timeout, which reports its child's).
wait_end() {
	wait "$TP"
	RC=$?
	TP=
	eal_runtime_rm "${PREFIXES[@]}"
}

case $SCENARIO in
sigterm)
	start || harness_exit
	kill -TERM "$TP"	# timeout passes it on to testpmd
	wait_end
	check "testpmd exit status after SIGTERM" "$RC" -eq 0
	check "trees after SIGTERM" "$(trees | wc -l)" -eq 0
	;;
quit)
	start || harness_exit
	cmd "quit"
	wait_end
	check "testpmd exit status after quit" "$RC" -eq 0
	grep -a -q "^Bye" "$OUT" || fail "testpmd did not say Bye"
	check "trees after quit" "$(trees | wc -l)" -eq 0
	;;
sigkill)
	start || harness_exit
	left=$(trees)
	kill -KILL "$(ps -o pid= --ppid "$TP" | tr -d ' ')"
	wait_end
	check "testpmd killed (timeout's status 128 + 9)" "$RC" -eq 137
	check "trees after SIGKILL" "$(trees | wc -l)" -eq 1
	start || harness_exit
	if [ -n "$left" ] && [ -d "$left" ]; then
		fail "$left of the killed testpmd is still there"
	else
		echo "ok: the killed testpmd's tree is gone"
	fi
	cmd "quit"
	wait_end
	check "second testpmd exit status" "$RC" -eq 0
	check "trees at the end" "$(trees | wc -l)" -eq 0
	;;
*)
	echo "unknown scenario $SCENARIO"
	exit 1
	;;
esac
harness_exit
