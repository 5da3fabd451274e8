/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Memory registration of TX data outside the registered mempools: external
 * buffers (rte_pktmbuf_attach_extbuf), indirect mbufs of such, data moved
 * out of its mbuf's buffer (mana_mr.c looks here after the pool table).
 *
 * On a miss the VA-contiguous run of used DPDK memory segments holding the
 * data is registered whole (mr_ext_run: one registration for a whole
 * rte_malloc heap area or rte_extmem area, not one per buffer), in a table
 * of its own (struct mana_mr_ext, at most MANA_MR_EXT_MAX regions with the
 * retired ones) that follows the pool table's lock and sequence-counter
 * protocol. Memory DPDK does not know cannot be registered; a full table
 * refuses further memory (-ENOSPC, logged once per port). A region replaced
 * by a larger run, or whose memory DPDK frees (RTE_MEM_EVENT_FREE), leaves
 * the lookups and stays registered until the queues are gone (dev_stop,
 * close): a posted WQE may still read it. DPDK's net/mana registers only
 * the mbuf's pool and so never sends such data; mlx5 registers the same
 * kind of run (hardware.md §10, "MRs, external buffers").
 */

#include <errno.h>
#include <string.h>

#include <rte_eal_memconfig.h>
#include <rte_fbarray.h>
#include <rte_memory.h>

#include "mana_ethdev.h"
#include "mana_logs.h"
#include "mana_mr_int.h"

#define MR_MEM_CB_NAME	"net_mana_mr"

bool
mana_mr_ext_find(struct mana_priv *priv, uintptr_t addr, uint32_t len, struct mana_mr_entry *out)
{
	struct mana_mr_ext *x = &priv->mr_ext;

	return mana_mr_find(&x->seq, &x->n, x->e, MANA_MR_EXT_MAX, addr, len, out);
}

/* Deregister every region of the external table, retired ones too; caller holds the lock. */
unsigned int
mana_mr_ext_release_locked(struct mana_priv *priv)
{
	struct mana_mr_ext *x = &priv->mr_ext;
	unsigned int i, n = x->n + x->nretired;
	int ret;

	mana_mr_seq_begin(&x->seq);
	for (i = 0; i < x->n + x->nretired; i++) {
		ret = mana_vs_dereg_mr(i < x->n ? x->mr[i] : x->retired[i - x->n]);
		if (ret != 0)
			PMD_DRV_LOG(ERR, "port %u: dereg_mr (external memory) failed: %s",
				    priv->port_id, strerror(-ret));
	}
	__atomic_store_n(&x->n, 0, __ATOMIC_RELAXED);
	x->nretired = 0;
	mana_mr_seq_end(&x->seq);
	return n;
}

/*
 * Deregister the retired external regions: called once the port's queues
 * are destroyed (dev_stop), when no posted WQE can use them any more.
 */
void
mana_mr_release_retired(struct mana_priv *priv)
{
	struct mana_mr_table *t = &priv->mr;
	struct mana_mr_ext *x = &priv->mr_ext;
	struct ibv_mr *dead[MANA_MR_EXT_MAX];
	uint32_t i, n;
	int ret;

	rte_spinlock_lock(&t->lock);
	n = x->nretired;
	memcpy(dead, x->retired, n * sizeof(dead[0]));
	x->nretired = 0;
	rte_spinlock_unlock(&t->lock);
	for (i = 0; i < n; i++) {
		ret = mana_vs_dereg_mr(dead[i]);
		if (ret != 0)
			PMD_DRV_LOG(ERR, "port %u: dereg_mr (retired external memory) failed: %s",
				    priv->port_id, strerror(-ret));
	}
	if (n > 0)
		PMD_DRV_LOG(DEBUG, "port %u: %u retired external memory region(s) deregistered",
			    priv->port_id, n);
}

/*
 * Take the external entries overlapping [start, end) out of lookups into the
 * retired list (still registered: a posted WQE may use them); caller holds
 * the lock, in a write section of mr_ext. Returns how many, or -ENOSPC when
 * the retired list cannot take them (nothing changed then).
 */
static int
mr_ext_retire_locked(struct mana_mr_ext *x, uintptr_t start, uintptr_t end)
{
	uint32_t i, j = 0, k = 0;

	for (i = 0; i < x->n; i++)
		if (x->e[i].start < end && start < x->e[i].end)
			k++;
	if (k == 0)
		return 0;
	if (x->nretired + k > MANA_MR_EXT_MAX)
		return -ENOSPC;
	for (i = 0; i < x->n; i++) {
		if (x->e[i].start < end && start < x->e[i].end) {
			x->retired[x->nretired++] = x->mr[i];
			continue;
		}
		x->e[j] = x->e[i];
		x->mr[j] = x->mr[i];
		j++;
	}
	__atomic_store_n(&x->n, j, __ATOMIC_RELAXED);
	return (int)k;
}

/*
 * DPDK frees memory (RTE_MEM_EVENT_FREE, called before the pages go): the
 * regions holding it leave the lookups, so that memory mapped there later
 * is registered anew rather than sent through a stale registration.
 */
static void
mr_mem_event_cb(enum rte_mem_event event, const void *addr, size_t len, void *arg)
{
	struct mana_priv *priv = arg;
	struct mana_mr_table *t = &priv->mr;
	struct mana_mr_ext *x = &priv->mr_ext;
	uintptr_t start = (uintptr_t)addr, end = start + len;
	struct ibv_mr *dead[MANA_MR_EXT_MAX];
	uint32_t i, j = 0, ndead = 0;
	int k;

	if (event != RTE_MEM_EVENT_FREE)
		return;
	rte_spinlock_lock(&t->lock);
	mana_mr_seq_begin(&x->seq);
	k = mr_ext_retire_locked(x, start, end);
	if (k == -ENOSPC) {
		/* No room to keep them: deregistered now (the memory is going anyway). */
		for (i = 0; i < x->n; i++) {
			if (x->e[i].start < end && start < x->e[i].end) {
				dead[ndead++] = x->mr[i];
				continue;
			}
			x->e[j] = x->e[i];
			x->mr[j] = x->mr[i];
			j++;
		}
		__atomic_store_n(&x->n, j, __ATOMIC_RELAXED);
	}
	mana_mr_seq_end(&x->seq);
	if (k != 0)
		__atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&t->lock);
	for (i = 0; i < ndead; i++)
		mana_vs_dereg_mr(dead[i]);
}

/*
 * The run of used memory segments holding [addr, addr + len): the whole
 * VA-contiguous used span of the segment list around addr (one rte_malloc
 * heap area, one rte_extmem_register'ed or heap-added area). A run, not the
 * buffer's pages: one registration then serves every buffer of that memory
 * (an application's extbufs come and go at many addresses), and the run is
 * what DPDK guarantees is mapped. -EFAULT: not DPDK memory (plain malloc or
 * mmap never given to rte_extmem_register), not registrable.
 */
static int
mr_ext_run(uintptr_t addr, uint32_t len, struct mana_mr_range *r, const void **msl_out)
{
	const struct rte_memseg_list *msl;
	struct rte_fbarray *arr;
	unsigned int idx;
	int fwd, back, ret = -EFAULT;

	rte_mcfg_mem_read_lock();
	msl = rte_mem_virt2memseg_list((void *)addr);
	if (msl == NULL || msl->page_sz == 0)
		goto out;
	arr = (struct rte_fbarray *)(uintptr_t)&msl->memseg_arr;
	idx = (unsigned int)((addr - (uintptr_t)msl->base_va) / msl->page_sz);
	if (rte_fbarray_is_used(arr, idx) != 1)
		goto out;
	fwd = rte_fbarray_find_contig_used(arr, idx);
	back = rte_fbarray_find_rev_contig_used(arr, idx);
	if (fwd <= 0 || back <= 0)
		goto out;
	r->start = (uintptr_t)msl->base_va + (uintptr_t)(idx - (unsigned int)back + 1) *
		msl->page_sz;
	r->end = (uintptr_t)msl->base_va + (uintptr_t)(idx + (unsigned int)fwd) * msl->page_sz;
	if (addr + len <= r->end)
		ret = 0;
	*msl_out = msl;
out:
	rte_mcfg_mem_read_unlock();
	return ret;
}

/* Log once per port that the external table is full. */
static void
mr_ext_full_log(struct mana_priv *priv)
{
	if (!__atomic_exchange_n(&priv->mr_ext.full_logged, true, __ATOMIC_RELAXED))
		PMD_DRV_LOG(ERR, "port %u: external memory region table full (%u regions): "
			    "packets from further memory are not sent (counted in "
			    "tx_qN_mr_table_full; logged once)", priv->port_id, MANA_MR_EXT_MAX);
}

/*
 * Register the run holding [addr, addr + len) in this (primary) process: 0
 * when it is in the external table afterwards (registered now or by another
 * queue meanwhile), -EFAULT not DPDK memory, -ENOSPC table full, -errno of
 * the verbs call.
 */
int
mana_mr_register_ext(struct mana_priv *priv, uintptr_t addr, uint32_t len)
{
	struct mana_mr_table *t = &priv->mr;
	struct mana_mr_ext *x = &priv->mr_ext;
	struct mana_mr_range r;
	struct mana_mr_entry e;
	const void *msl;
	struct ibv_mr *mr;
	uint32_t i, k;
	int ret;

	if (priv->pd == NULL)
		return -ENODEV;
	ret = mr_ext_run(addr, len, &r, &msl);
	if (ret != 0)
		return ret;
	rte_spinlock_lock(&t->lock);
	if (mana_mr_ext_find(priv, addr, len, &e)) {
		ret = 0;
		goto out;
	}
	for (i = 0, k = 0; i < x->n; i++)
		if (x->e[i].start < r.end && r.start < x->e[i].end)
			k++;
	/* The new run replaces the k it overlaps (a run that grew): they retire. */
	if (x->n - k + 1 > MANA_MR_EXT_MAX || x->n + x->nretired + 1 > MANA_MR_EXT_MAX ||
	    x->nretired + k > MANA_MR_EXT_MAX) {
		ret = -ENOSPC;
		goto out;
	}
	mr = mana_vs_reg_mr(priv->pd, (void *)r.start, r.end - r.start, IBV_ACCESS_LOCAL_WRITE);
	if (mr == NULL) {
		ret = errno != 0 ? -errno : -ENOMEM;
		PMD_DRV_LOG(ERR, "port %u: registering memory [%#" PRIxPTR ", %#" PRIxPTR
			    ") failed: %s", priv->port_id, r.start, r.end, strerror(-ret));
		goto out;
	}
	mana_mr_seq_begin(&x->seq);
	if (k > 0)
		mr_ext_retire_locked(x, r.start, r.end);
	i = x->n;
	while (i > 0 && x->e[i - 1].start > r.start) {
		x->e[i] = x->e[i - 1];
		x->mr[i] = x->mr[i - 1];
		i--;
	}
	x->e[i].start = r.start;
	x->e[i].end = r.end;
	x->e[i].lkey = mr->lkey;
	x->mr[i] = mr;
	__atomic_store_n(&x->n, x->n + 1, __ATOMIC_RELAXED);
	mana_mr_seq_end(&x->seq);
	if (k > 0)
		__atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELEASE);
	PMD_DRV_LOG(DEBUG, "port %u: external memory [%#" PRIxPTR ", %#" PRIxPTR
		    ") registered (%u region(s), %u retired)", priv->port_id, r.start, r.end,
		    x->n, x->nretired);
out:
	rte_spinlock_unlock(&t->lock);
	return ret;
}

/*
 * External memory holding [addr, addr + len), registered: here in the
 * primary, by the primary for a secondary (the memory must then be shared:
 * rte_malloc heaps, or an external area the primary attached too). Memory
 * that is not DPDK's fails at once, without a verbs call or IPC; a refusal
 * of its segment list is remembered for MANA_MR_RETRY_MS like a pool's.
 */
static int
mr_register_ext(struct mana_priv *priv, uintptr_t addr, uint32_t len)
{
	static bool logged;
	struct mana_mr_range r;
	const void *msl = NULL;
	int ret;

	ret = mr_ext_run(addr, len, &r, &msl);
	if (ret == 0)
		ret = mana_mr_refused_check(priv, msl);
	else
		msl = NULL;
	if (ret == 0) {
		if (rte_eal_process_type() == RTE_PROC_PRIMARY)
			ret = mana_mr_register_ext(priv, addr, len);
		else
			ret = mana_mp_req_mr_ext(priv, addr, len);
		if (ret != 0)
			mana_mr_refused_note(priv, msl, ret);
	}
	if (ret == -ENOSPC)
		mr_ext_full_log(priv);
	else if (ret != 0 && !__atomic_exchange_n(&logged, true, __ATOMIC_RELAXED))
		PMD_DRV_LOG(ERR, "port %u: memory at %#" PRIxPTR " cannot be registered (%s%s): "
			    "packets from it are not sent, counted in tx_qN_mr_fail (logged "
			    "once)", priv->port_id, addr, strerror(-ret),
			    ret == -EFAULT ? ": not DPDK memory, see rte_extmem_register" : "");
	return ret;
}

/* The external region holding [addr, addr + len) into *out, registered if need be: 0 or -errno. */
int
mana_mr_ext_lookup(struct mana_priv *priv, uintptr_t addr, uint32_t len, struct mana_mr_entry *out)
{
	int ret;

	if (mana_mr_ext_find(priv, addr, len, out))
		return 0;
	ret = mr_register_ext(priv, addr, len);
	if (ret == 0 && !mana_mr_ext_find(priv, addr, len, out))
		ret = -ENOENT;
	return ret;
}

/*
 * Memory DPDK frees (dynamic memory mode) leaves the external table before
 * its pages can come back elsewhere. Legacy memory (and --no-huge) is never
 * freed: ENOTSUP there is expected.
 */
void
mana_mr_ext_events_register(struct mana_priv *priv)
{
	if (priv->mr_ext.mem_cb_registered)
		return;
	if (rte_mem_event_callback_register(MR_MEM_CB_NAME, mr_mem_event_cb, priv) == 0)
		priv->mr_ext.mem_cb_registered = true;
	else if (rte_errno != ENOTSUP)
		PMD_INIT_LOG(WARNING, "port %u: memory event callback: %s", priv->port_id,
			     rte_strerror(rte_errno));
}

void
mana_mr_ext_events_unregister(struct mana_priv *priv)
{
	if (!priv->mr_ext.mem_cb_registered)
		return;
	rte_mem_event_callback_unregister(MR_MEM_CB_NAME, priv);
	priv->mr_ext.mem_cb_registered = false;
}
