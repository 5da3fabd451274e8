/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Internal declarations of the replacement libibverbs.so.1 / libmana.so.1
 * that put the software MANA device (lib/mana_model) behind rdma-core
 * 44's binary interface, so programs built against rdma-core run on the
 * model unchanged (LD_LIBRARY_PATH).
 */

#ifndef IBVM_PRIV_H
#define IBVM_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

/* Defined at the top of every file that exports a symbol. */
#define IBVM_EXPORT __attribute__((visibility("default")))

/*
 * Bind an implementation to a non-default version of a symbol, as rdma-core
 * does for its IBVERBS_1.0 compat entry points.
 */
#define IBVM_SYMVER(impl, sym, node) \
	__asm__(".symver " #impl "," #sym "@" #node)

/* Create the devices MANA_MODEL describes (once); 0 or a positive errno. */
int ibvm_devices_init(void);

struct mana_model_settings;

/*
 * The MANA_MODEL grammar (ibvm_env_parse.c): one device's key=value list
 * into st (spec modified in place), and every ';'-separated device of env
 * handed to each() in order until one fails. 0 or a positive errno, the
 * reason logged.
 */
int ibvm_parse_device(char *spec, unsigned int index, struct mana_model_settings *st);
int ibvm_parse_env(char *env, int (*each)(char *spec, unsigned int index, void *arg), void *arg);

/* Log one line to stderr when MANA_MODEL_LOG allows the level (syslog numbers). */
void ibvm_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Calls that reached the model through rdma-core's interface (ibvm_calls.c). */
enum ibvm_call {
	IBVM_CALL_OPEN_DEVICE,
	IBVM_CALL_CLOSE_DEVICE,
	IBVM_CALL_ALLOC_PD,
	IBVM_CALL_ALLOC_PARENT_DOMAIN,
	IBVM_CALL_DEALLOC_PD,
	IBVM_CALL_REG_MR,
	IBVM_CALL_DEREG_MR,
	IBVM_CALL_CREATE_COMP_CHANNEL,
	IBVM_CALL_DESTROY_COMP_CHANNEL,
	IBVM_CALL_CREATE_CQ,
	IBVM_CALL_DESTROY_CQ,
	IBVM_CALL_CREATE_WQ,
	IBVM_CALL_DESTROY_WQ,
	IBVM_CALL_CREATE_IND_TABLE,
	IBVM_CALL_DESTROY_IND_TABLE,
	IBVM_CALL_CREATE_QP,
	IBVM_CALL_CREATE_QP_EX,
	IBVM_CALL_DESTROY_QP,
	IBVM_CALL_SET_CONTEXT_ATTR,
	IBVM_CALL_INIT_OBJ,
	IBVM_CALL_MAX
};

/* Count one successful call. */
void ibvm_count(enum ibvm_call call);
/* One line "libibverbs calls <name>=<n> ..." (MANA_MODEL_STATS). */
void ibvm_calls_write(FILE *f);
/* Route a new context's verbs_context ops through the counting wrappers. */
void ibvm_calls_hook_context(struct ibv_context *ctx);

/* What the replacement libmana.so.1 calls (MANA_MODEL_PRIVATE, default version). */
int ibvm_manadv_set_context_attr(struct ibv_context *ctx, enum manadv_set_ctx_attr_type type,
				 void *attr);
int ibvm_manadv_init_obj(struct manadv_obj *obj, uint64_t obj_type);

#endif /* IBVM_PRIV_H */
