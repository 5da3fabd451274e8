/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * tso_tcp: a TCP stream sent with TSO from a net_mana port to a Linux socket.
 *
 * The port's wire is a TAP interface (`wire=tap:<name>`) that the script
 * (tso_tcp_test.sh) moves into a network namespace of its own once the port
 * has started (--setup runs it), where a socket receives the stream and
 * checks every byte. This program speaks just enough TCP over IPv4: SYN with
 * an MSS and window scale option, the peer's SYN-ACK, ACK; then --bytes of a
 * deterministic pattern (byte i = tso_tcp_byte(i), the receiver computes the
 * same) in TSO sends of up to --chunk bytes of payload (header mbuf plus
 * payload mbufs, a multi-segment mbuf), within the peer's window; go-back-N
 * retransmission from snd_una on a timeout or three duplicate ACKs; FIN, and
 * the ACK of it. Segments within one MSS go out as plain frames, checksums
 * computed here.
 *
 * At the end it prints the port's xstats dev_tx_lso_wqes and
 * dev_tx_lso_segments and fails (exit 1) unless the device segmented TSO
 * sends (segments > sends > 0), the handshake completed and every byte was
 * acknowledged within --seconds. The receiver's verdict is the script's.
 *
 * usage: tso_tcp [EAL options] -- --local-ip A --peer-ip B --peer-mac M
 *        [--port P] [--bytes N] [--chunk C] [--mss S] [--seconds T]
 *        [--setup "command"] [--no-tso] [--vlan ID] [--drop-every N]
 *
 * --no-tso sends the same stream in plain frames of one MSS (TSO neither
 * needed nor checked): a failure with TSO that this does not share is TSO's.
 * --vlan has the port insert an 802.1Q tag into every frame (VLAN insertion
 * offload, so on every TSO segment); the device strips it from what arrives.
 * --drop-every N frees every N-th data send instead of sending it (a send
 * lost on the way): the receiver sees a hole, and the stream must still
 * arrive whole, by retransmission from snd_una.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#define TT_PORT		0
#define TT_BURST	32
#define TT_SEG_DATA	8192		/* payload mbufs: 8 KB each, 64 KB in 8 */
#define TT_NB_MBUFS	4095
#define TT_MAX_CHUNK	(65535 - 14 - 20 - 20)
#define TT_HDR_LEN	(14 + 20 + 20)
#define TT_OPT_LEN	8		/* SYN: MSS (4) + NOP + window scale (3) */
#define TT_WSCALE	7
#define TT_RTO_MS	200
#define TT_MAX_FLIGHT	(1u << 20)	/* bytes in flight at most */

static struct {
	uint32_t local_ip, peer_ip;	/* network order */
	struct rte_ether_addr peer_mac, local_mac;
	uint16_t sport, dport;
	uint64_t bytes;
	uint32_t chunk;
	uint16_t mss;
	double seconds;
	const char *setup;
	bool no_tso;
	uint16_t vlan;			/* 0: untagged */
	uint32_t drop_every;		/* 0: never */
} opt = {
	.sport = 40123, .dport = 5001, .bytes = 8u << 20, .chunk = 65160, .mss = 1448,
	.seconds = 60,
};

/* The TCP state of the one connection. */
static struct {
	uint32_t iss, irs;		/* initial send / receive sequence numbers */
	uint64_t una, nxt;		/* stream offsets: acknowledged, next to send */
	uint64_t wnd;			/* peer's window in bytes */
	uint8_t peer_wscale;
	uint16_t peer_mss;
	uint32_t rcv_nxt;		/* next sequence number expected from the peer */
	bool established, fin_sent, fin_acked, peer_fin;
	unsigned int dupacks;
	uint64_t last_progress;		/* TSC of the last ACK that moved una */
	uint64_t tso_sends, plain_sends, retransmits, timeouts, acks;
	uint64_t data_sends, dropped;	/* --drop-every */
} tcp;

static struct rte_mempool *pool;

/* Byte i of the stream; tso_tcp_recv.py computes the same. */
static inline uint8_t
tso_tcp_byte(uint64_t i)
{
	return (uint8_t)((i * 7) ^ (i >> 9) ^ (i >> 17));
}

static int
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{"local-ip", 1, NULL, 'l'}, {"peer-ip", 1, NULL, 'p'},
		{"peer-mac", 1, NULL, 'm'}, {"port", 1, NULL, 'P'},
		{"bytes", 1, NULL, 'b'}, {"chunk", 1, NULL, 'c'}, {"mss", 1, NULL, 's'},
		{"seconds", 1, NULL, 't'}, {"setup", 1, NULL, 'S'}, {"no-tso", 0, NULL, 'N'},
		{"vlan", 1, NULL, 'V'}, {"drop-every", 1, NULL, 'D'},
		{NULL, 0, NULL, 0},
	};
	struct in_addr a;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'l':
		case 'p':
			if (inet_pton(AF_INET, optarg, &a) != 1) {
				fprintf(stderr, "tso_tcp: bad IPv4 address %s\n", optarg);
				return -1;
			}
			if (c == 'l')
				opt.local_ip = a.s_addr;
			else
				opt.peer_ip = a.s_addr;
			break;
		case 'm':
			if (rte_ether_unformat_addr(optarg, &opt.peer_mac) != 0) {
				fprintf(stderr, "tso_tcp: bad MAC %s\n", optarg);
				return -1;
			}
			break;
		case 'P': opt.dport = (uint16_t)atoi(optarg); break;
		case 'b': opt.bytes = strtoull(optarg, NULL, 0); break;
		case 'c': opt.chunk = (uint32_t)atoi(optarg); break;
		case 's': opt.mss = (uint16_t)atoi(optarg); break;
		case 't': opt.seconds = atof(optarg); break;
		case 'S': opt.setup = optarg; break;
		case 'N': opt.no_tso = true; break;
		case 'V': opt.vlan = (uint16_t)atoi(optarg); break;
		case 'D': opt.drop_every = (uint32_t)atoi(optarg); break;
		default:
			return -1;
		}
	}
	if (opt.local_ip == 0 || opt.peer_ip == 0 || opt.bytes == 0 || opt.mss < 64 ||
	    opt.chunk < opt.mss || opt.chunk > TT_MAX_CHUNK) {
		fprintf(stderr, "tso_tcp: needs --local-ip, --peer-ip, --peer-mac; "
			"--mss 64.., --chunk mss..%u\n", TT_MAX_CHUNK);
		return -1;
	}
	if (opt.no_tso)
		opt.chunk = opt.mss;
	return 0;
}

static int
port_init(void)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_txconf txc;
	uint64_t want = RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
		RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
	int rc;

	if (opt.no_tso)
		want &= ~RTE_ETH_TX_OFFLOAD_TCP_TSO;
	if (opt.vlan != 0)
		want |= RTE_ETH_TX_OFFLOAD_VLAN_INSERT;
	rc = rte_eth_dev_info_get(TT_PORT, &info);
	if (rc != 0)
		return rc;
	if ((info.tx_offload_capa & want) != want) {
		fprintf(stderr, "tso_tcp: port %u lacks TX offloads 0x%" PRIx64
			" (TSO, multi-segment, IPv4 and TCP checksum, VLAN insertion)\n", TT_PORT,
			want & ~info.tx_offload_capa);
		return -ENOTSUP;
	}
	memset(&conf, 0, sizeof(conf));
	conf.txmode.offloads = want;
	rc = rte_eth_dev_configure(TT_PORT, 1, 1, &conf);
	if (rc != 0)
		return rc;
	rc = rte_eth_rx_queue_setup(TT_PORT, 0, 256, rte_eth_dev_socket_id(TT_PORT), NULL,
				    pool);
	if (rc != 0)
		return rc;
	txc = info.default_txconf;
	txc.offloads = want;
	rc = rte_eth_tx_queue_setup(TT_PORT, 0, 256, rte_eth_dev_socket_id(TT_PORT), &txc);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_start(TT_PORT);
	if (rc != 0)
		return rc;
	return rte_eth_macaddr_get(TT_PORT, &opt.local_mac);
}

/* Ethernet + IPv4 + TCP headers into m; returns the TCP header. */
static struct rte_tcp_hdr *
put_headers(struct rte_mbuf *m, uint32_t seq, uint8_t flags, uint16_t optlen,
	    uint32_t ip_payload)
{
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	uint64_t wnd = 65535;

	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, TT_HDR_LEN + optlen);
	rte_ether_addr_copy(&opt.peer_mac, &eth->dst_addr);
	rte_ether_addr_copy(&opt.local_mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(20 + ip_payload);
	ip->packet_id = rte_cpu_to_be_16((uint16_t)(tcp.tso_sends * 64 + tcp.plain_sends));
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = opt.local_ip;
	ip->dst_addr = opt.peer_ip;
	th = (struct rte_tcp_hdr *)(ip + 1);
	memset(th, 0, sizeof(*th));
	th->src_port = rte_cpu_to_be_16(opt.sport);
	th->dst_port = rte_cpu_to_be_16(opt.dport);
	th->sent_seq = rte_cpu_to_be_32(seq);
	th->recv_ack = rte_cpu_to_be_32(tcp.rcv_nxt);
	th->data_off = (uint8_t)(((20 + optlen) / 4) << 4);
	th->tcp_flags = flags;
	th->rx_win = rte_cpu_to_be_16((uint16_t)wnd);
	return th;
}

static bool
send_one(struct rte_mbuf *m)
{
	uint16_t n;
	int i;

	if (opt.vlan != 0) {
		m->ol_flags |= RTE_MBUF_F_TX_VLAN;
		m->vlan_tci = opt.vlan;
	}
	if (rte_eth_tx_prepare(TT_PORT, 0, &m, 1) != 1) {
		fprintf(stderr, "tso_tcp: tx_prepare refused a packet of %u bytes in %u segments: %s\n",
			m->pkt_len, m->nb_segs, rte_strerror(rte_errno));
		rte_pktmbuf_free(m);
		return false;
	}
	for (i = 0; i < 100000; i++) {
		n = rte_eth_tx_burst(TT_PORT, 0, &m, 1);
		if (n == 1)
			return true;
	}
	rte_pktmbuf_free(m);
	return false;
}

/* A frame without payload (SYN, ACK, FIN), its checksums computed here. */
static bool
send_control(uint8_t flags)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint32_t seq = tcp.iss + (uint32_t)tcp.nxt + ((flags & RTE_TCP_SYN_FLAG) ? 0 : 1);
	uint16_t optlen = (flags & RTE_TCP_SYN_FLAG) ? TT_OPT_LEN : 0;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	uint8_t *o;

	if (m == NULL)
		return false;
	th = put_headers(m, seq, flags, optlen, 20 + optlen);
	if (optlen != 0) {
		o = (uint8_t *)(th + 1);
		o[0] = 2;			/* MSS */
		o[1] = 4;
		o[2] = (uint8_t)(opt.mss >> 8);
		o[3] = (uint8_t)opt.mss;
		o[4] = 1;			/* NOP */
		o[5] = 3;			/* window scale */
		o[6] = 3;
		o[7] = TT_WSCALE;
	}
	ip = (struct rte_ipv4_hdr *)((uint8_t *)th - sizeof(*ip));
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	tcp.plain_sends++;
	return send_one(m);
}

/* Payload [off, off + len) of the stream into mbuf segments after head. */
static bool
append_payload(struct rte_mbuf *head, uint64_t off, uint32_t len)
{
	struct rte_mbuf *m;
	uint32_t n, i;
	uint8_t *p;

	while (len > 0) {
		m = rte_pktmbuf_alloc(pool);
		if (m == NULL)
			return false;
		n = RTE_MIN(len, (uint32_t)TT_SEG_DATA);
		p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n);
		for (i = 0; i < n; i++)
			p[i] = tso_tcp_byte(off + i);
		if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			return false;
		}
		off += n;
		len -= n;
	}
	return true;
}

/*
 * Stream bytes [off, off + len): one TSO send (headers alone in the first
 * mbuf, ol_flags and lengths as DPDK's TSO contract asks, the pseudo-header
 * checksum without the length) or, within one MSS, one plain frame.
 */
static bool
send_data(uint64_t off, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint16_t mss = RTE_MIN(opt.mss, tcp.peer_mss);
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	bool tso = len > mss;

	if (m == NULL)
		return false;
	th = put_headers(m, tcp.iss + 1 + (uint32_t)off, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
			 0, 20 + len);
	ip = (struct rte_ipv4_hdr *)((uint8_t *)th - sizeof(*ip));
	if (!append_payload(m, off, len)) {
		rte_pktmbuf_free(m);
		return false;
	}
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = sizeof(*ip);
	m->l4_len = sizeof(*th);
	if (tso) {
		m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_SEG;
		m->tso_segsz = mss;
		th->cksum = rte_ipv4_phdr_cksum(ip, m->ol_flags);
		tcp.tso_sends++;
	} else {
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		th->cksum = rte_ipv4_udptcp_cksum_mbuf(m, ip, m->l2_len + m->l3_len);
		tcp.plain_sends++;
	}
	if (opt.drop_every != 0 && ++tcp.data_sends % opt.drop_every == 0) {
		tcp.dropped++;
		rte_pktmbuf_free(m);	/* lost on the way */
		return true;
	}
	return send_one(m);
}

/* One received frame: the peer's SYN-ACK, ACKs, window updates, its FIN. */
static void
on_frame(struct rte_mbuf *m, uint64_t now)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	const struct rte_tcp_hdr *th;
	const uint8_t *o, *end;
	uint32_t ack, seq, paylen;
	uint64_t acked;

	if (m->data_len < TT_HDR_LEN || eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ip->next_proto_id != IPPROTO_TCP || ip->src_addr != opt.peer_ip)
		return;
	th = (const struct rte_tcp_hdr *)((const uint8_t *)ip + rte_ipv4_hdr_len(ip));
	if (th->dst_port != rte_cpu_to_be_16(opt.sport))
		return;
	if (th->tcp_flags & RTE_TCP_RST_FLAG) {
		fprintf(stderr, "tso_tcp: the peer reset the connection\n");
		exit(1);
	}
	ack = rte_be_to_cpu_32(th->recv_ack);
	seq = rte_be_to_cpu_32(th->sent_seq);
	paylen = rte_be_to_cpu_16(ip->total_length) - rte_ipv4_hdr_len(ip) -
		((th->data_off >> 4) * 4);
	if (!tcp.established) {
		if ((th->tcp_flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) !=
		    (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG) || ack != tcp.iss + 1)
			return;
		tcp.irs = seq;
		tcp.rcv_nxt = seq + 1;
		tcp.peer_mss = 536;
		o = (const uint8_t *)(th + 1);
		end = (const uint8_t *)th + (th->data_off >> 4) * 4;
		while (o < end && *o != 0) {
			if (*o == 1) {
				o++;
				continue;
			}
			if (o + 1 >= end || o[1] < 2)
				break;
			if (o[0] == 2 && o[1] == 4)
				tcp.peer_mss = (uint16_t)(o[2] << 8 | o[3]);
			if (o[0] == 3 && o[1] == 3)
				tcp.peer_wscale = RTE_MIN(o[2], 14);
			o += o[1];
		}
		tcp.wnd = rte_be_to_cpu_16(th->rx_win);	/* a SYN's window is not scaled */
		tcp.established = true;
		tcp.last_progress = now;
		printf("tso_tcp: connected: peer MSS %u, window scale %u, window %" PRIu64 "\n",
		       tcp.peer_mss, tcp.peer_wscale, tcp.wnd);
		send_control(RTE_TCP_ACK_FLAG);
		return;
	}
	if (th->tcp_flags & RTE_TCP_FIN_FLAG) {
		tcp.peer_fin = true;
		tcp.rcv_nxt = seq + paylen + 1;
		send_control(RTE_TCP_ACK_FLAG);
	}
	if (!(th->tcp_flags & RTE_TCP_ACK_FLAG))
		return;
	tcp.acks++;
	tcp.wnd = (uint64_t)rte_be_to_cpu_16(th->rx_win) << tcp.peer_wscale;
	/* acked: stream bytes (the FIN counts one more), modulo 2^32 from una */
	acked = (uint32_t)(ack - (tcp.iss + 1 + (uint32_t)tcp.una));
	if (acked > 0 && acked <= tcp.nxt - tcp.una + (tcp.fin_sent ? 1 : 0)) {
		if (tcp.fin_sent && tcp.una + acked == opt.bytes + 1) {
			tcp.fin_acked = true;
			acked--;
		}
		tcp.una += acked;
		tcp.dupacks = 0;
		tcp.last_progress = now;
	} else if (acked == 0 && tcp.nxt > tcp.una && paylen == 0 &&
		   ++tcp.dupacks == 3) {
		tcp.nxt = tcp.una;	/* fast retransmit, go-back-N */
		tcp.retransmits++;
	}
}

static uint64_t
xstat(const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(TT_PORT, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(TT_PORT, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

static int
run(void)
{
	uint64_t hz = rte_get_tsc_hz(), start = rte_get_tsc_cycles(), now, syn_at = 0;
	uint64_t deadline = start + (uint64_t)(opt.seconds * hz), rto = hz * TT_RTO_MS / 1000;
	struct rte_mbuf *pkts[TT_BURST];
	uint16_t n, i;
	uint32_t len;

	tcp.iss = 0x7f000000u + (uint32_t)(start & 0xffff);
	while (!tcp.fin_acked) {
		now = rte_get_tsc_cycles();
		if (now > deadline) {
			fprintf(stderr, "tso_tcp: FAIL: %.0f s passed: %s, %" PRIu64 " of %" PRIu64
				" bytes acknowledged\n", opt.seconds,
				tcp.established ? "connected" : "no SYN-ACK", tcp.una, opt.bytes);
			return 1;
		}
		n = rte_eth_rx_burst(TT_PORT, 0, pkts, TT_BURST);
		for (i = 0; i < n; i++)
			on_frame(pkts[i], now);
		rte_pktmbuf_free_bulk(pkts, n);
		if (!tcp.established) {
			if (syn_at == 0 || now - syn_at > rto) {
				send_control(RTE_TCP_SYN_FLAG);
				syn_at = now;
			}
			continue;
		}
		if (now - tcp.last_progress > rto && (tcp.una < tcp.nxt || tcp.fin_sent)) {
			tcp.nxt = tcp.una;	/* timeout: go back to snd_una */
			tcp.fin_sent = false;
			tcp.timeouts++;
			tcp.last_progress = now;
		}
		while (tcp.nxt < opt.bytes && tcp.nxt - tcp.una < RTE_MIN(tcp.wnd, TT_MAX_FLIGHT)) {
			len = (uint32_t)RTE_MIN(opt.bytes - tcp.nxt, (uint64_t)opt.chunk);
			len = (uint32_t)RTE_MIN((uint64_t)len,
				RTE_MIN(tcp.wnd, TT_MAX_FLIGHT) - (tcp.nxt - tcp.una));
			if (len == 0 || !send_data(tcp.nxt, len))
				break;
			tcp.nxt += len;
		}
		if (tcp.una == opt.bytes && !tcp.fin_sent) {
			send_control(RTE_TCP_FIN_FLAG | RTE_TCP_ACK_FLAG);
			tcp.fin_sent = true;
		}
	}
	now = rte_get_tsc_cycles();
	printf("tso_tcp: %" PRIu64 " bytes acknowledged in %.3f s (%.2f Gbit/s of payload): "
	       "%" PRIu64 " TSO sends, %" PRIu64 " plain frames, %" PRIu64 " ACKs, %" PRIu64
	       " fast retransmits, %" PRIu64 " timeouts, %" PRIu64 " sends dropped on purpose\n",
	       opt.bytes, (double)(now - start) / hz,
	       opt.bytes * 8.0 / ((double)(now - start) / hz) / 1e9, tcp.tso_sends,
	       tcp.plain_sends, tcp.acks, tcp.retransmits, tcp.timeouts, tcp.dropped);
	/* linger: ACK the peer's FIN if it comes */
	deadline = now + hz / 2;
	while (!tcp.peer_fin && rte_get_tsc_cycles() < deadline) {
		n = rte_eth_rx_burst(TT_PORT, 0, pkts, TT_BURST);
		for (i = 0; i < n; i++)
			on_frame(pkts[i], rte_get_tsc_cycles());
		rte_pktmbuf_free_bulk(pkts, n);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	uint64_t wqes, segs;
	int rc;

	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "tso_tcp: EAL init failed\n");
		return 1;
	}
	if (parse_args(argc - rc, argv + rc) != 0)
		return 2;
	if (rte_eth_dev_count_avail() == 0) {
		fprintf(stderr, "tso_tcp: no port\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("tso_tcp", TT_NB_MBUFS, 256, 0,
				       TT_SEG_DATA + RTE_PKTMBUF_HEADROOM, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "tso_tcp: mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	rc = port_init();
	if (rc != 0) {
		fprintf(stderr, "tso_tcp: port %u setup: %s\n", TT_PORT, rte_strerror(-rc));
		return 1;
	}
	if (opt.setup != NULL) {
		fflush(stdout);
		rc = system(opt.setup);
		if (rc != 0) {
			fprintf(stderr, "tso_tcp: --setup '%s' failed (status %d)\n", opt.setup, rc);
			return 1;
		}
	}
	rc = run();
	wqes = xstat("dev_tx_lso_wqes");
	segs = xstat("dev_tx_lso_segments");
	printf("tso_tcp: dev_tx_lso_wqes %" PRIu64 " dev_tx_lso_segments %" PRIu64
	       " dev_tx_frames %" PRIu64 " dev_wire_drops %" PRIu64 " dev_rx_drop_no_wqe %"
	       PRIu64 " tx_errors %" PRIu64 "\n", wqes, segs, xstat("dev_tx_frames"),
	       xstat("dev_wire_drops"), xstat("dev_rx_drop_no_wqe"), xstat("tx_errors"));
	if (rc == 0 && opt.drop_every != 0 && tcp.retransmits + tcp.timeouts == 0) {
		fprintf(stderr, "tso_tcp: FAIL: %" PRIu64 " sends dropped, none retransmitted\n",
			tcp.dropped);
		rc = 1;
	}
	if (rc == 0 && !opt.no_tso && (wqes == UINT64_MAX || segs == UINT64_MAX || wqes == 0 ||
				       segs <= wqes || wqes > tcp.tso_sends)) {
		fprintf(stderr, "tso_tcp: FAIL: the device did not segment the TSO sends "
			"(%" PRIu64 " sent)\n", tcp.tso_sends);
		rc = 1;
	}
	rte_eth_dev_stop(TT_PORT);
	rte_eth_dev_close(TT_PORT);
	rte_eal_cleanup();
	return rc;
}
