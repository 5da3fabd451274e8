/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Completion events and doorbells on a model device: CQ arming through the
 * RWQ's and the QP's doorbell page, one event per arm (contract 5.4, 14 #26),
 * and doorbells naming a queue of another page refused (14 #15).
 */

#include <fcntl.h>

#include "fixture.h"

/* ---- CQ arm (5.4, 14 #26) and doorbell id checks (14 #15) -------------------- */

static const uint8_t test_frame[64] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 1, 0x88, 0xb5,
};

static void
test_cq_arm_rx(void)
{
	struct ibv_comp_channel *ch;
	struct fx_rxq q;
	struct fx_buf b;
	struct gdma_sge sge;
	struct ibv_cq *ecq;
	struct gdma_cqe e;
	void *ectx;
	unsigned int i;
	struct fx f;

	struct mana_model_config cfg;

	/* one CQE per frame here: coalescing off */
	fx_config(&cfg, 1);
	cfg.rx_coalesce = false;
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	ch = mana_vs_create_comp_channel(f.ctx);
	REQUIRE_NOT_NULL(ch);
	CHECK(ch->context == f.ctx);
	CHECK(fcntl(ch->fd, F_GETFL) & O_NONBLOCK);
	REQUIRE(fx_rxq_create(&f, 0, 1, 64, 1, fx_rss_key, ch, &q));
	REQUIRE(fx_buf_init(&f, &b, 64 * 2048));
	for (i = 0; i < 8; i++) {
		sge = fx_sge(&b, i * 2048, 2048);
		fx_rx_write(&q, 0, &sge, 1);
	}
	fx_rx_ring(&q, 0);
	fx_run(&f);
	/* not armed: a CQE, no event */
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	CHECK_EQ(fx_cq_drain(&q.cq[0]), 1);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), EAGAIN);
	/* arm for the next CQE (C = count + 1) through the RWQ's page */
	fx_cq_arm(q.dv[0].db_page, &q.cq[0]);
	fx_run(&f);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), EAGAIN);	/* nothing yet */
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	ecq = NULL;
	ectx = NULL;
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), 0);
	CHECK(ecq == q.cq[0].cq);
	CHECK(ectx == (void *)0x100);
	/* exactly one event per arm */
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), EAGAIN);
	mana_vs_ack_cq_events(q.cq[0].cq, 1);
	CHECK_EQ(fx_cq_drain(&q.cq[0]), 2);
	/* another frame without a new arm: no event */
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), EAGAIN);
	/* arming behind an existing unconsumed CQE fires at once */
	fx_cq_arm(q.dv[0].db_page, &q.cq[0]);
	fx_run(&f);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), 0);
	CHECK(ecq == q.cq[0].cq);
	mana_vs_ack_cq_events(q.cq[0].cq, 1);
	CHECK(fx_cq_poll(&q.cq[0], &e));
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), EAGAIN);
	fx_rxq_destroy(&q);
	CHECK_EQ(mana_vs_destroy_comp_channel(ch), 0);
	fx_buf_fini(&b);
	fx_close(&f);
}

static void
test_cq_arm_tx(void)
{
	struct ibv_comp_channel *ch;
	struct fx_txq q;
	struct fx_buf b;
	struct gdma_sge sge;
	struct mana_tx_oob oob;
	struct ibv_cq *ecq;
	void *ectx;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	ch = mana_vs_create_comp_channel(f.ctx);
	REQUIRE_NOT_NULL(ch);
	memset(&q, 0, sizeof(q));
	q.cq.cq = mana_vs_create_cq(f.ctx, 64, (void *)0x99, ch, 0);
	REQUIRE_NOT_NULL(q.cq.cq);
	REQUIRE(fx_txq_attach(&f, 0, 64, 1, &q));
	REQUIRE(fx_buf_init(&f, &b, 4096));
	memcpy(b.base, test_frame, sizeof(test_frame));
	sge = fx_sge(&b, 0, sizeof(test_frame));
	fx_tx_oob(&q, &oob);
	/* arm through the QP's page, then send */
	fx_cq_arm(q.dv.db_page, &q.cq);
	fx_tx_write(&q, &oob, false, &sge, 1);
	fx_tx_ring(&q);
	fx_run(&f);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), 0);
	CHECK(ecq == q.cq.cq);
	CHECK(ectx == (void *)0x99);
	mana_vs_ack_cq_events(q.cq.cq, 1);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), EAGAIN);
	CHECK_EQ(fx_cq_drain(&q.cq), 1);
	fx_tx_write(&q, &oob, false, &sge, 1);
	fx_tx_ring(&q);
	fx_run(&f);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), EAGAIN);
	CHECK_EQ(fx_cq_drain(&q.cq), 1);
	fx_txq_destroy(&q);
	CHECK_EQ(mana_vs_destroy_comp_channel(ch), 0);
	fx_buf_fini(&b);
	fx_close(&f);
}

static void
test_doorbell_wrong_id(void)
{
	struct mana_model_port_stats st0, st;
	struct fx_rxq q;
	struct fx_txq t;
	struct fx_buf b;
	struct gdma_sge sge;
	struct mana_tx_oob oob;
	struct gdma_cqe e;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	REQUIRE(fx_rxq_create(&f, 0, 2, 64, 1, fx_rss_key, NULL, &q));
	REQUIRE(fx_txq_create(&f, 0, 64, 1, &t));
	REQUIRE(fx_buf_init(&f, &b, 16384));
	st0 = fx_stats(&f, 0);

	/* RQ doorbell naming the other RWQ on this RWQ's page: rejected */
	sge = fx_sge(&b, 0, 2048);
	fx_rx_write(&q, 0, &sge, 1);
	fx_db(q.dv[0].db_page, GDMA_DB_OFFSET_RQ, gdma_db_wq(q.dv[1].wq_id, q.head[0]));
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 1);
	/* an unknown id, an SQ doorbell on an RWQ page, an EQ doorbell: rejected */
	fx_db(q.dv[0].db_page, GDMA_DB_OFFSET_RQ, gdma_db_wq(0xFFFFF0, q.head[0]));
	fx_run(&f);
	fx_db(q.dv[0].db_page, GDMA_DB_OFFSET_SQ, gdma_db_wq(q.dv[0].wq_id, q.head[0]));
	fx_run(&f);
	fx_db(q.dv[0].db_page, GDMA_DB_OFFSET_EQ, 1);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 4);
	/* the queue did not advance: a frame finds no WQE on either RQ */
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.rx_drop_no_wqe, st0.rx_drop_no_wqe + 1);
	CHECK_EQ(st.rx_frames, st0.rx_frames);
	CHECK(!fx_cq_poll(&q.cq[0], &e));
	CHECK(!fx_cq_poll(&q.cq[1], &e));
	/* the right id: accepted, the next non-IP frame lands (default WQ = the last) */
	fx_rx_write(&q, 1, &sge, 1);
	fx_rx_ring(&q, 1);
	fx_rx_ring(&q, 0);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 4);
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.rx_frames, st0.rx_frames + 1);
	CHECK(fx_cq_poll(&q.cq[1], &e));

	/* SQ doorbell with a wrong id on the QP's page: rejected, nothing sent */
	memcpy(b.base + 8192, test_frame, sizeof(test_frame));
	sge = fx_sge(&b, 8192, sizeof(test_frame));
	fx_tx_oob(&t, &oob);
	fx_tx_write(&t, &oob, false, &sge, 1);
	fx_db(t.dv.db_page, GDMA_DB_OFFSET_SQ, gdma_db_wq(t.dv.sq_id + 1, t.head));
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 5);
	CHECK_EQ(st.tx_frames, st0.tx_frames);
	CHECK(!fx_cq_poll(&t.cq, &e));
	/* a CQ arm naming a CQ not bound to this page: rejected */
	fx_cq_arm(t.dv.db_page, &q.cq[0]);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 6);
	/* the right id: sent */
	fx_tx_ring(&t);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 6);
	CHECK_EQ(st.tx_frames, st0.tx_frames + 1);
	CHECK(fx_cq_poll(&t.cq, &e));
	CHECK_EQ(fx_cqe_type(&e), CQE_TX_OKAY);

	fx_txq_destroy(&t);
	fx_rxq_destroy(&q);
	fx_buf_fini(&b);
	fx_close(&f);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_cq_arm_rx),
	UNIT_TEST(test_cq_arm_tx),
	UNIT_TEST(test_doorbell_wrong_id),
};

UNIT_MAIN(tests)
