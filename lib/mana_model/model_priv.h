/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Internal structures of the software MANA device. Every verbs object the
 * model hands out is the rdma-core structure embedded first in a model
 * structure, so a pointer converts back with container_of().
 *
 * Locking (doc/user_guide.md "Engine threads"): one read-write lock per
 * device (m->lock). Control verbs, stats reads, resets and manual steps take
 * it exclusively (mm_lock); each engine thread takes it shared for one pass
 * at a time (writers first, so a control verb waits for the passes under
 * way, never for the next ones). Inside a pass a thread touches only what it
 * owns: its queues (mm_ring.engine: SQs, RX WQs and their CQs), its ports'
 * wires and inboxes (mm_port.engine), and its own state and counters (its
 * struct mm_engine). Frames between ports go through the wires'
 * one-producer one-consumer inboxes, frames from a port's wire to an RX WQ
 * of another thread through that WQ's handoff ring (model_rx.c). A port's
 * wire is entered by several threads when its SQs are spread: under
 * mm_port.wire_lock (mm_wire_enter). Doorbell pages are written by the
 * driver without any lock and read by the engine with atomic exchanges.
 * Every ordering point: hardware.md §18.
 */

#ifndef MODEL_PRIV_H
#define MODEL_PRIV_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/verbs.h>
#include <infiniband/manadv.h>

#include "mana_model.h"
#include "mana_model_verbs.h"
#include "model_wire.h"
#include "model_net.h"
#include "model_dbtrap.h"
#include "mana_gdma.h"

#define MM_CONTAINER_OF(p, type, member) \
	((type *)(void *)((char *)(p) - offsetof(type, member)))

#define MM_PAGE_SIZE		4096u
#define MM_MR_HASH_SIZE		256u	/* buckets of the lkey -> MR table */
#define MM_WIRE_BUDGET		64u	/* frames per wire per engine pass */
#define MM_DEFAULT_MAX_QP	64u
/* The rdma-core the build used (meson), else Debian 12's. */
#ifndef MM_RDMA_CORE_DEFAULT
#define MM_RDMA_CORE_DEFAULT	44u
#endif
#define MM_RDMA_CORE_MIN	44u	/* the oldest provider mirrored (hardware.md §7) */
#define MM_RDMA_CORE_MAX	999u
#define MM_RDMA_CORE_UNCAPPED	49u	/* rdma-core 3bbc4f757 (hardware.md §2.3) */
#define MM_DEFAULT_CQE_BATCH	8u
#define MM_EVENT_RECORD_SIZE	8u
#define MM_RETIRED_MAX		256u	/* ended queues whose counters are kept */
#define MM_CQE_BATCH_MAX	64u	/* cqe_batch: RX CQEs held per CQ at most */
#define MM_ENGINE_ALL		UINT32_MAX	/* mm_engine_pass: every port (a step) */

/* Log levels (syslog numbering, same as MANA_VS_LOG_*). */
#define MM_LOG_ERR		3
#define MM_LOG_WARNING		4
#define MM_LOG_NOTICE		5
#define MM_LOG_INFO		6
#define MM_LOG_DEBUG		7

/*
 * WQE header dword 1 bits no Ethernet WQE of this project may set (LSO OOB in
 * SGL, credits, fence, reserved, LSO data unit, check_sn, sgl_direct):
 * hardware.md §3.2, §14 #17. Checked on SQ and RQ WQEs alike, except that an
 * SQ WQE with client_oob_in_sgl is an LSO WQE and may carry its MSS in
 * client_data_unit (MM_WQE_DW1_LSO_OK, hardware.md §3.5).
 */
#define MM_WQE_DW1_BAD	(GDMA_SET(GDMA_WQE_OOB_IN_SGL, 1) | \
			 GDMA_SET(GDMA_WQE_CONSUME_CREDIT, 1) | \
			 GDMA_SET(GDMA_WQE_FENCE, 1) | GDMA_WQE_DW1_RSVD_MASK | \
			 GDMA_SET(GDMA_WQE_CLIENT_DATA_UNIT, GDMA_WQE_CLIENT_DATA_UNIT_MASK) | \
			 GDMA_SET(GDMA_WQE_CHECK_SN, 1) | GDMA_SET(GDMA_WQE_SGL_DIRECT, 1))
#define MM_WQE_DW1_LSO_OK \
	(GDMA_SET(GDMA_WQE_OOB_IN_SGL, 1) | \
	 GDMA_SET(GDMA_WQE_CLIENT_DATA_UNIT, GDMA_WQE_CLIENT_DATA_UNIT_MASK))

struct mm_ctx;
struct mm_cq;
struct mm_handoff;
struct mm_engine;
struct mm_engine_port;

/* Device-side state of a work queue ring (SQ of a RAW QP, or an RWQ). */
struct mm_ring {
	uint8_t *buf;
	uint32_t size;		/* bytes, power of two >= 4096 */
	uint32_t count;		/* entries as requested */
	uint32_t cons_bu;	/* device consumer, BUs, u32 wrap */
	uint32_t tail;		/* last accepted doorbell tail_ptr, bytes */
	bool stopped;		/* protocol violation: no more processing */
	unsigned int engine;	/* the engine thread serving the queue (mm_queue_engine) */
};

struct mm_pd {
	struct ibv_pd ibv;
	struct mm_ctx *ctx;
	bool parent;
	struct mm_pd *base;	/* parent domain: the PD it wraps; plain PD: itself */
	uint32_t port;		/* parent domain: pd_context (IB port) */
	uint32_t users;		/* MRs, parent domains, WQs, QPs, SRQs on a plain PD */
	uint32_t pdn;
};

struct mm_mr {
	struct ibv_mr ibv;
	struct mm_pd *pd;	/* base (plain) PD */
	uintptr_t start, end;	/* [start, end) */
	int access;
	struct mm_mr *hnext;	/* lkey hash chain */
};

struct mm_channel {
	struct ibv_comp_channel ibv;
	struct mm_ctx *ctx;
	int wfd;		/* write end of the event pipe */
	LIST_ENTRY(mm_channel) link;
};

struct mm_cq {
	struct ibv_cq ibv;
	struct mm_ctx *ctx;
	struct mm_channel *chan;
	uint8_t *buf;
	uint32_t size;		/* buffer bytes */
	uint32_t count;		/* entries (as requested) */
	uint32_t id;		/* 0 until a queue binds it (hardware.md §14 #11) */
	void *bound;		/* the mm_qp or mm_wq whose completions go here */
	uint32_t users;		/* QPs / WQs naming it */
	/* Producer: P starts at count; slot = P % count, owner = (P / count) & 7. */
	uint64_t prod;
	uint32_t slot;
	uint32_t owner;
	bool armed;
	uint64_t arm_at;	/* event when prod > arm_at */
	uint64_t events_lost;
	/*
	 * RX CQEs written (bytes 0-59, prod advanced) whose dword 15 is not yet
	 * stored (cqe_batch, doc/design.md "Completion batching"): the first one's
	 * slot and the dwords 15 in order. Published by mm_cq_publish.
	 */
	uint32_t held;
	uint32_t held_slot;
	uint32_t held_info[MM_CQE_BATCH_MAX];
	LIST_ENTRY(mm_cq) held_link;	/* in its thread's held_cqs while held != 0 */
	LIST_ENTRY(mm_cq) link;
};

struct mm_wq {
	struct ibv_wq ibv;
	struct mm_ctx *ctx;
	struct mm_pd *pd;	/* as given (plain or parent) */
	struct mm_cq *cq;
	struct mm_ring ring;
	uint32_t id;		/* 0 until an RSS QP binds it */
	uint32_t max_sge;
	uint64_t *db;		/* own doorbell page, or the context's shared page */
	bool db_own;
	uint32_t tables;	/* indirection tables holding it */
	struct mm_qp *rss;	/* RSS QP it is bound to */
	/* Frames from a port's wire served by another thread than this WQ's (model_rx.c). */
	struct mm_handoff *handoff;
	struct mm_engine_port *ep;	/* bound: its thread's counters of its port */
	struct mana_model_queue_stats qst;	/* per-queue counters */
	LIST_ENTRY(mm_wq) link;
};

struct mm_ind {
	struct ibv_rwq_ind_table ibv;
	struct mm_ctx *ctx;
	uint32_t log;
	uint32_t users;		/* RSS QPs */
	struct mm_wq **wqs;	/* 1 << log */
	LIST_ENTRY(mm_ind) link;
};

struct mm_srq {
	struct ibv_srq ibv;
	struct mm_ctx *ctx;
	struct mm_pd *pd;
	uint32_t users;
	uint32_t max_wr, max_sge;
	enum ibv_srq_type type;
	struct mm_cq *xrc_cq;
};

struct mm_qp {
	struct ibv_qp ibv;
	struct mm_ctx *ctx;
	struct mm_pd *pd;	/* the parent domain */
	unsigned int port;	/* 0-based vPort index */
	bool rss;
	/* RAW TX QP */
	struct mm_ring sq;
	uint32_t sq_id;
	struct mm_cq *cq;		/* send CQ: its completions */
	struct mm_cq *rcq;		/* recv CQ if another one: referenced only */
	struct mm_srq *srq;
	uint64_t *db;
	bool db_own;
	/* RSS QP */
	struct mm_ind *ind;
	uint8_t key[MM_RSS_KEY_LEN];
	struct mm_rss_ctx *rss_ctx;	/* Toeplitz lookup tables of key */
	struct mm_wq *table64[MM_RSS_TABLE_SIZE];
	struct mm_wq *default_wq;
	struct mana_model_queue_stats qst;	/* RAW TX QP: per-queue counters */
	struct mm_engine_port *ep;	/* RAW TX QP: its SQ thread's counters of its port */
	bool detached;		/* a reset released its vPort and QP count already */
	LIST_ENTRY(mm_qp) link;
};

struct mm_ctx {
	struct verbs_context vctx;
	struct mana_model *m;
	struct manadv_ctx_allocators alloc;
	bool alloc_set;
	int async_wfd;
	uint64_t *shared_db;	/* page 0 of cmd_fd, the driver's view (always mapped) */
	uint64_t *shared_db_dev;	/* the same page, the device's writable view */
	struct mm_dbq *dbq;	/* shared mode: the trapped stores, in order */
	/*
	 * Queue mode: pages 1..db_npages of cmd_fd, one per queue object, so a
	 * process mapping cmd_fd (a DPDK secondary) rings the same pages.
	 */
	uint8_t *db_obj;	/* page 1 of cmd_fd, mapped here */
	uint32_t db_npages;
	uint64_t *db_used;	/* bitmap of db_npages bits, under m->lock */
	uint32_t nobj;		/* live objects: close_device EBUSY */
	/*
	 * Opened before a reset (mana_model_reset): the device forgot every
	 * object of the context; only destroy calls and close still work.
	 */
	bool dead;
	bool db_lossy_said;	/* doorbell=memory: the NOTICE of mm_ctx_db_lossy_note given */
	LIST_ENTRY(mm_ctx) link;
};

/* A coalesced RX CQE being built (hardware.md §4.5), at most one per engine thread. */
struct mm_rx_pending {
	struct mm_wq *wq;
	uint32_t n;
	uint32_t dw1;
	uint32_t wqe_off;		/* rx_wqe_offset of the first packet */
	uint32_t len[MANA_RXCQE_PPI_MAX];
	uint32_t hash[MANA_RXCQE_PPI_MAX];
};

/* An RX frame waiting in a port's inbox (mana_model_inject_rx). */
struct mm_inbox_frame {
	struct mm_inbox_frame *next;
	uint32_t len;
	uint8_t data[];
};

struct mm_port {
	struct mana_model *m;
	unsigned int index;		/* 0-based */
	uint8_t mac[6];
	uint32_t mtu;
	bool link_up;			/* admin_up && carrier: what the driver sees */
	bool admin_up;			/* mana_model_set_link */
	bool carrier;			/* the wire has its far end (pair: connected) */
	uint32_t tx_vp_offset;
	struct mm_wire *wire;
	bool wire_connected;
	bool wire_warned;		/* the far end's mismatch was logged */
	struct mm_qp *rss;		/* the RSS QP steering this port's RX */
	struct mm_pd *owner_pd;		/* base PD that configured the vPort */
	uint32_t nqp;			/* QPs on the vPort */
	uint32_t tx_err_type, tx_err_n;	/* mana_model_inject_tx_error */
	uint32_t drop_n;		/* mana_model_drop_next */
	pthread_mutex_t inbox_lock;
	struct mm_inbox_frame *inbox_head, *inbox_tail;
	/*
	 * The thread serving the wire and the inbox (port % threads). Its
	 * queues may be served by others (mm_ring.engine).
	 */
	unsigned int engine;
	struct mm_engine *home;		/* &m->eng[engine] */
	struct mm_engine_port *home_ep;	/* its counters of this port */
	/* Serializes wire TX from several threads with the wire's own poll (mm_wire_enter). */
	pthread_mutex_t wire_lock;
};

/* What one engine thread keeps of a port: its counters, summed when read. */
struct mm_engine_port {
	struct mana_model_port_stats st;
	uint64_t frames;		/* TX + RX frames handled */
};

/*
 * One engine thread (model_engine.c) and the state of its passes. Manual
 * steps use eng[0]'s (every queue is thread 0's then); a caller holding the
 * lock exclusively may touch any thread's.
 */
struct mm_engine {
	struct mana_model *m;
	unsigned int index;
	pthread_t thread;
	bool started;
	uint64_t passes, busy_passes;	/* own thread; read under the exclusive lock */
	uint64_t doorbells;		/* doorbell stores this thread took */
	uint64_t cpu_ns;		/* atomic: the thread's CPU time */
	struct mm_rx_pending rxp;	/* the coalesced RX CQE being built */
	LIST_HEAD(, mm_cq) held_cqs;	/* CQs holding RX CQEs back (cqe_batch) */
	struct mm_mr *mr_last;		/* last mm_mr_lookup_eng hit (NULL after its dereg) */
	struct mm_engine_port port[MANA_MODEL_MAX_PORTS];
	char tx_why[160];		/* why the SQ of a CQE_TX_GDMA_ERR stops (model_lso.c) */
	uint8_t txbuf[MANA_MODEL_MAX_FRAME + 8];
};

struct mana_model {
	struct ibv_device ibdev;
	struct mana_model_config cfg;
	pthread_rwlock_t lock;		/* see "Locking" above */
	pthread_mutex_t err_lock;	/* last_error */
	struct mm_port port[MANA_MODEL_MAX_PORTS];
	LIST_HEAD(, mm_ctx) ctxs;
	LIST_HEAD(, mm_qp) qps;
	LIST_HEAD(, mm_wq) wqs;
	LIST_HEAD(, mm_cq) cqs;
	LIST_HEAD(, mm_ind) inds;
	LIST_HEAD(, mm_channel) chans;
	struct mm_mr *mr_hash[MM_MR_HASH_SIZE];
	uint32_t nqp, nmr;
	uint64_t mr_bytes, mr_reg, mr_dereg;	/* open MRs' bytes; reg/dereg calls that succeeded */
	uint32_t id_seed, id_ctr;	/* queue ids */
	uint32_t key_seed, key_ctr;	/* lkeys */
	uint32_t handle_ctr;
	bool fatal;
	uint64_t down_until_ns;		/* CLOCK_MONOTONIC: open_device fails before it */
	struct mana_model_reset_stats rst;
	bool wires_pending;		/* some pair wire not connected yet */
	/* engine */
	struct mm_engine eng[MANA_MODEL_MAX_ENGINES];
	unsigned int neng;		/* threads (0: manual) */
	int stop;			/* atomic */
	uint64_t passes, busy_passes;	/* manual steps */
	uint64_t doorbells;		/* doorbell stores taken by steps and control verbs */
	/* counters of the last MM_RETIRED_MAX queues that ended (ring) */
	struct mm_retired {
		uint32_t id;
		struct mana_model_queue_stats st;
	} retired[MM_RETIRED_MAX];
	uint32_t nretired;
	uint64_t cpu_ns;		/* manual steps' CPU time */
	/* sysfs */
	char root[MANA_MODEL_PATH_LEN];
	bool root_created;
	char pci_dir[MANA_MODEL_PATH_LEN + 64];
	char last_error[256];
	LIST_ENTRY(mana_model) link;
};

static inline struct mm_ctx *
mm_ctx_of(const struct ibv_context *c)
{
	return MM_CONTAINER_OF(c, struct mm_ctx, vctx.context);
}

static inline struct mm_pd *mm_pd_of(struct ibv_pd *p) { return (struct mm_pd *)(void *)p; }
static inline struct mm_cq *mm_cq_of(struct ibv_cq *p) { return (struct mm_cq *)(void *)p; }
static inline struct mm_wq *mm_wq_of(struct ibv_wq *p) { return (struct mm_wq *)(void *)p; }
static inline struct mm_qp *mm_qp_of(struct ibv_qp *p) { return (struct mm_qp *)(void *)p; }

/* The device lock, exclusive (control verbs, stats, manual steps). */
static inline void mm_lock(struct mana_model *m) { pthread_rwlock_wrlock(&m->lock); }
static inline void mm_unlock(struct mana_model *m) { pthread_rwlock_unlock(&m->lock); }

/* The provider refuses deeper queues than the kernel would take (hardware.md §2.5). */
static inline bool
mm_provider_caps_queues(const struct mana_model *m)
{
	return m->cfg.rdma_core < MM_RDMA_CORE_UNCAPPED &&
	       m->cfg.max_qp_wr > GDMA_RC44_MAX_QUEUE_ENTRIES;
}

/* Entries a CQ, SQ, RQ or SRQ may have: max_qp_wr, or rdma-core 44's 256. */
static inline uint32_t
mm_queue_max(const struct mana_model *m)
{
	return mm_provider_caps_queues(m) ? GDMA_RC44_MAX_QUEUE_ENTRIES : m->cfg.max_qp_wr;
}

/* Who sets that bound, for the refusal's message. */
static inline const char *
mm_queue_max_who(const struct mana_model *m)
{
	return mm_provider_caps_queues(m) ? "the provider of rdma-core < 49" : "max_qp_wr";
}

/* model_log.c */
void mm_vlog(int level, const char *fmt, va_list ap);
/* Record a violation as the device's last error and log it. */
void mm_error(struct mana_model *m, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* model_config.c: 0, or EINVAL with the reason logged. */
int mm_config_check(const struct mana_model_config *cfg);

/* model_registry.c: the device list and its lock. */
extern pthread_mutex_t mm_global_lock;
bool mm_model_valid(const struct mana_model *m);
/* May m join (its name, MACs and remote pair cables): 0 or an errno, logged. */
int mm_registry_admit_locked(const struct mana_model *m);
void mm_registry_insert_locked(struct mana_model *m);
/* Takes mm_global_lock. */
void mm_registry_remove(struct mana_model *m);

/* model_ids.c */
void mm_ids_seed(struct mana_model *m);
uint32_t mm_new_queue_id(struct mana_model *m);
uint32_t mm_new_lkey(struct mana_model *m);
uint32_t mm_pow2_ceil(uint32_t x);
void mm_gen_mac(const char *name, unsigned int port, uint8_t mac[6]);

/*
 * Let thread t run on every CPU this process could run on when the library
 * loaded (model_settings.c): 0, an errno of pthread_setaffinity_np, or
 * ENOENT when that set is unknown.
 */
int mm_thread_allow_start_cpus(pthread_t t);

/* model_dev.c */
void mm_wires_connect(struct mana_model *m);
/* A connected pair wire whose far end closed: carrier lost, retried (engine of p). */
void mm_port_check_carrier(struct mana_model *m, struct mm_port *p);
/*
 * link_up = admin_up && carrier; an event and a log line when it changes
 * (m->lock held; model_stats.c).
 */
void mm_port_link_eval(struct mana_model *m, struct mm_port *p);
/*
 * The longest frame a port sends, as it leaves (an inserted 802.1Q tag
 * included): MTU + 14 (Ethernet) + 4, tagged or not (hardware.md §19).
 */
#define MM_MTU_L2_ALLOWANCE	18u

static inline uint32_t
mm_port_max_frame(const struct mana_model *m, unsigned int port)
{
	return m->port[port].mtu + MM_MTU_L2_ALLOWANCE;
}

/*
 * model_tmptree.c: make root ($TMPDIR/mana_model.XXXXXX, size bytes) with its
 * owner file, after removing trees whose owner died; 0 or an errno. The
 * tree is removed by mm_tmptree_remove or at exit.
 */
int mm_tmptree_create(char *root, size_t size);
void mm_tmptree_remove(const char *root);

/* model_sysfs.c: remove the file tree at path, depth first, not following links. */
void mm_rm_tree(const char *path);
/* The device's tree (a temporary one without cfg.sysfs_root): 0 or an errno. */
int mm_sysfs_create(struct mana_model *m);
/* Remove what mm_sysfs_create made, if anything. */
void mm_sysfs_remove(struct mana_model *m);
/* Rewrite a port's netdev mtu file in the PCI presentation, if there is one. */
void mm_sysfs_port_mtu(const struct mana_model *m, unsigned int port);

/* model_ctx.c */
void mm_async_event(struct mm_ctx *ctx, enum ibv_event_type type, uint8_t port);
bool mm_fatal_locked(struct mana_model *m);
/* ctx is of a reset generation (mana_model_reset): logged for verb, true. */
bool mm_ctx_dead(struct mm_ctx *ctx, const char *verb);
/* 0 if open_device may give a context now, EIO (counted) otherwise. */
int mm_open_allowed(struct mana_model *m);
void mm_queue_retire(struct mana_model *m, uint32_t id, const struct mana_model_queue_stats *st);
void mm_async_event_all(struct mana_model *m, enum ibv_event_type type, uint8_t port);
void mm_ctx_fill_ops(struct verbs_context *vctx);

/* model_mem.c */
struct mm_mr *mm_mr_lookup(struct mana_model *m, uint32_t lkey);
/* The same, through engine thread e's last hit (on e, or the lock held exclusively). */
struct mm_mr *mm_mr_lookup_eng(struct mana_model *m, struct mm_engine *e, uint32_t lkey);
void *mm_ring_alloc(struct mm_ctx *ctx, uint32_t size);
void mm_ring_free(struct mm_ctx *ctx, void *buf);
uint64_t *mm_db_page_alloc(struct mm_ctx *ctx, bool *own);
/*
 * doorbell=memory: a context made a queue of kind ("SQ" or "RQ"); with two of
 * a kind, say once that a doorbell may be lost (lock held).
 */
void mm_ctx_db_lossy_note(struct mm_ctx *ctx, const char *kind);
void mm_db_page_free(struct mm_ctx *ctx, uint64_t *page);

/* model_cq.c */
void mm_cq_write(struct mana_model *m, struct mm_cq *cq, const uint32_t *data,
		 uint32_t wq_id, bool is_sq);
/*
 * An RX CQE written by engine thread e, made visible with cqe_batch - 1
 * others or by mm_cq_publish(_eng, _all). Only the thread serving the CQ's
 * queue (or a caller holding the lock exclusively) writes a CQ: e keeps the
 * list of those holding CQEs.
 */
void mm_cq_write_rx(struct mana_model *m, struct mm_engine *e, struct mm_cq *cq,
		    const uint32_t *data, uint32_t wq_id);
/* Make a CQ's held CQEs visible, in order; then the arm check. */
void mm_cq_publish(struct mana_model *m, struct mm_cq *cq);
/* The same for every CQ e holds some on: the end of e's pass. */
void mm_cq_publish_eng(struct mm_engine *e);
/* ... and of every thread: the lock held exclusively (statistics, reset). */
void mm_cq_publish_all(struct mana_model *m);
void mm_cq_arm(struct mana_model *m, struct mm_cq *cq, uint32_t tail);

/* model_wq.c: SQ buffer size of rdma-core (hardware.md §2.2) */
uint32_t mm_sq_size(uint32_t max_wr, uint32_t max_sge);

/* model_qp.c */
void mm_port_release(struct mm_port *p);

/* model_engine.c */
int mm_engine_start(struct mana_model *m);
void mm_engine_stop(struct mana_model *m);
/* One pass over the ports of engine thread eng (MM_ENGINE_ALL: every port). */
unsigned int mm_engine_pass(struct mana_model *m, unsigned int eng);
/*
 * The engine thread that serves the k-th queue of a kind (SQ, RX WQ) on port
 * p: (p.engine + k) % threads, so TX and RX queue k of a port share one;
 * thread 0 in manual mode and with a shared doorbell page.
 */
unsigned int mm_queue_engine(const struct mana_model *m, const struct mm_port *p, unsigned int k);
/* The engine thread serving a RAW QP's SQ: its txbuf, tx_why, MR hit, counters. */
static inline struct mm_engine *
mm_sq_eng(struct mana_model *m, const struct mm_qp *qp)
{
	return &m->eng[qp->sq.engine];
}
/* Counters of port `port` kept by engine thread e. */
static inline struct mana_model_port_stats *
mm_eng_st(struct mm_engine *e, unsigned int port)
{
	return &e->port[port].st;
}
/*
 * Wire TX from an SQ's thread, wire poll and carrier checks from the port's
 * thread: one at a time once several threads may enter (mm_wire_leave after).
 */
static inline bool
mm_wire_enter(struct mana_model *m, struct mm_port *p)
{
	if (m->neng <= 1)
		return false;
	pthread_mutex_lock(&p->wire_lock);
	return true;
}
static inline void
mm_wire_leave(struct mm_port *p, bool entered)
{
	if (entered)
		pthread_mutex_unlock(&p->wire_lock);
}
/* Process the doorbells still pending for a QP's queues; before it unbinds. */
void mm_db_drain_qp(struct mana_model *m, struct mm_qp *qp);
/* Record a new SQ/RQ doorbell tail; false (queue stopped) on a violation. */
bool mm_ring_doorbell(struct mana_model *m, struct mm_ring *r, unsigned int port, uint32_t tail,
		      const char *what, uint32_t id);
/* Stop a queue for a protocol violation: queue_errors++ on port, logged. */
void mm_ring_error(struct mana_model *m, struct mm_ring *r, unsigned int port, const char *what,
		   uint32_t id, const char *why);

/* One SQ WQE being processed (model_tx.c, model_lso.c). */
struct mm_tx_wqe {
	uint32_t off;		/* byte offset of the WQE in the ring */
	uint32_t nsge;
	uint32_t oob_size;
	uint32_t dw0, dw1;	/* DMA OOB header (hardware.md §3.2) */
	uint32_t oob[6];	/* inline OOB, zero padded to 24 bytes */
	uint32_t verr;
	const char *why;	/* CQE_TX_GDMA_ERR: why the SQ stops */
};

/* model_tx.c */
unsigned int mm_tx_process(struct mana_model *m, struct mm_qp *qp);
/* SGE i of a WQE (the SGL may wrap to the ring start). */
const struct gdma_sge *mm_tx_sge(const struct mm_qp *qp, const struct mm_tx_wqe *w, uint32_t i);
/* Check an SGE against the MRs of the queue's PD (§14 #18); a CQE type, *data where it is. */
uint32_t mm_tx_sge_map(struct mana_model *m, const struct mm_qp *qp, struct mm_tx_wqe *w,
		       const struct gdma_sge *sge, const uint8_t **data);
/* Put one frame on the port's wire and count it. */
void mm_tx_emit(struct mana_model *m, struct mm_qp *qp, const uint8_t *frame, uint32_t len);

/* model_lso.c: segment an LSO WQE (hardware.md §3.5); returns its CQE type. */
uint32_t mm_lso_send(struct mana_model *m, struct mm_qp *qp, struct mm_tx_wqe *w);

/* model_rx.c */
/* Write engine thread e's pending RX CQE (mm_rx_flush_all: every thread's, exclusive lock). */
void mm_rx_flush(struct mm_engine *e);
void mm_rx_flush_all(struct mana_model *m);
unsigned int mm_rx_drain_inbox(struct mm_port *p);
/* Deliver the frames other threads handed to e's RX WQ (engine thread of wq). */
unsigned int mm_rx_drain_handoff(struct mm_engine *e, struct mm_wq *wq);
/* Give an RX WQ to engine thread eng: its handoff ring when the port's wire is another's. */
int mm_rx_wq_assign(struct mana_model *m, struct mm_wq *wq, unsigned int port, unsigned int eng);
/*
 * The WQ leaves its RSS QP (or the QP's creation fails): frames still
 * handed to it are dropped (exclusive lock).
 */
void mm_rx_wq_release(struct mm_wq *wq);
/* Frames that found the handoff ring full, into the WQ's counters (exclusive lock). */
void mm_rx_wq_settle(struct mm_wq *wq);

#endif /* MODEL_PRIV_H */
