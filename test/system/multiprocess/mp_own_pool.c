/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * mp_own_pool: a secondary process that transmits mbufs of a pool of its
 * own, one the primary never saw, on a queue of a net_mana port.
 *
 * The primary registers only the mempools it knows (its own, at start or
 * when it creates them); an mbuf of this process's pool misses the MR
 * table, and the driver asks the primary over IPC (CREATE_MR) to register
 * the pool by name. Run as --proc-type=secondary against a primary testpmd
 * that is not forwarding, on a port whose wire loops TX back to RX:
 *
 *   1. creates the pool "mp_own_pool" (this process);
 *   2. sends --frames frames from it on TX queue --txq (to the port's MAC,
 *      ethertype 0x88b5, a sequence number in the payload), retrying for up
 *      to --seconds while the queue is full;
 *   3. receives on RX queue --rxq (the primary's pool refills it) until
 *      every frame is back, each sequence number once;
 *   4. sends empty bursts until the TX completions gave every mbuf back to
 *      its own pool, then frees the pool.
 *
 * Checks (deltas over the run, read through ethdev in this process; the
 * dev_* xstats come from the primary over IPC): tx_q<txq>_packets = frames,
 * dev_tx_frames = frames, tx_q<txq>_mr_fail = 0; rx_q<rxq>_packets = frames,
 * every frame back with its payload; the own pool's mbufs all back. Each
 * check prints one line "ok: ..." or "FAIL: ..."; the last line is
 * "mp_own_pool: PASS" or "mp_own_pool: FAIL (n checks)", exit 0 or 1.
 *
 * --pool-ops NAME: the mempool driver the primary chose for its pool
 * mb_pool_0 (testpmd prints it). A mempool names its driver by an index
 * into each process's own table; this process allocates RX buffers from the
 * primary's pool, so the index must name the same driver here. If it does
 * not, the RX part is refused (one FAIL line) rather than run on another
 * driver's code.
 *
 * --extbuf: every frame's data is instead an external buffer
 * (rte_pktmbuf_attach_extbuf) in an rte_malloc area this process allocates
 * (one slot per frame, in the shared heap): no pool holds it, so the driver
 * asks the primary over IPC (CREATE_MR_EXT) to register the memory run
 * holding it. Checks as above, plus every extbuf given back (its free
 * callback) and the area freed at the end.
 *
 * usage: mp_own_pool [EAL options] -- [--port P] [--txq Q] [--rxq Q]
 *        [--frames N] [--seconds T] [--pool-ops NAME] [--extbuf]
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
#include <rte_ether.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#define OP_BURST	32
#define OP_MAX_IN_FLIGHT	64	/* no more than any RX queue holds (64..2048) */
#define OP_NB_MBUFS	1023
#define OP_FRAME_LEN	128
#define OP_ETHERTYPE	0x88b5		/* IEEE local experimental */
#define OP_MAGIC	0x6f776e70u	/* "ownp" */
#define OP_POOL_NAME	"mp_own_pool"

struct op_opts {
	uint16_t port;
	uint16_t txq;
	uint16_t rxq;
	uint32_t frames;
	unsigned int seconds;
	const char *pool_ops;
	bool extbuf;
};

#define OP_EXT_SLOT	256	/* a frame, then its rte_mbuf_ext_shared_info */

static uint8_t *op_ext_area;		/* --extbuf: frames slots */
static uint32_t op_ext_freed;		/* extbufs given back */

static void
op_ext_free_cb(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
	__atomic_fetch_add(&op_ext_freed, 1, __ATOMIC_RELAXED);
}

/* Move m's frame into extbuf slot seq of op_ext_area; 0 or -1. */
static int
op_to_extbuf(struct rte_mbuf *m, uint32_t seq)
{
	uint8_t *slot = op_ext_area + (size_t)seq * OP_EXT_SLOT;
	struct rte_mbuf_ext_shared_info *sh;
	uint16_t len = OP_EXT_SLOT;

	sh = rte_pktmbuf_ext_shinfo_init_helper(slot, &len, op_ext_free_cb, NULL);
	if (sh == NULL || len < OP_FRAME_LEN)
		return -1;
	memcpy(slot, rte_pktmbuf_mtod(m, void *), OP_FRAME_LEN);
	rte_pktmbuf_attach_extbuf(m, slot, rte_mem_virt2iova(slot), len, sh);
	m->data_len = OP_FRAME_LEN;
	m->pkt_len = OP_FRAME_LEN;
	return 0;
}

/*
 * Right after the 14-byte Ethernet header, so read and written unaligned:
 * packed. Spelled as the compiler attribute: DPDK 25.11 deprecates
 * __rte_packed for __rte_packed_begin/end, which 22.11 lacks.
 */
struct op_payload {
	uint32_t magic;
	uint32_t seq;
} __attribute__((__packed__));

static unsigned int op_fails;

static void
op_check(bool ok, const char *what, uint64_t got, uint64_t want)
{
	if (ok) {
		printf("ok: %s = %" PRIu64 "\n", what, got);
		return;
	}
	printf("FAIL: %s: got %" PRIu64 ", expected %" PRIu64 "\n", what, got, want);
	op_fails++;
}

static int
op_parse(int argc, char **argv, struct op_opts *o)
{
	static const struct option lo[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "txq", required_argument, NULL, 't' },
		{ "rxq", required_argument, NULL, 'r' },
		{ "frames", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ "pool-ops", required_argument, NULL, 'o' },
		{ "extbuf", no_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct op_opts){ .port = 0, .txq = 0, .rxq = 0, .frames = 1000, .seconds = 10 };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->port = (uint16_t)atoi(optarg);
			break;
		case 't':
			o->txq = (uint16_t)atoi(optarg);
			break;
		case 'r':
			o->rxq = (uint16_t)atoi(optarg);
			break;
		case 'n':
			o->frames = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 's':
			o->seconds = (unsigned int)atoi(optarg);
			break;
		case 'o':
			o->pool_ops = optarg;
			break;
		case 'x':
			o->extbuf = true;
			break;
		default:
			return -1;
		}
	}
	return o->frames > 0 && o->seconds > 0 ? 0 : -1;
}

/* The xstat of that name, or UINT64_MAX when the port has none. */
static uint64_t
op_xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

struct op_counters {
	uint64_t txq_packets;
	uint64_t txq_mr_fail;
	uint64_t dev_tx_frames;
	uint64_t rxq_packets;
};

static void
op_read(const struct op_opts *o, struct op_counters *c)
{
	char name[64];

	snprintf(name, sizeof(name), "tx_q%u_packets", o->txq);
	c->txq_packets = op_xstat(o->port, name);
	snprintf(name, sizeof(name), "tx_q%u_mr_fail", o->txq);
	c->txq_mr_fail = op_xstat(o->port, name);
	snprintf(name, sizeof(name), "rx_q%u_packets", o->rxq);
	c->rxq_packets = op_xstat(o->port, name);
	c->dev_tx_frames = op_xstat(o->port, "dev_tx_frames");
}

static int
op_fill(struct rte_mbuf *m, const struct rte_ether_addr *dst, uint32_t seq)
{
	struct rte_ether_hdr *eh;
	struct op_payload *pl;
	char *p;

	p = rte_pktmbuf_append(m, OP_FRAME_LEN);
	if (p == NULL)
		return -1;
	memset(p, 0, OP_FRAME_LEN);
	eh = (struct rte_ether_hdr *)p;
	eh->dst_addr = *dst;
	eh->src_addr = (struct rte_ether_addr){ .addr_bytes = { 0x02, 0, 0, 0, 0x0e, 0x01 } };
	eh->ether_type = rte_cpu_to_be_16(OP_ETHERTYPE);
	pl = (struct op_payload *)(eh + 1);
	pl->magic = rte_cpu_to_be_32(OP_MAGIC);
	pl->seq = rte_cpu_to_be_32(seq);
	return 0;
}

/* A frame of this run: its sequence number, or -1. */
static int64_t
op_frame_seq(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct op_payload *pl = (const struct op_payload *)(eh + 1);

	if (m->pkt_len != OP_FRAME_LEN || m->data_len < sizeof(*eh) + sizeof(*pl) ||
	    eh->ether_type != rte_cpu_to_be_16(OP_ETHERTYPE) ||
	    pl->magic != rte_cpu_to_be_32(OP_MAGIC))
		return -1;
	return rte_be_to_cpu_32(pl->seq);
}

static bool
op_timed_out(uint64_t deadline)
{
	return rte_get_timer_cycles() > deadline;
}

/* Received frames of this run counted into seen[]; the rest counted as other. */
static void
op_receive(const struct op_opts *o, uint8_t *seen, uint32_t *got, uint32_t *dup,
	   uint32_t *other)
{
	struct rte_mbuf *pkts[OP_BURST];
	uint16_t n, i;
	int64_t seq;

	n = rte_eth_rx_burst(o->port, o->rxq, pkts, OP_BURST);
	for (i = 0; i < n; i++) {
		seq = op_frame_seq(pkts[i]);
		if (seq < 0 || seq >= o->frames)
			(*other)++;
		else if (seen[seq]++ != 0)
			(*dup)++;
		else
			(*got)++;
	}
	rte_pktmbuf_free_bulk(pkts, n);
}

/* Send every frame from pool; returns how many the driver accepted. */
static uint32_t
op_send(const struct op_opts *o, struct rte_mempool *pool, const struct rte_ether_addr *dst,
	uint64_t deadline, bool rx, uint8_t *seen, uint32_t *got, uint32_t *dup,
	uint32_t *other)
{
	struct rte_mbuf *pkts[OP_BURST];
	uint32_t seq = 0, sent = 0, n = 0, i;
	uint16_t k;

	while (sent < o->frames && !op_timed_out(deadline)) {
		/*
		 * Receiving back: at most OP_MAX_IN_FLIGHT frames sent and not yet
		 * received, fewer than the RX queue holds, so that the loop wire
		 * (which drops what finds no posted buffer) loses nothing however the
		 * device's engine thread is scheduled beside this one.
		 */
		if (rx && sent - (*got + *dup + *other) + OP_BURST > OP_MAX_IN_FLIGHT) {
			op_receive(o, seen, got, dup, other);
			continue;
		}
		/* A batch from the own pool; what the driver refused goes again first. */
		while (n < OP_BURST && seq < o->frames) {
			pkts[n] = rte_pktmbuf_alloc(pool);
			if (pkts[n] == NULL)
				break;
			if (op_fill(pkts[n], dst, seq) != 0 ||
			    (o->extbuf && op_to_extbuf(pkts[n], seq) != 0)) {
				rte_pktmbuf_free(pkts[n]);
				break;
			}
			n++;
			seq++;
		}
		k = rte_eth_tx_burst(o->port, o->txq, pkts, n);
		sent += k;
		for (i = k; i < n; i++)
			pkts[i - k] = pkts[i];
		n -= k;
		if (rx)
			op_receive(o, seen, got, dup, other);
	}
	rte_pktmbuf_free_bulk(pkts, n);
	return sent;
}

/* RX buffers come from the primary's mb_pool_0: its driver index must name the same driver. */
static bool
op_rx_pool_ok(const struct op_opts *o)
{
	struct rte_mempool *mp = rte_mempool_lookup("mb_pool_0");
	const char *here;

	if (o->pool_ops == NULL)
		return true;
	if (mp == NULL) {
		printf("FAIL: the primary's pool mb_pool_0 not found\n");
		op_fails++;
		return false;
	}
	here = rte_mempool_get_ops(mp->ops_index)->name;
	if (strcmp(here, o->pool_ops) != 0) {
		printf("FAIL: mb_pool_0's driver index %d names %s in this process, %s in the "
		       "primary (tables of mempool drivers differ): RX not tried\n",
		       mp->ops_index, here, o->pool_ops);
		op_fails++;
		return false;
	}
	printf("ok: mb_pool_0's driver index %d names %s here too\n", mp->ops_index, here);
	return true;
}

static void
op_run(const struct op_opts *o)
{
	struct op_counters c0, c1;
	struct rte_ether_addr mac;
	struct rte_mempool *pool;
	uint32_t sent, got = 0, dup = 0, other = 0, in_use;
	uint64_t deadline, hz = rte_get_timer_hz();
	uint8_t *seen;
	bool rx;

	if (rte_eth_macaddr_get(o->port, &mac) != 0) {
		printf("FAIL: port %u: no MAC address\n", o->port);
		op_fails++;
		return;
	}
	rx = op_rx_pool_ok(o);
	seen = calloc(o->frames, 1);
	pool = rte_pktmbuf_pool_create(OP_POOL_NAME, OP_NB_MBUFS, 32, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (seen == NULL || pool == NULL) {
		printf("FAIL: pool %s: %s\n", OP_POOL_NAME, rte_strerror(rte_errno));
		op_fails++;
		free(seen);
		return;
	}
	printf("info: pool %s created in this process (driver %s)\n", OP_POOL_NAME,
	       rte_mempool_get_ops(pool->ops_index)->name);
	if (o->extbuf) {
		op_ext_area = rte_malloc("mp_own_extbuf", (size_t)o->frames * OP_EXT_SLOT, 4096);
		if (op_ext_area == NULL) {
			printf("FAIL: rte_malloc of %u extbuf slots: %s\n", o->frames,
			       rte_strerror(rte_errno));
			op_fails++;
			rte_mempool_free(pool);
			free(seen);
			return;
		}
		printf("info: frames sent from external buffers at %p (rte_malloc)\n",
		       (void *)op_ext_area);
	}
	op_read(o, &c0);
	deadline = rte_get_timer_cycles() + hz * o->seconds;
	sent = op_send(o, pool, &mac, deadline, rx, seen, &got, &dup, &other);
	op_check(sent == o->frames, "frames the driver accepted", sent, o->frames);
	/* The rest comes back; the device counts every frame sent. */
	while (rx && got < sent && !op_timed_out(deadline))
		op_receive(o, seen, &got, &dup, &other);
	do {
		op_read(o, &c1);
		/* Empty bursts retire TX completions: the own pool's mbufs go back. */
		rte_eth_tx_burst(o->port, o->txq, NULL, 0);
		in_use = rte_mempool_in_use_count(pool);
	} while ((c1.dev_tx_frames - c0.dev_tx_frames < sent || in_use != 0 ||
		  (o->extbuf && __atomic_load_n(&op_ext_freed, __ATOMIC_RELAXED) < sent)) &&
		 !op_timed_out(deadline));
	op_check(c1.txq_packets - c0.txq_packets == o->frames, "tx_q packets delta",
		 c1.txq_packets - c0.txq_packets, o->frames);
	op_check(c1.dev_tx_frames - c0.dev_tx_frames == o->frames, "dev_tx_frames delta",
		 c1.dev_tx_frames - c0.dev_tx_frames, o->frames);
	op_check(c1.txq_mr_fail == c0.txq_mr_fail, "tx_q mr_fail delta",
		 c1.txq_mr_fail - c0.txq_mr_fail, 0);
	if (rx) {
		op_check(got == o->frames, "own frames received back, each once", got, o->frames);
		op_check(dup == 0, "frames received twice", dup, 0);
		op_check(other == 0, "other frames received", other, 0);
		op_check(c1.rxq_packets - c0.rxq_packets == o->frames, "rx_q packets delta",
			 c1.rxq_packets - c0.rxq_packets, o->frames);
	}
	op_check(in_use == 0, "own pool's mbufs in use at the end", in_use, 0);
	if (o->extbuf) {
		op_check(op_ext_freed == sent, "extbufs given back", op_ext_freed, sent);
		if (op_ext_freed == sent)
			rte_free(op_ext_area);	/* else the device may still read some */
	}
	if (in_use == 0)
		rte_mempool_free(pool);	/* else the device may still hold some */
	free(seen);
}

int
main(int argc, char **argv)
{
	struct op_opts o;
	int n;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		printf("FAIL: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (op_parse(argc - n, argv + n, &o) != 0) {
		printf("usage: mp_own_pool [EAL options] -- [--port P] [--txq Q] [--rxq Q] "
		       "[--frames N] [--seconds T] [--pool-ops NAME] [--extbuf]\n");
		rte_eal_cleanup();
		return 2;
	}
	if (rte_eal_process_type() != RTE_PROC_SECONDARY) {
		printf("FAIL: run it with --proc-type=secondary\n");
		op_fails++;
	} else if (!rte_eth_dev_is_valid_port(o.port)) {
		printf("FAIL: port %u not found\n", o.port);
		op_fails++;
	} else {
		op_run(&o);
	}
	rte_eal_cleanup();
	if (op_fails != 0) {
		printf("mp_own_pool: FAIL (%u checks)\n", op_fails);
		return 1;
	}
	printf("mp_own_pool: PASS\n");
	return 0;
}
