/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * manadv on a model device: the ring allocator (set, unset, failing, the
 * free callback used), manadv_init_obj errors, the ring buffer sizes of CQs,
 * RQs and SQs and the queue limits (hardware.md §2.2, §7.2, §8, §14 #2-#5).
 */

#include "fixture.h"
#include "verbs_helpers.h"

/* ---- manadv ---------------------------------------------------------------- */

static void
test_allocator_unset(void)
{
	struct mana_model_config cfg;
	struct manadv_ctx_allocators a = { fx_alloc, fx_free, NULL };
	struct ibv_cq *cq;
	struct fx f;

	fx_config(&cfg, 1);
	REQUIRE(fx_open_cfg(&f, &cfg, false));
	/* 14 #2: no allocator, no queues */
	CHECK_FAILS(fx_cq_new(&f, 64), EINVAL);
	/* the CQ and WQ need a CQ to exist: set the allocator for it only */
	REQUIRE_EQ(fx_set_alloc(&f, NULL), 0);
	cq = fx_cq_new(&f, 64);
	REQUIRE_NOT_NULL(cq);
	/* 14 #3: unknown attribute type */
	CHECK_EQ(mana_vs_set_context_attr(f.ctx, (enum manadv_set_ctx_attr_type)1, &a), -EOPNOTSUPP);
	/* model policy (8): NULL attr */
	CHECK_EQ(mana_vs_set_context_attr(f.ctx, MANADV_CTX_ATTR_BUF_ALLOCATORS, NULL), -EINVAL);
	/* "unset" again: NULL alloc/free pointers */
	memset(&a, 0, sizeof(a));
	CHECK_EQ(mana_vs_set_context_attr(f.ctx, MANADV_CTX_ATTR_BUF_ALLOCATORS, &a), 0);
	CHECK_FAILS(fx_cq_new(&f, 64), EINVAL);
	CHECK_FAILS(fx_wq_new(&f, f.ppd[0], cq, 64, 1), EINVAL);
	CHECK_FAILS(fx_raw_qp_new(f.ppd[0], cq, 64, 1), EINVAL);
	REQUIRE_EQ(fx_set_alloc(&f, NULL), 0);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	fx_close(&f);
}

static void
test_init_obj_errors(void)
{
	struct manadv_obj obj;
	struct manadv_cq dcq;
	struct ibv_cq *cq;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	cq = fx_cq_new(&f, 64);
	REQUIRE_NOT_NULL(cq);
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = cq;
	obj.cq.out = &dcq;
	/* 14 #4: type bits outside 0x7 */
	CHECK_EQ(mana_vs_init_obj(&obj, 8), -EINVAL);
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ | 0x10), -EINVAL);
	CHECK_EQ(mana_vs_init_obj(&obj, 1ull << 40), -EINVAL);
	/* model policy (8): NULL obj / in / out */
	CHECK_EQ(mana_vs_init_obj(NULL, MANADV_OBJ_CQ), -EINVAL);
	obj.cq.out = NULL;
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ), -EINVAL);
	obj.cq.out = &dcq;
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ | MANADV_OBJ_QP), -EINVAL);
	memset(&dcq, 0xAB, sizeof(dcq));
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ), 0);
	CHECK_EQ(dcq.count, 64);
	CHECK_EQ(dcq.cq_id, 0);	/* 14 #11: no QP yet */
	CHECK(dcq.buf != NULL);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	fx_close(&f);
}

/* ---- sizes and limits ------------------------------------------------------ */

/*
 * Make an RQ of max_wr x max_sge on cq, read its ring view into *dv (unless
 * NULL) and destroy it: the bytes the allocator gave its ring (0 on failure).
 */
static size_t
rq_ring_bytes(struct fx *f, struct ibv_cq *cq, uint32_t max_wr, uint32_t max_sge,
	      struct manadv_rwq *dv)
{
	unsigned int n0 = fx_mem.n;
	struct manadv_obj obj;
	struct ibv_wq *wq;
	size_t size;

	wq = fx_wq_new(f, f->ppd[0], cq, max_wr, max_sge);
	if (wq == NULL) {
		UNIT_FAIL("create_wq(%u x %u SGEs): %s", max_wr, max_sge, strerror(errno));
		return 0;
	}
	size = fx_last_size(n0);
	if (dv != NULL) {
		memset(&obj, 0, sizeof(obj));
		obj.rwq.in = wq;
		obj.rwq.out = dv;
		CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_RWQ), 0);
	}
	CHECK_EQ(mana_vs_destroy_wq(wq), 0);
	return size;
}

/* The same for an SQ of max_wr x max_sge (a RAW_PACKET QP on cq). */
static size_t
sq_ring_bytes(struct fx *f, struct ibv_cq *cq, uint32_t max_wr, uint32_t max_sge,
	      struct manadv_qp *dv)
{
	unsigned int n0 = fx_mem.n;
	struct manadv_obj obj;
	struct ibv_qp *qp;
	size_t size;

	qp = fx_raw_qp_new(f->ppd[0], cq, max_wr, max_sge);
	if (qp == NULL) {
		UNIT_FAIL("create_qp(%u x %u SGEs): %s", max_wr, max_sge, strerror(errno));
		return 0;
	}
	size = fx_last_size(n0);
	if (dv != NULL) {
		memset(&obj, 0, sizeof(obj));
		obj.qp.in = qp;
		obj.qp.out = dv;
		CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_QP), 0);
	}
	CHECK_EQ(mana_vs_destroy_qp(qp), 0);
	return size;
}

static void
test_buffer_sizes(void)
{
	struct manadv_obj obj;
	struct manadv_cq dcq;
	struct manadv_rwq drwq;
	struct manadv_qp dqp;
	struct ibv_cq *cq, *cq2, *cq3;
	unsigned int n0, frees0;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	/* CQ buffer = ALIGN(roundup_pow2(cqe * 64), 4096) (2.2) */
	n0 = fx_mem.n;
	cq = fx_cq_new(&f, 256);
	REQUIRE_NOT_NULL(cq);
	CHECK_EQ(fx_mem.n, n0 + 1);
	CHECK_EQ(fx_last_size(n0), 16384);
	CHECK(fx_mem.data[fx_mem.n - 1] == f.alloc_data);
	n0 = fx_mem.n;
	cq2 = fx_cq_new(&f, 100);
	REQUIRE_NOT_NULL(cq2);
	CHECK_EQ(fx_last_size(n0), 8192);
	n0 = fx_mem.n;
	cq3 = fx_cq_new(&f, 1);
	REQUIRE_NOT_NULL(cq3);
	CHECK_EQ(fx_last_size(n0), 4096);
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = cq2;
	obj.cq.out = &dcq;
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ), 0);
	CHECK_EQ(dcq.count, 100);	/* not rounded */
	CHECK(dcq.buf == fx_mem.ptr[n0 - 1]);

	/* RQ buffer = pow2(ALIGN(max_wr * wqe_size(max_sge), 4096)) */
	n0 = fx_mem.n;
	CHECK_EQ(rq_ring_bytes(&f, cq, 256, 1, &drwq), 8192);
	CHECK_EQ(drwq.count, 256);
	CHECK_EQ(drwq.size, 8192);
	CHECK(drwq.buf == fx_mem.ptr[n0]);
	CHECK(drwq.db_page != NULL);
	CHECK_EQ(drwq.wq_id, 0);	/* no RSS QP yet */
	CHECK_EQ(rq_ring_bytes(&f, cq, 256, 15, NULL), 65536);	/* 256 B WQEs */
	CHECK_EQ(rq_ring_bytes(&f, cq, 100, 2, &drwq), 8192);	/* 100 x 64 = 6400 -> 8192 */
	CHECK_EQ(drwq.count, 100);
	CHECK_EQ(drwq.size, 8192);
	CHECK_EQ(rq_ring_bytes(&f, cq, 16, 1, NULL), 4096);	/* 512 B -> the 4096 minimum */

	/* SQ buffer = pow2(ALIGN(max_send_wr * wqe_size(max_send_sge), 4096)) */
	n0 = fx_mem.n;
	frees0 = fx_mem.frees;
	CHECK_EQ(sq_ring_bytes(&f, cq3, 256, 15, &dqp), 65536);
	CHECK_EQ(dqp.sq_count, 256);
	CHECK_EQ(dqp.sq_size, 65536);
	CHECK(dqp.sq_buf == fx_mem.ptr[n0]);
	CHECK(dqp.db_page != NULL);
	CHECK_NE(dqp.sq_id, 0);
	/* the QP's one ring buffer, freed through the allocator's data */
	CHECK_EQ(fx_mem.frees, frees0 + 1);
	CHECK(fx_mem.free_data_last == f.alloc_data);
	CHECK_EQ(sq_ring_bytes(&f, cq3, 256, 30, NULL), 131072);	/* 512 B WQEs */
	CHECK_EQ(sq_ring_bytes(&f, cq3, 100, 2, &dqp), 8192);	/* 6400 -> 8192 */
	CHECK_EQ(dqp.sq_count, 100);
	CHECK_EQ(dqp.sq_size, 8192);

	/* allocator failure: ENOMEM */
	fx_mem.fail = true;
	CHECK_FAILS(fx_cq_new(&f, 64), ENOMEM);
	CHECK_FAILS(fx_wq_new(&f, f.ppd[0], cq, 64, 1), ENOMEM);
	CHECK_FAILS(fx_raw_qp_new(f.ppd[0], cq3, 64, 1), ENOMEM);
	fx_mem.fail = false;

	/* the free callback current at destroy time is used (7.2) */
	CHECK_EQ(fx_set_alloc(&f, (void *)(uintptr_t)0x77), 0);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	CHECK(fx_mem.free_data_last == (void *)(uintptr_t)0x77);
	CHECK_EQ(mana_vs_destroy_cq(cq2), 0);
	CHECK_EQ(mana_vs_destroy_cq(cq3), 0);
	fx_close(&f);
	CHECK_EQ(fx_mem.allocs, fx_mem.frees);
}

/*
 * The deepest queue each verb takes: max_qp_wr (the kernel's), or 256 under
 * the provider of rdma-core < 49 (hardware.md §2.3); query_device reports the
 * kernel's value either way.
 */
static void
limits_check(uint32_t max_qp_wr, uint32_t rdma_core, uint32_t want)
{
	struct mana_model_config cfg;
	struct ibv_device_attr_ex attr;
	struct ibv_cq *cq, *c;
	struct ibv_wq *wq;
	struct ibv_qp *qp;
	struct fx f;

	printf("  max_qp_wr %u rdma_core %u: queues up to %u\n", max_qp_wr, rdma_core, want);
	fx_config(&cfg, 1);
	cfg.max_qp_wr = max_qp_wr;
	cfg.rdma_core = rdma_core;
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	memset(&attr, 0, sizeof(attr));
	CHECK_EQ(mana_vs_query_device_ex(f.ctx, NULL, &attr), 0);
	CHECK_EQ(attr.orig_attr.max_qp_wr, (int)max_qp_wr);
	CHECK_EQ(attr.orig_attr.max_cqe, (int)max_qp_wr);
	/* 14 #5 */
	CHECK_FAILS(fx_cq_new(&f, (int)want + 1), EINVAL);
	cq = fx_cq_new(&f, (int)want);
	REQUIRE_NOT_NULL(cq);
	c = fx_cq_new(&f, (int)want);
	REQUIRE_NOT_NULL(c);
	CHECK_FAILS(fx_wq_new(&f, f.ppd[0], cq, want + 1, 1), EINVAL);
	CHECK_FAILS(fx_wq_new(&f, f.ppd[0], cq, want, 16), EINVAL);
	wq = fx_wq_new(&f, f.ppd[0], cq, want, 15);
	CHECK(wq != NULL);
	if (wq != NULL)
		CHECK_EQ(mana_vs_destroy_wq(wq), 0);
	CHECK_FAILS(fx_raw_qp_new(f.ppd[0], c, want + 1, 1), EINVAL);
	CHECK_FAILS(fx_raw_qp_new(f.ppd[0], c, want, 31), EINVAL);
	qp = fx_raw_qp_new(f.ppd[0], c, want, 30);
	CHECK(qp != NULL);
	if (qp != NULL)
		CHECK_EQ(mana_vs_destroy_qp(qp), 0);
	CHECK_EQ(mana_vs_destroy_cq(c), 0);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	fx_close(&f);
}

static void
test_limits(void)
{
	limits_check(2048, 44, 256);	/* Debian 12 on a current kernel */
	limits_check(2048, 48, 256);
	limits_check(2048, 49, 2048);	/* rdma-core 3bbc4f757 */
	limits_check(2048, 56, 2048);	/* Debian 13 */
	limits_check(256, 56, 256);	/* kernel 6.2 */
	limits_check(512, 56, 512);
	limits_check(100, 44, 100);
}

/* Ring buffers of 2048-entry queues, as the provider sizes them (2.2). */
static void
test_buffer_sizes_2048(void)
{
	struct mana_model_config cfg;
	struct ibv_cq *cq, *cq2;
	unsigned int n0;
	struct fx f;

	fx_config(&cfg, 1);
	cfg.max_qp_wr = 2048;
	cfg.rdma_core = 56;
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	n0 = fx_mem.n;
	cq = fx_cq_new(&f, 2048);
	REQUIRE_NOT_NULL(cq);
	CHECK_EQ(fx_last_size(n0), 131072);	/* 2048 x 64 */
	cq2 = fx_cq_new(&f, 2048);
	REQUIRE_NOT_NULL(cq2);
	CHECK_EQ(rq_ring_bytes(&f, cq, 2048, 1, NULL), 65536);	/* 32 B WQEs */
	CHECK_EQ(rq_ring_bytes(&f, cq, 2048, 15, NULL), 524288);	/* 256 B WQEs */
	CHECK_EQ(sq_ring_bytes(&f, cq2, 2048, 30, NULL), 1048576);	/* 512 B WQEs */
	CHECK_EQ(mana_vs_destroy_cq(cq2), 0);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	fx_close(&f);
	CHECK_EQ(fx_mem.allocs, fx_mem.frees);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_allocator_unset),
	UNIT_TEST(test_init_obj_errors),
	UNIT_TEST(test_buffer_sizes),
	UNIT_TEST(test_limits),
	UNIT_TEST(test_buffer_sizes_2048),
};

UNIT_MAIN(tests)
