/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Internal declarations of the replacement libibverbs.so.1 / libmana.so.1
 * that put the software MANA device (lib/verbs_shim/model) behind rdma-core
 * 44's binary interface, so programs built against rdma-core run on the
 * model unchanged (LD_LIBRARY_PATH).
 */

#ifndef IBVM_PRIV_H
#define IBVM_PRIV_H

#include <stddef.h>

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

/* Log one line to stderr when MANA_MODEL_LOG allows the level (syslog numbers). */
void ibvm_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* IBVM_PRIV_H */
