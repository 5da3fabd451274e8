/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Who may use a port's private data, and when it is closed (primary process).
 *
 * ethdev frees dev->data->dev_private (and the queue arrays, and zeroes
 * dev->data) in rte_eth_dev_release_port(), right after dev_close, and it
 * calls that release even when dev_close fails. An application may close a
 * port on one thread (testpmd's removal handler, on EAL's interrupt thread)
 * while another stops, resets or closes it: without a guard the second one
 * runs on freed memory (issue 32 D2).
 *
 * So each port has a slot in static memory, indexed by its rte_eth_devices
 * entry: never freed, it can be read by any thread at any time. One 32-bit
 * word holds the generation (bumped by each probe), the state and the
 * number of users. A control op, the async event handler and the recovery
 * alarm enter (users + 1, only while the state is LIVE) before they touch
 * priv and leave after; they never hold a reference while an application
 * callback runs, and never wait for a close. dev_close moves LIVE to CLOSING
 * in one compare-and-swap: only that caller closes; it waits for the users
 * to leave (none can enter now), tears down, and sets CLOSED. Any other
 * caller finds the port closing or closed and returns -ENODEV without
 * reading priv; a second close waits for the first to finish its teardown
 * first, since ethdev releases the port (and frees priv) when it returns.
 * The handler and the alarm carry a token (port and generation) rather than
 * a pointer into priv: one that fires after the close finds the slot closed,
 * or reused by a later probe, and does nothing.
 */

#include <errno.h>

#include <rte_cycles.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

/* Word: generation (16 bits) | state (4 bits) | users (12 bits). */
#define SLOT_USERS_MASK		0xFFFu
#define SLOT_STATE_SHIFT	12
#define SLOT_STATE_MASK		0xFu
#define SLOT_GEN_SHIFT		16

enum mana_slot_state {
	MANA_SLOT_FREE,
	MANA_SLOT_LIVE,
	MANA_SLOT_CLOSING,
	MANA_SLOT_CLOSED,
};

static uint32_t mana_slots[RTE_MAX_ETHPORTS];

static uint32_t *
slot_of(const struct rte_eth_dev *dev)
{
	return &mana_slots[dev - rte_eth_devices];
}

static uint32_t
w_state(uint32_t w)
{
	return (w >> SLOT_STATE_SHIFT) & SLOT_STATE_MASK;
}

static uint32_t
w_gen(uint32_t w)
{
	return w >> SLOT_GEN_SHIFT;
}

static uint32_t
w_make(uint32_t gen, uint32_t state, uint32_t users)
{
	return gen << SLOT_GEN_SHIFT | state << SLOT_STATE_SHIFT | users;
}

void
mana_portref_live(struct rte_eth_dev *dev)
{
	uint32_t *s = slot_of(dev);
	uint32_t w = __atomic_load_n(s, __ATOMIC_RELAXED);

	__atomic_store_n(s, w_make((w_gen(w) + 1) & 0xFFFFu, MANA_SLOT_LIVE, 0),
			 __ATOMIC_RELEASE);
}

void *
mana_portref_token(const struct rte_eth_dev *dev)
{
	uint32_t w = __atomic_load_n(slot_of(dev), __ATOMIC_ACQUIRE);

	/* Never NULL: port + 1 in the low bits. */
	return (void *)(uintptr_t)(w_gen(w) << 16 | (uint32_t)(dev - rte_eth_devices + 1));
}

struct rte_eth_dev *
mana_portref_token_dev(void *token)
{
	return &rte_eth_devices[((uint32_t)(uintptr_t)token & 0xFFFFu) - 1];
}

/* users + 1 if the slot is LIVE (and of generation gen, when gen >= 0). */
static int
slot_enter(uint32_t *s, int gen)
{
	uint32_t w = __atomic_load_n(s, __ATOMIC_ACQUIRE);

	do {
		if (w_state(w) != MANA_SLOT_LIVE || (gen >= 0 && w_gen(w) != (uint32_t)gen))
			return -ENODEV;
		if ((w & SLOT_USERS_MASK) == SLOT_USERS_MASK)
			return -EBUSY;
	} while (!__atomic_compare_exchange_n(s, &w, w + 1, false, __ATOMIC_ACQUIRE,
					      __ATOMIC_ACQUIRE));
	return 0;
}

int
mana_portref_enter(struct rte_eth_dev *dev, const char *what)
{
	int ret = slot_enter(slot_of(dev), -1);

	if (ret != 0 && what != NULL)
		PMD_DRV_LOG(ERR, "port %u: %s refused: the port is closed or being closed",
			    (unsigned int)(dev - rte_eth_devices), what);
	return ret;
}

struct rte_eth_dev *
mana_portref_enter_token(void *token)
{
	struct rte_eth_dev *dev = mana_portref_token_dev(token);

	if (slot_enter(slot_of(dev), (int)((uintptr_t)token >> 16)) != 0)
		return NULL;
	return dev;
}

void
mana_portref_leave(struct rte_eth_dev *dev)
{
	__atomic_fetch_sub(slot_of(dev), 1, __ATOMIC_RELEASE);
}

bool
mana_portref_live_token(void *token)
{
	uint32_t w = __atomic_load_n(slot_of(mana_portref_token_dev(token)), __ATOMIC_ACQUIRE);

	return w_state(w) == MANA_SLOT_LIVE && w_gen(w) == (uint32_t)((uintptr_t)token >> 16);
}

int
mana_portref_close_begin(struct rte_eth_dev *dev)
{
	unsigned int port = (unsigned int)(dev - rte_eth_devices);
	uint32_t *s = slot_of(dev);
	uint32_t w = __atomic_load_n(s, __ATOMIC_ACQUIRE);

	do {
		if (w_state(w) != MANA_SLOT_LIVE)
			break;
	} while (!__atomic_compare_exchange_n(s, &w,
					      w_make(w_gen(w), MANA_SLOT_CLOSING,
						     w & SLOT_USERS_MASK),
					      false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	if (w_state(w) != MANA_SLOT_LIVE) {
		/* The closer holds no reference and waits for no one: this ends. */
		while (w_state(w) == MANA_SLOT_CLOSING) {
			rte_delay_us_sleep(1000);
			w = __atomic_load_n(s, __ATOMIC_ACQUIRE);
		}
		PMD_DRV_LOG(ERR, "port %u: close refused: the port was closed by another thread "
			    "(close a port once, from one thread)", port);
		return -ENODEV;
	}
	/* Users (control ops, event handler, recovery alarm) finish what they do. */
	while ((__atomic_load_n(s, __ATOMIC_ACQUIRE) & SLOT_USERS_MASK) != 0)
		rte_delay_us_sleep(100);
	return 0;
}

void
mana_portref_close_end(struct rte_eth_dev *dev)
{
	uint32_t *s = slot_of(dev);
	uint32_t w = __atomic_load_n(s, __ATOMIC_ACQUIRE);

	__atomic_store_n(s, w_make(w_gen(w), MANA_SLOT_CLOSED, 0), __ATOMIC_RELEASE);
}

bool
mana_portref_is_live(const struct rte_eth_dev *dev)
{
	return w_state(__atomic_load_n(slot_of(dev), __ATOMIC_ACQUIRE)) == MANA_SLOT_LIVE;
}
