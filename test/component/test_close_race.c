/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * A port closed on two threads at once, or closed on one while the other
 * stops, starts or resets it (issue 32 D2: testpmd's removal handler on
 * EAL's interrupt thread against its command line), or reads it (statistics,
 * RSS table, queue info, rte_pmd_mana_port_info_get): one close does the
 * work, every other call returns an error, and nothing touches the port's
 * freed memory (mana_portref.c; run under ASan in CI).
 *
 * The racing calls go to the driver's ops (the const eth_dev_ops, never
 * freed) rather than through ethdev: ethdev's own functions validate the
 * port once and then read dev->dev_ops, which rte_eth_dev_release_port()
 * clears, so a thread preempted in between crashes in ethdev whatever the
 * driver does. Each port is released by exactly one rte_eth_dev_close(),
 * whose checks run before any release.
 */

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <rte_alarm.h>
#include <rte_version.h>
#include <ethdev_driver.h>

#include "comp.h"
#include "rte_pmd_mana.h"

#define POOL_N	4096u

static struct rte_mempool *race_pool;

/* A started port of vdev name (wire=loop plus args), 2 queues; -1 on failure. */
static int
race_port(const char *name, const char *args, bool rmv)
{
	struct comp_port_cfg pc = { .nb_rxq = 2, .nb_txq = 2, .intr_rmv = rmv };
	char all[128];
	int pid;

	snprintf(all, sizeof(all), "wire=loop%s%s", args[0] != '\0' ? "," : "", args);
	if (comp_vdev_create(name, all) != 0)
		return -1;
	pid = comp_port_of(name, 0);
	if (pid < 0 || comp_port_start((uint16_t)pid, &pc, race_pool) != 0)
		return -1;
	return pid;
}

enum race_op {
	RACE_CLOSE, RACE_RESET, RACE_START, RACE_STOP,
	RACE_STATS, RACE_RETA, RACE_RXQ_INFO, RACE_API_INFO, RACE_NB
};

static const char * const race_names[RACE_NB] = {
	"close", "reset", "start", "stop", "stats get", "RETA query", "RX queue info",
	"rte_pmd_mana_port_info_get",
};

/* The readers: 0, or -ENODEV when the port is closed or being closed. */
static int
race_read(struct rte_eth_dev *dev, const struct eth_dev_ops *ops, enum race_op op)
{
	struct rte_eth_rss_reta_entry64 reta[1] = { { .mask = UINT64_MAX } };
	struct rte_pmd_mana_port_info info;
	struct rte_eth_rxq_info qinfo;
	struct rte_eth_stats st;

	memset(&st, 0, sizeof(st));
	switch (op) {
	case RACE_STATS:
#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)
		return ops->stats_get(dev, &st, NULL);
#else
		return ops->stats_get(dev, &st);
#endif
	case RACE_RETA:
		return ops->reta_query(dev, reta, RTE_ETH_RETA_GROUP_SIZE);
	case RACE_RXQ_INFO:
		/* Returns nothing: a refused call leaves qinfo as it was. */
		memset(&qinfo, 0, sizeof(qinfo));
		ops->rxq_info_get(dev, 0, &qinfo);
		return qinfo.nb_desc != 0 ? 0 : -ENODEV;
	default:
		return rte_pmd_mana_port_info_get((uint16_t)(dev - rte_eth_devices), &info);
	}
}

/* The driver's op, on the ethdev entry that stays in place after the release. */
static int
race_call(struct rte_eth_dev *dev, const struct eth_dev_ops *ops, enum race_op op)
{
	switch (op) {
	case RACE_RESET:
		return ops->dev_reset(dev);
	case RACE_START:
		return ops->dev_start(dev);
	case RACE_STOP:
		return ops->dev_stop(dev);
	case RACE_CLOSE:
		return ops->dev_close(dev);
	default:
		return race_read(dev, ops, op);
	}
}

struct racer {
	struct rte_eth_dev *dev;
	const struct eth_dev_ops *ops;
	enum race_op op;
	uint32_t go;		/* both threads spin on it, then call at once */
	int ret;
};

static void *
racer_thread(void *arg)
{
	struct racer *r = arg;

	while (__atomic_load_n(&r->go, __ATOMIC_ACQUIRE) == 0)
		;
	r->ret = race_call(r->dev, r->ops, r->op);
	return NULL;
}

/*
 * rte_eth_dev_close() here while the other thread runs op on the (stopped)
 * port: the port is gone after both; with two closes exactly one returns 0;
 * the other op either ran first (0) or was refused (-ENODEV).
 */
static void
race_once(uint16_t pid, enum race_op op)
{
	struct racer r = { .dev = &rte_eth_devices[pid], .ops = rte_eth_devices[pid].dev_ops,
			   .op = op, .go = 0, .ret = 1 };
	pthread_t t;
	int mine;

	REQUIRE_EQ(rte_eth_dev_stop(pid), 0);
	REQUIRE_EQ(pthread_create(&t, NULL, racer_thread, &r), 0);
	__atomic_store_n(&r.go, 1, __ATOMIC_RELEASE);
	mine = rte_eth_dev_close(pid);
	pthread_join(t, NULL);
	CHECK(!rte_eth_dev_is_valid_port(pid), "port %u still there after the race", pid);
	if (op == RACE_CLOSE) {
		CHECK(mine == 0 ? r.ret == -ENODEV : r.ret == 0,
		      "two closes returned %d and %d: exactly one must succeed, the other "
		      "-ENODEV", mine, r.ret);
	} else {
		CHECK_EQ(mine, 0);
		CHECK(r.ret == 0 || r.ret == -ENODEV, "%s racing a close returned %d",
		      race_names[op], r.ret);
	}
	/* The op again, on the released port: refused, nothing read. */
	CHECK_EQ(race_call(r.dev, r.ops, op), -ENODEV);
}

static void
test_close_race(void)
{
	unsigned int i;
	int pid;

	for (i = 0; i < 48 && check_fails == 0; i++) {
		pid = race_port("net_mana_race", "", false);
		REQUIRE(pid >= 0);
		race_once((uint16_t)pid, (enum race_op)(i % RACE_NB));
		comp_vdev_destroy("net_mana_race");
	}
	CHECK_EQ(rte_mempool_avail_count(race_pool), POOL_N);
}

/* ---- the sequence --------------------------------------------------- */

/* As testpmd's removal handler: an alarm on the interrupt thread stops and closes the port. */
static int rmv_close_ret;
static uint32_t rmv_close_done, rmv_delay_us, recovery_failed;

static void
rmv_close_alarm(void *arg)
{
	uint16_t pid = (uint16_t)(uintptr_t)arg;

	rte_eth_dev_stop(pid);
	rmv_close_ret = rte_eth_dev_close(pid);
	__atomic_store_n(&rmv_close_done, 1, __ATOMIC_RELEASE);
}

static int
ev_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (type == RTE_ETH_EVENT_RECOVERY_FAILED)
		__atomic_store_n(&recovery_failed, 1, __ATOMIC_RELEASE);
	else if (type == RTE_ETH_EVENT_INTR_RMV)
		rte_eal_alarm_set(rmv_delay_us, rmv_close_alarm, (void *)(uintptr_t)port);
	return 0;
}

/*
 * A device that does not come back (recovery_timeout=100), INTR_RMV closing
 * the port on the interrupt thread, while this thread stops, starts, resets
 * and closes it without pause. Exactly one close succeeds; the port is gone.
 */
static void
test_rmv_close_race(void)
{
	const struct eth_dev_ops *ops;
	struct rte_eth_dev *dev;
	struct mana_model *m;
	int closes_ok, pid, round, i, ret;
	uint64_t end;

	for (round = 0; round < 8 && check_fails == 0; round++) {
		pid = race_port("net_mana_rmv", "recovery_timeout=100", true);
		m = mana_model_find("net_mana_rmv");
		REQUIRE(pid >= 0 && m != NULL);
		dev = &rte_eth_devices[pid];
		ops = dev->dev_ops;
		REQUIRE_EQ(rte_eth_dev_callback_register(pid, RTE_ETH_EVENT_INTR_RMV, ev_cb, NULL),
			   0);
		REQUIRE_EQ(rte_eth_dev_callback_register(pid, RTE_ETH_EVENT_RECOVERY_FAILED, ev_cb,
							 NULL), 0);
		__atomic_store_n(&rmv_close_done, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&recovery_failed, 0, __ATOMIC_RELEASE);
		/* Each round the removal close lands at another step of the loop below. */
		rmv_delay_us = 1 + 5000 * (uint32_t)round;
		rmv_close_ret = 1;
		closes_ok = 0;
		REQUIRE_EQ(mana_model_reset(m, 600000), 0);
		/* No dev_reset before the driver gave up: it would rebuild the port instead. */
		end = comp_now_ms() + COMP_WAIT_MS;
		while (!__atomic_load_n(&recovery_failed, __ATOMIC_ACQUIRE) && comp_now_ms() < end)
			;
		REQUIRE(__atomic_load_n(&recovery_failed, __ATOMIC_ACQUIRE));
		/*
		 * Stopped for ethdev: the removal close is not refused as a started
		 * port's. The removal alarm (1 us after INTR_RMV in round 0) may have
		 * closed and released the port already: then ethdev answers -ENODEV.
		 */
		ret = rte_eth_dev_stop(pid);
		REQUIRE(ret == 0 || ret == -ENODEV);
		end = comp_now_ms() + COMP_WAIT_MS;
		for (i = round; !__atomic_load_n(&rmv_close_done, __ATOMIC_ACQUIRE) &&
		     comp_now_ms() < end; i++)
			closes_ok += race_call(dev, ops, (enum race_op)(i % RACE_NB)) == 0 &&
				     i % RACE_NB == RACE_CLOSE;
		CHECK(__atomic_load_n(&rmv_close_done, __ATOMIC_ACQUIRE), "no INTR_RMV close");
		CHECK(!rte_eth_dev_is_valid_port(pid), "port %d still there", pid);
		CHECK_EQ(closes_ok + (rmv_close_ret == 0), 1);
		comp_vdev_destroy("net_mana_rmv");
	}
	CHECK_EQ(rte_mempool_avail_count(race_pool), POOL_N);
}

static const struct comp_case cases[] = {
	{ "close_race", test_close_race },
	{ "rmv_close_race", test_rmv_close_race },
};

static void
race_teardown(void)
{
	rte_mempool_free(race_pool);
}

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	race_pool = comp_pool("race_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	if (race_pool == NULL)
		return 1;
	comp_teardown = race_teardown;
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
