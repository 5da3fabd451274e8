#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# Table-driven bad-input suite: every line of a case file is one run of
# Debian's dpdk-testpmd on net_mana with a bad (or borderline) input and the
# outcome the driver must give (test/system/bad_input/README.md).
#
#   bad_input.sh <directory of librte_net_mana.so> <replacement libibverbs dir> <case file> [A-B]
#
# A-B: only rows A to B (1-based, comments and blank lines not counted), as
# meson.build cuts a file into tests; default every row. Each row runs on its
# own deadline (testpmd ends after BAD_INPUT_DEADLINE_S + 30 s at most, every
# wait inside after BAD_INPUT_DEADLINE_S, default 60), and prints its time.
#
# A case line (fields separated by " | "; '#' starts a comment line):
#
#   name | [VAR=value...] EAL args [-- testpmd args] | commands | expectations
#
#   EAL args     after "-l 0-1 --no-huge -m 256 -d librte_net_mana.so"; --no-pci is
#                added unless they hold "-a"; the testpmd args follow
#                "-i --total-num-mbufs=8192" (a later option overrides)
#   VAR=value    environment of testpmd (MANA_MODEL, MANA_MODEL_PCI ...);
#                IBVM=1 also puts the replacement libibverbs/libmana first
#   commands     testpmd commands separated by ';' ('-': none), run after start-up
#   @W@          in args, commands and expectations: the case's work directory, which holds the
#                fixtures good.pcap (4 frames to 02:00:00:00:00:0a), text.pcap (not a
#                capture), empty.pcap (0 bytes), short.pcap (a cut header), dir.pcap
#                (a directory), fifo.pcap (a FIFO) and sys/bus/pci/devices (for
#                SYSFS_PCI_DEVICES)
#   @AFFINITY@   in expectations: the CPUs this process may run on, as the kernel lists
#                them (Cpus_allowed_list, e.g. "0-1"): testpmd starts with the same
#
# Expectations, separated by " && "; all must hold:
#   mana <message>   the driver printed "mana: <function>(): <message>" (the
#                    function is left out: it names code, the message is the
#                    contract of doc/user_guide.md)
#   line <text>      a line exactly <text> (EAL, ethdev and testpmd lines;
#                    DPDK 24.11's "ETHDEV: " log prefix and rte_exit's
#                    "  Cause: " are not part of it, so one row serves both)
#   fwd <N>          after the commands, `start tx_first`: port 0 receives N
#                    frames (rx_good_packets) before the deadline
#   exit <status>    testpmd's exit status (default: 0 and a normal end, "Bye")
#   not <text>       no line holds <text> (a fixed string)
#   xstat <name> <op> <value>
#                    after the commands (and the forwarding of fwd), `show port xstats 0`
#                    polled until the xstat compares so with <value> (op of test(1): -eq,
#                    -ge, ...); several are awaited in their order
#
# Each failing case prints one line: FAIL: <case>: expected <what>; seen <what>.
# Exit: 0 pass, 1 fail, 77 skipped (no dpdk-testpmd).

set -u

# shellcheck disable=SC2034 # used by the harness
PMD_DIR=$1
IBVM_DIR=$2
CASES=$3
RANGE=${4:-1-999999}
FIRST=${RANGE%-*}
LAST=${RANGE#*-}
SCENARIO=$(basename "$CASES" .cases)
TESTPMD=${TESTPMD:-/usr/bin/dpdk-testpmd}
DEADLINE_S=${BAD_INPUT_DEADLINE_S:-60}
APP=(-i --total-num-mbufs=8192)

# shellcheck source=../lib/testpmd_harness.sh
. "$(dirname "$0")/../lib/testpmd_harness.sh"
harness_init bad_input

# ---- fixtures ------------------------------------------------------------

# le32 <value>: 4 bytes little endian as printf escapes.
le32() {
	printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 24 & 255))
}

# A capture of 4 UDP/IPv4 frames of 60 bytes to 02:00:00:00:00:0a.
make_pcap() {
	local frame i hdr

	hdr="$(le32 0xa1b2c3d4)\\x02\\x00\\x04\\x00$(le32 0)$(le32 0)$(le32 65535)$(le32 1)"
	frame='\x02\x00\x00\x00\x00\x0a\x02\x00\x00\x00\x00\x01\x08\x00'
	frame+='\x45\x00\x00\x2e\x00\x00\x00\x00\x40\x11\x00\x00'
	frame+='\x0a\x00\x00\x01\xc6\x12\x00\x01\x04\x00\x00\x09\x00\x1a\x00\x00'
	for ((i = 0; i < 18; i++)); do frame+='\x00'; done
	{
		printf '%b' "$hdr"
		for ((i = 0; i < 4; i++)); do
			printf '%b' "$(le32 $i)$(le32 0)$(le32 60)$(le32 60)$frame"
		done
	} >"$1"
}

make_fixtures() {
	mkdir -p "$1/sys/bus/pci/devices" "$1/dir.pcap"
	make_pcap "$1/good.pcap"
	echo "not a capture file, just text that is long enough" >"$1/text.pcap"
	: >"$1/empty.pcap"
	head -c 10 "$1/good.pcap" >"$1/short.pcap"
	mkfifo "$1/fifo.pcap"
}

AFFINITY=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)

# ---- one case ------------------------------------------------------------

trim() {
	local s=$1

	s=${s#"${s%%[![:space:]]*}"}
	printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# out_lines: testpmd's output without the interactive prompts glued to lines,
# and without the prefixes that differ between DPDK releases: 24.11 logs
# ethdev lines as "ETHDEV: ...", 22.11 prints rte_exit's reason as "  Cause: ...".
out_lines() {
	sed -E -e 's/^(testpmd> )+//' -e 's/^(ETHDEV: |  Cause: )//' "$OUT"
}

# seen: the first error-like line of the output, for a failure message.
seen() {
	local l

	l=$(out_lines | grep -a -m 1 -E '^mana(_vs)?: |rror|[Ff]ail|[Ii]nvalid|annot|refused' |
		grep -a -v -E '^[a-z_0-9]+: [0-9]+$')
	printf "'%s'" "${l:-(no error line)}"
}

case_fail() {
	fail "$NAME: expected $1; seen $2 (output: $OUT)"
}

# case_tail: the end of a failed row's output, for a log read elsewhere (CI).
case_tail() {
	echo "---- $NAME: last lines of $OUT"
	tail -n 15 "$OUT" | sed 's/^/  | /'
}

# run_case <name> <args> <commands> <expectations>
run_case() {
	local args=$3 cmds=$4 exp=$5 env=() eal=() app=() lib=() word rc item seenx a
	local want_exit=0 fwd_n='' c i
	local -a words items cmdv xw

	NAME=$1
	CW=$W/c$2
	mkdir -p "$CW"
	make_fixtures "$CW"
	OUT=$CW/out
	args=${args//@W@/$CW}
	cmds=${cmds//@W@/$CW}
	exp=${exp//@W@/$CW}
	exp=${exp//@AFFINITY@/$AFFINITY}
	read -r -a words <<<"$args"
	i=0
	while [ $i -lt ${#words[@]} ] && [[ ${words[$i]} =~ ^[A-Z_][A-Z_0-9]*= ]]; do
		if [ "${words[$i]}" = IBVM=1 ]; then
			lib=(--lib "$IBVM_DIR")
		else
			env+=("${words[$i]}")
		fi
		i=$((i + 1))
	done
	for ((; i < ${#words[@]}; i++)); do
		word=${words[$i]}
		if [ "$word" = "--" ]; then
			app=("${words[@]:$((i + 1))}")
			break
		fi
		eal+=("$word")
	done
	[[ " ${eal[*]} " == *" -a "* ]] || eal=(--no-pci "${eal[@]}")

	rm -f "$W/in"
	for a in "${env[@]}"; do export "${a?}"; done
	testpmd_spawn "${lib[@]}" $((DEADLINE_S + 30)) --file-prefix "bi_${SCENARIO}_$2_$$" \
		"${eal[@]}" -- "${APP[@]}" "${app[@]}"
	for a in "${env[@]}"; do unset "${a%%=*}"; done

	[ "$cmds" = - ] && cmds=
	IFS=';' read -r -a cmdv <<<"$cmds"
	for c in "${cmdv[@]}"; do
		c=$(trim "$c")
		[ -n "$c" ] && cmd "$c"
	done
	items=()
	while [ -n "$exp" ]; do
		items+=("$(trim "${exp%% && *}")")
		[[ $exp == *" && "* ]] && exp=${exp#* && } || exp=
	done
	for item in "${items[@]}"; do
		case $item in
		"fwd "*) fwd_n=${item#fwd } ;;
		"exit "*) want_exit=${item#exit } ;;
		esac
	done
	if [ -n "$fwd_n" ]; then
		cmd "start tx_first"
		if ! wait_xstat rx_good_packets -ge "$fwd_n" >/dev/null; then
			FAILS=$((FAILS - 1))	# (wait_xstat's own line replaced by the case's)
			case_fail "fwd $fwd_n (rx_good_packets >= $fwd_n)" \
				"rx_good_packets '$(xstat rx_good_packets)', $(seen)"
		fi
		cmd "stop"
	fi
	for item in "${items[@]}"; do
		[[ $item == "xstat "* ]] || continue
		read -r -a xw <<<"${item#xstat }"
		if [ ${#xw[@]} -ne 3 ]; then
			case_fail "xstat <name> <op> <value>" "'$item' in $CASES"
		elif ! wait_xstat "${xw[0]}" "${xw[1]}" "${xw[2]}" >/dev/null; then
			FAILS=$((FAILS - 1))
			case_fail "xstat ${xw[*]}" "${xw[0]} '$(xstat "${xw[0]}")', $(seen)"
		fi
	done
	cmd "quit"
	wait "$TP"
	rc=$?
	exec 3>&-
	TP=

	for item in "${items[@]}"; do
		case $item in
		"mana "*)
			item=${item#mana }
			if ! out_lines | sed -E -n 's/^mana: [A-Za-z_0-9]+\(\): //p' |
			     grep -a -q -x -F -e "$item"; then
				case_fail "mana line '$item'" "$(seen)"
			fi ;;
		"line "*)
			item=${item#line }
			if ! out_lines | grep -a -q -x -F -e "$item"; then
				case_fail "line '$item'" "$(seen)"
			fi ;;
		"not "*)
			item=${item#not }
			if out_lines | grep -a -q -F -e "$item"; then
				case_fail "no line holding '$item'" \
					"'$(out_lines | grep -a -m 1 -F -e "$item")'"
			fi ;;
		"fwd "* | "exit "* | "xstat "*) ;;
		*) case_fail "a known expectation" "'$item' in $CASES" ;;
		esac
	done
	seenx=ok
	if [ "$want_exit" = 0 ] && ! grep -a -q "^Bye" "$OUT"; then
		seenx="no 'Bye' (crash, hang or exit), last line '$(tail -n 1 "$OUT")'"
	fi
	if [ "$seenx" != ok ]; then
		case_fail "testpmd to end normally" "$seenx"
	fi
	[ "$want_exit" = 0 ] || [ -z "$rc" ] || [ "$rc" = "$want_exit" ] ||
		case_fail "exit status $want_exit" "$rc"
}

# ---- the table -----------------------------------------------------------

n=0
ran=0
while IFS= read -r line || [ -n "$line" ]; do
	case $(trim "$line") in "" | "#"*) continue ;; esac
	# (rows are numbered as meson.build counts them: every other line)
	n=$((n + 1))
	[ "$n" -ge "$FIRST" ] && [ "$n" -le "$LAST" ] || continue
	ran=$((ran + 1))
	if [[ $line != *" | "*" | "*" | "* ]]; then
		fail "$CASES: row $n is not 'name | args | commands | expectations': $line"
		continue
	fi
	f1=${line%% | *}; rest=${line#* | }
	f2=${rest%% | *}; rest=${rest#* | }
	f3=${rest%% | *}; f4=${rest#* | }
	before=$FAILS
	start_s=$(date +%s)
	run_case "$(trim "$f1")" "$n" "$(trim "$f2")" "$(trim "$f3")" "$(trim "$f4")"
	if [ "$FAILS" -eq "$before" ]; then
		echo "ok: $(trim "$f1") (row $n, $(($(date +%s) - start_s)) s)"
		rm -rf "$CW"
	else
		case_tail
	fi
done <"$CASES"
[ "$ran" -gt 0 ] || fail "$CASES: no case in rows $RANGE (of $n)"
echo "$SCENARIO: rows $FIRST-$((LAST < n ? LAST : n)) of $n, $ran cases"
harness_exit
