/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The engine: one pass reads and clears every doorbell of every live queue
 * page, processes the SQs up to their doorbell tails, polls the wires (RX)
 * and flushes pending coalesced RX CQEs. It runs on engine threads (one by
 * default; engine_threads/engine_cpu for more, each pass serving the queues
 * and wires of its thread, doc/user_guide.md "Engine threads") or when
 * mana_model_step() is called (manual mode: one pass serves everything).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "model_priv.h"

#define MM_DB_SLOTS		(GDMA_DOORBELL_PAGE_SIZE / 8)
#define MM_DB_SQ		(GDMA_DB_OFFSET_SQ / 8)
#define MM_DB_RQ		(GDMA_DB_OFFSET_RQ / 8)
#define MM_DB_CQ		(GDMA_DB_OFFSET_CQ / 8)
#define MM_STRAY_SCAN_PERIOD	64	/* threaded: full-page scan every N passes */
#define MM_IDLE_YIELD		256	/* idle passes before yielding the CPU */
#define MM_IDLE_SLEEP		4096	/* idle passes before short sleeps */
#define MM_IDLE_SLEEP_NS	50000

static inline void
mm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static inline uint64_t
mm_db_take(uint64_t *slot)
{
	/*
	 * Fast path: a plain load first, so idle pages cost no locked op. The
	 * exchange acquires: the WQEs stored before the doorbell are seen after
	 * it (hardware.md §18 #5).
	 */
	if (__atomic_load_n(slot, __ATOMIC_RELAXED) == 0)
		return 0;
	return __atomic_exchange_n(slot, 0, __ATOMIC_ACQUIRE);
}

/* ---- queue state ------------------------------------------------------------- */

void
mm_ring_error(struct mana_model *m, struct mm_ring *r, unsigned int port, const char *what,
	      uint32_t id, const char *why)
{
	r->stopped = true;
	mm_eng_st(&m->eng[r->engine], port)->queue_errors++;
	mm_error(m, MM_LOG_ERR, "%s 0x%x stopped: %s", what, id, why);
}

/*
 * SQ/RQ tail_ptr (hardware.md §14 #16): absolute producer byte offset; must be
 * BU aligned, not behind the last tail and at most the ring size ahead of
 * the device's consumer.
 */
bool
mm_ring_doorbell(struct mana_model *m, struct mm_ring *r, unsigned int port, uint32_t tail,
		 const char *what, uint32_t id)
{
	uint32_t cons = r->cons_bu << GDMA_WQE_BU_SHIFT;
	char why[128];

	if (r->stopped)
		return false;
	if ((tail & (GDMA_WQE_BU_SIZE - 1)) != 0)
		snprintf(why, sizeof(why), "doorbell tail_ptr 0x%x not a multiple of 32", tail);
	else if (tail - cons > r->size)
		snprintf(why, sizeof(why), "doorbell tail_ptr 0x%x is %u bytes ahead of the device "
			 "consumer 0x%x (ring %u bytes)", tail, tail - cons, cons, r->size);
	else if (tail - r->tail > r->size)
		snprintf(why, sizeof(why), "doorbell tail_ptr 0x%x moved back from 0x%x", tail,
			 r->tail);
	else {
		r->tail = tail;
		return true;
	}
	mm_ring_error(m, r, port, what, id, why);
	return false;
}

/* ---- doorbells ------------------------------------------------------------------ */

/* Counted by engine thread eng, the one serving the page's queue. */
static void
mm_db_reject(struct mana_model *m, unsigned int eng, unsigned int port, const void *page,
	     unsigned int slot, uint64_t v, const char *why)
{
	mm_eng_st(&m->eng[eng], port)->db_rejected++;
	mm_error(m, MM_LOG_ERR, "doorbell 0x%016llx at page %p offset 0x%03x rejected: %s",
		 (unsigned long long)v, page, slot * 8, why);
}

/* OR of the slots [from, to) of a page: nonzero if any holds a store. */
static inline uint64_t
mm_db_any(uint64_t *page, unsigned int from, unsigned int to)
{
	uint64_t a = 0, b = 0;
	unsigned int i = from;

	for (; i + 2 <= to; i += 2) {
		a |= __atomic_load_n(&page[i], __ATOMIC_RELAXED);
		b |= __atomic_load_n(&page[i + 1], __ATOMIC_RELAXED);
	}
	if (i < to)
		a |= __atomic_load_n(&page[i], __ATOMIC_RELAXED);
	return a | b;
}

/*
 * Stores anywhere but the three queue slots (incl. EQ 0xFF8, 32-bit forms).
 * An OR over the page first: a clean page costs one load per slot.
 */
static unsigned int
mm_db_stray(struct mana_model *m, unsigned int eng, unsigned int port, uint64_t *page)
{
	unsigned int n = 0;

	if ((mm_db_any(page, 0, MM_DB_SQ) | mm_db_any(page, MM_DB_SQ + 1, MM_DB_RQ) |
	     mm_db_any(page, MM_DB_RQ + 1, MM_DB_CQ) |
	     mm_db_any(page, MM_DB_CQ + 1, MM_DB_SLOTS)) == 0)
		return 0;
	for (unsigned int i = 0; i < MM_DB_SLOTS; i++) {
		uint64_t v;

		if (i == MM_DB_SQ || i == MM_DB_RQ || i == MM_DB_CQ)
			continue;
		v = mm_db_take(&page[i]);
		if (v != 0) {
			mm_db_reject(m, eng, port, page, i, v, "not an SQ/RQ/CQ doorbell offset");
			n++;
		}
	}
	return n;
}

static void
mm_db_cq(struct mana_model *m, unsigned int eng, unsigned int port, uint64_t *page,
	 struct mm_cq *cq, uint64_t v)
{
	if (((v >> 24) & 0xFF) != 0) {
		mm_db_reject(m, eng, port, page, MM_DB_CQ, v, "reserved bits 31:24 set");
		return;
	}
	/* Without arm a CQ doorbell only reports the consumer: nothing to do. */
	if (v >> GDMA_DB_ARM_SHIFT)
		mm_cq_arm(m, cq, (uint32_t)((v >> GDMA_DB_TAIL_SHIFT) & GDMA_DB_CQ_TAIL_MASK));
}

static void
mm_db_sq(struct mana_model *m, struct mm_qp *qp, uint64_t *page, uint64_t v)
{
	if (((v >> 24) & 0xFF) != 0) {
		mm_db_reject(m, qp->sq.engine, qp->port, page, MM_DB_SQ, v,
			     "reserved bits 31:24 set");
		return;
	}
	mm_ring_doorbell(m, &qp->sq, qp->port, (uint32_t)(v >> GDMA_DB_TAIL_SHIFT), "SQ",
			 qp->sq_id);
}

static void
mm_db_rq(struct mana_model *m, struct mm_wq *wq, uint64_t *page, uint64_t v)
{
	unsigned int port = wq->rss != NULL ? wq->rss->port : 0;

	(void)page;
	/* bits 31:24 are wqe_cnt: ignored (DPDK writes 0, Linux 1). */
	mm_ring_doorbell(m, &wq->ring, port, (uint32_t)(v >> GDMA_DB_TAIL_SHIFT), "RQ", wq->id);
}

/* The QP's own page: 0x000 its SQ, 0x800 its send CQ (hardware.md §14 #15). */
static unsigned int
mm_db_scan_qp(struct mana_model *m, struct mm_qp *qp, bool stray)
{
	unsigned int eng = qp->sq.engine, n = 0;
	uint64_t *pg = qp->db, v;

	v = mm_db_take(&pg[MM_DB_SQ]);
	if (v != 0) {
		n++;
		if ((v & GDMA_DB_ID_MASK) != qp->sq_id)
			mm_db_reject(m, eng, qp->port, pg, MM_DB_SQ, v, "id is not this page's SQ");
		else
			mm_db_sq(m, qp, pg, v);
	}
	v = mm_db_take(&pg[MM_DB_RQ]);
	if (v != 0) {
		n++;
		mm_db_reject(m, eng, qp->port, pg, MM_DB_RQ, v, "RQ doorbell on a QP's page");
	}
	v = mm_db_take(&pg[MM_DB_CQ]);
	if (v != 0) {
		n++;
		if ((v & GDMA_DB_ID_MASK) != qp->cq->id)
			mm_db_reject(m, eng, qp->port, pg, MM_DB_CQ, v, "id is not the QP's CQ");
		else
			mm_db_cq(m, eng, qp->port, pg, qp->cq, v);
	}
	if (stray)
		n += mm_db_stray(m, eng, qp->port, pg);
	return n;
}

/* The RWQ's own page: 0x400 its RQ, 0x800 its CQ. */
static unsigned int
mm_db_scan_wq(struct mana_model *m, struct mm_wq *wq, bool stray)
{
	unsigned int port = wq->rss != NULL ? wq->rss->port : 0;
	unsigned int eng = wq->ring.engine, n = 0;
	uint64_t *pg = wq->db, v;

	v = mm_db_take(&pg[MM_DB_SQ]);
	if (v != 0) {
		n++;
		mm_db_reject(m, eng, port, pg, MM_DB_SQ, v, "SQ doorbell on an RWQ's page");
	}
	v = mm_db_take(&pg[MM_DB_RQ]);
	if (v != 0) {
		n++;
		if (wq->rss == NULL || (v & GDMA_DB_ID_MASK) != wq->id)
			mm_db_reject(m, eng, port, pg, MM_DB_RQ, v,
				     wq->rss == NULL ? "WQ has no RSS QP yet (id unknown)" :
						       "id is not this page's RQ");
		else
			mm_db_rq(m, wq, pg, v);
	}
	v = mm_db_take(&pg[MM_DB_CQ]);
	if (v != 0) {
		n++;
		if (wq->rss == NULL || (v & GDMA_DB_ID_MASK) != wq->cq->id)
			mm_db_reject(m, eng, port, pg, MM_DB_CQ, v, "id is not the RWQ's CQ");
		else
			mm_db_cq(m, eng, port, pg, wq->cq, v);
	}
	if (stray)
		n += mm_db_stray(m, eng, port, pg);
	return n;
}

/*
 * A dead object's page (a context opened before a reset): the device no
 * longer serves it; stores are taken and discarded.
 */
static void
mm_db_discard(struct mana_model *m, uint64_t *pg)
{
	unsigned int n = 0;

	n += mm_db_take(&pg[MM_DB_SQ]) != 0;
	n += mm_db_take(&pg[MM_DB_RQ]) != 0;
	n += mm_db_take(&pg[MM_DB_CQ]) != 0;
	/* Engine threads of several ports count here. */
	if (n != 0)
		__atomic_fetch_add(&m->rst.db_discarded, n, __ATOMIC_RELAXED);
}

/* A dead context's shared page: its trapped stores popped and discarded. */
static void
mm_db_discard_shared(struct mana_model *m, struct mm_ctx *ctx)
{
	uint16_t off;
	uint8_t width;
	uint64_t v;

	if (ctx->dbq != NULL)
		while (mm_dbq_pop(ctx->dbq, &off, &width, &v))
			__atomic_fetch_add(&m->rst.db_discarded, 1, __ATOMIC_RELAXED);
	mm_db_discard(m, ctx->shared_db_dev);
}

/* A doorbell on the shared (hardware-like) page: the queue is found by its id only. */
static void
mm_db_shared(struct mana_model *m, struct mm_ctx *ctx, const void *pg, unsigned int slot,
	     uint64_t v)
{
	uint32_t id = (uint32_t)(v & GDMA_DB_ID_MASK);

	if (slot == MM_DB_SQ) {
		struct mm_qp *qp;

		LIST_FOREACH(qp, &m->qps, link)
			if (qp->ctx == ctx && !qp->rss && qp->sq_id == id)
				break;
		if (qp == NULL)
			mm_db_reject(m, 0, 0, pg, slot, v, "no SQ with this id in the context");
		else
			mm_db_sq(m, qp, (uint64_t *)(uintptr_t)pg, v);
	} else if (slot == MM_DB_RQ) {
		struct mm_wq *wq;

		LIST_FOREACH(wq, &m->wqs, link)
			if (wq->ctx == ctx && wq->rss != NULL && wq->id == id)
				break;
		if (wq == NULL)
			mm_db_reject(m, 0, 0, pg, slot, v, "no RQ with this id in the context");
		else
			mm_db_rq(m, wq, (uint64_t *)(uintptr_t)pg, v);
	} else {
		struct mm_cq *cq;

		LIST_FOREACH(cq, &m->cqs, link)
			if (cq->ctx == ctx && cq->bound != NULL && cq->id == id)
				break;
		if (cq == NULL)
			mm_db_reject(m, 0, 0, pg, slot, v, "no bound CQ with this id in the context");
		else
			mm_db_cq(m, 0, 0, (uint64_t *)(uintptr_t)pg, cq, v);
	}
}

/* A store the trap could not deliver: the device stops (hardware never misses one). */
static void __attribute__((format(printf, 2, 3)))
mm_db_trap_fatal(struct mana_model *m, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (mm_fatal_locked(m))
		mm_error(m, MM_LOG_ERR, "%s", msg);
}

/*
 * The stores the doorbell trap queued, in the order they were made: every
 * one is a doorbell, as every MMIO write is on hardware. Only aligned 64-bit
 * stores to the SQ, RQ and CQ offsets ring a queue.
 */
static unsigned int
mm_db_pop_shared(struct mana_model *m, struct mm_ctx *ctx)
{
	struct mm_dbq *q = ctx->dbq;
	unsigned int n = 0;
	uint16_t off;
	uint8_t width;
	uint64_t v;

	while (mm_dbq_pop(q, &off, &width, &v)) {
		char why[96];

		n++;
		if (width != 8 || (off & 7) != 0) {
			snprintf(why, sizeof(why), "%u-byte store at offset 0x%03x: doorbells are "
				 "aligned 64-bit stores", width, off);
			mm_db_reject(m, 0, 0, ctx->shared_db, off / 8, v, why);
		} else if (off / 8 != MM_DB_SQ && off / 8 != MM_DB_RQ && off / 8 != MM_DB_CQ) {
			mm_db_reject(m, 0, 0, ctx->shared_db, off / 8, v,
				     "not an SQ/RQ/CQ doorbell offset");
		} else {
			mm_db_shared(m, ctx, ctx->shared_db, off / 8, v);
		}
	}
	if (__atomic_load_n(&q->overflow, __ATOMIC_RELAXED) != 0)
		mm_db_trap_fatal(m, "doorbell queue overflow: %u stores lost (more than %u "
				 "between two manual steps)", q->overflow, MM_DBQ_SIZE);
	else if (__atomic_load_n(&q->undecoded, __ATOMIC_RELAXED) != 0)
		mm_db_trap_fatal(m, "store to the doorbell page by an instruction the device "
				 "cannot decode: %02x %02x %02x %02x %02x %02x %02x %02x",
				 q->insn[0], q->insn[1], q->insn[2], q->insn[3], q->insn[4],
				 q->insn[5], q->insn[6], q->insn[7]);
	return n;
}

/*
 * Shared page. The trapped stores first; then the device's own view of the
 * page, where only stores that did not trap appear (a secondary process's
 * writable mapping of cmd_fd): read there as the last value per slot.
 */
static unsigned int
mm_db_scan_shared(struct mana_model *m, struct mm_ctx *ctx, bool stray)
{
	uint64_t *pg = ctx->shared_db_dev, v;
	unsigned int n = 0;

	if (ctx->dbq != NULL) {
		n += mm_db_pop_shared(m, ctx);
		if (m->fatal)
			return n;
	}
	v = mm_db_take(&pg[MM_DB_SQ]);
	if (v != 0) {
		n++;
		mm_db_shared(m, ctx, pg, MM_DB_SQ, v);
	}
	v = mm_db_take(&pg[MM_DB_RQ]);
	if (v != 0) {
		n++;
		mm_db_shared(m, ctx, pg, MM_DB_RQ, v);
	}
	v = mm_db_take(&pg[MM_DB_CQ]);
	if (v != 0) {
		n++;
		mm_db_shared(m, ctx, pg, MM_DB_CQ, v);
	}
	if (stray)
		n += mm_db_stray(m, 0, 0, pg);
	return n;
}

/* ---- one pass --------------------------------------------------------------------- */

unsigned int
mm_queue_engine(const struct mana_model *m, const struct mm_port *p, unsigned int k)
{
	if (m->cfg.manual || m->cfg.shared_doorbell || m->cfg.engine_threads <= 1)
		return 0;
	return (p->engine + k) % m->cfg.engine_threads;
}

/* Engine thread eng's passes serve the queues it owns (mm_queue_engine). */
static inline bool
mm_serves(unsigned int eng, const struct mm_ring *r)
{
	return r->engine == eng;
}

static unsigned int
mm_db_scan(struct mana_model *m, unsigned int eng, bool stray)
{
	unsigned int n = 0;

	if (m->cfg.shared_doorbell) {
		struct mm_ctx *ctx;

		/* Every queue is thread 0's (mm_queue_engine). */
		if (eng != 0)
			return 0;
		LIST_FOREACH(ctx, &m->ctxs, link) {
			if (ctx->dead)
				mm_db_discard_shared(m, ctx);
			else
				n += mm_db_scan_shared(m, ctx, stray);
		}
	} else {
		struct mm_qp *qp;
		struct mm_wq *wq;

		LIST_FOREACH(qp, &m->qps, link) {
			if (qp->rss || !mm_serves(eng, &qp->sq))
				continue;
			if (qp->ctx->dead)
				mm_db_discard(m, qp->db);
			else
				n += mm_db_scan_qp(m, qp, stray);
		}
		LIST_FOREACH(wq, &m->wqs, link) {
			if (!mm_serves(eng, &wq->ring))
				continue;
			if (wq->ctx->dead)
				mm_db_discard(m, wq->db);
			else
				n += mm_db_scan_wq(m, wq, stray);
		}
	}
	return n;
}

/*
 * Hardware processes a doorbell before a destroy of its queue completes; in
 * the model the engine may not have seen it yet, and once the QP is unbound
 * the id no longer resolves (an RQ's id lives in its RSS QP): a doorbell rung
 * just before a port stop would be rejected. So the QP's doorbells are
 * processed first: every queued store of its context's shared page, or its
 * own / its RWQs' pages. Exclusive lock held.
 */
void
mm_db_drain_qp(struct mana_model *m, struct mm_qp *qp)
{
	if (m->fatal || qp->ctx->dead)
		return;
	if (m->cfg.shared_doorbell) {
		m->doorbells += mm_db_scan_shared(m, qp->ctx, false);
	} else if (qp->rss) {
		for (uint32_t i = 0; i < (1u << qp->ind->log); i++)
			m->doorbells += mm_db_scan_wq(m, qp->ind->wqs[i], false);
	} else {
		m->doorbells += mm_db_scan_qp(m, qp, false);
	}
}

/*
 * The work of one pass of engine thread e: its queues' doorbells and SQs,
 * the frames handed to its RX WQs, then its ports' inboxes and wires (RX
 * after the doorbells, so WQEs posted before a frame arrives are seen);
 * *doorbells counts the stores taken.
 */
static unsigned int
mm_pass_eng(struct mana_model *m, struct mm_engine *e, bool stray, uint64_t *doorbells)
{
	unsigned int work = 0;
	struct mm_qp *qp;
	struct mm_wq *wq;

	if (!__atomic_load_n(&m->fatal, __ATOMIC_ACQUIRE)) {
		unsigned int db = mm_db_scan(m, e->index, stray);

		*doorbells += db;
		work += db;
		LIST_FOREACH(qp, &m->qps, link)
			if (!qp->rss && !qp->ctx->dead && mm_serves(e->index, &qp->sq))
				work += mm_tx_process(m, qp);
		LIST_FOREACH(wq, &m->wqs, link)
			if (wq->handoff != NULL && mm_serves(e->index, &wq->ring))
				work += mm_rx_drain_handoff(e, wq);
	}
	for (unsigned int i = 0; i < m->cfg.nports; i++) {
		struct mm_port *p = &m->port[i];
		bool entered;

		if (p->engine != e->index)
			continue;
		work += mm_rx_drain_inbox(p);
		if (p->wire != NULL && p->wire_connected && p->wire->ops->poll != NULL) {
			/* A poll that flushes TX-side state (pcap) waits for the SQs' threads. */
			entered = p->wire->ops->poll_touches_tx && mm_wire_enter(m, p);
			work += p->wire->ops->poll(p->wire, MM_WIRE_BUDGET);
			mm_wire_leave(p, entered);
		}
		mm_port_check_carrier(m, p);
	}
	mm_rx_flush(e);
	/* The pass ends: every RX CQE the thread holds back (cqe_batch) becomes visible. */
	mm_cq_publish_eng(e);
	return work;
}

/* One pass of thread eng, or of every thread in turn (MM_ENGINE_ALL, exclusive lock). */
static unsigned int
mm_pass_ports(struct mana_model *m, unsigned int eng, bool stray, uint64_t *doorbells)
{
	unsigned int work = 0, n = m->neng > 1 ? m->neng : 1;

	if (eng != MM_ENGINE_ALL)
		return mm_pass_eng(m, &m->eng[eng], stray, doorbells);
	for (unsigned int i = 0; i < n; i++)
		work += mm_pass_eng(m, &m->eng[i], stray, doorbells);
	return work;
}

/* A step: every port, the lock held exclusively, so any thread may call it. */
static unsigned int
mm_engine_step_pass(struct mana_model *m)
{
	unsigned int work;

	mm_lock(m);
	if (__atomic_load_n(&m->wires_pending, __ATOMIC_ACQUIRE))
		mm_wires_connect(m);
	work = mm_pass_ports(m, MM_ENGINE_ALL, true, &m->doorbells);
	m->passes++;
	if (work != 0)
		m->busy_passes++;
	mm_unlock(m);
	return work;
}

/*
 * An engine thread's pass: its own ports, the lock held shared, in parallel
 * with the other threads. Pair wires still to connect change ports of every
 * thread: engine 0 connects them exclusively first (every pass when it is
 * the only thread; else every MM_STRAY_SCAN_PERIOD passes, since the
 * exclusive lock stops the others' passes while a cable waits for its far end).
 */
static unsigned int
mm_engine_thread_pass(struct mana_model *m, struct mm_engine *e)
{
	bool stray = (e->passes % MM_STRAY_SCAN_PERIOD) == 0;
	unsigned int work;

	if (e->index == 0 && (m->neng == 1 || stray) &&
	    __atomic_load_n(&m->wires_pending, __ATOMIC_ACQUIRE)) {
		mm_lock(m);
		if (__atomic_load_n(&m->wires_pending, __ATOMIC_ACQUIRE))
			mm_wires_connect(m);
		mm_unlock(m);
	}
	pthread_rwlock_rdlock(&m->lock);
	work = mm_pass_ports(m, e->index, stray, &e->doorbells);
	e->passes++;
	if (work != 0)
		e->busy_passes++;
	pthread_rwlock_unlock(&m->lock);
	return work;
}

unsigned int
mm_engine_pass(struct mana_model *m, unsigned int eng)
{
	return eng == MM_ENGINE_ALL ? mm_engine_step_pass(m) :
				      mm_engine_thread_pass(m, &m->eng[eng]);
}

static uint64_t
mm_thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

unsigned int
mana_model_step(struct mana_model *m)
{
	uint64_t t0, t1;
	unsigned int n;

	if (m == NULL)
		return 0;
	t0 = mm_thread_cpu_ns();
	n = mm_engine_pass(m, MM_ENGINE_ALL);
	t1 = mm_thread_cpu_ns();
	if (m->cfg.manual)
		__atomic_fetch_add(&m->cpu_ns, t1 - t0, __ATOMIC_RELAXED);
	return n;
}

unsigned int
mana_model_run_idle(struct mana_model *m, unsigned int max_passes)
{
	unsigned int passes = 0;

	if (m == NULL)
		return 0;
	while (passes < max_passes) {
		passes++;
		if (mana_model_step(m) == 0)
			break;
	}
	return passes;
}

/* ---- engine threads ---------------------------------------------------------------- */

static void *
mm_engine_main(void *arg)
{
	struct mm_engine *e = arg;
	struct mana_model *m = e->m;
	struct timespec nap = { .tv_sec = 0, .tv_nsec = MM_IDLE_SLEEP_NS };
	unsigned int idle = 0;
	uint64_t n = 0;

	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		if (mm_engine_pass(m, e->index) != 0)
			idle = 0;
		else if (++idle >= MM_IDLE_SLEEP)
			nanosleep(&nap, NULL);
		else if (idle >= MM_IDLE_YIELD)
			sched_yield();
		else
			mm_cpu_relax();
		if ((++n & 1023) == 0 || idle >= MM_IDLE_SLEEP)
			__atomic_store_n(&e->cpu_ns, mm_thread_cpu_ns(), __ATOMIC_RELAXED);
	}
	__atomic_store_n(&e->cpu_ns, mm_thread_cpu_ns(), __ATOMIC_RELAXED);
	return NULL;
}

/*
 * Name (mm-<device>, or mm-<device>/<i> with several) and CPUs of thread i:
 * its engine_cpu, or, not pinned (-1), every CPU the process could run on when
 * the library loaded. A new thread inherits its creator's affinity, and the
 * creator is usually an EAL lcore pinned to one CPU: the engine threads would
 * all share that lcore's CPU (doc/user_guide.md "Engine threads").
 */
static void
mm_engine_setup(struct mana_model *m, struct mm_engine *e)
{
	int cpu = m->cfg.engine_cpu[e->index];
	char name[16];
	int rc;

	if (m->neng == 1)
		snprintf(name, sizeof(name), "mm-%.12s", m->cfg.name);
	else
		snprintf(name, sizeof(name), "mm-%.*s/%u", e->index < 10 ? 10 : 9, m->cfg.name,
			 e->index);
	pthread_setname_np(e->thread, name);
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		rc = pthread_setaffinity_np(e->thread, sizeof(set), &set);
		if (rc != 0)
			mm_log(MM_LOG_WARNING, "%s: cannot pin engine thread %u to CPU %d: %s",
			       m->cfg.name, e->index, cpu, strerror(rc));
	} else {
		rc = mm_thread_allow_start_cpus(e->thread);
		if (rc != 0 && rc != ENOENT)
			mm_log(MM_LOG_WARNING, "%s: cannot let engine thread %u run on the "
			       "process's CPUs: %s", m->cfg.name, e->index, strerror(rc));
	}
}

int
mm_engine_start(struct mana_model *m)
{
	int rc;

	__atomic_store_n(&m->stop, 0, __ATOMIC_RELEASE);
	m->neng = m->cfg.engine_threads;
	for (unsigned int i = 0; i < m->neng; i++) {
		struct mm_engine *e = &m->eng[i];

		e->m = m;
		e->index = i;
		rc = pthread_create(&e->thread, NULL, mm_engine_main, e);
		if (rc != 0) {
			mm_log(MM_LOG_ERR, "%s: cannot start engine thread %u of %u: %s",
			       m->cfg.name, i, m->neng, strerror(rc));
			mm_engine_stop(m);
			return rc;
		}
		e->started = true;
		mm_engine_setup(m, e);
	}
	return 0;
}

void
mm_engine_stop(struct mana_model *m)
{
	__atomic_store_n(&m->stop, 1, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < m->neng; i++) {
		if (!m->eng[i].started)
			continue;
		pthread_join(m->eng[i].thread, NULL);
		m->eng[i].started = false;
	}
}
