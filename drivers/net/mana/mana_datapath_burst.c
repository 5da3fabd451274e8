/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The burst functions of each datapath (mana_datapath.c chooses the path):
 * the primary's gated entry points and, for a secondary process, their bodies.
 * Scattered RX has one path.
 */

#include "mana_ethdev.h"

eth_rx_burst_t
mana_datapath_rx(enum mana_datapath dp, bool scattered)
{
	if (scattered)
		return mana_rx_burst_scatter;
#ifdef MANA_HAVE_VEC
	if (dp == MANA_DP_AVX2)
		return mana_rx_burst_avx2;
	if (dp == MANA_DP_SSE)
		return mana_rx_burst_sse;
#else
	RTE_SET_USED(dp);
#endif
#ifdef MANA_HAVE_NEON
	if (dp == MANA_DP_NEON)
		return mana_rx_burst_neon;
#endif
	return mana_rx_burst;
}

eth_tx_burst_t
mana_datapath_tx(enum mana_datapath dp)
{
#ifdef MANA_HAVE_VEC
	if (dp == MANA_DP_AVX2)
		return mana_tx_burst_avx2;
	if (dp == MANA_DP_SSE)
		return mana_tx_burst_sse;
#else
	RTE_SET_USED(dp);
#endif
#ifdef MANA_HAVE_NEON
	if (dp == MANA_DP_NEON)
		return mana_tx_burst_neon;
#endif
	return mana_tx_burst;
}

uint16_t
mana_datapath_rx_db(enum mana_datapath dp, bool scattered, struct mana_rxq *rxq,
		    struct rte_mbuf **pkts, uint16_t n, uint8_t *db)
{
	if (scattered)
		return mana_rx_burst_scatter_db(rxq, pkts, n, db);
#ifdef MANA_HAVE_VEC
	if (dp == MANA_DP_AVX2)
		return mana_rx_burst_db_avx2(rxq, pkts, n, db);
	if (dp == MANA_DP_SSE)
		return mana_rx_burst_db_sse(rxq, pkts, n, db);
#else
	RTE_SET_USED(dp);
#endif
#ifdef MANA_HAVE_NEON
	if (dp == MANA_DP_NEON)
		return mana_rx_burst_db_neon(rxq, pkts, n, db);
#endif
	return mana_rx_burst_db(rxq, pkts, n, db);
}

uint16_t
mana_datapath_tx_db(enum mana_datapath dp, struct mana_txq *txq, struct rte_mbuf **pkts,
		    uint16_t n, uint8_t *db)
{
#ifdef MANA_HAVE_VEC
	if (dp == MANA_DP_AVX2)
		return mana_tx_burst_db_fast(txq, pkts, n, db, mana_tx_post_fast_avx2);
	if (dp == MANA_DP_SSE)
		return mana_tx_burst_db_fast(txq, pkts, n, db, mana_tx_post_fast_sse);
#else
	RTE_SET_USED(dp);
#endif
#ifdef MANA_HAVE_NEON
	if (dp == MANA_DP_NEON)
		return mana_tx_burst_db_fast(txq, pkts, n, db, mana_tx_post_fast_neon);
#endif
	return mana_tx_burst_db(txq, pkts, n, db);
}
