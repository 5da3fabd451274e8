/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Faults, controls and counters of mana_model.h. Ports are 0-based here
 * (index into mana_model_config.wire/mac); IB port numbers are index + 1.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model_priv.h"

#define MM_MIN_MTU	68

static struct mm_port *
mm_port_get(const struct mana_model *m, unsigned int port)
{
	if (m == NULL || port >= m->cfg.nports)
		return NULL;
	return (struct mm_port *)(uintptr_t)&m->port[port];
}

int
mana_model_set_link(struct mana_model *m, unsigned int port, bool up)
{
	struct mm_port *p = mm_port_get(m, port);

	if (p == NULL)
		return -EINVAL;
	mm_lock(m);
	p->admin_up = up;
	mm_port_link_eval(m, p);
	mm_unlock(m);
	return 0;
}

void
mm_port_link_eval(struct mana_model *m, struct mm_port *p)
{
	bool up = p->admin_up && p->carrier;

	if (p->link_up == up)
		return;
	p->link_up = up;
	mm_async_event_all(m, up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR,
			   (uint8_t)(p->index + 1));
	mm_log(MM_LOG_INFO, "%s: port %u link %s%s", m->cfg.name, p->index + 1, up ? "up" : "down",
	       !p->carrier ? " (the pair cable has no far end)" : "");
}

/* Device lost: every context gets IBV_EVENT_DEVICE_FATAL; queues stop. Caller holds m->lock. */
bool
mm_fatal_locked(struct mana_model *m)
{
	if (__atomic_exchange_n(&m->fatal, true, __ATOMIC_ACQ_REL))
		return false;
	__atomic_fetch_add(&m->rst.fatals, 1, __ATOMIC_RELAXED);
	mm_async_event_all(m, IBV_EVENT_DEVICE_FATAL, 0);
	return true;
}

static uint64_t
mm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool
mm_ctx_dead(struct mm_ctx *ctx, const char *verb)
{
	if (!__atomic_load_n(&ctx->dead, __ATOMIC_ACQUIRE))
		return false;
	mm_error(ctx->m, MM_LOG_INFO, "%s: the context was opened before a device reset; "
		 "close it and open the device again", verb);
	return true;
}

/*
 * The device forgets the objects of ctx: its QPs no longer hold a vPort or
 * count against max_qp (a context opened after the reset configures the
 * vPort afresh); the objects stay allocated until the owner destroys them.
 */
static void
mm_ctx_kill_locked(struct mana_model *m, struct mm_ctx *ctx)
{
	struct mm_qp *qp;

	__atomic_store_n(&ctx->dead, true, __ATOMIC_RELEASE);
	LIST_FOREACH(qp, &m->qps, link) {
		struct mm_port *p = &m->port[qp->port];

		if (qp->ctx != ctx || qp->detached)
			continue;
		if (p->rss == qp)
			p->rss = NULL;
		mm_port_release(p);
		m->nqp--;
		qp->detached = true;
	}
	m->rst.contexts_killed++;
	mm_async_event(ctx, IBV_EVENT_DEVICE_FATAL, 0);
}

int
mana_model_reset(struct mana_model *m, uint32_t down_ms)
{
	unsigned int nctx = 0;
	struct mm_ctx *ctx;

	if (m == NULL)
		return -EINVAL;
	mm_lock(m);
	if (m->fatal) {
		mm_unlock(m);
		mm_error(m, MM_LOG_INFO, "reset: the device had a permanent fatal error");
		return -EIO;
	}
	/*
	 * A coalesced CQE being built is written first and every CQE held back
	 * is made visible: their frames arrived before.
	 */
	mm_rx_flush_all(m);
	mm_cq_publish_all(m);
	LIST_FOREACH(ctx, &m->ctxs, link) {
		if (ctx->dead)
			continue;
		mm_ctx_kill_locked(m, ctx);
		nctx++;
	}
	m->down_until_ns = mm_now_ns() + (uint64_t)down_ms * 1000000ull;
	m->rst.resets++;
	mm_unlock(m);
	mm_error(m, MM_LOG_WARNING, "device reset (injected): %u context%s lost, down for %u ms",
		 nctx, nctx == 1 ? "" : "s", down_ms);
	return 0;
}

/* 0: the device may be opened; EIO while a reset lasts or after a fatal error. */
int
mm_open_allowed(struct mana_model *m)
{
	int err = 0;

	mm_lock(m);
	if (m->fatal || mm_now_ns() < m->down_until_ns) {
		m->rst.open_refused++;
		err = EIO;
	}
	mm_unlock(m);
	return err;
}

int
mana_model_reset_stats(const struct mana_model *m, struct mana_model_reset_stats *st)
{
	struct mana_model *mm = (struct mana_model *)(uintptr_t)m;

	if (m == NULL || st == NULL)
		return -EINVAL;
	mm_lock(mm);
	*st = m->rst;
	st->down = m->fatal || mm_now_ns() < m->down_until_ns;
	mm_unlock(mm);
	return 0;
}

int
mana_model_fatal(struct mana_model *m)
{
	if (m == NULL)
		return -EINVAL;
	mm_lock(m);
	if (mm_fatal_locked(m))
		mm_error(m, MM_LOG_WARNING, "device fatal error (injected)");
	mm_unlock(m);
	return 0;
}

int
mana_model_inject_tx_error(struct mana_model *m, unsigned int port, uint32_t type, uint32_t n)
{
	struct mm_port *p = mm_port_get(m, port);

	if (p == NULL || type < CQE_TX_SA_DROP || type > CQE_TX_VLAN_TAGGING_VIOLATION)
		return -EINVAL;
	mm_lock(m);
	/*
	 * A pending injection is never replaced behind the caller's back: the same
	 * type adds to it, another type is refused until it has run out; n = 0
	 * cancels it.
	 */
	if (n != 0 && p->tx_err_n != 0 && p->tx_err_type != type) {
		uint32_t left = p->tx_err_n, pending = p->tx_err_type;

		mm_unlock(m);
		mm_error(m, MM_LOG_INFO, "inject_tx_error: type %u refused, %u WQEs of type %u "
			 "still pending", type, left, pending);
		return -EBUSY;
	}
	if (n == 0) {
		p->tx_err_n = 0;
	} else {
		p->tx_err_n = p->tx_err_n + n < p->tx_err_n ? UINT32_MAX : p->tx_err_n + n;
		p->tx_err_type = type;
	}
	mm_unlock(m);
	return 0;
}

int
mana_model_drop_next(struct mana_model *m, unsigned int port, uint32_t n)
{
	struct mm_port *p = mm_port_get(m, port);

	if (p == NULL)
		return -EINVAL;
	mm_lock(m);
	p->drop_n = n;
	mm_unlock(m);
	return 0;
}

int
mana_model_gen_set(struct mana_model *m, unsigned int port, uint64_t rate_pps, uint32_t flows)
{
	struct mm_port *p = mm_port_get(m, port);

	if (p == NULL || p->wire == NULL || p->wire->cfg.type != MANA_MODEL_WIRE_GEN)
		return -EINVAL;
	/* The limits of the wire=gen: devarg (model_wire_parse.c). */
	if (rate_pps > MM_GEN_MAX_RATE || flows > MM_GEN_MAX_FLOWS) {
		mm_error(m, MM_LOG_INFO, "gen_set: rate %" PRIu64 " (allowed 0..%llu frames/s), "
			 "flows %u (allowed 1..%u, 0: unchanged)", rate_pps, MM_GEN_MAX_RATE,
			 flows, MM_GEN_MAX_FLOWS);
		return -ERANGE;
	}
	mm_lock(m);
	mm_wire_gen_set(p->wire, rate_pps, flows);
	mm_unlock(m);
	return 0;
}

int
mana_model_inject_rx(struct mana_model *m, unsigned int port, const void *frame, uint32_t len)
{
	struct mm_port *p = mm_port_get(m, port);
	struct mm_inbox_frame *f;

	if (p == NULL || frame == NULL || len == 0 || len > MANA_MODEL_MAX_FRAME)
		return -EINVAL;
	f = malloc(sizeof(*f) + len);
	if (f == NULL)
		return -ENOMEM;
	f->next = NULL;
	f->len = len;
	memcpy(f->data, frame, len);
	/* Queued: RX always runs on the engine side (model_wire.h). */
	pthread_mutex_lock(&p->inbox_lock);
	if (p->inbox_tail != NULL)
		p->inbox_tail->next = f;
	else
		__atomic_store_n(&p->inbox_head, f, __ATOMIC_RELEASE);
	p->inbox_tail = f;
	pthread_mutex_unlock(&p->inbox_lock);
	return 0;
}

int
mana_model_set_mtu(struct mana_model *m, unsigned int port, uint32_t mtu)
{
	struct mm_port *p = mm_port_get(m, port);

	if (p == NULL || mtu < MM_MIN_MTU || mtu > MANA_MODEL_MAX_MTU)
		return -EINVAL;
	mm_lock(m);
	p->mtu = mtu;
	mm_unlock(m);
	mm_sysfs_port_mtu(m, port);
	return 0;
}

int
mana_model_get_mac(const struct mana_model *m, unsigned int port, uint8_t mac[6])
{
	const struct mm_port *p = mm_port_get(m, port);

	if (p == NULL || mac == NULL)
		return -EINVAL;
	memcpy(mac, p->mac, 6);
	return 0;
}

/*
 * A port's counters are kept by the threads that serve its wire and its
 * queues (struct mm_engine_port): the sum of every thread's. Exclusive lock.
 */
static void
mm_port_stats_sum(const struct mana_model *m, unsigned int port,
		  struct mana_model_port_stats *st)
{
	_Static_assert(sizeof(*st) % sizeof(uint64_t) == 0, "port stats: only 64-bit counters");
	uint64_t *sum = (uint64_t *)(void *)st;

	memset(st, 0, sizeof(*st));
	for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++) {
		const uint64_t *c = (const uint64_t *)(const void *)&m->eng[i].port[port].st;

		for (size_t k = 0; k < sizeof(*st) / sizeof(uint64_t); k++)
			sum[k] += c[k];
	}
}

int
mana_model_port_stats(const struct mana_model *m, unsigned int port,
		      struct mana_model_port_stats *st)
{
	struct mm_port *p = mm_port_get(m, port);
	struct mana_model *mm = (struct mana_model *)(uintptr_t)m;

	if (p == NULL || st == NULL)
		return -EINVAL;
	mm_lock(mm);
	mm_port_stats_sum(mm, port, st);
	if (p->wire != NULL)
		mm_wire_stats(p->wire, st);
	mm_unlock(mm);
	return 0;
}

int
mana_model_queue_stats(const struct mana_model *m, uint32_t queue_id,
		       struct mana_model_queue_stats *st)
{
	struct mana_model *mm = (struct mana_model *)(uintptr_t)m;
	struct mm_qp *qp;
	struct mm_wq *wq;
	int ret = -ENOENT;

	if (m == NULL || st == NULL || queue_id == 0)
		return -EINVAL;
	mm_lock(mm);
	LIST_FOREACH(qp, &mm->qps, link) {
		if (!qp->rss && qp->sq_id == queue_id) {
			*st = qp->qst;
			st->is_sq = true;
			st->port = qp->port;
			st->engine = qp->sq.engine;
			ret = 0;
			goto out;
		}
	}
	LIST_FOREACH(wq, &mm->wqs, link) {
		if (wq->id == queue_id && wq->rss != NULL) {
			mm_rx_wq_settle(wq);
			*st = wq->qst;
			st->is_sq = false;
			st->port = wq->rss->port;
			st->engine = wq->ring.engine;
			ret = 0;
			goto out;
		}
	}
out:
	mm_unlock(mm);
	return ret;
}

int
mana_model_port_stats_reset(struct mana_model *m, unsigned int port)
{
	struct mm_port *p = mm_port_get(m, port);

	if (p == NULL)
		return -EINVAL;
	mm_lock(m);
	for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++)
		memset(&m->eng[i].port[port].st, 0, sizeof(m->eng[i].port[port].st));
	if (p->wire != NULL)
		mm_wire_stats_reset(p->wire);
	mm_unlock(m);
	return 0;
}

/* Caller holds m->lock. */
void
mm_queue_retire(struct mana_model *m, uint32_t id, const struct mana_model_queue_stats *st)
{
	struct mm_retired *r = &m->retired[m->nretired++ % MM_RETIRED_MAX];

	r->id = id;
	r->st = *st;
}

int
mana_model_retired_queue_stats(const struct mana_model *m, unsigned int i, uint32_t *queue_id,
			       struct mana_model_queue_stats *st)
{
	struct mana_model *mm = (struct mana_model *)(uintptr_t)m;
	int ret = -ENOENT;

	if (m == NULL || st == NULL || queue_id == NULL)
		return -EINVAL;
	mm_lock(mm);
	if (i < m->nretired && i < MM_RETIRED_MAX) {
		/* oldest kept first */
		unsigned int first = m->nretired > MM_RETIRED_MAX ? m->nretired - MM_RETIRED_MAX : 0;
		const struct mm_retired *r = &m->retired[(first + i) % MM_RETIRED_MAX];

		*queue_id = r->id;
		*st = r->st;
		ret = 0;
	}
	mm_unlock(mm);
	return ret;
}

int
mana_model_engine_stats(const struct mana_model *m, struct mana_model_engine_stats *st)
{
	struct mana_model *mm = (struct mana_model *)(uintptr_t)m;

	if (m == NULL || st == NULL)
		return -EINVAL;
	/* Exclusive: no pass is under way, so every thread's counters are at rest. */
	mm_lock(mm);
	st->passes = m->passes;
	st->busy_passes = m->busy_passes;
	st->doorbells = m->doorbells;
	st->cpu_ns = __atomic_load_n(&m->cpu_ns, __ATOMIC_RELAXED);
	st->frames = 0;
	for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++)
		for (unsigned int k = 0; k < m->cfg.nports; k++)
			st->frames += m->eng[i].port[k].frames;
	for (unsigned int i = 0; i < m->neng; i++) {
		const struct mm_engine *e = &m->eng[i];

		st->passes += e->passes;
		st->busy_passes += e->busy_passes;
		st->doorbells += e->doorbells;
		st->cpu_ns += __atomic_load_n(&e->cpu_ns, __ATOMIC_RELAXED);
	}
	st->threads = m->neng;
	mm_unlock(mm);
	return 0;
}

int
mana_model_engine_thread_stats(const struct mana_model *m, unsigned int i,
			       struct mana_model_engine_thread_stats *st)
{
	struct mana_model *mm = (struct mana_model *)(uintptr_t)m;
	const struct mm_engine *e;
	int ret = 0;

	if (m == NULL || st == NULL)
		return -EINVAL;
	mm_lock(mm);
	if (i >= m->neng) {
		ret = -ENOENT;
		goto out;
	}
	e = &m->eng[i];
	memset(st, 0, sizeof(*st));
	st->passes = e->passes;
	st->busy_passes = e->busy_passes;
	st->doorbells = e->doorbells;
	st->cpu_ns = __atomic_load_n(&e->cpu_ns, __ATOMIC_RELAXED);
	for (unsigned int k = 0; k < m->cfg.nports; k++)
		st->frames += e->port[k].frames;
	for (const struct mm_qp *qp = LIST_FIRST(&m->qps); qp != NULL; qp = LIST_NEXT(qp, link))
		st->sqs += !qp->rss && !qp->detached && qp->sq.engine == i;
	for (const struct mm_wq *wq = LIST_FIRST(&m->wqs); wq != NULL; wq = LIST_NEXT(wq, link))
		st->rqs += wq->rss != NULL && wq->ring.engine == i;
	for (unsigned int k = 0; k < m->cfg.nports; k++)
		st->wires += m->port[k].engine == i;
out:
	mm_unlock(mm);
	return ret;
}
