/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

#ifndef MANA_LOGS_H
#define MANA_LOGS_H

#include <rte_log.h>

/* Dynamic log types pmd.net.mana.{init,driver,rx,tx}, registered in mana_ethdev.c. */
extern int mana_logtype_init;
extern int mana_logtype_driver;
extern int mana_logtype_rx;
extern int mana_logtype_tx;

#define MANA_LOG(type, level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, mana_logtype_ ## type, "mana: %s(): " fmt "\n", \
		__func__, ##__VA_ARGS__)

#define PMD_INIT_LOG(level, fmt, ...)	MANA_LOG(init, level, fmt, ##__VA_ARGS__)
#define PMD_DRV_LOG(level, fmt, ...)	MANA_LOG(driver, level, fmt, ##__VA_ARGS__)

/* Datapath logs exist only in debug builds: no logging in burst functions otherwise. */
#ifdef RTE_ETHDEV_DEBUG_RX
#define PMD_RX_LOG(level, fmt, ...)	MANA_LOG(rx, level, fmt, ##__VA_ARGS__)
#else
#define PMD_RX_LOG(level, fmt, ...)	do { } while (0)
#endif
#ifdef RTE_ETHDEV_DEBUG_TX
#define PMD_TX_LOG(level, fmt, ...)	MANA_LOG(tx, level, fmt, ##__VA_ARGS__)
#else
#define PMD_TX_LOG(level, fmt, ...)	do { } while (0)
#endif

#endif /* MANA_LOGS_H */
