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
 * RSS hash of a frame as the device computes it (contract 6): Toeplitz over
 * src addr, dst addr (+ src port, dst port for non-fragmented TCP/UDP), in
 * network byte order. Sets *hashtype to MANA_HASH_L4 (0x1B6), MANA_HASH_L3
 * (0x049) or 0 (not IP: hash 0).
 */
uint32_t mm_rss_hash(const uint8_t key[MM_RSS_KEY_LEN], const uint8_t *frame,
		     const struct mm_frame_info *fi, uint32_t *hashtype);

/* One's-complement sum (not folded, not inverted) of len bytes, starting at sum. */
uint32_t mm_csum_partial(const void *data, uint32_t len, uint32_t sum);
uint16_t mm_csum_fold(uint32_t sum);	/* fold to 16 bits, no inversion */

/* Checksum verification of a received frame (for the RX OOB bits). */
struct mm_csum_result {
	bool ip_checked, ip_ok;		/* IPv4 header checksum */
	bool l4_checked, l4_ok;		/* TCP or UDP checksum (UDP csum 0 over IPv4 = ok) */
};
void mm_csum_verify(const uint8_t *frame, uint32_t len, const struct mm_frame_info *fi,
		    struct mm_csum_result *res);

/*
 * TX checksum offload as the device does it: IPv4 header checksum
 * recomputed when ip; the L4 checksum completed from the seeded
 * pseudo-header value in the packet (contract 3.5) when tcp or udp.
 * Returns false if the frame cannot carry what was asked (not IPv4 for ip,
 * no TCP/UDP header for l4): the caller completes with an error CQE.
 */
bool mm_csum_offload(uint8_t *frame, uint32_t len, const struct mm_frame_info *fi,
		     bool ip, bool tcp, bool udp);

#endif /* MANA_MODEL_NET_H */
