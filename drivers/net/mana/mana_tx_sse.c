/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The TX fast path, SSE4.2 build (compiled with -msse4.2; called only when
 * the CPU has it: mana_datapath.c). Two packets per step: their rearm_data
 * and ol_flags (16 bytes each, one load) are tested at once for refcnt 1,
 * one segment and no flag that leaves the fast path; the posting itself is
 * mana_tx_fast.h's, as on the scalar path.
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

static __rte_always_inline uint32_t
tx_run_sse(const struct tx_fast_ctx *c, struct tx_fast_run *r, bool one_pool)
{
	const __m128i mask = _mm_set_epi64x((int64_t)MANA_TX_SLOW_FLAGS, TX_VEC_RC_MASK);
	const __m128i want = _mm_set_epi64x(0, TX_VEC_RC_WANT);
	const struct rte_mempool *pool = c->pool;
	struct rte_mbuf *m0, *m1;
	__m128i x;
	uint32_t i;

	for (i = 0; i + 2 <= r->n; i += 2) {
		m0 = r->pkts[i];
		m1 = r->pkts[i + 1];
		x = _mm_or_si128(_mm_xor_si128(tx_vec_word(m0), want),
				 _mm_xor_si128(tx_vec_word(m1), want));
		if (unlikely(!_mm_testz_si128(x, mask)))
			break;
		if (!one_pool && unlikely(m0->pool != pool || m1->pool != pool))
			break;
		tx_fast_post(c, r, i, m0);
		tx_fast_post(c, r, i + 1, m1);
	}
	/* The odd packet, or the pair holding the first that is not plain. */
	return tx_fast_run_scalar(c, r, i, one_pool);
}

uint32_t
mana_tx_post_fast_sse(struct mana_txq *txq, struct rte_mbuf **pkts, uint32_t max)
{
	return tx_fast_runs(txq, pkts, max, tx_run_sse);
}
