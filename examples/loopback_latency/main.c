/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * loopback_latency: ping-pong between two ports connected by a wire (on the
 * software device: wire=pair:1,wire=pair:0), one frame in flight at a time.
 *
 * The ping leaves port A carrying its sequence number; whatever arrives on
 * port B is sent straight back; the round trip ends when port A receives
 * the frame with the expected number. One lcore drives both ends, so the
 * time is the devices' and drivers' round trip without cross-core noise.
 * Prints min / median / p99 / max in nanoseconds. Exit status 0 only if
 * every ping came back within the timeout.
 *
 *   loopback_latency <EAL args> -- [-a PORT_A] [-b PORT_B] [-n COUNT] [-s FRAME_LEN]
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#define NB_DESC		256
#define BURST		32
#define TIMEOUT_MS	200
#define ETHER_TYPE_PING	0x88b5		/* IEEE local experimental */

static uint16_t port_a, port_b = 1;
static unsigned int count = 10000;
static unsigned int frame_len = 64;
static struct rte_mempool *pool;

/* A ping: Ethernet header, then the sequence number. */
#define SEQ_OFF		sizeof(struct rte_ether_hdr)

static int
port_init(uint16_t port)
{
	uint16_t nb_rxd = NB_DESC, nb_txd = NB_DESC;
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	/* Ring sizes the device accepts (MANA: 64..256, multiples of 64). */
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, nb_rxd, rte_eth_dev_socket_id(port), NULL,
					     pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, nb_txd, rte_eth_dev_socket_id(port), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	/* Not every device filters by MAC (MANA has no promiscuous mode): not fatal. */
	if (ret == 0 && rte_eth_promiscuous_enable(port) != 0)
		printf("port %u: no promiscuous mode; only frames to its own MAC arrive\n", port);
	return ret;
}

static struct rte_mbuf *
make_ping(uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;

	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, frame_len);
	memset(eth, 0, frame_len);
	rte_eth_macaddr_get(port_b, &eth->dst_addr);
	rte_eth_macaddr_get(port_a, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(ETHER_TYPE_PING);
	memcpy((uint8_t *)eth + SEQ_OFF, &seq, sizeof(seq));
	return m;
}

static int
send_one(uint16_t port, struct rte_mbuf *m)
{
	if (rte_eth_tx_burst(port, 0, &m, 1) == 1)
		return 0;
	rte_pktmbuf_free(m);
	return -1;
}

/* Echo whatever port B received; returns true when port A got ping seq. */
static bool
poll_once(uint32_t seq)
{
	struct rte_mbuf *pkts[BURST];
	bool done = false;
	uint16_t n, i;

	n = rte_eth_rx_burst(port_b, 0, pkts, BURST);
	for (i = 0; i < n; i++) {
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);

		/* Back to the sender's MAC: a port drops unicast for another MAC. */
		rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
		rte_eth_macaddr_get(port_b, &eth->src_addr);
		send_one(port_b, pkts[i]);
	}
	n = rte_eth_rx_burst(port_a, 0, pkts, BURST);
	for (i = 0; i < n; i++) {
		const struct rte_ether_hdr *eth =
			rte_pktmbuf_mtod(pkts[i], const struct rte_ether_hdr *);
		uint32_t got;

		memcpy(&got, (const uint8_t *)eth + SEQ_OFF, sizeof(got));
		if (pkts[i]->data_len >= SEQ_OFF + sizeof(got) && got == seq &&
		    eth->ether_type == rte_cpu_to_be_16(ETHER_TYPE_PING))
			done = true;
		rte_pktmbuf_free(pkts[i]);
	}
	return done;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
parse_args(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "a:b:n:s:")) != -1) {
		switch (c) {
		case 'a':
			port_a = atoi(optarg);
			break;
		case 'b':
			port_b = atoi(optarg);
			break;
		case 'n':
			count = atoi(optarg);
			break;
		case 's':
			frame_len = atoi(optarg);
			break;
		default:
			return -1;
		}
	}
	if (count == 0 || frame_len < RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN ||
	    frame_len > RTE_MBUF_DEFAULT_DATAROOM || port_a == port_b) {
		printf("usage: %s <EAL args> -- [-a PORT_A] [-b PORT_B] [-n COUNT] "
		       "[-s FRAME_LEN 60..%u]\n", argv[0], RTE_MBUF_DEFAULT_DATAROOM);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	uint64_t hz, start, timeout, *rtt;
	unsigned int i, got = 0, lost = 0;
	struct rte_mbuf *m;
	bool done;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL init failed\n");
	if (parse_args(argc - ret, argv + ret) != 0)
		rte_exit(EXIT_FAILURE, "bad arguments\n");
	pool = rte_pktmbuf_pool_create("lat_pool", 4 * NB_DESC + 512, 64, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	rtt = calloc(count, sizeof(*rtt));
	if (pool == NULL || rtt == NULL)
		rte_exit(EXIT_FAILURE, "out of memory\n");
	if (!rte_eth_dev_is_valid_port(port_a) || !rte_eth_dev_is_valid_port(port_b) ||
	    port_init(port_a) != 0 || port_init(port_b) != 0)
		rte_exit(EXIT_FAILURE, "cannot start ports %u and %u\n", port_a, port_b);
	hz = rte_get_timer_hz();
	timeout = hz * TIMEOUT_MS / 1000;
	printf("loopback_latency: port %u <-> port %u, %u pings of %u bytes\n", port_a, port_b,
	       count, frame_len);

	for (i = 0; i < count; i++) {
		m = make_ping(i);
		start = rte_get_timer_cycles();
		if (m == NULL || send_one(port_a, m) != 0) {
			lost++;
			continue;
		}
		do {
			done = poll_once(i);
		} while (!done && rte_get_timer_cycles() - start <= timeout);
		if (!done) {
			lost++;
			continue;
		}
		rtt[got++] = (rte_get_timer_cycles() - start) * 1000000000ULL / hz;
	}
	qsort(rtt, got, sizeof(*rtt), cmp_u64);
	printf("sent %u, received %u, lost %u\n", count, got, lost);
	if (got != 0)
		printf("round trip ns: min %" PRIu64 " median %" PRIu64 " p99 %" PRIu64
		       " max %" PRIu64 "\n", rtt[0], rtt[got / 2], rtt[(uint64_t)got * 99 / 100],
		       rtt[got - 1]);
	free(rtt);
	rte_eth_dev_stop(port_a);
	rte_eth_dev_stop(port_b);
	rte_eth_dev_close(port_a);
	rte_eth_dev_close(port_b);
	rte_eal_cleanup();
	return lost == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
