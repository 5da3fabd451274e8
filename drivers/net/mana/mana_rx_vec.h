/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The RX vector step (mana_rx_fast.h's rx_vec_step_fn), one source for the
 * SSE4.2 build (mana_rx_sse.c) and the AVX2 build (mana_rx_avx2.c): the
 * builds differ only in how four dwords at four addresses are loaded (AVX2
 * gathers them, SSE4.2 inserts them one by one) and how four mbuf pointers
 * are stored.
 *
 * A group is four packets that need none of the scalar loop's checks:
 *   A. four CQE_RX_OKAY CQEs in a row, or
 *   B. one CQE_RX_COALESCED_4 CQE with four packets (hardware.md §4.5),
 * all of them new (owner bits of this lap, hardware.md §4.2), with the
 * dword 1 of the burst's last CQE (or one new dword 1 shared by all, whose
 * tag does not go back into the data), every length 1..buf_size, four
 * posted WQEs and four slots of burst room, and neither the CQ nor sw_ring
 * wrapping inside the group. Anything else returns to the scalar loop,
 * which takes one CQE and calls the step again.
 *
 * Per group: the four mbufs get rearm_data and ol_flags as one 16-byte
 * store, and packet_type, pkt_len, data_len, vlan_tci and hash.rss as
 * another (a 4x4 transpose of the packet types, lengths, length | tag and
 * hashes). The packet type of untagged IPv4 without options or
 * fragmentation is computed for all four at once from two dwords of each
 * frame (the test of rx_ptype); if one frame is anything else the four
 * get type 0 and, after the loop, rx_ptype one by one (no call inside the
 * loop). The CQEs taken and the coalesced ones among them are counted once,
 * after the loop.
 */

#ifndef MANA_RX_VEC_H
#define MANA_RX_VEC_H

#include <immintrin.h>

#include "mana_rx_fast.h"

/* The stores below write these mbuf fields as two 16-byte blocks. */
_Static_assert(offsetof(struct rte_mbuf, ol_flags) ==
	       offsetof(struct rte_mbuf, rearm_data) + 8, "rearm_data, ol_flags");
_Static_assert(offsetof(struct rte_mbuf, packet_type) ==
	       offsetof(struct rte_mbuf, rearm_data) + 16 &&
	       offsetof(struct rte_mbuf, pkt_len) == offsetof(struct rte_mbuf, packet_type) + 4 &&
	       offsetof(struct rte_mbuf, data_len) == offsetof(struct rte_mbuf, packet_type) + 8 &&
	       offsetof(struct rte_mbuf, vlan_tci) == offsetof(struct rte_mbuf, packet_type) + 10 &&
	       offsetof(struct rte_mbuf, hash) == offsetof(struct rte_mbuf, packet_type) + 12,
	       "rx_descriptor_fields1");

#define RXV_K(f)	_mm_load_si128((const __m128i *)mana_rxv_k.f)

/* CQE dwords as a 32-bit index into the ring from the first CQE of a group. */
#define RXV_DW(cqe, dw)		((cqe) * (GDMA_CQE_SIZE / 4) + (dw))
#define RXV_INFO_DW		(GDMA_CQE_SIZE / 4 - 1)

/* Dwords i0..i3 of the ring from q (lanes 0..3): the indices of mana_rxv_k.ix. */
#ifdef __AVX2__
#define RXV_LOAD4(q, ix, i0, i1, i2, i3) \
	_mm_i32gather_epi32((const int *)(q), RXV_K(ix), 4)
#else
#define RXV_LOAD4(q, ix, i0, i1, i2, i3) \
	_mm_setr_epi32((int)(q)[i0], (int)(q)[i1], (int)(q)[i2], (int)(q)[i3])
#endif

/*
 * A group's four mbufs, read from sw_ring once, before any store of the
 * group (the compiler must assume the stores reach sw_ring): as scalars for
 * the mbuf stores and, AVX2, as one vector for the gathers and out[].
 */
struct rxv_mbufs {
	struct rte_mbuf *m[4];
#ifdef __AVX2__
	__m256i v;
#else
	__m128i v01, v23;
#endif
};

static __rte_always_inline void
rxv_mbufs_load(struct rxv_mbufs *g, struct rte_mbuf *const *mb)
{
#ifdef __AVX2__
	g->v = _mm256_loadu_si256((const __m256i *)mb);
#else
	g->v01 = _mm_loadu_si128((const __m128i *)mb);
	g->v23 = _mm_loadu_si128((const __m128i *)(mb + 2));
#endif
	g->m[0] = mb[0];
	g->m[1] = mb[1];
	g->m[2] = mb[2];
	g->m[3] = mb[3];
}

/* The dword at byte off of each of the four mbufs (their data: off includes buf_off). */
static __rte_always_inline __m128i
rxv_mbuf_dw(const struct rxv_mbufs *g, uint32_t off)
{
#ifdef __AVX2__
	/*
	 * Offsets from mbuf 0's field, which is the base: a base made of off
	 * alone (a 32-bit value) lets the compiler use 32-bit addressing.
	 */
	const __m256i base = _mm256_set1_epi64x((int64_t)(uintptr_t)g->m[0]);

	return _mm256_i64gather_epi32((const int *)RTE_PTR_ADD(g->m[0], off),
				      _mm256_sub_epi64(g->v, base), 1);
#else
	uint32_t v[4];

	memcpy(&v[0], RTE_PTR_ADD(g->m[0], off), 4);
	memcpy(&v[1], RTE_PTR_ADD(g->m[1], off), 4);
	memcpy(&v[2], RTE_PTR_ADD(g->m[2], off), 4);
	memcpy(&v[3], RTE_PTR_ADD(g->m[3], off), 4);
	return _mm_loadu_si128((const __m128i *)v);
#endif
}

static __rte_always_inline void
rxv_store_ptrs(struct rte_mbuf **out, const struct rxv_mbufs *g)
{
#ifdef __AVX2__
	_mm256_storeu_si256((__m256i *)out, g->v);
#else
	_mm_storeu_si128((__m128i *)out, g->v01);
	_mm_storeu_si128((__m128i *)(out + 2), g->v23);
#endif
}

/* All four lanes of a compare result set. */
static __rte_always_inline bool
rxv_all(__m128i x)
{
	return _mm_movemask_ps(_mm_castsi128_ps(x)) == 0xF;
}

/* Lengths 1..buf_size in every lane (lengths are 16 bits: signed compares hold). */
static __rte_always_inline bool
rxv_len_ok(__m128i len, __m128i bs1)
{
	return rxv_all(_mm_and_si128(_mm_cmpgt_epi32(len, _mm_setzero_si128()),
				     _mm_cmpgt_epi32(bs1, len)));
}

/*
 * Packet types of the four frames where all four are untagged IPv4 without
 * options or fragmentation (rx_ptype's result for each), else 0 in every
 * lane and the group (out) noted in *undecided, unless one before it is
 * there: rxv_ptype_rest fills those after the loop, so
 * that the loop makes no call (around one, every vector and most registers
 * of the loop would have to be saved).
 */
static __rte_always_inline __m128i
rxv_ptype(uint32_t buf_off, const struct rxv_mbufs *g, __m128i len,
	  struct rte_mbuf **out, struct rte_mbuf ***undecided)
{
	const __m128i w = rxv_mbuf_dw(g, buf_off + 12);	/* 08 00 45 at bytes 12..14 */
	const __m128i f = rxv_mbuf_dw(g, buf_off + 20);	/* frag field, ttl, proto */
	const __m128i plain = _mm_and_si128(
		_mm_cmpeq_epi32(_mm_and_si128(w, RXV_K(eth_ip_mask)), RXV_K(eth_ip)),
		_mm_cmpgt_epi32(len, RXV_K(min_len)));
	__m128i proto;

	if (likely(rxv_all(plain) && _mm_testz_si128(f, RXV_K(frag_mask)))) {
		proto = _mm_srli_epi32(f, 24);
		return _mm_or_si128(RXV_K(pt_ip4),
			_mm_or_si128(_mm_and_si128(_mm_cmpeq_epi32(proto, RXV_K(tcp)), RXV_K(pt_tcp)),
				     _mm_and_si128(_mm_cmpeq_epi32(proto, RXV_K(udp)), RXV_K(pt_udp))));
	}
	if (*undecided == NULL)
		*undecided = out;
	return _mm_setzero_si128();
}

/*
 * The packet types rxv_ptype left 0 in the mbufs from..to-1 (delivered by
 * the loop, data_len set): rx_ptype's. One whose type really is 0 (unknown)
 * is parsed again, to the same result.
 */
static __rte_noinline void
rxv_ptype_rest(uint32_t buf_off, struct rte_mbuf **from, struct rte_mbuf **to)
{
	struct rte_mbuf *m;

	for (; from != to; from++) {
		m = *from;
		if (m->packet_type == 0)
			m->packet_type = rx_ptype((const uint8_t *)m + buf_off, m->data_len);
	}
}

/*
 * The group's four mbufs delivered: into out[], with every RX field
 * (rx_fill_mbuf's, four at a time): rearm_ol is rearm_data and ol_flags,
 * tci the tag in bits 16..31 of each lane.
 */
static __rte_always_inline void
rxv_deliver4(uint32_t buf_off, struct rte_mbuf *const *mb, struct rte_mbuf **out,
	     __m128i len, __m128i hash, __m128i rearm_ol, __m128i tci,
	     struct rte_mbuf ***undecided)
{
	struct rxv_mbufs g;
	__m128i pt, dl, t0, t1, t2, t3;
	const size_t r_off = offsetof(struct rte_mbuf, rearm_data);
	const size_t d_off = offsetof(struct rte_mbuf, packet_type);

	rxv_mbufs_load(&g, mb);
	pt = rxv_ptype(buf_off, &g, len, out, undecided);
	dl = _mm_or_si128(len, tci);
	/* lanes j of pt, len, dl, hash into mbuf j's 16 bytes */
	t0 = _mm_unpacklo_epi32(pt, len);
	t1 = _mm_unpackhi_epi32(pt, len);
	t2 = _mm_unpacklo_epi32(dl, hash);
	t3 = _mm_unpackhi_epi32(dl, hash);
	rxv_store_ptrs(out, &g);
	_mm_storeu_si128((__m128i *)RTE_PTR_ADD(g.m[0], r_off), rearm_ol);
	_mm_storeu_si128((__m128i *)RTE_PTR_ADD(g.m[0], d_off), _mm_unpacklo_epi64(t0, t2));
	_mm_storeu_si128((__m128i *)RTE_PTR_ADD(g.m[1], r_off), rearm_ol);
	_mm_storeu_si128((__m128i *)RTE_PTR_ADD(g.m[1], d_off), _mm_unpackhi_epi64(t0, t2));
	_mm_storeu_si128((__m128i *)RTE_PTR_ADD(g.m[2], r_off), rearm_ol);
	_mm_storeu_si128((__m128i *)RTE_PTR_ADD(g.m[2], d_off), _mm_unpacklo_epi64(t1, t3));
	_mm_storeu_si128((__m128i *)RTE_PTR_ADD(g.m[3], r_off), rearm_ol);
	_mm_storeu_si128((__m128i *)RTE_PTR_ADD(g.m[3], d_off), _mm_unpackhi_epi64(t1, t3));
}

/*
 * The group at CQE cqe (owner bits of this lap: owner; the ring ends at
 * cq_end), if there is one: its lengths, hashes and dword 1; returns the
 * CQE after it (4 CQEs on: case A, 1: case B) or NULL. bs1: buf_size + 1 in
 * every lane.
 */
static __rte_always_inline const struct gdma_cqe *
rxv_group(const struct gdma_cqe *cqe, const struct gdma_cqe *cq_end, uint32_t owner, __m128i bs1,
	  __m128i *len, __m128i *hash, uint32_t *dw1)
{
	const uint32_t *q = (const uint32_t *)cqe;
	uint32_t type;
	__m128i x;

	if (GDMA_GET(__atomic_load_n(&q[RXV_INFO_DW], __ATOMIC_RELAXED), GDMA_CQE_OWNER) != owner)
		return NULL;
	rte_io_rmb();	/* the CQE body after its owner bits (hardware.md §18 #8) */
	type = GDMA_GET(q[0], MANA_CQE_TYPE);
	*dw1 = q[1];
	if (type == CQE_RX_COALESCED_4) {
		/* B: one CQE of four packets */
		*len = _mm_and_si128(RXV_LOAD4(q, ix_clen, MANA_RXCQE_PKT_LEN_DW(0),
					       MANA_RXCQE_PKT_LEN_DW(1), MANA_RXCQE_PKT_LEN_DW(2),
					       MANA_RXCQE_PKT_LEN_DW(3)), RXV_K(len_mask));
		*hash = RXV_LOAD4(q, ix_chash, MANA_RXCQE_PKT_HASH_DW(0), MANA_RXCQE_PKT_HASH_DW(1),
				  MANA_RXCQE_PKT_HASH_DW(2), MANA_RXCQE_PKT_HASH_DW(3));
		return rxv_len_ok(*len, bs1) ? cqe + 1 : NULL;
	}
	if (type != CQE_RX_OKAY || cq_end - cqe < 4)
		return NULL;
	/* A: four one-packet CQEs sharing one dword 1; the owner bits before the bodies */
	x = _mm_srli_epi32(RXV_LOAD4(q, ix_info, RXV_DW(0, RXV_INFO_DW), RXV_DW(1, RXV_INFO_DW),
				     RXV_DW(2, RXV_INFO_DW), RXV_DW(3, RXV_INFO_DW)),
			   GDMA_CQE_OWNER_SHIFT);
	if (!rxv_all(_mm_cmpeq_epi32(x, _mm_set1_epi32((int)owner))))
		return NULL;
	rte_io_rmb();
	x = _mm_and_si128(RXV_LOAD4(q, ix_dw0, RXV_DW(0, 0), RXV_DW(1, 0), RXV_DW(2, 0), RXV_DW(3, 0)),
			  RXV_K(type_mask));
	if (!rxv_all(_mm_cmpeq_epi32(x, RXV_K(okay))))
		return NULL;
	x = RXV_LOAD4(q, ix_dw1, RXV_DW(0, 1), RXV_DW(1, 1), RXV_DW(2, 1), RXV_DW(3, 1));
	if (!rxv_all(_mm_cmpeq_epi32(x, _mm_set1_epi32((int)*dw1))))
		return NULL;
	*len = _mm_and_si128(RXV_LOAD4(q, ix_len, RXV_DW(0, MANA_RXCQE_PKT_LEN_DW(0)),
				       RXV_DW(1, MANA_RXCQE_PKT_LEN_DW(0)),
				       RXV_DW(2, MANA_RXCQE_PKT_LEN_DW(0)),
				       RXV_DW(3, MANA_RXCQE_PKT_LEN_DW(0))), RXV_K(len_mask));
	*hash = RXV_LOAD4(q, ix_hash, RXV_DW(0, MANA_RXCQE_PKT_HASH_DW(0)),
			  RXV_DW(1, MANA_RXCQE_PKT_HASH_DW(0)),
			  RXV_DW(2, MANA_RXCQE_PKT_HASH_DW(0)),
			  RXV_DW(3, MANA_RXCQE_PKT_HASH_DW(0)));
	return rxv_len_ok(*len, bs1) ? cqe + 4 : NULL;
}

static __rte_always_inline void
rxv_run(const struct rx_burst_ctx *c, struct rx_burst_state *s, struct rte_mbuf **end)
{
	const __m128i bs1 = _mm_set1_epi32((int)c->buf_size + 1);
	__m128i rearm_ol = _mm_set_epi64x((int64_t)s->ol, (int64_t)c->rearm);
	__m128i tci = _mm_set1_epi32((int)s->tci_hi);
	__m128i bytes = _mm_setzero_si128(), len, hash;
	/* ring indices of the CQ head and of sw_tail, and the lap's owner bits */
	const uint32_t h = s->head & c->mask, t = s->tail & c->mask;
	const uint32_t owner0 = (s->head >> c->shift) & GDMA_CQE_OWNER_MASK;
	/*
	 * The loop's values in locals, the rings walked by pointers: the
	 * loop's stores, which the compiler must assume reach *c and *s, leave
	 * them in registers.
	 */
	const uint32_t buf_off = c->buf_off;
	const struct gdma_cqe *const ring = c->ring, *const cq_end = &ring[c->mask + 1];
	const struct gdma_cqe *cqe = &ring[h], *next;
	struct rte_mbuf *const *sw = &c->sw_ring[t];
	struct rte_mbuf **const out0 = s->out;
	struct rte_mbuf **out = out0, **out_end;
	uint32_t last_dw1 = s->last_dw1;
	/* the first group rxv_ptype left undecided */
	struct rte_mbuf **first_undecided = NULL;
	uint32_t owner = owner0, dw1, pkts, cqes;

	/* groups the burst room and the posted WQEs allow, and before sw_ring wraps */
	out_end = out + (RTE_MIN(RTE_MIN((uint32_t)(end - out), s->avail), c->mask + 1 - t) & ~3u);
	while (out != out_end) {
		next = rxv_group(cqe, cq_end, owner, bs1, &len, &hash, &dw1);
		if (next == NULL)
			break;
		if (unlikely(dw1 != last_dw1)) {
			if (!rx_burst_dw1(c, s, dw1))
				break;
			last_dw1 = dw1;
			rearm_ol = _mm_set_epi64x((int64_t)s->ol, (int64_t)c->rearm);
			tci = _mm_set1_epi32((int)s->tci_hi);
		}
		rxv_deliver4(buf_off, sw, out, len, hash, rearm_ol, tci, &first_undecided);
		/* Per lane at most 16 bits per group, at most 16384 groups: no overflow. */
		bytes = _mm_add_epi32(bytes, len);
		/* A group ends at the ring's end at the latest. */
		cqe = next;
		if (cqe == cq_end) {
			cqe = ring;
			owner = (owner + 1) & GDMA_CQE_OWNER_MASK;
		}
		sw += 4;
		out += 4;
	}
	if (unlikely(first_undecided != NULL))
		rxv_ptype_rest(buf_off, first_undecided, out);
	/*
	 * The CQEs taken: at most one ring (the packets fit sw_ring before it
	 * wraps), so the walk passed the ring's end at most once, and then the
	 * lap's owner bits changed. Groups of case A take four CQEs, of case B
	 * one, both four packets: the B groups are (packets - CQEs) / 3.
	 */
	pkts = out - out0;
	cqes = (uint32_t)(cqe - ring) - h + (owner != owner0 ? c->mask + 1 : 0);
	s->head += cqes;
	s->coalesced += (pkts - cqes) / 3;
	s->tail += pkts;
	s->avail -= pkts;
	s->out = out;
	bytes = _mm_add_epi64(_mm_cvtepu32_epi64(bytes), _mm_cvtepu32_epi64(_mm_srli_si128(bytes, 8)));
	s->bytes += (uint64_t)_mm_cvtsi128_si64(_mm_add_epi64(bytes, _mm_srli_si128(bytes, 8)));
}

/*
 * The step itself, out of line: inlined into rx_burst_frame, with the
 * scalar loop's values around it, the group's values would live on the
 * stack.
 */
static __rte_noinline void
rxv_steps(const struct rx_burst_ctx *c, struct rx_burst_state *s, struct rte_mbuf **end)
{
	rxv_run(c, s, end);
}

static __rte_always_inline void
rx_vec_step(const struct rx_burst_ctx *c, struct rx_burst_state *s, struct rte_mbuf **end)
{
	rxv_steps(c, s, end);
}

#endif /* MANA_RX_VEC_H */
