/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The driver's devargs (drivers/net/mana/mana_devargs.c, mana_devargs_parse)
 * without EAL: byte 0 picks the scope (--vdev, PCI -a, MANA_MODEL_PCI), the
 * rest is the devargs string. The software device's settings go through
 * the shim to the model's parser, as in the driver. Properties: 0 or a
 * negative errno; a refusal logs at least one error line, an acceptance
 * none; an accepted string gives at most 8 MACs, terminated names, not
 * both ibdev and model settings, a model config mana_devargs_model_config
 * accepts; parsing is deterministic.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include <rte_log.h>

#include "mana_ethdev.h"
#include "fuzz.h"

/* The log types mana_ethdev.c registers in the driver. */
int mana_logtype_init;
int mana_logtype_driver;
int mana_logtype_rx;
int mana_logtype_tx;

static unsigned int errors_logged;

static ssize_t
log_write(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	(void)buf;
	if (rte_log_cur_msg_loglevel() <= (int)RTE_LOG_ERR)
		errors_logged++;
	return size;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static cookie_io_functions_t fns = { .write = log_write };
	FILE *f = fopencookie(NULL, "w", fns);

	(void)argc;
	(void)argv;
	if (f == NULL)
		abort();
	setvbuf(f, NULL, _IONBF, 0);
	rte_openlog_stream(f);
	mana_logtype_init = rte_log_register("pmd.net.mana.init");
	mana_logtype_driver = rte_log_register("pmd.net.mana.driver");
	mana_logtype_rx = rte_log_register("pmd.net.mana.rx");
	mana_logtype_tx = rte_log_register("pmd.net.mana.tx");
	rte_log_set_global_level(RTE_LOG_DEBUG);
	rte_log_set_level(mana_logtype_init, RTE_LOG_DEBUG);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mana_devargs da, again;
	struct mana_model_config cfg;
	enum mana_devargs_scope scope;
	unsigned int errors;
	char *args;
	int ret;

	if (size < 1)
		return 0;
	scope = (enum mana_devargs_scope)(data[0] % 3);
	args = fuzz_strndup(data + 1, size - 1);
	errors = errors_logged;
	ret = mana_devargs_parse(args, scope, &da);
	FUZZ_CHECK(ret <= 0 && ret > -4096, "ret %d", ret);
	if (ret != 0) {
		FUZZ_CHECK(errors_logged > errors, "refused (%d) without an error line", ret);
	} else {
		FUZZ_CHECK(errors_logged == errors, "accepted with an error line");
		FUZZ_CHECK(da.nmac <= MANA_MAX_MAC_ARGS, "nmac %u", da.nmac);
		FUZZ_CHECK(fuzz_terminated(da.ibdev, sizeof(da.ibdev)) &&
			   fuzz_terminated(da.model, sizeof(da.model)), "names");
		FUZZ_CHECK(da.ibdev[0] == '\0' || (da.model[0] == '\0' && !da.model_keys),
			   "ibdev with the software device's settings");
		FUZZ_CHECK(scope == MANA_DEVARGS_VDEV ||
			   (da.ibdev[0] == '\0' && da.model[0] == '\0'),
			   "vdev-only key accepted in scope %d", (int)scope);
		FUZZ_CHECK(da.settings.cfg.nports >= 1 &&
			   da.settings.cfg.nports <= MANA_MODEL_MAX_PORTS, "nports %u",
			   da.settings.cfg.nports);
		FUZZ_CHECK(mana_devargs_model_config(&da, "fuzz0", 0, &cfg) == 0, "model config");
		FUZZ_CHECK(mana_devargs_parse(args, scope, &again) == 0, "second parse");
		FUZZ_CHECK(again.nmac == da.nmac && again.tx_cqe_suppress == da.tx_cqe_suppress &&
			   strcmp(again.ibdev, da.ibdev) == 0 &&
			   strcmp(again.model, da.model) == 0 &&
			   memcmp(again.mac, da.mac, sizeof(da.mac)) == 0, "second parse differs");
	}
	free(args);
	return 0;
}
