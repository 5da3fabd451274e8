/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Model devices: configuration defaults, creation and destruction, the
 * global registry, MAC and id generators, the sysfs-like tree that makes a
 * model device look like a MANA PCI function to probe code, and logging.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_priv.h"
#include "model_num.h"

pthread_mutex_t mm_global_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(, mana_model) mm_models = LIST_HEAD_INITIALIZER(mm_models);

static void (*mm_log_fn)(int level, const char *msg, void *arg);
static void *mm_log_arg;

/* ---- logging ---------------------------------------------------------- */

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

/* ---- generators --------------------------------------------------------- */

static uint32_t
mm_fnv1a(const char *s, uint32_t extra)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	h = (h ^ extra) * 16777619u;
	return h;
}

uint32_t
mm_pow2_ceil(uint32_t x)
{
	uint32_t p = 1;

	while (p < x)
		p <<= 1;
	return p;
}

/*
 * Queue ids: a bijection of a counter over 24 bits (odd multiplier, xor
 * seed), so ids are distinct, spread over the whole range (most >= 1024,
 * exercising vsq_frame) and never small sequential numbers.
 */
uint32_t
mm_new_queue_id(struct mana_model *m)
{
	uint32_t id;

	do {
		m->id_ctr++;
		id = ((m->id_ctr * 0x9E3779u) ^ m->id_seed) & 0xFFFFFFu;
	} while (id == 0);
	return id;
}

/* lkeys: xorshift-mixed counter over 32 bits (a bijection), never 0. */
uint32_t
mm_new_lkey(struct mana_model *m)
{
	uint32_t x;

	do {
		x = ++m->key_ctr * 0x85EBCA6Bu;
		x ^= m->key_seed;
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
	} while (x == 0 || mm_mr_lookup(m, x) != NULL);
	return x;
}

static void
mm_gen_mac(const char *name, unsigned int port, uint8_t mac[6])
{
	uint32_t h = mm_fnv1a(name, port + 1);

	mac[0] = 0x00;
	mac[1] = 0x15;
	mac[2] = 0x5d;
	mac[3] = (uint8_t)(h >> 16);
	mac[4] = (uint8_t)(h >> 8);
	mac[5] = (uint8_t)(h ^ port);
}

/* ---- config ------------------------------------------------------------- */

/*
 * MANA_MODEL_ENGINE_THREADS: the thread count of every device whose settings
 * do not say (doc/user_guide.md "Engine threads"), so a whole test run can be
 * made multi-threaded. A bad value is logged once and ignored.
 */
static uint8_t
mm_engine_threads_default(void)
{
	static int warned;
	const char *env = getenv(MANA_MODEL_ENGINE_THREADS_ENV);
	long v;

	if (env == NULL || env[0] == '\0')
		return 1;
	if (mm_parse_long(env, 1, MANA_MODEL_MAX_ENGINES, &v, NULL) == 0)
		return (uint8_t)v;
	if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED) == 0)
		mm_log(MM_LOG_WARNING, "%s='%.32s' ignored (allowed: an integer 1..%u); "
		       "one engine thread", MANA_MODEL_ENGINE_THREADS_ENV, env,
		       MANA_MODEL_MAX_ENGINES);
	return 1;
}

void
mana_model_config_init(struct mana_model_config *cfg, const char *name)
{
	memset(cfg, 0, sizeof(*cfg));
	if (name != NULL)
		snprintf(cfg->name, sizeof(cfg->name), "%s", name);
	cfg->nports = 1;
	for (unsigned int i = 0; i < MANA_MODEL_MAX_PORTS; i++)
		cfg->wire[i].type = MANA_MODEL_WIRE_LOOP;
	cfg->manual = false;
	cfg->engine_threads = mm_engine_threads_default();
	for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++)
		cfg->engine_cpu[i] = -1;
	cfg->shared_doorbell = false;
	cfg->rx_coalesce = true;
	cfg->vendor_part_id = 2;
	cfg->max_qp = MM_DEFAULT_MAX_QP;
	cfg->max_qp_wr = GDMA_ETH_MAX_QUEUE_ENTRIES;
	cfg->rdma_core = MM_RDMA_CORE_DEFAULT;
	cfg->cqe_batch = MM_DEFAULT_CQE_BATCH;
	cfg->numa_node = -1;
}

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

static int
mm_config_check(const struct mana_model_config *cfg)
{
	char msg[256];

	if (cfg->name[0] == '\0' || memchr(cfg->name, '\0', sizeof(cfg->name)) == NULL ||
	    strchr(cfg->name, '/') != NULL) {
		mm_log(MM_LOG_ERR, "create: invalid device name");
		return EINVAL;
	}
	if (cfg->nports < 1 || cfg->nports > MANA_MODEL_MAX_PORTS) {
		mm_log(MM_LOG_ERR, "create %s: nports %u not in 1..%u", cfg->name,
		       cfg->nports, MANA_MODEL_MAX_PORTS);
		return EINVAL;
	}
	if (!cfg->manual && (cfg->engine_threads < 1 ||
			     cfg->engine_threads > MANA_MODEL_MAX_ENGINES)) {
		mm_log(MM_LOG_ERR, "create %s: engine_threads %u not in 1..%u", cfg->name,
		       cfg->engine_threads, MANA_MODEL_MAX_ENGINES);
		return EINVAL;
	}
	for (unsigned int i = 0; !cfg->manual && i < cfg->engine_threads; i++)
		if (cfg->engine_cpu[i] < -1 || cfg->engine_cpu[i] >= CPU_SETSIZE) {
			mm_log(MM_LOG_ERR, "create %s: engine thread %u: CPU %d not in -1..%d",
			       cfg->name, i, cfg->engine_cpu[i], CPU_SETSIZE - 1);
			return EINVAL;
		}
	if (cfg->max_qp_wr > GDMA_ETH_MAX_QUEUE_ENTRIES ||
	    (cfg->rdma_core != 0 && (cfg->rdma_core < MM_RDMA_CORE_MIN ||
				     cfg->rdma_core > MM_RDMA_CORE_MAX))) {
		mm_log(MM_LOG_ERR, "create %s: max_qp_wr %u not in 0..%u or rdma_core %u not in "
		       "0 or %u..%u", cfg->name, cfg->max_qp_wr, GDMA_ETH_MAX_QUEUE_ENTRIES,
		       cfg->rdma_core, MM_RDMA_CORE_MIN, MM_RDMA_CORE_MAX);
		return EINVAL;
	}
	if (cfg->vendor_part_id != 0 && cfg->vendor_part_id != 2) {
		mm_log(MM_LOG_ERR, "create %s: vendor_part_id %u not 0 or 2", cfg->name,
		       cfg->vendor_part_id);
		return EINVAL;
	}
	for (unsigned int i = 0; i < cfg->nports; i++)
		if (cfg->wire[i].type > MANA_MODEL_WIRE_TAP) {
			mm_log(MM_LOG_ERR, "create %s: port %u: bad wire type", cfg->name, i);
			return EINVAL;
		}
	if (mm_wire_pairs_check(cfg, cfg->name, msg, sizeof(msg)) != 0) {
		mm_log(MM_LOG_ERR, "create %s: %s", cfg->name, msg);
		return EINVAL;
	}
	if (cfg->cqe_batch > MM_CQE_BATCH_MAX) {
		mm_log(MM_LOG_ERR, "create %s: cqe_batch %u not in 1..%u", cfg->name,
		       cfg->cqe_batch, MM_CQE_BATCH_MAX);
		return EINVAL;
	}
	if (cfg->frontend != MANA_MODEL_FRONTEND_SHIM && cfg->frontend != MANA_MODEL_FRONTEND_VERBS) {
		mm_log(MM_LOG_ERR, "create %s: unknown front-end %d", cfg->name, (int)cfg->frontend);
		return EINVAL;
	}
	/* A vPort has a unicast MAC of its own, as Azure assigns one per vNIC. */
	for (unsigned int i = 0; i < cfg->nports; i++) {
		static const uint8_t zero[6];
		const uint8_t *a = cfg->mac[i];

		if (!cfg->mac_set[i])
			continue;
		if ((a[0] & 1) != 0 || memcmp(a, zero, sizeof(zero)) == 0) {
			mm_log(MM_LOG_ERR, "create %s: port %u: MAC %02x:%02x:%02x:%02x:%02x:%02x is "
			       "%s; a vPort needs a unicast address", cfg->name, i, a[0], a[1],
			       a[2], a[3], a[4], a[5], (a[0] & 1) != 0 ?
			       "a multicast/broadcast address" : "all zero");
			return EINVAL;
		}
		for (unsigned int j = 0; j < i; j++)
			if (cfg->mac_set[j] && memcmp(cfg->mac[j], a, 6) == 0) {
				mm_log(MM_LOG_ERR, "create %s: ports %u and %u have the same MAC "
				       "%02x:%02x:%02x:%02x:%02x:%02x", cfg->name, j, i, a[0], a[1],
				       a[2], a[3], a[4], a[5]);
				return EINVAL;
			}
	}
	return 0;
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

/* ---- sysfs tree ----------------------------------------------------------- */

static int
mm_write_file(const char *dir, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
mm_write_file(const char *dir, const char *file, const char *fmt, ...)
{
	char path[MANA_MODEL_PATH_LEN * 2];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (f == NULL)
		return errno;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	return fclose(f) == 0 ? 0 : errno;
}

/*
 * The netdev's mtu file follows the port's MTU, as the kernel's does: a
 * driver that probes again reads the device's MTU there (hardware.md §7.4).
 */
void
mm_sysfs_port_mtu(const struct mana_model *m, unsigned int port)
{
	char dir[MANA_MODEL_PATH_LEN * 2];

	if (m->pci_dir[0] == '\0')
		return;
	snprintf(dir, sizeof(dir), "%s/net/%.10s_p%u", m->pci_dir, m->cfg.name, port);
	if (mm_write_file(dir, "mtu", "%u\n", m->port[port].mtu) != 0)
		mm_log(MM_LOG_WARNING, "sysfs %s/mtu: not updated", dir);
}

/* mkdir -p */
static int
mm_mkdirs(const char *path)
{
	char tmp[MANA_MODEL_PATH_LEN * 2];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		return errno;
	return 0;
}

static int
mm_rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

/* Remove the file tree at path, depth first, not following links. */
void
mm_rm_tree(const char *path)
{
	nftw(path, mm_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The PCI function a DPDK 22.11 Linux PCI scan and the mana probe accept. */
static int
mm_sysfs_pci(struct mana_model *m)
{
	char dir[MANA_MODEL_PATH_LEN * 2], link[MANA_MODEL_PATH_LEN * 2];
	const struct mana_model_config *cfg = &m->cfg;
	int rc = 0;

	snprintf(m->pci_dir, sizeof(m->pci_dir), "%s/bus/pci/devices/%s", m->root, cfg->pci_bdf);
	snprintf(dir, sizeof(dir), "%s/bus/pci/drivers/mana", m->root);
	if (mm_mkdirs(m->pci_dir) != 0 || mm_mkdirs(dir) != 0)
		return errno;
	rc |= mm_write_file(m->pci_dir, "vendor", "0x1414\n");
	rc |= mm_write_file(m->pci_dir, "device", "0x00ba\n");
	rc |= mm_write_file(m->pci_dir, "subsystem_vendor", "0x1414\n");
	rc |= mm_write_file(m->pci_dir, "subsystem_device", "0x0000\n");
	rc |= mm_write_file(m->pci_dir, "class", "0x020000\n");
	rc |= mm_write_file(m->pci_dir, "numa_node", "%d\n", cfg->numa_node);
	rc |= mm_write_file(m->pci_dir, "uevent",
			    "DRIVER=mana\nPCI_CLASS=20000\nPCI_ID=1414:00BA\n"
			    "PCI_SUBSYS_ID=1414:0000\nPCI_SLOT_NAME=%s\n", cfg->pci_bdf);
	/* 13 resource lines, as Linux writes them; no BAR is mappable. */
	rc |= mm_write_file(m->pci_dir, "resource", "%s",
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
			    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
	if (rc != 0)
		return EIO;
	/* A bound kernel driver: DPDK skips functions without one. */
	snprintf(link, sizeof(link), "%s/driver", m->pci_dir);
	if (symlink(dir, link) != 0 && errno != EEXIST)
		return errno;
	for (unsigned int i = 0; i < cfg->nports; i++) {
		const uint8_t *a = m->port[i].mac;

		snprintf(dir, sizeof(dir), "%s/net/%.10s_p%u", m->pci_dir, cfg->name, i);
		if (mm_mkdirs(dir) != 0)
			return errno;
		rc |= mm_write_file(dir, "dev_port", "%u\n", i);
		rc |= mm_write_file(dir, "address", "%02x:%02x:%02x:%02x:%02x:%02x\n",
				    a[0], a[1], a[2], a[3], a[4], a[5]);
		rc |= mm_write_file(dir, "mtu", "%u\n", m->port[i].mtu);
	}
	if (rc != 0)
		return EIO;
	snprintf(link, sizeof(link), "%s/device", m->ibdev.ibdev_path);
	if (symlink(m->pci_dir, link) != 0 && errno != EEXIST)
		return errno;
	return 0;
}

static int
mm_sysfs_create(struct mana_model *m)
{
	int rc;

	if (m->cfg.sysfs_root[0] != '\0') {
		snprintf(m->root, sizeof(m->root), "%s", m->cfg.sysfs_root);
		rc = mm_mkdirs(m->root);
		if (rc != 0)
			return rc;
	} else {
		/* $TMPDIR/mana_model.XXXXXX, gone at exit too (model_tmptree.c) */
		rc = mm_tmptree_create(m->root, sizeof(m->root));
		if (rc != 0)
			return rc;
		m->root_created = true;
	}
	if (snprintf(m->ibdev.ibdev_path, sizeof(m->ibdev.ibdev_path), "%s/class/infiniband/%s",
		     m->root, m->cfg.name) >= (int)sizeof(m->ibdev.ibdev_path) ||
	    snprintf(m->ibdev.dev_path, sizeof(m->ibdev.dev_path), "%s/class/infiniband_verbs/%s",
		     m->root, m->ibdev.dev_name) >= (int)sizeof(m->ibdev.dev_path))
		return ENAMETOOLONG;
	rc = mm_mkdirs(m->ibdev.ibdev_path);
	if (rc == 0)
		rc = mm_mkdirs(m->ibdev.dev_path);
	if (rc == 0)
		rc = mm_write_file(m->ibdev.dev_path, "ibdev", "%s\n", m->cfg.name);
	if (rc == 0 && m->cfg.pci_bdf[0] != '\0')
		rc = mm_sysfs_pci(m);
	return rc;
}

static void
mm_sysfs_remove(struct mana_model *m)
{
	if (m->root[0] == '\0')
		return;
	if (m->root_created) {
		mm_tmptree_remove(m->root);
		return;
	}
	mm_rm_tree(m->ibdev.ibdev_path);
	mm_rm_tree(m->ibdev.dev_path);
	if (m->pci_dir[0] != '\0')
		mm_rm_tree(m->pci_dir);
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
	m->id_seed = mm_fnv1a(cfg->name, 0x5eed) & 0xFFFFFFu;
	m->key_seed = mm_fnv1a(cfg->name, 0x1c3e);
	m->ibdev.node_type = IBV_NODE_CA;
	m->ibdev.transport_type = IBV_TRANSPORT_IB;
	snprintf(m->ibdev.name, sizeof(m->ibdev.name), "%s", cfg->name);
	snprintf(m->ibdev.dev_name, sizeof(m->ibdev.dev_name), "uverbs_%s", cfg->name);
	mm_ports_init(m);

	pthread_mutex_lock(&mm_global_lock);
	if (mm_find_locked(cfg->name) != NULL) {
		pthread_mutex_unlock(&mm_global_lock);
		mm_log(MM_LOG_ERR, "create %s: name already used", cfg->name);
		pthread_rwlock_destroy(&m->lock);
		pthread_mutex_destroy(&m->err_lock);
		free(m);
		errno = EEXIST;
		return NULL;
	}
	for (unsigned int i = 0; i < m->cfg.nports; i++) {
		const struct mm_port *o = mm_mac_owner_locked(m->port[i].mac);
		const uint8_t *a = m->port[i].mac;

		if (o == NULL)
			continue;
		pthread_mutex_unlock(&mm_global_lock);
		mm_log(MM_LOG_ERR, "create %s: port %u: MAC %02x:%02x:%02x:%02x:%02x:%02x is "
		       "already port %u of device %s", cfg->name, i, a[0], a[1], a[2], a[3],
		       a[4], a[5], o->index, o->m->cfg.name);
		pthread_rwlock_destroy(&m->lock);
		pthread_mutex_destroy(&m->err_lock);
		free(m);
		errno = EADDRINUSE;
		return NULL;
	}
	err = mm_pairs_remote_check_locked(&m->cfg);
	if (err != 0) {
		pthread_mutex_unlock(&mm_global_lock);
		pthread_rwlock_destroy(&m->lock);
		pthread_mutex_destroy(&m->err_lock);
		free(m);
		errno = err;
		return NULL;
	}
	err = mm_sysfs_create(m);
	if (err != 0)
		mm_log(MM_LOG_ERR, "create %s: setup failed: %s", cfg->name, strerror(err));
	if (err == 0)
		err = mm_open_wires(m);
	if (err != 0) {
		pthread_mutex_unlock(&mm_global_lock);
		mm_model_free(m);
		errno = err;
		return NULL;
	}
	LIST_INSERT_HEAD(&mm_models, m, link);
	pthread_mutex_unlock(&mm_global_lock);
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
		if (err != 0) {
			pthread_mutex_lock(&mm_global_lock);
			LIST_REMOVE(m, link);
			pthread_mutex_unlock(&mm_global_lock);
			mm_model_free(m);
			errno = err;
			return NULL;
		}
	}
	mm_log(MM_LOG_INFO, "created device %s (%u ports) at %s", cfg->name, cfg->nports,
	       m->ibdev.ibdev_path);
	return m;
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
	pthread_mutex_lock(&mm_global_lock);
	LIST_REMOVE(m, link);
	pthread_mutex_unlock(&mm_global_lock);
	mm_model_free(m);
	return 0;
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
