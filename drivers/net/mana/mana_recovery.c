/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Device reset and recovery (hardware.md §17; doc/design.md, "Errors and
 * recovery").
 *
 * A device reset reaches user space as IBV_EVENT_DEVICE_FATAL on the
 * context's async_fd: every verbs object of the context is gone on the
 * device, and the device can be opened again once the kernel has brought
 * it back. The port keeps its configuration (queues as set up, RSS key and
 * table, MTU, offloads, VLAN stripping, counters) in mana_priv and the queue
 * structures; only verbs objects are rebuilt.
 *
 * recovery=auto (default, as upstream 26.07): on the event the driver raises
 * RTE_ETH_EVENT_ERR_RECOVERING, closes every queue gate (bursts of every
 * process return 0) and arms an EAL alarm. The alarm (never the async
 * handler) releases every verbs object and returns every mbuf, then tries
 * to open the device every 100 ms until recovery_timeout; once it opens,
 * it makes the context, PDs and interrupt handler again, and restarts the
 * port if it was started (MTU applied again, queues stopped by the
 * application kept stopped), then raises RTE_ETH_EVENT_RECOVERY_SUCCESS. A
 * device that does not come back in time gives RTE_ETH_EVENT_RECOVERY_FAILED
 * (then INTR_RMV if intr_conf.rmv): the port stays down and can be closed.
 *
 * recovery=manual: the gates close and RTE_ETH_EVENT_INTR_RESET is raised;
 * the application stops the port, calls rte_eth_dev_reset() (mana_dev_reset:
 * the same rebuild, waiting for the device on the calling thread) and
 * starts the port again.
 *
 * ctl_lock (recursive) orders the alarm against the application's control
 * calls; events are raised with it released and the port left
 * (mana_portref.c), so a callback may call any ethdev function, close
 * included, and so may another thread meanwhile. The alarm and the handler
 * carry the port's token: one that runs after a close does nothing.
 */

#include <errno.h>
#include <string.h>

#include <rte_alarm.h>
#include <rte_cycles.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

#define MANA_RECOVERY_POLL_US	100000u	/* between two attempts to open the device */

static uint64_t
rec_ms_since(uint64_t t0)
{
	return (rte_get_timer_cycles() - t0) * 1000 / rte_get_timer_hz();
}

static uint64_t
rec_deadline(const struct mana_priv *priv)
{
	return rte_get_timer_cycles() + rte_get_timer_hz() * priv->recovery_timeout_ms / 1000;
}

/* No burst of any process enters a queue from now on; the link reads down. */
static void
rec_quiesce(struct rte_eth_dev *dev)
{
	struct rte_eth_link link = { 0 };

	mana_qgate_close_all(mana_priv(dev));
	rte_eth_linkstatus_set(dev, &link);
}

/* Every verbs object of the port released, every mbuf back in its pool. */
static void
rec_teardown(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);

	if (priv->rec_torn_down)
		return;
	mana_queues_teardown(dev);
	mana_intr_teardown(dev);
	mana_mr_release_all(priv);
	mana_port_close_ctx(priv);
	priv->rec_torn_down = true;
	PMD_DRV_LOG(NOTICE, "port %u: device reset: queues, RSS QP, MRs, PDs and context "
		    "released, every mbuf returned", priv->port_id);
}

/* The device of the port, if it can be opened now (no log: it is tried often). */
static struct ibv_device *
rec_device(struct ibv_device **list, const char *name)
{
	struct ibv_context *ctx;
	int i;

	for (i = 0; list != NULL && list[i] != NULL; i++) {
		if (strcmp(mana_vs_device_name(list[i]), name) != 0)
			continue;
		ctx = mana_vs_open_device(list[i]);
		if (ctx == NULL)
			return NULL;
		mana_vs_close_device(ctx);
		return list[i];
	}
	return NULL;
}

/* Context, PDs and async handler made again: 0, or -EAGAIN while the device is not back. */
static int
rec_reopen(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	struct ibv_device **list, *ibdev;
	int ret = -EAGAIN;

	list = mana_vs_get_device_list(NULL);
	ibdev = rec_device(list, priv->ibdev_name);
	if (ibdev != NULL) {
		ret = mana_port_open(priv, ibdev);
		if (ret == 0)
			ret = mana_intr_setup(dev);
		if (ret != 0) {
			mana_intr_teardown(dev);
			mana_port_close_ctx(priv);
		}
	}
	if (list != NULL)
		mana_vs_free_device_list(list);
	if (ret != 0)
		return ret;
	/* The first start applies the port's MTU again. */
	priv->mtu_applied = 0;
	priv->rec_torn_down = false;
	__atomic_store_n(&priv->ctx_gen, priv->ctx_gen + 1, __ATOMIC_RELEASE);
	PMD_DRV_LOG(NOTICE, "port %u: device back after %" PRIu64 " ms: context, PDs and "
		    "event handler made again", priv->port_id, rec_ms_since(priv->rec_t0));
	return 0;
}

/* A port that was started runs again, with the queues the application had stopped still stopped. */
static int
rec_restart(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);

	if (!priv->started)
		return 0;
	priv->started = false;
	return mana_dev_start_locked(dev, true);
}

static void
rec_failed(struct mana_priv *priv)
{
	priv->rec_state = MANA_REC_FAILED;
	priv->removed = true;
	priv->rec_stats.failures++;
}

static void rec_alarm(void *arg);

/* One step of an automatic recovery (EAL alarm); the next one is armed if needed. */
static enum rte_eth_event_type
rec_step(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	int ret;

	rec_teardown(dev);
	ret = rec_reopen(dev);
	if (ret == 0) {
		ret = rec_restart(dev);
		if (ret != 0) {
			PMD_DRV_LOG(ERR, "port %u: device back, but restarting the port failed: "
				    "%s; the port stays stopped", priv->port_id, strerror(-ret));
			priv->rec_state = MANA_REC_NONE;
			priv->rec_stats.failures++;
			return RTE_ETH_EVENT_RECOVERY_FAILED;
		}
		priv->rec_state = MANA_REC_NONE;
		/* The start read the link while the state said recovering: read it again. */
		mana_link_update(dev, 0);
		priv->rec_stats.recoveries++;
		priv->rec_stats.last_ms = rec_ms_since(priv->rec_t0);
		PMD_DRV_LOG(NOTICE, "port %u: recovered from the device reset in %" PRIu64 " ms%s",
			    priv->port_id, priv->rec_stats.last_ms,
			    priv->started ? ", traffic resumes" : " (the port was stopped)");
		return RTE_ETH_EVENT_RECOVERY_SUCCESS;
	}
	if (ret != -EAGAIN || rte_get_timer_cycles() >= priv->rec_deadline) {
		PMD_DRV_LOG(ERR, "port %u: the device did not come back within %u ms "
			    "(recovery_timeout)%s%s; the port stays down: close it",
			    priv->port_id, priv->recovery_timeout_ms, ret != -EAGAIN ? ": " : "",
			    ret != -EAGAIN ? strerror(-ret) : "");
		rec_failed(priv);
		return RTE_ETH_EVENT_RECOVERY_FAILED;
	}
	ret = rte_eal_alarm_set(MANA_RECOVERY_POLL_US, rec_alarm, mana_portref_token(dev));
	if (ret != 0) {
		PMD_DRV_LOG(ERR, "port %u: recovery: cannot arm the retry alarm: %s",
			    priv->port_id, strerror(-ret));
		rec_failed(priv);
		return RTE_ETH_EVENT_RECOVERY_FAILED;
	}
	return RTE_ETH_EVENT_MAX;
}

/*
 * The alarm's argument is the port's token (mana_portref.c): one that fires
 * after the port was closed does nothing. The step runs with the port
 * entered, the events are raised with it left: a callback may close the
 * port, on this thread or another.
 */
static void
rec_alarm(void *token)
{
	enum rte_eth_event_type ev = RTE_ETH_EVENT_MAX;
	struct rte_eth_dev *dev = mana_portref_enter_token(token);
	struct mana_priv *priv;
	bool rmv, lsc, link_up;

	if (dev == NULL)
		return;
	priv = mana_priv(dev);
	rmv = dev->data->dev_conf.intr_conf.rmv != 0;
	lsc = dev->data->dev_conf.intr_conf.lsc != 0;
	rte_spinlock_recursive_lock(&priv->ctl_lock);
	if (priv->rec_state == MANA_REC_PENDING)
		ev = rec_step(dev);
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	link_up = dev->data->dev_link.link_status == RTE_ETH_LINK_UP;
	mana_portref_leave(dev);
	if (ev == RTE_ETH_EVENT_MAX)
		return;
	/* The link came back with the port (rec_step read it). */
	if (ev == RTE_ETH_EVENT_RECOVERY_SUCCESS && lsc && link_up &&
	    mana_portref_live_token(token))
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
	if (mana_portref_live_token(token))
		rte_eth_dev_callback_process(dev, ev, NULL);
	if (ev == RTE_ETH_EVENT_RECOVERY_FAILED && rmv && mana_portref_live_token(token))
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_RMV, NULL);
}

/* recovery=manual: the queues shut, INTR_RESET raised (the port is entered, priv locked). */
static void
rec_manual_quiesce(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);

	rec_quiesce(dev);
	priv->rec_state = MANA_REC_NEED_RESET;
	PMD_DRV_LOG(NOTICE, "port %u: device reset (fatal event): queues stopped, "
		    "INTR_RESET raised (recovery=manual): stop the port, call "
		    "rte_eth_dev_reset(), start it", priv->port_id);
}

/* recovery=auto: queues shut, the alarm armed; false when it could not be. */
static bool
rec_auto_begin(struct rte_eth_dev *dev, void *token)
{
	struct mana_priv *priv = mana_priv(dev);
	int ret;

	rec_quiesce(dev);
	priv->rec_state = MANA_REC_PENDING;
	priv->rec_deadline = rec_deadline(priv);
	ret = rte_eal_alarm_set(1, rec_alarm, token);
	if (ret == 0)
		return true;
	PMD_DRV_LOG(ERR, "port %u: recovery: cannot arm the alarm: %s; the port stays down",
		    priv->port_id, strerror(-ret));
	rec_failed(priv);
	return false;
}

/*
 * IBV_EVENT_DEVICE_FATAL (EAL interrupt thread, async handler, port not
 * entered). token: the port's (mana_portref.c).
 */
void
mana_recovery_on_fatal(void *token)
{
	struct rte_eth_dev *dev = mana_portref_enter_token(token);
	struct mana_priv *priv;
	bool lsc, manual, failed = false;

	if (dev == NULL)
		return;
	priv = mana_priv(dev);
	lsc = dev->data->dev_conf.intr_conf.lsc != 0;
	manual = priv->recovery_manual;
	priv->rec_stats.fatal_events++;
	if (priv->rec_state != MANA_REC_NONE) {
		PMD_DRV_LOG(NOTICE, "port %u: device fatal event while a reset is being handled: "
			    "ignored", priv->port_id);
		mana_portref_leave(dev);
		return;
	}
	priv->rec_t0 = rte_get_timer_cycles();
	if (manual) {
		rte_spinlock_recursive_lock(&priv->ctl_lock);
		rec_manual_quiesce(dev);
		rte_spinlock_recursive_unlock(&priv->ctl_lock);
		mana_portref_leave(dev);
		if (lsc && mana_portref_live_token(token))
			rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
		if (mana_portref_live_token(token))
			rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_RESET, NULL);
		return;
	}
	PMD_DRV_LOG(NOTICE, "port %u: device reset (fatal event): recovering, waiting up to %u ms "
		    "for the device (ERR_RECOVERING raised)", priv->port_id,
		    priv->recovery_timeout_ms);
	mana_portref_leave(dev);
	/* Before the queues stop, as upstream: an upper layer may switch its datapath. */
	rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_ERR_RECOVERING, NULL);
	/* Closed, or rebuilt by rte_eth_dev_reset(), by the callback: nothing to recover. */
	if (mana_intr_detached(token))
		return;
	dev = mana_portref_enter_token(token);
	if (dev == NULL)
		return;
	priv = mana_priv(dev);
	rte_spinlock_recursive_lock(&priv->ctl_lock);
	if (priv->rec_state == MANA_REC_NONE)
		failed = !rec_auto_begin(dev, token);
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	mana_portref_leave(dev);
	if (lsc && mana_portref_live_token(token))
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
	if (failed && mana_portref_live_token(token))
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_RECOVERY_FAILED, NULL);
}

/*
 * rte_eth_dev_reset() (ethdev has stopped the port): every verbs object
 * made again, waiting on this thread up to recovery_timeout for the device;
 * queue setup and configuration stay, a plain start follows.
 */
int
mana_dev_reset(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	uint64_t deadline;
	int ret;

	rte_spinlock_recursive_lock(&priv->ctl_lock);
	if (priv->rec_state == MANA_REC_PENDING) {
		rte_spinlock_recursive_unlock(&priv->ctl_lock);
		PMD_DRV_LOG(ERR, "port %u: dev_reset: the driver is recovering the device itself "
			    "(recovery=auto): wait for RECOVERY_SUCCESS or RECOVERY_FAILED",
			    priv->port_id);
		return -EBUSY;
	}
	if (priv->rec_state != MANA_REC_NEED_RESET)
		priv->rec_t0 = rte_get_timer_cycles();
	if (priv->started)
		mana_dev_stop_locked(dev);
	PMD_DRV_LOG(NOTICE, "port %u: dev_reset: rebuilding every verbs object", priv->port_id);
	rec_teardown(dev);
	deadline = rec_deadline(priv);
	while ((ret = rec_reopen(dev)) == -EAGAIN && rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(MANA_RECOVERY_POLL_US);
	if (ret != 0) {
		priv->rec_stats.failures++;
		if (priv->rec_state == MANA_REC_NONE)
			priv->rec_state = MANA_REC_NEED_RESET;
		rte_spinlock_recursive_unlock(&priv->ctl_lock);
		PMD_DRV_LOG(ERR, "port %u: dev_reset: the device did not come back within %u ms "
			    "(recovery_timeout)%s%s; call rte_eth_dev_reset() again or close the "
			    "port",
			    priv->port_id, priv->recovery_timeout_ms, ret != -EAGAIN ? ": " : "",
			    ret != -EAGAIN ? strerror(-ret) : "");
		return ret == -EAGAIN ? -EIO : ret;
	}
	priv->rec_state = MANA_REC_NONE;
	priv->removed = false;
	priv->rec_stats.dev_resets++;
	priv->rec_stats.last_ms = rec_ms_since(priv->rec_t0);
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	PMD_DRV_LOG(NOTICE, "port %u: dev_reset done after %" PRIu64 " ms; the port can start",
		    priv->port_id, priv->rec_stats.last_ms);
	return 0;
}

int
mana_recovery_start_check(struct mana_priv *priv)
{
	switch (priv->rec_state) {
	case MANA_REC_PENDING:
		PMD_DRV_LOG(ERR, "port %u: the device is being recovered (recovery=auto): the "
			    "port restarts by itself; wait for RTE_ETH_EVENT_RECOVERY_SUCCESS",
			    priv->port_id);
		return -EBUSY;
	case MANA_REC_NEED_RESET:
		PMD_DRV_LOG(ERR, "port %u: the device was reset: call rte_eth_dev_reset() before "
			    "starting the port (recovery=manual)", priv->port_id);
		return -EIO;
	case MANA_REC_FAILED:
		PMD_DRV_LOG(ERR, "port %u: the device did not come back from a reset within %u ms: "
			    "close the port, or try rte_eth_dev_reset()", priv->port_id,
			    priv->recovery_timeout_ms);
		return -EIO;
	default:
		break;
	}
	if (priv->removed) {
		PMD_DRV_LOG(ERR, "port %u: the device had a fatal error; close the port and "
			    "probe it again", priv->port_id);
		return -EIO;
	}
	return 0;
}
