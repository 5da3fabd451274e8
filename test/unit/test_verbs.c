/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Every verb of lib/verbs_shim/mana_vs.h on a model device (manual engine):
 * success paths, every errno the contract lists (sections 2.2, 2.3, 6, 7.1,
 * 7.2, 8, 14 #2-#15, rule 6), destroy refusals, events and doorbells.
 */

#include <fcntl.h>
#include <poll.h>

#include "fixture.h"

static const uint8_t rss_key[40] = {
	0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2, 0x83, 0x19, 0xdb, 0x1a,
	0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9, 0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7,
	0xd9, 0x56, 0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

static struct ibv_cq *
cq_new(struct fx *f, int cqe)
{
	return mana_vs_create_cq(f->ctx, cqe, NULL, NULL, 0);
}

static struct ibv_wq *
wq_new(struct fx *f, struct ibv_pd *pd, struct ibv_cq *cq, uint32_t max_wr, uint32_t max_sge)
{
	struct ibv_wq_init_attr a;

	memset(&a, 0, sizeof(a));
	a.wq_type = IBV_WQT_RQ;
	a.max_wr = max_wr;
	a.max_sge = max_sge;
	a.pd = pd;
	a.cq = cq;
	return mana_vs_create_wq(f->ctx, &a);
}

static struct ibv_qp *
raw_qp_new(struct ibv_pd *pd, struct ibv_cq *cq, uint32_t wr, uint32_t sge)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.send_cq = cq;
	a.recv_cq = cq;
	a.cap.max_send_wr = wr;
	a.cap.max_send_sge = sge;
	a.qp_type = IBV_QPT_RAW_PACKET;
	return mana_vs_create_qp(pd, &a);
}

static struct ibv_rwq_ind_table *
ind_new(struct fx *f, unsigned int log, struct ibv_wq **wqs)
{
	struct ibv_rwq_ind_table_init_attr a;

	memset(&a, 0, sizeof(a));
	a.log_ind_tbl_size = log;
	a.ind_tbl = wqs;
	return mana_vs_create_rwq_ind_table(f->ctx, &a);
}

/* NULL with errno == e. */
#define CHECK_FAILS(expr, e) do {						\
	errno = 0;								\
	const void *fails_p_ = (expr);						\
	if (fails_p_ != NULL)							\
		UNIT_FAIL("%s succeeded, expected errno %d (%s)", #expr, e,	\
			  strerror(e));						\
	else if (errno != (e))							\
		UNIT_FAIL("%s: errno %d (%s), expected %d (%s)", #expr, errno,	\
			  strerror(errno), e, strerror(e));			\
} while (0)

/* ---- devices ------------------------------------------------------------- */

static void
test_device_list_open_close(void)
{
	struct mana_model_config cfg;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct mana_model *m;
	int n = -1, i, found = -1;

	fx_config(&cfg, 2);
	m = mana_vs_model_create(&cfg);
	REQUIRE_NOT_NULL(m);
	/* the same name twice: refused (names are unique) */
	CHECK_NULL(mana_vs_model_create(&cfg));
	list = mana_vs_get_device_list(&n);
	REQUIRE_NOT_NULL(list);
	CHECK(n >= 1);
	for (i = 0; i < n; i++)
		if (list[i] == mana_model_ibv_device(m))
			found = i;
	CHECK_NULL(list[n]);
	REQUIRE(CHECK(found >= 0));
	CHECK_EQ(mana_vs_device_backend(list[found]), MANA_VS_BACKEND_MODEL);
	CHECK(strcmp(mana_vs_device_name(list[found]), cfg.name) == 0);
	CHECK(mana_vs_ibdev_path(list[found]) != NULL);
	ctx = mana_vs_open_device(list[found]);
	mana_vs_free_device_list(list);
	REQUIRE_NOT_NULL(ctx);
	CHECK_EQ(mana_vs_context_backend(ctx), MANA_VS_BACKEND_MODEL);
	CHECK(mana_vs_model_of(ctx) == m);
	CHECK(mana_model_from_context(ctx) == m);
	CHECK(ctx->device == mana_model_ibv_device(m));
	/* async_fd non-blocking (contract 14 #27) */
	CHECK(fcntl(ctx->async_fd, F_GETFL) & O_NONBLOCK);
	/* the device cannot go while a context is open */
	CHECK_EQ(mana_vs_model_destroy(m), EBUSY);
	CHECK_EQ(mana_vs_close_device(ctx), 0);
	CHECK_EQ(mana_vs_model_destroy(m), 0);
}

static void
test_query_device(void)
{
	struct mana_model_config cfg;
	struct ibv_device_attr_ex attr;
	struct ibv_query_device_ex_input in;
	struct fx f;

	fx_config(&cfg, 3);
	cfg.vendor_part_id = 2;
	cfg.max_qp = 32;
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	memset(&attr, 0, sizeof(attr));
	CHECK_EQ(mana_vs_query_device_ex(f.ctx, NULL, &attr), 0);
	/* rule 5, 14 #28 */
	CHECK_EQ(attr.orig_attr.max_qp_wr, 256);
	CHECK_EQ(attr.orig_attr.max_cqe, 256);
	CHECK_EQ(attr.orig_attr.max_sge, 15);
	CHECK_EQ(attr.orig_attr.phys_port_cnt, 3);
	CHECK_EQ(attr.orig_attr.vendor_part_id, 2);
	CHECK_EQ(attr.orig_attr.max_qp, 32);
	CHECK_NE(attr.raw_packet_caps, 0);
	memset(&in, 0, sizeof(in));
	CHECK_EQ(mana_vs_query_device_ex(f.ctx, &in, &attr), 0);
	in.comp_mask = 1;
	CHECK_EQ(mana_vs_query_device_ex(f.ctx, &in, &attr), EINVAL);
	fx_close(&f);

	fx_config(&cfg, 1);
	cfg.vendor_part_id = 0;
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	memset(&attr, 0, sizeof(attr));
	CHECK_EQ(mana_vs_query_device_ex(f.ctx, NULL, &attr), 0);
	CHECK_EQ(attr.orig_attr.vendor_part_id, 0);
	CHECK_EQ(attr.orig_attr.phys_port_cnt, 1);
	CHECK_EQ(attr.orig_attr.max_qp, 64);	/* default */
	fx_close(&f);
}

static void
test_query_port(void)
{
	struct ibv_port_attr pa;
	struct fx f;

	REQUIRE(fx_open(&f, 2));
	memset(&pa, 0xFF, sizeof(pa));
	CHECK_EQ(mana_vs_query_port(f.ctx, 1, &pa), 0);
	CHECK_EQ(pa.state, IBV_PORT_ACTIVE);
	CHECK_EQ(pa.phys_state, 5);	/* LinkUp */
	CHECK_EQ(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	CHECK_EQ(pa.max_mtu, IBV_MTU_4096);
	CHECK_EQ(mana_vs_query_port(f.ctx, 2, &pa), 0);
	CHECK_EQ(mana_vs_query_port(f.ctx, 0, &pa), EINVAL);
	CHECK_EQ(mana_vs_query_port(f.ctx, 3, &pa), EINVAL);
	/* link down on vPort 1 (IB port 2) */
	CHECK_EQ(mana_model_set_link(f.m, 1, false), 0);
	CHECK_EQ(mana_vs_query_port(f.ctx, 2, &pa), 0);
	CHECK_EQ(pa.state, IBV_PORT_DOWN);
	CHECK_EQ(pa.phys_state, 3);	/* Disabled */
	CHECK_EQ(mana_vs_query_port(f.ctx, 1, &pa), 0);
	CHECK_EQ(pa.state, IBV_PORT_ACTIVE);
	CHECK_EQ(mana_model_set_link(f.m, 1, true), 0);
	CHECK_EQ(mana_vs_query_port(f.ctx, 2, &pa), 0);
	CHECK_EQ(pa.state, IBV_PORT_ACTIVE);
	while (1) {	/* drain the link events */
		struct ibv_async_event ev;

		if (mana_vs_get_async_event(f.ctx, &ev) != 0)
			break;
		mana_vs_ack_async_event(&ev);
	}
	fx_close(&f);
}

static void
test_async_events(void)
{
	struct ibv_async_event ev;
	struct pollfd pfd;
	struct fx f;

	REQUIRE(fx_open(&f, 2));
	CHECK_EQ(mana_vs_get_async_event(f.ctx, &ev), EAGAIN);
	pfd.fd = f.ctx->async_fd;
	pfd.events = POLLIN;
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	CHECK_EQ(mana_model_set_link(f.m, 1, false), 0);
	CHECK_EQ(poll(&pfd, 1, 0), 1);
	memset(&ev, 0, sizeof(ev));
	REQUIRE_EQ(mana_vs_get_async_event(f.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_PORT_ERR);
	CHECK_EQ(ev.element.port_num, 2);
	mana_vs_ack_async_event(&ev);
	CHECK_EQ(mana_vs_get_async_event(f.ctx, &ev), EAGAIN);
	CHECK_EQ(mana_model_set_link(f.m, 1, true), 0);
	REQUIRE_EQ(mana_vs_get_async_event(f.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_PORT_ACTIVE);
	CHECK_EQ(ev.element.port_num, 2);
	mana_vs_ack_async_event(&ev);
	CHECK_EQ(mana_vs_get_async_event(f.ctx, &ev), EAGAIN);
	CHECK_EQ(mana_model_fatal(f.m), 0);
	REQUIRE_EQ(mana_vs_get_async_event(f.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_DEVICE_FATAL);
	mana_vs_ack_async_event(&ev);
	CHECK_EQ(mana_vs_get_async_event(f.ctx, &ev), EAGAIN);
	fx_close(&f);
}

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
	CHECK_FAILS(cq_new(&f, 64), EINVAL);
	/* the CQ and WQ need a CQ to exist: set the allocator for it only */
	REQUIRE_EQ(fx_set_alloc(&f, NULL), 0);
	cq = cq_new(&f, 64);
	REQUIRE_NOT_NULL(cq);
	/* 14 #3: unknown attribute type */
	CHECK_EQ(mana_vs_set_context_attr(f.ctx, (enum manadv_set_ctx_attr_type)1, &a),
		 EOPNOTSUPP);
	/* model policy (8): NULL attr */
	CHECK_EQ(mana_vs_set_context_attr(f.ctx, MANADV_CTX_ATTR_BUF_ALLOCATORS, NULL), EINVAL);
	/* "unset" again: NULL alloc/free pointers */
	memset(&a, 0, sizeof(a));
	CHECK_EQ(mana_vs_set_context_attr(f.ctx, MANADV_CTX_ATTR_BUF_ALLOCATORS, &a), 0);
	CHECK_FAILS(cq_new(&f, 64), EINVAL);
	CHECK_FAILS(wq_new(&f, f.ppd[0], cq, 64, 1), EINVAL);
	CHECK_FAILS(raw_qp_new(f.ppd[0], cq, 64, 1), EINVAL);
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
	cq = cq_new(&f, 64);
	REQUIRE_NOT_NULL(cq);
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = cq;
	obj.cq.out = &dcq;
	/* 14 #4: type bits outside 0x7 */
	CHECK_EQ(mana_vs_init_obj(&obj, 8), EINVAL);
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ | 0x10), EINVAL);
	CHECK_EQ(mana_vs_init_obj(&obj, 1ull << 40), EINVAL);
	/* model policy (8): NULL obj / in / out */
	CHECK_EQ(mana_vs_init_obj(NULL, MANADV_OBJ_CQ), EINVAL);
	obj.cq.out = NULL;
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ), EINVAL);
	obj.cq.out = &dcq;
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ | MANADV_OBJ_QP), EINVAL);
	memset(&dcq, 0xAB, sizeof(dcq));
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ), 0);
	CHECK_EQ(dcq.count, 64);
	CHECK_EQ(dcq.cq_id, 0);	/* 14 #11: no QP yet */
	CHECK(dcq.buf != NULL);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	fx_close(&f);
}

/* ---- sizes and limits ------------------------------------------------------ */

static void
test_buffer_sizes(void)
{
	struct manadv_obj obj;
	struct manadv_cq dcq;
	struct manadv_rwq drwq;
	struct manadv_qp dqp;
	struct ibv_cq *cq, *cq2, *cq3;
	struct ibv_wq *wq;
	struct ibv_qp *qp;
	unsigned int n0, frees0;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	/* CQ buffer = ALIGN(roundup_pow2(cqe * 64), 4096) (2.2) */
	n0 = fx_mem.n;
	cq = cq_new(&f, 256);
	REQUIRE_NOT_NULL(cq);
	CHECK_EQ(fx_mem.n, n0 + 1);
	CHECK_EQ(fx_last_size(n0), 16384);
	CHECK(fx_mem.data[fx_mem.n - 1] == f.alloc_data);
	n0 = fx_mem.n;
	cq2 = cq_new(&f, 100);
	REQUIRE_NOT_NULL(cq2);
	CHECK_EQ(fx_last_size(n0), 8192);
	n0 = fx_mem.n;
	cq3 = cq_new(&f, 1);
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
	wq = wq_new(&f, f.ppd[0], cq, 256, 1);
	REQUIRE_NOT_NULL(wq);
	CHECK_EQ(fx_last_size(n0), 8192);
	memset(&obj, 0, sizeof(obj));
	obj.rwq.in = wq;
	obj.rwq.out = &drwq;
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_RWQ), 0);
	CHECK_EQ(drwq.count, 256);
	CHECK_EQ(drwq.size, 8192);
	CHECK(drwq.buf == fx_mem.ptr[n0]);
	CHECK(drwq.db_page != NULL);
	CHECK_EQ(drwq.wq_id, 0);	/* no RSS QP yet */
	CHECK_EQ(mana_vs_destroy_wq(wq), 0);
	n0 = fx_mem.n;
	wq = wq_new(&f, f.ppd[0], cq, 256, 15);	/* 256 B WQEs */
	REQUIRE_NOT_NULL(wq);
	CHECK_EQ(fx_last_size(n0), 65536);
	CHECK_EQ(mana_vs_destroy_wq(wq), 0);
	n0 = fx_mem.n;
	wq = wq_new(&f, f.ppd[0], cq, 100, 2);	/* 100 x 64 = 6400 -> 8192 */
	REQUIRE_NOT_NULL(wq);
	CHECK_EQ(fx_last_size(n0), 8192);
	obj.rwq.in = wq;
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_RWQ), 0);
	CHECK_EQ(drwq.count, 100);
	CHECK_EQ(drwq.size, 8192);
	CHECK_EQ(mana_vs_destroy_wq(wq), 0);
	n0 = fx_mem.n;
	wq = wq_new(&f, f.ppd[0], cq, 16, 1);	/* 512 B -> the 4096 minimum */
	REQUIRE_NOT_NULL(wq);
	CHECK_EQ(fx_last_size(n0), 4096);
	CHECK_EQ(mana_vs_destroy_wq(wq), 0);

	/* SQ buffer = pow2(ALIGN(max_send_wr * wqe_size(max_send_sge), 4096)) */
	n0 = fx_mem.n;
	qp = raw_qp_new(f.ppd[0], cq3, 256, 15);
	REQUIRE_NOT_NULL(qp);
	CHECK_EQ(fx_last_size(n0), 65536);
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = qp;
	obj.qp.out = &dqp;
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_QP), 0);
	CHECK_EQ(dqp.sq_count, 256);
	CHECK_EQ(dqp.sq_size, 65536);
	CHECK(dqp.sq_buf == fx_mem.ptr[n0]);
	CHECK(dqp.db_page != NULL);
	CHECK_NE(dqp.sq_id, 0);
	frees0 = fx_mem.frees;
	CHECK_EQ(mana_vs_destroy_qp(qp), 0);
	CHECK_EQ(fx_mem.frees, frees0 + 1);
	CHECK(fx_mem.free_data_last == f.alloc_data);
	n0 = fx_mem.n;
	qp = raw_qp_new(f.ppd[0], cq3, 256, 30);	/* 512 B WQEs */
	REQUIRE_NOT_NULL(qp);
	CHECK_EQ(fx_last_size(n0), 131072);
	CHECK_EQ(mana_vs_destroy_qp(qp), 0);
	n0 = fx_mem.n;
	qp = raw_qp_new(f.ppd[0], cq3, 100, 2);	/* 6400 -> 8192 */
	REQUIRE_NOT_NULL(qp);
	CHECK_EQ(fx_last_size(n0), 8192);
	obj.qp.in = qp;
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_QP), 0);
	CHECK_EQ(dqp.sq_count, 100);
	CHECK_EQ(dqp.sq_size, 8192);
	CHECK_EQ(mana_vs_destroy_qp(qp), 0);

	/* allocator failure: ENOMEM */
	fx_mem.fail = true;
	CHECK_FAILS(cq_new(&f, 64), ENOMEM);
	CHECK_FAILS(wq_new(&f, f.ppd[0], cq, 64, 1), ENOMEM);
	CHECK_FAILS(raw_qp_new(f.ppd[0], cq3, 64, 1), ENOMEM);
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

static void
test_limits(void)
{
	struct ibv_cq *cq, *c;
	struct ibv_wq *wq;
	struct ibv_qp *qp;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	/* 14 #5 */
	CHECK_FAILS(cq_new(&f, 257), EINVAL);
	cq = cq_new(&f, 256);
	REQUIRE_NOT_NULL(cq);
	c = cq_new(&f, 256);
	REQUIRE_NOT_NULL(c);
	CHECK_FAILS(wq_new(&f, f.ppd[0], cq, 257, 1), EINVAL);
	CHECK_FAILS(wq_new(&f, f.ppd[0], cq, 256, 16), EINVAL);
	wq = wq_new(&f, f.ppd[0], cq, 256, 15);
	CHECK(wq != NULL);
	if (wq != NULL)
		CHECK_EQ(mana_vs_destroy_wq(wq), 0);
	CHECK_FAILS(raw_qp_new(f.ppd[0], c, 257, 1), EINVAL);
	CHECK_FAILS(raw_qp_new(f.ppd[0], c, 256, 31), EINVAL);
	qp = raw_qp_new(f.ppd[0], c, 256, 30);
	CHECK(qp != NULL);
	if (qp != NULL)
		CHECK_EQ(mana_vs_destroy_qp(qp), 0);
	CHECK_EQ(mana_vs_destroy_cq(c), 0);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	fx_close(&f);
}

/* ---- PDs, MRs, QPs --------------------------------------------------------- */

static void
test_pd_mr(void)
{
	struct ibv_parent_domain_init_attr pa;
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
	/* the PD cannot go while MRs use it (8) */
	CHECK_EQ(mana_vs_dealloc_pd(pd2), EBUSY);
	CHECK_EQ(mana_vs_dereg_mr(mr2), 0);
	CHECK_EQ(mana_vs_dealloc_pd(pd2), EBUSY);
	CHECK_EQ(mana_vs_dereg_mr(mr), 0);
	CHECK_EQ(mana_vs_dealloc_pd(pd2), 0);
	/* f.pd: its parent domains reference it (13 rule 4: parent domain first) */
	CHECK_EQ(mana_vs_dealloc_pd(f.pd), EBUSY);
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
	cq = cq_new(&f, 64);
	REQUIRE_NOT_NULL(cq);
	/* 14 #7: plain PD */
	CHECK_FAILS(raw_qp_new(f.pd, cq, 64, 1), EINVAL);
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
	CHECK_FAILS(raw_qp_new(bad0, cq, 64, 1), EINVAL);
	CHECK_FAILS(raw_qp_new(bad3, cq, 64, 1), EINVAL);
	/* not RAW_PACKET */
	memset(&a, 0, sizeof(a));
	a.send_cq = cq;
	a.recv_cq = cq;
	a.cap.max_send_wr = 64;
	a.cap.max_send_sge = 1;
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
	qp = raw_qp_new(f.ppd[1], cq, 64, 1);
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
		r->cq[i] = cq_new(f, 64);
		if (r->cq[i] == NULL)
			return false;
		r->wq[i] = wq_new(f, f->ppd[0], r->cq[i], 64, 1);
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
	CHECK_FAILS(ind_new(&f, 1, wqs), EINVAL);
	/* the same WQ twice */
	wqs[0] = r.wq[1];
	wqs[1] = r.wq[1];
	CHECK_FAILS(ind_new(&f, 1, wqs), EINVAL);
	wqs[0] = r.wq[0];
	wqs[1] = r.wq[1];
	wqs[2] = r.wq[0];
	wqs[3] = r.wq[1];
	CHECK_FAILS(ind_new(&f, 2, wqs), EINVAL);
	/* two WQs on one CQ (14 #9) */
	cq = cq_new(&f, 64);
	REQUIRE_NOT_NULL(cq);
	shared[0] = wq_new(&f, f.ppd[0], cq, 64, 1);
	shared[1] = wq_new(&f, f.ppd[0], cq, 64, 1);
	REQUIRE(shared[0] != NULL && shared[1] != NULL);
	CHECK_FAILS(ind_new(&f, 1, shared), EINVAL);
	/* a good one, then the WQs are busy until it goes */
	t = ind_new(&f, 1, r.wq);
	REQUIRE_NOT_NULL(t);
	CHECK(t->context == f.ctx);
	CHECK_EQ(mana_vs_destroy_wq(r.wq[0]), EBUSY);
	/* a WQ may sit in two tables */
	{
		struct ibv_rwq_ind_table *t2 = ind_new(&f, 0, &r.wq[1]);

		REQUIRE_NOT_NULL(t2);
		CHECK_EQ(mana_vs_destroy_rwq_ind_table(t), 0);
		CHECK_EQ(mana_vs_destroy_wq(r.wq[1]), EBUSY);
		CHECK_EQ(mana_vs_destroy_rwq_ind_table(t2), 0);
	}
	CHECK_EQ(mana_vs_destroy_wq(shared[0]), 0);
	CHECK_EQ(mana_vs_destroy_wq(shared[1]), 0);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	rx2_del(&r);
	fx_close(&f);
}

static struct ibv_qp *
rss_qp(struct fx *f, struct ibv_pd *pd, struct ibv_rwq_ind_table *t,
       void (*tweak)(struct ibv_qp_init_attr_ex *, void *), void *arg)
{
	struct ibv_qp_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH;
	a.pd = pd;
	a.rwq_ind_tbl = t;
	a.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	a.rx_hash_conf.rx_hash_key_len = 40;
	a.rx_hash_conf.rx_hash_key = (uint8_t *)(uintptr_t)rss_key;
	a.rx_hash_conf.rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4;
	if (tweak != NULL)
		tweak(&a, arg);
	return mana_vs_create_qp_ex(f->ctx, &a);
}

static void
tw_key39(struct ibv_qp_init_attr_ex *a, void *x)
{
	(void)x;
	a->rx_hash_conf.rx_hash_key_len = 39;
}

static void
tw_key41(struct ibv_qp_init_attr_ex *a, void *x)
{
	(void)x;
	a->rx_hash_conf.rx_hash_key_len = 41;
}

static void
tw_func(struct ibv_qp_init_attr_ex *a, void *x)
{
	(void)x;
	a->rx_hash_conf.rx_hash_function = 2;
}

static void
tw_recv_cq(struct ibv_qp_init_attr_ex *a, void *x)
{
	a->recv_cq = x;
}

static void
tw_recv_wr(struct ibv_qp_init_attr_ex *a, void *x)
{
	(void)x;
	a->cap.max_recv_wr = 64;
}

static void
tw_recv_sge(struct ibv_qp_init_attr_ex *a, void *x)
{
	(void)x;
	a->cap.max_recv_sge = 1;
}

static void
tw_srq(struct ibv_qp_init_attr_ex *a, void *x)
{
	a->srq = x;
}

static void
tw_type(struct ibv_qp_init_attr_ex *a, void *x)
{
	(void)x;
	a->qp_type = IBV_QPT_UD;
}

static void
tw_nohash(struct ibv_qp_init_attr_ex *a, void *x)
{
	(void)x;
	a->comp_mask &= ~IBV_QP_INIT_ATTR_RX_HASH;
}

static void
tw_mask(struct ibv_qp_init_attr_ex *a, void *x)
{
	(void)x;
	a->comp_mask |= 1u << 20;
}

static void
test_rss_qp_errors(void)
{
	struct mana_vs_xsrq_init_attr sa;
	struct ibv_rwq_ind_table *t;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct rx2 r;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	REQUIRE(rx2_new(&f, &r));
	t = ind_new(&f, 1, r.wq);
	REQUIRE_NOT_NULL(t);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	sa.srq_type = IBV_SRQT_BASIC;
	srq = mana_vs_create_xsrq(f.pd, &sa);
	REQUIRE_NOT_NULL(srq);
	/* 14 #8 and 6 */
	CHECK_FAILS(rss_qp(&f, f.ppd[0], t, tw_key39, NULL), EINVAL);
	CHECK_FAILS(rss_qp(&f, f.ppd[0], t, tw_key41, NULL), EINVAL);
	CHECK_FAILS(rss_qp(&f, f.ppd[0], t, tw_func, NULL), EINVAL);
	CHECK_FAILS(rss_qp(&f, f.ppd[0], t, tw_recv_cq, r.cq[0]), EINVAL);
	CHECK_FAILS(rss_qp(&f, f.ppd[0], t, tw_recv_wr, NULL), EINVAL);
	CHECK_FAILS(rss_qp(&f, f.ppd[0], t, tw_recv_sge, NULL), EINVAL);
	CHECK_FAILS(rss_qp(&f, f.ppd[0], t, tw_srq, srq), EINVAL);
	CHECK_FAILS(rss_qp(&f, f.ppd[0], t, tw_type, NULL), EINVAL);
	CHECK_FAILS(rss_qp(&f, f.ppd[0], t, tw_nohash, NULL), EINVAL);
	CHECK_FAILS(rss_qp(&f, f.ppd[0], t, tw_mask, NULL), EINVAL);
	CHECK_FAILS(rss_qp(&f, f.pd, t, NULL, NULL), EINVAL);
	/* the failures left nothing referenced: the table can still go */
	qp = rss_qp(&f, f.ppd[0], t, NULL, NULL);
	REQUIRE_NOT_NULL(qp);
	CHECK_EQ(mana_vs_destroy_rwq_ind_table(t), EBUSY);
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
		cq[i] = cq_new(&f, 4);
		if (cq[i] == NULL)
			break;
		wq[i] = wq_new(&f, f.ppd[0], cq[i], 4, 1);
		if (wq[i] == NULL) {
			CHECK_EQ(mana_vs_destroy_cq(cq[i]), 0);
			break;
		}
		made++;
	}
	CHECK_EQ(made, N);
	if (made == N) {
		t = ind_new(&f, 7, wq);
		CHECK(t != NULL);
		if (t != NULL) {
			CHECK_FAILS(rss_qp(&f, f.ppd[0], t, NULL, NULL), EINVAL);
			CHECK_EQ(mana_vs_destroy_rwq_ind_table(t), 0);
		}
		/* 64 entries: accepted */
		t = ind_new(&f, 6, wq);
		CHECK(t != NULL);
		if (t != NULL) {
			struct ibv_qp *qp = rss_qp(&f, f.ppd[0], t, NULL, NULL);

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
	txcq = cq_new(&f, 64);
	REQUIRE_NOT_NULL(txcq);
	for (i = 0; i < 2; i++) {
		memset(&obj, 0, sizeof(obj));
		obj.cq.in = r.cq[i];
		obj.cq.out = &dcq[i];
		obj.rwq.in = r.wq[i];
		obj.rwq.out = &drwq[i];
		CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ | MANADV_OBJ_RWQ), 0);
		CHECK_EQ(dcq[i].cq_id, 0);
		CHECK_EQ(drwq[i].wq_id, 0);
	}
	t = ind_new(&f, 1, r.wq);
	REQUIRE_NOT_NULL(t);
	obj.cq.in = r.cq[0];
	obj.cq.out = &dcq[0];
	CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ), 0);
	CHECK_EQ(dcq[0].cq_id, 0);	/* a table is not a QP */
	qp = rss_qp(&f, f.ppd[0], t, NULL, NULL);
	REQUIRE_NOT_NULL(qp);
	for (i = 0; i < 2; i++) {
		memset(&obj, 0, sizeof(obj));
		obj.cq.in = r.cq[i];
		obj.cq.out = &dcq[i];
		obj.rwq.in = r.wq[i];
		obj.rwq.out = &drwq[i];
		CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_CQ | MANADV_OBJ_RWQ), 0);
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
	tx = raw_qp_new(f.ppd[0], txcq, 64, 1);
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
	cq = cq_new(&f, 64);
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
		CHECK_EQ(mana_vs_dealloc_pd(pd2), EBUSY);
		CHECK_EQ(mana_vs_destroy_srq(s2), 0);
		CHECK_EQ(mana_vs_dealloc_pd(pd2), 0);
	}
	/* a QP naming the SRQ keeps it alive (14 #12, #29) */
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.srq = s;
	qa.cap.max_send_wr = 64;
	qa.cap.max_send_sge = 1;
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qp = mana_vs_create_qp(f.ppd[0], &qa);
	REQUIRE_NOT_NULL(qp);
	CHECK_EQ(mana_vs_destroy_srq(s), EBUSY);
	CHECK_EQ(mana_vs_destroy_qp(qp), 0);
	CHECK_EQ(mana_vs_destroy_srq(s), 0);
	CHECK_EQ(mana_vs_destroy_srq(x), 0);
	CHECK_EQ(mana_vs_destroy_cq(cq), 0);
	fx_close(&f);
}

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
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->ch = mana_vs_create_comp_channel(f->ctx);
	if (s->ch == NULL)
		return false;
	for (i = 0; i < 2; i++) {
		s->rxcq[i] = mana_vs_create_cq(f->ctx, 64, NULL, s->ch, 0);
		if (s->rxcq[i] == NULL)
			return false;
		s->wq[i] = wq_new(f, f->ppd[0], s->rxcq[i], 64, 1);
		if (s->wq[i] == NULL)
			return false;
	}
	s->t = ind_new(f, 1, s->wq);
	s->rss = s->t != NULL ? rss_qp(f, f->ppd[0], s->t, NULL, NULL) : NULL;
	s->txcq = cq_new(f, 64);
	if (s->rss == NULL || s->txcq == NULL)
		return false;
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 8;
	sa.attr.max_sge = 1;
	s->srq = mana_vs_create_xsrq(f->pd, &sa);
	if (s->srq == NULL)
		return false;
	{
		struct ibv_qp_init_attr qa;

		memset(&qa, 0, sizeof(qa));
		qa.send_cq = s->txcq;
		qa.recv_cq = s->txcq;
		qa.srq = s->srq;
		qa.cap.max_send_wr = 64;
		qa.cap.max_send_sge = 2;
		qa.qp_type = IBV_QPT_RAW_PACKET;
		s->tx = mana_vs_create_qp(f->ppd[0], &qa);
	}
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
	CHECK_EQ(mana_vs_close_device(f.ctx), EBUSY);
	CHECK_EQ(mana_vs_destroy_rwq_ind_table(s.t), EBUSY);	/* RSS QP on it */
	CHECK_EQ(mana_vs_destroy_wq(s.wq[0]), EBUSY);		/* in a table */
	CHECK_EQ(mana_vs_destroy_cq(s.rxcq[1]), EBUSY);		/* WQ on it */
	CHECK_EQ(mana_vs_destroy_cq(s.txcq), EBUSY);		/* QP on it */
	CHECK_EQ(mana_vs_destroy_comp_channel(s.ch), EBUSY);	/* CQs on it */
	CHECK_EQ(mana_vs_destroy_srq(s.srq), EBUSY);		/* TX QP names it */

	/* one step at a time: each refusal holds until its user goes */
	CHECK_EQ(mana_vs_destroy_qp(s.rss), 0);
	CHECK_EQ(mana_vs_destroy_wq(s.wq[0]), EBUSY);		/* still in the table */
	CHECK_EQ(mana_vs_destroy_rwq_ind_table(s.t), 0);
	CHECK_EQ(mana_vs_destroy_cq(s.rxcq[0]), EBUSY);		/* WQ still on it */
	CHECK_EQ(mana_vs_destroy_wq(s.wq[0]), 0);
	CHECK_EQ(mana_vs_destroy_wq(s.wq[1]), 0);
	CHECK_EQ(mana_vs_destroy_cq(s.rxcq[0]), 0);
	CHECK_EQ(mana_vs_destroy_comp_channel(s.ch), EBUSY);	/* rxcq[1] */
	CHECK_EQ(mana_vs_destroy_cq(s.rxcq[1]), 0);
	CHECK_EQ(mana_vs_destroy_comp_channel(s.ch), 0);
	CHECK_EQ(mana_vs_destroy_srq(s.srq), EBUSY);
	CHECK_EQ(mana_vs_destroy_qp(s.tx), 0);
	CHECK_EQ(mana_vs_destroy_srq(s.srq), 0);
	CHECK_EQ(mana_vs_destroy_cq(s.txcq), 0);
	CHECK_EQ(mana_vs_close_device(f.ctx), EBUSY);		/* MR, PDs */
	CHECK_EQ(mana_vs_dereg_mr(s.mr), 0);
	free(s.mem);
	CHECK_EQ(mana_vs_close_device(f.ctx), EBUSY);		/* PDs */
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
	REQUIRE(fx_rxq_create(&f, 0, 1, 64, 1, rss_key, ch, &q));
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
	fx_db(q.dv[0].db_page, GDMA_DB_OFFSET_CQ,
	      gdma_db_cq_arm(q.cq[0].dv.cq_id, q.cq[0].c, q.cq[0].dv.count));
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
	fx_db(q.dv[0].db_page, GDMA_DB_OFFSET_CQ,
	      gdma_db_cq_arm(q.cq[0].dv.cq_id, q.cq[0].c, q.cq[0].dv.count));
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
	struct ibv_qp_init_attr a;
	struct manadv_obj obj;
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
	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = q.cq.cq;
	a.cap.max_send_wr = 64;
	a.cap.max_send_sge = 1;
	a.qp_type = IBV_QPT_RAW_PACKET;
	q.qp = mana_vs_create_qp(f.ppd[0], &a);
	REQUIRE_NOT_NULL(q.qp);
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = q.qp;
	obj.qp.out = &q.dv;
	obj.cq.in = q.cq.cq;
	obj.cq.out = &q.cq.dv;
	REQUIRE_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_QP | MANADV_OBJ_CQ), 0);
	fx_cqv_init(&q.cq);
	REQUIRE(fx_buf_init(&f, &b, 4096));
	memcpy(b.base, test_frame, sizeof(test_frame));
	sge = fx_sge(&b, 0, sizeof(test_frame));
	fx_tx_oob(&q, &oob);
	/* arm through the QP's page, then send */
	fx_db(q.dv.db_page, GDMA_DB_OFFSET_CQ,
	      gdma_db_cq_arm(q.cq.dv.cq_id, q.cq.c, q.cq.dv.count));
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
	REQUIRE(fx_rxq_create(&f, 0, 2, 64, 1, rss_key, NULL, &q));
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
	fx_db(t.dv.db_page, GDMA_DB_OFFSET_CQ,
	      gdma_db_cq_arm(q.cq[0].dv.cq_id, q.cq[0].c, q.cq[0].dv.count));
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

static void
test_port_mtu(void)
{
	struct fx f;

	REQUIRE(fx_open(&f, 2));
	CHECK_EQ(mana_vs_set_port_mtu(f.ctx, 1, 9000), 0);
	CHECK_EQ(mana_vs_set_port_mtu(f.ctx, 2, 1500), 0);
	CHECK_EQ(mana_vs_set_port_mtu(f.ctx, 1, MANA_MODEL_MAX_MTU + 1), EINVAL);
	CHECK_EQ(mana_vs_set_port_mtu(f.ctx, 0, 1500), EINVAL);
	CHECK_EQ(mana_vs_set_port_mtu(f.ctx, 3, 1500), EINVAL);
	fx_close(&f);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_device_list_open_close),
	UNIT_TEST(test_query_device),
	UNIT_TEST(test_query_port),
	UNIT_TEST(test_async_events),
	UNIT_TEST(test_allocator_unset),
	UNIT_TEST(test_init_obj_errors),
	UNIT_TEST(test_buffer_sizes),
	UNIT_TEST(test_limits),
	UNIT_TEST(test_pd_mr),
	UNIT_TEST(test_raw_qp_errors),
	UNIT_TEST(test_ind_table_errors),
	UNIT_TEST(test_rss_qp_errors),
	UNIT_TEST(test_rss_table_too_big),
	UNIT_TEST(test_ids),
	UNIT_TEST(test_srq),
	UNIT_TEST(test_destroy_busy),
	UNIT_TEST(test_teardown_cycles),
	UNIT_TEST(test_cq_arm_rx),
	UNIT_TEST(test_cq_arm_tx),
	UNIT_TEST(test_doorbell_wrong_id),
	UNIT_TEST(test_port_mtu),
};

UNIT_MAIN(tests)
