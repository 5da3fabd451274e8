/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The device engine's TX side, driven by hand (manual mode): CQE fields,
 * owner bits over thousands of laps, an SGL wrapping the ring, MR and OOB
 * violations, every TX error type, the MTU, CQE suppression (hardware.md §3, §4,
 * §14 #17, #18).
 */

#include "engine_harness.h"

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
	memset(&p, 0, sizeof(p));	/* h_rx_collect fills it only for a packet */
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

/*
 * Post one WQE (an OOB of oob_size bytes, dw1_or or-ed into the header's
 * second dword), ring, run: its CQE type (the vendor error in *verr).
 */
static uint32_t
tx_wqe(struct h *h, const struct mana_tx_oob *oob, uint32_t oob_size, uint32_t dw1_or,
       const struct gdma_sge *sge, uint32_t nsge, uint32_t *verr)
{
	uint32_t dw1 = GDMA_SET(GDMA_WQE_NUM_SGE, nsge) |
		       GDMA_SET(GDMA_WQE_OOB_DIV4, oob_size / 4) | dw1_or;

	h->tx.head += fx_wqe_write(h->tx.dv.sq_buf, h->tx.dv.sq_size, h->tx.head, dw1, oob,
				   oob_size, sge, nsge);
	fx_tx_ring(&h->tx);
	fx_run(&h->f);
	return h_tx_cqe(h, verr, NULL);
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
	CHECK_EQ(tx_wqe(&h, &oob, 8, 0, &sge, 1, &verr), CQE_TX_HDR_PROCESSING_ERROR);
	CHECK_NE(verr, 0);
	/* past the end of the MR */
	sge = fx_sge(&h.txb, h.txb.len - 10, (uint32_t)len);
	verr = 0;
	CHECK_EQ(tx_wqe(&h, &oob, 8, 0, &sge, 1, &verr), CQE_TX_HDR_PROCESSING_ERROR);
	CHECK_NE(verr, 0);
	/* before the start of the MR */
	sge = fx_sge(&h.txb, 0, (uint32_t)len);
	sge.address -= 16;
	CHECK_EQ(tx_wqe(&h, &oob, 8, 0, &sge, 1, NULL), CQE_TX_HDR_PROCESSING_ERROR);
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
	CHECK_EQ(tx_wqe(&h, &oob, 8, 0, &sge, 1, NULL), CQE_TX_HDR_PROCESSING_ERROR);
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

/* Send a frame (copied to slot 0, split over nsge SGEs) with a tweaked OOB / header. */
static uint32_t
tx_tweaked(struct h *h, const struct mana_tx_oob *oob, uint32_t oob_size, uint32_t dw1_or,
	   uint32_t nsge, const uint8_t *fr, uint32_t len)
{
	struct gdma_sge sge[32];
	uint32_t i, per = len / nsge;

	memcpy(h->txb.base, fr, len);
	for (i = 0; i < nsge; i++)
		sge[i] = fx_sge(&h->txb, i * per, i == nsge - 1 ? len - i * per : per);
	return tx_wqe(h, oob, oob_size, dw1_or, sge, nsge, NULL);
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

/*
 * hardware.md §19: a frame leaves if it is at most MTU + 18 bytes on the
 * wire, tagged or not (DTS sends MTU + 18 untagged); an inserted tag counts.
 */
static void
test_tx_mtu_boundary(void)
{
	static const uint32_t mtus[] = { 1500, 1900 };
	struct mana_tx_oob vlan;
	uint8_t fr[2048];
	struct h h;

	memset(fr, 0, sizeof(fr));
	REQUIRE(h_open(&h, 0, true));
	for (unsigned int i = 0; i < sizeof(mtus) / sizeof(mtus[0]); i++) {
		uint32_t mtu = mtus[i];

		CHECK_EQ(mana_model_set_mtu(h.f.m, 0, mtu), 0);
		udp_frame(fr, 7, 100);	/* Ethernet + IPv4 + UDP headers; length ignored */
		h_tx(&h, fr, mtu + 14, NULL, false);
		fx_run(&h.f);
		CHECK_MSG(h_tx_cqe(&h, NULL, NULL) == CQE_TX_OKAY, "MTU %u: MTU + 14 refused", mtu);
		h_tx(&h, fr, mtu + 18, NULL, false);
		fx_run(&h.f);
		CHECK_MSG(h_tx_cqe(&h, NULL, NULL) == CQE_TX_OKAY, "MTU %u: MTU + 18 refused", mtu);
		h_tx(&h, fr, mtu + 19, NULL, false);
		fx_run(&h.f);
		CHECK_MSG(h_tx_cqe(&h, NULL, NULL) == CQE_TX_MTU_DROP, "MTU %u: MTU + 19 sent",
			  mtu);
		/* an inserted tag: MTU + 14 becomes MTU + 18 (sent), MTU + 15 one more (dropped) */
		fx_tx_oob_long(&h.tx, &vlan);
		vlan.dw2 = GDMA_SET(MANA_TX_INJECT_VLAN, 1) | GDMA_SET(MANA_TX_VLAN_ID, 7);
		h_tx(&h, fr, mtu + 14, &vlan, true);
		fx_run(&h.f);
		CHECK_MSG(h_tx_cqe(&h, NULL, NULL) == CQE_TX_OKAY,
			  "MTU %u: MTU + 14 with an inserted tag refused", mtu);
		h_tx(&h, fr, mtu + 15, &vlan, true);
		fx_run(&h.f);
		CHECK_MSG(h_tx_cqe(&h, NULL, NULL) == CQE_TX_MTU_DROP,
			  "MTU %u: MTU + 15 with an inserted tag sent", mtu);
	}
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
	/* a pending injection is added to, never replaced; 0 cancels */
	CHECK_EQ(mana_model_inject_tx_error(h.f.m, 0, 34, 1), 0);
	CHECK_EQ(mana_model_inject_tx_error(h.f.m, 0, 34, 1), 0);
	CHECK_EQ(mana_model_inject_tx_error(h.f.m, 0, 35, 1), -EBUSY);
	CHECK(strstr(mana_model_last_error(h.f.m), "2 WQEs of type 34 still pending") != NULL);
	h_tx(&h, fr, len, NULL, false);
	h_tx(&h, fr, len, NULL, false);
	h_tx(&h, fr, len, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), 34);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), 34);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	CHECK_EQ(mana_model_inject_tx_error(h.f.m, 0, 36, 5), 0);
	CHECK_EQ(mana_model_inject_tx_error(h.f.m, 0, 36, 0), 0);	/* cancel */
	h_tx(&h, fr, len, NULL, false);
	fx_run(&h.f);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), CQE_TX_OKAY);
	CHECK_EQ(h_tx_cqe(&h, NULL, NULL), 0);
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

static const struct unit_test tests[] = {
	UNIT_TEST(test_tx_cqe_fields),
	UNIT_TEST(test_owner_laps),
	UNIT_TEST(test_sgl_wrap),
	UNIT_TEST(test_tx_mr_violations),
	UNIT_TEST(test_tx_invalid_oob),
	UNIT_TEST(test_tx_bad_oob_size),
	UNIT_TEST(test_tx_too_many_sges),
	UNIT_TEST(test_tx_mtu),
	UNIT_TEST(test_tx_mtu_boundary),
	UNIT_TEST(test_tx_injected),
	UNIT_TEST(test_cqe_suppression),
};

UNIT_MAIN(tests)
