/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Queue gates (drivers/net/mana/mana_qgate.c, compiled into this test): who
 * may run a queue's burst, across processes. The gates live in shared memory
 * here too (an anonymous shared mapping, inherited by forked children that
 * play secondary processes):
 *
 *   enter_leave     a closed gate refuses, an open one admits one holder
 *   close_waits     close waits for a holder of this process to leave
 *   dead_holder     a child that dies inside its burst is taken over at once
 *   hung_holder     a live child that never leaves: -ETIMEDOUT at the bound,
 *                   the gate closed anyway, and its late leave keeps it closed
 */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "comp.h"
#include "mana_qgate.h"

int mana_logtype_init;
int mana_logtype_driver;
int mana_logtype_rx;
int mana_logtype_tx;

static struct mana_qgate *gates;	/* shared with forked children */

static void
test_enter_leave(void)
{
	struct mana_qgate *g = &gates[0];

	mana_qgate_init_closed(g);
	CHECK(!mana_qgate_enter(g));
	CHECK(!mana_qgate_is_open(g));
	mana_qgate_open_gate(g);
	CHECK(mana_qgate_is_open(g));
	REQUIRE(mana_qgate_enter(g));
	CHECK_EQ(g->state, mana_qgate_self);
	CHECK(!mana_qgate_enter(g));		/* one holder at a time */
	mana_qgate_leave(g);
	CHECK_EQ(g->state, MANA_QGATE_OPEN);
	CHECK_EQ(mana_qgate_close_wait(g, 100, 0, "RX", 0), 0);
	CHECK_EQ(g->state, MANA_QGATE_CLOSED);
	CHECK_EQ(mana_qgate_close_wait(g, 100, 0, "RX", 0), 0);	/* closing twice */
	CHECK_EQ(g->takeovers, 0);
}

struct holder {
	struct mana_qgate *g;
	volatile bool entered, leaving;
	unsigned int hold_ms;
};

static void *
hold_thread(void *arg)
{
	struct holder *h = arg;

	if (!mana_qgate_enter(h->g))
		return NULL;
	h->entered = true;
	comp_sleep_ms(h->hold_ms);
	h->leaving = true;
	mana_qgate_leave(h->g);
	return NULL;
}

static void
test_close_waits(void)
{
	struct holder h = { .g = &gates[1], .hold_ms = 200 };
	pthread_t t;

	mana_qgate_open_gate(h.g);
	REQUIRE_EQ(pthread_create(&t, NULL, hold_thread, &h), 0);
	while (!h.entered)
		comp_sleep_ms(1);
	CHECK_EQ(mana_qgate_close_wait(h.g, COMP_WAIT_MS, 0, "TX", 1), 0);
	CHECK_MSG(h.leaving, "close returned while the holder was inside");
	CHECK_EQ(h.g->state, MANA_QGATE_CLOSED);
	CHECK_EQ(h.g->takeovers, 0);
	pthread_join(t, NULL);
	CHECK_EQ(h.g->state, MANA_QGATE_CLOSED);
}

/* A child enters gate g as its own process, then dies there or sleeps. */
static pid_t
child_holder(struct mana_qgate *g, bool die)
{
	pid_t pid = fork();

	if (pid == 0) {
		mana_qgate_self = (uint32_t)getpid();
		if (!mana_qgate_enter(g))
			_exit(2);
		if (die)
			_exit(0);
		for (;;)
			pause();
	}
	while (pid > 0 && __atomic_load_n(&g->state, __ATOMIC_ACQUIRE) != (uint32_t)pid)
		comp_sleep_ms(1);
	return pid;
}

static void
test_dead_holder(void)
{
	struct mana_qgate *g = &gates[2];
	uint64_t t0;
	pid_t pid;
	int st;

	mana_qgate_open_gate(g);
	pid = child_holder(g, true);
	REQUIRE(pid > 0);
	REQUIRE_EQ(waitpid(pid, &st, 0), pid);
	CHECK_EQ(g->state, (uint32_t)pid);	/* it died inside */
	t0 = comp_now_ms();
	CHECK_EQ(mana_qgate_close_wait(g, COMP_WAIT_MS, 0, "RX", 2), 0);
	CHECK_MSG(comp_now_ms() - t0 < COMP_WAIT_MS / 2, "takeover took %llu ms",
		  (unsigned long long)(comp_now_ms() - t0));
	CHECK_EQ(g->state, MANA_QGATE_CLOSED);
	CHECK_EQ(g->takeovers, 1);
}

static void
test_hung_holder(void)
{
	struct mana_qgate *g = &gates[3];
	uint32_t saved = mana_qgate_self;
	pid_t pid;
	int st;

	mana_qgate_open_gate(g);
	pid = child_holder(g, false);
	REQUIRE(pid > 0);
	CHECK_EQ(mana_qgate_close_wait(g, 100, 0, "TX", 3), -ETIMEDOUT);
	CHECK_EQ(g->state, MANA_QGATE_CLOSED);
	CHECK_EQ(g->takeovers, 1);
	/* The holder's late leave (as that process) must not open the gate again. */
	mana_qgate_self = (uint32_t)pid;
	mana_qgate_leave(g);
	mana_qgate_self = saved;
	CHECK_EQ(g->state, MANA_QGATE_CLOSED);
	CHECK(!mana_qgate_enter(g));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

static const struct comp_case cases[] = {
	{ "enter_leave", test_enter_leave },
	{ "close_waits", test_close_waits },
	{ "dead_holder", test_dead_holder },
	{ "hung_holder", test_hung_holder },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	mana_logtype_driver = rte_log_register("pmd.net.mana.driver");
	gates = mmap(NULL, 4 * sizeof(*gates), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (gates == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
