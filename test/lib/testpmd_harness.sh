# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Shared harness of the dpdk-testpmd script tests (test/testpmd, test/pci):
# one interactive testpmd fed through a FIFO, its output in a file that the
# checks parse. Sourced; the caller sets PMD_DIR, SCENARIO, TESTPMD and
# DEADLINE_S, then calls harness_init.

# harness_init <tag>: skip (77) without testpmd, fail without the plugin;
# a private work directory W (mode 0700) holding the FIFO and the output OUT.
harness_init() {
	if [ ! -x "$TESTPMD" ]; then
		echo "SKIP: $TESTPMD not found"
		exit 77
	fi
	if [ ! -f "$PMD_DIR/librte_net_mana.so" ]; then
		echo "FAIL: $PMD_DIR/librte_net_mana.so not built"
		exit 1
	fi
	W=$(mktemp -d "${TMPDIR:-/tmp}/$1_${SCENARIO}.XXXXXX") || exit 1
	OUT=$W/out
	FAILS=0
	TP=
	trap harness_cleanup EXIT
}

harness_cleanup() {
	exec 3>&- 2>/dev/null
	if [ -n "$TP" ] && kill -0 "$TP" 2>/dev/null; then
		kill "$TP" 2>/dev/null
		sleep 1
		kill -9 "$TP" 2>/dev/null
	fi
	if [ "$FAILS" -eq 0 ]; then
		rm -rf "$W"
	else
		echo "testpmd output kept in $OUT"
	fi
}

fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

# check <description> <actual> <op> <expected>   (op: -eq -ne -gt -ge -lt -le)
check() {
	local what=$1 act=$2 op=$3 exp=$4

	if [ -z "$act" ] || ! [ "$act" "$op" "$exp" ] 2>/dev/null; then
		fail "$what: got '${act}', expected $op $exp"
	else
		echo "ok: $what = $act ($op $exp)"
	fi
}

# check_str <description> <actual> <expected>
check_str() {
	if [ "$2" != "$3" ]; then
		fail "$1: got '$2', expected '$3'"
	else
		echo "ok: $1 = '$2'"
	fi
}

# testpmd_spawn <timeout s> <EAL and application args...>: testpmd in the
# background, the plugin loaded by bare name (EAL refuses a -d path with a
# world-writable ancestor such as /tmp), commands through fd 3.
testpmd_spawn() {
	local limit=$1

	shift
	mkfifo "$W/in"
	# Opened read-write so that testpmd never sees end of file before `quit`.
	# stdout is a file: line-buffered (stdbuf) so that the polling sees each line.
	exec 3<>"$W/in"
	LD_LIBRARY_PATH=$PMD_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	timeout -k 5 "$limit" stdbuf -oL -eL "$TESTPMD" -l 0-1 --no-huge -m 1024 \
		-d librte_net_mana.so --log-level='pmd.net.mana.*:notice' "$@" \
		<"$W/in" >"$OUT" 2>&1 &
	TP=$!
	SECONDS=0
}

cmd() {
	echo "$*" >&3
}

# testpmd_quit: `quit`, then its exit status and a normal end ("Bye").
testpmd_quit() {
	local rc

	cmd "quit"
	wait "$TP"
	rc=$?
	TP=
	check "testpmd exit status" "$rc" -eq 0
	if ! grep -a -q "^Bye" "$OUT"; then
		fail "testpmd did not finish normally"
	fi
}

# block_val <header> <port> <key>: value after "key:" in the last block whose
# header line holds "<header> <port> " (forward or NIC statistics).
block_val() {
	awk -v hdr="$1 $2 " -v key="$3:" '
		index($0, hdr) { inb = 1; next }
		inb && (/^ *[-#+]+ *$/ || /statistics for/) { inb = 0 }
		inb { for (i = 1; i < NF; i++) if ($i == key) val = $(i + 1) }
		END { print val }' "$OUT"
}
