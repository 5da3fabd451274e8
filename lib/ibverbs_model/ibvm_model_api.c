/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The model's API for test programs (mana_model_port_stats ...), exported
 * only as hidden versions mana_model_x@MANA_MODEL_PRIVATE (ibvm_model_api.h
 * says why). Look them up with
 *   dlvsym(handle, "mana_model_x", "MANA_MODEL_PRIVATE");
 * plain dlsym() and unversioned references do not see them, so a second copy
 * of the model in the process (net_mana's plugin) keeps its own.
 *
 * Each is a wrapper: .symver needs its target defined in the same file, and
 * the model's functions (compiled as ibvm_model_x) live in the model's files.
 */

#include "mana_model.h"
#include "mana_model_verbs.h"
#include "ibvm_priv.h"

#define IBVM_MODEL_API(name) \
	IBVM_SYMVER(ibvm_api_##name, mana_model_##name, MANA_MODEL_PRIVATE)

IBVM_MODEL_API(find);
IBVM_EXPORT struct mana_model *
ibvm_api_find(const char *name)
{
	return mana_model_find(name);
}

IBVM_MODEL_API(list);
IBVM_EXPORT unsigned int
ibvm_api_list(struct mana_model **list, unsigned int max)
{
	return mana_model_list(list, max);
}

IBVM_MODEL_API(config);
IBVM_EXPORT const struct mana_model_config *
ibvm_api_config(const struct mana_model *m)
{
	return mana_model_config(m);
}

IBVM_MODEL_API(port_stats);
IBVM_EXPORT int
ibvm_api_port_stats(const struct mana_model *m, unsigned int port,
		    struct mana_model_port_stats *st)
{
	return mana_model_port_stats(m, port, st);
}

IBVM_MODEL_API(port_stats_reset);
IBVM_EXPORT int
ibvm_api_port_stats_reset(struct mana_model *m, unsigned int port)
{
	return mana_model_port_stats_reset(m, port);
}

IBVM_MODEL_API(last_error);
IBVM_EXPORT const char *
ibvm_api_last_error(const struct mana_model *m)
{
	return mana_model_last_error(m);
}

IBVM_MODEL_API(inject_rx);
IBVM_EXPORT int
ibvm_api_inject_rx(struct mana_model *m, unsigned int port, const void *frame, uint32_t len)
{
	return mana_model_inject_rx(m, port, frame, len);
}

IBVM_MODEL_API(inject_tx_error);
IBVM_EXPORT int
ibvm_api_inject_tx_error(struct mana_model *m, unsigned int port, uint32_t type, uint32_t n)
{
	return mana_model_inject_tx_error(m, port, type, n);
}

IBVM_MODEL_API(drop_next);
IBVM_EXPORT int
ibvm_api_drop_next(struct mana_model *m, unsigned int port, uint32_t n)
{
	return mana_model_drop_next(m, port, n);
}

IBVM_MODEL_API(set_link);
IBVM_EXPORT int
ibvm_api_set_link(struct mana_model *m, unsigned int port, bool up)
{
	return mana_model_set_link(m, port, up);
}

IBVM_MODEL_API(fatal);
IBVM_EXPORT int
ibvm_api_fatal(struct mana_model *m)
{
	return mana_model_fatal(m);
}

IBVM_MODEL_API(get_mac);
IBVM_EXPORT int
ibvm_api_get_mac(const struct mana_model *m, unsigned int port, uint8_t mac[6])
{
	return mana_model_get_mac(m, port, mac);
}

IBVM_MODEL_API(from_context);
IBVM_EXPORT struct mana_model *
ibvm_api_from_context(const struct ibv_context *ctx)
{
	return mana_model_from_context(ctx);
}

IBVM_MODEL_API(engine_stats);
IBVM_EXPORT int
ibvm_api_engine_stats(const struct mana_model *m, struct mana_model_engine_stats *st)
{
	return mana_model_engine_stats(m, st);
}
