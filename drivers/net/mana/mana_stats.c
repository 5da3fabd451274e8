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
 * (dev_*). Reset zeroes the queues and takes a baseline of the device
 * counters, so other users of the same device are not disturbed.
 *
 * Secondary processes read the queue counters from shared memory like the
 * primary; the software device lives in the primary's heap, so its counters
 * (dev_* xstats, imissed) come from the primary over IPC (mana_mp.c). If
 * that fails they are left out, as on hardware.
 */

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
	RXQ_STAT(cq_overflow), RXQ_STAT(mr_fail),
};

static const struct mana_xstat_def txq_stats[] = {
	TXQ_STAT(packets), TXQ_STAT(bytes), TXQ_STAT(errors), TXQ_STAT(mr_fail),
	TXQ_STAT(too_many_segs), TXQ_STAT(cq_overflow), TXQ_STAT(bad_cqe),
};

/* TX error CQE types 33..41 (hardware.md §4.3). */
static const char * const tx_err_names[] = {
	"sa_drop", "mtu_drop", "invalid_oob", "invalid_eth_type", "hdr_processing_error",
	"vf_disabled", "vport_idx_out_of_range", "vport_disabled", "vlan_tagging_violation",
};

static const struct mana_xstat_def dev_stats[] = {
	DEV_STAT(rx_frames), DEV_STAT(rx_bytes), DEV_STAT(tx_frames), DEV_STAT(tx_bytes),
	DEV_STAT(rx_drop_no_wqe), DEV_STAT(rx_drop_no_rxq), DEV_STAT(rx_drop_sge),
	DEV_STAT(rx_drop_injected), DEV_STAT(rx_truncated), DEV_STAT(rx_coalesced_cqes),
	DEV_STAT(tx_drop_link_down), DEV_STAT(db_rejected), DEV_STAT(queue_errors),
	DEV_STAT(wire_gen_frames), DEV_STAT(wire_sink_frames), DEV_STAT(wire_sink_bytes),
	DEV_STAT(wire_sink_bad), DEV_STAT(wire_sink_csum_ok), DEV_STAT(wire_sink_vlan),
	DEV_STAT(rx_drop_runt), DEV_STAT(rx_drop_filter),
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

int
mana_stats_fill(struct rte_eth_dev *dev, struct rte_eth_stats *stats,
		const struct mana_queue_counters *q)
{
	struct mana_priv *priv = mana_priv(dev);
	struct mana_model_port_stats st;
	const struct mana_rxq *rxq;
	const struct mana_txq *txq;
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		rxq = dev->data->rx_queues[i];
		if (rxq == NULL)
			continue;
		stats->ipackets += rxq->stats.packets;
		stats->ibytes += rxq->stats.bytes;
		stats->ierrors += rxq->stats.errors;
		stats->rx_nombuf += rxq->stats.nombuf;
		if (q->ipackets != NULL && i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			q->ipackets[i] = rxq->stats.packets;
			q->ibytes[i] = rxq->stats.bytes;
			q->errors[i] = rxq->stats.errors;
		}
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		txq = dev->data->tx_queues[i];
		if (txq == NULL)
			continue;
		stats->opackets += txq->stats.packets;
		stats->obytes += txq->stats.bytes;
		stats->oerrors += txq->stats.errors;
		if (q->opackets != NULL && i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			q->opackets[i] = txq->stats.packets;
			q->obytes[i] = txq->stats.bytes;
		}
	}
	if (dev_counters(priv, &st))
		stats->imissed = st.rx_drop_no_wqe;
	return 0;
}

int
mana_stats_reset(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	struct mana_model_port_stats st;
	struct mana_rxq *rxq;
	struct mana_txq *txq;
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		rxq = dev->data->rx_queues[i];
		if (rxq != NULL)
			memset(&rxq->stats, 0, sizeof(rxq->stats));
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		txq = dev->data->tx_queues[i];
		if (txq != NULL)
			mana_txq_stats_reset(txq);
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
	struct mana_model_port_stats st;
	const struct mana_rxq *rxq;
	const struct mana_txq *txq;
	unsigned int i, k;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		rxq = dev->data->rx_queues[i];
		for (k = 0; k < RTE_DIM(rxq_stats); k++)
			xs_add(w, "rx", i, rxq_stats[k].name,
			       rxq == NULL ? 0 : U64_AT(&rxq->stats, rxq_stats[k].off));
		trunc += rxq == NULL ? 0 : rxq->stats.truncated;
		coal += rxq == NULL ? 0 : rxq->stats.coalesced_cqes;
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		txq = dev->data->tx_queues[i];
		for (k = 0; k < RTE_DIM(txq_stats); k++)
			xs_add(w, "tx", i, txq_stats[k].name,
			       txq == NULL ? 0 : U64_AT(&txq->stats, txq_stats[k].off));
		for (k = 0; txq != NULL && k < RTE_DIM(tx_err_names); k++)
			err[k] += txq->stats.err_type[k + 1];
	}
	xs_add(w, "rx_", -1, "truncated", trunc);
	xs_add(w, "rx_", -1, "coalesced_cqes", coal);
	for (k = 0; k < RTE_DIM(tx_err_names); k++)
		xs_add(w, "tx_err_", -1, tx_err_names[k], err[k]);
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
