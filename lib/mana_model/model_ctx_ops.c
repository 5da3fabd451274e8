/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The ops of a model context's struct verbs_context, so the context is well
 * formed for rdma-core's inline verbs (hardware.md §9, §14 #1): every op the MANA
 * provider has maps onto the model's verb, every other op answers
 * EOPNOTSUPP like libibverbs' dummy ops. No pointer is left NULL.
 */

#include <errno.h>
#include <string.h>

#include "model_priv.h"

/*
 * ---- wrappers whose signature or convention differs from the model verb --
 *
 * rdma-core's inline verbs call these ops and hand their result to the
 * program as is: a positive errno value (hardware.md §8), where the model's
 * verbs return DPDK's negative one.
 */

static int
mm_op_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *attr, size_t len)
{
	struct ibv_port_attr a;
	int rc = mana_model_query_port(c, port, &a);

	if (rc == 0)
		memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return -rc;
}

static int
mm_op_query_device_ex(struct ibv_context *c, const struct ibv_query_device_ex_input *input,
		      struct ibv_device_attr_ex *attr, size_t len)
{
	struct ibv_device_attr_ex a;
	int rc = mana_model_query_device_ex(c, input, &a);

	if (rc == 0)
		memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return -rc;
}

static int
mm_op_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table)
{
	return -mana_model_destroy_rwq_ind_table(table);
}

static int
mm_op_destroy_wq(struct ibv_wq *wq)
{
	return -mana_model_destroy_wq(wq);
}

/* ---- EOPNOTSUPP answers (ibv_context_ops) ------------------------------ */

static int
mm_op_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq; (void)n; (void)wc;
	return EOPNOTSUPP;	/* "Polling CQ is done directly in the application" */
}

static int
mm_op_req_notify_cq(struct ibv_cq *cq, int solicited)
{
	(void)cq; (void)solicited;
	return EOPNOTSUPP;
}

static int
mm_op_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	return EOPNOTSUPP;
}

static int
mm_op_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	return EOPNOTSUPP;
}

static int
mm_op_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq; (void)wr; (void)bad;
	return EOPNOTSUPP;
}

static struct ibv_mw *
mm_op_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	(void)pd; (void)type;
	errno = EOPNOTSUPP;
	return NULL;
}

static int
mm_op_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	(void)qp; (void)mw; (void)bind;
	return EOPNOTSUPP;
}

static int
mm_op_dealloc_mw(struct ibv_mw *mw)
{
	(void)mw;
	return EOPNOTSUPP;
}

/* ---- EOPNOTSUPP answers (verbs_context) -------------------------------- */

static int
mm_op_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
		struct ibv_sge *sg, uint32_t n)
{
	(void)pd; (void)advice; (void)flags; (void)sg; (void)n;
	return EOPNOTSUPP;
}

static struct ibv_mr *
mm_op_alloc_null_mr(struct ibv_pd *pd)
{
	(void)pd;
	errno = EOPNOTSUPP;
	return NULL;
}

static int
mm_op_read_counters(struct ibv_counters *c, uint64_t *v, uint32_t n, uint32_t flags)
{
	(void)c; (void)v; (void)n; (void)flags;
	return EOPNOTSUPP;
}

static int
mm_op_attach_counters(struct ibv_counters *c, struct ibv_counter_attach_attr *a,
		      struct ibv_flow *f)
{
	(void)c; (void)a; (void)f;
	return EOPNOTSUPP;
}

static struct ibv_counters *
mm_op_create_counters(struct ibv_context *c, struct ibv_counters_init_attr *a)
{
	(void)c; (void)a;
	errno = EOPNOTSUPP;
	return NULL;
}

static int
mm_op_destroy_counters(struct ibv_counters *c)
{
	(void)c;
	return EOPNOTSUPP;
}

static struct ibv_mr *
mm_op_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm, uint64_t off, size_t len,
		unsigned int access)
{
	(void)pd; (void)dm; (void)off; (void)len; (void)access;
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_dm *
mm_op_alloc_dm(struct ibv_context *c, struct ibv_alloc_dm_attr *a)
{
	(void)c; (void)a;
	errno = EOPNOTSUPP;
	return NULL;
}

static int
mm_op_free_dm(struct ibv_dm *dm)
{
	(void)dm;
	return EOPNOTSUPP;
}

static int
mm_op_modify_flow_action_esp(struct ibv_flow_action *a, struct ibv_flow_action_esp_attr *e)
{
	(void)a; (void)e;
	return EOPNOTSUPP;
}

static int
mm_op_destroy_flow_action(struct ibv_flow_action *a)
{
	(void)a;
	return EOPNOTSUPP;
}

static struct ibv_flow_action *
mm_op_create_flow_action_esp(struct ibv_context *c, struct ibv_flow_action_esp_attr *e)
{
	(void)c; (void)e;
	errno = EOPNOTSUPP;
	return NULL;
}

static int
mm_op_modify_qp_rate_limit(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *a)
{
	(void)qp; (void)a;
	return EOPNOTSUPP;
}

static int
mm_op_dealloc_td(struct ibv_td *td)
{
	(void)td;
	return EOPNOTSUPP;
}

static struct ibv_td *
mm_op_alloc_td(struct ibv_context *c, struct ibv_td_init_attr *a)
{
	(void)c; (void)a;
	errno = EOPNOTSUPP;
	return NULL;
}

static int
mm_op_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *a)
{
	(void)cq; (void)a;
	return EOPNOTSUPP;
}

static int
mm_op_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op, struct ibv_ops_wr **bad)
{
	(void)srq; (void)op; (void)bad;
	return EOPNOTSUPP;
}

static int
mm_op_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *a)
{
	(void)wq; (void)a;
	return EOPNOTSUPP;
}

static int
mm_op_query_rt_values(struct ibv_context *c, struct ibv_values_ex *v)
{
	(void)c; (void)v;
	return EOPNOTSUPP;
}

static struct ibv_cq_ex *
mm_op_create_cq_ex(struct ibv_context *c, struct ibv_cq_init_attr_ex *a)
{
	(void)c; (void)a;
	errno = EOPNOTSUPP;
	return NULL;
}

static int
mm_op_destroy_flow(struct ibv_flow *f)
{
	(void)f;
	return EOPNOTSUPP;
}

static struct ibv_flow *
mm_op_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *a)
{
	(void)qp; (void)a;
	errno = EOPNOTSUPP;
	return NULL;
}

static void
mm_op_placeholder(void)
{
}

static struct ibv_qp *
mm_op_open_qp(struct ibv_context *c, struct ibv_qp_open_attr *a)
{
	(void)c; (void)a;
	errno = EOPNOTSUPP;
	return NULL;
}

static int
mm_op_get_srq_num(struct ibv_srq *srq, uint32_t *num)
{
	(void)srq; (void)num;
	return EOPNOTSUPP;
}

static struct ibv_srq *
mm_op_create_srq_ex(struct ibv_context *c, struct ibv_srq_init_attr_ex *a)
{
	(void)c; (void)a;
	errno = EOPNOTSUPP;	/* SRQs are reached through mana_model_create_xsrq */
	return NULL;
}

static struct ibv_xrcd *
mm_op_open_xrcd(struct ibv_context *c, struct ibv_xrcd_init_attr *a)
{
	(void)c; (void)a;
	errno = EOPNOTSUPP;
	return NULL;
}

static int
mm_op_close_xrcd(struct ibv_xrcd *x)
{
	(void)x;
	return EOPNOTSUPP;
}

void
mm_ctx_fill_ops(struct verbs_context *v)
{
	struct ibv_context_ops *o = &v->context.ops;

	o->poll_cq = mm_op_poll_cq;
	o->req_notify_cq = mm_op_req_notify_cq;
	o->post_send = mm_op_post_send;
	o->post_recv = mm_op_post_recv;
	o->post_srq_recv = mm_op_post_srq_recv;
	o->alloc_mw = mm_op_alloc_mw;
	o->bind_mw = mm_op_bind_mw;
	o->dealloc_mw = mm_op_dealloc_mw;

	v->query_port = mm_op_query_port;
	v->advise_mr = mm_op_advise_mr;
	v->alloc_null_mr = mm_op_alloc_null_mr;
	v->read_counters = mm_op_read_counters;
	v->attach_counters_point_flow = mm_op_attach_counters;
	v->create_counters = mm_op_create_counters;
	v->destroy_counters = mm_op_destroy_counters;
	v->reg_dm_mr = mm_op_reg_dm_mr;
	v->alloc_dm = mm_op_alloc_dm;
	v->free_dm = mm_op_free_dm;
	v->modify_flow_action_esp = mm_op_modify_flow_action_esp;
	v->destroy_flow_action = mm_op_destroy_flow_action;
	v->create_flow_action_esp = mm_op_create_flow_action_esp;
	v->modify_qp_rate_limit = mm_op_modify_qp_rate_limit;
	v->alloc_parent_domain = mana_model_alloc_parent_domain;
	v->dealloc_td = mm_op_dealloc_td;
	v->alloc_td = mm_op_alloc_td;
	v->modify_cq = mm_op_modify_cq;
	v->post_srq_ops = mm_op_post_srq_ops;
	v->destroy_rwq_ind_table = mm_op_destroy_rwq_ind_table;
	v->create_rwq_ind_table = mana_model_create_rwq_ind_table;
	v->destroy_wq = mm_op_destroy_wq;
	v->modify_wq = mm_op_modify_wq;
	v->create_wq = mana_model_create_wq;
	v->query_rt_values = mm_op_query_rt_values;
	v->create_cq_ex = mm_op_create_cq_ex;
	v->priv = NULL;
	v->query_device_ex = mm_op_query_device_ex;
	v->ibv_destroy_flow = mm_op_destroy_flow;
	v->ABI_placeholder2 = mm_op_placeholder;
	v->ibv_create_flow = mm_op_create_flow;
	v->ABI_placeholder1 = mm_op_placeholder;
	v->open_qp = mm_op_open_qp;
	v->create_qp_ex = mana_model_create_qp_ex;
	v->get_srq_num = mm_op_get_srq_num;
	v->create_srq_ex = mm_op_create_srq_ex;
	v->open_xrcd = mm_op_open_xrcd;
	v->close_xrcd = mm_op_close_xrcd;
}
