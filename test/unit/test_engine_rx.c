/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The device engine's RX side, driven by hand (manual mode): delivery over a
 * loop wire, coalescing, truncation, drops (no WQE, bad SGE, injected, link
 * down), the outer 802.1Q tag moved into the CQE (doc/design.md, "Receive"), the
 * port and queue counters (hardware.md §4, §14 #18) and CQE batching
 * (cqe_batch, doc/design.md "Completion batching").
 */

#include <poll.h>

#include "engine_harness.h"

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
	hash = tf_rss_hash(fx_rss_key, &s, &ht);
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

/* Post 16 buffers, let 6 frames of one flow arrive together: the packets (up to 16). */
static unsigned int
rx_six(struct h *h, struct rx_pkt *p)
{
	h_rx_post(h, 0, 16, SLOT);
	inject_burst(h, 6, 50);
	fx_run(&h->f);
	return h_rx_collect(h, p, 16);
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
	n = rx_six(&h, p);
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
	n = rx_six(&h, p);
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

/* ---- VLAN: the outer 802.1Q tag goes into the CQE ----------------------------- */

/* A UDP/IPv4 frame of flow sport, tagged with tci when vlan; its untagged twin in plain. */
static size_t
vlan_frame(uint8_t *fr, uint8_t *plain, bool vlan, uint16_t tci, uint16_t sport,
	   uint16_t plen, uint32_t *hash)
{
	struct tf_spec s;
	uint32_t ht;
	size_t len;

	tf_spec_init(&s);
	s.sport = sport;
	s.payload_len = plen;
	s.payload_seed = (uint8_t)sport;
	if (plain != NULL)
		tf_build(plain, &s);
	s.vlan = vlan;
	s.tci = tci;
	len = tf_build(fr, &s);
	if (hash != NULL)
		*hash = tf_rss_hash(fx_rss_key, &s, &ht);
	return len;
}

static void
test_rx_vlan_strip(void)
{
	uint8_t fr[512], plain[512], want[512];
	struct mana_model_port_stats st0, st;
	uint32_t hash, phash;
	struct rx_pkt p;
	size_t len, plen;
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	h_rx_post(&h, 0, 16, SLOT);
	st0 = fx_stats(&h.f, 0);
	/* PCP 7, DEI 1, VLAN ID 0x123: only the ID reaches the CQE */
	len = vlan_frame(fr, plain, true, 0xF123, 40, 100, &hash);
	plen = vlan_frame(want, NULL, false, 0, 40, 100, &phash);
	REQUIRE_EQ(len, plen + 4);
	CHECK_EQ(hash, phash);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, &p, 1), 1);
	CHECK_EQ(p.type, CQE_RX_OKAY);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_PRESENT), 1);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_ID), 0x123);
	CHECK_EQ(p.len, len - 4);
	CHECK_MEM(p.data, plain, plen);
	/* hash and checksums of the packet inside the tag */
	CHECK_EQ(p.hash, phash);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_HASHTYPE), MANA_HASH_L4);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_IP_CSUM_OK), 1);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_UDP_CSUM_OK), 1);
	/* reserved dword 1 bits stay 0 */
	CHECK_EQ(p.dw1 & (1u << 15 | 1u << 31), 0);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_frames - st0.rx_frames, 1);
	CHECK_EQ(st.rx_bytes - st0.rx_bytes, len - 4);

	/* untagged: unchanged, no VLAN bits */
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, plain, (uint32_t)plen), 0);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, &p, 1), 1);
	CHECK_EQ(p.len, plen);
	CHECK_MEM(p.data, plain, plen);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_PRESENT), 0);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_ID), 0);

	/* a priority tag (VLAN ID 0) is a tag too */
	len = vlan_frame(fr, plain, true, 0xA000, 41, 60, NULL);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, &p, 1), 1);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_PRESENT), 1);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_ID), 0);
	CHECK_EQ(p.len, len - 4);
	CHECK_MEM(p.data, plain, len - 4);

	/* two 802.1Q tags: only the outer one is stripped */
	len = vlan_frame(fr, NULL, true, 0x0456, 42, 60, NULL);
	memcpy(want, fr, 12);
	tf_put16(want + 12, 0x8100);
	tf_put16(want + 14, 0x2789);
	memcpy(want + 16, fr + 12, len - 12);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, want, (uint32_t)len + 4), 0);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, &p, 1), 1);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_PRESENT), 1);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_ID), 0x789);
	CHECK_EQ(p.len, len);
	CHECK_MEM(p.data, fr, len);

	/* an 802.1ad (QinQ, TPID 0x88A8) outer tag is not stripped */
	len = vlan_frame(fr, NULL, true, 0x0456, 43, 60, NULL);
	tf_put16(fr + 12, 0x88A8);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, &p, 1), 1);
	CHECK_EQ(p.type, CQE_RX_OKAY);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_PRESENT), 0);
	CHECK_EQ(GDMA_GET(p.dw1, MANA_RXCQE_VLAN_ID), 0);
	CHECK_EQ(p.len, len);
	CHECK_MEM(p.data, fr, len);
	h_close(&h);
}

/* The buffer holds the frame without its tag: 4 bytes less than on the wire. */
static void
test_rx_vlan_strip_fit(void)
{
	uint8_t fr[512], plain[512];
	struct mana_model_port_stats st0, st;
	struct rx_pkt p[2];
	size_t len;
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	st0 = fx_stats(&h.f, 0);
	len = vlan_frame(fr, plain, true, 0x0ABC, 44, 200, NULL);
	h_rx_post(&h, 0, 1, (uint32_t)len - 4);
	h_rx_post(&h, 0, 1, (uint32_t)len - 5);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, p, 2), 2);
	CHECK_EQ(p[0].type, CQE_RX_OKAY);
	CHECK_EQ(p[0].len, len - 4);
	CHECK_MEM(p[0].data, plain, len - 4);
	CHECK_EQ(p[1].type, CQE_RX_TRUNCATED);
	CHECK_EQ(p[1].len, len - 4);
	CHECK_EQ(GDMA_GET(p[1].dw1, MANA_RXCQE_VLAN_PRESENT), 1);
	CHECK_EQ(GDMA_GET(p[1].dw1, MANA_RXCQE_VLAN_ID), 0xABC);
	/* the device wrote only what the buffer holds: the untagged frame's start */
	CHECK_MEM(p[1].data, plain, len - 5);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_truncated - st0.rx_truncated, 1);
	CHECK_EQ(st.rx_bytes - st0.rx_bytes, len - 4);
	h_close(&h);
}

/* Frames of test_rx_vlan_coalescing, in arrival order. */
#define VLAN_SEQ_N	8
static const struct {
	bool vlan;
	uint16_t tci;
	uint32_t ppi;		/* expected index in its CQE */
} vlan_seq[VLAN_SEQ_N] = {
	/* CQEs: ID 10 x3 (the PCP of the third differs: not in the CQE), ID 20 x2,
	 * untagged x2, ID 10 */
	{ true, 10, 0 }, { true, 10, 1 }, { true, 0xE00A, 2 }, { true, 20, 0 },
	{ true, 20, 1 }, { false, 0, 0 }, { false, 0, 1 }, { true, 10, 0 },
};

/* Coalescing merges only frames of equal dword 1: same VLAN ID, same presence. */
static void
test_rx_vlan_coalescing(void)
{
	uint8_t fr[VLAN_SEQ_N][256], plain[VLAN_SEQ_N][256];
	size_t len[VLAN_SEQ_N];
	struct rx_pkt p[16];
	unsigned int i, n;
	struct h h;

	REQUIRE(h_open(&h, 1, true));
	h_rx_post(&h, 0, 16, SLOT);
	/* One queue; flows differ in the source port, all with good checksums. */
	for (i = 0; i < VLAN_SEQ_N; i++) {
		len[i] = vlan_frame(fr[i], plain[i], vlan_seq[i].vlan, vlan_seq[i].tci,
				    (uint16_t)(4000 + i), 50, NULL);
		CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr[i], (uint32_t)len[i]), 0);
	}
	fx_run(&h.f);
	n = h_rx_collect(&h, p, 16);
	REQUIRE_EQ(n, VLAN_SEQ_N);
	for (i = 0; i < n; i++) {
		uint32_t plen = (uint32_t)len[i] - (vlan_seq[i].vlan ? 4 : 0);
		bool merged = vlan_seq[i].ppi != 0 || (i + 1 < n && vlan_seq[i + 1].ppi != 0);

		CHECK_MSG(p[i].ppi == vlan_seq[i].ppi, "packet %u: index %u in its CQE, "
			  "expected %u", i, p[i].ppi, vlan_seq[i].ppi);
		CHECK_EQ(p[i].type, merged ? CQE_RX_COALESCED_4 : CQE_RX_OKAY);
		CHECK_EQ(GDMA_GET(p[i].dw1, MANA_RXCQE_VLAN_PRESENT), vlan_seq[i].vlan);
		CHECK_EQ(GDMA_GET(p[i].dw1, MANA_RXCQE_VLAN_ID), vlan_seq[i].tci & 0xFFF);
		CHECK_EQ(p[i].len, plen);
		CHECK_MSG(memcmp(p[i].data, plain[i], plen) == 0, "packet %u: data", i);
	}
	CHECK_EQ(h.rx.cq[0].c - DEPTH, 4);
	h_close(&h);
}

/*
 * The vPort's receive filter and minimum frame (hardware.md §16), on a port
 * whose wire is no loop: unicast to another MAC and frames shorter than an
 * Ethernet header are dropped and counted before any queue; broadcast,
 * multicast, the port's own MAC and a bare 14-byte header arrive.
 */
static void
test_rx_filter_and_runts(void)
{
	static const uint8_t foreign[6] = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	struct mana_model_port_stats st0, st;
	struct mana_model_config cfg;
	uint8_t fr[5][256], own[6];
	uint32_t len[5];
	struct rx_pkt p[8];
	unsigned int i, n;
	struct h h;

	fx_config(&cfg, 1);
	cfg.wire[0].type = MANA_MODEL_WIRE_NONE;
	cfg.rx_coalesce = false;
	REQUIRE(h_open_cfg(&h, &cfg, 1, 4));
	REQUIRE_EQ(mana_model_get_mac(h.f.m, 0, own), 0);
	h_rx_post(&h, 0, 8, SLOT);
	st0 = fx_stats(&h.f, 0);
	/* foreign unicast, broadcast, multicast, own MAC: frames 0..3 */
	for (i = 0; i < 4; i++) {
		len[i] = (uint32_t)udp_frame(fr[i], (uint16_t)(100 + i), 20);
		memcpy(fr[i], i == 0 ? foreign : i == 1 ? bcast : i == 2 ? mcast : own, 6);
		CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr[i], len[i]), 0);
	}
	/* runts of 1 and 13 bytes, then a bare Ethernet header to the port (frame 4) */
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr[3], 1), 0);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr[3], 13), 0);
	memcpy(fr[4], fr[3], 14);
	len[4] = 14;
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr[4], len[4]), 0);
	fx_run(&h.f);
	n = h_rx_collect(&h, p, 8);
	CHECK_EQ(n, 4);
	for (i = 0; i < n && i < 4; i++) {
		CHECK_EQ(p[i].type, CQE_RX_OKAY);
		CHECK_EQ(p[i].len, len[i + 1]);
		CHECK_MEM(p[i].data, fr[i + 1], len[i + 1]);
	}
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_drop_filter - st0.rx_drop_filter, 1);
	CHECK_EQ(st.rx_drop_runt - st0.rx_drop_runt, 2);
	CHECK_EQ(st.rx_frames - st0.rx_frames, 4);
	CHECK_EQ(st.rx_drop_no_wqe - st0.rx_drop_no_wqe, 0);
	/* the dropped frames took no WQE: the other 4 of the 8 posted still take frames */
	for (i = 0; i < 4; i++)
		CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr[3], len[3]), 0);
	fx_run(&h.f);
	CHECK_EQ(h_rx_collect(&h, p, 8), 4);
	CHECK_EQ(fx_stats(&h.f, 0).rx_drop_no_wqe - st0.rx_drop_no_wqe, 0);
	h_close(&h);
}

/* ---- scattered receive (hardware.md §3.6, §14 #17, #18) --------------------- */

/*
 * Post one RX WQE of k SGEs into the next slot: SGE j at byte 128 j of the
 * slot, sizes sz[j]; the slot is zeroed first. Returns the slot's base.
 */
static uint8_t *
h_rx_post_sgl(struct h *h, const uint32_t *sz, uint32_t k, uint32_t bad_lkey_at)
{
	uint32_t slot = h->posted[0] % DEPTH, j;
	struct gdma_sge sge[16];
	uint8_t *base = h->rxb.base + (size_t)slot * SLOT;

	memset(base, 0, SLOT);
	for (j = 0; j < k; j++) {
		sge[j] = fx_sge(&h->rxb, (size_t)slot * SLOT + 128 * j, sz[j]);
		if (j == bad_lkey_at)
			sge[j].mem_key ^= 0x55;
	}
	h->post_size[0][slot] = sz[0];
	h->post_bu[0][slot] = fx_rx_write(&h->rx, 0, sge, k);
	h->posted[0]++;
	fx_rx_ring(&h->rx, 0);
	return base;
}

/* The k SGEs of a slot (128 bytes apart) hold frame[0..len) in order. */
static bool
sgl_holds(const uint8_t *base, const uint32_t *sz, uint32_t k, const uint8_t *frame,
	  uint32_t len)
{
	uint32_t j, off = 0, n;
	bool ok = true;

	for (j = 0; j < k && off < len; j++) {
		n = sz[j] < len - off ? sz[j] : len - off;
		ok &= CHECK_MSG(memcmp(base + 128 * j, frame + off, n) == 0,
				"SGE %u (frame bytes %u..%u) differs", j, off, off + n - 1);
		off += n;
	}
	return ok && CHECK_EQ(off, len);
}

/* WQEs of k = 1..15 SGEs: filled in order, each ALIGN(16 + 16k, 32) bytes long. */
static void
test_rx_scatter_sizes(void)
{
	uint32_t sz[15], k, j, at[16], len;
	struct rx_pkt p[2];
	uint8_t fr[2048], *base[16];
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	for (k = 1; k <= 15; k++) {
		for (j = 0; j < k; j++)
			sz[j] = 64 + 4 * j;	/* unequal sizes */
		at[k] = h.posted[0] % DEPTH;
		base[k] = h_rx_post_sgl(&h, sz, k, UINT32_MAX);
		/* every byte of the k buffers */
		for (len = 0, j = 0; j < k; j++)
			len += sz[j];
		len = (uint32_t)udp_frame(fr, (uint8_t)k, len - 42);
		CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, len), 0);
		fx_run(&h.f);
		REQUIRE_EQ(h_rx_collect(&h, p, 2), 1);
		CHECK_EQ(p[0].type, CQE_RX_OKAY);
		CHECK_EQ(p[0].len, len);
		CHECK(sgl_holds(base[k], sz, k, fr, len));
		CHECK_EQ(p[0].wqe_off, h.post_bu[0][at[k]] * 32);
		if (k > 1)
			CHECK_EQ((h.post_bu[0][at[k]] - h.post_bu[0][at[k - 1]]) * 32,
				 (16 + 16 * (k - 1) + 31) / 32 * 32);
	}
	/* one byte more than the 3 SGEs hold: truncated, the WQE used up (64 bytes) */
	sz[0] = 100;
	sz[1] = 100;
	sz[2] = 100;
	at[0] = h.posted[0] % DEPTH;
	h_rx_post_sgl(&h, sz, 3, UINT32_MAX);
	h_rx_post_sgl(&h, sz, 3, UINT32_MAX);
	len = (uint32_t)udp_frame(fr, 1, 301 - 42);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, len), 0);
	len = (uint32_t)udp_frame(fr, 2, 300 - 42);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, len), 0);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, p, 2), 2);
	CHECK_EQ(p[0].type, CQE_RX_TRUNCATED);
	CHECK_EQ(p[0].len, 301);
	CHECK_EQ(p[1].type, CQE_RX_OKAY);
	CHECK_EQ(p[1].len, 300);
	CHECK_EQ(p[1].wqe_off - p[0].wqe_off, 64);
	CHECK_EQ(fx_stats(&h.f, 0).rx_truncated, 1);
	h_close(&h);
}

/* An SGE list the device refuses: 16 SGEs stop the queue; one bad SGE drops the frame. */
static void
test_rx_scatter_strict(void)
{
	struct mana_model_port_stats st0, st;
	uint32_t sz[16], j;
	struct rx_pkt p[2];
	uint8_t fr[2048], *base;
	size_t len = udp_frame(fr, 9, 1000);
	bool zero = true;
	struct h h;

	for (j = 0; j < 16; j++)
		sz[j] = 120;
	/* SGE 9 of 12 with a wrong lkey: nothing written anywhere, frame dropped, WQE kept */
	REQUIRE(h_open(&h, 1, false));
	st0 = fx_stats(&h.f, 0);
	base = h_rx_post_sgl(&h, sz, 12, 9);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.rx_drop_sge - st0.rx_drop_sge, 1);
	CHECK_EQ(h_rx_collect(&h, p, 2), 0);
	for (j = 0; j < 12 * 128; j++)
		zero &= base[j] == 0;
	CHECK_MSG(zero, "a frame was written into an SGL with a bad SGE");
	h_close(&h);

	/* 16 SGEs (more than a 256-byte RQE holds): malformed, the queue stops */
	REQUIRE(h_open(&h, 1, false));
	st0 = fx_stats(&h.f, 0);
	h_rx_post_sgl(&h, sz, 16, UINT32_MAX);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.queue_errors - st0.queue_errors, 1);
	CHECK_EQ(st.rx_frames, st0.rx_frames);
	CHECK_EQ(h_rx_collect(&h, p, 2), 0);
	CHECK_MSG(strstr(mana_model_last_error(h.f.m), "num_sge not 1..15") != NULL,
		  "last error: %s", mana_model_last_error(h.f.m));
	h_close(&h);
}

/* A stripped tag across SGE boundaries: the buffers get the frame without it. */
static void
test_rx_scatter_vlan(void)
{
	static const uint32_t sz[6] = { 5, 3, 7, 1, 30, 120 };
	uint8_t fr[256], want[256], *base;
	struct rx_pkt p[2];
	size_t len, plen;
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	len = vlan_frame(fr, want, true, 0x0ABC, 44, 80, NULL);
	plen = len - 4;
	REQUIRE(plen <= 5 + 3 + 7 + 1 + 30 + 120);
	base = h_rx_post_sgl(&h, sz, 6, UINT32_MAX);
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	REQUIRE_EQ(h_rx_collect(&h, p, 2), 1);
	CHECK_EQ(p[0].type, CQE_RX_OKAY);
	CHECK_EQ(p[0].len, plen);
	CHECK_EQ(GDMA_GET(p[0].dw1, MANA_RXCQE_VLAN_ID), 0xABC);
	CHECK(sgl_holds(base, sz, 6, want, (uint32_t)plen));
	h_close(&h);
}


/* ---- cqe_batch: CQEs made visible in groups ------------------------------------ */

/*
 * What a consumer of one CQ could see at one moment inside an engine pass:
 * the device's log line for a frame it drops is that moment (the logger runs
 * on the engine, between two frames).
 */
struct batch_probe {
	const struct fx_cqv *cq;	/* WQ 0's CQ */
	int chan_fd;			/* its completion channel */
	unsigned int lines;		/* "frame dropped" lines seen */
	unsigned int visible;		/* valid CQEs after the consumer index, then */
	bool event;			/* an event was in the channel, then */
};

/* Valid CQEs from the consumer index on, without consuming them. */
static unsigned int
cq_visible(const struct fx_cqv *c)
{
	unsigned int n = 0;

	while (n < c->dv.count) {
		uint32_t idx = c->c + n;
		const struct gdma_cqe *e = (const struct gdma_cqe *)c->dv.buf + idx % c->dv.count;
		uint32_t info = __atomic_load_n(&e->info, __ATOMIC_ACQUIRE);

		if (gdma_cqe_owner_state(info, idx / c->dv.count) != GDMA_CQE_NEW)
			break;
		n++;
	}
	return n;
}

static void
batch_log(int level, const char *msg, void *arg)
{
	struct batch_probe *bp = arg;
	struct pollfd pfd = { .fd = bp->chan_fd, .events = POLLIN };

	(void)level;
	if (strstr(msg, "frame dropped") == NULL)
		return;
	bp->lines++;
	bp->visible = cq_visible(bp->cq);
	bp->event = poll(&pfd, 1, 0) == 1;
}

/* A UDP/IPv4 frame of a flow RSS sends to WQ 0 of 2 (an even hash), last byte seq. */
static size_t
wq0_frame(uint8_t *fr, uint8_t seq)
{
	struct tf_spec s;
	uint32_t ht;
	size_t len;

	for (uint8_t b = 1; ; b++) {
		tf_spec_init(&s);
		tf_ip4(s.src, 10, 9, 0, b);
		s.payload_len = 40;
		if ((tf_rss_hash(fx_rss_key, &s, &ht) & 63) % 2 == 0)
			break;
	}
	len = tf_build(fr, &s);
	fr[len - 1] = seq;
	return len;
}

/*
 * cqe_batch=N (coalescing off, one CQE per frame): 5 frames for WQ 0, one for
 * WQ 1, whose only WQE has a bad lkey (dropped and logged, WQE kept, 14 #18),
 * then 2 more for WQ 0, all in one engine pass. When the drop is logged the
 * consumer of WQ 0's CQ sees the CQEs of the full groups of N only (5 for
 * N=1, as every CQE is visible once written), and the armed CQ's event has
 * not come before them; when the pass ends all 7 are visible, in order, and
 * the event is there.
 */
static void
rx_cqe_batch_case(uint32_t batch)
{
	static const uint8_t non_ip[64] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 1, 0x88, 0xb5,
	};
	struct mana_model_config cfg;
	struct ibv_comp_channel *ch;
	struct batch_probe bp;
	struct rx_pkt p[8];
	struct gdma_sge sge;
	struct ibv_cq *ecq;
	uint8_t fr[256];
	unsigned int i, n;
	void *ectx;
	size_t len;
	struct h h;

	fx_config(&cfg, 1);
	cfg.wire[0].type = MANA_MODEL_WIRE_LOOP;
	cfg.rx_coalesce = false;
	cfg.cqe_batch = batch;
	REQUIRE(h_open_cfg(&h, &cfg, 0, 4));
	ch = mana_vs_create_comp_channel(h.f.ctx);
	REQUIRE_NOT_NULL(ch);
	REQUIRE(fx_rxq_create(&h.f, 0, 2, DEPTH, 4, fx_rss_key, ch, &h.rx));
	REQUIRE(fx_buf_init(&h.f, &h.rxb, 2 * DEPTH * SLOT));
	h.has_rx = true;
	CHECK_EQ(mana_model_config(h.f.m)->cqe_batch, batch);
	h_rx_post(&h, 0, 16, SLOT);
	sge = fx_sge(&h.rxb, (size_t)DEPTH * SLOT, SLOT);
	sge.mem_key ^= 0x77;
	fx_rx_write(&h.rx, 1, &sge, 1);
	fx_rx_ring(&h.rx, 1);
	fx_cq_arm(h.rx.dv[0].db_page, &h.rx.cq[0]);
	fx_run(&h.f);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), -EAGAIN);

	for (i = 0; i < 5; i++) {
		len = wq0_frame(fr, (uint8_t)i);
		CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	}
	CHECK_EQ(mana_model_inject_rx(h.f.m, 0, non_ip, sizeof(non_ip)), 0);
	for (; i < 7; i++) {
		len = wq0_frame(fr, (uint8_t)i);
		CHECK_EQ(mana_model_inject_rx(h.f.m, 0, fr, (uint32_t)len), 0);
	}
	memset(&bp, 0, sizeof(bp));
	bp.cq = &h.rx.cq[0];
	bp.chan_fd = ch->fd;
	mana_vs_set_logger(batch_log, &bp);
	CHECK_EQ(mana_model_step(h.f.m), 8);	/* one pass: the 8 frames of the inbox */
	mana_vs_set_logger(NULL, NULL);

	CHECK_EQ(bp.lines, 1);
	CHECK_MSG(bp.visible == 5 / batch * batch, "cqe_batch=%u: %u CQEs visible inside the "
		  "pass after 5 written, want %u", batch, bp.visible, 5 / batch * batch);
	CHECK_MSG(bp.event == (bp.visible != 0), "cqe_batch=%u: event %s with %u CQEs visible",
		  batch, bp.event ? "posted" : "not posted", bp.visible);
	/* the pass ended: everything written is visible, in order */
	CHECK_EQ(cq_visible(&h.rx.cq[0]), 7);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), 0);
	CHECK(ecq == h.rx.cq[0].cq);
	mana_vs_ack_cq_events(ecq, 1);
	n = h_rx_collect(&h, p, 8);
	CHECK_EQ(n, 7);
	for (i = 0; i < n && i < 7; i++) {
		CHECK_EQ(p[i].wq, 0);
		CHECK_EQ(p[i].type, CQE_RX_OKAY);
		CHECK_MSG(p[i].data[p[i].len - 1] == i, "cqe_batch=%u: packet %u out of order",
			  batch, i);
	}
	CHECK_EQ(fx_stats(&h.f, 0).rx_drop_sge, 1);
	fx_rxq_destroy(&h.rx);
	h.has_rx = false;
	fx_buf_fini(&h.rxb);
	CHECK_EQ(mana_vs_destroy_comp_channel(ch), 0);
	h_close(&h);
}

static void
test_rx_cqe_batch(void)
{
	static const uint32_t batches[] = { 1, 2, 4, 8, 64 };

	for (unsigned int i = 0; i < sizeof(batches) / sizeof(batches[0]); i++)
		rx_cqe_batch_case(batches[i]);
}

/*
 * A CQ of 8 entries under cqe_batch=64: groups of 5 start anywhere in the
 * ring and wrap past its end (slot 7 to slot 0, the owner bits' next lap).
 * A consumer that keeps up sees every CQE, lap after lap, and never an
 * overflow (fx_cq_poll fails on one).
 */
static void
test_rx_cqe_batch_small_cq(void)
{
	struct mana_model_config cfg;
	struct rx_pkt p[DEPTH];
	unsigned int round, i, got = 0;
	struct h h;

	fx_config(&cfg, 1);
	cfg.wire[0].type = MANA_MODEL_WIRE_LOOP;
	cfg.rx_coalesce = false;
	cfg.cqe_batch = 64;
	REQUIRE(h_open_cfg(&h, &cfg, 0, 4));
	REQUIRE(fx_rxq_create(&h.f, 0, 1, 8, 4, fx_rss_key, NULL, &h.rx));
	REQUIRE(fx_buf_init(&h.f, &h.rxb, DEPTH * SLOT));
	h.has_rx = true;
	for (round = 0; round < 8; round++) {
		h_rx_post(&h, 0, 5, SLOT);
		inject_burst(&h, 5, 30);
		fx_run(&h.f);
		i = h_rx_collect(&h, p, DEPTH);
		CHECK_MSG(i == 5, "round %u: %u packets", round, i);
		for (unsigned int k = 0; k < i && k < 5; k++)
			CHECK_EQ(p[k].data[p[k].len - 1], k);
		got += i;
	}
	CHECK_EQ(got, 40);
	CHECK_EQ(h.rx.cq[0].c - 8, 40);
	h_close(&h);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_rx_loop_delivery),
	UNIT_TEST(test_rx_coalescing),
	UNIT_TEST(test_rx_truncation_and_drops),
	UNIT_TEST(test_rx_sge_violation),
	UNIT_TEST(test_link_down),
	UNIT_TEST(test_drop_next_and_stats_reset),
	UNIT_TEST(test_queue_stats),
	UNIT_TEST(test_rx_vlan_strip),
	UNIT_TEST(test_rx_vlan_strip_fit),
	UNIT_TEST(test_rx_vlan_coalescing),
	UNIT_TEST(test_rx_filter_and_runts),
	UNIT_TEST(test_rx_scatter_sizes),
	UNIT_TEST(test_rx_scatter_strict),
	UNIT_TEST(test_rx_scatter_vlan),
	UNIT_TEST(test_rx_cqe_batch),
	UNIT_TEST(test_rx_cqe_batch_small_cq),
};

UNIT_MAIN(tests)
