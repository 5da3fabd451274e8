/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Completion channels, CQs, CQE production (owner-bit protocol, hardware.md
 * §4.2) and one-shot arming with channel events (hardware.md §5.4).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model_priv.h"

/* ---- completion channel -------------------------------------------------- */

struct ibv_comp_channel *
mana_model_create_comp_channel(struct ibv_context *c)
{
	struct mm_channel *ch;
	struct mm_ctx *ctx;
	int p[2];

	if (c == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = mm_ctx_of(c);
	if (mm_ctx_dead(ctx, "create_comp_channel")) {
		errno = EIO;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL)
		return NULL;
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0) {
		free(ch);
		return NULL;
	}
	ch->ctx = ctx;
	ch->ibv.context = c;
	ch->ibv.fd = p[0];
	ch->ibv.refcnt = 0;
	ch->wfd = p[1];
	mm_lock(ctx->m);
	LIST_INSERT_HEAD(&ctx->m->chans, ch, link);
	ctx->nobj++;
	mm_unlock(ctx->m);
	return &ch->ibv;
}

int
mana_model_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct mm_channel *ch;
	struct mana_model *m;

	if (channel == NULL)
		return -EINVAL;
	ch = (struct mm_channel *)(void *)channel;
	m = ch->ctx->m;
	mm_lock(m);
	if (channel->refcnt != 0) {
		mm_error(m, MM_LOG_INFO, "destroy_comp_channel: %d CQs still use it",
			 channel->refcnt);
		mm_unlock(m);
		return -EBUSY;
	}
	LIST_REMOVE(ch, link);
	ch->ctx->nobj--;
	mm_unlock(m);
	close(ch->ibv.fd);
	close(ch->wfd);
	free(ch);
	return 0;
}

/* ---- CQ ----------------------------------------------------------------- */

static bool
mm_buf_zero(const uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

static int
mm_cq_check(struct mm_ctx *ctx, int cqe, struct ibv_comp_channel *channel, int comp_vector)
{
	if (mm_ctx_dead(ctx, "create_cq"))
		return EIO;
	if (cqe < 1 || (uint32_t)cqe > mm_queue_max(ctx->m)) {
		mm_error(ctx->m, MM_LOG_INFO, "create_cq: cqe %d not in 1..%u (%s)", cqe,
			 mm_queue_max(ctx->m), mm_queue_max_who(ctx->m));
		return EINVAL;
	}
	if (comp_vector < 0 || comp_vector >= ctx->vctx.context.num_comp_vectors) {
		mm_error(ctx->m, MM_LOG_INFO, "create_cq: comp_vector %d not in 0..%d",
			 comp_vector, ctx->vctx.context.num_comp_vectors - 1);
		return EINVAL;
	}
	if (channel != NULL && channel->context != &ctx->vctx.context) {
		mm_error(ctx->m, MM_LOG_INFO, "create_cq: channel of another context");
		return EINVAL;
	}
	return 0;
}

struct ibv_cq *
mana_model_create_cq(struct ibv_context *c, int cqe, void *cq_context,
		     struct ibv_comp_channel *channel, int comp_vector)
{
	struct mm_ctx *ctx;
	struct mm_cq *cq;
	uint32_t size;
	int err;

	if (c == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = mm_ctx_of(c);
	err = mm_cq_check(ctx, cqe, channel, comp_vector);
	if (err != 0) {
		errno = err;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL)
		return NULL;
	size = mm_pow2_ceil((uint32_t)cqe * GDMA_CQE_SIZE);
	if (size < GDMA_MIN_QUEUE_SIZE)
		size = GDMA_MIN_QUEUE_SIZE;
	cq->buf = mm_ring_alloc(ctx, size);
	if (cq->buf == NULL) {
		err = errno;
		free(cq);
		errno = err;
		return NULL;
	}
	if (!mm_buf_zero(cq->buf, (uint32_t)cqe * GDMA_CQE_SIZE))
		mm_log(MM_LOG_WARNING, "%s: create_cq: CQ buffer %p is not zeroed: "
		       "stale owner bits will read as completions", ctx->m->cfg.name, cq->buf);
	cq->ctx = ctx;
	cq->size = size;
	cq->count = (uint32_t)cqe;
	cq->prod = cq->count;
	cq->slot = 0;
	cq->owner = 1;
	cq->chan = (struct mm_channel *)(void *)channel;
	cq->ibv.context = c;
	cq->ibv.channel = channel;
	cq->ibv.cq_context = cq_context;
	cq->ibv.cqe = cqe;
	pthread_mutex_init(&cq->ibv.mutex, NULL);
	pthread_cond_init(&cq->ibv.cond, NULL);
	mm_lock(ctx->m);
	cq->ibv.handle = ++ctx->m->handle_ctr;
	if (channel != NULL)
		channel->refcnt++;
	LIST_INSERT_HEAD(&ctx->m->cqs, cq, link);
	ctx->nobj++;
	mm_unlock(ctx->m);
	return &cq->ibv;
}

int
mana_model_destroy_cq(struct ibv_cq *ibcq)
{
	struct mana_model *m;
	struct mm_cq *cq;

	if (ibcq == NULL)
		return -EINVAL;
	cq = mm_cq_of(ibcq);
	m = cq->ctx->m;
	mm_lock(m);
	if (cq->users != 0) {
		mm_error(m, MM_LOG_INFO, "destroy_cq: CQ still used by %u WQs/QPs", cq->users);
		mm_unlock(m);
		return -EBUSY;
	}
	/* Nothing stays held past a queue's end (mm_rq_objects_end); never freed listed. */
	mm_cq_publish(m, cq);
	if (ibcq->channel != NULL)
		ibcq->channel->refcnt--;
	LIST_REMOVE(cq, link);
	cq->ctx->nobj--;
	mm_ring_free(cq->ctx, cq->buf);
	mm_unlock(m);
	pthread_mutex_destroy(&ibcq->mutex);
	pthread_cond_destroy(&ibcq->cond);
	free(cq);
	return 0;
}

int
mana_model_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	uint64_t rec;
	ssize_t n;

	if (channel == NULL || cq == NULL || cq_context == NULL)
		return -EINVAL;
	n = read(channel->fd, &rec, sizeof(rec));
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(rec))
		return -EIO;
	*cq = (struct ibv_cq *)(uintptr_t)rec;
	*cq_context = (*cq)->cq_context;
	return 0;
}

void
mana_model_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (cq == NULL)
		return;
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_mutex_unlock(&cq->mutex);
}

/* ---- CQE production (engine, m->lock held) -------------------------------- */

static void
mm_cq_fire(struct mana_model *m, struct mm_cq *cq)
{
	uint64_t rec = (uint64_t)(uintptr_t)&cq->ibv;

	cq->armed = false;
	if (cq->chan == NULL)
		return;
	if (write(cq->chan->wfd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec)) {
		cq->events_lost++;
		mm_error(m, MM_LOG_WARNING, "CQ 0x%x: completion event lost (channel full)",
			 cq->id);
	}
}

/*
 * Bytes 0-59 of the CQE at the producer, which then advances; returns the
 * CQE's dword 15 (not stored yet) and *at the CQE.
 */
static uint32_t
mm_cq_fill(struct mm_cq *cq, const uint32_t *data, uint32_t wq_id, bool is_sq,
	   struct gdma_cqe **at)
{
	struct gdma_cqe *e = (struct gdma_cqe *)(void *)(cq->buf +
							 (size_t)cq->slot * GDMA_CQE_SIZE);
	uint32_t info;

	memcpy(e->data, data, GDMA_COMP_DATA_SIZE);
	info = GDMA_SET(GDMA_CQE_WQ_NUM, wq_id) | GDMA_SET(GDMA_CQE_IS_SQ, is_sq ? 1u : 0u) |
	       GDMA_SET(GDMA_CQE_OWNER, cq->owner);
	cq->prod++;
	if (++cq->slot == cq->count) {
		cq->slot = 0;
		cq->owner = (cq->owner + 1) & GDMA_CQE_OWNER_MASK;
	}
	*at = e;
	return info;
}

static inline void
mm_cq_arm_check(struct mana_model *m, struct mm_cq *cq)
{
	if (cq->armed && cq->prod > cq->arm_at)
		mm_cq_fire(m, cq);
}

/*
 * Write one CQE (hardware.md §4.2, §14 #21, §18 #6): bytes 0-59, then dword 15 with
 * release order, slot P % count, owner (P / count) & 7, P from count. CQEs
 * the CQ holds back are made visible first: completions appear in order.
 */
void
mm_cq_write(struct mana_model *m, struct mm_cq *cq, const uint32_t *data, uint32_t wq_id,
	    bool is_sq)
{
	struct gdma_cqe *e;
	uint32_t info;

	if (cq->held != 0)
		mm_cq_publish(m, cq);
	info = mm_cq_fill(cq, data, wq_id, is_sq, &e);
	__atomic_store_n(&e->info, info, __ATOMIC_RELEASE);
	mm_cq_arm_check(m, cq);
}

/*
 * An RX CQE under cqe_batch (doc/design.md, "Completion batching"): bytes 0-59
 * are written now, dword 15 (owner bits, what makes the CQE valid) is held
 * until cqe_batch CQEs are held on this CQ or the engine pass ends. The
 * producer index advances at once, so the slots and owner bits are those
 * of hardware.md §4.2 whatever the grouping; a consumer only sees the CQEs
 * later, in groups.
 */
void
mm_cq_write_rx(struct mana_model *m, struct mm_engine *e, struct mm_cq *cq,
	       const uint32_t *data, uint32_t wq_id)
{
	struct gdma_cqe *cqe;

	if (m->cfg.cqe_batch <= 1) {
		mm_cq_write(m, cq, data, wq_id, false);
		return;
	}
	if (cq->held == 0) {
		cq->held_slot = cq->slot;
		LIST_INSERT_HEAD(&e->held_cqs, cq, held_link);
	}
	cq->held_info[cq->held++] = mm_cq_fill(cq, data, wq_id, false, &cqe);
	/* Never more than the ring: an overflow then looks as it does unbatched. */
	if (cq->held >= m->cfg.cqe_batch || cq->held >= cq->count)
		mm_cq_publish(m, cq);
}

/*
 * The held CQEs become visible, in producer order (hardware.md §18 #6): one release fence orders
 * every CQE's bytes 0-59 before the group's dwords 15, which are then
 * stored first to last (a consumer stops at the first slot not yet valid).
 * The arm check follows, so an event never precedes the CQE it is for.
 */
void
mm_cq_publish(struct mana_model *m, struct mm_cq *cq)
{
	uint32_t slot = cq->held_slot;

	if (cq->held == 0)
		return;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (uint32_t i = 0; i < cq->held; i++) {
		struct gdma_cqe *e = (struct gdma_cqe *)(void *)(cq->buf +
								 (size_t)slot * GDMA_CQE_SIZE);

		__atomic_store_n(&e->info, cq->held_info[i], __ATOMIC_RELAXED);
		if (++slot == cq->count)
			slot = 0;
	}
	cq->held = 0;
	LIST_REMOVE(cq, held_link);
	mm_cq_arm_check(m, cq);
}

void
mm_cq_publish_eng(struct mm_engine *e)
{
	while (!LIST_EMPTY(&e->held_cqs))
		mm_cq_publish(e->m, LIST_FIRST(&e->held_cqs));
}

void
mm_cq_publish_all(struct mana_model *m)
{
	for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++)
		mm_cq_publish_eng(&m->eng[i]);
}

/*
 * Arm for the next CQE at or after index tail (= C mod (count << 3)).
 * One event per arm (hardware.md §14 #26).
 */
void
mm_cq_arm(struct mana_model *m, struct mm_cq *cq, uint32_t tail)
{
	uint64_t mod = (uint64_t)cq->count << GDMA_CQE_OWNER_BITS;
	uint64_t d = (cq->prod % mod + mod - tail % mod) % mod;	/* CQEs since tail */

	/* CQEs held back are published first: the arm sees what the consumer can. */
	mm_cq_publish(m, cq);
	if (tail >= mod)
		mm_error(m, MM_LOG_WARNING, "CQ 0x%x: arm tail %u >= count << 3", cq->id, tail);
	if (d <= cq->count)
		cq->arm_at = cq->prod - d;		/* index tail in absolute terms */
	else
		cq->arm_at = cq->prod + (mod - d);	/* tail is ahead of the producer */
	cq->armed = true;
	mm_cq_arm_check(m, cq);
}
