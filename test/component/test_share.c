/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * One software device, several vdevs (issue 13 items 1-3): a device that a
 * vdev created lives until the last port using it is closed, in whatever
 * order the ports are closed or the vdevs removed, and then leaves nothing
 * (no engine thread, no sysfs tree); a vPort bound by one vdev is refused to
 * another at probe with one line naming both; a port advertises the TX queues
 * that can start beside its RSS QP within the device's max_qp.
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>

#include "comp.h"

#define POOL_N		1024

/* Threads of this process (/proc/self/task entries). */
static int
thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* rte_eth_dev_close(pid) with the log captured in buf; returns its result. */
static int
close_logged(uint16_t pid, char *buf, size_t size)
{
	FILE *f = comp_log_begin(buf, size);
	int ret;

	if (f == NULL)
		return -errno;
	ret = rte_eth_dev_close(pid);
	comp_log_end(f);
	return ret;
}

/* One queue each, started, and stopped again: the port works. */
static void
port_runs(uint16_t pid, struct rte_mempool *mp)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };

	CHECK_EQ(comp_port_start(pid, &pc, mp), 0);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
}

/*
 * vdev A creates model `name` (two vPorts) and binds vPort 0; vdev B names
 * the model and binds vPort 1 by its MAC. Sets the ports and the device's
 * sysfs path; false if the setup failed.
 */
static bool
two_vdevs(const char *a, const char *b, const char *name, int *pa, int *pb, char *path,
	  size_t path_size)
{
	char args[160];
	struct mana_model *m;
	uint8_t mac[6];

	/* A MAC of its own per device: one left over by a failed case cannot clash. */
	snprintf(args, sizeof(args), "model=%s,ports=2,wire=loop,wire=loop,mac=02:00:00:5a:%02x:01",
		 name, (unsigned int)(unsigned char)name[strlen(name) - 1]);
	if (comp_vdev_create(a, args) != 0)
		return false;
	m = mana_model_find(name);
	if (m == NULL || mana_model_get_mac(m, 1, mac) != 0)
		return false;
	snprintf(path, path_size, "%s", mana_model_ibdev_path(m));
	snprintf(args, sizeof(args), "model=%s,mac=%02x:%02x:%02x:%02x:%02x:%02x", name, mac[0],
		 mac[1], mac[2], mac[3], mac[4], mac[5]);
	if (comp_vdev_create(b, args) != 0)
		return false;
	*pa = comp_port_of(a, 0);
	*pb = comp_port_of(b, 1);
	return *pa >= 0 && *pb >= 0 && comp_port_of(a, 1) < 0 && comp_port_of(b, 0) < 0;
}

/* The device and everything it had are gone: found by no name, no tree, no thread. */
static void
device_gone(const char *name, const char *path, int threads_before)
{
	CHECK_MSG(mana_model_find(name) == NULL, "model %s still exists", name);
	CHECK_MSG(access(path, F_OK) != 0, "sysfs tree %s is still there", path);
	CHECK_EQ(thread_count(), threads_before);
}

/*
 * Item 1: the creator's port closed first. The device stays for the other
 * vdev's port, which still runs; closing that one destroys it, without the
 * "Device or resource busy" line.
 */
static void
test_creator_closed_first(void)
{
	int threads = thread_count(), pa = -1, pb = -1;
	char path[512], log[4096];
	struct rte_mempool *mp;

	mp = comp_pool("sh1_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE(two_vdevs("net_mana_sh1a", "net_mana_sh1b", "lc_share1", &pa, &pb, path,
			  sizeof(path)));
	CHECK(thread_count() > threads);
	port_runs((uint16_t)pa, mp);
	CHECK_EQ(close_logged((uint16_t)pa, log, sizeof(log)), 0);
	CHECK_MSG(strstr(log, "destroying the software device") == NULL, "log: %s", log);
	CHECK_MSG(mana_model_find("lc_share1") != NULL, "the device went with the first port");
	CHECK_MSG(access(path, F_OK) == 0, "sysfs tree %s gone with the first port", path);
	port_runs((uint16_t)pb, mp);
	CHECK_EQ(close_logged((uint16_t)pb, log, sizeof(log)), 0);
	CHECK_MSG(strstr(log, "destroying the software device") == NULL, "log: %s", log);
	device_gone("lc_share1", path, threads);
	comp_vdev_destroy("net_mana_sh1a");
	comp_vdev_destroy("net_mana_sh1b");
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	rte_mempool_free(mp);
}

/* The other order: the joiner's port closed first, then the creator's. */
static void
test_joiner_closed_first(void)
{
	int threads = thread_count(), pa = -1, pb = -1;
	char path[512], log[4096];

	REQUIRE(two_vdevs("net_mana_sh2a", "net_mana_sh2b", "lc_share2", &pa, &pb, path,
			  sizeof(path)));
	CHECK_EQ(close_logged((uint16_t)pb, log, sizeof(log)), 0);
	CHECK(mana_model_find("lc_share2") != NULL);
	CHECK_EQ(close_logged((uint16_t)pa, log, sizeof(log)), 0);
	CHECK_MSG(strstr(log, "destroying the software device") == NULL, "log: %s", log);
	device_gone("lc_share2", path, threads);
	comp_vdev_destroy("net_mana_sh2a");
	comp_vdev_destroy("net_mana_sh2b");
}

/* Removing the vdevs (as EAL does at exit), creator first. */
static void
test_creator_removed_first(void)
{
	int threads = thread_count(), pa = -1, pb = -1;
	char path[512];

	REQUIRE(two_vdevs("net_mana_sh3a", "net_mana_sh3b", "lc_share3", &pa, &pb, path,
			  sizeof(path)));
	comp_vdev_destroy("net_mana_sh3a");
	CHECK(comp_port_of("net_mana_sh3a", 0) < 0);
	CHECK(mana_model_find("lc_share3") != NULL);
	CHECK(comp_port_of("net_mana_sh3b", 1) == pb);
	comp_vdev_destroy("net_mana_sh3b");
	device_gone("lc_share3", path, threads);
}

/*
 * Item 2: a vPort already bound (vdev A without mac= binds vPort 0) is
 * refused to vdev B at probe, with one line naming the vPort, the device and
 * vdev A; A's port is untouched and the device goes with it.
 */
static void
test_vport_bound_twice(void)
{
	int threads = thread_count(), pa;
	char log[4096], path[512];
	struct rte_mempool *mp;
	const char *line;

	mp = comp_pool("sh4_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_vdev_create("net_mana_sh4a", "model=lc_dup,wire=loop"), 0);
	REQUIRE(mana_model_find("lc_dup") != NULL);
	snprintf(path, sizeof(path), "%s", mana_model_ibdev_path(mana_model_find("lc_dup")));
	pa = comp_port_of("net_mana_sh4a", 0);
	REQUIRE(pa >= 0);
	CHECK_EQ(comp_vdev_create_logged("net_mana_sh4b", "model=lc_dup", log, sizeof(log)), -EBUSY);
	line = strstr(log, "net_mana_sh4b: vPort 0 (MAC ");
	CHECK_MSG(line != NULL && strstr(line, ") of lc_dup is already bound by net_mana_sh4a "
					 "(port ") != NULL &&
		  strstr(line, "): one port per vPort") != NULL, "log: %s", log);
	CHECK_MSG(strstr(log, "destroying the software device") == NULL, "log: %s", log);
	CHECK(comp_port_of("net_mana_sh4b", 0) < 0);
	/* The same through ibdev= naming the device. */
	CHECK_EQ(comp_vdev_create_logged("net_mana_sh4c", "ibdev=lc_dup", log, sizeof(log)), -EBUSY);
	CHECK_MSG(strstr(log, "net_mana_sh4c: vPort 0 (MAC ") != NULL, "log: %s", log);
	port_runs((uint16_t)pa, mp);
	comp_vdev_destroy("net_mana_sh4a");
	device_gone("lc_dup", path, threads);
	rte_mempool_free(mp);
}

/* The queue counts dev_info advertises for a device created with max_qp=qp. */
static bool
advertised(const char *vdev, const char *args, uint16_t *max_rx, uint16_t *max_tx, int *pid)
{
	struct rte_eth_dev_info info;

	if (comp_vdev_create(vdev, args) != 0)
		return false;
	*pid = comp_port_of(vdev, 0);
	if (*pid < 0 || rte_eth_dev_info_get((uint16_t)*pid, &info) != 0)
		return false;
	*max_rx = info.max_rx_queues;
	*max_tx = info.max_tx_queues;
	return true;
}

/*
 * Item 3: every TX queue is a QP and so is the RSS QP: the port advertises
 * max_qp - 1 TX queues (at most 64) and starts with all of them; one more is
 * refused at configure. max_qp=2: one TX queue; max_qp=1 is refused at probe.
 */
static void
test_qp_budget(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_desc = 64 };
	struct rte_eth_conf conf;
	struct rte_mempool *mp;
	uint16_t max_rx, max_tx;
	char log[4096];
	int pid;

	mp = comp_pool("sh5_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	memset(&conf, 0, sizeof(conf));

	REQUIRE(advertised("net_mana_sh5", "wire=loop", &max_rx, &max_tx, &pid));
	CHECK_EQ(max_rx, 64);
	CHECK_EQ(max_tx, 63);
	pc.nb_txq = max_tx;
	CHECK_EQ(comp_port_start((uint16_t)pid, &pc, mp), 0);
	CHECK_EQ(rte_eth_dev_stop((uint16_t)pid), 0);
	CHECK_EQ(rte_eth_dev_configure((uint16_t)pid, 1, (uint16_t)(max_tx + 1), &conf), -EINVAL);
	CHECK_EQ(rte_eth_dev_close((uint16_t)pid), 0);
	comp_vdev_destroy("net_mana_sh5");

	REQUIRE(advertised("net_mana_sh6", "wire=loop,max_qp=2", &max_rx, &max_tx, &pid));
	CHECK_EQ(max_rx, 2);
	CHECK_EQ(max_tx, 1);
	pc.nb_txq = 1;
	pc.nb_rxq = 2;
	pc.rss = true;
	pc.rss_hf = RTE_ETH_RSS_IPV4;
	CHECK_EQ(comp_port_start((uint16_t)pid, &pc, mp), 0);
	CHECK_EQ(rte_eth_dev_stop((uint16_t)pid), 0);
	CHECK_EQ(rte_eth_dev_configure((uint16_t)pid, 1, 2, &conf), -EINVAL);
	CHECK_EQ(rte_eth_dev_close((uint16_t)pid), 0);
	comp_vdev_destroy("net_mana_sh6");

	CHECK(comp_vdev_create_logged("net_mana_sh7", "max_qp=1", log, sizeof(log)) != 0);
	CHECK_MSG(strstr(log, "net_mana_sh7 offers 1 QP (max_qp); a port needs at least 2: a "
			      "TX queue and the RSS QP") != NULL, "log: %s", log);
	CHECK(comp_port_of("net_mana_sh7", 0) < 0);
	CHECK(mana_model_find("net_mana_sh7") == NULL);
	CHECK_EQ(rte_mempool_avail_count(mp), 4096);
	rte_mempool_free(mp);
}

static const struct comp_case cases[] = {
	{ "creator_closed_first", test_creator_closed_first },
	{ "joiner_closed_first", test_joiner_closed_first },
	{ "creator_removed_first", test_creator_removed_first },
	{ "vport_bound_twice", test_vport_bound_twice },
	{ "qp_budget", test_qp_budget },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
