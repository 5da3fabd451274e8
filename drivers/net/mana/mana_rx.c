/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * RX burst: posting buffers, the burst function and what it does per CQE
 * and per packet, queue count and descriptor status (queue control:
 * mana_rxq.c).
 *
 * Ring invariants: nb_desc is a power of two (64..256); the CQ has nb_desc
 * entries and the RQ holds at most nb_desc posted WQEs (one BU each), so the
 * CQ cannot overflow (hardware.md §4.2). sw_ring[i & mask] holds the mbuf of the
 * i-th posted WQE; sw_head - sw_tail is the number of posted WQEs, which is
 * also the RQ's head - tail in BUs, so the RQ tail needs no own counter.
 * Every completion consumes WQEs strictly in posting order: OK one, coalesced
 * one per packet, truncated/unknown one (dropped, hardware.md §13 rule 7).
 *
 * Posted mbufs are raw pool objects (rte_mempool_get_bulk, no reset): a
 * completed one gets rearm_data from a template and every RX field written;
 * a dropped or drained one goes back with rte_mempool_put.
 *
 * VLAN (NIC guide, "Receive"): the device always strips an outer 802.1Q tag
 * and reports its VLAN ID in the CQE. With RTE_ETH_RX_OFFLOAD_VLAN_STRIP the
 * mbuf gets RX_VLAN | RX_VLAN_STRIPPED and vlan_tci; without it, the tag is
 * written back in front of the EtherType (PCP and DEI 0: the CQE has no
 * room for them). CQEs that need this leave the fast path for rx_pending,
 * decided where dword 1 changes, so untagged traffic pays nothing per packet.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_io.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "mana_ethdev.h"

#define MANA_RX_REFILL_MIN	32

#define RX_CSUM_BITS(dw1)	(((dw1) >> MANA_RXCQE_IP_CSUM_OK_SHIFT) & 0x3F)

/*
 * ol_flags by CQE dword 1 bits 25..30 (IP ok/bad, TCP ok/bad, UDP ok/bad,
 * index bits 0..5), bit 14 (outer IP bad, index bit 6) and bit 12 (VLAN
 * stripped, index bit 7). "Good" wins over "bad" as in the bit tests it
 * replaces.
 */
static uint64_t rx_ol_table[256];

/* Packet type of untagged option-less unfragmented IPv4 by protocol (one load in the fast path). */
static uint32_t rx_ipv4_ptype[256];

/* The burst walks a CQE's packets with one pointer: length at ppi[0], hash at ppi[2]. */
_Static_assert(MANA_RXCQE_PKT_HASH_DW(0) == MANA_RXCQE_PKT_LEN_DW(0) + 2 &&
	       MANA_RXCQE_PKT_LEN_DW(1) == MANA_RXCQE_PKT_LEN_DW(0) + 3,
	       "RX CQE packet info layout");

static void __attribute__((constructor))
rx_tables_init(void)
{
	uint32_t i;
	uint64_t ol;

	for (i = 0; i < RTE_DIM(rx_ol_table); i++) {
		ol = 0;
		if (i & 0x01)
			ol |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;
		else if (i & 0x02)
			ol |= RTE_MBUF_F_RX_IP_CKSUM_BAD;
		if (i & (0x04 | 0x10))
			ol |= RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		else if (i & (0x08 | 0x20))
			ol |= RTE_MBUF_F_RX_L4_CKSUM_BAD;
		if (i & 0x40)
			ol |= RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD;
		if (i & 0x80)
			ol |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
		rx_ol_table[i] = ol;
		rx_ipv4_ptype[i] = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			(i == IPPROTO_TCP ? RTE_PTYPE_L4_TCP :
			 i == IPPROTO_UDP ? RTE_PTYPE_L4_UDP : 0);
	}
}

/* L4 packet type of an unfragmented IP packet by protocol number. */
static const uint32_t rx_l4_ptype[256] = {
	[IPPROTO_TCP] = RTE_PTYPE_L4_TCP,
	[IPPROTO_UDP] = RTE_PTYPE_L4_UDP,
};

/* Bytes 0..7 of an RX WQE: header (1 SGE, 8-byte OOB); bytes 8..15, the OOB, are 0. */
#define RX_WQE_HDR	((uint64_t)(GDMA_SET(GDMA_WQE_NUM_SGE, 1) | \
			 GDMA_SET(GDMA_WQE_OOB_DIV4, GDMA_WQE_OOB_DIV4_SMALL)) << 32)

/* Post one RX WQE: 8-byte header, 8 zero OOB bytes, one SGE; 1 BU. */
static inline void
rx_post_one(struct mana_rxq *rxq, struct rte_mbuf *m, uint64_t sge_hi)
{
	uint64_t *w = (uint64_t *)(rxq->rq_buf +
				   ((rxq->rq_head << GDMA_WQE_BU_SHIFT) & rxq->rq_mask));

	w[0] = RX_WQE_HDR;
	w[1] = 0;
	w[2] = (uintptr_t)m->buf_addr + rxq->data_off;
	w[3] = sge_hi;	/* mem_key | size << 32 */
	rxq->sw_ring[rxq->sw_head & rxq->desc_mask] = m;
	rxq->sw_head++;
	rxq->rq_head++;
}

/*
 * Post the n mbufs already placed in sw_ring from sw_head on (no wrap) with
 * one lkey. rq_head equals sw_head and the RQ holds a multiple of nb_desc
 * BUs, so the WQEs do not wrap either: one pointer walks the ring. The queue
 * fields are held in locals (the ring stores could alias them).
 */
static inline void
rx_post_bulk(struct mana_rxq *rxq, uint32_t n, uint64_t sge_hi)
{
	struct rte_mbuf **mbufs = &rxq->sw_ring[rxq->sw_head & rxq->desc_mask];
	const uintptr_t buf_off = rxq->buf_off;
	uint64_t *w = (uint64_t *)(rxq->rq_buf +
				   ((rxq->rq_head << GDMA_WQE_BU_SHIFT) & rxq->rq_mask));
	uint32_t i;

	for (i = 0; i < n; i++, w += GDMA_WQE_BU_SIZE / sizeof(*w)) {
		w[0] = RX_WQE_HDR;
		w[1] = 0;
		w[2] = (uintptr_t)mbufs[i] + buf_off;
		w[3] = sge_hi;
	}
	rxq->rq_head += n;
	rxq->sw_head += n;
}

/*
 * rx_post_bulk for n mbufs taken straight from the top of this lcore's pool
 * cache, which holds at least n: each goes into sw_ring and its WQE in one
 * pass (no copy into sw_ring first, as rte_mempool_get_bulk would make).
 */
static inline void
rx_post_from_cache(struct mana_rxq *rxq, struct rte_mempool_cache *cache, uint32_t n,
		   uint64_t sge_hi)
{
	struct rte_mbuf **mbufs = &rxq->sw_ring[rxq->sw_head & rxq->desc_mask];
	void **objs = &cache->objs[cache->len - n];
	const uintptr_t buf_off = rxq->buf_off;
	uint64_t *w = (uint64_t *)(rxq->rq_buf +
				   ((rxq->rq_head << GDMA_WQE_BU_SHIFT) & rxq->rq_mask));
	struct rte_mbuf *m;
	uint32_t i;

	for (i = 0; i < n; i++, w += GDMA_WQE_BU_SIZE / sizeof(*w)) {
		m = objs[i];
		mbufs[i] = m;
		w[0] = RX_WQE_HDR;
		w[1] = 0;
		w[2] = (uintptr_t)m + buf_off;
		w[3] = sge_hi;
	}
	cache->len -= n;
	RTE_MEMPOOL_CACHE_STAT_ADD(cache, get_success_bulk, 1);
	RTE_MEMPOOL_CACHE_STAT_ADD(cache, get_success_objs, n);
	rxq->rq_head += n;
	rxq->sw_head += n;
}

static inline void
rx_ring_doorbell(struct mana_rxq *rxq, uint8_t *db)
{
	rte_wmb();
	rte_write64_relaxed(gdma_db_wq(rxq->rq_id, rxq->rq_head), db + GDMA_DB_OFFSET_RQ);
}

/* Reload the pool's lkey after the MR table changed; 0 when the pool is not one region. */
static __rte_noinline void
rx_lkey_reload(struct mana_rxq *rxq)
{
	uint32_t gen, lkey = mana_mr_pool_lkey(rxq->priv, rxq->mp, &gen);

	rxq->mr_gen = gen;
	rxq->sge_hi = lkey == MANA_MR_LKEY_INVALID ? 0 :
		lkey | (uint64_t)rxq->buf_size << 32;
}

/* Per-mbuf lkeys (a pool registered in several regions) for the n mbufs at sw_head. */
static __rte_noinline uint32_t
rx_post_lookup(struct mana_rxq *rxq, uint32_t n)
{
	struct rte_mbuf **mbufs = &rxq->sw_ring[rxq->sw_head & rxq->desc_mask];
	struct rte_mbuf *m;
	uintptr_t addr;
	uint32_t i, lkey;

	for (i = 0; i < n; i++) {
		m = mbufs[i];
		addr = (uintptr_t)m->buf_addr + rxq->data_off;
		lkey = mana_mr_lookup(rxq->priv, &rxq->mr_cache, m, addr, rxq->buf_size);
		if (unlikely(lkey == MANA_MR_LKEY_INVALID)) {
			rxq->stats.mr_fail++;
			rte_mempool_put_bulk(rxq->mp, (void **)&mbufs[i], n - i);
			break;
		}
		/* rx_post_one stores m back into the slot it came from. */
		rx_post_one(rxq, m, lkey | (uint64_t)rxq->buf_size << 32);
	}
	return i;
}

/*
 * Refill the free slots up to the end of sw_ring (the rest comes next time)
 * with raw mbufs (they are rearmed when they complete); returns WQEs posted.
 * Mostly this lcore's pool cache holds them: taken from it while the WQEs
 * are written; else one bulk get straight into the ring. The RX pool is
 * registered whole: one lkey for the batch unless the pool spans several
 * regions.
 */
static uint32_t
rx_refill(struct mana_rxq *rxq, uint32_t min)
{
	uint32_t free = rxq->nb_desc - (rxq->sw_head - rxq->sw_tail);
	uint32_t idx = rxq->sw_head & rxq->desc_mask;
	struct rte_mbuf **slot = &rxq->sw_ring[idx];
	struct rte_mempool_cache *cache;
	uint64_t hi;

	if (free < min)
		return 0;
	free = RTE_MIN(free, (uint32_t)rxq->nb_desc - idx);
	if (unlikely(rxq->mr_gen != __atomic_load_n(&rxq->priv->mr.gen, __ATOMIC_ACQUIRE)))
		rx_lkey_reload(rxq);
	hi = rxq->sge_hi;
	if (likely(hi != 0)) {
		cache = rte_mempool_default_cache(rxq->mp, rte_lcore_id());
		if (likely(cache != NULL && cache->len >= free)) {
			rx_post_from_cache(rxq, cache, free, hi);
			return free;
		}
	}
	if (rte_mempool_get_bulk(rxq->mp, (void **)slot, free) != 0) {
		rxq->stats.nombuf += free;
		if (free <= MANA_RX_REFILL_MIN ||
		    rte_mempool_get_bulk(rxq->mp, (void **)slot, MANA_RX_REFILL_MIN) != 0)
			return 0;
		free = MANA_RX_REFILL_MIN;
	}
	if (unlikely(hi == 0))
		return rx_post_lookup(rxq, free);
	rx_post_bulk(rxq, free, hi);
	return free;
}

/* Packet type from the frame itself: Ethernet, VLAN/QinQ, IPv4/IPv6, TCP/UDP/fragment. */
static __rte_noinline uint32_t
rx_parse_ptype(const uint8_t *p, uint32_t len)
{
	uint32_t pt = RTE_PTYPE_L2_ETHER, off = RTE_ETHER_HDR_LEN;
	uint16_t et;
	uint8_t proto;

	if (len < RTE_ETHER_HDR_LEN)
		return RTE_PTYPE_UNKNOWN;
	et = rte_be_to_cpu_16(*(const unaligned_uint16_t *)(p + 12));
	if (et == RTE_ETHER_TYPE_VLAN || et == RTE_ETHER_TYPE_QINQ) {
		if (len < off + 4)
			return pt;
		pt = RTE_PTYPE_L2_ETHER_VLAN;
		et = rte_be_to_cpu_16(*(const unaligned_uint16_t *)(p + off + 2));
		off += 4;
		if (et == RTE_ETHER_TYPE_VLAN) {
			if (len < off + 4)
				return pt;
			pt = RTE_PTYPE_L2_ETHER_QINQ;
			et = rte_be_to_cpu_16(*(const unaligned_uint16_t *)(p + off + 2));
			off += 4;
		}
	}
	if (et == RTE_ETHER_TYPE_IPV4) {
		if (len < off + 20)
			return pt;
		pt |= (p[off] & 0xF) == 5 ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV4_EXT;
		if (rte_be_to_cpu_16(*(const unaligned_uint16_t *)(p + off + 6)) & 0x3FFF)
			return pt | RTE_PTYPE_L4_FRAG;
		proto = p[off + 9];
	} else if (et == RTE_ETHER_TYPE_IPV6) {
		if (len < off + 40)
			return pt;
		pt |= RTE_PTYPE_L3_IPV6;
		proto = p[off + 6];
		if (proto == IPPROTO_FRAGMENT)
			return pt | RTE_PTYPE_L4_FRAG;
	} else {
		return pt;
	}
	return pt | rx_l4_ptype[proto];
}

/*
 * Packet type: untagged IPv4 without options or fragmentation is decided
 * from two loads (ethertype + version/IHL, then fragment field + protocol);
 * everything else takes the full parse.
 */
static inline uint32_t
rx_ptype(const uint8_t *p, uint32_t len)
{
	/* bytes 12..14 = 08 00 45, little-endian load */
	uint32_t w = *(const unaligned_uint32_t *)(p + 12), f;

	if (likely((w & 0xFFFFFF) == 0x450008 &&
		   len >= RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))) {
		f = *(const unaligned_uint32_t *)(p + 20);	/* fragment_offset, ttl, proto */
		if (likely((f & rte_cpu_to_be_16(0x3FFF)) == 0))
			return rx_ipv4_ptype[f >> 24];
	}
	return rx_parse_ptype(p, len);
}

/* ol_flags of every packet of a CQE, from its dword 1. */
static inline uint64_t
rx_cqe_ol_flags(uint32_t dw1)
{
	uint32_t idx = RX_CSUM_BITS(dw1) |
		(GDMA_GET(dw1, MANA_RXCQE_OUTER_IP_CSUM_BAD) << 6) |
		(GDMA_GET(dw1, MANA_RXCQE_VLAN_PRESENT) << 7);
	uint64_t ol = rx_ol_table[idx];

	/* Bit test, never equality (hardware.md §1 rule 4): any L3/L4 hash type bit. */
	if (dw1 & GDMA_SET(MANA_RXCQE_HASHTYPE, MANA_HASH_L4 | MANA_HASH_L3))
		ol |= RTE_MBUF_F_RX_RSS_HASH;
	return ol;
}

/* vlan_tci of every packet of a CQE, in bits 16..31 (data_len takes bits 0..15). */
static inline uint32_t
rx_cqe_tci_hi(uint32_t dw1)
{
	if (!(dw1 & GDMA_SET(MANA_RXCQE_VLAN_PRESENT, 1)))
		return 0;
	return GDMA_GET(dw1, MANA_RXCQE_VLAN_ID) << 16;
}

/*
 * Every RX field of a received mbuf: rearm_data (data_off, refcnt 1,
 * nb_segs 1, port: the mbuf comes raw from the pool), ol_flags and the
 * CQE's VLAN tag (per CQE), length, hash and packet type (per packet).
 */
static inline void
rx_fill_mbuf(uint64_t rearm, uint64_t ol, uint32_t tci_hi, uint32_t buf_off, struct rte_mbuf *m,
	     uint32_t len, uint32_t hash)
{
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, vlan_tci) !=
			 offsetof(struct rte_mbuf, data_len) + 2);
	*(uint64_t *)RTE_PTR_ADD(m, offsetof(struct rte_mbuf, rearm_data)) = rearm;
	m->ol_flags = ol;
	m->packet_type = rx_ptype((const uint8_t *)m + buf_off, len);
	m->pkt_len = len;
	*(uint32_t *)RTE_PTR_ADD(m, offsetof(struct rte_mbuf, data_len)) = len | tci_hi;
	m->hash.rss = hash;
}

/*
 * VLAN_STRIP not configured: the tag the device stripped goes back into the
 * data, 4 bytes of headroom in front of the MAC addresses, with vlan_tci's
 * VLAN ID and PCP/DEI 0 (all the CQE carries). RX_VLAN and vlan_tci stay;
 * the data now holds the tag, so RX_VLAN_STRIPPED goes and the packet type
 * is that of the tagged frame: for an untagged inner frame the same L3/L4
 * types behind L2_ETHER_VLAN (rx_parse_ptype's result), else parsed anew.
 */
static inline void
rx_vlan_reinsert(struct rte_mbuf *m)
{
	uint8_t *old = rte_pktmbuf_mtod(m, uint8_t *), *p = old - RTE_VLAN_HLEN;
	uint32_t tag = rte_cpu_to_be_32((uint32_t)RTE_ETHER_TYPE_VLAN << 16 | m->vlan_tci);
	uint64_t mac8;
	uint32_t mac4;

	/* The 12 MAC bytes move 4 down (overlapping): both loads before the stores. */
	memcpy(&mac8, old, sizeof(mac8));
	memcpy(&mac4, old + sizeof(mac8), sizeof(mac4));
	memcpy(p, &mac8, sizeof(mac8));
	memcpy(p + sizeof(mac8), &mac4, sizeof(mac4));
	memcpy(p + 2 * RTE_ETHER_ADDR_LEN, &tag, sizeof(tag));
	m->data_off -= RTE_VLAN_HLEN;
	m->data_len += RTE_VLAN_HLEN;
	m->pkt_len += RTE_VLAN_HLEN;
	m->ol_flags &= ~RTE_MBUF_F_RX_VLAN_STRIPPED;
	if ((m->packet_type & RTE_PTYPE_L2_MASK) == RTE_PTYPE_L2_ETHER)
		m->packet_type ^= RTE_PTYPE_L2_ETHER ^ RTE_PTYPE_L2_ETHER_VLAN;
	else
		m->packet_type = rx_parse_ptype(p, m->data_len);
}

/* Retire the oldest posted WQE without delivering its packet. */
static inline void
rx_drop_one(struct mana_rxq *rxq)
{
	if (unlikely(rxq->sw_head == rxq->sw_tail))
		return;
	/* Posted mbufs are raw pool objects. */
	rte_mempool_put(rxq->mp, rxq->sw_ring[rxq->sw_tail & rxq->desc_mask]);
	rxq->sw_tail++;
	rxq->stats.errors++;
}

/*
 * The packets of a consumed CQE, from its packet `first`, into rxq->pend
 * (hardware.md §4.4, §4.5). Returns false for a CQE without packets,
 * truncated or unknown, counted here: the caller retires one WQE (its
 * buffers go back to the pool or stay posted, as its layout wants).
 */
bool
mana_rx_cqe_pend(struct mana_rxq *rxq, const struct gdma_cqe *cqe, uint32_t first)
{
	struct mana_rx_pending *p = &rxq->pend;
	uint32_t type = GDMA_GET(cqe->data[0], MANA_CQE_TYPE);
	uint32_t i, len, max = type == CQE_RX_OKAY ? 1 : MANA_RXCQE_PPI_MAX;

	p->dw1 = cqe->data[1];
	p->i = 0;
	p->n = 0;
	switch (type) {
	case CQE_RX_OKAY:
	case CQE_RX_COALESCED_4:
		for (i = first; i < max; i++) {
			len = cqe->data[MANA_RXCQE_PKT_LEN_DW(i)] & MANA_RXCQE_PKT_LEN_MASK;
			if (len == 0)
				break;
			p->len[p->n] = len;
			p->hash[p->n] = cqe->data[MANA_RXCQE_PKT_HASH_DW(i)];
			p->n++;
		}
		if (i > 0)
			return true;
		rxq->stats.unknown_cqes++;	/* no packet: the device consumed one WQE */
		return false;
	case CQE_RX_TRUNCATED:
		rxq->stats.truncated++;
		return false;
	default:
		rxq->stats.unknown_cqes++;
		return false;
	}
}

/*
 * Finish a consumed CQE the fast path stopped in, from its packet `first`:
 * the remaining packets of a good or coalesced CQE go to rxq->pend (the
 * burst is full, or a packet needs the checks of rx_pending); a CQE without
 * packets, truncated or unknown drops one WQE at once.
 */
static __rte_noinline void
rx_cqe_slow(struct mana_rxq *rxq, const struct gdma_cqe *cqe, uint32_t first)
{
	if (!mana_rx_cqe_pend(rxq, cqe, first))
		rx_drop_one(rxq);
}

/*
 * Deliver pending packets of a coalesced CQE (or of a CQE whose tag goes back
 * into the data), counted in the queue statistics here (the burst's own
 * counters stay in registers); returns the number delivered.
 */
static __rte_noinline uint16_t
rx_pending(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t bytes = 0;
	struct mana_rx_pending *p = &rxq->pend;
	bool reinsert = (p->dw1 & __atomic_load_n(&rxq->vlan_reinsert, __ATOMIC_RELAXED)) != 0;
	const uint64_t ol = rx_cqe_ol_flags(p->dw1);
	const uint32_t tci_hi = rx_cqe_tci_hi(p->dw1);
	struct rte_mbuf *m;
	uint16_t nb = 0;
	uint32_t len;

	while (nb < n && p->i < p->n) {
		len = p->len[p->i];
		if (unlikely(rxq->sw_head == rxq->sw_tail || len > rxq->buf_size)) {
			/* More packets than posted WQEs or larger than the buffer: device error. */
			rxq->stats.unknown_cqes++;
			rx_drop_one(rxq);
			p->i++;
			continue;
		}
		m = rxq->sw_ring[rxq->sw_tail & rxq->desc_mask];
		rxq->sw_tail++;
		rx_fill_mbuf(rxq->mbuf_rearm, ol, tci_hi, rxq->buf_off, m, len, p->hash[p->i]);
		if (reinsert)
			rx_vlan_reinsert(m);
		p->i++;
		bytes += m->pkt_len;
		pkts[nb++] = m;
	}
	rxq->stats.packets += nb;
	rxq->stats.bytes += bytes;
	return nb;
}

/*
 * Good and coalesced CQEs are delivered here packet by packet; a packet that
 * needs checking (length 0 or above the buffer, no posted WQE left) or does
 * not fit the burst hands the rest of its CQE to rx_cqe_slow/rx_pending.
 */
static __rte_always_inline uint16_t
rx_burst(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db)
{
	const uint32_t shift = rte_bsf32(rxq->cq_count), mask = rxq->desc_mask;
	const uint32_t buf_size = rxq->buf_size;
	const uint64_t rearm = rxq->mbuf_rearm;
	const uint32_t buf_off = rxq->buf_off;
	const struct gdma_cqe *ring = rxq->cq_ring;
	struct rte_mbuf **sw_ring = rxq->sw_ring, **out, **end = pkts + n;
	uint32_t head = rxq->cq_head, tail, len, type, dw1, i, max;
	uint32_t avail, room, nb, k, pend = 0;
	uint64_t coalesced = 0, bytes = 0;
	/* Flags and tag of the last CQE's dword 1: consecutive CQEs mostly share it. */
	uint32_t last_dw1 = 0, tci_hi = rx_cqe_tci_hi(0);
	uint64_t ol = rx_cqe_ol_flags(0);
	enum gdma_cqe_owner_state state;
	const struct gdma_cqe *cqe;
	const uint32_t *ppi;
	struct rte_mbuf *m;

	if (unlikely(rxq->pend.i != rxq->pend.n))
		pend = rx_pending(rxq, pkts, n);
	out = pkts + pend;
	tail = rxq->sw_tail;
	/* Packets the CQEs may deliver: burst room and posted WQEs. */
	avail = RTE_MIN((uint32_t)(end - out), rxq->sw_head - tail);
	while (out != end) {
		cqe = &ring[head & mask];
		state = gdma_cqe_owner_state(__atomic_load_n(&cqe->info, __ATOMIC_RELAXED),
					     head >> shift);
		if (state != GDMA_CQE_NEW) {
			if (state == GDMA_CQE_OVERFLOW)
				rxq->stats.cq_overflow++;
			break;
		}
		rte_io_rmb();	/* the CQE body after its owner bits */
		head++;
		type = GDMA_GET(cqe->data[0], MANA_CQE_TYPE);
		dw1 = cqe->data[1];
		i = 0;
		if (likely(type == CQE_RX_COALESCED_4 || type == CQE_RX_OKAY)) {
			max = type == CQE_RX_OKAY ? 1 : MANA_RXCQE_PPI_MAX;
			coalesced += type == CQE_RX_COALESCED_4;
			room = RTE_MIN(avail, max);
			if (unlikely(dw1 != last_dw1)) {
				/* A tag to put back: the whole CQE goes to rx_pending. */
				if (unlikely(dw1 & __atomic_load_n(&rxq->vlan_reinsert,
								   __ATOMIC_RELAXED))) {
					room = 0;
				} else {
					last_dw1 = dw1;
					ol = rx_cqe_ol_flags(dw1);
					tci_hi = rx_cqe_tci_hi(dw1);
				}
			}
			/* ppi[0]: length, ppi[2]: hash of packet i (dwords 2+3i, 4+3i) */
			ppi = &cqe->data[MANA_RXCQE_PKT_LEN_DW(0)];
			for (; i < room; i++, ppi += 3) {
				len = ppi[0] & MANA_RXCQE_PKT_LEN_MASK;
				if (unlikely(len - 1 >= buf_size))
					break;
				m = sw_ring[tail & mask];
				tail++;
				rx_fill_mbuf(rearm, ol, tci_hi, buf_off, m, len, ppi[2]);
				bytes += len;
				*out++ = m;
			}
			avail -= i;
			/* Done unless a packet is left that needs checks or room (zero ends it). */
			if (likely(i == max || (i > 0 && (ppi[0] & MANA_RXCQE_PKT_LEN_MASK) == 0)))
				continue;
		}
		rxq->cq_head = head;
		rxq->sw_tail = tail;
		rx_cqe_slow(rxq, cqe, i);
		k = rx_pending(rxq, out, end - out);
		out += k;
		pend += k;
		tail = rxq->sw_tail;
		avail = RTE_MIN((uint32_t)(end - out), rxq->sw_head - tail);
	}
	nb = out - pkts;
	rxq->cq_head = head;
	rxq->sw_tail = tail;
	rxq->stats.coalesced_cqes += coalesced;
	if (rx_refill(rxq, MANA_RX_REFILL_MIN) > 0)
		rx_ring_doorbell(rxq, db);
	rxq->stats.packets += nb - pend;
	rxq->stats.bytes += bytes;
	return nb;
}

uint16_t
mana_rx_burst_db(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db)
{
	return rx_burst(rxq, pkts, n, db);
}

/* The primary's entry point: the queue's gate held around the burst (mana_qgate.h). */
uint16_t
mana_rx_burst(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_rxq *rxq = q;
	uint16_t nb;

	if (unlikely(!mana_qgate_enter(rxq->gate)))
		return 0;
	nb = rx_burst(rxq, pkts, n, rxq->db_page);
	mana_qgate_leave(rxq->gate);
	return nb;
}

/*
 * Queue start: the pool's lkey, a buffer in every descriptor and one
 * doorbell; false (no doorbell) when the pool cannot fill the ring.
 */
bool
mana_rx_post_all(struct mana_rxq *rxq)
{
	uint32_t posted;

	rx_lkey_reload(rxq);
	posted = rxq->scatter_burst ? mana_rxs_refill(rxq, 1) : rx_refill(rxq, 1);
	if (posted != rxq->nb_desc)
		return false;
	rx_ring_doorbell(rxq, rxq->db_page);
	return true;
}

/* ---- for the scattered path (mana_rx_scatter.c) ----------------------- */

uint64_t
mana_rx_cqe_ol_flags(uint32_t dw1)
{
	return rx_cqe_ol_flags(dw1);
}

uint32_t
mana_rx_ptype(const uint8_t *p, uint32_t len)
{
	return rx_ptype(p, len);
}

void
mana_rx_vlan_reinsert(struct rte_mbuf *m)
{
	rx_vlan_reinsert(m);
}

void
mana_rx_lkey_reload(struct mana_rxq *rxq)
{
	rx_lkey_reload(rxq);
}

/* ---- status ---------------------------------------------------------- */

/* Packets ready for rx_burst: the pending coalesced ones plus those of ready CQEs. */
uint32_t
mana_rxq_ready(const struct mana_rxq *rxq)
{
	uint32_t c = rxq->cq_head, n = rxq->pend.n - rxq->pend.i, k, i, type, shift;
	const struct gdma_cqe *cqe;

	if (rxq->cq_ring == NULL)
		return 0;
	/* c / count with count a power of two (count = desc_mask + 1) */
	shift = rte_bsf32(rxq->cq_count);
	for (k = 0; k < rxq->cq_count; k++, c++) {
		cqe = &rxq->cq_ring[c & rxq->desc_mask];
		if (gdma_cqe_owner_state(__atomic_load_n(&cqe->info, __ATOMIC_ACQUIRE),
					 c >> shift) != GDMA_CQE_NEW)
			break;
		type = GDMA_GET(cqe->data[0], MANA_CQE_TYPE);
		if (type == CQE_RX_OKAY)
			n++;
		else if (type == CQE_RX_COALESCED_4)
			for (i = 0; i < MANA_RXCQE_PPI_MAX &&
			     (cqe->data[MANA_RXCQE_PKT_LEN_DW(i)] & MANA_RXCQE_PKT_LEN_MASK); i++)
				n++;
	}
	return RTE_MIN(n, rxq->sw_head - rxq->sw_tail);
}

/* Status of descriptor offset: the caller holds the queue's gate. */
int
mana_rxq_desc_status(const struct mana_rxq *rxq, uint16_t offset)
{
	if (offset >= rxq->nb_desc)
		return -EINVAL;
	if (offset < mana_rxq_ready(rxq))
		return RTE_ETH_RX_DESC_DONE;
	if (offset < rxq->sw_head - rxq->sw_tail)
		return RTE_ETH_RX_DESC_AVAIL;
	return RTE_ETH_RX_DESC_UNAVAIL;
}

/*
 * Both read the CQ ring: inside the queue's gate, like a burst, so that a
 * queue stop or an RSS update on another lcore cannot free the ring under
 * them. A stopped queue (or one whose burst runs on another lcore) has
 * nothing ready and nothing posted.
 */
mana_rx_queue_count_t
mana_rx_queue_count(void *q)
{
	struct mana_rxq *rxq = q;
	uint32_t n;

	if (!mana_qgate_enter(rxq->gate))
		return 0;
	n = mana_rxq_ready(rxq);
	mana_qgate_leave(rxq->gate);
	return n;
}

int
mana_rx_descriptor_status(void *q, uint16_t offset)
{
	struct mana_rxq *rxq = q;
	int ret;

	if (offset >= rxq->nb_desc)
		return -EINVAL;
	if (!mana_qgate_enter(rxq->gate))
		return RTE_ETH_RX_DESC_UNAVAIL;
	ret = mana_rxq_desc_status(rxq, offset);
	mana_qgate_leave(rxq->gate);
	return ret;
}

/*
 * The packet types the RX path fills. The trailing RTE_PTYPE_UNKNOWN ends the
 * list for DPDK 22.11 and is not counted (mana_compat.h).
 */
const uint32_t *
mana_ptype_list(size_t *count)
{
	static const uint32_t ptypes[] = {
		RTE_PTYPE_L2_ETHER,
		RTE_PTYPE_L2_ETHER_VLAN,
		RTE_PTYPE_L2_ETHER_QINQ,
		RTE_PTYPE_L3_IPV4,
		RTE_PTYPE_L3_IPV4_EXT,
		RTE_PTYPE_L3_IPV6,
		RTE_PTYPE_L4_TCP,
		RTE_PTYPE_L4_UDP,
		RTE_PTYPE_L4_FRAG,
		RTE_PTYPE_UNKNOWN
	};

	*count = RTE_DIM(ptypes) - 1;
	return ptypes;
}
