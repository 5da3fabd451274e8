/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Offloads in the device engine, driven by hand (manual mode): RX hash types
 * and checksum bits per protocol, TX checksum offload and VLAN insertion
 * (hardware.md §3, §4, §6).
 */

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "engine_harness.h"

struct rxcase {
	const char *name;
	bool ipv6;
	uint8_t proto;
	int corrupt;		/* 0 none, 1 L4 payload, 2 IPv4 header checksum */
	uint32_t hashtype;
	uint32_t ok_bits, bad_bits;	/* dw1 checksum flags that must be set */
	uint32_t optional;		/* flags that may be set (anything else: clear) */
};

#define B(f) GDMA_SET(MANA_RXCQE_##f, 1)
#define CSUM_BITS (B(IP_CSUM_OK) | B(IP_CSUM_BAD) | B(TCP_CSUM_OK) | B(TCP_CSUM_BAD) | \
		   B(UDP_CSUM_OK) | B(UDP_CSUM_BAD) | B(OUTER_IP_CSUM_OK) | B(OUTER_IP_CSUM_BAD))

/* IPv6: no header checksum, the header reported good (hardware.md §4.7). */
static const struct rxcase rxcases[] = {
	{ "tcp4", false, TF_PROTO_TCP, 0, MANA_HASH_L4, B(IP_CSUM_OK) | B(TCP_CSUM_OK), 0, 0 },
	{ "udp4", false, TF_PROTO_UDP, 0, MANA_HASH_L4, B(IP_CSUM_OK) | B(UDP_CSUM_OK), 0, 0 },
	{ "tcp6", true, TF_PROTO_TCP, 0, MANA_HASH_L4, B(IP_CSUM_OK) | B(TCP_CSUM_OK), 0, 0 },
	{ "udp6", true, TF_PROTO_UDP, 0, MANA_HASH_L4, B(IP_CSUM_OK) | B(UDP_CSUM_OK), 0, 0 },
	{ "icmp4", false, TF_PROTO_ICMP, 0, MANA_HASH_L3, B(IP_CSUM_OK), 0, 0 },
	{ "icmp6", true, TF_PROTO_ICMP6, 0, MANA_HASH_L3, B(IP_CSUM_OK), 0, 0 },
	{ "tcp4-bad-l4", false, TF_PROTO_TCP, 1, MANA_HASH_L4, B(IP_CSUM_OK), B(TCP_CSUM_BAD),
	  0 },
	{ "udp4-bad-l4", false, TF_PROTO_UDP, 1, MANA_HASH_L4, B(IP_CSUM_OK), B(UDP_CSUM_BAD),
	  0 },
	{ "tcp6-bad-l4", true, TF_PROTO_TCP, 1, MANA_HASH_L4, B(IP_CSUM_OK), B(TCP_CSUM_BAD),
	  0 },
	{ "udp6-bad-l4", true, TF_PROTO_UDP, 1, MANA_HASH_L4, B(IP_CSUM_OK), B(UDP_CSUM_BAD),
	  0 },
	/* whether L4 is still verified under a bad IP header is not specified */
	{ "udp4-bad-ip", false, TF_PROTO_UDP, 2, MANA_HASH_L4, 0, B(IP_CSUM_BAD),
	  B(UDP_CSUM_OK) },
};

static void
test_rx_hashtype_csum(void)
{
	struct rx_pkt p;
	struct tf_spec s;
	uint8_t fr[512];
	size_t i, len;
	uint32_t ht, hash;
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	h_rx_post(&h, 0, DEPTH, SLOT);
	for (i = 0; i < sizeof(rxcases) / sizeof(rxcases[0]); i++) {
		const struct rxcase *c = &rxcases[i];
		uint32_t bits;

		tf_spec_init(&s);
		s.ipv6 = c->ipv6;
		s.proto = c->proto;
		s.payload_len = 100;
		if (c->ipv6) {
			tf_ip6(s.src, "fd00::1");
			tf_ip6(s.dst, "fd00::2");
		}
		len = tf_build(fr, &s);
		if (c->corrupt == 1)
			fr[len - 3] ^= 0x21;
		if (c->corrupt == 2)
			fr[tf_l3_off(&s) + 10] ^= 0x01;
		hash = tf_rss_hash(fx_rss_key, &s, &ht);
		CHECK_EQ(ht, c->hashtype);
		CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
		fx_run(&h.f);
		if (!CHECK_MSG(h_rx_collect(&h, &p, 1) == 1, "%s: not delivered", c->name))
			continue;
		CHECK_MSG(GDMA_GET(p.dw1, MANA_RXCQE_HASHTYPE) == c->hashtype,
			  "%s: hashtype 0x%x", c->name, GDMA_GET(p.dw1, MANA_RXCQE_HASHTYPE));
		CHECK_MSG(p.hash == hash, "%s: hash 0x%08x, expected 0x%08x", c->name, p.hash,
			  hash);
		bits = p.dw1 & CSUM_BITS & ~c->optional;
		CHECK_MSG(bits == (c->ok_bits | c->bad_bits),
			  "%s: checksum bits 0x%08x, expected 0x%08x", c->name, bits,
			  c->ok_bits | c->bad_bits);
		CHECK_MSG(p.len == len && memcmp(p.data, fr, len) == 0, "%s: frame altered",
			  c->name);
	}
	h_close(&h);
}

/* Capture file of test_vlan_insert (in the build tree under meson test). */
static void
vlan_pcap_path(char *buf, size_t n)
{
	const char *dir = getenv("MESON_BUILD_ROOT");

	snprintf(buf, n, "%s/unit_engine_offload_%d_vlan.pcap", dir != NULL ? dir : ".",
		 (int)getpid());
}

/*
 * TX VLAN insertion: on the wire (a pcap capture) the frame carries the tag
 * with the OOB's PCP, DEI and VLAN ID; back on RX (loop wire) the device
 * strips it again and reports only the VLAN ID (doc/design.md, "Receive").
 */
static void
test_vlan_insert(void)
{
	char path[512], spec[600], err[PCAP_ERRBUF_SIZE];
	struct mana_model_config cfg;
	struct mana_tx_oob oob;
	struct pcap_pkthdr *ph;
	const u_char *data;
	struct rx_pkt p;
	uint8_t fr[256], want[260];
	size_t len = udp_frame(fr, 13, 80);
	unsigned int n = 0;
	pcap_t *pc;
	struct h h;

	memcpy(want, fr, 12);
	want[12] = 0x81;
	want[13] = 0x00;
	tf_put16(want + 14, (uint16_t)(5 << 13 | 1 << 12 | 0x123));
	memcpy(want + 16, fr + 12, len - 12);

	/* the wire side: tagged as asked, then an untagged frame as it was */
	vlan_pcap_path(path, sizeof(path));
	fx_config(&cfg, 1);
	snprintf(spec, sizeof(spec), "pcap:tx=%s", path);
	REQUIRE_EQ(mana_model_parse_wire(spec, &cfg.wire[0], NULL), 0);
	REQUIRE(h_open_cfg(&h, &cfg, 0, 4));
	fx_tx_oob_long(&h.tx, &oob);
	oob.dw2 = GDMA_SET(MANA_TX_INJECT_VLAN, 1) | GDMA_SET(MANA_TX_PCP, 5) |
		  GDMA_SET(MANA_TX_DEI, 1) | GDMA_SET(MANA_TX_VLAN_ID, 0x123);
	h_tx(&h, fr, (uint32_t)len, &oob, true);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	h_tx(&h, fr, (uint32_t)len, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	CHECK_EQ(fx_stats(&h.f, 0).tx_bytes, 2 * len + 4);
	CHECK_EQ(fx_stats(&h.f, 0).wire_sink_vlan, 1);
	h_close(&h);	/* closes the capture */
	pc = pcap_open_offline(path, err);
	if (CHECK_MSG(pc != NULL, "pcap_open_offline(%s): %s", path, err)) {
		while (pcap_next_ex(pc, &ph, &data) == 1) {
			if (n == 0)
				CHECK_MSG(ph->caplen == len + 4 && memcmp(data, want, len + 4) == 0,
					  "tagged frame on the wire differs (%u bytes)",
					  ph->caplen);
			if (n == 1)
				CHECK_MSG(ph->caplen == len && memcmp(data, fr, len) == 0,
					  "untagged frame on the wire differs (%u bytes)",
					  ph->caplen);
			n++;
		}
		CHECK_EQ(n, 2);
		pcap_close(pc);
	}
	unlink(path);

	/* loop: the receiving side strips the tag it just got */
	REQUIRE(h_open(&h, 1, false));
	h_rx_post(&h, 0, 4, SLOT);
	fx_tx_oob_long(&h.tx, &oob);	/* this harness's queue ids */
	oob.dw2 = GDMA_SET(MANA_TX_INJECT_VLAN, 1) | GDMA_SET(MANA_TX_PCP, 5) |
		  GDMA_SET(MANA_TX_DEI, 1) | GDMA_SET(MANA_TX_VLAN_ID, 0x123);
	h_tx(&h, fr, (uint32_t)len, &oob, true);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	REQUIRE_EQ(h_rx_collect(&h, &p, 1), 1);
	CHECK_EQ(p.len, len);
	CHECK_MEM(p.data, fr, len);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_PRESENT), 1);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_ID), 0x123);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_HASHTYPE), MANA_HASH_L4);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_UDP_CSUM_OK), 1);
	h_close(&h);
}

static void
test_csum_offload(void)
{
	struct mana_tx_oob oob;
	struct rx_pkt p;
	struct tf_spec s;
	uint8_t fr[1600];
	size_t len;
	unsigned int v;
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	h_rx_post(&h, 0, 16, SLOT);
	for (v = 0; v < 4; v++) {
		bool ipv6 = v & 2, tcp = !(v & 1);

		tf_spec_init(&s);
		s.ipv6 = ipv6;
		s.proto = tcp ? TF_PROTO_TCP : TF_PROTO_UDP;
		s.payload_len = 333;
		s.l4csum = TF_CSUM_PSEUDO;
		s.ip_csum_zero = true;
		if (ipv6) {
			tf_ip6(s.src, "2001:db8::a");
			tf_ip6(s.dst, "2001:db8::b");
		}
		len = tf_build(fr, &s);
		fx_tx_oob(&h.tx, &oob);
		oob.dw0 |= GDMA_SET(MANA_TX_IS_OUTER_IPV4, !ipv6) |
			   GDMA_SET(MANA_TX_IS_OUTER_IPV6, ipv6) |
			   GDMA_SET(MANA_TX_COMP_IPHDR_CSUM, !ipv6) |
			   GDMA_SET(MANA_TX_COMP_TCP_CSUM, tcp) |
			   GDMA_SET(MANA_TX_COMP_UDP_CSUM, !tcp);
		oob.dw1 |= GDMA_SET(MANA_TX_TRANS_OFF, tf_l4_off(&s));
		h_tx(&h, fr, (uint32_t)len, &oob, false);
		fx_run(&h.f);
		CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
		if (!CHECK_EQ(h_rx_collect(&h, &p, 1), 1))
			continue;
		CHECK_EQ(p.len, len);
		CHECK_MSG(tf_l4_ok(p.data, &s), "variant %u: L4 checksum not completed", v);
		if (!ipv6)
			CHECK_MSG(tf_ipv4_ok(p.data, &s), "variant %u: IP checksum wrong", v);
		if (tcp)
			CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_TCP_CSUM_OK), 1);
		else
			CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_UDP_CSUM_OK), 1);
		/* the payload itself is untouched */
		CHECK_MEM(p.data + tf_l4_off(&s) + 20, fr + tf_l4_off(&s) + 20, len -
			  tf_l4_off(&s) - 20);
	}
	/* without the offload bits the seeded checksum arrives as it was: bad */
	tf_spec_init(&s);
	s.proto = TF_PROTO_TCP;
	s.payload_len = 100;
	s.l4csum = TF_CSUM_PSEUDO;
	len = tf_build(fr, &s);
	h_tx(&h, fr, (uint32_t)len, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	if (CHECK_EQ(h_rx_collect(&h, &p, 1), 1)) {
		CHECK_MEM(p.data, fr, len);
		CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_TCP_CSUM_BAD), 1);
	}
	h_close(&h);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_rx_hashtype_csum),
	UNIT_TEST(test_vlan_insert),
	UNIT_TEST(test_csum_offload),
};

UNIT_MAIN(tests)
