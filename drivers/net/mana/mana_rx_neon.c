/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The RX burst, NEON build (AArch64, where NEON is part of the base
 * instruction set): rx_burst_frame with this file's step. The step is the
 * x86 builds' (mana_rx_vec.h) in NEON's terms: the same groups of four
 * packets, A (four CQE_RX_OKAY CQEs in a row) or B (one CQE_RX_COALESCED_4
 * CQE of four), under the same conditions (new, one dword 1 that puts no
 * tag back into the data, lengths 1..buf_size, four posted WQEs and slots,
 * no wrap inside the group); anything else goes back to the scalar loop.
 * What NEON does in its own terms:
 *   - case B's four lengths and four hashes (dwords 2, 5, 8, 11 and 4, 7,
 *     10, 13, hardware.md §4.5) are one de-interleaving load (LD3);
 *   - case A compares dwords 0..1 of CQEs 1..3 against the first's (type,
 *     flags) in their own lanes, without moving them, and gets the lengths
 *     and hashes from a 16-byte load of dwords 2..5 of each, two steps of
 *     transposition;
 *   - each mbuf gets rearm_data and ol_flags as one 16-byte store, and
 *     packet_type, pkt_len, data_len | vlan_tci and hash.rss as another
 *     (a 4x4 transpose in eight two-register permutes, as SSE4.2);
 *   - the packet type test takes bytes 12..27 of each frame in one load;
 *   - the refill (mana_rx_fast.h) writes four WQEs a step.
 * Called only where EAL's max SIMD bitwidth allows 128 bits (mana_datapath.c).
 */

#include <rte_vect.h>

/* mana_rx_fast.h's refill takes four mbufs a step with NEON too (the scalar build's does not). */
#define MANA_RX_NEON_BUILD
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
/* Case A reads a CQE's dwords 0..5 and 15; case B dwords 2..13 as three interleaved rows. */
_Static_assert(GDMA_CQE_SIZE == 64 && MANA_RXCQE_PKT_LEN_DW(0) == 2 &&
	       MANA_RXCQE_PKT_HASH_DW(0) == 4 && MANA_RXCQE_PKT_HASH_DW(3) == 13,
	       "RX CQE layout");

#define RXN_CQE_DW		(GDMA_CQE_SIZE / 4)
#define RXN_INFO_DW		(RXN_CQE_DW - 1)

/* Bytes 12..14 of an untagged IPv4 frame without options (08 00 45), little-endian. */
#define RXN_ETH_IP4		0x450008u
/* The fragment field's MF bit and offset, as loaded from bytes 20..21. */
#define RXN_FRAG_MASK		((uint32_t)RTE_BE16(0x3FFF))

/* Every lane of a compare result set. */
static __rte_always_inline bool
rxn_all(uint32x4_t x)
{
	return vminvq_u32(x) != 0;
}

/* Lengths 1..buf_size in every lane: len - 1 below buf_size, unsigned (0 wraps). */
static __rte_always_inline bool
rxn_len_ok(uint32x4_t len, uint32x4_t bs)
{
	return rxn_all(vcltq_u32(vsubq_u32(len, vdupq_n_u32(1)), bs));
}

/*
 * Packet types of the four frames where all four are untagged IPv4 without
 * options or fragmentation (rx_ptype's result for each), else 0 in every
 * lane and the group (out) noted in *undecided, unless one before it is:
 * rxn_ptype_rest fills those after the loop, which makes no call.
 */
static __rte_always_inline uint32x4_t
rxn_ptype(uint32_t buf_off, struct rte_mbuf *const m[4], uint32x4_t len,
	  struct rte_mbuf **out, struct rte_mbuf ***undecided)
{
	/*
	 * bytes 12..27: 08 00 45 in lane 0, fragment field, TTL and protocol
	 * in lane 2 (inside every buffer: ethdev refuses a pool whose data
	 * room is below min_rx_bufsize, 68 bytes and more)
	 */
	const uint32x4_t h0 = vreinterpretq_u32_u8(vld1q_u8(RTE_PTR_ADD(m[0], buf_off + 12)));
	const uint32x4_t h1 = vreinterpretq_u32_u8(vld1q_u8(RTE_PTR_ADD(m[1], buf_off + 12)));
	const uint32x4_t h2 = vreinterpretq_u32_u8(vld1q_u8(RTE_PTR_ADD(m[2], buf_off + 12)));
	const uint32x4_t h3 = vreinterpretq_u32_u8(vld1q_u8(RTE_PTR_ADD(m[3], buf_off + 12)));
	/* lanes 0 and 2 of each: w0 w1 f0 f1 and w2 w3 f2 f3, then w0..w3 and f0..f3 */
	const uint64x2_t a = vreinterpretq_u64_u32(vtrn1q_u32(h0, h1));
	const uint64x2_t b = vreinterpretq_u64_u32(vtrn1q_u32(h2, h3));
	const uint32x4_t w = vreinterpretq_u32_u64(vtrn1q_u64(a, b));
	const uint32x4_t f = vreinterpretq_u32_u64(vtrn2q_u64(a, b));
	uint32x4_t plain, proto;

	plain = vandq_u32(vceqq_u32(vandq_u32(w, vdupq_n_u32(0xFFFFFF)), vdupq_n_u32(RXN_ETH_IP4)),
			  vcgtq_u32(len, vdupq_n_u32(RTE_ETHER_HDR_LEN +
						     sizeof(struct rte_ipv4_hdr) - 1)));
	plain = vbicq_u32(plain, vtstq_u32(f, vdupq_n_u32(RXN_FRAG_MASK)));
	if (likely(rxn_all(plain))) {
		proto = vshrq_n_u32(f, 24);
		return vorrq_u32(vdupq_n_u32(RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4),
			vorrq_u32(vandq_u32(vceqq_u32(proto, vdupq_n_u32(IPPROTO_TCP)),
					    vdupq_n_u32(RTE_PTYPE_L4_TCP)),
				  vandq_u32(vceqq_u32(proto, vdupq_n_u32(IPPROTO_UDP)),
					    vdupq_n_u32(RTE_PTYPE_L4_UDP))));
	}
	if (*undecided == NULL)
		*undecided = out;
	return vdupq_n_u32(0);
}

/*
 * The packet types rxn_ptype left 0 in the mbufs from..to-1 (delivered by
 * the loop, data_len set): rx_ptype's. One whose type really is 0 (unknown)
 * is parsed again, to the same result.
 */
static __rte_noinline void
rxn_ptype_rest(uint32_t buf_off, struct rte_mbuf **from, struct rte_mbuf **to)
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
rxn_deliver4(uint32_t buf_off, struct rte_mbuf *const *mb, struct rte_mbuf **out,
	     uint32x4_t len, uint32x4_t hash, uint64x2_t rearm_ol, uint32x4_t tci,
	     struct rte_mbuf ***undecided)
{
	const size_t r_off = offsetof(struct rte_mbuf, rearm_data);
	const size_t d_off = offsetof(struct rte_mbuf, packet_type);
	/* read once, before any store of the group (the stores may reach sw_ring) */
	struct rte_mbuf *const m[4] = { mb[0], mb[1], mb[2], mb[3] };
	const uint32x4_t pt = rxn_ptype(buf_off, m, len, out, undecided);
	const uint32x4_t dl = vorrq_u32(len, tci);
	/*
	 * Lanes j of pt, len, dl, hash into mbuf j's 16 bytes: pairs of
	 * packets 0, 2 and 1, 3, then their halves. (An ST4 of lane j would
	 * store them untransposed, but gcc 12 copies its four registers into a
	 * fresh tuple for each lane, 16 moves per group.)
	 */
	const uint64x2_t t0 = vreinterpretq_u64_u32(vtrn1q_u32(pt, len));
	const uint64x2_t t1 = vreinterpretq_u64_u32(vtrn2q_u32(pt, len));
	const uint64x2_t t2 = vreinterpretq_u64_u32(vtrn1q_u32(dl, hash));
	const uint64x2_t t3 = vreinterpretq_u64_u32(vtrn2q_u32(dl, hash));

	out[0] = m[0];
	out[1] = m[1];
	out[2] = m[2];
	out[3] = m[3];
	vst1q_u64(RTE_PTR_ADD(m[0], r_off), rearm_ol);
	vst1q_u64(RTE_PTR_ADD(m[0], d_off), vzip1q_u64(t0, t2));
	vst1q_u64(RTE_PTR_ADD(m[1], r_off), rearm_ol);
	vst1q_u64(RTE_PTR_ADD(m[1], d_off), vzip1q_u64(t1, t3));
	vst1q_u64(RTE_PTR_ADD(m[2], r_off), rearm_ol);
	vst1q_u64(RTE_PTR_ADD(m[2], d_off), vzip2q_u64(t0, t2));
	vst1q_u64(RTE_PTR_ADD(m[3], r_off), rearm_ol);
	vst1q_u64(RTE_PTR_ADD(m[3], d_off), vzip2q_u64(t1, t3));
}

/* Case A's lengths and hashes: dwords 2..5 of the four CQEs, transposed. */
static __rte_always_inline void
rxn_okay4_ppi(const uint32_t *q, uint32x4_t *len, uint32x4_t *hash)
{
	/* each: length, dword 3, hash, dword 5 */
	const uint32x4_t p0 = vld1q_u32(&q[MANA_RXCQE_PKT_LEN_DW(0)]);
	const uint32x4_t p1 = vld1q_u32(&q[RXN_CQE_DW + MANA_RXCQE_PKT_LEN_DW(0)]);
	const uint32x4_t p2 = vld1q_u32(&q[2 * RXN_CQE_DW + MANA_RXCQE_PKT_LEN_DW(0)]);
	const uint32x4_t p3 = vld1q_u32(&q[3 * RXN_CQE_DW + MANA_RXCQE_PKT_LEN_DW(0)]);
	/* l0 l1 h0 h1 and l2 l3 h2 h3 */
	const uint64x2_t a = vreinterpretq_u64_u32(vtrn1q_u32(p0, p1));
	const uint64x2_t b = vreinterpretq_u64_u32(vtrn1q_u32(p2, p3));

	*len = vandq_u32(vreinterpretq_u32_u64(vtrn1q_u64(a, b)),
			 vdupq_n_u32(MANA_RXCQE_PKT_LEN_MASK));
	*hash = vreinterpretq_u32_u64(vtrn2q_u64(a, b));
}

/*
 * The group at CQE cqe (owner bits of this lap: owner; the ring ends at
 * cq_end), if there is one: its lengths, hashes and dword 1; returns the
 * CQE after it (4 CQEs on: case A, 1: case B) or NULL. bs: buf_size in
 * every lane.
 */
static __rte_always_inline const struct gdma_cqe *
rxn_group(const struct gdma_cqe *cqe, const struct gdma_cqe *cq_end, uint32_t owner,
	  uint32x4_t bs, uint32x4_t *len, uint32x4_t *hash, uint32_t *dw1)
{
	const uint32_t *q = (const uint32_t *)cqe;
	const uint32_t own = owner << GDMA_CQE_OWNER_SHIFT;
	uint32x4_t want, x;
	uint32x4x3_t ppi;
	uint32_t type;

	if (GDMA_GET(__atomic_load_n(&q[RXN_INFO_DW], __ATOMIC_RELAXED), GDMA_CQE_OWNER) != owner)
		return NULL;
	rte_io_rmb();	/* the CQE body after its owner bits */
	type = GDMA_GET(q[0], MANA_CQE_TYPE);
	*dw1 = q[1];
	if (type == CQE_RX_COALESCED_4) {
		/* B: rows of length, dword between, hash (hardware.md §4.5) */
		ppi = vld3q_u32(&q[MANA_RXCQE_PKT_LEN_DW(0)]);
		*len = vandq_u32(ppi.val[0], vdupq_n_u32(MANA_RXCQE_PKT_LEN_MASK));
		*hash = ppi.val[2];
		return rxn_len_ok(*len, bs) ? cqe + 1 : NULL;
	}
	if (type != CQE_RX_OKAY || cq_end - cqe < 4)
		return NULL;
	/*
	 * A: the owner bits of CQEs 1..3 before their bodies (plain loads, as
	 * the x86 builds' gather: gcc 12 does not fold the offset into an
	 * atomic load's address, one more instruction each)
	 */
	if (((q[RXN_CQE_DW + RXN_INFO_DW] ^ own) | (q[2 * RXN_CQE_DW + RXN_INFO_DW] ^ own) |
	     (q[3 * RXN_CQE_DW + RXN_INFO_DW] ^ own)) >> GDMA_CQE_OWNER_SHIFT != 0)
		return NULL;
	rte_io_rmb();
	/* dwords 0 and 1 of each against CQE_RX_OKAY and the first's dword 1 */
	want = vcombine_u32(vcreate_u32((uint64_t)*dw1 << 32 | CQE_RX_OKAY), vcreate_u32(0));
	x = vorrq_u32(vorrq_u32(veorq_u32(vld1q_u32(&q[RXN_CQE_DW]), want),
				veorq_u32(vld1q_u32(&q[2 * RXN_CQE_DW]), want)),
		      veorq_u32(vld1q_u32(&q[3 * RXN_CQE_DW]), want));
	x = vandq_u32(x, vcombine_u32(vcreate_u32((uint64_t)UINT32_MAX << 32 | MANA_CQE_TYPE_MASK),
				      vcreate_u32(0)));
	if (vmaxvq_u32(x) != 0)
		return NULL;
	rxn_okay4_ppi(q, len, hash);
	return rxn_len_ok(*len, bs) ? cqe + 4 : NULL;
}

/* rx_vec_step_fn: groups while there are any (mana_rx_vec.h's rxv_run, in NEON). */
static __rte_noinline void
rxn_steps(const struct rx_burst_ctx *c, struct rx_burst_state *s, struct rte_mbuf **end)
{
	const uint32x4_t bs = vdupq_n_u32(c->buf_size);
	uint64x2_t rearm_ol = vcombine_u64(vcreate_u64(c->rearm), vcreate_u64(s->ol));
	uint32x4_t tci = vdupq_n_u32(s->tci_hi);
	uint32x4_t bytes = vdupq_n_u32(0), len, hash;
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
	/* the first group rxn_ptype left undecided */
	struct rte_mbuf **first_undecided = NULL;
	uint32_t owner = owner0, dw1, pkts, cqes;

	/* groups the burst room and the posted WQEs allow, and before sw_ring wraps */
	out_end = out + (RTE_MIN(RTE_MIN((uint32_t)(end - out), s->avail), c->mask + 1 - t) & ~3u);
	while (out != out_end) {
		next = rxn_group(cqe, cq_end, owner, bs, &len, &hash, &dw1);
		if (next == NULL)
			break;
		if (unlikely(dw1 != last_dw1)) {
			if (!rx_burst_dw1(c, s, dw1))
				break;
			last_dw1 = dw1;
			rearm_ol = vcombine_u64(vcreate_u64(c->rearm), vcreate_u64(s->ol));
			tci = vdupq_n_u32(s->tci_hi);
		}
		rxn_deliver4(buf_off, sw, out, len, hash, rearm_ol, tci, &first_undecided);
		/* Per lane at most 16 bits per group, at most 16384 groups: no overflow. */
		bytes = vaddq_u32(bytes, len);
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
		rxn_ptype_rest(buf_off, first_undecided, out);
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
	s->bytes += vaddlvq_u32(bytes);
}

/*
 * The step, out of line: inlined into rx_burst_frame, with the scalar
 * loop's values around it, the group's values would live on the stack.
 */
static __rte_always_inline void
rx_neon_step(const struct rx_burst_ctx *c, struct rx_burst_state *s, struct rte_mbuf **end)
{
	rxn_steps(c, s, end);
}

uint16_t
mana_rx_burst_db_neon(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db)
{
	return rx_burst_frame(rxq, pkts, n, db, rx_neon_step);
}

/* The primary's entry point: the queue's gate held around the burst (mana_qgate.h). */
uint16_t
mana_rx_burst_neon(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_rxq *rxq = q;
	uint16_t nb;

	if (unlikely(!mana_qgate_enter(rxq->gate)))
		return 0;
	nb = rx_burst_frame(rxq, pkts, n, rxq->db_page, rx_neon_step);
	mana_qgate_leave(rxq->gate);
	return nb;
}
