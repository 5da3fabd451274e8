/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Verbs objects on a model device: PDs and parent domains, MRs, TX QPs,
 * indirection tables, RSS QPs and SRQs; every errno the hardware reference lists for
 * them (sections 6, 7.1, 8, 14 #7-#12, rule 6) and the ids manadv reports.
 */

#include "fixture.h"
#include "verbs_helpers.h"

/* ---- PDs, MRs, QPs --------------------------------------------------------- */

static void
test_pd_mr(void)
{
	struct ibv_parent_domain_init_attr pa;
	struct mana_model_mr_stats st0, st;
	static uint8_t buf[8192];
	struct ibv_mr *mr, *mr2;
	struct ibv_pd *pd2;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	CHECK(f.pd->context == f.ctx);
	CHECK(f.ppd[0]->context == f.ctx);
	memset(&pa, 0, sizeof(pa));
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.pd_context = (void *)1;
	CHECK_FAILS(mana_vs_alloc_parent_domain(f.ctx, &pa), EINVAL);	/* pd NULL */
	pa.pd = f.pd;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;	/* not PD_CONTEXT */
	CHECK_FAILS(mana_vs_alloc_parent_domain(f.ctx, &pa), EINVAL);

	/* a second PD without parent domains: only its MRs hold it */
	pd2 = mana_vs_alloc_pd(f.ctx);
	REQUIRE_NOT_NULL(pd2);
	REQUIRE_EQ(mana_model_mr_stats(f.m, NULL, &st0), 0);
	mr = mana_vs_reg_mr(pd2, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	REQUIRE_NOT_NULL(mr);
	CHECK(mr->context == f.ctx);
	CHECK(mr->pd == pd2);
	CHECK(mr->addr == buf);
	CHECK_EQ(mr->length, sizeof(buf));
	mr2 = mana_vs_reg_mr(pd2, buf, 4096, 0);
	REQUIRE_NOT_NULL(mr2);
	CHECK_NE(mr->lkey, mr2->lkey);
	/* only LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ (7.1) */
	CHECK_FAILS(mana_vs_reg_mr(pd2, buf, 4096, IBV_ACCESS_REMOTE_ATOMIC), EINVAL);
	/* the device's MR counters: two more open (the refused one not counted) */
	REQUIRE_EQ(mana_model_mr_stats(f.m, NULL, &st), 0);
	CHECK_EQ(st.open, st0.open + 2);
	CHECK_EQ(st.open_bytes, st0.open_bytes + sizeof(buf) + 4096);
	CHECK_EQ(st.registered, st0.registered + 2);
	CHECK_EQ(st.deregistered, st0.deregistered);
	/* by address: both hold buf, only mr holds buf + 4096, none holds buf + 8192 */
	REQUIRE_EQ(mana_model_mr_stats(f.m, buf, &st), 0);
	CHECK_EQ(st.open, 2);
	CHECK_EQ(st.open_bytes, sizeof(buf) + 4096);
	REQUIRE_EQ(mana_model_mr_stats(f.m, buf + 4096, &st), 0);
	CHECK_EQ(st.open, 1);
	REQUIRE_EQ(mana_model_mr_stats(f.m, buf + sizeof(buf), &st), 0);
	CHECK_EQ(st.open, 0);
	CHECK_EQ(mana_model_mr_stats(NULL, NULL, &st), -EINVAL);
	/* the PD cannot go while MRs use it (8) */
	CHECK_EQ(mana_vs_dealloc_pd(pd2), -EBUSY);
	CHECK_EQ(mana_vs_dereg_mr(mr2), 0);
	CHECK_EQ(mana_vs_dealloc_pd(pd2), -EBUSY);
	CHECK_EQ(mana_vs_dereg_mr(mr), 0);
	REQUIRE_EQ(mana_model_mr_stats(f.m, NULL, &st), 0);
	CHECK_EQ(st.open, st0.open);
	CHECK_EQ(st.open_bytes, st0.open_bytes);
	CHECK_EQ(st.deregistered, st0.deregistered + 2);
	CHECK_EQ(mana_vs_dealloc_pd(pd2), 0);
	/* f.pd: its parent domains reference it (13 rule 4: parent domain first) */
	CHECK_EQ(mana_vs_dealloc_pd(f.pd), -EBUSY);
	fx_close(&f);
}

static void
test_raw_qp_errors(void)
{
	struct ibv_parent_domain_init_attr pa;
	struct ibv_pd *bad0, *bad3;
	struct ibv_qp_init_attr a;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct fx f;

	REQUIRE(fx_open(&f, 2));
	cq = fx_cq_new(&f, 64);
	REQUIRE_NOT_NULL(cq);
	/* 14 #7: plain PD */
	CHECK_FAILS(fx_raw_qp_new(f.pd, cq, 64, 1), EINVAL);
	/* pd_context (the IB port) outside 1..nports */
	memset(&pa, 0, sizeof(pa));
	pa.pd = f.pd;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.pd_context = (void *)0;
	bad0 = mana_vs_alloc_parent_domain(f.ctx, &pa);
	REQUIRE_NOT_NULL(bad0);
	pa.pd_context = (void *)3;
	bad3 = mana_vs_alloc_parent_domain(f.ctx, &pa);
	REQUIRE_NOT_NULL(bad3);
	CHECK_FAILS(fx_raw_qp_new(bad0, cq, 64, 1), EINVAL);
	CHECK_FAILS(fx_raw_qp_new(bad3, cq, 64, 1), EINVAL);
	/* not RAW_PACKET */
	fx_raw_qp_attr(&a, cq, 64, 1);
	a.qp_type = IBV_QPT_UD;
	CHECK_FAILS(mana_vs_create_qp(f.ppd[0], &a), EINVAL);
	a.qp_type = IBV_QPT_RC;
	CHECK_FAILS(mana_vs_create_qp(f.ppd[0], &a), EINVAL);
	/* NULL send CQ (model policy 8) */
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.send_cq = NULL;
	a.recv_cq = NULL;
	CHECK_FAILS(mana_vs_create_qp(f.ppd[0], &a), EINVAL);
	/* port 2 works */
	qp = fx_raw_qp_new(f.ppd[1], cq, 64, 1);
	REQUIRE_NOT_NULL(qp);
	CHECK(qp->context == f.ctx);
	CHECK_EQ(qp->qp_type, IBV_QPT_RAW_PACKET);
	CHECK_EQ(mana_vs_destroy_qp(qp), 0);
	CHECK_EQ(mana_vs_dealloc_pd(bad0), 0);
	CHECK_EQ(mana_vs_dealloc_pd(bad3), 0);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	fx_close(&f);
}

/* Two WQs with their own CQs, ready for a table. */
struct rx2 {
	struct ibv_cq *cq[2];
	struct ibv_wq *wq[2];
};

static bool
rx2_new(struct fx *f, struct rx2 *r)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		r->cq[i] = fx_cq_new(f, 64);
		if (r->cq[i] == NULL)
			return false;
		r->wq[i] = fx_wq_new(f, f->ppd[0], r->cq[i], 64, 1);
		if (r->wq[i] == NULL)
			return false;
	}
	return true;
}

static void
rx2_del(struct rx2 *r)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		CHECK_EQ(mana_vs_destroy_wq(r->wq[i]), 0);
		CHECK_EQ(mana_vs_destroy_cq(r->cq[i]), 0);
	}
}

static void
test_ind_table_errors(void)
{
	struct ibv_rwq_ind_table_init_attr a;
	struct ibv_rwq_ind_table *t;
	struct ibv_wq *wqs[4], *shared[2];
	struct ibv_cq *cq;
	struct rx2 r;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	REQUIRE(rx2_new(&f, &r));
	memset(&a, 0, sizeof(a));
	a.log_ind_tbl_size = 1;
	a.ind_tbl = r.wq;
	a.comp_mask = 1;
	CHECK_FAILS(mana_vs_create_rwq_ind_table(f.ctx, &a), EINVAL);
	a.comp_mask = 0;
	a.log_ind_tbl_size = 14;
	CHECK_FAILS(mana_vs_create_rwq_ind_table(f.ctx, &a), EINVAL);
	/* NULL entry */
	wqs[0] = r.wq[0];
	wqs[1] = NULL;
	CHECK_FAILS(fx_ind_new(&f, 1, wqs), EINVAL);
	/* the same WQ twice */
	wqs[0] = r.wq[1];
	wqs[1] = r.wq[1];
	CHECK_FAILS(fx_ind_new(&f, 1, wqs), EINVAL);
	wqs[0] = r.wq[0];
	wqs[1] = r.wq[1];
	wqs[2] = r.wq[0];
	wqs[3] = r.wq[1];
	CHECK_FAILS(fx_ind_new(&f, 2, wqs), EINVAL);
	/* two WQs on one CQ (14 #9) */
	cq = fx_cq_new(&f, 64);
	REQUIRE_NOT_NULL(cq);
	shared[0] = fx_wq_new(&f, f.ppd[0], cq, 64, 1);
	shared[1] = fx_wq_new(&f, f.ppd[0], cq, 64, 1);
	REQUIRE(shared[0] != NULL && shared[1] != NULL);
	CHECK_FAILS(fx_ind_new(&f, 1, shared), EINVAL);
	/* a good one, then the WQs are busy until it goes */
	t = fx_ind_new(&f, 1, r.wq);
	REQUIRE_NOT_NULL(t);
	CHECK(t->context == f.ctx);
	CHECK_EQ(mana_vs_destroy_wq(r.wq[0]), -EBUSY);
	/* a WQ may sit in two tables */
	{
		struct ibv_rwq_ind_table *t2 = fx_ind_new(&f, 0, &r.wq[1]);

		REQUIRE_NOT_NULL(t2);
		CHECK_EQ(mana_vs_destroy_rwq_ind_table(t), 0);
		CHECK_EQ(mana_vs_destroy_wq(r.wq[1]), -EBUSY);
		CHECK_EQ(mana_vs_destroy_rwq_ind_table(t2), 0);
	}
	CHECK_EQ(mana_vs_destroy_wq(shared[0]), 0);
	CHECK_EQ(mana_vs_destroy_wq(shared[1]), 0);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	rx2_del(&r);
	fx_close(&f);
}

static void
test_rss_qp_errors(void)
{
	struct mana_vs_xsrq_init_attr sa;
	struct ibv_qp_init_attr_ex a;
	struct ibv_rwq_ind_table *t;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct rx2 r;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	REQUIRE(rx2_new(&f, &r));
	t = fx_ind_new(&f, 1, r.wq);
	REQUIRE_NOT_NULL(t);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	sa.srq_type = IBV_SRQT_BASIC;
	srq = mana_vs_create_xsrq(f.pd, &sa);
	REQUIRE_NOT_NULL(srq);
	/* 14 #8 and 6: a good RSS QP but for one attribute */
	rss_attr(&a, f.ppd[0], t);
	a.rx_hash_conf.rx_hash_key_len = 39;
	CHECK_FAILS(mana_vs_create_qp_ex(f.ctx, &a), EINVAL);
	rss_attr(&a, f.ppd[0], t);
	a.rx_hash_conf.rx_hash_key_len = 41;
	CHECK_FAILS(mana_vs_create_qp_ex(f.ctx, &a), EINVAL);
	rss_attr(&a, f.ppd[0], t);
	a.rx_hash_conf.rx_hash_function = 2;
	CHECK_FAILS(mana_vs_create_qp_ex(f.ctx, &a), EINVAL);
	rss_attr(&a, f.ppd[0], t);
	a.recv_cq = r.cq[0];
	CHECK_FAILS(mana_vs_create_qp_ex(f.ctx, &a), EINVAL);
	rss_attr(&a, f.ppd[0], t);
	a.cap.max_recv_wr = 64;
	CHECK_FAILS(mana_vs_create_qp_ex(f.ctx, &a), EINVAL);
	rss_attr(&a, f.ppd[0], t);
	a.cap.max_recv_sge = 1;
	CHECK_FAILS(mana_vs_create_qp_ex(f.ctx, &a), EINVAL);
	rss_attr(&a, f.ppd[0], t);
	a.srq = srq;
	CHECK_FAILS(mana_vs_create_qp_ex(f.ctx, &a), EINVAL);
	rss_attr(&a, f.ppd[0], t);
	a.qp_type = IBV_QPT_UD;
	CHECK_FAILS(mana_vs_create_qp_ex(f.ctx, &a), EINVAL);
	rss_attr(&a, f.ppd[0], t);
	a.comp_mask &= ~IBV_QP_INIT_ATTR_RX_HASH;
	CHECK_FAILS(mana_vs_create_qp_ex(f.ctx, &a), EINVAL);
	rss_attr(&a, f.ppd[0], t);
	a.comp_mask |= 1u << 20;
	CHECK_FAILS(mana_vs_create_qp_ex(f.ctx, &a), EINVAL);
	CHECK_FAILS(rss_qp(&f, f.pd, t), EINVAL);
	/* the failures left nothing referenced: the table can still go */
	qp = rss_qp(&f, f.ppd[0], t);
	REQUIRE_NOT_NULL(qp);
	CHECK_EQ(mana_vs_destroy_rwq_ind_table(t), -EBUSY);
	CHECK_EQ(mana_vs_destroy_qp(qp), 0);
	CHECK_EQ(mana_vs_destroy_rwq_ind_table(t), 0);
	CHECK_EQ(mana_vs_destroy_srq(srq), 0);
	rx2_del(&r);
	fx_close(&f);
}

/* 1 << 7 = 128 entries: accepted as a table (log <= 13), refused by the RSS QP (> 64). */
static void
test_rss_table_too_big(void)
{
	enum { N = 128 };
	struct ibv_cq *cq[N];
	struct ibv_wq *wq[N];
	struct ibv_rwq_ind_table *t;
	unsigned int i, made = 0;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	for (i = 0; i < N; i++) {
		cq[i] = fx_cq_new(&f, 4);
		if (cq[i] == NULL)
			break;
		wq[i] = fx_wq_new(&f, f.ppd[0], cq[i], 4, 1);
		if (wq[i] == NULL) {
			CHECK_EQ(mana_vs_destroy_cq(cq[i]), 0);
			break;
		}
		made++;
	}
	CHECK_EQ(made, N);
	if (made == N) {
		t = fx_ind_new(&f, 7, wq);
		CHECK(t != NULL);
		if (t != NULL) {
			CHECK_FAILS(rss_qp(&f, f.ppd[0], t), EINVAL);
			CHECK_EQ(mana_vs_destroy_rwq_ind_table(t), 0);
		}
		/* 64 entries: accepted */
		t = fx_ind_new(&f, 6, wq);
		CHECK(t != NULL);
		if (t != NULL) {
			struct ibv_qp *qp = rss_qp(&f, f.ppd[0], t);

			CHECK(qp != NULL);
			if (qp != NULL)
				CHECK_EQ(mana_vs_destroy_qp(qp), 0);
			CHECK_EQ(mana_vs_destroy_rwq_ind_table(t), 0);
		}
	}
	for (i = 0; i < made; i++) {
		CHECK_EQ(mana_vs_destroy_wq(wq[i]), 0);
		CHECK_EQ(mana_vs_destroy_cq(cq[i]), 0);
	}
	fx_close(&f);
}

/* 14 #11: ids are 0 until the owning QP exists, then nonzero and distinct. */
static void
test_ids(void)
{
	struct manadv_obj obj;
	struct manadv_cq dcq[3];
	struct manadv_rwq drwq[2];
	struct manadv_qp dqp;
	struct ibv_rwq_ind_table *t;
	struct ibv_cq *txcq;
	struct ibv_qp *qp, *tx;
	struct rx2 r;
	unsigned int i;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	REQUIRE(rx2_new(&f, &r));
	txcq = fx_cq_new(&f, 64);
	REQUIRE_NOT_NULL(txcq);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(fx_init_rx(r.cq[i], &dcq[i], r.wq[i], &drwq[i]), 0);
		CHECK_EQ(dcq[i].cq_id, 0);
		CHECK_EQ(drwq[i].wq_id, 0);
	}
	t = fx_ind_new(&f, 1, r.wq);
	REQUIRE_NOT_NULL(t);
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = r.cq[0];
	obj.cq.out = &dcq[0];
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ), 0);
	CHECK_EQ(dcq[0].cq_id, 0);	/* a table is not a QP */
	qp = rss_qp(&f, f.ppd[0], t);
	REQUIRE_NOT_NULL(qp);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(fx_init_rx(r.cq[i], &dcq[i], r.wq[i], &drwq[i]), 0);
		CHECK_NE(dcq[i].cq_id, 0);
		CHECK_NE(drwq[i].wq_id, 0);
		CHECK(drwq[i].db_page != NULL);
		CHECK_EQ(dcq[i].cq_id & ~0xFFFFFFu, 0);	/* 24-bit ids (doorbell field) */
		CHECK_EQ(drwq[i].wq_id & ~0xFFFFFFu, 0);
	}
	CHECK_NE(dcq[0].cq_id, dcq[1].cq_id);
	CHECK_NE(drwq[0].wq_id, drwq[1].wq_id);
	/* rule 2: every RWQ has its own doorbell page */
	CHECK(drwq[0].db_page != drwq[1].db_page);

	memset(&obj, 0, sizeof(obj));
	obj.cq.in = txcq;
	obj.cq.out = &dcq[2];
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ), 0);
	CHECK_EQ(dcq[2].cq_id, 0);
	tx = fx_raw_qp_new(f.ppd[0], txcq, 64, 1);
	REQUIRE_NOT_NULL(tx);
	obj.qp.in = tx;
	obj.qp.out = &dqp;
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ | MANADV_OBJ_QP), 0);
	CHECK_NE(dcq[2].cq_id, 0);
	CHECK_NE(dqp.sq_id, 0);
	CHECK_EQ(dqp.sq_id & ~0xFFFFFFu, 0);
	CHECK_NE(dcq[2].cq_id, dcq[0].cq_id);
	CHECK_NE(dcq[2].cq_id, dcq[1].cq_id);
	CHECK(dqp.db_page != NULL);
	CHECK(dqp.db_page != drwq[0].db_page && dqp.db_page != drwq[1].db_page);
	CHECK_EQ(dqp.tx_vp_offset & ~0xFFu, 0);	/* fits the short OOB */

	CHECK_EQ(mana_vs_destroy_qp(tx), 0);
	CHECK_EQ(mana_vs_destroy_qp(qp), 0);
	CHECK_EQ(mana_vs_destroy_rwq_ind_table(t), 0);
	CHECK_EQ(mana_vs_destroy_cq(txcq), 0);
	rx2_del(&r);
	fx_close(&f);
}

/* ---- SRQ (rule 6) ---------------------------------------------------------- */

static void
test_srq(void)
{
	struct mana_vs_xsrq_init_attr a;
	struct ibv_xrcd xrcd;
	struct ibv_srq *s, *x;
	struct ibv_qp_init_attr qa;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	cq = fx_cq_new(&f, 64);
	REQUIRE_NOT_NULL(cq);
	memset(&a, 0, sizeof(a));
	a.srq_context = (void *)0x1234;
	a.attr.max_wr = 100;
	a.attr.max_sge = 3;
	a.srq_type = IBV_SRQT_BASIC;
	s = mana_vs_create_xsrq(f.pd, &a);
	REQUIRE_NOT_NULL(s);
	CHECK_GE(a.attr.max_wr, 100);
	CHECK_GE(a.attr.max_sge, 3);
	CHECK(s->context == f.ctx);
	CHECK(s->pd == f.pd);
	CHECK(s->srq_context == (void *)0x1234);
	/*
	 * XRC: needs an XRCD and a CQ. The shim has no XRCD verb and the model's
	 * open_xrcd op answers EOPNOTSUPP, so a stand-in object of this context
	 * plays the XRCD (neither the shim nor the model dereferences it).
	 */
	memset(&xrcd, 0, sizeof(xrcd));
	xrcd.context = f.ctx;
	memset(&a, 0, sizeof(a));
	a.attr.max_wr = 7;
	a.attr.max_sge = 1;
	a.srq_type = IBV_SRQT_XRC;
	a.ext.xrc.cq = cq;
	CHECK_FAILS(mana_vs_create_xsrq(f.pd, &a), EINVAL);	/* no XRCD */
	a.ext.xrc.xrcd = &xrcd;
	a.ext.xrc.cq = NULL;
	CHECK_FAILS(mana_vs_create_xsrq(f.pd, &a), EINVAL);	/* no CQ */
	a.ext.xrc.cq = cq;
	x = mana_vs_create_xsrq(f.pd, &a);
	REQUIRE_NOT_NULL(x);
	CHECK_GE(a.attr.max_wr, 7);
	CHECK_GE(a.attr.max_sge, 1);
	/* failures: NULL PD or attr */
	CHECK_FAILS(mana_vs_create_xsrq(NULL, &a), EINVAL);
	CHECK_FAILS(mana_vs_create_xsrq(f.pd, NULL), EINVAL);
	/* a PD is busy while an SRQ lives on it */
	{
		struct ibv_pd *pd2 = mana_vs_alloc_pd(f.ctx);
		struct ibv_srq *s2;

		REQUIRE_NOT_NULL(pd2);
		a.srq_type = IBV_SRQT_BASIC;
		s2 = mana_vs_create_xsrq(pd2, &a);
		REQUIRE_NOT_NULL(s2);
		CHECK_EQ(mana_vs_dealloc_pd(pd2), -EBUSY);
		CHECK_EQ(mana_vs_destroy_srq(s2), 0);
		CHECK_EQ(mana_vs_dealloc_pd(pd2), 0);
	}
	/* a QP naming the SRQ keeps it alive (14 #12, #29) */
	fx_raw_qp_attr(&qa, cq, 64, 1);
	qa.srq = s;
	qp = mana_vs_create_qp(f.ppd[0], &qa);
	REQUIRE_NOT_NULL(qp);
	CHECK_EQ(mana_vs_destroy_srq(s), -EBUSY);
	CHECK_EQ(mana_vs_destroy_qp(qp), 0);
	CHECK_EQ(mana_vs_destroy_srq(s), 0);
	CHECK_EQ(mana_vs_destroy_srq(x), 0);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	fx_close(&f);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_pd_mr),
	UNIT_TEST(test_raw_qp_errors),
	UNIT_TEST(test_ind_table_errors),
	UNIT_TEST(test_rss_qp_errors),
	UNIT_TEST(test_rss_table_too_big),
	UNIT_TEST(test_ids),
	UNIT_TEST(test_srq),
};

UNIT_MAIN(tests)
