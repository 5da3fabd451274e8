/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * A tiny unit test framework (no EAL, no DPDK).
 *
 * Each test is a void function; CHECK* macros record a failure with
 * file:line and the values involved and let the test continue, REQUIRE*
 * macros return from the test (use them before dereferencing a result).
 * UNIT_SKIP() ends a test as skipped. UNIT_MAIN(table) runs the tests named
 * on the command line (all of them when none is named; "-name" excludes
 * one), prints one line per test and exits 0 (all passed), 1 (a failure)
 * or 77 (every selected test was skipped: meson's "skipped" code).
 * Each test runs in its own child process (see unit_run_one).
 */

#ifndef UNIT_H
#define UNIT_H

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

/* State of the running test (one translation unit per executable). */
static unsigned int unit_fails;
static bool unit_skipped;
static const char *unit_cur;

#define UNIT_FAIL_AT(file, line, ...) do {					\
	unit_fails++;								\
	fprintf(stdout, "  FAIL %s:%d: [%s] ", file, line, unit_cur);		\
	fprintf(stdout, __VA_ARGS__);						\
	fputc('\n', stdout);							\
} while (0)

#define UNIT_FAIL(...) UNIT_FAIL_AT(__FILE__, __LINE__, __VA_ARGS__)

/* Evaluates to the truth of cond; records a failure when false. */
#define CHECK(cond) ({								\
	bool unit_ok_ = !!(cond);						\
	if (!unit_ok_)								\
		UNIT_FAIL("CHECK(%s)", #cond);					\
	unit_ok_;								\
})

#define CHECK_MSG(cond, ...) ({							\
	bool unit_ok_ = !!(cond);						\
	if (!unit_ok_) {							\
		UNIT_FAIL("CHECK(%s)", #cond);					\
		fprintf(stdout, "       ");					\
		fprintf(stdout, __VA_ARGS__);					\
		fputc('\n', stdout);						\
	}									\
	unit_ok_;								\
})

/* Integer equality; both sides shown in decimal and hex. */
#define CHECK_EQ(a, b) ({							\
	uint64_t unit_a_ = (uint64_t)(a), unit_b_ = (uint64_t)(b);		\
	if (unit_a_ != unit_b_)							\
		UNIT_FAIL("CHECK_EQ(%s, %s): %" PRId64 " (0x%" PRIx64		\
			  ") != %" PRId64 " (0x%" PRIx64 ")", #a, #b,		\
			  (int64_t)unit_a_, unit_a_, (int64_t)unit_b_, unit_b_);	\
	unit_a_ == unit_b_;							\
})

#define CHECK_NE(a, b) ({							\
	uint64_t unit_a_ = (uint64_t)(a), unit_b_ = (uint64_t)(b);		\
	if (unit_a_ == unit_b_)							\
		UNIT_FAIL("CHECK_NE(%s, %s): both %" PRId64 " (0x%" PRIx64 ")",	\
			  #a, #b, (int64_t)unit_a_, unit_a_);			\
	unit_a_ != unit_b_;							\
})

#define CHECK_GE(a, b) ({							\
	uint64_t unit_a_ = (uint64_t)(a), unit_b_ = (uint64_t)(b);		\
	if (unit_a_ < unit_b_)							\
		UNIT_FAIL("CHECK_GE(%s, %s): %" PRIu64 " < %" PRIu64,		\
			  #a, #b, unit_a_, unit_b_);				\
	unit_a_ >= unit_b_;							\
})

#define CHECK_NULL(p) ({							\
	const void *unit_p_ = (p);						\
	if (unit_p_ != NULL)							\
		UNIT_FAIL("CHECK_NULL(%s): %p", #p, unit_p_);			\
	unit_p_ == NULL;							\
})

#define CHECK_MEM(a, b, n) ({							\
	bool unit_ok_ = memcmp((a), (b), (n)) == 0;				\
	if (!unit_ok_)								\
		UNIT_FAIL("CHECK_MEM(%s, %s, %s): contents differ at byte %zu",	\
			  #a, #b, #n, unit_memdiff((a), (b), (n)));		\
	unit_ok_;								\
})

/* Return from the test function when the check fails. */
#define REQUIRE(cond) do { if (!CHECK(cond)) return; } while (0)
#define REQUIRE_EQ(a, b) do { if (!CHECK_EQ(a, b)) return; } while (0)
#define REQUIRE_NOT_NULL(p) do {						\
	if ((p) == NULL) {							\
		UNIT_FAIL("REQUIRE_NOT_NULL(%s): NULL (errno %d %s)", #p,	\
			  errno, strerror(errno));				\
		return;								\
	}									\
} while (0)

#define UNIT_SKIP(...) do {							\
	unit_skipped = true;							\
	fprintf(stdout, "  SKIP [%s] ", unit_cur);				\
	fprintf(stdout, __VA_ARGS__);						\
	fputc('\n', stdout);							\
	return;									\
} while (0)

static inline size_t
unit_memdiff(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i] != y[i])
			return i;
	return n;
}

static inline bool
unit_selected(const char *name, int argc, char **argv)
{
	bool any_positive = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			if (strcmp(argv[i] + 1, name) == 0)
				return false;
			continue;
		}
		any_positive = true;
		if (strcmp(argv[i], name) == 0)
			return true;
	}
	return !any_positive;
}

/*
 * Run one test in a child process, so a crash or an abort (sanitizers) in
 * one test is reported as that test's failure and the others still run.
 * UNIT_NOFORK=1 runs tests in-process (for a debugger).
 */
static inline int
unit_run_one(const struct unit_test *t)
{
	int status;
	pid_t pid;

	unit_cur = t->name;
	unit_fails = 0;
	unit_skipped = false;
	fflush(stdout);
	if (getenv("UNIT_NOFORK") != NULL) {
		t->fn();
		fflush(stdout);
		return unit_fails != 0 ? 1 : unit_skipped ? 77 : 0;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		t->fn();
		fflush(stdout);
		exit(unit_fails != 0 ? 1 : unit_skipped ? 77 : 0);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		return 1;
	}
	if (WIFSIGNALED(status)) {
		printf("  FAIL [%s] crashed: signal %d (%s)\n", t->name, WTERMSIG(status),
		       strsignal(WTERMSIG(status)));
		return 1;
	}
	if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 1 &&
	    WEXITSTATUS(status) != 77)
		printf("  FAIL [%s] exit status %d (sanitizer report above?)\n", t->name,
		       WEXITSTATUS(status));
	return WEXITSTATUS(status) == 77 ? 77 : WEXITSTATUS(status) != 0;
}

static inline int
unit_run(const struct unit_test *tests, size_t n, int argc, char **argv)
{
	unsigned int ran = 0, failed = 0, skipped = 0;
	size_t i;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n; i++) {
		if (!unit_selected(tests[i].name, argc, argv))
			continue;
		rc = unit_run_one(&tests[i]);
		ran++;
		if (rc == 1) {
			failed++;
			printf("FAIL %s\n", tests[i].name);
		} else if (rc == 77) {
			skipped++;
			printf("SKIP %s\n", tests[i].name);
		} else {
			printf("ok   %s\n", tests[i].name);
		}
	}
	printf("%u tests, %u passed, %u failed, %u skipped\n",
	       ran, ran - failed - skipped, failed, skipped);
	if (failed != 0)
		return 1;
	if (ran == 0 || skipped == ran)
		return 77;
	return 0;
}

#define UNIT_TEST(fn) { #fn, fn }
#define UNIT_MAIN(table)							\
int										\
main(int argc, char **argv)							\
{										\
	return unit_run(table, sizeof(table) / sizeof(table[0]), argc, argv);	\
}

#endif /* UNIT_H */
