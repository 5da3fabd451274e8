/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * RX queue control: setup/release (descriptor count, mempool checks), verbs
 * objects, start/stop, VLAN strip, interrupts and queue info. The burst and
 * the ring invariants it keeps are in mana_rx.c.
 */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_io.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

static void
rxq_free(struct mana_rxq *rxq)
{
	if (rxq == NULL)
		return;
	rte_free(rxq->sw_ring);
	rte_free(rxq);
}

static void rxq_destroy(struct mana_rxq *rxq, bool keep_channel);

/*
 * Runtime setup of a stopped RX queue (RTE_ETH_DEV_CAPA_RUNTIME_RX_QUEUE_SETUP):
 * ethdev releases the old queue on the started port first. Its WQ is an entry
 * of the RSS QP's table, whose hardware objects live and die with the RSS QP
 * (hardware.md §6, "ids"), so the port's RX side goes down before the queue is
 * freed; mana_rx_queue_setup builds it again with the new queue (stopped).
 * Until then no RX queue of the port receives.
 */
static void
rx_side_down(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++)
		mana_qgate_close(priv, true, i);
	mana_rss_destroy(priv);
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		if (dev->data->rx_queues[i] != NULL)
			rxq_destroy(dev->data->rx_queues[i], true);
	PMD_DRV_LOG(INFO, "port %u: RX side down for a queue set up on the started port",
		    priv->port_id);
}

void
mana_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct mana_priv *priv = mana_priv(dev);
	struct mana_rxq *rxq = dev->data->rx_queues[qid];

	if (rxq == NULL)
		return;
	rte_spinlock_recursive_lock(&priv->ctl_lock);
	if (priv->rss_qp != NULL && rxq->wq != NULL)
		rx_side_down(dev);
	if (rxq->wq != NULL || rxq->cq != NULL || rxq->channel != NULL)
		rxq_destroy(rxq, false);
	mana_rxq_stats_retire(priv, qid, rxq);
	rxq_free(rxq);
	dev->data->rx_queues[qid] = NULL;
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
}

static int
rx_check_desc(struct mana_priv *priv, uint16_t nb_desc)
{
	if (nb_desc < MANA_MIN_DESC || nb_desc > priv->max_desc || !rte_is_power_of_2(nb_desc)) {
		PMD_DRV_LOG(ERR, "port %u: %u RX descriptors; allowed: a power of two %u..%u",
			    priv->port_id, nb_desc, MANA_MIN_DESC, priv->max_desc);
		return -EINVAL;
	}
	return 0;
}

uint32_t
mana_rxq_sge_count(const struct mana_priv *priv, uint16_t qid, const struct rte_mempool *mp,
		   uint16_t mtu)
{
	uint32_t room = rte_pktmbuf_data_room_size((struct rte_mempool *)(uintptr_t)mp);
	uint32_t need = (uint32_t)mtu + MANA_L2_OVERHEAD, first, k;

	if (room <= RTE_PKTMBUF_HEADROOM) {
		PMD_DRV_LOG(ERR, "port %u: RX queue %u: mempool %s mbufs have %u bytes of data "
			    "room, no more than the %u-byte headroom", priv->port_id, qid,
			    mp->name, room, RTE_PKTMBUF_HEADROOM);
		return 0;
	}
	first = room - RTE_PKTMBUF_HEADROOM;
	k = need <= first ? 1 : 1 + (need - first + room - 1) / room;
	if (k > GDMA_MAX_RX_SGE) {
		PMD_DRV_LOG(ERR, "port %u: RX queue %u: an MTU %u frame (%u bytes) needs %u mbufs "
			    "of mempool %s (%u bytes after headroom, then %u); at most %u per "
			    "frame: use larger mbufs or a smaller MTU", priv->port_id, qid, mtu,
			    need, k, mp->name, first, room, GDMA_MAX_RX_SGE);
		return 0;
	}
	return k;
}

/*
 * The WQE layout of k SGEs (hardware.md §3.6). More than one mbuf per frame
 * without RTE_ETH_RX_OFFLOAD_SCATTER is used all the same, as Intel's PMDs
 * do (an application asking for a frame larger than its mbufs wants it),
 * and said once.
 */
static void
rxq_layout_set(struct mana_rxq *rxq, uint32_t k, uint16_t mtu, uint64_t offloads)
{
	uint32_t room = rte_pktmbuf_data_room_size(rxq->mp);

	if (k > 1 && k != rxq->sge_k && !(offloads & RTE_ETH_RX_OFFLOAD_SCATTER))
		PMD_DRV_LOG(NOTICE, "port %u: RX queue %u: an MTU %u frame does not fit one "
			    "mbuf of %s (%u bytes after headroom): receiving into chains of up "
			    "to %u mbufs although RTE_ETH_RX_OFFLOAD_SCATTER is not requested",
			    rxq->port_id, rxq->queue_id, mtu, rxq->mp->name, rxq->buf_size, k);
	rxq->sge_k = (uint8_t)k;
	rxq->wqe_bu = (uint8_t)(gdma_wqe_size(GDMA_OOB_SIZE_SMALL, k) >> GDMA_WQE_BU_SHIFT);
	rxq->seg_size = room;
	rxq->frame_cap = rxq->buf_size + (k - 1) * room;
}

/* dev->data->scattered_rx: some set-up RX queue receives into chains. */
static void
rxq_scattered_update(struct rte_eth_dev_data *data)
{
	const struct mana_rxq *rxq;
	uint16_t i;

	data->scattered_rx = 0;
	for (i = 0; i < data->nb_rx_queues; i++) {
		rxq = data->rx_queues[i];
		if (rxq != NULL && rxq->sge_k > 1)
			data->scattered_rx = 1;
	}
}

int
mana_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		    unsigned int socket, const struct rte_eth_rxconf *conf,
		    struct rte_mempool *mp)
{
	struct mana_priv *priv = mana_priv(dev);
	uint32_t room = rte_pktmbuf_data_room_size(mp), k;
	struct mana_rxq *rxq;
	int sock = socket == (unsigned int)SOCKET_ID_ANY ? priv->socket : (int)socket;
	int ret;

	ret = rx_check_desc(priv, nb_desc);
	if (ret != 0)
		return ret;
	k = mana_rxq_sge_count(priv, qid, mp, dev->data->mtu);
	if (k == 0)
		return -EINVAL;
	/*
	 * Received mbufs are re-armed from a template (data_off, refcnt,
	 * nb_segs, port) and get ol_flags from a table, so RTE_MBUF_F_EXTERNAL
	 * of a pinned external buffer pool would be lost.
	 */
	if (rte_pktmbuf_priv_flags(mp) & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) {
		PMD_DRV_LOG(ERR, "port %u: mempool %s has pinned external buffers: not "
			    "supported for RX", priv->port_id, mp->name);
		return -ENOTSUP;
	}
	if (dev->data->dev_started) {
		/* Runtime setup (ethdev checked the queue is stopped): as the others receive. */
		ret = mana_recovery_start_check(priv);
		if (ret != 0)
			return ret;
		if ((k > 1) != (dev->data->scattered_rx != 0)) {
			PMD_DRV_LOG(ERR, "port %u: RX queue %u set up on the started port would "
				    "receive %s, the port's burst %s: stop the port to set it up",
				    priv->port_id, qid, k > 1 ? "into chains" : "into one mbuf",
				    dev->data->scattered_rx ? "scatters" : "does not scatter");
			return -EINVAL;
		}
	}
	ret = mana_mr_register_mempool(priv, mp);
	if (ret != 0)
		return ret;
	mana_rx_queue_release(dev, qid);
	rxq = rte_zmalloc_socket("mana_rxq", sizeof(*rxq), RTE_CACHE_LINE_SIZE, sock);
	if (rxq == NULL)
		return -ENOMEM;
	/* Room for 15 mbufs per WQE: an MTU change on the stopped port may need more (start). */
	rxq->sw_ring = rte_zmalloc_socket("mana_rx_ring", sizeof(*rxq->sw_ring) * nb_desc *
					  GDMA_MAX_RX_SGE, RTE_CACHE_LINE_SIZE, sock);
	if (rxq->sw_ring == NULL) {
		rxq_free(rxq);
		return -ENOMEM;
	}
	rxq->nb_desc = nb_desc;
	rxq->desc_mask = nb_desc - 1;
	rxq->port_id = dev->data->port_id;
	rxq->queue_id = qid;
	rxq->mp = mp;
	rxq->buf_size = room - RTE_PKTMBUF_HEADROOM;
	rxq->data_off = RTE_PKTMBUF_HEADROOM;
	rxq->buf_off = sizeof(struct rte_mbuf) + rte_pktmbuf_priv_size(mp) + rxq->data_off;
	rxq->mbuf_rearm = mana_rx_rearm_template(rxq->data_off, rxq->port_id);
	rxq->seg_rearm = mana_rx_rearm_template(0, rxq->port_id);
	rxq->priv = priv;
	rxq->gate = &priv->rx_gate[qid];
	rxq->socket = sock;
	rxq->deferred = conf->rx_deferred_start != 0;
	rxq_layout_set(rxq, k, dev->data->mtu, dev->data->dev_conf.rxmode.offloads |
		       conf->offloads);
	mana_mr_cache_init(&rxq->mr_cache);
	dev->data->rx_queues[qid] = rxq;
	if (priv->started) {
		/* Runtime setup: the RX side again, the new queue stopped in it. */
		rte_spinlock_recursive_lock(&priv->ctl_lock);
		ret = mana_rx_rebuild(dev);
		rte_spinlock_recursive_unlock(&priv->ctl_lock);
		return ret;
	}
	rxq_scattered_update(dev->data);
	return 0;
}

/* The queue's completion channel: its fd is the queue's efd, in the table or idle. */
static int
rxq_channel_create(struct mana_priv *priv, struct mana_rxq *rxq)
{
	int err;

	if (rxq->channel != NULL)
		return 0;
	rxq->channel = mana_vs_create_comp_channel(priv->ctx);
	if (rxq->channel != NULL)
		return 0;
	err = errno != 0 ? errno : EIO;
	PMD_DRV_LOG(ERR, "port %u: RX queue %u: creating completion channel failed: %s",
		    priv->port_id, rxq->queue_id, strerror(err));
	return -err;
}

/* CQ (with its completion channel for RX interrupts) and WQ; before the RSS QP. */
int
mana_rxq_create_objs(struct mana_priv *priv, struct mana_rxq *rxq, bool intr)
{
	struct ibv_wq_init_attr wq_attr = {
		.wq_type = IBV_WQT_RQ,
		.max_wr = rxq->nb_desc,
		.pd = priv->parent_pd,
	};
	int nvec = priv->ctx->num_comp_vectors > 0 ? priv->ctx->num_comp_vectors : 1;
	uint16_t mtu = priv->dev_data->mtu;
	uint32_t k;
	int err;

	/* The MTU may have changed on the stopped port: the WQEs are laid out for it now. */
	k = mana_rxq_sge_count(priv, rxq->queue_id, rxq->mp, mtu);
	if (k == 0)
		return -EINVAL;
	rxq_layout_set(rxq, k, mtu, priv->dev_data->dev_conf.rxmode.offloads);
	rxq_scattered_update(priv->dev_data);
	wq_attr.max_sge = k;
	/* mana_rx_rebuild keeps the channel: its fd is the queue's efd. */
	if (intr) {
		err = rxq_channel_create(priv, rxq);
		if (err != 0)
			goto fail_err;
	}
	err = mana_set_buf_allocator(priv, rxq->socket);
	if (err != 0)
		goto fail_err;
	rxq->cq = mana_vs_create_cq(priv->ctx, rxq->nb_desc, rxq, rxq->channel,
				    rxq->queue_id % nvec);
	if (rxq->cq == NULL)
		goto fail;
	wq_attr.cq = rxq->cq;
	err = mana_set_buf_allocator(priv, rxq->socket);
	if (err != 0)
		goto fail_err;
	rxq->wq = mana_vs_create_wq(priv->ctx, &wq_attr);
	if (rxq->wq == NULL)
		goto fail;
	return 0;
fail:
	/* Saved now: logging and the destroy calls below may change errno. */
	err = errno != 0 ? errno : EIO;
	PMD_DRV_LOG(ERR, "port %u: RX queue %u: creating %s failed: %s", priv->port_id,
		    rxq->queue_id, rxq->cq == NULL ? "CQ" : "WQ", strerror(err));
fail_err:
	rxq_destroy(rxq, true);	/* the channel goes at stop (mana_rxq_stop) */
	return -err;
}

/*
 * Whether the burst puts stripped tags back (VLAN_STRIP off). That needs
 * 4 bytes of headroom; with less (a DPDK built with RTE_PKTMBUF_HEADROOM
 * below 4) the tag stays stripped and only vlan_tci reports it.
 */
static void
rxq_vlan_strip_set(struct mana_rxq *rxq, bool strip)
{
	uint32_t v = !strip && rxq->data_off >= RTE_VLAN_HLEN ?
		GDMA_SET(MANA_RXCQE_VLAN_PRESENT, 1) : 0;

	__atomic_store_n(&rxq->vlan_reinsert, v, __ATOMIC_RELAXED);
}

/*
 * rte_eth_dev_set_vlan_offload(): ethdev has already checked the offloads
 * against the capabilities (VLAN_STRIP only) and updated rxmode.offloads. A
 * running port's bursts take the change from their next burst on at the
 * latest (a relaxed store the burst reads where dword 1 changes).
 */
int
mana_vlan_offload_set(struct rte_eth_dev *dev, int mask)
{
	bool strip = (dev->data->dev_conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) != 0;
	uint16_t i;

	if (!(mask & RTE_ETH_VLAN_STRIP_MASK))
		return 0;
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		if (dev->data->rx_queues[i] != NULL)
			rxq_vlan_strip_set(dev->data->rx_queues[i], strip);
	return 0;
}

/* After the RSS QP exists: map the rings, post every descriptor, ring once. */
int
mana_rxq_start(struct mana_rxq *rxq)
{
	struct manadv_rwq dv_wq;
	struct manadv_cq dv_cq;
	struct manadv_obj obj = {
		.cq = { .in = rxq->cq, .out = &dv_cq },
		.rwq = { .in = rxq->wq, .out = &dv_wq },
	};
	int ret;

	ret = mana_vs_init_obj(&obj, MANADV_OBJ_CQ | MANADV_OBJ_RWQ);
	if (ret != 0) {
		PMD_DRV_LOG(ERR, "RX queue %u: manadv_init_obj: %s", rxq->queue_id, strerror(-ret));
		return ret;
	}
	if (dv_cq.count != rxq->nb_desc || !rte_is_power_of_2(dv_wq.size) ||
	    dv_wq.size < (uint32_t)rxq->nb_desc * rxq->wqe_bu * GDMA_WQE_BU_SIZE ||
	    dv_wq.db_page == NULL) {
		PMD_DRV_LOG(ERR, "RX queue %u: device rings do not match (CQ %u entries, RQ %u "
			    "bytes, %u descriptors)", rxq->queue_id, dv_cq.count, dv_wq.size,
			    rxq->nb_desc);
		return -EIO;
	}
	rxq->cq_ring = dv_cq.buf;
	rxq->cq_count = dv_cq.count;
	rxq->cq_head = dv_cq.count;
	rxq->cq_id = dv_cq.cq_id;
	rxq->rq_buf = dv_wq.buf;
	rxq->rq_mask = dv_wq.size - 1;
	rxq->rq_id = dv_wq.wq_id;
	rxq->db_page = dv_wq.db_page;
	ret = mana_vs_db_page_offset(rxq->priv->ctx, dv_wq.db_page, &rxq->db_off);
	if (ret != 0) {
		PMD_DRV_LOG(ERR, "RX queue %u: doorbell page offset in cmd_fd: %s",
			    rxq->queue_id, strerror(-ret));
		return ret;
	}
	rxq->rq_head = 0;
	rxq->sw_head = 0;
	rxq->sw_tail = 0;
	memset(&rxq->pend, 0, sizeof(rxq->pend));
	rxq_vlan_strip_set(rxq, (rxq->priv->dev_data->dev_conf.rxmode.offloads &
				 RTE_ETH_RX_OFFLOAD_VLAN_STRIP) != 0);
	mana_mr_cache_init(&rxq->mr_cache);
	/* Every queue's k is known (mana_rxq_create_objs): the port's burst function is. */
	rxq->scatter_burst = rxq->priv->dev_data->scattered_rx != 0;
	if (!mana_rx_post_all(rxq)) {
		PMD_DRV_LOG(ERR, "RX queue %u: cannot post %u buffers from mempool %s",
			    rxq->queue_id, rxq->nb_desc, rxq->mp->name);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Destroy WQ, CQ and, unless keep_channel, the completion channel (the RSS QP
 * and table are gone), and free the posted mbufs.
 */
static void
rxq_destroy(struct mana_rxq *rxq, bool keep_channel)
{
	int ret;

	/* Frames already completed and not yet received go with the ring: counted. */
	if (rxq->cq_ring != NULL)
		rxq->stats.discarded += mana_rxq_ready(rxq);
	if (rxq->wq != NULL) {
		ret = mana_vs_destroy_wq(rxq->wq);
		if (ret != 0)
			PMD_DRV_LOG(ERR, "RX queue %u: destroy WQ: %s", rxq->queue_id,
				    strerror(-ret));
		rxq->wq = NULL;
	}
	if (rxq->cq != NULL) {
		ret = mana_vs_destroy_cq(rxq->cq);
		if (ret != 0)
			PMD_DRV_LOG(ERR, "RX queue %u: destroy CQ: %s", rxq->queue_id,
				    strerror(-ret));
		rxq->cq = NULL;
	}
	if (rxq->channel != NULL && !keep_channel) {
		ret = mana_vs_destroy_comp_channel(rxq->channel);
		if (ret != 0)
			PMD_DRV_LOG(ERR, "RX queue %u: destroy channel: %s", rxq->queue_id,
				    strerror(-ret));
		rxq->channel = NULL;
	}
	if (rxq->scatter_burst) {
		mana_rxs_release_all(rxq);
	} else {
		/* Drain by count: a full ring has head != tail here (hardware.md §12 #8). */
		while (rxq->sw_tail != rxq->sw_head) {
			rte_mempool_put(rxq->mp, rxq->sw_ring[rxq->sw_tail & rxq->desc_mask]);
			rxq->sw_tail++;
		}
		/* The next start may lay out k > 1 WQEs, whose slots must start empty. */
		memset(rxq->sw_ring, 0, sizeof(*rxq->sw_ring) * rxq->nb_desc);
	}
	rxq->cq_ring = NULL;
	rxq->rq_buf = NULL;
	rxq->db_page = NULL;
	rxq->intr_armed = false;
	memset(&rxq->pend, 0, sizeof(rxq->pend));
}

void
mana_rxq_stop(struct mana_rxq *rxq)
{
	rxq_destroy(rxq, false);
}

/* ---- queue start/stop ------------------------------------------------ */

/*
 * Whether RX queue qid receives: started, and in the RSS table (the only
 * way its WQ gets device objects, hardware.md §6 "ids"). Only such a queue's
 * gate opens; a started queue outside the table keeps its gate closed and
 * its bursts return 0.
 */
bool
mana_rxq_receives(struct rte_eth_dev *dev, uint16_t qid)
{
	return dev->data->rx_queue_state[qid] == RTE_ETH_QUEUE_STATE_STARTED &&
	       mana_rss_has_queue(mana_priv(dev), qid);
}

/*
 * The RX side of a port (dev_start, mana_rx_rebuild): CQ and WQ of every RX
 * queue in the RSS table, the RSS QP over them, a full ring posted on each
 * of them whose state is STARTED. A queue outside the table gets no CQ and
 * no WQ (the kernel would create no device object for them, hardware.md §6
 * "ids"), only its completion channel with RX interrupts (the efd stays the
 * queue's). The caller destroys what was made if it fails.
 */
int
mana_rx_side_create(struct rte_eth_dev *dev, bool intr)
{
	struct mana_priv *priv = mana_priv(dev);
	uint16_t n = dev->data->nb_rx_queues, i;
	int ret = 0;

	for (i = 0; i < n && ret == 0; i++) {
		if (mana_rss_has_queue(priv, i))
			ret = mana_rxq_create_objs(priv, dev->data->rx_queues[i], intr);
		else if (intr)
			ret = rxq_channel_create(priv, dev->data->rx_queues[i]);
	}
	if (ret == 0)
		ret = mana_rss_create(priv);
	for (i = 0; i < n && ret == 0; i++)
		if (mana_rxq_receives(dev, i))
			ret = mana_rxq_start(dev->data->rx_queues[i]);
	return ret;
}

/*
 * The device receives on a WQ only through the RSS QP, which creates the
 * hardware RQ and CQ objects of its table's WQs and destroys them with it
 * (hardware.md §6, "ids"); the table names 2^n distinct WQs. So one RX queue
 * cannot leave or join the port alone: rx_queue_stop/start build the port's
 * RX side again, with every RX gate closed meanwhile, over the same table
 * (the application's RETA). A stopped queue keeps its WQ in the table with
 * no buffer posted: the device drops the frames RSS gives it for want of a
 * WQE, as a stopped queue of other NICs drops them. Frames that arrive while
 * the RX side is built again are dropped on every queue (the time is
 * logged). Each started queue posts a full ring again; a queue whose
 * interrupt was armed is armed again (its CQ is new, its channel and event
 * fd stay). A queue the application's RETA leaves out has no WQ in the
 * table and receives nothing, started or not (mana_rxq_receives).
 */
int
mana_rx_rebuild(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	bool intr = dev->data->dev_conf.intr_conf.rxq != 0;
	uint16_t n = dev->data->nb_rx_queues, i, on = 0;
	bool armed[MANA_MAX_RXQ];
	struct mana_rxq *rxq;
	uint64_t t0 = rte_get_timer_cycles();
	int ret = 0;

	for (i = 0; i < n; i++) {
		if (dev->data->rx_queues[i] == NULL) {
			/* A runtime setup that failed after ethdev released the queue. */
			PMD_DRV_LOG(ERR, "port %u: RX queue %u is not set up: set it up, or stop "
				    "and start the port", priv->port_id, i);
			return -EINVAL;
		}
	}
	for (i = 0; i < n; i++)
		mana_qgate_close(priv, true, i);
	mana_rss_destroy(priv);
	for (i = 0; i < n; i++) {
		rxq = dev->data->rx_queues[i];
		armed[i] = rxq->intr_armed;
		rxq_destroy(rxq, true);
	}
	ret = mana_rx_side_create(dev, intr);
	if (ret != 0) {
		mana_rss_destroy(priv);
		for (i = 0; i < n; i++) {
			rxq_destroy(dev->data->rx_queues[i], true);
			dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
		}
		PMD_DRV_LOG(ERR, "port %u: building the RX side again failed (%s): every RX "
			    "queue is stopped; stop and start the port", priv->port_id,
			    strerror(-ret));
		return ret;
	}
	for (i = 0; i < n; i++) {
		if (armed[i])
			mana_rx_intr_enable(dev, i);
		on += mana_rxq_receives(dev, i);
	}
	rte_wmb();
	for (i = 0; i < n; i++)
		if (mana_rxq_receives(dev, i))
			mana_qgate_open(priv, true, i);
	PMD_DRV_LOG(INFO, "port %u: RX side built again: %u of %u queues receive; no frame "
		    "was received for %" PRIu64 " us", priv->port_id, on, n,
		    (rte_get_timer_cycles() - t0) * 1000000 / rte_get_timer_hz());
	return 0;
}

/*
 * rx_queue_stop/start (ethdev checked the port is started and the queue is
 * not already in that state). While the device is being reset the state is
 * only recorded (stop) or the start refused: the recovery restarts the port
 * with the queues in the states they had. A queue outside the RSS table has
 * no WQ: only its state changes (its gate stays closed), the other queues
 * receive on.
 */
int
mana_rx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	struct mana_priv *priv = mana_priv(dev);
	int ret = 0;

	rte_spinlock_recursive_lock(&priv->ctl_lock);
	dev->data->rx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STOPPED;
	if (mana_rss_has_queue(priv, qid) && priv->rec_state == MANA_REC_NONE &&
	    !priv->removed)
		ret = mana_rx_rebuild(dev);
	else
		mana_qgate_close(priv, true, qid);
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	return ret;
}

int
mana_rx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	struct mana_priv *priv = mana_priv(dev);
	int ret;

	rte_spinlock_recursive_lock(&priv->ctl_lock);
	ret = mana_recovery_start_check(priv);
	if (ret == 0) {
		dev->data->rx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STARTED;
		if (mana_rss_has_queue(priv, qid))
			ret = mana_rx_rebuild(dev);
	}
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	return ret;
}

/* ---- interrupts ------------------------------------------------------ */

/*
 * A queue outside the RSS table is only marked armed: it has no CQ to arm,
 * no frame can come, and mana_rx_rebuild arms it once a RETA names it.
 */
int
mana_rx_intr_enable(struct rte_eth_dev *dev, uint16_t qid)
{
	struct mana_rxq *rxq = dev->data->rx_queues[qid];

	if (rxq == NULL || rxq->channel == NULL)
		return -EINVAL;
	if (rxq->cq == NULL && !mana_rss_has_queue(mana_priv(dev), qid)) {
		rxq->intr_armed = true;
		return 0;
	}
	if (rxq->db_page == NULL)
		return -EINVAL;
	mana_db_ring(rxq->db_page, GDMA_DB_OFFSET_CQ,
		     gdma_db_cq_arm(rxq->cq_id, rxq->cq_head, rxq->cq_count));
	rxq->intr_armed = true;
	return 0;
}

int
mana_rx_intr_disable(struct rte_eth_dev *dev, uint16_t qid)
{
	struct mana_rxq *rxq = dev->data->rx_queues[qid];
	struct ibv_cq *cq;
	void *ctx;
	int ret;

	if (rxq == NULL || rxq->channel == NULL)
		return -EINVAL;
	/* One event per arm; none pending (EAGAIN) is normal. */
	ret = mana_vs_get_cq_event(rxq->channel, &cq, &ctx);
	if (ret == 0)
		mana_vs_ack_cq_events(cq, 1);
	else if (ret != -EAGAIN)
		PMD_DRV_LOG(ERR, "RX queue %u: reading CQ event: %s", qid, strerror(-ret));
	rxq->intr_armed = false;
	return 0;
}

void
mana_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_rxq_info *qinfo)
{
	struct mana_rxq *rxq = dev->data->rx_queues[qid];

	qinfo->mp = rxq->mp;
	qinfo->nb_desc = rxq->nb_desc;
	qinfo->scattered_rx = rxq->sge_k > 1;
	qinfo->rx_buf_size = rxq->buf_size;
	qinfo->conf.offloads = dev->data->dev_conf.rxmode.offloads;
	qinfo->conf.rx_deferred_start = rxq->deferred;
}
