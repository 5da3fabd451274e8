/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * TX burst: the burst function, prepare, completion handling and descriptor
 * status (queue control: mana_txq.c).
 *
 * Space: a packet needs one descriptor (desc[], nb_desc entries, which also
 * bounds outstanding CQEs to the CQ size) and its WQE's size in BUs of SQ
 * ring space (sq_bu - (sq_head - sq_tail)). The burst stops at the first
 * packet that cannot be posted (ring full, more segments than SGEs, memory
 * not registered): the return value always counts the first packets taken.
 *
 * TSO (RTE_MBUF_F_TX_TCP_SEG, never on the fast path): one LSO WQE per
 * packet (hardware.md §3.5): client_oob_in_sgl, MSS in client_data_unit,
 * SGE 0 exactly the l2 + l3 + l4 header bytes (also in last_vbytes), a first
 * segment holding more split into two SGEs, TCP and IPv4 header checksums
 * on. A TSO packet the burst cannot express so (prepare skipped) stops the
 * burst like one with too many segments: the device never sees a malformed
 * LSO WQE (its CQE_TX_GDMA_ERR would stop the queue). opackets/obytes count
 * the mbuf (pkt_len), not the segments on the wire.
 *
 * tx_prepare (mana_tx_prepare.c) refuses what the device would not do or
 * would fail, counts the refusal per queue by reason (xstats) and says why in
 * one debug-level line.
 *
 * Checksum offload: the device completes a TCP/UDP checksum whose field holds
 * the pseudo-header checksum (hardware.md §3.5). tx_burst never writes packet
 * data: the application calls rte_eth_tx_prepare() (mana_tx_prepare seeds
 * the field) or seeds it itself, as testpmd's csum engine does.
 *
 * CQE suppression (devarg tx_cqe_suppress, default on): every WQE of a burst
 * but the last has suppress_txcqe_gen set, so one CQE retires the burst. The
 * device still writes an error CQE for a failing suppressed WQE (hardware.md
 * §4.6). Each CQE is matched by its tx_wqe_offset (BU index of the WQE,
 * hardware.md §4.6 model policy) to an outstanding descriptor: every descriptor
 * up to and including it is retired, the matched one with the CQE's status,
 * the earlier ones as sent (they would have had their own error CQE
 * otherwise, CQEs come in posting order). A CQE whose offset matches no
 * outstanding WQE (a device that does not fill it) falls back to posting
 * order: OK retires up to the next unsuppressed WQE, an error retires the
 * oldest descriptor only; with suppression off both rules are exact.
 *
 * Bookkeeping: mbufs[] holds the posted mbufs (freed in bulk straight from
 * the ring), desc[] per WQE its end in BUs (found by binary search from a
 * CQE's offset) and the running byte count at post time, so retiring never
 * touches a sent mbuf for the statistics: opackets/obytes count a packet
 * when tx_burst hands it to the device (so they are current even when the
 * application stops sending and the last completions wait for the next
 * burst), and take it back if it completes with an error (oerrors) or is
 * still in flight when the queue stops.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_io.h>
#include <rte_mbuf.h>

#include "mana_ethdev.h"
#include "mana_tx_fast.h"
#include "mana_tx_lso.h"

#define MANA_TX_WQE_OFF_MASK	MANA_TXCQE_WQE_OFFSET_MASK

/* refcnt 1 and one segment (rearm_data bytes 2..5), direct, own buffer: back to its pool as is. */
static inline bool
tx_mbuf_plain(const struct rte_mbuf *m)
{
	uint64_t rearm = *(const uint64_t *)RTE_PTR_ADD(m, offsetof(struct rte_mbuf, rearm_data));

	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, refcnt) !=
			 offsetof(struct rte_mbuf, rearm_data) + 2);
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, nb_segs) !=
			 offsetof(struct rte_mbuf, rearm_data) + 4);
	return ((rearm >> 16) & UINT32_MAX) == (1u | 1u << 16) &&
	       !(m->ol_flags & (RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL));
}

/*
 * Put n plain mbufs of pool mp back. Into this lcore's cache when there is
 * one and n fits it: when the cache would pass its flush threshold, what
 * lies above size - n goes to the pool's ring and the n go on top, so the
 * cache is left full. rte_mempool_put_bulk (DPDK 22.11) would flush the
 * whole cache and leave only the n in it: the next RX refills would find it
 * nearly empty and take from the ring again, each flush paired with a
 * refill.
 */
static inline void
tx_put_bulk(struct rte_mempool *mp, struct rte_mbuf **m, uint32_t n)
{
	struct rte_mempool_cache *cache = rte_mempool_default_cache(mp, rte_lcore_id());
	void **top;

	if (unlikely(cache == NULL || n > cache->size)) {
		rte_mempool_put_bulk(mp, (void **)m, n);
		return;
	}
	/* as rte_mempool_put_bulk's (debug builds: the objects are the pool's, not freed twice) */
	RTE_MEMPOOL_CHECK_COOKIES(mp, (void **)m, n, 0);
	if (cache->len + n <= cache->flushthresh) {
		top = &cache->objs[cache->len];
		cache->len += n;
	} else {
		top = &cache->objs[cache->size - n];
		rte_mempool_ops_enqueue_bulk(mp, top, cache->len - (cache->size - n));
		cache->len = cache->size;
	}
	memcpy(top, m, n * sizeof(*m));
	RTE_MEMPOOL_CACHE_STAT_ADD(cache, put_bulk, 1);
	RTE_MEMPOOL_CACHE_STAT_ADD(cache, put_objs, n);
}

/*
 * Free n sent mbufs (no ring wrap): runs of plain mbufs of one pool go back
 * with one put_bulk; anything else (refcnt > 1, chains, attached buffers)
 * through rte_pktmbuf_free. `bulk`: every mbuf is plain and of m[0]'s pool
 * (posted by tx_post_fast, or MBUF_FAST_FREE's guarantee), so the whole run
 * goes back at once without a look at any of them.
 */
static inline void
tx_free_mbufs(struct rte_mbuf **m, uint32_t n, bool bulk)
{
	struct rte_mempool *mp = m[0]->pool;
	struct rte_mbuf *x;
	uint32_t i, s = 0;

	if (bulk) {
		tx_put_bulk(mp, m, n);
		return;
	}
	for (i = 0; i < n; i++) {
		x = m[i];
		if (likely(x->pool == mp && tx_mbuf_plain(x)))
			continue;
		if (i > s)
			tx_put_bulk(mp, &m[s], i - s);
		if (tx_mbuf_plain(x)) {
			mp = x->pool;
			s = i;
		} else {
			rte_pktmbuf_free(x);
			s = i + 1;
		}
	}
	if (n > s)
		tx_put_bulk(mp, &m[s], n - s);
}

/*
 * Take outstanding descriptors first..last-1 back out of opackets/obytes:
 * those posted since the last statistics reset (the others are in the
 * reset's baseline; taking them back would take the port's view below zero).
 * stats_from is the one field a reset (control thread) writes here.
 */
static void
tx_uncount(struct mana_txq *txq, uint32_t first, uint32_t last)
{
	uint32_t from = __atomic_load_n(&txq->stats_from, __ATOMIC_RELAXED);
	uint32_t start, end, n;
	uint64_t bytes;

	if ((int32_t)(first - from) < 0)
		first = from;
	if ((int32_t)(last - first) <= 0)
		return;
	n = last - first;
	start = first == txq->desc_tail ? txq->bytes_done :
		txq->desc[(first - 1) & txq->desc_mask].bytes;
	end = txq->desc[(last - 1) & txq->desc_mask].bytes;
	bytes = (end - start) & MANA_TX_DESC_BYTES;
	txq->stats.packets -= RTE_MIN((uint64_t)n, txq->stats.packets);
	txq->stats.bytes -= RTE_MIN(bytes, txq->stats.bytes);
}

/* Descriptor e completed with an error: an error, no longer a packet sent. */
static __rte_noinline void
tx_count_error(struct mana_txq *txq, uint32_t e, uint32_t type)
{
	tx_uncount(txq, e, e + 1);
	txq->stats.errors++;
	if (type > CQE_TX_OKAY && type <= CQE_TX_GDMA_ERR)
		txq->stats.err_type[type - CQE_TX_OKAY]++;
}

/* Retire descriptors desc_tail..e: e with CQE type `type`, the earlier ones as sent. */
static inline void
tx_retire_to(struct mana_txq *txq, uint32_t e, uint32_t type)
{
	const struct mana_tx_desc *d = &txq->desc[e & txq->desc_mask];
	uint32_t first = txq->desc_tail, n = e - first + 1, k;
	bool bulk;

	if (unlikely(type != CQE_TX_OKAY))
		tx_count_error(txq, e, type);
	txq->bytes_done = d->bytes & MANA_TX_DESC_BYTES;
	txq->sq_tail = d->wqe_end;
	txq->desc_tail = e + 1;
	/*
	 * One put_bulk for a run tx_post_fast posted alone (plain mbufs of one
	 * pool, mixed_end), or with MBUF_FAST_FREE one without a chain or an
	 * attached (indirect, external) buffer.
	 */
	bulk = (int32_t)(txq->mixed_end - first) <= 0 ||
	       (txq->fast_free && (int32_t)(txq->chain_end - first) <= 0);
	first &= txq->desc_mask;
	k = RTE_MIN(n, (uint32_t)txq->nb_desc - first);
	tx_free_mbufs(&txq->mbufs[first], k, bulk);
	if (unlikely(k < n))
		tx_free_mbufs(txq->mbufs, n - k, bulk);
}

/* Retire the descriptors one CQE stands for (see the file comment). */
static inline void
tx_retire(struct mana_txq *txq, uint32_t type, uint32_t wqe)
{
	uint32_t tail = txq->desc_tail, out = txq->desc_head - tail;
	uint32_t dist, lo, hi, mid;

	if (unlikely(out == 0)) {
		txq->stats.bad_cqe++;
		return;
	}
	/* sq_tail is where the oldest outstanding WQE starts. */
	dist = (wqe - txq->sq_tail) & MANA_TX_WQE_OFF_MASK;
	if (likely(dist < txq->sq_head - txq->sq_tail)) {
		/* Mostly the newest WQE's CQE (the last burst's): it starts where the one before ends. */
		hi = out - 1;
		if (likely(hi == 0 ||
			   txq->desc[(tail + hi - 1) & txq->desc_mask].wqe_end - txq->sq_tail <= dist)) {
			tx_retire_to(txq, tail + hi, type);
			return;
		}
		/* The first descriptor whose WQE ends after `dist`: WQE ends are increasing. */
		lo = 0;
		while (lo < hi) {
			mid = (lo + hi) >> 1;
			if (txq->desc[(tail + mid) & txq->desc_mask].wqe_end - txq->sq_tail > dist)
				hi = mid;
			else
				lo = mid + 1;
		}
		tx_retire_to(txq, tail + lo, type);
		return;
	}
	txq->stats.bad_cqe++;
	if (type != CQE_TX_OKAY) {
		tx_retire_to(txq, tail, type);
		return;
	}
	for (lo = 0; lo < out - 1; lo++)
		if (txq->desc[(tail + lo) & txq->desc_mask].bytes & MANA_TX_DESC_SIG)
			break;
	tx_retire_to(txq, tail + lo, CQE_TX_OKAY);
}

/*
 * Process ready TX CQEs until `budget` mbufs were retired; returns the number
 * retired. With no budget (UINT32_MAX) a run of OK CQEs whose offsets lie in
 * the outstanding WQEs, each behind the one before, is retired as its last
 * CQE alone would retire it (the same descriptors, all sent): one search and
 * one free for the run. Any other CQE ends the run first and is retired on
 * its own, so errors and unmatched offsets are counted as before.
 */
static uint32_t
tx_complete(struct mana_txq *txq, uint32_t budget)
{
	uint32_t shift = rte_bsf32(txq->cq_count), head = txq->cq_head;
	uint32_t tail0 = txq->desc_tail, type, wqe, dist, last_dist = 0, out;
	enum gdma_cqe_owner_state state;
	const struct gdma_cqe *cqe;
	uint32_t run_wqe = 0;
	bool run = false;

	while (txq->desc_tail - tail0 < budget) {
		cqe = &txq->cq_ring[head & txq->desc_mask];
		state = gdma_cqe_owner_state(__atomic_load_n(&cqe->info, __ATOMIC_RELAXED),
					     head >> shift);
		if (state != GDMA_CQE_NEW) {
			if (state == GDMA_CQE_OVERFLOW)
				txq->stats.cq_overflow++;
			break;
		}
		rte_io_rmb();	/* the CQE body after its owner bits (hardware.md §18 #8) */
		head++;
		type = GDMA_GET(cqe->data[0], MANA_CQE_TYPE);
		wqe = GDMA_GET(cqe->data[MANA_TXCQE_DATA_OFFSET_DW + 1], MANA_TXCQE_WQE_OFFSET);
		if (budget == UINT32_MAX && likely(type == CQE_TX_OKAY)) {
			dist = (wqe - txq->sq_tail) & MANA_TX_WQE_OFF_MASK;
			out = txq->sq_head - txq->sq_tail;
			if (likely(dist < out && (!run || dist >= last_dist))) {
				run = true;
				run_wqe = wqe;
				last_dist = dist;
				continue;
			}
		}
		if (run) {
			tx_retire(txq, CQE_TX_OKAY, run_wqe);
			run = false;
		}
		tx_retire(txq, type, wqe);
	}
	if (run)
		tx_retire(txq, CQE_TX_OKAY, run_wqe);
	txq->cq_head = head;
	return txq->desc_tail - tail0;
}

/*
 * lkey of segment m's data [addr, addr + len): the queue's pool cache (a pool
 * registered as one region covers all its direct mbufs), else the address
 * lookup, which also loads the pool cache for the next packets.
 */
static __rte_noinline uint32_t
tx_lkey_slow(struct mana_txq *txq, const struct rte_mbuf *m, uintptr_t addr, uint32_t len)
{
	uint32_t lkey, plkey, gen;

	lkey = mana_mr_lookup(txq->priv, &txq->mr_cache, m, addr, len);
	if (lkey == MANA_MR_LKEY_INVALID || RTE_MBUF_CLONED(m) || RTE_MBUF_HAS_EXTBUF(m) ||
	    m->pool == txq->lk_nopool)
		return lkey;
	plkey = mana_mr_pool_lkey(txq->priv, m->pool, &gen);
	if (gen != txq->lk_gen)
		return lkey;
	if (plkey == lkey) {
		txq->lk_pool = m->pool;
		txq->lk_key = lkey;
		/* The fast path's next mbufs may be of another pool than its last. */
		txq->mixed_end = txq->desc_head + 1;
	} else {
		txq->lk_nopool = m->pool;
	}
	return lkey;
}

static inline uint32_t
tx_lkey(struct mana_txq *txq, const struct rte_mbuf *m, uintptr_t addr, uint32_t len)
{
	if (m->pool == txq->lk_pool && !RTE_MBUF_CLONED(m) && !RTE_MBUF_HAS_EXTBUF(m))
		return txq->lk_key;
	return tx_lkey_slow(txq, m, addr, len);
}

/* Inline OOB for m: short (8 B) or long (24 B, VLAN insertion / wide vport offset). */
static inline uint32_t
tx_write_oob(const struct mana_txq *txq, const struct rte_mbuf *m, uint32_t *oob, bool lng)
{
	uint64_t ol = m->ol_flags;
	uint32_t dw0 = txq->oob_dw0;

	if (ol & RTE_MBUF_F_TX_IPV4)
		dw0 |= GDMA_SET(MANA_TX_IS_OUTER_IPV4, 1);
	else if (ol & RTE_MBUF_F_TX_IPV6)
		dw0 |= GDMA_SET(MANA_TX_IS_OUTER_IPV6, 1);
	if (ol & RTE_MBUF_F_TX_IP_CKSUM)
		dw0 |= GDMA_SET(MANA_TX_COMP_IPHDR_CSUM, 1);
	if ((ol & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_TCP_CKSUM)
		dw0 |= GDMA_SET(MANA_TX_COMP_TCP_CSUM, 1);
	else if ((ol & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_UDP_CKSUM)
		dw0 |= GDMA_SET(MANA_TX_COMP_UDP_CSUM, 1);
	if (txq->suppress)
		dw0 |= GDMA_SET(MANA_TX_SUPPRESS_CQE, 1);
	/* trans_off always initialised (hardware.md §12 #6). */
	oob[1] = txq->oob_dw1 | GDMA_SET(MANA_TX_TRANS_OFF, m->l2_len + m->l3_len);
	if (!lng) {
		oob[0] = dw0;
		return GDMA_OOB_SIZE_SMALL;
	}
	oob[0] = dw0 | GDMA_SET(MANA_TX_PKT_FMT, MANA_TX_PKT_FMT_LONG);
	oob[2] = 0;
	if (ol & RTE_MBUF_F_TX_VLAN)
		oob[2] = GDMA_SET(MANA_TX_INJECT_VLAN, 1) |
			 GDMA_SET(MANA_TX_PCP, m->vlan_tci >> 13) |
			 GDMA_SET(MANA_TX_DEI, m->vlan_tci >> 12) |
			 GDMA_SET(MANA_TX_VLAN_ID, m->vlan_tci);
	oob[3] = txq->oob_long_dw3;
	oob[4] = 0;
	oob[5] = 0;
	return GDMA_OOB_SIZE_LARGE;
}

/* One SGE at byte offset off of the SQ (the SGL may wrap to the ring start at any SGE). */
static __rte_always_inline void
tx_sge(struct mana_txq *txq, uint32_t off, uintptr_t addr, uint32_t lkey, uint32_t len)
{
	struct gdma_sge *sge = (struct gdma_sge *)(txq->sq_buf + (off & txq->sq_mask));

	sge->address = addr;
	sge->mem_key = lkey;
	sge->size = len;
}

/*
 * Write the WQE of m, nsge SGEs, at the producer head. lso (a constant at
 * each call) makes it an LSO WQE whose SGE 0 is the hdr bytes of headers
 * alone (hardware.md §3.5): a first segment holding more takes two SGEs.
 * Nothing becomes visible to the device before the doorbell, so a failure
 * leaves the ring as it was. Returns the WQE's OOB dword 0 (for the
 * suppression fix-up) or NULL.
 */
static __rte_always_inline uint32_t *
tx_post_wqe(struct mana_txq *txq, struct rte_mbuf *m, uint32_t nsge, bool lso, uint32_t hdr)
{
	bool lng = txq->long_oob_only || (m->ol_flags & RTE_MBUF_F_TX_VLAN);
	uint32_t oob_size = lng ? GDMA_OOB_SIZE_LARGE : GDMA_OOB_SIZE_SMALL;
	uint32_t wqe_bu = gdma_wqe_size(oob_size, nsge) >> GDMA_WQE_BU_SHIFT;
	uint32_t base = txq->sq_head << GDMA_WQE_BU_SHIFT, off, lkey, len, dw1;
	uint8_t *wqe = txq->sq_buf + (base & txq->sq_mask);
	struct mana_tx_desc *d;
	struct rte_mbuf *seg;
	uint32_t *oob;
	uintptr_t addr;

	if (txq->desc_head - txq->desc_tail == txq->nb_desc ||
	    txq->sq_bu - (txq->sq_head - txq->sq_tail) < wqe_bu)
		return NULL;
	off = base + GDMA_WQE_HDR_SIZE + oob_size;
	for (seg = m; seg != NULL; seg = seg->next, off += GDMA_SGE_SIZE) {
		addr = rte_pktmbuf_mtod(seg, uintptr_t);
		len = seg->data_len;
		lkey = tx_lkey(txq, seg, addr, len);
		if (unlikely(lkey == MANA_MR_LKEY_INVALID)) {
			txq->stats.mr_fail++;
			txq->stats.mr_table_full += txq->mr_cache.err == -ENOSPC;
			return NULL;
		}
		if (lso && seg == m && len > hdr) {
			/* The headers alone, then the rest of the first segment. */
			tx_sge(txq, off, addr, lkey, hdr);
			off += GDMA_SGE_SIZE;
			addr += hdr;
			len -= hdr;
		}
		tx_sge(txq, off, addr, lkey, len);
	}
	/* Header + OOB (<= 32 B) start on a BU boundary and never wrap. */
	dw1 = GDMA_SET(GDMA_WQE_NUM_SGE, nsge) | GDMA_SET(GDMA_WQE_OOB_DIV4, oob_size / 4);
	oob = (uint32_t *)(wqe + GDMA_WQE_HDR_SIZE);
	tx_write_oob(txq, m, oob, lng);
	if (lso) {
		((uint32_t *)wqe)[0] = GDMA_SET(GDMA_WQE_LAST_VBYTES, hdr);
		((uint32_t *)wqe)[1] = dw1 | GDMA_SET(GDMA_WQE_OOB_IN_SGL, 1) |
			GDMA_SET(GDMA_WQE_CLIENT_DATA_UNIT, m->tso_segsz);
		/* TCP checksum always, the IPv4 header's too; never UDP. */
		oob[0] = (oob[0] & ~GDMA_SET(MANA_TX_COMP_UDP_CSUM, 1)) |
			GDMA_SET(MANA_TX_COMP_TCP_CSUM, 1) |
			GDMA_SET(MANA_TX_COMP_IPHDR_CSUM, !!(m->ol_flags & RTE_MBUF_F_TX_IPV4));
		txq->stats.tso_packets++;
	} else {
		((uint32_t *)wqe)[0] = 0;
		((uint32_t *)wqe)[1] = dw1;
	}
	/* Freed one by one even with MBUF_FAST_FREE: the extbuf or direct mbuf must be let go. */
	if (m->nb_segs > 1 || (m->ol_flags & (RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL)))
		txq->chain_end = txq->desc_head + 1;
	txq->mixed_end = txq->desc_head + 1;
	txq->mbufs[txq->desc_head & txq->desc_mask] = m;
	txq->sq_head += wqe_bu;
	txq->bytes_posted += m->pkt_len;
	d = &txq->desc[txq->desc_head & txq->desc_mask];
	d->wqe_end = txq->sq_head;
	d->bytes = (txq->bytes_posted & MANA_TX_DESC_BYTES) |
		(txq->suppress ? 0 : MANA_TX_DESC_SIG);
	txq->desc_head++;
	return oob;
}

/* m asks for TSO: an LSO WQE, or NULL (counted) when it cannot be one. */
static __rte_noinline uint32_t *
tx_post_lso(struct mana_txq *txq, struct rte_mbuf *m)
{
	enum mana_tx_prep_reason r;
	uint32_t nsge = 0;

	r = mana_tx_lso_layout(txq, m, &nsge);
	if (unlikely(r != MANA_TX_PREP_OK)) {
		if (r == MANA_TX_PREP_SEGS)
			txq->stats.too_many_segs++;
		else
			txq->stats.tso_bad++;
		return NULL;
	}
	return tx_post_wqe(txq, m, nsge, true, m->l2_len + m->l3_len + m->l4_len);
}

/* Any packet the fast path does not take: offloads, VLAN, chains, TSO. */
static __rte_noinline uint32_t *
tx_post(struct mana_txq *txq, struct rte_mbuf *m)
{
	if (unlikely(m->ol_flags & RTE_MBUF_F_TX_TCP_SEG))
		return tx_post_lso(txq, m);
	if (unlikely(m->nb_segs > txq->max_sge)) {
		txq->stats.too_many_segs++;
		return NULL;
	}
	return tx_post_wqe(txq, m, m->nb_segs, false, 0);
}

static inline uint32_t
tx_room(const struct mana_txq *txq, uint32_t want)
{
	uint32_t desc = txq->nb_desc - (txq->desc_head - txq->desc_tail);
	uint32_t bu = txq->sq_bu - (txq->sq_head - txq->sq_tail);

	return RTE_MIN(want, RTE_MIN(desc, bu));
}

static __rte_always_inline uint32_t
tx_run_scalar(const struct tx_fast_ctx *c, struct tx_fast_run *r, bool one_pool)
{
	return tx_fast_run_scalar(c, r, 0, one_pool);
}

/*
 * Fast path (mana_tx_fast.h): post up to max packets as 1-BU WQEs (header +
 * short OOB from the queue's template, one SGE) while they are direct
 * single-segment mbufs of refcnt 1 without offload flags from the pool whose
 * lkey is cached (so a run of them is freed in bulk, mixed_end); returns the
 * number posted. The caller checked the room for max 1-BU WQEs. Not inlined:
 * in tx_burst the loop's constants would live on the stack.
 */
static __rte_noinline uint32_t
tx_post_fast(struct mana_txq *txq, struct rte_mbuf **pkts, uint32_t max)
{
	return tx_fast_runs(txq, pkts, max, tx_run_scalar);
}

/* Drop the pool lkey caches when the MR table changed since they were filled. */
static inline void
tx_lkey_revalidate(struct mana_txq *txq)
{
	uint32_t gen = __atomic_load_n(&txq->priv->mr.gen, __ATOMIC_ACQUIRE);

	if (unlikely(gen != txq->lk_gen)) {
		txq->lk_pool = NULL;
		txq->lk_nopool = NULL;
		txq->lk_gen = gen;
	}
}

/*
 * Runs of fast-path packets (tx_post_fast), each as long as the room for
 * 1-BU WQEs allows, with one packet through tx_post between them, until the
 * burst is posted, the room is used up or a packet cannot be posted. Then
 * one CQE request (suppression) or every descriptor signalled, and one
 * doorbell for the burst.
 */
static __rte_always_inline uint16_t
tx_burst(struct mana_txq *txq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db,
	 mana_tx_fast_fn fast)
{
	const uint32_t dmask = txq->desc_mask;
	uint32_t *oob, *last_oob = NULL, head0, bytes0, head, room, k, nb = 0;
	bool last_fast = false;	/* the burst's last WQE came from tx_post_fast */

	tx_complete(txq, UINT32_MAX);
	tx_lkey_revalidate(txq);
	head0 = txq->desc_head;
	bytes0 = txq->bytes_posted;
	while (nb < n) {
		room = tx_room(txq, n - nb);
		k = fast(txq, &pkts[nb], room);
		nb += k;
		if (k > 0)
			last_fast = true;
		if (k == room)
			break;
		/* pkts[nb] needs the general path. */
		oob = tx_post(txq, pkts[nb]);
		if (oob == NULL)
			break;
		last_oob = oob;
		last_fast = false;
		nb++;
	}
	if (nb == 0)
		return 0;
	head = txq->desc_head;
	if (txq->suppress) {
		/* The burst's last WQE produces the CQE that retires it all. */
		if (last_fast)	/* a WQE of 1 BU */
			last_oob = (uint32_t *)(txq->sq_buf + GDMA_WQE_HDR_SIZE +
				(((txq->sq_head - 1) << GDMA_WQE_BU_SHIFT) & txq->sq_mask));
		rte_compiler_barrier();
		*last_oob &= ~GDMA_SET(MANA_TX_SUPPRESS_CQE, 1);
		txq->desc[(head - 1) & dmask].bytes |= MANA_TX_DESC_SIG;
	} else {
		/* Every WQE signalled: the fast path leaves the flag to this loop. */
		for (; head0 != head; head0++)
			txq->desc[head0 & dmask].bytes |= MANA_TX_DESC_SIG;
	}
	mana_db_ring(db, GDMA_DB_OFFSET_SQ, gdma_db_wq(txq->sq_id, txq->sq_head));
	/* Counted after the doorbell's barrier: desc_head goes first (hardware.md §18 #20). */
	txq->stats.packets += nb;
	txq->stats.bytes += txq->bytes_posted - bytes0;
	return nb;
}

uint16_t
mana_tx_burst_db(struct mana_txq *txq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db)
{
	return tx_burst(txq, pkts, n, db, tx_post_fast);
}

/* A burst with the fast path of a vector build (mana_tx_sse.c, mana_tx_avx2.c, mana_tx_neon.c). */
uint16_t
mana_tx_burst_db_fast(struct mana_txq *txq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db,
		      mana_tx_fast_fn fast)
{
	return tx_burst(txq, pkts, n, db, fast);
}

/*
 * The primary's entry points, one per fast path: the queue's gate held
 * around the burst (mana_qgate.h).
 */
static __rte_always_inline uint16_t
tx_burst_gated(void *q, struct rte_mbuf **pkts, uint16_t n, mana_tx_fast_fn fast)
{
	struct mana_txq *txq = q;
	uint16_t nb;

	if (unlikely(!mana_qgate_enter(txq->gate)))
		return 0;
	nb = tx_burst(txq, pkts, n, txq->db_page, fast);
	mana_qgate_leave(txq->gate);
	return nb;
}

uint16_t
mana_tx_burst(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return tx_burst_gated(q, pkts, n, tx_post_fast);
}

#ifdef MANA_HAVE_VEC
uint16_t
mana_tx_burst_sse(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return tx_burst_gated(q, pkts, n, mana_tx_post_fast_sse);
}

uint16_t
mana_tx_burst_avx2(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return tx_burst_gated(q, pkts, n, mana_tx_post_fast_avx2);
}
#endif

#ifdef MANA_HAVE_NEON
uint16_t
mana_tx_burst_neon(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return tx_burst_gated(q, pkts, n, mana_tx_post_fast_neon);
}
#endif

/* Control path, the queue's gate closed: retire every completion there is. */
int
mana_tx_reap(struct mana_txq *txq)
{
	return tx_complete(txq, UINT32_MAX);
}

int
mana_tx_done_cleanup(void *q, uint32_t free_cnt)
{
	struct mana_txq *txq = q;
	int ret;

	if (!mana_qgate_enter(txq->gate))
		return 0;	/* stopped (or a burst runs on it) */
	ret = tx_complete(txq, free_cnt == 0 ? UINT32_MAX : free_cnt);
	mana_qgate_leave(txq->gate);
	return ret;
}

int
mana_tx_descriptor_status(void *q, uint16_t offset)
{
	struct mana_txq *txq = q;
	uint32_t outstanding = txq->desc_head - txq->desc_tail;

	if (offset >= txq->nb_desc)
		return -EINVAL;
	/* Slot desc_head + offset is still in flight if it wraps onto an outstanding one. */
	if (offset >= txq->nb_desc - outstanding)
		return RTE_ETH_TX_DESC_FULL;
	return RTE_ETH_TX_DESC_DONE;
}

/*
 * Queue stop, the CQ gone: descriptors never completed are not known to be
 * sent, so not counted as sent; their mbufs go back.
 */
void
mana_tx_drop_inflight(struct mana_txq *txq)
{
	tx_uncount(txq, txq->desc_tail, txq->desc_head);
	while (txq->desc_tail != txq->desc_head) {
		rte_pktmbuf_free(txq->mbufs[txq->desc_tail & txq->desc_mask]);
		txq->desc_tail++;
	}
}
