/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The gen wire: a traffic generator (the port's RX) and a sink (its TX).
 *
 * Generated frames (frame_len bytes, FCS excluded):
 *   Ethernet  dst = cfg dst_mac, or the port's own MAC when all zero;
 *             src = 02:00:00:00:00:01 (MM_GEN_SRC_MAC); type IPv4 or IPv6,
 *             after an 802.1Q tag (TPID 0x8100, cfg vlan_tci) with cfg vlan
 *   IPv4      10.x.y.z source, x.y.z = (mix(seed) + 1 + flow) mod 2^24;
 *             destination dst_ip_base (0: 198.18.0.1) for every flow; TTL 64,
 *             ID 0, no fragmentation
 *   IPv6      source 2001:db8:1::/96 + (mix(seed) + 1 + flow) in the last 32 bits;
 *             destination 2001:db8::/96 + dst_ip_base; hop limit 64
 *   UDP/TCP   source port 1024 + (mix(seed) / 256 + flow) mod 64512, destination
 *             port 9; TCP: sequence number = the flow's frame number, flags
 *             PSH|ACK, window 65535, no options
 *   payload   magic 0x4D414E41 ("MANA"), flow index, per-flow sequence (all
 *             32-bit big-endian), then bytes (seq + 13 * flow + k) mod 256
 * Flows vary only the source address and port, so routes on the destination
 * match every flow; RSS spreads them. IP and L4 checksums are correct.
 *
 * The sink counts every frame (and those with an 802.1Q tag), verifies its
 * IPv4 header and TCP/UDP checksums and, when the payload carries the
 * magic, the whole pattern.
 */

/* POSIX/GNU interfaces (clock_gettime, strnlen, posix_memalign...) under -std=c11. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model_net.h"
#include "model_wire_priv.h"

#define GEN_DST_PORT		9
#define GEN_SPORT_MIN		1024
#define GEN_SPORT_SPAN		64512
#define GEN_DEFAULT_DIP		0xC6120001u	/* 198.18.0.1 */
#define GEN_RATE_MAX		10000000000ull	/* clamp for live values */
#define GEN_CATCHUP_NS		10000000ull	/* at most 10 ms of credit per pass */
#define NS_PER_S		1000000000ull
#define RAMP_LEN		(256 + MANA_MODEL_MAX_FRAME)
#define GEN_ETH_HLEN		14
#define GEN_VLAN_HLEN		4
#define GEN_TPID_VLAN		0x8100

static const uint8_t gen_src_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

/*
 * ramp[i] = i mod 256: the payload pattern is a window of it. Filled when
 * the first gen wire opens, not by a constructor: a library constructor
 * (lib/ibverbs_model) may create a model, and open its wires, before the
 * constructors of later objects ran.
 */
static uint8_t ramp[RAMP_LEN];
static pthread_once_t ramp_once = PTHREAD_ONCE_INIT;

static void
ramp_init(void)
{
	uint32_t i;

	for (i = 0; i < RAMP_LEN; i++)
		ramp[i] = (uint8_t)i;
}

struct mm_gen {
	struct mm_sink sink;			/* first: frames this port sends */
	uint64_t frames;			/* generated (wire_gen_frames) */
	uint64_t rate_pps;			/* live value, mana_model_gen_set() */
	uint32_t flows;				/* live value, 1..MM_GEN_MAX_FLOWS */
	uint8_t frame[MANA_MODEL_MAX_FRAME];	/* the next frame; headers from tmpl */
	uint8_t tmpl[128];			/* headers common to every flow */
	uint32_t ip_sum;			/* IPv4 header sum, source and checksum 0 */
	uint32_t l4_sum;			/* pseudo, L4, payload headers; varying 0 */
	uint32_t src_off;			/* the varying 32 bits of the source address */
	uint32_t csum_off;			/* L4 checksum field */
	struct mm_frame_info fi;		/* of every generated frame */
	uint32_t len;				/* frame_len */
	uint32_t pay_off;			/* payload offset */
	uint32_t ramp_len;			/* pattern bytes after the payload header */
	uint32_t ramp_sum[256];			/* checksum of each pattern window */
	uint32_t src_base;
	uint32_t sport_base;
	uint32_t next_flow;
	bool held;				/* frame built, not yet accepted */
	uint32_t held_flow;
	uint64_t owed;				/* frames owed x 1e9 (rate control) */
	uint64_t last_ns;
	bool timed;				/* last_ns is current (rate was not 0) */
	uint32_t *seq;				/* per flow, MM_GEN_MAX_FLOWS */
};
_Static_assert(offsetof(struct mm_gen, sink) == 0, "mm_sink_stats reads priv as its sink");

/* Big-endian stores (one store each, not byte by byte). */
static inline void
wr16(uint8_t *p, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	memcpy(p, b, 2);
}

static inline void
wr32(uint8_t *p, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	memcpy(p, b, 4);
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline uint8_t
pattern_start(uint32_t flow, uint32_t seq)
{
	return (uint8_t)(seq + 13 * flow);
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* A fixed integer hash, so seeds spread over the address and port spaces. */
static uint32_t
mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7FEB352Du;
	x ^= x >> 15;
	x *= 0x846CA68Bu;
	x ^= x >> 16;
	return x;
}

uint32_t
mm_gen_min_len(enum mana_model_gen_proto proto, bool ipv6, bool vlan)
{
	uint32_t n = GEN_ETH_HLEN + (vlan ? GEN_VLAN_HLEN : 0) + (ipv6 ? 40 : 20) +
		     (proto == MANA_MODEL_GEN_TCP ? 20 : 8) + MM_GEN_PAYLOAD_HDR;

	return n < 60 ? 60 : n;
}

/* Headers of every frame: all but source address/port, sequence and checksums. */
static void
gen_template(struct mm_gen *g, const struct mana_model_gen_cfg *c, const uint8_t *dmac)
{
	uint32_t l2_len = GEN_ETH_HLEN + (c->vlan ? GEN_VLAN_HLEN : 0);
	uint8_t *t = g->tmpl, *ip = t + l2_len, *l4;
	uint32_t dip = c->dst_ip_base != 0 ? c->dst_ip_base : GEN_DEFAULT_DIP;
	uint32_t l3_len = g->len - l2_len, l4_len;
	uint8_t proto = c->proto == MANA_MODEL_GEN_TCP ? 6 : 17;
	uint16_t ethertype = c->ipv6 ? 0x86DD : 0x0800;

	memset(t, 0, sizeof(g->tmpl));
	memcpy(t, dmac, 6);
	memcpy(t + 6, gen_src_mac, 6);
	if (c->vlan) {
		wr16(t + 12, GEN_TPID_VLAN);
		wr16(t + 14, c->vlan_tci);
	}
	wr16(ip - 2, ethertype);
	if (c->ipv6) {
		ip[0] = 0x60;
		wr16(ip + 4, (uint16_t)(l3_len - 40));
		ip[6] = proto;
		ip[7] = 64;
		wr32(ip + 8, 0x20010DB8u);
		wr16(ip + 12, 1);
		wr32(ip + 24, 0x20010DB8u);
		wr32(ip + 36, dip);
		l4 = ip + 40;
	} else {
		ip[0] = 0x45;
		wr16(ip + 2, (uint16_t)l3_len);
		ip[8] = 64;
		ip[9] = proto;
		wr32(ip + 16, dip);
		l4 = ip + 20;
	}
	l4_len = (uint32_t)(ip + l3_len - l4);
	wr16(l4 + 2, GEN_DST_PORT);
	if (proto == 6) {
		l4[12] = 5 << 4;
		l4[13] = 0x18;		/* PSH, ACK */
		wr16(l4 + 14, 0xFFFF);
	} else {
		wr16(l4 + 4, (uint16_t)l4_len);
	}
	memset(&g->fi, 0, sizeof(g->fi));
	g->fi.ethertype = ethertype;
	g->fi.vlan = c->vlan;
	g->fi.vlan_tci = c->vlan_tci;
	g->fi.ipv4 = !c->ipv6;
	g->fi.ipv6 = c->ipv6;
	g->fi.l3_off = (uint16_t)l2_len;
	g->fi.l3_len = (uint16_t)l3_len;
	g->fi.l4_off = (uint16_t)(l4 - t);
	g->fi.l4_proto = proto;
	g->pay_off = g->fi.l4_off + (proto == 6 ? 20 : 8);
}

/* Sum of the two 16-bit big-endian words of v, for a one's-complement sum. */
static inline uint32_t
words32(uint32_t v)
{
	return (v >> 16) + (v & 0xFFFF);
}

/*
 * The frame buffer holds the template headers and the payload magic from
 * open on; a frame only patches what varies (source address and port, TCP
 * sequence, payload flow/sequence and pattern) and adds those fields to the
 * sums of the constant part for its checksums. Same bytes as building the
 * frame and summing it whole.
 */
static void
gen_build(struct mm_gen *g, uint32_t flow, uint32_t seq)
{
	uint8_t *f = g->frame, *ip = f + g->fi.l3_off, *l4 = f + g->fi.l4_off;
	uint8_t *pay = f + g->pay_off;
	uint8_t start = pattern_start(flow, seq);
	uint32_t src, sum;
	uint16_t sport, c;

	if (g->fi.ipv6) {
		src = g->src_base + flow;
	} else {
		src = 0x0A000000u | ((g->src_base + flow) & 0xFFFFFFu);
		wr16(ip + 10, (uint16_t)~mm_csum_fold(g->ip_sum + words32(src)));
	}
	wr32(f + g->src_off, src);
	sport = (uint16_t)(GEN_SPORT_MIN + (g->sport_base + flow) % GEN_SPORT_SPAN);
	wr16(l4, sport);
	sum = g->l4_sum + words32(src) + sport + words32(flow) + words32(seq);
	if (g->fi.l4_proto == 6) {
		wr32(l4 + 4, seq);
		sum += words32(seq);
	}
	wr32(pay + 4, flow);
	wr32(pay + 8, seq);
	memcpy(pay + MM_GEN_PAYLOAD_HDR, ramp + start, g->ramp_len);
	/* The pattern's sum is precomputed; it starts at an even L4 offset. */
	c = (uint16_t)~mm_csum_fold(mm_csum_fold(sum) + g->ramp_sum[start]);
	if (g->fi.l4_proto == 17 && c == 0)
		c = 0xFFFF;
	wr16(f + g->csum_off, c);
}

/* The constant part of every frame and of its checksum sums (open time). */
static void
gen_prepare(struct mm_gen *g)
{
	uint8_t *f = g->frame;

	memcpy(f, g->tmpl, g->pay_off);
	wr32(f + g->pay_off, MM_GEN_MAGIC);
	memset(f + g->pay_off + 4, 0, MM_GEN_PAYLOAD_HDR - 4);
	g->src_off = g->fi.l3_off + (g->fi.ipv6 ? 20 : 12);
	g->csum_off = g->fi.l4_off + (g->fi.l4_proto == 6 ? 16 : 6);
	/* Template: source, ports... and checksums 0; only the pseudo header is summed apart. */
	g->ip_sum = g->fi.ipv6 ? 0 : mm_csum_partial(f + g->fi.l3_off, 20, 0);
	g->l4_sum = mm_csum_partial(f + g->fi.l4_off,
				    g->pay_off + MM_GEN_PAYLOAD_HDR - g->fi.l4_off,
				    mm_csum_pseudo(f, &g->fi));
}

/* How many frames the rate allows now (budget when unlimited). */
static unsigned int
gen_allowance(struct mm_gen *g, uint64_t rate, unsigned int budget)
{
	uint64_t now, el, n;

	/* Unlimited: no clock read per pass; the clock restarts when a rate is set. */
	if (rate == 0) {
		g->timed = false;
		return budget;
	}
	now = mono_ns();
	if (!g->timed) {
		g->last_ns = now;
		g->timed = true;
	}
	el = now - g->last_ns;
	g->last_ns = now;
	if (rate > GEN_RATE_MAX)
		rate = GEN_RATE_MAX;
	if (el > GEN_CATCHUP_NS)
		el = GEN_CATCHUP_NS;
	g->owed += el * rate;
	/* No bursts beyond one pass's budget after a stall. */
	if (g->owed > (uint64_t)budget * NS_PER_S)
		g->owed = (uint64_t)budget * NS_PER_S;
	n = g->owed / NS_PER_S;
	return n < budget ? (unsigned int)n : budget;
}

static unsigned int
gen_poll(struct mm_wire *w, unsigned int budget)
{
	struct mm_gen *g = w->priv;
	uint64_t rate = __atomic_load_n(&g->rate_pps, __ATOMIC_RELAXED);
	uint32_t flows = __atomic_load_n(&g->flows, __ATOMIC_RELAXED);
	unsigned int n, sent = 0;

	if (w->cfg.gen.count != 0) {
		if (g->frames >= w->cfg.gen.count)
			return 0;
		if (w->cfg.gen.count - g->frames < budget)
			budget = (unsigned int)(w->cfg.gen.count - g->frames);
	}
	if (flows == 0 || flows > MM_GEN_MAX_FLOWS)
		flows = flows == 0 ? 1 : MM_GEN_MAX_FLOWS;
	n = gen_allowance(g, rate, budget);
	while (sent < n) {
		if (!g->held) {
			if (g->next_flow >= flows)
				g->next_flow = 0;
			g->held_flow = g->next_flow;
			gen_build(g, g->held_flow, g->seq[g->held_flow]);
			g->held = true;
		}
		if (!w->cfg.gen.lossless)
			mm_port_rx(w->port, g->frame, g->len);
		else if (!mm_port_rx_if_ready(w->port, g->frame, g->len))
			break;
		g->held = false;
		g->seq[g->held_flow]++;
		g->next_flow = g->held_flow + 1;
		g->frames++;
		sent++;
	}
	if (rate != 0)
		g->owed -= (uint64_t)sent * NS_PER_S;
	return sent;
}

static void
gen_tx(struct mm_wire *w, const uint8_t *frame, uint32_t len)
{
	struct mm_gen *g = w->priv;

	mm_sink_frame(&g->sink, frame, len);
}

static void
gen_stats(const struct mm_wire *w, struct mana_model_port_stats *st)
{
	const struct mm_gen *g = w->priv;

	mm_sink_stats(w, st);
	st->wire_gen_frames = g->frames;
}

static void
gen_stats_reset(struct mm_wire *w)
{
	struct mm_gen *g = w->priv;

	mm_sink_stats_reset(w);
	g->frames = 0;
}

static void
gen_close(struct mm_wire *w)
{
	struct mm_gen *g = w->priv;

	if (g == NULL)
		return;
	free(g->seq);
	free(g);
	w->priv = NULL;
}

static const struct mm_wire_ops gen_ops = {
	.name = "gen", .tx = gen_tx, .poll = gen_poll, .close = gen_close,
	.stats = gen_stats, .stats_reset = gen_stats_reset,
};

void
mm_wire_gen_set(struct mm_wire *w, uint64_t rate_pps, uint32_t flows)
{
	struct mm_gen *g = w->priv;

	g->rate_pps = rate_pps;
	if (flows != 0)
		g->flows = flows;
}

int
mm_wire_gen_open(struct mm_wire *w)
{
	const struct mana_model_gen_cfg *c = &w->cfg.gen;
	static const uint8_t zero_mac[6];
	struct mm_gen *g;
	uint32_t i;

	if (c->frame_len < mm_gen_min_len(c->proto, c->ipv6, c->vlan) ||
	    c->frame_len > MANA_MODEL_MAX_FRAME)
		return -EINVAL;
	pthread_once(&ramp_once, ramp_init);
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	g->seq = calloc(MM_GEN_MAX_FLOWS, sizeof(*g->seq));
	if (g->seq == NULL) {
		free(g);
		return -ENOMEM;
	}
	g->len = c->frame_len;
	gen_template(g, c, memcmp(c->dst_mac, zero_mac, 6) != 0 ? c->dst_mac :
			   mm_port_mac(w->port));
	gen_prepare(g);
	g->ramp_len = g->len - g->pay_off - MM_GEN_PAYLOAD_HDR;
	for (i = 0; i < 256; i++)
		g->ramp_sum[i] = mm_csum_partial(ramp + i, g->ramp_len, 0);
	/* Seed 0 gives 10.0.0.1, 10.0.0.2, ... and ports 1024, 1025, ... */
	g->src_base = mix32(c->seed) + 1;
	g->sport_base = (mix32(c->seed) >> 8) % GEN_SPORT_SPAN;
	g->last_ns = mono_ns();
	g->timed = true;
	w->priv = g;
	w->ops = &gen_ops;
	g->rate_pps = c->rate_pps;
	g->flows = c->flows;
	return 0;
}

/* ---- sink ----------------------------------------------------------- */

/* A generator payload whose pattern does not match is corrupted. */
static bool
sink_payload_ok(const uint8_t *frame, const struct mm_frame_info *fi)
{
	uint32_t off, end, flow, seq;
	const uint8_t *pay;

	if (fi->l4_off == 0 || fi->fragment)
		return true;
	off = fi->l4_off + (fi->l4_proto == 6 ? (uint32_t)(frame[fi->l4_off + 12] >> 4) * 4 : 8);
	end = (uint32_t)fi->l3_off + fi->l3_len;
	if (end < off + MM_GEN_PAYLOAD_HDR)
		return true;
	pay = frame + off;
	if (rd32(pay) != MM_GEN_MAGIC)
		return true;	/* not from a generator: checksums only */
	flow = rd32(pay + 4);
	seq = rd32(pay + 8);
	return memcmp(pay + MM_GEN_PAYLOAD_HDR, ramp + pattern_start(flow, seq),
		      end - off - MM_GEN_PAYLOAD_HDR) == 0;
}

/*
 * sink_csum_ok counts frames whose checksums were all verified good (an
 * IPv4 header and/or a TCP/UDP checksum; a UDP/IPv4 checksum of 0 verifies
 * nothing at L4, so such a frame is not counted there); sink_bad counts
 * frames with a wrong checksum, a corrupted generator payload, or too short
 * to be Ethernet. Other frames (non-IP...) only count in sink_frames.
 * sink_vlan counts frames with an 802.1Q tag (TPID 0x8100) after the MAC
 * addresses, whatever else they are.
 */
void
mm_sink_frame(struct mm_sink *s, const uint8_t *frame, uint32_t len)
{
	struct mm_frame_info fi;
	struct mm_csum_result r;

	s->frames++;
	s->bytes += len;
	if (!mm_frame_parse(frame, len, &fi)) {
		s->bad++;
		return;
	}
	s->vlan += fi.vlan;
	mm_csum_verify(frame, len, &fi, &r);
	if ((r.ip_checked && !r.ip_ok) || (r.l4_checked && !r.l4_ok) ||
	    !sink_payload_ok(frame, &fi))
		s->bad++;
	else if ((r.ip_checked || r.l4_checked) && !r.udp_no_csum)
		s->csum_ok++;
}
