/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The TX fast path, AVX2 build (compiled with -mavx2; called only when the
 * CPU has it and EAL's max SIMD bitwidth allows 256 bits: mana_datapath.c).
 * Four packets per step: their rearm_data and ol_flags, two per 32-byte
 * register, tested at once for refcnt 1, one segment and no flag that
 * leaves the fast path; the posting itself is mana_tx_fast.h's, as on the
 * scalar path.
 */

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

/* The words of a and b in one register. */
static __rte_always_inline __m256i
tx_vec_word2(const struct rte_mbuf *a, const struct rte_mbuf *b)
{
	return _mm256_inserti128_si256(_mm256_castsi128_si256(tx_vec_word(a)), tx_vec_word(b), 1);
}

static __rte_always_inline uint32_t
tx_run_avx2(const struct tx_fast_ctx *c, struct tx_fast_run *r, bool one_pool)
{
	const __m256i mask = _mm256_set_epi64x((int64_t)MANA_TX_SLOW_FLAGS, TX_VEC_RC_MASK,
					       (int64_t)MANA_TX_SLOW_FLAGS, TX_VEC_RC_MASK);
	const __m256i want = _mm256_set_epi64x(0, TX_VEC_RC_WANT, 0, TX_VEC_RC_WANT);
	const struct rte_mempool *pool = c->pool;
	struct rte_mbuf *m0, *m1, *m2, *m3;
	__m256i x;
	uint32_t i;

	for (i = 0; i + 4 <= r->n; i += 4) {
		m0 = r->pkts[i];
		m1 = r->pkts[i + 1];
		m2 = r->pkts[i + 2];
		m3 = r->pkts[i + 3];
		x = _mm256_or_si256(_mm256_xor_si256(tx_vec_word2(m0, m1), want),
				    _mm256_xor_si256(tx_vec_word2(m2, m3), want));
		if (unlikely(!_mm256_testz_si256(x, mask)))
			break;
		if (!one_pool && unlikely(m0->pool != pool || m1->pool != pool ||
					     m2->pool != pool || m3->pool != pool))
			break;
		tx_fast_post(c, r, i, m0);
		tx_fast_post(c, r, i + 1, m1);
		tx_fast_post(c, r, i + 2, m2);
		tx_fast_post(c, r, i + 3, m3);
	}
	/* The last 1..3 packets, or the group holding the first that is not plain. */
	return tx_fast_run_scalar(c, r, i, one_pool);
}

uint32_t
mana_tx_post_fast_avx2(struct mana_txq *txq, struct rte_mbuf **pkts, uint32_t max)
{
	return tx_fast_runs(txq, pkts, max, tx_run_avx2);
}
