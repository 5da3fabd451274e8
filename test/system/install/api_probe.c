/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * An application of the installed driver API, built by install_test.sh with
 * `pkg-config --cflags --libs libdpdk-net-mana` and nothing else, run with the
 * plugin autoloaded (no -d). It asks the driver about port 0 (a net_mana vdev)
 * through rte_pmd_mana.h: the answer names the port only if the plugin the
 * program links and the one EAL loaded are one object.
 */

#include <stdio.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_pmd_mana.h>

int
main(int argc, char **argv)
{
	struct rte_pmd_mana_port_info info = { 0 };
	int ret;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "api_probe: rte_eal_init failed\n");
		return 1;
	}
	ret = rte_pmd_mana_port_info_get(0, &info);
	if (ret != 0)
		printf("api_probe: port 0: rte_pmd_mana_port_info_get: %d\n", ret);
	else
		printf("api_probe: port 0 model=%d ibdev=%s max_queues=%u ports=%u\n",
		       info.model, info.ibdev, info.max_queues, rte_eth_dev_count_avail());
	rte_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
