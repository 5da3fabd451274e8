/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The RX burst's frame, shared by the scalar build (mana_rx.c) and the
 * SSE4.2, AVX2 and NEON builds (mana_rx_sse.c, mana_rx_avx2.c,
 * mana_rx_vec.h; mana_rx_neon.c, which defines MANA_RX_NEON_BUILD):
 * posting and refill, the per-CQE and per-packet work, and rx_burst_frame,
 * which walks the CQ one CQE at a time and, in a vector build, first hands
 * the queue to the build's step for as many groups of four packets as it
 * takes. What a delivered mbuf gets is decided by the same tables and
 * templates on every path (mana_rx.c builds the tables).
 */

#ifndef MANA_RX_FAST_H
#define MANA_RX_FAST_H

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_io.h>
#include <rte_mbuf.h>

#ifdef __AVX2__
#include <immintrin.h>
#elif defined(MANA_RX_NEON_BUILD)
#include <rte_vect.h>
#endif

#include "mana_ethdev.h"

#define MANA_RX_REFILL_MIN	32

#define RX_CSUM_BITS(dw1)	(((dw1) >> MANA_RXCQE_IP_CSUM_OK_SHIFT) & 0x3F)

/*
 * The burst's tables are the driver's alone: hidden, they are addressed
 * relative to the instruction pointer, with no GOT load for their base.
 */
#define MANA_RX_TABLE	__attribute__((visibility("hidden")))

/* mana_rx.c: ol_flags by CQE dword 1 bits (rx_cqe_ol_flags), ptype of plain IPv4 by protocol */
extern uint64_t mana_rx_ol_table[256] MANA_RX_TABLE;
extern uint32_t mana_rx_ipv4_ptype[256] MANA_RX_TABLE;

/* The burst walks a CQE's packets with one pointer: length at ppi[0], hash at ppi[2]. */
_Static_assert(MANA_RXCQE_PKT_HASH_DW(0) == MANA_RXCQE_PKT_LEN_DW(0) + 2 &&
	       MANA_RXCQE_PKT_LEN_DW(1) == MANA_RXCQE_PKT_LEN_DW(0) + 3,
	       "RX CQE packet info layout");

#ifdef MANA_HAVE_VEC
/*
 * The vector steps' constants (mana_rx_vec.h), read from memory (mana_rx.c
 * defines them): as
 * memory operands they cost no instruction, where the compiler would
 * otherwise build each one from a general register inside the loop.
 */
struct mana_rxv_consts {
	alignas(16) int32_t type_mask[4];	/* MANA_CQE_TYPE */
	alignas(16) int32_t okay[4];		/* CQE_RX_OKAY */
	alignas(16) int32_t len_mask[4];	/* MANA_RXCQE_PKT_LEN_MASK */
	alignas(16) int32_t eth_ip_mask[4];	/* bytes 12..14 of the frame */
	alignas(16) int32_t eth_ip[4];		/* 08 00 45: IPv4, no options */
	alignas(16) int32_t frag_mask[4];	/* MF and fragment offset, big-endian */
	alignas(16) int32_t min_len[4];		/* Ethernet + IPv4 header - 1 */
	alignas(16) int32_t tcp[4];
	alignas(16) int32_t udp[4];
	alignas(16) int32_t pt_ip4[4];		/* L2_ETHER | L3_IPV4 */
	alignas(16) int32_t pt_tcp[4];
	alignas(16) int32_t pt_udp[4];
	/* dword indices of the gathers (AVX2): four CQEs' info, dw0, dw1, length, hash */
	alignas(16) int32_t ix_info[4];
	alignas(16) int32_t ix_dw0[4];
	alignas(16) int32_t ix_dw1[4];
	alignas(16) int32_t ix_len[4];
	alignas(16) int32_t ix_hash[4];
	/* one coalesced CQE's four lengths and hashes */
	alignas(16) int32_t ix_clen[4];
	alignas(16) int32_t ix_chash[4];
};

extern const struct mana_rxv_consts mana_rxv_k MANA_RX_TABLE;

#endif

/* mana_rx.c, out of line */
uint32_t mana_rx_post_lookup(struct mana_rxq *rxq, uint32_t n);
uint32_t mana_rx_parse_ptype(const uint8_t *p, uint32_t len);
uint16_t mana_rx_pending(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n);
void mana_rx_cqe_slow(struct mana_rxq *rxq, const struct gdma_cqe *cqe, uint32_t first);

/* Bytes 0..7 of an RX WQE: header (1 SGE, 8-byte OOB); bytes 8..15, the OOB, are 0. */
#define RX_WQE_HDR	((uint64_t)(GDMA_SET(GDMA_WQE_NUM_SGE, 1) | \
			 GDMA_SET(GDMA_WQE_OOB_DIV4, GDMA_WQE_OOB_DIV4_SMALL)) << 32)

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
	uint32_t i = 0;

#ifdef __AVX2__
	/*
	 * AVX2 build: four mbufs per step, each WQE one 32-byte store of the
	 * template with the mbuf's data address blended into bytes 16..23.
	 */
	const __m256i tmpl = _mm256_set_epi64x((int64_t)sge_hi, 0, 0, (int64_t)RX_WQE_HDR);
	const __m256i off = _mm256_set1_epi64x((int64_t)buf_off);
	void **o = objs, **const o_end = objs + (n & ~3u);
	struct rte_mbuf **mb = mbufs;
	__m256i p;

	/* walked by pointers: a 32-bit index costs an extension per access */
	for (; o != o_end; o += 4, mb += 4, w += 4 * GDMA_WQE_BU_SIZE / sizeof(*w)) {
		p = _mm256_loadu_si256((const __m256i *)o);
		_mm256_storeu_si256((__m256i *)mb, p);
		/* data addresses; lane j into lane 2, then qword 2 (dwords 4, 5) into the template */
		p = _mm256_add_epi64(p, off);
		_mm256_storeu_si256((__m256i *)w, _mm256_blend_epi32(tmpl,
				    _mm256_permute4x64_epi64(p, 0x00), 0x30));
		_mm256_storeu_si256((__m256i *)(w + 4), _mm256_blend_epi32(tmpl,
				    _mm256_permute4x64_epi64(p, 0x10), 0x30));
		_mm256_storeu_si256((__m256i *)(w + 8), _mm256_blend_epi32(tmpl,
				    _mm256_permute4x64_epi64(p, 0x20), 0x30));
		_mm256_storeu_si256((__m256i *)(w + 12), _mm256_blend_epi32(tmpl,
				    _mm256_permute4x64_epi64(p, 0x30), 0x30));
	}
	i = n & ~3u;
#elif defined(MANA_RX_NEON_BUILD)
	/*
	 * NEON build (mana_rx_neon.c): four mbufs per step, as AVX2; each
	 * WQE is the template's first half and the SGE (data address, lkey
	 * and length) as two 16-byte stores, where the scalar loop on
	 * AArch64 spends nine instructions per WQE (callgrind: 11.5 a packet
	 * for the whole refill).
	 */
	const uint64x2_t hdr = vcombine_u64(vcreate_u64(RX_WQE_HDR), vcreate_u64(0));
	const uint64x2_t off = vdupq_n_u64(buf_off), hi = vdupq_n_u64(sge_hi);
	void **o = objs, **const o_end = objs + (n & ~3u);
	struct rte_mbuf **mb = mbufs;
	uint64x2_t p01, p23;

	/* walked by pointers: a 32-bit index costs an extension per access */
	for (; o != o_end; o += 4, mb += 4, w += 4 * GDMA_WQE_BU_SIZE / sizeof(*w)) {
		p01 = vld1q_u64((const uint64_t *)o);
		p23 = vld1q_u64((const uint64_t *)(o + 2));
		vst1q_u64((uint64_t *)mb, p01);
		vst1q_u64((uint64_t *)(mb + 2), p23);
		/* data addresses, each beside the SGE's high half */
		p01 = vaddq_u64(p01, off);
		p23 = vaddq_u64(p23, off);
		vst1q_u64(w, hdr);
		vst1q_u64(w + 2, vzip1q_u64(p01, hi));
		vst1q_u64(w + 4, hdr);
		vst1q_u64(w + 6, vzip2q_u64(p01, hi));
		vst1q_u64(w + 8, hdr);
		vst1q_u64(w + 10, vzip1q_u64(p23, hi));
		vst1q_u64(w + 12, hdr);
		vst1q_u64(w + 14, vzip2q_u64(p23, hi));
	}
	i = n & ~3u;
#endif
	for (; i < n; i++, w += GDMA_WQE_BU_SIZE / sizeof(*w)) {
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
	mana_db_ring(db, GDMA_DB_OFFSET_RQ, gdma_db_wq(rxq->rq_id, rxq->rq_head));
}

/*
 * Refill the free slots up to the end of sw_ring (the rest comes next time)
 * with raw mbufs (they are rearmed when they complete); returns WQEs posted.
 * Mostly this lcore's pool cache holds them: taken from it while the WQEs
 * are written; else one bulk get straight into the ring. The RX pool is
 * registered whole: one lkey for the batch unless the pool spans several
 * regions.
 */
static __rte_noinline uint32_t
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
		mana_rx_lkey_reload(rxq);
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
		return mana_rx_post_lookup(rxq, free);
	rx_post_bulk(rxq, free, hi);
	return free;
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
			return mana_rx_ipv4_ptype[f >> 24];
	}
	return mana_rx_parse_ptype(p, len);
}

/* ol_flags of every packet of a CQE, from its dword 1. */
static inline uint64_t
rx_cqe_ol_flags(uint32_t dw1)
{
	uint32_t idx = RX_CSUM_BITS(dw1) |
		(GDMA_GET(dw1, MANA_RXCQE_OUTER_IP_CSUM_BAD) << 6) |
		(GDMA_GET(dw1, MANA_RXCQE_VLAN_PRESENT) << 7);
	uint64_t ol = mana_rx_ol_table[idx];

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

/* What a burst reads of the queue, once. */
struct rx_burst_ctx {
	const struct gdma_cqe *ring;
	struct rte_mbuf **sw_ring;
	const struct mana_rxq *rxq;
	uint64_t rearm;
	uint32_t mask;			/* desc_mask: CQ entries = RQ WQEs = nb_desc */
	uint32_t shift;			/* log2 of the CQ entries: lap = head >> shift */
	uint32_t buf_size;
	uint32_t buf_off;
};

/* What a burst carries from CQE to CQE (locals once inlined). */
struct rx_burst_state {
	struct rte_mbuf **out;
	uint32_t head;			/* CQ consumer */
	uint32_t tail;			/* sw_tail */
	uint32_t avail;			/* packets the CQEs may still deliver (room, posted WQEs) */
	/* Flags and tag of the last CQE's dword 1: consecutive CQEs mostly share it. */
	uint32_t last_dw1;
	uint32_t tci_hi;
	uint64_t ol;
	uint64_t bytes;
	uint64_t coalesced;
};

/*
 * A vector build's step (a constant at each call, inlined): delivers groups
 * of four packets while they need no check of the scalar loop, and returns
 * when the next CQE is not one of those; NULL in the scalar build.
 */
typedef void (*rx_vec_step_fn)(const struct rx_burst_ctx *c, struct rx_burst_state *s,
			       struct rte_mbuf **end);

/*
 * A new dword 1 (the previous CQE's differs): its flags and tag; false when
 * the tag goes back into the data, which rx_pending does.
 */
static __rte_always_inline bool
rx_burst_dw1(const struct rx_burst_ctx *c, struct rx_burst_state *s, uint32_t dw1)
{
	if (unlikely(dw1 & __atomic_load_n(&c->rxq->vlan_reinsert, __ATOMIC_RELAXED)))
		return false;
	s->last_dw1 = dw1;
	s->ol = rx_cqe_ol_flags(dw1);
	s->tci_hi = rx_cqe_tci_hi(dw1);
	return true;
}

/*
 * Good and coalesced CQEs are delivered here packet by packet (after the
 * vector step, if any); a packet that needs checking (length 0 or above the
 * buffer, no posted WQE left) or does not fit the burst hands the rest of
 * its CQE to mana_rx_cqe_slow/mana_rx_pending.
 */
static __rte_always_inline uint16_t
rx_burst_frame(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db,
	       rx_vec_step_fn vec)
{
	const struct rx_burst_ctx c = {
		.ring = rxq->cq_ring,
		.sw_ring = rxq->sw_ring,
		.rxq = rxq,
		.rearm = rxq->mbuf_rearm,
		.mask = rxq->desc_mask,
		.shift = rte_bsf32(rxq->cq_count),
		.buf_size = rxq->buf_size,
		.buf_off = rxq->buf_off,
	};
	struct rx_burst_state s = {
		.head = rxq->cq_head,
		.last_dw1 = 0,
		.tci_hi = rx_cqe_tci_hi(0),
		.ol = rx_cqe_ol_flags(0),
	};
	struct rte_mbuf **end = pkts + n, *m;
	uint32_t len, type, dw1, i, max, room, nb, k, pend = 0;
	enum gdma_cqe_owner_state state;
	const struct gdma_cqe *cqe;
	const uint32_t *ppi;

	if (unlikely(rxq->pend.i != rxq->pend.n))
		pend = mana_rx_pending(rxq, pkts, n);
	s.out = pkts + pend;
	s.tail = rxq->sw_tail;
	s.avail = RTE_MIN((uint32_t)(end - s.out), rxq->sw_head - s.tail);
	while (s.out != end) {
		if (vec != NULL) {
			vec(&c, &s, end);
			if (s.out == end)
				break;
		}
		cqe = &c.ring[s.head & c.mask];
		state = gdma_cqe_owner_state(__atomic_load_n(&cqe->info, __ATOMIC_RELAXED),
					     s.head >> c.shift);
		if (state != GDMA_CQE_NEW) {
			if (state == GDMA_CQE_OVERFLOW)
				rxq->stats.cq_overflow++;
			break;
		}
		rte_io_rmb();	/* the CQE body after its owner bits (hardware.md §18 #8) */
		s.head++;
		type = GDMA_GET(cqe->data[0], MANA_CQE_TYPE);
		dw1 = cqe->data[1];
		i = 0;
		if (likely(type == CQE_RX_COALESCED_4 || type == CQE_RX_OKAY)) {
			max = type == CQE_RX_OKAY ? 1 : MANA_RXCQE_PPI_MAX;
			s.coalesced += type == CQE_RX_COALESCED_4;
			room = RTE_MIN(s.avail, max);
			/* A tag to put back: the whole CQE goes to rx_pending. */
			if (unlikely(dw1 != s.last_dw1) && !rx_burst_dw1(&c, &s, dw1))
				room = 0;
			/* ppi[0]: length, ppi[2]: hash of packet i (dwords 2+3i, 4+3i) */
			ppi = &cqe->data[MANA_RXCQE_PKT_LEN_DW(0)];
			for (; i < room; i++, ppi += 3) {
				len = ppi[0] & MANA_RXCQE_PKT_LEN_MASK;
				if (unlikely(len - 1 >= c.buf_size))
					break;
				m = c.sw_ring[s.tail & c.mask];
				s.tail++;
				rx_fill_mbuf(c.rearm, s.ol, s.tci_hi, c.buf_off, m, len, ppi[2]);
				s.bytes += len;
				*s.out++ = m;
			}
			s.avail -= i;
			/* Done unless a packet is left that needs checks or room (zero ends it). */
			if (likely(i == max || (i > 0 && (ppi[0] & MANA_RXCQE_PKT_LEN_MASK) == 0)))
				continue;
		}
		rxq->cq_head = s.head;
		rxq->sw_tail = s.tail;
		mana_rx_cqe_slow(rxq, cqe, i);
		k = mana_rx_pending(rxq, s.out, end - s.out);
		s.out += k;
		pend += k;
		s.tail = rxq->sw_tail;
		s.avail = RTE_MIN((uint32_t)(end - s.out), rxq->sw_head - s.tail);
	}
	nb = s.out - pkts;
	rxq->cq_head = s.head;
	rxq->sw_tail = s.tail;
	rxq->stats.coalesced_cqes += s.coalesced;
	if (rx_refill(rxq, MANA_RX_REFILL_MIN) > 0)
		rx_ring_doorbell(rxq, db);
	rxq->stats.packets += nb - pend;
	rxq->stats.bytes += s.bytes;
	return nb;
}

#endif /* MANA_RX_FAST_H */
