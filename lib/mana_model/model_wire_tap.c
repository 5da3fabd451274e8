/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The tap wire: the vPort's cable ends in a Linux TAP interface (created if
 * absent, set up; removed on close unless it was made persistent by someone
 * else). The kernel's transmissions arrive at the port, the port's
 * transmissions are written to the kernel. Like a real cable, frames arriving
 * while the port cannot take them are dropped (the core counts them), and a
 * write the kernel refuses is counted in wire_drops. Needs CAP_NET_ADMIN.
 */

/* POSIX/GNU interfaces (clock_gettime, strnlen, posix_memalign...) under -std=c11. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if.h>
#include <linux/if_tun.h>

#include "model_wire_priv.h"

/* Reads are this large so an oversized frame is seen whole and skipped. */
#define TAP_BUF_LEN	65536

struct mm_tap {
	struct mm_sink sink;	/* first: frames this port sends */
	int fd;
	uint8_t buf[TAP_BUF_LEN];
};
_Static_assert(offsetof(struct mm_tap, sink) == 0, "mm_sink_stats reads priv as its sink");

static unsigned int
tap_poll(struct mm_wire *w, unsigned int budget)
{
	struct mm_tap *t = w->priv;
	unsigned int n = 0;
	ssize_t len;

	while (n < budget) {
		len = read(t->fd, t->buf, sizeof(t->buf));
		if (len < 0) {
			if (errno != EAGAIN && errno != EINTR)
				w->wire_drops++;
			break;
		}
		if (len == 0)
			break;
		if (len > MANA_MODEL_MAX_FRAME) {
			w->wire_drops++;
			continue;
		}
		mm_port_rx(w->port, t->buf, (uint32_t)len);
		n++;
	}
	return n;
}

static void
tap_tx(struct mm_wire *w, const uint8_t *frame, uint32_t len)
{
	struct mm_tap *t = w->priv;

	mm_sink_frame(&t->sink, frame, len);
	if (write(t->fd, frame, len) != (ssize_t)len)
		w->wire_drops++;
}

static void
tap_close(struct mm_wire *w)
{
	struct mm_tap *t = w->priv;

	if (t == NULL)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t);
	w->priv = NULL;
}

static const struct mm_wire_ops tap_ops = {
	.name = "tap", .tx = tap_tx, .poll = tap_poll, .close = tap_close,
	.stats = mm_sink_stats, .stats_reset = mm_sink_stats_reset,
};

/* Bring the interface up, as `ip link set <name> up` does. */
static int
tap_set_up(const char *ifname)
{
	struct ifreq ifr;
	int s, ret = 0;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strnlen(ifname, IFNAMSIZ - 1));
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		ret = -errno;
	} else if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
			ret = -errno;
	}
	close(s);
	return ret;
}

/* An interface of that name exists (of any kind), as `ip link show <name>` finds. */
static bool
tap_if_exists(const char *ifname)
{
	struct ifreq ifr;
	bool found;
	int s;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return false;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strnlen(ifname, IFNAMSIZ - 1));
	found = ioctl(s, SIOCGIFINDEX, &ifr) == 0;
	close(s);
	return found;
}

int
mm_wire_tap_open(struct mm_wire *w)
{
	struct mm_tap *t;
	struct ifreq ifr;
	int ret;

	t = malloc(sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		ret = -errno;
		mm_log(MM_LOG_ERR, "tap wire: cannot open /dev/net/tun: %s", strerror(errno));
		goto fail;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	memcpy(ifr.ifr_name, w->cfg.tap.ifname, strnlen(w->cfg.tap.ifname, IFNAMSIZ - 1));
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0) {
		ret = -errno;
		/* the kernel's EINVAL for a name another kind of interface has (tun_set_iff) */
		if (ret == -EINVAL && tap_if_exists(w->cfg.tap.ifname))
			mm_log(MM_LOG_ERR, "tap wire: cannot attach %s: %s exists and is not a TAP "
			       "device (name a TAP device, or a free name to create one)",
			       w->cfg.tap.ifname, w->cfg.tap.ifname);
		else
			mm_log(MM_LOG_ERR, "tap wire: cannot attach %s: %s", w->cfg.tap.ifname,
			       strerror(-ret));
		goto fail;
	}
	ret = tap_set_up(ifr.ifr_name);
	if (ret != 0) {
		mm_log(MM_LOG_ERR, "tap wire: cannot set %s up: %s", ifr.ifr_name, strerror(-ret));
		goto fail;
	}
	w->priv = t;
	w->ops = &tap_ops;
	return 0;
fail:
	if (t->fd >= 0)
		close(t->fd);
	free(t);
	return ret;
}
