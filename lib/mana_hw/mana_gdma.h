/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * MANA (GDMA) hardware data: work queue entries, completion entries, inline
 * OOBs and doorbells. Hardware data only, shared by the PMD and the software
 * device model, so a wrong layout cannot hide by being wrong on both sides
 * (test/unit/test_layout.c pins every number to doc/hardware.md).
 *
 * All structures are little-endian arrays of dwords; fields are described as
 * SHIFT/MASK pairs and read/written with GDMA_GET()/GDMA_SET(), never with C
 * bitfields, so the bit positions are visible in the source.
 */

#ifndef MANA_GDMA_H
#define MANA_GDMA_H

#include <stdint.h>

/* Extract / build a field described by NAME_SHIFT and NAME_MASK. */
#define GDMA_GET(v, f)	(((uint32_t)(v) >> f##_SHIFT) & f##_MASK)
#define GDMA_SET(f, x)	(((uint32_t)(x) & f##_MASK) << f##_SHIFT)

/* Queue type codes (hardware.md §2.1). */
#define GDMA_QUEUE_SQ		1
#define GDMA_QUEUE_RQ		2
#define GDMA_QUEUE_CQ		3
#define GDMA_QUEUE_EQ		4

/* Units and limits (hardware.md §2.1, §2.3). */
#define GDMA_WQE_BU_SIZE	32	/* every WQE is a whole number of BUs */
#define GDMA_WQE_BU_SHIFT	5
#define GDMA_MAX_SQE_SIZE	512
#define GDMA_MAX_RQE_SIZE	256
#define GDMA_CQE_SIZE		64
#define GDMA_MIN_QUEUE_SIZE	4096
#define GDMA_MAX_TX_SGE		30
#define GDMA_MAX_RX_SGE		15
/* LSO (hardware.md §3.5): headers alone in SGE 0, their length in last_vbytes (8 bits). */
#define GDMA_LSO_MIN_SGE	2
#define GDMA_LSO_MAX_HDR	255
#define GDMA_LSO_MAX_MSS	GDMA_WQE_CLIENT_DATA_UNIT_MASK	/* 14 bits: 16383 */
#define GDMA_QUEUE_OFFSET_MASK	0x7FFFFFFu	/* 27-bit BU index */
/*
 * Entries per CQ, SQ and RQ (hardware.md §2.3): the kernel's max_qp_wr for an
 * Ethernet device, min(1 MiB / 512, 1 MiB / 256), and the 256 that rdma-core's
 * provider enforced on its own before v49.
 */
#define GDMA_ETH_MAX_QUEUE_ENTRIES	2048
#define GDMA_RC44_MAX_QUEUE_ENTRIES	256

/* ---- WQE (hardware.md §3.1, §3.2, §3.3) ---------------------------- */

#define GDMA_WQE_HDR_SIZE	8
#define GDMA_OOB_SIZE_SMALL	8
#define GDMA_OOB_SIZE_LARGE	24
#define GDMA_SGE_SIZE		16

/* DMA OOB header, 8 bytes at offset 0 of every WQE. */
struct gdma_wqe_hdr {
	uint32_t dw0;
	uint32_t dw1;
};

/* dw0 */
#define GDMA_WQE_LAST_VBYTES_SHIFT	24
#define GDMA_WQE_LAST_VBYTES_MASK	0xFFu
#define GDMA_WQE_DW0_RSVD_MASK		0x00FFFFFFu
/* dw1 */
#define GDMA_WQE_NUM_SGE_SHIFT		0
#define GDMA_WQE_NUM_SGE_MASK		0xFFu
#define GDMA_WQE_OOB_DIV4_SHIFT		8
#define GDMA_WQE_OOB_DIV4_MASK		0x7u
#define GDMA_WQE_OOB_IN_SGL_SHIFT	11
#define GDMA_WQE_OOB_IN_SGL_MASK	0x1u
#define GDMA_WQE_CONSUME_CREDIT_SHIFT	12
#define GDMA_WQE_CONSUME_CREDIT_MASK	0x1u
#define GDMA_WQE_FENCE_SHIFT		13
#define GDMA_WQE_FENCE_MASK		0x1u
#define GDMA_WQE_CLIENT_DATA_UNIT_SHIFT	16
#define GDMA_WQE_CLIENT_DATA_UNIT_MASK	0x3FFFu
#define GDMA_WQE_CHECK_SN_SHIFT		30
#define GDMA_WQE_CHECK_SN_MASK		0x1u
#define GDMA_WQE_SGL_DIRECT_SHIFT	31
#define GDMA_WQE_SGL_DIRECT_MASK	0x1u
/* Bits of dw1 that must be zero in every WQE this project posts (14, 15 reserved). */
#define GDMA_WQE_DW1_RSVD_MASK		0x0000C000u

#define GDMA_WQE_OOB_DIV4_SMALL		(GDMA_OOB_SIZE_SMALL / 4)	/* 2 */
#define GDMA_WQE_OOB_DIV4_LARGE		(GDMA_OOB_SIZE_LARGE / 4)	/* 6 */

/* Scatter-gather element, 16 bytes. */
struct gdma_sge {
	uint64_t address;	/* process virtual address */
	uint32_t mem_key;	/* lkey of an MR on the queue's PD */
	uint32_t size;		/* bytes */
};

/* Size in bytes of a WQE with the given inline OOB size and SGE count. */
static inline uint32_t
gdma_wqe_size(uint32_t oob_size, uint32_t num_sge)
{
	uint32_t n = num_sge == 0 ? 1 : num_sge;	/* a dummy SGE when empty */
	uint32_t sz = GDMA_WQE_HDR_SIZE + oob_size + GDMA_SGE_SIZE * n;

	return (sz + GDMA_WQE_BU_SIZE - 1) & ~(uint32_t)(GDMA_WQE_BU_SIZE - 1);
}

/* ---- TX inline OOB (hardware.md §3.4) ------------------------------ */

/* Short form, 8 bytes. The long form adds four dwords (24 bytes). */
struct mana_tx_oob {
	uint32_t dw0;
	uint32_t dw1;
	uint32_t dw2;	/* long form only */
	uint32_t dw3;	/* long form only */
	uint32_t dw4;	/* reserved */
	uint32_t dw5;	/* reserved */
};

#define MANA_TX_PKT_FMT_SHORT		0
#define MANA_TX_PKT_FMT_LONG		1

/* dw0 */
#define MANA_TX_PKT_FMT_SHIFT		0
#define MANA_TX_PKT_FMT_MASK		0x3u
#define MANA_TX_IS_OUTER_IPV4_SHIFT	2
#define MANA_TX_IS_OUTER_IPV4_MASK	0x1u
#define MANA_TX_IS_OUTER_IPV6_SHIFT	3
#define MANA_TX_IS_OUTER_IPV6_MASK	0x1u
#define MANA_TX_COMP_IPHDR_CSUM_SHIFT	4
#define MANA_TX_COMP_IPHDR_CSUM_MASK	0x1u
#define MANA_TX_COMP_TCP_CSUM_SHIFT	5
#define MANA_TX_COMP_TCP_CSUM_MASK	0x1u
#define MANA_TX_COMP_UDP_CSUM_SHIFT	6
#define MANA_TX_COMP_UDP_CSUM_MASK	0x1u
#define MANA_TX_SUPPRESS_CQE_SHIFT	7
#define MANA_TX_SUPPRESS_CQE_MASK	0x1u
#define MANA_TX_VCQ_NUM_SHIFT		8
#define MANA_TX_VCQ_NUM_MASK		0xFFFFFFu
/* dw1 */
#define MANA_TX_TRANS_OFF_SHIFT		0
#define MANA_TX_TRANS_OFF_MASK		0x3FFu
#define MANA_TX_VSQ_FRAME_SHIFT		10
#define MANA_TX_VSQ_FRAME_MASK		0x3FFFu
#define MANA_TX_SHORT_VP_OFFSET_SHIFT	24
#define MANA_TX_SHORT_VP_OFFSET_MASK	0xFFu
/* dw2 (long form) */
#define MANA_TX_IS_ENCAP_SHIFT		0
#define MANA_TX_IS_ENCAP_MASK		0x1u
#define MANA_TX_INNER_IS_IPV6_SHIFT	1
#define MANA_TX_INNER_IS_IPV6_MASK	0x1u
#define MANA_TX_INNER_TCP_OPT_SHIFT	2
#define MANA_TX_INNER_TCP_OPT_MASK	0x1u
#define MANA_TX_INJECT_VLAN_SHIFT	3
#define MANA_TX_INJECT_VLAN_MASK	0x1u
#define MANA_TX_PCP_SHIFT		16
#define MANA_TX_PCP_MASK		0x7u
#define MANA_TX_DEI_SHIFT		19
#define MANA_TX_DEI_MASK		0x1u
#define MANA_TX_VLAN_ID_SHIFT		20
#define MANA_TX_VLAN_ID_MASK		0xFFFu
#define MANA_TX_DW2_RSVD_MASK		0x0000FFF0u
/* dw3 (long form) */
#define MANA_TX_INNER_FRAME_OFF_SHIFT	0
#define MANA_TX_INNER_FRAME_OFF_MASK	0x3FFu
#define MANA_TX_INNER_IP_REL_OFF_SHIFT	10
#define MANA_TX_INNER_IP_REL_OFF_MASK	0x3Fu
#define MANA_TX_LONG_VP_OFFSET_SHIFT	16
#define MANA_TX_LONG_VP_OFFSET_MASK	0xFFFu
#define MANA_TX_DW3_RSVD_MASK		0xF0000000u

/* vsq_frame as the hardware expects it for an SQ id (hardware.md §3.4). */
static inline uint32_t
mana_tx_vsq_frame(uint32_t sq_id)
{
	return (sq_id >> 10) & MANA_TX_VSQ_FRAME_MASK;
}

/* ---- CQE (hardware.md §4.1, §4.3, §4.4, §4.6) ---------------------- */

#define GDMA_COMP_DATA_SIZE	60

struct gdma_cqe {
	uint32_t data[GDMA_COMP_DATA_SIZE / 4];	/* client OOB, dword 0 = header */
	uint32_t info;				/* dword 15 */
};

/* info (dword 15) */
#define GDMA_CQE_WQ_NUM_SHIFT		0
#define GDMA_CQE_WQ_NUM_MASK		0xFFFFFFu
#define GDMA_CQE_IS_SQ_SHIFT		24
#define GDMA_CQE_IS_SQ_MASK		0x1u
#define GDMA_CQE_OWNER_SHIFT		29
#define GDMA_CQE_OWNER_MASK		0x7u
#define GDMA_CQE_OWNER_BITS		3

/* data[0]: CQE header */
#define MANA_CQE_TYPE_SHIFT		0
#define MANA_CQE_TYPE_MASK		0x3Fu
#define MANA_CQE_CLIENT_TYPE_SHIFT	6
#define MANA_CQE_CLIENT_TYPE_MASK	0x3u
#define MANA_CQE_VENDOR_ERR_SHIFT	8
#define MANA_CQE_VENDOR_ERR_MASK	0xFFFFFFu

enum mana_cqe_type {
	CQE_INVALID			= 0,
	CQE_RX_OKAY			= 1,
	CQE_RX_COALESCED_4		= 2,
	CQE_RX_OBJECT_FENCE		= 3,
	CQE_RX_TRUNCATED		= 4,
	CQE_TX_OKAY			= 32,
	CQE_TX_SA_DROP			= 33,
	CQE_TX_MTU_DROP			= 34,
	CQE_TX_INVALID_OOB		= 35,
	CQE_TX_INVALID_ETH_TYPE		= 36,
	CQE_TX_HDR_PROCESSING_ERROR	= 37,
	CQE_TX_VF_DISABLED		= 38,
	CQE_TX_VPORT_IDX_OUT_OF_RANGE	= 39,
	CQE_TX_VPORT_DISABLED		= 40,
	CQE_TX_VLAN_TAGGING_VIOLATION	= 41,
	CQE_TX_GDMA_ERR			= 42,	/* corrupt WQE, the SQ stops (hardware.md §3.5) */
};

/* RX OOB, data[1] */
#define MANA_RXCQE_VLAN_ID_SHIFT		0
#define MANA_RXCQE_VLAN_ID_MASK			0xFFFu
#define MANA_RXCQE_VLAN_PRESENT_SHIFT		12
#define MANA_RXCQE_VLAN_PRESENT_MASK		0x1u
#define MANA_RXCQE_OUTER_IP_CSUM_OK_SHIFT	13
#define MANA_RXCQE_OUTER_IP_CSUM_OK_MASK	0x1u
#define MANA_RXCQE_OUTER_IP_CSUM_BAD_SHIFT	14
#define MANA_RXCQE_OUTER_IP_CSUM_BAD_MASK	0x1u
#define MANA_RXCQE_HASHTYPE_SHIFT		16
#define MANA_RXCQE_HASHTYPE_MASK		0x1FFu
#define MANA_RXCQE_IP_CSUM_OK_SHIFT		25
#define MANA_RXCQE_IP_CSUM_OK_MASK		0x1u
#define MANA_RXCQE_IP_CSUM_BAD_SHIFT		26
#define MANA_RXCQE_IP_CSUM_BAD_MASK		0x1u
#define MANA_RXCQE_TCP_CSUM_OK_SHIFT		27
#define MANA_RXCQE_TCP_CSUM_OK_MASK		0x1u
#define MANA_RXCQE_TCP_CSUM_BAD_SHIFT		28
#define MANA_RXCQE_TCP_CSUM_BAD_MASK		0x1u
#define MANA_RXCQE_UDP_CSUM_OK_SHIFT		29
#define MANA_RXCQE_UDP_CSUM_OK_MASK		0x1u
#define MANA_RXCQE_UDP_CSUM_BAD_SHIFT		30
#define MANA_RXCQE_UDP_CSUM_BAD_MASK		0x1u

/* Per-packet info i (0..3) of an RX CQE: length, hash. */
#define MANA_RXCQE_PPI_MAX		4
#define MANA_RXCQE_PKT_LEN_DW(i)	(2 + 3 * (i))
#define MANA_RXCQE_PKT_HASH_DW(i)	(4 + 3 * (i))
#define MANA_RXCQE_PKT_LEN_MASK		0xFFFFu
#define MANA_RXCQE_WQE_OFFSET_DW	14

/* NDIS hash type bits in rx_hashtype (hardware.md §4.4). */
#define MANA_HASH_IPV4			0x001
#define MANA_HASH_TCP_IPV4		0x002
#define MANA_HASH_UDP_IPV4		0x004
#define MANA_HASH_IPV6			0x008
#define MANA_HASH_TCP_IPV6		0x010
#define MANA_HASH_UDP_IPV6		0x020
#define MANA_HASH_IPV6_EX		0x040
#define MANA_HASH_TCP_IPV6_EX		0x080
#define MANA_HASH_UDP_IPV6_EX		0x100
#define MANA_HASH_L3			0x049
#define MANA_HASH_L4			0x1B6

/* TX OOB, data[1..2] */
#define MANA_TXCQE_DATA_OFFSET_DW	1
#define MANA_TXCQE_SGL_OFFSET_SHIFT	0
#define MANA_TXCQE_SGL_OFFSET_MASK	0x1Fu
#define MANA_TXCQE_WQE_OFFSET_SHIFT	5
#define MANA_TXCQE_WQE_OFFSET_MASK	0x7FFFFFFu

/*
 * Owner bits of the CQE at consumer index c (c starts at count, hardware.md §4.2):
 * the entry is new when its owner bits equal (c / count) & 7, empty when they
 * equal the previous lap's value, and anything else means overflow.
 */
static inline uint32_t
gdma_cqe_owner_expected(uint32_t c, uint32_t count)
{
	return (c / count) & GDMA_CQE_OWNER_MASK;
}

/* What the owner bits of a CQE tell its consumer (hardware.md §4.2). */
enum gdma_cqe_owner_state {
	GDMA_CQE_EMPTY,		/* the previous lap's owner: nothing new yet */
	GDMA_CQE_NEW,		/* this lap's owner: a completion to consume */
	GDMA_CQE_OVERFLOW,	/* any other owner: the producer overran the consumer */
};

/*
 * The one owner check of every CQ consumer: info is the CQE's dword 15 as
 * loaded by the caller (who chooses the memory order), lap is the consumer
 * index divided by the entry count, c / count (a shift for power-of-two
 * rings, so the hot paths divide nothing).
 */
static inline enum gdma_cqe_owner_state
gdma_cqe_owner_state(uint32_t info, uint32_t lap)
{
	uint32_t owner = GDMA_GET(info, GDMA_CQE_OWNER);

	if (owner != (lap & GDMA_CQE_OWNER_MASK))
		return owner == ((lap - 1) & GDMA_CQE_OWNER_MASK) ?
			GDMA_CQE_EMPTY : GDMA_CQE_OVERFLOW;
	return GDMA_CQE_NEW;
}

/* ---- Doorbells (hardware.md §5.2) ---------------------------------- */

#define GDMA_DOORBELL_PAGE_SIZE		4096
#define GDMA_DB_OFFSET_SQ		0x000
#define GDMA_DB_OFFSET_RQ		0x400
#define GDMA_DB_OFFSET_CQ		0x800
#define GDMA_DB_OFFSET_EQ		0xFF8

#define GDMA_DB_ID_MASK			0xFFFFFFull
#define GDMA_DB_WQE_CNT_SHIFT		24
#define GDMA_DB_WQE_CNT_MASK		0xFFull
#define GDMA_DB_TAIL_SHIFT		32
#define GDMA_DB_TAIL_MASK		0xFFFFFFFFull	/* SQ/RQ: bytes */
#define GDMA_DB_CQ_TAIL_MASK		0x7FFFFFFFull	/* CQ: entry index */
#define GDMA_DB_ARM_SHIFT		63

/* SQ or RQ doorbell: producer head in BUs, sent as bytes (u32 wrap). */
static inline uint64_t
gdma_db_wq(uint32_t id, uint32_t head_bu)
{
	return ((uint64_t)(id & GDMA_DB_ID_MASK)) |
	       ((uint64_t)(uint32_t)(head_bu << GDMA_WQE_BU_SHIFT) << GDMA_DB_TAIL_SHIFT);
}

/* CQ doorbell: arm for the next CQE at or after consumer index c. */
static inline uint64_t
gdma_db_cq_arm(uint32_t id, uint32_t c, uint32_t count)
{
	uint64_t tail = c % (count << GDMA_CQE_OWNER_BITS);

	return ((uint64_t)(id & GDMA_DB_ID_MASK)) |
	       ((tail & GDMA_DB_CQ_TAIL_MASK) << GDMA_DB_TAIL_SHIFT) |
	       (1ull << GDMA_DB_ARM_SHIFT);
}

/* ---- Layout checks ------------------------------------------------- */

_Static_assert(sizeof(struct gdma_wqe_hdr) == 8, "DMA OOB header is 8 bytes");
_Static_assert(sizeof(struct gdma_sge) == 16, "SGE is 16 bytes");
_Static_assert(sizeof(struct mana_tx_oob) == GDMA_OOB_SIZE_LARGE, "long TX OOB is 24 bytes");
_Static_assert(sizeof(struct gdma_cqe) == GDMA_CQE_SIZE, "CQE is 64 bytes");

#endif /* MANA_GDMA_H */
