/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Queue start/stop through ethdev on the software device:
 *
 *   txq_stop_start  a stopped TX queue reports STOPPED and sends nothing, the
 *                   other queue goes on; started again it sends; the model
 *                   counts exactly what was sent; no mbuf lost
 *   rxq_stop_start  an RX queue stopped on a running 4-queue port receives
 *                   nothing and the device drops exactly the frames RSS gives
 *                   it; the other queues receive what they did before; started
 *                   again it receives its share; all four stopped, then
 *                   started; no mbuf lost
 *   deferred        queues set up with rx/tx_deferred_start stay stopped at
 *                   dev_start (state, queue info), receive and send nothing,
 *                   and work once started; a port restart defers them again
 *   runtime_setup   RUNTIME_RX/TX_QUEUE_SETUP: a stopped RX queue of a running
 *                   4-queue port set up again with 128 descriptors stays
 *                   stopped (its share dropped by the device, the others'
 *                   unchanged) and receives its share once started; a stopped
 *                   TX queue set up again sends once started; a started queue
 *                   is refused (-EBUSY); with RX interrupts the RX capability
 *                   is not offered; no mbuf lost
 *   recovery_keeps_stopped
 *                   an RX and a TX queue stopped by the application stay
 *                   stopped through a device reset and automatic recovery
 *                   (nothing received or sent there, the rest runs), and
 *                   start afterwards
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "comp.h"

#define QS_N	64
#define QS_NQ	4
#define QS_INJ	512		/* frames per round, every tuple different */

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

/*
 * One round: QS_INJ UDP frames (the same tuples every round) handed to the
 * device, then received on every queue of pid until the device has placed or
 * dropped all of them. per_q: frames per queue; *dropped: the device's
 * no-WQE drops of the round. Returns the frames received.
 */
static uint32_t
qs_rx_round(uint16_t pid, const char *vdev, uint32_t *per_q, uint64_t *dropped)
{
	struct mana_model_port_stats s0, s1;
	struct rte_ether_addr mac;
	struct mana_model *m = mana_model_find(vdev);
	uint8_t buf[256];
	struct comp_frame f;
	uint32_t i, got;
	uint64_t t0;

	*dropped = 0;
	if (!CHECK(m != NULL) || !CHECK(comp_model_stats(vdev, 0, &s0)))
		return 0;
	rte_eth_macaddr_get(pid, &mac);
	for (i = 0; i < QS_INJ; i++) {
		comp_frame_default(&f);
		f.dst = mac;
		f.sip = COMP_IPV4(172, 16, i & 0xff, 7);
		f.dip = COMP_IPV4(10, 9, 8, (i * 13) & 0xff);
		f.sport = (uint16_t)(40000 + i * 3);
		f.dport = (uint16_t)(80 + (i % 5));
		f.len = 128;
		comp_frame_build(buf, &f);
		if (!CHECK_EQ(mana_model_inject_rx(m, 0, buf, f.len), 0))
			return 0;
	}
	/* Every frame is placed or dropped by the device, then all placed ones are read. */
	for (t0 = comp_now_ms(); comp_now_ms() - t0 < COMP_WAIT_MS; comp_sleep_ms(5)) {
		if (!CHECK(comp_model_stats(vdev, 0, &s1)))
			return 0;
		if (s1.rx_frames - s0.rx_frames + s1.rx_drop_no_wqe - s0.rx_drop_no_wqe >= QS_INJ)
			break;
	}
	*dropped = s1.rx_drop_no_wqe - s0.rx_drop_no_wqe;
	memset(per_q, 0, sizeof(*per_q) * QS_NQ);
	got = comp_rx_wait(pid, QS_NQ, NULL, 0, (uint32_t)(s1.rx_frames - s0.rx_frames),
			   COMP_WAIT_MS, per_q);
	CHECK_EQ(got, s1.rx_frames - s0.rx_frames);
	CHECK_EQ(s1.rx_drop_no_rxq, s0.rx_drop_no_rxq);
	return got;
}

static uint16_t
qs_rxq_state(uint16_t pid, uint16_t q)
{
	struct rte_eth_rxq_info qi;

	if (!CHECK_EQ(rte_eth_rx_queue_info_get(pid, q, &qi), 0))
		return UINT16_MAX;
	return qi.queue_state;
}

static uint16_t
qs_txq_state(uint16_t pid, uint16_t q)
{
	struct rte_eth_txq_info qi;

	if (!CHECK_EQ(rte_eth_tx_queue_info_get(pid, q, &qi), 0))
		return UINT16_MAX;
	return qi.queue_state;
}

/* Microseconds rte_eth_dev_rx_queue_stop/start took (printed: the RX window). */
static int
qs_rxq_op(uint16_t pid, uint16_t q, bool start, uint64_t *us)
{
	uint64_t t0 = rte_get_timer_cycles();
	int ret = start ? rte_eth_dev_rx_queue_start(pid, q) : rte_eth_dev_rx_queue_stop(pid, q);

	*us = (rte_get_timer_cycles() - t0) * 1000000 / rte_get_timer_hz();
	return ret;
}

static void
test_rxq_stop_start(void)
{
	struct comp_port_cfg pc = { .nb_rxq = QS_NQ, .nb_txq = 1, .rss = true };
	uint32_t base[QS_NQ], per_q[QS_NQ], q;
	struct rte_mbuf *pkt;
	struct rte_mempool *mp;
	uint64_t dropped, us_stop, us_start, t0;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_qr", ""), 0);
	pid = comp_port_of("net_mana_qr", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("qr_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);

	/* All four started: the round's shares. */
	CHECK_EQ(qs_rx_round(pid, "net_mana_qr", base, &dropped), QS_INJ);
	CHECK_EQ(dropped, 0);
	for (q = 0; q < QS_NQ; q++)
		REQUIRE(base[q] > 0, "queue %u got none of %u flows", q, QS_INJ);

	/* Queue 1 stopped: its share is dropped by the device, the others' is unchanged. */
	REQUIRE_EQ(qs_rxq_op(pid, 1, false, &us_stop), 0);
	CHECK_EQ(qs_rxq_state(pid, 1), RTE_ETH_QUEUE_STATE_STOPPED);
	CHECK_EQ(qs_rxq_state(pid, 0), RTE_ETH_QUEUE_STATE_STARTED);
	CHECK_EQ(qs_rx_round(pid, "net_mana_qr", per_q, &dropped), QS_INJ - base[1]);
	CHECK_EQ(dropped, base[1]);
	CHECK_EQ(per_q[1], 0);
	CHECK_EQ(rte_eth_rx_burst(pid, 1, &pkt, 1), 0);
	for (q = 0; q < QS_NQ; q++)
		if (q != 1)
			CHECK_EQ(per_q[q], base[q]);
	/* ethdev: stopping a stopped queue is no error, and the driver is not called. */
	CHECK_EQ(rte_eth_dev_rx_queue_stop(pid, 1), 0);

	/* Started again: all of it, as before. */
	REQUIRE_EQ(qs_rxq_op(pid, 1, true, &us_start), 0);
	CHECK_EQ(qs_rxq_state(pid, 1), RTE_ETH_QUEUE_STATE_STARTED);
	CHECK_EQ(qs_rx_round(pid, "net_mana_qr", per_q, &dropped), QS_INJ);
	CHECK_EQ(dropped, 0);
	for (q = 0; q < QS_NQ; q++)
		CHECK_EQ(per_q[q], base[q]);
	printf("  RX queue stop took %" PRIu64 " us, start %" PRIu64 " us (4 queues x 256 "
	       "descriptors; no frame is received meanwhile)\n", us_stop, us_start);

	/* Frames delivered and not yet received when a queue stops: counted as discarded. */
	{
		struct mana_model_port_stats s0, s1;
		struct rte_ether_addr mac;
		struct mana_model *m = mana_model_find("net_mana_qr");
		uint8_t buf[256];
		struct comp_frame f;
		char name[32];
		int64_t d0 = 0, d1 = 0, ready = 0;
		uint32_t i;

		for (q = 0; q < QS_NQ; q++) {
			snprintf(name, sizeof(name), "rx_q%u_discarded", q);
			d0 += comp_xstat(pid, name);
		}
		REQUIRE(m != NULL);
		rte_eth_macaddr_get(pid, &mac);
		REQUIRE(comp_model_stats("net_mana_qr", 0, &s0));
		for (i = 0; i < 16; i++) {
			comp_frame_default(&f);
			f.dst = mac;
			f.sport = (uint16_t)(7000 + i);
			f.len = 128;
			comp_frame_build(buf, &f);
			REQUIRE_EQ(mana_model_inject_rx(m, 0, buf, f.len), 0);
		}
		for (t0 = comp_now_ms(); comp_now_ms() - t0 < COMP_WAIT_MS; comp_sleep_ms(5)) {
			REQUIRE(comp_model_stats("net_mana_qr", 0, &s1));
			if (s1.rx_frames - s0.rx_frames >= 16)
				break;
		}
		CHECK_EQ(s1.rx_frames - s0.rx_frames, 16);
		for (q = 0; q < QS_NQ; q++)
			ready += rte_eth_rx_queue_count(pid, q);
		CHECK_EQ(ready, 16);
		/* Any queue's stop builds the whole RX side again: all 16 go. */
		REQUIRE_EQ(rte_eth_dev_rx_queue_stop(pid, 2), 0);
		for (q = 0; q < QS_NQ; q++) {
			snprintf(name, sizeof(name), "rx_q%u_discarded", q);
			d1 += comp_xstat(pid, name);
		}
		CHECK_EQ(d1 - d0, 16);
		REQUIRE_EQ(rte_eth_dev_rx_queue_start(pid, 2), 0);
	}

	/* Every queue stopped: the port drops everything; then all started again. */
	for (q = 0; q < QS_NQ; q++)
		REQUIRE_EQ(rte_eth_dev_rx_queue_stop(pid, q), 0);
	CHECK_EQ(qs_rx_round(pid, "net_mana_qr", per_q, &dropped), 0);
	CHECK_EQ(dropped, QS_INJ);
	for (q = 0; q < QS_NQ; q++)
		REQUIRE_EQ(rte_eth_dev_rx_queue_start(pid, q), 0);
	CHECK_EQ(qs_rx_round(pid, "net_mana_qr", per_q, &dropped), QS_INJ);
	for (q = 0; q < QS_NQ; q++)
		CHECK_EQ(per_q[q], base[q]);

	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_qr");
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	rte_mempool_free(mp);
}

static void
test_deferred(void)
{
	struct comp_port_cfg pc = {
		.nb_rxq = QS_NQ, .nb_txq = 2, .rss = true,
		.rx_deferred = 1u << 2, .tx_deferred = 1u << 1,
	};
	struct mana_model_port_stats s0;
	uint32_t per_q[QS_NQ], got;
	struct rte_eth_rxq_info rqi;
	struct rte_eth_txq_info tqi;
	struct rte_mempool *mp;
	uint64_t dropped, dropped2, t0;
	int pid, round;

	REQUIRE_EQ(comp_vdev_create("net_mana_qd", ""), 0);
	pid = comp_port_of("net_mana_qd", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("qd_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);

	for (round = 0; round < 2; round++) {
		/* Deferred: stopped after dev_start, reported as deferred. */
		CHECK_EQ(qs_rxq_state(pid, 2), RTE_ETH_QUEUE_STATE_STOPPED);
		CHECK_EQ(qs_rxq_state(pid, 0), RTE_ETH_QUEUE_STATE_STARTED);
		CHECK_EQ(qs_txq_state(pid, 1), RTE_ETH_QUEUE_STATE_STOPPED);
		CHECK_EQ(qs_txq_state(pid, 0), RTE_ETH_QUEUE_STATE_STARTED);
		REQUIRE_EQ(rte_eth_rx_queue_info_get(pid, 2, &rqi), 0);
		CHECK_EQ(rqi.conf.rx_deferred_start, 1);
		REQUIRE_EQ(rte_eth_tx_queue_info_get(pid, 1, &tqi), 0);
		CHECK_EQ(tqi.conf.tx_deferred_start, 1);
		got = qs_rx_round(pid, "net_mana_qd", per_q, &dropped);
		CHECK_EQ(per_q[2], 0);
		CHECK(dropped > 0);
		CHECK_EQ(got + dropped, QS_INJ);
		CHECK_EQ(qs_send(pid, 1, mp, QS_N), 0);

		/* Started by the application: queue 2 gets what was dropped, queue 1 sends. */
		REQUIRE_EQ(rte_eth_dev_rx_queue_start(pid, 2), 0);
		REQUIRE_EQ(rte_eth_dev_tx_queue_start(pid, 1), 0);
		CHECK_EQ(qs_rx_round(pid, "net_mana_qd", per_q, &dropped2), QS_INJ);
		CHECK_EQ(dropped2, 0);
		CHECK_EQ(per_q[2], dropped);
		REQUIRE(comp_model_stats("net_mana_qd", 0, &s0));
		CHECK_EQ(qs_send(pid, 1, mp, QS_N), QS_N);
		for (t0 = comp_now_ms(); comp_now_ms() - t0 < COMP_WAIT_MS; comp_sleep_ms(10)) {
			struct mana_model_port_stats s1;

			REQUIRE(comp_model_stats("net_mana_qd", 0, &s1));
			if (s1.tx_frames - s0.tx_frames >= QS_N || comp_now_ms() - t0 > 2000) {
				CHECK_EQ(s1.tx_frames - s0.tx_frames, QS_N);
				break;
			}
		}
		/* A restart of the port defers them again (DPDK's rule for dev_start). */
		CHECK_EQ(rte_eth_dev_stop(pid), 0);
		CHECK_EQ(rte_mempool_avail_count(mp), 4096);
		REQUIRE_EQ(rte_eth_dev_start(pid), 0);
	}
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_qd");
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	rte_mempool_free(mp);
}

static void
test_recovery_keeps_stopped(void)
{
	struct comp_port_cfg pc = { .nb_rxq = QS_NQ, .nb_txq = 2, .rss = true };
	uint32_t per_q[QS_NQ], got;
	struct rte_mempool *mp;
	struct mana_model *m;
	uint64_t dropped, t0;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_qv", "recovery_timeout=20000"), 0);
	pid = comp_port_of("net_mana_qv", 0);
	m = mana_model_find("net_mana_qv");
	REQUIRE(pid >= 0 && m != NULL);
	mp = comp_pool("qv_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	REQUIRE_EQ(rte_eth_dev_rx_queue_stop(pid, 3), 0);
	REQUIRE_EQ(rte_eth_dev_tx_queue_stop(pid, 1), 0);

	REQUIRE_EQ(mana_model_reset(m, 50), 0);
	for (t0 = comp_now_ms(); comp_now_ms() - t0 < COMP_WAIT_MS; comp_sleep_ms(5))
		if (comp_xstat(pid, "recovery_successes") == 1)
			break;
	REQUIRE_EQ(comp_xstat(pid, "recovery_successes"), 1);

	CHECK_EQ(qs_rxq_state(pid, 3), RTE_ETH_QUEUE_STATE_STOPPED);
	CHECK_EQ(qs_txq_state(pid, 1), RTE_ETH_QUEUE_STATE_STOPPED);
	CHECK_EQ(qs_rxq_state(pid, 0), RTE_ETH_QUEUE_STATE_STARTED);
	CHECK_EQ(qs_txq_state(pid, 0), RTE_ETH_QUEUE_STATE_STARTED);
	got = qs_rx_round(pid, "net_mana_qv", per_q, &dropped);
	CHECK_EQ(per_q[3], 0);
	CHECK(dropped > 0);
	CHECK_EQ(got + dropped, QS_INJ);
	CHECK_EQ(qs_send(pid, 1, mp, QS_N), 0);
	CHECK_EQ(qs_send(pid, 0, mp, QS_N), QS_N);
	comp_rx_drain(pid, QS_NQ, 200);		/* the default wire loops them back */

	REQUIRE_EQ(rte_eth_dev_rx_queue_start(pid, 3), 0);
	REQUIRE_EQ(rte_eth_dev_tx_queue_start(pid, 1), 0);
	CHECK_EQ(qs_rx_round(pid, "net_mana_qv", per_q, &dropped), QS_INJ);
	CHECK_EQ(dropped, 0);
	CHECK(per_q[3] > 0);
	CHECK_EQ(qs_send(pid, 1, mp, QS_N), QS_N);

	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_qv");
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	rte_mempool_free(mp);
}

static void
test_runtime_setup(void)
{
	struct comp_port_cfg pc = { .nb_rxq = QS_NQ, .nb_txq = 2, .rss = true };
	struct mana_model_port_stats s0, s1;
	uint32_t base[QS_NQ], per_q[QS_NQ], q;
	struct rte_eth_dev_info info;
	struct rte_eth_rxq_info rqi;
	struct rte_eth_txq_info tqi;
	struct rte_mempool *mp;
	uint64_t dropped, t0;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_qu", ""), 0);
	pid = comp_port_of("net_mana_qu", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("qu_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	REQUIRE_EQ(rte_eth_dev_info_get(pid, &info), 0);
	CHECK(info.dev_capa & RTE_ETH_DEV_CAPA_RUNTIME_RX_QUEUE_SETUP);
	CHECK(info.dev_capa & RTE_ETH_DEV_CAPA_RUNTIME_TX_QUEUE_SETUP);
	CHECK_EQ(qs_rx_round(pid, "net_mana_qu", base, &dropped), QS_INJ);
	for (q = 0; q < QS_NQ; q++)
		REQUIRE(base[q] > 0, "queue %u got none of %u flows", q, QS_INJ);

	/* A started queue is not set up again (ethdev). */
	CHECK_EQ(rte_eth_rx_queue_setup(pid, 1, 128, SOCKET_ID_ANY, NULL, mp), -EBUSY);
	CHECK_EQ(rte_eth_tx_queue_setup(pid, 1, 128, SOCKET_ID_ANY, NULL), -EBUSY);

	/* RX queue 1 stopped and set up again on the running port. */
	REQUIRE_EQ(rte_eth_dev_rx_queue_stop(pid, 1), 0);
	REQUIRE_EQ(rte_eth_rx_queue_setup(pid, 1, 128, SOCKET_ID_ANY, NULL, mp), 0);
	REQUIRE_EQ(rte_eth_rx_queue_info_get(pid, 1, &rqi), 0);
	CHECK_EQ(rqi.nb_desc, 128);
	CHECK_EQ(rqi.queue_state, RTE_ETH_QUEUE_STATE_STOPPED);
	CHECK_EQ(qs_rx_round(pid, "net_mana_qu", per_q, &dropped), QS_INJ - base[1]);
	CHECK_EQ(dropped, base[1]);
	for (q = 0; q < QS_NQ; q++)
		CHECK_EQ(per_q[q], q == 1 ? 0 : base[q]);
	REQUIRE_EQ(rte_eth_dev_rx_queue_start(pid, 1), 0);
	CHECK_EQ(qs_rx_round(pid, "net_mana_qu", per_q, &dropped), QS_INJ);
	CHECK_EQ(dropped, 0);
	for (q = 0; q < QS_NQ; q++)
		CHECK_EQ(per_q[q], base[q]);

	/* TX queue 1 likewise: nothing taken while stopped, sends once started. */
	REQUIRE_EQ(rte_eth_dev_tx_queue_stop(pid, 1), 0);
	REQUIRE_EQ(rte_eth_tx_queue_setup(pid, 1, 128, SOCKET_ID_ANY, NULL), 0);
	REQUIRE_EQ(rte_eth_tx_queue_info_get(pid, 1, &tqi), 0);
	CHECK_EQ(tqi.nb_desc, 128);
	CHECK_EQ(tqi.queue_state, RTE_ETH_QUEUE_STATE_STOPPED);
	CHECK_EQ(qs_send(pid, 1, mp, QS_N), 0);
	REQUIRE(comp_model_stats("net_mana_qu", 0, &s0));
	REQUIRE_EQ(rte_eth_dev_tx_queue_start(pid, 1), 0);
	CHECK_EQ(qs_send(pid, 1, mp, QS_N), QS_N);
	for (t0 = comp_now_ms(); comp_now_ms() - t0 < COMP_WAIT_MS; comp_sleep_ms(10)) {
		REQUIRE(comp_model_stats("net_mana_qu", 0, &s1));
		if (s1.tx_frames - s0.tx_frames >= QS_N)
			break;
	}
	CHECK_EQ(s1.tx_frames - s0.tx_frames, QS_N);
	comp_rx_drain(pid, QS_NQ, 200);		/* the default wire loops them back */

	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	/* With RX interrupts the RX side cannot be built again around a new queue. */
	pc.intr_rxq = true;
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	REQUIRE_EQ(rte_eth_dev_info_get(pid, &info), 0);
	CHECK(!(info.dev_capa & RTE_ETH_DEV_CAPA_RUNTIME_RX_QUEUE_SETUP));
	CHECK(info.dev_capa & RTE_ETH_DEV_CAPA_RUNTIME_TX_QUEUE_SETUP);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_qu");
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	rte_mempool_free(mp);
}

static const struct comp_case cases[] = {
	{ "txq_stop_start", test_txq_stop_start },
	{ "rxq_stop_start", test_rxq_stop_start },
	{ "deferred", test_deferred },
	{ "runtime_setup", test_runtime_setup },
	{ "recovery_keeps_stopped", test_recovery_keeps_stopped },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
