/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * fwd_bench: the io-forward loop of testpmd, reduced to what is measured.
 *
 * Every probed port is paired with the next one (0<->1, 2<->3, ...; a lone
 * port forwards to itself). Each lcore polls its share of the (port, queue)
 * pairs: rx_burst on one port, tx_burst of what came in on the peer port,
 * unsent packets freed. The TSC is read around both calls; only busy
 * iterations (rx_burst returned packets) add to the cycle totals, so the
 * figure is the driver's cost per packet, not the cost of waiting.
 *
 * rx_burst and tx_burst are called through bench_rx_burst/bench_tx_burst,
 * never inlined, so that `valgrind --tool=callgrind
 * --toggle-collect=bench_rx_burst --toggle-collect=bench_tx_burst` counts the
 * instructions of any driver's burst functions (and nothing else) the same
 * way. In --frames mode the run stops after a fixed number of forwarded
 * packets; the warm-up is excluded with CALLGRIND_ZERO_STATS and the measured
 * phase dumped with CALLGRIND_DUMP_STATS_AT("measure"); the MODEL line covers
 * that phase too, so that its frames divide the dump's instructions (run.sh
 * collects the device's engine thread that way: section "engine").
 *
 * Ports without a traffic source of their own (net_ring, net_memif) are
 * primed with --prime packets per port, which then circulate.
 *
 * --tso MSS turns the loop into a TSO sender (no RX): every task sends bursts
 * of TCP/IPv4 packets of --send payload bytes (default 65160, 45 MSS of
 * 1448) with RTE_MBUF_F_TX_TCP_SEG, each a header mbuf followed by a clone of
 * a payload chain of 16 KB mbufs (so the payload is written once, not per
 * send), through rte_eth_tx_prepare and rte_eth_tx_burst (bench_tx_prepare,
 * bench_tx_burst: callgrind counts both). RESULT then also gives the sends
 * and the TCP payload rate (tso_gbps).
 *
 * Output: "RESULT key=value ..." lines for bench/run.sh, plus the software
 * MANA device's counters when libmana_model.so is loaded.
 */

#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include <rte_version.h>

#ifdef BENCH_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#else
/* Built without valgrind (its package has the header): no callgrind run, no markers. */
#define CALLGRIND_ZERO_STATS do { } while (0)
#define CALLGRIND_DUMP_STATS_AT(name) do { } while (0)
#endif

#include "mana_model.h"

#define BENCH_MAX_BURST		512
#define BENCH_MAX_TASKS		64
#define BENCH_PRIME_MAX		8192
#define BENCH_TSO_SEG		16384	/* payload mbufs of TSO sends */
#define BENCH_TSO_HDR		(14 + 20 + 20)

struct bench_opts {
	uint16_t burst;
	double seconds;
	double warmup;
	uint64_t frames;		/* 0: timed run */
	uint64_t warmup_frames;
	uint32_t prime;
	uint32_t frame_len;
	uint32_t mtu;			/* 0: leave the default */
	uint16_t nb_queues;
	uint16_t rxd, txd;
	uint32_t nb_mbufs;
	uint16_t mbuf_data;
	bool fast_free;
	uint64_t outlier;		/* busy iterations longer than this: preempted */
	bool wait_full;			/* callgrind: poll only when a full burst is ready */
	uint16_t tso_mss;		/* 0: forwarding; else TSO sends of tso_send bytes */
	uint32_t tso_send;
	const char *label;
};

static struct bench_opts opt = {
	.burst = 32, .seconds = 5.0, .warmup = 1.0, .frame_len = 64,
	.nb_queues = 1, .rxd = 512, .txd = 512, .nb_mbufs = 32767,
	.mbuf_data = RTE_MBUF_DEFAULT_DATAROOM, .warmup_frames = 20000,
	.outlier = 200000, .tso_send = 65160,
};

/* One (rx port, queue) -> (tx port, queue) stream with its counters. */
struct bench_task {
	uint16_t rx_port, tx_port, queue;
	uint64_t pkts, sent, busy, idle, outliers;
	uint64_t cyc_pkts;		/* packets of the busy iterations timed */
	uint64_t all_rx;		/* packets received since start, never reset */
	uint64_t rx_cyc, tx_cyc;
} __rte_cache_aligned;

static struct bench_task tasks[BENCH_MAX_TASKS];
static unsigned int nb_tasks;
static unsigned int nb_workers;
static volatile int phase;	/* 0 warm-up, 1 measure, 2 stop */
static volatile bool quit;
static uint64_t tsc_overhead;
static struct rte_mempool *pool;
static struct rte_mempool *clone_pool;	/* TSO: indirect mbufs */
static struct rte_mbuf *tso_payload;	/* TSO: the payload chain every send clones */
static uint32_t tso_seq;

/* The software MANA device's counters, looked up in the plugin if loaded. */
static unsigned int (*p_model_list)(struct mana_model **, unsigned int);
static int (*p_port_stats)(const struct mana_model *, unsigned int,
			   struct mana_model_port_stats *);
static int (*p_engine_stats)(const struct mana_model *, struct mana_model_engine_stats *);
static const struct mana_model_config *(*p_model_config)(const struct mana_model *);

__attribute__((noinline)) uint16_t
bench_rx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_rx_burst(port, queue, pkts, n);
}

__attribute__((noinline)) uint16_t
bench_tx_prepare(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_tx_prepare(port, queue, pkts, n);
}

__attribute__((noinline)) uint16_t
bench_tx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_tx_burst(port, queue, pkts, n);
}

static void
on_signal(int sig)
{
	RTE_SET_USED(sig);
	quit = true;
}

static void
usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [--burst N] [--seconds S] [--warmup S]\n"
	       "  [--frames N] [--warmup-frames N] [--prime N] [--len L] [--mtu M]\n"
	       "  [--queues Q] [--rxd N] [--txd N] [--mbufs N] [--mbuf-data B]\n"
	       "  [--fast-free] [--wait-full] [--outlier-cycles C] [--label NAME]\n"
	       "  [--tso MSS [--send BYTES]]\n", prog);
}

static int
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{"burst", 1, NULL, 'b'}, {"seconds", 1, NULL, 's'},
		{"warmup", 1, NULL, 'w'}, {"frames", 1, NULL, 'f'},
		{"warmup-frames", 1, NULL, 'W'}, {"prime", 1, NULL, 'p'},
		{"len", 1, NULL, 'l'}, {"mtu", 1, NULL, 'm'},
		{"queues", 1, NULL, 'q'}, {"rxd", 1, NULL, 'r'},
		{"txd", 1, NULL, 't'}, {"mbufs", 1, NULL, 'n'},
		{"mbuf-data", 1, NULL, 'd'}, {"fast-free", 0, NULL, 'F'},
		{"wait-full", 0, NULL, 'U'}, {"outlier-cycles", 1, NULL, 'O'},
		{"label", 1, NULL, 'L'}, {"tso", 1, NULL, 'T'}, {"send", 1, NULL, 'S'},
		{"help", 0, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'b': opt.burst = atoi(optarg); break;
		case 's': opt.seconds = atof(optarg); break;
		case 'w': opt.warmup = atof(optarg); break;
		case 'f': opt.frames = strtoull(optarg, NULL, 0); break;
		case 'W': opt.warmup_frames = strtoull(optarg, NULL, 0); break;
		case 'p': opt.prime = atoi(optarg); break;
		case 'l': opt.frame_len = atoi(optarg); break;
		case 'm': opt.mtu = atoi(optarg); break;
		case 'q': opt.nb_queues = atoi(optarg); break;
		case 'r': opt.rxd = atoi(optarg); break;
		case 't': opt.txd = atoi(optarg); break;
		case 'n': opt.nb_mbufs = atoi(optarg); break;
		case 'd': opt.mbuf_data = atoi(optarg); break;
		case 'F': opt.fast_free = true; break;
		case 'U': opt.wait_full = true; break;
		case 'O': opt.outlier = strtoull(optarg, NULL, 0); break;
		case 'L': opt.label = optarg; break;
		case 'T': opt.tso_mss = atoi(optarg); break;
		case 'S': opt.tso_send = atoi(optarg); break;
		default:
			usage(argv[0]);
			return -1;
		}
	}
	if (opt.burst == 0 || opt.burst > BENCH_MAX_BURST || opt.nb_queues == 0 ||
	    opt.prime > BENCH_PRIME_MAX || opt.frame_len < 60 || opt.frame_len > 9216 ||
	    (opt.tso_mss != 0 && (opt.tso_send <= opt.tso_mss ||
				  opt.tso_send > 65535 - BENCH_TSO_HDR))) {
		fprintf(stderr, "bad option value\n");
		return -1;
	}
	return 0;
}

static int
port_setup(uint16_t port)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_txconf txc;
	uint32_t seg = opt.mbuf_data - RTE_PKTMBUF_HEADROOM;
	uint16_t rxd = opt.rxd, txd = opt.txd, q;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_info_get(port, &info);
	if (rc != 0)
		return rc;
	if (opt.nb_queues > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = info.flow_type_rss_offloads &
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
	}
	if (opt.mtu != 0) {
		conf.rxmode.mtu = opt.mtu;
		if (opt.mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN > seg) {
			conf.rxmode.offloads |= info.rx_offload_capa &
				RTE_ETH_RX_OFFLOAD_SCATTER;
			conf.txmode.offloads |= info.tx_offload_capa &
				RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		}
	}
	if (opt.tso_mss != 0) {
		uint64_t tso = RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
			RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM;

		if ((info.tx_offload_capa & tso) != tso) {
			fprintf(stderr, "port %u: no TSO (tx_offload_capa 0x%" PRIx64 ")\n", port,
				info.tx_offload_capa);
			return -ENOTSUP;
		}
		conf.txmode.offloads |= tso;
	}
	if (opt.fast_free) {
		if (!(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE))
			printf("NOTE port %u: no MBUF_FAST_FREE capability\n", port);
		conf.txmode.offloads |= info.tx_offload_capa &
			RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	}
	rc = rte_eth_dev_configure(port, opt.nb_queues, opt.nb_queues, &conf);
	if (rc != 0)
		return rc;
	/*
	 * ethdev only records rxmode.mtu at configure time; a PMD applies it at
	 * start. Setting it explicitly as well makes the run independent of that
	 * (a PMD that forgets shows it as TX errors without this call: see
	 * bench/results/results.md, frame sizes).
	 */
	if (opt.mtu != 0 && getenv("BENCH_NO_SET_MTU") == NULL) {
		rc = rte_eth_dev_set_mtu(port, opt.mtu);
		if (rc != 0)
			printf("NOTE port %u: set_mtu(%u): %s\n", port, opt.mtu, rte_strerror(-rc));
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &rxd, &txd);
	if (rc != 0)
		return rc;
	txc = info.default_txconf;
	txc.offloads = conf.txmode.offloads;
	for (q = 0; q < opt.nb_queues; q++) {
		rc = rte_eth_rx_queue_setup(port, q, rxd, rte_eth_dev_socket_id(port),
					    NULL, pool);
		if (rc != 0)
			return rc;
		rc = rte_eth_tx_queue_setup(port, q, txd, rte_eth_dev_socket_id(port), &txc);
		if (rc != 0)
			return rc;
	}
	rc = rte_eth_dev_start(port);
	if (rc != 0)
		return rc;
	rte_eth_promiscuous_enable(port);	/* not every PMD has it */
	return 0;
}

static void
wait_links(uint16_t nb_ports)
{
	struct rte_eth_link link;
	uint16_t p;
	int i;

	for (i = 0; i < 100; i++) {
		bool all = true;

		for (p = 0; p < nb_ports; p++) {
			if (rte_eth_link_get_nowait(p, &link) != 0 || !link.link_status)
				all = false;
		}
		if (all)
			return;
		rte_delay_ms(50);
	}
	printf("NOTE: not every link is up after 5 s\n");
}

/* A UDP/IPv4 frame of opt.frame_len bytes (chained if longer than a segment). */
static struct rte_mbuf *
make_frame(uint32_t flow)
{
	uint32_t seg = opt.mbuf_data - RTE_PKTMBUF_HEADROOM;
	uint32_t left = opt.frame_len, n;
	struct rte_mbuf *head = NULL, *m;
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;

	while (left > 0) {
		m = rte_pktmbuf_alloc(pool);
		if (m == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		n = RTE_MIN(left, seg);
		memset(rte_pktmbuf_append(m, n), 0x5a, n);
		if (head == NULL)
			head = m;
		else
			rte_pktmbuf_chain(head, m);
		left -= n;
	}
	eth = rte_pktmbuf_mtod(head, struct rte_ether_hdr *);
	memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	memset(&eth->src_addr, 0x02, RTE_ETHER_ADDR_LEN);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(opt.frame_len - sizeof(*eth));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000001 + flow);
	ip->dst_addr = rte_cpu_to_be_32(0xc6120001);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = rte_cpu_to_be_16(1024 + flow);
	udp->dst_port = rte_cpu_to_be_16(9);
	udp->dgram_len = rte_cpu_to_be_16(opt.frame_len - sizeof(*eth) - sizeof(*ip));
	udp->dgram_cksum = 0;
	return head;
}

static int
prime_port(uint16_t port)
{
	struct rte_mbuf *m[BENCH_MAX_BURST];
	uint32_t done = 0, i, n;
	uint16_t q, sent;
	int spins;

	while (done < opt.prime) {
		n = RTE_MIN(opt.prime - done, opt.burst);
		for (i = 0; i < n; i++) {
			m[i] = make_frame(done + i);
			if (m[i] == NULL) {
				rte_pktmbuf_free_bulk(m, i);
				return -ENOMEM;
			}
		}
		q = (done / opt.burst) % opt.nb_queues;
		for (i = 0, spins = 0; i < n && spins < 100000; spins++) {
			sent = rte_eth_tx_burst(port, q, m + i, n - i);
			i += sent;
		}
		if (i < n) {
			rte_pktmbuf_free_bulk(m + i, n - i);
			return -ENOSPC;
		}
		done += n;
	}
	return 0;
}

/*
 * callgrind: wait until a full burst is ready, so that empty polls are not
 * counted. The queue's descriptor count tells, or else (a PMD without
 * rx_queue_count, such as DPDK's own net/mana) the device's delivered-frame
 * counter against what this port has received so far (one queue, one model).
 *
 * First a yield: valgrind runs one thread at a time, and without it the
 * device's thread ran only when this one's time slice ended, then completed
 * 256 sends at once every 8 bursts. The mbufs in flight then swung by 256
 * and the pool's cache went through its ring twice per 512 packets (a flush
 * and a refill, about 6 instructions per packet counted in the driver's
 * bursts). A device running alongside does not make that swing: natively,
 * here, TX completions came 32 to 96 at a time and the cache never reached
 * its ring.
 */
static void
wait_burst(const struct bench_task *t)
{
	uint64_t deadline = rte_get_tsc_cycles() + rte_get_tsc_hz();
	struct mana_model_port_stats st;
	struct mana_model *m;
	int n;

	sched_yield();
	do {
		n = rte_eth_rx_queue_count(t->rx_port, t->queue);
		if (n >= opt.burst)
			return;
		if (n < 0) {
			if (p_model_list == NULL || opt.nb_queues != 1 ||
			    p_model_list(&m, 1) != 1 ||
			    p_port_stats(m, t->rx_port, &st) != 0)
				return;
			if (st.rx_frames - t->all_rx >= opt.burst)
				return;
		}
	} while (rte_get_tsc_cycles() < deadline);
}

/* TSO: the payload chain once, and the clone pool the sends take from. */
static int
tso_setup(void)
{
	struct rte_mempool *pp;
	struct rte_mbuf *m;
	uint32_t left = opt.tso_send, n, i, off = 0;
	uint8_t *p;

	pp = rte_pktmbuf_pool_create("bench_tso_payload", 63, 0, 0,
				     BENCH_TSO_SEG + RTE_PKTMBUF_HEADROOM, rte_socket_id());
	clone_pool = rte_pktmbuf_pool_create("bench_tso_clone", opt.nb_mbufs, 256, 0, 0,
					     rte_socket_id());
	if (pp == NULL || clone_pool == NULL)
		return -ENOMEM;
	while (left > 0) {
		m = rte_pktmbuf_alloc(pp);
		if (m == NULL)
			return -ENOMEM;
		n = RTE_MIN(left, (uint32_t)BENCH_TSO_SEG);
		p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n);
		for (i = 0; i < n; i++)
			p[i] = (uint8_t)(off + i);
		if (tso_payload == NULL)
			tso_payload = m;
		else
			rte_pktmbuf_chain(tso_payload, m);
		left -= n;
		off += n;
	}
	return 0;
}

/* One TSO send: Ethernet/IPv4/TCP headers in their own mbuf, the payload cloned. */
static struct rte_mbuf *
tso_packet(void)
{
	struct rte_mbuf *h = rte_pktmbuf_alloc(pool), *c;
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;

	if (h == NULL)
		return NULL;
	c = rte_pktmbuf_clone(tso_payload, clone_pool);
	if (c == NULL) {
		rte_pktmbuf_free(h);
		return NULL;
	}
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(h, BENCH_TSO_HDR);
	if (eth == NULL) {
		rte_pktmbuf_free(c);
		rte_pktmbuf_free(h);
		return NULL;
	}
	memset(eth, 0, BENCH_TSO_HDR);
	memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(40 + opt.tso_send);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000001);
	ip->dst_addr = rte_cpu_to_be_32(0xc6120001);
	th = (struct rte_tcp_hdr *)(ip + 1);
	th->src_port = rte_cpu_to_be_16(1024);
	th->dst_port = rte_cpu_to_be_16(9);
	th->sent_seq = rte_cpu_to_be_32(tso_seq);
	tso_seq += opt.tso_send;
	th->data_off = 5 << 4;
	th->tcp_flags = RTE_TCP_ACK_FLAG;
	th->rx_win = rte_cpu_to_be_16(65535);
	rte_pktmbuf_chain(h, c);
	h->l2_len = RTE_ETHER_HDR_LEN;
	h->l3_len = sizeof(*ip);
	h->l4_len = sizeof(*th);
	h->tso_segsz = opt.tso_mss;
	h->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_SEG;
	th->cksum = rte_ipv4_phdr_cksum(ip, h->ol_flags);
	return h;
}

/* TSO mode: a burst of sends, prepared and transmitted; what is not taken is freed. */
static inline void
run_tso_task(struct bench_task *t, struct rte_mbuf **pkts)
{
	uint64_t t0, t1;
	uint16_t n, ok, sent;

	for (n = 0; n < opt.burst; n++) {
		pkts[n] = tso_packet();
		if (pkts[n] == NULL)
			break;
	}
	t0 = rte_rdtsc();
	ok = bench_tx_prepare(t->tx_port, t->queue, pkts, n);
	sent = bench_tx_burst(t->tx_port, t->queue, pkts, ok);
	t1 = rte_rdtsc();
	if (sent < n)
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	if (sent == 0) {
		t->idle++;
		if (opt.wait_full)	/* callgrind: let the device's thread run */
			rte_delay_us_sleep(200);
		return;
	}
	t->pkts += sent;
	t->sent += sent;
	t->busy++;
	if (unlikely(t1 - t0 > opt.outlier * opt.burst)) {
		t->outliers++;
		return;
	}
	t->tx_cyc += t1 - t0;
	t->cyc_pkts += sent;
}

static inline void
run_task(struct bench_task *t, struct rte_mbuf **pkts)
{
	uint64_t t0, t1, t2;
	uint16_t n, sent;

	if (opt.tso_mss != 0) {
		run_tso_task(t, pkts);
		return;
	}
	if (opt.wait_full)
		wait_burst(t);
	t0 = rte_rdtsc();
	n = bench_rx_burst(t->rx_port, t->queue, pkts, opt.burst);
	t1 = rte_rdtsc();
	if (n == 0) {
		t->idle++;
		return;
	}
	sent = bench_tx_burst(t->tx_port, t->queue, pkts, n);
	t2 = rte_rdtsc();
	if (sent < n)
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	/*
	 * A busy iteration that took longer than any burst can (the thread was
	 * preempted: the machine is shared) is left out of the cycle figures;
	 * preempted polls are the likeliest to find packets, so keeping them
	 * would bias the mean.
	 */
	t->all_rx += n;
	t->pkts += n;
	t->sent += sent;
	t->busy++;
	if (unlikely(t2 - t0 > opt.outlier)) {
		t->outliers++;
		return;
	}
	t->rx_cyc += t1 - t0;
	t->tx_cyc += t2 - t1;
	t->cyc_pkts += n;
}

static void
reset_task(struct bench_task *t)
{
	t->pkts = t->sent = t->busy = t->idle = t->outliers = t->cyc_pkts = 0;
	t->rx_cyc = t->tx_cyc = 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Phase boundaries: wall clock and the device's counters at each. */
static struct bench_clock {
	double t0, t1;
	void (*at_measure)(void);
	void (*at_end)(void);
} hook;

static int
worker(void *arg)
{
	unsigned int w = (uintptr_t)arg, i, iter = 0;
	struct rte_mbuf *pkts[BENCH_MAX_BURST];
	uint64_t hz = rte_get_tsc_hz();
	uint64_t deadline = rte_get_tsc_cycles() + (uint64_t)(opt.warmup * hz);
	int seen = 0;

	while (phase < 2 && !quit) {
		if (phase != seen) {
			for (i = w; i < nb_tasks; i += nb_workers)
				reset_task(&tasks[i]);
			seen = phase;
		}
		for (i = w; i < nb_tasks; i += nb_workers)
			run_task(&tasks[i], pkts);
		/* The main lcore (worker 0) moves the phases on. */
		if (w != 0 || (++iter & 255) != 0 || rte_get_tsc_cycles() < deadline)
			continue;
		if (phase == 0) {
			hook.at_measure();
			hook.t0 = now_s();
			deadline = rte_get_tsc_cycles() + (uint64_t)(opt.seconds * hz);
			phase = 1;
		} else {
			hook.t1 = now_s();
			hook.at_end();
			phase = 2;
		}
	}
	if (w == 0 && phase < 2) {
		hook.t1 = now_s();
		hook.at_end();
	}
	return 0;
}

/* Single-lcore loop with a fixed frame count (callgrind mode). */
static void
run_frames(void)
{
	struct rte_mbuf *pkts[BENCH_MAX_BURST];
	uint64_t total = 0;
	unsigned int i;

	while (!quit && total < opt.warmup_frames) {
		for (i = 0; i < nb_tasks; i++) {
			uint64_t before = tasks[i].pkts;

			run_task(&tasks[i], pkts);
			total += tasks[i].pkts - before;
		}
	}
	for (i = 0; i < nb_tasks; i++)
		reset_task(&tasks[i]);
	CALLGRIND_ZERO_STATS;
	/* The device's counters over the same window as the callgrind dump. */
	if (hook.at_measure != NULL)
		hook.at_measure();
	total = 0;
	while (!quit && total < opt.frames) {
		for (i = 0; i < nb_tasks; i++) {
			uint64_t before = tasks[i].pkts;

			run_task(&tasks[i], pkts);
			total += tasks[i].pkts - before;
		}
	}
	if (hook.at_end != NULL)
		hook.at_end();
	CALLGRIND_DUMP_STATS_AT("measure");
}

/* Cost of the rdtsc pair around an empty call, subtracted from the totals. */
static void
calibrate_tsc(void)
{
	uint64_t best = UINT64_MAX, t0, t1;
	int i;

	for (i = 0; i < 10000; i++) {
		t0 = rte_rdtsc();
		t1 = rte_rdtsc();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	tsc_overhead = best;
}

static void
lookup_model(void)
{
	/*
	 * libmana_model.so, the one software device of the process, loaded by
	 * our PMD or by the replacement libibverbs under DPDK's own net/mana.
	 */
	void *h = dlopen("libmana_model.so.0", RTLD_NOW | RTLD_NOLOAD);

	if (h == NULL)
		return;
	p_model_list = (unsigned int (*)(struct mana_model **, unsigned int))
		dlsym(h, "mana_model_list");
	p_port_stats = (int (*)(const struct mana_model *, unsigned int,
				struct mana_model_port_stats *))dlsym(h, "mana_model_port_stats");
	p_engine_stats = (int (*)(const struct mana_model *, struct mana_model_engine_stats *))
		dlsym(h, "mana_model_engine_stats");
	p_model_config = (const struct mana_model_config *(*)(const struct mana_model *))
		dlsym(h, "mana_model_config");
	if (p_model_list == NULL || p_port_stats == NULL || p_engine_stats == NULL ||
	    p_model_config == NULL)
		p_model_list = NULL;
}

struct model_snap {
	struct mana_model_engine_stats eng[MANA_MODEL_MAX_PORTS];
	struct mana_model_port_stats port[MANA_MODEL_MAX_PORTS][MANA_MODEL_MAX_PORTS];
	struct mana_model *m[MANA_MODEL_MAX_PORTS];
	unsigned int nm;
};

static void
model_snap(struct model_snap *s)
{
	unsigned int i, p;

	memset(s, 0, sizeof(*s));
	if (p_model_list == NULL)
		return;
	s->nm = p_model_list(s->m, MANA_MODEL_MAX_PORTS);
	s->nm = RTE_MIN(s->nm, (unsigned int)MANA_MODEL_MAX_PORTS);
	for (i = 0; i < s->nm; i++) {
		p_engine_stats(s->m[i], &s->eng[i]);
		for (p = 0; p < p_model_config(s->m[i])->nports; p++)
			p_port_stats(s->m[i], p, &s->port[i][p]);
	}
}

static struct model_snap snap0, snap1;

static void
snap_at_measure(void)
{
	model_snap(&snap0);
}

static void
snap_at_end(void)
{
	model_snap(&snap1);
}

/* The device's own cost: engine CPU time per frame over the measured phase. */
static void
model_report(const struct model_snap *a, const struct model_snap *b)
{
	unsigned int i, p;

	for (i = 0; i < b->nm && i < a->nm; i++) {
		uint64_t fr = b->eng[i].frames - a->eng[i].frames;
		uint64_t ns = b->eng[i].cpu_ns - a->eng[i].cpu_ns;
		uint64_t drop = 0, rx = 0, tx = 0, err = 0;

		for (p = 0; p < p_model_config(b->m[i])->nports; p++) {
			const struct mana_model_port_stats *x = &a->port[i][p];
			const struct mana_model_port_stats *y = &b->port[i][p];

			rx += y->rx_frames - x->rx_frames;
			tx += y->tx_frames - x->tx_frames;
			drop += y->rx_drop_no_wqe - x->rx_drop_no_wqe;
			err += y->queue_errors + y->db_rejected + y->wire_sink_bad;
		}
		printf("MODEL name=%s frames=%" PRIu64 " cpu_ns=%" PRIu64
		       " ns_per_frame=%.1f rx_frames=%" PRIu64 " tx_frames=%" PRIu64
		       " rx_drop_no_wqe=%" PRIu64 " errors=%" PRIu64 " passes=%" PRIu64
		       " busy_passes=%" PRIu64 " threads=%u\n",
		       p_model_config(b->m[i])->name, fr, ns, fr ? (double)ns / fr : 0.0,
		       rx, tx, drop, err, b->eng[i].passes - a->eng[i].passes,
		       b->eng[i].busy_passes - a->eng[i].busy_passes, b->eng[i].threads);
	}
}

/*
 * The DPDK release this process runs on ("24.11.8"), from EAL itself: every
 * figure names the DPDK it was measured with, whatever the build claims.
 */
static const char *
dpdk_release(void)
{
	const char *v = rte_version();

	return strncmp(v, "DPDK ", 5) == 0 ? v + 5 : v;
}

static void
report(double elapsed)
{
	uint64_t pkts = 0, sent = 0, busy = 0, idle = 0, rxc = 0, txc = 0, outl = 0, cp = 0;
	unsigned int i;

	for (i = 0; i < nb_tasks; i++) {
		struct bench_task *t = &tasks[i];
		uint64_t ov = (t->busy - t->outliers) * tsc_overhead;
		uint64_t tp = t->cyc_pkts;
		uint64_t rc = t->rx_cyc > ov ? t->rx_cyc - ov : 0;
		uint64_t tc = t->tx_cyc > ov ? t->tx_cyc - ov : 0;

		printf("TASK port=%u->%u queue=%u lcore=%u pkts=%" PRIu64 " sent=%" PRIu64
		       " busy=%" PRIu64 " idle=%" PRIu64 " cyc_rx=%.1f cyc_tx=%.1f cyc_pkt=%.1f"
		       " mpps=%.3f\n", t->rx_port, t->tx_port, t->queue, i % nb_workers,
		       t->pkts, t->sent, t->busy, t->idle,
		       tp ? (double)rc / tp : 0.0, tp ? (double)tc / tp : 0.0,
		       tp ? (double)(rc + tc) / tp : 0.0,
		       elapsed > 0 ? t->sent / elapsed / 1e6 : 0.0);
		pkts += t->pkts;
		sent += t->sent;
		busy += t->busy;
		idle += t->idle;
		outl += t->outliers;
		cp += t->cyc_pkts;
		rxc += rc;
		txc += tc;
	}
	if (opt.tso_mss != 0)
		printf("TSO label=%s mss=%u send=%u sends=%" PRIu64 " segs_per_send=%u"
		       " tso_gbps=%.3f cyc_send=%.1f\n", opt.label ? opt.label : "-",
		       opt.tso_mss, opt.tso_send, sent,
		       (opt.tso_send + opt.tso_mss - 1) / opt.tso_mss,
		       elapsed > 0 ? sent * (double)opt.tso_send * 8 / elapsed / 1e9 : 0.0,
		       cp ? (double)txc / cp : 0.0);
	printf("RESULT label=%s burst=%u len=%u queues=%u lcores=%u pkts=%" PRIu64
	       " sent=%" PRIu64 " busy=%" PRIu64 " idle=%" PRIu64 " outliers=%" PRIu64
	       " avg_burst=%.1f"
	       " cyc_rx=%.1f cyc_tx=%.1f cyc_pkt=%.1f mpps=%.3f seconds=%.2f"
	       " tsc_mhz=%.0f tsc_overhead=%" PRIu64 " dpdk=%s\n",
	       opt.label ? opt.label : "-", opt.burst, opt.frame_len, opt.nb_queues,
	       nb_workers, pkts, sent, busy, idle, outl, busy ? (double)pkts / busy : 0.0,
	       cp ? (double)rxc / cp : 0.0, cp ? (double)txc / cp : 0.0,
	       cp ? (double)(rxc + txc) / cp : 0.0,
	       elapsed > 0 ? sent / elapsed / 1e6 : 0.0, elapsed,
	       rte_get_tsc_hz() / 1e6, tsc_overhead, dpdk_release());
}

static int
setup_all(uint16_t *nb_ports)
{
	uint16_t p, q;
	int rc;

	*nb_ports = rte_eth_dev_count_avail();
	if (*nb_ports == 0) {
		fprintf(stderr, "no ports\n");
		return -ENODEV;
	}
	pool = rte_pktmbuf_pool_create("bench_pool", opt.nb_mbufs, 256, 0,
				       opt.mbuf_data, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "mbuf pool: %s\n", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (p = 0; p < *nb_ports; p++) {
		rc = port_setup(p);
		if (rc != 0) {
			fprintf(stderr, "port %u setup: %s\n", p, rte_strerror(-rc));
			return rc;
		}
	}
	wait_links(*nb_ports);
	if (opt.tso_mss != 0) {
		rc = tso_setup();
		if (rc != 0) {
			fprintf(stderr, "TSO payload: %s\n", strerror(-rc));
			return rc;
		}
	}
	for (p = 0; p < *nb_ports; p++) {
		for (q = 0; q < opt.nb_queues; q++) {
			struct bench_task *t;

			if (nb_tasks == BENCH_MAX_TASKS)
				return -E2BIG;
			t = &tasks[nb_tasks++];
			t->rx_port = p;
			t->tx_port = (p ^ 1) < *nb_ports ? (p ^ 1) : p;
			t->queue = q;
		}
	}
	/*
	 * One empty poll of every RX queue first: a memif client posts its
	 * receive slots there, and the server cannot send before it has.
	 */
	for (p = 0; p < *nb_ports && opt.prime > 0; p++) {
		for (q = 0; q < opt.nb_queues; q++) {
			struct rte_mbuf *m[BENCH_MAX_BURST];
			uint16_t n = rte_eth_rx_burst(p, q, m, BENCH_MAX_BURST);

			rte_pktmbuf_free_bulk(m, n);
		}
	}
	for (p = 0; p < *nb_ports && opt.prime > 0; p++) {
		rc = prime_port(p);
		if (rc != 0) {
			fprintf(stderr, "priming port %u: %s\n", p, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static void
run_timed(void)
{
	unsigned int lcore, w = 1;

	nb_workers = RTE_MIN(rte_lcore_count(), nb_tasks);
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (w >= nb_workers)
			break;
		rte_eal_remote_launch(worker, (void *)(uintptr_t)w++, lcore);
	}
	worker((void *)0);
	rte_eal_mp_wait_lcore();
}

int
main(int argc, char **argv)
{
	uint16_t nb_ports, p;
	double t0, t1;
	int rc;

	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	argc -= rc;
	argv += rc;
	if (parse_args(argc, argv) != 0)
		return 2;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	lookup_model();
	hook.at_measure = snap_at_measure;
	hook.at_end = snap_at_end;
	calibrate_tsc();
	rc = setup_all(&nb_ports);
	if (rc != 0)
		return 1;
	if (opt.frames > 0) {
		nb_workers = 1;
		t0 = now_s();
		run_frames();
		t1 = now_s();
	} else {
		run_timed();
		t0 = hook.t0;
		t1 = hook.t1;
	}
	report(t1 - t0);
	model_report(&snap0, &snap1);
	for (p = 0; p < nb_ports; p++) {
		struct rte_eth_stats st;

		if (rte_eth_stats_get(p, &st) == 0)
			printf("PORT %u ipackets=%" PRIu64 " opackets=%" PRIu64 " imissed=%"
			       PRIu64 " ierrors=%" PRIu64 " oerrors=%" PRIu64 "\n", p,
			       st.ipackets, st.opackets, st.imissed, st.ierrors, st.oerrors);
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	rte_eal_cleanup();
	return 0;
}
