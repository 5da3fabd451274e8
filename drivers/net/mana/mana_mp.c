/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Multi-process support: secondary processes (dpdk-proc-info, dpdk-pdump,
 * testpmd --proc-type=secondary) attach to the ports of a primary.
 *
 * A secondary issues no verbs call: every verbs object, the software device
 * and the ibv_context live in the primary's private heap. What it shares is
 * DPDK memory: dev->data, the port's mana_priv and the queue structures with
 * their rings and counters. A secondary therefore reads counters and device
 * information directly and asks the primary, over rte_mp IPC (action
 * "net_mana_mp"), for everything else:
 *
 *   PORTS       secondary -> primary  IB ports of the ethdevs of a device
 *   CMD_FD      secondary -> primary  the port's ibv_context cmd_fd (SCM_RIGHTS)
 *   DEV_STATS   secondary -> primary  the software device's vPort counters
 *   REG_MEMPOOL secondary -> primary  register a mempool in the port's MR table
 *   START_RXTX  primary -> secondaries  the port started: datapath on
 *   STOP_RXTX   primary -> secondaries  the port stops: datapath off (sync)
 *
 * The primary notifies only ports that some secondary attached
 * (mana_priv.mp_secondaries), so a secondary without this driver never makes
 * it wait for the IPC timeout.
 *
 * Secondary datapath (rx/tx burst): the queues ring the doorbell page whose
 * address the primary stored in them. A secondary maps the port's cmd_fd
 * page (offset 0: the context's doorbell page, contract 5.1) at that same
 * virtual address, so the burst functions run unchanged. This needs one
 * doorbell page per context (hardware, or the software device with
 * doorbell=shared); with per-object pages (the software device's default,
 * contract rule 2) the pages are private to the primary and the secondary
 * refuses to start its datapath (burst functions stay dummies; logged).
 *
 * Per-process state (the mapping) lives in dev->process_private (malloc).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mempool.h>
#include <rte_spinlock.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

#define MANA_MP_NAME		"net_mana_mp"
#define MANA_MP_TIMEOUT_S	5
#define MANA_DB_PAGE_SIZE	4096

enum mana_mp_type {
	MANA_MP_PORTS = 1,
	MANA_MP_CMD_FD,
	MANA_MP_DEV_STATS,
	MANA_MP_REG_MEMPOOL,
	MANA_MP_START_RXTX,
	MANA_MP_STOP_RXTX,
};

struct mana_mp_param {
	uint32_t type;
	uint16_t port_id;
	int32_t result;		/* reply: 0 or a negative errno */
	union {
		char dev_name[RTE_DEV_NAME_MAX_LEN];	/* PORTS request */
		struct {
			uint8_t n;
			uint8_t ib_port[MANA_MAX_PORTS];
		} ports;				/* PORTS reply */
		struct mana_model_port_stats stats;	/* DEV_STATS reply */
		uint64_t mempool;			/* REG_MEMPOOL: pool address */
	} u;
};

_Static_assert(sizeof(struct mana_mp_param) <= RTE_MP_MAX_PARAM_LEN,
	       "mana IPC message larger than an rte_mp message");

/* Process-local: ports of this process holding the IPC action. */
static unsigned int mana_mp_users;
static rte_spinlock_t mana_mp_lock = RTE_SPINLOCK_INITIALIZER;

static const struct eth_dev_ops mana_dev_secondary_ops;

static struct mana_mp_param *
mp_msg_init(struct rte_mp_msg *msg, enum mana_mp_type type, uint16_t port_id)
{
	struct mana_mp_param *p = (struct mana_mp_param *)msg->param;

	memset(msg, 0, sizeof(*msg));
	strlcpy(msg->name, MANA_MP_NAME, sizeof(msg->name));
	msg->len_param = sizeof(*p);
	p->type = type;
	p->port_id = port_id;
	return p;
}

/* A port of this driver in this process (ops of the process's kind). */
static struct rte_eth_dev *
mp_port(uint16_t port_id, const struct eth_dev_ops *ops)
{
	struct rte_eth_dev *dev;

	if (!rte_eth_dev_is_valid_port(port_id))
		return NULL;
	dev = &rte_eth_devices[port_id];
	if (dev->dev_ops != ops || dev->data->dev_private == NULL)
		return NULL;
	return dev;
}

/* ---- primary side ------------------------------------------------------ */

static int
mp_ports_of(const char *dev_name, struct mana_mp_param *res)
{
	struct rte_eth_dev *dev;
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid) {
		dev = mp_port(pid, &mana_dev_ops);
		if (dev == NULL || dev->device == NULL ||
		    strcmp(dev->device->name, dev_name) != 0 || res->u.ports.n >= MANA_MAX_PORTS)
			continue;
		res->u.ports.ib_port[res->u.ports.n++] = mana_priv(dev)->ib_port;
	}
	return res->u.ports.n > 0 ? 0 : -ENODEV;
}

struct mp_pool_find {
	uint64_t addr;
	struct rte_mempool *mp;
};

static void
mp_pool_find_cb(struct rte_mempool *mp, void *arg)
{
	struct mp_pool_find *f = arg;

	if ((uint64_t)(uintptr_t)mp == f->addr)
		f->mp = mp;
}

/* Register a mempool named by address: only a pool that exists here. */
static int
mp_reg_mempool(struct mana_priv *priv, uint64_t addr)
{
	struct mp_pool_find f = { .addr = addr, .mp = NULL };

	rte_mempool_walk(mp_pool_find_cb, &f);
	if (f.mp == NULL) {
		PMD_DRV_LOG(ERR, "port %u: a secondary asked to register an unknown mempool",
			    priv->port_id);
		return -ENOENT;
	}
	return mana_mr_register_mempool(priv, f.mp);
}

static int
mp_primary_handle(const struct rte_mp_msg *msg, const void *peer)
{
	const struct mana_mp_param *req = (const struct mana_mp_param *)msg->param;
	struct rte_eth_dev *dev = NULL;
	struct mana_mp_param *res;
	struct mana_priv *priv;
	struct rte_mp_msg rep;

	if (msg->len_param != sizeof(*req)) {
		PMD_DRV_LOG(ERR, "IPC message of %d bytes, expected %zu", msg->len_param,
			    sizeof(*req));
		return -EINVAL;
	}
	res = mp_msg_init(&rep, req->type, req->port_id);
	if (req->type != MANA_MP_PORTS) {
		dev = mp_port(req->port_id, &mana_dev_ops);
		if (dev == NULL) {
			res->result = -ENODEV;
			return rte_mp_reply(&rep, peer);
		}
	}
	priv = dev != NULL ? mana_priv(dev) : NULL;
	switch (req->type) {
	case MANA_MP_PORTS:
		if (memchr(req->u.dev_name, '\0', sizeof(req->u.dev_name)) == NULL)
			res->result = -EINVAL;
		else
			res->result = mp_ports_of(req->u.dev_name, res);
		break;
	case MANA_MP_CMD_FD:
		if (priv->ctx == NULL || priv->ctx->cmd_fd < 0) {
			res->result = -ENODEV;
			break;
		}
		rep.num_fds = 1;
		rep.fds[0] = priv->ctx->cmd_fd;
		break;
	case MANA_MP_DEV_STATS:
		if (priv->model == NULL)
			res->result = -ENOTSUP;
		else
			res->result = mana_model_port_stats(priv->model, priv->ib_port - 1,
							    &res->u.stats);
		break;
	case MANA_MP_REG_MEMPOOL:
		res->result = mp_reg_mempool(priv, req->u.mempool);
		break;
	default:
		PMD_DRV_LOG(ERR, "port %u: unknown IPC request %u", req->port_id, req->type);
		res->result = -EINVAL;
		break;
	}
	return rte_mp_reply(&rep, peer);
}

/* Tell the secondaries that attached the port to start/stop their datapath. */
void
mana_mp_notify_rxtx(struct rte_eth_dev *dev, bool start)
{
	struct timespec ts = { .tv_sec = MANA_MP_TIMEOUT_S, .tv_nsec = 0 };
	struct mana_priv *priv = mana_priv(dev);
	const struct mana_mp_param *res;
	struct rte_mp_reply rep;
	struct rte_mp_msg req;
	int i;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY ||
	    __atomic_load_n(&priv->mp_secondaries, __ATOMIC_ACQUIRE) == 0)
		return;
	mp_msg_init(&req, start ? MANA_MP_START_RXTX : MANA_MP_STOP_RXTX, priv->port_id);
	if (rte_mp_request_sync(&req, &rep, &ts) != 0) {
		if (rte_errno != ENOTSUP)
			PMD_DRV_LOG(ERR, "port %u: %s notification to secondaries failed: %s",
				    priv->port_id, start ? "start" : "stop",
				    rte_strerror(rte_errno));
		return;
	}
	if (rep.nb_received != rep.nb_sent)
		PMD_DRV_LOG(WARNING, "port %u: %d of %d processes answered the %s notification",
			    priv->port_id, rep.nb_received, rep.nb_sent,
			    start ? "start" : "stop");
	for (i = 0; i < rep.nb_received; i++) {
		res = (const struct mana_mp_param *)rep.msgs[i].param;
		if (res->result != 0)
			PMD_DRV_LOG(WARNING, "port %u: a secondary could not %s its datapath: %s",
				    priv->port_id, start ? "start" : "stop",
				    strerror(-res->result));
	}
	free(rep.msgs);
}

/* ---- secondary side: requests ------------------------------------------ */

/* One request to the primary; the reply is copied to *out (fds closed unless wanted). */
static int
mp_request(struct rte_mp_msg *req, struct mana_mp_param *out, int *fd)
{
	struct timespec ts = { .tv_sec = MANA_MP_TIMEOUT_S, .tv_nsec = 0 };
	const struct mana_mp_param *res;
	struct rte_mp_msg *m;
	struct rte_mp_reply rep;
	int i, ret;

	if (rte_mp_request_sync(req, &rep, &ts) != 0)
		return rte_errno == ENOTSUP ? -ENOTSUP : -EIO;
	if (rep.nb_received != 1) {
		free(rep.msgs);
		return -EPROTO;
	}
	m = &rep.msgs[0];
	res = (const struct mana_mp_param *)m->param;
	ret = m->len_param == sizeof(*res) ? res->result : -EPROTO;
	if (ret == 0 && out != NULL)
		*out = *res;
	for (i = 0; i < m->num_fds; i++) {
		if (ret == 0 && fd != NULL && *fd < 0)
			*fd = m->fds[i];
		else
			close(m->fds[i]);
	}
	free(rep.msgs);
	return ret;
}

int
mana_mp_req_dev_stats(struct mana_priv *priv, struct mana_model_port_stats *st)
{
	struct mana_mp_param res;
	struct rte_mp_msg req;
	int ret;

	mp_msg_init(&req, MANA_MP_DEV_STATS, priv->port_id);
	ret = mp_request(&req, &res, NULL);
	if (ret == 0)
		*st = res.u.stats;
	return ret;
}

int
mana_mp_req_reg_mempool(struct mana_priv *priv, struct rte_mempool *mp)
{
	struct mana_mp_param *p;
	struct rte_mp_msg req;
	int ret;

	p = mp_msg_init(&req, MANA_MP_REG_MEMPOOL, priv->port_id);
	p->u.mempool = (uint64_t)(uintptr_t)mp;
	ret = mp_request(&req, NULL, NULL);
	if (ret != 0)
		PMD_DRV_LOG(ERR, "port %u: primary could not register mempool %s: %s",
			    priv->port_id, mp->name, strerror(-ret));
	return ret;
}

/* ---- secondary side: datapath ------------------------------------------ */

/*
 * The one doorbell page address every queue of the port rings, or NULL (and
 * *mixed) when queues use different pages (per-object doorbells).
 */
static uint8_t *
mp_port_db_page(struct rte_eth_dev *dev, bool *mixed)
{
	const struct mana_txq *txq;
	const struct mana_rxq *rxq;
	uint8_t *page = NULL, *q;
	uint16_t i, n = dev->data->nb_tx_queues + dev->data->nb_rx_queues;

	*mixed = false;
	for (i = 0; i < n; i++) {
		if (i < dev->data->nb_tx_queues) {
			txq = dev->data->tx_queues[i];
			q = txq != NULL ? txq->db_page : NULL;
		} else {
			rxq = dev->data->rx_queues[i - dev->data->nb_tx_queues];
			q = rxq != NULL ? rxq->db_page : NULL;
		}
		if (q == NULL)
			continue;
		if (page != NULL && q != page)
			*mixed = true;
		page = q;
	}
	return *mixed ? NULL : page;
}

/*
 * Map the port's doorbell page (cmd_fd offset 0, from the primary) at the
 * address the queues hold. Caller holds mana_mp_lock.
 */
static int
mp_map_doorbell(struct rte_eth_dev *dev, struct mana_proc_priv *pp)
{
	struct mana_priv *priv = mana_priv(dev);
	struct rte_mp_msg req;
	uint8_t *page;
	bool mixed;
	void *va;
	int fd = -1, ret;

	page = mp_port_db_page(dev, &mixed);
	if (page == NULL) {
		/* Expected in a secondary that only reads counters (dpdk-proc-info): NOTICE. */
		PMD_DRV_LOG(NOTICE, "port %u: %s: no datapath in this secondary process "
			    "(software device: use doorbell=shared)", priv->port_id,
			    mixed ? "every queue has its own doorbell page" :
				    "no queue has a doorbell page");
		return -ENOTSUP;
	}
	if (pp->db_map == page)
		return 0;
	if (pp->db_map != NULL) {
		munmap(pp->db_map, MANA_DB_PAGE_SIZE);
		pp->db_map = NULL;
	}
	mp_msg_init(&req, MANA_MP_CMD_FD, priv->port_id);
	ret = mp_request(&req, NULL, &fd);
	if (ret == 0 && fd < 0)
		ret = -EPROTO;
	if (ret != 0) {
		PMD_DRV_LOG(ERR, "port %u: no cmd_fd from the primary: %s", priv->port_id,
			    strerror(-ret));
		return ret;
	}
	va = mmap(page, MANA_DB_PAGE_SIZE, PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	ret = va == MAP_FAILED ? -errno : 0;
	close(fd);
	if (ret == 0 && va != page) {
		/* Kernels before 4.17 take MAP_FIXED_NOREPLACE as a hint. */
		munmap(va, MANA_DB_PAGE_SIZE);
		ret = -EEXIST;
	}
	if (ret != 0) {
		PMD_DRV_LOG(ERR, "port %u: cannot map the doorbell page at %p (the primary's "
			    "address) in this process: %s", priv->port_id, (void *)page,
			    strerror(-ret));
		return ret;
	}
	pp->db_map = page;
	return 0;
}

static void
mp_set_bursts(struct rte_eth_dev *dev, bool on)
{
	struct rte_eth_fp_ops *fp = &rte_eth_fp_ops[dev->data->port_id];

	dev->rx_pkt_burst = on ? mana_rx_burst : rte_eth_pkt_burst_dummy;
	dev->tx_pkt_burst = on ? mana_tx_burst : rte_eth_pkt_burst_dummy;
	/* Ethdev copied them at attach; the burst calls read these copies. */
	if (dev->state == RTE_ETH_DEV_ATTACHED) {
		fp->rx_pkt_burst = dev->rx_pkt_burst;
		fp->tx_pkt_burst = dev->tx_pkt_burst;
		fp->rxq.data = dev->data->rx_queues;
		fp->txq.data = dev->data->tx_queues;
	}
	rte_mb();
}

/* Start or stop this secondary's datapath on a port. Caller holds mana_mp_lock. */
static int
mp_datapath(struct rte_eth_dev *dev, bool start)
{
	struct mana_proc_priv *pp = dev->process_private;
	int ret = 0;

	if (start)
		ret = mp_map_doorbell(dev, pp);
	mp_set_bursts(dev, start && ret == 0);
	return ret;
}

static int
mp_secondary_handle(const struct rte_mp_msg *msg, const void *peer)
{
	const struct mana_mp_param *req = (const struct mana_mp_param *)msg->param;
	struct rte_eth_dev *dev;
	struct mana_mp_param *res;
	struct rte_mp_msg rep;

	if (msg->len_param != sizeof(*req))
		return -EINVAL;
	res = mp_msg_init(&rep, req->type, req->port_id);
	if (req->type != MANA_MP_START_RXTX && req->type != MANA_MP_STOP_RXTX) {
		res->result = -EINVAL;
		return rte_mp_reply(&rep, peer);
	}
	rte_spinlock_lock(&mana_mp_lock);
	dev = mp_port(req->port_id, &mana_dev_secondary_ops);
	/* A port this process did not attach: nothing to do. */
	if (dev != NULL && dev->process_private != NULL)
		res->result = mp_datapath(dev, req->type == MANA_MP_START_RXTX);
	rte_spinlock_unlock(&mana_mp_lock);
	PMD_DRV_LOG(INFO, "port %u: datapath %s in this secondary (%d)", req->port_id,
		    req->type == MANA_MP_START_RXTX ? "started" : "stopped", res->result);
	return rte_mp_reply(&rep, peer);
}

/* ---- IPC action, per process ------------------------------------------- */

/* A port of this process starts using the IPC action. */
int
mana_mp_get(void)
{
	bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	int ret = 0;

	rte_spinlock_lock(&mana_mp_lock);
	if (mana_mp_users == 0) {
		ret = rte_mp_action_register(MANA_MP_NAME, primary ? mp_primary_handle :
							     mp_secondary_handle);
		/* No IPC at all (--in-memory, --no-shconf): a primary works alone. */
		if (ret != 0 && rte_errno == ENOTSUP && primary)
			ret = 0;
		else if (ret != 0)
			ret = -rte_errno;
	}
	if (ret == 0)
		mana_mp_users++;
	rte_spinlock_unlock(&mana_mp_lock);
	if (ret != 0)
		PMD_INIT_LOG(ERR, "registering IPC action %s: %s", MANA_MP_NAME,
			     strerror(-ret));
	return ret;
}

void
mana_mp_put(void)
{
	rte_spinlock_lock(&mana_mp_lock);
	if (mana_mp_users > 0 && --mana_mp_users == 0)
		rte_mp_action_unregister(MANA_MP_NAME);
	rte_spinlock_unlock(&mana_mp_lock);
}

/* ---- secondary side: ports --------------------------------------------- */

static int
mana_link_update_secondary(struct rte_eth_dev *dev, int wait)
{
	/* dev->data->dev_link is the primary's, kept current by its event handler. */
	RTE_SET_USED(dev);
	RTE_SET_USED(wait);
	return 0;
}

/* Releases only what this process owns: the device is the primary's. */
static int
mana_dev_close_secondary(struct rte_eth_dev *dev)
{
	struct mana_proc_priv *pp = dev->process_private;
	struct mana_priv *priv = dev->data->dev_private;

	rte_spinlock_lock(&mana_mp_lock);
	mp_set_bursts(dev, false);
	dev->process_private = NULL;
	rte_spinlock_unlock(&mana_mp_lock);
	if (pp != NULL) {
		if (pp->db_map != NULL)
			munmap(pp->db_map, MANA_DB_PAGE_SIZE);
		free(pp);
	}
	/* NULL once the primary released the port. */
	if (priv != NULL)
		__atomic_sub_fetch(&priv->mp_secondaries, 1, __ATOMIC_RELEASE);
	mana_mp_put();
	return 0;
}

static const struct eth_dev_ops mana_dev_secondary_ops = {
	.dev_close = mana_dev_close_secondary,
	.dev_infos_get = mana_dev_infos_get,
	.dev_supported_ptypes_get = mana_supported_ptypes,
	.link_update = mana_link_update_secondary,
	.stats_get = mana_stats_get,
	.stats_reset = mana_stats_reset,
	.xstats_get = mana_xstats_get,
	.xstats_get_names = mana_xstats_get_names,
	.xstats_reset = mana_stats_reset,
	.rxq_info_get = mana_rxq_info_get,
	.txq_info_get = mana_txq_info_get,
};

static int
mp_attach_port(struct rte_device *rdev, uint8_t ib_port)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	struct mana_proc_priv *pp;
	struct rte_eth_dev *dev;
	struct mana_priv *priv;

	snprintf(name, sizeof(name), "%s_port%u", rdev->name, ib_port);
	dev = rte_eth_dev_attach_secondary(name);
	if (dev == NULL)
		return -ENODEV;
	pp = calloc(1, sizeof(*pp));
	if (pp == NULL) {
		rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	priv = dev->data->dev_private;
	dev->device = rdev;
	dev->dev_ops = &mana_dev_secondary_ops;
	dev->tx_pkt_prepare = mana_tx_prepare;
	dev->rx_queue_count = mana_rx_queue_count;
	dev->rx_descriptor_status = mana_rx_descriptor_status;
	dev->tx_descriptor_status = mana_tx_descriptor_status;
	/* Counted (and the action registered) before the started check: no START is missed. */
	__atomic_add_fetch(&priv->mp_secondaries, 1, __ATOMIC_ACQ_REL);
	rte_spinlock_lock(&mana_mp_lock);
	dev->process_private = pp;
	if (dev->data->dev_started)
		mp_datapath(dev, true);
	else
		mp_set_bursts(dev, false);
	rte_spinlock_unlock(&mana_mp_lock);
	rte_eth_dev_probing_finish(dev);
	/* probing_finish copied the bursts; a START or STOP meanwhile is applied again. */
	rte_spinlock_lock(&mana_mp_lock);
	mp_set_bursts(dev, dev->rx_pkt_burst == mana_rx_burst);
	rte_spinlock_unlock(&mana_mp_lock);
	PMD_INIT_LOG(INFO, "%s: attached (port %u, secondary process)", name,
		     dev->data->port_id);
	return 0;
}

/* Secondary probe: attach every ethdev the primary created for rdev. */
int
mana_mp_secondary_probe(struct rte_device *rdev)
{
	struct mana_mp_param res, *p;
	struct rte_mp_msg req;
	unsigned int i;
	int ret;

	p = mp_msg_init(&req, MANA_MP_PORTS, RTE_MAX_ETHPORTS);
	if (strlcpy(p->u.dev_name, rdev->name, sizeof(p->u.dev_name)) >= sizeof(p->u.dev_name))
		return -ENAMETOOLONG;
	ret = mana_mp_get();
	if (ret != 0)
		return ret;
	ret = mp_request(&req, &res, NULL);
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "%s: the primary process reports no port of this device: %s",
			     rdev->name, strerror(-ret));
		mana_mp_put();
		return ret;
	}
	for (i = 0; i < res.u.ports.n && i < MANA_MAX_PORTS && ret == 0; i++) {
		ret = mana_mp_get();
		if (ret == 0) {
			ret = mp_attach_port(rdev, res.u.ports.ib_port[i]);
			if (ret != 0)
				mana_mp_put();
		}
	}
	if (ret != 0)
		mana_mp_secondary_remove(rdev);
	mana_mp_put();	/* the probe's own reference */
	return ret;
}

/* Secondary remove: close this process's view of the ports; the device is untouched. */
int
mana_mp_secondary_remove(struct rte_device *rdev)
{
	uint16_t port_id;
	int ret = 0;

	RTE_ETH_FOREACH_DEV_OF(port_id, rdev)
		if (rte_eth_dev_close(port_id) != 0)
			ret = -EIO;
	return ret;
}
