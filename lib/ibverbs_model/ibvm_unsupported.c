/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Exported verbs a MANA device does not have. They answer as rdma-core 44
 * does for a provider without the op (libibverbs' dummy ops, IBV44
 * dummy_ops.c): NULL with errno EOPNOTSUPP, or the value EOPNOTSUPP, in the
 * return convention of each verb.
 */

#include <errno.h>
#include <stdint.h>
#include <sys/types.h>

#include "ibvm_priv.h"

static void *
ibvm_null(void)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static int
ibvm_enotsup(void)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

static int
ibvm_minus_one(void)
{
	errno = EOPNOTSUPP;
	return -1;
}

/* ---- address handles, multicast (no UD/RC transport on MANA Ethernet) --- */

IBVM_EXPORT struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	(void)pd; (void)attr;
	return ibvm_null();
}

IBVM_EXPORT int
ibv_destroy_ah(struct ibv_ah *ah)
{
	(void)ah;
	return ibvm_enotsup();
}

IBVM_EXPORT struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
		      uint8_t port_num)
{
	(void)pd; (void)wc; (void)grh; (void)port_num;
	return ibvm_null();
}

IBVM_EXPORT int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,
		    struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	(void)context; (void)port_num; (void)wc; (void)grh; (void)ah_attr;
	return ibvm_minus_one();
}

IBVM_EXPORT int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp; (void)gid; (void)lid;
	return ibvm_enotsup();
}

IBVM_EXPORT int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp; (void)gid; (void)lid;
	return ibvm_enotsup();
}

IBVM_EXPORT int
ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
			    uint8_t eth_mac[6], uint16_t *vid)
{
	(void)context; (void)attr; (void)eth_mac; (void)vid;
	return ibvm_enotsup();
}

/* ---- QP/SRQ/CQ/MR operations MANA answers with EOPNOTSUPP (RC44) ------- */

IBVM_EXPORT int
ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	(void)qp; (void)attr; (void)attr_mask;
	return ibvm_enotsup();
}

IBVM_EXPORT int
ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
	     struct ibv_qp_init_attr *init_attr)
{
	(void)qp; (void)attr; (void)attr_mask; (void)init_attr;
	return ibvm_enotsup();
}

IBVM_EXPORT int
ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask)
{
	(void)srq; (void)srq_attr; (void)srq_attr_mask;
	return ibvm_enotsup();
}

IBVM_EXPORT int
ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	(void)srq; (void)srq_attr;
	return ibvm_enotsup();
}

IBVM_EXPORT int
ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	(void)cq; (void)cqe;
	return ibvm_enotsup();
}

IBVM_EXPORT int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
	     int access)
{
	(void)mr; (void)flags; (void)pd; (void)addr; (void)length; (void)access;
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT;
}

IBVM_EXPORT struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
		  int access)
{
	(void)pd; (void)offset; (void)length; (void)iova; (void)fd; (void)access;
	return ibvm_null();
}

IBVM_EXPORT struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	(void)qp;
	return ibvm_null();	/* no extended QPs: ibv_create_qp_ex never makes one */
}

IBVM_EXPORT int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp; (void)op; (void)flags;
	return 0;	/* "not in order", what rdma-core answers without the op */
}

IBVM_EXPORT int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp; (void)ece;
	return ibvm_enotsup();
}

IBVM_EXPORT int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp; (void)ece;
	return ibvm_enotsup();
}

/* ---- GID / P_Key tables (an Ethernet vPort has none in the model) ------- */

IBVM_EXPORT int
ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	(void)context; (void)port_num; (void)index; (void)gid;
	return ibvm_minus_one();
}

IBVM_EXPORT int
ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
	(void)context; (void)port_num; (void)index; (void)pkey;
	return ibvm_minus_one();
}

IBVM_EXPORT int
ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	(void)context; (void)port_num; (void)pkey;
	return ibvm_minus_one();
}

IBVM_EXPORT int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		  struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	(void)context; (void)port_num; (void)gid_index; (void)entry; (void)flags;
	(void)entry_size;
	return ibvm_enotsup();
}

IBVM_EXPORT ssize_t
_ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
		     size_t max_entries, uint32_t flags, size_t entry_size)
{
	(void)context; (void)entries; (void)max_entries; (void)flags; (void)entry_size;
	return -ibvm_enotsup();
}

/* ---- importing objects of another process's context (needs a kernel) --- */

IBVM_EXPORT struct ibv_context *
ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	return ibvm_null();
}

IBVM_EXPORT struct ibv_pd *
ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context; (void)pd_handle;
	return ibvm_null();
}

IBVM_EXPORT struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd; (void)mr_handle;
	return ibvm_null();
}

IBVM_EXPORT struct ibv_dm *
ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context; (void)dm_handle;
	return ibvm_null();
}

/* Nothing can have been imported, so there is nothing to release. */
IBVM_EXPORT void
ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

IBVM_EXPORT void
ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

IBVM_EXPORT void
ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}
