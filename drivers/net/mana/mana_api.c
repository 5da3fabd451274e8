/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * rte_pmd_mana_* (rte_pmd_mana.h): read-only views of a port's device
 * objects and rings, and the software device's controls.
 *
 * The views are read from another thread than the datapath's, without
 * stopping it; the fields are plain loads of words the datapath writes, so
 * a view is consistent per field, not across fields. The MR table is read
 * under its writer lock (control path only). Each call enters the port's
 * slot (mana_portref.c): a close on another thread waits for it to return,
 * and a port closed or being closed answers -ENODEV.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_ethdev.h>
#include <rte_thash.h>

#include "mana_ethdev.h"
#include "mana_logs.h"
#include "rte_pmd_mana.h"

/*
 * Runs call with priv_ the private data of port_id, entered in the port's
 * slot (mana_portref.c): a close on another thread waits until the call
 * returns, and a port closed or being closed is -ENODEV, its memory never
 * read. Returns the call's result.
 */
#define API_ENTERED(port_id, call) do { \
	struct rte_eth_dev *dev_ = mana_port_dev(port_id); \
	struct mana_priv *priv_; \
	int ret_; \
	if (dev_ == NULL || mana_portref_enter(dev_, NULL) != 0) \
		return -ENODEV; \
	priv_ = mana_priv(dev_); \
	ret_ = (call); \
	mana_portref_leave(dev_); \
	return ret_; \
} while (0)

static uint32_t
count_db_pages(const struct mana_priv *priv)
{
	const struct rte_eth_dev_data *d = priv->dev_data;
	const uint8_t *pages[MANA_MAX_RXQ + MANA_MAX_TXQ];
	uint32_t n = 0, i, k;
	const uint8_t *p;

	for (i = 0; i < (uint32_t)d->nb_rx_queues + d->nb_tx_queues; i++) {
		if (i < d->nb_rx_queues) {
			const struct mana_rxq *q = d->rx_queues[i];

			p = q != NULL ? q->db_page : NULL;
		} else {
			const struct mana_txq *q = d->tx_queues[i - d->nb_rx_queues];

			p = q != NULL ? q->db_page : NULL;
		}
		if (p == NULL)
			continue;
		for (k = 0; k < n && pages[k] != p; k++)
			;
		if (k == n && n < RTE_DIM(pages))
			pages[n++] = p;
	}
	return n;
}

static int
port_info_get(struct mana_priv *priv, struct rte_pmd_mana_port_info *info)
{
	struct mana_model *m;
	const char *name;

	if (info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->vport = priv->ib_port - 1;
	m = priv->ctx != NULL ? mana_vs_model_of(priv->ctx) : NULL;
	info->model = m != NULL;
	name = priv->ctx != NULL ? mana_vs_device_name(priv->ctx->device) : NULL;
	if (name != NULL)
		strlcpy(info->ibdev, name, sizeof(info->ibdev));
	memcpy(info->mac, priv->mac.addr_bytes, sizeof(info->mac));
	info->started = priv->started;
	info->nb_rxq = priv->dev_data->nb_rx_queues;
	info->nb_txq = priv->dev_data->nb_tx_queues;
	info->max_desc = priv->max_desc;
	info->max_tx_sge = priv->max_tx_sge;
	info->max_queues = priv->max_queues;
	info->max_mtu = priv->max_mtu;
	info->tx_cqe_suppress = priv->tx_cqe_suppress;
	info->db_pages = count_db_pages(priv);
	info->mr_count = __atomic_load_n(&priv->mr.n, __ATOMIC_RELAXED);
	info->mr_gen = __atomic_load_n(&priv->mr.gen, __ATOMIC_RELAXED);
	return 0;
}

int
rte_pmd_mana_port_info_get(uint16_t port_id, struct rte_pmd_mana_port_info *info)
{
	API_ENTERED(port_id, port_info_get(priv_, info));
}

static int
mr_table_get(struct mana_priv *priv, struct rte_pmd_mana_mr *mr, unsigned int max)
{
	unsigned int i, n;

	if (mr == NULL && max != 0)
		return -EINVAL;
	rte_spinlock_lock(&priv->mr.lock);
	n = priv->mr.n;
	for (i = 0; i < n && i < max; i++) {
		mr[i].start = priv->mr.e[i].start;
		mr[i].end = priv->mr.e[i].end;
		mr[i].lkey = priv->mr.e[i].lkey;
	}
	rte_spinlock_unlock(&priv->mr.lock);
	return n;
}

int
rte_pmd_mana_mr_table_get(uint16_t port_id, struct rte_pmd_mana_mr *mr, unsigned int max)
{
	API_ENTERED(port_id, mr_table_get(priv_, mr, max));
}

static int
rss_info_get(struct mana_priv *priv, struct rte_pmd_mana_rss_info *info)
{
	const struct mana_rxq *q;
	uint16_t i, period;

	if (info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	memcpy(info->key, priv->rss_key, sizeof(info->key));
	info->rss_hf = priv->rss_hf;
	info->active = priv->rss_qp != NULL;
	info->reta_set = priv->reta_set;
	period = priv->reta_period;
	if (period == 0 || period > MANA_RETA_SIZE)
		period = 1;
	info->period = period;
	/* The device replicates the period over its 64 entries (hardware.md §6). */
	for (i = 0; i < RTE_PMD_MANA_RETA_SIZE; i++) {
		info->reta[i] = priv->reta[i % period];
		if (info->reta[i] >= priv->dev_data->nb_rx_queues)
			continue;
		q = priv->dev_data->rx_queues[info->reta[i]];
		if (q != NULL && q->db_page != NULL)
			info->wq_id[i] = q->rq_id;
	}
	return 0;
}

int
rte_pmd_mana_rss_info_get(uint16_t port_id, struct rte_pmd_mana_rss_info *info)
{
	API_ENTERED(port_id, rss_info_get(priv_, info));
}

/*
 * rte_softrss() takes an IPv6 address as four host-order words. The tuple's
 * address is a byte array before DPDK 24.11 and struct rte_ipv6_addr since:
 * callers pass its address, the same bytes either way.
 */
static void
load_v6(uint8_t *dst, const uint8_t *src)
{
	uint32_t w;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		memcpy(&w, src + 4 * i, 4);
		w = rte_be_to_cpu_32(w);
		memcpy(dst + 4 * i, &w, 4);
	}
}

static int
rss_flow_queue(struct mana_priv *priv, const struct rte_pmd_mana_flow *flow,
		uint32_t *hash, uint16_t *entry)
{
	union rte_thash_tuple t;
	bool ports;
	uint32_t h, len;
	uint16_t e, period;

	if (flow == NULL)
		return -EINVAL;
	memset(&t, 0, sizeof(t));
	ports = flow->proto == IPPROTO_TCP || flow->proto == IPPROTO_UDP;
	/* Model policy (hardware.md §6): src addr, dst addr, then ports for TCP/UDP. */
	if (!flow->ipv6) {
		t.v4.src_addr = flow->src_ip4;
		t.v4.dst_addr = flow->dst_ip4;
		t.v4.sport = flow->src_port;
		t.v4.dport = flow->dst_port;
		len = ports ? RTE_THASH_V4_L4_LEN : RTE_THASH_V4_L3_LEN;
	} else {
		load_v6((uint8_t *)&t.v6.src_addr, flow->src_ip6);
		load_v6((uint8_t *)&t.v6.dst_addr, flow->dst_ip6);
		t.v6.sport = flow->src_port;
		t.v6.dport = flow->dst_port;
		len = ports ? RTE_THASH_V6_L4_LEN : RTE_THASH_V6_L3_LEN;
	}
	h = rte_softrss((uint32_t *)&t, len, priv->rss_key);
	e = h & (MANA_RETA_SIZE - 1);
	period = priv->reta_period == 0 ? 1 : priv->reta_period;
	if (hash != NULL)
		*hash = h;
	if (entry != NULL)
		*entry = e;
	return priv->reta[e % period];
}

int
rte_pmd_mana_rss_flow_queue(uint16_t port_id, const struct rte_pmd_mana_flow *flow,
			    uint32_t *hash, uint16_t *entry)
{
	API_ENTERED(port_id, rss_flow_queue(priv_, flow, hash, entry));
}

static void
cq_state(struct rte_pmd_mana_queue_info *info, const struct gdma_cqe *ring, uint32_t count,
	 uint32_t head)
{
	uint32_t dw;

	info->cq_count = count;
	info->cq_head = head;
	if (count == 0 || ring == NULL)
		return;
	info->cq_index = head % count;
	info->owner_expected = gdma_cqe_owner_expected(head, count);
	dw = __atomic_load_n(&ring[info->cq_index].info, __ATOMIC_ACQUIRE);
	info->owner_seen = GDMA_GET(dw, GDMA_CQE_OWNER);
}

/* Descriptor ring and counters, common to RX and TX queues. */
static void
ring_state(struct rte_pmd_mana_queue_info *info, uint16_t nb_desc, uint32_t head,
	   uint32_t tail, uint64_t packets, uint64_t bytes, uint64_t errors)
{
	info->setup = true;
	info->nb_desc = nb_desc;
	info->desc_head = head;
	info->desc_tail = tail;
	info->in_flight = head - tail;
	info->free_desc = nb_desc - RTE_MIN(info->in_flight, (uint32_t)nb_desc);
	info->packets = packets;
	info->bytes = bytes;
	info->errors = errors;
}

static int
rxq_info_get(struct mana_priv *priv, uint16_t queue_id,
		struct rte_pmd_mana_queue_info *info)
{
	const struct mana_rxq *q;
	struct mana_rxq_stats st;

	if (info == NULL || queue_id >= priv->dev_data->nb_rx_queues)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	q = priv->dev_data->rx_queues[queue_id];
	if (q == NULL)
		return 0;
	mana_rxq_stats_get(priv, queue_id, q, &st);
	ring_state(info, q->nb_desc, q->sw_head, q->sw_tail, st.packets, st.bytes, st.errors);
	/* The layout of the last setup or start (mana_rxq.c rxq_layout_set). */
	info->frame_bytes = q->frame_cap;
	info->sges = q->sge_k;
	info->running = q->db_page != NULL;
	if (!info->running)
		return 0;
	info->wq_id = q->rq_id;
	info->cq_id = q->cq_id;
	info->ring_bytes = q->rq_mask + 1;
	info->wq_head_bu = q->rq_head;
	/* Every RX WQE of the queue has wqe_bu BUs (k SGEs): head minus those posted. */
	info->wq_tail_bu = q->rq_head - info->in_flight * q->wqe_bu;
	info->db_page = (uintptr_t)q->db_page;
	cq_state(info, q->cq_ring, q->cq_count, q->cq_head);
	return 0;
}

int
rte_pmd_mana_rxq_info_get(uint16_t port_id, uint16_t queue_id,
			  struct rte_pmd_mana_queue_info *info)
{
	API_ENTERED(port_id, rxq_info_get(priv_, queue_id, info));
}

static int
txq_info_get(struct mana_priv *priv, uint16_t queue_id,
		struct rte_pmd_mana_queue_info *info)
{
	const struct mana_txq *q;
	struct mana_txq_stats st;

	if (info == NULL || queue_id >= priv->dev_data->nb_tx_queues)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	q = priv->dev_data->tx_queues[queue_id];
	if (q == NULL)
		return 0;
	mana_txq_stats_get(priv, queue_id, q, &st);
	ring_state(info, q->nb_desc, q->desc_head, q->desc_tail, st.packets, st.bytes, st.errors);
	info->running = q->db_page != NULL;
	if (!info->running)
		return 0;
	info->wq_id = q->sq_id;
	info->cq_id = q->cq_id;
	info->ring_bytes = q->sq_mask + 1;
	info->wq_head_bu = q->sq_head;
	info->wq_tail_bu = q->sq_tail;
	info->db_page = (uintptr_t)q->db_page;
	cq_state(info, q->cq_ring, q->cq_count, q->cq_head);
	return 0;
}

int
rte_pmd_mana_txq_info_get(uint16_t port_id, uint16_t queue_id,
			  struct rte_pmd_mana_queue_info *info)
{
	API_ENTERED(port_id, txq_info_get(priv_, queue_id, info));
}

/* ---- software device ------------------------------------------------- */

/* The port's software device and vPort; -ENOTSUP without one. */
static int
model_of(struct mana_priv *priv, struct mana_model **m, unsigned int *vport)
{
	/* priv->model, not the context's: there is none while a device reset is handled. */
	*m = priv->model;
	if (*m == NULL)
		return -ENOTSUP;
	*vport = priv->ib_port - 1;
	return 0;
}

/* As API_ENTERED, with m_ and vport_ the port's software device and vPort. */
#define API_MODEL(port_id, call) do { \
	struct rte_eth_dev *dev_ = mana_port_dev(port_id); \
	struct mana_model *m_; \
	unsigned int vport_; \
	int ret_; \
	if (dev_ == NULL || mana_portref_enter(dev_, NULL) != 0) \
		return -ENODEV; \
	ret_ = model_of(mana_priv(dev_), &m_, &vport_); \
	if (ret_ == 0) \
		ret_ = (call); \
	mana_portref_leave(dev_); \
	return ret_; \
} while (0)

int
rte_pmd_mana_model_link_set(uint16_t port_id, bool up)
{
	API_MODEL(port_id, mana_vs_model_api()->set_link(m_, vport_, up));
}

int
rte_pmd_mana_model_inject_tx_error(uint16_t port_id, uint32_t cqe_type, uint32_t n)
{
	API_MODEL(port_id, mana_vs_model_api()->inject_tx_error(m_, vport_, cqe_type, n));
}

int
rte_pmd_mana_model_drop_next(uint16_t port_id, uint32_t n)
{
	API_MODEL(port_id, mana_vs_model_api()->drop_next(m_, vport_, n));
}

int
rte_pmd_mana_model_inject_rx(uint16_t port_id, const void *frame, uint32_t len)
{
	API_MODEL(port_id, mana_vs_model_api()->inject_rx(m_, vport_, frame, len));
}

int
rte_pmd_mana_model_fatal(uint16_t port_id)
{
	API_MODEL(port_id, mana_vs_model_api()->fatal(m_));
}

int
rte_pmd_mana_model_reset(uint16_t port_id, uint32_t down_ms)
{
	API_MODEL(port_id, mana_vs_model_api()->reset(m_, down_ms));
}

int
rte_pmd_mana_model_gen_set(uint16_t port_id, uint64_t rate_pps, uint32_t flows)
{
	API_MODEL(port_id, mana_vs_model_api()->gen_set(m_, vport_, rate_pps, flows));
}

#define MODEL_CTR(f)	{ #f, offsetof(struct mana_model_port_stats, f) }
#define MODEL_TXERR(t)	\
	{ "tx_err_" #t, offsetof(struct mana_model_port_stats, tx_err[t - 32]) }

static const struct {
	const char *name;
	size_t off;
} model_counters[] = {
	MODEL_CTR(rx_frames), MODEL_CTR(rx_bytes), MODEL_CTR(tx_frames), MODEL_CTR(tx_bytes),
	MODEL_CTR(rx_drop_no_wqe), MODEL_CTR(rx_drop_no_rxq), MODEL_CTR(rx_drop_sge),
	MODEL_CTR(rx_drop_injected), MODEL_CTR(rx_truncated), MODEL_CTR(rx_coalesced_cqes),
	MODEL_TXERR(33), MODEL_TXERR(34), MODEL_TXERR(35), MODEL_TXERR(36), MODEL_TXERR(37),
	MODEL_TXERR(38), MODEL_TXERR(39), MODEL_TXERR(40), MODEL_TXERR(41),
	MODEL_TXERR(42),
	MODEL_CTR(tx_drop_link_down), MODEL_CTR(db_rejected), MODEL_CTR(queue_errors),
	MODEL_CTR(wire_gen_frames), MODEL_CTR(wire_sink_frames), MODEL_CTR(wire_sink_bytes),
	MODEL_CTR(wire_sink_bad), MODEL_CTR(wire_sink_csum_ok), MODEL_CTR(wire_sink_vlan),
	MODEL_CTR(rx_drop_runt), MODEL_CTR(rx_drop_filter),
	MODEL_CTR(tx_lso_wqes), MODEL_CTR(tx_lso_segments),
};

static int
model_counters_get(struct mana_model *m, unsigned int vport, struct rte_pmd_mana_counter *c,
		   unsigned int max)
{
	struct mana_model_port_stats st;
	unsigned int i;
	int err;

	if (c == NULL && max != 0)
		return -EINVAL;
	err = mana_vs_model_api()->port_stats(m, vport, &st);
	if (err != 0)
		return err;
	for (i = 0; i < RTE_DIM(model_counters) && i < max; i++) {
		strlcpy(c[i].name, model_counters[i].name, sizeof(c[i].name));
		memcpy(&c[i].value, (const uint8_t *)&st + model_counters[i].off,
		       sizeof(c[i].value));
	}
	return RTE_DIM(model_counters);
}

int
rte_pmd_mana_model_counters_get(uint16_t port_id, struct rte_pmd_mana_counter *c,
				unsigned int max)
{
	API_MODEL(port_id, model_counters_get(m_, vport_, c, max));
}

static int
model_last_error(struct mana_model *m, char *buf, unsigned int size)
{
	if (buf == NULL || size == 0)
		return -EINVAL;
	strlcpy(buf, mana_vs_model_api()->last_error(m), size);
	return 0;
}

int
rte_pmd_mana_model_last_error(uint16_t port_id, char *buf, unsigned int size)
{
	API_MODEL(port_id, model_last_error(m_, buf, size));
}
