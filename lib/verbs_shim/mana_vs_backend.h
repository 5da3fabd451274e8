/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Private to lib/verbs_shim: the table of backend functions. One const
 * instance per backend: mana_vs_rdma_backend (mana_vs_rdma.c, the only file
 * calling libibverbs and libmana) and the software device's
 * (mana_vs_model.c), which a build without the software device leaves out
 * (mana_vs_backend_model() is then NULL).
 *
 * A device is served by the first backend that owns it; mana_vs.c records
 * the backend of every context it opens and dispatches each later call
 * through it. Members follow mana_vs.h: same arguments, same error
 * convention (constructors NULL + errno, the rest 0 or a negative errno
 * value); mana_vs.c has already refused NULL arguments.
 */

#ifndef MANA_VS_BACKEND_H
#define MANA_VS_BACKEND_H

#include "mana_vs.h"

struct mana_vs_backend {
	const char *name;		/* for log lines */
	enum mana_vs_backend_kind kind;

	/*
	 * The backend's devices, NULL-terminated, valid until
	 * free_device_list(); listed() picks those the shim hands out.
	 */
	struct ibv_device **(*get_device_list)(int *num_devices);
	void (*free_device_list)(struct ibv_device **list);
	bool (*listed)(const struct ibv_device *dev);
	bool (*owns_device)(const struct ibv_device *dev);
	const char *(*device_name)(const struct ibv_device *dev);
	const char *(*ibdev_path)(const struct ibv_device *dev);

	struct ibv_context *(*open_device)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	int (*query_device_ex)(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr);
	int (*query_port)(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);
	int (*get_async_event)(struct ibv_context *ctx, struct ibv_async_event *event);
	void (*ack_async_event)(struct ibv_async_event *event);
	int (*set_port_mtu)(struct ibv_context *ctx, uint8_t port, uint32_t mtu);

	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *ctx,
					      struct ibv_parent_domain_init_attr *attr);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
	int (*dereg_mr)(struct ibv_mr *mr);

	struct ibv_comp_channel *(*create_comp_channel)(struct ibv_context *ctx);
	int (*destroy_comp_channel)(struct ibv_comp_channel *channel);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*get_cq_event)(struct ibv_comp_channel *channel, struct ibv_cq **cq,
			    void **cq_context);
	void (*ack_cq_events)(struct ibv_cq *cq, unsigned int nevents);

	struct ibv_wq *(*create_wq)(struct ibv_context *ctx, struct ibv_wq_init_attr *attr);
	int (*destroy_wq)(struct ibv_wq *wq);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(struct ibv_context *ctx,
			struct ibv_rwq_ind_table_init_attr *attr);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *table);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr);
	int (*destroy_qp)(struct ibv_qp *qp);

	struct ibv_srq *(*create_xsrq)(struct ibv_pd *pd, struct mana_vs_xsrq_init_attr *attr);
	int (*destroy_srq)(struct ibv_srq *srq);

	int (*set_context_attr)(struct ibv_context *ctx, enum manadv_set_ctx_attr_type type,
				void *attr);
	int (*init_obj)(struct manadv_obj *obj, uint64_t obj_type);
	int (*db_page_offset)(struct ibv_context *ctx, const void *db_page, uint64_t *off);
};

extern const struct mana_vs_backend mana_vs_rdma_backend;

/* The software device's backend and control API; NULL in a build without it. */
const struct mana_vs_backend *mana_vs_backend_model(void);
const struct mana_vs_model_api *mana_vs_model_api_table(void);
/* The model device behind a context the model backend opened. */
struct mana_model *mana_vs_backend_model_of(const struct ibv_context *ctx);

/* Log through the user's logger (mana_vs_set_logger); no newline needed. */
void mana_vs_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* MANA_VS_BACKEND_H */
