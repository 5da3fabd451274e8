/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The datapaths (doc/design.md, "Datapath"): scalar, SSE4.2 and AVX2 (x86-64)
 * and NEON (arm64) burst functions, chosen by devarg datapath= and EAL's
 * max SIMD bitwidth.
 *  - burst_mode: rte_eth_{rx,tx}_burst_mode_get names the path a port runs;
 *    auto is the widest the CPU has;
 *  - simd_bitwidth: a narrower EAL maximum (rte_vect_set_max_simd_bitwidth)
 *    makes auto and a forced path give way, with a log line;
 *  - bad_value: an unknown path, another CPU family's path or a second
 *    datapath= fails the probe, saying why;
 *  - paths_agree: the same 1600 frames (IPv4/IPv6, TCP/UDP, fragments,
 *    options, VLAN tags, bad checksums, 60..1514 bytes, in runs of one kind
 *    and mixed, so that vector groups form, break and restart) received on
 *    every path, with and without VLAN_STRIP, in burst sizes 1..32: every
 *    mbuf field the RX path writes and every data byte are the same as on
 *    the scalar path, and the frames sent back through each path's TX
 *    (each at another data_off) are the frames received (the loop's second
 *    port).
 * The other datapath tests run once per path (MANA_TEST_DATAPATH, meson).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_vect.h>

#include "comp.h"

#define DP_FRAMES	1600
#define DP_POOL_N	8192

static const char *const dp_paths[] = { "scalar", "sse", "avx2", "neon" };
static const char *const dp_modes[] = { "Scalar", "SSE4.2", "AVX2", "NEON" };
#define DP_SCALAR	0
#define DP_SSE		1
#define DP_NEON		3

/* The datapath values this CPU family takes (mana_devargs.c). */
#if defined(RTE_ARCH_X86_64)
#define DP_ALLOWED	"auto, scalar, sse or avx2"
#elif defined(RTE_ARCH_ARM64)
#define DP_ALLOWED	"auto, scalar or neon"
#else
#define DP_ALLOWED	"auto or scalar"
#endif

/* What the RX path wrote into one mbuf, and its data. */
struct dp_sig {
	uint32_t pkt_len, data_len, nb_segs, packet_type, hash, data_crc;
	uint64_t ol_flags;
	uint16_t vlan_tci, port, refcnt, data_off;
};

static struct dp_sig dp_ref[2][DP_FRAMES];
static uint8_t dp_frame[DP_FRAMES][RTE_ETHER_MAX_LEN];
static uint32_t dp_len[DP_FRAMES];

static struct rte_mempool *
dp_pool(void)
{
	static struct rte_mempool *mp;

	if (mp == NULL)
		mp = comp_pool("dp_pool", DP_POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	return mp;
}

/* The name burst_mode_get gives path dp (an index of dp_paths). */
static bool
dp_mode_is(const char *info, unsigned int dp)
{
	size_t n = strlen(dp_modes[dp]);

	return strncmp(info, dp_modes[dp], n) == 0 && info[n] == ',';
}

static int
dp_start(const char *vdev, const char *args, uint64_t rx_offloads, int *pid)
{
	struct comp_port_cfg pc = {
		.nb_rxq = 1, .nb_txq = 1, .rss = true,
		.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_NONFRAG_IPV4_UDP |
			  RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_TCP | RTE_ETH_RSS_NONFRAG_IPV6_UDP,
		.rx_offloads = rx_offloads,
	};

	if (comp_vdev_create(vdev, args) != 0)
		return -1;
	*pid = comp_port_of(vdev, 0);
	if (*pid < 0 || dp_pool() == NULL)
		return -1;
	return comp_port_start((uint16_t)*pid, &pc, dp_pool());
}

static void
test_burst_mode(void)
{
	struct rte_eth_burst_mode rx, tx;
	unsigned int i, widest = 0;
	char vdev[32], args[64];
	int pid;

	for (i = 0; i < RTE_DIM(dp_paths); i++) {
		if (!comp_datapath_runs_here(dp_paths[i]))
			continue;
		widest = i;
		snprintf(vdev, sizeof(vdev), "net_mana_dpm%u", i);
		snprintf(args, sizeof(args), "wire=loop,datapath=%s", dp_paths[i]);
		REQUIRE_EQ(dp_start(vdev, args, 0, &pid), 0);
		REQUIRE_EQ(rte_eth_rx_burst_mode_get(pid, 0, &rx), 0);
		REQUIRE_EQ(rte_eth_tx_burst_mode_get(pid, 0, &tx), 0);
		CHECK_MSG(dp_mode_is(rx.info, i), "datapath=%s: RX burst mode '%s'", dp_paths[i],
			  rx.info);
		CHECK_MSG(dp_mode_is(tx.info, i), "datapath=%s: TX burst mode '%s'", dp_paths[i],
			  tx.info);
		CHECK_EQ(rte_eth_dev_stop(pid), 0);
		comp_vdev_destroy(vdev);
	}
	/* auto: the widest this CPU runs (EAL's default bitwidth allows 256) */
	REQUIRE_EQ(dp_start("net_mana_dpma", "wire=loop,datapath=auto", 0, &pid), 0);
	REQUIRE_EQ(rte_eth_rx_burst_mode_get(pid, 0, &rx), 0);
	CHECK_MSG(dp_mode_is(rx.info, widest), "auto: RX burst mode '%s', want %s", rx.info,
		  dp_modes[widest]);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_dpma");
}

/*
 * Forced path `path` under EAL bitwidth `bits` gives way to `runs` (an
 * index of dp_paths) with a NOTICE line; at the next start under `then`
 * bits, `then_runs` runs: the path is chosen at every start.
 */
static void
dp_give_way(const char *path, uint16_t bits, unsigned int runs, uint16_t then,
	    unsigned int then_runs)
{
	struct rte_eth_burst_mode rx, tx;
	char log[4096], want[128], args[64];
	FILE *f;
	int pid;

	REQUIRE_EQ(rte_vect_set_max_simd_bitwidth(bits), 0);
	f = comp_log_begin(log, sizeof(log));
	REQUIRE(f != NULL);
	snprintf(args, sizeof(args), "wire=loop,datapath=%s", path);
	REQUIRE_EQ(dp_start("net_mana_dpw", args, 0, &pid), 0);
	comp_log_end(f);
	snprintf(want, sizeof(want), "datapath=%s needs %u-bit SIMD, EAL allows %u: running %s",
		 path, strcmp(path, "avx2") == 0 ? 256u : 128u, bits, dp_paths[runs]);
	CHECK_MSG(strstr(log, want) != NULL, "want '%s'; log: %s", want, log);
	REQUIRE_EQ(rte_eth_rx_burst_mode_get(pid, 0, &rx), 0);
	REQUIRE_EQ(rte_eth_tx_burst_mode_get(pid, 0, &tx), 0);
	CHECK_MSG(dp_mode_is(rx.info, runs) && dp_mode_is(tx.info, runs),
		  "burst modes '%s', '%s'", rx.info, tx.info);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	REQUIRE_EQ(rte_vect_set_max_simd_bitwidth(then), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	REQUIRE_EQ(rte_eth_rx_burst_mode_get(pid, 0, &rx), 0);
	CHECK_MSG(dp_mode_is(rx.info, then_runs), "%u-bit: RX burst mode '%s'", then, rx.info);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_dpw");
}

static void
test_simd_bitwidth(void)
{
	struct rte_eth_burst_mode rx;
	int pid;

	if (comp_datapath_runs_here("avx2")) {
		/* x86-64: AVX2 gives way to SSE4.2 at 128 bits, to scalar at 64 */
		dp_give_way("avx2", RTE_VECT_SIMD_128, DP_SSE, RTE_VECT_SIMD_DISABLED, DP_SCALAR);
	} else if (comp_datapath_runs_here("neon")) {
		/* arm64: NEON gives way to scalar at 64 bits, runs again at 128 */
		dp_give_way("neon", RTE_VECT_SIMD_DISABLED, DP_SCALAR, RTE_VECT_SIMD_128, DP_NEON);
		/* auto at 64 bits: scalar, quietly */
		REQUIRE_EQ(rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_DISABLED), 0);
		REQUIRE_EQ(dp_start("net_mana_dpwa", "wire=loop,datapath=auto", 0, &pid), 0);
		REQUIRE_EQ(rte_eth_rx_burst_mode_get(pid, 0, &rx), 0);
		CHECK_MSG(dp_mode_is(rx.info, DP_SCALAR), "auto, 64-bit: RX burst mode '%s'",
			  rx.info);
		CHECK_EQ(rte_eth_dev_stop(pid), 0);
		comp_vdev_destroy("net_mana_dpwa");
	} else {
		printf("  (no AVX2 or NEON here: nothing to give way)\n");
		return;
	}
	REQUIRE_EQ(rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_256), 0);
}

/* args fail the probe with a log line holding want. */
static void
dp_refused(const char *args, const char *want)
{
	char log[4096];

	CHECK_MSG(comp_vdev_create_logged("net_mana_dpb", args, log, sizeof(log)) != 0,
		  "%s: accepted", args);
	CHECK_MSG(strstr(log, want) != NULL, "%s: want '%s'; log: %s", args, want, log);
}

static void
test_bad_value(void)
{
	char log[4096];

	dp_refused("datapath=sve", "bad value 'sve' for key 'datapath' (allowed: " DP_ALLOWED ")");
	dp_refused("datapath=scalar,datapath=scalar",
		   "for key 'datapath': given twice (allowed: " DP_ALLOWED ")");
	/* another CPU family's path: one line saying so */
#if defined(RTE_ARCH_ARM64)
	dp_refused("datapath=sse", "bad value 'sse' for key 'datapath': SSE4.2 is x86-64 only "
		   "(allowed: " DP_ALLOWED ")");
	dp_refused("datapath=avx2", "bad value 'avx2' for key 'datapath': AVX2 is x86-64 only "
		   "(allowed: " DP_ALLOWED ")");
#else
	dp_refused("datapath=neon", "bad value 'neon' for key 'datapath': NEON is arm64 only "
		   "(allowed: " DP_ALLOWED ")");
#endif
	CHECK(comp_vdev_create_logged("net_mana_dpb", "datapath=AVX2", log, sizeof(log)) != 0);
	CHECK(comp_vdev_create_logged("net_mana_dpb", "datapath=NEON", log, sizeof(log)) != 0);
	CHECK(mana_model_find("net_mana_dpb") == NULL);
}

/* ---- paths_agree ---------------------------------------------------------- */

/* An 802.1Q tag after the MAC addresses of frame i. */
static void
dp_tag(unsigned int i, uint16_t tci)
{
	uint8_t *p = dp_frame[i];

	memmove(p + 16, p + 12, dp_len[i] - 12);
	p[12] = 0x81;
	p[13] = 0x00;
	p[14] = (uint8_t)(tci >> 8);
	p[15] = (uint8_t)tci;
	dp_len[i] += 4;
}

/* Frame i of the fixed sequence: kinds in runs of 1..9, lengths from a fixed PRNG. */
static void
dp_frames_build(void)
{
	uint32_t rnd = 12345, kind = 0, run = 0, l3;
	struct comp_frame f;
	unsigned int i;

	for (i = 0; i < DP_FRAMES; i++) {
		if (run == 0) {
			rnd = rnd * 1103515245u + 12345u;
			kind = (rnd >> 16) % 10;
			/* mostly plain IPv4 (vector groups), in runs of 1..9 */
			if (kind >= 6)
				kind = 0;
			run = 1 + (rnd >> 8) % 9;
		}
		run--;
		rnd = rnd * 1103515245u + 12345u;
		comp_frame_default(&f);
		f.proto = (rnd >> 20) & 1 ? IPPROTO_TCP : IPPROTO_UDP;
		f.sport = (uint16_t)(1000 + (rnd >> 12) % 64);
		f.seed = (uint8_t)i;
		f.len = kind == 0 && (rnd & 3) != 0 ? 64 : 60 + (rnd >> 4) % (1514 - 60 - 4 + 1);
		f.ipv6 = kind == 1;
		f.bad_ip_csum = kind == 4 && (rnd & 1);
		f.bad_l4_csum = kind == 4 && !(rnd & 1);
		if (f.ipv6 && f.len < 80)	/* Ethernet + IPv6 + TCP fits */
			f.len = 80;
		dp_len[i] = comp_frame_build(dp_frame[i], &f);
		l3 = RTE_ETHER_HDR_LEN;
		if (kind == 2)	/* IPv4 fragment: MF set, the L4 header not checked */
			dp_frame[i][l3 + 6] |= 0x20;
		else if (kind == 3)	/* IPv4 IHL 6 (the type only: the header is not re-laid) */
			dp_frame[i][l3] = 0x46;
		else if (kind == 5)	/* tagged, VLAN ID from the run */
			dp_tag(i, (uint16_t)(100 + run));
	}
}

/* FNV-1a over the bytes (byte loads: mbuf data may sit at any alignment). */
static uint32_t
dp_crc(const void *p, uint32_t len)
{
	const uint8_t *b = p;
	uint32_t h = 2166136261u;

	while (len-- != 0)
		h = (h ^ *b++) * 16777619u;
	return h;
}

static void
dp_sig_of(const struct rte_mbuf *m, struct dp_sig *s)
{
	memset(s, 0, sizeof(*s));
	s->pkt_len = m->pkt_len;
	s->data_len = m->data_len;
	s->nb_segs = m->nb_segs;
	s->packet_type = m->packet_type;
	s->hash = m->hash.rss;
	s->ol_flags = m->ol_flags;
	s->vlan_tci = m->vlan_tci;
	s->port = m->port;
	s->refcnt = rte_mbuf_refcnt_read(m);
	s->data_off = m->data_off;
	s->data_crc = dp_crc(rte_pktmbuf_mtod(m, const void *), m->data_len);
}

/*
 * The data of a received mbuf moved k % 7 * 9 bytes towards the buffer's
 * start: the same bytes at another data_off, which differs between the
 * packets of a TX group (each WQE's address is buf_addr + data_off).
 */
static void
dp_shift(struct rte_mbuf *m, uint32_t k)
{
	uint16_t d = (uint16_t)(k % 7 * 9), len = m->data_len;
	char *from = rte_pktmbuf_mtod(m, char *), *to;

	if (d == 0 || rte_pktmbuf_headroom(m) < d)
		return;
	to = rte_pktmbuf_prepend(m, d);
	memmove(to, from, len);
	rte_pktmbuf_trim(m, d);
}

/*
 * One burst of the frames that came back on port back_pid: each, unless its
 * crc_out is 0, must be the bytes sent as frame returned + k; returns how
 * many came.
 */
static uint32_t
dp_back(uint16_t back_pid, const uint32_t *crc_out, uint32_t sent, uint32_t returned, bool *ok)
{
	struct rte_mbuf *back[32];
	uint16_t n, k;

	n = rte_eth_rx_burst(back_pid, 0, back, RTE_DIM(back));
	for (k = 0; k < n; k++)
		if (returned + k >= sent ||
		    (crc_out[returned + k] != 0 &&
		     dp_crc(rte_pktmbuf_mtod(back[k], const void *), back[k]->data_len) !=
		     crc_out[returned + k]))
			*ok = false;
	comp_free(back, n);
	return n;
}

/*
 * Inject every frame into port 0 of vdev (wire none) and receive them in
 * burst sizes cycling through 32, 7, 1, 16, 5, 4, 3; their signatures into
 * sig. Every 8th non-empty burst goes back out through port 1 (pair wire to
 * port 2): port 2 must get exactly the bytes that went out, in order.
 */
static uint32_t
dp_receive(uint16_t pid, uint16_t tx_pid, uint16_t back_pid, struct mana_model *m,
	   struct dp_sig *sig)
{
	static const uint16_t sizes[] = { 32, 7, 1, 16, 5, 4, 3 };
	static uint32_t crc_out[DP_FRAMES];
	uint32_t got = 0, k, j, burst = 0, nonempty = 0, injected = 0, sent = 0, returned = 0;
	struct rte_mbuf *pkts[32];
	struct rte_ether_addr back_mac;
	uint64_t t0 = comp_now_ms();
	bool sent_crc_ok = true;
	uint16_t n;

	if (rte_eth_macaddr_get(back_pid, &back_mac) != 0)
		return 0;
	while (got < DP_FRAMES && comp_now_ms() - t0 < COMP_WAIT_MS) {
		/*
		 * Keep up to 128 frames ahead of the receiver: the RQ holds 256, and
		 * a refill lags by up to 63 WQEs (at least 32 at a time, none past
		 * the ring's end), so that many always find one posted.
		 */
		while (injected < DP_FRAMES && injected - got < 128) {
			if (mana_model_inject_rx(m, 0, dp_frame[injected], dp_len[injected]) != 0)
				break;
			injected++;
		}
		n = rte_eth_rx_burst(pid, 0, pkts, sizes[burst++ % RTE_DIM(sizes)]);
		for (k = 0; k < n && got + k < DP_FRAMES; k++)
			dp_sig_of(pkts[k], &sig[got + k]);
		got += n;
		/*
		 * Every 8th burst back out, addressed to port 2, whose device strips
		 * a tag: only frames without one in their data (crc 0: not compared).
		 */
		if (n != 0 && ++nonempty % 8 == 0) {
			for (k = 0; k < n; k++) {
				dp_shift(pkts[k], k);
				/* a copy: the header may now sit at an odd address */
				memcpy(rte_pktmbuf_mtod_offset(pkts[k], void *,
							       offsetof(struct rte_ether_hdr,
									dst_addr)),
				       &back_mac, sizeof(back_mac));
				crc_out[sent + k] = (pkts[k]->ol_flags & (RTE_MBUF_F_RX_VLAN |
					RTE_MBUF_F_RX_VLAN_STRIPPED)) == RTE_MBUF_F_RX_VLAN ? 0 :
					dp_crc(rte_pktmbuf_mtod(pkts[k], const void *),
					       pkts[k]->data_len);
			}
			j = comp_tx_all(tx_pid, 0, pkts, n, COMP_WAIT_MS);
			sent += j;
			comp_free(pkts + j, n - j);
		} else {
			comp_free(pkts, n);
		}
		/* port 2 drained as it goes: its RQ holds 256, the wire then waits */
		returned += dp_back(back_pid, crc_out, sent, returned, &sent_crc_ok);
	}
	while (returned < sent && comp_now_ms() - t0 < 2 * COMP_WAIT_MS)
		returned += dp_back(back_pid, crc_out, sent, returned, &sent_crc_ok);
	CHECK_MSG(sent > 0 && returned == sent && sent_crc_ok, "sent back %u, returned %u, "
		  "bytes %s", sent, returned, sent_crc_ok ? "equal" : "differ");
	return got;
}

/* Where the frames of a short count went: the device's and the driver's counters. */
static void
dp_rx_why(const struct mana_model *m, uint16_t pid)
{
	struct mana_model_port_stats st;
	struct rte_eth_stats es;

	if (mana_model_port_stats(m, 0, &st) == 0)
		printf("  device port 0: rx_frames %" PRIu64 " drop_no_wqe %" PRIu64
		       " drop_no_rxq %" PRIu64 " drop_sge %" PRIu64 " drop_filter %" PRIu64
		       " drop_runt %" PRIu64 " truncated %" PRIu64 "\n", st.rx_frames,
		       st.rx_drop_no_wqe, st.rx_drop_no_rxq, st.rx_drop_sge, st.rx_drop_filter,
		       st.rx_drop_runt, st.rx_truncated);
	if (rte_eth_stats_get(pid, &es) == 0)
		printf("  driver port %u: ipackets %" PRIu64 " imissed %" PRIu64 " ierrors %"
		       PRIu64 " rx_nombuf %" PRIu64 "\n", pid, es.ipackets, es.imissed,
		       es.ierrors, es.rx_nombuf);
}

static void
test_paths_agree(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	static struct dp_sig sig[DP_FRAMES];
	char vdev[32], args[160];
	unsigned int p, strip, i, diff;
	struct mana_model *m;
	int pid, tx_pid, back_pid;
	uint32_t got;

	dp_frames_build();
	for (p = 0; p < RTE_DIM(dp_paths); p++) {
		if (!comp_datapath_runs_here(dp_paths[p])) {
			printf("  (datapath %s does not run here)\n", dp_paths[p]);
			continue;
		}
		for (strip = 0; strip < 2; strip++) {
			snprintf(vdev, sizeof(vdev), "net_mana_dpa%u%u", p, strip);
			/* port 0 gets the injected frames; 1 -> 2 on a pair wire */
			snprintf(args, sizeof(args), "ports=3,wire=none,wire=pair:2,wire=pair:1,"
				 "mac0=02:00:00:00:00:03,datapath=%s", dp_paths[p]);
			REQUIRE_EQ(dp_start(vdev, args, strip ? RTE_ETH_RX_OFFLOAD_VLAN_STRIP : 0,
					    &pid), 0);
			m = mana_model_find(vdev);
			tx_pid = comp_port_of(vdev, 1);
			back_pid = comp_port_of(vdev, 2);
			REQUIRE(m != NULL && tx_pid >= 0 && back_pid >= 0);
			REQUIRE_EQ(comp_port_start(tx_pid, &pc, dp_pool()), 0);
			REQUIRE_EQ(comp_port_start(back_pid, &pc, dp_pool()), 0);
			got = dp_receive(pid, tx_pid, back_pid, m, p == 0 ? dp_ref[strip] : sig);
			CHECK_MSG(got == DP_FRAMES, "datapath %s strip %u: %u of %u frames",
				  dp_paths[p], strip, got, DP_FRAMES);
			if (got != DP_FRAMES)
				dp_rx_why(m, pid);
			for (i = 0, diff = 0; p != 0 && i < got && diff < 5; i++) {
				/* the port id is the only field allowed to differ (another vdev) */
				sig[i].port = dp_ref[strip][i].port;
				if (memcmp(&sig[i], &dp_ref[strip][i], sizeof(sig[i])) == 0)
					continue;
				diff++;
				CHECK_MSG(false, "datapath %s strip %u frame %u: len %u/%u ol 0x%llx/"
					  "0x%llx ptype 0x%x/0x%x hash 0x%x/0x%x tci %u/%u crc "
					  "0x%x/0x%x (this path/scalar)", dp_paths[p], strip, i,
					  sig[i].pkt_len, dp_ref[strip][i].pkt_len,
					  (unsigned long long)sig[i].ol_flags,
					  (unsigned long long)dp_ref[strip][i].ol_flags,
					  sig[i].packet_type, dp_ref[strip][i].packet_type,
					  sig[i].hash, dp_ref[strip][i].hash, sig[i].vlan_tci,
					  dp_ref[strip][i].vlan_tci, sig[i].data_crc,
					  dp_ref[strip][i].data_crc);
			}
			CHECK_EQ(rte_eth_dev_stop(pid), 0);
			CHECK_EQ(rte_eth_dev_stop(tx_pid), 0);
			CHECK_EQ(rte_eth_dev_stop(back_pid), 0);
			comp_vdev_destroy(vdev);
		}
	}
	/* the sequence exercised what it is for */
	for (i = 0, diff = 0; i < DP_FRAMES; i++)
		diff |= (dp_ref[1][i].ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED ? 1 : 0) |
			(dp_ref[0][i].ol_flags & RTE_MBUF_F_RX_IP_CKSUM_BAD ? 2 : 0) |
			(RTE_ETH_IS_IPV6_HDR(dp_ref[0][i].packet_type) ? 4 : 0) |
			((dp_ref[0][i].packet_type & RTE_PTYPE_L4_MASK) == RTE_PTYPE_L4_FRAG ?
			 8 : 0) |
			((dp_ref[0][i].packet_type & RTE_PTYPE_L3_MASK) == RTE_PTYPE_L3_IPV4_EXT ?
			 16 : 0) |
			(dp_ref[0][i].ol_flags & RTE_MBUF_F_RX_L4_CKSUM_BAD ? 32 : 0);
	CHECK_MSG(diff == 63, "kinds seen: 0x%x of 0x3f", diff);
}

static const struct comp_case cases[] = {
	{ "burst_mode", test_burst_mode },
	{ "simd_bitwidth", test_simd_bitwidth },
	{ "bad_value", test_bad_value },
	{ "paths_agree", test_paths_agree },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
