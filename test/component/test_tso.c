/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * TSO (RTE_ETH_TX_OFFLOAD_TCP_TSO) through the PMD on the software device:
 * large TCP packets sent by port 0 after rte_eth_tx_prepare() arrive at
 * port 1 (pair wire) as segments, each parsed here, independently of the
 * driver and of DPDK's checksum helpers: lengths, IPv4 id, TCP sequence and
 * flags, both checksums and the payload byte for byte (hardware.md §3.5).
 * IPv4, IPv6, VLAN insertion, chains of every layout (headers alone in the
 * first segment or with payload, payload spread over many segments, up to
 * the SGE limit), payloads not a multiple of the MSS. tx_prepare refuses bad
 * MSS, too many segments, headers beyond the first segment, non-TCP and
 * other malformed requests with rte_errno, a counter per reason and one
 * debug log line; tx_burst given such a packet without prepare stops at it
 * and the device writes no error completion. Every mbuf goes back.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_tcp.h>

#include "comp.h"

#define TSO_POOL_N	4096
#define TSO_BIG_N	64
#define TSO_BIG_ROOM	16384
#define TSO_MAX_FRAME	(65536 + 64)
#define TSO_MAX_SEGS	64	/* wire segments of one packet the checks take */
#define TSO_TX_OL	(RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_MULTI_SEGS | \
			 RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM | \
			 RTE_ETH_TX_OFFLOAD_VLAN_INSERT)
#define TCP_FIN		0x01
#define TCP_PSH		0x08
#define TCP_ACK		0x10
#define TCP_CWR		0x80

static struct rte_mempool *tso_pool, *tso_big;
static int tso_tx = -1, tso_rx = -1;

/* Ports of vdev net_mana_tso: 0 (TSO) <-> 1 (receiver, VLAN strip) on a pair wire. */
static int
tso_setup(void)
{
	struct comp_port_cfg tx = { .nb_rxq = 1, .nb_txq = 1, .tx_offloads = TSO_TX_OL };
	struct comp_port_cfg rx = {
		.nb_rxq = 1, .nb_txq = 1,
		.rx_offloads = RTE_ETH_RX_OFFLOAD_VLAN_STRIP | RTE_ETH_RX_OFFLOAD_CHECKSUM,
	};

	if (tso_tx >= 0)
		return 0;
	/* Port 1 has the MAC the frames go to: a vPort drops other unicast. */
	if (comp_vdev_create("net_mana_tso", "ports=2,wire=pair:1,wire=pair:0,"
			     "mac1=02:00:00:00:00:03") != 0)
		return -1;
	tso_pool = comp_pool("tso_pool", TSO_POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	tso_big = comp_pool("tso_big", TSO_BIG_N, RTE_PKTMBUF_HEADROOM + TSO_BIG_ROOM);
	tso_tx = comp_port_of("net_mana_tso", 0);
	tso_rx = comp_port_of("net_mana_tso", 1);
	if (tso_pool == NULL || tso_big == NULL || tso_tx < 0 || tso_rx < 0 ||
	    comp_port_start(tso_tx, &tx, tso_pool) != 0 ||
	    comp_port_start(tso_rx, &rx, tso_pool) != 0)
		return -1;
	/* The refusal reasons are debug lines of pmd.net.mana.tx. */
	rte_log_set_level_pattern("pmd.net.mana.tx", RTE_LOG_DEBUG);
	return 0;
}

/* ---- the packets ----------------------------------------------------------- */

/* A TCP packet to send with TSO. */
struct tso_pkt {
	bool ipv6;
	uint8_t tcp_opt;	/* bytes of TCP options, a multiple of 4 */
	uint32_t payload;
	uint16_t mss;
	uint16_t ip_id;
	uint32_t seq;
	uint8_t flags;		/* TCP flags of the packet */
	bool vlan;		/* VLAN insertion with tci */
	bool tagged;		/* the frame itself carries an 802.1Q tag with tci */
	uint16_t tci;
	uint8_t ext;		/* IPv6: bytes of extension headers (0, 8, or 8 + 8k) */
	bool ip_cksum_flag;	/* RTE_MBUF_F_TX_IP_CKSUM given (IPv4) */
	uint8_t seed;
};

static uint32_t
pkt_l2(const struct tso_pkt *p)
{
	return RTE_ETHER_HDR_LEN + (p->tagged ? RTE_VLAN_HLEN : 0);
}

static uint32_t
pkt_l3(const struct tso_pkt *p)
{
	return p->ipv6 ? 40 + p->ext : 20;
}

static uint32_t
pkt_hdr(const struct tso_pkt *p)
{
	return pkt_l2(p) + pkt_l3(p) + 20 + p->tcp_opt;
}

static void
wr16(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static void
wr32(uint8_t *b, uint32_t v)
{
	wr16(b, v >> 16);
	wr16(b + 2, v);
}

static uint32_t
rd16(const uint8_t *b)
{
	return (uint32_t)b[0] << 8 | b[1];
}

static uint32_t
rd32(const uint8_t *b)
{
	return rd16(b) << 16 | rd16(b + 2);
}

/*
 * The frame of p: IP length and checksums deliberately wrong (the device
 * must write them), TCP options a run of NOPs and a timestamp-like filler,
 * IPv6 extension headers a hop-by-hop header (8 bytes) and a destination
 * options header (the rest), padded with PadN.
 */
static uint32_t
pkt_build(uint8_t *f, const struct tso_pkt *p)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x03 };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	uint32_t l2 = pkt_l2(p), l3 = pkt_l3(p), hdr = pkt_hdr(p), len = hdr + p->payload, k;
	uint8_t *ip = f + l2, *tcp = ip + l3, *x;

	memset(f, 0, hdr);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	if (p->tagged) {
		wr16(f + 12, RTE_ETHER_TYPE_VLAN);
		wr16(f + 14, p->tci);
	}
	wr16(f + l2 - 2, p->ipv6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	if (p->ipv6) {
		wr32(ip, 6u << 28 | 0x12u << 20 | 0xABCDE);	/* traffic class, flow label */
		wr16(ip + 4, 0xFFFF);				/* wrong on purpose */
		ip[6] = p->ext != 0 ? IPPROTO_HOPOPTS : IPPROTO_TCP;
		ip[7] = 61;
		for (k = 0; k < 16; k++) {
			ip[8 + k] = (uint8_t)(0x20 + k);
			ip[24 + k] = (uint8_t)(0x90 + k);
		}
		if (p->ext != 0) {
			x = ip + 40;
			x[0] = p->ext > 8 ? IPPROTO_DSTOPTS : IPPROTO_TCP;
			x[1] = 0;
			x[2] = 1;				/* PadN */
			x[3] = 4;
		}
		if (p->ext > 8) {
			x = ip + 48;
			x[0] = IPPROTO_TCP;
			x[1] = (uint8_t)((p->ext - 8) / 8 - 1);
			x[2] = 1;
			x[3] = (uint8_t)(p->ext - 8 - 4);
		}
	} else {
		ip[0] = 0x45;
		ip[1] = 0x28;					/* DSCP/ECN kept */
		wr16(ip + 2, len & 0xFFFF);			/* any value: ignored */
		wr16(ip + 4, p->ip_id);
		wr16(ip + 6, 0x4000);				/* DF */
		ip[8] = 63;
		ip[9] = IPPROTO_TCP;
		wr16(ip + 10, 0xBEEF);				/* wrong on purpose */
		wr32(ip + 12, COMP_IPV4(198, 51, 100, 7));
		wr32(ip + 16, COMP_IPV4(203, 0, 113, 9));
	}
	wr16(tcp, 40000);
	wr16(tcp + 2, 443);
	wr32(tcp + 4, p->seq);
	wr32(tcp + 8, 0x11223344);
	tcp[12] = (uint8_t)((20 + p->tcp_opt) / 4) << 4;
	tcp[13] = p->flags;
	wr16(tcp + 14, 29200);
	wr16(tcp + 16, 0xD00D);					/* wrong on purpose */
	wr16(tcp + 18, 0);
	for (k = 0; k < p->tcp_opt; k++)
		tcp[20 + k] = k < 2 ? 1 : (uint8_t)(0x40 + k);	/* NOP NOP filler */
	for (k = hdr; k < len; k++)
		f[k] = (uint8_t)(p->seed + 13 * k + (k >> 8));
	return len;
}

/* Segments over the small pool's 2048 bytes come from the big pool. */
static struct rte_mbuf *
seg_from(const uint8_t *bytes, uint32_t n)
{
	return comp_mbuf_from(n > RTE_MBUF_DEFAULT_DATAROOM ? tso_big : tso_pool, bytes, n);
}

/* Chain len bytes of f: the first segment `first` bytes, the rest in chunks (0: one). */
static struct rte_mbuf *
pkt_chain(const uint8_t *f, uint32_t len, uint32_t first, uint32_t chunk)
{
	struct rte_mbuf *head, *seg;
	uint32_t off, n;

	head = seg_from(f, RTE_MIN(first, len));
	if (head == NULL)
		return NULL;
	for (off = first; off < len; off += n) {
		n = chunk == 0 ? len - off : RTE_MIN(chunk, len - off);
		seg = seg_from(f + off, n);
		if (seg == NULL || rte_pktmbuf_chain(head, seg) != 0) {
			rte_pktmbuf_free(seg);
			rte_pktmbuf_free(head);
			return NULL;
		}
	}
	return head;
}

/* The TSO request of p on m. */
static void
pkt_offload(struct rte_mbuf *m, const struct tso_pkt *p)
{
	m->l2_len = pkt_l2(p);
	m->l3_len = pkt_l3(p);
	m->l4_len = 20 + p->tcp_opt;
	m->tso_segsz = p->mss;
	m->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_TCP_CKSUM;
	if (p->ipv6)
		m->ol_flags |= RTE_MBUF_F_TX_IPV6;
	else
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | (p->ip_cksum_flag ? RTE_MBUF_F_TX_IP_CKSUM : 0);
	if (p->vlan) {
		m->ol_flags |= RTE_MBUF_F_TX_VLAN;
		m->vlan_tci = p->tci;
	}
}

/* ---- the far side's parser ---------------------------------------------------- */

/* One's-complement sum of n bytes (big-endian words), added to s, not folded. */
static uint32_t
sum16(const uint8_t *b, uint32_t n, uint32_t s)
{
	uint32_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += rd16(b + i);
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	return s;
}

static uint32_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return s;
}

/* The checksum over a segment is right when the sum with the field in it is 0xFFFF. */
static bool
tcp_csum_ok(const uint8_t *ip, bool v6, const uint8_t *tcp, uint32_t tcp_len)
{
	uint32_t s;

	if (v6)
		s = sum16(ip + 8, 32, 0) + (tcp_len >> 16) + (tcp_len & 0xFFFF) + IPPROTO_TCP;
	else
		s = sum16(ip + 12, 8, 0) + tcp_len + IPPROTO_TCP;
	return fold(sum16(tcp, tcp_len, s)) == 0xFFFF;
}

/*
 * Check the n frames received for p (frame f as built) against what the
 * device must make of it, segment by segment; what = the case's name.
 */
static void
check_segments(const char *what, const struct tso_pkt *p, const uint8_t *f,
	       struct rte_mbuf **rx, uint32_t n)
{
	static uint8_t b[16384];
	uint32_t fl2 = pkt_l2(p), l3 = pkt_l3(p), fhdr = pkt_hdr(p), want_n, i, pay, len, flags;
	/* Port 1 strips the tag: the frames arrive untagged. */
	uint32_t hdr = fhdr - (fl2 - RTE_ETHER_HDR_LEN);
	const uint8_t *fip = f + fl2, *ftcp = fip + l3, *ip, *tcp;
	bool tag = p->vlan || p->tagged;

	want_n = (p->payload + p->mss - 1) / p->mss;
	CHECK_MSG(n == want_n, "%s: %u segments on the wire, want %u", what, n, want_n);
	for (i = 0; i < RTE_MIN(n, want_n); i++) {
		pay = RTE_MIN((uint32_t)p->mss, p->payload - i * p->mss);
		len = rx[i]->pkt_len;
		if (!CHECK_MSG(len == hdr + pay, "%s: segment %u is %u bytes, want %u", what, i,
			       len, hdr + pay))
			continue;
		if (!CHECK(len <= sizeof(b)))
			continue;
		memcpy(b, rte_pktmbuf_read(rx[i], 0, len, b), len);
		ip = b + RTE_ETHER_HDR_LEN;
		tcp = ip + l3;
		CHECK_MSG(memcmp(b, f, 12) == 0 && memcmp(b + 12, fip - 2, 2) == 0,
			  "%s: segment %u: Ethernet header differs", what, i);
		if (tag) {
			CHECK_MSG((rx[i]->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) &&
				  rx[i]->vlan_tci == (p->tci & 0xFFF), "%s: segment %u: VLAN "
				  "flags 0x%" PRIx64 " tci 0x%x, want VLAN ID 0x%x", what, i,
				  rx[i]->ol_flags, rx[i]->vlan_tci, p->tci & 0xFFF);
		} else {
			CHECK_MSG(!(rx[i]->ol_flags & RTE_MBUF_F_RX_VLAN), "%s: segment %u "
				  "tagged", what, i);
		}
		if (p->ipv6) {
			CHECK_MSG(memcmp(ip, fip, 4) == 0 && memcmp(ip + 6, fip + 6, l3 - 6) == 0,
				  "%s: segment %u: IPv6 header fields differ", what, i);
			CHECK_MSG(rd16(ip + 4) == len - RTE_ETHER_HDR_LEN - 40, "%s: segment %u: "
				  "payload_len %u, want %u", what, i, rd16(ip + 4),
				  len - RTE_ETHER_HDR_LEN - 40);
		} else {
			CHECK_MSG(ip[0] == fip[0] && ip[1] == fip[1] && rd16(ip + 6) == 0x4000 &&
				  memcmp(ip + 8, fip + 8, 2) == 0 &&
				  memcmp(ip + 12, fip + 12, 8) == 0,
				  "%s: segment %u: IPv4 header fields differ", what, i);
			CHECK_MSG(rd16(ip + 2) == len - RTE_ETHER_HDR_LEN, "%s: segment %u: "
				  "total length %u, want %u", what, i, rd16(ip + 2),
				  len - RTE_ETHER_HDR_LEN);
			CHECK_MSG(rd16(ip + 4) == ((p->ip_id + i) & 0xFFFF), "%s: segment %u: "
				  "IPv4 id 0x%x, want 0x%x", what, i, rd16(ip + 4),
				  (p->ip_id + i) & 0xFFFF);
			CHECK_MSG(fold(sum16(ip, 20, 0)) == 0xFFFF, "%s: segment %u: IPv4 header "
				  "checksum 0x%04x wrong", what, i, rd16(ip + 10));
			CHECK_EQ(rx[i]->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK,
				 RTE_MBUF_F_RX_IP_CKSUM_GOOD);
		}
		CHECK_MSG(memcmp(tcp, ftcp, 4) == 0 && memcmp(tcp + 8, ftcp + 8, 5) == 0 &&
			  memcmp(tcp + 14, ftcp + 14, 2) == 0 &&
			  memcmp(tcp + 18, ftcp + 18, 2 + p->tcp_opt) == 0,
			  "%s: segment %u: TCP ports, ack, offset, window or options differ",
			  what, i);
		CHECK_MSG(rd32(tcp + 4) == p->seq + i * p->mss, "%s: segment %u: seq %u, want "
			  "%u", what, i, rd32(tcp + 4), p->seq + i * p->mss);
		flags = p->flags;
		if (i != want_n - 1)
			flags &= ~(TCP_FIN | TCP_PSH);
		if (i != 0)
			flags &= ~TCP_CWR;
		CHECK_MSG(tcp[13] == flags, "%s: segment %u: TCP flags 0x%02x, want 0x%02x",
			  what, i, tcp[13], flags);
		CHECK_MSG(tcp_csum_ok(ip, p->ipv6, tcp, len - RTE_ETHER_HDR_LEN - l3),
			  "%s: segment %u: TCP checksum 0x%04x wrong", what, i, rd16(tcp + 16));
		/* The receiver's parser stops at IPv6 extension headers (L4 unknown). */
		if (p->ext == 0)
			CHECK_EQ(rx[i]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK,
				 RTE_MBUF_F_RX_L4_CKSUM_GOOD);
		CHECK_MSG(memcmp(b + hdr, f + fhdr + i * p->mss, pay) == 0, "%s: segment %u: "
			  "payload differs at byte %zu", what, i,
			  check_memdiff(b + hdr, f + fhdr + i * p->mss, pay));
	}
}

/*
 * Send p laid out as (first, chunk) (first 0: one segment) through prepare
 * and tx_burst and check what port 1 receives.
 */
static void
tso_send_check(const char *what, const struct tso_pkt *p, uint32_t first, uint32_t chunk)
{
	static uint8_t f[TSO_MAX_FRAME];
	struct rte_mbuf *m, *rx[TSO_MAX_SEGS + 1];
	uint32_t len = pkt_build(f, p), want = (p->payload + p->mss - 1) / p->mss, got;

	m = pkt_chain(f, len, first == 0 ? len : first, chunk);
	if (!CHECK_MSG(m != NULL, "%s: no mbufs", what))
		return;
	pkt_offload(m, p);
	rte_errno = 0;
	if (!CHECK_MSG(rte_eth_tx_prepare(tso_tx, 0, &m, 1) == 1, "%s: tx_prepare refused "
		       "it: %s", what, rte_strerror(rte_errno))) {
		rte_pktmbuf_free(m);
		return;
	}
	if (!CHECK_MSG(comp_tx_all(tso_tx, 0, &m, 1, COMP_WAIT_MS) == 1, "%s: not sent", what)) {
		rte_pktmbuf_free(m);
		return;
	}
	/* The segments due, then a short wait for any extra one. */
	got = comp_rx_wait(tso_rx, 1, rx, RTE_DIM(rx), RTE_MIN(want, (uint32_t)TSO_MAX_SEGS),
			   COMP_WAIT_MS, NULL);
	got += comp_rx_wait(tso_rx, 1, rx + got, RTE_DIM(rx) - got, 1, 20, NULL);
	check_segments(what, p, f, rx, got);
	comp_free(rx, got);
}

static struct tso_pkt
pkt_default(bool ipv6, uint32_t payload, uint16_t mss)
{
	return (struct tso_pkt){
		.ipv6 = ipv6, .payload = payload, .mss = mss, .ip_id = 0x1000,
		.seq = 0xFFFFF000u, .flags = TCP_ACK | TCP_PSH | TCP_FIN | TCP_CWR,
		.ip_cksum_flag = true, .seed = (uint8_t)(payload + mss),
	};
}

/* ---- cases ---------------------------------------------------------------- */

/*
 * Single-segment packets: sizes around the MSS (the largest MTU 1500 allows:
 * 1448 for IPv4 with 12 bytes of TCP options, as Linux sends), options or
 * none, the IPv4 id and the TCP sequence wrapping within a packet.
 */
static void
tso_family(bool ipv6)
{
	static const int pay[] = { 1, -1, 0, 1, 1448, 4000, 10 * 1448, 16000 };
	struct tso_pkt p;
	char what[64];
	unsigned int i;
	uint16_t mss;

	REQUIRE_EQ(tso_setup(), 0);
	for (i = 0; i < RTE_DIM(pay); i++) {
		p = pkt_default(ipv6, 0, 0);
		p.tcp_opt = i & 1 ? 0 : 12;
		mss = 1500 - pkt_l3(&p) - 20 - p.tcp_opt;
		/* Entries 1..3: MSS - 1, MSS, MSS + 1; the others absolute. */
		p.payload = i >= 1 && i <= 3 ? (uint32_t)(mss + pay[i]) : (uint32_t)pay[i];
		p.mss = mss;
		if (pkt_hdr(&p) + p.payload > TSO_BIG_ROOM)
			p.payload = TSO_BIG_ROOM - pkt_hdr(&p);
		p.ip_id = (uint16_t)(0xFFFC + i);
		p.ip_cksum_flag = (i & 2) == 0;
		p.seed = (uint8_t)i;
		snprintf(what, sizeof(what), "%s payload %u mss %u", ipv6 ? "IPv6" : "IPv4",
			 p.payload, p.mss);
		tso_send_check(what, &p, 0, 0);
	}
	/* Small MSS: many segments. */
	p = pkt_default(ipv6, 3000, 100);
	tso_send_check(ipv6 ? "IPv6 mss 100" : "IPv4 mss 100", &p, 0, 0);
	if (!ipv6)
		return;
	/* Extension headers the device walks, counted in payload_len. */
	p = pkt_default(true, 5000, 1400);
	p.ext = 8;
	tso_send_check("IPv6 hop-by-hop", &p, 0, 0);
	p.ext = 32;
	tso_send_check("IPv6 hop-by-hop + destination options", &p, pkt_hdr(&p) + 10, 1000);
}

static void
test_ipv4(void)
{
	tso_family(false);
}

static void
test_ipv6(void)
{
	tso_family(true);
}

/* VLAN insertion: every segment tagged; the MSS limit stays MTU-sized. */
static void
test_vlan(void)
{
	struct tso_pkt p;

	REQUIRE_EQ(tso_setup(), 0);
	p = pkt_default(false, 10000, 1460);
	p.vlan = true;
	p.tci = 0xA123;
	tso_send_check("IPv4 VLAN 0x123 mss 1460", &p, 0, 0);
	p = pkt_default(true, 5001, 1440);
	p.vlan = true;
	p.tci = 0x0FFE;
	tso_send_check("IPv6 VLAN 0xFFE mss 1440", &p, 0, 0);
	p = pkt_default(false, 7000, 1448);
	p.vlan = true;
	p.tci = 7;
	tso_send_check("IPv4 VLAN chained", &p, 54 + 100, 1024);
	/* The frame's own tag: l2_len 18, the same MSS (the MTU allows 4 more bytes). */
	p = pkt_default(false, 6000, 1460);
	p.tagged = true;
	p.tci = 0x2345;
	tso_send_check("IPv4 tagged frame", &p, 0, 0);
	p = pkt_default(true, 6000, 1440);
	p.tagged = true;
	p.tci = 0x0001;
	tso_send_check("IPv6 tagged frame", &p, 78, 2000);
}

/* Chains: headers alone in seg 0, with payload, payload over many segments. */
static void
test_multiseg(void)
{
	struct tso_pkt p;
	uint32_t hdr;

	REQUIRE_EQ(tso_setup(), 0);
	p = pkt_default(false, 20000, 1448);
	hdr = pkt_hdr(&p);
	tso_send_check("headers alone, 2000-byte segments", &p, hdr, 2000);
	tso_send_check("headers + 1 byte, 1000-byte segments", &p, hdr + 1, 1000);
	tso_send_check("headers + 3000 bytes, 700-byte segments", &p, hdr + 3000, 700);
	/* 29 payload segments after the headers alone: 30 SGEs, the limit. */
	p = pkt_default(true, 29 * 1200, 1440);
	hdr = pkt_hdr(&p);
	tso_send_check("IPv6 headers alone + 29 segments", &p, hdr, 1200);
	/* 28 more after a first segment with payload: 1 + 1 + 28 = 30 SGEs. */
	p = pkt_default(false, 100 + 28 * 1300, 1460);
	hdr = pkt_hdr(&p);
	tso_send_check("headers + payload + 28 segments", &p, hdr + 100, 1300);
	/* The largest packet: 64 KiB with its headers. */
	p = pkt_default(false, 65536 - 54, 1460);
	tso_send_check("64 KiB in 16000-byte segments", &p, 54 + 8000, 16000);
	CHECK_EQ(comp_xstat(tso_tx, "tx_q0_prep_refused"), 0);
}

/* Statistics: one packet per mbuf and its pkt_len; the device counts the wire frames. */
static void
test_stats(void)
{
	struct mana_model_port_stats st0, st;
	struct rte_eth_stats es0, es;
	int64_t tso0;
	struct tso_pkt p;

	REQUIRE_EQ(tso_setup(), 0);
	REQUIRE(comp_model_stats("net_mana_tso", 0, &st0));
	REQUIRE_EQ(rte_eth_stats_get(tso_tx, &es0), 0);
	tso0 = comp_xstat(tso_tx, "tx_q0_tso_packets");
	REQUIRE(tso0 >= 0);
	p = pkt_default(false, 10 * 1448 + 7, 1448);
	tso_send_check("stats", &p, 0, 0);
	REQUIRE_EQ(rte_eth_stats_get(tso_tx, &es), 0);
	CHECK_EQ(es.opackets - es0.opackets, 1);
	CHECK_EQ(es.obytes - es0.obytes, 54 + 10 * 1448 + 7);
	CHECK_EQ(es.oerrors - es0.oerrors, 0);
	CHECK_EQ(comp_xstat(tso_tx, "tx_q0_tso_packets"), tso0 + 1);
	REQUIRE(comp_model_stats("net_mana_tso", 0, &st));
	CHECK_EQ(st.tx_frames - st0.tx_frames, 11);
	CHECK_EQ(st.tx_bytes - st0.tx_bytes, 11 * 54 + 10 * 1448 + 7);
}

/* dev_info, burst mode: what the port says about TSO. */
static void
test_info(void)
{
	struct rte_eth_burst_mode bm;
	struct rte_eth_dev_info di;

	REQUIRE_EQ(tso_setup(), 0);
	REQUIRE_EQ(rte_eth_dev_info_get(tso_tx, &di), 0);
	CHECK(di.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_TSO);
	/* TSO configured: a first segment with headers and payload takes two SGEs. */
	CHECK_EQ(di.tx_desc_lim.nb_seg_max, 29);
	CHECK_EQ(di.tx_desc_lim.nb_mtu_seg_max, 29);
	REQUIRE_EQ(rte_eth_tx_burst_mode_get(tso_tx, 0, &bm), 0);
	CHECK_MSG(strstr(bm.info, ", TSO") != NULL, "burst mode \"%s\" does not name TSO",
		  bm.info);
	REQUIRE_EQ(rte_eth_dev_info_get(tso_rx, &di), 0);
	CHECK(di.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_TSO);
	CHECK_EQ(di.tx_desc_lim.nb_seg_max, 30);
	REQUIRE_EQ(rte_eth_tx_burst_mode_get(tso_rx, 0, &bm), 0);
	CHECK_MSG(strstr(bm.info, "TSO") == NULL, "burst mode \"%s\" of a port without TSO",
		  bm.info);
}

/* ---- refusals ------------------------------------------------------------------ */

struct bad_case {
	const char *name;
	const char *reason;	/* xstat tx_prep_<reason> */
	int err;		/* rte_errno */
	const char *log;	/* in the debug line */
};

/*
 * tx_prepare must refuse m (bc): rte_errno, the reason's counter and one
 * debug line; the mbuf stays the caller's (freed here).
 */
static void
expect_refused_on(int pid, const struct bad_case *bc, struct rte_mbuf *m)
{
	char xs[RTE_ETH_XSTATS_NAME_SIZE], log[2048];
	int64_t before, total;
	uint16_t n;
	FILE *lf;

	if (!CHECK_MSG(m != NULL, "%s: no mbuf", bc->name))
		return;
	snprintf(xs, sizeof(xs), "tx_prep_%s", bc->reason);
	before = comp_xstat(pid, xs);
	total = comp_xstat(pid, "tx_q0_prep_refused");
	CHECK_MSG(before >= 0 && total >= 0, "%s: no xstat %s / tx_q0_prep_refused",
		  bc->name, xs);
	lf = comp_log_begin(log, sizeof(log));
	rte_errno = 0;
	n = rte_eth_tx_prepare(pid, 0, &m, 1);
	if (lf != NULL)
		comp_log_end(lf);
	CHECK_MSG(n == 0, "%s: tx_prepare took it", bc->name);
	CHECK_MSG(rte_errno == bc->err, "%s: rte_errno %d (%s), want %d", bc->name, rte_errno,
		  rte_strerror(rte_errno), bc->err);
	CHECK_MSG(comp_xstat(pid, xs) == before + 1, "%s: %s %" PRId64 " -> %" PRId64,
		  bc->name, xs, before, comp_xstat(pid, xs));
	CHECK_EQ(comp_xstat(pid, "tx_q0_prep_refused"), total + 1);
	CHECK_MSG(strstr(log, "tx_prepare refuses a packet") != NULL &&
		  strstr(log, bc->log) != NULL && strchr(log, '\n') == strrchr(log, '\n'),
		  "%s: want one log line with \"%s\", got \"%s\"", bc->name, bc->log, log);
	rte_pktmbuf_free(m);
}

static void
expect_refused(const struct bad_case *bc, struct rte_mbuf *m)
{
	expect_refused_on(tso_tx, bc, m);
}

/* A good TSO mbuf of p laid out as (first, chunk), for the caller to spoil. */
static struct rte_mbuf *
bad_mbuf(const struct tso_pkt *p, uint32_t first, uint32_t chunk, uint8_t *f)
{
	uint32_t len = pkt_build(f, p);
	struct rte_mbuf *m = pkt_chain(f, len, first == 0 ? len : first, chunk);

	if (m != NULL)
		pkt_offload(m, p);
	return m;
}

static void
test_bad_mss(void)
{
	static const struct bad_case zero = { "MSS 0", "tso_mss", EINVAL, "tso_segsz 0," };
	static const struct bad_case big = { "MSS 16384", "tso_mss", EINVAL,
					     "tso_segsz 16384, allowed 1..16383" };
	static const struct bad_case mtu = { "MSS 1465", "tso_mss_mtu", EINVAL,
					     "1519-byte segments" };
	static const struct bad_case mtu_vlan = { "MSS 1461 VLAN", "tso_mss_mtu", EINVAL,
						  "1519-byte segments" };
	static const struct bad_case mtu6 = { "IPv6 MSS 1445", "tso_mss_mtu", EINVAL,
					      "1519-byte segments" };
	static uint8_t f[TSO_MAX_FRAME];
	struct tso_pkt p;

	REQUIRE_EQ(tso_setup(), 0);
	p = pkt_default(false, 3000, 0);
	expect_refused(&zero, bad_mbuf(&p, 0, 0, f));
	p.mss = 16384;
	expect_refused(&big, bad_mbuf(&p, 0, 0, f));
	/*
	 * MTU 1500 allows MTU + 18 on the wire, tagged or not (hardware.md §19):
	 * 54 bytes of headers + 1465 make 1519 bytes; 1464 fits; with an inserted
	 * tag 1461 is one byte too many.
	 */
	p.mss = 1465;
	expect_refused(&mtu, bad_mbuf(&p, 0, 0, f));
	p = pkt_default(false, 3000, 1464);
	tso_send_check("MSS 1464: 1518-byte segments", &p, 0, 0);
	p.mss = 1461;
	p.vlan = true;
	p.tci = 5;
	expect_refused(&mtu_vlan, bad_mbuf(&p, 0, 0, f));
	p = pkt_default(true, 3000, 1445);
	expect_refused(&mtu6, bad_mbuf(&p, 0, 0, f));
	/* An MSS over the MTU is fine when the payload is no larger than the MTU allows. */
	p = pkt_default(false, 1460, 9000);
	tso_send_check("MSS 9000 payload 1460", &p, 0, 0);
}

/*
 * A TSO mbuf on a port configured without RTE_ETH_TX_OFFLOAD_TCP_TSO (port 1):
 * refused for the offload, not segmented by the device (issue 32 D12).
 */
static void
test_not_configured(void)
{
	static const struct bad_case nocfg = { "TSO not configured", "offload", ENOTSUP,
					       "configured without RTE_ETH_TX_OFFLOAD_TCP_TSO" };
	static uint8_t f[TSO_MAX_FRAME];
	struct tso_pkt p;

	REQUIRE_EQ(tso_setup(), 0);
	p = pkt_default(false, 3000, 1448);
	expect_refused_on(tso_rx, &nocfg, bad_mbuf(&p, 0, 0, f));
}

static void
test_too_many_segs(void)
{
	static const struct bad_case split = { "29 + split", "segs", EINVAL, "31 SGEs needed" };
	static const struct bad_case alone = { "31 segments", "segs", EINVAL,
					       "32 SGEs needed (31 segments" };
	static uint8_t f[TSO_MAX_FRAME];
	struct tso_pkt p;

	REQUIRE_EQ(tso_setup(), 0);
	/* 30 segments, the first with payload: 31 SGEs. */
	p = pkt_default(false, 100 + 29 * 500, 1448);
	expect_refused(&split, bad_mbuf(&p, 54 + 100, 500, f));
	/* 31 segments: too many whatever the first holds. */
	p = pkt_default(false, 100 + 30 * 500, 1448);
	expect_refused(&alone, bad_mbuf(&p, 54 + 100, 500, f));
}

static void
test_hdr_split(void)
{
	static const struct bad_case in_ip = { "headers end in seg 1", "hdr_split", ENOTSUP,
					       "not all in the first segment (40 bytes)" };
	static const struct bad_case opts = { "TCP options in seg 1", "hdr_split", ENOTSUP,
					      "(66 bytes) are not all in the first segment" };
	static uint8_t f[TSO_MAX_FRAME];
	struct tso_pkt p;

	REQUIRE_EQ(tso_setup(), 0);
	p = pkt_default(false, 5000, 1448);
	expect_refused(&in_ip, bad_mbuf(&p, 40, 1000, f));
	p.tcp_opt = 12;
	p.mss = 1436;
	expect_refused(&opts, bad_mbuf(&p, 60, 1000, f));
}

static void
test_not_tcp(void)
{
	static const struct bad_case udp8 = { "UDP, l4_len 8", "tso_not_tcp", EINVAL,
					      "not TCP (l4_len 8" };
	static const struct bad_case udp20 = { "protocol UDP", "tso_not_tcp", EINVAL,
					       "not TCP (l4_len 20" };
	static const struct bad_case udpfl = { "UDP checksum flag", "tso_not_tcp", EINVAL,
					       "not TCP" };
	static const struct bad_case v6udp = { "IPv6 next header UDP", "tso_not_tcp", EINVAL,
					       "not TCP" };
	static const struct bad_case noip = { "no IP flag", "tso_l3", EINVAL,
					      "exactly one of RTE_MBUF_F_TX_IPV4" };
	static const struct bad_case wrongip = { "IPv4 flag on IPv6", "tso_l3", EINVAL,
						 "exactly one of" };
	static uint8_t f[TSO_MAX_FRAME];
	struct rte_mbuf *m;
	struct tso_pkt p;

	REQUIRE_EQ(tso_setup(), 0);
	p = pkt_default(false, 3000, 1448);
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL) {
		rte_pktmbuf_mtod(m, uint8_t *)[14 + 9] = IPPROTO_UDP;
		m->l4_len = 8;
	}
	expect_refused(&udp8, m);
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		rte_pktmbuf_mtod(m, uint8_t *)[14 + 9] = IPPROTO_UDP;
	expect_refused(&udp20, m);
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		m->ol_flags = (m->ol_flags & ~RTE_MBUF_F_TX_L4_MASK) | RTE_MBUF_F_TX_UDP_CKSUM;
	expect_refused(&udpfl, m);
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		m->ol_flags &= ~(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM);
	expect_refused(&noip, m);
	p = pkt_default(true, 3000, 1400);
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		rte_pktmbuf_mtod(m, uint8_t *)[14 + 6] = IPPROTO_UDP;
	expect_refused(&v6udp, m);
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		m->ol_flags = (m->ol_flags & ~RTE_MBUF_F_TX_IPV6) | RTE_MBUF_F_TX_IPV4;
	expect_refused(&wrongip, m);
}

/* Headers the device cannot take, lengths that lie, packets without payload or too long. */
static void
test_bad_headers(void)
{
	static const struct bad_case hdr = { "headers 334 bytes", "tso_hdr_len", ENOTSUP,
					     "headers of 334 bytes" };
	static const struct bad_case opt4 = { "IPv4 options", "tso_ip_opt", ENOTSUP,
					      "or an IPv6 routing header (l3_len 24)" };
	static const struct bad_case rt6 = { "IPv6 routing header", "tso_ip_opt", ENOTSUP,
					     "routing header (l3_len 56)" };
	static const struct bad_case l2 = { "tagged frame, l2_len 14", "tso_hdr_bad", EINVAL,
					    "l2_len 14 / l3_len 20 / l4_len 20" };
	static const struct bad_case ext = { "IPv6 l3_len short of the extension headers",
					     "tso_hdr_bad", EINVAL, "l3_len 48" };
	static const struct bad_case frag = { "IPv6 fragment header", "tso_l3", EINVAL,
					      "no IP fragment" };
	static const struct bad_case frag4 = { "IPv4 fragment", "tso_l3", EINVAL,
					       "no IP fragment" };
	static const struct bad_case l4 = { "l4_len 32, data offset 20", "tso_hdr_bad",
					    EINVAL, "l4_len 32 are not" };
	static const struct bad_case l3 = { "l3_len 24, IHL 5", "tso_hdr_bad", EINVAL,
					    "l3_len 24" };
	static const struct bad_case nopay = { "no payload", "tso_len", EINVAL,
					       "pkt_len 54 with 54 bytes" };
	static const struct bad_case big = { "65537 bytes", "tso_len", EINVAL,
					     "pkt_len 65537" };
	static uint8_t f[TSO_MAX_FRAME];
	struct rte_mbuf *m;
	struct tso_pkt p;
	uint8_t *ip;

	REQUIRE_EQ(tso_setup(), 0);
	p = pkt_default(true, 3000, 1000);
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		m->l3_len = 300;
	expect_refused(&hdr, m);
	/* An IPv4 header of 24 bytes (IHL 6): the device segments IPv4 without options. */
	p = pkt_default(false, 3000, 1000);
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL && rte_pktmbuf_append(m, 4) != NULL) {
		ip = rte_pktmbuf_mtod_offset(m, uint8_t *, 14);
		memmove(ip + 24, ip + 20, m->data_len - 4 - 34);
		memset(ip + 20, 1, 4);		/* four NOP options */
		ip[0] = 0x46;
		m->l3_len = 24;
	}
	expect_refused(&opt4, m);
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		m->l4_len = 32;
	expect_refused(&l4, m);
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		m->l3_len = 24;
	expect_refused(&l3, m);
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		rte_pktmbuf_mtod(m, uint8_t *)[14 + 6] = 0x20;	/* MF */
	expect_refused(&frag4, m);
	p.tagged = true;
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		m->l2_len = 14;
	expect_refused(&l2, m);
	p = pkt_default(true, 3000, 1000);
	p.ext = 16;
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		m->l3_len = 48;
	expect_refused(&ext, m);
	p.ext = 8;
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		rte_pktmbuf_mtod(m, uint8_t *)[14 + 40] = IPPROTO_FRAGMENT;
	expect_refused(&frag, m);
	/* Hop-by-hop, then a routing header where destination options were. */
	p.ext = 16;
	m = bad_mbuf(&p, 0, 0, f);
	if (m != NULL)
		rte_pktmbuf_mtod(m, uint8_t *)[14 + 40] = IPPROTO_ROUTING;
	expect_refused(&rt6, m);
	p = pkt_default(false, 0, 1000);
	expect_refused(&nopay, bad_mbuf(&p, 54, 0, f));
	p = pkt_default(false, 65537 - 54, 1460);
	expect_refused(&big, bad_mbuf(&p, 8000, 16000, f));
}

/*
 * tx_burst without prepare: a TSO packet the driver cannot express stops the
 * burst at it (counted), nothing reaches the device, which writes no error
 * completion; the packets before it go, those after wait.
 */
static void
test_burst_no_prepare(void)
{
	static uint8_t f[TSO_MAX_FRAME];
	struct mana_model_port_stats st0, st;
	struct rte_mbuf *b[3], *rx[8];
	int64_t bad0, segs0, err0;
	struct tso_pkt p, good;
	unsigned int v, n_rx;
	uint32_t len;

	REQUIRE_EQ(tso_setup(), 0);
	REQUIRE(comp_model_stats("net_mana_tso", 0, &st0));
	err0 = comp_xstat(tso_tx, "tx_q0_errors");
	good = pkt_default(false, 2 * 1448, 1448);
	for (v = 0; v < 6; v++) {
		bad0 = comp_xstat(tso_tx, "tx_q0_tso_bad");
		segs0 = comp_xstat(tso_tx, "tx_q0_too_many_segs");
		p = pkt_default(false, 3000, 1448);
		/* Variant 5: 30 segments of 100 bytes after headers + 100. */
		b[1] = bad_mbuf(&p, v == 5 ? 54 + 100 : 0, 100, f);
		REQUIRE(b[1] != NULL);
		switch (v) {
		case 0: b[1]->tso_segsz = 0; break;
		case 1: b[1]->l4_len = 40; break;			/* data offset says 20 */
		case 2: b[1]->data_len = 40; b[1]->pkt_len = 40; break;	/* headers split */
		case 3: b[1]->l3_len = 250; break;			/* headers > 255 */
		case 4: b[1]->ol_flags &= ~RTE_MBUF_F_TX_IPV4; break;	/* no IP */
		default: break;		/* 30 segments with payload in the first: 31 SGEs */
		}
		len = pkt_build(f, &good);
		b[0] = pkt_chain(f, len, len, 0);
		b[2] = pkt_chain(f, len, len, 0);
		REQUIRE(b[0] != NULL && b[2] != NULL);
		pkt_offload(b[0], &good);
		pkt_offload(b[2], &good);
		REQUIRE_EQ(rte_eth_tx_prepare(tso_tx, 0, b, 1), 1);
		REQUIRE_EQ(rte_eth_tx_prepare(tso_tx, 0, &b[2], 1), 1);
		CHECK_MSG(rte_eth_tx_burst(tso_tx, 0, b, 3) == 1, "variant %u: the burst did not "
			  "stop at the bad packet", v);
		if (v == 5) {
			CHECK_EQ(comp_xstat(tso_tx, "tx_q0_too_many_segs"), segs0 + 1);
			CHECK_EQ(comp_xstat(tso_tx, "tx_q0_tso_bad"), bad0);
		} else {
			CHECK_EQ(comp_xstat(tso_tx, "tx_q0_tso_bad"), bad0 + 1);
			CHECK_EQ(comp_xstat(tso_tx, "tx_q0_too_many_segs"), segs0);
		}
		rte_pktmbuf_free(b[1]);
		CHECK_EQ(comp_tx_all(tso_tx, 0, &b[2], 1, COMP_WAIT_MS), 1);
		n_rx = comp_rx_wait(tso_rx, 1, rx, RTE_DIM(rx), 4, COMP_WAIT_MS, NULL);
		CHECK_MSG(n_rx == 4, "variant %u: %u segments received, want 4", v, n_rx);
		comp_free(rx, RTE_MIN(n_rx, (unsigned int)RTE_DIM(rx)));
	}
	CHECK_EQ(comp_rx_drain(tso_rx, 1, 20), 0);
	/* The device processed every WQE posted (the last one's frames arrived). */
	REQUIRE(comp_model_stats("net_mana_tso", 0, &st));
	CHECK_EQ(st.queue_errors - st0.queue_errors, 0);
	CHECK_EQ(st.tx_frames - st0.tx_frames, 6 * 4);
	for (v = 1; v < RTE_DIM(st.tx_err); v++)
		CHECK_MSG(st.tx_err[v] == st0.tx_err[v], "%" PRIu64 " error completions of type "
			  "%u", st.tx_err[v] - st0.tx_err[v], 32 + v);
	rte_eth_tx_done_cleanup(tso_tx, 0, 0);
	CHECK_EQ(comp_xstat(tso_tx, "tx_q0_errors"), err0);
}

static const struct comp_case cases[] = {
	{ "info", test_info },
	{ "ipv4", test_ipv4 },
	{ "ipv6", test_ipv6 },
	{ "vlan", test_vlan },
	{ "multiseg", test_multiseg },
	{ "stats", test_stats },
	{ "bad_mss", test_bad_mss },
	{ "not_configured", test_not_configured },
	{ "too_many_segs", test_too_many_segs },
	{ "hdr_split", test_hdr_split },
	{ "not_tcp", test_not_tcp },
	{ "bad_headers", test_bad_headers },
	{ "burst_no_prepare", test_burst_no_prepare },
};

static void
tso_teardown(void)
{
	if (tso_tx < 0)
		return;
	rte_eth_dev_stop(tso_tx);
	rte_eth_dev_stop(tso_rx);
	comp_vdev_destroy("net_mana_tso");
	if (rte_mempool_avail_count(tso_pool) != TSO_POOL_N ||
	    rte_mempool_avail_count(tso_big) != TSO_BIG_N) {
		fprintf(stderr, "FAIL: %u of %u and %u of %u mbufs back in the pools after "
			"teardown\n", rte_mempool_avail_count(tso_pool), TSO_POOL_N,
			rte_mempool_avail_count(tso_big), TSO_BIG_N);
		check_fails = 1;
	}
	rte_mempool_free(tso_pool);
	rte_mempool_free(tso_big);
}

int
main(int argc, char **argv)
{
	int ret;

	comp_eal_init(argv[0]);
	comp_teardown = tso_teardown;
	ret = comp_run(cases, RTE_DIM(cases), argc, argv);
	return ret != 0 || check_fails;
}
