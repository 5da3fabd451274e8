#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 net_mana authors
#
# The driver's speed, measured side by side with DPDK's net_null, net_ring,
# net_memif and DPDK 22.11's own net/mana, in one run (the machine may be
# shared: compare the ratios of one run, not figures across runs).
#
# usage: bench/run.sh [--short] [--build DIR] [--out DIR]
#   --short   CI mode: fewer configs, shorter runs (< ~2 min); figures are
#             printed and written, nothing fails on timing
#   --build   meson build directory (default /root/build-bench; configured
#             and built when missing)
#   --only S  run only the sections named in S (comma list of: fwd, cg, sizes,
#             bursts, rss, testpmd, l3fwd); the others are left out of the tables
#   --out     results directory (default bench/results, or
#             <build>/bench-results-short with --short)
#
# Writes <out>/raw.txt (every measured line), <out>/results.md (tables,
# targets met / not met) and <out>/chart.png.
# Exit status: 0 when every benchmark ran; 1 when the harness itself failed.

set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
short=0
only=,fwd,cg,sizes,bursts,rss,testpmd,l3fwd,
build=/root/build-bench
out=
while [ $# -gt 0 ]; do
	case $1 in
	--short) short=1 ;;
	--build) build=$2; shift ;;
	--out) out=$2; shift ;;
	--only) only=,$2,; shift ;;
	-h|--help) sed -n '5,22p' "$0"; exit 0 ;;
	*) echo "unknown option $1"; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] || { [ $short = 1 ] && out=$build/bench-results-short || out=$here/results; }

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$src" > /dev/null || exit 1
fi
# Only what is measured: the harness, both drivers, the replacement rdma-core, l3fwd.
targets=
for t in bench/fwd_bench drivers/net/mana/librte_net_mana.so \
	 test/rdma_compat/librte_net_mana_upstream.so test/rdma_compat/libmana_queue_state_preload.so \
	 lib/ibverbs_model/libibverbs.so.1.14.44 lib/ibverbs_model/libmana.so.1.0.44 \
	 examples/dpdk-l3fwd; do
	ninja -C "$build" -t query "$t" > /dev/null 2>&1 && targets="$targets $t"
done
# shellcheck disable=SC2086
ninja -C "$build" $targets > "$build/bench-ninja.log" 2>&1 ||
	{ tail -20 "$build/bench-ninja.log"; exit 1; }

bench=$build/bench/fwd_bench
pmd_dir=$build/drivers/net/mana
up_plugin=$build/test/rdma_compat/librte_net_mana_upstream.so
up_preload=$build/test/rdma_compat/libmana_queue_state_preload.so
ibvm_dir=$build/lib/ibverbs_model
l3fwd=$build/examples/dpdk-l3fwd
testpmd=$(command -v dpdk-testpmd || true)
pmds=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0
ncpu=$(nproc)
work=$build/bench-work
rm -rf "$work"
mkdir -p "$out" "$work"
raw=$out/raw.txt
# A full run starts raw.txt afresh; --only replaces its sections' lines in it.
case $only in ,fwd,cg,sizes,bursts,rss,testpmd,l3fwd,) : > "$raw" ;; *) touch "$raw" ;; esac
purge() { sed -i -E "$1" "$raw"; }
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
	esac
}
prime_of() { case $1 in ring|memif) echo "--prime 256" ;; *) echo "" ;; esac; }

record() {	# tag file: keep the RESULT/MODEL/TASK lines, tagged
	local tag=$1 f=$2
	if ! grep -q '^RESULT' "$f"; then
		echo "FAILED $tag (see $f)"; tail -5 "$f"
		echo "FAILED tag=$tag" >> "$raw"
		fails=$((fails + 1))
		return 1
	fi
	grep -E '^(RESULT|MODEL|TASK|PORT|NOTE)' "$f" | sed "s/^/$tag /" >> "$raw"
	grep -E '^RESULT' "$f" | sed "s/^/  $tag /" | cut -c1-200
}

# Timed io-forward run: tag peer len burst [extra bench options] [flows]
fwd() {
	local tag=$1 peer=$2 len=$3 burst=$4 extra=${5:-} flows=${6:-1}
	local f=$work/$tag.log
	# shellcheck disable=SC2046
	timeout 120 "$bench" $(eal) $(peer_vdevs "$len" "$peer" "$flows") -- \
		--seconds $secs --warmup $warm --burst "$burst" --len "$len" \
		$(prime_of "$peer") --label "$tag" $extra > "$f" 2>&1
	record "fwd $tag peer=$peer len=$len burst=$burst" "$f"
}

# callgrind run with a fixed frame count: instructions of rx+tx burst per packet
cg() {
	local tag=$1 peer=$2 len=$3 burst=$4 extra=${5:-} frames=${6:-$cg_frames}
	local f=$work/cg_$tag.log cgo=$work/cg_$tag.out
	# shellcheck disable=SC2046
	timeout 600 valgrind --tool=callgrind --callgrind-out-file="$cgo" \
		--toggle-collect=bench_rx_burst --toggle-collect=bench_tx_burst \
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
	grep -E '^MODEL' "$f" | sed "s/^/cg $tag /" >> "$raw"
	cp "$dump.self" "$out/callgrind_$tag.txt"
}

# DPDK 22.11's net/mana (the upstream driver) on the model, through the
# replacement libibverbs/libmana, in a private mount namespace whose plugin
# directory holds only what the harness needs (as test/rdma_compat does).
upstream() {	# mode(fwd|cg) tag len burst
	local mode=$1 tag=$2 len=$3 burst=$4 f ns libs bdf=7870:00:00.0 cmd
	f=$work/$tag.log ns=$work/ns_$tag
	mkdir -p "$ns/orig"
	libs="$(ldd "$bench" | awk -v d="$pmds" 'index($3, d) == 1 {print $1}' | tr '\n' ' ')"
	libs="$libs $(ldd "$up_plugin" | awk -v d="$pmds" 'index($3, d) == 1 {print $1}' | tr '\n' ' ')"
	libs="$libs librte_mempool_ring.so.23 librte_bus_pci.so.23 librte_bus_vdev.so.23"
	cmd="$bench -l 0 --no-huge -m 1024 --iova-mode=va --file-prefix=benchup$$ -a $bdf"
	cmd="$cmd --log-level=lib.eal:error -- --burst $burst --len $len --label $tag"
	if [ "$mode" = cg ]; then
		cmd="valgrind --tool=callgrind --callgrind-out-file=$work/cg_$tag.out \
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
cp $up_plugin $pmds/librte_net_mana_upstream.so
umount $ns/orig
export SYSFS_PCI_DEVICES=$ns/sysfs/bus/pci/devices
export LD_LIBRARY_PATH=$ibvm_dir
export LD_PRELOAD=$up_preload
export MANA_MODEL='name=mana_up0,ports=2,cpu=$ecpu,pci=$bdf,sysfs=$ns/sysfs,doorbell=shared,coalesce=0,wire0=gen:len=$len:lossless=1,wire1=gen:len=$len:lossless=1'
timeout 600 $cmd
NS
	unshare -m --propagation private bash "$ns/ns.sh" > "$f" 2>&1
	if [ "$mode" = cg ]; then
		cg_record "$tag" upstream "$len" "$burst" "$f" "$work/cg_$tag.out.1"
	else
		record "fwd $tag peer=upstream len=$len burst=$burst" "$f"
	fi
}

up_ok=0
if [ -f "$up_plugin" ] && [ -f "$ibvm_dir/libibverbs.so.1" ] && [ "$(id -u)" = 0 ] &&
   unshare -m --propagation private true 2>/dev/null; then
	up_ok=1
else
	echo "NOTE upstream=unavailable (needs root, unshare -m and $up_plugin)" >> "$raw"
fi

# testpmd io forwarding with --record-core-cycles: tag peer. Ports without a
# traffic source get 4 bursts first ("start tx_first 4"), once their links are up.
tpmd() {
	local tag=$1 peer=$2 f=$work/testpmd_$1.log cyc pk sleep_first
	[ -n "$testpmd" ] || { echo "NOTE testpmd=absent" >> "$raw"; return; }
	local mode=(--auto-start) feed=(echo)
	case $peer in ring|memif)
		mode=(-i) feed=(printf 'start tx_first 4\n')
		sleep_first=2 ;;
	*) sleep_first=0 ;;
	esac
	# shellcheck disable=SC2046
	{ sleep $sleep_first; [ $sleep_first = 0 ] || "${feed[@]}"; sleep "$tp_secs"
	  if [ $sleep_first = 0 ]; then echo; else echo stop; sleep 0.5; echo quit; fi; } |
		timeout 120 "$testpmd" -l 0,"$ecpu" --main-lcore="$ecpu" \
		--no-huge -m 1024 --no-pci --file-prefix=benchtp$$_$tag --log-level=lib.eal:error \
		$(peer_vdevs 64 "$peer") -- "${mode[@]}" --forward-mode=io --nb-cores=1 --burst=32 \
		--record-core-cycles --txd=256 --rxd=256 > "$f" 2>&1
	cyc=$(grep -o 'CPU cycles/packet=[0-9.]*' "$f" | tail -1 | cut -d= -f2)
	pk=$(grep -o 'total io packets=[0-9]*' "$f" | tail -1 | cut -d= -f2)
	if [ -z "$cyc" ]; then
		echo "FAILED testpmd $tag"; tail -5 "$f"
		echo "FAILED tag=testpmd_$tag" >> "$raw"
		fails=$((fails + 1))
		return
	fi
	echo "TESTPMD tag=$tag peer=$peer cyc_pkt=$cyc pkts=$pk" | tee -a "$raw" | sed 's/^/  /'
}

# l3fwd LPM on the two vPorts: Mpps read from the telemetry socket.
l3fwd_run() {
	local f=$work/l3fwd.log prefix=benchl3$$ pid mpps
	[ -x "$l3fwd" ] || { echo "NOTE l3fwd=absent" >> "$raw"; echo "  l3fwd not built: skipped"; return; }
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
	echo "MACHINE cpu=\"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')\"" \
		"ncpu=$ncpu load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
	echo "VERSIONS dpdk=$(pkg-config --modversion libdpdk)" \
		"gcc=\"$(gcc --version | head -1)\" valgrind=$(valgrind --version)" \
		"buildtype=$(meson introspect --buildoptions "$build" 2>/dev/null |
			python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"][0])' 2>/dev/null)"
	echo "MODE short=$short secs=$secs cg_frames=$cg_frames engine_cpu=$ecpu date=\"$(date -u +%FT%TZ)\""
} > "$raw.meta"
purge '/^(MACHINE|VERSIONS|MODE) /d'
cat "$raw.meta" "$raw" > "$raw.new" && mv "$raw.new" "$raw" && rm -f "$raw.meta"

want() { case $only in *,$1,*) return 0 ;; esac; return 1; }

if want fwd; then
purge '/^(fwd|cg) (null|ring|memif|mana|mana_ff|upstream) /d; /^NOTE upstream/d'
echo "== io-forward, 64 B, burst 32: cycles/packet in rx+tx burst (busy iterations)  [t=${SECONDS}s]"
for p in null ring memif mana; do fwd "$p" "$p" 64 32; done
fwd mana_ff mana 64 32 --fast-free
if [ $up_ok = 1 ]; then upstream fwd upstream 64 32; fi

fi

if want cg; then
purge '/^CG tag=(null|ring|memif|mana|mana_ff|upstream) /d'
echo "== callgrind, $cg_frames frames: instructions/packet of rx+tx burst  [t=${SECONDS}s]"
if [ $short = 1 ]; then cgpeers="null mana"; else cgpeers="null ring memif mana"; fi
for p in $cgpeers; do cg "$p" "$p" 64 32; done
cg mana_ff mana 64 32 --fast-free
[ $up_ok = 1 ] && upstream cg upstream 64 32

fi

if want sizes; then
purge '/^(fwd|cg) [a-z]+_len[0-9]+ /d; /^CG tag=[a-z]+_len/d; /^FAILED tag=(fwd |cg_)[a-z]+_len/d'
echo "== frame sizes (net_mana)  [t=${SECONDS}s]"
if [ $short = 1 ]; then sizes="1514"; else sizes="128 256 512 1024 1514"; fi
for l in $sizes; do fwd "mana_len$l" mana "$l" 32; done
# Our PMD has no scattered RX: 9000-byte frames in one 9.2 KB mbuf (TX single segment).
fwd mana_len9000 mana 9000 32 "--mtu 9000 --mbufs 8191 --mbuf-data 9344"
if [ $short = 0 ]; then
	for p in null ring memif; do fwd "${p}_len1514" "$p" 1514 32; done
	cg mana_len1514 mana 1514 32
	# (fewer frames: the software device copies and checksums 9 KB under valgrind)
	cg mana_len9000 mana 9000 32 "--mtu 9000 --mbufs 8191 --mbuf-data 9344" 2000
fi

fi

if want bursts; then
purge '/^(fwd|cg) [a-z]+_burst[0-9]+ /d; /^CG tag=[a-z]+_burst/d; /^FAILED tag=(fwd |cg_)[a-z]+_burst/d'
echo "== burst sizes (net_mana)  [t=${SECONDS}s]"
if [ $short = 1 ]; then bursts="8"; else bursts="1 4 8 16 64 128"; fi
for b in $bursts; do fwd "mana_burst$b" mana 64 "$b"; done
if [ $short = 0 ]; then
	for b in 8 128; do cg "mana_burst$b" mana 64 "$b"; fwd "null_burst$b" null 64 "$b"; done
fi

fi

if want rss; then
purge '/^rss /d'
echo "== RSS scaling (net_mana, 64 flows)  [t=${SECONDS}s]"
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

if want testpmd; then
	purge '/^TESTPMD /d; /^NOTE testpmd/d' 
	echo "== testpmd io forwarding, --record-core-cycles  [t=${SECONDS}s]"
	if [ $short = 1 ]; then tpeers="null memif mana"; else tpeers="null ring memif mana"; fi
	for p in $tpeers; do tpmd "$p" "$p"; done
fi

if want l3fwd; then
	purge '/^L3FWD /d; /^NOTE l3fwd/d' 
	echo "== l3fwd LPM on net_mana vPorts  [t=${SECONDS}s]"
	l3fwd_run
fi

python3 "$here/report.py" "$raw" "$out" || fails=$((fails + 1))
echo "results: $out/results.md $out/chart.png"
[ $fails = 0 ] || { echo "$fails benchmark(s) failed to run"; exit 1; }
exit 0
