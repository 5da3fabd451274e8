/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The TX fast path's frame, shared by the scalar (mana_tx.c), SSE4.2
 * (mana_tx_sse.c), AVX2 (mana_tx_avx2.c) and NEON (mana_tx_neon.c) builds:
 * tx_fast_runs walks the descriptor ring and the SQ in runs without a wrap
 * and hands each run to the build's own loop, which posts packets while they
 * are plain (tx_fast_plain) and stops at the first that is not. The scalar
 * loop posts through tx_fast_post; the vector loops (mana_tx_vec.h,
 * mana_tx_neon.c) write the same WQE and descriptor bytes in their own
 * stores, four packets a step, where going through tx_fast_post costs the
 * loop its registers (callgrind). Test comp_datapath paths_agree checks the
 * frames sent through each path.
 */

#ifndef MANA_TX_FAST_H
#define MANA_TX_FAST_H

#include <stddef.h>
#include <string.h>

#include <rte_mbuf.h>

#include "mana_ethdev.h"

/* Anything in ol_flags that keeps a packet off the fast path (no OOB fields, lkey by pool). */
#define MANA_TX_SLOW_FLAGS	(RTE_MBUF_F_TX_OFFLOAD_MASK | RTE_MBUF_F_INDIRECT | \
				 RTE_MBUF_F_EXTERNAL)

/* refcnt 1 and nb_segs 1 (rearm_data bytes 2..5) as one 32-bit word. */
#define TX_RC1_SEG1		(1u | 1u << 16)

/* What a run needs of the queue, read once per call. */
struct tx_fast_ctx {
	uint64_t hdr;			/* WQE bytes 0..7 (txq->hdr_tmpl) */
	uint64_t oob;			/* WQE bytes 8..15 (txq->oob_tmpl) */
	uint64_t lkey;			/* txq->lk_key */
	const struct rte_mempool *pool;	/* txq->lk_pool */
};

/* One run: up to n packets, no wrap of the descriptor ring or the SQ. */
struct tx_fast_run {
	struct rte_mbuf **pkts;
	struct rte_mbuf **mbufs;	/* txq->mbufs slots of the run */
	struct mana_tx_desc *desc;	/* txq->desc slots of the run */
	uint64_t *w;			/* the first WQE of the run */
	uint32_t n;
	uint32_t wqe_end;		/* SQ producer index before the run */
	uint32_t bytes;			/* txq->bytes_posted, running */
};

static __rte_always_inline uint32_t
tx_rc_segs(const struct rte_mbuf *m)
{
	uint32_t v;

	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, nb_segs) !=
			 offsetof(struct rte_mbuf, refcnt) + 2);
	memcpy(&v, RTE_PTR_ADD(m, offsetof(struct rte_mbuf, refcnt)), sizeof(v));
	return v;
}

/*
 * m goes on the fast path: direct, one segment, refcnt 1, no offload, the
 * cached pool. one_pool (a constant at each call): MBUF_FAST_FREE, every
 * mbuf is of the cached pool (tx_fast_runs checked the first).
 */
static __rte_always_inline bool
tx_fast_plain(const struct tx_fast_ctx *c, const struct rte_mbuf *m, bool one_pool)
{
	return !(m->ol_flags & MANA_TX_SLOW_FLAGS) && tx_rc_segs(m) == TX_RC1_SEG1 &&
	       (one_pool || m->pool == c->pool);
}

/*
 * Post packet i of the run as a 1-BU WQE: header + short OOB from the
 * templates, one SGE; its mbuf and descriptor (WQE end, running byte count).
 */
static __rte_always_inline void
tx_fast_post(const struct tx_fast_ctx *c, struct tx_fast_run *r, uint32_t i, struct rte_mbuf *m)
{
	uint64_t *w = r->w + i * (GDMA_WQE_BU_SIZE / sizeof(uint64_t));
	uint32_t len = m->data_len;

	w[0] = c->hdr;
	w[1] = c->oob;
	w[2] = rte_pktmbuf_mtod(m, uintptr_t);
	w[3] = c->lkey | (uint64_t)len << 32;
	r->bytes += len;
	r->mbufs[i] = m;
	r->desc[i] = (struct mana_tx_desc){
		.wqe_end = r->wqe_end + i + 1,
		.bytes = r->bytes & MANA_TX_DESC_BYTES,
	};
}

/* The scalar loop of a run (also the tail of the vector ones): returns packets posted. */
static __rte_always_inline uint32_t
tx_fast_run_scalar(const struct tx_fast_ctx *c, struct tx_fast_run *r, uint32_t i, bool one_pool)
{
	struct rte_mbuf *m;

	for (; i < r->n; i++) {
		m = r->pkts[i];
		if (unlikely(!tx_fast_plain(c, m, one_pool)))
			break;
		tx_fast_post(c, r, i, m);
	}
	return i;
}

typedef uint32_t (*tx_fast_run_fn)(const struct tx_fast_ctx *c, struct tx_fast_run *r,
				   bool one_pool);

/*
 * Post up to max packets (the caller checked the room for max 1-BU WQEs) in
 * runs up to the next wrap of the descriptor ring or the SQ, each through
 * `run` (a constant at every call: inlined, once per value of one_pool);
 * returns the number posted. Queue fields are read into locals: the ring
 * stores could alias them. A queue whose vPort offset needs the long OOB
 * (long_oob_only) posts nothing here.
 */
static __rte_always_inline uint32_t
tx_fast_runs(struct mana_txq *txq, struct rte_mbuf **pkts, uint32_t max, tx_fast_run_fn run)
{
	const struct tx_fast_ctx c = {
		.hdr = txq->hdr_tmpl,
		.oob = txq->oob_tmpl,
		.lkey = txq->lk_key,
		.pool = txq->lk_pool,
	};
	const bool one_pool = txq->fast_free;
	const uint32_t dmask = txq->desc_mask, nb_desc = txq->nb_desc, sq_bu = txq->sq_bu;
	uint32_t head = txq->desc_head, done = 0, d, s, k;
	struct tx_fast_run r = { .wqe_end = txq->sq_head, .bytes = txq->bytes_posted };

	/* MBUF_FAST_FREE: the one pool is the cached one, or nothing is plain. */
	if (unlikely(c.pool == NULL || txq->long_oob_only || max == 0 ||
		     (one_pool && pkts[0]->pool != c.pool)))
		return 0;
	while (done < max) {
		d = head & dmask;
		s = r.wqe_end & (sq_bu - 1);
		r.n = RTE_MIN(max - done, RTE_MIN(nb_desc - d, sq_bu - s));
		r.w = (uint64_t *)(txq->sq_buf + ((size_t)s << GDMA_WQE_BU_SHIFT));
		r.mbufs = &txq->mbufs[d];
		r.desc = &txq->desc[d];
		r.pkts = &pkts[done];
		k = one_pool ? run(&c, &r, true) : run(&c, &r, false);
		head += k;
		r.wqe_end += k;
		done += k;
		if (k < r.n)
			break;
	}
	txq->desc_head = head;
	txq->sq_head = r.wqe_end;
	txq->bytes_posted = r.bytes;
	return done;
}

#endif /* MANA_TX_FAST_H */
