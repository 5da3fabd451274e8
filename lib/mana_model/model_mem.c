/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Protection domains, parent domains, memory regions; ring buffers from the
 * application allocator and doorbell pages.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"

#define MM_MR_ACCESS_OK (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

static inline uint32_t
mm_mr_bucket(uint32_t lkey)
{
	return (lkey ^ (lkey >> 8) ^ (lkey >> 16) ^ (lkey >> 24)) & (MM_MR_HASH_SIZE - 1);
}

/* Caller holds m->lock (an engine pass shared, a control verb exclusive). */
struct mm_mr *
mm_mr_lookup(struct mana_model *m, uint32_t lkey)
{
	struct mm_mr *mr = m->mr_hash[mm_mr_bucket(lkey)];

	while (mr != NULL && mr->ibv.lkey != lkey)
		mr = mr->hnext;
	return mr;
}

/*
 * A driver usually names one MR (its mempool's) in every SGE: the last hit
 * is kept per engine thread, which alone reads and writes it, and dereg_mr
 * (exclusive) forgets it.
 */
struct mm_mr *
mm_mr_lookup_eng(struct mana_model *m, struct mm_engine *e, uint32_t lkey)
{
	struct mm_mr *mr = e->mr_last;

	if (mr != NULL && mr->ibv.lkey == lkey)
		return mr;
	mr = mm_mr_lookup(m, lkey);
	if (mr != NULL)
		e->mr_last = mr;
	return mr;
}

/* ---- PD and parent domain --------------------------------------------- */

struct ibv_pd *
mana_model_alloc_pd(struct ibv_context *c)
{
	struct mm_ctx *ctx;
	struct mm_pd *pd;

	if (c == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = mm_ctx_of(c);
	if (mm_ctx_dead(ctx, "alloc_pd")) {
		errno = EIO;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return NULL;
	pd->ctx = ctx;
	pd->base = pd;
	pd->ibv.context = c;
	mm_lock(ctx->m);
	pd->ibv.handle = ++ctx->m->handle_ctr;
	pd->pdn = pd->ibv.handle;
	ctx->nobj++;
	mm_unlock(ctx->m);
	return &pd->ibv;
}

struct ibv_pd *
mana_model_alloc_parent_domain(struct ibv_context *c, struct ibv_parent_domain_init_attr *attr)
{
	struct mm_pd *pd, *base;
	struct mm_ctx *ctx;

	if (c == NULL || attr == NULL || attr->pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = mm_ctx_of(c);
	if (mm_ctx_dead(ctx, "alloc_parent_domain")) {
		errno = EIO;
		return NULL;
	}
	base = mm_pd_of(attr->pd);
	if (attr->comp_mask & ~(uint32_t)IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT ||
	    attr->td != NULL || base->parent || base->ctx != ctx) {
		mm_error(ctx->m, MM_LOG_INFO,
			 "alloc_parent_domain: comp_mask 0x%x, td, or pd not a plain PD of this "
			 "context",
			 attr->comp_mask);
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return NULL;
	pd->ctx = ctx;
	pd->parent = true;
	pd->base = base;
	pd->ibv.context = c;
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->port = (uint32_t)(uintptr_t)attr->pd_context;
	mm_lock(ctx->m);
	pd->ibv.handle = base->ibv.handle;
	pd->pdn = base->pdn;
	base->users++;
	ctx->nobj++;
	mm_unlock(ctx->m);
	return &pd->ibv;
}

/*
 * Plain PD: EBUSY while MRs, parent domains or queues use it. Parent domain:
 * rdma-core frees it unconditionally; the model refuses (EBUSY) while a
 * queue still names it, so a driver bug cannot become a use-after-free.
 */
int
mana_model_dealloc_pd(struct ibv_pd *p)
{
	struct mm_pd *pd;
	struct mana_model *m;

	if (p == NULL)
		return -EINVAL;
	pd = mm_pd_of(p);
	m = pd->ctx->m;
	mm_lock(m);
	if (pd->users != 0) {
		mm_error(m, MM_LOG_INFO, "dealloc_pd: %s still used by %u objects",
			 pd->parent ? "parent domain" : "PD", pd->users);
		mm_unlock(m);
		return -EBUSY;
	}
	if (pd->parent)
		pd->base->users--;
	pd->ctx->nobj--;
	mm_unlock(m);
	free(pd);
	return 0;
}

/* ---- MR ----------------------------------------------------------------- */

struct ibv_mr *
mana_model_reg_mr(struct ibv_pd *p, void *addr, size_t length, int access)
{
	struct mana_model *m;
	struct mm_mr *mr;
	struct mm_pd *pd;
	uint32_t b;

	if (p == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pd = mm_pd_of(p);
	m = pd->ctx->m;
	if (mm_ctx_dead(pd->ctx, "reg_mr")) {
		errno = EIO;
		return NULL;
	}
	if ((access & ~MM_MR_ACCESS_OK) != 0 || addr == NULL || length == 0 ||
	    (uintptr_t)addr + length < (uintptr_t)addr) {
		mm_error(m, MM_LOG_INFO,
			 "reg_mr: access 0x%x (allowed LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ), "
			 "addr %p, length %zu", access, addr, length);
		errno = EINVAL;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return NULL;
	mr->pd = pd->base;
	mr->start = (uintptr_t)addr;
	mr->end = (uintptr_t)addr + length;
	mr->access = access;
	mr->ibv.context = p->context;
	mr->ibv.pd = p;
	mr->ibv.addr = addr;
	mr->ibv.length = length;
	mm_lock(m);
	mr->ibv.handle = ++m->handle_ctr;
	mr->ibv.lkey = mm_new_lkey(m);
	mr->ibv.rkey = mr->ibv.lkey;
	b = mm_mr_bucket(mr->ibv.lkey);
	mr->hnext = m->mr_hash[b];
	m->mr_hash[b] = mr;
	m->nmr++;
	m->mr_bytes += length;
	m->mr_reg++;
	mr->pd->users++;
	pd->ctx->nobj++;
	mm_unlock(m);
	return &mr->ibv;
}

int
mana_model_dereg_mr(struct ibv_mr *ibmr)
{
	struct mm_mr *mr, **pp;
	struct mana_model *m;

	if (ibmr == NULL)
		return -EINVAL;
	mr = (struct mm_mr *)(void *)ibmr;
	m = mr->pd->ctx->m;
	mm_lock(m);
	for (pp = &m->mr_hash[mm_mr_bucket(ibmr->lkey)]; *pp != NULL; pp = &(*pp)->hnext)
		if (*pp == mr)
			break;
	if (*pp == NULL) {
		mm_unlock(m);
		return -EINVAL;
	}
	*pp = mr->hnext;
	for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++)
		if (m->eng[i].mr_last == mr)
			m->eng[i].mr_last = NULL;
	m->nmr--;
	m->mr_bytes -= mr->end - mr->start;
	m->mr_dereg++;
	mr->pd->users--;
	mr->pd->ctx->nobj--;
	mm_unlock(m);
	free(mr);
	return 0;
}

/* ---- rings and doorbell pages ------------------------------------------ */

/*
 * A ring buffer from the application allocator (hardware.md §2.2). size is a
 * power of two >= 4096 by construction; the buffer must be page aligned
 * (hardware.md §14 #6). NULL + errno (EINVAL: no allocator / misaligned,
 * ENOMEM: the allocator failed).
 */
void *
mm_ring_alloc(struct mm_ctx *ctx, uint32_t size)
{
	struct manadv_ctx_allocators a = ctx->alloc;
	void *p;

	if (!ctx->alloc_set || a.alloc == NULL || a.free == NULL) {
		mm_error(ctx->m, MM_LOG_INFO,
			 "queue creation before manadv_set_context_attr(BUF_ALLOCATORS)");
		errno = EINVAL;
		return NULL;
	}
	p = a.alloc(size, a.data);
	if (p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (((uintptr_t)p & (MM_PAGE_SIZE - 1)) != 0) {
		mm_error(ctx->m, MM_LOG_INFO,
			 "allocator returned %p for %u bytes: not page aligned",
			 p, size);
		a.free(p, a.data);
		errno = EINVAL;
		return NULL;
	}
	return p;
}

/* Freed with the allocator pair current at destroy time (as rdma-core). */
void
mm_ring_free(struct mm_ctx *ctx, void *buf)
{
	if (buf != NULL && ctx->alloc.free != NULL)
		ctx->alloc.free(buf, ctx->alloc.data);
}

/*
 * The doorbell page of a new queue object (hardware.md §1.2): in queue mode
 * a free page 1.. of the context's cmd_fd (zeroed), in shared mode page 0.
 * NULL + errno ENOMEM when every page of the context is in use.
 */
uint64_t *
mm_db_page_alloc(struct mm_ctx *ctx, bool *own)
{
	struct mana_model *m = ctx->m;
	uint64_t *p = NULL;
	uint32_t i;

	if (m->cfg.shared_doorbell) {
		*own = false;
		return ctx->shared_db;
	}
	mm_lock(m);
	for (i = 0; i < ctx->db_npages; i++) {
		if ((ctx->db_used[i / 64] & (UINT64_C(1) << (i % 64))) == 0) {
			ctx->db_used[i / 64] |= UINT64_C(1) << (i % 64);
			p = (uint64_t *)(void *)(ctx->db_obj + (size_t)i * MM_PAGE_SIZE);
			break;
		}
	}
	mm_unlock(m);
	if (p == NULL) {
		mm_error(m, MM_LOG_INFO, "the context's %u doorbell pages (2 x max_qp) are all in "
			 "use", ctx->db_npages);
		errno = ENOMEM;
		return NULL;
	}
	memset(p, 0, MM_PAGE_SIZE);
	*own = true;
	return p;
}

/* A page mm_db_page_alloc gave with *own set goes back to its context. */
void
mm_db_page_free(struct mm_ctx *ctx, uint64_t *page)
{
	size_t i = (size_t)((uint8_t *)page - ctx->db_obj) / MM_PAGE_SIZE;

	mm_lock(ctx->m);
	ctx->db_used[i / 64] &= ~(UINT64_C(1) << (i % 64));
	mm_unlock(ctx->m);
}

/*
 * Offset in cmd_fd of doorbell page `page` of context c (what a process
 * mapping cmd_fd adds to its mapping): 0 for the shared page.
 */
int
mana_model_db_page_offset(struct ibv_context *c, const void *page, uint64_t *off)
{
	struct mm_ctx *ctx;
	const uint8_t *p = page;

	if (c == NULL || page == NULL || off == NULL)
		return -EINVAL;
	ctx = mm_ctx_of(c);
	if (page == ctx->shared_db) {
		*off = 0;
		return 0;
	}
	if (ctx->db_obj == NULL || p < ctx->db_obj ||
	    p >= ctx->db_obj + (size_t)ctx->db_npages * MM_PAGE_SIZE ||
	    (size_t)(p - ctx->db_obj) % MM_PAGE_SIZE != 0) {
		mm_error(ctx->m, MM_LOG_INFO, "db_page_offset: %p is no doorbell page of this "
			 "context", page);
		return -EINVAL;
	}
	*off = (uint64_t)(p - ctx->db_obj) + MM_PAGE_SIZE;
	return 0;
}

int
mana_model_mr_stats(const struct mana_model *m, const void *addr, struct mana_model_mr_stats *st)
{
	struct mana_model *mm = (struct mana_model *)(uintptr_t)m;
	uintptr_t a = (uintptr_t)addr;
	const struct mm_mr *mr;

	if (m == NULL || st == NULL)
		return -EINVAL;
	mm_lock(mm);
	st->open = m->nmr;
	st->open_bytes = m->mr_bytes;
	if (addr != NULL) {
		st->open = 0;
		st->open_bytes = 0;
		for (unsigned int b = 0; b < MM_MR_HASH_SIZE; b++) {
			for (mr = m->mr_hash[b]; mr != NULL; mr = mr->hnext) {
				if (a >= mr->start && a < mr->end) {
					st->open++;
					st->open_bytes += mr->end - mr->start;
				}
			}
		}
	}
	st->registered = m->mr_reg;
	st->deregistered = m->mr_dereg;
	mm_unlock(mm);
	return 0;
}
