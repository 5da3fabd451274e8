#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Runs Debian's dpdk-testpmd on the driver's PCI front-end (net_mana_pci),
# with the software device presented as a MANA PCI function:
#   MANA_MODEL_PCI=<BDF>,...  SYSFS_PCI_DEVICES=<private root>/bus/pci/devices
# The plugin writes the function (1414:00ba) and its rdma-core device into
# that private sysfs tree when it is loaded; EAL's PCI scan then finds it and
# probes it through the PCI driver, exactly as on a VM with the kernel mana
# driver bound.
#
#   pci_test.sh <directory of librte_net_mana.so> <scenario>
#
# Scenarios:
#   probe_fwd    two vPorts wired to each other, io forwarding (start tx_first):
#                both ports receive and transmit, no errors; names <BDF>_port1/2
#   mac_select   -a <BDF>,mac=<MAC of vPort 2>: exactly that port is probed
#   detach       port stop/close all, device detach <BDF>: every port is
#                released; attaching again gives both ports back
#   bad_devarg   -a <BDF>,bogus=1: the probe fails, one log line names the key
#   mac_none     -a <BDF>,mac=<MAC of no vPort>: the probe fails with the one
#                line saying no vPort has that MAC, and no other driver line
#   coexist_first  another MANA PMD (OTHER_MANA_PMD: Debian 13's net/mana, or
#                DPDK's net/mana built from the source tree) loaded with -d
#                before ours: net_mana still takes the function (it moves the
#                other driver behind itself), says so once, and forwards
#   coexist_after  the other MANA PMD loaded after ours (as EAL's autoload
#                directory is): net_mana takes the function and says so once
#   disabled     NET_MANA_PCI=0, the function served by the replacement
#                libibverbs: net_mana registers no PCI driver and says so, the
#                other MANA PMD (if any) takes the function, --vdev still works
#
# testpmd runs interactively with its commands written to a FIFO; its stdout
# is line buffered (stdbuf) so the script can poll the output instead of
# sleeping for fixed times.
#
# Exit: 0 pass, 1 fail, 77 skipped (no dpdk-testpmd).

set -u

PMD_DIR=$1
SCENARIO=$2
TESTPMD=${TESTPMD:-/usr/bin/dpdk-testpmd}
DEADLINE_S=${PCI_DEADLINE_S:-25}
BDF=0000:00:0f.0
MAC1=02:00:00:0f:00:01
MAC2=02:00:00:0f:00:02
MAC3=02:00:00:0f:00:09

# shellcheck source=../lib/testpmd_harness.sh
. "$(dirname "$0")/../lib/testpmd_harness.sh"
harness_init pci
# The software device's sysfs tree, in the private work directory.
ROOT=$W/sys

# start_testpmd [--plugin-first|--plugin-after <plugin>] <MANA_MODEL_PCI> <-a argument>
#               <testpmd application args...>
start_testpmd() {
	local plugin=() model allow

	case $1 in --plugin-*) plugin=("$1" "$2"); shift 2 ;; esac
	model=$1 allow=$2
	shift 2
	mkdir -p "$ROOT/bus/pci/devices"
	MANA_MODEL_PCI=$model SYSFS_PCI_DEVICES=$ROOT/bus/pci/devices \
	testpmd_spawn "${plugin[@]}" $((DEADLINE_S * 2 + 30)) --file-prefix "pci_${SCENARIO}_$$" \
		-a "$allow" -- -i --nb-cores=1 --total-num-mbufs=4096 "$@"
}

# summary: runs `show port summary all`; prints "<port> <MAC> <name> <driver>"
# lines of the last summary (MAC in lower case).
summary() {
	cmd_wait "Number of available ports:" "show port summary all" || return 1
	# The table follows its header; give it time to be complete.
	sleep 0.3
	awk '
		/Number of available ports:/ { n = 0; delete rows; next }
		# (mawk has no {n} intervals: a MAC is 17 characters, 6 hex pairs)
		$1 ~ /^[0-9]+$/ && length($2) == 17 && split($2, b, ":") == 6 &&
		$2 ~ /^[0-9A-Fa-f:]+$/ {
			rows[n++] = $1 " " tolower($2) " " $3 " " $4
		}
		END { for (i = 0; i < n; i++) print rows[i] }' "$OUT"
}

# Number given in the last "Number of available ports: N" line.
nb_ports_printed() {
	grep -a -o -E "Number of available ports: [0-9]+" "$OUT" | tail -n 1 | awk '{ print $5 }'
}

# sysfs_mac <dev_port>: the MAC the software device wrote for that netdev.
sysfs_mac() {
	local d

	for d in "$ROOT/bus/pci/devices/$BDF"/net/*; do
		if [ "$(cat "$d/dev_port" 2>/dev/null)" = "$1" ]; then
			tr 'A-F' 'a-f' <"$d/address"
			return
		fi
	done
}

# The tree the plugin wrote when it was loaded: function, its netdevs' MACs.
check_sysfs() {
	local dir=$ROOT/bus/pci/devices/$BDF

	check_str "sysfs $BDF vendor:device" \
		"$(cat "$dir/vendor" 2>/dev/null):$(cat "$dir/device" 2>/dev/null)" "0x1414:0x00ba"
	check_str "sysfs dev_port 0 address" "$(sysfs_mac 0)" "$MAC1"
	check_str "sysfs dev_port 1 address" "$(sysfs_mac 1)" "$MAC2"
}

# Quit testpmd; checks its exit, the log, and that the plugin removed the
# software device's function from the sysfs tree when it was unloaded.
quit_testpmd() {
	testpmd_quit
	if [ -e "$ROOT/bus/pci/devices/$BDF" ]; then
		fail "software device's PCI function left in $ROOT after exit"
	fi
}

# No driver error, no failed testpmd operation.
check_no_errors() {
	check_log "$OUT" "$LOG_ERRORS|[Ff]ail|not stopped|Invalid" "errors in the log"
}

# check_ports <summary lines> <expected "<port> <mac> <name> <driver>" lines...>
check_ports() {
	local got=$1 want

	shift
	want=$(printf '%s\n' "$@")
	if [ "$got" != "$want" ]; then
		fail "ports: got [${got//$'\n'/; }], expected [${want//$'\n'/; }]"
	else
		echo "ok: ports [${got//$'\n'/; }]"
	fi
}

MODEL2="$BDF,ports=2,mac=$MAC1,mac=$MAC2"
# tx_first frames leave port N for peer N's MAC; over the pair wire they reach
# the other vPort, which takes only its own unicast MAC (hardware.md §16).
PEERS=(--eth-peer=0,$MAC2 --eth-peer=1,$MAC1)

# wait_both_ports <n>: polls until ports 0 and 1 have each received and sent
# more than n packets (or the deadline passes).
wait_both_ports() {
	local p ok

	while :; do
		cmd_wait "NIC statistics for port 1" "show port stats all" || break
		sleep 0.3
		ok=1
		for p in 0 1; do
			[ "$(nic RX-packets $p)" -gt "$1" ] 2>/dev/null &&
				[ "$(nic TX-packets $p)" -gt "$1" ] 2>/dev/null || ok=0
		done
		[ $ok = 1 ] && break
		may_wait "traffic on both ports" || break
		sleep 0.5
	done
}

run_probe_fwd() {
	local p rx tx

	start_testpmd "$MODEL2,wire=pair:1,wire=pair:0" "$BDF" --forward-mode=io "${PEERS[@]}"
	check_ports "$(summary)" \
		"0 $MAC1 ${BDF}_port1 net_mana_pci" "1 $MAC2 ${BDF}_port2 net_mana_pci"
	check_sysfs
	cmd "start tx_first"
	wait_both_ports 1000
	stop_fwd
	cmd_wait "NIC statistics for port 1" "show port stats all"
	sleep 0.3
	quit_testpmd
	for p in 0 1; do
		rx=$(nic RX-packets $p)
		tx=$(nic TX-packets $p)
		check "port $p RX-packets" "$rx" -gt 0
		check "port $p TX-packets" "$tx" -gt 0
		check "port $p RX-errors" "$(nic RX-errors $p)" -eq 0
		check "port $p RX-missed" "$(nic RX-missed $p)" -eq 0
		check "port $p TX-errors" "$(nic TX-errors $p)" -eq 0
		check "port $p RX-bytes" "$(nic RX-bytes $p)" -gt 0
	done
	check_no_errors
}

run_mac_select() {
	start_testpmd "$MODEL2" "$BDF,mac=$MAC2"
	check_ports "$(summary)" "0 $MAC2 ${BDF}_port2 net_mana_pci"
	check "ports probed" "$(nb_ports_printed)" -eq 1
	check_sysfs
	quit_testpmd
	check_no_errors
}

run_detach() {
	start_testpmd "$MODEL2" "$BDF"
	check_ports "$(summary)" \
		"0 $MAC1 ${BDF}_port1 net_mana_pci" "1 $MAC2 ${BDF}_port2 net_mana_pci"
	cmd_wait "Done" "port stop all"
	cmd_wait "Done" "port close all"
	cmd_wait "Now total ports is" "device detach $BDF"
	check_str "detach message" \
		"$(grep -a -o -E "Device $BDF is detached" "$OUT" | tail -n 1)" \
		"Device $BDF is detached"
	check "ports after detach (testpmd)" \
		"$(grep -a -o -E "Now total ports is [0-9]+" "$OUT" | tail -n 1 | awk '{ print $5 }')" \
		-eq 0
	check_ports "$(summary)"
	check "ports after detach (summary)" "$(nb_ports_printed)" -eq 0
	# Everything was released: the function probes again with both ports.
	cmd_wait "Now total ports is" "port attach $BDF"
	check_ports "$(summary)" \
		"0 $MAC1 ${BDF}_port1 net_mana_pci" "1 $MAC2 ${BDF}_port2 net_mana_pci"
	quit_testpmd
	check_no_errors
}

run_bad_devarg() {
	local lines

	start_testpmd "$MODEL2" "$BDF,bogus=1"
	check_ports "$(summary)"
	check "ports probed" "$(nb_ports_printed)" -eq 0
	quit_testpmd
	lines=$(grep -a -c "bogus" "$OUT")
	check "log lines naming 'bogus'" "$lines" -eq 1
	check "driver error line for key 'bogus'" \
		"$(grep -a -c -E "MANA.*unknown key 'bogus'|mana.*unknown key 'bogus'" "$OUT")" -eq 1
	check "EAL refused the device" \
		"$(grep -a -c -F "Requested device $BDF cannot be used" "$OUT")" -eq 1
	grep -a "bogus" "$OUT"
}

run_mac_none() {
	start_testpmd "$MODEL2" "$BDF,mac=$MAC3"
	check_ports "$(summary)"
	check "ports probed" "$(nb_ports_printed)" -eq 0
	quit_testpmd
	check "line saying no vPort has the MAC" \
		"$(grep -a -c -F "$BDF: none of the 2 vPorts of " "$OUT")" -eq 1
	# Besides the note that another MANA PMD (Debian 13's, autoloaded) also
	# claims the function, one driver line: the one above.
	check "driver lines (mana: ...)" \
		"$(grep -a -E "^mana: " "$OUT" | grep -a -c -v -F "also claims MANA functions")" -eq 1
	check "lines asking whether mana_ib is loaded" \
		"$(grep -a -c -F "are mana_ib and ib_uverbs loaded" "$OUT")" -eq 0
	check "EAL refused the device" \
		"$(grep -a -c -F "Requested device $BDF cannot be used" "$OUT")" -eq 1
	grep -a "^mana: " "$OUT"
}

# other_pmd: sets OTHER to the -d argument of the other MANA PMD
# (OTHER_MANA_PMD), empty when there is none. Below a world-writable directory
# it is loaded by bare name, its directory added to the search path.
other_pmd() {
	OTHER=${OTHER_MANA_PMD:-}
	if [ -z "$OTHER" ] || [ ! -f "$OTHER" ]; then
		OTHER=
		return
	fi
	echo "other MANA PMD: $OTHER"
	case $OTHER in /tmp/*|/var/tmp/*) PMD_DIR+=:${OTHER%/*}; OTHER=${OTHER##*/} ;; esac
}

# run_coexist first|after: the other MANA PMD loaded before or after ours.
run_coexist() {
	local n said

	other_pmd
	if [ -z "$OTHER" ]; then
		echo "SKIP: no other MANA PMD to load (OTHER_MANA_PMD='${OTHER_MANA_PMD:-}')"
		exit 77
	fi
	start_testpmd "--plugin-$1" "$OTHER" "$MODEL2,wire=pair:1,wire=pair:0" "$BDF" \
		--forward-mode=io "${PEERS[@]}"
	check_ports "$(summary)" \
		"0 $MAC1 ${BDF}_port1 net_mana_pci" "1 $MAC2 ${BDF}_port2 net_mana_pci"
	cmd "start tx_first"
	wait_both_ports 100
	stop_fwd
	quit_testpmd
	check "port 0 RX-packets" "$(nic RX-packets 0)" -gt 100
	check "port 1 RX-packets" "$(nic RX-packets 1)" -gt 100
	if [ "$1" = first ]; then
		said="was loaded before net_mana_pci .* and also claims MANA functions: "
		said+="net_mana_pci takes them"
	else
		said="also claims MANA functions: net_mana_pci .*, registered before it, takes them"
	fi
	n=$(grep -a -c -E "mana: .*PCI driver [^ ]+ \(.*$said" "$OUT")
	check "lines saying net_mana_pci takes the function from the other driver" "$n" -eq 1
	grep -a "also claims MANA functions" "$OUT"
	check "EAL refused no device" "$(grep -a -c -F "cannot be used" "$OUT")" -eq 0
	check_no_errors
}

run_disabled() {
	local plugin=() got

	# The function comes from the replacement libibverbs this time (not from
	# our plugin's MANA_MODEL_PCI), so that the other MANA driver can really
	# take it: DPDK's net/mana finds its rdma-core device there.
	require_loadable "$TESTPMD" "$IBVM_DIR"
	other_pmd
	[ -z "$OTHER" ] || plugin=(--plugin-after "$OTHER")
	mkdir -p "$ROOT/bus/pci/devices"
	NET_MANA_PCI=0 MANA_MODEL="name=mana_off0,pci=$BDF,sysfs=$ROOT,wire0=loop" \
	SYSFS_PCI_DEVICES=$ROOT/bus/pci/devices \
	testpmd_spawn --lib "$IBVM_DIR" "${plugin[@]}" $((DEADLINE_S * 2 + 30)) \
		--file-prefix "pci_${SCENARIO}_$$" -a "$BDF" --vdev "net_mana9,mac=$MAC3" \
		-- -i --nb-cores=1 --total-num-mbufs=4096
	got=$(summary)
	testpmd_quit	# (the replacement, not our plugin, wrote the sysfs tree)
	check "lines saying the PCI driver is not registered" \
		"$(grep -a -c "mana: .*NET_MANA_PCI=0: net_mana_pci not registered" "$OUT")" -eq 1
	check "net_mana_pci ports" "$(grep -c ' net_mana_pci$' <<< "$got")" -eq 0
	check "the vdev's port" "$(grep -c "^[0-9]* $MAC3 net_mana9_port1 net_mana$" <<< "$got")" -eq 1
	if [ ${#plugin[@]} -gt 0 ]; then
		# The other driver took the function: DPDK's net/mana names the
		# port <BDF>_port<N> too, under its PCI driver name net_mana.
		check "ports of the function, from the other driver (net_mana)" \
			"$(grep -c " ${BDF}_port1 net_mana$" <<< "$got")" -eq 1
		check "ports in all" "$(nb_ports_printed)" -eq 2
	else
		check "ports probed" "$(nb_ports_printed)" -eq 1
	fi
	echo "ports: ${got//$'\n'/; }"
}

case "$SCENARIO" in
disabled)
	run_disabled
	;;
coexist_first)
	run_coexist first
	;;
coexist_after)
	run_coexist after
	;;
probe_fwd)
	run_probe_fwd
	;;
mac_select)
	run_mac_select
	;;
detach)
	run_detach
	;;
mac_none)
	run_mac_none
	;;
bad_devarg)
	run_bad_devarg
	;;
*)
	echo "unknown scenario $SCENARIO"
	exit 1
	;;
esac

harness_exit
