/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Where the replacement library's devices come from: the MANA_MODEL
 * environment variable, read once when the library is loaded (so a PCI
 * presentation exists before a DPDK EAL scans the bus) or at the first
 * ibv_get_device_list() call.
 *
 *   MANA_MODEL="dev[;dev...]"   dev = key=value[,key=value...]
 *     the device settings of mana_model_settings_set() (one table for this and
 *     the PMD's devargs: doc/user_guide.md, "Software device settings"), with
 *     name= (default mana<index>), pci= and sysfs=; doorbell= defaults to
 *     shared here, the page programs written for hardware ring
 *   MANA_MODEL_LOG=err|warning|notice|info|debug   model log level on stderr
 *   MANA_MODEL_STATS=<file>        port counters, the counters of every queue that
 *                                  ended and verb call counts, written there at
 *                                  process exit
 */

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mana_model.h"
#include "mana_model_verbs.h"
#include "ibvm_priv.h"

#define IBVM_MAX_DEVICES	16

static pthread_once_t ibvm_once = PTHREAD_ONCE_INIT;
static int ibvm_init_err;
static int ibvm_log_level = 4;	/* warnings and errors */
static struct mana_model *ibvm_models[IBVM_MAX_DEVICES];
static unsigned int ibvm_nmodels;

void
ibvm_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > ibvm_log_level)
		return;
	va_start(ap, fmt);
	fputs("libibverbs(mana model): ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void
ibvm_model_log(int level, const char *msg, void *arg)
{
	(void)arg;
	if (level <= ibvm_log_level)
		fprintf(stderr, "mana_model: %s\n", msg);
}

static int
ibvm_parse_level(const char *s)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
	};
	char *end;
	long v;

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(s, names[i]) == 0)
			return (int)i;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 0 || v > 7)
		return -1;
	return (int)v;
}

/* Parse one device (modified in place; keys: mana_model_settings_set) and create it. */
static int
ibvm_create_one(char *spec, unsigned int index, void *arg)
{
	struct mana_model_settings st;
	struct mana_model_config *cfg = &st.cfg;
	struct mana_model *m;
	int ret;

	(void)arg;
	ret = ibvm_parse_device(spec, index, &st);
	if (ret != 0)
		return ret;
	if (index >= IBVM_MAX_DEVICES) {
		ibvm_log(3, "MANA_MODEL: more than %u devices", IBVM_MAX_DEVICES);
		return EINVAL;
	}
	cfg->frontend = MANA_MODEL_FRONTEND_VERBS;
	m = mana_model_create(cfg);
	if (m == NULL) {
		ibvm_log(3, "MANA_MODEL device %s: creation failed: %s", cfg->name,
			 strerror(errno));
		return errno != 0 ? errno : EINVAL;
	}
	ibvm_models[ibvm_nmodels++] = m;
	ibvm_log(6, "device %s: %u port(s), sysfs %s", cfg->name, cfg->nports,
		 mana_model_ibdev_path(m));
	return 0;
}

static void
ibvm_write_port_stats(FILE *f, const char *name, unsigned int port,
		      const struct mana_model_port_stats *s)
{
	uint64_t tx_err = 0;

	for (unsigned int i = 1; i < sizeof(s->tx_err) / sizeof(s->tx_err[0]); i++)
		tx_err += s->tx_err[i];
	fprintf(f, "%s port%u rx_frames=%" PRIu64 " rx_bytes=%" PRIu64 " tx_frames=%" PRIu64
		" tx_bytes=%" PRIu64 " rx_drop_no_wqe=%" PRIu64 " rx_drop_no_rxq=%" PRIu64
		" rx_drop_sge=%" PRIu64 " rx_truncated=%" PRIu64 " rx_coalesced_cqes=%" PRIu64
		" tx_err=%" PRIu64 " db_rejected=%" PRIu64 " queue_errors=%" PRIu64
		" wire_gen_frames=%" PRIu64 " wire_sink_frames=%" PRIu64
		" wire_sink_bytes=%" PRIu64 " wire_sink_bad=%" PRIu64
		" wire_sink_csum_ok=%" PRIu64 " wire_sink_vlan=%" PRIu64 "\n",
		name, port, s->rx_frames, s->rx_bytes, s->tx_frames, s->tx_bytes,
		s->rx_drop_no_wqe, s->rx_drop_no_rxq, s->rx_drop_sge, s->rx_truncated,
		s->rx_coalesced_cqes, tx_err, s->db_rejected, s->queue_errors,
		s->wire_gen_frames, s->wire_sink_frames, s->wire_sink_bytes, s->wire_sink_bad,
		s->wire_sink_csum_ok, s->wire_sink_vlan);
}

/* The queues that ended (every one, once the program closed its ports). */
static void
ibvm_write_queue_stats(FILE *f, struct mana_model *m, const char *name)
{
	struct mana_model_queue_stats q;
	uint32_t id;

	for (unsigned int i = 0; mana_model_retired_queue_stats(m, i, &id, &q) == 0; i++)
		fprintf(f, "%s %s 0x%x port%u frames=%" PRIu64 " bytes=%" PRIu64 " cqes=%" PRIu64
			" err_cqes=%" PRIu64 " drop_no_wqe=%" PRIu64 " coalesced_cqes=%" PRIu64 "\n",
			name, q.is_sq ? "sq" : "rq", id, q.port, q.frames, q.bytes, q.cqes,
			q.err_cqes, q.drop_no_wqe, q.coalesced_cqes);
}

/* atexit: the model's counters for scripts that run unmodified programs. */
static void
ibvm_dump_stats(void)
{
	const char *path = getenv("MANA_MODEL_STATS");
	FILE *f;

	if (path == NULL || path[0] == '\0')
		return;
	f = fopen(path, "w");
	if (f == NULL) {
		ibvm_log(3, "MANA_MODEL_STATS: cannot write %s: %s", path, strerror(errno));
		return;
	}
	for (unsigned int i = 0; i < ibvm_nmodels; i++) {
		const struct mana_model_config *cfg = mana_model_config(ibvm_models[i]);
		struct mana_model_port_stats st;

		for (unsigned int p = 0; p < cfg->nports; p++)
			if (mana_model_port_stats(ibvm_models[i], p, &st) == 0)
				ibvm_write_port_stats(f, cfg->name, p, &st);
		ibvm_write_queue_stats(f, ibvm_models[i], cfg->name);
		fprintf(f, "%s last_error=%s\n", cfg->name,
			mana_model_last_error(ibvm_models[i]));
	}
	ibvm_calls_write(f);
	fclose(f);
}

static void
ibvm_init_once(void)
{
	const char *env = getenv("MANA_MODEL");
	const char *lvl = getenv("MANA_MODEL_LOG");
	char *spec;

	if (lvl != NULL && lvl[0] != '\0') {
		int l = ibvm_parse_level(lvl);

		if (l < 0)
			ibvm_log(4, "MANA_MODEL_LOG=%s ignored (want err..debug or 0..7)", lvl);
		else
			ibvm_log_level = l;
	}
	mana_model_set_log(ibvm_model_log, NULL);
	if (env == NULL || env[0] == '\0')
		return;		/* no device, like a host without RDMA hardware */
	spec = strdup(env);
	if (spec == NULL) {
		ibvm_init_err = ENOMEM;
		return;
	}
	ibvm_init_err = ibvm_parse_env(spec, ibvm_create_one, NULL);
	free(spec);
	if (ibvm_nmodels > 0)
		atexit(ibvm_dump_stats);
}

int
ibvm_devices_init(void)
{
	pthread_once(&ibvm_once, ibvm_init_once);
	return ibvm_init_err;
}

/* Devices exist before main(): a DPDK EAL scans the PCI tree before probing. */
__attribute__((constructor)) static void
ibvm_ctor(void)
{
	ibvm_devices_init();
}
