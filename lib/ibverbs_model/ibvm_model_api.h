/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Forced into every source of the replacement libraries (-include): the
 * model functions the replacement exports are compiled under ibvm_ names.
 *
 * Why: net_mana's plugin links its own copy of the model and exports the
 * same mana_model_* names (its component tests call them). When both are in
 * one process (our driver on the replacement, through rdma-core's API), a
 * default-version mana_model_* export here interposes on the plugin's
 * unversioned references to its own copy: the plugin's shim then takes the
 * replacement's contexts for its in-process model and never calls rdma-core.
 * So the replacement exports these names only as hidden (non-default)
 * versions, mana_model_x@MANA_MODEL_PRIVATE (ibvm_model_api.c), which an
 * unversioned reference never binds to; test programs reach them with
 * dlvsym(handle, "mana_model_x", "MANA_MODEL_PRIVATE").
 *
 * Keep this list, the .symver list of ibvm_model_api.c and the
 * MANA_MODEL_PRIVATE node of libibverbs.map in step.
 */

#ifndef IBVM_MODEL_API_H
#define IBVM_MODEL_API_H

#define mana_model_find			ibvm_model_find
#define mana_model_list			ibvm_model_list
#define mana_model_config		ibvm_model_config
#define mana_model_port_stats		ibvm_model_port_stats
#define mana_model_port_stats_reset	ibvm_model_port_stats_reset
#define mana_model_last_error		ibvm_model_last_error
#define mana_model_inject_rx		ibvm_model_inject_rx
#define mana_model_inject_tx_error	ibvm_model_inject_tx_error
#define mana_model_drop_next		ibvm_model_drop_next
#define mana_model_set_link		ibvm_model_set_link
#define mana_model_fatal		ibvm_model_fatal
#define mana_model_get_mac		ibvm_model_get_mac
#define mana_model_from_context		ibvm_model_from_context
#define mana_model_engine_stats		ibvm_model_engine_stats

#endif /* IBVM_MODEL_API_H */
