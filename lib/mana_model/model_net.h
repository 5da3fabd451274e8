/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Frame parsing, Toeplitz RSS and Internet checksums for the model: the
 * device's own view of a frame, independent of DPDK.
 */

#ifndef MANA_MODEL_NET_H
#define MANA_MODEL_NET_H

#include <stdbool.h>
#include <stdint.h>

#define MM_RSS_KEY_LEN		40
#define MM_RSS_TABLE_SIZE	64

/* What the device finds in a frame. Offsets are from the frame start. */
struct mm_frame_info {
	uint16_t ethertype;	/* after any 802.1Q tag */
	bool vlan;		/* an 802.1Q tag is present */
	uint16_t vlan_tci;
	uint16_t l3_off;	/* 0 if not IP */
	uint16_t l4_off;	/* 0 if no TCP/UDP header */
	bool ipv4, ipv6;
	uint8_t l4_proto;	/* IPPROTO_TCP, IPPROTO_UDP, other, 0 */
	bool fragment;		/* IPv4 MF or offset != 0: no L4 parsing */
	uint16_t l3_len;	/* IPv4 total length / IPv6 40 + payload length */
};

/* Parse Ethernet [802.1Q] IPv4|IPv6 [TCP|UDP]; false if too short to parse. */
bool mm_frame_parse(const uint8_t *frame, uint32_t len, struct mm_frame_info *fi);

/* Toeplitz hash of input over key (40 bytes). */
uint32_t mm_toeplitz(const uint8_t key[MM_RSS_KEY_LEN], const uint8_t *input, uint32_t len);

/*
 * RSS hash of a frame as the device computes it (hardware.md §6): Toeplitz over
 * src addr, dst addr (+ src port, dst port for non-fragmented TCP/UDP), in
 * network byte order. Sets *hashtype to MANA_HASH_L4 (0x1B6), MANA_HASH_L3
 * (0x049) or 0 (not IP: hash 0).
 */
uint32_t mm_rss_hash(const uint8_t key[MM_RSS_KEY_LEN], const uint8_t *frame,
		     const struct mm_frame_info *fi, uint32_t *hashtype);

/* One's-complement sum (not folded, not inverted) of len bytes, starting at sum. */
uint32_t mm_csum_partial(const void *data, uint32_t len, uint32_t sum);
uint16_t mm_csum_fold(uint32_t sum);	/* fold to 16 bits, no inversion */
/*
 * mm_csum_partial with its 64-byte blocks summed in portable C, which hosts
 * without an add-with-carry chain (x86-64) run: for the tests, on any host.
 */
uint32_t mm_csum_partial_portable(const void *data, uint32_t len, uint32_t sum);

/* Checksum verification of a received frame (for the RX OOB bits). */
struct mm_csum_result {
	bool ip_checked, ip_ok;		/* IPv4 header checksum */
	bool l4_checked, l4_ok;		/* TCP or UDP checksum (UDP csum 0 over IPv4 = ok) */
	bool udp_no_csum;		/* UDP over IPv4 carried checksum 0: nothing verified */
};
void mm_csum_verify(const uint8_t *frame, uint32_t len, const struct mm_frame_info *fi,
		    struct mm_csum_result *res);

/*
 * TX checksum offload as the device does it: IPv4 header checksum
 * recomputed when ip; the L4 checksum completed from the seeded
 * pseudo-header value in the packet (hardware.md §3.5) when tcp or udp.
 * Returns false if the frame cannot carry what was asked (not IPv4 for ip,
 * no TCP/UDP header for l4): the caller completes with an error CQE.
 */
bool mm_csum_offload(uint8_t *frame, uint32_t len, const struct mm_frame_info *fi,
		     bool ip, bool tcp, bool udp);

/*
 * Fast Toeplitz for the engine: per-key lookup tables, one 256-entry table
 * per input byte position (the hardware.md §6 input is at most 36 bytes:
 * two IPv6 addresses and two ports). Same results as mm_toeplitz.
 */
#define MM_RSS_INPUT_MAX	36

struct mm_rss_ctx {
	uint32_t lut[MM_RSS_INPUT_MAX][256];
};

void mm_rss_ctx_init(struct mm_rss_ctx *ctx, const uint8_t key[MM_RSS_KEY_LEN]);
/* len <= MM_RSS_INPUT_MAX. */
uint32_t mm_rss_ctx_toeplitz(const struct mm_rss_ctx *ctx, const uint8_t *input, uint32_t len);

/*
 * The hash input of a frame (hardware.md §6) written to in; returns its length
 * (0 for non-IP) and sets *hashtype as mm_rss_hash does.
 */
uint32_t mm_rss_input(const uint8_t *frame, const struct mm_frame_info *fi,
		      uint8_t in[MM_RSS_INPUT_MAX], uint32_t *hashtype);
/* mm_rss_hash with the lookup tables of ctx. */
uint32_t mm_rss_hash_ctx(const struct mm_rss_ctx *ctx, const uint8_t *frame,
			 const struct mm_frame_info *fi, uint32_t *hashtype);

/*
 * One's-complement sum of the TCP/UDP pseudo header of the frame's IP
 * header (addresses, protocol, L4 length), not folded, not inverted.
 */
uint32_t mm_csum_pseudo(const uint8_t *frame, const struct mm_frame_info *fi);

#endif /* MANA_MODEL_NET_H */
