/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Ethdev ports: creation per vPort, the const eth_dev_ops, configure,
 * start/stop/close, device info, MTU (link and device events: mana_intr.c).
 *
 * One ibv_context per ethdev port (as upstream), a plain PD for MRs and a
 * parent domain with pd_context = IB port for every queue object. Queue
 * buffers come from the allocator set with manadv_set_context_attr before
 * each CQ/WQ/QP creation: rte_zmalloc_socket, page aligned, on the queue's
 * socket. Start order (hardware.md §10): TX CQ+QP per queue, then per RX
 * queue CQ and WQ, the indirection table, the RSS QP, manadv_init_obj, post
 * RX WQEs, one doorbell per queue. Stop is the reverse and returns every
 * mbuf; the port can be started again.
 *
 * Secondary processes attach to these ports with a reduced set of ops and
 * their own burst entry points on the same queues (mana_mp.c,
 * mana_mp_rxtx.c).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_malloc.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

RTE_LOG_REGISTER_SUFFIX(mana_logtype_init, init, NOTICE);
RTE_LOG_REGISTER_SUFFIX(mana_logtype_driver, driver, NOTICE);
RTE_LOG_REGISTER_SUFFIX(mana_logtype_rx, rx, NOTICE);
RTE_LOG_REGISTER_SUFFIX(mana_logtype_tx, tx, NOTICE);

/* Shim and model messages (syslog levels) go to pmd.net.mana.driver. */
static void
mana_shim_log(int level, const char *msg, void *arg)
{
	uint32_t lvl = level <= MANA_VS_LOG_ERR ? RTE_LOG_ERR : (uint32_t)level + 1;

	RTE_SET_USED(arg);
	if (lvl > RTE_LOG_DEBUG)
		lvl = RTE_LOG_DEBUG;
	rte_log(lvl, mana_logtype_driver, "mana_vs: %s\n", msg);
}

RTE_INIT_PRIO(mana_shim_logger_init, CLASS)
{
	mana_vs_set_logger(mana_shim_log, NULL);
}

/* ---- queue buffer allocator (manadv BUF_ALLOCATORS) ----------------- */

static void *
mana_buf_alloc(size_t size, void *data)
{
	return rte_zmalloc_socket("mana_ring", size, (size_t)sysconf(_SC_PAGESIZE),
				  (int)(intptr_t)data);
}

static void
mana_buf_free(void *ptr, void *data)
{
	RTE_SET_USED(data);
	rte_free(ptr);
}

/* Set before every CQ/WQ/QP creation so the ring lands on `socket`. */
int
mana_set_buf_allocator(struct mana_priv *priv, int socket)
{
	struct manadv_ctx_allocators alloc = {
		.alloc = mana_buf_alloc,
		.free = mana_buf_free,
		.data = (void *)(intptr_t)socket,
	};
	int ret = mana_vs_set_context_attr(priv->ctx, MANADV_CTX_ATTR_BUF_ALLOCATORS, &alloc);

	if (ret != 0)
		PMD_DRV_LOG(ERR, "port %u: manadv_set_context_attr: %s", priv->port_id,
			    strerror(-ret));
	return ret;
}

/* ---- configure, info ------------------------------------------------ */

static int
mana_dev_configure(struct rte_eth_dev *dev)
{
	struct rte_eth_conf *conf = &dev->data->dev_conf;
	struct mana_priv *priv = mana_priv(dev);

	if (conf->rxmode.mq_mode & RTE_ETH_MQ_RX_RSS_FLAG)
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_RSS_HASH;
	if (dev->data->nb_rx_queues == 0 || dev->data->nb_tx_queues == 0) {
		PMD_DRV_LOG(ERR, "port %u: needs at least one RX and one TX queue", priv->port_id);
		return -EINVAL;
	}
	return mana_rss_configure(dev);
}

int
mana_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct mana_priv *priv = mana_priv(dev);
	uint16_t nq = RTE_MIN(priv->max_queues, MANA_MAX_RXQ);

	info->max_rx_queues = nq;
	/* Each TX queue is a QP and so is the RSS QP of the RX side (hardware.md §7.3, §10). */
	info->max_tx_queues = RTE_MIN(priv->max_qp - 1, (uint32_t)MANA_MAX_TXQ);
	info->max_mac_addrs = 1;
	/*
	 * A stopped queue set up again on the started port: a TX queue is a QP of
	 * its own and has none while stopped; an RX queue joins the RSS table, so
	 * the RX side is built again around it (mana_rx_queue_setup), which a port
	 * with RX interrupts (an efd per queue in the interrupt vector) cannot take.
	 */
	info->dev_capa |= RTE_ETH_DEV_CAPA_RUNTIME_TX_QUEUE_SETUP;
	if (!dev->data->dev_conf.intr_conf.rxq)
		info->dev_capa |= RTE_ETH_DEV_CAPA_RUNTIME_RX_QUEUE_SETUP;
	info->min_mtu = MANA_MIN_MTU;
	info->max_mtu = priv->max_mtu;
	info->min_rx_bufsize = RTE_ETHER_MIN_MTU + MANA_L2_OVERHEAD;
	info->max_rx_pktlen = priv->max_mtu + MANA_L2_OVERHEAD;
	info->rx_offload_capa = MANA_RX_OFFLOADS;
	info->tx_offload_capa = MANA_TX_OFFLOADS;
	info->flow_type_rss_offloads = MANA_RSS_HF;
	info->hash_key_size = MANA_RSS_KEY_LEN;
	info->reta_size = MANA_RETA_SIZE;
	info->speed_capa = RTE_ETH_LINK_SPEED_100G;
	/* Power-of-two counts are checked at queue setup; nb_align admits 64, 128, 192, 256. */
	info->rx_desc_lim.nb_max = priv->max_desc;
	info->rx_desc_lim.nb_min = MANA_MIN_DESC;
	info->rx_desc_lim.nb_align = MANA_MIN_DESC;
	info->rx_desc_lim.nb_seg_max = GDMA_MAX_RX_SGE;
	info->rx_desc_lim.nb_mtu_seg_max = GDMA_MAX_RX_SGE;
	info->tx_desc_lim.nb_max = priv->max_desc;
	info->tx_desc_lim.nb_min = MANA_MIN_DESC;
	info->tx_desc_lim.nb_align = MANA_MIN_DESC;
	/*
	 * With TSO configured a first segment holding headers and payload takes
	 * two SGEs (SGE 0 is the headers alone, hardware.md §3.5): one segment
	 * fewer is what every packet may have.
	 */
	info->tx_desc_lim.nb_seg_max = priv->max_tx_sge -
		!!(dev->data->dev_conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO);
	info->tx_desc_lim.nb_mtu_seg_max = info->tx_desc_lim.nb_seg_max;
	/* Deeper rings on request only: a pool sized for the old default still fits. */
	info->default_rxportconf.ring_size = RTE_MIN(priv->max_desc, (uint16_t)MANA_DEFAULT_DESC);
	info->default_txportconf.ring_size = RTE_MIN(priv->max_desc, (uint16_t)MANA_DEFAULT_DESC);
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf.nb_queues = 1;
	info->default_rxportconf.burst_size = 32;
	info->default_txportconf.burst_size = 32;
	info->default_rxconf.rx_drop_en = 1;
	/* A device reset: recovered by the driver, or by the application (NIC guide). */
	info->err_handle_mode = priv->recovery_manual ? RTE_ETH_ERROR_HANDLE_MODE_PASSIVE :
						       RTE_ETH_ERROR_HANDLE_MODE_PROACTIVE;
	return 0;
}

/* ---- start / stop ---------------------------------------------------- */

static void
mana_rx_intr_vec_disable(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);

	if (priv->rxq_intr == NULL)
		return;
	/*
	 * Only take the fds out of the epoll sets: they belong to the completion
	 * channels, which close them. rte_intr_efd_disable() would close them
	 * here too (max_intr > nb_efd), and the channel's own close a moment
	 * later could then hit an fd number reused by another thread.
	 */
	rte_intr_free_epoll_fd(priv->rxq_intr);
	rte_intr_vec_list_free(priv->rxq_intr);
	rte_intr_nb_efd_set(priv->rxq_intr, 0);
	rte_intr_max_intr_set(priv->rxq_intr, 0);
}

/* RX interrupt vectors: one event fd per queue, the queue's completion channel. */
static int
mana_rx_intr_vec_enable(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	uint16_t i, n = dev->data->nb_rx_queues;
	struct mana_rxq *rxq;

	if (rte_intr_vec_list_alloc(priv->rxq_intr, "mana_intr_vec", n) != 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rxq = dev->data->rx_queues[i];
		if (rte_intr_vec_list_index_set(priv->rxq_intr, i,
						RTE_INTR_VEC_RXTX_OFFSET + i) != 0 ||
		    rte_intr_efds_index_set(priv->rxq_intr, i, rxq->channel->fd) != 0)
			return -EINVAL;
	}
	rte_intr_nb_efd_set(priv->rxq_intr, n);
	rte_intr_max_intr_set(priv->rxq_intr, n + 1);
	return 0;
}

static void
mana_queues_destroy(struct rte_eth_dev *dev);

/*
 * Every queue's verbs objects gone and its mbufs back in their pools, the
 * gates closed first; the queue states and priv->started stay as they were
 * (a recovery brings back what was running).
 */
void
mana_queues_teardown(struct rte_eth_dev *dev)
{
	mana_qgate_close_all(mana_priv(dev));
	mana_rx_intr_vec_disable(dev);
	mana_queues_destroy(dev);
}

static void
mana_queues_destroy(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	uint16_t i;

	mana_rss_destroy(priv);
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		if (dev->data->rx_queues[i] != NULL)
			mana_rxq_stop(dev->data->rx_queues[i]);
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		if (dev->data->tx_queues[i] != NULL)
			mana_txq_stop(dev->data->tx_queues[i]);
}

/*
 * Every set-up RX queue can take frames of MTU mtu. A started queue keeps its
 * WQEs: they must hold the frame as they are (k mbufs, hardware.md §3.6). A
 * stopped one is laid out again at start, with up to 15 mbufs per frame.
 */
static int
mana_rxqs_hold_mtu(struct rte_eth_dev *dev, uint16_t mtu)
{
	uint32_t need = (uint32_t)mtu + MANA_L2_OVERHEAD;
	struct mana_priv *priv = mana_priv(dev);
	struct mana_rxq *rxq;
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		rxq = dev->data->rx_queues[i];
		if (rxq == NULL)
			continue;
		if (!priv->started) {
			if (mana_rxq_sge_count(priv, i, rxq->mp, mtu) == 0)
				return -EINVAL;
			continue;
		}
		if (rxq->frame_cap < need) {
			PMD_DRV_LOG(ERR, "port %u: MTU %u needs %u-byte frames; RX queue %u holds "
				    "%u (%u mbuf%s of mempool %s per frame): stop the port to "
				    "change it (the queues are laid out again at start)",
				    dev->data->port_id, mtu, need, i, rxq->frame_cap, rxq->sge_k,
				    rxq->sge_k > 1 ? "s" : "", rxq->mp->name);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Every configured queue set up, and every RX buffer holding a frame of the
 * port's MTU: an MTU given to rte_eth_dev_configure() is not checked against
 * the RX queues ethdev keeps from an earlier configuration.
 */
static int
mana_queues_check(struct rte_eth_dev *dev)
{
	uint16_t i;

	for (i = 0; i < dev->data->nb_tx_queues; i++)
		if (dev->data->tx_queues[i] == NULL)
			goto not_set_up;
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		if (dev->data->rx_queues[i] == NULL)
			goto not_set_up;
	return mana_rxqs_hold_mtu(dev, dev->data->mtu);
not_set_up:
	PMD_DRV_LOG(ERR, "port %u: every configured queue must be set up", dev->data->port_id);
	return -EINVAL;
}

/* Queue i of a direction: started at dev_start unless set up deferred. */
static void
mana_queue_states_init(struct rte_eth_dev *dev)
{
	const struct mana_rxq *rxq;
	const struct mana_txq *txq;
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		rxq = dev->data->rx_queues[i];
		dev->data->rx_queue_state[i] = rxq->deferred ? RTE_ETH_QUEUE_STATE_STOPPED :
							       RTE_ETH_QUEUE_STATE_STARTED;
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		txq = dev->data->tx_queues[i];
		dev->data->tx_queue_state[i] = txq->deferred ? RTE_ETH_QUEUE_STATE_STOPPED :
							       RTE_ETH_QUEUE_STATE_STARTED;
	}
}

static void
mana_queue_states_stopped(struct rte_eth_dev *dev)
{
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++)
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
}

/*
 * Start the queues whose state says STARTED. A stopped (deferred) TX queue
 * gets no verbs objects until tx_queue_start. A stopped RX queue in the RSS
 * table gets its CQ and WQ (the table names it, mana_rx_rebuild) but no
 * buffer: the frames RSS gives it are dropped. An RX queue the RETA leaves
 * out gets neither and receives nothing (mana_rx_side_create).
 */
int
mana_dev_start_locked(struct rte_eth_dev *dev, bool keep_states)
{
	struct mana_priv *priv = mana_priv(dev);
	bool intr = dev->data->dev_conf.intr_conf.rxq != 0;
	uint16_t i;
	int ret;

	ret = mana_queues_check(dev);
	if (ret != 0)
		return ret;
	/*
	 * ethdev only records an MTU given to rte_eth_dev_configure (rxmode.mtu):
	 * apply it here, or frames above the device's MTU are dropped.
	 */
	if (dev->data->mtu != priv->mtu_applied) {
		ret = mana_vs_set_port_mtu(priv->ctx, priv->ib_port, dev->data->mtu);
		if (ret != 0) {
			PMD_DRV_LOG(ERR, "port %u: setting MTU %u: %s", priv->port_id,
				    dev->data->mtu, strerror(-ret));
			return ret;
		}
		priv->mtu_applied = dev->data->mtu;
	}
	if (!keep_states)
		mana_queue_states_init(dev);
	mana_mr_register_all(priv);
	/*
	 * TX first: the RSS QP may need a vPort configured by a RAW QP (hardware.md
	 * §10); with every TX queue deferred there is none yet (see the NIC guide).
	 */
	for (i = 0; i < dev->data->nb_tx_queues && ret == 0; i++)
		if (dev->data->tx_queue_state[i] == RTE_ETH_QUEUE_STATE_STARTED)
			ret = mana_txq_start(priv, dev->data->tx_queues[i]);
	if (ret == 0)
		ret = mana_rx_side_create(dev, intr);
	if (ret == 0 && intr)
		ret = mana_rx_intr_vec_enable(dev);
	if (ret != 0) {
		mana_rx_intr_vec_disable(dev);
		mana_queues_destroy(dev);
		if (!keep_states)
			mana_queue_states_stopped(dev);
		return ret;
	}
	rte_wmb();
	priv->dp = mana_datapath_pick(priv, true);
	dev->rx_pkt_burst = mana_datapath_rx(priv->dp, dev->data->scattered_rx);
	dev->tx_pkt_burst = mana_datapath_tx(priv->dp);
	/* Last: from here on, bursts of any process may run (mana_qgate.h). */
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		if (mana_rxq_receives(dev, i))
			mana_qgate_open(priv, true, i);
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		if (dev->data->tx_queue_state[i] == RTE_ETH_QUEUE_STATE_STARTED)
			mana_qgate_open(priv, false, i);
	priv->started = true;
	mana_link_update(dev, 0);
	return 0;
}

static int
mana_dev_start(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	int ret;

	rte_spinlock_recursive_lock(&priv->ctl_lock);
	ret = mana_recovery_start_check(priv);
	if (ret == 0)
		ret = mana_dev_start_locked(dev, false);
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	return ret;
}

int
mana_dev_stop_locked(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	struct rte_eth_link link = { 0 };

	dev->rx_pkt_burst = rte_eth_pkt_burst_dummy;
	dev->tx_pkt_burst = rte_eth_pkt_burst_dummy;
	/* No burst of any process is inside a queue once its gate is closed. */
	mana_qgate_close_all(priv);
	mana_rx_intr_vec_disable(dev);
	mana_queues_destroy(dev);
	/* No WQE is left to use a retired external memory region. */
	mana_mr_release_retired(priv);
	mana_queue_states_stopped(dev);
	priv->started = false;
	rte_eth_linkstatus_set(dev, &link);
	return 0;
}

static int
mana_dev_stop(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	int ret;

	rte_spinlock_recursive_lock(&priv->ctl_lock);
	ret = mana_dev_stop_locked(dev);
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	return ret;
}

/* ---- MTU, burst modes, unsupported features -------------------------- */

/*
 * The context died in a device reset whose fatal event the handler has not
 * read yet: every command on it fails EIO (hardware.md §17).
 */
static bool
mana_ctx_reset(struct mana_priv *priv)
{
	struct ibv_port_attr attr;

	return mana_vs_query_port(priv->ctx, priv->ib_port, &attr) == -EIO;
}

static int
mana_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct mana_priv *priv = mana_priv(dev);
	int ret;

	if (priv->ctx == NULL || priv->rec_state != MANA_REC_NONE) {
		PMD_DRV_LOG(ERR, "port %u: MTU %u: the device is being reset; set it once the "
			    "port has recovered (or after rte_eth_dev_reset())", priv->port_id,
			    mtu);
		return -EBUSY;
	}
	if (mtu > priv->max_mtu) {
		PMD_DRV_LOG(ERR, "port %u: MTU %u above the device limit %u", priv->port_id, mtu,
			    priv->max_mtu);
		return -EINVAL;
	}
	ret = mana_rxqs_hold_mtu(dev, mtu);
	if (ret != 0)
		return ret;
	ret = mana_vs_set_port_mtu(priv->ctx, priv->ib_port, mtu);
	if (ret != 0 && mana_ctx_reset(priv)) {
		PMD_DRV_LOG(ERR, "port %u: MTU %u: the device is being reset (its fatal event is "
			    "not handled yet); set it once the port has recovered (or after "
			    "rte_eth_dev_reset())", priv->port_id, mtu);
		return -EBUSY;
	}
	if (ret != 0) {
		PMD_DRV_LOG(ERR, "port %u: setting MTU %u: %s", priv->port_id, mtu, strerror(-ret));
		return ret;
	}
	priv->mtu_applied = mtu;
	return 0;
}

/*
 * A vPort has no multicast filter: every multicast frame reaching it is
 * delivered (hardware.md §16), so all-multicast mode is on from probe
 * (dev->data->all_multicast) and cannot be turned off.
 */
static int
mana_allmulticast_disable(struct rte_eth_dev *dev)
{
	PMD_DRV_LOG(ERR, "port %u: all-multicast mode cannot be disabled: the device has no "
		    "multicast filter and delivers every multicast frame (always on)",
		    dev->data->port_id);
	return -ENOTSUP;
}

static int
mana_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_burst_mode *mode)
{
	const struct mana_rxq *rxq = dev->data->rx_queues[qid];

	if (dev->data->scattered_rx && rxq != NULL)
		snprintf(mode->info, sizeof(mode->info),
			 "Scalar, scattered (%u SGEs, %u-byte frames), coalesced CQEs",
			 rxq->sge_k, rxq->frame_cap);
	else
		snprintf(mode->info, sizeof(mode->info), "%s, coalesced CQEs, bulk refill",
			 mana_datapath_mode_name(mana_priv(dev)->dp));
	return 0;
}

static int
mana_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_burst_mode *mode)
{
	struct mana_priv *priv = mana_priv(dev);
	const struct mana_txq *txq = dev->data->tx_queues[qid];
	uint64_t ol = txq != NULL ? txq->offloads : dev->data->dev_conf.txmode.offloads;

	snprintf(mode->info, sizeof(mode->info), "%s, CQE suppression %s%s",
		 mana_datapath_mode_name(priv->dp), priv->tx_cqe_suppress ? "on" : "off",
		 ol & RTE_ETH_TX_OFFLOAD_TCP_TSO ? ", TSO" : "");
	return 0;
}

/* ---- close ------------------------------------------------------------ */

/*
 * Software devices created by a probe, each with the state of the ports that
 * use it: a vdev naming a device another vdev created joins that state, so
 * the device goes away with the last port of either (primary process only;
 * probes and closes run on one thread at a time).
 */
static LIST_HEAD(, mana_shared) mana_shared_owners = LIST_HEAD_INITIALIZER(mana_shared_owners);

struct mana_shared *
mana_shared_new(struct mana_model *m)
{
	struct mana_shared *sh = rte_zmalloc("mana_shared", sizeof(*sh), 0);

	if (sh == NULL)
		return NULL;
	sh->refcnt = 1;
	sh->own_model = m;
	if (m != NULL)
		LIST_INSERT_HEAD(&mana_shared_owners, sh, link);
	return sh;
}

struct mana_shared *
mana_shared_of_model(const struct mana_model *m)
{
	struct mana_shared *sh;

	LIST_FOREACH(sh, &mana_shared_owners, link) {
		if (sh->own_model == m) {
			sh->refcnt++;
			return sh;
		}
	}
	return NULL;
}

void
mana_shared_put(struct mana_shared *sh)
{
	int ret;

	if (sh == NULL || --sh->refcnt > 0)
		return;
	if (sh->own_model != NULL) {
		LIST_REMOVE(sh, link);
		ret = mana_vs_model_destroy(sh->own_model);
		if (ret != 0)
			PMD_INIT_LOG(ERR, "destroying the software device: %s", strerror(-ret));
	}
	rte_free(sh);
}

/* The PDs and the context (a closed port, or a device reset). */
void
mana_port_close_ctx(struct mana_priv *priv)
{
	int ret;

	if (priv->parent_pd != NULL)
		mana_vs_dealloc_pd(priv->parent_pd);
	priv->parent_pd = NULL;
	if (priv->pd != NULL) {
		ret = mana_vs_dealloc_pd(priv->pd);
		if (ret != 0)
			PMD_INIT_LOG(ERR, "port %u: dealloc PD: %s", priv->port_id, strerror(-ret));
	}
	priv->pd = NULL;
	if (priv->ctx != NULL) {
		ret = mana_vs_close_device(priv->ctx);
		if (ret != 0)
			PMD_INIT_LOG(ERR, "port %u: close device: %s", priv->port_id,
				     strerror(-ret));
	}
	priv->ctx = NULL;
}

static void
mana_port_release(struct mana_priv *priv)
{
	mana_port_close_ctx(priv);
	mana_shared_put(priv->shared);
	priv->shared = NULL;
}

/*
 * One closer only (mana_portref.c): a close, or any control op, that finds
 * the port closing or closed returns -ENODEV without reading priv. No wait
 * for EAL's interrupt thread here: the event handler and the recovery alarm
 * hold no reference while an application callback runs (which may be a
 * second close, waiting for this one), and find the port closed afterwards.
 */
static int
mana_dev_close(struct rte_eth_dev *dev)
{
	struct mana_priv *priv;
	bool attached = dev->state == RTE_ETH_DEV_ATTACHED;
	uint16_t i;
	int ret;

	ret = mana_portref_close_begin(dev);
	if (ret != 0)
		return ret;
	priv = mana_priv(dev);
	rte_spinlock_recursive_lock(&priv->ctl_lock);
	if (priv->started)
		mana_dev_stop_locked(dev);
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		mana_rx_queue_release(dev, i);
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		mana_tx_queue_release(dev, i);
	mana_intr_teardown(dev);
	mana_mr_events_unregister(priv);
	mana_mr_release_all(priv);
	mana_port_release(priv);
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	/* A port that finished probing holds the IPC action (not one closed by a failed probe). */
	if (attached)
		mana_mp_put();
	mana_portref_close_end(dev);
	return 0;
}

/*
 * The ops that read priv, entered in the port's slot first (mana_portref.c):
 * one that runs while another thread closes the port finishes before the
 * close tears down; one that comes later is refused.
 */
#define MANA_GUARD(call, what) do { \
	int ret_ = mana_portref_enter(dev, what); \
	if (ret_ != 0) \
		return ret_; \
	ret_ = (call); \
	mana_portref_leave(dev); \
	return ret_; \
} while (0)

static int
mana_g_configure(struct rte_eth_dev *dev)
{
	MANA_GUARD(mana_dev_configure(dev), "configure");
}

static int
mana_g_start(struct rte_eth_dev *dev)
{
	MANA_GUARD(mana_dev_start(dev), "start");
}

static int
mana_g_stop(struct rte_eth_dev *dev)
{
	MANA_GUARD(mana_dev_stop(dev), "stop");
}

static int
mana_g_reset(struct rte_eth_dev *dev)
{
	MANA_GUARD(mana_dev_reset(dev), "reset");
}

static int
mana_g_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	MANA_GUARD(mana_dev_infos_get(dev, info), "info get");
}

static int
mana_g_link_update(struct rte_eth_dev *dev, int wait)
{
	MANA_GUARD(mana_link_update(dev, wait), "link update");
}

static int
mana_g_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	MANA_GUARD(mana_mtu_set(dev, mtu), "MTU set");
}

static int
mana_g_stats_reset(struct rte_eth_dev *dev)
{
	MANA_GUARD(mana_stats_reset(dev), "stats reset");
}

static int
mana_g_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xstats, unsigned int n)
{
	MANA_GUARD(mana_xstats_get(dev, xstats, n), "xstats get");
}

static int
mana_g_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names,
			unsigned int size)
{
	MANA_GUARD(mana_xstats_get_names(dev, names, size), "xstats names");
}

static int
mana_g_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket, const struct rte_eth_rxconf *conf,
		      struct rte_mempool *mp)
{
	MANA_GUARD(mana_rx_queue_setup(dev, qid, nb_desc, socket, conf, mp), "RX queue setup");
}

static int
mana_g_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket, const struct rte_eth_txconf *conf)
{
	MANA_GUARD(mana_tx_queue_setup(dev, qid, nb_desc, socket, conf), "TX queue setup");
}

static int
mana_g_rx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	MANA_GUARD(mana_rx_queue_start(dev, qid), "RX queue start");
}

static int
mana_g_rx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	MANA_GUARD(mana_rx_queue_stop(dev, qid), "RX queue stop");
}

static int
mana_g_tx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	MANA_GUARD(mana_tx_queue_start(dev, qid), "TX queue start");
}

static int
mana_g_tx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	MANA_GUARD(mana_tx_queue_stop(dev, qid), "TX queue stop");
}

static int
mana_g_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	MANA_GUARD(mana_rss_hash_update(dev, conf), "RSS hash update");
}

static int
mana_g_reta_update(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf,
		   uint16_t size)
{
	MANA_GUARD(mana_reta_update(dev, conf, size), "RETA update");
}

static int
mana_g_vlan_offload_set(struct rte_eth_dev *dev, int mask)
{
	MANA_GUARD(mana_vlan_offload_set(dev, mask), "VLAN offload set");
}

/* The readers too: a statistics poll racing a close must not read freed memory. */
#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)
static int
mana_g_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats,
		 struct eth_queue_stats *qstats)
{
	MANA_GUARD(mana_compat_stats_get(dev, stats, qstats), "stats get");
}
#else
static int
mana_g_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats)
{
	MANA_GUARD(mana_compat_stats_get(dev, stats), "stats get");
}
#endif

static int
mana_g_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	MANA_GUARD(mana_rss_hash_conf_get(dev, conf), "RSS hash get");
}

static int
mana_g_reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf,
		  uint16_t size)
{
	MANA_GUARD(mana_reta_query(dev, conf, size), "RETA query");
}

static int
mana_g_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_burst_mode *mode)
{
	MANA_GUARD(mana_rx_burst_mode_get(dev, qid, mode), "RX burst mode get");
}

static int
mana_g_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_burst_mode *mode)
{
	MANA_GUARD(mana_tx_burst_mode_get(dev, qid, mode), "TX burst mode get");
}

static int
mana_g_rx_intr_enable(struct rte_eth_dev *dev, uint16_t qid)
{
	MANA_GUARD(mana_rx_intr_enable(dev, qid), "RX interrupt enable");
}

static int
mana_g_rx_intr_disable(struct rte_eth_dev *dev, uint16_t qid)
{
	MANA_GUARD(mana_rx_intr_disable(dev, qid), "RX interrupt disable");
}

/* The queue info ops return nothing: refused, ethdev's zeroed answer stands. */
static void
mana_g_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_rxq_info *qinfo)
{
	if (mana_portref_enter(dev, "RX queue info get") != 0)
		return;
	mana_rxq_info_get(dev, qid, qinfo);
	mana_portref_leave(dev);
}

static void
mana_g_txq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_txq_info *qinfo)
{
	if (mana_portref_enter(dev, "TX queue info get") != 0)
		return;
	mana_txq_info_get(dev, qid, qinfo);
	mana_portref_leave(dev);
}

const struct eth_dev_ops mana_dev_ops = {
	.dev_configure = mana_g_configure,
	.dev_start = mana_g_start,
	.dev_stop = mana_g_stop,
	.dev_close = mana_dev_close,
	.dev_reset = mana_g_reset,
	.dev_infos_get = mana_g_infos_get,
	.dev_supported_ptypes_get = mana_compat_supported_ptypes,
	.link_update = mana_g_link_update,
	.mtu_set = mana_g_mtu_set,
	.stats_get = mana_g_stats_get,
	.stats_reset = mana_g_stats_reset,
	.xstats_get = mana_g_xstats_get,
	.xstats_get_names = mana_g_xstats_get_names,
	.xstats_reset = mana_g_stats_reset,
	.rx_queue_setup = mana_g_rx_queue_setup,
	.rx_queue_release = mana_rx_queue_release,
	.tx_queue_setup = mana_g_tx_queue_setup,
	.tx_queue_release = mana_tx_queue_release,
	.rx_queue_start = mana_g_rx_queue_start,
	.rx_queue_stop = mana_g_rx_queue_stop,
	.tx_queue_start = mana_g_tx_queue_start,
	.tx_queue_stop = mana_g_tx_queue_stop,
	.rx_queue_intr_enable = mana_g_rx_intr_enable,
	.rx_queue_intr_disable = mana_g_rx_intr_disable,
	.rxq_info_get = mana_g_rxq_info_get,
	.txq_info_get = mana_g_txq_info_get,
	.rx_burst_mode_get = mana_g_rx_burst_mode_get,
	.tx_burst_mode_get = mana_g_tx_burst_mode_get,
	.tx_done_cleanup = mana_tx_done_cleanup,
	.rss_hash_update = mana_g_rss_hash_update,
	.rss_hash_conf_get = mana_g_rss_hash_conf_get,
	.reta_update = mana_g_reta_update,
	.reta_query = mana_g_reta_query,
	.vlan_offload_set = mana_g_vlan_offload_set,
	/*
	 * No promiscuous/MAC filter ops: the device has none (-ENOTSUP). All-multicast is
	 * always on: no enable op (ethdev answers 0 while it is on), a disable op that refuses.
	 */
	.allmulticast_disable = mana_allmulticast_disable,
};

/*
 * The ethdev of port_id if it is a net_mana port with the primary's ops (a
 * secondary's attached ports have other ops), else NULL.
 */
struct rte_eth_dev *
mana_port_dev(uint16_t port_id)
{
	struct rte_eth_dev *dev;

	if (!rte_eth_dev_is_valid_port(port_id))
		return NULL;
	dev = &rte_eth_devices[port_id];
	if (dev->dev_ops != &mana_dev_ops || !mana_portref_is_live(dev) ||
	    dev->data->dev_private == NULL)
		return NULL;
	return dev;
}

/* ---- probe ------------------------------------------------------------ */

/*
 * Whether the rdma-core provider takes queues of `desc` entries. Before v49
 * it refuses more than 256 whatever the kernel reports, and nothing else
 * tells which provider is loaded: its file name carries a version only as
 * installed, and the replacement libmana's says 44 whatever it mirrors. So
 * create a CQ of that size and destroy it (hardware.md §2.5); the same
 * commit lifted the bound on CQs, SQs and RQs.
 */
static bool
mana_provider_takes(struct mana_priv *priv, uint32_t desc)
{
	struct ibv_cq *cq;
	int err;

	if (mana_set_buf_allocator(priv, SOCKET_ID_ANY) != 0)
		return false;
	cq = mana_vs_create_cq(priv->ctx, (int)desc, NULL, NULL, 0);
	if (cq != NULL) {
		err = mana_vs_destroy_cq(cq);
		if (err != 0)
			PMD_INIT_LOG(WARNING, "%s: destroy of the probe CQ: %s", priv->ibdev_name,
				     strerror(-err));
		return true;
	}
	err = errno;
	if (err == EINVAL)
		PMD_INIT_LOG(NOTICE, "%s: the device allows %u entries per queue, the rdma-core "
			     "provider %u (rdma-core < 49): rings limited to %u", priv->ibdev_name,
			     desc, GDMA_RC44_MAX_QUEUE_ENTRIES, GDMA_RC44_MAX_QUEUE_ENTRIES);
	else
		PMD_INIT_LOG(WARNING, "%s: a CQ of %u entries failed (%s): rings limited to %u",
			     priv->ibdev_name, desc, strerror(err), GDMA_RC44_MAX_QUEUE_ENTRIES);
	return false;
}

static int
mana_port_limits(struct mana_priv *priv)
{
	struct ibv_device_attr_ex attr;
	uint32_t desc;
	int ret;

	memset(&attr, 0, sizeof(attr));
	ret = mana_vs_query_device_ex(priv->ctx, NULL, &attr);
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "query_device: %s", strerror(-ret));
		return ret;
	}
	/*
	 * The kernel's bound (hardware.md §7.3), at most the deepest ring the
	 * driver is tested with, then the provider's (rdma-core < 49: 256).
	 */
	desc = RTE_MIN((uint32_t)attr.orig_attr.max_qp_wr, (uint32_t)attr.orig_attr.max_cqe);
	desc = RTE_MIN(desc, (uint32_t)MANA_MAX_DESC);
	if (desc > GDMA_RC44_MAX_QUEUE_ENTRIES && !mana_provider_takes(priv, desc))
		desc = GDMA_RC44_MAX_QUEUE_ENTRIES;
	if (desc < MANA_MIN_DESC) {
		PMD_INIT_LOG(ERR, "device allows %u queue entries; the driver needs %u", desc,
			     MANA_MIN_DESC);
		return -ENOTSUP;
	}
	priv->max_desc = rte_align32prevpow2(desc);
	priv->max_tx_sge = GDMA_MAX_TX_SGE;
	/* A started port holds one RAW QP per TX queue and one RSS QP (hardware.md §10). */
	if (attr.orig_attr.max_qp < 2) {
		PMD_INIT_LOG(ERR, "%s offers %d QP (max_qp); a port needs at least 2: a TX "
			     "queue and the RSS QP", priv->ibdev_name, attr.orig_attr.max_qp);
		return -ENOTSUP;
	}
	priv->max_qp = (uint32_t)attr.orig_attr.max_qp;
	priv->max_queues = RTE_MIN(priv->max_qp, (uint32_t)MANA_MAX_RXQ);
	/* The device reports no Ethernet MTU limit (IB enums, at most 4096): hardware.md §7.4. */
	priv->max_mtu = MANA_MAX_MTU;
	return 0;
}

int
mana_port_open(struct mana_priv *priv, struct ibv_device *ibdev)
{
	struct ibv_parent_domain_init_attr pattr = {
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.pd_context = (void *)(uintptr_t)priv->ib_port,
	};
	int ret;

	/*
	 * errno is saved before logging (rte_log may write to syslog and change
	 * it) and never 0, which the caller would take for success.
	 */
	priv->ctx = mana_vs_open_device(ibdev);
	if (priv->ctx == NULL) {
		ret = errno != 0 ? errno : EIO;
		PMD_INIT_LOG(ERR, "open %s: %s", mana_vs_device_name(ibdev), strerror(ret));
		return -ret;
	}
	ret = mana_port_limits(priv);
	if (ret != 0)
		return ret;
	/*
	 * The device's MTU, 0 when there is no netdev to ask (a software device
	 * without a PCI function): the first start then applies the port's.
	 */
	priv->mtu_applied = mana_sysfs_port_mtu(ibdev, priv->ib_port);
	priv->pd = mana_vs_alloc_pd(priv->ctx);
	if (priv->pd == NULL) {
		ret = errno != 0 ? errno : EIO;
		PMD_INIT_LOG(ERR, "alloc PD: %s", strerror(ret));
		return -ret;
	}
	pattr.pd = priv->pd;
	priv->parent_pd = mana_vs_alloc_parent_domain(priv->ctx, &pattr);
	if (priv->parent_pd == NULL) {
		ret = errno != 0 ? errno : EIO;
		PMD_INIT_LOG(ERR, "alloc parent domain: %s", strerror(ret));
		return -ret;
	}
	priv->model = mana_vs_model_of(priv->ctx);
	return 0;
}

/* Create the ethdev "<device>_port<ib_port>" for one vPort. */
int
mana_port_probe(struct rte_device *rdev, struct ibv_device *ibdev, uint8_t ib_port,
		const struct rte_ether_addr *mac, const struct mana_devargs *da,
		struct mana_shared *shared, int socket)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_dev *dev;
	struct mana_priv *priv;
	int ret;

	snprintf(name, sizeof(name), "%s_port%u", rdev->name, ib_port);
	dev = rte_eth_dev_allocate(name);
	if (dev == NULL) {
		PMD_INIT_LOG(ERR, "cannot allocate ethdev %s", name);
		return -ENOMEM;
	}
	priv = rte_zmalloc_socket("mana_priv", sizeof(*priv), RTE_CACHE_LINE_SIZE, socket);
	dev->data->mac_addrs = rte_zmalloc_socket("mana_mac", sizeof(*mac), 0, socket);
	if (priv == NULL || dev->data->mac_addrs == NULL) {
		rte_free(priv);
		rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	dev->data->dev_private = priv;
	mana_portref_live(dev);
	dev->device = rdev;
	dev->dev_ops = &mana_dev_ops;
	priv->dev_data = dev->data;
	priv->port_id = dev->data->port_id;
	priv->ib_port = ib_port;
	priv->socket = socket;
	priv->mac = *mac;
	priv->tx_cqe_suppress = da->tx_cqe_suppress;
	priv->recovery_manual = da->recovery_manual;
	priv->dp_want = da->datapath;
	priv->dp = mana_datapath_pick(priv, false);
	priv->recovery_timeout_ms = da->recovery_timeout_ms;
	rte_spinlock_recursive_init(&priv->ctl_lock);
	priv->shared = shared;
	shared->refcnt++;
	snprintf(priv->ibdev_name, sizeof(priv->ibdev_name), "%s", mana_vs_device_name(ibdev));
	rte_ether_addr_copy(mac, dev->data->mac_addrs);
	mana_mr_table_init(&priv->mr);
	memset(&priv->mr_ext, 0, sizeof(priv->mr_ext));
	mana_rss_init(priv);
	mana_qgates_init(priv);
	ret = mana_port_open(priv, ibdev);
	if (ret == 0)
		ret = mana_intr_setup(dev);
	if (ret == 0)
		ret = mana_mr_events_register(priv);
	/* IPC with secondaries; the attached port releases it in mana_dev_close(). */
	if (ret == 0)
		ret = mana_mp_get();
	if (ret != 0) {
		mana_dev_close(dev);
		rte_eth_dev_release_port(dev);
		return ret;
	}
	dev->data->numa_node = socket;
	dev->data->dev_flags |= RTE_ETH_DEV_INTR_LSC | RTE_ETH_DEV_INTR_RMV;
	/* Every multicast frame is delivered: the state says so (mana_allmulticast_disable). */
	dev->data->all_multicast = 1;
	dev->rx_pkt_burst = rte_eth_pkt_burst_dummy;
	dev->tx_pkt_burst = rte_eth_pkt_burst_dummy;
	dev->tx_pkt_prepare = mana_tx_prepare;
	dev->rx_queue_count = mana_rx_queue_count;
	dev->rx_descriptor_status = mana_rx_descriptor_status;
	dev->tx_descriptor_status = mana_tx_descriptor_status;
	rte_eth_dev_probing_finish(dev);
	PMD_INIT_LOG(INFO, "%s: %s (%s) port %u, MAC " RTE_ETHER_ADDR_PRT_FMT ", socket %d",
		     name, mana_vs_device_name(ibdev),
		     priv->model != NULL ? "software device" : "rdma-core", ib_port,
		     RTE_ETHER_ADDR_BYTES(mac), socket);
	return 0;
}

/*
 * Stop and close every ethdev created for rdev (vdev or PCI): none is left
 * behind. A port may still run here: EAL's bus cleanup at rte_exit() removes
 * devices that the application never stopped, and ethdev refuses to close a
 * started port.
 */
int
mana_dev_remove_all(struct rte_device *rdev)
{
	uint16_t port_id;
	int ret = 0;

	RTE_ETH_FOREACH_DEV_OF(port_id, rdev) {
		if (rte_eth_devices[port_id].data->dev_started &&
		    rte_eth_dev_stop(port_id) != 0)
			ret = -EIO;
		if (rte_eth_dev_close(port_id) != 0)
			ret = -EIO;
	}
	return ret;
}

static bool
mana_mac_selected(const struct mana_devargs *da, const struct rte_ether_addr *mac)
{
	unsigned int i;

	if (da->nmac == 0)
		return true;
	for (i = 0; i < da->nmac; i++)
		if (rte_is_same_ether_addr(&da->mac[i], mac))
			return true;
	return false;
}

/* Port count of ibdev, after the device-type check of hardware.md §7.3. */
static int
mana_device_ports(struct ibv_device *ibdev, struct ibv_context **ctx_out)
{
	struct ibv_device_attr_ex attr;
	struct ibv_context *ctx;
	int ret;

	ctx = mana_vs_open_device(ibdev);
	if (ctx == NULL) {
		/* Saved before logging; never 0 (0 ports would read as "skipped"). */
		ret = errno != 0 ? errno : EIO;
		PMD_INIT_LOG(ERR, "open %s: %s", mana_vs_device_name(ibdev), strerror(ret));
		return -ret;
	}
	memset(&attr, 0, sizeof(attr));
	ret = mana_vs_query_device_ex(ctx, NULL, &attr);
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "query %s: %s", mana_vs_device_name(ibdev), strerror(-ret));
		mana_vs_close_device(ctx);
		return ret;
	}
	if (attr.orig_attr.vendor_part_id != 0 &&
	    (attr.orig_attr.vendor_part_id != 2 || attr.raw_packet_caps == 0)) {
		PMD_INIT_LOG(INFO, "%s is not a MANA Ethernet device (part %u), skipped",
			     mana_vs_device_name(ibdev), attr.orig_attr.vendor_part_id);
		mana_vs_close_device(ctx);
		return 0;
	}
	*ctx_out = ctx;
	return attr.orig_attr.phys_port_cnt;
}

/* The port (of any vdev or PCI function) driving IB port ib_port of device ibdev, or NULL. */
static const struct rte_eth_dev *
mana_vport_holder(const char *ibdev, uint8_t ib_port)
{
	const struct mana_priv *priv;
	struct rte_eth_dev *dev;
	uint16_t pid;

	for (pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		dev = mana_port_dev(pid);
		if (dev == NULL)
			continue;
		priv = mana_priv(dev);
		if (priv->ib_port == ib_port && strcmp(priv->ibdev_name, ibdev) == 0)
			return dev;
	}
	return NULL;
}

/*
 * One ethdev per vPort of ibdev whose MAC is selected by mac= (all without
 * mac=). MACs come from sysfs (<ibdev_path>/device/net/<if>/address of the
 * netdev whose dev_port is port - 1) or, on a software device reached
 * without a PCI function, from the model. Returns 0, 1 when ibdev is no MANA
 * Ethernet device with ports (nothing logged but at INFO: the caller may try
 * another device), or a negative errno after one line saying why.
 */
int
mana_probe_ports(struct rte_device *rdev, struct ibv_device *ibdev,
		 const struct mana_devargs *da, struct mana_shared *shared, int socket,
		 bool sysfs_macs)
{
	const struct rte_eth_dev *holder;
	struct ibv_context *ctx = NULL;
	struct rte_ether_addr mac;
	struct mana_model *m;
	int nports, p, ret, created = 0;

	nports = mana_device_ports(ibdev, &ctx);
	if (nports <= 0)
		return nports < 0 ? nports : 1;
	m = mana_vs_model_of(ctx);
	mana_vs_close_device(ctx);
	for (p = 1; p <= nports && p <= MANA_MAX_PORTS; p++) {
		if (!sysfs_macs && m != NULL)
			ret = mana_vs_model_api()->get_mac(m, p - 1, mac.addr_bytes);
		else
			ret = mana_sysfs_port_mac(ibdev, p, &mac);
		if (ret != 0) {
			PMD_INIT_LOG(ERR, "%s port %d: no MAC address found", rdev->name, p);
			return ret;
		}
		if (!mana_mac_selected(da, &mac))
			continue;
		/* Two ports on one vPort: one MAC, one set of queues; the second would fail. */
		holder = mana_vport_holder(mana_vs_device_name(ibdev), (uint8_t)p);
		if (holder != NULL) {
			PMD_INIT_LOG(ERR, "%s: vPort %d (MAC " RTE_ETHER_ADDR_PRT_FMT ") of %s is "
				     "already bound by %s (port %u): one port per vPort",
				     rdev->name, p - 1, RTE_ETHER_ADDR_BYTES(&mac),
				     mana_vs_device_name(ibdev), holder->device->name,
				     holder->data->port_id);
			return -EBUSY;
		}
		ret = mana_port_probe(rdev, ibdev, p, &mac, da, shared, socket);
		if (ret != 0)
			return ret;
		created++;
	}
	if (created == 0) {
		PMD_INIT_LOG(ERR, "%s: none of the %d vPorts of %s has a MAC given by mac=",
			     rdev->name, nports, mana_vs_device_name(ibdev));
		return -ENODEV;
	}
	return 0;
}
