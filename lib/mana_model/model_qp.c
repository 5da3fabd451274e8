/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * QPs: the RAW TX QP (an SQ and its CQ on a vPort) and the RSS QP (the
 * receive steering of a vPort over an indirection table of WQs). hardware.md
 * §6, §7.1, §14 #7, #8, #11.
 *
 * Model policies beyond rdma-core:
 *  - a CQ completes for one queue only (hardware creates one CQ object per
 *    SQ/RQ): binding a CQ already bound to another live queue is EINVAL;
 *  - a WQ serves one RSS QP at a time (EINVAL otherwise), and its PD must
 *    be the RSS QP's PD;
 *  - all QPs of a vPort share one PD (the vPort is configured once per PD,
 *    hardware.md §7.1): another PD gets ENODEV, the kernel's answer.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"

#define MM_QP_EX_MASK (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD | \
		       IBV_QP_INIT_ATTR_CREATE_FLAGS | IBV_QP_INIT_ATTR_MAX_TSO_HEADER | \
		       IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH | \
		       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/* The vPort a parent domain names, or NULL (hardware.md §14 #7). */
static struct mm_port *
mm_qp_port(struct mana_model *m, struct mm_pd *pd, const char *verb)
{
	if (!pd->parent) {
		mm_error(m, MM_LOG_INFO, "%s: RAW QP needs a parent domain", verb);
		return NULL;
	}
	if (pd->port < 1 || pd->port > m->cfg.nports) {
		mm_error(m, MM_LOG_INFO, "%s: parent domain pd_context %u not a port 1..%u", verb,
			 pd->port, m->cfg.nports);
		return NULL;
	}
	return &m->port[pd->port - 1];
}

/* Caller holds m->lock. 0, or ENODEV/ENOMEM/EIO. */
static int
mm_port_claim_check(struct mana_model *m, struct mm_port *p, struct mm_pd *pd, const char *verb)
{
	if (m->fatal) {
		mm_error(m, MM_LOG_INFO, "%s: device is in fatal state", verb);
		return EIO;
	}
	if (pd->ctx->dead) {
		mm_error(m, MM_LOG_INFO, "%s: the context was opened before a device reset", verb);
		return EIO;
	}
	if (m->nqp >= m->cfg.max_qp) {
		mm_error(m, MM_LOG_INFO, "%s: max_qp %u reached", verb, m->cfg.max_qp);
		return ENOMEM;
	}
	if (p->owner_pd != NULL && p->owner_pd != pd->base) {
		mm_error(m, MM_LOG_INFO, "%s: vPort %u is configured by another PD", verb,
			 p->index + 1);
		return ENODEV;
	}
	return 0;
}

void
mm_port_release(struct mm_port *p)
{
	if (--p->nqp == 0)
		p->owner_pd = NULL;
}

static void
mm_qp_init_ibv(struct mm_qp *qp, struct mm_ctx *ctx, void *qp_context, enum ibv_qp_type type)
{
	qp->ctx = ctx;
	qp->ibv.context = &ctx->vctx.context;
	qp->ibv.qp_context = qp_context;
	qp->ibv.pd = &qp->pd->ibv;
	qp->ibv.state = IBV_QPS_RTS;	/* live on creation (hardware.md §10) */
	qp->ibv.qp_type = type;
	pthread_mutex_init(&qp->ibv.mutex, NULL);
	pthread_cond_init(&qp->ibv.cond, NULL);
}

/* ---- RAW TX QP ------------------------------------------------------------- */

static int
mm_raw_check(struct mm_ctx *ctx, struct mm_pd *pd, const struct ibv_qp_init_attr *a)
{
	struct mana_model *m = ctx->m;

	if (a->qp_type != IBV_QPT_RAW_PACKET) {
		mm_error(m, MM_LOG_INFO, "create_qp: type %d is not RAW_PACKET", (int)a->qp_type);
		return EINVAL;
	}
	if (mm_qp_port(m, pd, "create_qp") == NULL)
		return EINVAL;
	if (a->send_cq == NULL || a->send_cq->context != &ctx->vctx.context ||
	    (a->recv_cq != NULL && a->recv_cq->context != &ctx->vctx.context) ||
	    (a->srq != NULL && a->srq->context != &ctx->vctx.context)) {
		mm_error(m, MM_LOG_INFO, "create_qp: send_cq missing, or a foreign cq/srq");
		return EINVAL;
	}
	if (a->cap.max_send_wr < 1 || a->cap.max_send_wr > mm_queue_max(m) ||
	    a->cap.max_send_sge > GDMA_MAX_TX_SGE) {
		mm_error(m, MM_LOG_INFO,
			 "create_qp: max_send_wr %u (1..%u, %s), max_send_sge %u (<= %u)",
			 a->cap.max_send_wr, mm_queue_max(m), mm_queue_max_who(m),
			 a->cap.max_send_sge, GDMA_MAX_TX_SGE);
		return EINVAL;
	}
	return 0;
}

/* SQs on port p: the next one is the k-th (mm_queue_engine). */
static unsigned int
mm_port_sqs(const struct mana_model *m, const struct mm_port *p)
{
	const struct mm_qp *it;
	unsigned int k = 0;

	LIST_FOREACH(it, &m->qps, link)
		k += !it->rss && !it->detached && it->port == p->index;
	return k;
}

/* Bind the QP's CQs and vPort; caller holds m->lock. */
static int
mm_raw_bind(struct mana_model *m, struct mm_qp *qp, const struct ibv_qp_init_attr *a)
{
	struct mm_port *p = &m->port[qp->pd->port - 1];
	int err;

	err = mm_port_claim_check(m, p, qp->pd, "create_qp");
	if (err != 0)
		return err;
	qp->cq = mm_cq_of(a->send_cq);
	if (qp->cq->bound != NULL) {
		mm_error(m, MM_LOG_INFO,
			 "create_qp: send CQ 0x%x already completes for another queue",
			 qp->cq->id);
		return EINVAL;
	}
	if (a->recv_cq != NULL && a->recv_cq != a->send_cq)
		qp->rcq = mm_cq_of(a->recv_cq);
	if (a->srq != NULL)
		qp->srq = (struct mm_srq *)(void *)a->srq;
	qp->port = p->index;
	qp->sq.engine = mm_queue_engine(m, p, mm_port_sqs(m, p));
	qp->ep = &m->eng[qp->sq.engine].port[p->index];
	qp->sq_id = mm_new_queue_id(m);
	if (qp->cq->id == 0)
		qp->cq->id = mm_new_queue_id(m);
	qp->cq->bound = qp;
	qp->cq->users++;
	if (qp->rcq != NULL)
		qp->rcq->users++;
	if (qp->srq != NULL)
		qp->srq->users++;
	qp->pd->users++;
	p->owner_pd = qp->pd->base;
	p->nqp++;
	m->nqp++;
	qp->ctx->nobj++;
	qp->ibv.handle = ++m->handle_ctr;
	qp->ibv.qp_num = qp->sq_id;
	LIST_INSERT_HEAD(&m->qps, qp, link);
	mm_ctx_db_lossy_note(qp->ctx, "SQ");
	return 0;
}

struct ibv_qp *
mana_model_create_qp(struct ibv_pd *p, struct ibv_qp_init_attr *attr)
{
	struct mm_ctx *ctx;
	struct mm_pd *pd;
	struct mm_qp *qp;
	int err;

	if (p == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pd = mm_pd_of(p);
	ctx = pd->ctx;
	err = mm_raw_check(ctx, pd, attr);
	if (err != 0) {
		errno = err;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL)
		return NULL;
	qp->pd = pd;
	qp->sq.count = attr->cap.max_send_wr;
	qp->sq.size = mm_sq_size(attr->cap.max_send_wr, attr->cap.max_send_sge);
	qp->sq.buf = mm_ring_alloc(ctx, qp->sq.size);
	if (qp->sq.buf == NULL)
		goto err_free;
	qp->db = mm_db_page_alloc(ctx, &qp->db_own);
	if (qp->db == NULL)
		goto err_ring;
	mm_qp_init_ibv(qp, ctx, attr->qp_context, IBV_QPT_RAW_PACKET);
	qp->ibv.send_cq = attr->send_cq;
	qp->ibv.recv_cq = attr->recv_cq;
	qp->ibv.srq = attr->srq;
	mm_lock(ctx->m);
	err = mm_raw_bind(ctx->m, qp, attr);
	mm_unlock(ctx->m);
	if (err != 0) {
		errno = err;
		goto err_db;
	}
	attr->cap.max_inline_data = 0;
	return &qp->ibv;
err_db:
	if (qp->db_own)
		mm_db_page_free(ctx, qp->db);
err_ring:
	err = errno;
	mm_ring_free(ctx, qp->sq.buf);
	errno = err;
err_free:
	err = errno;
	free(qp);
	errno = err;
	return NULL;
}

/* ---- RSS QP ------------------------------------------------------------------ */

static int
mm_rss_check(struct mm_ctx *ctx, struct mm_pd *pd, const struct ibv_qp_init_attr_ex *a)
{
	struct mana_model *m = ctx->m;
	const struct ibv_rx_hash_conf *h = &a->rx_hash_conf;
	struct mm_ind *t;

	if (a->qp_type != IBV_QPT_RAW_PACKET || !(a->comp_mask & IBV_QP_INIT_ATTR_RX_HASH) ||
	    a->cap.max_recv_wr != 0 || a->cap.max_recv_sge != 0 || a->recv_cq != NULL ||
	    a->srq != NULL || a->rwq_ind_tbl == NULL ||
	    a->rwq_ind_tbl->context != &ctx->vctx.context) {
		mm_error(m, MM_LOG_INFO, "create_qp_ex: RSS QP needs RAW_PACKET, RX_HASH, a table "
			 "of this context and no recv_cq/srq/max_recv_*");
		return EINVAL;
	}
	if (mm_qp_port(m, pd, "create_qp_ex") == NULL)
		return EINVAL;
	if (h->rx_hash_function != IBV_RX_HASH_FUNC_TOEPLITZ ||
	    h->rx_hash_key_len != MM_RSS_KEY_LEN || h->rx_hash_key == NULL) {
		mm_error(m, MM_LOG_INFO,
			 "create_qp_ex: hash function %u (Toeplitz 1), key length %u (40)",
			 h->rx_hash_function, h->rx_hash_key_len);
		return EINVAL;
	}
	t = (struct mm_ind *)(void *)a->rwq_ind_tbl;
	if ((1u << t->log) > MM_RSS_TABLE_SIZE) {
		mm_error(m, MM_LOG_INFO, "create_qp_ex: table of %u WQs (<= 64)", 1u << t->log);
		return EINVAL;
	}
	for (uint32_t i = 0; i < (1u << t->log); i++) {
		struct mm_wq *wq = t->wqs[i];

		if (wq->rss != NULL || (wq->cq->bound != NULL && wq->cq->bound != wq) ||
		    wq->pd->base != pd->base) {
			mm_error(m, MM_LOG_INFO, "create_qp_ex: WQ %u is used by another RSS QP, "
				 "its CQ by another queue, or its PD differs", i);
			return EINVAL;
		}
	}
	return 0;
}

/* Is t->wqs[i] the first entry of the table naming its WQ? */
static bool
mm_ind_first(const struct mm_ind *t, uint32_t i)
{
	for (uint32_t j = 0; j < i; j++)
		if (t->wqs[j] == t->wqs[i])
			return false;
	return true;
}

/*
 * The table's RX WQs get their engine threads: the k-th created of them
 * (DPDK creates RX queue k k-th) the k-th queue's (mm_queue_engine), so RX
 * queue k shares a thread with SQ k whatever the RETA. ENOMEM (nothing
 * changed) if a handoff ring cannot be had.
 */
static int
mm_rss_assign(struct mana_model *m, struct mm_port *p, struct mm_ind *t)
{
	uint32_t n = 1u << t->log, i, j;
	int err = 0;

	for (i = 0; i < n && err == 0; i++) {
		unsigned int k = 0;

		if (!mm_ind_first(t, i))
			continue;
		for (j = 0; j < n; j++)
			k += mm_ind_first(t, j) && t->wqs[j]->ibv.handle < t->wqs[i]->ibv.handle;
		err = mm_rx_wq_assign(m, t->wqs[i], p->index, mm_queue_engine(m, p, k));
	}
	if (err != 0)
		for (j = 0; j < i; j++)
			mm_rx_wq_release(t->wqs[j]);
	return err;
}

static void
mm_rss_bind(struct mana_model *m, struct mm_qp *qp, struct mm_ind *t)
{
	uint32_t n = 1u << t->log;

	for (uint32_t i = 0; i < n; i++) {
		struct mm_wq *wq = t->wqs[i];

		if (wq->id == 0)
			wq->id = mm_new_queue_id(m);
		if (wq->cq->id == 0)
			wq->cq->id = mm_new_queue_id(m);
		wq->ibv.wq_num = wq->id;
		wq->rss = qp;
		wq->cq->bound = wq;
	}
	/* Hardware table: 64 entries by replication; default_rxobj the last WQ. */
	for (uint32_t i = 0; i < MM_RSS_TABLE_SIZE; i++)
		qp->table64[i] = t->wqs[i & (n - 1)];
	qp->default_wq = t->wqs[n - 1];
	qp->ind = t;
	t->users++;
}

static struct ibv_qp *
mm_create_rss_qp(struct mm_ctx *ctx, struct mm_pd *pd, struct ibv_qp_init_attr_ex *a)
{
	struct mana_model *m = ctx->m;
	struct mm_port *p;
	struct mm_qp *qp;
	int err;

	qp = calloc(1, sizeof(*qp));
	if (qp != NULL)
		qp->rss_ctx = malloc(sizeof(*qp->rss_ctx));
	if (qp == NULL || qp->rss_ctx == NULL) {
		free(qp);
		errno = ENOMEM;
		return NULL;
	}
	mm_lock(m);
	err = mm_rss_check(ctx, pd, a);
	p = err == 0 ? &m->port[pd->port - 1] : NULL;
	if (err == 0)
		err = mm_port_claim_check(m, p, pd, "create_qp_ex");
	if (err == 0)
		err = mm_rss_assign(m, p, (struct mm_ind *)(void *)a->rwq_ind_tbl);
	if (err != 0) {
		mm_unlock(m);
		free(qp->rss_ctx);
		free(qp);
		errno = err;
		return NULL;
	}
	qp->pd = pd;
	qp->rss = true;
	qp->port = p->index;
	memcpy(qp->key, a->rx_hash_conf.rx_hash_key, MM_RSS_KEY_LEN);
	mm_rss_ctx_init(qp->rss_ctx, qp->key);
	mm_qp_init_ibv(qp, ctx, a->qp_context, IBV_QPT_RAW_PACKET);
	mm_rss_bind(m, qp, (struct mm_ind *)(void *)a->rwq_ind_tbl);
	qp->ibv.handle = ++m->handle_ctr;
	qp->ibv.qp_num = mm_new_queue_id(m);
	pd->users++;
	p->owner_pd = pd->base;
	p->nqp++;
	p->rss = qp;		/* the newest RSS QP steers the vPort */
	m->nqp++;
	ctx->nobj++;
	LIST_INSERT_HEAD(&m->qps, qp, link);
	mm_unlock(m);
	return &qp->ibv;
}

struct ibv_qp *
mana_model_create_qp_ex(struct ibv_context *c, struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;
	struct mm_ctx *ctx;

	if (c == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = mm_ctx_of(c);
	if ((attr->comp_mask & ~(uint32_t)MM_QP_EX_MASK) != 0 ||
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || attr->pd == NULL ||
	    attr->pd->context != c) {
		mm_error(ctx->m, MM_LOG_INFO, "create_qp_ex: comp_mask 0x%x or pd invalid",
			 attr->comp_mask);
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags != 0) {
		mm_error(ctx->m, MM_LOG_INFO, "create_qp_ex: create_flags 0x%x unsupported",
			 attr->create_flags);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE)
		return mm_create_rss_qp(ctx, mm_pd_of(attr->pd), attr);
	if (attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH) {
		mm_error(ctx->m, MM_LOG_INFO, "create_qp_ex: RX_HASH without IND_TABLE");
		errno = EINVAL;
		return NULL;
	}
	memset(&a, 0, sizeof(a));
	a.qp_context = attr->qp_context;
	a.send_cq = attr->send_cq;
	a.recv_cq = attr->recv_cq;
	a.srq = attr->srq;
	a.cap = attr->cap;
	a.qp_type = attr->qp_type;
	a.sq_sig_all = attr->sq_sig_all;
	qp = mana_model_create_qp(attr->pd, &a);
	if (qp != NULL)
		attr->cap = a.cap;
	return qp;
}

/* ---- destroy -------------------------------------------------------------------- */

/*
 * The kernel creates the hardware RQ and CQ objects of a WQ only when an RSS
 * QP is created over it, and destroys them with that QP (hardware.md §6, "ids"):
 * the device-side state of the RQ and its CQ ends here. A later RSS QP over
 * the same WQ gets new objects: new ids, the RQ consumer and last doorbell
 * back at BU 0 of the ring, the CQ producer back at count (slot 0, owner lap
 * 1), no arm, no queue error. Whatever the driver posted before is forgotten;
 * the ring memory keeps its bytes, so a driver that keeps its old producer
 * head rings a doorbell the new RQ reads from offset 0 (or rejects as too far
 * ahead), and a driver that keeps its CQ consumer index waits on the wrong
 * slot or owner bits. RAW TX QPs keep their CQ state (no change).
 */
static void
mm_rq_objects_end(struct mm_wq *wq)
{
	struct mm_cq *cq = wq->cq;

	mm_rx_wq_settle(wq);
	if (wq->id != 0) {
		wq->qst.is_sq = false;
		wq->qst.port = wq->rss->port;
		wq->qst.engine = wq->ring.engine;
		mm_queue_retire(wq->ctx->m, wq->id, &wq->qst);
	}
	mm_rx_wq_release(wq);
	/* CQEs held back (cqe_batch) are for frames of this RQ: visible before the CQ resets. */
	mm_cq_publish(wq->ctx->m, cq);
	wq->rss = NULL;
	wq->id = 0;
	memset(&wq->qst, 0, sizeof(wq->qst));
	wq->ibv.wq_num = 0;
	wq->ring.cons_bu = 0;
	wq->ring.tail = 0;
	wq->ring.stopped = false;
	cq->bound = NULL;
	cq->id = 0;
	cq->prod = cq->count;
	cq->slot = 0;
	cq->owner = 1;
	cq->armed = false;
	cq->arm_at = 0;
}

static void
mm_qp_unbind(struct mana_model *m, struct mm_qp *qp)
{
	struct mm_port *p = &m->port[qp->port];

	if (!qp->detached)
		mm_db_drain_qp(m, qp);
	if (qp->rss) {
		struct mm_ind *t = qp->ind;
		struct mm_qp *it;

		for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++)
			if (m->eng[i].rxp.n != 0 && m->eng[i].rxp.wq->rss == qp)
				mm_rx_flush(&m->eng[i]);
		for (uint32_t i = 0; i < (1u << t->log); i++)
			mm_rq_objects_end(t->wqs[i]);
		t->users--;
		if (p->rss == qp) {
			p->rss = NULL;
			LIST_FOREACH(it, &m->qps, link)
				if (it != qp && it->rss && it->port == qp->port && !it->detached) {
					p->rss = it;	/* newest first: list is LIFO */
					break;
				}
		}
	} else {
		qp->qst.is_sq = true;
		qp->qst.port = qp->port;
		qp->qst.engine = qp->sq.engine;
		mm_queue_retire(m, qp->sq_id, &qp->qst);
		qp->cq->bound = NULL;
		qp->cq->users--;
		if (qp->rcq != NULL)
			qp->rcq->users--;
		if (qp->srq != NULL)
			qp->srq->users--;
	}
	qp->pd->users--;
	if (!qp->detached) {
		mm_port_release(p);
		m->nqp--;
	}
	qp->ctx->nobj--;
	LIST_REMOVE(qp, link);
}

int
mana_model_destroy_qp(struct ibv_qp *ibqp)
{
	struct mana_model *m;
	struct mm_qp *qp;

	if (ibqp == NULL)
		return -EINVAL;
	qp = mm_qp_of(ibqp);
	m = qp->ctx->m;
	mm_lock(m);
	mm_qp_unbind(m, qp);
	if (!qp->rss)
		mm_ring_free(qp->ctx, qp->sq.buf);
	mm_unlock(m);
	if (qp->db_own)
		mm_db_page_free(qp->ctx, qp->db);
	free(qp->rss_ctx);
	pthread_mutex_destroy(&ibqp->mutex);
	pthread_cond_destroy(&ibqp->cond);
	free(qp);
	return 0;
}
