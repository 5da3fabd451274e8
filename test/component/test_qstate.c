/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Queue start/stop through ethdev on the software device:
 *
 *   txq_stop_start  a stopped TX queue reports STOPPED and sends nothing, the
 *                   other queue goes on; started again it sends; the model
 *                   counts exactly what was sent; no mbuf lost
 */

#include <stdio.h>

#include "comp.h"

#define QS_N	64

static uint16_t
qs_send(uint16_t pid, uint16_t q, struct rte_mempool *mp, uint16_t n)
{
	struct rte_mbuf *pkts[QS_N];
	uint8_t buf[256];
	struct comp_frame f;
	uint32_t len;
	uint16_t i, sent;

	comp_frame_default(&f);
	len = comp_frame_build(buf, &f);
	for (i = 0; i < n; i++) {
		pkts[i] = comp_mbuf_from(mp, buf, len);
		if (pkts[i] == NULL)
			break;
	}
	n = i;
	sent = rte_eth_tx_burst(pid, q, pkts, n);
	comp_free(pkts + sent, n - sent);
	return sent;
}

static void
test_txq_stop_start(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 2, .nb_txq = 2, .rss = true };
	struct mana_model_port_stats s0;
	struct rte_eth_txq_info qi;
	struct rte_mempool *mp;
	uint64_t t0;
	int p0, p1;

	REQUIRE_EQ(comp_vdev_create("net_mana_qs", "ports=2,wire=pair:1,wire=pair:0"), 0);
	p0 = comp_port_of("net_mana_qs", 0);
	p1 = comp_port_of("net_mana_qs", 1);
	REQUIRE(p0 >= 0 && p1 >= 0);
	mp = comp_pool("qs_pool", 2048, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(p0, &pc, mp), 0);
	REQUIRE_EQ(comp_port_start(p1, &pc, mp), 0);

	REQUIRE_EQ(rte_eth_dev_tx_queue_stop(p0, 0), 0);
	REQUIRE_EQ(rte_eth_tx_queue_info_get(p0, 0, &qi), 0);
	CHECK_EQ(qi.queue_state, RTE_ETH_QUEUE_STATE_STOPPED);
	CHECK_EQ(qs_send(p0, 0, mp, QS_N), 0);		/* closed gate: nothing taken */
	CHECK_EQ(qs_send(p0, 1, mp, QS_N), QS_N);	/* the other queue goes on */

	REQUIRE_EQ(rte_eth_dev_tx_queue_start(p0, 0), 0);
	REQUIRE_EQ(rte_eth_tx_queue_info_get(p0, 0, &qi), 0);
	CHECK_EQ(qi.queue_state, RTE_ETH_QUEUE_STATE_STARTED);
	CHECK_EQ(qs_send(p0, 0, mp, QS_N), QS_N);
	/* The device sends asynchronously: poll its counter (bounded). */
	for (t0 = comp_now_ms(); comp_now_ms() - t0 < COMP_WAIT_MS; comp_sleep_ms(10)) {
		REQUIRE(comp_model_stats("net_mana_qs", 0, &s0));
		if (s0.tx_frames >= 2 * QS_N)
			break;
	}
	CHECK_EQ(s0.tx_frames, 2 * QS_N);

	CHECK_EQ(rte_eth_dev_stop(p0), 0);
	CHECK_EQ(rte_eth_dev_stop(p1), 0);
	comp_vdev_destroy("net_mana_qs");
	CHECK_EQ(rte_mempool_avail_count(mp), 2048);
	rte_mempool_free(mp);
}

static const struct comp_case cases[] = {
	{ "txq_stop_start", test_txq_stop_start },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
