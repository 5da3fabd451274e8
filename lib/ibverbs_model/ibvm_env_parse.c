/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The MANA_MODEL environment's grammar (ibvm_env.c reads the variable and
 * creates the devices): devices separated by ';', each a list of key=value
 * pairs separated by ',', the keys those of mana_model_settings_set(). Apart
 * from device creation so that test/fuzz/fuzz_model_env.c runs it alone.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mana_model.h"
#include "ibvm_priv.h"

int
ibvm_parse_device(char *spec, unsigned int index, struct mana_model_settings *st)
{
	struct mana_model_config *cfg = &st->cfg;
	char name[16], *save = NULL;

	snprintf(name, sizeof(name), "mana%u", index);
	mana_model_settings_init(st, name, MANA_MODEL_SETTINGS_DEVICE |
				 MANA_MODEL_SETTINGS_IDENTITY, "MANA_MODEL");
	/* Programs written for hardware ring every queue on one page: shared by default. */
	cfg->shared_doorbell = true;
	for (char *kv = strtok_r(spec, ",", &save); kv != NULL; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (eq == NULL) {
			ibvm_log(3, "MANA_MODEL device %u: '%s' is not key=value", index, kv);
			return EINVAL;
		}
		*eq = '\0';
		if (mana_model_settings_set(st, kv, eq + 1) != 0) {
			ibvm_log(3, "MANA_MODEL device %u: %s", index, st->msg);
			return EINVAL;
		}
		if (st->msg[0] != '\0')
			ibvm_log(4, "%s", st->msg);
	}
	if (mana_model_settings_finish(st) != 0) {
		ibvm_log(3, "MANA_MODEL device %u: %s", index, st->msg);
		return EINVAL;
	}
	return 0;
}

int
ibvm_parse_env(char *env, int (*each)(char *spec, unsigned int index, void *arg), void *arg)
{
	char *save = NULL;
	unsigned int index = 0;
	int ret;

	for (char *dev = strtok_r(env, ";", &save); dev != NULL;
	     dev = strtok_r(NULL, ";", &save)) {
		ret = each(dev, index++, arg);
		if (ret != 0)
			return ret;
	}
	return 0;
}
