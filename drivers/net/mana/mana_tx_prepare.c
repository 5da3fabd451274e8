/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * tx_pkt_prepare: refuses, before tx_burst, what the device would not do or
 * would fail (segment count, offload flags, TSO on a queue not configured
 * for it, and for TSO the MSS, the headers and the lengths of hardware.md
 * §3.5), then seeds the checksum fields with
 * rte_net_intel_cksum_prepare(). Each refusal sets rte_errno (EINVAL: the
 * request is malformed or over a limit; ENOTSUP: the device cannot do it),
 * counts in the queue's counter of its reason (xstats tx_qN_prep_refused,
 * tx_prep_<reason>) and, at debug level of pmd.net.mana.tx, logs one line
 * saying why.
 */

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_net.h>
#include <rte_tcp.h>

#include "mana_ethdev.h"
#include "mana_logs.h"
#include "mana_tx_lso.h"

const char * const mana_tx_prep_names[MANA_TX_PREP_NB] = {
	[MANA_TX_PREP_SEGS] = "segs",
	[MANA_TX_PREP_OFFLOAD] = "offload",
	[MANA_TX_PREP_FLAGS] = "flags",
	[MANA_TX_PREP_L2L3_LEN] = "l2l3_len",
	[MANA_TX_PREP_HDR_SPLIT] = "hdr_split",
	[MANA_TX_PREP_MSS] = "tso_mss",
	[MANA_TX_PREP_MSS_MTU] = "tso_mss_mtu",
	[MANA_TX_PREP_HDR_LEN] = "tso_hdr_len",
	[MANA_TX_PREP_HDR_BAD] = "tso_hdr_bad",
	[MANA_TX_PREP_L3] = "tso_l3",
	[MANA_TX_PREP_IP_OPT] = "tso_ip_opt",
	[MANA_TX_PREP_L4] = "tso_not_tcp",
	[MANA_TX_PREP_LEN] = "tso_len",
};

/* EINVAL: the request is malformed or over a limit; ENOTSUP: the device cannot do it. */
static const int tx_prep_errno[MANA_TX_PREP_NB] = {
	[MANA_TX_PREP_SEGS] = EINVAL,
	[MANA_TX_PREP_OFFLOAD] = ENOTSUP,
	[MANA_TX_PREP_FLAGS] = EINVAL,
	[MANA_TX_PREP_L2L3_LEN] = EINVAL,
	[MANA_TX_PREP_HDR_SPLIT] = ENOTSUP,
	[MANA_TX_PREP_MSS] = EINVAL,
	[MANA_TX_PREP_MSS_MTU] = EINVAL,
	[MANA_TX_PREP_HDR_LEN] = ENOTSUP,
	[MANA_TX_PREP_HDR_BAD] = EINVAL,
	[MANA_TX_PREP_L3] = EINVAL,
	[MANA_TX_PREP_IP_OPT] = ENOTSUP,
	[MANA_TX_PREP_L4] = EINVAL,
	[MANA_TX_PREP_LEN] = EINVAL,
};

/*
 * The largest frame an LSO packet m puts on the wire (an inserted tag
 * included), and in *max the longest the MTU allows: MTU + 18, tagged or
 * not (hardware.md §3.5, §19).
 */
static uint32_t
tx_lso_wire_seg(const struct mana_txq *txq, const struct rte_mbuf *m, uint32_t *max)
{
	uint32_t hdr = m->l2_len + m->l3_len + m->l4_len;
	uint32_t seg = hdr + RTE_MIN((uint32_t)m->tso_segsz, m->pkt_len - hdr);
	bool insert = (m->ol_flags & RTE_MBUF_F_TX_VLAN) != 0;

	*max = txq->priv->dev_data->mtu + MANA_L2_OVERHEAD;
	return seg + (insert ? RTE_VLAN_HLEN : 0);
}

/* One debug line: why m was refused, with the values that made it so. */
static void
tx_prep_log(const struct mana_txq *txq, const struct rte_mbuf *m, enum mana_tx_prep_reason r)
{
	uint32_t hdr = m->l2_len + m->l3_len + m->l4_len;
	uint32_t nsge = m->nb_segs + ((m->ol_flags & RTE_MBUF_F_TX_TCP_SEG) && m->data_len > hdr);
	uint32_t max = 0, seg;
	char why[160];

	switch (r) {
	case MANA_TX_PREP_SEGS:
		snprintf(why, sizeof(why), "%u SGEs needed (%u segments%s), at most %u", nsge,
			 m->nb_segs, nsge > m->nb_segs ? ", headers and payload in the first" :
			 "", txq->max_sge);
		break;
	case MANA_TX_PREP_OFFLOAD:
		if ((m->ol_flags & RTE_MBUF_F_TX_TCP_SEG) &&
		    !(txq->offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO))
			snprintf(why, sizeof(why), "RTE_MBUF_F_TX_TCP_SEG on a queue configured "
				 "without RTE_ETH_TX_OFFLOAD_TCP_TSO");
		else
			snprintf(why, sizeof(why), "offload flags 0x%" PRIx64 " not offered "
				 "(allowed: IPv4/IPv6, IP, TCP and UDP checksums, VLAN insertion, "
				 "TCP segmentation)",
				 (uint64_t)(m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK));
		break;
	case MANA_TX_PREP_FLAGS:
		snprintf(why, sizeof(why), "offload flags and lengths inconsistent "
			 "(rte_validate_tx_offload)");
		break;
	case MANA_TX_PREP_L2L3_LEN:
		snprintf(why, sizeof(why), "l2_len + l3_len = %u, at most %u",
			 m->l2_len + m->l3_len, MANA_TX_TRANS_OFF_MASK);
		break;
	case MANA_TX_PREP_HDR_SPLIT:
		snprintf(why, sizeof(why), "the offloads' headers (%u bytes) are not all in the "
			 "first segment (%u bytes)", hdr, m->data_len);
		break;
	case MANA_TX_PREP_MSS:
		snprintf(why, sizeof(why), "TSO: tso_segsz %u, allowed 1..%u", m->tso_segsz,
			 GDMA_LSO_MAX_MSS);
		break;
	case MANA_TX_PREP_MSS_MTU:
		seg = tx_lso_wire_seg(txq, m, &max);
		snprintf(why, sizeof(why), "TSO: %u-byte segments (%u bytes of headers, "
			 "tso_segsz %u) exceed the %u bytes MTU %u allows", seg, hdr,
			 m->tso_segsz, max, txq->priv->dev_data->mtu);
		break;
	case MANA_TX_PREP_HDR_LEN:
		snprintf(why, sizeof(why), "TSO: headers of %u bytes (l2_len + l3_len + l4_len), "
			 "at most %u", hdr, GDMA_LSO_MAX_HDR);
		break;
	case MANA_TX_PREP_HDR_BAD:
		snprintf(why, sizeof(why), "TSO: l2_len %u / l3_len %u / l4_len %u are not the "
			 "lengths of the packet's Ethernet, IP and TCP headers", m->l2_len,
			 m->l3_len, m->l4_len);
		break;
	case MANA_TX_PREP_L3:
		snprintf(why, sizeof(why), "TSO: needs exactly one of RTE_MBUF_F_TX_IPV4 and "
			 "RTE_MBUF_F_TX_IPV6 matching the packet, and no IP fragment");
		break;
	case MANA_TX_PREP_IP_OPT:
		snprintf(why, sizeof(why), "TSO: IPv4 options or an IPv6 routing header (l3_len "
			 "%u); allowed: IPv4 of 20 bytes, IPv6 with hop-by-hop and destination "
			 "options headers", m->l3_len);
		break;
	case MANA_TX_PREP_L4:
		snprintf(why, sizeof(why), "TSO: not TCP (l4_len %u, at least 20; IP protocol "
			 "TCP; no UDP or SCTP checksum flag)", m->l4_len);
		break;
	case MANA_TX_PREP_LEN:
		snprintf(why, sizeof(why), "TSO: pkt_len %u with %u bytes of headers; allowed: "
			 "some payload, at most %u in all", m->pkt_len, hdr, MANA_TSO_MAX_LEN);
		break;
	default:
		snprintf(why, sizeof(why), "reason %d", r);
		break;
	}
	MANA_LOG(tx, DEBUG, "port %u TX queue %u: tx_prepare refuses a packet: %s",
		 txq->port_id, txq->queue_id, why);
}

/* Count and report refusal r of m; rte_errno says its kind. */
static __rte_noinline void
tx_prep_refuse(struct mana_txq *txq, const struct rte_mbuf *m, enum mana_tx_prep_reason r)
{
	txq->stats.prep[r]++;
	rte_errno = tx_prep_errno[r];
	if (rte_log_can_log(mana_logtype_tx, RTE_LOG_DEBUG))
		tx_prep_log(txq, m, r);
}

/*
 * TSO checks beyond what the burst needs (tx_lso_layout): the packet's own
 * IP and TCP headers, and segments within the MTU (hardware.md §3.5).
 */
static enum mana_tx_prep_reason
tx_prep_lso(const struct mana_txq *txq, const struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, m->l2_len);
	uint64_t l4 = m->ol_flags & RTE_MBUF_F_TX_L4_MASK;
	enum mana_tx_prep_reason r;
	uint32_t max, nsge, off, nh;

	r = mana_tx_lso_layout(txq, m, &nsge);
	if (r != MANA_TX_PREP_OK)
		return r;
	if (l4 != RTE_MBUF_F_TX_L4_NO_CKSUM && l4 != RTE_MBUF_F_TX_TCP_CKSUM)
		return MANA_TX_PREP_L4;
	if (m->ol_flags & RTE_MBUF_F_TX_IPV4) {
		if (m->l3_len < sizeof(struct rte_ipv4_hdr) || (ip[0] >> 4) != 4)
			return MANA_TX_PREP_L3;
		if ((uint32_t)(ip[0] & 0xF) * 4 != m->l3_len)
			return MANA_TX_PREP_HDR_BAD;
		if (m->l3_len != sizeof(struct rte_ipv4_hdr))
			return MANA_TX_PREP_IP_OPT;
		if ((((uint32_t)ip[6] << 8 | ip[7]) & 0x3FFF) != 0)	/* MF or an offset */
			return MANA_TX_PREP_L3;
		if (ip[9] != IPPROTO_TCP)
			return MANA_TX_PREP_L4;
	} else {
		if (m->l3_len < sizeof(struct rte_ipv6_hdr) || (ip[0] >> 4) != 6)
			return MANA_TX_PREP_L3;
		/*
		 * Extension headers the device walks (hop-by-hop, routing,
		 * destination options); a routing header is refused: the pseudo
		 * header would need its final destination (tx_lso_seed_ipv6).
		 */
		nh = ip[6];
		off = sizeof(struct rte_ipv6_hdr);
		while (nh == IPPROTO_HOPOPTS || nh == IPPROTO_DSTOPTS) {
			if (off + 8 > m->l3_len)
				return MANA_TX_PREP_HDR_BAD;
			nh = ip[off];
			off += ((uint32_t)ip[off + 1] + 1) * 8;
		}
		if (nh == IPPROTO_ROUTING)
			return MANA_TX_PREP_IP_OPT;
		if (nh == IPPROTO_FRAGMENT)
			return MANA_TX_PREP_L3;
		if (off != m->l3_len)
			return MANA_TX_PREP_HDR_BAD;
		if (nh != IPPROTO_TCP)
			return MANA_TX_PREP_L4;
	}
	if (tx_lso_wire_seg(txq, m, &max) > max)
		return MANA_TX_PREP_MSS_MTU;
	return MANA_TX_PREP_OK;
}

/*
 * The TCP checksum seed of an IPv6 TSO packet with extension headers:
 * rte_ipv6_phdr_cksum() takes the IPv6 header's next header (hop-by-hop,
 * destination options) for the pseudo header's protocol; it must be TCP.
 */
static void
tx_lso_seed_ipv6(struct rte_mbuf *m)
{
	struct rte_ipv6_hdr ip6 = *rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, m->l2_len);
	struct rte_tcp_hdr *tcp = rte_pktmbuf_mtod_offset(m, struct rte_tcp_hdr *,
							  m->l2_len + m->l3_len);

	ip6.proto = IPPROTO_TCP;
	tcp->cksum = rte_ipv6_phdr_cksum(&ip6, m->ol_flags);
}

uint16_t
mana_tx_prepare(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_txq *txq = q;
	enum mana_tx_prep_reason r;
	struct rte_mbuf *m;
	uint16_t i;
	int ret;

	for (i = 0; i < n; i++) {
		m = pkts[i];
		if ((m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK & ~MANA_TX_OL_FLAGS) ||
		    (m->ol_flags & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_SCTP_CKSUM)
			r = MANA_TX_PREP_OFFLOAD;
		else if ((m->ol_flags & RTE_MBUF_F_TX_TCP_SEG) &&
			 !(txq->offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO))
			r = MANA_TX_PREP_OFFLOAD;
		else if ((uint32_t)m->l2_len + m->l3_len > MANA_TX_TRANS_OFF_MASK)
			r = MANA_TX_PREP_L2L3_LEN;
		else if (m->ol_flags & RTE_MBUF_F_TX_TCP_SEG)
			r = tx_prep_lso(txq, m);
		else
			r = m->nb_segs > txq->max_sge ? MANA_TX_PREP_SEGS : MANA_TX_PREP_OK;
#ifdef RTE_ETHDEV_DEBUG_TX
		if (r == MANA_TX_PREP_OK && rte_validate_tx_offload(m) != 0)
			r = MANA_TX_PREP_FLAGS;
#endif
		/*
		 * Pseudo-header checksum into the TCP/UDP field (of length 0 for
		 * TCP_SEG: rte_ipv4/ipv6_phdr_cksum), IPv4 checksum zeroed with
		 * IP_CKSUM; it fails only on headers beyond the first segment.
		 */
		if (r == MANA_TX_PREP_OK) {
			ret = rte_net_intel_cksum_prepare(m);
			if (ret != 0)
				r = MANA_TX_PREP_HDR_SPLIT;
			else if ((m->ol_flags & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV6)) ==
				 (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV6) &&
				 m->l3_len > sizeof(struct rte_ipv6_hdr))
				tx_lso_seed_ipv6(m);
		}
		if (unlikely(r != MANA_TX_PREP_OK)) {
			tx_prep_refuse(txq, m, r);
			return i;
		}
	}
	return i;
}
