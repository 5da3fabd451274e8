/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * SQ processing: decode each TX WQE between the device consumer and the
 * doorbell tail (hardware.md §3, §14 #17-#20), gather the frame, apply the
 * offloads, put it on the wire and complete it (hardware.md §4.6).
 *
 * Error CQE policy (vendor_err says which check failed, for the logs):
 *   35 INVALID_OOB            header or OOB malformed (#17, #19)
 *   39 VPORT_IDX_OUT_OF_RANGE vp offset is not the QP's tx_vp_offset
 *   37 HDR_PROCESSING_ERROR   SGE outside an MR of the PD / bad lkey (#18),
 *                             no Ethernet header, offload impossible
 *   34 MTU_DROP               frame (with an inserted tag) longer than MTU + 18
 *   41 VLAN_TAGGING_VIOLATION VLAN insertion into an already tagged frame
 *   40 VPORT_DISABLED         the vPort's link is down (model policy: the
 *                             frame is dropped, counted in tx_drop_link_down,
 *                             and the driver sees an error completion)
 * A WQE with num_sge > 30 whose size is still a valid SQE (31 SGEs with the
 * short OOB: 512 bytes) completes with 35 and processing goes on. A WQE whose
 * size cannot be known (OOB size code not 2/6, or larger than 512 bytes)
 * completes with 35 and then stops the SQ: its successors cannot be found.
 * An LSO WQE (client_oob_in_sgl, hardware.md §3.5) goes to model_lso.c once
 * the checks common to every WQE passed; a malformed LSO SGL completes with
 * 42 GDMA_ERR and stops the SQ.
 */

#include <string.h>

#include "model_priv.h"

#define MM_TX_ERR_LOG_MAX	8	/* error CQEs logged per SQ above debug level */

#define MM_ETH_HLEN	14
#define MM_VLAN_HLEN	4
#define MM_ETH_P_8021Q	0x8100

/* Vendor error codes of the model (nonzero, hardware.md §14 #18); LSO: 0x30.. (model_lso.c). */
enum mm_tx_verr {
	MM_VERR_HDR_RSVD = 1,	/* reserved / unsupported header bits */
	MM_VERR_NO_SGE,		/* num_sge 0 */
	MM_VERR_PKT_FMT,	/* pkt_fmt does not match the OOB size */
	MM_VERR_OOB_RSVD,	/* long OOB reserved bits or encap */
	MM_VERR_VCQ,		/* vcq_num is not the SQ's CQ */
	MM_VERR_VSQ_FRAME,	/* vsq_frame is not (sq_id >> 10) & 0x3FFF */
	MM_VERR_VPORT,		/* vp offset */
	MM_VERR_SIZE,		/* WQE size unknown or > 512 */
	MM_VERR_LKEY = 0x10,	/* no MR with that lkey */
	MM_VERR_PD,		/* MR of another PD */
	MM_VERR_BOUNDS,		/* SGE outside the MR */
	MM_VERR_SHORT = 0x20,	/* frame shorter than an Ethernet header */
	MM_VERR_PARSE,		/* offload asked on an unparsable frame */
	MM_VERR_TRANS_OFF,	/* trans_off is not the L4 offset */
	MM_VERR_CSUM,		/* offload impossible for this frame */
};

/* Header and OOB checks (#17, #19); returns a CQE type. */
static uint32_t
mm_tx_check_oob(struct mana_model *m, struct mm_qp *qp, struct mm_tx_wqe *w)
{
	bool lng = w->oob_size == GDMA_OOB_SIZE_LARGE;
	bool lso = GDMA_GET(w->dw1, GDMA_WQE_OOB_IN_SGL) != 0;
	uint32_t vp;

	/* last_vbytes and the MSS only in an LSO WQE (hardware.md §3.2, §3.5). */
	if ((w->dw0 & (lso ? GDMA_WQE_DW0_RSVD_MASK : UINT32_MAX)) != 0 ||
	    (w->dw1 & MM_WQE_DW1_BAD & (lso ? ~MM_WQE_DW1_LSO_OK : UINT32_MAX)) != 0)
		return w->verr = MM_VERR_HDR_RSVD, CQE_TX_INVALID_OOB;
	/* An LSO WQE with fewer than 2 SGEs is a corrupt one (42, model_lso.c). */
	if (w->nsge == 0 && !lso)
		return w->verr = MM_VERR_NO_SGE, CQE_TX_INVALID_OOB;
	if (GDMA_GET(w->oob[0], MANA_TX_PKT_FMT) !=
	    (lng ? MANA_TX_PKT_FMT_LONG : MANA_TX_PKT_FMT_SHORT))
		return w->verr = MM_VERR_PKT_FMT, CQE_TX_INVALID_OOB;
	if (lng && ((w->oob[2] & MANA_TX_DW2_RSVD_MASK) != 0 ||
		    GDMA_GET(w->oob[2], MANA_TX_IS_ENCAP) != 0 ||
		    (w->oob[3] & MANA_TX_DW3_RSVD_MASK) != 0 || w->oob[4] != 0 || w->oob[5] != 0))
		return w->verr = MM_VERR_OOB_RSVD, CQE_TX_INVALID_OOB;
	if (GDMA_GET(w->oob[0], MANA_TX_VCQ_NUM) != qp->cq->id)
		return w->verr = MM_VERR_VCQ, CQE_TX_INVALID_OOB;
	if (GDMA_GET(w->oob[1], MANA_TX_VSQ_FRAME) != mana_tx_vsq_frame(qp->sq_id))
		return w->verr = MM_VERR_VSQ_FRAME, CQE_TX_INVALID_OOB;
	vp = m->port[qp->port].tx_vp_offset;
	if (lng ? GDMA_GET(w->oob[3], MANA_TX_LONG_VP_OFFSET) != vp :
		  GDMA_GET(w->oob[1], MANA_TX_SHORT_VP_OFFSET) != (vp & 0xFF))
		return w->verr = MM_VERR_VPORT, CQE_TX_VPORT_IDX_OUT_OF_RANGE;
	return CQE_TX_OKAY;
}

const struct gdma_sge *
mm_tx_sge(const struct mm_qp *qp, const struct mm_tx_wqe *w, uint32_t i)
{
	const struct mm_ring *r = &qp->sq;
	uint32_t sgl = w->off + GDMA_WQE_HDR_SIZE + w->oob_size;

	/* The SGL may wrap to the ring start at any 16-byte boundary. */
	return (const struct gdma_sge *)(const void *)
		(r->buf + ((sgl + GDMA_SGE_SIZE * i) & (r->size - 1)));
}

static inline uint32_t
mm_tx_sge_check(struct mana_model *m, const struct mm_qp *qp, struct mm_tx_wqe *w,
		const struct gdma_sge *sge, const uint8_t **data)
{
	uint64_t addr = sge->address;
	uint32_t size = sge->size;
	struct mm_mr *mr = mm_mr_lookup_eng(m, mm_sq_eng(m, qp), sge->mem_key);

	if (mr == NULL)
		return w->verr = MM_VERR_LKEY, CQE_TX_HDR_PROCESSING_ERROR;
	if (mr->pd != qp->pd->base)
		return w->verr = MM_VERR_PD, CQE_TX_HDR_PROCESSING_ERROR;
	if (addr < mr->start || addr > mr->end || size > mr->end - addr)
		return w->verr = MM_VERR_BOUNDS, CQE_TX_HDR_PROCESSING_ERROR;
	*data = (const uint8_t *)(uintptr_t)addr;
	return CQE_TX_OKAY;
}

uint32_t
mm_tx_sge_map(struct mana_model *m, const struct mm_qp *qp, struct mm_tx_wqe *w,
	      const struct gdma_sge *sge, const uint8_t **data)
{
	return mm_tx_sge_check(m, qp, w, sge, data);
}

/*
 * Check the SGL (#18) and gather it into the SQ thread's txbuf; returns a CQE type, *len
 * the frame length and *frame where it is. A single SGE whose frame the
 * offloads will not rewrite is read in place (a DMA read, as the hardware
 * does), with the same checks.
 */
static uint32_t
mm_tx_gather(struct mana_model *m, struct mm_qp *qp, struct mm_tx_wqe *w, bool rewrite,
	     const uint8_t **frame, uint32_t *len)
{
	uint8_t *buf = mm_sq_eng(m, qp)->txbuf;
	uint32_t total = 0;

	for (uint32_t i = 0; i < w->nsge; i++) {
		const struct gdma_sge *sge = mm_tx_sge(qp, w, i);
		uint32_t size = sge->size;
		const uint8_t *data = NULL;
		uint32_t type = mm_tx_sge_check(m, qp, w, sge, &data);

		if (type != CQE_TX_OKAY)
			return type;
		if (size > MANA_MODEL_MAX_FRAME - total)
			return CQE_TX_MTU_DROP;
		if (w->nsge == 1 && !rewrite) {
			*frame = data;
			*len = size;
			return CQE_TX_OKAY;
		}
		memcpy(buf + total, data, size);
		total += size;
	}
	*frame = buf;
	*len = total;
	return CQE_TX_OKAY;
}

/* Will the offloads rewrite the frame (checksums, VLAN insertion)? */
static bool
mm_tx_rewrites(const struct mm_tx_wqe *w)
{
	return GDMA_GET(w->oob[0], MANA_TX_COMP_IPHDR_CSUM) != 0 ||
	       GDMA_GET(w->oob[0], MANA_TX_COMP_TCP_CSUM) != 0 ||
	       GDMA_GET(w->oob[0], MANA_TX_COMP_UDP_CSUM) != 0 ||
	       (w->oob_size == GDMA_OOB_SIZE_LARGE &&
		GDMA_GET(w->oob[2], MANA_TX_INJECT_VLAN) != 0);
}

static bool
mm_tx_tagged(const uint8_t *f)
{
	return ((uint32_t)f[12] << 8 | f[13]) == MM_ETH_P_8021Q;
}

/*
 * MTU, checksum offloads, VLAN insertion; returns a CQE type. The frame is
 * only written when mm_tx_rewrites() said so, and then it is the SQ thread's txbuf.
 */
static uint32_t
mm_tx_offload(struct mana_model *m, struct mm_qp *qp, struct mm_tx_wqe *w, uint32_t *len)
{
	bool inject = w->oob_size == GDMA_OOB_SIZE_LARGE &&
		      GDMA_GET(w->oob[2], MANA_TX_INJECT_VLAN) != 0;
	bool ip = GDMA_GET(w->oob[0], MANA_TX_COMP_IPHDR_CSUM) != 0;
	bool tcp = GDMA_GET(w->oob[0], MANA_TX_COMP_TCP_CSUM) != 0;
	bool udp = GDMA_GET(w->oob[0], MANA_TX_COMP_UDP_CSUM) != 0;
	uint8_t *f = mm_sq_eng(m, qp)->txbuf;
	struct mm_frame_info fi;
	uint32_t max;

	if (*len < MM_ETH_HLEN)
		return w->verr = MM_VERR_SHORT, CQE_TX_HDR_PROCESSING_ERROR;
	/* On the wire, the tag it may get included: MTU + 18, tagged or not (hardware.md §19). */
	max = mm_port_max_frame(m, qp->port);
	if (*len + (inject ? MM_VLAN_HLEN : 0) > max)
		return CQE_TX_MTU_DROP;
	if (ip || tcp || udp) {
		if (!mm_frame_parse(f, *len, &fi))
			return w->verr = MM_VERR_PARSE, CQE_TX_HDR_PROCESSING_ERROR;
		/* trans_off is meaningful only with comp_tcp_csum (DPDK leaves it garbage). */
		if (tcp && GDMA_GET(w->oob[1], MANA_TX_TRANS_OFF) != fi.l4_off)
			return w->verr = MM_VERR_TRANS_OFF, CQE_TX_HDR_PROCESSING_ERROR;
		if (!mm_csum_offload(f, *len, &fi, ip, tcp, udp))
			return w->verr = MM_VERR_CSUM, CQE_TX_HDR_PROCESSING_ERROR;
	}
	if (inject) {
		uint32_t tci = GDMA_GET(w->oob[2], MANA_TX_PCP) << 13 |
			       GDMA_GET(w->oob[2], MANA_TX_DEI) << 12 |
			       GDMA_GET(w->oob[2], MANA_TX_VLAN_ID);

		if (mm_tx_tagged(f))
			return CQE_TX_VLAN_TAGGING_VIOLATION;
		memmove(f + 12 + MM_VLAN_HLEN, f + 12, *len - 12);
		f[12] = MM_ETH_P_8021Q >> 8;
		f[13] = MM_ETH_P_8021Q & 0xFF;
		f[14] = (uint8_t)(tci >> 8);
		f[15] = (uint8_t)tci;
		*len += MM_VLAN_HLEN;
	}
	return CQE_TX_OKAY;
}

void
mm_tx_emit(struct mana_model *m, struct mm_qp *qp, const uint8_t *frame, uint32_t len)
{
	struct mm_port *p = &m->port[qp->port];
	struct mm_engine_port *ep = qp->ep;

	if (p->wire != NULL && p->wire->ops->tx != NULL) {
		bool entered = mm_wire_enter(m, p);

		p->wire->ops->tx(p->wire, frame, len);
		mm_wire_leave(p, entered);
	}
	ep->st.tx_frames++;
	ep->st.tx_bytes += len;
	qp->qst.frames++;
	qp->qst.bytes += len;
	ep->frames++;
}

/*
 * One of the WQEs mana_model_inject_tx_error asked to fail, if any is left:
 * the SQs of a port may be on several threads, so each takes one atomically.
 */
static bool
mm_tx_take_injected(struct mm_port *p)
{
	uint32_t n = __atomic_load_n(&p->tx_err_n, __ATOMIC_RELAXED);

	while (n != 0)
		if (__atomic_compare_exchange_n(&p->tx_err_n, &n, n - 1, true, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

/* Process one WQE whose size is known; returns its CQE type. */
static uint32_t
mm_tx_one(struct mana_model *m, struct mm_qp *qp, struct mm_tx_wqe *w)
{
	struct mm_port *p = &m->port[qp->port];
	const uint8_t *frame = NULL;
	uint32_t type, len = 0;

	type = mm_tx_check_oob(m, qp, w);
	if (type != CQE_TX_OKAY)
		return type;
	if (mm_tx_take_injected(p))
		return p->tx_err_type;
	if (!p->link_up) {
		qp->ep->st.tx_drop_link_down++;
		return CQE_TX_VPORT_DISABLED;
	}
	if (GDMA_GET(w->dw1, GDMA_WQE_OOB_IN_SGL) != 0)
		return mm_lso_send(m, qp, w);
	type = mm_tx_gather(m, qp, w, mm_tx_rewrites(w), &frame, &len);
	if (type == CQE_TX_OKAY)
		type = mm_tx_offload(m, qp, w, &len);
	if (type != CQE_TX_OKAY)
		return type;
	mm_tx_emit(m, qp, frame, len);
	return CQE_TX_OKAY;
}

static void
mm_tx_complete(struct mana_model *m, struct mm_qp *qp, uint32_t wqe_bu, uint32_t type,
	       uint32_t verr, bool suppress)
{
	uint32_t d[GDMA_COMP_DATA_SIZE / 4] = { 0 };

	if (type != CQE_TX_OKAY) {
		qp->ep->st.tx_err[type - CQE_TX_OKAY]++;
		qp->qst.err_cqes++;
		/*
		 * Every error is counted and kept as the last error; only the
		 * first few of a queue are logged above debug level, so a driver
		 * that keeps failing does not flood the log.
		 */
		mm_error(m, qp->qst.err_cqes <= MM_TX_ERR_LOG_MAX ? MM_LOG_NOTICE : MM_LOG_DEBUG,
			 "SQ 0x%x WQE at BU %u: error CQE %u, vendor_err 0x%x%s", qp->sq_id,
			 wqe_bu, type, verr, qp->qst.err_cqes == MM_TX_ERR_LOG_MAX ?
			 " (further error CQEs of this SQ are only counted)" : "");
	} else if (suppress) {
		return;
	}
	d[0] = GDMA_SET(MANA_CQE_TYPE, type) | GDMA_SET(MANA_CQE_VENDOR_ERR, verr);
	d[2] = GDMA_SET(MANA_TXCQE_WQE_OFFSET, wqe_bu & GDMA_QUEUE_OFFSET_MASK);
	mm_cq_write(m, qp->cq, d, qp->sq_id, true);
	qp->qst.cqes++;
}

/* Process the SQ up to its doorbell tail; returns WQEs processed. */
unsigned int
mm_tx_process(struct mana_model *m, struct mm_qp *qp)
{
	struct mm_ring *r = &qp->sq;
	unsigned int n = 0;

	while (!r->stopped && r->tail != (r->cons_bu << GDMA_WQE_BU_SHIFT)) {
		uint32_t avail = r->tail - (r->cons_bu << GDMA_WQE_BU_SHIFT);
		struct mm_tx_wqe w = { .off = (r->cons_bu << GDMA_WQE_BU_SHIFT) & (r->size - 1) };
		const uint32_t *hdr = (const uint32_t *)(const void *)(r->buf + w.off);
		uint32_t div4, size, type;
		bool known;

		w.dw0 = hdr[0];
		w.dw1 = hdr[1];
		w.nsge = GDMA_GET(w.dw1, GDMA_WQE_NUM_SGE);
		div4 = GDMA_GET(w.dw1, GDMA_WQE_OOB_DIV4);
		w.oob_size = div4 == GDMA_WQE_OOB_DIV4_LARGE ? GDMA_OOB_SIZE_LARGE :
							       GDMA_OOB_SIZE_SMALL;
		size = gdma_wqe_size(w.oob_size, w.nsge);
		known = (div4 == GDMA_WQE_OOB_DIV4_SMALL || div4 == GDMA_WQE_OOB_DIV4_LARGE) &&
			size <= GDMA_MAX_SQE_SIZE;
		if (known && size > avail) {
			mm_ring_error(m, r, qp->port, "SQ", qp->sq_id,
				      "WQE extends past the doorbell tail");
			break;
		}
		n++;
		if (!known) {
			mm_tx_complete(m, qp, r->cons_bu, CQE_TX_INVALID_OOB, MM_VERR_SIZE, false);
			mm_ring_error(m, r, qp->port, "SQ", qp->sq_id,
				      "WQE larger than 512 bytes or OOB size code not 2/6");
			break;
		}
		if (w.nsge > GDMA_MAX_TX_SGE) {
			mm_tx_complete(m, qp, r->cons_bu, CQE_TX_INVALID_OOB, MM_VERR_SIZE, false);
			r->cons_bu += size >> GDMA_WQE_BU_SHIFT;
			continue;
		}
		/* Header + OOB never wrap: a WQE starts on a BU boundary. */
		memcpy(w.oob, hdr + 2, GDMA_OOB_SIZE_SMALL);
		if (w.oob_size == GDMA_OOB_SIZE_LARGE)
			memcpy(w.oob + GDMA_OOB_SIZE_SMALL / 4, hdr + 2 + GDMA_OOB_SIZE_SMALL / 4,
			       GDMA_OOB_SIZE_LARGE - GDMA_OOB_SIZE_SMALL);
		type = mm_tx_one(m, qp, &w);
		mm_tx_complete(m, qp, r->cons_bu, type, w.verr,
			       GDMA_GET(w.oob[0], MANA_TX_SUPPRESS_CQE) != 0);
		r->cons_bu += size >> GDMA_WQE_BU_SHIFT;
		if (type == CQE_TX_GDMA_ERR) {
			/* A corrupt WQE disables the queue (hardware.md §3.5, §14 #32). */
			mm_ring_error(m, r, qp->port, "SQ", qp->sq_id, w.why);
			break;
		}
	}
	return n;
}
