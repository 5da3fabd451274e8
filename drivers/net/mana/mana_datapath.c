/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Which RX and TX burst functions a port runs: scalar, or a vector build of
 * the CPU family's, SSE4.2 or AVX2 on x86-64 and NEON on AArch64 (doc/design.md,
 * "Datapath"). The devarg datapath= asks for one (default auto); at
 * every start the path is chosen as DPDK's own PMDs choose: the widest
 * build the CPU runs (rte_cpu_get_flag_enabled) within EAL's maximum SIMD
 * bitwidth (rte_vect_get_max_simd_bitwidth, --force-max-simd-bitwidth). A
 * path asked for that the CPU, its family or the build lacks fails the
 * devargs (mana_devargs.c); one above EAL's bitwidth gives way to the
 * widest allowed of its family, with a log line. Scattered RX has one
 * (scalar) path.
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
	[MANA_DP_NEON] = "neon",
};

/* Burst mode names (rte_eth_burst_mode.info). */
static const char *const dp_mode_names[] = {
	[MANA_DP_AUTO] = "Scalar",
	[MANA_DP_SCALAR] = "Scalar",
	[MANA_DP_SSE] = "SSE4.2",
	[MANA_DP_AVX2] = "AVX2",
	[MANA_DP_NEON] = "NEON",
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
	case MANA_DP_NEON:
		return RTE_VECT_SIMD_128;
	case MANA_DP_AVX2:
		return RTE_VECT_SIMD_256;
	default:
		return RTE_VECT_SIMD_DISABLED;
	}
}

/* The next narrower path of dp's CPU family; scalar below the narrowest. */
static enum mana_datapath
dp_narrower(enum mana_datapath dp)
{
	return dp == MANA_DP_AVX2 ? MANA_DP_SSE : MANA_DP_SCALAR;
}

/*
 * The widest path of each CPU family, where auto starts: a build has one
 * family's paths at most, the others are unavailable.
 */
static const enum mana_datapath dp_widest[] = { MANA_DP_AVX2, MANA_DP_NEON };

static const char *
dp_x86_unavailable(enum mana_datapath dp)
{
#if !defined(RTE_ARCH_X86_64)
	return dp == MANA_DP_SSE ? "SSE4.2 is x86-64 only" : "AVX2 is x86-64 only";
#elif !defined(MANA_HAVE_VEC)
	RTE_SET_USED(dp);
	return "this build has no vector datapath (its compiler lacks -msse4.2 or -mavx2)";
#else
	if (dp == MANA_DP_SSE && rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) <= 0)
		return "the CPU has no SSE4.2";
	if (dp == MANA_DP_AVX2 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) <= 0)
		return "the CPU has no AVX2";
	return NULL;
#endif
}

static const char *
dp_arm_unavailable(void)
{
#if !defined(RTE_ARCH_ARM64)
	return "NEON is arm64 only";
#elif !defined(MANA_HAVE_NEON)
	return "this build has no NEON datapath";
#else
	/* Part of the AArch64 base: a CPU without it does not run DPDK's arm64 build either. */
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_NEON) > 0 ? NULL : "the CPU has no NEON";
#endif
}

const char *
mana_datapath_unavailable(enum mana_datapath dp)
{
	switch (dp) {
	case MANA_DP_SSE:
	case MANA_DP_AVX2:
		return dp_x86_unavailable(dp);
	case MANA_DP_NEON:
		return dp_arm_unavailable();
	default:
		return NULL;
	}
}

/* dp, or the widest narrower path of its family, that runs here within max bits. */
static enum mana_datapath
dp_fit(enum mana_datapath dp, uint16_t max)
{
	for (; dp != MANA_DP_SCALAR; dp = dp_narrower(dp))
		if (mana_datapath_unavailable(dp) == NULL && dp_bits(dp) <= max)
			break;
	return dp;
}

enum mana_datapath
mana_datapath_pick(const struct mana_priv *priv, bool log)
{
	const uint16_t max = rte_vect_get_max_simd_bitwidth();
	const enum mana_datapath want = priv->dp_want;
	enum mana_datapath dp = MANA_DP_SCALAR;
	unsigned int i;

	if (want == MANA_DP_SCALAR)
		return MANA_DP_SCALAR;
	if (want == MANA_DP_AUTO) {
		for (i = 0; i < RTE_DIM(dp_widest) && dp == MANA_DP_SCALAR; i++)
			dp = dp_fit(dp_widest[i], max);
		return dp;
	}
	dp = dp_fit(want, max);
	if (log && dp != want)
		PMD_DRV_LOG(NOTICE, "port %u: datapath=%s needs %u-bit SIMD, EAL allows %u: "
			    "running %s", priv->port_id, mana_datapath_name(want), dp_bits(want),
			    max, mana_datapath_name(dp));
	return dp;
}
