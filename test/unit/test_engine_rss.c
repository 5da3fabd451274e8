/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * RSS in the device engine, driven by hand (manual mode): the queue choice
 * and the Toeplitz hash over 1 to 8 queues, non-IP frames on the default
 * queue, and the hardware RQ/CQ ids across a re-created RSS QP (hardware.md §6).
 */

#include "engine_harness.h"

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
			want_hash[i] = tf_rss_hash(fx_rss_key, &s, &ht);
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

/*
 * hardware.md §6 ("ids"): the hardware RQ and CQ objects live and die with the
 * RSS QP. A new RSS QP over the same WQs gets new ids, an RQ that starts at
 * BU 0 with nothing posted and a CQ that starts at slot 0, owner lap 1.
 */
static void
test_rss_qp_recreate(void)
{
	struct mana_model_port_stats st0, st;
	const struct gdma_cqe *ring;
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
	h.rx.qp = fx_rss_qp(&h.f, 0, h.rx.ind, fx_rss_key);
	REQUIRE_NOT_NULL(h.rx.qp);
	memset(h.rx.cq[0].dv.buf, 0, (size_t)h.rx.cq[0].dv.count * GDMA_CQE_SIZE);
	REQUIRE_EQ(fx_init_rx(h.rx.cq[0].cq, &h.rx.cq[0].dv, h.rx.wq[0], &h.rx.dv[0]), 0);
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

static const struct unit_test tests[] = {
	UNIT_TEST(test_rss_spread),
	UNIT_TEST(test_rss_qp_recreate),
};

UNIT_MAIN(tests)
