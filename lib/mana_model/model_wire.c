/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Wires: open/connect/close dispatch, the inbox ring, and the none, loop
 * and pair wires.
 *
 * Pair ends may sit on devices whose engines run on different threads. Each
 * end owns an inbox for the frames it receives; its peer's TX pushes into it
 * (one producer, one consumer). Connecting hands each end the other's inbox
 * through an atomic "pending" pointer that only the end's own TX thread
 * takes over, so no engine ever sees a pointer change under its feet, and
 * reference counts keep an inbox alive until both ends let go of it.
 * Ordering: hardware.md §18 #11.
 */

/* POSIX/GNU interfaces (clock_gettime, strnlen, posix_memalign...) under -std=c11. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_wire_priv.h"

struct mm_inbox_slot {
	uint32_t len;
	uint8_t data[MANA_MODEL_MAX_FRAME];
};

struct mm_inbox {
	uint32_t head __attribute__((aligned(64)));	/* written by the producer */
	uint32_t tail __attribute__((aligned(64)));	/* written by the consumer */
	uint32_t refs __attribute__((aligned(64)));
	bool receiver_gone;
	struct mm_inbox_slot slot[MM_INBOX_SLOTS] __attribute__((aligned(64)));
};

struct mm_inbox *
mm_inbox_new(void)
{
	struct mm_inbox *ib = NULL;

	/* ~4.7 MB, mostly untouched until frames flow. */
	if (posix_memalign((void **)&ib, 64, sizeof(*ib)) != 0) {
		errno = ENOMEM;
		return NULL;
	}
	ib->head = 0;
	ib->tail = 0;
	ib->refs = 1;
	ib->receiver_gone = false;
	return ib;
}

void
mm_inbox_get(struct mm_inbox *ib)
{
	__atomic_fetch_add(&ib->refs, 1, __ATOMIC_RELAXED);
}

void
mm_inbox_put(struct mm_inbox *ib)
{
	if (ib != NULL && __atomic_sub_fetch(&ib->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(ib);
}

bool
mm_inbox_push(struct mm_inbox *ib, const uint8_t *frame, uint32_t len)
{
	uint32_t head = ib->head;	/* only this thread writes it */
	struct mm_inbox_slot *s;

	if (len > MANA_MODEL_MAX_FRAME || __atomic_load_n(&ib->receiver_gone, __ATOMIC_RELAXED))
		return false;
	/* Acquire: the consumer is done with the slot it released. */
	if (head - __atomic_load_n(&ib->tail, __ATOMIC_ACQUIRE) >= MM_INBOX_SLOTS)
		return false;
	s = &ib->slot[head & (MM_INBOX_SLOTS - 1)];
	memcpy(s->data, frame, len);
	s->len = len;
	/* Release: the slot content is visible before the new head. */
	__atomic_store_n(&ib->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

unsigned int
mm_inbox_drain(struct mm_inbox *ib, struct mm_port *port, unsigned int budget)
{
	uint32_t tail = ib->tail;	/* only this thread writes it */
	uint32_t head = __atomic_load_n(&ib->head, __ATOMIC_ACQUIRE);
	unsigned int n = 0;

	while (tail != head && n < budget) {
		const struct mm_inbox_slot *s = &ib->slot[tail & (MM_INBOX_SLOTS - 1)];

		mm_port_rx(port, s->data, s->len);
		tail++;
		n++;
	}
	if (n != 0)
		__atomic_store_n(&ib->tail, tail, __ATOMIC_RELEASE);
	return n;
}

unsigned int
mm_inbox_count(const struct mm_inbox *ib)
{
	return __atomic_load_n(&ib->head, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&ib->tail, __ATOMIC_ACQUIRE);
}

/* ---- none ----------------------------------------------------------- */

static void
none_tx(struct mm_wire *w, const uint8_t *frame, uint32_t len)
{
	mm_sink_frame(w->priv, frame, len);
}

static unsigned int
none_poll(struct mm_wire *w, unsigned int budget)
{
	(void)w;
	(void)budget;
	return 0;
}

static void
none_close(struct mm_wire *w)
{
	free(w->priv);
	w->priv = NULL;
}

static const struct mm_wire_ops none_ops = {
	.name = "none", .tx = none_tx, .poll = none_poll, .close = none_close,
	.stats = mm_sink_stats, .stats_reset = mm_sink_stats_reset,
};

/* The none wire's state is its sink alone. */
static int
none_open(struct mm_wire *w)
{
	w->priv = calloc(1, sizeof(struct mm_sink));
	if (w->priv == NULL)
		return -ENOMEM;
	w->ops = &none_ops;
	return 0;
}

/* ---- loop and pair -------------------------------------------------- */

struct mm_pair {
	struct mm_inbox *inbox;		/* frames for this end; drained by poll */
	struct mm_inbox *peer;		/* where TX goes; TX thread only */
	struct mm_inbox *pending;	/* peer inbox handed over by connect (atomic) */
};

static void
pair_take_pending(struct mm_pair *p)
{
	struct mm_inbox *ib = __atomic_exchange_n(&p->pending, NULL, __ATOMIC_ACQ_REL);

	if (ib == NULL)
		return;
	mm_inbox_put(p->peer);
	p->peer = ib;
}

static void
pair_tx(struct mm_wire *w, const uint8_t *frame, uint32_t len)
{
	struct mm_pair *p = w->priv;

	if (__atomic_load_n(&p->pending, __ATOMIC_RELAXED) != NULL)
		pair_take_pending(p);
	/* Unconnected, peer gone or inbox full: the cable drops the frame. */
	if (p->peer == NULL || !mm_inbox_push(p->peer, frame, len))
		w->wire_drops++;
}

static void
loop_tx(struct mm_wire *w, const uint8_t *frame, uint32_t len)
{
	struct mm_pair *p = w->priv;

	if (!mm_inbox_push(p->inbox, frame, len))
		w->wire_drops++;
}

static unsigned int
pair_poll(struct mm_wire *w, unsigned int budget)
{
	struct mm_pair *p = w->priv;

	return mm_inbox_drain(p->inbox, w->port, budget);
}

static void
pair_close(struct mm_wire *w)
{
	struct mm_pair *p = w->priv;

	if (p == NULL)
		return;
	__atomic_store_n(&p->inbox->receiver_gone, true, __ATOMIC_RELAXED);
	mm_inbox_put(__atomic_exchange_n(&p->pending, NULL, __ATOMIC_ACQ_REL));
	mm_inbox_put(p->peer);
	mm_inbox_put(p->inbox);
	free(p);
	w->priv = NULL;
}

static void
loop_close(struct mm_wire *w)
{
	struct mm_pair *p = w->priv;

	if (p == NULL)
		return;
	mm_inbox_put(p->inbox);
	free(p);
	w->priv = NULL;
}

static const struct mm_wire_ops loop_ops = {
	.name = "loop", .tx = loop_tx, .poll = pair_poll, .close = loop_close,
};

static const struct mm_wire_ops pair_ops = {
	.name = "pair", .tx = pair_tx, .poll = pair_poll, .close = pair_close,
};

static int
pair_open(struct mm_wire *w)
{
	struct mm_pair *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return -ENOMEM;
	p->inbox = mm_inbox_new();
	if (p->inbox == NULL) {
		free(p);
		return -ENOMEM;
	}
	w->priv = p;
	w->ops = w->cfg.type == MANA_MODEL_WIRE_LOOP ? &loop_ops : &pair_ops;
	return 0;
}

/* Give pair end w the inbox it transmits into. */
static void
pair_hand_over(struct mm_wire *w, struct mm_inbox *ib)
{
	struct mm_pair *p = w->priv;

	mm_inbox_get(ib);
	mm_inbox_put(__atomic_exchange_n(&p->pending, ib, __ATOMIC_ACQ_REL));
}

/*
 * The device w belongs to: the wire API gives a port no device pointer, so
 * look for the registered device whose port holds w (control path only).
 */
static struct mana_model *
wire_model(const struct mm_wire *w)
{
	struct mana_model *stack[16], **list = stack, *found = NULL;
	unsigned int idx = mm_port_index(w->port);
	unsigned int n, i;

	n = mana_model_list(list, 16);
	if (n > 16) {
		list = calloc(n, sizeof(*list));
		if (list == NULL)
			return NULL;
		n = mana_model_list(list, n);
	}
	for (i = 0; i < n && found == NULL; i++) {
		if (idx < mana_model_config(list[i])->nports && mm_port_wire(list[i], idx) == w)
			found = list[i];
	}
	if (list != stack)
		free(list);
	return found;
}

/* The device a pair configuration names, seen from device self. */
static struct mana_model *
pair_target(const struct mana_model_wire_cfg *cfg, struct mana_model *self)
{
	return cfg->pair.dev[0] == '\0' ? self : mana_model_find(cfg->pair.dev);
}

static int
pair_connect(struct mm_wire *w, char *msg, size_t size)
{
	struct mana_model *self = wire_model(w), *pm;
	struct mm_wire *peer;

	if (self == NULL)
		return -EAGAIN;		/* this device is not registered yet */
	pm = pair_target(&w->cfg, self);
	if (pm == NULL)
		return -EAGAIN;		/* the peer device does not exist yet */
	if (w->cfg.pair.port >= mana_model_config(pm)->nports) {
		snprintf(msg, size, "port %u: wire pair:%s/%u, but device %s has %u port(s)",
			 mm_port_index(w->port), mana_model_config(pm)->name, w->cfg.pair.port,
			 mana_model_config(pm)->name, mana_model_config(pm)->nports);
		return -EINVAL;
	}
	peer = mm_port_wire(pm, w->cfg.pair.port);
	if (peer == NULL)
		return -EAGAIN;
	if (peer->cfg.type != MANA_MODEL_WIRE_PAIR || peer->ops != &pair_ops ||
	    peer->cfg.pair.port != mm_port_index(w->port) || pair_target(&peer->cfg, pm) != self) {
		snprintf(msg, size, "port %u: wire pair:%s/%u, but that port's wire is %s%s, not a "
			 "pair back to it", mm_port_index(w->port), mana_model_config(pm)->name,
			 w->cfg.pair.port, mm_wire_type_name(peer->cfg.type),
			 peer->cfg.type == MANA_MODEL_WIRE_PAIR ? " to another port" : "");
		return -EINVAL;
	}
	/* Both directions: the peer may have given up earlier with -EAGAIN. */
	pair_hand_over(w, ((struct mm_pair *)peer->priv)->inbox);
	pair_hand_over(peer, ((struct mm_pair *)w->priv)->inbox);
	return 0;
}

/*
 * Whether a connected pair end still has a far end (engine thread of w's
 * device, which also runs its TX: it may take the pending inbox).
 */
static bool
pair_carrier(struct mm_wire *w)
{
	struct mm_pair *p = w->priv;

	if (__atomic_load_n(&p->pending, __ATOMIC_RELAXED) != NULL)
		pair_take_pending(p);
	return p->peer != NULL && !__atomic_load_n(&p->peer->receiver_gone, __ATOMIC_RELAXED);
}

/* ---- dispatch ------------------------------------------------------- */

struct mm_wire *
mm_wire_open(struct mm_port *port, const struct mana_model_wire_cfg *cfg)
{
	struct mm_wire *w;
	const char *why = NULL;
	int ret;

	ret = mm_wire_cfg_check(cfg, &why);
	if (ret != 0) {
		mm_log(MM_LOG_ERR, "wire of port %u: %s", mm_port_index(port), why);
		errno = -ret;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	w->port = port;
	w->cfg = *cfg;
	switch (cfg->type) {
	case MANA_MODEL_WIRE_NONE:
		ret = none_open(w);
		break;
	case MANA_MODEL_WIRE_LOOP:
	case MANA_MODEL_WIRE_PAIR:
		ret = pair_open(w);
		break;
	case MANA_MODEL_WIRE_GEN:
		ret = mm_wire_gen_open(w);
		break;
	case MANA_MODEL_WIRE_PCAP:
		ret = mm_wire_pcap_open(w);
		break;
	case MANA_MODEL_WIRE_TAP:
		ret = mm_wire_tap_open(w);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	if (ret != 0) {
		/* pcap and tap say what failed with the file or interface they name */
		if (cfg->type != MANA_MODEL_WIRE_PCAP && cfg->type != MANA_MODEL_WIRE_TAP)
			mm_log(MM_LOG_ERR, "wire of port %u: cannot open: %s", mm_port_index(port),
			       strerror(-ret));
		free(w);
		errno = -ret;
		return NULL;
	}
	return w;
}

int
mm_wire_connect(struct mm_wire *w, char *msg, size_t size)
{
	if (w == NULL)
		return -EINVAL;
	if (w->cfg.type != MANA_MODEL_WIRE_PAIR)
		return 0;
	return pair_connect(w, msg, size);
}

bool
mm_wire_carrier(struct mm_wire *w)
{
	if (w == NULL || w->cfg.type != MANA_MODEL_WIRE_PAIR || w->priv == NULL)
		return true;
	return pair_carrier(w);
}

void
mm_wire_stats(const struct mm_wire *w, struct mana_model_port_stats *st)
{
	st->wire_drops = w->wire_drops;
	if (w->ops->stats != NULL)
		w->ops->stats(w, st);
}

void
mm_wire_stats_reset(struct mm_wire *w)
{
	w->wire_drops = 0;
	if (w->ops->stats_reset != NULL)
		w->ops->stats_reset(w);
}

void
mm_wire_close(struct mm_wire *w)
{
	if (w == NULL)
		return;
	if (w->ops != NULL && w->ops->close != NULL)
		w->ops->close(w);
	free(w);
}
