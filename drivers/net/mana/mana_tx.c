/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * TX queues: setup/release, verbs objects, the burst function, prepare,
 * completion handling and descriptor status.
 *
 * Space: a packet needs one descriptor (desc[], nb_desc entries, which also
 * bounds outstanding CQEs to the CQ size) and its WQE's size in BUs of SQ
 * ring space (sq_bu - (sq_head - sq_tail)). The burst stops at the first
 * packet that cannot be posted (ring full, more segments than SGEs, memory
 * not registered): the return value always counts the first packets taken.
 *
 * Checksum offload: the device completes a TCP/UDP checksum whose field holds
 * the pseudo-header checksum (contract 3.5). tx_burst never writes packet
 * data: the application calls rte_eth_tx_prepare() (mana_tx_prepare seeds
 * the field) or seeds it itself, as testpmd's csum engine does.
 *
 * CQE suppression (devarg tx_cqe_suppress, default on): every WQE of a burst
 * but the last has suppress_txcqe_gen set, so one CQE retires the burst. The
 * device still writes an error CQE for a failing suppressed WQE (contract
 * 4.6). Each CQE is matched by its tx_wqe_offset (BU index of the WQE,
 * contract 4.6 model policy) to an outstanding descriptor: every descriptor
 * up to and including it is retired, the matched one with the CQE's status,
 * the earlier ones as sent (they would have had their own error CQE
 * otherwise, CQEs come in posting order). A CQE whose offset matches no
 * outstanding WQE (a device that does not fill it) falls back to posting
 * order: OK retires up to the next unsuppressed WQE, an error retires the
 * oldest descriptor only; with suppression off both rules are exact.
 */

#include <errno.h>
#include <string.h>

#include <rte_io.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_net.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

#define MANA_TX_FREE_BULK	64
#define MANA_TX_WQE_OFF_MASK	MANA_TXCQE_WQE_OFFSET_MASK

struct tx_free_batch {
	struct rte_mbuf *m[MANA_TX_FREE_BULK];
	uint32_t n;
	bool fast;
};

static inline void
tx_free_flush(struct tx_free_batch *b)
{
	if (b->n == 0)
		return;
	/* MBUF_FAST_FREE: one pool, refcnt 1, direct; chains never get here. */
	if (b->fast)
		rte_mempool_put_bulk(b->m[0]->pool, (void **)b->m, b->n);
	else
		rte_pktmbuf_free_bulk(b->m, b->n);
	b->n = 0;
}

static inline void
tx_retire_one(struct mana_txq *txq, struct tx_free_batch *b, uint32_t type)
{
	struct mana_tx_desc *d = &txq->desc[txq->desc_tail & txq->desc_mask];
	struct rte_mbuf *m = d->mbuf;

	if (likely(type == CQE_TX_OKAY)) {
		txq->stats.packets++;
		txq->stats.bytes += m->pkt_len;
	} else {
		txq->stats.errors++;
		if (type > CQE_TX_OKAY && type <= CQE_TX_VLAN_TAGGING_VIOLATION)
			txq->stats.err_type[type - CQE_TX_OKAY]++;
	}
	txq->sq_tail = d->wqe_head + d->wqe_bu;
	txq->desc_tail++;
	if (unlikely(b->fast && m->nb_segs > 1)) {
		/* Fast free covers one pool and refcnt 1, not the chain's other segments. */
		rte_pktmbuf_free(m);
		return;
	}
	b->m[b->n++] = m;
	if (b->n == MANA_TX_FREE_BULK)
		tx_free_flush(b);
}

/* Retire the descriptors one CQE stands for (see the file comment). */
static inline uint32_t
tx_retire(struct mana_txq *txq, struct tx_free_batch *b, uint32_t type, uint32_t wqe)
{
	uint32_t first, dist, out_bu, n = 0;
	struct mana_tx_desc *d;

	if (unlikely(txq->desc_tail == txq->desc_head)) {
		txq->stats.bad_cqe++;
		return 0;
	}
	first = txq->desc[txq->desc_tail & txq->desc_mask].wqe_head;
	dist = (wqe - first) & MANA_TX_WQE_OFF_MASK;
	out_bu = txq->sq_head - first;
	if (likely(dist < out_bu)) {
		do {
			d = &txq->desc[txq->desc_tail & txq->desc_mask];
			if (((d->wqe_head - first) & MANA_TX_WQE_OFF_MASK) + d->wqe_bu > dist)
				break;
			tx_retire_one(txq, b, CQE_TX_OKAY);
			n++;
		} while (txq->desc_tail != txq->desc_head);
		if (txq->desc_tail != txq->desc_head) {
			tx_retire_one(txq, b, type);
			n++;
		}
		return n;
	}
	txq->stats.bad_cqe++;
	if (type != CQE_TX_OKAY) {
		tx_retire_one(txq, b, type);
		return 1;
	}
	do {
		d = &txq->desc[txq->desc_tail & txq->desc_mask];
		tx_retire_one(txq, b, CQE_TX_OKAY);
		n++;
	} while (!d->signalled && txq->desc_tail != txq->desc_head);
	return n;
}

/* Process ready TX CQEs until `budget` mbufs were retired; returns the number retired. */
static uint32_t
tx_complete(struct mana_txq *txq, uint32_t budget)
{
	struct tx_free_batch b = {
		.n = 0,
		.fast = !!(txq->offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE),
	};
	uint32_t shift = rte_bsf32(txq->cq_count);
	uint32_t done = 0, info, owner, expected;
	const struct gdma_cqe *cqe;

	while (done < budget) {
		cqe = &txq->cq_ring[txq->cq_head & txq->desc_mask];
		info = __atomic_load_n(&cqe->info, __ATOMIC_RELAXED);
		owner = GDMA_GET(info, GDMA_CQE_OWNER);
		expected = (txq->cq_head >> shift) & GDMA_CQE_OWNER_MASK;
		if (owner != expected) {
			if (owner != ((expected - 1) & GDMA_CQE_OWNER_MASK))
				txq->stats.cq_overflow++;
			break;
		}
		rte_rmb();
		txq->cq_head++;
		done += tx_retire(txq, &b, GDMA_GET(cqe->data[0], MANA_CQE_TYPE),
				  GDMA_GET(cqe->data[MANA_TXCQE_DATA_OFFSET_DW + 1],
					   MANA_TXCQE_WQE_OFFSET));
	}
	tx_free_flush(&b);
	return done;
}

/* Inline OOB for m: short (8 B) or long (24 B, VLAN insertion / wide vport offset). */
static inline uint32_t
tx_write_oob(const struct mana_txq *txq, const struct rte_mbuf *m, uint32_t *oob, bool lng)
{
	uint64_t ol = m->ol_flags;
	uint32_t dw0 = txq->oob_dw0;

	if (ol & RTE_MBUF_F_TX_IPV4)
		dw0 |= GDMA_SET(MANA_TX_IS_OUTER_IPV4, 1);
	else if (ol & RTE_MBUF_F_TX_IPV6)
		dw0 |= GDMA_SET(MANA_TX_IS_OUTER_IPV6, 1);
	if (ol & RTE_MBUF_F_TX_IP_CKSUM)
		dw0 |= GDMA_SET(MANA_TX_COMP_IPHDR_CSUM, 1);
	if ((ol & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_TCP_CKSUM)
		dw0 |= GDMA_SET(MANA_TX_COMP_TCP_CSUM, 1);
	else if ((ol & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_UDP_CKSUM)
		dw0 |= GDMA_SET(MANA_TX_COMP_UDP_CSUM, 1);
	if (txq->suppress)
		dw0 |= GDMA_SET(MANA_TX_SUPPRESS_CQE, 1);
	/* trans_off always initialised (contract 12 #6). */
	oob[1] = txq->oob_dw1 | GDMA_SET(MANA_TX_TRANS_OFF, m->l2_len + m->l3_len);
	if (!lng) {
		oob[0] = dw0;
		return GDMA_OOB_SIZE_SMALL;
	}
	oob[0] = dw0 | GDMA_SET(MANA_TX_PKT_FMT, MANA_TX_PKT_FMT_LONG);
	oob[2] = 0;
	if (ol & RTE_MBUF_F_TX_VLAN)
		oob[2] = GDMA_SET(MANA_TX_INJECT_VLAN, 1) |
			 GDMA_SET(MANA_TX_PCP, m->vlan_tci >> 13) |
			 GDMA_SET(MANA_TX_DEI, m->vlan_tci >> 12) |
			 GDMA_SET(MANA_TX_VLAN_ID, m->vlan_tci);
	oob[3] = txq->oob_long_dw3;
	oob[4] = 0;
	oob[5] = 0;
	return GDMA_OOB_SIZE_LARGE;
}

/*
 * Write the WQE of m at the producer head. Nothing becomes visible to the
 * device before the doorbell, so a failure leaves the ring as it was.
 * Returns the WQE's OOB dword 0 (for the suppression fix-up) or NULL.
 */
static inline uint32_t *
tx_post(struct mana_txq *txq, struct rte_mbuf *m)
{
	bool lng = txq->long_oob_only || (m->ol_flags & RTE_MBUF_F_TX_VLAN);
	uint32_t nseg = m->nb_segs, oob_size = lng ? GDMA_OOB_SIZE_LARGE : GDMA_OOB_SIZE_SMALL;
	uint32_t wqe_bu = gdma_wqe_size(oob_size, nseg) >> GDMA_WQE_BU_SHIFT;
	uint32_t base = txq->sq_head << GDMA_WQE_BU_SHIFT, off, lkey;
	uint8_t *wqe = txq->sq_buf + (base & txq->sq_mask);
	struct mana_tx_desc *d;
	struct gdma_sge *sge;
	struct rte_mbuf *seg;

	if (unlikely(nseg > txq->max_sge)) {
		txq->stats.too_many_segs++;
		return NULL;
	}
	if (txq->desc_head - txq->desc_tail == txq->nb_desc ||
	    txq->sq_bu - (txq->sq_head - txq->sq_tail) < wqe_bu)
		return NULL;
	off = base + GDMA_WQE_HDR_SIZE + oob_size;
	for (seg = m; seg != NULL; seg = seg->next, off += GDMA_SGE_SIZE) {
		uintptr_t addr = rte_pktmbuf_mtod(seg, uintptr_t);

		lkey = mana_mr_lookup(txq->priv, &txq->mr_cache, seg, addr, seg->data_len);
		if (unlikely(lkey == MANA_MR_LKEY_INVALID)) {
			txq->stats.mr_fail++;
			return NULL;
		}
		/* The SGL may wrap to the start of the ring at any SGE boundary. */
		sge = (struct gdma_sge *)(txq->sq_buf + (off & txq->sq_mask));
		sge->address = addr;
		sge->mem_key = lkey;
		sge->size = seg->data_len;
	}
	/* Header + OOB (<= 32 B) start on a BU boundary and never wrap. */
	((uint32_t *)wqe)[0] = 0;
	((uint32_t *)wqe)[1] = GDMA_SET(GDMA_WQE_NUM_SGE, nseg) |
		GDMA_SET(GDMA_WQE_OOB_DIV4, oob_size / 4);
	tx_write_oob(txq, m, (uint32_t *)(wqe + GDMA_WQE_HDR_SIZE), lng);
	d = &txq->desc[txq->desc_head & txq->desc_mask];
	d->mbuf = m;
	d->wqe_head = txq->sq_head;
	d->wqe_bu = wqe_bu;
	d->signalled = !txq->suppress;
	txq->desc_head++;
	txq->sq_head += wqe_bu;
	return (uint32_t *)(wqe + GDMA_WQE_HDR_SIZE);
}

uint16_t
mana_tx_burst(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_txq *txq = q;
	uint32_t *oob = NULL, *last_oob = NULL;
	uint16_t nb;

	tx_complete(txq, UINT32_MAX);
	for (nb = 0; nb < n; nb++) {
		if (nb + 1 < n)
			rte_prefetch0(pkts[nb + 1]);
		oob = tx_post(txq, pkts[nb]);
		if (oob == NULL)
			break;
		last_oob = oob;
	}
	if (nb == 0)
		return 0;
	if (txq->suppress) {
		/* The burst's last WQE produces the CQE that retires it all. */
		*last_oob &= ~GDMA_SET(MANA_TX_SUPPRESS_CQE, 1);
		txq->desc[(txq->desc_head - 1) & txq->desc_mask].signalled = 1;
	}
	rte_wmb();
	rte_write64_relaxed(gdma_db_wq(txq->sq_id, txq->sq_head), txq->db_page + GDMA_DB_OFFSET_SQ);
	return nb;
}

uint16_t
mana_tx_prepare(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_txq *txq = q;
	struct rte_mbuf *m;
	uint16_t i;
	int ret;

	for (i = 0; i < n; i++) {
		m = pkts[i];
		if (m->nb_segs > txq->max_sge) {
			rte_errno = EINVAL;
			return i;
		}
		if ((m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK & ~MANA_TX_OL_FLAGS) ||
		    (m->ol_flags & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_SCTP_CKSUM) {
			rte_errno = ENOTSUP;
			return i;
		}
		if ((uint32_t)m->l2_len + m->l3_len > MANA_TX_TRANS_OFF_MASK) {
			rte_errno = EINVAL;
			return i;
		}
#ifdef RTE_ETHDEV_DEBUG_TX
		ret = rte_validate_tx_offload(m);
		if (ret != 0) {
			rte_errno = -ret;
			return i;
		}
#endif
		/* Pseudo-header checksum into the L4 field, IPv4 checksum zeroed. */
		ret = rte_net_intel_cksum_prepare(m);
		if (ret != 0) {
			rte_errno = -ret;
			return i;
		}
	}
	return i;
}

int
mana_tx_done_cleanup(void *q, uint32_t free_cnt)
{
	struct mana_txq *txq = q;

	if (txq->cq_ring == NULL)
		return 0;
	return tx_complete(txq, free_cnt == 0 ? UINT32_MAX : free_cnt);
}

int
mana_tx_descriptor_status(void *q, uint16_t offset)
{
	struct mana_txq *txq = q;
	uint32_t outstanding = txq->desc_head - txq->desc_tail;

	if (offset >= txq->nb_desc)
		return -EINVAL;
	/* Slot desc_head + offset is still in flight if it wraps onto an outstanding one. */
	if (offset >= txq->nb_desc - outstanding)
		return RTE_ETH_TX_DESC_FULL;
	return RTE_ETH_TX_DESC_DONE;
}

/* ---- control path ---------------------------------------------------- */

static void
txq_free(struct mana_txq *txq)
{
	if (txq == NULL)
		return;
	rte_free(txq->desc);
	rte_free(txq);
}

void
mana_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	txq_free(dev->data->tx_queues[qid]);
	dev->data->tx_queues[qid] = NULL;
}

int
mana_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		    unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct mana_priv *priv = mana_priv(dev);
	int sock = socket == (unsigned int)SOCKET_ID_ANY ? priv->socket : (int)socket;
	struct mana_txq *txq;

	if (nb_desc < MANA_MIN_DESC || nb_desc > priv->max_desc || !rte_is_power_of_2(nb_desc)) {
		PMD_DRV_LOG(ERR, "port %u: %u TX descriptors; allowed: a power of two %u..%u",
			    priv->port_id, nb_desc, MANA_MIN_DESC, priv->max_desc);
		return -EINVAL;
	}
	if (conf->tx_deferred_start) {
		PMD_DRV_LOG(ERR, "port %u: deferred TX queue start is not supported",
			    priv->port_id);
		return -EINVAL;
	}
	mana_tx_queue_release(dev, qid);
	txq = rte_zmalloc_socket("mana_txq", sizeof(*txq), RTE_CACHE_LINE_SIZE, sock);
	if (txq == NULL)
		return -ENOMEM;
	txq->desc = rte_zmalloc_socket("mana_tx_desc", sizeof(*txq->desc) * nb_desc,
				       RTE_CACHE_LINE_SIZE, sock);
	if (txq->desc == NULL) {
		txq_free(txq);
		return -ENOMEM;
	}
	txq->nb_desc = nb_desc;
	txq->desc_mask = nb_desc - 1;
	txq->max_sge = priv->max_tx_sge;
	txq->port_id = dev->data->port_id;
	txq->queue_id = qid;
	txq->offloads = conf->offloads | dev->data->dev_conf.txmode.offloads;
	txq->suppress = priv->tx_cqe_suppress;
	txq->priv = priv;
	txq->socket = sock;
	mana_mr_cache_init(&txq->mr_cache);
	dev->data->tx_queues[qid] = txq;
	return 0;
}

static int
txq_map(struct mana_txq *txq)
{
	struct manadv_qp dv_qp;
	struct manadv_cq dv_cq;
	struct manadv_obj obj = {
		.qp = { .in = txq->qp, .out = &dv_qp },
		.cq = { .in = txq->cq, .out = &dv_cq },
	};
	uint32_t vp;
	int ret;

	ret = mana_vs_init_obj(&obj, MANADV_OBJ_QP | MANADV_OBJ_CQ);
	if (ret != 0) {
		PMD_DRV_LOG(ERR, "TX queue %u: manadv_init_obj: %s", txq->queue_id, strerror(ret));
		return -ret;
	}
	if (dv_cq.count != txq->nb_desc || !rte_is_power_of_2(dv_qp.sq_size) ||
	    dv_qp.sq_size < GDMA_MIN_QUEUE_SIZE || dv_qp.db_page == NULL) {
		PMD_DRV_LOG(ERR, "TX queue %u: device rings do not match (CQ %u entries, SQ %u "
			    "bytes, %u descriptors)", txq->queue_id, dv_cq.count, dv_qp.sq_size,
			    txq->nb_desc);
		return -EIO;
	}
	txq->sq_buf = dv_qp.sq_buf;
	txq->sq_mask = dv_qp.sq_size - 1;
	txq->sq_bu = dv_qp.sq_size >> GDMA_WQE_BU_SHIFT;
	txq->sq_id = dv_qp.sq_id;
	txq->db_page = dv_qp.db_page;
	txq->cq_ring = dv_cq.buf;
	txq->cq_count = dv_cq.count;
	txq->cq_head = dv_cq.count;
	txq->cq_id = dv_cq.cq_id;
	vp = dv_qp.tx_vp_offset;
	txq->oob_dw0 = GDMA_SET(MANA_TX_VCQ_NUM, dv_cq.cq_id);
	txq->long_oob_only = vp > MANA_TX_SHORT_VP_OFFSET_MASK;
	/* Both vport offset fields carry the offset whenever it fits them. */
	txq->oob_dw1 = GDMA_SET(MANA_TX_VSQ_FRAME, mana_tx_vsq_frame(dv_qp.sq_id)) |
		(txq->long_oob_only ? 0 : GDMA_SET(MANA_TX_SHORT_VP_OFFSET, vp));
	txq->oob_long_dw3 = GDMA_SET(MANA_TX_LONG_VP_OFFSET, vp);
	txq->sq_head = 0;
	txq->sq_tail = 0;
	txq->desc_head = 0;
	txq->desc_tail = 0;
	return 0;
}

int
mana_txq_start(struct mana_priv *priv, struct mana_txq *txq)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.sq_sig_all = 0,
		.cap = {
			.max_send_wr = txq->nb_desc,
			.max_send_sge = txq->max_sge,
		},
	};
	int err;

	if (mana_set_buf_allocator(priv, txq->socket) != 0)
		return -EINVAL;
	txq->cq = mana_vs_create_cq(priv->ctx, txq->nb_desc, txq, NULL, 0);
	if (txq->cq == NULL) {
		err = errno != 0 ? errno : EIO;	/* before logging can change it */
		PMD_DRV_LOG(ERR, "port %u: TX queue %u: create CQ: %s", priv->port_id,
			    txq->queue_id, strerror(err));
		return -err;
	}
	attr.send_cq = txq->cq;
	attr.recv_cq = txq->cq;
	if (mana_set_buf_allocator(priv, txq->socket) != 0)
		return -EINVAL;
	txq->qp = mana_vs_create_qp(priv->parent_pd, &attr);
	if (txq->qp == NULL) {
		err = errno != 0 ? errno : EIO;
		PMD_DRV_LOG(ERR, "port %u: TX queue %u: create RAW QP: %s%s", priv->port_id,
			    txq->queue_id, strerror(err), err == ENODEV ?
			    " (is the kernel netdev of this port up?)" : "");
		return -err;
	}
	txq->offloads |= priv->dev_data->dev_conf.txmode.offloads;
	mana_mr_cache_init(&txq->mr_cache);
	return txq_map(txq);
}

/* Destroy QP then CQ, and return every in-flight mbuf. */
void
mana_txq_stop(struct mana_txq *txq)
{
	int ret;

	if (txq->qp != NULL) {
		ret = mana_vs_destroy_qp(txq->qp);
		if (ret != 0)
			PMD_DRV_LOG(ERR, "TX queue %u: destroy QP: %s", txq->queue_id,
				    strerror(abs(ret)));
		txq->qp = NULL;
	}
	/*
	 * The CQ ring is still mapped: count what the device completed before the
	 * QP went away, so packets that did go out are not missing from the stats.
	 */
	if (txq->cq_ring != NULL)
		tx_complete(txq, UINT32_MAX);
	if (txq->cq != NULL) {
		ret = mana_vs_destroy_cq(txq->cq);
		if (ret != 0)
			PMD_DRV_LOG(ERR, "TX queue %u: destroy CQ: %s", txq->queue_id,
				    strerror(abs(ret)));
		txq->cq = NULL;
	}
	while (txq->desc_tail != txq->desc_head) {
		rte_pktmbuf_free(txq->desc[txq->desc_tail & txq->desc_mask].mbuf);
		txq->desc_tail++;
	}
	txq->cq_ring = NULL;
	txq->sq_buf = NULL;
	txq->db_page = NULL;
}

void
mana_txq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_txq_info *qinfo)
{
	struct mana_txq *txq = dev->data->tx_queues[qid];

	qinfo->nb_desc = txq->nb_desc;
	qinfo->conf.offloads = txq->offloads;
}
