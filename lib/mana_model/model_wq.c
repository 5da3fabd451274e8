/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Receive work queues, RSS indirection tables and SRQs (hardware.md §7.1, §8,
 * §1 rule 6, §14 #9, #10, #12, #29).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"

#define MM_MAX_IND_LOG	13

/* get_wqe_size(n) of rdma-core (hardware.md §2.2). */
static uint32_t
mm_wqe_size(uint32_t nsge)
{
	return (GDMA_SGE_SIZE * nsge + 16 + GDMA_WQE_BU_SIZE - 1) &
	       ~(uint32_t)(GDMA_WQE_BU_SIZE - 1);
}

/* align_hw_size(): a power of two >= 4096. */
static uint32_t
mm_hw_size(uint32_t x)
{
	uint32_t s = mm_pow2_ceil(x);

	return s < GDMA_MIN_QUEUE_SIZE ? GDMA_MIN_QUEUE_SIZE : s;
}

uint32_t
mm_sq_size(uint32_t max_wr, uint32_t max_sge)
{
	return mm_hw_size(max_wr * mm_wqe_size(max_sge));
}

static int
mm_wq_post_recv(struct ibv_wq *wq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)wq; (void)wr; (void)bad;
	return EOPNOTSUPP;
}

/* ---- WQ ----------------------------------------------------------------- */

static int
mm_wq_check(struct mm_ctx *ctx, const struct ibv_wq_init_attr *a)
{
	struct mana_model *m = ctx->m;

	if (mm_ctx_dead(ctx, "create_wq"))
		return EIO;
	if (a->comp_mask >= IBV_WQ_INIT_ATTR_RESERVED) {
		mm_error(m, MM_LOG_INFO, "create_wq: comp_mask 0x%x", a->comp_mask);
		return EINVAL;
	}
	if ((a->comp_mask & IBV_WQ_INIT_ATTR_FLAGS) && a->create_flags != 0) {
		mm_error(m, MM_LOG_INFO, "create_wq: create_flags 0x%x unsupported",
			 a->create_flags);
		return EOPNOTSUPP;
	}
	if (a->wq_type != IBV_WQT_RQ || a->pd == NULL || a->cq == NULL ||
	    a->pd->context != &ctx->vctx.context || a->cq->context != &ctx->vctx.context) {
		mm_error(m, MM_LOG_INFO, "create_wq: type %d, or missing/foreign pd or cq",
			 (int)a->wq_type);
		return EINVAL;
	}
	if (a->max_wr < 1 || a->max_wr > mm_queue_max(m) || a->max_sge > GDMA_MAX_RX_SGE) {
		mm_error(m, MM_LOG_INFO, "create_wq: max_wr %u (1..%u, %s), max_sge %u (<= %u)",
			 a->max_wr, mm_queue_max(m), mm_queue_max_who(m), a->max_sge,
			 GDMA_MAX_RX_SGE);
		return EINVAL;
	}
	return 0;
}

struct ibv_wq *
mana_model_create_wq(struct ibv_context *c, struct ibv_wq_init_attr *attr)
{
	struct mm_ctx *ctx;
	struct mm_wq *wq;
	int err;

	if (c == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = mm_ctx_of(c);
	err = mm_wq_check(ctx, attr);
	if (err != 0) {
		errno = err;
		return NULL;
	}
	wq = calloc(1, sizeof(*wq));
	if (wq == NULL)
		return NULL;
	wq->ring.size = mm_hw_size(attr->max_wr * mm_wqe_size(attr->max_sge));
	wq->ring.count = attr->max_wr;
	wq->ring.buf = mm_ring_alloc(ctx, wq->ring.size);
	if (wq->ring.buf == NULL)
		goto err;
	wq->db = mm_db_page_alloc(ctx, &wq->db_own);
	if (wq->db == NULL) {
		mm_ring_free(ctx, wq->ring.buf);
		goto err;
	}
	wq->ctx = ctx;
	wq->pd = mm_pd_of(attr->pd);
	wq->cq = mm_cq_of(attr->cq);
	wq->max_sge = attr->max_sge;
	wq->ibv.context = c;
	wq->ibv.wq_context = attr->wq_context;
	wq->ibv.pd = attr->pd;
	wq->ibv.cq = attr->cq;
	wq->ibv.state = IBV_WQS_RDY;	/* live on creation (hardware.md §10) */
	wq->ibv.wq_type = IBV_WQT_RQ;
	wq->ibv.post_recv = mm_wq_post_recv;
	pthread_mutex_init(&wq->ibv.mutex, NULL);
	pthread_cond_init(&wq->ibv.cond, NULL);
	mm_lock(ctx->m);
	wq->ibv.handle = ++ctx->m->handle_ctr;
	wq->pd->users++;
	wq->cq->users++;
	ctx->nobj++;
	LIST_INSERT_HEAD(&ctx->m->wqs, wq, link);
	mm_ctx_db_lossy_note(ctx, "RQ");
	mm_unlock(ctx->m);
	return &wq->ibv;
err:
	err = errno;
	free(wq);
	errno = err;
	return NULL;
}

int
mana_model_destroy_wq(struct ibv_wq *ibwq)
{
	struct mana_model *m;
	struct mm_wq *wq;

	if (ibwq == NULL)
		return -EINVAL;
	wq = mm_wq_of(ibwq);
	m = wq->ctx->m;
	mm_lock(m);
	if (wq->tables != 0 || wq->rss != NULL) {
		mm_error(m, MM_LOG_INFO, "destroy_wq: WQ 0x%x is in %u indirection tables",
			 wq->id, wq->tables);
		mm_unlock(m);
		return -EBUSY;
	}
	LIST_REMOVE(wq, link);
	wq->pd->users--;
	wq->cq->users--;
	wq->ctx->nobj--;
	mm_ring_free(wq->ctx, wq->ring.buf);
	mm_unlock(m);
	if (wq->db_own)
		mm_db_page_free(wq->ctx, wq->db);
	pthread_mutex_destroy(&ibwq->mutex);
	pthread_cond_destroy(&ibwq->cond);
	free(wq);
	return 0;
}

/* ---- indirection table ---------------------------------------------------- */

static int
mm_ind_check(struct mm_ctx *ctx, const struct ibv_rwq_ind_table_init_attr *a)
{
	struct mana_model *m = ctx->m;
	uint32_t n;

	if (mm_ctx_dead(ctx, "create_rwq_ind_table"))
		return EIO;
	if (a->comp_mask != 0 || a->log_ind_tbl_size > MM_MAX_IND_LOG || a->ind_tbl == NULL) {
		mm_error(m, MM_LOG_INFO, "create_rwq_ind_table: comp_mask 0x%x, log %u (<= %u)",
			 a->comp_mask, a->log_ind_tbl_size, MM_MAX_IND_LOG);
		return EINVAL;
	}
	n = 1u << a->log_ind_tbl_size;
	for (uint32_t i = 0; i < n; i++) {
		struct ibv_wq *w = a->ind_tbl[i];

		if (w == NULL || w->context != &ctx->vctx.context) {
			mm_error(m, MM_LOG_INFO, "create_rwq_ind_table: entry %u NULL or foreign",
				 i);
			return EINVAL;
		}
		for (uint32_t j = 0; j < i; j++) {
			if (a->ind_tbl[j] == w) {
				mm_error(m, MM_LOG_INFO,
					 "create_rwq_ind_table: entries %u and %u are the same WQ",
					 j, i);
				return EINVAL;
			}
			if (a->ind_tbl[j]->cq == w->cq) {
				mm_error(m, MM_LOG_INFO,
					 "create_rwq_ind_table: WQs %u and %u share a CQ", j, i);
				return EINVAL;
			}
		}
	}
	return 0;
}

struct ibv_rwq_ind_table *
mana_model_create_rwq_ind_table(struct ibv_context *c, struct ibv_rwq_ind_table_init_attr *attr)
{
	struct mm_ctx *ctx;
	struct mm_ind *t;
	uint32_t n;
	int err;

	if (c == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = mm_ctx_of(c);
	mm_lock(ctx->m);
	err = mm_ind_check(ctx, attr);
	if (err != 0) {
		mm_unlock(ctx->m);
		errno = err;
		return NULL;
	}
	n = 1u << attr->log_ind_tbl_size;
	t = calloc(1, sizeof(*t));
	if (t != NULL)
		t->wqs = calloc(n, sizeof(*t->wqs));
	if (t == NULL || t->wqs == NULL) {
		mm_unlock(ctx->m);
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->ctx = ctx;
	t->log = attr->log_ind_tbl_size;
	for (uint32_t i = 0; i < n; i++) {
		t->wqs[i] = mm_wq_of(attr->ind_tbl[i]);
		t->wqs[i]->tables++;
	}
	t->ibv.context = c;
	t->ibv.ind_tbl_handle = (int)++ctx->m->handle_ctr;
	t->ibv.ind_tbl_num = t->ibv.ind_tbl_handle;
	t->ibv.comp_mask = 0;
	LIST_INSERT_HEAD(&ctx->m->inds, t, link);
	ctx->nobj++;
	mm_unlock(ctx->m);
	return &t->ibv;
}

int
mana_model_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table)
{
	struct mana_model *m;
	struct mm_ind *t;

	if (table == NULL)
		return -EINVAL;
	t = (struct mm_ind *)(void *)table;
	m = t->ctx->m;
	mm_lock(m);
	if (t->users != 0) {
		mm_error(m, MM_LOG_INFO, "destroy_rwq_ind_table: used by %u RSS QPs", t->users);
		mm_unlock(m);
		return -EBUSY;
	}
	for (uint32_t i = 0; i < (1u << t->log); i++)
		t->wqs[i]->tables--;
	LIST_REMOVE(t, link);
	t->ctx->nobj--;
	mm_unlock(m);
	free(t->wqs);
	free(t);
	return 0;
}

/* ---- SRQ (decision 6) ----------------------------------------------------- */

struct ibv_srq *
mana_model_create_xsrq(struct ibv_pd *p, struct mana_model_xsrq_init_attr *attr)
{
	struct mm_srq *srq;
	struct mm_pd *pd;
	struct mm_cq *xcq = NULL;

	if (p == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pd = mm_pd_of(p);
	if ((attr->srq_type != IBV_SRQT_BASIC && attr->srq_type != IBV_SRQT_XRC) ||
	    attr->attr.max_wr < 1 || attr->attr.max_wr > mm_queue_max(pd->ctx->m) ||
	    attr->attr.max_sge > GDMA_MAX_RX_SGE || attr->attr.srq_limit > attr->attr.max_wr) {
		mm_error(pd->ctx->m, MM_LOG_INFO,
			 "create_xsrq: type %d, max_wr %u (1..%u), max_sge %u (<= %u), limit %u",
			 (int)attr->srq_type, attr->attr.max_wr, mm_queue_max(pd->ctx->m),
			 attr->attr.max_sge, GDMA_MAX_RX_SGE, attr->attr.srq_limit);
		errno = EINVAL;
		return NULL;
	}
	if (attr->srq_type == IBV_SRQT_XRC) {
		if (attr->xrc_cq == NULL || attr->xrc_cq->context != p->context) {
			mm_error(pd->ctx->m, MM_LOG_INFO,
				 "create_xsrq: XRC SRQ needs a CQ of this context");
			errno = EINVAL;
			return NULL;
		}
		xcq = mm_cq_of(attr->xrc_cq);
	}
	srq = calloc(1, sizeof(*srq));
	if (srq == NULL)
		return NULL;
	srq->ctx = pd->ctx;
	srq->pd = pd;
	srq->type = attr->srq_type;
	srq->xrc_cq = xcq;
	/* Rounded like a provider would: never below the request. */
	srq->max_wr = mm_pow2_ceil(attr->attr.max_wr);
	srq->max_sge = attr->attr.max_sge == 0 ? 1 : attr->attr.max_sge;
	attr->attr.max_wr = srq->max_wr;
	attr->attr.max_sge = srq->max_sge;
	srq->ibv.context = p->context;
	srq->ibv.srq_context = attr->srq_context;
	srq->ibv.pd = p;
	pthread_mutex_init(&srq->ibv.mutex, NULL);
	pthread_cond_init(&srq->ibv.cond, NULL);
	mm_lock(pd->ctx->m);
	srq->ibv.handle = ++pd->ctx->m->handle_ctr;
	pd->users++;
	if (xcq != NULL)
		xcq->users++;
	pd->ctx->nobj++;
	mm_unlock(pd->ctx->m);
	return &srq->ibv;
}

int
mana_model_destroy_srq(struct ibv_srq *ibsrq)
{
	struct mana_model *m;
	struct mm_srq *srq;

	if (ibsrq == NULL)
		return -EINVAL;
	srq = (struct mm_srq *)(void *)ibsrq;
	m = srq->ctx->m;
	mm_lock(m);
	if (srq->users != 0) {
		mm_error(m, MM_LOG_INFO, "destroy_srq: used by %u QPs", srq->users);
		mm_unlock(m);
		return -EBUSY;
	}
	srq->pd->users--;
	if (srq->xrc_cq != NULL)
		srq->xrc_cq->users--;
	srq->ctx->nobj--;
	mm_unlock(m);
	pthread_mutex_destroy(&ibsrq->mutex);
	pthread_cond_destroy(&ibsrq->cond);
	free(srq);
	return 0;
}
