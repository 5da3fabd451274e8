/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The MANA_MODEL environment (lib/ibverbs_model/ibvm_env_parse.c over
 * lib/mana_model/model_settings.c): the input is the variable's value,
 * devices separated by ';', key=value pairs by ','. The devices are parsed
 * as the replacement libibverbs does before it creates them (creation, the
 * sysfs tree and the engine thread are left out). Properties: a device is
 * refused with exactly one error line and accepted with none; an accepted
 * device has 1..8 ports, a wire every port can open (the wire check
 * passes), terminated names, a max_qp, cqe_batch and part within the documented
 * values, and no mac or wire key naming a port past ports=.
 */

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "mana_model.h"
#include "ibvm_priv.h"
#include "fuzz.h"

static unsigned int errors_logged;

/* ibvm_env.c's logger, replaced: count the error lines, check each is one line. */
void
ibvm_log(int level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	FUZZ_CHECK(line[0] != '\0', "empty log line");
	if (level <= 3)
		errors_logged++;
}

static int
one_device(char *spec, unsigned int index, void *arg)
{
	struct mana_model_settings st;
	const struct mana_model_config *cfg = &st.cfg;
	unsigned int errors = errors_logged, p;
	int ret;

	(void)arg;
	ret = ibvm_parse_device(spec, index, &st);
	if (ret != 0) {
		FUZZ_CHECK(ret == EINVAL, "device %u: ret %d", index, ret);
		FUZZ_CHECK(errors_logged == errors + 1, "device %u refused with %u error lines",
			   index, errors_logged - errors);
		return ret;
	}
	FUZZ_CHECK(errors_logged == errors, "device %u accepted with an error line", index);
	FUZZ_CHECK(cfg->nports >= 1 && cfg->nports <= MANA_MODEL_MAX_PORTS, "nports %u",
		   cfg->nports);
	FUZZ_CHECK(fuzz_terminated(cfg->name, sizeof(cfg->name)) && cfg->name[0] != '\0',
		   "name");
	FUZZ_CHECK(fuzz_terminated(cfg->pci_bdf, sizeof(cfg->pci_bdf)), "pci");
	FUZZ_CHECK(fuzz_terminated(cfg->sysfs_root, sizeof(cfg->sysfs_root)), "sysfs");
	FUZZ_CHECK(cfg->max_qp >= 1 && cfg->max_qp <= 65535, "max_qp %u", cfg->max_qp);
	FUZZ_CHECK(cfg->cqe_batch >= 1 && cfg->cqe_batch <= 64, "cqe_batch %u", cfg->cqe_batch);
	FUZZ_CHECK(cfg->vendor_part_id == 0 || cfg->vendor_part_id == 2, "part %u",
		   cfg->vendor_part_id);
	FUZZ_CHECK(cfg->engine_threads >= 1 && cfg->engine_threads <= MANA_MODEL_MAX_ENGINES,
		   "engine_threads %u", cfg->engine_threads);
	for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++)
		FUZZ_CHECK(cfg->engine_cpu[i] >= -1 && cfg->engine_cpu[i] <= 1023,
			   "engine_cpu[%u] %d", i, cfg->engine_cpu[i]);
	FUZZ_CHECK(cfg->numa_node >= -1 && cfg->numa_node <= 1023, "numa %d", cfg->numa_node);
	for (p = 0; p < MANA_MODEL_MAX_PORTS; p++) {
		struct mana_model_wire_cfg w;

		FUZZ_CHECK(p < cfg->nports || (st.ports_named & (1u << p)) == 0,
			   "port %u named but ports=%u", p, cfg->nports);
		if (p >= cfg->nports)
			continue;
		w = cfg->wire[p];
		FUZZ_CHECK(w.type <= MANA_MODEL_WIRE_TAP, "port %u wire type %d", p, (int)w.type);
		if (w.type == MANA_MODEL_WIRE_GEN)
			FUZZ_CHECK(w.gen.flows >= 1 && w.gen.flows <= 65536 &&
				   w.gen.frame_len <= MANA_MODEL_MAX_FRAME, "port %u gen", p);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *env = fuzz_strndup(data, size);
	int ret;

	ret = ibvm_parse_env(env, one_device, NULL);
	FUZZ_CHECK(ret == 0 || ret == EINVAL, "ret %d", ret);
	free(env);
	return 0;
}
