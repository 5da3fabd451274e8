/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Internet checksums of the model (hardware.md §3.5, §4.4): RX verification flags
 * good frames ok and corrupted ones bad; TX offload completes a checksum
 * seeded with the pseudo-header sum, and cannot complete an unseeded one.
 * Expected values come from frames.h's independent RFC 1071 code.
 */

#include "model_net.h"
#include "frames.h"
#include "unit.h"

static void
test_primitives(void)
{
	/* RFC 1071 section 3 example: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2 */
	static const uint8_t rfc[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	/* a real IPv4 header with checksum b861 */
	static const uint8_t iph[20] = {
		0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
	};
	static const uint8_t odd[3] = { 0x01, 0x02, 0x03 };
	uint16_t v;

	/* The sum may be kept in either byte order (byte-order independence of
	 * the one's-complement sum, RFC 1071 1.2.B); the folded value is then
	 * the big-endian result or its byte swap. */
	v = mm_csum_fold(mm_csum_partial(rfc, sizeof(rfc), 0));
	CHECK_MSG(v == 0xddf2 || v == 0xf2dd, "fold = 0x%04x", v);
	CHECK_EQ(mm_csum_fold(mm_csum_partial(iph, sizeof(iph), 0)), 0xFFFF);
	/* chaining: sum of the halves = sum of the whole (even split) */
	CHECK_EQ(mm_csum_fold(mm_csum_partial(iph + 10, 10, mm_csum_partial(iph, 10, 0))),
		 0xFFFF);
	v = mm_csum_fold(mm_csum_partial(odd, 3, 0));
	CHECK_MSG(v == 0x0402 || v == 0x0204, "fold = 0x%04x", v);
	CHECK_EQ(mm_csum_fold(0x2ddf0), 0xddf2);
	CHECK_EQ(mm_csum_fold(0xFFFF), 0xFFFF);
	CHECK_EQ(mm_csum_fold(0x1FFFE), 0xFFFF);
	CHECK_EQ(mm_csum_fold(0xFFFFFFFF), 0xFFFF);
	CHECK_EQ(mm_csum_fold(0x10000), 1);
	CHECK_EQ(mm_csum_fold(0), 0);
}

struct variant {
	const char *name;
	bool ipv6;
	uint8_t proto;
};

static const struct variant variants[] = {
	{ "TCP/IPv4", false, TF_PROTO_TCP },
	{ "UDP/IPv4", false, TF_PROTO_UDP },
	{ "TCP/IPv6", true, TF_PROTO_TCP },
	{ "UDP/IPv6", true, TF_PROTO_UDP },
};

#define NVAR (sizeof(variants) / sizeof(variants[0]))

static size_t
build(uint8_t *buf, struct tf_spec *s, const struct variant *v, enum tf_l4csum mode,
      uint16_t plen)
{
	tf_spec_init(s);
	s->ipv6 = v->ipv6;
	s->proto = v->proto;
	s->l4csum = mode;
	s->payload_len = plen;
	s->payload_seed = (uint8_t)(plen * 7);
	if (v->ipv6) {
		tf_ip6(s->src, "2001:db8:1::10");
		tf_ip6(s->dst, "2001:db8:2::20");
	}
	return tf_build(buf, s);
}

static void
verify(const uint8_t *buf, size_t len, struct mm_csum_result *r)
{
	struct mm_frame_info fi;

	memset(&fi, 0, sizeof(fi));
	memset(r, 0, sizeof(*r));
	CHECK(mm_frame_parse(buf, (uint32_t)len, &fi));
	mm_csum_verify(buf, (uint32_t)len, &fi, r);
}

static void
test_verify_good(void)
{
	static const uint16_t plens[] = { 0, 1, 18, 333, 1400 };
	uint8_t buf[1600];
	struct tf_spec s;
	struct mm_csum_result r;
	size_t i, j, len;

	for (i = 0; i < NVAR; i++) {
		for (j = 0; j < sizeof(plens) / sizeof(plens[0]); j++) {
			len = build(buf, &s, &variants[i], TF_CSUM_FULL, plens[j]);
			REQUIRE(tf_l4_ok(buf, &s));
			verify(buf, len, &r);
			CHECK_MSG(r.l4_checked && r.l4_ok, "%s plen %u: l4 checked %d ok %d",
				  variants[i].name, plens[j], r.l4_checked, r.l4_ok);
			if (variants[i].ipv6)
				CHECK_MSG(!r.ip_checked, "%s: no IPv4 header", variants[i].name);
			else
				CHECK_MSG(r.ip_checked && r.ip_ok, "%s plen %u: ip %d %d",
					  variants[i].name, plens[j], r.ip_checked, r.ip_ok);
		}
	}
}

static void
test_verify_corrupt(void)
{
	uint8_t buf[1600];
	struct tf_spec s;
	struct mm_csum_result r;
	size_t i, len;

	for (i = 0; i < NVAR; i++) {
		const char *n = variants[i].name;

		/* one payload byte changed: L4 bad, IP still good */
		len = build(buf, &s, &variants[i], TF_CSUM_FULL, 100);
		buf[len - 5] ^= 0x10;
		verify(buf, len, &r);
		CHECK_MSG(r.l4_checked && !r.l4_ok, "%s payload: l4 %d %d", n, r.l4_checked,
			  r.l4_ok);
		if (!variants[i].ipv6)
			CHECK_MSG(r.ip_checked && r.ip_ok, "%s payload: ip %d %d", n,
				  r.ip_checked, r.ip_ok);
		/* the destination port changed: L4 bad */
		len = build(buf, &s, &variants[i], TF_CSUM_FULL, 100);
		buf[tf_l4_off(&s) + 3] ^= 0x01;
		verify(buf, len, &r);
		CHECK_MSG(r.l4_checked && !r.l4_ok, "%s port: l4 %d %d", n, r.l4_checked,
			  r.l4_ok);
		/* the checksum field itself changed */
		len = build(buf, &s, &variants[i], TF_CSUM_FULL, 100);
		buf[tf_l4_csum_off(&s)] ^= 0x80;
		verify(buf, len, &r);
		CHECK_MSG(r.l4_checked && !r.l4_ok, "%s csum: l4 %d %d", n, r.l4_checked,
			  r.l4_ok);
		/* an address byte changed: the pseudo header no longer matches */
		len = build(buf, &s, &variants[i], TF_CSUM_FULL, 100);
		buf[tf_l3_off(&s) + (variants[i].ipv6 ? 39 : 19)] ^= 0x04;
		if (!variants[i].ipv6) {
			/* keep the IPv4 header valid so only L4 is wrong */
			buf[tf_l3_off(&s) + 10] = 0;
			buf[tf_l3_off(&s) + 11] = 0;
			tf_put16(buf + tf_l3_off(&s) + 10,
				 (uint16_t)~tf_fold(tf_sum(buf + tf_l3_off(&s), 20, 0)));
		}
		verify(buf, len, &r);
		CHECK_MSG(r.l4_checked && !r.l4_ok, "%s addr: l4 %d %d", n, r.l4_checked,
			  r.l4_ok);
		if (!variants[i].ipv6)
			CHECK_MSG(r.ip_checked && r.ip_ok, "%s addr: ip %d %d", n,
				  r.ip_checked, r.ip_ok);
	}
}

static void
test_verify_ipv4_header(void)
{
	uint8_t buf[256];
	struct tf_spec s;
	struct mm_csum_result r;
	size_t len;

	/* header checksum broken: ip bad */
	len = build(buf, &s, &variants[0], TF_CSUM_FULL, 20);
	buf[tf_l3_off(&s) + 11] ^= 0x01;
	verify(buf, len, &r);
	CHECK(r.ip_checked);
	CHECK(!r.ip_ok);
	/* TTL changed without fixing the checksum: ip bad */
	len = build(buf, &s, &variants[1], TF_CSUM_FULL, 20);
	buf[tf_l3_off(&s) + 8] = 3;
	verify(buf, len, &r);
	CHECK(r.ip_checked);
	CHECK(!r.ip_ok);
	/* ICMP over IPv4: IP checked, no TCP/UDP checksum */
	tf_spec_init(&s);
	s.proto = TF_PROTO_ICMP;
	len = tf_build(buf, &s);
	verify(buf, len, &r);
	CHECK(r.ip_checked && r.ip_ok);
	CHECK(!r.l4_checked);
}

static void
test_verify_udp_zero(void)
{
	uint8_t buf[256];
	struct tf_spec s;
	struct mm_csum_result r;
	size_t len;

	/* UDP over IPv4 with checksum 0 means "no checksum": ok (header comment) */
	len = build(buf, &s, &variants[1], TF_CSUM_ZERO, 40);
	CHECK_EQ(tf_get16(buf + tf_l4_csum_off(&s)), 0);
	verify(buf, len, &r);
	CHECK(!r.l4_checked || r.l4_ok);
	CHECK(r.udp_no_csum);
	CHECK(r.ip_checked && r.ip_ok);
	/* a nonzero, correct UDP checksum is a verified one */
	len = build(buf, &s, &variants[1], TF_CSUM_FULL, 40);
	verify(buf, len, &r);
	CHECK(r.l4_checked && r.l4_ok);
	CHECK(!r.udp_no_csum);
}

static bool
offload(uint8_t *buf, size_t len, bool ip, bool tcp, bool udp)
{
	struct mm_frame_info fi;

	memset(&fi, 0, sizeof(fi));
	CHECK(mm_frame_parse(buf, (uint32_t)len, &fi));
	return mm_csum_offload(buf, (uint32_t)len, &fi, ip, tcp, udp);
}

static void
test_offload_seeded(void)
{
	static const uint16_t plens[] = { 0, 7, 64, 999, 1458 };
	uint8_t buf[1600], want[1600];
	struct tf_spec s;
	struct mm_csum_result r;
	size_t i, j, len;

	for (i = 0; i < NVAR; i++) {
		const struct variant *v = &variants[i];
		bool tcp = v->proto == TF_PROTO_TCP;

		for (j = 0; j < sizeof(plens) / sizeof(plens[0]); j++) {
			len = build(want, &s, v, TF_CSUM_FULL, plens[j]);
			len = build(buf, &s, v, TF_CSUM_PSEUDO, plens[j]);
			s.ip_csum_zero = true;
			if (!v->ipv6)
				len = tf_build(buf, &s);	/* IP checksum left 0 as well */
			CHECK_MSG(offload(buf, len, !v->ipv6, tcp, !tcp), "%s plen %u refused",
				  v->name, plens[j]);
			CHECK_MSG(tf_l4_ok(buf, &s), "%s plen %u: L4 checksum wrong", v->name,
				  plens[j]);
			if (!v->ipv6)
				CHECK_MSG(tf_ipv4_ok(buf, &s), "%s plen %u: IP checksum wrong",
					  v->name, plens[j]);
			CHECK_MEM(buf, want, len);
			verify(buf, len, &r);
			CHECK(r.l4_checked && r.l4_ok);
		}
	}
}

static void
test_offload_unseeded(void)
{
	uint8_t buf[1600];
	struct tf_spec s;
	struct mm_csum_result r;
	size_t i, len;

	for (i = 0; i < NVAR; i++) {
		const struct variant *v = &variants[i];
		bool tcp = v->proto == TF_PROTO_TCP;

		/* field left 0: the pseudo header is missing from the result */
		len = build(buf, &s, v, TF_CSUM_ZERO, 200);
		CHECK(offload(buf, len, false, tcp, !tcp));
		CHECK_MSG(!tf_l4_ok(buf, &s), "%s: unseeded checksum verified", v->name);
		verify(buf, len, &r);
		CHECK_MSG(r.l4_checked && !r.l4_ok, "%s: l4 %d %d", v->name, r.l4_checked,
			  r.l4_ok);
	}
}

static void
test_offload_ip_only(void)
{
	uint8_t buf[256], want[256];
	struct tf_spec s;
	size_t len;

	len = build(want, &s, &variants[0], TF_CSUM_PSEUDO, 30);
	memcpy(buf, want, len);
	buf[tf_l3_off(&s) + 10] = 0x12;		/* garbage IP checksum */
	buf[tf_l3_off(&s) + 11] = 0x34;
	CHECK(offload(buf, len, true, false, false));
	CHECK(tf_ipv4_ok(buf, &s));
	/* L4 untouched: still the seeded value */
	CHECK_MEM(buf, want, len);
}

static void
test_offload_refused(void)
{
	static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 9 };
	uint8_t buf[256], sip[4] = { 1, 2, 3, 4 }, tip[4] = { 5, 6, 7, 8 };
	struct tf_spec s;
	size_t len;

	/* IPv4 header checksum on an IPv6 frame */
	len = build(buf, &s, &variants[2], TF_CSUM_PSEUDO, 30);
	CHECK(!offload(buf, len, true, false, false));
	/* TCP checksum on ARP */
	len = tf_build_arp(buf, mac, sip, tip);
	CHECK(!offload(buf, len, false, true, false));
	CHECK(!offload(buf, len, true, false, false));
	/* UDP checksum on an ICMP frame */
	tf_spec_init(&s);
	s.proto = TF_PROTO_ICMP;
	len = tf_build(buf, &s);
	CHECK(!offload(buf, len, false, false, true));
	CHECK(!offload(buf, len, false, true, false));
}

/* xorshift64: the same pseudo-random inputs on every run. */
static uint64_t
rnd(uint64_t *st)
{
	*st ^= *st << 13;
	*st ^= *st >> 7;
	*st ^= *st << 17;
	return *st;
}

/*
 * mm_csum_partial (folded) against frames.h's byte-pair RFC 1071 sum, seed
 * included; its portable C block sum too (what this host may not run).
 */
static bool
partial_ok(const uint8_t *p, uint32_t len, uint32_t seed)
{
	uint16_t got = mm_csum_fold(mm_csum_partial(p, len, seed));
	uint16_t port = mm_csum_fold(mm_csum_partial_portable(p, len, seed));
	uint16_t want = tf_fold(tf_sum(p, len, seed));

	if (got != want || port != want)
		fprintf(stderr, "  len %u at %p seed 0x%x: 0x%04x (portable 0x%04x), "
			"reference 0x%04x\n", len, (const void *)p, seed, got, port, want);
	return got == want && port == want;
}

#define PBUF	(9216 + 64)

/*
 * The word-at-a-time sums (x86-64's add-with-carry chain and the portable
 * one) with their end-around carries: every length 0..300 at every
 * alignment 0..7, random lengths up to 9216, on
 * random bytes, on all-0xFF bytes (a carry out of every word) and on
 * patterns whose words sum to exactly 0xFFFF multiples; chained sums split
 * at even offsets equal the whole.
 */
static void
test_partial_reference(void)
{
	static uint8_t buf[PBUF];
	uint64_t st = 0x9E3779B97F4A7C15ull;
	uint32_t len, off, i, k, bad = 0;

	for (int pat = 0; pat < 3; pat++) {
		for (i = 0; i < PBUF; i++)
			buf[i] = pat == 0 ? (uint8_t)rnd(&st) : pat == 1 ? 0xFF :
				 (i & 1 ? 0x01 : 0xFE);
		for (off = 0; off < 8; off++)
			for (len = 0; len <= 300; len++)
				bad += !partial_ok(buf + off, len, (uint32_t)rnd(&st) & 0x3FFFF);
		for (i = 0; i < 2000; i++) {
			off = (uint32_t)rnd(&st) & 7;
			len = (uint32_t)(rnd(&st) % 9217);
			bad += !partial_ok(buf + off, len, 0);
			k = (uint32_t)(rnd(&st) % (len + 1)) & ~1u;
			if (mm_csum_fold(mm_csum_partial(buf + off + k, len - k,
							 mm_csum_partial(buf + off, k, 0))) !=
			    tf_fold(tf_sum(buf + off, len, 0)))
				bad++;
		}
	}
	CHECK_MSG(bad == 0, "%u sums differ from the reference", bad);
	/* Edge values: nothing, one byte, the largest 16-bit and 64-bit words. */
	memset(buf, 0xFF, 16);
	CHECK_EQ(mm_csum_fold(mm_csum_partial(buf, 0, 0)), 0);
	CHECK_EQ(mm_csum_fold(mm_csum_partial(buf, 1, 0)), 0xFF00);
	CHECK_EQ(mm_csum_fold(mm_csum_partial(buf, 16, 0)), 0xFFFF);
	memset(buf, 0, 16);
	buf[7] = 0x80;
	buf[15] = 0x80;	/* two words whose 64-bit sum carries out: 0x0080 + 0x0080 */
	CHECK_EQ(mm_csum_fold(mm_csum_partial(buf, 16, 0)), 0x0100);
	/* Two all-ones words and a 1: the carry added back carries out again. */
	memset(buf, 0xFF, 16);
	memset(buf + 16, 0, 8);
	buf[16] = 0x01;
	CHECK_EQ(mm_csum_fold(mm_csum_partial(buf, 24, 0)), 0x0100);
	CHECK(partial_ok(buf, 24, 0));
	/* The same in a 64-byte block and across blocks: 15 all-ones words, then a 1. */
	memset(buf, 0xFF, 120);
	memset(buf + 120, 0, 8);
	buf[120] = 0x01;
	CHECK_EQ(mm_csum_fold(mm_csum_partial(buf + 64, 64, 0)), 0x0100);
	CHECK_EQ(mm_csum_fold(mm_csum_partial_portable(buf + 64, 64, 0)), 0x0100);
	CHECK(partial_ok(buf, 128, 0));
	CHECK(partial_ok(buf + 1, 127, 0));
}

/*
 * RX verification over random TCP/UDP, IPv4/IPv6 frames of random payload
 * lengths (odd ones too, up to 9000 bytes), each either intact or with one
 * random bit changed in its L4 segment or its IPv4 header checksum (not in
 * what tells where L4 starts and ends, nor in the addresses, which the
 * reference takes from the spec): the device's verdicts are the
 * reference's (frames.h).
 */
static void
test_verify_reference(void)
{
	static uint8_t buf[9216];
	uint64_t st = 0xD1B54A32D192ED03ull;
	struct mm_csum_result r;
	struct tf_spec s;
	uint32_t i, bad = 0;

	for (i = 0; i < 4000; i++) {
		const struct variant *v = &variants[rnd(&st) % NVAR];
		uint16_t plen = (uint16_t)(rnd(&st) % (i < 3000 ? 1500 : 8900));
		size_t len = build(buf, &s, v, TF_CSUM_FULL, plen);

		if ((rnd(&st) & 1) != 0) {
			/* a byte of the L4 segment, or of the IPv4 header checksum */
			size_t l4 = tf_l4_off(&s), at = l4 + rnd(&st) % (len - l4);
			/* the TCP data offset (high nibble of byte 12) stays */
			uint32_t bits = v->proto == TF_PROTO_TCP && at == l4 + 12 ? 3 : 7;

			if (!v->ipv6 && (rnd(&st) & 3) == 0)
				at = tf_l3_off(&s) + 10 + (rnd(&st) & 1);
			buf[at] ^= (uint8_t)(1u << (rnd(&st) & bits));
		}
		/* (a UDP checksum changed to 0 means "none": not this test's case) */
		if (tf_get16(buf + tf_l4_csum_off(&s)) == 0)
			continue;
		verify(buf, len, &r);
		if (!r.l4_checked || r.l4_ok != tf_l4_ok(buf, &s)) {
			fprintf(stderr, "  %s plen %u: l4 checked %d ok %d, reference %d\n",
				v->name, plen, r.l4_checked, r.l4_ok, tf_l4_ok(buf, &s));
			bad++;
		}
		if (!v->ipv6 && (!r.ip_checked || r.ip_ok != tf_ipv4_ok(buf, &s)))
			bad++;
	}
	CHECK_MSG(bad == 0, "%u verdicts differ from the reference", bad);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_primitives),
	UNIT_TEST(test_partial_reference),
	UNIT_TEST(test_verify_reference),
	UNIT_TEST(test_verify_good),
	UNIT_TEST(test_verify_corrupt),
	UNIT_TEST(test_verify_ipv4_header),
	UNIT_TEST(test_verify_udp_zero),
	UNIT_TEST(test_offload_seeded),
	UNIT_TEST(test_offload_unseeded),
	UNIT_TEST(test_offload_ip_only),
	UNIT_TEST(test_offload_refused),
};

UNIT_MAIN(tests)
