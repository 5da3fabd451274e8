/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * soak: the driver on the software device, forwarding for --seconds while the
 * control thread does, at random: stop/start, queue reconfiguration (queue
 * counts, descriptors), RSS key and RETA changes, MTU changes, link flaps,
 * injected TX error completions, injected RX drops and truncated frames,
 * statistics resets (stopped and while forwarding) and port close + hot-plug
 * of the vdev again.
 *
 * Traffic: one vPort with a lossless generator wire (wire=gen:...:lossless=1);
 * the forwarding lcore sends back what it receives, into the wire's sink. The
 * generator offers a frame only when its RQ has a buffer posted and holds it
 * while the link is down, so every frame is accounted for by the device.
 *
 * Accounting (checked at every quiescent point, i.e. before each stop: link
 * down, the lcore has drained every queue and is paused; all counters are
 * deltas since the vdev was attached):
 *   device: gen_frames + injected_rx = rx_frames + rx_truncated + rx_drop_injected
 *             + rx_drop_no_wqe + rx_drop_no_rxq
 *           app_rx = rx_frames            (what rx_burst returned)
 *           app_tx = tx_frames + sum(tx_err)   (what tx_burst accepted)
 *           wire_sink_frames = tx_frames, wire_sink_bad = 0
 *   driver: ipackets = app_rx - B_rx, opackets = tx_frames - B_tx,
 *           oerrors = sum(tx_err) - B_oerr, ierrors = rx_truncated - B_ierr,
 *   where each baseline B is 0 after attach and moves only with a statistics
 *   reset. A reset while stopped pins B exactly (every counter reads 0 after
 *   it). A reset while forwarding bounds B by the reference read just before
 *   and just after the reset: B_rx in [rx_before, rx_after + burst] (the
 *   driver counts a burst before the lcore does), B_tx in [tx_before - burst,
 *   tx_after + TX descriptors] (the driver counts a burst after its doorbell,
 *   hardware.md §18 #20, so the device may have sent it first; or posted, not
 *   yet on the wire), B_oerr and
 *   B_ierr in [before - descriptors, after] (completions not yet reaped).
 *   Queue re-setup must not move B (statistics are cumulative; issue 13 #14).
 * At each close: every mbuf is back in the pool (rte_mempool_avail_count ==
 * size); at the end likewise.
 *
 * Any failure prints one "soak: FAIL ..." line and exits 1.
 *
 * Usage: soak [--seconds N] [--seed S] [--verbose]
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "comp.h"
#include "rte_pmd_mana.h"

#define SOAK_VDEV	"net_mana_soak"
#define SOAK_ARGS	"wire=gen:flows=16:lossless=1"
#define SOAK_MBUFS	16384
#define SOAK_BURST	32
#define SOAK_MAX_Q	4
#define SOAK_WAIT_MS	30000
#define SOAK_TRUNC_LEN	3000	/* above the 2048-byte buffers: completes truncated */

enum soak_op {
	OP_STOP_START, OP_RECONFIG, OP_RSS_KEY, OP_RETA, OP_MTU, OP_LINK_FLAP, OP_TX_ERROR,
	OP_DROP_NEXT, OP_INJECT_RX, OP_STATS_RESET, OP_REATTACH, OP_N
};

static const char *const op_names[OP_N] = {
	"stop_start", "reconfig", "rss_key", "reta", "mtu", "link_flap", "tx_error",
	"drop_next", "inject_rx", "stats_reset", "close_attach",
};

/* Relative frequency of each operation. */
static const unsigned int op_weight[OP_N] = { 8, 6, 4, 4, 4, 6, 6, 4, 4, 6, 2 };

static struct {
	unsigned int seconds;
	uint64_t seed;
	bool verbose;
} opt = { .seconds = 60, .seed = 1 };

/* Shared with the forwarding lcore; the lcore writes rx/tx, the control thread the rest. */
static struct {
	uint16_t port, nb_rxq, nb_txq;
	uint32_t run;		/* 0: pause requested */
	uint32_t paused;	/* lcore acknowledges a pause */
	uint32_t quit;
	uint64_t rx, tx, unsent;
} fwd;

/* What one attach of the vdev has seen; device counters are since the attach. */
struct soak_life {
	uint64_t app_rx0, app_tx0;
	struct mana_model_port_stats dev0;
	uint64_t inject_ok;	/* inject_rx calls the device accepted */
};

/* A driver counter and the interval its baseline is known to lie in. */
struct soak_ctr {
	const char *name;
	uint64_t lo, hi;
};

enum { C_IPACKETS, C_OPACKETS, C_OERRORS, C_IERRORS, C_N };

static struct soak_ctr ctr[C_N] = {
	{ "ipackets", 0, 0 }, { "opackets", 0, 0 }, { "oerrors", 0, 0 }, { "ierrors", 0, 0 },
};

static struct {
	uint64_t done[OP_N], refused[OP_N];
	uint64_t checks, fwd_resets;
	uint64_t tx_err_asked, drop_asked, trunc_injected;
	/* sums over every attach, taken at each close and at the end */
	uint64_t rx, tx, unsent, dev_rx, dev_tx, tx_err, drop_seen, trunc_seen, gen;
	uint64_t attaches;
} tot;

static struct rte_mempool *pool;
static struct soak_life life;
static bool reset_while_fwd;	/* since the baselines were last pinned */
static uint64_t rng;
static struct {
	uint16_t nb_rxq, nb_txq, nb_desc;
	uint8_t key[RTE_PMD_MANA_RSS_KEY_LEN];
	bool key_set;
	uint16_t reta[RTE_PMD_MANA_RETA_SIZE];
	bool reta_set;		/* since the last configure */
} cfg = { .nb_rxq = 2, .nb_txq = 2, .nb_desc = 256 };

static __rte_noreturn void
soak_fail(const char *fmt, ...)
{
	va_list ap;

	printf("soak: FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (seed %" PRIu64 ")\n", opt.seed);
	fflush(stdout);
	exit(1);
}

static uint64_t
rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t
rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

/* ---- forwarding lcore ----------------------------------------------------- */

static int
fwd_main(void *arg)
{
	struct rte_mbuf *b[SOAK_BURST];
	uint16_t q, n, sent;

	RTE_SET_USED(arg);
	while (!__atomic_load_n(&fwd.quit, __ATOMIC_ACQUIRE)) {
		if (!__atomic_load_n(&fwd.run, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&fwd.paused, 1, __ATOMIC_RELEASE);
			while (!__atomic_load_n(&fwd.run, __ATOMIC_ACQUIRE) &&
			       !__atomic_load_n(&fwd.quit, __ATOMIC_ACQUIRE))
				rte_pause();
			__atomic_store_n(&fwd.paused, 0, __ATOMIC_RELEASE);
			continue;
		}
		for (q = 0; q < fwd.nb_rxq; q++) {
			n = rte_eth_rx_burst(fwd.port, q, b, SOAK_BURST);
			if (n == 0)
				continue;
			__atomic_store_n(&fwd.rx, fwd.rx + n, __ATOMIC_RELEASE);
			sent = rte_eth_tx_burst(fwd.port, q % fwd.nb_txq, b, n);
			__atomic_store_n(&fwd.tx, fwd.tx + sent, __ATOMIC_RELEASE);
			if (sent < n) {
				rte_pktmbuf_free_bulk(b + sent, n - sent);
				__atomic_store_n(&fwd.unsent, fwd.unsent + n - sent,
						 __ATOMIC_RELEASE);
			}
		}
	}
	return 0;
}

static void
fwd_pause(void)
{
	uint64_t end = comp_now_ms() + SOAK_WAIT_MS;

	__atomic_store_n(&fwd.run, 0, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&fwd.paused, __ATOMIC_ACQUIRE)) {
		if (comp_now_ms() > end)
			soak_fail("forwarding lcore did not pause within %u ms", SOAK_WAIT_MS);
		usleep(50);
	}
}

/* Returns once the lcore has left its pause, so that a next pause is its own. */
static void
fwd_resume(void)
{
	uint64_t end = comp_now_ms() + SOAK_WAIT_MS;

	__atomic_store_n(&fwd.run, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&fwd.paused, __ATOMIC_ACQUIRE)) {
		if (comp_now_ms() > end)
			soak_fail("forwarding lcore did not resume within %u ms", SOAK_WAIT_MS);
		usleep(50);
	}
}

static uint64_t
app_rx(void)
{
	return __atomic_load_n(&fwd.rx, __ATOMIC_ACQUIRE) - life.app_rx0;
}

static uint64_t
app_tx(void)
{
	return __atomic_load_n(&fwd.tx, __ATOMIC_ACQUIRE) - life.app_tx0;
}

/* ---- device counters ------------------------------------------------------- */

/* Device counters of the vPort since the attach. */
static void
dev_stats(struct mana_model_port_stats *d)
{
	const uint64_t *base = (const uint64_t *)&life.dev0;
	uint64_t *cur = (uint64_t *)d;
	size_t i;

	if (!comp_model_stats(SOAK_VDEV, 0, d))
		soak_fail("software device %s not found", SOAK_VDEV);
	for (i = 0; i < sizeof(*d) / sizeof(uint64_t); i++)
		cur[i] -= base[i];
}

static uint64_t
tx_err_sum(const struct mana_model_port_stats *d)
{
	uint64_t s = 0;
	unsigned int i;

	for (i = 0; i < RTE_DIM(d->tx_err); i++)
		s += d->tx_err[i];
	return s;
}

/* Reference value of each driver counter (see the top of the file). */
static void
refs(uint64_t r[C_N], const struct mana_model_port_stats *d)
{
	r[C_IPACKETS] = app_rx();
	r[C_OPACKETS] = d->tx_frames;
	r[C_OERRORS] = tx_err_sum(d);
	r[C_IERRORS] = d->rx_truncated;
}

static void
drv_values(uint64_t v[C_N])
{
	struct rte_eth_stats s;
	int ret = rte_eth_stats_get(fwd.port, &s);

	if (ret != 0)
		soak_fail("rte_eth_stats_get: %s", rte_strerror(-ret));
	v[C_IPACKETS] = s.ipackets;
	v[C_OPACKETS] = s.opackets;
	v[C_OERRORS] = s.oerrors;
	v[C_IERRORS] = s.ierrors;
}

static void
pin(const uint64_t r[C_N], const uint64_t v[C_N])
{
	unsigned int i;

	for (i = 0; i < C_N; i++)
		ctr[i].lo = ctr[i].hi = r[i] - v[i];
	reset_while_fwd = false;
}

/* Device-side identities; NULL when they hold, else what is off. */
static const char *
dev_balance(const struct mana_model_port_stats *d, char *why, size_t sz)
{
	uint64_t offered = d->wire_gen_frames + life.inject_ok;
	uint64_t landed = d->rx_frames + d->rx_truncated + d->rx_drop_injected +
			  d->rx_drop_no_wqe + d->rx_drop_no_rxq;

	if (offered != landed)
		snprintf(why, sz, "device RX: gen %" PRIu64 " + injected %" PRIu64 " != rx %" PRIu64
			 " + truncated %" PRIu64 " + drop_injected %" PRIu64 " + no_wqe %" PRIu64
			 " + no_rxq %" PRIu64, d->wire_gen_frames, life.inject_ok, d->rx_frames,
			 d->rx_truncated, d->rx_drop_injected, d->rx_drop_no_wqe,
			 d->rx_drop_no_rxq);
	else if (app_rx() != d->rx_frames)
		snprintf(why, sz, "application received %" PRIu64 ", device delivered %" PRIu64,
			 app_rx(), d->rx_frames);
	else if (app_tx() != d->tx_frames + tx_err_sum(d))
		snprintf(why, sz, "application sent %" PRIu64 ", device transmitted %" PRIu64
			 " + error completions %" PRIu64, app_tx(), d->tx_frames, tx_err_sum(d));
	else if (d->wire_sink_frames != d->tx_frames || d->wire_sink_bad != 0)
		snprintf(why, sz, "sink got %" PRIu64 " frames (%" PRIu64 " bad), device sent %"
			 PRIu64, d->wire_sink_frames, d->wire_sink_bad, d->tx_frames);
	else
		return NULL;
	return why;
}

/* ---- port control ------------------------------------------------------------ */

static void
link_set(bool up)
{
	int ret = rte_pmd_mana_model_link_set(fwd.port, up);

	if (ret != 0)
		soak_fail("rte_pmd_mana_model_link_set(%u, %d): %s", fwd.port, up,
			  rte_strerror(-ret));
}

static void
port_configure(void)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t q;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_info_get(fwd.port, &info);
	if (ret != 0)
		soak_fail("rte_eth_dev_info_get: %s", rte_strerror(-ret));
	conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf.rx_adv_conf.rss_conf.rss_hf = info.flow_type_rss_offloads &
		(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
	ret = rte_eth_dev_configure(fwd.port, cfg.nb_rxq, cfg.nb_txq, &conf);
	if (ret != 0)
		soak_fail("configure %u RX / %u TX queues: %s", cfg.nb_rxq, cfg.nb_txq,
			  rte_strerror(-ret));
	for (q = 0; q < cfg.nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(fwd.port, q, cfg.nb_desc, SOCKET_ID_ANY, NULL, pool);
		if (ret != 0)
			soak_fail("RX queue %u setup (%u descriptors): %s", q, cfg.nb_desc,
				  rte_strerror(-ret));
	}
	for (q = 0; q < cfg.nb_txq; q++) {
		ret = rte_eth_tx_queue_setup(fwd.port, q, cfg.nb_desc, SOCKET_ID_ANY, NULL);
		if (ret != 0)
			soak_fail("TX queue %u setup (%u descriptors): %s", q, cfg.nb_desc,
				  rte_strerror(-ret));
	}
	cfg.key_set = false;
	cfg.reta_set = false;
}

/* The key and table the application set are what the device uses. */
static void
rss_verify_started(void)
{
	struct rte_pmd_mana_rss_info ri;
	unsigned int i;
	int ret = rte_pmd_mana_rss_info_get(fwd.port, &ri);

	if (ret != 0)
		soak_fail("rte_pmd_mana_rss_info_get: %s", rte_strerror(-ret));
	if (!ri.active)
		soak_fail("started port has no RSS QP");
	if (cfg.key_set && memcmp(ri.key, cfg.key, sizeof(cfg.key)) != 0)
		soak_fail("device RSS key is not the one set");
	for (i = 0; cfg.reta_set && i < RTE_PMD_MANA_RETA_SIZE; i++)
		if (ri.reta[i] != cfg.reta[i])
			soak_fail("device RETA entry %u is queue %u, set %u", i, ri.reta[i],
				  cfg.reta[i]);
}

static void
port_start(void)
{
	int ret = rte_eth_dev_start(fwd.port);

	if (ret != 0)
		soak_fail("start with %u RX / %u TX queues of %u descriptors: %s", cfg.nb_rxq,
			  cfg.nb_txq, cfg.nb_desc, rte_strerror(-ret));
	rss_verify_started();
	fwd.nb_rxq = cfg.nb_rxq;
	fwd.nb_txq = cfg.nb_txq;
	link_set(true);
	fwd_resume();
}

/*
 * A quiescent point: link down, the lcore drains until the device counters
 * balance and pauses; the control thread polls what completions are left (no
 * packet may come). The lcore stays paused.
 */
static void
quiesce(void)
{
	struct mana_model_port_stats d;
	struct rte_mbuf *b[SOAK_BURST];
	const char *why;
	char buf[320];
	unsigned int round;
	uint64_t end;
	uint16_t q, n;

	link_set(false);
	end = comp_now_ms() + SOAK_WAIT_MS;
	for (;;) {
		dev_stats(&d);
		why = dev_balance(&d, buf, sizeof(buf));
		if (why == NULL)
			break;
		if (comp_now_ms() > end)
			soak_fail("not quiescent after %u ms: %s", SOAK_WAIT_MS, why);
		usleep(200);
	}
	fwd_pause();
	for (round = 0; round < 5; round++) {
		for (q = 0; q < fwd.nb_rxq; q++) {
			n = rte_eth_rx_burst(fwd.port, q, b, SOAK_BURST);
			if (n != 0)
				soak_fail("RX queue %u: %u packets after the device delivered all",
					  q, n);
		}
		usleep(1000);
	}
}

/*
 * A quiescent point, then stop, which reaps the TX completions. Then the
 * driver's counters are checked. The lcore stays paused.
 */
static void
port_stop(void)
{
	struct mana_model_port_stats d;
	uint64_t r[C_N], v[C_N];
	const char *why;
	char buf[320];
	unsigned int i;
	int ret;

	quiesce();
	ret = rte_eth_dev_stop(fwd.port);
	if (ret != 0)
		soak_fail("rte_eth_dev_stop: %s", rte_strerror(-ret));
	dev_stats(&d);
	why = dev_balance(&d, buf, sizeof(buf));
	if (why != NULL)
		soak_fail("quiescent point: %s", why);
	refs(r, &d);
	drv_values(v);
	tot.checks++;
	for (i = 0; i < C_N; i++) {
		if (v[i] + ctr[i].lo <= r[i] && v[i] + ctr[i].hi >= r[i])
			continue;
		soak_fail("driver %s = %" PRIu64 ", reference %" PRIu64 " (baseline %" PRIu64
			  "..%" PRIu64 "%s; driver ipackets %" PRIu64 " opackets %" PRIu64
			  " oerrors %" PRIu64 " ierrors %" PRIu64 ", references %" PRIu64
			  " %" PRIu64 " %" PRIu64 " %" PRIu64 ")", ctr[i].name, v[i], r[i],
			  ctr[i].lo, ctr[i].hi, reset_while_fwd ? ", a reset while forwarding" : "",
			  v[0], v[1], v[2], v[3], r[0], r[1], r[2], r[3]);
	}
	pin(r, v);
}

/* After a change on the started port at a quiescent point: check it, forward again. */
static void
live_resume(void)
{
	rss_verify_started();
	link_set(true);
	fwd_resume();
}

static void
attach(void)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	int ret, p;

	ret = rte_eal_hotplug_add("vdev", SOAK_VDEV, SOAK_ARGS);
	if (ret != 0)
		soak_fail("hot-plug of %s,%s: %s", SOAK_VDEV, SOAK_ARGS, rte_strerror(-ret));
	p = comp_port_of(SOAK_VDEV, 0);
	if (p < 0) {
		snprintf(name, sizeof(name), "%s_port1", SOAK_VDEV);
		soak_fail("no ethdev %s after hot-plug", name);
	}
	fwd.port = (uint16_t)p;
	memset(&life, 0, sizeof(life));
	life.app_rx0 = __atomic_load_n(&fwd.rx, __ATOMIC_ACQUIRE);
	life.app_tx0 = __atomic_load_n(&fwd.tx, __ATOMIC_ACQUIRE);
	if (!comp_model_stats(SOAK_VDEV, 0, &life.dev0))
		soak_fail("software device %s not found after hot-plug", SOAK_VDEV);
	for (p = 0; p < C_N; p++)
		ctr[p].lo = ctr[p].hi = 0;
	reset_while_fwd = false;
	tot.attaches++;
	port_configure();
	port_start();
}

/* Sums of this attach into the totals, then close and remove. */
static void
detach(void)
{
	struct mana_model_port_stats d;
	unsigned int avail;
	int ret;

	port_stop();
	dev_stats(&d);
	tot.rx += app_rx();
	tot.tx += app_tx();
	tot.dev_rx += d.rx_frames;
	tot.dev_tx += d.tx_frames;
	tot.tx_err += tx_err_sum(&d);
	tot.drop_seen += d.rx_drop_injected;
	tot.trunc_seen += d.rx_truncated;
	tot.gen += d.wire_gen_frames;
	ret = rte_eth_dev_close(fwd.port);
	if (ret != 0)
		soak_fail("rte_eth_dev_close: %s", rte_strerror(-ret));
	ret = rte_eal_hotplug_remove("vdev", SOAK_VDEV);
	if (ret != 0)
		soak_fail("hot-unplug of %s: %s", SOAK_VDEV, rte_strerror(-ret));
	if (mana_model_find(SOAK_VDEV) != NULL)
		soak_fail("software device %s still exists after its vdev was removed", SOAK_VDEV);
	avail = rte_mempool_avail_count(pool);
	if (avail != SOAK_MBUFS)
		soak_fail("after close: %u of %u mbufs in the pool (%u lost)", avail, SOAK_MBUFS,
			  SOAK_MBUFS - avail);
}

/* ---- operations ----------------------------------------------------------------- */

static bool
refused(enum soak_op op, int ret, const char *what)
{
	if (ret == 0)
		return false;
	if (ret != -EINVAL && ret != -EBUSY && ret != -ERANGE && ret != -ENOTSUP)
		soak_fail("%s: unexpected %d (%s)", what, ret, rte_strerror(-ret));
	tot.refused[op]++;
	return true;
}

static void
op_reconfig(void)
{
	static const uint16_t rxqs[] = { 1, 2, 4 };
	static const uint16_t descs[] = { 64, 128, 256 };	/* a power of two 64..256 */
	uint64_t before[C_N], after[C_N], r[C_N];
	struct mana_model_port_stats d;
	unsigned int i;

	port_stop();
	drv_values(before);
	cfg.nb_rxq = rxqs[rnd_below(RTE_DIM(rxqs))];
	cfg.nb_txq = (uint16_t)(1 + rnd_below(SOAK_MAX_Q));
	cfg.nb_desc = descs[rnd_below(RTE_DIM(descs))];
	port_configure();
	drv_values(after);
	for (i = 0; i < C_N; i++) {
		if (before[i] != after[i])
			soak_fail("driver %s %" PRIu64 " before queue re-setup, %" PRIu64
				  " after (statistics are cumulative)", ctr[i].name, before[i],
				  after[i]);
	}
	dev_stats(&d);
	refs(r, &d);
	pin(r, after);
	port_start();
}

static void
op_rss_key(void)
{
	struct rte_eth_rss_conf rc;
	uint8_t key[RTE_PMD_MANA_RSS_KEY_LEN], got[RTE_PMD_MANA_RSS_KEY_LEN];
	struct rte_eth_dev_info info;
	unsigned int i;
	bool live;
	int ret;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)rnd();
	ret = rte_eth_dev_info_get(fwd.port, &info);
	if (ret != 0)
		soak_fail("rte_eth_dev_info_get: %s", rte_strerror(-ret));
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = key;
	rc.rss_key_len = sizeof(key);
	rc.rss_hf = info.flow_type_rss_offloads & (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP);
	/*
	 * Half the time on the started port (its RX side is built again; at a
	 * quiescent point, since the frames its rings hold are discarded), else
	 * on the stopped port.
	 */
	live = rnd_below(2) == 0;
	if (live)
		quiesce();
	else
		port_stop();
	ret = rte_eth_dev_rss_hash_update(fwd.port, &rc);
	if (ret != 0)
		soak_fail("RSS key update on a %s port: %s", live ? "started" : "stopped",
			  rte_strerror(-ret));
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = got;
	rc.rss_key_len = sizeof(got);
	ret = rte_eth_dev_rss_hash_conf_get(fwd.port, &rc);
	if (ret != 0 || memcmp(got, key, sizeof(key)) != 0)
		soak_fail("RSS key read back (%d) is not the one set", ret);
	memcpy(cfg.key, key, sizeof(key));
	cfg.key_set = true;
	if (live)
		live_resume();
	else
		port_start();
}

static void
op_reta(void)
{
	struct rte_eth_rss_reta_entry64 conf[RTE_PMD_MANA_RETA_SIZE / RTE_ETH_RETA_GROUP_SIZE];
	uint16_t perm[SOAK_MAX_Q], i, j, t;
	bool live;
	int ret;

	for (i = 0; i < cfg.nb_rxq; i++)
		perm[i] = i;
	for (i = cfg.nb_rxq; i > 1; i--) {
		j = (uint16_t)rnd_below(i);
		t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	memset(conf, 0, sizeof(conf));
	for (i = 0; i < RTE_PMD_MANA_RETA_SIZE; i++) {
		conf[i / RTE_ETH_RETA_GROUP_SIZE].mask |= 1ULL << (i % RTE_ETH_RETA_GROUP_SIZE);
		conf[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
			perm[i % cfg.nb_rxq];
	}
	/* As op_rss_key: half the time on the started port, at a quiescent point. */
	live = rnd_below(2) == 0;
	if (live)
		quiesce();
	else
		port_stop();
	ret = rte_eth_dev_rss_reta_update(fwd.port, conf, RTE_PMD_MANA_RETA_SIZE);
	if (ret != 0)
		soak_fail("RETA update (period %u) on a %s port: %s", cfg.nb_rxq,
			  live ? "started" : "stopped", rte_strerror(-ret));
	for (i = 0; i < RTE_PMD_MANA_RETA_SIZE; i++)
		cfg.reta[i] = perm[i % cfg.nb_rxq];
	cfg.reta_set = true;
	if (live)
		live_resume();
	else
		port_start();
}

static void
op_mtu(void)
{
	static const uint16_t mtus[] = { 1280, 1500, 1800, 2000, 4000, 9000 };
	uint16_t mtu = mtus[rnd_below(RTE_DIM(mtus))], got = 0;
	bool stopped = rnd_below(2) == 0;
	int ret;

	if (stopped) {
		port_stop();
	} else {
		fwd_pause();	/* ethdev control beside a running burst is not allowed */
	}
	ret = rte_eth_dev_set_mtu(fwd.port, mtu);
	if (!refused(OP_MTU, ret, "set MTU")) {
		ret = rte_eth_dev_get_mtu(fwd.port, &got);
		if (ret != 0 || got != mtu)
			soak_fail("MTU %u accepted, reads %u (%d)", mtu, got, ret);
	}
	if (stopped)
		port_start();
	else
		fwd_resume();
}

static void
op_link_flap(void)
{
	link_set(false);
	usleep(1000 * (1 + rnd_below(20)));
	link_set(true);
}

static void
op_tx_error(void)
{
	uint32_t type = 33 + rnd_below(9), n = 1 + rnd_below(8);
	int ret = rte_pmd_mana_model_inject_tx_error(fwd.port, type, n);

	if (!refused(OP_TX_ERROR, ret, "inject TX error"))
		tot.tx_err_asked += n;
}

static void
op_drop_next(void)
{
	uint32_t n = 1 + rnd_below(16);
	int ret = rte_pmd_mana_model_drop_next(fwd.port, n);

	if (ret != 0)
		soak_fail("drop_next(%u): %s", n, rte_strerror(-ret));
	tot.drop_asked += n;
}

/* A frame longer than the RX buffers: the device completes it truncated. */
static void
op_inject_rx(void)
{
	static uint8_t frame[SOAK_TRUNC_LEN];
	struct comp_frame f;
	int ret;

	comp_frame_default(&f);
	ret = rte_eth_macaddr_get(fwd.port, &f.dst);
	if (ret != 0)
		soak_fail("rte_eth_macaddr_get: %s", rte_strerror(-ret));
	f.len = SOAK_TRUNC_LEN;
	f.seed = (uint8_t)rnd();
	comp_frame_build(frame, &f);
	ret = rte_pmd_mana_model_inject_rx(fwd.port, frame, f.len);
	if (ret != 0)
		soak_fail("inject_rx(%u bytes): %s", f.len, rte_strerror(-ret));
	life.inject_ok++;
	tot.trunc_injected++;
}

static void
op_stats_reset(void)
{
	struct mana_model_port_stats d;
	uint64_t r0[C_N], r1[C_N], v[C_N], inflight_tx, inflight_rx;
	unsigned int i;
	int ret;

	if (rnd_below(3) == 0) {	/* stopped: exact */
		port_stop();
		ret = rte_eth_stats_reset(fwd.port);
		if (ret != 0)
			soak_fail("stats reset: %s", rte_strerror(-ret));
		drv_values(v);
		for (i = 0; i < C_N; i++)
			if (v[i] != 0)
				soak_fail("driver %s = %" PRIu64 " after a reset of a stopped port",
					  ctr[i].name, v[i]);
		dev_stats(&d);
		refs(r0, &d);
		pin(r0, v);
		port_start();
		return;
	}
	dev_stats(&d);
	refs(r0, &d);
	ret = rte_eth_stats_reset(fwd.port);
	if (ret != 0)
		soak_fail("stats reset: %s", rte_strerror(-ret));
	dev_stats(&d);
	refs(r1, &d);
	inflight_tx = (uint64_t)fwd.nb_txq * cfg.nb_desc;
	inflight_rx = (uint64_t)fwd.nb_rxq * cfg.nb_desc;
	ctr[C_IPACKETS].lo = r0[C_IPACKETS];
	ctr[C_IPACKETS].hi = r1[C_IPACKETS] + SOAK_BURST;
	ctr[C_OPACKETS].lo = r0[C_OPACKETS] - RTE_MIN(r0[C_OPACKETS], (uint64_t)SOAK_BURST);
	ctr[C_OPACKETS].hi = r1[C_OPACKETS] + inflight_tx;
	ctr[C_OERRORS].lo = r0[C_OERRORS] - RTE_MIN(r0[C_OERRORS], inflight_tx);
	ctr[C_OERRORS].hi = r1[C_OERRORS];
	ctr[C_IERRORS].lo = r0[C_IERRORS] - RTE_MIN(r0[C_IERRORS], inflight_rx);
	ctr[C_IERRORS].hi = r1[C_IERRORS];
	reset_while_fwd = true;
	tot.fwd_resets++;
}

static void
run_op(enum soak_op op)
{
	switch (op) {
	case OP_STOP_START:
		port_stop();
		port_start();
		break;
	case OP_RECONFIG: op_reconfig(); break;
	case OP_RSS_KEY: op_rss_key(); break;
	case OP_RETA: op_reta(); break;
	case OP_MTU: op_mtu(); break;
	case OP_LINK_FLAP: op_link_flap(); break;
	case OP_TX_ERROR: op_tx_error(); break;
	case OP_DROP_NEXT: op_drop_next(); break;
	case OP_INJECT_RX: op_inject_rx(); break;
	case OP_STATS_RESET: op_stats_reset(); break;
	case OP_REATTACH:
		detach();
		attach();
		break;
	case OP_N: break;
	}
	tot.done[op]++;
}

static enum soak_op
pick_op(void)
{
	unsigned int sum = 0, i, x;

	for (i = 0; i < OP_N; i++)
		sum += op_weight[i];
	x = rnd_below(sum);
	for (i = 0; i < OP_N; i++) {
		if (x < op_weight[i])
			return (enum soak_op)i;
		x -= op_weight[i];
	}
	return OP_STOP_START;
}

/* ---- main ------------------------------------------------------------------------- */

static void
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seconds", 1, NULL, 's' }, { "seed", 1, NULL, 'S' },
		{ "verbose", 0, NULL, 'v' }, { NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			opt.seconds = (unsigned int)strtoul(optarg, &end, 10);
			if (*end != '\0' || opt.seconds == 0)
				soak_fail("--seconds %s: a positive integer is allowed", optarg);
			break;
		case 'S':
			opt.seed = strtoull(optarg, &end, 0);
			if (*end != '\0')
				soak_fail("--seed %s: an integer is allowed", optarg);
			break;
		case 'v': opt.verbose = true; break;
		default:
			soak_fail("usage: soak [--seconds N] [--seed S] [--verbose]");
		}
	}
}

static void
print_report(uint64_t ms)
{
	unsigned int i;

	printf("soak: %" PRIu64 " ms, seed %" PRIu64 ", %" PRIu64 " attaches, %" PRIu64
	       " quiescent checks\n", ms, opt.seed, tot.attaches, tot.checks);
	for (i = 0; i < OP_N; i++)
		printf("soak: op %-12s %8" PRIu64 " (refused %" PRIu64 ")\n", op_names[i],
		       tot.done[i], tot.refused[i]);
	printf("soak: packets generated %" PRIu64 ", received %" PRIu64 ", forwarded %" PRIu64
	       ", unsent %" PRIu64 ", device rx %" PRIu64 " tx %" PRIu64 "\n", tot.gen, tot.rx,
	       tot.tx, tot.unsent, tot.dev_rx, tot.dev_tx);
	printf("soak: TX errors injected %" PRIu64 ", error completions %" PRIu64
	       " (with link-down ones; the driver's oerrors agreed)\n", tot.tx_err_asked,
	       tot.tx_err);
	printf("soak: RX drops injected %" PRIu64 ", device dropped %" PRIu64
	       "; truncated frames injected %" PRIu64 ", completed truncated %" PRIu64
	       " (the driver's ierrors agreed)\n", tot.drop_asked, tot.drop_seen,
	       tot.trunc_injected, tot.trunc_seen);
	printf("soak: stats resets while forwarding %" PRIu64 "\n", tot.fwd_resets);
}

int
main(int argc, char **argv)
{
	uint64_t t0, end;
	unsigned int lcore;

	parse_args(argc, argv);
	comp_eal_init(argv[0]);
	/* The expected error completions are logged at NOTICE: keep warnings and errors. */
	if (!opt.verbose)
		rte_log_set_level_pattern("pmd.net.mana.*", RTE_LOG_WARNING);
	rng = opt.seed;
	pool = comp_pool("soak_pool", SOAK_MBUFS, RTE_MBUF_DEFAULT_BUF_SIZE);
	if (pool == NULL)
		soak_fail("mbuf pool of %u: %s", SOAK_MBUFS, rte_strerror(rte_errno));
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore >= RTE_MAX_LCORE)
		soak_fail("no worker lcore (EAL -l 0-1)");
	fwd.run = 0;
	if (rte_eal_remote_launch(fwd_main, NULL, lcore) != 0)
		soak_fail("cannot launch the forwarding lcore");
	t0 = comp_now_ms();
	end = t0 + (uint64_t)opt.seconds * 1000;
	attach();
	while (comp_now_ms() < end) {
		enum soak_op op = pick_op();

		if (opt.verbose)
			printf("soak: %" PRIu64 " ms: %s\n", comp_now_ms() - t0, op_names[op]);
		run_op(op);
		comp_sleep_ms(2 + rnd_below(30));
	}
	detach();
	__atomic_store_n(&fwd.quit, 1, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(lcore);
	tot.unsent = fwd.unsent;
	if (tot.rx == 0 || tot.tx == 0)
		soak_fail("nothing was forwarded (received %" PRIu64 ", sent %" PRIu64 ")",
			  tot.rx, tot.tx);
	if (tot.drop_seen > tot.drop_asked || (tot.tx_err_asked != 0 && tot.tx_err == 0))
		soak_fail("device dropped %" PRIu64 " of %" PRIu64 " asked, %" PRIu64
			  " TX error completions", tot.drop_seen, tot.drop_asked, tot.tx_err);
	if (rte_mempool_avail_count(pool) != SOAK_MBUFS)
		soak_fail("at the end %u of %u mbufs in the pool", rte_mempool_avail_count(pool),
			  SOAK_MBUFS);
	print_report(comp_now_ms() - t0);
	printf("soak: PASS: every mbuf back (%u/%u), driver and device counters agree at %"
	       PRIu64 " quiescent points\n", rte_mempool_avail_count(pool), SOAK_MBUFS,
	       tot.checks);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return 0;
}
