#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# The driver's speed, measured side by side with DPDK's net_null, net_ring,
# net_memif and the installed DPDK release's own net/mana, in one run (the
# machine may be shared: compare the ratios of one run, not figures across
# runs). Runs on DPDK 22.11 (Debian 12) and 24.11 (Debian 13); every figure
# names the DPDK release it was measured with.
#
# usage: bench/run.sh [--short] [--build DIR] [--out DIR]
#   --short   CI mode: fewer configs, shorter runs (< ~2 min); figures are
#             printed and written, nothing fails on timing
#   --build   meson build directory (default build-bench in the checkout; configured
#             and built when missing)
#   --only S  run only the sections named in S (comma list of: fwd, cg, sizes,
#             bursts, rss, scale, testpmd, l3fwd, doorbell, tso, engine); the
#             others are left out of the tables
#             scale: queues x lcores x engine threads (engine_cpu list; the
#             queues spread over the threads), each lcore and engine thread on
#             a CPU of its own; what needs more CPUs than nproc is NOTMEASURED
#             tso: TSO payload Gbit/s (64 KB sends, MSS 1448, to a sink wire that
#             verifies every segment) and driver instructions per send under
#             callgrind (tx_prepare + tx_burst); 9000-byte forwarding with 2 KB
#             mbufs (scattered RX, multi-segment TX) in Mpps and Gbit/s
#             engine: the software device's own cost per frame at 64, 1514 and
#             9000 B: engine ns/frame (timed run) and the engine thread's
#             instructions/frame under callgrind (SQ processing + wire poll)
#   --out     results directory (default bench/results, or
#             <build>/bench-results-short with --short)
#
# Writes <out>/raw.txt (every measured line, after a PLATFORM line naming the
# DPDK release and the OS), <out>/results.md (tables, targets met / not met)
# and <out>/chart.png. What cannot run here is recorded as NOTMEASURED with
# the reason, and the tables say "not measured: <reason>".
#
# The DPDK release and EAL's plugin directory come from the environment when
# meson test runs this (DPDK_VERSION, DPDK_PMD_DIR: bench/meson.build), else
# from the build's own libdpdk dependency (meson-info), else from pkg-config.
# Exit status: 0 when every benchmark that can run here ran; 1 when one failed
# or the harness itself did.

set -u

# EAL never removes its runtime directories (about 10 MB each): ours go at exit.
bench_runtime_rm() {
	local base=/var/run/dpdk

	[ "$(id -u)" -eq 0 ] || base=${XDG_RUNTIME_DIR:-/tmp}/dpdk
	rm -rf --one-file-system "$base/bench$$"_* "$base/benchup$$" "$base/benchtp$$"_* \
		"$base/benchl3$$" "$base/benchrss$$"_* "$base/benchsc$$"_*
}
trap bench_runtime_rm EXIT
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
short=0
all_sections=,fwd,cg,sizes,bursts,rss,scale,testpmd,l3fwd,doorbell,tso,engine,
only=$all_sections
build=$src/build-bench
out=
while [ $# -gt 0 ]; do
	case $1 in
	--short) short=1 ;;
	--build) build=$2; shift ;;
	--out) out=$2; shift ;;
	--only) only=,$2,; shift ;;
	-h|--help) sed -n '5,42p' "$0"; exit 0 ;;
	*) echo "unknown option $1"; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] || { [ $short = 1 ] && out=$build/bench-results-short || out=$here/results; }

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$src" > /dev/null || exit 1
fi
# Regenerated first, so that meson-info describes the current meson files.
ninja -C "$build" build.ninja > "$build/bench-ninja.log" 2>&1 ||
	{ tail -20 "$build/bench-ninja.log"; exit 1; }
build=$(cd "$build" && pwd)

# From the build's meson-info: the libdpdk it was configured with (version,
# compile flags) and the files of the targets measured here, whatever their
# names (the replacement libibverbs carries the rdma-core version it mimics).
# Prints shell assignments; a target this build has not is left empty.
build_info() {
	python3 - "$build" <<'PY'
import json, os, shlex, sys
info = os.path.join(sys.argv[1], 'meson-info')
def load(name):
    with open(os.path.join(info, name)) as f:
        return json.load(f)
srcdir = load('meson-info.json')['directories']['source']
want = {('bench', 'fwd_bench'): 'bench',
        ('drivers/net/mana', 'rte_net_mana'): 'plugin',
        ('test/system/rdma_compat', 'rte_net_mana_upstream'): 'up_plugin',
        ('test/system/rdma_compat', 'mana_queue_state_preload'): 'up_preload',
        ('lib/ibverbs_model', 'ibverbs'): 'ibvm_lib',
        ('lib/ibverbs_model', 'mana'): 'ibvm_mana',
        ('examples', 'dpdk-l3fwd'): 'l3fwd',
        ('bench', 'doorbell_cost'): 'dbcost'}
vals = {v: '' for v in want.values()}
for t in load('intro-targets.json'):
    d = os.path.relpath(os.path.dirname(t['defined_in']), srcdir)
    if (d, t['name']) in want and t['filename']:
        vals[want[(d, t['name'])]] = t['filename'][0]
vals['b_dpdk_version'] = vals['b_dpdk_cflags'] = ''
for d in load('intro-dependencies.json'):
    if d['name'] == 'libdpdk':
        vals['b_dpdk_version'] = d.get('version') or ''
        vals['b_dpdk_cflags'] = ' '.join(d.get('compile_args') or [])
for k, v in sorted(vals.items()):
    print('%s=%s' % (k, shlex.quote(v)))
PY
}
bench='' plugin='' up_plugin='' up_preload='' ibvm_lib='' ibvm_mana='' l3fwd='' dbcost=''
b_dpdk_version='' b_dpdk_cflags=''
info=$(build_info) || { echo "cannot read $build/meson-info"; exit 1; }
eval "$info"
if [ -z "$bench" ] || [ -z "$plugin" ]; then
	echo "$build has no fwd_bench or net_mana plugin (configured with -Ddriver=false?)"
	exit 1
fi

# The DPDK release and EAL's plugin directory (RTE_EAL_PMD_PATH, pmds-<ABI>).
if [ -z "$b_dpdk_version" ]; then
	b_dpdk_version=$(pkg-config --modversion libdpdk 2>/dev/null)
	b_dpdk_cflags=$(pkg-config --cflags libdpdk 2>/dev/null)
fi
pmd_path_of() {	# compile flags of libdpdk
	# shellcheck disable=SC2086
	printf '#include <rte_config.h>\nRTE_EAL_PMD_PATH\n' |
		"${CC:-cc}" -E -P -x c $1 - 2>/dev/null | tail -1 | tr -d '" '
}
dpdk_version=${DPDK_VERSION:-$b_dpdk_version}
pmds=${DPDK_PMD_DIR:-$(pmd_path_of "$b_dpdk_cflags")}
case $pmds in
/*) ;;
*) echo "cannot find EAL's plugin directory (RTE_EAL_PMD_PATH) of DPDK $dpdk_version"; exit 1 ;;
esac
[ -n "$dpdk_version" ] || { echo "cannot tell the DPDK version of $build"; exit 1; }
# shellcheck disable=SC1091
os=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-$ID $VERSION_ID}")
os=${os:-unknown}
echo "bench: DPDK $dpdk_version on $os (EAL plugins: $pmds), build $build"

# Only what is measured: the harness, both drivers, the replacement rdma-core, l3fwd.
targets=
for t in "$bench" "$plugin" "$up_plugin" "$up_preload" "$ibvm_lib" "$ibvm_mana" "$l3fwd" "$dbcost"; do
	[ -n "$t" ] && targets="$targets ${t#"$build"/}"
done
# shellcheck disable=SC2086
ninja -C "$build" $targets >> "$build/bench-ninja.log" 2>&1 ||
	{ tail -20 "$build/bench-ninja.log"; exit 1; }

pmd_dir=$(dirname "$plugin")
ibvm_dir=${ibvm_lib:+$(dirname "$ibvm_lib")}
testpmd=$(command -v dpdk-testpmd || true)
ncpu=$(nproc)
work=$build/bench-work
rm -rf "$work"
mkdir -p "$out" "$work"
raw=$out/raw.txt
# A full run starts raw.txt afresh; --only replaces its sections' lines in it,
# unless they were measured on another DPDK release (then it starts afresh too).
if [ "$only" = "$all_sections" ]; then : > "$raw"; else touch "$raw"; fi
if [ -s "$raw" ] && ! grep -q "^PLATFORM dpdk=$dpdk_version " "$raw"; then
	echo "$raw is from another DPDK release ($(grep -m1 -o '^PLATFORM dpdk=[^ ]*' "$raw" |
		cut -d= -f2)): starting it afresh"
	: > "$raw"
fi
purge() { sed -i -E "$1" "$raw"; }
# A row that cannot be measured here: section tag reason
not_measured() {
	local section=$1 tag=$2
	shift 2
	echo "NOTMEASURED section=$section tag=$tag reason=\"$(echo "$*" | tr '"' "'")\"" >> "$raw"
	echo "  $tag: not measured: $*"
}
export LD_LIBRARY_PATH=$pmd_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

if [ $short = 1 ]; then
	secs=1 warm=0.3 cg_frames=3000 cg_warm=1000 tp_secs=2
else
	secs=4 warm=1 cg_frames=10000 cg_warm=3000 tp_secs=5
fi
# Forwarding on CPU 0, the model's engine on the last CPU.
ecpu=$((ncpu - 1))
fails=0
seq_id=0

eal() {	# EAL options of one private process
	seq_id=$((seq_id + 1))
	echo "-l 0 --no-huge -m 1024 --no-pci --file-prefix=bench$$_$seq_id --log-level=lib.eal:error"
}

# vdev options of each peer, for frame length $1 and extra wire options $2
peer_vdevs() {	# name len
	local len=$1
	case $2 in
	null) echo "--vdev net_null0,size=$len --vdev net_null1,size=$len" ;;
	ring) echo "--vdev net_ring0 --vdev net_ring1" ;;
	memif) rm -f "$work/memif.sock"
		echo "--vdev net_memif0,role=server,socket=$work/memif.sock" \
		     "--vdev net_memif1,role=client,socket=$work/memif.sock" ;;
	mana) echo "-d librte_net_mana.so --vdev net_mana0,ports=2,engine_cpu=$ecpu,wire=gen:len=$len:flows=${3:-1}:lossless=1,wire=gen:len=$len:flows=${3:-1}:lossless=1" ;;
	# one vPort whose wire is a sink that verifies what it gets (the generator sends one frame)
	mana_sink) echo "-d librte_net_mana.so --vdev net_mana0,engine_cpu=$ecpu,wire=gen:count=1" ;;
	# the same pair on a forced datapath (mana: auto, the widest this CPU has)
	mana_scalar|mana_sse|mana_avx2|mana_neon)
		echo "$(peer_vdevs "$len" mana "${3:-}"),datapath=${2#mana_}" ;;
	esac
}
prime_of() { case $1 in ring|memif) echo "--prime 256" ;; *) echo "" ;; esac; }

record() {	# tag file: keep the RESULT/MODEL/TASK lines, tagged
	local tag=$1 f=$2
	if ! grep -q '^RESULT' "$f"; then
		echo "FAILED $tag (see $f)"; tail -5 "$f"
		echo "FAILED tag=$(echo "$tag" | cut -d' ' -f2) run=\"$tag\"" >> "$raw"
		fails=$((fails + 1))
		return 1
	fi
	grep -E '^(RESULT|MODEL|TASK|PORT|NOTE|TSO)' "$f" | sed "s/^/$tag /" >> "$raw"
	grep -E '^RESULT' "$f" | sed "s/^/  $tag /" | cut -c1-200
}

# Timed io-forward run: tag peer len burst [extra bench options] [flows]
fwd() {
	local tag=$1 peer=$2 len=$3 burst=$4 extra=${5:-} flows=${6:-1}
	local f=$work/$tag.log try rc
	for try in 1 2; do
		# shellcheck disable=SC2046
		timeout 120 "$bench" $(eal) $(peer_vdevs "$len" "$peer" "$flows") -- \
			--seconds $secs --warmup $warm --burst "$burst" --len "$len" \
			$(prime_of "$peer") --label "$tag" $extra > "$f" 2>&1
		rc=$?
		# DPDK 22.11's net_memif, server and client in one process, now and
		# then dies of SIGSEGV while the two connect: run such a reference
		# peer once more (said in the log). A crash of net_mana fails at once.
		case $peer in mana*) break ;; esac
		[ "$rc" -gt 128 ] && [ "$rc" -ne 124 ] && [ "$try" = 1 ] || break
		echo "  fwd $tag: the $peer run died (status $rc); running it once more"
	done
	record "fwd $tag peer=$peer len=$len burst=$burst" "$f"
}

# valgrind runs one thread at a time. Its default lock hands the CPU back to
# whichever thread asks first, and on some hosts (seen on an AMD EPYC VM) the
# polling lcore takes it again and again: the device's engine thread ran 267
# passes in 13 minutes and the run timed out with no packet counted. A fair
# (ticket) lock hands it round in turn; the instruction counts are the same
# code's, only the interleaving changes.
vg_sched=--fair-sched=yes

# callgrind run with a fixed frame count: instructions of rx+tx burst per packet
# (CG_EXTRA_TOGGLE: one more function collected, e.g. bench_tx_prepare)
cg() {
	local tag=$1 peer=$2 len=$3 burst=$4 extra=${5:-} frames=${6:-$cg_frames}
	local f=$work/cg_$tag.log cgo=$work/cg_$tag.out
	# shellcheck disable=SC2046
	timeout 600 valgrind --tool=callgrind $vg_sched --callgrind-out-file="$cgo" \
		--toggle-collect=bench_rx_burst --toggle-collect=bench_tx_burst \
		${CG_EXTRA_TOGGLE:+--toggle-collect=$CG_EXTRA_TOGGLE} \
		"$bench" $(eal) $(peer_vdevs "$len" "$peer") -- --frames "$frames" \
		--warmup-frames $cg_warm --wait-full --burst "$burst" --len "$len" \
		$(prime_of "$peer") --label "$tag" $extra > "$f" 2>&1
	cg_record "$tag" "$peer" "$len" "$burst" "$f" "$cgo.1"
}

cg_record() {	# tag peer len burst log dumpfile
	local tag=$1 f=$5 dump=$6 pkts ir irx itx
	pkts=$(grep -o '^RESULT.* pkts=[0-9]*' "$f" | grep -o 'pkts=[0-9]*$' | cut -d= -f2)
	if [ -z "$pkts" ] || [ ! -f "$dump" ]; then
		echo "FAILED cg $tag (see $f)"; tail -5 "$f"
		echo "FAILED tag=cg_$tag" >> "$raw"
		fails=$((fails + 1))
		return 1
	fi
	callgrind_annotate --inclusive=yes "$dump" > "$dump.incl" 2>/dev/null
	callgrind_annotate --threshold=100 --auto=no "$dump" > "$dump.self" 2>/dev/null
	ir=$(awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}' "$dump.incl")
	irx=$(awk '/fwd_bench.c:bench_rx_burst / {gsub(",", "", $1); print $1; exit}' "$dump.incl")
	itx=$(awk '/fwd_bench.c:bench_tx_burst / {gsub(",", "", $1); print $1; exit}' "$dump.incl")
	echo "CG tag=$tag peer=$2 len=$3 burst=$4 pkts=$pkts ir=$ir ir_rx=${irx:-0} ir_tx=${itx:-0}" |
		tee -a "$raw" | sed 's/^/  /'
	grep -E '^(MODEL|TSO)' "$f" | sed "s/^/cg $tag /" >> "$raw"
	{ echo "# DPDK $dpdk_version, $os: callgrind self cost of $tag (peer=$2 len=$3 burst=$4)"
	  cat "$dump.self"; } > "$out/callgrind_$tag.txt"
}

# callgrind on the device's engine thread, with a fixed frame count: the
# instructions of its per-frame work, SQ processing (mm_tx_process: WQE
# decode, gather, TX offloads, the wire's sink) and the wire's poll (gen_poll:
# frame generation, parse, RSS, checksum verification, RX WQE decode,
# scatter, CQEs), per engine frame of the dump (every frame the device sent
# or delivered). Its polling is in it: empty SQ passes and the offers of a
# frame no RQ could take yet (how many: offers), which vary with how
# valgrind schedules the threads; the per-call costs (callgrind_engine_*.txt)
# do not.
cg_engine() {	# tag len [extra bench options] [frames]
	local tag=$1 len=$2 extra=${3:-} frames=${4:-$cg_frames}
	local f=$work/cge_$tag.log cgo=$work/cge_$tag.out dump fr ir itx irx
	# shellcheck disable=SC2046,SC2086
	timeout 600 valgrind --tool=callgrind $vg_sched --callgrind-out-file="$cgo" \
		--toggle-collect=mm_tx_process --toggle-collect=gen_poll \
		"$bench" $(eal) $(peer_vdevs "$len" mana) -- --frames "$frames" \
		--warmup-frames $cg_warm --wait-full --burst 32 --len "$len" \
		--label "$tag" $extra > "$f" 2>&1
	dump=$cgo.1
	[ -f "$dump" ] && callgrind_annotate --auto=yes --show-percs=no "$dump" > "$dump.calls" 2>/dev/null
	# The frames of the dump itself (the engine runs on while the MODEL
	# counters are read): calls of mm_rx_deliver (RX) and mm_tx_emit (TX),
	# and the lossless wire's offers (mm_port_rx_if_ready; refused ones wait).
	calls_of() {
		awk -v fn="$1" '$2 == "=>" && $3 ~ (":" fn "$") {
			n = $4; gsub(/[(x),]/, "", n); s += n } END { print s + 0 }' "$dump.calls"
	}
	local frx ftx offers
	frx=$(calls_of mm_rx_deliver)
	ftx=$(calls_of mm_tx_emit)
	offers=$(calls_of mm_port_rx_if_ready)
	fr=$((frx + ftx))
	if [ "$fr" = 0 ] || [ ! -f "$dump" ]; then
		echo "FAILED cge $tag (see $f)"; tail -5 "$f"
		echo "FAILED tag=cge_$tag" >> "$raw"
		fails=$((fails + 1))
		return 1
	fi
	callgrind_annotate --inclusive=yes "$dump" > "$dump.incl" 2>/dev/null
	callgrind_annotate --threshold=100 --auto=no "$dump" > "$dump.self" 2>/dev/null
	# the dump's own total (its "summary" counts more than what was collected)
	ir=$(awk '/^totals:/ {print $2; exit}' "$dump")
	itx=$(awk '/:mm_tx_process \[/ {gsub(",", "", $1); print $1; exit}' "$dump.incl")
	irx=$((ir - ${itx:-0}))
	echo "CGE tag=$tag len=$len frames=$fr rx_frames=$frx tx_frames=$ftx offers=$offers" \
		"ir=$ir ir_tx=${itx:-0} ir_rx=${irx:-0}" |
		tee -a "$raw" | sed 's/^/  /'
	grep -E '^MODEL' "$f" | sed "s/^/cge $tag /" >> "$raw"
	{ echo "# DPDK $dpdk_version, $os: callgrind self cost of the engine's frame work," \
		"$tag (len=$len, $fr engine frames)"
	  cat "$dump.self"; } > "$out/callgrind_engine_$tag.txt"
}

# The installed release's own net/mana (the upstream driver, built from its
# DPDK source tree) on the model, through the replacement libibverbs/libmana,
# in a private mount namespace whose plugin directory holds only what the
# harness needs (as test/system/rdma_compat does): EAL loads every plugin of its
# directory, and rdma-core's other providers (libmlx5) do not load on the
# replacement.
#
# Debian 13 ships that driver as a binary too (librte-net-mana25): measured as
# peer "distro", the same way. Its static functions are stripped, but the
# figures need no symbol of the driver: callgrind collects inside the
# harness's own bench_rx_burst/bench_tx_burst (inclusive), and the model's
# engine runs on another thread, which is not collected.
#
# Both run on the shared doorbell page read as memory (doorbell=memory), not
# trapped: a trapped store costs the ringing thread a page fault (about 13 us
# here, bench section "doorbell"), which is the test oracle's price, not the
# driver's; valgrind cannot resume a trapped store anyway. With one queue pair
# per vPort a doorbell lost that way is made good by the queue's next one
# (tails are absolute).
upstream_libs() {	# plugin: the plugins fwd_bench and that driver need, by name
	{ ldd "$bench"; ldd "$1"; } | awk -v d="$pmds" 'index($3, d) == 1 {print $1}'
	printf '%s\n' librte_mempool_ring.so librte_bus_pci.so librte_bus_vdev.so
}

# distro: the binary Debian ships in EAL's plugin directory, librte_net_mana.so.<ABI major>
distro_plugin=$pmds/librte_net_mana.so.${pmds##*/pmds-}
distro_plugin=${distro_plugin%.*}
[ -e "$distro_plugin" ] || distro_plugin=

# The model mirrors a current Azure kernel (max_qp_wr 2048) and the rdma-core
# the build used. Below rdma-core 49 its provider refuses queues over 256
# entries (user guide section 2, "Ring depth"); net_mana offers 256 then, but
# DPDK's own net/mana offers the kernel's 2048 and fails to start at
# fwd_bench's 512. Both drivers run at 256 descriptors there, all rdma-core 44
# allows.
up_ring=
rc_minor=$(pkg-config --modversion libibverbs 2>/dev/null | cut -d. -f3)
if [ -n "$rc_minor" ] && [ "$rc_minor" -lt 49 ] 2>/dev/null; then
	up_ring="--rxd 256 --txd 256"
fi

upstream() {	# mode(fwd|cg) tag len burst [upstream|distro]
	local mode=$1 tag=$2 len=$3 burst=$4 which=${5:-upstream} f ns libs bdf=7870:00:00.0 cmd
	local drv=$up_plugin preload=$up_preload coalesce=0
	if [ "$which" = distro ]; then
		# 24.11 takes coalesced completions and needs no queue-state preload
		drv=$distro_plugin preload= coalesce=1
	fi
	f=$work/$tag.log ns=$work/ns_$tag
	mkdir -p "$ns/orig"
	# a copy first: Debian's binary lives in $pmds, which the namespace covers
	if ! cp -L "$drv" "$ns/peer.so"; then
		echo "FAILED $mode $tag: cannot read $drv"
		echo "FAILED tag=$tag" >> "$raw"
		fails=$((fails + 1))
		return 1
	fi
	libs=$(upstream_libs "$drv" | tr '\n' ' ')
	cmd="$bench -l 0 --no-huge -m 1024 --iova-mode=va --file-prefix=benchup$$ -a $bdf"
	cmd="$cmd --log-level=lib.eal:error -- --burst $burst --len $len --label $tag $up_ring"
	if [ "$mode" = cg ]; then
		cmd="valgrind --tool=callgrind $vg_sched --callgrind-out-file=$work/cg_$tag.out \
			--toggle-collect=bench_rx_burst --toggle-collect=bench_tx_burst $cmd \
			--frames $cg_frames --warmup-frames $cg_warm --wait-full"
	else
		cmd="$cmd --seconds $secs --warmup $warm"
	fi
	cat > "$ns/ns.sh" <<NS
set -e
mount --bind $pmds $ns/orig
mount -t tmpfs -o mode=0755,size=256m bench_pmds $pmds
for l in $libs; do cp -a $ns/orig/\${l%%.so*}.so* $pmds/; done
cp $ns/peer.so $pmds/librte_net_mana_bench_peer.so
umount $ns/orig
export SYSFS_PCI_DEVICES=$ns/sysfs/bus/pci/devices
export LD_LIBRARY_PATH=$ibvm_dir
export LD_PRELOAD=$preload
export MANA_MODEL='name=mana_up0,ports=2,engine_cpu=$ecpu,pci=$bdf,sysfs=$ns/sysfs,doorbell=memory,coalesce=$coalesce,wire0=gen:len=$len:lossless=1,wire1=gen:len=$len:lossless=1'
timeout 600 $cmd
NS
	unshare -m --propagation "$ns_propagation" bash "$ns/ns.sh" > "$f" 2>&1
	if [ "$mode" = cg ]; then
		cg_record "$tag" "$which" "$len" "$burst" "$f" "$work/cg_$tag.out.1"
	else
		record "fwd $tag peer=$which len=$len burst=$burst" "$f"
	fi
}

# The private mount namespace needs "/" to be a mount point (in a chroot,
# bind the root onto itself first, as scripts/debian13-root.sh does).
ns_propagation=
if unshare -m --propagation private true 2>/dev/null; then
	ns_propagation=private
fi

# Why a DPDK driver plugin cannot run on the replacement rdma-core in a
# private namespace here (nothing when it can): what upstream and distro share.
peer_unavailable() {	# plugin
	local lib missing
	[ -n "$ibvm_lib" ] || { echo "the replacement libibverbs is not in this build"; return; }
	[ "$(id -u)" = 0 ] || { echo "needs root (a private mount namespace for EAL's plugins)"; return; }
	[ -n "$ns_propagation" ] ||
		{ echo "unshare -m --propagation private is not permitted here"; return; }
	[ -d "$pmds" ] || { echo "no EAL plugin directory $pmds"; return; }
	# Everything it loads must resolve against the replacement rdma-core.
	for lib in "$bench" "$1" $(upstream_libs "$1" | sed "s|^|$pmds/|"); do
		[ -e "$lib" ] || { echo "no $lib"; return; }
		missing=$(LD_LIBRARY_PATH=$ibvm_dir ldd -r "$lib" 2>&1 |
			grep -m1 -E 'undefined symbol|not found' | sed 's/^[[:space:]]*//')
		if [ -n "$missing" ]; then
			echo "$(basename "$lib") does not load on the replacement libibverbs ($missing)"
			return
		fi
	done
}

# Why DPDK's own net/mana cannot run here (nothing when it can).
upstream_unavailable() {
	if [ -z "$up_plugin" ] || [ -z "$up_preload" ]; then
		echo "DPDK $dpdk_version's net/mana is not in this build (it needs -Dtests=true" \
		     "and drivers/net/mana in the DPDK source tree)"
		return
	fi
	peer_unavailable "$up_plugin"
}
up_why=$(upstream_unavailable)

# Why Debian's own net/mana binary cannot run here (nothing when it can).
distro_unavailable() {
	[ -n "$distro_plugin" ] ||
		{ echo "DPDK $dpdk_version in this OS ships no net/mana binary (Debian 13 does)"; return; }
	peer_unavailable "$distro_plugin"
}
distro_why=$(distro_unavailable)

# testpmd io forwarding with --record-core-cycles and --record-burst-stats: tag
# peer. Ports without a traffic source get 4 bursts first ("start tx_first 4"),
# once their links are up.
# The measured seconds start when testpmd is ready (its mbuf pool alone can
# take seconds on a loaded machine): line-buffered output tells when.
tpmd() {
	local tag=$1 peer=$2 f=$work/testpmd_$1.log inter=0
	[ -n "$testpmd" ] || { not_measured testpmd "$tag" "dpdk-testpmd is not installed"; return; }
	local mode=(--auto-start)
	case $peer in ring|memif) mode=(-i) inter=1 ;; esac
	# (the feeder reads the log testpmd writes: on purpose)
	# shellcheck disable=SC2046,SC2094
	{ if [ $inter = 1 ]; then
		wait_log "$f" 'testpmd> ' 60; sleep 2; printf 'start tx_first 4\n'
	  else
		wait_log "$f" 'Press enter to exit' 60
	  fi
	  sleep "$tp_secs"
	  if [ $inter = 1 ]; then echo stop; sleep 0.5; echo quit; else echo; fi; } |
		timeout 120 stdbuf -oL "$testpmd" -l 0,"$ecpu" --main-lcore="$ecpu" \
		--no-huge -m 1024 --no-pci --file-prefix=benchtp$$_$tag --log-level=lib.eal:error \
		$(peer_vdevs 64 "$peer") -- "${mode[@]}" --forward-mode=io --nb-cores=1 --burst=32 \
		--record-core-cycles --record-burst-stats --txd=256 --rxd=256 > "$f" 2>&1
	tpmd_record "$tag" "$peer" "$f"
}

# RX bursts from testpmd's per-port "Forward statistics" blocks: RX-packets and
# the polls of "RX-bursts : <polls> [...]". io forwarding calls tx_burst once
# for every RX poll that returned packets and for no other (iofwd.c), so the
# TX-bursts totals count the non-empty RX polls exactly (the RX line gives the
# empty share in whole percent only). Prints "<packets> <polls> <non-empty polls>".
tpmd_bursts() {	# log
	awk '/Forward statistics for port/ { inport = 1; next }
	     /Accumulated forward statistics/ { inport = 0 }
	     inport && /RX-packets:/ { rx += $2 }
	     inport && /RX-bursts :/ { polls += $3 }
	     inport && /TX-bursts :/ { busy += $3 }
	     END { if (polls > 0) printf "%.0f %.0f %.0f\n", rx, polls, busy }' "$1"
}

tpmd_record() {	# tag peer log: testpmd's --record-core-cycles and burst figures into raw.txt
	local cyc pk b rx polls busy bstat=
	cyc=$(grep -o 'CPU cycles/packet=[0-9.]*' "$3" | tail -1 | cut -d= -f2)
	pk=$(grep -o 'total io packets=[0-9]*' "$3" | tail -1 | cut -d= -f2)
	if [ -z "$cyc" ]; then
		echo "FAILED testpmd $1"; tail -5 "$3"
		echo "FAILED tag=testpmd_$1" >> "$raw"
		fails=$((fails + 1))
		return
	fi
	b=$(tpmd_bursts "$3")
	if [ -n "$b" ]; then
		read -r rx polls busy <<< "$b"
		bstat=" rx_pkts=$rx rx_polls=$polls rx_busy_polls=$busy"
		bstat="$bstat burst_poll=$(awk -v r="$rx" -v p="$polls" 'BEGIN {printf "%.2f", r / p}')"
		[ "$busy" -gt 0 ] && bstat="$bstat burst_nonempty=$(awk -v r="$rx" -v b="$busy" \
			'BEGIN {printf "%.2f", r / b}')"
	fi
	echo "TESTPMD tag=$1 peer=$2 cyc_pkt=$cyc pkts=$pk$bstat" | tee -a "$raw" | sed 's/^/  /'
}

# The same for Debian's own net/mana (peer distro): Debian's dpdk-testpmd in a
# private mount namespace on the model's PCI function, as upstream() runs it.
tpmd_distro() {
	local tag=distro f=$work/testpmd_distro.log ns=$work/ns_tpmd_distro libs
	local bdf=7870:00:00.0
	[ -n "$testpmd" ] || { not_measured testpmd "$tag" "dpdk-testpmd is not installed"; return; }
	[ -z "$distro_why" ] || { not_measured testpmd "$tag" "$distro_why"; return; }
	mkdir -p "$ns/orig"
	if ! cp -L "$distro_plugin" "$ns/peer.so"; then
		echo "FAILED testpmd $tag: cannot read $distro_plugin"
		echo "FAILED tag=testpmd_$tag" >> "$raw"
		fails=$((fails + 1))
		return
	fi
	libs="$({ ldd "$testpmd"; ldd "$distro_plugin"; } |
		awk -v d="$pmds" 'index($3, d) == 1 {print $1}' | tr '\n' ' ') librte_mempool_ring.so"
	cat > "$ns/ns.sh" <<NS
set -e
mount --bind $pmds $ns/orig
mount -t tmpfs -o mode=0755,size=256m bench_pmds $pmds
for l in $libs; do cp -a $ns/orig/\${l%%.so*}.so* $pmds/; done
cp $ns/peer.so $pmds/librte_net_mana_bench_peer.so
umount $ns/orig
export SYSFS_PCI_DEVICES=$ns/sysfs/bus/pci/devices
export LD_LIBRARY_PATH=$ibvm_dir
export MANA_MODEL='name=mana_up0,ports=2,engine_cpu=$ecpu,pci=$bdf,sysfs=$ns/sysfs,doorbell=memory,coalesce=1,wire0=gen:len=64:lossless=1,wire1=gen:len=64:lossless=1'
timeout 120 stdbuf -oL $testpmd -l 0,$ecpu --main-lcore=$ecpu --no-huge -m 1024 \
	--iova-mode=va --file-prefix=benchtp\$\$_distro -a $bdf --log-level=lib.eal:error -- \
	--auto-start --forward-mode=io --nb-cores=1 --burst=32 --record-core-cycles \
	--record-burst-stats --txd=256 --rxd=256 --no-flush-rx
NS
	# shellcheck disable=SC2094
	{ wait_log "$f" 'Press enter to exit' 60; sleep "$tp_secs"; echo; } |
		unshare -m --propagation "$ns_propagation" bash "$ns/ns.sh" > "$f" 2>&1
	tpmd_record "$tag" distro "$f"
}

wait_log() {	# file pattern seconds: until the pattern shows in the file (1 on time-out)
	local n=0
	until grep -q "$2" "$1" 2>/dev/null; do
		n=$((n + 1))
		[ $n -le $(($3 * 10)) ] || return 1
		sleep 0.1
	done
}

# l3fwd LPM on the two vPorts: Mpps read from the telemetry socket.
l3fwd_run() {
	local f=$work/l3fwd.log prefix=benchl3$$ pid mpps
	if [ -z "$l3fwd" ] || [ ! -x "$l3fwd" ]; then
		not_measured l3fwd l3fwd_lpm "dpdk-l3fwd is not in this build (-Dexamples=false)"
		return
	fi
	# l3fwd's default LPM table: 198.18.0.0/24 -> port 0, 198.18.1.0/24 -> port 1;
	# each vPort's generator addresses the other port. No -P: our PMD has no
	# promiscuous mode (l3fwd exits when enabling it fails).
	local g=gen:len=64:flows=16:lossless=1
	timeout 60 "$l3fwd" -l 0 --no-huge -m 1024 --no-pci --file-prefix=$prefix \
		--log-level=lib.eal:error -d librte_net_mana.so \
		--vdev "net_mana0,ports=2,engine_cpu=$ecpu,wire=$g:dip=198.18.1.1,wire=$g:dip=198.18.0.1" \
		-- -p 0x3 --lookup=lpm --config="(0,0,0),(1,0,0)" > "$f" 2>&1 &
	pid=$!
	mpps=$(python3 "$here/telemetry_rate.py" "/var/run/dpdk/$prefix/dpdk_telemetry.v2" \
		2 "$warm" "$secs" 2>>"$f")
	kill -INT $pid 2>/dev/null
	wait $pid 2>/dev/null
	if [ -z "$mpps" ]; then
		echo "FAILED l3fwd"; tail -5 "$f"
		echo "FAILED tag=l3fwd" >> "$raw"
		fails=$((fails + 1))
		return
	fi
	echo "L3FWD tag=l3fwd_lpm peer=mana $mpps" | tee -a "$raw" | sed 's/^/  /'
}

{
	echo "PLATFORM dpdk=$dpdk_version os=\"$os\" pmd_dir=$pmds"
	echo "MACHINE cpu=\"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')\"" \
		"ncpu=$ncpu load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
	echo "VERSIONS dpdk=$dpdk_version" \
		"gcc=\"$(gcc --version | head -1)\" valgrind=$(valgrind --version)" \
		"buildtype=$(meson introspect --buildoptions "$build" 2>/dev/null |
			python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"][0])' 2>/dev/null)"
	echo "MODE short=$short secs=$secs cg_frames=$cg_frames engine_cpu=$ecpu" \
		"only=${only:1:${#only}-2} date=\"$(date -u +%FT%TZ)\""
} > "$raw.meta"
purge '/^(PLATFORM|MACHINE|VERSIONS|MODE) /d'
cat "$raw.meta" "$raw" > "$raw.new" && mv "$raw.new" "$raw" && rm -f "$raw.meta"

want() { case $only in *,$1,*) return 0 ;; esac; return 1; }

peers_re='(null|ring|memif|mana|mana_ff|mana_scalar|mana_sse|mana_avx2|mana_neon|upstream|distro)'
if want fwd; then
purge "/^fwd $peers_re /d; /^FAILED tag=$peers_re( |\$)/d; /^NOTMEASURED section=fwd /d"
echo "== io-forward, 64 B, burst 32: cycles/packet in rx+tx burst (busy iterations)," \
     "DPDK $dpdk_version  [t=${SECONDS}s]"
for p in null ring memif mana; do fwd "$p" "$p" 64 32; done
fwd mana_ff mana 64 32 --fast-free
if [ -z "$up_why" ]; then upstream fwd upstream 64 32; else not_measured fwd upstream "$up_why"; fi
if [ -z "$distro_why" ]; then
	upstream fwd distro 64 32 distro
else
	not_measured fwd distro "$distro_why"
fi

fi

if want cg; then
purge "/^(CG tag=|cg )$peers_re /d; /^FAILED tag=cg_$peers_re( |\$)/d; /^NOTMEASURED section=cg /d"
echo "== callgrind, $cg_frames frames: instructions/packet of rx+tx burst," \
     "DPDK $dpdk_version  [t=${SECONDS}s]"
if [ $short = 1 ]; then
	cgpeers="null mana"
	for p in ring memif; do not_measured cg "$p" "--short runs callgrind on null and mana only"; done
else
	cgpeers="null ring memif mana"
fi
for p in $cgpeers; do cg "$p" "$p" 64 32; done
cg mana_ff mana 64 32 --fast-free
# each datapath forced (mana above is datapath=auto); one the CPU lacks is not measured
# (the machine first: under qemu-user an arm64 run sees the host's /proc/cpuinfo)
for dp in scalar sse avx2 neon; do
	case $dp in sse) flag=sse4_2 ;; *) flag=$dp ;; esac
	case $dp,$(uname -m) in
	scalar,*) why= ;;
	neon,aarch64) why= ;;
	neon,*) why="neon is arm64 only" ;;
	*,x86_64) why=; grep -q -w "$flag" /proc/cpuinfo || why="this CPU has no $dp" ;;
	*) why="$dp is x86-64 only" ;;
	esac
	if [ -z "$why" ]; then
		cg "mana_$dp" "mana_$dp" 64 32
	else
		not_measured cg "mana_$dp" "$why"
	fi
done
if [ -z "$up_why" ]; then upstream cg upstream 64 32; else not_measured cg upstream "$up_why"; fi
if [ -z "$distro_why" ]; then
	upstream cg distro 64 32 distro
else
	not_measured cg distro "$distro_why"
fi

fi

if want sizes; then
purge '/^(fwd|cg) [a-z]+_len[0-9]+ /d; /^CG tag=[a-z]+_len/d; /^FAILED tag=(cg_)?[a-z]+_len/d'
purge '/^NOTMEASURED section=sizes /d'
echo "== frame sizes (net_mana), DPDK $dpdk_version  [t=${SECONDS}s]"
if [ $short = 1 ]; then
	sizes="1514"
	not_measured sizes sizes_full "--short runs net_mana at 1514 and 9000 B only, without" \
		"callgrind (the full run adds 128 to 1024 B and null, ring, memif at 1514 B)"
else
	sizes="128 256 512 1024 1514"
fi
for l in $sizes; do fwd "mana_len$l" mana "$l" 32; done
# 9000-byte frames in one 9.2 KB mbuf (TX single segment); section tso has them in 2 KB mbufs.
fwd mana_len9000 mana 9000 32 "--mtu 9000 --mbufs 8191 --mbuf-data 9344"
if [ $short = 0 ]; then
	for p in null ring memif; do fwd "${p}_len1514" "$p" 1514 32; done
	cg mana_len1514 mana 1514 32
	# (fewer frames: the software device copies and checksums 9 KB under valgrind)
	cg mana_len9000 mana 9000 32 "--mtu 9000 --mbufs 8191 --mbuf-data 9344" 2000
fi

fi

if want bursts; then
purge '/^(fwd|cg) [a-z]+_burst[0-9]+ /d; /^CG tag=[a-z]+_burst/d; /^FAILED tag=(cg_)?[a-z]+_burst/d'
purge '/^NOTMEASURED section=bursts /d'
echo "== burst sizes (net_mana), DPDK $dpdk_version  [t=${SECONDS}s]"
if [ $short = 1 ]; then
	bursts="8"
	not_measured bursts bursts_full "--short runs burst 8 only, without callgrind (the full" \
		"run adds bursts 1 to 128 and net_null at 8 and 128)"
else
	bursts="1 4 8 16 64 128"
fi
for b in $bursts; do fwd "mana_burst$b" mana 64 "$b"; done
if [ $short = 0 ]; then
	for b in 8 128; do cg "mana_burst$b" mana 64 "$b"; fwd "null_burst$b" null 64 "$b"; done
fi

fi

if want rss; then
purge '/^rss /d; /^FAILED tag=rss_q/d; /^NOTMEASURED section=rss /d'
echo "== RSS scaling (net_mana, 64 flows), DPDK $dpdk_version  [t=${SECONDS}s]"
q=1
while [ $q -le $((ncpu * 2)) ]; do
	lc=$(( q < ncpu ? q : ncpu ))
	f=$work/rss$q.log
	# shellcheck disable=SC2046
	timeout 120 "$bench" -l 0-$((lc - 1)) --no-huge -m 1024 --no-pci --file-prefix=benchrss$$_$q \
		--log-level=lib.eal:error $(peer_vdevs 64 mana 64) -- --queues $q --seconds $secs \
		--warmup $warm --label "rss_q$q" > "$f" 2>&1
	record "rss rss_q$q peer=mana queues=$q lcores=$lc" "$f"
	[ $short = 1 ] && [ $q -ge 2 ] && break
	q=$((q * 2))
done

fi

if want scale; then
purge '/^scale /d; /^FAILED tag=scale_/d; /^NOTMEASURED section=scale /d'
echo "== scaling: queues x lcores x engine threads (net_mana, 2 vPorts, 64 flows)," \
     "$ncpu CPUs, DPDK $dpdk_version  [t=${SECONDS}s]"
# queues:lcores:engine threads. Lcores on CPUs 0..L-1, engine thread i on
# CPU L+i, so nothing shares a CPU. The fwd_bench device has 2 vPorts of
# `queues` queues each; queue k of vPort p is served by engine thread
# (p + k) % threads (doc/user_guide.md "Engine threads"), so up to 2 x queues
# threads share the work.
scale_cfgs="1:1:1 2:1:1 1:1:2 2:2:1 2:2:2 4:2:2 4:4:2 4:4:4 4:4:8 8:8:8"
[ $short = 1 ] && scale_cfgs="1:1:1 2:1:1 1:1:2 2:2:2"
for c in $scale_cfgs; do
	q=${c%%:*} lc=${c#*:} lc=${lc%%:*} et=${c##*:}
	tag=scale_q${q}_l${lc}_e${et}
	if [ $((lc + et)) -gt "$ncpu" ]; then
		not_measured scale "$tag" "needs $((lc + et)) CPUs ($lc lcore(s) + $et engine" \
			"thread(s), each on its own CPU); this machine has $ncpu"
		continue
	fi
	cpus=$lc
	for ((i = 1; i < et; i++)); do cpus="$cpus:$((lc + i))"; done
	f=$work/$tag.log
	g=gen:len=64:flows=64:lossless=1
	# shellcheck disable=SC2046
	timeout 120 "$bench" -l 0-$((lc - 1)) --no-huge -m 1024 --no-pci \
		--file-prefix=benchsc$$_$tag --log-level=lib.eal:error -d librte_net_mana.so \
		--vdev "net_mana0,ports=2,engine_cpu=$cpus,wire=$g,wire=$g" -- --queues "$q" \
		--seconds $secs --warmup $warm --label "$tag" > "$f" 2>&1
	record "scale $tag peer=mana queues=$q lcores=$lc engine_threads=$et ncpu=$ncpu" "$f"
done

fi

if want testpmd; then
	purge '/^TESTPMD /d; /^FAILED tag=testpmd_/d; /^NOTMEASURED section=testpmd /d'
	echo "== testpmd io forwarding, --record-core-cycles --record-burst-stats," \
	     "DPDK $dpdk_version  [t=${SECONDS}s]"
	if [ $short = 1 ]; then
		tpeers="null memif mana"
		not_measured testpmd ring "--short runs testpmd on null, memif and mana only"
	else
		tpeers="null ring memif mana"
	fi
	for p in $tpeers; do tpmd "$p" "$p"; done
	tpmd_distro
fi

if want l3fwd; then
	purge '/^L3FWD /d; /^FAILED tag=l3fwd/d; /^NOTMEASURED section=l3fwd /d'
	echo "== l3fwd LPM on net_mana vPorts, DPDK $dpdk_version  [t=${SECONDS}s]"
	l3fwd_run
fi

if want doorbell; then
	purge '/^DOORBELL /d; /^FAILED tag=doorbell/d; /^NOTMEASURED section=doorbell /d'
	echo "== doorbell cost on the software device: per-queue page vs trapped shared page" \
	     "[t=${SECONDS}s]"
	if [ -z "$dbcost" ]; then
		not_measured doorbell doorbell "this build has no bench/doorbell_cost"
	else
		f=$work/doorbell.log
		n=200000
		[ $short = 1 ] && n=20000
		if "$dbcost" $n > "$f" 2>&1; then
			sed 's/^/  /' "$f"
			o=$(sed -n 's/^doorbell object: \([0-9.]*\) ns.*/\1/p' "$f")
			sh=$(sed -n 's/^doorbell shared: \([0-9.]*\) ns.*/\1/p' "$f")
			fl=$(sed -n 's/^doorbell fault floor: \([0-9.]*\) ns.*/\1/p' "$f")
			echo "DOORBELL stores=$n object_ns=$o shared_ns=$sh fault_floor_ns=${fl:-0}" >> "$raw"
		else
			echo "FAILED doorbell (see $f)"; tail -5 "$f"
			echo "FAILED tag=doorbell" >> "$raw"
			fails=$((fails + 1))
		fi
	fi
fi

if want tso; then
	purge '/^(fwd|cg) mana_(tso|sc9000) /d; /^CG tag=mana_(tso|sc9000) /d'
	purge '/^FAILED tag=(cg_)?mana_(tso|sc9000)/d; /^NOTMEASURED section=tso /d'
	echo "== TSO (64 KB sends, MSS 1448) and 9000 B with 2 KB mbufs (net_mana)," \
	     "DPDK $dpdk_version  [t=${SECONDS}s]"
	fwd mana_tso mana_sink 64 32 "--tso 1448 --send 65160 --mbufs 8191"
	# the sends: what a callgrind run of a few seconds covers (the device
	# segments and checksums 64 KB per send under valgrind too)
	CG_EXTRA_TOGGLE=bench_tx_prepare cg mana_tso mana_sink 64 8 \
		"--tso 1448 --send 65160 --mbufs 8191" $((cg_frames / 20))
	fwd mana_sc9000 mana 9000 32 "--mtu 9000 --mbufs 16383 --mbuf-data 2176"
	if [ $short = 0 ]; then
		cg mana_sc9000 mana 9000 32 "--mtu 9000 --mbufs 16383 --mbuf-data 2176" 2000
	else
		not_measured tso mana_sc9000_cg "--short runs no callgrind on 9000 B frames"
	fi
fi

if want engine; then
	purge '/^(fwd|cge) mana_eng[0-9]+ /d; /^CGE /d; /^FAILED tag=(cge_)?mana_eng/d'
	purge '/^NOTMEASURED section=engine /d'
	echo "== the software device's cost per frame (engine thread), DPDK $dpdk_version" \
	     "[t=${SECONDS}s]"
	for l in 64 1514 9000; do
		x=
		[ $l -gt 1514 ] && x="--mtu 9000 --mbufs 8191 --mbuf-data 9344"
		fwd "mana_eng$l" mana $l 32 "$x"
		if [ $short = 1 ]; then
			continue
		fi
		# (fewer frames at 9000 B: the device copies and checksums 9 KB under valgrind)
		n=$cg_frames
		[ $l -gt 1514 ] && n=2000
		cg_engine "mana_eng$l" $l "$x" $n
	done
	[ $short = 0 ] || not_measured engine cge "--short runs no callgrind on the engine"
fi

python3 "$here/report.py" "$raw" "$out" || fails=$((fails + 1))
echo "results: $out/results.md $out/chart.png"
[ $fails = 0 ] || { echo "$fails benchmark(s) failed to run"; exit 1; }
exit 0
