/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The software device's backend: the shim's table over lib/mana_model's
 * verbs (mana_model_verbs.h) and its control API. The model already speaks
 * the shim's error convention; only the SRQ attributes are re-packed into
 * the model's own structure. A build without the software device
 * (-Dmodel=false) links mana_vs_no_model.c instead.
 */

#include <errno.h>
#include <stdlib.h>

#include "mana_vs_backend.h"
#include "mana_model.h"
#include "mana_model_verbs.h"

static struct ibv_device **
model_get_device_list(int *num_devices)
{
	return mana_model_get_device_list(MANA_MODEL_FRONTEND_SHIM, num_devices);
}

static void
model_free_device_list(struct ibv_device **list)
{
	free(list);	/* the devices live as long as their model */
}

static bool
model_listed(const struct ibv_device *dev)
{
	(void)dev;
	return true;
}

/* Devices of the shim's front-end only: the replacement libibverbs serves its own. */
static bool
model_owns_device(const struct ibv_device *dev)
{
	struct mana_model *m = mana_model_from_device(dev);

	return m != NULL && mana_model_config(m)->frontend == MANA_MODEL_FRONTEND_SHIM;
}

static const char *
model_device_name(const struct ibv_device *dev)
{
	return mana_model_config(mana_model_from_device(dev))->name;
}

static const char *
model_ibdev_path(const struct ibv_device *dev)
{
	return mana_model_ibdev_path(mana_model_from_device(dev));
}

static struct ibv_srq *
model_create_xsrq(struct ibv_pd *pd, struct mana_vs_xsrq_init_attr *attr)
{
	struct mana_model_xsrq_init_attr x = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
		.srq_type = attr->srq_type,
	};
	struct ibv_srq *srq;

	if (attr->srq_type == IBV_SRQT_XRC) {
		x.xrcd = attr->ext.xrc.xrcd;
		x.xrc_cq = attr->ext.xrc.cq;
	}
	srq = mana_model_create_xsrq(pd, &x);
	if (srq != NULL)
		attr->attr = x.attr;
	return srq;
}

static const struct mana_vs_backend model_backend = {
	.name = "software device",
	.kind = MANA_VS_BACKEND_MODEL,
	.get_device_list = model_get_device_list,
	.free_device_list = model_free_device_list,
	.listed = model_listed,
	.owns_device = model_owns_device,
	.device_name = model_device_name,
	.ibdev_path = model_ibdev_path,
	.open_device = mana_model_open_device,
	.close_device = mana_model_close_device,
	.query_device_ex = mana_model_query_device_ex,
	.query_port = mana_model_query_port,
	.get_async_event = mana_model_get_async_event,
	.ack_async_event = mana_model_ack_async_event,
	.set_port_mtu = mana_model_set_port_mtu,
	.alloc_pd = mana_model_alloc_pd,
	.alloc_parent_domain = mana_model_alloc_parent_domain,
	.dealloc_pd = mana_model_dealloc_pd,
	.reg_mr = mana_model_reg_mr,
	.dereg_mr = mana_model_dereg_mr,
	.create_comp_channel = mana_model_create_comp_channel,
	.destroy_comp_channel = mana_model_destroy_comp_channel,
	.create_cq = mana_model_create_cq,
	.destroy_cq = mana_model_destroy_cq,
	.get_cq_event = mana_model_get_cq_event,
	.ack_cq_events = mana_model_ack_cq_events,
	.create_wq = mana_model_create_wq,
	.destroy_wq = mana_model_destroy_wq,
	.create_rwq_ind_table = mana_model_create_rwq_ind_table,
	.destroy_rwq_ind_table = mana_model_destroy_rwq_ind_table,
	.create_qp = mana_model_create_qp,
	.create_qp_ex = mana_model_create_qp_ex,
	.destroy_qp = mana_model_destroy_qp,
	.create_xsrq = model_create_xsrq,
	.destroy_srq = mana_model_destroy_srq,
	.set_context_attr = mana_model_set_context_attr,
	.init_obj = mana_model_init_obj,
	.db_page_offset = mana_model_db_page_offset,
};

static const struct mana_vs_model_api model_api = {
	.create = mana_model_create,
	.destroy = mana_model_destroy,
	.set_log = mana_model_set_log,
	.settings_init = mana_model_settings_init,
	.settings_set = mana_model_settings_set,
	.settings_finish = mana_model_settings_finish,
	.settings_key = mana_model_settings_key,
	.find = mana_model_find,
	.config = mana_model_config,
	.get_mac = mana_model_get_mac,
	.port_stats = mana_model_port_stats,
	.last_error = mana_model_last_error,
	.set_link = mana_model_set_link,
	.inject_tx_error = mana_model_inject_tx_error,
	.drop_next = mana_model_drop_next,
	.inject_rx = mana_model_inject_rx,
	.gen_set = mana_model_gen_set,
	.fatal = mana_model_fatal,
	.reset = mana_model_reset,
	.reset_stats = mana_model_reset_stats,
};

const struct mana_vs_backend *
mana_vs_backend_model(void)
{
	return &model_backend;
}

const struct mana_vs_model_api *
mana_vs_model_api_table(void)
{
	return &model_api;
}

struct mana_model *
mana_vs_backend_model_of(const struct ibv_context *ctx)
{
	return mana_model_from_context(ctx);
}
