/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * A tiny unit test framework (no EAL, no DPDK).
 *
 * Each test is a void function checked with the CHECK and REQUIRE macros of
 * test/lib/check.h (a REQUIRE that fails returns from the test: use it
 * before dereferencing a result). UNIT_SKIP() ends a test as skipped.
 * UNIT_MAIN(table) runs the tests named on the command line (all of them
 * when none is named; "-name" excludes one), prints one line per test and
 * exits 0 (all passed), 1 (a failure) or 77 (every selected test was
 * skipped: meson's "skipped" code).
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

#include "check.h"

struct unit_test {
	const char *name;
	void (*fn)(void);
};

/* Skipped state of the running test (one translation unit per executable). */
static bool unit_skipped;

/* A failure with a message of its own (check.h's format, counted as a check). */
#define UNIT_FAIL_AT(file, line, ...) CHECK_FAIL_AT(file, line, __VA_ARGS__)
#define UNIT_FAIL(...) CHECK_FAIL(__VA_ARGS__)

#define UNIT_SKIP(...) do {							\
	unit_skipped = true;							\
	fprintf(stdout, "  SKIP [%s] ", check_case);				\
	fprintf(stdout, __VA_ARGS__);						\
	fputc('\n', stdout);							\
	return;									\
} while (0)

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

	check_case = t->name;
	check_fails = 0;
	unit_skipped = false;
	fflush(stdout);
	if (getenv("UNIT_NOFORK") != NULL) {
		t->fn();
		fflush(stdout);
		return check_fails != 0 ? 1 : unit_skipped ? 77 : 0;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		t->fn();
		fflush(stdout);
		exit(check_fails != 0 ? 1 : unit_skipped ? 77 : 0);
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
