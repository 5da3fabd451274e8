/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * TX from memory outside the registered mempools (user guide, "Memory TX
 * buffers may live in"): external buffers attached with
 * rte_pktmbuf_attach_extbuf in rte_malloc memory and in an anonymous mmap
 * area given to rte_extmem_register, indirect mbufs of another pool and of
 * an extbuf mbuf, chains mixing them, TSO with an extbuf payload. Port 0
 * sends to port 1 over a pair wire; every frame port 1 receives is compared
 * byte for byte. The software device counts the MRs the driver registers:
 * the hit path registers nothing per packet, memory DPDK does not know
 * fails that packet only (tx_q0_mr_fail), a full external table fails its
 * packets with tx_q0_mr_table_full and one log line, and closing the port
 * leaves no MR open.
 */

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <netinet/in.h>

#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_memory.h>

#include "comp.h"

#define EXT_VDEV	"net_mana_ext"
#define EXT_POOL_N	4096
#define EXT_SLOT	4096		/* one extbuf per slot: data, then its shinfo */
#define EXT_SLOTS	256
/*
 * Frames per batch, fewer than the RX ring holds posted: the pair wire drops
 * what finds no buffer, and the driver leaves up to MANA_RX_REFILL_MIN (32)
 * of its 256 entries unposted between refills (a batch of 256 lost 8 to 24
 * frames under ASan on a loaded machine).
 */
#define EXT_BATCH	128
#define EXT_MAX_FRAME	1514
#define EXT_TABLE_MAX	64		/* MANA_MR_EXT_MAX (user guide) */
#define EXT_TX_OL	(RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_MULTI_SEGS | \
			 RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM)

static struct rte_mempool *ext_pool, *ext_poolb;
static int ext_tx = -1, ext_rx = -1;
static bool ext_closed;
static uint8_t *ext_heap;		/* rte_malloc: EXT_SLOTS slots */
static uint8_t *ext_mem;		/* mmap + rte_extmem_register: EXT_SLOTS slots */
static size_t ext_mem_len;
static uint8_t *ext_small[EXT_TABLE_MAX + 4];	/* one page each, rte_extmem_register'ed */
static unsigned int ext_nsmall;
static uint8_t *ext_grown;		/* two pages, registered with DPDK as one then both */
static unsigned int ext_freed;		/* extbuf free callbacks run */

static uint8_t exp_frame[EXT_BATCH][EXT_MAX_FRAME];
static uint32_t exp_len[EXT_BATCH];

static void
ext_free_cb(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
	__atomic_fetch_add(&ext_freed, 1, __ATOMIC_RELAXED);
}

static struct mana_model *
ext_model(void)
{
	return mana_model_find(EXT_VDEV);
}

/* The device's MR counters; at: only open MRs holding that address. */
static struct mana_model_mr_stats
ext_mr_at(const void *at)
{
	struct mana_model_mr_stats st;

	memset(&st, 0, sizeof(st));
	if (mana_model_mr_stats(ext_model(), at, &st) != 0)
		CHECK_FAIL("mana_model_mr_stats failed");
	return st;
}

static struct mana_model_mr_stats
ext_mr(void)
{
	return ext_mr_at(NULL);
}

static int
ext_setup(void)
{
	struct comp_port_cfg tx = { .nb_rxq = 1, .nb_txq = 1, .tx_offloads = EXT_TX_OL };
	struct comp_port_cfg rx = { .nb_rxq = 1, .nb_txq = 1 };
	void *p;

	if (ext_closed)
		return -1;
	if (ext_tx >= 0)
		return 0;
	if (comp_vdev_create(EXT_VDEV, "ports=2,wire=pair:1,wire=pair:0,"
			     "mac1=02:00:00:00:00:03") != 0)
		return -1;
	ext_pool = comp_pool("ext_pool", EXT_POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	ext_tx = comp_port_of(EXT_VDEV, 0);
	ext_rx = comp_port_of(EXT_VDEV, 1);
	if (ext_pool == NULL || ext_tx < 0 || ext_rx < 0 ||
	    comp_port_start(ext_tx, &tx, ext_pool) != 0 ||
	    comp_port_start(ext_rx, &rx, ext_pool) != 0)
		return -1;
	/* A second pool, created after start (its mbufs are cloned into ext_pool ones). */
	ext_poolb = comp_pool("ext_poolb", 512, RTE_MBUF_DEFAULT_BUF_SIZE);
	ext_heap = rte_malloc("ext_heap", (size_t)EXT_SLOTS * EXT_SLOT, 4096);
	ext_mem_len = (size_t)EXT_SLOTS * EXT_SLOT;
	p = mmap(NULL, ext_mem_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ext_poolb == NULL || ext_heap == NULL || p == MAP_FAILED)
		return -1;
	ext_mem = p;
	if (rte_extmem_register(ext_mem, ext_mem_len, NULL, 0, 4096) != 0) {
		fprintf(stderr, "  rte_extmem_register: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* Frame k of a batch (UDP, length min..EXT_MAX_FRAME) into exp_frame[k]. */
static uint32_t
ext_frame_min(uint32_t k, uint8_t seed, uint32_t min)
{
	struct comp_frame f;

	comp_frame_default(&f);
	f.len = min + (k * 97 + seed * 13) % (EXT_MAX_FRAME - min + 1);
	f.seed = (uint8_t)(seed + k);
	f.sport = (uint16_t)(1000 + k);
	exp_len[k] = comp_frame_build(exp_frame[k], &f);
	return exp_len[k];
}

static uint32_t
ext_frame(uint32_t k, uint8_t seed)
{
	return ext_frame_min(k, seed, 60);
}

/* An ext_pool mbuf whose data is bytes copied at offset off of slot (EXT_SLOT bytes). */
static struct rte_mbuf *
ext_attached(uint8_t *slot, uint32_t off, const uint8_t *bytes, uint32_t len)
{
	struct rte_mbuf_ext_shared_info *shinfo;
	struct rte_mbuf *m = rte_pktmbuf_alloc(ext_pool);
	uint16_t buf_len = EXT_SLOT;
	rte_iova_t iova;

	if (m == NULL)
		return NULL;
	shinfo = rte_pktmbuf_ext_shinfo_init_helper(slot, &buf_len, ext_free_cb, NULL);
	if (shinfo == NULL || off + len > buf_len) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	iova = rte_mem_virt2iova(slot);
	rte_pktmbuf_attach_extbuf(m, slot, iova, buf_len, shinfo);
	m->data_off = (uint16_t)off;
	memcpy(slot + off, bytes, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return m;
}

/* Send pkts[0..n) (n <= EXT_BATCH) from port 0; port 1 must receive exp_frame[] in order. */
static bool
ext_send_check(struct rte_mbuf **pkts, uint32_t n)
{
	struct rte_mbuf *rx[EXT_BATCH];
	uint8_t buf[EXT_MAX_FRAME];
	uint32_t got, k;
	const uint8_t *d;
	bool ok = true;
	uint16_t sent;

	sent = comp_tx_all((uint16_t)ext_tx, 0, pkts, (uint16_t)n, COMP_WAIT_MS);
	if (!CHECK_EQ(sent, n)) {
		comp_free(pkts + sent, n - sent);
		return false;
	}
	got = comp_rx_wait((uint16_t)ext_rx, 1, rx, EXT_BATCH, n, COMP_WAIT_MS, NULL);
	ok = CHECK_EQ(got, n);
	for (k = 0; k < got && k < n && ok; k++) {
		ok = CHECK_EQ(rx[k]->pkt_len, exp_len[k]);
		if (!ok)
			break;
		d = rte_pktmbuf_read(rx[k], 0, exp_len[k], buf);
		ok = d != NULL && CHECK_MEM(d, exp_frame[k], exp_len[k]);
	}
	comp_free(rx, got);
	return ok;
}

/* A batch of n frames, each in an extbuf of area (slot k), at varying offsets. */
static bool
ext_batch(uint8_t *area, uint32_t n, uint8_t seed)
{
	struct rte_mbuf *pkts[EXT_BATCH];
	uint32_t k, len;

	for (k = 0; k < n; k++) {
		len = ext_frame(k, seed);
		pkts[k] = ext_attached(area + (size_t)k * EXT_SLOT, (k * 8) % 512, exp_frame[k], len);
		if (!CHECK(pkts[k] != NULL)) {
			comp_free(pkts, k);
			return false;
		}
	}
	return ext_send_check(pkts, n);
}

/* At least want extbufs went back to their owner (free callback after TX completion). */
static bool
ext_all_freed(unsigned int want)
{
	return CHECK_GE(__atomic_load_n(&ext_freed, __ATOMIC_RELAXED), want);
}

/*
 * rte_malloc memory: the first batch registers one region (the heap's run),
 * forty more register nothing (the per-queue cache and the table serve them).
 */
static void
test_heap(void)
{
	struct mana_model_mr_stats a, b;
	unsigned int freed0 = ext_freed, i;

	REQUIRE_EQ(ext_setup(), 0);
	a = ext_mr();
	REQUIRE(ext_batch(ext_heap, EXT_BATCH, 1));
	b = ext_mr();
	CHECK(b.registered - a.registered <= 1);
	a = b;
	for (i = 0; i < 40; i++)
		REQUIRE(ext_batch(ext_heap, EXT_BATCH, (uint8_t)(2 + i)));
	b = ext_mr();
	CHECK_EQ(b.registered - a.registered, 0);
	printf("  heap extbufs: %u packets, %" PRIu64 " registrations after the first batch "
	       "(%" PRIu64 " per 100k)\n", 40 * EXT_BATCH, b.registered - a.registered,
	       (b.registered - a.registered) * 100000 / (40 * EXT_BATCH));
	CHECK_EQ(comp_xstat((uint16_t)ext_tx, "tx_q0_mr_fail"), 0);
	/* every batch but the last is retired (its completions came with later bursts) */
	ext_all_freed(freed0 + 40 * EXT_BATCH);
}

/*
 * rte_extmem_register'ed mmap memory is sent; plain malloc memory (not
 * DPDK's) fails that packet only: tx_burst takes nothing, mr_fail counts it,
 * and the next burst goes on.
 */
static void
test_extmem(void)
{
	struct mana_model_mr_stats a, b;
	int64_t fail0;
	uint8_t *plain;
	struct rte_mbuf *m;
	uint32_t len;

	REQUIRE_EQ(ext_setup(), 0);
	fail0 = comp_xstat((uint16_t)ext_tx, "tx_q0_mr_fail");
	plain = aligned_alloc(4096, EXT_SLOT);
	REQUIRE(plain != NULL);
	len = ext_frame(0, 77);
	m = ext_attached(plain, 0, exp_frame[0], len);
	REQUIRE(m != NULL);
	a = ext_mr();
	CHECK_EQ(rte_eth_tx_burst((uint16_t)ext_tx, 0, &m, 1), 0);
	CHECK_EQ(comp_xstat((uint16_t)ext_tx, "tx_q0_mr_fail"), fail0 + 1);
	CHECK_EQ(comp_xstat((uint16_t)ext_tx, "tx_q0_mr_table_full"), 0);
	b = ext_mr();
	CHECK_EQ(b.registered, a.registered);
	rte_pktmbuf_free(m);
	free(plain);

	REQUIRE(ext_batch(ext_mem, EXT_BATCH, 9));
	REQUIRE(ext_batch(ext_mem, EXT_BATCH, 10));
	b = ext_mr();
	CHECK(b.registered - a.registered <= 1);
}

/*
 * Indirect mbufs: clones (in ext_pool) of ext_poolb mbufs, and mbufs
 * attached (rte_pktmbuf_attach) to an extbuf mbuf, alternately.
 */
static void
test_indirect(void)
{
	struct rte_mbuf *pkts[EXT_BATCH], *d;
	uint32_t k, len, n = 128;

	REQUIRE_EQ(ext_setup(), 0);
	for (k = 0; k < n; k++) {
		len = ext_frame(k, 31);
		if (k % 2 == 0) {
			d = comp_mbuf_from(ext_poolb, exp_frame[k], len);
			REQUIRE(d != NULL);
			pkts[k] = rte_pktmbuf_clone(d, ext_pool);
		} else {
			d = ext_attached(ext_heap + (size_t)k * EXT_SLOT, 64, exp_frame[k], len);
			REQUIRE(d != NULL);
			pkts[k] = rte_pktmbuf_alloc(ext_pool);
			if (pkts[k] != NULL)
				rte_pktmbuf_attach(pkts[k], d);
		}
		rte_pktmbuf_free(d);	/* the indirect mbuf holds the data */
		REQUIRE(pkts[k] != NULL);
		CHECK(RTE_MBUF_CLONED(pkts[k]) || RTE_MBUF_HAS_EXTBUF(pkts[k]));
	}
	REQUIRE(ext_send_check(pkts, n));
	CHECK_EQ(rte_mempool_avail_count(ext_poolb) >= 512 - n / 2, 1);
}

/* Frame k split over a chain: direct header, heap extbuf, clone of a poolb mbuf, extmem extbuf. */
static struct rte_mbuf *
ext_chain(uint32_t k, uint32_t len)
{
	uint32_t cut[5], i;
	struct rte_mbuf *seg[4], *d;

	cut[0] = 0;
	cut[1] = 14 + k % 40;
	cut[2] = cut[1] + (len - cut[1]) / 3;
	cut[3] = cut[2] + (len - cut[2]) / 2;
	cut[4] = len;
	seg[0] = comp_mbuf_from(ext_pool, exp_frame[k], cut[1]);
	seg[1] = ext_attached(ext_heap + (size_t)(EXT_SLOTS - 1 - k) * EXT_SLOT, 100,
			      exp_frame[k] + cut[1], cut[2] - cut[1]);
	d = comp_mbuf_from(ext_poolb, exp_frame[k] + cut[2], cut[3] - cut[2]);
	seg[2] = d != NULL ? rte_pktmbuf_clone(d, ext_pool) : NULL;
	rte_pktmbuf_free(d);
	seg[3] = ext_attached(ext_mem + (size_t)(EXT_SLOTS - 1 - k) * EXT_SLOT, 3,
			      exp_frame[k] + cut[3], cut[4] - cut[3]);
	for (i = 0; i < 4; i++) {
		if (seg[i] == NULL) {
			for (i = 0; i < 4; i++)
				rte_pktmbuf_free(seg[i]);
			return NULL;
		}
	}
	for (i = 1; i < 4; i++) {
		if (rte_pktmbuf_chain(seg[0], seg[i]) != 0) {
			for (; i < 4; i++)
				rte_pktmbuf_free(seg[i]);
			rte_pktmbuf_free(seg[0]);
			return NULL;
		}
	}
	return seg[0];
}

static void
test_chain(void)
{
	struct rte_mbuf *pkts[EXT_BATCH];
	uint32_t k, n = 128;

	REQUIRE_EQ(ext_setup(), 0);
	for (k = 0; k < n; k++) {
		ext_frame_min(k, 55, 200);
		pkts[k] = ext_chain(k, exp_len[k]);
		REQUIRE(pkts[k] != NULL);
		REQUIRE_EQ(pkts[k]->nb_segs, 4);
	}
	REQUIRE(ext_send_check(pkts, n));
}

/* TSO: 54 header bytes in an ext_pool mbuf, a 9000-byte payload in an rte_malloc extbuf. */
#define TSO_HDR		54
#define TSO_PAYLOAD	9000
#define TSO_MSS		1000

static void
test_tso(void)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x03 };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	uint8_t hdr[TSO_HDR], payload[TSO_PAYLOAD], buf[EXT_MAX_FRAME];
	uint32_t nseg = (TSO_PAYLOAD + TSO_MSS - 1) / TSO_MSS, got, k, off = 0, plen;
	struct rte_mbuf *m, *pl, *rx[32];
	uint8_t *area;
	const uint8_t *d;
	int64_t fail0;

	REQUIRE_EQ(ext_setup(), 0);
	fail0 = comp_xstat((uint16_t)ext_tx, "tx_q0_mr_fail");
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, dst, 6);
	memcpy(hdr + 6, src, 6);
	hdr[12] = 0x08;				/* IPv4 */
	hdr[14] = 0x45;
	hdr[22] = 64;				/* TTL */
	hdr[23] = IPPROTO_TCP;
	hdr[26] = 198; hdr[27] = 51; hdr[28] = 100; hdr[29] = 7;
	hdr[30] = 203; hdr[31] = 0; hdr[32] = 113; hdr[33] = 9;
	hdr[34] = 0x9c; hdr[35] = 0x40;		/* ports 40000 -> 443 */
	hdr[36] = 0x01; hdr[37] = 0xbb;
	hdr[46] = 5 << 4;			/* data offset */
	hdr[47] = 0x10;				/* ACK */
	hdr[48] = 0xff; hdr[49] = 0xff;		/* window */
	for (k = 0; k < TSO_PAYLOAD; k++)
		payload[k] = (uint8_t)(k * 7 + k / 251);
	area = rte_malloc("ext_tso", 16384, 4096);
	REQUIRE(area != NULL);
	m = comp_mbuf_from(ext_pool, hdr, TSO_HDR);
	REQUIRE(m != NULL);
	{
		struct rte_mbuf_ext_shared_info *sh;
		uint16_t blen = 16384 - 1;

		sh = rte_pktmbuf_ext_shinfo_init_helper(area, &blen, ext_free_cb, NULL);
		pl = rte_pktmbuf_alloc(ext_pool);
		REQUIRE(sh != NULL && pl != NULL && blen >= TSO_PAYLOAD + 16);
		rte_pktmbuf_attach_extbuf(pl, area, rte_mem_virt2iova(area), blen, sh);
		pl->data_off = 16;
		memcpy(area + 16, payload, TSO_PAYLOAD);
		pl->data_len = TSO_PAYLOAD;
		pl->pkt_len = TSO_PAYLOAD;
	}
	REQUIRE_EQ(rte_pktmbuf_chain(m, pl), 0);
	m->ol_flags |= RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	m->l2_len = 14;
	m->l3_len = 20;
	m->l4_len = 20;
	m->tso_segsz = TSO_MSS;
	REQUIRE_EQ(rte_eth_tx_prepare((uint16_t)ext_tx, 0, &m, 1), 1);
	REQUIRE_EQ(comp_tx_all((uint16_t)ext_tx, 0, &m, 1, COMP_WAIT_MS), 1);
	got = comp_rx_wait((uint16_t)ext_rx, 1, rx, RTE_DIM(rx), nseg, COMP_WAIT_MS, NULL);
	CHECK_EQ(got, nseg);
	for (k = 0; k < got && k < nseg; k++) {
		plen = RTE_MIN((uint32_t)TSO_MSS, TSO_PAYLOAD - off);
		if (!CHECK_EQ(rx[k]->pkt_len, TSO_HDR + plen))
			break;
		d = rte_pktmbuf_read(rx[k], 0, TSO_HDR + plen, buf);
		if (!CHECK(d != NULL) || !CHECK_MEM(d + TSO_HDR, payload + off, plen) ||
		    !CHECK_MEM(d, hdr, 14))
			break;
		CHECK_EQ((uint32_t)(d[16] << 8 | d[17]), 40 + plen);	/* IPv4 total length */
		off += plen;
	}
	CHECK_EQ(off, TSO_PAYLOAD);
	comp_free(rx, got);
	CHECK_EQ(comp_xstat((uint16_t)ext_tx, "tx_q0_tso_packets"), 1);
	CHECK_EQ(comp_xstat((uint16_t)ext_tx, "tx_q0_mr_fail"), fail0);
	/* area stays allocated: the device may read it until the completion; freed at exit */
}

/*
 * One-page areas, each its own rte_extmem_register'ed memory: every one takes
 * a table entry until the table is full; then the packet is refused
 * (tx_burst takes nothing), tx_q0_mr_fail and tx_q0_mr_table_full count it,
 * and one log line says so, not one per packet.
 */
static void
test_table_full(void)
{
	int64_t fail0, full;
	struct rte_mbuf *m, *rx[1];
	char log[8192];
	unsigned int i, sent = 0, lines = 0;
	uint32_t len;
	FILE *f;
	void *p;
	const char *s;

	REQUIRE_EQ(ext_setup(), 0);
	fail0 = comp_xstat((uint16_t)ext_tx, "tx_q0_mr_fail");
	CHECK_EQ(comp_xstat((uint16_t)ext_tx, "tx_q0_mr_table_full"), 0);
	f = comp_log_begin(log, sizeof(log));
	for (i = 0; i < RTE_DIM(ext_small); i++) {
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (!CHECK(p != MAP_FAILED))
			break;
		ext_small[ext_nsmall++] = p;
		if (!CHECK_EQ(rte_extmem_register(p, 4096, NULL, 0, 4096), 0))
			break;
		/* a frame cut short: the wire does not parse it, the bytes are compared */
		len = RTE_MIN(ext_frame(0, (uint8_t)i), 1000u);
		exp_len[0] = len;
		m = ext_attached(p, 0, exp_frame[0], len);
		if (!CHECK(m != NULL))
			break;
		if (rte_eth_tx_burst((uint16_t)ext_tx, 0, &m, 1) == 0) {
			rte_pktmbuf_free(m);
			break;
		}
		sent++;
		if (!CHECK_EQ(comp_rx_wait((uint16_t)ext_rx, 1, rx, 1, 1, COMP_WAIT_MS, NULL), 1))
			break;
		CHECK_MEM(rte_pktmbuf_mtod(rx[0], uint8_t *), exp_frame[0], len);
		comp_free(rx, 1);
	}
	/* Two more from the area that did not fit: refused the same way. */
	for (unsigned int j = 0; j < 2 && i < RTE_DIM(ext_small); j++) {
		m = ext_attached(ext_small[i], 0, exp_frame[0], 100);
		if (m == NULL)
			break;
		CHECK_EQ(rte_eth_tx_burst((uint16_t)ext_tx, 0, &m, 1), 0);
		rte_pktmbuf_free(m);
	}
	comp_log_end(f);
	for (s = log; (s = strstr(s, "external memory region table full")) != NULL; s++)
		lines++;
	printf("  %u one-page areas sent before the table was full\n", sent);
	CHECK(sent >= 1 && sent <= EXT_TABLE_MAX);
	CHECK(i < RTE_DIM(ext_small));
	full = comp_xstat((uint16_t)ext_tx, "tx_q0_mr_table_full");
	CHECK_EQ(full, 3);
	CHECK_EQ(comp_xstat((uint16_t)ext_tx, "tx_q0_mr_fail"), fail0 + 3);
	CHECK_EQ(lines, 1);
}

/*
 * Closing the sending port deregisters its MRs, external ones included: the
 * device (alive while port 1 is open) holds no MR over the extbuf areas any
 * more, and every MR the port registered is gone (port 1, which registered
 * the same pools, keeps the rest). Closing port 1 then leaves none.
 */
static void
test_close(void)
{
	struct mana_model_mr_stats a, b, h, x;

	REQUIRE_EQ(ext_setup(), 0);
	REQUIRE(ext_batch(ext_heap, 16, 99));
	REQUIRE(ext_batch(ext_mem, 16, 98));
	a = ext_mr();
	h = ext_mr_at(ext_heap);
	x = ext_mr_at(ext_mem);
	CHECK_EQ(h.open, 1);
	CHECK_EQ(x.open, 1);
	CHECK_EQ(rte_eth_dev_stop((uint16_t)ext_tx), 0);
	CHECK_EQ(rte_eth_dev_close((uint16_t)ext_tx), 0);
	b = ext_mr();
	CHECK_EQ(ext_mr_at(ext_heap).open, 0);
	CHECK_EQ(ext_mr_at(ext_mem).open, 0);
	if (ext_nsmall > 0)
		CHECK_EQ(ext_mr_at(ext_small[0]).open, 0);
	/* Port 1 registered the pools port 0 did: half of what is left of the pools' MRs. */
	CHECK(a.open > b.open);
	CHECK_EQ(b.deregistered - a.deregistered, a.open - b.open);
	printf("  MRs: %u open before closing port 0 (%" PRIu64 " registered so far), %u after "
	       "(port 1's)\n", a.open, a.registered, b.open);
	CHECK_EQ(rte_eth_dev_stop((uint16_t)ext_rx), 0);
	ext_closed = true;
	/* The model goes with the last port: its own check (close_device with objects left). */
	CHECK_EQ(rte_eth_dev_close((uint16_t)ext_rx), 0);
}


/*
 * Two TX queues of one port on two lcores, started together, send extbufs
 * from one area neither has seen: both miss at once, the area is
 * registered once, and every frame of both arrives intact.
 */
#define MQ_N		96	/* both queues together within one RX ring (256) */
#define MQ_AREA		((size_t)2 * MQ_N * EXT_SLOT)

struct mq_sender {
	uint16_t pid, q;
	uint8_t *area;
	volatile int *go;
	uint8_t frame[MQ_N][EXT_MAX_FRAME];
	uint32_t len[MQ_N];
	uint16_t sent;
};

static struct mq_sender mq_s[2];

static int
mq_send(void *arg)
{
	struct mq_sender *s = arg;
	struct rte_mbuf *pkts[MQ_N];
	uint32_t k;

	for (k = 0; k < MQ_N; k++) {
		pkts[k] = ext_attached(s->area + ((size_t)s->q * MQ_N + k) * EXT_SLOT, 32,
				       s->frame[k], s->len[k]);
		if (pkts[k] == NULL) {
			comp_free(pkts, k);
			return -1;
		}
	}
	while (__atomic_load_n(s->go, __ATOMIC_ACQUIRE) == 0)
		rte_pause();
	s->sent = comp_tx_all(s->pid, s->q, pkts, MQ_N, COMP_WAIT_MS);
	comp_free(pkts + s->sent, MQ_N - s->sent);
	return 0;
}

static void
test_two_queues(void)
{
	struct comp_port_cfg tx = { .nb_rxq = 1, .nb_txq = 2, .tx_offloads = EXT_TX_OL };
	struct comp_port_cfg rx = { .nb_rxq = 1, .nb_txq = 1 };
	struct rte_mbuf *got[2 * MQ_N];
	bool seen[2][MQ_N];
	struct mana_model_mr_stats a, b;
	struct mana_model *m;
	unsigned int worker, q, k, n, i, bad = 0;
	volatile int go = 0;
	uint8_t *area;
	int ptx, prx, ret;
	struct comp_frame f;

	REQUIRE_EQ(ext_setup(), 0);	/* the pool */
	worker = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	REQUIRE(worker < RTE_MAX_LCORE);
	REQUIRE_EQ(comp_vdev_create("net_mana_ext2", "ports=2,wire=pair:1,wire=pair:0,"
				    "mac0=02:00:00:00:00:12,mac1=02:00:00:00:00:13"), 0);
	ptx = comp_port_of("net_mana_ext2", 0);
	prx = comp_port_of("net_mana_ext2", 1);
	REQUIRE(ptx >= 0 && prx >= 0);
	REQUIRE_EQ(comp_port_start((uint16_t)ptx, &tx, ext_pool), 0);
	REQUIRE_EQ(comp_port_start((uint16_t)prx, &rx, ext_pool), 0);
	area = mmap(NULL, MQ_AREA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(area != MAP_FAILED);
	REQUIRE_EQ(rte_extmem_register(area, MQ_AREA, NULL, 0, 4096), 0);
	m = mana_model_find("net_mana_ext2");
	REQUIRE(m != NULL);
	REQUIRE_EQ(mana_model_mr_stats(m, NULL, &a), 0);
	for (q = 0; q < 2; q++) {
		mq_s[q] = (struct mq_sender){ .pid = (uint16_t)ptx, .q = (uint16_t)q,
					      .area = area, .go = &go };
		for (k = 0; k < MQ_N; k++) {
			comp_frame_default(&f);
			f.dst.addr_bytes[5] = 0x13;
			f.len = 60 + (k * 37 + q * 500) % (EXT_MAX_FRAME - 60 + 1);
			f.sport = (uint16_t)(2000 + q);
			f.dport = (uint16_t)k;
			f.seed = (uint8_t)(k * 3 + q);
			mq_s[q].len[k] = comp_frame_build(mq_s[q].frame[k], &f);
		}
	}
	REQUIRE_EQ(rte_eal_remote_launch(mq_send, &mq_s[1], worker), 0);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	ret = mq_send(&mq_s[0]);
	CHECK_EQ(rte_eal_wait_lcore(worker), 0);
	CHECK_EQ(ret, 0);
	CHECK_EQ(mq_s[0].sent, MQ_N);
	CHECK_EQ(mq_s[1].sent, MQ_N);
	n = comp_rx_wait((uint16_t)prx, 1, got, RTE_DIM(got), mq_s[0].sent + mq_s[1].sent,
			 COMP_WAIT_MS, NULL);
	CHECK_EQ(n, 2u * MQ_N);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(got[i], const uint8_t *);
		uint32_t sp = (uint32_t)d[34] << 8 | d[35], dp = (uint32_t)d[36] << 8 | d[37];

		q = sp - 2000;
		k = dp;
		if (got[i]->data_len < 38 || q > 1 || k >= MQ_N || seen[q][k] ||
		    got[i]->pkt_len != mq_s[q].len[k] ||
		    memcmp(d, mq_s[q].frame[k], mq_s[q].len[k]) != 0) {
			bad++;
			continue;
		}
		seen[q][k] = true;
	}
	CHECK_EQ(bad, 0);
	comp_free(got, n);
	REQUIRE_EQ(mana_model_mr_stats(m, NULL, &b), 0);
	CHECK_EQ(b.registered - a.registered, 1);
	REQUIRE_EQ(mana_model_mr_stats(m, area, &b), 0);
	CHECK_EQ(b.open, 1);
	CHECK_EQ(comp_xstat((uint16_t)ptx, "tx_q0_mr_fail"), 0);
	CHECK_EQ(comp_xstat((uint16_t)ptx, "tx_q1_mr_fail"), 0);
	rte_eth_dev_stop((uint16_t)ptx);
	rte_eth_dev_stop((uint16_t)prx);
	comp_vdev_destroy("net_mana_ext2");
	rte_extmem_unregister(area, MQ_AREA);
	munmap(area, MQ_AREA);
}

/*
 * MBUF_FAST_FREE: extbuf mbufs still go back through their free path, so
 * every extbuf is given back (its callback runs) and the pool's mbufs come
 * out clean, not still pointing into the external buffer.
 */
static void
test_fast_free(void)
{
	struct comp_port_cfg tx = {
		.nb_rxq = 1, .nb_txq = 1,
		.tx_offloads = RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE,
	};
	struct comp_port_cfg rx = { .nb_rxq = 1, .nb_txq = 1 };
	struct rte_mbuf *pkts[64], *got[64], *c[64];
	struct rte_mempool *mp;
	unsigned int freed0, round, k, n, dirty = 0;
	uint32_t len;
	int ptx, prx;

	REQUIRE_EQ(ext_setup(), 0);
	REQUIRE_EQ(comp_vdev_create("net_mana_ext3", "ports=2,wire=pair:1,wire=pair:0,"
				    "mac0=02:00:00:00:00:22,mac1=02:00:00:00:00:23"), 0);
	ptx = comp_port_of("net_mana_ext3", 0);
	prx = comp_port_of("net_mana_ext3", 1);
	REQUIRE(ptx >= 0 && prx >= 0);
	mp = comp_pool("ext_ff_pool", 128, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start((uint16_t)ptx, &tx, ext_pool), 0);	/* RX buffers */
	REQUIRE_EQ(comp_port_start((uint16_t)prx, &rx, ext_pool), 0);
	freed0 = __atomic_load_n(&ext_freed, __ATOMIC_RELAXED);
	/* 8 rounds of 64 through a 128-mbuf pool: the pool's mbufs go round. */
	for (round = 0; round < 8; round++) {
		for (k = 0; k < 64; k++) {
			len = ext_frame(k, (uint8_t)(round * 5));
			exp_frame[k][5] = 0x23;		/* to port 1's MAC */
			pkts[k] = rte_pktmbuf_alloc(mp);
			REQUIRE(pkts[k] != NULL);
			if (!RTE_MBUF_DIRECT(pkts[k]) || pkts[k]->buf_addr !=
			    RTE_PTR_ADD(pkts[k], sizeof(struct rte_mbuf) + rte_pktmbuf_priv_size(mp)))
				dirty++;
			rte_pktmbuf_free(pkts[k]);
			c[k] = ext_attached(ext_heap + (size_t)(round * 64 % EXT_SLOTS + k) * EXT_SLOT,
					    16, exp_frame[k], len);
			REQUIRE(c[k] != NULL);
			/* ext_attached took an ext_pool mbuf: move the extbuf to one of mp */
			pkts[k] = rte_pktmbuf_alloc(mp);
			REQUIRE(pkts[k] != NULL);
			rte_pktmbuf_attach(pkts[k], c[k]);
			pkts[k]->data_len = c[k]->data_len;
			pkts[k]->pkt_len = c[k]->pkt_len;
			rte_pktmbuf_free(c[k]);
		}
		REQUIRE_EQ(comp_tx_all((uint16_t)ptx, 0, pkts, 64, COMP_WAIT_MS), 64);
		n = comp_rx_wait((uint16_t)prx, 1, got, 64, 64, COMP_WAIT_MS, NULL);
		CHECK_EQ(n, 64);
		for (k = 0; k < n; k++)
			if (got[k]->pkt_len != exp_len[k] ||
			    memcmp(rte_pktmbuf_mtod(got[k], void *), exp_frame[k], exp_len[k]) != 0)
				dirty++;
		comp_free(got, n);
	}
	CHECK_EQ(dirty, 0);
	/* every round but the last retired by the next one's burst */
	CHECK_GE(__atomic_load_n(&ext_freed, __ATOMIC_RELAXED), freed0 + 7 * 64);
	rte_eth_dev_stop((uint16_t)ptx);
	rte_eth_dev_stop((uint16_t)prx);
	comp_vdev_destroy("net_mana_ext3");
	CHECK_EQ(__atomic_load_n(&ext_freed, __ATOMIC_RELAXED), freed0 + 8 * 64);
	CHECK_EQ(rte_mempool_avail_count(mp), 128);
	rte_mempool_free(mp);
}

/* Send one extbuf frame from at (one page holds it and its shinfo); port 1 must get it. */
static bool
ext_one(uint8_t *at, uint8_t seed)
{
	struct rte_mbuf *m;
	uint32_t len = RTE_MIN(ext_frame(0, seed), 1000u);

	exp_len[0] = len;
	m = ext_attached(at, 0, exp_frame[0], len);
	return CHECK(m != NULL) && ext_send_check(&m, 1);
}

/*
 * An rte_extmem area registered again larger (same start): a buffer past
 * the old end misses, the larger run is registered and the old region
 * retires (still registered: a WQE may use it) until the port stops, which
 * deregisters it; the current region survives the stop and start.
 */
static void
test_grown_area(void)
{
	struct mana_model_mr_stats a, b;
	uint8_t *p;

	REQUIRE_EQ(ext_setup(), 0);
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(p != MAP_FAILED);
	ext_grown = p;				/* unregistered, unmapped at teardown */
	REQUIRE_EQ(rte_extmem_register(p, 4096, NULL, 0, 4096), 0);
	REQUIRE(ext_one(p, 1));
	CHECK_EQ(ext_mr_at(p).open, 1);
	CHECK_EQ(ext_mr_at(p + 4096).open, 0);
	REQUIRE_EQ(rte_extmem_unregister(p, 4096), 0);
	REQUIRE_EQ(rte_extmem_register(p, 8192, NULL, 0, 4096), 0);
	a = ext_mr();
	REQUIRE(ext_one(p + 4096, 2));
	b = ext_mr();
	CHECK_EQ(b.registered - a.registered, 1);
	CHECK_EQ(ext_mr_at(p).open, 2);		/* the retired one and the larger one */
	CHECK_EQ(ext_mr_at(p + 4096).open, 1);
	REQUIRE(ext_one(p, 3));			/* the larger one serves the old page too */
	a = ext_mr();
	CHECK_EQ(a.registered, b.registered);
	CHECK_EQ(rte_eth_dev_stop((uint16_t)ext_tx), 0);
	CHECK_EQ(ext_mr_at(p).open, 1);		/* retired: deregistered at stop */
	CHECK_EQ(ext_mr_at(p + 4096).open, 1);
	REQUIRE_EQ(rte_eth_dev_start((uint16_t)ext_tx), 0);
	REQUIRE(ext_one(p + 4096, 4));
	b = ext_mr();
	CHECK_EQ(b.registered, a.registered);	/* nothing registered again */
}

static const struct comp_case cases[] = {
	{ "heap", test_heap },
	{ "extmem", test_extmem },
	{ "indirect", test_indirect },
	{ "chain", test_chain },
	{ "tso", test_tso },
	{ "two_queues", test_two_queues },
	{ "fast_free", test_fast_free },
	{ "grown_area", test_grown_area },
	{ "table_full", test_table_full },
	{ "close", test_close },
};

static void
ext_teardown(void)
{
	unsigned int i;

	if (ext_tx < 0)
		return;
	if (!ext_closed) {
		rte_eth_dev_stop((uint16_t)ext_tx);
		rte_eth_dev_stop((uint16_t)ext_rx);
	}
	comp_vdev_destroy(EXT_VDEV);
	if (ext_mem != NULL) {
		rte_extmem_unregister(ext_mem, ext_mem_len);
		munmap(ext_mem, ext_mem_len);
	}
	for (i = 0; i < ext_nsmall; i++) {
		rte_extmem_unregister(ext_small[i], 4096);
		munmap(ext_small[i], 4096);
	}
	if (ext_grown != NULL) {
		if (rte_extmem_unregister(ext_grown, 8192) != 0)
			rte_extmem_unregister(ext_grown, 4096);
		munmap(ext_grown, 8192);
	}
	if (ext_pool != NULL && rte_mempool_avail_count(ext_pool) != EXT_POOL_N) {
		fprintf(stderr, "FAIL: %u of %u mbufs back in the pool after teardown\n",
			rte_mempool_avail_count(ext_pool), EXT_POOL_N);
		check_fails = 1;
	}
	rte_free(ext_heap);
	rte_mempool_free(ext_pool);
	rte_mempool_free(ext_poolb);
}

int
main(int argc, char **argv)
{
	int ret;

	comp_eal_init(argv[0]);
	comp_teardown = ext_teardown;
	ret = comp_run(cases, RTE_DIM(cases), argc, argv);
	return ret != 0 || check_fails;
}
