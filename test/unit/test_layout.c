/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Pins every offset and bit position of mana_gdma.h to the numbers of
 * doc/hardware.md (§2.1, §3.2-§3.4, §4.1-§4.4, §4.6, §5.2, §7.2, §9).
 * The expected values are literals written from the hardware reference tables, never
 * derived from the header's own macros, so a wrong layout cannot hide by
 * being wrong on both sides (PMD and model share the header).
 */

#include <stddef.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

#include "mana_gdma.h"
#include "unit.h"

/*
 * A field occupies exactly the bits of `mask` (a literal from the hardware reference):
 * all ones in, the mask out; the lowest bit lands on the mask's lowest bit;
 * reading the mask back gives all ones of the field.
 */
#define CHECK_FIELD(f, mask) do {						\
	CHECK_EQ(GDMA_SET(f, 0xFFFFFFFFu), (uint32_t)(mask));			\
	CHECK_EQ(GDMA_SET(f, 1u), (uint32_t)(mask) & -(uint32_t)(mask));	\
	CHECK_EQ(GDMA_GET((uint32_t)(mask), f), f##_MASK);			\
	CHECK_EQ(GDMA_GET(~(uint32_t)(mask), f), 0u);				\
} while (0)

static void
test_constants(void)
{
	/* 2.1 */
	CHECK_EQ(GDMA_QUEUE_SQ, 1);
	CHECK_EQ(GDMA_QUEUE_RQ, 2);
	CHECK_EQ(GDMA_QUEUE_CQ, 3);
	CHECK_EQ(GDMA_QUEUE_EQ, 4);
	CHECK_EQ(GDMA_WQE_BU_SIZE, 32);
	CHECK_EQ(1u << GDMA_WQE_BU_SHIFT, 32);
	CHECK_EQ(GDMA_MAX_SQE_SIZE, 512);
	CHECK_EQ(GDMA_MAX_RQE_SIZE, 256);
	CHECK_EQ(GDMA_CQE_SIZE, 64);
	CHECK_EQ(GDMA_MIN_QUEUE_SIZE, 4096);
	CHECK_EQ(GDMA_MAX_TX_SGE, 30);
	CHECK_EQ(GDMA_MAX_RX_SGE, 15);
	/* (512 - 16 - 8) / 16 and (256 - 16) / 16 */
	CHECK_EQ(GDMA_MAX_TX_SGE, (512 - 16 - 8) / 16);
	CHECK_EQ(GDMA_MAX_RX_SGE, (256 - 16) / 16);
	CHECK_EQ(GDMA_QUEUE_OFFSET_MASK, 0x7FFFFFF);
	CHECK_EQ(GDMA_RC44_MAX_QUEUE_ENTRIES, 256);
	CHECK_EQ(GDMA_ETH_MAX_QUEUE_ENTRIES, 2048);
	/* 3.1 */
	CHECK_EQ(GDMA_WQE_HDR_SIZE, 8);
	CHECK_EQ(GDMA_OOB_SIZE_SMALL, 8);
	CHECK_EQ(GDMA_OOB_SIZE_LARGE, 24);
	CHECK_EQ(GDMA_SGE_SIZE, 16);
	CHECK_EQ(GDMA_WQE_OOB_DIV4_SMALL, 2);
	CHECK_EQ(GDMA_WQE_OOB_DIV4_LARGE, 6);
}

static void
test_wqe_header(void)
{
	struct gdma_wqe_hdr h;

	/* 3.2 */
	CHECK_EQ(sizeof(struct gdma_wqe_hdr), 8);
	CHECK_EQ(offsetof(struct gdma_wqe_hdr, dw0), 0);
	CHECK_EQ(offsetof(struct gdma_wqe_hdr, dw1), 4);
	CHECK_FIELD(GDMA_WQE_LAST_VBYTES, 0xFF000000);
	CHECK_EQ(GDMA_WQE_DW0_RSVD_MASK, 0x00FFFFFF);
	CHECK_FIELD(GDMA_WQE_NUM_SGE, 0x000000FF);
	CHECK_FIELD(GDMA_WQE_OOB_DIV4, 0x00000700);
	CHECK_FIELD(GDMA_WQE_OOB_IN_SGL, 0x00000800);
	CHECK_FIELD(GDMA_WQE_CONSUME_CREDIT, 0x00001000);
	CHECK_FIELD(GDMA_WQE_FENCE, 0x00002000);
	CHECK_FIELD(GDMA_WQE_CLIENT_DATA_UNIT, 0x3FFF0000);
	CHECK_FIELD(GDMA_WQE_CHECK_SN, 0x40000000);
	CHECK_FIELD(GDMA_WQE_SGL_DIRECT, 0x80000000);
	CHECK_EQ(GDMA_WQE_DW1_RSVD_MASK, 0x0000C000);

	/* A TX WQE header as DPDK builds it: 3 SGEs, large OOB, MSS 1460. */
	h.dw0 = 0;
	h.dw1 = GDMA_SET(GDMA_WQE_NUM_SGE, 3) | GDMA_SET(GDMA_WQE_OOB_DIV4, 6) |
		GDMA_SET(GDMA_WQE_CLIENT_DATA_UNIT, 1460);
	CHECK_EQ(h.dw1, 0x05B40603);
	/* An RX WQE header: 1 SGE, 8-byte OOB. */
	h.dw1 = GDMA_SET(GDMA_WQE_NUM_SGE, 1) |
		GDMA_SET(GDMA_WQE_OOB_DIV4, GDMA_WQE_OOB_DIV4_SMALL);
	CHECK_EQ(h.dw1, 0x00000201);
	CHECK_EQ(GDMA_GET(0x05B40603u, GDMA_WQE_CLIENT_DATA_UNIT), 1460);
	CHECK_EQ(GDMA_GET(0x05B40603u, GDMA_WQE_OOB_DIV4), 6);
	CHECK_EQ(GDMA_GET(0xAB000000u, GDMA_WQE_LAST_VBYTES), 0xAB);
	/* Fields and reserved bits of dw1 tile the dword without overlap. */
	CHECK_EQ(0xFFu + 0x700u + 0x800u + 0x1000u + 0x2000u + GDMA_WQE_DW1_RSVD_MASK +
		 0x3FFF0000u + 0x40000000u + 0x80000000u, 0xFFFFFFFFu);
}

static void
test_sge(void)
{
	struct gdma_sge s;
	uint8_t raw[16];

	/* 3.3 */
	CHECK_EQ(sizeof(struct gdma_sge), 16);
	CHECK_EQ(offsetof(struct gdma_sge, address), 0);
	CHECK_EQ(offsetof(struct gdma_sge, mem_key), 8);
	CHECK_EQ(offsetof(struct gdma_sge, size), 12);
	s.address = 0x1122334455667788ull;
	s.mem_key = 0xAABBCCDD;
	s.size = 0x01020304;
	memcpy(raw, &s, sizeof(raw));
	CHECK_EQ(raw[0], 0x88);	/* little endian */
	CHECK_EQ(raw[7], 0x11);
	CHECK_EQ(raw[8], 0xDD);
	CHECK_EQ(raw[15], 0x01);
}

static void
test_wqe_size(void)
{
	uint32_t n;

	/* 3.1: RX 1 SGE = 1 BU; TX short 1 SGE = 1 BU; 2 SGEs or long OOB = 2 BU. */
	CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, 1), 32);
	CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, 2), 64);
	CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_LARGE, 1), 64);
	CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_LARGE, 2), 64);
	CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_LARGE, 3), 96);
	CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, 3), 64);
	CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, 4), 96);
	CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, 15), 256);
	CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, 30), 512);
	CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_LARGE, 30), 512);
	/* An empty SGL still carries one dummy SGE (3.3). */
	CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, 0), 32);
	/* rdma-core's get_wqe_size(n) = ALIGN(16 n + 8 + 8, 32) (2.2). */
	for (n = 1; n <= 31; n++)
		CHECK_EQ(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, n), (16 * n + 16 + 31) & ~31u);
	/* The limits of 2.3: 15 RX SGEs fit 256 B, 16 do not; 31 TX fit 512, 32 do not. */
	CHECK(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, 15) <= GDMA_MAX_RQE_SIZE);
	CHECK(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, 16) > GDMA_MAX_RQE_SIZE);
	CHECK(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, 31) <= GDMA_MAX_SQE_SIZE);
	CHECK(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, 32) > GDMA_MAX_SQE_SIZE);
}

static void
test_tx_oob(void)
{
	struct mana_tx_oob o;

	/* 3.4 */
	CHECK_EQ(sizeof(struct mana_tx_oob), 24);
	CHECK_EQ(offsetof(struct mana_tx_oob, dw0), 0);
	CHECK_EQ(offsetof(struct mana_tx_oob, dw1), 4);
	CHECK_EQ(offsetof(struct mana_tx_oob, dw2), 8);
	CHECK_EQ(offsetof(struct mana_tx_oob, dw3), 12);
	CHECK_EQ(offsetof(struct mana_tx_oob, dw4), 16);
	CHECK_EQ(offsetof(struct mana_tx_oob, dw5), 20);
	CHECK_EQ(MANA_TX_PKT_FMT_SHORT, 0);
	CHECK_EQ(MANA_TX_PKT_FMT_LONG, 1);
	/* dw0 */
	CHECK_FIELD(MANA_TX_PKT_FMT, 0x00000003);
	CHECK_FIELD(MANA_TX_IS_OUTER_IPV4, 0x00000004);
	CHECK_FIELD(MANA_TX_IS_OUTER_IPV6, 0x00000008);
	CHECK_FIELD(MANA_TX_COMP_IPHDR_CSUM, 0x00000010);
	CHECK_FIELD(MANA_TX_COMP_TCP_CSUM, 0x00000020);
	CHECK_FIELD(MANA_TX_COMP_UDP_CSUM, 0x00000040);
	CHECK_FIELD(MANA_TX_SUPPRESS_CQE, 0x00000080);
	CHECK_FIELD(MANA_TX_VCQ_NUM, 0xFFFFFF00);
	/* dw1 */
	CHECK_FIELD(MANA_TX_TRANS_OFF, 0x000003FF);
	CHECK_FIELD(MANA_TX_VSQ_FRAME, 0x00FFFC00);
	CHECK_FIELD(MANA_TX_SHORT_VP_OFFSET, 0xFF000000);
	/* dw2 */
	CHECK_FIELD(MANA_TX_IS_ENCAP, 0x00000001);
	CHECK_FIELD(MANA_TX_INNER_IS_IPV6, 0x00000002);
	CHECK_FIELD(MANA_TX_INNER_TCP_OPT, 0x00000004);
	CHECK_FIELD(MANA_TX_INJECT_VLAN, 0x00000008);
	CHECK_EQ(MANA_TX_DW2_RSVD_MASK, 0x0000FFF0);
	CHECK_FIELD(MANA_TX_PCP, 0x00070000);
	CHECK_FIELD(MANA_TX_DEI, 0x00080000);
	CHECK_FIELD(MANA_TX_VLAN_ID, 0xFFF00000);
	/* dw3 */
	CHECK_FIELD(MANA_TX_INNER_FRAME_OFF, 0x000003FF);
	CHECK_FIELD(MANA_TX_INNER_IP_REL_OFF, 0x0000FC00);
	CHECK_FIELD(MANA_TX_LONG_VP_OFFSET, 0x0FFF0000);
	CHECK_EQ(MANA_TX_DW3_RSVD_MASK, 0xF0000000);

	/* A short OOB as DPDK writes it: IPv4 + IP/TCP csum, CQ 0x123, SQ 0x4567, vp 9. */
	memset(&o, 0, sizeof(o));
	o.dw0 = GDMA_SET(MANA_TX_PKT_FMT, MANA_TX_PKT_FMT_SHORT) |
		GDMA_SET(MANA_TX_IS_OUTER_IPV4, 1) | GDMA_SET(MANA_TX_COMP_IPHDR_CSUM, 1) |
		GDMA_SET(MANA_TX_COMP_TCP_CSUM, 1) | GDMA_SET(MANA_TX_VCQ_NUM, 0x123);
	o.dw1 = GDMA_SET(MANA_TX_TRANS_OFF, 34) |
		GDMA_SET(MANA_TX_VSQ_FRAME, mana_tx_vsq_frame(0x4567)) |
		GDMA_SET(MANA_TX_SHORT_VP_OFFSET, 9);
	CHECK_EQ(o.dw0, 0x00012334);
	/* 0x4567 >> 10 = 0x11 -> bits 10.. = 0x4400 */
	CHECK_EQ(o.dw1, 0x09004422);
	CHECK_EQ(mana_tx_vsq_frame(0x12345678), 0xD15);
	CHECK_EQ(mana_tx_vsq_frame(0x3FF), 0);
	CHECK_EQ(mana_tx_vsq_frame(0x400), 1);
	/* Long OOB with a VLAN tag: pcp 5, dei 1, vid 0xABC, vp offset 0x321. */
	o.dw2 = GDMA_SET(MANA_TX_INJECT_VLAN, 1) | GDMA_SET(MANA_TX_PCP, 5) |
		GDMA_SET(MANA_TX_DEI, 1) | GDMA_SET(MANA_TX_VLAN_ID, 0xABC);
	o.dw3 = GDMA_SET(MANA_TX_LONG_VP_OFFSET, 0x321);
	CHECK_EQ(o.dw2, 0xABCD0008);
	CHECK_EQ(o.dw3, 0x03210000);
}

static void
test_cqe(void)
{
	struct gdma_cqe c;

	/* 4.1 */
	CHECK_EQ(sizeof(struct gdma_cqe), 64);
	CHECK_EQ(offsetof(struct gdma_cqe, data), 0);
	CHECK_EQ(offsetof(struct gdma_cqe, info), 60);
	CHECK_EQ(GDMA_COMP_DATA_SIZE, 60);
	CHECK_FIELD(GDMA_CQE_WQ_NUM, 0x00FFFFFF);
	CHECK_FIELD(GDMA_CQE_IS_SQ, 0x01000000);
	CHECK_FIELD(GDMA_CQE_OWNER, 0xE0000000);
	CHECK_EQ(GDMA_CQE_OWNER_BITS, 3);
	c.info = GDMA_SET(GDMA_CQE_WQ_NUM, 0x12345) | GDMA_SET(GDMA_CQE_IS_SQ, 1) |
		 GDMA_SET(GDMA_CQE_OWNER, 5);
	CHECK_EQ(c.info, 0xA1012345);
	/* 4.3 */
	CHECK_FIELD(MANA_CQE_TYPE, 0x0000003F);
	CHECK_FIELD(MANA_CQE_CLIENT_TYPE, 0x000000C0);
	CHECK_FIELD(MANA_CQE_VENDOR_ERR, 0xFFFFFF00);
	c.data[0] = GDMA_SET(MANA_CQE_TYPE, CQE_TX_HDR_PROCESSING_ERROR) |
		    GDMA_SET(MANA_CQE_CLIENT_TYPE, 1) | GDMA_SET(MANA_CQE_VENDOR_ERR, 0xBEEF);
	CHECK_EQ(c.data[0], 0x00BEEF65);
	CHECK_EQ(CQE_INVALID, 0);
	CHECK_EQ(CQE_RX_OKAY, 1);
	CHECK_EQ(CQE_RX_COALESCED_4, 2);
	CHECK_EQ(CQE_RX_OBJECT_FENCE, 3);
	CHECK_EQ(CQE_RX_TRUNCATED, 4);
	CHECK_EQ(CQE_TX_OKAY, 32);
	CHECK_EQ(CQE_TX_SA_DROP, 33);
	CHECK_EQ(CQE_TX_MTU_DROP, 34);
	CHECK_EQ(CQE_TX_INVALID_OOB, 35);
	CHECK_EQ(CQE_TX_INVALID_ETH_TYPE, 36);
	CHECK_EQ(CQE_TX_HDR_PROCESSING_ERROR, 37);
	CHECK_EQ(CQE_TX_VF_DISABLED, 38);
	CHECK_EQ(CQE_TX_VPORT_IDX_OUT_OF_RANGE, 39);
	CHECK_EQ(CQE_TX_VPORT_DISABLED, 40);
	CHECK_EQ(CQE_TX_VLAN_TAGGING_VIOLATION, 41);
	CHECK_EQ(CQE_TX_GDMA_ERR, 42);
}

static void
test_rx_oob(void)
{
	uint32_t dw1;

	/* 4.4 dword 1 */
	CHECK_FIELD(MANA_RXCQE_VLAN_ID, 0x00000FFF);
	CHECK_FIELD(MANA_RXCQE_VLAN_PRESENT, 0x00001000);
	CHECK_FIELD(MANA_RXCQE_OUTER_IP_CSUM_OK, 0x00002000);
	CHECK_FIELD(MANA_RXCQE_OUTER_IP_CSUM_BAD, 0x00004000);
	CHECK_FIELD(MANA_RXCQE_HASHTYPE, 0x01FF0000);
	CHECK_FIELD(MANA_RXCQE_IP_CSUM_OK, 0x02000000);
	CHECK_FIELD(MANA_RXCQE_IP_CSUM_BAD, 0x04000000);
	CHECK_FIELD(MANA_RXCQE_TCP_CSUM_OK, 0x08000000);
	CHECK_FIELD(MANA_RXCQE_TCP_CSUM_BAD, 0x10000000);
	CHECK_FIELD(MANA_RXCQE_UDP_CSUM_OK, 0x20000000);
	CHECK_FIELD(MANA_RXCQE_UDP_CSUM_BAD, 0x40000000);
	/* A good TCP/IPv4 frame: hashtype L4, IP and TCP checksums succeeded. */
	dw1 = GDMA_SET(MANA_RXCQE_HASHTYPE, MANA_HASH_L4) |
	      GDMA_SET(MANA_RXCQE_IP_CSUM_OK, 1) | GDMA_SET(MANA_RXCQE_TCP_CSUM_OK, 1);
	CHECK_EQ(dw1, 0x0BB60000);
	/* ppi[i]: pkt_len dword 2+3i, pkt_hash dword 4+3i; rx_wqe_offset dword 14 */
	CHECK_EQ(MANA_RXCQE_PPI_MAX, 4);
	CHECK_EQ(MANA_RXCQE_PKT_LEN_DW(0), 2);
	CHECK_EQ(MANA_RXCQE_PKT_LEN_DW(1), 5);
	CHECK_EQ(MANA_RXCQE_PKT_LEN_DW(2), 8);
	CHECK_EQ(MANA_RXCQE_PKT_LEN_DW(3), 11);
	CHECK_EQ(MANA_RXCQE_PKT_HASH_DW(0), 4);
	CHECK_EQ(MANA_RXCQE_PKT_HASH_DW(1), 7);
	CHECK_EQ(MANA_RXCQE_PKT_HASH_DW(2), 10);
	CHECK_EQ(MANA_RXCQE_PKT_HASH_DW(3), 13);
	CHECK_EQ(MANA_RXCQE_PKT_LEN_MASK, 0xFFFF);
	CHECK_EQ(MANA_RXCQE_WQE_OFFSET_DW, 14);
	/* byte offsets in the 64-byte CQE */
	CHECK_EQ(4 * MANA_RXCQE_PKT_LEN_DW(0), 8);
	CHECK_EQ(4 * MANA_RXCQE_PKT_HASH_DW(3), 52);
	CHECK_EQ(4 * MANA_RXCQE_WQE_OFFSET_DW, 56);
}

static void
test_hash_bits(void)
{
	/* 4.4 NDIS hash type bits */
	CHECK_EQ(MANA_HASH_IPV4, 0x001);
	CHECK_EQ(MANA_HASH_TCP_IPV4, 0x002);
	CHECK_EQ(MANA_HASH_UDP_IPV4, 0x004);
	CHECK_EQ(MANA_HASH_IPV6, 0x008);
	CHECK_EQ(MANA_HASH_TCP_IPV6, 0x010);
	CHECK_EQ(MANA_HASH_UDP_IPV6, 0x020);
	CHECK_EQ(MANA_HASH_IPV6_EX, 0x040);
	CHECK_EQ(MANA_HASH_TCP_IPV6_EX, 0x080);
	CHECK_EQ(MANA_HASH_UDP_IPV6_EX, 0x100);
	CHECK_EQ(MANA_HASH_L3, 0x049);
	CHECK_EQ(MANA_HASH_L4, 0x1B6);
	CHECK_EQ(MANA_HASH_L3, MANA_HASH_IPV4 | MANA_HASH_IPV6 | MANA_HASH_IPV6_EX);
	CHECK_EQ(MANA_HASH_L4, MANA_HASH_TCP_IPV4 | MANA_HASH_UDP_IPV4 | MANA_HASH_TCP_IPV6 |
		 MANA_HASH_UDP_IPV6 | MANA_HASH_TCP_IPV6_EX | MANA_HASH_UDP_IPV6_EX);
	CHECK_EQ(MANA_HASH_L3 & MANA_HASH_L4, 0);
	CHECK_EQ(MANA_HASH_L3 | MANA_HASH_L4, 0x1FF);
}

static void
test_tx_cqe(void)
{
	uint32_t dw2;

	/* 4.6 */
	CHECK_EQ(MANA_TXCQE_DATA_OFFSET_DW, 1);
	CHECK_FIELD(MANA_TXCQE_SGL_OFFSET, 0x0000001F);
	CHECK_FIELD(MANA_TXCQE_WQE_OFFSET, 0xFFFFFFE0);
	dw2 = GDMA_SET(MANA_TXCQE_WQE_OFFSET, 0x7654321);
	CHECK_EQ(dw2, 0xECA86420);
}

static void
test_owner(void)
{
	/* 4.2: C starts at count; owner = (C / count) & 7 */
	CHECK_EQ(gdma_cqe_owner_expected(64, 64), 1);
	CHECK_EQ(gdma_cqe_owner_expected(64 + 63, 64), 1);
	CHECK_EQ(gdma_cqe_owner_expected(128, 64), 2);
	CHECK_EQ(gdma_cqe_owner_expected(7 * 64 + 5, 64), 7);
	CHECK_EQ(gdma_cqe_owner_expected(8 * 64, 64), 0);
	CHECK_EQ(gdma_cqe_owner_expected(9 * 256 + 1, 256), 1);
	CHECK_EQ(gdma_cqe_owner_expected(192 * 13 + 7, 192), 5);
	/* New on this lap's owner, empty on the previous lap's, overflow otherwise. */
	CHECK_EQ(gdma_cqe_owner_state(0xA0000000, 5), GDMA_CQE_NEW);
	CHECK_EQ(gdma_cqe_owner_state(0x80000000, 5), GDMA_CQE_EMPTY);
	CHECK_EQ(gdma_cqe_owner_state(0xC0000000, 5), GDMA_CQE_OVERFLOW);
	CHECK_EQ(gdma_cqe_owner_state(0x60000000, 5), GDMA_CQE_OVERFLOW);
	/* Only bits 29..31 count; the lap wraps at 8. */
	CHECK_EQ(gdma_cqe_owner_state(0x1FFFFFFF, 8), GDMA_CQE_NEW);
	CHECK_EQ(gdma_cqe_owner_state(0xFFFFFFFF, 8), GDMA_CQE_EMPTY);
	CHECK_EQ(gdma_cqe_owner_state(0x20000000, 9), GDMA_CQE_NEW);
	CHECK_EQ(gdma_cqe_owner_state(0xE0000000, 0), GDMA_CQE_EMPTY);
	/* The first CQE of a new CQ: lap 1; a zeroed ring reads as empty. */
	CHECK_EQ(gdma_cqe_owner_state(0, 1), GDMA_CQE_EMPTY);
}

static void
test_doorbell(void)
{
	/* 5.2 offsets */
	CHECK_EQ(GDMA_DOORBELL_PAGE_SIZE, 4096);
	CHECK_EQ(GDMA_DB_OFFSET_SQ, 0x000);
	CHECK_EQ(GDMA_DB_OFFSET_RQ, 0x400);
	CHECK_EQ(GDMA_DB_OFFSET_CQ, 0x800);
	CHECK_EQ(GDMA_DB_OFFSET_EQ, 0xFF8);
	CHECK_EQ(GDMA_DB_ID_MASK, 0xFFFFFF);
	CHECK_EQ(GDMA_DB_WQE_CNT_MASK << GDMA_DB_WQE_CNT_SHIFT, 0xFF000000);
	CHECK_EQ(GDMA_DB_TAIL_MASK << GDMA_DB_TAIL_SHIFT, 0xFFFFFFFF00000000ull);
	CHECK_EQ(GDMA_DB_CQ_TAIL_MASK << GDMA_DB_TAIL_SHIFT, 0x7FFFFFFF00000000ull);
	CHECK_EQ(1ull << GDMA_DB_ARM_SHIFT, 0x8000000000000000ull);

	/* SQ/RQ: id in 23:0, wqe_cnt 0, tail = head BU x 32 bytes in 63:32 */
	CHECK_EQ(gdma_db_wq(0x123456, 10), 0x0000014000123456ull);
	CHECK_EQ(gdma_db_wq(7, 0), 0x0000000000000007ull);
	CHECK_EQ(gdma_db_wq(1, 256), 0x0000200000000001ull);
	/* the id is cut to 24 bits and never reaches wqe_cnt */
	CHECK_EQ(gdma_db_wq(0x1ABCDEF, 1), 0x0000002000ABCDEFull);
	/* u32 wrap of the byte tail: head 0x08000001 BU = 0x1_0000_0020 bytes */
	CHECK_EQ(gdma_db_wq(3, 0x08000001u), 0x0000002000000003ull);
	CHECK_EQ(gdma_db_wq(3, 0x07FFFFFFu), 0xFFFFFFE000000003ull);

	/* CQ: tail = C mod (count << 3) in 62:32, arm bit 63 */
	CHECK_EQ(gdma_db_cq_arm(5, 256 + 3, 256), 0x8000010300000005ull);
	CHECK_EQ(gdma_db_cq_arm(5, 8 * 256 + 7, 256), 0x8000000700000005ull);
	CHECK_EQ(gdma_db_cq_arm(0xABCDEF, 64, 64), 0x8000004000ABCDEFull);
	/* 1000 mod 512 = 488 */
	CHECK_EQ(gdma_db_cq_arm(0x1000001, 1000, 64), 0x800001E800000001ull);
	CHECK_EQ(gdma_db_cq_arm(2, 0xFFFFFFFFu, 256), 0x800007FF00000002ull);
}

static void
test_manadv(void)
{
	/* 7.2 (H44 x86-64 layouts) */
	CHECK_EQ(sizeof(struct manadv_qp), 32);
	CHECK_EQ(sizeof(struct manadv_cq), 16);
	CHECK_EQ(sizeof(struct manadv_rwq), 32);
	CHECK_EQ(sizeof(struct manadv_obj), 48);
	CHECK_EQ(offsetof(struct manadv_qp, sq_buf), 0);
	CHECK_EQ(offsetof(struct manadv_qp, sq_count), 8);
	CHECK_EQ(offsetof(struct manadv_qp, sq_size), 12);
	CHECK_EQ(offsetof(struct manadv_qp, sq_id), 16);
	CHECK_EQ(offsetof(struct manadv_qp, tx_vp_offset), 20);
	CHECK_EQ(offsetof(struct manadv_qp, db_page), 24);
	CHECK_EQ(offsetof(struct manadv_cq, count), 8);
	CHECK_EQ(offsetof(struct manadv_cq, cq_id), 12);
	CHECK_EQ(offsetof(struct manadv_rwq, count), 8);
	CHECK_EQ(offsetof(struct manadv_rwq, size), 12);
	CHECK_EQ(offsetof(struct manadv_rwq, wq_id), 16);
	CHECK_EQ(offsetof(struct manadv_rwq, db_page), 24);
	CHECK_EQ(offsetof(struct manadv_obj, qp), 0);
	CHECK_EQ(offsetof(struct manadv_obj, cq), 16);
	CHECK_EQ(offsetof(struct manadv_obj, rwq), 32);
	CHECK_EQ(MANADV_OBJ_QP, 1);
	CHECK_EQ(MANADV_OBJ_CQ, 2);
	CHECK_EQ(MANADV_OBJ_RWQ, 4);
	CHECK_EQ(MANADV_CTX_ATTR_BUF_ALLOCATORS, 0);
}

/*
 * rdma-core's structs hold pthread_mutex_t, 40 bytes on x86-64 and 48 on
 * AArch64: ibv_context, ibv_cq, ibv_wq and ibv_qp one each.
 */
#if defined(__aarch64__)
#define MUTEX_GROWTH 8
#else
#define MUTEX_GROWTH 0
#endif

static void
test_verbs_abi(void)
{
	/* 9: sizes and enum values the model's verbs objects must match */
	CHECK_EQ(sizeof(struct verbs_context), 648 + MUTEX_GROWTH);
	CHECK_EQ(offsetof(struct verbs_context, context), 320);
	CHECK_EQ(offsetof(struct verbs_context, sz), 312);
	CHECK_EQ(sizeof(struct ibv_context), 328 + MUTEX_GROWTH);
	CHECK_EQ(offsetof(struct ibv_context, cmd_fd), 264);
	CHECK_EQ(offsetof(struct ibv_context, async_fd), 268);
	CHECK_EQ(offsetof(struct ibv_context, abi_compat), 320 + MUTEX_GROWTH);
	CHECK_EQ(sizeof(struct ibv_cq), 128 + MUTEX_GROWTH);
	CHECK_EQ(sizeof(struct ibv_wq), 152 + MUTEX_GROWTH);
	CHECK_EQ(sizeof(struct ibv_qp), 160 + MUTEX_GROWTH);
	CHECK_EQ(sizeof(struct ibv_mr), 48);
	CHECK_EQ(sizeof(struct ibv_pd), 16);
	CHECK_EQ(sizeof(struct ibv_rwq_ind_table), 24);
	CHECK_EQ(sizeof(struct ibv_comp_channel), 16);
	CHECK_EQ(sizeof(struct ibv_async_event), 16);
	CHECK_EQ(sizeof(struct ibv_device_attr_ex), 400);
	CHECK_EQ(offsetof(struct ibv_device_attr_ex, raw_packet_caps), 344);
	CHECK_EQ(IBV_QPT_RAW_PACKET, 8);
	CHECK_EQ(IBV_WQT_RQ, 0);
	CHECK_EQ(IBV_QP_INIT_ATTR_PD, 1);
	CHECK_EQ(IBV_QP_INIT_ATTR_IND_TABLE, 16);
	CHECK_EQ(IBV_QP_INIT_ATTR_RX_HASH, 32);
	CHECK_EQ(IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT, 2);
	CHECK_EQ(IBV_WQ_INIT_ATTR_RESERVED, 2);
	CHECK_EQ(IBV_CREATE_IND_TABLE_RESERVED, 1);
	CHECK_EQ(IBV_RX_HASH_FUNC_TOEPLITZ, 1);
	CHECK_EQ(IBV_SRQ_INIT_ATTR_TYPE, 1);
	CHECK_EQ(IBV_SRQ_INIT_ATTR_PD, 2);
	CHECK_EQ(IBV_SRQ_INIT_ATTR_XRCD, 4);
	CHECK_EQ(IBV_SRQ_INIT_ATTR_CQ, 8);
	CHECK_EQ(IBV_SRQT_BASIC, 0);
	CHECK_EQ(IBV_SRQT_XRC, 1);
	CHECK_EQ(IBV_RX_HASH_SRC_IPV4, 1u << 0);
	CHECK_EQ(IBV_RX_HASH_DST_PORT_UDP, 1u << 7);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_constants),
	UNIT_TEST(test_wqe_header),
	UNIT_TEST(test_sge),
	UNIT_TEST(test_wqe_size),
	UNIT_TEST(test_tx_oob),
	UNIT_TEST(test_cqe),
	UNIT_TEST(test_rx_oob),
	UNIT_TEST(test_hash_bits),
	UNIT_TEST(test_tx_cqe),
	UNIT_TEST(test_owner),
	UNIT_TEST(test_doorbell),
	UNIT_TEST(test_manadv),
	UNIT_TEST(test_verbs_abi),
};

UNIT_MAIN(tests)
