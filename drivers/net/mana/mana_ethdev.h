/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

#ifndef MANA_ETHDEV_H
#define MANA_ETHDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_ether.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_spinlock.h>
#include <ethdev_driver.h>

#include "mana_compat.h"
#include "mana_vs.h"
#include "mana_model.h"
#include "mana_gdma.h"
#include "mana_qgate.h"

/* Limits (doc/hardware.md §1 rule 5, §6). */
#define MANA_MIN_DESC		64
/* The deepest ring tested; the device and the provider may allow less (hardware.md §2.5). */
#define MANA_MAX_DESC		GDMA_ETH_MAX_QUEUE_ENTRIES
#define MANA_DEFAULT_DESC	256	/* ring size when the application gives 0 */
#define MANA_MAX_RXQ		64	/* RSS table entries */
#define MANA_MAX_TXQ		64
#define MANA_RETA_SIZE		64
#define MANA_RSS_KEY_LEN	40
#define MANA_MAX_MTU		9000
#define MANA_MIN_MTU		RTE_ETHER_MIN_MTU
/* L2 overhead counted against the RX buffer: Ethernet header + one VLAN tag. */
#define MANA_L2_OVERHEAD	(RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN)
#define MANA_MAX_PORTS		8
#define MANA_MAX_MAC_ARGS	8
#define MANA_IBDEV_NAME_LEN	64

#define MANA_RSS_HF	(RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP | \
			 RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_IPV6 | \
			 RTE_ETH_RSS_NONFRAG_IPV6_TCP | RTE_ETH_RSS_NONFRAG_IPV6_UDP)

#define MANA_TX_OFFLOADS (RTE_ETH_TX_OFFLOAD_MULTI_SEGS | RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | \
			  RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM | \
			  RTE_ETH_TX_OFFLOAD_VLAN_INSERT | RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE | \
			  RTE_ETH_TX_OFFLOAD_TCP_TSO)
#define MANA_RX_OFFLOADS (RTE_ETH_RX_OFFLOAD_CHECKSUM | RTE_ETH_RX_OFFLOAD_RSS_HASH | \
			  RTE_ETH_RX_OFFLOAD_VLAN_STRIP | RTE_ETH_RX_OFFLOAD_SCATTER)
#define MANA_TX_OL_FLAGS (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_IP_CKSUM | \
			  RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_VLAN | RTE_MBUF_F_TX_TCP_SEG)
/* Largest TSO packet, headers included (hardware.md §3.5: Linux's GSO_MAX_SIZE). */
#define MANA_TSO_MAX_LEN	65536

/* ---- devargs (mana_devargs.c) --------------------------------------- */

/* Longest wait for a reset device to come back (recovery_timeout=, NIC guide). */
#define MANA_RECOVERY_TIMEOUT_DEFAULT_MS	30000u
#define MANA_RECOVERY_TIMEOUT_MIN_MS		100u
#define MANA_RECOVERY_TIMEOUT_MAX_MS		600000u

/* Which keys a devargs string may use. */
enum mana_devargs_scope {
	MANA_DEVARGS_VDEV,	/* --vdev net_mana...: every key */
	MANA_DEVARGS_PCI,	/* -a <BDF>,...: port selection and driver tuning */
	MANA_DEVARGS_MODEL_ENV,	/* MANA_MODEL_PCI=<BDF>,...: the model's own keys */
};

/* Burst function builds (mana_datapath.c); each CPU family's in the order of width. */
enum mana_datapath {
	MANA_DP_AUTO,		/* devarg default: the widest the CPU and EAL allow */
	MANA_DP_SCALAR,
	MANA_DP_SSE,		/* x86-64 SSE4.2, 128-bit */
	MANA_DP_AVX2,		/* x86-64 AVX2, 256-bit */
	MANA_DP_NEON,		/* AArch64 NEON (Advanced SIMD), 128-bit */
};

struct mana_devargs {
	char ibdev[MANA_IBDEV_NAME_LEN];	/* "" : software model */
	char model[MANA_MODEL_NAME_LEN];	/* "" : named after the vdev */
	unsigned int nmac;
	struct rte_ether_addr mac[MANA_MAX_MAC_ARGS];
	bool tx_cqe_suppress;			/* default true */
	enum mana_datapath datapath;		/* default auto */
	bool recovery_manual;			/* recovery=manual; default auto */
	uint32_t recovery_timeout_ms;		/* recovery_timeout=, default 30000 */
	uint32_t keys_given;			/* bit i: mana_keys[i] seen (once-only keys) */
	bool model_keys;			/* any software device setting but mac */
	/* ports, wires, engine...: the model's own parser and config (mana_model.h) */
	struct mana_model_settings settings;
};

int mana_devargs_parse(const char *args, enum mana_devargs_scope scope,
		       struct mana_devargs *da);
/* The model config of the settings, named name, on numa_node unless numa= was given. */
int mana_devargs_model_config(const struct mana_devargs *da, const char *name, int numa_node,
			      struct mana_model_config *cfg);

/* ---- memory registration (mana_mr.c) -------------------------------- */

#define MANA_MR_TABLE_MAX	512
#define MANA_MR_CACHE_SIZE	8

struct mana_mr_entry {
	uintptr_t start;
	uintptr_t end;		/* exclusive */
	uint32_t lkey;
};

/*
 * Per-port table of registered regions, sorted by start. Writers hold the
 * lock; datapath readers take no lock: they follow the sequence counter
 * (odd while an update is in progress) and retry. `gen` changes when a
 * region is removed, which makes every per-queue cache flush itself.
 */
struct mana_mr_table {
	rte_spinlock_t lock;
	uint32_t seq;
	uint32_t gen;
	uint32_t n;
	struct mana_mr_entry e[MANA_MR_TABLE_MAX];
	struct ibv_mr *mr[MANA_MR_TABLE_MAX];			/* parallel to e[] */
	const struct rte_mempool *mp[MANA_MR_TABLE_MAX];	/* owner, parallel to e[] */
};

/*
 * Regions of memory outside the registered mempools (external buffers,
 * rte_malloc and rte_extmem memory), registered on a TX miss: one entry per
 * VA-contiguous run of used memory segments, sorted, not overlapping each
 * other (they may overlap pool regions: the pool table is looked up first).
 * Same lock (the pool table's) and sequence-counter protocol; removals bump
 * the pool table's gen. Retired regions (replaced by a larger run, or whose
 * memory DPDK freed) stay registered, out of lookups, until the port stops
 * or closes: a posted WQE may still use them. Entries plus retired regions
 * at most MANA_MR_EXT_MAX (user guide).
 */
#define MANA_MR_EXT_MAX		64

struct mana_mr_ext {
	uint32_t seq;
	uint32_t n;
	uint32_t nretired;
	bool full_logged;
	bool mem_cb_registered;
	struct mana_mr_entry e[MANA_MR_EXT_MAX];
	struct ibv_mr *mr[MANA_MR_EXT_MAX];		/* parallel to e[] */
	struct ibv_mr *retired[MANA_MR_EXT_MAX];
};

/* Per-queue cache in front of the table: last hit first, then a few more. */
struct mana_mr_cache {
	uint32_t gen;
	uint32_t last;
	uint32_t victim;
	int32_t err;			/* why the last failed lookup failed (-errno) */
	struct mana_mr_entry e[MANA_MR_CACHE_SIZE];
};

/* ---- queues --------------------------------------------------------- */

struct mana_rxq_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;
	uint64_t nombuf;
	uint64_t truncated;
	uint64_t coalesced_cqes;
	uint64_t unknown_cqes;
	uint64_t cq_overflow;
	uint64_t mr_fail;
	uint64_t discarded;	/* received by the device, thrown away by a queue stop */
};

/*
 * Why tx_prepare refused a packet (mana_tx.c): counted per queue, each with
 * one rte_errno and one debug log line.
 */
enum mana_tx_prep_reason {
	MANA_TX_PREP_OK,
	MANA_TX_PREP_SEGS,	/* more SGEs than the queue has */
	MANA_TX_PREP_OFFLOAD,	/* an offload flag the device does not offer */
	MANA_TX_PREP_FLAGS,	/* flags inconsistent (rte_validate_tx_offload, debug builds) */
	MANA_TX_PREP_L2L3_LEN,	/* l2_len + l3_len over trans_off's 10 bits */
	MANA_TX_PREP_HDR_SPLIT,	/* headers not all in the first segment */
	MANA_TX_PREP_MSS,	/* TSO: tso_segsz 0 or over 14 bits */
	MANA_TX_PREP_MSS_MTU,	/* TSO: headers + tso_segsz over the MTU */
	MANA_TX_PREP_HDR_LEN,	/* TSO: headers over 255 bytes (last_vbytes) */
	MANA_TX_PREP_HDR_BAD,	/* TSO: l2/l3/l4_len disagree with the packet */
	MANA_TX_PREP_L3,	/* TSO: not one of IPv4/IPv6, or an IP fragment */
	MANA_TX_PREP_IP_OPT,	/* TSO: IPv4 options, an IPv6 routing header */
	MANA_TX_PREP_L4,	/* TSO: not TCP */
	MANA_TX_PREP_LEN,	/* TSO: no payload, or over MANA_TSO_MAX_LEN */
	MANA_TX_PREP_NB,
};

struct mana_txq_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;
	uint64_t err_type[11];		/* by CQE type 33..42 at [type - 32] */
	uint64_t mr_fail;
	uint64_t mr_table_full;		/* mr_fail because the external region table is full */
	uint64_t too_many_segs;
	uint64_t cq_overflow;
	uint64_t bad_cqe;		/* CQE not matching any outstanding WQE */
	uint64_t tso_packets;		/* LSO WQEs posted */
	uint64_t tso_bad;		/* burst stopped at a TSO packet it cannot express */
	uint64_t prep[MANA_TX_PREP_NB];	/* tx_prepare refusals by reason ([0] unused) */
};

/* Coalesced RX CQE being consumed, kept across bursts (hardware.md §4.5). */
struct mana_rx_pending {
	uint32_t dw1;
	uint16_t n;
	uint16_t i;
	uint32_t len[MANA_RXCQE_PPI_MAX];
	uint32_t hash[MANA_RXCQE_PPI_MAX];
};

struct mana_priv;

struct mana_rxq {
	/* Datapath, read every burst. */
	struct gdma_cqe *cq_ring;
	uint32_t cq_count;
	uint32_t cq_head;		/* consumer index C, starts at cq_count */
	uint8_t *rq_buf;
	uint32_t rq_mask;		/* RQ bytes - 1 */
	uint32_t rq_head;		/* producer, BUs */
	uint32_t rq_id;
	uint8_t *db_page;		/* this RWQ's own page (hardware.md §1 rule 2) */
	uint64_t db_off;		/* its offset in cmd_fd, for other processes (mana_mp.c) */
	struct mana_qgate *gate;	/* priv->rx_gate[queue_id] (mana_qgate.h) */
	struct rte_mbuf **sw_ring;
	uint32_t sw_head;		/* posted WQEs, free-running */
	uint32_t sw_tail;		/* completed WQEs, free-running */
	uint16_t nb_desc;
	uint16_t desc_mask;
	uint16_t port_id;
	uint16_t queue_id;
	uint32_t buf_size;		/* bytes the device may write per mbuf */
	uint16_t data_off;		/* headroom of every posted mbuf */
	/*
	 * Data of a posted mbuf m at (char *)m + buf_off: an RX pool holds
	 * plain pktmbufs (pinned external buffers are refused), whose buffer
	 * follows header and private area (rte_mbuf_buf_addr), plus data_off.
	 */
	uint32_t buf_off;
	uint64_t mbuf_rearm;		/* rearm_data: data_off, refcnt 1, nb_segs 1, port */
	uint64_t sge_hi;		/* refill SGE bytes 8..15: lkey | buf_size << 32 */
	uint32_t mr_gen;		/* table generation sge_hi's lkey was read at */
	/*
	 * CQE dword 1 VLAN-present bit while the tag the device stripped goes
	 * back into the data (VLAN_STRIP not configured); 0 otherwise.
	 */
	uint32_t vlan_reinsert;
	struct rte_mempool *mp;
	struct mana_priv *priv;
	struct mana_rx_pending pend;
	struct mana_mr_cache mr_cache;
	struct mana_rxq_stats stats;	/* by the burst (and a stop, gate closed); never reset */
	/*
	 * Scattered RX (hardware.md §3.6): sge_k mbufs per WQE, at
	 * sw_ring[(WQE & desc_mask) * sge_k + j]; a NULL slot waits for a fresh
	 * mbuf. sge_k 1 is the one-mbuf path of mana_rx_burst.
	 */
	uint32_t seg_size;		/* bytes of SGEs 1..k-1: the whole data room */
	uint32_t frame_cap;		/* bytes one WQE holds: buf_size + (k - 1) * seg_size */
	uint64_t seg_rearm;		/* rearm_data of a following segment: data_off 0 */
	uint8_t sge_k;
	uint8_t wqe_bu;			/* WQE size in BUs: ALIGN(16 + 16k, 32) / 32 */
	/*
	 * The port runs mana_rx_burst_scatter (some queue has k > 1): this
	 * queue's slots are kept that way too (NULL once delivered), k = 1 or not.
	 */
	bool scatter_burst;
	/* Control path. */
	struct mana_rxq_stats stats_base;	/* stats at the last reset (mana_stats.c) */
	int socket;
	bool deferred;			/* rx_deferred_start: dev_start leaves it stopped */
	bool intr_armed;
	struct ibv_cq *cq;
	struct ibv_wq *wq;
	struct ibv_comp_channel *channel;
	uint32_t cq_id;
};

/*
 * Per-descriptor completion data; the mbuf pointers live in their own array
 * (txq->mbufs) so a completed run is freed in bulk straight from the ring.
 */
struct mana_tx_desc {
	uint32_t wqe_end;		/* SQ producer index (BUs) after this WQE */
	uint32_t bytes;		/* bytes posted up to it included; bit 31: signalled */
};

#define MANA_TX_DESC_SIG	(UINT32_C(1) << 31)
#define MANA_TX_DESC_BYTES	(MANA_TX_DESC_SIG - 1)

struct mana_txq {
	/* Datapath. */
	uint8_t *sq_buf;
	uint32_t sq_mask;		/* SQ bytes - 1 */
	uint32_t sq_bu;			/* SQ size in BUs */
	uint32_t sq_head;		/* producer, BUs */
	uint32_t sq_tail;		/* consumer, BUs */
	uint32_t sq_id;
	uint8_t *db_page;
	uint64_t db_off;		/* its offset in cmd_fd, for other processes (mana_mp.c) */
	struct mana_qgate *gate;	/* priv->tx_gate[queue_id] (mana_qgate.h) */
	struct gdma_cqe *cq_ring;
	uint32_t cq_count;
	uint32_t cq_head;
	uint32_t oob_dw0;		/* vcq_num template */
	uint32_t oob_dw1;		/* vsq_frame + short vport offset template */
	uint32_t oob_long_dw3;		/* long vport offset */
	bool long_oob_only;		/* vport offset does not fit the short form */
	bool suppress;			/* suppress the CQE of all but a burst's last WQE */
	bool fast_free;			/* RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE */
	uint64_t hdr_tmpl;		/* short-OOB WQE bytes 0..7: header, 1 SGE */
	uint64_t oob_tmpl;		/* short-OOB WQE bytes 8..15: OOB, no offload */
	const struct rte_mempool *lk_pool;	/* pool held in one MR: lkey lk_key */
	const struct rte_mempool *lk_nopool;	/* pool not held in one MR */
	uint32_t lk_key;
	uint32_t lk_gen;		/* MR table generation of the two above */
	uint32_t bytes_posted;		/* free-running, 31 bits (mana_tx_desc.bytes) */
	uint32_t bytes_done;		/* bytes_posted value of the last retired descriptor */
	uint32_t chain_end;		/* desc_head after the last chained or attached packet posted */
	/*
	 * desc_head after the last packet not posted by tx_post_fast, or the
	 * last change of lk_pool: every descriptor from here on holds a
	 * direct one-segment mbuf of refcnt 1 from one pool (mana_tx.c).
	 */
	uint32_t mixed_end;
	struct rte_mbuf **mbufs;
	struct mana_tx_desc *desc;
	uint32_t desc_head;
	uint32_t desc_tail;
	uint16_t nb_desc;
	uint16_t desc_mask;
	uint16_t max_sge;
	uint16_t port_id;
	uint16_t queue_id;
	uint64_t offloads;
	struct mana_priv *priv;
	struct mana_mr_cache mr_cache;
	struct mana_txq_stats stats;	/* written by the burst only, never reset */
	uint32_t stats_from;		/* desc_head at the last stats reset */
	/* Control path. */
	struct mana_txq_stats stats_base;	/* stats at the last reset (mana_stats.c) */
	int socket;
	bool deferred;			/* tx_deferred_start: dev_start leaves it stopped */
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint32_t cq_id;
};

/* ---- device and port ------------------------------------------------ */

/*
 * State shared by every ethdev of one rte_device, and by every ethdev of any
 * other vdev on the software device a probe created (model ownership): the
 * device lives until the last of those ports is closed, in whatever order.
 */
struct mana_shared {
	LIST_ENTRY(mana_shared) link;	/* in the list of owners, when own_model is set */
	struct mana_model *own_model;	/* created by the probe; gone with the last port */
	unsigned int refcnt;
};

/* Where a port is in the handling of a device reset (mana_recovery.c). */
enum mana_rec_state {
	MANA_REC_NONE,		/* the device is usable */
	MANA_REC_PENDING,	/* recovery=auto: torn down or waiting for the device */
	MANA_REC_NEED_RESET,	/* recovery=manual: waiting for rte_eth_dev_reset() */
	MANA_REC_FAILED,	/* the device did not come back in time: close the port */
};

struct mana_rec_stats {
	uint64_t fatal_events;		/* IBV_EVENT_DEVICE_FATAL seen */
	uint64_t recoveries;		/* automatic recoveries that succeeded */
	uint64_t failures;		/* recoveries (or dev_reset) that timed out or failed */
	uint64_t dev_resets;		/* rte_eth_dev_reset() that rebuilt the port */
	uint64_t last_ms;		/* fatal event to port usable, last time */
};

struct mana_priv {
	struct rte_eth_dev_data *dev_data;
	uint16_t port_id;
	uint8_t ib_port;		/* 1-based IB port = vPort + 1 */
	int socket;
	struct ibv_context *ctx;
	struct ibv_pd *pd;		/* plain PD: MRs */
	struct ibv_pd *parent_pd;	/* parent domain, pd_context = IB port: queues */
	struct mana_model *model;	/* NULL on hardware */
	struct mana_shared *shared;
	char ibdev_name[MANA_IBDEV_NAME_LEN];	/* device of the vPort (one port per vPort) */
	struct rte_ether_addr mac;
	/* Limits from query_device clamped to rdma-core 44. */
	uint16_t max_desc;
	uint16_t max_tx_sge;
	uint16_t max_queues;
	uint32_t max_qp;		/* QPs of the device: TX queues + the RSS QP */
	uint32_t max_mtu;
	uint16_t mtu_applied;		/* last MTU given to the device; 0: unknown */
	bool tx_cqe_suppress;
	bool started;
	enum mana_datapath dp_want;	/* devarg datapath= */
	enum mana_datapath dp;		/* burst functions since the last start */
	/* RSS. */
	uint8_t rss_key[MANA_RSS_KEY_LEN];
	uint64_t rss_hf;
	uint16_t reta_period;		/* number of distinct queues in the table (2^n) */
	uint16_t reta[MANA_MAX_RXQ];	/* the period: reta[i] for entries i mod period */
	uint16_t reta_nrx;		/* RX queue count the table was made for */
	bool reta_set;			/* application RETA; otherwise identity */
	struct ibv_rwq_ind_table *ind_table;
	struct ibv_qp *rss_qp;
	/* Interrupts. */
	struct rte_intr_handle *async_intr;	/* async_fd: link and removal */
	struct rte_intr_handle *rxq_intr;	/* per-queue completion channels */
	bool removed;
	/* Memory registration. */
	struct mana_mr_table mr;
	struct mana_mr_ext mr_ext;
	bool mp_cb_registered;
	/* Device counters at the last stats reset (model only). */
	struct mana_model_port_stats model_base;
	/*
	 * Counters since the last reset of the queues released since then, by
	 * queue index: port statistics stay cumulative across queue re-setup
	 * and reconfiguration (mana_stats.c).
	 */
	struct mana_rxq_stats rxq_carry[MANA_MAX_RXQ];
	struct mana_txq_stats txq_carry[MANA_MAX_TXQ];
	/* Who may run each queue's burst, in every process (mana_qgate.h). */
	struct mana_qgate rx_gate[MANA_MAX_RXQ];
	struct mana_qgate tx_gate[MANA_MAX_TXQ];
	/*
	 * Generation of ctx, bumped (release) by whoever replaces it, before the
	 * gates open again: a secondary maps the new cmd_fd before its next
	 * burst (mana_mp_rxtx.c).
	 */
	uint32_t ctx_gen;
	/* Device reset and recovery (mana_recovery.c). */
	bool recovery_manual;		/* recovery=manual */
	uint32_t recovery_timeout_ms;
	enum mana_rec_state rec_state;
	uint64_t rec_t0;		/* timer cycles at the fatal event */
	uint64_t rec_deadline;		/* timer cycles: give up waiting for the device */
	bool rec_torn_down;		/* this port's verbs objects are all gone */
	rte_spinlock_recursive_t ctl_lock;	/* control ops vs the recovery alarm */
	struct mana_rec_stats rec_stats;
};

static inline struct mana_priv *
mana_priv(struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

/* mana_ethdev.c */
int mana_port_probe(struct rte_device *rdev, struct ibv_device *ibdev, uint8_t ib_port,
		    const struct rte_ether_addr *mac, const struct mana_devargs *da,
		    struct mana_shared *shared, int socket);
int mana_probe_ports(struct rte_device *rdev, struct ibv_device *ibdev,
		     const struct mana_devargs *da, struct mana_shared *shared, int socket,
		     bool sysfs_macs);
int mana_dev_remove_all(struct rte_device *rdev);
/* A new shared state with one reference; owning m (may be NULL) from now on. */
struct mana_shared *mana_shared_new(struct mana_model *m);
/* The shared state owning software device m, with one more reference; NULL if none. */
struct mana_shared *mana_shared_of_model(const struct mana_model *m);
void mana_shared_put(struct mana_shared *sh);
int mana_set_buf_allocator(struct mana_priv *priv, int socket);
int mana_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info);
extern const struct eth_dev_ops mana_dev_ops;
struct rte_eth_dev *mana_port_dev(uint16_t port_id);

/* mana_mp.c: secondary processes, IPC with the primary */
int mana_mp_get(void);
void mana_mp_put(void);
int mana_mp_secondary_probe(struct rte_device *rdev);
int mana_mp_secondary_remove(struct rte_device *rdev);
int mana_mp_req_dev_stats(struct mana_priv *priv, struct mana_model_port_stats *st);
/* Secondary: the primary maps cmd_fd's doorbell pages here (fd, ctx_gen), or -errno. */
int mana_mp_req_cmd_fd(struct mana_priv *priv, int *fd, uint32_t *gen);
/* Secondary: the primary registers mempool mp (MR miss in a secondary), 0 or -errno. */
int mana_mp_req_mr(struct mana_priv *priv, const struct rte_mempool *mp);
/* Secondary: the primary registers the memory run holding [addr, addr + len), 0 or -errno. */
int mana_mp_req_mr_ext(struct mana_priv *priv, uintptr_t addr, uint32_t len);

/* mana_mp_rxtx.c: a secondary's datapath on the primary's queues */
int mana_mp_proc_attach(struct rte_eth_dev *dev);
void mana_mp_proc_detach(struct rte_eth_dev *dev);
void mana_mp_proc_fp_ops(struct rte_eth_dev *dev);

/* mana_ethdev.c, for mana_recovery.c: the control path under ctl_lock */
/* keep_states: start the queues dev->data says are started (recovery), else all but deferred ones. */
int mana_dev_start_locked(struct rte_eth_dev *dev, bool keep_states);
int mana_dev_stop_locked(struct rte_eth_dev *dev);
int mana_port_open(struct mana_priv *priv, struct ibv_device *ibdev);
void mana_port_close_ctx(struct mana_priv *priv);
void mana_queues_teardown(struct rte_eth_dev *dev);

/* mana_recovery.c: device reset and recovery */
/* IBV_EVENT_DEVICE_FATAL of the port of token (mana_portref_token), not entered. */
void mana_recovery_on_fatal(void *token);
int mana_dev_reset(struct rte_eth_dev *dev);
/* 0, or a negative errno and a log line when the port cannot start now. */
int mana_recovery_start_check(struct mana_priv *priv);

/*
 * mana_portref.c: the port's slot (static memory: state, users, generation).
 * enter: 0, or -ENODEV (closed or closing; logged when what is not NULL) and
 * priv must not be touched. A reference is never held across an application
 * callback. close_begin: 0 for the one closer (users gone), -ENODEV (logged)
 * for any other, after the first one finished.
 */
void mana_portref_live(struct rte_eth_dev *dev);
int mana_portref_enter(struct rte_eth_dev *dev, const char *what);
void mana_portref_leave(struct rte_eth_dev *dev);
int mana_portref_close_begin(struct rte_eth_dev *dev);
void mana_portref_close_end(struct rte_eth_dev *dev);
bool mana_portref_is_live(const struct rte_eth_dev *dev);
/* Callback argument naming this port and probe (not priv): valid after the close. */
void *mana_portref_token(const struct rte_eth_dev *dev);
struct rte_eth_dev *mana_portref_token_dev(void *token);
/* The port of token, entered; NULL when it was closed (or probed again) since. */
struct rte_eth_dev *mana_portref_enter_token(void *token);
bool mana_portref_live_token(void *token);

/* mana_intr.c: link state, device events */
int mana_link_update(struct rte_eth_dev *dev, int wait);
int mana_intr_setup(struct rte_eth_dev *dev);
void mana_intr_teardown(struct rte_eth_dev *dev);
/* On EAL's interrupt thread: a callback of the running handler tore it down (stop). */
bool mana_intr_detached(void *token);

/* mana_pci.c: sysfs of an rdma-core device (<ibdev_path>/device/...) */
int mana_sysfs_port_mac(struct ibv_device *ibdev, uint8_t ib_port, struct rte_ether_addr *mac);
uint16_t mana_sysfs_port_mtu(struct ibv_device *ibdev, uint8_t ib_port);
int mana_sysfs_numa_node(struct ibv_device *ibdev);

/* mana_stats.c */
int mana_stats_reset(struct rte_eth_dev *dev);
/* Counters of queue qid since the last reset, its released predecessors included. */
void mana_rxq_stats_get(const struct mana_priv *priv, uint16_t qid, const struct mana_rxq *rxq,
			struct mana_rxq_stats *st);
void mana_txq_stats_get(const struct mana_priv *priv, uint16_t qid, const struct mana_txq *txq,
			struct mana_txq_stats *st);
/* Queue qid is being released: keep its counters in the port's. */
void mana_rxq_stats_retire(struct mana_priv *priv, uint16_t qid, const struct mana_rxq *rxq);
void mana_txq_stats_retire(struct mana_priv *priv, uint16_t qid, const struct mana_txq *txq);
int mana_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xstats, unsigned int n);
int mana_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names,
			  unsigned int size);

/* mana_qgate.c: gates of a port's queues (closed until their queue is started) */
void mana_qgates_init(struct mana_priv *priv);
int mana_qgate_close(struct mana_priv *priv, bool rx, uint16_t qid);
void mana_qgate_open(struct mana_priv *priv, bool rx, uint16_t qid);
/* Every gate of the port; -ETIMEDOUT if some holder did not leave (logged). */
int mana_qgate_close_all(struct mana_priv *priv);

/*
 * Burst functions. mana_rx_burst, mana_rx_burst_scatter and mana_tx_burst
 * are the gated entry points of the primary process, ringing q->db_page;
 * the _db variants are their bodies for a caller that holds the queue's gate
 * and gives the doorbell page as this process maps it.
 */

/* mana_rx.c */
uint16_t mana_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t n);
uint16_t mana_rx_burst_db(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db);
bool mana_rx_post_all(struct mana_rxq *rxq);
/* Per-CQE and per-packet work of mana_rx.c for the scattered path. */
uint64_t mana_rx_cqe_ol_flags(uint32_t dw1);
uint32_t mana_rx_ptype(const uint8_t *p, uint32_t len);
void mana_rx_vlan_reinsert(struct rte_mbuf *m);
void mana_rx_lkey_reload(struct mana_rxq *rxq);
#ifdef MANA_HAVE_VEC
/* SSE4.2 and AVX2 builds (mana_rx_sse.c, mana_rx_avx2.c; mana_datapath.c chooses) */
uint16_t mana_rx_burst_sse(void *rxq, struct rte_mbuf **pkts, uint16_t n);
uint16_t mana_rx_burst_db_sse(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n,
			      uint8_t *db);
uint16_t mana_rx_burst_avx2(void *rxq, struct rte_mbuf **pkts, uint16_t n);
uint16_t mana_rx_burst_db_avx2(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n,
			       uint8_t *db);
#endif
#ifdef MANA_HAVE_NEON
/* NEON build (mana_rx_neon.c, AArch64) */
uint16_t mana_rx_burst_neon(void *rxq, struct rte_mbuf **pkts, uint16_t n);
uint16_t mana_rx_burst_db_neon(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n,
			       uint8_t *db);
#endif

/* mana_rx_scatter.c */
uint16_t mana_rx_burst_scatter(void *rxq, struct rte_mbuf **pkts, uint16_t n);
uint16_t mana_rx_burst_scatter_db(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n,
				  uint8_t *db);
uint32_t mana_rxs_refill(struct mana_rxq *rxq, uint32_t min);
bool mana_rx_cqe_pend(struct mana_rxq *rxq, const struct gdma_cqe *cqe, uint32_t first);
void mana_rxs_release_all(struct mana_rxq *rxq);
int mana_rx_descriptor_status(void *rxq, uint16_t offset);
mana_rx_queue_count_t mana_rx_queue_count(void *rxq);
/* Their bodies, for a caller that holds the queue's gate (a secondary's wrappers). */
uint32_t mana_rxq_ready(const struct mana_rxq *rxq);
int mana_rxq_desc_status(const struct mana_rxq *rxq, uint16_t offset);

/* mana_rxq.c */
int mana_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
			unsigned int socket, const struct rte_eth_rxconf *conf,
			struct rte_mempool *mp);
void mana_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid);
int mana_rxq_create_objs(struct mana_priv *priv, struct mana_rxq *rxq, bool intr);
int mana_rxq_start(struct mana_rxq *rxq);
void mana_rxq_stop(struct mana_rxq *rxq);
int mana_rx_side_create(struct rte_eth_dev *dev, bool intr);
bool mana_rxq_receives(struct rte_eth_dev *dev, uint16_t qid);
int mana_rx_rebuild(struct rte_eth_dev *dev);
int mana_rx_queue_stop(struct rte_eth_dev *dev, uint16_t qid);
int mana_rx_queue_start(struct rte_eth_dev *dev, uint16_t qid);
int mana_vlan_offload_set(struct rte_eth_dev *dev, int mask);
int mana_rx_intr_enable(struct rte_eth_dev *dev, uint16_t qid);
int mana_rx_intr_disable(struct rte_eth_dev *dev, uint16_t qid);
void mana_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_rxq_info *qinfo);
/* SGEs per RX WQE for frames of MTU mtu from pool mp (hardware.md §3.6); 0 after a log line. */
/* rearm_data of a received mbuf: data_off, refcnt 1, nb_segs 1, port (mana_rx.c). */
uint64_t mana_rx_rearm_template(uint16_t data_off, uint16_t port);
uint32_t mana_rxq_sge_count(const struct mana_priv *priv, uint16_t qid,
			    const struct rte_mempool *mp, uint16_t mtu);

/* mana_tx.c */
uint16_t mana_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n);
uint16_t mana_tx_burst_db(struct mana_txq *txq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db);
/*
 * TX fast paths (mana_tx_fast.h): post up to max plain packets as 1-BU WQEs,
 * returning the number posted; scalar in mana_tx.c, SSE4.2 and AVX2 builds
 * in mana_tx_sse.c and mana_tx_avx2.c (x86 only: MANA_HAVE_VEC), the NEON
 * build in mana_tx_neon.c (AArch64 only: MANA_HAVE_NEON). The CPU must
 * have the build's instructions (mana_datapath.c chooses).
 */
typedef uint32_t (*mana_tx_fast_fn)(struct mana_txq *txq, struct rte_mbuf **pkts, uint32_t max);
uint16_t mana_tx_burst_db_fast(struct mana_txq *txq, struct rte_mbuf **pkts, uint16_t n,
			       uint8_t *db, mana_tx_fast_fn fast);
#ifdef MANA_HAVE_VEC
uint32_t mana_tx_post_fast_sse(struct mana_txq *txq, struct rte_mbuf **pkts, uint32_t max);
uint32_t mana_tx_post_fast_avx2(struct mana_txq *txq, struct rte_mbuf **pkts, uint32_t max);
uint16_t mana_tx_burst_sse(void *txq, struct rte_mbuf **pkts, uint16_t n);
uint16_t mana_tx_burst_avx2(void *txq, struct rte_mbuf **pkts, uint16_t n);
#endif
#ifdef MANA_HAVE_NEON
uint32_t mana_tx_post_fast_neon(struct mana_txq *txq, struct rte_mbuf **pkts, uint32_t max);
uint16_t mana_tx_burst_neon(void *txq, struct rte_mbuf **pkts, uint16_t n);
#endif
uint16_t mana_tx_prepare(void *txq, struct rte_mbuf **pkts, uint16_t n);
int mana_tx_done_cleanup(void *txq, uint32_t free_cnt);
/* Every completion there is, retired; the caller holds the queue stopped (gate closed). */
int mana_tx_reap(struct mana_txq *txq);
int mana_tx_descriptor_status(void *txq, uint16_t offset);
void mana_tx_drop_inflight(struct mana_txq *txq);
/* xstat name suffix of each tx_prepare refusal reason ([0]: NULL). */
extern const char * const mana_tx_prep_names[MANA_TX_PREP_NB];

/* mana_txq.c */
int mana_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
			unsigned int socket, const struct rte_eth_txconf *conf);
void mana_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid);
int mana_txq_start(struct mana_priv *priv, struct mana_txq *txq);
void mana_txq_stop(struct mana_txq *txq);
int mana_tx_queue_stop(struct rte_eth_dev *dev, uint16_t qid);
int mana_tx_queue_start(struct rte_eth_dev *dev, uint16_t qid);
void mana_txq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_txq_info *qinfo);

/* mana_datapath.c */
int mana_datapath_parse(const char *val, enum mana_datapath *dp);
const char *mana_datapath_name(enum mana_datapath dp);
const char *mana_datapath_mode_name(enum mana_datapath dp);
/* Why this CPU and build cannot run dp (sse, avx2, neon), or NULL when they can. */
const char *mana_datapath_unavailable(enum mana_datapath dp);
/*
 * The path a start installs, from dp_want, the CPU and EAL's max SIMD
 * bitwidth; log: say so when a forced path gives way (at start; the probe
 * picks quietly, for burst_mode_get before the first start).
 */
enum mana_datapath mana_datapath_pick(const struct mana_priv *priv, bool log);
eth_rx_burst_t mana_datapath_rx(enum mana_datapath dp, bool scattered);
eth_tx_burst_t mana_datapath_tx(enum mana_datapath dp);
/* The bodies of path dp, for a caller that holds the queue's gate (mana_mp_rxtx.c). */
uint16_t mana_datapath_rx_db(enum mana_datapath dp, bool scattered, struct mana_rxq *rxq,
			     struct rte_mbuf **pkts, uint16_t n, uint8_t *db);
uint16_t mana_datapath_tx_db(enum mana_datapath dp, struct mana_txq *txq,
			     struct rte_mbuf **pkts, uint16_t n, uint8_t *db);

/* mana_rss.c */
void mana_rss_init(struct mana_priv *priv);
int mana_rss_configure(struct rte_eth_dev *dev);
int mana_rss_create(struct mana_priv *priv);
void mana_rss_destroy(struct mana_priv *priv);
bool mana_rss_has_queue(const struct mana_priv *priv, uint16_t qid);
int mana_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf);
int mana_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf);
int mana_reta_update(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf,
		     uint16_t size);
int mana_reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf,
		    uint16_t size);

/* mana_mr.c */
void mana_mr_table_init(struct mana_mr_table *t);
int mana_mr_register_mempool(struct mana_priv *priv, struct rte_mempool *mp);
int mana_mr_register_ext(struct mana_priv *priv, uintptr_t addr, uint32_t len);
int mana_mr_register_all(struct mana_priv *priv);
void mana_mr_release_all(struct mana_priv *priv);
void mana_mr_release_retired(struct mana_priv *priv);
int mana_mr_events_register(struct mana_priv *priv);
void mana_mr_events_unregister(struct mana_priv *priv);
uint32_t mana_mr_lookup_slow(struct mana_priv *priv, struct mana_mr_cache *cache,
			     const struct rte_mbuf *m, uintptr_t addr, uint32_t len);
void mana_mr_cache_init(struct mana_mr_cache *c);
uint32_t mana_mr_pool_lkey(struct mana_priv *priv, const struct rte_mempool *mp,
			   uint32_t *gen);

/* Invalid lkey marker returned by lookups that failed. */
#define MANA_MR_LKEY_INVALID	UINT32_MAX

/*
 * Datapath lkey lookup for [addr, addr + len) of mbuf m: the queue's cache
 * first (no lock, no call); a miss goes to the out-of-line slow path.
 */
static inline uint32_t
mana_mr_lookup(struct mana_priv *priv, struct mana_mr_cache *c, const struct rte_mbuf *m,
	       uintptr_t addr, uint32_t len)
{
	const struct mana_mr_entry *e = &c->e[c->last];
	unsigned int i;

	if (likely(c->gen == __atomic_load_n(&priv->mr.gen, __ATOMIC_ACQUIRE))) {
		if (likely(addr >= e->start && addr + len <= e->end))
			return e->lkey;
		for (i = 0; i < MANA_MR_CACHE_SIZE; i++) {
			e = &c->e[i];
			if (addr >= e->start && addr + len <= e->end) {
				c->last = i;
				return e->lkey;
			}
		}
	}
	return mana_mr_lookup_slow(priv, c, m, addr, len);
}

/*
 * Ring the doorbell at offset off of a doorbell page with the 64-bit value v
 * (hardware.md §18 #1, #2). rte_wmb (sfence on x86-64, dmb oshst on
 * aarch64) puts the WQEs in memory first, as DPDK, Linux and rdma-core fence
 * before the doorbell; the store is a release (a plain mov on x86-64, stlr
 * on aarch64) so that the loads before it, the CQEs read in this burst and
 * the buffers the application read before they were posted again, are done
 * as well before the device acts on it and writes there. Only aarch64 can
 * let a load pass a later store.
 */
static __rte_always_inline void
mana_db_ring(uint8_t *page, uint32_t off, uint64_t v)
{
	rte_wmb();
	__atomic_store_n((uint64_t *)(void *)(page + off), v, __ATOMIC_RELEASE);
}

#endif /* MANA_ETHDEV_H */
