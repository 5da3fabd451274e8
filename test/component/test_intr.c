/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * RX interrupt mode (intr_conf.rxq = 1): each queue's event fd, added to the
 * thread's epoll set with rte_eth_dev_rx_intr_ctl_q(), wakes rte_epoll_wait()
 * when a frame arrives on that queue after rte_eth_dev_rx_intr_enable(), and
 * only on that queue; with nothing arriving, or with the queue not armed,
 * the wait times out. A frame already waiting when the queue is armed wakes
 * the waiter at once (no lost wake-up). Stopping and starting another RX
 * queue (which builds the port's RX side again) keeps an armed queue armed,
 * with the same event fd in the epoll set.
 */

#include <string.h>
#include <netinet/in.h>

#include <rte_epoll.h>
#include <rte_interrupts.h>
#include <rte_ip.h>
#include <rte_thash.h>

#include "comp.h"

#define NQ	2

static uint8_t rss_key[40];
static uint8_t frame_buf[256];

/* A UDP frame the default table (queue = entry % NQ) steers to queue q. */
static uint32_t
frame_for_queue(uint16_t q, uint16_t salt, const struct rte_ether_addr *mac)
{
	union rte_thash_tuple t;
	struct comp_frame f;
	uint32_t h;
	uint16_t sport;

	for (sport = (uint16_t)(1000 + salt * 64);; sport++) {
		memset(&t, 0, sizeof(t));
		comp_frame_default(&f);
		f.sport = sport;
		t.v4.src_addr = f.sip;
		t.v4.dst_addr = f.dip;
		t.v4.sport = f.sport;
		t.v4.dport = f.dport;
		h = rte_softrss((uint32_t *)&t, RTE_THASH_V4_L4_LEN, rss_key);
		if ((h & 63) % NQ == q)
			break;
	}
	f.dst = *mac;
	f.seed = (uint8_t)salt;
	return comp_frame_build(frame_buf, &f);
}

static int
wait_event(unsigned int timeout_ms, uintptr_t *data)
{
	struct rte_epoll_event ev[NQ];
	int n;

	memset(ev, 0, sizeof(ev));
	n = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, NQ, (int)timeout_ms);
	if (n > 0 && data != NULL)
		*data = (uintptr_t)ev[0].epdata.data;
	return n;
}

/*
 * A frame for queue q (armed by the caller): its waiter wakes with the queue's
 * epoll data, the event is consumed and the one frame received.
 */
static void
wake_and_take(int pid, struct mana_model *m, const struct rte_ether_addr *mac, uint16_t q,
	      uint16_t salt)
{
	struct rte_mbuf *b[4];
	uintptr_t data = 0;
	uint32_t len = frame_for_queue(q, salt, mac);

	REQUIRE_EQ(mana_model_inject_rx(m, 0, frame_buf, len), 0);
	CHECK_EQ(wait_event(COMP_WAIT_MS, &data), 1);
	CHECK_EQ(data, 0x100 + q);
	CHECK_EQ(rte_eth_dev_rx_intr_disable(pid, q), 0);
	CHECK_EQ(rte_eth_rx_burst(pid, q, b, RTE_DIM(b)), 1);
	rte_pktmbuf_free(b[0]);
}

static void
test_rx_intr(void)
{
	struct comp_port_cfg pc = { .nb_rxq = NQ, .nb_txq = 1, .rss = true,
				    .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP, .intr_rxq = true };
	struct rte_eth_rss_conf rc;
	struct rte_ether_addr mac;
	struct rte_mempool *mp;
	struct rte_mbuf *b[4];
	struct mana_model *m;
	uintptr_t data = 0;
	uint32_t len;
	uint64_t t0;
	uint16_t q, round;
	int pid, n, fd0;

	REQUIRE_EQ(comp_vdev_create("net_mana_intr", ""), 0);
	pid = comp_port_of("net_mana_intr", 0);
	m = mana_model_find("net_mana_intr");
	REQUIRE(pid >= 0 && m != NULL);
	rte_eth_macaddr_get(pid, &mac);
	mp = comp_pool("intr_pool", 1024, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = rss_key;
	rc.rss_key_len = sizeof(rss_key);
	REQUIRE_EQ(rte_eth_dev_rss_hash_conf_get(pid, &rc), 0);
	for (q = 0; q < NQ; q++) {
		CHECK(rte_eth_dev_rx_intr_ctl_q_get_fd(pid, q) >= 0);
		REQUIRE_EQ(rte_eth_dev_rx_intr_ctl_q(pid, q, RTE_EPOLL_PER_THREAD,
						     RTE_INTR_EVENT_ADD,
						     (void *)(uintptr_t)(0x100 + q)), 0);
	}

	/* Rounds alternate queues; the last one (3) targets queue 1. */
	for (round = 0; round < 4; round++) {
		uint16_t target = round % NQ;

		for (q = 0; q < NQ; q++)
			REQUIRE_EQ(rte_eth_dev_rx_intr_enable(pid, q), 0);
		/* Nothing arrives: the wait times out. */
		t0 = comp_now_ms();
		CHECK_EQ(wait_event(100, NULL), 0);
		CHECK(comp_now_ms() - t0 >= 90);
		len = frame_for_queue(target, round, &mac);
		REQUIRE_EQ(mana_model_inject_rx(m, 0, frame_buf, len), 0);
		n = wait_event(COMP_WAIT_MS, &data);
		CHECK_MSG(n == 1, "round %u: epoll returned %d for a frame on queue %u", round, n,
			  target);
		CHECK_EQ(data, 0x100 + target);
		for (q = 0; q < NQ; q++)
			CHECK_EQ(rte_eth_dev_rx_intr_disable(pid, q), 0);
		CHECK_EQ(rte_eth_rx_burst(pid, target, b, RTE_DIM(b)), 1);
		CHECK(memcmp(rte_pktmbuf_mtod(b[0], void *), frame_buf, len) == 0);
		rte_pktmbuf_free(b[0]);
		CHECK_EQ(rte_eth_rx_burst(pid, (target + 1) % NQ, b, RTE_DIM(b)), 0);
	}

	/*
	 * Not armed: a frame arrives, nobody is woken. Queue 1 fired in the last
	 * round, which used up its one-shot arm (queue 0 is still armed: there is
	 * no disarm on this device, rx_intr_disable only consumes an event).
	 */
	len = frame_for_queue(1, 50, &mac);
	REQUIRE_EQ(mana_model_inject_rx(m, 0, frame_buf, len), 0);
	CHECK_EQ(wait_event(150, NULL), 0);
	CHECK_EQ(rte_eth_rx_queue_count(pid, 1), 1);
	/* Armed with that frame still waiting: the waiter wakes at once. */
	REQUIRE_EQ(rte_eth_dev_rx_intr_enable(pid, 1), 0);
	CHECK_EQ(wait_event(COMP_WAIT_MS, &data), 1);
	CHECK_EQ(data, 0x101);
	CHECK_EQ(rte_eth_dev_rx_intr_disable(pid, 1), 0);
	CHECK_EQ(rte_eth_rx_burst(pid, 1, b, RTE_DIM(b)), 1);
	rte_pktmbuf_free(b[0]);

	/* Queue 0 armed, queue 1 stopped then started: queue 0 still wakes its waiter. */
	fd0 = rte_eth_dev_rx_intr_ctl_q_get_fd(pid, 0);
	REQUIRE_EQ(rte_eth_dev_rx_intr_enable(pid, 0), 0);
	REQUIRE_EQ(rte_eth_dev_rx_queue_stop(pid, 1), 0);
	CHECK_EQ(rte_eth_dev_rx_intr_ctl_q_get_fd(pid, 0), fd0);
	wake_and_take(pid, m, &mac, 0, 60);
	REQUIRE_EQ(rte_eth_dev_rx_intr_enable(pid, 0), 0);
	REQUIRE_EQ(rte_eth_dev_rx_queue_start(pid, 1), 0);
	REQUIRE_EQ(rte_eth_dev_rx_intr_enable(pid, 1), 0);
	wake_and_take(pid, m, &mac, 1, 61);
	wake_and_take(pid, m, &mac, 0, 62);

	for (q = 0; q < NQ; q++)
		CHECK_EQ(rte_eth_dev_rx_intr_ctl_q(pid, q, RTE_EPOLL_PER_THREAD,
						   RTE_INTR_EVENT_DEL, NULL), 0);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	/* Queues without interrupts configured cannot be armed. */
	pc.intr_rxq = false;
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	CHECK(rte_eth_dev_rx_intr_enable(pid, 0) != 0);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_intr");
	CHECK_EQ(rte_mempool_avail_count(mp), 1024);
	rte_mempool_free(mp);
}

/* Every RETA entry i to queue pat[i % period]. */
static int
reta_pattern(uint16_t pid, const uint16_t *pat, uint16_t period)
{
	struct rte_eth_rss_reta_entry64 r[1];
	int i;

	memset(r, 0, sizeof(r));
	r[0].mask = UINT64_MAX;
	for (i = 0; i < 64; i++)
		r[0].reta[i] = pat[i % period];
	return rte_eth_dev_rss_reta_update(pid, r, 64);
}

/*
 * A queue the RSS table leaves out (issue 31) has no CQ: arming it succeeds
 * and does nothing until a table names it, and the rebuild that puts it in
 * the table arms its new CQ, so its waiter wakes without arming again.
 */
static void
test_rx_intr_subset(void)
{
	struct comp_port_cfg pc = { .nb_rxq = NQ, .nb_txq = 1, .rss = true,
				    .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP, .intr_rxq = true };
	static const uint16_t only0[1] = { 0 }, both[2] = { 0, 1 };
	struct rte_eth_rss_conf rc;
	struct rte_ether_addr mac;
	struct rte_mempool *mp;
	struct rte_mbuf *b[4];
	struct mana_model *m;
	uintptr_t data = 0;
	uint32_t len;
	uint16_t q;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_intrs", ""), 0);
	pid = comp_port_of("net_mana_intrs", 0);
	m = mana_model_find("net_mana_intrs");
	REQUIRE(pid >= 0 && m != NULL);
	rte_eth_macaddr_get(pid, &mac);
	mp = comp_pool("intrs_pool", 1024, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = rss_key;
	rc.rss_key_len = sizeof(rss_key);
	REQUIRE_EQ(rte_eth_dev_rss_hash_conf_get(pid, &rc), 0);
	for (q = 0; q < NQ; q++)
		REQUIRE_EQ(rte_eth_dev_rx_intr_ctl_q(pid, q, RTE_EPOLL_PER_THREAD,
						     RTE_INTR_EVENT_ADD,
						     (void *)(uintptr_t)(0x100 + q)), 0);

	/* Table of queue 0 alone: queue 1 armed without a CQ; its frames go to 0. */
	REQUIRE_EQ(reta_pattern(pid, only0, 1), 0);
	CHECK_EQ(rte_eth_dev_rx_intr_enable(pid, 1), 0);
	CHECK_EQ(rte_eth_dev_rx_intr_enable(pid, 0), 0);
	len = frame_for_queue(1, 70, &mac);
	REQUIRE_EQ(mana_model_inject_rx(m, 0, frame_buf, len), 0);
	CHECK_EQ(wait_event(COMP_WAIT_MS, &data), 1);
	CHECK_EQ(data, 0x100);
	CHECK_EQ(rte_eth_dev_rx_intr_disable(pid, 0), 0);
	CHECK_EQ(rte_eth_rx_burst(pid, 0, b, RTE_DIM(b)), 1);
	rte_pktmbuf_free(b[0]);
	CHECK_EQ(rte_eth_rx_burst(pid, 1, b, RTE_DIM(b)), 0);

	/* Queue 1 back in the table: armed by the rebuild, it wakes its waiter. */
	REQUIRE_EQ(reta_pattern(pid, both, 2), 0);
	len = frame_for_queue(1, 71, &mac);
	REQUIRE_EQ(mana_model_inject_rx(m, 0, frame_buf, len), 0);
	CHECK_EQ(wait_event(COMP_WAIT_MS, &data), 1);
	CHECK_EQ(data, 0x101);
	CHECK_EQ(rte_eth_dev_rx_intr_disable(pid, 1), 0);
	CHECK_EQ(rte_eth_rx_burst(pid, 1, b, RTE_DIM(b)), 1);
	rte_pktmbuf_free(b[0]);

	for (q = 0; q < NQ; q++)
		CHECK_EQ(rte_eth_dev_rx_intr_ctl_q(pid, q, RTE_EPOLL_PER_THREAD,
						   RTE_INTR_EVENT_DEL, NULL), 0);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_intrs");
	CHECK_EQ(rte_mempool_avail_count(mp), 1024);
	rte_mempool_free(mp);
}

static const struct comp_case cases[] = {
	{ "rx_intr", test_rx_intr },
	{ "rx_intr_subset", test_rx_intr_subset },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
