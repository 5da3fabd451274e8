/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The exported verbs a MANA program calls (PD, MR, completion channel, CQ,
 * QP, SRQ), each the model's verb under rdma-core's name and return
 * convention. The model keeps the wrapper duties libibverbs has
 * (context/pd back pointers, channel reference counts, CQ event counters).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "mana_model.h"
#include "mana_model_verbs.h"
#include "ibvm_priv.h"

/* verbs.h turns ibv_reg_mr into a macro; the exported function has the plain name. */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

IBVM_EXPORT struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd = mana_model_alloc_pd(context);

	if (pd != NULL)
		ibvm_count(IBVM_CALL_ALLOC_PD);
	return pd;
}

IBVM_EXPORT int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	int rc = mana_model_dealloc_pd(pd);

	if (rc == 0)
		ibvm_count(IBVM_CALL_DEALLOC_PD);
	return -rc;
}

IBVM_EXPORT struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	struct ibv_mr *mr = mana_model_reg_mr(pd, addr, length, access);

	if (mr != NULL)
		ibvm_count(IBVM_CALL_REG_MR);
	return mr;
}

/*
 * MANA registers guest-virtual regions: the I/O address is the process
 * address, so only iova == addr can be served. Optional access bits are
 * dropped as the kernel does for flags it does not know.
 */
IBVM_EXPORT struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		 unsigned int access)
{
	struct ibv_mr *mr;

	if (iova != (uintptr_t)addr) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	mr = mana_model_reg_mr(pd, addr, length,
			       (int)(access & ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE));
	if (mr != NULL)
		ibvm_count(IBVM_CALL_REG_MR);
	return mr;
}

IBVM_EXPORT struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

IBVM_EXPORT int
ibv_dereg_mr(struct ibv_mr *mr)
{
	int rc = mana_model_dereg_mr(mr);

	if (rc == 0)
		ibvm_count(IBVM_CALL_DEREG_MR);
	return -rc;
}

IBVM_EXPORT struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct ibv_comp_channel *ch = mana_model_create_comp_channel(context);

	if (ch != NULL)
		ibvm_count(IBVM_CALL_CREATE_COMP_CHANNEL);
	return ch;
}

IBVM_EXPORT int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	int rc = mana_model_destroy_comp_channel(channel);

	if (rc == 0)
		ibvm_count(IBVM_CALL_DESTROY_COMP_CHANNEL);
	return -rc;
}

IBVM_EXPORT struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	struct ibv_cq *cq = mana_model_create_cq(context, cqe, cq_context, channel, comp_vector);

	if (cq != NULL)
		ibvm_count(IBVM_CALL_CREATE_CQ);
	return cq;
}

IBVM_EXPORT int
ibv_destroy_cq(struct ibv_cq *cq)
{
	int rc = mana_model_destroy_cq(cq);

	if (rc == 0)
		ibvm_count(IBVM_CALL_DESTROY_CQ);
	return -rc;
}

/* rdma-core: 0, or -1 with errno (EAGAIN on an empty non-blocking channel). */
IBVM_EXPORT int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	int rc = mana_model_get_cq_event(channel, cq, cq_context);

	if (rc != 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

IBVM_EXPORT void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	mana_model_ack_cq_events(cq, nevents);
}

IBVM_EXPORT struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp *qp = mana_model_create_qp(pd, qp_init_attr);

	if (qp != NULL)
		ibvm_count(IBVM_CALL_CREATE_QP);
	return qp;
}

IBVM_EXPORT int
ibv_destroy_qp(struct ibv_qp *qp)
{
	int rc = mana_model_destroy_qp(qp);

	if (rc == 0)
		ibvm_count(IBVM_CALL_DESTROY_QP);
	return -rc;
}

/*
 * A basic SRQ (the model implements SRQs, hardware.md §1 rule 6); XRC and tag
 * matching SRQs come through ibv_create_srq_ex() and answer EOPNOTSUPP.
 */
IBVM_EXPORT struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	struct mana_model_xsrq_init_attr x;
	struct ibv_srq *srq;

	if (srq_init_attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	memset(&x, 0, sizeof(x));
	x.srq_context = srq_init_attr->srq_context;
	x.attr = srq_init_attr->attr;
	x.srq_type = IBV_SRQT_BASIC;
	srq = mana_model_create_xsrq(pd, &x);
	if (srq != NULL)
		srq_init_attr->attr = x.attr;
	return srq;
}

IBVM_EXPORT int
ibv_destroy_srq(struct ibv_srq *srq)
{
	return -mana_model_destroy_srq(srq);
}
