/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Device arguments: every key, its type, range and scope in one table.
 *
 * The string is split here rather than by rte_kvargs because kvargs treats
 * every '=' as the end of a key, and wire specs carry their own '='
 * (wire=gen:flows=4). Grammar: key=value[,key=value]...; the first '=' ends
 * the key, ',' ends the value. Any unknown key, key outside its scope, bad
 * value or too many repeats fails with one log line naming the key and what
 * is allowed.
 *
 * Keys (scope V = --vdev, P = PCI -a, E = MANA_MODEL_PCI environment):
 *   ibdev=<name>        V    rdma-core device (e.g. manae_0) instead of the model
 *   model=<name>        V    software device to use or create; default: the vdev name
 *   ports=1..8          V E  vPorts of a created model; default max(1, #mac, #wire)
 *   mac=xx:xx:xx:xx:xx:xx  V P E  select vPorts by MAC (repeatable, up to 8); on a model
 *                            the PMD creates, the i-th mac= also sets vPort i's MAC
 *   wire=<spec>         V E  wire of vPort i for the i-th wire= (repeatable, up to 8),
 *                            grammar of mana_model_parse_wire(); default loop
 *   engine_cpu=-1..1023 V E  CPU the model engine thread is pinned to; -1: not pinned;
 *                            default: a CPU of the node that no EAL lcore uses (vdev)
 *   doorbell=object|shared V E  per-queue doorbell pages (default) or one per context
 *   rx_coalesce=0|1     V E  model emits coalesced RX CQEs (default 1)
 *   tx_cqe_suppress=0|1 V P  one TX completion per burst instead of per packet (default 1)
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

#define S_VDEV	(1u << MANA_DEVARGS_VDEV)
#define S_PCI	(1u << MANA_DEVARGS_PCI)
#define S_ENV	(1u << MANA_DEVARGS_MODEL_ENV)

#define MANA_DEVARGS_MAX_LEN	4096

struct mana_devarg_key {
	const char *key;
	unsigned int scopes;
	bool model_only;	/* configures a model the PMD creates */
	const char *allowed;	/* shown in the error line */
	int (*parse)(const char *val, struct mana_devargs *da, const char **why);
};

static int
parse_int(const char *val, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 0);
	if (errno != 0 || end == val || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
parse_name(const char *val, char *out, size_t size)
{
	size_t len = strlen(val);
	size_t i;

	if (len == 0 || len >= size)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (val[i] <= ' ' || val[i] == '/')
			return -EINVAL;
	memcpy(out, val, len + 1);
	return 0;
}

static int
parse_ibdev(const char *val, struct mana_devargs *da, const char **why)
{
	RTE_SET_USED(why);
	return parse_name(val, da->ibdev, sizeof(da->ibdev));
}

static int
parse_model(const char *val, struct mana_devargs *da, const char **why)
{
	RTE_SET_USED(why);
	return parse_name(val, da->model, sizeof(da->model));
}

static int
parse_ports(const char *val, struct mana_devargs *da, const char **why)
{
	long v;

	RTE_SET_USED(why);
	if (da->nports != 0 || parse_int(val, 1, MANA_MODEL_MAX_PORTS, &v) != 0)
		return -EINVAL;
	da->nports = v;
	return 0;
}

static int
parse_mac(const char *val, struct mana_devargs *da, const char **why)
{
	if (da->nmac >= MANA_MAX_MAC_ARGS) {
		*why = "given more than 8 times";
		return -EINVAL;
	}
	if (rte_ether_unformat_addr(val, &da->mac[da->nmac]) != 0)
		return -EINVAL;
	da->nmac++;
	return 0;
}

static int
parse_wire(const char *val, struct mana_devargs *da, const char **why)
{
	const struct mana_vs_model_api *api = mana_vs_model_api();

	if (da->nwire >= MANA_MODEL_MAX_PORTS) {
		*why = "given more than 8 times";
		return -EINVAL;
	}
	if (api == NULL) {
		*why = "this build has no software device (-Dmodel=false)";
		return -ENOTSUP;
	}
	if (api->parse_wire(val, &da->wire[da->nwire], why) != 0)
		return -EINVAL;
	da->nwire++;
	return 0;
}

static int
parse_engine_cpu(const char *val, struct mana_devargs *da, const char **why)
{
	long v;

	RTE_SET_USED(why);
	if (parse_int(val, -1, 1023, &v) != 0)
		return -EINVAL;
	da->engine_cpu = v;
	da->engine_cpu_set = true;
	return 0;
}

static int
parse_doorbell(const char *val, struct mana_devargs *da, const char **why)
{
	RTE_SET_USED(why);
	if (strcmp(val, "object") == 0)
		da->doorbell_shared = 0;
	else if (strcmp(val, "shared") == 0)
		da->doorbell_shared = 1;
	else
		return -EINVAL;
	return 0;
}

static int
parse_bool(const char *val, bool *out)
{
	if (strcmp(val, "0") == 0)
		*out = false;
	else if (strcmp(val, "1") == 0)
		*out = true;
	else
		return -EINVAL;
	return 0;
}

static int
parse_rx_coalesce(const char *val, struct mana_devargs *da, const char **why)
{
	bool b;

	RTE_SET_USED(why);
	if (parse_bool(val, &b) != 0)
		return -EINVAL;
	da->rx_coalesce = b;
	return 0;
}

static int
parse_tx_cqe_suppress(const char *val, struct mana_devargs *da, const char **why)
{
	RTE_SET_USED(why);
	return parse_bool(val, &da->tx_cqe_suppress);
}

static const struct mana_devarg_key mana_keys[] = {
	{ "ibdev", S_VDEV, false, "an rdma-core device name (1..63 chars)", parse_ibdev },
	{ "model", S_VDEV, false, "a model device name (1..31 chars)", parse_model },
	{ "ports", S_VDEV | S_ENV, true, "an integer 1..8, given once", parse_ports },
	{ "mac", S_VDEV | S_PCI | S_ENV, false, "a MAC xx:xx:xx:xx:xx:xx, up to 8 times",
	  parse_mac },
	{ "wire", S_VDEV | S_ENV, true,
	  "none|loop|pair:<port>|pair:<dev>/<port>|gen[:k=v]...|pcap:...|tap:<if>, up to 8 times",
	  parse_wire },
	{ "engine_cpu", S_VDEV | S_ENV, true, "an integer -1..1023", parse_engine_cpu },
	{ "doorbell", S_VDEV | S_ENV, true, "object or shared", parse_doorbell },
	{ "rx_coalesce", S_VDEV | S_ENV, true, "0 or 1", parse_rx_coalesce },
	{ "tx_cqe_suppress", S_VDEV | S_PCI, false, "0 or 1", parse_tx_cqe_suppress },
};

static void
log_allowed_keys(const char *key, unsigned int scope)
{
	char list[256] = "";
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < RTE_DIM(mana_keys); i++) {
		if ((mana_keys[i].scopes & scope) == 0)
			continue;
		off += snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0, "%s%s",
				off == 0 ? "" : ", ", mana_keys[i].key);
	}
	PMD_INIT_LOG(ERR, "devargs: unknown key '%s' (allowed here: %s)", key, list);
}

static int
apply_pair(char *key, char *val, unsigned int scope, struct mana_devargs *da)
{
	const char *why = NULL;
	unsigned int i;

	for (i = 0; i < RTE_DIM(mana_keys); i++)
		if (strcmp(key, mana_keys[i].key) == 0 && (mana_keys[i].scopes & scope))
			break;
	if (i == RTE_DIM(mana_keys)) {
		log_allowed_keys(key, scope);
		return -EINVAL;
	}
	if (val == NULL || mana_keys[i].parse(val, da, &why) != 0) {
		PMD_INIT_LOG(ERR, "devargs: bad value '%s' for key '%s'%s%s (allowed: %s)",
			     val == NULL ? "" : val, key, why != NULL ? ": " : "",
			     why != NULL ? why : "", mana_keys[i].allowed);
		return -EINVAL;
	}
	if (mana_keys[i].model_only)
		da->model_keys = true;
	return 0;
}

static void
devargs_defaults(struct mana_devargs *da)
{
	memset(da, 0, sizeof(*da));
	da->engine_cpu = -1;
	da->doorbell_shared = -1;
	da->rx_coalesce = -1;
	da->tx_cqe_suppress = true;
}

int
mana_devargs_parse(const char *args, enum mana_devargs_scope scope, struct mana_devargs *da)
{
	char buf[MANA_DEVARGS_MAX_LEN];
	char *pair, *next, *val;
	int ret;

	devargs_defaults(da);
	if (args == NULL || args[0] == '\0')
		return 0;
	if (strlen(args) >= sizeof(buf)) {
		PMD_INIT_LOG(ERR, "devargs: string longer than %zu bytes", sizeof(buf) - 1);
		return -EINVAL;
	}
	strcpy(buf, args);
	for (pair = buf; pair != NULL; pair = next) {
		next = strchr(pair, ',');
		if (next != NULL)
			*next++ = '\0';
		if (*pair == '\0')
			continue;
		val = strchr(pair, '=');
		if (val != NULL)
			*val++ = '\0';
		ret = apply_pair(pair, val, 1u << scope, da);
		if (ret != 0)
			return ret;
	}
	if (da->ibdev[0] != '\0' && (da->model[0] != '\0' || da->model_keys)) {
		PMD_INIT_LOG(ERR, "devargs: 'ibdev' names a real device; it cannot be combined "
			     "with model, ports, wire, engine_cpu, doorbell or rx_coalesce");
		return -EINVAL;
	}
	if (da->nports != 0 && (da->nwire > da->nports || da->nmac > da->nports)) {
		PMD_INIT_LOG(ERR, "devargs: %u wire= and %u mac= given for ports=%u "
			     "(at most one of each per port)", da->nwire, da->nmac, da->nports);
		return -EINVAL;
	}
	return 0;
}

int
mana_devargs_model_config(const struct mana_devargs *da, const char *name, int numa_node,
			  struct mana_model_config *cfg)
{
	const struct mana_vs_model_api *api = mana_vs_model_api();
	unsigned int i, nports;

	if (api == NULL) {
		PMD_INIT_LOG(ERR, "model %s: this build of net_mana has no software device "
			     "(-Dmodel=false)", name);
		return -ENOTSUP;
	}
	if (strlen(name) >= sizeof(cfg->name)) {
		PMD_INIT_LOG(ERR, "model name '%s' longer than %zu chars", name,
			     sizeof(cfg->name) - 1);
		return -EINVAL;
	}
	api->config_init(cfg, name);
	nports = da->nports;
	if (nports == 0)
		nports = RTE_MAX(1u, RTE_MAX(da->nmac, da->nwire));
	cfg->nports = nports;
	for (i = 0; i < da->nmac; i++) {
		memcpy(cfg->mac[i], da->mac[i].addr_bytes, RTE_ETHER_ADDR_LEN);
		cfg->mac_set[i] = true;
	}
	for (i = 0; i < da->nwire; i++)
		cfg->wire[i] = da->wire[i];
	cfg->engine_cpu = da->engine_cpu;
	if (da->doorbell_shared >= 0)
		cfg->shared_doorbell = da->doorbell_shared;
	if (da->rx_coalesce >= 0)
		cfg->rx_coalesce = da->rx_coalesce;
	cfg->numa_node = numa_node;
	return 0;
}
