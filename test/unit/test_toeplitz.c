/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Toeplitz RSS hash of the model (hardware.md §6, §1 rule 4): Microsoft's published
 * verification vectors ("Verifying the RSS Hash Calculation"), raw and
 * through real frames (parse + mm_rss_hash), the hash types, and agreement
 * with a bit-by-bit reference for random keys and inputs.
 */

#include <arpa/inet.h>

#include "mana_gdma.h"
#include "model_net.h"
#include "frames.h"
#include "unit.h"

static const uint8_t ms_key[MM_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct vec {
	const char *src, *dst;
	uint16_t sport, dport;
	uint32_t l4, l3;
};

/* Microsoft's table: source, destination, hash with ports, hash of addresses only. */
static const struct vec v4[] = {
	{ "66.9.149.187", "161.142.100.80", 2794, 1766, 0x51ccc178, 0x323e8fc2 },
	{ "199.92.111.2", "65.69.140.83", 14230, 4739, 0xc626b0ea, 0xd718262a },
	{ "24.19.198.95", "12.22.207.184", 12898, 38024, 0x5c2b394a, 0xd2d0a5de },
	{ "38.27.205.30", "209.142.163.6", 48228, 2217, 0xafc7327f, 0x82989176 },
	{ "153.39.163.191", "202.188.127.2", 44251, 1303, 0x10e828a2, 0x5d1809c5 },
};

static const struct vec v6[] = {
	{ "3ffe:2501:200:1fff::7", "3ffe:2501:200:3::1", 2794, 1766,
	  0x40207d3d, 0x2cc18cd5 },
	{ "3ffe:501:8::260:97ff:fe40:efab", "ff02::1", 14230, 4739,
	  0xdde51bbf, 0x0f0c461c },
	{ "3ffe:1900:4545:3:200:f8ff:fe21:67cf", "fe80::200:f8ff:fe21:67cf", 44251, 38024,
	  0x02d1feef, 0x4b61e985 },
};

#define NV4 (sizeof(v4) / sizeof(v4[0]))
#define NV6 (sizeof(v6) / sizeof(v6[0]))

#define ref_toeplitz tf_toeplitz

static void
vec_input(const struct vec *v, bool ipv6, uint8_t *in, uint32_t *l3len, uint32_t *l4len)
{
	uint32_t alen = ipv6 ? 16 : 4;

	CHECK(inet_pton(ipv6 ? AF_INET6 : AF_INET, v->src, in) == 1);
	CHECK(inet_pton(ipv6 ? AF_INET6 : AF_INET, v->dst, in + alen) == 1);
	tf_put16(in + 2 * alen, v->sport);
	tf_put16(in + 2 * alen + 2, v->dport);
	*l3len = 2 * alen;
	*l4len = 2 * alen + 4;
}

static void
test_ms_vectors_raw(void)
{
	uint8_t in[36];
	uint32_t l3, l4;
	size_t i;

	for (i = 0; i < NV4; i++) {
		vec_input(&v4[i], false, in, &l3, &l4);
		CHECK_EQ(l4, 12);
		CHECK_EQ(mm_toeplitz(ms_key, in, l4), v4[i].l4);
		CHECK_EQ(mm_toeplitz(ms_key, in, l3), v4[i].l3);
		/* the reference agrees with the table: the table was typed right */
		CHECK_EQ(ref_toeplitz(ms_key, in, l4), v4[i].l4);
		CHECK_EQ(ref_toeplitz(ms_key, in, l3), v4[i].l3);
	}
	for (i = 0; i < NV6; i++) {
		vec_input(&v6[i], true, in, &l3, &l4);
		CHECK_EQ(l4, 36);
		CHECK_EQ(mm_toeplitz(ms_key, in, l4), v6[i].l4);
		CHECK_EQ(mm_toeplitz(ms_key, in, l3), v6[i].l3);
		CHECK_EQ(ref_toeplitz(ms_key, in, l4), v6[i].l4);
		CHECK_EQ(ref_toeplitz(ms_key, in, l3), v6[i].l3);
	}
	CHECK_EQ(mm_toeplitz(ms_key, in, 0), 0);
}

static void
test_random_keys(void)
{
	uint8_t key[MM_RSS_KEY_LEN], in[36];
	uint32_t seed = 12345, len, i, round;

	for (round = 0; round < 200; round++) {
		for (i = 0; i < sizeof(key); i++) {
			seed = seed * 1103515245 + 12345;
			key[i] = seed >> 16;
		}
		for (i = 0; i < sizeof(in); i++) {
			seed = seed * 1103515245 + 12345;
			in[i] = seed >> 16;
		}
		len = round % 37;
		if (!CHECK_EQ(mm_toeplitz(key, in, len), ref_toeplitz(key, in, len)))
			break;
	}
}

/* Build a frame for vector v with protocol proto and hash it as the device does. */
static uint32_t
frame_hash(const struct vec *v, bool ipv6, uint8_t proto, bool vlan, bool frag,
	   uint32_t *type, bool *parsed)
{
	uint8_t buf[256];
	struct tf_spec s;
	struct mm_frame_info fi;
	size_t len;

	tf_spec_init(&s);
	s.ipv6 = ipv6;
	s.proto = proto;
	s.vlan = vlan;
	s.tci = 0x2005;
	s.frag = frag;
	inet_pton(ipv6 ? AF_INET6 : AF_INET, v->src, s.src);
	inet_pton(ipv6 ? AF_INET6 : AF_INET, v->dst, s.dst);
	s.sport = v->sport;
	s.dport = v->dport;
	len = tf_build(buf, &s);
	memset(&fi, 0, sizeof(fi));
	*parsed = mm_frame_parse(buf, (uint32_t)len, &fi);
	*type = 0xDEAD;
	return mm_rss_hash(ms_key, buf, &fi, type);
}

static void
check_vectors(const struct vec *v, size_t n, bool ipv6, bool vlan)
{
	uint8_t l3proto = ipv6 ? TF_PROTO_ICMP6 : TF_PROTO_ICMP;
	uint32_t type;
	bool parsed;
	size_t i;

	for (i = 0; i < n; i++) {
		CHECK_EQ(frame_hash(&v[i], ipv6, TF_PROTO_TCP, vlan, false, &type, &parsed),
			 v[i].l4);
		CHECK(parsed);
		CHECK_EQ(type, MANA_HASH_L4);
		CHECK_EQ(frame_hash(&v[i], ipv6, TF_PROTO_UDP, vlan, false, &type, &parsed),
			 v[i].l4);
		CHECK_EQ(type, MANA_HASH_L4);
		/* other IP: addresses only, type L3 */
		CHECK_EQ(frame_hash(&v[i], ipv6, l3proto, vlan, false, &type, &parsed), v[i].l3);
		CHECK_EQ(type, MANA_HASH_L3);
		CHECK_EQ(frame_hash(&v[i], ipv6, 47 /* GRE */, vlan, false, &type, &parsed),
			 v[i].l3);
		CHECK_EQ(type, MANA_HASH_L3);
		if (!ipv6) {
			/* an IPv4 fragment carries no parsable ports: L3 hash */
			CHECK_EQ(frame_hash(&v[i], false, TF_PROTO_TCP, vlan, true, &type,
					    &parsed), v[i].l3);
			CHECK_EQ(type, MANA_HASH_L3);
		}
	}
}

static void
test_ms_vectors_frames(void)
{
	check_vectors(v4, NV4, false, false);
	check_vectors(v6, NV6, true, false);
}

static void
test_ms_vectors_vlan(void)
{
	check_vectors(v4, NV4, false, true);
	check_vectors(v6, NV6, true, true);
}

static void
test_non_ip(void)
{
	static const uint8_t mac[6] = { 0x02, 1, 2, 3, 4, 5 };
	uint8_t buf[64], sip[4] = { 10, 0, 0, 1 }, tip[4] = { 10, 0, 0, 2 };
	struct mm_frame_info fi;
	uint32_t type = 0xDEAD;
	size_t len = tf_build_arp(buf, mac, sip, tip);

	memset(&fi, 0, sizeof(fi));
	CHECK(mm_frame_parse(buf, (uint32_t)len, &fi));
	CHECK_EQ(fi.ethertype, 0x0806);
	CHECK(!fi.ipv4 && !fi.ipv6);
	CHECK_EQ(fi.l3_off, 0);
	CHECK_EQ(mm_rss_hash(ms_key, buf, &fi, &type), 0);
	CHECK_EQ(type, 0);
}

static void
test_parse(void)
{
	uint8_t buf[256];
	struct tf_spec s;
	struct mm_frame_info fi;
	size_t len;

	tf_spec_init(&s);
	s.proto = TF_PROTO_TCP;
	s.payload_len = 10;
	len = tf_build(buf, &s);
	CHECK_EQ(len, 14 + 20 + 20 + 10);
	memset(&fi, 0, sizeof(fi));
	REQUIRE(mm_frame_parse(buf, (uint32_t)len, &fi));
	CHECK_EQ(fi.ethertype, 0x0800);
	CHECK(!fi.vlan);
	CHECK(fi.ipv4 && !fi.ipv6);
	CHECK_EQ(fi.l3_off, 14);
	CHECK_EQ(fi.l4_off, 34);
	CHECK_EQ(fi.l4_proto, 6);
	CHECK(!fi.fragment);
	CHECK_EQ(fi.l3_len, 50);

	s.ipv6 = true;
	s.proto = TF_PROTO_UDP;
	s.vlan = true;
	s.tci = 0xE123;
	tf_ip6(s.src, "2001:db8::1");
	tf_ip6(s.dst, "2001:db8::2");
	len = tf_build(buf, &s);
	memset(&fi, 0, sizeof(fi));
	REQUIRE(mm_frame_parse(buf, (uint32_t)len, &fi));
	CHECK_EQ(fi.ethertype, 0x86DD);
	CHECK(fi.vlan);
	CHECK_EQ(fi.vlan_tci, 0xE123);
	CHECK(fi.ipv6 && !fi.ipv4);
	CHECK_EQ(fi.l3_off, 18);
	CHECK_EQ(fi.l4_off, 58);
	CHECK_EQ(fi.l4_proto, 17);
	CHECK_EQ(fi.l3_len, 40 + 8 + 10);

	s.ipv6 = false;
	s.vlan = false;
	s.frag = true;
	len = tf_build(buf, &s);
	memset(&fi, 0, sizeof(fi));
	REQUIRE(mm_frame_parse(buf, (uint32_t)len, &fi));
	CHECK(fi.fragment);
	CHECK_EQ(fi.l4_off, 0);

	/* too short for the Ethernet header */
	memset(&fi, 0, sizeof(fi));
	CHECK(!mm_frame_parse(buf, 10, &fi));
}

static void
test_constants(void)
{
	/* hardware.md §1 rule 5, §6: 40-byte key, 64-entry table */
	CHECK_EQ(MM_RSS_KEY_LEN, 40);
	CHECK_EQ(MM_RSS_TABLE_SIZE, 64);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_ms_vectors_raw),
	UNIT_TEST(test_random_keys),
	UNIT_TEST(test_ms_vectors_frames),
	UNIT_TEST(test_ms_vectors_vlan),
	UNIT_TEST(test_non_ip),
	UNIT_TEST(test_parse),
	UNIT_TEST(test_constants),
};

UNIT_MAIN(tests)
