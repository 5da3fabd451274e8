/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The pcap wire: RX replays a capture file (Ethernet link type) at engine
 * speed, TX writes every transmitted frame to a capture file, which it
 * creates or truncates (as DPDK's net_pcap does with tx_pcap).
 *
 * The RX file must be a regular file (a FIFO would block the probe in
 * open(), a device never ends) and not the TX file (same device and inode:
 * with loop=1 the replay would read its own output and grow without bound).
 * A FIFO as TX file needs a reader when the wire opens (never blocks).
 *
 * Replay is lossless: a frame is handed to the port only when it would be
 * accepted (mm_port_rx_if_ready), so every frame of the file arrives once the
 * application posts buffers. With loop_file the file restarts at its end.
 * Frames longer than MANA_MODEL_MAX_FRAME, or captured shorter than they
 * were, are skipped (counted in wire_drops). The TX file is flushed on every
 * pass that wrote frames, so it can be read while traffic runs, and on close.
 * TX frames also go through the sink (counters and checksum checks).
 * A write error (disk full, /dev/full) is logged once; the frames not known
 * to be written since the last good flush, and every frame after, are counted
 * in wire_drops, and nothing more is written (the file ends at a record that
 * may be partial).
 */

/* POSIX/GNU interfaces (clock_gettime, strnlen, posix_memalign...) under -std=c11. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "model_wire_priv.h"

#define PCAP_SNAPLEN	65535

struct mm_pcap {
	struct mm_sink sink;	/* first: frames this port sends */
	pcap_t *rx;
	pcap_t *dead;		/* handle behind the TX dumper */
	pcap_dumper_t *tx;
	uint32_t tx_unflushed;	/* frames written since the last flush */
	bool tx_failed;		/* a write failed: count, write no more */
	bool rx_eof;		/* file ended and is not looped */
	const uint8_t *held;	/* frame read but not yet accepted */
	uint32_t held_len;
};
_Static_assert(offsetof(struct mm_pcap, sink) == 0, "mm_sink_stats reads priv as its sink");

/* What a file that is not a regular one is, for the error line. */
static const char *
file_kind(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/*
 * Open the RX capture without blocking (O_NONBLOCK: a FIFO would wait for a
 * writer) and refuse anything but a regular file; *st gets its identity.
 */
static int
pcap_rx_open(struct mm_wire *w, struct mm_pcap *pc, struct stat *st)
{
	char err[PCAP_ERRBUF_SIZE];
	FILE *f;
	int fd, e;

	fd = open(w->cfg.pcap.rx, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		mm_log(MM_LOG_ERR, "pcap wire: cannot read %s: %s", w->cfg.pcap.rx, strerror(e));
		return -e;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		mm_log(MM_LOG_ERR, "pcap wire: rx file %s is %s; rx= takes a capture file "
		       "(regular file)", w->cfg.pcap.rx, file_kind(st->st_mode));
		close(fd);
		return -EINVAL;
	}
	f = fdopen(fd, "rb");
	if (f == NULL) {
		e = errno;
		close(fd);
		return -e;
	}
	errno = 0;
	pc->rx = pcap_fopen_offline(f, err);
	if (pc->rx == NULL) {
		e = errno != 0 ? errno : EINVAL;
		mm_log(MM_LOG_ERR, "pcap wire: cannot read %s: %s", w->cfg.pcap.rx, err);
		fclose(f);
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
	struct stat st;
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
		if (pcap_rx_open(w, pc, &st) != 0)
			break;
		restarted = true;
	}
	if (!w->cfg.pcap.loop_file || ret != PCAP_ERROR_BREAK || pc->rx == NULL)
		pc->rx_eof = true;
	return false;
}

/* After the first write error: log once, count what may be lost, write no more. */
static void
pcap_tx_fail(struct mm_wire *w, struct mm_pcap *pc, int err)
{
	mm_log(MM_LOG_ERR, "pcap wire: writing %s failed: %s; no more frames are written, "
	       "each is counted in wire_drops (dev_wire_drops)", w->cfg.pcap.tx, strerror(err));
	w->wire_drops += pc->tx_unflushed;
	pc->tx_unflushed = 0;
	pc->tx_failed = true;
}

static void
pcap_tx_flush(struct mm_wire *w, struct mm_pcap *pc)
{
	errno = 0;
	if (pcap_dump_flush(pc->tx) != 0 || ferror(pcap_dump_file(pc->tx))) {
		pcap_tx_fail(w, pc, errno != 0 ? errno : EIO);
		return;
	}
	pc->tx_unflushed = 0;
}

static void
pcap_tx(struct mm_wire *w, const uint8_t *frame, uint32_t len)
{
	struct mm_pcap *pc = w->priv;
	struct pcap_pkthdr h;

	mm_sink_frame(&pc->sink, frame, len);
	if (pc->tx == NULL)
		return;
	if (pc->tx_failed) {
		w->wire_drops++;
		return;
	}
	gettimeofday(&h.ts, NULL);
	h.caplen = len;
	h.len = len;
	errno = 0;
	pcap_dump((u_char *)pc->tx, &h, frame);
	pc->tx_unflushed++;
	/* A full stdio buffer was written out here, and failed. */
	if (ferror(pcap_dump_file(pc->tx)))
		pcap_tx_fail(w, pc, errno != 0 ? errno : EIO);
}

static unsigned int
pcap_poll(struct mm_wire *w, unsigned int budget)
{
	struct mm_pcap *pc = w->priv;
	unsigned int n = 0;

	if (pc->tx_unflushed != 0)
		pcap_tx_flush(w, pc);
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
pcap_close_wire(struct mm_wire *w)
{
	struct mm_pcap *pc = w->priv;

	if (pc == NULL)
		return;
	if (pc->rx != NULL)
		pcap_close(pc->rx);
	if (pc->tx != NULL) {
		if (pc->tx_unflushed != 0)
			pcap_tx_flush(w, pc);
		pcap_dump_close(pc->tx);
	}
	if (pc->dead != NULL)
		pcap_close(pc->dead);
	free(pc);
	w->priv = NULL;
}

static const struct mm_wire_ops pcap_ops = {
	.name = "pcap", .tx = pcap_tx, .poll = pcap_poll, .close = pcap_close_wire,
	.poll_touches_tx = true,	/* pcap_poll flushes the TX file */
	.stats = mm_sink_stats, .stats_reset = mm_sink_stats_reset,
};

/*
 * Open (create or truncate) the TX capture; never the RX file (rx_st, when
 * rx= is given), and without blocking on a FIFO that has no reader.
 */
static int
pcap_tx_open(struct mm_wire *w, struct mm_pcap *pc, const struct stat *rx_st)
{
	const char *path = w->cfg.pcap.tx;
	struct stat st;
	FILE *f;
	int fd, e;

	if (rx_st != NULL && stat(path, &st) == 0 && st.st_dev == rx_st->st_dev &&
	    st.st_ino == rx_st->st_ino) {
		mm_log(MM_LOG_ERR, "pcap wire: rx file %s and tx file %s are the same file; "
		       "give tx= another file", w->cfg.pcap.rx, path);
		return -EINVAL;
	}
	pc->dead = pcap_open_dead(DLT_EN10MB, PCAP_SNAPLEN);
	if (pc->dead == NULL)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
		mm_log(MM_LOG_ERR, "pcap wire: cannot write %s: %s", path,
		       e == ENXIO ? "a FIFO without a reader" : strerror(e));
		return -e;
	}
	/* Blocking writes from here: a FIFO reader that falls behind slows TX. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
	    (f = fdopen(fd, "wb")) == NULL) {
		e = errno;
		close(fd);
		return -e;
	}
	pc->tx = pcap_dump_fopen(pc->dead, f);
	if (pc->tx == NULL) {
		mm_log(MM_LOG_ERR, "pcap wire: cannot write %s: %s", path, pcap_geterr(pc->dead));
		fclose(f);
		return -EIO;
	}
	/* The file header is on disk from the start. */
	if (pcap_dump_flush(pc->tx) != 0) {
		e = errno != 0 ? errno : EIO;
		mm_log(MM_LOG_ERR, "pcap wire: cannot write %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

int
mm_wire_pcap_open(struct mm_wire *w)
{
	struct mm_pcap *pc = calloc(1, sizeof(*pc));
	struct stat rx_st;
	int ret = 0;

	if (pc == NULL)
		return -ENOMEM;
	w->priv = pc;
	w->ops = &pcap_ops;
	if (w->cfg.pcap.rx[0] != '\0')
		ret = pcap_rx_open(w, pc, &rx_st);
	if (ret == 0 && w->cfg.pcap.tx[0] != '\0')
		ret = pcap_tx_open(w, pc, w->cfg.pcap.rx[0] != '\0' ? &rx_st : NULL);
	if (ret != 0) {
		pcap_close_wire(w);
		w->ops = NULL;
	}
	return ret;
}
