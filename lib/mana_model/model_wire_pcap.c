/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The pcap wire: RX replays a capture file (Ethernet link type) at engine
 * speed, TX appends every transmitted frame to a capture file.
 *
 * Replay is lossless: a frame is handed to the port only when it would be
 * accepted (mm_port_rx_if_ready), so every frame of the file arrives once the
 * application posts buffers. With loop_file the file restarts at its end.
 * Frames longer than MANA_MODEL_MAX_FRAME, or captured shorter than they
 * were, are skipped (counted in wire_drops). The TX file is flushed on every
 * pass that wrote frames, so it can be read while traffic runs, and on close.
 * TX frames also go through the sink (counters and checksum checks).
 */

/* POSIX/GNU interfaces (clock_gettime, strnlen, posix_memalign...) under -std=c11. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <pcap/pcap.h>

#include "model_wire_priv.h"

#define PCAP_SNAPLEN	65535

struct mm_pcap {
	pcap_t *rx;
	pcap_t *dead;		/* handle behind the TX dumper */
	pcap_dumper_t *tx;
	bool tx_dirty;		/* frames written since the last flush */
	bool rx_eof;		/* file ended and is not looped */
	const uint8_t *held;	/* frame read but not yet accepted */
	uint32_t held_len;
};

static int
pcap_rx_open(struct mm_wire *w, struct mm_pcap *pc)
{
	char err[PCAP_ERRBUF_SIZE];

	errno = 0;
	pc->rx = pcap_open_offline(w->cfg.pcap.rx, err);
	if (pc->rx == NULL) {
		int e = errno != 0 ? errno : EINVAL;

		mm_log(MM_LOG_ERR, "pcap wire: cannot read %s: %s", w->cfg.pcap.rx, err);
		return -e;
	}
	if (pcap_datalink(pc->rx) != DLT_EN10MB) {
		mm_log(MM_LOG_ERR, "pcap wire: %s is not an Ethernet capture (link type %d)",
		       w->cfg.pcap.rx, pcap_datalink(pc->rx));
		pcap_close(pc->rx);
		pc->rx = NULL;
		return -EINVAL;
	}
	return 0;
}

/* Next replayable frame into pc->held; false at the end of the file. */
static bool
pcap_next_frame(struct mm_wire *w, struct mm_pcap *pc)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	bool restarted = false;
	int ret;

	for (;;) {
		ret = pcap_next_ex(pc->rx, &h, &data);
		if (ret == 1) {
			if (h->caplen != h->len || h->caplen > MANA_MODEL_MAX_FRAME) {
				w->wire_drops++;
				continue;
			}
			pc->held = data;
			pc->held_len = h->caplen;
			return true;
		}
		if (ret != PCAP_ERROR_BREAK)
			mm_log(MM_LOG_ERR, "pcap wire: reading %s: %s", w->cfg.pcap.rx,
			       pcap_geterr(pc->rx));
		/* Restart once per pass at most: an empty file must not spin. */
		if (!w->cfg.pcap.loop_file || restarted || ret != PCAP_ERROR_BREAK)
			break;
		pcap_close(pc->rx);
		pc->rx = NULL;
		if (pcap_rx_open(w, pc) != 0)
			break;
		restarted = true;
	}
	if (!w->cfg.pcap.loop_file || ret != PCAP_ERROR_BREAK || pc->rx == NULL)
		pc->rx_eof = true;
	return false;
}

static unsigned int
pcap_poll(struct mm_wire *w, unsigned int budget)
{
	struct mm_pcap *pc = w->priv;
	unsigned int n = 0;

	if (pc->tx_dirty) {
		pcap_dump_flush(pc->tx);
		pc->tx_dirty = false;
	}
	while (pc->rx != NULL && !pc->rx_eof && n < budget) {
		/* The held frame stays valid until the next pcap_next_ex. */
		if (pc->held == NULL && !pcap_next_frame(w, pc))
			break;
		if (!mm_port_rx_if_ready(w->port, pc->held, pc->held_len))
			break;
		pc->held = NULL;
		n++;
	}
	return n;
}

static void
pcap_tx(struct mm_wire *w, const uint8_t *frame, uint32_t len)
{
	struct mm_pcap *pc = w->priv;
	struct pcap_pkthdr h;

	mm_sink_frame(w, frame, len);
	if (pc->tx == NULL)
		return;
	gettimeofday(&h.ts, NULL);
	h.caplen = len;
	h.len = len;
	pcap_dump((u_char *)pc->tx, &h, frame);
	pc->tx_dirty = true;
}

static void
pcap_close_wire(struct mm_wire *w)
{
	struct mm_pcap *pc = w->priv;

	if (pc == NULL)
		return;
	if (pc->rx != NULL)
		pcap_close(pc->rx);
	if (pc->tx != NULL) {
		pcap_dump_flush(pc->tx);
		pcap_dump_close(pc->tx);
	}
	if (pc->dead != NULL)
		pcap_close(pc->dead);
	free(pc);
	w->priv = NULL;
}

static const struct mm_wire_ops pcap_ops = {
	.name = "pcap", .tx = pcap_tx, .poll = pcap_poll, .close = pcap_close_wire,
};

int
mm_wire_pcap_open(struct mm_wire *w)
{
	struct mm_pcap *pc = calloc(1, sizeof(*pc));
	int ret;

	if (pc == NULL)
		return -ENOMEM;
	w->priv = pc;
	w->ops = &pcap_ops;
	if (w->cfg.pcap.rx[0] != '\0') {
		ret = pcap_rx_open(w, pc);
		if (ret != 0)
			goto fail;
	}
	if (w->cfg.pcap.tx[0] != '\0') {
		pc->dead = pcap_open_dead(DLT_EN10MB, PCAP_SNAPLEN);
		if (pc->dead == NULL) {
			ret = -ENOMEM;
			goto fail;
		}
		errno = 0;
		pc->tx = pcap_dump_open(pc->dead, w->cfg.pcap.tx);
		if (pc->tx == NULL) {
			ret = errno != 0 ? -errno : -EINVAL;
			mm_log(MM_LOG_ERR, "pcap wire: cannot write %s: %s", w->cfg.pcap.tx,
			       pcap_geterr(pc->dead));
			goto fail;
		}
		/* The file header is on disk from the start. */
		pcap_dump_flush(pc->tx);
	}
	return 0;
fail:
	pcap_close_wire(w);
	w->ops = NULL;
	return ret;
}
