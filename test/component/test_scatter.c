/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Scattered RX (hardware.md §3.6, doc/design.md "Receive"): 2048-byte data room
 * mbufs and MTU 9000, so a WQE holds 5 mbufs (1920 bytes after the headroom,
 * then 2048 each). Frames of every size class arrive byte-exact in chains of
 * the right shape, singly and in coalesced CQEs; frames above the WQE are
 * truncated and counted; no mbuf is lost on stop, with the pool run dry or
 * WQEs partly used; MTU changes at run time where the WQEs allow; chains are
 * used without the offload when the frame does not fit one mbuf; k = 1 stays
 * the one-mbuf path.
 */

#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "comp.h"

#define SC_ROOM		2048u			/* data room of the test pools */
#define SC_FIRST	(SC_ROOM - RTE_PKTMBUF_HEADROOM)
#define SC_NB_DESC	256u
#define SC_MAX_FRAME	MANA_MODEL_MAX_FRAME

static uint8_t sc_frame[SC_MAX_FRAME];

/* Segments of a len-byte frame in first/room mbufs. */
static uint32_t
sc_segs(uint32_t len, uint32_t first, uint32_t room)
{
	return len <= first ? 1 : 1 + (len - first + room - 1) / room;
}

static int
sc_setup(uint16_t pid, uint16_t mtu, uint64_t offloads, struct rte_mempool *mp, bool start)
{
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = mtu;
	conf.rxmode.offloads = offloads;
	ret = rte_eth_dev_configure(pid, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(pid, 0, SC_NB_DESC, SOCKET_ID_ANY, NULL, mp);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(pid, 0, SC_NB_DESC, SOCKET_ID_ANY, NULL);
	if (ret == 0 && start)
		ret = rte_eth_dev_start(pid);
	return ret;
}

/* The frame of length len with payload seed, built into sc_frame. */
static void
sc_build(uint32_t len, uint8_t seed)
{
	struct comp_frame f;

	comp_frame_default(&f);
	f.len = len;
	f.seed = seed;
	comp_frame_build(sc_frame, &f);
}

/*
 * m is frame (len, seed) byte-exact, in the chain shape of first/room mbufs:
 * the head after its headroom, the others from byte 0, each full but the last.
 */
static bool
sc_check_chain(const struct rte_mbuf *m, uint32_t len, uint8_t seed, uint32_t first,
	       uint32_t room)
{
	uint32_t segs = sc_segs(len, first, room), off = 0, i = 0, want;
	const struct rte_mbuf *s;
	bool ok = true;

	sc_build(len, seed);
	ok &= CHECK_EQ(m->pkt_len, len);
	ok &= CHECK_EQ(m->nb_segs, segs);
	for (s = m; s != NULL && i < segs; s = s->next, i++) {
		want = RTE_MIN(len - off, i == 0 ? first : room);
		ok &= CHECK_EQ(s->data_len, want);
		ok &= CHECK_EQ(s->data_off, i == 0 ? RTE_PKTMBUF_HEADROOM : 0);
		if (s->data_len != want || off + want > len)
			return false;
		ok &= CHECK_MSG(memcmp(rte_pktmbuf_mtod(s, void *), sc_frame + off, want) == 0,
				"%u-byte frame: segment %u (bytes %u..%u) differs", len, i, off,
				off + want - 1);
		off += want;
	}
	ok &= CHECK_MSG(s == NULL && i == segs, "%u-byte frame: chain of %u segments, %u "
			"expected", len, m->nb_segs, segs);
	ok &= CHECK(m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_GOOD);
	ok &= CHECK_EQ(m->packet_type & RTE_PTYPE_L4_MASK, RTE_PTYPE_L4_UDP);
	return ok;
}

/* The sizes: every one 60..300, each segment boundary +-2, the usual ones, 9000..9014. */
static uint32_t
sc_sizes(uint32_t *out, uint32_t max_len)
{
	static const uint32_t usual[] = { 1514, 1518, 4096, 8192 };
	uint32_t n = 0, len, b, d;

	for (len = 60; len <= 300; len++)
		out[n++] = len;
	for (b = SC_FIRST; b <= max_len + 2; b += SC_ROOM)
		for (d = 0; d <= 4; d++)
			if (b + d - 2 <= max_len)
				out[n++] = b + d - 2;
	for (d = 0; d < RTE_DIM(usual); d++)
		out[n++] = usual[d];
	for (len = 9000; len <= 9014 && len <= max_len; len++)
		out[n++] = len;
	return n;
}

/* Inject frames sizes[0..n) in groups of `group` (coalesced when > 1), check each. */
static uint32_t
sc_send_check(uint16_t pid, struct mana_model *m, const uint32_t *sizes, uint32_t n,
	      uint32_t group)
{
	struct rte_mbuf *r[64];
	uint32_t i, j, got, good = 0, g;

	for (i = 0; i < n; i += group) {
		g = RTE_MIN(group, n - i);
		for (j = 0; j < g; j++) {
			sc_build(sizes[i + j], (uint8_t)(i + j));
			if (!CHECK_EQ(mana_model_inject_rx(m, 0, sc_frame, sizes[i + j]), 0))
				return good;
		}
		got = comp_rx_wait(pid, 1, r, RTE_DIM(r), g, COMP_WAIT_MS, NULL);
		if (!CHECK_EQ(got, g)) {
			comp_free(r, RTE_MIN(got, RTE_DIM(r)));
			return good;
		}
		for (j = 0; j < g; j++)
			good += sc_check_chain(r[j], sizes[i + j], (uint8_t)(i + j), SC_FIRST,
					       SC_ROOM);
		comp_free(r, g);
	}
	return good;
}

static void
test_sizes(void)
{
	static uint32_t sizes[512];
	struct rte_eth_burst_mode bm;
	struct rte_eth_dev_info info;
	struct rte_eth_rxq_info qi;
	struct rte_eth_stats es;
	struct rte_mempool *mp;
	struct mana_model *m;
	uint32_t n, good;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_sc1", ""), 0);
	pid = comp_port_of("net_mana_sc1", 0);
	m = mana_model_find("net_mana_sc1");
	REQUIRE(pid >= 0 && m != NULL);
	mp = comp_pool("sc1_pool", 4096, SC_ROOM);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(rte_eth_dev_info_get(pid, &info), 0);
	CHECK(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER);
	CHECK_EQ(info.rx_desc_lim.nb_seg_max, 15);
	CHECK_EQ(info.rx_desc_lim.nb_mtu_seg_max, 15);
	REQUIRE_EQ(sc_setup(pid, 9000, RTE_ETH_RX_OFFLOAD_SCATTER, mp, true), 0);
	REQUIRE_EQ(rte_eth_rx_queue_info_get(pid, 0, &qi), 0);
	CHECK_EQ(qi.scattered_rx, 1);
	REQUIRE_EQ(rte_eth_rx_burst_mode_get(pid, 0, &bm), 0);
	CHECK_MSG(strstr(bm.info, "scattered (5 SGEs") != NULL, "burst mode '%s'", bm.info);
	/* 5 mbufs per WQE are posted */
	CHECK_EQ(rte_mempool_avail_count(mp), 4096 - SC_NB_DESC * 5);
	n = sc_sizes(sizes, 9014);
	REQUIRE(n < RTE_DIM(sizes));
	good = sc_send_check(pid, m, sizes, n, 1);
	CHECK_EQ(good, n);
	/* The same sizes ready together: coalesced CQEs, up to 4 chains each. */
	good = sc_send_check(pid, m, sizes, n, 32);
	CHECK_EQ(good, n);
	CHECK_GE(comp_xstat(pid, "rx_coalesced_cqes"), 1);
	/* §16: the MTU limits only transmission; up to the WQE's 10112 bytes fit. */
	sizes[0] = 9015;
	sizes[1] = SC_MAX_FRAME;
	CHECK_EQ(sc_send_check(pid, m, sizes, 2, 2), 2);
	CHECK_EQ(rte_eth_stats_get(pid, &es), 0);
	CHECK_EQ(es.ipackets, 2 * (uint64_t)n + 2);
	CHECK_EQ(es.ierrors, 0);
	CHECK_EQ(es.rx_nombuf, 0);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_sc1");
	rte_mempool_free(mp);
}

/* MTU 3000: 2 mbufs per WQE (3968 bytes); larger frames are truncated, counted, reposted. */
static void
test_truncated(void)
{
	static const uint32_t lens[] = { 3969, 3968, 5000, 64, SC_MAX_FRAME, 3018 };
	static const bool fits[] = { false, true, false, true, false, true };
	struct rte_eth_stats es;
	struct rte_mempool *mp;
	struct mana_model *m;
	struct rte_mbuf *r;
	unsigned int i, dropped = 0, rcvd = 0;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_sc2", ""), 0);
	pid = comp_port_of("net_mana_sc2", 0);
	m = mana_model_find("net_mana_sc2");
	REQUIRE(pid >= 0 && m != NULL);
	mp = comp_pool("sc2_pool", 1024, SC_ROOM);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(sc_setup(pid, 3000, RTE_ETH_RX_OFFLOAD_SCATTER, mp, true), 0);
	for (i = 0; i < RTE_DIM(lens); i++) {
		sc_build(lens[i], (uint8_t)i);
		REQUIRE_EQ(mana_model_inject_rx(m, 0, sc_frame, lens[i]), 0);
		if (!fits[i]) {
			dropped++;
			continue;
		}
		/* In order: this one comes after the truncated ones. */
		REQUIRE_EQ(comp_rx_wait(pid, 1, &r, 1, 1, COMP_WAIT_MS, NULL), 1);
		CHECK(sc_check_chain(r, lens[i], (uint8_t)i, SC_FIRST, SC_ROOM));
		rte_pktmbuf_free(r);
		rcvd++;
		CHECK_EQ(rte_eth_stats_get(pid, &es), 0);
		CHECK_EQ(es.ierrors, dropped);
		CHECK_EQ(comp_xstat(pid, "rx_truncated"), dropped);
		CHECK_EQ(comp_xstat(pid, "rx_q0_truncated"), dropped);
	}
	CHECK_EQ(comp_rx_drain(pid, 1, 20), 0);
	CHECK_EQ(rte_eth_stats_get(pid, &es), 0);
	CHECK_EQ(es.ipackets, rcvd);
	CHECK_EQ(es.ierrors, 3);
	/*
	 * 6 WQEs used, fewer than a refill waits for: the pool has back only the
	 * 5 mbufs of the 3 chains freed above; a truncated WQE's 2 stay in the queue.
	 */
	CHECK_EQ(rte_mempool_avail_count(mp), 1024 - SC_NB_DESC * 2 + 2 + 1 + 2);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 1024);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_sc2");
	rte_mempool_free(mp);
}

/*
 * Partly used WQEs and a dry pool: small frames leave 4 of 5 mbufs in their
 * WQEs; received chains held by the test empty the pool (rx_nombuf), the
 * queue keeps going once they are freed, and stop returns every mbuf.
 */
static void
test_stop_partial(void)
{
	enum { POOL = SC_NB_DESC * 5 + 60, HOLD = 200 };
	static struct rte_mbuf *held[HOLD];
	struct rte_eth_stats es;
	struct rte_mempool *mp;
	struct mana_model *m;
	uint32_t i, n = 0, got;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_sc3", ""), 0);
	pid = comp_port_of("net_mana_sc3", 0);
	m = mana_model_find("net_mana_sc3");
	REQUIRE(pid >= 0 && m != NULL);
	mp = comp_pool("sc3_pool", POOL, SC_ROOM);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(sc_setup(pid, 9000, RTE_ETH_RX_OFFLOAD_SCATTER, mp, true), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 60);
	/* Big frames held: 5 mbufs each, 12 of them empty the pool's 60 spare mbufs. */
	for (i = 0; i < 40; i++) {
		sc_build(9014, (uint8_t)i);
		REQUIRE_EQ(mana_model_inject_rx(m, 0, sc_frame, 9014), 0);
		got = comp_rx_wait(pid, 1, &held[n], 1, 1, COMP_WAIT_MS, NULL);
		if (got == 0)
			break;
		CHECK(sc_check_chain(held[n], 9014, (uint8_t)i, SC_FIRST, SC_ROOM));
		n++;
	}
	CHECK_EQ(n, 40);
	CHECK_EQ(rte_eth_stats_get(pid, &es), 0);
	CHECK_GE(es.rx_nombuf, 1);
	CHECK_EQ(rte_mempool_avail_count(mp), 0);
	comp_free(held, n);
	n = 0;
	/* Small frames: one mbuf of each WQE used, the other four stay posted. */
	for (i = 0; i < 100; i++) {
		sc_build(100 + i, (uint8_t)i);
		REQUIRE_EQ(mana_model_inject_rx(m, 0, sc_frame, 100 + i), 0);
		got = comp_rx_wait(pid, 1, &held[n], 1, 1, COMP_WAIT_MS, NULL);
		REQUIRE_EQ(got, 1);
		CHECK(sc_check_chain(held[n], 100 + i, (uint8_t)i, SC_FIRST, SC_ROOM));
		n++;
	}
	/* Partly used WQEs are posted or waiting; the held chains are the application's. */
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL - n);
	comp_free(held, n);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL);
	/* Started again, the queue works as before. */
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	sc_build(6000, 9);
	REQUIRE_EQ(mana_model_inject_rx(m, 0, sc_frame, 6000), 0);
	REQUIRE_EQ(comp_rx_wait(pid, 1, held, 1, 1, COMP_WAIT_MS, NULL), 1);
	CHECK(sc_check_chain(held[0], 6000, 9, SC_FIRST, SC_ROOM));
	rte_pktmbuf_free(held[0]);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_sc3");
	rte_mempool_free(mp);
}

/* One frame of len through a started port, checked. */
static bool
sc_one(uint16_t pid, struct mana_model *m, uint32_t len, uint32_t first, uint32_t room)
{
	struct rte_mbuf *r;
	bool ok;

	sc_build(len, (uint8_t)len);
	if (!CHECK_EQ(mana_model_inject_rx(m, 0, sc_frame, len), 0))
		return false;
	if (!CHECK_EQ(comp_rx_wait(pid, 1, &r, 1, 1, COMP_WAIT_MS, NULL), 1))
		return false;
	ok = sc_check_chain(r, len, (uint8_t)len, first, room);
	rte_pktmbuf_free(r);
	return ok;
}

static void
test_mtu_change(void)
{
	struct rte_eth_rxq_info qi;
	struct rte_mempool *mp, *tiny;
	struct mana_model *m;
	char log[4096];
	FILE *lf;
	int pid, ret;

	REQUIRE_EQ(comp_vdev_create("net_mana_sc4", ""), 0);
	pid = comp_port_of("net_mana_sc4", 0);
	m = mana_model_find("net_mana_sc4");
	REQUIRE(pid >= 0 && m != NULL);
	mp = comp_pool("sc4_pool", 2048, SC_ROOM);
	tiny = comp_pool("sc4_tiny", 4096, RTE_PKTMBUF_HEADROOM + 384);
	REQUIRE(mp != NULL && tiny != NULL);
	/* MTU 1500 in 1920 bytes: one mbuf per frame. */
	REQUIRE_EQ(sc_setup(pid, 1500, 0, mp, true), 0);
	REQUIRE_EQ(rte_eth_rx_queue_info_get(pid, 0, &qi), 0);
	CHECK_EQ(qi.scattered_rx, 0);
	/* Running: up to what the WQEs hold (1920 - 18), no further. */
	CHECK_EQ(rte_eth_dev_set_mtu(pid, SC_FIRST - 18), 0);
	CHECK(sc_one(pid, m, SC_FIRST, SC_FIRST, SC_ROOM));
	lf = comp_log_begin(log, sizeof(log));
	REQUIRE(lf != NULL);
	ret = rte_eth_dev_set_mtu(pid, 3000);
	comp_log_end(lf);
	CHECK_EQ(ret, -EINVAL);
	CHECK_MSG(strstr(log, "MTU 3000 needs 3018-byte frames; RX queue 0 holds 1920 (1 mbuf "
			 "of mempool sc4_pool per frame): stop the port") != NULL, "log: %s", log);
	/* Stopped: the queue is laid out again at start, 2 mbufs per frame. */
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 3000), 0);
	lf = comp_log_begin(log, sizeof(log));
	REQUIRE(lf != NULL);
	ret = rte_eth_dev_start(pid);
	comp_log_end(lf);
	REQUIRE_EQ(ret, 0);
	CHECK_MSG(strstr(log, "receiving into chains of up to 2 mbufs although "
			 "RTE_ETH_RX_OFFLOAD_SCATTER is not requested") != NULL, "log: %s", log);
	REQUIRE_EQ(rte_eth_rx_queue_info_get(pid, 0, &qi), 0);
	CHECK_EQ(qi.scattered_rx, 1);
	CHECK(sc_one(pid, m, 3018, SC_FIRST, SC_ROOM));
	CHECK(sc_one(pid, m, 60, SC_FIRST, SC_ROOM));
	/* Running with 2 mbufs: up to 3968 - 18. */
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 3950), 0);
	CHECK(sc_one(pid, m, 3968, SC_FIRST, SC_ROOM));
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 3951), -EINVAL);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 2048);
	/* Back to one mbuf per frame. */
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 1500), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	REQUIRE_EQ(rte_eth_rx_queue_info_get(pid, 0, &qi), 0);
	CHECK_EQ(qi.scattered_rx, 0);
	CHECK(sc_one(pid, m, 1518, SC_FIRST, SC_ROOM));
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 2048);
	/* 384 + 14 x 512 bytes cannot hold a 9018-byte frame: more than 15 mbufs. */
	CHECK_EQ(rte_eth_rx_queue_setup(pid, 0, SC_NB_DESC, SOCKET_ID_ANY, NULL, tiny), 0);
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 4000), 0);
	lf = comp_log_begin(log, sizeof(log));
	REQUIRE(lf != NULL);
	ret = rte_eth_dev_set_mtu(pid, 9000);
	comp_log_end(lf);
	CHECK_EQ(ret, -EINVAL);
	CHECK_MSG(strstr(log, "RX queue 0: an MTU 9000 frame (9018 bytes) needs 18 mbufs of "
			 "mempool sc4_tiny (384 bytes after headroom, then 512); at most 15 "
			 "per frame") != NULL, "log: %s", log);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	CHECK(sc_one(pid, m, 4018, 384, 512));
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(tiny), 4096);
	/* Queue setup refuses it too. */
	CHECK_EQ(sc_setup(pid, 9000, RTE_ETH_RX_OFFLOAD_SCATTER, tiny, false), -EINVAL);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_sc4");
	rte_mempool_free(mp);
	rte_mempool_free(tiny);
}

/*
 * Debian's l3fwd --max-pkt-len 9018: MTU 9000, 2176-byte mbufs (the default
 * data room), no SCATTER requested: chains all the same, said once.
 */
static void
test_auto_scatter(void)
{
	const uint32_t room = RTE_MBUF_DEFAULT_BUF_SIZE, first = room - RTE_PKTMBUF_HEADROOM;
	static const uint32_t lens[] = { 64, 2048, 2049, 4224, 4225, 9014 };
	struct rte_eth_rxq_info qi;
	struct rte_mempool *mp;
	struct mana_model *m;
	char log[4096];
	unsigned int i;
	FILE *lf;
	int pid, ret;

	REQUIRE_EQ(comp_vdev_create("net_mana_sc5", ""), 0);
	pid = comp_port_of("net_mana_sc5", 0);
	m = mana_model_find("net_mana_sc5");
	REQUIRE(pid >= 0 && m != NULL);
	mp = comp_pool("sc5_pool", 2048, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	lf = comp_log_begin(log, sizeof(log));
	REQUIRE(lf != NULL);
	ret = sc_setup(pid, 9000, 0, mp, true);
	comp_log_end(lf);
	REQUIRE_EQ(ret, 0);
	CHECK_MSG(strstr(log, "RX queue 0: an MTU 9000 frame does not fit one mbuf of sc5_pool "
			 "(2048 bytes after headroom): receiving into chains of up to 5 mbufs "
			 "although RTE_ETH_RX_OFFLOAD_SCATTER is not requested") != NULL,
		  "log: %s", log);
	REQUIRE_EQ(rte_eth_rx_queue_info_get(pid, 0, &qi), 0);
	CHECK_EQ(qi.scattered_rx, 1);
	for (i = 0; i < RTE_DIM(lens); i++)
		CHECK(sc_one(pid, m, lens[i], first, room));
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 2048);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_sc5");
	rte_mempool_free(mp);
}

/* Frames that fit one mbuf: the one-mbuf path, as before. */
static void
test_k1_unchanged(void)
{
	struct rte_eth_burst_mode bm;
	struct rte_eth_rxq_info qi;
	struct rte_mempool *mp;
	struct mana_model *m;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_sc6", ""), 0);
	pid = comp_port_of("net_mana_sc6", 0);
	m = mana_model_find("net_mana_sc6");
	REQUIRE(pid >= 0 && m != NULL);
	mp = comp_pool("sc6_pool", 1024, SC_ROOM);
	REQUIRE(mp != NULL);
	/* Even with the offload requested, 1518 bytes fit 1920: one SGE per WQE. */
	REQUIRE_EQ(sc_setup(pid, 1500, RTE_ETH_RX_OFFLOAD_SCATTER, mp, true), 0);
	REQUIRE_EQ(rte_eth_rx_queue_info_get(pid, 0, &qi), 0);
	CHECK_EQ(qi.scattered_rx, 0);
	REQUIRE_EQ(rte_eth_rx_burst_mode_get(pid, 0, &bm), 0);
	/* the one-mbuf path of the port's datapath (test_datapath.c names it) */
	CHECK_MSG(strstr(bm.info, "scattered") == NULL &&
		  strstr(bm.info, ", coalesced CQEs, bulk refill") != NULL, "burst mode '%s'",
		  bm.info);
	CHECK_EQ(rte_mempool_avail_count(mp), 1024 - SC_NB_DESC);
	CHECK(sc_one(pid, m, 1518, SC_FIRST, SC_ROOM));
	CHECK(sc_one(pid, m, 60, SC_FIRST, SC_ROOM));
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 1024);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_sc6");
	rte_mempool_free(mp);
}

/*
 * Two queues, one with chains (2048-byte mbufs) and one with one mbuf per
 * frame (9100 bytes after headroom): the port runs the scattered burst for
 * both. A truncated frame on the one-mbuf queue keeps its mbuf in the queue,
 * which stop returns with the rest.
 */
static void
test_mixed_queues(void)
{
	struct rte_eth_rxq_info qi;
	struct rte_mempool *mp, *big;
	struct rte_eth_conf conf;
	struct rte_eth_stats es;
	struct mana_model *m;
	struct rte_mbuf *r[4];
	uint32_t i;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_sc7", ""), 0);
	pid = comp_port_of("net_mana_sc7", 0);
	m = mana_model_find("net_mana_sc7");
	REQUIRE(pid >= 0 && m != NULL);
	mp = comp_pool("sc7_pool", 2048, SC_ROOM);
	big = comp_pool("sc7_big", 512, RTE_PKTMBUF_HEADROOM + 9100);
	REQUIRE(mp != NULL && big != NULL);
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = 9000;
	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_SCATTER;
	conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IPV4;
	REQUIRE_EQ(rte_eth_dev_configure(pid, 2, 1, &conf), 0);
	REQUIRE_EQ(rte_eth_rx_queue_setup(pid, 0, SC_NB_DESC, SOCKET_ID_ANY, NULL, mp), 0);
	REQUIRE_EQ(rte_eth_rx_queue_setup(pid, 1, SC_NB_DESC, SOCKET_ID_ANY, NULL, big), 0);
	REQUIRE_EQ(rte_eth_tx_queue_setup(pid, 0, SC_NB_DESC, SOCKET_ID_ANY, NULL), 0);
	REQUIRE_EQ(rte_eth_dev_start(pid), 0);
	REQUIRE_EQ(rte_eth_rx_queue_info_get(pid, 1, &qi), 0);
	CHECK_EQ(qi.scattered_rx, 0);
	/* Non-IP frames go to the last queue (the device's default): queue 1. */
	for (i = 0; i < 3; i++) {
		sc_build(9216 - i * 200, (uint8_t)i);
		sc_frame[12] = 0x88;
		sc_frame[13] = 0xb5;
		REQUIRE_EQ(mana_model_inject_rx(m, 0, sc_frame, 9216 - i * 200), 0);
	}
	/* 9216 bytes do not fit 9100: truncated; 9016 and 8816 arrive whole */
	REQUIRE_EQ(comp_rx_wait(pid, 2, r, 4, 2, COMP_WAIT_MS, NULL), 2);
	CHECK_EQ(r[0]->pkt_len, 9016);
	CHECK_EQ(r[0]->nb_segs, 1);
	CHECK_EQ(r[1]->pkt_len, 8816);
	CHECK(r[0]->pool == big && r[1]->pool == big);
	comp_free(r, 2);
	CHECK_EQ(rte_eth_stats_get(pid, &es), 0);
	CHECK_EQ(es.ierrors, 1);
	CHECK_EQ(comp_xstat(pid, "rx_q1_truncated"), 1);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(big), 512);
	CHECK_EQ(rte_mempool_avail_count(mp), 2048);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_sc7");
	rte_mempool_free(mp);
	rte_mempool_free(big);
}

static const struct comp_case cases[] = {
	{ "sizes", test_sizes },
	{ "truncated", test_truncated },
	{ "stop_partial", test_stop_partial },
	{ "mtu_change", test_mtu_change },
	{ "auto_scatter", test_auto_scatter },
	{ "k1_unchanged", test_k1_unchanged },
	{ "mixed_queues", test_mixed_queues },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
