/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/* The test fixture's functions (fixture.h says what each does). */

#include "fixture.h"

const uint8_t fx_rss_key[40] = {
	0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2, 0x83, 0x19, 0xdb, 0x1a,
	0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9, 0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7,
	0xd9, 0x56, 0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

struct fx_mem fx_mem;

static unsigned int fx_name_ctr;

void *
fx_alloc(size_t size, void *data)
{
	size_t rounded = (size + 4095) & ~(size_t)4095;
	void *p;

	if (fx_mem.n < FX_MAX_REC) {
		fx_mem.size[fx_mem.n] = size;
		fx_mem.data[fx_mem.n] = data;
		fx_mem.ptr[fx_mem.n] = NULL;
	}
	if (fx_mem.fail) {
		fx_mem.n++;
		return NULL;
	}
	p = aligned_alloc(4096, rounded == 0 ? 4096 : rounded);
	if (p != NULL) {
		memset(p, 0, rounded == 0 ? 4096 : rounded);
		fx_mem.allocs++;
	}
	if (fx_mem.n < FX_MAX_REC)
		fx_mem.ptr[fx_mem.n] = p;
	fx_mem.n++;
	return p;
}

void
fx_free(void *p, void *data)
{
	fx_mem.frees++;
	fx_mem.free_data_last = data;
	free(p);
}

size_t
fx_last_size(unsigned int since)
{
	return fx_mem.n > since && fx_mem.n <= FX_MAX_REC ? fx_mem.size[fx_mem.n - 1] : 0;
}

void
fx_config(struct mana_model_config *cfg, unsigned int nports)
{
	char name[MANA_MODEL_NAME_LEN];
	unsigned int i;

	snprintf(name, sizeof(name), "ut%u_%u", (unsigned int)getpid() % 10000, fx_name_ctr++);
	mana_model_config_init(cfg, name);
	cfg->nports = (uint8_t)nports;
	cfg->manual = true;
	for (i = 0; i < MANA_MODEL_MAX_PORTS; i++)
		cfg->wire[i].type = MANA_MODEL_WIRE_NONE;
}

int
fx_set_alloc(struct fx *f, void *data)
{
	struct manadv_ctx_allocators a = {
		.alloc = fx_alloc,
		.free = fx_free,
		.data = data,
	};

	f->alloc_data = data;
	return mana_vs_set_context_attr(f->ctx, MANADV_CTX_ATTR_BUF_ALLOCATORS, &a);
}

bool
fx_open_cfg(struct fx *f, const struct mana_model_config *cfg, bool with_alloc)
{
	struct ibv_parent_domain_init_attr pa;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	f->nports = cfg->nports;
	f->m = mana_vs_model_create(cfg);
	if (f->m == NULL) {
		UNIT_FAIL("mana_vs_model_create(%s): %s", cfg->name, strerror(errno));
		return false;
	}
	f->ctx = mana_vs_open_device(mana_model_ibv_device(f->m));
	if (f->ctx == NULL) {
		UNIT_FAIL("mana_vs_open_device: %s", strerror(errno));
		return false;
	}
	if (with_alloc && !CHECK_EQ(fx_set_alloc(f, (void *)(uintptr_t)0x5eed), 0))
		return false;
	f->pd = mana_vs_alloc_pd(f->ctx);
	if (f->pd == NULL) {
		UNIT_FAIL("mana_vs_alloc_pd: %s", strerror(errno));
		return false;
	}
	for (i = 0; i < f->nports; i++) {
		memset(&pa, 0, sizeof(pa));
		pa.pd = f->pd;
		pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
		pa.pd_context = (void *)(uintptr_t)(i + 1);	/* IB port, 1-based */
		f->ppd[i] = mana_vs_alloc_parent_domain(f->ctx, &pa);
		if (f->ppd[i] == NULL) {
			UNIT_FAIL("mana_vs_alloc_parent_domain(port %u): %s", i + 1,
				  strerror(errno));
			return false;
		}
	}
	return true;
}

bool
fx_open(struct fx *f, unsigned int nports)
{
	struct mana_model_config cfg;

	fx_config(&cfg, nports);
	return fx_open_cfg(f, &cfg, true);
}

void
fx_close(struct fx *f)
{
	unsigned int i;

	for (i = 0; i < f->nports; i++)
		if (f->ppd[i] != NULL)
			CHECK_EQ(mana_vs_dealloc_pd(f->ppd[i]), 0);
	if (f->pd != NULL)
		CHECK_EQ(mana_vs_dealloc_pd(f->pd), 0);
	if (f->ctx != NULL)
		CHECK_EQ(mana_vs_close_device(f->ctx), 0);
	if (f->m != NULL)
		CHECK_EQ(mana_vs_model_destroy(f->m), 0);
	memset(f, 0, sizeof(*f));
}

void
fx_db(void *page, uint32_t off, uint64_t v)
{
	__atomic_store_n((uint64_t *)(void *)((char *)page + off), v, __ATOMIC_RELEASE);
}

void
fx_run(struct fx *f)
{
	mana_model_run_idle(f->m, 1000);
}

struct mana_model_port_stats
fx_stats(struct fx *f, unsigned int port)
{
	struct mana_model_port_stats st;

	memset(&st, 0, sizeof(st));
	CHECK_EQ(mana_model_port_stats(f->m, port, &st), 0);
	return st;
}

void
fx_cqv_init(struct fx_cqv *c)
{
	c->c = c->dv.count;
}

bool
fx_cq_poll(struct fx_cqv *c, struct gdma_cqe *out)
{
	struct gdma_cqe *e = (struct gdma_cqe *)c->dv.buf + c->c % c->dv.count;
	uint32_t info = __atomic_load_n(&e->info, __ATOMIC_ACQUIRE);
	enum gdma_cqe_owner_state state = gdma_cqe_owner_state(info, c->c / c->dv.count);

	if (state == GDMA_CQE_EMPTY)
		return false;
	if (state == GDMA_CQE_OVERFLOW) {
		UNIT_FAIL("CQ %u overflow at C=%u: owner %u, expected %u", c->dv.cq_id, c->c,
			  GDMA_GET(info, GDMA_CQE_OWNER),
			  gdma_cqe_owner_expected(c->c, c->dv.count));
		return false;
	}
	memcpy(out, e, sizeof(*out));
	out->info = info;
	c->c++;
	return true;
}

unsigned int
fx_cq_drain(struct fx_cqv *c)
{
	struct gdma_cqe e;
	unsigned int n = 0;

	while (fx_cq_poll(c, &e))
		n++;
	return n;
}

uint32_t
fx_cqe_type(const struct gdma_cqe *e)
{
	return GDMA_GET(e->data[0], MANA_CQE_TYPE);
}

uint32_t
fx_wqe_write(uint8_t *ring, uint32_t ring_size, uint32_t head, uint32_t hdr_dw1,
	     const void *oob, uint32_t oob_size, const struct gdma_sge *sge, uint32_t nsge)
{
	uint32_t off = (head * GDMA_WQE_BU_SIZE) & (ring_size - 1);
	uint32_t wqe = gdma_wqe_size(oob_size, nsge);
	struct gdma_wqe_hdr h = { 0, hdr_dw1 };
	uint32_t i, o;

	memcpy(ring + off, &h, sizeof(h));
	memset(ring + off + GDMA_WQE_HDR_SIZE, 0, oob_size);
	if (oob != NULL)
		memcpy(ring + off + GDMA_WQE_HDR_SIZE, oob, oob_size);
	o = off + GDMA_WQE_HDR_SIZE + oob_size;
	for (i = 0; i < nsge; i++) {
		o &= ring_size - 1;
		memcpy(ring + o, &sge[i], sizeof(sge[i]));
		o += GDMA_SGE_SIZE;
	}
	return wqe / GDMA_WQE_BU_SIZE;
}

struct ibv_cq *
fx_cq_new(struct fx *f, int cqe)
{
	return mana_vs_create_cq(f->ctx, cqe, NULL, NULL, 0);
}

struct ibv_wq *
fx_wq_new(struct fx *f, struct ibv_pd *pd, struct ibv_cq *cq, uint32_t max_wr, uint32_t max_sge)
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

void
fx_raw_qp_attr(struct ibv_qp_init_attr *a, struct ibv_cq *cq, uint32_t wr, uint32_t sge)
{
	memset(a, 0, sizeof(*a));
	a->send_cq = cq;
	a->recv_cq = cq;
	a->cap.max_send_wr = wr;
	a->cap.max_send_sge = sge;
	a->qp_type = IBV_QPT_RAW_PACKET;
}

struct ibv_qp *
fx_raw_qp_new(struct ibv_pd *pd, struct ibv_cq *cq, uint32_t wr, uint32_t sge)
{
	struct ibv_qp_init_attr a;

	fx_raw_qp_attr(&a, cq, wr, sge);
	return mana_vs_create_qp(pd, &a);
}

struct ibv_rwq_ind_table *
fx_ind_new(struct fx *f, unsigned int log, struct ibv_wq **wqs)
{
	struct ibv_rwq_ind_table_init_attr a;

	memset(&a, 0, sizeof(a));
	a.log_ind_tbl_size = log;
	a.ind_tbl = wqs;
	return mana_vs_create_rwq_ind_table(f->ctx, &a);
}

void
fx_rss_attr(struct ibv_qp_init_attr_ex *a, struct ibv_pd *pd, struct ibv_rwq_ind_table *ind,
	    const uint8_t *key, uint64_t fields)
{
	memset(a, 0, sizeof(*a));
	a->qp_type = IBV_QPT_RAW_PACKET;
	a->comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
		       IBV_QP_INIT_ATTR_RX_HASH;
	a->pd = pd;
	a->rwq_ind_tbl = ind;
	a->rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	a->rx_hash_conf.rx_hash_key_len = 40;
	a->rx_hash_conf.rx_hash_key = (uint8_t *)(uintptr_t)key;
	a->rx_hash_conf.rx_hash_fields_mask = fields;
}

int
fx_init_rx(struct ibv_cq *cq, struct manadv_cq *dcq, struct ibv_wq *wq, struct manadv_rwq *drwq)
{
	struct manadv_obj obj;

	memset(&obj, 0, sizeof(obj));
	obj.cq.in = cq;
	obj.cq.out = dcq;
	obj.rwq.in = wq;
	obj.rwq.out = drwq;
	return mana_vs_init_obj(&obj, MANADV_OBJ_CQ | MANADV_OBJ_RWQ);
}

bool
fx_txq_attach(struct fx *f, unsigned int port, uint32_t depth, uint32_t max_sge,
	      struct fx_txq *q)
{
	struct manadv_obj obj;

	q->qp = fx_raw_qp_new(f->ppd[port], q->cq.cq, depth, max_sge);
	if (q->qp == NULL) {
		UNIT_FAIL("create_qp(port %u): %s", port + 1, strerror(errno));
		return false;
	}
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = q->qp;
	obj.qp.out = &q->dv;
	obj.cq.in = q->cq.cq;
	obj.cq.out = &q->cq.dv;
	if (!CHECK_EQ(mana_vs_init_obj(&obj, MANADV_OBJ_QP | MANADV_OBJ_CQ), 0))
		return false;
	fx_cqv_init(&q->cq);
	return true;
}

bool
fx_txq_create(struct fx *f, unsigned int port, uint32_t depth, uint32_t max_sge,
	      struct fx_txq *q)
{
	memset(q, 0, sizeof(*q));
	q->cq.cq = fx_cq_new(f, (int)depth);
	if (q->cq.cq == NULL) {
		UNIT_FAIL("create_cq(%u): %s", depth, strerror(errno));
		return false;
	}
	return fx_txq_attach(f, port, depth, max_sge, q);
}

void
fx_txq_destroy(struct fx_txq *q)
{
	if (q->qp != NULL)
		CHECK_EQ(mana_vs_destroy_qp(q->qp), 0);
	if (q->cq.cq != NULL)
		CHECK_EQ(mana_vs_destroy_cq(q->cq.cq), 0);
	memset(q, 0, sizeof(*q));
}

void
fx_tx_oob(const struct fx_txq *q, struct mana_tx_oob *oob)
{
	memset(oob, 0, sizeof(*oob));
	oob->dw0 = GDMA_SET(MANA_TX_PKT_FMT, MANA_TX_PKT_FMT_SHORT) |
		   GDMA_SET(MANA_TX_VCQ_NUM, q->cq.dv.cq_id);
	oob->dw1 = GDMA_SET(MANA_TX_VSQ_FRAME, mana_tx_vsq_frame(q->dv.sq_id)) |
		   GDMA_SET(MANA_TX_SHORT_VP_OFFSET, q->dv.tx_vp_offset);
}

void
fx_tx_oob_long(const struct fx_txq *q, struct mana_tx_oob *oob)
{
	fx_tx_oob(q, oob);
	oob->dw0 = (oob->dw0 & ~GDMA_SET(MANA_TX_PKT_FMT, 3)) |
		   GDMA_SET(MANA_TX_PKT_FMT, MANA_TX_PKT_FMT_LONG);
	oob->dw3 = GDMA_SET(MANA_TX_LONG_VP_OFFSET, q->dv.tx_vp_offset);
}

uint32_t
fx_tx_write(struct fx_txq *q, const struct mana_tx_oob *oob, bool long_oob,
	    const struct gdma_sge *sge, uint32_t nsge)
{
	uint32_t oob_size = long_oob ? GDMA_OOB_SIZE_LARGE : GDMA_OOB_SIZE_SMALL;
	uint32_t dw1 = GDMA_SET(GDMA_WQE_NUM_SGE, nsge) |
		       GDMA_SET(GDMA_WQE_OOB_DIV4, oob_size / 4);
	uint32_t at = q->head;

	q->head += fx_wqe_write(q->dv.sq_buf, q->dv.sq_size, q->head, dw1, oob, oob_size,
				sge, nsge);
	return at;
}

void
fx_tx_ring(struct fx_txq *q)
{
	fx_db(q->dv.db_page, GDMA_DB_OFFSET_SQ, gdma_db_wq(q->dv.sq_id, q->head));
}

void
fx_cq_arm(void *db_page, const struct fx_cqv *c)
{
	fx_db(db_page, GDMA_DB_OFFSET_CQ, gdma_db_cq_arm(c->dv.cq_id, c->c, c->dv.count));
}

struct ibv_qp *
fx_rss_qp(struct fx *f, unsigned int port, struct ibv_rwq_ind_table *ind, const uint8_t *key)
{
	struct ibv_qp_init_attr_ex a;

	fx_rss_attr(&a, f->ppd[port], ind, key,
		    IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
		    IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP);
	return mana_vs_create_qp_ex(f->ctx, &a);
}

bool
fx_rxq_create(struct fx *f, unsigned int port, unsigned int n, uint32_t depth, uint32_t max_sge,
	      const uint8_t *key, struct ibv_comp_channel *chan, struct fx_rxq *q)
{
	unsigned int i, log = 0;

	memset(q, 0, sizeof(*q));
	q->n = n;
	q->chan = chan;
	while ((1u << log) < n)
		log++;
	for (i = 0; i < n; i++) {
		q->cq[i].cq = mana_vs_create_cq(f->ctx, (int)depth, (void *)(uintptr_t)(0x100 + i),
						chan, 0);
		if (q->cq[i].cq == NULL) {
			UNIT_FAIL("create_cq(%u): %s", depth, strerror(errno));
			return false;
		}
		q->wq[i] = fx_wq_new(f, f->ppd[port], q->cq[i].cq, depth, max_sge);
		if (q->wq[i] == NULL) {
			UNIT_FAIL("create_wq: %s", strerror(errno));
			return false;
		}
	}
	q->ind = fx_ind_new(f, log, q->wq);
	if (q->ind == NULL) {
		UNIT_FAIL("create_rwq_ind_table(log %u): %s", log, strerror(errno));
		return false;
	}
	q->qp = fx_rss_qp(f, port, q->ind, key);
	if (q->qp == NULL) {
		UNIT_FAIL("create_qp_ex(RSS): %s", strerror(errno));
		return false;
	}
	for (i = 0; i < n; i++) {
		if (!CHECK_EQ(fx_init_rx(q->cq[i].cq, &q->cq[i].dv, q->wq[i], &q->dv[i]), 0))
			return false;
		fx_cqv_init(&q->cq[i]);
	}
	return true;
}

void
fx_rxq_destroy(struct fx_rxq *q)
{
	unsigned int i;

	if (q->qp != NULL)
		CHECK_EQ(mana_vs_destroy_qp(q->qp), 0);
	if (q->ind != NULL)
		CHECK_EQ(mana_vs_destroy_rwq_ind_table(q->ind), 0);
	for (i = 0; i < q->n; i++) {
		if (q->wq[i] != NULL)
			CHECK_EQ(mana_vs_destroy_wq(q->wq[i]), 0);
		if (q->cq[i].cq != NULL)
			CHECK_EQ(mana_vs_destroy_cq(q->cq[i].cq), 0);
	}
	memset(q, 0, sizeof(*q));
}

uint32_t
fx_rx_write(struct fx_rxq *q, unsigned int i, const struct gdma_sge *sge, uint32_t nsge)
{
	uint32_t dw1 = GDMA_SET(GDMA_WQE_NUM_SGE, nsge) |
		       GDMA_SET(GDMA_WQE_OOB_DIV4, GDMA_WQE_OOB_DIV4_SMALL);
	uint32_t at = q->head[i];

	q->head[i] += fx_wqe_write(q->dv[i].buf, q->dv[i].size, q->head[i], dw1, NULL,
				   GDMA_OOB_SIZE_SMALL, sge, nsge);
	return at;
}

void
fx_rx_ring(struct fx_rxq *q, unsigned int i)
{
	fx_db(q->dv[i].db_page, GDMA_DB_OFFSET_RQ, gdma_db_wq(q->dv[i].wq_id, q->head[i]));
}

bool
fx_buf_init(struct fx *f, struct fx_buf *b, size_t len)
{
	b->len = (len + 4095) & ~(size_t)4095;
	b->base = aligned_alloc(4096, b->len);
	if (b->base == NULL)
		return false;
	memset(b->base, 0, b->len);
	b->mr = mana_vs_reg_mr(f->pd, b->base, b->len, IBV_ACCESS_LOCAL_WRITE);
	if (b->mr == NULL) {
		UNIT_FAIL("reg_mr: %s", strerror(errno));
		return false;
	}
	return true;
}

void
fx_buf_fini(struct fx_buf *b)
{
	if (b->mr != NULL)
		CHECK_EQ(mana_vs_dereg_mr(b->mr), 0);
	free(b->base);
	memset(b, 0, sizeof(*b));
}

struct gdma_sge
fx_sge(const struct fx_buf *b, size_t off, uint32_t len)
{
	struct gdma_sge s = {
		.address = (uint64_t)(uintptr_t)(b->base + off),
		.mem_key = b->mr->lkey,
		.size = len,
	};

	return s;
}
