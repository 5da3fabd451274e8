/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * RX delivery: RSS queue choice (hardware.md §6), RX WQE decoding and scatter
 * (3.6, 14 #17, #18), RX CQEs (4.4) and coalescing (4.5, rule 3). The
 * thread serving a port's wire receives its frames (wires call mm_port_rx
 * from their poll), filters them and picks the RQ; the thread serving that
 * RQ scatters them and writes the CQEs. When the two differ, the frame
 * passes through the RQ's handoff ring (one producer, one consumer, in
 * order). All with m->lock held shared, or under the exclusive lock.
 *
 * VLAN (doc/design.md, "Receive" and "Strictness and device counters"): an
 * outer 802.1Q tag (TPID 0x8100) is always stripped. The frame goes into the
 * buffer without it, the CQE reports rx_vlantag_present and the 12-bit VLAN
 * ID (PCP and DEI are lost: dword 1 has no room for them) and the length
 * without the 4 tag bytes. RSS hash and checksum results are those of the
 * packet inside the tag. Any other outer TPID (802.1ad 0x88A8 included) is
 * not a tag to the device: the frame stays as it came.
 *
 * Receive filter and minimum frame (hardware.md §16): a frame shorter than an
 * Ethernet header is a runt; a unicast frame for another MAC is not the
 * vPort's (there is no promiscuous mode). Both are dropped before any queue
 * is chosen and counted (rx_drop_runt, rx_drop_filter). Broadcast and every
 * multicast address pass. The loop wire is the port's own internal loopback
 * and is not filtered (only the runt rule applies to it).
 */

#include <stdlib.h>
#include <string.h>

#include "model_priv.h"

#define MM_ETH_ADDRS_LEN	12	/* destination and source MAC before the TPID */
#define MM_VLAN_HLEN		4
#define MM_ETH_HLEN		14	/* destination, source, EtherType */
#define MM_ETH_GROUP_BIT	0x01	/* first destination byte: multicast/broadcast */

/* Where a frame goes: the RQ, its hash and hash type. */
static struct mm_wq *
mm_rx_target(struct mm_qp *qp, const uint8_t *f, uint32_t len, struct mm_frame_info *fi,
	     bool *parsed, uint32_t *hash, uint32_t *ht)
{
	*parsed = mm_frame_parse(f, len, fi);
	if (!*parsed || (!fi->ipv4 && !fi->ipv6)) {
		/* Non-IP: default_rxobj (the last WQ), hash and type 0. */
		*hash = 0;
		*ht = 0;
		return qp->default_wq;
	}
	*hash = mm_rss_hash_ctx(qp->rss_ctx, f, fi, ht);
	return qp->table64[*hash & (MM_RSS_TABLE_SIZE - 1)];
}

static inline bool
mm_ring_empty(const struct mm_ring *r)
{
	return r->tail == (r->cons_bu << GDMA_WQE_BU_SHIFT);
}

/*
 * Handoff ring of an RX WQ served by another thread than its port's wire:
 * the frame with what the wire's thread learnt of it (parse, hash), in
 * arrival order. A frame of a lossless wire waits at the head for a WQE as
 * it would have waited on the wire; any other finds one or is dropped
 * (rx_drop_no_wqe), and so is a frame that finds the ring full. head and
 * tail are released and acquired (hardware.md §18 #10).
 */
#define MM_HANDOFF_SLOTS	256	/* power of two */

struct mm_handoff_slot {
	uint32_t len;
	bool lossless;
	bool parsed;
	uint32_t hash, ht;
	struct mm_frame_info fi;
	uint8_t data[MANA_MODEL_MAX_FRAME];
};

struct mm_handoff {
	uint32_t head __attribute__((aligned(64)));	/* the wire's thread */
	uint64_t drops;				/* the wire's thread: found it full */
	uint32_t tail __attribute__((aligned(64)));	/* the RQ's thread */
	uint64_t drops_seen;			/* of drops, in the RQ's counter (mm_rx_wq_settle) */
	struct mm_handoff_slot slot[] __attribute__((aligned(64)));
};

/* Room for one more frame (exact on the producer's thread). */
static inline bool
mm_handoff_room(const struct mm_handoff *h)
{
	return h->head - __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE) < MM_HANDOFF_SLOTS;
}

/* Write the thread's pending (possibly coalesced) CQE. */
void
mm_rx_flush(struct mm_engine *e)
{
	struct mm_rx_pending *pd = &e->rxp;
	struct mana_model *m = e->m;
	uint32_t d[GDMA_COMP_DATA_SIZE / 4] = { 0 };

	if (pd->n == 0)
		return;
	d[0] = GDMA_SET(MANA_CQE_TYPE, pd->n == 1 ? CQE_RX_OKAY : CQE_RX_COALESCED_4);
	d[1] = pd->dw1;
	for (uint32_t i = 0; i < pd->n; i++) {
		d[MANA_RXCQE_PKT_LEN_DW(i)] = pd->len[i] & MANA_RXCQE_PKT_LEN_MASK;
		d[MANA_RXCQE_PKT_HASH_DW(i)] = pd->hash[i];
	}
	d[MANA_RXCQE_WQE_OFFSET_DW] = pd->wqe_off;
	mm_cq_write_rx(m, e, pd->wq->cq, d, pd->wq->id);
	pd->wq->qst.cqes++;
	if (pd->n > 1) {
		pd->wq->ep->st.rx_coalesced_cqes++;
		pd->wq->qst.coalesced_cqes++;
	}
	pd->n = 0;
	pd->wq = NULL;
}

void
mm_rx_flush_all(struct mana_model *m)
{
	for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++)
		mm_rx_flush(&m->eng[i]);
}

static void
mm_rx_complete(struct mm_engine *e, struct mm_wq *wq, uint32_t dw1, uint32_t wqe_off,
	       uint32_t len, uint32_t hash, bool truncated)
{
	struct mm_rx_pending *pd = &e->rxp;
	struct mana_model *m = e->m;

	if (pd->n != 0 && (truncated || !m->cfg.rx_coalesce || pd->wq != wq || pd->dw1 != dw1))
		mm_rx_flush(e);
	if (truncated) {
		uint32_t d[GDMA_COMP_DATA_SIZE / 4] = { 0 };

		d[0] = GDMA_SET(MANA_CQE_TYPE, CQE_RX_TRUNCATED);
		d[1] = dw1;
		d[MANA_RXCQE_PKT_LEN_DW(0)] = len & MANA_RXCQE_PKT_LEN_MASK;
		d[MANA_RXCQE_PKT_HASH_DW(0)] = hash;
		d[MANA_RXCQE_WQE_OFFSET_DW] = wqe_off;
		mm_cq_write_rx(m, e, wq->cq, d, wq->id);
		return;
	}
	if (pd->n == 0) {
		pd->wq = wq;
		pd->dw1 = dw1;
		pd->wqe_off = wqe_off;
	}
	pd->len[pd->n] = len;
	pd->hash[pd->n] = hash;
	pd->n++;
	if (!m->cfg.rx_coalesce || pd->n == MANA_RXCQE_PPI_MAX)
		mm_rx_flush(e);
}

/* The outer 802.1Q tag the device strips, if the frame has one. */
static inline bool
mm_rx_strips(const struct mm_frame_info *fi, bool parsed)
{
	return parsed && fi->vlan;
}

/*
 * RX OOB dword 1: hash type, checksum results of the (inner) packet and the
 * stripped tag's VLAN ID. Frames of one CQE share it (4.5), so frames of
 * different VLANs never coalesce.
 */
static uint32_t
mm_rx_dw1(const uint8_t *f, uint32_t len, const struct mm_frame_info *fi, bool parsed,
	  uint32_t ht)
{
	struct mm_csum_result cr;
	uint32_t dw1 = GDMA_SET(MANA_RXCQE_HASHTYPE, ht);

	if (!parsed)
		return dw1;
	if (mm_rx_strips(fi, parsed))
		dw1 |= GDMA_SET(MANA_RXCQE_VLAN_PRESENT, 1) |
		       GDMA_SET(MANA_RXCQE_VLAN_ID, fi->vlan_tci);
	mm_csum_verify(f, len, fi, &cr);
	if (fi->ipv4 && cr.ip_checked)
		dw1 |= cr.ip_ok ? GDMA_SET(MANA_RXCQE_IP_CSUM_OK, 1) :
				  GDMA_SET(MANA_RXCQE_IP_CSUM_BAD, 1);
	else if (fi->ipv6)
		/* No header checksum: a whole IPv6 header is "succeeded" (hardware.md §4.7). */
		dw1 |= GDMA_SET(MANA_RXCQE_IP_CSUM_OK, 1);
	if (cr.l4_checked && fi->l4_proto == 6)
		dw1 |= cr.l4_ok ? GDMA_SET(MANA_RXCQE_TCP_CSUM_OK, 1) :
				  GDMA_SET(MANA_RXCQE_TCP_CSUM_BAD, 1);
	else if (cr.l4_checked && fi->l4_proto == 17)
		dw1 |= cr.l4_ok ? GDMA_SET(MANA_RXCQE_UDP_CSUM_OK, 1) :
				  GDMA_SET(MANA_RXCQE_UDP_CSUM_BAD, 1);
	return dw1;
}

/* The SGL of the RX WQE at the consumer, decoded once for the checks and the scatter. */
struct mm_rx_sgl {
	uint32_t n;
	uint32_t size[GDMA_MAX_RX_SGE];
	uint8_t *dst[GDMA_MAX_RX_SGE];
};

/*
 * Decode the RX WQE at the consumer and check its SGL into *sgl; returns the
 * WQE size in bytes and *cap the buffer capacity, or 0 (frame dropped; the
 * queue is stopped on a malformed WQE, kept on an SGE violation).
 */
static uint32_t
mm_rx_wqe(struct mana_model *m, struct mm_engine *e, struct mm_port *p, struct mm_wq *wq,
	  struct mm_rx_sgl *sgl, uint32_t *cap)
{
	struct mm_ring *r = &wq->ring;
	uint32_t off = (r->cons_bu << GDMA_WQE_BU_SHIFT) & (r->size - 1);
	const uint32_t *h = (const uint32_t *)(const void *)(r->buf + off);
	uint32_t nsge = GDMA_GET(h[1], GDMA_WQE_NUM_SGE), size, total = 0;
	uint32_t avail = r->tail - (r->cons_bu << GDMA_WQE_BU_SHIFT);
	uint32_t sgl_off = off + GDMA_WQE_HDR_SIZE + GDMA_OOB_SIZE_SMALL;

	if (h[0] != 0 || (h[1] & MM_WQE_DW1_BAD) != 0 || nsge < 1 || nsge > GDMA_MAX_RX_SGE ||
	    GDMA_GET(h[1], GDMA_WQE_OOB_DIV4) != GDMA_WQE_OOB_DIV4_SMALL ||
	    h[2] != 0 || h[3] != 0) {
		mm_ring_error(m, r, p->index, "RQ", wq->id, "malformed RX WQE (reserved bits, "
			      "num_sge not 1..15, OOB not 8 zero bytes)");
		return 0;
	}
	size = gdma_wqe_size(GDMA_OOB_SIZE_SMALL, nsge);
	if (size > avail) {
		mm_ring_error(m, r, p->index, "RQ", wq->id, "WQE extends past the doorbell tail");
		return 0;
	}
	for (uint32_t i = 0; i < nsge; i++) {
		/* The SGL may wrap to the ring start at any 16-byte boundary. */
		const struct gdma_sge *s = (const struct gdma_sge *)(const void *)(r->buf +
			((sgl_off + GDMA_SGE_SIZE * i) & (r->size - 1)));
		uint64_t addr = s->address;
		uint32_t len = s->size, key = s->mem_key;
		struct mm_mr *mr = mm_mr_lookup_eng(m, e, key);

		if (mr == NULL || mr->pd != wq->pd->base ||
		    !(mr->access & IBV_ACCESS_LOCAL_WRITE) || addr < mr->start ||
		    addr > mr->end || len > mr->end - addr) {
			wq->ep->st.rx_drop_sge++;
			wq->qst.drop_sge++;
			mm_error(m, MM_LOG_ERR,
				 "RQ 0x%x WQE at BU %u: SGE %u (addr 0x%llx, lkey 0x%x, "
				 "%u bytes) not inside a LOCAL_WRITE MR of the WQ's PD: frame "
				 "dropped", wq->id, r->cons_bu, i, (unsigned long long)addr, key,
				 len);
			return 0;
		}
		sgl->dst[i] = (uint8_t *)(uintptr_t)addr;
		sgl->size[i] = len;
		total += len;
	}
	sgl->n = nsge;
	*cap = total;
	return size;
}

/*
 * Scatter the frame over the SGL (checked by mm_rx_wqe), as far as it goes.
 * With strip, the frame is the MAC addresses followed by what comes after
 * the tag: two pieces, copied as one byte stream.
 */
static void
mm_rx_scatter(const struct mm_rx_sgl *sgl, const uint8_t *f, uint32_t len, bool strip)
{
	const uint8_t *src[2] = { f, f + MM_ETH_ADDRS_LEN + MM_VLAN_HLEN };
	uint32_t left[2] = { len, 0 }, piece = 0;

	if (!strip && sgl->size[0] >= len) {
		/* The common case: the whole frame in the first buffer. */
		memcpy(sgl->dst[0], f, len);
		return;
	}
	if (strip) {
		left[0] = MM_ETH_ADDRS_LEN;
		left[1] = len - MM_ETH_ADDRS_LEN - MM_VLAN_HLEN;
	}
	for (uint32_t i = 0; i < sgl->n && piece < 2; i++) {
		uint8_t *dst = sgl->dst[i];
		uint32_t room = sgl->size[i], n;

		while (room > 0 && piece < 2) {
			n = left[piece] < room ? left[piece] : room;
			memcpy(dst, src[piece], n);
			dst += n;
			room -= n;
			src[piece] += n;
			left[piece] -= n;
			if (left[piece] == 0)
				piece++;
		}
	}
}

/*
 * The vPort's receive filter (hardware.md §16): false, counted, for a runt
 * or a unicast frame to another MAC.
 */
static bool
mm_rx_accept(struct mm_port *p, struct mana_model_port_stats *st, const uint8_t *frame,
	     uint32_t len)
{
	if (len < MM_ETH_HLEN) {
		st->rx_drop_runt++;
		return false;
	}
	if ((frame[0] & MM_ETH_GROUP_BIT) != 0 || memcmp(frame, p->mac, sizeof(p->mac)) == 0)
		return true;
	if (p->wire != NULL && p->wire->cfg.type == MANA_MODEL_WIRE_LOOP)
		return true;
	st->rx_drop_filter++;
	return false;
}

/* A frame found its RQ (a WQE is posted): scatter it and complete it, on the RQ's thread e. */
static void
mm_rx_deliver(struct mm_engine *e, struct mm_port *p, struct mm_wq *wq, const uint8_t *frame,
	      uint32_t len, const struct mm_frame_info *fi, bool parsed, uint32_t hash,
	      uint32_t ht)
{
	struct mana_model_port_stats *st = &wq->ep->st;
	struct mana_model *m = p->m;
	bool strip = mm_rx_strips(fi, parsed);
	/* What the buffer receives: the frame without a stripped tag. */
	uint32_t out = strip ? len - MM_VLAN_HLEN : len;
	uint32_t size, cap = 0, wqe_off;
	struct mm_rx_sgl sgl;

	size = mm_rx_wqe(m, e, p, wq, &sgl, &cap);
	if (size == 0) {
		if (wq->ring.stopped) {
			st->rx_drop_no_wqe++;
			wq->qst.drop_no_wqe++;
		}
		return;
	}
	mm_rx_scatter(&sgl, frame, len, strip);
	wqe_off = wq->ring.cons_bu << GDMA_WQE_BU_SHIFT;
	wq->ring.cons_bu += size >> GDMA_WQE_BU_SHIFT;
	wq->ep->frames++;
	if (out > cap) {
		st->rx_truncated++;
		wq->qst.truncated++;
		mm_rx_complete(e, wq, mm_rx_dw1(frame, len, fi, parsed, ht), wqe_off, out, hash,
			       true);
		return;
	}
	st->rx_frames++;
	st->rx_bytes += out;
	wq->qst.frames++;
	wq->qst.bytes += out;
	mm_rx_complete(e, wq, mm_rx_dw1(frame, len, fi, parsed, ht), wqe_off, out, hash, false);
}

/*
 * Hand a frame to an RQ another thread serves (the port's wire thread
 * calls it). False when the ring is full; a frame that is not lossless is
 * then dropped and counted.
 */
static bool
mm_rx_hand(struct mm_port *p, struct mm_wq *wq, const uint8_t *frame, uint32_t len,
	   const struct mm_frame_info *fi, bool parsed, uint32_t hash, uint32_t ht, bool lossless)
{
	struct mm_handoff *ho = wq->handoff;
	struct mm_handoff_slot *s;

	if (!mm_handoff_room(ho)) {
		if (!lossless) {
			p->home_ep->st.rx_drop_no_wqe++;
			/* Folded into the RQ's own counter when it is read (mm_rx_wq_settle). */
			__atomic_store_n(&ho->drops, ho->drops + 1, __ATOMIC_RELAXED);
		}
		return false;
	}
	s = &ho->slot[ho->head & (MM_HANDOFF_SLOTS - 1)];
	memcpy(s->data, frame, len);
	s->len = len;
	s->lossless = lossless;
	s->parsed = parsed;
	s->fi = *fi;
	s->hash = hash;
	s->ht = ht;
	/* Release: the slot is written before the RQ's thread sees the new head. */
	__atomic_store_n(&ho->head, ho->head + 1, __ATOMIC_RELEASE);
	return true;
}

void
mm_port_rx(struct mm_port *p, const uint8_t *frame, uint32_t len)
{
	struct mana_model_port_stats *st = &p->home_ep->st;
	struct mana_model *m = p->m;
	struct mm_frame_info fi;
	uint32_t hash, ht;
	struct mm_wq *wq;
	bool parsed;

	if (!p->link_up || m->fatal || p->rss == NULL) {
		st->rx_drop_no_rxq++;
		return;
	}
	if (!mm_rx_accept(p, st, frame, len))
		return;
	if (p->drop_n != 0) {
		p->drop_n--;
		st->rx_drop_injected++;
		return;
	}
	wq = mm_rx_target(p->rss, frame, len, &fi, &parsed, &hash, &ht);
	if (wq->handoff != NULL) {
		mm_rx_hand(p, wq, frame, len, &fi, parsed, hash, ht, false);
		return;
	}
	if (wq->ring.stopped || mm_ring_empty(&wq->ring)) {
		st->rx_drop_no_wqe++;
		wq->qst.drop_no_wqe++;
		return;
	}
	mm_rx_deliver(p->home, p, wq, frame, len, &fi, parsed, hash, ht);
}

/*
 * Some RQ of the RSS QP's table can take a frame (with one RQ: the frame's
 * own): a posted WQE, or room in the handoff ring of an RQ another thread
 * serves.
 */
static bool
mm_rx_any_ready(const struct mm_qp *rss)
{
	const struct mm_ind *t = rss->ind;

	for (uint32_t i = 0; i < (1u << t->log); i++) {
		const struct mm_wq *wq = t->wqs[i];

		if (wq->handoff != NULL ? mm_handoff_room(wq->handoff) :
					  !wq->ring.stopped && !mm_ring_empty(&wq->ring))
			return true;
	}
	return false;
}

/*
 * A lossless wire offers each frame until its RQ has a WQE (model_wire.h).
 * The wire offers the frame it holds again on every engine pass while the
 * driver has not refilled: when no RQ has a WQE the answer is known before
 * the frame is parsed and hashed (callgrind, testpmd io on two gen wires:
 * such an offer cost about 210 instructions, now about 55). An RQ of
 * another thread takes the frame into its handoff ring while there is room;
 * the frame then waits there for its WQE.
 */
bool
mm_port_rx_if_ready(struct mm_port *p, const uint8_t *frame, uint32_t len)
{
	struct mana_model_port_stats *st = &p->home_ep->st;
	struct mana_model *m = p->m;
	struct mm_frame_info fi;
	uint32_t hash, ht;
	struct mm_wq *wq;
	bool parsed;

	if (!p->link_up || m->fatal || p->rss == NULL)
		return false;
	/* A frame the vPort does not take is consumed: it never waits for a WQE. */
	if (!mm_rx_accept(p, st, frame, len))
		return true;
	if (!mm_rx_any_ready(p->rss))
		return false;
	wq = mm_rx_target(p->rss, frame, len, &fi, &parsed, &hash, &ht);
	if (wq->handoff != NULL ? !mm_handoff_room(wq->handoff) :
				  wq->ring.stopped || mm_ring_empty(&wq->ring))
		return false;
	if (p->drop_n != 0) {
		p->drop_n--;
		st->rx_drop_injected++;
		return true;
	}
	if (wq->handoff != NULL)
		return mm_rx_hand(p, wq, frame, len, &fi, parsed, hash, ht, true);
	mm_rx_deliver(p->home, p, wq, frame, len, &fi, parsed, hash, ht);
	return true;
}

/* Frames that found the handoff ring full, into the RQ's own counter. */
void
mm_rx_wq_settle(struct mm_wq *wq)
{
	struct mm_handoff *ho = wq->handoff;
	uint64_t d;

	if (ho == NULL)
		return;
	d = __atomic_load_n(&ho->drops, __ATOMIC_RELAXED);
	wq->qst.drop_no_wqe += d - ho->drops_seen;
	ho->drops_seen = d;
}

unsigned int
mm_rx_drain_handoff(struct mm_engine *e, struct mm_wq *wq)
{
	struct mm_handoff *ho = wq->handoff;
	uint32_t tail = ho->tail, head = __atomic_load_n(&ho->head, __ATOMIC_ACQUIRE);
	struct mm_port *p = &e->m->port[wq->rss->port];
	unsigned int n = 0;

	for (; tail != head; tail++, n++) {
		const struct mm_handoff_slot *s = &ho->slot[tail & (MM_HANDOFF_SLOTS - 1)];

		if (wq->ctx->dead) {
			/* A reset ended the RQ's context: its frames reach nothing. */
			wq->ep->st.rx_drop_no_rxq++;
		} else if (!wq->ring.stopped && !mm_ring_empty(&wq->ring)) {
			mm_rx_deliver(e, p, wq, s->data, s->len, &s->fi, s->parsed, s->hash,
				      s->ht);
		} else if (s->lossless) {
			break;		/* it waits for the driver's refill */
		} else {
			wq->ep->st.rx_drop_no_wqe++;
			wq->qst.drop_no_wqe++;
		}
	}
	if (n != 0)
		__atomic_store_n(&ho->tail, tail, __ATOMIC_RELEASE);
	return n;
}

int
mm_rx_wq_assign(struct mana_model *m, struct mm_wq *wq, unsigned int port, unsigned int eng)
{
	struct mm_handoff *ho = NULL;

	if (eng != m->port[port].engine) {
		/* About 2.4 MB of address space, touched only as frames pass. */
		if (posix_memalign((void **)&ho, 64, sizeof(*ho) + MM_HANDOFF_SLOTS *
				   sizeof(ho->slot[0])) != 0)
			return ENOMEM;
		memset(ho, 0, sizeof(*ho));
	}
	wq->ring.engine = eng;
	wq->ep = &m->eng[eng].port[port];
	wq->handoff = ho;
	return 0;
}

void
mm_rx_wq_release(struct mm_wq *wq)
{
	struct mm_handoff *ho = wq->handoff;

	if (ho != NULL) {
		/* The RQ ends with its RSS QP: frames still on their way to it are lost. */
		wq->ep->st.rx_drop_no_rxq += ho->head - ho->tail;
		free(ho);
	}
	wq->handoff = NULL;
	wq->ring.engine = 0;
	wq->ep = NULL;
}

/* Frames handed in by mana_model_inject_rx, delivered on the engine side. */
unsigned int
mm_rx_drain_inbox(struct mm_port *p)
{
	struct mm_inbox_frame *f, *next;
	unsigned int n = 0;

	if (__atomic_load_n(&p->inbox_head, __ATOMIC_ACQUIRE) == NULL)
		return 0;
	pthread_mutex_lock(&p->inbox_lock);
	f = p->inbox_head;
	p->inbox_head = NULL;
	p->inbox_tail = NULL;
	pthread_mutex_unlock(&p->inbox_lock);
	for (; f != NULL; f = next) {
		next = f->next;
		mm_port_rx(p, f->data, f->len);
		free(f);
		n++;
	}
	return n;
}
