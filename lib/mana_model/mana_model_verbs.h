/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The software device's verbs, on rdma-core's own types: what the shim's
 * software-device backend (lib/verbs_shim/mana_vs_model.c) and the
 * replacement libibverbs/libmana (lib/ibverbs_model) call. One error
 * convention with the shim and the rest of the model: constructors return
 * NULL and set errno, the rest return 0 or a negative errno value. The
 * replacement libraries turn that into rdma-core's conventions at their
 * boundary.
 */

#ifndef MANA_MODEL_VERBS_H
#define MANA_MODEL_VERBS_H

#include <stdint.h>

#include <infiniband/verbs.h>
#include <infiniband/manadv.h>

#include "mana_model.h"

/* The XRC-era SRQ init attributes of libibverbs 1.1.8 (hardware.md §1 rule 6). */
struct mana_model_xsrq_init_attr {
	void *srq_context;
	struct ibv_srq_attr attr;	/* max_wr, max_sge written back (>= requested) */
	enum ibv_srq_type srq_type;	/* IBV_SRQT_BASIC or IBV_SRQT_XRC */
	struct ibv_xrcd *xrcd;		/* XRC only */
	struct ibv_cq *xrc_cq;		/* XRC only */
};

/* The devices of one front-end, oldest first, NULL-terminated (caller frees with free()). */
struct ibv_device **mana_model_get_device_list(enum mana_model_frontend frontend,
					       int *num_devices);

struct ibv_context *mana_model_open_device(struct ibv_device *dev);
int mana_model_close_device(struct ibv_context *ctx);
int mana_model_query_device_ex(struct ibv_context *ctx,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr);
int mana_model_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);
int mana_model_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event);
void mana_model_ack_async_event(struct ibv_async_event *event);
int mana_model_set_port_mtu(struct ibv_context *ctx, uint8_t port, uint32_t mtu);

struct ibv_pd *mana_model_alloc_pd(struct ibv_context *ctx);
struct ibv_pd *mana_model_alloc_parent_domain(struct ibv_context *ctx,
					      struct ibv_parent_domain_init_attr *attr);
int mana_model_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *mana_model_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
int mana_model_dereg_mr(struct ibv_mr *mr);

struct ibv_comp_channel *mana_model_create_comp_channel(struct ibv_context *ctx);
int mana_model_destroy_comp_channel(struct ibv_comp_channel *channel);
struct ibv_cq *mana_model_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector);
int mana_model_destroy_cq(struct ibv_cq *cq);
int mana_model_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
			    void **cq_context);
void mana_model_ack_cq_events(struct ibv_cq *cq, unsigned int nevents);

struct ibv_wq *mana_model_create_wq(struct ibv_context *ctx, struct ibv_wq_init_attr *attr);
int mana_model_destroy_wq(struct ibv_wq *wq);
struct ibv_rwq_ind_table *mana_model_create_rwq_ind_table(struct ibv_context *ctx,
		struct ibv_rwq_ind_table_init_attr *attr);
int mana_model_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table);
struct ibv_qp *mana_model_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_qp *mana_model_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr);
int mana_model_destroy_qp(struct ibv_qp *qp);

struct ibv_srq *mana_model_create_xsrq(struct ibv_pd *pd, struct mana_model_xsrq_init_attr *attr);
int mana_model_destroy_srq(struct ibv_srq *srq);

int mana_model_set_context_attr(struct ibv_context *ctx, enum manadv_set_ctx_attr_type type,
				void *attr);
/* All `in` objects of obj must belong to model contexts. */
int mana_model_init_obj(struct manadv_obj *obj, uint64_t obj_type);

/*
 * Offset in ctx->cmd_fd of a doorbell page manadv_init_obj gave (page 0: the
 * shared page; doorbell=queue: each object's own page 1..): a process that
 * maps cmd_fd rings that page at mapping + offset.
 */
int mana_model_db_page_offset(struct ibv_context *ctx, const void *page, uint64_t *off);

/* Logger the model reports through (the shim installs its own). */
void mana_model_set_log(void (*fn)(int level, const char *msg, void *arg), void *arg);

#endif /* MANA_MODEL_VERBS_H */
