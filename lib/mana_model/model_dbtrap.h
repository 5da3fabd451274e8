/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The lossless shared doorbell page (doc/design.md, "Doorbell modes").
 *
 * Hardware sees every store to its doorbell page; a device that reads memory
 * sees only the last value of each slot. In shared mode the page handed to
 * the driver is therefore mapped read-only: every store faults, a SIGSEGV
 * handler decodes the faulting x86-64 or AArch64 store, appends it to the
 * context's doorbell queue and resumes after the instruction. The engine
 * pops the queue in order. Elsewhere the page cannot be trapped (ENOTSUP).
 */

#ifndef MODEL_DBTRAP_H
#define MODEL_DBTRAP_H

#include <stdbool.h>
#include <stdint.h>

#define MM_DBQ_SIZE	4096u	/* stores queued per context (power of two) */

struct mm_dbq_cell {
	uint64_t seq;		/* ticket protocol: pos + 1 once written */
	uint64_t val;		/* the stored bytes, low `width` of them */
	uint16_t off;		/* byte offset in the page */
	uint8_t width;		/* 1, 2, 4, 8, 16 or 32 bytes */
};

/* One context's doorbell queue: many producers (faulting threads), one consumer (engine). */
struct mm_dbq {
	uint64_t enq __attribute__((aligned(64)));
	uint64_t deq __attribute__((aligned(64)));
	bool manual;		/* the engine runs on the caller's thread: never wait */
	uint32_t overflow;	/* stores dropped on a full queue (manual mode only) */
	uint32_t undecoded;	/* faulting instructions the decoder did not know */
	uint8_t insn[16];	/* the first of them */
	void *page;		/* the trapped (application) mapping */
	struct mm_dbq_cell cell[MM_DBQ_SIZE];
};

/* One decoded store. */
struct mm_store {
	uint8_t len;		/* instruction bytes */
	uint8_t width;		/* bytes stored */
	uint64_t val;		/* low 8 bytes of the stored data */
	int xchg_reg;		/* XCHG: general register that receives the old value, else -1 */
	int wb_reg;		/* AArch64 pre/post-index: base register (31: SP), else -1 */
	int64_t wb_add;		/* added to it */
};

/*
 * Decode the x86-64 store at code, or the AArch64 store insn, with the
 * register file of ucontext (a ucontext_t). Returns false for anything that
 * is not a known store to memory.
 */
#if defined(__x86_64__)
bool mm_x86_store_decode(const uint8_t *code, const void *ucontext, struct mm_store *st);
#elif defined(__aarch64__)
bool mm_a64_store_decode(uint32_t insn, const void *ucontext, struct mm_store *st);
#endif

/*
 * Write-protect page (the context's application mapping) and route its
 * stores to q. Returns 0 or a positive errno (ENOSPC: too many contexts).
 */
int mm_dbtrap_register(void *page, struct mm_dbq *q);
void mm_dbtrap_unregister(void *page);

void mm_dbq_init(struct mm_dbq *q, void *page, bool manual);
/* Engine side: next queued store, in order; false when empty. */
bool mm_dbq_pop(struct mm_dbq *q, uint16_t *off, uint8_t *width, uint64_t *val);

#endif /* MODEL_DBTRAP_H */
