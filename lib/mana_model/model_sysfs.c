/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The sysfs-like tree that makes a model device look like a MANA PCI
 * function and an RDMA device to probe code: class/infiniband{,_verbs}
 * entries and, with a PCI address, bus/pci/devices/<bdf> with its netdevs.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_priv.h"

static int
mm_write_file(const char *dir, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
mm_write_file(const char *dir, const char *file, const char *fmt, ...)
{
	char path[MANA_MODEL_PATH_LEN * 2];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (f == NULL)
		return errno;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	return fclose(f) == 0 ? 0 : errno;
}

/*
 * The netdev's mtu file follows the port's MTU, as the kernel's does: a
 * driver that probes again reads the device's MTU there (hardware.md §7.4).
 */
void
mm_sysfs_port_mtu(const struct mana_model *m, unsigned int port)
{
	char dir[MANA_MODEL_PATH_LEN * 2];

	if (m->pci_dir[0] == '\0')
		return;
	snprintf(dir, sizeof(dir), "%s/net/%.10s_p%u", m->pci_dir, m->cfg.name, port);
	if (mm_write_file(dir, "mtu", "%u\n", m->port[port].mtu) != 0)
		mm_log(MM_LOG_WARNING, "sysfs %s/mtu: not updated", dir);
}

/* mkdir -p */
static int
mm_mkdirs(const char *path)
{
	char tmp[MANA_MODEL_PATH_LEN * 2];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		return errno;
	return 0;
}

static int
mm_rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

/* Remove the file tree at path, depth first, not following links. */
void
mm_rm_tree(const char *path)
{
	nftw(path, mm_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The PCI function a DPDK 22.11 Linux PCI scan and the mana probe accept. */
static int
mm_sysfs_pci(struct mana_model *m)
{
	char dir[MANA_MODEL_PATH_LEN * 2], link[MANA_MODEL_PATH_LEN * 2];
	const struct mana_model_config *cfg = &m->cfg;
	int rc = 0;

	snprintf(m->pci_dir, sizeof(m->pci_dir), "%s/bus/pci/devices/%s", m->root, cfg->pci_bdf);
	snprintf(dir, sizeof(dir), "%s/bus/pci/drivers/mana", m->root);
	if (mm_mkdirs(m->pci_dir) != 0 || mm_mkdirs(dir) != 0)
		return errno;
	rc |= mm_write_file(m->pci_dir, "vendor", "0x1414\n");
	rc |= mm_write_file(m->pci_dir, "device", "0x00ba\n");
	rc |= mm_write_file(m->pci_dir, "subsystem_vendor", "0x1414\n");
	rc |= mm_write_file(m->pci_dir, "subsystem_device", "0x0000\n");
	rc |= mm_write_file(m->pci_dir, "class", "0x020000\n");
	rc |= mm_write_file(m->pci_dir, "numa_node", "%d\n", cfg->numa_node);
	rc |= mm_write_file(m->pci_dir, "uevent",
			    "DRIVER=mana\nPCI_CLASS=20000\nPCI_ID=1414:00BA\n"
			    "PCI_SUBSYS_ID=1414:0000\nPCI_SLOT_NAME=%s\n", cfg->pci_bdf);
	/* 13 resource lines, as Linux writes them; no BAR is mappable. */
	rc |= mm_write_file(m->pci_dir, "resource", "%s",
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
	if (rc != 0)
		return EIO;
	/* A bound kernel driver: DPDK skips functions without one. */
	snprintf(link, sizeof(link), "%s/driver", m->pci_dir);
	if (symlink(dir, link) != 0 && errno != EEXIST)
		return errno;
	for (unsigned int i = 0; i < cfg->nports; i++) {
		const uint8_t *a = m->port[i].mac;

		snprintf(dir, sizeof(dir), "%s/net/%.10s_p%u", m->pci_dir, cfg->name, i);
		if (mm_mkdirs(dir) != 0)
			return errno;
		rc |= mm_write_file(dir, "dev_port", "%u\n", i);
		rc |= mm_write_file(dir, "address", "%02x:%02x:%02x:%02x:%02x:%02x\n",
				    a[0], a[1], a[2], a[3], a[4], a[5]);
		rc |= mm_write_file(dir, "mtu", "%u\n", m->port[i].mtu);
	}
	if (rc != 0)
		return EIO;
	snprintf(link, sizeof(link), "%s/device", m->ibdev.ibdev_path);
	if (symlink(m->pci_dir, link) != 0 && errno != EEXIST)
		return errno;
	return 0;
}

int
mm_sysfs_create(struct mana_model *m)
{
	int rc;

	if (m->cfg.sysfs_root[0] != '\0') {
		snprintf(m->root, sizeof(m->root), "%s", m->cfg.sysfs_root);
		rc = mm_mkdirs(m->root);
		if (rc != 0)
			return rc;
	} else {
		/* $TMPDIR/mana_model.XXXXXX, gone at exit too (model_tmptree.c) */
		rc = mm_tmptree_create(m->root, sizeof(m->root));
		if (rc != 0)
			return rc;
		m->root_created = true;
	}
	if (snprintf(m->ibdev.ibdev_path, sizeof(m->ibdev.ibdev_path), "%s/class/infiniband/%s",
		     m->root, m->cfg.name) >= (int)sizeof(m->ibdev.ibdev_path) ||
	    snprintf(m->ibdev.dev_path, sizeof(m->ibdev.dev_path), "%s/class/infiniband_verbs/%s",
		     m->root, m->ibdev.dev_name) >= (int)sizeof(m->ibdev.dev_path))
		return ENAMETOOLONG;
	rc = mm_mkdirs(m->ibdev.ibdev_path);
	if (rc == 0)
		rc = mm_mkdirs(m->ibdev.dev_path);
	if (rc == 0)
		rc = mm_write_file(m->ibdev.dev_path, "ibdev", "%s\n", m->cfg.name);
	if (rc == 0 && m->cfg.pci_bdf[0] != '\0')
		rc = mm_sysfs_pci(m);
	return rc;
}

void
mm_sysfs_remove(struct mana_model *m)
{
	if (m->root[0] == '\0')
		return;
	if (m->root_created) {
		mm_tmptree_remove(m->root);
		return;
	}
	mm_rm_tree(m->ibdev.ibdev_path);
	mm_rm_tree(m->ibdev.dev_path);
	if (m->pci_dir[0] != '\0')
		mm_rm_tree(m->pci_dir);
}
