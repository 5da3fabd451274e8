/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Teardown and misuse paths through ethdev and EAL:
 *   - process exit with ports started and traffic flowing (rte_eal_cleanup,
 *     rte_exit, exit): a clean exit status and, after cleanup, no device left;
 *   - hot removal of the vdev while its ports run, then re-attach and forward;
 *   - a port closed, or its vdev removed, from its own LSC/RMV callback (the
 *     EAL interrupt thread);
 *   - reconfiguration with other queue and descriptor counts, queue setup
 *     repeated on one index; every mbuf back in the pool after each stop;
 *   - MTU: the device's own MTU is not assumed, limits and RX buffer checks;
 *   - calls in the wrong state: proper errno, the port still works.
 * Cases that end their process (or may hang it if the driver is wrong) run
 * in a fresh copy of this program (--child <case>) with a deadline.
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_eal.h>

#include "comp.h"

#define POOL_N		4096
#define GEN_ARGS	"wire=gen:flows=8:len=128:rate=200000"
#define CHILD_MS	30000

/* ---- helpers ------------------------------------------------------------- */

/* Forward whatever the generator delivers back to its sink for ms; returns frames sent. */
static uint64_t
forward(uint16_t pid, uint16_t nrxq, uint16_t ntxq, unsigned int ms)
{
	uint64_t end = comp_now_ms() + ms, sent = 0;
	struct rte_mbuf *b[32];
	uint16_t q, n, k;

	while (comp_now_ms() < end) {
		for (q = 0; q < nrxq; q++) {
			n = rte_eth_rx_burst(pid, q, b, RTE_DIM(b));
			k = rte_eth_tx_burst(pid, q % ntxq, b, n);
			rte_pktmbuf_free_bulk(b + k, n - k);
			sent += k;
		}
	}
	return sent;
}

/* The sink got frames, all intact, and the device saw no driver mistake. */
static void
check_forwarded(const char *model, unsigned int vport, uint64_t sent)
{
	struct mana_model_port_stats st;

	CHECK(sent > 0);
	CHECK(comp_model_stats(model, vport, &st));
	CHECK_MSG(st.wire_sink_frames > 0, "%s vPort %u: sink got nothing (%llu sent)", model,
		  vport, (unsigned long long)sent);
	CHECK_EQ(st.wire_sink_bad, 0);
	CHECK_EQ(st.queue_errors, 0);
	CHECK_EQ(st.db_rejected, 0);
}

/* Frames of len bytes to pid's own MAC, sent on queue 0; returns how many were taken. */
static uint16_t
send_len(uint16_t pid, struct rte_mempool *mp, uint32_t len, uint16_t n)
{
	static uint8_t buf[9216];
	struct rte_mbuf *m[16];
	struct comp_frame f;
	uint16_t i, sent;

	comp_frame_default(&f);
	rte_eth_macaddr_get(pid, &f.dst);
	f.len = len;
	comp_frame_build(buf, &f);
	for (i = 0; i < n && i < RTE_DIM(m); i++) {
		m[i] = comp_mbuf_from(mp, buf, len);
		if (m[i] == NULL)
			break;
	}
	sent = comp_tx_all(pid, 0, m, i, COMP_WAIT_MS);
	comp_free(m + sent, i - sent);
	return sent;
}

/* n frames out on each TX queue and back on the loop wire. */
static void
loop_check(uint16_t pid, uint16_t nrxq, uint16_t ntxq, struct rte_mempool *mp)
{
	uint16_t q;

	for (q = 0; q < ntxq; q++) {
		struct rte_mbuf *m[8];
		uint8_t buf[256];
		struct comp_frame f;
		unsigned int i;

		comp_frame_default(&f);
		rte_eth_macaddr_get(pid, &f.dst);
		for (i = 0; i < RTE_DIM(m); i++) {
			f.sport = (uint16_t)(100 * q + i);
			comp_frame_build(buf, &f);
			m[i] = comp_mbuf_from(mp, buf, f.len);
			REQUIRE(m[i] != NULL);
		}
		REQUIRE_EQ(comp_tx_all(pid, q, m, RTE_DIM(m), COMP_WAIT_MS), RTE_DIM(m));
		CHECK_EQ(comp_rx_wait(pid, nrxq, NULL, 0, RTE_DIM(m), COMP_WAIT_MS, NULL),
			 RTE_DIM(m));
	}
}

/* ---- children: each runs in its own process, EAL included ---------------- */

static struct rte_mempool *child_mp;

/* A gen-wire port started (2 RX with RSS, 2 TX) and forwarding. */
static int
child_start_gen(const char *vdev)
{
	struct comp_port_cfg pc = { .nb_rxq = 2, .nb_txq = 2, .rss = true,
				    .rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP };
	int pid;

	if (comp_vdev_create(vdev, GEN_ARGS) != 0)
		return -1;
	pid = comp_port_of(vdev, 0);
	child_mp = comp_pool("child_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	if (pid < 0 || child_mp == NULL || comp_port_start(pid, &pc, child_mp) != 0)
		return -1;
	check_forwarded(vdev, 0, forward(pid, 2, 2, 200));
	return pid;
}

/* rte_eal_cleanup() with the port running: the vdev's device is gone (engine joined). */
static int
child_exit_cleanup(void)
{
	if (child_start_gen("net_mana_ex1") < 0)
		return 2;
	if (rte_eal_cleanup() != 0)
		return 3;
	if (mana_model_find("net_mana_ex1") != NULL)
		return 4;
	return check_fails ? 1 : 0;
}

/* Runs after rte_exit()'s cleanup: the vdev's device must be gone by then. */
static void
check_ex2_gone(void)
{
	if (mana_model_find("net_mana_ex2") != NULL)
		_exit(4);
}

/* rte_exit() with the port running: exit status of rte_exit, not a signal. */
static int
child_exit_rte_exit(void)
{
	if (child_start_gen("net_mana_ex2") < 0 || check_fails || atexit(check_ex2_gone) != 0)
		return 2;
	rte_exit(7, "leaving with the port started\n");
}

/* exit() with no cleanup at all: the engine still runs; the process must still exit. */
static int
child_exit_plain(void)
{
	if (child_start_gen("net_mana_ex3") < 0 || check_fails)
		return 2;
	exit(5);
}

static volatile int cb_done;	/* 1: callback finished; 2: it failed */
static char cb_vdev[32];

/*
 * Stop and close the port from its own event callback (EAL interrupt
 * thread), with one more event queued behind the one being handled.
 */
static int
close_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	int rc;

	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (cb_done != 0)
		return 0;
	rc = mana_model_set_link(mana_model_find(cb_vdev), 0, type == RTE_ETH_EVENT_INTR_LSC);
	if (rc == 0)
		rc = rte_eth_dev_stop(port);
	if (rc == 0)
		rc = rte_eth_dev_close(port);
	__atomic_store_n(&cb_done, rc == 0 ? 1 : 2, __ATOMIC_RELEASE);
	return 0;
}

/* Remove the whole vdev from the port's event callback. */
static int
remove_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	int rc;

	RTE_SET_USED(port);
	RTE_SET_USED(type);
	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (cb_done != 0)
		return 0;
	rc = rte_eal_hotplug_remove("vdev", cb_vdev);
	__atomic_store_n(&cb_done, rc == 0 ? 1 : 2, __ATOMIC_RELEASE);
	return 0;
}

static bool
wait_cb(void)
{
	uint64_t end = comp_now_ms() + COMP_WAIT_MS;

	while (__atomic_load_n(&cb_done, __ATOMIC_ACQUIRE) == 0 && comp_now_ms() < end)
		comp_sleep_ms(1);
	return __atomic_load_n(&cb_done, __ATOMIC_ACQUIRE) == 1;
}

/*
 * Port of vdev started with LSC interrupts and cb registered for event;
 * trigger the event; the callback must finish, the port and the device be
 * gone, and a new vdev of the same name forward traffic.
 */
static int
child_event_close(const char *vdev, enum rte_eth_event_type ev, rte_eth_dev_cb_fn cb)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1, .intr_lsc = true,
				    .intr_rmv = true };
	struct mana_model *m;
	int pid;

	snprintf(cb_vdev, sizeof(cb_vdev), "%s", vdev);
	child_mp = comp_pool("child_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	/* A fatal error for good: the recovery gives up after 100 ms, then RMV. */
	if (child_mp == NULL || comp_vdev_create(vdev, "wire=loop,recovery_timeout=100") != 0)
		return 2;
	pid = comp_port_of(vdev, 0);
	m = mana_model_find(vdev);
	if (pid < 0 || m == NULL ||
	    rte_eth_dev_callback_register(pid, ev, cb, NULL) != 0 ||
	    comp_port_start(pid, &pc, child_mp) != 0)
		return 2;
	loop_check(pid, 1, 1, child_mp);
	if (ev == RTE_ETH_EVENT_INTR_LSC)
		CHECK_EQ(mana_model_set_link(m, 0, false), 0);
	else
		CHECK_EQ(mana_model_fatal(m), 0);
	CHECK_MSG(wait_cb(), "the callback did not finish (state %d)", cb_done);
	if (check_fails)
		return 1;
	CHECK(!rte_eth_dev_is_valid_port(pid));
	CHECK(mana_model_find(vdev) == NULL);
	CHECK_EQ(rte_mempool_avail_count(child_mp), POOL_N);
	rte_eth_dev_callback_unregister(RTE_ETH_ALL, ev, cb, NULL);
	if (cb == close_cb)
		CHECK_EQ(rte_vdev_uninit(vdev), 0);
	/* Everything works again under the same names. */
	if (comp_vdev_create(vdev, "wire=loop") != 0)
		return 3;
	pid = comp_port_of(vdev, 0);
	pc.intr_lsc = false;
	pc.intr_rmv = false;
	if (pid < 0 || comp_port_start(pid, &pc, child_mp) != 0)
		return 3;
	loop_check(pid, 1, 1, child_mp);
	CHECK_EQ(rte_eal_cleanup(), 0);
	return check_fails ? 1 : 0;
}

static int
child_close_in_lsc(void)
{
	return child_event_close("net_mana_cl1", RTE_ETH_EVENT_INTR_LSC, close_cb);
}

static int
child_close_in_rmv(void)
{
	return child_event_close("net_mana_cl2", RTE_ETH_EVENT_INTR_RMV, close_cb);
}

static int
child_remove_in_rmv(void)
{
	return child_event_close("net_mana_cl3", RTE_ETH_EVENT_INTR_RMV, remove_cb);
}

static const struct {
	const char *name;
	int (*fn)(void);
} children[] = {
	{ "exit_cleanup", child_exit_cleanup },
	{ "exit_rte_exit", child_exit_rte_exit },
	{ "exit_plain", child_exit_plain },
	{ "close_in_lsc", child_close_in_lsc },
	{ "close_in_rmv", child_close_in_rmv },
	{ "remove_in_rmv", child_remove_in_rmv },
};

static int
child_main(const char *prog, const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(children); i++) {
		if (strcmp(children[i].name, name) == 0) {
			comp_eal_init(prog);
			return children[i].fn();
		}
	}
	fprintf(stderr, "unknown child case %s\n", name);
	return 100;
}

/*
 * Runs `name` in a fresh process; its exit status must be `want` within
 * CHILD_MS. A child that exits on purpose without any cleanup leaves its
 * memory to the kernel: under LeakSanitizer that is not a leak to report.
 */
static void
run_child_opt(const char *name, int want, bool exits_without_cleanup)
{
	char opts[512];
	uint64_t end = comp_now_ms() + CHILD_MS;
	int status = 0;
	pid_t pid, w;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		if (exits_without_cleanup) {
			snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0",
				 getenv("ASAN_OPTIONS") != NULL ? getenv("ASAN_OPTIONS") : "",
				 getenv("ASAN_OPTIONS") != NULL ? ":" : "");
			setenv("ASAN_OPTIONS", opts, 1);
		}
		execl("/proc/self/exe", "comp_teardown", "--child", name, (char *)NULL);
		_exit(101);
	}
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 && comp_now_ms() < end)
		comp_sleep_ms(10);
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		CHECK_MSG(false, "child %s still running after %u ms: killed", name, CHILD_MS);
		return;
	}
	CHECK_MSG(WIFEXITED(status), "child %s ended by signal %d", name,
		  WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	if (WIFEXITED(status))
		CHECK_MSG(WEXITSTATUS(status) == want, "child %s exit status %d, want %d", name,
			  WEXITSTATUS(status), want);
}

static void
run_child(const char *name, int want)
{
	run_child_opt(name, want, false);
}

static void
test_exit_cleanup(void)
{
	run_child("exit_cleanup", 0);
}

static void
test_exit_rte_exit(void)
{
	run_child("exit_rte_exit", 7);
}

static void
test_exit_plain(void)
{
	run_child_opt("exit_plain", 5, true);
}

static void
test_close_in_lsc(void)
{
	run_child("close_in_lsc", 0);
}

static void
test_close_in_rmv(void)
{
	run_child("close_in_rmv", 0);
}

static void
test_remove_in_rmv(void)
{
	run_child("remove_in_rmv", 0);
}

/* ---- in-process cases ------------------------------------------------------ */

static void
start_two(const char *vdev, struct rte_mempool *mp, int *p0, int *p1)
{
	struct comp_port_cfg pc = { .nb_rxq = 2, .nb_txq = 2, .rss = true,
				    .rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP };

	*p0 = comp_port_of(vdev, 0);
	*p1 = comp_port_of(vdev, 1);
	REQUIRE(*p0 >= 0 && *p1 >= 0);
	REQUIRE_EQ(comp_port_start(*p0, &pc, mp), 0);
	REQUIRE_EQ(comp_port_start(*p1, &pc, mp), 0);
	check_forwarded(vdev, 0, forward(*p0, 2, 2, 100));
	check_forwarded(vdev, 1, forward(*p1, 2, 2, 100));
}

/* Hot removal with both ports started (TX in flight), re-attach, forward again. */
static void
test_hotplug_remove(void)
{
	static const char args[] = "ports=2," GEN_ARGS "," GEN_ARGS;
	struct rte_eth_dev_info info;
	struct rte_mempool *mp;
	int p0, p1;

	mp = comp_pool("hp_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(rte_eal_hotplug_add("vdev", "net_mana_hp", args), 0);
	start_two("net_mana_hp", mp, &p0, &p1);
	if (check_fails)
		return;
	CHECK_EQ(rte_eal_hotplug_remove("vdev", "net_mana_hp"), 0);
	CHECK(!rte_eth_dev_is_valid_port(p0));
	CHECK(!rte_eth_dev_is_valid_port(p1));
	CHECK(mana_model_find("net_mana_hp") == NULL);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);

	/* Again, then removed through rte_dev_remove() of the ports' device. */
	REQUIRE_EQ(rte_eal_hotplug_add("vdev", "net_mana_hp", args), 0);
	start_two("net_mana_hp", mp, &p0, &p1);
	if (check_fails)
		return;
	REQUIRE_EQ(rte_eth_dev_info_get(p0, &info), 0);
	CHECK_EQ(rte_dev_remove(info.device), 0);
	CHECK(!rte_eth_dev_is_valid_port(p0));
	CHECK(!rte_eth_dev_is_valid_port(p1));
	CHECK(mana_model_find("net_mana_hp") == NULL);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	rte_mempool_free(mp);
}

/* Queues of one configuration on the loop wire: start, traffic, stop, pool full. */
static void
run_config(uint16_t pid, struct rte_mempool *mp, uint16_t nrx, uint16_t ntx, uint16_t desc,
	   bool setup)
{
	struct rte_eth_conf conf;
	uint16_t q;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mq_mode = nrx > 1 ? RTE_ETH_MQ_RX_RSS : RTE_ETH_MQ_RX_NONE;
	conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP;
	REQUIRE_EQ(rte_eth_dev_configure(pid, nrx, ntx, &conf), 0);
	for (q = 0; setup && q < nrx; q++) {
		/* Twice on one index without release: the first queue must go. */
		REQUIRE_EQ(rte_eth_rx_queue_setup(pid, q, 256, SOCKET_ID_ANY, NULL, mp), 0);
		REQUIRE_EQ(rte_eth_rx_queue_setup(pid, q, desc, SOCKET_ID_ANY, NULL, mp), 0);
	}
	for (q = 0; setup && q < ntx; q++) {
		REQUIRE_EQ(rte_eth_tx_queue_setup(pid, q, 64, SOCKET_ID_ANY, NULL), 0);
		REQUIRE_EQ(rte_eth_tx_queue_setup(pid, q, desc, SOCKET_ID_ANY, NULL), 0);
	}
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	REQUIRE_EQ(rte_eth_dev_start(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N - nrx * desc);
	loop_check(pid, nrx, ntx, mp);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_MSG(rte_mempool_avail_count(mp) == POOL_N, "%u/%u/%u: %u of %u mbufs back", nrx,
		  ntx, desc, rte_mempool_avail_count(mp), POOL_N);
}

static void
test_reconfigure(void)
{
	struct mana_model_port_stats st;
	struct rte_mempool *mp;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_rc", "wire=loop"), 0);
	pid = comp_port_of("net_mana_rc", 0);
	mp = comp_pool("rc_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(pid >= 0 && mp != NULL);
	run_config(pid, mp, 4, 2, 256, true);
	run_config(pid, mp, 1, 1, 64, true);
	run_config(pid, mp, 2, 4, 128, true);
	/* Same counts again: ethdev keeps the queues; start without setting them up. */
	run_config(pid, mp, 2, 4, 128, false);
	run_config(pid, mp, 4, 1, 64, true);
	CHECK(comp_model_stats("net_mana_rc", 0, &st));
	CHECK_EQ(st.queue_errors, 0);
	CHECK_EQ(st.db_rejected, 0);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_rc");
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	rte_mempool_free(mp);
}

/*
 * A frame of len on the loop wire of vPort 0 of model: true if the device put
 * it on the wire (and it came back), false if it refused it (CQE_TX_MTU_DROP).
 */
static bool
mtu_passes(uint16_t pid, const char *model, struct rte_mempool *mp, uint32_t len)
{
	struct mana_model_port_stats a, b;
	uint64_t end = comp_now_ms() + COMP_WAIT_MS;

	CHECK(comp_model_stats(model, 0, &a));
	if (send_len(pid, mp, len, 1) != 1) {
		CHECK_MSG(false, "%u-byte frame not taken", len);
		return false;
	}
	do {
		rte_eth_tx_done_cleanup(pid, 0, 0);
		CHECK(comp_model_stats(model, 0, &b));
	} while (b.tx_frames == a.tx_frames && b.tx_err[34 - 32] == a.tx_err[34 - 32] &&
		 comp_now_ms() < end);
	if (b.tx_frames == a.tx_frames) {
		CHECK_MSG(b.tx_err[34 - 32] == a.tx_err[34 - 32] + 1,
			  "%u-byte frame neither sent nor refused", len);
		return false;
	}
	CHECK_EQ(comp_rx_wait(pid, 1, NULL, 0, 1, COMP_WAIT_MS, NULL), 1);
	return true;
}

static void
test_mtu(void)
{
	struct mana_model_config cfg;
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	struct mana_model_port_stats st;
	struct rte_mempool *mp, *big, *tiny;
	struct rte_eth_rxq_info qi;
	struct mana_model *m;
	uint16_t mtu = 0;
	int pid;

	/* A device left at MTU 9000 by an earlier user. */
	mana_model_config_init(&cfg, "mtu_dev");
	m = mana_model_create(&cfg);
	REQUIRE(m != NULL);
	REQUIRE_EQ(mana_model_set_mtu(m, 0, 9000), 0);
	REQUIRE_EQ(comp_vdev_create("net_mana_mtu", "model=mtu_dev"), 0);
	pid = comp_port_of("net_mana_mtu", 0);
	mp = comp_pool("mtu_pool", 1024, RTE_MBUF_DEFAULT_BUF_SIZE);
	big = comp_pool("mtu_big", 1024, RTE_PKTMBUF_HEADROOM + 4096);
	tiny = comp_pool("mtu_tiny", 64, RTE_PKTMBUF_HEADROOM + 256);
	REQUIRE(pid >= 0 && mp != NULL && big != NULL && tiny != NULL);
	REQUIRE_EQ(rte_eth_dev_info_get(pid, &info), 0);
	CHECK_EQ(info.min_mtu, RTE_ETHER_MIN_MTU);
	CHECK_EQ(info.max_mtu, 9000);
	CHECK_EQ(info.max_rx_pktlen, 9000 + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN);
	memset(&conf, 0, sizeof(conf));
	REQUIRE_EQ(rte_eth_dev_configure(pid, 1, 1, &conf), 0);
	REQUIRE_EQ(rte_eth_rx_queue_setup(pid, 0, 256, SOCKET_ID_ANY, NULL, big), 0);
	REQUIRE_EQ(rte_eth_tx_queue_setup(pid, 0, 256, SOCKET_ID_ANY, NULL), 0);
	REQUIRE_EQ(rte_eth_dev_start(pid), 0);
	CHECK_EQ(rte_eth_dev_get_mtu(pid, &mtu), 0);
	CHECK_EQ(mtu, RTE_ETHER_MTU);
	/* The port says 1500: the device must drop a 3000-byte frame (CQE_TX_MTU_DROP). */
	CHECK(mtu_passes(pid, "mtu_dev", big, 1514));
	CHECK_MSG(!mtu_passes(pid, "mtu_dev", big, 3000), "3000-byte frame went out at MTU 1500");
	REQUIRE(comp_model_stats("mtu_dev", 0, &st));
	CHECK_EQ(st.tx_err[34 - 32], 1);

	/* Limits and the RX buffers (4096 bytes hold MTU 4078). */
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 9001), -EINVAL);
	CHECK_EQ(rte_eth_dev_set_mtu(pid, RTE_ETHER_MIN_MTU - 1), -EINVAL);
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 5000), -EINVAL);
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 4000), 0);
	CHECK_EQ(rte_eth_dev_get_mtu(pid, &mtu), 0);
	CHECK_EQ(mtu, 4000);
	/* MTU + 18 on the wire, tagged or not (hardware.md §19) */
	CHECK(mtu_passes(pid, "mtu_dev", big, 4018));
	CHECK(!mtu_passes(pid, "mtu_dev", big, 4019));
	CHECK_EQ(rte_eth_dev_stop(pid), 0);

	/* Reconfigured without an MTU: back to 1500 on the device too. */
	REQUIRE_EQ(rte_eth_dev_configure(pid, 1, 1, &conf), 0);
	REQUIRE_EQ(rte_eth_dev_start(pid), 0);
	CHECK(!mtu_passes(pid, "mtu_dev", big, 3000));
	CHECK_EQ(rte_eth_dev_stop(pid), 0);

	/*
	 * An MTU given to configure larger than the buffers of the RX queues
	 * kept from before: they are laid out again at start, 2 mbufs per frame.
	 */
	conf.rxmode.mtu = 6000;
	REQUIRE_EQ(rte_eth_dev_configure(pid, 1, 1, &conf), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	REQUIRE_EQ(rte_eth_rx_queue_info_get(pid, 0, &qi), 0);
	CHECK_EQ(qi.scattered_rx, 1);
	CHECK(mtu_passes(pid, "mtu_dev", big, 4014));
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	/*
	 * A frame of more than 15 mbufs is refused; ethdev releases the old
	 * queue before the driver refuses the new one.
	 */
	conf.rxmode.mtu = 9000;
	REQUIRE_EQ(rte_eth_dev_configure(pid, 1, 1, &conf), 0);
	CHECK_EQ(rte_eth_rx_queue_setup(pid, 0, 256, SOCKET_ID_ANY, NULL, tiny), -EINVAL);
	CHECK_EQ(rte_eth_dev_start(pid), -EINVAL);
	conf.rxmode.mtu = 4000;
	REQUIRE_EQ(rte_eth_dev_configure(pid, 1, 1, &conf), 0);
	REQUIRE_EQ(rte_eth_rx_queue_setup(pid, 0, 256, SOCKET_ID_ANY, NULL, big), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	CHECK(mtu_passes(pid, "mtu_dev", big, 4014));
	CHECK_EQ(rte_eth_dev_stop(pid), 0);

	CHECK_EQ(rte_eth_dev_close(pid), 0);
	comp_vdev_destroy("net_mana_mtu");
	CHECK_EQ(mana_model_destroy(m), 0);
	CHECK_EQ(rte_mempool_avail_count(big), 1024);
	rte_mempool_free(mp);
	rte_mempool_free(big);
	rte_mempool_free(tiny);
}

/* Calls in the wrong state are refused with the ethdev errno; the port keeps working. */
static void
test_misuse(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct rte_eth_conf conf;
	struct rte_mempool *mp;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_mu", "wire=loop"), 0);
	pid = comp_port_of("net_mana_mu", 0);
	mp = comp_pool("mu_pool", POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(pid >= 0 && mp != NULL);
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 1500), -EINVAL);	/* not configured */
	CHECK_EQ(rte_eth_dev_start(pid), -EINVAL);		/* not configured */
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	memset(&conf, 0, sizeof(conf));
	CHECK_EQ(rte_eth_dev_configure(pid, 1, 1, &conf), -EBUSY);
	CHECK_EQ(rte_eth_rx_queue_setup(pid, 0, 64, SOCKET_ID_ANY, NULL, mp), -EBUSY);
	CHECK_EQ(rte_eth_tx_queue_setup(pid, 0, 64, SOCKET_ID_ANY, NULL), -EBUSY);
	CHECK_EQ(rte_eth_dev_close(pid), -EINVAL);
	CHECK_EQ(rte_eth_dev_start(pid), 0);			/* already started */
	loop_check(pid, 1, 1, mp);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	loop_check(pid, 1, 1, mp);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_close(pid), 0);
	CHECK_EQ(rte_eth_dev_close(pid), -ENODEV);
	CHECK_EQ(rte_eth_dev_stop(pid), -ENODEV);
	CHECK_EQ(rte_eth_dev_start(pid), -ENODEV);
	CHECK(mana_model_find("net_mana_mu") == NULL);
	/* The vdev lost its only port; removing it is still clean. */
	CHECK_EQ(rte_vdev_uninit("net_mana_mu"), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), POOL_N);
	rte_mempool_free(mp);
}

static const struct comp_case cases[] = {
	{ "exit_cleanup", test_exit_cleanup },
	{ "exit_rte_exit", test_exit_rte_exit },
	{ "exit_plain", test_exit_plain },
	{ "close_in_lsc", test_close_in_lsc },
	{ "close_in_rmv", test_close_in_rmv },
	{ "remove_in_rmv", test_remove_in_rmv },
	{ "hotplug_remove", test_hotplug_remove },
	{ "reconfigure", test_reconfigure },
	{ "mtu", test_mtu },
	{ "misuse", test_misuse },
};

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[0], argv[2]);
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
