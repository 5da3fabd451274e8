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
 * VLAN (doc/design.md, "Receive"): the device always strips an outer 802.1Q tag
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

#include "mana_rx_fast.h"

/*
 * ol_flags by CQE dword 1 bits 25..30 (IP ok/bad, TCP ok/bad, UDP ok/bad,
 * index bits 0..5), bit 14 (outer IP bad, index bit 6) and bit 12 (VLAN
 * stripped, index bit 7). "Good" wins over "bad" as in the bit tests it
 * replaces.
 */
uint64_t mana_rx_ol_table[256];

/* Packet type of untagged option-less unfragmented IPv4 by protocol (one load in the fast path). */
uint32_t mana_rx_ipv4_ptype[256];

static void __attribute__((constructor))
rx_tables_init(void)
{
	uint32_t i;
	uint64_t ol;

	for (i = 0; i < RTE_DIM(mana_rx_ol_table); i++) {
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
		mana_rx_ol_table[i] = ol;
		mana_rx_ipv4_ptype[i] = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			(i == IPPROTO_TCP ? RTE_PTYPE_L4_TCP :
			 i == IPPROTO_UDP ? RTE_PTYPE_L4_UDP : 0);
	}
}

#ifdef MANA_HAVE_VEC
#define RXV_X4(v)		{ (v), (v), (v), (v) }
#define RXV_CQE_DW(dw)		{ (dw), 16 + (dw), 32 + (dw), 48 + (dw) }
_Static_assert(GDMA_CQE_SIZE == 64, "16 dwords per CQE");

const struct mana_rxv_consts mana_rxv_k = {
	.type_mask = RXV_X4(MANA_CQE_TYPE_MASK),
	.okay = RXV_X4(CQE_RX_OKAY),
	.len_mask = RXV_X4(MANA_RXCQE_PKT_LEN_MASK),
	.eth_ip_mask = RXV_X4(0xFFFFFF),
	.eth_ip = RXV_X4(0x450008),
	.frag_mask = RXV_X4(RTE_BE16(0x3FFF)),
	.min_len = RXV_X4(RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) - 1),
	.tcp = RXV_X4(IPPROTO_TCP),
	.udp = RXV_X4(IPPROTO_UDP),
	.pt_ip4 = RXV_X4(RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4),
	.pt_tcp = RXV_X4(RTE_PTYPE_L4_TCP),
	.pt_udp = RXV_X4(RTE_PTYPE_L4_UDP),
	.ix_info = RXV_CQE_DW(15),
	.ix_dw0 = RXV_CQE_DW(0),
	.ix_dw1 = RXV_CQE_DW(1),
	.ix_len = RXV_CQE_DW(MANA_RXCQE_PKT_LEN_DW(0)),
	.ix_hash = RXV_CQE_DW(MANA_RXCQE_PKT_HASH_DW(0)),
	.ix_clen = { MANA_RXCQE_PKT_LEN_DW(0), MANA_RXCQE_PKT_LEN_DW(1), MANA_RXCQE_PKT_LEN_DW(2),
		     MANA_RXCQE_PKT_LEN_DW(3) },
	.ix_chash = { MANA_RXCQE_PKT_HASH_DW(0), MANA_RXCQE_PKT_HASH_DW(1),
		      MANA_RXCQE_PKT_HASH_DW(2), MANA_RXCQE_PKT_HASH_DW(3) },
};
#endif

/* L4 packet type of an unfragmented IP packet by protocol number. */
static const uint32_t rx_l4_ptype[256] = {
	[IPPROTO_TCP] = RTE_PTYPE_L4_TCP,
	[IPPROTO_UDP] = RTE_PTYPE_L4_UDP,
};

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
uint32_t
mana_rx_post_lookup(struct mana_rxq *rxq, uint32_t n)
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

/* Packet type from the frame itself: Ethernet, VLAN/QinQ, IPv4/IPv6, TCP/UDP/fragment. */
__rte_noinline uint32_t
mana_rx_parse_ptype(const uint8_t *p, uint32_t len)
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
		m->packet_type = mana_rx_parse_ptype(p, m->data_len);
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
__rte_noinline void
mana_rx_cqe_slow(struct mana_rxq *rxq, const struct gdma_cqe *cqe, uint32_t first)
{
	if (!mana_rx_cqe_pend(rxq, cqe, first))
		rx_drop_one(rxq);
}

/*
 * Deliver pending packets of a coalesced CQE (or of a CQE whose tag goes back
 * into the data), counted in the queue statistics here (the burst's own
 * counters stay in registers); returns the number delivered.
 */
__rte_noinline uint16_t
mana_rx_pending(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n)
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

uint16_t
mana_rx_burst_db(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db)
{
	return rx_burst_frame(rxq, pkts, n, db, NULL);
}

/* The primary's entry point: the queue's gate held around the burst (mana_qgate.h). */
uint16_t
mana_rx_burst(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_rxq *rxq = q;
	uint16_t nb;

	if (unlikely(!mana_qgate_enter(rxq->gate)))
		return 0;
	nb = rx_burst_frame(rxq, pkts, n, rxq->db_page, NULL);
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

/* rearm_data of a received mbuf: data_off, refcnt 1, nb_segs 1, port. */
uint64_t
mana_rx_rearm_template(uint16_t data_off, uint16_t port)
{
	struct rte_mbuf mb;

	memset(&mb, 0, sizeof(mb));
	mb.data_off = data_off;
	mb.nb_segs = 1;
	mb.port = port;
	rte_mbuf_refcnt_set(&mb, 1);
	return *(uint64_t *)RTE_PTR_ADD(&mb, offsetof(struct rte_mbuf, rearm_data));
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
		if (gdma_cqe_owner_state(__atomic_load_n(&cqe->info, __ATOMIC_RELAXED),
					 c >> shift) != GDMA_CQE_NEW)
			break;
		rte_io_rmb();	/* the CQE body after its owner bits (hardware.md §18 #8) */
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
