/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Traffic through ethdev: crafted frames across a pair wire arrive intact in
 * both directions; a counted lossless generator delivers exactly its count
 * with the documented frame format; frames received from a generator and
 * sent back (io forwarding) reach its sink intact, with good checksums; a
 * sender faster than the device gets back-pressure and the wire carries
 * exactly the packets tx_burst accepted; with several engine threads, one
 * per port, pair cables carry both directions at once, every frame once and
 * in order.
 */

#include <string.h>
#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "comp.h"

#define PAIR_N		200
#define GEN_N		5000
#define FWD_N		20000

static void
pair_one_way(uint16_t from, uint16_t to, struct rte_mempool *mp, uint8_t seed)
{
	static uint8_t frames[PAIR_N][1514];
	static struct rte_mbuf *rx[PAIR_N];
	struct rte_mbuf *tx[PAIR_N];
	uint32_t lens[PAIR_N], i, got;
	struct rte_ether_addr mac;
	struct comp_frame f;

	rte_eth_macaddr_get(to, &mac);
	for (i = 0; i < PAIR_N; i++) {
		comp_frame_default(&f);
		f.dst = mac;
		f.proto = i % 3 == 0 ? IPPROTO_TCP : IPPROTO_UDP;
		f.ipv6 = i % 5 == 0;
		f.sport = (uint16_t)(2000 + i);
		/* 60..1514 bytes, every size class, all different. */
		f.len = 60 + (i * 331 + seed) % (1514 - 60 + 1);
		f.seed = (uint8_t)(seed * 31 + i);
		lens[i] = comp_frame_build(frames[i], &f);
		tx[i] = comp_mbuf_from(mp, frames[i], lens[i]);
		REQUIRE(tx[i] != NULL);
	}
	REQUIRE_EQ(comp_tx_all(from, 0, tx, PAIR_N, COMP_WAIT_MS), PAIR_N);
	got = comp_rx_wait(to, 1, rx, PAIR_N, PAIR_N, COMP_WAIT_MS, NULL);
	CHECK_EQ(got, PAIR_N);
	/* One queue, one cable: order is kept, so frame i is the i-th sent. */
	for (i = 0; i < got; i++) {
		CHECK_MSG(rx[i]->pkt_len == lens[i] && rx[i]->data_len == lens[i],
			  "frame %u: %u bytes received, %u sent", i, rx[i]->pkt_len, lens[i]);
		CHECK_MSG(rx[i]->pkt_len != lens[i] ||
			  memcmp(rte_pktmbuf_mtod(rx[i], void *), frames[i], lens[i]) == 0,
			  "frame %u: payload differs", i);
		CHECK_EQ(rx[i]->nb_segs, 1);
		CHECK_EQ(rx[i]->port, to);
		if (check_fails)
			break;
	}
	comp_free(rx, got);
}

static void
test_pair_payload(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct mana_model_port_stats s0, s1;
	struct rte_mempool *mp;
	int p0, p1;

	REQUIRE_EQ(comp_vdev_create("net_mana_pair", "ports=2,wire=pair:1,wire=pair:0"), 0);
	p0 = comp_port_of("net_mana_pair", 0);
	p1 = comp_port_of("net_mana_pair", 1);
	REQUIRE(p0 >= 0 && p1 >= 0);
	mp = comp_pool("pair_pool", 2048, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(p0, &pc, mp), 0);
	REQUIRE_EQ(comp_port_start(p1, &pc, mp), 0);
	pair_one_way(p0, p1, mp, 1);
	pair_one_way(p1, p0, mp, 2);
	REQUIRE(comp_model_stats("net_mana_pair", 0, &s0));
	REQUIRE(comp_model_stats("net_mana_pair", 1, &s1));
	CHECK_EQ(s0.tx_frames, PAIR_N);
	CHECK_EQ(s1.rx_frames, PAIR_N);
	CHECK_EQ(s1.tx_frames, PAIR_N);
	CHECK_EQ(s0.rx_frames, PAIR_N);
	CHECK_EQ(s0.tx_bytes, s1.rx_bytes);
	CHECK_EQ(s0.rx_drop_no_wqe + s1.rx_drop_no_wqe, 0);
	CHECK_EQ(rte_eth_dev_stop(p0), 0);
	CHECK_EQ(rte_eth_dev_stop(p1), 0);
	comp_vdev_destroy("net_mana_pair");
	CHECK_EQ(rte_mempool_avail_count(mp), 2048);
	rte_mempool_free(mp);
}

/* A generator frame of flow `flow` (seed 0) addressed to `mac`. */
static void
check_gen_frame(const struct rte_mbuf *m, const struct rte_ether_addr *mac, uint32_t len)
{
	static const struct rte_ether_addr gen_src = {{ 0x02, 0, 0, 0, 0, 0x01 }};
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);
	uint32_t src = rte_be_to_cpu_32(ip->src_addr);

	CHECK_EQ(m->pkt_len, len);
	CHECK(rte_is_same_ether_addr(&eth->dst_addr, mac));
	CHECK(rte_is_same_ether_addr(&eth->src_addr, &gen_src));
	CHECK_EQ(rte_be_to_cpu_16(eth->ether_type), RTE_ETHER_TYPE_IPV4);
	CHECK_EQ(ip->next_proto_id, IPPROTO_UDP);
	CHECK_EQ(rte_be_to_cpu_32(ip->dst_addr), COMP_IPV4(198, 18, 0, 1));
	CHECK_MSG((src >> 8) == 0x0A0000 && (src & 0xFF) >= 1 && (src & 0xFF) <= 16,
		  "source %08x is not 10.0.0.1..16", src);
	CHECK_EQ(rte_be_to_cpu_16(udp->dst_port), 9);
	CHECK(comp_csums_ok(rte_pktmbuf_mtod(m, const uint8_t *), m->pkt_len));
	CHECK((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD);
	CHECK((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	CHECK_EQ(m->packet_type & (RTE_PTYPE_L3_MASK | RTE_PTYPE_L4_MASK),
		 RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP);
}

static void
test_gen_count(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct mana_model_port_stats st;
	static struct rte_mbuf *rx[64];
	struct rte_ether_addr mac;
	struct rte_mempool *mp;
	struct rte_eth_stats es;
	uint32_t got, i;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_gen",
				    "wire=gen:flows=16:len=200:count=5000:lossless=1"), 0);
	pid = comp_port_of("net_mana_gen", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("gen_pool", 1024, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	rte_eth_macaddr_get(pid, &mac);
	/* Lossless: nothing is generated while no RX buffer is posted. */
	comp_sleep_ms(50);
	REQUIRE(comp_model_stats("net_mana_gen", 0, &st));
	CHECK_EQ(st.wire_gen_frames, 0);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	got = comp_rx_wait(pid, 1, rx, RTE_DIM(rx), 64, COMP_WAIT_MS, NULL);
	CHECK_EQ(got, 64);
	for (i = 0; i < got; i++)
		check_gen_frame(rx[i], &mac, 200);
	comp_free(rx, got);
	got += comp_rx_wait(pid, 1, NULL, 0, GEN_N - got, COMP_WAIT_MS, NULL);
	CHECK_EQ(got, GEN_N);
	/* And not one more. */
	CHECK_EQ(comp_rx_drain(pid, 1, 100), 0);
	REQUIRE(comp_model_stats("net_mana_gen", 0, &st));
	CHECK_EQ(st.wire_gen_frames, GEN_N);
	CHECK_EQ(st.rx_frames, GEN_N);
	CHECK_EQ(st.rx_bytes, GEN_N * 200ull);
	CHECK_EQ(st.rx_drop_no_wqe, 0);
	CHECK_EQ(rte_eth_stats_get(pid, &es), 0);
	CHECK_EQ(es.ipackets, GEN_N);
	CHECK_EQ(es.ibytes, GEN_N * 200ull);
	CHECK_EQ(es.ierrors, 0);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_gen");
	CHECK_EQ(rte_mempool_avail_count(mp), 1024);
	rte_mempool_free(mp);
}

/* io forwarding: every received burst goes back out of the same port. */
static void
fwd_run(uint16_t pid, uint16_t nq, uint32_t want, uint32_t *rx_n, uint32_t *tx_n)
{
	uint64_t end = comp_now_ms() + 3 * COMP_WAIT_MS;
	struct rte_mbuf *b[32];
	uint16_t q, n, sent;

	*rx_n = 0;
	*tx_n = 0;
	while (*rx_n < want && comp_now_ms() < end) {
		for (q = 0; q < nq; q++) {
			n = rte_eth_rx_burst(pid, q, b, RTE_DIM(b));
			*rx_n += n;
			sent = comp_tx_all(pid, q, b, n, COMP_WAIT_MS);
			*tx_n += sent;
			rte_pktmbuf_free_bulk(b + sent, n - sent);
		}
	}
}

/*
 * 20000 frames forwarded over 2 RSS queues; tx_errors of them (the first
 * ones) completed by the device with error CQE 34 instead of being sent.
 */
static void
io_forward(const char *devargs, uint32_t tx_errors)
{
	struct comp_port_cfg pc = { .nb_rxq = 2, .nb_txq = 2, .rss = true,
				    .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP };
	const uint64_t ok = FWD_N - tx_errors;
	struct mana_model_port_stats st;
	struct comp_qstats qs;
	struct rte_eth_stats es;
	struct rte_mempool *mp;
	uint32_t rx_n, tx_n;
	uint64_t end;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_fwd", devargs), 0);
	pid = comp_port_of("net_mana_fwd", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("fwd_pool", 2048, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	if (tx_errors != 0)
		REQUIRE_EQ(mana_model_inject_tx_error(mana_model_find("net_mana_fwd"), 0, 34,
						       tx_errors), 0);
	fwd_run(pid, 2, FWD_N, &rx_n, &tx_n);
	CHECK_EQ(rx_n, FWD_N);
	CHECK_EQ(tx_n, FWD_N);
	/* Wait for the device to put the last ones on the wire. */
	end = comp_now_ms() + COMP_WAIT_MS;
	do {
		rte_eth_tx_done_cleanup(pid, 0, 0);
		rte_eth_tx_done_cleanup(pid, 1, 0);
		REQUIRE(comp_model_stats("net_mana_fwd", 0, &st));
		CHECK_EQ(rte_eth_stats_get(pid, &es), 0);
		if (st.wire_sink_frames == ok && es.oerrors == tx_errors)
			break;
		comp_sleep_ms(2);
	} while (comp_now_ms() < end);
	CHECK_EQ(st.wire_sink_frames, ok);
	CHECK_EQ(st.wire_sink_bytes, ok * 300);
	CHECK_EQ(st.wire_sink_bad, 0);
	CHECK_EQ(st.wire_sink_csum_ok, ok);
	CHECK_EQ(st.tx_frames, ok);
	CHECK_EQ(st.tx_err[34 - 32], tx_errors);
	CHECK_EQ(es.opackets, ok);
	CHECK_EQ(es.obytes, ok * 300);
	CHECK_EQ(es.oerrors, tx_errors);
	CHECK_EQ(es.ipackets, FWD_N);
	/* Both queues carried traffic (64 flows spread by RSS). */
	CHECK_EQ(comp_qstats_get(pid, &qs), 0);
	CHECK(qs.ipackets[0] > 0 && qs.ipackets[1] > 0);
	CHECK_EQ(qs.ipackets[0] + qs.ipackets[1], FWD_N);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_fwd");
	CHECK_EQ(rte_mempool_avail_count(mp), 2048);
	rte_mempool_free(mp);
}

static void
test_io_forward(void)
{
	io_forward("wire=gen:flows=64:len=300:count=20000:lossless=1", 0);
}

/* One TX completion per packet (tx_cqe_suppress=0), error completions among them. */
static void
test_io_forward_cqe_each(void)
{
	io_forward("wire=gen:flows=64:len=300:count=20000:lossless=1,tx_cqe_suppress=0", 7);
}

/* The same errors with one completion per burst: matched by their WQE offset. */
static void
test_io_forward_tx_errors(void)
{
	io_forward("wire=gen:flows=64:len=300:count=20000:lossless=1", 7);
}

/*
 * TX faster than the device drains it (a txonly loop): tx_burst takes only
 * what fits and the caller frees the rest. The wire must carry exactly the
 * packets tx_burst accepted, no more (a WQE posted but not reported as
 * taken would be sent after its mbuf was freed), and all of them.
 */
static void
test_tx_overrun(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct mana_model_port_stats st;
	struct rte_mbuf *b[32];
	struct rte_eth_stats es;
	struct rte_mempool *mp;
	uint64_t accepted = 0, refused = 0, end;
	uint8_t buf[64];
	struct comp_frame f;
	uint16_t i, n;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_txo", "wire=none"), 0);
	pid = comp_port_of("net_mana_txo", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("txo_pool", 2048, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	comp_frame_default(&f);
	f.len = 64;
	comp_frame_build(buf, &f);
	end = comp_now_ms() + 300;
	while (comp_now_ms() < end || refused == 0) {
		for (i = 0; i < RTE_DIM(b); i++) {
			b[i] = comp_mbuf_from(mp, buf, f.len);
			REQUIRE(b[i] != NULL);
		}
		n = rte_eth_tx_burst(pid, 0, b, RTE_DIM(b));
		accepted += n;
		refused += RTE_DIM(b) - n;
		rte_pktmbuf_free_bulk(b + n, RTE_DIM(b) - n);
		if (comp_now_ms() > end + COMP_WAIT_MS)
			break;
	}
	CHECK(refused > 0);
	end = comp_now_ms() + COMP_WAIT_MS;
	do {
		rte_eth_tx_done_cleanup(pid, 0, 0);
		REQUIRE(comp_model_stats("net_mana_txo", 0, &st));
		CHECK_EQ(rte_eth_stats_get(pid, &es), 0);
		if (es.opackets == accepted && st.wire_sink_frames >= accepted)
			break;
		comp_sleep_ms(2);
	} while (comp_now_ms() < end);
	comp_sleep_ms(50);
	REQUIRE(comp_model_stats("net_mana_txo", 0, &st));
	CHECK_EQ(st.wire_sink_frames, accepted);
	CHECK_EQ(st.tx_frames, accepted);
	CHECK_EQ(es.opackets, accepted);
	CHECK_EQ(es.obytes, accepted * 64);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_txo");
	CHECK_EQ(rte_mempool_avail_count(mp), 2048);
	rte_mempool_free(mp);
}

/*
 * TX returns every sent mbuf the way it came: runs of plain mbufs of one pool
 * go back in bulk, but a burst mixing two pools and mbufs still referenced
 * elsewhere (refcnt 2) must put each into its own pool and only drop the
 * extra reference of the others.
 */
static void
test_tx_free_mixed(void)
{
	enum { ROUNDS = 24, BURST = 32, NA = 2048, NB = 512 };
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct rte_mbuf *tx[BURST], *rx[BURST], *held[ROUNDS * BURST];
	static uint8_t frame[128];
	struct rte_mempool *mpa, *mpb;
	uint32_t r, i, got, nheld = 0, len;
	struct rte_ether_addr mac;
	struct comp_frame f;
	int p0, p1;

	REQUIRE_EQ(comp_vdev_create("net_mana_mix", "ports=2,wire=pair:1,wire=pair:0"), 0);
	p0 = comp_port_of("net_mana_mix", 0);
	p1 = comp_port_of("net_mana_mix", 1);
	REQUIRE(p0 >= 0 && p1 >= 0);
	mpa = comp_pool("mix_a", NA, RTE_MBUF_DEFAULT_BUF_SIZE);
	mpb = comp_pool("mix_b", NB, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mpa != NULL && mpb != NULL);
	REQUIRE_EQ(comp_port_start(p0, &pc, mpa), 0);
	REQUIRE_EQ(comp_port_start(p1, &pc, mpa), 0);
	rte_eth_macaddr_get(p1, &mac);
	comp_frame_default(&f);
	f.dst = mac;
	f.len = 100;
	len = comp_frame_build(frame, &f);
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < BURST; i++) {
			/* Runs of pool A, a pool-B mbuf every 7th, refcnt 2 every 5th (rotating). */
			tx[i] = comp_mbuf_from((i + r) % 7 == 3 ? mpb : mpa, frame, len);
			REQUIRE(tx[i] != NULL);
			if ((i + 2 * r) % 5 == 1) {
				rte_mbuf_refcnt_update(tx[i], 1);
				held[nheld++] = tx[i];
			}
		}
		REQUIRE_EQ(comp_tx_all(p0, 0, tx, BURST, COMP_WAIT_MS), BURST);
		got = comp_rx_wait(p1, 1, rx, BURST, BURST, COMP_WAIT_MS, NULL);
		CHECK_EQ(got, BURST);
		comp_free(rx, got);
	}
	/* The stop retires every completion. */
	CHECK_EQ(rte_eth_dev_stop(p0), 0);
	CHECK_EQ(rte_eth_dev_stop(p1), 0);
	for (i = 0; i < nheld; i++) {
		CHECK_MSG(rte_mbuf_refcnt_read(held[i]) == 1, "held mbuf %u: refcnt %u after TX",
			  i, rte_mbuf_refcnt_read(held[i]));
		rte_pktmbuf_free(held[i]);
	}
	comp_vdev_destroy("net_mana_mix");
	CHECK_EQ(rte_mempool_avail_count(mpa), NA);
	CHECK_EQ(rte_mempool_avail_count(mpb), NB);
	rte_mempool_free(mpa);
	rte_mempool_free(mpb);
}

#define THR_WIN		64	/* frames in flight per direction */
#define THR_ROUNDS	40

/* The UDP source port of an IPv4 frame: the sequence number of test_pair_threads. */
static uint16_t
thr_seq(const struct rte_mbuf *m)
{
	const struct rte_udp_hdr *udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *,
		sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr));

	return rte_be_to_cpu_16(udp->src_port);
}

/*
 * Engine threads (doc/user_guide.md "Engine threads"): ports cabled in pairs
 * (0-1, 2-3...), engine_threads one per port, so every cable joins two
 * threads. Each port sends THR_WIN frames to its peer, then all are
 * received, THR_ROUNDS times: every port's engine works at once, and each
 * direction delivers every frame exactly once, in order.
 */
static void
pair_threads(unsigned int nports)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct mana_model_engine_stats es;
	static uint8_t frame[256];
	struct rte_mbuf *b[THR_WIN];
	struct rte_mempool *mp;
	uint16_t next[8] = { 0 };
	char args[160], name[32];
	int pid[8];
	unsigned int i, r, k;
	struct mana_model *m;
	size_t off;

	snprintf(name, sizeof(name), "net_mana_thr%u", nports);
	off = (size_t)snprintf(args, sizeof(args), "ports=%u,engine_threads=%u", nports, nports);
	for (i = 0; i < nports; i++)
		off += (size_t)snprintf(args + off, sizeof(args) - off, ",wire=pair:%u", i ^ 1u);
	REQUIRE_EQ(comp_vdev_create(name, args), 0);
	m = mana_model_find(name);
	REQUIRE(m != NULL);
	REQUIRE_EQ(mana_model_engine_stats(m, &es), 0);
	CHECK_EQ(es.threads, nports);
	mp = comp_pool("thr_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	for (i = 0; i < nports; i++) {
		pid[i] = comp_port_of(name, i);
		REQUIRE(pid[i] >= 0);
		REQUIRE_EQ(comp_port_start(pid[i], &pc, mp), 0);
	}
	for (r = 0; r < THR_ROUNDS && !check_fails; r++) {
		for (i = 0; i < nports; i++) {
			struct rte_ether_addr mac;
			struct comp_frame f;

			rte_eth_macaddr_get(pid[i ^ 1u], &mac);
			comp_frame_default(&f);
			f.dst = mac;
			f.len = 64 + (r * 37 + i * 11) % 160;
			for (k = 0; k < THR_WIN; k++) {
				f.sport = (uint16_t)(r * THR_WIN + k);
				f.seed = (uint8_t)(i * 16 + k);
				b[k] = comp_mbuf_from(mp, frame, comp_frame_build(frame, &f));
				REQUIRE(b[k] != NULL);
			}
			REQUIRE_EQ(comp_tx_all(pid[i], 0, b, THR_WIN, COMP_WAIT_MS), THR_WIN);
		}
		for (i = 0; i < nports; i++) {
			uint32_t got = comp_rx_wait(pid[i], 1, b, THR_WIN, THR_WIN, COMP_WAIT_MS,
						    NULL);

			CHECK_MSG(got == THR_WIN, "port %u round %u: %u of %u frames", i, r, got,
				  THR_WIN);
			for (k = 0; k < got; k++) {
				CHECK_MSG(thr_seq(b[k]) == next[i], "port %u: frame %u after %u",
					  i, thr_seq(b[k]), next[i] - 1u);
				next[i] = (uint16_t)(thr_seq(b[k]) + 1);
			}
			comp_free(b, got);
		}
	}
	for (i = 0; i < nports; i++) {
		struct mana_model_port_stats st;

		REQUIRE(comp_model_stats(name, i, &st));
		CHECK_EQ(st.tx_frames, THR_ROUNDS * THR_WIN);
		CHECK_EQ(st.rx_frames, THR_ROUNDS * THR_WIN);
		CHECK_EQ(st.rx_drop_no_wqe + st.wire_drops, 0);
		CHECK_EQ(rte_eth_dev_stop(pid[i]), 0);
	}
	/* Frames counted by the thread of each port, summed on read. */
	REQUIRE_EQ(mana_model_engine_stats(m, &es), 0);
	CHECK_EQ(es.frames, 2ull * nports * THR_ROUNDS * THR_WIN);
	comp_vdev_destroy(name);
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	rte_mempool_free(mp);
}

static void
test_pair_threads(void)
{
	pair_threads(2);
	pair_threads(4);
}


#define QT_NQ		4	/* TX and RX queues */
#define QT_FLOWS	64	/* flow f is sent on TX queue f % QT_NQ only */
#define QT_WIN		32	/* frames per TX queue per round */
#define QT_ROUNDS	25

/*
 * The flow (UDP destination port - 5000) of a frame, and its sequence in the
 * flow: the payload seed (its first byte), as the ports are what RSS hashes.
 */
static void
qt_flow_seq(const struct rte_mbuf *m, unsigned int *flow, uint8_t *seq)
{
	const size_t l4 = sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr);
	const struct rte_udp_hdr *udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, l4);

	*flow = (unsigned int)(rte_be_to_cpu_16(udp->dst_port) - 5000u) % QT_FLOWS;
	/* Byte k of a comp frame's payload is seed + 7 * k, k from the frame's start. */
	*seq = (uint8_t)(*rte_pktmbuf_mtod_offset(m, const uint8_t *, l4 + sizeof(*udp)) -
			 7 * (l4 + sizeof(*udp)));
}

/*
 * Queues spread over engine threads (doc/user_guide.md "Engine threads"):
 * one port on its loop wire, QT_NQ TX and RX queues, nthreads threads.
 * Queue k of each kind is served by thread k % nthreads (the port's wire by
 * thread 0), so RX queues of other threads receive through their handoff
 * rings. Checked: what each thread says it serves, every frame delivered
 * once and in order per flow, and each thread's frame count is exactly the
 * TX and RX frames of its own queues.
 */
static void
queue_threads(unsigned int nthreads)
{
	struct comp_port_cfg pc = { .nb_rxq = QT_NQ, .nb_txq = QT_NQ, .rss = true,
				    .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP };
	uint64_t tx_n[QT_NQ] = { 0 }, rx_n[QT_NQ] = { 0 }, want, total = 0;
	struct mana_model_engine_thread_stats ts;
	struct mana_model_port_stats st;
	uint8_t sent_seq[QT_FLOWS] = { 0 }, next[QT_FLOWS] = { 0 };
	static uint8_t frame[256];
	struct rte_mbuf *b[QT_WIN];
	struct rte_mempool *mp;
	char args[64], name[32];
	struct mana_model *m;
	unsigned int i, q, r, k;
	int pid;

	snprintf(name, sizeof(name), "net_mana_qt%u", nthreads);
	snprintf(args, sizeof(args), "engine_threads=%u", nthreads);
	REQUIRE_EQ(comp_vdev_create(name, args), 0);
	m = mana_model_find(name);
	REQUIRE(m != NULL);
	pid = comp_port_of(name, 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("qt_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	for (i = 0; i < nthreads; i++) {
		unsigned int mine = 0;

		for (q = 0; q < QT_NQ; q++)
			mine += q % nthreads == i;
		REQUIRE_EQ(mana_model_engine_thread_stats(m, i, &ts), 0);
		CHECK_MSG(ts.sqs == mine && ts.rqs == mine, "thread %u of %u serves %u SQs and "
			  "%u RQs, not %u of each", i, nthreads, ts.sqs, ts.rqs, mine);
		CHECK_EQ(ts.wires, i == 0 ? 1u : 0u);
	}
	CHECK_EQ(mana_model_engine_thread_stats(m, nthreads, &ts), -ENOENT);
	for (r = 0; r < QT_ROUNDS && !check_fails; r++) {
		uint64_t end = comp_now_ms() + COMP_WAIT_MS, got = 0;

		for (q = 0; q < QT_NQ; q++) {
			struct comp_frame f;

			comp_frame_default(&f);
			f.len = 64 + (r * 29 + q * 13) % 160;
			for (k = 0; k < QT_WIN; k++) {
				unsigned int flow = q + QT_NQ * (k % (QT_FLOWS / QT_NQ));

				f.dport = (uint16_t)(5000 + flow);
				f.seed = sent_seq[flow]++;
				b[k] = comp_mbuf_from(mp, frame, comp_frame_build(frame, &f));
				REQUIRE(b[k] != NULL);
			}
			REQUIRE_EQ(comp_tx_all(pid, q, b, QT_WIN, COMP_WAIT_MS), QT_WIN);
			tx_n[q] += QT_WIN;
		}
		while (got < QT_NQ * QT_WIN && comp_now_ms() < end) {
			for (q = 0; q < QT_NQ; q++) {
				uint16_t n = rte_eth_rx_burst(pid, q, b, QT_WIN);

				for (k = 0; k < n; k++) {
					unsigned int flow;
					uint8_t seq;

					qt_flow_seq(b[k], &flow, &seq);
					CHECK_MSG(seq == next[flow], "flow %u: frame %u after %u", flow,
						  seq, (uint8_t)(next[flow] - 1u));
					next[flow] = (uint8_t)(seq + 1);
				}
				comp_free(b, n);
				rx_n[q] += n;
				got += n;
			}
		}
		CHECK_MSG(got == QT_NQ * QT_WIN, "round %u: %" PRIu64 " of %u frames", r, got,
			  QT_NQ * QT_WIN);
		total += got;
	}
	REQUIRE(comp_model_stats(name, 0, &st));
	CHECK_EQ(st.tx_frames, (uint64_t)QT_ROUNDS * QT_NQ * QT_WIN);
	CHECK_EQ(st.rx_frames, total);
	CHECK_EQ(st.rx_drop_no_wqe + st.wire_drops + st.rx_drop_no_rxq, 0);
	for (q = 0; q < QT_NQ; q++)
		CHECK_MSG(rx_n[q] != 0, "RX queue %u received nothing: RSS did not spread", q);
	for (i = 0; i < nthreads; i++) {
		want = 0;
		for (q = 0; q < QT_NQ; q++)
			if (q % nthreads == i)
				want += tx_n[q] + rx_n[q];
		REQUIRE_EQ(mana_model_engine_thread_stats(m, i, &ts), 0);
		CHECK_MSG(ts.frames == want, "thread %u of %u handled %" PRIu64 " frames, its "
			  "queues %" PRIu64, i, nthreads, ts.frames, want);
		CHECK(ts.busy_passes > 0);
	}
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy(name);
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	rte_mempool_free(mp);
}

static void
test_queue_threads(void)
{
	queue_threads(2);
	queue_threads(3);
	queue_threads(4);
}

/*
 * A lossless generator on a port whose RX queues are on two threads: the
 * frames for the other thread's queues wait in its handoff ring (and the
 * wire) while the driver does not poll, and not one is lost.
 */
static void
test_queue_threads_lossless(void)
{
	struct comp_port_cfg pc = { .nb_rxq = QT_NQ, .nb_txq = 1, .rss = true,
				    .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP };
	struct mana_model_engine_thread_stats ts;
	struct mana_model_port_stats st;
	struct mana_model *m;
	struct rte_mempool *mp;
	uint32_t got;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_qtl", "engine_threads=2,"
				    "wire=gen:flows=64:len=100:count=5000:lossless=1"), 0);
	m = mana_model_find("net_mana_qtl");
	REQUIRE(m != NULL);
	pid = comp_port_of("net_mana_qtl", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("qtl_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	/* Every RQ fills (4 x 256), the handoff rings and the wire hold the rest. */
	comp_sleep_ms(100);
	got = comp_rx_wait(pid, QT_NQ, NULL, 0, GEN_N, 3 * COMP_WAIT_MS, NULL);
	CHECK_EQ(got, GEN_N);
	CHECK_EQ(comp_rx_drain(pid, QT_NQ, 100), 0);
	REQUIRE(comp_model_stats("net_mana_qtl", 0, &st));
	CHECK_EQ(st.wire_gen_frames, GEN_N);
	CHECK_EQ(st.rx_frames, GEN_N);
	CHECK_EQ(st.rx_drop_no_wqe, 0);
	REQUIRE_EQ(mana_model_engine_thread_stats(m, 1, &ts), 0);
	CHECK_EQ(ts.rqs, 2u);
	CHECK_MSG(ts.frames > 0 && ts.frames < GEN_N, "thread 1 delivered %" PRIu64 " of %u",
		  ts.frames, GEN_N);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_qtl");
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	rte_mempool_free(mp);
}

static const struct comp_case cases[] = {
	{ "tx_free_mixed", test_tx_free_mixed },
	{ "tx_overrun", test_tx_overrun },
	{ "pair_payload", test_pair_payload },
	{ "pair_threads", test_pair_threads },
	{ "queue_threads", test_queue_threads },
	{ "queue_threads_lossless", test_queue_threads_lossless },
	{ "gen_count", test_gen_count },
	{ "io_forward", test_io_forward },
	{ "io_forward_cqe_each", test_io_forward_cqe_each },
	{ "io_forward_tx_errors", test_io_forward_tx_errors },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
