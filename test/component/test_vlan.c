/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * VLAN through the PMD on the software device (doc/design.md, "Receive",
 * "Transmit"). The device strips every outer 802.1Q tag and reports its
 * VLAN ID in the completion:
 *  - with RTE_ETH_RX_OFFLOAD_VLAN_STRIP the mbuf has RX_VLAN|RX_VLAN_STRIPPED,
 *    vlan_tci = the VLAN ID and the untagged frame;
 *  - without it the driver writes the tag back: RX_VLAN set, STRIPPED clear,
 *    the VLAN ID right and PCP/DEI 0 (the completion has no room for them);
 *  - rte_eth_dev_set_vlan_offload() switches between the two on a running port;
 *  - coalesced completions of tagged frames, consumed in odd burst sizes;
 *  - TX insertion: the frame on the wire (a pcap capture) carries the tag
 *    with vlan_tci's PCP, DEI and VLAN ID; across a pair wire the receiver
 *    gets back only the VLAN ID.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "comp.h"

#define VL_POOL_N	4096
#define VL_RX_OL	(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED)

static struct rte_mempool *vl_pool;
static int vl_in = -1, vl_a = -1, vl_b = -1;

/* Ports of vdev net_mana_vl: 0 takes injected frames (wire none), 1 <-> 2 on a pair wire. */
static int
vl_setup(void)
{
	struct comp_port_cfg pc = {
		.nb_rxq = 1, .nb_txq = 1, .tx_offloads = RTE_ETH_TX_OFFLOAD_VLAN_INSERT,
	};

	if (vl_in >= 0)
		return 0;
	/* Port 0 has the MAC comp_frame_default sends to: a vPort drops other unicast. */
	if (comp_vdev_create("net_mana_vl", "ports=3,wire=none,wire=pair:2,wire=pair:1,"
			     "mac0=02:00:00:00:00:03") != 0)
		return -1;
	vl_pool = comp_pool("vl_pool", VL_POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	vl_in = comp_port_of("net_mana_vl", 0);
	vl_a = comp_port_of("net_mana_vl", 1);
	vl_b = comp_port_of("net_mana_vl", 2);
	if (vl_pool == NULL || vl_in < 0 || vl_a < 0 || vl_b < 0 ||
	    comp_port_start(vl_a, &pc, vl_pool) != 0 || comp_port_start(vl_b, &pc, vl_pool) != 0)
		return -1;
	return 0;
}

/* (Re)start the injection port with or without VLAN_STRIP. */
static int
vl_in_start(bool strip)
{
	struct comp_port_cfg pc = {
		.nb_rxq = 1, .nb_txq = 1,
		.rx_offloads = strip ? RTE_ETH_RX_OFFLOAD_VLAN_STRIP : 0,
	};

	if (rte_eth_dev_stop(vl_in) != 0)
		return -1;
	return comp_port_start(vl_in, &pc, vl_pool);
}

/* frame with an 802.1Q tag (tci) inserted after the MAC addresses; returns len + 4. */
static uint32_t
vl_tag(uint8_t *out, const uint8_t *frame, uint32_t len, uint16_t tpid, uint16_t tci)
{
	memcpy(out, frame, 2 * RTE_ETHER_ADDR_LEN);
	out[12] = (uint8_t)(tpid >> 8);
	out[13] = (uint8_t)tpid;
	out[14] = (uint8_t)(tci >> 8);
	out[15] = (uint8_t)tci;
	memcpy(out + 16, frame + 12, len - 12);
	return len + RTE_VLAN_HLEN;
}

/* Received frames of test_vlan_rx: what goes in, what the mbuf must hold. */
struct vl_case {
	const char *name;
	uint16_t tpid;		/* 0: untagged */
	uint16_t tci;
	uint16_t inner_tci;	/* != 0: a second 802.1Q tag inside, which stays */
};

static const struct vl_case vl_cases[] = {
	{ "VID 0x123 PCP 5 DEI 1", RTE_ETHER_TYPE_VLAN, 0xB123, 0 },
	{ "untagged", 0, 0, 0 },
	{ "VID 4095", RTE_ETHER_TYPE_VLAN, 0x0FFF, 0 },
	{ "priority tag PCP 3", RTE_ETHER_TYPE_VLAN, 0x6000, 0 },
	{ "802.1ad outer tag", RTE_ETHER_TYPE_QINQ, 0x0042, 0 },
	{ "two 802.1Q tags", RTE_ETHER_TYPE_VLAN, 0x2222, 0x0333 },
};

/*
 * Inject every case (one frame each, distinct payload seeds) and check the
 * mbufs, in order, against the two behaviours; returns the bytes the mbufs
 * must hold in all.
 */
static uint64_t
vl_check_rx(bool strip)
{
	uint8_t plain[RTE_DIM(vl_cases)][264], wire[RTE_DIM(vl_cases)][268], want[268];
	uint8_t inner[256];
	struct rte_mbuf *r[RTE_DIM(vl_cases)];
	struct mana_model *m = mana_model_find("net_mana_vl");
	uint32_t len[RTE_DIM(vl_cases)], got, i;
	uint64_t bytes = 0;
	struct comp_frame f;

	if (m == NULL) {
		CHECK(m != NULL);
		return 0;
	}
	for (i = 0; i < RTE_DIM(vl_cases); i++) {
		comp_frame_default(&f);
		f.len = 100 + i;
		f.seed = (uint8_t)(3 * i + strip);
		/* plain: what the device leaves after stripping the outer tag */
		if (vl_cases[i].inner_tci != 0) {
			comp_frame_build(inner, &f);
			f.len = vl_tag(plain[i], inner, f.len, RTE_ETHER_TYPE_VLAN,
				       vl_cases[i].inner_tci);
		} else {
			comp_frame_build(plain[i], &f);
		}
		len[i] = vl_cases[i].tpid == 0 ? f.len :
			 vl_tag(wire[i], plain[i], f.len, vl_cases[i].tpid, vl_cases[i].tci);
		if (vl_cases[i].tpid == 0)
			memcpy(wire[i], plain[i], f.len);
		CHECK_EQ(mana_model_inject_rx(m, 0, wire[i], len[i]), 0);
		bytes += len[i] - (strip && vl_cases[i].tpid == RTE_ETHER_TYPE_VLAN ? 4 : 0);
	}
	got = comp_rx_wait(vl_in, 1, r, RTE_DIM(r), RTE_DIM(r), COMP_WAIT_MS, NULL);
	if (got != RTE_DIM(r)) {
		CHECK_EQ(got, RTE_DIM(r));
		comp_free(r, got > RTE_DIM(r) ? RTE_DIM(r) : got);
		return 0;
	}
	for (i = 0; i < RTE_DIM(vl_cases); i++) {
		const struct vl_case *c = &vl_cases[i];
		uint64_t ol = r[i]->ol_flags & VL_RX_OL;
		const uint8_t *d = rte_pktmbuf_mtod(r[i], const uint8_t *);
		uint32_t pt_l2 = r[i]->packet_type & RTE_PTYPE_L2_MASK;

		if (c->tpid != RTE_ETHER_TYPE_VLAN) {
			/* untagged or an 802.1ad tag: as it came, no VLAN flags */
			CHECK_MSG(ol == 0, "%s: ol_flags 0x%llx", c->name,
				  (unsigned long long)r[i]->ol_flags);
			CHECK_MSG(r[i]->pkt_len == len[i] && r[i]->data_len == len[i] &&
				  memcmp(d, wire[i], len[i]) == 0, "%s: frame changed", c->name);
			CHECK_EQ(pt_l2, c->tpid == 0 ? RTE_PTYPE_L2_ETHER :
					RTE_PTYPE_L2_ETHER_VLAN);
			continue;
		}
		CHECK_MSG(r[i]->vlan_tci == (c->tci & 0xFFF), "%s: vlan_tci 0x%x, expected 0x%x",
			  c->name, r[i]->vlan_tci, c->tci & 0xFFF);
		CHECK_EQ(r[i]->packet_type & (RTE_PTYPE_L3_MASK | RTE_PTYPE_L4_MASK),
			 RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP);
		/* (the software device checks no packet behind a second tag) */
		if (c->inner_tci == 0)
			CHECK_EQ(r[i]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK,
				 RTE_MBUF_F_RX_L4_CKSUM_GOOD);
		if (strip) {
			CHECK_MSG(ol == VL_RX_OL, "%s: ol_flags 0x%llx, expected RX_VLAN|STRIPPED",
				  c->name, (unsigned long long)r[i]->ol_flags);
			CHECK_MSG(r[i]->pkt_len == len[i] - 4 && r[i]->data_len == len[i] - 4 &&
				  memcmp(d, plain[i], len[i] - 4) == 0,
				  "%s: not the untagged frame (%u bytes)", c->name, r[i]->pkt_len);
			CHECK_EQ(pt_l2, c->inner_tci == 0 ? RTE_PTYPE_L2_ETHER :
					RTE_PTYPE_L2_ETHER_VLAN);
		} else {
			/* the tag back with the VLAN ID only: PCP and DEI 0 */
			vl_tag(want, plain[i], len[i] - 4, RTE_ETHER_TYPE_VLAN, c->tci & 0xFFF);
			CHECK_MSG(ol == RTE_MBUF_F_RX_VLAN, "%s: ol_flags 0x%llx, expected RX_VLAN",
				  c->name, (unsigned long long)r[i]->ol_flags);
			CHECK_MSG(r[i]->pkt_len == len[i] && r[i]->data_len == len[i] &&
				  memcmp(d, want, len[i]) == 0,
				  "%s: tag not written back as VLAN ID 0x%x, PCP 0 (%u bytes, "
				  "TCI 0x%02x%02x)", c->name, c->tci & 0xFFF, r[i]->pkt_len, d[14],
				  d[15]);
			CHECK_EQ(r[i]->data_off, RTE_PKTMBUF_HEADROOM - RTE_VLAN_HLEN);
			CHECK_EQ(pt_l2, c->inner_tci == 0 ? RTE_PTYPE_L2_ETHER_VLAN :
					RTE_PTYPE_L2_ETHER_QINQ);
		}
	}
	comp_free(r, got);
	return bytes;
}

/* vl_check_rx, and ibytes grew by what the mbufs held. */
static void
vl_check_rx_bytes(bool strip)
{
	int64_t bytes0 = comp_xstat(vl_in, "rx_good_bytes");
	uint64_t want = vl_check_rx(strip);

	CHECK_EQ(comp_xstat(vl_in, "rx_good_bytes") - bytes0, want);
}

static void
test_vlan_strip(void)
{
	REQUIRE_EQ(vl_setup(), 0);
	REQUIRE_EQ(vl_in_start(true), 0);
	CHECK_EQ(rte_eth_dev_get_vlan_offload(vl_in), RTE_ETH_VLAN_STRIP_OFFLOAD);
	vl_check_rx_bytes(true);
}

static void
test_vlan_reinsert(void)
{
	REQUIRE_EQ(vl_setup(), 0);
	REQUIRE_EQ(vl_in_start(false), 0);
	CHECK_EQ(rte_eth_dev_get_vlan_offload(vl_in), 0);
	vl_check_rx_bytes(false);
}

/* rte_eth_dev_set_vlan_offload() on the running port, both ways. */
static void
test_vlan_offload_set(void)
{
	REQUIRE_EQ(vl_setup(), 0);
	REQUIRE_EQ(vl_in_start(false), 0);
	CHECK_EQ(rte_eth_dev_set_vlan_offload(vl_in, RTE_ETH_VLAN_STRIP_OFFLOAD), 0);
	CHECK_EQ(rte_eth_dev_get_vlan_offload(vl_in), RTE_ETH_VLAN_STRIP_OFFLOAD);
	vl_check_rx(true);
	CHECK_EQ(rte_eth_dev_set_vlan_offload(vl_in, 0), 0);
	CHECK_EQ(rte_eth_dev_get_vlan_offload(vl_in), 0);
	vl_check_rx(false);
	/* VLAN filtering is not offered: refused, the strip setting unchanged */
	CHECK_EQ(rte_eth_dev_set_vlan_offload(vl_in, RTE_ETH_VLAN_FILTER_OFFLOAD), -EINVAL);
	CHECK_EQ(rte_eth_dev_get_vlan_offload(vl_in), 0);
	vl_check_rx(false);
}

/*
 * A generator of tagged frames (VLAN 100, PCP 5) fills every posted buffer:
 * coalesced completions, consumed 3 packets per burst so that completions
 * end inside bursts, with and without VLAN_STRIP.
 */
static void
vl_gen_run(bool strip)
{
	enum { N = 2000, LEN = 128 };
	struct comp_port_cfg pc = {
		.nb_rxq = 1, .nb_txq = 1,
		.rx_offloads = strip ? RTE_ETH_RX_OFFLOAD_VLAN_STRIP : 0,
	};
	struct rte_mbuf *b[3];
	uint64_t end = comp_now_ms() + COMP_WAIT_MS;
	uint32_t got = 0, bad = 0, i, n, want_len = strip ? LEN - 4 : LEN;
	const uint8_t *d;
	int pid;

	REQUIRE_EQ(comp_vdev_create("net_mana_vlgen", "wire=gen:flows=4:len=128:count=2000:"
				    "lossless=1:vlan=100:pcp=5"), 0);
	pid = comp_port_of("net_mana_vlgen", 0);
	REQUIRE(pid >= 0);
	REQUIRE_EQ(comp_port_start(pid, &pc, vl_pool), 0);
	while (got < N && comp_now_ms() < end) {
		n = rte_eth_rx_burst(pid, 0, b, RTE_DIM(b));
		for (i = 0; i < n; i++, got++) {
			d = rte_pktmbuf_mtod(b[i], const uint8_t *);
			if (b[i]->pkt_len != want_len || b[i]->vlan_tci != 100 ||
			    (b[i]->ol_flags & VL_RX_OL) !=
			    (strip ? VL_RX_OL : RTE_MBUF_F_RX_VLAN) ||
			    (strip ? d[12] != 0x08 || d[13] != 0x00 :
			     d[12] != 0x81 || d[13] != 0x00 || d[14] != 0x00 || d[15] != 100) ||
			    /* past a tag, bytes 12..13 of d + 4 are the inner EtherType */
			    !comp_csums_ok(d + (strip ? 0 : 4), want_len - (strip ? 0 : 4))) {
				if (bad++ == 0)
					CHECK_MSG(false, "packet %u: %u bytes, vlan_tci 0x%x, "
						  "ol_flags 0x%llx, bytes 12..15 %02x%02x %02x%02x",
						  got, b[i]->pkt_len, b[i]->vlan_tci,
						  (unsigned long long)b[i]->ol_flags, d[12], d[13],
						  d[14], d[15]);
			}
			rte_pktmbuf_free(b[i]);
		}
		if (n == 0)
			usleep(100);
	}
	CHECK_EQ(got, N);
	CHECK_EQ(bad, 0);
	CHECK(comp_xstat(pid, "rx_q0_coalesced_cqes") > 0);
	CHECK_EQ(comp_xstat(pid, "rx_good_bytes"), (int64_t)N * want_len);
	CHECK_EQ(comp_xstat(pid, "dev_rx_bytes"), (int64_t)N * (LEN - 4));
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_vlgen");
}

static void
test_vlan_gen_coalesced(void)
{
	REQUIRE_EQ(vl_setup(), 0);
	vl_gen_run(true);
	vl_gen_run(false);
}

/* TX with RTE_MBUF_F_TX_VLAN: the tag on the wire, read back from a capture. */
static void
test_vlan_tx_wire(void)
{
	struct comp_port_cfg pc = {
		.nb_rxq = 1, .nb_txq = 1, .tx_offloads = RTE_ETH_TX_OFFLOAD_VLAN_INSERT,
	};
	static const uint16_t tcis[] = { 0xB123, 0x0001, 0xEFFF, 0x1000 };
	uint8_t plain[RTE_DIM(tcis) + 1][256], want[260];
	char path[512], args[600], err[PCAP_ERRBUF_SIZE];
	const char *dir = getenv("MESON_BUILD_ROOT");
	struct mana_model_port_stats st;
	struct rte_mbuf *m[RTE_DIM(tcis) + 1];
	struct pcap_pkthdr *ph;
	const u_char *data;
	uint64_t end;
	struct comp_frame f;
	unsigned int i, n = 0;
	pcap_t *pc_in;
	int pid;

	REQUIRE_EQ(vl_setup(), 0);
	snprintf(path, sizeof(path), "%s/comp_vlan_%d.pcap", dir != NULL ? dir : ".",
		 (int)getpid());
	snprintf(args, sizeof(args), "wire=pcap:tx=%s", path);
	REQUIRE_EQ(comp_vdev_create("net_mana_vlcap", args), 0);
	pid = comp_port_of("net_mana_vlcap", 0);
	REQUIRE(pid >= 0);
	REQUIRE_EQ(comp_port_start(pid, &pc, vl_pool), 0);
	for (i = 0; i < RTE_DIM(m); i++) {
		comp_frame_default(&f);
		f.seed = (uint8_t)(11 * i);
		comp_frame_build(plain[i], &f);
		m[i] = comp_mbuf_from(vl_pool, plain[i], f.len);
		REQUIRE(m[i] != NULL);
		if (i < RTE_DIM(tcis)) {
			m[i]->ol_flags |= RTE_MBUF_F_TX_VLAN;
			m[i]->vlan_tci = tcis[i];
		}
	}
	/* the last one goes without a tag */
	REQUIRE_EQ(comp_tx_all(pid, 0, m, RTE_DIM(m), COMP_WAIT_MS), RTE_DIM(m));
	end = comp_now_ms() + COMP_WAIT_MS;
	do {
		comp_model_stats("net_mana_vlcap", 0, &st);
		if (st.wire_sink_frames >= RTE_DIM(m))
			break;
		comp_sleep_ms(1);
	} while (comp_now_ms() < end);
	CHECK_EQ(st.wire_sink_frames, RTE_DIM(m));
	CHECK_EQ(st.wire_sink_vlan, RTE_DIM(tcis));
	CHECK_EQ(st.wire_sink_bad, 0);
	CHECK_EQ(rte_eth_dev_stop(pid), 0);
	comp_vdev_destroy("net_mana_vlcap");	/* closes the capture */
	pc_in = pcap_open_offline(path, err);
	if (pc_in == NULL) {
		CHECK_MSG(false, "pcap_open_offline(%s): %s", path, err);
		unlink(path);
		return;
	}
	while (pcap_next_ex(pc_in, &ph, &data) == 1) {
		if (n < RTE_DIM(tcis)) {
			vl_tag(want, plain[n], f.len, RTE_ETHER_TYPE_VLAN, tcis[n]);
			CHECK_MSG(ph->caplen == f.len + 4 && memcmp(data, want, f.len + 4) == 0,
				  "frame %u: not tagged with TCI 0x%04x on the wire (%u bytes)", n,
				  tcis[n], ph->caplen);
		} else if (n == RTE_DIM(tcis)) {
			CHECK_MSG(ph->caplen == f.len && memcmp(data, plain[n], f.len) == 0,
				  "untagged frame changed on the wire");
		}
		n++;
	}
	CHECK_EQ(n, RTE_DIM(m));
	pcap_close(pc_in);
	unlink(path);
}

/* TX insertion across a pair wire: the receiver gets the VLAN ID, PCP/DEI are gone. */
static void
test_vlan_tx_pair(void)
{
	uint8_t plain[256], want[260];
	struct rte_mbuf *m, *r;
	struct comp_frame f;
	unsigned int strip;

	REQUIRE_EQ(vl_setup(), 0);
	for (strip = 0; strip < 2; strip++) {
		CHECK_EQ(rte_eth_dev_set_vlan_offload(vl_b, strip ? RTE_ETH_VLAN_STRIP_OFFLOAD : 0),
			 0);
		comp_frame_default(&f);
		REQUIRE_EQ(rte_eth_macaddr_get(vl_b, &f.dst), 0);	/* vl_b's vPort filter */
		f.seed = (uint8_t)(50 + strip);
		comp_frame_build(plain, &f);
		m = comp_mbuf_from(vl_pool, plain, f.len);
		REQUIRE(m != NULL);
		m->ol_flags |= RTE_MBUF_F_TX_VLAN;
		m->vlan_tci = 0xA0C8;	/* PCP 5, VLAN ID 200 */
		REQUIRE_EQ(comp_tx_all(vl_a, 0, &m, 1, COMP_WAIT_MS), 1);
		REQUIRE_EQ(comp_rx_wait(vl_b, 1, &r, 1, 1, COMP_WAIT_MS, NULL), 1);
		CHECK_EQ(r->vlan_tci, 200);
		if (strip) {
			CHECK_EQ(r->ol_flags & VL_RX_OL, VL_RX_OL);
			CHECK(r->pkt_len == f.len &&
			      memcmp(rte_pktmbuf_mtod(r, void *), plain, f.len) == 0);
		} else {
			vl_tag(want, plain, f.len, RTE_ETHER_TYPE_VLAN, 200);
			CHECK_EQ(r->ol_flags & VL_RX_OL, RTE_MBUF_F_RX_VLAN);
			CHECK(r->pkt_len == f.len + 4 &&
			      memcmp(rte_pktmbuf_mtod(r, void *), want, f.len + 4) == 0);
		}
		rte_pktmbuf_free(r);
	}
	CHECK_EQ(rte_eth_dev_set_vlan_offload(vl_b, 0), 0);
}

static const struct comp_case cases[] = {
	{ "vlan_strip", test_vlan_strip },
	{ "vlan_reinsert", test_vlan_reinsert },
	{ "vlan_offload_set", test_vlan_offload_set },
	{ "vlan_gen_coalesced", test_vlan_gen_coalesced },
	{ "vlan_tx_wire", test_vlan_tx_wire },
	{ "vlan_tx_pair", test_vlan_tx_pair },
};

static void
vl_teardown(void)
{
	if (vl_in < 0)
		return;
	rte_eth_dev_stop(vl_in);
	rte_eth_dev_stop(vl_a);
	rte_eth_dev_stop(vl_b);
	comp_vdev_destroy("net_mana_vl");
	if (rte_mempool_avail_count(vl_pool) != VL_POOL_N) {
		fprintf(stderr, "FAIL: %u of %u mbufs back in the pool after teardown\n",
			rte_mempool_avail_count(vl_pool), VL_POOL_N);
		check_fails = 1;
	}
	rte_mempool_free(vl_pool);
}

int
main(int argc, char **argv)
{
	int ret;

	comp_eal_init(argv[0]);
	comp_teardown = vl_teardown;
	ret = comp_run(cases, RTE_DIM(cases), argc, argv);
	return ret != 0 || check_fails;
}
