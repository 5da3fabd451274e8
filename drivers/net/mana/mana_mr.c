/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Memory registration.
 *
 * Every mempool whose mbufs may reach the device is registered whole on the
 * port's plain PD (IBV_ACCESS_LOCAL_WRITE): the RX pool at queue setup, every
 * I/O mempool that exists at dev_start (TX buffers may come from any of
 * them), and pools created later through the mempool READY event. A pool's
 * chunks are page-rounded and merged, so a pool populated page by page still
 * takes few entries. DESTROY events deregister the pool's regions.
 *
 * Lookups: each queue has a small cache (last hit, then 8 entries) that is
 * valid while the table's `gen` is unchanged. On a miss the out-of-line slow
 * path reads the table without a lock (sequence counter) and, if the address
 * is still unknown, registers the mbuf's pool (this takes the table lock and
 * a verbs call: off the common path).
 *
 * Memory outside every registered pool (external buffers, indirect mbufs of
 * such, data moved out of its pool's buffer) is looked up, and registered on
 * a miss, in the external table (mana_mr_ext.c); the cache then serves hits
 * for both tables alike.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>

#include "mana_ethdev.h"
#include "mana_logs.h"
#include "mana_mr_int.h"

struct mana_chunk_ctx {
	struct mana_mr_range *r;
	unsigned int n;
	unsigned int max;
};

void
mana_mr_table_init(struct mana_mr_table *t)
{
	memset(t, 0, sizeof(*t));
	rte_spinlock_init(&t->lock);
}

void
mana_mr_cache_init(struct mana_mr_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->gen = UINT32_MAX;	/* never equal to a live generation at first use */
}

/*
 * Lock-free read of sorted entries e[0..*np): binary search under the
 * sequence counter *seqp (hardware.md §18 #19).
 */
bool
mana_mr_find(const uint32_t *seqp, const uint32_t *np, const struct mana_mr_entry *e, uint32_t max,
	uintptr_t addr, uint32_t len, struct mana_mr_entry *out)
{
	uint32_t seq, lo, hi, mid;
	bool found;

	do {
		seq = __atomic_load_n(seqp, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			rte_pause();
			continue;
		}
		found = false;
		lo = 0;
		hi = __atomic_load_n(np, __ATOMIC_RELAXED);
		if (hi > max)
			hi = max;
		while (lo < hi) {
			mid = (lo + hi) / 2;
			if (addr < e[mid].start) {
				hi = mid;
			} else if (addr >= e[mid].end) {
				lo = mid + 1;
			} else {
				*out = e[mid];
				found = addr + len <= out->end;
				break;
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || __atomic_load_n(seqp, __ATOMIC_RELAXED) != seq);
	return found;
}

static bool
mr_table_find(struct mana_mr_table *t, uintptr_t addr, uint32_t len, struct mana_mr_entry *out)
{
	return mana_mr_find(&t->seq, &t->n, t->e, MANA_MR_TABLE_MAX, addr, len, out);
}

void
mana_mr_seq_begin(uint32_t *seq)
{
	__atomic_store_n(seq, *seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

void
mana_mr_seq_end(uint32_t *seq)
{
	__atomic_store_n(seq, *seq + 1, __ATOMIC_RELEASE);
}

static void
mr_write_begin(struct mana_mr_table *t)
{
	mana_mr_seq_begin(&t->seq);
}

static void
mr_write_end(struct mana_mr_table *t)
{
	mana_mr_seq_end(&t->seq);
}

static void
mr_chunk_cb(struct rte_mempool *mp, void *opaque, struct rte_mempool_memhdr *memhdr,
	    unsigned int idx)
{
	struct mana_chunk_ctx *ctx = opaque;
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	if (ctx->n >= ctx->max)
		return;
	ctx->r[ctx->n].start = RTE_ALIGN_FLOOR((uintptr_t)memhdr->addr, pg);
	ctx->r[ctx->n].end = RTE_ALIGN_CEIL((uintptr_t)memhdr->addr + memhdr->len, pg);
	ctx->n++;
}

static int
range_cmp(const void *a, const void *b)
{
	const struct mana_mr_range *ra = a, *rb = b;

	return ra->start < rb->start ? -1 : ra->start > rb->start;
}

/* Page-rounded, sorted and merged chunk ranges of mp; returns the count or -errno. */
static int
mr_pool_ranges(struct rte_mempool *mp, struct mana_mr_range **out)
{
	struct mana_chunk_ctx ctx;
	unsigned int i, n = 0;

	ctx.max = mp->nb_mem_chunks;
	ctx.n = 0;
	if (ctx.max == 0)
		return 0;
	ctx.r = malloc(sizeof(*ctx.r) * ctx.max);
	if (ctx.r == NULL)
		return -ENOMEM;
	rte_mempool_mem_iter(mp, mr_chunk_cb, &ctx);
	qsort(ctx.r, ctx.n, sizeof(*ctx.r), range_cmp);
	for (i = 0; i < ctx.n; i++) {
		if (n > 0 && ctx.r[i].start <= ctx.r[n - 1].end)
			ctx.r[n - 1].end = RTE_MAX(ctx.r[n - 1].end, ctx.r[i].end);
		else
			ctx.r[n++] = ctx.r[i];
	}
	*out = ctx.r;
	return n;
}

/* Insert one registered region keeping e[] sorted; caller holds the lock, in a write section. */
static void
mr_table_insert(struct mana_mr_table *t, const struct mana_mr_range *r, struct ibv_mr *mr,
		const struct rte_mempool *mp)
{
	uint32_t i = t->n;

	while (i > 0 && t->e[i - 1].start > r->start) {
		t->e[i] = t->e[i - 1];
		t->mr[i] = t->mr[i - 1];
		t->mp[i] = t->mp[i - 1];
		i--;
	}
	t->e[i].start = r->start;
	t->e[i].end = r->end;
	t->e[i].lkey = mr->lkey;
	t->mr[i] = mr;
	t->mp[i] = mp;
	__atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELAXED);
}

static bool
mr_table_has_pool(const struct mana_mr_table *t, const struct rte_mempool *mp)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		if (t->mp[i] == mp)
			return true;
	return false;
}

static int
mr_register_ranges(struct mana_priv *priv, struct rte_mempool *mp, struct mana_mr_range *r,
		   int n)
{
	struct mana_mr_table *t = &priv->mr;
	struct ibv_mr *mrs[n];
	int i;

	if (t->n + n > MANA_MR_TABLE_MAX) {
		PMD_DRV_LOG(ERR, "port %u: mempool %s needs %d regions, table has %u of %u free",
			    priv->port_id, mp->name, n, MANA_MR_TABLE_MAX - t->n,
			    MANA_MR_TABLE_MAX);
		return -ENOSPC;
	}
	for (i = 0; i < n; i++) {
		mrs[i] = mana_vs_reg_mr(priv->pd, (void *)r[i].start, r[i].end - r[i].start,
					IBV_ACCESS_LOCAL_WRITE);
		if (mrs[i] == NULL) {
			int err = errno;

			PMD_DRV_LOG(ERR, "port %u: registering mempool %s [%#" PRIxPTR ", %#"
				    PRIxPTR ") failed: %s", priv->port_id, mp->name, r[i].start,
				    r[i].end, strerror(err));
			while (i-- > 0)
				mana_vs_dereg_mr(mrs[i]);
			return -err;
		}
	}
	mr_write_begin(t);
	for (i = 0; i < n; i++)
		mr_table_insert(t, &r[i], mrs[i], mp);
	mr_write_end(t);
	PMD_DRV_LOG(DEBUG, "port %u: mempool %s registered in %d region(s)", priv->port_id,
		    mp->name, n);
	return 0;
}

int
mana_mr_register_mempool(struct mana_priv *priv, struct rte_mempool *mp)
{
	struct mana_mr_table *t = &priv->mr;
	struct mana_mr_range *r = NULL;
	int n, ret = 0;

	/* A device reset is being handled: registered at the next start. */
	if (priv->pd == NULL)
		return -ENODEV;
	rte_spinlock_lock(&t->lock);
	if (mr_table_has_pool(t, mp))
		goto out;
	n = mr_pool_ranges(mp, &r);
	if (n <= 0) {
		ret = n;
		goto out;
	}
	ret = mr_register_ranges(priv, mp, r, n);
out:
	rte_spinlock_unlock(&t->lock);
	free(r);
	return ret;
}

static void
mr_unregister_mempool(struct mana_priv *priv, const struct rte_mempool *mp)
{
	struct mana_mr_table *t = &priv->mr;
	struct ibv_mr *dead[MANA_MR_TABLE_MAX];
	uint32_t i, j = 0, ndead = 0;

	rte_spinlock_lock(&t->lock);
	mr_write_begin(t);
	for (i = 0; i < t->n; i++) {
		if (t->mp[i] == mp) {
			dead[ndead++] = t->mr[i];
			continue;
		}
		t->e[j] = t->e[i];
		t->mr[j] = t->mr[i];
		t->mp[j] = t->mp[i];
		j++;
	}
	__atomic_store_n(&t->n, j, __ATOMIC_RELAXED);
	if (ndead > 0)
		__atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELEASE);
	mr_write_end(t);
	rte_spinlock_unlock(&t->lock);
	for (i = 0; i < ndead; i++)
		mana_vs_dereg_mr(dead[i]);
}

void
mana_mr_release_all(struct mana_priv *priv)
{
	struct mana_mr_table *t = &priv->mr;
	unsigned int next;
	uint32_t i;

	rte_spinlock_lock(&t->lock);
	mr_write_begin(t);
	for (i = 0; i < t->n; i++) {
		int ret = mana_vs_dereg_mr(t->mr[i]);

		if (ret != 0)
			PMD_DRV_LOG(ERR, "port %u: dereg_mr failed: %s", priv->port_id,
				    strerror(-ret));
	}
	__atomic_store_n(&t->n, 0, __ATOMIC_RELAXED);
	next = mana_mr_ext_release_locked(priv);
	__atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELEASE);
	mr_write_end(t);
	rte_spinlock_unlock(&t->lock);
	if (next > 0)
		PMD_DRV_LOG(DEBUG, "port %u: %u external memory region(s) deregistered",
			    priv->port_id, next);
}

static void
mr_walk_cb(struct rte_mempool *mp, void *arg)
{
	struct mana_priv *priv = arg;

	if (priv->pd == NULL || (mp->flags & RTE_MEMPOOL_F_NON_IO) || mp->nb_mem_chunks == 0)
		return;
	if (mana_mr_register_mempool(priv, mp) != 0)
		PMD_DRV_LOG(WARNING, "port %u: mempool %s not registered; its mbufs cannot be "
			    "sent", priv->port_id, mp->name);
}

/* Register every I/O mempool that exists now (TX buffers may come from any). */
int
mana_mr_register_all(struct mana_priv *priv)
{
	rte_mempool_walk(mr_walk_cb, priv);
	return 0;
}

static void
mr_mempool_event_cb(enum rte_mempool_event event, struct rte_mempool *mp, void *arg)
{
	struct mana_priv *priv = arg;

	if (event == RTE_MEMPOOL_EVENT_READY)
		mr_walk_cb(mp, priv);
	else if (event == RTE_MEMPOOL_EVENT_DESTROY)
		mr_unregister_mempool(priv, mp);
}

int
mana_mr_events_register(struct mana_priv *priv)
{
	int ret;

	if (priv->mp_cb_registered)
		return 0;
	ret = rte_mempool_event_callback_register(mr_mempool_event_cb, priv);
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "port %u: mempool event callback: %s", priv->port_id,
			     rte_strerror(rte_errno));
		return -rte_errno;
	}
	priv->mp_cb_registered = true;
	mana_mr_ext_events_register(priv);
	return 0;
}

void
mana_mr_events_unregister(struct mana_priv *priv)
{
	mana_mr_ext_events_unregister(priv);
	if (!priv->mp_cb_registered)
		return;
	rte_mempool_event_callback_unregister(mr_mempool_event_cb, priv);
	priv->mp_cb_registered = false;
}

static void
mr_cache_insert(struct mana_mr_cache *c, const struct mana_mr_entry *e)
{
	uint32_t i = c->victim;

	c->e[i] = *e;
	c->last = i;
	c->victim = (i + 1) & (MANA_MR_CACHE_SIZE - 1);
}

/* The mempool whose memory holds the data of segment m, or NULL (external buffer). */
static struct rte_mempool *
mr_owner_pool(const struct rte_mbuf *m)
{
	if (RTE_MBUF_HAS_EXTBUF(m))
		return NULL;
	if (RTE_MBUF_CLONED(m))
		return rte_mbuf_from_indirect((struct rte_mbuf *)(uintptr_t)m)->pool;
	return m->pool;
}

/*
 * Pools whose registration failed lately, per process: asked again after
 * MANA_MR_RETRY_MS rather than on every miss (each miss of a refused pool would
 * otherwise cost a verbs call, or in a secondary an IPC round trip).
 */
#define MR_REFUSED_MAX	8

static struct {
	const struct mana_priv *priv;
	const void *mp;			/* a mempool, or a memseg list (external memory) */
	uint64_t until;			/* timer cycles */
	int err;			/* the refusal's -errno, given again until then */
} mr_refused[MR_REFUSED_MAX];
static rte_spinlock_t mr_refused_lock = RTE_SPINLOCK_INITIALIZER;

/* The refusal's -errno if (priv, mp) was refused less than MANA_MR_RETRY_MS ago, else 0. */
int
mana_mr_refused_check(const struct mana_priv *priv, const void *mp)
{
	uint64_t now = rte_get_timer_cycles();
	int ret = 0;
	unsigned int i;

	rte_spinlock_lock(&mr_refused_lock);
	for (i = 0; i < MR_REFUSED_MAX; i++)
		if (mr_refused[i].priv == priv && mr_refused[i].mp == mp &&
		    now < mr_refused[i].until)
			ret = mr_refused[i].err;
	rte_spinlock_unlock(&mr_refused_lock);
	return ret;
}

void
mana_mr_refused_note(const struct mana_priv *priv, const void *mp, int err)
{
	uint64_t now = rte_get_timer_cycles(), oldest = UINT64_MAX;
	unsigned int i, slot = 0;

	rte_spinlock_lock(&mr_refused_lock);
	for (i = 0; i < MR_REFUSED_MAX; i++) {
		if (mr_refused[i].priv == priv && mr_refused[i].mp == mp) {
			slot = i;
			break;
		}
		if (mr_refused[i].until < oldest) {
			oldest = mr_refused[i].until;
			slot = i;
		}
	}
	mr_refused[slot].priv = priv;
	mr_refused[slot].mp = mp;
	mr_refused[slot].until = now + rte_get_timer_hz() * MANA_MR_RETRY_MS / 1000;
	mr_refused[slot].err = err != 0 ? err : -EAGAIN;
	rte_spinlock_unlock(&mr_refused_lock);
}

/*
 * The pool of a missed lookup, registered: here in the primary; a secondary
 * asks the primary (no verbs in a secondary), which takes up to the IPC
 * timeout once per unknown pool. A refusal is logged once per process, and
 * the pool asked for again at most once per MANA_MR_RETRY_MS.
 */
static int
mr_register_pool(struct mana_priv *priv, struct rte_mempool *mp)
{
	static bool logged;
	int ret;

	ret = mana_mr_refused_check(priv, mp);
	if (ret != 0)
		return ret;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		ret = mana_mr_register_mempool(priv, mp);
	else
		ret = mana_mp_req_mr(priv, mp);
	if (ret == 0)
		return 0;
	mana_mr_refused_note(priv, mp, ret);
	if (rte_eal_process_type() != RTE_PROC_PRIMARY &&
	    !__atomic_exchange_n(&logged, true, __ATOMIC_RELAXED))
		PMD_DRV_LOG(ERR, "port %u: the primary could not register mempool %s for this "
			    "secondary (%s): its mbufs are not received into or sent (logged "
			    "once; asked again every %u ms)", priv->port_id, mp->name,
			    strerror(-ret), MANA_MR_RETRY_MS);
	return ret;
}

uint32_t __rte_noinline
mana_mr_lookup_slow(struct mana_priv *priv, struct mana_mr_cache *c, const struct rte_mbuf *m,
		    uintptr_t addr, uint32_t len)
{
	uint32_t gen = __atomic_load_n(&priv->mr.gen, __ATOMIC_ACQUIRE);
	struct mana_mr_entry e;
	struct rte_mempool *mp;
	int ret;

	if (c->gen != gen) {
		memset(c->e, 0, sizeof(c->e));
		c->last = 0;
		c->victim = 0;
		c->gen = gen;
	}
	if (mr_table_find(&priv->mr, addr, len, &e))
		goto hit;
	mp = m != NULL ? mr_owner_pool(m) : NULL;
	if (mp != NULL && mr_register_pool(priv, mp) == 0 &&
	    mr_table_find(&priv->mr, addr, len, &e))
		goto hit;
	/* No mbuf given: pool memory only. */
	if (m == NULL) {
		c->err = -ENOENT;
		return MANA_MR_LKEY_INVALID;
	}
	/* Not in a pool's registration: external memory (extbuf, attached, moved data). */
	ret = mana_mr_ext_lookup(priv, addr, len, &e);
	if (ret == 0)
		goto hit;
	c->err = ret;
	return MANA_MR_LKEY_INVALID;
hit:
	mr_cache_insert(c, &e);
	return e.lkey;
}

/*
 * lkey covering every mbuf of mp when the pool is registered as one region
 * (then the datapath may key its cache by m->pool), else MANA_MR_LKEY_INVALID.
 * *gen gets the table generation the answer belongs to.
 */
uint32_t
mana_mr_pool_lkey(struct mana_priv *priv, const struct rte_mempool *mp, uint32_t *gen)
{
	struct mana_mr_table *t = &priv->mr;
	uint32_t i, lkey = MANA_MR_LKEY_INVALID, n = 0;

	rte_spinlock_lock(&t->lock);
	*gen = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE);
	for (i = 0; i < t->n; i++) {
		if (t->mp[i] == mp) {
			lkey = t->e[i].lkey;
			n++;
		}
	}
	rte_spinlock_unlock(&t->lock);
	return n == 1 ? lkey : MANA_MR_LKEY_INVALID;
}
