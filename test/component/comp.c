/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include <rte_version.h>

#include "comp.h"

void (*comp_teardown)(void);

void
comp_eal_init(const char *prog)
{
	char prefix[64];
	char *argv[] = {
		(char *)(uintptr_t)prog, "--no-huge", "-m", "512", "--file-prefix", prefix,
		"-l", "0-1", "--no-pci", "--log-level=pmd.net.mana.*:notice",
		"--log-level=lib.eal:error",
	};
	const char *base = strrchr(prog, '/');

	if (comp_datapath() != NULL && !comp_datapath_runs_here(comp_datapath())) {
		printf("SKIP: MANA_TEST_DATAPATH=%s: this CPU cannot run it\n", comp_datapath());
		exit(77);
	}
	snprintf(prefix, sizeof(prefix), "comp_%s_%d", base != NULL ? base + 1 : prog,
		 (int)getpid());
	if (rte_eal_init(RTE_DIM(argv), argv) < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n", rte_strerror(rte_errno));
		exit(1);
	}
}

/*
 * EAL leaves its runtime directory (config, fbarrays, the mp socket: about
 * 10 MB under /var/run/dpdk) behind; a component test removes its own.
 */
static void
comp_runtime_dir_remove(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

int
comp_run(const struct comp_case *cases, unsigned int n, int argc, char **argv)
{
	unsigned int i, failed = 0, ran = 0;
	char runtime[PATH_MAX];
	uint64_t t0;
	int k;
	bool sel;

	for (i = 0; i < n; i++) {
		sel = argc <= 1;
		for (k = 1; k < argc; k++)
			if (strcmp(argv[k], cases[i].name) == 0)
				sel = true;
		if (!sel)
			continue;
		check_case = cases[i].name;
		check_fails = 0;
		t0 = comp_now_ms();
		printf("RUN  %s\n", cases[i].name);
		fflush(stdout);
		cases[i].fn();
		printf("%s %s (%llu ms)\n", check_fails != 0 ? "FAIL" : "PASS", cases[i].name,
		       (unsigned long long)(comp_now_ms() - t0));
		fflush(stdout);
		failed += check_fails != 0;
		ran++;
	}
	printf("%u/%u cases passed\n", ran - failed, ran);
	check_case = NULL;
	if (comp_teardown != NULL)
		comp_teardown();
	snprintf(runtime, sizeof(runtime), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	comp_runtime_dir_remove(runtime);
	return failed != 0 || ran == 0;
}

/* ---- devices ------------------------------------------------------------ */

/*
 * MANA_TEST_DATAPATH=<path> runs every device a case creates on that
 * datapath (datapath=<path> appended unless the case gives one): meson runs
 * the datapath cases once per path. comp_datapath() is the path asked for.
 */
const char *
comp_datapath(void)
{
	const char *dp = getenv("MANA_TEST_DATAPATH");

	return dp != NULL && dp[0] != '\0' ? dp : NULL;
}

bool
comp_datapath_runs_here(const char *dp)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (strcmp(dp, "avx2") == 0)
		return __builtin_cpu_supports("avx2");
	if (strcmp(dp, "sse") == 0)
		return __builtin_cpu_supports("sse4.2");
#else
	if (strcmp(dp, "avx2") == 0 || strcmp(dp, "sse") == 0)
		return false;
#endif
	/* NEON: the AArch64 base, every arm64 CPU has it */
#if !defined(__aarch64__)
	if (strcmp(dp, "neon") == 0)
		return false;
#endif
	return true;
}

int
comp_vdev_create(const char *name, const char *args)
{
	const char *dp = comp_datapath();
	char full[1024];
	int ret;

	if (dp != NULL && strstr(args, "datapath=") == NULL && strstr(args, "ibdev=") == NULL) {
		snprintf(full, sizeof(full), "%s%sdatapath=%s", args, args[0] != '\0' ? "," : "",
			 dp);
		args = full;
	}
	ret = rte_vdev_init(name, args);
	if (ret != 0)
		fprintf(stderr, "  rte_vdev_init(%s, %s): %d\n", name, args, ret);
	return ret;
}

FILE *
comp_log_begin(char *buf, size_t size)
{
	FILE *f;

	memset(buf, 0, size);
	f = fmemopen(buf, size, "w");
	if (f != NULL)
		rte_openlog_stream(f);
	return f;
}

void
comp_log_end(FILE *f)
{
	rte_openlog_stream(NULL);
	fclose(f);
}

int
comp_vdev_create_logged(const char *name, const char *args, char *buf, size_t size)
{
	FILE *f = comp_log_begin(buf, size);
	int ret;

	if (f == NULL)
		return -errno;
	ret = comp_vdev_create(name, args);
	comp_log_end(f);
	return ret;
}

void
comp_vdev_destroy(const char *name)
{
	int ret = rte_vdev_uninit(name);

	if (ret != 0)
		fprintf(stderr, "  rte_vdev_uninit(%s): %d\n", name, ret);
}

int
comp_port_of(const char *vdev, unsigned int vport)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	uint16_t pid;

	snprintf(name, sizeof(name), "%s_port%u", vdev, vport + 1);
	if (rte_eth_dev_get_port_by_name(name, &pid) != 0)
		return -1;
	return pid;
}

int
comp_port_start(uint16_t pid, const struct comp_port_cfg *c, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;
	struct rte_eth_rxconf rxc;
	struct rte_eth_txconf txc;
	uint16_t nb = c->nb_desc != 0 ? c->nb_desc : 256, q;
	int ret;

	memset(&conf, 0, sizeof(conf));
	if (c->rss) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = c->rss_hf;
		conf.rx_adv_conf.rss_conf.rss_key = (uint8_t *)(uintptr_t)c->rss_key;
		conf.rx_adv_conf.rss_conf.rss_key_len = c->rss_key != NULL ? 40 : 0;
	}
	conf.rxmode.offloads = c->rx_offloads;
	conf.txmode.offloads = c->tx_offloads;
	conf.intr_conf.rxq = c->intr_rxq;
	conf.intr_conf.lsc = c->intr_lsc;
	conf.intr_conf.rmv = c->intr_rmv;
	ret = rte_eth_dev_configure(pid, c->nb_rxq, c->nb_txq, &conf);
	if (ret != 0)
		return ret;
	for (q = 0; q < c->nb_rxq; q++) {
		memset(&rxc, 0, sizeof(rxc));
		rxc.rx_deferred_start = q < 32 && ((c->rx_deferred >> q) & 1);
		ret = rte_eth_rx_queue_setup(pid, q, nb, SOCKET_ID_ANY,
					     rxc.rx_deferred_start ? &rxc : NULL, mp);
		if (ret != 0)
			return ret;
	}
	for (q = 0; q < c->nb_txq; q++) {
		memset(&txc, 0, sizeof(txc));
		txc.tx_deferred_start = q < 32 && ((c->tx_deferred >> q) & 1);
		ret = rte_eth_tx_queue_setup(pid, q, nb, SOCKET_ID_ANY,
					     txc.tx_deferred_start ? &txc : NULL);
		if (ret != 0)
			return ret;
	}
	return rte_eth_dev_start(pid);
}

struct rte_mempool *
comp_pool(const char *name, unsigned int n, uint16_t data_room)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create(name, n, 0, 0, data_room,
							 SOCKET_ID_ANY);

	if (mp == NULL)
		fprintf(stderr, "  mempool %s: %s\n", name, rte_strerror(rte_errno));
	return mp;
}

/* ---- frames -------------------------------------------------------------- */

void
comp_frame_default(struct comp_frame *f)
{
	static const struct rte_ether_addr src = {{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 }};

	memset(f, 0, sizeof(*f));
	f->dst = (struct rte_ether_addr){{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x03 }};
	f->src = src;
	f->proto = IPPROTO_UDP;
	f->sip = COMP_IPV4(192, 0, 2, 1);
	f->dip = COMP_IPV4(192, 0, 2, 2);
	f->sport = 1234;
	f->dport = 5678;
	f->len = 128;
	for (int i = 0; i < 16; i++) {
		f->sip6[i] = (uint8_t)(0x20 + i);
		f->dip6[i] = (uint8_t)(0x40 + i);
	}
}

uint32_t
comp_frame_build(uint8_t *buf, const struct comp_frame *f)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	struct rte_ipv4_hdr *ip4 = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eth + 1);
	uint32_t l3 = f->ipv6 ? sizeof(*ip6) : sizeof(*ip4);
	uint32_t l4 = f->proto == IPPROTO_TCP ? sizeof(struct rte_tcp_hdr) :
		      sizeof(struct rte_udp_hdr);
	uint32_t hdr = sizeof(*eth) + l3 + l4, k;
	uint8_t *l4p = buf + sizeof(*eth) + l3;
	uint8_t *csum_at;	/* L4 checksum field (the headers are packed) */
	uint16_t csum;

	memset(buf, 0, hdr);
	eth->dst_addr = f->dst;
	eth->src_addr = f->src;
	eth->ether_type = rte_cpu_to_be_16(f->ipv6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	for (k = hdr; k < f->len; k++)
		buf[k] = (uint8_t)(f->seed + 7 * k);
	if (f->ipv6) {
		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16(f->len - sizeof(*eth) - l3);
		ip6->proto = f->proto;
		ip6->hop_limits = 64;
		memcpy(&ip6->src_addr, f->sip6, 16);	/* an array or struct rte_ipv6_addr */
		memcpy(&ip6->dst_addr, f->dip6, 16);
	} else {
		ip4->version_ihl = RTE_IPV4_VHL_DEF;
		ip4->total_length = rte_cpu_to_be_16(f->len - sizeof(*eth));
		ip4->time_to_live = 64;
		ip4->next_proto_id = f->proto;
		ip4->src_addr = rte_cpu_to_be_32(f->sip);
		ip4->dst_addr = rte_cpu_to_be_32(f->dip);
	}
	if (f->proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)l4p;

		t->src_port = rte_cpu_to_be_16(f->sport);
		t->dst_port = rte_cpu_to_be_16(f->dport);
		t->sent_seq = rte_cpu_to_be_32(f->seed);
		t->data_off = 5 << 4;
		t->tcp_flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
		t->rx_win = rte_cpu_to_be_16(65535);
		csum_at = l4p + offsetof(struct rte_tcp_hdr, cksum);
	} else {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)l4p;

		u->src_port = rte_cpu_to_be_16(f->sport);
		u->dst_port = rte_cpu_to_be_16(f->dport);
		u->dgram_len = rte_cpu_to_be_16(f->len - sizeof(*eth) - l3);
		csum_at = l4p + offsetof(struct rte_udp_hdr, dgram_cksum);
	}
	if (f->zero_csums)
		return f->len;
	if (f->ipv6) {
		csum = rte_ipv6_udptcp_cksum(ip6, l4p);
	} else {
		ip4->hdr_checksum = rte_ipv4_cksum(ip4);
		csum = rte_ipv4_udptcp_cksum(ip4, l4p);
		if (f->bad_ip_csum)
			ip4->hdr_checksum =
				rte_cpu_to_be_16(rte_be_to_cpu_16(ip4->hdr_checksum) + 1);
	}
	if (f->bad_l4_csum)
		csum = rte_cpu_to_be_16(rte_be_to_cpu_16(csum) + 1);
	memcpy(csum_at, &csum, sizeof(csum));
	return f->len;
}

struct rte_mbuf *
comp_mbuf_from(struct rte_mempool *mp, const uint8_t *bytes, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	char *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, bytes, len);
	return m;
}

bool
comp_csums_ok(const uint8_t *frame, uint32_t len)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)frame;
	uint16_t et = rte_be_to_cpu_16(eth->ether_type);

	if (et == RTE_ETHER_TYPE_IPV4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);

		/* Summed with its own checksum field, a good header folds to 0. */
		if (len < sizeof(*eth) + sizeof(*ip) || rte_ipv4_cksum(ip) != 0)
			return false;
		if (ip->next_proto_id == IPPROTO_UDP || ip->next_proto_id == IPPROTO_TCP)
			return rte_ipv4_udptcp_cksum_verify(ip, ip + 1) == 0;
		return true;
	}
	if (et == RTE_ETHER_TYPE_IPV6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(eth + 1);

		return rte_ipv6_udptcp_cksum_verify(ip, ip + 1) == 0;
	}
	return false;
}

/* ---- traffic --------------------------------------------------------------- */

uint64_t
comp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
comp_sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

uint16_t
comp_tx_all(uint16_t pid, uint16_t q, struct rte_mbuf **pkts, uint16_t n, unsigned int timeout_ms)
{
	uint64_t end = comp_now_ms() + timeout_ms;
	uint16_t sent = 0;

	while (sent < n) {
		sent += rte_eth_tx_burst(pid, q, pkts + sent, n - sent);
		if (sent < n) {
			if (comp_now_ms() > end)
				break;
			comp_sleep_ms(1);
		}
	}
	return sent;
}

uint32_t
comp_rx_wait(uint16_t pid, uint16_t nq, struct rte_mbuf **pkts, uint32_t max, uint32_t want,
	     unsigned int timeout_ms, uint32_t *per_q)
{
	uint64_t end = comp_now_ms() + timeout_ms;
	struct rte_mbuf *b[32];
	uint32_t got = 0, i;
	uint16_t q, n;

	if (per_q != NULL)
		memset(per_q, 0, sizeof(*per_q) * nq);
	while (got < want) {
		bool any = false;

		/* Never past want: callers size pkts for what they wait for. */
		for (q = 0; q < nq && got < want; q++) {
			n = rte_eth_rx_burst(pid, q, b, RTE_MIN(RTE_DIM(b), want - got));
			if (n == 0)
				continue;
			any = true;
			if (per_q != NULL)
				per_q[q] += n;
			for (i = 0; i < n; i++, got++) {
				if (pkts != NULL && got < max)
					pkts[got] = b[i];
				else
					rte_pktmbuf_free(b[i]);
			}
		}
		if (!any) {
			if (comp_now_ms() > end)
				break;
			usleep(100);
		}
	}
	return got;
}

uint32_t
comp_rx_drain(uint16_t pid, uint16_t nq, unsigned int ms)
{
	uint64_t end = comp_now_ms() + ms;
	struct rte_mbuf *b[32];
	uint32_t got = 0;
	uint16_t q, n;

	while (comp_now_ms() < end) {
		for (q = 0; q < nq; q++) {
			n = rte_eth_rx_burst(pid, q, b, RTE_DIM(b));
			rte_pktmbuf_free_bulk(b, n);
			got += n;
		}
		usleep(200);
	}
	return got;
}

void
comp_free(struct rte_mbuf **pkts, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
}

bool
comp_model_stats(const char *model, unsigned int vport, struct mana_model_port_stats *st)
{
	struct mana_model *m = mana_model_find(model);

	memset(st, 0, sizeof(*st));
	return m != NULL && mana_model_port_stats(m, vport, st) == 0;
}

int64_t
comp_xstat(uint16_t pid, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(pid, name, &id) != 0)
		return -1;
	if (rte_eth_xstats_get_by_id(pid, &id, &v, 1) != 1)
		return -1;
	return (int64_t)v;
}

/*
 * Up to DPDK 25.07 rte_eth_stats_get() gives the per-queue counters in
 * struct rte_eth_stats (q_ipackets ...); 25.11 removed those fields, and an
 * application reads the same counters as the driver's rx_q<N>_* and
 * tx_q<N>_* xstats. The tests check the counters the release offers.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)
static uint64_t
queue_xstat(uint16_t pid, const char *dir, unsigned int q, const char *what)
{
	char name[RTE_ETH_XSTATS_NAME_SIZE];
	int64_t v;

	snprintf(name, sizeof(name), "%s_q%u_%s", dir, q, what);
	v = comp_xstat(pid, name);
	return v < 0 ? 0 : (uint64_t)v;
}

int
comp_qstats_get(uint16_t pid, struct comp_qstats *q)
{
	unsigned int i;

	memset(q, 0, sizeof(*q));
	for (i = 0; i < COMP_QSTATS; i++) {
		q->ipackets[i] = queue_xstat(pid, "rx", i, "packets");
		q->ibytes[i] = queue_xstat(pid, "rx", i, "bytes");
		q->ierrors[i] = queue_xstat(pid, "rx", i, "errors");
		q->opackets[i] = queue_xstat(pid, "tx", i, "packets");
		q->obytes[i] = queue_xstat(pid, "tx", i, "bytes");
	}
	return 0;
}
#else
int
comp_qstats_get(uint16_t pid, struct comp_qstats *q)
{
	struct rte_eth_stats st;
	unsigned int i;
	int ret;

	memset(q, 0, sizeof(*q));
	ret = rte_eth_stats_get(pid, &st);
	if (ret != 0)
		return ret;
	for (i = 0; i < COMP_QSTATS; i++) {
		q->ipackets[i] = st.q_ipackets[i];
		q->ibytes[i] = st.q_ibytes[i];
		q->ierrors[i] = st.q_errors[i];
		q->opackets[i] = st.q_opackets[i];
		q->obytes[i] = st.q_obytes[i];
	}
	return 0;
}
#endif
