/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Contexts: open/close, queries, async events, manadv_set_context_attr and
 * manadv_init_obj.
 */

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model_priv.h"

#define MM_NUM_COMP_VECTORS	64

/* Record written on async_fd (one per event). */
struct mm_async_rec {
	uint32_t type;
	uint32_t port;
};

void
mm_async_event(struct mm_ctx *ctx, enum ibv_event_type type, uint8_t port)
{
	struct mm_async_rec r = { .type = (uint32_t)type, .port = port };

	if (write(ctx->async_wfd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		mm_log(MM_LOG_WARNING, "%s: async event %d lost (queue full)",
		       ctx->m->cfg.name, (int)type);
}

/* Caller holds m->lock. */
void
mm_async_event_all(struct mana_model *m, enum ibv_event_type type, uint8_t port)
{
	struct mm_ctx *ctx;

	LIST_FOREACH(ctx, &m->ctxs, link)
		mm_async_event(ctx, type, port);
}

/*
 * cmd_fd: its page 0 is the context's doorbell page (hardware-like mmap). Two
 * views of it: the driver's, which in shared mode is write-protected so that
 * every store reaches the device through the doorbell trap (doc/design.md,
 * "Doorbell modes"), and the device's own, writable one, where stores that
 * did not trap (a secondary process's mapping of cmd_fd) are found.
 */
static int
mm_ctx_db_pages(struct mm_ctx *ctx, int fd)
{
	void *page, *dev;
	int err;

	page = mmap(NULL, MM_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED)
		return errno;
	dev = mmap(NULL, MM_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (dev == MAP_FAILED) {
		err = errno;
		munmap(page, MM_PAGE_SIZE);
		return err;
	}
	ctx->shared_db = page;
	ctx->shared_db_dev = dev;
	if (!ctx->m->cfg.shared_doorbell || ctx->m->cfg.doorbell_untrapped)
		return 0;
	ctx->dbq = aligned_alloc(64, sizeof(*ctx->dbq));
	if (ctx->dbq == NULL) {
		err = ENOMEM;
		goto fail;
	}
	mm_dbq_init(ctx->dbq, page, ctx->m->cfg.manual);
	err = mm_dbtrap_register(page, ctx->dbq);
	if (err == 0)
		return 0;
	mm_error(ctx->m, MM_LOG_ERR, "shared doorbell page: cannot trap its stores: %s",
		 err == ENOSPC ? "too many open contexts" : strerror(err));
	free(ctx->dbq);
	ctx->dbq = NULL;
fail:
	munmap(page, MM_PAGE_SIZE);
	munmap(dev, MM_PAGE_SIZE);
	return err;
}

/*
 * doorbell=memory reads the shared page as plain memory, one doorbell slot
 * per queue kind (hardware.md §1.2): of two queues of a kind only the
 * doorbell stored last before the engine reads the slot is seen, and a queue
 * whose doorbell was overwritten (an RQ's first one, posting every WQE, at
 * start) gets no work: frames to it are dropped, or a lossless wire stalls
 * on it. Said once per context, when it makes its second queue of a kind.
 */
void
mm_ctx_db_lossy_note(struct mm_ctx *ctx, const char *kind)
{
	struct mana_model *m = ctx->m;
	unsigned int n = 0;
	struct mm_qp *qp;
	struct mm_wq *wq;

	if (!m->cfg.doorbell_untrapped || ctx->db_lossy_said)
		return;
	if (kind[0] == 'S') {
		LIST_FOREACH(qp, &m->qps, link)
			n += qp->ctx == ctx && !qp->rss;
	} else {
		LIST_FOREACH(wq, &m->wqs, link)
			n += wq->ctx == ctx;
	}
	if (n < 2)
		return;
	ctx->db_lossy_said = true;
	mm_log(MM_LOG_NOTICE, "%s: doorbell=memory with more than one %s on a context: the "
	       "doorbell page is read as memory, only the last doorbell per slot is seen, "
	       "and a queue whose doorbell is overwritten stalls (lossless wires stop); use "
	       "one RX and one TX queue, or doorbell=shared", m->cfg.name, kind);
}

/*
 * Queue mode: pages 1.. of cmd_fd for the queue objects, one each (2 x
 * max_qp: every QP and as many RWQs). The memfd is sparse: a page costs
 * memory only once a queue uses it.
 */
static int
mm_ctx_db_obj_pages(struct mm_ctx *ctx, int fd)
{
	uint32_t n = 2 * ctx->m->cfg.max_qp;
	void *p;

	if (ctx->m->cfg.shared_doorbell)
		return 0;
	ctx->db_used = calloc((n + 63) / 64, sizeof(uint64_t));
	if (ctx->db_used == NULL)
		return ENOMEM;
	p = mmap(NULL, (size_t)n * MM_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 MM_PAGE_SIZE);
	if (p == MAP_FAILED) {
		free(ctx->db_used);
		ctx->db_used = NULL;
		return errno;
	}
	ctx->db_obj = p;
	ctx->db_npages = n;
	return 0;
}

static void
mm_ctx_db_pages_free(struct mm_ctx *ctx)
{
	if (ctx->db_obj != NULL)
		munmap(ctx->db_obj, (size_t)ctx->db_npages * MM_PAGE_SIZE);
	free(ctx->db_used);
	if (ctx->dbq != NULL)
		mm_dbtrap_unregister(ctx->shared_db);
	munmap(ctx->shared_db, MM_PAGE_SIZE);
	munmap(ctx->shared_db_dev, MM_PAGE_SIZE);
	free(ctx->dbq);
}

static int
mm_ctx_fds(struct mm_ctx *ctx)
{
	struct ibv_context *c = &ctx->vctx.context;
	int p[2], err;

	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0)
		return errno;
	c->async_fd = p[0];
	ctx->async_wfd = p[1];
	c->cmd_fd = memfd_create("mana_model_db", MFD_CLOEXEC);
	if (c->cmd_fd < 0)
		goto err;
	if (ftruncate(c->cmd_fd, (off_t)MM_PAGE_SIZE *
		      (ctx->m->cfg.shared_doorbell ? 1 : 1 + 2 * ctx->m->cfg.max_qp)) != 0)
		goto err;
	err = mm_ctx_db_pages(ctx, c->cmd_fd);
	if (err == 0) {
		err = mm_ctx_db_obj_pages(ctx, c->cmd_fd);
		if (err == 0)
			return 0;
		mm_ctx_db_pages_free(ctx);
	}
	errno = err;
err:
	err = errno;
	if (c->cmd_fd >= 0)
		close(c->cmd_fd);
	close(p[0]);
	close(p[1]);
	return err;
}

struct ibv_context *
mana_model_open_device(struct ibv_device *dev)
{
	struct mana_model *m = mana_model_from_device(dev);
	struct mm_ctx *ctx;
	struct ibv_context *c;
	int err;

	if (m == NULL) {
		errno = ENODEV;
		return NULL;
	}
	err = mm_open_allowed(m);
	if (err != 0) {
		errno = err;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		return NULL;
	ctx->m = m;
	c = &ctx->vctx.context;
	c->device = dev;
	c->num_comp_vectors = MM_NUM_COMP_VECTORS;
	c->abi_compat = (void *)UINTPTR_MAX;
	c->cmd_fd = -1;
	pthread_mutex_init(&c->mutex, NULL);
	ctx->vctx.sz = sizeof(struct verbs_context);
	mm_ctx_fill_ops(&ctx->vctx);
	err = mm_ctx_fds(ctx);
	if (err != 0) {
		pthread_mutex_destroy(&c->mutex);
		free(ctx);
		errno = err;
		return NULL;
	}
	mm_lock(m);
	LIST_INSERT_HEAD(&m->ctxs, ctx, link);
	mm_unlock(m);
	return c;
}

int
mana_model_close_device(struct ibv_context *c)
{
	struct mm_ctx *ctx;
	struct mana_model *m;

	if (c == NULL)
		return -EINVAL;
	ctx = mm_ctx_of(c);
	m = ctx->m;
	mm_lock(m);
	if (ctx->nobj != 0) {
		mm_error(m, MM_LOG_INFO, "close_device: %u objects still exist", ctx->nobj);
		mm_unlock(m);
		return -EBUSY;
	}
	LIST_REMOVE(ctx, link);
	mm_unlock(m);
	mm_ctx_db_pages_free(ctx);
	close(c->cmd_fd);
	close(c->async_fd);
	close(ctx->async_wfd);
	pthread_mutex_destroy(&c->mutex);
	free(ctx);
	return 0;
}

int
mana_model_query_device_ex(struct ibv_context *c, const struct ibv_query_device_ex_input *input,
			   struct ibv_device_attr_ex *attr)
{
	struct mana_model *m;
	struct ibv_device_attr *a;
	const uint8_t *mac;

	if (c == NULL || attr == NULL)
		return -EINVAL;
	if (input != NULL && input->comp_mask != 0)
		return -EINVAL;
	m = mm_ctx_of(c)->m;
	mac = m->port[0].mac;
	memset(attr, 0, sizeof(*attr));
	a = &attr->orig_attr;
	snprintf(a->fw_ver, sizeof(a->fw_ver), "model-1.0");
	/* EUI-64 from the first MAC. */
	a->node_guid = htobe64(((uint64_t)mac[0] ^ 2) << 56 | (uint64_t)mac[1] << 48 |
			       (uint64_t)mac[2] << 40 | 0xFFFEull << 24 |
			       (uint64_t)mac[3] << 16 | (uint64_t)mac[4] << 8 | mac[5]);
	a->sys_image_guid = a->node_guid;
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = 0x1FF000;	/* 4 KiB .. 2 MiB */
	a->vendor_id = 0x1414;
	a->vendor_part_id = m->cfg.vendor_part_id;
	a->max_qp = (int)m->cfg.max_qp;
	a->max_qp_wr = (int)m->cfg.max_qp_wr;	/* the kernel's: hardware.md §7.3 */
	a->max_sge = GDMA_MAX_RX_SGE;
	a->max_cq = (int)m->cfg.max_qp * 2;
	a->max_cqe = (int)m->cfg.max_qp_wr;
	a->max_mr = 0x7FFFFFFF;
	a->max_pd = 0x6000;
	a->max_srq = (int)m->cfg.max_qp;
	a->max_srq_wr = (int)m->cfg.max_qp_wr;
	a->max_srq_sge = GDMA_MAX_RX_SGE;
	a->phys_port_cnt = m->cfg.nports;
	if (m->cfg.vendor_part_id == 2)
		attr->raw_packet_caps = IBV_RAW_PACKET_CAP_IP_CSUM;
	attr->max_wq_type_rq = (int)m->cfg.max_qp;
	return 0;
}

static enum ibv_mtu
mm_mtu_enum(uint32_t mtu)
{
	if (mtu >= 4096)
		return IBV_MTU_4096;
	if (mtu >= 2048)
		return IBV_MTU_2048;
	if (mtu >= 1024)
		return IBV_MTU_1024;
	if (mtu >= 512)
		return IBV_MTU_512;
	return IBV_MTU_256;
}

int
mana_model_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *attr)
{
	struct mana_model *m;
	struct mm_port *p;

	if (c == NULL || attr == NULL)
		return -EINVAL;
	m = mm_ctx_of(c)->m;
	if (port < 1 || port > m->cfg.nports)
		return -EINVAL;
	p = &m->port[port - 1];
	memset(attr, 0, sizeof(*attr));
	if (mm_ctx_dead(mm_ctx_of(c), "query_port"))
		return -EIO;
	mm_lock(m);
	attr->state = p->link_up && !m->fatal ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	attr->phys_state = p->link_up && !m->fatal ? 5 /* LinkUp */ : 3 /* Disabled */;
	attr->active_mtu = mm_mtu_enum(p->mtu);
	mm_unlock(m);
	attr->max_mtu = IBV_MTU_4096;
	attr->gid_tbl_len = 16;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = MANA_MODEL_MAX_FRAME;
	attr->active_width = 2;		/* 4X */
	attr->active_speed = 32;	/* EDR */
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
	return 0;
}

int
mana_model_get_async_event(struct ibv_context *c, struct ibv_async_event *event)
{
	struct mm_async_rec r;
	ssize_t n;

	if (c == NULL || event == NULL)
		return -EINVAL;
	n = read(c->async_fd, &r, sizeof(r));
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(r))
		return -EIO;
	memset(event, 0, sizeof(*event));
	event->event_type = (enum ibv_event_type)r.type;
	if (r.type == IBV_EVENT_PORT_ACTIVE || r.type == IBV_EVENT_PORT_ERR)
		event->element.port_num = (int)r.port;
	return 0;
}

void
mana_model_ack_async_event(struct ibv_async_event *event)
{
	(void)event;	/* nothing is held per event */
}

int
mana_model_set_port_mtu(struct ibv_context *c, uint8_t port, uint32_t mtu)
{
	struct mana_model *m;

	if (c == NULL)
		return -EINVAL;
	m = mm_ctx_of(c)->m;
	if (port < 1 || port > m->cfg.nports)
		return -EINVAL;
	if (mm_ctx_dead(mm_ctx_of(c), "set_port_mtu"))
		return -EIO;
	return mana_model_set_mtu(m, port - 1u, mtu);
}

int
mana_model_set_context_attr(struct ibv_context *c, enum manadv_set_ctx_attr_type type, void *attr)
{
	struct mm_ctx *ctx;

	if (c == NULL)
		return -EINVAL;
	if (type != MANADV_CTX_ATTR_BUF_ALLOCATORS)
		return -EOPNOTSUPP;
	if (attr == NULL)
		return -EINVAL;
	ctx = mm_ctx_of(c);
	mm_lock(ctx->m);
	ctx->alloc = *(const struct manadv_ctx_allocators *)attr;
	ctx->alloc_set = true;
	mm_unlock(ctx->m);
	return 0;
}

static int
mm_init_qp(struct ibv_qp *in, struct manadv_qp *out)
{
	struct mm_qp *qp = mm_qp_of(in);
	struct mana_model *m = qp->ctx->m;

	if (qp->rss) {
		mm_error(m, MM_LOG_INFO, "init_obj: QP %u is an RSS QP (no SQ)", in->qp_num);
		return -EINVAL;
	}
	mm_lock(m);
	out->sq_buf = qp->sq.buf;
	out->sq_count = qp->sq.count;
	out->sq_size = qp->sq.size;
	out->sq_id = qp->sq_id;
	out->tx_vp_offset = m->port[qp->port].tx_vp_offset;
	out->db_page = qp->db;
	mm_unlock(m);
	return 0;
}

static void
mm_init_cq(struct ibv_cq *in, struct manadv_cq *out)
{
	struct mm_cq *cq = mm_cq_of(in);

	mm_lock(cq->ctx->m);
	out->buf = cq->buf;
	out->count = cq->count;
	out->cq_id = cq->id;
	mm_unlock(cq->ctx->m);
}

static void
mm_init_rwq(struct ibv_wq *in, struct manadv_rwq *out)
{
	struct mm_wq *wq = mm_wq_of(in);

	mm_lock(wq->ctx->m);
	out->buf = wq->ring.buf;
	out->count = wq->ring.count;
	out->size = wq->ring.size;
	out->wq_id = wq->id;
	out->db_page = wq->db;
	mm_unlock(wq->ctx->m);
}

int
mana_model_init_obj(struct manadv_obj *obj, uint64_t obj_type)
{
	int rc;

	if (obj_type & ~(uint64_t)(MANADV_OBJ_QP | MANADV_OBJ_CQ | MANADV_OBJ_RWQ))
		return -EINVAL;
	if (obj == NULL)
		return -EINVAL;
	if (((obj_type & MANADV_OBJ_QP) && (obj->qp.in == NULL || obj->qp.out == NULL)) ||
	    ((obj_type & MANADV_OBJ_CQ) && (obj->cq.in == NULL || obj->cq.out == NULL)) ||
	    ((obj_type & MANADV_OBJ_RWQ) && (obj->rwq.in == NULL || obj->rwq.out == NULL)))
		return -EINVAL;
	if (obj_type & MANADV_OBJ_QP) {
		rc = mm_init_qp(obj->qp.in, obj->qp.out);
		if (rc != 0)
			return rc;
	}
	if (obj_type & MANADV_OBJ_CQ)
		mm_init_cq(obj->cq.in, obj->cq.out);
	if (obj_type & MANADV_OBJ_RWQ)
		mm_init_rwq(obj->rwq.in, obj->rwq.out);
	return 0;
}
