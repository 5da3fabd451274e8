/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * What makes a TSO packet expressible as an LSO WQE (hardware.md §3.5):
 * shared by the burst (mana_tx.c), which stops at a packet that fails it,
 * and by tx_prepare (mana_tx_prepare.c), which checks more.
 */

#ifndef MANA_TX_LSO_H
#define MANA_TX_LSO_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "mana_ethdev.h"

/* The frame at l2 carries an 802.1Q tag (the device's reading, hardware.md §3.5). */
static inline bool
mana_tx_frame_tagged(const uint8_t *l2)
{
	return ((uint32_t)l2[12] << 8 | l2[13]) == RTE_ETHER_TYPE_VLAN;
}

/*
 * Can m (RTE_MBUF_F_TX_TCP_SEG) be posted as an LSO WQE the device accepts
 * as well formed (hardware.md §3.5)? Reads the mbuf's fields and the header
 * lengths the packet itself states (802.1Q tag, IPv4 IHL, TCP data offset);
 * sets *nsge, the SGE count. tx_prepare checks more.
 */
static inline enum mana_tx_prep_reason
mana_tx_lso_layout(const struct mana_txq *txq, const struct rte_mbuf *m, uint32_t *nsge)
{
	uint64_t ip = m->ol_flags & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6);
	uint32_t hdr = m->l2_len + m->l3_len + m->l4_len;
	const uint8_t *l2, *tcp;

	if (m->tso_segsz == 0 || m->tso_segsz > GDMA_LSO_MAX_MSS)
		return MANA_TX_PREP_MSS;
	if (ip == 0 || ip == (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6))
		return MANA_TX_PREP_L3;
	if (m->l4_len < sizeof(struct rte_tcp_hdr))
		return MANA_TX_PREP_L4;
	if (hdr > GDMA_LSO_MAX_HDR)
		return MANA_TX_PREP_HDR_LEN;
	if (hdr > m->data_len)
		return MANA_TX_PREP_HDR_SPLIT;
	if (m->pkt_len <= hdr || m->pkt_len > MANA_TSO_MAX_LEN)
		return MANA_TX_PREP_LEN;
	/*
	 * SGE 0 must be exactly the headers, as the device parses them: Ethernet
	 * with at most one 802.1Q tag, an IPv4 header as long as its IHL, a TCP
	 * header as long as its data offset.
	 */
	l2 = rte_pktmbuf_mtod(m, const uint8_t *);
	tcp = l2 + m->l2_len + m->l3_len;
	if (m->l2_len != RTE_ETHER_HDR_LEN + (mana_tx_frame_tagged(l2) ? RTE_VLAN_HLEN : 0) ||
	    (uint32_t)(tcp[12] >> 4) * 4 != m->l4_len ||
	    (ip == RTE_MBUF_F_TX_IPV4 && (l2[m->l2_len] >> 4) == 4 &&
	     (uint32_t)(l2[m->l2_len] & 0xF) * 4 != m->l3_len))
		return MANA_TX_PREP_HDR_BAD;
	*nsge = m->nb_segs + (m->data_len > hdr);
	if (*nsge > txq->max_sge)
		return MANA_TX_PREP_SEGS;
	return MANA_TX_PREP_OK;
}

#endif /* MANA_TX_LSO_H */
