/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Link state and device events. The device's async_fd is watched by EAL's
 * interrupt thread: port up/down become LSC events (if the application
 * enabled them, dev_conf.intr_conf), a fatal device error starts the
 * handling of a device reset (mana_recovery.c).
 * The application's callbacks run inside the handler and may close the port
 * (and free it), on this thread or another, which the handler and the
 * teardown allow (mana_portref.c).
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_per_lcore.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

int
mana_link_update(struct rte_eth_dev *dev, int wait)
{
	struct mana_priv *priv = mana_priv(dev);
	struct rte_eth_link link = {
		.link_speed = RTE_ETH_SPEED_NUM_100G,
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
		.link_autoneg = RTE_ETH_LINK_FIXED,
	};
	struct ibv_port_attr attr;

	RTE_SET_USED(wait);
	memset(&attr, 0, sizeof(attr));
	if (priv->removed || !priv->started || priv->rec_state != MANA_REC_NONE ||
	    priv->ctx == NULL) {
		link.link_status = RTE_ETH_LINK_DOWN;
	} else if (priv->model == NULL) {
		/*
		 * rdma-core (hardware): the port state is the kernel netdev's (down
		 * on kernels >= 6.8 whenever the netdev is not running), and that
		 * netdev must be down for the RAW QP to get the vPort (hardware.md §7.1,
		 * §7.4): report up like upstream (hardware.md §13 rule 9).
		 */
		link.link_status = RTE_ETH_LINK_UP;
	} else if (mana_vs_query_port(priv->ctx, priv->ib_port, &attr) != 0) {
		link.link_status = RTE_ETH_LINK_DOWN;
	} else {
		/* Kernels before ~6.8 leave the attributes zero (IBV_PORT_NOP): report up. */
		link.link_status = attr.state == IBV_PORT_ACTIVE || attr.state == IBV_PORT_NOP;
	}
	if (link.link_status == RTE_ETH_LINK_DOWN)
		link.link_speed = RTE_ETH_SPEED_NUM_NONE;
	return rte_eth_linkstatus_set(dev, &link);
}

/*
 * Events the application turned off in dev_conf.intr_conf are not raised:
 * with lsc = 0 the link status is still updated (and read by polling).
 * Called with the port entered (mana_portref.c); returns the event to raise
 * once it is left, RTE_ETH_EVENT_MAX for none.
 */
static enum rte_eth_event_type
mana_async_event(struct rte_eth_dev *dev, const struct ibv_async_event *ev)
{
	const struct rte_eth_intr_conf *ic = &dev->data->dev_conf.intr_conf;
	struct mana_priv *priv = mana_priv(dev);

	switch (ev->event_type) {
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
		if (ev->element.port_num != priv->ib_port)
			break;
		if (mana_link_update(dev, 0) == 0 && ic->lsc != 0)
			return RTE_ETH_EVENT_INTR_LSC;
		break;
	case IBV_EVENT_DEVICE_FATAL:
		/* A device reset (hardware.md §17): recovery, mana_recovery.c. */
		return RTE_ETH_EVENT_ERR_RECOVERING;
	default:
		PMD_DRV_LOG(DEBUG, "port %u: async event %d ignored", priv->port_id,
			    ev->event_type);
		break;
	}
	return RTE_ETH_EVENT_MAX;
}

/*
 * Set by mana_async_intr_unregister() when a callback of the handler
 * running on this thread (EAL's interrupt thread) tore the handler down
 * (a dev_reset or a close from the callback): the handler stops at once, its
 * context may be gone.
 */
static RTE_DEFINE_PER_LCORE(void *, mana_intr_detached);

bool
mana_intr_detached(void *token)
{
	return RTE_PER_LCORE(mana_intr_detached) == token;
}

/*
 * async_fd handler (EAL interrupt thread): link changes and device events.
 * Its argument is the port's token, not priv: each event is read and acked
 * with the port entered, and the application's callbacks run with it left,
 * since they may close the port (here, or on another thread); the next
 * round finds it closed, or the handler detached, and ends.
 */
static void
mana_async_intr_handler(void *token)
{
	struct ibv_async_event ev;
	enum rte_eth_event_type raise;
	struct rte_eth_dev *dev;
	int got;

	RTE_PER_LCORE(mana_intr_detached) = NULL;
	for (;;) {
		dev = mana_portref_enter_token(token);
		if (dev == NULL)
			return;
		got = mana_vs_get_async_event(mana_priv(dev)->ctx, &ev);
		raise = RTE_ETH_EVENT_MAX;
		if (got == 0) {
			mana_vs_ack_async_event(mana_priv(dev)->ctx, &ev);
			raise = mana_async_event(dev, &ev);
		}
		mana_portref_leave(dev);
		if (got != 0)
			return;
		if (raise == RTE_ETH_EVENT_ERR_RECOVERING)
			mana_recovery_on_fatal(token);
		else if (raise != RTE_ETH_EVENT_MAX)
			rte_eth_dev_callback_process(dev, raise, NULL);
		if (mana_intr_detached(token))
			return;
	}
}

int
mana_intr_setup(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	int flags = fcntl(priv->ctx->async_fd, F_GETFL);

	if (flags < 0 || fcntl(priv->ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	priv->async_intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	priv->rxq_intr = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (priv->async_intr == NULL || priv->rxq_intr == NULL)
		return -ENOMEM;
	if (rte_intr_type_set(priv->async_intr, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_fd_set(priv->async_intr, priv->ctx->async_fd) != 0 ||
	    rte_intr_type_set(priv->rxq_intr, RTE_INTR_HANDLE_EXT) != 0)
		return -EINVAL;
	dev->intr_handle = priv->rxq_intr;
	return rte_intr_callback_register(priv->async_intr, mana_async_intr_handler,
					  mana_portref_token(dev));
}

/*
 * Take the async handler off the EAL interrupt thread. While it runs
 * (-EAGAIN):
 * - on the interrupt thread, this is a callback of the handler (a reset or a
 *   close from an event callback): it is marked for removal, which EAL does
 *   when it returns, and told to stop (mana_intr_detached);
 * - on another thread closing the port: the same, without waiting. The
 *   handler holds no reference (the closer waited for them) and may be in a
 *   callback that waits for this thread (a second close); it enters the port
 *   before it touches anything, which fails from now on;
 * - on another thread rebuilding the port (dev_reset): wait for it to
 *   return, as its next round would read the context being closed.
 * EAL keeps its own copy of the handle: the caller may free ours at once.
 */
static void
mana_async_intr_unregister(struct rte_eth_dev *dev, struct rte_intr_handle *ih)
{
	void *token = mana_portref_token(dev);
	int ret;

	for (;;) {
		ret = rte_intr_callback_unregister(ih, mana_async_intr_handler, token);
		if (ret != -EAGAIN)
			break;
		if (rte_thread_is_intr() || !mana_portref_is_live(dev)) {
			ret = rte_intr_callback_unregister_pending(ih, mana_async_intr_handler,
								   token, NULL);
			if (ret == -EAGAIN)
				continue;	/* it returned meanwhile */
			if (rte_thread_is_intr())
				RTE_PER_LCORE(mana_intr_detached) = token;
			break;
		}
		rte_delay_us_sleep(1000);
	}
	if (ret < 0 && ret != -ENOENT)
		PMD_DRV_LOG(ERR, "port %u: removing the async event handler: %s",
			    dev->data->port_id, strerror(-ret));
}

void
mana_intr_teardown(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);

	if (priv->async_intr != NULL) {
		mana_async_intr_unregister(dev, priv->async_intr);
		rte_intr_instance_free(priv->async_intr);
		priv->async_intr = NULL;
	}
	rte_intr_instance_free(priv->rxq_intr);
	priv->rxq_intr = NULL;
	dev->intr_handle = NULL;
}
