/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The one place where the DPDK releases net_mana builds against differ:
 * 22.11 (Debian 12), 23.11 (Ubuntu 24.04), 24.11 LTS (Debian 13) and 25.11
 * (Debian sid). Every other file is written once for all of them; no version
 * test stands anywhere else, and none in a burst function. doc/user_guide.md,
 * section 9 ("Differences between the releases"), lists them for users.
 *
 * 23.11 stands between the others: it has the telemetry *_uint adders
 * (23.03) but not yet the ptype count argument (24.03), the one-argument
 * RTE_PMD_EXPORT_NAME (25.07) or the int rx_queue_count and split queue
 * stats (25.11); each test below places it by the release that changed it.
 */

#ifndef MANA_COMPAT_H
#define MANA_COMPAT_H

#include <stddef.h>
#include <stdint.h>

#include <rte_telemetry.h>
#include <rte_version.h>
#include <ethdev_driver.h>

#if RTE_VERSION < RTE_VERSION_NUM(22, 11, 0, 0) || RTE_VERSION >= RTE_VERSION_NUM(25, 12, 0, 0)
#error "net_mana supports DPDK 22.11, 23.11, 24.11 and 25.11 (see meson.build)"
#endif

/*
 * RTE_PMD_EXPORT_NAME (the driver name that dpdk-pmdinfo.py reads) lost its
 * second argument, a counter for a unique symbol, in DPDK 25.07.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(25, 7, 0, 0)
#define MANA_PMD_EXPORT_NAME(name)	RTE_PMD_EXPORT_NAME(name)
#else
#define MANA_PMD_EXPORT_NAME(name)	RTE_PMD_EXPORT_NAME(name, __COUNTER__)
#endif

/* rx_queue_count returns int since DPDK 25.11 (a negative errno on error). */
#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)
typedef int mana_rx_queue_count_t;
#else
typedef uint32_t mana_rx_queue_count_t;
#endif

/* The supported packet types, in mana_rx.c: the array and its length. */
const uint32_t *mana_ptype_list(size_t *count);

/*
 * dev_supported_ptypes_get: DPDK 24.03 added the element count argument (the
 * array needs no RTE_PTYPE_UNKNOWN terminator since); before, the terminator
 * ends the list. mana_ptype_list() keeps the terminator, outside its count,
 * so the one array serves both.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(24, 3, 0, 0)
static inline const uint32_t *
mana_compat_supported_ptypes(struct rte_eth_dev *dev, size_t *no_of_elements)
{
	RTE_SET_USED(dev);
	return mana_ptype_list(no_of_elements);
}
#else
static inline const uint32_t *
mana_compat_supported_ptypes(struct rte_eth_dev *dev)
{
	size_t count;

	RTE_SET_USED(dev);
	return mana_ptype_list(&count);
}
#endif

/*
 * Per-queue counters: DPDK 25.11 moved q_ipackets ... q_errors out of struct
 * rte_eth_stats into struct eth_queue_stats, passed to stats_get as its own
 * argument (NULL when the caller wants none). mana_stats_fill() writes them
 * through these pointers, NULL for none.
 */
struct mana_queue_counters {
	uint64_t *ipackets, *ibytes, *errors;	/* [RTE_ETHDEV_QUEUE_STAT_CNTRS] */
	uint64_t *opackets, *obytes;
};

/* The port counters, in mana_stats.c. */
int mana_stats_fill(struct rte_eth_dev *dev, struct rte_eth_stats *stats,
		    const struct mana_queue_counters *q);

#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)
static inline int
mana_compat_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats,
		      struct eth_queue_stats *qstats)
{
	struct mana_queue_counters q = { NULL, NULL, NULL, NULL, NULL };

	if (qstats != NULL) {
		q.ipackets = qstats->q_ipackets;
		q.ibytes = qstats->q_ibytes;
		q.errors = qstats->q_errors;
		q.opackets = qstats->q_opackets;
		q.obytes = qstats->q_obytes;
	}
	return mana_stats_fill(dev, stats, &q);
}
#else
static inline int
mana_compat_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats)
{
	const struct mana_queue_counters q = {
		stats->q_ipackets, stats->q_ibytes, stats->q_errors,
		stats->q_opackets, stats->q_obytes,
	};

	return mana_stats_fill(dev, stats, &q);
}
#endif

/*
 * Telemetry: DPDK 23.03 renamed the unsigned adders *_u64 to *_uint (24.11
 * marks the old names deprecated, 25.11 removes them).
 */
static inline int
mana_tel_dict_uint(struct rte_tel_data *d, const char *name, uint64_t val)
{
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
	return rte_tel_data_add_dict_uint(d, name, val);
#else
	return rte_tel_data_add_dict_u64(d, name, val);
#endif
}

static inline int
mana_tel_array_uint(struct rte_tel_data *d, uint64_t val)
{
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
	return rte_tel_data_add_array_uint(d, val);
#else
	return rte_tel_data_add_array_u64(d, val);
#endif
}

#endif /* MANA_COMPAT_H */
