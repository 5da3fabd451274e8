/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Accounting of the calls that reach the model through rdma-core's binary
 * interface: the exported verbs, the ops of a context's verbs_context (what
 * rdma-core's inline verbs dispatch to) and libmana's manadv calls. The
 * counts go to MANA_MODEL_STATS with the port counters, so a test can prove
 * that a program drove the device through libibverbs/libmana (and not, for
 * instance, through a private copy of the model) and that it destroyed
 * every object it created.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "mana_model.h"
#include "mana_model_verbs.h"
#include "ibvm_priv.h"

static uint64_t ibvm_calls[IBVM_CALL_MAX];

static const char *const ibvm_call_names[IBVM_CALL_MAX] = {
	[IBVM_CALL_OPEN_DEVICE] = "open_device",
	[IBVM_CALL_CLOSE_DEVICE] = "close_device",
	[IBVM_CALL_ALLOC_PD] = "alloc_pd",
	[IBVM_CALL_ALLOC_PARENT_DOMAIN] = "alloc_parent_domain",
	[IBVM_CALL_DEALLOC_PD] = "dealloc_pd",
	[IBVM_CALL_REG_MR] = "reg_mr",
	[IBVM_CALL_DEREG_MR] = "dereg_mr",
	[IBVM_CALL_CREATE_COMP_CHANNEL] = "create_comp_channel",
	[IBVM_CALL_DESTROY_COMP_CHANNEL] = "destroy_comp_channel",
	[IBVM_CALL_CREATE_CQ] = "create_cq",
	[IBVM_CALL_DESTROY_CQ] = "destroy_cq",
	[IBVM_CALL_CREATE_WQ] = "create_wq",
	[IBVM_CALL_DESTROY_WQ] = "destroy_wq",
	[IBVM_CALL_CREATE_IND_TABLE] = "create_rwq_ind_table",
	[IBVM_CALL_DESTROY_IND_TABLE] = "destroy_rwq_ind_table",
	[IBVM_CALL_CREATE_QP] = "create_qp",
	[IBVM_CALL_CREATE_QP_EX] = "create_qp_ex",
	[IBVM_CALL_DESTROY_QP] = "destroy_qp",
	[IBVM_CALL_SET_CONTEXT_ATTR] = "manadv_set_context_attr",
	[IBVM_CALL_INIT_OBJ] = "manadv_init_obj",
};

/* Successful calls only: a refused one created or destroyed nothing. */
void
ibvm_count(enum ibvm_call call)
{
	__atomic_fetch_add(&ibvm_calls[call], 1, __ATOMIC_RELAXED);
}

void
ibvm_calls_write(FILE *f)
{
	fputs("libibverbs calls", f);
	for (unsigned int i = 0; i < IBVM_CALL_MAX; i++)
		fprintf(f, " %s=%" PRIu64, ibvm_call_names[i],
			__atomic_load_n(&ibvm_calls[i], __ATOMIC_RELAXED));
	fputc('\n', f);
}

/* ---- verbs_context ops: the model's verb, counted ---------------------- */

static struct ibv_pd *
ibvm_op_alloc_parent_domain(struct ibv_context *ctx, struct ibv_parent_domain_init_attr *attr)
{
	struct ibv_pd *pd = mana_model_alloc_parent_domain(ctx, attr);

	if (pd != NULL)
		ibvm_count(IBVM_CALL_ALLOC_PARENT_DOMAIN);
	return pd;
}

static struct ibv_wq *
ibvm_op_create_wq(struct ibv_context *ctx, struct ibv_wq_init_attr *attr)
{
	struct ibv_wq *wq = mana_model_create_wq(ctx, attr);

	if (wq != NULL)
		ibvm_count(IBVM_CALL_CREATE_WQ);
	return wq;
}

static int
ibvm_op_destroy_wq(struct ibv_wq *wq)
{
	int rc = mana_model_destroy_wq(wq);

	if (rc == 0)
		ibvm_count(IBVM_CALL_DESTROY_WQ);
	return -rc;
}

static struct ibv_rwq_ind_table *
ibvm_op_create_rwq_ind_table(struct ibv_context *ctx, struct ibv_rwq_ind_table_init_attr *attr)
{
	struct ibv_rwq_ind_table *t = mana_model_create_rwq_ind_table(ctx, attr);

	if (t != NULL)
		ibvm_count(IBVM_CALL_CREATE_IND_TABLE);
	return t;
}

static int
ibvm_op_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table)
{
	int rc = mana_model_destroy_rwq_ind_table(table);

	if (rc == 0)
		ibvm_count(IBVM_CALL_DESTROY_IND_TABLE);
	return -rc;
}

static struct ibv_qp *
ibvm_op_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *qp = mana_model_create_qp_ex(ctx, attr);

	if (qp != NULL)
		ibvm_count(IBVM_CALL_CREATE_QP_EX);
	return qp;
}

/*
 * Route the ops the MANA provider has (and the model serves) through the
 * counting wrappers above. Called on every context ibv_open_device returns.
 */
void
ibvm_calls_hook_context(struct ibv_context *ctx)
{
	struct verbs_context *v = verbs_get_ctx(ctx);

	v->alloc_parent_domain = ibvm_op_alloc_parent_domain;
	v->create_wq = ibvm_op_create_wq;
	v->destroy_wq = ibvm_op_destroy_wq;
	v->create_rwq_ind_table = ibvm_op_create_rwq_ind_table;
	v->destroy_rwq_ind_table = ibvm_op_destroy_rwq_ind_table;
	v->create_qp_ex = ibvm_op_create_qp_ex;
}

/* ---- the calls libmana.so.1 makes (MANA_MODEL_PRIVATE) ----------------- */

IBVM_EXPORT int
ibvm_manadv_set_context_attr(struct ibv_context *ctx, enum manadv_set_ctx_attr_type type,
			     void *attr)
{
	int rc = mana_model_set_context_attr(ctx, type, attr);

	if (rc == 0)
		ibvm_count(IBVM_CALL_SET_CONTEXT_ATTR);
	return -rc;
}

IBVM_EXPORT int
ibvm_manadv_init_obj(struct manadv_obj *obj, uint64_t obj_type)
{
	int rc = mana_model_init_obj(obj, obj_type);

	if (rc == 0)
		ibvm_count(IBVM_CALL_INIT_OBJ);
	return -rc;
}
