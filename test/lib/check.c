/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/* The one implementation behind check.h: state, failure lines, messages. */

#include <stdarg.h>
#include <stdio.h>

#include "check.h"

unsigned int check_fails;
const char *check_case;

static void
check_vfail(const char *file, int line, const char *fmt, va_list ap)
{
	/* Engine threads may check too: the count is atomic, each line one write. */
	char text[1024];
	int n;

	__atomic_fetch_add(&check_fails, 1, __ATOMIC_RELAXED);
	if (check_case != NULL)
		n = snprintf(text, sizeof(text), "  FAIL %s:%d: [%s] ", file, line, check_case);
	else
		n = snprintf(text, sizeof(text), "  FAIL %s:%d: ", file, line);
	if (n >= 0 && (size_t)n < sizeof(text))
		vsnprintf(text + n, sizeof(text) - n, fmt, ap);
	fprintf(stdout, "%s\n", text);
	fflush(stdout);
}

void
check_fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_vfail(file, line, fmt, ap);
	va_end(ap);
}

void
check_fail_cond(const char *file, int line, const char *what, const char *expr,
		const char *msg)
{
	if (msg != NULL)
		check_fail_at(file, line, "%s(%s): %s", what, expr, msg);
	else
		check_fail_at(file, line, "%s(%s)", what, expr);
}

const char *
check_format(const char *fmt, ...)
{
	static __thread char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return msg;
}

size_t
check_memdiff(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i] != y[i])
			return i;
	return n;
}
