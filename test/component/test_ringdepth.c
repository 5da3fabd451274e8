/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Ring depth (user guide section 2, "Ring depth"; hardware.md §2.3): the descriptor
 * limit follows the device's max_qp_wr and the rdma-core provider the
 * software device mirrors (max_qp_wr= and rdma_core= settings):
 *  - limits: 2048 with rdma-core >= 49, 256 below it (said once at probe),
 *    the kernel's value when smaller; 2048 descriptors then refused;
 *  - forward: every datapath this CPU runs with 2048-entry rings and more
 *    than 256 frames in flight each way, over several ring wraps;
 *  - scatter: scattered RX (3 mbufs a frame) with 2048 WQEs posted;
 *  - tso: TSO packets of 1 or 2 segments, more than 256 LSO WQEs a burst.
 * In flight means: frames reach the device's RQ before the first RX burst,
 * which only a ring deeper than 256 allows.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "comp.h"

#define RD_DEEP		2048
#define RD_ROUNDS	5
#define RD_BURST	1500	/* frames per round: past 256, short of 2048 - a refill's lag */
/*
 * Frames per TX burst: past 256 (a shallower TX ring could not take them at
 * once), within the 512 frames a loop wire holds (it drops beyond).
 */
#define RD_CHUNK	384

static const char *const rd_paths[] = { "scalar", "sse", "avx2", "neon" };

/* configure with one queue each way of nb_desc; 0 or the first error. */
static int
rd_setup(uint16_t pid, uint16_t nb_desc, uint16_t mtu, uint64_t rx_off, uint64_t tx_off,
	 struct rte_mempool *mp)
{
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = mtu;
	conf.rxmode.offloads = rx_off;
	conf.txmode.offloads = tx_off;
	ret = rte_eth_dev_configure(pid, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(pid, 0, nb_desc, SOCKET_ID_ANY, NULL, mp);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(pid, 0, nb_desc, SOCKET_ID_ANY, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(pid);
	return ret;
}

/* ---- limits ------------------------------------------------------------- */

struct rd_limit {
	const char *args;
	uint16_t want;
	bool notice;		/* the probe says the provider limits the rings */
};

static void
test_limits(void)
{
	static const struct rd_limit lim[] = {
		{ "max_qp_wr=2048,rdma_core=44", 256, true },	/* Debian 12, kernel >= 6.16 */
		{ "max_qp_wr=2048,rdma_core=48", 256, true },
		{ "max_qp_wr=2048,rdma_core=49", 2048, false },
		{ "max_qp_wr=2048,rdma_core=56", 2048, false },	/* Debian 13 */
		{ "max_qp_wr=256,rdma_core=56", 256, false },	/* kernel 6.2 */
		{ "max_qp_wr=256,rdma_core=44", 256, false },
		{ "max_qp_wr=1000,rdma_core=56", 512, false },	/* a power of two below */
	};
	static const char notice[] = "the device allows 2048 entries per queue, the rdma-core "
				     "provider 256 (rdma-core < 49): rings limited to 256";
	struct rte_eth_dev_info info;
	struct rte_mempool *mp;
	char log[4096], want[160];
	unsigned int i;
	FILE *f;
	int pid;

	mp = comp_pool("rdl_pool", 4 * RD_DEEP, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	for (i = 0; i < RTE_DIM(lim); i++) {
		REQUIRE_EQ(comp_vdev_create_logged("net_mana_rdl", lim[i].args, log, sizeof(log)),
			   0);
		CHECK_MSG((strstr(log, notice) != NULL) == lim[i].notice, "%s: notice %s; log: %s",
			  lim[i].args, lim[i].notice ? "missing" : "unexpected", log);
		pid = comp_port_of("net_mana_rdl", 0);
		REQUIRE(pid >= 0);
		REQUIRE_EQ(rte_eth_dev_info_get(pid, &info), 0);
		CHECK_MSG(info.rx_desc_lim.nb_max == lim[i].want &&
			  info.tx_desc_lim.nb_max == lim[i].want, "%s: nb_max rx %u tx %u, want %u",
			  lim[i].args, info.rx_desc_lim.nb_max, info.tx_desc_lim.nb_max,
			  lim[i].want);
		/* 0 descriptors: 256, the default before deeper rings */
		CHECK_EQ(info.default_rxportconf.ring_size, RTE_MIN(lim[i].want, 256));
		CHECK_EQ(info.default_txportconf.ring_size, RTE_MIN(lim[i].want, 256));
		/* the deepest it offers works; twice that is refused in one line */
		CHECK_MSG(rd_setup((uint16_t)pid, lim[i].want, 1500, 0, 0, mp) == 0,
			  "%s: %u descriptors refused", lim[i].args, lim[i].want);
		CHECK_EQ(rte_eth_dev_stop(pid), 0);
		f = comp_log_begin(log, sizeof(log));
		CHECK_EQ(rte_eth_rx_queue_setup(pid, 0, 2 * lim[i].want, SOCKET_ID_ANY, NULL, mp),
			 -EINVAL);
		CHECK_EQ(rte_eth_tx_queue_setup(pid, 0, 2 * lim[i].want, SOCKET_ID_ANY, NULL),
			 -EINVAL);
		comp_log_end(f);
		snprintf(want, sizeof(want), "nb_rx_desc(=%u), should be: <= %u", 2 * lim[i].want,
			 lim[i].want);
		CHECK_MSG(strstr(log, want) != NULL, "%s: want '%s'; log: %s", lim[i].args, want,
			  log);
		snprintf(want, sizeof(want), "nb_tx_desc(=%u), should be: <= %u", 2 * lim[i].want,
			 lim[i].want);
		CHECK_MSG(strstr(log, want) != NULL, "%s: want '%s'; log: %s", lim[i].args, want,
			  log);
		CHECK_EQ(rte_eth_dev_close(pid), 0);
		comp_vdev_destroy("net_mana_rdl");
	}
	rte_mempool_free(mp);
}

/* ---- traffic through 2048-entry rings -------------------------------------- */

/* Frames the device delivered into the RQ of port 0 so far. */
static uint64_t
rd_rx_frames(const struct mana_model *m)
{
	struct mana_model_port_stats st;

	return mana_model_port_stats(m, 0, &st) == 0 ? st.rx_frames : 0;
}

/*
 * Wait until the device has delivered `want` more frames than `base` into
 * the RQ, with no RX burst in between: the RQ held that many WQEs.
 */
static bool
rd_wait_delivered(const struct mana_model *m, uint64_t base, uint32_t want)
{
	uint64_t t0 = comp_now_ms();

	while (rd_rx_frames(m) - base < want && comp_now_ms() - t0 < COMP_WAIT_MS)
		comp_sleep_ms(1);
	return rd_rx_frames(m) - base >= want;
}

/* Bytes k of frame `seq` of a flow: comp_frame_build's pattern, length varying. */
static uint32_t
rd_frame(uint8_t *buf, uint32_t seq, uint32_t len)
{
	struct comp_frame f;

	comp_frame_default(&f);
	f.seed = (uint8_t)seq;
	f.sport = (uint16_t)(1000 + seq % 4096);
	f.len = len;
	return comp_frame_build(buf, &f);
}

/* Length of frame seq: len, or 64..1514 varying when len is 0. */
static uint32_t
rd_len(uint32_t seq, uint32_t len)
{
	return len != 0 ? len : 64 + seq * 37 % 1451;
}

/* The received chain holds exactly bytes[0..len). */
static bool
rd_same(const struct rte_mbuf *m, const uint8_t *bytes, uint32_t len)
{
	uint32_t off = 0;

	if (m->pkt_len != len)
		return false;
	for (; m != NULL; m = m->next) {
		if (off + m->data_len > len ||
		    memcmp(rte_pktmbuf_mtod(m, const uint8_t *), bytes + off, m->data_len) != 0)
			return false;
		off += m->data_len;
	}
	return off == len;
}

/*
 * RD_ROUNDS rounds of n frames of `len` (0: 64..1514 varying) sent on a
 * loop wire in bursts of RD_CHUNK, each delivered into the RQ before the
 * next, all before any RX burst; then received in order and compared. Returns the
 * frames that came back right; *segs gets the largest nb_segs seen.
 */
static uint32_t
rd_rounds(uint16_t pid, const struct mana_model *m, struct rte_mempool *txp, uint32_t n,
	  uint32_t len, uint16_t *segs, uint32_t *first_burst)
{
	static struct rte_mbuf *tx[RD_BURST], *rx[RD_BURST];
	static uint8_t frame[9100];
	uint32_t r, i, c, k, good = 0, seq = 0, flen, got;
	uint64_t base;

	*segs = 0;
	*first_burst = 0;
	for (r = 0; r < RD_ROUNDS; r++) {
		for (i = 0; i < n; i++) {
			flen = rd_frame(frame, seq + i, rd_len(seq + i, len));
			tx[i] = comp_mbuf_from(txp, frame, flen);
			if (tx[i] == NULL) {
				CHECK_MSG(false, "TX pool empty");
				comp_free(tx, i);
				return good;
			}
		}
		base = rd_rx_frames(m);
		for (i = 0; i < n; i += k) {
			c = RTE_MIN(n - i, (uint32_t)RD_CHUNK);
			k = rte_eth_tx_burst(pid, 0, tx + i, (uint16_t)c);
			if (r == 0 && i == 0)
				*first_burst = k;
			k += comp_tx_all(pid, 0, tx + i + k, (uint16_t)(c - k), COMP_WAIT_MS);
			if (k < c || !rd_wait_delivered(m, base, i + k)) {
				i += k;
				break;
			}
		}
		CHECK_MSG(i == n, "round %u: %u of %u frames sent", r, i, n);
		comp_free(tx + i, n - i);
		CHECK_MSG(rd_wait_delivered(m, base, i), "round %u: %" PRIu64 " of %u frames "
			  "delivered before the first RX burst", r, rd_rx_frames(m) - base, i);
		got = comp_rx_wait(pid, 1, rx, RD_BURST, i, COMP_WAIT_MS, NULL);
		CHECK_MSG(got == i, "round %u: %u of %u frames received", r, got, i);
		for (k = 0; k < got; k++) {
			flen = rd_frame(frame, seq + k, rd_len(seq + k, len));
			good += rd_same(rx[k], frame, flen);
			if (rx[k]->nb_segs > *segs)
				*segs = rx[k]->nb_segs;
		}
		comp_free(rx, got);
		seq += n;
	}
	return good;
}

static void
test_forward(void)
{
	struct rte_mempool *mp, *txp;
	struct rte_eth_rxq_info ri;
	struct rte_eth_txq_info ti;
	struct rte_eth_stats es;
	struct mana_model *m;
	uint32_t good, first;
	char args[96];
	unsigned int p;
	uint16_t segs;
	int pid;

	mp = comp_pool("rdf_pool", 2 * RD_DEEP + 512, RTE_MBUF_DEFAULT_BUF_SIZE);
	/* the TX ring keeps up to 2048 sent mbufs until it needs their room */
	txp = comp_pool("rdf_tx", RD_BURST + RD_DEEP + 64, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL && txp != NULL);
	for (p = 0; p < RTE_DIM(rd_paths); p++) {
		if (!comp_datapath_runs_here(rd_paths[p])) {
			printf("  (datapath %s does not run here)\n", rd_paths[p]);
			continue;
		}
		snprintf(args, sizeof(args), "wire=loop,rdma_core=56,datapath=%s", rd_paths[p]);
		REQUIRE_EQ(comp_vdev_create("net_mana_rdf", args), 0);
		pid = comp_port_of("net_mana_rdf", 0);
		m = mana_model_find("net_mana_rdf");
		REQUIRE(pid >= 0 && m != NULL);
		REQUIRE_EQ(rd_setup((uint16_t)pid, RD_DEEP, 1500, 0, 0, mp), 0);
		REQUIRE_EQ(rte_eth_rx_queue_info_get(pid, 0, &ri), 0);
		REQUIRE_EQ(rte_eth_tx_queue_info_get(pid, 0, &ti), 0);
		CHECK_EQ(ri.nb_desc, RD_DEEP);
		CHECK_EQ(ti.nb_desc, RD_DEEP);
		good = rd_rounds((uint16_t)pid, m, txp, RD_BURST, 0, &segs, &first);
		CHECK_MSG(good == RD_ROUNDS * RD_BURST, "datapath %s: %u of %u frames right",
			  rd_paths[p], good, RD_ROUNDS * RD_BURST);
		CHECK_MSG(first == RD_CHUNK, "datapath %s: the first TX burst took %u of %u",
			  rd_paths[p], first, RD_CHUNK);
		CHECK_EQ(segs, 1);
		CHECK_EQ(rte_eth_stats_get(pid, &es), 0);
		CHECK_EQ(es.ipackets, (uint64_t)RD_ROUNDS * RD_BURST);
		CHECK_EQ(es.opackets, (uint64_t)RD_ROUNDS * RD_BURST);
		CHECK_EQ(es.ierrors + es.oerrors + es.rx_nombuf, 0);
		CHECK_EQ(rte_eth_dev_stop(pid), 0);
		CHECK_EQ(rte_eth_dev_close(pid), 0);
		comp_vdev_destroy("net_mana_rdf");
		CHECK_EQ(rte_mempool_avail_count(mp), 2 * RD_DEEP + 512);
		CHECK_EQ(rte_mempool_avail_count(txp), RD_BURST + RD_DEEP + 64);
	}
	rte_mempool_free(txp);
	rte_mempool_free(mp);
}

/* ---- scattered RX ---------------------------------------------------------- */

#define RD_SC_ROOM	1024	/* data room: a 2500-byte frame takes 3 mbufs */
#define RD_SC_LEN	2500
#define RD_SC_N		1200

static void
test_scatter(void)
{
	struct rte_eth_burst_mode bm;
	struct rte_mempool *mp, *txp;
	struct mana_model *m;
	uint32_t good, first;
	uint16_t segs;
	int pid;

	/* 3 mbufs per WQE posted for all 2048, and a round received */
	mp = comp_pool("rds_pool", 3 * RD_DEEP + 3 * RD_SC_N + 512,
		       RTE_PKTMBUF_HEADROOM + RD_SC_ROOM);
	txp = comp_pool("rds_tx", RD_SC_N + RD_DEEP + 64, RTE_PKTMBUF_HEADROOM + 4096);
	REQUIRE(mp != NULL && txp != NULL);
	REQUIRE_EQ(comp_vdev_create("net_mana_rds", "wire=loop,rdma_core=56"), 0);
	pid = comp_port_of("net_mana_rds", 0);
	m = mana_model_find("net_mana_rds");
	REQUIRE(pid >= 0 && m != NULL);
	REQUIRE_EQ(rd_setup((uint16_t)pid, RD_DEEP, 3000, RTE_ETH_RX_OFFLOAD_SCATTER, 0, mp), 0);
	REQUIRE_EQ(rte_eth_rx_burst_mode_get(pid, 0, &bm), 0);
	CHECK_MSG(strstr(bm.info, "scattered") != NULL, "burst mode '%s'", bm.info);
	good = rd_rounds((uint16_t)pid, m, txp, RD_SC_N, RD_SC_LEN, &segs, &first);
	CHECK_MSG(good == RD_ROUNDS * RD_SC_N, "%u of %u frames right", good,
		  RD_ROUNDS * RD_SC_N);
	CHECK_MSG(first == RD_CHUNK, "the first TX burst took %u of %u", first, RD_CHUNK);
	CHECK_EQ(segs, 3);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_rds");
	CHECK_EQ(rte_mempool_avail_count(mp), 3 * RD_DEEP + 3 * RD_SC_N + 512);
	rte_mempool_free(txp);
	rte_mempool_free(mp);
}

/* ---- TSO --------------------------------------------------------------------- */

#define RD_TSO_N	300	/* packets a burst, 450 segments: past 256 WQEs, within the wire */
#define RD_TSO_BURSTS	4	/* a round: 1200 packets, 1800 segments in the RQ at once */
#define RD_TSO_MSS	1000
#define RD_TSO_HDR	(RTE_ETHER_HDR_LEN + 20 + 20)
#define RD_TSO_SEGS	1800

/* Segments of packet seq: 1 or 2, the last one short by up to 60 bytes. */
static uint32_t
rd_tso_payload(uint32_t seq)
{
	return (1 + seq % 2) * RD_TSO_MSS - seq % 7 * 10;
}

/* The bytes of TCP/IPv4 packet seq, payload seeded by seq; returns its length. */
static uint32_t
rd_tso_frame(uint32_t seq, uint8_t *frame)
{
	struct comp_frame f;

	comp_frame_default(&f);
	f.proto = IPPROTO_TCP;
	f.seed = (uint8_t)(seq * 13);
	f.sport = (uint16_t)(2000 + seq % 1024);
	f.len = RD_TSO_HDR + rd_tso_payload(seq);
	return comp_frame_build(frame, &f);
}

/* Packet seq marked for TSO in segments of RD_TSO_MSS. */
static struct rte_mbuf *
rd_tso_pkt(struct rte_mempool *mp, uint32_t seq, uint8_t *frame)
{
	struct rte_mbuf *m;

	m = comp_mbuf_from(mp, frame, rd_tso_frame(seq, frame));
	if (m == NULL)
		return NULL;
	m->ol_flags |= RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
		       RTE_MBUF_F_TX_TCP_CKSUM;
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = 20;
	m->l4_len = 20;
	m->tso_segsz = RD_TSO_MSS;
	return m;
}

/* Sends packets seq0.. in bursts, each delivered before the next; the segments sent. */
static uint32_t
rd_tso_send(uint16_t pid, const struct mana_model *m, struct rte_mempool *txp, uint32_t seq0,
	    uint32_t *first_burst)
{
	static struct rte_mbuf *tx[RD_TSO_N];
	static uint8_t frame[RD_TSO_HDR + 2 * RD_TSO_MSS];
	uint32_t b, i, k, segs = 0, seq = seq0;
	uint64_t base = rd_rx_frames(m);

	for (b = 0; b < RD_TSO_BURSTS; b++) {
		for (i = 0; i < RD_TSO_N; i++) {
			tx[i] = rd_tso_pkt(txp, seq + i, frame);
			if (tx[i] == NULL) {
				CHECK_MSG(false, "TX pool empty");
				comp_free(tx, i);
				return segs;
			}
		}
		k = rte_eth_tx_prepare(pid, 0, tx, RD_TSO_N);
		if (k != RD_TSO_N) {
			CHECK_MSG(false, "tx_prepare took %u of %u: %s", k, RD_TSO_N,
				  rte_strerror(rte_errno));
			comp_free(tx, RD_TSO_N);
			return segs;
		}
		k = rte_eth_tx_burst(pid, 0, tx, RD_TSO_N);
		if (b == 0)
			*first_burst = k;
		k += comp_tx_all(pid, 0, tx + k, (uint16_t)(RD_TSO_N - k), COMP_WAIT_MS);
		comp_free(tx + k, RD_TSO_N - k);
		for (i = 0; i < k; i++)
			segs += 1 + (seq + i) % 2;
		seq += RD_TSO_N;
		if (k < RD_TSO_N || !rd_wait_delivered(m, base, segs))
			break;
	}
	return segs;
}

static void
test_tso(void)
{
	static struct rte_mbuf *rx[RD_TSO_SEGS];
	static uint8_t frame[RD_TSO_HDR + 2 * RD_TSO_MSS];
	struct mana_model_port_stats st0, st;
	struct rte_mempool *mp, *txp;
	uint32_t r, k, got, segs, seq, seg, plen, want_len, bad = 0, first = 0, f0 = 0;
	const uint32_t per_round = RD_TSO_BURSTS * RD_TSO_N;
	struct mana_model *m;
	uint64_t base;
	int pid;

	mp = comp_pool("rdt_pool", 2 * RD_DEEP + RD_TSO_SEGS, RTE_MBUF_DEFAULT_BUF_SIZE);
	txp = comp_pool("rdt_tx", RD_TSO_N + RD_DEEP + 64, RTE_PKTMBUF_HEADROOM + 4096);
	REQUIRE(mp != NULL && txp != NULL);
	REQUIRE_EQ(comp_vdev_create("net_mana_rdt", "wire=loop,rdma_core=56"), 0);
	pid = comp_port_of("net_mana_rdt", 0);
	m = mana_model_find("net_mana_rdt");
	REQUIRE(pid >= 0 && m != NULL);
	REQUIRE_EQ(rd_setup((uint16_t)pid, RD_DEEP, 1500, 0, RTE_ETH_TX_OFFLOAD_TCP_TSO |
			    RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM, mp), 0);
	REQUIRE_EQ(mana_model_port_stats(m, 0, &st0), 0);
	for (r = 0; r < RD_ROUNDS; r++) {
		base = rd_rx_frames(m);
		segs = rd_tso_send((uint16_t)pid, m, txp, r * per_round, &f0);
		if (r == 0)
			first = f0;
		CHECK_MSG(segs == RD_TSO_SEGS, "round %u: %u of %u segments sent", r, segs,
			  RD_TSO_SEGS);
		CHECK_MSG(rd_wait_delivered(m, base, segs), "round %u: %" PRIu64 " of %u segments "
			  "delivered before the first RX burst", r, rd_rx_frames(m) - base, segs);
		got = comp_rx_wait(pid, 1, rx, RTE_DIM(rx), segs, COMP_WAIT_MS, NULL);
		CHECK_MSG(got == segs, "round %u: %u of %u segments received", r, got, segs);
		/* each segment: its slice of the packet's payload, valid checksums */
		seq = r * per_round;
		seg = 0;
		for (k = 0; k < got; k++) {
			const uint8_t *p = rte_pktmbuf_mtod(rx[k], const uint8_t *);

			rd_tso_frame(seq, frame);
			plen = rd_tso_payload(seq);
			want_len = RTE_MIN(plen - seg * RD_TSO_MSS, (uint32_t)RD_TSO_MSS);
			if (rx[k]->pkt_len != RD_TSO_HDR + want_len || rx[k]->nb_segs != 1 ||
			    !comp_csums_ok(p, rx[k]->data_len) ||
			    memcmp(p + RD_TSO_HDR, frame + RD_TSO_HDR + seg * RD_TSO_MSS,
				   want_len) != 0) {
				if (bad++ < 3)
					CHECK_MSG(false, "round %u packet %u segment %u: len %u "
						  "want %u", r, seq, seg, rx[k]->pkt_len,
						  RD_TSO_HDR + want_len);
			}
			if (++seg * RD_TSO_MSS >= plen) {
				seg = 0;
				seq++;
			}
		}
		comp_free(rx, got);
	}
	CHECK_EQ(bad, 0);
	CHECK_MSG(first == RD_TSO_N, "the first TX burst took %u of %u", first, RD_TSO_N);
	REQUIRE_EQ(mana_model_port_stats(m, 0, &st), 0);
	CHECK_EQ(st.tx_lso_wqes - st0.tx_lso_wqes, (uint64_t)RD_ROUNDS * per_round);
	CHECK_EQ(st.tx_lso_segments - st0.tx_lso_segments, (uint64_t)RD_ROUNDS * RD_TSO_SEGS);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_rdt");
	CHECK_EQ(rte_mempool_avail_count(mp), 2 * RD_DEEP + RD_TSO_SEGS);
	rte_mempool_free(txp);
	rte_mempool_free(mp);
}

static const struct comp_case cases[] = {
	{ "limits", test_limits },
	{ "forward", test_forward },
	{ "scatter", test_scatter },
	{ "tso", test_tso },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
