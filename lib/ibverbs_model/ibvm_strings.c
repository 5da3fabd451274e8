/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Device-independent helpers of libibverbs: names of enum values, link rate
 * conversions and fork support. They need no device, so the replacement
 * implements them in full.
 */

#include <errno.h>
#include <stddef.h>

#include "ibvm_priv.h"

#define IBVM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * names[v] of a table indexed by enum value; "unknown" past its end (a gap
 * inside the table stays NULL, as in rdma-core's own tables).
 */
#define IBVM_NAME(names, v) \
	((size_t)(v) < IBVM_ARRAY_SIZE(names) ? (names)[(size_t)(v)] : "unknown")

IBVM_EXPORT const char *
ibv_node_type_str(enum ibv_node_type node_type)
{
	static const char *const names[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter",
		[IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router",
		[IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC",
		[IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	if (node_type < IBV_NODE_CA)
		return "unknown";
	return IBVM_NAME(names, node_type);
}

IBVM_EXPORT const char *
ibv_port_state_str(enum ibv_port_state port_state)
{
	static const char *const names[] = {
		[IBV_PORT_NOP] = "PORT_NOP",
		[IBV_PORT_DOWN] = "PORT_DOWN",
		[IBV_PORT_INIT] = "PORT_INIT",
		[IBV_PORT_ARMED] = "PORT_ARMED",
		[IBV_PORT_ACTIVE] = "PORT_ACTIVE",
		[IBV_PORT_ACTIVE_DEFER] = "PORT_ACTIVE_DEFER",
	};

	return IBVM_NAME(names, port_state);
}

IBVM_EXPORT const char *
ibv_event_type_str(enum ibv_event_type event)
{
	static const char *const names[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	return IBVM_NAME(names, event);
}

IBVM_EXPORT const char *
ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	return IBVM_NAME(names, status);
}

/* Link rates: enum value, multiple of 2.5 Gb/s (0 = not a multiple), Mb/s. */
static const struct {
	enum ibv_rate rate;
	int mult;
	int mbps;
} ibvm_rates[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },		{ IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },		{ IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },	{ IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },	{ IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },	{ IBV_RATE_14_GBPS, 0, 14062 },
	{ IBV_RATE_56_GBPS, 0, 56250 },		{ IBV_RATE_112_GBPS, 0, 112500 },
	{ IBV_RATE_168_GBPS, 0, 168750 },	{ IBV_RATE_25_GBPS, 10, 25781 },
	{ IBV_RATE_100_GBPS, 40, 103125 },	{ IBV_RATE_200_GBPS, 80, 206250 },
	{ IBV_RATE_300_GBPS, 120, 309375 },	{ IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },	{ IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 },	{ IBV_RATE_800_GBPS, 320, 850000 },
	{ IBV_RATE_1200_GBPS, 480, 1275000 },
};

IBVM_EXPORT int
ibv_rate_to_mult(enum ibv_rate rate)
{
	for (size_t i = 0; i < IBVM_ARRAY_SIZE(ibvm_rates); i++)
		if (ibvm_rates[i].rate == rate && ibvm_rates[i].mult != 0)
			return ibvm_rates[i].mult;
	return -1;
}

IBVM_EXPORT enum ibv_rate
mult_to_ibv_rate(int mult)
{
	for (size_t i = 0; i < IBVM_ARRAY_SIZE(ibvm_rates); i++)
		if (ibvm_rates[i].mult == mult && mult != 0)
			return ibvm_rates[i].rate;
	return IBV_RATE_MAX;
}

IBVM_EXPORT int
ibv_rate_to_mbps(enum ibv_rate rate)
{
	for (size_t i = 0; i < IBVM_ARRAY_SIZE(ibvm_rates); i++)
		if (ibvm_rates[i].rate == rate)
			return ibvm_rates[i].mbps;
	return -1;
}

IBVM_EXPORT enum ibv_rate
mbps_to_ibv_rate(int mbps)
{
	for (size_t i = 0; i < IBVM_ARRAY_SIZE(ibvm_rates); i++)
		if (ibvm_rates[i].mbps == mbps)
			return ibvm_rates[i].rate;
	return IBV_RATE_MAX;
}

/*
 * Fork: the model pins nothing (no DMA), so memory registered before a
 * fork() stays valid in the parent; nothing has to be marked MADV_DONTFORK.
 */
IBVM_EXPORT int
ibv_fork_init(void)
{
	return 0;
}

IBVM_EXPORT enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

IBVM_EXPORT int
ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

IBVM_EXPORT int
ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

/*
 * rdma-core 56 (IBVERBS_PRIVATE_34): the names its own tables give; like
 * rdma-core, NULL for the two values no opcode has (12, 13) and "unknown"
 * past the table. 14 and 15 by number: rdma-core 44's header lacks IBV_WR_FLUSH.
 */
IBVM_EXPORT const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode);

IBVM_EXPORT const char *
ibv_wr_opcode_str(enum ibv_wr_opcode opcode)
{
	static const char *const names[] = {
		[IBV_WR_RDMA_WRITE] = "rdma-write",
		[IBV_WR_RDMA_WRITE_WITH_IMM] = "rdma-write-with-imm",
		[IBV_WR_SEND] = "send",
		[IBV_WR_SEND_WITH_IMM] = "send-with-imm",
		[IBV_WR_RDMA_READ] = "rdma-read",
		[IBV_WR_ATOMIC_CMP_AND_SWP] = "atomic-cmp-and-swp",
		[IBV_WR_ATOMIC_FETCH_AND_ADD] = "atomic-fetch-and-add",
		[IBV_WR_LOCAL_INV] = "local-inv",
		[IBV_WR_BIND_MW] = "bind-mw",
		[IBV_WR_SEND_WITH_INV] = "send-with-inv",
		[IBV_WR_TSO] = "tso",
		[IBV_WR_DRIVER1] = "driver1",
		[14] = "flush",
		[15] = "atomic-write",
	};

	return IBVM_NAME(names, opcode);
}
