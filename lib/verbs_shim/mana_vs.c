/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The shim's front: argument checks common to both backends, then dispatch
 * by the object's ibv_context to the software device (model/mana_model_verbs.h)
 * or to rdma-core (mana_vs_rdma.c).
 *
 * NULL arguments are refused with EINVAL on both backends
 * (device-contract.md section 8, model policy): rdma-core itself would
 * dereference them.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "mana_vs.h"
#include "mana_vs_rdma.h"
#include "mana_model_verbs.h"

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
	vs_log_fn = fn;
	vs_log_arg = arg;
	/* The model reports through the same logger. */
	if (fn != NULL)
		mana_model_set_log(fn, arg);
	else
		mana_model_set_log(vs_log_default, NULL);
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

static bool
vs_is_model(const struct ibv_context *ctx)
{
	return mana_model_from_context(ctx) != NULL;
}

/* ---- Devices ------------------------------------------------------- */

/*
 * What mana_vs_get_device_list hands out: the caller sees devs[]; the raw
 * rdma-core list stays alive behind it because its devices are only valid
 * until ibv_free_device_list().
 */
struct vs_devlist {
	struct ibv_device **rdma_raw;
	struct ibv_device *devs[];
};

struct ibv_device **
mana_vs_get_device_list(int *num_devices)
{
	struct ibv_device **model, **raw;
	struct vs_devlist *dl;
	int nmodel = 0, nraw = 0, n = 0, i;

	model = mana_model_get_device_list(&nmodel);
	if (model == NULL)
		return NULL;
	raw = mana_vs_rdma_get_device_list(&nraw);
	if (raw == NULL) {
		free(model);
		return NULL;
	}
	dl = malloc(sizeof(*dl) + ((size_t)nmodel + (size_t)nraw + 1) * sizeof(dl->devs[0]));
	if (dl == NULL) {
		mana_vs_rdma_free_device_list(raw);
		free(model);
		errno = ENOMEM;
		return NULL;
	}
	dl->rdma_raw = raw;
	for (i = 0; i < nmodel; i++)
		dl->devs[n++] = model[i];
	for (i = 0; i < nraw; i++)
		if (mana_vs_rdma_is_mana(raw[i]))
			dl->devs[n++] = raw[i];
	dl->devs[n] = NULL;
	/* Model devices live as long as their model: only the array goes. */
	free(model);
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
	mana_vs_rdma_free_device_list(dl->rdma_raw);
	free(dl);
}

enum mana_vs_backend
mana_vs_device_backend(const struct ibv_device *dev)
{
	if (dev != NULL && mana_model_from_device(dev) != NULL)
		return MANA_VS_BACKEND_MODEL;
	return MANA_VS_BACKEND_RDMA;
}

enum mana_vs_backend
mana_vs_context_backend(const struct ibv_context *ctx)
{
	if (ctx != NULL && vs_is_model(ctx))
		return MANA_VS_BACKEND_MODEL;
	return MANA_VS_BACKEND_RDMA;
}

const char *
mana_vs_device_name(const struct ibv_device *dev)
{
	struct mana_model *m;

	if (dev == NULL)
		return NULL;
	m = mana_model_from_device(dev);
	if (m != NULL)
		return mana_model_config(m)->name;
	return mana_vs_rdma_device_name(dev);
}

const char *
mana_vs_ibdev_path(const struct ibv_device *dev)
{
	struct mana_model *m;

	if (dev == NULL)
		return NULL;
	m = mana_model_from_device(dev);
	if (m != NULL)
		return mana_model_ibdev_path(m);
	return mana_vs_rdma_ibdev_path(dev);
}

struct ibv_context *
mana_vs_open_device(struct ibv_device *dev)
{
	if (dev == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (mana_model_from_device(dev) != NULL)
		return mana_model_open_device(dev);
	return mana_vs_rdma_open_device(dev);
}

int
mana_vs_close_device(struct ibv_context *ctx)
{
	if (ctx == NULL)
		return EINVAL;
	if (vs_is_model(ctx))
		return mana_model_close_device(ctx);
	return mana_vs_rdma_close_device(ctx);
}

int
mana_vs_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr)
{
	/* input may be NULL, as for ibv_query_device_ex(). */
	if (ctx == NULL || attr == NULL)
		return EINVAL;
	if (vs_is_model(ctx))
		return mana_model_query_device_ex(ctx, input, attr);
	return mana_vs_rdma_query_device_ex(ctx, input, attr);
}

int
mana_vs_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	if (ctx == NULL || attr == NULL)
		return EINVAL;
	if (vs_is_model(ctx))
		return mana_model_query_port(ctx, port, attr);
	return mana_vs_rdma_query_port(ctx, port, attr);
}

int
mana_vs_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	if (ctx == NULL || event == NULL)
		return EINVAL;
	if (vs_is_model(ctx))
		return mana_model_get_async_event(ctx, event);
	return mana_vs_rdma_get_async_event(ctx, event);
}

/* The context an async event belongs to; NULL for port and device events. */
static const struct ibv_context *
vs_async_event_context(const struct ibv_async_event *event)
{
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		return event->element.cq != NULL ? event->element.cq->context : NULL;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return event->element.qp != NULL ? event->element.qp->context : NULL;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return event->element.srq != NULL ? event->element.srq->context : NULL;
	case IBV_EVENT_WQ_FATAL:
		return event->element.wq != NULL ? event->element.wq->context : NULL;
	default:
		return NULL;
	}
}

void
mana_vs_ack_async_event(struct ibv_async_event *event)
{
	const struct ibv_context *ctx;

	if (event == NULL)
		return;
	ctx = vs_async_event_context(event);
	/*
	 * Port and device events name no object, so their backend is
	 * unknown; rdma-core 44's ack does nothing for them (it only counts
	 * object events), so the model's ack takes them.
	 */
	if (ctx == NULL || vs_is_model(ctx))
		mana_model_ack_async_event(event);
	else
		mana_vs_rdma_ack_async_event(event);
}

int
mana_vs_set_port_mtu(struct ibv_context *ctx, uint8_t port, uint32_t mtu)
{
	if (ctx == NULL)
		return EINVAL;
	if (vs_is_model(ctx))
		return mana_model_set_port_mtu(ctx, port, mtu);
	return mana_vs_rdma_set_port_mtu(ctx, port, mtu);
}

/* ---- PD, MR -------------------------------------------------------- */

struct ibv_pd *
mana_vs_alloc_pd(struct ibv_context *ctx)
{
	if (ctx == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (vs_is_model(ctx))
		return mana_model_alloc_pd(ctx);
	return mana_vs_rdma_alloc_pd(ctx);
}

struct ibv_pd *
mana_vs_alloc_parent_domain(struct ibv_context *ctx, struct ibv_parent_domain_init_attr *attr)
{
	if (ctx == NULL || attr == NULL || attr->pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (vs_is_model(ctx))
		return mana_model_alloc_parent_domain(ctx, attr);
	return mana_vs_rdma_alloc_parent_domain(ctx, attr);
}

int
mana_vs_dealloc_pd(struct ibv_pd *pd)
{
	if (pd == NULL)
		return EINVAL;
	if (vs_is_model(pd->context))
		return mana_model_dealloc_pd(pd);
	return mana_vs_rdma_dealloc_pd(pd);
}

struct ibv_mr *
mana_vs_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (vs_is_model(pd->context))
		return mana_model_reg_mr(pd, addr, length, access);
	return mana_vs_rdma_reg_mr(pd, addr, length, access);
}

int
mana_vs_dereg_mr(struct ibv_mr *mr)
{
	if (mr == NULL)
		return EINVAL;
	if (vs_is_model(mr->context))
		return mana_model_dereg_mr(mr);
	return mana_vs_rdma_dereg_mr(mr);
}

/* ---- CQ and completion channel ------------------------------------- */

struct ibv_comp_channel *
mana_vs_create_comp_channel(struct ibv_context *ctx)
{
	if (ctx == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (vs_is_model(ctx))
		return mana_model_create_comp_channel(ctx);
	return mana_vs_rdma_create_comp_channel(ctx);
}

int
mana_vs_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	if (channel == NULL)
		return EINVAL;
	if (vs_is_model(channel->context))
		return mana_model_destroy_comp_channel(channel);
	return mana_vs_rdma_destroy_comp_channel(channel);
}

struct ibv_cq *
mana_vs_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
		  struct ibv_comp_channel *channel, int comp_vector)
{
	if (ctx == NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* A channel of another device would deliver events nobody reads. */
	if (channel != NULL && channel->context != ctx) {
		errno = EINVAL;
		return NULL;
	}
	if (vs_is_model(ctx))
		return mana_model_create_cq(ctx, cqe, cq_context, channel, comp_vector);
	return mana_vs_rdma_create_cq(ctx, cqe, cq_context, channel, comp_vector);
}

int
mana_vs_destroy_cq(struct ibv_cq *cq)
{
	if (cq == NULL)
		return EINVAL;
	if (vs_is_model(cq->context))
		return mana_model_destroy_cq(cq);
	return mana_vs_rdma_destroy_cq(cq);
}

int
mana_vs_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	if (channel == NULL || cq == NULL || cq_context == NULL)
		return EINVAL;
	if (vs_is_model(channel->context))
		return mana_model_get_cq_event(channel, cq, cq_context);
	return mana_vs_rdma_get_cq_event(channel, cq, cq_context);
}

void
mana_vs_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (cq == NULL)
		return;
	if (vs_is_model(cq->context))
		mana_model_ack_cq_events(cq, nevents);
	else
		mana_vs_rdma_ack_cq_events(cq, nevents);
}

/* ---- WQ, indirection table, QP ------------------------------------- */

struct ibv_wq *
mana_vs_create_wq(struct ibv_context *ctx, struct ibv_wq_init_attr *attr)
{
	if (ctx == NULL || attr == NULL || attr->pd == NULL || attr->cq == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (vs_is_model(ctx))
		return mana_model_create_wq(ctx, attr);
	return mana_vs_rdma_create_wq(ctx, attr);
}

int
mana_vs_destroy_wq(struct ibv_wq *wq)
{
	if (wq == NULL)
		return EINVAL;
	if (vs_is_model(wq->context))
		return mana_model_destroy_wq(wq);
	return mana_vs_rdma_destroy_wq(wq);
}

struct ibv_rwq_ind_table *
mana_vs_create_rwq_ind_table(struct ibv_context *ctx, struct ibv_rwq_ind_table_init_attr *attr)
{
	uint32_t i;

	/*
	 * comp_mask != 0 (libibverbs) and log size > 13 (kernel) are EINVAL on
	 * both backends (contract 14 #10); checked first so that the scan below
	 * stays inside the caller's table.
	 */
	if (ctx == NULL || attr == NULL || attr->ind_tbl == NULL || attr->comp_mask != 0 ||
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
	if (vs_is_model(ctx))
		return mana_model_create_rwq_ind_table(ctx, attr);
	return mana_vs_rdma_create_rwq_ind_table(ctx, attr);
}

int
mana_vs_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table)
{
	if (table == NULL)
		return EINVAL;
	if (vs_is_model(table->context))
		return mana_model_destroy_rwq_ind_table(table);
	return mana_vs_rdma_destroy_rwq_ind_table(table);
}

struct ibv_qp *
mana_vs_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	/* A RAW QP always completes into a send CQ (rdma-core reads it). */
	if (pd == NULL || attr == NULL || attr->send_cq == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (vs_is_model(pd->context))
		return mana_model_create_qp(pd, attr);
	return mana_vs_rdma_create_qp(pd, attr);
}

struct ibv_qp *
mana_vs_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	if (ctx == NULL || attr == NULL ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_PD) && attr->pd == NULL) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) && attr->rwq_ind_tbl == NULL) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH) &&
	     attr->rx_hash_conf.rx_hash_key_len != 0 && attr->rx_hash_conf.rx_hash_key == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	if (vs_is_model(ctx))
		return mana_model_create_qp_ex(ctx, attr);
	return mana_vs_rdma_create_qp_ex(ctx, attr);
}

int
mana_vs_destroy_qp(struct ibv_qp *qp)
{
	if (qp == NULL)
		return EINVAL;
	if (vs_is_model(qp->context))
		return mana_model_destroy_qp(qp);
	return mana_vs_rdma_destroy_qp(qp);
}

/* ---- SRQ (contract decision 6) ------------------------------------- */

struct ibv_srq *
mana_vs_create_xsrq(struct ibv_pd *pd, struct mana_vs_xsrq_init_attr *attr)
{
	if (pd == NULL || attr == NULL) {
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
	if (vs_is_model(pd->context))
		return mana_model_create_xsrq(pd, attr);
	return mana_vs_rdma_create_xsrq(pd, attr);
}

int
mana_vs_destroy_srq(struct ibv_srq *srq)
{
	if (srq == NULL)
		return EINVAL;
	if (vs_is_model(srq->context))
		return mana_model_destroy_srq(srq);
	return mana_vs_rdma_destroy_srq(srq);
}

/* ---- manadv -------------------------------------------------------- */

int
mana_vs_set_context_attr(struct ibv_context *ctx, enum manadv_set_ctx_attr_type type, void *attr)
{
	if (ctx == NULL || attr == NULL)
		return EINVAL;
	if (vs_is_model(ctx))
		return mana_model_set_context_attr(ctx, type, attr);
	return mana_vs_rdma_set_context_attr(ctx, type, attr);
}

int
mana_vs_init_obj(struct manadv_obj *obj, uint64_t obj_type)
{
	const struct ibv_context *ctx[3];
	unsigned int n = 0, i;
	bool model;

	if (obj == NULL ||
	    (obj_type & ~(uint64_t)(MANADV_OBJ_QP | MANADV_OBJ_CQ | MANADV_OBJ_RWQ)) != 0)
		return EINVAL;
	if (obj_type & MANADV_OBJ_QP) {
		if (obj->qp.in == NULL || obj->qp.out == NULL)
			return EINVAL;
		ctx[n++] = obj->qp.in->context;
	}
	if (obj_type & MANADV_OBJ_CQ) {
		if (obj->cq.in == NULL || obj->cq.out == NULL)
			return EINVAL;
		ctx[n++] = obj->cq.in->context;
	}
	if (obj_type & MANADV_OBJ_RWQ) {
		if (obj->rwq.in == NULL || obj->rwq.out == NULL)
			return EINVAL;
		ctx[n++] = obj->rwq.in->context;
	}
	if (n == 0)
		return 0;	/* nothing asked for, as manadv_init_obj(obj, 0) */
	model = vs_is_model(ctx[0]);
	for (i = 1; i < n; i++)
		if (vs_is_model(ctx[i]) != model)
			return EINVAL;	/* one call serves one backend */
	if (model)
		return mana_model_init_obj(obj, obj_type);
	return mana_vs_rdma_init_obj(obj, obj_type);
}

/* ---- The software device ------------------------------------------- */

struct mana_model *
mana_vs_model_create(const struct mana_model_config *cfg)
{
	if (cfg == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return mana_model_create(cfg);
}

int
mana_vs_model_destroy(struct mana_model *m)
{
	int rc;

	if (m == NULL)
		return EINVAL;
	/* The model API returns negative errno values; the shim positive. */
	rc = mana_model_destroy(m);
	return rc < 0 ? -rc : rc;
}

struct mana_model *
mana_vs_model_of(const struct ibv_context *ctx)
{
	if (ctx == NULL)
		return NULL;
	return mana_model_from_context(ctx);
}
