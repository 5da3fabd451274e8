/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The device engine, driven by hand (manual mode, mana_model_step): WQEs
 * written into the rings from manadv_init_obj exactly as a driver would,
 * doorbells rung, CQEs read with the owner-bit protocol. Checks CQE fields,
 * owner bits over thousands of laps, SGL wrap, MR and OOB violations, every
 * TX error type, CQE suppression, RX delivery, RSS queue choice and hash,
 * hash types, checksum bits, coalescing, truncation, VLAN insertion and
 * checksum offload (contract 3, 4, 6, 14).
 */

#include "fixture.h"
#include "frames.h"

/* DPDK 22.11's default key (contract 6). */
static const uint8_t key[40] = {
	0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2, 0x83, 0x19, 0xdb, 0x1a,
	0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9, 0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7,
	0xd9, 0x56, 0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

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

static bool
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
	if (!fx_rxq_create(&h->f, 0, nrx, DEPTH, 4, key, NULL, &h->rx))
		return false;
	return fx_buf_init(&h->f, &h->rxb, (size_t)nrx * DEPTH * SLOT);
}

/* Port 0 on a loop wire (TX comes back to its own RX). */
static bool
h_open(struct h *h, unsigned int nrx, bool coalesce)
{
	struct mana_model_config cfg;

	fx_config(&cfg, 1);
	cfg.wire[0].type = MANA_MODEL_WIRE_LOOP;
	cfg.rx_coalesce = coalesce;
	return h_open_cfg(h, &cfg, nrx, 4);
}

static void
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
static void
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
static unsigned int
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
static uint32_t
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
static uint32_t
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

static size_t
udp_frame(uint8_t *buf, uint16_t sport, uint16_t plen)
{
	struct tf_spec s;

	tf_spec_init(&s);
	s.sport = sport;
	s.payload_len = plen;
	s.payload_seed = (uint8_t)sport;
	return tf_build(buf, &s);
}

/* ---- TX -------------------------------------------------------------------- */

static void
test_tx_cqe_fields(void)
{
	struct mana_model_port_stats st0, st;
	struct mana_tx_oob oob;
	struct gdma_sge sge[2];
	struct gdma_cqe e;
	uint8_t fr[256];
	uint32_t at[3];
	size_t len = udp_frame(fr, 1, 60);
	unsigned int i;
	struct h h;

	REQUIRE(h_open(&h, 0, true));
	st0 = fx_stats(&h.f, 0);
	memcpy(h.txb.base, fr, len);
	/* 1 SGE short OOB (1 BU), 2 SGEs (2 BU), long OOB (2 BU) */
	fx_tx_oob(&h.tx, &oob);
	sge[0] = fx_sge(&h.txb, 0, (uint32_t)len);
	at[0] = fx_tx_write(&h.tx, &oob, false, sge, 1);
	sge[0] = fx_sge(&h.txb, 0, 20);
	sge[1] = fx_sge(&h.txb, 20, (uint32_t)len - 20);
	at[1] = fx_tx_write(&h.tx, &oob, false, sge, 2);
	fx_tx_oob_long(&h.tx, &oob);
	sge[0] = fx_sge(&h.txb, 0, (uint32_t)len);
	at[2] = fx_tx_write(&h.tx, &oob, true, sge, 1);
	CHECK_EQ(at[1], 1);
	CHECK_EQ(at[2], 3);
	CHECK_EQ(h.tx.head, 5);
	fx_tx_ring(&h.tx);
	fx_run(&h.f);
	for (i = 0; i < 3; i++) {
		uint32_t c = h.tx.cq.c;

		if (!CHECK(fx_cq_poll(&h.tx.cq, &e)))
			break;
		CHECK_EQ(GDMA_GET(e.info, GDMA_CQE_OWNER), (c / DEPTH) & 7);
		CHECK_EQ(fx_cqe_type(&e), CQE_TX_OKAY);
		CHECK_EQ(GDMA_GET(e.data[0], MANA_CQE_VENDOR_ERR), 0);
		CHECK_EQ(GDMA_GET(e.info, GDMA_CQE_WQ_NUM), h.tx.dv.sq_id);
		CHECK_EQ(GDMA_GET(e.info, GDMA_CQE_IS_SQ), 1);
		CHECK_EQ(GDMA_GET(e.data[2], MANA_TXCQE_WQE_OFFSET), at[i]);
		CHECK_EQ(GDMA_GET(e.data[2], MANA_TXCQE_SGL_OFFSET), 0);
		CHECK_EQ(e.data[MANA_TXCQE_DATA_OFFSET_DW], 0);
	}
	CHECK(!fx_cq_poll(&h.tx.cq, &e));
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.tx_frames - st0.tx_frames, 3);
	CHECK_EQ(st.tx_bytes - st0.tx_bytes, 3 * len);
	h_close(&h);
}

/* 5000 laps of a 64-entry CQ: owner == (C / count) & 7 for every CQE. */
static void
test_owner_laps(void)
{
	struct mana_model_config cfg;
	struct mana_tx_oob oob;
	struct gdma_sge sge;
	struct gdma_cqe e;
	uint8_t fr[128];
	size_t len = udp_frame(fr, 7, 20);
	unsigned int lap, k, bad = 0;
	uint32_t c;
	struct h h;

	fx_config(&cfg, 1);	/* wire none: frames counted and dropped */
	REQUIRE(h_open_cfg(&h, &cfg, 0, 1));
	memcpy(h.txb.base, fr, len);
	sge = fx_sge(&h.txb, 0, (uint32_t)len);
	fx_tx_oob(&h.tx, &oob);
	for (lap = 0; lap < 5000 && bad == 0; lap++) {
		for (k = 0; k < DEPTH; k++)
			fx_tx_write(&h.tx, &oob, false, &sge, 1);
		fx_tx_ring(&h.tx);
		fx_run(&h.f);
		for (k = 0; k < DEPTH; k++) {
			c = h.tx.cq.c;
			if (!fx_cq_poll(&h.tx.cq, &e)) {
				UNIT_FAIL("lap %u: CQE %u missing (C=%u)", lap, k, c);
				bad++;
				break;
			}
			if (GDMA_GET(e.info, GDMA_CQE_OWNER) != ((c / DEPTH) & 7) ||
			    fx_cqe_type(&e) != CQE_TX_OKAY ||
			    GDMA_GET(e.data[2], MANA_TXCQE_WQE_OFFSET) !=
			    ((lap * DEPTH + k) & GDMA_QUEUE_OFFSET_MASK)) {
				UNIT_FAIL("lap %u CQE %u: owner %u type %u wqe_off %u",
					  lap, k, GDMA_GET(e.info, GDMA_CQE_OWNER),
					  fx_cqe_type(&e),
					  GDMA_GET(e.data[2], MANA_TXCQE_WQE_OFFSET));
				bad++;
				break;
			}
		}
		if (fx_cq_poll(&h.tx.cq, &e)) {
			UNIT_FAIL("lap %u: extra CQE", lap);
			bad++;
		}
	}
	CHECK_EQ(lap, 5000);
	CHECK_EQ(h.tx.cq.c, DEPTH + 5000 * DEPTH);
	CHECK_EQ(fx_stats(&h.f, 0).tx_frames, 5000 * DEPTH);
	h_close(&h);
}

/* A WQE whose SGL crosses the ring end (header at the last BU, SGEs at 0). */
static void
test_sgl_wrap(void)
{
	struct mana_model_config cfg;
	struct mana_tx_oob oob;
	struct gdma_sge sge[3];
	struct rx_pkt p;
	uint8_t fr[512];
	size_t len;
	uint32_t ring_bu, at;
	struct h h;

	fx_config(&cfg, 1);
	cfg.wire[0].type = MANA_MODEL_WIRE_LOOP;
	cfg.rx_coalesce = false;
	REQUIRE(h_open_cfg(&h, &cfg, 1, 3));
	/* SQ of 64 x 3-SGE WQEs (64 B) = 4096 B = 128 BUs */
	ring_bu = h.tx.dv.sq_size / GDMA_WQE_BU_SIZE;
	CHECK_EQ(h.tx.dv.sq_size, 4096);
	len = udp_frame(fr, 9, 300);
	fx_tx_oob(&h.tx, &oob);
	/* fill up to the last BU with 1-BU WQEs (no RX posted: dropped on arrival) */
	while (h.tx.head < ring_bu - 1) {
		unsigned int k, n = ring_bu - 1 - h.tx.head;

		if (n > DEPTH - 1)
			n = DEPTH - 1;
		for (k = 0; k < n; k++)
			h_tx(&h, fr, (uint32_t)len, &oob, false);
		fx_run(&h.f);
		CHECK_EQ(fx_cq_drain(&h.tx.cq), n);
	}
	CHECK_EQ(h.tx.head, ring_bu - 1);
	h_rx_post(&h, 0, 1, SLOT);
	memcpy(h.txb.base, fr, 100);
	memcpy(h.txb.base + 4096, fr + 100, 100);
	memcpy(h.txb.base + 8192, fr + 200, len - 200);
	sge[0] = fx_sge(&h.txb, 0, 100);
	sge[1] = fx_sge(&h.txb, 4096, 100);
	sge[2] = fx_sge(&h.txb, 8192, (uint32_t)len - 200);
	at = fx_tx_write(&h.tx, &oob, false, sge, 3);
	CHECK_EQ(at, ring_bu - 1);
	fx_tx_ring(&h.tx);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	REQUIRE_EQ(h_rx_collect(&h, &p, 1), 1);
	CHECK_EQ(p.type, CQE_RX_OKAY);
	CHECK_EQ(p.len, len);
	CHECK_MEM(p.data, fr, len);
	h_close(&h);
}

static void
test_tx_mr_violations(void)
{
	struct mana_model_port_stats st0, st;
	struct mana_tx_oob oob;
	struct gdma_sge sge;
	struct ibv_pd *pd2;
	struct ibv_mr *mr2;
	uint8_t fr[128], *other;
	uint32_t verr = 0;
	size_t len = udp_frame(fr, 3, 30);
	struct h h;

	REQUIRE(h_open(&h, 0, true));
	st0 = fx_stats(&h.f, 0);
	fx_tx_oob(&h.tx, &oob);
	memcpy(h.txb.base, fr, len);
	/* unknown lkey */
	sge = fx_sge(&h.txb, 0, (uint32_t)len);
	sge.mem_key ^= 0x5A5A;
	fx_tx_write(&h.tx, &oob, false, &sge, 1);
	fx_tx_ring(&h.tx);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, &verr, NULL), CQE_TX_HDR_PROCESSING_ERROR);
	CHECK_NE(verr, 0);
	/* past the end of the MR */
	sge = fx_sge(&h.txb, h.txb.len - 10, (uint32_t)len);
	fx_tx_write(&h.tx, &oob, false, &sge, 1);
	fx_tx_ring(&h.tx);
	fx_run(&h.f);
	verr = 0;
	CHECK_EQ(h_tx_cqe(&h, &verr, NULL), CQE_TX_HDR_PROCESSING_ERROR);
	CHECK_NE(verr, 0);
	/* before the start of the MR */
	sge = fx_sge(&h.txb, 0, (uint32_t)len);
	sge.address -= 16;
	fx_tx_write(&h.tx, &oob, false, &sge, 1);
	fx_tx_ring(&h.tx);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_HDR_PROCESSING_ERROR);
	/* an MR of another PD (14 #18: the queue's PD) */
	pd2 = mana_vs_alloc_pd(h.f.ctx);
	REQUIRE_NOT_NULL(pd2);
	other = aligned_alloc(4096, 4096);
	REQUIRE_NOT_NULL(other);
	memcpy(other, fr, len);
	mr2 = mana_vs_reg_mr(pd2, other, 4096, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE_NOT_NULL(mr2);
	sge.address = (uintptr_t)other;
	sge.mem_key = mr2->lkey;
	sge.size = (uint32_t)len;
	fx_tx_write(&h.tx, &oob, false, &sge, 1);
	fx_tx_ring(&h.tx);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_HDR_PROCESSING_ERROR);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.tx_err[CQE_TX_HDR_PROCESSING_ERROR - 32] -
		 st0.tx_err[CQE_TX_HDR_PROCESSING_ERROR - 32], 4);
	CHECK_EQ(st.tx_frames, st0.tx_frames);
	/* the queue goes on */
	h_tx(&h, fr, (uint32_t)len, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	CHECK_EQ(mana_vs_dereg_mr(mr2), 0);
	CHECK_EQ(mana_vs_dealloc_pd(pd2), 0);
	free(other);
	h_close(&h);
}

/* Send one WQE with a tweaked OOB / header; return the CQE type. */
static uint32_t
tx_tweaked(struct h *h, const struct mana_tx_oob *oob, uint32_t oob_size, uint32_t dw1_or,
	   uint32_t nsge, const uint8_t *fr, uint32_t len)
{
	struct gdma_sge sge[32];
	uint32_t dw1, i, per = len / nsge;

	memcpy(h->txb.base, fr, len);
	for (i = 0; i < nsge; i++)
		sge[i] = fx_sge(&h->txb, i * per, i == nsge - 1 ? len - i * per : per);
	dw1 = GDMA_SET(GDMA_WQE_NUM_SGE, nsge) | GDMA_SET(GDMA_WQE_OOB_DIV4, oob_size / 4) |
	      dw1_or;
	h->tx.head += fx_wqe_write(h->tx.dv.sq_buf, h->tx.dv.sq_size, h->tx.head, dw1, oob,
				   oob_size, sge, nsge);
	fx_tx_ring(&h->tx);
	fx_run(&h->f);
	return h_tx_cqe(h, NULL, NULL);
}

static void
test_tx_invalid_oob(void)
{
	struct mana_model_port_stats st0, st;
	struct mana_tx_oob good, o;
	uint8_t fr[128];
	uint32_t len = (uint32_t)udp_frame(fr, 4, 40);
	struct h h;

	REQUIRE(h_open(&h, 0, true));
	st0 = fx_stats(&h.f, 0);
	fx_tx_oob(&h.tx, &good);
	CHECK_EQ(tx_tweaked(&h, &good, 8, 0, 1, fr, len), CQE_TX_OKAY);
	/* pkt_fmt 2 and 3 */
	o = good;
	o.dw0 |= GDMA_SET(MANA_TX_PKT_FMT, 2);
	CHECK_EQ(tx_tweaked(&h, &o, 8, 0, 1, fr, len), CQE_TX_INVALID_OOB);
	o = good;
	o.dw0 |= GDMA_SET(MANA_TX_PKT_FMT, 3);
	CHECK_EQ(tx_tweaked(&h, &o, 8, 0, 1, fr, len), CQE_TX_INVALID_OOB);
	/* long format in an 8-byte OOB; short format in a 24-byte OOB */
	o = good;
	o.dw0 |= GDMA_SET(MANA_TX_PKT_FMT, MANA_TX_PKT_FMT_LONG);
	CHECK_EQ(tx_tweaked(&h, &o, 8, 0, 1, fr, len), CQE_TX_INVALID_OOB);
	CHECK_EQ(tx_tweaked(&h, &good, 24, 0, 1, fr, len), CQE_TX_INVALID_OOB);
	/* vcq_num not the SQ's CQ */
	o = good;
	o.dw0 = (o.dw0 & ~GDMA_SET(MANA_TX_VCQ_NUM, 0xFFFFFF)) |
		GDMA_SET(MANA_TX_VCQ_NUM, h.tx.cq.dv.cq_id + 1);
	CHECK_EQ(tx_tweaked(&h, &o, 8, 0, 1, fr, len), CQE_TX_INVALID_OOB);
	/* vsq_frame not (sq_id >> 10) */
	o = good;
	o.dw1 ^= GDMA_SET(MANA_TX_VSQ_FRAME, 1);
	CHECK_EQ(tx_tweaked(&h, &o, 8, 0, 1, fr, len), CQE_TX_INVALID_OOB);
	/* reserved header bits 14/15 */
	CHECK_EQ(tx_tweaked(&h, &good, 8, 1u << 14, 1, fr, len), CQE_TX_INVALID_OOB);
	/* 30 SGEs is fine */
	CHECK_EQ(tx_tweaked(&h, &good, 8, 0, 30, fr, 60), CQE_TX_OKAY);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.tx_err[CQE_TX_INVALID_OOB - 32] - st0.tx_err[CQE_TX_INVALID_OOB - 32], 7);
	CHECK_EQ(st.tx_frames - st0.tx_frames, 2);
	/* vport offset wrong: short and long form */
	o = good;
	o.dw1 ^= GDMA_SET(MANA_TX_SHORT_VP_OFFSET, 1);
	CHECK_EQ(tx_tweaked(&h, &o, 8, 0, 1, fr, len), CQE_TX_VPORT_IDX_OUT_OF_RANGE);
	fx_tx_oob_long(&h.tx, &o);
	CHECK_EQ(tx_tweaked(&h, &o, 24, 0, 1, fr, len), CQE_TX_OKAY);
	o.dw3 ^= GDMA_SET(MANA_TX_LONG_VP_OFFSET, 0x40);
	CHECK_EQ(tx_tweaked(&h, &o, 24, 0, 1, fr, len), CQE_TX_VPORT_IDX_OUT_OF_RANGE);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.tx_err[CQE_TX_VPORT_IDX_OUT_OF_RANGE - 32] -
		 st0.tx_err[CQE_TX_VPORT_IDX_OUT_OF_RANGE - 32], 2);
	CHECK_EQ(tx_tweaked(&h, &good, 8, 0, 1, fr, len), CQE_TX_OKAY);
	h_close(&h);
}

/*
 * OOB size code 3 (12 bytes): CQE_TX_INVALID_OOB (14 #17). What follows is
 * not checked: the WQE's size is undefined for that code, so a device may
 * not find the next WQE (the model stops the SQ).
 */
static void
test_tx_bad_oob_size(void)
{
	struct mana_tx_oob good;
	uint8_t fr[128];
	uint32_t len = (uint32_t)udp_frame(fr, 4, 40);
	struct h h;

	REQUIRE(h_open(&h, 0, true));
	fx_tx_oob(&h.tx, &good);
	CHECK_EQ(tx_tweaked(&h, &good, 12, 0, 1, fr, len), CQE_TX_INVALID_OOB);
	CHECK_EQ(fx_stats(&h.f, 0).tx_frames, 0);
	h_close(&h);
}

/*
 * 14 #17: num_sge > 30 completes with CQE_TX_INVALID_OOB. The WQE's size is
 * well defined (8 + 8 + 16 x 31 = 512 B), so the queue goes on.
 */
static void
test_tx_too_many_sges(void)
{
	struct mana_model_port_stats st0, st;
	struct mana_tx_oob good;
	uint8_t fr[128];
	struct h h;

	udp_frame(fr, 4, 40);
	REQUIRE(h_open(&h, 0, true));
	st0 = fx_stats(&h.f, 0);
	fx_tx_oob(&h.tx, &good);
	CHECK_EQ(tx_tweaked(&h, &good, 8, 0, 31, fr, 62), CQE_TX_INVALID_OOB);
	CHECK_EQ(tx_tweaked(&h, &good, 8, 0, 1, fr, 62), CQE_TX_OKAY);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.tx_err[CQE_TX_INVALID_OOB - 32] - st0.tx_err[CQE_TX_INVALID_OOB - 32], 1);
	CHECK_EQ(st.queue_errors, st0.queue_errors);
	h_close(&h);
}

static void
test_tx_mtu(void)
{
	struct mana_model_port_stats st0, st;
	uint8_t fr[9100];
	size_t small;
	struct h h;

	memset(fr, 0, sizeof(fr));
	small = udp_frame(fr, 5, 1472);	/* 1514 bytes */
	REQUIRE(h_open(&h, 0, true));
	st0 = fx_stats(&h.f, 0);
	CHECK_EQ(small, 1514);
	h_tx(&h, fr, (uint32_t)small, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	h_tx(&h, fr, 1600, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_MTU_DROP);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.tx_err[CQE_TX_MTU_DROP - 32] - st0.tx_err[CQE_TX_MTU_DROP - 32], 1);
	CHECK_EQ(st.tx_frames - st0.tx_frames, 1);
	/* a larger MTU lets it through */
	CHECK_EQ(mana_model_set_mtu(h.f.m, 0, 9000), 0);
	h_tx(&h, fr, 1600, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	h_close(&h);
}

static void
test_tx_injected(void)
{
	struct mana_model_port_stats st0, st;
	uint8_t fr[128];
	uint32_t len = (uint32_t)udp_frame(fr, 6, 40), type;
	struct h h;

	REQUIRE(h_open(&h, 0, true));
	st0 = fx_stats(&h.f, 0);
	for (type = 33; type <= 41; type++) {
		CHECK_EQ(mana_model_inject_tx_error(h.f.m, 0, type, 2), 0);
		h_tx(&h, fr, len, NULL, false);
		h_tx(&h, fr, len, NULL, false);
		h_tx(&h, fr, len, NULL, false);
		fx_run(&h.f);
		CHECK_EQ(h_tx_cqe(&h, NULL, NULL), type);
		CHECK_EQ(h_tx_cqe(&h, NULL, NULL), type);
		CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
		CHECK_EQ(h_tx_cqe(&h, NULL, NULL), 0);
	}
	st = fx_stats(&h.f, 0);
	for (type = 33; type <= 41; type++)
		CHECK_EQ(st.tx_err[type - 32] - st0.tx_err[type - 32], 2);
	CHECK_EQ(st.tx_frames - st0.tx_frames, 9);
	CHECK(mana_model_inject_tx_error(h.f.m, 0, 32, 1) < 0);
	CHECK(mana_model_inject_tx_error(h.f.m, 0, 42, 1) < 0);
	CHECK(mana_model_inject_tx_error(h.f.m, 1, 33, 1) < 0);	/* no port 1 */
	h_close(&h);
}

static void
test_cqe_suppression(void)
{
	struct mana_model_port_stats st0, st;
	struct mana_tx_oob oob, bad;
	uint8_t fr[128];
	uint32_t len = (uint32_t)udp_frame(fr, 8, 40), off;
	struct h h;

	REQUIRE(h_open(&h, 0, true));
	st0 = fx_stats(&h.f, 0);
	fx_tx_oob(&h.tx, &oob);
	oob.dw0 |= GDMA_SET(MANA_TX_SUPPRESS_CQE, 1);
	h_tx(&h, fr, len, &oob, false);
	h_tx(&h, fr, len, &oob, false);
	off = h_tx(&h, fr, len, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, &off), CQE_TX_OKAY);
	CHECK_EQ(off, 2);	/* the unsuppressed one */
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), 0);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.tx_frames - st0.tx_frames, 3);
	/* an error CQE arrives even when suppressed (4.6) */
	bad = oob;
	bad.dw1 ^= GDMA_SET(MANA_TX_VSQ_FRAME, 1);
	h_tx(&h, fr, len, &bad, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, &off), CQE_TX_INVALID_OOB);
	CHECK_EQ(off, 3);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), 0);
	h_close(&h);
}

/* ---- RX -------------------------------------------------------------------- */

static void
test_rx_loop_delivery(void)
{
	struct mana_model_port_stats st0, st;
	struct tf_spec s;
	struct rx_pkt p;
	uint8_t fr[1600];
	uint32_t ht, hash;
	size_t len;
	struct h h;

	REQUIRE(h_open(&h, 1, true));
	st0 = fx_stats(&h.f, 0);
	tf_spec_init(&s);
	s.proto = TF_PROTO_TCP;
	s.payload_len = 1000;
	len = tf_build(fr, &s);
	hash = tf_rss_hash(key, &s, &ht);
	h_rx_post(&h, 0, 4, SLOT);
	h_tx(&h, fr, (uint32_t)len, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	REQUIRE_EQ(h_rx_collect(&h, &p, 1), 1);
	CHECK_EQ(p.type, CQE_RX_OKAY);
	CHECK_EQ(p.len, len);
	CHECK_MEM(p.data, fr, len);
	CHECK_EQ(p.hash, hash);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_HASHTYPE), MANA_HASH_L4);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_IP_CSUM_OK), 1);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_TCP_CSUM_OK), 1);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_PRESENT), 0);
	CHECK_EQ(p.wqe_off, 0);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_frames - st0.rx_frames, 1);
	CHECK_EQ(st.rx_bytes - st0.rx_bytes, len);
	/* the second frame lands in the second WQE (rx_wqe_offset 32) */
	h_tx(&h, fr, (uint32_t)len, NULL, false);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, &p, 1), 1);
	CHECK_EQ(p.wqe_off, 32);
	h_close(&h);
}

/* RSS over 2^n WQs (n = 0..3): queue = WQ[(hash & 63) mod 2^n], hash = Toeplitz. */
static void
test_rss_spread(void)
{
	struct rx_pkt pk[64];
	struct tf_spec s;
	uint8_t fr[256];
	unsigned int n, i, got, hit[FX_MAX_RXQ];
	uint32_t want_hash[64], ht;
	struct h h;

	for (n = 1; n <= 8; n *= 2) {
		REQUIRE(h_open(&h, n, false));
		for (i = 0; i < n; i++)
			h_rx_post(&h, i, DEPTH, SLOT);
		memset(hit, 0, sizeof(hit));
		for (i = 0; i < 64; i++) {
			size_t len;

			tf_spec_init(&s);
			s.proto = i & 1 ? TF_PROTO_TCP : TF_PROTO_UDP;
			s.sport = (uint16_t)(1000 + 37 * i);
			s.dport = (uint16_t)(80 + i);
			tf_ip4(s.src, 10, 1, (uint8_t)i, 7);
			s.payload_len = 16;
			s.payload_seed = (uint8_t)i;
			len = tf_build(fr, &s);
			want_hash[i] = tf_rss_hash(key, &s, &ht);
			CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
			fx_run(&h.f);
			got = h_rx_collect(&h, pk, 1);
			if (!CHECK_MSG(got == 1, "n=%u frame %u: %u packets", n, i, got))
				continue;
			CHECK_EQ(pk[0].hash, want_hash[i]);
			CHECK_MSG(pk[0].wq == (want_hash[i] & 63) % n,
				  "n=%u frame %u hash 0x%08x: WQ %u, expected %u", n, i,
				  want_hash[i], pk[0].wq, (want_hash[i] & 63) % n);
			CHECK_EQ(GDMA_GET(pk[0].dw1, MANA_RXCQE_HASHTYPE), MANA_HASH_L4);
			CHECK_EQ(pk[0].data[len - 1], (uint8_t)(i + 15));
			hit[pk[0].wq]++;
			h_rx_post(&h, pk[0].wq, 1, SLOT);	/* refill, as a driver does */
		}
		/* 64 flows reach every queue */
		for (i = 0; i < n; i++)
			CHECK_MSG(hit[i] > 0, "n=%u: WQ %u got nothing", n, i);
		/* non-IP: the default WQ (the last), hash 0, type 0 */
		{
			static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 5 };
			uint8_t sip[4] = { 1, 1, 1, 1 }, tip[4] = { 2, 2, 2, 2 };
			size_t len;

			memset(fr, 0, 60);
			tf_build_arp(fr, mac, sip, tip);
			len = 60;	/* padded to the Ethernet minimum */
			CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
			fx_run(&h.f);
			got = h_rx_collect(&h, pk, 1);
			if (CHECK_MSG(got == 1, "n=%u: non-IP frame: %u packets (%s)", n, got,
				      mana_model_last_error(h.f.m))) {
				CHECK_EQ(pk[0].wq, n - 1);
				CHECK_EQ(pk[0].hash, 0);
				CHECK_EQ(GDMA_GET(pk[0].dw1, MANA_RXCQE_HASHTYPE), 0);
				CHECK_EQ(pk[0].len, len);
			}
		}
		h_close(&h);
	}
}

struct rxcase {
	const char *name;
	bool ipv6;
	uint8_t proto;
	int corrupt;		/* 0 none, 1 L4 payload, 2 IPv4 header checksum */
	uint32_t hashtype;
	uint32_t ok_bits, bad_bits;	/* dw1 checksum flags that must be set */
	uint32_t optional;		/* flags that may be set (anything else: clear) */
};

#define B(f) GDMA_SET(MANA_RXCQE_##f, 1)
#define CSUM_BITS (B(IP_CSUM_OK) | B(IP_CSUM_BAD) | B(TCP_CSUM_OK) | B(TCP_CSUM_BAD) | \
		   B(UDP_CSUM_OK) | B(UDP_CSUM_BAD) | B(OUTER_IP_CSUM_OK) | B(OUTER_IP_CSUM_BAD))

static const struct rxcase rxcases[] = {
	{ "tcp4", false, TF_PROTO_TCP, 0, MANA_HASH_L4, B(IP_CSUM_OK) | B(TCP_CSUM_OK), 0, 0 },
	{ "udp4", false, TF_PROTO_UDP, 0, MANA_HASH_L4, B(IP_CSUM_OK) | B(UDP_CSUM_OK), 0, 0 },
	{ "tcp6", true, TF_PROTO_TCP, 0, MANA_HASH_L4, B(TCP_CSUM_OK), 0, 0 },
	{ "udp6", true, TF_PROTO_UDP, 0, MANA_HASH_L4, B(UDP_CSUM_OK), 0, 0 },
	{ "icmp4", false, TF_PROTO_ICMP, 0, MANA_HASH_L3, B(IP_CSUM_OK), 0, 0 },
	{ "icmp6", true, TF_PROTO_ICMP6, 0, MANA_HASH_L3, 0, 0, 0 },
	{ "tcp4-bad-l4", false, TF_PROTO_TCP, 1, MANA_HASH_L4, B(IP_CSUM_OK), B(TCP_CSUM_BAD),
	  0 },
	{ "udp4-bad-l4", false, TF_PROTO_UDP, 1, MANA_HASH_L4, B(IP_CSUM_OK), B(UDP_CSUM_BAD),
	  0 },
	{ "tcp6-bad-l4", true, TF_PROTO_TCP, 1, MANA_HASH_L4, 0, B(TCP_CSUM_BAD), 0 },
	{ "udp6-bad-l4", true, TF_PROTO_UDP, 1, MANA_HASH_L4, 0, B(UDP_CSUM_BAD), 0 },
	/* whether L4 is still verified under a bad IP header is not specified */
	{ "udp4-bad-ip", false, TF_PROTO_UDP, 2, MANA_HASH_L4, 0, B(IP_CSUM_BAD),
	  B(UDP_CSUM_OK) },
};

static void
test_rx_hashtype_csum(void)
{
	struct rx_pkt p;
	struct tf_spec s;
	uint8_t fr[512];
	size_t i, len;
	uint32_t ht, hash;
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	h_rx_post(&h, 0, DEPTH, SLOT);
	for (i = 0; i < sizeof(rxcases) / sizeof(rxcases[0]); i++) {
		const struct rxcase *c = &rxcases[i];
		uint32_t bits;

		tf_spec_init(&s);
		s.ipv6 = c->ipv6;
		s.proto = c->proto;
		s.payload_len = 100;
		if (c->ipv6) {
			tf_ip6(s.src, "fd00::1");
			tf_ip6(s.dst, "fd00::2");
		}
		len = tf_build(fr, &s);
		if (c->corrupt == 1)
			fr[len - 3] ^= 0x21;
		if (c->corrupt == 2)
			fr[tf_l3_off(&s) + 10] ^= 0x01;
		hash = tf_rss_hash(key, &s, &ht);
		CHECK_EQ(ht, c->hashtype);
		CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
		fx_run(&h.f);
		if (!CHECK_MSG(h_rx_collect(&h, &p, 1) == 1, "%s: not delivered", c->name))
			continue;
		CHECK_MSG(GDMA_GET(p.dw1, MANA_RXCQE_HASHTYPE) == c->hashtype,
			  "%s: hashtype 0x%x", c->name, GDMA_GET(p.dw1, MANA_RXCQE_HASHTYPE));
		CHECK_MSG(p.hash == hash, "%s: hash 0x%08x, expected 0x%08x", c->name, p.hash,
			  hash);
		bits = p.dw1 & CSUM_BITS & ~c->optional;
		CHECK_MSG(bits == (c->ok_bits | c->bad_bits),
			  "%s: checksum bits 0x%08x, expected 0x%08x", c->name, bits,
			  c->ok_bits | c->bad_bits);
		CHECK_MSG(p.len == len && memcmp(p.data, fr, len) == 0, "%s: frame altered",
			  c->name);
	}
	h_close(&h);
}

static void
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

static void
test_rx_coalescing(void)
{
	struct mana_model_port_stats st0, st;
	struct rx_pkt p[16];
	unsigned int n, i, type2 = 0;
	struct h h;

	REQUIRE(h_open(&h, 1, true));
	st0 = fx_stats(&h.f, 0);
	h_rx_post(&h, 0, 16, SLOT);
	inject_burst(&h, 6, 50);
	fx_run(&h.f);
	n = h_rx_collect(&h, p, 16);
	CHECK_EQ(n, 6);
	for (i = 0; i < n && i < 16; i++) {
		CHECK_MSG(p[i].data[p[i].len - 1] == i, "packet %u out of order", i);
		CHECK_EQ(p[i].len, 14 + 20 + 8 + 50);
		if (p[i].type == CQE_RX_COALESCED_4 && p[i].ppi == 0)
			type2++;
	}
	/* 6 frames ready together: a full CQE of 4, then the rest */
	CHECK_EQ(p[0].type, CQE_RX_COALESCED_4);
	CHECK_EQ(p[3].ppi, 3);
	CHECK_EQ(p[4].ppi, 0);
	st = fx_stats(&h.f, 0);
	CHECK_GE(type2, 1);
	CHECK_EQ(st.rx_coalesced_cqes - st0.rx_coalesced_cqes, type2);
	CHECK_EQ(st.rx_frames - st0.rx_frames, 6);
	/* the CQ holds at most 2 CQEs for them */
	CHECK_EQ(h.rx.cq[0].c - DEPTH, 2);
	h_close(&h);

	/* switch off: one type-1 CQE per frame */
	REQUIRE(h_open(&h, 1, false));
	h_rx_post(&h, 0, 16, SLOT);
	inject_burst(&h, 6, 50);
	fx_run(&h.f);
	n = h_rx_collect(&h, p, 16);
	CHECK_EQ(n, 6);
	for (i = 0; i < n && i < 16; i++) {
		CHECK_EQ(p[i].type, CQE_RX_OKAY);
		CHECK_EQ(p[i].data[p[i].len - 1], i);
	}
	CHECK_EQ(h.rx.cq[0].c - DEPTH, 6);
	CHECK_EQ(fx_stats(&h.f, 0).rx_coalesced_cqes, 0);
	h_close(&h);
}

static void
test_rx_truncation_and_drops(void)
{
	struct mana_model_port_stats st0, st;
	struct rx_pkt p[4];
	struct gdma_sge sge[2];
	uint8_t fr[2048];
	size_t len;
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	st0 = fx_stats(&h.f, 0);
	/* nothing posted */
	len = udp_frame(fr, 11, 200);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_drop_no_wqe - st0.rx_drop_no_wqe, 1);
	CHECK_EQ(h_rx_collect(&h, p, 4), 0);
	/* frame larger than the buffer: type 4, the WQE is consumed */
	h_rx_post(&h, 0, 1, 128);
	h_rx_post(&h, 0, 1, SLOT);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, p, 4), 2);
	CHECK_EQ(p[0].type, CQE_RX_TRUNCATED);
	CHECK_EQ(p[0].wqe_off, 0);
	CHECK_EQ(p[1].type, CQE_RX_OKAY);
	CHECK_EQ(p[1].wqe_off, 32);
	CHECK_EQ(p[1].len, len);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_truncated - st0.rx_truncated, 1);
	/* exactly the buffer size fits */
	h_rx_post(&h, 0, 1, (uint32_t)len);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, p, 4), 1);
	CHECK_EQ(p[0].type, CQE_RX_OKAY);
	/* scattered over two SGEs, in order */
	{
		uint32_t slot = h.posted[0] % DEPTH;
		uint8_t *a = h.rxb.base + (size_t)slot * SLOT;
		uint8_t *b = h.rxb.base + (size_t)((slot + 1) % DEPTH) * SLOT;

		sge[0] = fx_sge(&h.rxb, (size_t)slot * SLOT, 100);
		sge[1] = fx_sge(&h.rxb, (size_t)((slot + 1) % DEPTH) * SLOT, SLOT);
		h.post_size[0][slot] = 100;
		h.post_bu[0][slot] = fx_rx_write(&h.rx, 0, sge, 2);
		h.posted[0]++;
		fx_rx_ring(&h.rx, 0);
		CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
		fx_run(&h.f);
		REQUIRE_EQ(h_rx_collect(&h, p, 4), 1);
		CHECK_EQ(p[0].type, CQE_RX_OKAY);
		CHECK_EQ(p[0].len, len);
		CHECK_MEM(a, fr, 100);
		CHECK_MEM(b, fr + 100, len - 100);
		/* a 2-SGE RX WQE is 2 BUs: the next starts 64 bytes later */
		h_rx_post(&h, 0, 1, SLOT);
		CHECK_EQ(h.post_bu[0][(h.posted[0] - 1) % DEPTH] * 32 - p[0].wqe_off, 64);
	}
	h_close(&h);
}

static void
test_rx_sge_violation(void)
{
	struct mana_model_port_stats st0, st;
	struct rx_pkt p[2];
	struct gdma_sge sge;
	struct ibv_mr *ro;
	uint8_t fr[256], *mem;
	size_t len = udp_frame(fr, 12, 100);
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	st0 = fx_stats(&h.f, 0);
	/* bad lkey: frame dropped, WQE kept (14 #18) */
	sge = fx_sge(&h.rxb, 0, SLOT);
	sge.mem_key ^= 0x77;
	fx_rx_write(&h.rx, 0, &sge, 1);
	fx_rx_ring(&h.rx, 0);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_drop_sge - st0.rx_drop_sge, 1);
	CHECK_EQ(st.rx_frames, st0.rx_frames);
	CHECK_EQ(h_rx_collect(&h, p, 2), 0);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_drop_sge - st0.rx_drop_sge, 2);
	CHECK_EQ(h_rx_collect(&h, p, 2), 0);
	h_close(&h);

	/* an MR without LOCAL_WRITE */
	REQUIRE(h_open(&h, 1, false));
	st0 = fx_stats(&h.f, 0);
	mem = aligned_alloc(4096, 4096);
	REQUIRE_NOT_NULL(mem);
	memset(mem, 0, 4096);
	ro = mana_vs_reg_mr(h.f.pd, mem, 4096, 0);
	REQUIRE_NOT_NULL(ro);
	sge.address = (uintptr_t)mem;
	sge.mem_key = ro->lkey;
	sge.size = 4096;
	fx_rx_write(&h.rx, 0, &sge, 1);
	fx_rx_ring(&h.rx, 0);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_drop_sge - st0.rx_drop_sge, 1);
	CHECK(mem[0] == 0);	/* nothing written */
	CHECK_EQ(h_rx_collect(&h, p, 2), 0);
	CHECK_EQ(mana_vs_dereg_mr(ro), 0);
	h_close(&h);
	free(mem);
}

static void
test_vlan_insert(void)
{
	struct mana_tx_oob oob;
	struct rx_pkt p;
	uint8_t fr[256], want[260];
	size_t len = udp_frame(fr, 13, 80);
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	h_rx_post(&h, 0, 4, SLOT);
	fx_tx_oob_long(&h.tx, &oob);
	oob.dw2 = GDMA_SET(MANA_TX_INJECT_VLAN, 1) | GDMA_SET(MANA_TX_PCP, 5) |
		  GDMA_SET(MANA_TX_DEI, 1) | GDMA_SET(MANA_TX_VLAN_ID, 0x123);
	h_tx(&h, fr, (uint32_t)len, &oob, true);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	memcpy(want, fr, 12);
	want[12] = 0x81;
	want[13] = 0x00;
	tf_put16(want + 14, (uint16_t)(5 << 13 | 1 << 12 | 0x123));
	memcpy(want + 16, fr + 12, len - 12);
	REQUIRE_EQ(h_rx_collect(&h, &p, 1), 1);
	CHECK_EQ(p.len, len + 4);
	CHECK_MEM(p.data, want, len + 4);
	/* model policy: frames untouched on RX, no tag reported */
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_PRESENT), 0);
	/* the tagged frame still hashes and verifies like the untagged one */
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_HASHTYPE), MANA_HASH_L4);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_UDP_CSUM_OK), 1);
	h_close(&h);
}

static void
test_csum_offload(void)
{
	struct mana_tx_oob oob;
	struct rx_pkt p;
	struct tf_spec s;
	uint8_t fr[1600];
	size_t len;
	unsigned int v;
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	h_rx_post(&h, 0, 16, SLOT);
	for (v = 0; v < 4; v++) {
		bool ipv6 = v & 2, tcp = !(v & 1);

		tf_spec_init(&s);
		s.ipv6 = ipv6;
		s.proto = tcp ? TF_PROTO_TCP : TF_PROTO_UDP;
		s.payload_len = 333;
		s.l4csum = TF_CSUM_PSEUDO;
		s.ip_csum_zero = true;
		if (ipv6) {
			tf_ip6(s.src, "2001:db8::a");
			tf_ip6(s.dst, "2001:db8::b");
		}
		len = tf_build(fr, &s);
		fx_tx_oob(&h.tx, &oob);
		oob.dw0 |= GDMA_SET(MANA_TX_IS_OUTER_IPV4, !ipv6) |
			   GDMA_SET(MANA_TX_IS_OUTER_IPV6, ipv6) |
			   GDMA_SET(MANA_TX_COMP_IPHDR_CSUM, !ipv6) |
			   GDMA_SET(MANA_TX_COMP_TCP_CSUM, tcp) |
			   GDMA_SET(MANA_TX_COMP_UDP_CSUM, !tcp);
		oob.dw1 |= GDMA_SET(MANA_TX_TRANS_OFF, tf_l4_off(&s));
		h_tx(&h, fr, (uint32_t)len, &oob, false);
		fx_run(&h.f);
		CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
		if (!CHECK_EQ(h_rx_collect(&h, &p, 1), 1))
			continue;
		CHECK_EQ(p.len, len);
		CHECK_MSG(tf_l4_ok(p.data, &s), "variant %u: L4 checksum not completed", v);
		if (!ipv6)
			CHECK_MSG(tf_ipv4_ok(p.data, &s), "variant %u: IP checksum wrong", v);
		if (tcp)
			CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_TCP_CSUM_OK), 1);
		else
			CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_UDP_CSUM_OK), 1);
		/* the payload itself is untouched */
		CHECK_MEM(p.data + tf_l4_off(&s) + 20, fr + tf_l4_off(&s) + 20, len -
			  tf_l4_off(&s) - 20);
	}
	/* without the offload bits the seeded checksum arrives as it was: bad */
	tf_spec_init(&s);
	s.proto = TF_PROTO_TCP;
	s.payload_len = 100;
	s.l4csum = TF_CSUM_PSEUDO;
	len = tf_build(fr, &s);
	h_tx(&h, fr, (uint32_t)len, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	if (CHECK_EQ(h_rx_collect(&h, &p, 1), 1)) {
		CHECK_MEM(p.data, fr, len);
		CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_TCP_CSUM_BAD), 1);
	}
	h_close(&h);
}

static void
test_link_down(void)
{
	struct mana_model_port_stats st0, st;
	uint8_t fr[256];
	size_t len = udp_frame(fr, 14, 30);
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	h_rx_post(&h, 0, 4, SLOT);
	st0 = fx_stats(&h.f, 0);
	CHECK_EQ(mana_model_set_link(h.f.m, 0, false), 0);
	h_tx(&h, fr, (uint32_t)len, NULL, false);
	fx_run(&h.f);
	/* the WQE still completes (one CQE per WQE), nothing reaches the wire */
	CHECK_NE(h_tx_cqe(&h, NULL, NULL), 0);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.tx_frames, st0.tx_frames);
	CHECK_EQ(st.tx_drop_link_down - st0.tx_drop_link_down, 1);
	CHECK_EQ(st.rx_frames, st0.rx_frames);
	CHECK_EQ(mana_model_set_link(h.f.m, 0, true), 0);
	h_tx(&h, fr, (uint32_t)len, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_frames - st0.rx_frames, 1);
	h_close(&h);
}

static void
test_drop_next_and_stats_reset(void)
{
	struct mana_model_port_stats st;
	struct rx_pkt p[4];
	uint8_t fr[256];
	size_t len = udp_frame(fr, 15, 30);
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	h_rx_post(&h, 0, 8, SLOT);
	CHECK_EQ(mana_model_port_stats_reset(h.f.m, 0), 0);
	CHECK_EQ(mana_model_drop_next(h.f.m, 0, 2), 0);
	inject_burst(&h, 3, 30);
	fx_run(&h.f);
	CHECK_EQ(h_rx_collect(&h, p, 4), 1);
	CHECK_EQ(p[0].data[p[0].len - 1], 2);	/* the third one */
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_drop_injected, 2);
	CHECK_EQ(st.rx_frames, 1);
	CHECK_EQ(mana_model_port_stats_reset(h.f.m, 0), 0);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_frames, 0);
	CHECK_EQ(st.rx_drop_injected, 0);
	(void)len;
	h_close(&h);
}

/*
 * Contract 6 ("ids"): the hardware RQ and CQ objects live and die with the
 * RSS QP. A new RSS QP over the same WQs gets new ids, an RQ that starts at
 * BU 0 with nothing posted and a CQ that starts at slot 0, owner lap 1.
 */
static void
test_rss_qp_recreate(void)
{
	struct mana_model_port_stats st0, st;
	const struct gdma_cqe *ring;
	struct manadv_obj obj;
	struct rx_pkt p[4];
	uint32_t old_wq, old_cq, i;
	uint8_t fr[256];
	size_t len = udp_frame(fr, 21, 40);
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	h_rx_post(&h, 0, 8, SLOT);
	inject_burst(&h, 3, 40);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, p, 4), 3);
	CHECK_EQ(p[2].wqe_off, 64);
	old_wq = h.rx.dv[0].wq_id;
	old_cq = h.rx.cq[0].dv.cq_id;
	/* destroy the RSS QP (5 WQEs still posted), then a new one over the same WQs */
	REQUIRE_EQ(mana_vs_destroy_qp(h.rx.qp), 0);
	h.rx.qp = fx_rss_qp(&h.f, 0, h.rx.ind, key);
	REQUIRE_NOT_NULL(h.rx.qp);
	memset(h.rx.cq[0].dv.buf, 0, (size_t)h.rx.cq[0].dv.count * GDMA_CQE_SIZE);
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = h.rx.cq[0].cq;
	obj.cq.out = &h.rx.cq[0].dv;
	obj.rwq.in = h.rx.wq[0];
	obj.rwq.out = &h.rx.dv[0];
	REQUIRE_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ | MANADV_OBJ_RWQ), 0);
	CHECK_NE(h.rx.dv[0].wq_id, 0);
	CHECK_NE(h.rx.cq[0].dv.cq_id, 0);
	CHECK_NE(h.rx.dv[0].wq_id, old_wq);
	CHECK_NE(h.rx.cq[0].dv.cq_id, old_cq);
	/* the WQEs posted before are forgotten: a frame finds nothing */
	st0 = fx_stats(&h.f, 0);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_drop_no_wqe - st0.rx_drop_no_wqe, 1);
	CHECK_EQ(st.rx_frames, st0.rx_frames);
	/* a doorbell with the old RQ id is refused */
	fx_db(h.rx.dv[0].db_page, GDMA_DB_OFFSET_RQ, gdma_db_wq(old_wq, h.rx.head[0]));
	fx_run(&h.f);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.db_rejected - st0.db_rejected, 1);
	/* the driver re-posts from BU 0 and consumes from C = count */
	h.rx.head[0] = 0;
	h.posted[0] = 0;
	h.done[0] = 0;
	fx_cqv_init(&h.rx.cq[0]);
	h_rx_post(&h, 0, 2, SLOT);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	ring = (const struct gdma_cqe *)h.rx.cq[0].dv.buf;
	CHECK_EQ(GDMA_GET(ring[0].info, GDMA_CQE_OWNER), 1);
	CHECK_EQ(GDMA_GET(ring[0].info, GDMA_CQE_WQ_NUM), h.rx.dv[0].wq_id);
	for (i = 1; i < h.rx.cq[0].dv.count; i++)
		CHECK_MSG(ring[i].info == 0, "CQE written at slot %u", i);
	REQUIRE_EQ(h_rx_collect(&h, p, 4), 1);
	CHECK_EQ(p[0].type, CQE_RX_OKAY);
	CHECK_EQ(p[0].wqe_off, 0);
	CHECK_EQ(p[0].len, len);
	CHECK_MEM(p[0].data, fr, len);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_frames - st0.rx_frames, 1);
	CHECK_EQ(st.queue_errors, st0.queue_errors);
	h_close(&h);
}

/* Per-queue counters, found by the ids manadv_init_obj reports. */
static void
test_queue_stats(void)
{
	struct mana_model_queue_stats sq, rq0, rq1;
	uint8_t fr[128];
	uint32_t len = (uint32_t)udp_frame(fr, 6, 40);
	struct rx_pkt p[8];
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	CHECK_EQ(mana_model_queue_stats(h.f.m, 0, &sq), -EINVAL);
	CHECK_EQ(mana_model_queue_stats(h.f.m, 0xFFFFFF, &sq), -ENOENT);
	h_rx_post(&h, 0, 2, SLOT);
	CHECK_EQ(mana_model_inject_tx_error(h.f.m, 0, CQE_TX_SA_DROP, 1), 0);
	h_tx(&h, fr, len, NULL, false);		/* error CQE, not sent */
	h_tx(&h, fr, len, NULL, false);
	h_tx(&h, fr, len, NULL, false);
	h_tx(&h, fr, len, NULL, false);		/* no WQE left on the RQ */
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, p, 8), 2);
	REQUIRE_EQ(mana_model_queue_stats(h.f.m, h.tx.dv.sq_id, &sq), 0);
	CHECK(sq.is_sq);
	CHECK_EQ(sq.port, 0);
	CHECK_EQ(sq.frames, 3);
	CHECK_EQ(sq.bytes, 3 * len);
	CHECK_EQ(sq.err_cqes, 1);
	CHECK_EQ(sq.cqes, 4);
	REQUIRE_EQ(mana_model_queue_stats(h.f.m, h.rx.dv[0].wq_id, &rq0), 0);
	CHECK(!rq0.is_sq);
	CHECK_EQ(rq0.frames, 2);
	CHECK_EQ(rq0.bytes, 2 * len);
	CHECK_EQ(rq0.cqes, 2);
	CHECK_EQ(rq0.drop_no_wqe, 1);
	CHECK_EQ(rq0.truncated, 0);
	/* a truncated frame counts on its queue */
	h_rx_post(&h, 0, 1, 32);
	h_tx(&h, fr, len, NULL, false);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, p, 8), 1);
	REQUIRE_EQ(mana_model_queue_stats(h.f.m, h.rx.dv[0].wq_id, &rq1), 0);
	CHECK_EQ(rq1.truncated, 1);
	CHECK_EQ(rq1.frames, 2);
	h_close(&h);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_tx_cqe_fields),
	UNIT_TEST(test_owner_laps),
	UNIT_TEST(test_sgl_wrap),
	UNIT_TEST(test_tx_mr_violations),
	UNIT_TEST(test_tx_invalid_oob),
	UNIT_TEST(test_tx_bad_oob_size),
	UNIT_TEST(test_tx_too_many_sges),
	UNIT_TEST(test_tx_mtu),
	UNIT_TEST(test_tx_injected),
	UNIT_TEST(test_cqe_suppression),
	UNIT_TEST(test_rx_loop_delivery),
	UNIT_TEST(test_rss_spread),
	UNIT_TEST(test_rx_hashtype_csum),
	UNIT_TEST(test_rx_coalescing),
	UNIT_TEST(test_rx_truncation_and_drops),
	UNIT_TEST(test_rx_sge_violation),
	UNIT_TEST(test_vlan_insert),
	UNIT_TEST(test_csum_offload),
	UNIT_TEST(test_link_down),
	UNIT_TEST(test_drop_next_and_stats_reset),
	UNIT_TEST(test_rss_qp_recreate),
	UNIT_TEST(test_queue_stats),
};

UNIT_MAIN(tests)
