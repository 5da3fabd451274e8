/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * lib/verbs_shim: the PMD's only door to a MANA device.
 *
 * The API speaks rdma-core 44's own types, so driver code reads like an
 * ordinary rdma-core consumer, under prefixed names (never ibv_* symbols: a
 * DPDK process may have the real libibverbs loaded). Each device is served by
 * one of two backends (a table of functions each, mana_vs_backend.h), chosen
 * when the device is opened:
 *   - rdma-core (libibverbs + libmana, Azure hardware), mana_vs_rdma.c;
 *   - the software MANA device (lib/mana_model), mana_vs_model.c; a build
 *     without it (-Dmodel=false) has the rdma-core backend only.
 * Every later call is dispatched by the object's ibv_context.
 *
 * One error convention for the shim and the software device, DPDK's (the
 * shim folds rdma-core's mixed ones into it):
 *   - constructors return NULL and set errno (a positive value);
 *   - everything else returns 0 or a negative errno value.
 * Semantics and errno values are those of doc/hardware.md §7-§8.
 */

#ifndef MANA_VS_H
#define MANA_VS_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <infiniband/manadv.h>

/* The software device's types (lib/mana_model/mana_model.h). */
struct mana_model;
struct mana_model_config;
struct mana_model_settings;
struct mana_model_port_stats;
struct mana_model_reset_stats;

/* ---- Logging (no DPDK here: the user plugs its logger in) ---------- */

/* Levels use syslog numbering. */
#define MANA_VS_LOG_ERR		3
#define MANA_VS_LOG_WARNING	4
#define MANA_VS_LOG_NOTICE	5
#define MANA_VS_LOG_INFO	6
#define MANA_VS_LOG_DEBUG	7

typedef void (*mana_vs_log_fn)(int level, const char *msg, void *arg);
/* NULL restores the default (stderr for ERR/WARNING, silent otherwise). */
void mana_vs_set_logger(mana_vs_log_fn fn, void *arg);

/* ---- Devices ------------------------------------------------------- */

enum mana_vs_backend_kind {
	MANA_VS_BACKEND_RDMA = 0,
	MANA_VS_BACKEND_MODEL = 1,
};

/*
 * Model devices first, then rdma-core MANA devices (if libmana finds any).
 * NULL-terminated; NULL + errno on failure.
 */
struct ibv_device **mana_vs_get_device_list(int *num_devices);
void mana_vs_free_device_list(struct ibv_device **list);
enum mana_vs_backend_kind mana_vs_device_backend(const struct ibv_device *dev);
enum mana_vs_backend_kind mana_vs_context_backend(const struct ibv_context *ctx);
const char *mana_vs_device_name(const struct ibv_device *dev);
const char *mana_vs_ibdev_path(const struct ibv_device *dev);

struct ibv_context *mana_vs_open_device(struct ibv_device *dev);
int mana_vs_close_device(struct ibv_context *ctx);	/* -EBUSY while objects live */
int mana_vs_query_device_ex(struct ibv_context *ctx,
			    const struct ibv_query_device_ex_input *input,
			    struct ibv_device_attr_ex *attr);
int mana_vs_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);

/* Async events on ctx->async_fd (non-blocking): -EAGAIN when none. */
int mana_vs_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event);
/* Ack an event mana_vs_get_async_event(ctx, ...) returned. */
void mana_vs_ack_async_event(struct ibv_context *ctx, struct ibv_async_event *event);

/*
 * Set the MTU of IB port `port` (1-based). rdma-core backend: SIOCSIFMTU on
 * the kernel netdev of that port; model: the vPort's MTU.
 */
int mana_vs_set_port_mtu(struct ibv_context *ctx, uint8_t port, uint32_t mtu);

/* ---- PD, MR -------------------------------------------------------- */

struct ibv_pd *mana_vs_alloc_pd(struct ibv_context *ctx);
struct ibv_pd *mana_vs_alloc_parent_domain(struct ibv_context *ctx,
					   struct ibv_parent_domain_init_attr *attr);
int mana_vs_dealloc_pd(struct ibv_pd *pd);	/* -EBUSY while used (plain PD) */
struct ibv_mr *mana_vs_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
int mana_vs_dereg_mr(struct ibv_mr *mr);

/* ---- CQ and completion channel ------------------------------------- */

struct ibv_comp_channel *mana_vs_create_comp_channel(struct ibv_context *ctx);
int mana_vs_destroy_comp_channel(struct ibv_comp_channel *channel);	/* -EBUSY */
struct ibv_cq *mana_vs_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
				 struct ibv_comp_channel *channel, int comp_vector);
int mana_vs_destroy_cq(struct ibv_cq *cq);	/* -EBUSY while a WQ/QP uses it */
/* Read one event (-EAGAIN when none, channel fd is non-blocking). */
int mana_vs_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context);
void mana_vs_ack_cq_events(struct ibv_cq *cq, unsigned int nevents);

/* ---- WQ, indirection table, QP ------------------------------------- */

struct ibv_wq *mana_vs_create_wq(struct ibv_context *ctx, struct ibv_wq_init_attr *attr);
int mana_vs_destroy_wq(struct ibv_wq *wq);	/* -EBUSY while in a table */
struct ibv_rwq_ind_table *mana_vs_create_rwq_ind_table(struct ibv_context *ctx,
						       struct ibv_rwq_ind_table_init_attr *attr);
int mana_vs_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table);	/* -EBUSY */
struct ibv_qp *mana_vs_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_qp *mana_vs_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr);
int mana_vs_destroy_qp(struct ibv_qp *qp);

/* ---- SRQ (hardware.md §1 rule 6) ----------------------------------- */

/* The XRC-era init attributes of libibverbs 1.1.8, under the shim's name. */
struct mana_vs_xsrq_init_attr {
	void *srq_context;
	struct ibv_srq_attr attr;	/* max_wr, max_sge written back (>= requested) */
	enum ibv_srq_type srq_type;	/* IBV_SRQT_BASIC or IBV_SRQT_XRC */
	union {
		struct {
			struct ibv_xrcd *xrcd;
			struct ibv_cq *cq;
		} xrc;
	} ext;
};

struct ibv_srq *mana_vs_create_xsrq(struct ibv_pd *pd, struct mana_vs_xsrq_init_attr *attr);
int mana_vs_destroy_srq(struct ibv_srq *srq);	/* -EBUSY while a QP uses it */

/* ---- manadv -------------------------------------------------------- */

int mana_vs_set_context_attr(struct ibv_context *ctx, enum manadv_set_ctx_attr_type type,
			     void *attr);
int mana_vs_init_obj(struct manadv_obj *obj, uint64_t obj_type);
/*
 * Offset in ctx->cmd_fd of a doorbell page manadv_init_obj gave: another
 * process mapping cmd_fd rings it at its mapping + *off. rdma-core: 0 (the
 * context's one page, page 0 of cmd_fd); software device: 0 for the shared
 * page, the object's own page 1.. with doorbell=queue.
 */
int mana_vs_db_page_offset(struct ibv_context *ctx, const void *db_page, uint64_t *off);

/* ---- The software device (model backend only) ---------------------- */

/*
 * The software device's control API (lib/mana_model/mana_model.h, same
 * names without the prefix), NULL in a build without the software device.
 * Callers outside lib/ reach the model only through this table, so that a
 * build without it links no model symbol.
 */
struct mana_vs_model_api {
	struct mana_model *(*create)(const struct mana_model_config *cfg);
	int (*destroy)(struct mana_model *m);
	void (*set_log)(mana_vs_log_fn fn, void *arg);
	void (*settings_init)(struct mana_model_settings *s, const char *name,
			      unsigned int classes, const char *origin);
	int (*settings_set)(struct mana_model_settings *s, const char *key, const char *val);
	int (*settings_finish)(struct mana_model_settings *s);
	const char *(*settings_key)(unsigned int classes, unsigned int i);
	struct mana_model *(*find)(const char *name);
	const struct mana_model_config *(*config)(const struct mana_model *m);
	int (*get_mac)(const struct mana_model *m, unsigned int port, uint8_t mac[6]);
	int (*port_stats)(const struct mana_model *m, unsigned int port,
			  struct mana_model_port_stats *st);
	const char *(*last_error)(const struct mana_model *m);
	int (*set_link)(struct mana_model *m, unsigned int port, bool up);
	int (*inject_tx_error)(struct mana_model *m, unsigned int port, uint32_t type, uint32_t n);
	int (*drop_next)(struct mana_model *m, unsigned int port, uint32_t n);
	int (*inject_rx)(struct mana_model *m, unsigned int port, const void *frame, uint32_t len);
	int (*gen_set)(struct mana_model *m, unsigned int port, uint64_t rate_pps, uint32_t flows);
	int (*fatal)(struct mana_model *m);
	int (*reset)(struct mana_model *m, uint32_t down_ms);
	int (*reset_stats)(const struct mana_model *m, struct mana_model_reset_stats *st);
};

const struct mana_vs_model_api *mana_vs_model_api(void);

/*
 * Create a software MANA device (see lib/mana_model/mana_model.h for the
 * config); it then appears in mana_vs_get_device_list(). NULL + errno on
 * failure: ENOTSUP in a build without the software device.
 */
struct mana_model *mana_vs_model_create(const struct mana_model_config *cfg);
int mana_vs_model_destroy(struct mana_model *m);
/* The model device behind ctx, or NULL for an rdma-core device. */
struct mana_model *mana_vs_model_of(const struct ibv_context *ctx);

#endif /* MANA_VS_H */
