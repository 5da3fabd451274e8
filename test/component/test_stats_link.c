/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Statistics and link through ethdev. Basic stats (ports and queues) equal
 * what the application sent and received and the device's own counters;
 * xstats have the documented names and agree with both; reset zeroes the
 * port's view without touching the device. Link: a wire-side link change
 * shows in rte_eth_link_get_nowait() and raises RTE_ETH_EVENT_INTR_LSC; a
 * fatal device error raises RTE_ETH_EVENT_INTR_RMV and the port refuses to
 * start again.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_launch.h>
#include <rte_lcore.h>

#include "comp.h"

#define PER_Q	150

static void
send_frames(uint16_t pid, uint16_t q, struct rte_mempool *mp, const struct rte_ether_addr *dst,
	    uint32_t n, uint32_t len, uint16_t salt)
{
	struct rte_mbuf *m[PER_Q];
	uint8_t buf[1514];
	struct comp_frame f;
	uint32_t i;

	REQUIRE(n <= PER_Q);
	for (i = 0; i < n; i++) {
		comp_frame_default(&f);
		f.dst = *dst;
		f.sport = (uint16_t)(salt * 1000 + i);
		f.len = len;
		comp_frame_build(buf, &f);
		m[i] = comp_mbuf_from(mp, buf, len);
		REQUIRE(m[i] != NULL);
	}
	REQUIRE_EQ(comp_tx_all(pid, q, m, n, COMP_WAIT_MS), n);
}

static void
test_stats(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 2, .nb_txq = 2, .rss = true,
				    .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP };
	struct mana_model_port_stats s0, s1;
	struct comp_qstats qa, qb;
	struct rte_eth_stats a, b;
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	struct rte_ether_addr mac;
	struct rte_mempool *mp;
	uint32_t per_q[2], got;
	uint64_t end;
	int p0, p1, n, i;
	bool seen_rxq = false, seen_devrx = false, seen_trunc = false, seen_txerr = false;

	REQUIRE_EQ(comp_vdev_create("net_mana_st", "ports=2,wire=pair:1,wire=pair:0"), 0);
	p0 = comp_port_of("net_mana_st", 0);
	p1 = comp_port_of("net_mana_st", 1);
	REQUIRE(p0 >= 0 && p1 >= 0);
	mp = comp_pool("st_pool", 2048, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(p0, &pc, mp), 0);
	REQUIRE_EQ(comp_port_start(p1, &pc, mp), 0);
	rte_eth_macaddr_get(p1, &mac);
	send_frames(p0, 0, mp, &mac, PER_Q, 100, 1);
	send_frames(p0, 1, mp, &mac, PER_Q, 300, 2);
	got = comp_rx_wait(p1, 2, NULL, 0, 2 * PER_Q, COMP_WAIT_MS, per_q);
	CHECK_EQ(got, 2 * PER_Q);
	/*
	 * TX counters are current without another burst or a cleanup call: an
	 * application that stops sending still sees everything it sent.
	 */
	CHECK_EQ(rte_eth_stats_get(p0, &a), 0);
	CHECK_EQ(rte_eth_stats_get(p1, &b), 0);
	CHECK_EQ(comp_qstats_get(p0, &qa), 0);
	CHECK_EQ(comp_qstats_get(p1, &qb), 0);
	REQUIRE(comp_model_stats("net_mana_st", 0, &s0));
	REQUIRE(comp_model_stats("net_mana_st", 1, &s1));
	CHECK_EQ(a.opackets, 2 * PER_Q);
	CHECK_EQ(a.obytes, PER_Q * 100 + PER_Q * 300);
	CHECK_EQ(qa.opackets[0], PER_Q);
	CHECK_EQ(qa.opackets[1], PER_Q);
	CHECK_EQ(qa.obytes[0], PER_Q * 100);
	CHECK_EQ(qa.obytes[1], PER_Q * 300);
	CHECK_EQ(a.oerrors, 0);
	CHECK_EQ(a.opackets, s0.tx_frames);
	CHECK_EQ(a.obytes, s0.tx_bytes);
	CHECK_EQ(b.ipackets, 2 * PER_Q);
	CHECK_EQ(b.ibytes, PER_Q * 100 + PER_Q * 300);
	CHECK_EQ(b.ipackets, s1.rx_frames);
	CHECK_EQ(b.ibytes, s1.rx_bytes);
	CHECK_EQ(qb.ipackets[0], per_q[0]);
	CHECK_EQ(qb.ipackets[1], per_q[1]);
	CHECK_EQ(qb.ipackets[0] + qb.ipackets[1], b.ipackets);
	CHECK_EQ(b.ierrors, 0);
	CHECK_EQ(b.imissed, 0);
	CHECK_EQ(b.rx_nombuf, 0);

	/* xstats: documented names, values consistent with the basic stats and the device. */
	n = rte_eth_xstats_get_names(p1, NULL, 0);
	REQUIRE(n > 0);
	names = calloc(n, sizeof(*names));
	xs = calloc(n, sizeof(*xs));
	REQUIRE(names != NULL && xs != NULL);
	CHECK_EQ(rte_eth_xstats_get_names(p1, names, n), n);
	CHECK_EQ(rte_eth_xstats_get(p1, xs, n), n);
	for (i = 0; i < n; i++) {
		const char *nm = names[xs[i].id].name;

		CHECK_EQ(xs[i].id, i);
		if (strcmp(nm, "rx_q0_packets") == 0) {
			seen_rxq = true;
			CHECK_EQ(xs[i].value, per_q[0]);
		} else if (strcmp(nm, "rx_q1_bytes") == 0) {
			CHECK_EQ(xs[i].value, qb.ibytes[1]);
		} else if (strcmp(nm, "dev_rx_frames") == 0) {
			seen_devrx = true;
			CHECK_EQ(xs[i].value, s1.rx_frames);
		} else if (strcmp(nm, "rx_truncated") == 0) {
			seen_trunc = true;
			CHECK_EQ(xs[i].value, 0);
		} else if (strcmp(nm, "tx_err_mtu_drop") == 0) {
			seen_txerr = true;
		} else if (strcmp(nm, "rx_good_packets") == 0) {
			CHECK_EQ(xs[i].value, b.ipackets);
		}
	}
	CHECK(seen_rxq && seen_devrx && seen_trunc && seen_txerr);
	free(names);
	free(xs);
	CHECK_EQ(comp_xstat(p0, "tx_q1_packets"), PER_Q);
	CHECK_EQ(comp_xstat(p0, "dev_tx_frames"), s0.tx_frames);
	CHECK_EQ(comp_xstat(p0, "dev_tx_bytes"), s0.tx_bytes);
	/* no LSO WQE was posted: the device's LSO counters are there, at 0 (hardware.md §3.5) */
	CHECK_EQ(comp_xstat(p0, "dev_tx_lso_wqes"), 0);
	CHECK_EQ(comp_xstat(p0, "dev_tx_lso_segments"), 0);

	/* TX error completions: counted as oerrors and by type. */
	REQUIRE_EQ(mana_model_inject_tx_error(mana_model_find("net_mana_st"), 0, 34, 3), 0);
	send_frames(p0, 0, mp, &mac, 5, 100, 3);
	CHECK_EQ(comp_rx_wait(p1, 2, NULL, 0, 2, COMP_WAIT_MS, NULL), 2);
	end = comp_now_ms() + COMP_WAIT_MS;
	do {
		rte_eth_tx_done_cleanup(p0, 0, 0);
		CHECK_EQ(rte_eth_stats_get(p0, &a), 0);
	} while (a.oerrors < 3 && comp_now_ms() < end);
	CHECK_EQ(a.oerrors, 3);
	CHECK_EQ(a.opackets, 2 * PER_Q + 2);
	CHECK_EQ(comp_xstat(p0, "tx_err_mtu_drop"), 3);
	CHECK_EQ(comp_xstat(p0, "dev_tx_err_mtu_drop"), 3);

	/* Reset: the port's view restarts at 0; the device's counters go on. */
	CHECK_EQ(rte_eth_stats_reset(p1), 0);
	CHECK_EQ(rte_eth_stats_get(p1, &b), 0);
	CHECK_EQ(b.ipackets, 0);
	CHECK_EQ(b.ibytes, 0);
	CHECK_EQ(comp_qstats_get(p1, &qb), 0);
	CHECK_EQ(qb.ipackets[0], 0);
	CHECK_EQ(comp_xstat(p1, "dev_rx_frames"), 0);
	CHECK_EQ(comp_xstat(p1, "rx_q0_packets"), 0);
	REQUIRE(comp_model_stats("net_mana_st", 1, &s1));
	CHECK_EQ(s1.rx_frames, 2 * PER_Q + 2);
	send_frames(p0, 1, mp, &mac, 10, 64, 4);
	CHECK_EQ(comp_rx_wait(p1, 2, NULL, 0, 10, COMP_WAIT_MS, NULL), 10);
	CHECK_EQ(rte_eth_stats_get(p1, &b), 0);
	CHECK_EQ(b.ipackets, 10);
	CHECK_EQ(b.ibytes, 640);
	CHECK_EQ(comp_xstat(p1, "dev_rx_frames"), 10);

	CHECK_EQ(rte_eth_dev_stop(p0), 0);
	CHECK_EQ(rte_eth_dev_stop(p1), 0);
	comp_vdev_destroy("net_mana_st");
	CHECK_EQ(rte_mempool_avail_count(mp), 2048);
	rte_mempool_free(mp);
}

static unsigned int lsc_events, rmv_events;

static int
event_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	RTE_SET_USED(port);
	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (type == RTE_ETH_EVENT_INTR_LSC)
		__atomic_add_fetch(&lsc_events, 1, __ATOMIC_RELEASE);
	else if (type == RTE_ETH_EVENT_INTR_RMV)
		__atomic_add_fetch(&rmv_events, 1, __ATOMIC_RELEASE);
	return 0;
}

static bool
wait_count(unsigned int *cnt, unsigned int want, unsigned int ms)
{
	uint64_t end = comp_now_ms() + ms;

	while (__atomic_load_n(cnt, __ATOMIC_ACQUIRE) < want && comp_now_ms() < end)
		comp_sleep_ms(1);
	return __atomic_load_n(cnt, __ATOMIC_ACQUIRE) >= want;
}

static void
test_link_events(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1, .intr_lsc = true,
				    .intr_rmv = true };
	struct mana_model_port_stats st;
	struct rte_eth_link link;
	struct rte_ether_addr mac;
	struct rte_mempool *mp;
	struct mana_model *m;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_lnk", "wire=loop,recovery_timeout=100"), 0);
	pid = comp_port_of("net_mana_lnk", 0);
	m = mana_model_find("net_mana_lnk");
	REQUIRE(pid >= 0 && m != NULL);
	mp = comp_pool("lnk_pool", 1024, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	rte_eth_macaddr_get(pid, &mac);
	REQUIRE_EQ(rte_eth_dev_callback_register(pid, RTE_ETH_EVENT_INTR_LSC, event_cb, NULL), 0);
	REQUIRE_EQ(rte_eth_dev_callback_register(pid, RTE_ETH_EVENT_INTR_RMV, event_cb, NULL), 0);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	CHECK_EQ(rte_eth_link_get_nowait(pid, &link), 0);
	CHECK_EQ(link.link_status, RTE_ETH_LINK_UP);
	CHECK_EQ(link.link_speed, RTE_ETH_SPEED_NUM_100G);
	CHECK_EQ(link.link_duplex, RTE_ETH_LINK_FULL_DUPLEX);

	CHECK_EQ(mana_model_set_link(m, 0, false), 0);
	CHECK_MSG(wait_count(&lsc_events, 1, COMP_WAIT_MS), "no LSC event after link down");
	CHECK_EQ(rte_eth_link_get_nowait(pid, &link), 0);
	CHECK_EQ(link.link_status, RTE_ETH_LINK_DOWN);
	/* Link down: frames sent do not come back. */
	send_frames(pid, 0, mp, &mac, 4, 100, 1);
	CHECK_EQ(comp_rx_drain(pid, 1, 50), 0);
	REQUIRE(comp_model_stats("net_mana_lnk", 0, &st));
	CHECK_EQ(st.tx_drop_link_down + st.rx_drop_no_rxq, 4);

	CHECK_EQ(mana_model_set_link(m, 0, true), 0);
	CHECK_MSG(wait_count(&lsc_events, 2, COMP_WAIT_MS), "no LSC event after link up");
	CHECK_EQ(rte_eth_link_get_nowait(pid, &link), 0);
	CHECK_EQ(link.link_status, RTE_ETH_LINK_UP);
	send_frames(pid, 0, mp, &mac, 4, 100, 2);
	CHECK_EQ(comp_rx_wait(pid, 1, NULL, 0, 4, COMP_WAIT_MS, NULL), 4);
	CHECK_EQ(rmv_events, 0);

	/* The device is lost for good: recovery gives up (100 ms), RMV, link down, no restart. */
	CHECK_EQ(mana_model_fatal(m), 0);
	CHECK_MSG(wait_count(&rmv_events, 1, COMP_WAIT_MS), "no RMV event after a fatal error");
	CHECK_EQ(rte_eth_link_get_nowait(pid, &link), 0);
	CHECK_EQ(link.link_status, RTE_ETH_LINK_DOWN);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK(rte_eth_dev_start(pid) != 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 1024);
	rte_eth_dev_callback_unregister(pid, RTE_ETH_EVENT_INTR_LSC, event_cb, NULL);
	rte_eth_dev_callback_unregister(pid, RTE_ETH_EVENT_INTR_RMV, event_cb, NULL);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_lnk");
	rte_mempool_free(mp);
}

/*
 * Counters cleared while TX packets are in flight: packets posted before the
 * reset are not taken back out when they complete with an error (opackets
 * would wrap below zero), and the errors themselves count.
 */
static void
test_reset_in_flight(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct rte_ether_addr mac;
	struct rte_mempool *mp;
	struct rte_eth_stats a;
	uint64_t end;
	int p0, p1;

	REQUIRE_EQ(comp_vdev_create("net_mana_rst", "ports=2,wire=pair:1,wire=pair:0"), 0);
	p0 = comp_port_of("net_mana_rst", 0);
	p1 = comp_port_of("net_mana_rst", 1);
	REQUIRE(p0 >= 0 && p1 >= 0);
	mp = comp_pool("rst_pool", 2048, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(p0, &pc, mp), 0);
	REQUIRE_EQ(comp_port_start(p1, &pc, mp), 0);
	rte_eth_macaddr_get(p1, &mac);
	REQUIRE_EQ(mana_model_inject_tx_error(mana_model_find("net_mana_rst"), 0, 34, 3), 0);
	send_frames(p0, 0, mp, &mac, 5, 100, 4);
	/* Completions are processed by the next burst or cleanup: after the reset. */
	CHECK_EQ(rte_eth_stats_reset(p0), 0);
	end = comp_now_ms() + COMP_WAIT_MS;
	do {
		rte_eth_tx_done_cleanup(p0, 0, 0);
		CHECK_EQ(rte_eth_stats_get(p0, &a), 0);
	} while (a.oerrors < 3 && comp_now_ms() < end);
	CHECK_EQ(a.oerrors, 3);
	CHECK_EQ(a.opackets, 0);
	CHECK_EQ(a.obytes, 0);
	/* Packets after the reset count as usual. */
	send_frames(p0, 0, mp, &mac, 4, 100, 5);
	CHECK_EQ(comp_rx_wait(p1, 1, NULL, 0, 2 + 4, COMP_WAIT_MS, NULL), 2 + 4);
	CHECK_EQ(rte_eth_stats_get(p0, &a), 0);
	CHECK_EQ(a.opackets, 4);
	CHECK_EQ(a.obytes, 400);
	CHECK_EQ(a.oerrors, 3);
	CHECK_EQ(rte_eth_dev_stop(p0), 0);
	CHECK_EQ(rte_eth_dev_stop(p1), 0);
	comp_vdev_destroy("net_mana_rst");
	CHECK_EQ(rte_mempool_avail_count(mp), 2048);
	rte_mempool_free(mp);
}

/* ---- reset while forwarding (issue 13 item 4) ----------------------------- */

#define FW_BURST	32
#define FW_NQ		2

/*
 * Forwarding lcore: RX on every queue, TX back on the same queue. It
 * publishes its totals (continued across launches) after each burst, so at
 * any instant the driver has counted at most one burst (FW_BURST) more than
 * fw_rx/fw_tx say.
 */
static uint64_t fw_rx, fw_tx;
static bool fw_stop;
static uint16_t fw_port;

static int
fw_main(void *arg)
{
	uint64_t rx = __atomic_load_n(&fw_rx, __ATOMIC_ACQUIRE);
	uint64_t tx = __atomic_load_n(&fw_tx, __ATOMIC_ACQUIRE);
	struct rte_mbuf *b[FW_BURST];
	uint16_t q, n, s;

	RTE_SET_USED(arg);
	while (!__atomic_load_n(&fw_stop, __ATOMIC_ACQUIRE)) {
		for (q = 0; q < FW_NQ; q++) {
			n = rte_eth_rx_burst(fw_port, q, b, FW_BURST);
			rx += n;
			__atomic_store_n(&fw_rx, rx, __ATOMIC_RELEASE);
			if (n == 0)
				continue;
			s = rte_eth_tx_burst(fw_port, q, b, n);
			tx += s;
			__atomic_store_n(&fw_tx, tx, __ATOMIC_RELEASE);
			if (s < n)
				rte_pktmbuf_free_bulk(&b[s], n - s);
		}
	}
	return 0;
}

static uint64_t
fw_get(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_ACQUIRE);
}

static void
fw_launch(unsigned int lcore)
{
	__atomic_store_n(&fw_stop, false, __ATOMIC_RELEASE);
	REQUIRE_EQ(rte_eal_remote_launch(fw_main, NULL, lcore), 0);
}

static void
fw_join(unsigned int lcore)
{
	__atomic_store_n(&fw_stop, true, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(lcore);
}

/*
 * The port's counters after a reset, read while forwarding goes on: what the
 * forwarding side received (sent) since the reset, within what that instant
 * allows. rx0/rx1: its total just before the reset was called / after it
 * returned; a/b: just before / after the counters were read. The driver may
 * be one burst ahead of what the lcore published.
 */
static bool
fw_in_bounds(uint64_t v, uint64_t c0, uint64_t c1, uint64_t a, uint64_t b)
{
	uint64_t lo = a > c1 + FW_BURST ? a - c1 - FW_BURST : 0;

	return v >= lo && v <= b - c0 + FW_BURST;
}

static void
test_reset_while_forwarding(void)
{
	struct comp_port_cfg pc = { .nb_rxq = FW_NQ, .nb_txq = FW_NQ, .rss = true,
				    .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP };
	uint64_t r0, r1, t0, t1, ra, rb, ta, tb, rx_at, tx_at;
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0), i, resets = 0, bad = 0;
	struct comp_qstats qs;
	struct rte_eth_stats st;
	struct rte_mempool *mp;
	int64_t xq0, xq1;
	bool xs;
	int pid;

	REQUIRE(lcore < RTE_MAX_LCORE);
	REQUIRE_EQ(comp_vdev_create("net_mana_rfw", "wire=gen:flows=16:lossless=1"), 0);
	pid = comp_port_of("net_mana_rfw", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("rfw_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	fw_port = pid;
	__atomic_store_n(&fw_rx, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&fw_tx, 0, __ATOMIC_RELEASE);
	fw_launch(lcore);
	/* Forwarding under way before the first reset. */
	for (i = 0; fw_get(&fw_rx) < 10000 && i < COMP_WAIT_MS; i++)
		comp_sleep_ms(1);
	REQUIRE(fw_get(&fw_rx) >= 10000, "forwarding did not start (%" PRIu64 " received)",
		    fw_get(&fw_rx));
	for (i = 0; i < 300; i++) {
		/* Every third reset through xstats: the same counters. */
		xs = i % 3 == 2;
		r0 = fw_get(&fw_rx);
		t0 = fw_get(&fw_tx);
		CHECK_EQ(xs ? rte_eth_xstats_reset(pid) : rte_eth_stats_reset(pid), 0);
		r1 = fw_get(&fw_rx);
		t1 = fw_get(&fw_tx);
		resets++;
		comp_sleep_ms(1 + i % 3);
		ra = fw_get(&fw_rx);
		ta = fw_get(&fw_tx);
		CHECK_EQ(rte_eth_stats_get(pid, &st), 0);
		xq0 = xs ? comp_xstat(pid, "rx_q0_packets") : 0;
		xq1 = xs ? comp_xstat(pid, "rx_q1_packets") : 0;
		rb = fw_get(&fw_rx);
		tb = fw_get(&fw_tx);
		if (fw_in_bounds(st.ipackets, r0, r1, ra, rb) &&
		    fw_in_bounds(st.opackets, t0, t1, ta, tb) &&
		    (!xs || fw_in_bounds((uint64_t)(xq0 + xq1), r0, r1, ra, rb)))
			continue;
		if (bad++ == 0)
			comp_fail(__FILE__, __LINE__, "after reset %u (%s): ipackets %" PRIu64
				  ", forwarded RX %" PRIu64 "..%" PRIu64 " since it; opackets %"
				  PRIu64 ", TX %" PRIu64 "..%" PRIu64 "; xstats rx_q* %" PRId64,
				  i, xs ? "xstats" : "stats", st.ipackets, ra - r1, rb - r0,
				  st.opackets, ta - t1, tb - t0, xq0 + xq1);
	}
	CHECK_MSG(bad == 0, "%u of %u resets not exact", bad, resets);
	printf("  %u resets while forwarding, %u outside the bounds, %" PRIu64 " received\n",
	       resets, bad, fw_get(&fw_rx));

	/* No burst in flight: a reset is exact to the packet. */
	fw_join(lcore);
	CHECK_EQ(rte_eth_stats_reset(pid), 0);
	rx_at = fw_get(&fw_rx);
	tx_at = fw_get(&fw_tx);
	fw_launch(lcore);
	for (i = 0; fw_get(&fw_rx) < rx_at + 5000 && i < COMP_WAIT_MS; i++)
		comp_sleep_ms(1);
	fw_join(lcore);
	CHECK_EQ(rte_eth_stats_get(pid, &st), 0);
	CHECK(fw_get(&fw_rx) >= rx_at + 5000);
	CHECK_EQ(st.ipackets, fw_get(&fw_rx) - rx_at);
	CHECK_EQ(st.opackets, fw_get(&fw_tx) - tx_at);
	CHECK_EQ(comp_qstats_get(pid, &qs), 0);
	CHECK_EQ(qs.ipackets[0] + qs.ipackets[1], st.ipackets);
	CHECK_EQ((uint64_t)comp_xstat(pid, "rx_q0_packets") +
		 (uint64_t)comp_xstat(pid, "rx_q1_packets"), st.ipackets);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_rfw");
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	rte_mempool_free(mp);
}

/* ---- statistics across queue re-setup and reconfiguration (item 14) ------- */

static void
check_port_totals(int pid, uint64_t rx, uint64_t tx, uint32_t len)
{
	struct rte_eth_stats st;

	CHECK_EQ(rte_eth_stats_get(pid, &st), 0);
	CHECK_EQ(st.ipackets, rx);
	CHECK_EQ(st.ibytes, rx * len);
	CHECK_EQ(st.opackets, tx);
	CHECK_EQ(st.obytes, tx * len);
	CHECK_EQ(comp_xstat(pid, "rx_good_packets"), (int64_t)rx);
	CHECK_EQ(comp_xstat(pid, "tx_good_packets"), (int64_t)tx);
	/* The device's counters, from the same reset on. */
	CHECK_EQ(comp_xstat(pid, "dev_rx_frames"), (int64_t)rx);
	CHECK_EQ(comp_xstat(pid, "dev_tx_frames"), (int64_t)tx);
}

static void
test_stats_across_reconfig(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 2, .nb_txq = 2, .rss = true,
				    .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP };
	struct rte_eth_conf conf;
	struct rte_ether_addr mac;
	struct comp_qstats qs;
	struct rte_mempool *mp;
	uint32_t per_q[2];
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_rcf", "wire=loop"), 0);
	pid = comp_port_of("net_mana_rcf", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("rcf_pool", 2048, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	rte_eth_macaddr_get(pid, &mac);
	send_frames(pid, 0, mp, &mac, 100, 100, 1);
	send_frames(pid, 1, mp, &mac, 100, 100, 2);
	CHECK_EQ(comp_rx_wait(pid, 2, NULL, 0, 200, COMP_WAIT_MS, per_q), 200);
	check_port_totals(pid, 200, 200, 100);

	/* Queue 0 set up again: its counters stay in the port's and the queue's. */
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_rx_queue_setup(pid, 0, 256, SOCKET_ID_ANY, NULL, mp), 0);
	CHECK_EQ(rte_eth_tx_queue_setup(pid, 0, 256, SOCKET_ID_ANY, NULL), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	check_port_totals(pid, 200, 200, 100);
	CHECK_EQ(comp_qstats_get(pid, &qs), 0);
	CHECK_EQ(qs.ipackets[0], per_q[0]);
	CHECK_EQ(qs.ipackets[1], per_q[1]);
	CHECK_EQ(qs.opackets[0], 100);
	CHECK_EQ(comp_xstat(pid, "rx_q0_packets"), per_q[0]);
	CHECK_EQ(comp_xstat(pid, "tx_q0_packets"), 100);

	/* Reconfigured to one queue: queue 1's packets still count for the port. */
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	memset(&conf, 0, sizeof(conf));
	CHECK_EQ(rte_eth_dev_configure(pid, 1, 1, &conf), 0);
	CHECK_EQ(rte_eth_rx_queue_setup(pid, 0, 256, SOCKET_ID_ANY, NULL, mp), 0);
	CHECK_EQ(rte_eth_tx_queue_setup(pid, 0, 256, SOCKET_ID_ANY, NULL), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	check_port_totals(pid, 200, 200, 100);
	send_frames(pid, 0, mp, &mac, 50, 100, 3);
	CHECK_EQ(comp_rx_wait(pid, 1, NULL, 0, 50, COMP_WAIT_MS, NULL), 50);
	check_port_totals(pid, 250, 250, 100);
	CHECK_EQ(comp_xstat(pid, "rx_q1_packets"), -1);

	/* Until a reset: then both the port's and the device's view restart. */
	CHECK_EQ(rte_eth_stats_reset(pid), 0);
	check_port_totals(pid, 0, 0, 100);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	pc.nb_rxq = 2;
	pc.nb_txq = 2;
	memset(&conf, 0, sizeof(conf));
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	check_port_totals(pid, 0, 0, 100);
	CHECK_EQ(comp_xstat(pid, "rx_q1_packets"), 0);
	send_frames(pid, 1, mp, &mac, 20, 100, 4);
	CHECK_EQ(comp_rx_wait(pid, 2, NULL, 0, 20, COMP_WAIT_MS, NULL), 20);
	check_port_totals(pid, 20, 20, 100);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_rcf");
	CHECK_EQ(rte_mempool_avail_count(mp), 2048);
	rte_mempool_free(mp);
}

/* ---- events the application turned off (item 9) ---------------------------- */

/* The link as polling reads it reaches `up` within COMP_WAIT_MS. */
static bool
wait_link(int pid, bool up)
{
	uint64_t end = comp_now_ms() + COMP_WAIT_MS;
	struct rte_eth_link link;

	do {
		if (rte_eth_link_get_nowait(pid, &link) == 0 &&
		    (link.link_status == RTE_ETH_LINK_UP) == up)
			return true;
		comp_sleep_ms(1);
	} while (comp_now_ms() < end);
	return false;
}

/* Events must NOT come: the interrupt thread gets this long to raise one anyway. */
#define NO_EVENT_MS	500

static void
events_off_case(const char *vdev, bool lsc)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1, .intr_lsc = lsc };
	unsigned int lsc0, rmv0;
	struct rte_ether_addr mac;
	struct rte_mempool *mp;
	struct mana_model *m;
	int pid;

	REQUIRE_EQ(comp_vdev_create(vdev, "wire=loop,recovery_timeout=100"), 0);
	pid = comp_port_of(vdev, 0);
	m = mana_model_find(vdev);
	REQUIRE(pid >= 0 && m != NULL);
	mp = comp_pool("evo_pool", 1024, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	rte_eth_macaddr_get(pid, &mac);
	REQUIRE_EQ(rte_eth_dev_callback_register(pid, RTE_ETH_EVENT_INTR_LSC, event_cb, NULL), 0);
	REQUIRE_EQ(rte_eth_dev_callback_register(pid, RTE_ETH_EVENT_INTR_RMV, event_cb, NULL), 0);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	lsc0 = __atomic_load_n(&lsc_events, __ATOMIC_ACQUIRE);
	rmv0 = __atomic_load_n(&rmv_events, __ATOMIC_ACQUIRE);
	if (!lsc) {
		/* lsc = 0: link changes read by polling, no event. */
		CHECK_EQ(mana_model_set_link(m, 0, false), 0);
		CHECK_MSG(wait_link(pid, false), "polling does not see the link go down");
		CHECK_EQ(mana_model_set_link(m, 0, true), 0);
		CHECK_MSG(wait_link(pid, true), "polling does not see the link come up");
		comp_sleep_ms(NO_EVENT_MS);
		CHECK_EQ(__atomic_load_n(&lsc_events, __ATOMIC_ACQUIRE), lsc0);
		send_frames(pid, 0, mp, &mac, 4, 100, 1);
		CHECK_EQ(comp_rx_wait(pid, 1, NULL, 0, 4, COMP_WAIT_MS, NULL), 4);
	}
	/* rmv = 0: a fatal error takes the link down (an LSC event if lsc = 1), no RMV. */
	CHECK_EQ(mana_model_fatal(m), 0);
	if (lsc)
		CHECK_MSG(wait_count(&lsc_events, lsc0 + 1, COMP_WAIT_MS),
			  "no LSC event after a fatal error with rmv = 0");
	CHECK_MSG(wait_link(pid, false), "link not down after a fatal error");
	comp_sleep_ms(NO_EVENT_MS);
	CHECK_EQ(__atomic_load_n(&rmv_events, __ATOMIC_ACQUIRE), rmv0);
	CHECK_EQ(__atomic_load_n(&lsc_events, __ATOMIC_ACQUIRE), lsc0 + (lsc ? 1 : 0));
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK(rte_eth_dev_start(pid) != 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 1024);
	rte_eth_dev_callback_unregister(pid, RTE_ETH_EVENT_INTR_LSC, event_cb, NULL);
	rte_eth_dev_callback_unregister(pid, RTE_ETH_EVENT_INTR_RMV, event_cb, NULL);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy(vdev);
	rte_mempool_free(mp);
}

static void
test_events_off(void)
{
	events_off_case("net_mana_evo0", false);
	events_off_case("net_mana_evo1", true);
}

/* ---- doorbell modes with several queues, exact totals (item 8) ------------- */

#define DB_NQ		4
#define DB_FRAMES	4000

static void
doorbell_case(const char *mode)
{
	struct comp_port_cfg pc = { .nb_rxq = DB_NQ, .nb_txq = DB_NQ, .rss = true,
				    .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP };
	uint32_t per_q[DB_NQ] = { 0 }, got = 0, q;
	struct mana_model_port_stats ms;
	struct rte_mbuf *b[FW_BURST];
	char vdev[32], args[96];
	struct comp_qstats qs;
	struct rte_eth_stats st;
	struct rte_mempool *mp;
	uint64_t end;
	uint16_t n;
	int pid;

	snprintf(vdev, sizeof(vdev), "net_mana_db%s", mode);
	snprintf(args, sizeof(args), "doorbell=%s,wire=gen:flows=64:lossless=1:count=%u",
		 mode, DB_FRAMES);
	REQUIRE_EQ(comp_vdev_create(vdev, args), 0);
	pid = comp_port_of(vdev, 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("db_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	/* Every frame back out on the queue it came in on. */
	end = comp_now_ms() + 3 * COMP_WAIT_MS;
	while (got < DB_FRAMES && comp_now_ms() < end) {
		for (q = 0; q < DB_NQ; q++) {
			n = rte_eth_rx_burst(pid, q, b, FW_BURST);
			per_q[q] += n;
			got += n;
			if (n != 0)
				CHECK_EQ(comp_tx_all(pid, q, b, n, COMP_WAIT_MS), n);
		}
	}
	CHECK_MSG(got == DB_FRAMES, "doorbell=%s: %u of %u frames received", mode, got,
		  DB_FRAMES);
	for (q = 0; q < DB_NQ; q++)
		CHECK_MSG(per_q[q] > 0, "doorbell=%s: RX queue %u received nothing", mode, q);
	/* The sink has every frame sent once the device processed the last doorbells. */
	end = comp_now_ms() + COMP_WAIT_MS;
	do {
		rte_eth_tx_done_cleanup(pid, 0, 0);
		REQUIRE(comp_model_stats(vdev, 0, &ms));
	} while (ms.wire_sink_frames < DB_FRAMES && comp_now_ms() < end);
	CHECK_EQ(rte_eth_stats_get(pid, &st), 0);
	CHECK_EQ(st.ipackets, DB_FRAMES);
	CHECK_EQ(st.opackets, DB_FRAMES);
	CHECK_EQ(st.ierrors + st.oerrors + st.imissed + st.rx_nombuf, 0);
	CHECK_EQ(comp_qstats_get(pid, &qs), 0);
	for (q = 0; q < DB_NQ; q++)
		CHECK_EQ(qs.ipackets[q], per_q[q]);
	CHECK_EQ(ms.wire_gen_frames, DB_FRAMES);
	CHECK_EQ(ms.rx_frames, DB_FRAMES);
	CHECK_EQ(ms.tx_frames, DB_FRAMES);
	CHECK_EQ(ms.wire_sink_frames, DB_FRAMES);
	CHECK_EQ(ms.wire_sink_bad, 0);
	CHECK_EQ(ms.rx_drop_no_wqe + ms.rx_drop_no_rxq + ms.db_rejected + ms.queue_errors, 0);
	printf("  doorbell=%s: %u frames, per RX queue %u %u %u %u\n", mode, got, per_q[0],
	       per_q[1], per_q[2], per_q[3]);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy(vdev);
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	rte_mempool_free(mp);
}

/*
 * doorbell=memory is left out: the device reads one slot per doorbell kind
 * (SQ, RQ, CQ) of the shared page, the last store wins, so with several
 * queues of a kind all but one lose their doorbells (lossy by design).
 */
static void
test_doorbell_modes(void)
{
	doorbell_case("shared");
	doorbell_case("queue");
}

static const struct comp_case cases[] = {
	{ "stats", test_stats },
	{ "reset_in_flight", test_reset_in_flight },
	{ "link_events", test_link_events },
	{ "reset_while_forwarding", test_reset_while_forwarding },
	{ "stats_across_reconfig", test_stats_across_reconfig },
	{ "events_off", test_events_off },
	{ "doorbell_modes", test_doorbell_modes },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
