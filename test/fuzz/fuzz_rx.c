/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The driver's RX completion handling (drivers/net/mana/mana_rx.c) against a
 * broken or hostile device. The harness is the device and the application:
 * it owns the queue's CQ, RQ, doorbell page and sw_ring (malloc'd at their
 * exact sizes, so ASan sees any access outside them), writes CQEs of any
 * type, length, flags and owner bits (in order, or anywhere in the ring),
 * calls the burst with any burst size, holds and frees the mbufs it gets,
 * starves the pool, turns the memory-region answers (one lkey, per-mbuf
 * lookups, failing lookups) and asks queue_count / descriptor_status.
 *
 * Input: byte 0 = queue shape (nb_desc 64/128/256, RQ size 1x/2x/4x the
 * minimum, VLAN reinsert, lkey mode), byte 1 = mbufs in the pool beyond
 * nb_desc, then operations (opcode byte + operands) until the input ends.
 *
 * Properties checked after every call, not just "no crash":
 *  - every WQE the doorbell publishes holds an mbuf of the pool that is
 *    neither with the application nor posted already, with the queue's lkey
 *    and buffer size; never more posted than nb_desc;
 *  - every mbuf the burst hands out is one posted and not yet completed,
 *    in posting order (the ones skipped were dropped), never one the
 *    application holds (no mbuf twice), with sane fields (1 segment,
 *    refcnt 1, the port, length within the buffer, data_off the headroom or
 *    4 less with a VLAN tag put back);
 *  - the pool count, the application's mbufs and the posted ones add up
 *    (nothing leaked or freed twice), and errors counts exactly the posted
 *    mbufs dropped; packets and bytes count exactly what was handed out;
 *  - bounded work: at most burst-size packets, at most one CQ lap of
 *    completions per call; queue_count never exceeds the posted buffers;
 *  - at the end, with the queue drained as mana_rxq.c does, the pool holds
 *    every mbuf again.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "mana_ethdev.h"
#include "fuzz.h"

#define POOL_SIZE	1024
#define MAX_DESC	256
#define MAX_OPS		1024
#define LKEY_POOL	0x1234u
#define LKEY_LOOKUP	0x5678u
#define PORT_ID		3

int mana_logtype_init;
int mana_logtype_driver;
int mana_logtype_rx;
int mana_logtype_tx;

static struct rte_mempool *pool;
static struct rte_mbuf *objs[POOL_SIZE];	/* every mbuf of the pool, sorted */
static unsigned int nobjs;

/* Per-run state of the harness (device + application). */
static struct {
	enum { LK_POOL, LK_LOOKUP, LK_FAILING } lkey_mode;
	uint8_t fail_every;		/* LK_FAILING: every n-th lookup fails */
	unsigned int lookups;
	uint8_t with_app[POOL_SIZE];
	uint8_t posted[POOL_SIZE];
	uint32_t fifo[POOL_SIZE];	/* posted mbufs (objs indices) in posting order */
	uint32_t fifo_head, fifo_tail;
	struct rte_mbuf *app[POOL_SIZE];
	unsigned int napp;
	struct rte_mbuf *starved[POOL_SIZE];
	unsigned int nstarved;
	uint32_t seen_bu;		/* RQ producer the harness has read up to */
	uint32_t dev_pi;		/* device's CQ producer index */
	uint64_t delivered, bytes, skipped;
} h;

/* ---- the memory-region side the burst calls (mana_mr.c in the driver) ---- */

void
mana_mr_cache_init(struct mana_mr_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->gen = UINT32_MAX;
}

uint32_t
mana_mr_pool_lkey(struct mana_priv *priv, const struct rte_mempool *mp, uint32_t *gen)
{
	FUZZ_CHECK(mp == pool, "lkey of another pool");
	*gen = __atomic_load_n(&priv->mr.gen, __ATOMIC_ACQUIRE);
	return h.lkey_mode == LK_POOL ? LKEY_POOL : MANA_MR_LKEY_INVALID;
}

uint32_t
mana_mr_lookup_slow(struct mana_priv *priv, struct mana_mr_cache *c, const struct rte_mbuf *m,
		    uintptr_t addr, uint32_t len)
{
	(void)priv;
	(void)c;
	FUZZ_CHECK(m != NULL && m->pool == pool, "lookup of a foreign mbuf");
	FUZZ_CHECK(addr >= (uintptr_t)m->buf_addr &&
		   addr + len <= (uintptr_t)m->buf_addr + m->buf_len, "lookup past the buffer");
	h.lookups++;
	if (h.lkey_mode == LK_FAILING && h.lookups % (h.fail_every % 8 + 1) == 0)
		return MANA_MR_LKEY_INVALID;
	return LKEY_LOOKUP;
}

/* ---- mbuf bookkeeping ---------------------------------------------------- */

static int
obj_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(struct rte_mbuf *const *)a;
	uintptr_t y = (uintptr_t)*(struct rte_mbuf *const *)b;

	return x < y ? -1 : x > y;
}

static int
obj_index(const struct rte_mbuf *m)
{
	struct rte_mbuf *const *p = bsearch(&m, objs, nobjs, sizeof(objs[0]), obj_cmp);

	return p == NULL ? -1 : (int)(p - objs);
}

static void
collect(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	(void)mp;
	(void)arg;
	(void)idx;
	objs[nobjs++] = obj;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { (*argv)[0], "--no-huge", "-m", "128", "--no-pci", "--no-shconf",
			"--file-prefix", prefix, "-l", "0", "--log-level=*:error",
			"--no-telemetry", NULL };

	(void)argc;
	snprintf(prefix, sizeof(prefix), "fuzz_rx_%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "fuzz_rx: EAL init failed: %s\n", rte_strerror(rte_errno));
		abort();
	}
	mana_logtype_init = rte_log_register("pmd.net.mana.init");
	mana_logtype_driver = rte_log_register("pmd.net.mana.driver");
	mana_logtype_rx = rte_log_register("pmd.net.mana.rx");
	mana_logtype_tx = rte_log_register("pmd.net.mana.tx");
	/* No per-lcore cache: the pool's count is exact at every check. */
	pool = rte_pktmbuf_pool_create("fuzz_rx", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL)
		abort();
	rte_mempool_obj_iter(pool, collect, NULL);
	qsort(objs, nobjs, sizeof(objs[0]), obj_cmp);
	return 0;
}

/* ---- checks ---------------------------------------------------------------- */

/*
 * Read the WQEs the doorbell published since the last look. Posted mbufs the
 * driver dropped (back to the pool, not handed out) are the oldest ones:
 * the published count minus what the driver holds tells how many, and they
 * leave the harness's list before the new WQEs (which may reuse them) join.
 */
static void
read_doorbell(const struct mana_rxq *rxq)
{
	uint32_t head_bu, n, i, driver = rxq->sw_head - rxq->sw_tail, fifo_len, pending;
	uint64_t db;

	memcpy(&db, rxq->db_page + GDMA_DB_OFFSET_RQ, sizeof(db));
	n = 0;
	if (db != 0) {
		FUZZ_CHECK((db & GDMA_DB_ID_MASK) == rxq->rq_id, "doorbell of queue %u",
			   (unsigned int)(db & GDMA_DB_ID_MASK));
		head_bu = (uint32_t)(db >> GDMA_DB_TAIL_SHIFT) >> GDMA_WQE_BU_SHIFT;
		n = (head_bu - h.seen_bu) & (UINT32_MAX >> GDMA_WQE_BU_SHIFT);
	}
	FUZZ_CHECK(n <= rxq->nb_desc, "doorbell publishes %u WQEs, %u descriptors", n,
		   rxq->nb_desc);
	FUZZ_CHECK(driver <= rxq->nb_desc, "%u posted, %u descriptors", driver, rxq->nb_desc);
	fifo_len = h.fifo_tail - h.fifo_head;
	FUZZ_CHECK(fifo_len + n >= driver, "driver holds %u, published %u", driver, fifo_len + n);
	pending = fifo_len + n - driver;	/* dropped at the head, not seen yet */
	FUZZ_CHECK(pending <= fifo_len, "%u dropped of %u posted", pending, fifo_len);
	FUZZ_CHECK(rxq->stats.errors == h.skipped + pending, "errors %llu, dropped %llu",
		   (unsigned long long)rxq->stats.errors,
		   (unsigned long long)(h.skipped + pending));
	while (pending-- > 0) {
		h.posted[h.fifo[h.fifo_head++ % POOL_SIZE]] = 0;
		h.skipped++;
	}
	for (i = 0; i < n; i++, h.seen_bu++) {
		const uint64_t *w = (const uint64_t *)(rxq->rq_buf +
			((h.seen_bu << GDMA_WQE_BU_SHIFT) & rxq->rq_mask));
		uint32_t lkey = (uint32_t)w[3], size = (uint32_t)(w[3] >> 32);
		struct rte_mbuf *m;
		int k;

		FUZZ_CHECK(GDMA_GET((uint32_t)(w[0] >> 32), GDMA_WQE_NUM_SGE) == 1, "WQE SGEs");
		FUZZ_CHECK(size == rxq->buf_size, "SGE size %u, buffer %u", size, rxq->buf_size);
		FUZZ_CHECK(lkey == (h.lkey_mode == LK_POOL ? LKEY_POOL : LKEY_LOOKUP),
			   "SGE lkey %#x", lkey);
		m = (struct rte_mbuf *)((uintptr_t)w[2] - rxq->buf_off);
		k = obj_index(m);
		FUZZ_CHECK(k >= 0, "WQE address %#lx is no mbuf of the pool", (unsigned long)w[2]);
		FUZZ_CHECK(!h.with_app[k], "posted an mbuf the application holds");
		FUZZ_CHECK(!h.posted[k], "posted an mbuf already posted");
		h.posted[k] = 1;
		h.fifo[h.fifo_tail++ % POOL_SIZE] = k;
	}
}

static void
check_mbuf(const struct mana_rxq *rxq, const struct rte_mbuf *m)
{
	bool tag_back = (m->ol_flags & RTE_MBUF_F_RX_VLAN) &&
		!(m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED);
	uint32_t max = rxq->buf_size + (tag_back ? RTE_VLAN_HLEN : 0);

	FUZZ_CHECK(m->nb_segs == 1 && m->next == NULL, "segments %u", m->nb_segs);
	FUZZ_CHECK(rte_mbuf_refcnt_read(m) == 1, "refcnt %u", rte_mbuf_refcnt_read(m));
	FUZZ_CHECK(m->port == PORT_ID, "port %u", m->port);
	FUZZ_CHECK(m->pkt_len == m->data_len, "pkt_len %u data_len %u", m->pkt_len, m->data_len);
	FUZZ_CHECK(m->data_len >= 1 && m->data_len <= max, "length %u (max %u)", m->data_len,
		   max);
	FUZZ_CHECK(m->data_off == rxq->data_off - (tag_back ? RTE_VLAN_HLEN : 0), "data_off %u",
		   m->data_off);
	FUZZ_CHECK(tag_back == false || rxq->vlan_reinsert != 0, "tag put back unasked");
	FUZZ_CHECK((uint32_t)m->data_off + m->data_len <= m->buf_len, "data past the buffer");
}

/* A handed-out mbuf: the oldest posted one after those dropped before it. */
static void
take_delivered(const struct mana_rxq *rxq, struct rte_mbuf *m)
{
	int k = obj_index(m);

	FUZZ_CHECK(k >= 0, "handed out %p, no mbuf of the pool", (void *)m);
	FUZZ_CHECK(!h.with_app[k], "handed out an mbuf twice (the application holds it)");
	FUZZ_CHECK(h.posted[k], "handed out an mbuf never posted");
	while (h.fifo[h.fifo_head % POOL_SIZE] != (uint32_t)k) {
		FUZZ_CHECK(h.fifo_head != h.fifo_tail, "fifo");
		h.posted[h.fifo[h.fifo_head++ % POOL_SIZE]] = 0;
		h.skipped++;
	}
	h.fifo_head++;
	h.posted[k] = 0;
	h.with_app[k] = 1;
	check_mbuf(rxq, m);
	h.delivered++;
	h.bytes += m->pkt_len;
	h.app[h.napp++] = m;
}

/* Pool + application + posted = every mbuf (after read_doorbell); exact packet counters. */
static void
check_accounts(const struct mana_rxq *rxq)
{
	unsigned int avail = rte_mempool_avail_count(pool);
	unsigned int out, driver = rxq->sw_head - rxq->sw_tail;

	FUZZ_CHECK(avail + h.napp + h.nstarved <= nobjs, "pool holds %u, application %u, "
		   "harness %u of %u: an mbuf freed twice", avail, h.napp, h.nstarved, nobjs);
	out = nobjs - avail - h.napp - h.nstarved;
	FUZZ_CHECK(out == driver, "%u mbufs out of the pool, %u posted: leaked", out, driver);
	FUZZ_CHECK(h.fifo_tail - h.fifo_head == driver, "driver holds %u, published %u", driver,
		   h.fifo_tail - h.fifo_head);
	FUZZ_CHECK(rxq->stats.packets == h.delivered, "packets %llu, handed out %llu",
		   (unsigned long long)rxq->stats.packets, (unsigned long long)h.delivered);
	FUZZ_CHECK(rxq->stats.bytes == h.bytes, "bytes %llu, handed out %llu",
		   (unsigned long long)rxq->stats.bytes, (unsigned long long)h.bytes);
	FUZZ_CHECK(rxq->pend.i <= rxq->pend.n && rxq->pend.n <= MANA_RXCQE_PPI_MAX,
		   "pending %u/%u", rxq->pend.i, rxq->pend.n);
}

/* ---- the device ------------------------------------------------------------- */

/* A CQE in order with this lap's owner: type, dword 1 and up to 4 lengths. */
static void
dev_complete(struct mana_rxq *rxq, const uint8_t *p)
{
	static const uint8_t types[8] = {
		CQE_RX_OKAY, CQE_RX_COALESCED_4, CQE_RX_TRUNCATED, CQE_RX_OBJECT_FENCE,
		CQE_RX_OKAY, CQE_RX_COALESCED_4, 0, 63,
	};
	struct gdma_cqe *c = &rxq->cq_ring[h.dev_pi & rxq->desc_mask];
	uint32_t i, dw1;

	memset(c, 0, sizeof(*c));
	c->data[0] = types[p[0] & 7];
	memcpy(&dw1, p + 1, sizeof(dw1));
	c->data[1] = dw1;
	for (i = 0; i < MANA_RXCQE_PPI_MAX; i++) {
		uint16_t len;

		memcpy(&len, p + 5 + 2 * i, sizeof(len));
		/* mostly lengths that fit, some at and past the limits */
		if (p[0] & 0x80)
			len = len % (rxq->buf_size + 2);
		c->data[MANA_RXCQE_PKT_LEN_DW(i)] = len;
		c->data[MANA_RXCQE_PKT_HASH_DW(i)] = dw1 * 2654435761u + i;
	}
	c->info = GDMA_SET(GDMA_CQE_OWNER, gdma_cqe_owner_expected(h.dev_pi, rxq->cq_count));
	h.dev_pi++;
}

/* Any 64 bytes anywhere in the CQ: a device that overruns or corrupts its ring. */
static void
dev_scribble(struct mana_rxq *rxq, const uint8_t *p)
{
	memcpy(&rxq->cq_ring[p[0] & rxq->desc_mask], p + 1, sizeof(struct gdma_cqe));
}

/* ---- one run ------------------------------------------------------------------ */

static size_t
op_size(uint8_t op)
{
	switch (op % 8) {
	case 0: case 1: case 2: return 1 + 13;	/* complete */
	case 3: return 1 + 1 + sizeof(struct gdma_cqe);	/* scribble */
	case 4: return 1 + 1;	/* burst n */
	case 5: return 1 + 1;	/* free k */
	case 6: return 1 + 1;	/* status */
	default: return 1;	/* MR table changed */
	}
}

static void
do_burst(struct mana_rxq *rxq, unsigned int n)
{
	struct rte_mbuf *pkts[256];
	uint32_t head = rxq->cq_head, i;
	uint16_t nb;

	nb = mana_rx_burst(rxq, pkts, n);
	FUZZ_CHECK(nb <= n, "%u packets for a burst of %u", nb, n);
	FUZZ_CHECK(rxq->cq_head - head <= rxq->cq_count, "%u CQEs in one call",
		   rxq->cq_head - head);
	for (i = 0; i < nb; i++)
		take_delivered(rxq, pkts[i]);
	read_doorbell(rxq);
	check_accounts(rxq);
}

static void
app_free(unsigned int k)
{
	while (k-- > 0 && h.napp > 0) {
		struct rte_mbuf *m = h.app[--h.napp];

		h.with_app[obj_index(m)] = 0;
		rte_pktmbuf_free(m);
	}
}

static void
do_status(struct mana_rxq *rxq, unsigned int off)
{
	unsigned int posted = rxq->sw_head - rxq->sw_tail;
	int c = (int)mana_rx_queue_count(rxq);
	int s = mana_rx_descriptor_status(rxq, off);

	FUZZ_CHECK(c >= 0 && (unsigned int)c <= posted, "queue_count %d, %u posted", c, posted);
	if (off >= rxq->nb_desc)
		FUZZ_CHECK(s == -EINVAL, "status of %u: %d", off, s);
	else
		FUZZ_CHECK(s == RTE_ETH_RX_DESC_DONE || s == RTE_ETH_RX_DESC_AVAIL ||
			   s == RTE_ETH_RX_DESC_UNAVAIL, "status %d", s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mana_priv *priv;
	struct mana_rxq *rxq;
	size_t pos = 2, ops = 0;
	unsigned int nb_desc, extra;
	bool started;

	if (size < 2)
		return 0;
	memset(&h, 0, sizeof(h));
	nb_desc = 64u << (data[0] % 3);
	h.lkey_mode = (data[0] >> 4) % 3;
	h.fail_every = data[1] >> 4;
	extra = data[1];
	priv = aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN(sizeof(*priv), RTE_CACHE_LINE_SIZE));
	rxq = calloc(1, sizeof(*rxq));
	FUZZ_CHECK(priv != NULL && rxq != NULL, "calloc");
	memset(priv, 0, sizeof(*priv));
	rxq->priv = priv;
	/* The burst runs through its gate, open as after a queue start. */
	mana_qgates_init(priv);
	mana_qgate_open(priv, true, 0);
	rxq->gate = &priv->rx_gate[0];
	rxq->mp = pool;
	rxq->port_id = PORT_ID;
	rxq->nb_desc = nb_desc;
	rxq->desc_mask = nb_desc - 1;
	rxq->buf_size = rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM;
	rxq->data_off = RTE_PKTMBUF_HEADROOM;
	/* as mana_rxq.c: the data of a posted mbuf m lies at (char *)m + buf_off */
	rxq->buf_off = sizeof(struct rte_mbuf) + rte_pktmbuf_priv_size(pool) + rxq->data_off;
	rxq->mbuf_rearm = mana_rx_rearm_template(rxq->data_off, PORT_ID);
	rxq->vlan_reinsert = (data[0] & 8) ? GDMA_SET(MANA_RXCQE_VLAN_PRESENT, 1) : 0;
	/* The rings at their exact sizes (mana_rxq.c checks the device's against nb_desc). */
	rxq->cq_count = nb_desc;
	rxq->cq_head = nb_desc;
	rxq->cq_ring = calloc(nb_desc, sizeof(struct gdma_cqe));
	rxq->rq_mask = nb_desc * GDMA_WQE_BU_SIZE * (1u << ((data[0] >> 6) % 3)) - 1;
	rxq->rq_buf = malloc(rxq->rq_mask + 1);
	rxq->db_page = calloc(1, GDMA_DB_OFFSET_RQ + sizeof(uint64_t));
	rxq->sw_ring = calloc(nb_desc, sizeof(*rxq->sw_ring));
	rxq->rq_id = 7;
	FUZZ_CHECK(rxq->cq_ring != NULL && rxq->rq_buf != NULL && rxq->db_page != NULL &&
		   rxq->sw_ring != NULL, "ring allocation");
	mana_mr_cache_init(&rxq->mr_cache);
	h.dev_pi = nb_desc;
	/* Leave nb_desc + extra mbufs in the pool. */
	while (rte_mempool_avail_count(pool) > nb_desc + extra)
		FUZZ_CHECK(rte_mempool_get(pool, (void **)&h.starved[h.nstarved++]) == 0, "get");

	/* Failing lookups may leave the ring short: the queue does not start (no doorbell). */
	started = mana_rx_post_all(rxq);
	FUZZ_CHECK(started || h.lkey_mode == LK_FAILING, "cannot post %u buffers", nb_desc);
	if (started) {
		read_doorbell(rxq);
		check_accounts(rxq);
	} else {
		FUZZ_CHECK(*(uint64_t *)(rxq->db_page + GDMA_DB_OFFSET_RQ) == 0,
			   "doorbell of a queue that failed to start");
		pos = size;
	}

	while (pos < size && ops++ < MAX_OPS) {
		uint8_t op = data[pos];
		const uint8_t *arg = data + pos + 1;

		if (pos + op_size(op) > size)
			break;
		pos += op_size(op);
		switch (op % 8) {
		case 0: case 1: case 2:
			dev_complete(rxq, arg);
			break;
		case 3:
			dev_scribble(rxq, arg);
			break;
		case 4:
			do_burst(rxq, arg[0]);
			break;
		case 5:
			app_free(arg[0] % 64);
			check_accounts(rxq);
			break;
		case 6:
			do_status(rxq, arg[0]);
			break;
		default:
			__atomic_fetch_add(&priv->mr.gen, 1, __ATOMIC_RELEASE);
			break;
		}
	}
	if (started)
		do_burst(rxq, 64);

	/* Drain as mana_rxq.c does at queue stop, then every mbuf is back. */
	app_free(POOL_SIZE);
	for (; rxq->sw_tail != rxq->sw_head; rxq->sw_tail++)
		rte_mempool_put(pool, rxq->sw_ring[rxq->sw_tail & rxq->desc_mask]);
	rte_mempool_put_bulk(pool, (void **)h.starved, h.nstarved);
	FUZZ_CHECK(rte_mempool_avail_count(pool) == nobjs, "%u of %u mbufs back in the pool",
		   rte_mempool_avail_count(pool), nobjs);
	free(rxq->cq_ring);
	free(rxq->rq_buf);
	free(rxq->db_page);
	free(rxq->sw_ring);
	free(rxq);
	free(priv);
	return 0;
}
