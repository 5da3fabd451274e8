/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * PCI front-end (1414:00ba VF, 1414:00b9 PF), bifurcated as upstream: the
 * function stays bound to the kernel mana driver; its rdma-core device is
 * the one whose <ibdev_path>/device/uevent names the function in
 * PCI_SLOT_NAME. Ports: the netdevs under <ibdev_path>/device/net whose
 * dev_port is IB port - 1 give the MACs; mac= (up to 8) selects among them.
 * Ethdevs are "<BDF>_port<IB port>"; remove closes every one of them.
 *
 * Software device as a PCI function (CI): with
 *   MANA_MODEL_PCI=<BDF>[,mac=..,<software device settings: ports=..,wire=..,coalesce=..>]
 *   SYSFS_PCI_DEVICES=<root>/bus/pci/devices
 * the plugin creates, when it is loaded (before EAL scans the PCI bus), a
 * model device named "mana_pci_<BDF>" that writes its PCI function and IB
 * device under <root> (MANA_MODEL_SYSFS=<root> overrides the root derived
 * from SYSFS_PCI_DEVICES). It is destroyed when the plugin is unloaded.
 */

#define _GNU_SOURCE		/* dladdr */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pci.h>
#include <bus_pci_driver.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

#define MANA_PCI_VENDOR_ID	0x1414
#define MANA_PCI_DEVICE_VF	0x00ba
#define MANA_PCI_DEVICE_PF	0x00b9
#define MANA_SYSFS_PATH_MAX	1024

static int
sysfs_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (f == NULL)
		return -errno;
	if (fgets(buf, size, f) == NULL)
		ret = -EIO;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return ret;
}

int
mana_sysfs_numa_node(struct ibv_device *ibdev)
{
	char path[MANA_SYSFS_PATH_MAX], line[32];

	snprintf(path, sizeof(path), "%s/device/numa_node", mana_vs_ibdev_path(ibdev));
	if (sysfs_read_line(path, line, sizeof(line)) != 0)
		return SOCKET_ID_ANY;
	return atoi(line);
}

/*
 * Attribute attr of the kernel netdev of ib_port: the one under
 * <ibdev_path>/device/net whose dev_port is ib_port - 1 (Ethernet ports
 * count from 0, IB ports from 1).
 */
static int
mana_sysfs_port_attr(struct ibv_device *ibdev, uint8_t ib_port, const char *attr, char *buf,
		     size_t size)
{
	char dir[MANA_SYSFS_PATH_MAX], path[MANA_SYSFS_PATH_MAX + 300], line[32];
	struct dirent *e;
	int ret = -ENOENT;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/device/net", mana_vs_ibdev_path(ibdev));
	d = opendir(dir);
	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev_port", dir, e->d_name);
		if (sysfs_read_line(path, line, sizeof(line)) != 0 || atoi(line) != ib_port - 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", dir, e->d_name, attr);
		ret = sysfs_read_line(path, buf, size);
		break;
	}
	closedir(d);
	return ret;
}

int
mana_sysfs_port_mac(struct ibv_device *ibdev, uint8_t ib_port, struct rte_ether_addr *mac)
{
	char line[64];
	int ret;

	ret = mana_sysfs_port_attr(ibdev, ib_port, "address", line, sizeof(line));
	if (ret == 0 && rte_ether_unformat_addr(line, mac) != 0)
		ret = -EINVAL;
	return ret;
}

/* The port's MTU is its netdev's (hardware.md §7.4); 0 when unknown. */
uint16_t
mana_sysfs_port_mtu(struct ibv_device *ibdev, uint8_t ib_port)
{
	char line[32], *end;
	unsigned long mtu;

	if (mana_sysfs_port_attr(ibdev, ib_port, "mtu", line, sizeof(line)) != 0)
		return 0;
	mtu = strtoul(line, &end, 10);
	return end == line || *end != '\0' || mtu > UINT16_MAX ? 0 : (uint16_t)mtu;
}

/* Does ibdev belong to PCI function addr (uevent PCI_SLOT_NAME)? */
static bool
mana_ibdev_matches(struct ibv_device *ibdev, const struct rte_pci_addr *addr)
{
	char path[MANA_SYSFS_PATH_MAX], line[256];
	struct rte_pci_addr a;
	bool match = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/device/uevent", mana_vs_ibdev_path(ibdev));
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "PCI_SLOT_NAME=", 14) != 0)
			continue;
		match = rte_pci_addr_parse(line + 14, &a) == 0 && rte_pci_addr_cmp(&a, addr) == 0;
		break;
	}
	fclose(f);
	return match;
}

static void mana_pci_note_later_claimants(void);

static int
mana_pci_probe(struct rte_pci_driver *drv, struct rte_pci_device *pci)
{
	struct rte_devargs *devargs = pci->device.devargs;
	struct ibv_device **list;
	struct mana_devargs da;
	struct mana_shared *sh;
	int i, ret = -ENODEV, socket = pci->device.numa_node;

	RTE_SET_USED(drv);
	mana_pci_note_later_claimants();
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return mana_mp_secondary_probe(&pci->device);
	ret = mana_devargs_parse(devargs != NULL ? devargs->args : NULL, MANA_DEVARGS_PCI, &da);
	if (ret != 0)
		return ret;
	list = mana_vs_get_device_list(NULL);
	if (list == NULL) {
		PMD_INIT_LOG(ERR, "%s: no rdma-core devices: %s", pci->device.name,
			     strerror(errno));
		return -ENODEV;
	}
	sh = mana_shared_new(NULL);
	if (sh == NULL) {
		mana_vs_free_device_list(list);
		return -ENOMEM;
	}
	if (socket < 0)
		socket = rte_socket_id();
	ret = -ENODEV;
	for (i = 0; list[i] != NULL; i++) {
		if (!mana_ibdev_matches(list[i], &pci->addr))
			continue;
		/* 1: not the function's Ethernet device (an RNIC one): try the next. */
		ret = mana_probe_ports(&pci->device, list[i], &da, sh, socket, true);
		if (ret <= 0)
			break;
	}
	if (list[i] == NULL) {	/* no Ethernet device of the function was found */
		PMD_INIT_LOG(ERR, "%s: no MANA Ethernet rdma-core device on this function (are "
			     "mana_ib and ib_uverbs loaded?)", pci->device.name);
		ret = -ENODEV;
	}
	if (ret != 0)
		mana_dev_remove_all(&pci->device);
	mana_shared_put(sh);
	mana_vs_free_device_list(list);
	return ret;
}

static int
mana_pci_remove(struct rte_pci_device *pci)
{
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return mana_mp_secondary_remove(&pci->device);
	return mana_dev_remove_all(&pci->device);
}

static const struct rte_pci_id mana_pci_id_map[] = {
	{ RTE_PCI_DEVICE(MANA_PCI_VENDOR_ID, MANA_PCI_DEVICE_VF) },
	{ RTE_PCI_DEVICE(MANA_PCI_VENDOR_ID, MANA_PCI_DEVICE_PF) },
	{ .vendor_id = 0 },
};

static struct rte_pci_driver mana_pci_driver = {
	.id_table = mana_pci_id_map,
	.probe = mana_pci_probe,
	.remove = mana_pci_remove,
	.drv_flags = RTE_PCI_DRV_INTR_RMV,
};

/* ---- other MANA drivers in the process -------------------------------- */

/*
 * Debian 13 ships DPDK's own net/mana, and EAL loads it into every
 * application: two drivers then claim the MANA device IDs. The PCI bus
 * offers a function to its drivers in registration order and the first probe
 * that succeeds keeps it; a plugin registers when it is loaded, plugins given
 * with -d before those of the autoload directory, which load in directory
 * (readdir) order. So that the outcome never hangs on that order, net_mana
 * moves every driver registered before it that claims a MANA ID behind
 * itself: in a process that loads net_mana, net_mana takes every MANA
 * function and the other driver is offered none (doc/user_guide.md,
 * "Beside Debian's net/mana").
 *
 * The bus keeps its drivers in a TAILQ through the public `next` entry at
 * the start of struct rte_pci_driver, so the driver registered before ours is
 * the struct at our entry's tqe_prev, unless that address is the list head.
 * A real entry E satisfies *E->next.tqe_prev == E; the head read as an entry
 * has tqe_prev = tqh_last, which points to the last entry's NULL tqe_next.
 * Only the head's own two pointers are ever read as such.
 */
#define MANA_PCI_OTHERS_MAX	16

/* Does drv's ID table name one of ours (mana_pci_id_map)? */
static bool
mana_pci_claims_mana(const struct rte_pci_driver *drv)
{
	const struct rte_pci_id *id, *ours;

	for (id = drv->id_table; id != NULL && id->vendor_id != 0; id++)
		for (ours = mana_pci_id_map; ours->vendor_id != 0; ours++)
			if (id->vendor_id == ours->vendor_id && id->device_id == ours->device_id)
				return true;
	return false;
}

static const char *
mana_pci_driver_file(const struct rte_pci_driver *drv)
{
	Dl_info info;

	if (dladdr(drv, &info) == 0 || info.dli_fname == NULL)
		return "?";
	return info.dli_fname;
}

/* Drivers registered before ours that claim a MANA ID, nearest first. */
static unsigned int
mana_pci_earlier_claimants(struct rte_pci_driver **out, unsigned int max)
{
	struct rte_pci_driver *e = &mana_pci_driver;
	unsigned int n = 0;

	for (;;) {
		struct rte_pci_driver *prev = (struct rte_pci_driver *)e->next.tqe_prev;

		if (prev == NULL || *prev->next.tqe_prev != prev)
			break;		/* not registered, or the list head */
		if (mana_pci_claims_mana(prev) && n < max)
			out[n++] = prev;
		e = prev;
	}
	return n;
}

/* Set once the other MANA drivers were named in the log. */
static bool mana_pci_others_said;

/*
 * NET_MANA_PCI=0 leaves MANA PCI functions to the other drivers of the
 * process (Debian's net/mana): the PCI driver is not registered at all, and
 * only the vdev front-end (software devices, ibdev=) remains. Read when the
 * plugin is loaded, before EAL has parsed anything: a devarg cannot do it,
 * since both drivers see the same -a devargs and DPDK's rejects unknown keys.
 */
static bool
mana_pci_wanted(void)
{
	const char *env = getenv("NET_MANA_PCI");

	if (env == NULL || strcmp(env, "1") == 0)
		return true;
	if (strcmp(env, "0") != 0)
		PMD_INIT_LOG(ERR, "NET_MANA_PCI='%s': expected 0 or 1; taken as 1", env);
	else
		PMD_INIT_LOG(NOTICE, "NET_MANA_PCI=0: net_mana_pci not registered, MANA PCI "
			     "functions are left to other drivers (--vdev net_mana* still works)");
	return strcmp(env, "0") != 0;
}

RTE_INIT(mana_pci_register)
{
	struct rte_pci_driver *others[MANA_PCI_OTHERS_MAX];
	unsigned int i, n;

	if (!mana_pci_wanted())
		return;
	mana_pci_driver.driver.name = RTE_STR(net_mana_pci);
	rte_pci_register(&mana_pci_driver);
	n = mana_pci_earlier_claimants(others, RTE_DIM(others));
	for (i = n; i-- > 0; ) {
		rte_pci_unregister(others[i]);
		rte_pci_register(others[i]);
		PMD_INIT_LOG(NOTICE, "PCI driver %s (%s) was loaded before net_mana_pci (%s) "
			     "and also claims MANA functions: net_mana_pci takes them",
			     others[i]->driver.name, mana_pci_driver_file(others[i]),
			     mana_pci_driver_file(&mana_pci_driver));
	}
	mana_pci_others_said = n > 0;
}
MANA_PMD_EXPORT_NAME(net_mana_pci);

/* Those loaded after ours: said once, at the first probe, unless moved. */
static void
mana_pci_note_later_claimants(void)
{
	struct rte_pci_driver *e;

	if (mana_pci_others_said)
		return;
	mana_pci_others_said = true;
	for (e = mana_pci_driver.next.tqe_next; e != NULL; e = e->next.tqe_next)
		if (mana_pci_claims_mana(e))
			PMD_INIT_LOG(NOTICE, "PCI driver %s (%s) also claims MANA functions: "
				     "net_mana_pci (%s), registered before it, takes them",
				     e->driver.name, mana_pci_driver_file(e),
				     mana_pci_driver_file(&mana_pci_driver));
}

RTE_PMD_REGISTER_PCI_TABLE(net_mana_pci, mana_pci_id_map);
RTE_PMD_REGISTER_KMOD_DEP(net_mana_pci, "* ib_uverbs & mana_ib");
RTE_PMD_REGISTER_PARAM_STRING(net_mana_pci, "mac=<xx:xx:xx:xx:xx:xx> tx_cqe_suppress=<0|1> "
			      "recovery=<auto|manual> recovery_timeout=<100-600000> "
			      "datapath=<auto|scalar|sse|avx2|neon>");

/* ---- the software device as a PCI function ---------------------------- */

static struct mana_model *mana_pci_model;

static int
mana_pci_model_sysfs_root(char *root, size_t size)
{
	static const char suffix[] = "/bus/pci/devices";
	const char *env = getenv("MANA_MODEL_SYSFS");
	size_t len;

	if (env != NULL && env[0] != '\0') {
		snprintf(root, size, "%s", env);
		return 0;
	}
	env = getenv("SYSFS_PCI_DEVICES");
	if (env == NULL)
		return -ENOENT;
	len = strlen(env);
	while (len > 0 && env[len - 1] == '/')
		len--;
	if (len < sizeof(suffix) - 1 || len - (sizeof(suffix) - 1) >= size ||
	    strncmp(env + len - (sizeof(suffix) - 1), suffix, sizeof(suffix) - 1) != 0)
		return -EINVAL;
	snprintf(root, size, "%.*s", (int)(len - (sizeof(suffix) - 1)), env);
	return 0;
}

RTE_INIT(mana_pci_model_init)
{
	const char *env = getenv("MANA_MODEL_PCI");
	struct mana_model_config cfg;
	char raw[64], bdf[PCI_PRI_STR_SIZE], name[MANA_MODEL_NAME_LEN];
	struct mana_devargs da;
	struct rte_pci_addr addr;
	const char *args;
	size_t len;

	if (env == NULL || env[0] == '\0')
		return;
	args = strchr(env, ',');
	len = args != NULL ? (size_t)(args - env) : strlen(env);
	snprintf(raw, sizeof(raw), "%.*s", (int)len, env);
	if (rte_pci_addr_parse(raw, &addr) != 0 ||
	    mana_devargs_parse(args != NULL ? args + 1 : NULL, MANA_DEVARGS_MODEL_ENV, &da) != 0) {
		PMD_INIT_LOG(ERR, "MANA_MODEL_PCI='%s': expected <BDF>[,key=value...]", env);
		return;
	}
	rte_pci_device_name(&addr, bdf, sizeof(bdf));
	snprintf(name, sizeof(name), "mana_pci_%.12s", bdf);
	if (mana_devargs_model_config(&da, name, -1, &cfg) != 0)
		return;
	snprintf(cfg.pci_bdf, sizeof(cfg.pci_bdf), "%.12s", bdf);
	if (mana_pci_model_sysfs_root(cfg.sysfs_root, sizeof(cfg.sysfs_root)) != 0) {
		PMD_INIT_LOG(ERR, "MANA_MODEL_PCI needs SYSFS_PCI_DEVICES=<root>/bus/pci/devices "
			     "or MANA_MODEL_SYSFS=<root>");
		return;
	}
	mana_pci_model = mana_vs_model_create(&cfg);
	if (mana_pci_model == NULL)
		PMD_INIT_LOG(ERR, "MANA_MODEL_PCI: creating software device %s: %s", name,
			     strerror(errno));
}

RTE_FINI(mana_pci_model_fini)
{
	if (mana_pci_model != NULL && mana_vs_model_destroy(mana_pci_model) == 0)
		mana_pci_model = NULL;
}
