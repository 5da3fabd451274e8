/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The shim's front: argument checks common to both backends, the record of
 * which backend opened each context, and dispatch through that backend's
 * table (mana_vs_backend.h).
 *
 * NULL arguments are refused with -EINVAL on both backends
 * (doc/hardware.md §8, model policy): rdma-core itself would
 * dereference them.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <pthread.h>

#include "mana_vs.h"
#include "mana_vs_backend.h"

/* Largest log2 size of an indirection table the kernel accepts. */
#define MANA_VS_MAX_LOG_IND_TBL	13

/* ---- Logging ------------------------------------------------------- */

static mana_vs_log_fn vs_log_fn;
static void *vs_log_arg;

static void
vs_log_default(int level, const char *msg, void *arg)
{
	(void)arg;
	if (level <= MANA_VS_LOG_WARNING)
		fprintf(stderr, "mana_vs: %s\n", msg);
}

void
mana_vs_set_logger(mana_vs_log_fn fn, void *arg)
{
	const struct mana_vs_model_api *api = mana_vs_model_api();

	vs_log_fn = fn;
	vs_log_arg = arg;
	/* The software device reports through the same logger. */
	if (api != NULL)
		api->set_log(fn != NULL ? fn : vs_log_default, fn != NULL ? arg : NULL);
}

void
mana_vs_log(int level, const char *fmt, ...)
{
	mana_vs_log_fn fn = vs_log_fn;
	char msg[256];
	va_list ap;

	if (fn == NULL && level > MANA_VS_LOG_WARNING)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (fn != NULL)
		fn(level, msg, vs_log_arg);
	else
		vs_log_default(level, msg, NULL);
}

/* ---- Backends and the contexts they opened ------------------------- */

/* In the order devices are listed: software devices first. */
static const struct mana_vs_backend *
vs_backend_at(unsigned int i)
{
	switch (i) {
	case 0:
		return mana_vs_backend_model();	/* NULL without the software device */
	case 1:
		return &mana_vs_rdma_backend;
	default:
		return NULL;
	}
}

#define VS_NBACKENDS	2

static const struct mana_vs_backend *
vs_device_backend(const struct ibv_device *dev)
{
	const struct mana_vs_backend *be;
	unsigned int i;

	for (i = 0; i < VS_NBACKENDS; i++) {
		be = vs_backend_at(i);
		if (be != NULL && be->owns_device(dev))
			return be;
	}
	return NULL;
}

/*
 * Every open context and its backend. A process opens a handful of
 * devices; the list is walked on control-path calls only.
 */
struct vs_open_ctx {
	struct vs_open_ctx *next;
	const struct ibv_context *ctx;
	const struct mana_vs_backend *be;
};

static pthread_mutex_t vs_ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vs_open_ctx *vs_ctx_list;

static int
vs_ctx_add(const struct ibv_context *ctx, const struct mana_vs_backend *be)
{
	struct vs_open_ctx *e = malloc(sizeof(*e));

	if (e == NULL)
		return -ENOMEM;
	e->ctx = ctx;
	e->be = be;
	pthread_mutex_lock(&vs_ctx_lock);
	e->next = vs_ctx_list;
	vs_ctx_list = e;
	pthread_mutex_unlock(&vs_ctx_lock);
	return 0;
}

static void
vs_ctx_del(const struct ibv_context *ctx)
{
	struct vs_open_ctx **pe, *e;

	pthread_mutex_lock(&vs_ctx_lock);
	for (pe = &vs_ctx_list; *pe != NULL; pe = &(*pe)->next) {
		if ((*pe)->ctx == ctx) {
			e = *pe;
			*pe = e->next;
			free(e);
			break;
		}
	}
	pthread_mutex_unlock(&vs_ctx_lock);
}

/* The backend that opened ctx; NULL for a context the shim did not open. */
static const struct mana_vs_backend *
vs_ctx_backend(const struct ibv_context *ctx)
{
	const struct mana_vs_backend *be = NULL;
	struct vs_open_ctx *e;

	if (ctx == NULL)
		return NULL;
	pthread_mutex_lock(&vs_ctx_lock);
	for (e = vs_ctx_list; e != NULL; e = e->next) {
		if (e->ctx == ctx) {
			be = e->be;
			break;
		}
	}
	pthread_mutex_unlock(&vs_ctx_lock);
	return be;
}

/* vs_ctx_backend(), logging a context the shim does not know. */
static const struct mana_vs_backend *
vs_backend_of(const struct ibv_context *ctx, const char *verb)
{
	const struct mana_vs_backend *be = vs_ctx_backend(ctx);

	if (be == NULL && ctx != NULL)
		mana_vs_log(MANA_VS_LOG_ERR, "%s: context %p was not opened through the shim",
			    verb, (const void *)ctx);
	return be;
}

/* ---- Devices ------------------------------------------------------- */

/*
 * What mana_vs_get_device_list hands out: the caller sees devs[]; each
 * backend's raw list stays alive behind it because its devices are only
 * valid until that backend's free_device_list().
 */
struct vs_devlist {
	struct ibv_device **raw[VS_NBACKENDS];
	struct ibv_device *devs[];
};

static void
vs_devlist_free_raw(struct vs_devlist *dl)
{
	unsigned int i;

	for (i = 0; i < VS_NBACKENDS; i++)
		if (dl->raw[i] != NULL)
			vs_backend_at(i)->free_device_list(dl->raw[i]);
}

struct ibv_device **
mana_vs_get_device_list(int *num_devices)
{
	const struct mana_vs_backend *be;
	struct vs_devlist *dl;
	int nraw[VS_NBACKENDS] = { 0 };
	size_t total = 0;
	unsigned int i;
	int j, n = 0;

	dl = calloc(1, sizeof(*dl));
	if (dl == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < VS_NBACKENDS; i++) {
		be = vs_backend_at(i);
		if (be == NULL)
			continue;
		dl->raw[i] = be->get_device_list(&nraw[i]);
		if (dl->raw[i] == NULL) {
			int err = errno;

			vs_devlist_free_raw(dl);
			free(dl);
			errno = err;
			return NULL;
		}
		total += (size_t)nraw[i];
	}
	{
		struct vs_devlist *grown = realloc(dl, sizeof(*dl) + (total + 1) * sizeof(dl->devs[0]));

		if (grown == NULL) {
			vs_devlist_free_raw(dl);
			free(dl);
			errno = ENOMEM;
			return NULL;
		}
		dl = grown;
	}
	for (i = 0; i < VS_NBACKENDS; i++)
		for (j = 0; j < nraw[i]; j++)
			if (vs_backend_at(i)->listed(dl->raw[i][j]))
				dl->devs[n++] = dl->raw[i][j];
	dl->devs[n] = NULL;
	if (num_devices != NULL)
		*num_devices = n;
	return dl->devs;
}

void
mana_vs_free_device_list(struct ibv_device **list)
{
	struct vs_devlist *dl;

	if (list == NULL)
		return;
	dl = (struct vs_devlist *)(void *)((char *)list - offsetof(struct vs_devlist, devs));
	vs_devlist_free_raw(dl);
	free(dl);
}

enum mana_vs_backend_kind
mana_vs_device_backend(const struct ibv_device *dev)
{
	const struct mana_vs_backend *be = dev != NULL ? vs_device_backend(dev) : NULL;

	return be != NULL ? be->kind : MANA_VS_BACKEND_RDMA;
}

enum mana_vs_backend_kind
mana_vs_context_backend(const struct ibv_context *ctx)
{
	const struct mana_vs_backend *be = vs_ctx_backend(ctx);

	return be != NULL ? be->kind : MANA_VS_BACKEND_RDMA;
}

const char *
mana_vs_device_name(const struct ibv_device *dev)
{
	const struct mana_vs_backend *be = dev != NULL ? vs_device_backend(dev) : NULL;

	return be != NULL ? be->device_name(dev) : NULL;
}

const char *
mana_vs_ibdev_path(const struct ibv_device *dev)
{
	const struct mana_vs_backend *be = dev != NULL ? vs_device_backend(dev) : NULL;

	return be != NULL ? be->ibdev_path(dev) : NULL;
}

struct ibv_context *
mana_vs_open_device(struct ibv_device *dev)
{
	const struct mana_vs_backend *be;
	struct ibv_context *ctx;
	int rc;

	if (dev == NULL) {
		errno = EINVAL;
		return NULL;
	}
	be = vs_device_backend(dev);
	if (be == NULL) {
		errno = ENODEV;	/* not a MANA device */
		return NULL;
	}
	ctx = be->open_device(dev);
	if (ctx == NULL)
		return NULL;
	rc = vs_ctx_add(ctx, be);
	if (rc != 0) {
		be->close_device(ctx);
		errno = -rc;
		return NULL;
	}
	return ctx;
}

int
mana_vs_close_device(struct ibv_context *ctx)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);
	int rc;

	if (be == NULL)
		return -EINVAL;
	rc = be->close_device(ctx);
	if (rc == 0)
		vs_ctx_del(ctx);
	return rc;
}

int
mana_vs_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	/* input may be NULL, as for ibv_query_device_ex(). */
	if (be == NULL || attr == NULL)
		return -EINVAL;
	return be->query_device_ex(ctx, input, attr);
}

int
mana_vs_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	if (be == NULL || attr == NULL)
		return -EINVAL;
	return be->query_port(ctx, port, attr);
}

int
mana_vs_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	if (be == NULL || event == NULL)
		return -EINVAL;
	return be->get_async_event(ctx, event);
}

void
mana_vs_ack_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	if (be != NULL && event != NULL)
		be->ack_async_event(event);
}

int
mana_vs_set_port_mtu(struct ibv_context *ctx, uint8_t port, uint32_t mtu)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	if (be == NULL)
		return -EINVAL;
	return be->set_port_mtu(ctx, port, mtu);
}

/* ---- PD, MR -------------------------------------------------------- */

struct ibv_pd *
mana_vs_alloc_pd(struct ibv_context *ctx)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	if (be == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return be->alloc_pd(ctx);
}

struct ibv_pd *
mana_vs_alloc_parent_domain(struct ibv_context *ctx, struct ibv_parent_domain_init_attr *attr)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	if (be == NULL || attr == NULL || attr->pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return be->alloc_parent_domain(ctx, attr);
}

int
mana_vs_dealloc_pd(struct ibv_pd *pd)
{
	const struct mana_vs_backend *be = pd != NULL ? vs_backend_of(pd->context, __func__) : NULL;

	if (be == NULL)
		return -EINVAL;
	return be->dealloc_pd(pd);
}

struct ibv_mr *
mana_vs_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	const struct mana_vs_backend *be = pd != NULL ? vs_backend_of(pd->context, __func__) : NULL;

	if (be == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return be->reg_mr(pd, addr, length, access);
}

int
mana_vs_dereg_mr(struct ibv_mr *mr)
{
	const struct mana_vs_backend *be = mr != NULL ? vs_backend_of(mr->context, __func__) : NULL;

	if (be == NULL)
		return -EINVAL;
	return be->dereg_mr(mr);
}

/* ---- CQ and completion channel ------------------------------------- */

struct ibv_comp_channel *
mana_vs_create_comp_channel(struct ibv_context *ctx)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	if (be == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return be->create_comp_channel(ctx);
}

int
mana_vs_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	const struct mana_vs_backend *be =
		channel != NULL ? vs_backend_of(channel->context, __func__) : NULL;

	if (be == NULL)
		return -EINVAL;
	return be->destroy_comp_channel(channel);
}

struct ibv_cq *
mana_vs_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
		  struct ibv_comp_channel *channel, int comp_vector)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	/* A channel of another device would deliver events nobody reads. */
	if (be == NULL || (channel != NULL && channel->context != ctx)) {
		errno = EINVAL;
		return NULL;
	}
	return be->create_cq(ctx, cqe, cq_context, channel, comp_vector);
}

int
mana_vs_destroy_cq(struct ibv_cq *cq)
{
	const struct mana_vs_backend *be = cq != NULL ? vs_backend_of(cq->context, __func__) : NULL;

	if (be == NULL)
		return -EINVAL;
	return be->destroy_cq(cq);
}

int
mana_vs_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	const struct mana_vs_backend *be =
		channel != NULL ? vs_backend_of(channel->context, __func__) : NULL;

	if (be == NULL || cq == NULL || cq_context == NULL)
		return -EINVAL;
	return be->get_cq_event(channel, cq, cq_context);
}

void
mana_vs_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	const struct mana_vs_backend *be = cq != NULL ? vs_backend_of(cq->context, __func__) : NULL;

	if (be != NULL)
		be->ack_cq_events(cq, nevents);
}

/* ---- WQ, indirection table, QP ------------------------------------- */

struct ibv_wq *
mana_vs_create_wq(struct ibv_context *ctx, struct ibv_wq_init_attr *attr)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	if (be == NULL || attr == NULL || attr->pd == NULL || attr->cq == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return be->create_wq(ctx, attr);
}

int
mana_vs_destroy_wq(struct ibv_wq *wq)
{
	const struct mana_vs_backend *be = wq != NULL ? vs_backend_of(wq->context, __func__) : NULL;

	if (be == NULL)
		return -EINVAL;
	return be->destroy_wq(wq);
}

struct ibv_rwq_ind_table *
mana_vs_create_rwq_ind_table(struct ibv_context *ctx, struct ibv_rwq_ind_table_init_attr *attr)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);
	uint32_t i;

	/*
	 * comp_mask != 0 (libibverbs) and log size > 13 (kernel) are EINVAL on
	 * both backends (hardware.md §14 #10); checked first so that the scan below
	 * stays inside the caller's table.
	 */
	if (be == NULL || attr == NULL || attr->ind_tbl == NULL || attr->comp_mask != 0 ||
	    attr->log_ind_tbl_size > MANA_VS_MAX_LOG_IND_TBL) {
		errno = EINVAL;
		return NULL;
	}
	/* libibverbs reads every entry's handle: a NULL one would crash it. */
	for (i = 0; i < (1u << attr->log_ind_tbl_size); i++) {
		if (attr->ind_tbl[i] == NULL) {
			errno = EINVAL;
			return NULL;
		}
	}
	return be->create_rwq_ind_table(ctx, attr);
}

int
mana_vs_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table)
{
	const struct mana_vs_backend *be =
		table != NULL ? vs_backend_of(table->context, __func__) : NULL;

	if (be == NULL)
		return -EINVAL;
	return be->destroy_rwq_ind_table(table);
}

struct ibv_qp *
mana_vs_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	const struct mana_vs_backend *be = pd != NULL ? vs_backend_of(pd->context, __func__) : NULL;

	/* A RAW QP always completes into a send CQ (rdma-core reads it). */
	if (be == NULL || attr == NULL || attr->send_cq == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return be->create_qp(pd, attr);
}

struct ibv_qp *
mana_vs_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	if (be == NULL || attr == NULL ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_PD) && attr->pd == NULL) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) && attr->rwq_ind_tbl == NULL) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH) &&
	     attr->rx_hash_conf.rx_hash_key_len != 0 && attr->rx_hash_conf.rx_hash_key == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	return be->create_qp_ex(ctx, attr);
}

int
mana_vs_destroy_qp(struct ibv_qp *qp)
{
	const struct mana_vs_backend *be = qp != NULL ? vs_backend_of(qp->context, __func__) : NULL;

	if (be == NULL)
		return -EINVAL;
	return be->destroy_qp(qp);
}

/* ---- SRQ (hardware.md §1 rule 6) ----------------------------------- */

struct ibv_srq *
mana_vs_create_xsrq(struct ibv_pd *pd, struct mana_vs_xsrq_init_attr *attr)
{
	const struct mana_vs_backend *be = pd != NULL ? vs_backend_of(pd->context, __func__) : NULL;

	if (be == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* libibverbs 1.1.8 knew BASIC and XRC; XRC names its XRCD and CQ. */
	if (attr->srq_type != IBV_SRQT_BASIC && attr->srq_type != IBV_SRQT_XRC) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->srq_type == IBV_SRQT_XRC &&
	    (attr->ext.xrc.xrcd == NULL || attr->ext.xrc.cq == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	return be->create_xsrq(pd, attr);
}

int
mana_vs_destroy_srq(struct ibv_srq *srq)
{
	const struct mana_vs_backend *be =
		srq != NULL ? vs_backend_of(srq->context, __func__) : NULL;

	if (be == NULL)
		return -EINVAL;
	return be->destroy_srq(srq);
}

/* ---- manadv -------------------------------------------------------- */

int
mana_vs_set_context_attr(struct ibv_context *ctx, enum manadv_set_ctx_attr_type type, void *attr)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	if (be == NULL || attr == NULL)
		return -EINVAL;
	return be->set_context_attr(ctx, type, attr);
}

int
mana_vs_db_page_offset(struct ibv_context *ctx, const void *db_page, uint64_t *off)
{
	const struct mana_vs_backend *be = vs_backend_of(ctx, __func__);

	if (be == NULL || db_page == NULL || off == NULL)
		return -EINVAL;
	return be->db_page_offset(ctx, db_page, off);
}

int
mana_vs_init_obj(struct manadv_obj *obj, uint64_t obj_type)
{
	const struct ibv_context *ctx[3];
	const struct mana_vs_backend *be;
	unsigned int n = 0, i;

	if (obj == NULL ||
	    (obj_type & ~(uint64_t)(MANADV_OBJ_QP | MANADV_OBJ_CQ | MANADV_OBJ_RWQ)) != 0)
		return -EINVAL;
	if (obj_type & MANADV_OBJ_QP) {
		if (obj->qp.in == NULL || obj->qp.out == NULL)
			return -EINVAL;
		ctx[n++] = obj->qp.in->context;
	}
	if (obj_type & MANADV_OBJ_CQ) {
		if (obj->cq.in == NULL || obj->cq.out == NULL)
			return -EINVAL;
		ctx[n++] = obj->cq.in->context;
	}
	if (obj_type & MANADV_OBJ_RWQ) {
		if (obj->rwq.in == NULL || obj->rwq.out == NULL)
			return -EINVAL;
		ctx[n++] = obj->rwq.in->context;
	}
	if (n == 0)
		return 0;	/* nothing asked for, as manadv_init_obj(obj, 0) */
	be = vs_backend_of(ctx[0], __func__);
	if (be == NULL)
		return -EINVAL;
	for (i = 1; i < n; i++)
		if (vs_ctx_backend(ctx[i]) != be)
			return -EINVAL;	/* one call serves one backend */
	return be->init_obj(obj, obj_type);
}

/* ---- The software device ------------------------------------------- */

const struct mana_vs_model_api *
mana_vs_model_api(void)
{
	return mana_vs_model_api_table();
}

struct mana_model *
mana_vs_model_create(const struct mana_model_config *cfg)
{
	const struct mana_vs_model_api *api = mana_vs_model_api();

	if (api == NULL) {
		mana_vs_log(MANA_VS_LOG_ERR, "this build of net_mana has no software device "
			    "(built with -Dmodel=false)");
		errno = ENOTSUP;
		return NULL;
	}
	if (cfg == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return api->create(cfg);
}

int
mana_vs_model_destroy(struct mana_model *m)
{
	const struct mana_vs_model_api *api = mana_vs_model_api();

	if (api == NULL || m == NULL)
		return -EINVAL;
	return api->destroy(m);
}

struct mana_model *
mana_vs_model_of(const struct ibv_context *ctx)
{
	const struct mana_vs_backend *be = vs_ctx_backend(ctx);

	if (be == NULL || be->kind != MANA_VS_BACKEND_MODEL)
		return NULL;
	return mana_vs_backend_model_of(ctx);
}
