/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The RX burst, AVX2 build (compiled with -mavx2): rx_burst_frame with
 * mana_rx_vec.h's step. Called only where the CPU has the instructions and
 * EAL's max SIMD bitwidth allows 256 bits (mana_datapath.c).
 */

#include "mana_rx_vec.h"

uint16_t
mana_rx_burst_db_avx2(struct mana_rxq *rxq, struct rte_mbuf **pkts, uint16_t n, uint8_t *db)
{
	return rx_burst_frame(rxq, pkts, n, db, rx_vec_step);
}

/* The primary's entry point: the queue's gate held around the burst (mana_qgate.h). */
uint16_t
mana_rx_burst_avx2(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct mana_rxq *rxq = q;
	uint16_t nb;

	if (unlikely(!mana_qgate_enter(rxq->gate)))
		return 0;
	nb = rx_burst_frame(rxq, pkts, n, rxq->db_page, rx_vec_step);
	mana_qgate_leave(rxq->gate);
	return nb;
}
