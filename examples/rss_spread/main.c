/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * rss_spread: how RSS spreads flows over queues, and how the RETA and the
 * key move them.
 *
 * One port, one RX queue per lcore. Three phases of traffic: the default
 * RETA and key, a reversed RETA, then a new key. Each change is made on a
 * stopped port (stop, update, start): MANA refuses it on a running port with
 * -EBUSY, because the device recreates the receive queues with the RSS QP.
 * Each phase prints the packets per queue and per flow
 * (IPv4 source address and port) and checks that
 *   - every flow stayed on one queue,
 *   - the hash the device reported equals the Toeplitz hash computed here
 *     with the port's key, and
 *   - the queue is the RETA entry (hash mod RETA size) of that hash.
 * After a change it shows how many flows moved. Exit status 0 only if every
 * check passed and every phase saw traffic.
 *
 *   rss_spread <EAL args> -- [-p PORT] [-t MS_PER_PHASE]
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_thash.h>
#include <rte_udp.h>

#define NB_DESC		512
#define BURST		32
#define MAX_FLOWS	256
#define MAX_QUEUES	RTE_MAX_LCORE
#define RETA_MAX	512

struct flow {
	uint32_t src_ip;
	uint16_t src_port;
	uint16_t queue;		/* first queue the flow was seen on */
	bool split;		/* seen on more than one queue */
	uint32_t hash;		/* device hash of the last packet */
	uint64_t packets;
};

struct queue_ctx {
	uint16_t queue;
	uint64_t packets;
	uint64_t hash_mismatch;		/* device hash != software Toeplitz */
	unsigned int nflows;
	struct flow flows[MAX_FLOWS];
} __rte_cache_aligned;

static uint16_t port_id;
static unsigned int phase_ms = 1000;
static uint16_t nb_queues;
static uint16_t reta_size;
static uint8_t rss_key[40];
static volatile bool counting;
static uint64_t phase_end;
static struct queue_ctx qctx[MAX_QUEUES];

static uint32_t
soft_hash(const struct rte_ipv4_hdr *ip, const struct rte_udp_hdr *udp)
{
	union rte_thash_tuple t;

	t.v4.src_addr = rte_be_to_cpu_32(ip->src_addr);
	t.v4.dst_addr = rte_be_to_cpu_32(ip->dst_addr);
	t.v4.sport = rte_be_to_cpu_16(udp->src_port);
	t.v4.dport = rte_be_to_cpu_16(udp->dst_port);
	return rte_softrss((uint32_t *)&t, RTE_THASH_V4_L4_LEN, rss_key);
}

/* Record one packet of queue q (IPv4 UDP/TCP only; ports sit at the same offsets). */
static void
count_packet(struct queue_ctx *q, struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip;
	const struct rte_udp_hdr *udp;
	struct flow *f;
	unsigned int i;

	q->packets++;
	if (!RTE_ETH_IS_IPV4_HDR(m->packet_type) || counting == false)
		return;
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	udp = (const struct rte_udp_hdr *)((const uint8_t *)ip + rte_ipv4_hdr_len(ip));
	if ((m->ol_flags & RTE_MBUF_F_RX_RSS_HASH) == 0 || m->hash.rss != soft_hash(ip, udp))
		q->hash_mismatch++;
	for (i = 0; i < q->nflows; i++)
		if (q->flows[i].src_ip == ip->src_addr && q->flows[i].src_port == udp->src_port)
			break;
	if (i == q->nflows) {
		if (q->nflows == MAX_FLOWS)
			return;
		q->nflows++;
		f = &q->flows[i];
		f->src_ip = ip->src_addr;
		f->src_port = udp->src_port;
		f->packets = 0;
	}
	f = &q->flows[i];
	f->hash = m->hash.rss;
	f->packets++;
}

/* Each lcore polls its own queue until the phase ends. */
static int
poll_queue(void *arg __rte_unused)
{
	struct queue_ctx *q = &qctx[rte_lcore_index(rte_lcore_id())];
	struct rte_mbuf *pkts[BURST];
	uint16_t n, i;

	while (rte_get_timer_cycles() < phase_end) {
		n = rte_eth_rx_burst(port_id, q->queue, pkts, BURST);
		for (i = 0; i < n; i++)
			count_packet(q, pkts[i]);
		rte_pktmbuf_free_bulk(pkts, n);
	}
	return 0;
}

static void
run_for(unsigned int ms, bool count)
{
	unsigned int i;

	for (i = 0; i < nb_queues; i++) {
		qctx[i].packets = 0;
		qctx[i].hash_mismatch = 0;
		qctx[i].nflows = 0;
	}
	counting = count;
	phase_end = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;
	rte_eal_mp_remote_launch(poll_queue, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
}

/* Merge the per-queue flow lists into one; marks flows seen on several queues. */
static unsigned int
merge_flows(struct flow *all)
{
	unsigned int n = 0, q, i, k;
	const struct flow *f;

	for (q = 0; q < nb_queues; q++) {
		for (i = 0; i < qctx[q].nflows; i++) {
			f = &qctx[q].flows[i];
			for (k = 0; k < n; k++)
				if (all[k].src_ip == f->src_ip && all[k].src_port == f->src_port)
					break;
			if (k == n) {
				if (n == MAX_FLOWS)
					continue;
				all[n] = *f;
				all[n].queue = q;
				all[n].split = false;
				n++;
			} else {
				all[k].split = true;
				all[k].packets += f->packets;
			}
		}
	}
	return n;
}

static int
flow_cmp(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;
	uint32_t xa = rte_be_to_cpu_32(x->src_ip), ya = rte_be_to_cpu_32(y->src_ip);

	if (xa != ya)
		return xa < ya ? -1 : 1;
	return (int)rte_be_to_cpu_16(x->src_port) - (int)rte_be_to_cpu_16(y->src_port);
}

static int
reta_get(uint16_t *reta)
{
	struct rte_eth_rss_reta_entry64 conf[RETA_MAX / RTE_ETH_RETA_GROUP_SIZE];
	unsigned int i;
	int ret;

	memset(conf, 0, sizeof(conf));
	for (i = 0; i < reta_size / RTE_ETH_RETA_GROUP_SIZE; i++)
		conf[i].mask = UINT64_MAX;
	ret = rte_eth_dev_rss_reta_query(port_id, conf, reta_size);
	for (i = 0; ret == 0 && i < reta_size; i++)
		reta[i] = conf[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE];
	return ret;
}

/* Print and check one phase; prev/moved compare queues with the previous phase. */
static int
report(const char *title, struct flow *all, unsigned int *nall, const struct flow *prev,
       unsigned int nprev)
{
	uint16_t reta[RETA_MAX];
	uint64_t total = 0, mismatch = 0;
	unsigned int n, i, k, split = 0, wrong = 0, moved = 0;
	char ip[16];

	if (reta_get(reta) != 0) {
		printf("RETA query failed\n");
		return -1;
	}
	n = merge_flows(all);
	qsort(all, n, sizeof(all[0]), flow_cmp);
	printf("\n== %s ==\n", title);
	for (i = 0; i < nb_queues; i++) {
		printf("  queue %u: %" PRIu64 " packets, %u flows\n", i, qctx[i].packets,
		       qctx[i].nflows);
		total += qctx[i].packets;
		mismatch += qctx[i].hash_mismatch;
	}
	for (i = 0; i < n; i++) {
		uint32_t a = rte_be_to_cpu_32(all[i].src_ip);
		uint16_t expect = reta[all[i].hash % reta_size];

		snprintf(ip, sizeof(ip), "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255,
			 a & 255);
		for (k = 0; k < nprev; k++)
			if (prev[k].src_ip == all[i].src_ip && prev[k].src_port == all[i].src_port)
				break;
		printf("  flow %s:%u hash 0x%08x -> queue %u%s (%" PRIu64 " packets)%s%s\n", ip,
		       rte_be_to_cpu_16(all[i].src_port), all[i].hash, all[i].queue,
		       all[i].split ? " and others" : "", all[i].packets,
		       expect != all[i].queue ? " NOT THE RETA'S QUEUE" : "",
		       k < nprev && prev[k].queue != all[i].queue ? " (moved)" : "");
		split += all[i].split;
		wrong += expect != all[i].queue;
		moved += k < nprev && prev[k].queue != all[i].queue;
	}
	printf("  total %" PRIu64 " packets, %u flows; flows on more than one queue: %u; "
	       "queue differs from RETA: %u; hash differs from software Toeplitz: %" PRIu64 "\n",
	       total, n, split, wrong, mismatch);
	if (nprev != 0)
		printf("  flows that moved: %u of %u\n", moved, n);
	*nall = n;
	return (total == 0 || split != 0 || wrong != 0 || mismatch != 0) ? -1 : (int)moved;
}

static int
set_reversed_reta(void)
{
	struct rte_eth_rss_reta_entry64 conf[RETA_MAX / RTE_ETH_RETA_GROUP_SIZE];
	unsigned int i;

	memset(conf, 0, sizeof(conf));
	for (i = 0; i < reta_size; i++) {
		conf[i / RTE_ETH_RETA_GROUP_SIZE].mask |= 1ULL << (i % RTE_ETH_RETA_GROUP_SIZE);
		conf[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
			nb_queues - 1 - i % nb_queues;
	}
	return rte_eth_dev_rss_reta_update(port_id, conf, reta_size);
}

static int
set_new_key(void)
{
	uint8_t cur[sizeof(rss_key)];
	struct rte_eth_rss_conf conf = { .rss_key = cur, .rss_key_len = sizeof(cur) };
	unsigned int i;
	int ret;

	ret = rte_eth_dev_rss_hash_conf_get(port_id, &conf);
	if (ret != 0)
		return ret;
	/* A different, still well-mixed key: the current one rotated by 7 bytes. */
	for (i = 0; i < sizeof(rss_key); i++)
		rss_key[i] = cur[(i + 7) % sizeof(cur)] ^ 0x5a;
	conf.rss_key = rss_key;
	conf.rss_key_len = sizeof(rss_key);
	return rte_eth_dev_rss_hash_update(port_id, &conf);
}

/*
 * Stop the port, apply one RETA or key change, start it again. A PMD may
 * refuse the change on a running port (MANA does, with -EBUSY). The lcores
 * are idle here: run_for() has returned.
 */
static int
update_stopped(int (*update)(void))
{
	int ret, ret2;

	ret = rte_eth_dev_stop(port_id);
	if (ret != 0)
		return ret;
	ret = update();
	ret2 = rte_eth_dev_start(port_id);
	return ret != 0 ? ret : ret2;
}

static int
port_init(void)
{
	struct rte_eth_conf conf = {
		.rxmode = { .mq_mode = RTE_ETH_MQ_RX_RSS,
			    .offloads = RTE_ETH_RX_OFFLOAD_RSS_HASH },
		.rx_adv_conf.rss_conf = { .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP |
						    RTE_ETH_RSS_NONFRAG_IPV4_TCP |
						    RTE_ETH_RSS_IPV4 },
	};
	struct rte_eth_rss_conf rc = { .rss_key = rss_key, .rss_key_len = sizeof(rss_key) };
	struct rte_eth_dev_info info;
	uint16_t nb_rxd = NB_DESC, nb_txd = NB_DESC;
	struct rte_mempool *mp;
	uint16_t q;
	int ret;

	ret = rte_eth_dev_info_get(port_id, &info);
	if (ret != 0)
		return ret;
	reta_size = info.reta_size;
	if (reta_size == 0 || reta_size > RETA_MAX || info.hash_key_size != sizeof(rss_key)) {
		printf("port %u: RETA size %u / key size %u not supported here\n", port_id,
		       reta_size, info.hash_key_size);
		return -1;
	}
	conf.rx_adv_conf.rss_conf.rss_hf &= info.flow_type_rss_offloads;
	mp = rte_pktmbuf_pool_create("rss_pool", nb_queues * (NB_DESC + 2 * BURST) + 1024, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, rte_eth_dev_socket_id(port_id));
	if (mp == NULL)
		return -1;
	ret = rte_eth_dev_configure(port_id, nb_queues, nb_queues, &conf);
	/* Ring sizes the device accepts (MANA: 64..256, multiples of 64). */
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &nb_rxd, &nb_txd);
	for (q = 0; ret == 0 && q < nb_queues; q++)
		ret = rte_eth_rx_queue_setup(port_id, q, nb_rxd, rte_eth_dev_socket_id(port_id),
					     NULL, mp);
	for (q = 0; ret == 0 && q < nb_queues; q++)
		ret = rte_eth_tx_queue_setup(port_id, q, nb_txd, rte_eth_dev_socket_id(port_id),
					     NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port_id);
	if (ret == 0)
		ret = rte_eth_dev_rss_hash_conf_get(port_id, &rc);
	return ret;
}

static int
parse_args(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "p:t:")) != -1) {
		switch (c) {
		case 'p':
			port_id = atoi(optarg);
			break;
		case 't':
			phase_ms = atoi(optarg);
			break;
		default:
			printf("usage: %s <EAL args> -- [-p PORT] [-t MS_PER_PHASE]\n", argv[0]);
			return -1;
		}
	}
	return phase_ms == 0 ? -1 : 0;
}

int
main(int argc, char **argv)
{
	static struct flow phase[3][MAX_FLOWS];
	unsigned int n[3] = { 0 };
	int ret, r1, r2, r3;
	unsigned int i;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL init failed\n");
	if (parse_args(argc - ret, argv + ret) != 0)
		rte_exit(EXIT_FAILURE, "bad arguments\n");
	nb_queues = rte_lcore_count();
	if (!rte_eth_dev_is_valid_port(port_id) || port_init() != 0)
		rte_exit(EXIT_FAILURE, "cannot set up port %u with %u queues\n", port_id,
			 nb_queues);
	for (i = 0; i < nb_queues; i++)
		qctx[i].queue = i;
	printf("rss_spread: port %u, %u lcores = %u RX queues, RETA size %u, %u ms per phase\n",
	       port_id, nb_queues, nb_queues, reta_size, phase_ms);

	run_for(phase_ms / 4, false);	/* let traffic settle */
	run_for(phase_ms, true);
	r1 = report("phase 1: default RETA and key", phase[0], &n[0], NULL, 0);

	ret = update_stopped(set_reversed_reta);
	printf("\nRETA reversed (entry i -> queue %u - i mod %u), port stopped and restarted: "
	       "%s\n", nb_queues - 1, nb_queues, ret == 0 ? "ok" : strerror(-ret));
	run_for(phase_ms / 4, false);	/* let traffic settle after the restart */
	run_for(phase_ms, true);
	r2 = ret != 0 ? -1 : report("phase 2: reversed RETA", phase[1], &n[1], phase[0], n[0]);

	ret = update_stopped(set_new_key);
	printf("\nRSS key changed, port stopped and restarted: %s\n",
	       ret == 0 ? "ok" : strerror(-ret));
	run_for(phase_ms / 4, false);
	run_for(phase_ms, true);
	r3 = ret != 0 ? -1 : report("phase 3: new key", phase[2], &n[2], phase[1], n[1]);

	/* With more than one queue a reversed RETA moves every flow. */
	if (nb_queues > 1 && r2 >= 0 && (unsigned int)r2 != n[1])
		r2 = -1;
	printf("\nrss_spread: %s\n", r1 >= 0 && r2 >= 0 && r3 >= 0 ? "PASS" : "FAIL");
	rte_eth_dev_stop(port_id);
	rte_eth_dev_close(port_id);
	rte_eal_cleanup();
	return r1 >= 0 && r2 >= 0 && r3 >= 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
