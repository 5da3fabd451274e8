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
 * value or repeat fails with one log line naming the key and what is allowed.
 * Repeats: every key is given at most once ("given twice"), except mac=, a
 * list (up to 8); the software device's settings follow the same rule
 * (mana_model_settings_set: wire= is its list). One rule for every key, so
 * that a repeated key is never silently dropped (doc/guides/nics/mana.rst).
 *
 * Keys (scope V = --vdev, P = PCI -a, E = MANA_MODEL_PCI environment):
 *   ibdev=<name>        V    rdma-core device (e.g. manae_0) instead of the model
 *   model=<name>        V    software device to use or create; default: the vdev name
 *   mac=xx:xx:xx:xx:xx:xx  V P E  select vPorts by MAC (repeatable, up to 8); on a model
 *                            the PMD creates, the i-th mac= also sets vPort i's MAC
 *   tx_cqe_suppress=0|1 V P  one TX completion per burst instead of per packet (default 1)
 *   recovery=auto|manual V P  after a device reset: the driver recovers the port
 *                            (default) or raises INTR_RESET for rte_eth_dev_reset()
 *   datapath=auto|scalar|sse|avx2|neon V P  burst functions (default auto: the widest
 *                            the CPU and EAL's max SIMD bitwidth allow; sse and avx2 on
 *                            x86-64, neon on arm64; mana_datapath.c)
 *   recovery_timeout=<ms> V P  longest wait for the device to come back (100..600000,
 *                            default 30000)
 * and, in V and E, the software device's settings, parsed by the model's one
 * parser that the MANA_MODEL environment also uses (mana_model_settings_set:
 * ports, mac<N>, wire, wire<N>, doorbell, coalesce, cqe_batch, engine_cpu,
 * engine_threads, numa, max_qp, part; old spellings rx_coalesce and doorbell=object log a deprecation line).
 * Here doorbell defaults to queue; engine_cpu to a CPU of the node that no
 * EAL lcore uses (vdev).
 */

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
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
	bool list;		/* may be given several times (else once) */
	const char *allowed;	/* shown in the error line */
	int (*parse)(const char *val, struct mana_devargs *da, const char **why);
};

static int
parse_name(const char *val, char *out, size_t size, const char **why)
{
	size_t len = strlen(val);
	size_t i;

	(void)why;
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
	return parse_name(val, da->ibdev, sizeof(da->ibdev), why);
}

static int
parse_model(const char *val, struct mana_devargs *da, const char **why)
{
	return parse_name(val, da->model, sizeof(da->model), why);
}

/*
 * xx:xx:xx:xx:xx:xx only. rte_ether_unformat_addr alone would make the
 * accepted forms depend on the DPDK release (24.11 also takes one-digit
 * fields, dashes and dots, 22.11 does not).
 */
static bool
mac_form_ok(const char *val)
{
	unsigned int i;

	if (strlen(val) != RTE_ETHER_ADDR_FMT_SIZE - 1)
		return false;
	for (i = 0; i < RTE_ETHER_ADDR_FMT_SIZE - 1; i++) {
		if (i % 3 == 2 ? val[i] != ':' : !isxdigit((unsigned char)val[i]))
			return false;
	}
	return true;
}

static int
parse_mac(const char *val, struct mana_devargs *da, const char **why)
{
	if (da->nmac >= MANA_MAX_MAC_ARGS) {
		*why = "given more than 8 times";
		return -EINVAL;
	}
	if (!mac_form_ok(val) || rte_ether_unformat_addr(val, &da->mac[da->nmac]) != 0)
		return -EINVAL;
	da->nmac++;
	return 0;
}

/*
 * The i-th mac= is also vPort i's MAC on a model the PMD creates; handed on as
 * the user wrote it (already checked: xx:xx:xx:xx:xx:xx), so that an error
 * about it quotes the devarg.
 */
static int
mac_to_settings(struct mana_devargs *da, const char *val)
{
	if (mana_vs_model_api()->settings_set(&da->settings, "mac", val) != 0) {
		PMD_INIT_LOG(ERR, "devargs: %s", da->settings.msg);
		return -EINVAL;
	}
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
parse_tx_cqe_suppress(const char *val, struct mana_devargs *da, const char **why)
{
	(void)why;
	return parse_bool(val, &da->tx_cqe_suppress);
}

static int
parse_recovery(const char *val, struct mana_devargs *da, const char **why)
{
	(void)why;
	if (strcmp(val, "auto") == 0)
		da->recovery_manual = false;
	else if (strcmp(val, "manual") == 0)
		da->recovery_manual = true;
	else
		return -EINVAL;
	return 0;
}

static int
parse_recovery_timeout(const char *val, struct mana_devargs *da, const char **why)
{
	unsigned long v;
	char *end;

	(void)why;
	/* Decimal without a leading zero, or 0x hex (the NIC guide's integer rule). */
	if (val[0] == '0' && val[1] == 'x') {
		if (!isxdigit((unsigned char)val[2]))
			return -EINVAL;
		errno = 0;
		v = strtoul(val + 2, &end, 16);
	} else {
		if (!isdigit((unsigned char)val[0]) || val[0] == '0')
			return -EINVAL;
		errno = 0;
		v = strtoul(val, &end, 10);
	}
	if (errno != 0 || *end != '\0' || v < MANA_RECOVERY_TIMEOUT_MIN_MS ||
	    v > MANA_RECOVERY_TIMEOUT_MAX_MS)
		return -EINVAL;
	da->recovery_timeout_ms = (uint32_t)v;
	return 0;
}

static int
parse_datapath(const char *val, struct mana_devargs *da, const char **why)
{
	if (mana_datapath_parse(val, &da->datapath) != 0)
		return -EINVAL;
	*why = mana_datapath_unavailable(da->datapath);
	return *why == NULL ? 0 : -EINVAL;
}

/* The datapath values this build's CPU family can run (the others are refused, saying why). */
#if defined(RTE_ARCH_X86_64)
#define DATAPATH_ALLOWED	"auto, scalar, sse or avx2"
#elif defined(RTE_ARCH_ARM64)
#define DATAPATH_ALLOWED	"auto, scalar or neon"
#else
#define DATAPATH_ALLOWED	"auto or scalar"
#endif

static const struct mana_devarg_key mana_keys[] = {
	{ "ibdev", S_VDEV, false, "an rdma-core device name (1..63 chars)", parse_ibdev },
	{ "model", S_VDEV, false, "a model device name (1..31 chars)", parse_model },
	{ "mac", S_VDEV | S_PCI | S_ENV, true, "a MAC xx:xx:xx:xx:xx:xx, up to 8 times",
	  parse_mac },
	{ "tx_cqe_suppress", S_VDEV | S_PCI, false, "0 or 1", parse_tx_cqe_suppress },
	{ "recovery", S_VDEV | S_PCI, false, "auto or manual", parse_recovery },
	{ "recovery_timeout", S_VDEV | S_PCI, false, "milliseconds, 100..600000",
	  parse_recovery_timeout },
	{ "datapath", S_VDEV | S_PCI, false, DATAPATH_ALLOWED, parse_datapath },
};

static_assert(RTE_DIM(mana_keys) <= 32, "mana_devargs.keys_given has a bit per key");

/* Scopes where the software device's settings (mana_model_settings_set) apply. */
#define S_MODEL	(S_VDEV | S_ENV)

static bool
is_driver_key(const char *key)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(mana_keys); i++)
		if (strcmp(key, mana_keys[i].key) == 0)
			return true;
	return false;
}

static void
log_allowed_keys(const char *key, unsigned int scope)
{
	const struct mana_vs_model_api *api = mana_vs_model_api();
	const char *setting;
	char list[512] = "";
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < RTE_DIM(mana_keys); i++) {
		if ((mana_keys[i].scopes & scope) == 0)
			continue;
		off += snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0, "%s%s",
				off == 0 ? "" : ", ", mana_keys[i].key);
	}
	for (i = 0; (scope & S_MODEL) != 0 && api != NULL; i++) {
		setting = api->settings_key(MANA_MODEL_SETTINGS_DEVICE, i);
		if (setting == NULL)
			break;
		if (!is_driver_key(setting))	/* mac: the driver's, handed on */
			off += snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0,
					", %s", setting);
	}
	PMD_INIT_LOG(ERR, "devargs: unknown key '%s' (allowed here: %s)", key, list);
}

/* A software device setting: the model's parser, its message logged as it is. */
static int
apply_setting(char *key, char *val, unsigned int scope, struct mana_devargs *da)
{
	const struct mana_vs_model_api *api = mana_vs_model_api();
	int ret;

	if (api == NULL) {
		PMD_INIT_LOG(ERR, "devargs: unknown key '%s': this build of net_mana has no "
			     "software device (-Dmodel=false), whose settings take the other keys", key);
		return -EINVAL;
	}
	ret = api->settings_set(&da->settings, key, val);
	if (ret == -ENOENT) {
		log_allowed_keys(key, scope);
		return -EINVAL;
	}
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "devargs: %s", da->settings.msg);
		return ret;
	}
	if (da->settings.msg[0] != '\0')
		PMD_INIT_LOG(WARNING, "%s", da->settings.msg);
	da->model_keys = true;
	return 0;
}

static int
apply_pair(char *key, char *val, unsigned int scope, struct mana_devargs *da)
{
	const char *why = NULL;
	unsigned int i;

	for (i = 0; i < RTE_DIM(mana_keys); i++)
		if (strcmp(key, mana_keys[i].key) == 0 && (mana_keys[i].scopes & scope))
			break;
	if (i == RTE_DIM(mana_keys) && (scope & S_MODEL) != 0)
		return apply_setting(key, val, scope, da);
	if (i == RTE_DIM(mana_keys)) {
		log_allowed_keys(key, scope);
		return -EINVAL;
	}
	if (!mana_keys[i].list && (da->keys_given & (1u << i)) != 0 && val != NULL)
		why = "given twice";
	da->keys_given |= 1u << i;
	if (val == NULL || why != NULL || mana_keys[i].parse(val, da, &why) != 0) {
		PMD_INIT_LOG(ERR, "devargs: bad value '%s' for key '%s'%s%s (allowed: %s)",
			     val == NULL ? "" : val, key, why != NULL ? ": " : "",
			     why != NULL ? why : "", mana_keys[i].allowed);
		return -EINVAL;
	}
	/* (a build without the software device has no settings to hand it to) */
	if (mana_keys[i].parse == parse_mac && (scope & S_MODEL) != 0 && mana_vs_model_api() != NULL)
		return mac_to_settings(da, val);
	return 0;
}

static void
devargs_defaults(struct mana_devargs *da, enum mana_devargs_scope scope)
{
	const struct mana_vs_model_api *api = mana_vs_model_api();

	memset(da, 0, sizeof(*da));
	/* the name is the vdev's or model='s, known only when the device is created */
	if (api != NULL)
		api->settings_init(&da->settings, NULL, MANA_MODEL_SETTINGS_DEVICE,
				   scope == MANA_DEVARGS_MODEL_ENV ? "MANA_MODEL_PCI" : "devarg");
	da->tx_cqe_suppress = true;
	da->recovery_timeout_ms = MANA_RECOVERY_TIMEOUT_DEFAULT_MS;
}

int
mana_devargs_parse(const char *args, enum mana_devargs_scope scope, struct mana_devargs *da)
{
	char buf[MANA_DEVARGS_MAX_LEN];
	char *pair, *next, *val;
	int ret;

	devargs_defaults(da, scope);
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
			     "with model or the software device's settings (ports, wire, doorbell, "
			     "coalesce, engine_cpu...)");
		return -EINVAL;
	}
	if (((1u << scope) & S_MODEL) != 0 && mana_vs_model_api() != NULL &&
	    mana_vs_model_api()->settings_finish(&da->settings) != 0) {
		PMD_INIT_LOG(ERR, "devargs: %s", da->settings.msg);
		return -EINVAL;
	}
	return 0;
}

int
mana_devargs_model_config(const struct mana_devargs *da, const char *name, int numa_node,
			  struct mana_model_config *cfg)
{
	if (strlen(name) >= sizeof(cfg->name)) {
		PMD_INIT_LOG(ERR, "model name '%s' longer than %zu chars", name,
			     sizeof(cfg->name) - 1);
		return -EINVAL;
	}
	*cfg = da->settings.cfg;
	snprintf(cfg->name, sizeof(cfg->name), "%s", name);
	if (!da->settings.numa_given)
		cfg->numa_node = numa_node;
	return 0;
}
