/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The TX fast path, AVX2 build (compiled with -mavx2): mana_tx_vec.h's
 * run loop in mana_tx_fast.h's frame. Called only where the CPU has the
 * instructions and EAL's max SIMD bitwidth allows them (mana_datapath.c).
 */

#include "mana_tx_vec.h"

uint32_t
mana_tx_post_fast_avx2(struct mana_txq *txq, struct rte_mbuf **pkts, uint32_t max)
{
	return tx_fast_runs(txq, pkts, max, tx_run_vec);
}
