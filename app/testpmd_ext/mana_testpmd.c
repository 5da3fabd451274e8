/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * net/mana commands for testpmd (TESTPMD_ADD_DRIVER_COMMANDS):
 *
 *   mana show port <port_id>
 *   mana show rss <port_id>
 *   mana show rss <port_id> flow <src_ip> <dst_ip> udp|tcp|ip <src_port> <dst_port>
 *   mana show queue <port_id> rx|tx <queue_id>
 *   mana port <port_id> rss reta round-robin | <queue> [<queue> ...]
 *   mana model link <port_id> up|down
 *   mana model tx_error <port_id> <cqe_type 33..41> <count>
 *   mana model drop <port_id> <count>
 *   mana model rx_truncate <port_id> <count>
 *   mana model gen <port_id> rate <pps> flows <count>
 *   mana model fatal <port_id>
 *   mana model reset <port_id> <down_ms>
 *   mana model stats <port_id>
 *   mana wait <port_id> <counter> <min_value> <timeout_ms>
 *
 * All of them only read driver state, call the model's controls or (mana port
 * ... rss reta) ethdev's RETA update, which are safe while forwarding runs;
 * none needs the port stopped.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netinet/in.h>

#include <cmdline_parse.h>
#include <cmdline_parse_ipaddr.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>

#include "testpmd.h"
#include "rte_pmd_mana.h"

#define MANA_CMD_MAX_COUNTERS	64
#define MANA_CMD_MAX_FRAME	9216	/* rte_pmd_mana_model_inject_rx's limit */

/* The port's driver is net_mana (rte_eth_dev_info's name, in any process). */
static bool
mana_port_driver(uint16_t port_id)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port_id, &info) == 0 && info.driver_name != NULL &&
	       strncmp(info.driver_name, "net_mana", strlen("net_mana")) == 0;
}

/* A port that exists and is a net_mana port; prints why not. */
static bool
mana_port_ok(uint16_t port_id, struct rte_pmd_mana_port_info *pi)
{
	int ret;

	if (port_id_is_invalid(port_id, ENABLED_WARN))
		return false;
	ret = rte_pmd_mana_port_info_get(port_id, pi);
	if (ret == -ENODEV && rte_eal_process_type() != RTE_PROC_PRIMARY &&
	    mana_port_driver(port_id)) {
		/* rte_pmd_mana.h: the state these commands read lives in the primary */
		fprintf(stderr, "port %u is a net_mana port, but mana commands work in the "
			"primary process only (this is a secondary)\n", port_id);
		return false;
	}
	if (ret == -ENODEV) {
		fprintf(stderr, "port %u is not a net_mana port\n", port_id);
		return false;
	}
	return ret == 0;
}

static void
print_ret(const char *what, int ret)
{
	if (ret == 0)
		printf("%s: done\n", what);
	else if (ret == -ENOTSUP)
		fprintf(stderr, "%s: only on the software device (this port is real hardware)\n",
			what);
	else
		fprintf(stderr, "%s: failed: %s\n", what, strerror(-ret));
}

/* ---- mana show port ---------------------------------------------------- */

struct cmd_show_port {
	cmdline_fixed_string_t mana, show, port;
	portid_t port_id;
};

static void
show_queue_ids(uint16_t port_id, const struct rte_pmd_mana_port_info *pi)
{
	struct rte_pmd_mana_queue_info qi;
	uint16_t q;

	for (q = 0; q < pi->nb_rxq; q++)
		if (rte_pmd_mana_rxq_info_get(port_id, q, &qi) == 0 && qi.running)
			printf("  rxq %u: RQ id %u, CQ id %u, doorbell page 0x%" PRIx64 "\n",
			       q, qi.wq_id, qi.cq_id, qi.db_page);
		else
			printf("  rxq %u: %s\n", q, qi.setup ? "not started" : "not set up");
	for (q = 0; q < pi->nb_txq; q++)
		if (rte_pmd_mana_txq_info_get(port_id, q, &qi) == 0 && qi.running)
			printf("  txq %u: SQ id %u, CQ id %u, doorbell page 0x%" PRIx64 "\n",
			       q, qi.wq_id, qi.cq_id, qi.db_page);
		else
			printf("  txq %u: %s\n", q, qi.setup ? "not started" : "not set up");
}

static void
show_mr_table(uint16_t port_id, const struct rte_pmd_mana_port_info *pi)
{
	struct rte_pmd_mana_mr mr[32];
	int n, i;

	n = rte_pmd_mana_mr_table_get(port_id, mr, RTE_DIM(mr));
	if (n < 0)
		return;
	printf("  MR table: %d regions, generation %u\n", n, pi->mr_gen);
	for (i = 0; i < n && i < (int)RTE_DIM(mr); i++)
		printf("    [%d] 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " bytes) lkey 0x%x\n", i,
		       mr[i].start, mr[i].end, mr[i].end - mr[i].start, mr[i].lkey);
	if (n > (int)RTE_DIM(mr))
		printf("    ... %d more\n", n - (int)RTE_DIM(mr));
}

static void
cmd_show_port_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_show_port *r = res;
	struct rte_pmd_mana_port_info pi;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	printf("MANA port %u: vPort %u of %s device %s\n", r->port_id, pi.vport,
	       pi.model ? "software (model)" : "rdma-core", pi.ibdev);
	printf("  MAC %02x:%02x:%02x:%02x:%02x:%02x, %s, %u RX / %u TX queues\n",
	       pi.mac[0], pi.mac[1], pi.mac[2], pi.mac[3], pi.mac[4], pi.mac[5],
	       pi.started ? "started" : "stopped", pi.nb_rxq, pi.nb_txq);
	printf("  limits: max_desc %u, max_tx_sge %u, max_queues %u, max_mtu %u\n",
	       pi.max_desc, pi.max_tx_sge, pi.max_queues, pi.max_mtu);
	printf("  TX CQE suppression %s, doorbell pages in use: %u\n",
	       pi.tx_cqe_suppress ? "on" : "off", pi.db_pages);
	show_queue_ids(r->port_id, &pi);
	show_mr_table(r->port_id, &pi);
}

static cmdline_parse_token_string_t cmd_show_port_mana =
	TOKEN_STRING_INITIALIZER(struct cmd_show_port, mana, "mana");
static cmdline_parse_token_string_t cmd_show_port_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_port, show, "show");
static cmdline_parse_token_string_t cmd_show_port_port =
	TOKEN_STRING_INITIALIZER(struct cmd_show_port, port, "port");
static cmdline_parse_token_num_t cmd_show_port_id =
	TOKEN_NUM_INITIALIZER(struct cmd_show_port, port_id, RTE_UINT16);

static cmdline_parse_inst_t cmd_mana_show_port = {
	.f = cmd_show_port_parsed,
	.help_str = "mana show port <port_id>: vPort, device, queue ids, doorbell pages, MR table",
	.tokens = {
		(void *)&cmd_show_port_mana, (void *)&cmd_show_port_show,
		(void *)&cmd_show_port_port, (void *)&cmd_show_port_id, NULL,
	},
};

/* ---- mana show rss ----------------------------------------------------- */

struct cmd_show_rss {
	cmdline_fixed_string_t mana, show, rss;
	portid_t port_id;
	cmdline_fixed_string_t flow;
	cmdline_ipaddr_t src, dst;
	cmdline_fixed_string_t proto;
	uint16_t sport, dport;
};

static void
cmd_show_rss_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_show_rss *r = res;
	struct rte_pmd_mana_port_info pi;
	struct rte_pmd_mana_rss_info ri;
	unsigned int i;

	if (!mana_port_ok(r->port_id, &pi) || rte_pmd_mana_rss_info_get(r->port_id, &ri) != 0)
		return;
	printf("MANA port %u RSS: %s, hash types 0x%" PRIx64 ", %u distinct queue(s), RETA %s\n",
	       r->port_id, ri.active ? "active" : "inactive (port stopped)", ri.rss_hf,
	       ri.period, ri.reta_set ? "set by application" : "default");
	printf("  key:");
	for (i = 0; i < RTE_PMD_MANA_RSS_KEY_LEN; i++)
		printf("%s%02x", i % 20 == 0 && i != 0 ? "\n       " : " ", ri.key[i]);
	printf("\n  table (entry: queue/RQ id):\n");
	for (i = 0; i < RTE_PMD_MANA_RETA_SIZE; i++)
		printf("%s%2u: %2u/%-5u%s", i % 8 == 0 ? "   " : " ", i, ri.reta[i], ri.wq_id[i],
		       i % 8 == 7 ? "\n" : "");
}

static void
cmd_show_rss_flow_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_show_rss *r = res;
	struct rte_pmd_mana_port_info pi;
	struct rte_pmd_mana_flow f;
	uint32_t hash;
	uint16_t entry;
	int q;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	memset(&f, 0, sizeof(f));
	if (r->src.family != r->dst.family) {
		fprintf(stderr, "source and destination must both be IPv4 or both IPv6\n");
		return;
	}
	f.ipv6 = r->src.family == AF_INET6;
	if (f.ipv6) {
		memcpy(f.src_ip6, &r->src.addr.ipv6, 16);
		memcpy(f.dst_ip6, &r->dst.addr.ipv6, 16);
	} else {
		f.src_ip4 = rte_be_to_cpu_32(r->src.addr.ipv4.s_addr);
		f.dst_ip4 = rte_be_to_cpu_32(r->dst.addr.ipv4.s_addr);
	}
	f.proto = strcmp(r->proto, "udp") == 0 ? IPPROTO_UDP :
		  strcmp(r->proto, "tcp") == 0 ? IPPROTO_TCP : 0;
	f.src_port = r->sport;
	f.dst_port = r->dport;
	q = rte_pmd_mana_rss_flow_queue(r->port_id, &f, &hash, &entry);
	if (q < 0) {
		fprintf(stderr, "RSS flow lookup failed: %s\n", strerror(-q));
		return;
	}
	printf("MANA port %u RSS flow: hash 0x%08x, entry %u, queue %d\n", r->port_id, hash,
	       entry, q);
}

static cmdline_parse_token_string_t cmd_show_rss_mana =
	TOKEN_STRING_INITIALIZER(struct cmd_show_rss, mana, "mana");
static cmdline_parse_token_string_t cmd_show_rss_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_rss, show, "show");
static cmdline_parse_token_string_t cmd_show_rss_rss =
	TOKEN_STRING_INITIALIZER(struct cmd_show_rss, rss, "rss");
static cmdline_parse_token_num_t cmd_show_rss_id =
	TOKEN_NUM_INITIALIZER(struct cmd_show_rss, port_id, RTE_UINT16);
static cmdline_parse_token_string_t cmd_show_rss_flow =
	TOKEN_STRING_INITIALIZER(struct cmd_show_rss, flow, "flow");
static cmdline_parse_token_ipaddr_t cmd_show_rss_src =
	TOKEN_IPADDR_INITIALIZER(struct cmd_show_rss, src);
static cmdline_parse_token_ipaddr_t cmd_show_rss_dst =
	TOKEN_IPADDR_INITIALIZER(struct cmd_show_rss, dst);
static cmdline_parse_token_string_t cmd_show_rss_proto =
	TOKEN_STRING_INITIALIZER(struct cmd_show_rss, proto, "udp#tcp#ip");
static cmdline_parse_token_num_t cmd_show_rss_sport =
	TOKEN_NUM_INITIALIZER(struct cmd_show_rss, sport, RTE_UINT16);
static cmdline_parse_token_num_t cmd_show_rss_dport =
	TOKEN_NUM_INITIALIZER(struct cmd_show_rss, dport, RTE_UINT16);

static cmdline_parse_inst_t cmd_mana_show_rss = {
	.f = cmd_show_rss_parsed,
	.help_str = "mana show rss <port_id>: key and the 64-entry table as the device holds it",
	.tokens = {
		(void *)&cmd_show_rss_mana, (void *)&cmd_show_rss_show, (void *)&cmd_show_rss_rss,
		(void *)&cmd_show_rss_id, NULL,
	},
};

static cmdline_parse_inst_t cmd_mana_show_rss_flow = {
	.f = cmd_show_rss_flow_parsed,
	.help_str = "mana show rss <port_id> flow <src_ip> <dst_ip> udp|tcp|ip <src_port> "
		"<dst_port>: hash, table entry and queue of a flow",
	.tokens = {
		(void *)&cmd_show_rss_mana, (void *)&cmd_show_rss_show, (void *)&cmd_show_rss_rss,
		(void *)&cmd_show_rss_id, (void *)&cmd_show_rss_flow, (void *)&cmd_show_rss_src,
		(void *)&cmd_show_rss_dst, (void *)&cmd_show_rss_proto,
		(void *)&cmd_show_rss_sport, (void *)&cmd_show_rss_dport, NULL,
	},
};

/* ---- mana show queue --------------------------------------------------- */

struct cmd_show_queue {
	cmdline_fixed_string_t mana, show, queue;
	portid_t port_id;
	cmdline_fixed_string_t dir;
	uint16_t queue_id;
};

static void
cmd_show_queue_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_show_queue *r = res;
	struct rte_pmd_mana_port_info pi;
	struct rte_pmd_mana_queue_info qi;
	bool rx = strcmp(r->dir, "rx") == 0;
	int ret;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	ret = rx ? rte_pmd_mana_rxq_info_get(r->port_id, r->queue_id, &qi) :
		   rte_pmd_mana_txq_info_get(r->port_id, r->queue_id, &qi);
	if (ret != 0) {
		fprintf(stderr, "port %u has no %s queue %u (it has %u)\n", r->port_id, r->dir,
			r->queue_id, rx ? pi.nb_rxq : pi.nb_txq);
		return;
	}
	printf("MANA port %u %sq %u: %s\n", r->port_id, r->dir, r->queue_id,
	       !qi.setup ? "not set up" : qi.running ? "running" : "stopped");
	if (!qi.setup)
		return;
	printf("  descriptors: %u, posted %u (head %u, tail %u), free %u\n", qi.nb_desc,
	       qi.in_flight, qi.desc_head, qi.desc_tail, qi.free_desc);
	printf("  packets %" PRIu64 ", bytes %" PRIu64 ", errors %" PRIu64 "\n", qi.packets,
	       qi.bytes, qi.errors);
	if (!qi.running)
		return;
	printf("  %s id %u: ring %u bytes, head %u BU, tail %u BU\n", rx ? "RQ" : "SQ", qi.wq_id,
	       qi.ring_bytes, qi.wq_head_bu, qi.wq_tail_bu);
	printf("  CQ id %u: %u entries, consumer index %u (entry %u), owner phase %u, "
	       "entry holds owner %u (%s)\n", qi.cq_id, qi.cq_count, qi.cq_head, qi.cq_index,
	       qi.owner_expected, qi.owner_seen,
	       qi.owner_seen == qi.owner_expected ? "new completion waiting" : "empty");
	printf("  doorbell page 0x%" PRIx64 "\n", qi.db_page);
}

static cmdline_parse_token_string_t cmd_show_queue_mana =
	TOKEN_STRING_INITIALIZER(struct cmd_show_queue, mana, "mana");
static cmdline_parse_token_string_t cmd_show_queue_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_queue, show, "show");
static cmdline_parse_token_string_t cmd_show_queue_queue =
	TOKEN_STRING_INITIALIZER(struct cmd_show_queue, queue, "queue");
static cmdline_parse_token_num_t cmd_show_queue_port =
	TOKEN_NUM_INITIALIZER(struct cmd_show_queue, port_id, RTE_UINT16);
static cmdline_parse_token_string_t cmd_show_queue_dir =
	TOKEN_STRING_INITIALIZER(struct cmd_show_queue, dir, "rx#tx");
static cmdline_parse_token_num_t cmd_show_queue_id =
	TOKEN_NUM_INITIALIZER(struct cmd_show_queue, queue_id, RTE_UINT16);

static cmdline_parse_inst_t cmd_mana_show_queue = {
	.f = cmd_show_queue_parsed,
	.help_str = "mana show queue <port_id> rx|tx <queue_id>: ring head/tail, free "
		"descriptors, CQ position and owner phase",
	.tokens = {
		(void *)&cmd_show_queue_mana, (void *)&cmd_show_queue_show,
		(void *)&cmd_show_queue_queue, (void *)&cmd_show_queue_port,
		(void *)&cmd_show_queue_dir, (void *)&cmd_show_queue_id, NULL,
	},
};

/* ---- mana port ... rss reta -------------------------------------------- */

/*
 * The whole 64-entry table from a pattern repeated over it: entry i = queue
 * pattern[i % k]. testpmd's own "port config N rss reta (i,q)..." holds about
 * 18 entries on its line, and net_mana takes only tables of 2^n distinct
 * queues (any 2^n of its RX queues, 1 included) whose first 2^n entries
 * repeat over all 64 (hardware.md §6), so a new table changes 64 entries at
 * once. The queues the pattern leaves out receive nothing.
 */
struct cmd_port_reta {
	cmdline_fixed_string_t mana, port;
	portid_t port_id;
	cmdline_fixed_string_t rss, reta;
	cmdline_multi_string_t pattern;
};

#define MANA_CMD_RETA_SIZE	64

/* Queues of `words` into pat; returns their count, or 0 after printing why not. */
static unsigned int
reta_pattern_parse(char *words, uint16_t nb_rxq, uint16_t pat[MANA_CMD_RETA_SIZE])
{
	unsigned int k = 0;
	unsigned long q;
	char *w, *end, *save = NULL;

	if (strcmp(words, "round-robin") == 0) {
		for (k = 0; k < nb_rxq && k < MANA_CMD_RETA_SIZE; k++)
			pat[k] = (uint16_t)k;
		if (k == 0)
			fprintf(stderr, "RSS table: the port has no RX queue\n");
		return k;
	}
	for (w = strtok_r(words, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save)) {
		errno = 0;
		q = strtoul(w, &end, 10);
		if (errno != 0 || end == w || *end != '\0' || q >= nb_rxq) {
			fprintf(stderr, "RSS table: '%s' is not an RX queue of the port (0..%u) "
				"nor round-robin\n", w, nb_rxq - 1);
			return 0;
		}
		if (k == MANA_CMD_RETA_SIZE) {
			fprintf(stderr, "RSS table: more than %u queues given\n",
				MANA_CMD_RETA_SIZE);
			return 0;
		}
		pat[k++] = (uint16_t)q;
	}
	if (k == 0 || !rte_is_power_of_2(k)) {
		fprintf(stderr, "RSS table: a pattern of %u queues does not repeat evenly over "
			"%u entries; give 1, 2, 4, 8, 16, 32 or 64 queues, or round-robin\n", k,
			MANA_CMD_RETA_SIZE);
		return 0;
	}
	return k;
}

static void
cmd_port_reta_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_port_reta *r = res;
	struct rte_eth_rss_reta_entry64 conf[MANA_CMD_RETA_SIZE / RTE_ETH_RETA_GROUP_SIZE];
	uint16_t pat[MANA_CMD_RETA_SIZE];
	struct rte_pmd_mana_port_info pi;
	unsigned int k, i;
	int ret;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	if (pi.nb_rxq == 0) {
		fprintf(stderr, "RSS table: port %u is not configured with RX queues\n",
			r->port_id);
		return;
	}
	k = reta_pattern_parse(r->pattern, pi.nb_rxq, pat);
	if (k == 0)
		return;
	memset(conf, 0, sizeof(conf));
	for (i = 0; i < MANA_CMD_RETA_SIZE; i++) {
		conf[i / RTE_ETH_RETA_GROUP_SIZE].mask |= 1ull << (i % RTE_ETH_RETA_GROUP_SIZE);
		conf[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
			pat[i % k];
	}
	ret = rte_eth_dev_rss_reta_update(r->port_id, conf, MANA_CMD_RETA_SIZE);
	if (ret != 0) {
		fprintf(stderr, "RSS table: refused: %s (the log line above says why)\n",
			strerror(-ret));
		return;
	}
	printf("MANA port %u RSS table: entry i = queue", r->port_id);
	for (i = 0; i < k; i++)
		printf(" %u", pat[i]);
	printf(" [i %% %u]\n", k);
}

static cmdline_parse_token_string_t cmd_port_reta_mana =
	TOKEN_STRING_INITIALIZER(struct cmd_port_reta, mana, "mana");
static cmdline_parse_token_string_t cmd_port_reta_port =
	TOKEN_STRING_INITIALIZER(struct cmd_port_reta, port, "port");
static cmdline_parse_token_num_t cmd_port_reta_id =
	TOKEN_NUM_INITIALIZER(struct cmd_port_reta, port_id, RTE_UINT16);
static cmdline_parse_token_string_t cmd_port_reta_rss =
	TOKEN_STRING_INITIALIZER(struct cmd_port_reta, rss, "rss");
static cmdline_parse_token_string_t cmd_port_reta_reta =
	TOKEN_STRING_INITIALIZER(struct cmd_port_reta, reta, "reta");
static cmdline_parse_token_string_t cmd_port_reta_pattern =
	TOKEN_STRING_INITIALIZER(struct cmd_port_reta, pattern, TOKEN_STRING_MULTI);

static cmdline_parse_inst_t cmd_mana_port_reta = {
	.f = cmd_port_reta_parsed,
	.help_str = "mana port <port_id> rss reta round-robin|<queue> [<queue> ...]: the whole "
		"64-entry RSS table, entry i = queue pattern[i % count]",
	.tokens = {
		(void *)&cmd_port_reta_mana, (void *)&cmd_port_reta_port,
		(void *)&cmd_port_reta_id, (void *)&cmd_port_reta_rss,
		(void *)&cmd_port_reta_reta, (void *)&cmd_port_reta_pattern, NULL,
	},
};

/* ---- mana model ... ---------------------------------------------------- */

/* One result layout for every model command; unused fields stay zero. */
struct cmd_model {
	cmdline_fixed_string_t mana, model, action;
	portid_t port_id;
	cmdline_fixed_string_t word1;
	uint64_t n1;
	cmdline_fixed_string_t word2;
	uint32_t n2;
	uint32_t n3;
};

static void
cmd_model_link_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_model *r = res;
	struct rte_pmd_mana_port_info pi;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	print_ret(strcmp(r->word1, "up") == 0 ? "link up" : "link down",
		  rte_pmd_mana_model_link_set(r->port_id, strcmp(r->word1, "up") == 0));
}

static void
cmd_model_fatal_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_model *r = res;
	struct rte_pmd_mana_port_info pi;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	print_ret("device fatal error", rte_pmd_mana_model_fatal(r->port_id));
}

static void
cmd_model_reset_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_model *r = res;
	struct rte_pmd_mana_port_info pi;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	print_ret("device reset", rte_pmd_mana_model_reset(r->port_id, r->n2));
}

static void
cmd_model_tx_error_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_model *r = res;
	struct rte_pmd_mana_port_info pi;
	int ret;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	if (r->n2 < 33 || r->n2 > 41) {
		fprintf(stderr, "CQE type %u: allowed 33..41 (TX error completion types)\n", r->n2);
		return;
	}
	if (r->n3 == 0) {
		fprintf(stderr, "count: allowed 1 or more\n");
		return;
	}
	ret = rte_pmd_mana_model_inject_tx_error(r->port_id, r->n2, r->n3);
	if (ret == -EBUSY)
		fprintf(stderr, "inject TX error: another type is pending (same type adds to it)\n");
	else
		print_ret("inject TX error", ret);
}

static void
cmd_model_drop_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_model *r = res;
	struct rte_pmd_mana_port_info pi;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	if (r->n2 == 0) {
		fprintf(stderr, "count: allowed 1 or more\n");
		return;
	}
	print_ret("drop next frames", rte_pmd_mana_model_drop_next(r->port_id, r->n2));
}

/*
 * RX's error completion: frames longer than what one RX WQE of queue 0 holds
 * (all its mbufs on a scattered layout), which the device completes as
 * CQE_RX_TRUNCATED. A WQE that holds the largest frame the device takes
 * cannot be overrun: said, nothing sent.
 */
static void
cmd_model_rx_truncate_parsed(void *res, struct cmdline *cl __rte_unused,
			     void *data __rte_unused)
{
	static uint8_t frame[MANA_CMD_MAX_FRAME];
	struct cmd_model *r = res;
	struct rte_pmd_mana_queue_info mq;
	struct rte_pmd_mana_port_info pi;
	struct rte_eth_rxq_info qi;
	struct rte_ether_addr mac;
	uint32_t len, i;
	int ret = 0;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	if (r->n2 == 0) {
		fprintf(stderr, "count: allowed 1 or more\n");
		return;
	}
	if (rte_eth_rx_queue_info_get(r->port_id, 0, &qi) != 0 ||
	    rte_pmd_mana_rxq_info_get(r->port_id, 0, &mq) != 0 || !mq.setup ||
	    rte_eth_macaddr_get(r->port_id, &mac) != 0) {
		fprintf(stderr, "port %u: no RX queue set up\n", r->port_id);
		return;
	}
	len = mq.frame_bytes + 64;
	if (len > MANA_CMD_MAX_FRAME) {
		fprintf(stderr, "port %u: RX queue 0's WQEs hold %u bytes (%u mbuf%s of %u), "
			"the largest frame the device takes (%u) fits: nothing can be "
			"truncated; use one mbuf per frame or a smaller MTU\n", r->port_id,
			mq.frame_bytes, mq.sges, mq.sges > 1 ? "s" : "", qi.rx_buf_size,
			MANA_CMD_MAX_FRAME);
		return;
	}
	/* To the port's MAC from a local address, IEEE local experimental EtherType. */
	memset(frame, 0xa5, len);
	memcpy(frame, mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(frame + 6, "\x02\x00\x00\x00\x00\x01", RTE_ETHER_ADDR_LEN);
	frame[12] = 0x88;
	frame[13] = 0xb5;
	for (i = 0; i < r->n2 && ret == 0; i++)
		ret = rte_pmd_mana_model_inject_rx(r->port_id, frame, len);
	if (ret == 0)
		printf("%u frames of %u bytes (RX buffers: %u, %u per frame) handed to the "
		       "device\n", r->n2, len, qi.rx_buf_size, mq.sges);
	print_ret("truncated frames", ret);
}

static void
cmd_model_gen_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_model *r = res;
	struct rte_pmd_mana_port_info pi;
	int ret;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	if (r->n2 == 0) {
		fprintf(stderr, "flows: allowed 1 or more\n");
		return;
	}
	ret = rte_pmd_mana_model_gen_set(r->port_id, r->n1, r->n2);
	if (ret == -EINVAL)
		fprintf(stderr, "generator: port %u's wire is not a generator (wire=gen)\n",
			r->port_id);
	else if (ret == -ERANGE)
		fprintf(stderr, "generator: rate allowed 0..1000000000 frames/s, flows 1..65536\n");
	else
		print_ret("generator", ret);
}

static void
cmd_model_stats_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_model *r = res;
	struct rte_pmd_mana_counter c[MANA_CMD_MAX_COUNTERS];
	struct rte_pmd_mana_port_info pi;
	char err[256];
	int n, i;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	n = rte_pmd_mana_model_counters_get(r->port_id, c, RTE_DIM(c));
	if (n < 0) {
		print_ret("device counters", n);
		return;
	}
	printf("MANA port %u device counters (vPort %u of %s):\n", r->port_id, pi.vport,
	       pi.ibdev);
	for (i = 0; i < n && i < (int)RTE_DIM(c); i++)
		printf("  %-20s %" PRIu64 "\n", c[i].name, c[i].value);
	if (rte_pmd_mana_model_last_error(r->port_id, err, sizeof(err)) == 0 && err[0] != '\0')
		printf("  last device error: %s\n", err);
}

/*
 * link_up / link_down (1 while the link is in that state, as ethdev reports
 * it), an ethdev xstat of the port, or a software device counter.
 */
static int
port_counter(uint16_t port_id, const char *name, uint64_t *v)
{
	struct rte_pmd_mana_counter c[MANA_CMD_MAX_COUNTERS];
	struct rte_eth_link link;
	uint64_t id;
	int n, i;

	if (strcmp(name, "link_up") == 0 || strcmp(name, "link_down") == 0) {
		if (rte_eth_link_get_nowait(port_id, &link) != 0)
			return -EIO;
		*v = (link.link_status == RTE_ETH_LINK_UP) == (name[5] == 'u');
		return 0;
	}
	if (rte_eth_xstats_get_id_by_name(port_id, name, &id) == 0)
		return rte_eth_xstats_get_by_id(port_id, &id, v, 1) == 1 ? 0 : -EIO;
	n = rte_pmd_mana_model_counters_get(port_id, c, RTE_DIM(c));
	if (n < 0)
		return n == -ENOTSUP ? -ENOENT : n;
	for (i = 0; i < n && i < (int)RTE_DIM(c); i++)
		if (strcmp(c[i].name, name) == 0) {
			*v = c[i].value;
			return 0;
		}
	return -ENOENT;
}

/*
 * Blocks the command line (not forwarding) until a counter reaches a value,
 * so --cmdline-file scripts can wait for traffic instead of guessing times.
 */
static void
cmd_wait_parsed(void *res, struct cmdline *cl __rte_unused, void *data __rte_unused)
{
	struct cmd_model *r = res;
	struct rte_pmd_mana_port_info pi;
	uint64_t v = 0, start = rte_get_timer_cycles();
	uint64_t limit = rte_get_timer_hz() / 1000 * r->n2;
	int ret;

	if (!mana_port_ok(r->port_id, &pi))
		return;
	for (;;) {
		ret = port_counter(r->port_id, r->word1, &v);
		if (ret == -ENOENT) {
			fprintf(stderr,
				"no counter '%s' (see show port xstats, mana model stats)\n",
				r->word1);
			return;
		}
		if (ret != 0) {
			print_ret("wait", ret);
			return;
		}
		if (v >= r->n1 || rte_get_timer_cycles() - start > limit)
			break;
		rte_delay_us_sleep(1000);
	}
	printf("MANA port %u: %s = %" PRIu64 " (%s %" PRIu64 ")\n", r->port_id, r->word1, v,
	       v >= r->n1 ? "reached" : "timeout waiting for", r->n1);
}

static cmdline_parse_token_string_t cmd_model_mana =
	TOKEN_STRING_INITIALIZER(struct cmd_model, mana, "mana");
static cmdline_parse_token_string_t cmd_model_model =
	TOKEN_STRING_INITIALIZER(struct cmd_model, model, "model");
static cmdline_parse_token_num_t cmd_model_port =
	TOKEN_NUM_INITIALIZER(struct cmd_model, port_id, RTE_UINT16);
static cmdline_parse_token_string_t cmd_model_link =
	TOKEN_STRING_INITIALIZER(struct cmd_model, action, "link");
static cmdline_parse_token_string_t cmd_model_updown =
	TOKEN_STRING_INITIALIZER(struct cmd_model, word1, "up#down");
static cmdline_parse_token_string_t cmd_model_fatal =
	TOKEN_STRING_INITIALIZER(struct cmd_model, action, "fatal");
static cmdline_parse_token_string_t cmd_model_reset =
	TOKEN_STRING_INITIALIZER(struct cmd_model, action, "reset");
static cmdline_parse_token_string_t cmd_model_tx_error =
	TOKEN_STRING_INITIALIZER(struct cmd_model, action, "tx_error");
static cmdline_parse_token_string_t cmd_model_drop =
	TOKEN_STRING_INITIALIZER(struct cmd_model, action, "drop");
static cmdline_parse_token_string_t cmd_model_rx_truncate =
	TOKEN_STRING_INITIALIZER(struct cmd_model, action, "rx_truncate");
static cmdline_parse_token_string_t cmd_model_gen =
	TOKEN_STRING_INITIALIZER(struct cmd_model, action, "gen");
static cmdline_parse_token_string_t cmd_model_rate =
	TOKEN_STRING_INITIALIZER(struct cmd_model, word1, "rate");
static cmdline_parse_token_num_t cmd_model_n1 =
	TOKEN_NUM_INITIALIZER(struct cmd_model, n1, RTE_UINT64);
static cmdline_parse_token_string_t cmd_model_flows =
	TOKEN_STRING_INITIALIZER(struct cmd_model, word2, "flows");
static cmdline_parse_token_num_t cmd_model_n2 =
	TOKEN_NUM_INITIALIZER(struct cmd_model, n2, RTE_UINT32);
static cmdline_parse_token_num_t cmd_model_n3 =
	TOKEN_NUM_INITIALIZER(struct cmd_model, n3, RTE_UINT32);
static cmdline_parse_token_string_t cmd_model_stats =
	TOKEN_STRING_INITIALIZER(struct cmd_model, action, "stats");
static cmdline_parse_token_string_t cmd_model_wait =
	TOKEN_STRING_INITIALIZER(struct cmd_model, action, "wait");
static cmdline_parse_token_string_t cmd_model_counter =
	TOKEN_STRING_INITIALIZER(struct cmd_model, word1, NULL);

#define MODEL_HEAD (void *)&cmd_model_mana, (void *)&cmd_model_model

static cmdline_parse_inst_t cmd_mana_model_link = {
	.f = cmd_model_link_parsed,
	.help_str = "mana model link <port_id> up|down: software device link of the vPort",
	.tokens = { MODEL_HEAD, (void *)&cmd_model_link, (void *)&cmd_model_port,
		    (void *)&cmd_model_updown, NULL },
};

static cmdline_parse_inst_t cmd_mana_model_fatal = {
	.f = cmd_model_fatal_parsed,
	.help_str = "mana model fatal <port_id>: fatal error of the whole software device",
	.tokens = { MODEL_HEAD, (void *)&cmd_model_fatal, (void *)&cmd_model_port, NULL },
};

static cmdline_parse_inst_t cmd_mana_model_reset = {
	.f = cmd_model_reset_parsed,
	.help_str = "mana model reset <port_id> <down_ms>: reset of the whole software device, "
		"back after <down_ms> ms",
	.tokens = { MODEL_HEAD, (void *)&cmd_model_reset, (void *)&cmd_model_port,
		    (void *)&cmd_model_n2, NULL },
};

static cmdline_parse_inst_t cmd_mana_model_tx_error = {
	.f = cmd_model_tx_error_parsed,
	.help_str = "mana model tx_error <port_id> <cqe_type 33..41> <count>: the next <count> "
		"TX WQEs complete with that error CQE type",
	.tokens = { MODEL_HEAD, (void *)&cmd_model_tx_error, (void *)&cmd_model_port,
		    (void *)&cmd_model_n2, (void *)&cmd_model_n3, NULL },
};

static cmdline_parse_inst_t cmd_mana_model_drop = {
	.f = cmd_model_drop_parsed,
	.help_str = "mana model drop <port_id> <count>: drop the next <count> frames from the wire",
	.tokens = { MODEL_HEAD, (void *)&cmd_model_drop, (void *)&cmd_model_port,
		    (void *)&cmd_model_n2, NULL },
};

static cmdline_parse_inst_t cmd_mana_model_rx_truncate = {
	.f = cmd_model_rx_truncate_parsed,
	.help_str = "mana model rx_truncate <port_id> <count>: <count> frames longer than an "
		"RX WQE (all its mbufs) arrive (RX error completion CQE_RX_TRUNCATED)",
	.tokens = { MODEL_HEAD, (void *)&cmd_model_rx_truncate, (void *)&cmd_model_port,
		    (void *)&cmd_model_n2, NULL },
};

static cmdline_parse_inst_t cmd_mana_model_gen = {
	.f = cmd_model_gen_parsed,
	.help_str = "mana model gen <port_id> rate <pps> flows <count>: generator wire rate "
		"(0: unlimited) and number of flows",
	.tokens = { MODEL_HEAD, (void *)&cmd_model_gen, (void *)&cmd_model_port,
		    (void *)&cmd_model_rate, (void *)&cmd_model_n1, (void *)&cmd_model_flows,
		    (void *)&cmd_model_n2, NULL },
};

static cmdline_parse_inst_t cmd_mana_model_stats = {
	.f = cmd_model_stats_parsed,
	.help_str = "mana model stats <port_id>: software device counters of the vPort",
	.tokens = { MODEL_HEAD, (void *)&cmd_model_stats, (void *)&cmd_model_port, NULL },
};

static cmdline_parse_inst_t cmd_mana_wait = {
	.f = cmd_wait_parsed,
	.help_str = "mana wait <port_id> <counter> <min_value> <timeout_ms>: block the "
		"command line until an xstat, device counter or link_up/link_down reaches a value",
	.tokens = { (void *)&cmd_model_mana, (void *)&cmd_model_wait, (void *)&cmd_model_port,
		    (void *)&cmd_model_counter, (void *)&cmd_model_n1, (void *)&cmd_model_n2,
		    NULL },
};

static struct testpmd_driver_commands mana_cmds = {
	.commands = {
	{ &cmd_mana_show_port, "mana show port <port_id>\n"
	  "    vPort, rdma-core device or model, queue ids, doorbell pages, MR table.\n\n" },
	{ &cmd_mana_show_rss, "mana show rss <port_id>\n"
	  "    RSS key and the 64-entry table as the device holds it (queue / RQ id).\n\n" },
	{ &cmd_mana_show_rss_flow,
	  "mana show rss <port_id> flow <src_ip> <dst_ip> udp|tcp|ip <src_port> <dst_port>\n"
	  "    Toeplitz hash, table entry and RX queue the device picks for a flow.\n\n" },
	{ &cmd_mana_show_queue, "mana show queue <port_id> rx|tx <queue_id>\n"
	  "    Ring head/tail, free descriptors, CQ position and owner phase.\n\n" },
	{ &cmd_mana_port_reta, "mana port <port_id> rss reta round-robin|<queue> [<queue> ...]\n"
	  "    Set the whole 64-entry RSS table: entry i = queue pattern[i % count],\n"
	  "    count = 1, 2, 4, ..., 64; round-robin = 0 1 ... nb_rx_queues-1. net_mana\n"
	  "    takes a pattern of distinct RX queues, any 1, 2, 4, ... of them, e.g.\n"
	  "    'mana port 0 rss reta 3 2 1 0' or 'mana port 0 rss reta 0' on 4 queues;\n"
	  "    the queues left out receive nothing (testpmd's 'port config 0 rss reta\n"
	  "    (i,q)...' holds too few entries to change the table).\n\n" },
	{ &cmd_mana_model_link, "mana model link <port_id> up|down\n"
	  "    Software device: take the vPort's link down or up.\n\n" },
	{ &cmd_mana_model_tx_error, "mana model tx_error <port_id> <cqe_type> <count>\n"
	  "    Software device: the next <count> TX WQEs complete with error CQE type\n"
	  "    <cqe_type> (33..41).\n\n" },
	{ &cmd_mana_model_drop, "mana model drop <port_id> <count>\n"
	  "    Software device: drop the next <count> frames arriving from the wire.\n\n" },
	{ &cmd_mana_model_rx_truncate, "mana model rx_truncate <port_id> <count>\n"
	  "    Software device: <count> frames longer than one RX WQE of queue 0 holds\n"
	  "    (all its mbufs when scattered) arrive and complete truncated (the RX\n"
	  "    error completion); refused when a WQE holds the largest frame (9216).\n\n" },
	{ &cmd_mana_model_gen, "mana model gen <port_id> rate <pps> flows <count>\n"
	  "    Software device, gen wire: frame rate (0 = unlimited) and flow count.\n\n" },
	{ &cmd_mana_model_fatal, "mana model fatal <port_id>\n"
	  "    Software device: a permanent fatal error of the whole device (the driver\n"
	  "    tries to recover until recovery_timeout, then RECOVERY_FAILED and a\n"
	  "    removal event where the application enabled it).\n\n" },
	{ &cmd_mana_model_reset, "mana model reset <port_id> <down_ms>\n"
	  "    Software device: a reset of the whole device that comes back after\n"
	  "    <down_ms> ms (every port gets the fatal event; the driver recovers, or\n"
	  "    with recovery=manual raises INTR_RESET for 'port reset').\n\n" },
	{ &cmd_mana_model_stats, "mana model stats <port_id>\n"
	  "    Software device: the vPort's device counters and last device error.\n\n" },
	{ &cmd_mana_wait, "mana wait <port_id> <counter> <min_value> <timeout_ms>\n"
	  "    Wait until an xstat (show port xstats), on the software device a device\n"
	  "    counter (mana model stats), or link_up / link_down (1 in that state)\n"
	  "    reaches <min_value>; for scripts.\n\n" },
	{ NULL, NULL },
	},
};
TESTPMD_ADD_DRIVER_COMMANDS(mana_cmds)
