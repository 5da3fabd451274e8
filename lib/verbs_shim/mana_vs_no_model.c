/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * A build without the software device (-Dmodel=false): the shim has the
 * rdma-core backend only, and mana_vs_model_api() is NULL, so every
 * software-device request fails with one clear line (mana_vs.c).
 */

#include <stddef.h>

#include "mana_vs_backend.h"

const struct mana_vs_backend *
mana_vs_backend_model(void)
{
	return NULL;
}

const struct mana_vs_model_api *
mana_vs_model_api_table(void)
{
	return NULL;
}

struct mana_model *
mana_vs_backend_model_of(const struct ibv_context *ctx)
{
	(void)ctx;
	return NULL;
}
