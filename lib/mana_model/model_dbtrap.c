/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The lossless shared doorbell page: a write-protected mapping, a SIGSEGV
 * handler that decodes each faulting store (x86-64 or AArch64), and a bounded
 * queue per context from the faulting threads to the engine (doc/design.md,
 * "Doorbell modes").
 *
 * The handler only uses async-signal-safe means: atomics on the queue,
 * mprotect(2), sched_yield(2). Faults that are not stores to a registered
 * page go to the handler that was installed before this one (or to the
 * default action, which ends the process as it would have without us).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "model_dbtrap.h"

#define MM_DBT_PAGE	4096u
#define MM_DBT_MAX	256u	/* trapped pages (contexts) per process */

/* The architectures whose stores the handler decodes. */
#if defined(__x86_64__) || defined(__aarch64__)
#define MM_DBT_TRAPS 1
#endif

/* ---- the queue (bounded, ticket per cell) ------------------------------------ */

void
mm_dbq_init(struct mm_dbq *q, void *page, bool manual)
{
	memset(q, 0, sizeof(*q));
	q->manual = manual;
	q->page = page;
	for (uint64_t i = 0; i < MM_DBQ_SIZE; i++)
		q->cell[i].seq = i;
}

/*
 * A cell at position pos is free for the producer that claims pos when its
 * seq is pos, and holds a store for the consumer when its seq is pos + 1.
 * Producers wait for space (the engine thread drains) unless the engine runs
 * on the caller's thread, where waiting could never end: the store is then
 * counted as an overflow and the engine stops the device. seq is released
 * and acquired on both sides (hardware.md §18 #5).
 */
#ifdef MM_DBT_TRAPS
static bool
mm_dbq_push(struct mm_dbq *q, uint16_t off, uint8_t width, uint64_t val)
{
	uint64_t pos = __atomic_load_n(&q->enq, __ATOMIC_RELAXED);

	for (;;) {
		struct mm_dbq_cell *c = &q->cell[pos & (MM_DBQ_SIZE - 1)];
		uint64_t seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		int64_t dif = (int64_t)(seq - pos);

		if (dif == 0) {
			if (__atomic_compare_exchange_n(&q->enq, &pos, pos + 1, true,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
				c->val = val;
				c->off = off;
				c->width = width;
				__atomic_store_n(&c->seq, pos + 1, __ATOMIC_RELEASE);
				return true;
			}
		} else if (dif < 0) {
			if (q->manual) {
				__atomic_fetch_add(&q->overflow, 1, __ATOMIC_RELAXED);
				return false;
			}
			sched_yield();
			pos = __atomic_load_n(&q->enq, __ATOMIC_RELAXED);
		} else {
			pos = __atomic_load_n(&q->enq, __ATOMIC_RELAXED);
		}
	}
}
#endif

bool
mm_dbq_pop(struct mm_dbq *q, uint16_t *off, uint8_t *width, uint64_t *val)
{
	uint64_t pos = q->deq;
	struct mm_dbq_cell *c = &q->cell[pos & (MM_DBQ_SIZE - 1)];

	if (__atomic_load_n(&c->seq, __ATOMIC_ACQUIRE) != pos + 1)
		return false;
	*off = c->off;
	*width = c->width;
	*val = c->val;
	__atomic_store_n(&c->seq, pos + MM_DBQ_SIZE, __ATOMIC_RELEASE);
	q->deq = pos + 1;
	return true;
}

#if defined(__x86_64__)

/* ---- x86-64 store decoder ------------------------------------------------------- */

/* ModRM reg/rm numbers 0..15 to ucontext general registers. */
static const int mm_gpr[16] = {
	REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

static uint64_t
mm_gpr_val(const ucontext_t *uc, unsigned int r, unsigned int width, bool rex)
{
	/* Without REX, 8-bit registers 4..7 are AH, CH, DH, BH. */
	if (width == 1 && !rex && r >= 4 && r < 8)
		return ((uint64_t)uc->uc_mcontext.gregs[mm_gpr[r - 4]] >> 8) & 0xFF;
	return (uint64_t)uc->uc_mcontext.gregs[mm_gpr[r]];
}

static uint64_t
mm_xmm_val(const ucontext_t *uc, unsigned int r, bool high)
{
	const struct _libc_xmmreg *x = &uc->uc_mcontext.fpregs->_xmm[r];
	unsigned int i = high ? 2 : 0;

	return (uint64_t)x->element[i] | ((uint64_t)x->element[i + 1] << 32);
}

static uint64_t
mm_width_mask(unsigned int width)
{
	return width >= 8 ? UINT64_MAX : ((uint64_t)1 << (width * 8)) - 1;
}

/*
 * Length of a memory ModRM operand (ModRM, SIB, displacement) at p; false for
 * a register operand (mod 3), which never faults on data.
 */
static bool
mm_modrm(const uint8_t *p, unsigned int *reg, unsigned int *len)
{
	unsigned int mod = p[0] >> 6, rm = p[0] & 7, n = 1;

	if (mod == 3)
		return false;
	*reg = (p[0] >> 3) & 7;
	if (rm == 4) {
		n++;
		if (mod == 0 && (p[1] & 7) == 5)
			n += 4;
	} else if (mod == 0 && rm == 5) {
		n += 4;		/* RIP-relative */
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	*len = n;
	return true;
}

enum mm_pfx { MM_PFX_NONE, MM_PFX_66, MM_PFX_F3, MM_PFX_F2 };

/*
 * Stores from vector registers (map 0F), legacy SSE or VEX encoded: op, the
 * mandatory prefix, VEX.L and REX.W/VEX.W. Sets width and which 64-bit half
 * of the register holds the first stored byte.
 */
static bool
mm_vec_store(uint8_t op, enum mm_pfx pfx, bool l256, bool w, unsigned int *width, bool *high)
{
	unsigned int wide = l256 ? 32 : 16;

	*high = false;
	switch (op) {
	case 0x11:		/* movups/movupd/movss/movsd m, xmm */
		*width = pfx == MM_PFX_F3 ? 4 : pfx == MM_PFX_F2 ? 8 : wide;
		return true;
	case 0x13:		/* movlps/movlpd m64, xmm */
		*width = 8;
		return pfx == MM_PFX_NONE || pfx == MM_PFX_66;
	case 0x17:		/* movhps/movhpd m64, xmm */
		*width = 8;
		*high = true;
		return pfx == MM_PFX_NONE || pfx == MM_PFX_66;
	case 0x29:		/* movaps/movapd */
	case 0x2B:		/* movntps/movntpd */
		*width = wide;
		return pfx == MM_PFX_NONE || pfx == MM_PFX_66;
	case 0x7E:		/* movd/movq r/m, xmm */
		*width = w ? 8 : 4;
		return pfx == MM_PFX_66;
	case 0x7F:		/* movdqa/movdqu */
		*width = wide;
		return pfx == MM_PFX_66 || pfx == MM_PFX_F3;
	case 0xD6:		/* movq m64, xmm */
		*width = 8;
		return pfx == MM_PFX_66;
	case 0xE7:		/* movntdq */
		*width = wide;
		return pfx == MM_PFX_66;
	default:
		return false;
	}
}

bool
mm_x86_store_decode(const uint8_t *code, const void *ucontext, struct mm_store *st)
{
	const ucontext_t *uc = ucontext;
	const uint8_t *p = code;
	enum mm_pfx pfx = MM_PFX_NONE;
	bool opsz = false, high;
	unsigned int rex = 0, reg, mlen, width;
	uint8_t op;

	st->xchg_reg = -1;
	st->wb_reg = -1;
	st->wb_add = 0;
	/* legacy prefixes (at most 14 before an instruction's 15-byte limit) */
	for (unsigned int i = 0; i < 14; i++, p++) {
		if (*p == 0x66) {
			opsz = true;
			if (pfx == MM_PFX_NONE)
				pfx = MM_PFX_66;
		} else if (*p == 0xF3) {
			pfx = MM_PFX_F3;
		} else if (*p == 0xF2) {
			pfx = MM_PFX_F2;
		} else if (*p != 0xF0 && *p != 0x2E && *p != 0x36 && *p != 0x3E &&
			   *p != 0x26 && *p != 0x64 && *p != 0x65 && *p != 0x67) {
			break;
		}
	}
	if ((*p & 0xF0) == 0x40)
		rex = *p++;

	if (rex == 0 && (*p == 0xC5 || *p == 0xC4)) {
		/* VEX: R, (X, B, map, W,) vvvv, L, pp; bits R/X/B stored inverted */
		unsigned int r, map = 1, vpp;
		bool w = false, l256;

		if (*p == 0xC5) {
			r = (~p[1] >> 7) & 1;
			l256 = (p[1] >> 2) & 1;
			vpp = p[1] & 3;
			p += 2;
		} else {
			r = (~p[1] >> 7) & 1;
			map = p[1] & 0x1F;
			w = (p[2] >> 7) & 1;
			l256 = (p[2] >> 2) & 1;
			vpp = p[2] & 3;
			p += 3;
		}
		op = *p++;
		if (map != 1 || !mm_vec_store(op, (enum mm_pfx)vpp, l256, w, &width, &high) ||
		    !mm_modrm(p, &reg, &mlen))
			return false;
		reg |= r << 3;
		st->width = (uint8_t)width;
		st->val = mm_xmm_val(uc, reg, high) & mm_width_mask(width);
		st->len = (uint8_t)(p + mlen - code);
		return true;
	}

	op = *p++;
	if (op == 0x0F) {
		op = *p++;
		if (op == 0xC3) {	/* movnti m, r32/r64 */
			if (!mm_modrm(p, &reg, &mlen))
				return false;
			width = (rex & 8) ? 8 : 4;
			reg |= (rex & 4) << 1;
			st->val = mm_gpr_val(uc, reg, width, rex != 0) & mm_width_mask(width);
		} else {
			if (!mm_vec_store(op, pfx, false, (rex & 8) != 0, &width, &high) ||
			    !mm_modrm(p, &reg, &mlen))
				return false;
			reg |= (rex & 4) << 1;
			st->val = mm_xmm_val(uc, reg, high) & mm_width_mask(width);
		}
		st->width = (uint8_t)width;
		st->len = (uint8_t)(p + mlen - code);
		return true;
	}

	width = (rex & 8) ? 8 : opsz ? 2 : 4;
	switch (op) {
	case 0x86:		/* xchg m8, r8 */
	case 0x88:		/* mov m8, r8 */
		width = 1;
		/* fall through */
	case 0x87:		/* xchg m, r */
	case 0x89:		/* mov m, r */
		if (!mm_modrm(p, &reg, &mlen))
			return false;
		reg |= (rex & 4) << 1;
		st->val = mm_gpr_val(uc, reg, width, rex != 0) & mm_width_mask(width);
		if (op == 0x86 || op == 0x87)
			st->xchg_reg = (int)reg;
		p += mlen;
		break;
	case 0xC6:		/* mov m8, imm8 */
	case 0xC7:		/* mov m, imm16/imm32 (sign-extended for 64 bits) */
		if (!mm_modrm(p, &reg, &mlen) || reg != 0)
			return false;
		p += mlen;
		if (op == 0xC6) {
			width = 1;
			st->val = p[0];
			p += 1;
		} else if (width == 2) {
			st->val = (uint64_t)p[0] | ((uint64_t)p[1] << 8);
			p += 2;
		} else {
			int32_t imm;

			memcpy(&imm, p, sizeof(imm));
			st->val = (uint64_t)(int64_t)imm & mm_width_mask(width);
			p += 4;
		}
		break;
	default:
		return false;
	}
	st->width = (uint8_t)width;
	st->len = (uint8_t)(p - code);
	return true;
}

static const uint8_t *
mm_dbt_pc(const ucontext_t *uc)
{
	return (const uint8_t *)uc->uc_mcontext.gregs[REG_RIP];
}

static bool
mm_dbt_decode(const ucontext_t *uc, struct mm_store *st)
{
	return mm_x86_store_decode(mm_dbt_pc(uc), uc, st);
}

/* After the store: XCHG's load, then the next instruction. */
static void
mm_dbt_resume(ucontext_t *uc, const struct mm_store *st, uintptr_t a)
{
	if (st->xchg_reg >= 0) {
		/* XCHG loads the old contents: the page reads as it is (zero). */
		uint64_t old = 0;

		memcpy(&old, (const void *)a, st->width);
		uc->uc_mcontext.gregs[mm_gpr[st->xchg_reg]] =
			(greg_t)(((uint64_t)uc->uc_mcontext.gregs[mm_gpr[st->xchg_reg]] &
				  ~mm_width_mask(st->width)) | old);
	}
	uc->uc_mcontext.gregs[REG_RIP] += st->len;
}

#elif defined(__aarch64__)

/* ---- AArch64 store decoder ------------------------------------------------------ */

/*
 * The A64 stores a doorbell write can compile to (Arm ARM, "Loads and
 * stores"): STR/STRB/STRH and their SIMD&FP forms with an unsigned, unscaled
 * (STUR), pre- or post-indexed immediate or a register offset, STP/STNP of
 * general or SIMD&FP registers, and STLR/STLRB/STLRH. The address is the
 * fault's; what the handler needs is the stored value, its width and the
 * base register's write-back.
 */

#define A64_RT(i)	((i) & 31u)
#define A64_RN(i)	(((i) >> 5) & 31u)
#define A64_RT2(i)	(((i) >> 10) & 31u)

static uint64_t
mm_a64_width_mask(unsigned int width)
{
	return width >= 8 ? UINT64_MAX : ((uint64_t)1 << (width * 8)) - 1;
}

/* Register r as a store's data (31: the zero register). */
static uint64_t
mm_a64_xreg(const ucontext_t *uc, unsigned int r)
{
	return r == 31 ? 0 : (uint64_t)uc->uc_mcontext.regs[r];
}

/* The low 64 bits of SIMD&FP register r, from the signal frame's FPSIMD record. */
static bool
mm_a64_vreg(const ucontext_t *uc, unsigned int r, uint64_t *val)
{
	const uint8_t *p = uc->uc_mcontext.__reserved;
	const uint8_t *end = p + sizeof(uc->uc_mcontext.__reserved);

	while (p + sizeof(struct _aarch64_ctx) <= end) {
		const struct _aarch64_ctx *h = (const void *)p;

		if (h->magic == 0 || h->size < sizeof(*h) || h->size > (size_t)(end - p))
			return false;
		if (h->magic == FPSIMD_MAGIC && h->size >= sizeof(struct fpsimd_context)) {
			const struct fpsimd_context *f = (const void *)p;

			memcpy(val, &f->vregs[r], sizeof(*val));
			return true;
		}
		p += h->size;
	}
	return false;
}

/* Sign-extend the low bits of v. */
static int64_t
mm_a64_sext(uint32_t v, unsigned int bits)
{
	return (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits);
}

static bool
mm_a64_data(const ucontext_t *uc, bool simd, unsigned int rt, unsigned int width,
	    struct mm_store *st)
{
	uint64_t v;

	if (!simd)
		v = mm_a64_xreg(uc, rt);
	else if (!mm_a64_vreg(uc, rt, &v))
		return false;
	st->width = (uint8_t)width;
	st->val = v & mm_a64_width_mask(width);
	return true;
}

bool
mm_a64_store_decode(uint32_t insn, const void *ucontext, struct mm_store *st)
{
	const ucontext_t *uc = ucontext;
	unsigned int size = insn >> 30, opc = (insn >> 22) & 3, scale;
	bool simd = (insn >> 26) & 1;

	st->len = 4;
	st->xchg_reg = -1;
	st->wb_reg = -1;
	st->wb_add = 0;

	/* STLR, STLRB, STLRH (store-release, no offset) */
	if ((insn & 0x3FE08000u) == 0x08808000u)
		return mm_a64_data(uc, false, A64_RT(insn), 1u << size, st);

	/* STP, STNP: signed offset, pre-, post-indexed */
	if ((insn & 0x3A400000u) == 0x28000000u) {
		unsigned int idx = (insn >> 23) & 3;

		if (simd) {
			if (size == 3)
				return false;
			scale = 2 + size;		/* S, D, Q */
		} else {
			if (size != 0 && size != 2)	/* 01: STGP */
				return false;
			scale = 2 + (size >> 1);	/* W, X */
		}
		if (scale == 2) {	/* two 32-bit registers: one 64-bit store */
			struct mm_store hi;

			if (!mm_a64_data(uc, simd, A64_RT(insn), 4, st) ||
			    !mm_a64_data(uc, simd, A64_RT2(insn), 4, &hi))
				return false;
			st->val |= hi.val << 32;
		} else if (!mm_a64_data(uc, simd, A64_RT(insn), 1u << scale, st)) {
			return false;
		}
		st->width = (uint8_t)(2u << scale);	/* both registers */
		if (idx == 1 || idx == 3) {
			st->wb_reg = (int)A64_RN(insn);
			st->wb_add = mm_a64_sext((insn >> 15) & 0x7F, 7) * (1 << scale);
		}
		return true;
	}

	/* the single-register forms: opc 00 stores; SIMD opc 10 with size 00 is STR Q */
	if (simd && opc == 2 && size == 0)
		scale = 4;
	else if (opc == 0)
		scale = size;
	else
		return false;

	/* unsigned immediate */
	if ((insn & 0x3B000000u) == 0x39000000u)
		return mm_a64_data(uc, simd, A64_RT(insn), 1u << scale, st);

	/* unscaled (STUR), post-indexed, unprivileged (STTR), pre-indexed */
	if ((insn & 0x3B200000u) == 0x38000000u) {
		unsigned int mode = (insn >> 10) & 3;

		if (mode == 2 && simd)
			return false;
		if (mode == 1 || mode == 3) {
			st->wb_reg = (int)A64_RN(insn);
			st->wb_add = mm_a64_sext((insn >> 12) & 0x1FF, 9);
		}
		return mm_a64_data(uc, simd, A64_RT(insn), 1u << scale, st);
	}

	/* register offset */
	if ((insn & 0x3B200C00u) == 0x38200800u)
		return mm_a64_data(uc, simd, A64_RT(insn), 1u << scale, st);

	return false;
}

static const uint8_t *
mm_dbt_pc(const ucontext_t *uc)
{
	return (const uint8_t *)uc->uc_mcontext.pc;
}

static bool
mm_dbt_decode(const ucontext_t *uc, struct mm_store *st)
{
	uint32_t insn;

	memcpy(&insn, mm_dbt_pc(uc), sizeof(insn));
	return mm_a64_store_decode(insn, uc, st);
}

/* After the store: the base register's write-back, then the next instruction. */
static void
mm_dbt_resume(ucontext_t *uc, const struct mm_store *st, uintptr_t a)
{
	(void)a;
	if (st->wb_reg == 31)
		uc->uc_mcontext.sp += (uint64_t)st->wb_add;
	else if (st->wb_reg >= 0)
		uc->uc_mcontext.regs[st->wb_reg] += (uint64_t)st->wb_add;
	uc->uc_mcontext.pc += st->len;
}

#endif /* __aarch64__ */

#ifdef MM_DBT_TRAPS

/* ---- the trap ------------------------------------------------------------------- */

struct mm_dbt_slot {
	uintptr_t page;		/* 0: free */
	struct mm_dbq *q;
};

static struct mm_dbt_slot mm_dbt[MM_DBT_MAX];
static pthread_mutex_t mm_dbt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction mm_dbt_prev;
static bool mm_dbt_installed;

static struct mm_dbq *
mm_dbt_lookup(uintptr_t page)
{
	for (unsigned int i = 0; i < MM_DBT_MAX; i++)
		if (__atomic_load_n(&mm_dbt[i].page, __ATOMIC_ACQUIRE) == page)
			return __atomic_load_n(&mm_dbt[i].q, __ATOMIC_ACQUIRE);
	return NULL;
}

/* Not ours: what would have happened without this handler. */
static void
mm_dbt_chain(int sig, siginfo_t *si, void *uc)
{
	if (mm_dbt_prev.sa_flags & SA_SIGINFO) {
		mm_dbt_prev.sa_sigaction(sig, si, uc);
	} else if (mm_dbt_prev.sa_handler != SIG_DFL && mm_dbt_prev.sa_handler != SIG_IGN) {
		mm_dbt_prev.sa_handler(sig);
	} else {
		/* Default action: the faulting instruction runs again and kills the process. */
		signal(sig, SIG_DFL);
	}
}

static void
mm_dbt_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t a = (uintptr_t)si->si_addr;
	struct mm_dbq *q = NULL;
	struct mm_store st;
	int saved = errno;

	if (si->si_code == SEGV_ACCERR && a != 0)
		q = mm_dbt_lookup(a & ~(uintptr_t)(MM_DBT_PAGE - 1));
	if (q == NULL) {
		mm_dbt_chain(sig, si, ucv);
		errno = saved;
		return;
	}
	if (!mm_dbt_decode(uc, &st)) {
		/*
		 * Unknown instruction: keep its bytes for the engine's error,
		 * let the store land in memory (lossy, as a plain memory page)
		 * and let the engine stop the device.
		 */
		if (__atomic_fetch_add(&q->undecoded, 1, __ATOMIC_RELAXED) == 0)
			memcpy(q->insn, mm_dbt_pc(uc), sizeof(q->insn));
		mprotect(q->page, MM_DBT_PAGE, PROT_READ | PROT_WRITE);
		errno = saved;
		return;
	}
	mm_dbq_push(q, (uint16_t)(a & (MM_DBT_PAGE - 1)), st.width, st.val);
	mm_dbt_resume(uc, &st, a);
	errno = saved;
}

int
mm_dbtrap_register(void *page, struct mm_dbq *q)
{
	int err = ENOSPC;

	pthread_mutex_lock(&mm_dbt_lock);
	if (!mm_dbt_installed) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = mm_dbt_handler;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGSEGV, &sa, &mm_dbt_prev) != 0) {
			err = errno;
			goto out;
		}
		mm_dbt_installed = true;
	}
	for (unsigned int i = 0; i < MM_DBT_MAX; i++) {
		if (mm_dbt[i].page != 0)
			continue;
		__atomic_store_n(&mm_dbt[i].q, q, __ATOMIC_RELEASE);
		__atomic_store_n(&mm_dbt[i].page, (uintptr_t)page, __ATOMIC_RELEASE);
		if (mprotect(page, MM_DBT_PAGE, PROT_READ) != 0) {
			err = errno;
			__atomic_store_n(&mm_dbt[i].page, 0, __ATOMIC_RELEASE);
			goto out;
		}
		err = 0;
		break;
	}
out:
	pthread_mutex_unlock(&mm_dbt_lock);
	return err;
}

void
mm_dbtrap_unregister(void *page)
{
	pthread_mutex_lock(&mm_dbt_lock);
	for (unsigned int i = 0; i < MM_DBT_MAX; i++) {
		if (mm_dbt[i].page == (uintptr_t)page) {
			__atomic_store_n(&mm_dbt[i].page, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&mm_dbt[i].q, NULL, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&mm_dbt_lock);
}

#else /* no store decoder for this architecture */

int
mm_dbtrap_register(void *page, struct mm_dbq *q)
{
	(void)page;
	(void)q;
	return ENOTSUP;
}

void
mm_dbtrap_unregister(void *page)
{
	(void)page;
}

#endif
