/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Device reset and recovery (mana_recovery.c, hardware.md §17) on the
 * software device's reset (mana_model_reset):
 *  - recovery=auto: 10 resets while traffic is in flight; after each,
 *    ERR_RECOVERING then RECOVERY_SUCCESS, and traffic checked frame by
 *    frame: the RSS key (mbuf hash = Toeplitz of the tuple under our key),
 *    the RETA (the queue a frame arrives on), VLAN stripping (tag gone,
 *    vlan_tci) and the MTU (a frame of MTU + 14 bytes) all still in force;
 *    every mbuf back in the pool, counters kept and the recovery xstats;
 *  - recovery=manual: INTR_RESET, bursts return nothing, start refused until
 *    rte_eth_dev_reset(), then a plain start and traffic;
 *  - a device that never comes back: RECOVERY_FAILED after recovery_timeout,
 *    the port cannot start, close works and every mbuf is back;
 *  - after RECOVERY_SUCCESS the link reads up and an LSC event says so;
 *  - an MTU change after a reset whose event is not handled yet: -EBUSY.
 * Closing a port from two threads: test_close_race.c.
 */

#include <string.h>

#include <rte_alarm.h>
#include <rte_ethdev.h>
#include <rte_thash.h>

#include "comp.h"

#define POOL_N		4096u
#define REC_MTU		2000u
#define REC_VLAN	100u
#define NQ		4u
#define N_PLAIN		32u
#define N_TAGGED	4u
#define NO_EXTRA_MS	50u

static const uint8_t rec_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/*
 * Not the identity: entry i goes to perm[i mod 4] (the device takes tables
 * of 2^n distinct queues repeated, here all 4, doc/design.md "RSS").
 */
static uint16_t
rec_reta(unsigned int i)
{
	static const uint16_t perm[NQ] = { 3, 1, 0, 2 };

	return perm[i % NQ];
}

static struct {
	uint32_t n;
	enum rte_eth_event_type type[64];
} evlog;

static int
ev_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	uint32_t i = __atomic_fetch_add(&evlog.n, 1, __ATOMIC_ACQ_REL);

	RTE_SET_USED(port);
	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (i < RTE_DIM(evlog.type))
		evlog.type[i] = type;
	return 0;
}

static const enum rte_eth_event_type rec_events[] = {
	RTE_ETH_EVENT_ERR_RECOVERING, RTE_ETH_EVENT_RECOVERY_SUCCESS,
	RTE_ETH_EVENT_RECOVERY_FAILED, RTE_ETH_EVENT_INTR_RESET,
};

static void
ev_register(uint16_t pid, bool on)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(rec_events); i++) {
		if (on)
			CHECK_EQ(rte_eth_dev_callback_register(pid, rec_events[i], ev_cb, NULL), 0);
		else
			rte_eth_dev_callback_unregister(pid, rec_events[i], ev_cb, NULL);
	}
}

static bool
wait_events(uint32_t n, unsigned int ms)
{
	uint64_t end = comp_now_ms() + ms;

	while (__atomic_load_n(&evlog.n, __ATOMIC_ACQUIRE) < n) {
		if (comp_now_ms() > end)
			return false;
		comp_sleep_ms(1);
	}
	return true;
}

/* Toeplitz hash of an untagged UDP/IPv4 frame's 4-tuple under key. */
static uint32_t
udp4_hash(const struct rte_mbuf *m, const uint8_t *key)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
							       RTE_ETHER_HDR_LEN);
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);
	union rte_thash_tuple t;

	memset(&t, 0, sizeof(t));
	t.v4.src_addr = rte_be_to_cpu_32(ip->src_addr);
	t.v4.dst_addr = rte_be_to_cpu_32(ip->dst_addr);
	t.v4.sport = rte_be_to_cpu_16(udp->src_port);
	t.v4.dport = rte_be_to_cpu_16(udp->dst_port);
	return rte_softrss((uint32_t *)&t, RTE_THASH_V4_L4_LEN, key);
}

/* A UDP frame to dst of len bytes (before the tag); with an 802.1Q tag when vlan. */
static struct rte_mbuf *
mk_frame(struct rte_mempool *mp, const struct rte_ether_addr *dst, uint16_t sport, uint32_t len,
	 bool vlan)
{
	uint8_t buf[RTE_ETHER_MAX_JUMBO_FRAME_LEN];
	struct comp_frame f;

	comp_frame_default(&f);
	f.dst = *dst;
	f.sport = sport;
	f.len = len;
	comp_frame_build(buf, &f);
	if (vlan) {
		memmove(buf + 16, buf + 12, len - 12);
		buf[12] = 0x81;
		buf[13] = 0x00;
		buf[14] = 0;
		buf[15] = REC_VLAN;
		len += 4;
	}
	return comp_mbuf_from(mp, buf, len);
}

/*
 * Frames out and back on the loop wire: N_PLAIN untagged UDP frames (hash
 * and queue checked when reta is set), N_TAGGED tagged ones (stripped, and
 * vlan_tci) and one of MTU + 14 bytes. Every one must come back, no other.
 * Returns the packets received.
 */
static uint32_t
traffic_check(uint16_t pid, struct rte_mempool *mp, uint16_t txq, uint16_t salt, bool reta)
{
	const uint32_t n = N_PLAIN + N_TAGGED + 1;
	struct rte_mbuf *m[N_PLAIN + N_TAGGED + 1], *r[32];
	uint32_t got = 0, plain = 0, tagged = 0, big = 0, i;
	struct rte_ether_addr mac;
	uint64_t end;
	uint16_t q, k, nb;

	rte_eth_macaddr_get(pid, &mac);
	for (i = 0; i < n; i++) {
		m[i] = i < N_PLAIN ? mk_frame(mp, &mac, (uint16_t)(salt * 100 + i), 100, false) :
		       i < n - 1 ? mk_frame(mp, &mac, (uint16_t)(salt * 100 + i), 100, true) :
		       mk_frame(mp, &mac, 9, REC_MTU + RTE_ETHER_HDR_LEN, false);
		if (!CHECK(m[i] != NULL, "pool empty"))
			return 0;
	}
	CHECK_EQ(comp_tx_all(pid, txq, m, (uint16_t)n, COMP_WAIT_MS), n);
	end = comp_now_ms() + COMP_WAIT_MS;
	while (got < n && comp_now_ms() < end) {
		for (q = 0; q < NQ; q++) {
			nb = rte_eth_rx_burst(pid, q, r, RTE_DIM(r));
			for (k = 0; k < nb; k++) {
				struct rte_mbuf *p = r[k];
				bool stripped = (p->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) != 0;

				got++;
				if (stripped) {
					tagged++;
					CHECK_EQ(p->vlan_tci & 0xFFF, REC_VLAN);
					CHECK_EQ(p->pkt_len, 100);
				} else if (p->pkt_len == REC_MTU + RTE_ETHER_HDR_LEN) {
					big++;
				} else {
					uint32_t h = udp4_hash(p, rec_key);

					plain++;
					CHECK_EQ(p->pkt_len, 100);
					if (reta) {
						CHECK_EQ(p->hash.rss, h);
						CHECK_EQ(q, rec_reta(h & 63));
					}
				}
				rte_pktmbuf_free(p);
			}
		}
	}
	CHECK_EQ(got, n);
	CHECK_EQ(plain, N_PLAIN);
	CHECK_EQ(tagged, N_TAGGED);
	CHECK_EQ(big, 1);
	CHECK_EQ(comp_rx_drain(pid, NQ, NO_EXTRA_MS), 0);
	return got;
}

static void
set_reta(uint16_t pid)
{
	struct rte_eth_rss_reta_entry64 r[1];
	unsigned int i;

	memset(r, 0, sizeof(r));
	r[0].mask = UINT64_MAX;
	for (i = 0; i < 64; i++)
		r[0].reta[i] = rec_reta(i);
	CHECK_EQ(rte_eth_dev_rss_reta_update(pid, r, 64), 0);
}

static int
port_setup(const char *vdev, const char *args, uint16_t nq, struct rte_mempool *mp,
	   struct mana_model **m)
{
	struct comp_port_cfg pc = { .nb_rxq = nq, .nb_txq = nq, .rss = true,
				    .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP, .rss_key = rec_key,
				    .rx_offloads = RTE_ETH_RX_OFFLOAD_VLAN_STRIP };
	int pid;

	if (comp_vdev_create(vdev, args) != 0)
		return -1;
	pid = comp_port_of(vdev, 0);
	*m = mana_model_find(vdev);
	if (pid < 0 || *m == NULL || comp_port_start((uint16_t)pid, &pc, mp) != 0)
		return -1;
	memset(&evlog, 0, sizeof(evlog));
	ev_register((uint16_t)pid, true);
	return pid;
}

static void
test_auto_10(void)
{
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	struct rte_eth_stats st;
	struct rte_mempool *mp;
	struct mana_model *m;
	uint64_t total = 0;
	unsigned int r, i;
	int pid;

	mp = comp_pool("rec_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	pid = port_setup("net_mana_rec", "wire=loop,recovery_timeout=20000", NQ, mp, &m);
	REQUIRE(pid >= 0);
	CHECK_EQ(rte_eth_dev_info_get(pid, &info), 0);
	CHECK_EQ(info.err_handle_mode, RTE_ETH_ERROR_HANDLE_MODE_PROACTIVE);
	REQUIRE_EQ(rte_eth_dev_stop(pid), 0);
	set_reta(pid);
	CHECK_EQ(rte_eth_dev_set_mtu(pid, REC_MTU), 0);
	REQUIRE_EQ(rte_eth_dev_start(pid), 0);
	total += traffic_check(pid, mp, 0, 1, true);
	for (r = 0; r < 10; r++) {
		struct rte_mbuf *inflight[64];

		/* Frames in flight: posted on a TX queue, or in the RX rings, unread. */
		for (i = 0; i < RTE_DIM(inflight); i++) {
			struct rte_ether_addr mac;

			rte_eth_macaddr_get(pid, &mac);
			inflight[i] = mk_frame(mp, &mac, (uint16_t)(9000 + i), 100, false);
			REQUIRE(inflight[i] != NULL);
		}
		CHECK_EQ(comp_tx_all(pid, r % NQ, inflight, RTE_DIM(inflight), COMP_WAIT_MS),
			 RTE_DIM(inflight));
		REQUIRE_EQ(mana_model_reset(m, 50 + 20 * r), 0);
		if (!CHECK_MSG(wait_events(2 * (r + 1), COMP_WAIT_MS),
			       "reset %u: %u events", r, evlog.n))
			break;
		CHECK_EQ(evlog.type[2 * r], RTE_ETH_EVENT_ERR_RECOVERING);
		CHECK_EQ(evlog.type[2 * r + 1], RTE_ETH_EVENT_RECOVERY_SUCCESS);
		CHECK_EQ(rte_eth_link_get_nowait(pid, &link), 0);
		CHECK_EQ(link.link_status, RTE_ETH_LINK_UP);
		total += traffic_check(pid, mp, (uint16_t)((r + 1) % NQ), (uint16_t)(r + 2), true);
	}
	CHECK_EQ(evlog.n, 20);
	CHECK_EQ(comp_xstat(pid, "recovery_fatal_events"), 10);
	CHECK_EQ(comp_xstat(pid, "recovery_successes"), 10);
	CHECK_EQ(comp_xstat(pid, "recovery_failures"), 0);
	CHECK_EQ(comp_xstat(pid, "recovery_dev_resets"), 0);
	/* The last reset kept the device down 230 ms: recovery cannot have been quicker. */
	CHECK(comp_xstat(pid, "recovery_last_ms") >= 230, "last_ms %" PRId64,
	      comp_xstat(pid, "recovery_last_ms"));
	/* Port counters kept across every reset: what the application received. */
	CHECK_EQ(rte_eth_stats_get(pid, &st), 0);
	CHECK_EQ(st.ipackets, total);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	ev_register(pid, false);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_rec");
	rte_mempool_free(mp);
}

static void
test_manual(void)
{
	struct rte_eth_dev_info info;
	struct rte_mempool *mp;
	struct rte_ether_addr mac;
	struct mana_model *m;
	struct rte_mbuf *one;
	int pid;

	mp = comp_pool("recm_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	pid = port_setup("net_mana_recm", "wire=loop,recovery=manual,recovery_timeout=20000",
			 NQ, mp, &m);
	REQUIRE(pid >= 0);
	CHECK_EQ(rte_eth_dev_info_get(pid, &info), 0);
	CHECK_EQ(info.err_handle_mode, RTE_ETH_ERROR_HANDLE_MODE_PASSIVE);
	REQUIRE_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_set_mtu(pid, REC_MTU), 0);
	REQUIRE_EQ(rte_eth_dev_start(pid), 0);
	traffic_check(pid, mp, 1, 1, false);
	REQUIRE_EQ(mana_model_reset(m, 100), 0);
	REQUIRE(wait_events(1, COMP_WAIT_MS));
	CHECK_EQ(evlog.type[0], RTE_ETH_EVENT_INTR_RESET);
	/* The queues are shut: a burst takes nothing. */
	rte_eth_macaddr_get(pid, &mac);
	one = mk_frame(mp, &mac, 1, 100, false);
	REQUIRE(one != NULL);
	CHECK_EQ(rte_eth_tx_burst(pid, 0, &one, 1), 0);
	rte_pktmbuf_free(one);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_start(pid), -EIO);
	CHECK_EQ(rte_eth_dev_reset(pid), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	traffic_check(pid, mp, 2, 2, false);
	CHECK_EQ(comp_xstat(pid, "recovery_dev_resets"), 1);
	CHECK_EQ(comp_xstat(pid, "recovery_successes"), 0);
	/* Only INTR_RESET: no recovery events in manual mode. */
	CHECK_EQ(evlog.n, 1);
	/* A reset asked for on a healthy port rebuilds it as well. */
	CHECK_EQ(rte_eth_dev_reset(pid), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	traffic_check(pid, mp, 3, 3, false);
	CHECK_EQ(comp_xstat(pid, "recovery_dev_resets"), 2);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	ev_register(pid, false);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_recm");
	rte_mempool_free(mp);
}

static void
test_never_back(void)
{
	struct rte_mempool *mp;
	struct mana_model *m;
	uint64_t t0, dt;
	int pid;

	mp = comp_pool("recf_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	pid = port_setup("net_mana_recf", "wire=loop,recovery_timeout=300", 1, mp, &m);
	REQUIRE(pid >= 0);
	t0 = comp_now_ms();
	REQUIRE_EQ(mana_model_reset(m, 600000), 0);
	REQUIRE(wait_events(2, COMP_WAIT_MS));
	dt = comp_now_ms() - t0;
	CHECK_EQ(evlog.type[0], RTE_ETH_EVENT_ERR_RECOVERING);
	CHECK_EQ(evlog.type[1], RTE_ETH_EVENT_RECOVERY_FAILED);
	CHECK(dt >= 300, "RECOVERY_FAILED after %" PRIu64 " ms, before the 300 ms bound", dt);
	CHECK_EQ(comp_xstat(pid, "recovery_failures"), 1);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK(rte_eth_dev_start(pid) != 0);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	ev_register(pid, false);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_recf");
	rte_mempool_free(mp);
}

/* ---- the link after a recovery (issue 32 D1) ------------------------------ */

static uint32_t lsc_up, lsc_down;

static int
lsc_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	struct rte_eth_link link;

	RTE_SET_USED(type);
	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (rte_eth_link_get_nowait(port, &link) != 0)
		return 0;
	__atomic_fetch_add(link.link_status == RTE_ETH_LINK_UP ? &lsc_up : &lsc_down, 1,
			   __ATOMIC_ACQ_REL);
	return 0;
}

/*
 * After RECOVERY_SUCCESS the link reads up and an LSC event said so: an
 * application that waits for link up after the recovery sees a live port.
 */
static void
test_link_after_recovery(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1, .intr_lsc = true };
	struct rte_eth_link link;
	struct rte_mempool *mp;
	struct mana_model *m;
	uint64_t end;
	int pid;

	mp = comp_pool("recl_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_vdev_create("net_mana_recl", "wire=loop"), 0);
	pid = comp_port_of("net_mana_recl", 0);
	m = mana_model_find("net_mana_recl");
	REQUIRE(pid >= 0 && m != NULL);
	REQUIRE_EQ(comp_port_start((uint16_t)pid, &pc, mp), 0);
	REQUIRE_EQ(rte_eth_dev_callback_register(pid, RTE_ETH_EVENT_INTR_LSC, lsc_cb, NULL), 0);
	memset(&evlog, 0, sizeof(evlog));
	ev_register((uint16_t)pid, true);
	lsc_up = lsc_down = 0;
	REQUIRE_EQ(mana_model_reset(m, 100), 0);
	REQUIRE(wait_events(2, COMP_WAIT_MS));
	CHECK_EQ(evlog.type[1], RTE_ETH_EVENT_RECOVERY_SUCCESS);
	end = comp_now_ms() + COMP_WAIT_MS;
	while (__atomic_load_n(&lsc_up, __ATOMIC_ACQUIRE) == 0 && comp_now_ms() < end)
		comp_sleep_ms(1);
	CHECK(__atomic_load_n(&lsc_up, __ATOMIC_ACQUIRE) == 1,
	      "%u LSC events with the link up after RECOVERY_SUCCESS (%u down)", lsc_up, lsc_down);
	CHECK(lsc_down >= 1, "no LSC event when the device went away");
	CHECK_EQ(rte_eth_link_get_nowait(pid, &link), 0);
	CHECK_EQ(link.link_status, RTE_ETH_LINK_UP);
	ev_register((uint16_t)pid, false);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_recl");
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	rte_mempool_free(mp);
}

/* ---- MTU before the fatal event is handled (issue 32 D16) ----------------- */

static uint32_t intr_hold;

/* An alarm runs on EAL's interrupt thread: while it spins, no device event is handled. */
static void
hold_intr_alarm(void *arg)
{
	RTE_SET_USED(arg);
	__atomic_store_n(&intr_hold, 2, __ATOMIC_RELEASE);
	while (__atomic_load_n(&intr_hold, __ATOMIC_ACQUIRE) == 2)
		;
}

/*
 * A reset whose fatal event is still queued (the interrupt thread held
 * busy): an MTU change fails -EBUSY, as while recovering, not -EIO; once
 * the port has recovered it applies.
 */
static void
test_mtu_before_event(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct rte_mempool *mp;
	struct mana_model *m;
	uint64_t end;
	uint16_t mtu;
	int pid;

	mp = comp_pool("recu_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_vdev_create("net_mana_recu", "wire=loop"), 0);
	pid = comp_port_of("net_mana_recu", 0);
	m = mana_model_find("net_mana_recu");
	REQUIRE(pid >= 0 && m != NULL);
	REQUIRE_EQ(comp_port_start((uint16_t)pid, &pc, mp), 0);
	memset(&evlog, 0, sizeof(evlog));
	ev_register((uint16_t)pid, true);
	__atomic_store_n(&intr_hold, 1, __ATOMIC_RELEASE);
	REQUIRE_EQ(rte_eal_alarm_set(1, hold_intr_alarm, NULL), 0);
	end = comp_now_ms() + COMP_WAIT_MS;
	while (__atomic_load_n(&intr_hold, __ATOMIC_ACQUIRE) != 2 && comp_now_ms() < end)
		comp_sleep_ms(1);
	REQUIRE_EQ(__atomic_load_n(&intr_hold, __ATOMIC_ACQUIRE), 2);
	REQUIRE_EQ(mana_model_reset(m, 100), 0);
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 1400), -EBUSY);
	__atomic_store_n(&intr_hold, 0, __ATOMIC_RELEASE);
	REQUIRE(wait_events(2, COMP_WAIT_MS));
	CHECK_EQ(evlog.type[1], RTE_ETH_EVENT_RECOVERY_SUCCESS);
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 1400), 0);
	CHECK_EQ(rte_eth_dev_get_mtu(pid, &mtu), 0);
	CHECK_EQ(mtu, 1400);
	ev_register((uint16_t)pid, false);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_recu");
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	rte_mempool_free(mp);
}

static const struct comp_case cases[] = {
	{ "auto_10", test_auto_10 },
	{ "manual", test_manual },
	{ "never_back", test_never_back },
	{ "link_after_recovery", test_link_after_recovery },
	{ "mtu_before_event", test_mtu_before_event },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
