/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Devices and contexts of the replacement libibverbs: device list, open and
 * close, queries and async events, served by the model. The context the
 * model returns is a whole struct verbs_context (abi_compat = UINTPTR_MAX,
 * sz = sizeof(struct verbs_context), every op set), as libibverbs builds it,
 * so rdma-core's inline verbs dispatch into the model (hardware.md §9).
 */

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mana_model.h"
#include "mana_model_verbs.h"
#include "ibvm_priv.h"

/* verbs.h wraps ibv_query_port in an inline; the export has the plain name. */
#undef ibv_query_port

IBVM_EXPORT struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	int err = ibvm_devices_init();

	if (num_devices != NULL)
		*num_devices = 0;
	if (err != 0) {
		errno = err;
		return NULL;
	}
	list = mana_model_get_device_list(MANA_MODEL_FRONTEND_VERBS, num_devices);
	if (list == NULL && errno == 0)
		errno = ENOMEM;
	return list;
}

IBVM_EXPORT void
ibv_free_device_list(struct ibv_device **list)
{
	free(list);	/* model devices live as long as the process */
}

IBVM_EXPORT const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device == NULL ? NULL : device->name;
}

IBVM_EXPORT int
ibv_get_device_index(struct ibv_device *device)
{
	struct ibv_device **list;
	int n = 0, idx = -1;

	list = mana_model_get_device_list(MANA_MODEL_FRONTEND_VERBS, &n);
	if (list == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		if (list[i] == device)
			idx = i;
	free(list);
	return idx;
}

IBVM_EXPORT struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct ibv_context *ctx;

	if (mana_model_from_device(device) == NULL) {
		errno = ENODEV;
		return NULL;
	}
	ctx = mana_model_open_device(device);
	if (ctx == NULL)
		return NULL;
	/* What libibverbs guarantees; the model builds the context that way. */
	if (ctx->abi_compat != (void *)UINTPTR_MAX ||
	    verbs_get_ctx(ctx)->sz != sizeof(struct verbs_context)) {
		ibvm_log(3, "model context of %s is not a rdma-core 44 verbs_context",
			 device->name);
		mana_model_close_device(ctx);
		errno = EPROTO;
		return NULL;
	}
	ibvm_calls_hook_context(ctx);
	ibvm_count(IBVM_CALL_OPEN_DEVICE);
	return ctx;
}

IBVM_EXPORT int
ibv_close_device(struct ibv_context *context)
{
	int rc = mana_model_close_device(context);

	if (rc == 0)
		ibvm_count(IBVM_CALL_CLOSE_DEVICE);
	return -rc;
}

/* The node GUID the device reports (EUI-64 of the first port's MAC). */
IBVM_EXPORT __be64
ibv_get_device_guid(struct ibv_device *device)
{
	struct ibv_device_attr_ex attr;
	struct ibv_context *ctx = ibv_open_device(device);
	__be64 guid = 0;

	if (ctx == NULL)
		return 0;
	if (mana_model_query_device_ex(ctx, NULL, &attr) == 0)
		guid = attr.orig_attr.node_guid;
	ibv_close_device(ctx);
	return guid;
}

IBVM_EXPORT int
ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
	struct ibv_device_attr_ex ex;
	int rc;

	if (device_attr == NULL)
		return EINVAL;
	rc = mana_model_query_device_ex(context, NULL, &ex);
	if (rc == 0)
		*device_attr = ex.orig_attr;
	return -rc;
}

/*
 * The exported ibv_query_port takes the older, shorter attribute layout
 * (libibverbs' struct _compat_ibv_port_attr ends with `flags`); the inline
 * ibv_query_port() of verbs.h goes through verbs_context->query_port with
 * the full size instead.
 */
IBVM_EXPORT int
ibv_query_port(struct ibv_context *context, uint8_t port_num,
	       struct _compat_ibv_port_attr *port_attr)
{
	struct ibv_port_attr attr;
	int rc;

	if (port_attr == NULL)
		return EINVAL;
	rc = mana_model_query_port(context, port_num, &attr);
	if (rc == 0)
		memcpy(port_attr, &attr, offsetof(struct ibv_port_attr, port_cap_flags2));
	return -rc;
}

IBVM_EXPORT int
ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	int rc = mana_model_get_async_event(context, event);

	if (rc != 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

IBVM_EXPORT void
ibv_ack_async_event(struct ibv_async_event *event)
{
	mana_model_ack_async_event(event);
}

/* ---- sysfs helpers (rdma-core honours SYSFS_PATH) ---------------------- */

IBVM_EXPORT const char *
ibv_get_sysfs_path(void)
{
	static char path[256];
	const char *env = getenv("SYSFS_PATH");
	size_t n;

	if (env == NULL || env[0] == '\0')
		return "/sys";
	snprintf(path, sizeof(path), "%s", env);
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	return path;
}

/* Read a sysfs attribute without its trailing newline; length or -1. */
IBVM_EXPORT int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	char *path;
	ssize_t len;
	int fd;

	if (size == 0 || asprintf(&path, "%s/%s", dir, file) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len <= 0)
		return -1;
	if ((size_t)len == size)
		len--;
	if (buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return (int)len;
}
