/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Logging of the model: through the callback the shim or the replacement
 * libibverbs sets (mana_model_set_log), or warnings and errors to stderr;
 * and a device's last error (mana_model_last_error).
 */

#include <stdio.h>
#include <string.h>

#include "model_priv.h"

static void (*mm_log_fn)(int level, const char *msg, void *arg);
static void *mm_log_arg;

void
mana_model_set_log(void (*fn)(int level, const char *msg, void *arg), void *arg)
{
	mm_log_fn = fn;
	mm_log_arg = arg;
}

void
mm_vlog(int level, const char *fmt, va_list ap)
{
	char msg[512];

	if (mm_log_fn == NULL && level > MM_LOG_WARNING)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (mm_log_fn != NULL)
		mm_log_fn(level, msg, mm_log_arg);
	else
		fprintf(stderr, "mana_model: %s\n", msg);
}

void
mm_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mm_vlog(level, fmt, ap);
	va_end(ap);
}

void
mm_error(struct mana_model *m, int level, const char *fmt, ...)
{
	va_list ap;

	if (m != NULL) {
		char msg[sizeof(m->last_error)];

		/* Engine threads of one device may report at the same time. */
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		pthread_mutex_lock(&m->err_lock);
		memcpy(m->last_error, msg, sizeof(msg));
		pthread_mutex_unlock(&m->err_lock);
		mm_log(level, "%s: %s", m->cfg.name, msg);
	} else {
		va_start(ap, fmt);
		mm_vlog(level, fmt, ap);
		va_end(ap);
	}
}

const char *
mana_model_last_error(const struct mana_model *m)
{
	return m == NULL ? "" : m->last_error;
}
