/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The TX fast path, NEON build (AArch64): this file's run loop in
 * mana_tx_fast.h's frame, four packets per step, as the x86 builds'
 * (mana_tx_vec.h):
 *   - the test: each packet's rearm_data and ol_flags (16 bytes, one load)
 *     against refcnt 1, one segment and no flag that leaves the fast path,
 *     the four folded into one test; the pool of each unless
 *     MBUF_FAST_FREE;
 *   - the WQEs: header and short OOB (the template, one 16-byte store),
 *     then the SGE's address and lkey | length (a pair of 8-byte stores,
 *     one instruction in AArch64);
 *   - the four mbufs into txq->mbufs with one copy, and the four
 *     descriptors (WQE end, running byte count) with one interleaving store
 *     (ST2) of the ends and the counts.
 * What a packet gets are tx_fast_post's bytes (mana_tx_fast.h), written by
 * this loop's own stores; the last 0..3 packets of a run, and a group
 * holding one that is not plain, go through tx_fast_run_scalar from the
 * first of the group. Called only where EAL's max SIMD bitwidth allows 128
 * bits (mana_datapath.c).
 */

#include <rte_vect.h>

#include "mana_tx_fast.h"

/* Bytes 2..5 of rearm_data: refcnt and nb_segs (mana_tx_fast.h). */
#define TXN_RC_MASK		UINT64_C(0x0000FFFFFFFF0000)
#define TXN_RC_WANT		((uint64_t)TX_RC1_SEG1 << 16)

/* rearm_data and ol_flags of m: the test, one 16-byte load. */
static __rte_always_inline uint64x2_t
txn_word(const struct rte_mbuf *m)
{
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, ol_flags) !=
			 offsetof(struct rte_mbuf, rearm_data) + 8);
	return vld1q_u64(RTE_PTR_ADD(m, offsetof(struct rte_mbuf, rearm_data)));
}

/* All four direct, one segment, refcnt 1, no slow flag. */
static __rte_always_inline bool
txn_plain4(const struct rte_mbuf *m0, const struct rte_mbuf *m1, const struct rte_mbuf *m2,
	   const struct rte_mbuf *m3)
{
	const uint64x2_t mask = vcombine_u64(vcreate_u64(TXN_RC_MASK),
					     vcreate_u64(MANA_TX_SLOW_FLAGS));
	const uint64x2_t want = vcombine_u64(vcreate_u64(TXN_RC_WANT), vcreate_u64(0));
	uint64x2_t x = vorrq_u64(vorrq_u64(veorq_u64(txn_word(m0), want),
					   veorq_u64(txn_word(m1), want)),
				 vorrq_u64(veorq_u64(txn_word(m2), want),
					   veorq_u64(txn_word(m3), want)));

	return vmaxvq_u32(vreinterpretq_u32_u64(vandq_u64(x, mask))) == 0;
}

/* One WQE (tx_fast_post's bytes); returns its length. */
static __rte_always_inline uint32_t
txn_wqe(uint8_t *w, uint64x2_t hdr_oob, uint64_t lkey, const struct rte_mbuf *m)
{
	const uint32_t len = m->data_len;

	vst1q_u64((uint64_t *)w, hdr_oob);
	*(uint64_t *)(w + 16) = rte_pktmbuf_mtod(m, uintptr_t);
	*(uint64_t *)(w + 24) = lkey | (uint64_t)len << 32;
	return len;
}

/*
 * The groups of a run from packet 0 on; returns the packets posted,
 * *bytes_io the running byte count after them. Called out of line (below),
 * with the run in plain arguments and walked by pointers: inside
 * tx_fast_runs, or indexed by a 32-bit counter, the loop's values would
 * live on the stack.
 */
static __rte_always_inline uint32_t
txn_groups(const struct tx_fast_ctx *c, struct rte_mbuf **pkts, struct rte_mbuf **mbufs,
	   struct mana_tx_desc *desc, uint8_t *w, uint32_t n, uint32_t wqe_end,
	   uint32_t *bytes_io, bool one_pool)
{
	const uint64x2_t hdr_oob = vcombine_u64(vcreate_u64(c->hdr), vcreate_u64(c->oob));
	const uint32x4_t step = vdupq_n_u32(4), bytes_mask = vdupq_n_u32(MANA_TX_DESC_BYTES);
	const uint32_t ends0[4] = { wqe_end + 1, wqe_end + 2, wqe_end + 3, wqe_end + 4 };
	const struct rte_mempool *pool = c->pool;
	struct rte_mbuf **const first = pkts, **const last = pkts + (n & ~3u);
	const uint64_t lkey = c->lkey;
	uint32_t bytes = *bytes_io, b0, b1, b2;
	uint32x4x2_t d = { .val = { vld1q_u32(ends0) } };
	struct rte_mbuf *m0, *m1, *m2, *m3;

	RTE_BUILD_BUG_ON(sizeof(*desc) != 8 || offsetof(struct mana_tx_desc, bytes) != 4);
	for (; pkts != last; pkts += 4, mbufs += 4, desc += 4, w += 4 * GDMA_WQE_BU_SIZE) {
		m0 = pkts[0];
		m1 = pkts[1];
		m2 = pkts[2];
		m3 = pkts[3];
		if (unlikely(!txn_plain4(m0, m1, m2, m3)))
			break;
		if (!one_pool && unlikely(m0->pool != pool || m1->pool != pool ||
					     m2->pool != pool || m3->pool != pool))
			break;
		memcpy(mbufs, pkts, 4 * sizeof(*pkts));
		b0 = bytes + txn_wqe(w, hdr_oob, lkey, m0);
		b1 = b0 + txn_wqe(w + GDMA_WQE_BU_SIZE, hdr_oob, lkey, m1);
		b2 = b1 + txn_wqe(w + 2 * GDMA_WQE_BU_SIZE, hdr_oob, lkey, m2);
		bytes = b2 + txn_wqe(w + 3 * GDMA_WQE_BU_SIZE, hdr_oob, lkey, m3);
		/* descriptor j: lane j of the ends, then of the counts */
		d.val[1] = vandq_u32((uint32x4_t){ b0, b1, b2, bytes }, bytes_mask);
		vst2q_u32((uint32_t *)desc, d);
		d.val[0] = vaddq_u32(d.val[0], step);
	}
	*bytes_io = bytes;
	return pkts - first;
}

/* txn_groups once per value of one_pool, out of line. */
static __rte_noinline uint32_t
txn_groups_one_pool(const struct tx_fast_ctx *c, struct tx_fast_run *r)
{
	return txn_groups(c, r->pkts, r->mbufs, r->desc, (uint8_t *)r->w, r->n, r->wqe_end,
			  &r->bytes, true);
}

static __rte_noinline uint32_t
txn_groups_by_pool(const struct tx_fast_ctx *c, struct tx_fast_run *r)
{
	return txn_groups(c, r->pkts, r->mbufs, r->desc, (uint8_t *)r->w, r->n, r->wqe_end,
			  &r->bytes, false);
}

static __rte_always_inline uint32_t
tx_run_neon(const struct tx_fast_ctx *c, struct tx_fast_run *r, bool one_pool)
{
	uint32_t i = 0;

	if (r->n >= 4)
		i = one_pool ? txn_groups_one_pool(c, r) : txn_groups_by_pool(c, r);
	return tx_fast_run_scalar(c, r, i, one_pool);
}

uint32_t
mana_tx_post_fast_neon(struct mana_txq *txq, struct rte_mbuf **pkts, uint32_t max)
{
	return tx_fast_runs(txq, pkts, max, tx_run_neon);
}
