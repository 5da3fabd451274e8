/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * net/mana driver-specific API, for tools (testpmd commands, telemetry,
 * applications) that want to look inside a MANA port or, on the software
 * device, steer it.
 *
 * Every function takes an ethdev port id and fails with -ENODEV if the port
 * does not exist, is closed or being closed on another thread (a close waits
 * for a call already running), or is not a net_mana port of the primary
 * process (in a secondary, the device state these functions read lives in
 * the primary). Reads are snapshots taken
 * without stopping the datapath: while forwarding runs, ring positions and
 * counters of one answer may be a few packets apart. The model_* functions
 * return -ENOTSUP on real hardware.
 *
 * @warning
 * @b EXPERIMENTAL: every function here is new and may change without prior
 * notice (DPDK's rule for new API: the EXPERIMENTAL node of the plugin's
 * version map; callers build with ALLOW_EXPERIMENTAL_API).
 */

#ifndef RTE_PMD_MANA_H
#define RTE_PMD_MANA_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTE_PMD_MANA_NAME_LEN		64
#define RTE_PMD_MANA_RSS_KEY_LEN	40
#define RTE_PMD_MANA_RETA_SIZE		64
#define RTE_PMD_MANA_COUNTER_NAME_LEN	32

/** What a port is and what it runs on. */
struct rte_pmd_mana_port_info {
	uint8_t vport;			/**< 0-based vPort of the device */
	bool model;			/**< software device (else rdma-core) */
	char ibdev[RTE_PMD_MANA_NAME_LEN];	/**< rdma-core or model device name */
	uint8_t mac[6];
	bool started;
	uint16_t nb_rxq, nb_txq;
	uint16_t max_desc, max_tx_sge, max_queues;
	uint32_t max_mtu;
	bool tx_cqe_suppress;
	uint32_t db_pages;		/**< distinct doorbell pages of the running queues */
	uint32_t mr_count;		/**< registered memory regions */
	uint32_t mr_gen;		/**< bumped each time a region is removed */
};

/** One registered memory region. */
struct rte_pmd_mana_mr {
	uint64_t start, end;		/**< [start, end) virtual addresses */
	uint32_t lkey;
};

/** RSS as the device holds it. */
struct rte_pmd_mana_rss_info {
	uint8_t key[RTE_PMD_MANA_RSS_KEY_LEN];
	uint64_t rss_hf;
	bool active;			/**< an RSS QP exists (port started) */
	bool reta_set;			/**< the application set the RETA */
	uint16_t period;		/**< distinct queues: entry i = queue[i % period] */
	uint16_t reta[RTE_PMD_MANA_RETA_SIZE];	/**< queue of each of the 64 entries */
	uint32_t wq_id[RTE_PMD_MANA_RETA_SIZE];	/**< RQ id of each entry (0: stopped) */
};

/** A flow for rte_pmd_mana_rss_flow_queue(); addresses and ports in host order. */
struct rte_pmd_mana_flow {
	bool ipv6;
	uint8_t proto;			/**< IPPROTO_TCP, IPPROTO_UDP or other (no ports) */
	uint32_t src_ip4, dst_ip4;
	uint8_t src_ip6[16], dst_ip6[16];	/**< network order */
	uint16_t src_port, dst_port;
};

/** Ring state of one queue. Positions are free-running counters. */
struct rte_pmd_mana_queue_info {
	bool setup;			/**< queue set up */
	bool running;			/**< device objects exist (port started) */
	uint32_t wq_id;			/**< device RQ/SQ id */
	uint32_t cq_id;
	uint16_t nb_desc;
	uint32_t ring_bytes;		/**< WQ ring size */
	uint32_t wq_head_bu;		/**< producer in 32-byte basic units */
	uint32_t wq_tail_bu;		/**< consumer (RX: from completions) */
	uint32_t desc_head, desc_tail;	/**< posted / completed descriptors */
	uint32_t in_flight;		/**< desc_head - desc_tail */
	uint32_t free_desc;		/**< nb_desc - in_flight */
	uint32_t cq_count;		/**< CQ entries */
	uint32_t cq_head;		/**< consumer index */
	uint32_t cq_index;		/**< cq_head % cq_count */
	uint8_t owner_expected;		/**< owner bits a new CQE at cq_index carries */
	uint8_t owner_seen;		/**< owner bits the entry at cq_index carries now */
	uint64_t db_page;		/**< doorbell page address */
	uint64_t packets, bytes, errors;
	/** RX: bytes one WQE holds, all its mbufs (a longer frame completes truncated). */
	uint32_t frame_bytes;
	uint8_t sges;			/**< RX: mbufs (SGEs) per WQE */
};

/** A named counter. */
struct rte_pmd_mana_counter {
	char name[RTE_PMD_MANA_COUNTER_NAME_LEN];
	uint64_t value;
};

__rte_experimental
int rte_pmd_mana_port_info_get(uint16_t port_id, struct rte_pmd_mana_port_info *info);

/** Fill up to max regions; returns the number the table holds (may exceed max) or -errno. */
__rte_experimental
int rte_pmd_mana_mr_table_get(uint16_t port_id, struct rte_pmd_mana_mr *mr, unsigned int max);

__rte_experimental
int rte_pmd_mana_rss_info_get(uint16_t port_id, struct rte_pmd_mana_rss_info *info);

/**
 * Queue the device steers a flow to with the port's current key and table.
 * Returns the queue or -errno; *hash and *entry (may be NULL) receive the
 * Toeplitz hash and the table entry (hash & 63). Non-TCP/UDP flows hash
 * addresses only.
 */
__rte_experimental
int rte_pmd_mana_rss_flow_queue(uint16_t port_id, const struct rte_pmd_mana_flow *flow,
				uint32_t *hash, uint16_t *entry);

__rte_experimental
int rte_pmd_mana_rxq_info_get(uint16_t port_id, uint16_t queue_id,
			      struct rte_pmd_mana_queue_info *info);
__rte_experimental
int rte_pmd_mana_txq_info_get(uint16_t port_id, uint16_t queue_id,
			      struct rte_pmd_mana_queue_info *info);

/* ---- software device only -------------------------------------------- */

/** Wire side link of the port's vPort. */
__rte_experimental
int rte_pmd_mana_model_link_set(uint16_t port_id, bool up);
/** The next n TX WQEs of the port complete with error CQE type (33..41). */
__rte_experimental
int rte_pmd_mana_model_inject_tx_error(uint16_t port_id, uint32_t cqe_type, uint32_t n);
/** Drop the next n frames arriving from the wire. */
__rte_experimental
int rte_pmd_mana_model_drop_next(uint16_t port_id, uint32_t n);
/**
 * Hand one frame (len bytes, at most 9216) to the port's RX as if it came from
 * the wire; a frame longer than the RX buffers completes truncated.
 */
__rte_experimental
int rte_pmd_mana_model_inject_rx(uint16_t port_id, const void *frame, uint32_t len);
/** Generator wire: rate in frames/s (0: as fast as possible) and flow count (>= 1). */
__rte_experimental
int rte_pmd_mana_model_gen_set(uint16_t port_id, uint64_t rate_pps, uint32_t flows);
/**
 * A fatal error of the port's whole software device (every port of it): the
 * ports get IBV_EVENT_DEVICE_FATAL, their link goes down and they cannot start.
 */
__rte_experimental
int rte_pmd_mana_model_fatal(uint16_t port_id);
/**
 * A reset of the port's whole software device that comes back: every port
 * of it gets IBV_EVENT_DEVICE_FATAL, the device cannot be opened for down_ms
 * milliseconds, then it can (the driver recovers, doc/design.md "Errors and
 * recovery"). -EIO after rte_pmd_mana_model_fatal().
 */
__rte_experimental
int rte_pmd_mana_model_reset(uint16_t port_id, uint32_t down_ms);
/** Device counters of the vPort; fills up to max, returns how many exist or -errno. */
__rte_experimental
int rte_pmd_mana_model_counters_get(uint16_t port_id, struct rte_pmd_mana_counter *c,
				    unsigned int max);
/** Last violation the device saw ("" if none) into buf. */
__rte_experimental
int rte_pmd_mana_model_last_error(uint16_t port_id, char *buf, unsigned int size);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_MANA_H */
