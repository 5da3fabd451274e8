/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * TX checksum offload (after rte_eth_tx_prepare) checked twice: by the RX
 * side of a pair wire (bytes and RX checksum flags) and by a sink wire's own
 * verification; wrong checksums sent without offload are flagged bad.
 * Multi-segment TX up to the SGE limit arrives as one frame with the right
 * bytes; one segment more is refused by tx_prepare and stops tx_burst.
 * A frame larger than the RX buffer is dropped and counted as truncated.
 * RX checksum flags of IPv6 (header good), IPv4 and non-IP frames.
 */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "comp.h"

#define TX_OFFLOADS (RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM | \
		     RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_MULTI_SEGS)

static struct rte_mempool *ck_pool;
static int ck_p0 = -1, ck_p1 = -1, ck_sink = -1;

/* Ports of vdev net_mana_ck: 0 <-> 1 on a pair wire, 2 on a sink (wire none). */
static int
ck_setup(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1, .tx_offloads = TX_OFFLOADS };

	if (ck_p0 >= 0)
		return 0;
	/* Port 1 has the MAC comp_frame_default sends to: a vPort drops other unicast. */
	if (comp_vdev_create("net_mana_ck", "ports=3,wire=pair:1,wire=pair:0,wire=none,"
			     "mac1=02:00:00:00:00:03") != 0)
		return -1;
	ck_pool = comp_pool("ck_pool", 4096, RTE_MBUF_DEFAULT_BUF_SIZE);
	ck_p0 = comp_port_of("net_mana_ck", 0);
	ck_p1 = comp_port_of("net_mana_ck", 1);
	ck_sink = comp_port_of("net_mana_ck", 2);
	if (ck_pool == NULL || ck_p0 < 0 || ck_p1 < 0 || ck_sink < 0 ||
	    comp_port_start(ck_p0, &pc, ck_pool) != 0 ||
	    comp_port_start(ck_p1, &pc, ck_pool) != 0 ||
	    comp_port_start(ck_sink, &pc, ck_pool) != 0)
		return -1;
	return 0;
}

static void
set_offload(struct rte_mbuf *m, const struct comp_frame *f)
{
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = f->ipv6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
	m->ol_flags = f->ipv6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	m->ol_flags |= f->proto == IPPROTO_TCP ? RTE_MBUF_F_TX_TCP_CKSUM : RTE_MBUF_F_TX_UDP_CKSUM;
}

/* Send one mbuf from ck_p0 and return what ck_p1 receives (or NULL). */
static struct rte_mbuf *
pair_xfer(struct rte_mbuf *m)
{
	struct rte_mbuf *rx[2];
	uint32_t got;

	if (comp_tx_all(ck_p0, 0, &m, 1, COMP_WAIT_MS) != 1) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	got = comp_rx_wait(ck_p1, 1, rx, 2, 1, COMP_WAIT_MS, NULL);
	if (got != 1) {
		comp_free(rx, got > 2 ? 2 : got);
		return NULL;
	}
	return rx[0];
}

static void
test_csum_pair(void)
{
	uint8_t ref[1500], raw[1500];
	struct rte_mbuf *m, *r;
	struct comp_frame f;
	unsigned int v;

	REQUIRE_EQ(ck_setup(), 0);
	for (v = 0; v < 8; v++) {
		comp_frame_default(&f);
		f.proto = v & 1 ? IPPROTO_TCP : IPPROTO_UDP;
		f.ipv6 = (v & 2) != 0;
		f.len = v & 4 ? 1400 : 90;
		f.seed = (uint8_t)v;
		comp_frame_build(ref, &f);
		f.zero_csums = true;
		comp_frame_build(raw, &f);
		m = comp_mbuf_from(ck_pool, raw, f.len);
		REQUIRE(m != NULL);
		set_offload(m, &f);
		REQUIRE_EQ(rte_eth_tx_prepare(ck_p0, 0, &m, 1), 1);
		r = pair_xfer(m);
		CHECK_MSG(r != NULL, "variant %u: nothing received", v);
		if (r == NULL)
			continue;
		CHECK_EQ(r->pkt_len, f.len);
		CHECK_MSG(memcmp(rte_pktmbuf_mtod(r, void *), ref, f.len) == 0,
			  "variant %u (%s/%s): frame differs from the correctly summed one", v,
			  f.ipv6 ? "IPv6" : "IPv4", f.proto == IPPROTO_TCP ? "TCP" : "UDP");
		CHECK_EQ(r->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK, RTE_MBUF_F_RX_L4_CKSUM_GOOD);
		if (!f.ipv6)
			CHECK_EQ(r->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK,
				 RTE_MBUF_F_RX_IP_CKSUM_GOOD);
		rte_pktmbuf_free(r);
	}

	/* Wrong checksums, no offload: delivered untouched and flagged bad. */
	for (v = 0; v < 4; v++) {
		comp_frame_default(&f);
		f.proto = v & 1 ? IPPROTO_TCP : IPPROTO_UDP;
		f.bad_l4_csum = (v & 2) == 0;
		f.bad_ip_csum = (v & 2) != 0;
		f.len = 200;
		comp_frame_build(raw, &f);
		m = comp_mbuf_from(ck_pool, raw, f.len);
		REQUIRE(m != NULL);
		r = pair_xfer(m);
		CHECK(r != NULL);
		if (r == NULL)
			continue;
		CHECK(memcmp(rte_pktmbuf_mtod(r, void *), raw, f.len) == 0);
		if (f.bad_l4_csum) {
			CHECK_EQ(r->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK,
				 RTE_MBUF_F_RX_L4_CKSUM_BAD);
			CHECK_EQ(r->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK,
				 RTE_MBUF_F_RX_IP_CKSUM_GOOD);
		} else {
			CHECK_EQ(r->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK,
				 RTE_MBUF_F_RX_IP_CKSUM_BAD);
		}
		rte_pktmbuf_free(r);
	}
}

/* Wait until the sink counted `frames`; returns its counters. */
static void
sink_wait(uint64_t frames, struct mana_model_port_stats *st)
{
	uint64_t end = comp_now_ms() + COMP_WAIT_MS;

	do {
		comp_model_stats("net_mana_ck", 2, st);
		if (st->wire_sink_frames >= frames)
			return;
		comp_sleep_ms(1);
	} while (comp_now_ms() < end);
}

static void
test_csum_sink(void)
{
	struct mana_model_port_stats st0, st;
	struct rte_mbuf *m[64];
	uint8_t raw[1500];
	struct comp_frame f;
	unsigned int i;

	REQUIRE_EQ(ck_setup(), 0);
	REQUIRE(comp_model_stats("net_mana_ck", 2, &st0));
	for (i = 0; i < RTE_DIM(m); i++) {
		comp_frame_default(&f);
		f.proto = i & 1 ? IPPROTO_TCP : IPPROTO_UDP;
		f.ipv6 = (i & 4) != 0;
		f.len = 60 + i * 20;
		f.seed = (uint8_t)i;
		f.zero_csums = true;
		comp_frame_build(raw, &f);
		m[i] = comp_mbuf_from(ck_pool, raw, f.len);
		REQUIRE(m[i] != NULL);
		set_offload(m[i], &f);
	}
	REQUIRE_EQ(rte_eth_tx_prepare(ck_sink, 0, m, RTE_DIM(m)), RTE_DIM(m));
	REQUIRE_EQ(comp_tx_all(ck_sink, 0, m, RTE_DIM(m), COMP_WAIT_MS), RTE_DIM(m));
	sink_wait(st0.wire_sink_frames + RTE_DIM(m), &st);
	CHECK_EQ(st.wire_sink_frames - st0.wire_sink_frames, RTE_DIM(m));
	CHECK_EQ(st.wire_sink_csum_ok - st0.wire_sink_csum_ok, RTE_DIM(m));
	CHECK_EQ(st.wire_sink_bad - st0.wire_sink_bad, 0);

	/* 8 frames with a wrong L4 checksum and no offload: the sink sees them bad. */
	st0 = st;
	for (i = 0; i < 8; i++) {
		comp_frame_default(&f);
		f.proto = i & 1 ? IPPROTO_TCP : IPPROTO_UDP;
		f.bad_l4_csum = true;
		comp_frame_build(raw, &f);
		m[i] = comp_mbuf_from(ck_pool, raw, f.len);
		REQUIRE(m[i] != NULL);
	}
	REQUIRE_EQ(comp_tx_all(ck_sink, 0, m, 8, COMP_WAIT_MS), 8);
	sink_wait(st0.wire_sink_frames + 8, &st);
	CHECK_EQ(st.wire_sink_frames - st0.wire_sink_frames, 8);
	CHECK_EQ(st.wire_sink_bad - st0.wire_sink_bad, 8);
	CHECK_EQ(st.wire_sink_csum_ok - st0.wire_sink_csum_ok, 0);
}

/* Chain the bytes of frame into nseg segments of roughly equal size. */
static struct rte_mbuf *
chain_from(const uint8_t *frame, uint32_t len, unsigned int nseg, uint32_t first_min)
{
	struct rte_mbuf *head = NULL, *seg;
	uint32_t off = 0, n, left;
	unsigned int i;

	for (i = 0; i < nseg; i++) {
		left = len - off;
		n = i == nseg - 1 ? left : left / (nseg - i);
		if (i == 0 && n < first_min)
			n = first_min;
		seg = comp_mbuf_from(ck_pool, frame + off, n);
		if (seg == NULL || (head != NULL && rte_pktmbuf_chain(head, seg) != 0)) {
			rte_pktmbuf_free(seg);
			rte_pktmbuf_free(head);
			return NULL;
		}
		if (head == NULL)
			head = seg;
		off += n;
	}
	return head;
}

static void
test_multiseg(void)
{
	static const unsigned int nsegs[] = { 2, 3, 5, 16, 30 };
	uint8_t ref[1500], raw[1500];
	struct rte_mbuf *m, *r, *burst[3];
	struct comp_frame f;
	int64_t segs0;
	unsigned int i;

	REQUIRE_EQ(ck_setup(), 0);
	comp_frame_default(&f);
	f.len = 1000;
	f.seed = 77;
	comp_frame_build(ref, &f);
	f.zero_csums = true;
	comp_frame_build(raw, &f);
	for (i = 0; i < RTE_DIM(nsegs); i++) {
		/* Plain, then with checksum offload (headers in the first segment). */
		m = chain_from(ref, f.len, nsegs[i], 0);
		REQUIRE(m != NULL);
		REQUIRE_EQ(m->nb_segs, nsegs[i]);
		REQUIRE_EQ(rte_eth_tx_prepare(ck_p0, 0, &m, 1), 1);
		r = pair_xfer(m);
		CHECK_MSG(r != NULL && r->pkt_len == f.len && r->nb_segs == 1 &&
			  memcmp(rte_pktmbuf_mtod(r, void *), ref, f.len) == 0,
			  "%u segments: frame not received intact", nsegs[i]);
		rte_pktmbuf_free(r);
		m = chain_from(raw, f.len, nsegs[i], 42);
		REQUIRE(m != NULL);
		set_offload(m, &f);
		REQUIRE_EQ(rte_eth_tx_prepare(ck_p0, 0, &m, 1), 1);
		r = pair_xfer(m);
		CHECK_MSG(r != NULL && r->pkt_len == f.len &&
			  memcmp(rte_pktmbuf_mtod(r, void *), ref, f.len) == 0,
			  "%u segments with checksum offload: frame wrong", nsegs[i]);
		rte_pktmbuf_free(r);
	}

	/* 31 segments: more than the device's 30 TX SGEs. */
	m = chain_from(ref, f.len, 31, 0);
	REQUIRE(m != NULL);
	rte_errno = 0;
	CHECK_EQ(rte_eth_tx_prepare(ck_p0, 0, &m, 1), 0);
	CHECK_EQ(rte_errno, EINVAL);
	/* tx_burst stops at it: only the packets before it are taken. */
	segs0 = comp_xstat(ck_p0, "tx_q0_too_many_segs");
	CHECK(segs0 >= 0);
	burst[0] = comp_mbuf_from(ck_pool, ref, f.len);
	burst[1] = m;
	burst[2] = comp_mbuf_from(ck_pool, ref, f.len);
	REQUIRE(burst[0] != NULL && burst[2] != NULL);
	CHECK_EQ(rte_eth_tx_burst(ck_p0, 0, burst, 3), 1);
	CHECK_EQ(comp_xstat(ck_p0, "tx_q0_too_many_segs"), segs0 + 1);
	rte_pktmbuf_free(burst[1]);
	CHECK_EQ(comp_tx_all(ck_p0, 0, &burst[2], 1, COMP_WAIT_MS), 1);
	CHECK_EQ(comp_rx_wait(ck_p1, 1, NULL, 0, 2, COMP_WAIT_MS, NULL), 2);
	CHECK_EQ(comp_rx_drain(ck_p1, 1, 20), 0);
}

static void
test_truncation(void)
{
	struct comp_port_cfg pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct mana_model_port_stats st;
	static const uint32_t lens[] = { 1600, 1518, 1519, 9000, 64 };
	static const bool fits[] = { false, true, false, false, true };
	uint8_t frame[9000];
	struct rte_eth_stats es;
	struct rte_mempool *mp;
	struct rte_mbuf *r;
	struct mana_model *m;
	struct comp_frame f;
	unsigned int i, dropped = 0;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_trunc", ""), 0);
	pid = comp_port_of("net_mana_trunc", 0);
	m = mana_model_find("net_mana_trunc");
	REQUIRE(pid >= 0 && m != NULL);
	/* Buffers exactly large enough for MTU 1500 + Ethernet header + VLAN tag. */
	mp = comp_pool("trunc_pool", 512, RTE_PKTMBUF_HEADROOM + 1518);
	REQUIRE(mp != NULL);
	REQUIRE_EQ(comp_port_start(pid, &pc, mp), 0);
	/* A larger MTU needs larger buffers. */
	CHECK_EQ(rte_eth_dev_set_mtu(pid, 9000), -EINVAL);
	for (i = 0; i < RTE_DIM(lens); i++) {
		comp_frame_default(&f);
		f.len = lens[i];
		f.seed = (uint8_t)i;
		comp_frame_build(frame, &f);
		REQUIRE_EQ(mana_model_inject_rx(m, 0, frame, f.len), 0);
		if (!fits[i]) {
			dropped++;
			continue;
		}
		/* Frames are delivered in order: this one comes after the dropped ones. */
		CHECK_EQ(comp_rx_wait(pid, 1, &r, 1, 1, COMP_WAIT_MS, NULL), 1);
		CHECK_MSG(r->pkt_len == lens[i] &&
			  memcmp(rte_pktmbuf_mtod(r, void *), frame, lens[i]) == 0,
			  "%u-byte frame not received intact after %u truncated ones", lens[i],
			  dropped);
		rte_pktmbuf_free(r);
		CHECK_EQ(rte_eth_stats_get(pid, &es), 0);
		CHECK_EQ(es.ierrors, dropped);
		CHECK_EQ(comp_xstat(pid, "rx_truncated"), dropped);
		CHECK_EQ(comp_xstat(pid, "rx_q0_truncated"), dropped);
	}
	CHECK_EQ(comp_rx_drain(pid, 1, 20), 0);
	REQUIRE(comp_model_stats("net_mana_trunc", 0, &st));
	CHECK_EQ(st.rx_truncated, 3);
	CHECK_EQ(st.rx_frames, 2);
	CHECK_EQ(rte_eth_stats_get(pid, &es), 0);
	CHECK_EQ(es.ipackets, 2);
	CHECK_EQ(es.ibytes, 1518 + 64);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	CHECK_EQ(rte_mempool_avail_count(mp), 512);
	comp_vdev_destroy("net_mana_trunc");
	rte_mempool_free(mp);
}

/*
 * RX checksum flags by IP version (hardware.md §4.7): IPv6 has no header
 * checksum, and the device reports its header as good (IP_CKSUM_GOOD) with
 * the L4 result beside it; IPv4 keeps its header checksum's result; a
 * non-IP frame has neither. Frames are injected into port 1's vPort.
 */
struct rx_ck_case {
	const char *name;
	bool ipv6, vlan, bad_ip, bad_l4;
	uint8_t proto;		/* TCP, UDP, or another next header (patched in) */
	uint16_t ethertype;	/* nonzero: a non-IP frame of this type */
	uint64_t ip, l4;	/* expected IP and L4 checksum flags */
};

static const struct rx_ck_case rx_ck_cases[] = {
	{ "IPv6 TCP", true, false, false, false, IPPROTO_TCP, 0,
	  RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_GOOD },
	{ "IPv6 UDP", true, false, false, false, IPPROTO_UDP, 0,
	  RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_GOOD },
	{ "IPv6 TCP bad L4", true, false, false, true, IPPROTO_TCP, 0,
	  RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_BAD },
	{ "IPv6 UDP bad L4", true, false, false, true, IPPROTO_UDP, 0,
	  RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_BAD },
	{ "IPv6 ICMPv6", true, false, false, false, IPPROTO_ICMPV6, 0,
	  RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN },
	{ "IPv6 UDP in 802.1Q", true, true, false, true, IPPROTO_UDP, 0,
	  RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_BAD },
	{ "IPv4 TCP", false, false, false, false, IPPROTO_TCP, 0,
	  RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_GOOD },
	{ "IPv4 UDP bad IP", false, false, true, false, IPPROTO_UDP, 0,
	  RTE_MBUF_F_RX_IP_CKSUM_BAD, RTE_MBUF_F_RX_L4_CKSUM_GOOD },
	{ "IPv4 UDP bad L4", false, false, false, true, IPPROTO_UDP, 0,
	  RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_BAD },
	{ "non-IP", false, false, false, false, IPPROTO_UDP, 0x88B5,
	  RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN, RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN },
};

static uint32_t
rx_ck_frame(uint8_t *buf, const struct rx_ck_case *c)
{
	struct comp_frame f;
	uint32_t len;

	comp_frame_default(&f);
	f.ipv6 = c->ipv6;
	f.proto = c->proto == IPPROTO_TCP ? IPPROTO_TCP : IPPROTO_UDP;
	f.bad_ip_csum = c->bad_ip;
	f.bad_l4_csum = c->bad_l4;
	f.len = 200;
	len = comp_frame_build(buf, &f);
	if (c->proto != f.proto)	/* the IPv6 next header: no TCP or UDP follows */
		buf[RTE_ETHER_HDR_LEN + offsetof(struct rte_ipv6_hdr, proto)] = c->proto;
	if (c->ethertype != 0) {
		buf[12] = (uint8_t)(c->ethertype >> 8);
		buf[13] = (uint8_t)c->ethertype;
	}
	if (c->vlan) {	/* VLAN 7 in front of the EtherType */
		memmove(buf + 16, buf + 12, len - 12);
		buf[12] = 0x81;
		buf[13] = 0x00;
		buf[14] = 0x00;
		buf[15] = 0x07;
		len += 4;
	}
	return len;
}

static void
test_rx_csum_flags(void)
{
	struct mana_model *m;
	struct rte_mbuf *r;
	uint8_t frame[256];
	unsigned int i;
	uint32_t len;

	REQUIRE_EQ(ck_setup(), 0);
	m = mana_model_find("net_mana_ck");
	REQUIRE(m != NULL);
	for (i = 0; i < RTE_DIM(rx_ck_cases); i++) {
		const struct rx_ck_case *c = &rx_ck_cases[i];

		len = rx_ck_frame(frame, c);
		REQUIRE_EQ(mana_model_inject_rx(m, 1, frame, len), 0);
		r = NULL;
		CHECK_MSG(comp_rx_wait(ck_p1, 1, &r, 1, 1, COMP_WAIT_MS, NULL) == 1,
			  "%s: not received", c->name);
		if (r == NULL)
			continue;
		CHECK_MSG((r->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == c->ip,
			  "%s: IP checksum flags 0x%" PRIx64 ", want 0x%" PRIx64, c->name,
			  (uint64_t)(r->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK), (uint64_t)c->ip);
		CHECK_MSG((r->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == c->l4,
			  "%s: L4 checksum flags 0x%" PRIx64 ", want 0x%" PRIx64, c->name,
			  (uint64_t)(r->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK), (uint64_t)c->l4);
		rte_pktmbuf_free(r);
	}
	CHECK_EQ(comp_rx_drain(ck_p1, 1, 20), 0);
}

static const struct comp_case cases[] = {
	{ "csum_pair", test_csum_pair },
	{ "csum_sink", test_csum_sink },
	{ "multiseg", test_multiseg },
	{ "truncation", test_truncation },
	{ "rx_csum_flags", test_rx_csum_flags },
};

static void
ck_teardown(void)
{
	if (ck_p0 < 0)
		return;
	rte_eth_dev_stop(ck_p0);
	rte_eth_dev_stop(ck_p1);
	rte_eth_dev_stop(ck_sink);
	comp_vdev_destroy("net_mana_ck");
	if (rte_mempool_avail_count(ck_pool) != 4096) {
		fprintf(stderr, "FAIL: %u of 4096 mbufs back in the pool after teardown\n",
			rte_mempool_avail_count(ck_pool));
		check_fails = 1;
	}
	rte_mempool_free(ck_pool);
}

int
main(int argc, char **argv)
{
	int ret;

	comp_eal_init(argv[0]);
	comp_teardown = ck_teardown;
	ret = comp_run(cases, RTE_DIM(cases), argc, argv);
	return ret != 0 || check_fails;
}
