/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Symbols that exist only so that binaries needing them still load:
 *
 * - IBVERBS_PRIVATE_34, libibverbs' interface to its provider plugins
 *   (kernel command marshalling, context construction). The replacement has
 *   no kernel and loads no provider: every command answers EOPNOTSUPP, a
 *   provider that registers itself is ignored. Debian's libmlx4/libmlx5,
 *   which DPDK's mlx PMDs and dpdk-testpmd pull in, bind to these; rdma-core
 *   56's libmlx5 (Debian 13) also to ibv_cmd_create_cq_ex2, which 56 added.
 * - The IBVERBS_1.0 entry points, which take libibverbs 1.0's structure
 *   layouts (struct ibv_context_1_0 ...). A model context never has that
 *   layout, so they answer EOPNOTSUPP (NULL + errno, or -1/EOPNOTSUPP).
 *
 * Argument lists are left out on purpose: no header declares these names
 * here, and on x86-64 a callee that ignores its arguments is ABI-safe.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "ibvm_priv.h"

/* Read by providers (IBV44 driver.h); never set: there is no disassociation. */
IBVM_EXPORT bool verbs_allow_disassociate_destroy;

#define IBVM_INT_ENOTSUP(name)			\
	IBVM_EXPORT int name(void);		\
	IBVM_EXPORT int				\
	name(void)				\
	{					\
		errno = EOPNOTSUPP;		\
		return EOPNOTSUPP;		\
	}

#define IBVM_PTR_ENOTSUP(name)			\
	IBVM_EXPORT void *name(void);		\
	IBVM_EXPORT void *			\
	name(void)				\
	{					\
		errno = EOPNOTSUPP;		\
		return NULL;			\
	}

#define IBVM_VOID_NOOP(name)			\
	IBVM_EXPORT void name(void);		\
	IBVM_EXPORT void			\
	name(void)				\
	{					\
	}

/* ---- IBVERBS_PRIVATE_34 ------------------------------------------------- */

IBVM_INT_ENOTSUP(ibv_cmd_advise_mr)
IBVM_INT_ENOTSUP(ibv_cmd_alloc_dm)
IBVM_INT_ENOTSUP(ibv_cmd_alloc_mw)
IBVM_INT_ENOTSUP(ibv_cmd_alloc_pd)
IBVM_INT_ENOTSUP(ibv_cmd_attach_mcast)
IBVM_INT_ENOTSUP(ibv_cmd_close_xrcd)
IBVM_INT_ENOTSUP(ibv_cmd_create_ah)
IBVM_INT_ENOTSUP(ibv_cmd_create_counters)
IBVM_INT_ENOTSUP(ibv_cmd_create_cq)
IBVM_INT_ENOTSUP(ibv_cmd_create_cq_ex)
IBVM_INT_ENOTSUP(ibv_cmd_create_cq_ex2)	/* rdma-core 56 */
IBVM_INT_ENOTSUP(ibv_cmd_create_flow)
IBVM_INT_ENOTSUP(ibv_cmd_create_flow_action_esp)
IBVM_INT_ENOTSUP(ibv_cmd_create_qp)
IBVM_INT_ENOTSUP(ibv_cmd_create_qp_ex)
IBVM_INT_ENOTSUP(ibv_cmd_create_qp_ex2)
IBVM_INT_ENOTSUP(ibv_cmd_create_rwq_ind_table)
IBVM_INT_ENOTSUP(ibv_cmd_create_srq)
IBVM_INT_ENOTSUP(ibv_cmd_create_srq_ex)
IBVM_INT_ENOTSUP(ibv_cmd_create_wq)
IBVM_INT_ENOTSUP(ibv_cmd_dealloc_mw)
IBVM_INT_ENOTSUP(ibv_cmd_dealloc_pd)
IBVM_INT_ENOTSUP(ibv_cmd_dereg_mr)
IBVM_INT_ENOTSUP(ibv_cmd_destroy_ah)
IBVM_INT_ENOTSUP(ibv_cmd_destroy_counters)
IBVM_INT_ENOTSUP(ibv_cmd_destroy_cq)
IBVM_INT_ENOTSUP(ibv_cmd_destroy_flow)
IBVM_INT_ENOTSUP(ibv_cmd_destroy_flow_action)
IBVM_INT_ENOTSUP(ibv_cmd_destroy_qp)
IBVM_INT_ENOTSUP(ibv_cmd_destroy_rwq_ind_table)
IBVM_INT_ENOTSUP(ibv_cmd_destroy_srq)
IBVM_INT_ENOTSUP(ibv_cmd_destroy_wq)
IBVM_INT_ENOTSUP(ibv_cmd_detach_mcast)
IBVM_INT_ENOTSUP(ibv_cmd_free_dm)
IBVM_INT_ENOTSUP(ibv_cmd_get_context)
IBVM_INT_ENOTSUP(ibv_cmd_modify_cq)
IBVM_INT_ENOTSUP(ibv_cmd_modify_flow_action_esp)
IBVM_INT_ENOTSUP(ibv_cmd_modify_qp)
IBVM_INT_ENOTSUP(ibv_cmd_modify_qp_ex)
IBVM_INT_ENOTSUP(ibv_cmd_modify_srq)
IBVM_INT_ENOTSUP(ibv_cmd_modify_wq)
IBVM_INT_ENOTSUP(ibv_cmd_open_qp)
IBVM_INT_ENOTSUP(ibv_cmd_open_xrcd)
IBVM_INT_ENOTSUP(ibv_cmd_poll_cq)
IBVM_INT_ENOTSUP(ibv_cmd_post_recv)
IBVM_INT_ENOTSUP(ibv_cmd_post_send)
IBVM_INT_ENOTSUP(ibv_cmd_post_srq_recv)
IBVM_INT_ENOTSUP(ibv_cmd_query_context)
IBVM_INT_ENOTSUP(ibv_cmd_query_device_any)
IBVM_INT_ENOTSUP(ibv_cmd_query_mr)
IBVM_INT_ENOTSUP(ibv_cmd_query_port)
IBVM_INT_ENOTSUP(ibv_cmd_query_qp)
IBVM_INT_ENOTSUP(ibv_cmd_query_srq)
IBVM_INT_ENOTSUP(ibv_cmd_read_counters)
IBVM_INT_ENOTSUP(ibv_cmd_reg_dm_mr)
IBVM_INT_ENOTSUP(ibv_cmd_reg_dmabuf_mr)
IBVM_INT_ENOTSUP(ibv_cmd_reg_mr)
IBVM_INT_ENOTSUP(ibv_cmd_req_notify_cq)
IBVM_INT_ENOTSUP(ibv_cmd_rereg_mr)
IBVM_INT_ENOTSUP(ibv_cmd_resize_cq)
IBVM_INT_ENOTSUP(execute_ioctl)
IBVM_INT_ENOTSUP(verbs_init_cq)
IBVM_INT_ENOTSUP(ibv_query_gid_type)
IBVM_PTR_ENOTSUP(_verbs_init_and_alloc_context)
IBVM_PTR_ENOTSUP(verbs_open_device)
/* Provider registration and context setup: no provider is ever used. */
IBVM_VOID_NOOP(verbs_register_driver_34)
IBVM_VOID_NOOP(verbs_set_ops)
IBVM_VOID_NOOP(verbs_uninit_context)

/* int ibv_read_ibdev_sysfs_file(buf, size, struct verbs_sysfs_dev *, fmt, ...) */
IBVM_EXPORT int ibv_read_ibdev_sysfs_file(void);
IBVM_EXPORT int
ibv_read_ibdev_sysfs_file(void)
{
	errno = EOPNOTSUPP;	/* no verbs_sysfs_dev exists without a provider */
	return -1;
}

/* A provider's log line; providers never run here. */
IBVM_EXPORT void __verbs_log(void *ctx, uint32_t level, const char *fmt, ...);
IBVM_EXPORT void
__verbs_log(void *ctx, uint32_t level, const char *fmt, ...)
{
	(void)ctx;
	(void)level;
	(void)fmt;
}

/* Attributes of an ioctl command buffer chain: no chain is ever built here. */
IBVM_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, void *link);
IBVM_EXPORT unsigned int
__ioctl_final_num_attrs(unsigned int num_attrs, void *link)
{
	(void)link;
	return num_attrs;
}

/* ---- IBVERBS_1.0 compat entry points ------------------------------------ */

#define IBVM_COMPAT_INT(name, node)			\
	IBVM_INT_ENOTSUP(ibvm_compat_##name)		\
	IBVM_SYMVER(ibvm_compat_##name, name, node);

#define IBVM_COMPAT_MINUS1(name, node)			\
	IBVM_EXPORT int ibvm_compat_##name(void);	\
	IBVM_EXPORT int					\
	ibvm_compat_##name(void)			\
	{						\
		errno = EOPNOTSUPP;			\
		return -1;				\
	}						\
	IBVM_SYMVER(ibvm_compat_##name, name, node);

#define IBVM_COMPAT_PTR(name, node)			\
	IBVM_PTR_ENOTSUP(ibvm_compat_##name)		\
	IBVM_SYMVER(ibvm_compat_##name, name, node);

#define IBVM_COMPAT_VOID(name, node)			\
	IBVM_VOID_NOOP(ibvm_compat_##name)		\
	IBVM_SYMVER(ibvm_compat_##name, name, node);

IBVM_COMPAT_VOID(ibv_ack_async_event, IBVERBS_1.0)
IBVM_COMPAT_VOID(ibv_ack_cq_events, IBVERBS_1.0)
IBVM_COMPAT_VOID(ibv_free_device_list, IBVERBS_1.0)
/* ibv_register_driver: libibverbs 1.1's provider hook, a no-op as above. */
IBVM_COMPAT_VOID(ibv_register_driver, IBVERBS_1.1)
IBVM_COMPAT_PTR(ibv_alloc_pd, IBVERBS_1.0)
IBVM_COMPAT_PTR(ibv_create_ah, IBVERBS_1.0)
IBVM_COMPAT_PTR(ibv_create_cq, IBVERBS_1.0)
IBVM_COMPAT_PTR(ibv_create_qp, IBVERBS_1.0)
IBVM_COMPAT_PTR(ibv_create_srq, IBVERBS_1.0)
IBVM_COMPAT_PTR(ibv_get_device_list, IBVERBS_1.0)
IBVM_COMPAT_PTR(ibv_get_device_name, IBVERBS_1.0)
IBVM_COMPAT_PTR(ibv_open_device, IBVERBS_1.0)
IBVM_COMPAT_PTR(ibv_reg_mr, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_attach_mcast, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_close_device, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_dealloc_pd, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_dereg_mr, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_destroy_ah, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_destroy_cq, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_destroy_qp, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_destroy_srq, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_detach_mcast, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_modify_qp, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_modify_srq, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_query_device, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_query_port, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_query_qp, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_query_srq, IBVERBS_1.0)
IBVM_COMPAT_INT(ibv_resize_cq, IBVERBS_1.0)
IBVM_COMPAT_MINUS1(ibv_get_async_event, IBVERBS_1.0)
IBVM_COMPAT_MINUS1(ibv_get_cq_event, IBVERBS_1.0)
IBVM_COMPAT_MINUS1(ibv_query_gid, IBVERBS_1.0)
IBVM_COMPAT_MINUS1(ibv_query_pkey, IBVERBS_1.0)

/* __be64 ibv_get_device_guid(struct ibv_device_1_0 *): 0 = no GUID. */
IBVM_EXPORT uint64_t ibvm_compat_ibv_get_device_guid(void);
IBVM_EXPORT uint64_t
ibvm_compat_ibv_get_device_guid(void)
{
	errno = EOPNOTSUPP;
	return 0;
}
IBVM_SYMVER(ibvm_compat_ibv_get_device_guid, ibv_get_device_guid, IBVERBS_1.0);
