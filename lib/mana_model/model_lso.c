/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * LSO: an SQ WQE with client_oob_in_sgl = 1 (hardware.md §3.5 "[model
 * policy]"). SGE 0 holds exactly the Ethernet, IP and TCP headers and
 * last_vbytes says how long they are; SGEs 1.. hold the payload; the MSS is
 * client_data_unit. The device sends ceil(payload / MSS) frames, each the
 * headers with the next MSS payload bytes, fixed up as Linux's software GSO
 * would, and completes the WQE with one CQE.
 *
 * The checks run in the order of the table of §3.5 (the checks every SQ WQE
 * passes, model_tx.c, come first). SGE memory (§14 #18) is checked after the
 * rows that need only the SGL itself and before the headers are read: the
 * device cannot read headers an SGE does not reach. What the table leaves
 * open is decided as hardware.md §3.5 lists it ("What the table leaves
 * open"). vendor_err: one model code per reason, below.
 */

#include <stdio.h>
#include <string.h>

#include "model_priv.h"

enum mm_lso_verr {
	MM_VERR_LSO_NSGE = 0x30,	/* 42: fewer than 2 SGEs */
	MM_VERR_LSO_VBYTES,		/* 42: last_vbytes is not SGE 0's size */
	MM_VERR_LSO_NO_PAYLOAD,		/* 42: SGEs 1.. hold no byte */
	MM_VERR_LSO_HDR_SHORT,		/* 42: SGE 0 ends inside the headers */
	MM_VERR_LSO_HDR_LONG,		/* 42: SGE 0 holds payload after the TCP header */
	MM_VERR_LSO_MSS,		/* 35: client_data_unit 0 */
	MM_VERR_LSO_CSUM_BITS,		/* 35: checksum bits not TCP (+ IPv4 header) */
	MM_VERR_LSO_NOT_TCP,		/* 37: not IPv4/IPv6 + TCP */
	MM_VERR_LSO_IP_OPT,		/* 37: IPv4 header with options */
	MM_VERR_LSO_FRAGMENT,		/* 37: IPv4 fragment or IPv6 fragment header */
	MM_VERR_LSO_TRANS_OFF,		/* 37: trans_off is not the TCP offset */
	MM_VERR_LSO_SIZE,		/* 34: headers + payload over 65536 bytes */
	MM_VERR_LSO_MTU,		/* 34: a segment longer than the MTU allows */
	MM_VERR_LSO_VLAN,		/* 41: VLAN insertion into tagged headers */
};

#define LSO_MAX_SEND		65536u	/* Linux GSO_MAX_SIZE */
#define LSO_ETH_HLEN		14u
#define LSO_VLAN_HLEN		4u
#define LSO_ETH_P_8021Q		0x8100u
#define LSO_ETH_P_IPV4		0x0800u
#define LSO_ETH_P_IPV6		0x86DDu
#define LSO_IPV4_HLEN		20u
#define LSO_IPV6_HLEN		40u
#define IPPROTO_TCP_NUM		6u
#define TCP_HLEN_MIN		20u
#define TCP_FIN			0x01u
#define TCP_PSH			0x08u
#define TCP_CWR			0x80u

/* The headers of SGE 0 as parsed. */
struct mm_lso_hdr {
	bool tagged;		/* an 802.1Q tag in the headers */
	bool ipv4;
	uint32_t l3_off, l4_off, hlen;	/* hlen: up to the end of the TCP header */
	uint32_t gdma_verr;	/* 42 class: SGE 0 is not exactly the headers; 0 = fine */
	uint32_t hdr_verr;	/* 37 class: not headers the device segments; 0 = fine */
};

static inline uint32_t
rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline void
wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void
wr32(uint8_t *p, uint32_t v)
{
	wr16(p, v >> 16);
	wr16(p + 2, v);
}

/*
 * IPv6 extension headers the device walks to find TCP: hop-by-hop (0),
 * routing (43), destination options (60), each (len + 1) * 8 bytes. A
 * fragment header (44) is a fragment; anything else ends the walk.
 * Returns the TCP offset, or 0 with h's verdict set.
 */
static uint32_t
lso_parse_ipv6(const uint8_t *f, uint32_t n, struct mm_lso_hdr *h)
{
	uint32_t off = h->l3_off + LSO_IPV6_HLEN;
	uint32_t nh = f[h->l3_off + 6];

	while (nh == 0 || nh == 43 || nh == 60) {
		if (n < off + 8) {
			h->gdma_verr = MM_VERR_LSO_HDR_SHORT;
			return 0;
		}
		nh = f[off];
		off += ((uint32_t)f[off + 1] + 1) * 8;
	}
	if (nh == 44)
		h->hdr_verr = MM_VERR_LSO_FRAGMENT;
	else if (nh != IPPROTO_TCP_NUM)
		h->hdr_verr = MM_VERR_LSO_NOT_TCP;
	return h->hdr_verr != 0 ? 0 : off;
}

/* IPv4 without options, not a fragment; returns the TCP offset or 0. */
static uint32_t
lso_parse_ipv4(const uint8_t *f, struct mm_lso_hdr *h)
{
	const uint8_t *ip = f + h->l3_off;

	if ((ip[0] >> 4) != 4 || (ip[0] & 0xF) < 5)
		h->hdr_verr = MM_VERR_LSO_NOT_TCP;
	else if ((ip[0] & 0xF) != 5)
		h->hdr_verr = MM_VERR_LSO_IP_OPT;
	else if ((rd16(ip + 6) & 0x3FFF) != 0)		/* MF or a fragment offset */
		h->hdr_verr = MM_VERR_LSO_FRAGMENT;
	else if (ip[9] != IPPROTO_TCP_NUM)
		h->hdr_verr = MM_VERR_LSO_NOT_TCP;
	return h->hdr_verr != 0 ? 0 : h->l3_off + LSO_IPV4_HLEN;
}

/*
 * Parse the n bytes of SGE 0 as Ethernet [802.1Q] IPv4|IPv6 TCP. The
 * incoming IPv4 tot_len / IPv6 payload_len are not read: LSO headers carry 0
 * there (Linux) or the whole send's length (DPDK), and both are rewritten.
 */
static void
lso_parse(const uint8_t *f, uint32_t n, struct mm_lso_hdr *h)
{
	uint32_t et, doff;

	memset(h, 0, sizeof(*h));
	h->l3_off = LSO_ETH_HLEN;
	if (n < LSO_ETH_HLEN) {
		h->gdma_verr = MM_VERR_LSO_HDR_SHORT;
		return;
	}
	et = rd16(f + 12);
	if (et == LSO_ETH_P_8021Q) {
		h->tagged = true;
		h->l3_off += LSO_VLAN_HLEN;
		if (n < h->l3_off) {
			h->gdma_verr = MM_VERR_LSO_HDR_SHORT;
			return;
		}
		et = rd16(f + 16);
	}
	if (et != LSO_ETH_P_IPV4 && et != LSO_ETH_P_IPV6) {
		h->hdr_verr = MM_VERR_LSO_NOT_TCP;
		return;
	}
	h->ipv4 = et == LSO_ETH_P_IPV4;
	if (n < h->l3_off + (h->ipv4 ? LSO_IPV4_HLEN : LSO_IPV6_HLEN)) {
		h->gdma_verr = MM_VERR_LSO_HDR_SHORT;
		return;
	}
	if (!h->ipv4 && (f[h->l3_off] >> 4) != 6) {
		h->hdr_verr = MM_VERR_LSO_NOT_TCP;
		return;
	}
	h->l4_off = h->ipv4 ? lso_parse_ipv4(f, h) : lso_parse_ipv6(f, n, h);
	if (h->l4_off == 0)
		return;
	if (n < h->l4_off + TCP_HLEN_MIN) {
		h->gdma_verr = MM_VERR_LSO_HDR_SHORT;
		return;
	}
	doff = (uint32_t)(f[h->l4_off + 12] >> 4) * 4;
	if (doff < TCP_HLEN_MIN) {
		h->hdr_verr = MM_VERR_LSO_NOT_TCP;
		return;
	}
	h->hlen = h->l4_off + doff;
	if (n != h->hlen)
		h->gdma_verr = n < h->hlen ? MM_VERR_LSO_HDR_SHORT : MM_VERR_LSO_HDR_LONG;
}

/* The table of hardware.md §3.5, in its order; returns a CQE type. */
static uint32_t
lso_check(struct mana_model *m, struct mm_qp *qp, struct mm_tx_wqe *w,
	  const uint8_t *sge_data[], struct mm_lso_hdr *h, uint32_t *payload)
{
	const struct gdma_sge *sge0 = mm_tx_sge(qp, w, 0);
	struct mm_engine *e = mm_sq_eng(m, qp);
	uint32_t oob0 = w->oob[0], mss = GDMA_GET(w->dw1, GDMA_WQE_CLIENT_DATA_UNIT);
	bool inject = w->oob_size == GDMA_OOB_SIZE_LARGE &&
		      GDMA_GET(w->oob[2], MANA_TX_INJECT_VLAN) != 0;
	uint64_t total = 0;
	uint32_t i, type, max, seg;

#define LSO_CORRUPT(code, ...) do {						\
	snprintf(e->tx_why, sizeof(e->tx_why), __VA_ARGS__);			\
	w->verr = (code);							\
	w->why = e->tx_why;							\
	return CQE_TX_GDMA_ERR;							\
} while (0)

	if (w->nsge < GDMA_LSO_MIN_SGE)
		LSO_CORRUPT(MM_VERR_LSO_NSGE, "LSO WQE with %u SGE(s); it needs the headers in "
			    "SGE 0 and the payload in SGEs 1.. (hardware.md §3.5)", w->nsge);
	if (GDMA_GET(w->dw0, GDMA_WQE_LAST_VBYTES) != sge0->size)
		LSO_CORRUPT(MM_VERR_LSO_VBYTES, "LSO WQE whose last_vbytes %u is not SGE 0's size "
			    "%u (hardware.md §3.5)", GDMA_GET(w->dw0, GDMA_WQE_LAST_VBYTES),
			    sge0->size);
	for (i = 1; i < w->nsge; i++)
		total += mm_tx_sge(qp, w, i)->size;
	if (total == 0)
		LSO_CORRUPT(MM_VERR_LSO_NO_PAYLOAD, "LSO WQE whose SGEs 1..%u hold no payload "
			    "(hardware.md §3.5)", w->nsge - 1);
	for (i = 0; i < w->nsge; i++) {
		type = mm_tx_sge_map(m, qp, w, mm_tx_sge(qp, w, i), &sge_data[i]);
		if (type != CQE_TX_OKAY)
			return type;
	}
	lso_parse(sge_data[0], sge0->size, h);
	if (h->gdma_verr == MM_VERR_LSO_HDR_SHORT)
		LSO_CORRUPT(h->gdma_verr, "LSO WQE whose SGE 0 (%u bytes) ends inside the "
			    "headers; SGE 0 holds exactly Ethernet + IP + TCP (hardware.md §3.5)",
			    sge0->size);
	if (h->gdma_verr == MM_VERR_LSO_HDR_LONG)
		LSO_CORRUPT(h->gdma_verr, "LSO WQE whose SGE 0 (%u bytes) holds %u payload bytes "
			    "after %u bytes of headers; SGE 0 holds exactly the headers "
			    "(hardware.md §3.5)", sge0->size, sge0->size - h->hlen, h->hlen);
#undef LSO_CORRUPT
	if (mss == 0)
		return w->verr = MM_VERR_LSO_MSS, CQE_TX_INVALID_OOB;
	if (GDMA_GET(oob0, MANA_TX_COMP_TCP_CSUM) == 0 ||
	    GDMA_GET(oob0, MANA_TX_COMP_UDP_CSUM) != 0 ||
	    (h->ipv4 && GDMA_GET(oob0, MANA_TX_COMP_IPHDR_CSUM) == 0))
		return w->verr = MM_VERR_LSO_CSUM_BITS, CQE_TX_INVALID_OOB;
	if (h->hdr_verr != 0)
		return w->verr = h->hdr_verr, CQE_TX_HDR_PROCESSING_ERROR;
	if (GDMA_GET(w->oob[1], MANA_TX_TRANS_OFF) != h->l4_off)
		return w->verr = MM_VERR_LSO_TRANS_OFF, CQE_TX_HDR_PROCESSING_ERROR;
	if (h->hlen + total > LSO_MAX_SEND)
		return w->verr = MM_VERR_LSO_SIZE, CQE_TX_MTU_DROP;
	/* The first segment is the longest. */
	max = mm_port_max_frame(m, qp->port);	/* hardware.md §19 */
	seg = h->hlen + (total < mss ? (uint32_t)total : mss) + (inject ? LSO_VLAN_HLEN : 0);
	if (seg > max)
		return w->verr = MM_VERR_LSO_MTU, CQE_TX_MTU_DROP;
	if (inject && h->tagged)
		return w->verr = MM_VERR_LSO_VLAN, CQE_TX_VLAN_TAGGING_VIOLATION;
	*payload = (uint32_t)total;
	return CQE_TX_OKAY;
}

/*
 * Fix up segment i (its headers at f, TCP payload len bytes after them) as
 * hardware.md §3.5 says: IP length, IPv4 id and checksum, TCP seq, flags and
 * checksum.
 */
static void
lso_fixup(uint8_t *f, const struct mm_lso_hdr *h, uint32_t i, uint32_t mss, uint32_t len,
	  bool last)
{
	uint8_t *ip = f + h->l3_off, *tcp = f + h->l4_off;
	uint32_t ip_len = h->hlen - h->l3_off + len, tcp_len = h->hlen - h->l4_off + len;
	uint32_t flags = tcp[13];

	if (h->ipv4) {
		wr16(ip + 2, ip_len);
		wr16(ip + 4, rd16(ip + 4) + i);		/* mod 2^16 */
		wr16(ip + 10, 0);
		wr16(ip + 10, (uint16_t)~mm_csum_fold(mm_csum_partial(ip, LSO_IPV4_HLEN, 0)));
	} else {
		wr16(ip + 4, ip_len - LSO_IPV6_HLEN);	/* extension headers included */
	}
	wr32(tcp + 4, rd32(tcp + 4) + i * mss);
	if (!last)
		flags &= ~(TCP_FIN | TCP_PSH);
	if (i != 0)
		flags &= ~TCP_CWR;
	tcp[13] = (uint8_t)flags;
	/*
	 * The field holds the seed (the pseudo header with length 0): the sum
	 * over the TCP header includes it; the segment's TCP length is added.
	 */
	wr16(tcp + 16, (uint16_t)~mm_csum_fold(mm_csum_partial(tcp, tcp_len, tcp_len)));
}

/* Insert the long OOB's 802.1Q tag: the untagged frame is at f + 4, the result at f. */
static void
lso_tag(uint8_t *f, const struct mm_tx_wqe *w)
{
	uint32_t tci = GDMA_GET(w->oob[2], MANA_TX_PCP) << 13 |
		       GDMA_GET(w->oob[2], MANA_TX_DEI) << 12 |
		       GDMA_GET(w->oob[2], MANA_TX_VLAN_ID);

	memmove(f, f + LSO_VLAN_HLEN, 12);
	wr16(f + 12, LSO_ETH_P_8021Q);
	wr16(f + 14, tci);
}

uint32_t
mm_lso_send(struct mana_model *m, struct mm_qp *qp, struct mm_tx_wqe *w)
{
	const uint8_t *sge_data[GDMA_MAX_TX_SGE];
	uint32_t mss = GDMA_GET(w->dw1, GDMA_WQE_CLIENT_DATA_UNIT);
	bool inject = w->oob_size == GDMA_OOB_SIZE_LARGE &&
		      GDMA_GET(w->oob[2], MANA_TX_INJECT_VLAN) != 0;
	/* The untagged segment is built after room for a tag (lso_tag). */
	struct mm_engine *e = mm_sq_eng(m, qp);
	uint8_t *f = e->txbuf + LSO_VLAN_HLEN;
	uint32_t payload = 0, left, i, k = 1, at = 0, type;
	struct mm_lso_hdr h;

	type = lso_check(m, qp, w, sge_data, &h, &payload);
	if (type != CQE_TX_OKAY)
		return type;
	left = payload;
	for (i = 0; left != 0; i++) {
		uint32_t len = left < mss ? left : mss, got = 0;

		memcpy(f, sge_data[0], h.hlen);
		/* The next len bytes of SGEs 1.., from SGE k at offset at. */
		while (got < len) {
			uint32_t size = mm_tx_sge(qp, w, k)->size, n = size - at;

			if (n > len - got)
				n = len - got;
			memcpy(f + h.hlen + got, sge_data[k] + at, n);
			got += n;
			at += n;
			if (at == size) {
				k++;
				at = 0;
			}
		}
		left -= len;
		lso_fixup(f, &h, i, mss, len, left == 0);
		if (inject)
			lso_tag(e->txbuf, w);
		mm_tx_emit(m, qp, inject ? e->txbuf : f,
			   h.hlen + len + (inject ? LSO_VLAN_HLEN : 0));
	}
	qp->ep->st.tx_lso_wqes++;
	qp->ep->st.tx_lso_segments += i;
	return CQE_TX_OKAY;
}
