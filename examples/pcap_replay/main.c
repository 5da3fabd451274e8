/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * pcap_replay: send every frame of a pcap file out of one port and write
 * whatever arrives on another port to a second pcap file.
 *
 * Frames are sent in file order, in bursts, as fast as the TX ring takes
 * them; receiving runs in the same loop, so nothing is lost to a full RX
 * ring. The run ends when every frame was sent and as many came back, or,
 * short of that, when nothing has arrived for the idle time (-w, default
 * 5000 ms): on a busy host frames come late, and a short idle time would
 * count them lost. Exit status 0 if every frame was sent and as many came
 * back as were sent.
 *
 *   pcap_replay <EAL args> -- -i IN.pcap -o OUT.pcap [-t TX_PORT] [-r RX_PORT] [-w IDLE_MS]
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <pcap/pcap.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#define NB_DESC		512
#define BURST		32
#define SNAPLEN		65535

static const char *in_path, *out_path;
static uint16_t tx_port, rx_port = 1;
static unsigned int idle_ms = 5000;
static struct rte_mempool *pool;

static int
port_init(uint16_t port)
{
	uint16_t nb_rxd = NB_DESC, nb_txd = NB_DESC;
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	/* Ring sizes the device accepts (MANA: 64..256, multiples of 64). */
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, nb_rxd, rte_eth_dev_socket_id(port), NULL,
					     pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, nb_txd, rte_eth_dev_socket_id(port), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	/* Not every device filters by MAC (MANA has no promiscuous mode): not fatal. */
	if (ret == 0 && rte_eth_promiscuous_enable(port) != 0)
		printf("port %u: no promiscuous mode; only frames to its own MAC arrive\n", port);
	return ret;
}

/* Next frame of the file in an mbuf; NULL at the end (*eof) or on error. */
static struct rte_mbuf *
read_frame(pcap_t *in, bool *eof)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	struct rte_mbuf *m;
	int ret;

	ret = pcap_next_ex(in, &h, &data);
	if (ret != 1) {
		*eof = true;
		return NULL;
	}
	if (h->caplen > (uint32_t)rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM) {
		printf("skipping a %u-byte frame (larger than one mbuf)\n", h->caplen);
		return NULL;
	}
	m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		return NULL;
	memcpy(rte_pktmbuf_append(m, h->caplen), data, h->caplen);
	return m;
}

static unsigned int
receive(pcap_dumper_t *out)
{
	struct rte_mbuf *pkts[BURST];
	struct pcap_pkthdr h;
	unsigned char buf[SNAPLEN];
	uint16_t n, i;
	struct timeval now;

	n = rte_eth_rx_burst(rx_port, 0, pkts, BURST);
	gettimeofday(&now, NULL);
	for (i = 0; i < n; i++) {
		h.ts = now;
		h.len = pkts[i]->pkt_len;
		h.caplen = RTE_MIN(pkts[i]->pkt_len, (uint32_t)SNAPLEN);
		pcap_dump((u_char *)out, &h, rte_pktmbuf_read(pkts[i], 0, h.caplen, buf));
	}
	rte_pktmbuf_free_bulk(pkts, n);
	return n;
}

/* Returns true when every frame sent came back, false when the idle time ran out first. */
static bool
replay(pcap_t *in, pcap_dumper_t *out, uint64_t *sent, uint64_t *received)
{
	struct rte_mbuf *pkts[BURST];
	uint64_t idle = rte_get_timer_hz() * idle_ms / 1000, last_rx;
	uint16_t n = 0, done;
	bool eof = false;
	struct rte_mbuf *m;

	last_rx = rte_get_timer_cycles();
	while (!eof || n != 0 || rte_get_timer_cycles() - last_rx < idle) {
		if (eof && n == 0 && *received >= *sent)
			return true;
		while (!eof && n < BURST) {
			m = read_frame(in, &eof);
			if (m != NULL)
				pkts[n++] = m;
		}
		if (n != 0) {
			done = rte_eth_tx_burst(tx_port, 0, pkts, n);
			*sent += done;
			memmove(pkts, pkts + done, (n - done) * sizeof(pkts[0]));
			n -= done;
			last_rx = rte_get_timer_cycles();
		}
		done = receive(out);
		if (done != 0) {
			*received += done;
			last_rx = rte_get_timer_cycles();
		}
	}
	return *received >= *sent;
}

static int
parse_args(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "i:o:t:r:w:")) != -1) {
		switch (c) {
		case 'i':
			in_path = optarg;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 't':
			tx_port = atoi(optarg);
			break;
		case 'r':
			rx_port = atoi(optarg);
			break;
		case 'w':
			idle_ms = atoi(optarg);
			break;
		default:
			return -1;
		}
	}
	if (in_path == NULL || out_path == NULL) {
		printf("usage: %s <EAL args> -- -i IN.pcap -o OUT.pcap [-t TX_PORT] [-r RX_PORT] "
		       "[-w IDLE_MS]\n", argv[0]);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	uint64_t sent = 0, received = 0, in_frames;
	pcap_dumper_t *out;
	pcap_t *in, *dead;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL init failed\n");
	if (parse_args(argc - ret, argv + ret) != 0)
		rte_exit(EXIT_FAILURE, "bad arguments\n");
	in = pcap_open_offline(in_path, err);
	if (in == NULL)
		rte_exit(EXIT_FAILURE, "%s: %s\n", in_path, err);
	if (pcap_datalink(in) != DLT_EN10MB)
		rte_exit(EXIT_FAILURE, "%s: not an Ethernet capture\n", in_path);
	dead = pcap_open_dead(DLT_EN10MB, SNAPLEN);
	out = dead != NULL ? pcap_dump_open(dead, out_path) : NULL;
	if (out == NULL)
		rte_exit(EXIT_FAILURE, "%s: cannot create\n", out_path);
	pool = rte_pktmbuf_pool_create("replay_pool", 4 * NB_DESC + 1024, 128, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pool == NULL)
		rte_exit(EXIT_FAILURE, "out of memory\n");
	if (!rte_eth_dev_is_valid_port(tx_port) || !rte_eth_dev_is_valid_port(rx_port) ||
	    port_init(tx_port) != 0 || (rx_port != tx_port && port_init(rx_port) != 0))
		rte_exit(EXIT_FAILURE, "cannot start ports %u and %u\n", tx_port, rx_port);

	if (replay(in, out, &sent, &received))
		printf("pcap_replay: every frame sent came back\n");
	else
		printf("pcap_replay: nothing received for %u ms with %" PRIu64 " of %" PRIu64
		       " frames back (-w IDLE_MS waits longer)\n", idle_ms, received, sent);
	pcap_dump_close(out);
	pcap_close(dead);
	pcap_close(in);
	/* Re-count the input: frames skipped as too large were not sent. */
	in = pcap_open_offline(in_path, err);
	for (in_frames = 0; in != NULL && pcap_next(in, &(struct pcap_pkthdr){0}) != NULL;)
		in_frames++;
	if (in != NULL)
		pcap_close(in);
	printf("pcap_replay: %" PRIu64 " frames in %s, sent %" PRIu64 " on port %u, "
	       "received %" PRIu64 " on port %u into %s\n", in_frames, in_path, sent, tx_port,
	       received, rx_port, out_path);
	rte_eth_dev_stop(tx_port);
	rte_eth_dev_close(tx_port);
	if (rx_port != tx_port) {
		rte_eth_dev_stop(rx_port);
		rte_eth_dev_close(rx_port);
	}
	rte_eal_cleanup();
	return sent == in_frames && received == sent ? EXIT_SUCCESS : EXIT_FAILURE;
}
