/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Which RX and TX burst functions a port runs: scalar, SSE4.2 or AVX2
 * (NIC guide, "Datapath"). The devarg datapath= asks for one (default
 * auto); at every start the path is chosen as DPDK's own PMDs choose: the
 * widest build the CPU runs (rte_cpu_get_flag_enabled) within EAL's
 * maximum SIMD bitwidth (rte_vect_get_max_simd_bitwidth,
 * --force-max-simd-bitwidth). A path asked for that the CPU or the build
 * lacks fails the devargs (mana_devargs.c); one above EAL's bitwidth gives way to the widest
 * allowed, with a log line. Scattered RX has one (scalar) path.
 *
 * priv->dp holds the path in use, the same in every process: a secondary
 * picks its own functions by it (mana_mp_rxtx.c).
 */

#include <errno.h>
#include <string.h>

#include <rte_cpuflags.h>
#include <rte_vect.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

static const char *const dp_names[] = {
	[MANA_DP_AUTO] = "auto",
	[MANA_DP_SCALAR] = "scalar",
	[MANA_DP_SSE] = "sse",
	[MANA_DP_AVX2] = "avx2",
};

/* Burst mode names (rte_eth_burst_mode.info). */
static const char *const dp_mode_names[] = {
	[MANA_DP_AUTO] = "Scalar",
	[MANA_DP_SCALAR] = "Scalar",
	[MANA_DP_SSE] = "SSE4.2",
	[MANA_DP_AVX2] = "AVX2",
};

int
mana_datapath_parse(const char *val, enum mana_datapath *dp)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(dp_names); i++) {
		if (strcmp(val, dp_names[i]) == 0) {
			*dp = (enum mana_datapath)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *
mana_datapath_name(enum mana_datapath dp)
{
	return dp < RTE_DIM(dp_names) ? dp_names[dp] : "?";
}

const char *
mana_datapath_mode_name(enum mana_datapath dp)
{
	return dp < RTE_DIM(dp_mode_names) ? dp_mode_names[dp] : "?";
}

/* SIMD bits the path needs. */
static uint16_t
dp_bits(enum mana_datapath dp)
{
	switch (dp) {
	case MANA_DP_SSE:
		return RTE_VECT_SIMD_128;
	case MANA_DP_AVX2:
		return RTE_VECT_SIMD_256;
	default:
		return RTE_VECT_SIMD_DISABLED;
	}
}

const char *
mana_datapath_unavailable(enum mana_datapath dp)
{
	if (dp == MANA_DP_AUTO || dp == MANA_DP_SCALAR)
		return NULL;
#ifndef MANA_HAVE_VEC
	return "this build has no vector datapath (x86-64 only)";
#else
	if (dp == MANA_DP_SSE && rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) <= 0)
		return "the CPU has no SSE4.2";
	if (dp == MANA_DP_AVX2 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) <= 0)
		return "the CPU has no AVX2";
	return NULL;
#endif
}

enum mana_datapath
mana_datapath_pick(const struct mana_priv *priv, bool log)
{
	const uint16_t max = rte_vect_get_max_simd_bitwidth();
	const enum mana_datapath want = priv->dp_want;
	enum mana_datapath dp;

	if (want == MANA_DP_SCALAR)
		return MANA_DP_SCALAR;
	/* auto: the widest there is; else the one asked for, or narrower */
	for (dp = want == MANA_DP_AUTO ? MANA_DP_AVX2 : want; dp > MANA_DP_SCALAR; dp--)
		if (mana_datapath_unavailable(dp) == NULL && dp_bits(dp) <= max)
			break;
	if (log && want != MANA_DP_AUTO && dp != want)
		PMD_DRV_LOG(NOTICE, "port %u: datapath=%s needs %u-bit SIMD, EAL allows %u: "
			    "running %s", priv->port_id, mana_datapath_name(want), dp_bits(want),
			    max, mana_datapath_name(dp));
	return dp;
}
