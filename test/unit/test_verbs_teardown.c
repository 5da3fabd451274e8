/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Destroy order on a model device (hardware.md §14 #12): every destroy refused
 * with EBUSY while a user of the object lives, and a driver's teardown
 * repeated on one context gives every ring buffer back.
 */

#include "fixture.h"
#include "verbs_helpers.h"

/* ---- destroy order (14 #12) -------------------------------------------------- */

struct stack {
	struct ibv_comp_channel *ch;
	struct ibv_cq *rxcq[2], *txcq;
	struct ibv_wq *wq[2];
	struct ibv_rwq_ind_table *t;
	struct ibv_qp *rss, *tx;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	uint8_t *mem;
};

static bool
stack_new(struct fx *f, struct stack *s)
{
	struct mana_vs_xsrq_init_attr sa;
	struct ibv_qp_init_attr qa;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->ch = mana_vs_create_comp_channel(f->ctx);
	if (s->ch == NULL)
		return false;
	for (i = 0; i < 2; i++) {
		s->rxcq[i] = mana_vs_create_cq(f->ctx, 64, NULL, s->ch, 0);
		if (s->rxcq[i] == NULL)
			return false;
		s->wq[i] = fx_wq_new(f, f->ppd[0], s->rxcq[i], 64, 1);
		if (s->wq[i] == NULL)
			return false;
	}
	s->t = fx_ind_new(f, 1, s->wq);
	s->rss = s->t != NULL ? rss_qp(f, f->ppd[0], s->t) : NULL;
	s->txcq = fx_cq_new(f, 64);
	if (s->rss == NULL || s->txcq == NULL)
		return false;
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 8;
	sa.attr.max_sge = 1;
	s->srq = mana_vs_create_xsrq(f->pd, &sa);
	if (s->srq == NULL)
		return false;
	fx_raw_qp_attr(&qa, s->txcq, 64, 2);
	qa.srq = s->srq;
	s->tx = mana_vs_create_qp(f->ppd[0], &qa);
	s->mem = aligned_alloc(4096, 8192);
	if (s->tx == NULL || s->mem == NULL)
		return false;
	s->mr = mana_vs_reg_mr(f->pd, s->mem, 8192, IBV_ACCESS_LOCAL_WRITE);
	return s->mr != NULL;
}

static void
test_destroy_busy(void)
{
	struct stack s;
	unsigned int a0, f0;
	struct fx f;

	a0 = fx_mem.allocs;
	f0 = fx_mem.frees;
	REQUIRE(fx_open(&f, 1));
	REQUIRE(stack_new(&f, &s));
	CHECK_EQ(mana_vs_close_device(f.ctx), -EBUSY);
	CHECK_EQ(mana_vs_destroy_rwq_ind_table(s.t), -EBUSY);	/* RSS QP on it */
	CHECK_EQ(mana_vs_destroy_wq(s.wq[0]), -EBUSY);		/* in a table */
	CHECK_EQ(mana_vs_destroy_cq(s.rxcq[1]), -EBUSY);		/* WQ on it */
	CHECK_EQ(mana_vs_destroy_cq(s.txcq), -EBUSY);		/* QP on it */
	CHECK_EQ(mana_vs_destroy_comp_channel(s.ch), -EBUSY);	/* CQs on it */
	CHECK_EQ(mana_vs_destroy_srq(s.srq), -EBUSY);		/* TX QP names it */

	/* one step at a time: each refusal holds until its user goes */
	CHECK_EQ(mana_vs_destroy_qp(s.rss), 0);
	CHECK_EQ(mana_vs_destroy_wq(s.wq[0]), -EBUSY);		/* still in the table */
	CHECK_EQ(mana_vs_destroy_rwq_ind_table(s.t), 0);
	CHECK_EQ(mana_vs_destroy_cq(s.rxcq[0]), -EBUSY);		/* WQ still on it */
	CHECK_EQ(mana_vs_destroy_wq(s.wq[0]), 0);
	CHECK_EQ(mana_vs_destroy_wq(s.wq[1]), 0);
	CHECK_EQ(mana_vs_destroy_cq(s.rxcq[0]), 0);
	CHECK_EQ(mana_vs_destroy_comp_channel(s.ch), -EBUSY);	/* rxcq[1] */
	CHECK_EQ(mana_vs_destroy_cq(s.rxcq[1]), 0);
	CHECK_EQ(mana_vs_destroy_comp_channel(s.ch), 0);
	CHECK_EQ(mana_vs_destroy_srq(s.srq), -EBUSY);
	CHECK_EQ(mana_vs_destroy_qp(s.tx), 0);
	CHECK_EQ(mana_vs_destroy_srq(s.srq), 0);
	CHECK_EQ(mana_vs_destroy_cq(s.txcq), 0);
	CHECK_EQ(mana_vs_close_device(f.ctx), -EBUSY);		/* MR, PDs */
	CHECK_EQ(mana_vs_dereg_mr(s.mr), 0);
	free(s.mem);
	CHECK_EQ(mana_vs_close_device(f.ctx), -EBUSY);		/* PDs */
	fx_close(&f);
	/* every ring buffer came back */
	CHECK_EQ(fx_mem.allocs - a0, fx_mem.frees - f0);
}

/* Teardown in the driver's order, twice in a row on one context: nothing leaks. */
static void
test_teardown_cycles(void)
{
	struct stack s;
	unsigned int a0, f0, i;
	struct fx f;

	a0 = fx_mem.allocs;
	f0 = fx_mem.frees;
	REQUIRE(fx_open(&f, 1));
	for (i = 0; i < 3; i++) {
		REQUIRE(stack_new(&f, &s));
		CHECK_EQ(mana_vs_destroy_qp(s.tx), 0);
		CHECK_EQ(mana_vs_destroy_cq(s.txcq), 0);
		CHECK_EQ(mana_vs_destroy_qp(s.rss), 0);
		CHECK_EQ(mana_vs_destroy_rwq_ind_table(s.t), 0);
		CHECK_EQ(mana_vs_destroy_wq(s.wq[1]), 0);
		CHECK_EQ(mana_vs_destroy_cq(s.rxcq[1]), 0);
		CHECK_EQ(mana_vs_destroy_wq(s.wq[0]), 0);
		CHECK_EQ(mana_vs_destroy_cq(s.rxcq[0]), 0);
		CHECK_EQ(mana_vs_destroy_comp_channel(s.ch), 0);
		CHECK_EQ(mana_vs_destroy_srq(s.srq), 0);
		CHECK_EQ(mana_vs_dereg_mr(s.mr), 0);
		free(s.mem);
	}
	fx_close(&f);
	CHECK_EQ(fx_mem.allocs - a0, fx_mem.frees - f0);
	/* per round: 3 CQs, 2 RQs, 1 SQ from the allocator (7.2; SRQs are not rings) */
	CHECK_EQ(fx_mem.allocs - a0, 3 * 6);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_destroy_busy),
	UNIT_TEST(test_teardown_cycles),
};

UNIT_MAIN(tests)
