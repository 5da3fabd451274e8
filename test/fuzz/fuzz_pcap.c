/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The pcap RX wire (lib/mana_model/model_wire_pcap.c) fed mutated capture
 * files. Input: byte 0 = options (bit 0: loop=1; bits 1..7: which offers
 * the port refuses, as a port without posted buffers does), byte 1 = poll
 * budget, the rest = the capture file. The wire is opened on a port of the
 * harness, which takes every offered frame as an exact-size copy through
 * the device's own frame parser and checksum check (model_net.c), so ASan
 * sees any read past a frame. Properties: a frame offered is 0..9216 bytes
 * and readable; a poll delivers at most its budget; a refused frame is
 * offered again (same bytes) before any other; without loop the wire ends
 * (polls deliver nothing) and frames + drops never exceed the records the
 * file can hold; the wire closes cleanly.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model_wire_priv.h"
#include "model_net.h"
#include "fuzz.h"

#define POLLS	64

struct fuzz_port {
	uint8_t refuse;		/* bit i: refuse the i-th offer (mod 7) */
	unsigned int offers;
	uint8_t *last;		/* copy of the last refused frame */
	uint32_t last_len;
	bool have_refused;
};

static struct fuzz_port port;
static int memfd = -1;
static char path[64];

void
mm_log(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

void
mm_sink_frame(struct mm_sink *s, const uint8_t *frame, uint32_t len)
{
	(void)s;
	(void)frame;
	(void)len;
}

bool
mm_port_rx_if_ready(struct mm_port *p, const uint8_t *frame, uint32_t len)
{
	struct mm_frame_info fi;
	struct mm_csum_result cr;
	uint8_t *copy;
	bool take;

	FUZZ_CHECK(p == (struct mm_port *)&port, "another port");
	FUZZ_CHECK(len <= MANA_MODEL_MAX_FRAME, "frame of %u bytes", len);
	if (port.have_refused)
		FUZZ_CHECK(len == port.last_len && memcmp(frame, port.last, len) == 0,
			   "a refused frame was not offered again first");
	copy = malloc(len != 0 ? len : 1);
	FUZZ_CHECK(copy != NULL, "malloc");
	memcpy(copy, frame, len);
	if (mm_frame_parse(copy, len, &fi)) {
		FUZZ_CHECK(fi.l3_off <= len && fi.l4_off <= len, "offsets %u/%u past %u",
			   fi.l3_off, fi.l4_off, len);
		mm_csum_verify(copy, len, &fi, &cr);
	}
	take = (port.refuse & (1u << (port.offers++ % 7))) == 0;
	free(port.last);
	port.last = NULL;
	port.have_refused = !take;
	if (!take) {
		port.last = copy;
		port.last_len = len;
	} else {
		free(copy);
	}
	return take;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = memfd_create("fuzz_pcap", 0);
	if (memfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mm_wire w;
	unsigned int budget, i, n, total = 0, after_end = 0;

	if (size < 2)
		return 0;
	if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data + 2, size - 2, 0) != (ssize_t)(size - 2))
		abort();
	memset(&port, 0, sizeof(port));
	port.refuse = data[0] >> 1;
	budget = data[1] % 64 + 1;
	memset(&w, 0, sizeof(w));
	w.port = (struct mm_port *)&port;
	w.cfg.type = MANA_MODEL_WIRE_PCAP;
	w.cfg.pcap.loop_file = data[0] & 1;
	snprintf(w.cfg.pcap.rx, sizeof(w.cfg.pcap.rx), "%s", path);
	if (mm_wire_pcap_open(&w) != 0) {
		FUZZ_CHECK(w.priv == NULL, "failed open left state");
		return 0;
	}
	for (i = 0; i < POLLS; i++) {
		n = w.ops->poll(&w, budget);
		FUZZ_CHECK(n <= budget, "poll delivered %u, budget %u", n, budget);
		total += n;
		if (n == 0 && !port.have_refused)
			after_end++;
		else if (!w.cfg.pcap.loop_file)
			FUZZ_CHECK(after_end == 0, "frames after the end of a file not looped");
	}
	/* 16-byte record header per frame: the file bounds what it can deliver. */
	if (!w.cfg.pcap.loop_file)
		FUZZ_CHECK(total + w.wire_drops <= (size - 2) / 16, "%u frames + %llu drops "
			   "from %zu bytes", total, (unsigned long long)w.wire_drops, size - 2);
	w.ops->close(&w);
	FUZZ_CHECK(w.priv == NULL, "close left state");
	free(port.last);
	port.last = NULL;
	return 0;
}
