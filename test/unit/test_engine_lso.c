/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * LSO in the device engine (hardware.md §3.5), driven by hand: LSO WQEs
 * (client_oob_in_sgl, headers alone in SGE 0, last_vbytes, the MSS in
 * client_data_unit) posted on the SQ of a port whose wire is a pcap capture.
 * Every segment on the wire is compared field by field with what the test
 * computes on its own (lengths, IPv4 id, TCP seq and flags, both checksums
 * over the test's own sums), and the payloads put end to end must be the
 * payload posted. Then every refusal of the §3.5 table, and the counters.
 */

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "engine_harness.h"

#define HDR_MAX		256u
#define PL_OFF		4096u		/* payload area of the TX buffer */
#define PL_GAP		64u		/* bytes between payload SGEs */
#define MAX_SEG		256u		/* segments one case may produce */
#define TCP_FIN		0x01
#define TCP_PSH		0x08
#define TCP_ACK		0x10
#define TCP_ECE		0x40
#define TCP_CWR		0x80

struct lso_spec {
	bool ipv6;
	bool ext;		/* IPv6: hop-by-hop (8 B) and destination options (16 B) */
	bool tagged;		/* an 802.1Q tag in the headers */
	bool insert;		/* VLAN insertion (long OOB) */
	bool junk_len;		/* IP length / IPv4 checksum fields hold junk, not 0 */
	bool bad_seed;		/* TCP checksum seeded with the full-length pseudo header */
	uint32_t topt;		/* TCP option bytes (0 or 12: NOP NOP timestamps) */
	uint8_t flags;		/* TCP flags; 0: ACK */
	uint16_t ip_id;
	uint32_t seq;
	uint32_t mss;
	uint32_t payload;
	uint32_t nsge;		/* payload SGEs; 0: 1 */
	uint32_t mtu;		/* 0: default (1500) */
};

/* The headers a driver puts in SGE 0, as the test builds them. */
struct lso_hdr {
	uint8_t b[HDR_MAX];
	uint32_t len, l3, l4;
};

/* One LSO WQE before it is written: the tests tweak it to make it wrong. */
struct lso_wqe {
	struct mana_tx_oob oob;
	bool long_oob;
	struct gdma_sge sge[32];
	uint32_t nsge;
	uint32_t dw0, dw1;
};

static const uint8_t ip4_src[4] = { 10, 1, 0, 1 }, ip4_dst[4] = { 10, 1, 0, 2 };
static const uint8_t ip6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x0a };
static const uint8_t ip6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [14] = 0x77, [15] = 0x0b };
static const uint16_t insert_tci = 3 << 13 | 0x2A5;	/* PCP 3, DEI 0, VLAN 0x2A5 */

static uint8_t
pl_byte(uint32_t i)
{
	return (uint8_t)(i * 131u + (i >> 8) + 7u);
}

static void
put32(uint8_t *p, uint32_t v)
{
	tf_put16(p, (uint16_t)(v >> 16));
	tf_put16(p + 2, (uint16_t)v);
}

/* One's-complement sum of the TCP pseudo header for a TCP length tcp_len. */
static uint32_t
pseudo_sum(bool ipv6, uint32_t tcp_len)
{
	uint32_t sum = ipv6 ? tf_sum(ip6_src, 16, tf_sum(ip6_dst, 16, 0)) :
			      tf_sum(ip4_src, 4, tf_sum(ip4_dst, 4, 0));

	return sum + TF_PROTO_TCP + (tcp_len & 0xFFFF) + (tcp_len >> 16);
}

static void
lso_build_hdr(const struct lso_spec *s, struct lso_hdr *h)
{
	static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0x5e, 0x02 };
	static const uint8_t smac[6] = { 0x02, 0, 0, 0, 0x5e, 0x01 };
	uint8_t *b = h->b, *ip, *tcp;
	uint32_t o = 12, doff = 20 + s->topt, tcp_all = doff + s->payload;

	memset(h, 0, sizeof(*h));
	memcpy(b, dmac, 6);
	memcpy(b + 6, smac, 6);
	if (s->tagged) {
		tf_put16(b + o, 0x8100);
		tf_put16(b + o + 2, 0x0123);
		o += 4;
	}
	tf_put16(b + o, s->ipv6 ? 0x86DD : 0x0800);
	h->l3 = o + 2;
	ip = b + h->l3;
	if (!s->ipv6) {
		ip[0] = 0x45;
		tf_put16(ip + 2, s->junk_len ? 0xBEEF : 0);	/* Linux: 0 */
		tf_put16(ip + 4, s->ip_id);
		tf_put16(ip + 6, 0x4000);			/* DF */
		ip[8] = 64;
		ip[9] = TF_PROTO_TCP;
		tf_put16(ip + 10, s->junk_len ? 0x1111 : 0);
		memcpy(ip + 12, ip4_src, 4);
		memcpy(ip + 16, ip4_dst, 4);
		h->l4 = h->l3 + 20;
	} else {
		put32(ip, 0x60012345);				/* flow label 0x12345 */
		tf_put16(ip + 4, s->junk_len ? 0xBEEF : 0);
		ip[6] = s->ext ? 0 : TF_PROTO_TCP;
		ip[7] = 64;
		memcpy(ip + 8, ip6_src, 16);
		memcpy(ip + 24, ip6_dst, 16);
		h->l4 = h->l3 + 40;
		if (s->ext) {
			uint8_t *x = b + h->l4;

			/* hop-by-hop: next 60, 8 bytes, PadN(4) */
			x[0] = 60;
			x[1] = 0;
			x[2] = 1;
			x[3] = 4;
			/* destination options: next TCP, 16 bytes, PadN(12) */
			x[8] = TF_PROTO_TCP;
			x[9] = 1;
			x[10] = 1;
			x[11] = 12;
			h->l4 += 24;
		}
	}
	tcp = b + h->l4;
	tf_put16(tcp, 40000);
	tf_put16(tcp + 2, 5201);
	put32(tcp + 4, s->seq);
	put32(tcp + 8, 0xA0B0C0D0);
	tcp[12] = (uint8_t)((doff / 4) << 4);
	tcp[13] = s->flags != 0 ? s->flags : TCP_ACK;
	tf_put16(tcp + 14, 501);
	if (s->topt == 12) {
		tcp[20] = 1;
		tcp[21] = 1;
		tcp[22] = 8;
		tcp[23] = 10;
		put32(tcp + 24, 0x11223344);
		put32(tcp + 28, 0x55667788);
	}
	/* The seed: the pseudo header with length 0 (Linux, DPDK with TSO). */
	tf_put16(tcp + 16, tf_fold(pseudo_sum(s->ipv6, s->bad_seed ? tcp_all : 0)));
	tf_put16(tcp + 18, 0);
	h->len = h->l4 + doff;
}

/* Copy headers and payload into the TX buffer and describe the WQE. */
static void
lso_prepare(struct h *h, const struct lso_spec *s, const struct lso_hdr *hd, struct lso_wqe *q)
{
	uint32_t n = s->nsge != 0 ? s->nsge : 1, i, k, at = PL_OFF, done = 0, wsum = 0;

	memset(q, 0, sizeof(*q));
	memcpy(h->txb.base, hd->b, hd->len);
	q->sge[0] = fx_sge(&h->txb, 0, hd->len);
	/* uneven pieces (weights 1, 2, 3, 1, 2, 3, ...) in separate places */
	for (k = 0; k < n; k++)
		wsum += 1 + k % 3;
	for (k = 0, i = 0; k < n; k++) {
		uint32_t len = k == n - 1 ? s->payload - done :
			       (uint32_t)((uint64_t)s->payload * (1 + k % 3) / wsum);

		REQUIRE(at + len <= h->txb.len);
		for (uint32_t j = 0; j < len; j++)
			h->txb.base[at + j] = pl_byte(i++);
		q->sge[k + 1] = fx_sge(&h->txb, at, len);
		done += len;
		at += len + PL_GAP;
	}
	q->nsge = n + 1;
	q->long_oob = s->insert;
	if (s->insert) {
		fx_tx_oob_long(&h->tx, &q->oob);
		q->oob.dw2 = GDMA_SET(MANA_TX_INJECT_VLAN, 1) | GDMA_SET(MANA_TX_PCP, 3) |
			     GDMA_SET(MANA_TX_VLAN_ID, 0x2A5);
	} else {
		fx_tx_oob(&h->tx, &q->oob);
	}
	/* as Linux's mana_start_xmit: both checksum bits, also for IPv6 */
	q->oob.dw0 |= GDMA_SET(MANA_TX_IS_OUTER_IPV4, !s->ipv6) |
		      GDMA_SET(MANA_TX_IS_OUTER_IPV6, s->ipv6) |
		      GDMA_SET(MANA_TX_COMP_IPHDR_CSUM, 1) | GDMA_SET(MANA_TX_COMP_TCP_CSUM, 1);
	q->oob.dw1 |= GDMA_SET(MANA_TX_TRANS_OFF, hd->l4);
	q->dw0 = GDMA_SET(GDMA_WQE_LAST_VBYTES, hd->len);
	q->dw1 = GDMA_SET(GDMA_WQE_OOB_IN_SGL, 1) | GDMA_SET(GDMA_WQE_CLIENT_DATA_UNIT, s->mss);
}

/* Write the WQE (the fixture writes dw0 = 0: set it after), ring, run: its CQE type. */
static uint32_t
lso_post(struct h *h, const struct lso_wqe *q, uint32_t *verr)
{
	uint32_t oob_size = q->long_oob ? GDMA_OOB_SIZE_LARGE : GDMA_OOB_SIZE_SMALL;
	uint32_t dw1 = GDMA_SET(GDMA_WQE_NUM_SGE, q->nsge) |
		       GDMA_SET(GDMA_WQE_OOB_DIV4, oob_size / 4) | q->dw1;
	uint32_t off = (h->tx.head * GDMA_WQE_BU_SIZE) & (h->tx.dv.sq_size - 1);

	h->tx.head += fx_wqe_write(h->tx.dv.sq_buf, h->tx.dv.sq_size, h->tx.head, dw1, &q->oob,
				   oob_size, q->sge, q->nsge);
	memcpy((uint8_t *)h->tx.dv.sq_buf + off, &q->dw0, 4);
	fx_tx_ring(&h->tx);
	fx_run(&h->f);
	return h_tx_cqe(h, verr, NULL);
}

static void
cap_path(char *buf, size_t n, const char *tag)
{
	const char *dir = getenv("MESON_BUILD_ROOT");

	snprintf(buf, n, "%s/unit_engine_lso_%d_%s.pcap", dir != NULL ? dir : ".",
		 (int)getpid(), tag);
}

/* The harness on a pcap wire (TX captured to path), the port's MTU set. */
static bool
lso_open(struct h *h, const char *path, uint32_t mtu)
{
	struct mana_model_config cfg;
	char spec[600];

	fx_config(&cfg, 1);
	snprintf(spec, sizeof(spec), "pcap:tx=%s", path);
	if (!CHECK_EQ(mana_model_parse_wire(spec, &cfg.wire[0], NULL), 0))
		return false;
	if (!h_open_cfg(h, &cfg, 0, GDMA_MAX_TX_SGE))
		return false;
	return mtu == 0 || CHECK_EQ(mana_model_set_mtu(h->f.m, 0, mtu), 0);
}

/* Frames of a capture file: count, and copies in seg[] (each up to 9216 bytes). */
struct cap {
	unsigned int n;
	uint32_t len[MAX_SEG];
	uint8_t *data;		/* MAX_SEG x MANA_MODEL_MAX_FRAME */
};

static bool
cap_read(const char *path, struct cap *c)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *d;
	pcap_t *pc = pcap_open_offline(path, err);

	c->n = 0;
	if (!CHECK_MSG(pc != NULL, "pcap_open_offline(%s): %s", path, err))
		return false;
	while (pcap_next_ex(pc, &ph, &d) == 1) {
		if (c->n < MAX_SEG && ph->caplen <= MANA_MODEL_MAX_FRAME) {
			c->len[c->n] = ph->caplen;
			memcpy(c->data + (size_t)c->n * MANA_MODEL_MAX_FRAME, d, ph->caplen);
		}
		c->n++;
	}
	pcap_close(pc);
	return true;
}

/* The n-th segment as the test expects it; returns its length. */
static uint32_t
expect_segment(const struct lso_spec *s, const struct lso_hdr *hd, uint32_t i, uint32_t nseg,
	       uint8_t *out)
{
	uint32_t plen = i == nseg - 1 ? s->payload - i * s->mss : s->mss;
	uint32_t tcp_len = hd->len - hd->l4 + plen, j;
	uint8_t fr[HDR_MAX + MANA_MODEL_MAX_FRAME], *ip = fr + hd->l3, *tcp = fr + hd->l4;
	uint8_t flags = s->flags != 0 ? s->flags : TCP_ACK;

	memcpy(fr, hd->b, hd->len);
	for (j = 0; j < plen; j++)
		fr[hd->len + j] = pl_byte(i * s->mss + j);
	if (!s->ipv6) {
		tf_put16(ip + 2, (uint16_t)(hd->len - hd->l3 + plen));
		tf_put16(ip + 4, (uint16_t)(s->ip_id + i));
		tf_put16(ip + 10, 0);
		tf_put16(ip + 10, (uint16_t)~tf_fold(tf_sum(ip, 20, 0)));
	} else {
		tf_put16(ip + 4, (uint16_t)(hd->len - hd->l3 - 40 + plen));
	}
	put32(tcp + 4, s->seq + i * s->mss);
	if (i != nseg - 1)
		flags &= (uint8_t)~(TCP_FIN | TCP_PSH);
	if (i != 0)
		flags &= (uint8_t)~TCP_CWR;
	tcp[13] = flags;
	tf_put16(tcp + 16, 0);
	tf_put16(tcp + 16, (uint16_t)~tf_fold(tf_sum(tcp, tcp_len, pseudo_sum(s->ipv6, tcp_len))));
	if (!s->insert) {
		memcpy(out, fr, hd->len + plen);
		return hd->len + plen;
	}
	memcpy(out, fr, 12);
	tf_put16(out + 12, 0x8100);
	tf_put16(out + 14, insert_tci);
	memcpy(out + 16, fr + 12, hd->len + plen - 12);
	return hd->len + plen + 4;
}

/* Does the captured segment's TCP checksum verify (the test's own sum)? */
static bool
tcp_csum_ok(const struct lso_spec *s, const struct lso_hdr *hd, const uint8_t *seg,
	    uint32_t len)
{
	uint32_t o = s->insert ? 4 : 0, tcp_len = len - o - hd->l4;

	return tf_fold(tf_sum(seg + o + hd->l4, tcp_len, pseudo_sum(s->ipv6, tcp_len))) == 0xFFFF;
}

/*
 * Send one LSO WQE of spec s and check the wire field by field; the CQE must
 * be OKAY and the counters move by one WQE and its segments.
 */
static void
lso_case(const char *name, const struct lso_spec *s)
{
	struct mana_model_port_stats st0, st;
	uint32_t nseg = (s->payload + s->mss - 1) / s->mss, i, plen, hl;
	uint64_t bytes = 0;
	uint8_t *want, *cat;
	struct lso_hdr hd;
	struct lso_wqe q;
	struct cap c;
	char path[512];
	struct h h;

	check_case = name;
	REQUIRE(nseg <= MAX_SEG);
	cap_path(path, sizeof(path), "case");
	REQUIRE(lso_open(&h, path, s->mtu));
	lso_build_hdr(s, &hd);
	lso_prepare(&h, s, &hd, &q);
	st0 = fx_stats(&h.f, 0);
	CHECK_EQ(lso_post(&h, &q, NULL), CQE_TX_OKAY);
	st = fx_stats(&h.f, 0);
	h_close(&h);
	c.data = malloc((size_t)MAX_SEG * MANA_MODEL_MAX_FRAME);
	want = malloc(HDR_MAX + MANA_MODEL_MAX_FRAME);
	cat = malloc(s->payload);
	REQUIRE(c.data != NULL && want != NULL && cat != NULL);
	if (cap_read(path, &c) && CHECK_EQ(c.n, nseg)) {
		hl = hd.len + (s->insert ? 4 : 0);
		for (i = 0; i < nseg; i++) {
			const uint8_t *seg = c.data + (size_t)i * MANA_MODEL_MAX_FRAME;
			uint32_t wl = expect_segment(s, &hd, i, nseg, want);
			const uint8_t *ip = seg + hd.l3 + (s->insert ? 4 : 0);
			const uint8_t *tcp = seg + hd.l4 + (s->insert ? 4 : 0);

			plen = i == nseg - 1 ? s->payload - i * s->mss : s->mss;
			if (!CHECK_EQ(c.len[i], wl))
				continue;
			bytes += c.len[i];
			if (!s->ipv6) {
				CHECK_EQ(tf_get16(ip + 2), hd.len - hd.l3 + plen);
				CHECK_EQ(tf_get16(ip + 4), (uint16_t)(s->ip_id + i));
				CHECK_EQ(tf_fold(tf_sum(ip, 20, 0)), 0xFFFF);
			} else {
				CHECK_EQ(tf_get16(ip + 4), hd.len - hd.l3 - 40 + plen);
			}
			CHECK_EQ(tf_get32(tcp + 4), s->seq + i * s->mss);
			CHECK_EQ(tcp[13], want[hd.l4 + (s->insert ? 4 : 0) + 13]);
			if (s->bad_seed)
				CHECK_MSG(!tcp_csum_ok(s, &hd, seg, c.len[i]),
					  "segment %u: a wrong seed gave a right checksum", i);
			else
				CHECK_MSG(tcp_csum_ok(s, &hd, seg, c.len[i]),
					  "segment %u: TCP checksum does not verify", i);
			if (s->insert) {
				CHECK_EQ(tf_get16(seg + 12), 0x8100);
				CHECK_EQ(tf_get16(seg + 14), insert_tci);
			}
			/* the whole frame (with a bad seed: all but the TCP checksum) */
			if (s->bad_seed) {
				want[hd.l4 + (s->insert ? 4 : 0) + 16] = tcp[16];
				want[hd.l4 + (s->insert ? 4 : 0) + 17] = tcp[17];
			}
			CHECK_MSG(memcmp(seg, want, wl) == 0, "segment %u differs", i);
			memcpy(cat + i * s->mss, seg + hl, plen);
		}
		for (i = 0; i < s->payload; i++)
			if (!CHECK_MSG(cat[i] == pl_byte(i), "payload byte %u: 0x%02x, want 0x%02x",
				       i, cat[i], pl_byte(i)))
				break;
	}
	CHECK_EQ(st.tx_lso_wqes - st0.tx_lso_wqes, 1);
	CHECK_EQ(st.tx_lso_segments - st0.tx_lso_segments, nseg);
	CHECK_EQ(st.tx_frames - st0.tx_frames, nseg);
	CHECK_EQ(st.tx_bytes - st0.tx_bytes, bytes);
	free(c.data);
	free(want);
	free(cat);
	unlink(path);
	check_case = NULL;
}

static void
test_lso_ipv4(void)
{
	struct lso_spec s = { .mss = 1448, .payload = 4000, .ip_id = 0x1234, .seq = 1000 };

	lso_case("ipv4 1 SGE, 4000 / 1448", &s);
	s.nsge = 2;
	s.topt = 12;
	s.payload = 2 * 1436;
	s.mss = 1436;
	lso_case("ipv4 timestamps, 2 SGEs, exact multiple", &s);
	s.nsge = 28;	/* the most payload SGEs with the short OOB: 29 SGEs in all, 30 fine */
	s.payload = 10000;
	s.mss = 1000;
	lso_case("ipv4 28 SGEs, 10000 / 1000", &s);
	s.nsge = 29;
	s.payload = 777;
	s.mss = 1448;
	lso_case("ipv4 29 SGEs, one segment", &s);
	s.nsge = 3;
	s.junk_len = true;
	s.payload = 5000;
	lso_case("ipv4 tot_len and checksum junk (DPDK: the whole length)", &s);
}

static void
test_lso_ipv6(void)
{
	struct lso_spec s = { .ipv6 = true, .mss = 1440, .payload = 3000, .seq = 77 };

	lso_case("ipv6", &s);
	s.ext = true;
	s.nsge = 3;
	s.payload = 5000;
	s.mss = 1400;
	s.topt = 12;
	lso_case("ipv6 hop-by-hop + destination options", &s);
	s.junk_len = true;
	lso_case("ipv6 payload_len junk", &s);
}

static void
test_lso_vlan(void)
{
	struct lso_spec s = { .insert = true, .mss = 1448, .payload = 3000, .ip_id = 9 };

	lso_case("ipv4 VLAN insertion", &s);
	s.ipv6 = true;
	s.ext = true;
	s.nsge = 5;
	s.mss = 1416;	/* 14 + 4 + 40 + 24 + 20 + 1416 = 1518 */
	lso_case("ipv6 ext VLAN insertion", &s);
	s.insert = false;
	s.tagged = true;
	s.ipv6 = false;
	s.ext = false;
	s.mss = 1460;	/* a tagged 1518-byte segment fits MTU 1500 */
	lso_case("ipv4 tagged headers", &s);
	s.insert = true;
	s.tagged = false;
	lso_case("ipv4 VLAN insertion, 1518-byte segments", &s);
	s.insert = false;
	s.mss = 1464;	/* 54 + 1464: an untagged segment of MTU + 18 (hardware.md §19) */
	lso_case("ipv4 untagged 1518-byte segments", &s);
}

static void
test_lso_flags_wrap(void)
{
	struct lso_spec s = { .mss = 1000, .payload = 3500, .nsge = 2,
			      .flags = TCP_FIN | TCP_PSH | TCP_CWR | TCP_ACK | TCP_ECE,
			      .ip_id = 0xFFFE, .seq = 0xFFFFF800 };

	lso_case("FIN/PSH last only, CWR first only, id and seq wrap", &s);
	s.payload = 600;
	lso_case("one segment keeps every flag", &s);
	s.ipv6 = true;
	s.payload = 2500;
	lso_case("ipv6 flags", &s);
}

static void
test_lso_mss_edges(void)
{
	struct lso_spec s = { .mss = 1, .payload = 200, .nsge = 3, .ip_id = 0xFF00 };

	lso_case("MSS 1", &s);
	s.mss = GDMA_LSO_MAX_MSS;	/* 16383 */
	s.payload = 8900;
	s.mtu = 9000;
	lso_case("MSS 16383, one segment under MTU 9000", &s);
	/* 54 + 65482 = 65536, the most one WQE carries; 9014-byte segments at MTU 9000 */
	s.mss = 8960;
	s.payload = 65536 - 54;
	s.nsge = 7;
	lso_case("65536 bytes, MSS 8960 at MTU 9000", &s);
}

static void
test_lso_bad_seed(void)
{
	struct lso_spec s = { .mss = 1448, .payload = 4000, .bad_seed = true };

	lso_case("ipv4 full-length seed", &s);
	s.ipv6 = true;
	s.mss = 1440;
	lso_case("ipv6 full-length seed", &s);
}

/* A fresh harness on a none wire, MTU mtu (0: 1500). */
static bool
lso_open_none(struct h *h, uint32_t mtu)
{
	struct mana_model_config cfg;

	fx_config(&cfg, 1);
	if (!h_open_cfg(h, &cfg, 0, GDMA_MAX_TX_SGE))
		return false;
	return mtu == 0 || CHECK_EQ(mana_model_set_mtu(h->f.m, 0, mtu), 0);
}

enum tweak {
	T_NONE, T_ONE_SGE, T_VBYTES, T_VBYTES_ZERO, T_HDR_SPLIT, T_HDR_PAYLOAD, T_NO_PAYLOAD,
	T_ETH_ONLY, T_MSS0, T_NO_TCP_CSUM, T_NO_IP_CSUM, T_UDP_CSUM, T_UDP, T_ARP, T_IP_OPT,
	T_FRAG, T_IP6_FRAG, T_TRANS_OFF, T_TOO_BIG, T_SEG_MTU, T_VLAN_TAGGED,
};

/* Build a good WQE of spec s, then make it wrong as t says. */
static void
lso_tweaked(struct h *h, const struct lso_spec *s, enum tweak t, struct lso_wqe *q)
{
	struct lso_hdr hd;

	lso_build_hdr(s, &hd);
	switch (t) {
	case T_UDP:
		/* Ethernet + IPv4 + a 20-byte "header" with protocol UDP */
		hd.b[hd.l3 + 9] = TF_PROTO_UDP;
		break;
	case T_ARP:
		tf_put16(hd.b + 12, 0x0806);
		break;
	case T_IP_OPT:
		/* IHL 6: a 4-byte option (NOPs) before TCP; SGE 0 still the headers */
		memmove(hd.b + hd.l4 + 4, hd.b + hd.l4, hd.len - hd.l4);
		memset(hd.b + hd.l4, 1, 4);
		hd.b[hd.l3] = 0x46;
		hd.l4 += 4;
		hd.len += 4;
		break;
	case T_FRAG:
		tf_put16(hd.b + hd.l3 + 6, 0x2000);	/* MF */
		break;
	case T_IP6_FRAG:
		/* the hop-by-hop header names a fragment header next */
		hd.b[hd.l3 + 40] = 44;
		break;
	default:
		break;
	}
	lso_prepare(h, s, &hd, q);
	switch (t) {
	case T_ONE_SGE:
		q->nsge = 1;
		break;
	case T_VBYTES:
		q->dw0 = GDMA_SET(GDMA_WQE_LAST_VBYTES, hd.len - 1);
		break;
	case T_VBYTES_ZERO:
		q->dw0 = 0;
		break;
	case T_HDR_SPLIT:
		/* headers over SGEs 0 and 1 (last_vbytes follows SGE 0) */
		memmove(&q->sge[2], &q->sge[1], sizeof(q->sge[0]) * (q->nsge - 1));
		q->sge[0].size = hd.l4;
		q->sge[1] = fx_sge(&h->txb, hd.l4, hd.len - hd.l4);
		q->nsge++;
		q->dw0 = GDMA_SET(GDMA_WQE_LAST_VBYTES, hd.l4);
		break;
	case T_HDR_PAYLOAD:
		/* 10 payload bytes in SGE 0 */
		memcpy(h->txb.base + hd.len, h->txb.base + PL_OFF, 10);
		q->sge[0].size = hd.len + 10;
		q->sge[1].address += 10;
		q->sge[1].size -= 10;
		q->dw0 = GDMA_SET(GDMA_WQE_LAST_VBYTES, hd.len + 10);
		break;
	case T_NO_PAYLOAD:
		q->sge[1].size = 0;
		break;
	case T_ETH_ONLY:
		q->sge[0].size = 14;
		q->dw0 = GDMA_SET(GDMA_WQE_LAST_VBYTES, 14);
		break;
	case T_MSS0:
		q->dw1 &= ~GDMA_SET(GDMA_WQE_CLIENT_DATA_UNIT, GDMA_WQE_CLIENT_DATA_UNIT_MASK);
		break;
	case T_NO_TCP_CSUM:
		q->oob.dw0 &= ~GDMA_SET(MANA_TX_COMP_TCP_CSUM, 1);
		break;
	case T_NO_IP_CSUM:
		q->oob.dw0 &= ~GDMA_SET(MANA_TX_COMP_IPHDR_CSUM, 1);
		break;
	case T_UDP_CSUM:
		q->oob.dw0 |= GDMA_SET(MANA_TX_COMP_UDP_CSUM, 1);
		break;
	case T_TRANS_OFF:
		q->oob.dw1 = (q->oob.dw1 & ~GDMA_SET(MANA_TX_TRANS_OFF, 0x3FF)) |
			     GDMA_SET(MANA_TX_TRANS_OFF, hd.l4 + 4);
		break;
	default:
		break;
	}
}

struct refusal {
	const char *name;
	enum tweak t;
	bool ipv6, insert, tagged;
	uint32_t payload, mss, mtu, nsge;
	uint32_t type;
	const char *why;	/* 42: in the device's last error (the log line) */
};

static const struct refusal refusals[] = {
	{ "1 SGE", T_ONE_SGE, false, false, false, 3000, 1448, 0, 1, CQE_TX_GDMA_ERR,
	  "LSO WQE with 1 SGE(s)" },
	{ "last_vbytes off by one", T_VBYTES, false, false, false, 3000, 1448, 0, 1,
	  CQE_TX_GDMA_ERR, "last_vbytes 53 is not SGE 0's size 54" },
	{ "last_vbytes 0", T_VBYTES_ZERO, true, false, false, 3000, 1448, 0, 1, CQE_TX_GDMA_ERR,
	  "last_vbytes 0 is not SGE 0's size 74" },
	{ "headers split over 2 SGEs", T_HDR_SPLIT, false, false, false, 3000, 1448, 0, 2,
	  CQE_TX_GDMA_ERR, "SGE 0 (34 bytes) ends inside the headers" },
	{ "payload in SGE 0", T_HDR_PAYLOAD, false, false, false, 3000, 1448, 0, 1,
	  CQE_TX_GDMA_ERR, "holds 10 payload bytes after 54 bytes of headers" },
	{ "no payload", T_NO_PAYLOAD, false, false, false, 3000, 1448, 0, 1, CQE_TX_GDMA_ERR,
	  "SGEs 1..1 hold no payload" },
	{ "SGE 0 only Ethernet", T_ETH_ONLY, true, false, false, 3000, 1448, 0, 1,
	  CQE_TX_GDMA_ERR, "SGE 0 (14 bytes) ends inside the headers" },
	{ "MSS 0", T_MSS0, false, false, false, 3000, 1448, 0, 1, CQE_TX_INVALID_OOB, NULL },
	{ "comp_tcp_csum 0", T_NO_TCP_CSUM, true, false, false, 3000, 1448, 0, 1,
	  CQE_TX_INVALID_OOB, NULL },
	{ "IPv4 comp_iphdr_csum 0", T_NO_IP_CSUM, false, false, false, 3000, 1448, 0, 1,
	  CQE_TX_INVALID_OOB, NULL },
	{ "comp_udp_csum 1", T_UDP_CSUM, false, false, false, 3000, 1448, 0, 1,
	  CQE_TX_INVALID_OOB, NULL },
	{ "UDP", T_UDP, false, false, false, 3000, 1448, 0, 1, CQE_TX_HDR_PROCESSING_ERROR, NULL },
	{ "ARP", T_ARP, false, false, false, 3000, 1448, 0, 1, CQE_TX_HDR_PROCESSING_ERROR, NULL },
	{ "IPv4 options", T_IP_OPT, false, false, false, 3000, 1448, 0, 1,
	  CQE_TX_HDR_PROCESSING_ERROR, NULL },
	{ "IPv4 fragment", T_FRAG, false, false, false, 3000, 1448, 0, 1,
	  CQE_TX_HDR_PROCESSING_ERROR, NULL },
	{ "IPv6 fragment header", T_IP6_FRAG, true, false, false, 3000, 1448, 0, 1,
	  CQE_TX_HDR_PROCESSING_ERROR, NULL },
	{ "trans_off not the TCP offset", T_TRANS_OFF, false, false, false, 3000, 1448, 0, 1,
	  CQE_TX_HDR_PROCESSING_ERROR, NULL },
	{ "65537 bytes", T_TOO_BIG, false, false, false, 65537 - 54, 8000, 9000, 8,
	  CQE_TX_MTU_DROP, NULL },
	/* 54 + 1465 = 1519: one byte over MTU + 18 (hardware.md §19) */
	{ "segment over MTU", T_SEG_MTU, false, false, false, 3000, 1465, 0, 1,
	  CQE_TX_MTU_DROP, NULL },
	/* 54 + 1461 + the inserted 4 = 1519 */
	{ "inserted tag: segment over MTU", T_SEG_MTU, false, true, false, 3000, 1461, 0, 1,
	  CQE_TX_MTU_DROP, NULL },
	{ "MSS 16383 over MTU 9000", T_SEG_MTU, false, false, false, 20000, 16383, 9000, 2,
	  CQE_TX_MTU_DROP, NULL },
	{ "VLAN insertion into tagged headers", T_VLAN_TAGGED, false, true, true, 3000, 1400,
	  0, 1, CQE_TX_VLAN_TAGGING_VIOLATION, NULL },
};

/*
 * Every row of the §3.5 table: its CQE type and a nonzero vendor error,
 * nothing on the wire. 42 stops the SQ (the next WQE gets no CQE,
 * queue_errors + 1); after the others the queue goes on.
 */
static void
test_lso_refusals(void)
{
	struct lso_spec good = { .mss = 1448, .payload = 3000, .nsge = 2 };
	uint8_t fr[128];
	uint32_t len = (uint32_t)udp_frame(fr, 5, 40);
	size_t i;

	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *r = &refusals[i];
		struct lso_spec s = { .ipv6 = r->ipv6, .ext = r->t == T_IP6_FRAG,
				      .insert = r->insert, .tagged = r->tagged, .mss = r->mss,
				      .payload = r->payload, .nsge = r->nsge };
		struct mana_model_port_stats st0, st;
		struct lso_wqe q;
		uint32_t verr = 0;
		struct h h;

		check_case = r->name;
		REQUIRE(lso_open_none(&h, r->mtu));
		lso_tweaked(&h, &s, r->t, &q);
		st0 = fx_stats(&h.f, 0);
		CHECK_EQ(lso_post(&h, &q, &verr), r->type);
		CHECK_NE(verr, 0);
		st = fx_stats(&h.f, 0);
		CHECK_EQ(st.tx_err[r->type - 32] - st0.tx_err[r->type - 32], 1);
		CHECK_EQ(st.tx_frames, st0.tx_frames);
		CHECK_EQ(st.tx_lso_wqes, st0.tx_lso_wqes);
		CHECK_EQ(st.tx_lso_segments, st0.tx_lso_segments);
		if (r->type == CQE_TX_GDMA_ERR) {
			CHECK_EQ(st.queue_errors - st0.queue_errors, 1);
			CHECK_MSG(strstr(mana_model_last_error(h.f.m), r->why) != NULL,
				  "last error \"%s\" does not say \"%s\"",
				  mana_model_last_error(h.f.m), r->why);
			/* the queue is disabled: no later WQE is processed */
			h_tx(&h, fr, len, NULL, false);
			fx_run(&h.f);
			CHECK_EQ(h_tx_cqe(&h, NULL, NULL), 0);
			CHECK_EQ(fx_stats(&h.f, 0).tx_frames, st0.tx_frames);
		} else {
			CHECK_EQ(st.queue_errors, st0.queue_errors);
			/* the queue goes on with a good LSO WQE */
			s = good;
			lso_tweaked(&h, &s, T_NONE, &q);	/* no tweak */
			CHECK_EQ(lso_post(&h, &q, NULL), CQE_TX_OKAY);
			CHECK_EQ(fx_stats(&h.f, 0).tx_lso_segments - st0.tx_lso_segments, 3);
		}
		h_close(&h);
	}
	check_case = NULL;
}

/*
 * Outside LSO the header bits stay refused: last_vbytes or an MSS on a WQE
 * without client_oob_in_sgl, and the LSO bit on an RQ WQE (§14 #17).
 */
static void
test_lso_bits_elsewhere(void)
{
	struct mana_model_port_stats st0;
	struct mana_tx_oob oob;
	struct gdma_sge sge;
	uint8_t fr[128];
	uint32_t len = (uint32_t)udp_frame(fr, 6, 40), hdr[2], verr = 0, off;
	struct h h;

	REQUIRE(lso_open_none(&h, 0));
	fx_tx_oob(&h.tx, &oob);
	memcpy(h.txb.base, fr, len);
	sge = fx_sge(&h.txb, 0, len);
	/* an MSS without the LSO bit */
	h.tx.head += fx_wqe_write(h.tx.dv.sq_buf, h.tx.dv.sq_size, h.tx.head,
				  GDMA_SET(GDMA_WQE_NUM_SGE, 1) | GDMA_SET(GDMA_WQE_OOB_DIV4, 2) |
				  GDMA_SET(GDMA_WQE_CLIENT_DATA_UNIT, 1448), &oob, 8, &sge, 1);
	fx_tx_ring(&h.tx);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, &verr, NULL), CQE_TX_INVALID_OOB);
	CHECK_NE(verr, 0);
	/* last_vbytes without the LSO bit */
	off = (h.tx.head * GDMA_WQE_BU_SIZE) & (h.tx.dv.sq_size - 1);
	h.tx.head += fx_wqe_write(h.tx.dv.sq_buf, h.tx.dv.sq_size, h.tx.head,
				  GDMA_SET(GDMA_WQE_NUM_SGE, 1) | GDMA_SET(GDMA_WQE_OOB_DIV4, 2),
				  &oob, 8, &sge, 1);
	hdr[0] = GDMA_SET(GDMA_WQE_LAST_VBYTES, len);
	memcpy((uint8_t *)h.tx.dv.sq_buf + off, hdr, 4);
	fx_tx_ring(&h.tx);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_INVALID_OOB);
	/* an LSO WQE's reserved dw0 bits */
	{
		struct lso_spec s = { .mss = 1448, .payload = 3000 };
		struct lso_wqe q;

		lso_tweaked(&h, &s, T_NONE, &q);
		q.dw0 |= 1;
		CHECK_EQ(lso_post(&h, &q, NULL), CQE_TX_INVALID_OOB);
	}
	h_close(&h);

	/* RQ: client_oob_in_sgl stops the RQ */
	REQUIRE(h_open(&h, 1, false));
	st0 = fx_stats(&h.f, 0);
	sge = fx_sge(&h.rxb, 0, SLOT);
	off = fx_rx_write(&h.rx, 0, &sge, 1) * GDMA_WQE_BU_SIZE;
	memcpy(hdr, (uint8_t *)h.rx.dv[0].buf + (off & (h.rx.dv[0].size - 1)), 8);
	hdr[1] |= GDMA_SET(GDMA_WQE_OOB_IN_SGL, 1);
	memcpy((uint8_t *)h.rx.dv[0].buf + (off & (h.rx.dv[0].size - 1)), hdr, 8);
	fx_rx_ring(&h.rx, 0);
	inject_burst(&h, 1, 40);
	fx_run(&h.f);
	CHECK_EQ(fx_stats(&h.f, 0).queue_errors - st0.queue_errors, 1);
	CHECK_EQ(fx_stats(&h.f, 0).rx_frames, st0.rx_frames);
	h_close(&h);
}

/* Several LSO and plain WQEs in a row: each one CQE, the counters add up. */
static void
test_lso_counters(void)
{
	struct mana_model_port_stats st0, st;
	struct lso_spec s = { .mss = 1000, .payload = 2500, .nsge = 2 };
	struct lso_wqe q;
	uint8_t fr[128];
	uint32_t len = (uint32_t)udp_frame(fr, 7, 40), i;
	struct mana_model_queue_stats qa, qb;
	struct h h;

	REQUIRE(lso_open_none(&h, 0));
	st0 = fx_stats(&h.f, 0);
	REQUIRE_EQ(mana_model_queue_stats(h.f.m, h.tx.dv.sq_id, &qa), 0);
	for (i = 0; i < 3; i++) {
		lso_tweaked(&h, &s, T_NONE, &q);
		CHECK_EQ(lso_post(&h, &q, NULL), CQE_TX_OKAY);
		h_tx(&h, fr, len, NULL, false);
		fx_run(&h.f);
		CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	}
	/* a refused one counts in neither */
	lso_tweaked(&h, &s, T_MSS0, &q);
	CHECK_EQ(lso_post(&h, &q, NULL), CQE_TX_INVALID_OOB);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), 0);	/* one CQE per WQE, not per segment */
	st = fx_stats(&h.f, 0);
	REQUIRE_EQ(mana_model_queue_stats(h.f.m, h.tx.dv.sq_id, &qb), 0);
	CHECK_EQ(st.tx_lso_wqes - st0.tx_lso_wqes, 3);
	CHECK_EQ(st.tx_lso_segments - st0.tx_lso_segments, 9);
	CHECK_EQ(st.tx_frames - st0.tx_frames, 12);
	/* 3 x (2 x (54 + 1000) + (54 + 500)) + 3 plain frames */
	CHECK_EQ(st.tx_bytes - st0.tx_bytes, 3 * (2 * 1054 + 554) + 3 * len);
	CHECK_EQ(qb.frames - qa.frames, 12);
	CHECK_EQ(qb.cqes - qa.cqes, 7);
	h_close(&h);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_lso_ipv4),
	UNIT_TEST(test_lso_ipv6),
	UNIT_TEST(test_lso_vlan),
	UNIT_TEST(test_lso_flags_wrap),
	UNIT_TEST(test_lso_mss_edges),
	UNIT_TEST(test_lso_bad_seed),
	UNIT_TEST(test_lso_refusals),
	UNIT_TEST(test_lso_bits_elsewhere),
	UNIT_TEST(test_lso_counters),
};

UNIT_MAIN(tests)
