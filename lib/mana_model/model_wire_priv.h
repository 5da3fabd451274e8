/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Internals shared by the wire files (model_wire*.c); not used by the core.
 */

#ifndef MANA_MODEL_WIRE_PRIV_H
#define MANA_MODEL_WIRE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model_wire.h"

/* Log levels (syslog numbering, as mana_vs.h). */
#define MM_LOG_ERR	3
#define MM_LOG_WARNING	4
#define MM_LOG_INFO	6

/*
 * Inbox: a bounded single-producer/single-consumer ring of frame slots.
 * The producer is the engine thread of the transmitting device, the
 * consumer the engine thread of the receiving one (the same for loop).
 * Reference counted: the receiving end and the transmitting end each hold
 * one, so either side may close first.
 */
#define MM_INBOX_SLOTS	512	/* power of two */

struct mm_inbox;

struct mm_inbox *mm_inbox_new(void);
void mm_inbox_get(struct mm_inbox *ib);
void mm_inbox_put(struct mm_inbox *ib);
/* Producer: copy one frame in; false if full, too long or the receiver closed. */
bool mm_inbox_push(struct mm_inbox *ib, const uint8_t *frame, uint32_t len);
/* Consumer: hand up to budget frames to port with mm_port_rx(). */
unsigned int mm_inbox_drain(struct mm_inbox *ib, struct mm_port *port, unsigned int budget);
/* Frames waiting (approximate when called off the consumer thread). */
unsigned int mm_inbox_count(const struct mm_inbox *ib);

/* Wire types other than none/loop/pair: set w->ops and w->priv; 0 or -errno. */
int mm_wire_gen_open(struct mm_wire *w);
int mm_wire_pcap_open(struct mm_wire *w);
int mm_wire_tap_open(struct mm_wire *w);

/*
 * The sink: the end of a wire where frames leave the model (none, gen,
 * pcap, tap). Such a wire's priv begins with its struct mm_sink, so that
 * the stats functions below serve every kind of them.
 */
struct mm_sink {
	uint64_t frames, bytes;
	uint64_t bad;		/* bad checksum, corrupted generator payload, runt */
	uint64_t csum_ok;	/* IP and/or L4 checksums verified good */
	uint64_t vlan;		/* frames with an 802.1Q tag */
};

/*
 * Count a frame leaving the device, verify its IP and L4 checksums and, for
 * generator frames, the payload pattern.
 */
void mm_sink_frame(struct mm_sink *s, const uint8_t *frame, uint32_t len);

static inline void
mm_sink_stats(const struct mm_wire *w, struct mana_model_port_stats *st)
{
	const struct mm_sink *s = w->priv;

	st->wire_sink_frames = s->frames;
	st->wire_sink_bytes = s->bytes;
	st->wire_sink_bad = s->bad;
	st->wire_sink_csum_ok = s->csum_ok;
	st->wire_sink_vlan = s->vlan;
}

static inline void
mm_sink_stats_reset(struct mm_wire *w)
{
	struct mm_sink *s = w->priv;

	*s = (struct mm_sink){ 0 };
}

/* Checks a wire configuration (parse and open); 0 or -EINVAL with *why. */
int mm_wire_cfg_check(const struct mana_model_wire_cfg *cfg, const char **why);

/* Generator frame layout limits (model_wire_gen.c). */
#define MM_GEN_PAYLOAD_HDR	12	/* magic, flow, sequence */
#define MM_GEN_MAGIC		0x4D414E41u	/* "MANA" */
/* Smallest frame_len that holds the headers (802.1Q tag included) and the payload header. */
uint32_t mm_gen_min_len(enum mana_model_gen_proto proto, bool ipv6, bool vlan);

#endif /* MANA_MODEL_WIRE_PRIV_H */
