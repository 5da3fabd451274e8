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
 *   - the WQEs: header and short OOB (one 16-byte store of the template),
 *     then the SGE's address and lkey | length;
 *   - the four mbufs into txq->mbufs with one copy, and the four
 *     descriptors (WQE end, running byte count).
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
#ifdef __AVX2__
	const __m256i mask = _mm256_set_epi64x((int64_t)MANA_TX_SLOW_FLAGS, TX_VEC_RC_MASK,
					       (int64_t)MANA_TX_SLOW_FLAGS, TX_VEC_RC_MASK);
	const __m256i want = _mm256_set_epi64x(0, TX_VEC_RC_WANT, 0, TX_VEC_RC_WANT);
	__m256i a = _mm256_inserti128_si256(_mm256_castsi128_si256(tx_vec_word(m0)),
					    tx_vec_word(m1), 1);
	__m256i b = _mm256_inserti128_si256(_mm256_castsi128_si256(tx_vec_word(m2)),
					    tx_vec_word(m3), 1);

	return _mm256_testz_si256(_mm256_or_si256(_mm256_xor_si256(a, want),
						  _mm256_xor_si256(b, want)), mask);
#else
	const __m128i mask = _mm_set_epi64x((int64_t)MANA_TX_SLOW_FLAGS, TX_VEC_RC_MASK);
	const __m128i want = _mm_set_epi64x(0, TX_VEC_RC_WANT);
	__m128i x = _mm_or_si128(_mm_or_si128(_mm_xor_si128(tx_vec_word(m0), want),
					      _mm_xor_si128(tx_vec_word(m1), want)),
				 _mm_or_si128(_mm_xor_si128(tx_vec_word(m2), want),
					      _mm_xor_si128(tx_vec_word(m3), want)));

	return _mm_testz_si128(x, mask);
#endif
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
 * The four descriptors of a group (tx_fast_post's): WQE ends in ends, running
 * byte counts b0..b3; two 16-byte stores.
 */
static __rte_always_inline void
tx_vec_desc4(struct mana_tx_desc *d, __m128i ends, uint32_t b0, uint32_t b1, uint32_t b2,
	     uint32_t b3)
{
	const __m128i b = _mm_and_si128(_mm_set_epi32((int)b3, (int)b2, (int)b1, (int)b0),
					_mm_set1_epi32(MANA_TX_DESC_BYTES));

	RTE_BUILD_BUG_ON(sizeof(*d) != 8 || offsetof(struct mana_tx_desc, bytes) != 4);
	_mm_storeu_si128((__m128i *)d, _mm_unpacklo_epi32(ends, b));
	_mm_storeu_si128((__m128i *)(d + 2), _mm_unpackhi_epi32(ends, b));
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
		tx_vec_desc4(desc, ends, b0, b1, b2, bytes);
		ends = _mm_add_epi32(ends, _mm_set1_epi32(4));
	}
	*bytes_io = bytes;
	return pkts - first;
}

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
