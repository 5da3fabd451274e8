/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * LD_PRELOAD helper for running DPDK 22.11.11's own net/mana in Debian's
 * dpdk-testpmd 22.11.11.
 *
 * That net/mana never marks its queues started (dev->data->rx/tx_queue_state
 * stays RTE_ETH_QUEUE_STATE_STOPPED after dev_start) while it implements
 * rxq_info_get/txq_info_get, and testpmd 22.11.11 disables every forwarding
 * stream whose queue reports STOPPED (app/test-pmd iofwd.c
 * stream_init_forward, csumonly.c ...): testpmd polls nothing, on hardware
 * as on the model. Later DPDK releases set the state in the driver's
 * dev_start/dev_stop; this wrapper does the same around the ethdev calls,
 * leaving the driver's code and binary untouched.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>

#include <ethdev_driver.h>

static void
set_queue_state(uint16_t port_id, uint8_t state)
{
	struct rte_eth_dev_data *data = rte_eth_devices[port_id].data;

	for (uint16_t i = 0; i < data->nb_rx_queues; i++)
		data->rx_queue_state[i] = state;
	for (uint16_t i = 0; i < data->nb_tx_queues; i++)
		data->tx_queue_state[i] = state;
}

int
rte_eth_dev_start(uint16_t port_id)
{
	int (*real)(uint16_t) = (int (*)(uint16_t))dlsym(RTLD_NEXT, "rte_eth_dev_start");
	int ret;

	if (real == NULL)
		return -ENOSYS;
	ret = real(port_id);
	if (ret == 0)
		set_queue_state(port_id, RTE_ETH_QUEUE_STATE_STARTED);
	return ret;
}

int
rte_eth_dev_stop(uint16_t port_id)
{
	int (*real)(uint16_t) = (int (*)(uint16_t))dlsym(RTLD_NEXT, "rte_eth_dev_stop");
	int ret;

	if (real == NULL)
		return -ENOSYS;
	ret = real(port_id);
	if (ret == 0)
		set_queue_state(port_id, RTE_ETH_QUEUE_STATE_STOPPED);
	return ret;
}
