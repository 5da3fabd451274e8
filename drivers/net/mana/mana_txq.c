/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * TX queue control: setup/release, verbs objects and the ring mapping (the
 * WQE templates the burst writes from), start/stop and queue info
 * (statistics: mana_stats.c). The burst and its bookkeeping are in mana_tx.c.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

static void
txq_free(struct mana_txq *txq)
{
	if (txq == NULL)
		return;
	rte_free(txq->desc);
	rte_free(txq->mbufs);
	rte_free(txq);
}

void
mana_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	if (dev->data->tx_queues[qid] != NULL)
		mana_txq_stats_retire(mana_priv(dev), qid, dev->data->tx_queues[qid]);
	txq_free(dev->data->tx_queues[qid]);
	dev->data->tx_queues[qid] = NULL;
}

int
mana_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		    unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct mana_priv *priv = mana_priv(dev);
	int sock = socket == (unsigned int)SOCKET_ID_ANY ? priv->socket : (int)socket;
	struct mana_txq *txq;

	if (nb_desc < MANA_MIN_DESC || nb_desc > priv->max_desc || !rte_is_power_of_2(nb_desc)) {
		PMD_DRV_LOG(ERR, "port %u: %u TX descriptors; allowed: a power of two %u..%u",
			    priv->port_id, nb_desc, MANA_MIN_DESC, priv->max_desc);
		return -EINVAL;
	}
	mana_tx_queue_release(dev, qid);
	txq = rte_zmalloc_socket("mana_txq", sizeof(*txq), RTE_CACHE_LINE_SIZE, sock);
	if (txq == NULL)
		return -ENOMEM;
	txq->desc = rte_zmalloc_socket("mana_tx_desc", sizeof(*txq->desc) * nb_desc,
				       RTE_CACHE_LINE_SIZE, sock);
	txq->mbufs = rte_zmalloc_socket("mana_tx_mbufs", sizeof(*txq->mbufs) * nb_desc,
					RTE_CACHE_LINE_SIZE, sock);
	if (txq->desc == NULL || txq->mbufs == NULL) {
		txq_free(txq);
		return -ENOMEM;
	}
	txq->nb_desc = nb_desc;
	txq->desc_mask = nb_desc - 1;
	txq->max_sge = priv->max_tx_sge;
	txq->port_id = dev->data->port_id;
	txq->queue_id = qid;
	txq->offloads = conf->offloads | dev->data->dev_conf.txmode.offloads;
	txq->suppress = priv->tx_cqe_suppress;
	txq->priv = priv;
	txq->gate = &priv->tx_gate[qid];
	txq->socket = sock;
	txq->deferred = conf->tx_deferred_start != 0;
	mana_mr_cache_init(&txq->mr_cache);
	dev->data->tx_queues[qid] = txq;
	return 0;
}

static int
txq_map(struct mana_txq *txq)
{
	struct manadv_qp dv_qp;
	struct manadv_cq dv_cq;
	struct manadv_obj obj = {
		.qp = { .in = txq->qp, .out = &dv_qp },
		.cq = { .in = txq->cq, .out = &dv_cq },
	};
	uint32_t vp;
	int ret;

	ret = mana_vs_init_obj(&obj, MANADV_OBJ_QP | MANADV_OBJ_CQ);
	if (ret != 0) {
		PMD_DRV_LOG(ERR, "TX queue %u: manadv_init_obj: %s", txq->queue_id, strerror(-ret));
		return ret;
	}
	if (dv_cq.count != txq->nb_desc || !rte_is_power_of_2(dv_qp.sq_size) ||
	    dv_qp.sq_size < GDMA_MIN_QUEUE_SIZE || dv_qp.db_page == NULL) {
		PMD_DRV_LOG(ERR, "TX queue %u: device rings do not match (CQ %u entries, SQ %u "
			    "bytes, %u descriptors)", txq->queue_id, dv_cq.count, dv_qp.sq_size,
			    txq->nb_desc);
		return -EIO;
	}
	txq->sq_buf = dv_qp.sq_buf;
	txq->sq_mask = dv_qp.sq_size - 1;
	txq->sq_bu = dv_qp.sq_size >> GDMA_WQE_BU_SHIFT;
	txq->sq_id = dv_qp.sq_id;
	txq->db_page = dv_qp.db_page;
	ret = mana_vs_db_page_offset(txq->priv->ctx, dv_qp.db_page, &txq->db_off);
	if (ret != 0) {
		PMD_DRV_LOG(ERR, "TX queue %u: doorbell page offset in cmd_fd: %s",
			    txq->queue_id, strerror(-ret));
		return ret;
	}
	txq->cq_ring = dv_cq.buf;
	txq->cq_count = dv_cq.count;
	txq->cq_head = dv_cq.count;
	txq->cq_id = dv_cq.cq_id;
	vp = dv_qp.tx_vp_offset;
	txq->oob_dw0 = GDMA_SET(MANA_TX_VCQ_NUM, dv_cq.cq_id);
	txq->long_oob_only = vp > MANA_TX_SHORT_VP_OFFSET_MASK;
	/* Both vport offset fields carry the offset whenever it fits them. */
	txq->oob_dw1 = GDMA_SET(MANA_TX_VSQ_FRAME, mana_tx_vsq_frame(dv_qp.sq_id)) |
		(txq->long_oob_only ? 0 : GDMA_SET(MANA_TX_SHORT_VP_OFFSET, vp));
	txq->oob_long_dw3 = GDMA_SET(MANA_TX_LONG_VP_OFFSET, vp);
	txq->sq_head = 0;
	txq->sq_tail = 0;
	txq->desc_head = 0;
	txq->desc_tail = 0;
	txq->bytes_posted = 0;
	txq->bytes_done = 0;
	txq->stats_from = 0;
	txq->chain_end = 0;
	txq->mixed_end = 0;
	txq->fast_free = !!(txq->offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE);
	txq->hdr_tmpl = (uint64_t)(GDMA_SET(GDMA_WQE_NUM_SGE, 1) |
		GDMA_SET(GDMA_WQE_OOB_DIV4, GDMA_WQE_OOB_DIV4_SMALL)) << 32;
	/* trans_off 0: initialised, and unused without checksum offload. */
	txq->oob_tmpl = txq->oob_dw0 |
		(txq->suppress ? GDMA_SET(MANA_TX_SUPPRESS_CQE, 1) : 0) |
		(uint64_t)txq->oob_dw1 << 32;
	txq->lk_pool = NULL;
	txq->lk_nopool = NULL;
	txq->lk_gen = __atomic_load_n(&txq->priv->mr.gen, __ATOMIC_ACQUIRE);
	return 0;
}

int
mana_txq_start(struct mana_priv *priv, struct mana_txq *txq)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.sq_sig_all = 0,
		.cap = {
			.max_send_wr = txq->nb_desc,
			.max_send_sge = txq->max_sge,
		},
	};
	int err;

	if (mana_set_buf_allocator(priv, txq->socket) != 0)
		return -EINVAL;
	txq->cq = mana_vs_create_cq(priv->ctx, txq->nb_desc, txq, NULL, 0);
	if (txq->cq == NULL) {
		err = errno != 0 ? errno : EIO;	/* before logging can change it */
		PMD_DRV_LOG(ERR, "port %u: TX queue %u: create CQ: %s", priv->port_id,
			    txq->queue_id, strerror(err));
		return -err;
	}
	attr.send_cq = txq->cq;
	attr.recv_cq = txq->cq;
	if (mana_set_buf_allocator(priv, txq->socket) != 0)
		return -EINVAL;
	txq->qp = mana_vs_create_qp(priv->parent_pd, &attr);
	if (txq->qp == NULL) {
		err = errno != 0 ? errno : EIO;
		PMD_DRV_LOG(ERR, "port %u: TX queue %u: create RAW QP: %s%s", priv->port_id,
			    txq->queue_id, strerror(err), err == ENODEV ?
			    " (is the kernel netdev of this port up?)" : "");
		return -err;
	}
	txq->offloads |= priv->dev_data->dev_conf.txmode.offloads;
	mana_mr_cache_init(&txq->mr_cache);
	return txq_map(txq);
}

/* Destroy QP then CQ, and return every in-flight mbuf. */
void
mana_txq_stop(struct mana_txq *txq)
{
	int ret;

	if (txq->qp != NULL) {
		ret = mana_vs_destroy_qp(txq->qp);
		if (ret != 0)
			PMD_DRV_LOG(ERR, "TX queue %u: destroy QP: %s", txq->queue_id,
				    strerror(-ret));
		txq->qp = NULL;
	}
	/*
	 * The CQ ring is still mapped: count what the device completed before the
	 * QP went away, so packets that did go out are not missing from the stats.
	 * (None once stopped: a device reset took the queue apart already.)
	 */
	if (txq->cq_ring != NULL)
		mana_tx_reap(txq);
	if (txq->cq != NULL) {
		ret = mana_vs_destroy_cq(txq->cq);
		if (ret != 0)
			PMD_DRV_LOG(ERR, "TX queue %u: destroy CQ: %s", txq->queue_id,
				    strerror(-ret));
		txq->cq = NULL;
	}
	mana_tx_drop_inflight(txq);
	txq->cq_ring = NULL;
	txq->sq_buf = NULL;
	txq->db_page = NULL;
}

void
mana_txq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_txq_info *qinfo)
{
	struct mana_txq *txq = dev->data->tx_queues[qid];

	qinfo->nb_desc = txq->nb_desc;
	qinfo->conf.offloads = txq->offloads;
	qinfo->conf.tx_deferred_start = txq->deferred;
}

/*
 * tx_queue_stop: a TX queue is a RAW QP and CQ of its own, independent of the
 * others. Close its gate (no burst of any process inside), destroy QP and CQ;
 * mana_txq_stop counts what completed and frees what did not.
 */
int
mana_tx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	struct mana_priv *priv = mana_priv(dev);

	rte_spinlock_recursive_lock(&priv->ctl_lock);	/* against the recovery alarm */
	mana_qgate_close(priv, false, qid);
	mana_txq_stop(dev->data->tx_queues[qid]);
	dev->data->tx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STOPPED;
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	return 0;
}

/* tx_queue_start: recreate QP and CQ, then open the gate (the queue is whole). */
int
mana_tx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	struct mana_priv *priv = mana_priv(dev);
	int ret;

	rte_spinlock_recursive_lock(&priv->ctl_lock);
	/* Not while the device is being recovered or needs a reset (one line says why). */
	ret = mana_recovery_start_check(priv);
	if (ret == 0)
		ret = mana_txq_start(priv, dev->data->tx_queues[qid]);
	if (ret == 0) {
		dev->data->tx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STARTED;
		mana_qgate_open(priv, false, qid);
	} else if (priv->rec_state == MANA_REC_NONE) {
		mana_txq_stop(dev->data->tx_queues[qid]);
	}
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	return ret;
}
