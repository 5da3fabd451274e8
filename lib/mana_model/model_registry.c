/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The registry of a process's model devices: one list, whatever mix of the
 * shim and the replacement libibverbs loads the library; names, MACs and
 * pair cables across devices are checked against it when a device joins.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"

pthread_mutex_t mm_global_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(, mana_model) mm_models = LIST_HEAD_INITIALIZER(mm_models);

static struct mana_model *
mm_find_locked(const char *name)
{
	struct mana_model *m;

	LIST_FOREACH(m, &mm_models, link)
		if (strcmp(m->cfg.name, name) == 0)
			return m;
	return NULL;
}

bool
mm_model_valid(const struct mana_model *m)
{
	const struct mana_model *it;
	bool found = false;

	pthread_mutex_lock(&mm_global_lock);
	LIST_FOREACH(it, &mm_models, link)
		if (it == m)
			found = true;
	pthread_mutex_unlock(&mm_global_lock);
	return found;
}

/* A port of another device with mac, or NULL (mm_global_lock held). */
static const struct mm_port *
mm_mac_owner_locked(const uint8_t mac[6])
{
	struct mana_model *o;
	unsigned int p;

	LIST_FOREACH(o, &mm_models, link)
		for (p = 0; p < o->cfg.nports; p++)
			if (memcmp(o->port[p].mac, mac, 6) == 0)
				return &o->port[p];
	return NULL;
}

/*
 * A pair wire to another device that exists already must be met by a pair
 * back from that port; one to a device not created yet waits for it
 * (mm_global_lock held).
 */
static int
mm_pairs_remote_check_locked(const struct mana_model_config *cfg)
{
	for (unsigned int i = 0; i < cfg->nports; i++) {
		const struct mana_model_wire_cfg *w = &cfg->wire[i], *back;
		const struct mana_model *peer;
		unsigned int j = w->pair.port;

		if (w->type != MANA_MODEL_WIRE_PAIR || w->pair.dev[0] == '\0' ||
		    strcmp(w->pair.dev, cfg->name) == 0)
			continue;
		peer = mm_find_locked(w->pair.dev);
		if (peer == NULL)
			continue;
		if (j >= peer->cfg.nports) {
			mm_log(MM_LOG_ERR, "create %s: port %u: wire pair:%s/%u, but device %s "
			       "has %u port(s)", cfg->name, i, w->pair.dev, j, w->pair.dev,
			       peer->cfg.nports);
			return EINVAL;
		}
		back = &peer->cfg.wire[j];
		if (back->type != MANA_MODEL_WIRE_PAIR || strcmp(back->pair.dev, cfg->name) != 0 ||
		    back->pair.port != i) {
			mm_log(MM_LOG_ERR, "create %s: port %u: wire pair:%s/%u, but port %u of "
			       "device %s is %s%s, not pair:%s/%u; both ends of a pair cable "
			       "name each other",
			       cfg->name, i, w->pair.dev, j, j, w->pair.dev,
			       mm_wire_type_name(back->type), back->type == MANA_MODEL_WIRE_PAIR ?
			       " to another port" : "", cfg->name, i);
			return EINVAL;
		}
	}
	return 0;
}

/*
 * May m join the registry: a name no device has, MACs no other port has,
 * pair cables that the devices already there answer. 0 or an errno, the
 * reason logged (mm_global_lock held).
 */
int
mm_registry_admit_locked(const struct mana_model *m)
{
	const struct mana_model_config *cfg = &m->cfg;

	if (mm_find_locked(cfg->name) != NULL) {
		mm_log(MM_LOG_ERR, "create %s: name already used", cfg->name);
		return EEXIST;
	}
	for (unsigned int i = 0; i < cfg->nports; i++) {
		const struct mm_port *o = mm_mac_owner_locked(m->port[i].mac);
		const uint8_t *a = m->port[i].mac;

		if (o == NULL)
			continue;
		mm_log(MM_LOG_ERR, "create %s: port %u: MAC %02x:%02x:%02x:%02x:%02x:%02x is "
		       "already port %u of device %s", cfg->name, i, a[0], a[1], a[2], a[3],
		       a[4], a[5], o->index, o->m->cfg.name);
		return EADDRINUSE;
	}
	return mm_pairs_remote_check_locked(cfg);
}

/* Add a device that mm_registry_admit_locked admitted (mm_global_lock held). */
void
mm_registry_insert_locked(struct mana_model *m)
{
	LIST_INSERT_HEAD(&mm_models, m, link);
}

void
mm_registry_remove(struct mana_model *m)
{
	pthread_mutex_lock(&mm_global_lock);
	LIST_REMOVE(m, link);
	pthread_mutex_unlock(&mm_global_lock);
}

struct mana_model *
mana_model_find(const char *name)
{
	struct mana_model *m;

	if (name == NULL)
		return NULL;
	pthread_mutex_lock(&mm_global_lock);
	m = mm_find_locked(name);
	pthread_mutex_unlock(&mm_global_lock);
	return m;
}

unsigned int
mana_model_list(struct mana_model **list, unsigned int max)
{
	struct mana_model *m;
	unsigned int n = 0;

	pthread_mutex_lock(&mm_global_lock);
	LIST_FOREACH(m, &mm_models, link) {
		if (list != NULL && n < max)
			list[n] = m;
		n++;
	}
	pthread_mutex_unlock(&mm_global_lock);
	return n;
}

struct ibv_device **
mana_model_get_device_list(enum mana_model_frontend frontend, int *num_devices)
{
	struct ibv_device **list;
	struct mana_model *m;
	unsigned int n = 0, i;

	pthread_mutex_lock(&mm_global_lock);
	LIST_FOREACH(m, &mm_models, link)
		if (m->cfg.frontend == frontend)
			n++;
	list = calloc(n + 1, sizeof(*list));
	if (list == NULL) {
		pthread_mutex_unlock(&mm_global_lock);
		errno = ENOMEM;
		return NULL;
	}
	/* Oldest first: the list is built by head insertion. */
	i = n;
	LIST_FOREACH(m, &mm_models, link)
		if (m->cfg.frontend == frontend)
			list[--i] = &m->ibdev;
	pthread_mutex_unlock(&mm_global_lock);
	if (num_devices != NULL)
		*num_devices = (int)n;
	return list;
}

struct ibv_device *
mana_model_ibv_device(struct mana_model *m)
{
	return m == NULL ? NULL : &m->ibdev;
}

struct mana_model *
mana_model_from_device(const struct ibv_device *dev)
{
	struct mana_model *m, *found = NULL;

	if (dev == NULL)
		return NULL;
	pthread_mutex_lock(&mm_global_lock);
	LIST_FOREACH(m, &mm_models, link)
		if (&m->ibdev == dev)
			found = m;
	pthread_mutex_unlock(&mm_global_lock);
	return found;
}

struct mana_model *
mana_model_from_context(const struct ibv_context *ctx)
{
	if (ctx == NULL)
		return NULL;
	return mana_model_from_device(ctx->device);
}
