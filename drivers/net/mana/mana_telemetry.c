/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Telemetry endpoints of net/mana: the rte_pmd_mana.h views over DPDK
 * telemetry, so `dpdk-telemetry.py` reads them from any application that
 * loaded the driver (an unmodified dpdk-testpmd included):
 *
 *   /ethdev/mana/port,<port>          vPort, device, limits, doorbells, MR table
 *   /ethdev/mana/rss,<port>           key, hash types, the 64-entry table, RQ ids
 *   /ethdev/mana/rxq,<port>,<queue>   RX ring and CQ state
 *   /ethdev/mana/txq,<port>,<queue>   TX ring and CQ state
 *   /ethdev/mana/model,<port>         software device counters of the vPort
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "mana_compat.h"
#include "rte_pmd_mana.h"

#define TEL_MR_MAX	64

/* "<port>" or "<port>,<queue>": returns the number of values parsed or -EINVAL. */
static int
tel_params(const char *params, unsigned long *v, int nmax)
{
	const char *p = params;
	char *end;
	int n = 0;

	if (p == NULL || *p == '\0')
		return -EINVAL;
	while (n < nmax) {
		v[n] = strtoul(p, &end, 10);
		if (end == p || v[n] > UINT16_MAX)
			return -EINVAL;
		n++;
		if (*end == '\0')
			return n;
		if (*end != ',')
			return -EINVAL;
		p = end + 1;
	}
	return -EINVAL;
}

static void
tel_hex(char *buf, size_t size, const uint8_t *b, size_t n)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < n && off + 3 <= size; i++)
		off += snprintf(buf + off, size - off, "%02x", b[i]);
}

static int
tel_mr_table(uint16_t port, struct rte_tel_data *d)
{
	struct rte_pmd_mana_mr mr[TEL_MR_MAX];
	struct rte_tel_data *a;
	char s[RTE_TEL_MAX_STRING_LEN];
	int n, i;

	n = rte_pmd_mana_mr_table_get(port, mr, RTE_DIM(mr));
	if (n < 0)
		return n;
	a = rte_tel_data_alloc();
	if (a == NULL)
		return -ENOMEM;
	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	for (i = 0; i < n && i < TEL_MR_MAX; i++) {
		snprintf(s, sizeof(s), "0x%" PRIx64 "-0x%" PRIx64 " lkey 0x%x",
			 mr[i].start, mr[i].end, mr[i].lkey);
		rte_tel_data_add_array_string(a, s);
	}
	rte_tel_data_add_dict_container(d, "mr_table", a, 0);
	return 0;
}

static int
tel_port(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct rte_pmd_mana_port_info pi;
	unsigned long v[1];
	char mac[RTE_TEL_MAX_STRING_LEN];

	if (tel_params(params, v, 1) != 1 || rte_pmd_mana_port_info_get(v[0], &pi) != 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	mana_tel_dict_uint(d, "vport", pi.vport);
	rte_tel_data_add_dict_string(d, "backend", pi.model ? "model" : "rdma-core");
	rte_tel_data_add_dict_string(d, "ibdev", pi.ibdev);
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", pi.mac[0], pi.mac[1],
		 pi.mac[2], pi.mac[3], pi.mac[4], pi.mac[5]);
	rte_tel_data_add_dict_string(d, "mac", mac);
	mana_tel_dict_uint(d, "started", pi.started);
	mana_tel_dict_uint(d, "nb_rxq", pi.nb_rxq);
	mana_tel_dict_uint(d, "nb_txq", pi.nb_txq);
	mana_tel_dict_uint(d, "max_desc", pi.max_desc);
	mana_tel_dict_uint(d, "max_tx_sge", pi.max_tx_sge);
	mana_tel_dict_uint(d, "max_queues", pi.max_queues);
	mana_tel_dict_uint(d, "max_mtu", pi.max_mtu);
	mana_tel_dict_uint(d, "tx_cqe_suppress", pi.tx_cqe_suppress);
	mana_tel_dict_uint(d, "doorbell_pages", pi.db_pages);
	mana_tel_dict_uint(d, "mr_count", pi.mr_count);
	mana_tel_dict_uint(d, "mr_gen", pi.mr_gen);
	return tel_mr_table(v[0], d);
}

static int
tel_u64_array(struct rte_tel_data *d, const char *name, const uint32_t *v32, const uint16_t *u16,
	      unsigned int n)
{
	struct rte_tel_data *a = rte_tel_data_alloc();
	unsigned int i;

	if (a == NULL)
		return -ENOMEM;
	rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
	for (i = 0; i < n; i++)
		mana_tel_array_uint(a, v32 != NULL ? v32[i] : u16[i]);
	rte_tel_data_add_dict_container(d, name, a, 0);
	return 0;
}

static int
tel_rss(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct rte_pmd_mana_rss_info ri;
	char key[RTE_TEL_MAX_STRING_LEN];
	unsigned long v[1];
	int ret;

	if (tel_params(params, v, 1) != 1 || rte_pmd_mana_rss_info_get(v[0], &ri) != 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	tel_hex(key, sizeof(key), ri.key, sizeof(ri.key));
	rte_tel_data_add_dict_string(d, "key", key);
	mana_tel_dict_uint(d, "rss_hf", ri.rss_hf);
	mana_tel_dict_uint(d, "active", ri.active);
	mana_tel_dict_uint(d, "reta_set", ri.reta_set);
	mana_tel_dict_uint(d, "period", ri.period);
	ret = tel_u64_array(d, "reta", NULL, ri.reta, RTE_PMD_MANA_RETA_SIZE);
	if (ret == 0)
		ret = tel_u64_array(d, "wq_id", ri.wq_id, NULL, RTE_PMD_MANA_RETA_SIZE);
	return ret;
}

static int
tel_queue(const char *params, struct rte_tel_data *d, bool rx)
{
	struct rte_pmd_mana_queue_info qi;
	unsigned long v[2];
	int ret;

	if (tel_params(params, v, 2) != 2)
		return -EINVAL;
	ret = rx ? rte_pmd_mana_rxq_info_get(v[0], v[1], &qi) :
		   rte_pmd_mana_txq_info_get(v[0], v[1], &qi);
	if (ret != 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	mana_tel_dict_uint(d, "setup", qi.setup);
	mana_tel_dict_uint(d, "running", qi.running);
	mana_tel_dict_uint(d, "wq_id", qi.wq_id);
	mana_tel_dict_uint(d, "cq_id", qi.cq_id);
	mana_tel_dict_uint(d, "nb_desc", qi.nb_desc);
	mana_tel_dict_uint(d, "ring_bytes", qi.ring_bytes);
	mana_tel_dict_uint(d, "wq_head_bu", qi.wq_head_bu);
	mana_tel_dict_uint(d, "wq_tail_bu", qi.wq_tail_bu);
	mana_tel_dict_uint(d, "desc_head", qi.desc_head);
	mana_tel_dict_uint(d, "desc_tail", qi.desc_tail);
	mana_tel_dict_uint(d, "in_flight", qi.in_flight);
	mana_tel_dict_uint(d, "free_desc", qi.free_desc);
	mana_tel_dict_uint(d, "cq_count", qi.cq_count);
	mana_tel_dict_uint(d, "cq_head", qi.cq_head);
	mana_tel_dict_uint(d, "cq_index", qi.cq_index);
	mana_tel_dict_uint(d, "owner_expected", qi.owner_expected);
	mana_tel_dict_uint(d, "owner_seen", qi.owner_seen);
	mana_tel_dict_uint(d, "packets", qi.packets);
	mana_tel_dict_uint(d, "bytes", qi.bytes);
	mana_tel_dict_uint(d, "errors", qi.errors);
	return 0;
}

static int
tel_rxq(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return tel_queue(params, d, true);
}

static int
tel_txq(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return tel_queue(params, d, false);
}

static int
tel_model(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct rte_pmd_mana_counter c[64];
	char err[RTE_TEL_MAX_STRING_LEN];
	unsigned long v[1];
	int n, i;

	if (tel_params(params, v, 1) != 1)
		return -EINVAL;
	n = rte_pmd_mana_model_counters_get(v[0], c, RTE_DIM(c));
	if (n < 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	for (i = 0; i < n && i < (int)RTE_DIM(c); i++)
		mana_tel_dict_uint(d, c[i].name, c[i].value);
	if (rte_pmd_mana_model_last_error(v[0], err, sizeof(err)) == 0)
		rte_tel_data_add_dict_string(d, "last_error", err);
	return 0;
}

RTE_INIT(mana_telemetry_init)
{
	rte_telemetry_register_cmd("/ethdev/mana/port", tel_port,
		"net_mana port: vPort, device, limits, doorbell pages, MR table. Params: port_id");
	rte_telemetry_register_cmd("/ethdev/mana/rss", tel_rss,
		"net_mana RSS: key, hash types, 64-entry table and RQ ids. Params: port_id");
	rte_telemetry_register_cmd("/ethdev/mana/rxq", tel_rxq,
		"net_mana RX queue ring and CQ state. Params: port_id,queue_id");
	rte_telemetry_register_cmd("/ethdev/mana/txq", tel_txq,
		"net_mana TX queue ring and CQ state. Params: port_id,queue_id");
	rte_telemetry_register_cmd("/ethdev/mana/model", tel_model,
		"net_mana software device counters of the port's vPort. Params: port_id");
}
