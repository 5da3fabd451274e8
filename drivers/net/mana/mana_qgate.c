/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Queue gates, control side (mana_qgate.h): closing with a bounded wait,
 * taking over the gate of a process that died inside a burst.
 */

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

uint32_t mana_qgate_self;

RTE_INIT(mana_qgate_pid)
{
	mana_qgate_self = (uint32_t)getpid();
}

void
mana_qgate_init_closed(struct mana_qgate *g)
{
	__atomic_store_n(&g->state, MANA_QGATE_CLOSED, __ATOMIC_RELEASE);
}

void
mana_qgate_open_gate(struct mana_qgate *g)
{
	__atomic_store_n(&g->state, MANA_QGATE_OPEN, __ATOMIC_RELEASE);
}

/* The holder's process is gone (pids are of one pid namespace: NIC guide). */
static bool
qgate_holder_dead(uint32_t pid)
{
	return pid != mana_qgate_self && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int
mana_qgate_close_wait(struct mana_qgate *g, unsigned int wait_ms, uint16_t port_id,
		      const char *dir, uint16_t qid)
{
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t end = rte_get_timer_cycles() + hz * wait_ms / 1000;
	uint64_t next_check = 0;
	uint32_t s;

	for (;;) {
		s = MANA_QGATE_OPEN;
		if (__atomic_compare_exchange_n(&g->state, &s, MANA_QGATE_CLOSED, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return 0;
		if (s == MANA_QGATE_CLOSED)
			return 0;
		/* s is the pid of the process inside the burst. */
		if (rte_get_timer_cycles() >= next_check) {
			if (qgate_holder_dead(s) &&
			    __atomic_compare_exchange_n(&g->state, &s, MANA_QGATE_CLOSED, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				g->takeovers++;
				PMD_DRV_LOG(WARNING, "port %u: %s queue %u: process %u died inside "
					    "its burst; the queue is taken back", port_id, dir, qid,
					    s);
				return 0;
			}
			next_check = rte_get_timer_cycles() + hz / 1000;
		}
		if (rte_get_timer_cycles() >= end)
			break;
		rte_delay_us_sleep(50);
	}
	s = __atomic_exchange_n(&g->state, MANA_QGATE_CLOSED, __ATOMIC_ACQ_REL);
	if (s == MANA_QGATE_OPEN || s == MANA_QGATE_CLOSED)
		return 0;	/* it left at the last moment */
	g->takeovers++;
	PMD_DRV_LOG(ERR, "port %u: %s queue %u: process %u is still inside its burst after %u "
		    "ms; closing the queue anyway (that process must not resume its burst)",
		    port_id, dir, qid, s, wait_ms);
	return -ETIMEDOUT;
}

/* ---- the gates of a port ------------------------------------------------ */

void
mana_qgates_init(struct mana_priv *priv)
{
	unsigned int i;

	for (i = 0; i < MANA_MAX_RXQ; i++)
		mana_qgate_init_closed(&priv->rx_gate[i]);
	for (i = 0; i < MANA_MAX_TXQ; i++)
		mana_qgate_init_closed(&priv->tx_gate[i]);
}

int
mana_qgate_close(struct mana_priv *priv, bool rx, uint16_t qid)
{
	struct mana_qgate *g = rx ? &priv->rx_gate[qid] : &priv->tx_gate[qid];

	return mana_qgate_close_wait(g, MANA_QGATE_WAIT_MS, priv->port_id, rx ? "RX" : "TX",
				     qid);
}

void
mana_qgate_open(struct mana_priv *priv, bool rx, uint16_t qid)
{
	mana_qgate_open_gate(rx ? &priv->rx_gate[qid] : &priv->tx_gate[qid]);
}

int
mana_qgate_close_all(struct mana_priv *priv)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < MANA_MAX_RXQ; i++)
		if (mana_qgate_close(priv, true, i) != 0)
			ret = -ETIMEDOUT;
	for (i = 0; i < MANA_MAX_TXQ; i++)
		if (mana_qgate_close(priv, false, i) != 0)
			ret = -ETIMEDOUT;
	return ret;
}
