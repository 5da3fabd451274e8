/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Port lifecycle through ethdev: configure/start/stop/close, 100 restarts
 * with traffic after each and every mbuf back in the pool after each stop,
 * the queue-size and queue-count rules, independent TX/RX queue counts, and
 * the features the device does not have (-ENOTSUP), and the software
 * device's settings (new and old spellings, bad values).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_launch.h>
#include <rte_lcore.h>

#include "comp.h"

#define POOL_N		2048
#define CYCLES		100
#define CYCLE_PKTS	16

/* Send n distinct frames on (pid, txq) and expect them back, byte for byte, on rxqs [0, nrx). */
static void
loop_traffic(uint16_t pid, uint16_t txq, uint16_t nrx, struct rte_mempool *mp, uint32_t n,
	     uint8_t seed, uint32_t *per_q)
{
	static uint8_t frames[64][1600];
	uint32_t lens[64], i, j, got;
	struct rte_mbuf *tx[64], *rx[64];
	struct rte_ether_addr mac;
	struct comp_frame f;
	bool matched[64] = { false };

	REQUIRE(n <= 64);
	rte_eth_macaddr_get(pid, &mac);
	for (i = 0; i < n; i++) {
		comp_frame_default(&f);
		f.dst = mac;
		f.sport = (uint16_t)(1000 + i * 7 + seed);
		f.sip = COMP_IPV4(10, 1, seed, (uint8_t)i);
		f.len = 64 + (i * 97 + seed) % 1400;
		f.seed = (uint8_t)(seed + i);
		lens[i] = comp_frame_build(frames[i], &f);
		tx[i] = comp_mbuf_from(mp, frames[i], lens[i]);
		REQUIRE(tx[i] != NULL);
	}
	REQUIRE_EQ(comp_tx_all(pid, txq, tx, n, COMP_WAIT_MS), n);
	got = comp_rx_wait(pid, nrx, rx, RTE_DIM(rx), n, COMP_WAIT_MS, per_q);
	CHECK_EQ(got, n);
	for (j = 0; j < got && j < n; j++) {
		for (i = 0; i < n; i++) {
			if (!matched[i] && rx[j]->pkt_len == lens[i] && rx[j]->nb_segs == 1 &&
			    memcmp(rte_pktmbuf_mtod(rx[j], void *), frames[i], lens[i]) == 0) {
				matched[i] = true;
				break;
			}
		}
		CHECK_MSG(i < n, "received frame %u (%u bytes) matches no frame sent", j,
			  rx[j]->pkt_len);
	}
	comp_free(rx, got < RTE_DIM(rx) ? got : RTE_DIM(rx));
}

static void
test_restart_cycles(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1, .nb_desc = 256 };
	struct rte_mempool *mp;
	struct mana_model_port_stats st;
	struct rte_eth_link link;
	int pid, cycle, ret;

	REQUIRE_EQ(comp_vdev_create("net_mana_lc", "wire=loop"), 0);
	REQUIRE(mana_model_find("net_mana_lc") != NULL);
	pid = comp_port_of("net_mana_lc", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("lc_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	/* Every RX descriptor holds one mbuf while started. */
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N - 256);
	CHECK_EQ(rte_eth_link_get_nowait(pid, &link), 0);
	CHECK_EQ(link.link_status, RTE_ETH_LINK_UP);
	loop_traffic(pid, 0, 1, mp, 32, 1, NULL);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	for (cycle = 0; cycle < CYCLES; cycle++) {
		ret = rte_eth_dev_start(pid);
		CHECK_MSG(ret == 0, "start #%d: %d", cycle, ret);
		if (ret != 0)
			break;
		CHECK_EQ(rte_mempool_avail_count(mp), POOL_N - 256);
		loop_traffic(pid, 0, 1, mp, CYCLE_PKTS, (uint8_t)cycle, NULL);
		/* Leave frames in flight on the last cycle: stop must still return them. */
		if (cycle == CYCLES - 1) {
			struct rte_mbuf *m[8];
			uint8_t buf[256];
			struct comp_frame f;
			unsigned int i;

			comp_frame_default(&f);
			for (i = 0; i < RTE_DIM(m); i++) {
				comp_frame_build(buf, &f);
				m[i] = comp_mbuf_from(mp, buf, f.len);
			}
			CHECK_EQ(comp_tx_all(pid, 0, m, RTE_DIM(m), COMP_WAIT_MS), RTE_DIM(m));
		}
		CHECK_EQ(rte_eth_dev_stop(pid), 0);
		CHECK_MSG(rte_mempool_avail_count(mp) == POOL_N,
			  "after stop #%d: %u of %u mbufs in the pool", cycle,
			  rte_mempool_avail_count(mp), POOL_N);
		if (check_fails)
			break;
	}
	CHECK_EQ(rte_eth_link_get_nowait(pid, &link), 0);
	CHECK_EQ(link.link_status, RTE_ETH_LINK_DOWN);
	/* The device saw every cycle's frames (the 8 left in flight may or may not have gone). */
	CHECK(comp_model_stats("net_mana_lc", 0, &st));
	CHECK_MSG(st.tx_frames >= 32 + CYCLES * CYCLE_PKTS &&
		  st.tx_frames <= 32 + CYCLES * CYCLE_PKTS + 8, "device sent %llu frames",
		  (unsigned long long)st.tx_frames);
	CHECK(st.rx_frames >= 32 + CYCLES * CYCLE_PKTS);
	CHECK_EQ(st.queue_errors, 0);
	CHECK_EQ(st.db_rejected, 0);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	/* The vdev created the model; its last port's close destroys it. */
	CHECK(mana_model_find("net_mana_lc") == NULL);
	comp_vdev_destroy("net_mana_lc");
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	rte_mempool_free(mp);
}

static void
test_desc_limits(void)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_mempool *mp, *small;
	static const uint16_t bad[] = { 192, 32, 63, 100, 512, 320 };
	unsigned int i;
	int pid;

	/* rdma-core 44's provider: rings of 256 whatever the build's (test_ringdepth.c) */
	REQUIRE_EQ(comp_vdev_create("net_mana_lc2", "rdma_core=44"), 0);
	pid = comp_port_of("net_mana_lc2", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("lc2_pool", 1024, RTE_MBUF_DEFAULT_BUF_SIZE);
	small = comp_pool("lc2_small", 256, RTE_PKTMBUF_HEADROOM + 1024);
	REQUIRE(mp != NULL && small != NULL);
	REQUIRE_EQ(rte_eth_dev_info_get(pid, &info), 0);
	CHECK_EQ(info.rx_desc_lim.nb_max, 256);
	CHECK_EQ(info.rx_desc_lim.nb_min, 64);
	CHECK_EQ(info.tx_desc_lim.nb_max, 256);
	CHECK_EQ(info.tx_desc_lim.nb_min, 64);
	CHECK_EQ(info.tx_desc_lim.nb_seg_max, 30);
	CHECK_EQ(info.reta_size, 64);
	CHECK_EQ(info.hash_key_size, 40);
	memset(&conf, 0, sizeof(conf));
	REQUIRE_EQ(rte_eth_dev_configure(pid, 1, 1, &conf), 0);
	for (i = 0; i < RTE_DIM(bad); i++) {
		CHECK_MSG(rte_eth_rx_queue_setup(pid, 0, bad[i], SOCKET_ID_ANY, NULL, mp) ==
			  -EINVAL, "RX queue with %u descriptors accepted", bad[i]);
		CHECK_MSG(rte_eth_tx_queue_setup(pid, 0, bad[i], SOCKET_ID_ANY, NULL) == -EINVAL,
			  "TX queue with %u descriptors accepted", bad[i]);
	}
	/* Buffers smaller than an MTU-sized frame: chains of 2 (test_scatter.c). */
	CHECK_EQ(rte_eth_rx_queue_setup(pid, 0, 64, SOCKET_ID_ANY, NULL, small), 0);
	/* Queues never set up: start refuses. */
	CHECK_EQ(rte_eth_dev_start(pid), -EINVAL);
	CHECK_EQ(rte_eth_rx_queue_setup(pid, 0, 64, SOCKET_ID_ANY, NULL, mp), 0);
	CHECK_EQ(rte_eth_rx_queue_setup(pid, 0, 128, SOCKET_ID_ANY, NULL, mp), 0);
	CHECK_EQ(rte_eth_tx_queue_setup(pid, 0, 64, SOCKET_ID_ANY, NULL), 0);
	CHECK_EQ(rte_eth_tx_queue_setup(pid, 0, 256, SOCKET_ID_ANY, NULL), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 1024 - 128);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 1024);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_lc2");
	rte_mempool_free(mp);
	rte_mempool_free(small);
}

static void
test_queue_counts(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 4, .nb_txq = 1, .rss = true,
				    .rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP };
	struct rte_eth_conf conf;
	struct rte_mempool *mp;
	uint32_t per_q[4], used = 0, q;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_lc3", "wire=loop"), 0);
	pid = comp_port_of("net_mana_lc3", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("lc3_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IPV4;
	/* The device's table holds 2^n distinct queues. */
	CHECK_EQ(rte_eth_dev_configure(pid, 3, 3, &conf), -EINVAL);
	CHECK_EQ(rte_eth_dev_configure(pid, 6, 1, &conf), -EINVAL);
	conf.rxmode.mq_mode = RTE_ETH_MQ_RX_NONE;
	CHECK_EQ(rte_eth_dev_configure(pid, 5, 1, &conf), -EINVAL);
	/* RSS key of the wrong length. */
	conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf.rx_adv_conf.rss_conf.rss_key = (uint8_t *)(uintptr_t)"0123456789abcdef";
	conf.rx_adv_conf.rss_conf.rss_key_len = 16;
	CHECK(rte_eth_dev_configure(pid, 4, 1, &conf) < 0);

	/* 4 RX, 1 TX: TX and RX queue counts are independent. */
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	loop_traffic(pid, 0, 4, mp, 64, 9, per_q);
	for (q = 0; q < 4; q++)
		used += per_q[q] != 0;
	CHECK_MSG(used >= 2, "64 flows landed on %u of 4 RX queues", used);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);

	/* 1 RX, 4 TX: every TX queue reaches the wire. */
	pc.nb_rxq = 1;
	pc.nb_txq = 4;
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	for (q = 0; q < 4; q++)
		loop_traffic(pid, (uint16_t)q, 1, mp, 16, (uint8_t)(40 + q), NULL);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_lc3");
	rte_mempool_free(mp);
}

static void
test_unsupported(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct rte_ether_addr extra = {{ 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 }};
	struct rte_mempool *mp;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_lc4", ""), 0);
	pid = comp_port_of("net_mana_lc4", 0);
	REQUIRE(pid >= 0);
	mp = comp_pool("lc4_pool", 512, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	CHECK_EQ(rte_eth_promiscuous_enable(pid), -ENOTSUP);
	CHECK_EQ(rte_eth_promiscuous_get(pid), 0);
	CHECK_EQ(rte_eth_dev_mac_addr_add(pid, &extra, 0), -ENOTSUP);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_lc4");
	rte_mempool_free(mp);
}

/*
 * All-multicast (hardware.md §16, user guide "Receive filter"): on from
 * probe, as the device delivers every multicast frame; enabling it is a
 * no-op, disabling it is refused with -ENOTSUP and one log line, and the
 * state survives a restart.
 */
static void
test_allmulticast(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb };
	struct rte_mempool *mp;
	struct mana_model *m;
	struct comp_frame f;
	struct rte_mbuf *r;
	uint8_t frame[128];
	char log[4096];
	FILE *lf;
	int pid, rc;

	REQUIRE_EQ(comp_vdev_create("net_mana_lc7", ""), 0);
	pid = comp_port_of("net_mana_lc7", 0);
	m = mana_model_find("net_mana_lc7");
	REQUIRE(pid >= 0 && m != NULL);
	CHECK_EQ(rte_eth_allmulticast_get(pid), 1);
	mp = comp_pool("lc7_pool", 512, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	CHECK_EQ(rte_eth_allmulticast_get(pid), 1);
	CHECK_EQ(rte_eth_allmulticast_enable(pid), 0);
	lf = comp_log_begin(log, sizeof(log));
	rc = rte_eth_allmulticast_disable(pid);
	comp_log_end(lf);
	CHECK_EQ(rc, -ENOTSUP);
	CHECK_MSG(strstr(log, "all-multicast mode cannot be disabled") != NULL,
		  "no log line for the refused disable: '%s'", log);
	CHECK_EQ(rte_eth_allmulticast_get(pid), 1);
	/* What the state says: a multicast frame is delivered. */
	comp_frame_default(&f);
	memcpy(f.dst.addr_bytes, mcast, sizeof(mcast));
	comp_frame_build(frame, &f);
	REQUIRE_EQ(mana_model_inject_rx(m, 0, frame, f.len), 0);
	r = NULL;
	CHECK_EQ(comp_rx_wait(pid, 1, &r, 1, 1, COMP_WAIT_MS, NULL), 1);
	rte_pktmbuf_free(r);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	CHECK_EQ(rte_eth_allmulticast_get(pid), 1);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_lc7");
	rte_mempool_free(mp);
}

static void
test_bad_devargs(void)
{
	/* Unknown key, bad wire spec, too many ports: probe fails, no port left behind. */
	CHECK(comp_vdev_create("net_mana_bad1", "colour=blue") != 0);
	CHECK(comp_vdev_create("net_mana_bad2", "wire=gen:flows=0x") != 0);
	CHECK(comp_vdev_create("net_mana_bad3", "ports=9") != 0);
	CHECK(comp_port_of("net_mana_bad1", 0) < 0);
	CHECK(mana_model_find("net_mana_bad2") == NULL);
	/* ports=3: three ethdevs named <vdev>_port1..3 on one model. */
	REQUIRE_EQ(comp_vdev_create("net_mana_three", "ports=3"), 0);
	CHECK(comp_port_of("net_mana_three", 0) >= 0);
	CHECK(comp_port_of("net_mana_three", 2) >= 0);
	CHECK(comp_port_of("net_mana_three", 3) < 0);
	comp_vdev_destroy("net_mana_three");
	CHECK(comp_port_of("net_mana_three", 0) < 0);
	CHECK(mana_model_find("net_mana_three") == NULL);
}

/*
 * The software device's settings (doc/user_guide.md, "Software device
 * settings"): the new spellings reach the model's config, the old ones map
 * to them with one deprecation line each, and a bad value names what is allowed.
 */
static void
test_settings(void)
{
	static const struct rte_ether_addr mac3 = {{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x33 }};
	const struct mana_model_config *cfg;
	struct rte_ether_addr mac;
	static char log[8192];
	int pid;

	REQUIRE_EQ(comp_vdev_create_logged("net_mana_set", "ports=4,wire=pair:1,wire=pair:0,"
				      "wire3=none,mac3=02:00:00:00:00:33,doorbell=shared,"
				      "coalesce=0,cqe_batch=3,engine_cpu=-1,max_qp=16", log,
				      sizeof(log)), 0);
	CHECK_MSG(strstr(log, "deprecated") == NULL, "log: %s", log);
	REQUIRE(mana_model_find("net_mana_set") != NULL);
	cfg = mana_model_config(mana_model_find("net_mana_set"));
	CHECK_EQ(cfg->nports, 4);
	CHECK_EQ(cfg->wire[0].type, MANA_MODEL_WIRE_PAIR);
	CHECK_EQ(cfg->wire[1].pair.port, 0);
	CHECK_EQ(cfg->wire[2].type, MANA_MODEL_WIRE_LOOP);
	CHECK_EQ(cfg->wire[3].type, MANA_MODEL_WIRE_NONE);
	CHECK(cfg->shared_doorbell);
	CHECK(!cfg->doorbell_untrapped);
	CHECK(!cfg->rx_coalesce);
	CHECK_EQ(cfg->engine_cpu[0], -1);
	CHECK_EQ(cfg->max_qp, 16);
	CHECK_EQ(cfg->cqe_batch, 3);
	pid = comp_port_of("net_mana_set", 3);
	REQUIRE(pid >= 0);
	CHECK_EQ(rte_eth_macaddr_get((uint16_t)pid, &mac), 0);
	CHECK(rte_is_same_ether_addr(&mac, &mac3));
	comp_vdev_destroy("net_mana_set");

	/* old spellings: the same settings, one deprecation line each */
	REQUIRE_EQ(comp_vdev_create_logged("net_mana_old", "doorbell=object,rx_coalesce=0,cpu=-1",
				      log, sizeof(log)), 0);
	CHECK_MSG(strstr(log, "devarg rx_coalesce is deprecated, use coalesce") != NULL,
		  "log: %s", log);
	CHECK_MSG(strstr(log, "devarg doorbell=object is deprecated, use doorbell=queue") != NULL,
		  "log: %s", log);
	CHECK_MSG(strstr(log, "devarg cpu is deprecated, use engine_cpu") != NULL, "log: %s", log);
	REQUIRE(mana_model_find("net_mana_old") != NULL);
	cfg = mana_model_config(mana_model_find("net_mana_old"));
	CHECK(!cfg->shared_doorbell);
	CHECK(!cfg->rx_coalesce);
	CHECK_EQ(cfg->engine_cpu[0], -1);
	comp_vdev_destroy("net_mana_old");

	/* bad values and ports that do not fit: one line saying what is allowed */
	CHECK(comp_vdev_create_logged("net_mana_bad4", "coalesce=2", log, sizeof(log)) != 0);
	CHECK_MSG(strstr(log, "devargs: bad value '2' for key 'coalesce' (allowed: 0 or 1)") !=
		  NULL, "log: %s", log);
	CHECK(comp_vdev_create_logged("net_mana_bad5", "doorbell=page", log, sizeof(log)) != 0);
	CHECK_MSG(strstr(log, "(allowed: queue, shared or memory)") != NULL, "log: %s", log);
	CHECK(comp_vdev_create_logged("net_mana_bad6", "ports=1,wire1=loop", log, sizeof(log)) != 0);
	CHECK_MSG(strstr(log, "sets port 1 but ports=1") != NULL, "log: %s", log);
	CHECK(comp_vdev_create_logged("net_mana_bad7", "sysfs=/tmp", log, sizeof(log)) != 0);
	CHECK_MSG(strstr(log, "unknown key 'sysfs' (allowed here: ibdev, model, mac, "
			 "tx_cqe_suppress, recovery, recovery_timeout, datapath, ports, mac<N>, wire, "
			 "wire<N>, doorbell, coalesce, cqe_batch, engine_cpu, "
			 "engine_threads, numa, max_qp, part, max_qp_wr, rdma_core)") != NULL, "log: %s", log);
	CHECK(mana_model_find("net_mana_bad4") == NULL);
	CHECK(mana_model_find("net_mana_bad6") == NULL);
}

/*
 * Bursts that race the port's stop and start. A worker lcore keeps calling
 * the driver's own burst and RX queue count functions (taken while the port
 * ran, as a process whose function pointers lag behind would) on queue 0
 * while the main lcore stops and starts the port, and every other cycle the
 * RX queue alone (which builds the RX side again). A stopped queue's gate is
 * closed: the burst returns 0 and touches nothing; stop waits until the
 * worker has left. Without gates the worker runs on a destroyed queue.
 */
#define RACE_CYCLES	50

struct race {
	uint16_t pid;
	eth_rx_burst_t rx;	/* the driver's, as ethdev had them while the port ran */
	eth_tx_burst_t tx;
	eth_rx_queue_count_t count;
	void *rxq, *txq;
	struct rte_mempool *mp;
	volatile bool done;
	uint64_t rx_pkts, tx_pkts, empty_bursts, bad_counts;
};

static int
race_worker(void *arg)
{
	struct race *r = arg;
	struct rte_mbuf *pkts[32];
	struct comp_frame f;
	uint8_t buf[128];
	uint16_t n, sent, i;

	comp_frame_default(&f);
	rte_eth_macaddr_get(r->pid, &f.dst);
	f.len = 96;
	comp_frame_build(buf, &f);
	while (!r->done) {
		for (n = 0; n < 8; n++) {
			pkts[n] = comp_mbuf_from(r->mp, buf, f.len);
			if (pkts[n] == NULL)
				break;
		}
		sent = r->tx(r->txq, pkts, n);
		r->tx_pkts += sent;
		for (i = sent; i < n; i++)
			rte_pktmbuf_free(pkts[i]);
		if (r->count(r->rxq) > 256)
			r->bad_counts++;
		n = r->rx(r->rxq, pkts, RTE_DIM(pkts));
		if (n == 0)
			r->empty_bursts++;
		r->rx_pkts += n;
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(pkts[i]);
	}
	return 0;
}

static void
test_stop_races_burst(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1, .nb_desc = 256 };
	struct race r = { 0 };
	struct rte_eth_fp_ops *fp;
	unsigned int worker, cycle;
	uint64_t rx_before;
	int pid;

	worker = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	REQUIRE(worker < RTE_MAX_LCORE);	/* a second lcore */
	REQUIRE_EQ(comp_vdev_create("net_mana_race", "wire=loop"), 0);
	pid = comp_port_of("net_mana_race", 0);
	REQUIRE(pid >= 0);
	r.pid = (uint16_t)pid;
	r.mp = comp_pool("race_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(r.mp != NULL);
	REQUIRE_EQ(comp_port_start(r.pid, &pc, r.mp), 0);
	fp = &rte_eth_fp_ops[r.pid];
	r.rx = fp->rx_pkt_burst;
	r.tx = fp->tx_pkt_burst;
	r.count = fp->rx_queue_count;
	r.rxq = fp->rxq.data[0];
	r.txq = fp->txq.data[0];
	REQUIRE_EQ(rte_eal_remote_launch(race_worker, &r, worker), 0);
	for (cycle = 0; cycle < RACE_CYCLES && check_fails == 0; cycle++) {
		/* Let frames go round before each stop. */
		rx_before = __atomic_load_n(&r.rx_pkts, __ATOMIC_RELAXED);
		uint64_t t0 = comp_now_ms();

		while (__atomic_load_n(&r.rx_pkts, __ATOMIC_RELAXED) < rx_before + 64 &&
		       comp_now_ms() - t0 < COMP_WAIT_MS)
			comp_sleep_ms(1);
		CHECK_MSG(r.rx_pkts >= rx_before + 64, "cycle %u: the worker received %llu frames",
			  cycle, (unsigned long long)(r.rx_pkts - rx_before));
		/* Stopped: the worker's bursts find the gates closed. */
		if (cycle & 1) {
			CHECK_EQ(rte_eth_dev_rx_queue_stop(r.pid, 0), 0);
			comp_sleep_ms(2);
			CHECK_EQ(rte_eth_dev_rx_queue_start(r.pid, 0), 0);
		} else {
			CHECK_EQ(rte_eth_dev_stop(r.pid), 0);
			comp_sleep_ms(2);
			CHECK_EQ(rte_eth_dev_start(r.pid), 0);
		}
	}
	r.done = true;
	rte_eal_wait_lcore(worker);
	CHECK_EQ(rte_eth_dev_stop(r.pid), 0);
	CHECK_MSG(rte_mempool_avail_count(r.mp) == POOL_N, "%u of %u mbufs back in the pool",
		  rte_mempool_avail_count(r.mp), POOL_N);
	CHECK(r.empty_bursts > 0);
	CHECK_EQ(r.bad_counts, 0);
	printf("  %u stop/start cycles under bursts: worker sent %llu, received %llu frames\n",
	       cycle, (unsigned long long)r.tx_pkts, (unsigned long long)r.rx_pkts);
	CHECK_EQ(rte_eth_dev_close(r.pid), 0);
	comp_vdev_destroy("net_mana_race");
	rte_mempool_free(r.mp);
}

static const struct comp_case cases[] = {
	{ "restart_cycles", test_restart_cycles },
	{ "stop_races_burst", test_stop_races_burst },
	{ "desc_limits", test_desc_limits },
	{ "queue_counts", test_queue_counts },
	{ "unsupported", test_unsupported },
	{ "allmulticast", test_allmulticast },
	{ "bad_devargs", test_bad_devargs },
	{ "settings", test_settings },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
