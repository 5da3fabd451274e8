/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Test frame builder: Ethernet [802.1Q] IPv4|IPv6 TCP|UDP|ICMP and ARP,
 * with checksums computed by a reference implementation written here
 * (RFC 1071), independent of the model's model_net.c.
 */

#ifndef TEST_FRAMES_H
#define TEST_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>

#define TF_ETH_LEN	14
#define TF_VLAN_LEN	4
#define TF_IPV4_LEN	20
#define TF_IPV6_LEN	40
#define TF_TCP_LEN	20
#define TF_UDP_LEN	8
#define TF_ICMP_LEN	8

#define TF_PROTO_ICMP	1
#define TF_PROTO_TCP	6
#define TF_PROTO_UDP	17
#define TF_PROTO_ICMP6	58

enum tf_l4csum {
	TF_CSUM_FULL = 0,	/* correct checksum */
	TF_CSUM_PSEUDO,		/* seeded with the pseudo-header sum (TX offload input) */
	TF_CSUM_ZERO,		/* field left 0 */
};

struct tf_spec {
	bool ipv6;
	uint8_t proto;			/* TF_PROTO_*, or any other value (no L4 header) */
	uint8_t src[16], dst[16];	/* 4 bytes used for IPv4 */
	uint16_t sport, dport;
	uint16_t payload_len;
	uint8_t payload_seed;		/* payload byte i = seed + i */
	bool vlan;
	uint16_t tci;
	bool frag;			/* IPv4: set MF */
	bool ip_csum_zero;		/* IPv4 header checksum left 0 */
	enum tf_l4csum l4csum;
	uint8_t dmac[6], smac[6];
};

/* RFC 1071 sum of big-endian 16-bit words, not folded. */
static inline uint32_t
tf_sum(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static inline uint16_t
tf_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)sum;
}

static inline void
tf_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xFF;
}

static inline uint16_t
tf_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
tf_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline size_t
tf_l3_off(const struct tf_spec *s)
{
	return TF_ETH_LEN + (s->vlan ? TF_VLAN_LEN : 0);
}

static inline size_t
tf_l4_off(const struct tf_spec *s)
{
	return tf_l3_off(s) + (s->ipv6 ? TF_IPV6_LEN : TF_IPV4_LEN);
}

static inline size_t
tf_l4_hdr_len(uint8_t proto)
{
	switch (proto) {
	case TF_PROTO_TCP: return TF_TCP_LEN;
	case TF_PROTO_UDP: return TF_UDP_LEN;
	case TF_PROTO_ICMP: case TF_PROTO_ICMP6: return TF_ICMP_LEN;
	default: return 0;
	}
}

/* Offset of the L4 checksum field, 0 if the protocol has none we compute. */
static inline size_t
tf_l4_csum_off(const struct tf_spec *s)
{
	switch (s->proto) {
	case TF_PROTO_TCP: return tf_l4_off(s) + 16;
	case TF_PROTO_UDP: return tf_l4_off(s) + 6;
	case TF_PROTO_ICMP: case TF_PROTO_ICMP6: return tf_l4_off(s) + 2;
	default: return 0;
	}
}

/* Pseudo-header sum (not folded) for an L4 segment of l4len bytes. */
static inline uint32_t
tf_phdr_sum(const struct tf_spec *s, uint32_t l4len)
{
	uint32_t sum;

	if (s->ipv6) {
		sum = tf_sum(s->src, 16, 0);
		sum = tf_sum(s->dst, 16, sum);
		sum += l4len >> 16;
		sum += l4len & 0xFFFF;
		sum += s->proto;
	} else {
		sum = tf_sum(s->src, 4, 0);
		sum = tf_sum(s->dst, 4, sum);
		sum += s->proto;
		sum += l4len;
	}
	return sum;
}

/* Build the frame into buf (room for 64 + payload_len bytes); returns its length. */
static inline size_t
tf_build(uint8_t *buf, const struct tf_spec *s)
{
	size_t l3 = tf_l3_off(s), l4 = tf_l4_off(s);
	size_t l4hdr = tf_l4_hdr_len(s->proto);
	uint32_t l4len = (uint32_t)(l4hdr + s->payload_len);
	size_t len = l4 + l4len, i;
	size_t cs = tf_l4_csum_off(s);
	uint8_t *p;

	memset(buf, 0, len);
	memcpy(buf, s->dmac, 6);
	memcpy(buf + 6, s->smac, 6);
	if (s->vlan) {
		tf_put16(buf + 12, 0x8100);
		tf_put16(buf + 14, s->tci);
	}
	tf_put16(buf + l3 - 2, s->ipv6 ? 0x86DD : 0x0800);
	p = buf + l3;
	if (s->ipv6) {
		p[0] = 0x60;
		tf_put16(p + 4, (uint16_t)l4len);
		p[6] = s->proto;
		p[7] = 64;
		memcpy(p + 8, s->src, 16);
		memcpy(p + 24, s->dst, 16);
	} else {
		p[0] = 0x45;
		tf_put16(p + 2, (uint16_t)(TF_IPV4_LEN + l4len));
		tf_put16(p + 4, 0x1234);
		if (s->frag)
			tf_put16(p + 6, 0x2000);	/* MF */
		p[8] = 64;
		p[9] = s->proto;
		memcpy(p + 12, s->src, 4);
		memcpy(p + 16, s->dst, 4);
		if (!s->ip_csum_zero)
			tf_put16(p + 10, (uint16_t)~tf_fold(tf_sum(p, TF_IPV4_LEN, 0)));
	}
	p = buf + l4;
	switch (s->proto) {
	case TF_PROTO_TCP:
		tf_put16(p, s->sport);
		tf_put16(p + 2, s->dport);
		tf_put16(p + 4, 0x0102);		/* seq */
		tf_put16(p + 8, 0x0304);		/* ack */
		p[12] = 5 << 4;
		p[13] = 0x18;				/* PSH|ACK */
		tf_put16(p + 14, 0xFFFF);
		break;
	case TF_PROTO_UDP:
		tf_put16(p, s->sport);
		tf_put16(p + 2, s->dport);
		tf_put16(p + 4, (uint16_t)l4len);
		break;
	case TF_PROTO_ICMP:
	case TF_PROTO_ICMP6:
		p[0] = s->proto == TF_PROTO_ICMP ? 8 : 128;	/* echo request */
		tf_put16(p + 4, 0x4242);
		tf_put16(p + 6, 1);
		break;
	default:
		break;
	}
	for (i = 0; i < s->payload_len; i++)
		p[l4hdr + i] = (uint8_t)(s->payload_seed + i);
	if (cs == 0)
		return len;
	if (s->proto == TF_PROTO_ICMP) {
		tf_put16(buf + cs, (uint16_t)~tf_fold(tf_sum(p, l4len, 0)));
		return len;
	}
	switch (s->l4csum) {
	case TF_CSUM_FULL: {
		uint16_t c = (uint16_t)~tf_fold(tf_sum(p, l4len, tf_phdr_sum(s, l4len)));

		if (c == 0 && s->proto == TF_PROTO_UDP)
			c = 0xFFFF;
		tf_put16(buf + cs, c);
		break;
	}
	case TF_CSUM_PSEUDO:
		tf_put16(buf + cs, tf_fold(tf_phdr_sum(s, l4len)));
		break;
	case TF_CSUM_ZERO:
		break;
	}
	return len;
}

/* Does the IPv4 header of a built frame verify? */
static inline bool
tf_ipv4_ok(const uint8_t *frame, const struct tf_spec *s)
{
	return tf_fold(tf_sum(frame + tf_l3_off(s), TF_IPV4_LEN, 0)) == 0xFFFF;
}

/* Does the L4 checksum of a built TCP/UDP frame verify? */
static inline bool
tf_l4_ok(const uint8_t *frame, const struct tf_spec *s)
{
	uint32_t l4len = (uint32_t)(tf_l4_hdr_len(s->proto) + s->payload_len);

	return tf_fold(tf_sum(frame + tf_l4_off(s), l4len, tf_phdr_sum(s, l4len))) == 0xFFFF;
}

static inline void
tf_ip4(uint8_t *a, uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3)
{
	a[0] = b0;
	a[1] = b1;
	a[2] = b2;
	a[3] = b3;
}

/* Parse a textual IPv6 address (inet_pton) into 16 bytes. */
static inline bool
tf_ip6(uint8_t *a, const char *text)
{
	return inet_pton(AF_INET6, text, a) == 1;
}

/* A default spec: UDP/IPv4 10.0.0.1:1000 -> 10.0.0.2:2000, 32 bytes payload. */
static inline void
tf_spec_init(struct tf_spec *s)
{
	static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	static const uint8_t smac[6] = { 0x02, 0, 0, 0, 0, 0x01 };

	memset(s, 0, sizeof(*s));
	s->proto = TF_PROTO_UDP;
	tf_ip4(s->src, 10, 0, 0, 1);
	tf_ip4(s->dst, 10, 0, 0, 2);
	s->sport = 1000;
	s->dport = 2000;
	s->payload_len = 32;
	s->payload_seed = 0x40;
	memcpy(s->dmac, dmac, 6);
	memcpy(s->smac, smac, 6);
}

/* An ARP request frame (42 bytes); returns its length. */
static inline size_t
tf_build_arp(uint8_t *buf, const uint8_t smac[6], const uint8_t sip[4], const uint8_t tip[4])
{
	memset(buf, 0, 42);
	memset(buf, 0xFF, 6);
	memcpy(buf + 6, smac, 6);
	tf_put16(buf + 12, 0x0806);
	tf_put16(buf + 14, 1);		/* Ethernet */
	tf_put16(buf + 16, 0x0800);	/* IPv4 */
	buf[18] = 6;
	buf[19] = 4;
	tf_put16(buf + 20, 1);		/* request */
	memcpy(buf + 22, smac, 6);
	memcpy(buf + 28, sip, 4);
	memcpy(buf + 38, tip, 4);
	return 42;
}

/* Bit-by-bit Toeplitz over a 40-byte key: the textbook definition. */
static inline uint32_t
tf_toeplitz(const uint8_t *key, const uint8_t *in, uint32_t len)
{
	uint32_t r = 0, i, k, bit, kb, w;
	int j;

	for (i = 0; i < len; i++) {
		for (j = 0; j < 8; j++) {
			if (!(in[i] & (0x80 >> j)))
				continue;
			bit = i * 8 + j;
			w = 0;
			for (k = 0; k < 32; k++) {
				kb = bit + k;
				w <<= 1;
				if (kb < 40 * 8)
					w |= (key[kb / 8] >> (7 - kb % 8)) & 1;
			}
			r ^= w;
		}
	}
	return r;
}

/* The RSS hash the device must report for a spec (hardware.md §6, §1 rule 4). */
static inline uint32_t
tf_rss_hash(const uint8_t *key, const struct tf_spec *s, uint32_t *hashtype)
{
	uint8_t in[36];
	uint32_t alen = s->ipv6 ? 16 : 4, n = 2 * alen;
	bool l4 = (s->proto == TF_PROTO_TCP || s->proto == TF_PROTO_UDP) && !s->frag;

	memcpy(in, s->src, alen);
	memcpy(in + alen, s->dst, alen);
	if (l4) {
		tf_put16(in + n, s->sport);
		tf_put16(in + n + 2, s->dport);
		n += 4;
	}
	*hashtype = l4 ? 0x1B6 : 0x049;
	return tf_toeplitz(key, in, n);
}

#endif /* TEST_FRAMES_H */
