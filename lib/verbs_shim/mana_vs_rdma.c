/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The rdma-core 44 backend: the only file of the project that calls
 * libibverbs and libmana. Each function is the verb of the same name, with
 * rdma-core's mixed return conventions folded into the shim's single one
 * (constructors NULL + errno, everything else 0 or a negative errno value;
 * doc/hardware.md §7.1 and §8). Reached only through the const
 * table at the end of the file.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mana_vs_backend.h"

#define MANA_PCI_VENDOR_ID	0x1414	/* Microsoft */

/*
 * rdma-core 44 returns a positive errno from most verbs but -EINVAL from
 * mana's destroy_cq/destroy_qp when no allocator is set (hardware.md §7.1).
 */
static int
rdma_errno(int rc)
{
	return rc > 0 ? -rc : rc;
}

/* For verbs that report failure as -1 with errno set. */
static int
rdma_last_errno(void)
{
	return errno != 0 ? -errno : -EIO;
}

/* Read a small sysfs attribute into buf (NUL-terminated, newline cut). */
static int
rdma_read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *f;
	char *nl;

	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	if (fgets(buf, (int)len, f) == NULL) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl != NULL)
		*nl = '\0';
	return 0;
}

static int
rdma_set_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* ---- Devices ------------------------------------------------------- */

/* Stands for ibv_get_device_list() when there is no RDMA subsystem. */
static struct ibv_device *rdma_no_devices[1];

static struct ibv_device **
rdma_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (list == NULL) {
		/* No uverbs in this kernel (ENOSYS) is the common case in VMs
		 * without MANA: it only means no rdma-core device.
		 */
		mana_vs_log(MANA_VS_LOG_DEBUG, "rdma-core: no device list (%s)",
			    strerror(errno));
		list = rdma_no_devices;
		n = 0;
	}
	*num_devices = n;
	return list;
}

static void
rdma_free_device_list(struct ibv_device **list)
{
	if (list != rdma_no_devices)
		ibv_free_device_list(list);
}

static bool
rdma_is_mana(const struct ibv_device *dev)
{
	char path[PATH_MAX];
	char buf[32];

	if (snprintf(path, sizeof(path), "%s/device/vendor", dev->ibdev_path) >=
	    (int)sizeof(path))
		return false;
	if (rdma_read_sysfs(path, buf, sizeof(buf)) != 0)
		return false;
	return strtoul(buf, NULL, 16) == MANA_PCI_VENDOR_ID;
}

static const char *
rdma_device_name(const struct ibv_device *dev)
{
	/* ibv_get_device_name() takes a non-const pointer but only reads. */
	return ibv_get_device_name((struct ibv_device *)(uintptr_t)dev);
}

static const char *
rdma_ibdev_path(const struct ibv_device *dev)
{
	return dev->ibdev_path;
}

static struct ibv_context *
rdma_open_device(struct ibv_device *dev)
{
	struct ibv_context *ctx;
	int rc;

	ctx = ibv_open_device(dev);
	if (ctx == NULL)
		return NULL;
	/* The shim's async_fd is non-blocking on both backends. */
	rc = rdma_set_nonblock(ctx->async_fd);
	if (rc != 0) {
		mana_vs_log(MANA_VS_LOG_ERR, "%s: cannot make async_fd non-blocking: %s",
			    ibv_get_device_name(dev), strerror(-rc));
		ibv_close_device(ctx);
		errno = -rc;
		return NULL;
	}
	/* Names the backend in the log: tests and users can tell hardware from the model. */
	mana_vs_log(MANA_VS_LOG_INFO, "%s: opened through the rdma-core backend (libibverbs)",
		    ibv_get_device_name(dev));
	return ctx;
}

static int
rdma_close_device(struct ibv_context *ctx)
{
	return rdma_errno(ibv_close_device(ctx));
}

static int
rdma_query_device_ex(struct ibv_context *ctx,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr)
{
	return rdma_errno(ibv_query_device_ex(ctx, input, attr));
}

static int
rdma_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	return rdma_errno(ibv_query_port(ctx, port, attr));
}

static int
rdma_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	errno = 0;
	if (ibv_get_async_event(ctx, event) != 0)
		return rdma_last_errno();
	return 0;
}

static void
rdma_ack_async_event(struct ibv_async_event *event)
{
	ibv_ack_async_event(event);
}

/* Find the kernel netdev of IB port `port`: its dev_port is port - 1. */
static int
rdma_port_netdev(const char *ibdev_path, uint8_t port, char ifname[IF_NAMESIZE])
{
	char dir[PATH_MAX], path[PATH_MAX + 2 * NAME_MAX], buf[32];
	struct dirent *e;
	DIR *d;
	int rc = -ENODEV;

	if (snprintf(dir, sizeof(dir), "%s/device/net", ibdev_path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (d == NULL)
		return -ENODEV;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= IF_NAMESIZE)
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev_port", dir, e->d_name);
		if (rdma_read_sysfs(path, buf, sizeof(buf)) != 0)
			continue;
		if (strtoul(buf, NULL, 10) == (unsigned long)port - 1) {
			strcpy(ifname, e->d_name);
			rc = 0;
			break;
		}
	}
	closedir(d);
	return rc;
}

static int
rdma_set_port_mtu(struct ibv_context *ctx, uint8_t port, uint32_t mtu)
{
	char ifname[IF_NAMESIZE];
	struct ifreq ifr;
	int fd, rc;

	if (port == 0 || mtu > INT_MAX)
		return -EINVAL;
	rc = rdma_port_netdev(ctx->device->ibdev_path, port, ifname);
	if (rc != 0) {
		mana_vs_log(MANA_VS_LOG_ERR, "%s: no netdev for IB port %u: %s",
			    ibv_get_device_name(ctx->device), port, strerror(-rc));
		return rc;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return rdma_last_errno();
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, sizeof(ifname));
	ifr.ifr_mtu = (int)mtu;
	rc = ioctl(fd, SIOCSIFMTU, &ifr) < 0 ? rdma_last_errno() : 0;
	close(fd);
	if (rc != 0)
		mana_vs_log(MANA_VS_LOG_ERR, "%s: MTU %u refused: %s",
			    ifname, mtu, strerror(-rc));
	return rc;
}

/* ---- PD, MR -------------------------------------------------------- */

static struct ibv_pd *
rdma_alloc_pd(struct ibv_context *ctx)
{
	return ibv_alloc_pd(ctx);
}

static struct ibv_pd *
rdma_alloc_parent_domain(struct ibv_context *ctx,
				 struct ibv_parent_domain_init_attr *attr)
{
	return ibv_alloc_parent_domain(ctx, attr);
}

static int
rdma_dealloc_pd(struct ibv_pd *pd)
{
	return rdma_errno(ibv_dealloc_pd(pd));
}

static struct ibv_mr *
rdma_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr(pd, addr, length, access);
}

static int
rdma_dereg_mr(struct ibv_mr *mr)
{
	return rdma_errno(ibv_dereg_mr(mr));
}

/* ---- CQ and completion channel ------------------------------------- */

static struct ibv_comp_channel *
rdma_create_comp_channel(struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch;
	int rc;

	ch = ibv_create_comp_channel(ctx);
	if (ch == NULL)
		return NULL;
	/* mana_vs_get_cq_event never blocks (mana_vs.h). */
	rc = rdma_set_nonblock(ch->fd);
	if (rc != 0) {
		ibv_destroy_comp_channel(ch);
		errno = -rc;
		return NULL;
	}
	return ch;
}

static int
rdma_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	return rdma_errno(ibv_destroy_comp_channel(channel));
}

static struct ibv_cq *
rdma_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
		       struct ibv_comp_channel *channel, int comp_vector)
{
	return ibv_create_cq(ctx, cqe, cq_context, channel, comp_vector);
}

static int
rdma_destroy_cq(struct ibv_cq *cq)
{
	return rdma_errno(ibv_destroy_cq(cq));
}

static int
rdma_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
			  void **cq_context)
{
	errno = 0;
	if (ibv_get_cq_event(channel, cq, cq_context) != 0)
		return rdma_last_errno();	/* -EAGAIN: nothing pending */
	return 0;
}

static void
rdma_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	ibv_ack_cq_events(cq, nevents);
}

/* ---- WQ, indirection table, QP ------------------------------------- */

static struct ibv_wq *
rdma_create_wq(struct ibv_context *ctx, struct ibv_wq_init_attr *attr)
{
	return ibv_create_wq(ctx, attr);
}

static int
rdma_destroy_wq(struct ibv_wq *wq)
{
	return rdma_errno(ibv_destroy_wq(wq));
}

static struct ibv_rwq_ind_table *
rdma_create_rwq_ind_table(struct ibv_context *ctx,
				  struct ibv_rwq_ind_table_init_attr *attr)
{
	return ibv_create_rwq_ind_table(ctx, attr);
}

static int
rdma_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table)
{
	return rdma_errno(ibv_destroy_rwq_ind_table(table));
}

static struct ibv_qp *
rdma_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	return ibv_create_qp(pd, attr);
}

static struct ibv_qp *
rdma_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	return ibv_create_qp_ex(ctx, attr);
}

static int
rdma_destroy_qp(struct ibv_qp *qp)
{
	return rdma_errno(ibv_destroy_qp(qp));
}

/* ---- SRQ (hardware.md §1 rule 6) ----------------------------------- */

static struct ibv_srq *
rdma_create_xsrq(struct ibv_pd *pd, struct mana_vs_xsrq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex;
	struct ibv_srq *srq;

	memset(&ex, 0, sizeof(ex));
	ex.srq_context = attr->srq_context;
	ex.attr = attr->attr;
	ex.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
	ex.srq_type = attr->srq_type;
	ex.pd = pd;
	if (attr->srq_type == IBV_SRQT_XRC) {
		ex.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
		ex.xrcd = attr->ext.xrc.xrcd;
		ex.cq = attr->ext.xrc.cq;
	}
	/* MANA provides no SRQ op: libibverbs answers NULL/EOPNOTSUPP. */
	srq = ibv_create_srq_ex(pd->context, &ex);
	if (srq == NULL)
		return NULL;
	attr->attr.max_wr = ex.attr.max_wr;
	attr->attr.max_sge = ex.attr.max_sge;
	return srq;
}

static int
rdma_destroy_srq(struct ibv_srq *srq)
{
	return rdma_errno(ibv_destroy_srq(srq));
}

/* ---- manadv -------------------------------------------------------- */

static int
rdma_set_context_attr(struct ibv_context *ctx, enum manadv_set_ctx_attr_type type,
			      void *attr)
{
	return rdma_errno(manadv_set_context_attr(ctx, type, attr));
}

static int
rdma_init_obj(struct manadv_obj *obj, uint64_t obj_type)
{
	return rdma_errno(manadv_init_obj(obj, obj_type));
}

/*
 * The shim hands out MANA devices only; a device the software device's
 * backend owns never reaches this one (it is asked first).
 */
static bool
rdma_owns_device(const struct ibv_device *dev)
{
	return rdma_is_mana(dev);
}

/* libmana maps page 0 of cmd_fd, the context's one doorbell page (hardware.md §5.1). */
static int
rdma_db_page_offset(struct ibv_context *ctx, const void *db_page, uint64_t *off)
{
	(void)ctx;
	(void)db_page;
	*off = 0;
	return 0;
}

const struct mana_vs_backend mana_vs_rdma_backend = {
	.name = "rdma-core",
	.kind = MANA_VS_BACKEND_RDMA,
	.get_device_list = rdma_get_device_list,
	.free_device_list = rdma_free_device_list,
	.listed = rdma_is_mana,
	.owns_device = rdma_owns_device,
	.device_name = rdma_device_name,
	.ibdev_path = rdma_ibdev_path,
	.open_device = rdma_open_device,
	.close_device = rdma_close_device,
	.query_device_ex = rdma_query_device_ex,
	.query_port = rdma_query_port,
	.get_async_event = rdma_get_async_event,
	.ack_async_event = rdma_ack_async_event,
	.set_port_mtu = rdma_set_port_mtu,
	.alloc_pd = rdma_alloc_pd,
	.alloc_parent_domain = rdma_alloc_parent_domain,
	.dealloc_pd = rdma_dealloc_pd,
	.reg_mr = rdma_reg_mr,
	.dereg_mr = rdma_dereg_mr,
	.create_comp_channel = rdma_create_comp_channel,
	.destroy_comp_channel = rdma_destroy_comp_channel,
	.create_cq = rdma_create_cq,
	.destroy_cq = rdma_destroy_cq,
	.get_cq_event = rdma_get_cq_event,
	.ack_cq_events = rdma_ack_cq_events,
	.create_wq = rdma_create_wq,
	.destroy_wq = rdma_destroy_wq,
	.create_rwq_ind_table = rdma_create_rwq_ind_table,
	.destroy_rwq_ind_table = rdma_destroy_rwq_ind_table,
	.create_qp = rdma_create_qp,
	.create_qp_ex = rdma_create_qp_ex,
	.destroy_qp = rdma_destroy_qp,
	.create_xsrq = rdma_create_xsrq,
	.destroy_srq = rdma_destroy_srq,
	.set_context_attr = rdma_set_context_attr,
	.init_obj = rdma_init_obj,
	.db_page_offset = rdma_db_page_offset,
};
