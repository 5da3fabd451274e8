/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The device's view of a frame: parsing, Toeplitz RSS (hardware.md §6) and
 * Internet checksums (RFC 1071; TX offload per hardware.md §3.5).
 *
 * Checksum sums are kept as numbers whose 16-bit words are the frame's
 * big-endian words, so pseudo-header terms can be added as plain integers.
 * mm_csum_partial adds native words (fast) and byte-swaps the folded result
 * on little-endian hosts: one's-complement sums commute with byte swapping.
 */

#include <string.h>

#include "mana_gdma.h"
#include "model_net.h"

#define ETH_HLEN		14
#define VLAN_HLEN		4
#define ETHERTYPE_IPV4		0x0800
#define ETHERTYPE_IPV6		0x86DD
#define ETHERTYPE_VLAN		0x8100
#define IPV4_HLEN_MIN		20
#define IPV6_HLEN		40
#define PROTO_TCP		6
#define PROTO_UDP		17
#define TCP_HLEN_MIN		20
#define UDP_HLEN		8
#define TCP_CSUM_OFF		16
#define UDP_CSUM_OFF		6
#define IPV4_CSUM_OFF		10

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* TCP/UDP header presence once the IP header told where L4 starts and ends. */
static void
parse_l4(const uint8_t *frame, struct mm_frame_info *fi, uint32_t l4_off, uint32_t l3_end)
{
	uint32_t room = l3_end > l4_off ? l3_end - l4_off : 0;

	if (fi->fragment)
		return;
	if (fi->l4_proto == PROTO_UDP && room >= UDP_HLEN) {
		fi->l4_off = (uint16_t)l4_off;
	} else if (fi->l4_proto == PROTO_TCP && room >= TCP_HLEN_MIN) {
		uint32_t doff = (uint32_t)(frame[l4_off + 12] >> 4) * 4;

		/* A data offset below 20 or past the segment is not a TCP header. */
		if (doff >= TCP_HLEN_MIN && doff <= room)
			fi->l4_off = (uint16_t)l4_off;
	}
}

static void
parse_ipv4(const uint8_t *frame, uint32_t len, uint32_t off, struct mm_frame_info *fi)
{
	const uint8_t *ip = frame + off;
	uint32_t ihl, tot, frag;

	if (len - off < IPV4_HLEN_MIN || (ip[0] >> 4) != 4)
		return;
	ihl = (uint32_t)(ip[0] & 0xF) * 4;
	tot = rd16(ip + 2);
	/* A header the frame does not hold is not parsed as IP. */
	if (ihl < IPV4_HLEN_MIN || tot < ihl || tot > len - off)
		return;
	fi->ipv4 = true;
	fi->l3_off = (uint16_t)off;
	fi->l3_len = (uint16_t)tot;
	fi->l4_proto = ip[9];
	frag = rd16(ip + 6);
	fi->fragment = (frag & 0x3FFF) != 0;	/* MF or a fragment offset */
	parse_l4(frame, fi, off + ihl, off + tot);
}

static void
parse_ipv6(const uint8_t *frame, uint32_t len, uint32_t off, struct mm_frame_info *fi)
{
	const uint8_t *ip = frame + off;
	uint32_t tot;

	if (len - off < IPV6_HLEN || (ip[0] >> 4) != 6)
		return;
	tot = IPV6_HLEN + rd16(ip + 4);
	if (tot > len - off)
		return;
	fi->ipv6 = true;
	fi->l3_off = (uint16_t)off;
	fi->l3_len = (uint16_t)tot;
	/* No extension header walking: only TCP/UDP right after the header count. */
	fi->l4_proto = ip[6];
	parse_l4(frame, fi, off + IPV6_HLEN, off + tot);
}

bool
mm_frame_parse(const uint8_t *frame, uint32_t len, struct mm_frame_info *fi)
{
	uint32_t off = ETH_HLEN;

	memset(fi, 0, sizeof(*fi));
	if (frame == NULL || len < ETH_HLEN || len > 0xFFFF)
		return false;
	fi->ethertype = rd16(frame + 12);
	if (fi->ethertype == ETHERTYPE_VLAN) {
		if (len < ETH_HLEN + VLAN_HLEN)
			return false;
		fi->vlan = true;
		fi->vlan_tci = rd16(frame + 14);
		fi->ethertype = rd16(frame + 16);
		off += VLAN_HLEN;
	}
	if (fi->ethertype == ETHERTYPE_IPV4)
		parse_ipv4(frame, len, off, fi);
	else if (fi->ethertype == ETHERTYPE_IPV6)
		parse_ipv6(frame, len, off, fi);
	return true;
}

uint32_t
mm_toeplitz(const uint8_t key[MM_RSS_KEY_LEN], const uint8_t *input, uint32_t len)
{
	uint32_t window = ((uint32_t)key[0] << 24) | ((uint32_t)key[1] << 16) |
			  ((uint32_t)key[2] << 8) | key[3];
	uint32_t next = 4, hash = 0, i;
	int bit;

	for (i = 0; i < len; i++) {
		/* Key bits past the 40 bytes are taken as zero. */
		uint8_t kb = next < MM_RSS_KEY_LEN ? key[next] : 0;

		next++;
		for (bit = 7; bit >= 0; bit--) {
			if (input[i] & (1u << bit))
				hash ^= window;
			window = (window << 1) | ((kb >> bit) & 1u);
		}
	}
	return hash;
}

void
mm_rss_ctx_init(struct mm_rss_ctx *ctx, const uint8_t key[MM_RSS_KEY_LEN])
{
	uint32_t i, b, s;

	for (i = 0; i < MM_RSS_INPUT_MAX; i++) {
		/* 40 key bits from byte i: the windows of input bits 8i..8i+7. */
		uint64_t k = 0, win[8];

		for (b = 0; b < 5; b++)
			k = (k << 8) | (i + b < MM_RSS_KEY_LEN ? key[i + b] : 0);
		for (s = 0; s < 8; s++)
			win[s] = (uint32_t)(k >> (8 - s));
		for (b = 0; b < 256; b++) {
			uint32_t h = 0;

			for (s = 0; s < 8; s++)
				if (b & (0x80u >> s))
					h ^= (uint32_t)win[s];
			ctx->lut[i][b] = h;
		}
	}
}

uint32_t
mm_rss_ctx_toeplitz(const struct mm_rss_ctx *ctx, const uint8_t *input, uint32_t len)
{
	uint32_t hash = 0, i;

	if (len > MM_RSS_INPUT_MAX)
		len = MM_RSS_INPUT_MAX;
	for (i = 0; i < len; i++)
		hash ^= ctx->lut[i][input[i]];
	return hash;
}

uint32_t
mm_rss_input(const uint8_t *frame, const struct mm_frame_info *fi,
	     uint8_t in[MM_RSS_INPUT_MAX], uint32_t *hashtype)
{
	uint32_t alen, n;

	*hashtype = 0;
	if (fi->ipv4) {
		alen = 4;
		memcpy(in, frame + fi->l3_off + 12, 2 * alen);
	} else if (fi->ipv6) {
		alen = 16;
		memcpy(in, frame + fi->l3_off + 8, 2 * alen);
	} else {
		return 0;
	}
	n = 2 * alen;
	if (fi->l4_off != 0 && !fi->fragment &&
	    (fi->l4_proto == PROTO_TCP || fi->l4_proto == PROTO_UDP)) {
		memcpy(in + n, frame + fi->l4_off, 4);	/* src port, dst port */
		*hashtype = MANA_HASH_L4;
		return n + 4;
	}
	*hashtype = MANA_HASH_L3;
	return n;
}

uint32_t
mm_rss_hash(const uint8_t key[MM_RSS_KEY_LEN], const uint8_t *frame,
	    const struct mm_frame_info *fi, uint32_t *hashtype)
{
	uint8_t in[MM_RSS_INPUT_MAX];
	uint32_t n = mm_rss_input(frame, fi, in, hashtype);

	return n == 0 ? 0 : mm_toeplitz(key, in, n);
}

/* Toeplitz of n input bytes (a multiple of 4) placed at input position pos. */
static inline uint32_t
rss_lut_run(const struct mm_rss_ctx *ctx, uint32_t pos, const uint8_t *in, uint32_t n)
{
	uint32_t hash = 0, i;

	for (i = 0; i < n; i += 4)
		hash ^= ctx->lut[pos + i][in[i]] ^ ctx->lut[pos + i + 1][in[i + 1]] ^
			ctx->lut[pos + i + 2][in[i + 2]] ^ ctx->lut[pos + i + 3][in[i + 3]];
	return hash;
}

/*
 * Same input as mm_rss_input, read in place: the addresses and the ports are
 * each contiguous in the frame, so no copy of the tuple is needed.
 */
uint32_t
mm_rss_hash_ctx(const struct mm_rss_ctx *ctx, const uint8_t *frame,
		const struct mm_frame_info *fi, uint32_t *hashtype)
{
	uint32_t n, hash;

	*hashtype = 0;
	if (fi->ipv4) {
		n = 8;
		hash = rss_lut_run(ctx, 0, frame + fi->l3_off + 12, n);
	} else if (fi->ipv6) {
		n = 32;
		hash = rss_lut_run(ctx, 0, frame + fi->l3_off + 8, n);
	} else {
		return 0;
	}
	if (fi->l4_off != 0 && !fi->fragment &&
	    (fi->l4_proto == PROTO_TCP || fi->l4_proto == PROTO_UDP)) {
		*hashtype = MANA_HASH_L4;
		return hash ^ rss_lut_run(ctx, n, frame + fi->l4_off, 4);
	}
	*hashtype = MANA_HASH_L3;
	return hash;
}

static inline uint16_t
csum_fold(uint32_t sum)
{
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)sum;
}

uint16_t
mm_csum_fold(uint32_t sum)
{
	return csum_fold(sum);
}

/* a + w with the carry added back in (one's-complement addition of 64-bit words). */
static inline uint64_t
csum_add64(uint64_t a, uint64_t w)
{
	a += w;
	return a + (a < w);
}

static inline uint64_t
csum_rd64(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return w;
}

/*
 * Whole 64-byte blocks of p added to acc as native 64-bit words, in C: the
 * carries out of the 64-bit additions are counted apart and added back once
 * at the end (end-around carry), so a word costs one add and one adc
 * rather than an add, a compare and a second add.
 */
static inline uint64_t
csum_blocks_c(const uint8_t *p, uint32_t nblk, uint64_t acc)
{
	uint64_t carry = 0;

	for (; nblk != 0; nblk--, p += 64)
		for (uint32_t i = 0; i < 64; i += 8)
			carry += __builtin_add_overflow(acc, csum_rd64(p + i), &acc);
	/* carry < 2^61: adding it back cannot overflow twice. */
	return csum_add64(acc, carry);
}

#if defined(__x86_64__)
/*
 * The same on x86-64 as one add-with-carry chain, one instruction per word
 * (the carry flag is the end-around carry of the previous word).
 */
static inline uint64_t
csum_blocks(const uint8_t *p, uint32_t nblk, uint64_t acc)
{
	for (; nblk != 0; nblk--, p += 64)
		__asm__("addq 0(%[p]), %[a]\n\t"
			"adcq 8(%[p]), %[a]\n\t"
			"adcq 16(%[p]), %[a]\n\t"
			"adcq 24(%[p]), %[a]\n\t"
			"adcq 32(%[p]), %[a]\n\t"
			"adcq 40(%[p]), %[a]\n\t"
			"adcq 48(%[p]), %[a]\n\t"
			"adcq 56(%[p]), %[a]\n\t"
			"adcq $0, %[a]"
			: [a] "+r" (acc)
			: [p] "r" (p), "m" (*(const uint8_t (*)[64])p)
			: "cc");
	return acc;
}
#else
#define csum_blocks csum_blocks_c
#endif

/*
 * One's-complement accumulator of native 64-bit words (end-around carry):
 * 2^16 - 1 divides 2^64 - 1, so folding it gives the one's-complement sum
 * of the native 16-bit words. The bytes past the 64-byte blocks take one
 * test per size bit; the 0..7 bytes past the last full word go in as one
 * zero-padded word, each piece at an even offset of it. len may be odd
 * only for the last piece of a chained sum. portable: the blocks in C
 * (what other hosts run; mm_csum_partial_portable tests it everywhere).
 */
static inline uint64_t
csum_acc_any(const uint8_t *p, uint32_t len, uint64_t acc, bool portable)
{
	uint64_t carry = 0, w = 0;
	uint32_t w32;
	uint16_t w16;

	if (len >= 64) {
		acc = portable ? csum_blocks_c(p, len / 64, acc) : csum_blocks(p, len / 64, acc);
		p += len & ~63u;
	}
	if ((len & 32) != 0) {
		carry += __builtin_add_overflow(acc, csum_rd64(p), &acc);
		carry += __builtin_add_overflow(acc, csum_rd64(p + 8), &acc);
		carry += __builtin_add_overflow(acc, csum_rd64(p + 16), &acc);
		carry += __builtin_add_overflow(acc, csum_rd64(p + 24), &acc);
		p += 32;
	}
	if ((len & 16) != 0) {
		carry += __builtin_add_overflow(acc, csum_rd64(p), &acc);
		carry += __builtin_add_overflow(acc, csum_rd64(p + 8), &acc);
		p += 16;
	}
	if ((len & 8) != 0) {
		carry += __builtin_add_overflow(acc, csum_rd64(p), &acc);
		p += 8;
	}
	if ((len & 4) != 0) {
		memcpy(&w32, p, 4);
		w = w32;
		p += 4;
	}
	if ((len & 2) != 0) {
		memcpy(&w16, p, 2);
		w += (uint64_t)w16 << 32;
		p += 2;
	}
	if ((len & 1) != 0) {
		w16 = 0;
		memcpy(&w16, p, 1);	/* first byte in memory order, like a full word */
		w += (uint64_t)w16 << 48;
	}
	carry += __builtin_add_overflow(acc, w, &acc);
	/* carry <= 8: adding it back cannot overflow twice. */
	return csum_add64(acc, carry);
}

static inline uint64_t
csum_acc(const uint8_t *p, uint32_t len, uint64_t acc)
{
	return csum_acc_any(p, len, acc, false);
}

/* The accumulator folded to 16 bits (native byte order). */
static inline uint16_t
csum_acc_fold(uint64_t acc)
{
	acc = (acc & 0xFFFFFFFFu) + (acc >> 32);
	acc = (acc & 0xFFFFFFFFu) + (acc >> 32);
	return csum_fold((uint32_t)acc);
}

/*
 * A sum of values of the frame's (big-endian) word order as native words
 * with the same one's-complement sum (each 16-bit half byte-swapped).
 */
static inline uint64_t
csum_native32(uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap32(v);
#else
	return v;
#endif
}

/*
 * Chained calls must split the data at even offsets (an odd byte is the
 * high byte of a word padded with zero).
 */
static inline uint32_t
csum_partial(const void *data, uint32_t len, uint32_t sum)
{
	uint16_t w16 = csum_acc_fold(csum_acc(data, len, 0));

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	w16 = __builtin_bswap16(w16);
#endif
	return (uint32_t)csum_fold(sum) + w16;
}

uint32_t
mm_csum_partial(const void *data, uint32_t len, uint32_t sum)
{
	return csum_partial(data, len, sum);
}

uint32_t
mm_csum_partial_portable(const void *data, uint32_t len, uint32_t sum)
{
	uint16_t w16 = csum_acc_fold(csum_acc_any(data, len, 0, true));

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	w16 = __builtin_bswap16(w16);
#endif
	return (uint32_t)csum_fold(sum) + w16;
}

/* Length of the L4 segment: from the L4 header to the end of the IP packet. */
static inline uint32_t
l4_len(const struct mm_frame_info *fi)
{
	return (uint32_t)fi->l3_off + fi->l3_len - fi->l4_off;
}

static inline uint32_t
csum_pseudo(const uint8_t *frame, const struct mm_frame_info *fi)
{
	const uint8_t *ip = frame + fi->l3_off;
	uint32_t sum, len = fi->l4_off != 0 ? l4_len(fi) : 0;

	if (fi->ipv4)
		sum = csum_partial(ip + 12, 8, 0);
	else if (fi->ipv6)
		sum = csum_partial(ip + 8, 32, 0);
	else
		return 0;
	/* The 32-bit IPv6 upper-layer length is the same words as IPv4's 16-bit one here. */
	return sum + fi->l4_proto + (len & 0xFFFF) + (len >> 16);
}

uint32_t
mm_csum_pseudo(const uint8_t *frame, const struct mm_frame_info *fi)
{
	return csum_pseudo(frame, fi);
}

/* csum_pseudo added to a native accumulator: one fold for the whole L4 check. */
static inline uint64_t
csum_acc_pseudo(const uint8_t *frame, const struct mm_frame_info *fi, uint64_t acc)
{
	const uint8_t *ip = frame + fi->l3_off;
	uint32_t len = fi->l4_off != 0 ? l4_len(fi) : 0;

	if (fi->ipv4)
		acc = csum_acc(ip + 12, 8, acc);
	else if (fi->ipv6)
		acc = csum_acc(ip + 8, 32, acc);
	else
		return acc;
	/*
	 * Protocol and length in one word: the two 16-bit halves of the
	 * byte-swapped 32-bit sum are the native forms of its two halves.
	 */
	return csum_add64(acc, csum_native32(fi->l4_proto + (len & 0xFFFF) + (len >> 16)));
}

static inline uint32_t
l4_csum_off(const struct mm_frame_info *fi)
{
	return fi->l4_off + (fi->l4_proto == PROTO_TCP ? TCP_CSUM_OFF : UDP_CSUM_OFF);
}

void
mm_csum_verify(const uint8_t *frame, uint32_t len, const struct mm_frame_info *fi,
	       struct mm_csum_result *res)
{
	uint64_t acc;

	memset(res, 0, sizeof(*res));
	if (fi->ipv4 && (uint32_t)fi->l3_off + fi->l3_len <= len) {
		uint32_t ihl = (uint32_t)(frame[fi->l3_off] & 0xF) * 4;

		res->ip_checked = true;
		/* A sum of 0xFFFF reads the same in either byte order. */
		res->ip_ok = csum_acc_fold(csum_acc(frame + fi->l3_off, ihl, 0)) == 0xFFFF;
	}
	if (fi->l4_off == 0 || fi->fragment || (uint32_t)fi->l3_off + fi->l3_len > len)
		return;
	res->l4_checked = true;
	if (fi->l4_proto == PROTO_UDP && rd16(frame + l4_csum_off(fi)) == 0) {
		/* RFC 768: IPv4 may omit the UDP checksum; RFC 8200: IPv6 must not. */
		res->udp_no_csum = fi->ipv4;
		res->l4_ok = fi->ipv4;
		return;
	}
	acc = csum_acc(frame + fi->l4_off, l4_len(fi), 0);
	res->l4_ok = csum_acc_fold(csum_acc_pseudo(frame, fi, acc)) == 0xFFFF;
}

bool
mm_csum_offload(uint8_t *frame, uint32_t len, const struct mm_frame_info *fi,
		bool ip, bool tcp, bool udp)
{
	uint8_t *p;
	uint16_t c;

	if ((uint32_t)fi->l3_off + fi->l3_len > len || (tcp && udp))
		return false;
	if (ip && !fi->ipv4)
		return false;
	if ((tcp || udp) && (fi->l4_off == 0 || fi->fragment ||
			     fi->l4_proto != (tcp ? PROTO_TCP : PROTO_UDP)))
		return false;
	if (ip) {
		p = frame + fi->l3_off;
		wr16(p + IPV4_CSUM_OFF, 0);
		wr16(p + IPV4_CSUM_OFF,
		     (uint16_t)~csum_fold(csum_partial(p, (uint32_t)(p[0] & 0xF) * 4, 0)));
	}
	if (tcp || udp) {
		/* The field holds the driver's pseudo-header seed (hardware.md §3.5). */
		c = (uint16_t)~csum_fold(csum_partial(frame + fi->l4_off, l4_len(fi), 0));
		if (udp && c == 0)
			c = 0xFFFF;	/* 0 would mean "no checksum" */
		wr16(frame + l4_csum_off(fi), c);
	}
	return true;
}
