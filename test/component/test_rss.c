/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * RSS through ethdev with 2, 4 and 8 RX queues. Every received frame must
 * carry RTE_MBUF_F_RX_RSS_HASH with hash.rss equal to the Toeplitz hash
 * (rte_softrss) of its (src ip, dst ip, src port, dst port) under the
 * configured key, and must have arrived on the queue the effective 64-entry
 * table names for hash & 63. A new table (a permutation of the queues,
 * repeated) and a new key given to the running port steer the next frames
 * (the RX side is built again); given to a stopped port they hold after the
 * start and after a restart. A table over a subset of the queues (2^n of
 * them, DTS's "all entries to queue 0" included) is taken: frames arrive on
 * its queues only, the others stay idle through queue stop/start, runtime
 * setup, restart and recovery, and the device sees no doorbell for a WQ
 * without an object. Tables the device cannot express (3 distinct queues,
 * entries that break the repetition) are refused with -EINVAL and change
 * nothing. Partial updates (a mask) are merged with the table in effect:
 * taken when the merge has the device's shape, refused with the exact log
 * line otherwise; a merge the device cannot be given (it is reset
 * meanwhile) leaves the old table in effect.
 */

#include <errno.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_thash.h>
#include <rte_udp.h>

#include "comp.h"

#define GEN_COUNT	2048
#define INJ_COUNT	256
#define MAX_Q		16

static const uint8_t key1[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static const uint8_t key2[40] = {
	0x13, 0x37, 0xc0, 0xde, 0x42, 0x99, 0xab, 0x01, 0x7e, 0x55,
	0x00, 0xff, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80,
	0x91, 0xa2, 0xb3, 0xc4, 0xd5, 0xe6, 0xf7, 0x08, 0x19, 0x2a,
	0x3b, 0x4c, 0x5d, 0x6e, 0x7f, 0x80, 0x91, 0xa2, 0xb3, 0xc4,
};

/* Toeplitz hash of a frame's tuple; false when the frame is not TCP/UDP over IP. */
static bool
frame_hash(const struct rte_mbuf *m, const uint8_t *key, uint32_t *hash)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	union rte_thash_tuple t;
	const uint8_t *l4;
	uint8_t proto;

	memset(&t, 0, sizeof(t));
	if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);

		proto = ip->next_proto_id;
		l4 = (const uint8_t *)(ip + 1);
		t.v4.src_addr = rte_be_to_cpu_32(ip->src_addr);
		t.v4.dst_addr = rte_be_to_cpu_32(ip->dst_addr);
		if (proto != IPPROTO_UDP && proto != IPPROTO_TCP)
			return false;
		t.v4.sport = rte_be_to_cpu_16(*(const unaligned_uint16_t *)l4);
		t.v4.dport = rte_be_to_cpu_16(*(const unaligned_uint16_t *)(l4 + 2));
		*hash = rte_softrss((uint32_t *)&t, RTE_THASH_V4_L4_LEN, key);
		return true;
	}
	if (eth->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6)) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(eth + 1);

		proto = ip->proto;
		l4 = (const uint8_t *)(ip + 1);
		if (proto != IPPROTO_UDP && proto != IPPROTO_TCP)
			return false;
		rte_thash_load_v6_addrs(ip, &t);
		t.v6.sport = rte_be_to_cpu_16(*(const unaligned_uint16_t *)l4);
		t.v6.dport = rte_be_to_cpu_16(*(const unaligned_uint16_t *)(l4 + 2));
		*hash = rte_softrss((uint32_t *)&t, RTE_THASH_V6_L4_LEN, key);
		return true;
	}
	return false;
}

static int
reta_get(uint16_t pid, uint16_t reta[64])
{
	struct rte_eth_rss_reta_entry64 r[1];
	int ret, i;

	memset(r, 0, sizeof(r));
	r[0].mask = UINT64_MAX;
	ret = rte_eth_dev_rss_reta_query(pid, r, 64);
	for (i = 0; i < 64; i++)
		reta[i] = r[0].reta[i];
	return ret;
}

static int
reta_set(uint16_t pid, const uint16_t reta[64])
{
	struct rte_eth_rss_reta_entry64 r[1];
	int i;

	memset(r, 0, sizeof(r));
	r[0].mask = UINT64_MAX;
	for (i = 0; i < 64; i++)
		r[0].reta[i] = reta[i];
	return rte_eth_dev_rss_reta_update(pid, r, 64);
}

/*
 * Receive `want` frames on queues [0, nq) and check hash, flag and queue of
 * each against key and reta. Returns the frames received; per_q counts them.
 */
static uint32_t
rx_check_rss(uint16_t pid, uint16_t nq, uint32_t want, const uint8_t *key,
	     const uint16_t reta[64], uint32_t *per_q)
{
	uint64_t end = comp_now_ms() + COMP_WAIT_MS;
	struct rte_mbuf *b[32];
	uint32_t got = 0, bad = 0, hash, i;
	uint16_t q, n;

	memset(per_q, 0, sizeof(*per_q) * nq);
	while (got < want && comp_now_ms() < end) {
		for (q = 0; q < nq; q++) {
			n = rte_eth_rx_burst(pid, q, b, RTE_DIM(b));
			for (i = 0; i < n; i++) {
				const struct rte_mbuf *m = b[i];

				if (!frame_hash(m, key, &hash)) {
					if (bad++ < 5)
						comp_fail(__FILE__, __LINE__, "queue %u: frame not "
							  "TCP/UDP over IP", q);
					continue;
				}
				if (bad < 5 && (!(m->ol_flags & RTE_MBUF_F_RX_RSS_HASH) ||
						m->hash.rss != hash || reta[hash & 63] != q)) {
					comp_fail(__FILE__, __LINE__, "frame on queue %u: flag %d, "
						  "hash.rss %08x, expected %08x -> entry %u -> "
						  "queue %u", q,
						  !!(m->ol_flags & RTE_MBUF_F_RX_RSS_HASH),
						  m->hash.rss, hash, hash & 63, reta[hash & 63]);
					bad++;
				}
			}
			rte_pktmbuf_free_bulk(b, n);
			per_q[q] += n;
			got += n;
		}
	}
	return got;
}

/* INJ_COUNT frames, IPv4 UDP/TCP and IPv6 UDP/TCP, every tuple different. */
static void
inject_mix(struct mana_model *m, const struct rte_ether_addr *mac)
{
	uint8_t buf[256];
	struct comp_frame f;
	uint32_t i;

	for (i = 0; i < INJ_COUNT; i++) {
		comp_frame_default(&f);
		f.dst = *mac;
		f.proto = i & 1 ? IPPROTO_TCP : IPPROTO_UDP;
		f.ipv6 = (i & 2) != 0;
		f.sip = COMP_IPV4(172, 16, i & 0xff, 7);
		f.dip = COMP_IPV4(10, 9, 8, (i * 13) & 0xff);
		f.sip6[15] = (uint8_t)i;
		f.dip6[3] = (uint8_t)(i * 7);
		f.sport = (uint16_t)(40000 + i * 3);
		f.dport = (uint16_t)(80 + (i % 5));
		f.len = 128;
		comp_frame_build(buf, &f);
		REQUIRE_EQ(mana_model_inject_rx(m, 0, buf, f.len), 0);
	}
}

static void
rss_case(uint16_t nq)
{
	struct comp_port_cfg pc = {
		.nb_rxq = nq, .nb_txq = 1, .rss = true, .rss_key = key1,
		.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP |
			  RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_IPV6 |
			  RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_NONFRAG_IPV6_TCP,
	};
	uint16_t reta[64], perm[64], bad[64];
	uint32_t per_q[MAX_Q], got, q, i;
	struct rte_eth_rss_conf rc;
	struct rte_ether_addr mac;
	struct rte_mempool *mp;
	struct mana_model *m;
	uint8_t key[40];
	char name[32], pool[32];
	int pid;

	snprintf(name, sizeof(name), "net_mana_rss%u", nq);
	snprintf(pool, sizeof(pool), "rss_pool%u", nq);
	REQUIRE_EQ(comp_vdev_create(name, "wire=gen:flows=256:len=128:count=2048:lossless=1"), 0);
	pid = comp_port_of(name, 0);
	m = mana_model_find(name);
	REQUIRE(pid >= 0 && m != NULL);
	rte_eth_macaddr_get(pid, &mac);
	mp = comp_pool(pool, nq * 256 + 1024, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);

	/* Default table: queue i % nq; the configured key is in use. */
	REQUIRE_EQ(reta_get(pid, reta), 0);
	for (i = 0; i < 64; i++)
		CHECK_EQ(reta[i], i % nq);
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = key;
	rc.rss_key_len = sizeof(key);
	CHECK_EQ(rte_eth_dev_rss_hash_conf_get(pid, &rc), 0);
	CHECK(memcmp(key, key1, 40) == 0);

	got = rx_check_rss(pid, nq, GEN_COUNT, key1, reta, per_q);
	CHECK_EQ(got, GEN_COUNT);
	for (q = 0; q < nq; q++)
		CHECK_MSG(per_q[q] > 0, "%u queues, 256 flows: queue %u got nothing", nq, q);

	/* A permutation of the queues, repeated, and a new key. */
	for (i = 0; i < nq; i++)
		perm[i] = (uint16_t)((3 * i + 1) & (nq - 1));
	for (i = 0; i < 64; i++)
		perm[i] = perm[i % nq];
	/* Given to the running port: the next frames follow them. */
	CHECK_EQ(reta_set(pid, perm), 0);
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = (uint8_t *)(uintptr_t)key2;
	rc.rss_key_len = 40;
	rc.rss_hf = pc.rss_hf;
	CHECK_EQ(rte_eth_dev_rss_hash_update(pid, &rc), 0);
	REQUIRE_EQ(reta_get(pid, reta), 0);
	for (i = 0; i < 64; i++)
		CHECK_EQ(reta[i], perm[i]);
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = key;
	rc.rss_key_len = sizeof(key);
	CHECK_EQ(rte_eth_dev_rss_hash_conf_get(pid, &rc), 0);
	CHECK(memcmp(key, key2, 40) == 0);
	inject_mix(m, &mac);
	got = rx_check_rss(pid, nq, INJ_COUNT, key2, perm, per_q);
	CHECK_EQ(got, INJ_COUNT);

	/* Stop, update, start. */
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(reta_set(pid, perm), 0);
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = (uint8_t *)(uintptr_t)key2;
	rc.rss_key_len = 40;
	rc.rss_hf = pc.rss_hf;
	CHECK_EQ(rte_eth_dev_rss_hash_update(pid, &rc), 0);
	REQUIRE_EQ(reta_get(pid, reta), 0);
	for (i = 0; i < 64; i++)
		CHECK_EQ(reta[i], perm[i]);

	/* Tables the device cannot express: refused, nothing changes. */
	if (nq >= 4) {
		memcpy(bad, perm, sizeof(bad));
		bad[1] = bad[0];		/* nq - 1 distinct queues: not 2^n */
		for (i = 0; i < 64; i++)
			bad[i] = bad[i % nq];
		CHECK_EQ(reta_set(pid, bad), -EINVAL);
	}
	memcpy(bad, perm, sizeof(bad));
	bad[nq] = perm[1];			/* entry nq differs from entry 0 */
	CHECK_EQ(reta_set(pid, bad), -EINVAL);
	memcpy(bad, perm, sizeof(bad));
	bad[5] = nq;				/* no such queue */
	CHECK_EQ(reta_set(pid, bad), -EINVAL);
	REQUIRE_EQ(reta_get(pid, reta), 0);
	for (i = 0; i < 64; i++)
		CHECK_EQ(reta[i], perm[i]);
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = (uint8_t *)(uintptr_t)key1;
	rc.rss_key_len = 16;			/* the device takes 40 bytes only */
	CHECK(rte_eth_dev_rss_hash_update(pid, &rc) < 0);

	/* Steering with key2 and perm after the start. */
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	CHECK_EQ(comp_rx_drain(pid, nq, 20), 0);
	inject_mix(m, &mac);
	got = rx_check_rss(pid, nq, INJ_COUNT, key2, perm, per_q);
	CHECK_EQ(got, INJ_COUNT);

	/* Restart keeps the application's table and key. */
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	REQUIRE_EQ(reta_get(pid, reta), 0);
	for (i = 0; i < 64; i++)
		CHECK_EQ(reta[i], perm[i]);
	inject_mix(m, &mac);
	got = rx_check_rss(pid, nq, INJ_COUNT, key2, perm, per_q);
	CHECK_EQ(got, INJ_COUNT);

	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy(name);
	CHECK_EQ(rte_mempool_avail_count(mp), nq * 256 + 1024);
	rte_mempool_free(mp);
}

static void
test_rss2(void)
{
	rss_case(2);
}

static void
test_rss4(void)
{
	rss_case(4);
}

static void
test_rss8(void)
{
	rss_case(8);
}

/* Update only the entries in `mask` (one bit per entry) to the queues of t. */
static int
reta_set_masked(uint16_t pid, const uint16_t t[64], uint64_t mask)
{
	struct rte_eth_rss_reta_entry64 r[1];
	int i;

	memset(r, 0, sizeof(r));
	r[0].mask = mask;
	for (i = 0; i < 64; i++)
		r[0].reta[i] = (mask >> i) & 1 ? t[i] : UINT16_MAX;
	return rte_eth_dev_rss_reta_update(pid, r, 64);
}

/* The entries i with i % nq in `slots` (bit s: slot s). */
static uint64_t
reta_class_mask(uint16_t nq, uint64_t slots)
{
	uint64_t m = 0;
	int i;

	for (i = 0; i < 64; i++)
		if ((slots >> (i % nq)) & 1)
			m |= 1ull << i;
	return m;
}

/* A refused update logs exactly `want` and leaves the table `keep`. */
static void
reta_refused(uint16_t pid, const uint16_t t[64], uint64_t mask, const char *want,
	     const uint16_t keep[64])
{
	uint16_t got[64];
	char log[4096];
	FILE *f;
	int i;

	f = comp_log_begin(log, sizeof(log));
	REQUIRE(f != NULL);
	CHECK_EQ(reta_set_masked(pid, t, mask), -EINVAL);
	comp_log_end(f);
	CHECK_MSG(strstr(log, want) != NULL, "want '%s'; log: %s", want, log);
	REQUIRE_EQ(reta_get(pid, got), 0);
	for (i = 0; i < 64; i++)
		CHECK_EQ(got[i], keep[i]);
}

/* The table in effect is `t`: ethdev's query says so and injected frames follow it. */
static void
reta_in_effect(uint16_t pid, uint16_t nq, struct mana_model *m,
	       const struct rte_ether_addr *mac, const uint16_t t[64])
{
	uint32_t per_q[MAX_Q], q;
	uint16_t got[64];
	int i;

	REQUIRE_EQ(reta_get(pid, got), 0);
	for (i = 0; i < 64; i++)
		CHECK_MSG(got[i] == t[i], "entry %d: queue %u, want %u", i, got[i], t[i]);
	inject_mix(m, mac);
	CHECK_EQ(rx_check_rss(pid, nq, INJ_COUNT, key1, t, per_q), INJ_COUNT);
	for (q = 0; q < nq; q++)
		CHECK_MSG(per_q[q] > 0, "queue %u got nothing of %u frames", q, INJ_COUNT);
}

/*
 * Partial RETA updates (issue 31): the entries of the mask merged with the
 * table in effect, accepted when the merge is a permutation of the queues
 * repeated every nq entries, else refused with one line naming the entries
 * and what would pass; the table in effect is then unchanged.
 */
static void
reta_partial_case(uint16_t nq)
{
	struct comp_port_cfg pc = {
		.nb_rxq = nq, .nb_txq = 1, .rss = true, .rss_key = key1,
		.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP |
			  RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_IPV6 |
			  RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_NONFRAG_IPV6_TCP,
	};
	uint16_t cur[64], t[64];
	struct rte_ether_addr mac;
	struct rte_mempool *mp;
	struct mana_model *m;
	char name[32], pool[32], want[256], cls[32];
	int pid, i;

	snprintf(name, sizeof(name), "net_mana_retap%u", nq);
	snprintf(pool, sizeof(pool), "retap_pool%u", nq);
	REQUIRE_EQ(comp_vdev_create(name, ""), 0);
	pid = comp_port_of(name, 0);
	m = mana_model_find(name);
	REQUIRE(pid >= 0 && m != NULL);
	rte_eth_macaddr_get(pid, &mac);
	mp = comp_pool(pool, nq * 256 + 1024, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	for (i = 0; i < 64; i++)
		cur[i] = i % nq;

	/* testpmd's "port config 0 rss reta (0,1)(1,0)": the copies keep the old queues. */
	memcpy(t, cur, sizeof(t));
	t[0] = 1;
	t[1] = 0;
	if (nq == 4)
		snprintf(cls, sizeof(cls), "0, 4, ..., 60");
	else
		snprintf(cls, sizeof(cls), "0, 8, ..., 56");
	snprintf(want, sizeof(want), "port %d: RETA entry %u = queue 0 (kept) but entry 0 = "
		 "queue 1 (updated): with %u distinct queues (%s) the device repeats entries "
		 "0..%u over its 64, so entries %s must name the same queue", pid, nq, nq,
		 nq == 4 ? "0, 1, 2 and 3" : "0, 1, 2, 3, 4, 5, 6 and 7", nq - 1, cls);
	reta_refused(pid, t, 0x3, want, cur);

	/* Every copy of entry 0 to queue 1, entry 1 kept: nq - 1 distinct queues. */
	for (i = 0; i < 64; i++)
		t[i] = i % nq == 0 ? 1 : cur[i];
	snprintf(want, sizeof(want), "port %d: RETA names %u distinct queues (%s); the "
		 "device's table holds 1, 2, 4, ... distinct queues, each once, repeated over "
		 "the 64 entries", pid, nq - 1, nq == 4 ? "1, 2 and 3" : "1, 2, 3, 4, 5, 6 and 7");
	reta_refused(pid, t, reta_class_mask(nq, 0x1), want, cur);

	/* Entry 5 alone to the queue it already has: a no-op, accepted. */
	CHECK_EQ(reta_set_masked(pid, cur, 1ull << 5), 0);

	/* Queues 0 and 1 swapped in all their entries (2 * 64 / nq of them). */
	for (i = 0; i < 64; i++)
		t[i] = i % nq == 0 ? 1 : i % nq == 1 ? 0 : cur[i];
	CHECK_EQ(reta_set_masked(pid, t, reta_class_mask(nq, 0x3)), 0);
	memcpy(cur, t, sizeof(cur));
	reta_in_effect(pid, nq, m, &mac, cur);

	/* Then the last two slots swapped: merged with that table, not the default. */
	for (i = 0; i < 64; i++)
		t[i] = i % nq == nq - 2 ? nq - 1 : i % nq == nq - 1 ? nq - 2 : 0xdead;
	CHECK_EQ(reta_set_masked(pid, t, reta_class_mask(nq, 3ull << (nq - 2))), 0);
	for (i = 0; i < 64; i++)
		if (i % nq >= nq - 2)
			cur[i] = t[i];
	reta_in_effect(pid, nq, m, &mac, cur);

	/* On a stopped port: stored, in effect after the start. */
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	for (i = 0; i < 64; i++)
		t[i] = i % nq == 0 ? cur[1] : i % nq == 1 ? cur[0] : 0xdead;
	CHECK_EQ(reta_set_masked(pid, t, reta_class_mask(nq, 0x3)), 0);
	for (i = 0; i < 64; i++)
		if (i % nq < 2)
			cur[i] = t[i];
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	CHECK_EQ(comp_rx_drain(pid, nq, 20), 0);
	reta_in_effect(pid, nq, m, &mac, cur);

	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy(name);
	CHECK_EQ(rte_mempool_avail_count(mp), nq * 256 + 1024);
	rte_mempool_free(mp);
}

static void
test_reta_partial4(void)
{
	reta_partial_case(4);
}

static void
test_reta_partial8(void)
{
	reta_partial_case(8);
}

/* ERR_RECOVERING callback: holds the EAL interrupt thread until released. */
static struct {
	uint32_t entered, release, success;
} hold;

static int
hold_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	uint64_t end = comp_now_ms() + COMP_WAIT_MS;

	RTE_SET_USED(port);
	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (type == RTE_ETH_EVENT_RECOVERY_SUCCESS) {
		__atomic_store_n(&hold.success, 1, __ATOMIC_RELEASE);
		return 0;
	}
	__atomic_store_n(&hold.entered, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&hold.release, __ATOMIC_ACQUIRE) && comp_now_ms() < end)
		comp_sleep_ms(1);
	return 0;
}

static bool
hold_wait(uint32_t *flag)
{
	uint64_t end = comp_now_ms() + COMP_WAIT_MS;

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (comp_now_ms() > end)
			return false;
		comp_sleep_ms(1);
	}
	return true;
}

/*
 * A merged table that cannot be put in effect leaves the old one: the device
 * is reset while the driver has not yet seen the event (its ERR_RECOVERING
 * callback holds the interrupt thread before the driver marks the reset), so
 * building the started port's RX side again over the new table fails. The
 * update returns the error, reta_query still gives the old table (a new key
 * likewise leaves the old one), and after the recovery and a restart the
 * frames follow the old table and key.
 */
static void
test_reta_update_fails(void)
{
	struct comp_port_cfg pc = {
		.nb_rxq = 4, .nb_txq = 1, .rss = true, .rss_key = key1,
		.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP |
			  RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_IPV6 |
			  RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_NONFRAG_IPV6_TCP,
	};
	static const uint16_t perm4[4] = { 2, 3, 0, 1 };
	uint16_t cur[64], t[64];
	struct rte_eth_rss_conf rc;
	uint8_t key[40];
	struct rte_ether_addr mac;
	struct rte_mempool *mp;
	struct mana_model *m;
	int pid, i, ret;

	REQUIRE_EQ(comp_vdev_create("net_mana_retaf", ""), 0);
	pid = comp_port_of("net_mana_retaf", 0);
	m = mana_model_find("net_mana_retaf");
	REQUIRE(pid >= 0 && m != NULL);
	rte_eth_macaddr_get(pid, &mac);
	mp = comp_pool("retaf_pool", 4 * 256 + 1024, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	for (i = 0; i < 64; i++)
		cur[i] = perm4[i % 4];
	CHECK_EQ(reta_set(pid, cur), 0);

	REQUIRE_EQ(rte_eth_dev_callback_register(pid, RTE_ETH_EVENT_ERR_RECOVERING, hold_cb,
						 NULL), 0);
	REQUIRE_EQ(rte_eth_dev_callback_register(pid, RTE_ETH_EVENT_RECOVERY_SUCCESS, hold_cb,
						 NULL), 0);
	REQUIRE_EQ(mana_model_reset(m, 50), 0);
	REQUIRE(hold_wait(&hold.entered));
	/* Queues 2 and 0 swapped (entries 0 mod 4 and 2 mod 4): a table the device takes. */
	for (i = 0; i < 64; i++)
		t[i] = cur[(i + 2) % 4];
	ret = reta_set_masked(pid, t, reta_class_mask(4, 0x5));
	CHECK_MSG(ret < 0, "update on a device that is down: %d", ret);
	REQUIRE_EQ(reta_get(pid, t), 0);
	for (i = 0; i < 64; i++)
		CHECK_MSG(t[i] == cur[i], "entry %d: queue %u, want the old %u", i, t[i], cur[i]);
	/* The key likewise: refused, key1 stays (reta_in_effect below hashes with key1). */
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = (uint8_t *)(uintptr_t)key2;
	rc.rss_key_len = 40;
	rc.rss_hf = pc.rss_hf;
	ret = rte_eth_dev_rss_hash_update(pid, &rc);
	CHECK_MSG(ret < 0, "key update on a device that is down: %d", ret);
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = key;
	rc.rss_key_len = sizeof(key);
	CHECK_EQ(rte_eth_dev_rss_hash_conf_get(pid, &rc), 0);
	CHECK(memcmp(key, key1, 40) == 0);
	__atomic_store_n(&hold.release, 1, __ATOMIC_RELEASE);
	REQUIRE(hold_wait(&hold.success));
	rte_eth_dev_callback_unregister(pid, RTE_ETH_EVENT_ERR_RECOVERING, hold_cb, NULL);
	rte_eth_dev_callback_unregister(pid, RTE_ETH_EVENT_RECOVERY_SUCCESS, hold_cb, NULL);

	/* The failed rebuild stopped every RX queue: a restart brings them back. */
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	CHECK_EQ(comp_rx_drain(pid, 4, 20), 0);
	reta_in_effect(pid, 4, m, &mac, cur);

	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_retaf");
	CHECK_EQ(rte_mempool_avail_count(mp), 4 * 256 + 1024);
	rte_mempool_free(mp);
}

/*
 * The table in effect is `t` over `in` (bit q: queue q named): ethdev's query
 * says so, frames arrive on those queues only and each of them gets some, the
 * device has RQ objects for those queues only (the others' WQs have none)
 * and refused no doorbell.
 */
static void
subset_in_effect(uint16_t pid, uint16_t nq, struct mana_model *m,
		 const struct rte_ether_addr *mac, const uint16_t t[64], uint32_t in)
{
	struct mana_model_engine_thread_stats es;
	struct mana_model_port_stats ps;
	uint32_t per_q[MAX_Q], q, rqs = 0;
	uint16_t got[64];
	unsigned int e;
	int i;

	REQUIRE_EQ(reta_get(pid, got), 0);
	for (i = 0; i < 64; i++)
		CHECK_MSG(got[i] == t[i], "entry %d: queue %u, want %u", i, got[i], t[i]);
	inject_mix(m, mac);
	CHECK_EQ(rx_check_rss(pid, nq, INJ_COUNT, key1, t, per_q), INJ_COUNT);
	for (q = 0; q < nq; q++) {
		if ((in >> q) & 1)
			CHECK_MSG(per_q[q] > 0, "queue %u (in the table) got nothing", q);
		else
			CHECK_MSG(per_q[q] == 0, "queue %u (not in the table) got %u", q,
				  per_q[q]);
	}
	for (e = 0; mana_model_engine_thread_stats(m, e, &es) == 0; e++)
		rqs += es.rqs;
	CHECK_EQ(rqs, (uint32_t)__builtin_popcount(in));
	REQUIRE_EQ(mana_model_port_stats(m, 0, &ps), 0);
	CHECK_EQ(ps.db_rejected, 0);
	CHECK_EQ(ps.queue_errors, 0);
}

/* Hardware id of the RQ the device retired last (0: none): a rebuild retires some. */
static uint32_t
newest_retired(const struct mana_model *m)
{
	struct mana_model_queue_stats st;
	uint32_t id, last = 0;
	unsigned int i;

	for (i = 0; mana_model_retired_queue_stats(m, i, &id, &st) == 0; i++)
		last = id;
	return last;
}

/*
 * A RETA over a subset of the queues (issue 31; DTS pmd_rss
 * reta_key_reta_queues_*_const0): the device's table holds 2^n distinct WQs,
 * one included, and the queues it leaves out are idle (hardware.md §6).
 */
static void
reta_subset_case(uint16_t nq)
{
	struct comp_port_cfg pc = {
		/*
		 * 512 descriptors: a table of one queue sends all INJ_COUNT frames
		 * to it at once, more than a 256-deep ring holds if the burst
		 * lags the device (NEON under qemu-user does).
		 */
		.nb_rxq = nq, .nb_txq = 1, .nb_desc = 512, .rss = true, .rss_key = key1,
		.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP |
			  RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_IPV6 |
			  RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_NONFRAG_IPV6_TCP,
	};
	uint16_t cur[64], t[64], last = nq - 1;
	struct mana_model_port_stats ps;
	struct rte_ether_addr mac;
	uint64_t drops, end;
	uint32_t retired;
	struct rte_mempool *mp;
	struct mana_model *m;
	char name[32], pool[32], want[256];
	uint32_t all = (1u << nq) - 1;
	int pid, i;

	snprintf(name, sizeof(name), "net_mana_retas%u", nq);
	snprintf(pool, sizeof(pool), "retas_pool%u", nq);
	REQUIRE_EQ(comp_vdev_create(name, "rdma_core=56"), 0);
	pid = comp_port_of(name, 0);
	m = mana_model_find(name);
	REQUIRE(pid >= 0 && m != NULL);
	rte_eth_macaddr_get(pid, &mac);
	mp = comp_pool(pool, nq * 512 + 1024, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);

	/* DTS const0: all 64 entries to queue 0, a table of one WQ. */
	memset(cur, 0, sizeof(cur));
	CHECK_EQ(reta_set(pid, cur), 0);
	subset_in_effect(pid, nq, m, &mac, cur, 0x1);

	/* The last queue (idle) stopped and started: only its state changes, no rebuild. */
	retired = newest_retired(m);
	CHECK(retired != 0);
	CHECK_EQ(rte_eth_dev_rx_queue_stop(pid, last), 0);
	CHECK_EQ(rte_eth_dev_rx_queue_start(pid, last), 0);
	CHECK_EQ(newest_retired(m), retired);
	subset_in_effect(pid, nq, m, &mac, cur, 0x1);

	/* Stopped, set up again at run time, started: still idle. */
	CHECK_EQ(rte_eth_dev_rx_queue_stop(pid, last), 0);
	CHECK_EQ(rte_eth_rx_queue_setup(pid, last, 512, rte_eth_dev_socket_id(pid), NULL, mp), 0);
	CHECK_EQ(rte_eth_dev_rx_queue_start(pid, last), 0);
	subset_in_effect(pid, nq, m, &mac, cur, 0x1);

	/* Queue 0 stopped: its WQ stays the table's, with no buffer; the device drops. */
	CHECK_EQ(rte_eth_dev_rx_queue_stop(pid, 0), 0);
	REQUIRE_EQ(mana_model_port_stats(m, 0, &ps), 0);
	drops = ps.rx_drop_no_wqe;
	inject_mix(m, &mac);
	end = comp_now_ms() + COMP_WAIT_MS;
	while (ps.rx_drop_no_wqe - drops < INJ_COUNT && comp_now_ms() < end) {
		comp_sleep_ms(1);
		REQUIRE_EQ(mana_model_port_stats(m, 0, &ps), 0);
	}
	CHECK_EQ(ps.rx_drop_no_wqe - drops, INJ_COUNT);
	CHECK_EQ(comp_rx_drain(pid, nq, 20), 0);
	CHECK_EQ(rte_eth_dev_rx_queue_start(pid, 0), 0);
	subset_in_effect(pid, nq, m, &mac, cur, 0x1);

	/* The odd entries alone to the last queue: a table over {0, last}. */
	for (i = 0; i < 64; i++)
		t[i] = i & 1 ? last : 0xdead;
	CHECK_EQ(reta_set_masked(pid, t, 0xaaaaaaaaaaaaaaaaull), 0);
	for (i = 0; i < 64; i++)
		cur[i] = i & 1 ? last : 0;
	subset_in_effect(pid, nq, m, &mac, cur, 1u | 1u << last);

	/* Three distinct queues: refused, the table stays. */
	if (nq >= 4) {
		for (i = 0; i < 64; i++)
			t[i] = i % 4 == 2 ? 1 : 0xdead;
		snprintf(want, sizeof(want), "port %d: RETA names 3 distinct queues (0, 1 and "
			 "%u); the device's table holds 1, 2, 4, ... distinct queues, each once, "
			 "repeated over the 64 entries", pid, last);
		reta_refused(pid, t, reta_class_mask(4, 0x4), want, cur);
	}

	/* Restart and a device reset (recovery) keep the table and the idle queues. */
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_eth_dev_start(pid), 0);
	CHECK_EQ(comp_rx_drain(pid, nq, 20), 0);
	subset_in_effect(pid, nq, m, &mac, cur, 1u | 1u << last);
	memset(&hold, 0, sizeof(hold));
	hold.release = 1;
	REQUIRE_EQ(rte_eth_dev_callback_register(pid, RTE_ETH_EVENT_RECOVERY_SUCCESS, hold_cb,
						 NULL), 0);
	REQUIRE_EQ(mana_model_reset(m, 20), 0);
	REQUIRE(hold_wait(&hold.success));
	rte_eth_dev_callback_unregister(pid, RTE_ETH_EVENT_RECOVERY_SUCCESS, hold_cb, NULL);
	CHECK_EQ(comp_rx_drain(pid, nq, 20), 0);
	subset_in_effect(pid, nq, m, &mac, cur, 1u | 1u << last);

	/* Configured again with the same queue count: the table stays. */
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	CHECK_EQ(comp_rx_drain(pid, nq, 20), 0);
	subset_in_effect(pid, nq, m, &mac, cur, 1u | 1u << last);

	/* Back to every queue. */
	for (i = 0; i < 64; i++)
		cur[i] = i % nq;
	CHECK_EQ(reta_set(pid, cur), 0);
	subset_in_effect(pid, nq, m, &mac, cur, all);

	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy(name);
	CHECK_EQ(rte_mempool_avail_count(mp), nq * 512 + 1024);
	rte_mempool_free(mp);
}

static void
test_reta_subset2(void)
{
	reta_subset_case(2);
}

static void
test_reta_subset16(void)
{
	reta_subset_case(16);
}

/* Non-IP frames carry no hash and go to the table's last queue (the default RX object). */
static void
test_non_ip(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 4, .nb_txq = 1, .rss = true,
				    .rss_hf = RTE_ETH_RSS_IPV4 };
	static const uint16_t perm4[4] = { 2, 0, 3, 1 };
	struct rte_mbuf *b[32];
	uint16_t reta[64], q, n, i;
	uint8_t arp[60];
	struct rte_mempool *mp;
	struct mana_model *m;
	uint32_t got = 0;
	uint64_t end;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_rssx", ""), 0);
	pid = comp_port_of("net_mana_rssx", 0);
	m = mana_model_find("net_mana_rssx");
	REQUIRE(pid >= 0 && m != NULL);
	mp = comp_pool("rssx_pool", 2048, RTE_MBUF_DEFAULT_BUF_SIZE);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	for (i = 0; i < 64; i++)
		reta[i] = perm4[i % 4];
	CHECK_EQ(reta_set(pid, reta), 0);
	memset(arp, 0, sizeof(arp));
	memset(arp, 0xff, 6);
	arp[6] = 0x02;
	arp[11] = 0x09;
	arp[12] = 0x08;
	arp[13] = 0x06;
	for (i = 0; i < 16; i++) {
		arp[20] = (uint8_t)i;
		REQUIRE_EQ(mana_model_inject_rx(m, 0, arp, sizeof(arp)), 0);
	}
	end = comp_now_ms() + COMP_WAIT_MS;
	while (got < 16 && comp_now_ms() < end) {
		for (q = 0; q < 4; q++) {
			n = rte_eth_rx_burst(pid, q, b, RTE_DIM(b));
			for (i = 0; i < n; i++) {
				CHECK_EQ(q, perm4[3]);
				CHECK(!(b[i]->ol_flags & RTE_MBUF_F_RX_RSS_HASH));
				CHECK_EQ(b[i]->pkt_len, sizeof(arp));
			}
			rte_pktmbuf_free_bulk(b, n);
			got += n;
		}
	}
	CHECK_EQ(got, 16);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_rssx");
	rte_mempool_free(mp);
}

static const struct comp_case cases[] = {
	{ "rss2", test_rss2 },
	{ "rss4", test_rss4 },
	{ "rss8", test_rss8 },
	{ "non_ip", test_non_ip },
	{ "reta_partial4", test_reta_partial4 },
	{ "reta_partial8", test_reta_partial8 },
	{ "reta_update_fails", test_reta_update_fails },
	{ "reta_subset2", test_reta_subset2 },
	{ "reta_subset16", test_reta_subset16 },
};

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
