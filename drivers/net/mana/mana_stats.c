/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Basic and extended statistics.
 *
 * Basic: sums of the per-queue software counters; imissed is the device's
 * "no posted RX buffer" drop count where the device reports one (model).
 * Extended: per-queue counters, port totals of RX error kinds and TX error
 * CQEs by type, and on the software device its own per-vPort counters
 * (dev_*). Reset takes a baseline of the queue counters and of the device
 * counters, so neither the lcores updating the queues nor other users of
 * the same device are disturbed. Counters are cumulative across queue
 * re-setup and reconfiguration until a reset.
 *
 * Secondary processes read the queue counters from shared memory like the
 * primary; the software device lives in the primary's heap, so its counters
 * (dev_* xstats, imissed) come from the primary over IPC (mana_mp.c). If
 * that fails they are left out, as on hardware.
 */

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

struct mana_xstat_def {
	const char *name;
	size_t off;
};

#define RXQ_STAT(f)	{ #f, offsetof(struct mana_rxq_stats, f) }
#define TXQ_STAT(f)	{ #f, offsetof(struct mana_txq_stats, f) }
#define DEV_STAT(f)	{ "dev_" #f, offsetof(struct mana_model_port_stats, f) }

static const struct mana_xstat_def rxq_stats[] = {
	RXQ_STAT(packets), RXQ_STAT(bytes), RXQ_STAT(errors), RXQ_STAT(nombuf),
	RXQ_STAT(truncated), RXQ_STAT(coalesced_cqes), RXQ_STAT(unknown_cqes),
	RXQ_STAT(cq_overflow), RXQ_STAT(mr_fail), RXQ_STAT(discarded),
};

static const struct mana_xstat_def txq_stats[] = {
	TXQ_STAT(packets), TXQ_STAT(bytes), TXQ_STAT(errors), TXQ_STAT(mr_fail),
	TXQ_STAT(mr_table_full), TXQ_STAT(too_many_segs), TXQ_STAT(cq_overflow),
	TXQ_STAT(bad_cqe), TXQ_STAT(tso_packets), TXQ_STAT(tso_bad),
};

/* TX error CQE types 33..41 (hardware.md §4.3). */
static const char * const tx_err_names[] = {
	"sa_drop", "mtu_drop", "invalid_oob", "invalid_eth_type", "hdr_processing_error",
	"vf_disabled", "vport_idx_out_of_range", "vport_disabled", "vlan_tagging_violation",
	"gdma_err",
};

static const struct mana_xstat_def dev_stats[] = {
	DEV_STAT(rx_frames), DEV_STAT(rx_bytes), DEV_STAT(tx_frames), DEV_STAT(tx_bytes),
	DEV_STAT(rx_drop_no_wqe), DEV_STAT(rx_drop_no_rxq), DEV_STAT(rx_drop_sge),
	DEV_STAT(rx_drop_injected), DEV_STAT(rx_truncated), DEV_STAT(rx_coalesced_cqes),
	DEV_STAT(tx_drop_link_down), DEV_STAT(db_rejected), DEV_STAT(queue_errors),
	DEV_STAT(wire_gen_frames), DEV_STAT(wire_sink_frames), DEV_STAT(wire_sink_bytes),
	DEV_STAT(wire_sink_bad), DEV_STAT(wire_sink_csum_ok), DEV_STAT(wire_sink_vlan),
	DEV_STAT(wire_drops), DEV_STAT(rx_drop_runt), DEV_STAT(rx_drop_filter),
	DEV_STAT(tx_lso_wqes), DEV_STAT(tx_lso_segments),
};

#define U64_AT(p, off)	(*(const uint64_t *)((const char *)(p) + (off)))

/*
 * Raw device counters of the port's vPort: from the model in the primary,
 * over IPC in a secondary (priv->model is a primary address, only its being
 * non-NULL means something here). False when the device has none (hardware).
 */
static bool
dev_counters_raw(struct mana_priv *priv, struct mana_model_port_stats *st)
{
	if (priv->model == NULL)
		return false;
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return mana_mp_req_dev_stats(priv, st) == 0;
	return mana_vs_model_api()->port_stats(priv->model, priv->ib_port - 1, st) == 0;
}

/* Device counters since the last reset; false when the device has none (hardware). */
static bool
dev_counters(struct mana_priv *priv, struct mana_model_port_stats *st)
{
	const uint64_t *base = (const uint64_t *)&priv->model_base;
	uint64_t *cur = (uint64_t *)st;
	size_t i;

	if (!dev_counters_raw(priv, st))
		return false;
	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		cur[i] -= base[i];
	return true;
}

/*
 * Queue counters are written by the burst only (hardware.md §18 #20-#22). A reset (control thread,
 * any process) records them as the queue's baseline and the views below
 * subtract it: nothing the lcore is updating is written by another thread,
 * and no atomic read-modify-write or lock is needed on the datapath. A queue
 * released by re-setup or reconfiguration leaves what it counted since the
 * reset in the port's carry for its index (rxq_carry/txq_carry), so port
 * statistics stay cumulative until the next reset.
 */
#define N_U64(t)	(sizeof(t) / sizeof(uint64_t))

static_assert(sizeof(struct mana_rxq_stats) % sizeof(uint64_t) == 0, "u64 counters only");
static_assert(sizeof(struct mana_txq_stats) % sizeof(uint64_t) == 0, "u64 counters only");

/* out = carry + (cur - base); a counter the burst took below its baseline reads 0. */
static void
ctr_view(uint64_t *out, const uint64_t *carry, const uint64_t *cur, const uint64_t *base,
	 size_t n)
{
	uint64_t c;
	size_t i;

	for (i = 0; i < n; i++) {
		c = cur == NULL ? 0 : __atomic_load_n(&cur[i], __ATOMIC_RELAXED);
		out[i] = carry[i] + (cur != NULL && c > base[i] ? c - base[i] : 0);
	}
}

static void
ctr_snapshot(uint64_t *base, const uint64_t *cur, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		base[i] = __atomic_load_n(&cur[i], __ATOMIC_RELAXED);
}

void
mana_rxq_stats_get(const struct mana_priv *priv, uint16_t qid, const struct mana_rxq *rxq,
		   struct mana_rxq_stats *st)
{
	ctr_view((uint64_t *)st, (const uint64_t *)&priv->rxq_carry[qid],
		 rxq == NULL ? NULL : (const uint64_t *)&rxq->stats,
		 rxq == NULL ? NULL : (const uint64_t *)&rxq->stats_base, N_U64(*st));
}

void
mana_txq_stats_get(const struct mana_priv *priv, uint16_t qid, const struct mana_txq *txq,
		   struct mana_txq_stats *st)
{
	ctr_view((uint64_t *)st, (const uint64_t *)&priv->txq_carry[qid],
		 txq == NULL ? NULL : (const uint64_t *)&txq->stats,
		 txq == NULL ? NULL : (const uint64_t *)&txq->stats_base, N_U64(*st));
}

void
mana_rxq_stats_retire(struct mana_priv *priv, uint16_t qid, const struct mana_rxq *rxq)
{
	if (qid < RTE_DIM(priv->rxq_carry))
		mana_rxq_stats_get(priv, qid, rxq, &priv->rxq_carry[qid]);
}

void
mana_txq_stats_retire(struct mana_priv *priv, uint16_t qid, const struct mana_txq *txq)
{
	if (qid < RTE_DIM(priv->txq_carry))
		mana_txq_stats_get(priv, qid, txq, &priv->txq_carry[qid]);
}

int
mana_stats_fill(struct rte_eth_dev *dev, struct rte_eth_stats *stats,
		const struct mana_queue_counters *q)
{
	struct mana_priv *priv = mana_priv(dev);
	struct mana_model_port_stats st;
	struct mana_rxq_stats rs;
	struct mana_txq_stats ts;
	uint16_t i;

	/* Every index: released queues past nb_rx_queues still count for the port. */
	for (i = 0; i < MANA_MAX_RXQ; i++) {
		mana_rxq_stats_get(priv, i, i < dev->data->nb_rx_queues ?
				   dev->data->rx_queues[i] : NULL, &rs);
		stats->ipackets += rs.packets;
		stats->ibytes += rs.bytes;
		stats->ierrors += rs.errors;
		stats->rx_nombuf += rs.nombuf;
		if (q->ipackets != NULL && i < RTE_ETHDEV_QUEUE_STAT_CNTRS &&
		    i < dev->data->nb_rx_queues) {
			q->ipackets[i] = rs.packets;
			q->ibytes[i] = rs.bytes;
			q->errors[i] = rs.errors;
		}
	}
	for (i = 0; i < MANA_MAX_TXQ; i++) {
		mana_txq_stats_get(priv, i, i < dev->data->nb_tx_queues ?
				   dev->data->tx_queues[i] : NULL, &ts);
		stats->opackets += ts.packets;
		stats->obytes += ts.bytes;
		stats->oerrors += ts.errors;
		if (q->opackets != NULL && i < RTE_ETHDEV_QUEUE_STAT_CNTRS &&
		    i < dev->data->nb_tx_queues) {
			q->opackets[i] = ts.packets;
			q->obytes[i] = ts.bytes;
		}
	}
	if (dev_counters(priv, &st))
		stats->imissed = st.rx_drop_no_wqe;
	return 0;
}

/* Basic and extended statistics (one reset for both). */
int
mana_stats_reset(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	struct mana_model_port_stats st;
	struct mana_rxq *rxq;
	struct mana_txq *txq;
	uint16_t i;

	memset(priv->rxq_carry, 0, sizeof(priv->rxq_carry));
	memset(priv->txq_carry, 0, sizeof(priv->txq_carry));
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		rxq = dev->data->rx_queues[i];
		if (rxq != NULL)
			ctr_snapshot((uint64_t *)&rxq->stats_base, (const uint64_t *)&rxq->stats,
				     N_U64(rxq->stats));
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		txq = dev->data->tx_queues[i];
		if (txq == NULL)
			continue;
		/*
		 * Baseline first, then the descriptor it covers: the burst moves
		 * desc_head before it counts, so every packet in the baseline is
		 * below stats_from and is never taken back out of it.
		 */
		ctr_snapshot((uint64_t *)&txq->stats_base, (const uint64_t *)&txq->stats,
			     N_U64(txq->stats));
		/* The snapshot's loads before that of desc_head (hardware.md §18 #20). */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		__atomic_store_n(&txq->stats_from,
				 __atomic_load_n(&txq->desc_head, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
	}
	if (dev_counters_raw(priv, &st))
		priv->model_base = st;
	return 0;
}

/* Walks every xstat in order; writes names and/or values while they fit. */
struct xs_walk {
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *vals;
	unsigned int size;
	unsigned int n;
};

static void
xs_add(struct xs_walk *w, const char *prefix, int q, const char *name, uint64_t v)
{
	if (w->n < w->size) {
		if (w->names != NULL) {
			if (q >= 0)
				snprintf(w->names[w->n].name, RTE_ETH_XSTATS_NAME_SIZE, "%s_q%d_%s",
					 prefix, q, name);
			else
				snprintf(w->names[w->n].name, RTE_ETH_XSTATS_NAME_SIZE, "%s%s",
					 prefix, name);
		}
		if (w->vals != NULL) {
			w->vals[w->n].id = w->n;
			w->vals[w->n].value = v;
		}
	}
	w->n++;
}

static void
xs_walk(struct rte_eth_dev *dev, struct xs_walk *w)
{
	struct mana_priv *priv = mana_priv(dev);
	uint64_t trunc = 0, coal = 0, err[RTE_DIM(tx_err_names)] = { 0 };
	uint64_t prep[MANA_TX_PREP_NB] = { 0 }, refused;
	struct mana_model_port_stats st;
	struct mana_rxq_stats rs;
	struct mana_txq_stats ts;
	unsigned int i, k;

	/* Per queue for the configured ones; port totals over every index (carry). */
	for (i = 0; i < MANA_MAX_RXQ; i++) {
		mana_rxq_stats_get(priv, i, i < dev->data->nb_rx_queues ?
				   dev->data->rx_queues[i] : NULL, &rs);
		for (k = 0; i < dev->data->nb_rx_queues && k < RTE_DIM(rxq_stats); k++)
			xs_add(w, "rx", i, rxq_stats[k].name, U64_AT(&rs, rxq_stats[k].off));
		trunc += rs.truncated;
		coal += rs.coalesced_cqes;
	}
	for (i = 0; i < MANA_MAX_TXQ; i++) {
		mana_txq_stats_get(priv, i, i < dev->data->nb_tx_queues ?
				   dev->data->tx_queues[i] : NULL, &ts);
		for (k = 0; i < dev->data->nb_tx_queues && k < RTE_DIM(txq_stats); k++)
			xs_add(w, "tx", i, txq_stats[k].name, U64_AT(&ts, txq_stats[k].off));
		for (k = 0; k < RTE_DIM(tx_err_names); k++)
			err[k] += ts.err_type[k + 1];
		/* tx_prepare refusals: the queue's total, the port's by reason. */
		for (k = 1, refused = 0; k < MANA_TX_PREP_NB; k++) {
			prep[k] += ts.prep[k];
			refused += ts.prep[k];
		}
		if (i < dev->data->nb_tx_queues)
			xs_add(w, "tx", i, "prep_refused", refused);
	}
	xs_add(w, "rx_", -1, "truncated", trunc);
	xs_add(w, "rx_", -1, "coalesced_cqes", coal);
	for (k = 0; k < RTE_DIM(tx_err_names); k++)
		xs_add(w, "tx_err_", -1, tx_err_names[k], err[k]);
	for (k = 1; k < MANA_TX_PREP_NB; k++)
		xs_add(w, "tx_prep_", -1, mana_tx_prep_names[k], prep[k]);
	/* Device resets (mana_recovery.c): kept across statistics resets. */
	xs_add(w, "recovery_", -1, "fatal_events", priv->rec_stats.fatal_events);
	xs_add(w, "recovery_", -1, "successes", priv->rec_stats.recoveries);
	xs_add(w, "recovery_", -1, "failures", priv->rec_stats.failures);
	xs_add(w, "recovery_", -1, "dev_resets", priv->rec_stats.dev_resets);
	xs_add(w, "recovery_", -1, "last_ms", priv->rec_stats.last_ms);
	if (!dev_counters(priv, &st))
		return;
	for (k = 0; k < RTE_DIM(dev_stats); k++)
		xs_add(w, "", -1, dev_stats[k].name, U64_AT(&st, dev_stats[k].off));
	for (k = 0; k < RTE_DIM(tx_err_names); k++)
		xs_add(w, "dev_tx_err_", -1, tx_err_names[k], st.tx_err[k + 1]);
}

int
mana_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xstats, unsigned int n)
{
	struct xs_walk w = { .names = NULL, .vals = NULL, .size = 0, .n = 0 };

	xs_walk(dev, &w);
	if (xstats == NULL || n < w.n)
		return w.n;
	w.vals = xstats;
	w.size = n;
	w.n = 0;
	xs_walk(dev, &w);
	return w.n;
}

int
mana_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names,
		      unsigned int size)
{
	struct xs_walk w = { .names = names, .vals = NULL, .size = names ? size : 0, .n = 0 };

	xs_walk(dev, &w);
	return w.n;
}
