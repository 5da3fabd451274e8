/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/* Shared by mana_mr.c (mempools, lookups) and mana_mr_ext.c (external memory) only. */

#ifndef MANA_MR_INT_H
#define MANA_MR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "mana_ethdev.h"

/* A refused registration is asked for again after this long, not on every miss. */
#define MANA_MR_RETRY_MS	1000

struct mana_mr_range {
	uintptr_t start;
	uintptr_t end;
};

bool mana_mr_find(const uint32_t *seqp, const uint32_t *np, const struct mana_mr_entry *e,
		  uint32_t max, uintptr_t addr, uint32_t len, struct mana_mr_entry *out);
void mana_mr_seq_begin(uint32_t *seq);
void mana_mr_seq_end(uint32_t *seq);
int mana_mr_refused_check(const struct mana_priv *priv, const void *mp);
void mana_mr_refused_note(const struct mana_priv *priv, const void *mp, int err);

bool mana_mr_ext_find(struct mana_priv *priv, uintptr_t addr, uint32_t len,
		      struct mana_mr_entry *out);
int mana_mr_ext_lookup(struct mana_priv *priv, uintptr_t addr, uint32_t len,
		       struct mana_mr_entry *out);
unsigned int mana_mr_ext_release_locked(struct mana_priv *priv);
void mana_mr_ext_events_register(struct mana_priv *priv);
void mana_mr_ext_events_unregister(struct mana_priv *priv);

#endif /* MANA_MR_INT_H */
