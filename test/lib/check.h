/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The check macros of every C test (unit, component, system/rdma_compat).
 *
 * CHECK* record a failure and let the test go on; each one is an expression
 * whose value is the truth of the check, so it can be used as a statement or
 * in a condition. REQUIRE* check the same way and, on failure, end the test
 * function (`return`; a program with no test functions defines
 * CHECK_REQUIRE_END before including this file, e.g. as exit(1)).
 * CHECK and REQUIRE take an optional printf-style message after the
 * condition; CHECK_MSG needs one.
 *
 * Every failure is one line on stdout:
 *   "  FAIL <file>:<line>: [<case>] <MACRO>(<expression>)[: <values or message>]"
 * with both values (decimal and hex) for the comparisons. The harness sets
 * check_case and reads check_fails (failures of the running case).
 */

#ifndef CHECK_H
#define CHECK_H

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Failures of the running case, and its name (NULL: none is printed). */
extern unsigned int check_fails;
extern const char *check_case;

/* Counts one failure and prints its line (the location and the text of fmt). */
void check_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A failed condition: "<what>(<expr>)", then ": <msg>" when msg is not NULL. */
void check_fail_cond(const char *file, int line, const char *what, const char *expr,
		     const char *msg);
/* The formatted message of a check (a per-thread buffer, valid until the next call). */
const char *check_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Offset of the first differing byte of a and b, or n. */
size_t check_memdiff(const void *a, const void *b, size_t n);

#define CHECK_FAIL_AT(file, line, ...) check_fail_at(file, line, __VA_ARGS__)
#define CHECK_FAIL(...) check_fail_at(__FILE__, __LINE__, __VA_ARGS__)

/* The message of an optional "fmt, args..." tail, or NULL without one. */
#define CHECK_MSG_OR_NULL_(...) (__VA_OPT__(1 ? check_format(__VA_ARGS__) :) NULL)

#define CHECK_COND_(what, cond, expr, ...) ({					\
	bool check_ok_ = !!(cond);						\
	if (!check_ok_)								\
		check_fail_cond(__FILE__, __LINE__, what, expr,			\
				CHECK_MSG_OR_NULL_(__VA_ARGS__));		\
	check_ok_;								\
})

/* Integer comparison `a op b` on 64 bits; both sides shown in decimal and hex. */
#define CHECK_CMP_(what, op, notop, a, b) ({						\
	uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b);		\
	bool check_ok_ = check_a_ op check_b_;					\
	if (!check_ok_)								\
		check_fail_at(__FILE__, __LINE__, "%s(%s, %s): %" PRId64	\
			      " (0x%" PRIx64 ") %s %" PRId64 " (0x%" PRIx64 ")",	\
			      what, #a, #b, (int64_t)check_a_, check_a_, notop,	\
			      (int64_t)check_b_, check_b_);			\
	check_ok_;								\
})

#define CHECK(cond, ...) CHECK_COND_("CHECK", cond, #cond, __VA_ARGS__)
#define CHECK_MSG(cond, ...) CHECK_COND_("CHECK", cond, #cond, __VA_ARGS__)
#define CHECK_EQ(a, b) CHECK_CMP_("CHECK_EQ", ==, "!=", a, b)
#define CHECK_NE(a, b) CHECK_CMP_("CHECK_NE", !=, "==", a, b)
/* Unsigned: a >= b. */
#define CHECK_GE(a, b) CHECK_CMP_("CHECK_GE", >=, "<", a, b)

#define CHECK_NULL(p) ({							\
	const void *check_p_ = (p);						\
	if (check_p_ != NULL)							\
		check_fail_at(__FILE__, __LINE__, "CHECK_NULL(%s): %p", #p,	\
			      check_p_);					\
	check_p_ == NULL;							\
})

#define CHECK_MEM(a, b, n) ({							\
	size_t check_at_ = check_memdiff((a), (b), (n));			\
	if (check_at_ != (size_t)(n))						\
		check_fail_at(__FILE__, __LINE__, "CHECK_MEM(%s, %s, %s): "	\
			      "contents differ at byte %zu", #a, #b, #n,	\
			      check_at_);					\
	check_at_ == (size_t)(n);						\
})

#ifndef CHECK_REQUIRE_END
#define CHECK_REQUIRE_END return
#endif

#define REQUIRE(cond, ...) do {							\
	if (!CHECK_COND_("REQUIRE", cond, #cond, __VA_ARGS__))			\
		CHECK_REQUIRE_END;						\
} while (0)

#define REQUIRE_EQ(a, b) do {							\
	if (!CHECK_CMP_("REQUIRE_EQ", ==, "!=", a, b))				\
		CHECK_REQUIRE_END;						\
} while (0)

#define REQUIRE_NOT_NULL(p) do {						\
	if ((p) == NULL) {							\
		check_fail_at(__FILE__, __LINE__,				\
			      "REQUIRE_NOT_NULL(%s): NULL (errno %d %s)", #p,	\
			      errno, strerror(errno));				\
		CHECK_REQUIRE_END;						\
	}									\
} while (0)

#endif /* CHECK_H */
