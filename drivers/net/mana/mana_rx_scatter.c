/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Scattered RX (hardware.md §3.6): every RX WQE of the queue carries k SGEs,
 * one mbuf each. SGE 0 is the first mbuf's data room after its headroom,
 * SGEs 1..k-1 whole data rooms (data_off 0). The device fills them in order;
 * a frame of length L uses the first u = segments(L) of them, which are
 * chained into one packet.
 *
 * Slots: sw_ring[(w & desc_mask) * k + j] is mbuf j of the w-th posted WQE.
 * A delivered mbuf leaves a NULL behind; the unused mbufs of a WQE stay in
 * their slots and go out again with the WQE's next posting, so a frame
 * costs only the mbufs it used. A truncated or unknown completion retires
 * the WQE with all its mbufs kept. WQEs [sw_tail, sw_head) are posted; the
 * others are free and hold what is left of them (rxs_refill fills their
 * NULLs and posts them). Stop returns every mbuf of every slot, posted or
 * not, once (mana_rxs_release_all).
 *
 * The same CQE rules as the one-mbuf path (mana_rx.c): one WQE per packet,
 * up to 4 packets per coalesced CQE kept in rxq->pend across bursts.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_io.h>
#include <rte_mbuf.h>

#include "mana_ethdev.h"

/* Fresh mbufs taken from the pool in one bulk get at most. */
#define MANA_RXS_BATCH		128

_Static_assert(MANA_RXS_BATCH >= GDMA_MAX_RX_SGE, "a batch fills at least one WQE");

static inline struct rte_mbuf **
rxs_slot(const struct mana_rxq *rxq, uint32_t wqe)
{
	return &rxq->sw_ring[(wqe & rxq->desc_mask) * rxq->sge_k];
}

/* Mbufs missing in the slots of WQE wqe. */
static inline uint32_t
rxs_holes(const struct mana_rxq *rxq, uint32_t wqe)
{
	struct rte_mbuf **s = rxs_slot(rxq, wqe);
	uint32_t j, n = 0;

	for (j = 0; j < rxq->sge_k; j++)
		n += s[j] == NULL;
	return n;
}

/*
 * Write the WQE of slot sw_head at rq_head: 8-byte header, 8 zero OOB bytes,
 * k SGEs. The WQE is not always a power of two of BUs (k = 4, 5: 3 BUs), so
 * its SGL may wrap to the ring's start at any 16-byte boundary (hardware.md
 * §2.4); the header and OOB never do. False when an lkey is not found.
 */
static bool
rxs_post(struct mana_rxq *rxq)
{
	struct rte_mbuf **s = rxs_slot(rxq, rxq->sw_head);
	uint32_t off = rxq->rq_head << GDMA_WQE_BU_SHIFT, j, size, lkey;
	uint64_t *w = (uint64_t *)(rxq->rq_buf + (off & rxq->rq_mask));
	uint32_t lk[GDMA_MAX_RX_SGE];
	uintptr_t addr;

	for (j = 0; j < rxq->sge_k; j++) {
		lkey = (uint32_t)rxq->sge_hi;
		if (unlikely(rxq->sge_hi == 0)) {
			addr = (uintptr_t)s[j]->buf_addr + (j == 0 ? rxq->data_off : 0);
			size = j == 0 ? rxq->buf_size : rxq->seg_size;
			lkey = mana_mr_lookup(rxq->priv, &rxq->mr_cache, s[j], addr, size);
			if (lkey == MANA_MR_LKEY_INVALID) {
				rxq->stats.mr_fail++;
				return false;
			}
		}
		lk[j] = lkey;
	}
	w[0] = (uint64_t)(GDMA_SET(GDMA_WQE_NUM_SGE, rxq->sge_k) |
			  GDMA_SET(GDMA_WQE_OOB_DIV4, GDMA_WQE_OOB_DIV4_SMALL)) << 32;
	w[1] = 0;
	off += GDMA_WQE_HDR_SIZE + GDMA_OOB_SIZE_SMALL;
	for (j = 0; j < rxq->sge_k; j++, off += GDMA_SGE_SIZE) {
		w = (uint64_t *)(rxq->rq_buf + (off & rxq->rq_mask));
		if (j == 0) {
			w[0] = (uintptr_t)s[0]->buf_addr + rxq->data_off;
			w[1] = lk[0] | (uint64_t)rxq->buf_size << 32;
		} else {
			w[0] = (uintptr_t)s[j]->buf_addr;
			w[1] = lk[j] | (uint64_t)rxq->seg_size << 32;
		}
	}
	rxq->rq_head += rxq->wqe_bu;
	rxq->sw_head++;
	return true;
}

/* Put n fresh mbufs from m into the NULL slots of the WQEs from sw_head on. */
static void
rxs_fill(struct mana_rxq *rxq, struct rte_mbuf **m, uint32_t n)
{
	uint32_t w = rxq->sw_head, j;
	struct rte_mbuf **s;

	while (n > 0) {
		s = rxs_slot(rxq, w++);
		for (j = 0; j < rxq->sge_k && n > 0; j++) {
			if (s[j] == NULL) {
				s[j] = *m++;
				n--;
			}
		}
	}
}

/*
 * Post every free WQE once at least min are free, topping its slots up
 * with fresh mbufs taken in bulk (one WQE's worth at a time once a batch
 * failed). When the pool runs dry the WQEs that need nothing are still
 * posted; the others wait, holding their mbufs, for the next burst, and
 * their missing mbufs count in nombuf. Returns the WQEs posted.
 */
uint32_t
mana_rxs_refill(struct mana_rxq *rxq, uint32_t min)
{
	uint32_t free = rxq->nb_desc - (rxq->sw_head - rxq->sw_tail);
	uint32_t posted = 0, nwqe, total, need, i, limit = MANA_RXS_BATCH;
	struct rte_mbuf *fresh[MANA_RXS_BATCH];

	if (free < min)
		return 0;
	if (unlikely(rxq->mr_gen != __atomic_load_n(&rxq->priv->mr.gen, __ATOMIC_ACQUIRE)))
		mana_rx_lkey_reload(rxq);
	while (posted < free) {
		total = 0;
		for (nwqe = 0; posted + nwqe < free; nwqe++) {
			need = rxs_holes(rxq, rxq->sw_head + nwqe);
			if (total + need > limit)
				break;
			total += need;
		}
		if (total > 0 && rte_mempool_get_bulk(rxq->mp, (void **)fresh, total) != 0) {
			if (limit > rxq->sge_k) {
				limit = rxq->sge_k;
				continue;
			}
			/* Dry: post the WQEs that need nothing, count what the rest miss. */
			for (nwqe = 0; posted + nwqe < free &&
			     rxs_holes(rxq, rxq->sw_head + nwqe) == 0; nwqe++)
				;
			for (i = nwqe; posted + i < free; i++)
				rxq->stats.nombuf += rxs_holes(rxq, rxq->sw_head + i);
			free = posted + nwqe;
			total = 0;
		}
		rxs_fill(rxq, fresh, total);
		for (i = 0; i < nwqe; i++) {
			if (!rxs_post(rxq))
				return posted;
			posted++;
		}
	}
	return posted;
}

/* Retire the oldest posted WQE without a packet: its mbufs stay for the next post. */
static inline void
rxs_drop_wqe(struct mana_rxq *rxq)
{
	if (unlikely(rxq->sw_head == rxq->sw_tail))
		return;
	rxq->sw_tail++;
	rxq->stats.errors++;
}

/* The packets of a consumed CQE into rxq->pend; a CQE without any retires one WQE. */
static void
rxs_cqe(struct mana_rxq *rxq, const struct gdma_cqe *cqe)
{
	rxq->stats.coalesced_cqes +=
		GDMA_GET(cqe->data[0], MANA_CQE_TYPE) == CQE_RX_COALESCED_4;
	/* A truncated frame was larger than the WQE's k buffers: all of them go out again. */
	if (!mana_rx_cqe_pend(rxq, cqe, 0))
		rxs_drop_wqe(rxq);
}

/*
 * The packet of length len in the oldest posted WQE: its first mbufs
 * chained (the head after its headroom, the others from byte 0), their
 * slots emptied.
 */
static inline struct rte_mbuf *
rxs_chain(struct mana_rxq *rxq, uint32_t len, uint32_t hash, uint64_t ol, uint32_t tci)
{
	struct rte_mbuf **s = rxs_slot(rxq, rxq->sw_tail);
	struct rte_mbuf *head = s[0], *m, *prev;
	uint32_t seg = RTE_MIN(len, rxq->buf_size), left = len - seg, j = 1;

	*(uint64_t *)RTE_PTR_ADD(head, offsetof(struct rte_mbuf, rearm_data)) =
		rxq->mbuf_rearm;
	head->ol_flags = ol;
	head->packet_type = mana_rx_ptype((const uint8_t *)head->buf_addr + rxq->data_off, seg);
	head->pkt_len = len;
	head->data_len = (uint16_t)seg;
	head->vlan_tci = (uint16_t)tci;
	head->hash.rss = hash;
	s[0] = NULL;
	prev = head;
	while (left > 0) {
		m = s[j];
		s[j++] = NULL;
		seg = RTE_MIN(left, rxq->seg_size);
		*(uint64_t *)RTE_PTR_ADD(m, offsetof(struct rte_mbuf, rearm_data)) =
			rxq->seg_rearm;
		m->ol_flags = 0;
		m->data_len = (uint16_t)seg;
		m->pkt_len = seg;
		prev->next = m;
		prev = m;
		left -= seg;
	}
	prev->next = NULL;
	head->nb_segs = (uint16_t)j;
	rxq->sw_tail++;
	return head;
}

/* Deliver pending packets of the last CQE; returns the number delivered. */
static uint16_t
rxs_pending(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_rx_pending *p = &rxq->pend;
	bool reinsert = (p->dw1 & __atomic_load_n(&rxq->vlan_reinsert, __ATOMIC_RELAXED)) != 0;
	uint32_t tci = 0, len;
	struct rte_mbuf *m;
	uint64_t ol, bytes = 0;
	uint16_t nb = 0;

	if (p->i == p->n)
		return 0;
	ol = mana_rx_cqe_ol_flags(p->dw1);
	if (p->dw1 & GDMA_SET(MANA_RXCQE_VLAN_PRESENT, 1))
		tci = GDMA_GET(p->dw1, MANA_RXCQE_VLAN_ID);
	while (nb < n && p->i < p->n) {
		len = p->len[p->i++];
		if (unlikely(rxq->sw_head == rxq->sw_tail || len > rxq->frame_cap)) {
			/* More packets than posted WQEs or larger than one: device error. */
			rxq->stats.unknown_cqes++;
			rxs_drop_wqe(rxq);
			continue;
		}
		m = rxs_chain(rxq, len, p->hash[p->i - 1], ol, tci);
		if (reinsert)
			mana_rx_vlan_reinsert(m);
		bytes += m->pkt_len;
		pkts[nb++] = m;
	}
	rxq->stats.packets += nb;
	rxq->stats.bytes += bytes;
	return nb;
}

/* Burst of a queue whose WQEs hold k > 1 mbufs (any k works). */
uint16_t
mana_rx_burst_scatter_db(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db)
{
	const uint32_t shift = rte_bsf32(rxq->cq_count);
	enum gdma_cqe_owner_state state;
	const struct gdma_cqe *cqe;
	uint16_t nb;

	nb = rxs_pending(rxq, pkts, n);
	while (nb < n) {
		cqe = &rxq->cq_ring[rxq->cq_head & rxq->desc_mask];
		state = gdma_cqe_owner_state(__atomic_load_n(&cqe->info, __ATOMIC_RELAXED),
					     rxq->cq_head >> shift);
		if (state != GDMA_CQE_NEW) {
			if (state == GDMA_CQE_OVERFLOW)
				rxq->stats.cq_overflow++;
			break;
		}
		rte_io_rmb();	/* the CQE body after its owner bits (hardware.md §18 #8) */
		rxq->cq_head++;
		rxs_cqe(rxq, cqe);
		nb += rxs_pending(rxq, pkts + nb, n - nb);
	}
	if (mana_rxs_refill(rxq, RTE_MIN(32u, rxq->nb_desc / 4u)) > 0) {
		mana_db_ring(db, GDMA_DB_OFFSET_RQ, gdma_db_wq(rxq->rq_id, rxq->rq_head));
	}
	return nb;
}

/* The primary's entry point: the queue's gate held around the burst (mana_qgate.h). */
uint16_t
mana_rx_burst_scatter(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_rxq *rxq = q;
	uint16_t nb;

	if (unlikely(!mana_qgate_enter(rxq->gate)))
		return 0;
	nb = mana_rx_burst_scatter_db(rxq, pkts, n, rxq->db_page);
	mana_qgate_leave(rxq->gate);
	return nb;
}

/* Every mbuf the queue holds, posted or waiting, back to the pool once. */
void
mana_rxs_release_all(struct mana_rxq *rxq)
{
	uint32_t i, n = (uint32_t)rxq->nb_desc * rxq->sge_k;

	for (i = 0; i < n; i++) {
		if (rxq->sw_ring[i] != NULL) {
			rte_mempool_put(rxq->mp, rxq->sw_ring[i]);
			rxq->sw_ring[i] = NULL;
		}
	}
	rxq->sw_tail = rxq->sw_head;
}
