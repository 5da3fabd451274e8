/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Harness of the test_engine_*.c files: one model device in manual mode,
 * port 0, a TX queue and an RSS set of RX queues driven by hand as a driver
 * would (WQEs written into the rings, doorbells, CQEs read with the owner
 * bit), and the frames they send.
 */

#ifndef TEST_ENGINE_HARNESS_H
#define TEST_ENGINE_HARNESS_H

#include "fixture.h"
#include "frames.h"

#define SLOT		2048u
#define DEPTH		64u

/* ---- harness: one device, port 0, a TX queue and an RSS set of RX queues ---- */

struct rx_pkt {
	unsigned int wq;
	uint32_t type;		/* CQE type the packet came in */
	uint32_t len, hash, dw1, wqe_off;
	uint32_t ppi;		/* index in its CQE */
	const uint8_t *data;
	uint32_t slot_size;
};

struct h {
	struct fx f;
	struct fx_txq tx;
	struct fx_rxq rx;
	struct fx_buf txb, rxb;
	uint32_t tx_slot;
	uint32_t posted[FX_MAX_RXQ], done[FX_MAX_RXQ];
	uint32_t post_size[FX_MAX_RXQ][DEPTH];
	uint32_t post_bu[FX_MAX_RXQ][DEPTH];
	bool has_rx;
};

static inline bool
h_open_cfg(struct h *h, struct mana_model_config *cfg, unsigned int nrx, uint32_t tx_sge)
{
	memset(h, 0, sizeof(*h));
	if (!fx_open_cfg(&h->f, cfg, true))
		return false;
	if (!fx_txq_create(&h->f, 0, DEPTH, tx_sge, &h->tx))
		return false;
	if (!fx_buf_init(&h->f, &h->txb, DEPTH * SLOT))
		return false;
	if (nrx == 0)
		return true;
	h->has_rx = true;
	if (!fx_rxq_create(&h->f, 0, nrx, DEPTH, 4, fx_rss_key, NULL, &h->rx))
		return false;
	return fx_buf_init(&h->f, &h->rxb, (size_t)nrx * DEPTH * SLOT);
}

/* Port 0 on a loop wire (TX comes back to its own RX). */
static inline bool
h_open(struct h *h, unsigned int nrx, bool coalesce)
{
	struct mana_model_config cfg;

	fx_config(&cfg, 1);
	cfg.wire[0].type = MANA_MODEL_WIRE_LOOP;
	cfg.rx_coalesce = coalesce;
	return h_open_cfg(h, &cfg, nrx, 4);
}

static inline void
h_close(struct h *h)
{
	fx_txq_destroy(&h->tx);
	if (h->has_rx)
		fx_rxq_destroy(&h->rx);
	fx_buf_fini(&h->txb);
	if (h->has_rx)
		fx_buf_fini(&h->rxb);
	fx_close(&h->f);
}

/* Post n RX WQEs of one SGE of `size` bytes on WQ i and ring. */
static inline void
h_rx_post(struct h *h, unsigned int i, unsigned int n, uint32_t size)
{
	struct gdma_sge sge;
	uint32_t k, slot;

	for (k = 0; k < n; k++) {
		slot = h->posted[i] % DEPTH;
		sge = fx_sge(&h->rxb, ((size_t)i * DEPTH + slot) * SLOT, size);
		h->post_size[i][slot] = size;
		h->post_bu[i][slot] = fx_rx_write(&h->rx, i, &sge, 1);
		h->posted[i]++;
	}
	fx_rx_ring(&h->rx, i);
}

/* Collect every RX packet completed on any WQ, in CQ order per WQ. */
static inline unsigned int
h_rx_collect(struct h *h, struct rx_pkt *out, unsigned int max)
{
	struct gdma_cqe e;
	unsigned int i, n = 0, k;

	for (i = 0; i < h->rx.n; i++) {
		while (fx_cq_poll(&h->rx.cq[i], &e)) {
			uint32_t type = fx_cqe_type(&e);
			unsigned int npkt = 1;

			CHECK_EQ(GDMA_GET(e.info, GDMA_CQE_WQ_NUM), h->rx.dv[i].wq_id);
			CHECK_EQ(GDMA_GET(e.info, GDMA_CQE_IS_SQ), 0);
			if (!CHECK_MSG(type == CQE_RX_OKAY || type == CQE_RX_COALESCED_4 ||
				       type == CQE_RX_TRUNCATED, "RX CQE type %u", type))
				continue;
			if (type == CQE_RX_COALESCED_4) {
				for (npkt = 0; npkt < MANA_RXCQE_PPI_MAX; npkt++)
					if ((e.data[MANA_RXCQE_PKT_LEN_DW(npkt)] &
					     MANA_RXCQE_PKT_LEN_MASK) == 0)
						break;
				CHECK_MSG(npkt >= 1, "coalesced CQE with no packet");
			}
			/* rx_wqe_offset = BU index of the first WQE x 32 (4.4 model policy) */
			CHECK_EQ(e.data[MANA_RXCQE_WQE_OFFSET_DW],
				 h->post_bu[i][h->done[i] % DEPTH] * 32u);
			for (k = 0; k < npkt; k++) {
				uint32_t slot = h->done[i] % DEPTH;

				if (n < max) {
					out[n].wq = i;
					out[n].type = type;
					out[n].len = e.data[MANA_RXCQE_PKT_LEN_DW(k)] &
						     MANA_RXCQE_PKT_LEN_MASK;
					out[n].hash = e.data[MANA_RXCQE_PKT_HASH_DW(k)];
					out[n].dw1 = e.data[1];
					out[n].wqe_off = e.data[MANA_RXCQE_WQE_OFFSET_DW];
					out[n].ppi = k;
					out[n].data = h->rxb.base +
						      ((size_t)i * DEPTH + slot) * SLOT;
					out[n].slot_size = h->post_size[i][slot];
				}
				h->done[i]++;
				n++;
			}
		}
	}
	return n;
}

/* Copy a frame into the next TX slot, post it with oob, ring; returns its BU index. */
static inline uint32_t
h_tx(struct h *h, const uint8_t *frame, uint32_t len, const struct mana_tx_oob *oob,
     bool long_oob)
{
	struct mana_tx_oob def;
	struct gdma_sge sge;
	uint32_t slot = h->tx_slot++ % DEPTH, at;

	memcpy(h->txb.base + slot * SLOT, frame, len);
	sge = fx_sge(&h->txb, slot * SLOT, len);
	if (oob == NULL) {
		fx_tx_oob(&h->tx, &def);
		oob = &def;
	}
	at = fx_tx_write(&h->tx, oob, long_oob, &sge, 1);
	fx_tx_ring(&h->tx);
	return at;
}

/* Exactly one TX CQE expected: its type (0 if none). */
static inline uint32_t
h_tx_cqe(struct h *h, uint32_t *vendor_err, uint32_t *wqe_off)
{
	struct gdma_cqe e;

	if (!fx_cq_poll(&h->tx.cq, &e))
		return 0;
	CHECK_EQ(GDMA_GET(e.info, GDMA_CQE_WQ_NUM), h->tx.dv.sq_id);
	CHECK_EQ(GDMA_GET(e.info, GDMA_CQE_IS_SQ), 1);
	if (vendor_err != NULL)
		*vendor_err = GDMA_GET(e.data[0], MANA_CQE_VENDOR_ERR);
	if (wqe_off != NULL)
		*wqe_off = GDMA_GET(e.data[2], MANA_TXCQE_WQE_OFFSET);
	return fx_cqe_type(&e);
}

static inline size_t
udp_frame(uint8_t *buf, uint16_t sport, uint16_t plen)
{
	struct tf_spec s;

	tf_spec_init(&s);
	s.sport = sport;
	s.payload_len = plen;
	s.payload_seed = (uint8_t)sport;
	return tf_build(buf, &s);
}

/* n frames of one flow arrive on port 0, each with its sequence number as last byte. */
static inline void
inject_burst(struct h *h, unsigned int n, uint16_t plen)
{
	uint8_t fr[2048];
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* one flow (one queue, one dword 1); a sequence number in the payload */
		size_t len = udp_frame(fr, 4242, plen);

		fr[len - 1] = (uint8_t)i;
		CHECK_EQ(mana_model_inject_rx(h->f.m, 0, fr, (uint32_t)len), 0);
	}
}

#endif /* TEST_ENGINE_HARNESS_H */
