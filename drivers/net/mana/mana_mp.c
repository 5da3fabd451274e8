/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Multi-process support: secondary processes (testpmd --proc-type=secondary,
 * dpdk-proc-info, dpdk-pdump, ...) attach to the ports of a primary, read
 * them and run their datapath on the queues the application gives them.
 *
 * A secondary issues no verbs call: every verbs object, the software device
 * and the ibv_context live in the primary's private heap. What it shares is
 * DPDK memory: dev->data, the port's mana_priv, the queue structures, their
 * rings (hugepage memory from the manadv allocator) and the queue gates. It
 * asks the primary, over rte_mp IPC (action "net_mana_pmd_mp", registered
 * by the primary), for the rest:
 *
 *   PORTS       IB ports of the ethdevs of a device (to attach by name)
 *   DEV_STATS   the software device's vPort counters
 *   CMD_FD      the context's cmd_fd (the reply carries it, SCM_RIGHTS) and
 *               ctx_gen: the secondary maps the doorbell pages (mana_mp_rxtx.c)
 *   CREATE_MR   register a mempool by name (an MR miss in a secondary)
 *
 * The secondary's bursts run inside the queue gates (mana_qgate.h), so the
 * primary's stop, reconfigure or close needs no message to the secondaries.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mempool.h>
#include <rte_spinlock.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

#define MANA_MP_NAME		"net_mana_pmd_mp"	/* not DPDK net/mana's "net_mana_mp" */
#define MANA_MP_TIMEOUT_S	5

/* The device counters do not fit one message: they travel in slices of this many. */
#define MANA_MP_STATS_CHUNK	24
#define MANA_MP_STATS_N		(sizeof(struct mana_model_port_stats) / sizeof(uint64_t))

enum mana_mp_type {
	MANA_MP_PORTS = 1,
	MANA_MP_DEV_STATS,
	MANA_MP_CMD_FD,
	MANA_MP_CREATE_MR,
	MANA_MP_CREATE_MR_EXT,
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
		struct {
			uint16_t first;			/* request: first counter */
			uint16_t n;			/* reply: counters in v */
			uint64_t v[MANA_MP_STATS_CHUNK];
		} stats;	/* DEV_STATS: a slice of struct mana_model_port_stats */
		uint32_t ctx_gen;			/* CMD_FD reply (the fd: fds[0]) */
		char pool[RTE_MEMPOOL_NAMESIZE];	/* CREATE_MR request */
		struct {
			uint64_t addr;
			uint32_t len;
		} ext;					/* CREATE_MR_EXT request */
	} u;
};

_Static_assert(sizeof(struct mana_mp_param) <= RTE_MP_MAX_PARAM_LEN,
	       "mana IPC message larger than an rte_mp message");

/* Process-local: ports of this (primary) process holding the IPC action. */
static unsigned int mana_mp_users;
static rte_spinlock_t mana_mp_lock = RTE_SPINLOCK_INITIALIZER;

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

/* ---- primary side ------------------------------------------------------ */

static int
mp_ports_of(const char *dev_name, struct mana_mp_param *res)
{
	struct rte_eth_dev *dev;
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid) {
		/* Entered (mana_portref.c): a port closing on another thread is skipped. */
		dev = mana_port_dev(pid);
		if (dev == NULL || mana_portref_enter(dev, NULL) != 0)
			continue;
		if (dev->device != NULL && strcmp(dev->device->name, dev_name) == 0 &&
		    res->u.ports.n < MANA_MAX_PORTS)
			res->u.ports.ib_port[res->u.ports.n++] = mana_priv(dev)->ib_port;
		mana_portref_leave(dev);
	}
	return res->u.ports.n > 0 ? 0 : -ENODEV;
}

/* Counters first.. of the port's vPort, as many as one reply holds. */
static int
mp_dev_stats_slice(struct mana_priv *priv, uint16_t first, struct mana_mp_param *res)
{
	struct mana_model_port_stats st;
	const uint64_t *v = (const uint64_t *)&st;
	unsigned int n;
	int ret;

	if (priv->model == NULL)
		return -ENOTSUP;
	if (first >= MANA_MP_STATS_N)
		return -EINVAL;
	ret = mana_vs_model_api()->port_stats(priv->model, priv->ib_port - 1, &st);
	if (ret != 0)
		return ret;
	n = RTE_MIN(MANA_MP_STATS_N - first, (size_t)MANA_MP_STATS_CHUNK);
	memcpy(res->u.stats.v, v + first, n * sizeof(uint64_t));
	res->u.stats.first = first;
	res->u.stats.n = n;
	return 0;
}

/*
 * A copy of the context's cmd_fd (closed once the reply is sent) and its
 * generation, taken under ctl_lock so that a reset cannot close the context
 * meanwhile. The IPC thread never waits for the lock: while a reset or a
 * control call holds it, or while there is no context, the answer is -EAGAIN
 * and the secondary asks again.
 */
static int
mp_cmd_fd(struct mana_priv *priv, struct rte_mp_msg *rep, struct mana_mp_param *res)
{
	int fd = -1;

	if (rte_spinlock_recursive_trylock(&priv->ctl_lock) == 0)
		return -EAGAIN;
	if (priv->ctx != NULL && priv->ctx->cmd_fd >= 0)
		fd = fcntl(priv->ctx->cmd_fd, F_DUPFD_CLOEXEC, 0);
	res->u.ctx_gen = __atomic_load_n(&priv->ctx_gen, __ATOMIC_ACQUIRE);
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	if (fd < 0)
		return -EAGAIN;
	rep->num_fds = 1;
	rep->fds[0] = fd;
	return 0;
}

static int
mp_create_mr(struct mana_priv *priv, const char *name)
{
	struct rte_mempool *mp;

	if (memchr(name, '\0', RTE_MEMPOOL_NAMESIZE) == NULL)
		return -EINVAL;
	mp = rte_mempool_lookup(name);
	if (mp == NULL) {
		PMD_DRV_LOG(ERR, "port %u: a secondary asks to register mempool %s, which does "
			    "not exist", priv->port_id, name);
		return -ENOENT;
	}
	return mana_mr_register_mempool(priv, mp);
}

static int
mp_primary_handle(const struct rte_mp_msg *msg, const void *peer)
{
	const struct mana_mp_param *req = (const struct mana_mp_param *)msg->param;
	struct rte_eth_dev *dev = NULL;
	struct mana_mp_param *res;
	struct mana_priv *priv;
	struct rte_mp_msg rep;
	int ret;

	if (msg->len_param != sizeof(*req)) {
		PMD_DRV_LOG(ERR, "IPC message of %d bytes, expected %zu", msg->len_param,
			    sizeof(*req));
		return -EINVAL;
	}
	res = mp_msg_init(&rep, req->type, req->port_id);
	if (req->type != MANA_MP_PORTS) {
		/* Entered (mana_portref.c): a close on another thread waits for the reply. */
		dev = mana_port_dev(req->port_id);
		if (dev == NULL || mana_portref_enter(dev, NULL) != 0) {
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
	case MANA_MP_DEV_STATS:
		res->result = mp_dev_stats_slice(priv, req->u.stats.first, res);
		break;
	case MANA_MP_CMD_FD:
		res->result = mp_cmd_fd(priv, &rep, res);
		break;
	case MANA_MP_CREATE_MR:
		res->result = mp_create_mr(priv, req->u.pool);
		break;
	case MANA_MP_CREATE_MR_EXT:
		res->result = mana_mr_register_ext(priv, (uintptr_t)req->u.ext.addr,
						   req->u.ext.len);
		break;
	default:
		PMD_DRV_LOG(ERR, "port %u: unknown IPC request %u", req->port_id, req->type);
		res->result = -EINVAL;
		break;
	}
	if (dev != NULL)
		mana_portref_leave(dev);
	ret = rte_mp_reply(&rep, peer);
	if (rep.num_fds > 0)
		close(rep.fds[0]);	/* the copy mp_cmd_fd made: sent or not, ours to close */
	return ret;
}

/* ---- secondary side: requests ------------------------------------------ */

/* One request to the primary; its reply is copied to *out, its fd (if any) to *fd. */
static int
mp_request_fd(struct rte_mp_msg *req, struct mana_mp_param *out, int *fd)
{
	struct timespec ts = { .tv_sec = MANA_MP_TIMEOUT_S, .tv_nsec = 0 };
	const struct mana_mp_param *res;
	struct rte_mp_msg *m;
	struct rte_mp_reply rep;
	int i, ret;

	if (rte_mp_request_sync(req, &rep, &ts) != 0)
		return -rte_errno;
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

static int
mp_request(struct rte_mp_msg *req, struct mana_mp_param *out)
{
	return mp_request_fd(req, out, NULL);
}

int
mana_mp_req_cmd_fd(struct mana_priv *priv, int *fd, uint32_t *gen)
{
	struct mana_mp_param res;
	struct rte_mp_msg req;
	int ret;

	*fd = -1;
	mp_msg_init(&req, MANA_MP_CMD_FD, priv->port_id);
	ret = mp_request_fd(&req, &res, fd);
	if (ret == 0 && *fd < 0)
		ret = -EPROTO;
	if (ret != 0) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return ret;
	}
	*gen = res.u.ctx_gen;
	return 0;
}

int
mana_mp_req_mr(struct mana_priv *priv, const struct rte_mempool *mp)
{
	struct mana_mp_param *p;
	struct rte_mp_msg req;

	p = mp_msg_init(&req, MANA_MP_CREATE_MR, priv->port_id);
	if (strlcpy(p->u.pool, mp->name, sizeof(p->u.pool)) >= sizeof(p->u.pool))
		return -ENAMETOOLONG;
	return mp_request(&req, NULL);
}

int
mana_mp_req_mr_ext(struct mana_priv *priv, uintptr_t addr, uint32_t len)
{
	struct mana_mp_param *p;
	struct rte_mp_msg req;

	p = mp_msg_init(&req, MANA_MP_CREATE_MR_EXT, priv->port_id);
	p->u.ext.addr = addr;
	p->u.ext.len = len;
	return mp_request(&req, NULL);
}

int
mana_mp_req_dev_stats(struct mana_priv *priv, struct mana_model_port_stats *st)
{
	uint64_t *v = (uint64_t *)st;
	struct mana_mp_param res, *p;
	struct rte_mp_msg req;
	unsigned int first = 0;
	int ret;

	/* Slice by slice: counters of different slices may be a few frames apart. */
	while (first < MANA_MP_STATS_N) {
		p = mp_msg_init(&req, MANA_MP_DEV_STATS, priv->port_id);
		p->u.stats.first = first;
		ret = mp_request(&req, &res);
		if (ret != 0)
			return ret;
		if (res.u.stats.first != first || res.u.stats.n == 0 ||
		    res.u.stats.n > MANA_MP_STATS_CHUNK || first + res.u.stats.n > MANA_MP_STATS_N)
			return -EPROTO;
		memcpy(v + first, res.u.stats.v, res.u.stats.n * sizeof(uint64_t));
		first += res.u.stats.n;
	}
	return 0;
}

/* ---- IPC action, per process ------------------------------------------- */

/* A port of the primary starts answering the secondaries' requests. */
int
mana_mp_get(void)
{
	int ret = 0;

	rte_spinlock_lock(&mana_mp_lock);
	if (mana_mp_users == 0) {
		ret = rte_mp_action_register(MANA_MP_NAME, mp_primary_handle);
		/* No IPC at all (--in-memory, --no-shconf): the primary works alone. */
		if (ret != 0 && rte_errno == ENOTSUP)
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

/* The device is the primary's: only this process's mapping and proxies go. */
static int
mana_dev_close_secondary(struct rte_eth_dev *dev)
{
	mana_mp_proc_detach(dev);
	return 0;
}

static const struct eth_dev_ops mana_dev_secondary_ops = {
	.dev_close = mana_dev_close_secondary,
	.dev_infos_get = mana_dev_infos_get,
	.dev_supported_ptypes_get = mana_compat_supported_ptypes,
	.link_update = mana_link_update_secondary,
	.stats_get = mana_compat_stats_get,
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
	struct rte_eth_dev *dev;
	int ret;

	snprintf(name, sizeof(name), "%s_port%u", rdev->name, ib_port);
	dev = rte_eth_dev_attach_secondary(name);
	if (dev == NULL)
		return -ENODEV;
	dev->device = rdev;
	dev->dev_ops = &mana_dev_secondary_ops;
	ret = mana_mp_proc_attach(dev);
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "%s: mapping the primary's doorbell pages: %s", name,
			     strerror(-ret));
		rte_eth_dev_release_port(dev);
		return ret;
	}
	rte_eth_dev_probing_finish(dev);
	/* After probing_finish, which set them from dev->data: this process's proxies. */
	mana_mp_proc_fp_ops(dev);
	PMD_INIT_LOG(NOTICE, "%s: attached (port %u, secondary process): datapath on the "
		     "queues the application gives this process", name, dev->data->port_id);
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
	ret = mp_request(&req, &res);
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "%s: the primary process reports no port of this device: %s",
			     rdev->name, strerror(-ret));
		return ret;
	}
	for (i = 0; i < res.u.ports.n && i < MANA_MAX_PORTS && ret == 0; i++)
		ret = mp_attach_port(rdev, res.u.ports.ib_port[i]);
	if (ret != 0)
		mana_mp_secondary_remove(rdev);
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
