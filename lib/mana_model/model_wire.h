/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The boundary between a vPort of the model and the wire behind it.
 *
 * TX: the engine hands every frame a port transmits to wire->ops->tx (the
 * wire copies it). The thread serving the sending SQ calls it; when a port's
 * SQs are served by several threads, one at a time (the port's wire lock).
 * RX: each engine pass calls wire->ops->poll, which hands arriving frames to
 * the port with mm_port_rx() (always on the thread that serves the
 * receiving port's wire, so the RX side needs no lock; poll_touches_tx polls
 * under the wire lock too). A wire between two ports (pair, loop) therefore
 * queues frames in an inbox that the receiving side drains.
 */

#ifndef MANA_MODEL_WIRE_H
#define MANA_MODEL_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "mana_model.h"

struct mm_port;		/* a vPort, owned by the model core */
struct mm_wire;

struct mm_wire_ops {
	const char *name;
	/* Take a copy of one transmitted frame (len <= MANA_MODEL_MAX_FRAME). */
	void (*tx)(struct mm_wire *w, const uint8_t *frame, uint32_t len);
	/* Deliver up to budget frames with mm_port_rx(); return how many. */
	unsigned int (*poll)(struct mm_wire *w, unsigned int budget);
	void (*close)(struct mm_wire *w);
	/* poll also writes TX-side state (pcap flushes its TX file): never beside tx. */
	bool poll_touches_tx;
	/* Copy / zero the kind's own counters (wire_sink_*, wire_gen_frames); NULL: none. */
	void (*stats)(const struct mm_wire *w, struct mana_model_port_stats *st);
	void (*stats_reset)(struct mm_wire *w);
};

struct mm_wire {
	const struct mm_wire_ops *ops;
	struct mm_port *port;		/* the vPort this end belongs to */
	struct mana_model_wire_cfg cfg;
	void *priv;			/* the wire type's own state and counters */
	/* Frames the wire could not carry (inbox full, peer gone, TAP write failed). */
	uint64_t wire_drops;
};

/* Largest number of generator flows (parse and mana_model_gen_set limit). */
#define MM_GEN_MAX_FLOWS	65536
#define MM_GEN_MAX_RATE		1000000000ull	/* frames/s; 0: unlimited */

/*
 * Implemented by the model core (model engine).
 */
/* A frame arrives at port from its wire: RSS, scatter into an RX WQE, CQE. */
void mm_port_rx(struct mm_port *port, const uint8_t *frame, uint32_t len);
/*
 * Lossless wires: deliver a frame as mm_port_rx() does if a WQE is posted on
 * the RQ it hashes to (parsing and hashing it once); false, with nothing
 * done and nothing counted, when none is.
 */
bool mm_port_rx_if_ready(struct mm_port *port, const uint8_t *frame, uint32_t len);
/* The port's MAC, index and device (for pair wires across devices). */
const uint8_t *mm_port_mac(const struct mm_port *port);
unsigned int mm_port_index(const struct mm_port *port);
/* The wire of port `index` of device `m` (pair wires find their peer). */
struct mm_wire *mm_port_wire(struct mana_model *m, unsigned int index);

/*
 * Implemented by the wires (model_wire*.c).
 */
/* Open the wire cfg for port; NULL + errno on failure (log says why). */
struct mm_wire *mm_wire_open(struct mm_port *port, const struct mana_model_wire_cfg *cfg);
/*
 * Connect pair wires once every device port exists: 0, -EAGAIN while the far
 * end does not exist, -EINVAL (one line in msg) while it is not a pair back.
 */
int mm_wire_connect(struct mm_wire *w, char *msg, size_t size);
/* A connected wire still has its far end (pair: the peer did not close); engine thread. */
bool mm_wire_carrier(struct mm_wire *w);
void mm_wire_close(struct mm_wire *w);
/* The wire's counters into st (wire_drops, and the kind's own) / zero them (m->lock held). */
void mm_wire_stats(const struct mm_wire *w, struct mana_model_port_stats *st);
void mm_wire_stats_reset(struct mm_wire *w);
/* A gen wire's live rate (0: unlimited) and, unless 0, flow count (m->lock held). */
void mm_wire_gen_set(struct mm_wire *w, uint64_t rate_pps, uint32_t flows);

/* "pair", "gen", ... for messages. */
const char *mm_wire_type_name(enum mana_model_wire_type type);

/*
 * Pair wires between ports of one device (pair:<port>, or pair:<name>/<port>
 * when name is given) must name each other and existing ports: 0, or
 * -EINVAL with one line in msg ("port 0: wire pair:1 names port 1, but ...").
 * Pairs to other devices are checked when the device is created.
 */
int mm_wire_pairs_check(const struct mana_model_config *cfg, const char *name, char *msg,
			size_t size);

/* Logging from wires, routed to the shim's logger (implemented by the core). */
void mm_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* MANA_MODEL_WIRE_H */
