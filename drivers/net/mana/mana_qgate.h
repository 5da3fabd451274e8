/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

#ifndef MANA_QGATE_H
#define MANA_QGATE_H

/*
 * Queue gates: who may run a queue's burst function.
 *
 * A gate is one word in DPDK shared memory (the port's mana_priv, alive as
 * long as the port), so every process of the application sees the same
 * one. It reads 0 when the queue is open, the pid of the process whose
 * thread is inside the queue's burst, or MANA_QGATE_CLOSED. A burst enters
 * by compare-and-swap 0 -> own pid and leaves by pid -> 0; a burst that
 * finds the gate closed (or another thread inside) returns 0 at once.
 *
 * The control path closes a gate before it takes a queue apart (stop,
 * queue stop, reset, recovery) and opens it when the queue is whole again.
 * Closing waits for the burst inside to leave, for a bounded time: a holder
 * whose process has died is taken over; a live one that does not leave in
 * time is logged and the gate is closed regardless (mana_qgate.c).
 *
 * Ordering (hardware.md §18 #16): entry acquires, exit and opening release.
 *
 * Cost: one locked compare-and-swap at entry and one at exit per burst, on
 * a cache line of the queue's own.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#define MANA_QGATE_OPEN		0u
#define MANA_QGATE_CLOSED	UINT32_MAX
#define MANA_QGATE_WAIT_MS	2000u	/* longest wait for a burst inside to leave */

struct mana_qgate {
	uint32_t state;		/* MANA_QGATE_OPEN, a holder's pid or MANA_QGATE_CLOSED */
	uint32_t takeovers;	/* closes that did not wait for the holder to leave */
} __rte_cache_aligned;

/* This process's pid as a gate holder (mana_qgate.c, set once at load). */
extern uint32_t mana_qgate_self;

/* A burst may run on the queue: the gate is now held by this process. */
static __rte_always_inline bool
mana_qgate_enter(struct mana_qgate *g)
{
	uint32_t open = MANA_QGATE_OPEN;

	return __atomic_compare_exchange_n(&g->state, &open, mana_qgate_self, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/*
 * The burst is over. A compare-and-swap, not a store: a gate taken over
 * while this thread was inside stays closed.
 */
static __rte_always_inline void
mana_qgate_leave(struct mana_qgate *g)
{
	uint32_t self = mana_qgate_self;

	__atomic_compare_exchange_n(&g->state, &self, MANA_QGATE_OPEN, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

static inline bool
mana_qgate_is_open(const struct mana_qgate *g)
{
	return __atomic_load_n(&g->state, __ATOMIC_ACQUIRE) != MANA_QGATE_CLOSED;
}

/*
 * Close gate g (what: "RX queue 3 of port 0", for the log): 0 once no burst
 * is inside; -ETIMEDOUT when a live holder was still inside after wait_ms
 * (logged; the gate is closed anyway).
 */
int mana_qgate_close_wait(struct mana_qgate *g, unsigned int wait_ms, uint16_t port_id,
			  const char *dir, uint16_t qid);
void mana_qgate_init_closed(struct mana_qgate *g);
void mana_qgate_open_gate(struct mana_qgate *g);

#endif /* MANA_QGATE_H */
