/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * A device reset that comes back (mana_model_reset, hardware.md §17): every
 * context gets IBV_EVENT_DEVICE_FATAL, the objects made before are dead
 * (nothing they post completes, no frame reaches them, creating on their
 * context fails EIO, destroying succeeds), open_device fails EIO while the
 * device is down, then fresh contexts work on the same vPorts; the permanent
 * fatal error stays permanent. Counters of both.
 */

#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "engine_harness.h"
#include "verbs_helpers.h"

/* Objects of h on the device h->f.m, which stays. */
static void
h_release(struct h *h)
{
	unsigned int i;

	fx_txq_destroy(&h->tx);
	fx_rxq_destroy(&h->rx);
	fx_buf_fini(&h->txb);
	fx_buf_fini(&h->rxb);
	for (i = 0; i < h->f.nports; i++)
		CHECK_EQ(mana_vs_dealloc_pd(h->f.ppd[i]), 0);
	CHECK_EQ(mana_vs_dealloc_pd(h->f.pd), 0);
	CHECK_EQ(mana_vs_close_device(h->f.ctx), 0);
}

/* A fresh context on device m and the objects of h_open (one RX queue). */
static bool
h_reopen(struct h *h, struct mana_model *m)
{
	struct ibv_parent_domain_init_attr pa;

	memset(h, 0, sizeof(*h));
	h->f.m = m;
	h->f.nports = 1;
	h->f.ctx = mana_vs_open_device(mana_model_ibv_device(m));
	if (h->f.ctx == NULL) {
		UNIT_FAIL("open_device after the reset: %s", strerror(errno));
		return false;
	}
	if (!CHECK_EQ(fx_set_alloc(&h->f, (void *)(uintptr_t)0x5eed), 0))
		return false;
	h->f.pd = mana_vs_alloc_pd(h->f.ctx);
	if (h->f.pd == NULL) {
		UNIT_FAIL("alloc_pd: %s", strerror(errno));
		return false;
	}
	memset(&pa, 0, sizeof(pa));
	pa.pd = h->f.pd;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.pd_context = (void *)(uintptr_t)1;
	h->f.ppd[0] = mana_vs_alloc_parent_domain(h->f.ctx, &pa);
	if (h->f.ppd[0] == NULL) {
		UNIT_FAIL("alloc_parent_domain: %s", strerror(errno));
		return false;
	}
	h->has_rx = true;
	return fx_txq_create(&h->f, 0, DEPTH, 4, &h->tx) &&
	       fx_buf_init(&h->f, &h->txb, DEPTH * SLOT) &&
	       fx_rxq_create(&h->f, 0, 1, DEPTH, 4, fx_rss_key, NULL, &h->rx) &&
	       fx_buf_init(&h->f, &h->rxb, DEPTH * SLOT);
}

/* One frame out of port 0 and back in on the loop wire: TX CQE type, packets received. */
static uint32_t
h_roundtrip(struct h *h, unsigned int *nrx)
{
	struct rx_pkt pk[4];
	uint8_t fr[256];
	size_t len = udp_frame(fr, 7, 60);
	uint32_t type;

	h_tx(h, fr, (uint32_t)len, NULL, false);
	fx_run(&h->f);
	type = h_tx_cqe(h, NULL, NULL);
	*nrx = h_rx_collect(h, pk, 4);
	return type;
}

static struct mana_model_reset_stats
rst(struct mana_model *m)
{
	struct mana_model_reset_stats st;

	memset(&st, 0, sizeof(st));
	CHECK_EQ(mana_model_reset_stats(m, &st), 0);
	return st;
}

static void
test_reset_comes_back(void)
{
	struct mana_model_port_stats st0, st;
	struct ibv_async_event ev;
	struct mana_model *m;
	uint8_t mac0[6], mac1[6], fr[256];
	size_t len = udp_frame(fr, 9, 60);
	unsigned int nrx, i;
	struct h h;

	REQUIRE(h_open(&h, 1, false));
	m = h.f.m;
	CHECK_EQ(mana_model_get_mac(m, 0, mac0), 0);
	h_rx_post(&h, 0, 8, SLOT);
	CHECK_EQ(h_roundtrip(&h, &nrx), CQE_TX_OKAY);
	CHECK_EQ(nrx, 1);
	CHECK_EQ(rst(m).resets, 0);

	REQUIRE_EQ(mana_model_reset(m, 300), 0);
	REQUIRE_EQ(mana_vs_get_async_event(h.f.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_DEVICE_FATAL);
	mana_vs_ack_async_event(h.f.ctx, &ev);
	CHECK_EQ(rst(m).resets, 1);
	CHECK_EQ(rst(m).contexts_killed, 1);
	CHECK(rst(m).down);
	CHECK_EQ(rst(m).fatals, 0);

	/* Down: no new context. */
	CHECK_FAILS(mana_vs_open_device(mana_model_ibv_device(m)), EIO);
	CHECK_EQ(rst(m).open_refused, 1);
	/* The old context creates nothing, its port verbs fail. */
	CHECK_FAILS(mana_vs_create_cq(h.f.ctx, 64, NULL, NULL, 0), EIO);
	CHECK_FAILS(mana_vs_alloc_pd(h.f.ctx), EIO);
	CHECK_FAILS(mana_vs_reg_mr(h.f.pd, h.txb.base, 4096, IBV_ACCESS_LOCAL_WRITE), EIO);
	CHECK_EQ(mana_vs_set_port_mtu(h.f.ctx, 1, 1500), -EIO);
	/* Its queues are dead: a posted TX WQE completes nothing, a frame reaches no RQ. */
	st0 = fx_stats(&h.f, 0);
	CHECK_EQ(h_roundtrip(&h, &nrx), 0);
	CHECK_EQ(nrx, 0);
	CHECK_EQ(mana_model_inject_rx(m, 0, fr, (uint32_t)len), 0);
	fx_run(&h.f);
	CHECK_EQ(h_rx_collect(&h, NULL, 0), 0);
	st = fx_stats(&h.f, 0);
	CHECK_EQ(st.tx_frames, st0.tx_frames);
	CHECK_EQ(st.rx_frames, st0.rx_frames);
	CHECK_EQ(st.rx_drop_no_rxq, st0.rx_drop_no_rxq + 1);
	CHECK_GE(rst(m).db_discarded, 1);
	CHECK_EQ(st.db_rejected, 0);
	/* Teardown works: every destroy succeeds, the context closes. */
	h_release(&h);

	/* Back up within a generous bound (the engine never needs to run for it). */
	for (i = 0; i < 400 && rst(m).down; i++)
		usleep(10000);
	CHECK(!rst(m).down);
	REQUIRE(h_reopen(&h, m));
	CHECK_EQ(mana_model_get_mac(m, 0, mac1), 0);
	CHECK_MEM(mac0, mac1, 6);
	h_rx_post(&h, 0, 8, SLOT);
	CHECK_EQ(h_roundtrip(&h, &nrx), CQE_TX_OKAY);
	CHECK_EQ(nrx, 1);
	CHECK_EQ(mana_vs_get_async_event(h.f.ctx, &ev), -EAGAIN);
	CHECK_EQ(fx_stats(&h.f, 0).queue_errors, 0);

	/* A second reset, then the permanent fatal error: no reset brings that back. */
	REQUIRE_EQ(mana_model_reset(m, 0), 0);
	CHECK_EQ(rst(m).resets, 2);
	h_release(&h);
	REQUIRE(h_reopen(&h, m));
	CHECK_EQ(mana_model_fatal(m), 0);
	CHECK_EQ(rst(m).fatals, 1);
	CHECK_EQ(mana_model_reset(m, 0), -EIO);
	CHECK_EQ(rst(m).resets, 2);
	CHECK_FAILS(mana_vs_open_device(mana_model_ibv_device(m)), EIO);
	CHECK(rst(m).down);
	h_release(&h);
	CHECK_EQ(mana_vs_model_destroy(m), 0);
}

/* A reset with no context open only makes the device unavailable for a while. */
static void
test_reset_idle_device(void)
{
	struct mana_model_config cfg;
	struct ibv_context *c;
	struct mana_model *m;

	fx_config(&cfg, 1);
	m = mana_vs_model_create(&cfg);
	REQUIRE_NOT_NULL(m);
	CHECK_EQ(mana_model_reset(NULL, 0), -EINVAL);
	CHECK_EQ(mana_model_reset(m, 60000), 0);
	CHECK_EQ(rst(m).contexts_killed, 0);
	CHECK_FAILS(mana_vs_open_device(mana_model_ibv_device(m)), EIO);
	/* A later reset sets a new end of the down time. */
	CHECK_EQ(mana_model_reset(m, 0), 0);
	c = mana_vs_open_device(mana_model_ibv_device(m));
	CHECK(c != NULL);
	if (c != NULL)
		CHECK_EQ(mana_vs_close_device(c), 0);
	CHECK_EQ(mana_vs_model_destroy(m), 0);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_reset_comes_back),
	UNIT_TEST(test_reset_idle_device),
};

UNIT_MAIN(tests)
