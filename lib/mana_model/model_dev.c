/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Model devices: creation and destruction, the connection of their wires,
 * and accessors. Configuration checks are in model_config.c, the registry
 * of devices in model_registry.c, ids and MACs in model_ids.c, the sysfs
 * tree in model_sysfs.c, logging in model_log.c.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"

/*
 * Writers first: engine threads take the lock shared pass after pass, and a
 * control verb must not wait for a moment when no pass is under way.
 */
static void
mm_lock_init(struct mana_model *m)
{
	pthread_rwlockattr_t a;

	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&m->lock, &a);
	pthread_rwlockattr_destroy(&a);
	pthread_mutex_init(&m->err_lock, NULL);
}

/* ---- wires -------------------------------------------------------------- */

/*
 * Connect every pair wire whose peer exists now; keep the others pending
 * (carrier off: link down, TX counted in tx_drop_link_down). A far end that
 * exists but is no pair back is logged once and retried, as a cable plugged
 * into the wrong port stays dark until it is re-plugged.
 */
void
mm_wires_connect(struct mana_model *m)
{
	bool pending = false;
	char msg[200];

	for (unsigned int i = 0; i < m->cfg.nports; i++) {
		struct mm_port *p = &m->port[i];
		int rc;

		if (p->wire == NULL || p->wire_connected)
			continue;
		rc = mm_wire_connect(p->wire, msg, sizeof(msg));
		if (rc == 0) {
			p->wire_connected = true;
			p->wire_warned = false;
			p->carrier = true;
			mm_port_link_eval(m, p);
			continue;
		}
		pending = true;
		if (rc != -EAGAIN && !p->wire_warned) {
			mm_error(m, MM_LOG_ERR, "%s; link down until it is", msg);
			p->wire_warned = true;
		}
	}
	__atomic_store_n(&m->wires_pending, pending, __ATOMIC_RELEASE);
}

void
mm_port_check_carrier(struct mana_model *m, struct mm_port *p)
{
	bool entered, carrier;

	if (p->wire == NULL || !p->wire_connected || p->wire->cfg.type != MANA_MODEL_WIRE_PAIR)
		return;
	/* The check takes over a reconnected peer's inbox, which the TX side uses. */
	entered = mm_wire_enter(m, p);
	carrier = mm_wire_carrier(p->wire);
	mm_wire_leave(p, entered);
	if (carrier)
		return;
	p->wire_connected = false;
	p->carrier = false;
	mm_port_link_eval(m, p);
	mm_log(MM_LOG_WARNING, "%s: port %u: the far end of the pair cable (%s/%u) is "
	       "gone; link down until it connects again", m->cfg.name, p->index,
	       p->wire->cfg.pair.dev, p->wire->cfg.pair.port);
	__atomic_store_n(&m->wires_pending, true, __ATOMIC_RELEASE);
}

static void
mm_wires_close(struct mana_model *m)
{
	for (unsigned int i = 0; i < m->cfg.nports; i++) {
		if (m->port[i].wire != NULL)
			mm_wire_close(m->port[i].wire);
		m->port[i].wire = NULL;
	}
}

/* ---- create / destroy --------------------------------------------------- */

static void
mm_ports_init(struct mana_model *m)
{
	for (unsigned int i = 0; i < m->cfg.nports; i++) {
		struct mm_port *p = &m->port[i];

		p->m = m;
		p->index = i;
		if (m->cfg.mac_set[i])
			memcpy(p->mac, m->cfg.mac[i], 6);
		else
			mm_gen_mac(m->cfg.name, i, p->mac);
		p->mtu = MANA_MODEL_DEFAULT_MTU;
		p->admin_up = true;
		/* A pair cable is dark until both ends exist (mm_wires_connect). */
		p->carrier = m->cfg.wire[i].type != MANA_MODEL_WIRE_PAIR;
		p->link_up = p->carrier;
		/* Non-zero and per port, so a driver using 0 or another port's is caught. */
		p->tx_vp_offset = 16 + ((m->id_seed >> 4) + 29 * i) % 200;
		pthread_mutex_init(&p->inbox_lock, NULL);
		pthread_mutex_init(&p->wire_lock, NULL);
		/*
		 * Port p's wire and inbox are served by engine thread p % threads,
		 * its queues spread from there (mm_queue_engine). The shared
		 * doorbell page is one stream of stores for every queue of a
		 * context, read in order by one thread: thread 0 then serves
		 * everything (doc/user_guide.md "Engine threads").
		 */
		p->engine = m->cfg.manual || m->cfg.shared_doorbell ? 0 : i % m->cfg.engine_threads;
		p->home = &m->eng[p->engine];
		p->home_ep = &m->eng[p->engine].port[i];
	}
	for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++) {
		m->eng[i].m = m;
		m->eng[i].index = i;
		LIST_INIT(&m->eng[i].held_cqs);
	}
}

static void
mm_model_free(struct mana_model *m)
{
	mm_wires_close(m);
	for (unsigned int i = 0; i < m->cfg.nports; i++) {
		struct mm_inbox_frame *f = m->port[i].inbox_head, *n;

		for (; f != NULL; f = n) {
			n = f->next;
			free(f);
		}
		pthread_mutex_destroy(&m->port[i].inbox_lock);
		pthread_mutex_destroy(&m->port[i].wire_lock);
	}
	mm_sysfs_remove(m);
	pthread_rwlock_destroy(&m->lock);
	pthread_mutex_destroy(&m->err_lock);
	free(m);
}

static int
mm_open_wires(struct mana_model *m)
{
	for (unsigned int i = 0; i < m->cfg.nports; i++) {
		m->port[i].wire = mm_wire_open(&m->port[i], &m->cfg.wire[i]);
		if (m->port[i].wire == NULL)
			return errno != 0 ? errno : EINVAL;	/* the wire said why */
	}
	return 0;
}

/* A device of cfg (checked), its ports and locks set up, in no registry. */
static struct mana_model *
mm_model_alloc(const struct mana_model_config *cfg)
{
	struct mana_model *m;

	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return NULL;
	m->cfg = *cfg;
	if (m->cfg.max_qp == 0)
		m->cfg.max_qp = MM_DEFAULT_MAX_QP;
	if (m->cfg.cqe_batch == 0)
		m->cfg.cqe_batch = MM_DEFAULT_CQE_BATCH;
	if (m->cfg.max_qp_wr == 0)
		m->cfg.max_qp_wr = GDMA_ETH_MAX_QUEUE_ENTRIES;
	if (m->cfg.rdma_core == 0)
		m->cfg.rdma_core = MM_RDMA_CORE_DEFAULT;
	mm_lock_init(m);
	LIST_INIT(&m->ctxs);
	LIST_INIT(&m->qps);
	LIST_INIT(&m->wqs);
	LIST_INIT(&m->cqs);
	LIST_INIT(&m->inds);
	LIST_INIT(&m->chans);
	mm_ids_seed(m);
	m->ibdev.node_type = IBV_NODE_CA;
	m->ibdev.transport_type = IBV_TRANSPORT_IB;
	snprintf(m->ibdev.name, sizeof(m->ibdev.name), "%s", cfg->name);
	snprintf(m->ibdev.dev_name, sizeof(m->ibdev.dev_name), "uverbs_%s", cfg->name);
	mm_ports_init(m);
	return m;
}

/*
 * Under mm_global_lock, so that no device of the same name or MAC can join
 * between the check and the insertion: admitted, given its sysfs tree and
 * wires, registered. 0 or an errno; what was made is undone by mm_model_free.
 */
static int
mm_model_register(struct mana_model *m)
{
	int err;

	pthread_mutex_lock(&mm_global_lock);
	err = mm_registry_admit_locked(m);
	if (err == 0) {
		err = mm_sysfs_create(m);
		if (err != 0)
			mm_log(MM_LOG_ERR, "create %s: setup failed: %s", m->cfg.name,
			       strerror(err));
	}
	if (err == 0)
		err = mm_open_wires(m);
	if (err == 0)
		mm_registry_insert_locked(m);
	pthread_mutex_unlock(&mm_global_lock);
	return err;
}

struct mana_model *
mana_model_create(const struct mana_model_config *cfg)
{
	struct mana_model *m;
	int err;

	if (cfg == NULL) {
		errno = EINVAL;
		return NULL;
	}
	err = mm_config_check(cfg);
	if (err != 0) {
		errno = err;
		return NULL;
	}
	m = mm_model_alloc(cfg);
	if (m == NULL)
		return NULL;
	err = mm_model_register(m);
	if (err != 0)
		goto free_model;
	/*
	 * Pair wires whose peer does not exist yet stay pending; every engine
	 * pass of every device retries them, so a device created later connects.
	 * (Never called under mm_global_lock: connecting looks peers up.)
	 */
	mm_lock(m);
	mm_wires_connect(m);
	mm_unlock(m);
	if (!cfg->manual) {
		err = mm_engine_start(m);
		if (err != 0)
			goto unregister;
	}
	mm_log(MM_LOG_INFO, "created device %s (%u ports) at %s", cfg->name, cfg->nports,
	       m->ibdev.ibdev_path);
	return m;

unregister:
	mm_registry_remove(m);
free_model:
	mm_model_free(m);	/* takes a partly made device: no tree, no wires */
	errno = err;
	return NULL;
}

int
mana_model_destroy(struct mana_model *m)
{
	if (m == NULL || !mm_model_valid(m))
		return -EINVAL;
	mm_lock(m);
	if (!LIST_EMPTY(&m->ctxs)) {
		mm_unlock(m);
		return -EBUSY;
	}
	mm_unlock(m);
	mm_engine_stop(m);
	mm_registry_remove(m);
	mm_model_free(m);
	return 0;
}

const struct mana_model_config *
mana_model_config(const struct mana_model *m)
{
	return m == NULL ? NULL : &m->cfg;
}

const char *
mana_model_ibdev_path(const struct mana_model *m)
{
	return m == NULL ? NULL : m->ibdev.ibdev_path;
}

/* ---- port accessors for the wires ---------------------------------------- */

const uint8_t *
mm_port_mac(const struct mm_port *port)
{
	return port->mac;
}

unsigned int
mm_port_index(const struct mm_port *port)
{
	return port->index;
}

struct mm_wire *
mm_port_wire(struct mana_model *m, unsigned int index)
{
	if (m == NULL || index >= m->cfg.nports)
		return NULL;
	return m->port[index].wire;
}
