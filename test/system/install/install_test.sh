#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# What `meson install` gives a system (doc/user_guide.md, "Install").
#
#   install_test.sh symbols <DPDK ABI> <rte_pmd_mana.h> <object dir> <plugin>...
#       every plugin exports exactly the functions rte_pmd_mana.h declares,
#       each __rte_experimental there, in the EXPERIMENTAL version node and in
#       section .text.experimental of the objects (DPDK's check-symbols.sh);
#       nothing else but the version nodes and the temporary mana_model_* node.
#   install_test.sh testpmd <DPDK ABI> <C compiler> <build dir> <file>...
#       `meson install --destdir` into a scratch root holds exactly the given
#       files (absolute installed paths); then, in a private mount namespace
#       where every installed directory is the system's own overlaid with the
#       scratch root's, Debian's unmodified dpdk-testpmd (no -d) autoloads the
#       driver and forwards on a net_mana vdev, and a program built only with
#       `pkg-config libdpdk-net-mana` calls rte_pmd_mana.h on it.
#
# Exit: 0 pass, 1 fail, 77 skipped (testpmd: not root, no private mount
# namespace, or no dpdk-testpmd).

set -u

MODE=$1
ABI=$2
shift 2
# shellcheck disable=SC2034 # the harness's name of this run
SCENARIO=install_$MODE
TESTPMD=${TESTPMD:-/usr/bin/dpdk-testpmd}
DEADLINE_S=${TP_DEADLINE_S:-60}
N=20000
HERE=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=../lib/testpmd_harness.sh
. "$HERE/../lib/testpmd_harness.sh"

# words <lines>: one line, the words separated by single spaces.
words() {
	tr -s ' \n' '  ' <<< "$1" | sed 's/^ //; s/ $//'
}

# ---- symbols ---------------------------------------------------------------

# The functions rte_pmd_mana.h declares; each declaration must follow a line
# holding only __rte_experimental.
header_api() {
	grep -o -E '^int rte_pmd_mana_[a-z0-9_]+\(' "$1" | sed 's/^int //; s/($//' | sort
}

check_header() {
	local h=$1 n bare

	n=$(header_api "$h" | grep -c .)
	check "functions declared in rte_pmd_mana.h" "$n" -gt 0
	bare=$(grep -B1 -E '^int rte_pmd_mana_' "$h" | grep -v -E '^(--|__rte_experimental|int )' |
		grep -c .)
	check "declarations without __rte_experimental" "$bare" -eq 0
}

# check_objects <dir>: the driver's objects define every API function in
# .text.experimental (where __rte_experimental puts it).
check_objects() {
	local dir=$1 api=$2 f sec

	for f in $api; do
		sec=$(objdump -t "$dir"/*.o 2>/dev/null |
			awk -v s="$f" '$NF == s && $3 == "F" { print $4 }')
		check_str "section of $f" "$sec" ".text.experimental"
	done
}

# check_exports <plugin> <API list>: `nm -D --defined-only`, one line per
# export; names carry their version (name@@NODE), version nodes are type A.
check_exports() {
	local lib=$1 api=$2 syms other exported

	if [ ! -f "$lib" ]; then
		fail "$lib not built"
		return
	fi
	syms=$(nm -D --defined-only "$lib" | awk '{ print $NF }')
	echo "$lib: $(grep -c . <<< "$syms") dynamic symbols defined"
	other=$(grep -v -E "^(DPDK_$ABI|EXPERIMENTAL)\$" <<< "$syms" |
		grep -v -E '^rte_pmd_mana_[a-z0-9_]+@@EXPERIMENTAL$')
	check "exports outside rte_pmd_mana_*@@EXPERIMENTAL" "$(grep -c . <<< "$other")" -eq 0
	[ -z "$other" ] || printf '  unexpected: %s\n' "$other" | head -10
	exported=$(grep -E '^rte_pmd_mana_' <<< "$syms" | sed 's/@@.*//' | sort)
	check_str "exported rte_pmd_mana_* = the header's" "$(words "$exported")" "$(words "$api")"
	for n in "DPDK_$ABI" EXPERIMENTAL; do
		check "version node $n" "$(grep -c -x "$n" <<< "$syms")" -eq 1
	done
}

run_symbols() {
	local header=$1 objdir=$2 api lib

	shift 2
	FAILS=0
	check_header "$header"
	api=$(header_api "$header")
	check_objects "$objdir" "$api"
	for lib in "$@"; do
		check_exports "$lib" "$api"
	done
	harness_exit
}

# ---- testpmd: install, then autoload ----------------------------------------

# ns_overlay <dir>: the system's <dir> shows the scratch root's copy above its own
# files (read-only overlay of both), in this mount namespace only.
ns_overlay() {
	if ! mount -t overlay overlay -o "lowerdir=$D$1:$1" "$1"; then
		fail "mount -t overlay over $1 (lowerdir $D$1:$1)"
		return 1
	fi
	echo "ok: $1 overlaid with $D$1"
}

# tp_spawn <vdev devargs>: Debian's testpmd, no -d, the ports from the vdev.
# EAL's debug log names every plugin it opens.
tp_spawn() {
	mkfifo "$W/in"
	exec 3<>"$W/in"
	: >"$OUT"	# before the waits read it (testpmd_harness.sh, testpmd_spawn)
	timeout -k 5 $((DEADLINE_S + 30)) stdbuf -oL -eL "$TESTPMD" -l 0-1 --no-huge -m 512 \
		--no-pci --file-prefix "inst_$$" --log-level=lib.eal:debug \
		--log-level='pmd.net.mana.*:notice' --vdev "$1" \
		-- -i --port-topology=loop --nb-cores=1 --total-num-mbufs=8192 --no-flush-rx \
		--forward-mode=io <"$W/in" >"$OUT" 2>&1 &
	TP=$!
	SECONDS=0
}

# info_val <key>: its last value in `show port info` output ("key: value").
info_val() {
	awk -F': *' -v k="$1" '$1 == k { v = $2 } END { print v }' "$OUT"
}

# The plugins mapped into the running testpmd (/proc/<pid>/maps).
tp_maps() {
	local pid

	pid=$(pgrep -P "$TP" | head -1)
	[ -n "$pid" ] && awk '$6 ~ /\.so/ { print $6 }' "/proc/$pid/maps" | sort -u
}

run_testpmd_autoload() {
	local maps distro

	tp_spawn "net_mana0,wire=gen:flows=8:len=128:count=$N:lossless=1"
	wait_text "testpmd> " || return
	maps=$(tp_maps)
	cmd_wait "Driver name" "show port info 0"
	cmd "start"
	wait_xstat rx_good_packets -ge "$N"
	stop_fwd
	cmd "show port stats 0"
	cmd "show port xstats 0"
	testpmd_quit
	check_log "$OUT" "$LOG_ERRORS" "driver errors in the log"

	check "EAL opened $PMD_DIR/librte_pmd_mana.so (autoload)" \
		"$(count_text "open shared lib $PMD_DIR/librte_pmd_mana.so")" -eq 1
	check "mapped in testpmd: $PMD_DIR/librte_pmd_mana.so" \
		"$(grep -c -x "$PMD_DIR/librte_pmd_mana.so" <<< "$maps")" -eq 1
	check_str "port 0 driver" "$(info_val 'Driver name')" "net_mana"
	check_str "port 0 device (vPort 1 of net_mana0)" "$(info_val 'Device name')" "net_mana0_port1"
	check "forward RX-packets" "$(fwd RX-packets)" -eq "$N"
	check "forward TX-packets" "$(fwd TX-packets)" -gt 0
	check "NIC RX-packets" "$(nic RX-packets)" -eq "$N"
	check "NIC TX-packets" "$(nic TX-packets)" -gt 0
	check "dev_wire_gen_frames (the software device's counter)" \
		"$(xstat dev_wire_gen_frames)" -eq "$N"
	check "dev_wire_sink_frames" "$(xstat dev_wire_sink_frames)" -gt 0

	# Debian 13: its own net/mana stays in the directory and in the process.
	distro=$(find "$PMD_DIR/" -maxdepth 1 -name "librte_net_mana.so.$ABI.*" -type f | head -1)
	if [ -n "$distro" ]; then
		check "$distro beside ours in the autoload directory" \
			"$(count_text "open shared lib $PMD_DIR/librte_net_mana.so.$ABI")" -eq 1
		check "mapped in testpmd: $distro" "$(grep -c -x "$distro" <<< "$maps")" -eq 1
	else
		echo "note: no librte_net_mana.so.$ABI (DPDK's own net/mana) in $PMD_DIR"
	fi
}

# An application of the API, built from the installed pkg-config file alone.
run_api_probe() {
	local flags out rc

	if ! flags=$(pkg-config --cflags --libs libdpdk-net-mana); then
		fail "pkg-config libdpdk-net-mana"
		return
	fi
	echo "pkg-config --cflags --libs libdpdk-net-mana: $flags"
	# shellcheck disable=SC2086 # flags are words
	if "$CC" -Werror -o "$W/probe_noexp" "$HERE/api_probe.c" $flags >"$W/cc_noexp" 2>&1; then
		fail "rte_pmd_mana.h compiled without ALLOW_EXPERIMENTAL_API under -Werror"
	else
		check "'not yet part of stable ABI' without ALLOW_EXPERIMENTAL_API" \
			"$(grep -c 'not yet part of stable ABI' "$W/cc_noexp")" -gt 0
	fi
	# shellcheck disable=SC2086
	if ! "$CC" -Wall -Werror -DALLOW_EXPERIMENTAL_API -o "$W/probe" "$HERE/api_probe.c" \
			$flags 2>&1; then
		fail "api_probe.c does not build with pkg-config libdpdk-net-mana"
		return
	fi
	check "api_probe links the installed plugin" \
		"$(ldd "$W/probe" | grep -c "$PMD_DIR/librte_pmd_mana.so")" -eq 1
	out=$(timeout 60 "$W/probe" -l 0 --no-huge -m 512 --no-pci --file-prefix "instp_$$" \
		--vdev net_mana0,wire=loop 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep '^api_probe'
	check "api_probe exit status" "$rc" -eq 0
	check "rte_pmd_mana_port_info_get on the autoloaded driver's port" \
		"$(grep -c '^api_probe: port 0 model=1 ' <<< "$out")" -eq 1
}

# pc_var <.pc file> <variable>: its value, as pkg-config reads it.
pc_var() {
	PKG_CONFIG_PATH=$(dirname "$1") pkg-config --variable="$2" "$(basename "$1" .pc)"
}

# check_pc <installed .pc> <installed files>: the pkg-config file of the
# scratch root names the directories the files went to: pmddir the plugin's,
# includedir the header's, libdir the installed DPDK's (libdpdk.pc's), and a
# prefix above all three.
check_pc() {
	local pc=$D$1 var prefix

	prefix=$(pc_var "$pc" prefix)
	check_str ".pc pmddir (the plugin's directory)" "$(pc_var "$pc" pmddir)" \
		"$(dirname "$(grep '/librte_pmd_mana.so$' <<< "$2")")"
	check_str ".pc includedir (rte_pmd_mana.h's directory)" "$(pc_var "$pc" includedir)" \
		"$(dirname "$(grep '/rte_pmd_mana.h$' <<< "$2")")"
	check_str ".pc libdir (libdpdk's)" "$(pc_var "$pc" libdir)" \
		"$(pkg-config --variable=libdir libdpdk)"
	check_str ".pc prefix (libdpdk's)" "$prefix" "$(pkg-config --variable=prefix libdpdk)"
	for var in pmddir includedir libdir; do
		case $(pc_var "$pc" $var) in
		"$prefix"/*) echo "ok: .pc $var is under prefix $prefix" ;;
		*) fail ".pc $var '$(pc_var "$pc" $var)' is not under prefix '$prefix'" ;;
		esac
	done
}

# check_guide_lists <installed files>: doc/user_guide.md's "meson install"
# table names every installed file (NET_MANA_USER_GUIDE), and the suite's
# description there gives their number.
check_guide_lists() {
	local guide=${NET_MANA_USER_GUIDE:-} sect f n words

	[ -f "$guide" ] || { fail "user guide not found (NET_MANA_USER_GUIDE='$guide')"; return; }
	sect=$(awk '/^### meson install/ { p = 1; next } p && /^### / { exit } p' "$guide")
	for f in $1; do
		if grep -q -F -e "\`$(basename "$f")\`" <<< "$sect"; then
			echo "ok: the user guide's install table names $(basename "$f")"
		else
			fail "the user guide's install table (section 10, meson install)" \
				"does not name \`$(basename "$f")\`, which meson install gives"
		fi
	done
	n=$(wc -w <<< "$1")
	words=(zero one two three four five six seven eight nine)
	check "user guide: install_testpmd says 'exactly the ${words[$n]} files'" \
		"$(grep -c -F "exactly the ${words[$n]} files" "$guide")" -ge 1
}

run_testpmd() {
	local build=$1 want got

	shift
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: needs root (a private mount namespace over the system's directories)"
		exit 77
	fi
	if [ -z "${NET_MANA_INSTALL_NS:-}" ]; then
		if ! unshare -m true 2>/dev/null; then
			echo "SKIP: unshare -m: no private mount namespace here"
			exit 77
		fi
		NET_MANA_INSTALL_NS=1 exec unshare -m --propagation private \
			bash "$0" "$MODE" "$ABI" "$build" "$@"
	fi
	CC=$1
	shift
	# What a system has: meson test points LD_LIBRARY_PATH at the build tree.
	# A DPDK installed into a prefix is found through LD_LIBRARY_PATH as
	# its users set it (NET_MANA_DPDK_LIB_DIR, from meson's test setup).
	unset LD_LIBRARY_PATH
	if [ -n "${NET_MANA_DPDK_LIB_DIR:-}" ]; then
		export LD_LIBRARY_PATH=$NET_MANA_DPDK_LIB_DIR
	fi
	if [ ! -x "$TESTPMD" ]; then
		echo "SKIP: $TESTPMD not found"
		exit 77
	fi
	W=$(mktemp -d "${TMPDIR:-/tmp}/install_test.XXXXXX") || exit 1
	OUT=$W/out
	D=$W/root
	# shellcheck disable=SC2034 # the harness counts failed checks in it
	FAILS=0
	TP=
	trap harness_cleanup EXIT

	if ! meson install -C "$build" --no-rebuild --quiet --destdir "$D" \
			>"$W/install.log" 2>&1; then
		cat "$W/install.log"
		fail "meson install --destdir $D"
		harness_exit
	fi
	want=$(printf '%s\n' "$@" | sort)
	got=$(cd "$D" && find . ! -type d | sed 's/^\.//' | sort)
	echo "installed:"
	printf '%s\n' "$got" | sed 's/^/  /'
	check_str "installed files" "$(words "$got")" "$(words "$want")"
	check "replacement libibverbs/libmana installed" \
		"$(grep -c -E '/lib(ibverbs|mana)\.so' <<< "$got")" -eq 0
	PMD_DIR=$(dirname "$(grep '/librte_pmd_mana.so$' <<< "$want")")
	check_pc "$(grep '/libdpdk-net-mana.pc$' <<< "$want")" "$want"
	check_guide_lists "$want"
	# The software device's library, when installed, is the plugin's only RUNPATH.
	MODEL_DIR=$(dirname "$(grep '/libmana_model.so$' <<< "$want")")
	[ "$MODEL_DIR" = . ] && MODEL_DIR=
	check_str "RUNPATH/RPATH of the installed plugin" \
		"$(readelf -d "$D$PMD_DIR/librte_pmd_mana.so" |
			sed -n -E 's/.*R(UN)?PATH.*\[(.*)\]$/\2/p')" "$MODEL_DIR"
	# A directory the system lacks (net_mana/) is overlaid through its parent,
	# and a directory under one already overlaid is not overlaid again (an
	# overlay over an overlay hides the lower files' paths in /proc/<pid>/maps).
	dirs=$(for f in $want; do
			d=$(dirname "$f")
			if [ -d "$d" ]; then echo "$d"; else dirname "$d"; fi
		done | sort -u)
	for d in $(awk '{ for (i = 1; i <= n; i++) if (index($0, top[i] "/") == 1) next;
			 top[++n] = $0; print }' <<< "$dirs"); do
		ns_overlay "$d" || harness_exit
	done
	run_testpmd_autoload
	run_api_probe
	harness_exit
}

case "$MODE" in
symbols) run_symbols "$@" ;;
testpmd) run_testpmd "$@" ;;
*) echo "unknown mode $MODE"; exit 1 ;;
esac
