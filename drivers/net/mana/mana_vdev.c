/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Virtual front-end: --vdev net_mana<N>[,key=value...] (keys: mana_devargs.c).
 *
 * Without ibdev= the port runs on the software device: the model named by
 * model= (default: the vdev name) is used if it exists, otherwise created
 * from the devargs and destroyed when the last port using it is closed: that
 * of this vdev or of another vdev naming it, whichever is closed last.
 * With ibdev= the named rdma-core device (or an existing model device) is
 * driven. Ethdevs are named "<vdev name>_port<IB port>" (IB port = vPort + 1),
 * as on PCI, and the remove callback closes every one of them.
 *
 * NUMA: queue memory goes to the socket of the queue setup call (default:
 * the port's); the port's socket is the device's NUMA node (sysfs) for an
 * rdma-core device, the model's node for an existing model, and for a model
 * created here the node of engine_cpu if given, else of the probing lcore.
 * Engine CPU when engine_cpu is not given and the device has one engine
 * thread: the first CPU of that node used by no EAL lcore, else not pinned
 * (engine_cpu=-1: never pinned; the thread then inherits the probing
 * thread's affinity, i.e. the main lcore's CPU, and a busy main lcore starves
 * it). Several threads (engine_threads=N, MANA_MODEL_ENGINE_THREADS) without
 * engine_cpu are not pinned.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* cpu_set_t, rte_lcore_cpuset() */
#endif
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include <numa.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <bus_vdev_driver.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

static struct ibv_device *
mana_find_ibdev(struct ibv_device **list, const char *name)
{
	int i;

	for (i = 0; list != NULL && list[i] != NULL; i++)
		if (strcmp(mana_vs_device_name(list[i]), name) == 0)
			return list[i];
	return NULL;
}

/*
 * The CPUs the process may run on: its affinity when the driver loaded,
 * before EAL pins the main thread to its lcore (plugins and built-in
 * drivers initialise first). engine_cpu= is checked against the same set by
 * the settings parser.
 */
static rte_cpuset_t mana_start_cpus;
static bool mana_start_cpus_known;

RTE_INIT(mana_record_start_cpus)
{
	mana_start_cpus_known = sched_getaffinity(0, sizeof(mana_start_cpus),
						  &mana_start_cpus) == 0;
}

/*
 * Default engine CPU: the first CPU of the node that the process may run on
 * and no EAL lcore runs on, so the engine does not share a core with a
 * polling lcore; -1 (not pinned: the thread inherits the probing thread's
 * affinity) when every CPU is used.
 */
static int
mana_engine_cpu_default(int socket)
{
	unsigned int lcore, cpu, ncpu = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	rte_cpuset_t used, set;

	CPU_ZERO(&used);
	RTE_LCORE_FOREACH(lcore) {
		set = rte_lcore_cpuset(lcore);
		CPU_OR(&used, &used, &set);
	}
	for (cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE; cpu++) {
		if (CPU_ISSET(cpu, &used) ||
		    (mana_start_cpus_known && !CPU_ISSET(cpu, &mana_start_cpus)))
			continue;
		if (socket < 0 || numa_available() < 0 || numa_node_of_cpu(cpu) == socket)
			return cpu;
	}
	return -1;
}

/*
 * The software device of a vdev without ibdev=: found or created. *sh is the
 * state of its owner when another vdev created it (shared with that vdev's
 * ports), a new one owning it when created here, else NULL.
 */
static int
mana_vdev_model(const char *vname, const struct mana_devargs *da, struct mana_shared **sh,
		int *socket)
{
	const struct mana_vs_model_api *api = mana_vs_model_api();
	const char *name = da->model[0] != '\0' ? da->model : vname;
	struct mana_model_config cfg;
	struct mana_model *m;
	int ret;

	if (api == NULL) {
		PMD_INIT_LOG(ERR, "%s: this build of net_mana has no software device "
			     "(-Dmodel=false): name an Azure MANA device with ibdev=<name>", vname);
		return -ENOTSUP;
	}
	m = api->find(name);
	if (m != NULL) {
		if (da->model_keys) {
			PMD_INIT_LOG(ERR, "%s: model '%s' exists; the software device's settings "
				     "(ports, wire, doorbell, coalesce, engine_cpu...) only "
				     "configure a new one", vname, name);
			return -EINVAL;
		}
		*socket = api->config(m)->numa_node;
		*sh = mana_shared_of_model(m);
		return 0;
	}
	*socket = rte_socket_id();
	if (da->settings.numa_given)
		*socket = da->settings.cfg.numa_node;
	else if (da->settings.cfg.engine_cpu[0] >= 0 && numa_available() >= 0)
		*socket = numa_node_of_cpu(da->settings.cfg.engine_cpu[0]);
	ret = mana_devargs_model_config(da, name, *socket, &cfg);
	if (ret != 0)
		return ret;
	if (!da->settings.engine_cpu_given && cfg.engine_threads == 1)
		cfg.engine_cpu[0] = mana_engine_cpu_default(*socket);
	m = mana_vs_model_create(&cfg);
	if (m == NULL) {
		ret = errno != 0 ? errno : EIO;	/* before logging can change it; never 0 */
		PMD_INIT_LOG(ERR, "%s: creating software device '%s': %s", vname, name,
			     strerror(ret));
		return -ret;
	}
	*sh = mana_shared_new(m);
	if (*sh == NULL) {
		mana_vs_model_destroy(m);
		return -ENOMEM;
	}
	return 0;
}

/* ibdev= naming a software device that another vdev created: share its state. */
static struct mana_shared *
mana_vdev_ibdev_shared(const char *ibdev)
{
	const struct mana_vs_model_api *api = mana_vs_model_api();
	struct mana_model *m = api != NULL ? api->find(ibdev) : NULL;

	return m != NULL ? mana_shared_of_model(m) : NULL;
}

static int
mana_vdev_probe(struct rte_vdev_device *vdev)
{
	const char *vname = rte_vdev_device_name(vdev);
	struct ibv_device **list = NULL, *ibdev;
	struct mana_devargs da;
	struct mana_shared *sh = NULL;
	int socket = SOCKET_ID_ANY, ret;

	/* A secondary attaches to the primary's ports; devargs are the primary's business. */
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return mana_mp_secondary_probe(&vdev->device);
	ret = mana_devargs_parse(rte_vdev_device_args(vdev), MANA_DEVARGS_VDEV, &da);
	if (ret != 0)
		return ret;
	/* sh: with the probe's own reference, dropped at the end. */
	if (da.ibdev[0] == '\0')
		ret = mana_vdev_model(vname, &da, &sh, &socket);
	else
		sh = mana_vdev_ibdev_shared(da.ibdev);
	if (ret == 0 && sh == NULL) {
		sh = mana_shared_new(NULL);
		if (sh == NULL)
			ret = -ENOMEM;
	}
	if (ret == 0) {
		list = mana_vs_get_device_list(NULL);
		ibdev = mana_find_ibdev(list, da.ibdev[0] != '\0' ? da.ibdev :
					da.model[0] != '\0' ? da.model : vname);
		if (ibdev == NULL) {
			PMD_INIT_LOG(ERR, "%s: no device named %s", vname,
				     da.ibdev[0] != '\0' ? da.ibdev : "after the model");
			ret = -ENODEV;
		} else {
			if (da.ibdev[0] != '\0')
				socket = mana_sysfs_numa_node(ibdev);
			if (socket < 0)
				socket = rte_socket_id();
			ret = mana_probe_ports(&vdev->device, ibdev, &da, sh, socket, false);
			if (ret > 0) {
				PMD_INIT_LOG(ERR, "%s: %s is not a MANA Ethernet device with "
					     "ports", vname, mana_vs_device_name(ibdev));
				ret = -ENODEV;
			}
		}
	}
	if (ret != 0)
		mana_dev_remove_all(&vdev->device);
	mana_shared_put(sh);
	if (list != NULL)
		mana_vs_free_device_list(list);
	return ret;
}

static int
mana_vdev_remove(struct rte_vdev_device *vdev)
{
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return mana_mp_secondary_remove(&vdev->device);
	return mana_dev_remove_all(&vdev->device);
}

static struct rte_vdev_driver mana_vdev_driver = {
	.probe = mana_vdev_probe,
	.remove = mana_vdev_remove,
};

RTE_PMD_REGISTER_VDEV(net_mana, mana_vdev_driver);
RTE_PMD_REGISTER_PARAM_STRING(net_mana,
	"ibdev=<name> "
	"model=<name> "
	"ports=<1-8> "
	"mac=<xx:xx:xx:xx:xx:xx> "
	"wire=<none|loop|pair:..|gen..|pcap:..|tap:..> "
	"wire<N>=<spec> "
	"mac<N>=<xx:xx:xx:xx:xx:xx> "
	"engine_cpu=<-1..1023[:-1..1023]...> "
	"engine_threads=<1-16> "
	"doorbell=<queue|shared|memory> "
	"coalesce=<0|1> "
	"cqe_batch=<1..64> "
	"numa=<-1..1023> "
	"max_qp=<1..65535> "
	"max_qp_wr=<1..2048> "
	"rdma_core=<44..999> "
	"part=<0|2> "
	"tx_cqe_suppress=<0|1> "
	"recovery=<auto|manual> "
	"recovery_timeout=<100-600000> "
	"datapath=<auto|scalar|sse|avx2|neon>");
