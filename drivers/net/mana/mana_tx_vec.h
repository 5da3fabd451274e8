/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The TX fast path's run loop for the SSE4.2 build (mana_tx_sse.c) and the
 * AVX2 build (mana_tx_avx2.c), four packets per step:
 *   - the test: each packet's rearm_data and ol_flags (16 bytes, one load)
 *     against refcnt 1, one segment and no flag that leaves the fast path,
 *     the four folded into one test (AVX2: two packets per register);
 *     the pool of each unless MBUF_FAST_FREE;
 *   - the WQEs: header and short OOB (the template), then the SGE's
 *     address and lkey | length. SSE4.2: a 16-byte store of the template
 *     and two 8-byte stores per WQE. AVX2: the four addresses (buf_addr +
 *     data_off) and lkey | length words computed in two registers, from
 *     the rearm_data loads of the test and one 16-byte load of each
 *     packet's packet_type..hash, and each WQE one 32-byte store;
 *   - the four mbufs into txq->mbufs with one copy, and the four
 *     descriptors (WQE end, running byte count: AVX2 sums the four lengths
 *     in one register).
 * What a packet gets are tx_fast_post's bytes (mana_tx_fast.h), written by
 * this loop's own stores; the last 0..3
 * packets of a run, and a group holding one that is not plain, go through
 * tx_fast_run_scalar from the first of the group.
 */

#ifndef MANA_TX_VEC_H
#define MANA_TX_VEC_H

#include <immintrin.h>

#include "mana_tx_fast.h"

/* Bytes 2..5 of rearm_data: refcnt and nb_segs (mana_tx_fast.h). */
#define TX_VEC_RC_MASK		INT64_C(0x0000FFFFFFFF0000)
#define TX_VEC_RC_WANT		((int64_t)TX_RC1_SEG1 << 16)

/*
 * The four descriptors of a group (tx_fast_post's): WQE ends in ends, the
 * running byte counts after each packet in b; two 16-byte stores.
 */
static __rte_always_inline void
tx_vec_desc4(struct mana_tx_desc *d, __m128i ends, __m128i b)
{
	RTE_BUILD_BUG_ON(sizeof(*d) != 8 || offsetof(struct mana_tx_desc, bytes) != 4);
	b = _mm_and_si128(b, _mm_set1_epi32(MANA_TX_DESC_BYTES));
	_mm_storeu_si128((__m128i *)d, _mm_unpacklo_epi32(ends, b));
	_mm_storeu_si128((__m128i *)(d + 2), _mm_unpackhi_epi32(ends, b));
}

#ifdef __AVX2__
/*
 * AVX2: the 16 bytes at byte off of mbufs x and y, one per 128-bit lane.
 * The loop below takes packets 0 and 1 into one register, 2 and 3 into
 * another, so that 64-bit unpacks give lanes in the order 0, 2 | 1, 3,
 * the order in which the unpacks of the WQE halves put packets 0, 1 | 2, 3
 * back together.
 */
static __rte_always_inline __m256i
tx_vec_pair(const struct rte_mbuf *x, const struct rte_mbuf *y, size_t off)
{
	return _mm256_inserti128_si256(
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)RTE_PTR_ADD(x, off))),
		_mm_loadu_si128((const __m128i *)RTE_PTR_ADD(y, off)), 1);
}

/*
 * The groups of a run from packet 0 on; returns the packets posted, *bytes_io
 * the running byte count after them (as the SSE4.2 build's, below).
 */
static __rte_always_inline uint32_t
tx_vec_groups(const struct tx_fast_ctx *c, struct rte_mbuf **pkts, struct rte_mbuf **mbufs,
	      struct mana_tx_desc *desc, uint8_t *w, uint32_t n, uint32_t wqe_end,
	      uint32_t *bytes_io, bool one_pool)
{
	const size_t r_off = offsetof(struct rte_mbuf, rearm_data);
	const size_t f_off = offsetof(struct rte_mbuf, packet_type);
	const __m256i hdr_oob = _mm256_broadcastsi128_si256(_mm_set_epi64x((int64_t)c->oob,
									   (int64_t)c->hdr));
	const __m256i lkey = _mm256_set1_epi64x((int64_t)c->lkey);
	const __m256i lo16 = _mm256_set1_epi64x(UINT16_MAX);
	const __m256i rc_mask = _mm256_set_epi64x((int64_t)MANA_TX_SLOW_FLAGS, TX_VEC_RC_MASK,
						  (int64_t)MANA_TX_SLOW_FLAGS, TX_VEC_RC_MASK);
	const __m256i rc_want = _mm256_set_epi64x(0, TX_VEC_RC_WANT, 0, TX_VEC_RC_WANT);
	/* dwords 0, 4, 2, 6 of lengths in lanes 0, 2 | 1, 3: the lengths 0..3 */
	const __m256i len_order = _mm256_setr_epi32(0, 4, 2, 6, 0, 4, 2, 6);
	const struct rte_mempool *pool = c->pool;
	struct rte_mbuf **const first = pkts, **const last = pkts + (n & ~3u);
	__m128i ends = _mm_add_epi32(_mm_set1_epi32((int)wqe_end), _mm_set_epi32(4, 3, 2, 1));
	__m128i bytes = _mm_set1_epi32((int)*bytes_io), len, b;
	__m256i rd01, rd23, f01, f23, addr, ll, s01, s23;
	struct rte_mbuf *m0, *m1, *m2, *m3;

	for (; pkts != last; pkts += 4, mbufs += 4, desc += 4, w += 4 * GDMA_WQE_BU_SIZE) {
		m0 = pkts[0];
		m1 = pkts[1];
		m2 = pkts[2];
		m3 = pkts[3];
		/* rearm_data and ol_flags: the test, and data_off in bits 0..15 */
		rd01 = tx_vec_pair(m0, m1, r_off);
		rd23 = tx_vec_pair(m2, m3, r_off);
		if (unlikely(!_mm256_testz_si256(_mm256_or_si256(_mm256_xor_si256(rd01, rc_want),
								 _mm256_xor_si256(rd23, rc_want)),
						 rc_mask)))
			break;
		/*
		 * Any of the four not of pool (without MBUF_FAST_FREE each mbuf is
		 * looked at). Written out in both loops: as an inline function
		 * it cost gcc 14 (Debian 13) 1.8 instructions per packet here,
		 * the loop's constants built again in every iteration.
		 */
		if (!one_pool && unlikely(m0->pool != pool || m1->pool != pool ||
					     m2->pool != pool || m3->pool != pool))
			break;
		_mm256_storeu_si256((__m256i *)mbufs, _mm256_loadu_si256((const __m256i *)pkts));
		/* packet_type.. hash: data_len in bits 0..15 of the second qword */
		f01 = tx_vec_pair(m0, m1, f_off);
		f23 = tx_vec_pair(m2, m3, f_off);
		/* lanes 0, 2 | 1, 3: address = buf_addr + data_off, lkey | data_len << 32 */
		addr = _mm256_add_epi64(_mm256_set_epi64x((int64_t)(uintptr_t)m3->buf_addr,
							  (int64_t)(uintptr_t)m1->buf_addr,
							  (int64_t)(uintptr_t)m2->buf_addr,
							  (int64_t)(uintptr_t)m0->buf_addr),
					_mm256_and_si256(_mm256_unpacklo_epi64(rd01, rd23), lo16));
		ll = _mm256_and_si256(_mm256_unpackhi_epi64(f01, f23), lo16);
		/* lengths 0..3, their running sums from the count so far */
		len = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(ll, len_order));
		len = _mm_add_epi32(len, _mm_slli_si128(len, 4));
		b = _mm_add_epi32(_mm_add_epi32(len, _mm_slli_si128(len, 8)), bytes);
		bytes = _mm_shuffle_epi32(b, 0xFF);
		ll = _mm256_or_si256(_mm256_slli_epi64(ll, 32), lkey);
		/* SGEs of packets 0 | 1 and 2 | 3, each WQE one 32-byte store */
		s01 = _mm256_unpacklo_epi64(addr, ll);
		s23 = _mm256_unpackhi_epi64(addr, ll);
		_mm256_storeu_si256((__m256i *)w, _mm256_permute2x128_si256(hdr_oob, s01, 0x20));
		_mm256_storeu_si256((__m256i *)(w + GDMA_WQE_BU_SIZE),
				    _mm256_permute2x128_si256(hdr_oob, s01, 0x30));
		_mm256_storeu_si256((__m256i *)(w + 2 * GDMA_WQE_BU_SIZE),
				    _mm256_permute2x128_si256(hdr_oob, s23, 0x20));
		_mm256_storeu_si256((__m256i *)(w + 3 * GDMA_WQE_BU_SIZE),
				    _mm256_permute2x128_si256(hdr_oob, s23, 0x30));
		tx_vec_desc4(desc, ends, b);
		ends = _mm_add_epi32(ends, _mm_set1_epi32(4));
	}
	*bytes_io = (uint32_t)_mm_cvtsi128_si32(bytes);
	return pkts - first;
}
#else
/* SSE4.2: the test on one register per packet, each WQE's SGE built alone. */
static __rte_always_inline __m128i
tx_vec_word(const struct rte_mbuf *m)
{
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, ol_flags) !=
			 offsetof(struct rte_mbuf, rearm_data) + 8);
	return _mm_loadu_si128((const __m128i *)RTE_PTR_ADD(m, offsetof(struct rte_mbuf,
									 rearm_data)));
}

/* All four direct, one segment, refcnt 1, no slow flag. */
static __rte_always_inline bool
tx_vec_plain4(const struct rte_mbuf *m0, const struct rte_mbuf *m1, const struct rte_mbuf *m2,
	      const struct rte_mbuf *m3)
{
	const __m128i mask = _mm_set_epi64x((int64_t)MANA_TX_SLOW_FLAGS, TX_VEC_RC_MASK);
	const __m128i want = _mm_set_epi64x(0, TX_VEC_RC_WANT);
	__m128i x = _mm_or_si128(_mm_or_si128(_mm_xor_si128(tx_vec_word(m0), want),
					      _mm_xor_si128(tx_vec_word(m1), want)),
				 _mm_or_si128(_mm_xor_si128(tx_vec_word(m2), want),
					      _mm_xor_si128(tx_vec_word(m3), want)));

	return _mm_testz_si128(x, mask);
}

/* One WQE (tx_fast_post's bytes); returns its length. */
static __rte_always_inline uint32_t
tx_vec_wqe(uint8_t *w, __m128i hdr_oob, uint64_t lkey, const struct rte_mbuf *m)
{
	const uint32_t len = m->data_len;

	_mm_storeu_si128((__m128i *)w, hdr_oob);
	*(uint64_t *)(w + 16) = rte_pktmbuf_mtod(m, uintptr_t);
	*(uint64_t *)(w + 24) = lkey | (uint64_t)len << 32;
	return len;
}

/*
 * The groups of a run from packet 0 on; returns the packets posted, *bytes
 * the running byte count after them. Called out of line (below), with the
 * run in plain arguments and walked by pointers: inside tx_fast_runs, or
 * indexed by a 32-bit counter, the loop's values would live on the stack.
 */
static __rte_always_inline uint32_t
tx_vec_groups(const struct tx_fast_ctx *c, struct rte_mbuf **pkts, struct rte_mbuf **mbufs,
	      struct mana_tx_desc *desc, uint8_t *w, uint32_t n, uint32_t wqe_end,
	      uint32_t *bytes_io, bool one_pool)
{
	const __m128i hdr_oob = _mm_set_epi64x((int64_t)c->oob, (int64_t)c->hdr);
	const struct rte_mempool *pool = c->pool;
	struct rte_mbuf **const first = pkts, **const last = pkts + (n & ~3u);
	const uint64_t lkey = c->lkey;
	uint32_t bytes = *bytes_io, b0, b1, b2;
	__m128i ends = _mm_add_epi32(_mm_set1_epi32((int)wqe_end), _mm_set_epi32(4, 3, 2, 1));
	struct rte_mbuf *m0, *m1, *m2, *m3;

	for (; pkts != last; pkts += 4, mbufs += 4, desc += 4, w += 4 * GDMA_WQE_BU_SIZE) {
		m0 = pkts[0];
		m1 = pkts[1];
		m2 = pkts[2];
		m3 = pkts[3];
		if (unlikely(!tx_vec_plain4(m0, m1, m2, m3)))
			break;
		if (!one_pool && unlikely(m0->pool != pool || m1->pool != pool ||
					     m2->pool != pool || m3->pool != pool))
			break;
		memcpy(mbufs, pkts, 4 * sizeof(*pkts));
		b0 = bytes + tx_vec_wqe(w, hdr_oob, lkey, m0);
		b1 = b0 + tx_vec_wqe(w + GDMA_WQE_BU_SIZE, hdr_oob, lkey, m1);
		b2 = b1 + tx_vec_wqe(w + 2 * GDMA_WQE_BU_SIZE, hdr_oob, lkey, m2);
		bytes = b2 + tx_vec_wqe(w + 3 * GDMA_WQE_BU_SIZE, hdr_oob, lkey, m3);
		tx_vec_desc4(desc, ends, _mm_setr_epi32((int)b0, (int)b1, (int)b2, (int)bytes));
		ends = _mm_add_epi32(ends, _mm_set1_epi32(4));
	}
	*bytes_io = bytes;
	return pkts - first;
}
#endif

/* tx_vec_groups once per value of one_pool, out of line. */
static __rte_noinline uint32_t
tx_vec_groups_one_pool(const struct tx_fast_ctx *c, struct tx_fast_run *r)
{
	return tx_vec_groups(c, r->pkts, r->mbufs, r->desc, (uint8_t *)r->w, r->n, r->wqe_end,
			     &r->bytes, true);
}

static __rte_noinline uint32_t
tx_vec_groups_by_pool(const struct tx_fast_ctx *c, struct tx_fast_run *r)
{
	return tx_vec_groups(c, r->pkts, r->mbufs, r->desc, (uint8_t *)r->w, r->n, r->wqe_end,
			     &r->bytes, false);
}

static __rte_always_inline uint32_t
tx_run_vec(const struct tx_fast_ctx *c, struct tx_fast_run *r, bool one_pool)
{
	uint32_t i = 0;

	if (r->n >= 4)
		i = one_pool ? tx_vec_groups_one_pool(c, r) : tx_vec_groups_by_pool(c, r);
	return tx_fast_run_scalar(c, r, i, one_pool);
}

#endif /* MANA_TX_VEC_H */
