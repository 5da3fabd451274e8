# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Shared harness of the dpdk-testpmd script tests (test/system/testpmd, pci,
# multiprocess, rdma_backend): one interactive testpmd fed through
# a FIFO, its output in a file that the checks parse. Sourced; the caller
# sets PMD_DIR, SCENARIO, TESTPMD and DEADLINE_S, then calls harness_init,
# and ends with harness_exit.
#
# Globals: W (private work directory), OUT (testpmd's output), TP (testpmd's
# pid while it runs), FAILS (failed checks so far).

# shellcheck source=loadable.sh
. "$(dirname "${BASH_SOURCE[0]}")/loadable.sh"

# Driver errors in a testpmd log (extended by the scripts that want more).
# shellcheck disable=SC2034 # used by the scripts that source this file
LOG_ERRORS='mana.*(ERR|error)|device fatal|CQ overflow'

# ---- life cycle ----------------------------------------------------------

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
	PREFIXES=()
	trap harness_cleanup EXIT
}

# eal_runtime_rm <file prefix>...: removes the runtime directories EAL left
# for those prefixes (EAL never deletes its own: config, fbarrays, sockets,
# about 10 MB each) once no process uses them.
eal_runtime_rm() {
	local base=/var/run/dpdk p

	[ "$(id -u)" -eq 0 ] || base=${XDG_RUNTIME_DIR:-/tmp}/dpdk
	for p in "$@"; do
		case $p in ''|*/*|.|..) continue ;; esac
		rm -rf --one-file-system "${base:?}/$p"
	done
}

# kill_proc <pid>: ends that process if it still runs (TERM, then KILL).
kill_proc() {
	if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then
		kill "$1" 2>/dev/null
		sleep 1
		kill -9 "$1" 2>/dev/null
	fi
}

# The EXIT trap: testpmd ended, W removed unless a check failed.
harness_cleanup() {
	exec 3>&- 2>/dev/null
	kill_proc "$TP"
	TP=
	eal_runtime_rm "${PREFIXES[@]}"
	if [ "$FAILS" -eq 0 ]; then
		rm -rf "$W"
	else
		echo "testpmd output kept in $OUT"
	fi
}

# harness_exit: the verdict line; exit 1 if any check failed, else 0.
harness_exit() {
	if [ "$FAILS" -ne 0 ]; then
		echo "$SCENARIO: $FAILS check(s) failed"
		exit 1
	fi
	echo "$SCENARIO: all checks passed ($SECONDS s)"
	exit 0
}

# ---- checks --------------------------------------------------------------

fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

# check <description> <actual> <op> <expected>   (op: -eq -ne -gt -ge -lt -le)
check() {
	local what=$1 act=$2 op=$3 exp=$4

	if [ -z "$act" ] || ! test "$act" "$op" "$exp" 2>/dev/null; then
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

# check_log <file> <ERE> <description>: no line of the file matches, counter
# lines ("name: value", e.g. rx_errors: 0) aside; the first matches shown.
check_log() {
	local hits

	hits=$(grep -a -E "$2" "$1" | grep -a -v -E "^(testpmd> )?[a-z_0-9]+: [0-9]+$")
	if [ -n "$hits" ]; then
		fail "$3:"
		printf '%s\n' "$hits" | head -5
	else
		echo "ok: no $3"
	fi
}

# ---- testpmd -------------------------------------------------------------

# testpmd_spawn [--lib <dir>]... [--log <pattern:level>]... [--huge-mem <MB>]
#               [--plugin-first <plugin>]... [--plugin-after <plugin>]... [--builtin 1]
#               <timeout s> <EAL and application args...>
# testpmd in the background, the plugin loaded by bare name (EAL refuses a
# -d path with a world-writable ancestor such as /tmp), commands through
# fd 3. --lib: a directory searched after the plugin's (e.g. replacement
# libraries); --log: a log level ahead of the default pmd.net.mana.*:notice
# (EAL gives a log type the level of the first matching pattern);
# --huge-mem: that much hugepage memory instead of --no-huge -m 256 (all:
# hugepages, no -m: what the --huge-dir mount gives); 256 MB holds the largest
# pool a test asks for (8192 mbufs of 9400 bytes) and EAL touches every page
# of it at start: 0.4 s a start, against 1.3 s with 1024 MB;
# --plugin-first/--plugin-after: another plugin (-d) loaded before or after ours;
# --builtin 1: no -d of ours (TESTPMD has the driver built in, dpdk-testpmd-mana).
testpmd_spawn() {
	local libs=$PMD_DIR mem=(--no-huge -m 256) logs=() limit first=() after=()
	local ours=(-d librte_net_mana.so)

	while :; do
		case $1 in
		--lib) libs+=:$2 ;;
		--log) logs+=("--log-level=$2") ;;
		--huge-mem) mem=(-m "$2"); [ "$2" != all ] || mem=() ;;
		--plugin-first) first+=(-d "$2") ;;	# loaded before ours
		--plugin-after) after+=(-d "$2") ;;	# loaded after ours
		--builtin) ours=() ;;
		*) break ;;
		esac
		shift 2
	done
	limit=$1
	shift
	harness_note_prefix "$@"
	mkfifo "$W/in"
	# Opened read-write so that testpmd never sees end of file before `quit`.
	# stdout is a file: line-buffered (stdbuf) so that the polling sees each line.
	exec 3<>"$W/in"
	# OUT exists before testpmd's shell opens it: count_text on a missing file
	# prints nothing, and the waits would take that for the text found.
	: >"$OUT"
	LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	timeout -k 5 "$limit" stdbuf -oL -eL "$TESTPMD" -l 0-1 "${mem[@]}" \
		"${first[@]}" "${ours[@]}" "${after[@]}" "${logs[@]}" \
		--log-level='pmd.net.mana.*:notice' "$@" \
		<"$W/in" >"$OUT" 2>&1 &
	TP=$!
	SECONDS=0
}

# harness_note_prefix <EAL args...>: remember the --file-prefix for cleanup.
harness_note_prefix() {
	while [ $# -gt 0 ]; do
		case $1 in
		--file-prefix) PREFIXES+=("$2"); shift ;;
		--file-prefix=*) PREFIXES+=("${1#--file-prefix=}") ;;
		--) break ;;
		esac
		shift
	done
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
	eal_runtime_rm "${PREFIXES[@]}"
	check "testpmd exit status" "$rc" -eq 0
	if ! grep -a -q "^Bye" "$OUT"; then
		fail "testpmd did not finish normally"
	fi
}

# ---- waiting for output --------------------------------------------------

# count_text <fixed string>: how many output lines hold it.
count_text() {
	grep -a -c -F -e "$1" "$OUT"
}

# may_wait <what is awaited>: status 0 while testpmd runs and DEADLINE_S
# has not passed; else a failed check that names what was awaited, status 1.
may_wait() {
	if ! kill -0 "$TP" 2>/dev/null; then
		fail "testpmd exited while waiting for $1"
		return 1
	fi
	if [ "$SECONDS" -ge "$DEADLINE_S" ]; then
		fail "timeout waiting for $1"
		return 1
	fi
}

# wait_count <fixed string> <n>: until testpmd has printed it on n lines;
# fails (status 1) if testpmd exits first or DEADLINE_S passes.
wait_count() {
	while [ "$(count_text "$1")" -lt "$2" ]; do
		may_wait "'$1' ($2 lines)" || return 1
		sleep 0.2
	done
}

# wait_text <fixed string>: until testpmd has printed it once.
wait_text() {
	wait_count "$1" 1
}

# cmd_wait <marker> <command...>: runs the command and waits for its output:
# marker is a line it prints once (counted before, so an earlier print does
# not count).
cmd_wait() {
	local marker=$1 n

	shift
	n=$(count_text "$marker")
	cmd "$*"
	wait_count "$marker" $((n + 1))
}

# Stop forwarding and wait for this run's forward statistics.
stop_fwd() {
	cmd_wait "Accumulated forward statistics" "stop"
}

# ---- parsing the output --------------------------------------------------

# block_val <header> <port> <key>: value after "key:" in the last block whose
# header line holds "<header> <port> " (forward or NIC statistics).
block_val() {
	awk -v hdr="$1 $2 " -v key="$3:" '
		index($0, hdr) { inb = 1; next }
		inb && (/^ *[-#+]+ *$/ || /statistics for/) { inb = 0 }
		inb { for (i = 1; i < NF; i++) if ($i == key) val = $(i + 1) }
		END { print val }' "$OUT"
}

# nic <key> [port]: the port's (default 0) last NIC statistics value.
nic() {
	block_val "NIC statistics for port" "${2:-0}" "$1"
}

# xstat <name>: last value printed for it ("name: value" lines; the
# interactive prompt may be glued to either end of a line).
xstat() {
	grep -a -o -E "(^|[^a-z0-9_])$1: [0-9]+" "$OUT" | tail -n 1 | awk '{ print $2 }'
}

# wait_xstat <name> <op> <value>: polls `show port xstats 0` until it holds.
wait_xstat() {
	local v

	while :; do
		cmd "show port xstats 0"
		sleep 0.5
		v=$(xstat "$1")
		if [ -n "$v" ] && test "$v" "$2" "$3"; then
			return 0
		fi
		may_wait "$1 $2 $3 (last: '$v')" || return 1
	done
}

# fwd <field>: port 0's value in testpmd's forward statistics.
fwd() {
	block_val "Forward statistics for port" 0 "$1"
}

# check_queues <nq> <expected sum> [<what the sum is>]: every RX queue got
# frames (rx_q<i>_packets > 0) and they add up to the expected sum.
check_queues() {
	local nq=$1 q v sum=0

	for ((q = 0; q < nq; q++)); do
		v=$(xstat "rx_q${q}_packets")
		check "rx_q${q}_packets" "$v" -gt 0
		sum=$((sum + ${v:-0}))
	done
	check "sum of rx_q*_packets${3:+ = $3}" "$sum" -eq "$2"
}
