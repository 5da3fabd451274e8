/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * A secondary process's datapath on the primary's queues.
 *
 * The queues (rings, software state, counters) are in DPDK shared memory;
 * what a secondary needs of its own is a mapping of the doorbell pages: the
 * whole cmd_fd of the port's context, which the primary sends over IPC
 * (mana_mp.c, CMD_FD). Each queue rings its page at mapping + db_off
 * (hardware: page 0, the context's one page; software device with
 * doorbell=queue: the object's own page 1..).
 *
 * ethdev's fast-path table of a secondary holds dev->data->rx_queues as it
 * was at attach (NULL before the primary configured; stale after a
 * reconfiguration): this process gives it proxies {port, queue index}
 * instead. A burst enters the queue's gate (mana_qgate.h), only then reads
 * the queue pointer from dev->data and the context generation, runs the
 * primary's burst body with this process's doorbell page, and leaves. A
 * closed gate (port or queue stopped, reconfigured, reset) returns 0 and
 * touches nothing; a context replaced since the mapping was made (ctx_gen)
 * is mapped again outside the gate, and the burst returns 0 that time.
 */

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_spinlock.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

struct mana_proc;

/* What this process's fast-path table gives the burst for one queue. */
struct mana_proc_queue {
	struct mana_priv *priv;
	struct mana_proc *proc;
	uint16_t qid;
};

/* Per port, per process (dev->process_private): never in shared memory. */
struct mana_proc {
	uint8_t *db_map;		/* cmd_fd mapped, MAP_SHARED */
	size_t db_len;
	uint32_t db_gen;		/* priv->ctx_gen the mapping belongs to */
	rte_spinlock_t remap_lock;	/* one lcore maps again, the others return 0 */
	bool remap_failed_logged;
	struct mana_proc_queue rxq[MANA_MAX_RXQ];
	struct mana_proc_queue txq[MANA_MAX_TXQ];
	void *rx_data[MANA_MAX_RXQ];
	void *tx_data[MANA_MAX_TXQ];
};

/* Map the primary's cmd_fd; the old mapping (if any) goes once the new one is in place. */
static int
proc_map(struct mana_proc *pp, struct mana_priv *priv)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len;
	uint8_t *old = pp->db_map;
	size_t old_len = pp->db_len;
	struct stat st;
	uint32_t gen;
	void *p;
	int fd, ret;

	ret = mana_mp_req_cmd_fd(priv, &fd, &gen);
	if (ret != 0)
		return ret;
	/* A uverbs char device has no size: its one doorbell page. A memfd: all its pages. */
	len = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ?
		(size_t)st.st_size : pg;
	p = mmap(NULL, len, PROT_WRITE, MAP_SHARED, fd, 0);
	ret = p == MAP_FAILED ? -errno : 0;
	close(fd);
	if (ret != 0)
		return ret;
	pp->db_map = p;
	pp->db_len = len;
	/* The mapping before its generation (hardware.md §18 #18). */
	__atomic_store_n(&pp->db_gen, gen, __ATOMIC_RELEASE);
	/*
	 * No lcore of this process still rings the old pages: the context was
	 * replaced with every gate closed, and each burst since then saw the new
	 * generation before it reached db_map.
	 */
	if (old != NULL)
		munmap(old, old_len);
	return 0;
}

/* Outside any gate: map the new context's pages (one lcore at a time). */
static void
proc_remap(struct mana_proc *pp, struct mana_priv *priv)
{
	int ret;

	if (!rte_spinlock_trylock(&pp->remap_lock))
		return;
	if (__atomic_load_n(&pp->db_gen, __ATOMIC_ACQUIRE) !=
	    __atomic_load_n(&priv->ctx_gen, __ATOMIC_ACQUIRE)) {
		ret = proc_map(pp, priv);
		/* -EAGAIN: the primary is changing the context; the next burst asks again. */
		if (ret != 0 && ret != -EAGAIN && !pp->remap_failed_logged) {
			pp->remap_failed_logged = true;
			PMD_DRV_LOG(ERR, "port %u: the primary's device context changed and its "
				    "doorbell pages cannot be mapped again (%s): this process's "
				    "bursts return 0 until they can", priv->port_id,
				    strerror(-ret));
		} else if (ret == 0) {
			pp->remap_failed_logged = false;
		}
	}
	rte_spinlock_unlock(&pp->remap_lock);
}

/* Inside the gate: this process's doorbell page for a queue at db_off, or NULL (remap first). */
static __rte_always_inline uint8_t *
proc_db(struct mana_proc *pp, struct mana_priv *priv, uint64_t db_off)
{
	if (unlikely(__atomic_load_n(&pp->db_gen, __ATOMIC_ACQUIRE) !=
		     __atomic_load_n(&priv->ctx_gen, __ATOMIC_ACQUIRE) ||
		     db_off >= pp->db_len))
		return NULL;
	return pp->db_map + db_off;
}

static inline struct mana_qgate *
proc_gate(const struct mana_proc_queue *pq, bool rx)
{
	return rx ? &pq->priv->rx_gate[pq->qid] : &pq->priv->tx_gate[pq->qid];
}

/*
 * The queue of a proxy with its gate held, or NULL (gate closed or busy, or
 * no such queue: rte_errno EBUSY). The caller leaves the gate.
 */
static __rte_always_inline void *
proc_queue_enter(struct mana_proc_queue *pq, bool rx)
{
	struct mana_priv *priv = pq->priv;
	struct rte_eth_dev_data *d = priv->dev_data;
	void *q;

	if (!mana_qgate_enter(proc_gate(pq, rx))) {
		rte_errno = EBUSY;
		return NULL;
	}
	if (rx)
		q = pq->qid < d->nb_rx_queues ? d->rx_queues[pq->qid] : NULL;
	else
		q = pq->qid < d->nb_tx_queues ? d->tx_queues[pq->qid] : NULL;
	if (q == NULL) {
		mana_qgate_leave(proc_gate(pq, rx));
		rte_errno = EBUSY;
	}
	return q;
}

static __rte_always_inline void
proc_queue_leave(struct mana_proc_queue *pq, bool rx)
{
	mana_qgate_leave(proc_gate(pq, rx));
}

/*
 * The secondary's bursts: the queue read under its gate, rung through this
 * process's mapping; a context replaced since the mapping was made is
 * mapped again (outside the gate) and the burst returns 0 that time.
 */
static uint16_t
mana_rx_burst_secondary(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_proc_queue *pq = q;
	struct mana_rxq *rxq = proc_queue_enter(pq, true);
	uint16_t nb = 0;
	uint8_t *db;

	if (unlikely(rxq == NULL))
		return 0;
	if (likely(rxq->db_page != NULL)) {
		db = proc_db(pq->proc, pq->priv, rxq->db_off);
		if (unlikely(db == NULL)) {
			proc_queue_leave(pq, true);
			proc_remap(pq->proc, pq->priv);
			return 0;
		}
		nb = mana_datapath_rx_db(pq->priv->dp, pq->priv->dev_data->scattered_rx, rxq,
					 pkts, n, db);
	}
	proc_queue_leave(pq, true);
	return nb;
}

static uint16_t
mana_tx_burst_secondary(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_proc_queue *pq = q;
	struct mana_txq *txq = proc_queue_enter(pq, false);
	uint16_t nb = 0;
	uint8_t *db;

	if (unlikely(txq == NULL))
		return 0;
	if (likely(txq->db_page != NULL)) {
		db = proc_db(pq->proc, pq->priv, txq->db_off);
		if (unlikely(db == NULL)) {
			proc_queue_leave(pq, false);
			proc_remap(pq->proc, pq->priv);
			return 0;
		}
		nb = mana_datapath_tx_db(pq->priv->dp, txq, pkts, n, db);
	}
	proc_queue_leave(pq, false);
	return nb;
}

/* A stopped queue (gate closed) refuses the first packet with rte_errno EBUSY. */
static uint16_t
mana_tx_prepare_secondary(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_proc_queue *pq = q;
	void *txq = proc_queue_enter(pq, false);
	uint16_t nb;

	if (txq == NULL)
		return 0;
	nb = mana_tx_prepare(txq, pkts, n);
	proc_queue_leave(pq, false);
	return nb;
}

static mana_rx_queue_count_t
mana_rx_queue_count_secondary(void *q)
{
	struct mana_proc_queue *pq = q;
	void *rxq = proc_queue_enter(pq, true);
	mana_rx_queue_count_t nb;

	if (rxq == NULL)
		return 0;	/* a stopped queue holds nothing received */
	nb = mana_rxq_ready(rxq);
	proc_queue_leave(pq, true);
	return nb;
}

static int
mana_rx_descriptor_status_secondary(void *q, uint16_t offset)
{
	struct mana_proc_queue *pq = q;
	void *rxq = proc_queue_enter(pq, true);
	int st;

	if (rxq == NULL)
		return RTE_ETH_RX_DESC_UNAVAIL;
	st = mana_rxq_desc_status(rxq, offset);
	proc_queue_leave(pq, true);
	return st;
}

static int
mana_tx_descriptor_status_secondary(void *q, uint16_t offset)
{
	struct mana_proc_queue *pq = q;
	void *txq = proc_queue_enter(pq, false);
	int st;

	if (txq == NULL)
		return RTE_ETH_TX_DESC_UNAVAIL;
	st = mana_tx_descriptor_status(txq, offset);
	proc_queue_leave(pq, false);
	return st;
}

/* Secondary attach: proxies, burst functions and the doorbell mapping of this process. */
int
mana_mp_proc_attach(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	struct mana_proc *pp;
	unsigned int i;
	int ret;

	pp = calloc(1, sizeof(*pp));
	if (pp == NULL)
		return -ENOMEM;
	rte_spinlock_init(&pp->remap_lock);
	for (i = 0; i < MANA_MAX_RXQ; i++) {
		pp->rxq[i] = (struct mana_proc_queue){ .priv = priv, .proc = pp, .qid = i };
		pp->rx_data[i] = &pp->rxq[i];
	}
	for (i = 0; i < MANA_MAX_TXQ; i++) {
		pp->txq[i] = (struct mana_proc_queue){ .priv = priv, .proc = pp, .qid = i };
		pp->tx_data[i] = &pp->txq[i];
	}
	ret = proc_map(pp, priv);
	if (ret != 0) {
		free(pp);
		return ret;
	}
	dev->process_private = pp;
	dev->rx_pkt_burst = mana_rx_burst_secondary;
	dev->tx_pkt_burst = mana_tx_burst_secondary;
	dev->tx_pkt_prepare = mana_tx_prepare_secondary;
	dev->rx_queue_count = mana_rx_queue_count_secondary;
	dev->rx_descriptor_status = mana_rx_descriptor_status_secondary;
	dev->tx_descriptor_status = mana_tx_descriptor_status_secondary;
	return 0;
}

/* ethdev's fast-path table of this process: the proxies, not dev->data's queue arrays. */
void
mana_mp_proc_fp_ops(struct rte_eth_dev *dev)
{
	struct rte_eth_fp_ops *fpo = &rte_eth_fp_ops[dev->data->port_id];
	struct mana_proc *pp = dev->process_private;

	fpo->rxq.data = pp->rx_data;
	fpo->txq.data = pp->tx_data;
}

void
mana_mp_proc_detach(struct rte_eth_dev *dev)
{
	struct mana_proc *pp = dev->process_private;

	if (pp == NULL)
		return;
	dev->process_private = NULL;
	if (pp->db_map != NULL)
		munmap(pp->db_map, pp->db_len);
	free(pp);
}
