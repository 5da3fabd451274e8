/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * A device's configuration: its defaults (mana_model_config_init) and the
 * checks a configuration passes before a device is made of it.
 */

#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "model_num.h"

/*
 * MANA_MODEL_ENGINE_THREADS: the thread count of every device whose settings
 * do not say (doc/user_guide.md "Engine threads"), so a whole test run can be
 * made multi-threaded. A bad value is logged once and ignored.
 */
static uint8_t
mm_engine_threads_default(void)
{
	static int warned;
	const char *env = getenv(MANA_MODEL_ENGINE_THREADS_ENV);
	long v;

	if (env == NULL || env[0] == '\0')
		return 1;
	if (mm_parse_long(env, 1, MANA_MODEL_MAX_ENGINES, &v, NULL) == 0)
		return (uint8_t)v;
	if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED) == 0)
		mm_log(MM_LOG_WARNING, "%s='%.32s' ignored (allowed: an integer 1..%u); "
		       "one engine thread", MANA_MODEL_ENGINE_THREADS_ENV, env,
		       MANA_MODEL_MAX_ENGINES);
	return 1;
}

void
mana_model_config_init(struct mana_model_config *cfg, const char *name)
{
	memset(cfg, 0, sizeof(*cfg));
	if (name != NULL)
		snprintf(cfg->name, sizeof(cfg->name), "%s", name);
	cfg->nports = 1;
	for (unsigned int i = 0; i < MANA_MODEL_MAX_PORTS; i++)
		cfg->wire[i].type = MANA_MODEL_WIRE_LOOP;
	cfg->manual = false;
	cfg->engine_threads = mm_engine_threads_default();
	for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++)
		cfg->engine_cpu[i] = -1;
	cfg->shared_doorbell = false;
	cfg->rx_coalesce = true;
	cfg->vendor_part_id = 2;
	cfg->max_qp = MM_DEFAULT_MAX_QP;
	cfg->max_qp_wr = GDMA_ETH_MAX_QUEUE_ENTRIES;
	cfg->rdma_core = MM_RDMA_CORE_DEFAULT;
	cfg->cqe_batch = MM_DEFAULT_CQE_BATCH;
	cfg->numa_node = -1;
}

int
mm_config_check(const struct mana_model_config *cfg)
{
	char msg[256];

	if (cfg->name[0] == '\0' || memchr(cfg->name, '\0', sizeof(cfg->name)) == NULL ||
	    strchr(cfg->name, '/') != NULL) {
		mm_log(MM_LOG_ERR, "create: invalid device name");
		return EINVAL;
	}
	if (cfg->nports < 1 || cfg->nports > MANA_MODEL_MAX_PORTS) {
		mm_log(MM_LOG_ERR, "create %s: nports %u not in 1..%u", cfg->name,
		       cfg->nports, MANA_MODEL_MAX_PORTS);
		return EINVAL;
	}
	if (!cfg->manual && (cfg->engine_threads < 1 ||
			     cfg->engine_threads > MANA_MODEL_MAX_ENGINES)) {
		mm_log(MM_LOG_ERR, "create %s: engine_threads %u not in 1..%u", cfg->name,
		       cfg->engine_threads, MANA_MODEL_MAX_ENGINES);
		return EINVAL;
	}
	for (unsigned int i = 0; !cfg->manual && i < cfg->engine_threads; i++)
		if (cfg->engine_cpu[i] < -1 || cfg->engine_cpu[i] >= CPU_SETSIZE) {
			mm_log(MM_LOG_ERR, "create %s: engine thread %u: CPU %d not in -1..%d",
			       cfg->name, i, cfg->engine_cpu[i], CPU_SETSIZE - 1);
			return EINVAL;
		}
	if (cfg->max_qp_wr > GDMA_ETH_MAX_QUEUE_ENTRIES ||
	    (cfg->rdma_core != 0 && (cfg->rdma_core < MM_RDMA_CORE_MIN ||
				     cfg->rdma_core > MM_RDMA_CORE_MAX))) {
		mm_log(MM_LOG_ERR, "create %s: max_qp_wr %u not in 0..%u or rdma_core %u not in "
		       "0 or %u..%u", cfg->name, cfg->max_qp_wr, GDMA_ETH_MAX_QUEUE_ENTRIES,
		       cfg->rdma_core, MM_RDMA_CORE_MIN, MM_RDMA_CORE_MAX);
		return EINVAL;
	}
	if (cfg->vendor_part_id != 0 && cfg->vendor_part_id != 2) {
		mm_log(MM_LOG_ERR, "create %s: vendor_part_id %u not 0 or 2", cfg->name,
		       cfg->vendor_part_id);
		return EINVAL;
	}
	for (unsigned int i = 0; i < cfg->nports; i++)
		if (cfg->wire[i].type > MANA_MODEL_WIRE_TAP) {
			mm_log(MM_LOG_ERR, "create %s: port %u: bad wire type", cfg->name, i);
			return EINVAL;
		}
	if (mm_wire_pairs_check(cfg, cfg->name, msg, sizeof(msg)) != 0) {
		mm_log(MM_LOG_ERR, "create %s: %s", cfg->name, msg);
		return EINVAL;
	}
	if (cfg->cqe_batch > MM_CQE_BATCH_MAX) {
		mm_log(MM_LOG_ERR, "create %s: cqe_batch %u not in 1..%u", cfg->name,
		       cfg->cqe_batch, MM_CQE_BATCH_MAX);
		return EINVAL;
	}
	if (cfg->frontend != MANA_MODEL_FRONTEND_SHIM && cfg->frontend != MANA_MODEL_FRONTEND_VERBS) {
		mm_log(MM_LOG_ERR, "create %s: unknown front-end %d", cfg->name, (int)cfg->frontend);
		return EINVAL;
	}
	/* A vPort has a unicast MAC of its own, as Azure assigns one per vNIC. */
	for (unsigned int i = 0; i < cfg->nports; i++) {
		static const uint8_t zero[6];
		const uint8_t *a = cfg->mac[i];

		if (!cfg->mac_set[i])
			continue;
		if ((a[0] & 1) != 0 || memcmp(a, zero, sizeof(zero)) == 0) {
			mm_log(MM_LOG_ERR, "create %s: port %u: MAC %02x:%02x:%02x:%02x:%02x:%02x is "
			       "%s; a vPort needs a unicast address", cfg->name, i, a[0], a[1],
			       a[2], a[3], a[4], a[5], (a[0] & 1) != 0 ?
			       "a multicast/broadcast address" : "all zero");
			return EINVAL;
		}
		for (unsigned int j = 0; j < i; j++)
			if (cfg->mac_set[j] && memcmp(cfg->mac[j], a, 6) == 0) {
				mm_log(MM_LOG_ERR, "create %s: ports %u and %u have the same MAC "
				       "%02x:%02x:%02x:%02x:%02x:%02x", cfg->name, j, i, a[0], a[1],
				       a[2], a[3], a[4], a[5]);
				return EINVAL;
			}
	}
	return 0;
}
