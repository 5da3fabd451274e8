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
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

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
	REQUIRE(comp_model_stats("net_mana_st", 0, &s0));
	REQUIRE(comp_model_stats("net_mana_st", 1, &s1));
	CHECK_EQ(a.opackets, 2 * PER_Q);
	CHECK_EQ(a.obytes, PER_Q * 100 + PER_Q * 300);
	CHECK_EQ(a.q_opackets[0], PER_Q);
	CHECK_EQ(a.q_opackets[1], PER_Q);
	CHECK_EQ(a.q_obytes[0], PER_Q * 100);
	CHECK_EQ(a.q_obytes[1], PER_Q * 300);
	CHECK_EQ(a.oerrors, 0);
	CHECK_EQ(a.opackets, s0.tx_frames);
	CHECK_EQ(a.obytes, s0.tx_bytes);
	CHECK_EQ(b.ipackets, 2 * PER_Q);
	CHECK_EQ(b.ibytes, PER_Q * 100 + PER_Q * 300);
	CHECK_EQ(b.ipackets, s1.rx_frames);
	CHECK_EQ(b.ibytes, s1.rx_bytes);
	CHECK_EQ(b.q_ipackets[0], per_q[0]);
	CHECK_EQ(b.q_ipackets[1], per_q[1]);
	CHECK_EQ(b.q_ipackets[0] + b.q_ipackets[1], b.ipackets);
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
			CHECK_EQ(xs[i].value, b.q_ibytes[1]);
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
	CHECK_EQ(b.q_ipackets[0], 0);
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
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1, .intr_lsc = true };
	struct mana_model_port_stats st;
	struct rte_eth_link link;
	struct rte_ether_addr mac;
	struct rte_mempool *mp;
	struct mana_model *m;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_lnk", "wire=loop"), 0);
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

	/* The device is lost: RMV, link down, no restart. */
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

static const struct comp_case cases[] = {
	{ "stats", test_stats },
	{ "reset_in_flight", test_reset_in_flight },
	{ "link_events", test_link_events },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
