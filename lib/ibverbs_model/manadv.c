/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The replacement libmana.so.1: manadv on the software MANA device. The
 * device's contexts are those the replacement libibverbs.so.1 opened (over
 * libmana_model.so, one instance per process, like the kernel objects behind
 * rdma-core); libmana reaches them through that library's MANA_MODEL_PRIVATE
 * exports (ibvm_manadv_*, which also count the
 * calls), as rdma-core's libmana reaches libibverbs through
 * IBVERBS_PRIVATE_34.
 */

#include <infiniband/manadv.h>

#include "ibvm_priv.h"

__attribute__((visibility("default"))) int
manadv_set_context_attr(struct ibv_context *ibv_ctx, enum manadv_set_ctx_attr_type type,
			void *attr)
{
	return ibvm_manadv_set_context_attr(ibv_ctx, type, attr);
}

__attribute__((visibility("default"))) int
manadv_init_obj(struct manadv_obj *obj, uint64_t obj_type)
{
	return ibvm_manadv_init_obj(obj, obj_type);
}
