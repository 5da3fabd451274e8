/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Every wire of the model: frames in equal frames out (loop; pair between
 * two ports of a device and between two devices), the generator (lossless
 * count, valid pattern) and the sink (counts, flags corruption), pcap
 * (capture written by pcap:tx read back with libpcap; a file replayed by
 * pcap:rx), TAP (the kernel answers an ARP request sent by the model; skipped
 * with 77 when TAP is unavailable), and the wire spec parser.
 */

#include <arpa/inet.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <pcap/pcap.h>

#include "fixture.h"
#include "frames.h"

#define SLOT	2048u
#define DEPTH	64u

static const uint8_t key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* ---- an endpoint: TX queue + one RX queue on a port of an open device ------ */

struct ep {
	struct fx *f;
	unsigned int port;
	struct fx_txq tx;
	struct fx_rxq rx;
	struct fx_buf txb, rxb;
	uint32_t tx_slot, posted, done;
};

struct pkt {
	uint32_t len;
	uint32_t dw1;		/* CQE dword 1 (VLAN, hash type, checksum bits) */
	uint8_t data[SLOT];
};

/* Log lines of the model that hold `want` (installed with mana_vs_set_logger). */
struct log_count {
	const char *want;
	unsigned int n;
};

static void
log_counter(int level, const char *msg, void *arg)
{
	struct log_count *lc = arg;

	(void)level;
	if (strstr(msg, lc->want) != NULL)
		lc->n++;
}

static bool
ep_open(struct ep *e, struct fx *f, unsigned int port)
{
	memset(e, 0, sizeof(*e));
	e->f = f;
	e->port = port;
	return fx_txq_create(f, port, DEPTH, 1, &e->tx) &&
	       fx_rxq_create(f, port, 1, DEPTH, 1, key, NULL, &e->rx) &&
	       fx_buf_init(f, &e->txb, DEPTH * SLOT) && fx_buf_init(f, &e->rxb, DEPTH * SLOT);
}

static void
ep_close(struct ep *e)
{
	fx_txq_destroy(&e->tx);
	fx_rxq_destroy(&e->rx);
	fx_buf_fini(&e->txb);
	fx_buf_fini(&e->rxb);
}

/* Keep `want` RX WQEs outstanding. */
static void
ep_fill(struct ep *e, uint32_t want)
{
	struct gdma_sge sge;

	if (want > DEPTH)
		want = DEPTH;
	while (e->posted - e->done < want) {
		sge = fx_sge(&e->rxb, (size_t)(e->posted % DEPTH) * SLOT, SLOT);
		fx_rx_write(&e->rx, 0, &sge, 1);
		e->posted++;
	}
	fx_rx_ring(&e->rx, 0);
}

/* Post one frame on e's TX queue and ring its doorbell. */
static void
ep_post(struct ep *e, const void *frame, uint32_t len)
{
	struct mana_tx_oob oob;
	struct gdma_sge sge;
	uint32_t slot = e->tx_slot++ % DEPTH;

	memcpy(e->txb.base + (size_t)slot * SLOT, frame, len);
	sge = fx_sge(&e->txb, (size_t)slot * SLOT, len);
	fx_tx_oob(&e->tx, &oob);
	fx_tx_write(&e->tx, &oob, false, &sge, 1);
	fx_tx_ring(&e->tx);
}

/* Send a frame (waits for nothing); drains TX CQEs, which must be OKAY. */
static void
ep_send(struct ep *e, const void *frame, uint32_t len)
{
	struct gdma_cqe c;

	while (fx_cq_poll(&e->tx.cq, &c))
		CHECK_EQ(fx_cqe_type(&c), CQE_TX_OKAY);
	ep_post(e, frame, len);
}

/* Collect received frames into out (up to max); returns how many. */
static unsigned int
ep_recv(struct ep *e, struct pkt *out, unsigned int max)
{
	struct gdma_cqe c;
	unsigned int n = 0, k, np;

	while (fx_cq_poll(&e->rx.cq[0], &c)) {
		uint32_t type = fx_cqe_type(&c);

		np = 1;
		if (type == CQE_RX_COALESCED_4) {
			for (np = 0; np < 4; np++)
				if ((c.data[MANA_RXCQE_PKT_LEN_DW(np)] & 0xFFFF) == 0)
					break;
		} else {
			CHECK_EQ(type, CQE_RX_OKAY);
		}
		for (k = 0; k < np; k++) {
			uint32_t len = c.data[MANA_RXCQE_PKT_LEN_DW(k)] & 0xFFFF;
			const uint8_t *d = e->rxb.base + (size_t)(e->done % DEPTH) * SLOT;

			if (n < max && out != NULL) {
				out[n].len = len;
				out[n].dw1 = c.data[1];
				memcpy(out[n].data, d, len < SLOT ? len : SLOT);
			}
			e->done++;
			n++;
		}
	}
	return n;
}

static size_t
mk_frame(uint8_t *buf, unsigned int i, uint16_t plen)
{
	struct tf_spec s;

	tf_spec_init(&s);
	s.proto = i & 1 ? TF_PROTO_TCP : TF_PROTO_UDP;
	s.sport = (uint16_t)(2000 + i);
	s.payload_len = plen;
	s.payload_seed = (uint8_t)(i * 3);
	return tf_build(buf, &s);
}

/* mk_frame's frame with an 802.1Q tag (tci) after the MAC addresses. */
static size_t
mk_frame_vlan(uint8_t *buf, unsigned int i, uint16_t plen, uint16_t tci)
{
	struct tf_spec s;

	tf_spec_init(&s);
	s.proto = i & 1 ? TF_PROTO_TCP : TF_PROTO_UDP;
	s.sport = (uint16_t)(2000 + i);
	s.payload_len = plen;
	s.payload_seed = (uint8_t)(i * 3);
	s.vlan = true;
	s.tci = tci;
	return tf_build(buf, &s);
}

/* payloads; the largest TCP frame is 1514 bytes (MTU 1500) */
static const uint16_t sizes[] = { 18, 19, 100, 555, 1000, 1460 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Send NSIZES frames from a to b; each must arrive unchanged, in order. */
static void
check_path(struct fx *fa, struct ep *a, struct fx *fb, struct ep *b, const char *what)
{
	static struct pkt got[16];
	uint8_t fr[16][1600];
	size_t len[16];
	unsigned int i, n;

	ep_fill(b, 32);
	for (i = 0; i < NSIZES; i++) {
		len[i] = mk_frame(fr[i], i, sizes[i]);
		/* To the receiver's MAC: its vPort drops other unicast (hardware.md §16). */
		REQUIRE_EQ(mana_model_get_mac(fb->m, b->port, fr[i]), 0);
		ep_send(a, fr[i], (uint32_t)len[i]);
	}
	for (i = 0; i < 10; i++) {
		fx_run(fa);
		if (fb != fa)
			fx_run(fb);
	}
	for (i = 0; i < NSIZES; i++) {
		struct gdma_cqe c;

		if (CHECK_MSG(fx_cq_poll(&a->tx.cq, &c), "%s: TX CQE %u missing", what, i))
			CHECK_EQ(fx_cqe_type(&c), CQE_TX_OKAY);
	}
	n = ep_recv(b, got, 16);
	CHECK_MSG(n == NSIZES, "%s: %u frames received of %zu", what, n, (size_t)NSIZES);
	for (i = 0; i < n && i < NSIZES; i++) {
		CHECK_MSG(got[i].len == len[i] && memcmp(got[i].data, fr[i], len[i]) == 0,
			  "%s: frame %u differs (len %u, sent %zu)", what, i, got[i].len, len[i]);
	}
}

/* ---- loop, pair ------------------------------------------------------------- */

static void
test_loop(void)
{
	struct mana_model_config cfg;
	struct ep e;
	struct fx f;

	fx_config(&cfg, 1);
	REQUIRE_EQ(mana_model_parse_wire("loop", &cfg.wire[0], NULL), 0);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	REQUIRE(ep_open(&e, &f, 0));
	check_path(&f, &e, &f, &e, "loop");
	CHECK_EQ(fx_stats(&f, 0).tx_frames, NSIZES);
	CHECK_EQ(fx_stats(&f, 0).rx_frames, NSIZES);
	ep_close(&e);
	fx_close(&f);
}

static void
test_pair_ports(void)
{
	struct mana_model_config cfg;
	struct ep a, b;
	struct pkt got[4];
	struct fx f;

	fx_config(&cfg, 3);
	REQUIRE_EQ(mana_model_parse_wire("pair:2", &cfg.wire[0], NULL), 0);
	REQUIRE_EQ(mana_model_parse_wire("pair:0", &cfg.wire[2], NULL), 0);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	REQUIRE(ep_open(&a, &f, 0));
	REQUIRE(ep_open(&b, &f, 2));
	check_path(&f, &a, &f, &b, "port 0 -> port 2");
	check_path(&f, &b, &f, &a, "port 2 -> port 0");
	/* nothing came back to the sender */
	CHECK_EQ(ep_recv(&a, got, 4), 0);
	CHECK_EQ(fx_stats(&f, 0).tx_frames, NSIZES);
	CHECK_EQ(fx_stats(&f, 2).rx_frames, NSIZES);
	ep_close(&a);
	ep_close(&b);
	fx_close(&f);
}

static void
test_pair_devices(void)
{
	struct mana_model_config ca, cb;
	char spec[64];
	struct ep a, b;
	struct fx fa, fb;

	fx_config(&ca, 1);
	fx_config(&cb, 2);
	snprintf(spec, sizeof(spec), "pair:%s/1", cb.name);
	REQUIRE_EQ(mana_model_parse_wire(spec, &ca.wire[0], NULL), 0);
	snprintf(spec, sizeof(spec), "pair:%s/0", ca.name);
	REQUIRE_EQ(mana_model_parse_wire(spec, &cb.wire[1], NULL), 0);
	REQUIRE(fx_open_cfg(&fa, &ca, true));
	REQUIRE(fx_open_cfg(&fb, &cb, true));
	REQUIRE(ep_open(&a, &fa, 0));
	REQUIRE(ep_open(&b, &fb, 1));
	check_path(&fa, &a, &fb, &b, "device A -> device B");
	check_path(&fb, &b, &fa, &a, "device B -> device A");
	ep_close(&a);
	ep_close(&b);
	fx_close(&fb);
	fx_close(&fa);
}

/* ---- pair wires that do not connect (issue 13 item 5) ---------------------------- */

/* IBV_PORT_ACTIVE or IBV_PORT_DOWN of vPort `port` as the driver sees it. */
static int
port_state(struct fx *f, unsigned int port)
{
	struct ibv_port_attr pa;

	memset(&pa, 0, sizeof(pa));
	CHECK_EQ(mana_vs_query_port(f->ctx, (uint8_t)(port + 1), &pa), 0);
	return pa.state;
}

/* Send one frame and return the CQE type it completes with. */
static uint32_t
ep_send_type(struct ep *e, const void *frame, uint32_t len)
{
	struct gdma_cqe c;

	while (fx_cq_poll(&e->tx.cq, &c))
		;
	ep_post(e, frame, len);
	fx_run(e->f);
	return fx_cq_poll(&e->tx.cq, &c) ? fx_cqe_type(&c) : 0;
}

/* Pairs that can be known not to connect at create are refused there. */
static void
test_pair_refused(void)
{
	struct log_count lc = { "both ends of a pair cable name each other", 0 };
	struct mana_model_config ca, cb;
	char spec[64];
	struct fx fb;

	mana_vs_set_logger(log_counter, &lc);
	/* one port naming a port the device does not have */
	fx_config(&ca, 1);
	REQUIRE_EQ(mana_model_parse_wire("pair:1", &ca.wire[0], NULL), 0);
	errno = 0;
	CHECK_NULL(mana_vs_model_create(&ca));
	CHECK_EQ(errno, EINVAL);
	/* its own name, the other port not a pair back */
	fx_config(&ca, 2);
	snprintf(spec, sizeof(spec), "pair:%s/1", ca.name);
	REQUIRE_EQ(mana_model_parse_wire(spec, &ca.wire[0], NULL), 0);
	REQUIRE_EQ(mana_model_parse_wire("loop", &ca.wire[1], NULL), 0);
	CHECK_NULL(mana_vs_model_create(&ca));
	CHECK_EQ(lc.n, 1);
	/* another device that exists and does not point back */
	fx_config(&cb, 1);
	REQUIRE_EQ(mana_model_parse_wire("loop", &cb.wire[0], NULL), 0);
	REQUIRE(fx_open_cfg(&fb, &cb, false));
	fx_config(&ca, 1);
	snprintf(spec, sizeof(spec), "pair:%s/0", cb.name);
	REQUIRE_EQ(mana_model_parse_wire(spec, &ca.wire[0], NULL), 0);
	errno = 0;
	CHECK_NULL(mana_vs_model_create(&ca));
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(lc.n, 2);
	snprintf(spec, sizeof(spec), "pair:%s/3", cb.name);
	REQUIRE_EQ(mana_model_parse_wire(spec, &ca.wire[0], NULL), 0);
	CHECK_NULL(mana_vs_model_create(&ca));
	mana_vs_set_logger(NULL, NULL);
	fx_close(&fb);
}

/* A frame from a to port 0 of the far end fb arrives there; fb is closed after. */
static void
far_end_receives(struct fx *fb, struct ep *a, uint8_t *fr, uint32_t len)
{
	struct pkt got[4];
	struct ep b;

	REQUIRE(ep_open(&b, fb, 0));
	ep_fill(&b, 4);
	REQUIRE_EQ(mana_model_get_mac(fb->m, 0, fr), 0);	/* B's vPort filter (hardware.md §16) */
	CHECK_EQ(ep_send_type(a, fr, len), CQE_TX_OKAY);
	fx_run(fb);
	CHECK_EQ(ep_recv(&b, got, 4), 1);
	ep_close(&b);
	fx_close(fb);
}

/*
 * A pair to a device that does not exist yet: link down and TX counted
 * (tx_drop_link_down) until the far end connects; down again when it goes,
 * up when it comes back.
 */
static void
test_pair_pending(void)
{
	struct mana_model_config ca, cb;
	char spec[64];
	uint8_t fr[1600];
	struct fx fa, fb;
	struct ep a;
	uint32_t len;

	fx_config(&ca, 1);
	fx_config(&cb, 1);
	snprintf(spec, sizeof(spec), "pair:%s/0", cb.name);
	REQUIRE_EQ(mana_model_parse_wire(spec, &ca.wire[0], NULL), 0);
	snprintf(spec, sizeof(spec), "pair:%s/0", ca.name);
	REQUIRE_EQ(mana_model_parse_wire(spec, &cb.wire[0], NULL), 0);
	len = (uint32_t)mk_frame(fr, 0, 100);

	REQUIRE(fx_open_cfg(&fa, &ca, true));
	REQUIRE(ep_open(&a, &fa, 0));
	CHECK_EQ(port_state(&fa, 0), IBV_PORT_DOWN);
	CHECK_EQ(ep_send_type(&a, fr, len), CQE_TX_VPORT_DISABLED);
	CHECK_EQ(fx_stats(&fa, 0).tx_drop_link_down, 1);

	REQUIRE(fx_open_cfg(&fb, &cb, true));
	CHECK_EQ(port_state(&fb, 0), IBV_PORT_ACTIVE);
	fx_run(&fa);	/* A's engine retries and connects */
	CHECK_EQ(port_state(&fa, 0), IBV_PORT_ACTIVE);
	far_end_receives(&fb, &a, fr, len);

	fx_run(&fa);	/* the far end is gone */
	CHECK_EQ(port_state(&fa, 0), IBV_PORT_DOWN);
	CHECK_EQ(ep_send_type(&a, fr, len), CQE_TX_VPORT_DISABLED);
	CHECK_EQ(fx_stats(&fa, 0).tx_drop_link_down, 2);

	REQUIRE(fx_open_cfg(&fb, &cb, true));
	fx_run(&fa);
	CHECK_EQ(port_state(&fa, 0), IBV_PORT_ACTIVE);
	far_end_receives(&fb, &a, fr, len);
	ep_close(&a);
	fx_close(&fa);
}

/* A pair whose far end, created later, is no pair back: one line, link stays down. */
static void
test_pair_far_end_mismatch(void)
{
	struct log_count lc = { "not a pair back to it; link down until it is", 0 };
	struct mana_model_config ca, cb;
	char spec[64];
	struct fx fa, fb;
	unsigned int i;

	fx_config(&ca, 1);
	fx_config(&cb, 1);
	snprintf(spec, sizeof(spec), "pair:%s/0", cb.name);
	REQUIRE_EQ(mana_model_parse_wire(spec, &ca.wire[0], NULL), 0);
	REQUIRE_EQ(mana_model_parse_wire("loop", &cb.wire[0], NULL), 0);
	REQUIRE(fx_open_cfg(&fa, &ca, false));
	mana_vs_set_logger(log_counter, &lc);
	REQUIRE(fx_open_cfg(&fb, &cb, false));
	for (i = 0; i < 10; i++)
		mana_model_step(fa.m);
	mana_vs_set_logger(NULL, NULL);
	CHECK_EQ(lc.n, 1);
	CHECK(strstr(mana_model_last_error(fa.m), "wire is loop") != NULL);
	CHECK_EQ(port_state(&fa, 0), IBV_PORT_DOWN);
	CHECK_EQ(port_state(&fb, 0), IBV_PORT_ACTIVE);
	fx_close(&fb);
	fx_close(&fa);
}

/* ---- gen and sink ------------------------------------------------------------- */

/* A generated frame (see model_wire_gen.c): valid IPv4, checksums, pattern. */
static bool
gen_frame_ok(const uint8_t *d, uint32_t len, uint32_t want_len, uint32_t *flow, uint32_t *seq)
{
	uint32_t ihl, l4len, sum, k, magic;
	const uint8_t *ip = d + 14, *l4, *pl;

	if (len != want_len || tf_get16(d + 12) != 0x0800)
		return false;
	ihl = (ip[0] & 0xF) * 4;
	if ((ip[0] >> 4) != 4 || tf_fold(tf_sum(ip, ihl, 0)) != 0xFFFF || ip[9] != 17)
		return false;
	l4 = ip + ihl;
	l4len = tf_get16(ip + 2) - ihl;
	sum = tf_sum(ip + 12, 8, 0) + 17 + l4len;
	if (tf_get16(l4 + 6) != 0 && tf_fold(tf_sum(l4, l4len, sum)) != 0xFFFF)
		return false;
	pl = l4 + 8;
	magic = tf_get32(pl);
	*flow = tf_get32(pl + 4);
	*seq = tf_get32(pl + 8);
	if (magic != 0x4D414E41)
		return false;
	for (k = 12; k < l4len - 8; k++)
		if (pl[k] != (uint8_t)(*seq + 13 * *flow + (k - 12)))
			return false;
	return true;
}

static void
test_gen_lossless(void)
{
	enum { N = 1000, FLOWS = 4 };
	struct mana_model_config cfg;
	struct mana_model_port_stats st;
	static struct pkt got[DEPTH];
	uint32_t next_seq[FLOWS] = { 0 }, flow, seq;
	unsigned int total = 0, n, i, rounds, bad = 0;
	struct ep e;
	struct fx f;

	fx_config(&cfg, 1);
	REQUIRE_EQ(mana_model_parse_wire("gen:flows=4:len=128:count=1000:lossless=1",
					 &cfg.wire[0], NULL), 0);
	CHECK_EQ(cfg.wire[0].gen.count, N);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	/* the run-time knob keeps the devarg's limits and changes nothing past them */
	CHECK_EQ(mana_model_gen_set(f.m, 0, 1000000001ull, 4), -ERANGE);
	CHECK(strstr(mana_model_last_error(f.m), "gen_set: rate 1000000001") != NULL);
	CHECK_EQ(mana_model_gen_set(f.m, 0, 0, 65537), -ERANGE);
	CHECK_EQ(mana_model_gen_set(f.m, 0, 0, 4), 0);
	REQUIRE(ep_open(&e, &f, 0));
	for (rounds = 0; rounds < 10000 && total < N; rounds++) {
		ep_fill(&e, DEPTH);
		mana_model_step(f.m);
		n = ep_recv(&e, got, DEPTH);
		for (i = 0; i < n; i++) {
			if (!gen_frame_ok(got[i].data, got[i].len, 128, &flow, &seq) ||
			    flow >= FLOWS) {
				if (bad++ == 0)
					UNIT_FAIL("frame %u: bad pattern (len %u)", total + i,
						  got[i].len);
				continue;
			}
			/* per flow, the sequence has no hole (lossless) */
			if (seq != next_seq[flow] && bad++ == 0)
				UNIT_FAIL("flow %u: seq %u, expected %u", flow, seq,
					  next_seq[flow]);
			next_seq[flow] = seq + 1;
		}
		total += n;
	}
	CHECK_EQ(total, N);
	CHECK_EQ(bad, 0);
	/* and then nothing more */
	ep_fill(&e, DEPTH);
	fx_run(&f);
	CHECK_EQ(ep_recv(&e, NULL, 0), 0);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.wire_gen_frames, N);
	CHECK_EQ(st.rx_frames, N);
	CHECK_EQ(st.rx_drop_no_wqe, 0);
	for (i = 0; i < FLOWS; i++)
		CHECK_EQ(next_seq[i], N / FLOWS);
	ep_close(&e);
	fx_close(&f);
}

/*
 * gen with vlan: every frame carries the tag; the device strips it, so the
 * RX buffers hold the untagged generator frame (4 bytes shorter) and the
 * CQE the VLAN ID (doc/design.md, "Receive").
 */
static void
test_gen_vlan(void)
{
	enum { N = 200 };
	struct mana_model_config cfg;
	struct mana_model_port_stats st;
	static struct pkt got[DEPTH];
	unsigned int total = 0, n, i, rounds, bad = 0;
	uint32_t flow, seq;
	struct ep e;
	struct fx f;

	fx_config(&cfg, 1);
	REQUIRE_EQ(mana_model_parse_wire("gen:flows=2:len=128:count=200:lossless=1:vlan=100:"
					 "pcp=5", &cfg.wire[0], NULL), 0);
	CHECK(cfg.wire[0].gen.vlan);
	CHECK_EQ(cfg.wire[0].gen.vlan_tci, 5 << 13 | 100);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	REQUIRE(ep_open(&e, &f, 0));
	for (rounds = 0; rounds < 10000 && total < N; rounds++) {
		ep_fill(&e, DEPTH);
		mana_model_step(f.m);
		n = ep_recv(&e, got, DEPTH);
		for (i = 0; i < n; i++) {
			if (!gen_frame_ok(got[i].data, got[i].len, 124, &flow, &seq) ||
			    GDMA_GET(got[i].dw1, MANA_RXCQE_VLAN_PRESENT) != 1 ||
			    GDMA_GET(got[i].dw1, MANA_RXCQE_VLAN_ID) != 100 ||
			    GDMA_GET(got[i].dw1, MANA_RXCQE_UDP_CSUM_OK) != 1) {
				if (bad++ == 0)
					UNIT_FAIL("frame %u: len %u, dword 1 0x%08x", total + i,
						  got[i].len, got[i].dw1);
			}
		}
		total += n;
	}
	CHECK_EQ(total, N);
	CHECK_EQ(bad, 0);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.wire_gen_frames, N);
	CHECK_EQ(st.rx_bytes, N * 124);
	/* a reset zeroes the generator's count with the port's */
	CHECK_EQ(mana_model_port_stats_reset(f.m, 0), 0);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.wire_gen_frames, 0);
	CHECK_EQ(st.rx_bytes, 0);
	ep_close(&e);
	fx_close(&f);
}

static void
test_sink(void)
{
	struct mana_model_config cfg;
	struct mana_model_port_stats st;
	uint8_t fr[1600];
	size_t len;
	struct ep e;
	struct fx f;

	fx_config(&cfg, 1);
	/* lossless with no RX WQE posted: the generator stays quiet */
	REQUIRE_EQ(mana_model_parse_wire("gen:lossless=1:count=1", &cfg.wire[0], NULL), 0);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	REQUIRE(ep_open(&e, &f, 0));
	len = mk_frame(fr, 0, 200);	/* UDP, good checksums */
	ep_send(&e, fr, (uint32_t)len);
	len = mk_frame(fr, 1, 300);	/* TCP, good checksums */
	ep_send(&e, fr, (uint32_t)len);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.wire_sink_frames, 2);
	CHECK_EQ(st.wire_sink_bytes, 14 + 20 + 8 + 200 + 14 + 20 + 20 + 300);
	CHECK_EQ(st.wire_sink_bad, 0);
	CHECK_EQ(st.wire_sink_csum_ok, 2);
	/* a corrupted payload: flagged */
	len = mk_frame(fr, 2, 200);
	fr[len - 7] ^= 0x40;
	ep_send(&e, fr, (uint32_t)len);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.wire_sink_frames, 3);
	CHECK_EQ(st.wire_sink_bad, 1);
	CHECK_EQ(st.wire_sink_csum_ok, 2);
	/* a bad IPv4 header checksum: flagged */
	len = mk_frame(fr, 4, 64);
	fr[14 + 8] ^= 1;	/* TTL */
	ep_send(&e, fr, (uint32_t)len);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.wire_sink_bad, 2);
	CHECK_EQ(st.tx_frames, 4);
	CHECK_EQ(st.wire_sink_vlan, 0);
	/* an 802.1Q-tagged frame: counted as such, its checksums verified inside the tag */
	len = mk_frame_vlan(fr, 5, 120, 0x6789);
	ep_send(&e, fr, (uint32_t)len);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.wire_sink_frames, 5);
	CHECK_EQ(st.wire_sink_vlan, 1);
	CHECK_EQ(st.wire_sink_csum_ok, 3);
	CHECK_EQ(st.wire_sink_bad, 2);
	/* a reset zeroes the sink's counters with the port's */
	CHECK_EQ(mana_model_port_stats_reset(f.m, 0), 0);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.wire_sink_frames + st.wire_sink_bytes + st.wire_sink_bad +
		 st.wire_sink_csum_ok + st.wire_sink_vlan + st.tx_frames, 0);
	ep_close(&e);
	fx_close(&f);
}

/* ---- pcap --------------------------------------------------------------------- */

static void
tmp_path(char *buf, size_t n, const char *tag)
{
	const char *dir = getenv("MESON_BUILD_ROOT");

	if (dir == NULL)
		dir = ".";
	snprintf(buf, n, "%s/unit_wires_%d_%s.pcap", dir, (int)getpid(), tag);
}

static void
test_pcap_tx(void)
{
	struct mana_model_config cfg;
	char path[512], err[PCAP_ERRBUF_SIZE], spec[600];
	uint8_t fr[NSIZES][1600];
	size_t len[NSIZES];
	struct pcap_pkthdr *ph;
	const u_char *data;
	unsigned int i, n = 0;
	pcap_t *p;
	struct ep e;
	struct fx f;

	tmp_path(path, sizeof(path), "tx");
	fx_config(&cfg, 1);
	snprintf(spec, sizeof(spec), "pcap:tx=%s", path);
	REQUIRE_EQ(mana_model_parse_wire(spec, &cfg.wire[0], NULL), 0);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	REQUIRE(ep_open(&e, &f, 0));
	for (i = 0; i < NSIZES; i++) {
		len[i] = mk_frame(fr[i], i, sizes[i]);
		ep_send(&e, fr[i], (uint32_t)len[i]);
		fx_run(&f);
	}
	CHECK_EQ(fx_stats(&f, 0).tx_frames, NSIZES);
	ep_close(&e);
	fx_close(&f);	/* closes the capture */

	p = pcap_open_offline(path, err);
	if (!CHECK_MSG(p != NULL, "pcap_open_offline(%s): %s", path, err))
		return;
	CHECK_EQ(pcap_datalink(p), DLT_EN10MB);
	while (pcap_next_ex(p, &ph, &data) == 1) {
		if (n < NSIZES) {
			CHECK_EQ(ph->caplen, len[n]);
			CHECK_EQ(ph->len, len[n]);
			CHECK_MSG(ph->caplen == len[n] && memcmp(data, fr[n], len[n]) == 0,
				  "captured frame %u differs", n);
		}
		n++;
	}
	CHECK_EQ(n, NSIZES);
	pcap_close(p);
	unlink(path);
}

static void
test_pcap_rx(void)
{
	enum { N = 20 };
	struct mana_model_config cfg;
	char path[512], spec[600];
	static uint8_t fr[N][1600];
	static struct pkt got[DEPTH];
	size_t len[N];
	struct pcap_pkthdr ph;
	pcap_dumper_t *d;
	unsigned int i, n, total;
	pcap_t *dead;
	struct ep e;
	struct fx f;

	tmp_path(path, sizeof(path), "rx");
	dead = pcap_open_dead(DLT_EN10MB, 65535);
	REQUIRE_NOT_NULL(dead);
	d = pcap_dump_open(dead, path);
	REQUIRE_NOT_NULL(d);
	for (i = 0; i < N; i++) {
		len[i] = mk_frame(fr[i], i, (uint16_t)(20 + 61 * i));
		memset(&ph, 0, sizeof(ph));
		ph.ts.tv_sec = 1000 + i;
		ph.caplen = ph.len = (uint32_t)len[i];
		pcap_dump((u_char *)d, &ph, fr[i]);
	}
	pcap_dump_close(d);
	pcap_close(dead);

	/* replay once; the capture's frames are for 02:00:00:00:00:02 (tf_spec_init) */
	fx_config(&cfg, 1);
	memcpy(cfg.mac[0], fr[0], 6);
	cfg.mac_set[0] = true;
	snprintf(spec, sizeof(spec), "pcap:rx=%s", path);
	REQUIRE_EQ(mana_model_parse_wire(spec, &cfg.wire[0], NULL), 0);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	REQUIRE(ep_open(&e, &f, 0));
	ep_fill(&e, DEPTH);
	fx_run(&f);
	n = ep_recv(&e, got, DEPTH);
	CHECK_EQ(n, N);
	for (i = 0; i < n && i < N; i++)
		CHECK_MSG(got[i].len == len[i] && memcmp(got[i].data, fr[i], len[i]) == 0,
			  "replayed frame %u differs", i);
	ep_fill(&e, DEPTH);
	fx_run(&f);
	CHECK_EQ(ep_recv(&e, NULL, 0), 0);
	ep_close(&e);
	fx_close(&f);

	/* loop=1 replays forever */
	fx_config(&cfg, 1);
	memcpy(cfg.mac[0], fr[0], 6);
	cfg.mac_set[0] = true;
	snprintf(spec, sizeof(spec), "pcap:rx=%s:loop=1", path);
	REQUIRE_EQ(mana_model_parse_wire(spec, &cfg.wire[0], NULL), 0);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	REQUIRE(ep_open(&e, &f, 0));
	for (total = 0, i = 0; i < 200 && total < 3 * N; i++) {
		ep_fill(&e, DEPTH);
		mana_model_step(f.m);
		n = ep_recv(&e, got, DEPTH);
		if (n > 0 && total % N + n <= N)
			CHECK_MEM(got[0].data, fr[total % N], len[total % N]);
		total += n;
	}
	CHECK_GE(total, 3 * N);
	ep_close(&e);
	fx_close(&f);
	unlink(path);
}

/* A capture of n 200-byte frames at path. */
static void
write_capture(const char *path, unsigned int n)
{
	struct pcap_pkthdr ph;
	pcap_dumper_t *d;
	uint8_t fr[1600];
	unsigned int i;
	pcap_t *dead;

	dead = pcap_open_dead(DLT_EN10MB, 65535);
	REQUIRE_NOT_NULL(dead);
	d = pcap_dump_open(dead, path);
	REQUIRE_NOT_NULL(d);
	for (i = 0; i < n; i++) {
		memset(&ph, 0, sizeof(ph));
		ph.caplen = ph.len = (uint32_t)mk_frame(fr, i, 200 - 42);
		pcap_dump((u_char *)d, &ph, fr);
	}
	pcap_dump_close(d);
	pcap_close(dead);
}

/* Frames in a capture file; -1 if it does not open. */
static int
capture_frames(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *data;
	pcap_t *p;
	int n = 0;

	p = pcap_open_offline(path, err);
	if (p == NULL)
		return -1;
	while (pcap_next_ex(p, &ph, &data) == 1)
		n++;
	pcap_close(p);
	return n;
}

/* tx= creates or truncates its file (as DPDK's net_pcap): old content is gone. */
static void
test_pcap_tx_truncates(void)
{
	struct mana_model_config cfg;
	char path[512], spec[600];
	uint8_t fr[1600];
	struct ep e;
	struct fx f;
	size_t len;

	tmp_path(path, sizeof(path), "trunc");
	write_capture(path, 7);
	REQUIRE_EQ(capture_frames(path), 7);
	fx_config(&cfg, 1);
	snprintf(spec, sizeof(spec), "pcap:tx=%s", path);
	REQUIRE_EQ(mana_model_parse_wire(spec, &cfg.wire[0], NULL), 0);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	REQUIRE(ep_open(&e, &f, 0));
	len = mk_frame(fr, 0, 100);
	ep_send(&e, fr, (uint32_t)len);
	fx_run(&f);
	ep_send(&e, fr, (uint32_t)len);
	fx_run(&f);
	ep_close(&e);
	fx_close(&f);
	CHECK_EQ(capture_frames(path), 2);
	unlink(path);
}

/*
 * A TX file that stops taking writes (here the file size limit, as a full
 * disk): one log line, the frames that did not reach the file counted in
 * wire_drops, the complete records before it still readable.
 */
static void
test_pcap_tx_write_error(void)
{
	enum { N = 12, FRAME = 200, LIMIT = 24 + 4 * (16 + FRAME) + 100 };
	struct log_count lc = { "failed", 0 };
	struct mana_model_config cfg;
	struct rlimit rl = { LIMIT, LIMIT };
	char path[512], spec[600];
	uint8_t fr[1600];
	unsigned int i;
	struct ep e;
	struct fx f;
	size_t len;

	tmp_path(path, sizeof(path), "full");
	unlink(path);
	fx_config(&cfg, 1);
	snprintf(spec, sizeof(spec), "pcap:tx=%s", path);
	REQUIRE_EQ(mana_model_parse_wire(spec, &cfg.wire[0], NULL), 0);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	REQUIRE(ep_open(&e, &f, 0));
	/* (after the device's own memory files are sized) */
	signal(SIGXFSZ, SIG_IGN);	/* writes past the limit fail with EFBIG instead */
	REQUIRE_EQ(setrlimit(RLIMIT_FSIZE, &rl), 0);
	mana_vs_set_logger(log_counter, &lc);
	len = mk_frame(fr, 0, FRAME - 42);
	REQUIRE_EQ(len, FRAME);
	for (i = 0; i < N; i++) {
		ep_send(&e, fr, (uint32_t)len);
		fx_run(&f);	/* one flush per frame: each write's fate is known */
	}
	CHECK_EQ(fx_stats(&f, 0).tx_frames, N);
	CHECK_EQ(fx_stats(&f, 0).wire_drops, N - 4);
	CHECK_EQ(lc.n, 1);
	ep_close(&e);
	fx_close(&f);
	mana_vs_set_logger(NULL, NULL);
	CHECK_EQ(lc.n, 1);	/* nothing more at close */
	CHECK_EQ(capture_frames(path), 4);
	unlink(path);
}

/* rx= and tx= naming one file (another spelling of its path) is refused before tx truncates. */
static void
test_pcap_same_file(void)
{
	struct log_count lc = { "same file", 0 };
	struct mana_model_config cfg;
	char path[512], spec[1200], *slash;
	char other[520];

	tmp_path(path, sizeof(path), "same");
	write_capture(path, 3);
	slash = strrchr(path, '/');
	REQUIRE_NOT_NULL(slash);
	/* dir/./file: the same inode under a different string */
	snprintf(other, sizeof(other), "%.*s/.%s", (int)(slash - path), path, slash);
	fx_config(&cfg, 1);
	snprintf(spec, sizeof(spec), "pcap:rx=%s:tx=%s:loop=1", path, other);
	REQUIRE_EQ(mana_model_parse_wire(spec, &cfg.wire[0], NULL), 0);
	mana_vs_set_logger(log_counter, &lc);
	errno = 0;
	CHECK_NULL(mana_vs_model_create(&cfg));
	CHECK_EQ(errno, EINVAL);
	mana_vs_set_logger(NULL, NULL);
	CHECK_EQ(lc.n, 1);
	CHECK_EQ(capture_frames(path), 3);	/* not truncated */
	unlink(path);
}

/* A FIFO (or any non-regular file) as rx= is refused at once; it must not block. */
static void
test_pcap_rx_not_regular(void)
{
	struct log_count lc = { "not a regular file", 0 };
	struct mana_model_config cfg;
	char path[512], spec[600];

	tmp_path(path, sizeof(path), "fifo");
	unlink(path);
	REQUIRE_EQ(mkfifo(path, 0600), 0);
	alarm(20);	/* before the fix the create blocked in open() forever */
	fx_config(&cfg, 1);
	snprintf(spec, sizeof(spec), "pcap:rx=%s", path);
	REQUIRE_EQ(mana_model_parse_wire(spec, &cfg.wire[0], NULL), 0);
	lc.want = "is a FIFO";
	mana_vs_set_logger(log_counter, &lc);
	errno = 0;
	CHECK_NULL(mana_vs_model_create(&cfg));
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(lc.n, 1);
	/* a directory, a character device */
	fx_config(&cfg, 1);
	REQUIRE_EQ(mana_model_parse_wire("pcap:rx=/dev/null", &cfg.wire[0], NULL), 0);
	lc.want = "is a character device";
	CHECK_NULL(mana_vs_model_create(&cfg));
	CHECK_EQ(lc.n, 2);
	fx_config(&cfg, 1);
	REQUIRE_EQ(mana_model_parse_wire("pcap:rx=/", &cfg.wire[0], NULL), 0);
	lc.want = "is a directory";
	CHECK_NULL(mana_vs_model_create(&cfg));
	CHECK_EQ(lc.n, 3);
	mana_vs_set_logger(NULL, NULL);
	alarm(0);
	unlink(path);
}

/* ---- TAP ---------------------------------------------------------------------- */

static void
test_tap(void)
{
	struct mana_model_config cfg;
	char ifname[16], cmd[160];
	uint8_t mac[6], fr[64], sip[4] = { 10, 231, 0, 2 }, tip[4] = { 10, 231, 0, 1 };
	static struct pkt got[DEPTH];
	unsigned int i, k, n;
	bool replied = false;
	struct ep e;
	struct fx f;

	if (access("/dev/net/tun", R_OK | W_OK) != 0)
		UNIT_SKIP("/dev/net/tun not available");
	if (geteuid() != 0)
		UNIT_SKIP("not root (CAP_NET_ADMIN needed)");
	if (system("command -v ip >/dev/null 2>&1") != 0)
		UNIT_SKIP("iproute2 'ip' not installed");
	snprintf(ifname, sizeof(ifname), "mvt%d", (int)getpid() % 100000);
	fx_config(&cfg, 1);
	snprintf(cmd, sizeof(cmd), "tap:%s", ifname);
	REQUIRE_EQ(mana_model_parse_wire(cmd, &cfg.wire[0], NULL), 0);
	memset(&f, 0, sizeof(f));
	f.m = mana_vs_model_create(&cfg);
	if (f.m == NULL && (errno == EPERM || errno == EACCES || errno == ENODEV ||
			    errno == ENOENT))
		UNIT_SKIP("cannot create a TAP interface: %s", strerror(errno));
	REQUIRE_NOT_NULL(f.m);
	CHECK_EQ(mana_vs_model_destroy(f.m), 0);
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	snprintf(cmd, sizeof(cmd), "ip addr add 10.231.0.1/24 dev %s && ip link set %s up",
		 ifname, ifname);
	REQUIRE_EQ(system(cmd), 0);
	REQUIRE(ep_open(&e, &f, 0));
	REQUIRE_EQ(mana_model_get_mac(f.m, 0, mac), 0);
	ep_fill(&e, DEPTH);
	memset(fr, 0, sizeof(fr));
	tf_build_arp(fr, mac, sip, tip);
	/* ask the kernel who has 10.231.0.1; it must answer to our MAC */
	for (i = 0; i < 40 && !replied; i++) {
		if (i % 10 == 0)
			ep_send(&e, fr, 60);
		for (k = 0; k < 10; k++) {
			struct timespec ts = { 0, 5 * 1000 * 1000 };

			mana_model_step(f.m);
			nanosleep(&ts, NULL);
		}
		n = ep_recv(&e, got, DEPTH);
		for (k = 0; k < n && k < DEPTH; k++) {
			const uint8_t *d = got[k].data;

			if (got[k].len >= 42 && tf_get16(d + 12) == 0x0806 &&
			    tf_get16(d + 20) == 2 && memcmp(d + 28, tip, 4) == 0) {
				CHECK_MEM(d, mac, 6);		/* to us */
				CHECK_MEM(d + 32, mac, 6);	/* target hw */
				CHECK_MEM(d + 38, sip, 4);	/* target ip */
				replied = true;
			}
		}
		ep_fill(&e, DEPTH);
	}
	CHECK_MSG(replied, "no ARP reply from the kernel on %s", ifname);
	CHECK_GE(fx_stats(&f, 0).tx_frames, 1);
	ep_close(&e);
	fx_close(&f);
}

/* ---- wire spec parser ------------------------------------------------------------ */

static void
test_parse_valid(void)
{
	struct mana_model_wire_cfg w;
	const char *why = "x";

	memset(&w, 0xAA, sizeof(w));
	CHECK_EQ(mana_model_parse_wire("none", &w, &why), 0);
	CHECK_EQ(w.type, MANA_MODEL_WIRE_NONE);
	CHECK_EQ(mana_model_parse_wire("loop", &w, &why), 0);
	CHECK_EQ(w.type, MANA_MODEL_WIRE_LOOP);
	CHECK_EQ(mana_model_parse_wire("pair:3", &w, &why), 0);
	CHECK_EQ(w.type, MANA_MODEL_WIRE_PAIR);
	CHECK_EQ(w.pair.port, 3);
	CHECK_EQ(w.pair.dev[0], 0);
	CHECK_EQ(mana_model_parse_wire("pair:dev_2.b/7", &w, &why), 0);
	CHECK_EQ(w.type, MANA_MODEL_WIRE_PAIR);
	CHECK(strcmp(w.pair.dev, "dev_2.b") == 0);
	CHECK_EQ(w.pair.port, 7);
	CHECK_EQ(mana_model_parse_wire("gen", &w, &why), 0);
	CHECK_EQ(w.type, MANA_MODEL_WIRE_GEN);
	CHECK_EQ(w.gen.flows, 1);
	CHECK_EQ(w.gen.frame_len, 64);
	CHECK_EQ(w.gen.proto, MANA_MODEL_GEN_UDP);
	CHECK(!w.gen.ipv6);
	CHECK_EQ(w.gen.count, 0);
	CHECK_EQ(mana_model_parse_wire("gen:flows=16:len=1500:proto=tcp:ipv6=1:rate=250000:"
				       "count=77:lossless=1:dmac=02-aa-bb-cc-dd-0e", &w, &why), 0);
	CHECK_EQ(w.type, MANA_MODEL_WIRE_GEN);
	CHECK_EQ(w.gen.flows, 16);
	CHECK_EQ(w.gen.frame_len, 1500);
	CHECK_EQ(w.gen.proto, MANA_MODEL_GEN_TCP);
	CHECK(w.gen.ipv6);
	CHECK_EQ(w.gen.rate_pps, 250000);
	CHECK_EQ(w.gen.count, 77);
	CHECK(w.gen.lossless);
	CHECK_EQ(w.gen.dst_mac[0], 0x02);
	CHECK_EQ(w.gen.dst_mac[1], 0xaa);
	CHECK_EQ(w.gen.dst_mac[5], 0x0e);
	CHECK(!w.gen.vlan);
	CHECK_EQ(w.gen.vlan_tci, 0);
	CHECK_EQ(mana_model_parse_wire("gen:vlan=4095", &w, &why), 0);
	CHECK(w.gen.vlan);
	CHECK_EQ(w.gen.vlan_tci, 4095);
	CHECK_EQ(w.gen.frame_len, 64);
	CHECK_EQ(mana_model_parse_wire("gen:pcp=7:vlan=0", &w, &why), 0);
	CHECK(w.gen.vlan);
	CHECK_EQ(w.gen.vlan_tci, 0xE000);
	/* the tag counts in the frame: the smallest TCP/IPv6 frame grows by 4 */
	CHECK_EQ(mana_model_parse_wire("gen:proto=tcp:ipv6=1:vlan=7", &w, &why), 0);
	CHECK_EQ(w.gen.frame_len, 90);
	CHECK_EQ(mana_model_parse_wire("gen:proto=tcp:vlan=7:len=70", &w, &why), 0);
	CHECK_EQ(mana_model_parse_wire("pcap:rx=/tmp/in.pcap:tx=/tmp/out.pcap:loop=1", &w,
				       &why), 0);
	CHECK_EQ(w.type, MANA_MODEL_WIRE_PCAP);
	CHECK(strcmp(w.pcap.rx, "/tmp/in.pcap") == 0);
	CHECK(strcmp(w.pcap.tx, "/tmp/out.pcap") == 0);
	CHECK(w.pcap.loop_file);
	CHECK_EQ(mana_model_parse_wire("pcap:tx=/x/y.pcap", &w, &why), 0);
	CHECK_EQ(w.type, MANA_MODEL_WIRE_PCAP);
	CHECK_EQ(w.pcap.rx[0], 0);
	CHECK(strcmp(w.pcap.tx, "/x/y.pcap") == 0);
	CHECK(!w.pcap.loop_file);
	CHECK_EQ(mana_model_parse_wire("tap:mtap0", &w, &why), 0);
	CHECK_EQ(w.type, MANA_MODEL_WIRE_TAP);
	CHECK(strcmp(w.tap.ifname, "mtap0") == 0);
	CHECK(why == NULL || why[0] == 0);
}

static void
test_parse_invalid(void)
{
	static const struct {
		const char *spec;
		const char *names;	/* the error text must contain this */
	} bad[] = {
		{ "wat", "unknown" },
		{ "", "" },
		{ "loop:1", "loop" },
		{ "pair", "pair" },
		{ "pair:", "pair" },
		{ "pair:8", "port" },
		{ "pair:x", "port" },
		{ "pair:dev/99", "port" },
		{ "gen:flows=abc", "flows" },
		{ "gen:flows=0", "flows" },
		{ "gen:flows=65537", "flows" },
		{ "gen:len=99999", "len" },
		{ "gen:len=12x", "len" },
		{ "gen:proto=sctp", "proto" },
		{ "gen:ipv6=2", "ipv6" },
		{ "gen:rate=-5", "rate" },
		{ "gen:count=lots", "count" },
		{ "gen:lossless=yes", "lossless" },
		{ "gen:dmac=02:00", "dmac" },
		{ "gen:dmac=zz-00-00-00-00-00", "dmac" },
		{ "gen:bogus=1", "unknown key" },
		{ "gen:flows=2:flows=3", "twice" },
		{ "gen:vlan=4096", "vlan" },
		{ "gen:vlan=", "vlan" },
		{ "gen:vlan=1:pcp=8", "pcp" },
		{ "gen:pcp=3", "pcp needs vlan" },
		{ "gen:proto=tcp:vlan=7:len=69", "len" },
		{ "gen:vlan=1:vlan=2", "twice" },
		{ "pcap:foo=1", "unknown key" },
		{ "pcap:loop=7:rx=/a", "loop" },
		{ "pcap:rx=", "rx" },
		{ "tap:", "tap" },
		{ "tap:a/b", "tap" },
		{ "tap:0123456789abcdef", "tap" },
	};
	struct mana_model_wire_cfg w;
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		CHECK_MSG(mana_model_parse_wire(bad[i].spec, &w, &why) == -EINVAL,
			  "'%s' accepted", bad[i].spec);
		if (CHECK_MSG(why != NULL && why[0] != 0, "'%s': no reason given", bad[i].spec))
			CHECK_MSG(strstr(why, bad[i].names) != NULL,
				  "'%s': reason '%s' does not name '%s'", bad[i].spec, why,
				  bad[i].names);
	}
	/* NULL why is allowed */
	CHECK_EQ(mana_model_parse_wire("gen:flows=0", &w, NULL), -EINVAL);
}

/* A device whose wire cannot open fails to create (and says so). */
static void
test_bad_wire_create(void)
{
	struct mana_model_config cfg;

	fx_config(&cfg, 1);
	REQUIRE_EQ(mana_model_parse_wire("pcap:rx=/nonexistent/dir/none.pcap", &cfg.wire[0],
					 NULL), 0);
	errno = 0;
	CHECK_NULL(mana_vs_model_create(&cfg));
	CHECK_NE(errno, 0);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_parse_valid),
	UNIT_TEST(test_parse_invalid),
	UNIT_TEST(test_bad_wire_create),
	UNIT_TEST(test_loop),
	UNIT_TEST(test_pair_ports),
	UNIT_TEST(test_pair_devices),
	UNIT_TEST(test_pair_refused),
	UNIT_TEST(test_pair_pending),
	UNIT_TEST(test_pair_far_end_mismatch),
	UNIT_TEST(test_gen_lossless),
	UNIT_TEST(test_gen_vlan),
	UNIT_TEST(test_sink),
	UNIT_TEST(test_pcap_tx),
	UNIT_TEST(test_pcap_rx),
	UNIT_TEST(test_pcap_tx_truncates),
	UNIT_TEST(test_pcap_tx_write_error),
	UNIT_TEST(test_pcap_same_file),
	UNIT_TEST(test_pcap_rx_not_regular),
	UNIT_TEST(test_tap),
};

UNIT_MAIN(tests)
