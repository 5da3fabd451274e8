/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Private to lib/verbs_shim: the rdma-core 44 backend (mana_vs_rdma.c) and
 * the shim's internal logger. Same signatures and error convention as
 * mana_vs.h; mana_vs.c has already refused NULL arguments.
 */

#ifndef MANA_VS_RDMA_H
#define MANA_VS_RDMA_H

#include "mana_vs.h"

/* Log through the user's logger (mana_vs_set_logger); no newline needed. */
void mana_vs_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * ibv_get_device_list() as is (every RDMA device, NULL-terminated). A host
 * without the RDMA subsystem gives an empty list, not an error. Release
 * with mana_vs_rdma_free_device_list; the devices live until then.
 */
struct ibv_device **mana_vs_rdma_get_device_list(int *num_devices);
void mana_vs_rdma_free_device_list(struct ibv_device **list);
/* A MANA device: its PCI function has vendor id 0x1414 (Microsoft). */
bool mana_vs_rdma_is_mana(const struct ibv_device *dev);
const char *mana_vs_rdma_device_name(const struct ibv_device *dev);
const char *mana_vs_rdma_ibdev_path(const struct ibv_device *dev);

struct ibv_context *mana_vs_rdma_open_device(struct ibv_device *dev);
int mana_vs_rdma_close_device(struct ibv_context *ctx);
int mana_vs_rdma_query_device_ex(struct ibv_context *ctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr);
int mana_vs_rdma_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);
int mana_vs_rdma_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event);
void mana_vs_rdma_ack_async_event(struct ibv_async_event *event);
int mana_vs_rdma_set_port_mtu(struct ibv_context *ctx, uint8_t port, uint32_t mtu);

struct ibv_pd *mana_vs_rdma_alloc_pd(struct ibv_context *ctx);
struct ibv_pd *mana_vs_rdma_alloc_parent_domain(struct ibv_context *ctx,
						struct ibv_parent_domain_init_attr *attr);
int mana_vs_rdma_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *mana_vs_rdma_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
int mana_vs_rdma_dereg_mr(struct ibv_mr *mr);

struct ibv_comp_channel *mana_vs_rdma_create_comp_channel(struct ibv_context *ctx);
int mana_vs_rdma_destroy_comp_channel(struct ibv_comp_channel *channel);
struct ibv_cq *mana_vs_rdma_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
				      struct ibv_comp_channel *channel, int comp_vector);
int mana_vs_rdma_destroy_cq(struct ibv_cq *cq);
int mana_vs_rdma_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
			      void **cq_context);
void mana_vs_rdma_ack_cq_events(struct ibv_cq *cq, unsigned int nevents);

struct ibv_wq *mana_vs_rdma_create_wq(struct ibv_context *ctx, struct ibv_wq_init_attr *attr);
int mana_vs_rdma_destroy_wq(struct ibv_wq *wq);
struct ibv_rwq_ind_table *mana_vs_rdma_create_rwq_ind_table(struct ibv_context *ctx,
		struct ibv_rwq_ind_table_init_attr *attr);
int mana_vs_rdma_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table);
struct ibv_qp *mana_vs_rdma_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_qp *mana_vs_rdma_create_qp_ex(struct ibv_context *ctx,
					 struct ibv_qp_init_attr_ex *attr);
int mana_vs_rdma_destroy_qp(struct ibv_qp *qp);

struct ibv_srq *mana_vs_rdma_create_xsrq(struct ibv_pd *pd, struct mana_vs_xsrq_init_attr *attr);
int mana_vs_rdma_destroy_srq(struct ibv_srq *srq);

int mana_vs_rdma_set_context_attr(struct ibv_context *ctx, enum manadv_set_ctx_attr_type type,
				  void *attr);
int mana_vs_rdma_init_obj(struct manadv_obj *obj, uint64_t obj_type);

#endif /* MANA_VS_RDMA_H */
