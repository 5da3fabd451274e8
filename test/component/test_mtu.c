/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The MTU boundary end to end (hardware.md §19): port 0 sends to port 1 over
 * a pair wire, both at the same MTU, as DPDK's DTS MTU suite forwards. A
 * frame of MTU + 18 bytes on the wire goes through, tagged or not (DTS sends
 * MTU + 18 untagged: Ethernet, 4 bytes, IP); MTU + 19 is refused by the
 * sending device (CQE_TX_MTU_DROP, xstat tx_err_mtu_drop); a tag the device
 * inserts counts. MTUs 1500, 2400, 4800 and 9000 (DTS's), into mbufs of
 * 9216 bytes, and at 1500 into scattered chains of 2048-byte mbufs. Also
 * what dev_info says: MTU 68..9000, max_rx_pktlen 9018.
 */

#include <errno.h>
#include <string.h>

#include "comp.h"

#define MT_POOL_N	1024
#define MT_BIG_ROOM	(RTE_PKTMBUF_HEADROOM + 9216)
#define MT_VLAN_ID	0x00A

static struct rte_mempool *mt_big, *mt_small;
static int mt_p0 = -1, mt_p1 = -1;

/* Ports of vdev net_mana_mt: 0 <-> 1 on a pair wire; port 1 has the default frame's MAC. */
static int
mt_setup(void)
{
	if (mt_p0 >= 0)
		return 0;
	if (comp_vdev_create("net_mana_mt", "ports=2,wire=pair:1,wire=pair:0,"
			     "mac1=02:00:00:00:00:03") != 0)
		return -1;
	mt_big = comp_pool("mt_big", MT_POOL_N, MT_BIG_ROOM);
	mt_small = comp_pool("mt_small", 4 * MT_POOL_N, RTE_MBUF_DEFAULT_BUF_SIZE);
	mt_p0 = comp_port_of("net_mana_mt", 0);
	mt_p1 = comp_port_of("net_mana_mt", 1);
	return mt_big != NULL && mt_small != NULL && mt_p0 >= 0 && mt_p1 >= 0 ? 0 : -1;
}

/* Both ports started at MTU mtu (given to configure) with RX mbufs from mp. */
static int
mt_start(uint16_t mtu, struct rte_mempool *mp, uint64_t rx_offloads)
{
	int pid[2] = { mt_p0, mt_p1 };

	for (unsigned int i = 0; i < 2; i++) {
		struct rte_eth_conf conf;

		rte_eth_dev_stop(pid[i]);
		memset(&conf, 0, sizeof(conf));
		conf.rxmode.mtu = mtu;
		conf.rxmode.offloads = rx_offloads;
		conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_VLAN_INSERT |
				       RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		if (rte_eth_dev_configure(pid[i], 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup(pid[i], 0, 256, SOCKET_ID_ANY, NULL, mp) != 0 ||
		    rte_eth_tx_queue_setup(pid[i], 0, 256, SOCKET_ID_ANY, NULL) != 0 ||
		    rte_eth_dev_start(pid[i]) != 0)
			return -1;
	}
	return 0;
}

/*
 * A frame of len bytes (with a tag when tagged) built as DTS builds its
 * frames: Ethernet, 4 filler bytes, an IPv4 header; payload to the end.
 */
static uint32_t
mt_frame(uint8_t *buf, uint32_t len, bool tagged, uint8_t seed)
{
	struct comp_frame f;
	uint32_t off = tagged ? 4 : 0;

	comp_frame_default(&f);
	f.len = len - off;
	f.seed = seed;
	comp_frame_build(buf, &f);
	if (tagged) {
		memmove(buf + 16, buf + 12, f.len - 12);
		buf[12] = 0x81;
		buf[13] = 0x00;
		buf[14] = MT_VLAN_ID >> 8;
		buf[15] = MT_VLAN_ID & 0xFF;
	}
	return len;
}

/* The mbuf (from the big pool, chained when larger than one) holding len bytes. */
static struct rte_mbuf *
mt_mbuf(const uint8_t *buf, uint32_t len)
{
	return comp_mbuf_from(mt_big, buf, len);
}

/*
 * Sends one frame of len bytes from port 0 (insert: the device adds a tag);
 * true if port 1 received it intact, false if port 0's device refused it as
 * too long. Anything else is a failure of its own.
 */
static bool
mt_passes(uint32_t len, bool tagged, bool insert, uint16_t mtu)
{
	static uint8_t frame[9100], want[9100];
	struct rte_mbuf *m, *r = NULL;
	int64_t drops0 = comp_xstat(mt_p0, "tx_err_mtu_drop"), drops;
	uint64_t end = comp_now_ms() + COMP_WAIT_MS;
	uint32_t got, wlen;
	bool ok;

	mt_frame(frame, len, tagged, (uint8_t)len);
	m = mt_mbuf(frame, len);
	if (m == NULL) {
		CHECK_MSG(false, "MTU %u: no mbuf for %u bytes", mtu, len);
		return false;
	}
	if (insert) {
		m->ol_flags |= RTE_MBUF_F_TX_VLAN;
		m->vlan_tci = MT_VLAN_ID;
	}
	if (comp_tx_all(mt_p0, 0, &m, 1, COMP_WAIT_MS) != 1) {
		rte_pktmbuf_free(m);
		CHECK_MSG(false, "MTU %u: %u-byte frame not taken", mtu, len);
		return false;
	}
	/* Received, or refused: whichever comes first (both are certain to come). */
	do {
		got = comp_rx_wait(mt_p1, 1, &r, 1, 1, 1, NULL);
		rte_eth_tx_done_cleanup(mt_p0, 0, 0);
		drops = comp_xstat(mt_p0, "tx_err_mtu_drop");
	} while (got == 0 && drops == drops0 && comp_now_ms() < end);
	if (got == 0) {
		CHECK_MSG(drops == drops0 + 1, "MTU %u: %u-byte frame neither received nor refused",
			  mtu, len);
		return false;
	}
	/* What port 1 gives back: an inserted tag as if it had been in the frame. */
	wlen = mt_frame(want, len + (insert ? 4 : 0), tagged || insert, (uint8_t)len);
	ok = r->pkt_len == wlen;
	if (ok) {
		const uint8_t *p = rte_pktmbuf_read(r, 0, wlen, frame);

		ok = p != NULL && memcmp(p, want, wlen) == 0;
	}
	CHECK_MSG(ok, "MTU %u: %u-byte frame (tagged %d, inserted %d) received as %u bytes, "
		  "not intact", mtu, len, tagged, insert, r->pkt_len);
	rte_pktmbuf_free(r);
	return true;
}

static void
mt_boundary(uint16_t mtu)
{
	CHECK_MSG(mt_passes(mtu + 14u, false, false, mtu), "MTU %u: MTU + 14 dropped", mtu);
	CHECK_MSG(mt_passes(mtu + 18u, false, false, mtu), "MTU %u: MTU + 18 dropped", mtu);
	CHECK_MSG(!mt_passes(mtu + 19u, false, false, mtu), "MTU %u: MTU + 19 sent", mtu);
	CHECK_MSG(!mt_passes(mtu + 27u, false, false, mtu), "MTU %u: MTU + 27 sent", mtu);
	CHECK_MSG(mt_passes(mtu + 18u, true, false, mtu), "MTU %u: tagged MTU + 18 dropped", mtu);
	CHECK_MSG(!mt_passes(mtu + 19u, true, false, mtu), "MTU %u: tagged MTU + 19 sent", mtu);
	CHECK_MSG(mt_passes(mtu + 14u, false, true, mtu),
		  "MTU %u: MTU + 14 with an inserted tag dropped", mtu);
	CHECK_MSG(!mt_passes(mtu + 15u, false, true, mtu),
		  "MTU %u: MTU + 15 with an inserted tag sent", mtu);
}

static void
test_dev_info(void)
{
	struct rte_eth_dev_info info;

	REQUIRE_EQ(mt_setup(), 0);
	REQUIRE_EQ(rte_eth_dev_info_get(mt_p0, &info), 0);
	CHECK_EQ(info.min_mtu, RTE_ETHER_MIN_MTU);
	CHECK_EQ(info.max_mtu, 9000);
	CHECK_EQ(info.max_rx_pktlen, 9000 + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN);
}

static void
test_boundaries(void)
{
	static const uint16_t mtus[] = { 1500, 2400, 4800, 9000 };

	REQUIRE_EQ(mt_setup(), 0);
	for (unsigned int i = 0; i < RTE_DIM(mtus); i++) {
		REQUIRE_EQ(mt_start(mtus[i], mt_big, 0), 0);
		mt_boundary(mtus[i]);
		/* MTU changed on running ports (testpmd's "port config mtu"), back to 1500. */
		CHECK_EQ(rte_eth_dev_set_mtu(mt_p0, RTE_ETHER_MTU), 0);
		CHECK_EQ(rte_eth_dev_set_mtu(mt_p1, RTE_ETHER_MTU), 0);
		CHECK(mt_passes(RTE_ETHER_MTU + 18u, false, false, RTE_ETHER_MTU));
		CHECK(!mt_passes(RTE_ETHER_MTU + 19u, false, false, RTE_ETHER_MTU));
	}
	CHECK_EQ(comp_rx_drain(mt_p1, 1, 20), 0);
}

static void
test_boundaries_scattered(void)
{
	REQUIRE_EQ(mt_setup(), 0);
	REQUIRE_EQ(mt_start(RTE_ETHER_MTU, mt_small, RTE_ETH_RX_OFFLOAD_SCATTER), 0);
	mt_boundary(RTE_ETHER_MTU);
	REQUIRE_EQ(mt_start(4800, mt_small, RTE_ETH_RX_OFFLOAD_SCATTER), 0);
	mt_boundary(4800);
	CHECK_EQ(comp_rx_drain(mt_p1, 1, 20), 0);
}

static const struct comp_case cases[] = {
	{ "dev_info", test_dev_info },
	{ "boundaries", test_boundaries },
	{ "boundaries_scattered", test_boundaries_scattered },
};

static void
mt_teardown(void)
{
	if (mt_p0 < 0)
		return;
	rte_eth_dev_stop(mt_p0);
	rte_eth_dev_stop(mt_p1);
	comp_vdev_destroy("net_mana_mt");
	rte_mempool_free(mt_big);
	rte_mempool_free(mt_small);
}

int
main(int argc, char **argv)
{
	comp_eal_init(argv[0]);
	comp_teardown = mt_teardown;
	return comp_run(cases, RTE_DIM(cases), argc, argv);
}
